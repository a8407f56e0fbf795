// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: the backend domain's grant mappings, all guests together.
 *
 * Every grant the backend maps takes one entry of its domain's maptrack
 * (gnttab_max_maptrack_frames x 256 entries, 262144 by default), which
 * blkback, netback and every other backend of the domain share.  The
 * per-guest bounds (max_guest_grants, max_guest_staging_pages, a guest's
 * share of memshare_max_mib) keep one guest from taking them all, not
 * many guests together: a dozen busy guests at max_guest_grants, with
 * their rings and staging pages, would fill the default maptrack.  So
 * every mapping the backend keeps is also counted here, against
 * max_grant_mappings:
 *
 * - a connection's rings, staging pages and memshare table are taken
 *   with xfb_maptrack_take() before they are mapped: past the cap the
 *   rings refuse the connect (an error node), staging pages and memshare
 *   fall back to per-request grants (a notice, an error node);
 * - a request's grants are charged when mapped, and a channel whose
 *   next request could pass the cap waits (back_io.c) until mappings
 *   end, as for the guest's own bound; one request always fits.
 *
 * Short mappings made only to copy a page (a memshare table's pages, a
 * staging list) are not counted.
 */
#include <linux/atomic.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <xen/interface/xen.h>
#include <xen/interface/version.h>
#include <asm/xen/hypercall.h>
#include "back.h"

/* Xen's default gnttab_max_maptrack_frames (Xen 4.10 and later). */
#define XFB_MAPTRACK_FRAMES_DEFAULT	1024
/* Entries of a maptrack frame (a 4 KiB page of 16-byte entries). */
#define XFB_MAPTRACK_PER_FRAME		256

static atomic_long_t xfb_maptrack_mapped = ATOMIC_LONG_INIT(0);

/*
 * gnttab_max_maptrack_frames=N on Xen's command line, if this domain may
 * read it (dom0 may; a driver domain usually may not), else Xen's
 * default.  A domain's own max_maptrack_frames in its xl config is not
 * visible from inside: set max_grant_mappings for such a driver domain.
 */
static unsigned int xfb_maptrack_frames(void)
{
	static const char key[] = "gnttab_max_maptrack_frames=";
	unsigned int frames = XFB_MAPTRACK_FRAMES_DEFAULT;
	struct xen_commandline *cmd;
	char *p, *end;

	cmd = kzalloc_obj(*cmd, GFP_KERNEL);
	if (!cmd)
		return frames;
	if (HYPERVISOR_xen_version(XENVER_commandline, cmd) >= 0) {
		cmd->buf[sizeof(cmd->buf) - 1] = '\0';
		for (p = strstr(cmd->buf, key); p; p = strstr(p + 1, key)) {
			if (p != cmd->buf && p[-1] != ' ')
				continue;
			p += sizeof(key) - 1;
			end = strchrnul(p, ' ');
			*end = '\0';
			if (kstrtouint(p, 0, &frames) || !frames)
				frames = XFB_MAPTRACK_FRAMES_DEFAULT;
			break;
		}
	}
	kfree(cmd);
	return frames;
}

/**
 * xfb_maptrack_init() - set max_grant_mappings if it was left at 0
 *
 * Three quarters of the domain's maptrack: the rest is left to its other
 * backends (blkback, netback).
 */
void xfb_maptrack_init(void)
{
	unsigned long frames;

	if (READ_ONCE(xfb_max_grant_mappings))
		return;
	frames = xfb_maptrack_frames();
	WRITE_ONCE(xfb_max_grant_mappings,
		   frames * XFB_MAPTRACK_PER_FRAME / 4 * 3);
	pr_info(XFB_NAME ": max_grant_mappings %lu (3/4 of %lu maptrack frames)\n",
		xfb_max_grant_mappings, frames);
}

/**
 * xfb_maptrack_used() - the backend's grant mappings now
 *
 * Return: mappings counted, all guests together.
 */
unsigned long xfb_maptrack_used(void)
{
	return atomic_long_read(&xfb_maptrack_mapped);
}

/**
 * xfb_maptrack_take() - count @n mappings a connection keeps, if they fit
 * @n: mappings about to be made
 *
 * Return: true if counted (all mappings stay within max_grant_mappings),
 * false if they would pass it: nothing counted.
 */
bool xfb_maptrack_take(unsigned long n)
{
	unsigned long cap = READ_ONCE(xfb_max_grant_mappings);
	long old = atomic_long_read(&xfb_maptrack_mapped);

	do {
		if ((unsigned long)old + n > cap)
			return false;
	} while (!atomic_long_try_cmpxchg(&xfb_maptrack_mapped, &old, old + n));
	return true;
}

/**
 * xfb_maptrack_give() - uncount mappings that ended
 * @n: what xfb_maptrack_take() or xfb_maptrack_charge() counted, less
 *	what could not be unmapped (still mapped: still counted)
 */
void xfb_maptrack_give(unsigned long n)
{
	long now = atomic_long_sub_return(n, &xfb_maptrack_mapped);

	WARN_ON_ONCE(now < 0);
}

/**
 * xfb_maptrack_room() - may a grant-path channel take a request
 * @guest_grants: the request grants its guest has mapped now
 * @nrefs: grants the next request may map at most
 *
 * Checked before a request is taken, as xfb_guest_grants_room(): the
 * count may pass max_grant_mappings by one largest request per poller.
 * A guest with no request grants mapped may always map one request, so
 * that every guest moves however full the cap is.  Memshare channels
 * are not held back: a request of theirs rarely maps a grant.
 *
 * Return: true if the request may be taken.
 */
bool xfb_maptrack_room(int guest_grants, unsigned int nrefs)
{
	long now = atomic_long_read(&xfb_maptrack_mapped);

	return guest_grants <= 0 ||
	       (unsigned long)now + nrefs <= READ_ONCE(xfb_max_grant_mappings);
}

/**
 * xfb_maptrack_charge() - count a request's grants about to be mapped
 * @nrefs: its grants (xfb_maptrack_room() said they fit)
 */
void xfb_maptrack_charge(unsigned int nrefs)
{
	atomic_long_add(nrefs, &xfb_maptrack_mapped);
}

static int xfb_grant_mappings_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lu\n", xfb_maptrack_used());
}

static const struct kernel_param_ops xfb_grant_mappings_ops = {
	.get = xfb_grant_mappings_get,
};
module_param_cb(grant_mappings, &xfb_grant_mappings_ops, NULL, 0444);
MODULE_PARM_DESC(grant_mappings,
		 "Read-only: grant mappings the backend keeps now, all guests together, counted against max_grant_mappings (0 once no device is connected)");
