// SPDX-License-Identifier: GPL-2.0
/*
 * Two-thread stress test of the fipc ring library.
 *
 * A producer thread and a consumer thread, pinned to two CPUs where the
 * machine has them, exchange a long stream of messages.  Every message
 * carries its sequence number and a 64-bit hash of all its bytes; its
 * length in slots is a function of the sequence number, so the receiver
 * checks order, length and content of each one.  Single messages, bursts
 * and multi-slot messages are mixed.  In the echo variants the consumer
 * sends every message back on a second ring (a channel), and the
 * producer checks the echoes the same way.  The duplex variants are in
 * stress_duplex.c.
 *
 * Nothing here depends on timing: a watchdog only fails the test, with a
 * message, when neither thread has made progress for a long time.
 */
#include "stress.h"

/* Send @count messages from @seq on, as single, burst or multi-slot. */
static u64 send_some(struct stress *s, struct fipc_ring *tx, u64 seq,
		     u64 end, struct stats *st)
{
	struct fipc_msg m[FIPC_MSG_MAX_SLOTS + BURST_MAX];
	unsigned int n, len;
	int ret;

	len = msg_len(seq);
	if (len > 1) {
		msg_make(m, seq);
		ret = fipc_send(tx, m, len);
		if (ret == -EAGAIN) {
			st->eagain++;
			return seq;
		}
		if (ret) {
			fail(s, "fipc_send: %lld at %lld", ret, seq);
			return seq;
		}
		st->multi++;
		st->slots += len;
		return seq + 1;
	}
	/* a run of single-slot messages goes out as one burst */
	for (n = 0; n < BURST_MAX && seq + n < end &&
	     msg_len(seq + n) == 1; n++)
		msg_make(&m[n], seq + n);
	if (n == 1 && (seq & 1)) {
		ret = fipc_send(tx, m, 1);
		if (ret == -EAGAIN) {
			st->eagain++;
			return seq;
		}
		if (ret) {
			fail(s, "fipc_send: %lld at %lld", ret, seq);
			return seq;
		}
		st->slots++;
		return seq + 1;
	}
	ret = fipc_send_burst(tx, m, n);
	if (ret < 0) {
		fail(s, "fipc_send_burst: %lld at %lld", ret, seq);
		return seq;
	}
	if (!ret)
		st->eagain++;
	else if ((unsigned int)ret < n)
		st->partial++;
	if (ret > 1)
		st->bursts++;
	st->slots += ret;
	return seq + ret;
}

/*
 * Receive what is there, up to @end: a burst of single-slot messages,
 * or one message with fipc_recv() at a multi-slot head.  Each message is
 * checked and, if @echo is set, sent back on @echo.  Returns the next
 * expected sequence number; 0 messages means the ring was empty.
 */
static u64 recv_some(struct stress *s, struct fipc_ring *rx,
		     struct fipc_ring *echo, u64 seq, struct stats *st)
{
	struct fipc_msg m[FIPC_MSG_MAX_SLOTS];
	unsigned int i, spins = 0;
	int n, len, ret, sent;

	/* mostly bursts; every 5th time, or at a multi-slot head, one recv */
	n = (seq % 5) ? fipc_recv_burst(rx, m, (seq % 3) ? BURST_MAX : 1) : 0;
	if (n < 0) {
		fail(s, "fipc_recv_burst: %lld at %lld", n, seq);
		return seq;
	}
	if (n > 0) {
		if (n > 1)
			st->bursts++;
		for (i = 0; i < (unsigned int)n; i++)
			if (!msg_check(s, &m[i], 1, seq + i))
				return seq;
		st->slots += n;
		for (sent = 0; echo && sent < n && !stopped(s); ) {
			ret = fipc_send_burst(echo, m + sent, n - sent);
			if (ret < 0) {
				fail(s, "echo send_burst: %lld at %lld", ret,
				     seq);
				return seq;
			}
			if (!ret)
				backoff(&spins);
			sent += ret;
		}
		return seq + n;
	}
	len = fipc_recv(rx, m, FIPC_MSG_MAX_SLOTS);
	if (len == -EAGAIN)
		return seq;
	if (len < 0) {
		fail(s, "fipc_recv: %lld at %lld", len, seq);
		return seq;
	}
	if (!msg_check(s, m, len, seq))
		return seq;
	if (len > 1)
		st->multi++;
	st->slots += len;
	while (echo && !stopped(s)) {
		ret = fipc_send(echo, m, len);
		if (!ret)
			break;
		if (ret != -EAGAIN) {
			fail(s, "echo fipc_send: %lld at %lld", ret, seq);
			return seq;
		}
		backoff(&spins);
	}
	return seq + 1;
}

static void *producer(void *arg)
{
	struct stress *s = arg;
	struct stats *st = &s->st[0];
	u64 sent = 0, echoed = 0, next;
	unsigned int spins = 0;
	bool moved;

	pin(s, 0);
	while ((sent < s->nmsgs || (s->v->echo && echoed < s->nmsgs)) &&
	       !stopped(s)) {
		moved = false;
		if (sent < s->nmsgs) {
			next = send_some(s, &s->prod.tx, sent, s->nmsgs, st);
			moved = next != sent;
			sent = next;
		}
		if (s->v->echo) {
			next = recv_some(s, &s->prod.rx, NULL, echoed, st);
			moved |= next != echoed;
			echoed = next;
		}
		__atomic_store_n(&s->progress[0], sent + echoed,
				 __ATOMIC_RELAXED);
		if (!moved)
			backoff(&spins);
	}
	__atomic_store_n(&s->done[0], 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *consumer(void *arg)
{
	struct stress *s = arg;
	struct stats *st = &s->st[1];
	struct fipc_ring *echo = s->v->echo ? &s->cons.tx : NULL;
	struct fipc_waiter w;
	u64 got = 0, next;
	int ret;

	pin(s, 1);
	ret = fipc_waiter_init(&w, fipc_wait_best_method(), 256,
			       stress_sleep, s);
	if (ret)
		fail(s, "fipc_waiter_init: %lld%.0lld", ret, 0);
	while (got < s->nmsgs && !stopped(s)) {
		next = recv_some(s, &s->cons.rx, echo, got, st);
		if (next == got && !stopped(s)) {
			ret = fipc_wait_rx(&s->cons.rx, &w);
			if (ret && ret != -ECANCELED)
				fail(s, "fipc_wait_rx: %lld at %lld", ret,
				     got);
		}
		got = next;
		__atomic_store_n(&s->progress[1], got, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&s->done[1], 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool run_variant(const char *suite, const struct variant *v,
			u64 nmsgs)
{
	struct stress *s = calloc(1, sizeof(*s));
	pthread_t th[2];
	bool ok = false;
	double t0;

	if (!s)
		return false;
	s->v = v;
	s->nmsgs = nmsgs;
	pick_cpus(s->cpu);
	s->req_mem = aligned_alloc(FIPC_PAGE_BYTES, FIPC_RING_BYTES(v->order));
	s->rsp_mem = aligned_alloc(FIPC_PAGE_BYTES, FIPC_RING_BYTES(v->order));
	if (!s->req_mem || !s->rsp_mem)
		goto out;
	fipc_ring_clear(s->req_mem, v->order);
	fipc_ring_clear(s->rsp_mem, v->order);
	if (fipc_chan_init(&s->prod, s->req_mem, s->rsp_mem, v->order) ||
	    fipc_chan_init(&s->cons, s->rsp_mem, s->req_mem, v->order) ||
	    fipc_ring_set_release_batch(&s->prod.rx, v->batch) ||
	    fipc_ring_set_release_batch(&s->cons.rx, v->batch)) {
		snprintf(s->why, sizeof(s->why), "ring set-up failed");
		goto out;
	}
	if (s->cpu[0] < 0)
		printf("    %s: fewer than 2 CPUs, threads not pinned\n",
		       v->name);
	else
		printf("    %s: threads pinned to CPU %d and CPU %d\n",
		       v->name, s->cpu[0], s->cpu[1]);
	t0 = now();
	if (pthread_create(&th[0], NULL, producer, s))
		goto out;
	if (pthread_create(&th[1], NULL, consumer, s)) {
		fail(s, "pthread_create %lld%.0lld", 1, 0);
		pthread_join(th[0], NULL);
		goto out;
	}
	/* Watchdog: progress-based, generous, and it never hangs. */
	stress_watch(s, suite);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	if (s->failed)
		goto out;
	/* the mix must really have happened */
	if (!s->st[0].multi || !s->st[0].bursts || !s->st[1].multi ||
	    !s->st[1].bursts) {
		snprintf(s->why, sizeof(s->why), "no multi-slot or burst");
		goto out;
	}
	if (fipc_recv(&s->cons.rx, NULL, 0) != -EAGAIN ||
	    fipc_recv(&s->prod.rx, NULL, 0) != -EAGAIN) {
		snprintf(s->why, sizeof(s->why), "messages left over");
		goto out;
	}
	ok = true;
	printf("    %s: %llu msgs (%llu slots) in %.1f s\n",
	       v->name, (unsigned long long)nmsgs,
	       (unsigned long long)s->st[1].slots, now() - t0);
	printf("    tx: %llu bursts, %llu partial, %llu multi, %llu full\n",
	       (unsigned long long)s->st[0].bursts,
	       (unsigned long long)s->st[0].partial,
	       (unsigned long long)s->st[0].multi,
	       (unsigned long long)s->st[0].eagain);
	printf("    rx: %llu bursts, %llu multi\n",
	       (unsigned long long)s->st[1].bursts,
	       (unsigned long long)s->st[1].multi);
out:
	printf("%s %s: %s order=%u batch=%u%s\n", ok ? "ok  " : "FAIL",
	       suite, v->name, v->order, v->batch, ok ? "" : ":");
	if (!ok)
		printf("    %s\n", s->why);
	fflush(stdout);
	free(s->req_mem);
	free(s->rsp_mem);
	free(s);
	return ok;
}

static const struct variant variants[] = {
	{ "oneway-mixed", 2, 1, false, false },
	{ "oneway-batch", 0, 32, false, false },
	{ "echo-batch", 1, 16, true, false },
	{ "duplex-order2", 2, 0, false, true },
	{ "duplex-ack1", 0, 1, false, true },
};

int main(int argc, char **argv)
{
	const char *suite = "user-stress";
	unsigned int i, passed = 0, failed = 0;
	u64 nmsgs = 10000000;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i + 1 < (unsigned int)argc; i += 2) {
		if (!strcmp(argv[i], "--suite")) {
			suite = argv[i + 1];
		} else if (!strcmp(argv[i], "--msgs")) {
			nmsgs = strtoull(argv[i + 1], NULL, 0);
		} else {
			fprintf(stderr, "usage: %s [--suite NAME] [--msgs N]\n",
				argv[0]);
			return 2;
		}
	}
	if (nmsgs < 1000) {
		fprintf(stderr, "--msgs: at least 1000\n");
		return 2;
	}
	for (i = 0; i < ARRAY_SIZE(variants); i++) {
		if (variants[i].duplex ?
		    run_duplex_variant(suite, &variants[i], nmsgs) :
		    run_variant(suite, &variants[i], nmsgs))
			passed++;
		else
			failed++;
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
