// SPDX-License-Identifier: GPL-2.0
/*
 * ctx_mem.c - a context's memory: its regions, and the transmit arena's
 * DMA life
 *
 * A context is allocated with its call and event rings, its transmit
 * arena (vmalloc_user(), zeroed) and its hold-back queue, and freed with
 * everything it holds: those, its references on the receive pages, its
 * arena's DMA mappings and its address space (ixm_ctx_free()).
 *
 * TCP transmits from a context's arena in place, so at setup the arena
 * (vmalloc memory) is mapped page by page for every port's device
 * (DMA_TO_DEVICE).  A device that cannot map it all gets none, and TCP
 * copies there.  The NIC may read the arena until it has sent the last
 * frame that points into it, so release waits for that (each port's
 * @inflight count drops to 0, bounded by a second) before it unmaps and
 * frees the arena.  An arena a NIC still reads after the bound is kept,
 * mapped, until that device is reset (unbind, removal, rmmod), and
 * counted in /sys/kernel/ixmod/arenas_kept.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/error-injection.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <linux/ixmod.h>

#include "ixmod.h"
#include "ctx.h"

unsigned int ixm_arenas_kept;	/* under ixm_cfg_lock: ixm_ctx_busy's length */

/* Closed contexts whose arena the NIC never let go (ixm_cfg_lock); freed at its reset. */
static LIST_HEAD(ixm_ctx_busy);

/*
 * The context and its rings, arena and hold list, sized from the request.
 * Injectable (ERRNO_NULL would not do: the caller wants a pointer).
 */
noinline struct ixm_ctx *ixm_ctx_alloc(u32 calls, u32 events, bool ev_ext, u32 arena)
{
	struct ixm_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return NULL;
	init_waitqueue_head(&ctx->wq);
	INIT_LIST_HEAD(&ctx->node);
	ctx->call_bytes = PAGE_ALIGN(ixm_ring_bytes(calls, sizeof(struct ixmod_call)));
	ctx->event_bytes = PAGE_ALIGN(ixm_ring_bytes(events, ev_ext ?
						     sizeof(struct ixmod_event_ext) :
						     sizeof(struct ixmod_event)));
	ctx->txarena_bytes = arena;
	ctx->call_region = vmalloc_user(ctx->call_bytes);
	ctx->event_region = vmalloc_user(ctx->event_bytes);
	ctx->txarena = vmalloc_user(ctx->txarena_bytes);
	ctx->hold = kvcalloc(events, sizeof(*ctx->hold), GFP_KERNEL);
	if (!ctx->call_region || !ctx->event_region || !ctx->txarena || !ctx->hold) {
		ixm_ctx_free(ctx);
		return NULL;
	}
	return ctx;
}
ALLOW_ERROR_INJECTION(ixm_ctx_alloc, NULL);

/**
 * ixm_ctx_free() - free a context and everything it holds
 * @ctx: unreachable from every loop; with @arena_busy its arena (the NIC
 *	still reads it) stays, to be freed by ixm_ctx_device_reset()
 *
 * Context: process.
 */
void ixm_ctx_free(struct ixm_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ctx->rx_npages; i++)
		put_page(ctx->rx_pages[i]);
	kvfree(ctx->rx_pages);
	kvfree(ctx->hold);
	if (!ctx->arena_busy) {
		if (ctx->txmap)
			ixm_ctx_unmap_arena(ctx);
		kfree(ctx->txmap);
		kfree(ctx->txmap_dev);
		vfree(ctx->txarena);
	}
	vfree(ctx->event_region);
	vfree(ctx->call_region);
	if (ctx->mm)
		mmdrop(ctx->mm);
	kfree(ctx);
}

/* Unmap the arena from slice @i's device. */
static void ixm_ctx_unmap_slice(struct ixm_ctx *ctx, unsigned int i, unsigned int npages)
{
	dma_addr_t *dma = (dma_addr_t *)ctx->txmap[i].page_dma;
	unsigned int j;

	if (!dma)
		return;
	for (j = 0; j < npages; j++)
		dma_unmap_page(ctx->txmap_dev[i], dma[j], PAGE_SIZE, DMA_TO_DEVICE);
	ctx->txmap[i].page_dma = NULL;
	put_device(ctx->txmap_dev[i]);
	ctx->txmap_dev[i] = NULL;
	kvfree(dma);
}

void ixm_ctx_unmap_arena(struct ixm_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ctx->ntxmap; i++)
		ixm_ctx_unmap_slice(ctx, i, ctx->txarena_bytes >> PAGE_SHIFT);
}

/*
 * Map the whole arena for @dev as slice @i, or nothing.  Injectable
 * (ERRNO): the fallback to copying below.
 */
static noinline int ixm_ctx_map_slice(struct ixm_ctx *ctx, unsigned int i,
				      struct device *dev)
{
	unsigned int npages = ctx->txarena_bytes >> PAGE_SHIFT, j;
	dma_addr_t *dma = kvcalloc(npages, sizeof(*dma), GFP_KERNEL);

	if (!dma)
		return -ENOMEM;
	for (j = 0; j < npages; j++) {
		struct page *pg = vmalloc_to_page(ctx->txarena + (size_t)j * PAGE_SIZE);

		dma[j] = dma_map_page(dev, pg, 0, PAGE_SIZE, DMA_TO_DEVICE);
		if (dma_mapping_error(dev, dma[j]))
			break;
	}
	ctx->txmap[i].page_dma = dma;
	ctx->txmap_dev[i] = get_device(dev);
	if (j < npages) {
		ixm_ctx_unmap_slice(ctx, i, j);
		return -ENOMEM;
	}
	return 0;
}
ALLOW_ERROR_INJECTION(ixm_ctx_map_slice, ERRNO);

/*
 * Map the arena for every port's device.  A port whose device cannot map
 * it all (an IOMMU or bounce-buffer space that ran out) gets none, and
 * TCP copies there: slower, never wrong, counted in tcp_tx_copied.
 * Injectable (ERRNO): setup fails.
 */
noinline int ixm_ctx_map_arena(struct ixm_ctx *ctx, struct ixm_core_work *work)
{
	unsigned int i;

	ctx->txmap = kcalloc(work->nr, sizeof(*ctx->txmap), GFP_KERNEL);
	ctx->txmap_dev = kcalloc(work->nr, sizeof(*ctx->txmap_dev), GFP_KERNEL);
	if (!ctx->txmap || !ctx->txmap_dev)
		return -ENOMEM;
	ctx->ntxmap = work->nr;
	for (i = 0; i < work->nr; i++) {
		struct device *dev = work->qp[i]->port->dev;

		if (ixm_ctx_map_slice(ctx, i, dev))
			pr_warn_ratelimited("setup: %s cannot map the %zu KiB transmit arena; TCP copies on that port (smaller txarena_size may fit)\n",
					    dev_name(dev), ctx->txarena_bytes >> 10);
	}
	return 0;
}
ALLOW_ERROR_INJECTION(ixm_ctx_map_arena, ERRNO);

static u32 ixm_ctx_arena_inflight(struct ixm_ctx *ctx)
{
	u32 n = 0;
	unsigned int i;

	for (i = 0; i < ctx->ntxmap; i++)
		n += READ_ONCE(ctx->txmap[i].inflight);
	return n;
}

/*
 * Wait until the NIC has sent every frame that reads the arena (bounded:
 * a second), keeping the core awake to reap them.  Injectable (ERRNO,
 * -ETIMEDOUT): a NIC that keeps reading past the bound.
 */
static noinline int ixm_ctx_drain_arena(struct ixm_ctx *ctx)
{
	unsigned long deadline = jiffies + HZ;

	might_sleep();
	while (ixm_ctx_arena_inflight(ctx)) {
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		ixm_core_wake(ctx->core);
		usleep_range(50, 100);
	}
	return 0;
}
ALLOW_ERROR_INJECTION(ixm_ctx_drain_arena, ERRNO);

/*
 * The ports stay up while the arena drains: the context still counts in
 * ixm_ctx_count, and a PCI removal waits for the core's attach_lock.  A NIC
 * that never finishes leaves the arena allocated and mapped until its
 * device is reset (ixm_ctx_device_reset(): unbind, removal, rmmod) rather
 * than freed under its DMA; /sys/kernel/ixmod/arenas_kept counts them.
 */
void ixm_ctx_wait_arena(struct ixm_ctx *ctx)
{
	lockdep_assert_held(&ctx->core->attach_lock);
	if (ixm_ctx_drain_arena(ctx)) {
		ctx->arena_busy = true;
		ixm_arenas_kept++;
		pr_warn("release: the NIC still reads %u frames from a closed context's transmit arena after 1 s; keeping its %zu KiB until the port's device is reset (unbind or rmmod)\n",
			ixm_ctx_arena_inflight(ctx), ctx->txarena_bytes >> 10);
		return;
	}
	ixm_ctx_unmap_arena(ctx);
}

/**
 * ixm_ctx_port_gone() - a port is down under its contexts (PCI removal)
 * @dev: its device; its queues are stopped and their frames freed
 *
 * Unmaps every context's arena from @dev: those contexts are dead (their
 * work generation is gone) and TCP sends nothing for them any more.
 *
 * Context: process, ixm_cfg_lock and every core's attach_lock held.
 */
void ixm_ctx_port_gone(struct device *dev)
{
	struct ixm_core *core;
	struct ixm_app *app;
	unsigned int cpu, i;

	lockdep_assert_held(&ixm_cfg_lock);
	for_each_possible_cpu(cpu) {
		core = ixm_dp_core(cpu);
		if (!core)
			continue;
		ixm_stack_for_each_app_protected(app, &core->stack) {
			struct ixm_ctx *ctx = container_of(app, struct ixm_ctx, app);
			unsigned int npages = ctx->txarena_bytes >> PAGE_SHIFT;

			for (i = 0; i < ctx->ntxmap; i++)
				if (ctx->txmap_dev[i] == dev && !ctx->txmap[i].inflight)
					ixm_ctx_unmap_slice(ctx, i, npages);
		}
	}
}

/**
 * ixm_ctx_keep_arena() - keep a released context whose arena is still read
 * @ctx: unreachable from every loop (after a grace period); @arena_busy
 *
 * Freed by ixm_ctx_device_reset() once every device that maps the arena
 * was reset, or at module unload.
 *
 * Context: process; takes ixm_cfg_lock.
 */
void ixm_ctx_keep_arena(struct ixm_ctx *ctx)
{
	mutex_lock(&ixm_cfg_lock);
	list_add(&ctx->node, &ixm_ctx_busy);
	mutex_unlock(&ixm_cfg_lock);
}

/**
 * ixm_ctx_device_reset() - let go of kept arenas a reset device read
 * @dev: a port's device, just reset: it reads no memory any more
 *
 * Unmaps the arenas ixm_ctx_wait_arena() kept from @dev, and frees each
 * one no other device maps any more.
 *
 * Context: process; takes ixm_cfg_lock.
 */
void ixm_ctx_device_reset(struct device *dev)
{
	unsigned int npages, i;
	struct ixm_ctx *ctx, *tmp;
	bool mapped;

	mutex_lock(&ixm_cfg_lock);
	list_for_each_entry_safe(ctx, tmp, &ixm_ctx_busy, node) {
		npages = ctx->txarena_bytes >> PAGE_SHIFT;
		mapped = false;
		for (i = 0; i < ctx->ntxmap; i++) {
			if (ctx->txmap_dev[i] == dev)
				ixm_ctx_unmap_slice(ctx, i, npages);
			else if (ctx->txmap_dev[i])
				mapped = true;
		}
		if (mapped)
			continue;
		list_del(&ctx->node);
		ctx->arena_busy = false;
		ixm_arenas_kept--;
		pr_info("release: %s was reset; a kept %zu KiB transmit arena is freed\n",
			dev_name(dev), ctx->txarena_bytes >> 10);
		ixm_ctx_free(ctx);
	}
	mutex_unlock(&ixm_cfg_lock);
}

/**
 * ixm_ctx_exit() - free the arenas kept by ixm_ctx_wait_arena()
 *
 * Every port's device was reset by then (ixm_ctx_device_reset() freed
 * them all); this is the net under that.
 *
 * Context: module unload, after every port is down (no NIC reads them).
 */
void ixm_ctx_exit(void)
{
	struct ixm_ctx *ctx, *tmp;

	list_for_each_entry_safe(ctx, tmp, &ixm_ctx_busy, node) {
		WARN_ON_ONCE(1);
		list_del(&ctx->node);
		ctx->arena_busy = false;
		ixm_ctx_free(ctx);
	}
	ixm_arenas_kept = 0;
}
