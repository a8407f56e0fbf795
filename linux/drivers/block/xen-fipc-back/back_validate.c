// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: request validation.
 *
 * Works only on our private copy of the request (copied out of the ring
 * once by fipc_duplex_take_request()), so the frontend cannot change a
 * field between its check and its use.  Everything a request names is
 * checked here: op and flags, length, page offset, sector range
 * (overflow included), alignment to the logical block size, the device's
 * mode and features, and that the message has exactly the slots its
 * references need.
 *
 * Needs nothing but back_validate.h (no Xen, no block layer): the KUnit
 * suite tests/back_validate_kunit.c builds this file as is.
 */
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/nospec.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <fipc/fipc_duplex.h>
#include "back_validate.h"

/* lib/fipc implements the rings fipcblk.h specifies: the same numbers. */
static_assert(FIPC_SLOT_BYTES == FIPCBLK_SLOT_BYTES);
static_assert(FIPC_SLOT_PAYLOAD == FIPCBLK_MSG_BYTES);
static_assert(offsetof(struct fipc_slot, flag) == FIPCBLK_SLOT_FLAG_OFFSET);
static_assert(offsetof(struct fipcblk_slot, flag) ==
	      FIPCBLK_SLOT_FLAG_OFFSET);
static_assert(FIPC_PAGE_BYTES == FIPCBLK_PAGE_BYTES);
static_assert(FIPC_MIN_ORDER == FIPCBLK_RING_MIN_ORDER);
static_assert(FIPC_MAX_ORDER == FIPCBLK_RING_MAX_ORDER);
static_assert(FIPC_MSG_MAX_SLOTS == FIPCBLK_MSG_MAX_SLOTS);
static_assert(FIPC_FLAG_FREE == FIPCBLK_FLAG_FREE);
static_assert(FIPC_FLAG_READY == FIPCBLK_FLAG_READY);
static_assert(FIPC_FLAG_KIND_MASK == FIPCBLK_FLAG_KIND_MASK);
static_assert(FIPC_FLAG_LEN_MASK == FIPCBLK_FLAG_LEN_MASK);
static_assert(FIPC_FLAG_LEN_SHIFT == FIPCBLK_FLAG_LEN_SHIFT);
static_assert(FIPC_FLAG_SEQ_MASK == FIPCBLK_FLAG_STAMP_MASK);
static_assert(FIPC_DUPLEX_CALL == FIPCBLK_DUPLEX_CALL);
static_assert(FIPC_DUPLEX_POST == FIPCBLK_DUPLEX_POST);
static_assert(FIPC_DUPLEX_REPLY == FIPCBLK_DUPLEX_REPLY);
static_assert(FIPC_DUPLEX_ACK == FIPCBLK_DUPLEX_ACK);
static_assert(FIPCBLK_DUPLEX_LAP(1u << FIPC_DUPLEX_LAP_SHIFT(FIPC_MAX_ORDER),
				 FIPC_MAX_ORDER) == 1);

/**
 * xfb_ref_at() - the i-th page reference of a request message
 * @msgs: the message, head slot first
 * @i: index of the reference; the caller checked it against the slots
 *
 * Return: the reference.
 */
u32 xfb_ref_at(const struct fipc_msg *msgs, unsigned int i)
{
	return get_unaligned((const u32 *)(msgs[FIPCBLK_REF_SLOT(i)].data +
					   FIPCBLK_REF_OFFSET(i)));
}

/**
 * xfb_parse_dec() - a plain decimal number, strictly
 * @s: the text (need not be NUL-terminated)
 * @len: its length
 * @max: the largest value allowed, below U64_MAX / 10
 * @val: set to the value on success
 *
 * Only decimal digits make a number here: no sign, blank, base prefix
 * or trailing text, and not nothing (kstrtouint and "%u" take some of
 * these, and "%u" wraps "-1" and "4294967297" silently).
 *
 * Return: 0; -EINVAL if @s is empty or holds anything but digits;
 * -ERANGE if the number is above @max.
 */
int xfb_parse_dec(const char *s, size_t len, u64 max, u64 *val)
{
	u64 v = 0;
	size_t i;

	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		/* Saturate: once above @max, the number stays above it. */
		if (v <= max)
			v = v * 10 + (s[i] - '0');
	}
	if (v > max)
		return -ERANGE;
	*val = v;
	return 0;
}

/**
 * xfb_parse_uint() - parse a number the frontend wrote into xenstore
 * @s: the value as read, NUL-terminated
 * @min: smallest value allowed
 * @max: largest value allowed
 * @val: set to the value on success
 *
 * As xfb_parse_dec(), on the whole string.
 *
 * Return: 0; -EINVAL if @s is not made of decimal digits only; -ERANGE
 * if the number is outside [@min, @max].
 */
int xfb_parse_uint(const char *s, u32 min, u32 max, u32 *val)
{
	u64 v;
	int err = xfb_parse_dec(s, strlen(s), max, &v);

	if (err)
		return err;
	if (v < min)
		return -ERANGE;
	*val = v;
	return 0;
}

/* Is [sector, sector + bytes) inside the device and block aligned? */
static int xfb_check_range(const struct xfb_limits *lim, u64 sector,
			   u32 bytes, const char **why)
{
	u64 lbs_sectors = lim->lbs / FIPCBLK_SECTOR_BYTES;
	u64 nr = bytes / FIPCBLK_SECTOR_BYTES;

	if (!bytes) {
		*why = "zero length";
		return FIPCBLK_RSP_ERROR;
	}
	if (bytes % lim->lbs) {
		*why = "length not a multiple of the logical block size";
		return FIPCBLK_RSP_ERROR;
	}
	if (sector & (lbs_sectors - 1)) {
		*why = "sector not aligned to the logical block size";
		return FIPCBLK_RSP_ERROR;
	}
	/* Written so that nothing can overflow. */
	if (sector > lim->sectors || nr > lim->sectors - sector) {
		*why = "sector range outside the device";
		return FIPCBLK_RSP_ERROR;
	}
	return FIPCBLK_RSP_OKAY;
}

/**
 * xfb_validate() - check a request before anything acts on it
 * @lim: the device's limits
 * @req: private copy of the head slot
 * @nslots: number of slots the message had
 * @nrefs: set to the number of page references the request carries
 * @why: set to a reason when the request is refused
 *
 * Return: FIPCBLK_RSP_OKAY, or the status to answer with
 * (FIPCBLK_RSP_ERROR or FIPCBLK_RSP_EOPNOTSUPP).
 */
int xfb_validate(const struct xfb_limits *lim,
		 const struct fipcblk_request *req, unsigned int nslots,
		 unsigned int *nrefs, const char **why)
{
	u32 bytes = req->nr_bytes;
	int ret;

	*nrefs = 0;
	switch (req->op) {
	case FIPCBLK_OP_READ:
	case FIPCBLK_OP_WRITE:
		if (req->flags & ~((req->op == FIPCBLK_OP_WRITE ?
				    FIPCBLK_F_FUA : 0) |
				   (lim->memshare ? FIPCBLK_F_GRANTREFS : 0) |
				   (lim->staging ? FIPCBLK_F_STAGED : 0))) {
			*why = "unknown flags";
			return FIPCBLK_RSP_ERROR;
		}
		if ((req->flags & FIPCBLK_F_GRANTREFS) &&
		    (req->flags & FIPCBLK_F_STAGED)) {
			*why = "both grant references and staging pages";
			return FIPCBLK_RSP_ERROR;
		}
		if (req->op == FIPCBLK_OP_WRITE && lim->ro) {
			*why = "write to a read-only device";
			return FIPCBLK_RSP_ERROR;
		}
		if (bytes > lim->max_bytes) {
			*why = "request larger than fipc-max-request-bytes";
			return FIPCBLK_RSP_ERROR;
		}
		if (req->first_offset >= FIPCBLK_PAGE_BYTES ||
		    req->first_offset % FIPCBLK_SECTOR_BYTES) {
			*why = "bad first_offset";
			return FIPCBLK_RSP_ERROR;
		}
		ret = xfb_check_range(lim, req->sector, bytes, why);
		if (ret)
			return ret;
		*nrefs = DIV_ROUND_UP(req->first_offset + bytes,
				      FIPCBLK_PAGE_BYTES);
		if (nslots != FIPCBLK_REQ_SLOTS(*nrefs)) {
			*why = "slot count does not match the page references";
			return FIPCBLK_RSP_ERROR;
		}
		return FIPCBLK_RSP_OKAY;

	case FIPCBLK_OP_FLUSH:
		if (req->flags || bytes || req->first_offset || nslots != 1) {
			*why = "flush with flags, data or extra slots";
			return FIPCBLK_RSP_ERROR;
		}
		if (req->sector) {
			*why = "flush with a sector";
			return FIPCBLK_RSP_ERROR;
		}
		return FIPCBLK_RSP_OKAY;

	case FIPCBLK_OP_DISCARD:
		if (req->flags & ~FIPCBLK_F_SECURE) {
			*why = "unknown flags";
			return FIPCBLK_RSP_ERROR;
		}
		if (!lim->discard ||
		    ((req->flags & FIPCBLK_F_SECURE) && !lim->secure)) {
			*why = "discard not supported";
			return FIPCBLK_RSP_EOPNOTSUPP;
		}
		if (lim->ro) {
			*why = "discard on a read-only device";
			return FIPCBLK_RSP_ERROR;
		}
		if (req->first_offset || nslots != 1) {
			*why = "discard with a page offset or extra slots";
			return FIPCBLK_RSP_ERROR;
		}
		return xfb_check_range(lim, req->sector, bytes, why);

	default:
		*why = "unknown operation";
		return FIPCBLK_RSP_EOPNOTSUPP;
	}
}

/**
 * xfb_pfn_pages() - the pages a memshare request names by pfn
 * @map: the mapping of the guest's memory, pfn -> page (NULL: not mapped)
 * @npfns: entries of @map
 * @writable: @map is mapped writable (the frontend asked for it)
 * @op: the request's op
 * @msgs: the request message (private copy)
 * @nrefs: number of pfns it carries (validated)
 * @pages: filled with the pages
 * @why: set to a reason on failure
 *
 * Each pfn is bounded before it indexes @map (array_index_nospec, so not
 * even a speculative load goes past it).
 *
 * Return: 0, -EACCES if the request is neither a WRITE nor a READ on a
 * writable mapping, -ERANGE if a pfn is outside the table, -ENOENT if a
 * pfn is not mapped (not shared, or its reference could not be mapped).
 */
int xfb_pfn_pages(struct page *const *map, unsigned long npfns,
		  bool writable, u8 op, const struct fipc_msg *msgs,
		  unsigned int nrefs, struct page **pages, const char **why)
{
	unsigned int i;

	if (op != FIPCBLK_OP_WRITE && !(op == FIPCBLK_OP_READ && writable)) {
		*why = writable ?
		       "only READ and WRITE may name pages by pfn" :
		       "only WRITE may name pages by pfn (read-only mapping)";
		return -EACCES;
	}
	for (i = 0; i < nrefs; i++) {
		unsigned long pfn = xfb_ref_at(msgs, i);

		if (pfn >= npfns) {
			*why = "pfn outside the shared table";
			return -ERANGE;
		}
		pfn = array_index_nospec(pfn, npfns);
		pages[i] = READ_ONCE(map[pfn]);
		if (!pages[i]) {
			*why = "pfn not shared";
			return -ENOENT;
		}
	}
	return 0;
}
