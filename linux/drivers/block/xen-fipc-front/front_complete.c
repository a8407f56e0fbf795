// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: responses and completion.
 *
 * Runs in the poller threads (xff_pollers, <fipc/fipc_poller.h>, driven
 * by xff_poll_ops), or in a channel's event handler while its poller
 * sleeps (xff_irq_take()); a bit of the channel (rx_claim) lets one of
 * them at a time take responses.  Each response is copied out of the ring once
 * (fipc_duplex_take_reply()) and checked against the request it names: the
 * hardware queue, tag and generation in its id must match a request in
 * flight on this channel.  A response that matches nothing means a
 * broken or hostile backend: the channel is marked broken and the disk
 * disconnects (and reconnects) like after a ring protocol error
 * (xff_protocol_error(), front_chan.c).
 *
 * A request is completed only once the backend can no longer touch its
 * pages (xff_end_data(), moved here from front_submit.c, which calls it
 * on its failure path: submission calls completion, never the reverse).
 * One whose grants the backend still maps after answering (or after
 * closing) waits on the disk's stuck list, whatever it was, until
 * they are ended (then it fails with an I/O error), or until the disk is
 * removed (then the grant table keeps its pages until they are ended).
 */
#include <linux/blk-mq.h>
#include <linux/nospec.h>
#include <linux/ratelimit.h>
#include "front.h"

/* The bit of chan->rx_claim held by whoever takes responses. */
#define XFF_RX_CLAIMED	0

static struct xff_chan *xff_poll_chan(struct fipc_poll_entry *entry)
{
	return container_of(entry, struct xff_chan, poll);
}

static bool xff_rx_claim(struct xff_chan *chan)
{
	return !test_and_set_bit_lock(XFF_RX_CLAIMED, &chan->rx_claim);
}

static void xff_rx_release(struct xff_chan *chan)
{
	clear_bit_unlock(XFF_RX_CLAIMED, &chan->rx_claim);
}

/**
 * xff_set_sleeping() - publish our poller's sleeping state
 * @entry: the channel's poll entry
 * @sleeping: the new state
 */
static void xff_set_sleeping(struct fipc_poll_entry *entry, bool sleeping)
{
	WRITE_ONCE(xff_poll_chan(entry)->ctrl->front_sleeping,
		   sleeping ? 1 : 0);
}

/**
 * xff_has_work() - does a response wait on this channel
 * @entry: the channel's poll entry
 *
 * Return: true if the poller should look again before sleeping.
 */
static bool xff_has_work(struct fipc_poll_entry *entry)
{
	struct xff_chan *chan = xff_poll_chan(entry);

	return !chan->broken && xff_ring_pending(chan);
}

static blk_status_t xff_status(int status)
{
	switch (status) {
	case FIPCBLK_RSP_OKAY:
		return BLK_STS_OK;
	case FIPCBLK_RSP_EOPNOTSUPP:
		return BLK_STS_NOTSUPP;
	default:
		return BLK_STS_IOERR;
	}
}

/* The mean round trip moves an eighth of the way toward each new one. */
static void xff_rtt_learn(struct xff_chan *chan, u64 ns)
{
	u64 rtt = chan->rtt_ns;

	WRITE_ONCE(chan->rtt_ns, rtt - rtt / 8 + ns / 8);
}

/**
 * xff_end_data() - take the data pages of a request back from the backend
 * @info: the disk
 * @p: the request's data
 * @read_ok: the request if it is a READ that succeeded (staged or
 *	bounced data is copied into its pages), else NULL
 *
 * A page the backend still maps cannot be taken back: its grant stays in
 * @p->refs (those ended become INVALID_GRANT_REF) and the request must
 * not be completed, since its pages would go back to their owner while
 * the backend can still read or write them: the caller hands it to
 * xff_stuck_add(), which calls this again until every grant is ended.
 * Pfns need nothing; staging pages go back to their channel.
 *
 * Return: true if the backend can no longer touch the request's pages.
 */
bool xff_end_data(struct xff_info *info, struct xff_rq *p,
		  struct request *read_ok)
{
	bool ended = true;
	unsigned int i;

	if (p->data == XFF_DATA_PFNS) {
		/* pfns of the memshare path: nothing granted for this request. */
		if (read_ok)
			xff_memshare_dirty(read_ok);
		p->data = XFF_DATA_GRANTS;
		p->nrefs = 0;
		return true;
	}
	if (p->data == XFF_DATA_STAGED) {
		xff_staging_release(p->chan, p, read_ok);
		return true;
	}
	for (i = 0; i < p->nrefs; i++) {
		if (p->refs[i] == INVALID_GRANT_REF)
			continue;
		if (gnttab_try_end_foreign_access(p->refs[i]))
			p->refs[i] = INVALID_GRANT_REF;
		else
			ended = false;
	}
	if (!ended)
		return false;
	if (p->data == XFF_DATA_BOUNCE)
		xff_bounce_end(info, p, read_ok);
	p->data = XFF_DATA_GRANTS;
	p->nrefs = 0;
	return true;
}

static void xff_complete_one(struct xff_chan *chan,
			     const struct fipcblk_response *rsp, bool in_irq)
{
	struct xff_info *info = chan->info;
	unsigned int hwq = (rsp->id >> 16) & 0xffff;
	unsigned int tag = rsp->id & 0xffff;
	u32 gen = (rsp->id >> 32) & 0x7fffffff;
	struct fipc_poller *pl;
	struct xff_poll_lat *lat;
	struct request *rq;
	struct xff_rq *p;
	blk_status_t sts;
	u64 rtt;

	/* Only a test build sends them; elsewhere such an id is bad. */
	if (IS_ENABLED(CONFIG_XEN_FIPC_FRONT_INJECT) &&
	    unlikely(rsp->id & XFF_ID_INJECT)) {
		xff_inject_complete(chan, rsp);
		return;
	}
	if (hwq >= info->tag_set.nr_hw_queues ||
	    tag >= info->tag_set.queue_depth ||
	    &info->chans[hwq % info->nr_chans] != chan)
		goto bad;
	/* The backend chose both: no speculative read past the arrays. */
	hwq = array_index_nospec(hwq, info->tag_set.nr_hw_queues);
	tag = array_index_nospec(tag, info->tag_set.queue_depth);
	rq = blk_mq_tag_to_rq(info->tag_set.tags[hwq], tag);
	if (!rq)
		goto bad;
	p = blk_mq_rq_to_pdu(rq);
	if (!READ_ONCE(p->inflight) || p->chan != chan || p->gen != gen)
		goto bad;

	WRITE_ONCE(p->inflight, false);
	atomic_dec(&chan->inflight);
	rtt = ktime_get_ns() - p->t_sub;
	xff_rtt_learn(chan, rtt);
	pl = fipc_poll_entry_poller(&chan->poll);
	if (pl) {
		lat = fipc_poller_priv(pl);
		atomic64_inc(&lat->lat[fipc_poll_lat_bucket(rtt)]);
	}

	sts = xff_status(rsp->status);
	chan->st[XFF_COMPLETIONS]++;
	if (!xff_end_data(info, p,
			  !sts && req_op(rq) == REQ_OP_READ ? rq : NULL)) {
		chan->st[XFF_ERRORS]++;
		xff_stuck_add(info, rq);
		xff_protocol_error(chan, "data page still mapped after response");
		return;
	}
	if (sts)
		chan->st[XFF_ERRORS]++;
	if (in_irq) {
		/* On the submitting CPU where blk-mq wants it (locality). */
		p->sts = sts;
		blk_mq_complete_request(rq);
	} else {
		blk_mq_end_request(rq, sts);
	}
	return;

bad:
	chan->st[XFF_BAD_RESPONSES]++;
	xff_protocol_error(chan, "response matches no request in flight");
}

/**
 * xff_complete_rq() - blk-mq's ->complete() of a request answered in irq
 * @rq: the request, its data ended, its status in its driver data
 */
void xff_complete_rq(struct request *rq)
{
	struct xff_rq *p = blk_mq_rq_to_pdu(rq);

	blk_mq_end_request(rq, p->sts);
}

/*
 * Take and complete a burst of at most @max responses, with preemption
 * off: the guest's suspend (stop_machine(), then the last copy of its
 * memory in a save or a live migration) never falls between taking a
 * response and copying its data out of staging pages or touching the
 * pages of a READ by pfn (xff_memshare_dirty()), which the backend wrote
 * through mappings Xen's log-dirty mode does not see.  A response not yet
 * taken is the request's, sent again after the resume.  Nothing takes
 * one after the suspend and before xff_resume(): the pollers are frozen
 * first (xff_pollers.freezable, awake, so the event handler leaves the
 * responses to them), and a restore voids the event channels.
 */
static int xff_take_burst(struct xff_chan *chan, unsigned int max,
			  bool in_irq)
{
	struct fipcblk_response rsp;
	int n, i;

	preempt_disable();
	n = xff_ring_take(chan, max);
	for (i = 0; i < n && !chan->broken; i++) {
		memcpy(&rsp, chan->rxbuf[i].data, sizeof(rsp));
		xff_complete_one(chan, &rsp, in_irq);
	}
	preempt_enable();
	return n;
}

/* Take and complete up to @budget responses; the caller holds the claim. */
static int xff_take(struct xff_chan *chan, unsigned int budget, bool in_irq)
{
	int done = 0, n;

	if (unlikely(chan->broken))
		return 0;
	while (done < budget) {
		n = xff_take_burst(chan, min_t(unsigned int, XFF_RSP_BURST,
					       budget - done), in_irq);
		if (!n)
			break;
		if (n < 0) {
			xff_protocol_error(chan, "response ring corrupted");
			break;
		}
		done += n;
		if (n < XFF_RSP_BURST || chan->broken)
			break;
	}
	return done;
}

/**
 * xff_poll() - take the responses waiting on a channel
 * @entry: the channel's poll entry
 * @budget: most responses to take (poll_budget)
 *
 * Return: the number of responses taken (0 if none, or if the event
 * handler is taking them: it kicks us if it leaves any).
 */
static int xff_poll(struct fipc_poll_entry *entry, unsigned int budget)
{
	struct xff_chan *chan = xff_poll_chan(entry);
	int done;

	if (!xff_rx_claim(chan))
		return 0;
	done = xff_take(chan, budget, false);
	xff_rx_release(chan);
	return done;
}

/**
 * xff_irq_take() - the event handler takes responses while the poller sleeps
 * @entry: the poll entry of the channel whose event came, its poller
 *	asleep (fipc_poll_entry_irq())
 *
 * As blkfront completes in its interrupt handler, so that a lone sync
 * I/O whose answer takes longer than the poller would poll costs no
 * thread wake-up: up to XFF_IRQ_BUDGET responses are taken and
 * completed here (blk_mq_complete_request(), on the submitting CPU where
 * blk-mq wants it).  The poller is wanted only if more responses wait, or
 * if requests are still in flight: a stream, which it takes with no
 * notification at all while it polls.  A channel detached from its
 * poller is never touched here (xff_chans_quiesce()).
 *
 * Return: true if the event is dealt with; false if the poller must be
 * kicked (it is awake or taking responses, or there is more to take).
 */
static bool xff_irq_take(struct fipc_poll_entry *entry)
{
	struct xff_chan *chan = xff_poll_chan(entry);
	bool done;

	if (READ_ONCE(chan->broken) || !xff_rx_claim(chan))
		return false;
	chan->st[XFF_IRQ_COMPLETIONS] += xff_take(chan, XFF_IRQ_BUDGET, true);
	done = chan->broken || (!xff_ring_pending(chan) &&
				!atomic_read(&chan->inflight));
	xff_rx_release(chan);
	return done;
}

/**
 * xff_poller_wanted() - should a submitter wake our sleeping poller
 * @chan: the channel a request was just sent on
 *
 * Yes if other requests are in flight (a stream: the poller takes it
 * with no notification), or if the answer is expected within the
 * poller's shortest idle window (the channel's mean round trip is
 * shorter: a fast backend, where polling for it beats a notification and
 * an interrupt) but not before the poller can be running: a poller that
 * takes longer to wake than the backend takes to answer finds the answer
 * already taken by the event handler (the backend saw it asleep and
 * notified), then polls its window in vain on the CPU the submitter
 * wants back (fipc_poller_wake_ns(): under TCG, wake-ups of 100s of us
 * against round trips under 100 us).  Otherwise the event handler
 * answers alone (xff_irq_take()).
 *
 * Return: true to wake the poller.
 */
bool xff_poller_wanted(struct xff_chan *chan)
{
	u64 window_ns = (u64)READ_ONCE(xff_pollers.idle_us) * NSEC_PER_USEC;
	struct fipc_poller *pl = fipc_poll_entry_poller(&chan->poll);
	u64 rtt_ns = READ_ONCE(chan->rtt_ns);

	if (atomic_read(&chan->inflight) > 1)
		return true;
	return rtt_ns < window_ns && pl && fipc_poller_wake_ns(pl) < rtt_ns;
}

/* The latency histogram after each poller's line of poller_cpus. */
static int xff_poll_show(struct fipc_poller *pl, char *buf, size_t size)
{
	struct xff_poll_lat *lat = fipc_poller_priv(pl);
	u64 hist[FIPC_POLL_LAT_BUCKETS];
	unsigned int i;

	for (i = 0; i < FIPC_POLL_LAT_BUCKETS; i++)
		hist[i] = atomic64_read(&lat->lat[i]);
	return fipc_poll_lat_show(buf, size, "lat_us", hist);
}

/*
 * xff_wait() - the poller's short wait on its only channel
 * (fipc_poll_ops.wait): the duplex ring's client state is under tx_lock,
 * which a wait in hardware cannot hold, so the spin-loop hint only.
 */
static int xff_wait(struct fipc_poll_entry *entry, struct fipc_waiter *w)
{
	cpu_relax();
	return 0;
}

/* What the pollers of xff_pollers do with our channels. */
const struct fipc_poll_ops xff_poll_ops = {
	.poll = xff_poll,
	.set_sleeping = xff_set_sleeping,
	.has_work = xff_has_work,
	.wait = xff_wait,
	.show = xff_poll_show,
	.irq_take = xff_irq_take,
};

static bool xff_requeue_one(struct request *rq, void *data)
{
	struct xff_info *info = data;
	struct xff_rq *p = blk_mq_rq_to_pdu(rq);

	if (!READ_ONCE(p->inflight))
		return true;
	WRITE_ONCE(p->inflight, false);
	atomic_dec(&p->chan->inflight);
	p->chan->st[XFF_REQUEUED]++;
	xff_memshare_hold(info, rq);
	if (!xff_end_data(info, p, NULL))
		xff_stuck_add(info, rq);
	else if (info->removing)
		blk_mq_end_request(rq, BLK_STS_IOERR);
	else
		blk_mq_requeue_request(rq, false);
	return true;
}

/**
 * xff_requeue_inflight() - put back every request the backend never answered
 * @info: the disk, with its queue stopped and its channels quiesced
 *	(xff_chans_quiesce())
 *
 * They are sent again once the disk reconnects, or failed if the disk is
 * being removed.
 */
void xff_requeue_inflight(struct xff_info *info)
{
	if (!info->disk)
		return;
	blk_mq_tagset_busy_iter(&info->tag_set, xff_requeue_one, info);
}

/* How often the grants of stuck requests are tried again. */
#define XFF_STUCK_RETRY		HZ

/* A line a minute at most while requests stay stuck. */
static DEFINE_RATELIMIT_STATE(xff_stuck_rs, 60 * HZ, 1);

/* End what the grant table can still end, and let it keep the rest. */
static void xff_stuck_let_go(struct xff_info *info, struct xff_rq *p)
{
	unsigned int i;

	for (i = 0; i < p->nrefs; i++) {
		if (p->refs[i] == INVALID_GRANT_REF)
			continue;
		/*
		 * A bounce page goes to the grant table with our reference.
		 * With no page given, a grant still mapped gets a reference
		 * on its frame's page, dropped only once the grant is ended
		 * (6.1's gnttab_add_deferred()): the page is never freed
		 * while the backend maps it.
		 */
		if (p->data == XFF_DATA_BOUNCE)
			xff_bounce_let_go(info, p, i);
		else
			gnttab_end_foreign_access(p->refs[i], NULL);
		p->refs[i] = INVALID_GRANT_REF;
	}
	/* Every grant is ended now: the bounce pages left go back. */
	xff_end_data(info, p, NULL);
}

static void xff_stuck_retry(struct work_struct *work)
{
	struct xff_info *info = container_of(to_delayed_work(work),
					     struct xff_info, stuck_work);
	struct xff_rq *p, *next;
	LIST_HEAD(done);
	unsigned int left;
	bool force;

	spin_lock_irq(&info->stuck_lock);
	force = info->stuck_force;
	list_for_each_entry_safe(p, next, &info->stuck, stuck)
		if (force || xff_end_data(info, p, NULL))
			list_move_tail(&p->stuck, &done);
	list_for_each_entry(p, &done, stuck)
		info->stuck_waiting--;
	left = info->stuck_waiting;
	spin_unlock_irq(&info->stuck_lock);

	list_for_each_entry_safe(p, next, &done, stuck) {
		list_del_init(&p->stuck);
		if (force)
			xff_stuck_let_go(info, p);
		blk_mq_end_request(blk_mq_rq_from_pdu(p), BLK_STS_IOERR);
	}
	if (left) {
		if (__ratelimit(&xff_stuck_rs))
			dev_warn(&info->xbdev->dev,
				 "%u request(s) wait for the backend to unmap their pages\n",
				 left);
		schedule_delayed_work(&info->stuck_work, XFF_STUCK_RETRY);
	}
}

/**
 * xff_stuck_init() - an empty stuck list
 * @info: the disk, being probed
 */
void xff_stuck_init(struct xff_info *info)
{
	spin_lock_init(&info->stuck_lock);
	INIT_LIST_HEAD(&info->stuck);
	INIT_DELAYED_WORK(&info->stuck_work, xff_stuck_retry);
}

/**
 * xff_stuck_add() - keep a request whose pages the backend still maps
 * @info: the disk
 * @rq: the request, started, no longer in flight, xff_end_data() false
 *
 * The request is completed with an I/O error by the stuck work once all
 * its grants are ended (tried every second), or at the disk's removal.
 * Any context: the work does the rest.
 */
void xff_stuck_add(struct xff_info *info, struct request *rq)
{
	struct xff_rq *p = blk_mq_rq_to_pdu(rq);
	unsigned long flags;
	bool force;

	dev_alert_ratelimited(&info->xbdev->dev,
			      "backend still maps a page of request %u; it waits until the backend lets go\n",
			      rq->tag);
	spin_lock_irqsave(&info->stuck_lock, flags);
	list_add_tail(&p->stuck, &info->stuck);
	info->stuck_waiting++;
	info->stuck_total++;
	force = info->stuck_force;
	spin_unlock_irqrestore(&info->stuck_lock, flags);
	if (force)
		mod_delayed_work(system_wq, &info->stuck_work, 0);
	else
		schedule_delayed_work(&info->stuck_work, XFF_STUCK_RETRY);
}

/**
 * xff_stuck_force() - the disk is going away: stop waiting for the backend
 * @info: the disk, being removed
 *
 * Every stuck request, and any added from now on, is completed at once
 * (by the work) with the grants still mapped left to the grant table,
 * which holds their pages until the backend unmaps them: removal never
 * waits for a hostile backend, and no page it maps is freed.
 */
void xff_stuck_force(struct xff_info *info)
{
	spin_lock_irq(&info->stuck_lock);
	info->stuck_force = true;
	spin_unlock_irq(&info->stuck_lock);
	mod_delayed_work(system_wq, &info->stuck_work, 0);
}

/**
 * xff_stuck_exit() - the last of the stuck work
 * @info: the disk, removed: its requests have all completed
 */
void xff_stuck_exit(struct xff_info *info)
{
	cancel_delayed_work_sync(&info->stuck_work);
	WARN_ON_ONCE(!list_empty(&info->stuck));
}
