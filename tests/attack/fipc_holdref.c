// SPDX-License-Identifier: GPL-2.0
/*
 * fipc_holdref: a RAM disk that, like iscsi_tcp, NBD or DRBD sending
 * over TCP, keeps a reference to the pages of each write for a while
 * after it ended the request.  For the testbed only (scenario
 * storage-stacks, docs/testbed.md).  Not shipped.
 *
 * The disk is /dev/fipc_holdref (size_mib= MiB of vmalloc memory, one
 * queue).  For each page segment of a write it takes a page reference,
 * copies the data, ends the request, and keeps the reference hold_ms=
 * milliseconds.  When the hold ends it reads the segment again through
 * the page's kernel address, without risking a fault, before dropping the
 * reference: bytes that differ from the ones it stored (the page was
 * unmapped and mapped again, perhaps with another guest's data) count in
 * "changed", a read that faulted (the page's mapping was torn down) in
 * "faulted".  A user that keeps its pages until their references are its
 * own again, as blkback does with gnttab_unmap_refs_async(), leaves both
 * at 0.  Counters, read-only, in /sys/module/fipc_holdref/parameters/:
 * held (segments held), changed, faulted, unheld (no memory for a hold
 * record: not held).  Reads, flushes and out-of-range requests are served
 * or refused as a RAM disk would; nothing else is supported.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/crc32.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

static unsigned int hr_size_mib = 64;
module_param_named(size_mib, hr_size_mib, uint, 0444);
MODULE_PARM_DESC(size_mib, "Size of the disk in MiB (default 64)");

static unsigned int hr_hold_ms = 20;
module_param_named(hold_ms, hr_hold_ms, uint, 0644);
MODULE_PARM_DESC(hold_ms,
		 "How long a written page stays referenced after its request ended (ms, default 20)");

static unsigned long hr_held, hr_changed, hr_faulted, hr_unheld;
module_param_named(held, hr_held, ulong, 0444);
MODULE_PARM_DESC(held, "Write segments whose page was held after the request ended");
module_param_named(changed, hr_changed, ulong, 0444);
MODULE_PARM_DESC(changed, "Held segments whose bytes changed before the hold ended");
module_param_named(faulted, hr_faulted, ulong, 0444);
MODULE_PARM_DESC(faulted, "Held segments that could not be read when the hold ended");
module_param_named(unheld, hr_unheld, ulong, 0444);
MODULE_PARM_DESC(unheld, "Write segments not held: no memory for the record");

/**
 * struct hr_hold - a reference kept on one written page segment
 * @node: on hr_holds, oldest first
 * @page: the page, referenced
 * @offset: where the segment starts in it
 * @len: its length
 * @crc: crc32 of the bytes written
 * @until: when the hold ends (jiffies)
 */
struct hr_hold {
	struct list_head node;
	struct page *page;
	unsigned int offset;
	unsigned int len;
	u32 crc;
	unsigned long until;
};

static DEFINE_SPINLOCK(hr_lock);	/* protects hr_holds and the counters */
static LIST_HEAD(hr_holds);
static void hr_release_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(hr_release, hr_release_work);
static void *hr_bounce;			/* the release work's copy */
static u8 *hr_data;
static u64 hr_bytes;
static struct blk_mq_tag_set hr_set;
static struct gendisk *hr_disk;

static void hr_hold_segment(struct page *page, unsigned int offset,
			    unsigned int len, u32 crc)
{
	struct hr_hold *h = kmalloc(sizeof(*h), GFP_ATOMIC);
	unsigned long flags;

	spin_lock_irqsave(&hr_lock, flags);
	if (!h) {
		hr_unheld++;
		spin_unlock_irqrestore(&hr_lock, flags);
		return;
	}
	get_page(page);
	h->page = page;
	h->offset = offset;
	h->len = len;
	h->crc = crc;
	h->until = jiffies + msecs_to_jiffies(READ_ONCE(hr_hold_ms));
	list_add_tail(&h->node, &hr_holds);
	hr_held++;
	spin_unlock_irqrestore(&hr_lock, flags);
	schedule_delayed_work(&hr_release, msecs_to_jiffies(READ_ONCE(hr_hold_ms)));
}

/* End a hold: check the bytes, then drop the page reference. */
static void hr_unhold(struct hr_hold *h)
{
	void *p = page_address(h->page) + h->offset;
	unsigned long flags;
	bool faulted, changed = false;

	faulted = copy_from_kernel_nofault(hr_bounce, p, h->len) != 0;
	if (!faulted)
		changed = crc32_le(~0, hr_bounce, h->len) != h->crc;
	put_page(h->page);
	if (faulted || changed)
		pr_err_ratelimited("fipc_holdref: pfn %lx +%u (%u bytes) %s while held\n",
				   page_to_pfn(h->page), h->offset, h->len,
				   faulted ? "unreadable" : "changed");
	spin_lock_irqsave(&hr_lock, flags);
	hr_faulted += faulted;
	hr_changed += changed;
	spin_unlock_irqrestore(&hr_lock, flags);
	kfree(h);
}

/* End the holds that are due (all of them with @all); false if none left. */
static bool hr_release_due(bool all)
{
	struct hr_hold *h;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&hr_lock, flags);
		h = list_first_entry_or_null(&hr_holds, struct hr_hold, node);
		if (h && (all || time_after_eq(jiffies, h->until)))
			list_del(&h->node);
		else
			h = NULL;
		spin_unlock_irqrestore(&hr_lock, flags);
		if (!h)
			break;
		hr_unhold(h);
	}
	spin_lock_irqsave(&hr_lock, flags);
	h = list_first_entry_or_null(&hr_holds, struct hr_hold, node);
	if (h)
		mod_delayed_work(system_wq, &hr_release,
				 time_after(h->until, jiffies) ?
				 h->until - jiffies : 0);
	spin_unlock_irqrestore(&hr_lock, flags);
	return h;
}

static void hr_release_work(struct work_struct *work)
{
	hr_release_due(false);
}

static blk_status_t hr_rw(struct request *rq)
{
	u64 pos = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
	bool write = req_op(rq) == REQ_OP_WRITE;
	struct req_iterator iter;
	struct bio_vec bv;

	if (pos > hr_bytes || blk_rq_bytes(rq) > hr_bytes - pos)
		return BLK_STS_IOERR;
	rq_for_each_segment(bv, rq, iter) {
		void *p = bvec_kmap_local(&bv);

		if (write)
			memcpy(hr_data + pos, p, bv.bv_len);
		else
			memcpy(p, hr_data + pos, bv.bv_len);
		if (write)
			hr_hold_segment(bv.bv_page, bv.bv_offset, bv.bv_len,
					crc32_le(~0, p, bv.bv_len));
		kunmap_local(p);
		pos += bv.bv_len;
	}
	return BLK_STS_OK;
}

static blk_status_t hr_queue_rq(struct blk_mq_hw_ctx *hctx,
				const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	blk_status_t st;

	blk_mq_start_request(rq);
	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		st = hr_rw(rq);
		break;
	case REQ_OP_FLUSH:
		st = BLK_STS_OK;
		break;
	default:
		st = BLK_STS_NOTSUPP;
	}
	blk_mq_end_request(rq, st);
	return BLK_STS_OK;
}

static const struct blk_mq_ops hr_mq_ops = {
	.queue_rq = hr_queue_rq,
};

static const struct block_device_operations hr_fops = {
	.owner = THIS_MODULE,
};

static int __init hr_init(void)
{
	struct queue_limits lim = {
		.logical_block_size = 512,
		.physical_block_size = 512,
		.max_hw_sectors = 2048,
		.max_segments = 256,
		.dma_alignment = 511,
	};
	int err = -ENOMEM;

	hr_bytes = (u64)hr_size_mib << 20;
	hr_bounce = kmalloc(PAGE_SIZE, GFP_KERNEL);
	hr_data = vzalloc(hr_bytes);
	if (!hr_bounce || !hr_data || !hr_bytes)
		goto free;
	hr_set.ops = &hr_mq_ops;
	hr_set.nr_hw_queues = 1;
	hr_set.queue_depth = 128;
	hr_set.numa_node = NUMA_NO_NODE;
	err = blk_mq_alloc_tag_set(&hr_set);
	if (err)
		goto free;
	hr_disk = blk_mq_alloc_disk(&hr_set, &lim, NULL);
	if (IS_ERR(hr_disk)) {
		err = PTR_ERR(hr_disk);
		goto tags;
	}
	hr_disk->fops = &hr_fops;
	snprintf(hr_disk->disk_name, sizeof(hr_disk->disk_name), "fipc_holdref");
	set_capacity(hr_disk, hr_bytes >> SECTOR_SHIFT);
	err = add_disk(hr_disk);
	if (err)
		goto disk;
	pr_info("fipc_holdref: %u MiB, written pages held %u ms after their request ends\n",
		hr_size_mib, hr_hold_ms);
	return 0;
disk:
	put_disk(hr_disk);
tags:
	blk_mq_free_tag_set(&hr_set);
free:
	vfree(hr_data);
	kfree(hr_bounce);
	return err;
}

static void __exit hr_exit(void)
{
	del_gendisk(hr_disk);
	put_disk(hr_disk);
	blk_mq_free_tag_set(&hr_set);
	cancel_delayed_work_sync(&hr_release);
	hr_release_due(true);
	cancel_delayed_work_sync(&hr_release);
	pr_info("fipc_holdref: held %lu, changed %lu, faulted %lu, unheld %lu\n",
		hr_held, hr_changed, hr_faulted, hr_unheld);
	vfree(hr_data);
	kfree(hr_bounce);
}

module_init(hr_init);
module_exit(hr_exit);
MODULE_DESCRIPTION("fipc testbed: a RAM disk that holds written pages after their request ends");
MODULE_LICENSE("GPL");
