/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The out-of-tree build's compatibility layer: <linux/unaligned.h>, or
 * <asm/unaligned.h> on kernels before 6.12, from the compile probes'
 * results (see linux/compat/README).
 */
#include "fipc_kcompat_probes.h"

#ifdef FIPC_HAVE_LINUX_UNALIGNED_H
#include_next <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
