// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_event.c - the events a TCP connection owes its application
 *
 * A connection's events reach the application in this order: KNOCK or
 * CONNECTED, its data (RECV), end of stream (RECV 0), and DEAD last; SENT
 * may come between them.  The input path and the calls only record what
 * is owed (@evpend bits, bytes acked, buffers not yet announced);
 * ixm_tcp_flush_events() posts it, and what a full event ring cannot
 * take now stays owed: the connection goes on the table's pending list
 * and ixm_tcp_poll() retries each iteration.
 */
#include "tcp.h"
#include "app.h"

/**
 * ixm_tcp_established() - a connection reached ESTABLISHED
 * @c: the connection
 */
void ixm_tcp_established(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;

	ixm_tcp_set_state(c, IXM_TCP_ESTABLISHED);
	c->syn_retries = 0;
	c->backoff = 0;
	c->cc->init(c);
	if (c->flags & IXM_TCPF_ACTIVE) {
		c->conn_err = 0;
		c->evpend |= IXM_TCPE_CONNECTED;
	} else {
		t->stats.passive_opens++;
		c->flags |= IXM_TCPF_KNOCKED;
		c->evpend |= IXM_TCPE_KNOCK;
	}
	ixm_tcp_flush_events(c);
}

/**
 * ixm_tcp_deliver() - queue in-order data for the application
 * @c: the connection
 * @m: the buffer, @m->data and @m->len its payload, @m->seq == rcv_nxt
 */
void ixm_tcp_deliver(struct ixm_tcp_conn *c, struct ixm_mbuf *m)
{
	m->next = NULL;
	m->owner = NULL;
	if (c->rcvq_tail)
		c->rcvq_tail->next = m;
	else
		c->rcvq = m;
	c->rcvq_tail = m;
	if (!c->rcv_posted)
		c->rcv_posted = m;
	c->rcv_held += m->len;
	c->rcv_nxt += m->len;
}

/* The peer's FIN arrived in order: the application hears of it after the data. */
void ixm_tcp_post_eof(struct ixm_tcp_conn *c)
{
	c->evpend |= IXM_TCPE_EOF;
}

/* Acknowledged bytes (or a reopened window) to report in a TCP_SENT. */
void ixm_tcp_post_sent(struct ixm_tcp_conn *c)
{
	c->evpend |= IXM_TCPE_SENT;
}

/*
 * TCP_KNOCK or TCP_CONNECTED of an IPv6 connection: IXMOD_EVF_INET6, the
 * peer's address in the extended event (its context set up
 * IXMOD_SETUP_INET6: a listener of any other takes no IPv6 SYN, and only
 * such a context may connect over IPv6).
 */
static noinline bool ixm_tcp_post6(struct ixm_tcp_conn *c, u8 type, s32 res, u64 user_data)
{
	struct ixmod_event ev = {
		.type = type,
		.flags = IXMOD_EVF_INET6,
		.res = res,
		.user_data = user_data,
		.port = c->rport,
		.lport = c->lport,
		.handle = ixm_tcp_handle(c),
	};

	return !ixm_app_post6(c->app, &ev, ixm_tcp_handle(c), &c->raddr6);
}

/* Post one event of @c; false when the ring and its hold-back are full. */
static bool ixm_tcp_post(struct ixm_tcp_conn *c, u8 type, s32 res, u64 user_data)
{
	struct ixmod_event spare, *ev;

	if (unlikely(c->flags & IXM_TCPF_INET6) &&
	    (type == IXMOD_EV_TCP_KNOCK || type == IXMOD_EV_TCP_CONNECTED))
		return ixm_tcp_post6(c, type, res, user_data);
	ev = ixm_app_event_begin(c->app, &spare);
	if (!ev)
		return false;
	*ev = (struct ixmod_event){
		.type = type,
		.res = res,
		.user_data = user_data,
	};
	/* CONNECTED too: the local port is the one the connect chose */
	if (type == IXMOD_EV_TCP_KNOCK || type == IXMOD_EV_TCP_CONNECTED) {
		ev->addr = c->raddr;
		ev->port = c->rport;
		ev->lport = c->lport;
	}
	if (type == IXMOD_EV_TCP_SENT)
		ev->win = ixm_tcp_send_space(c);
	else if (type != IXMOD_EV_TCP_RECV)
		ev->handle = ixm_tcp_handle(c);
	ixm_app_event_end(c->app, ev, &spare, ixm_tcp_handle(c));
	return true;
}

static u64 ixm_tcp_event_cookie(const struct ixm_tcp_conn *c)
{
	if (c->flags & IXM_TCPF_ACCEPTED)
		return c->cookie;
	if (c->listener != IXM_TCP_NONE)
		return c->table->listeners[c->listener].cookie;
	return 0;
}

/*
 * Whether the TCP_SENT @c owes may ride on its next TCP_RECV
 * (IXMOD_SETUP_SENT_IN_RECV): not while the application waits for send
 * space, which only a TCP_SENT's win tells: from a sendv that took less
 * than asked until a TCP_SENT with win above 0 was posted.
 */
static bool ixm_tcp_sent_folds(const struct ixm_tcp_conn *c)
{
	return c->app->sent_in_recv && (c->evpend & IXM_TCPE_SENT) &&
	       !(c->flags & (IXM_TCPF_WANT_SPACE | IXM_TCPF_SENT_WIN)) &&
	       c->pending_acked;
}

/*
 * A TCP_SENT that only says "everything you sent arrived" may wait
 * (IXMOD_SETUP_SENT_IN_RECV): a client acknowledges a response on its
 * own (a delayed ACK), and posting that at once wakes the application
 * once more per request.  Held, it rides on the connection's next
 * TCP_RECV, or goes out with the first event the context gets anyway
 * (ixm_tcp_poll()), or IXM_TCP_SENT_HOLD_NS later.  Not while the
 * application waits for room, bytes are unacknowledged (a sender needs
 * its acknowledgments to go on), the connection is closing or owes
 * anything else; at most IXM_TCP_SENT_HOLD connections.
 */
static bool ixm_tcp_sent_hold(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;

	if (!c->app->sent_in_recv || t->sent_releasing ||
	    (c->flags & (IXM_TCPF_WANT_SPACE | IXM_TCPF_SENT_WIN | IXM_TCPF_CLOSED_APP |
			 IXM_TCPF_FIN_QUEUED)) ||
	    (c->evpend & ~IXM_TCPE_SENT) || c->snd_una != c->snd_end ||
	    (c->state != IXM_TCP_ESTABLISHED && c->state != IXM_TCP_CLOSE_WAIT))
		return false;
	if (c->flags & IXM_TCPF_SENT_HELD)
		return true;
	if (t->sent_nheld == IXM_TCP_SENT_HOLD)
		return false;
	if (!t->sent_nheld)
		ixm_timer_arm(&t->wheel, &t->sent_timer,
			      t->stack->now_ns + IXM_TCP_SENT_HOLD_NS);
	t->sent_held[t->sent_nheld].idx = ixm_tcp_idx(c);
	t->sent_held[t->sent_nheld++].gen = c->gen;
	c->flags |= IXM_TCPF_SENT_HELD;
	t->stats.sent_held++;
	return true;
}

/**
 * ixm_tcp_sent_release() - post held TCP_SENTs
 * @t: the core's table
 * @all: every one; else those of contexts that have events to publish
 *	in this iteration anyway
 *
 * Context: the core's loop (ixm_tcp_poll(), the hold's timer).
 */
void ixm_tcp_sent_release(struct ixm_tcp_table *t, bool all)
{
	u32 i, kept = 0;

	t->sent_releasing = true;
	for (i = 0; i < t->sent_nheld; i++) {
		struct ixm_tcp_conn *c = &t->conns[t->sent_held[i].idx];

		if (c->gen != t->sent_held[i].gen || !(c->flags & IXM_TCPF_SENT_HELD))
			continue;	/* freed, or it rode on a TCP_RECV */
		if (!all && c->app && !c->app->dirty) {
			t->sent_held[kept++] = t->sent_held[i];
			continue;
		}
		c->flags &= ~IXM_TCPF_SENT_HELD;
		if (c->app)
			ixm_tcp_flush_events(c);
	}
	t->sent_nheld = kept;
	t->sent_releasing = false;
	if (!kept)
		ixm_timer_cancel(&t->wheel, &t->sent_timer);
}

void ixm_tcp_sent_timer_fn(struct ixm_timer *tm, u64 now_ns)
{
	ixm_tcp_sent_release(container_of(tm, struct ixm_tcp_table, sent_timer), true);
}

/*
 * Announce buffers received in order, oldest first, while the ring has
 * room; the first carries the acknowledged bytes @c owes when they fold
 * (ixm_tcp_flush_events() checked that a frame no longer reads them).
 */
static bool ixm_tcp_post_recv(struct ixm_tcp_conn *c, bool fold)
{
	struct ixm_mbuf *m;

	while ((m = c->rcv_posted)) {
		struct ixmod_event spare, *ev = ixm_app_event_begin(c->app, &spare);

		if (!ev)
			return false;
		*ev = (struct ixmod_event){
			.type = IXMOD_EV_TCP_RECV,
			.res = m->len,
			.user_data = c->cookie,
			.off = ixm_app_rx_off(m),
		};
		if (fold) {
			ev->flags = IXMOD_EVF_SENT;
			ev->win = c->pending_acked;
			c->pending_acked = 0;
			c->evpend &= ~IXM_TCPE_SENT;
			fold = false;
		}
		ixm_app_event_end(c->app, ev, &spare, ixm_tcp_handle(c));
		m->owner = c;
		c->app->stats.rx_bufs++;
		c->rcv_given += m->len;
		c->rcv_posted = m->next;
	}
	return true;
}

/**
 * ixm_tcp_flush_events() - post what the connection owes its application
 * @c: the connection
 *
 * Context: the connection's core.  May free @c (a dead connection whose
 * application holds nothing of it).
 */
void ixm_tcp_flush_events(struct ixm_tcp_conn *c)
{
	u64 cookie = ixm_tcp_event_cookie(c);

	if (!c->app || c->app->dead)
		return;
	if (c->evpend & IXM_TCPE_KNOCK) {
		if (!ixm_tcp_post(c, IXMOD_EV_TCP_KNOCK, 0, cookie))
			goto stuck;
		c->evpend &= ~IXM_TCPE_KNOCK;
	}
	if (c->evpend & IXM_TCPE_CONNECTED) {
		if (!ixm_tcp_post(c, IXMOD_EV_TCP_CONNECTED, c->conn_err, cookie))
			goto stuck;
		c->evpend &= ~IXM_TCPE_CONNECTED;
	}
	if (!(c->flags & IXM_TCPF_ACCEPTED))
		goto out;	/* data and the rest wait for the accept */
	if (!(c->flags & IXM_TCPF_CLOSED_APP) && c->rcv_posted &&
	    !ixm_tcp_post_recv(c, ixm_tcp_sent_folds(c) && ixm_tcp_zc_settled(c)))
		goto stuck;
	if (c->evpend & IXM_TCPE_SENT) {
		if (unlikely(!ixm_tcp_zc_settled(c))) {
			c->table->stats.zc_waits++;
			goto stuck;	/* a frame still reads the acknowledged bytes */
		}
		if (ixm_tcp_sent_hold(c))
			goto out;	/* nothing else is owed: see there */
		if (!ixm_tcp_post(c, IXMOD_EV_TCP_SENT, c->pending_acked, cookie))
			goto stuck;
		c->pending_acked = 0;
		/* the wait is over once a TCP_SENT said there is room */
		if (ixm_tcp_send_space(c))
			c->flags &= ~IXM_TCPF_SENT_WIN;
		c->evpend &= ~IXM_TCPE_SENT;
	}
	if ((c->evpend & IXM_TCPE_EOF) && !c->rcv_posted) {
		if (!(c->flags & IXM_TCPF_CLOSED_APP) &&
		    !ixm_tcp_post(c, IXMOD_EV_TCP_RECV, 0, cookie))
			goto stuck;
		c->evpend &= ~IXM_TCPE_EOF;
	}
out:
	if ((c->evpend & IXM_TCPE_DEAD) && !(c->evpend & ~IXM_TCPE_DEAD &
					      (IXM_TCPE_KNOCK | IXM_TCPE_CONNECTED))) {
		if ((c->flags & IXM_TCPF_ACCEPTED) || c->listener != IXM_TCP_NONE ||
		    (c->flags & IXM_TCPF_KNOCKED)) {
			if (c->rcv_posted && !(c->flags & IXM_TCPF_CLOSED_APP) &&
			    (c->flags & IXM_TCPF_ACCEPTED))
				goto stuck;	/* its data first */
			if (unlikely(!ixm_tcp_zc_settled(c))) {
				c->table->stats.zc_waits++;
				goto stuck;	/* a frame still reads its bytes */
			}
			if (!ixm_tcp_post(c, IXMOD_EV_TCP_DEAD, c->conn_err, cookie))
				goto stuck;
		}
		c->evpend &= ~IXM_TCPE_DEAD;
		c->flags |= IXM_TCPF_DEAD_POSTED;
		ixm_tcp_zombie_check(c);
	}
	return;
stuck:
	ixm_tcp_mark_pending(c);
}

/*
 * A connection that is CLOSED and whose death was announced lives on
 * until its application closes its handle (the handle stays valid until
 * then: calls on it answer -EPIPE, and bytes it holds go back with
 * recv_done or the close); one never accepted goes at once.  One in
 * TIME_WAIT lives until the timer, and then, when its application shut
 * it down and has not closed it yet, on as a CLOSED one
 * (ixm_tcp_tw_release()).
 */
void ixm_tcp_zombie_check(struct ixm_tcp_conn *c)
{
	if (c->state != IXM_TCP_CLOSED || c->evpend)
		return;
	if (!(c->flags & IXM_TCPF_DEAD_POSTED))
		return;
	if ((c->flags & IXM_TCPF_CLOSED_APP) || !(c->flags & IXM_TCPF_ACCEPTED))
		ixm_tcp_conn_free(c);
}
