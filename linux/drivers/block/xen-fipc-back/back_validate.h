/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xen-fipc-back: request validation (back_validate.c).
 *
 * Only the wire format (fipcblk.h), the fipc message type and generic
 * kernel headers: the validator builds without Xen, so the KUnit suite
 * (tests/back_validate_kunit.c) runs it under UML as is.
 */
#ifndef _XEN_FIPC_BACK_VALIDATE_H
#define _XEN_FIPC_BACK_VALIDATE_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include <fipc/fipc.h>
#include <xen/interface/io/fipcblk.h>

/**
 * struct xfb_limits - what a valid request must respect
 * @sectors: device capacity in 512-byte sectors
 * @lbs: logical block size in bytes
 * @max_bytes: largest data length
 * @ro: read-only device
 * @discard: DISCARD supported
 * @secure: secure DISCARD supported
 * @memshare: memshare channel: READ/WRITE may carry FIPCBLK_F_GRANTREFS
 * @staging: the channels may have staging pages (memshare, or grant with
 *	fipc-grant-staging): READ/WRITE may carry FIPCBLK_F_STAGED (not
 *	with FIPCBLK_F_GRANTREFS)
 */
struct xfb_limits {
	u64 sectors;
	u32 lbs;
	u32 max_bytes;
	bool ro;
	bool discard;
	bool secure;
	bool memshare;
	bool staging;
};

int xfb_validate(const struct xfb_limits *lim,
		 const struct fipcblk_request *req, unsigned int nslots,
		 unsigned int *nrefs, const char **why);
u32 xfb_ref_at(const struct fipc_msg *msgs, unsigned int i);

struct page;
int xfb_pfn_pages(struct page *const *map, unsigned long npfns,
		  bool writable, u8 op, const struct fipc_msg *msgs,
		  unsigned int nrefs, struct page **pages, const char **why);
int xfb_parse_dec(const char *s, size_t len, u64 max, u64 *val);
int xfb_parse_uint(const char *s, u32 min, u32 max, u32 *val);

#endif /* _XEN_FIPC_BACK_VALIDATE_H */
