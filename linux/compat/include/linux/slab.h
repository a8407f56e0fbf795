/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The out-of-tree build's compatibility layer: the kernel's <linux/slab.h>
 * first, then what mainline has and this kernel lacks, from the compile
 * probes' results (see linux/compat/README).
 */
#include_next <linux/slab.h>

#ifndef _FIPC_KCOMPAT_SLAB_H
#define _FIPC_KCOMPAT_SLAB_H

#include "fipc_kcompat_probes.h"

#ifndef FIPC_HAVE_KZALLOC_OBJ
/* Mainline (7.3, not 6.12): one object of the type of P, from its size. */
#define kmalloc_obj(P, gfp)	kmalloc(sizeof(P), gfp)
#define kzalloc_obj(P, gfp)	kzalloc(sizeof(P), gfp)
#endif

#endif /* _FIPC_KCOMPAT_SLAB_H */
