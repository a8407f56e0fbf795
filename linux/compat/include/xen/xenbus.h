/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The out-of-tree build's compatibility layer: the kernel's <xen/xenbus.h>
 * first, then what mainline has and this kernel lacks, from the compile
 * probes' results (see linux/compat/README).
 */
#include_next <xen/xenbus.h>

#ifndef _FIPC_KCOMPAT_XENBUS_H
#define _FIPC_KCOMPAT_XENBUS_H

#include "fipc_kcompat_probes.h"

#ifndef FIPC_HAVE_XENBUS_STATE_DEV
/* Mainline (7.3, not 6.12): xenbus_read_driver_state() takes the device. */
#define xenbus_read_driver_state(dev, path) \
	((void)(dev), xenbus_read_driver_state(path))
#endif

#endif /* _FIPC_KCOMPAT_XENBUS_H */
