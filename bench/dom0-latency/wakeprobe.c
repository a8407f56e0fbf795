// SPDX-License-Identifier: GPL-2.0
/*
 * wakeprobe: how late does a dom0 task wake up?  The dom0 responsiveness
 * benchmark (issue 48, tests/testbed/scenarios/dom0-latency) runs it in
 * dom0 while guests burst I/O.  Two probes, one after the other, each for
 * half of -d seconds:
 *
 *   sleep  a loop of absolute clock_nanosleep() on CLOCK_MONOTONIC every
 *          -i microseconds; a sample is how long after its deadline the
 *          task ran again (the timer's and the scheduler's delay).
 *   pipe   two processes: one writes the time into a pipe every -i
 *          microseconds, the other, blocked in read(), takes the time
 *          as it returns; a sample is the difference (one task waking
 *          another, as a desktop's processes do).
 *
 * Both run at the caller's scheduling class (SCHED_OTHER, as a desktop
 * task), pinned to CPU -c if given.  -H MS adds a hog: a SCHED_FIFO
 * process on the same CPU that spins MS ms and sleeps 3 * MS ms in turn,
 * to show that the probe sees a task starved of its CPU (self-test).
 *
 * Output: one JSON object a line per probe, fields label, mode, cpu,
 * interval_us, seconds, count, p50_us, p99_us, max_us, mean_us.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#define NSEC_PER_SEC	1000000000LL
#define NSEC_PER_USEC	1000LL
#define MAX_SAMPLES	1048576

/**
 * struct probe_opts - command line
 * @seconds: total run time, shared by the probes
 * @interval_us: time between wake-ups
 * @cpu: CPU to pin to, or -1
 * @hog_ms: spin time of the SCHED_FIFO hog, 0 for none
 * @sleep: run the sleep probe
 * @pipe: run the pipe probe
 * @label: copied into the output
 */
struct probe_opts {
	double seconds;
	long long interval_us;
	int cpu;
	long long hog_ms;
	int sleep;
	int pipe;
	const char *label;
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static struct timespec to_ts(long long ns)
{
	struct timespec ts = {
		.tv_sec = ns / NSEC_PER_SEC,
		.tv_nsec = ns % NSEC_PER_SEC,
	};

	return ts;
}

static void sleep_until(long long ns)
{
	struct timespec ts = to_ts(ns);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("wakeprobe: sched_setaffinity");
		return -1;
	}
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* The sample at rank ceil(q * n), 1-based: a nearest-rank percentile. */
static long long percentile(const long long *s, size_t n, double q)
{
	size_t r = (size_t)(q * n);

	if ((double)r < q * n)
		r++;
	if (r < 1)
		r = 1;
	return s[r - 1];
}

static void report(const struct probe_opts *o, const char *mode,
		   long long *s, size_t n, double seconds)
{
	long long sum = 0;
	size_t i;

	qsort(s, n, sizeof(*s), cmp_ll);
	for (i = 0; i < n; i++)
		sum += s[i];
	printf("{\"label\": \"%s\", \"mode\": \"%s\", \"cpu\": %d, ",
	       o->label, mode, o->cpu);
	printf("\"interval_us\": %lld, \"seconds\": %.2f, \"count\": %zu",
	       o->interval_us, seconds, n);
	if (n)
		printf(", \"p50_us\": %.1f, \"p99_us\": %.1f, \"max_us\": %.1f, \"mean_us\": %.1f",
		       percentile(s, n, 0.50) / 1e3, percentile(s, n, 0.99) / 1e3,
		       s[n - 1] / 1e3, (double)sum / n / 1e3);
	printf("}\n");
	fflush(stdout);
}

/* Wake at every interval's deadline; record how late each wake-up was. */
static size_t probe_sleep(const struct probe_opts *o, long long *s,
			  size_t max, long long ns)
{
	long long step = o->interval_us * NSEC_PER_USEC;
	long long next = now_ns() + step, end = next + ns, t;
	size_t n = 0;

	while (n < max && next < end) {
		sleep_until(next);
		t = now_ns();
		s[n++] = t - next;
		next += step;
		/* After a long stall, start again from now: no catch-up burst. */
		if (next < t)
			next = t + step;
	}
	return n;
}

enum { IO_READ, IO_WRITE };

/* All of @len bytes read from @fd (IO_READ) or written to it (IO_WRITE). */
static int full_io(int fd, void *buf, size_t len, int dir)
{
	char *p = buf;
	ssize_t r;

	while (len) {
		r = dir == IO_WRITE ? write(fd, p, len) : read(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= r;
	}
	return 0;
}

/*
 * The waker sends its clock every interval; the sleeper answers with how
 * long after that it woke.  A stamp of -1 ends the sleeper.
 */
static size_t probe_pipe(const struct probe_opts *o, long long *s,
			 size_t max, long long ns)
{
	long long step = o->interval_us * NSEC_PER_USEC, next, end, t;
	int to[2], from[2], status;
	size_t n = 0;
	pid_t pid;

	if (pipe(to) || pipe(from)) {
		perror("wakeprobe: pipe");
		return 0;
	}
	pid = fork();
	if (pid < 0) {
		perror("wakeprobe: fork");
		return 0;
	}
	if (!pid) {
		close(to[1]);
		close(from[0]);
		while (!full_io(to[0], &t, sizeof(t), IO_READ) && t >= 0) {
			t = now_ns() - t;
			if (full_io(from[1], &t, sizeof(t), IO_WRITE))
				break;
		}
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	next = now_ns() + step;
	end = next + ns;
	while (n < max && next < end) {
		sleep_until(next);
		t = now_ns();
		if (full_io(to[1], &t, sizeof(t), IO_WRITE) ||
		    full_io(from[0], &t, sizeof(t), IO_READ))
			break;
		s[n++] = t;
		next += step;
		t = now_ns();
		if (next < t)
			next = t + step;
	}
	t = -1;
	full_io(to[1], &t, sizeof(t), IO_WRITE);
	close(to[1]);
	close(from[0]);
	waitpid(pid, &status, 0);
	return n;
}

/* Spin hog_ms, sleep 3 * hog_ms, at SCHED_FIFO, until killed. */
static pid_t start_hog(const struct probe_opts *o)
{
	struct sched_param sp = { .sched_priority = 1 };
	long long spin = o->hog_ms * 1000000LL, t;
	pid_t pid;

	pid = fork();
	if (pid)
		return pid;
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("wakeprobe: hog: sched_setscheduler");
		_exit(1);
	}
	for (;;) {
		t = now_ns();
		while (now_ns() - t < spin)
			;
		sleep_until(now_ns() + 3 * spin);
	}
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: wakeprobe [-d SECONDS] [-i INTERVAL_US] [-c CPU] [-m sleep|pipe|both]\n"
		"                 [-l LABEL] [-H HOG_MS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct probe_opts o = {
		.seconds = 5, .interval_us = 1000, .cpu = -1,
		.sleep = 1, .pipe = 1, .label = "",
	};
	long long *s, ns;
	pid_t hog = 0;
	size_t n;
	int c, probes, rc = 0;

	while ((c = getopt(argc, argv, "d:i:c:m:l:H:")) != -1) {
		switch (c) {
		case 'd':
			o.seconds = atof(optarg);
			break;
		case 'i':
			o.interval_us = atoll(optarg);
			break;
		case 'c':
			o.cpu = atoi(optarg);
			break;
		case 'm':
			o.sleep = strcmp(optarg, "pipe") != 0;
			o.pipe = strcmp(optarg, "sleep") != 0;
			if (strcmp(optarg, "both") && strcmp(optarg, "sleep") &&
			    strcmp(optarg, "pipe"))
				print_usage();
			break;
		case 'l':
			o.label = optarg;
			break;
		case 'H':
			o.hog_ms = atoll(optarg);
			break;
		default:
			print_usage();
		}
	}
	if (optind != argc || o.seconds <= 0 || o.interval_us < 1 ||
	    o.hog_ms < 0 || strpbrk(o.label, "\"\\"))
		print_usage();
	if (pin(o.cpu))
		return 1;
	s = calloc(MAX_SAMPLES, sizeof(*s));
	if (!s) {
		perror("wakeprobe: calloc");
		return 1;
	}
	if (o.hog_ms) {
		hog = start_hog(&o);
		if (hog < 0) {
			perror("wakeprobe: fork");
			return 1;
		}
	}
	probes = o.sleep + o.pipe;
	ns = (long long)(o.seconds * NSEC_PER_SEC) / probes;
	if (o.sleep) {
		n = probe_sleep(&o, s, MAX_SAMPLES, ns);
		report(&o, "sleep", s, n, (double)ns / NSEC_PER_SEC);
		rc |= !n;
	}
	if (o.pipe) {
		n = probe_pipe(&o, s, MAX_SAMPLES, ns);
		report(&o, "pipe", s, n, (double)ns / NSEC_PER_SEC);
		rc |= !n;
	}
	if (hog) {
		kill(hog, SIGKILL);
		waitpid(hog, NULL, 0);
	}
	free(s);
	return rc;
}
