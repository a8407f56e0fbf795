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
 * its "error" node and goes to Closed; the backend refuses any other
 * version the frontend writes with its "error" node.
 *
 * Version 3, the only one: each channel is one duplex ring and a control
 * page (see "Rings" below).
 */
#define FIPCBLK_PROTOCOL_DUPLEX		3
/*
 * Retired versions, refused by name.  Version 1 (fipc until issue 47)
 * gave each channel two one-way rings, a request ring and a response ring
 * (queue-<q>/rsp-ring-ref<i>; FIPCBLK_FLAG() below).  Version 2 (fipc
 * 0.254 to 0.356) was the duplex ring with the position's low 16 bits as
 * each flag's stamp instead of the lap's.
 */
#define FIPCBLK_PROTOCOL_TWO_RINGS	1
#define FIPCBLK_PROTOCOL_POS_STAMP	2

/*
 * Byte order.  Every integer of this protocol (slot flags, message
 * fields, the memshare and staging tables, the control page) is in the
 * byte order of the machine both domains run on, as in every Xen PV
 * protocol (blkif, netif): the two ends share one host, and Xen runs only
 * on little-endian machines (x86, Arm), so in practice little-endian.
 * Numbers in xenstore are text.
 *
 * ---------------------------------------------------------------------
 * Rings
 *
 * A channel is one duplex ring, which carries the frontend's requests
 * and the backend's responses, and a control page (struct fipcblk_ctrl).
 * The ring is 2^order pages of FIPCBLK_PAGE_BYTES, order
 * FIPCBLK_RING_MIN_ORDER to FIPCBLK_RING_MAX_ORDER, cut into
 * FIPCBLK_RING_SLOTS(order) slots of FIPCBLK_SLOT_BYTES (one cache line):
 * FIPCBLK_MSG_BYTES of payload, then a 32-bit flag word at byte
 * FIPCBLK_SLOT_FLAG_OFFSET.  The ring memory holds nothing else: no
 * producer or consumer index.  The frontend allocates the ring and zeroes
 * it before granting it; a zeroed ring is empty.
 *
 * Each end keeps its cursors in private memory: 32-bit positions that
 * only grow (modulo 2^32), all starting at 0; position pos lives in slot
 * pos & (slots - 1).  Nobody writes a slot free.  The flag word of a slot
 * is FIPCBLK_DUPLEX_FLAG(kind, count, lap): a kind in bits 31..24, a
 * count in bits 23..16 and the stamp lap & 0xffff, where lap is the
 * slot's position divided by the number of slots, pos >> (6 +
 * fipc-ring-order) (every slot of one lap has the same stamp):
 *
 *   FIPCBLK_DUPLEX_CALL    a request (count: its length in slots, 1 to
 *                          FIPCBLK_MSG_MAX_SLOTS, in the head, 0 in
 *                          continuations)
 *   FIPCBLK_DUPLEX_POST    a request that wants no response: never sent
 *                          by a fipcblk frontend, a protocol violation
 *   FIPCBLK_DUPLEX_REPLY   a response (count: positions it retires, >= 1)
 *   FIPCBLK_DUPLEX_ACK     no payload; retires count positions
 *
 * The frontend (client) writes each request at its submit position:
 * the payload, then the flag, of each continuation slot; then the head
 * slot's payload, then its flag with release ordering, so the whole
 * request is visible before it.  It may fill positions up to one ring
 * ahead of its done position.  The backend (server) reads requests in
 * order at its read position (the head's flag with acquire ordering),
 * copies each payload once into private memory and uses only the copy,
 * and writes each response, in any order of completion, at its
 * completion position, which only covers positions whose requests it has
 * read: a response's count retires every position read that no other
 * unanswered request needs, one being kept for each; an acknowledgment
 * retires continuation slots early.  The frontend reads responses and
 * acknowledgments in order at its done position, which moves by their
 * count.  Either end checks every flag against what the position may
 * hold (kind, stamp, a count within what is outstanding) and stops using
 * the channel otherwise: it is never resynchronised (the frontend and
 * backend both report it in their "error" node and close).
 *
 * Exactly, with slots = FIPCBLK_RING_SLOTS(order), the frontend's
 * cursors submit and done, held = submit - done (at most slots) and
 * calls (requests without their response yet), and the backend's read,
 * complete (its completion position) and unanswered (requests read
 * without a response yet); each flag is stamped with the lap of the
 * position it is written at:
 *
 *   A request of n slots (1 to FIPCBLK_MSG_MAX_SLOTS): the head, at
 *     submit, flagged CALL with count n; continuations flagged CALL with
 *     count 0.  The backend takes it only if its head is stamped with
 *     read's lap, its continuation flags are exactly those, and
 *     read + n - complete <= slots.
 *   A response, written at complete, has the count
 *     read - complete - unanswered + 1 and retires the positions
 *     complete to complete + count - 1 (only the slot at complete is
 *     written).  An acknowledgment retires at most
 *     read - complete - unanswered.  A count is at most 255: the backend
 *     acknowledges first what a response's count would not hold.
 *   At done, when held > 0, stamped with done's lap: a response, if
 *     calls >= 1 and 1 <= count <= held - (calls - 1); an
 *     acknowledgment, if 1 <= count <= held - calls; the frontend's own
 *     CALL flag (count at most FIPCBLK_MSG_MAX_SLOTS): no response yet.
 *   "Nothing yet" at read, or at done when held = 0, is what position
 *     pos - slots left: 0 (in the first lap only, pos < slots); a CALL
 *     or POST flag with count at most FIPCBLK_MSG_MAX_SLOTS stamped with
 *     the lap before pos's; or, if that position has been retired
 *     (always at done; at read when read - complete < slots), a REPLY
 *     or ACK flag with count >= 1 stamped with that lap.
 *   Anything else breaks the channel.
 *
 * On x86 the release and acquire orderings are plain stores and loads
 * with a compiler barrier.  docs/protocol.md "Duplex ring" has the full
 * rules and lib/fipc/include/fipc/fipc_duplex.h implements them.  The
 * kind 0xa5 (FIPCBLK_FLAG_READY) was the retired one-way ring's (protocol
 * version 1): a duplex ring never holds it.
 *
 * ---------------------------------------------------------------------
 * XenStore keys
 *
 * Keys shared with blkif ("sectors", "info", ...) keep blkif's meaning so
 * that existing tools read them.  Each entry: key, type, [default] and
 * meaning.  "u" is a plain decimal number: digits only (no sign, blank,
 * base prefix or trailing text) and in its range; a grant reference is
 * never one of the reserved entries 0 to 7.  The backend refuses any other
 * value the frontend writes (error node, no connection); it never wraps
 * or defaults it.
 *
 * Backend directory, written by the toolstack (xl "phy1:", see
 * docs/xl-phy1.md) before the backend probes:
 *   params, mode, type, frontend, frontend-id, online, removable, bootable,
 *   dev, device-type                 as for vbd
 *   script                the hotplug script, e.g. /etc/xen/scripts/
 *                                    block-fipc (libxl writes one for every
 *                                    disk): the backend connects once the
 *                                    script wrote physical-device; without
 *                                    it, it opens the device in params
 *   physical-device       "major:minor" in hex, by the hotplug script
 *   fipc-memshare-allowed u 0/1 [0]  the backend may map the guest's memory
 *   fipc-max-queues       u 1..256 [absent: the backend's own cap]
 *                                    cap on channels
 *   fipc-poller-cpus      Linux CPU list [absent: any] the CPUs of the
 *                                    backend's pollers for this disk
 *   fipc-weight           u 1..65535 [256, as Xen's credit scheduler]
 *                                    the disk's share of the pollers: each
 *                                    visit of a channel takes up to
 *                                    poll_budget x weight / 256 requests
 *                                    (at least 1); read at each connect;
 *                                    the backend rewrites it when it is
 *                                    changed in its sysfs
 *   fipc-iops, fipc-iops-read, fipc-iops-write
 *                         u 1..2^40 or "none" [none] requests a second,
 *                                    all, reads, writes (a flush or
 *                                    discard is a write)
 *   fipc-bps, fipc-bps-read, fipc-bps-write
 *                         u 1..2^40 or "none" [none] bytes a second
 *   fipc-burst-ms         u 1..60000 [100] how long the disk may run at
 *                                    full rate after a quiet while; the
 *                                    caps are read at each connect (any
 *                                    other value: error node, no
 *                                    connection) and rewritten when
 *                                    changed in sysfs (limits/)
 *   fipc-guest-iops, fipc-guest-iops-read, fipc-guest-iops-write,
 *   fipc-guest-bps, fipc-guest-bps-read, fipc-guest-bps-write,
 *   fipc-guest-burst-ms   as the seven above, for all the guest's disks
 *                                    together; a disk that has any of
 *                                    them sets the guest's total at its
 *                                    connect (absent ones: none, 100);
 *                                    one with none leaves it as it is
 *
 * Frontend directory, written by the toolstack:
 *   backend, backend-id, virtual-device, device-type, state   as for vbd
 *   trusted               u 0/1 [1]  0: the guest bounces data through
 *                                    pages of its own, never granting its
 *                                    I/O pages to the backend
 *   fipc-memshare         u 0/1 [0]  the guest owner's consent to memshare
 *
 * Backend directory, written by the backend before InitWait:
 *   fipc-protocol-versions  space-separated list of u: "3"
 *   multi-queue-max-queues  u >= 1   channels it accepts
 *   fipc-max-ring-order     u 0..4   largest ring order it maps
 *   fipc-max-request-bytes  u        largest data length of one request,
 *                                    at most FIPCBLK_MAX_REQUEST_BYTES
 *   fipc-data-paths         space-separated: "grant" and/or "memshare"
 *   fipc-staging-max-pages  u 0..FIPCBLK_STAGING_MAX_PAGES [0]  staging
 *                                    pages per channel it maps (memshare,
 *                                    and grant if fipc-grant-staging)
 *   fipc-memshare-writable  u 0/1 [0] memshare: the backend maps the
 *                                    memory writable if the frontend asks
 *   fipc-grant-staging      u 0/1 [0] staging pages are welcome on the
 *                                    grant data path too
 * Backend directory, written by the backend before Connected:
 *   sectors                 u        capacity in 512-byte sectors; rewritten
 *                                    when the device is resized
 *   info                    u        VDISK_* bits as blkif (VDISK_READONLY
 *                                    = 4)
 *   sector-size             u        logical block size, 512 or 4096
 *   physical-sector-size    u        physical block size
 *   feature-flush-cache     u 0/1    FIPCBLK_OP_FLUSH is supported
 *   feature-fua             u 0/1    FIPCBLK_F_FUA is supported
 *   feature-discard         u 0/1    FIPCBLK_OP_DISCARD is supported, and
 *   discard-granularity, discard-alignment (u, bytes), discard-secure
 *                           (u 0/1: FIPCBLK_F_SECURE is supported)
 *
 * Frontend directory, written by the frontend before Initialised (all in
 * one transaction):
 *   fipc-protocol           u        the chosen version, 3
 *   multi-queue-num-queues  u 1..multi-queue-max-queues  channels
 *   fipc-ring-order         u 0..fipc-max-ring-order  log2 of each ring's
 *                                    pages
 *   fipc-data-path          "grant" or "memshare" (one the backend offers)
 *   fipc-memshare-dir-ref   u (grant ref)  memshare: the directory page
 *   fipc-memshare-pfns      u 1..FIPCBLK_MEMSHARE_MAX_PFNS  memshare:
 *                                    entries of the pfn table
 *   fipc-memshare-writable  u 0..backend's fipc-memshare-writable [0]
 *                                    memshare: the pages are granted
 *                                    writable and READs name pfns too
 *   queue-<q>/req-ring-ref<i>  u (grant ref)  page i of queue q's duplex
 *                                    ring, i < 2^fipc-ring-order (the
 *                                    name of version 1's request ring)
 *   queue-<q>/ctrl-ring-ref    u (grant ref)  queue q's control page
 *   queue-<q>/event-channel    u      port used only to wake a sleeping
 *                                    poller (see struct fipcblk_ctrl)
 *   queue-<q>/fipc-staging-ref   u (grant ref)  memshare, or grant with
 *                                    fipc-grant-staging; optional: the
 *                                    channel's staging list page
 *   queue-<q>/fipc-staging-pages u 1..fipc-staging-max-pages  its entries
 * The queue-<q>/ directories are used even for a single queue (q = 0).
 *
 * The "error" node (text: why that end refused or closed) is in neither
 * directory: xenbus_dev_error() and xenbus_dev_fatal() write it under the
 * writer's domain at error/<its directory>/error, that is
 * /local/domain/<backend domid>/error/backend/fipcblk/<domid>/<devid>/error
 * and /local/domain/<domid>/error/device/fipcblk/<devid>/error.
 *
 * ---------------------------------------------------------------------
 * States (XenbusState*)
 *
 *   Backend                            Frontend
 *   probe: writes its offer, InitWait
 *                                      on InitWait: picks the version,
 *                                      queues, order and data path,
 *                                      grants its ring, writes its keys,
 *                                      Initialised
 *   checks every key, maps, writes
 *   the geometry, Connected
 *                                      reads the geometry, Connected
 *
 * A value the backend refuses leaves it in InitWait with an "error" node.
 * Either end that finds a broken ring writes its "error" node and goes
 * Closing.  On frontend Closing the backend goes Closing, stops taking
 * requests, waits for the ones in progress and unmaps everything, then
 * goes Closed; only then may the frontend reuse or free the pages it
 * granted.  After the frontend is Closed the backend goes back to
 * InitWait if the toolstack still wants the device (online = 1).  A
 * frontend that finds the backend in InitWait while it still holds
 * channels (the backend was reloaded, or the guest was restored or
 * migrated to a new host) drops them, puts the requests that had no
 * response back in its queue, and connects afresh: a request is sent
 * again only if its response never arrived.
 *
 * ---------------------------------------------------------------------
 * Messages
 */

/* Rings (see "Rings" above). */
#define FIPCBLK_SLOT_BYTES		64
#define FIPCBLK_SLOT_FLAG_OFFSET	60
#define FIPCBLK_RING_MIN_ORDER		0
#define FIPCBLK_RING_MAX_ORDER		4
#define FIPCBLK_RING_SLOTS(order) \
	((FIPCBLK_PAGE_BYTES << (order)) / FIPCBLK_SLOT_BYTES)
#define FIPCBLK_MSG_MAX_SLOTS		32
#define FIPCBLK_FLAG_KIND_MASK		0xff000000U
#define FIPCBLK_FLAG_LEN_MASK		0x00ff0000U
#define FIPCBLK_FLAG_LEN_SHIFT		16
#define FIPCBLK_FLAG_STAMP_MASK		0x0000ffffU
/*
 * A zeroed slot (FIPCBLK_FLAG_FREE), and the flags of the retired
 * one-way ring (version 1: kind 0xa5, a message's length in its head
 * slot, the slot's sequence number as stamp), which no duplex flag may
 * be.
 */
#define FIPCBLK_FLAG_FREE		0x00000000U
#define FIPCBLK_FLAG_READY		0xa5000000U
#define FIPCBLK_FLAG(len, seq) \
	(FIPCBLK_FLAG_READY | ((uint32_t)(len) << FIPCBLK_FLAG_LEN_SHIFT) | \
	 ((uint32_t)(seq) & FIPCBLK_FLAG_STAMP_MASK))

/* The duplex ring's flags (see "Rings" above). */
#define FIPCBLK_DUPLEX_CALL		0xc1000000U
#define FIPCBLK_DUPLEX_POST		0xc2000000U
#define FIPCBLK_DUPLEX_REPLY		0xc4000000U
#define FIPCBLK_DUPLEX_ACK		0xc8000000U
#define FIPCBLK_DUPLEX_FLAG(kind, count, lap) \
	((kind) | ((uint32_t)(count) << FIPCBLK_FLAG_LEN_SHIFT) | \
	 ((uint32_t)(lap) & FIPCBLK_FLAG_STAMP_MASK))
/* The lap of position pos in a duplex ring of 2^order pages. */
#define FIPCBLK_DUPLEX_LAP(pos, order)	((uint32_t)(pos) >> (6 + (order)))

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
 * numbers.  Set on a request the frontend can neither name by pfn (a
 * READ where the memory is shared read-only; a page outside the shared
 * table, or whose frame changed since connect, e.g. after ballooning)
 * nor fit in free staging pages.  Refused on a grant channel.
 */
#define FIPCBLK_F_GRANTREFS	0x04
/*
 * READ/WRITE on a channel with staging pages only (memshare, or grant
 * where the backend offered fipc-grant-staging): refs[] are indices into
 * the channel's staging pages (see below), not pfns or grant references.
 * Not together with FIPCBLK_F_GRANTREFS.
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
 * A request is one ring message of FIPCBLK_REQ_SLOTS(references) slots:
 * the head slot holds struct fipcblk_request with the first
 * FIPCBLK_HEAD_REFS references, and each continuation slot holds
 * FIPCBLK_CONT_REFS more (reference i is in slot FIPCBLK_REF_SLOT(i), at
 * byte FIPCBLK_REF_OFFSET(i) of its payload).  A message of any other
 * length is invalid.  At most FIPCBLK_MAX_REFS references fit in one
 * message, so fipc-max-request-bytes is at most FIPCBLK_MAX_REQUEST_BYTES
 * (a run that does not start on a page boundary needs one page more than
 * its length).  A response is one slot.
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
#define FIPCBLK_MAX_REFS \
	(FIPCBLK_HEAD_REFS + (FIPCBLK_MSG_MAX_SLOTS - 1) * FIPCBLK_CONT_REFS)
#define FIPCBLK_MAX_REQUEST_BYTES \
	((FIPCBLK_MAX_REFS - 1) * FIPCBLK_PAGE_BYTES)
/*
 * Slots of a request with nr_refs references (0 to FIPCBLK_MAX_REFS):
 * 1 up to FIPCBLK_HEAD_REFS, then one more per FIPCBLK_CONT_REFS.
 */
#define FIPCBLK_REQ_SLOTS(nr_refs) \
	(((nr_refs) + 2 * FIPCBLK_CONT_REFS - FIPCBLK_HEAD_REFS - 1) / \
	 FIPCBLK_CONT_REFS)
/*
 * Where reference i of a request is: its slot, and its byte offset in
 * that slot's payload.  The head's references start at byte
 * 4 * (FIPCBLK_CONT_REFS - FIPCBLK_HEAD_REFS), after the request's
 * other fields, so the head is a continuation slot whose first words
 * hold those fields.
 */
#define FIPCBLK_REF_SLOT(i) \
	(((i) + FIPCBLK_CONT_REFS - FIPCBLK_HEAD_REFS) / FIPCBLK_CONT_REFS)
#define FIPCBLK_REF_OFFSET(i) \
	(4 * (((i) + FIPCBLK_CONT_REFS - FIPCBLK_HEAD_REFS) % \
	      FIPCBLK_CONT_REFS))

/* One slot of a ring, as laid out in shared memory. */
struct fipcblk_slot {
	uint8_t payload[FIPCBLK_MSG_BYTES];	/* the message's bytes */
	uint32_t flag;				/* written last, see "Rings" */
};

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

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(struct fipcblk_slot) == FIPCBLK_SLOT_BYTES,
	       "a slot is one 64-byte cache line");
_Static_assert(sizeof(struct fipcblk_request) == FIPCBLK_MSG_BYTES,
	       "a request head is one slot payload");
_Static_assert(sizeof(struct fipcblk_request_cont) == FIPCBLK_MSG_BYTES,
	       "a continuation is one slot payload");
_Static_assert(sizeof(struct fipcblk_response) == FIPCBLK_MSG_BYTES,
	       "a response is one slot payload");
_Static_assert(sizeof(struct fipcblk_request) -
	       sizeof(((struct fipcblk_request *)0)->refs) ==
	       4 * (FIPCBLK_CONT_REFS - FIPCBLK_HEAD_REFS),
	       "the head's references end its slot (FIPCBLK_REF_OFFSET)");
_Static_assert(FIPCBLK_REQ_SLOTS(FIPCBLK_MAX_REFS) == FIPCBLK_MSG_MAX_SLOTS,
	       "FIPCBLK_MAX_REFS references fill a maximal message");
_Static_assert(FIPCBLK_RING_SLOTS(FIPCBLK_RING_MIN_ORDER) >=
	       FIPCBLK_MSG_MAX_SLOTS, "a maximal message fits any ring");
#endif

/*
 * The memshare data path ("fipc-data-path" = "memshare", offered only when
 * the backend's directory has fipc-memshare-allowed = 1 and chosen only
 * when the frontend's has fipc-memshare = 1).  At connect the frontend
 * grants every RAM page it has (pfn 0 to fipc-memshare-pfns - 1) to the
 * backend once, read-only or, with fipc-memshare-writable = 1 (only where
 * the backend offers it), writable, and publishes a pfn -> grant
 * reference table:
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
 * read-only (or writable, as asked), for the life of the connection;
 * WRITE requests then carry pfns in refs[] (no per-request grant), unless
 * they have FIPCBLK_F_GRANTREFS or FIPCBLK_F_STAGED, and so may READ
 * requests where the memory is mapped writable.  In a PV guest a frame
 * another domain maps writable cannot become a page table, so a PV guest
 * shares read-only and its READs never name pfns; PVH and HVM guests (a
 * pfn is a gfn) may share writable.  A READ by pfn on a read-only
 * mapping, a pfn outside the table, or one whose entry the backend could
 * not map, fails the request (FIPCBLK_RSP_ERROR).  A frontend names a
 * page by pfn only while the frame it granted is still behind it (not
 * after the page was ballooned out and in again).  The frontend revokes
 * the grants only after the backend has unmapped them (disconnect).
 *
 * Staging pages (memshare, or grant where the backend writes
 * fipc-grant-staging = 1; optional, per channel): where the backend
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
 * pages it cannot name by pfn.  On the grant path both READs and WRITEs
 * may go through them (blkif's persistent-grant trade: a copy in the
 * frontend instead of a grant map and unmap per request in the backend);
 * FIPCBLK_F_GRANTREFS stays memshare's.  A backend that does not write
 * fipc-grant-staging = 1 refuses FIPCBLK_F_STAGED on the grant path.
 * Kept mapped, neither side calls Xen per request.  An
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
