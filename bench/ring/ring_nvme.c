// SPDX-License-Identifier: GPL-2.0
/*
 * "nvme_sqcq": an NVMe-style queue pair, after the NVMe base
 * specification's submission and completion queues: a submission queue
 * (SQ) of 64-byte commands with a tail doorbell, and a completion queue
 * (CQ) of 16-byte entries with a phase tag, which the host polls.
 *
 * There is no MMIO here: each doorbell is a shared counter on its own
 * cache line, written by the host and polled by the device.  The device
 * reads the SQ tail doorbell only when it has caught up with the tail it
 * last read, and the CQ head doorbell only when the CQ looks full; the
 * host learns the SQ head from each completion's SQ head field.
 *
 * The 56-byte request travels in the command after its first two dwords
 * (opcode and command id, namespace id), where a vendor-specific command
 * may carry its own fields.  That leaves no room for a data pointer, so
 * the response is written to the host's response buffer for that command
 * id, as a read's data would be through its data pointer.  The host rings
 * the SQ doorbell once per batch, as a driver does for its last request.
 * 128 entries in each queue: up to 64 requests in flight, as elsewhere.
 */
#include "bench.h"

#define NV_ENTRIES	(2 * BENCH_RING_SLOTS)
#define NV_OPC_ECHO	0xc1u	/* vendor-specific, host to device */
#define NV_PHASE	0x0001u

/**
 * struct nv_cmd - a 64-byte submission queue entry
 * @opcode: command opcode
 * @flags: fused operation and data pointer kind (zero here)
 * @cid: command id, returned in the completion
 * @nsid: namespace id
 * @msg: the request, in the vendor-specific dwords 2 to 15
 */
struct nv_cmd {
	u8 opcode;
	u8 flags;
	u16 cid;
	u32 nsid;
	struct bench_msg msg;
};

/**
 * struct nv_cqe - a 16-byte completion queue entry
 * @result: command specific: bytes of response written
 * @rsvd: reserved
 * @sq_head: the device's SQ head after this command
 * @sq_id: submission queue id
 * @cid: the command's id
 * @status: status field, the phase tag in bit 0; written last
 */
struct nv_cqe {
	u32 result;
	u32 rsvd;
	u16 sq_head;
	u16 sq_id;
	u16 cid;
	u16 status;
};

static_assert(sizeof(struct nv_cmd) == 64, "64-byte commands");
static_assert(sizeof(struct nv_cqe) == 16, "16-byte completions");

/**
 * struct nv_doorbell - a doorbell register, alone on a cache line
 * @value: the queue's new tail (SQ) or head (CQ)
 */
struct nv_doorbell {
	alignas(BENCH_CACHE_LINE) u32 value;
};

/**
 * struct nv_host - the host's private state, on its own page
 * @sq_tail: next SQ entry to write
 * @sq_rung: the SQ tail last written to the doorbell
 * @sq_head: the SQ head from the last completion
 * @cq_head: next CQ entry to take
 * @phase: the phase tag a new completion has
 * @seq: the sequence number of each command id's request
 */
struct nv_host {
	u16 sq_tail;
	u16 sq_rung;
	u16 sq_head;
	u16 cq_head;
	u16 phase;
	u64 seq[NV_ENTRIES];
};

/**
 * struct nv_device - the device's private state, on its own line
 * @sq_head: next SQ entry to read
 * @sq_tail: the SQ tail doorbell as last read
 * @cq_tail: next CQ entry to write
 * @cq_head: the CQ head doorbell as last read
 * @phase: the phase tag it writes
 * @cid: command id of the command being served
 */
struct nv_device {
	u16 sq_head;
	u16 sq_tail;
	u16 cq_tail;
	u16 cq_head;
	u16 phase;
	u16 cid;
};

static struct nv_cmd *nv_sq;
static struct nv_cqe *nv_cq;
static struct bench_buf *nv_rsp_bufs;		/* by command id */
static struct nv_doorbell *nv_sq_tail_db, *nv_cq_head_db;
static struct nv_host *nv_host;
static struct nv_device *nv_dev;

static inline u16 nv_next(u16 i)
{
	return (i + 1) % NV_ENTRIES;
}

static inline bool cli_post(const struct bench_buf *b)
{
	u16 tail = nv_host->sq_tail;
	struct nv_cmd *c = &nv_sq[tail];

	if (nv_next(tail) == nv_host->sq_head)
		return false;	/* full: one entry stays empty */
	c->opcode = NV_OPC_ECHO;
	c->flags = 0;
	c->cid = tail;
	c->nsid = 1;
	c->msg = b->msg;
	nv_host->seq[tail] = b->msg.seq;
	nv_host->sq_tail = nv_next(tail);
	return true;
}

/* Ring the SQ tail doorbell once for all commands written since. */
static inline void cli_flush(void)
{
	if (nv_host->sq_rung == nv_host->sq_tail)
		return;
	nv_host->sq_rung = nv_host->sq_tail;
	__atomic_store_n(&nv_sq_tail_db->value, nv_host->sq_rung,
			 __ATOMIC_RELEASE);
}

/* The new completion at the host's CQ head, taken, or NULL. */
static inline struct nv_cqe *cli_completion(void)
{
	struct nv_cqe *e = &nv_cq[nv_host->cq_head];
	u16 status = __atomic_load_n(&e->status, __ATOMIC_ACQUIRE);

	if ((status & NV_PHASE) != nv_host->phase)
		return NULL;
	nv_host->sq_head = e->sq_head;
	nv_host->cq_head = nv_next(nv_host->cq_head);
	if (!nv_host->cq_head)
		nv_host->phase ^= NV_PHASE;
	__atomic_store_n(&nv_cq_head_db->value, nv_host->cq_head,
			 __ATOMIC_RELEASE);
	return e;
}

static inline bool cli_recv(struct bench_buf *b)
{
	struct nv_cqe *e = cli_completion();

	if (!e)
		return false;
	if (e->result)
		b->msg = nv_rsp_bufs[e->cid].msg;
	else	/* a completion without data: the request it ends */
		b->msg.seq = nv_host->seq[e->cid];
	return true;
}

static inline void cli_reclaim(void)
{
	while (cli_completion())
		;
}

static inline bool srv_recv(struct bench_buf *b)
{
	struct nv_cmd *c = &nv_sq[nv_dev->sq_head];

	if (nv_dev->sq_head == nv_dev->sq_tail) {
		nv_dev->sq_tail = __atomic_load_n(&nv_sq_tail_db->value,
						  __ATOMIC_ACQUIRE);
		if (nv_dev->sq_head == nv_dev->sq_tail)
			return false;
	}
	b->msg = c->msg;
	nv_dev->cid = c->cid;
	nv_dev->sq_head = nv_next(nv_dev->sq_head);
	return true;
}

static inline bool nv_post_completion(u32 result)
{
	struct nv_cqe *e = &nv_cq[nv_dev->cq_tail];

	if (nv_next(nv_dev->cq_tail) == nv_dev->cq_head) {
		nv_dev->cq_head = __atomic_load_n(&nv_cq_head_db->value,
						  __ATOMIC_ACQUIRE);
		if (nv_next(nv_dev->cq_tail) == nv_dev->cq_head)
			return false;
	}
	e->result = result;
	e->sq_head = nv_dev->sq_head;
	e->sq_id = 1;
	e->cid = nv_dev->cid;
	__atomic_store_n(&e->status, nv_dev->phase, __ATOMIC_RELEASE);
	nv_dev->cq_tail = nv_next(nv_dev->cq_tail);
	if (!nv_dev->cq_tail)
		nv_dev->phase ^= NV_PHASE;
	return true;
}

static inline bool srv_reply(const struct bench_buf *b)
{
	nv_rsp_bufs[nv_dev->cid].msg = b->msg;
	return nv_post_completion(sizeof(b->msg));
}

static inline bool srv_complete(const struct bench_buf *b)
{
	return nv_post_completion(0);
}

#include "loops.h"

#define NV_SQ_BYTES	(NV_ENTRIES * sizeof(struct nv_cmd))
#define NV_CQ_BYTES	(NV_ENTRIES * sizeof(struct nv_cqe))
#define NV_BUFS_BYTES	(NV_ENTRIES * sizeof(struct bench_buf))

static int nv_setup(void)
{
	nv_sq = bench_alloc(NV_SQ_BYTES);
	nv_cq = bench_alloc(NV_CQ_BYTES);
	nv_rsp_bufs = bench_alloc(NV_BUFS_BYTES);
	nv_sq_tail_db = bench_alloc(sizeof(*nv_sq_tail_db));
	nv_cq_head_db = bench_alloc(sizeof(*nv_cq_head_db));
	nv_host = bench_alloc(sizeof(*nv_host));
	nv_dev = bench_alloc(sizeof(*nv_dev));
	if (!nv_sq || !nv_cq || !nv_rsp_bufs || !nv_sq_tail_db ||
	    !nv_cq_head_db || !nv_host || !nv_dev)
		return -ENOMEM;
	nv_host->phase = NV_PHASE;
	nv_dev->phase = NV_PHASE;
	return 0;
}

static void nv_teardown(void)
{
	bench_free(nv_sq, NV_SQ_BYTES);
	bench_free(nv_cq, NV_CQ_BYTES);
	bench_free(nv_rsp_bufs, NV_BUFS_BYTES);
	bench_free(nv_sq_tail_db, sizeof(*nv_sq_tail_db));
	bench_free(nv_cq_head_db, sizeof(*nv_cq_head_db));
	bench_free(nv_host, sizeof(*nv_host));
	bench_free(nv_dev, sizeof(*nv_dev));
}

/*
 * Lines per exchange: four; the command, the SQ tail doorbell, the
 * response buffer and the completion's line.  The CQ head doorbell is
 * read only when the CQ looks full: not once per exchange.
 */
DEFINE_BENCH_RING(bench_ring_nvme, "nvme_sqcq", nv_setup, nv_teardown, 4);
