// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: memshare grants the backend still maps after it closed.
 *
 * The memshare grants name every page of the guest, most of them not
 * ours to hold (free pages, page cache, other drivers' memory).  When one
 * cannot be ended at teardown, gnttab_end_foreign_access() with no page
 * would take a reference on whatever page the frame now is, a free page
 * included, and put it back later: a free page freed twice.  The grant
 * is read-only, so the page may be reused while the backend still reads
 * it (what it sees, a trusted memshare backend could see before); only
 * the reference must not be reused.  So such references wait here and
 * are ended by a retry every second, with no page reference taken.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <xen/grant_table.h>
#include "front.h"

struct xff_linger {
	struct list_head node;
	unsigned long nr;
	grant_ref_t refs[];
};

static DEFINE_MUTEX(xff_linger_mutex);
static LIST_HEAD(xff_lingering);
static unsigned long xff_linger_total;

static void xff_linger_retry(struct work_struct *work);
static DECLARE_DELAYED_WORK(xff_linger_work, xff_linger_retry);

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
	return left;
}

static void xff_linger_retry(struct work_struct *work)
{
	struct xff_linger *l, *next;
	unsigned long left = 0;

	mutex_lock(&xff_linger_mutex);
	list_for_each_entry_safe(l, next, &xff_lingering, node) {
		if (xff_linger_end(l)) {
			left += l->nr;
			continue;
		}
		list_del(&l->node);
		kvfree(l);
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
 *
 * Return: the set (empty), or NULL if there is no memory (the caller
 * then leaks the references it cannot end at once).
 */
struct xff_linger *xff_linger_new(unsigned long max)
{
	struct xff_linger *l;

	l = kvmalloc(struct_size(l, refs, max), GFP_KERNEL);
	if (l)
		l->nr = 0;
	return l;
}

/**
 * xff_linger_end_ref() - end a read-only memshare grant, or keep it
 * @l: the set from xff_linger_new()
 * @ref: the grant reference
 */
void xff_linger_end_ref(struct xff_linger *l, grant_ref_t ref)
{
	if (!gnttab_try_end_foreign_access(ref))
		l->refs[l->nr++] = ref;
}

/**
 * xff_linger_commit() - retry the kept references until they are ended
 * @l: the set; freed here if empty
 */
void xff_linger_commit(struct xff_linger *l)
{
	if (!l->nr) {
		kvfree(l);
		return;
	}
	pr_warn(XFF_NAME ": memshare: the backend still maps %lu of our pages after closing; their grants are ended once it lets go\n",
		l->nr);
	mutex_lock(&xff_linger_mutex);
	list_add_tail(&l->node, &xff_lingering);
	xff_linger_total += l->nr;
	schedule_delayed_work(&xff_linger_work, HZ);
	mutex_unlock(&xff_linger_mutex);
}

/**
 * xff_linger_exit() - at module unload: end what can be, leak the rest
 *
 * A reference the backend still maps is never reused (leaked, counted
 * in the log): nothing else can be done without its page.
 */
void xff_linger_exit(void)
{
	struct xff_linger *l, *next;

	cancel_delayed_work_sync(&xff_linger_work);
	list_for_each_entry_safe(l, next, &xff_lingering, node) {
		if (xff_linger_end(l))
			pr_warn(XFF_NAME ": memshare: %lu grant(s) still mapped at unload, leaked\n",
				l->nr);
		list_del(&l->node);
		kvfree(l);
	}
}
