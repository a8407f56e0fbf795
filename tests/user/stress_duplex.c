// SPDX-License-Identifier: GPL-2.0
/*
 * Two-thread stress test of the fipc duplex ring: a client thread sends
 * the stream of stress.h's messages, every fifth one posted and the
 * others as calls, and a server thread checks each request's order,
 * length and content and answers the calls in random order, a few held
 * back at a time.  The client checks that every reply answers one of
 * its calls still waiting (the id check a caller does) and carries the
 * content made for that call, and that every call gets exactly one.
 */
#include "stress.h"

#define REPLY_SALT	0x5bd1e9955bd1e995ull

/* Every fifth message expects no reply. */
static bool dx_posted(u64 seq)
{
	return seq % 5 == 3;
}

/* The one-slot reply to call @seq: its id, a pattern, a hash. */
static void dx_reply_make(struct fipc_msg *m, u64 seq)
{
	u64 x = seq ^ REPLY_SALT, r = 0, h;
	unsigned int j;

	for (j = 0; j < FIPC_SLOT_PAYLOAD; j++) {
		if (!(j & 7))
			r = splitmix64(&x);
		m->data[j] = (u8)(r >> (8 * (j & 7)));
	}
	memcpy(m->data + HDR_SEQ, &seq, sizeof(seq));
	h = msg_hash(m, 1);
	memcpy(m->data + HDR_HASH, &h, sizeof(h));
}

static bool bit_test_clear(u8 *map, u64 n)
{
	bool was = map[n / 8] & (1u << (n % 8));

	map[n / 8] &= ~(1u << (n % 8));
	return was;
}

/*
 * A reply taken by the client: the id must be a call still waiting, the
 * content what the server makes for it.  Returns the id, or ~0 if bad.
 */
static u64 dx_reply_check(struct stress *s, const struct fipc_msg *m,
			  u8 *waiting)
{
	struct fipc_msg want;
	u64 seq;

	memcpy(&seq, m->data + HDR_SEQ, sizeof(seq));
	if (seq >= s->nmsgs || !bit_test_clear(waiting, seq)) {
		fail(s, "reply to %lld, not a waiting call (%lld)", seq, 0);
		return ~0ull;
	}
	dx_reply_make(&want, seq);
	if (memcmp(m, &want, sizeof(want))) {
		fail(s, "reply to %lld: bad content %lld", seq, 0);
		return ~0ull;
	}
	return seq;
}

static void *dx_client(void *arg)
{
	struct fipc_msg m[FIPC_MSG_MAX_SLOTS], r;
	struct stress *s = arg;
	struct stats *st = &s->st[0];
	u64 sent = 0, calls = 0, replies = 0, oldest = 0, seq;
	u8 *waiting = calloc(s->nmsgs / 8 + 1, 1);
	struct fipc_waiter w;
	unsigned int len;
	bool moved;
	int ret;

	pin(s, 0);
	if (!waiting || fipc_waiter_init(&w, fipc_wait_best_method(), 256,
					 stress_sleep, s))
		fail(s, "client set-up %lld%.0lld", 0, 0);
	while ((sent < s->nmsgs || replies < calls) && !stopped(s)) {
		moved = false;
		if (sent < s->nmsgs) {
			len = msg_len(sent);
			msg_make(m, sent);
			ret = dx_posted(sent) ?
			      fipc_duplex_post(&s->dc, m, len) :
			      fipc_duplex_call(&s->dc, m, len);
			if (!ret) {
				if (dx_posted(sent)) {
					st->posted++;
				} else {
					waiting[sent / 8] |= 1u << (sent % 8);
					calls++;
				}
				st->multi += len > 1;
				st->slots += len;
				sent++;
				moved = true;
			} else if (ret == -EAGAIN) {
				st->eagain++;
			} else {
				fail(s, "client send: %lld at %lld", ret, sent);
			}
		}
		while ((ret = fipc_duplex_take_reply(&s->dc, &r)) == 0) {
			seq = dx_reply_check(s, &r, waiting);
			if (seq == ~0ull)
				break;
			/* the oldest call still waiting */
			while (oldest < sent &&
			       (dx_posted(oldest) ||
				!(waiting[oldest / 8] & (1u << (oldest % 8)))))
				oldest++;
			st->reordered += seq > oldest;
			replies++;
			moved = true;
		}
		if (ret && ret != -EAGAIN)
			fail(s, "take_reply: %lld after %lld", ret, replies);
		if (!moved && !stopped(s)) {
			ret = fipc_duplex_client_wait(&s->dc, &w);
			if (ret && ret != -ECANCELED)
				fail(s, "client wait: %lld at %lld", ret, sent);
		}
		__atomic_store_n(&s->progress[0], sent + replies,
				 __ATOMIC_RELAXED);
	}
	free(waiting);
	__atomic_store_n(&s->done[0], 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *dx_server(void *arg)
{
	struct fipc_msg m[FIPC_MSG_MAX_SLOTS];
	struct stress *s = arg;
	struct stats *st = &s->st[1];
	u32 cap = FIPC_RING_SLOTS(s->v->order), n = 0, i;
	u64 *pending = calloc(cap, sizeof(*pending));
	u64 got = 0, rng = 0x2545f4914f6cdd1dull;
	struct fipc_waiter w;
	bool moved, posted;
	int ret;

	pin(s, 1);
	if (!pending || fipc_waiter_init(&w, fipc_wait_best_method(), 256,
					 stress_sleep, s))
		fail(s, "server set-up %lld%.0lld", 0, 0);
	while ((got < s->nmsgs || n) && !stopped(s)) {
		moved = false;
		if (got < s->nmsgs) {
			ret = fipc_duplex_take_request(&s->ds, m,
						       FIPC_MSG_MAX_SLOTS,
						       &posted);
			if (ret > 0) {
				if (!msg_check(s, m, ret, got))
					break;
				if (posted != dx_posted(got)) {
					fail(s, "message %lld: posted %lld",
					     got, posted);
					break;
				}
				if (!posted) {
					if (n == cap) {
						fail(s, "more than %lld calls at %lld",
						     cap, got);
						break;
					}
					pending[n++] = got;
				}
				st->posted += posted;
				st->multi += ret > 1;
				st->slots += ret;
				got++;
				moved = true;
			} else if (ret != -EAGAIN) {
				fail(s, "take_request: %lld at %lld", ret, got);
				break;
			}
		}
		/* Answer one in random order: a few wait, or none came. */
		if (n && (n > splitmix64(&rng) % 8 || !moved)) {
			i = splitmix64(&rng) % n;
			st->reordered += i != 0;
			dx_reply_make(m, pending[i]);
			pending[i] = pending[--n];
			ret = fipc_duplex_reply(&s->ds, m);
			if (ret) {
				fail(s, "reply: %lld at %lld", ret, got);
				break;
			}
			moved = true;
		}
		if (!moved && !stopped(s)) {
			ret = fipc_duplex_server_wait(&s->ds, &w);
			if (ret && ret != -ECANCELED)
				fail(s, "server wait: %lld at %lld", ret, got);
		}
		__atomic_store_n(&s->progress[1], got, __ATOMIC_RELAXED);
	}
	free(pending);
	__atomic_store_n(&s->done[1], 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Nothing left over: every position back with the client. */
static bool dx_drained(struct stress *s)
{
	struct fipc_msg r;

	fipc_duplex_server_flush(&s->ds);
	if (fipc_duplex_take_reply(&s->dc, &r) != -EAGAIN ||
	    fipc_duplex_room(&s->dc) != FIPC_RING_SLOTS(s->v->order) ||
	    fipc_duplex_calls(&s->dc) || fipc_duplex_unanswered(&s->ds) ||
	    fipc_duplex_request_ready(&s->ds) ||
	    fipc_duplex_take_request(&s->ds, &r, 1, NULL) != -EAGAIN) {
		snprintf(s->why, sizeof(s->why), "messages left over");
		return false;
	}
	return true;
}

/**
 * run_duplex_variant() - one duplex stress run
 * @suite: the suite name on the result line
 * @v: the variant
 * @nmsgs: messages the client sends
 *
 * Return: true if every message and every reply arrived intact.
 */
bool run_duplex_variant(const char *suite, const struct variant *v,
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
	if (!s->req_mem)
		goto out;
	fipc_ring_clear(s->req_mem, v->order);
	if (fipc_duplex_client_init(&s->dc, s->req_mem, v->order) ||
	    fipc_duplex_server_init(&s->ds, s->req_mem, v->order) ||
	    (v->batch && fipc_duplex_set_ack_batch(&s->ds, v->batch))) {
		snprintf(s->why, sizeof(s->why), "ring set-up failed");
		goto out;
	}
	t0 = now();
	if (pthread_create(&th[0], NULL, dx_client, s))
		goto out;
	if (pthread_create(&th[1], NULL, dx_server, s)) {
		fail(s, "pthread_create %lld%.0lld", 1, 0);
		pthread_join(th[0], NULL);
		goto out;
	}
	stress_watch(s, suite);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	if (s->failed || !dx_drained(s))
		goto out;
	/* the mix must really have happened */
	if (!s->st[0].multi || !s->st[0].posted || !s->st[0].reordered ||
	    !s->st[1].reordered || s->st[1].posted != s->st[0].posted) {
		snprintf(s->why, sizeof(s->why),
			 "no multi-slot, posted or reordered messages");
		goto out;
	}
	ok = true;
	printf("    %s: %llu msgs (%llu slots, %llu posted) in %.1f s\n",
	       v->name, (unsigned long long)nmsgs,
	       (unsigned long long)s->st[1].slots,
	       (unsigned long long)s->st[1].posted, now() - t0);
	printf("    client: %llu multi, %llu full, %llu replies out of order\n",
	       (unsigned long long)s->st[0].multi,
	       (unsigned long long)s->st[0].eagain,
	       (unsigned long long)s->st[0].reordered);
	printf("    server: %llu replies out of order\n",
	       (unsigned long long)s->st[1].reordered);
out:
	printf("%s %s: %s order=%u ack_batch=%u%s\n", ok ? "ok  " : "FAIL",
	       suite, v->name, v->order, s->ds.ack_batch, ok ? "" : ":");
	if (!ok)
		printf("    %s\n", s->why);
	fflush(stdout);
	free(s->req_mem);
	free(s);
	return ok;
}
