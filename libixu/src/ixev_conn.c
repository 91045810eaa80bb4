// SPDX-License-Identifier: MIT
/*
 * ixev_conn.c - ixev's TCP connections
 *
 * A connection lives in a slot of ev->slots (its cookie: index and
 * generation); events only change its state and put it on the dirty list,
 * and ixev_conn_flush() turns that state into calls at the end of the
 * pass (ixev.c).  Here: the slots, the received bytes a connection holds,
 * the events of connections and listeners, listen and connect, close.
 * The send buffer is ixev_send.c's.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

/* ---- connection slots ---- */

void ixev_mark_dirty(struct ixev_conn *c)
{
	struct ixev *ev = c->ev;

	if (c->dirty)
		return;
	if (ev->ndirty == ev->dirty_cap &&
	    ixev_grow((void **)&ev->dirty, &ev->dirty_cap, ev->ndirty + 1, sizeof(*ev->dirty)))
		return;		/* stays clean: the next event of it retries */
	c->dirty = true;
	ev->dirty[ev->ndirty++] = c->idx;
}

struct ixev_conn *ixev_conn_alloc(struct ixev *ev)
{
	struct ixev_conn *c = calloc(1, sizeof(*c));
	__u32 idx;

	if (!c)
		return NULL;
	if (ev->free_slot == ~0U) {
		__u32 n = ev->nslots ? 2 * ev->nslots : 64, i;
		struct slot *s = realloc(ev->slots, n * sizeof(*s));

		if (!s) {
			free(c);
			return NULL;
		}
		for (i = ev->nslots; i < n; i++)
			s[i] = (struct slot){ .gen = 1, .next_free = i + 1 < n ? i + 1 : ~0U };
		ev->slots = s;
		ev->free_slot = ev->nslots;
		ev->nslots = n;
	}
	idx = ev->free_slot;
	ev->free_slot = ev->slots[idx].next_free;
	ev->slots[idx].c = c;
	c->ev = ev;
	c->idx = idx;
	c->gen = ev->slots[idx].gen;
	return c;
}

void ixev_conn_free(struct ixev_conn *c)
{
	struct ixev *ev = c->ev;
	struct slot *s = &ev->slots[c->idx];

	while (c->seg_n)
		ixev_seg_pop(c);
	free(c->held);
	s->c = NULL;
	s->gen = (s->gen + 1) & GEN_MASK ? (s->gen + 1) & GEN_MASK : 1;
	s->next_free = ev->free_slot;
	ev->free_slot = c->idx;
	free(c);
}

struct ixev_conn *ixev_conn_of(struct ixev *ev, __u64 ck)
{
	__u32 idx = ck & 0xffffffff;
	struct ixev_conn *c;

	if (idx >= ev->nslots)
		return NULL;
	c = ev->slots[idx].c;
	if (!c || c->gen != ((ck >> GEN_SHIFT) & GEN_MASK))
		return NULL;
	return c;
}

static void add_orphan(struct ixev *ev, __u64 handle, bool knock)
{
	if (ixev_grow((void **)&ev->orphans, &ev->orphan_cap, ev->norphans + 1,
		      sizeof(*ev->orphans))) {
		ev->st.errors++;	/* left to the kernel until the context closes */
		return;
	}
	ev->orphans[ev->norphans++] = (struct orphan){ handle, knock };
}

/* The connection is over: tell the application once, free what ixev can. */
static void conn_dead(struct ixev_conn *c, int err)
{
	if (c->state == S_ZOMBIE)
		return;
	if (c->ops && c->ops->closed)
		c->ops->closed(c, err);
	if (c->close_queued || !c->handle) {
		ixev_conn_free(c);
		return;
	}
	c->state = S_ZOMBIE;	/* flush() closes the handle (ABI 2), then frees */
	ixev_mark_dirty(c);
}

/* ---- receiving ---- */

static int held_push(struct ixev_conn *c, __u32 off, __u32 len)
{
	if (c->held_n == c->held_cap) {
		unsigned int cap = c->held_cap ? 2 * c->held_cap : 8, i;
		struct rxseg *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (i = 0; i < c->held_n; i++)
			q[i] = c->held[(c->held_head + i) % c->held_cap];
		free(c->held);
		c->held = q;
		c->held_cap = cap;
		c->held_head = 0;
	}
	c->held[(c->held_head + c->held_n) % c->held_cap] = (struct rxseg){ off, len };
	c->held_n++;
	return 0;
}

/* Offer @len bytes at @off; returns how many the application took. */
static __u32 offer(struct ixev_conn *c, __u32 off, __u32 len)
{
	size_t n = len;

	if (c->ops && c->ops->readable) {
		c->in_readable = true;
		n = c->ops->readable(c, ixu_rx_ptr(&c->ev->ixu, off), len);
		c->in_readable = false;
		if (n > len)
			n = len;
	}
	c->rx_owed += n;
	return n;
}

static void tell_eof(struct ixev_conn *c)
{
	c->eof = false;
	if (c->ops && c->ops->readable && !c->closing)
		c->ops->readable(c, NULL, 0);
}

/* Offer the held bytes again, oldest first, until the application stops. */
static void offer_held(struct ixev_conn *c)
{
	c->resume = false;
	while (c->held_n && c->state == S_OPEN && !c->closing) {
		struct rxseg *h = &c->held[c->held_head];
		__u32 n = offer(c, h->off, h->len);

		if (n < h->len) {
			h->off += n;
			h->len -= n;
			return;
		}
		c->held_head = (c->held_head + 1) % c->held_cap;
		c->held_n--;
	}
	if (c->closing) {	/* no longer wanted: all of it goes back */
		while (c->held_n) {
			c->rx_owed += c->held[c->held_head].len;
			c->held_head = (c->held_head + 1) % c->held_cap;
			c->held_n--;
		}
	}
	if (!c->held_n && c->eof && c->state == S_OPEN)
		tell_eof(c);
}

static void on_recv(struct ixev_conn *c, const struct ixmod_event *e)
{
	__u32 n;

	if (e->res == 0) {
		c->eof = true;
		if (!c->held_n)
			tell_eof(c);
		else if (c->ev->rx_hook)
			c->ev->rx_hook(c);
		return;
	}
	c->ev->st.bytes_in += e->res;
	if (c->closing) {		/* the application closed it: not wanted */
		c->rx_owed += e->res;
		return;
	}
	if (c->held_n) {		/* behind bytes the application left */
		if (held_push(c, e->off, e->res))
			ixev_abort(c);
		else if (c->ev->rx_hook)
			c->ev->rx_hook(c);
		return;
	}
	n = offer(c, e->off, e->res);
	if (n < (__u32)e->res && held_push(c, e->off + n, e->res - n))
		ixev_abort(c);
}

int ixev_shutdown(struct ixev_conn *c)
{
	if (!(c->ev->ixu.info.features & IXMOD_FEAT_SHUTDOWN))
		return -EOPNOTSUPP;
	if (c->closing || c->state == S_ZOMBIE)
		return -EPIPE;
	if (c->state != S_OPEN && c->state != S_ACCEPT)
		return -ENOTCONN;
	if (!c->wr_shut) {
		c->wr_shut = true;
		c->want_write = false;
		ixev_mark_dirty(c);
	}
	return 0;
}

__be16 ixev_conn_lport(const struct ixev_conn *c)
{
	return c->lport;
}

size_t ixev_held_peek(const struct ixev_conn *c, unsigned int i, const void **p)
{
	const struct rxseg *h;

	if (i >= c->held_n)
		return 0;
	h = &c->held[(c->held_head + i) % c->held_cap];
	*p = ixu_rx_ptr(&c->ev->ixu, h->off);
	return h->len;
}

size_t ixev_held_bytes(const struct ixev_conn *c)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < c->held_n; i++)
		n += c->held[(c->held_head + i) % c->held_cap].len;
	return n;
}

void ixev_held_consume(struct ixev_conn *c, size_t n)
{
	if (!n)
		return;
	while (n && c->held_n) {
		struct rxseg *h = &c->held[c->held_head];
		__u32 k = n < h->len ? (__u32)n : h->len;

		h->off += k;
		h->len -= k;
		c->rx_owed += k;
		n -= k;
		if (!h->len) {
			c->held_head = (c->held_head + 1) % c->held_cap;
			c->held_n--;
		}
	}
	ixev_mark_dirty(c);
}

bool ixev_held_eof(const struct ixev_conn *c)
{
	return c->eof && !c->held_n;
}

bool ixev_fin_seen(const struct ixev_conn *c)
{
	return c->eof;
}

/*
 * ixev_resume - offer held received bytes again
 *
 * SYNOPSIS
 *	void ixev_resume(struct ixev_conn *c);
 *
 * DESCRIPTION
 *	After readable() took less than it was given, ixev holds the rest
 *	and offers it again after the connection's next send progress (a
 *	TCP_SENT that frees send buffer room).  Call this when the reason to
 *	stop was something else; the bytes are offered at the end of the
 *	current pass.
 */
void ixev_resume(struct ixev_conn *c)
{
	if (c->held_n || c->eof) {
		c->resume = true;
		ixev_mark_dirty(c);
	}
}

/*
 * ixev_close - close a connection
 *
 * SYNOPSIS
 *	void ixev_close(struct ixev_conn *c);
 *	void ixev_abort(struct ixev_conn *c);
 *
 * DESCRIPTION
 *	ixev_close() closes gracefully: the bytes already sent with
 *	ixev_send() still go, then a FIN.  ixev_abort() resets the
 *	connection at once (RST), dropping unsent bytes.  After either,
 *	readable() and writable() are not called again and sends fail with
 *	-EPIPE; closed() follows when the connection is over (after the
 *	peer acknowledged everything and closed its side, or after the
 *	reset), and frees @c.  Calling either again, or on a connection
 *	already told closed(), does nothing more (ixev_abort() after
 *	ixev_close() still resets).
 */
void ixev_close(struct ixev_conn *c)
{
	if (c->closing || c->state == S_ZOMBIE)
		return;
	c->closing = true;
	c->want_write = false;
	ixev_mark_dirty(c);
}

void ixev_abort(struct ixev_conn *c)
{
	if (c->abort || c->state == S_ZOMBIE)
		return;
	c->closing = c->abort = true;
	c->want_write = false;
	ixev_mark_dirty(c);
}

/*
 * ixev_set_data - the application's pointer on a connection
 *
 * SYNOPSIS
 *	void ixev_set_data(struct ixev_conn *c, void *data);
 *	void *ixev_data(const struct ixev_conn *c);
 *	struct ixev *ixev_conn_ev(const struct ixev_conn *c);
 *
 * DESCRIPTION
 *	ixev_set_data() stores @data on @c (ixev never reads it);
 *	ixev_data() returns it (NULL until set).  ixev_conn_ev() returns
 *	the ixev the connection belongs to.
 */
void ixev_set_data(struct ixev_conn *c, void *data)
{
	c->data = data;
}

void *ixev_data(const struct ixev_conn *c)
{
	return c->data;
}

struct ixev *ixev_conn_ev(const struct ixev_conn *c)
{
	return c->ev;
}

/* ---- flush: state to calls ---- */

void ixev_conn_flush(struct ixev_conn *c)
{
	struct ixev *ev = c->ev;

	switch (c->state) {
	case S_ACCEPT:
		ixu_prep_tcp_accept(next_call(ev), c->handle, conn_cookie(c));
		c->state = S_OPEN;
		break;
	case S_CONNECT:
		return;		/* queued by ixev_connect() */
	case S_CONNECTING:
		if (!c->closing)
			return;
		break;
	case S_ZOMBIE:
		ixu_prep_tcp_close(next_call(ev), c->handle, false, cookie(CK_LIB, 0, 0));
		ixev_conn_free(c);
		return;
	case S_OPEN:
		break;
	}
	if (c->resume || (c->closing && c->held_n))
		offer_held(c);
	if (c->rx_owed && !c->close_queued) {
		ixu_prep_tcp_recv_done(next_call(ev), c->handle, c->rx_owed);
		c->rx_owed = 0;
	}
	if (c->state == S_OPEN && !c->abort && !c->close_queued && !c->sending &&
	    !c->win_wait && c->queued < c->fill)
		ixev_conn_send(c);
	if (c->wr_shut && !c->shut_queued && !c->closing && c->state == S_OPEN &&
	    c->queued == c->fill && !c->sending) {
		struct ixmod_call *call = next_call(ev);

		ixu_prep_tcp_shutdown(call, c->handle, conn_cookie(c));
		if (ev->pos_calls)	/* after the last byte; refused (-EAGAIN) otherwise */
			ixu_prep_at(call, (__u32)c->queued);
		c->shut_queued = true;
	}
	if (c->closing && !c->close_queued && c->handle &&
	    (c->abort || (c->queued == c->fill && !c->sending))) {
		struct ixmod_call *call = next_call(ev);

		ixu_prep_tcp_close(call, c->handle, c->abort, conn_cookie(c));
		if (ev->pos_calls && !c->abort) {
			/* after the last byte, or refused; answered either way */
			ixu_prep_at(call, (__u32)c->queued);
			call->flags |= IXMOD_CALL_F_NOTIFY;
		}
		c->close_queued = true;
	}
}

/* ---- events ---- */

/* A knock's or CONNECTED's IPv6 peer (IXMOD_EVF_INET6), for ixev_conn_addr6() */
static void conn_peer6(struct ixev_conn *c, const struct ixmod_event *e)
{
	const __u8 *a6 = ixu_event_addr6(&c->ev->ixu, e);

	if (a6) {
		memcpy(c->addr6, a6, sizeof(c->addr6));
		c->inet6 = true;
	}
}

static void on_knock(struct ixev *ev, const struct ixmod_event *e)
{
	__u32 li = e->user_data & 0xffffffff;
	struct listener *l = li < ev->nlisteners ? &ev->listeners[li] : NULL;
	const struct ixev_conn_ops *ops = NULL;
	struct ixev_conn *c;

	if (!l || !l->handle) {
		/* its listener is closed (ixev_unlisten()): reset it */
		ev->st.errors++;
		add_orphan(ev, e->handle, true);
		return;
	}
	c = ixev_conn_alloc(ev);
	if (c) {
		c->handle = e->handle;
		c->lport = e->lport;
		c->state = S_ACCEPT;
		conn_peer6(c, e);
		ops = l->fn(c, e->addr, e->port, l->arg);
	}
	if (!ops) {
		ev->st.refused++;
		if (c)
			ixev_conn_free(c);
		add_orphan(ev, e->handle, true);
		return;
	}
	c->ops = ops;
	ev->st.conns++;
	ixev_mark_dirty(c);
}

/*
 * The event of a positional call (IXMOD_CALL_F_POS): a send that fell
 * short (res: what it took; a TCP_SENT with win > 0 comes) or a graceful
 * close; @off is where the kernel's stream is.  A send refused behind one
 * that fell short (-EAGAIN) says nothing new: the short one's event came
 * first and took c->queued back.  Return: true when the connection has
 * nothing to flush now.
 */
static bool on_pos_call(struct ixev_conn *c, const struct ixmod_event *e)
{
	if (e->op == IXMOD_OP_TCP_SHUTDOWN) {
		if (e->res == -EAGAIN)
			c->shut_queued = false;		/* again after the data */
		else if (e->res < 0 && e->res != -EPIPE)
			c->ev->st.errors++;
		return e->res == 0;
	}
	if (e->op == IXMOD_OP_TCP_CLOSE) {
		if (e->res == -EAGAIN)
			c->close_queued = false;	/* again after the data */
		else if (e->res < 0)
			c->ev->st.errors++;
		return e->res == 0;
	}
	if (e->res == -EAGAIN)
		return true;
	if (e->res < 0) {
		if (e->res != -EPIPE)	/* -EPIPE: its DEAD comes */
			c->ev->st.errors++;
		return false;
	}
	c->queued -= (__u32)((__u32)c->queued - e->off);
	c->win_wait = true;
	return true;
}

static void on_conn_call(struct ixev_conn *c, const struct ixmod_event *e)
{
	struct ixev *ev = c->ev;

	if (ev->pos_calls && (e->op == IXMOD_OP_TCP_SEND || e->op == IXMOD_OP_TCP_SENDV ||
			      e->op == IXMOD_OP_TCP_SHUTDOWN ||
			      (e->op == IXMOD_OP_TCP_CLOSE && !c->abort))) {
		if (on_pos_call(c, e))
			return;
		ixev_mark_dirty(c);
		return;
	}
	switch (e->op) {
	case IXMOD_OP_TCP_SEND:
	case IXMOD_OP_TCP_SENDV:
		c->sending = false;
		if (e->res < 0) {
			if (e->res != -EPIPE)	/* -EPIPE: its DEAD comes */
				ev->st.errors++;
			break;
		}
		c->queued += e->res;
		if ((__u32)e->res < c->asked)
			c->win_wait = true;	/* a TCP_SENT with win > 0 comes */
		/* all taken: a flush has work only for more bytes or a close */
		if (c->queued == c->fill && !c->closing)
			return;
		break;
	case IXMOD_OP_TCP_CONNECT:
		if (e->res < 0) {	/* no connection: no other event comes */
			if (c->ops && c->ops->connected)
				c->ops->connected(c, e->res);
			conn_dead(c, e->res);
			return;
		}
		c->handle = e->handle;
		c->state = S_CONNECTING;
		ev->st.conns++;
		break;
	case IXMOD_OP_TCP_SHUTDOWN:
		if (e->res < 0 && e->res != -EPIPE)
			ev->st.errors++;
		break;
	case IXMOD_OP_TCP_ACCEPT:
		/* it died before the accept ran; its DEAD came with the listener's cookie */
		if (e->res != -EBADF)
			ev->st.errors++;
		c->handle = 0;
		conn_dead(c, -ECONNRESET);
		return;
	default:
		ev->st.errors++;
		break;
	}
	ixev_mark_dirty(c);
}

/* @acked bytes acknowledged (a TCP_SENT, or a TCP_RECV with IXMOD_EVF_SENT) */
static void on_sent(struct ixev_conn *c, __u32 acked)
{
	c->acked += acked;
	c->ev->st.bytes_out += acked;
	ixev_segs_acked(c);
	if (c->held_n)
		c->resume = true;
	ixev_tell_writable(c);
}

void ixev_conn_event(struct ixev *ev, const struct ixmod_event *e)
{
	struct ixev_conn *c = ixev_conn_of(ev, e->user_data);

	if (!c || c->state == S_ZOMBIE) {
		ev->st.late++;	/* e.g. a call's error posted after the DEAD */
		return;
	}
	switch (e->type) {
	case IXMOD_EV_CALL:
		on_conn_call(c, e);
		return;
	case IXMOD_EV_TCP_CONNECTED:
		c->lport = e->lport;	/* what connected() may ask for */
		conn_peer6(c, e);
		if (c->ops && c->ops->connected && !c->closing)
			c->ops->connected(c, e->res);
		if (e->res == 0 && c->state == S_CONNECTING)
			c->state = S_OPEN;
		break;
	case IXMOD_EV_TCP_RECV:
		if (e->flags & IXMOD_EVF_SENT)
			on_sent(c, e->win);
		on_recv(c, e);
		break;
	case IXMOD_EV_TCP_SENT:
		if (e->win)
			c->win_wait = false;
		on_sent(c, (__u32)e->res);
		break;
	case IXMOD_EV_TCP_DEAD:
		conn_dead(c, e->res);
		return;
	default:
		ev->st.errors++;
		return;
	}
	ixev_mark_dirty(c);
}

/* An event with a listener's cookie: a knock, or the answer to the listen. */
void ixev_listener_event(struct ixev *ev, const struct ixmod_event *e)
{
	__u32 idx = e->user_data & 0xffffffff;

	if (e->type == IXMOD_EV_TCP_KNOCK) {
		on_knock(ev, e);
	} else if (e->type == IXMOD_EV_CALL && e->op == IXMOD_OP_TCP_LISTEN &&
		   idx < ev->nlisteners) {
		ev->listeners[idx].status = e->res;
		ev->listeners[idx].handle = e->res ? 0 : e->handle;
	} else if (e->type != IXMOD_EV_TCP_DEAD) {
		/* a DEAD: a knock that died before its accept */
		ev->st.errors++;
	}
}

/*
 * ixev_listen - accept TCP connections on a port
 *
 * SYNOPSIS
 *	int ixev_listen(struct ixev *ev, __be16 port, unsigned int backlog,
 *			ixev_accept_fn fn, void *arg);
 *	const __u8 *ixev_conn_addr6(const struct ixev_conn *c);
 *
 * DESCRIPTION
 *	Listens on @port (network order) on the context's core, for every
 *	interface the core serves, with @backlog (1 to the module's
 *	backlog_max; 0: 128).  Each connection that completes its handshake
 *	is offered to @fn(c, addr, port, @arg), which accepts it by returning
 *	its callbacks.  A server listens on every core it runs on: the NIC's
 *	RSS sends each flow to one core.  Waits for the kernel's answer
 *	(running the loop meanwhile).
 *
 *	In a context made with IXEV_F_INET6 the listener takes IPv6 peers
 *	too (IXMOD_FEAT_TCP6; without the flag the kernel answers their
 *	SYNs with a reset): such a connection is offered with @addr 0, and
 *	ixev_conn_addr6(c) gives its peer's 16-byte address (network order,
 *	valid as long as @c), NULL for an IPv4 peer; on a connection of
 *	ixev_connect6() it gives the address connected to.
 *
 * RETURN VALUE
 *	0, -EADDRINUSE, -EINVAL, -EMFILE, -ENOMEM, -ENETDOWN.
 */
int ixev_listen(struct ixev *ev, __be16 port, unsigned int backlog, ixev_accept_fn fn,
		void *arg)
{
	unsigned int cap = ev->nlisteners, idx;
	struct ixmod_call *call;
	int ret;

	if (!fn)
		return -EINVAL;
	for (idx = 0; idx < ev->nlisteners; idx++)	/* a slot ixev_unlisten() freed */
		if (!ev->listeners[idx].fn)
			break;
	if (idx == ev->nlisteners) {
		ret = ixev_grow((void **)&ev->listeners, &cap, idx + 1, sizeof(*ev->listeners));
		if (ret)
			return ret;
	}
	call = next_call(ev);
	if (!call)
		return -EAGAIN;
	ev->listeners[idx] = (struct listener){ .status = 1, .fn = fn, .arg = arg };
	if (idx == ev->nlisteners)
		ev->nlisteners++;
	ixu_prep_tcp_listen(call, port, backlog ? backlog : 128, cookie(CK_LISTENER, 0, idx));
	ret = ixev_wait_answer(ev, &ev->listeners[idx].status);
	if (ret)
		ev->listeners[idx].fn = NULL;
	return ret;
}

const __u8 *ixev_conn_addr6(const struct ixev_conn *c)
{
	return c->inet6 ? c->addr6 : NULL;
}

int ixev_unlisten(struct ixev *ev, ixev_accept_fn fn, void *arg)
{
	unsigned int i;

	for (i = 0; i < ev->nlisteners; i++) {
		struct listener *l = &ev->listeners[i];
		struct ixmod_call *call;

		if (l->fn != fn || l->arg != arg || l->status == 1)
			continue;
		if (l->handle) {
			call = next_call(ev);
			if (!call)
				return -EAGAIN;
			ixu_prep_tcp_close(call, l->handle, false, cookie(CK_LIB, 0, 0));
		}
		*l = (struct listener){ 0 };
		return 0;
	}
	return -ENOENT;
}

/*
 * ixev_connect - open a TCP connection
 *
 * SYNOPSIS
 *	int ixev_connect(struct ixev *ev, __be32 addr, __be16 port,
 *			 const struct ixev_conn_ops *ops, void *data,
 *			 struct ixev_conn **cp);
 *	int ixev_connect6(struct ixev *ev, const __u8 *addr6, __be16 port,
 *			  const struct ixev_conn_ops *ops, void *data,
 *			  struct ixev_conn **cp);
 *
 * DESCRIPTION
 *	Connects to @addr and @port (network order) from the context's core.
 *	Returns at once with the connection in *@cp (@cp may be NULL) and
 *	@data set on it; @ops->connected() tells the outcome.  Bytes sent
 *	before that are sent once it is established.  ixev_connect6()
 *	connects to the IPv6 address at @addr6 (16 bytes, network order,
 *	copied) from a context made with IXEV_F_INET6, on a module with
 *	IXMOD_FEAT_TCP6; the source is the port's global or link-local
 *	address, whichever has the peer's scope.
 *
 * RETURN VALUE
 *	0, -EINVAL (no @ops), -ENOMEM, -EAGAIN (the call ring is full: run
 *	the loop and retry); ixev_connect6(): -EOPNOTSUPP when the module
 *	has no TCP over IPv6 or the context was made without IXEV_F_INET6.
 *	Failures of the connection itself come to connected() and closed()
 *	(an address the kernel refuses, such as ::1, a group or the port's
 *	own, or one off the link, as -EINVAL or -ENETUNREACH).
 */
static int conn_open(struct ixev *ev, __be32 addr, const __u8 *addr6, __be16 port,
		     const struct ixev_conn_ops *ops, void *data, struct ixev_conn **cp)
{
	struct ixmod_call *call;
	struct ixev_conn *c;

	if (!ops)
		return -EINVAL;
	if (!ixu_call_space(&ev->ixu))
		return -EAGAIN;
	c = ixev_conn_alloc(ev);
	if (!c)
		return -ENOMEM;
	c->ops = ops;
	c->data = data;
	c->state = S_CONNECT;
	call = next_call(ev);
	if (addr6) {
		memcpy(c->addr6, addr6, sizeof(c->addr6));
		c->inet6 = true;
		ixu_prep_tcp_connect6(call, addr6, port, conn_cookie(c));
	} else {
		ixu_prep_tcp_connect(call, addr, port, conn_cookie(c));
	}
	if (cp)
		*cp = c;
	return 0;
}

int ixev_connect(struct ixev *ev, __be32 addr, __be16 port, const struct ixev_conn_ops *ops,
		 void *data, struct ixev_conn **cp)
{
	return conn_open(ev, addr, NULL, port, ops, data, cp);
}

int ixev_connect6(struct ixev *ev, const __u8 *addr6, __be16 port,
		  const struct ixev_conn_ops *ops, void *data, struct ixev_conn **cp)
{
	if (!(ev->ixu.setup.flags & IXMOD_SETUP_INET6) ||
	    !ixu_has_feature(&ev->ixu, IXMOD_FEAT_TCP6))
		return -EOPNOTSUPP;
	if (!addr6)
		return -EINVAL;
	return conn_open(ev, 0, addr6, port, ops, data, cp);
}
