// SPDX-License-Identifier: GPL-2.0
/*
 * Two-thread stress test of the fipc ring library: the variants and the
 * command line.
 *
 * A client thread and a server thread, pinned to two CPUs where the
 * machine has them, exchange a long stream of messages on one duplex
 * ring (stress_duplex.c).  Every message carries its sequence number and
 * a 64-bit hash of all its bytes; its length in slots is a function of
 * the sequence number, so the receiver checks order, length and content
 * of each one.
 *
 * Nothing here depends on timing: a watchdog only fails the test, with a
 * message, when neither thread has made progress for a long time.
 */
#include "stress.h"

static const struct variant variants[] = {
	{ "duplex-order2", 2, 0 },
	{ "duplex-ack1", 0, 1 },
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
		if (run_duplex_variant(suite, &variants[i], nmsgs))
			passed++;
		else
			failed++;
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
