/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel primitives the fipc library uses, so that one source
 * builds as a Linux module, under KUnit, and as a userspace library.
 *
 * In the kernel this only includes the real headers.  In userspace the
 * ordering primitives map onto C11 atomics: virt_load_acquire() and
 * virt_store_release() keep their kernel meaning (ordering against a
 * peer that may be another virtual machine, even in a UP build).
 */
#ifndef _FIPC_COMPAT_H
#define _FIPC_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/build_bug.h>
#include <linux/export.h>
#include <linux/nospec.h>
#include <asm/barrier.h>
#include <linux/processor.h>

#else /* userspace */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/cdefs.h>		/* __always_inline, as in the kernel */
#include <linux/types.h>

#define u8	__u8
#define u16	__u16
#define u32	__u32
#define u64	__u64

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* Exports only mean something in a module. */
#define EXPORT_SYMBOL_GPL(sym)

/*
 * READ_ONCE()/WRITE_ONCE(): single untorn accesses with no ordering,
 * as in the kernel; relaxed atomics also tell ThreadSanitizer that the
 * race is intended.
 */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)

/*
 * The peer may be another VM; in userspace that changes nothing, the
 * C11 acquire/release semantics are exactly what the kernel's virt_
 * barriers provide.
 */
/* acquire: later accesses stay after this load */
#define virt_load_acquire(p)		__atomic_load_n((p), __ATOMIC_ACQUIRE)
/* release: earlier accesses stay before this store */
#define virt_store_release(p, val)	__atomic_store_n((p), (val), __ATOMIC_RELEASE)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* A compiler barrier: memory accesses are not moved across it. */
static inline void barrier(void)
{
	__asm__ __volatile__("" ::: "memory");
}

/*
 * Speculation barriers only matter against another privilege domain;
 * the userspace build keeps the index as is (the caller checked it).
 */
#define array_index_nospec(index, size)	(index)

/* The spin-loop hint: PAUSE on x86, YIELD on arm64. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif /* __KERNEL__ */

#endif /* _FIPC_COMPAT_H */
