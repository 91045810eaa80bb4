// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_call.c - the application's TCP calls: listen, accept, connect,
 * sendv, recv_done, shutdown, close, and the close of everything a
 * context holds
 *
 * Each call names its connection or listener by handle (index and
 * generation, tcp.c's tables), checks everything it reads before it
 * changes anything, and answers with an errno the call's event carries.
 */
#include "tcp.h"
#include "app.h"
#include "toeplitz.h"

/**
 * ixm_tcp_listen() - listen on a local port
 * @t: the core's table
 * @app: the context
 * @port: local port, network order, not 0
 * @backlog: connections not yet accepted it may hold, 1 to
 *	IXM_BACKLOG_MAX
 * @cookie: user_data of the knock events
 * @handle: the listener's handle
 *
 * Return: 0; -EADDRINUSE if a listener or a connection uses the port on
 * this core; -EMFILE when every listener slot is taken.
 */
int ixm_tcp_listen(struct ixm_tcp_table *t, struct ixm_app *app, __be16 port,
		   u32 backlog, u64 cookie, u64 *handle)
{
	struct ixm_tcp_listener *l = NULL;
	u32 i;

	if (ixm_tcp_listener_find(t, port) != IXM_TCP_NONE)
		return -EADDRINUSE;
	for (i = 0; i < IXM_TCP_LISTENERS; i++) {
		if (!t->listeners[i].app) {
			l = &t->listeners[i];
			break;
		}
	}
	if (!l)
		return -EMFILE;
	l->app = app;
	l->cookie = cookie;
	l->port = port;
	l->backlog = backlog;
	l->queued = 0;
	*handle = ixm_handle(IXMOD_HANDLE_LISTENER, i, l->gen);
	return 0;
}

static void ixm_tcp_listener_close(struct ixm_tcp_table *t,
				   struct ixm_tcp_listener *l)
{
	u32 li = (u32)(l - t->listeners);
	u32 i;

	/* connections it handed out but nobody accepted go with it */
	for (i = 0; i < IXM_TCP_CONNS && l->queued; i++) {
		struct ixm_tcp_conn *c = &t->conns[i];

		if (c->app && c->listener == li && !(c->flags & IXM_TCPF_ACCEPTED)) {
			if (c->state != IXM_TCP_CLOSED)
				ixm_tcp_send_rst(c);
			ixm_tcp_conn_free(c);
		}
	}
	l->port = 0;
	l->cookie = 0;
	l->queued = 0;
	ixm_slot_put(&l->slot);
}

/**
 * ixm_tcp_accept() - take a connection a knock announced
 * @t: the core's table
 * @app: the context
 * @handle: the knock's handle
 * @cookie: user_data of the connection's events from now on
 *
 * Data that arrived before the accept is announced right after it.
 *
 * Return: 0; -EBADF (not a connection of @app, or gone); -EINVAL (already
 * accepted).
 */
int ixm_tcp_accept(struct ixm_tcp_table *t, struct ixm_app *app, u64 handle,
		   u64 cookie)
{
	struct ixm_tcp_conn *c = ixm_tcp_conn_get(t, app, handle);

	if (!c || (c->flags & IXM_TCPF_CLOSED_APP))
		return -EBADF;
	if ((c->flags & IXM_TCPF_ACCEPTED) || (c->flags & IXM_TCPF_ACTIVE) ||
	    !(c->flags & IXM_TCPF_KNOCKED))
		return -EINVAL;
	c->flags |= IXM_TCPF_ACCEPTED;
	c->cookie = cookie;
	ixm_tcp_listener_unqueue(c);
	ixm_tcp_flush_events(c);
	return 0;
}

/*
 * Does @lport to @a's peer at @rport from @np come back to this core's
 * queue?  The hash of the replies: their source is the peer (IX §4.4).
 */
static bool ixm_tcp_port_steers_here(const struct ixm_net_port *np,
				     const struct ixm_tcp_addrs *a, __be16 lport,
				     __be16 rport)
{
	u32 h;

	if (!np->rss_key || np->rss_nq <= 1)
		return true;
	/* a device that hashes IPv4 alone: IPv6 reaches queue 0, whatever port */
	if (a->len == 16 && np->rss_v4_only)
		return np->rss_q == 0;
	if (a->len == 16)
		h = ixm_toeplitz_ipv6_l4(np->rss_key, a->r, a->l, rport, lport);
	else
		h = ixm_toeplitz_ipv4_l4(np->rss_key, *(const __be32 *)a->r,
					 *(const __be32 *)a->l, rport, lport);
	return ixm_rss_queue(h, np->rss_nq) == np->rss_q;
}

/*
 * An ephemeral port for @a to @dport whose replies steer to this core,
 * free of connections and listeners, searched from where the last search
 * stopped; 0 if none.
 */
static __be16 ixm_tcp_pick_port(struct ixm_tcp_table *t, const struct ixm_net_port *np,
				const struct ixm_tcp_addrs *a, __be16 dport)
{
	const u32 range = IXM_TCP_EPH_HI - IXM_TCP_EPH_LO + 1;
	u32 i;

	for (i = 0; i < range; i++) {
		__be16 bp = ixm_htons(IXM_TCP_EPH_LO + (t->eph_next + i) % range);

		if (!ixm_tcp_port_steers_here(np, a, bp, dport))
			continue;
		if ((a->len == 16 ? ixm_tcp_lookup6(t, a->l, bp, a->r, dport) :
		     ixm_tcp_lookup(t, *(const __be32 *)a->l, bp, *(const __be32 *)a->r,
				    dport)) ||
		    ixm_tcp_listener_find(t, bp) != IXM_TCP_NONE)
			continue;
		t->eph_next = (t->eph_next + i + 1) % range;
		return bp;
	}
	return 0;
}

/* An active open's new connection @c (its ISS chosen): send the SYN. */
static void ixm_tcp_connect_start(struct ixm_tcp_conn *c, struct ixm_app *app,
				  struct ixm_net_port *np, unsigned int pidx, u64 cookie)
{
	struct ixm_tcp_table *t = c->table;

	c->app = app;
	c->cookie = cookie;
	c->pidx = pidx;
	c->flags |= IXM_TCPF_ACTIVE | IXM_TCPF_ACCEPTED | IXM_TCPF_NEED_ARP;
	ixm_tcp_cc_pick(c, np);
	c->snd_una = c->iss;
	c->snd_nxt = c->iss;
	c->snd_max = c->iss;
	c->snd_end = c->iss + 1;
	c->rcv_wscale = ixm_tcp_pick_wscale(c->rcv_buf);
	ixm_tcp_set_state(c, IXM_TCP_SYN_SENT);
	t->stats.active_opens++;
	ixm_tcp_send_syn(c);
	ixm_tcp_arm_rexmit(c);
}

/**
 * ixm_tcp_connect() - open a connection (active open, RFC 9293 §3.5)
 * @t: the core's table
 * @app: the context
 * @daddr: the peer, a unicast address on a port's subnet
 * @dport: its port, not 0
 * @cookie: user_data of the connection's events
 * @handle: the connection's handle
 *
 * Picks an ephemeral port whose flow hashes to this core's queue, sends
 * the SYN and returns; TCP_CONNECTED tells how it went.
 *
 * Return: 0; -ENETUNREACH (no port's subnet holds @daddr); -EINVAL
 * (@daddr is ours or our broadcast); -EADDRNOTAVAIL (no ephemeral port
 * free that steers here); -EMFILE (the table is full).
 */
int ixm_tcp_connect(struct ixm_tcp_table *t, struct ixm_app *app,
		    __be32 daddr, __be16 dport, u64 cookie, u64 *handle)
{
	struct ixm_stack *st = t->stack;
	struct ixm_tcp_addrs a;
	struct ixm_net_port *np;
	struct ixm_tcp_conn *c;
	unsigned int pidx;
	__be16 lport;
	__be32 laddr;

	np = ixm_stack_route(st, daddr, &pidx);
	if (!np)
		return -ENETUNREACH;
	if (ixm_ip_src_is_bad(np->cfg, daddr))
		return -EINVAL;
	laddr = np->cfg->ip;
	a = (struct ixm_tcp_addrs){ &laddr, &daddr, 4 };
	lport = ixm_tcp_pick_port(t, np, &a, dport);
	if (!lport)
		return -EADDRNOTAVAIL;
	c = ixm_tcp_conn_alloc(t, laddr, lport, daddr, dport);
	if (!c)
		return -EMFILE;
	c->iss = ixm_tcp_isn(t, &a, lport, dport, st->now_ns);
	ixm_tcp_connect_start(c, app, np, pidx, cookie);
	*handle = ixm_tcp_handle(c);
	return 0;
}

/**
 * ixm_tcp_connect6() - ixm_tcp_connect() to an IPv6 peer
 * @t: the core's table
 * @app: the context (IXMOD_SETUP_INET6: it is told of the peer in
 *	TCP_CONNECTED's extended event)
 * @daddr: the peer, a unicast address on a port's link, not ours
 * @dport: its port, not 0
 * @cookie: user_data of the connection's events
 * @handle: the connection's handle
 *
 * The source is the port's address of @daddr's scope (ixm_ip6_src_for()),
 * the ephemeral port one whose replies the NIC's RSS (IPv6 4-tuple,
 * Toeplitz) steers to this core, and the peer's MAC comes from Neighbor
 * Discovery as the SYN goes out.
 *
 * Return: as ixm_tcp_connect().
 */
int ixm_tcp_connect6(struct ixm_tcp_table *t, struct ixm_app *app,
		     const struct ixm_in6_addr *daddr, __be16 dport, u64 cookie,
		     u64 *handle)
{
	const struct ixm_in6_addr *laddr;
	struct ixm_stack *st = t->stack;
	struct ixm_tcp_addrs a;
	struct ixm_net_port *np;
	struct ixm_tcp_conn *c;
	unsigned int pidx = 0;
	__be16 lport;

	np = ixm_stack_route6(st, daddr);
	if (!np)
		return -ENETUNREACH;
	while (st->ports[pidx] != np)
		pidx++;
	laddr = ixm_ip6_src_for(np->cfg, daddr);
	a = (struct ixm_tcp_addrs){ laddr, daddr, 16 };
	lport = ixm_tcp_pick_port(t, np, &a, dport);
	if (!lport)
		return -EADDRNOTAVAIL;
	c = ixm_tcp_conn_alloc6(t, laddr, lport, daddr, dport);
	if (!c)
		return -EMFILE;
	c->iss = ixm_tcp_isn(t, &a, lport, dport, st->now_ns);
	ixm_tcp_connect_start(c, app, np, pidx, cookie);
	*handle = ixm_tcp_handle(c);
	return 0;
}

/**
 * ixm_tcp_sendv() - accept arena data for sending
 * @t: the core's table
 * @app: the context
 * @handle: the connection
 * @iov: the pieces (the caller copied and checked them against the arena)
 * @niov: how many
 * @p: IXMOD_CALL_F_POS's offset, and the offset after the call (out)
 *
 * Return: bytes accepted (the first ones of @iov), possibly 0; -EBADF;
 * -ENOTCONN (not yet established); -EPIPE (closed for sending: a FIN
 * queued by a shutdown or a close, or the connection is over); -EAGAIN
 * (@p's offset is not the connection's: nothing taken).
 */
int ixm_tcp_sendv(struct ixm_tcp_table *t, struct ixm_app *app, u64 handle,
		  const struct ixmod_iov *iov, u32 niov, struct ixm_tcp_pos *p)
{
	struct ixm_tcp_conn *c = ixm_tcp_conn_get(t, app, handle);
	u32 space, asked = 0, took = 0, i;

	if (!c || !(c->flags & IXM_TCPF_ACCEPTED) ||
	    (c->flags & IXM_TCPF_CLOSED_APP))
		return -EBADF;
	if (c->state == IXM_TCP_SYN_SENT || c->state == IXM_TCP_SYN_RECEIVED)
		return -ENOTCONN;
	if ((c->state != IXM_TCP_ESTABLISHED && c->state != IXM_TCP_CLOSE_WAIT) ||
	    (c->flags & IXM_TCPF_FIN_QUEUED))
		return -EPIPE;
	if (p->on) {
		p->next = ixm_tcp_app_pos(c);
		if (p->pos != p->next) {
			t->stats.pos_refused++;
			return -EAGAIN;	/* behind a send that fell short */
		}
	}
	space = ixm_tcp_send_space(c);
	for (i = 0; i < niov; i++) {
		u32 len = iov[i].len;

		asked += len;
		if (len > space - took)
			len = space - took;
		if (!len)
			continue;
		if (c->sndq_count) {
			struct ixm_tcp_sndpiece *last;

			last = &c->sndq[(c->sndq_head + c->sndq_count - 1) % IXM_TCP_SNDQ];
			if (last->off + last->len == iov[i].off) {
				last->len += len;
				took += len;
				goto next;
			}
		}
		if (c->sndq_count == IXM_TCP_SNDQ)
			break;
		c->sndq[(c->sndq_head + c->sndq_count) % IXM_TCP_SNDQ] =
			(struct ixm_tcp_sndpiece){ .off = iov[i].off, .len = len };
		c->sndq_count++;
		took += len;
next:
		if (len < iov[i].len)
			break;
	}
	c->snd_end += took;
	p->next += took;
	if (took < asked) {
		/* tell the application when the window opens */
		c->flags |= IXM_TCPF_WANT_SPACE;
		if (!took) {
			t->stats.window_stalls++;
			ixm_tcp_trace_stall(c, asked);
		}
	}
	if (took)
		ixm_tcp_output(c);
	return took;
}

/**
 * ixm_tcp_recv_done() - the application is done with received bytes
 * @t: the core's table
 * @app: the context
 * @handle: the connection
 * @len: bytes, oldest first, of what TCP_RECV events gave it
 *
 * Frees the buffers it no longer needs and reopens the window (a window
 * update goes out when it grew by enough, RFC 9293 §3.8.6.2.2).
 *
 * Return: 0; -EBADF; -EINVAL (more than it was given).
 */
int ixm_tcp_recv_done(struct ixm_tcp_table *t, struct ixm_app *app,
		      u64 handle, u32 len)
{
	struct ixm_tcp_conn *c = ixm_tcp_conn_get(t, app, handle);
	u32 old_wnd;

	if (!c || (c->flags & IXM_TCPF_CLOSED_APP) ||
	    !(c->flags & IXM_TCPF_ACCEPTED))
		return -EBADF;
	if (len > c->rcv_given)
		return -EINVAL;
	/* a FIN at the window's edge takes RCV.NXT one past it */
	old_wnd = ixm_seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
	c->rcv_given -= len;
	c->rcv_held -= len;
	while (len && c->rcvq) {
		struct ixm_mbuf *m = c->rcvq;
		u32 n = min_t(u32, len, m->len - c->rcvq_off);

		c->rcvq_off += n;
		len -= n;
		if (c->rcvq_off == m->len) {
			c->rcvq = m->next;
			if (!c->rcvq)
				c->rcvq_tail = NULL;
			c->rcvq_off = 0;
			c->rcv_bufs--;
			app->stats.rx_bufs--;
			m->owner = NULL;
			ixm_mbuf_free(m);
		}
	}
	if (c->state == IXM_TCP_CLOSED) {
		ixm_tcp_zombie_check(c);
		return 0;
	}
	if (c->state == IXM_TCP_TIME_WAIT)
		return 0;	/* after a shutdown: nothing more comes, no update */
	if (ixm_tcp_rcv_window(c) >= old_wnd + min_t(u32, c->rcv_buf / 2, 2 * c->mss)) {
		c->flags |= IXM_TCPF_ACK_NOW;
		ixm_tcp_mark_pending(c);
	}
	return 0;
}

/*
 * IXMOD_CALL_F_POS on a call that queues the FIN: the application's
 * stream must be at @p's offset (-EAGAIN, counted, if not).
 */
static int ixm_tcp_fin_pos(struct ixm_tcp_conn *c, struct ixm_tcp_pos *p)
{
	if (!p->on)
		return 0;
	p->next = ixm_tcp_app_pos(c);
	if (p->pos != p->next) {
		c->table->stats.pos_refused++;
		return -EAGAIN;	/* its data is not all sent yet */
	}
	return 0;
}

/*
 * RFC 9293 §3.10.4 CLOSE, for the sending half: a FIN after the queued
 * data, ESTABLISHED (or SYN-RECEIVED) to FIN-WAIT-1, CLOSE-WAIT to
 * LAST-ACK; in the other states a FIN is queued or sent already.
 */
static void ixm_tcp_queue_fin(struct ixm_tcp_conn *c)
{
	switch (c->state) {
	case IXM_TCP_SYN_RECEIVED:
	case IXM_TCP_ESTABLISHED:
		ixm_tcp_set_state(c, IXM_TCP_FIN_WAIT_1);
		break;
	case IXM_TCP_CLOSE_WAIT:
		ixm_tcp_set_state(c, IXM_TCP_LAST_ACK);
		break;
	default:
		return;
	}
	c->flags |= IXM_TCPF_FIN_QUEUED;
	ixm_tcp_output(c);
}

/**
 * ixm_tcp_shutdown() - half-close: the application sends no more
 * @t: the core's table
 * @app: the context
 * @handle: a connection
 * @p: IXMOD_CALL_F_POS: the stream offset the FIN must follow, and the
 *	connection's (out)
 *
 * Queues a FIN after the data already accepted, as a graceful close does,
 * but the application keeps the connection: TCP_RECV events go on (the
 * peer's data, then its FIN as res 0), TCP_SENT events for the queued
 * data too, and TCP_DEAD follows when both directions are over; the
 * handle lives until TCP_CLOSE.  Sends fail with -EPIPE from now on.  A
 * shutdown once the FIN is queued does nothing.
 *
 * Return: 0; -EINVAL (a listener); -EBADF (stale, closed by the
 * application, or a knock not accepted); -ENOTCONN (not yet established,
 * or over without a FIN of ours); -EAGAIN (not at @p's offset: nothing
 * done).
 */
int ixm_tcp_shutdown(struct ixm_tcp_table *t, struct ixm_app *app, u64 handle,
		     struct ixm_tcp_pos *p)
{
	struct ixm_tcp_conn *c;
	int err;

	if (ixm_tcp_listener_get(t, app, handle))
		return -EINVAL;	/* a listener has no stream */
	c = ixm_tcp_conn_get(t, app, handle);
	if (!c || !(c->flags & IXM_TCPF_ACCEPTED))
		return -EBADF;
	switch (c->state) {
	case IXM_TCP_ESTABLISHED:
	case IXM_TCP_CLOSE_WAIT:
		break;
	case IXM_TCP_SYN_SENT:
	case IXM_TCP_SYN_RECEIVED:
		return -ENOTCONN;
	case IXM_TCP_CLOSED:	/* dead: shut down before, or reset */
		return c->flags & IXM_TCPF_FIN_QUEUED ? 0 : -ENOTCONN;
	default:
		return 0;	/* the FIN is queued already */
	}
	err = ixm_tcp_fin_pos(c, p);
	if (err)
		return err;
	/* no sendv will wait for room again */
	c->flags &= ~(IXM_TCPF_WANT_SPACE | IXM_TCPF_SENT_WIN);
	ixm_tcp_queue_fin(c);
	return 0;
}

/**
 * ixm_tcp_close() - close a connection or a listener
 * @t: the core's table
 * @app: the context
 * @handle: a connection or a listener
 * @abort: reset the connection instead (RFC 9293 §3.10.5 ABORT)
 * @p: IXMOD_CALL_F_POS (graceful only): the stream offset its FIN must
 *	follow, and the connection's (out)
 *
 * A graceful close sends FIN after the queued data (§3.10.4); TCP_SENT
 * events keep coming for that data and TCP_DEAD follows.  Receive
 * buffers the application still held are taken back.  After a shutdown
 * it only does that, and lets FIN-WAIT-2 time out.
 *
 * Return: 0; -EBADF (a stale handle, one closed before included);
 * -EAGAIN (a connection that may still send is not at @p's offset:
 * nothing done); -EINVAL (@p on a listener).
 */
int ixm_tcp_close(struct ixm_tcp_table *t, struct ixm_app *app, u64 handle,
		  bool abort, struct ixm_tcp_pos *p)
{
	struct ixm_tcp_listener *l;
	struct ixm_tcp_conn *c;

	l = ixm_tcp_listener_get(t, app, handle);
	if (l) {
		if (p->on)
			return -EINVAL;	/* a listener has no stream */
		ixm_tcp_listener_close(t, l);
		return 0;
	}
	c = ixm_tcp_conn_get(t, app, handle);
	if (!c)
		return -EBADF;
	if ((c->flags & IXM_TCPF_ACCEPTED) &&
	    (c->state == IXM_TCP_ESTABLISHED || c->state == IXM_TCP_CLOSE_WAIT)) {
		int err = ixm_tcp_fin_pos(c, p);

		if (err)
			return err;
	}
	c->flags |= IXM_TCPF_CLOSED_APP;
	c->flags &= ~IXM_TCPF_WANT_SPACE;
	ixm_tcp_rcv_purge(c);
	c->evpend &= ~IXM_TCPE_EOF;

	/* not yet accepted: the application turns the connection away */
	if (!(c->flags & IXM_TCPF_ACCEPTED)) {
		if (c->state != IXM_TCP_CLOSED)
			ixm_tcp_send_rst(c);
		ixm_tcp_conn_free(c);
		return 0;
	}
	if (c->state == IXM_TCP_CLOSED) {	/* dead already, told so */
		ixm_tcp_zombie_check(c);
		return 0;
	}
	if (abort || c->state == IXM_TCP_SYN_SENT) {
		/* after a shutdown, TIME_WAIT: nothing left to reset */
		if (c->state != IXM_TCP_SYN_SENT && c->state != IXM_TCP_TIME_WAIT)
			ixm_tcp_send_rst(c);
		c->evpend &= ~IXM_TCPE_CONNECTED;
		c->conn_err = -ECONNABORTED;
		ixm_tcp_done(c, -ECONNABORTED);
		return 0;
	}
	/*
	 * FIN-WAIT-2 after a shutdown waited for the peer as long as it
	 * liked; now nobody will read: time it out (ixm_tcp_rcv_ack())
	 */
	if (c->state == IXM_TCP_FIN_WAIT_2)
		ixm_timer_arm(&t->wheel, &c->timer, t->stack->now_ns + t->cfg.tw_ns);
	ixm_tcp_queue_fin(c);
	return 0;
}

/**
 * ixm_tcp_close_all() - a context goes away: reset and free its TCP state
 * @t: the core's table
 * @app: the context
 *
 * Its peers get RSTs (when the ports are still there); no event is
 * posted.
 */
void ixm_tcp_close_all(struct ixm_tcp_table *t, struct ixm_app *app)
{
	u32 i;

	for (i = 0; i < IXM_TCP_LISTENERS; i++)
		if (t->listeners[i].app == app)
			ixm_tcp_listener_close(t, &t->listeners[i]);
	for (i = 0; i < IXM_TCP_CONNS; i++) {
		struct ixm_tcp_conn *c = &t->conns[i];

		if (c->app != app)
			continue;
		if (c->state != IXM_TCP_CLOSED && c->state != IXM_TCP_TIME_WAIT &&
		    c->state != IXM_TCP_SYN_SENT)
			ixm_tcp_send_rst(c);
		ixm_tcp_conn_free(c);
	}
}
