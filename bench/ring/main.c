// SPDX-License-Identifier: GPL-2.0
/*
 * Ring micro-benchmark driver: pins a client (this thread) and a server
 * thread on two CPUs, runs every ring through the same phases, round
 * after round so that a disturbance hits every ring alike, and prints a
 * table and a JSON record.  With -t it runs the correctness self-test.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include "bench.h"

static const unsigned int burst_sizes[] = { 1, 2, 4, 8, 16, 32, 64 };

#define NR_BURSTS	ARRAY_SIZE(burst_sizes)

static const struct bench_ring *const all_rings[] = {
	&bench_ring_floor, &bench_ring_duplex, &bench_ring_xen,
	&bench_ring_packed, &bench_ring_ptr, &bench_ring_cursors,
	&bench_ring_floor64, &bench_ring_virtio_packed, &bench_ring_nvme,
};

#define NR_RINGS	ARRAY_SIZE(all_rings)

/**
 * struct opts - command line
 * @cpu: client and server CPUs
 * @rtt_n: timed round trips per ring per round
 * @rtt_run: round trips timed together as one sample
 * @warm: untimed round trips (or batches) before each timed series
 * @batches: timed samples per burst size per ring per round, each of one
 *	batch or of as many as make @rtt_run messages
 * @stream_n: messages streamed per ring per round
 * @rounds: rounds
 * @rings: bit mask of the rings to run
 * @json: JSON output file, or NULL
 * @commit: git commit to record
 * @selftest: run the self-test instead
 */
struct opts {
	int cpu[2];
	unsigned int rtt_n;
	unsigned int rtt_run;
	unsigned int warm;
	unsigned int batches;
	u64 stream_n;
	unsigned int rounds;
	unsigned int rings;
	const char *json;
	const char *commit;
	bool selftest;
};

/* Round-trip samples per ring per round: each one a run of round trips. */
static unsigned int rtt_samples(const struct opts *o)
{
	return o->rtt_n / o->rtt_run;
}

/*
 * Batches of @size timed together as one sample: enough for the run's
 * messages (at least one batch), so that small bursts are timed as round
 * trips are.
 */
static unsigned int burst_run(unsigned int run, unsigned int size)
{
	return size >= run ? 1 : (run + size - 1) / size;
}

/**
 * struct ctl - hands one phase to the server thread
 * @gen: bumped by the client to start a phase
 * @ring: the ring, NULL to make the server thread exit
 * @mode: the server loop to run
 * @check: check message contents on the server
 * @done: set to @gen by the server at the end of the phase
 * @bad: bad messages the server saw in the phase
 */
struct ctl {
	u64 gen;
	const struct bench_ring *ring;
	enum bench_srv_mode mode;
	bool check;
	u64 done;
	u64 bad;
};

/**
 * struct result - pooled figures of one ring
 * @rtt: round-trip samples (cycles per round trip of a run), all rounds
 * @nrtt: samples in @rtt
 * @rtt_p50: the p50 of each round
 * @pair_ratio: each round's p50 over that of a short floor series run
 *	just before it (robust to the VM's vCPUs moving between rounds)
 * @burst: batch round trips per burst size, all rounds
 * @nburst: samples in each @burst
 * @stream_cycles: cycles of each round's stream
 * @chunks: cycles of each chunk of BENCH_CHUNK streamed messages
 * @nchunks: samples in @chunks
 */
struct result {
	u64 *rtt;
	size_t nrtt;
	u64 *rtt_p50;
	double *pair_ratio;
	u64 *burst[NR_BURSTS];
	size_t nburst;
	u64 *stream_cycles;
	u64 *chunks;
	size_t nchunks;
};

static struct ctl *ctl;
static double tsc_hz;

void *bench_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void bench_free(void *mem, size_t bytes)
{
	if (mem)
		munmap(mem, bytes);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *server_main(void *arg)
{
	u64 gen = 0, spins;
	int *cpu = arg;

	if (pin(*cpu))
		fprintf(stderr, "ring-bench: cannot pin server to CPU %d\n",
			*cpu);
	for (;;) {
		spins = 0;
		while (__atomic_load_n(&ctl->gen, __ATOMIC_ACQUIRE) == gen) {
			if (++spins < (1u << 16)) {
				bench_relax();
				continue;
			}
			usleep(20);
		}
		gen++;
		if (!ctl->ring)
			return NULL;
		ctl->bad = ctl->ring->server(ctl->mode, ctl->check);
		__atomic_store_n(&ctl->done, gen, __ATOMIC_RELEASE);
	}
}

static void phase_start(const struct bench_ring *ring,
			enum bench_srv_mode mode, bool check)
{
	ctl->ring = ring;
	ctl->mode = mode;
	ctl->check = check;
	__atomic_store_n(&ctl->gen, ctl->gen + 1, __ATOMIC_RELEASE);
}

/* Wait for the server to leave its loop; returns its bad count. */
static u64 phase_end(void)
{
	while (__atomic_load_n(&ctl->done, __ATOMIC_ACQUIRE) != ctl->gen)
		bench_relax();
	return ctl->bad;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Percentile of sorted samples, nearest rank. */
static u64 pct(const u64 *v, size_t n, double p)
{
	size_t i = (size_t)(p / 100.0 * (double)n);

	if (!n)
		return 0;
	return v[i < n ? i : n - 1];
}

static double to_ns(double cycles)
{
	return cycles * 1e9 / tsc_hz;
}

static void calibrate_tsc(void)
{
	struct timespec a, b, d = { .tv_nsec = 200000000 };
	u64 t0, t1;
	double ns;

	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	t0 = bench_tsc_start();
	nanosleep(&d, NULL);
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	t1 = bench_tsc_stop();
	ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	tsc_hz = (double)(t1 - t0) * 1e9 / ns;
}

static void read_line(const char *path, const char *key, char *buf,
		      size_t len)
{
	char line[512];
	FILE *f = fopen(path, "r");
	char *p;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (key && strncmp(line, key, strlen(key)))
			continue;
		p = key ? strchr(line, ':') : line - 2;
		if (!p)
			continue;
		p += 2;
		p[strcspn(p, "\n")] = '\0';
		snprintf(buf, len, "%s", p);
		break;
	}
	fclose(f);
}

/*
 * A short floor series, run just before a ring's round-trip series: the
 * VM's vCPUs can move on the host between rounds, which moves every
 * figure; a ratio to a floor taken moments before does not move much.
 */
static u64 paired_floor_p50(const struct opts *o)
{
	const struct bench_ring *fl = &bench_ring_floor;
	unsigned int n = rtt_samples(o) / 10 + 1000 / o->rtt_run;
	u64 *c = malloc(n * sizeof(*c)), p50 = 0;

	if (!c || fl->setup()) {
		free(c);
		return 0;
	}
	phase_start(fl, BENCH_SRV_ECHO, false);
	fl->rtt(0, o->warm, 1, NULL);
	fl->rtt(o->warm, n, o->rtt_run, c);
	fl->stop();
	phase_end();
	fl->teardown();
	qsort(c, n, sizeof(*c), cmp_u64);
	p50 = pct(c, n, 50);
	free(c);
	return p50;
}

/* The median of n samples, without reordering them. */
static u64 median_of(const u64 *v, size_t n)
{
	u64 *c = malloc(n * sizeof(*c)), m;

	if (!c)
		return 0;
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_u64);
	m = pct(c, n, 50);
	free(c);
	return m;
}

/* One round of one ring: every phase, samples stored at round r. */
static int run_ring(const struct bench_ring *ring, const struct opts *o,
		    struct result *res, unsigned int r)
{
	u64 seq = 0, bad = 0, *s, floor_p50 = 0;
	unsigned int i;

	if (ring != &bench_ring_floor)
		floor_p50 = paired_floor_p50(o);
	if (ring->setup())
		return -1;
	phase_start(ring, BENCH_SRV_ECHO, false);
	bad += ring->rtt(seq, o->warm, 1, NULL);
	seq += o->warm;
	s = res->rtt + (size_t)r * rtt_samples(o);
	bad += ring->rtt(seq, rtt_samples(o), o->rtt_run, s);
	seq += (u64)rtt_samples(o) * o->rtt_run;
	res->rtt_p50[r] = median_of(s, rtt_samples(o));
	res->pair_ratio[r] = floor_p50 ?
		(double)res->rtt_p50[r] / floor_p50 : 1.0;
	if (ring->has_burst) {
		for (i = 0; i < NR_BURSTS; i++) {
			unsigned int sz = burst_sizes[i];
			unsigned int warm = o->warm / sz + 1;
			unsigned int run = burst_run(o->rtt_run, sz);

			bad += ring->burst(seq, sz, warm, 1, NULL);
			seq += (u64)warm * sz;
			s = res->burst[i] + (size_t)r * o->batches;
			bad += ring->burst(seq, sz, o->batches, run, s);
			seq += (u64)o->batches * sz * run;
		}
	}
	ring->stop();
	bad += phase_end();
	ring->teardown();

	if (ring->has_burst && !ring->no_stream) {
		/* Fresh rings for the one-way stream, warmed first. */
		if (ring->setup())
			return -1;
		phase_start(ring, BENCH_SRV_SINK, false);
		ring->stream(0, o->warm * 10, false, NULL);
		bad += phase_end();
		phase_start(ring, BENCH_SRV_SINK, false);
		s = res->chunks + (size_t)r * (o->stream_n / BENCH_CHUNK);
		res->stream_cycles[r] = ring->stream(o->warm * 10,
						     o->stream_n, false, s);
		bad += phase_end();
		ring->teardown();
	}
	if (bad) {
		fprintf(stderr, "ring-bench: %s: %llu bad messages\n",
			ring->name, (unsigned long long)bad);
		return -1;
	}
	return 0;
}

static int self_test(void)
{
	unsigned int i, j, pass = 0, fail = 0;
	u64 bad, seq;

	for (i = 0; i < NR_RINGS; i++) {
		const struct bench_ring *ring = all_rings[i];

		if (ring->setup()) {
			printf("FAIL ring %s: setup\n", ring->name);
			fail++;
			continue;
		}
		phase_start(ring, BENCH_SRV_ECHO, true);
		bad = ring->rtt(0, 1000, 1, NULL);
		printf("%s ring %s: 1000 round trips in order and intact\n",
		       bad ? "FAIL" : "ok  ", ring->name);
		bad ? fail++ : pass++;
		bad = ring->rtt(1000, 125, 8, NULL);
		printf("%s ring %s: 125 runs of 8 round trips in order and intact\n",
		       bad ? "FAIL" : "ok  ", ring->name);
		bad ? fail++ : pass++;
		seq = 2000;
		for (j = 0; ring->has_burst && j < NR_BURSTS; j++) {
			unsigned int sz = burst_sizes[j];
			/* Enough batches to go round the ring three times. */
			unsigned int n = 3 * BENCH_RING_SLOTS / sz + 3;
			unsigned int run = burst_run(8, sz);

			bad = ring->burst(seq, sz, n, run, NULL);
			seq += (u64)n * sz * run;
			printf("%s ring %s: %u runs of %u bursts of %u in order and intact\n",
			       bad ? "FAIL" : "ok  ", ring->name, n, run, sz);
			bad ? fail++ : pass++;
		}
		ring->stop();
		bad = phase_end();
		printf("%s ring %s: server saw intact requests\n",
		       bad ? "FAIL" : "ok  ", ring->name);
		bad ? fail++ : pass++;
		ring->teardown();
		if (!ring->has_burst || ring->no_stream)
			continue;
		if (ring->setup()) {
			printf("FAIL ring %s: setup\n", ring->name);
			fail++;
			continue;
		}
		phase_start(ring, BENCH_SRV_SINK, true);
		ring->stream(5, 10000, true, NULL);
		bad = phase_end();
		printf("%s ring %s: 10000 one-way messages in order and intact\n",
		       bad ? "FAIL" : "ok  ", ring->name);
		bad ? fail++ : pass++;
		ring->teardown();
	}
	printf("%u passed, %u failed\n", pass, fail);
	return fail ? 1 : 0;
}

static void print_stats(const char *key, u64 *v, size_t n, FILE *j,
			bool last)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	fprintf(j, "    \"%s_cycles\": { \"min\": %llu, \"p50\": %llu, ",
		key, (unsigned long long)v[0],
		(unsigned long long)pct(v, n, 50));
	fprintf(j, "\"p90\": %llu, \"p99\": %llu, \"p999\": %llu },\n",
		(unsigned long long)pct(v, n, 90),
		(unsigned long long)pct(v, n, 99),
		(unsigned long long)pct(v, n, 99.9));
	fprintf(j, "    \"%s_ns\": { \"min\": %.1f, \"p50\": %.1f, ",
		key, to_ns(v[0]), to_ns(pct(v, n, 50)));
	fprintf(j, "\"p90\": %.1f, \"p99\": %.1f, \"p999\": %.1f }%s\n",
		to_ns(pct(v, n, 90)), to_ns(pct(v, n, 99)),
		to_ns(pct(v, n, 99.9)), last ? "" : ",");
}

/*
 * One-way rate from the median chunk: a chunk during which a thread was
 * preempted is an outlier and does not move the median.  With best, the
 * rate over the best whole round instead.
 */
static double stream_rate(const struct result *res, unsigned int rounds,
			  u64 n, bool best)
{
	u64 v[64];
	unsigned int i;

	if (!best) {
		qsort(res->chunks, res->nchunks, sizeof(u64), cmp_u64);
		return (double)BENCH_CHUNK * tsc_hz /
		       (double)pct(res->chunks, res->nchunks, 50);
	}
	for (i = 0; i < rounds && i < ARRAY_SIZE(v); i++)
		v[i] = res->stream_cycles[i];
	qsort(v, i, sizeof(*v), cmp_u64);
	return (double)n * tsc_hz / (double)v[0];
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_dbl(const double *v, unsigned int n)
{
	double c[64];
	unsigned int i;

	for (i = 0; i < n && i < ARRAY_SIZE(c); i++)
		c[i] = v[i];
	qsort(c, i, sizeof(*c), cmp_dbl);
	return i ? c[i / 2] : 0;
}

/**
 * struct paired - a ring's round-trip p50 over a reference ring's, round
 *	by round (both run in the same round), and the spread of those
 * @median: the median of the rounds' ratios
 * @lo: the lowest
 * @hi: the highest
 */
struct paired {
	double median, lo, hi;
};

static struct paired paired_ratio(const struct result *ring,
				  const struct result *ref,
				  unsigned int rounds)
{
	struct paired p = { 0, 0, 0 };
	double v[64];
	unsigned int r, n = 0;

	for (r = 0; r < rounds && n < ARRAY_SIZE(v); r++)
		if (ref->rtt_p50[r])
			v[n++] = (double)ring->rtt_p50[r] / ref->rtt_p50[r];
	if (!n)
		return p;
	qsort(v, n, sizeof(*v), cmp_dbl);
	p.median = v[n / 2];
	p.lo = v[0];
	p.hi = v[n - 1];
	return p;
}

/* Index of the ring (not the floor) with the lowest v, or the highest. */
static unsigned int best_ring(const struct opts *o, const double *v,
			      bool highest)
{
	unsigned int i, b = 0;

	for (i = 1; i < NR_RINGS; i++) {
		if (!(o->rings & (1u << i)))
			continue;
		if (!b || (highest ? v[i] > v[b] : v[i] < v[b]))
			b = i;
	}
	return b;
}

/* Index of the ring called @name if it was run, else -1. */
static int ring_index(const struct opts *o, const char *name)
{
	unsigned int i;

	for (i = 0; i < NR_RINGS; i++)
		if ((o->rings & (1u << i)) && !strcmp(all_rings[i]->name, name))
			return i;
	return -1;
}

/* The figures the project's targets are about, for a quick look. */
static void write_targets(FILE *j, const struct opts *o, const u64 *rtt_p50,
			  const double *pair, u64 (*burst_p50)[NR_BURSTS],
			  const double *oneway)
{
	int d = ring_index(o, "duplex"), pk = ring_index(o, "packed");
	double v[NR_RINGS];
	unsigned int i, k;

	fprintf(j, "  \"summary\": {\n");
	if (d >= 0) {
		if (rtt_p50[0])
			fprintf(j, "    \"duplex_rtt_p50_over_floor\": %.3f,\n",
				(double)rtt_p50[d] / rtt_p50[0]);
		fprintf(j, "    \"duplex_rtt_p50_over_paired_floor\": %.3f,\n",
			pair[d]);
	}
	/* Issue 15: the duplex ring against packed. */
	if (d >= 0 && pk >= 0 && rtt_p50[pk]) {
		fprintf(j, "    \"duplex_rtt_p50_over_packed\": %.3f,\n",
			(double)rtt_p50[d] / rtt_p50[pk]);
		fprintf(j, "    \"duplex_burst_over_packed\": {");
		for (k = 0; k < NR_BURSTS; k++)
			fprintf(j, "%s \"%u\": %.3f", k ? "," : "",
				burst_sizes[k], burst_p50[pk][k] ?
				(double)burst_p50[d][k] / burst_p50[pk][k] : 0);
		fprintf(j, " },\n");
	}
	for (i = 0; i < NR_RINGS; i++)
		v[i] = rtt_p50[i];
	fprintf(j, "    \"fastest_rtt_p50\": \"%s\",\n",
		all_rings[best_ring(o, v, false)]->name);
	fprintf(j, "    \"fastest_burst\": {");
	for (k = 0; k < NR_BURSTS; k++) {
		for (i = 0; i < NR_RINGS; i++)
			v[i] = burst_p50[i][k];
		fprintf(j, "%s \"%u\": \"%s\"", k ? "," : "",
			burst_sizes[k],
			all_rings[best_ring(o, v, false)]->name);
	}
	fprintf(j, " },\n    \"fastest_oneway\": \"%s\"\n  }\n",
		all_rings[best_ring(o, oneway, true)]->name);
}

static void report(const struct opts *o, struct result *res,
		   const char *load0, const char *load1, const char *date)
{
	char model[256], kernel[256];
	struct utsname u;
	unsigned int i, k;
	FILE *j = stdout;
	u64 floor_p50 = 0, rtt_p50[NR_RINGS] = { 0 };
	double pair[NR_RINGS] = { 0 };
	u64 burst_p50[NR_RINGS][NR_BURSTS] = { { 0 } };
	double oneway[NR_RINGS] = { 0 };
	int dx = ring_index(o, "duplex");

	read_line("/proc/cpuinfo", "model name", model, sizeof(model));
	snprintf(kernel, sizeof(kernel), "unknown");
	if (!uname(&u))
		snprintf(kernel, sizeof(kernel), "%s %s", u.sysname, u.release);

	/* Sorts every sample array: the table below reads sorted data. */
	if (o->json) {
		j = fopen(o->json, "w");
		if (!j) {
			perror(o->json);
			j = stdout;
		}
	}
	fprintf(j, "{\n  \"benchmark\": \"ring\",\n  \"date\": \"%s\",\n", date);
	fprintf(j, "  \"git_commit\": \"%s\",\n", o->commit);
	fprintf(j, "  \"machine\": { \"cpu_model\": \"%s\", ", model);
	fprintf(j, "\"kernel\": \"%s\", \"online_cpus\": %ld },\n", kernel,
		sysconf(_SC_NPROCESSORS_ONLN));
	fprintf(j, "  \"cpus\": [%d, %d],\n", o->cpu[0], o->cpu[1]);
	fprintf(j, "  \"tsc_hz\": %.0f,\n", tsc_hz);
	fprintf(j, "  \"loadavg_start\": \"%s\",\n  \"loadavg_end\": \"%s\",\n",
		load0, load1);
	fprintf(j, "  \"params\": { \"rounds\": %u, ", o->rounds);
	fprintf(j, "\"rtt_round_trips_per_round\": %u, \"rtt_run\": %u, ",
		o->rtt_n, o->rtt_run);
	fprintf(j, "\"rtt_samples_per_round\": %u, \"warmup\": %u, ",
		rtt_samples(o), o->warm);
	fprintf(j, "\"batches_per_round\": %u, ", o->batches);
	fprintf(j, "\"stream_msgs_per_round\": %llu, ",
		(unsigned long long)o->stream_n);
	fprintf(j, "\"ring_slots\": %u, \"msg_bytes\": %zu },\n",
		BENCH_RING_SLOTS, sizeof(struct bench_msg));
	for (i = 0; i < NR_RINGS; i++) {
		const struct bench_ring *ring = all_rings[i];
		struct result *rs = &res[i];

		if (!(o->rings & (1u << i)))
			continue;
		fprintf(j, "  \"%s\": {\n    \"rtt_p50_cycles_by_round\": [",
			ring->name);
		for (k = 0; k < o->rounds; k++)
			fprintf(j, "%s%llu", k ? ", " : "",
				(unsigned long long)rs->rtt_p50[k]);
		fprintf(j, "],\n    \"rtt_p50_over_paired_floor\": { \"by_round\": [");
		for (k = 0; k < o->rounds; k++)
			fprintf(j, "%s%.3f", k ? ", " : "", rs->pair_ratio[k]);
		pair[i] = median_dbl(rs->pair_ratio, o->rounds);
		fprintf(j, "], \"median\": %.3f },\n", pair[i]);
		fprintf(j, "    \"lines_per_exchange\": %u,\n",
			ring->lines_per_exchange);
		if (dx >= 0) {
			struct paired p = paired_ratio(rs, &res[dx], o->rounds);

			fprintf(j, "    \"rtt_p50_over_duplex_by_round\": ");
			fprintf(j, "{ \"median\": %.3f, ", p.median);
			fprintf(j, "\"min\": %.3f, \"max\": %.3f },\n",
				p.lo, p.hi);
		}
		print_stats("rtt", rs->rtt, rs->nrtt, j, !ring->has_burst);
		rtt_p50[i] = pct(rs->rtt, rs->nrtt, 50);
		if (i == 0)
			floor_p50 = pct(rs->rtt, rs->nrtt, 50);
		if (!ring->has_burst) {
			fprintf(j, "  },\n");
			continue;
		}
		for (k = 0; k < NR_BURSTS; k++) {
			qsort(rs->burst[k], rs->nburst, sizeof(u64), cmp_u64);
			burst_p50[i][k] = pct(rs->burst[k], rs->nburst, 50);
		}
		if (!ring->no_stream)
			oneway[i] = stream_rate(rs, o->rounds, o->stream_n,
						false);
		fprintf(j, "    \"burst_cycles_per_msg\": {");
		for (k = 0; k < NR_BURSTS; k++)
			fprintf(j, "%s \"%u\": %.1f", k ? "," : "",
				burst_sizes[k],
				(double)pct(rs->burst[k], rs->nburst, 50) /
				burst_sizes[k]);
		fprintf(j, " },\n    \"burst_ns_per_msg\": {");
		for (k = 0; k < NR_BURSTS; k++)
			fprintf(j, "%s \"%u\": %.1f", k ? "," : "",
				burst_sizes[k],
				to_ns((double)pct(rs->burst[k], rs->nburst,
						  50) / burst_sizes[k]));
		fprintf(j, " },\n    \"burst_min_cycles_per_msg\": {");
		for (k = 0; k < NR_BURSTS; k++)
			fprintf(j, "%s \"%u\": %.1f", k ? "," : "",
				burst_sizes[k],
				(double)rs->burst[k][0] / burst_sizes[k]);
		if (ring->no_stream) {
			fprintf(j, " },\n    \"oneway_msgs_per_s\": null\n  },\n");
			continue;
		}
		fprintf(j, " },\n    \"oneway_msgs_per_s\": ");
		fprintf(j, "{ \"median_chunk\": %.0f, \"best_round\": %.0f },\n",
			stream_rate(rs, o->rounds, o->stream_n, false),
			stream_rate(rs, o->rounds, o->stream_n, true));
		fprintf(j, "    \"oneway_cycles_per_msg\": %.1f\n  },\n",
			tsc_hz / oneway[i]);
	}
	write_targets(j, o, rtt_p50, pair, burst_p50, oneway);
	fprintf(j, "}\n");
	if (j != stdout)
		fclose(j);

	printf("ring micro-benchmark: %s, %s, CPUs %d and %d, TSC %.3f GHz\n",
	       model, kernel, o->cpu[0], o->cpu[1], tsc_hz / 1e9);
	printf("loadavg start: %s\nloadavg end:   %s\n", load0, load1);
	printf("%u rounds x %u round trips in runs of %u, ", o->rounds,
	       o->rtt_n, o->rtt_run);
	printf("%u samples per burst size, %llu streamed messages\n\n",
	       o->batches,
	       (unsigned long long)o->stream_n);
	printf("%-9s %-22s %-13s %-5s %-17s %-40s %s\n", "",
	       "round trip, cycles", "p50", "lines", "p50/duplex",
	       "cycles per message, burst of", "one-way");
	printf("%-9s %6s %6s %7s %7s %5s %5s %5s %17s", "ring", "min", "p50",
	       "p99", "ns", "/flr", "/pair", "exch", "median (lo-hi)");
	for (k = 0; k < NR_BURSTS; k++)
		printf(" %5u", burst_sizes[k]);
	printf(" %8s\n", "Mmsg/s");
	for (i = 0; i < NR_RINGS; i++) {
		const struct bench_ring *ring = all_rings[i];
		struct result *rs = &res[i];
		char paired_text[32];
		u64 p50;

		if (!(o->rings & (1u << i)))
			continue;
		p50 = pct(rs->rtt, rs->nrtt, 50);
		printf("%-9s %6llu %6llu %7llu %7.1f %5.2f %5.2f", ring->name,
		       (unsigned long long)rs->rtt[0],
		       (unsigned long long)p50,
		       (unsigned long long)pct(rs->rtt, rs->nrtt, 99),
		       to_ns(p50), floor_p50 ? (double)p50 / floor_p50 : 0,
		       median_dbl(rs->pair_ratio, o->rounds));
		printf(" %5u", ring->lines_per_exchange);
		paired_text[0] = 0;
		if (dx >= 0) {
			struct paired p = paired_ratio(rs, &res[dx], o->rounds);

			snprintf(paired_text, sizeof(paired_text),
				 "%.2f (%.2f-%.2f)", p.median, p.lo, p.hi);
		}
		printf(" %17s", paired_text);
		for (k = 0; ring->has_burst && k < NR_BURSTS; k++)
			printf(" %5.0f", (double)pct(rs->burst[k], rs->nburst,
						     50) / burst_sizes[k]);
		if (ring->has_burst && ring->no_stream)
			printf(" %8s", "n/a");
		else if (ring->has_burst)
			printf(" %8.2f", stream_rate(rs, o->rounds,
						     o->stream_n, false) / 1e6);
		printf("\n");
	}
	if (o->json)
		printf("\nwrote %s\n", o->json);
}

static int bench(const struct opts *o)
{
	static struct result res[NR_RINGS];
	char load0[128], load1[128], date[64];
	unsigned int i, k, r;
	time_t now = time(NULL);

	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	read_line("/proc/loadavg", NULL, load0, sizeof(load0));
	for (i = 0; i < NR_RINGS; i++) {
		res[i].nrtt = (size_t)rtt_samples(o) * o->rounds;
		res[i].rtt = calloc(res[i].nrtt, sizeof(u64));
		res[i].rtt_p50 = calloc(o->rounds, sizeof(u64));
		res[i].pair_ratio = calloc(o->rounds, sizeof(double));
		if (!res[i].pair_ratio)
			return 1;
		res[i].stream_cycles = calloc(o->rounds, sizeof(u64));
		res[i].nburst = (size_t)o->batches * o->rounds;
		res[i].nchunks = (size_t)(o->stream_n / BENCH_CHUNK) * o->rounds;
		res[i].chunks = calloc(res[i].nchunks, sizeof(u64));
		if (!res[i].chunks)
			return 1;
		for (k = 0; k < NR_BURSTS; k++) {
			res[i].burst[k] = calloc(res[i].nburst, sizeof(u64));
			if (!res[i].burst[k])
				return 1;
		}
		if (!res[i].rtt || !res[i].rtt_p50 || !res[i].stream_cycles)
			return 1;
	}
	for (r = 0; r < o->rounds; r++) {
		/* A different ring goes first each round. */
		for (k = 0; k < NR_RINGS; k++) {
			i = (k + r) % NR_RINGS;
			if (!(o->rings & (1u << i)))
				continue;
			if (run_ring(all_rings[i], o, &res[i], r))
				return 1;
		}
	}
	read_line("/proc/loadavg", NULL, load1, sizeof(load1));
	report(o, res, load0, load1, date);
	return 0;
}

static void on_alarm(int sig)
{
	static const char msg[] = "FAIL self-test timed out (a ring hangs)\n";

	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(2);
}

static void help(void)
{
	fprintf(stderr,
		"usage: ring-bench [-t] [-c CPU,CPU] [-r ROUNDS] [-n RTT] [-m RUN] [-w WARM]\n"
		"                  [-b BATCHES] [-s STREAM] [-R ring,...] [-j FILE] [-g COMMIT]\n"
		"  -t          correctness self-test of every ring, no timing\n"
		"  -c A,B      client and server CPUs (default 0,1)\n"
		"  -r ROUNDS   rounds, every ring once per round (default 5)\n"
		"  -n RTT      timed round trips per ring per round (default 200000)\n"
		"  -m RUN      round trips timed back to back as one sample, 1-64\n"
		"              (default 1); bursts under RUN as runs of batches\n"
		"  -w WARM     untimed round trips before each series (default 10000)\n"
		"  -b BATCHES  timed samples per burst size per round (default 10000),\n"
		"              each of as many batches as make RUN messages, or one\n"
		"  -s STREAM   one-way messages per ring per round (default 2000000)\n"
		"  -R LIST     rings: floor,duplex,xen_ring,packed,ptr_ring,cursors,\n"
		"              floor64,virtio_pk,nvme_sqcq\n"
		"  -j FILE     write the JSON record to FILE\n"
		"  -g COMMIT   git commit to record\n");
	exit(2);
}

static unsigned int parse_rings(char *list)
{
	unsigned int mask = 0, i;
	char *tok;

	for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		for (i = 0; i < NR_RINGS; i++)
			if (!strcmp(tok, all_rings[i]->name))
				break;
		if (i == NR_RINGS)
			help();
		mask |= 1u << i;
	}
	return mask | 1u;	/* the floor is always measured */
}

int main(int argc, char **argv)
{
	struct opts o = {
		.cpu = { 0, 1 }, .rtt_n = 200000, .rtt_run = 1, .warm = 10000,
		.batches = 10000, .stream_n = 2000000, .rounds = 5,
		.rings = (1u << NR_RINGS) - 1, .commit = "unknown",
	};
	pthread_t srv;
	int c, err;

	while ((c = getopt(argc, argv, "tc:r:n:m:w:b:s:R:j:g:h")) != -1) {
		switch (c) {
		case 't':
			o.selftest = true;
			break;
		case 'c':
			if (sscanf(optarg, "%d,%d", &o.cpu[0], &o.cpu[1]) != 2)
				help();
			break;
		case 'r':
			o.rounds = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			o.rtt_n = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			o.rtt_run = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			o.warm = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			o.batches = strtoul(optarg, NULL, 0);
			break;
		case 's':
			o.stream_n = strtoull(optarg, NULL, 0);
			break;
		case 'R':
			o.rings = parse_rings(optarg);
			break;
		case 'j':
			o.json = optarg;
			break;
		case 'g':
			o.commit = optarg;
			break;
		default:
			help();
		}
	}
	if (!o.rounds || o.rounds > 64 || !o.rtt_run ||
	    o.rtt_run > BENCH_MAX_BURST || o.rtt_n < o.rtt_run || !o.batches ||
	    o.stream_n < BENCH_CHUNK)
		help();

	ctl = bench_alloc(sizeof(*ctl));
	if (!ctl)
		return 1;
	err = pin(o.cpu[0]);
	if (err && !o.selftest) {
		fprintf(stderr, "ring-bench: cannot pin to CPU %d\n", o.cpu[0]);
		return 1;
	}
	if (pthread_create(&srv, NULL, server_main, &o.cpu[1]))
		return 1;
	if (o.selftest) {
		/* One line per test even into a pipe, and before a hang. */
		setvbuf(stdout, NULL, _IOLBF, 0);
		signal(SIGALRM, on_alarm);
		alarm(60);
		err = self_test();
	} else {
		calibrate_tsc();
		err = bench(&o);
	}
	phase_start(NULL, BENCH_SRV_ECHO, false);
	pthread_join(srv, NULL);
	return err;
}
