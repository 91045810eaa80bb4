/* SPDX-License-Identifier: GPL-2.0 */
/*
 * app.h - an application context as the dataplane sees it
 *
 * A context (one open /dev/ixmod file attached to one core) is two rings,
 * a transmit arena the application writes and a receive region it may
 * only read.  The dataplane thread of its core is the only code that
 * touches a context's rings, its hold-back queue and its counters, so
 * nothing here takes a lock.
 *
 * struct ixm_stack is what the portable code knows of its core: the ports
 * it serves this iteration and its UDP sockets.
 */
#ifndef _IXM_NET_APP_H
#define _IXM_NET_APP_H

#include <linux/ixmod.h>

#include "platform.h"
#include "net.h"
#include "ring.h"

/* The receive region is one slice of IXM_RX_SLICE bytes per port of the core. */
#define IXM_RX_SLICE_BUFS	2048
#define IXM_RX_SLICE		(IXM_RX_SLICE_BUFS * IXM_MBUF_SIZE)

/* UDP payload that fits a 1500-byte MTU without IP options */
#define IXM_UDP_PAYLOAD_MAX	(1500 - 20 - 8)
/* The same over IPv6, without extension headers (no fragmentation) */
#define IXM_UDP6_PAYLOAD_MAX	(1500 - 40 - 8)

struct ixm_udp_table;
struct ixm_tcp_table;

/**
 * struct ixm_stack - one core's protocol state
 * @ports: the ports this core serves, in receive-region order (slice i
 *	of a context's receive region is @ports[i]'s pool)
 * @nports: entries in @ports
 * @udp: the core's UDP sockets
 * @tcp: the core's TCP connections and listeners
 * @apps: the contexts attached to the core, an RCU-protected chain
 *	through &struct ixm_app.next (ixm_stack_add_app())
 * @now_ns: time at the start of the iteration
 * @rx_batch_hist: receive batches by size: 1, 2-3, 4-7, ..., 64+
 */
struct ixm_stack {
	struct ixm_net_port	**ports;
	unsigned int		nports;
	struct ixm_udp_table	*udp;
	struct ixm_tcp_table	*tcp;
	struct ixm_app __rcu	*apps;
	u64			now_ns;
	u64			rx_batch_hist[IXM_BATCH_HIST];
};

/**
 * struct ixm_app_stats - counters of one context
 * @calls: call entries consumed
 * @call_errors: calls answered with a negative res
 * @events: events written to the ring
 * @held: events that had to wait in the hold-back queue (ring full)
 * @rx_dropped: datagrams dropped because ring and hold-back queue were full
 * @ring_corrupt: times an index the application wrote was impossible
 * @rx_bufs: receive buffers the application holds now
 *
 * Written only by the core's thread; read by sysfs and debug tools.
 */
struct ixm_app_stats {
	u64	calls;
	u64	call_errors;
	u64	events;
	u64	held;
	u64	rx_dropped;
	u64	ring_corrupt;
	u64	rx_bufs;
};

/**
 * struct ixm_app_txmap - the transmit arena as one port's device sees it
 * @page_dma: the bus address of every arena page (1 << IXM_PAGE_SHIFT
 *	bytes) for the device
 * @inflight: frames on the port whose fragments point into the arena;
 *	ixm_mbuf_free() decrements it, so at 0 the device reads none of it
 *	(changed only by the port's core; read by whoever frees the arena)
 */
struct ixm_app_txmap {
	const dma_addr_t	*page_dma;
	u32			inflight;
};

/**
 * struct ixm_app - one context
 * @calls: the call ring (the application produces)
 * @events: the event ring (the kernel produces)
 * @txarena: the transmit arena (the kernel only reads it)
 * @txarena_size: its bytes
 * @txmap: @nslices entries, one per port in slice order, that let TCP
 *	send from the arena in place; NULL: TCP copies (set by the owner
 *	after ixm_app_init())
 * @nslices: receive-region slices, one per port the core served at setup
 * @ev_ext: the event ring's entries are struct ixmod_event_ext
 *	(IXMOD_SETUP_EVENT_EXT), else struct ixmod_event
 * @sent_in_recv: a TCP_RECV may carry a TCP_SENT's bytes
 *	(IXMOD_SETUP_SENT_IN_RECV)
 * @inet6: the context takes IPv6 peers (IXMOD_SETUP_INET6; @ev_ext too)
 * @hold: hold-back queue for events the full ring could not take, with
 *	the handle each carries when @ev_ext
 * @hold_nr: its capacity (the event ring's size)
 * @hold_head: index of the oldest held event
 * @hold_count: events held
 * @dirty: events written since the last publish
 * @dead: the context lost its ports; it takes no calls and gets no events
 * @stack: the core's protocol state
 * @next: the next context of @stack->apps
 * @stats: counters
 */
struct ixm_app {
	struct ixm_ring		calls;
	struct ixm_ring		events;
	const u8		*txarena;
	u32			txarena_size;
	struct ixm_app_txmap	*txmap;
	u32			nslices;
	bool			ev_ext;
	bool			sent_in_recv;
	bool			inet6;
	struct ixmod_event_ext	*hold;
	u32			hold_nr;
	u32			hold_head;
	u32			hold_count;
	bool			dirty;
	bool			dead;
	struct ixm_stack	*stack;
	struct ixm_app __rcu	*next;
	struct ixm_app_stats	stats;
};

/* Every context of @st, under ixm_rcu_read_lock() (or the writers' lock). */
#define ixm_stack_for_each_app(app, st)				\
	for ((app) = ixm_rcu_dereference((st)->apps); (app);		\
	     (app) = ixm_rcu_dereference((app)->next))

/* The same, for the writers of @st->apps (under their lock) */
#define ixm_stack_for_each_app_protected(app, st)			\
	for ((app) = ixm_rcu_dereference_protected((st)->apps); (app);	\
	     (app) = ixm_rcu_dereference_protected((app)->next))

void ixm_stack_add_app(struct ixm_stack *st, struct ixm_app *app);
void ixm_stack_del_app(struct ixm_stack *st, struct ixm_app *app);

/* Hook: events were published to @app; the kernel glue wakes its waiters. */
void ixm_app_notify(struct ixm_app *app);

/**
 * struct ixm_app_regions - the memory a context's kernel state is set up on
 * @call_region: the call ring region (zeroed)
 * @call_nr: its entries, a power of two
 * @event_region: the event ring region (zeroed)
 * @event_nr: its entries, a power of two
 * @ev_ext: the event ring's entries are struct ixmod_event_ext
 * @sent_in_recv: IXMOD_SETUP_SENT_IN_RECV
 * @inet6: IXMOD_SETUP_INET6 (only with @ev_ext)
 * @hold: @event_nr entries for the hold-back queue
 * @txarena: the transmit arena
 * @txarena_size: its bytes
 * @nslices: receive-region slices (ports of the core)
 */
struct ixm_app_regions {
	void			*call_region;
	u32			call_nr;
	void			*event_region;
	u32			event_nr;
	bool			ev_ext;
	bool			sent_in_recv;
	bool			inet6;
	struct ixmod_event_ext	*hold;
	const u8		*txarena;
	u32			txarena_size;
	u32			nslices;
};

void ixm_app_init(struct ixm_app *app, struct ixm_stack *stack,
		  const struct ixm_app_regions *r);
int ixm_app_post(struct ixm_app *app, const struct ixmod_event *ev, u64 handle);
int ixm_app_post6(struct ixm_app *app, const struct ixmod_event *ev, u64 handle,
		  const struct ixm_in6_addr *addr6);
bool ixm_app_can_post(struct ixm_app *app);

/* The event ring's entry @i (a free-running index). */
static inline struct ixmod_event *ixm_app_slot(const struct ixm_app *app, u32 i)
{
	const struct ixm_ring *r = &app->events;

	if (app->ev_ext)
		return &((struct ixmod_event_ext *)r->entries)[i & r->mask].ev;
	return (struct ixmod_event *)r->entries + (i & r->mask);
}

/**
 * ixm_app_event_begin() - where to write the next event
 * @app: the context
 * @spare: the caller's event, used when the ring's next slot cannot be
 *
 * Nearly always the ring's next free slot, written in place (no copy);
 * while events are held back or the ring is full, @spare, which
 * ixm_app_event_end() then queues as ixm_app_post() does.  The caller
 * writes every field of the 32-byte event (the ring is the application's
 * memory: no stale bytes from an earlier event may stay);
 * ixm_app_event_end() writes the rest of an extended one.
 *
 * Return: the event to write, or NULL when neither the ring nor the
 * hold-back queue has room (ixm_app_can_post() is false).
 */
static inline struct ixmod_event *ixm_app_event_begin(struct ixm_app *app,
							struct ixmod_event *spare)
{
	struct ixm_ring *r = &app->events;

	if (likely(!app->hold_count) && ixm_ring_space(r, &app->stats.ring_corrupt))
		return ixm_app_slot(app, r->cached);
	return ixm_app_can_post(app) ? spare : NULL;
}

/**
 * ixm_app_event_end() - the event ixm_app_event_begin() gave is written
 * @app: the context
 * @ev: that event
 * @spare: the same spare
 * @handle: the object the event is about (struct ixmod_event_ext)
 *
 * It becomes visible at the next ixm_app_flush().
 */
static inline void ixm_app_event_end(struct ixm_app *app, struct ixmod_event *ev,
				     struct ixmod_event *spare, u64 handle)
{
	if (unlikely(ev == spare)) {
		ixm_app_post(app, spare, handle);	/* cannot fail: begin checked */
		return;
	}
	if (app->ev_ext) {
		struct ixmod_event_ext *x = container_of(ev, struct ixmod_event_ext, ev);

		x->handle = handle;
		x->resv[0] = 0;
		x->resv[1] = 0;
		x->resv[2] = 0;
	}
	app->events.cached++;
	app->stats.events++;
	app->dirty = true;
}
bool ixm_app_flush(struct ixm_app *app);
u32 ixm_app_rx_off(const struct ixm_mbuf *m);
struct ixm_net_port *ixm_stack_route(struct ixm_stack *st, __be32 daddr,
				     unsigned int *idx);
struct ixm_net_port *ixm_stack_route6(struct ixm_stack *st,
				      const struct ixm_in6_addr *daddr);
bool ixm_stack_addr6_is_ours(struct ixm_stack *st, const struct ixm_in6_addr *a);
void ixm_app_stats_fold(struct ixm_app_stats *total, const struct ixm_app_stats *s);

/*
 * What a protocol's send returns for "not now, keep the call's entry"
 * (the TX batch is full); ixm_call_exec() passes it on.
 */
#define IXM_CALL_RETRY		(-4096)	/* below every errno */

/*
 * What an op sets in its completion event's type for "no event": a send
 * with IXMOD_CALL_F_POS that took every byte (no event type has it)
 */
#define IXM_EV_NONE		0xff

/*
 * What this module takes, reported by IXMOD_IOC_GET_INFO (the uapi fixes
 * none of it, so it can grow): opcodes and event types (their count),
 * call flags, and the limits of sendv and listen.
 */
#define IXM_OP_NR		(IXMOD_OP_TCP_SHUTDOWN + 1)
#define IXM_EV_NR		(IXMOD_EV_TCP_DEAD + 1)
#define IXM_CALL_F_ALL		(IXMOD_CALL_F_NOTIFY | IXMOD_CALL_F_ABORT | IXMOD_CALL_F_POS | \
				 IXMOD_CALL_F_INET6)
#define IXM_SENDV_MAX		64
#define IXM_BACKLOG_MAX		4096

#endif /* _IXM_NET_APP_H */
