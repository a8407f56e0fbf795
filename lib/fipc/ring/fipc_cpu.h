/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU primitives for waiting on a slot flag: feature detection and the
 * MONITOR/MWAIT family.  Internal to fipc_wait.c.
 *
 * Privilege matters: MONITOR/MWAIT only run in ring 0, and a 64-bit Xen
 * PV guest kernel runs in ring 3, so it may only use MONITORX/MWAITX
 * (AMD) or UMONITOR/UMWAIT (Intel WAITPKG), which any ring may execute.
 * Every wait here is bounded (a timer or an interrupt ends it), and the
 * caller re-checks the flag afterwards, so a missed wake-up costs at most
 * one timeout.
 */
#ifndef _FIPC_CPU_H
#define _FIPC_CPU_H

#include <fipc/fipc.h>

/* Longest single hardware wait, in TSC cycles (tens of microseconds). */
#define FIPC_HW_WAIT_CYCLES	100000u

#if defined(__x86_64__) && (!defined(__KERNEL__) || \
			    (defined(CONFIG_X86) && !defined(CONFIG_UML)))
#define FIPC_HAVE_X86_WAIT 1
#else
#define FIPC_HAVE_X86_WAIT 0
#endif

#if FIPC_HAVE_X86_WAIT && defined(__KERNEL__)

#include <linux/cpufeature.h>
#include <asm/mwait.h>
#include <asm/tsc.h>
#include <xen/xen.h>

static inline bool fipc_cpu_has_mwaitx(void)
{
	return boot_cpu_has(X86_FEATURE_MWAITX);
}

static inline bool fipc_cpu_has_umwait(void)
{
	return boot_cpu_has(X86_FEATURE_WAITPKG);
}

static inline bool fipc_cpu_has_mwait(void)
{
	/* A PV guest kernel is not in ring 0. */
	return boot_cpu_has(X86_FEATURE_MWAIT) && !xen_pv_domain();
}

static inline u64 fipc_cpu_tsc(void)
{
	return rdtsc();
}

#elif FIPC_HAVE_X86_WAIT /* userspace */

#include <cpuid.h>

static inline bool fipc_cpu_has_mwaitx(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000001, &a, &b, &c, &d))
		return false;
	return c & (1u << 29);
}

static inline bool fipc_cpu_has_umwait(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	return c & (1u << 5);
}

static inline bool fipc_cpu_has_mwait(void)
{
	return false;	/* ring 0 only */
}

static inline u64 fipc_cpu_tsc(void)
{
	return __builtin_ia32_rdtsc();
}

#endif

#if FIPC_HAVE_X86_WAIT

/*
 * Opcode bytes, so that no particular assembler version is needed.  Each
 * has a "memory" clobber: the compiler must not move the flag load that
 * follows the arming of the monitor above it (a store landing between
 * the load and the arming would then not wake the wait), nor cache the
 * flag in a register across the wait.
 */
static inline void fipc_cpu_monitorx(const void *addr)
{
	/* MONITORX: rax = address, ecx = extensions, edx = hints */
	asm volatile(".byte 0x0f, 0x01, 0xfa"
		     :: "a" (addr), "c" (0), "d" (0) : "memory");
}

static inline void fipc_cpu_mwaitx(u32 cycles)
{
	/* MWAITX: eax = hint (stay in C0), ebx = timeout, ecx = timer on */
	asm volatile(".byte 0x0f, 0x01, 0xfb"
		     :: "a" (0xf0), "b" (cycles), "c" (1u << 1) : "memory");
}

static inline void fipc_cpu_umonitor(const void *addr)
{
	/* UMONITOR %rax */
	asm volatile(".byte 0xf3, 0x0f, 0xae, 0xf0" :: "a" (addr) : "memory");
}

static inline void fipc_cpu_umwait(u64 deadline)
{
	/* UMWAIT %ecx: ecx bit 0 = C0.1 (fast wake), edx:eax = deadline */
	asm volatile(".byte 0xf2, 0x0f, 0xae, 0xf1"
		     :: "c" (1), "d" ((u32)(deadline >> 32)), "a" ((u32)deadline)
		     : "cc", "memory");
}

#else /* no hardware wait: only the spin-loop hint */

static inline bool fipc_cpu_has_mwaitx(void)
{
	return false;
}

static inline bool fipc_cpu_has_umwait(void)
{
	return false;
}

static inline bool fipc_cpu_has_mwait(void)
{
	return false;
}

#endif

#endif /* _FIPC_CPU_H */
