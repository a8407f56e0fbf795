/* SPDX-License-Identifier: MIT */
/*
 * fipcblk.h
 *
 * The fipc block device protocol: a para-virtual block device whose
 * requests and responses travel over fipc channels (rings of 64-byte
 * slots, each slot with its own ready/free flag; see docs/protocol.md)
 * served by polling threads, instead of blkif's shared-counter ring and
 * an event-channel notification per batch.
 *
 * The xenbus device type is "fipcblk", so classic "vbd" disks keep
 * working beside ours:
 *   frontend: /local/domain/<domid>/device/fipcblk/<devid>
 *   backend:  /local/domain/<bdomid>/backend/fipcblk/<domid>/<devid>
 * Device ids use the usual xvd* encoding of vbd devices.
 */
#ifndef __XEN_PUBLIC_IO_FIPCBLK_H__
#define __XEN_PUBLIC_IO_FIPCBLK_H__

/*
 * Protocol version.  The backend writes the versions it supports; the
 * frontend picks one it also supports and writes it back.  Ends with no
 * version in common refuse each other: the frontend reports the error in
 * its "error" node and goes to Closed.
 */
#define FIPCBLK_PROTOCOL_VERSION	1

/*
 * XenStore keys.  Keys shared with blkif ("sectors", "info", ...) keep
 * blkif's meaning so that existing tools read them.
 *
 * Written by the toolstack, backend directory:
 *   params, mode, type, frontend, frontend-id, online, removable,
 *   bootable, dev, device-type, physical-device (hotplug script)
 *   fipc-memshare-allowed  0/1: the backend may map the guest's memory
 *   fipc-max-queues        optional cap on channels
 *   fipc-poller-cpus       optional CPU list for the backend's pollers
 *   fipc-weight            optional share of the pollers, 1-65535 (default
 *                          256, as Xen's credit scheduler; xl: phy1 disk
 *                          keyword weight=N): each visit of
 *                          a channel takes up to poll_budget x weight / 256
 *                          requests (at least 1); read at each connect; the
 *                          backend writes it too when set in its sysfs
 * Written by the toolstack, frontend directory:
 *   backend, backend-id, virtual-device, device-type
 *   fipc-memshare          0/1: the guest owner's consent to memshare
 *
 * Written by the backend (before InitWait):
 *   fipc-protocol-versions   space-separated list, e.g. "1"
 *   multi-queue-max-queues   channels it accepts
 *   fipc-max-ring-order      log2 of the largest ring, in 4 KiB pages
 *   fipc-max-request-bytes   largest data length of one request
 *   fipc-data-paths          space-separated: "grant" and/or "memshare"
 *   fipc-staging-max-pages   memshare: staging pages per channel it maps
 *                            (absent or 0: no staging)
 * Written by the backend (before Connected):
 *   sectors                  capacity in 512-byte sectors
 *   info                     VDISK_* bits as blkif (VDISK_READONLY = 4)
 *   sector-size              logical block size, 512 or 4096
 *   physical-sector-size     physical block size
 *   feature-flush-cache      1 if FLUSH is supported
 *   feature-fua              1 if FIPCBLK_F_FUA is supported
 *   feature-discard          1 if DISCARD is supported, then also
 *   discard-granularity, discard-alignment, discard-secure (0/1)
 *
 * Written by the frontend (before Initialised):
 *   fipc-protocol            the chosen version
 *   multi-queue-num-queues   number of channels, at least 1
 *   fipc-ring-order          log2 of each ring's size in 4 KiB pages
 *   fipc-data-path           "grant" or "memshare"
 *   fipc-memshare-dir-ref    memshare only: grant ref of the directory page
 *   fipc-memshare-pfns       memshare only: entries of the pfn table
 *   queue-<q>/req-ring-ref<i>   grant refs of the request ring pages
 *   queue-<q>/rsp-ring-ref<i>   grant refs of the response ring pages
 *   queue-<q>/ctrl-ring-ref     grant ref of the channel's control page
 *   queue-<q>/event-channel     port used only to wake a sleeping poller
 *   queue-<q>/fipc-staging-ref    memshare only, optional: grant ref of the
 *                                 channel's staging list page
 *   queue-<q>/fipc-staging-pages  its number of staging pages
 *
 * Every number the frontend writes is a plain decimal number (digits
 * only: no sign, blank, base prefix or trailing text) in its range; a
 * grant reference is never one of the reserved entries (0 to 7).  The
 * backend refuses anything else with an error node, it does not wrap or
 * default it.
 *
 * Each channel has a request ring (frontend to backend) and a response
 * ring (backend to frontend), both of 2^fipc-ring-order pages laid out
 * as fipc rings, and one control page (struct fipcblk_ctrl).
 */

/* Request operations. */
#define FIPCBLK_OP_READ		0
#define FIPCBLK_OP_WRITE	1
/* FLUSH: no data, sector 0; completes after all prior writes are stable. */
#define FIPCBLK_OP_FLUSH	2
#define FIPCBLK_OP_DISCARD	3	/* no data; nr_bytes is the range length */

/* Request flags. */
#define FIPCBLK_F_FUA		0x01	/* WRITE: stable on media before completion */
#define FIPCBLK_F_SECURE	0x02	/* DISCARD: secure erase (if discard-secure) */
/*
 * READ/WRITE on a "memshare" channel only: refs[] are grant references
 * (granted for this request, as on the grant path), not guest frame
 * numbers.  Set on every READ, and on a WRITE whose pages the frontend
 * cannot name by pfn (a page outside the shared table, or whose frame
 * changed since connect, e.g. after ballooning).  Refused on a grant
 * channel.
 */
#define FIPCBLK_F_GRANTREFS	0x04
/*
 * READ/WRITE on a "memshare" channel with staging pages only: refs[] are
 * indices into the channel's staging pages (see below), not pfns.  Not
 * together with FIPCBLK_F_GRANTREFS.
 */
#define FIPCBLK_F_STAGED	0x08

/* Response status. */
#define FIPCBLK_RSP_OKAY	0
#define FIPCBLK_RSP_ERROR	(-1)
#define FIPCBLK_RSP_EOPNOTSUPP	(-2)

/*
 * Data addressing.  A request's data is one run of bytes that starts at
 * first_offset in its first page and continues through whole pages, like
 * an NVMe PRP list: the frontend sets the block layer's virtual boundary
 * to the page size, so only the first and last pages may be partial.  The
 * pages are named by 32-bit references: grant references on the "grant"
 * data path, guest frame numbers on the "memshare" path.  The number of
 * references is DIV_ROUND_UP(first_offset + nr_bytes, 4096).
 *
 * A request is one fipc message of one or more slots: the head slot holds
 * struct fipcblk_request with the first FIPCBLK_HEAD_REFS references, and
 * each continuation slot holds FIPCBLK_CONT_REFS more.  A response is one
 * slot.  Integers are little-endian (both ends run on one machine).
 *
 * Each structure is exactly FIPCBLK_MSG_BYTES (one slot's 60 payload
 * bytes).  Request and response hold 64-bit fields, so without packing
 * their natural alignment would pad them to 64 bytes and a copy of
 * sizeof() bytes would run into the slot's flag word; they are packed
 * to 4-byte alignment (no field moves: every field keeps its natural
 * offset, and the 64-bit ones stay 8-byte aligned within the slot).
 */
#define FIPCBLK_MSG_BYTES	60
#define FIPCBLK_PAGE_BYTES	4096
#define FIPCBLK_SECTOR_BYTES	512
#define FIPCBLK_HEAD_REFS	9
#define FIPCBLK_CONT_REFS	15

#pragma pack(push, 4)
struct fipcblk_request {
	uint64_t id;		/* echoed in the response */
	uint64_t sector;	/* start, in 512-byte sectors */
	uint32_t nr_bytes;	/* data (or discard range) length in bytes */
	uint16_t first_offset;	/* byte offset of the data in the first page */
	uint8_t op;		/* FIPCBLK_OP_* */
	uint8_t flags;		/* FIPCBLK_F_* */
	uint32_t refs[FIPCBLK_HEAD_REFS];
};

struct fipcblk_request_cont {
	uint32_t refs[FIPCBLK_CONT_REFS];
};

struct fipcblk_response {
	uint64_t id;		/* the request's id */
	int16_t status;		/* FIPCBLK_RSP_* */
	uint8_t op;		/* the request's op */
	uint8_t pad[49];
};

#pragma pack(pop)

/*
 * The memshare data path ("fipc-data-path" = "memshare", offered only when
 * the backend's directory has fipc-memshare-allowed = 1 and chosen only
 * when the frontend's has fipc-memshare = 1).  At connect the frontend
 * grants every RAM page it has (pfn 0 to fipc-memshare-pfns - 1) to the
 * backend once, read-only, and publishes a pfn -> grant reference table:
 *
 *   table page t (4 KiB, granted): uint32 refs[1024], the grant
 *     reference of pfn t * 1024 + i, or 0 where that pfn is not shared
 *     (not RAM, ballooned out, no frame);
 *   directory page (granted, its reference in
 *     fipc-memshare-dir-ref): uint32 refs[1024], the grant reference of
 *     table page t at index t, for t < DIV_ROUND_UP(pfns, 1024).
 *
 * fipc-memshare-pfns is at most FIPCBLK_MEMSHARE_MAX_PFNS (one directory
 * page: 4 GiB of guest memory).  The backend copies the directory and
 * tables once into private memory and maps every listed reference,
 * read-only, for the life of the connection; WRITE requests then carry
 * pfns in refs[] (no per-request grant), unless they have
 * FIPCBLK_F_GRANTREFS or FIPCBLK_F_STAGED.  In a PV guest a frame another
 * domain maps writable cannot become a page table, so the whole memory is
 * shared read-only and a READ never names pfns.  A READ by pfn, a pfn
 * outside the table, or one whose entry the backend could not map, fails
 * the request (FIPCBLK_RSP_ERROR).  The frontend revokes the grants only
 * after the backend has unmapped them (disconnect).
 *
 * Staging pages (memshare, optional, per channel): where the backend
 * offers fipc-staging-max-pages, the frontend may give each channel up to
 * that many pages of its own, granted writable once at connect (pages
 * the frontend keeps for this use only, so never page tables), listed in
 * a granted list page (uint32 refs[1024], index i = staging page i) named
 * by queue-<q>/fipc-staging-ref, with queue-<q>/fipc-staging-pages
 * entries.  The backend copies the list once and maps every page
 * writable for the life of the connection, or, where that would pass its
 * budget of long-lived mappings, maps the pages a request names for that
 * request only (the frontend sees no difference; the grants stay valid
 * for the connection either way).  A READ with FIPCBLK_F_STAGED
 * names staging pages by index, with the request's usual page layout
 * (first_offset, then whole pages); the backend's device writes there and
 * the frontend copies the data out once the response arrives.  A WRITE
 * may use them the same way (the frontend copies the data in first), for
 * pages it cannot name by pfn.  Kept mapped, neither side calls Xen per
 * request.  An
 * index at or past fipc-staging-pages fails the request; two requests in
 * flight naming the same staging page only mix the guest's own data.
 * A READ that does not fit in the free staging pages goes with grants.
 */
#define FIPCBLK_MEMSHARE_REFS_PER_PAGE	1024
#define FIPCBLK_MEMSHARE_MAX_PFNS	(1024 * 1024)
#define FIPCBLK_STAGING_MAX_PAGES	1024

/*
 * Channel control page: each end's "I am asleep" word in a cache line of
 * its own.  A poller that finds its rings idle for a while sets its word,
 * makes it visible with a full barrier, checks its rings once more, and
 * blocks on the event channel.  After publishing a message a sender reads
 * the peer's word (a line nobody writes while both poll, so the read
 * costs nothing) and notifies the event channel only if it is set.  Under
 * load no notification is ever sent.
 */
struct fipcblk_ctrl {
	uint32_t front_sleeping;
	uint8_t pad0[60];
	uint32_t back_sleeping;
	uint8_t pad1[60];
};

#endif /* __XEN_PUBLIC_IO_FIPCBLK_H__ */
