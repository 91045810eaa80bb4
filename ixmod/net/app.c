// SPDX-License-Identifier: GPL-2.0
/*
 * app.c - posting events to a context and consuming its calls
 *
 * Events are written straight into the event ring while it has room and
 * published once per batch (ixm_app_flush()).  When the ring is full they
 * wait, in order, in a hold-back queue as large as the ring, and move into
 * the ring as the application consumes (IXMOD_FEAT_NODROP): an event is
 * never dropped and the core never waits for an application.  Only a new
 * datagram that finds both full is dropped, and counted, as a full socket
 * buffer would drop it.
 *
 * Calls are consumed only while an event slot (ring or hold-back) is free,
 * because any call may need one to answer; otherwise they stay in the
 * ring until the application drains its events.
 */
#include "app.h"
#include "ip6.h"

/**
 * ixm_app_init() - set up a context's kernel state
 * @app: the context
 * @stack: its core's protocol state
 * @r: its rings, hold-back queue, transmit arena and receive slices
 */
void ixm_app_init(struct ixm_app *app, struct ixm_stack *stack,
		  const struct ixm_app_regions *r)
{
	memset(app, 0, sizeof(*app));
	ixm_ring_init(&app->calls, r->call_region, r->call_nr);
	ixm_ring_init(&app->events, r->event_region, r->event_nr);
	app->ev_ext = r->ev_ext;
	app->sent_in_recv = r->sent_in_recv;
	app->inet6 = r->inet6 && r->ev_ext;
	app->hold = r->hold;
	app->hold_nr = r->event_nr;
	app->txarena = r->txarena;
	app->txarena_size = r->txarena_size;
	app->nslices = r->nslices;
	app->stack = stack;
}

/**
 * ixm_stack_add_app() - attach a context to its core's loop
 * @st: the core's stack
 * @app: the context, initialised, not on any chain
 *
 * Appended, so that contexts are served in the order they came.  The
 * writers of @st->apps serialise among themselves (the core's attach
 * lock); the loop may walk the chain meanwhile (RCU).
 */
void ixm_stack_add_app(struct ixm_stack *st, struct ixm_app *app)
{
	struct ixm_app __rcu **pp = &st->apps;
	struct ixm_app *a;

	while ((a = ixm_rcu_dereference_protected(*pp)))
		pp = &a->next;
	app->next = NULL;
	ixm_rcu_assign_pointer(*pp, app);
}

/**
 * ixm_stack_del_app() - take a context off its core's loop
 * @st: the core's stack
 * @app: the context, on @st->apps
 *
 * A loop already walking may still reach @app until a grace period has
 * passed; @app->next stays valid for it.  Writers serialise as for
 * ixm_stack_add_app().
 */
void ixm_stack_del_app(struct ixm_stack *st, struct ixm_app *app)
{
	struct ixm_app __rcu **pp = &st->apps;
	struct ixm_app *a;

	while ((a = ixm_rcu_dereference_protected(*pp))) {
		if (a == app) {
			ixm_rcu_assign_pointer(*pp, ixm_rcu_dereference_protected(app->next));
			return;
		}
		pp = &a->next;
	}
	WARN_ONCE(1, "ixmod: context not on its core's chain");
}

/*
 * The extension's tail: an IPv6 peer's address (IXMOD_EVF_INET6), or
 * zeros (the ring is the application's memory: nothing stale stays).
 */
static void ixm_app_ext_tail(struct ixmod_event_ext *x, const u8 *addr6)
{
	if (addr6) {
		memcpy(x->addr6, addr6, sizeof(x->addr6));
		x->resv2 = 0;
	} else {
		memset(x->resv, 0, sizeof(x->resv));
	}
}

static void ixm_app_write(struct ixm_app *app, const struct ixmod_event *ev, u64 handle,
			  const u8 *addr6)
{
	struct ixmod_event *slot = ixm_app_slot(app, app->events.cached);

	*slot = *ev;
	if (app->ev_ext) {
		struct ixmod_event_ext *x = container_of(slot, struct ixmod_event_ext, ev);

		x->handle = handle;
		ixm_app_ext_tail(x, addr6);
	}
	app->events.cached++;
	app->stats.events++;
	app->dirty = true;
}

/* Move held events into the ring, oldest first, as far as it has room. */
static void ixm_app_unhold(struct ixm_app *app)
{
	u32 space;

	if (likely(!app->hold_count))
		return;
	space = ixm_ring_space(&app->events, &app->stats.ring_corrupt);
	while (space-- && app->hold_count) {
		const struct ixmod_event_ext *x = &app->hold[app->hold_head];

		ixm_app_write(app, &x->ev, x->handle,
			      x->ev.flags & IXMOD_EVF_INET6 ? x->addr6 : NULL);
		app->hold_head = (app->hold_head + 1) % app->hold_nr;
		app->hold_count--;
	}
	if (!app->hold_count)
		ixm_ring_clear_flag(&app->events, IXMOD_RING_OVERFLOW);
}

/**
 * ixm_app_can_post() - is there a slot for one more event?
 * @app: the context
 *
 * Return: true if ixm_app_post() will not fail.
 */
bool ixm_app_can_post(struct ixm_app *app)
{
	ixm_app_unhold(app);
	if (app->hold_count < app->hold_nr)
		return true;
	return false;
}

/**
 * ixm_app_post() - queue one event for the application
 * @app: the context
 * @ev: the event (copied)
 * @handle: the object it is about (struct ixmod_event_ext; unused when
 *	the context's events are not extended)
 *
 * The event is written to the ring if it has room and nothing is held,
 * else it joins the hold-back queue and IXMOD_RING_OVERFLOW is set.  It
 * becomes visible at the next ixm_app_flush().
 *
 * Context: the context's dataplane core.
 * Return: 0, or -ENOSPC when ring and hold-back queue are both full
 * (nothing was queued).
 */
int ixm_app_post(struct ixm_app *app, const struct ixmod_event *ev, u64 handle)
{
	return ixm_app_post6(app, ev, handle, NULL);
}

/**
 * ixm_app_post6() - queue one event whose peer may be an IPv6 one
 * @app: the context
 * @ev: the event (copied); with @addr6, its flags hold IXMOD_EVF_INET6
 *	and its @addr is 0
 * @handle: as for ixm_app_post()
 * @addr6: the peer's address, for the extended event's @addr6 (@app
 *	has @inet6, so its events are extended); NULL: none, as
 *	ixm_app_post()
 *
 * Context: the context's dataplane core.
 * Return: as ixm_app_post().
 */
int ixm_app_post6(struct ixm_app *app, const struct ixmod_event *ev, u64 handle,
		  const struct ixm_in6_addr *addr6)
{
	const u8 *a6 = addr6 ? addr6->s6 : NULL;
	struct ixmod_event_ext *held;

	ixm_app_unhold(app);
	if (!app->hold_count &&
	    ixm_ring_space(&app->events, &app->stats.ring_corrupt)) {
		ixm_app_write(app, ev, handle, a6);
		return 0;
	}
	if (app->hold_count == app->hold_nr)
		return -ENOSPC;
	held = &app->hold[(app->hold_head + app->hold_count) % app->hold_nr];
	held->ev = *ev;
	held->handle = handle;
	ixm_app_ext_tail(held, a6);
	app->hold_count++;
	app->stats.held++;
	ixm_ring_set_flag(&app->events, IXMOD_RING_OVERFLOW);
	return 0;
}

/**
 * ixm_app_flush() - make the events written so far visible
 * @app: the context
 *
 * Moves held-back events into the ring as far as it has room, then
 * publishes with one release store per batch, not per event.
 *
 * Context: the context's dataplane core.
 * Return: true if new events became visible.
 */
bool ixm_app_flush(struct ixm_app *app)
{
	ixm_app_unhold(app);
	if (!app->dirty)
		return false;
	ixm_ring_publish(&app->events);
	app->dirty = false;
	return true;
}

/**
 * ixm_app_rx_off() - where a buffer's data lies in the receive region
 * @m: a buffer of one of the core's ports
 *
 * Return: the offset of @m->data in every receive region of the core.
 */
u32 ixm_app_rx_off(const struct ixm_mbuf *m)
{
	const struct ixm_mbuf_pool *pool = m->pool;

	return pool->rx_base + (u32)(m - pool->mbufs) * IXM_MBUF_SIZE +
	       (u32)(m->data - m->buf);
}

/**
 * ixm_app_stats_fold() - add a closing context's counters to a total
 * @total: the core's counters of closed contexts
 * @s: the context's counters
 *
 * @rx_bufs is a level, not a count: a closed context holds nothing.
 *
 * Context: the context's dataplane core.
 */
void ixm_app_stats_fold(struct ixm_app_stats *total, const struct ixm_app_stats *s)
{
	total->calls += s->calls;
	total->call_errors += s->call_errors;
	total->events += s->events;
	total->held += s->held;
	total->rx_dropped += s->rx_dropped;
	total->ring_corrupt += s->ring_corrupt;
}

/**
 * ixm_stack_route() - the port a destination is reached through
 * @st: the core's protocol state
 * @daddr: the destination
 * @idx: if not NULL, the port's index in @st->ports
 *
 * On-link only: there is no gateway yet, and ARP for an off-link address
 * would be wrong.
 *
 * Return: the first port with an address whose subnet holds @daddr, or
 * NULL.
 */
struct ixm_net_port *ixm_stack_route(struct ixm_stack *st, __be32 daddr,
				     unsigned int *idx)
{
	unsigned int i;

	for (i = 0; i < st->nports; i++) {
		const struct ixm_if_config *cfg = st->ports[i]->cfg;

		if (cfg->ip && !((daddr ^ cfg->ip) & cfg->netmask)) {
			if (idx)
				*idx = i;
			return st->ports[i];
		}
	}
	return NULL;
}

/**
 * ixm_stack_route6() - the port an IPv6 destination is reached through
 * @st: the core's protocol state
 * @daddr: a unicast destination
 *
 * On-link only, as ixm_stack_route(): ixmod has no default router
 * (ixm_ip6_onlink()).  A link-local destination goes out of the first
 * port with IPv6: ixmod has no zone to tell links apart by (RFC 4007
 * §6), and a core serves one port in the common case.
 *
 * Return: the first port with IPv6 on whose link @daddr lies, or NULL.
 */
struct ixm_net_port *ixm_stack_route6(struct ixm_stack *st,
				      const struct ixm_in6_addr *daddr)
{
	unsigned int i;

	for (i = 0; i < st->nports; i++) {
		const struct ixm_if_config *cfg = st->ports[i]->cfg;

		if (ixm_ip6_enabled(cfg) && ixm_ip6_onlink(cfg, daddr))
			return st->ports[i];
	}
	return NULL;
}

/**
 * ixm_stack_addr6_is_ours() - whether @a is an address of one of the
 *	core's ports
 * @st: the core's protocol state
 * @a: an IPv6 address
 *
 * Return: true if a port with IPv6 on has @a as its global or
 * link-local address.
 */
bool ixm_stack_addr6_is_ours(struct ixm_stack *st, const struct ixm_in6_addr *a)
{
	unsigned int i;

	for (i = 0; i < st->nports; i++) {
		const struct ixm_if_config *cfg = st->ports[i]->cfg;

		if (ixm_ip6_enabled(cfg) && ixm_ip6_addr_is_ours(cfg, a))
			return true;
	}
	return false;
}
