// SPDX-License-Identifier: MIT
/*
 * ixev.c - libixu's event layer (include/ixev.h)
 *
 * Structure.  Events only change state: a connection's send buffer, its
 * held receive bytes, its flags; each connection touched goes on the
 * dirty list.  flush() then turns every dirty connection's state into at
 * most four calls (accept, recv_done, send, close), as far as the call
 * ring has room; what does not fit stays dirty for the next pass.  So
 * events are always consumed (the dataplane needs event slots to run
 * calls) and no callback waits for a call slot.
 *
 * This file holds the context and one pass of the loop; internal.h lists
 * the other files of the event layer, one concern each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- small helpers ---- */

int ixev_grow(void **p, unsigned int *cap, unsigned int need, size_t size)
{
	unsigned int n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, (size_t)n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* ---- flush: state to calls ---- */

static void flush(struct ixev *ev)
{
	unsigned int i = 0;

	ixev_udp_flush(ev);
	while (ev->norphans && ixu_call_space(&ev->ixu) >= ORPHAN_CALLS) {
		struct orphan *o = &ev->orphans[--ev->norphans];
		__u64 ck = cookie(CK_ORPHAN, 0, 0);

		if (o->knock)
			ixu_prep_tcp_accept(next_call(ev), o->handle, ck);
		ixu_prep_tcp_close(next_call(ev), o->handle, o->knock, ck);
	}
	/* a callback run by ixev_conn_flush() may dirty more: ndirty grows */
	while (i < ev->ndirty && ixu_call_space(&ev->ixu) >= CALLS_PER_CONN) {
		__u32 idx = ev->dirty[i++];
		struct ixev_conn *c = ev->slots[idx].c;

		if (!c || !c->dirty)
			continue;	/* freed meanwhile, or flushed already */
		c->dirty = false;
		ixev_conn_flush(c);
	}
	memmove(ev->dirty, ev->dirty + i, (ev->ndirty - i) * sizeof(*ev->dirty));
	ev->ndirty -= i;
}

/* ---- the loop ---- */

/* Hand an event to the object its cookie names. */
static void on_event(struct ixev *ev, const struct ixmod_event *e)
{
	switch (e->user_data >> CK_SHIFT) {
	case CK_CONN:
		ixev_conn_event(ev, e);
		return;
	case CK_LISTENER:
		ixev_listener_event(ev, e);
		return;
	case CK_UDP:
		ixev_udp_event(ev, e);
		return;
	case CK_ORPHAN:
		/* an orphan's DEAD, or the error of its accept or close (it was gone) */
		return;
	default:
		ev->st.errors++;
		return;
	}
}

/*
 * ixev_dispatch - one pass: events, timers, calls
 *
 * SYNOPSIS
 *	int ixev_dispatch(struct ixev *ev);
 *
 * DESCRIPTION
 *	Consumes every event waiting in the event ring and calls the
 *	callbacks, runs the expired timers, then turns the connections'
 *	state into calls and submits them (waking the core's kernel thread
 *	if it sleeps).  Never blocks.  An application with its own poll,
 *	epoll or io_uring loop calls it whenever ixev_fd() is readable, and
 *	after its own work that sent or closed something.
 *
 * RETURN VALUE
 *	The number of events consumed, or -ENETDOWN once the context lost
 *	its port (IXMOD_RING_DEAD: destroy it).
 */
int ixev_dispatch(struct ixev *ev)
{
	const struct ixmod_event *e;
	unsigned int n = 0;

	ev->st.passes++;
	while ((e = ixu_event_peek(&ev->ixu, n))) {
		on_event(ev, e);
		n++;
	}
	if (n)
		ixu_event_advance(&ev->ixu, n);
	ev->st.events += n;
	if (ev->arena_freed)
		ixev_wake_starved(ev);
	ixev_run_timers(ev);
	flush(ev);
	if (ev->queued) {
		ixu_call_submit(&ev->ixu);
		ev->queued = 0;
	}
	if (__atomic_load_n(ev->ixu.events.kflags, __ATOMIC_RELAXED) & IXMOD_RING_DEAD)
		return ev->err = -ENETDOWN;
	return n;
}

/* ---- the context ---- */

/*
 * ixev_create - a context on one dataplane core
 *
 * SYNOPSIS
 *	int ixev_create(struct ixev **evp, unsigned int cpu,
 *			const struct ixev_params *params);
 *	void ixev_destroy(struct ixev *ev);
 *
 * DESCRIPTION
 *	ixev_create() opens /dev/ixmod, attaches to dataplane core @cpu with
 *	@params (NULL: defaults; see struct ixev_params) and stores the new
 *	context in *@evp.  One context per thread; in the co-located mode the
 *	calling thread is bound to @cpu.  ixev_destroy() closes every
 *	connection that is left with a reset (each is told closed() with
 *	-ECONNABORTED), every listener and socket, and frees the context.
 *
 * RETURN VALUE
 *	0, or the negative errno of ixu_open() or ixu_attach(); -EOPNOTSUPP
 *	when the module has no TCP, or no IPv6 peers and @params asks for
 *	them (IXEV_F_INET6); -EINVAL for bad @params (an unknown flag,
 *	non-zero reserved words, an arena too small); -ENOMEM.
 */
int ixev_create(struct ixev **evp, unsigned int cpu, const struct ixev_params *params)
{
	struct ixev_params p = params ? *params : (struct ixev_params){ 0 };
	struct ixu_params up;
	struct ixev *ev;
	__u32 iov_area;
	int ret;

	if (!evp || (p.flags & ~IXEV_F_INET6) || p.resv[0] || p.resv[1])
		return -EINVAL;
	*evp = NULL;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->free_slot = ~0U;
	ev->cpu = cpu;
	ev->sndbuf = p.sndbuf ? p.sndbuf : DEF_SNDBUF;
	up = (struct ixu_params){
		.call_entries = p.call_entries ? p.call_entries : DEF_CALLS,
		.event_entries = p.event_entries ? p.event_entries : DEF_EVENTS,
		.txarena_size = p.txarena_size ? p.txarena_size : DEF_ARENA,
		.mode = p.mode,
	};
	ret = ixu_open(&ev->ixu, 0);
	if (ret) {
		free(ev);
		return ret;
	}
	ret = -EOPNOTSUPP;
	if (!ixu_has_feature(&ev->ixu, IXMOD_FEAT_TCP | IXMOD_FEAT_UDP))
		goto fail;
	/* acknowledgments ride on received data: one event fewer a request */
	if (ixu_has_feature(&ev->ixu, IXMOD_FEAT_SENT_IN_RECV))
		up.flags |= IXMOD_SETUP_SENT_IN_RECV;
	/* IPv6 peers: their addresses travel in the 64-byte events */
	if (p.flags & IXEV_F_INET6) {
		if (!ixu_has_feature(&ev->ixu, IXMOD_FEAT_INET6 | IXMOD_FEAT_EVENT_EXT))
			goto fail;
		up.flags |= IXMOD_SETUP_INET6 | IXMOD_SETUP_EVENT_EXT;
	}
	ret = ixu_attach(&ev->ixu, cpu, &up);
	if (ret)
		goto fail;
	/* several sends of a connection in flight, no event for those that go whole */
	ev->pos_calls = ev->ixu.info.call_flags & IXMOD_CALL_F_POS;
	iov_area = ev->ixu.setup.call_entries * CALL_IOV * sizeof(struct ixmod_iov);
	ev->unit_base = (iov_area + UNIT - 1) / UNIT * UNIT;
	ret = -EINVAL;
	if (ev->ixu.setup.txarena_size < ev->unit_base + 64 * UNIT)
		goto fail;
	ev->nunits = (ev->ixu.setup.txarena_size - ev->unit_base) / UNIT / 64 * 64;
	ret = -ENOMEM;
	ev->bitmap = calloc(ev->nunits / 64, sizeof(*ev->bitmap));
	if (!ev->bitmap)
		goto fail;
	*evp = ev;
	return 0;
fail:
	ixu_close(&ev->ixu);
	free(ev);
	return ret;
}

void ixev_destroy(struct ixev *ev)
{
	unsigned int i;

	if (!ev)
		return;
	for (i = 0; i < ev->nslots; i++) {
		struct ixev_conn *c = ev->slots[i].c;

		if (!c)
			continue;
		if (c->state != S_ZOMBIE && c->ops && c->ops->closed)
			c->ops->closed(c, -ECONNABORTED);
		ixev_conn_free(c);
	}
	ixu_close(&ev->ixu);	/* the kernel resets whatever is left */
	for (i = 0; i < ev->nudps; i++)
		free(ev->udps[i]);
	free(ev->udps);
	free(ev->listeners);
	free(ev->slots);
	free(ev->dirty);
	free(ev->starved);
	free(ev->orphans);
	free(ev->rx_done);
	free(ev->deferred);
	free(ev->timers);
	free(ev->bitmap);
	free(ev);
}

/*
 * ixev_fd - the file descriptor to watch in an application's own loop
 *
 * SYNOPSIS
 *	int ixev_fd(const struct ixev *ev);
 *	struct ixu *ixev_ixu(struct ixev *ev);
 *	unsigned int ixev_cpu(const struct ixev *ev);
 *
 * DESCRIPTION
 *	ixev_fd() is the context's /dev/ixmod file: it polls readable
 *	(POLLIN) when events wait; add it to an epoll set or an io_uring
 *	poll and call ixev_dispatch() when it fires (the kernel-thread mode;
 *	in the co-located mode the thread must sit in ixev_run() instead).
 *	ixev_ixu() gives the underlying libixu handle, for ixu_get_info()
 *	and the like (issuing calls on it directly is not supported).
 *	ixev_cpu() is the context's dataplane core.
 */
int ixev_fd(const struct ixev *ev)
{
	return ev->ixu.fd;
}

struct ixu *ixev_ixu(struct ixev *ev)
{
	return &ev->ixu;
}

unsigned int ixev_cpu(const struct ixev *ev)
{
	return ev->cpu;
}

/*
 * ixev_get_stats - the counters of a context
 *
 * SYNOPSIS
 *	void ixev_get_stats(const struct ixev *ev, struct ixev_stats *st,
 *			    size_t size);
 *
 * DESCRIPTION
 *	Copies the context's counters (struct ixev_stats) into @st, at most
 *	@size bytes: pass sizeof(*st), so that a program built against an
 *	older, shorter struct keeps working with a newer library.
 */
void ixev_get_stats(const struct ixev *ev, struct ixev_stats *st, size_t size)
{
	memcpy(st, &ev->st, size < sizeof(ev->st) ? size : sizeof(ev->st));
}
