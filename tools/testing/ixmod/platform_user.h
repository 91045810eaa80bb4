/* SPDX-License-Identifier: GPL-2.0 */
/*
 * platform_user.h - ixmod/base/platform.h for the host
 *
 * The Makefile pre-includes this file (-include) ahead of every portable
 * source file and every test.  It defines platform.h's include guard,
 * _IXM_BASE_PLATFORM_H, so the portable files' #include "platform.h" finds
 * the guard already set and pulls in no kernel header: the pattern of
 * tools/testing/vma/vma_internal.h.
 *
 * Each name here means what it means in the kernel, built from libc.  The
 * types match <linux/types.h> exactly (u64 is unsigned long long as in the
 * kernel, __be16 is the same unsigned short as the UAPI's), so portable
 * code may also include <linux/ixmod.h> without a clash.  Sparse's
 * __bitwise and __force annotations compile to nothing here; the kernel
 * build with C=1 is where they are checked.
 */
#ifndef _IXM_BASE_PLATFORM_H
#define _IXM_BASE_PLATFORM_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;

#ifndef __bitwise
#define __bitwise
#endif
#ifndef __force
#define __force
#endif

typedef uint16_t __be16;
typedef uint16_t __le16;
typedef uint32_t __be32;
typedef uint32_t __le32;
typedef unsigned long long __be64;
typedef unsigned long long __le64;
typedef uint16_t __sum16;
typedef uint32_t __wsum;

#define ixm_htons(x)	((__be16)htobe16(x))
#define ixm_ntohs(x)	((u16)be16toh(x))
#define ixm_htonl(x)	((__be32)htobe32(x))
#define ixm_ntohl(x)	((u32)be32toh(x))

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

/*
 * One access, neither torn nor repeated: a relaxed atomic is what
 * READ_ONCE() and WRITE_ONCE() promise, and ThreadSanitizer understands it.
 */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)

#define __maybe_unused		__attribute__((__unused__))
/* wire headers sit at any alignment in a frame (net/eth.h) */
#define __packed		__attribute__((__packed__))
#define noinline		__attribute__((__noinline__))

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define BIT_ULL(nr)		(1ULL << (nr))
/* A statement, as in the kernel: a negative array size if @cond holds. */
#define BUILD_BUG_ON(cond)	((void)sizeof(char[1 - 2 * !!(cond)]))

/*
 * The host has no modules to export to: the exports become empty
 * declarations that only carry the caller's semicolon.
 */
#define EXPORT_SYMBOL(sym)	_Static_assert(1, #sym)
/* (the same for GPL-only exports) */
#define EXPORT_SYMBOL_GPL(sym)	_Static_assert(1, #sym)

#define __iomem
#define __rcu
#define ETH_ALEN		6
typedef unsigned long long dma_addr_t;	/* host: the buffer's address */

/*
 * virtio's layouts and bits under Linux's names (nic/virtio_*): the uapi
 * headers, as platform.h includes them in the kernel.  They bring
 * <linux/types.h>, whose __le16.. are the same types as the ones above.
 */
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

#define cpu_to_le16(x)		((__le16)htole16(x))
#define cpu_to_le32(x)		((__le32)htole32(x))
#define cpu_to_le64(x)		((__le64)htole64(x))
#define le16_to_cpu(x)		((u16)le16toh(x))
#define le32_to_cpu(x)		((u32)le32toh(x))
#define le64_to_cpu(x)		((u64)le64toh(x))
#define lower_32_bits(n)	((u32)((n) & 0xffffffff))
#define upper_32_bits(n)	((u32)((unsigned long long)(n) >> 32))

#define U64_MAX			(~0ULL)
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/*
 * Device registers: a test provides these two functions, usually by
 * linking the register-level model (model/), which decodes @reg.
 */
u32 ixm_host_rd32(void *base, u32 reg);
void ixm_host_wr32(void *base, u32 reg, u32 val);
void ixm_host_delay_us(unsigned long us);
#define ixm_rd32(base, reg)		ixm_host_rd32((void *)(base), (reg))
#define ixm_wr32(base, reg, val)	ixm_host_wr32((void *)(base), (reg), (val))
#define ixm_udelay(us)			ixm_host_delay_us(us)
#define ixm_msleep(ms)			ixm_host_delay_us((ms) * 1000UL)
#define ixm_usleep(us)			ixm_host_delay_us(us)

#define ixm_wmb()			__atomic_thread_fence(__ATOMIC_RELEASE)
#define ixm_dma_rmb()			__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define ixm_dma_wmb()			__atomic_thread_fence(__ATOMIC_RELEASE)
#define ixm_mb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
/* a 16-bit doorbell (virtio notification): the test's model provides it */
void ixm_host_wr16(void *base, u32 reg, u16 val);
#define ixm_wr16(base, reg, val)	ixm_host_wr16((void *)(base), (reg), (val))

/* net/ring.h: the same orders as the kernel's smp_* primitives */
#define ixm_load_acquire(p)		__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define ixm_store_release(p, v)		__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define ixm_smp_mb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define ixm_index_nospec(i, n)		((void)(n), (i))
#define ixm_add_overflow(a, b, d)	__builtin_add_overflow((a), (b), (d))
#define IXM_PAGE_SHIFT			12

/*
 * WARN_ONCE(): every hit is counted in ixm_host_warnings (tests assert it
 * stays 0, fuzzers abort on it); the first is printed.
 */
extern unsigned int ixm_host_warnings;
void ixm_host_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define WARN_ONCE(cond, ...)						\
	({								\
		bool __warn = !!(cond);					\
		if (unlikely(__warn))					\
			ixm_host_warn(__VA_ARGS__);			\
		__warn;							\
	})

/* DMA on the host: buffers are plain memory, nothing to synchronise. */
struct device;
#define ixm_dma_sync_for_cpu(dev, dma, len)	((void)(dev), (void)(dma), (void)(len))
#define ixm_dma_sync_for_device(dev, dma, len)	((void)(dev), (void)(dma), (void)(len))
#define ixm_dma_sync_to_device(dev, dma, len)	((void)(dev), (void)(dma), (void)(len))

/* No retpolines here: a plain indirect call. */
#define IXM_INDIRECT_CALL_1(f, f1, ...)	((void)(f1), (f)(__VA_ARGS__))

#define ixm_ilog2(n)			(31 - __builtin_clz((unsigned int)(n)))
#define ixm_ffs64(x)			((unsigned int)__builtin_ctzll(x))	/* x != 0 */

/* Time: tests set it (deterministic ageing); starts at 0. */
extern u64 ixm_host_now_ns;
#define ixm_now_ns()			(ixm_host_now_ns)

/*
 * RCU on the host: the tests are single-threaded, so a read-side section
 * is empty and a deferred free can happen at once.
 */
struct rcu_head {
	void *next;
	void (*func)(struct rcu_head *head);
};
#define ixm_rcu_read_lock()		do { } while (0)
#define ixm_rcu_read_unlock()		do { } while (0)
#define ixm_rcu_dereference(p)		__atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define ixm_rcu_dereference_protected(p) (p)
#define ixm_rcu_assign_pointer(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define ixm_kfree_rcu(p, field)		((void)offsetof(__typeof__(*(p)), field), free(p))

typedef struct { int locked; } ixm_spinlock_t;
#define ixm_spin_lock_init(l)		((l)->locked = 0)
#define ixm_spin_lock(l)		((l)->locked++)
#define ixm_spin_unlock(l)		((l)->locked--)

/*
 * dev_err(): each line is counted in ixm_host_dev_errs, kept in
 * ixm_host_last_dev_err (tests assert what it says) and printed as a "# "
 * diagnostic line.
 */
extern unsigned int ixm_host_dev_errs;
extern char ixm_host_last_dev_err[256];
void ixm_host_dev_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define ixm_dev_err(dev, fmt, ...)	((void)(dev), ixm_host_dev_err(fmt, ##__VA_ARGS__))

/* The kernel's fail_function marks; the host injects its own way. */
#define ixm_injectable_null(fn)		extern int ixm_host_injectable_##fn
#define ixm_injectable_errno(fn)	extern int ixm_host_injectable_##fn

/*
 * Allocation with failure injection (the tools/testing/vma way): a test
 * sets ixm_host_fail_alloc to N to make the Nth next allocation fail.
 */
extern int ixm_host_fail_alloc;
void *ixm_host_zalloc(size_t size);
#define ixm_zalloc(size)		ixm_host_zalloc(size)
#define ixm_free(p)			free(p)
#define ixm_zalloc_node(size, node)	((void)(node), ixm_host_zalloc(size))
/* DMA-coherent memory: plain memory, its address the bus address */
void *ixm_host_dma_alloc(size_t size, dma_addr_t *dma);
#define ixm_dma_alloc(dev, size, dma)	((void)(dev), ixm_host_dma_alloc((size), (dma)))
#define ixm_dma_free(dev, size, p, dma)	((void)(dev), (void)(size), (void)(dma), free(p))

#endif /* _IXM_BASE_PLATFORM_H */
