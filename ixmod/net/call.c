// SPDX-License-Identifier: GPL-2.0
/*
 * call.c - validation and execution of application calls
 *
 * Copy once, validate everything, then act (io_uring prep/issue).  The
 * caller hands in a kernel copy of the entry; ixm_call_check() looks only
 * at its bytes (opcode, flags, every reserved word, and every argument
 * field the opcode does not use, which must be zero), and ixm_call_exec()
 * checks what needs the context's state (handles, offsets, lengths)
 * before it changes anything.  A bad call is answered with an error event
 * and changes nothing else.
 */
#include "app.h"
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

static int ixm_op_udp_send(struct ixm_app *app, const struct ixmod_call *c,
			   struct ixmod_event *ev)
{
	struct ixm_udp_sock *s;
	u32 end;

	s = ixm_udp_sock_get(app->stack->udp, app, c->handle);
	if (!s)
		return -EBADF;
	if (c->len > IXM_UDP_PAYLOAD_MAX)
		return -EMSGSIZE;
	/* AF_XDP's descriptor check: no wrap, and inside the arena */
	if (ixm_add_overflow(c->off, c->len, &end) || end > app->txarena_size)
		return -EINVAL;
	if (!ixm_daddr_valid(c->addr) || !c->port)
		return -EINVAL;
	return ixm_udp_send(app->stack, s, app->txarena + c->off, (u16)c->len,
			    c->addr, c->port);
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

	if (!c->port || !c->len || c->len > IXMOD_BACKLOG_MAX)
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
	u64 handle;
	int err;

	if (!ixm_daddr_valid(c->addr) || !c->port)
		return -EINVAL;
	err = ixm_tcp_connect(app->stack->tcp, app, c->addr, c->port, c->user_data,
			      &handle);
	if (err)
		return err;
	ev->handle = handle;
	return 0;
}

static int ixm_op_tcp_sendv(struct ixm_app *app, const struct ixmod_call *c,
			    struct ixmod_event *ev)
{
	struct ixmod_iov iov[IXMOD_SENDV_MAX];
	u32 i, end;

	if (!c->len || c->len > IXMOD_SENDV_MAX || c->off % 8)
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
	return ixm_tcp_sendv(app->stack->tcp, app, c->handle, iov, c->len);
}

static int ixm_op_tcp_recv_done(struct ixm_app *app, const struct ixmod_call *c,
				struct ixmod_event *ev)
{
	return ixm_tcp_recv_done(app->stack->tcp, app, c->handle, c->len);
}

static int ixm_op_tcp_close(struct ixm_app *app, const struct ixmod_call *c,
			    struct ixmod_event *ev)
{
	return ixm_tcp_close(app->stack->tcp, app, c->handle,
			     c->flags & IXMOD_CALL_F_ABORT);
}

static const struct ixm_opdef ixm_opdefs[] = {
	[IXMOD_OP_NOP]		= { 0, 0, true, ixm_op_nop },
	[IXMOD_OP_UDP_BIND]	= { IXM_F_PORT, 0, true, ixm_op_udp_bind },
	[IXMOD_OP_UDP_SEND]	= { IXM_F_LEN | IXM_F_HANDLE | IXM_F_OFF |
				    IXM_F_ADDR | IXM_F_PORT, 0, false, ixm_op_udp_send },
	[IXMOD_OP_RECV_DONE]	= { IXM_F_OFF, 0, false, ixm_op_recv_done },
	[IXMOD_OP_UDP_CLOSE]	= { IXM_F_HANDLE, 0, false, ixm_op_udp_close },
	[IXMOD_OP_TCP_LISTEN]	= { IXM_F_PORT | IXM_F_LEN, 0, true, ixm_op_tcp_listen },
	[IXMOD_OP_TCP_ACCEPT]	= { IXM_F_HANDLE, 0, false, ixm_op_tcp_accept },
	[IXMOD_OP_TCP_CONNECT]	= { IXM_F_ADDR | IXM_F_PORT, 0, true, ixm_op_tcp_connect },
	[IXMOD_OP_TCP_SENDV]	= { IXM_F_HANDLE | IXM_F_OFF | IXM_F_LEN, 0, true,
				    ixm_op_tcp_sendv },
	[IXMOD_OP_TCP_RECV_DONE] = { IXM_F_HANDLE | IXM_F_LEN, 0, false,
				     ixm_op_tcp_recv_done },
	[IXMOD_OP_TCP_CLOSE]	= { IXM_F_HANDLE, IXMOD_CALL_F_ABORT, false,
				    ixm_op_tcp_close },
};

/**
 * ixm_call_always_completes() - whether a call's completion is always posted
 * @opcode: a valid opcode
 *
 * Return: true for the calls that return a handle or a byte count.
 */
bool ixm_call_always_completes(u8 opcode)
{
	return ixm_opdefs[ixm_index_nospec(opcode, IXMOD_OP_LAST)].always;
}

/**
 * ixm_call_check() - validate a call's own bytes
 * @c: the kernel's copy of the entry
 *
 * Return: 0, -EOPNOTSUPP for an unknown opcode, or -EINVAL for an unknown
 * flag (or one the opcode does not take), a non-zero reserved word or a
 * non-zero field the opcode does not use.
 */
int ixm_call_check(const struct ixmod_call *c)
{
	const struct ixm_opdef *def;

	BUILD_BUG_ON(ARRAY_SIZE(ixm_opdefs) != IXMOD_OP_LAST);
	if (c->opcode >= IXMOD_OP_LAST)
		return -EOPNOTSUPP;
	def = &ixm_opdefs[ixm_index_nospec(c->opcode, IXMOD_OP_LAST)];
	if (c->flags & ~(IXMOD_CALL_F_NOTIFY | def->flags))
		return -EINVAL;
	if (c->resv0 || c->resv1 || c->resv2 ||
	    c->resv3[0] || c->resv3[1] || c->resv3[2])
		return -EINVAL;
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
	return ixm_opdefs[ixm_index_nospec(c->opcode, IXMOD_OP_LAST)].exec(app, c, ev);
}
