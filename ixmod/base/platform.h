/* SPDX-License-Identifier: GPL-2.0 */
/*
 * platform.h - the kernel services portable code may use
 *
 * Everything under ixmod/base/, ixmod/net/ and ixmod/nic/ builds both in
 * the module and on the host, and this header is that code's only way into
 * the kernel: a portable file includes "platform.h", its own headers, the
 * other headers of base/ and <linux/ixmod.h>, nothing else.
 *
 * The host build pre-includes tools/testing/ixmod/platform_user.h, which
 * defines this include guard first, so on the host this file is opened but
 * contributes nothing (the tools/testing/vma/vma_internal.h pattern).  The
 * two files must stay in step: a name added here is added there, with the
 * same type and meaning, or the host build breaks.
 *
 * u8..u64, s8..s64, bool, size_t, __be16/__be32/__le16/__le32, __sum16,
 * READ_ONCE()/WRITE_ONCE(), likely()/unlikely(), min_t()/max_t()/clamp_t()
 * and WARN_ONCE() (for what cannot happen only) come from the kernel
 * headers below under their usual names.
 */
#ifndef _IXM_BASE_PLATFORM_H
#define _IXM_BASE_PLATFORM_H

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/error-injection.h>
#include <linux/etherdevice.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/byteorder.h>
/* virtio's layouts and bits under Linux's names (nic/virtio_*): uapi only */
#include <uapi/linux/virtio_config.h>
#include <uapi/linux/virtio_net.h>
#include <uapi/linux/virtio_ring.h>

/*
 * Byte order.  Wire fields are big-endian ("network order", RFC 791
 * Appendix B) and keep their __be types until the moment they are used
 * as numbers, so that sparse (C=1) finds a missing conversion.
 */
#define ixm_htons(x)	cpu_to_be16(x)
#define ixm_ntohs(x)	be16_to_cpu(x)
#define ixm_htonl(x)	cpu_to_be32(x)
#define ixm_ntohl(x)	be32_to_cpu(x)

/*
 * Device registers (nic/).  @base is the BAR's mapping.  Writes are
 * posted; a read of STATUS flushes them, as the datasheets require.
 */
#define ixm_rd32(base, reg)		readl((base) + (reg))
#define ixm_wr32(base, reg, val)	writel((val), (base) + (reg))
#define ixm_udelay(us)			udelay(us)
#define ixm_msleep(ms)			msleep(ms)
/* a sleeping wait of at least @us (process context: register polls) */
#define ixm_usleep(us)			usleep_range((us), 2 * (us))

/*
 * Barriers around descriptor rings (the ixgbe pattern): ixm_wmb() before
 * the tail write that hands descriptors to the device; ixm_dma_rmb()
 * between reading a descriptor's DD bit and the rest of it.
 */
#define ixm_wmb()			wmb()
#define ixm_dma_rmb()			dma_rmb()

/*
 * Barriers around rings in coherent memory that a device polls (virtio,
 * nic/virtio_ring.c): ixm_dma_wmb() orders descriptor writes before the
 * index that publishes them, ixm_mb() orders that index before reading
 * the device's notification suppression words (virtio_ring.c's labels
 * name each site).  A 16-bit doorbell write: a virtio queue notification.
 */
#define ixm_dma_wmb()			dma_wmb()	/* virtio_ring.c (V1) */
#define ixm_mb()			mb()		/* virtio_ring.c (V3), (V4) */
#define ixm_wr16(base, reg, val)	writew((val), (base) + (reg))

/*
 * Memory shared with applications (net/ring.h): the ring protocol's
 * acquire/release pairs and full barrier, and the bounds clamp that keeps
 * a speculated index inside its array.
 */
/* (C)/(A) and (B)/(D) of net/ring.h; (E) is the full barrier */
#define ixm_load_acquire(p)		smp_load_acquire(p)	/* ring.h (A), (C) */
#define ixm_store_release(p, v)		smp_store_release((p), (v))	/* ring.h (B), (D) */
#define ixm_smp_mb()			smp_mb()	/* ring.h (E) */
#define ixm_index_nospec(i, n)		array_index_nospec((i), (n))
#define ixm_add_overflow(a, b, d)	check_add_overflow((a), (b), (d))
#define IXM_PAGE_SHIFT			PAGE_SHIFT	/* the transmit arena's pages */

/*
 * Streaming DMA of the buffers a ring hands over (nic/): a no-op unless
 * bounce buffers (swiotlb) or a non-coherent machine are in play.  Receive
 * buffers are mapped both ways (the stack answers in place); arena pages
 * only to the device.
 */
#define ixm_dma_sync_for_cpu(dev, dma, len) \
	dma_sync_single_for_cpu((dev), (dma), (len), DMA_BIDIRECTIONAL)
#define ixm_dma_sync_for_device(dev, dma, len) \
	dma_sync_single_for_device((dev), (dma), (len), DMA_BIDIRECTIONAL)
#define ixm_dma_sync_to_device(dev, dma, len) \
	dma_sync_single_for_device((dev), (dma), (len), DMA_TO_DEVICE)

/*
 * Calls through an operations table (nic/ queue ops) name the likely
 * target, which the kernel then calls directly when it matches (no
 * retpoline): INDIRECT_CALL_1() of <linux/indirect_call_wrapper.h>.
 */
#define IXM_INDIRECT_CALL_1(f, f1, ...)	INDIRECT_CALL_1(f, f1, __VA_ARGS__)

#define ixm_ilog2(n)			ilog2(n)
#define ixm_ffs64(x)			__ffs64(x)

/* Monotonic time in nanoseconds, for ARP ageing and, later, timers. */
#define ixm_now_ns()			ktime_get_ns()

/* Rarely written shared state (ARP table, port configuration): RCU. */
#define ixm_rcu_read_lock()		rcu_read_lock()
#define ixm_rcu_read_unlock()		rcu_read_unlock()
#define ixm_rcu_dereference(p)		rcu_dereference(p)
#define ixm_rcu_dereference_protected(p) rcu_dereference_protected((p), 1)
#define ixm_rcu_assign_pointer(p, v)	rcu_assign_pointer((p), (v))
#define ixm_kfree_rcu(p, field)		kfree_rcu((p), field)

/* Writers of that state serialise on a spinlock (any core may learn). */
#define ixm_spinlock_t			spinlock_t
#define ixm_spin_lock_init(l)		spin_lock_init(l)
#define ixm_spin_lock(l)		spin_lock_bh(l)
#define ixm_spin_unlock(l)		spin_unlock_bh(l)

/*
 * Failure injection (Documentation/fault-injection/fault-injection.rst):
 * a helper marked with one of these can be made to return NULL or an
 * error through /sys/kernel/debug/fail_function on a kernel built with
 * CONFIG_FUNCTION_ERROR_INJECTION.  The helper must be noinline.  (Two
 * macros, not one with the type as an argument: NULL would be expanded
 * before ALLOW_ERROR_INJECTION() pastes it.)
 */
#define ixm_injectable_null(fn)		ALLOW_ERROR_INJECTION(fn, NULL)
#define ixm_injectable_errno(fn)	ALLOW_ERROR_INJECTION(fn, ERRNO)

/*
 * One line in the kernel log about a device, from the rare paths of nic/
 * (a reset that never completes, a queue that never starts): dev_err().
 */
#define ixm_dev_err(dev, fmt, ...)	dev_err((dev), fmt, ##__VA_ARGS__)

/* Allocation on the rare path; may fail (tests inject failures). */
#define ixm_zalloc(size)		kzalloc((size), GFP_ATOMIC)
#define ixm_free(p)			kfree(p)
/* the control plane's allocations (a queue pair's rings: nic/intel_adv.c) */
#define ixm_zalloc_node(size, node)	kzalloc_node((size), GFP_KERNEL, (node))
#define ixm_dma_alloc(dev, size, dma)	dma_alloc_coherent((dev), (size), (dma), GFP_KERNEL)
#define ixm_dma_free(dev, size, p, dma)	dma_free_coherent((dev), (size), (p), (dma))

#endif /* _IXM_BASE_PLATFORM_H */
