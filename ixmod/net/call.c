// SPDX-License-Identifier: GPL-2.0
/*
 * call.c - validation and execution of application calls, and what a
 * context's close takes back
 *
 * Copy once, validate everything, then act (io_uring prep/issue).  The
 * caller hands in a kernel copy of the entry; ixm_call_check() looks only
 * at its bytes (opcode, flags, every reserved word, and every argument
 * field the opcode does not use, which must be zero), and ixm_call_exec()
 * checks what needs the context's state (handles, offsets, lengths)
 * before it changes anything.  A bad call is answered with an error event
 * and changes nothing else.
 */
#include "call.h"
#include "ip6.h"
#include "tcp.h"
#include "udp.h"

/* Argument fields of struct ixmod_call an opcode reads */
#define IXM_F_LEN	0x01
#define IXM_F_HANDLE	0x02
#define IXM_F_OFF	0x04
#define IXM_F_ADDR	0x08
#define IXM_F_PORT	0x10

typedef int (*ixm_call_fn)(struct ixm_app *app, const struct ixmod_call *c,
			   struct ixmod_event *ev);

/**
 * struct ixm_opdef - what the dataplane knows of one opcode
 * @fields: IXM_F_* the call uses; the others must be zero
 * @flags: IXMOD_CALL_F_* it takes besides IXMOD_CALL_F_NOTIFY
 * @always: its completion is always posted (it returns something)
 * @exec: runs the validated call; returns the event's res
 */
struct ixm_opdef {
	u8		fields;
	u8		flags;
	bool		always;
	ixm_call_fn	exec;
};

static int ixm_op_nop(struct ixm_app *app, const struct ixmod_call *c,
		      struct ixmod_event *ev)
{
	return 0;
}

static int ixm_op_udp_bind(struct ixm_app *app, const struct ixmod_call *c,
			   struct ixmod_event *ev)
{
	u16 port = ixm_ntohs(c->port);
	u64 handle;
	int err;

	if (!port)
		return -EINVAL;
	err = ixm_udp_bind(app->stack->udp, app, port, c->user_data, &handle);
	if (err)
		return err;
	ev->handle = handle;
	return 0;
}

/*
 * A destination a datagram may go to: not 0/8, loopback, multicast or
 * class E (which includes the limited broadcast).  Our own address and our
 * subnet's broadcast are refused once the route gives the interface.
 */
static bool ixm_daddr_valid(__be32 daddr)
{
	u8 first = ixm_ntohl(daddr) >> 24;

	return first != 0 && first != 127 && first < 224;
}

/*
 * An IPv6 destination a datagram may go to: unicast, not :: (RFC 4291
 * §2.5.2), ::1 (§2.5.3: never outside the node) or a group (§2.7: no
 * socket joins one); the core's own addresses are refused too.
 */
static bool ixm_daddr6_valid(struct ixm_stack *st, const struct ixm_in6_addr *a)
{
	return !ixm_ip6_addr_is_any(a) && !ixm_ip6_addr_is_loopback(a) &&
	       !ixm_ip6_addr_is_multicast(a) && !ixm_stack_addr6_is_ours(st, a);
}

static int ixm_op_udp_send(struct ixm_app *app, const struct ixmod_call *c,
			   struct ixmod_event *ev)
{
	bool v6 = c->flags & IXMOD_CALL_F_INET6;
	struct ixm_in6_addr daddr6;
	struct ixm_udp_sock *s;
	u32 end;

	/* an ABI 2 context has no IPv6 peers, either way */
	if (unlikely(v6 && !app->inet6))
		return -EINVAL;
	s = ixm_udp_sock_get(app->stack->udp, app, c->handle);
	if (!s)
		return -EBADF;
	if (c->len > (v6 ? IXM_UDP6_PAYLOAD_MAX : IXM_UDP_PAYLOAD_MAX))
		return -EMSGSIZE;
	/* AF_XDP's descriptor check: no wrap, and inside the arena */
	if (ixm_add_overflow(c->off, c->len, &end) || end > app->txarena_size)
		return -EINVAL;
	if (!c->port)
		return -EINVAL;
	if (likely(!v6)) {
		if (!ixm_daddr_valid(c->addr))
			return -EINVAL;
		return ixm_udp_send(app->stack, s, app->txarena + c->off, (u16)c->len,
				    c->addr, c->port);
	}
	memcpy(daddr6.s6, c->addr6, sizeof(daddr6.s6));
	if (!ixm_daddr6_valid(app->stack, &daddr6))
		return -EINVAL;
	return ixm_udp6_send(app->stack, s, app->txarena + c->off, (u16)c->len,
			     &daddr6, c->port);
}

static int ixm_op_recv_done(struct ixm_app *app, const struct ixmod_call *c,
			    struct ixmod_event *ev)
{
	struct ixm_stack *st = app->stack;
	struct ixm_mbuf_pool *pool;
	struct ixm_mbuf *m;
	u32 slice, idx;

	slice = c->off / IXM_RX_SLICE;
	if (slice >= app->nslices || slice >= st->nports)
		return -EINVAL;
	pool = st->ports[ixm_index_nospec(slice, st->nports)]->pool;
	idx = (c->off % IXM_RX_SLICE) / IXM_MBUF_SIZE;
	if (idx >= pool->count)
		return -EINVAL;
	m = &pool->mbufs[ixm_index_nospec(idx, pool->count)];
	/* zcrx's rule: only a buffer this context holds may come back */
	if (m->owner != app)
		return -ENOENT;
	m->owner = NULL;
	app->stats.rx_bufs--;
	ixm_mbuf_free(m);
	return 0;
}

static int ixm_op_udp_close(struct ixm_app *app, const struct ixmod_call *c,
			    struct ixmod_event *ev)
{
	return ixm_udp_close(app->stack->udp, app, c->handle);
}

static int ixm_op_tcp_listen(struct ixm_app *app, const struct ixmod_call *c,
			     struct ixmod_event *ev)
{
	u64 handle;
	int err;

	if (!c->port || !c->len || c->len > IXM_BACKLOG_MAX)
		return -EINVAL;
	err = ixm_tcp_listen(app->stack->tcp, app, c->port, c->len, c->user_data,
			     &handle);
	if (err)
		return err;
	ev->handle = handle;
	return 0;
}

static int ixm_op_tcp_accept(struct ixm_app *app, const struct ixmod_call *c,
			     struct ixmod_event *ev)
{
	return ixm_tcp_accept(app->stack->tcp, app, c->handle, c->user_data);
}

static int ixm_op_tcp_connect(struct ixm_app *app, const struct ixmod_call *c,
			      struct ixmod_event *ev)
{
	struct ixm_in6_addr daddr6;
	u64 handle;
	int err;

	if (!c->port)
		return -EINVAL;
	if (likely(!(c->flags & IXMOD_CALL_F_INET6))) {
		if (!ixm_daddr_valid(c->addr))
			return -EINVAL;
		err = ixm_tcp_connect(app->stack->tcp, app, c->addr, c->port, c->user_data,
				      &handle);
	} else {
		/* as UDP_SEND: only a context that can be told of IPv6 peers */
		memcpy(daddr6.s6, c->addr6, sizeof(daddr6.s6));
		if (!app->inet6 || !ixm_daddr6_valid(app->stack, &daddr6))
			return -EINVAL;
		err = ixm_tcp_connect6(app->stack->tcp, app, &daddr6, c->port, c->user_data,
				       &handle);
	}
	if (err)
		return err;
	ev->handle = handle;
	return 0;
}

/*
 * A send, with IXMOD_CALL_F_POS its offset checked: one that took every
 * byte has no event (IXM_EV_NONE), the others say in @off where the
 * connection's next send must start.
 */
static int ixm_op_tcp_sendv_at(struct ixm_app *app, const struct ixmod_call *c,
			       struct ixmod_event *ev, const struct ixmod_iov *iov, u32 niov)
{
	struct ixm_tcp_pos p = { .on = c->flags & IXMOD_CALL_F_POS, .pos = c->pos };
	int res = ixm_tcp_sendv(app->stack->tcp, app, c->handle, iov, niov, &p);
	u64 asked = 0;
	u32 i;

	if (!p.on)
		return res;
	for (i = 0; i < niov; i++)
		asked += iov[i].len;
	ev->off = p.next;
	if (res >= 0 && (u64)res == asked)
		ev->type = IXM_EV_NONE;
	return res;
}

static int ixm_op_tcp_sendv(struct ixm_app *app, const struct ixmod_call *c,
			    struct ixmod_event *ev)
{
	struct ixmod_iov iov[IXM_SENDV_MAX];
	u32 i, end;

	if (!c->len || c->len > IXM_SENDV_MAX || c->off % 8)
		return -EINVAL;
	if (c->off > app->txarena_size ||
	    app->txarena_size - c->off < c->len * sizeof(iov[0]))
		return -EINVAL;
	/* copy once; the application may rewrite the array meanwhile */
	memcpy(iov, app->txarena + c->off, c->len * sizeof(iov[0]));
	for (i = 0; i < c->len; i++)
		if (ixm_add_overflow(iov[i].off, iov[i].len, &end) ||
		    end > app->txarena_size)
			return -EINVAL;
	return ixm_op_tcp_sendv_at(app, c, ev, iov, c->len);
}

/* One buffer: a sendv of one entry, without the array in the arena. */
static int ixm_op_tcp_send(struct ixm_app *app, const struct ixmod_call *c,
			   struct ixmod_event *ev)
{
	struct ixmod_iov iov = { .off = c->off, .len = c->len };
	u32 end;

	if (!c->len || ixm_add_overflow(c->off, c->len, &end) || end > app->txarena_size)
		return -EINVAL;
	return ixm_op_tcp_sendv_at(app, c, ev, &iov, 1);
}

static int ixm_op_tcp_recv_done(struct ixm_app *app, const struct ixmod_call *c,
				struct ixmod_event *ev)
{
	return ixm_tcp_recv_done(app->stack->tcp, app, c->handle, c->len);
}

static int ixm_op_tcp_close(struct ixm_app *app, const struct ixmod_call *c,
			    struct ixmod_event *ev)
{
	struct ixm_tcp_pos p = { .on = c->flags & IXMOD_CALL_F_POS, .pos = c->pos };
	int res;

	if (p.on && (c->flags & IXMOD_CALL_F_ABORT))
		return -EINVAL;	/* a reset drops the data: no offset to keep */
	res = ixm_tcp_close(app->stack->tcp, app, c->handle,
			    c->flags & IXMOD_CALL_F_ABORT, &p);
	if (p.on)
		ev->off = p.next;
	return res;
}

static int ixm_op_tcp_shutdown(struct ixm_app *app, const struct ixmod_call *c,
			       struct ixmod_event *ev)
{
	struct ixm_tcp_pos p = { .on = c->flags & IXMOD_CALL_F_POS, .pos = c->pos };
	int res;

	res = ixm_tcp_shutdown(app->stack->tcp, app, c->handle, &p);
	if (p.on)
		ev->off = p.next;
	return res;
}

static const struct ixm_opdef ixm_opdefs[] = {
	[IXMOD_OP_NOP]		= { 0, 0, true, ixm_op_nop },
	[IXMOD_OP_UDP_BIND]	= { IXM_F_PORT, 0, true, ixm_op_udp_bind },
	[IXMOD_OP_UDP_SEND]	= { IXM_F_LEN | IXM_F_HANDLE | IXM_F_OFF |
				    IXM_F_ADDR | IXM_F_PORT, IXMOD_CALL_F_INET6, false,
				    ixm_op_udp_send },
	[IXMOD_OP_RECV_DONE]	= { IXM_F_OFF, 0, false, ixm_op_recv_done },
	[IXMOD_OP_UDP_CLOSE]	= { IXM_F_HANDLE, 0, false, ixm_op_udp_close },
	[IXMOD_OP_TCP_LISTEN]	= { IXM_F_PORT | IXM_F_LEN, 0, true, ixm_op_tcp_listen },
	[IXMOD_OP_TCP_ACCEPT]	= { IXM_F_HANDLE, 0, false, ixm_op_tcp_accept },
	[IXMOD_OP_TCP_CONNECT]	= { IXM_F_ADDR | IXM_F_PORT, IXMOD_CALL_F_INET6, true,
				    ixm_op_tcp_connect },
	[IXMOD_OP_TCP_SENDV]	= { IXM_F_HANDLE | IXM_F_OFF | IXM_F_LEN, IXMOD_CALL_F_POS, true,
				    ixm_op_tcp_sendv },
	[IXMOD_OP_TCP_RECV_DONE] = { IXM_F_HANDLE | IXM_F_LEN, 0, false,
				     ixm_op_tcp_recv_done },
	[IXMOD_OP_TCP_CLOSE]	= { IXM_F_HANDLE, IXMOD_CALL_F_ABORT | IXMOD_CALL_F_POS, false,
				    ixm_op_tcp_close },
	[IXMOD_OP_TCP_SEND]	= { IXM_F_HANDLE | IXM_F_OFF | IXM_F_LEN, IXMOD_CALL_F_POS, true,
				    ixm_op_tcp_send },
	[IXMOD_OP_TCP_SHUTDOWN]	= { IXM_F_HANDLE, IXMOD_CALL_F_POS, false, ixm_op_tcp_shutdown },
};

/**
 * ixm_call_always_completes() - whether a call's completion is always posted
 * @opcode: a valid opcode
 *
 * Return: true for the calls that return a handle or a byte count.
 */
bool ixm_call_always_completes(u8 opcode)
{
	return ixm_opdefs[ixm_index_nospec(opcode, IXM_OP_NR)].always;
}

/**
 * ixm_call_check() - validate a call's own bytes
 * @c: the kernel's copy of the entry
 *
 * Return: 0, -EOPNOTSUPP for an unknown opcode, or -EINVAL for an unknown
 * flag (or one the opcode does not take), a non-zero reserved word or a
 * non-zero field the opcode does not use.  With IXMOD_CALL_F_INET6 the
 * destination is @addr6: @addr and @resv4 must be 0 (the address itself
 * and the context's IXMOD_SETUP_INET6 are checked by the call).
 */
int ixm_call_check(const struct ixmod_call *c)
{
	const struct ixm_opdef *def;

	BUILD_BUG_ON(ARRAY_SIZE(ixm_opdefs) != IXM_OP_NR);
	if (c->opcode >= IXM_OP_NR)
		return -EOPNOTSUPP;
	def = &ixm_opdefs[ixm_index_nospec(c->opcode, IXM_OP_NR)];
	if (c->flags & ~(IXMOD_CALL_F_NOTIFY | def->flags))
		return -EINVAL;
	if (c->resv0 || c->resv1 || (c->pos && !(c->flags & IXMOD_CALL_F_POS)))
		return -EINVAL;
	if (unlikely(c->flags & IXMOD_CALL_F_INET6)) {
		if (c->addr || c->resv4)
			return -EINVAL;
	} else if (c->resv3[0] || c->resv3[1] || c->resv3[2]) {
		return -EINVAL;
	}
	if ((!(def->fields & IXM_F_LEN) && c->len) ||
	    (!(def->fields & IXM_F_HANDLE) && c->handle) ||
	    (!(def->fields & IXM_F_OFF) && c->off) ||
	    (!(def->fields & IXM_F_ADDR) && c->addr) ||
	    (!(def->fields & IXM_F_PORT) && c->port))
		return -EINVAL;
	return 0;
}

/**
 * ixm_call_exec() - run a call that passed ixm_call_check()
 * @app: the calling context
 * @c: the kernel's copy of the entry
 * @ev: the completion event being prepared (handle set by UDP_BIND)
 *
 * Context: the context's dataplane core.
 * Return: the event's res (0, a byte count or -errno), or IXM_CALL_RETRY
 * to leave the entry in the ring for the next iteration.
 */
int ixm_call_exec(struct ixm_app *app, const struct ixmod_call *c,
		  struct ixmod_event *ev)
{
	/* the calls of every request, directly: no retpoline in the kernel */
	switch (c->opcode) {
	case IXMOD_OP_TCP_SENDV:
		return ixm_op_tcp_sendv(app, c, ev);
	case IXMOD_OP_TCP_SEND:
		return ixm_op_tcp_send(app, c, ev);
	case IXMOD_OP_TCP_RECV_DONE:
		return ixm_op_tcp_recv_done(app, c, ev);
	case IXMOD_OP_UDP_SEND:
		return ixm_op_udp_send(app, c, ev);
	case IXMOD_OP_RECV_DONE:
		return ixm_op_recv_done(app, c, ev);
	}
	return ixm_opdefs[ixm_index_nospec(c->opcode, IXM_OP_NR)].exec(app, c, ev);
}

/**
 * ixm_app_run_calls() - consume a bounded batch of calls
 * @app: the context
 * @budget: most calls to consume
 *
 * Each entry is copied once into kernel memory, validated and executed
 * from the copy; a call that fails or asks for notification is answered
 * with an IXMOD_EV_CALL event.  A call that cannot run now for lack of
 * room (TX batch full) stays in the ring for the next iteration.
 *
 * Context: the context's dataplane core.
 * Return: calls consumed.
 */
unsigned int ixm_app_run_calls(struct ixm_app *app, unsigned int budget)
{
	const struct ixmod_call *ring = app->calls.entries;
	unsigned int n, i;

	if (unlikely(app->dead))
		return 0;
	n = ixm_ring_ready(&app->calls, &app->stats.ring_corrupt);
	if (n > budget)
		n = budget;
	for (i = 0; i < n; i++) {
		struct ixmod_event ev;
		struct ixmod_call c;
		int res;

		if (!ixm_app_can_post(app))
			break;
		/* copy once: nothing below reads the shared entry again */
		memcpy(&c, &ring[(app->calls.cached + i) & app->calls.mask], sizeof(c));
		memset(&ev, 0, sizeof(ev));
		res = ixm_call_check(&c);
		if (!res)
			res = ixm_call_exec(app, &c, &ev);
		if (res == IXM_CALL_RETRY)
			break;		/* the same entry again next iteration */
		if (res < 0)
			app->stats.call_errors++;
		if (res < 0 || (c.flags & IXMOD_CALL_F_NOTIFY) ||
		    (ixm_call_always_completes(c.opcode) && ev.type != IXM_EV_NONE)) {
			/* a new handle, or the call's (@off shares the bytes of @handle) */
			u64 h = (c.flags & IXMOD_CALL_F_POS) || !ev.handle ? c.handle : ev.handle;

			ev.type = IXMOD_EV_CALL;
			ev.op = c.opcode;
			ev.res = res;
			ev.user_data = c.user_data;
			/* cannot fail: checked above */
			ixm_app_post(app, &ev, h);
		}
	}
	if (i)
		ixm_ring_release(&app->calls, i);
	app->stats.calls += i;
	return i;
}

/**
 * ixm_app_release_all() - take back everything a context holds on its core
 * @app: the context, already unreachable from the application
 *
 * Returns every receive buffer the application still held and closes its
 * sockets.
 *
 * Context: the context's dataplane core.
 */
void ixm_app_release_all(struct ixm_app *app)
{
	struct ixm_stack *st = app->stack;
	unsigned int p;
	u32 i;

	for (p = 0; p < st->nports; p++) {
		struct ixm_mbuf_pool *pool = st->ports[p]->pool;

		for (i = 0; i < pool->count; i++) {
			struct ixm_mbuf *m = &pool->mbufs[i];

			if (m->owner == app) {
				m->owner = NULL;
				ixm_mbuf_free(m);
			}
		}
	}
	if (st->tcp)
		ixm_tcp_close_all(st->tcp, app);
	app->stats.rx_bufs = 0;
	ixm_udp_close_all(st->udp, app);
}

/**
 * ixm_stack_pool_gone() - detach a pool that is about to be freed
 * @st: the core's protocol state; @pool is no longer among @st->ports
 * @pool: the pool of a port that went away (still allocated)
 *
 * Lets go of every buffer of @pool that anything on the core still
 * points to, so that @pool's memory can be freed: TCP connections holding
 * its buffers end (ixm_tcp_pool_gone()), and the buffers applications
 * were given (UDP datagrams not yet returned with recv_done) are
 * forgotten: their contexts' @rx_bufs levels drop, and a later recv_done
 * of one finds it is not the context's and is refused (-ENOENT; a dead
 * context's calls are not run at all).  Every buffer is then free or on
 * the NIC's rings.
 *
 * Context: the core's dataplane thread.
 */
void ixm_stack_pool_gone(struct ixm_stack *st, struct ixm_mbuf_pool *pool)
{
	u32 i;

	if (st->tcp)
		ixm_tcp_pool_gone(st->tcp, pool);
	/* what is left with an owner, an application holds (UDP) */
	for (i = 0; i < pool->count; i++) {
		struct ixm_mbuf *m = &pool->mbufs[i];
		struct ixm_app *app = m->owner;

		if (!app)
			continue;
		app->stats.rx_bufs--;
		m->owner = NULL;
		ixm_mbuf_free(m);
	}
}
