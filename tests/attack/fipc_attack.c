// SPDX-License-Identifier: GPL-2.0
/*
 * fipc_attack: a hostile fipcblk frontend, for the testbed only (scenario
 * fipc-hostile, docs/testbed.md).  Not shipped.
 *
 * It binds to the guest's "fipcblk" devices instead of xen-fipc-front and
 * speaks the protocol itself, as an attacker would: its own zeroed ring
 * pages, its own grants, event channel and xenstore keys, slot flags
 * written byte by byte (docs/protocol.md; lib/fipc is not used).  It is
 * the client of one duplex ring (protocol version 3, the only one).
 *
 * mode= (one per load; the testbed loads the module once without
 * parameters, mode "none", which binds nothing):
 *   noreap     send FLUSH requests until the ring is full, never take a
 *              response (so never have room for more)
 *   storm      connect, then EVTCHNOP_send in a loop
 *   xsbad      one out-of-range or garbled frontend key per case, the
 *              retired protocol versions 1 and 2 among them; the
 *              backend must never reach Connected
 *   cycle      connect and disconnect correctly cycles= times
 *   closebusy  fill the ring and close at once (3 rounds)
 *   forge      one forged request flag per case, each on a fresh
 *              connection: a kind that is no request, a request that
 *              wants no response, length 0, length past any message, a
 *              torn two-slot request; the backend must close the
 *              channel (Closing) and take us back
 *   rebind     connect, fill the ring, close, over and over for
 *              seconds=, while dom0 unbinds and binds the backend device
 *              (removal racing connect and drain); short waits, each
 *              state taken as it comes
 * Each mode runs for seconds= (where it has a duration) and prints
 * "@@FIPC-ATTACK <mode> start ...", "... done ..." and, once unbound,
 * "... removed ..." lines in the kernel log (the guest script relays
 * them to the console).  With wait_go=1 a mode first prints "<mode>
 * waiting" and starts once its name is in the frontend directory's
 * fipc-attack-go (dom0 takes its counters first), and once done prints
 * "<mode> released" when it reads "release" there (the guest script
 * unbinds the device only then).  Disconnects end every
 * grant only after the backend is Closed; a grant still mapped then is
 * counted (busy_grants).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <xen/events.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include <xen/xen.h>
#include <xen/xenbus.h>
#include <xen/interface/io/fipcblk.h>

/*
 * The ring as the public header specifies it, not lib/fipc: this module
 * is a peer written from fipcblk.h alone.
 */
#define FA_SLOTS_PER_PAGE	(FIPCBLK_PAGE_BYTES / FIPCBLK_SLOT_BYTES)
#define FA_MAX_PAGES		BIT(FIPCBLK_RING_MAX_ORDER)

static char *mode = "none";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode,
		 "none, noreap, storm, xsbad, cycle, closebusy, forge or rebind");

static unsigned int seconds = 20;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "Duration of noreap, storm and rebind (default 20)");

static unsigned int cycles = 100;
module_param(cycles, uint, 0444);
MODULE_PARM_DESC(cycles, "Connect/disconnect cycles of mode cycle (default 100)");
static unsigned int time_scale = 1;
module_param(time_scale, uint, 0444);
MODULE_PARM_DESC(time_scale,
		 "Multiply every wait for the backend by this (default 1; more for a slow backend domain, e.g. on a KASAN kernel under emulation)");

static bool wait_go;
module_param(wait_go, bool, 0444);
MODULE_PARM_DESC(wait_go,
		 "Before the mode starts, wait until the frontend directory's fipc-attack-go names it (written by dom0)");

static unsigned int ring_order;
module_param(ring_order, uint, 0444);
MODULE_PARM_DESC(ring_order, "Ring order written to fipc-ring-order (0..4, default 0)");

struct fa_ring {
	struct page *pages[FA_MAX_PAGES];
	grant_ref_t refs[FA_MAX_PAGES];
	unsigned int nr_pages;
	u32 slots;
	u32 seq;
};

struct fa_dev {
	struct xenbus_device *dev;
	struct task_struct *task;
	struct fa_ring ring;	/* the duplex ring: we are its client */
	struct page *ctrl;
	grant_ref_t ctrl_ref;
	evtchn_port_t port;
	bool have_port;
	bool have_chan;		/* pages granted (maybe mapped by the backend) */
	struct page *ms_pages[3];	/* memshare cases: dir, table, data */
	grant_ref_t ms_refs[3];
	u64 next_id;
	unsigned int busy_grants;
};

/*
 * One bad value per xsbad case.  A memshare case (ms) asks for the
 * memshare path with a table of its own: a directory naming one table
 * page whose entries all name one data page (repeat: every entry, else
 * only the first), and the bad value in key.
 */
struct fa_bad {
	const char *key;
	const char *value;
	bool ms;
	bool repeat;
};

static const struct fa_bad fa_bad_cases[] = {
	{ "multi-queue-num-queues", "-1" },
	{ "multi-queue-num-queues", "two" },
	{ "multi-queue-num-queues", "4294967297" },
	{ "multi-queue-num-queues", "0" },
	{ "fipc-ring-order", "4294967296" },
	{ "fipc-ring-order", "99" },
	{ "queue-0/req-ring-ref0", "0" },
	{ "queue-0/event-channel", "abc" },
	/* 2^32: wraps to 0 in a lax parser */
	{ "fipc-memshare-pfns", "4294967296", true, false },
	/* 4 GiB of pfns: more than twice the guest's maximum memory */
	{ "fipc-memshare-pfns", "1048576", true, false },
	/* 1024 pfns naming one page: a repeated reference */
	{ "fipc-memshare-pfns", "1024", true, true },
	/* Staging pages on the grant path: more than any backend offers */
	{ "queue-0/fipc-staging-pages", "1025" },
	/* Staging pages without their list page */
	{ "queue-0/fipc-staging-pages", "4" },
	/* Retired: position-stamped duplex rings */
	{ "fipc-protocol", "2" },
	/* Retired: two one-way rings per queue */
	{ "fipc-protocol", "1" },
};

static bool fa_stopping(struct fa_dev *fa)
{
	return current == fa->task && kthread_should_stop();
}

/* Sleep ms, in 10 ms steps; false if the thread is asked to stop. */
static bool fa_sleep(struct fa_dev *fa, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (time_before(jiffies, end)) {
		if (fa_stopping(fa))
			return false;
		usleep_range(10000, 20000);
	}
	return !fa_stopping(fa);
}

static enum xenbus_state fa_backend(struct fa_dev *fa)
{
	return xenbus_read_driver_state(fa->dev, fa->dev->otherend);
}

/*
 * Wait up to ms (times time_scale) for the backend to be in one of the
 * states of mask (BIT(state)); polled, the otherend watch is gone during
 * remove.  Returns the state it ended in.
 */
static enum xenbus_state fa_wait(struct fa_dev *fa, unsigned long mask,
				 unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms * max(time_scale, 1u));
	enum xenbus_state s;

	for (;;) {
		s = fa_backend(fa);
		if ((BIT(s) & mask) || !time_before(jiffies, end) ||
		    fa_stopping(fa))
			return s;
		usleep_range(10000, 20000);
	}
}

static struct fipcblk_slot *fa_slot(struct fa_ring *r, u32 seq)
{
	u32 i = seq & (r->slots - 1);
	struct fipcblk_slot *base;

	base = page_address(r->pages[i / FA_SLOTS_PER_PAGE]);
	return base + i % FA_SLOTS_PER_PAGE;
}

/* The flag of a request slot at position pos (len in its head, else 0). */
static u32 fa_flag(u32 pos, u32 len)
{
	return FIPCBLK_DUPLEX_FLAG(FIPCBLK_DUPLEX_CALL, len,
				   FIPCBLK_DUPLEX_LAP(pos, ring_order));
}

/* End a grant; a grant the backend still maps is counted, never reused. */
static void fa_end_grant(struct fa_dev *fa, grant_ref_t ref, struct page *page)
{
	if (gnttab_try_end_foreign_access(ref)) {
		__free_page(page);
		return;
	}
	fa->busy_grants++;
	gnttab_end_foreign_access(ref, page);	/* frees it once unmapped */
}

static int fa_grant(struct fa_dev *fa, struct page **page, grant_ref_t *ref)
{
	int err;

	*page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!*page)
		return -ENOMEM;
	err = gnttab_grant_foreign_access(fa->dev->otherend_id,
					  xen_page_to_gfn(*page), 0);
	if (err < 0) {
		__free_page(*page);
		*page = NULL;
		return err;
	}
	*ref = err;
	return 0;
}

static void fa_ring_free(struct fa_dev *fa, struct fa_ring *r)
{
	unsigned int i;

	for (i = 0; i < r->nr_pages; i++)
		fa_end_grant(fa, r->refs[i], r->pages[i]);
	r->nr_pages = 0;
}

static int fa_ring_alloc(struct fa_dev *fa, struct fa_ring *r)
{
	unsigned int n = 1u << ring_order;
	int err;

	r->nr_pages = 0;
	r->seq = 0;
	r->slots = n * FA_SLOTS_PER_PAGE;
	while (r->nr_pages < n) {
		err = fa_grant(fa, &r->pages[r->nr_pages],
			       &r->refs[r->nr_pages]);
		if (err)
			return err;
		r->nr_pages++;
	}
	return 0;
}

static void fa_ms_free(struct fa_dev *fa)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fa->ms_pages); i++) {
		if (fa->ms_pages[i])
			fa_end_grant(fa, fa->ms_refs[i], fa->ms_pages[i]);
		fa->ms_pages[i] = NULL;
	}
}

/* A memshare table of our own: directory -> one table -> one page. */
static int fa_ms_alloc(struct fa_dev *fa, bool repeat)
{
	u32 *dir, *table;
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(fa->ms_pages); i++)
		err = fa_grant(fa, &fa->ms_pages[i], &fa->ms_refs[i]);
	if (err) {
		fa_ms_free(fa);
		return err;
	}
	dir = page_address(fa->ms_pages[0]);
	table = page_address(fa->ms_pages[1]);
	dir[0] = fa->ms_refs[1];
	for (i = 0; i < (repeat ? FIPCBLK_MEMSHARE_REFS_PER_PAGE : 1); i++)
		table[i] = fa->ms_refs[2];
	/* The table in place before the keys that let the backend read it. */
	virt_wmb();
	return 0;
}

/* Only once the backend is Closed (it unmapped everything). */
static void fa_chan_free(struct fa_dev *fa)
{
	if (fa->have_port)
		xenbus_free_evtchn(fa->dev, fa->port);
	fa->have_port = false;
	if (!fa->have_chan)
		return;
	fa_ring_free(fa, &fa->ring);
	if (fa->ctrl)
		fa_end_grant(fa, fa->ctrl_ref, fa->ctrl);
	fa->ctrl = NULL;
	fa_ms_free(fa);
	fa->have_chan = false;
}

static int fa_chan_alloc(struct fa_dev *fa)
{
	int err;

	fa->have_chan = true;
	err = fa_ring_alloc(fa, &fa->ring) ?:
	      fa_grant(fa, &fa->ctrl, &fa->ctrl_ref) ?:
	      xenbus_alloc_evtchn(fa->dev, &fa->port);
	if (err) {
		fa_chan_free(fa);
		return err;
	}
	fa->have_port = true;
	return 0;
}

static int fa_write_keys(struct fa_dev *fa, const struct fa_bad *bad)
{
	const char *dir = fa->dev->nodename;
	struct xenbus_transaction xbt;
	char key[32];
	unsigned int i;
	int err;

again:
	err = xenbus_transaction_start(&xbt);
	if (err)
		return err;
	err = xenbus_printf(xbt, dir, "fipc-protocol", "%u",
			    FIPCBLK_PROTOCOL_DUPLEX) ?:
	      xenbus_printf(xbt, dir, "multi-queue-num-queues", "%u", 1) ?:
	      xenbus_printf(xbt, dir, "fipc-ring-order", "%u", ring_order) ?:
	      xenbus_printf(xbt, dir, "fipc-data-path", "%s",
			    bad && bad->ms ? "memshare" : "grant");
	if (!err && bad && bad->ms)
		err = xenbus_printf(xbt, dir, "fipc-memshare-dir-ref", "%u",
				    fa->ms_refs[0]);
	for (i = 0; !err && i < fa->ring.nr_pages; i++) {
		snprintf(key, sizeof(key), "queue-0/req-ring-ref%u", i);
		err = xenbus_printf(xbt, dir, key, "%u", fa->ring.refs[i]);
	}
	err = err ?: xenbus_printf(xbt, dir, "queue-0/ctrl-ring-ref", "%u",
				   fa->ctrl_ref) ?:
	      xenbus_printf(xbt, dir, "queue-0/event-channel", "%u", fa->port);
	if (!err && bad)
		err = xenbus_write(xbt, dir, bad->key, bad->value);
	if (err) {
		xenbus_transaction_end(xbt, 1);
		return err;
	}
	err = xenbus_transaction_end(xbt, 0);
	if (err == -EAGAIN)
		goto again;
	return err;
}

/*
 * Set up a channel (one queue), write the keys (with one bad value if
 * bad) and go Initialised.  Returns the backend state it reached:
 * Connected, or whatever it stayed in for ms.
 */
static enum xenbus_state fa_connect(struct fa_dev *fa, const struct fa_bad *bad,
				    unsigned int ms)
{
	struct xenbus_device *dev = fa->dev;
	enum xenbus_state s;
	int err;

	xenbus_switch_state(dev, XenbusStateInitialising);
	s = fa_wait(fa, BIT(XenbusStateInitWait), 20000);
	if (s != XenbusStateInitWait) {
		pr_warn("backend is %s, not InitWait\n", xenbus_strstate(s));
		return s;
	}
	err = fa_chan_alloc(fa);
	if (err) {
		pr_warn("cannot set up a channel: %d\n", err);
		return XenbusStateUnknown;
	}
	fa->next_id = 0;
	if (bad && bad->ms) {
		err = fa_ms_alloc(fa, bad->repeat);
		if (err) {
			pr_warn("cannot grant a memshare table: %d\n", err);
			fa_chan_free(fa);
			return XenbusStateUnknown;
		}
	}
	err = fa_write_keys(fa, bad);
	if (err) {
		pr_warn("cannot write the keys: %d\n", err);
		fa_chan_free(fa);
		return XenbusStateUnknown;
	}
	xenbus_switch_state(dev, XenbusStateInitialised);
	s = fa_wait(fa, BIT(XenbusStateConnected) | BIT(XenbusStateClosing) |
		    BIT(XenbusStateClosed), ms);
	if (s == XenbusStateConnected && !bad)
		xenbus_switch_state(dev, XenbusStateConnected);
	return s;
}

/* How long a backend may take to drain and unmap once we are Closing. */
#define FA_CLOSE_MS	30000

/*
 * Close as a correct frontend does: Closing, wait for the backend to be
 * Closed (it drained and unmapped), Closed, wait for InitWait, end the
 * grants.  Returns the ms the backend took to get there (-1: never).
 *
 * Only Closed proves that nothing is mapped, never InitWait: a backend
 * bound again while we were Initialised or Connected starts in InitWait
 * and then follows the state it finds, and one that is mid-connect is
 * still InitWait.  Any backend, new or old, that sees us Closing ends in
 * Closed once it has unmapped everything.
 */
static int fa_disconnect(struct fa_dev *fa)
{
	struct xenbus_device *dev = fa->dev;
	ktime_t t0 = ktime_get();
	enum xenbus_state s;
	int took = -1;

	xenbus_switch_state(dev, XenbusStateClosing);
	s = fa_wait(fa, BIT(XenbusStateClosed), FA_CLOSE_MS);
	if (s == XenbusStateClosed)
		took = ktime_ms_delta(ktime_get(), t0);
	else
		pr_warn("backend is %s %u ms after Closing\n",
			xenbus_strstate(s), FA_CLOSE_MS);
	xenbus_switch_state(dev, XenbusStateClosed);
	s = fa_wait(fa, BIT(XenbusStateInitWait), 10000);
	if (s != XenbusStateInitWait)
		pr_warn("backend is %s, not InitWait, after Closed\n",
			xenbus_strstate(s));
	fa_chan_free(fa);
	return took;
}

/*
 * Put one-slot FLUSH requests at every position we may fill; returns how
 * many.  We never take a response, so the positions handed back to us
 * stay those of the first lap: once it is full, we have no room.
 */
static unsigned int fa_top_up(struct fa_dev *fa)
{
	struct fipcblk_request r;
	unsigned int n = 0;
	struct fipcblk_slot *slot;

	while (fa->ring.seq < fa->ring.slots) {
		slot = fa_slot(&fa->ring, fa->ring.seq);
		memset(&r, 0, sizeof(r));
		r.id = fa->next_id++;
		r.op = FIPCBLK_OP_FLUSH;
		memcpy(slot->payload, &r, sizeof(r));
		/* Release: the payload before the flag that announces it. */
		virt_store_release(&slot->flag, fa_flag(fa->ring.seq, 1));
		fa->ring.seq++;
		n++;
	}
	return n;
}

/* Notify as a sender does: only when the backend says it sleeps. */
static void fa_kick(struct fa_dev *fa)
{
	struct fipcblk_ctrl *ctrl = page_address(fa->ctrl);

	/* Our requests before the back_sleeping load (docs/protocol.md). */
	virt_mb();
	if (READ_ONCE(ctrl->back_sleeping))
		notify_remote_via_evtchn(fa->port);
}

/* The slots of the ring whose flag is of this kind. */
static unsigned int fa_count(struct fa_ring *r, u32 kind)
{
	unsigned int n = 0;
	u32 seq;

	for (seq = 0; seq < r->slots; seq++)
		n += (READ_ONCE(fa_slot(r, seq)->flag) &
		      FIPCBLK_FLAG_KIND_MASK) == kind;
	return n;
}

/* noreap: requests, and never a response taken. */
static void fa_noreap(struct fa_dev *fa)
{
	unsigned long end;
	u64 sent = 0;
	unsigned int n;

	if (fa_connect(fa, NULL, 30000) != XenbusStateConnected) {
		pr_info("@@FIPC-ATTACK %s failed connect\n", mode);
		return;
	}
	pr_info("@@FIPC-ATTACK %s start seconds=%u slots=%u\n", mode, seconds,
		fa->ring.slots);
	end = jiffies + seconds * HZ;
	while (time_before(jiffies, end) && !fa_stopping(fa)) {
		n = fa_top_up(fa);
		if (n)
			fa_kick(fa);
		sent += n;
		usleep_range(1000, 2000);
	}
	pr_info("@@FIPC-ATTACK %s done requests=%llu rsp_ready=%u req_waiting=%u\n",
		mode, sent, fa_count(&fa->ring, FIPCBLK_DUPLEX_REPLY),
		fa_count(&fa->ring, FIPCBLK_DUPLEX_CALL));
}

/* storm: notifications in a loop, nothing else. */
static void fa_storm(struct fa_dev *fa)
{
	unsigned long end;
	ktime_t t0;
	u64 sent = 0, ms;

	if (fa_connect(fa, NULL, 30000) != XenbusStateConnected) {
		pr_info("@@FIPC-ATTACK storm failed connect\n");
		return;
	}
	pr_info("@@FIPC-ATTACK storm start seconds=%u\n", seconds);
	t0 = ktime_get();
	end = jiffies + seconds * HZ;
	while (!fa_stopping(fa)) {
		notify_remote_via_evtchn(fa->port);
		sent++;
		if (!(sent & 255) && !time_before(jiffies, end))
			break;
		cond_resched();
	}
	ms = max_t(u64, ktime_ms_delta(ktime_get(), t0), 1);
	pr_info("@@FIPC-ATTACK storm done sent=%llu ms=%llu per_s=%llu\n",
		sent, ms, div64_u64(sent * 1000, ms));
}

/* wait_go: wait until the frontend directory's fipc-attack-go is want. */
static bool fa_wait_go(struct fa_dev *fa, const char *want)
{
	bool go = false;
	char *v;

	while (!go && !kthread_should_stop()) {
		v = xenbus_read(XBT_NIL, fa->dev->nodename, "fipc-attack-go",
				NULL);
		if (!IS_ERR(v)) {
			go = !strcmp(v, want);
			kfree(v);
		}
		if (!go)
			msleep(100);
	}
	return go;
}

/* xsbad: each bad value must leave the backend short of Connected. */
static void fa_xsbad(struct fa_dev *fa)
{
	const char *dir = fa->dev->nodename;
	unsigned int i, refused = 0;
	enum xenbus_state s;
	char ack[16];

	pr_info("@@FIPC-ATTACK xsbad start cases=%zu\n",
		ARRAY_SIZE(fa_bad_cases));
	for (i = 0; i < ARRAY_SIZE(fa_bad_cases) && !fa_stopping(fa); i++) {
		const struct fa_bad *bad = &fa_bad_cases[i];

		/*
		 * For dom0: which case the backend's error node is about.
		 * With wait_go, dom0 acknowledges (it took the previous
		 * case's error node away); else it has 2 s.
		 */
		xenbus_printf(XBT_NIL, dir, "fipc-attack-case", "%u", i);
		snprintf(ack, sizeof(ack), "case-%u", i);
		if (wait_go ? !fa_wait_go(fa, ack) : !fa_sleep(fa, 2000))
			break;
		s = fa_connect(fa, bad, 4000);
		if (s != XenbusStateConnected)
			refused++;
		pr_info("@@FIPC-ATTACK xsbad case %u %s=%s %s backend=%s\n", i,
			bad->key, bad->value,
			s == XenbusStateConnected ? "CONNECTED" : "refused",
			xenbus_strstate(s));
		if (fa->have_chan)
			fa_disconnect(fa);
		/*
		 * Not every bad key is written again by the next connect (the
		 * staging keys are optional): take it away, so that it spoils
		 * only its own case.
		 */
		xenbus_rm(XBT_NIL, dir, bad->key);
	}
	xenbus_printf(XBT_NIL, dir, "fipc-attack-case", "%s", "done");
	pr_info("@@FIPC-ATTACK xsbad done cases=%u refused=%u busy_grants=%u\n",
		i, refused, fa->busy_grants);
}

/* cycle: correct connects and disconnects. */
static void fa_cycle(struct fa_dev *fa)
{
	unsigned int i, ok = 0, failed = 0;
	ktime_t t0 = ktime_get();
	u64 ms;

	pr_info("@@FIPC-ATTACK cycle start cycles=%u\n", cycles);
	for (i = 0; i < cycles && !fa_stopping(fa); i++) {
		if (fa_connect(fa, NULL, 30000) == XenbusStateConnected)
			ok++;
		else
			failed++;
		if (fa->have_chan && fa_disconnect(fa) < 0)
			failed++;
		if (!((i + 1) % 25))
			pr_info("@@FIPC-ATTACK cycle progress %u\n", i + 1);
	}
	ms = ktime_ms_delta(ktime_get(), t0);
	pr_info("@@FIPC-ATTACK cycle done cycles=%u ok=%u failed=%u busy_grants=%u ms=%llu\n",
		i, ok, failed, fa->busy_grants, ms);
}

/* closebusy: a full ring of requests, then Closing at once. */
static void fa_closebusy(struct fa_dev *fa)
{
	unsigned int round, n, worst = 0, failed = 0;
	int ms;

	pr_info("@@FIPC-ATTACK closebusy start rounds=3\n");
	for (round = 0; round < 3 && !fa_stopping(fa); round++) {
		if (fa_connect(fa, NULL, 30000) != XenbusStateConnected) {
			failed++;
			if (fa->have_chan)
				fa_disconnect(fa);
			continue;
		}
		n = fa_top_up(fa);
		fa_kick(fa);
		ms = fa_disconnect(fa);
		pr_info("@@FIPC-ATTACK closebusy round %u requests=%u closed_ms=%d\n",
			round, n, ms);
		if (ms < 0)
			failed++;
		else
			worst = max_t(unsigned int, worst, ms);
	}
	pr_info("@@FIPC-ATTACK closebusy done rounds=%u failed=%u closed_ms_max=%u busy_grants=%u\n",
		round, failed, worst, fa->busy_grants);
}

static const char * const fa_forge_cases[] = {
	"dx-notcall", "dx-posted", "dx-len0", "dx-toolong", "dx-torn",
};

/* The forged flag of case c at position pos. */
static u32 fa_forge_flag(unsigned int c, u32 pos)
{
	u32 lap = FIPCBLK_DUPLEX_LAP(pos, ring_order);

	switch (c) {
	case 0:		/* a response, where a request goes */
		return FIPCBLK_DUPLEX_FLAG(FIPCBLK_DUPLEX_REPLY, 1, lap);
	case 1:		/* well formed, but wants no response */
		return FIPCBLK_DUPLEX_FLAG(FIPCBLK_DUPLEX_POST, 1, lap);
	case 2:
		return FIPCBLK_DUPLEX_FLAG(FIPCBLK_DUPLEX_CALL, 0, lap);
	case 3:		/* longer than any message (32 slots) */
		return FIPCBLK_DUPLEX_FLAG(FIPCBLK_DUPLEX_CALL, 0xff, lap);
	default:	/* two slots, the second still zero */
		return FIPCBLK_DUPLEX_FLAG(FIPCBLK_DUPLEX_CALL, 2, lap);
	}
}

/* Publish a FLUSH at the submit position with forged flag number c. */
static void fa_forge_write(struct fa_dev *fa, unsigned int c)
{
	struct fipcblk_slot *slot = fa_slot(&fa->ring, fa->ring.seq);
	struct fipcblk_request r;

	memset(&r, 0, sizeof(r));
	r.id = fa->next_id++;
	r.op = FIPCBLK_OP_FLUSH;
	memcpy(slot->payload, &r, sizeof(r));
	/* Release: the payload before the (forged) flag, as a sender would. */
	virt_store_release(&slot->flag, fa_forge_flag(c, fa->ring.seq));
	fa->ring.seq++;
}

/* forge: each case on a fresh connection; the backend must close it. */
static void fa_forge(struct fa_dev *fa)
{
	unsigned int c, closed = 0, n = ARRAY_SIZE(fa_forge_cases);
	enum xenbus_state s;
	ktime_t t0;
	int ms;

	pr_info("@@FIPC-ATTACK forge start cases=%u\n", n);
	for (c = 0; c < n && !fa_stopping(fa); c++) {
		if (fa_connect(fa, NULL, 30000) != XenbusStateConnected) {
			pr_info("@@FIPC-ATTACK forge case %u %s connect-failed\n",
				c, fa_forge_cases[c]);
			if (fa->have_chan)
				fa_disconnect(fa);
			continue;
		}
		t0 = ktime_get();
		fa_forge_write(fa, c);
		notify_remote_via_evtchn(fa->port);
		s = fa_wait(fa, BIT(XenbusStateClosing) | BIT(XenbusStateClosed), 10000);
		ms = ktime_ms_delta(ktime_get(), t0);
		if (s == XenbusStateClosing || s == XenbusStateClosed)
			closed++;
		pr_info("@@FIPC-ATTACK forge case %u %s backend=%s ms=%d\n", c,
			fa_forge_cases[c], xenbus_strstate(s), ms);
		fa_disconnect(fa);
	}
	pr_info("@@FIPC-ATTACK forge done cases=%u closed=%u busy_grants=%u\n",
		n, closed, fa->busy_grants);
}

/*
 * rebind: connect, fill the ring, close, over and over, while
 * dom0 unbinds and binds the backend device.  A connection the backend
 * dropped meanwhile is counted (lost); whatever happened, once the
 * backend is Closed again every grant must end at once (busy_grants).
 */
static void fa_rebind(struct fa_dev *fa)
{
	unsigned int rounds = 0, connected = 0, lost = 0, sent = 0, n;
	unsigned long end = jiffies + seconds * HZ;

	pr_info("@@FIPC-ATTACK rebind start seconds=%u\n", seconds);
	while (time_before(jiffies, end) && !fa_stopping(fa)) {
		rounds++;
		if (fa_connect(fa, NULL, 3000) == XenbusStateConnected) {
			connected++;
			n = fa_top_up(fa);
			fa_kick(fa);
			sent += n;
			/* Close at once, or with the requests answered. */
			fa_sleep(fa, 25 * (rounds % 4));
			if (fa_backend(fa) != XenbusStateConnected)
				lost++;
		}
		if (fa->have_chan)
			fa_disconnect(fa);
	}
	pr_info("@@FIPC-ATTACK rebind done rounds=%u connected=%u lost=%u requests=%u busy_grants=%u\n",
		rounds, connected, lost, sent, fa->busy_grants);
}

/* The modes the parameter "mode" may name. */
static const struct fa_mode {
	const char *name;
	void (*run)(struct fa_dev *fa);
} fa_modes[] = {
	{ "noreap", fa_noreap },
	{ "storm", fa_storm },
	{ "xsbad", fa_xsbad },
	{ "cycle", fa_cycle },
	{ "closebusy", fa_closebusy },
	{ "forge", fa_forge },
	{ "rebind", fa_rebind },
};

/* The mode that "mode" names, or NULL if none does. */
static const struct fa_mode *fa_find_mode(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fa_modes); i++)
		if (!strcmp(mode, fa_modes[i].name))
			return &fa_modes[i];
	return NULL;
}

static int fa_thread(void *arg)
{
	struct fa_dev *fa = arg;

	if (wait_go)
		pr_info("@@FIPC-ATTACK %s waiting\n", mode);
	if (!wait_go || fa_wait_go(fa, mode))
		fa_find_mode()->run(fa);	/* fa_init() checked it */
	/* dom0 takes its counters before we may be unbound. */
	if (wait_go && fa_wait_go(fa, "release"))
		pr_info("@@FIPC-ATTACK %s released\n", mode);
	/* Stay as we are until unbound. */
	while (!kthread_should_stop())
		schedule_timeout_idle(HZ);
	return 0;
}

static int fa_probe(struct xenbus_device *dev,
		    const struct xenbus_device_id *id)
{
	struct fa_dev *fa;

	fa = kzalloc_obj(*fa, GFP_KERNEL);
	if (!fa)
		return -ENOMEM;
	fa->dev = dev;
	dev_set_drvdata(&dev->dev, fa);
	fa->task = kthread_create(fa_thread, fa, "fipc-attack");
	if (IS_ERR(fa->task)) {
		int err = PTR_ERR(fa->task);

		kfree(fa);
		dev_set_drvdata(&dev->dev, NULL);
		return err;
	}
	pr_info("@@FIPC-ATTACK %s bound %s backend %s\n", mode,
		dev->nodename, dev->otherend);
	wake_up_process(fa->task);
	return 0;
}

static void fa_remove(struct xenbus_device *dev)
{
	struct fa_dev *fa = dev_get_drvdata(&dev->dev);
	enum xenbus_state s;
	int ms = -1;

	kthread_stop(fa->task);
	fa->task = NULL;
	if (fa->have_chan) {
		ms = fa_disconnect(fa);
	} else {
		xenbus_switch_state(dev, XenbusStateClosed);
		fa_wait(fa, BIT(XenbusStateInitWait), 10000);
	}
	s = fa_backend(fa);
	pr_info("@@FIPC-ATTACK %s removed closed_ms=%d busy_grants=%u backend=%s\n",
		mode, ms, fa->busy_grants, xenbus_strstate(s));
	dev_set_drvdata(&dev->dev, NULL);
	kfree(fa);
}

static void fa_backend_changed(struct xenbus_device *dev,
			       enum xenbus_state state)
{
	/* The thread polls the backend's state. */
}

static const struct xenbus_device_id fa_ids[] = {
	{ "fipcblk" },
	{ "" }
};

static struct xenbus_driver fa_driver = {
	.ids = fa_ids,
	.probe = fa_probe,
	.remove = fa_remove,
	.otherend_changed = fa_backend_changed,
	.not_essential = true,
};

static bool fa_registered;

static int __init fa_init(void)
{
	int err;

	if (!xen_domain())
		return -ENODEV;
	if (ring_order > FIPCBLK_RING_MAX_ORDER)
		return -EINVAL;
	if (!strcmp(mode, "none")) {
		pr_info("mode none: not binding any device\n");
		return 0;
	}
	if (!fa_find_mode()) {
		pr_err("unknown mode %s\n", mode);
		return -EINVAL;
	}
	err = xenbus_register_frontend(&fa_driver);
	fa_registered = !err;
	return err;
}

static void __exit fa_exit(void)
{
	if (fa_registered)
		xenbus_unregister_driver(&fa_driver);
}

module_init(fa_init);
module_exit(fa_exit);

MODULE_DESCRIPTION("Hostile fipcblk frontend for the fipc testbed (test only)");
MODULE_LICENSE("GPL");
