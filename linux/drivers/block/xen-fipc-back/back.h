/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xen-fipc-back: shared definitions of the fipc block backend.
 *
 * A backend device (struct xfb_be) serves one guest disk over one or
 * more fipc channels.  Everything that touches a channel's rings runs in
 * the poller thread the channel is attached to (fipc's pollers,
 * <fipc/fipc_poller.h>, running xfb_poll_ops of back_io.c): taking
 * requests, mapping grants, submitting bios, and, once the bios end
 * (their end_io only queues the request on the channel's done list),
 * unmapping and answering.  The frontend is untrusted: every request is
 * copied out of the ring once and validated (back_validate.c) before use.
 */
#ifndef _XEN_FIPC_BACK_H
#define _XEN_FIPC_BACK_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <xen/grant_table.h>
#include <xen/xenbus.h>
#include <fipc/fipc.h>
#include <fipc/fipc_duplex.h>
#include <fipc/fipc_poller.h>
#include <fipc/fipc_stats.h>
#include <xen/interface/io/fipcblk.h>
#include "back_limit.h"
#include "back_rxq.h"
#include "back_validate.h"

#define XFB_NAME		"xen-fipc-back"
#define XFB_MAX_RING_PAGES	BIT(FIPC_MAX_ORDER)
/* The longest a guest's connect waits for its earlier ones' cost. */
#define XFB_CONNECT_DELAY_MAX	(10 * HZ)
/* Responses written into a ring at once (fipc_duplex_reply_n()). */
#define XFB_RSP_BURST		16

/* Module parameters (back_main.c). */
extern unsigned int xfb_max_queues;
extern unsigned int xfb_max_ring_order;
extern unsigned int xfb_max_request_bytes;
extern unsigned int xfb_max_inflight;
extern unsigned int xfb_max_buffer_pages;
extern bool xfb_memshare_enabled;
extern bool xfb_memshare_writable;
extern unsigned int xfb_staging_max_pages;
extern bool xfb_grant_staging;
extern unsigned int xfb_memshare_max_mib;
extern unsigned int xfb_max_guest_grants;
extern unsigned int xfb_memshare_guest_max_mib;
extern unsigned long xfb_max_grant_mappings;
extern unsigned int xfb_max_guest_staging_pages;
extern struct fipc_poller_set xfb_pollers;

/**
 * enum xfb_stat - per-channel counters, written by the channel's poller
 * @XFB_OO_REQ: times requests waited because all request slots were busy
 * @XFB_RD_REQ: reads
 * @XFB_WR_REQ: writes
 * @XFB_F_REQ: flushes and FUA writes
 * @XFB_DS_REQ: discards
 * @XFB_RD_SECT: sectors read
 * @XFB_WR_SECT: sectors written
 * @XFB_POLL_LOOPS: times the channel was polled
 * @XFB_EMPTY_POLLS: polls that found nothing to do
 * @XFB_NOTIFY_SENT: event-channel notifications to the frontend
 * @XFB_GRANT_OPS: grant map and unmap operations
 * @XFB_HYPERCALLS: grant-table and event-channel hypercalls
 * @XFB_INVALID_REQ: requests refused by validation
 * @XFB_GRANT_ERRORS: requests whose grants could not be mapped
 * @XFB_IO_ERRORS: requests failed by the block device
 * @XFB_PROTO_ERRORS: ring-level protocol errors
 * @XFB_STAGED_REQ: requests served in the channel's staging pages
 * @XFB_STAGED_GRANT_REQ: of those, requests whose staging pages were
 *	mapped for the request only, because keeping the channel's staging
 *	pages mapped would pass a budget (back_staging.c)
 * @XFB_PARKED: times the channel was parked: requests waited for grant
 *	room or pages, so the poller stopped looking at it until a timed
 *	retry (xfb_park())
 * @XFB_GRANT_WAITS: times the channel waited because its guest had
 *	max_guest_grants grants mapped (back_guest.c)
 * @XFB_SPURIOUS_IRQS: event-channel interrupts that brought no request
 *	since the previous one, EOIed as spurious (Xen then delays the
 *	next ones of that port: an event storm is throttled)
 * @XFB_SUBMIT_AGAIN: bios the device could not take without waiting,
 *	submitted again by a worker instead of the poller (back_io.c;
 *	written by that worker)
 * @XFB_PAGE_WAITS: times the channel waited for its page cache to be
 *	refilled by a worker (back_nowait.c)
 * @XFB_END_ANSWERS: requests answered from their bio's completion, the
 *	channel's poller asleep (back_io.c, xfb_end_answer())
 * @XFB_RECYCLED_HELD: pages unmapped and put back in the page cache while
 *	something below the backend still held a reference to them (must
 *	stay 0: the page's next mapping is another request's, perhaps
 *	another guest's)
 * @XFB_HELD_UNMAPS: requests whose pages a layer below still held when
 *	their bio ended: unmapped and answered once free (back_held.c)
 * @XFB_THROTTLED_REQ: requests that waited for the disk's I/O limits
 *	(back_throttle.c)
 * @XFB_THROTTLED_US: the time they waited, in microseconds
 * @XFB_NR_STATS: number of counters
 */
enum xfb_stat {
	XFB_OO_REQ,
	XFB_RD_REQ,
	XFB_WR_REQ,
	XFB_F_REQ,
	XFB_DS_REQ,
	XFB_RD_SECT,
	XFB_WR_SECT,
	XFB_POLL_LOOPS,
	XFB_EMPTY_POLLS,
	XFB_NOTIFY_SENT,
	XFB_GRANT_OPS,
	XFB_HYPERCALLS,
	XFB_INVALID_REQ,
	XFB_GRANT_ERRORS,
	XFB_IO_ERRORS,
	XFB_PROTO_ERRORS,
	XFB_STAGED_REQ,
	XFB_STAGED_GRANT_REQ,
	XFB_PARKED,
	XFB_GRANT_WAITS,
	XFB_SPURIOUS_IRQS,
	XFB_SUBMIT_AGAIN,
	XFB_PAGE_WAITS,
	XFB_END_ANSWERS,
	XFB_RECYCLED_HELD,
	XFB_HELD_UNMAPS,
	XFB_THROTTLED_REQ,
	XFB_THROTTLED_US,
	XFB_NR_STATS,
};

/**
 * struct xfb_poll_lat - latency histograms of one poller (its private data)
 * @dev: request taken to bio end
 * @reap: bio end to response published
 *
 * Buckets of fipc_poll_lat_bucket(); written by the poller only.
 */
struct xfb_poll_lat {
	u64 dev[FIPC_POLL_LAT_BUCKETS];
	u64 reap[FIPC_POLL_LAT_BUCKETS];
};

struct xfb_chan;

/**
 * struct xfb_req - one request taken from a ring, until it is answered
 * @node: on the channel's free or answer-pending list
 * @done: on the channel's done list once its bio ended (or its again
 *	list, to be submitted again)
 * @chan: the channel
 * @id: the frontend's id, echoed
 * @op: the request's op, echoed
 * @status: the status to answer with
 * @nrefs: number of mapped pages
 * @shared: @pages are mapped for the connection (memshare pfns, staging
 *	pages), not grants of this request: nothing to unmap
 * @late: its pages were held below us when its bio ended: it waited on
 *	the held list, whose work unmapped them (back_held.c)
 * @late_unmaps: the unmap operations that work did, for the counters
 * @bio_status: outcome of the bio
 * @opf: the bio's operation and flags, REQ_NOWAIT included if tried
 * @sector: the bio's first sector
 * @nr_bytes: the request's length
 * @first_offset: where the data starts in the first page
 * @t_seen: when the request was taken (ns)
 * @t_done: when its bio ended (ns)
 * @bio: the bio, embedded (one per request, split by the block layer)
 * @pages: the pages the grants are mapped on
 * @handles: grant handles of the mappings
 * @bvecs: the bio's vectors
 */
struct xfb_req {
	struct list_head node;
	struct llist_node done;
	struct xfb_chan *chan;
	u64 id;
	u8 op;
	s16 status;
	unsigned int nrefs;
	bool shared;
	bool late;
	unsigned int late_unmaps;
	blk_status_t bio_status;
	blk_opf_t opf;
	sector_t sector;
	u32 nr_bytes;
	u32 first_offset;
	u64 t_seen;
	u64 t_done;
	struct bio bio;
	struct page **pages;
	grant_handle_t *handles;
	struct bio_vec *bvecs;
};

struct xfb_be;

/**
 * struct xfb_guest - what one guest holds of the backend domain's
 *	resources, for all its devices (back_guest.c)
 * @node: on the list of guests
 * @domid: the guest
 * @users: devices of the guest (taken under the list's mutex; the last
 *	put takes it before the guest leaves the list)
 * @grants: grants of the guest's requests mapped now
 * @grants_peak: the most @grants has been since load or the last reset
 * @staging: staging pages of the guest's channels kept mapped now
 *	(under the guests' list lock)
 * @devs_lock: protects @devs and @retired; taken before a device's
 *	mutex, never under one
 * @devs: the guest's devices (xfb_be.guest_node), for its service totals
 * @retired: counters of the guest's devices already freed
 * @limits: the I/O limits of all its devices together (back_throttle.c)
 */
struct xfb_guest {
	struct list_head node;
	domid_t domid;
	refcount_t users;
	atomic_t grants;
	atomic_t grants_peak;
	unsigned int staging;
	unsigned long connect_after;	/* jiffies; xfb_guest_connect_*() */
	struct mutex devs_lock;		/* protects devs, retired */
	struct list_head devs;
	u64 retired[XFB_NR_STATS];
	struct xfb_limiter limits;
};

/**
 * struct xfb_ms_key - what a memshare mapping is of: a device of the
 *	guest that asks for the same shares the mapping
 * @domid: the guest
 * @dir_ref: the guest's fipc-memshare-dir-ref
 * @npfns: entries of the table (the frontend's fipc-memshare-pfns)
 * @writable: mapped writable (the frontend's fipc-memshare-writable): READs
 *	may name pfns too
 */
struct xfb_ms_key {
	domid_t domid;
	grant_ref_t dir_ref;
	unsigned long npfns;
	bool writable;
};

/**
 * struct xfb_memshare - the guest's memory, mapped once (memshare path)
 * @node: on the list of mappings (shared by the devices of one guest)
 * @key: the guest and its table (@key.npfns: entries of @pages)
 * @users: devices connected with this mapping (taken under the list's
 *	mutex; the last put takes it before the mapping leaves the list)
 * @ready: completed once the mapping is made or has failed
 * @err: 0, or why the mapping failed (valid once @ready)
 * @reserved: mappings charged to the guest's bound and the backend's
 *	budget (memshare_max_mib) for this table: its non-zero entries
 * @pages: the page a pfn is mapped on, or NULL (not shared, map failed)
 * @handles: grant handles of the mappings, indexed like @pages
 * @mapped: pages mapped
 * @failed: references the frontend listed that could not be mapped
 * @map_ns: time taken to read the table and map everything
 *
 * Set up before the channels and torn down after them: the pollers only
 * read it.  Immutable once @ready, so devices share it.  Made without
 * the list's lock held: a device of the same guest that finds it being
 * made waits for @ready.
 */
struct xfb_memshare {
	struct list_head node;
	struct xfb_ms_key key;
	refcount_t users;
	struct completion ready;
	int err;
	unsigned long reserved;
	struct page **pages;
	grant_handle_t *handles;
	unsigned long mapped;
	unsigned long failed;
	u64 map_ns;
};

/**
 * struct xfb_chan - one channel of a backend device
 * @be: the device
 * @index: number of the channel (queue-<index>)
 * @ds: the duplex ring (protocol version 3), we serve it
 * @ring: the mapped duplex ring (queue-<index>/req-ring-ref<i>)
 * @ctrl: the mapped control page
 * @irq: irq of the event channel, or 0
 * @poll: our place in a poller of xfb_pollers
 * @claim: bit 0 is held by whoever serves the ring and the request pool:
 *	the poller, or a bio's completion while the poller sleeps
 *	(xfb_end_answer()); every field below that the data path changes
 *	is changed under it, @done, @inflight and @eoi_pending excepted
 * @broken: the frontend broke the ring protocol
 * @reqs: the request pool
 * @nr_reqs: size of @reqs
 * @free_reqs: unused requests
 * @done: requests whose bio ended (filled by end_io)
 * @inflight: requests with a bio in flight
 * @page_cache: pages to map grants on
 * @map_ops: scratch for mapping
 * @unmap_ops: scratch for unmapping
 * @unmap_pages: scratch for unmapping
 * @held_lock: protects @held
 * @held: finished requests whose pages a layer below still holds, on
 *	their @node, counted in @inflight (back_held.c)
 * @held_work: unmaps and hands to the poller the requests of @held
 *	whose pages are free, looking again every jiffy while any is left
 * @held_ops: @held_work's scratch for unmapping
 * @held_pages: @held_work's scratch for unmapping
 * @stg_refs: the grant references of the staging pages (private copy of
 *	the frontend's list; memshare, optional)
 * @stg_pages: the staging pages, mapped for the connection, or NULL when
 *	that would pass a budget: then each request maps the ones it names
 * @stg_handles: their grant handles
 * @stg_nr: number of staging pages (0: none)
 * @ring_maps: ring and control pages counted in max_grant_mappings
 *	(back_maptrack.c) while the channel maps them
 * @rxq: requests taken from the ring, private copies, not handled yet
 * @rsp: responses queued by xfb_send(), written into the ring together
 *	by xfb_send_flush()
 * @rsp_n: how many @rsp holds
 * @answered: responses written since the last notification check
 * @park_us: while parked (requests wait for grant room or pages,
 *	xfb_park()), the current retry interval; 0 when not parked
 * @grant_wait: the guest's grant budget stopped us taking requests
 * @page_wait: the page cache is short of a largest request's pages: a
 *	worker refills it (back_nowait.c)
 * @again: requests whose REQ_NOWAIT bio the device refused
 * @again_work: submits @again without REQ_NOWAIT
 * @refill_work: refills @page_cache
 * @eoi_pending: an interrupt of the channel waits for its late EOI, which
 *	the poller gives after looking at the channel
 * @limit_held: slots of the oldest request of @rxq, held over the
 *	disk's limits (back_throttle.c), 0 if none
 * @limit_us: while one is held, when to ask again
 * @limit_since: when it was taken (ns)
 * @taken: requests handled (taken from the ring, then out of @rxq)
 * @taken_at_eoi: @taken at the last EOI (nothing since: spurious)
 * @st: counters
 */
struct xfb_chan {
	struct xfb_be *be;
	unsigned int index;
	struct fipc_duplex_server ds;
	void *ring;
	struct fipcblk_ctrl *ctrl;
	unsigned int ring_maps;
	int irq;
	struct fipc_poll_entry poll;
	unsigned long claim;
	bool broken;
	struct xfb_req *reqs;
	unsigned int nr_reqs;
	struct list_head free_reqs;
	struct llist_head done;
	atomic_t inflight;
	struct gnttab_page_cache page_cache;
	struct gnttab_map_grant_ref *map_ops;
	struct gnttab_unmap_grant_ref *unmap_ops;
	struct page **unmap_pages;
	spinlock_t held_lock;		/* protects held */
	struct list_head held;
	struct delayed_work held_work;
	struct gnttab_unmap_grant_ref *held_ops;
	struct page **held_pages;
	u32 *stg_refs;
	struct page **stg_pages;
	grant_handle_t *stg_handles;
	unsigned int stg_nr;
	struct xfb_rxq rxq;
	struct fipc_msg rsp[XFB_RSP_BURST];
	unsigned int rsp_n;
	unsigned int answered;
	unsigned int park_us;
	bool grant_wait;
	bool page_wait;
	struct llist_head again;
	struct work_struct again_work;
	struct work_struct refill_work;
	atomic_t eoi_pending;
	unsigned int limit_held;
	unsigned int limit_us;
	u64 limit_since;
	u64 taken;
	u64 taken_at_eoi;
	u64 st[XFB_NR_STATS];
};

/**
 * struct xfb_be - one backend device
 * @dev: our xenbus device
 * @mutex: serialises state changes
 * @busy_lock: taken by xenwatch instead of @mutex while a connect, a drain
 *	or a removal is under way, or a work follows the frontend
 *	(xfb_be_set_busy()); guards @fe_last and @fe_changes, and
 *	@connecting, @draining, @removing and @following change under it
 *	too (and under @mutex)
 * @following: a connect or a drain that ended follows the frontend's
 *	state (xfb_work_follow())
 * @devt: the physical device, once known
 * @bdev_file: the opened block device
 * @bdev: its block device
 * @nowait: @bdev takes REQ_NOWAIT bios (back_nowait.c)
 * @lim: validation limits (@lim.sectors may change on resize)
 * @pbs: physical block size
 * @discard_granularity: from the device
 * @discard_alignment: from the device
 * @physdev_watch: watch on our physical-device node
 * @watching: @physdev_watch is registered
 * @chans: the channels while connected
 * @nr_chans: number of channels
 * @ring_order: log2 of ring pages
 * @max_refs: page references per request at most
 * @proto_work: closes the device after a protocol error
 * @drain_work: finishes a disconnect: waits for the bios in flight, then
 *	unmaps everything and follows the frontend's state
 * @draining: channels stopped, @drain_work not done with them yet
 * @removing: the device is being removed
 * @handed_off: removal returned before the drain ended: @drain_work
 *	releases and frees the device
 * @released: on the list of removed devices whose drain goes on
 * @resize_work: checks the device size and trims the page caches
 * @poller_cpus: CPUs allowed for this device's pollers (toolstack key)
 * @weight: its channels' share of their pollers (fipc-weight, read at
 *	each connect; statistics/weight sets it live)
 * @limits: its I/O limits (back_throttle.c)
 * @ms_offered: we offered the memshare data path (fipc-data-paths)
 * @msw_offered: we offered to map it writable (fipc-memshare-writable)
 * @gs_offered: we offered staging pages on the grant path too
 *	(fipc-grant-staging)
 * @ms: the guest's memory while connected on the memshare path, or NULL
 * @guest: the guest's share of the backend domain's resources
 * @guest_node: on @guest's list of devices
 * @retired: counters of channels already torn down
 * @stats: its counters, summed over its channels and @retired
 *	(back_stats.c)
 * @dbg: its debugfs directory (back_debugfs.c)
 */
struct xfb_be {
	struct xenbus_device *dev;
	struct mutex mutex;		/* serialises state changes */
	spinlock_t busy_lock;
	dev_t devt;
	struct file *bdev_file;
	struct block_device *bdev;
	bool nowait;
	struct xfb_limits lim;
	unsigned int pbs;
	unsigned int discard_granularity;
	unsigned int discard_alignment;
	struct xenbus_watch physdev_watch;
	bool watching;
	struct xfb_chan *chans;
	unsigned int nr_chans;
	unsigned int ring_order;
	unsigned int max_refs;
	struct work_struct proto_work;
	struct work_struct drain_work;
	struct delayed_work connect_work;
	bool connecting;
	enum xenbus_state fe_last;	/* the frontend's state last seen */
	unsigned int fe_changes;	/* times it was seen to change */
	bool draining;
	bool removing;
	bool following;
	bool handed_off;
	struct list_head released;
	struct delayed_work resize_work;
	cpumask_var_t poller_cpus;
	unsigned int weight;
	struct xfb_limiter limits;
	bool ms_offered;
	bool msw_offered;
	bool gs_offered;
	struct xfb_memshare *ms;
	struct xfb_guest *guest;
	struct list_head guest_node;
	u64 retired[XFB_NR_STATS];
	struct fipc_stats stats;
	struct dentry *dbg;
};

/* back_chan.c */
int xfb_chans_map(struct xfb_be *be, unsigned int nr, unsigned int order);
void xfb_chans_start(struct xfb_be *be);
void xfb_chans_stop(struct xfb_be *be);
void xfb_chans_drain(struct xfb_be *be);
void xfb_chans_free(struct xfb_be *be);

/* back_connect.c */
extern struct workqueue_struct *xfb_wq;
void xfb_connect(struct xfb_be *be, enum xenbus_state fe);
bool xfb_connect_run(struct xfb_be *be, unsigned long t0,
		     unsigned int *changes);
void xfb_connect_cancel(struct xfb_be *be);

/* back_xenbus.c */
bool xfb_follow_frontend(struct xfb_be *be, enum xenbus_state fe);
void xfb_work_follow(struct xfb_be *be, bool *flag, unsigned int changes,
		     bool always);

/**
 * xfb_fe_changes() - how many times xenwatch saw the frontend change state
 * @be: the device
 *
 * Return: the count; a work that saw it move knows of a change it must
 * follow.
 */
static inline unsigned int xfb_fe_changes(struct xfb_be *be)
{
	unsigned int n;

	spin_lock(&be->busy_lock);
	n = be->fe_changes;
	spin_unlock(&be->busy_lock);
	return n;
}

/**
 * xfb_be_set_busy() - set or clear be->connecting, draining or removing
 * @be: the device, be->mutex held
 * @flag: &be->connecting, &be->draining or &be->removing
 * @on: its new value
 *
 * Under be->busy_lock too: xenwatch reads them under that lock alone
 * (xfb_frontend_changed()).
 */
static inline void xfb_be_set_busy(struct xfb_be *be, bool *flag, bool on)
{
	spin_lock(&be->busy_lock);
	WRITE_ONCE(*flag, on);
	spin_unlock(&be->busy_lock);
}

/* back_io.c */
extern const struct fipc_poll_ops xfb_poll_ops;
void xfb_chan_drain(struct xfb_chan *chan);
void xfb_bio_build(struct xfb_req *req, bool nowait);
void xfb_submit_again(struct xfb_req *req);
void xfb_io_chan_init(struct xfb_chan *chan);
extern struct wait_queue_head xfb_drain_wq;

/* back_ring.c */
void xfb_set_sleeping(struct fipc_poll_entry *entry, bool sleeping);
void xfb_proto_error(struct xfb_chan *chan, const char *why);
bool xfb_rx_ready(struct xfb_chan *chan);
int xfb_recv(struct xfb_chan *chan, const struct fipc_msg **msgs);
void xfb_recv_done(struct xfb_chan *chan);
void xfb_send(struct xfb_chan *chan, const struct fipcblk_response *rsp);
void xfb_send_flush(struct xfb_chan *chan);
int xfb_wait(struct fipc_poll_entry *entry, struct fipc_waiter *w);
bool xfb_has_work(struct fipc_poll_entry *entry);
bool xfb_busy(struct fipc_poll_entry *entry);
void xfb_park(struct xfb_chan *chan);
void xfb_eoi(struct xfb_chan *chan);
void xfb_notify(struct xfb_chan *chan);

static inline struct xfb_chan *xfb_poll_chan(struct fipc_poll_entry *entry)
{
	return container_of(entry, struct xfb_chan, poll);
}

/* The bit of chan->claim held by whoever serves the channel's ring. */
#define XFB_CLAIMED	0

static inline bool xfb_ring_claim(struct xfb_chan *chan)
{
	return !test_and_set_bit_lock(XFB_CLAIMED, &chan->claim);
}

static inline void xfb_ring_release(struct xfb_chan *chan)
{
	clear_bit_unlock(XFB_CLAIMED, &chan->claim);
}

/**
 * xfb_req_done() - hand a request that no longer waits to the poller
 * @chan: its channel
 * @req: the request, counted in @chan->inflight: its bio ended, or the
 *	held work unmapped its pages
 *
 * The poller answers it from the done list.  The request stops counting
 * as in flight: the channel may be freed right after (any context).
 */
static inline void xfb_req_done(struct xfb_chan *chan, struct xfb_req *req)
{
	llist_add(&req->done, &chan->done);
	fipc_poll_entry_wake(&chan->poll);
	if (atomic_dec_and_test(&chan->inflight))
		wake_up(&xfb_drain_wq);
}

/* back_held.c */
unsigned int xfb_unmap_pages(struct xfb_chan *chan, struct xfb_req *req,
			     struct gnttab_unmap_grant_ref *ops,
			     struct page **pages);
void xfb_held_chan_init(struct xfb_chan *chan);
void xfb_held_chan_stop(struct xfb_chan *chan);
bool xfb_req_held(const struct xfb_req *req);
void xfb_held_add(struct xfb_chan *chan, struct xfb_req *req);

/* back_nowait.c */
int xfb_nowait_init(void);
void xfb_nowait_exit(void);
void xfb_nowait_chan_init(struct xfb_chan *chan);
void xfb_nowait_chan_stop(struct xfb_chan *chan);
void xfb_nowait_queue(struct work_struct *work);
bool xfb_pages_ready(struct xfb_chan *chan);
void xfb_pages_refill(struct xfb_chan *chan);
int xfb_pages_prefill(struct xfb_chan *chan);

/* back_memshare.c */
int xfb_memshare_map(struct xfb_be *be);
unsigned int xfb_unmap_free_pages(struct xfb_be *be,
				  struct gnttab_unmap_grant_ref *ops,
				  struct page **pages, unsigned int n);
void xfb_memshare_unmap(struct xfb_be *be);
unsigned long xfb_memshare_array_bytes(const struct xfb_memshare *ms);
bool xfb_memshare_budget_take(unsigned long n);
void xfb_memshare_budget_give(unsigned long n);
int xfb_memshare_pages(const struct xfb_memshare *ms, u8 op,
		       const struct fipc_msg *msgs, unsigned int nrefs,
		       struct page **pages, const char **why);

/* back_guest.c */
struct xfb_guest *xfb_guest_get(domid_t domid);
void xfb_guest_put(struct xfb_guest *g);
bool xfb_guest_grants_room(const struct xfb_guest *g, unsigned int nrefs);
void xfb_guest_grants_charge(struct xfb_guest *g, unsigned int nrefs);
bool xfb_guest_staging_charge(struct xfb_guest *g, unsigned int n);
void xfb_guest_staging_uncharge(struct xfb_guest *g, unsigned int n);
unsigned long xfb_guest_connect_delay(struct xfb_guest *g);
void xfb_guest_connect_cost(struct xfb_guest *g, unsigned long cost);
void xfb_guest_add_dev(struct xfb_be *be);
void xfb_guest_del_dev(struct xfb_be *be);
u64 xfb_guest_stat(struct xfb_guest *g, const enum xfb_stat *idx,
		   unsigned int n, unsigned int *devs);

/* back_maptrack.c */
void xfb_maptrack_init(void);
unsigned long xfb_maptrack_used(void);
bool xfb_maptrack_take(unsigned long n);
void xfb_maptrack_give(unsigned long n);
bool xfb_maptrack_room(int guest_grants, unsigned int nrefs);
void xfb_maptrack_charge(unsigned int nrefs);

/* back_staging.c */
int xfb_staging_map(struct xfb_be *be, struct xfb_chan *chan);
void xfb_staging_unmap(struct xfb_be *be, struct xfb_chan *chan);
int xfb_staging_check(const struct xfb_chan *chan, const struct fipc_msg *msgs,
		      unsigned int nrefs, const char **why);
void xfb_staging_pages(const struct xfb_chan *chan, const struct fipc_msg *msgs,
		       unsigned int nrefs, struct page **pages);
u32 xfb_staging_ref(const struct xfb_chan *chan, u32 idx);

/* back_vbd.c */
void xfb_open_from_params(struct xfb_be *be);
int xfb_vbd_open(struct xfb_be *be, dev_t devt);
void xfb_vbd_close(struct xfb_be *be);
int xfb_vbd_write_info(struct xfb_be *be);
void xfb_vbd_resize_work(struct work_struct *work);

/* back_xsread.c */
#define XFB_REQUIRED		(-1LL)
int xfb_read_fe_uint(struct xfb_be *be, const char *key, u32 min, u32 max,
		     s64 dflt, u32 *val);
unsigned int xfb_queues_offered(struct xfb_be *be);

/* back_xenbus.c */
int xfb_xenbus_register(void);
void xfb_xenbus_unregister(void);

/* back_debugfs.c */
void xfb_debugfs_init(void);
void xfb_debugfs_exit(void);
void xfb_debugfs_add(struct xfb_be *be);
void xfb_debugfs_remove(struct xfb_be *be);

/* back_sysfs.c */
extern const struct attribute_group *xfb_groups[];
void xfb_sysfs_init(void);

/* back_throttle.c */
extern const struct attribute_group xfb_limit_group;
int xfb_throttle_read(struct xfb_be *be);
bool xfb_throttle(struct xfb_chan *chan, const struct fipc_msg *msgs,
		  unsigned int nslots);
void xfb_throttle_sysfs_init(void);

/**
 * xfb_limit_retry_us() - when a channel holding a request over its
 *	disk's limits asks again
 * @chan: the channel
 *
 * Return: microseconds, or 0 if it holds none.
 */
static inline unsigned int xfb_limit_retry_us(const struct xfb_chan *chan)
{
	return chan->limit_held && !chan->broken ? chan->limit_us : 0;
}

/* back_stats.c */
extern const struct fipc_stats_kind xfb_stats_kind;
void xfb_stats_init(struct xfb_be *be);

#endif /* _XEN_FIPC_BACK_H */
