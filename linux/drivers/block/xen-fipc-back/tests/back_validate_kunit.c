// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the fipcblk backend's request validation
 * (linux/drivers/block/xen-fipc-back/back_validate.c).
 *
 * Built by this directory's Kbuild
 * (CONFIG_XEN_FIPC_BACK_VALIDATE_KUNIT_TEST) with back_validate.c,
 * unchanged and without Xen (back_units.c).  Every check of
 * xfb_validate() has cases: requests that must pass (and the number of
 * page references they yield) and each kind of hostile request, which
 * must be refused with the right status and the reason of that very
 * check, so that a request refused by an earlier, unrelated check does
 * not count.
 *
 * Most cases are one request and its answer: a row of xfb_cases[], run
 * by the parameterised case xfb_test_request under a name that says the
 * rule it tests and the request ("bad_op 3: op 0x05, ...").  Rules over
 * a range of values (every undefined flag bit, each reference count, ...)
 * have cases that derive the requests, printing a wrong one as a row's
 * name; the other functions of back_validate.c have cases of their own.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include "../back_validate.h"
#include "back_kunit.h"

/* Reasons, as xfb_validate() gives them. */
#define WHY_OP		"unknown operation"
#define WHY_FLAGS	"unknown flags"
#define WHY_ZERO	"zero length"
#define WHY_BIG		"request larger than fipc-max-request-bytes"
#define WHY_LEN		"length not a multiple of the logical block size"
#define WHY_ALIGN	"sector not aligned to the logical block size"
#define WHY_RANGE	"sector range outside the device"
#define WHY_OFFSET	"bad first_offset"
#define WHY_SLOTS	"slot count does not match the page references"
#define WHY_RO		"write to a read-only device"
#define WHY_FLUSH	"flush with flags, data or extra slots"
#define WHY_FLUSH_SECT	"flush with a sector"
#define WHY_NODISCARD	"discard not supported"
#define WHY_DISCARD_RO	"discard on a read-only device"
#define WHY_DISCARD	"discard with a page offset or extra slots"
#define WHY_BOTH	"both grant references and staging pages"

/* A 1 GiB disk of 512-byte blocks that can do everything. */
#define XFB_TEST_SECTORS	(SZ_1G / FIPCBLK_SECTOR_BYTES)

/* The largest request the backend can offer: a message of the most slots. */
#define XFB_TEST_MAX_BYTES	FIPCBLK_MAX_REQUEST_BYTES

/**
 * struct xfb_test_dev - a device the requests are validated against
 * @name: printed in the case's name
 * @lim: its limits
 */
struct xfb_test_dev {
	const char *name;
	struct xfb_limits lim;
};

/*
 * The test disk: 1 GiB of 512-byte blocks, requests of up to 1 MiB, and
 * the features given; named as the variable.
 */
#define XFB_TEST_DISK(dev, ...)						\
	static const struct xfb_test_dev dev = {			\
		#dev, {							\
			.sectors = XFB_TEST_SECTORS, .lbs = 512,	\
			.max_bytes = SZ_1M, __VA_ARGS__			\
		},							\
	}

XFB_TEST_DISK(disk, .discard = true, .secure = true);

/* The same disk with 4096-byte logical blocks. */
static const struct xfb_test_dev disk4k = {
	"disk4k", {
		.sectors = XFB_TEST_SECTORS, .lbs = 4096, .max_bytes = SZ_1M,
		.discard = true, .secure = true,
	},
};

/* The same disk, read-only. */
XFB_TEST_DISK(ro, .ro = true, .discard = true, .secure = true);

/* The same disk on a memshare channel. */
XFB_TEST_DISK(memshare, .discard = true, .secure = true, .memshare = true,
	      .staging = true);

/* The same disk on a grant channel with staging pages (fipc-grant-staging). */
XFB_TEST_DISK(gstaging, .discard = true, .secure = true, .staging = true);

/* The same disk without discard, or without secure discard. */
XFB_TEST_DISK(nodiscard);
XFB_TEST_DISK(nodiscard_ro, .ro = true);
XFB_TEST_DISK(nosecure, .discard = true);

/* The same disk offering the largest request there is. */
static const struct xfb_test_dev maxmsg = {
	"maxmsg", {
		.sectors = XFB_TEST_SECTORS, .lbs = 512,
		.max_bytes = XFB_TEST_MAX_BYTES, .discard = true,
		.secure = true,
	},
};

/* A device of 2^64 - 1 sectors, one of one sector, and an empty one. */
static const struct xfb_test_dev huge = {
	"huge", {
		.sectors = U64_MAX, .lbs = 512, .max_bytes = SZ_1M,
		.discard = true, .secure = true,
	},
};

static const struct xfb_test_dev tiny = {
	"tiny", { .sectors = 1, .lbs = 512, .max_bytes = 4096 },
};

static const struct xfb_test_dev empty = {
	"empty", { .lbs = 512, .max_bytes = 4096 },
};

/* Refs a message of nslots slots can carry, from the wire format. */
static unsigned int xfb_test_capacity(unsigned int nslots)
{
	return FIPCBLK_HEAD_REFS + (nslots - 1) * FIPCBLK_CONT_REFS;
}

/* Slots a message with nrefs references needs: the fewest that hold them. */
static unsigned int xfb_test_slots(unsigned int nrefs)
{
	unsigned int n = 1;

	while (xfb_test_capacity(n) < nrefs)
		n++;
	return n;
}

static struct fipcblk_request xfb_test_req(u8 op, u8 flags, u64 sector,
					   u32 bytes, u16 offset)
{
	struct fipcblk_request r;

	memset(&r, 0, sizeof(r));
	r.id = 0x1234;
	r.op = op;
	r.flags = flags;
	r.sector = sector;
	r.nr_bytes = bytes;
	r.first_offset = offset;
	return r;
}

/* Validate with outputs preset to garbage, so that stale values show. */
static int xfb_test_run(const struct xfb_limits *lim,
			const struct fipcblk_request *r, unsigned int nslots,
			unsigned int *nrefs, const char **why)
{
	*nrefs = 0xdead;
	*why = NULL;
	return xfb_validate(lim, r, nslots, nrefs, why);
}

/*
 * The request passes and names exactly @want_refs pages: true if so.
 * Failures name the check as "@where @n".
 */
static bool xfb_expect_ok(struct kunit *test, const char *where, int n,
			  const struct xfb_limits *lim,
			  const struct fipcblk_request *r,
			  unsigned int nslots, unsigned int want_refs)
{
	const char *why;
	unsigned int nrefs;
	int ret;

	ret = xfb_test_run(lim, r, nslots, &nrefs, &why);
	KUNIT_EXPECT_EQ_MSG(test, ret, FIPCBLK_RSP_OKAY,
			    "%s %d: refused: %s", where, n,
			    why ? why : "(no reason)");
	KUNIT_EXPECT_EQ_MSG(test, nrefs, want_refs, "%s %d", where, n);
	return ret == FIPCBLK_RSP_OKAY && nrefs == want_refs;
}

/* The request is refused with @status, for the reason @want_why: true if so. */
static bool xfb_expect_bad(struct kunit *test, const char *where, int n,
			   const struct xfb_limits *lim,
			   const struct fipcblk_request *r,
			   unsigned int nslots, int status,
			   const char *want_why)
{
	const char *why;
	unsigned int nrefs;
	int ret;

	ret = xfb_test_run(lim, r, nslots, &nrefs, &why);
	KUNIT_EXPECT_EQ_MSG(test, ret, status, "%s %d", where, n);
	KUNIT_EXPECT_NOT_NULL_MSG(test, why, "%s %d: no reason", where, n);
	if (!why)
		return false;
	KUNIT_EXPECT_STREQ_MSG(test, why, want_why, "%s %d", where, n);
	return ret == status && !strcmp(why, want_why);
}

#define EXPECT_OK(test, lim, r, nslots, nrefs) \
	xfb_expect_ok(test, "line", __LINE__, lim, r, nslots, nrefs)
#define EXPECT_ERROR(test, lim, r, nslots, why) \
	xfb_expect_bad(test, "line", __LINE__, lim, r, nslots, \
		       FIPCBLK_RSP_ERROR, why)

/**
 * struct xfb_case - one request and the answer xfb_validate() must give
 * @rule: the rule it tests (a name of the case before it was a row)
 * @dev: the device
 * @op: the request's operation
 * @flags: its flags
 * @sector: its first sector
 * @bytes: its length
 * @offset: its first_offset
 * @nslots: the slots of its message (0: see @fit)
 * @fit: if not 0, as many slots as @fit references need; if both are 0,
 *	one slot
 * @status: the answer, a FIPCBLK_RSP_* value
 * @nrefs: with FIPCBLK_RSP_OKAY, the page references it names
 * @why: otherwise, the reason of the refusal
 */
struct xfb_case {
	const char *rule;
	const struct xfb_test_dev *dev;
	u8 op;
	u8 flags;
	u64 sector;
	u32 bytes;
	u16 offset;
	unsigned int nslots;
	unsigned int fit;
	int status;
	unsigned int nrefs;
	const char *why;
};

/*
 * Rows: rule, &device, REQ(...) or RAW(...), [SLOTS(n) or FIT(n),] answer;
 * without SLOTS() or FIT(), the message is one slot.
 */
#define REQ(o, f, s, b, off) \
	.op = FIPCBLK_OP_##o, .flags = (f), .sector = (s), .bytes = (b), \
	.offset = (off)
#define RAW(o, f, s, b, off) \
	.op = (o), .flags = (f), .sector = (s), .bytes = (b), .offset = (off)
#define SLOTS(n)	.nslots = (n)
#define FIT(n)		.fit = (n)
#define GOOD(n)		.status = FIPCBLK_RSP_OKAY, .nrefs = (n)
#define BAD(w)		.status = FIPCBLK_RSP_ERROR, .why = (w)
#define NOTSUPP(w)	.status = FIPCBLK_RSP_EOPNOTSUPP, .why = (w)

#define F_FUA		FIPCBLK_F_FUA
#define F_SECURE	FIPCBLK_F_SECURE
#define F_GRANT		FIPCBLK_F_GRANTREFS
#define F_STAGED	FIPCBLK_F_STAGED
#define SECTORS		XFB_TEST_SECTORS
#define PAGE		FIPCBLK_PAGE_BYTES
#define MAX_SLOTS	FIPC_MSG_MAX_SLOTS
#define MAX_BYTES	XFB_TEST_MAX_BYTES
#define MAX_REFS	FIPCBLK_MAX_REFS

/* As many slots as @len bytes from the start of a page need. */
#define LEN4K(len)	FIT(DIV_ROUND_UP(len, 4096))

static const struct xfb_case xfb_cases[] = {
	/* Good reads; the head slot holds 9 references, a 10th needs more. */
	{ "good_read", &disk, REQ(READ, 0, 0, 512, 0), GOOD(1) },
	{ "good_read", &disk, REQ(READ, 0, 8, 4096, 0), GOOD(1) },
	{ "good_read", &disk, REQ(READ, 0, 8, 1024, 3584), GOOD(2) },
	{ "good_read", &disk, REQ(READ, 0, 16, 8192, 512), GOOD(3) },
	{ "good_read", &disk, REQ(READ, 0, 0, 9 * 4096, 0), GOOD(9) },
	{ "good_read", &disk, REQ(READ, 0, 0, 9 * 4096, 512), SLOTS(2),
	  GOOD(10) },
	{ "good_read", &disk, REQ(READ, 0, SECTORS - 1, 512, 0), GOOD(1) },
	{ "good_read", &tiny, REQ(READ, 0, 0, 512, 0), GOOD(1) },
	{ "good_read", &ro, REQ(READ, 0, 8, 4096, 0), GOOD(1) },

	{ "good_write", &disk, REQ(WRITE, 0, 24, 4096, 0), GOOD(1) },
	{ "good_write", &disk, REQ(WRITE, F_FUA, 24, 4096, 0), GOOD(1) },
	{ "good_write", &disk, REQ(WRITE, F_FUA, 1, 65536, 1024), FIT(17),
	  GOOD(17) },
	{ "good_write", &disk, REQ(WRITE, 0, SECTORS - 8, 4096, 0), GOOD(1) },
	{ "good_write", &disk4k, REQ(WRITE, 0, 8, 8192, 512), GOOD(3) },

	{ "good_flush", &disk, REQ(FLUSH, 0, 0, 0, 0), GOOD(0) },
	{ "good_flush", &ro, REQ(FLUSH, 0, 0, 0, 0), GOOD(0) },

	/* A discard is a range, not data: not bounded by max_bytes. */
	{ "good_discard", &disk, REQ(DISCARD, 0, 64, 4096, 0), GOOD(0) },
	{ "good_discard", &disk, REQ(DISCARD, F_SECURE, 64, 4096, 0), GOOD(0) },
	{ "good_discard", &disk, REQ(DISCARD, 0, 0, SZ_1G, 0), GOOD(0) },
	{ "good_discard", &disk4k, REQ(DISCARD, 0, 8, SZ_1M, 0), GOOD(0) },

	/* Unknown operations, with and without data. */
	{ "bad_op", &disk, RAW(4, 0, 0, 4096, 0), NOTSUPP(WHY_OP) },
	{ "bad_op", &disk, RAW(4, 0, 0, 0, 0), NOTSUPP(WHY_OP) },
	{ "bad_op", &disk, RAW(5, 0, 0, 4096, 0), NOTSUPP(WHY_OP) },
	{ "bad_op", &disk, RAW(5, 0, 0, 0, 0), NOTSUPP(WHY_OP) },
	{ "bad_op", &disk, RAW(0x7f, 0, 0, 4096, 0), NOTSUPP(WHY_OP) },
	{ "bad_op", &disk, RAW(0x7f, 0, 0, 0, 0), NOTSUPP(WHY_OP) },
	{ "bad_op", &disk, RAW(0x80, 0, 0, 4096, 0), NOTSUPP(WHY_OP) },
	{ "bad_op", &disk, RAW(0x80, 0, 0, 0, 0), NOTSUPP(WHY_OP) },
	{ "bad_op", &disk, RAW(0xff, 0, 0, 4096, 0), NOTSUPP(WHY_OP) },
	{ "bad_op", &disk, RAW(0xff, 0, 0, 0, 0), NOTSUPP(WHY_OP) },

	/* FUA is a WRITE flag only, SECURE a DISCARD flag only ... */
	{ "bad_flags", &disk, REQ(READ, F_FUA, 0, 4096, 0), BAD(WHY_FLAGS) },
	{ "bad_flags", &disk, REQ(READ, F_SECURE, 0, 4096, 0), BAD(WHY_FLAGS) },
	{ "bad_flags", &disk, REQ(WRITE, F_SECURE, 0, 4096, 0),
	  BAD(WHY_FLAGS) },
	{ "bad_flags", &disk, REQ(DISCARD, F_FUA, 0, 4096, 0), BAD(WHY_FLAGS) },
	/* (... and every undefined bit: xfb_test_bad_flag_bits.) */

	/*
	 * FIPCBLK_F_GRANTREFS: READ/WRITE on a memshare channel only
	 * (xfb_test_channel_flags); never on a flush.
	 */
	{ "grantrefs", &memshare, REQ(FLUSH, F_GRANT, 0, 0, 0),
	  BAD(WHY_FLUSH) },
	/* The other undefined bits stay refused on memshare too. */
	{ "grantrefs", &memshare, REQ(READ, F_GRANT | BIT(4), 0, 4096, 0),
	  BAD(WHY_FLAGS) },
	{ "grantrefs", &memshare, REQ(READ, F_FUA, 0, 4096, 0),
	  BAD(WHY_FLAGS) },

	/*
	 * FIPCBLK_F_STAGED: READ/WRITE on a channel with staging pages
	 * only (xfb_test_channel_flags), never with FIPCBLK_F_GRANTREFS;
	 * the indices are checked at lookup.
	 */
	{ "staged", &memshare, REQ(READ, F_STAGED | F_GRANT, 0, 4096, 0),
	  BAD(WHY_BOTH) },
	{ "staged", &memshare, REQ(WRITE, F_STAGED | F_GRANT, 0, 4096, 0),
	  BAD(WHY_BOTH) },
	{ "staged", &memshare, REQ(FLUSH, F_STAGED, 0, 0, 0), BAD(WHY_FLUSH) },
	/* A grant channel with staging pages, as on memshare. */
	{ "staged", &gstaging, REQ(WRITE, F_STAGED | F_GRANT, 0, 4096, 0),
	  BAD(WHY_FLAGS) },
	{ "staged", &gstaging, REQ(FLUSH, F_STAGED, 0, 0, 0),
	  BAD(WHY_FLUSH) },
	{ "staged", &gstaging, REQ(READ, F_STAGED | BIT(4), 0, 4096, 0),
	  BAD(WHY_FLAGS) },

	{ "zero_len", &disk, REQ(READ, 0, 0, 0, 0), BAD(WHY_ZERO) },
	{ "zero_len", &disk, REQ(WRITE, 0, 8, 0, 512), BAD(WHY_ZERO) },
	{ "zero_len", &disk, REQ(DISCARD, 0, 8, 0, 0), BAD(WHY_ZERO) },

	{ "too_big", &disk, REQ(READ, 0, 0, SZ_1M, 0), FIT(256), GOOD(256) },
	{ "too_big", &disk, REQ(READ, 0, 0, SZ_1M + 512, 0), FIT(257),
	  BAD(WHY_BIG) },
	{ "too_big", &disk, REQ(WRITE, 0, 0, SZ_1M + 4096, 0), FIT(257),
	  BAD(WHY_BIG) },
	{ "too_big", &disk, REQ(WRITE, 0, 0, U32_MAX & ~511u, 0),
	  SLOTS(MAX_SLOTS), BAD(WHY_BIG) },

	/* (Lengths not whole logical blocks: xfb_test_bad_len.) */

	/* (Start sectors inside a logical block: xfb_test_misaligned.) */

	/*
	 * first_offset: a multiple of 512 inside the first page (the
	 * others: xfb_test_bad_offset).
	 */
	/* The last sector of the first page is a valid start. */
	{ "bad_offset", &disk, REQ(READ, 0, 0, 512, 3584), GOOD(1) },

	{ "beyond_end", &disk, REQ(READ, 0, SECTORS, 512, 0), BAD(WHY_RANGE) },
	{ "beyond_end", &disk, REQ(WRITE, 0, SECTORS + 8, 4096, 0),
	  BAD(WHY_RANGE) },
	{ "beyond_end", &disk, REQ(DISCARD, 0, SECTORS, 4096, 0),
	  BAD(WHY_RANGE) },
	{ "beyond_end", &empty, REQ(READ, 0, 0, 512, 0), BAD(WHY_RANGE) },
	{ "beyond_end", &disk4k, REQ(READ, 0, SECTORS, 4096, 0),
	  BAD(WHY_RANGE) },

	{ "straddle_end", &disk, REQ(READ, 0, SECTORS - 1, 1024, 0),
	  BAD(WHY_RANGE) },
	{ "straddle_end", &disk, REQ(WRITE, 0, SECTORS - 7, 4096, 0),
	  BAD(WHY_RANGE) },
	{ "straddle_end", &disk, REQ(DISCARD, 0, 8, SZ_1G, 0), BAD(WHY_RANGE) },
	{ "straddle_end", &disk4k, REQ(READ, 0, SECTORS - 8, 8192, 0),
	  BAD(WHY_RANGE) },
	/* Ending exactly at the end is fine. */
	{ "straddle_end", &disk, REQ(READ, 0, SECTORS - 2, 1024, 0), GOOD(1) },

	/*
	 * sector + length wraps around 2^64: refused, even on a device of
	 * 2^64 - 1 sectors, where a check by addition would wrap to a small
	 * end and pass.  Up to the very last sector is still inside.
	 */
	{ "overflow", &disk, REQ(READ, 0, U64_MAX - 7, 4096, 0),
	  BAD(WHY_RANGE) },
	{ "overflow", &huge, REQ(READ, 0, U64_MAX - 7, 4096, 0),
	  BAD(WHY_RANGE) },
	{ "overflow", &huge, REQ(WRITE, 0, U64_MAX - 1, 1024, 0),
	  BAD(WHY_RANGE) },
	{ "overflow", &huge, REQ(WRITE, 0, U64_MAX, 512, 0), BAD(WHY_RANGE) },
	{ "overflow", &huge, REQ(DISCARD, 0, U64_MAX - 1, 4096, 0),
	  BAD(WHY_RANGE) },
	{ "overflow", &huge, REQ(DISCARD, 0, U64_MAX - 8, SZ_1G, 0),
	  BAD(WHY_RANGE) },
	{ "overflow", &huge, REQ(READ, 0, U64_MAX - 2, 1024, 0), GOOD(1) },

	{ "write_ro", &ro, REQ(WRITE, 0, 0, 4096, 0), BAD(WHY_RO) },
	{ "write_ro", &ro, REQ(WRITE, F_FUA, 8, 512, 512), BAD(WHY_RO) },
	{ "write_ro", &ro, REQ(DISCARD, 0, 0, 4096, 0), BAD(WHY_DISCARD_RO) },
	{ "write_ro", &ro, REQ(DISCARD, F_SECURE, 0, 4096, 0),
	  BAD(WHY_DISCARD_RO) },

	{ "flush_data", &disk, REQ(FLUSH, 0, 0, 4096, 0), BAD(WHY_FLUSH) },
	{ "flush_data", &disk, REQ(FLUSH, 0, 0, 0, 512), BAD(WHY_FLUSH) },
	{ "flush_data", &disk, REQ(FLUSH, F_FUA, 0, 0, 0), BAD(WHY_FLUSH) },
	{ "flush_data", &disk, REQ(FLUSH, 0x80, 0, 0, 0), BAD(WHY_FLUSH) },
	{ "flush_data", &disk, REQ(FLUSH, 0, 0, 0, 0), SLOTS(2),
	  BAD(WHY_FLUSH) },
	{ "flush_data", &disk, REQ(FLUSH, 0, 0, 0, 0), SLOTS(MAX_SLOTS),
	  BAD(WHY_FLUSH) },

	/* A flush has no sector: any other than 0 would reach the bio. */
	{ "flush_sector", &disk, REQ(FLUSH, 0, 8, 0, 0), BAD(WHY_FLUSH_SECT) },
	{ "flush_sector", &disk, REQ(FLUSH, 0, SECTORS, 0, 0),
	  BAD(WHY_FLUSH_SECT) },
	{ "flush_sector", &disk, REQ(FLUSH, 0, U64_MAX, 0, 0),
	  BAD(WHY_FLUSH_SECT) },

	/* Checked before read-only: EOPNOTSUPP, do not try again. */
	{ "discard_unsupported", &nodiscard, REQ(DISCARD, 0, 0, 4096, 0),
	  NOTSUPP(WHY_NODISCARD) },
	{ "discard_unsupported", &nodiscard, REQ(DISCARD, F_SECURE, 0, 4096, 0),
	  NOTSUPP(WHY_NODISCARD) },
	{ "discard_unsupported", &nodiscard_ro, REQ(DISCARD, 0, 0, 4096, 0),
	  NOTSUPP(WHY_NODISCARD) },

	/* No secure discard; a plain discard still works. */
	{ "secure_unsupported", &nosecure, REQ(DISCARD, F_SECURE, 0, 4096, 0),
	  NOTSUPP(WHY_NODISCARD) },
	{ "secure_unsupported", &nosecure, REQ(DISCARD, 0, 0, 4096, 0),
	  GOOD(0) },

	{ "discard_layout", &disk, REQ(DISCARD, 0, 0, 4096, 512),
	  BAD(WHY_DISCARD) },
	{ "discard_layout", &disk, REQ(DISCARD, 0, 0, 4096, 0), SLOTS(2),
	  BAD(WHY_DISCARD) },
	{ "discard_layout", &disk, REQ(DISCARD, F_SECURE, 0, SZ_1M, 0),
	  FIT(256), BAD(WHY_DISCARD) },

	/* (xfb_test_slots_short and _long try every reference count.) */
	{ "slots_short", &maxmsg, REQ(WRITE, 0, 0, 10 * PAGE, 0),
	  BAD(WHY_SLOTS) },
	{ "slots_short", &maxmsg, REQ(WRITE, 0, 0, 25 * PAGE, 0), SLOTS(2),
	  BAD(WHY_SLOTS) },
	{ "slots_long", &maxmsg, REQ(READ, 0, 0, 4096, 0), SLOTS(2),
	  BAD(WHY_SLOTS) },
	{ "slots_long", &maxmsg, REQ(READ, 0, 0, 4096, 0), SLOTS(MAX_SLOTS),
	  BAD(WHY_SLOTS) },
	{ "slots_long", &maxmsg, REQ(READ, 0, 0, 9 * PAGE, 0), SLOTS(2),
	  BAD(WHY_SLOTS) },

	/*
	 * The largest request the backend can offer fills a message of the
	 * most slots exactly, with its first page unaligned; the default
	 * of 1 MiB takes 257 pages in 18 slots (docs/protocol.md).
	 */
	{ "max_size", &maxmsg, REQ(WRITE, F_FUA, 8, MAX_BYTES, 3584),
	  SLOTS(MAX_SLOTS), GOOD(MAX_REFS) },
	{ "max_size", &maxmsg, REQ(READ, 0, 8, MAX_BYTES, 512),
	  SLOTS(MAX_SLOTS), GOOD(MAX_REFS) },
	{ "max_size", &maxmsg, REQ(READ, 0, 8, MAX_BYTES, 0), FIT(MAX_REFS - 1),
	  GOOD(MAX_REFS - 1) },
	{ "max_size", &maxmsg, REQ(READ, 0, 8, MAX_BYTES + 512, 0),
	  SLOTS(MAX_SLOTS), BAD(WHY_BIG) },
	{ "max_size", &disk, REQ(READ, 0, 0, SZ_1M, 512), SLOTS(18),
	  GOOD(257) },
	{ "max_size", &disk, REQ(READ, 0, 0, SZ_1M, 0), SLOTS(18), GOOD(256) },
};

/* The row's number among those of its rule, from 1. */
static unsigned int xfb_case_nr(const struct xfb_case *c)
{
	const struct xfb_case *o;
	unsigned int n = 1;

	for (o = xfb_cases; o < c; o++)
		if (!strcmp(o->rule, c->rule))
			n++;
	return n;
}

static unsigned int xfb_case_slots(const struct xfb_case *c)
{
	if (c->nslots)
		return c->nslots;
	return c->fit ? xfb_test_slots(c->fit) : 1;
}

static const char * const xfb_op_names[] = {
	[FIPCBLK_OP_READ] = "read",
	[FIPCBLK_OP_WRITE] = "write",
	[FIPCBLK_OP_FLUSH] = "flush",
	[FIPCBLK_OP_DISCARD] = "discard",
};

/*
 * The case's name: "bad_op 3: op 0x05, flags 0x00, sector 0, 4096 bytes,
 * offset 0, slots 1, disk".
 */
static void xfb_case_print(const struct xfb_case *c, unsigned int nr,
			   char *desc)
{
	char op[16];

	if (c->op < ARRAY_SIZE(xfb_op_names))
		snprintf(op, sizeof(op), "%s", xfb_op_names[c->op]);
	else
		snprintf(op, sizeof(op), "op 0x%02x", c->op);
	snprintf(desc, KUNIT_PARAM_DESC_SIZE,
		 "%s %u: %s, flags 0x%02x, sector %llu, %u bytes, offset %u, slots %u, %s",
		 c->rule, nr, op, c->flags, c->sector, c->bytes, c->offset,
		 xfb_case_slots(c), c->dev->name);
}

static void xfb_case_desc(const struct xfb_case *c, char *desc)
{
	xfb_case_print(c, xfb_case_nr(c), desc);
}

KUNIT_ARRAY_PARAM(xfb_request, xfb_cases, xfb_case_desc);

/*
 * The request of @c, the @nr-th of its rule, gets exactly the answer it
 * must: true if so.
 */
static bool xfb_test_answer(struct kunit *test, const struct xfb_case *c,
			    unsigned int nr)
{
	struct fipcblk_request r = xfb_test_req(c->op, c->flags, c->sector,
						c->bytes, c->offset);

	if (c->status == FIPCBLK_RSP_OKAY)
		return xfb_expect_ok(test, c->rule, nr, &c->dev->lim, &r,
				     xfb_case_slots(c), c->nrefs);
	return xfb_expect_bad(test, c->rule, nr, &c->dev->lim, &r,
			      xfb_case_slots(c), c->status, c->why);
}

/* One row of xfb_cases[]: the request gets exactly the answer it must. */
static void xfb_test_request(struct kunit *test)
{
	const struct xfb_case *c = test->param_value;

	xfb_test_answer(test, c, xfb_case_nr(c));
}

/*
 * A row a case derives, the next of its rule (@nr counts them): as one
 * of xfb_cases[], and on a wrong answer the request in full.
 */
static void xfb_test_derived(struct kunit *test, const struct xfb_case *c,
			     unsigned int *nr)
{
	char desc[KUNIT_PARAM_DESC_SIZE];

	if (xfb_test_answer(test, c, ++*nr))
		return;
	xfb_case_print(c, *nr, desc);
	KUNIT_FAIL(test, "%s", desc);
}

/* Each op with data, without flags and with each flag valid for it. */
static const struct {
	u8 op;
	u8 flags;
} xfb_data_ops[] = {
	{ FIPCBLK_OP_READ, 0 },
	{ FIPCBLK_OP_WRITE, 0 },
	{ FIPCBLK_OP_WRITE, F_FUA },
	{ FIPCBLK_OP_DISCARD, 0 },
	{ FIPCBLK_OP_DISCARD, F_SECURE },
};

/*
 * Every flag bit undefined on the test disk (all but FUA and SECURE), on
 * each op with data, alone and beside each flag valid for the op.
 */
static void xfb_test_bad_flag_bits(struct kunit *test)
{
	struct xfb_case c = {
		"bad_flags", &disk, REQ(READ, 0, 0, 4096, 0), BAD(WHY_FLAGS)
	};
	unsigned int b, i, nr = 0;

	for (b = 0; b < BITS_PER_TYPE(c.flags); b++) {
		if (BIT(b) & (F_FUA | F_SECURE))
			continue;
		for (i = 0; i < ARRAY_SIZE(xfb_data_ops); i++) {
			c.op = xfb_data_ops[i].op;
			c.flags = BIT(b) | xfb_data_ops[i].flags;
			xfb_test_derived(test, &c, &nr);
		}
	}
	/* Six bits, 2 to 7. */
	KUNIT_EXPECT_EQ(test, nr, 6 * ARRAY_SIZE(xfb_data_ops));
}

/*
 * The channel's flags on each op with data: FIPCBLK_F_GRANTREFS taken on
 * a READ or WRITE of a memshare channel only, FIPCBLK_F_STAGED on one of
 * a channel with staging pages only (memshare, or grants with
 * fipc-grant-staging; a grant channel's references are grants anyway);
 * elsewhere, and on a discard, unknown flags.
 */
static void xfb_test_channel_flags(struct kunit *test)
{
	static const struct xfb_test_dev *const devs[] = {
		&disk, &memshare, &gstaging,
	};
	static const struct {
		const char *rule;
		u8 flag;
	} chan_flags[] = {
		{ "grantrefs", F_GRANT },
		{ "staged", F_STAGED },
	};
	struct xfb_case c = { .bytes = 8192, .offset = 512, .nrefs = 3 };
	unsigned int d, f, i, nr = 0;
	bool has, ok;

	for (d = 0; d < ARRAY_SIZE(devs); d++) {
		c.dev = devs[d];
		for (f = 0; f < ARRAY_SIZE(chan_flags); f++) {
			c.rule = chan_flags[f].rule;
			has = chan_flags[f].flag == F_GRANT ?
			      c.dev->lim.memshare : c.dev->lim.staging;
			for (i = 0; i < ARRAY_SIZE(xfb_data_ops); i++) {
				c.op = xfb_data_ops[i].op;
				c.flags = chan_flags[f].flag |
					  xfb_data_ops[i].flags;
				ok = has && c.op != FIPCBLK_OP_DISCARD;
				c.status = ok ? FIPCBLK_RSP_OKAY :
						FIPCBLK_RSP_ERROR;
				c.why = ok ? NULL : WHY_FLAGS;
				xfb_test_derived(test, &c, &nr);
			}
		}
	}
}

/*
 * Lengths that are not whole logical blocks of 512 bytes, for data and
 * discard, or of 4096 bytes, which are whole blocks of 512 bytes.
 */
static void xfb_test_bad_len(struct kunit *test)
{
	static const u32 bad512[] = { 1, 100, 511, 513, 1000, 4095, 4097 };
	static const u32 bad4k[] = { 512, 1024, 3584, 4608, 6144, 8192 + 512 };
	struct xfb_case c;
	unsigned int i, nr = 0;
	u32 len;

	for (i = 0; i < ARRAY_SIZE(bad512); i++) {
		len = bad512[i];
		c = (struct xfb_case){
			"bad_len", &disk, REQ(READ, 0, 0, len, 0), BAD(WHY_LEN)
		};
		xfb_test_derived(test, &c, &nr);
		c.op = FIPCBLK_OP_DISCARD;
		xfb_test_derived(test, &c, &nr);
	}
	for (i = 0; i < ARRAY_SIZE(bad4k); i++) {
		len = bad4k[i];
		c = (struct xfb_case){
			"bad_len", &disk4k, REQ(WRITE, 0, 8, len, 0), LEN4K(len),
			BAD(WHY_LEN)
		};
		xfb_test_derived(test, &c, &nr);
		c = (struct xfb_case){
			"bad_len", &disk4k, REQ(DISCARD, 0, 8, len, 0),
			BAD(WHY_LEN)
		};
		xfb_test_derived(test, &c, &nr);
		c = (struct xfb_case){
			"bad_len", &disk, REQ(WRITE, 0, 8, len, 0), LEN4K(len),
			GOOD(DIV_ROUND_UP(len, 4096))
		};
		xfb_test_derived(test, &c, &nr);
	}
}

/*
 * Every start sector inside a 4096-byte block, for a read and a discard;
 * fine with 512 bytes.
 */
static void xfb_test_misaligned(struct kunit *test)
{
	struct xfb_case c;
	unsigned int nr = 0;
	u64 s;

	for (s = 1; s < 4096 / 512; s++) {
		c = (struct xfb_case){
			"misaligned", &disk4k, REQ(READ, 0, s, 4096, 0),
			BAD(WHY_ALIGN)
		};
		xfb_test_derived(test, &c, &nr);
		c = (struct xfb_case){
			"misaligned", &disk4k, REQ(DISCARD, 0, 64 + s, 4096, 0),
			BAD(WHY_ALIGN)
		};
		xfb_test_derived(test, &c, &nr);
		c = (struct xfb_case){
			"misaligned", &disk, REQ(READ, 0, s, 4096, 0), GOOD(1)
		};
		xfb_test_derived(test, &c, &nr);
	}
}

/*
 * A first_offset that is not a multiple of 512 inside the first page,
 * for a read and a write.
 */
static void xfb_test_bad_offset(struct kunit *test)
{
	static const u16 bad[] = {
		1, 100, 511, 513, 4095, 4096, 4608, 8192, 0x8000, 0xfe00,
		0xffff,
	};
	struct xfb_case c;
	unsigned int i, nr = 0;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		c = (struct xfb_case){
			"bad_offset", &disk, REQ(READ, 0, 0, 512, bad[i]),
			BAD(WHY_OFFSET)
		};
		xfb_test_derived(test, &c, &nr);
		c.op = FIPCBLK_OP_WRITE;
		xfb_test_derived(test, &c, &nr);
	}
}

/* xfb_parse_uint(): a xenstore value the frontend wrote. */
struct xfb_parse_case {
	const char *s;
	u32 min;
	u32 max;
	int ret;
	u32 val;
};

static const struct xfb_parse_case xfb_parse_cases[] = {
	{ "0", 0, 4, 0, 0 },
	{ "4", 0, 4, 0, 4 },
	{ "1", 1, 256, 0, 1 },
	{ "256", 1, 256, 0, 256 },
	{ "007", 0, 8, 0, 7 },
	{ "4294967295", 0, U32_MAX, 0, U32_MAX },
	/* Out of range, including what "%u" wraps to something small. */
	{ "5", 0, 4, -ERANGE, 0 },
	{ "0", 1, 256, -ERANGE, 0 },
	{ "257", 1, 256, -ERANGE, 0 },
	{ "4294967296", 0, U32_MAX, -ERANGE, 0 },
	{ "4294967297", 1, 256, -ERANGE, 0 },
	{ "99999999999999999999999", 0, U32_MAX, -ERANGE, 0 },
	{ "4294967296", 0, 4, -ERANGE, 0 },
	/* Not a plain decimal number. */
	{ "", 0, U32_MAX, -EINVAL, 0 },
	{ "-1", 0, U32_MAX, -EINVAL, 0 },
	{ "+1", 0, U32_MAX, -EINVAL, 0 },
	{ "two", 0, U32_MAX, -EINVAL, 0 },
	{ "0x10", 0, U32_MAX, -EINVAL, 0 },
	{ " 1", 0, U32_MAX, -EINVAL, 0 },
	{ "1 ", 0, U32_MAX, -EINVAL, 0 },
	{ "1\n", 0, U32_MAX, -EINVAL, 0 },
	{ "12abc", 0, U32_MAX, -EINVAL, 0 },
	{ "99999999999999999999x", 0, U32_MAX, -EINVAL, 0 },
};

/* "\"4\" in 0..4", the string escaped as printk's %pE does. */
static void xfb_parse_desc(const struct xfb_parse_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\" in %u..%u",
		 (int)strlen(c->s), c->s, c->min, c->max);
}

KUNIT_ARRAY_PARAM(xfb_parse, xfb_parse_cases, xfb_parse_desc);

static void xfb_test_parse_uint(struct kunit *test)
{
	const struct xfb_parse_case *c = test->param_value;
	u32 val = 0xdeadbeef;
	int ret;

	ret = xfb_parse_uint(c->s, c->min, c->max, &val);
	KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "\"%s\" in %u..%u",
			    c->s, c->min, c->max);
	/* The output is written only on success. */
	KUNIT_EXPECT_EQ_MSG(test, val, c->ret ? 0xdeadbeef : c->val,
			    "\"%s\"", c->s);
}

/*
 * A request of n references, n from 1 to the most a message can carry
 * (with the largest request the backend offers): the data starts at
 * @offset, a multiple of 512 not 0, so that n - 1 whole pages follow.
 */
static struct fipcblk_request xfb_test_nrefs(u8 op, unsigned int n, u16 offset)
{
	u32 bytes = n == 1 ? 512 : (n - 1) * FIPCBLK_PAGE_BYTES;

	return xfb_test_req(op, 0, 0, bytes, offset);
}

/*
 * Every reference count up to the largest, the data from @offset: the
 * slots the references need are taken, @wrong slots more (or fewer) are
 * refused.  The loop stops at the first wrong answer, to keep the log
 * readable.
 */
static void xfb_test_slots_wrong(struct kunit *test, u8 op, u16 offset,
				 int wrong)
{
	const struct xfb_limits *lim = &maxmsg.lim;
	struct fipcblk_request r;
	unsigned int n, need;

	for (n = 1; n <= FIPCBLK_MAX_REFS; n++) {
		r = xfb_test_nrefs(op, n, offset);
		need = xfb_test_slots(n);
		if (!EXPECT_OK(test, lim, &r, need, n) ||
		    !EXPECT_ERROR(test, lim, &r, need + wrong, WHY_SLOTS)) {
			KUNIT_FAIL(test, "wrong with %u references", n);
			break;
		}
	}
}

/* One slot fewer than the references need is refused. */
static void xfb_test_slots_short(struct kunit *test)
{
	xfb_test_slots_wrong(test, FIPCBLK_OP_READ, 3584, -1);
}

/* One slot more than the references need is refused too. */
static void xfb_test_slots_long(struct kunit *test)
{
	xfb_test_slots_wrong(test, FIPCBLK_OP_WRITE, 512, 1);
}

/*
 * A message of the most slots holds exactly the most references (the
 * requests that fill it are rows "max_size" of xfb_cases[]).
 */
static void xfb_test_max_size(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xfb_test_capacity(FIPC_MSG_MAX_SLOTS),
			FIPCBLK_MAX_REFS);
	KUNIT_EXPECT_EQ(test, xfb_test_slots(FIPCBLK_MAX_REFS),
			FIPC_MSG_MAX_SLOTS);
}

/*
 * fipcblk.h's helpers, which both drivers and the attack modules use,
 * against the layout counted out slot by slot: the slots n references
 * need, and the slot and byte offset of reference i (in the head, that
 * of refs[i] in struct fipcblk_request).
 */
static void xfb_test_wire_helpers(struct kunit *test)
{
	unsigned int n, i, s;
	size_t off;

	KUNIT_EXPECT_EQ(test, FIPCBLK_REQ_SLOTS(0), 1);
	for (n = 1; n <= FIPCBLK_MAX_REFS; n++) {
		KUNIT_EXPECT_EQ_MSG(test, FIPCBLK_REQ_SLOTS(n),
				    xfb_test_slots(n), "%u references", n);
		if (FIPCBLK_REQ_SLOTS(n) != xfb_test_slots(n))
			return;
	}
	for (i = 0; i < FIPCBLK_MAX_REFS; i++) {
		s = 0;
		while (xfb_test_capacity(s + 1) <= i)
			s++;
		off = s ? sizeof(u32) * (i - xfb_test_capacity(s)) :
			  offsetof(struct fipcblk_request, refs[i]);
		KUNIT_EXPECT_EQ_MSG(test, FIPCBLK_REF_SLOT(i), s,
				    "reference %u", i);
		KUNIT_EXPECT_EQ_MSG(test, FIPCBLK_REF_OFFSET(i), off,
				    "reference %u", i);
		if (FIPCBLK_REF_SLOT(i) != s || FIPCBLK_REF_OFFSET(i) != off)
			return;
	}
	KUNIT_EXPECT_EQ(test, FIPCBLK_MAX_REQUEST_BYTES,
			(FIPCBLK_MAX_REFS - 1) * FIPCBLK_PAGE_BYTES);
	KUNIT_EXPECT_EQ(test, FIPCBLK_FLAG(3, 0x12345), 0xa5032345U);
	KUNIT_EXPECT_EQ(test, FIPCBLK_RING_SLOTS(FIPCBLK_RING_MAX_ORDER),
			1024);
}

/* xfb_ref_at() against the wire layout, head and continuation slots. */
static void xfb_test_ref_at(struct kunit *test)
{
	struct fipcblk_request_cont cont;
	struct fipcblk_request head;
	struct fipc_msg *msgs;
	unsigned int i, s;
	u32 got;

	msgs = kunit_kcalloc(test, FIPC_MSG_MAX_SLOTS, sizeof(*msgs),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, msgs);

	/* Through the structures of fipcblk.h: reference i is 0xa0000 + i. */
	head = xfb_test_req(FIPCBLK_OP_READ, 0, 0, 4096, 0);
	for (i = 0; i < FIPCBLK_HEAD_REFS; i++)
		head.refs[i] = 0xa0000 + i;
	memcpy(msgs[0].data, &head, sizeof(head));
	for (s = 1; s < FIPC_MSG_MAX_SLOTS; s++) {
		for (i = 0; i < FIPCBLK_CONT_REFS; i++)
			cont.refs[i] = 0xa0000 + xfb_test_capacity(s) + i;
		memcpy(msgs[s].data, &cont, sizeof(cont));
	}
	for (i = 0; i < FIPCBLK_MAX_REFS; i++) {
		got = xfb_ref_at(msgs, i);
		KUNIT_EXPECT_EQ_MSG(test, got, 0xa0000 + i, "reference %u", i);
		if (got != 0xa0000 + i)
			break;
	}

	/* Through the bytes: native words at the documented places. */
	put_unaligned(0x01020304, (u32 *)(msgs[0].data + 24));
	put_unaligned(0x05060708, (u32 *)(msgs[0].data + 56));
	put_unaligned(0x090a0b0c, (u32 *)msgs[1].data);
	put_unaligned(0x0d0e0f10, (u32 *)(msgs[1].data + 56));
	put_unaligned(0x11121314, (u32 *)msgs[2].data);
	put_unaligned(0xfffffffe,
		      (u32 *)(msgs[FIPC_MSG_MAX_SLOTS - 1].data + 56));
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, 0), 0x01020304);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, 1), 0xa0001);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, FIPCBLK_HEAD_REFS - 1),
			0x05060708);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, FIPCBLK_HEAD_REFS), 0x090a0b0c);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, 23), 0x0d0e0f10);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, 24), 0x11121314);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, 25), 0xa0000 + 25);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, FIPCBLK_MAX_REFS - 1),
			0xfffffffe);

	/* The head slot's other fields are not references. */
	head = xfb_test_req(FIPCBLK_OP_WRITE, 0xff, U64_MAX, U32_MAX, 0xffff);
	for (i = 0; i < FIPCBLK_HEAD_REFS; i++)
		head.refs[i] = i;
	memcpy(msgs[0].data, &head, sizeof(head));
	for (i = 0; i < FIPCBLK_HEAD_REFS; i++)
		KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, i), i);
}

/*
 * xfb_pfn_pages(): a memshare request's pfns against the mapping of the
 * guest's memory.  The map's pages are stand-ins, never dereferenced.
 */
#define XFB_TEST_NPFNS	8

static int xfb_test_pfns(bool writable, u8 op,
			 const u32 *pfns, unsigned int n, struct page **got,
			 const char **why)
{
	static char stand_in[XFB_TEST_NPFNS];
	struct page *map[XFB_TEST_NPFNS];
	struct fipc_msg msgs[1] = { 0 };
	struct fipcblk_request req;
	unsigned int i;

	for (i = 0; i < XFB_TEST_NPFNS; i++)
		map[i] = i == 5 ? NULL : (struct page *)&stand_in[i];
	req = xfb_test_req(op, 0, 0, n * 4096, 0);
	for (i = 0; i < n; i++)
		req.refs[i] = pfns[i];
	memcpy(msgs[0].data, &req, sizeof(req));
	*why = "";
	return xfb_pfn_pages(map, XFB_TEST_NPFNS, writable, op, msgs, n, got,
			     why);
}

static void xfb_test_pfn_pages(struct kunit *test)
{
	static const u32 ok[] = { 1, 7, 0 };
	static const u32 past[] = { 2, XFB_TEST_NPFNS };
	static const u32 huge[] = { 0xffffffff };
	static const u32 unmapped[] = { 4, 5 };
	struct page *got[3] = { NULL };
	const char *why;

	/* A WRITE by pfn, on either mapping: the map's pages, in order. */
	KUNIT_EXPECT_EQ(test, xfb_test_pfns(false, FIPCBLK_OP_WRITE, ok,
					    3, got, &why), 0);
	KUNIT_EXPECT_TRUE(test, got[0] && got[1] && got[2]);
	KUNIT_EXPECT_TRUE(test, got[0] != got[1] && got[1] != got[2]);
	KUNIT_EXPECT_EQ(test, xfb_test_pfns(true, FIPCBLK_OP_WRITE, ok,
					    3, got, &why), 0);

	/* A READ by pfn only on a writable mapping. */
	KUNIT_EXPECT_EQ(test, xfb_test_pfns(false, FIPCBLK_OP_READ, ok,
					    3, got, &why), -EACCES);
	KUNIT_EXPECT_STREQ(test, why,
			   "only WRITE may name pages by pfn (read-only mapping)");
	memset(got, 0, sizeof(got));
	KUNIT_EXPECT_EQ(test, xfb_test_pfns(true, FIPCBLK_OP_READ, ok,
					    3, got, &why), 0);
	KUNIT_EXPECT_TRUE(test, got[0] && got[1] && got[2]);

	/* Never any other op, writable or not. */
	KUNIT_EXPECT_EQ(test, xfb_test_pfns(true, FIPCBLK_OP_FLUSH, ok,
					    1, got, &why), -EACCES);
	KUNIT_EXPECT_STREQ(test, why, "only READ and WRITE may name pages by pfn");
	KUNIT_EXPECT_EQ(test, xfb_test_pfns(true, FIPCBLK_OP_DISCARD, ok,
					    1, got, &why), -EACCES);
	KUNIT_EXPECT_EQ(test, xfb_test_pfns(true, 0x7f, ok, 1, got,
					    &why), -EACCES);

	/* pfns past the table, at the first one past it and at the top. */
	KUNIT_EXPECT_EQ(test, xfb_test_pfns(true, FIPCBLK_OP_READ, past,
					    2, got, &why), -ERANGE);
	KUNIT_EXPECT_STREQ(test, why, "pfn outside the shared table");
	KUNIT_EXPECT_EQ(test, xfb_test_pfns(false, FIPCBLK_OP_WRITE,
					    huge, 1, got, &why), -ERANGE);

	/* A pfn in the table that is not mapped. */
	KUNIT_EXPECT_EQ(test, xfb_test_pfns(true, FIPCBLK_OP_READ,
					    unmapped, 2, got, &why), -ENOENT);
	KUNIT_EXPECT_STREQ(test, why, "pfn not shared");
}

static struct kunit_case xfb_test_cases[] = {
	KUNIT_CASE_PARAM(xfb_test_request, xfb_request_gen_params),
	KUNIT_CASE(xfb_test_bad_flag_bits),
	KUNIT_CASE(xfb_test_channel_flags),
	KUNIT_CASE(xfb_test_bad_len),
	KUNIT_CASE(xfb_test_misaligned),
	KUNIT_CASE(xfb_test_bad_offset),
	KUNIT_CASE_PARAM(xfb_test_parse_uint, xfb_parse_gen_params),
	KUNIT_CASE(xfb_test_slots_short),
	KUNIT_CASE(xfb_test_slots_long),
	KUNIT_CASE(xfb_test_max_size),
	KUNIT_CASE(xfb_test_wire_helpers),
	KUNIT_CASE(xfb_test_ref_at),
	KUNIT_CASE(xfb_test_pfn_pages),
	{}
};

XFB_KUNIT_SUITE(fipcblk_validate, xfb_test_cases,
		"KUnit tests of the fipcblk backend's request validation");
