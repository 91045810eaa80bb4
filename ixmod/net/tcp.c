// SPDX-License-Identifier: GPL-2.0
/*
 * tcp.c - a core's TCP tables (connections, listeners, TIME_WAIT, the
 * pending list) and their lookups, a connection's life in them (alloc,
 * end, TIME_WAIT, free), and the core's TCP work of an iteration; the
 * events connections owe their applications are in tcp_event.c, the
 * application's calls in tcp_call.c
 *
 * Connections and listeners are slots in fixed arrays, named to the
 * application by handles (index and generation), so a stale or forged
 * handle is refused.  The pending list holds the connections with output
 * or events still owed; ixm_tcp_poll() retries them each iteration.
 */
#include "tcp.h"
#include "app.h"
#include "toeplitz.h"

const char * const ixm_tcp_state_names[IXM_TCP_NSTATES] = {
	[IXM_TCP_CLOSED]	= "CLOSED",
	[IXM_TCP_LISTEN]	= "LISTEN",
	[IXM_TCP_SYN_SENT]	= "SYN_SENT",
	[IXM_TCP_SYN_RECEIVED]	= "SYN_RECV",
	[IXM_TCP_ESTABLISHED]	= "ESTABLISHED",
	[IXM_TCP_FIN_WAIT_1]	= "FIN_WAIT1",
	[IXM_TCP_FIN_WAIT_2]	= "FIN_WAIT2",
	[IXM_TCP_CLOSE_WAIT]	= "CLOSE_WAIT",
	[IXM_TCP_CLOSING]	= "CLOSING",
	[IXM_TCP_LAST_ACK]	= "LAST_ACK",
	[IXM_TCP_TIME_WAIT]	= "TIME_WAIT",
};

/**
 * ixm_tcp_config_default() - the defaults of the knobs
 * @cfg: filled in
 */
void ixm_tcp_config_default(struct ixm_tcp_config *cfg)
{
	cfg->delack_us = 4000;
	cfg->rto_min_us = 200000;	/* Linux's TCP_RTO_MIN; RFC 6298 says 1 s */
	cfg->rto_max_us = 60000000;	/* RFC 6298 §2.5: at least 60 s */
	cfg->rto_init_us = 1000000;	/* RFC 6298 §2.1 */
	cfg->syn_retries = 6;
	cfg->synack_retries = 5;
	cfg->retries = 15;		/* RFC 1122 §4.2.3.5 R2: >= 100 s */
	cfg->tw_ns = 60ULL * 1000000000ULL;	/* 2 MSL, as Linux */
	cfg->keepalive_ns = 0;
	cfg->rcv_buf = 128 * 1024;
	cfg->syncookies = 1;
	cfg->invalid_ratelimit_ns = 500000000ULL;	/* Linux's tcp_invalid_ratelimit */
	cfg->sack = 1;
	cfg->ecn = 2;			/* Linux's tcp_ecn default: accept when asked */
	cfg->tlp_delack_us = 200000;	/* RFC 8985 §7.2's WCDelAckT */
	cfg->init_cwnd = 10;		/* RFC 6928, as Linux */
}

static u32 ixm_tcp_hash(__be32 laddr, __be16 lport, __be32 raddr, __be16 rport)
{
	u32 h = (__force u32)raddr ^ (__force u32)laddr ^
		((u32)(__force u16)rport << 16 | (__force u16)lport);

	h ^= h >> 16;
	h *= 0x45d9f3b;
	h ^= h >> 16;
	return h & (IXM_TCP_BUCKETS - 1);
}

/**
 * ixm_tcp_table_init() - an empty table
 * @t: the table (zeroed or not)
 * @st: the core's protocol state
 * @cfg: the knobs
 * @secret: keys of ISNs and SYN cookies (random in the kernel); also the
 *	first generation of every connection and listener slot
 */
void ixm_tcp_table_init(struct ixm_tcp_table *t, struct ixm_stack *st,
			const struct ixm_tcp_config *cfg, const u64 secret[4])
{
	u32 i, gen = (u32)secret[2] ? (u32)secret[2] : 1;
	u32 lgen = (u32)(secret[2] >> 32) ? (u32)(secret[2] >> 32) : 1;

	IXM_SLOT_CHECK(struct ixm_tcp_conn);
	IXM_SLOT_CHECK(struct ixm_tcp_listener);
	memset(t, 0, sizeof(*t));
	t->cfg = *cfg;
	t->stack = st;
	ixm_timer_wheel_init(&t->wheel, st ? st->now_ns : 0);
	memcpy(t->secret, secret, sizeof(t->secret));
	for (i = 0; i < IXM_TCP_BUCKETS; i++)
		t->bucket[i] = IXM_TCP_NONE;
	for (i = 0; i < IXM_TCP_CONNS; i++) {
		struct ixm_tcp_conn *c = &t->conns[i];

		c->table = t;
		ixm_slot_init(&c->slot, gen);
		c->next = i + 1 < IXM_TCP_CONNS ? i + 1 : IXM_TCP_NONE;
		ixm_timer_init(&c->timer, ixm_tcp_timer_fn);
		ixm_timer_init(&c->delack, ixm_tcp_delack_fn);
	}
	ixm_timer_init(&t->sent_timer, ixm_tcp_sent_timer_fn);
	for (i = 0; i < IXM_TCP_LISTENERS; i++)
		ixm_slot_init(&t->listeners[i].slot, lgen);
	t->free = 0;
	t->pending = IXM_TCP_NONE;
	t->tw_head = IXM_TCP_NONE;
	t->tw_tail = IXM_TCP_NONE;
	t->eph_next = (u32)(secret[1] % (IXM_TCP_EPH_HI - IXM_TCP_EPH_LO + 1));
}

/**
 * ixm_tcp_port() - the port a connection sends on
 * @c: the connection
 *
 * Return: the port, or NULL when its context lost the core's ports.
 */
struct ixm_net_port *ixm_tcp_port(const struct ixm_tcp_conn *c)
{
	struct ixm_stack *st = c->table->stack;

	if (unlikely(!c->app || c->app->dead || c->pidx >= st->nports))
		return NULL;
	return st->ports[c->pidx];
}

/**
 * ixm_tcp_send_space() - bytes a sendv would accept now
 * @c: the connection
 *
 * What the peer's window leaves beyond what is queued.  Not the
 * congestion window: bytes it holds back wait in the queue and go as
 * acknowledgments open it (ixm_tcp_output()), without a round trip
 * through the application for each one, as a socket's send buffer and
 * IX's lwIP queue do.  The application's arena holds them either way.
 * When the peer's window is closed and nothing is outstanding, one
 * segment is taken anyway: it is what the zero-window probes carry
 * (RFC 9293 §3.8.6.1).
 *
 * Return: bytes.
 */
u32 ixm_tcp_send_space(const struct ixm_tcp_conn *c)
{
	u32 queued = c->snd_end - c->snd_una;

	if (c->state != IXM_TCP_ESTABLISHED && c->state != IXM_TCP_CLOSE_WAIT)
		return 0;
	if (c->flags & (IXM_TCPF_FIN_QUEUED | IXM_TCPF_CLOSED_APP))
		return 0;
	if (c->sndq_count == IXM_TCP_SNDQ)
		return 0;
	/* the SYN's sequence number is acknowledged here: queued is data */
	if (!c->snd_wnd && !queued)
		return c->mss;
	return c->snd_wnd > queued ? c->snd_wnd - queued : 0;
}

/* RFC 4022 tcpCurrEstab: ESTABLISHED or CLOSE-WAIT */
static bool ixm_tcp_counts_established(unsigned int state)
{
	return state == IXM_TCP_ESTABLISHED || state == IXM_TCP_CLOSE_WAIT;
}

/**
 * ixm_tcp_set_state() - move a connection to @state
 * @c: the connection
 * @state: enum ixm_tcp_state
 */
void ixm_tcp_set_state(struct ixm_tcp_conn *c, enum ixm_tcp_state state)
{
	struct ixm_tcp_stats *s = &c->table->stats;

	if (c->state == state)
		return;
	if (ixm_tcp_counts_established(c->state))
		s->established--;
	if (ixm_tcp_counts_established(state))
		s->established++;
	ixm_tcp_trace_state(c, c->state, state);
	c->state = state;
}

/**
 * ixm_tcp_lookup() - the connection of a 4-tuple
 * @t: the core's table
 * @laddr: local address
 * @lport: local port
 * @raddr: remote address
 * @rport: remote port
 *
 * Return: the connection, or NULL.
 */
struct ixm_tcp_conn *ixm_tcp_lookup(struct ixm_tcp_table *t, __be32 laddr,
				    __be16 lport, __be32 raddr, __be16 rport)
{
	u32 i = t->bucket[ixm_tcp_hash(laddr, lport, raddr, rport)];

	while (i != IXM_TCP_NONE) {
		struct ixm_tcp_conn *c = &t->conns[i];

		if (c->rport == rport && c->raddr == raddr &&
		    c->lport == lport && c->laddr == laddr)
			return c;
		i = c->next;
	}
	return NULL;
}

/*
 * An IPv6 connection in the table: @laddr 0, which no IPv4 connection has
 * (its local address is a port's), so ixm_tcp_lookup() never finds it,
 * and @raddr the XOR of the remote address's words, for the bucket.
 */
static __be32 ixm_tcp_fold6(const struct ixm_in6_addr *a)
{
	__be32 w[4];

	memcpy(w, a->s6, sizeof(w));
	return w[0] ^ w[1] ^ w[2] ^ w[3];
}

/**
 * ixm_tcp_lookup6() - the connection of an IPv6 4-tuple
 * @t: the core's table
 * @laddr: local address
 * @lport: local port
 * @raddr: remote address
 * @rport: remote port
 *
 * Return: the connection, or NULL.
 */
struct ixm_tcp_conn *ixm_tcp_lookup6(struct ixm_tcp_table *t,
				     const struct ixm_in6_addr *laddr, __be16 lport,
				     const struct ixm_in6_addr *raddr, __be16 rport)
{
	__be32 fold = ixm_tcp_fold6(raddr);
	u32 i = t->bucket[ixm_tcp_hash(0, lport, fold, rport)];

	while (i != IXM_TCP_NONE) {
		struct ixm_tcp_conn *c = &t->conns[i];

		if (c->rport == rport && c->raddr == fold && c->lport == lport &&
		    !c->laddr && (c->flags & IXM_TCPF_INET6) &&
		    ixm_ip6_addr_equal(&c->raddr6, raddr) &&
		    ixm_ip6_addr_equal(&c->laddr6, laddr))
			return c;
		i = c->next;
	}
	return NULL;
}

/**
 * ixm_tcp_conn_get() - the connection a handle names
 * @t: the core's table
 * @app: the context presenting the handle
 * @handle: as the knock or the connect gave it
 *
 * Return: the connection, or NULL: not a connection's handle, out of
 * range, stale, another context's, or closed by the application.
 */
struct ixm_tcp_conn *ixm_tcp_conn_get(struct ixm_tcp_table *t,
				      const struct ixm_app *app, u64 handle)
{
	struct ixm_tcp_conn *c;
	struct ixm_slot *s;

	s = ixm_slot_get(&IXM_SLOT_TABLE(IXMOD_HANDLE_TCP, t->conns), app, handle);
	if (!s)
		return NULL;
	c = container_of(s, struct ixm_tcp_conn, slot);
	/*
	 * The handle lives until the application closes it, whatever the
	 * connection did meanwhile (its DEAD says the connection is over,
	 * not the handle): then every call with it is -EBADF.
	 */
	if (c->flags & IXM_TCPF_CLOSED_APP)
		return NULL;
	return c;
}

/**
 * ixm_tcp_listener_get() - the listener a handle names
 * @t: the core's table
 * @app: the context presenting the handle
 * @handle: as the listen gave it
 *
 * Return: the listener, or NULL: not a listener's handle, out of range,
 * stale or another context's.
 */
struct ixm_tcp_listener *ixm_tcp_listener_get(struct ixm_tcp_table *t,
					      const struct ixm_app *app,
					      u64 handle)
{
	struct ixm_slot *s;

	s = ixm_slot_get(&IXM_SLOT_TABLE(IXMOD_HANDLE_LISTENER, t->listeners), app, handle);
	return s ? container_of(s, struct ixm_tcp_listener, slot) : NULL;
}

/**
 * ixm_tcp_listener_find() - the listener of a local port
 * @t: the core's table
 * @port: local port, network order
 *
 * Return: its index, or IXM_TCP_NONE.
 */
u32 ixm_tcp_listener_find(struct ixm_tcp_table *t, __be16 port)
{
	u32 i;

	for (i = 0; i < IXM_TCP_LISTENERS; i++)
		if (t->listeners[i].app && t->listeners[i].port == port)
			return i;
	return IXM_TCP_NONE;
}

static void ixm_tcp_tw_unlink(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;
	u32 next = c->tw_next;

	if (c->tw_prev != IXM_TCP_NONE)
		t->conns[c->tw_prev].tw_next = next;
	else
		t->tw_head = next;
	if (next != IXM_TCP_NONE)
		t->conns[next].tw_prev = c->tw_prev;
	else
		t->tw_tail = c->tw_prev;
	t->tw_count--;
}

static void ixm_tcp_pending_unlink(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;
	u32 i = ixm_tcp_idx(c);
	u32 *pp = &t->pending;

	while (*pp != IXM_TCP_NONE && *pp != i)
		pp = &t->conns[*pp].pnext;
	if (*pp == i)
		*pp = c->pnext;
	c->flags &= ~IXM_TCPF_PENDING;
}

/*
 * Free every buffer a connection holds.  Their pool is always still there:
 * before a port's pools are freed, ixm_tcp_pool_gone() frees every
 * connection holding one of their buffers (ixmod/port.c).
 */
void ixm_tcp_rcv_purge(struct ixm_tcp_conn *c)
{
	struct ixm_mbuf *m, *next;

	for (m = c->rcvq; m; m = next) {
		next = m->next;
		if (m->owner)
			c->app->stats.rx_bufs--;
		m->owner = NULL;
		ixm_mbuf_free(m);
	}
	ixm_tcp_ooo_purge(c);
	c->rcvq = NULL;
	c->rcvq_tail = NULL;
	c->rcv_posted = NULL;
	c->rcv_bufs = 0;
	c->rcv_held = 0;
	c->rcv_given = 0;
	c->rcvq_off = 0;
}

/* Out of the lookup table: once, when it dies or when its slot goes. */
static void ixm_tcp_unhash(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;
	u32 i = ixm_tcp_idx(c);
	u32 *pp = &t->bucket[ixm_tcp_hash(c->laddr, c->lport, c->raddr, c->rport)];

	if (c->flags & IXM_TCPF_UNHASHED)
		return;
	while (*pp != i)
		pp = &t->conns[*pp].next;
	*pp = c->next;
	c->flags |= IXM_TCPF_UNHASHED;
}

/**
 * ixm_tcp_conn_alloc() - a new connection in CLOSED state, hashed
 * @t: the core's table
 * @laddr: local address
 * @lport: local port
 * @raddr: remote address
 * @rport: remote port
 *
 * When every slot is taken, the oldest TIME_WAIT connection gives its
 * slot up (counted in tw_recycled; ixm_tcp_tw_release()).
 *
 * Return: the connection, or NULL (conn_full counted).  Injectable (NULL).
 */
noinline struct ixm_tcp_conn *ixm_tcp_conn_alloc(struct ixm_tcp_table *t, __be32 laddr,
					__be16 lport, __be32 raddr, __be16 rport)
{
	struct ixm_tcp_conn *c;
	u32 i, gen;
	u32 b;

	/* each leaves the TIME_WAIT list, not always the table (a shutdown's) */
	while (t->free == IXM_TCP_NONE && t->tw_head != IXM_TCP_NONE) {
		t->stats.tw_recycled++;
		ixm_tcp_tw_release(&t->conns[t->tw_head]);
	}
	if (t->free == IXM_TCP_NONE) {
		t->stats.conn_full++;
		return NULL;
	}
	i = t->free;
	c = &t->conns[i];
	t->free = c->next;
	gen = c->gen;
	memset(c, 0, offsetof(struct ixm_tcp_conn, timer));
	c->gen = gen;
	c->laddr = laddr;
	c->lport = lport;
	c->raddr = raddr;
	c->rport = rport;
	c->listener = IXM_TCP_NONE;
	c->tw_prev = IXM_TCP_NONE;
	c->tw_next = IXM_TCP_NONE;
	c->pnext = IXM_TCP_NONE;
	c->cc = &ixm_tcp_newreno;
	c->rcv_buf = t->cfg.rcv_buf;
	c->rto_us = t->cfg.rto_init_us;
	c->mss = IXM_TCP_MSS_DEFAULT;
	c->last_rx_ns = t->stack->now_ns;
	c->quickacks = 16;
	b = ixm_tcp_hash(laddr, lport, raddr, rport);
	c->next = t->bucket[b];
	t->bucket[b] = i;
	t->stats.conns++;
	return c;
}
ixm_injectable_null(ixm_tcp_conn_alloc);

/**
 * ixm_tcp_conn_alloc6() - ixm_tcp_conn_alloc() over IPv6
 * @t: the core's table
 * @laddr: local address
 * @lport: local port
 * @raddr: remote address
 * @rport: remote port
 *
 * Return: the connection (IXM_TCPF_INET6), or NULL.
 */
struct ixm_tcp_conn *ixm_tcp_conn_alloc6(struct ixm_tcp_table *t,
					 const struct ixm_in6_addr *laddr, __be16 lport,
					 const struct ixm_in6_addr *raddr, __be16 rport)
{
	struct ixm_tcp_conn *c;

	c = ixm_tcp_conn_alloc(t, 0, lport, ixm_tcp_fold6(raddr), rport);
	if (!c)
		return NULL;
	c->flags |= IXM_TCPF_INET6;
	c->laddr6 = *laddr;
	c->raddr6 = *raddr;
	return c;
}

void ixm_tcp_listener_unqueue(struct ixm_tcp_conn *c)
{
	if (c->listener != IXM_TCP_NONE) {
		c->table->listeners[c->listener].queued--;
		c->listener = IXM_TCP_NONE;
	}
}

/**
 * ixm_tcp_conn_free() - give a connection's slot back
 * @c: the connection; every handle to it becomes stale
 *
 * Frees every buffer it holds and cancels its timers.  No event.
 */
void ixm_tcp_conn_free(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;

	ixm_timer_del(&t->wheel, &c->timer);
	ixm_timer_del(&t->wheel, &c->delack);
	if (c->flags & IXM_TCPF_PENDING)
		ixm_tcp_pending_unlink(c);
	if (c->state == IXM_TCP_TIME_WAIT)
		ixm_tcp_tw_unlink(c);
	ixm_tcp_listener_unqueue(c);
	ixm_tcp_rcv_purge(c);
	ixm_tcp_set_state(c, IXM_TCP_CLOSED);
	ixm_tcp_unhash(c);
	ixm_slot_put(&c->slot);
	c->flags = 0;
	c->evpend = 0;
	c->next = t->free;
	t->free = ixm_tcp_idx(c);
	t->stats.conns--;
}

/**
 * ixm_tcp_mark_pending() - have ixm_tcp_poll() run the connection's output
 * @c: the connection
 */
void ixm_tcp_mark_pending(struct ixm_tcp_conn *c)
{
	if (c->flags & IXM_TCPF_PENDING)
		return;
	c->flags |= IXM_TCPF_PENDING;
	c->pnext = c->table->pending;
	c->table->pending = ixm_tcp_idx(c);
}

/**
 * ixm_tcp_done() - the connection is over
 * @c: the connection
 * @err: 0 for an orderly end, else the -errno the application sees
 *
 * Moves it to CLOSED, stops its timers, and announces TCP_DEAD (if the
 * application knows the connection); the slot goes once that is posted
 * and the application holds none of its buffers.
 */
void ixm_tcp_done(struct ixm_tcp_conn *c, int err)
{
	struct ixm_tcp_table *t = c->table;

	ixm_timer_cancel(&t->wheel, &c->timer);
	ixm_timer_cancel(&t->wheel, &c->delack);
	if (c->state == IXM_TCP_TIME_WAIT)
		ixm_tcp_tw_unlink(c);
	ixm_tcp_set_state(c, IXM_TCP_CLOSED);
	/*
	 * Nothing of the 4-tuple reaches it again: a segment of it goes
	 * where one of no connection goes, and a new SYN to a listener
	 * opens a new connection while the application still holds this
	 * one (RFC 9293 §3.3.2: CLOSED is "no connection state at all";
	 * Linux unhashes a socket in tcp_done()).  Before, the SYN of a
	 * peer that used the port again was answered with a RST.
	 */
	ixm_tcp_unhash(c);
	/*
	 * No data can follow: the out-of-order queue goes now, not when the
	 * application closes its handle (the in-order data stays its own).
	 */
	if (c->ooo)
		t->stats.ooo_purged += ixm_tcp_ooo_purge(c);
	if (c->flags & IXM_TCPF_DEAD_POSTED) {
		ixm_tcp_zombie_check(c);
		return;
	}
	/* unknown to the application: gone without a word */
	if (!(c->flags & (IXM_TCPF_ACCEPTED | IXM_TCPF_KNOCKED)) &&
	    !(c->evpend & (IXM_TCPE_KNOCK | IXM_TCPE_CONNECTED))) {
		ixm_tcp_conn_free(c);
		return;
	}
	c->evpend &= ~IXM_TCPE_KNOCK;	/* never knocked: say nothing */
	if (!(c->flags & (IXM_TCPF_ACCEPTED | IXM_TCPF_KNOCKED)) &&
	    !(c->evpend & IXM_TCPE_CONNECTED)) {
		ixm_tcp_conn_free(c);
		return;
	}
	if (!c->conn_err)
		c->conn_err = err;
	c->zc_gate = c->zc.built;	/* DEAD frees every byte: wait for all */
	c->evpend |= IXM_TCPE_DEAD;
	ixm_tcp_flush_events(c);
}

/**
 * ixm_tcp_enter_time_wait() - the active closer waits out 2 MSL
 * @c: the connection (RFC 9293 §3.6)
 *
 * The table keeps at most IXM_TCP_TW_MAX of them; the oldest goes first.
 */
void ixm_tcp_enter_time_wait(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;
	u32 i = ixm_tcp_idx(c);

	if (c->state == IXM_TCP_TIME_WAIT) {	/* a retransmitted FIN: restart */
		ixm_timer_arm(&t->wheel, &c->timer, t->stack->now_ns + t->cfg.tw_ns);
		return;
	}
	ixm_timer_cancel(&t->wheel, &c->delack);
	ixm_tcp_set_state(c, IXM_TCP_TIME_WAIT);
	c->flags &= ~IXM_TCPF_PERSIST;
	ixm_timer_arm(&t->wheel, &c->timer, t->stack->now_ns + t->cfg.tw_ns);
	c->tw_next = IXM_TCP_NONE;
	c->tw_prev = t->tw_tail;
	if (t->tw_tail != IXM_TCP_NONE)
		t->conns[t->tw_tail].tw_next = i;
	else
		t->tw_head = i;
	t->tw_tail = i;
	t->tw_count++;
	/* the application's part is over */
	if (!(c->flags & IXM_TCPF_DEAD_POSTED)) {
		c->conn_err = 0;
		c->evpend |= IXM_TCPE_DEAD;
		ixm_tcp_flush_events(c);
	}
	if (t->tw_count > IXM_TCP_TW_MAX && t->tw_head != i) {
		t->stats.tw_recycled++;
		ixm_tcp_tw_release(&t->conns[t->tw_head]);
	}
}

/**
 * ixm_tcp_tw_release() - a TIME_WAIT connection's 2 MSL are over, or its
 * slot is wanted
 * @c: the connection, in TIME_WAIT
 *
 * The slot goes, unless the application has not closed the handle yet (it
 * shut the connection down and was told DEAD): then the connection leaves
 * TIME_WAIT for CLOSED and lives until that close (ixm_tcp_zombie_check()).
 */
void ixm_tcp_tw_release(struct ixm_tcp_conn *c)
{
	if ((c->flags & (IXM_TCPF_ACCEPTED | IXM_TCPF_CLOSED_APP)) == IXM_TCPF_ACCEPTED)
		ixm_tcp_done(c, 0);
	else
		ixm_tcp_conn_free(c);
}

/* Does @c hold a buffer of @pool, received in order or out of order? */
static bool ixm_tcp_holds_pool(const struct ixm_tcp_conn *c,
			       const struct ixm_mbuf_pool *pool)
{
	const struct ixm_mbuf *m;

	for (m = c->rcvq; m; m = m->next)
		if (m->pool == pool)
			return true;
	for (m = c->ooo; m; m = m->next)
		if (m->pool == pool)
			return true;
	return false;
}

/**
 * ixm_tcp_pool_gone() - a pool is about to be freed: let go of its buffers
 * @t: the core's table
 * @pool: the pool of a port that went away (still allocated)
 *
 * Every connection that holds a buffer of @pool came through the port
 * that went away; it cannot send there any more, so it ends without a
 * RST.  Its buffers go back to @pool.  A connection of a dead context is
 * freed at once (no event can reach that context); one of a live context
 * ends with TCP_DEAD -ENETDOWN after the events it is owed, and as it
 * holds no buffer any more its slot goes once that is posted (its handle
 * is stale then: recv_done and close get -EBADF).  Afterwards no
 * connection points into @pool.
 *
 * Context: the core's dataplane thread, with @pool no longer among the
 * core's ports (nothing receives into it any more).
 */
void ixm_tcp_pool_gone(struct ixm_tcp_table *t, const struct ixm_mbuf_pool *pool)
{
	u32 i;

	for (i = 0; i < IXM_TCP_CONNS; i++) {
		struct ixm_tcp_conn *c = &t->conns[i];

		if (!c->app || !ixm_tcp_holds_pool(c, pool))
			continue;
		ixm_tcp_rcv_purge(c);
		if (c->app->dead) {
			ixm_tcp_conn_free(c);
			continue;
		}
		c->evpend &= ~IXM_TCPE_EOF;	/* its data is gone: no end of it */
		ixm_tcp_done(c, -ENETDOWN);
	}
}

/*
 * Every port's TX batch is full of frames its ring refused: no segment
 * can be queued, so the pending connections wait as they are rather than
 * each trying (and marking itself pending again) on every pass of a core
 * that waits for the ring.
 */
static bool ixm_tcp_tx_blocked(const struct ixm_stack *st)
{
	unsigned int i;

	for (i = 0; i < st->nports; i++) {
		if (st->ports[i]->ntx < IXM_TX_BATCH)
			return false;
	}
	return st->nports;
}

/**
 * ixm_tcp_poll() - the core's TCP work of one iteration
 * @st: the core's protocol state
 *
 * Runs the timers that are due, then every connection with output or
 * events pending (ACKs coalesced over the iteration, data a full TX batch
 * held back, events a full ring held back); those wait while every
 * port's batch is full.
 *
 * Context: the core's dataplane thread, after the receive batch and the
 * calls, before the TX batch goes to the NIC.
 */
void ixm_tcp_poll(struct ixm_stack *st)
{
	struct ixm_tcp_table *t = st->tcp;
	u32 i;

	if (!t)
		return;
	ixm_timer_run(&t->wheel, st->now_ns);
	if (unlikely(ixm_tcp_tx_blocked(st)))
		return;
	i = t->pending;
	t->pending = IXM_TCP_NONE;
	while (i != IXM_TCP_NONE) {
		struct ixm_tcp_conn *c = &t->conns[i];

		i = c->pnext;
		c->pnext = IXM_TCP_NONE;
		c->flags &= ~IXM_TCPF_PENDING;
		if (!c->app)
			continue;
		ixm_tcp_output(c);
		if (c->app)
			ixm_tcp_flush_events(c);
	}
	/* held TCP_SENTs go with the events their contexts get anyway */
	if (t->sent_nheld) {
		struct ixm_app *app;

		ixm_stack_for_each_app(app, st) {
			if (app->dirty) {
				ixm_tcp_sent_release(t, false);
				break;
			}
		}
	}
}
