/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xen-fipc-front: shared definitions of the fipc block frontend.
 *
 * A disk (struct xff_info) has one fipc channel per blk-mq hardware
 * queue.  Requests are sent from ->queue_rq() under the channel's send
 * lock; responses are taken by the pinned threads of a fipc poller set
 * (<fipc/fipc_poller.h>, running xff_poll_ops of front_complete.c), each
 * serving the channels of many disks in turn, or, while a channel's
 * poller sleeps, by the channel's event handler itself (xff_irq_take()).
 */
#ifndef _XEN_FIPC_FRONT_H
#define _XEN_FIPC_FRONT_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <xen/grant_table.h>
#include <xen/xenbus.h>
#include <fipc/fipc.h>
#include <fipc/fipc_duplex.h>
#include <fipc/fipc_poller.h>
#include <fipc/fipc_stats.h>
#include <xen/interface/io/fipcblk.h>

#define XFF_NAME		"xen-fipc-front"
#define XFF_MAX_RING_PAGES	BIT(FIPC_MAX_ORDER)
#define XFF_RSP_BURST		16
/* Responses the event handler takes itself while the poller sleeps. */
#define XFF_IRQ_BUDGET		8
/* Ids of injected test requests have this bit set; normal ids never do. */
#define XFF_ID_INJECT		BIT_ULL(63)

/* Module parameters (front_main.c). */
extern unsigned int xff_max_queues;
extern unsigned int xff_ring_order;
extern unsigned int xff_queue_depth;
extern unsigned int xff_max_request_kb;
extern char xff_memshare_mode[8];
extern unsigned int xff_staging_pages;
extern unsigned int xff_staging_max_kb;
extern unsigned int xff_grant_staging_pages;
extern bool xff_trusted;
extern struct fipc_poller_set xff_pollers;
extern int xff_major;

/**
 * struct xff_poll_lat - latency histogram of one poller (its private data)
 * @lat: request published to response taken, fipc_poll_lat_bucket()
 *
 * Written by the poller and by the event handlers of its channels.
 */
struct xff_poll_lat {
	atomic64_t lat[FIPC_POLL_LAT_BUCKETS];
};

/**
 * enum xff_stat - per-channel counters, summed for sysfs
 * @XFF_REQUESTS: requests sent (under the send lock)
 * @XFF_COMPLETIONS: responses taken (by the poller)
 * @XFF_ERRORS: responses with an error status
 * @XFF_NOTIFY_SENT: event-channel notifications to the backend
 * @XFF_LOCAL_KICKS: times a submitter woke our own sleeping poller
 * @XFF_REQUEUED: requests put back on the queue at a disconnect
 * @XFF_BAD_RESPONSES: responses that matched no request in flight
 * @XFF_MS_FALLBACKS: requests of a memshare channel that could not be
 *	sent by pfn (a page's frame changed, or its gfn was given back,
 *	since connect): WRITEs, and READs where the memory is shared
 *	writable; staged or with grants
 * @XFF_MS_READ_GRANTS: READs of a read-only memshare channel sent with
 *	grants (no staging pages free, or too large to stage)
 * @XFF_MS_READ_PFNS: READs sent by pfn (memory shared writable: PVH and
 *	HVM guests)
 * @XFF_MS_STAGED: requests of a memshare channel sent through staging
 *	pages (READs, and WRITE fallbacks)
 * @XFF_BOUNCED: READs and WRITEs sent through bounce pages (untrusted
 *	backend)
 * @XFF_IRQ_COMPLETIONS: responses taken by the event handler, the
 *	poller sleeping (included in @XFF_COMPLETIONS)
 * @XFF_GRANT_STAGED: requests of a grant channel sent through staging
 *	pages (no grant operation)
 * @XFF_MS_HELD: pages of READs by pfn put back unanswered that we hold
 *	until the backend can no longer write them (front_linger.c)
 * @XFF_NR_STATS: number of counters
 */
enum xff_stat {
	XFF_REQUESTS,
	XFF_COMPLETIONS,
	XFF_ERRORS,
	XFF_NOTIFY_SENT,
	XFF_LOCAL_KICKS,
	XFF_REQUEUED,
	XFF_BAD_RESPONSES,
	XFF_MS_FALLBACKS,
	XFF_MS_READ_GRANTS,
	XFF_MS_STAGED,
	XFF_BOUNCED,
	XFF_IRQ_COMPLETIONS,
	XFF_GRANT_STAGED,
	XFF_MS_READ_PFNS,
	XFF_MS_HELD,
	XFF_NR_STATS,
};

struct xff_info;

/**
 * struct xff_staging - a memshare channel's staging pages (front_staging.c)
 * @lock: protects @free and @nfree (submitters, the poller, the event
 *	handler: taken with interrupts off)
 * @nr: number of pages, 0 if the channel has none
 * @nfree: free pages: their indices are @free[0 .. @nfree - 1]
 * @free: stack of free page indices
 * @pages: the pages, granted writable to the backend
 * @refs: their grant references
 * @list: the list page (grant reference of page i at index i)
 * @list_ref: grant reference of @list (queue-<q>/fipc-staging-ref)
 */
struct xff_staging {
	spinlock_t lock;		/* protects free, nfree */
	unsigned int nr;
	unsigned int nfree;
	u16 *free;
	struct page **pages;
	grant_ref_t *refs;
	struct page *list;
	grant_ref_t list_ref;
};

/**
 * struct xff_chan - one fipc channel of a disk
 * @info: the disk
 * @index: number of the channel (queue-<index> in xenstore)
 * @dc: the duplex ring (protocol version 3), we are its client; under
 *	@tx_lock, which the takers of responses hold too
 * @tx_lock: serialises everything on @dc; taken with interrupts off (the
 *	event handler takes responses)
 * @ring: the duplex ring's memory
 * @ctrl: the control page
 * @ring_refs: grant references of @ring (queue-<index>/req-ring-ref<i>)
 * @ctrl_ref: grant reference of @ctrl
 * @evtchn: event channel port
 * @irq: irq bound to @evtchn, or 0
 * @poll: our place in a poller of xff_pollers
 * @broken: the backend broke the protocol on this channel
 * @rx_claim: bit 0 is held by whoever takes responses (the poller, or
 *	the event handler while the poller sleeps); it protects @rxbuf,
 *	@rtt_ns and the counters of responses
 * @inflight: requests sent and not yet answered
 * @rtt_ns: running mean of the time from a request's sending to its
 *	response being taken (xff_poller_wanted())
 * @txbuf: message under construction, protected by @tx_lock
 * @rxbuf: responses being taken, under @rx_claim
 * @stg: staging pages (memshare, or grant_staging_pages)
 * @notify_recv: event-channel notifications received
 * @notify_spurious: ... of them with no response behind them, flagged
 *	spurious to the kernel's late EOI (xff_chan_interrupt())
 * @next_gen: generation of the channel's last request sent (under
 *	@tx_lock): counted per channel, so that no two requests in flight
 *	on it share one, and a response must name a request's tag and its
 *	generation both
 * @irq_seen_done: responses taken (@st[XFF_COMPLETIONS]) when the last
 *	notification came; the event handler's alone
 * @st: counters
 */
struct xff_chan {
	struct xff_info *info;
	unsigned int index;
	struct fipc_duplex_client dc;
	spinlock_t tx_lock;		/* all of @dc */
	void *ring;
	struct fipcblk_ctrl *ctrl;
	grant_ref_t ring_refs[XFF_MAX_RING_PAGES];
	grant_ref_t ctrl_ref;
	evtchn_port_t evtchn;
	int irq;
	struct fipc_poll_entry poll;
	bool broken;
	unsigned long rx_claim;
	atomic_t inflight;
	u64 rtt_ns;
	struct fipc_msg txbuf[FIPC_MSG_MAX_SLOTS];
	struct fipc_msg rxbuf[XFF_RSP_BURST];
	struct xff_staging stg;
	atomic64_t notify_recv;
	atomic64_t notify_spurious;
	u32 next_gen;
	u64 irq_seen_done;
	u64 st[XFF_NR_STATS];
};

/**
 * enum xff_data - what a request's references name
 * @XFF_DATA_GRANTS: grants of its own pages (or no data)
 * @XFF_DATA_PFNS: pfns of its pages (memshare: nothing granted)
 * @XFF_DATA_STAGED: staging pages of its channel (memshare)
 * @XFF_DATA_BOUNCE: grants of bounce pages of ours (untrusted backend)
 */
enum xff_data {
	XFF_DATA_GRANTS,
	XFF_DATA_PFNS,
	XFF_DATA_STAGED,
	XFF_DATA_BOUNCE,
};

/**
 * struct xff_rq - per-request driver data (blk-mq PDU)
 * @chan: channel the request goes (went) on
 * @t_sub: when it was sent, for the latency histogram
 * @gen: generation, echoed in the id to catch stale and forged responses
 *	(the channel's count: xff_chan.next_gen)
 * @nrefs: number of data page references in @refs
 * @inflight: sent and not yet answered
 * @data: what @refs name (enum xff_data)
 * @stuck: on the disk's stuck list (front_complete.c): answered or
 *	taken back, but the backend still maps some of its pages
 * @sts: its status, between the response and blk-mq's ->complete()
 * @refs: grant references, pfns or staging page indices of the data;
 *	on the stuck list, INVALID_GRANT_REF for each grant already ended
 */
struct xff_rq {
	struct xff_chan *chan;
	u64 t_sub;
	u32 gen;
	u16 nrefs;
	bool inflight;
	u8 data;
	struct list_head stuck;
	blk_status_t sts;
	grant_ref_t refs[];
};

/**
 * struct xff_inject - state of the hostile-request test mode
 * @lock: one injection at a time
 * @done: completed by the poller when the response arrives
 * @status: status of the last response
 * @op: op echoed in the last response
 * @seq: id of the injection awaited
 * @last: text of the last result, for reading back
 */
struct xff_inject {
	struct mutex lock;		/* one injection at a time */
	struct completion done;
	int status;
	int op;
	u64 seq;
	char last[64];
};

/**
 * struct xff_memshare - the guest's memory granted to a backend domain
 * @node: on the list of sets, one per backend domain
 * @domid: the backend domain
 * @users: disks connected with this set (taken under the list's mutex;
 *	the last put takes it before the set leaves the list)
 * @npfns: pfns covered by the table (fipc-memshare-pfns)
 * @frames: the frame granted for each pfn, INVALID_P2M_ENTRY if none
 * @nr_tables: number of table pages
 * @tables: the table pages (grant reference per pfn, 0 if not shared)
 * @dir: the directory page (grant reference per table page)
 * @dir_ref: grant reference of @dir
 * @refs: the reference granted for each pfn with a frame (index pfn),
 *	then for each table page (index @npfns + t): our own copy
 * @count: references taken (shared pages, tables, directory)
 * @shared: pages shared
 * @writable: granted writable (an auto-translated guest, and the backend
 *	offered it): READs name pfns too
 * @gone: auto-translated guests: a bit per pfn whose gfn was given back
 *	to Xen, or given a new frame, since it was granted
 *	(front_gfn_watch.c), never named by pfn again; NULL in PV guests
 *	(@frames is compared with the p2m there)
 * @nr_gone: bits set in @gone
 * @held: writable sets: a bit per pfn whose page we hold, a page of a
 *	READ by pfn the backend never answered (xff_memshare_hold())
 *
 * On the list of sets under xff_ms_mutex, read under RCU by the gfn
 * watch.
 */
struct xff_memshare {
	struct list_head node;
	domid_t domid;
	refcount_t users;
	unsigned long npfns;
	unsigned long *frames;
	unsigned int nr_tables;
	struct page **tables;
	struct page *dir;
	grant_ref_t dir_ref;
	grant_ref_t *refs;
	unsigned int count;
	unsigned long shared;
	bool writable;
	unsigned long *gone;
	atomic_long_t nr_gone;
	unsigned long *held;
};

enum xff_link {
	XFF_DOWN,	/* no channels */
	XFF_SETUP,	/* channels granted, waiting for the backend */
	XFF_UP,		/* connected, queues running */
	XFF_CLOSING,	/* backend closing: queues stopped, still polling */
};

/**
 * struct xff_info - one fipc disk
 * @xbdev: our xenbus device
 * @mutex: serialises state changes
 * @link: connection state
 * @disk: the gendisk once created
 * @tag_set: blk-mq tags; valid when @disk is set
 * @vdevice: the virtual-device number
 * @index: disk index decoded from @vdevice (name and minors)
 * @nr_chans: number of channels
 * @chans: the channels
 * @ring_order: log2 of ring pages
 * @max_req_bytes: largest request sent
 * @max_refs: capacity of each request's reference list
 * @sectors: capacity in 512-byte sectors
 * @sector_size: logical block size
 * @physical_sector_size: physical block size
 * @ro: the backend gives read-only access
 * @flush: the backend handles FLUSH
 * @fua: the backend handles FIPCBLK_F_FUA
 * @discard: the backend handles DISCARD
 * @secure: the backend handles secure DISCARD
 * @discard_granularity: from the backend
 * @discard_alignment: from the backend
 * @bounce: the backend is not trusted: data only through bounce pages
 *	(front_bounce.c), no memshare; fixed at probe
 * @bounce_pool: the bounce pages, once the largest request is known
 * @removing: remove() has started: fail requests
 * @quiesced: the queue is quiesced by us
 * @sectors_watch: watch on the backend's sectors node
 * @watching: @sectors_watch is registered
 * @error_work: moves the device to Closing after a protocol error
 * @stuck_lock: protects @stuck, @stuck_force and @stuck_waiting
 * @stuck: requests whose pages the backend still maps (struct xff_rq)
 * @stuck_work: retries ending their grants, completes them once ended
 * @stuck_force: the disk is being removed: hand the grants still mapped
 *	to the grant table (which keeps their pages) and complete
 * @stuck_waiting: requests on @stuck
 * @stuck_total: requests ever put on @stuck
 * @ms: the guest's memory shared with the backend (memshare path), or NULL
 * @ms_refused: the backend closed before connecting us on memshare: use
 *	the grant path for the next connection (cleared once connected)
 * @grant_staging: on the grant path, the channels get staging pages
 *	(grant_staging_pages, the backend offers fipc-grant-staging; chosen
 *	at each connect)
 * @dbg: debugfs directory
 * @inject: test-mode state
 * @retired: counters of channels already torn down
 * @stats: its counters, summed over its channels and @retired
 *	(front_sysfs.c)
 * @retired_notify_recv: same for notifications received
 * @resumes: times the guest was restored or migrated with this disk
 */
struct xff_info {
	struct xenbus_device *xbdev;
	struct mutex mutex;		/* serialises state changes */
	enum xff_link link;
	struct gendisk *disk;
	struct blk_mq_tag_set tag_set;
	unsigned int vdevice;
	unsigned int index;
	unsigned int nr_chans;
	struct xff_chan *chans;
	unsigned int ring_order;
	u32 max_req_bytes;
	unsigned int max_refs;
	u64 sectors;
	unsigned int sector_size;
	unsigned int physical_sector_size;
	bool ro;
	bool flush;
	bool fua;
	bool discard;
	bool secure;
	unsigned int discard_granularity;
	unsigned int discard_alignment;
	bool bounce;
	mempool_t *bounce_pool;
	bool removing;
	bool quiesced;
	struct xenbus_watch sectors_watch;
	bool watching;
	struct work_struct error_work;
	struct work_struct add_work;	/* device_add_disk(), off xenwatch */
	bool disk_added;
	spinlock_t stuck_lock;		/* protects stuck, stuck_force */
	struct list_head stuck;
	struct delayed_work stuck_work;
	bool stuck_force;
	unsigned int stuck_waiting;
	u64 stuck_total;
	struct xff_memshare *ms;
	bool ms_refused;
	bool grant_staging;
	struct dentry *dbg;
	struct xff_inject inject;
	u64 retired[XFF_NR_STATS];
	struct fipc_stats stats;
	u64 retired_notify_recv;
	u64 retired_notify_spurious;
	unsigned int resumes;
};

/* front_chan.c */
int xff_chans_setup(struct xff_info *info, unsigned int nr_chans,
		    unsigned int order);
int xff_chans_publish(struct xff_info *info, unsigned int protocol);
void xff_chans_teardown(struct xff_info *info);
void xff_chan_notify(struct xff_chan *chan);
void xff_chans_quiesce(struct xff_info *info);
void xff_protocol_error(struct xff_chan *chan, const char *why);

/* front_blk.c */
int xff_disk_alloc(struct xff_info *info);
void xff_disk_add_work(struct work_struct *work);
void xff_disk_update(struct xff_info *info);
void xff_disk_destroy(struct xff_info *info);
int xff_index_check(unsigned int vdevice, unsigned int *index);
int xff_major_register(void);
void xff_major_unregister(void);

/**
 * struct xff_page_walk - what to do with each page of a data request
 * @page: called with the walk (embed it to find your state), the page's
 *	index in the request and the page; 0 or a negative errno
 * @p: the request's driver data, whose refs the walk fills or reads
 * @first: set by the walk: the offset of the data in its first page
 * @bytes: set by the walk: the request's length
 */
struct xff_page_walk {
	int (*page)(struct xff_page_walk *walk, unsigned int i,
		    struct page *page);
	struct xff_rq *p;
	unsigned int first;
	u32 bytes;
};

/**
 * xff_walk_data_pages() - the pages of a READ or WRITE, in wire order
 * @rq: the request
 * @nrefs: pages it must name (from its first page offset and length)
 * @walk: its page() is called for page i = 0 .. @nrefs - 1; a negative
 *	return ends the walk and is returned
 *
 * The queue's virtual boundary is the page size, so the data is one run
 * that starts in its first page and goes on through whole pages; a
 * segment that goes on where the previous one ended, in the same page
 * (merged small I/Os from one buffer), belongs to that page.  Both data
 * paths name the pages in this order (grant references or pfns).
 *
 * Return: the offset of the data in its first page, -EIO if the request
 * does not have that layout, or what @walk->page() returned.
 */
static inline int xff_walk_data_pages(struct request *rq, unsigned int nrefs,
				      struct xff_page_walk *walk)
{
	unsigned int prev_end = 0, i = 0;
	struct page *prev_page = NULL;
	struct req_iterator iter;
	struct bio_vec bv;
	u32 bytes = 0;
	int err;

	walk->first = bio_iter_iovec(rq->bio, rq->bio->bi_iter).bv_offset;
	walk->bytes = blk_rq_bytes(rq);
	rq_for_each_segment(bv, rq, iter) {
		bytes += bv.bv_len;
		if (i && bv.bv_page == prev_page && bv.bv_offset == prev_end) {
			prev_end += bv.bv_len;
			continue;
		}
		if (i >= nrefs || (i && (bv.bv_offset || prev_end != PAGE_SIZE)))
			return -EIO;
		err = walk->page(walk, i++, bv.bv_page);
		if (err)
			return err;
		prev_page = bv.bv_page;
		prev_end = bv.bv_offset + bv.bv_len;
	}
	if (i != nrefs || bytes != walk->bytes)
		return -EIO;
	return walk->first;
}

/* The bytes of the walked request's page i: [*start, *start + return). */
static inline unsigned int xff_walk_span(const struct xff_page_walk *walk,
					 unsigned int i, unsigned int *start)
{
	u64 end = (u64)walk->first + walk->bytes - (u64)i * PAGE_SIZE;

	*start = i ? 0 : walk->first;
	return min_t(u64, end, PAGE_SIZE) - *start;
}

/*
 * Free an array of @n pages that may be partly allocated (NULL entries,
 * or a NULL array), and the array (front_memshare.c's tables,
 * front_staging.c's staging pages).
 */
static inline void xff_free_pages(struct page **pages, unsigned int n)
{
	unsigned int i;

	for (i = 0; pages && i < n; i++)
		if (pages[i])
			__free_page(pages[i]);
	kfree(pages);
}

/*
 * Size of the per-request data, and the bounce pages of a request, after
 * its references (untrusted disks only).
 */
static inline size_t xff_rq_size(const struct xff_info *info)
{
	size_t size = struct_size((struct xff_rq *)NULL, refs, info->max_refs);

	if (info->bounce)
		size += sizeof(struct page *) * (info->max_refs + 1);
	return size;
}

static inline struct page **xff_rq_bounce(const struct xff_info *info,
					  struct xff_rq *p)
{
	return PTR_ALIGN((void *)&p->refs[info->max_refs],
			 sizeof(struct page *));
}

/* front_submit.c */
extern const struct blk_mq_ops xff_mq_ops;

/* front_memshare.c */
int xff_memshare_setup(struct xff_info *info);
void xff_memshare_teardown(struct xff_info *info);
int xff_memshare_refs(struct xff_info *info, struct request *rq,
		      struct xff_rq *p, unsigned int nrefs);
long xff_memshare_unshared_pfn(const struct xff_memshare *ms);
void xff_memshare_dirty(struct request *rq);
void xff_memshare_hold(struct xff_info *info, struct request *rq);

/* front_gfn_watch.c */
extern struct list_head xff_ms_sets;
int xff_gfn_watch_get(void);
void xff_gfn_watch_put(void);

/* front_linger.c */
struct xff_linger;
struct xff_linger *xff_linger_new(unsigned long max, unsigned long max_held);
void xff_linger_end_ref(struct xff_linger *l, grant_ref_t ref);
bool xff_linger_end_held(struct xff_linger *l, grant_ref_t ref,
			 struct page *page);
void xff_linger_commit(struct xff_linger *l);
void xff_linger_exit(void);

/* front_staging.c */
void xff_staging_setup(struct xff_info *info, struct xff_chan *chan);
void xff_staging_teardown(struct xff_chan *chan);
int xff_staging_write_keys(struct xenbus_transaction xbt,
			   struct xff_info *info, struct xff_chan *chan);
int xff_staging_take(struct xff_chan *chan, struct request *rq,
		     struct xff_rq *p, unsigned int nrefs);
void xff_staging_release(struct xff_chan *chan, struct xff_rq *p,
			 struct request *rq);

/* front_bounce.c */
int xff_bounce_setup(struct xff_info *info);
void xff_bounce_teardown(struct xff_info *info);
int xff_bounce_data(struct xff_info *info, struct request *rq,
		    struct xff_rq *p, unsigned int nrefs);
void xff_bounce_end(struct xff_info *info, struct xff_rq *p,
		    struct request *read_ok);
void xff_bounce_let_go(struct xff_info *info, struct xff_rq *p,
		       unsigned int i);

/* front_ring.c */
int xff_ring_send(struct xff_chan *chan, unsigned int nslots);
int xff_ring_take(struct xff_chan *chan, unsigned int max);
bool xff_ring_pending(struct xff_chan *chan);

/* front_complete.c */
extern const struct fipc_poll_ops xff_poll_ops;
bool xff_end_data(struct xff_info *info, struct xff_rq *p,
		  struct request *read_ok);
bool xff_poller_wanted(struct xff_chan *chan);
void xff_complete_rq(struct request *rq);
void xff_requeue_inflight(struct xff_info *info);
void xff_stuck_init(struct xff_info *info);
void xff_stuck_add(struct xff_info *info, struct request *rq);
void xff_stuck_force(struct xff_info *info);
void xff_stuck_exit(struct xff_info *info);

/* front_xenbus.c */
int xff_xenbus_register(void);
void xff_xenbus_unregister(void);

/* front_sysfs.c */
extern const struct attribute_group *xff_groups[];
void xff_sysfs_init(void);
void xff_stats_retire(struct xff_info *info);
void xff_stats_init(struct xff_info *info);

/* front_debugfs.c */
void xff_debugfs_init(void);
void xff_debugfs_exit(void);
void xff_debugfs_add(struct xff_info *info);
void xff_debugfs_remove(struct xff_info *info);

/* front_inject.c: only with CONFIG_XEN_FIPC_FRONT_INJECT (test builds) */
#if IS_ENABLED(CONFIG_XEN_FIPC_FRONT_INJECT)
void xff_inject_add(struct xff_info *info);
void xff_inject_complete(struct xff_chan *chan,
			 const struct fipcblk_response *rsp);
#else
static inline void xff_inject_add(struct xff_info *info) { }
static inline void xff_inject_complete(struct xff_chan *chan,
				       const struct fipcblk_response *rsp) { }
#endif

#endif /* _XEN_FIPC_FRONT_H */
