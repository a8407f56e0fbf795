// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: the memshare data path.
 *
 * At connect every RAM page of the guest is granted to the backend once
 * and a pfn -> grant reference table is published (fipcblk.h): table
 * pages of 1024 references, listed in one directory page whose
 * reference goes in fipc-memshare-dir-ref.  WRITE requests then name
 * their pages by pfn, with no grant per request.  In a PV guest the
 * memory is shared read-only: a frame another domain maps writable
 * cannot become a page table, and any free page may become one, so READs
 * go through staging pages or keep per-request (writable) grants.  A PVH
 * or HVM guest (auto-translated: a pfn is a gfn) has no page types: where
 * the backend offers it (fipc-memshare-writable) its memory is granted
 * writable and READs name their pages by pfn too, with no copy.  A READ
 * by pfn is then touched page by page when it completes, so that the
 * log-dirty mode of a live migration sees the pages the backend wrote
 * through its long-lived mapping (Xen marks a grant-mapped page dirty
 * only when it is unmapped).
 *
 * The grants and the table are made once per backend domain and shared
 * by every disk that domain serves (refcounted): a guest with several
 * memshare disks grants its memory once.
 *
 * A page is named by pfn only if its frame is still the one granted at
 * connect (ballooning, or a frame exchange for DMA, changes the frame
 * behind a pfn); otherwise the request goes through staging pages or
 * with grants (counted in memshare_fallbacks).  The grants are
 * revoked at disconnect, after the backend has unmapped them: one still
 * mapped is ended later by front_linger.c.  With memory shared writable,
 * the pages of READs the backend never answered are held until then.
 */
#include <linux/bitmap.h>
#include <linux/blk-mq.h>
#include <linux/highmem.h>
#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <xen/features.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include <xen/xen.h>
#include "front.h"

#define XFF_MS_PER_PAGE		FIPCBLK_MEMSHARE_REFS_PER_PAGE
/* Grant references left free after sharing, for rings and fallbacks. */
#define XFF_MS_RESERVE		1024

/*
 * Serialises changes to the sets of granted memory, one per backend
 * domain: xff_ms_sets, in front_gfn_watch.c, whose handlers walk it
 * under RCU.
 */
static DEFINE_MUTEX(xff_ms_mutex);

/*
 * The frame behind a pfn: as the p2m has it in a PV guest (foreign and
 * identity bits kept), the pfn itself (a gfn) in an auto-translated one.
 */
static unsigned long xff_ms_frame(unsigned long pfn)
{
	if (xen_feature(XENFEAT_auto_translated_physmap))
		return pfn;
	return __pfn_to_mfn(pfn);
}

/* walk_iomem_res_desc() callback: the end of the highest RAM range. */
static int xff_ms_ram_end(struct resource *res, void *arg)
{
	u64 *end = arg;

	*end = max_t(u64, *end, res->end);
	return 0;
}

/*
 * Pfns the table covers: up to the highest System RAM (the PV p2m's size
 * is the p2m's virtual space, far beyond the guest's memory).
 */
static unsigned long xff_ms_npfns(void)
{
	u64 end = 0;

	walk_iomem_res_desc(IORES_DESC_NONE,
			    IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY, 0, U64_MAX,
			    &end, xff_ms_ram_end);
	if (!end)
		return 0;
	if (xen_feature(XENFEAT_auto_translated_physmap))
		return PHYS_PFN(end) + 1;
	return min_t(unsigned long, PHYS_PFN(end) + 1, READ_ONCE(xen_p2m_size));
}

/*
 * Can this pfn be shared: RAM with a frame of our own?  An auto-translated
 * guest's p2m is Xen's: a page in the balloon (offline) has none.  A gfn
 * left without a frame some other way is granted anyway: the backend
 * cannot map it, and the frame it gets later is seen arriving (the gfn
 * watch), so it is never named by pfn.
 */
static bool xff_ms_shareable(unsigned long pfn, unsigned long frame)
{
	if (!pfn_valid(pfn) || !page_is_ram(pfn))
		return false;
	if (xen_feature(XENFEAT_auto_translated_physmap))
		return !PageOffline(pfn_to_page(pfn));
	return frame != INVALID_P2M_ENTRY &&
	       !(frame & (FOREIGN_FRAME_BIT | IDENTITY_FRAME_BIT));
}

static u32 *xff_ms_table(struct xff_memshare *ms, unsigned long pfn)
{
	u32 *t = page_address(ms->tables[pfn / XFF_MS_PER_PAGE]);

	return &t[pfn % XFF_MS_PER_PAGE];
}

static void xff_ms_free(struct xff_memshare *ms)
{
	xff_free_pages(ms->tables, ms->nr_tables);
	if (ms->dir)
		__free_page(ms->dir);
	kvfree(ms->frames);
	kvfree(ms->refs);
	bitmap_free(ms->gone);
	bitmap_free(ms->held);
	kfree(ms);
}

/*
 * A new set's arrays: @autoxlat, the gfn bitmap; @writable (memory
 * shared writable), the bitmap of held pages too.
 */
static struct xff_memshare *xff_ms_alloc(unsigned long npfns, bool autoxlat,
					 bool writable)
{
	struct xff_memshare *ms;
	unsigned int t;

	ms = kzalloc_obj(*ms, GFP_KERNEL);
	if (!ms)
		return NULL;
	ms->npfns = npfns;
	ms->writable = writable;
	ms->nr_tables = DIV_ROUND_UP(npfns, XFF_MS_PER_PAGE);
	ms->frames = kvcalloc(npfns, sizeof(*ms->frames), GFP_KERNEL);
	ms->refs = kvcalloc(npfns + ms->nr_tables, sizeof(*ms->refs),
			    GFP_KERNEL);
	ms->tables = kcalloc(ms->nr_tables, sizeof(*ms->tables), GFP_KERNEL);
	ms->dir = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (autoxlat)
		ms->gone = bitmap_zalloc(npfns, GFP_KERNEL);
	if (writable)
		ms->held = bitmap_zalloc(npfns, GFP_KERNEL);
	if (!ms->frames || !ms->refs || !ms->tables || !ms->dir ||
	    (autoxlat && !ms->gone) || (writable && !ms->held))
		goto fail;
	for (t = 0; t < ms->nr_tables; t++) {
		ms->tables[t] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!ms->tables[t])
			goto fail;
	}
	return ms;

fail:
	xff_ms_free(ms);
	return NULL;
}

/*
 * Grant references taken as chains of at most XFF_MS_CHUNK (the grant
 * table's allocator counts in 16 bits), claimed one by one.
 */
#define XFF_MS_CHUNK		32768
struct xff_ms_pool {
	grant_ref_t heads[DIV_ROUND_UP(FIPCBLK_MEMSHARE_MAX_PFNS +
				       FIPCBLK_MEMSHARE_MAX_PFNS /
				       XFF_MS_PER_PAGE + 1, XFF_MS_CHUNK)];
	unsigned int nr;
	unsigned int cur;
};

static void xff_ms_pool_free(struct xff_ms_pool *pool)
{
	while (pool->nr)
		gnttab_free_grant_references(pool->heads[--pool->nr]);
}

static grant_ref_t xff_ms_pool_claim(struct xff_ms_pool *pool)
{
	int ref = gnttab_claim_grant_reference(&pool->heads[pool->cur]);

	if (ref < 0) {
		/* This chain is used up: the next one (counted to fit). */
		pool->cur++;
		ref = gnttab_claim_grant_reference(&pool->heads[pool->cur]);
	}
	return ref;
}

/*
 * Take the references, one for every shared page and the table and
 * directory pages, and make sure XFF_MS_RESERVE more are still to be had.
 * Any free ones, not a run: after a resume the rings of other disks take
 * references out of the middle of the run a set had before (the free
 * list hands out the last freed first), and a guest saved twice could no
 * longer find a run of a whole set.
 */
static int xff_ms_get_refs(struct xff_info *info, unsigned int count,
			   struct xff_ms_pool *pool)
{
	unsigned int left = count, n;
	grant_ref_t head;

	pool->nr = 0;
	pool->cur = 0;
	while (left) {
		n = min_t(unsigned int, left, XFF_MS_CHUNK);
		if (pool->nr == ARRAY_SIZE(pool->heads) ||
		    gnttab_alloc_grant_references(n, &pool->heads[pool->nr])) {
			xff_ms_pool_free(pool);
			dev_warn(&info->xbdev->dev, "memshare: cannot get %u grant references (the domain's max_grant_frames is %u)\n",
				 count, gnttab_max_grant_frames());
			return -ENOSPC;
		}
		pool->nr++;
		left -= n;
	}
	if (gnttab_alloc_grant_references(XFF_MS_RESERVE, &head)) {
		dev_warn(&info->xbdev->dev, "memshare: %u grant references leave fewer than %u for rings and fallbacks (max_grant_frames %u)\n",
			 count, XFF_MS_RESERVE, gnttab_max_grant_frames());
		xff_ms_pool_free(pool);
		return -ENOSPC;
	}
	gnttab_free_grant_references(head);
	return 0;
}

/*
 * Grant all of the guest's memory to a backend domain: fill a new set,
 * already on the list (the gfn watch marks what goes from now on).
 */
static int xff_ms_grant(struct xff_info *info, struct xff_memshare *ms)
{
	domid_t domid = info->xbdev->otherend_id;
	unsigned long pfn, npfns = ms->npfns, shared = 0;
	struct xff_ms_pool *pool;
	grant_ref_t ref;
	unsigned int t;
	u32 *dir;
	int err;

	/* One look at the p2m: what is granted is what we compare with. */
	for (pfn = 0; pfn < npfns; pfn++) {
		unsigned long frame = xff_ms_frame(pfn);

		if (xff_ms_shareable(pfn, frame)) {
			ms->frames[pfn] = frame;
			shared++;
		} else {
			ms->frames[pfn] = INVALID_P2M_ENTRY;
		}
		if (!(pfn % 4096))
			cond_resched();
	}
	ms->count = shared + ms->nr_tables + 1;
	pool = kmalloc_obj(*pool, GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	err = xff_ms_get_refs(info, ms->count, pool);
	if (err) {
		kfree(pool);
		return err;
	}
	for (pfn = 0; pfn < npfns; pfn++) {
		if (ms->frames[pfn] == INVALID_P2M_ENTRY)
			continue;
		ref = xff_ms_pool_claim(pool);
		gnttab_grant_foreign_access_ref(ref, domid, ms->frames[pfn],
						!ms->writable);
		ms->refs[pfn] = ref;
		*xff_ms_table(ms, pfn) = ref;
	}
	/*
	 * Writable like every other page: the backend maps them with
	 * xenbus_map_ring_valloc(), and could write them through its mapping
	 * of our memory anyway.  We never read them back.
	 */
	dir = page_address(ms->dir);
	for (t = 0; t < ms->nr_tables; t++) {
		ref = xff_ms_pool_claim(pool);
		gnttab_grant_foreign_access_ref(ref, domid,
						xen_page_to_gfn(ms->tables[t]),
						0);
		ms->refs[npfns + t] = ref;
		dir[t] = ref;
	}
	ref = xff_ms_pool_claim(pool);
	gnttab_grant_foreign_access_ref(ref, domid, xen_page_to_gfn(ms->dir), 0);
	ms->dir_ref = ref;
	/* Every chain used up exactly: nothing to give back. */
	kfree(pool);
	ms->shared = shared;
	dev_info(&info->xbdev->dev, "memshare: %lu of %lu pfns granted %s to domain %u (%u table pages)\n",
		 shared, npfns, ms->writable ? "writable" : "read-only", domid,
		 ms->nr_tables);
	return 0;
}

/* Off the list, seen by no gfn watch handler any more, and freed. */
static void xff_ms_unlist_free(struct xff_memshare *ms)
{
	list_del_rcu(&ms->node);
	synchronize_rcu();
	if (ms->gone)
		xff_gfn_watch_put();
	xff_ms_free(ms);
}

/*
 * A new set for a backend domain, on the list, its memory granted.  An
 * auto-translated guest needs the gfn watch, before its gfns are walked,
 * and shares writable where the backend offers it.
 */
static struct xff_memshare *xff_ms_create(struct xff_info *info)
{
	bool autoxlat = xen_feature(XENFEAT_auto_translated_physmap);
	struct xff_memshare *ms;
	unsigned long npfns;
	bool writable;
	int err;

	npfns = xff_ms_npfns();
	if (!npfns || npfns > FIPCBLK_MEMSHARE_MAX_PFNS) {
		dev_warn(&info->xbdev->dev, "memshare: %lu pfns, at most %u can be shared\n",
			 npfns, FIPCBLK_MEMSHARE_MAX_PFNS);
		return ERR_PTR(-E2BIG);
	}
	if (autoxlat) {
		err = xff_gfn_watch_get();
		if (err)
			return ERR_PTR(-EOPNOTSUPP);
	}
	writable = autoxlat &&
		   xenbus_read_unsigned(info->xbdev->otherend,
					"fipc-memshare-writable", 0) == 1;
	ms = xff_ms_alloc(npfns, autoxlat, writable);
	if (!ms) {
		if (autoxlat)
			xff_gfn_watch_put();
		return ERR_PTR(-ENOMEM);
	}
	ms->domid = info->xbdev->otherend_id;
	list_add_rcu(&ms->node, &xff_ms_sets);
	err = xff_ms_grant(info, ms);
	if (err) {
		xff_ms_unlist_free(ms);
		return ERR_PTR(err);
	}
	return ms;
}

/**
 * xff_memshare_setup() - share all of the guest's memory with the backend
 * @info: the disk, negotiating (no memshare yet)
 *
 * Uses the set already granted to the backend's domain for another disk,
 * or grants a new one.
 *
 * Return: 0 (info->ms set) or a negative errno, logged; the caller then
 * uses the grant data path.
 */
int xff_memshare_setup(struct xff_info *info)
{
	domid_t domid = info->xbdev->otherend_id;
	struct xff_memshare *ms;

	mutex_lock(&xff_ms_mutex);
	list_for_each_entry(ms, &xff_ms_sets, node) {
		if (ms->domid == domid) {
			if (ms->writable &&
			    !xenbus_read_unsigned(info->xbdev->otherend,
						  "fipc-memshare-writable", 0)) {
				mutex_unlock(&xff_ms_mutex);
				dev_warn(&info->xbdev->dev, "memshare: our memory is granted writable to domain %u, whose backend for this disk does not map it so\n",
					 domid);
				return -EOPNOTSUPP;
			}
			refcount_inc(&ms->users);
			info->ms = ms;
			mutex_unlock(&xff_ms_mutex);
			dev_info(&info->xbdev->dev, "memshare: using the %lu pages already granted to domain %u\n",
				 ms->shared, domid);
			return 0;
		}
	}
	ms = xff_ms_create(info);
	if (IS_ERR(ms)) {
		mutex_unlock(&xff_ms_mutex);
		return PTR_ERR(ms);
	}
	refcount_set(&ms->users, 1);
	info->ms = ms;
	mutex_unlock(&xff_ms_mutex);
	return 0;
}

/**
 * xff_memshare_teardown() - let go of the memory xff_memshare_setup() shared
 * @info: the disk; its backend has closed (it unmapped everything)
 *
 * The last disk of a backend domain revokes the grants.  A grant a
 * backend still maps cannot be revoked now: it is ended later
 * (front_linger.c; the table pages by the grant table's deferred work).
 * A page we hold (xff_memshare_hold()) is let go with its grant.
 */
void xff_memshare_teardown(struct xff_info *info)
{
	struct xff_memshare *ms = info->ms;
	unsigned long pfn, leaked = 0, held = 0, kept = 0;
	struct xff_linger *linger;
	grant_ref_t ref;
	unsigned int t;
	bool hold;

	if (!ms)
		return;
	info->ms = NULL;
	if (!refcount_dec_and_mutex_lock(&ms->users, &xff_ms_mutex))
		return;
	list_del_rcu(&ms->node);
	mutex_unlock(&xff_ms_mutex);
	/* No gfn watch handler looks at it any more. */
	synchronize_rcu();
	if (ms->gone) {
		xff_gfn_watch_put();
		if (atomic_long_read(&ms->nr_gone))
			dev_info(&info->xbdev->dev, "memshare: %ld gfns were given back to Xen while shared\n",
				 atomic_long_read(&ms->nr_gone));
	}
	/*
	 * The references of our private copy (the tables are the backend's
	 * to write).  One still mapped waits in front_linger.c, or, with no
	 * memory for that, is leaked (never reused): never a page reference
	 * on a frame we may not own.
	 */
	if (ms->held)
		held = bitmap_weight(ms->held, ms->npfns);
	linger = xff_linger_new(ms->shared, held);
	for (pfn = 0; pfn < ms->npfns; pfn++) {
		hold = ms->held && test_bit(pfn, ms->held);
		if (ms->frames[pfn] == INVALID_P2M_ENTRY) {
			if (hold)
				put_page(pfn_to_page(pfn));
			continue;
		}
		ref = ms->refs[pfn];
		if (hold)
			kept += !xff_linger_end_held(linger, ref,
						     pfn_to_page(pfn));
		else if (linger)
			xff_linger_end_ref(linger, ref);
		else if (!gnttab_try_end_foreign_access(ref))
			leaked++;
		if (!(pfn % 4096))
			cond_resched();
	}
	if (linger)
		xff_linger_commit(linger);
	if (held)
		dev_info(&info->xbdev->dev, "memshare: %lu page(s) of READs put back unanswered were held: %lu let go, %lu wait until the backend unmaps them\n",
			 held, held - kept, kept);
	if (leaked)
		dev_warn(&info->xbdev->dev, "memshare: %lu grant references still mapped by the backend and no memory to retry them: leaked\n",
			 leaked);
	for (t = 0; t < ms->nr_tables; t++) {
		/* Frees the table page once the backend lets it go. */
		gnttab_end_foreign_access(ms->refs[ms->npfns + t],
					  ms->tables[t]);
		ms->tables[t] = NULL;
	}
	gnttab_end_foreign_access(ms->dir_ref, ms->dir);
	ms->dir = NULL;
	xff_ms_free(ms);
}

/**
 * xff_memshare_hold() - keep the pages of a READ by pfn put back unanswered
 * @info: the disk, its channels quiesced, its backend closed or gone
 * @rq: the request
 *
 * On memory shared writable, a backend that closed may still map the
 * pages of a READ it never answered and write them late (a lower layer
 * finishing, or a hostile backend).  The request is sent again or
 * failed, and its pages may then be freed: each gets a reference of ours,
 * dropped only once the grant of its pfn is ended (the set's teardown,
 * front_linger.c), so that none is reused while the backend can write
 * it.  Once per pfn: at most every page of the guest, and those only
 * until the last disk of that backend domain lets go of the set (a
 * backend that may write all of our memory can do worse than make us
 * hold it).  Other requests need nothing.
 */
void xff_memshare_hold(struct xff_info *info, struct request *rq)
{
	struct xff_rq *p = blk_mq_rq_to_pdu(rq);
	struct xff_memshare *ms = info->ms;
	unsigned int i, n = 0;
	unsigned long pfn;

	if (!ms || !ms->held || p->data != XFF_DATA_PFNS ||
	    req_op(rq) != REQ_OP_READ)
		return;
	for (i = 0; i < p->nrefs; i++) {
		pfn = p->refs[i];
		if (pfn >= ms->npfns || test_and_set_bit(pfn, ms->held))
			continue;
		/* The request holds the page: ours is one more. */
		get_page(pfn_to_page(pfn));
		n++;
	}
	p->chan->st[XFF_MS_HELD] += n;
}

/**
 * xff_memshare_pfn_ok() - may a page be named by its pfn
 * @ms: the shared memory
 * @page: the page
 *
 * Return: true if the page's frame is the one granted at connect (PV:
 * the p2m still has it; auto-translated: its gfn was not given back).
 */
static bool xff_memshare_pfn_ok(const struct xff_memshare *ms,
				struct page *page)
{
	unsigned long pfn = page_to_pfn(page);

	if (pfn >= ms->npfns || ms->frames[pfn] == INVALID_P2M_ENTRY)
		return false;
	if (ms->gone)
		return !test_bit(pfn, ms->gone);
	return ms->frames[pfn] == xff_ms_frame(pfn);
}

struct xff_pfn_walk {
	struct xff_page_walk walk;
	const struct xff_memshare *ms;
	struct xff_rq *p;
};

static int xff_memshare_page(struct xff_page_walk *walk, unsigned int i,
			     struct page *page)
{
	struct xff_pfn_walk *w = container_of(walk, struct xff_pfn_walk, walk);

	if (!xff_memshare_pfn_ok(w->ms, page))
		return -EAGAIN;
	walk->p->refs[i] = page_to_pfn(page);
	return 0;
}

/**
 * xff_memshare_refs() - name a request's pages by pfn
 * @info: the disk, on the memshare path
 * @rq: the request
 * @p: its driver data: p->refs filled with pfns, p->nrefs and p->data set
 * @nrefs: number of pages the request spans
 *
 * Return: the first page offset, -EAGAIN if a page cannot be named by pfn
 * (send the request with grants), or -EIO if the request breaks the
 * page-boundary layout.
 */
int xff_memshare_refs(struct xff_info *info, struct request *rq,
		      struct xff_rq *p, unsigned int nrefs)
{
	struct xff_pfn_walk w = {
		.walk.page = xff_memshare_page,
		.ms = info->ms,
		.walk.p = p,
	};
	int first;

	first = xff_walk_data_pages(rq, nrefs, &w.walk);
	if (first < 0)
		return first;
	p->nrefs = nrefs;
	p->data = XFF_DATA_PFNS;
	return first;
}

/**
 * xff_memshare_unshared_pfn() - a pfn inside the table that is not shared
 * @ms: the shared memory
 *
 * For the test mode.
 *
 * Return: such a pfn, or -ENOENT if every pfn is shared.
 */
long xff_memshare_unshared_pfn(const struct xff_memshare *ms)
{
	unsigned long pfn;

	for (pfn = 0; pfn < ms->npfns; pfn++)
		if (ms->frames[pfn] == INVALID_P2M_ENTRY)
			return pfn;
	return -ENOENT;
}

/**
 * xff_memshare_dirty() - show a live migration the pages a READ filled
 * @rq: a READ sent by pfn, answered with success
 *
 * The backend wrote them through its long-lived writable mapping, which
 * Xen's log-dirty mode does not see (a grant-mapped page is marked dirty
 * when it is unmapped).  A locked add of 0 to the first word of each
 * segment is a write that it sees, and changes no data.  Completions run
 * with preemption disabled (front_complete.c), so a guest suspended for
 * the last copy has either touched a completed READ's pages or not taken
 * its response (then the READ is sent again after the resume).
 */
void xff_memshare_dirty(struct request *rq)
{
	struct req_iterator iter;
	struct bio_vec bv;
	atomic_t *word;
	void *addr;

	rq_for_each_segment(bv, rq, iter) {
		addr = kmap_local_page(bv.bv_page);
		word = addr + bv.bv_offset;
		atomic_add(0, word);
		kunmap_local(addr);
	}
}
