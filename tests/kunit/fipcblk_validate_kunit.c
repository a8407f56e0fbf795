// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the fipcblk backend's request validation
 * (linux/drivers/block/xen-fipc-back/back_validate.c).
 *
 * tests/kunit/run.sh builds this file with back_validate.c, unchanged,
 * in lib/fipcblk/ of the UML KUnit tree.  Every check of xfb_validate()
 * has a case: requests that must pass (and the number of page references
 * they yield) and each kind of hostile request, which must be refused
 * with the right status and the reason of that very check, so that a
 * request refused by an earlier, unrelated check does not count.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <asm/unaligned.h>
#include "back_validate.h"

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

static const struct xfb_limits xfb_test_disk = {
	.sectors = XFB_TEST_SECTORS,
	.lbs = 512,
	.max_bytes = SZ_1M,
	.discard = true,
	.secure = true,
};

/* The same disk with 4096-byte logical blocks. */
static const struct xfb_limits xfb_test_disk4k = {
	.sectors = XFB_TEST_SECTORS,
	.lbs = 4096,
	.max_bytes = SZ_1M,
	.discard = true,
	.secure = true,
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

/* The request passes and names exactly @want_refs pages: true if so. */
static bool xfb_expect_ok(struct kunit *test, int line,
			  const struct xfb_limits *lim,
			  const struct fipcblk_request *r,
			  unsigned int nslots, unsigned int want_refs)
{
	const char *why;
	unsigned int nrefs;
	int ret;

	ret = xfb_test_run(lim, r, nslots, &nrefs, &why);
	KUNIT_EXPECT_EQ_MSG(test, ret, FIPCBLK_RSP_OKAY,
			    "line %d: refused: %s", line,
			    why ? why : "(no reason)");
	KUNIT_EXPECT_EQ_MSG(test, nrefs, want_refs, "line %d", line);
	return ret == FIPCBLK_RSP_OKAY && nrefs == want_refs;
}

/* The request is refused with @status, for the reason @want_why: true if so. */
static bool xfb_expect_bad(struct kunit *test, int line,
			   const struct xfb_limits *lim,
			   const struct fipcblk_request *r,
			   unsigned int nslots, int status,
			   const char *want_why)
{
	const char *why;
	unsigned int nrefs;
	int ret;

	ret = xfb_test_run(lim, r, nslots, &nrefs, &why);
	KUNIT_EXPECT_EQ_MSG(test, ret, status, "line %d", line);
	KUNIT_EXPECT_NOT_NULL_MSG(test, why, "line %d: no reason", line);
	if (!why)
		return false;
	KUNIT_EXPECT_STREQ_MSG(test, why, want_why, "line %d", line);
	return ret == status && !strcmp(why, want_why);
}

#define EXPECT_OK(test, lim, r, nslots, nrefs) \
	xfb_expect_ok(test, __LINE__, lim, r, nslots, nrefs)
#define EXPECT_ERROR(test, lim, r, nslots, why) \
	xfb_expect_bad(test, __LINE__, lim, r, nslots, FIPCBLK_RSP_ERROR, why)
#define EXPECT_NOTSUPP(test, lim, r, nslots, why) \
	xfb_expect_bad(test, __LINE__, lim, r, nslots, \
		       FIPCBLK_RSP_EOPNOTSUPP, why)

static void xfb_test_good_read(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk;
	struct xfb_limits tiny = {
		.sectors = 1, .lbs = 512, .max_bytes = 4096,
	};
	struct xfb_limits ro = xfb_test_disk;
	struct fipcblk_request r;

	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, 512, 0);
	EXPECT_OK(test, lim, &r, 1, 1);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 8, 4096, 0);
	EXPECT_OK(test, lim, &r, 1, 1);
	/* 512 bytes at the end of a page, then one more page. */
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 8, 1024, 3584);
	EXPECT_OK(test, lim, &r, 1, 2);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 16, 8192, 512);
	EXPECT_OK(test, lim, &r, 1, 3);
	/* The head slot holds 9 references; a 10th needs a continuation. */
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, 9 * 4096, 0);
	EXPECT_OK(test, lim, &r, 1, 9);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, 9 * 4096, 512);
	EXPECT_OK(test, lim, &r, 2, 10);
	/* The last sector, and the whole device from its first one. */
	r = xfb_test_req(FIPCBLK_OP_READ, 0, XFB_TEST_SECTORS - 1, 512, 0);
	EXPECT_OK(test, lim, &r, 1, 1);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, 512, 0);
	EXPECT_OK(test, &tiny, &r, 1, 1);
	/* Reading a read-only device is fine. */
	ro.ro = true;
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 8, 4096, 0);
	EXPECT_OK(test, &ro, &r, 1, 1);
}

static void xfb_test_good_write(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk;
	struct fipcblk_request r;

	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, 24, 4096, 0);
	EXPECT_OK(test, lim, &r, 1, 1);
	r = xfb_test_req(FIPCBLK_OP_WRITE, FIPCBLK_F_FUA, 24, 4096, 0);
	EXPECT_OK(test, lim, &r, 1, 1);
	r = xfb_test_req(FIPCBLK_OP_WRITE, FIPCBLK_F_FUA, 1, 65536, 1024);
	EXPECT_OK(test, lim, &r, xfb_test_slots(17), 17);
	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, XFB_TEST_SECTORS - 8, 4096, 0);
	EXPECT_OK(test, lim, &r, 1, 1);
	/* 4096-byte blocks: aligned sector and length. */
	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, 8, 8192, 512);
	EXPECT_OK(test, &xfb_test_disk4k, &r, 1, 3);
}

static void xfb_test_good_flush(struct kunit *test)
{
	struct xfb_limits ro = xfb_test_disk;
	struct fipcblk_request r;

	r = xfb_test_req(FIPCBLK_OP_FLUSH, 0, 0, 0, 0);
	EXPECT_OK(test, &xfb_test_disk, &r, 1, 0);
	ro.ro = true;
	r = xfb_test_req(FIPCBLK_OP_FLUSH, 0, 0, 0, 0);
	EXPECT_OK(test, &ro, &r, 1, 0);
}

static void xfb_test_good_discard(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk;
	struct fipcblk_request r;

	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 64, 4096, 0);
	EXPECT_OK(test, lim, &r, 1, 0);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, FIPCBLK_F_SECURE, 64, 4096, 0);
	EXPECT_OK(test, lim, &r, 1, 0);
	/* A range, not data: not bounded by the largest request. */
	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 0, SZ_1G, 0);
	EXPECT_OK(test, lim, &r, 1, 0);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 8, SZ_1M, 0);
	EXPECT_OK(test, &xfb_test_disk4k, &r, 1, 0);
}

static void xfb_test_bad_op(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk;
	static const u8 ops[] = { 4, 5, 0x7f, 0x80, 0xff };
	struct fipcblk_request r;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		r = xfb_test_req(ops[i], 0, 0, 4096, 0);
		EXPECT_NOTSUPP(test, lim, &r, 1, WHY_OP);
		r = xfb_test_req(ops[i], 0, 0, 0, 0);
		EXPECT_NOTSUPP(test, lim, &r, 1, WHY_OP);
	}
}

static void xfb_test_bad_flags(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk;
	struct fipcblk_request r;
	unsigned int bit;

	/* FUA is a WRITE flag only, SECURE a DISCARD flag only. */
	r = xfb_test_req(FIPCBLK_OP_READ, FIPCBLK_F_FUA, 0, 4096, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_FLAGS);
	r = xfb_test_req(FIPCBLK_OP_READ, FIPCBLK_F_SECURE, 0, 4096, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_FLAGS);
	r = xfb_test_req(FIPCBLK_OP_WRITE, FIPCBLK_F_SECURE, 0, 4096, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_FLAGS);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, FIPCBLK_F_FUA, 0, 4096, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_FLAGS);
	/* Every undefined bit, alone and beside a valid flag. */
	for (bit = 2; bit < 8; bit++) {
		r = xfb_test_req(FIPCBLK_OP_READ, BIT(bit), 0, 4096, 0);
		EXPECT_ERROR(test, lim, &r, 1, WHY_FLAGS);
		r = xfb_test_req(FIPCBLK_OP_WRITE, BIT(bit) | FIPCBLK_F_FUA, 0,
				 4096, 0);
		EXPECT_ERROR(test, lim, &r, 1, WHY_FLAGS);
		r = xfb_test_req(FIPCBLK_OP_DISCARD,
				 BIT(bit) | FIPCBLK_F_SECURE, 0, 4096, 0);
		EXPECT_ERROR(test, lim, &r, 1, WHY_FLAGS);
	}
}

/* FIPCBLK_F_GRANTREFS: READ/WRITE on a memshare channel only. */
static void xfb_test_grantrefs(struct kunit *test)
{
	struct xfb_limits ms = xfb_test_disk;
	const struct xfb_limits *grant = &xfb_test_disk;
	struct fipcblk_request r;

	ms.memshare = true;
	r = xfb_test_req(FIPCBLK_OP_READ, FIPCBLK_F_GRANTREFS, 0, 4096, 0);
	EXPECT_OK(test, &ms, &r, 1, 1);
	EXPECT_ERROR(test, grant, &r, 1, WHY_FLAGS);
	r = xfb_test_req(FIPCBLK_OP_WRITE,
			 FIPCBLK_F_GRANTREFS | FIPCBLK_F_FUA, 0, 4096, 512);
	EXPECT_OK(test, &ms, &r, 1, 2);
	EXPECT_ERROR(test, grant, &r, 1, WHY_FLAGS);
	/* Never on requests without data. */
	r = xfb_test_req(FIPCBLK_OP_FLUSH, FIPCBLK_F_GRANTREFS, 0, 0, 0);
	EXPECT_ERROR(test, &ms, &r, 1, WHY_FLUSH);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, FIPCBLK_F_GRANTREFS, 0, 4096, 0);
	EXPECT_ERROR(test, &ms, &r, 1, WHY_FLAGS);
	/* The other undefined bits stay refused on memshare too. */
	r = xfb_test_req(FIPCBLK_OP_READ, FIPCBLK_F_GRANTREFS | BIT(4), 0,
			 4096, 0);
	EXPECT_ERROR(test, &ms, &r, 1, WHY_FLAGS);
	r = xfb_test_req(FIPCBLK_OP_READ, FIPCBLK_F_FUA, 0, 4096, 0);
	EXPECT_ERROR(test, &ms, &r, 1, WHY_FLAGS);
}

/*
 * FIPCBLK_F_STAGED: READ/WRITE on a memshare channel only, never with
 * FIPCBLK_F_GRANTREFS; the indices are checked at lookup, not here.
 */
static void xfb_test_staged(struct kunit *test)
{
	struct xfb_limits ms = xfb_test_disk;
	const struct xfb_limits *grant = &xfb_test_disk;
	struct fipcblk_request r;

	ms.memshare = true;
	r = xfb_test_req(FIPCBLK_OP_READ, FIPCBLK_F_STAGED, 0, 8192, 512);
	EXPECT_OK(test, &ms, &r, 1, 3);
	EXPECT_ERROR(test, grant, &r, 1, WHY_FLAGS);
	r = xfb_test_req(FIPCBLK_OP_WRITE, FIPCBLK_F_STAGED | FIPCBLK_F_FUA, 0,
			 4096, 0);
	EXPECT_OK(test, &ms, &r, 1, 1);
	EXPECT_ERROR(test, grant, &r, 1, WHY_FLAGS);
	r = xfb_test_req(FIPCBLK_OP_READ,
			 FIPCBLK_F_STAGED | FIPCBLK_F_GRANTREFS, 0, 4096, 0);
	EXPECT_ERROR(test, &ms, &r, 1, WHY_BOTH);
	r = xfb_test_req(FIPCBLK_OP_WRITE,
			 FIPCBLK_F_STAGED | FIPCBLK_F_GRANTREFS, 0, 4096, 0);
	EXPECT_ERROR(test, &ms, &r, 1, WHY_BOTH);
	r = xfb_test_req(FIPCBLK_OP_FLUSH, FIPCBLK_F_STAGED, 0, 0, 0);
	EXPECT_ERROR(test, &ms, &r, 1, WHY_FLUSH);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, FIPCBLK_F_STAGED, 0, 4096, 0);
	EXPECT_ERROR(test, &ms, &r, 1, WHY_FLAGS);
}

static void xfb_test_zero_len(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk;
	struct fipcblk_request r;

	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, 0, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_ZERO);
	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, 8, 0, 512);
	EXPECT_ERROR(test, lim, &r, 1, WHY_ZERO);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 8, 0, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_ZERO);
}

static void xfb_test_too_big(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk;
	struct fipcblk_request r;

	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, SZ_1M, 0);
	EXPECT_OK(test, lim, &r, xfb_test_slots(256), 256);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, SZ_1M + 512, 0);
	EXPECT_ERROR(test, lim, &r, xfb_test_slots(257), WHY_BIG);
	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, 0, SZ_1M + 4096, 0);
	EXPECT_ERROR(test, lim, &r, xfb_test_slots(257), WHY_BIG);
	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, 0, U32_MAX & ~511u, 0);
	EXPECT_ERROR(test, lim, &r, FIPC_MSG_MAX_SLOTS, WHY_BIG);
}

/* Lengths that are not whole logical blocks, with lbs 512 and 4096. */
static void xfb_test_bad_len(struct kunit *test)
{
	static const u32 len512[] = { 1, 100, 511, 513, 1000, 4095, 4097 };
	static const u32 len4k[] = { 512, 1024, 3584, 4608, 6144, 8192 + 512 };
	struct fipcblk_request r;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(len512); i++) {
		r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, len512[i], 0);
		EXPECT_ERROR(test, &xfb_test_disk, &r, 1, WHY_LEN);
		r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 0, len512[i], 0);
		EXPECT_ERROR(test, &xfb_test_disk, &r, 1, WHY_LEN);
	}
	for (i = 0; i < ARRAY_SIZE(len4k); i++) {
		r = xfb_test_req(FIPCBLK_OP_WRITE, 0, 8, len4k[i], 0);
		EXPECT_ERROR(test, &xfb_test_disk4k, &r,
			     xfb_test_slots(DIV_ROUND_UP(len4k[i], 4096)),
			     WHY_LEN);
		r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 8, len4k[i], 0);
		EXPECT_ERROR(test, &xfb_test_disk4k, &r, 1, WHY_LEN);
	}
	/* The same lengths are whole blocks of 512 bytes. */
	for (i = 0; i < ARRAY_SIZE(len4k); i++) {
		r = xfb_test_req(FIPCBLK_OP_WRITE, 0, 8, len4k[i], 0);
		EXPECT_OK(test, &xfb_test_disk, &r,
			  xfb_test_slots(DIV_ROUND_UP(len4k[i], 4096)),
			  DIV_ROUND_UP(len4k[i], 4096));
	}
}

/* A start sector inside a 4096-byte block. */
static void xfb_test_misaligned(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk4k;
	struct fipcblk_request r;
	u64 sector;

	for (sector = 1; sector < 8; sector++) {
		r = xfb_test_req(FIPCBLK_OP_READ, 0, sector, 4096, 0);
		EXPECT_ERROR(test, lim, &r, 1, WHY_ALIGN);
		r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 64 + sector, 4096, 0);
		EXPECT_ERROR(test, lim, &r, 1, WHY_ALIGN);
		/* Any sector is aligned with 512-byte blocks. */
		r = xfb_test_req(FIPCBLK_OP_READ, 0, sector, 4096, 0);
		EXPECT_OK(test, &xfb_test_disk, &r, 1, 1);
	}
}

static void xfb_test_bad_offset(struct kunit *test)
{
	static const u16 bad[] = { 1, 100, 511, 513, 4095, 4096, 4608,
				   8192, 0x8000, 0xfe00, 0xffff };
	const struct xfb_limits *lim = &xfb_test_disk;
	struct fipcblk_request r;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, 512, bad[i]);
		EXPECT_ERROR(test, lim, &r, 1, WHY_OFFSET);
		r = xfb_test_req(FIPCBLK_OP_WRITE, 0, 0, 512, bad[i]);
		EXPECT_ERROR(test, lim, &r, 1, WHY_OFFSET);
	}
	/* The last sector of the first page is a valid start. */
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, 512, 3584);
	EXPECT_OK(test, lim, &r, 1, 1);
}

static void xfb_test_beyond_end(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk;
	struct xfb_limits empty = { .lbs = 512, .max_bytes = 4096 };
	struct fipcblk_request r;

	r = xfb_test_req(FIPCBLK_OP_READ, 0, XFB_TEST_SECTORS, 512, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_RANGE);
	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, XFB_TEST_SECTORS + 8, 4096, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_RANGE);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, XFB_TEST_SECTORS, 4096, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_RANGE);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, 512, 0);
	EXPECT_ERROR(test, &empty, &r, 1, WHY_RANGE);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, XFB_TEST_SECTORS, 4096, 0);
	EXPECT_ERROR(test, &xfb_test_disk4k, &r, 1, WHY_RANGE);
}

static void xfb_test_straddle_end(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk;
	struct fipcblk_request r;

	r = xfb_test_req(FIPCBLK_OP_READ, 0, XFB_TEST_SECTORS - 1, 1024, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_RANGE);
	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, XFB_TEST_SECTORS - 7, 4096, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_RANGE);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 8, SZ_1G, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_RANGE);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, XFB_TEST_SECTORS - 8, 8192, 0);
	EXPECT_ERROR(test, &xfb_test_disk4k, &r, 1, WHY_RANGE);
	/* Ending exactly at the end is fine. */
	r = xfb_test_req(FIPCBLK_OP_READ, 0, XFB_TEST_SECTORS - 2, 1024, 0);
	EXPECT_OK(test, lim, &r, 1, 1);
}

/*
 * sector + length wraps around 2^64: refused, even on a device of 2^64 - 1
 * sectors, where a check by addition would wrap to a small end and pass.
 */
static void xfb_test_overflow(struct kunit *test)
{
	struct xfb_limits huge = xfb_test_disk;
	struct fipcblk_request r;

	huge.sectors = U64_MAX;
	r = xfb_test_req(FIPCBLK_OP_READ, 0, U64_MAX - 7, 4096, 0);
	EXPECT_ERROR(test, &xfb_test_disk, &r, 1, WHY_RANGE);
	EXPECT_ERROR(test, &huge, &r, 1, WHY_RANGE);
	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, U64_MAX - 1, 1024, 0);
	EXPECT_ERROR(test, &huge, &r, 1, WHY_RANGE);
	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, U64_MAX, 512, 0);
	EXPECT_ERROR(test, &huge, &r, 1, WHY_RANGE);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, U64_MAX - 1, 4096, 0);
	EXPECT_ERROR(test, &huge, &r, 1, WHY_RANGE);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, U64_MAX - 8, SZ_1G, 0);
	EXPECT_ERROR(test, &huge, &r, 1, WHY_RANGE);
	/* Up to the very last sector is still inside. */
	r = xfb_test_req(FIPCBLK_OP_READ, 0, U64_MAX - 2, 1024, 0);
	EXPECT_OK(test, &huge, &r, 1, 1);
}

static void xfb_test_write_ro(struct kunit *test)
{
	struct xfb_limits ro = xfb_test_disk;
	struct fipcblk_request r;

	ro.ro = true;
	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, 0, 4096, 0);
	EXPECT_ERROR(test, &ro, &r, 1, WHY_RO);
	r = xfb_test_req(FIPCBLK_OP_WRITE, FIPCBLK_F_FUA, 8, 512, 512);
	EXPECT_ERROR(test, &ro, &r, 1, WHY_RO);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 0, 4096, 0);
	EXPECT_ERROR(test, &ro, &r, 1, WHY_DISCARD_RO);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, FIPCBLK_F_SECURE, 0, 4096, 0);
	EXPECT_ERROR(test, &ro, &r, 1, WHY_DISCARD_RO);
}

static void xfb_test_flush_data(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk;
	struct fipcblk_request r;

	r = xfb_test_req(FIPCBLK_OP_FLUSH, 0, 0, 4096, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_FLUSH);
	r = xfb_test_req(FIPCBLK_OP_FLUSH, 0, 0, 0, 512);
	EXPECT_ERROR(test, lim, &r, 1, WHY_FLUSH);
	r = xfb_test_req(FIPCBLK_OP_FLUSH, FIPCBLK_F_FUA, 0, 0, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_FLUSH);
	r = xfb_test_req(FIPCBLK_OP_FLUSH, 0x80, 0, 0, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_FLUSH);
	r = xfb_test_req(FIPCBLK_OP_FLUSH, 0, 0, 0, 0);
	EXPECT_ERROR(test, lim, &r, 2, WHY_FLUSH);
	EXPECT_ERROR(test, lim, &r, FIPC_MSG_MAX_SLOTS, WHY_FLUSH);
}

/* A flush has no sector: any other than 0 would reach the bio as is. */
static void xfb_test_flush_sector(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk;
	struct fipcblk_request r;

	r = xfb_test_req(FIPCBLK_OP_FLUSH, 0, 8, 0, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_FLUSH_SECT);
	r = xfb_test_req(FIPCBLK_OP_FLUSH, 0, XFB_TEST_SECTORS, 0, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_FLUSH_SECT);
	r = xfb_test_req(FIPCBLK_OP_FLUSH, 0, U64_MAX, 0, 0);
	EXPECT_ERROR(test, lim, &r, 1, WHY_FLUSH_SECT);
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

static void xfb_test_parse_uint(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(xfb_parse_cases); i++) {
		const struct xfb_parse_case *c = &xfb_parse_cases[i];
		u32 val = 0xdeadbeef;
		int ret;

		ret = xfb_parse_uint(c->s, c->min, c->max, &val);
		KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "\"%s\" in %u..%u",
				    c->s, c->min, c->max);
		/* The output is written only on success. */
		KUNIT_EXPECT_EQ_MSG(test, val, c->ret ? 0xdeadbeef : c->val,
				    "\"%s\"", c->s);
	}
}

static void xfb_test_discard_unsupported(struct kunit *test)
{
	struct xfb_limits nod = xfb_test_disk;
	struct fipcblk_request r;

	nod.discard = false;
	nod.secure = false;
	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 0, 4096, 0);
	EXPECT_NOTSUPP(test, &nod, &r, 1, WHY_NODISCARD);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, FIPCBLK_F_SECURE, 0, 4096, 0);
	EXPECT_NOTSUPP(test, &nod, &r, 1, WHY_NODISCARD);
	/* Checked before read-only: EOPNOTSUPP, do not try again. */
	nod.ro = true;
	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 0, 4096, 0);
	EXPECT_NOTSUPP(test, &nod, &r, 1, WHY_NODISCARD);
}

static void xfb_test_secure_unsupported(struct kunit *test)
{
	struct xfb_limits nosec = xfb_test_disk;
	struct fipcblk_request r;

	nosec.secure = false;
	r = xfb_test_req(FIPCBLK_OP_DISCARD, FIPCBLK_F_SECURE, 0, 4096, 0);
	EXPECT_NOTSUPP(test, &nosec, &r, 1, WHY_NODISCARD);
	/* A plain discard still works. */
	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 0, 4096, 0);
	EXPECT_OK(test, &nosec, &r, 1, 0);
}

static void xfb_test_discard_layout(struct kunit *test)
{
	const struct xfb_limits *lim = &xfb_test_disk;
	struct fipcblk_request r;

	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 0, 4096, 512);
	EXPECT_ERROR(test, lim, &r, 1, WHY_DISCARD);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, 0, 0, 4096, 0);
	EXPECT_ERROR(test, lim, &r, 2, WHY_DISCARD);
	r = xfb_test_req(FIPCBLK_OP_DISCARD, FIPCBLK_F_SECURE, 0, SZ_1M, 0);
	EXPECT_ERROR(test, lim, &r, xfb_test_slots(256), WHY_DISCARD);
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
 * Every reference count up to the largest: one slot fewer is refused.
 * The loops stop at the first wrong answer, to keep the log readable.
 */
static void xfb_test_slots_short(struct kunit *test)
{
	struct xfb_limits lim = xfb_test_disk;
	struct fipcblk_request r;
	unsigned int n, need;

	lim.max_bytes = (XFB_MAX_MSG_REFS - 1) * FIPCBLK_PAGE_BYTES;
	for (n = 1; n <= XFB_MAX_MSG_REFS; n++) {
		r = xfb_test_nrefs(FIPCBLK_OP_READ, n, 3584);
		need = xfb_test_slots(n);
		if (!EXPECT_OK(test, &lim, &r, need, n) ||
		    !EXPECT_ERROR(test, &lim, &r, need - 1, WHY_SLOTS)) {
			KUNIT_FAIL(test, "wrong with %u references", n);
			break;
		}
	}
	/* Ten pages in the head slot alone. */
	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, 0, 10 * FIPCBLK_PAGE_BYTES, 0);
	EXPECT_ERROR(test, &lim, &r, 1, WHY_SLOTS);
	r = xfb_test_req(FIPCBLK_OP_WRITE, 0, 0, 25 * FIPCBLK_PAGE_BYTES, 0);
	EXPECT_ERROR(test, &lim, &r, 2, WHY_SLOTS);
}

/* One slot more than the references need is refused too. */
static void xfb_test_slots_long(struct kunit *test)
{
	struct xfb_limits lim = xfb_test_disk;
	struct fipcblk_request r;
	unsigned int n, need;

	lim.max_bytes = (XFB_MAX_MSG_REFS - 1) * FIPCBLK_PAGE_BYTES;
	for (n = 1; n <= XFB_MAX_MSG_REFS; n++) {
		r = xfb_test_nrefs(FIPCBLK_OP_WRITE, n, 512);
		need = xfb_test_slots(n);
		if (!EXPECT_OK(test, &lim, &r, need, n) ||
		    !EXPECT_ERROR(test, &lim, &r, need + 1, WHY_SLOTS)) {
			KUNIT_FAIL(test, "wrong with %u references", n);
			break;
		}
	}
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, 4096, 0);
	EXPECT_ERROR(test, &lim, &r, 2, WHY_SLOTS);
	EXPECT_ERROR(test, &lim, &r, FIPC_MSG_MAX_SLOTS, WHY_SLOTS);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, 9 * FIPCBLK_PAGE_BYTES, 0);
	EXPECT_ERROR(test, &lim, &r, 2, WHY_SLOTS);
}

/*
 * The largest request the backend can offer (fipc-max-request-bytes is
 * clamped to XFB_MAX_MSG_REFS - 1 pages) fills a message of the most
 * slots exactly, with its first page unaligned; and the default of 1 MiB
 * takes 257 pages in 18 slots (docs/protocol.md).
 */
static void xfb_test_max_size(struct kunit *test)
{
	struct xfb_limits lim = xfb_test_disk;
	struct fipcblk_request r;
	u32 max = (XFB_MAX_MSG_REFS - 1) * FIPCBLK_PAGE_BYTES;

	KUNIT_EXPECT_EQ(test, xfb_test_capacity(FIPC_MSG_MAX_SLOTS),
			XFB_MAX_MSG_REFS);
	KUNIT_EXPECT_EQ(test, xfb_test_slots(XFB_MAX_MSG_REFS),
			FIPC_MSG_MAX_SLOTS);

	lim.max_bytes = max;
	r = xfb_test_req(FIPCBLK_OP_WRITE, FIPCBLK_F_FUA, 8, max, 3584);
	EXPECT_OK(test, &lim, &r, FIPC_MSG_MAX_SLOTS, XFB_MAX_MSG_REFS);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 8, max, 512);
	EXPECT_OK(test, &lim, &r, FIPC_MSG_MAX_SLOTS, XFB_MAX_MSG_REFS);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 8, max, 0);
	EXPECT_OK(test, &lim, &r, xfb_test_slots(XFB_MAX_MSG_REFS - 1),
		  XFB_MAX_MSG_REFS - 1);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 8, max + 512, 0);
	EXPECT_ERROR(test, &lim, &r, FIPC_MSG_MAX_SLOTS, WHY_BIG);

	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, SZ_1M, 512);
	EXPECT_OK(test, &xfb_test_disk, &r, 18, 257);
	r = xfb_test_req(FIPCBLK_OP_READ, 0, 0, SZ_1M, 0);
	EXPECT_OK(test, &xfb_test_disk, &r, 18, 256);
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
	for (i = 0; i < XFB_MAX_MSG_REFS; i++) {
		got = xfb_ref_at(msgs, i);
		KUNIT_EXPECT_EQ_MSG(test, got, 0xa0000 + i, "reference %u", i);
		if (got != 0xa0000 + i)
			break;
	}

	/* Through the bytes: little-endian words at the documented places. */
	put_unaligned_le32(0x01020304, msgs[0].data + 24);
	put_unaligned_le32(0x05060708, msgs[0].data + 56);
	put_unaligned_le32(0x090a0b0c, msgs[1].data);
	put_unaligned_le32(0x0d0e0f10, msgs[1].data + 56);
	put_unaligned_le32(0x11121314, msgs[2].data);
	put_unaligned_le32(0xfffffffe, msgs[FIPC_MSG_MAX_SLOTS - 1].data + 56);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, 0), 0x01020304);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, 1), 0xa0001);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, FIPCBLK_HEAD_REFS - 1),
			0x05060708);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, FIPCBLK_HEAD_REFS), 0x090a0b0c);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, 23), 0x0d0e0f10);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, 24), 0x11121314);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, 25), 0xa0000 + 25);
	KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, XFB_MAX_MSG_REFS - 1),
			0xfffffffe);

	/* The head slot's other fields are not references. */
	head = xfb_test_req(FIPCBLK_OP_WRITE, 0xff, U64_MAX, U32_MAX, 0xffff);
	for (i = 0; i < FIPCBLK_HEAD_REFS; i++)
		head.refs[i] = i;
	memcpy(msgs[0].data, &head, sizeof(head));
	for (i = 0; i < FIPCBLK_HEAD_REFS; i++)
		KUNIT_EXPECT_EQ(test, xfb_ref_at(msgs, i), i);
}

static struct kunit_case xfb_test_cases[] = {
	KUNIT_CASE(xfb_test_good_read),
	KUNIT_CASE(xfb_test_good_write),
	KUNIT_CASE(xfb_test_good_flush),
	KUNIT_CASE(xfb_test_good_discard),
	KUNIT_CASE(xfb_test_bad_op),
	KUNIT_CASE(xfb_test_bad_flags),
	KUNIT_CASE(xfb_test_grantrefs),
	KUNIT_CASE(xfb_test_staged),
	KUNIT_CASE(xfb_test_zero_len),
	KUNIT_CASE(xfb_test_too_big),
	KUNIT_CASE(xfb_test_bad_len),
	KUNIT_CASE(xfb_test_misaligned),
	KUNIT_CASE(xfb_test_bad_offset),
	KUNIT_CASE(xfb_test_beyond_end),
	KUNIT_CASE(xfb_test_straddle_end),
	KUNIT_CASE(xfb_test_overflow),
	KUNIT_CASE(xfb_test_write_ro),
	KUNIT_CASE(xfb_test_flush_data),
	KUNIT_CASE(xfb_test_flush_sector),
	KUNIT_CASE(xfb_test_parse_uint),
	KUNIT_CASE(xfb_test_discard_unsupported),
	KUNIT_CASE(xfb_test_secure_unsupported),
	KUNIT_CASE(xfb_test_discard_layout),
	KUNIT_CASE(xfb_test_slots_short),
	KUNIT_CASE(xfb_test_slots_long),
	KUNIT_CASE(xfb_test_max_size),
	KUNIT_CASE(xfb_test_ref_at),
	{}
};

static struct kunit_suite xfb_test_suite = {
	.name = "fipcblk_validate",
	.test_cases = xfb_test_cases,
};

kunit_test_suite(xfb_test_suite);

MODULE_DESCRIPTION("KUnit tests of the fipcblk backend's request validation");
MODULE_LICENSE("GPL");
