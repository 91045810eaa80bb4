// SPDX-License-Identifier: GPL-2.0
/*
 * ctx.c - application contexts: setup, poll, release
 *
 * IXMOD_IOC_SETUP attaches an open file to one dataplane core and creates
 * its four regions: the call and event rings and the transmit arena
 * (vmalloc_user(), zeroed), and the receive region, which is the core's
 * own buffer pages (one slice per port), on which the context holds a
 * reference each.  ctx_mem.c allocates and frees a context's memory, maps
 * the arena for the ports' devices and, at release, waits until the NICs
 * have stopped reading it; ctx_map.c maps the regions into the
 * application.
 *
 * Owners.  A receive region shows its process every buffer of the core's
 * pools, and the NIC (RSS) or software steering puts any flow of a port
 * on any of the port's cores, before software has looked at it.  So the
 * unit of isolation is the port: every context on the cores that serve a
 * port belongs to one process, the first to attach, until its last
 * context closes (-EBUSY and one dmesg line for any other; threads of
 * the owner attach as many contexts as they like).  Applications share
 * a machine through ports served by disjoint cores (ports/<port>/cores).
 * A core's claims (ixm_cfg_lock) say who owns its ports; a port whose
 * cores have none is free.  Each time a port gets an owner a new epoch
 * begins (owner_since); before a context attaches to a core whose
 * buffers were last zeroed in an earlier epoch of any of its ports, the
 * core's thread zeroes every buffer, so no frame of an earlier owner, or
 * of a time with none, is left to read.
 *
 * Once published on core->stack.apps, a context's struct ixm_app belongs to the
 * core's thread.  Closing the file unpublishes it, asks the thread to take
 * back its buffers and sockets (IXM_REQ_PURGE), waits for a grace period
 * and frees it.  The file outlives every mapping of it (each VMA holds the
 * file), so nothing is freed while mapped.
 *
 * Locking: setup and release take ixm_cfg_lock; the dataplane thread reads
 * core->stack.apps under RCU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/rculist.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <linux/ixmod.h>

#include "ixmod.h"
#include "ctx.h"

/*
 * Contexts attached or being attached anywhere (ixm_cfg_lock): ports and
 * cores stay put while any is.  The ones being attached are also on
 * ixm_ctx_attaching, so that a second IXMOD_IOC_SETUP on the same file
 * fails while the first one maps its arena without ixm_cfg_lock.
 */
unsigned int ixm_ctx_count;
static LIST_HEAD(ixm_ctx_attaching);

/* The last ownership epoch begun (ixm_cfg_lock). */
static u64 ixm_owner_seq;

/**
 * ixm_port_owner() - the process that owns a port
 * @port: a port
 *
 * A port belongs to the process whose contexts are attached to the cores
 * that serve it; ixm_ctx_setup() keeps that one process per port.
 *
 * Context: ixm_cfg_lock held.
 * Return: its struct pid, or NULL when no context is attached to any of
 * its cores (or it is down).
 */
struct pid *ixm_port_owner(struct ixm_port *port)
{
	unsigned int i;

	lockdep_assert_held(&ixm_cfg_lock);
	for (i = 0; i < port->nq; i++)
		if (port->qp[i]->core->claims)
			return port->qp[i]->core->owner;
	return NULL;
}

/*
 * Claim every port @core serves (@work) for the calling process, or
 * -EBUSY if another process owns one.  @since: the latest epoch of those
 * ports, which the core's buffers must have been zeroed in.
 */
static int ixm_ctx_claim(struct ixm_core *core, struct ixm_core_work *work, u64 *since)
{
	struct pid *me = task_tgid(current);
	unsigned int i;

	lockdep_assert_held(&ixm_cfg_lock);
	for (i = 0; i < work->nr; i++) {
		struct ixm_port *port = work->qp[i]->port;
		struct pid *owner = ixm_port_owner(port);

		if (owner && owner != me) {
			pr_warn_ratelimited("setup: cpu %u serves port %s, which pid %d owns; wait for it to exit, or give each application a port and cores of its own (ports/%s/cores)\n",
					    core->cpu, port->name, pid_nr(owner), port->name);
			return -EBUSY;
		}
	}
	*since = 0;
	for (i = 0; i < work->nr; i++) {
		struct ixm_port *port = work->qp[i]->port;

		if (!ixm_port_owner(port))
			port->owner_since = ++ixm_owner_seq;
		*since = max(*since, port->owner_since);
	}
	if (!core->claims++) {
		core->owner = get_pid(me);
		WRITE_ONCE(core->owner_nr, pid_nr(me));
	}
	return 0;
}

/* Give back one claim on @core's ports (ixm_cfg_lock). */
static void ixm_ctx_unclaim(struct ixm_core *core)
{
	lockdep_assert_held(&ixm_cfg_lock);
	if (--core->claims)
		return;
	put_pid(core->owner);
	core->owner = NULL;
	WRITE_ONCE(core->owner_nr, 0);
}

static bool ixm_ctx_attaching_file(struct file *file)
{
	struct ixm_ctx *c;

	lockdep_assert_held(&ixm_cfg_lock);
	list_for_each_entry(c, &ixm_ctx_attaching, node)
		if (c->file == file)
			return true;
	return false;
}

/* Round a requested ring size: 0 means the default, CLAMP caps it. */
static int ixm_ring_size(u32 want, u32 flags, u32 *out)
{
	if (!want)
		want = IXM_RING_ENTRIES_DEF;
	if (want > IXM_RING_ENTRIES_MAX) {
		if (!(flags & IXMOD_SETUP_CLAMP))
			return -EINVAL;
		want = IXM_RING_ENTRIES_MAX;
	}
	*out = roundup_pow_of_two(want);
	return 0;
}

static bool ixm_setup_outputs_zero(const struct ixmod_setup *p)
{
	const struct ixmod_ring_offsets *o[] = { &p->call_off, &p->event_off };
	unsigned int i, j;

	if (p->rxbuf_size || p->features)
		return false;
	for (i = 0; i < IXMOD_REGION_NR; i++)
		if (p->regions[i].mmap_offset || p->regions[i].size)
			return false;
	for (i = 0; i < ARRAY_SIZE(o); i++) {
		if (o[i]->prod || o[i]->cons || o[i]->flags || o[i]->entries)
			return false;
		for (j = 0; j < ARRAY_SIZE(o[i]->resv); j++)
			if (o[i]->resv[j])
				return false;
	}
	if (p->event_size || p->__pad)
		return false;
	for (i = 0; i < ARRAY_SIZE(p->resv); i++)
		if (p->resv[i])
			return false;
	return true;
}

static void ixm_ring_offsets_fill(struct ixmod_ring_offsets *o)
{
	o->prod = IXM_RING_OFF_PROD;
	o->cons = IXM_RING_OFF_CONS;
	o->flags = IXM_RING_OFF_FLAGS;
	o->entries = IXM_RING_OFF_ENTRIES;
}

/*
 * Take a reference on every page of the core's pools, in slice order.
 * Injectable (ERRNO).
 */
static noinline int ixm_ctx_grab_rx(struct ixm_ctx *ctx, struct ixm_core_work *work)
{
	unsigned int per = IXM_RX_SLICE / PAGE_SIZE, i, j;

	ctx->rx_pages = kvcalloc(work->nr * per, sizeof(struct page *), GFP_KERNEL);
	if (!ctx->rx_pages)
		return -ENOMEM;
	for (i = 0; i < work->nr; i++) {
		struct ixm_qpair *qp = work->qp[i];

		if (WARN_ON_ONCE(qp->npages != per))
			return -EIO;
		for (j = 0; j < per; j++) {
			get_page(qp->pages[j]);
			ctx->rx_pages[ctx->rx_npages++] = qp->pages[j];
		}
	}
	return 0;
}
ALLOW_ERROR_INJECTION(ixm_ctx_grab_rx, ERRNO);

/**
 * ixm_ctx_setup() - IXMOD_IOC_SETUP: attach a file to a dataplane core
 * @file: the /dev/ixmod file
 * @argp: user pointer to struct ixmod_setup
 *
 * Validates the whole request, allocates every region, then publishes
 * the context to the core.  On any failure nothing is attached.  The
 * slow part (the receive pages, the arena's DMA mapping, a scrub of a
 * new owner's buffers) holds only the core's attach_lock: the context
 * counts in ixm_ctx_count from the start, which keeps the core's ports
 * up and the cores as they are, and a PCI removal waits for the lock.
 *
 * Context: process; takes ixm_cfg_lock, then the core's attach_lock.
 * Return: 0; -EFAULT; -EINVAL (bad flags, IXMOD_SETUP_INET6 without
 * IXMOD_SETUP_EVENT_EXT, reserved or output fields not zero, sizes over
 * the limits without IXMOD_SETUP_CLAMP, @cpu not a
 * dataplane core); -EEXIST (this file is already attached); -EBUSY
 * (another process owns a port the core serves); -ENETDOWN (no port is
 * up on the core);
 * -ENOMEM.
 */
long ixm_ctx_setup(struct file *file, void __user *argp)
{
	struct ixm_core_work *work;
	struct ixmod_setup p;
	struct ixm_core *core;
	struct ixm_ctx *ctx;
	u32 calls, events, arena, flags;
	u64 since;
	int err;

	if (copy_from_user(&p, argp, sizeof(p)))
		return -EFAULT;
	if (p.flags & ~IXM_SETUP_FLAGS_ALL || !ixm_setup_outputs_zero(&p))
		return -EINVAL;
	if ((p.flags & IXMOD_SETUP_INET6) && !(p.flags & IXMOD_SETUP_EVENT_EXT)) {
		pr_warn_ratelimited("setup: IXMOD_SETUP_INET6 needs IXMOD_SETUP_EVENT_EXT (an IPv6 peer's address travels in the extended event); set both\n");
		return -EINVAL;
	}
	err = ixm_ring_size(p.call_entries, p.flags, &calls);
	if (!err)
		err = ixm_ring_size(p.event_entries, p.flags, &events);
	if (err)
		return err;
	arena = p.txarena_size ? p.txarena_size : IXM_TXARENA_DEF;
	if (arena > IXM_TXARENA_MAX) {
		if (!(p.flags & IXMOD_SETUP_CLAMP))
			return -EINVAL;
		arena = IXM_TXARENA_MAX;
	}
	arena = PAGE_ALIGN(arena);

	ctx = ixm_ctx_alloc(calls, events, p.flags & IXMOD_SETUP_EVENT_EXT, arena);
	if (!ctx) {
		pr_warn_ratelimited("setup: out of memory for %u calls, %u events and a %u KiB arena; smaller rings or txarena_size may fit\n",
				    calls, events, arena >> 10);
		return -ENOMEM;
	}
	mmgrab(current->mm);
	ctx->mm = current->mm;

	mutex_lock(&ixm_cfg_lock);
	if (file->private_data || ixm_ctx_attaching_file(file)) {
		err = -EEXIST;
		goto err_unlock;
	}
	core = ixm_dp_core(p.cpu);
	if (!core) {
		pr_warn_ratelimited("setup: cpu %u is not a dataplane core; pick one from /sys/kernel/ixmod/cores\n",
				    p.cpu);
		err = -EINVAL;
		goto err_unlock;
	}
	work = rcu_dereference_protected(core->work, lockdep_is_held(&ixm_cfg_lock));
	if (!work || !work->nr) {
		pr_warn_ratelimited("setup: no port is up on cpu %u; write 1 to a port's up first\n",
				    p.cpu);
		err = -ENETDOWN;
		goto err_unlock;
	}
	err = ixm_ctx_claim(core, work, &since);
	if (err)
		goto err_unlock;
	/* from here @work and @core stay: up, down and cores refuse while it counts */
	ixm_ctx_count++;
	ctx->file = file;
	list_add(&ctx->node, &ixm_ctx_attaching);
	mutex_lock(&core->attach_lock);
	mutex_unlock(&ixm_cfg_lock);

	err = ixm_ctx_grab_rx(ctx, work);
	if (!err)
		err = ixm_ctx_map_arena(ctx, work);
	if (err) {
		pr_warn_ratelimited("setup: cannot attach to cpu %u's %u queue pairs (%d); nothing changed\n",
				    p.cpu, work->nr, err);
		goto err_detach;
	}

	/*
	 * Nothing from before this owner's epoch: not an earlier owner's
	 * frames, nor those of a time with none.  A core with contexts
	 * was zeroed when its first one attached, in these epochs.
	 */
	if (core->scrub_seq < since && !WARN_ON_ONCE(core->nctx)) {
		ixm_core_request(core, IXM_REQ_SCRUB, NULL);
		core->scrub_seq = since;
	}

	ctx->core = core;
	ctx->work_gen = work->gen;
	ixm_app_init(&ctx->app, &core->stack, &(struct ixm_app_regions) {
		.call_region = ctx->call_region, .call_nr = calls,
		.event_region = ctx->event_region, .event_nr = events,
		.ev_ext = p.flags & IXMOD_SETUP_EVENT_EXT, .hold = ctx->hold,
		.sent_in_recv = p.flags & IXMOD_SETUP_SENT_IN_RECV,
		.inet6 = p.flags & IXMOD_SETUP_INET6,
		.txarena = ctx->txarena, .txarena_size = ctx->txarena_bytes,
		.nslices = work->nr,
	});
	ctx->app.txmap = ctx->txmap;

	/* out: everything written by the kernel, nothing left from the caller */
	flags = p.flags;
	memset(&p, 0, sizeof(p));
	p.flags = flags;
	p.cpu = core->cpu;
	p.call_entries = calls;
	p.event_entries = events;
	p.txarena_size = arena;
	p.rxbuf_size = IXM_MBUF_SIZE;
	p.features = IXM_FEAT_ALL;
	p.event_size = flags & IXMOD_SETUP_EVENT_EXT ? sizeof(struct ixmod_event_ext) :
						       sizeof(struct ixmod_event);
	p.regions[IXMOD_REGION_CALL_RING].mmap_offset = IXMOD_OFF_CALL_RING;
	p.regions[IXMOD_REGION_CALL_RING].size = ctx->call_bytes;
	p.regions[IXMOD_REGION_EVENT_RING].mmap_offset = IXMOD_OFF_EVENT_RING;
	p.regions[IXMOD_REGION_EVENT_RING].size = ctx->event_bytes;
	p.regions[IXMOD_REGION_RXBUF].mmap_offset = IXMOD_OFF_RXBUF;
	p.regions[IXMOD_REGION_RXBUF].size = (u64)ctx->rx_npages * PAGE_SIZE;
	p.regions[IXMOD_REGION_TXARENA].mmap_offset = IXMOD_OFF_TXARENA;
	p.regions[IXMOD_REGION_TXARENA].size = ctx->txarena_bytes;
	ixm_ring_offsets_fill(&p.call_off);
	ixm_ring_offsets_fill(&p.event_off);
	ctx->setup = p;
	if (copy_to_user(argp, &p, sizeof(p))) {
		err = -EFAULT;
		goto err_detach;
	}

	WRITE_ONCE(core->nctx, core->nctx + 1);
	ixm_stack_add_app(&core->stack, &ctx->app);
	mutex_unlock(&core->attach_lock);

	mutex_lock(&ixm_cfg_lock);
	list_del_init(&ctx->node);
	/* pairs with ixm_file_ctx(): mmap and poll see a complete context */
	smp_store_release(&file->private_data, ctx);
	mutex_unlock(&ixm_cfg_lock);
	ixm_core_wake(core);
	return 0;

err_detach:
	mutex_unlock(&core->attach_lock);
	mutex_lock(&ixm_cfg_lock);
	list_del_init(&ctx->node);
	ixm_ctx_count--;
	ixm_ctx_unclaim(core);
err_unlock:
	mutex_unlock(&ixm_cfg_lock);
	ixm_ctx_free(ctx);
	return err;
}

/**
 * ixm_ctx_poll() - poll()/epoll on an attached file
 * @file: the file
 * @wait: poll table
 *
 * EPOLLIN: events are waiting.  EPOLLOUT: the call ring has room.
 * EPOLLERR: the context lost its port.  Calls waiting in the ring, or
 * events held back for want of room, wake a sleeping core, so poll()
 * doubles as the wake-up call.
 *
 * Return: the mask; EPOLLERR for a file that is not attached.
 */
__poll_t ixm_ctx_poll(struct file *file, struct poll_table_struct *wait)
{
	struct ixm_ctx *ctx = ixm_file_ctx(file);
	struct ixm_ring *ev, *calls;
	__poll_t mask = 0;

	if (!ctx)
		return EPOLLERR;
	ev = &ctx->app.events;
	calls = &ctx->app.calls;
	poll_wait(file, &ctx->wq, wait);
	/* the shared words: what the application and the thread published */
	if (READ_ONCE(*ev->prod) != READ_ONCE(*ev->cons))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(*calls->prod) - READ_ONCE(*calls->cons) < calls->nr)
		mask |= EPOLLOUT | EPOLLWRNORM;
	/* the thread has calls to run, or held-back events for freed slots */
	if (READ_ONCE(*calls->prod) != READ_ONCE(*calls->cons) ||
	    READ_ONCE(ctx->app.hold_count))
		ixm_core_wake(ctx->core);
	/* the kernel's own state: the shared flag word is the application's to scribble on */
	if (READ_ONCE(ctx->app.dead))
		mask |= EPOLLERR;
	return mask;
}

/**
 * ixm_ctx_wake() - IXMOD_IOC_WAKE: wake the context's core
 * @file: the file
 *
 * Return: 0, or -EINVAL if the file is not attached.
 */
int ixm_ctx_wake(struct file *file)
{
	struct ixm_ctx *ctx = ixm_file_ctx(file);

	if (!ctx)
		return -EINVAL;
	ixm_core_wake(ctx->core);
	return 0;
}

/**
 * ixm_ctx_release() - detach and free a file's context
 * @file: the file being released (no mapping of it is left)
 *
 * The wait for the NIC (up to a second) holds the core's attach_lock,
 * not ixm_cfg_lock: the context still counts in ixm_ctx_count while it
 * waits, which keeps the ports up.
 *
 * Context: process; takes the core's attach_lock, then ixm_cfg_lock.
 */
void ixm_ctx_release(struct file *file)
{
	struct ixm_ctx *ctx = file->private_data;
	struct ixm_core *core;

	if (!ctx)
		return;
	core = ctx->core;
	mutex_lock(&core->attach_lock);
	ixm_stack_del_app(&core->stack, &ctx->app);
	/* a co-located thread running through @ctx gives the core back */
	ixm_colo_ctx_gone(ctx);
	/* the thread takes back buffers and sockets, then forgets @ctx */
	ixm_core_request(core, IXM_REQ_PURGE, ctx);
	/* no new frame points into the arena; wait out the queued ones */
	ixm_ctx_wait_arena(ctx);
	WRITE_ONCE(core->nctx, core->nctx - 1);
	mutex_unlock(&core->attach_lock);
	mutex_lock(&ixm_cfg_lock);
	ixm_ctx_count--;
	/* its buffers and sockets are taken back: the ports may change hands */
	ixm_ctx_unclaim(core);
	mutex_unlock(&ixm_cfg_lock);
	synchronize_rcu();
	if (ctx->arena_busy) {
		/* after the grace period: no loop reaches @ctx any more */
		ixm_ctx_keep_arena(ctx);
		return;
	}
	ixm_ctx_free(ctx);
}
