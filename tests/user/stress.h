/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two-thread stress test's files share (stress.c: the variants
 * and main(); stress_duplex.c: the duplex ring's client and server): the
 * message format, its checks, pinning, backing off, and the progress
 * watchdog.
 */
#ifndef _FIPC_TESTS_STRESS_H
#define _FIPC_TESTS_STRESS_H

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fipc/fipc.h>
#include <fipc/fipc_duplex.h>

#define WATCHDOG_SECS	120
#define HDR_SEQ		0	/* u64 message number */
#define HDR_HASH	8	/* u64 hash of every other byte */
#define HDR_END		16

/**
 * struct variant - one stress configuration
 * @name: printed on the result line
 * @order: ring order
 * @batch: the server's acknowledgment batch, 0 for the default
 */
struct variant {
	const char *name;
	unsigned int order;
	unsigned int batch;
};

/**
 * struct stats - what one thread did, to show that the mix happened
 * @multi: multi-slot messages
 * @eagain: sends that found the ring full
 * @slots: slots moved
 * @posted: posted requests
 * @reordered: replies sent or received out of call order
 */
struct stats {
	u64 multi;
	u64 eagain;
	u64 slots;
	u64 posted;
	u64 reordered;
};

/**
 * struct stress - one run
 * @v: the variant
 * @nmsgs: messages to send
 * @req_mem: memory of the duplex ring
 * @dc: the client (the first thread's end)
 * @ds: the server (the second thread's end)
 * @cpu: the CPUs to pin to, -1 for none
 * @progress: messages handled per thread, for the watchdog
 * @done: thread finished
 * @stop: set to make both threads give up
 * @failed: a thread found a bad message
 * @why: the first failure
 * @st: per-thread statistics
 */
struct stress {
	const struct variant *v;
	u64 nmsgs;
	void *req_mem;
	struct fipc_duplex_client dc;
	struct fipc_duplex_server ds;
	int cpu[2];
	u64 progress[2];
	int done[2];
	int stop;
	int failed;
	char why[256];
	struct stats st[2];
};

static inline u64 splitmix64(u64 *x)
{
	u64 z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Length in slots of message @seq: mostly 1, some 2..4, a few to 32. */
static inline unsigned int msg_len(u64 seq)
{
	u64 x = seq * 0x2545f4914f6cdd1dull;
	u64 r = splitmix64(&x);
	unsigned int p = r % 100;

	if (p < 70)
		return 1;
	if (p < 92)
		return 2 + (r >> 8) % 3;
	return 5 + (r >> 8) % (FIPC_MSG_MAX_SLOTS - 4);
}

static inline u64 mix(u64 h, u64 w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/*
 * A 64-bit hash of the message, word by word, the hash field itself
 * excepted; every byte and its position counts.
 */
static inline u64 msg_hash(const struct fipc_msg *m, unsigned int len)
{
	u64 h = 0xcbf29ce484222325ull ^ len, w;
	unsigned int i, j;
	u32 tail;

	for (i = 0; i < len; i++) {
		for (j = 0; j + 8 <= FIPC_SLOT_PAYLOAD; j += 8) {
			if (!i && j == HDR_HASH)
				continue;
			memcpy(&w, m[i].data + j, sizeof(w));
			h = mix(h, w);
		}
		memcpy(&tail, m[i].data + j, sizeof(tail));
		h = mix(h, tail ^ ((u64)i << 32));
	}
	return h;
}

static inline void msg_make(struct fipc_msg *m, u64 seq)
{
	unsigned int len = msg_len(seq), i, j;
	u64 x = seq, h, r = 0;

	for (i = 0; i < len; i++) {
		for (j = 0; j < FIPC_SLOT_PAYLOAD; j++) {
			if (!(j & 7))
				r = splitmix64(&x);
			m[i].data[j] = (u8)(r >> (8 * (j & 7)));
		}
	}
	memcpy(m[0].data + HDR_SEQ, &seq, sizeof(seq));
	h = msg_hash(m, len);
	memcpy(m[0].data + HDR_HASH, &h, sizeof(h));
}

static inline void fail(struct stress *s, const char *fmt, long long a, long long b)
{
	if (!__atomic_exchange_n(&s->failed, 1, __ATOMIC_ACQ_REL))
		snprintf(s->why, sizeof(s->why), fmt, a, b);
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
}

static inline bool stopped(struct stress *s)
{
	return __atomic_load_n(&s->stop, __ATOMIC_ACQUIRE);
}

/* Check a received message of @len slots against the expected @seq. */
static inline bool msg_check(struct stress *s, const struct fipc_msg *m,
			     int len, u64 seq)
{
	u64 got_seq, got_hash;

	if (len != (int)msg_len(seq)) {
		fail(s, "message %lld: %lld slots", seq, len);
		return false;
	}
	memcpy(&got_seq, m[0].data + HDR_SEQ, sizeof(got_seq));
	memcpy(&got_hash, m[0].data + HDR_HASH, sizeof(got_hash));
	if (got_seq != seq) {
		fail(s, "expected message %lld, got %lld", seq, got_seq);
		return false;
	}
	if (got_hash != msg_hash(m, len)) {
		fail(s, "message %lld: bad hash %llx", seq, got_hash);
		return false;
	}
	return true;
}

/* Yield now and then while spinning on a full ring. */
static inline void backoff(unsigned int *spins)
{
	if (++*spins % 256)
		cpu_relax();
	else
		sched_yield();
}

/* The waiter's sleep hook: let the other thread run, or give up. */
static inline int stress_sleep(void *arg)
{
	struct stress *s = arg;

	sched_yield();
	return stopped(s) ? -ECANCELED : 0;
}

static inline void pin(struct stress *s, int who)
{
	cpu_set_t set;

	if (s->cpu[who] < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(s->cpu[who], &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		fail(s, "thread %lld: cannot set affinity to CPU %lld", who,
		     s->cpu[who]);
}

/* The first two CPUs this process may run on, or -1s. */
static inline void pick_cpus(int cpu[2])
{
	cpu_set_t set;
	int i, n = 0;

	cpu[0] = -1;
	cpu[1] = -1;
	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) < 2)
		return;
	for (i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &set))
			cpu[n++] = i;
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Wait for both threads, failing the run (and the process, so that a
 * hung thread cannot hang the suite) when neither has made progress for
 * WATCHDOG_SECS.
 */
static inline void stress_watch(struct stress *s, const char *suite)
{
	u64 last = ~0ull, cur;
	double idle_since = now();
	int i;

	while (!__atomic_load_n(&s->done[0], __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&s->done[1], __ATOMIC_ACQUIRE)) {
		usleep(50000);
		cur = __atomic_load_n(&s->progress[0], __ATOMIC_RELAXED) +
		      __atomic_load_n(&s->progress[1], __ATOMIC_RELAXED);
		if (cur != last) {
			last = cur;
			idle_since = now();
		} else if (now() - idle_since > WATCHDOG_SECS) {
			fail(s, "watchdog: no progress for %lld s at %lld",
			     WATCHDOG_SECS, cur);
			for (i = 0; i < 100; i++) {
				if (__atomic_load_n(&s->done[0],
						    __ATOMIC_ACQUIRE) &&
				    __atomic_load_n(&s->done[1],
						    __ATOMIC_ACQUIRE))
					break;
				usleep(100000);
			}
			printf("FAIL %s: %s: %s\n", suite, s->v->name, s->why);
			printf("0 passed, 1 failed\n");
			fflush(stdout);
			_exit(1);
		}
	}
}

bool run_duplex_variant(const char *suite, const struct variant *v,
			u64 nmsgs);

#endif /* _FIPC_TESTS_STRESS_H */
