/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fipc_attack_back: what its parts share (fab_main.c: the xenbus device
 * and its state machine; fab_io.c: the requests; fab_linger.c: the linger
 * attack; fab_duplex.c: serving the duplex ring and its attacks).  The module
 * is described in fab_main.c.
 */
#ifndef _FIPC_ATTACK_BACK_H
#define _FIPC_ATTACK_BACK_H

#include <linux/list.h>
#include <linux/types.h>
#include <xen/grant_table.h>
#include <xen/xenbus.h>
#include <fipc/fipc.h>
#include <fipc/fipc_duplex.h>
#include <xen/interface/io/fipcblk.h>

/* What we offer: one queue, one-page rings, requests of up to 128 KiB. */
#define FAB_RING_ORDER		0
#define FAB_MAX_REQ_BYTES	(128 * 1024)
/* An unaligned first page adds one reference. */
#define FAB_MAX_REFS		(FAB_MAX_REQ_BYTES / FIPCBLK_PAGE_BYTES + 1)
#define FAB_MAX_SLOTS		FIPCBLK_REQ_SLOTS(FAB_MAX_REFS)
/* Requests held at once; beyond, a request is refused, nothing mapped. */
#define FAB_MAX_HELD		64
/* Requests taken per poll. */
#define FAB_BUDGET		32

/* Memshare grants mapped by the linger attack. */
#define FAB_LINGER_REFS		32

/* The first bytes of the block a guest writes to arm the attack. */
#define FAB_ARM_MAGIC		"FIPC-ATTACKB-ARM"
#define FAB_ARM_LEN		(sizeof(FAB_ARM_MAGIC) - 1)
/* The first bytes of the WRITE that starts the event storm. */
#define FAB_STORM_MAGIC		"FIPC-ATTACKB-STORM"
#define FAB_STORM_LEN		(sizeof(FAB_STORM_MAGIC) - 1)

/* The first bytes of the WRITE that arms one protocol 3 attack. */
#define FAB_DX_MAGIC		"FIPC-ATTACKB-DX "
#define FAB_DX_LEN		(sizeof(FAB_DX_MAGIC) - 1)

/* The protocol 3 attacks (fab_duplex.c), one armed at a time. */
enum fab_dx_kind {
	FAB_DX_NONE,
	FAB_DX_KIND,		/* protocol 1's flag kind */
	FAB_DX_KIND_CALL,	/* a client's kind, with a length none has */
	FAB_DX_LAP,		/* a reply stamped one lap ago */
	FAB_DX_LAP_NEXT,	/* ... one lap ahead */
	FAB_DX_SPAN0,		/* a reply retiring nothing */
	FAB_DX_SPAN_OVER,	/* ... more than is outstanding */
	FAB_DX_ACK_RESERVED,	/* an ack taking the waiting call's position */
	FAB_DX_ID_GEN,		/* a reply for the tag's earlier request */
	FAB_DX_ID_TAG,		/* ... for a tag not in flight */
	FAB_DX_TWICE,		/* an honest reply, then another for it */
	FAB_DX_WITHHOLD,	/* no reply; we close FAB_DX_WITHHOLD_MS later */
	FAB_DX_SILENT,		/* no reply, ever: until the disk is detached */
	FAB_DX_NR
};

/* A withheld reply: we close this long after taking its request. */
#define FAB_DX_WITHHOLD_MS	3000
/* A frontend that has not closed this long after an attack missed it. */
#define FAB_DX_CATCH_MS		10000

static_assert(sizeof(struct fipcblk_request) == FIPC_SLOT_PAYLOAD);
static_assert(sizeof(struct fipcblk_response) == FIPC_SLOT_PAYLOAD);
static_assert(FAB_MAX_SLOTS <= FIPC_MSG_MAX_SLOTS);

/* Module parameters (fab_main.c). */
extern char *mode;
extern unsigned int hold_s;
extern unsigned int hold_count;
extern bool wait_arm;
extern unsigned long long linger_sector;
extern unsigned long long sectors;
extern unsigned int storm_ms;
extern char *dx_vdevs;

/* An answered request whose grants we keep mapped. */
struct fab_held {
	struct list_head node;
	unsigned long since;		/* jiffies of the answer */
	u64 id;
	u8 op;
	unsigned int nrefs;
	struct page *pages[FAB_MAX_REFS];
	grant_handle_t handles[FAB_MAX_REFS];
};

struct fab_dev {
	struct xenbus_device *dev;
	struct task_struct *task;
	enum xenbus_state fe_state;	/* written by the xenbus watch */
	unsigned long next_online_check;

	/* The channel, while mapped (dev->state Connected or Closing). */
	void *ring;
	struct fipcblk_ctrl *ctrl;
	int irq;
	bool broken;

	/*
	 * The duplex ring (protocol version 3, fab_duplex.c), which we
	 * serve; its attacks may be armed where dx_vdevs names the device
	 * (dx).
	 */
	bool dx;
	struct fipc_duplex_server ds;
	enum fab_dx_kind dx_next;	/* armed: the next READ/WRITE's attack */
	enum fab_dx_kind dx_sent;	/* done: waiting for the frontend */
	bool dx_dead;		/* our ring state is void: serve nothing */
	unsigned long dx_at;	/* jiffies of dx_sent's attack */
	u64 dx_attacks;
	u64 dx_caught;		/* the frontend closed after the attack */
	u64 dx_uncaught;	/* ... it did not within FAB_DX_CATCH_MS */
	u64 dx_leak_pages;	/* READ pages we filled with FAB_DX_LEAK */

	struct list_head held;
	unsigned int nheld;
	unsigned int grants_now;
	unsigned int grants_max;
	bool armed;
	bool storm_pending;	/* the storm WRITE was answered: storm next */

	/* The linger attack (memshare disks, linger_sector). */
	bool ms_offered;	/* the toolstack allowed memshare here */
	bool ms_chan;		/* this connection took the memshare path */
	bool ms_done;		/* closed once with ms mapped: never again */
	bool ms_closed;		/* ms->since is the time of that close */
	bool ms_trigger;	/* the READ of linger_sector was answered */
	struct fab_held *ms;	/* the guest's memshare grants we map */
	/*
	 * Shared writable (a PVH guest took fipc-memshare-writable): READs
	 * name pfns.  ms_table is our copy of the connection's table (pfn ->
	 * reference), read at each memshare connect; ms_read, the READ of
	 * linger_sector, mapped writable and never answered.
	 */
	bool ms_writable;
	u32 *ms_table;
	u32 ms_pfns;
	struct fab_held *ms_read;
	bool ms_late_write;	/* we wrote ms_read's pages after the close */
	u64 ms_pfn_reads;	/* READs by pfn served honestly */
	u64 ms_served;
	u64 ms_writes;		/* WRITEs by pfn: answered, data dropped */
	/* Private copies and hypercall arguments: one request at a time. */
	struct fipc_msg msgs[FAB_MAX_SLOTS];
	struct gnttab_map_grant_ref map_ops[FAB_MAX_REFS];
	struct gnttab_unmap_grant_ref unmap_ops[FAB_MAX_REFS];
	struct page *unmap_pages[FAB_MAX_REFS];

	/* Counters, printed in the log lines. */
	u64 connects;
	u64 held_total;		/* answered while mapped */
	u64 unmapped;		/* let go once hold_s had passed */
	u64 unmapped_early;	/* let go early: removal, toolstack close */
	u64 honest;
	u64 flushes;
	u64 refused;
	u64 map_errors;
	u64 checked_pages;	/* mapped data pages looked at */
	u64 exposed_pages;	/* ... with a non-zero byte outside the data */
	u64 exposed_bytes;
};

/* fab_main.c */
int fab_read_uint(struct fab_dev *fb, const char *key, u32 min, u32 max,
		  u32 *val);

/* fab_io.c */
bool fab_valid(const struct fipcblk_request *r, unsigned int nslots,
	       const struct fipc_msg *msgs, unsigned int *nrefs);
grant_ref_t fab_ref(const struct fipc_msg *msgs, unsigned int i);
void fab_handle(struct fab_dev *fb, unsigned int nslots);
struct fab_held *fab_map(struct fab_dev *fb, const grant_ref_t *refs,
			 unsigned int nrefs, bool readonly);
void fab_unmap(struct fab_dev *fb, struct fab_held *h);
void fab_release(struct fab_dev *fb, bool all);
void fab_serve_end(struct fab_dev *fb, bool sent);

/* fab_linger.c */
void fab_ms_map(struct fab_dev *fb);
int fab_ms_read_table(struct fab_dev *fb);
void fab_ms_release(struct fab_dev *fb, bool now);

/* fab_duplex.c */
bool fab_dx_wanted(struct xenbus_device *dev);
int fab_dx_init(struct fab_dev *fb);
void fab_dx_check_arm(struct fab_dev *fb, struct fab_held *h,
		      const struct fipcblk_request *r);
void fab_dx_serve(struct fab_dev *fb);
void fab_dx_closing(struct fab_dev *fb);

#endif
