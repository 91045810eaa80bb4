// SPDX-License-Identifier: MIT
/*
 * ixev_udp.c - ixev's UDP sockets
 *
 * A socket's cookie names its slot in ev->udps.  A payload is copied into
 * units of the arena's second half, which go back once the kernel's
 * consumer index passed the send (it copies the payload when it runs the
 * call); received datagrams are handed to the socket's function and their
 * buffers returned at the end of the pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* An event with a UDP socket's cookie; a datagram's buffer always goes back. */
void ixev_udp_event(struct ixev *ev, const struct ixmod_event *e)
{
	__u32 idx = e->user_data & 0xffffffff;
	struct ixev_udp *u = idx < ev->nudps ? ev->udps[idx] : NULL;

	if (!u) {
		ev->st.late++;
		if (e->type == IXMOD_EV_UDP_RECV)
			goto rx_done;
		return;
	}
	if (e->type == IXMOD_EV_CALL && e->op == IXMOD_OP_UDP_BIND) {
		u->status = e->res;
		u->handle = e->res ? 0 : e->handle;
	} else if (e->type == IXMOD_EV_UDP_RECV) {
		const __u8 *addr6 = ixu_event_addr6(&ev->ixu, e);

		if (addr6) {
			if (u->fn6)
				u->fn6(u, ixu_rx_ptr(&ev->ixu, e->off), e->res, addr6,
				       e->port, u->arg);
		} else if (u->fn) {
			u->fn(u, ixu_rx_ptr(&ev->ixu, e->off), e->res, e->addr, e->port,
			      u->arg);
		}
		goto rx_done;
	} else {
		ev->st.errors++;
	}
	return;
rx_done:
	if (ixev_grow((void **)&ev->rx_done, &ev->rx_done_cap, ev->nrx_done + 1,
		      sizeof(*ev->rx_done)) == 0)
		ev->rx_done[ev->nrx_done++] = e->off;
	else
		ev->st.errors++;
}

/*
 * The first part of a pass's flush(): free the arena units of UDP payloads
 * whose calls the kernel consumed, and return datagram buffers.
 */
void ixev_udp_flush(struct ixev *ev)
{
	unsigned int i = 0;
	__u32 cons;

	/* arena units of UDP payloads whose calls the kernel consumed */
	cons = __atomic_load_n(ev->ixu.calls.kcons, __ATOMIC_ACQUIRE);
	while (i < ev->ndeferred && (int)(ev->deferred[i].pos - cons) < 0) {
		ixev_lib_units_release(ev, ev->deferred[i].off, ev->deferred[i].units);
		i++;
	}
	if (i) {		/* in call order: the rest move up once */
		ev->ndeferred -= i;
		memmove(ev->deferred, ev->deferred + i, ev->ndeferred * sizeof(*ev->deferred));
	}
	while (ev->nrx_done && ixu_call_space(&ev->ixu))
		ixu_prep_recv_done(next_call(ev), ev->rx_done[--ev->nrx_done]);
}

/*
 * ixev_udp_bind - a UDP socket
 *
 * SYNOPSIS
 *	int ixev_udp_bind(struct ixev *ev, __be16 port, ixev_udp_fn fn,
 *			  void *arg, struct ixev_udp **up);
 *	int ixev_udp_send(struct ixev_udp *u, const void *buf, size_t len,
 *			  __be32 addr, __be16 port);
 *	void ixev_udp_close(struct ixev_udp *u);
 *	int ixev_udp_bind6(struct ixev *ev, __be16 port, ixev_udp_fn fn,
 *			   ixev_udp6_fn fn6, void *arg, struct ixev_udp **up);
 *	int ixev_udp_send6(struct ixev_udp *u, const void *buf, size_t len,
 *			   const __u8 *addr6, __be16 port);
 *
 * DESCRIPTION
 *	ixev_udp_bind() binds @port (network order) on the context's core and
 *	calls @fn(u, data, len, addr, port, @arg) for every datagram (the
 *	data is valid during the call and goes back to the kernel after it).
 *	Waits for the kernel's answer.  ixev_udp_send() copies @len bytes
 *	into the arena and queues a datagram to @addr and @port; it leaves at
 *	the end of the pass.  ixev_udp_close() closes the socket and frees
 *	@u.
 *
 *	With IPv6 peers (a context made with IXEV_F_INET6),
 *	ixev_udp_bind6() binds as ixev_udp_bind() and calls @fn for
 *	datagrams from IPv4 peers and @fn6(u, data, len, addr6, port, @arg)
 *	for those from IPv6 ones, @addr6 their 16-byte source address
 *	(network order, valid during the call); either may be NULL (such
 *	datagrams are then dropped).  ixev_udp_send6() sends to the IPv6
 *	address @addr6 as ixev_udp_send() does to an IPv4 one.
 *
 * RETURN VALUE
 *	ixev_udp_bind(): 0, -EADDRINUSE, -EINVAL, -ENOMEM, -ENETDOWN.
 *	ixev_udp_send(): 0, -EINVAL (@len 0 or above 65507), -EAGAIN (the
 *	call ring or the arena is full now: retry after a pass).  Errors
 *	the kernel finds later (-EMSGSIZE above the port's MTU, -ENETUNREACH)
 *	are counted in ixev_stats.errors.  ixev_udp_bind6() and
 *	ixev_udp_send6(): the same, and -EINVAL when the context was made
 *	without IXEV_F_INET6 (ixev_udp_send6(): @len above 1452 too).
 */
static int udp_bind(struct ixev *ev, __be16 port, ixev_udp_fn fn, ixev_udp6_fn fn6,
		    void *arg, struct ixev_udp **up)
{
	unsigned int cap = ev->nudps, idx = ev->nudps;
	struct ixmod_call *call;
	struct ixev_udp *u;
	int ret;

	ret = ixev_grow((void **)&ev->udps, &cap, idx + 1, sizeof(*ev->udps));
	if (ret)
		return ret;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	call = next_call(ev);
	if (!call) {
		free(u);
		return -EAGAIN;
	}
	*u = (struct ixev_udp){ .ev = ev, .idx = idx, .status = 1, .fn = fn, .fn6 = fn6,
				.arg = arg };
	ev->udps[ev->nudps++] = u;
	ixu_prep_udp_bind(call, port, cookie(CK_UDP, 0, idx));
	ret = ixev_wait_answer(ev, &u->status);
	if (ret) {
		ev->udps[idx] = NULL;
		free(u);
		return ret;
	}
	if (up)
		*up = u;
	return 0;
}

int ixev_udp_bind(struct ixev *ev, __be16 port, ixev_udp_fn fn, void *arg,
		  struct ixev_udp **up)
{
	return udp_bind(ev, port, fn, NULL, arg, up);
}

int ixev_udp_bind6(struct ixev *ev, __be16 port, ixev_udp_fn fn, ixev_udp6_fn fn6,
		   void *arg, struct ixev_udp **up)
{
	if (!(ev->ixu.setup.flags & IXMOD_SETUP_INET6))
		return -EINVAL;
	return udp_bind(ev, port, fn, fn6, arg, up);
}

/* Copy @len bytes into the arena and queue a send of them; @addr6 or @addr. */
static int udp_send(struct ixev_udp *u, const void *buf, size_t len, __be32 addr,
		    const __u8 *addr6, __be16 port)
{
	struct ixev *ev = u->ev;
	struct ixmod_call *call;
	__u32 units, off, pos;

	if (!len || len > 65507)
		return -EINVAL;
	if (!ixu_call_space(&ev->ixu) ||
	    ixev_grow((void **)&ev->deferred, &ev->deferred_cap, ev->ndeferred + 1,
		      sizeof(*ev->deferred)))
		return -EAGAIN;
	units = (len + UNIT - 1) / UNIT;
	off = ixev_lib_units_alloc(ev, units);
	if (!off)
		return -EAGAIN;
	memcpy(ixu_tx_ptr(&ev->ixu, off), buf, len);
	pos = ev->ixu.calls.cached;
	call = next_call(ev);
	if (addr6)
		ixu_prep_udp_send6(call, u->handle, off, len, addr6, port, cookie(CK_LIB, 0, 0));
	else
		ixu_prep_udp_send(call, u->handle, off, len, addr, port, cookie(CK_LIB, 0, 0));
	/* the payload is copied before the consumer index passes the call */
	ev->deferred[ev->ndeferred++] = (struct deferred){ pos, off, units };
	return 0;
}

int ixev_udp_send(struct ixev_udp *u, const void *buf, size_t len, __be32 addr, __be16 port)
{
	return udp_send(u, buf, len, addr, NULL, port);
}

int ixev_udp_send6(struct ixev_udp *u, const void *buf, size_t len, const __u8 *addr6,
		   __be16 port)
{
	if (!(u->ev->ixu.setup.flags & IXMOD_SETUP_INET6) || len > 1452)
		return -EINVAL;
	return udp_send(u, buf, len, 0, addr6, port);
}

void ixev_udp_close(struct ixev_udp *u)
{
	struct ixev *ev = u->ev;
	struct ixmod_call *call = next_call(ev);

	if (call)
		ixu_prep_udp_close(call, u->handle, cookie(CK_LIB, 0, 0));
	else
		ev->st.errors++;	/* closed with the context */
	ev->udps[u->idx] = NULL;
	free(u);
}
