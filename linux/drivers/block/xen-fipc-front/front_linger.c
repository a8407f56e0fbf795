// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: memshare grants the backend still maps after it closed.
 *
 * The memshare grants name every page of the guest, most of them not
 * ours to hold (free pages, page cache, other drivers' memory).  When one
 * cannot be ended at teardown, gnttab_end_foreign_access() with no page
 * would take a reference on whatever page the frame now is, a free page
 * included, and put it back later: a free page freed twice.  So such
 * references wait here and are ended by a retry every second, with no
 * page reference taken.
 *
 * Read-only grants (PV guests) let the backend read those pages until
 * then, which a trusted memshare backend could do before.  Writable ones
 * (PVH and HVM guests) let it write them: any page of the guest, until
 * it unmaps, which is what the guest consented to by asking for memshare
 * with a backend that offers writable.  The pages such a backend was to
 * write, those of READs it never answered, are held (xff_memshare_hold()):
 * they wait here with their grant and a reference of ours, let go
 * together, so that no page is reused while the backend can write it.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <xen/grant_table.h>
#include "front.h"

struct xff_linger_page {
	grant_ref_t ref;
	struct page *page;
};

struct xff_linger {
	struct list_head node;
	unsigned long nr;
	unsigned long nr_held;
	struct xff_linger_page *held;
	grant_ref_t refs[];
};

static DEFINE_MUTEX(xff_linger_mutex);
static LIST_HEAD(xff_lingering);
static unsigned long xff_linger_total;

static void xff_linger_retry(struct work_struct *work);
static DECLARE_DELAYED_WORK(xff_linger_work, xff_linger_retry);

static void xff_linger_free(struct xff_linger *l)
{
	kvfree(l->held);
	kvfree(l);
}

/* End what can be ended now; return how many references still wait. */
static unsigned long xff_linger_end(struct xff_linger *l)
{
	unsigned long i, left = 0;

	for (i = 0; i < l->nr; i++) {
		if (!gnttab_try_end_foreign_access(l->refs[i]))
			l->refs[left++] = l->refs[i];
		if (!(i % 4096))
			cond_resched();
	}
	l->nr = left;
	left = 0;
	for (i = 0; i < l->nr_held; i++) {
		if (gnttab_try_end_foreign_access(l->held[i].ref))
			put_page(l->held[i].page);
		else
			l->held[left++] = l->held[i];
	}
	l->nr_held = left;
	return l->nr + l->nr_held;
}

static void xff_linger_retry(struct work_struct *work)
{
	struct xff_linger *l, *next;
	unsigned long left = 0;

	mutex_lock(&xff_linger_mutex);
	list_for_each_entry_safe(l, next, &xff_lingering, node) {
		left += xff_linger_end(l);
		if (l->nr || l->nr_held)
			continue;
		list_del(&l->node);
		xff_linger_free(l);
	}
	if (left != xff_linger_total)
		pr_info(XFF_NAME ": memshare: %lu grant(s) still mapped by a closed backend (was %lu)\n",
			left, xff_linger_total);
	xff_linger_total = left;
	if (left)
		schedule_delayed_work(&xff_linger_work, HZ);
	mutex_unlock(&xff_linger_mutex);
}

/**
 * xff_linger_new() - room for the references a teardown cannot end
 * @max: references that may be left at most
 * @max_held: held pages (xff_memshare_hold()) among them at most
 *
 * Return: the set (empty), or NULL if there is no memory (the caller
 * then leaks the references it cannot end at once, and their pages).
 */
struct xff_linger *xff_linger_new(unsigned long max, unsigned long max_held)
{
	struct xff_linger *l;

	l = kvmalloc(struct_size(l, refs, max), GFP_KERNEL);
	if (!l)
		return NULL;
	l->nr = 0;
	l->nr_held = 0;
	l->held = NULL;
	if (max_held) {
		l->held = kvmalloc_array(max_held, sizeof(*l->held),
					 GFP_KERNEL);
		if (!l->held) {
			kvfree(l);
			return NULL;
		}
	}
	return l;
}

/**
 * xff_linger_end_ref() - end a memshare grant, or keep it
 * @l: the set from xff_linger_new()
 * @ref: the grant reference
 */
void xff_linger_end_ref(struct xff_linger *l, grant_ref_t ref)
{
	if (!gnttab_try_end_foreign_access(ref))
		l->refs[l->nr++] = ref;
}

/**
 * xff_linger_end_held() - end the grant of a page we hold, or keep both
 * @l: the set from xff_linger_new(), or NULL (no memory: kept for good)
 * @ref: the grant reference of the page's pfn
 * @page: the page, with a reference of ours (xff_memshare_hold())
 *
 * Return: true if the grant was ended and the page let go now.
 */
bool xff_linger_end_held(struct xff_linger *l, grant_ref_t ref,
			 struct page *page)
{
	if (gnttab_try_end_foreign_access(ref)) {
		put_page(page);
		return true;
	}
	/* With no set, the reference and the page are leaked: never reused. */
	if (l) {
		l->held[l->nr_held].ref = ref;
		l->held[l->nr_held++].page = page;
	}
	return false;
}

/**
 * xff_linger_commit() - retry the kept references until they are ended
 * @l: the set; freed here if empty
 */
void xff_linger_commit(struct xff_linger *l)
{
	if (!l->nr && !l->nr_held) {
		xff_linger_free(l);
		return;
	}
	pr_warn(XFF_NAME ": memshare: the backend still maps %lu of our pages after closing (%lu held: pages of READs it never answered); their grants are ended once it lets go\n",
		l->nr + l->nr_held, l->nr_held);
	mutex_lock(&xff_linger_mutex);
	list_add_tail(&l->node, &xff_lingering);
	xff_linger_total += l->nr + l->nr_held;
	schedule_delayed_work(&xff_linger_work, HZ);
	mutex_unlock(&xff_linger_mutex);
}

/**
 * xff_linger_exit() - at module unload: end what can be, leak the rest
 *
 * A reference the backend still maps is never reused (leaked, counted
 * in the log): nothing else can be done without its page.  A page we
 * hold for it is leaked too.
 */
void xff_linger_exit(void)
{
	struct xff_linger *l, *next;

	cancel_delayed_work_sync(&xff_linger_work);
	list_for_each_entry_safe(l, next, &xff_lingering, node) {
		if (xff_linger_end(l))
			pr_warn(XFF_NAME ": memshare: %lu grant(s) still mapped at unload, leaked (%lu with a page held)\n",
				l->nr + l->nr_held, l->nr_held);
		list_del(&l->node);
		xff_linger_free(l);
	}
}
