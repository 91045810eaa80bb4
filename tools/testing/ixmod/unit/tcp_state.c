// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_state.c - TCP's state machine, one crafted segment at a time
 *
 * One host (testnet.h: 198.18.0.1, a context on its core) and a peer,
 * 198.18.0.2, that is the test itself: it builds each segment byte by
 * byte (frames.h, checksums from ref.h), hands it to ixm_eth_input() and
 * reads back, with tcp_parse(), every frame the host queues, and every
 * event its context gets.  The application's side is the real call ring.
 *
 * Each test states what RFC 9293 (and RFC 5961, 6298, 7323, 4987, 5681)
 * says must be seen on the wire or in the events: the numbers in a
 * SYN-ACK, an RST, a challenge ACK; when a retransmission, a probe, a
 * delayed ACK or a window update goes out; which event arrives.  The
 * connection's internals are looked at only where nothing outside shows
 * a state (CLOSING, TIME_WAIT's length) or to explain a failure.
 *
 * The peer's ISN is near 2^32, so every connection's sequence numbers
 * wrap, and the clock starts at 1000 s so that a time taken from 0 by
 * mistake shows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "harness.h"
#include "testnet.h"

#define H_IP		TN_IP(1)	/* the host under test */
#define P_IP		TN_IP(2)	/* the peer the test plays */
#define H_PORT		80
#define P_PORT		40000
#define P_ISS		0xffffff00u	/* the peer's ISN: its numbers wrap */
#define ARENA		(1u << 20)
#define MS		1000000ULL	/* ns */
#define T0		(1000 * 1000 * MS)	/* the clock at the start */

/* Options the peer puts on its SYN or SYN-ACK */
#define O_MSS		0x1
#define O_WS		0x2
#define O_TS		0x4
#define O_SACK		0x8
#define O_ALL		(O_MSS | O_WS | O_TS | O_SACK)

#define MAXSEG		IXM_TX_BATCH
#define MAXEV		64

/**
 * struct tc - the host, its context and the peer's view of one connection
 */
struct tc {
	struct tn_host		*h;
	struct tn_app		*a;
	u64			lh;		/* listener handle */
	u64			ch;		/* connection handle */
	u16			hport;		/* the host's port */
	u16			pport;		/* the peer's port */
	u32			snd;		/* the peer's next sequence number */
	u32			rcv;		/* what the peer expects from the host */
	u32			hiss;		/* the host's ISN */
	u32			piss;		/* the peer's ISN */
	int			hws;		/* the host's window scale, 0 if none */
	bool			ts;		/* timestamps agreed */
	u32			tsval;		/* the peer's next TSval */
	u32			tsecr;		/* the host's last TSval */
	u16			pwin;		/* window the peer advertises */
	u8			pws;		/* window scale the peer offers */
	u16			pmss;		/* MSS the peer's SYN or SYN-ACK names */
	struct tcp_seg		seg[MAXSEG];	/* what the host sent in the last run */
	u8			frame[MAXSEG][IXM_MBUF_SIZE];
	unsigned int		nseg;
	unsigned int		nother;		/* frames that were not TCP (ARP) */
	bool			bad;		/* a TCP frame did not parse */
	bool			hold;		/* keep the frames: the NIC is not done */
	struct ixm_mbuf		*held[MAXSEG];	/* frames kept so */
	unsigned int		nheld;
	struct ixmod_event	ev[MAXEV];	/* events of the last run */
	u64			evh[MAXEV];	/* their handles (IXMOD_SETUP_EVENT_EXT) */
	unsigned int		nev;
};

static struct tc T;

static u8 data[65536];		/* the peer's bytes */

static void tc_init_cfg(struct tc *t, const struct ixm_tcp_config *cfg)
{
	struct tn_host_cfg hc = {
		.ip = H_IP, .mac = our_mac, .tcp = cfg, .seed = 7,
	};
	unsigned int i;

	memset(t, 0, sizeof(*t));
	ixm_host_now_ns = T0;
	t->h = tn_host_new(&hc);
	t->a = tn_app_new(t->h, 64, MAXEV, ARENA);
	for (i = 0; i < ARENA; i++)
		t->a->arena[i] = (u8)(i * 31 + i / 251);
	tn_learn(t->h, P_IP, peer_mac);
	t->pport = P_PORT;
	t->piss = P_ISS;
	t->pwin = 65535;
	t->tsval = 5000;
	t->pws = 7;
	t->pmss = 1460;
}

static void tc_init(struct tc *t)
{
	tc_init_cfg(t, NULL);
}

static void tc_fini(struct tc *t)
{
	tn_host_free(t->h);
}

/*
 * The host's iteration after the test's input: calls, timers, pending
 * output.  Every frame it queued is read back into @t->seg, every event
 * into @t->ev.
 */
static void tc_run(struct tc *t)
{
	struct tn_host *h = t->h;
	struct ixmod_event_ext x;
	unsigned int i;

	tn_host_run(h);
	t->nseg = 0;
	t->nother = 0;
	for (i = 0; i < h->port.ntx; i++) {
		const struct ixm_mbuf *m = h->port.tx[i];
		struct tcp_seg *s = &t->seg[t->nseg];
		const char *err;

		size_t len;

		if (m->len >= 14 && get16(m->data + 12) == 0x0806) {
			t->nother++;
			continue;
		}
		len = frame_gather(m, t->frame[t->nseg], sizeof(t->frame[0]));
		err = len ? tcp_parse(t->frame[t->nseg], len, s) : "frame too long";
		if (!err)
			err = check_tx(&h->cfg, m);
		if (err) {
			ixm_diag("the host sent a bad frame: %s", err);
			t->bad = true;
			continue;
		}
		if (s->has_ts)
			t->tsecr = s->tsval;
		t->nseg++;
	}
	if (t->hold) {		/* the device still reads them */
		for (i = 0; i < h->port.ntx && t->nheld < MAXSEG; i++)
			t->held[t->nheld++] = h->port.tx[i];
		h->port.ntx = 0;
	}
	tn_tx_flush(h);
	t->nev = 0;
	while (t->nev < MAXEV && tn_app_event_ext(t->a, &x)) {
		t->evh[t->nev] = x.handle;
		t->ev[t->nev++] = x.ev;
	}
}

static void tc_advance(struct tc *t, u64 ns)
{
	ixm_host_now_ns += ns;
	tc_run(t);
}

/* Let time pass in @step_ns steps until the host sends something; the wait, or 0. */
static u64 tc_wait_seg(struct tc *t, u64 max_ns, u64 step_ns)
{
	u64 waited;

	for (waited = step_ns; waited <= max_ns; waited += step_ns) {
		tc_advance(t, step_ns);
		if (t->nseg)
			return waited;
	}
	return 0;
}

/* Let time pass until the host sends something or posts an event; the wait, or 0. */
static u64 tc_wait_any(struct tc *t, u64 max_ns, u64 step_ns)
{
	u64 waited;

	for (waited = step_ns; waited <= max_ns; waited += step_ns) {
		tc_advance(t, step_ns);
		if (t->nseg || t->nev)
			return waited;
	}
	return 0;
}

/* Let time pass until an event of @type comes; the wait, or 0.  Segments are dropped. */
static u64 tc_wait_ev(struct tc *t, u8 type, u64 max_ns, u64 step_ns)
{
	u64 waited;
	unsigned int i;

	for (waited = step_ns; waited <= max_ns; waited += step_ns) {
		tc_advance(t, step_ns);
		for (i = 0; i < t->nev; i++)
			if (t->ev[i].type == type)
				return waited;
	}
	return 0;
}

/* The first event of @type in the last run, or NULL. */
static const struct ixmod_event *tc_ev(const struct tc *t, u8 type)
{
	unsigned int i;

	for (i = 0; i < t->nev; i++)
		if (t->ev[i].type == type)
			return &t->ev[i];
	return NULL;
}

static unsigned int tc_nev(const struct tc *t, u8 type)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->nev; i++)
		n += t->ev[i].type == type;
	return n;
}

/* A call through the ring; its EV_CALL's res, or 0 if it was answered with none. */
static int tc_call(struct tc *t, const struct ixmod_call *c)
{
	const struct ixmod_event *ev;

	tn_app_submit(t->a, c);
	tc_run(t);
	ev = tc_ev(t, IXMOD_EV_CALL);
	return ev ? ev->res : 0;
}

/* A segment from the peer, with @opts on a SYN or timestamps once agreed. */
static void tc_seg(struct tc *t, u8 flags, u32 seq, u32 ack, const u8 *d, size_t n,
		   unsigned int opts)
{
	static u8 f[IXM_MBUF_SIZE];
	struct tcp_args a = {
		.src = P_IP, .dst = H_IP, .sport = t->pport, .dport = t->hport,
		.seq = seq, .ack = ack, .flags = flags, .win = t->pwin,
		.data = d, .dlen = n,
	};
	u8 o[40];
	size_t olen = 0;

	if (flags & TH_SYN) {
		if (opts & O_MSS)
			olen += tcpopt_mss(o + olen, t->pmss);
		if (opts & O_WS)
			olen += tcpopt_wscale(o + olen, t->pws);
		if (opts & O_SACK)
			olen += tcpopt_sack_ok(o + olen);
		if (opts & O_TS)
			olen += tcpopt_ts(o + olen, t->tsval++,
					  flags & TH_ACK ? t->tsecr : 0);
	} else if (t->ts) {
		olen += tcpopt_ts(o + olen, t->tsval++, t->tsecr);
	}
	a.opts = o;
	a.optlen = olen;
	tn_input(t->h, f, tcp_frame(f, our_mac, peer_mac, &a), 0);
	tc_run(t);
}

/* The peer's next segment in sequence; its sequence space is consumed. */
static void tc_send(struct tc *t, u8 flags, const u8 *d, size_t n)
{
	u32 seq = t->snd;

	t->snd += (u32)n + !!(flags & TH_SYN) + !!(flags & TH_FIN);
	tc_seg(t, flags, seq, t->rcv, d, n, 0);
}

static bool seg_is(const struct tcp_seg *s, u8 flags, u32 seq, u32 ack, size_t dlen)
{
	if (s->flags == flags && s->seq == seq && (!(flags & TH_ACK) || s->ack == ack) &&
	    s->dlen == dlen)
		return true;
	ixm_diag("segment: flags %#x seq %u ack %u len %zu; want flags %#x seq %u ack %u len %zu",
		 s->flags, s->seq, s->ack, s->dlen, flags, seq, ack, dlen);
	return false;
}

/* Exactly one segment went out and it is this one. */
static bool one_seg(const struct tc *t, u8 flags, u32 seq, u32 ack, size_t dlen)
{
	if (t->nseg != 1) {
		ixm_diag("%u segments sent, want 1", t->nseg);
		if (t->nseg)
			seg_is(&t->seg[0], flags, seq, ack, dlen);
		return false;
	}
	return seg_is(&t->seg[0], flags, seq, ack, dlen);
}

/* The ACK the host sends now: no data, its next sequence number, our next one. */
static bool is_ack(const struct tc *t)
{
	return one_seg(t, TH_ACK, t->rcv, t->snd, 0);
}

static u32 host_win(const struct tc *t, const struct tcp_seg *s)
{
	return (u32)s->win << t->hws;
}

static struct ixm_tcp_stats *stats(struct tc *t)
{
	return &t->h->tcp->stats;
}

/* The connection behind @t->ch, for what nothing outside shows. */
static struct ixm_tcp_conn *conn(struct tc *t)
{
	u32 idx = ixm_handle_idx(t->ch);

	return idx < IXM_TCP_CONNS ? &t->h->tcp->conns[idx] : NULL;
}

static const char *state(struct tc *t)
{
	struct ixm_tcp_conn *c = conn(t);

	return c && c->state < IXM_TCP_NSTATES ? ixm_tcp_state_names[c->state] : "?";
}

/*
 * Passive open on H_PORT with a SYN carrying @opts: LISTEN, SYN, SYN-ACK,
 * ACK, KNOCK, ACCEPT.  @t->ch is the accepted connection (cookie 0xc0).
 */
static bool tc_passive(struct tc *t, unsigned int opts)
{
	struct ixmod_call c = tn_call_listen(H_PORT, 16, 0x11);
	const struct ixmod_event *ev;
	const struct tcp_seg *s;

	t->hport = H_PORT;
	ev = tc_call(t, &c) ? NULL : tc_ev(t, IXMOD_EV_CALL);
	if (!ev) {
		ixm_diag("listen failed");
		return false;
	}
	t->lh = ev->handle;
	t->snd = t->piss;
	tc_seg(t, TH_SYN, t->snd, 0, NULL, 0, opts);
	t->snd++;
	if (t->nseg != 1 || t->seg[0].flags != (TH_SYN | TH_ACK)) {
		ixm_diag("no SYN-ACK (%u segments)", t->nseg);
		return false;
	}
	s = &t->seg[0];
	t->hiss = s->seq;
	t->rcv = s->seq + 1;
	t->hws = s->wscale > 0 ? s->wscale : 0;
	t->ts = s->has_ts;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_KNOCK);
	if (!ev || t->nseg) {
		ixm_diag("no knock after the handshake's ACK (%u segments)", t->nseg);
		return false;
	}
	t->ch = ev->handle;
	c = tn_call_accept(t->ch, 0xc0);
	if (tc_call(t, &c)) {
		ixm_diag("accept failed");
		return false;
	}
	return true;
}

/*
 * Active open to P_IP:P_PORT, the peer answering with @opts: CONNECT,
 * SYN, SYN-ACK, ACK, CONNECTED.  @t->ch is the connection (cookie 0xc0).
 */
static bool tc_active(struct tc *t, unsigned int opts)
{
	struct ixmod_call c = tn_call_connect(P_IP, P_PORT, 0xc0);
	const struct ixmod_event *ev;

	ev = tc_call(t, &c) ? NULL : tc_ev(t, IXMOD_EV_CALL);
	if (!ev || t->nseg != 1) {
		ixm_diag("connect failed or sent no SYN");
		return false;
	}
	t->ch = ev->handle;
	t->hport = t->seg[0].sport;
	t->hiss = t->seg[0].seq;
	t->rcv = t->hiss + 1;
	t->hws = (opts & O_WS) && t->seg[0].wscale > 0 ? t->seg[0].wscale : 0;
	t->snd = t->piss;
	tc_seg(t, TH_SYN | TH_ACK, t->snd, t->rcv, NULL, 0, opts);
	t->snd++;
	t->ts = !!(opts & O_TS);
	ev = tc_ev(t, IXMOD_EV_TCP_CONNECTED);
	if (!ev || ev->res || !is_ack(t)) {
		ixm_diag("no ACK and CONNECTED after the SYN-ACK");
		return false;
	}
	return true;
}

/* The application sends @n bytes of its arena from @off; sendv's res. */
static int tc_sendv(struct tc *t, u32 off, u32 n)
{
	struct ixmod_iov *iov = (struct ixmod_iov *)(t->a->arena + ARENA - 64);
	struct ixmod_call c = tn_call_sendv(t->ch, ARENA - 64, 1, 0x5e);

	iov->off = off;
	iov->len = n;
	return tc_call(t, &c);
}

static int tc_recv_done(struct tc *t, u32 n)
{
	struct ixmod_call c = tn_call_recv_done(t->ch, n);

	return tc_call(t, &c);
}

static int tc_close(struct tc *t, bool abort)
{
	struct ixmod_call c = tn_call_close(t->ch, abort);

	return tc_call(t, &c);
}

/*
 * The handle rule: a connection told DEAD keeps its slot and its handle
 * until the application closes it.  Meanwhile a send answers -EPIPE; the
 * close answers 0 and frees the slot; after it every call is -EBADF, a
 * second close included.  @t->ch is the connection, the only one.
 */
static bool dead_handle_lives_until_close(struct tc *t)
{
	const struct ixm_tcp_stats *st = &t->h->tcp->stats;
	bool ok = true;
	int res;

	if (st->conns != 1) {
		ixm_diag("a dead connection not yet closed: %llu slots in use, not 1",
			 (unsigned long long)st->conns);
		ok = false;
	}
	res = tc_sendv(t, 0, 10);
	if (res != -EPIPE) {
		ixm_diag("send on a dead connection's handle: %d, not -EPIPE", res);
		ok = false;
	}
	res = tc_close(t, false);
	if (res != 0 || st->conns != 0) {
		ixm_diag("its close: %d and %llu slots, not 0 and 0", res,
			 (unsigned long long)st->conns);
		ok = false;
	}
	res = tc_sendv(t, 0, 10);
	if (res != -EBADF) {
		ixm_diag("send after the close: %d, not -EBADF", res);
		ok = false;
	}
	res = tc_close(t, false);
	if (res != -EBADF) {
		ixm_diag("a second close: %d, not -EBADF", res);
		ok = false;
	}
	return ok;
}

/* The bytes a TCP_RECV event names, compared with @want. */
static bool recv_is(struct tc *t, const struct ixmod_event *ev, const u8 *want, u32 n)
{
	const u8 *p;

	if (!ev || ev->type != IXMOD_EV_TCP_RECV || (u32)ev->res != n) {
		ixm_diag("no TCP_RECV of %u bytes (%d)", n, ev ? ev->res : -1);
		return false;
	}
	p = tn_rx_ptr(t->h, ev->off, n);
	if (!p || memcmp(p, want, n)) {
		ixm_diag("TCP_RECV at %u does not hold the bytes sent", ev->off);
		return false;
	}
	return true;
}

/*
 * tcp_state_established: the situation most tests start from, a
 * connection the peer opened with a SYN carrying MSS only, which the host
 * accepted; the set-up asserts the handshake went as tcp_state_passive_open
 * checks it in detail.
 */
FIXTURE(tcp_state_established) {
	struct tc *t;
};

FIXTURE_SETUP(tcp_state_established)
{
	self->t = &T;
	tc_init(self->t);
	ASSERT_TRUE(tc_passive(self->t, O_MSS)) TH_LOG("the handshake");
}

FIXTURE_TEARDOWN(tcp_state_established)
{
	tc_fini(self->t);
}

/*
 * Opening
 */

TEST(tcp_state_passive_open)
{
	struct ixmod_call c;
	const struct ixmod_event *ev;
	const struct tcp_seg *s;
	struct tc *t = &T;
	u64 h;

	tc_init(t);
	t->hport = H_PORT;
	c = tn_call_listen(H_PORT, 16, 0x11);
	ev = tc_call(t, &c) == 0 ? tc_ev(t, IXMOD_EV_CALL) : NULL;
	ASSERT_NE(NULL, ev);
	ASSERT_TRUE(ixm_handle_gen(ev->handle));
	EXPECT_EQ(0x11, ev->user_data) TH_LOG("passive: LISTEN answers res 0 with a handle");
	t->lh = ev ? ev->handle : 0;
	EXPECT_EQ(-EADDRINUSE, tc_call(t, &c)) {
		TH_LOG("passive: a second LISTEN of the port: -EADDRINUSE");
	}

	t->snd = P_ISS;
	tc_seg(t, TH_SYN, t->snd, 0, NULL, 0, O_ALL);
	t->snd++;
	s = &t->seg[0];
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ((TH_SYN | TH_ACK), s->flags);
	EXPECT_EQ(P_ISS + 1, s->ack);
	EXPECT_EQ(H_PORT, s->sport);
	EXPECT_EQ(P_PORT, s->dport);
	EXPECT_EQ(H_IP, s->src);
	EXPECT_EQ(P_IP, s->dst);
	EXPECT_EQ(0, memcmp(s->dmac, peer_mac, 6));
	EXPECT_FALSE(s->dlen) {
		TH_LOG("passive: SYN -> SYN-ACK, ack = ISN + 1, to the SYN's addresses and MAC");
	}
	EXPECT_EQ(1, t->nseg);
	ASSERT_TRUE(s->mss);
	EXPECT_LE(s->mss, 1460);
	EXPECT_GE(s->wscale, 0);
	EXPECT_LE(s->wscale, 14);
	ASSERT_TRUE(s->has_ts);
	EXPECT_EQ(t->tsval - 1, s->tsecr) {
		TH_LOG("passive: the SYN-ACK has MSS (%u), window scale (%d) and timestamps echoing TSval",
		       s->mss, s->wscale);
	}
	EXPECT_EQ(1, t->nseg);
	EXPECT_FALSE(s->sack_ok) TH_LOG("passive: SACK-permitted is not answered (no SACK)");
	t->hiss = s->seq;
	t->rcv = s->seq + 1;
	t->hws = s->wscale;
	t->ts = true;
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(1, stats(t)->conns);
	EXPECT_FALSE(stats(t)->established) {
		TH_LOG("passive: no event yet; one connection, not established");
	}

	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_KNOCK);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(0x11, ev->user_data);
	EXPECT_EQ(be32_of(P_IP), ev->addr);
	EXPECT_EQ(ixm_htons(P_PORT), ev->port);
	EXPECT_EQ(ixm_htons(H_PORT), ev->lport);
	EXPECT_TRUE(ixm_handle_gen(ev->handle)) {
		TH_LOG("passive: the ACK -> KNOCK with the listener's cookie, addresses, a handle");
	}
	h = ev ? ev->handle : 0;
	t->ch = h;
	EXPECT_EQ(1, stats(t)->established);
	EXPECT_EQ(1, stats(t)->passive_opens);
	EXPECT_STREQ("ESTABLISHED", state(t)) {
		TH_LOG("passive: ESTABLISHED, counted in established and passive_opens");
	}
	c = tn_call_accept(h, 0xc0);
	EXPECT_EQ(0, tc_call(t, &c));
	EXPECT_FALSE(t->nev) TH_LOG("passive: ACCEPT: no event");
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("passive: a second ACCEPT: -EINVAL");
	c = tn_call_accept(ixm_handle(IXMOD_HANDLE_TCP, ixm_handle_idx(h), ixm_handle_gen(h) + 1),
			   1);
	EXPECT_EQ(-EBADF, tc_call(t, &c)) TH_LOG("passive: ACCEPT of a stale generation: -EBADF");

	tc_send(t, TH_ACK | TH_PSH, data, 10);
	ASSERT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 10));
	EXPECT_EQ(0xc0, tc_ev(t, IXMOD_EV_TCP_RECV)->user_data) {
		TH_LOG("passive: data -> TCP_RECV with the accept's cookie");
	}
	EXPECT_EQ(-EINVAL, tc_recv_done(t, 11)) {
		TH_LOG("passive: RECV_DONE of more than given: -EINVAL");
	}
	EXPECT_EQ(0, tc_recv_done(t, 10)) TH_LOG("passive: RECV_DONE of what was given: 0");
	tc_fini(t);
}

/* a SYN without options: the SYN-ACK offers no option but MSS */
TEST(tcp_state_passive_no_options)
{
	struct tc *t = &T;

	tc_init(t);
	ASSERT_TRUE(tc_passive(t, 0));
	EXPECT_FALSE(t->ts);
	EXPECT_FALSE(t->hws) TH_LOG("passive: SYN without options: connected");
	tc_fini(t);
}

TEST(tcp_state_passive_synack_mss_only)
{
	struct ixmod_call c;
	const struct tcp_seg *s;
	struct tc *t = &T;

	tc_init(t);
	t->hport = H_PORT;
	c = tn_call_listen(H_PORT, 16, 0x11);
	tc_call(t, &c);
	tc_seg(t, TH_SYN, P_ISS, 0, NULL, 0, 0);
	s = &t->seg[0];
	EXPECT_EQ(1, t->nseg);
	ASSERT_TRUE(s->mss);
	EXPECT_LT(s->wscale, 0);
	EXPECT_FALSE(s->has_ts) {
		TH_LOG("passive: to a SYN without options the SYN-ACK has MSS only (RFC 7323 §1.3)");
	}
	tc_fini(t);
}

TEST(tcp_state_active_open)
{
	struct ixmod_call c;
	const struct ixmod_event *ev;
	const struct tcp_seg *s;
	struct tc *t = &T;

	tc_init(t);
	c = tn_call_connect(P_IP, P_PORT, 0xc0);
	ev = tc_call(t, &c) == 0 ? tc_ev(t, IXMOD_EV_CALL) : NULL;
	ASSERT_NE(NULL, ev);
	ASSERT_TRUE(ixm_handle_gen(ev->handle));
	EXPECT_EQ(0xc0, ev->user_data) TH_LOG("active: CONNECT answers res 0 with a handle");
	t->ch = ev ? ev->handle : 0;
	s = &t->seg[0];
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(TH_SYN, s->flags);
	EXPECT_EQ(P_PORT, s->dport);
	EXPECT_GE(s->sport, 32768);
	EXPECT_LE(s->sport, 60999);
	ASSERT_TRUE(s->mss);
	EXPECT_GE(s->wscale, 0);
	ASSERT_TRUE(s->has_ts);
	EXPECT_FALSE(s->dlen);
	EXPECT_EQ(0, memcmp(s->dmac, peer_mac, 6)) {
		TH_LOG("active: a SYN from an ephemeral port, with MSS, window scale, timestamps");
	}
	t->hport = s->sport;
	t->hiss = s->seq;
	t->rcv = s->seq + 1;
	t->hws = s->wscale;
	EXPECT_EQ(1, stats(t)->active_opens);
	EXPECT_FALSE(stats(t)->established);
	EXPECT_EQ(1, t->nev) TH_LOG("active: counted in active_opens, no other event");
	t->snd = P_ISS;
	tc_seg(t, TH_SYN | TH_ACK, t->snd, t->rcv, NULL, 0, O_ALL);
	t->snd++;
	t->ts = true;
	ev = tc_ev(t, IXMOD_EV_TCP_CONNECTED);
	ASSERT_TRUE(is_ack(t));
	ASSERT_TRUE(t->seg[0].has_ts);
	EXPECT_EQ(t->tsval - 1, t->seg[0].tsecr) {
		TH_LOG("active: SYN-ACK -> ACK of its ISN + 1, echoing its TSval");
	}
	ASSERT_NE(NULL, ev);
	EXPECT_FALSE(ev->res);
	EXPECT_EQ(0xc0, ev->user_data);
	EXPECT_EQ(t->ch, ev->handle);
	EXPECT_EQ(1, t->nev);
	EXPECT_EQ(1, stats(t)->established) {
		TH_LOG("active: CONNECTED res 0 with the handle and cookie; established");
	}
	EXPECT_EQ(100, tc_sendv(t, 0, 100));
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, 100));
	EXPECT_EQ(0, memcmp(t->seg[0].data, t->a->arena, 100)) {
		TH_LOG("active: SENDV 100 bytes: res 100, one segment with the arena's bytes");
	}
	tc_fini(t);
}

/* refused */
TEST(tcp_state_active_refused)
{
	struct ixmod_call c;
	struct tc *t = &T;
	u64 h;

	tc_init(t);
	c = tn_call_connect(P_IP, P_PORT, 0xc1);
	tc_call(t, &c);
	h = t->nev ? t->ev[0].handle : 0;
	t->ch = h;
	t->hport = t->seg[0].sport;
	t->rcv = t->seg[0].seq + 1;
	tc_seg(t, TH_RST, 0, 0, NULL, 0, 0);
	EXPECT_FALSE(t->nev);
	EXPECT_FALSE(t->nseg) {
		TH_LOG("active: RST without ACK in SYN-SENT: ignored (RFC 9293 §3.10.7.3)");
	}
	tc_seg(t, TH_RST | TH_ACK, 0, t->rcv + 1, NULL, 0, 0);
	EXPECT_FALSE(t->nev);
	EXPECT_FALSE(t->nseg) {
		TH_LOG("active: RST,ACK with a wrong ack: dropped, no reply (RFC 9293 §3.10.7.3)");
	}
	tc_seg(t, TH_RST | TH_ACK, 0, t->rcv, NULL, 0, 0);
	EXPECT_EQ(2, t->nev);
	EXPECT_EQ(IXMOD_EV_TCP_CONNECTED, t->ev[0].type);
	EXPECT_EQ(-ECONNREFUSED, t->ev[0].res);
	EXPECT_EQ(IXMOD_EV_TCP_DEAD, t->ev[1].type);
	EXPECT_EQ(-ECONNREFUSED, t->ev[1].res);
	EXPECT_EQ(h, t->ev[1].handle);
	EXPECT_EQ(0xc1, t->ev[1].user_data) {
		TH_LOG("active: RST,ACK of the SYN -> CONNECTED -ECONNREFUSED, then DEAD -ECONNREFUSED");
	}
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(1, stats(t)->attempt_fails);
	EXPECT_EQ(1, stats(t)->resets_in) {
		TH_LOG("active: nothing sent back; attempt_fails and resets_in count it");
	}
	EXPECT_TRUE(dead_handle_lives_until_close(t)) TH_LOG("active: refused");
	tc_fini(t);
}

/* a SYN-ACK that acknowledges something else */
TEST(tcp_state_active_synack_bad_ack)
{
	struct ixmod_call c;
	const struct ixmod_event *ev;
	struct tc *t = &T;

	tc_init(t);
	c = tn_call_connect(P_IP, P_PORT, 0xc2);
	tc_call(t, &c);
	t->hport = t->seg[0].sport;
	t->rcv = t->seg[0].seq + 1;
	tc_seg(t, TH_SYN | TH_ACK, P_ISS, t->rcv + 1000, NULL, 0, O_ALL);
	EXPECT_FALSE(t->nev);
	EXPECT_TRUE(one_seg(t, TH_RST, t->rcv + 1000, 0, 0)) {
		TH_LOG("active: SYN-ACK with a bad ACK -> <SEQ=SEG.ACK><RST>, no event");
	}
	tc_seg(t, TH_SYN | TH_ACK, P_ISS, t->rcv, NULL, 0, O_ALL);
	ASSERT_NE(NULL, ev = tc_ev(t, IXMOD_EV_TCP_CONNECTED));
	EXPECT_FALSE(ev->res) TH_LOG("active: the right SYN-ACK afterwards still connects");
	tc_fini(t);
}

/* errors of CONNECT */
TEST(tcp_state_active_connect_errors)
{
	struct ixmod_call c;
	struct tc *t = &T;

	tc_init(t);
	c = tn_call_connect(TN_IP(1) + 0x100, P_PORT, 1);
	EXPECT_EQ(-ENETUNREACH, tc_call(t, &c)) {
		TH_LOG("active: CONNECT off the subnet: -ENETUNREACH");
	}
	c = tn_call_connect(H_IP, P_PORT, 1);
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("active: CONNECT to our own address: -EINVAL");
	c = tn_call_connect(P_IP, 0, 1);
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("active: CONNECT to port 0: -EINVAL");
	tc_fini(t);
}

/* RFC 9293 Figure 8: both send a SYN; each answers the other's with a SYN-ACK. */
TEST(tcp_state_simultaneous_open)
{
	struct ixmod_call c = tn_call_connect(P_IP, P_PORT, 0x51);
	const struct ixmod_event *ev;
	struct tc *t = &T;

	tc_init(t);
	tc_call(t, &c);
	t->ch = t->nev ? t->ev[0].handle : 0;
	t->hport = t->seg[0].sport;
	t->hiss = t->seg[0].seq;
	t->snd = P_ISS;
	tc_seg(t, TH_SYN, t->snd, 0, NULL, 0, O_MSS);
	t->snd++;
	t->rcv = t->hiss + 1;
	ASSERT_TRUE(one_seg(t, TH_SYN | TH_ACK, t->hiss, P_ISS + 1, 0));
	EXPECT_FALSE(t->nev) {
		TH_LOG("simultaneous open: the peer's SYN in SYN-SENT -> SYN-ACK with our ISN");
	}
	EXPECT_STREQ("SYN_RECV", state(t)) TH_LOG("simultaneous open: SYN-RECEIVED (%s)", state(t));
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_CONNECTED);
	ASSERT_NE(NULL, ev);
	EXPECT_FALSE(ev->res);
	EXPECT_EQ(t->ch, ev->handle);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(t->nseg) {
		TH_LOG("simultaneous open: the peer's ACK of our SYN -> CONNECTED res 0");
	}
	EXPECT_EQ(50, tc_sendv(t, 0, 50));
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, 50)) {
		TH_LOG("simultaneous open: data flows");
	}
	tc_fini(t);
}

/*
 * Closing
 */

/* Both close at once: FIN crosses FIN, CLOSING, then TIME_WAIT (RFC 9293 Figure 13). */
TEST_F(tcp_state_established, simultaneous_close)
{
	const struct ixmod_event *ev;
	struct tc *t = self->t;
	u32 fin;

	EXPECT_EQ(0, tc_close(t, false));
	ASSERT_TRUE(one_seg(t, TH_FIN | TH_ACK, t->rcv, t->snd, 0));
	EXPECT_FALSE(t->nev) TH_LOG("simultaneous close: CLOSE -> FIN, no event");
	fin = t->rcv++;
	tc_seg(t, TH_FIN | TH_ACK, t->snd, fin, NULL, 0, 0);
	t->snd++;
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) {
		TH_LOG("simultaneous close: the peer's FIN (not acking ours) -> ACK of it, no event");
	}
	EXPECT_STREQ("CLOSING", state(t)) TH_LOG("simultaneous close: CLOSING (%s)", state(t));
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	EXPECT_FALSE(t->nseg);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(ev->res);
	EXPECT_EQ(0xc0, ev->user_data);
	EXPECT_EQ(t->ch, ev->handle) {
		TH_LOG("simultaneous close: the ACK of our FIN -> DEAD res 0, nothing sent");
	}
	EXPECT_EQ(1, stats(t)->conns);
	EXPECT_FALSE(stats(t)->established) {
		TH_LOG("simultaneous close: the slot stays in TIME_WAIT (%s)", state(t));
	}
	tc_advance(t, t->h->tcp_cfg.tw_ns + MS);
	EXPECT_FALSE(stats(t)->conns);
	EXPECT_FALSE(t->nev);
	EXPECT_FALSE(t->nseg) {
		TH_LOG("simultaneous close: gone after TIME_WAIT, without another event");
	}
}

/*
 * The active closer (of an actively opened connection, with timestamps):
 * FIN-WAIT-1, FIN-WAIT-2, TIME_WAIT for tw_ns, then nothing.
 */
TEST(tcp_state_time_wait)
{
	struct ixm_tcp_config cfg;
	const struct ixmod_event *ev;
	struct tc *t = &T;
	u32 fin, peer_fin;

	ixm_tcp_config_default(&cfg);
	cfg.tw_ns = 10000 * MS;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_active(t, O_ALL)) TH_LOG("the handshake");
	tc_close(t, false);
	ASSERT_TRUE(one_seg(t, TH_FIN | TH_ACK, t->rcv, t->snd, 0));
	EXPECT_TRUE(t->seg[0].has_ts) TH_LOG("TIME_WAIT: CLOSE -> FIN with timestamps");
	fin = t->rcv++;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_FALSE(t->nseg);
	EXPECT_FALSE(t->nev);
	EXPECT_STREQ("FIN_WAIT2", state(t)) {
		TH_LOG("TIME_WAIT: the ACK of our FIN: nothing sent, no event (%s)", state(t));
	}
	peer_fin = t->snd;
	tc_send(t, TH_FIN | TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_TRUE(is_ack(t));
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(ev->res) {
		TH_LOG("TIME_WAIT: the peer's FIN -> ACK and DEAD res 0 (no RECV after CLOSE)");
	}
	EXPECT_EQ(1, stats(t)->conns);
	EXPECT_FALSE(stats(t)->established);
	EXPECT_STREQ("TIME_WAIT", state(t)) {
		TH_LOG("TIME_WAIT: one slot, not established (%s)", state(t));
	}
	EXPECT_EQ(-EBADF, tc_sendv(t, 0, 1)) TH_LOG("TIME_WAIT: the handle is stale: -EBADF");
	tc_advance(t, 5000 * MS);
	tc_seg(t, TH_FIN | TH_ACK, peer_fin, fin + 1, NULL, 0, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) TH_LOG("TIME_WAIT: the peer's FIN again -> ACK again");
	tc_advance(t, cfg.tw_ns - MS);
	EXPECT_EQ(1, stats(t)->conns) TH_LOG("TIME_WAIT: still there tw_ns - 1 ms after that FIN");
	tc_advance(t, 2 * MS);
	EXPECT_FALSE(stats(t)->conns);
	EXPECT_FALSE(t->nev);
	EXPECT_FALSE(t->nseg) TH_LOG("TIME_WAIT: gone at tw_ns, silently");
	tc_seg(t, TH_ACK, t->snd, fin + 1, NULL, 0, 0);
	EXPECT_TRUE(one_seg(t, TH_RST, fin + 1, 0, 0)) {
		TH_LOG("TIME_WAIT: afterwards a segment of the old pair gets RST <SEQ=SEG.ACK>");
	}
	tc_fini(t);
}

/* The peer closes first; we read its FIN and keep sending, then close (LAST-ACK). */
TEST_F(tcp_state_established, half_close)
{
	const struct ixmod_event *ev;
	struct tc *t = self->t;

	memcpy(data, "hello", 5);
	tc_send(t, TH_ACK | TH_PSH | TH_FIN, data, 5);
	EXPECT_EQ(2, t->nev);
	ASSERT_TRUE(recv_is(t, &t->ev[0], data, 5));
	EXPECT_EQ(IXMOD_EV_TCP_RECV, t->ev[1].type);
	EXPECT_FALSE(t->ev[1].res);
	EXPECT_FALSE(t->ev[1].off);
	EXPECT_EQ(0xc0, t->ev[1].user_data) {
		TH_LOG("half-close: data and FIN -> RECV 5, then RECV res 0 (end of stream)");
	}
	EXPECT_TRUE(is_ack(t)) TH_LOG("half-close: the FIN is acknowledged at once");
	EXPECT_STREQ("CLOSE_WAIT", state(t));
	EXPECT_EQ(1, stats(t)->established) {
		TH_LOG("half-close: CLOSE-WAIT, still counted as established");
	}
	EXPECT_EQ(1000, tc_sendv(t, 100, 1000));
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, 1000));
	EXPECT_EQ(0, memcmp(t->seg[0].data, t->a->arena + 100, 1000)) {
		TH_LOG("half-close: we still send: SENDV 1000 -> res 1000, one segment");
	}
	t->rcv += 1000;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(1000, ev->res);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(t->nseg) TH_LOG("half-close: the peer's ACK -> SENT 1000");
	tc_seg(t, TH_ACK | TH_FIN, t->snd - 1, t->rcv, NULL, 0, 0);
	EXPECT_FALSE(t->nev);
	EXPECT_TRUE(is_ack(t)) {
		TH_LOG("half-close: a retransmitted FIN: ACK, no second end of stream");
	}
	EXPECT_EQ(0, tc_recv_done(t, 5));
	EXPECT_EQ(0, tc_close(t, false));
	EXPECT_TRUE(one_seg(t, TH_FIN | TH_ACK, t->rcv, t->snd, 0)) {
		TH_LOG("half-close: CLOSE -> FIN (LAST-ACK)");
	}
	t->rcv++;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_NE(NULL, ev);
	EXPECT_FALSE(ev->res);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(t->nseg);
	EXPECT_FALSE(stats(t)->conns);
	EXPECT_FALSE(stats(t)->established) {
		TH_LOG("half-close: the ACK of our FIN -> DEAD res 0; no TIME_WAIT for the passive closer");
	}
}

/* After CLOSE, a copy of data we already had is acknowledged, not reset. */
TEST_F(tcp_state_established, close_duplicate)
{
	const struct ixmod_event *ev;
	struct tc *t = self->t;
	u32 seq;

	seq = t->snd;
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	tc_close(t, false);
	t->rcv++;
	tc_seg(t, TH_ACK | TH_PSH, seq, t->rcv - 1, data, 100, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) {
		TH_LOG("close: an old duplicate after CLOSE -> ACK, not RST (RFC 9293 §3.10.7.4)");
	}
	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_NE(NULL, ev);
	EXPECT_FALSE(ev->res);
	EXPECT_TRUE(is_ack(t)) TH_LOG("close: then the FIN exchange ends it: DEAD 0");
}

TEST_F(tcp_state_established, close_new_data_resets)
{
	const struct ixmod_event *ev;
	struct tc *t = self->t;

	tc_close(t, false);
	t->rcv++;
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	EXPECT_EQ(1, t->nseg);
	ASSERT_TRUE(t->seg[0].flags & TH_RST);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(-ECONNRESET, ev->res) {
		TH_LOG("close: new data after CLOSE -> RST and DEAD -ECONNRESET (RFC 2525 §2.17)");
	}
}

TEST_F(tcp_state_established, abort)
{
	const struct ixmod_event *ev;
	struct tc *t = self->t;

	tc_send(t, TH_ACK | TH_PSH, data, 100);
	EXPECT_EQ(0, tc_close(t, true));
	EXPECT_TRUE(one_seg(t, TH_RST | TH_ACK, t->rcv, t->snd, 0)) {
		TH_LOG("abort: CLOSE with ABORT -> RST <SEQ=SND.NXT>");
	}
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(-ECONNABORTED, ev->res);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(stats(t)->conns);
	EXPECT_EQ(t->h->pool.count, t->h->pool.nfree) {
		TH_LOG("abort: DEAD -ECONNABORTED; slot and buffers freed");
	}
}

/*
 * RFC 5961 and the acceptability of segments
 */

TEST_F(tcp_state_established, rst)
{
	const struct ixmod_event *ev;
	struct tc *t = self->t;
	u64 ooo;

	tc_seg(t, TH_RST, t->snd + 1, 0, NULL, 0, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(1, stats(t)->challenge_acks) {
		TH_LOG("RST: in the window but not at RCV.NXT -> challenge ACK (RFC 5961 §3.2)");
	}
	tc_seg(t, TH_RST | TH_ACK, t->snd + 60000, t->rcv, NULL, 0, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) TH_LOG("RST,ACK at the window's far end: challenge ACK too");
	ooo = stats(t)->out_of_window;
	tc_seg(t, TH_RST, t->snd + 200000, 0, NULL, 0, 0);
	tc_seg(t, TH_RST, t->snd - 1, 0, NULL, 0, 0);
	EXPECT_FALSE(t->nseg);
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(ooo + 2, stats(t)->out_of_window) {
		TH_LOG("RST: outside the window (after it, or before RCV.NXT): dropped silently");
	}
	EXPECT_STREQ("ESTABLISHED", state(t)) TH_LOG("RST: none of them touched the connection");
	tc_seg(t, TH_RST, t->snd, 0, NULL, 0, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(-ECONNRESET, ev->res);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(t->ch, ev->handle) {
		TH_LOG("RST at exactly RCV.NXT -> DEAD -ECONNRESET, nothing sent");
	}
	EXPECT_FALSE(stats(t)->established);
	EXPECT_EQ(1, stats(t)->resets_in) TH_LOG("RST: resets_in counted");
	EXPECT_TRUE(dead_handle_lives_until_close(t)) TH_LOG("RST");
}

/*
 * The handle ends with the application's close, not with the connection:
 * a second close or a send right after it is -EBADF, before the FIN is
 * even acknowledged; the connection still closes and DEAD still comes.
 */
TEST_F(tcp_state_established, close_ends_the_handle)
{
	struct tc *t = self->t;

	ASSERT_EQ(0, tc_close(t, false));
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_FIN, t->rcv, t->snd, 0));
	EXPECT_EQ(-EBADF, tc_close(t, false));
	EXPECT_EQ(-EBADF, tc_close(t, true));
	EXPECT_EQ(-EBADF, tc_sendv(t, 0, 10)) {
		TH_LOG("after the close, in FIN-WAIT-1: close, abort and send are -EBADF");
	}
	t->rcv++;
	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	EXPECT_STREQ("TIME_WAIT", state(t));
	EXPECT_EQ(0, tc_ev(t, IXMOD_EV_TCP_DEAD) ? tc_ev(t, IXMOD_EV_TCP_DEAD)->res : -1) {
		TH_LOG("the peer's FIN: TIME_WAIT, and DEAD 0 for the closed handle");
	}
	EXPECT_EQ(-EBADF, tc_close(t, false)) TH_LOG("in TIME_WAIT: -EBADF too");
	tc_wait_any(t, 300 * 1000 * MS, 100 * MS);	/* nothing comes: TIME_WAIT ends */
	EXPECT_EQ(0, stats(t)->conns) TH_LOG("the slot goes with TIME_WAIT's timer");
}

TEST_F(tcp_state_established, syn_challenge)
{
	struct tc *t = self->t;
	u64 ch;

	ch = stats(t)->challenge_acks;
	tc_seg(t, TH_SYN, t->snd + 100, 0, NULL, 0, O_MSS);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(ch + 1, stats(t)->challenge_acks) {
		TH_LOG("SYN in ESTABLISHED, in window -> challenge ACK (RFC 5961 §4.2)");
	}
	tc_seg(t, TH_SYN, t->snd, 0, NULL, 0, O_MSS);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) TH_LOG("SYN at exactly RCV.NXT -> challenge ACK, no reset");
	tc_seg(t, TH_SYN, P_ISS, 0, NULL, 0, O_MSS);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) TH_LOG("the original SYN again -> ACK");
	tc_seg(t, TH_ACK, t->snd, t->rcv + 10, NULL, 0, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) {
		TH_LOG("an ACK of bytes never sent -> challenge ACK, dropped (RFC 5961 §5.2)");
	}
	tc_send(t, TH_ACK | TH_PSH, data, 20);
	ASSERT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 20));
	EXPECT_STREQ("ESTABLISHED", state(t)) {
		TH_LOG("challenges: the connection is unharmed, data flows");
	}
}

TEST_F(tcp_state_established, out_of_window)
{
	struct tc *t = self->t;
	u32 seq;
	u64 ow;

	ow = stats(t)->out_of_window;
	tc_seg(t, TH_ACK | TH_PSH, t->snd + 70000, t->rcv, data, 100, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(ow + 1, stats(t)->out_of_window) {
		TH_LOG("data beyond the window -> ACK, dropped, out_of_window counted");
	}
	seq = t->snd;
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	tc_recv_done(t, 100);
	tc_seg(t, TH_ACK | TH_PSH, seq, t->rcv, data, 100, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(1, stats(t)->dup_data) {
		TH_LOG("an exact duplicate -> ACK, dropped, counted in dup_data (%llu)",
		       stats(t)->dup_data);
	}
	tc_seg(t, TH_ACK | TH_PSH, seq - 50, t->rcv, data, 50, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) TH_LOG("data all before RCV.NXT -> ACK, dropped");
	tc_seg(t, TH_ACK | TH_PSH, seq + 50, t->rcv, data + 50, 100, 0);
	EXPECT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data + 100, 50)) {
		TH_LOG("a segment overlapping RCV.NXT: only its new bytes are delivered");
	}
	EXPECT_EQ(t->h->pool.count - 1, t->h->pool.nfree) {
		TH_LOG("dropped segments' buffers are back in the pool");
	}
}

TEST(tcp_state_paws)
{
	struct tc *t = &T;

	tc_init(t);
	t->tsval = 1000;
	ASSERT_TRUE(tc_passive(t, O_MSS | O_TS)) TH_LOG("the handshake");
	t->tsval = 2000;
	tc_send(t, TH_ACK | TH_PSH, data, 10);
	EXPECT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 10)) {
		TH_LOG("PAWS: TSval 2000 accepted");
	}
	t->tsval = 1500;
	tc_seg(t, TH_ACK | TH_PSH, t->snd, t->rcv, data + 10, 10, 0);
	EXPECT_FALSE(t->nev);
	ASSERT_TRUE(is_ack(t));
	EXPECT_EQ(1, stats(t)->paws_drops) {
		TH_LOG("PAWS: new data with an older TSval (1500) -> ACK, dropped (RFC 7323 §5.3)");
	}
	t->tsval = 2001;
	tc_send(t, TH_ACK | TH_PSH, data + 10, 10);
	ASSERT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data + 10, 10));
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(2001, t->seg[0].tsecr) {
		TH_LOG("PAWS: the same data with TSval 2001 is taken, and 2001 echoed");
	}
	tc_fini(t);
}

/* RFC 9293 §3.10.7.1: the RST for a segment that belongs to no connection. */
TEST(tcp_state_no_connection)
{
	struct ixmod_call c;
	struct tc *t = &T;
	u64 out;

	tc_init(t);
	t->hport = 81;
	tc_seg(t, TH_ACK, 1000, 5000, NULL, 0, 0);
	ASSERT_TRUE(one_seg(t, TH_RST, 5000, 0, 0));
	EXPECT_EQ(81, t->seg[0].sport);
	EXPECT_EQ(P_PORT, t->seg[0].dport);
	EXPECT_EQ(P_IP, t->seg[0].dst);
	EXPECT_EQ(0, memcmp(t->seg[0].dmac, peer_mac, 6)) {
		TH_LOG("no connection: an ACK -> <SEQ=SEG.ACK><CTL=RST> back to its sender");
	}
	tc_seg(t, TH_SYN, 7000, 0, NULL, 0, O_MSS);
	EXPECT_TRUE(one_seg(t, TH_RST | TH_ACK, 0, 7001, 0)) {
		TH_LOG("no connection: a SYN -> <SEQ=0><ACK=SEG.SEQ+1><CTL=RST,ACK>");
	}
	tc_seg(t, TH_PSH | TH_FIN, 9000, 0, data, 10, 0);
	EXPECT_TRUE(one_seg(t, TH_RST | TH_ACK, 0, 9011, 0)) {
		TH_LOG("no connection: 10 bytes and FIN without ACK -> ack = SEG.SEQ + 11");
	}
	out = stats(t)->resets_out;
	tc_seg(t, TH_RST, 1000, 0, NULL, 0, 0);
	tc_seg(t, TH_RST | TH_ACK, 1000, 5000, NULL, 0, 0);
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(out, stats(t)->resets_out) TH_LOG("no connection: an RST is not answered");
	EXPECT_GE(stats(t)->no_conn, 3);
	EXPECT_GE(t->h->stats.drops[IXM_DROP_TCP_NO_SOCK], 3);
	EXPECT_EQ(t->h->pool.count, t->h->pool.nfree) {
		TH_LOG("no connection: counted (no_conn, tcp_no_sock); buffers back");
	}
	c = tn_call_listen(81, 4, 1);
	tc_call(t, &c);
	tc_seg(t, TH_ACK, 1000, 5000, NULL, 0, 0);
	ASSERT_TRUE(one_seg(t, TH_RST, 5000, 0, 0));
	EXPECT_FALSE(t->nev) TH_LOG("LISTEN: an ACK that opens nothing -> <SEQ=SEG.ACK><CTL=RST>");
	tc_seg(t, TH_ACK | TH_SYN, 1000, 5000, NULL, 0, O_MSS);
	ASSERT_TRUE(one_seg(t, TH_RST, 5000, 0, 0));
	EXPECT_FALSE(t->nev) TH_LOG("LISTEN: a SYN-ACK -> <SEQ=SEG.ACK><CTL=RST>");
	tc_fini(t);
}

/* RFC 4987 §3.6: a SYN beyond the backlog is answered from a cookie. */
TEST(tcp_state_syncookies)
{
	struct ixmod_call c = tn_call_listen(H_PORT, 1, 0x11);
	const struct ixmod_event *ev;
	struct tc *t = &T;
	unsigned int i;
	u32 cookie;
	bool ok;

	tc_init(t);
	EXPECT_EQ(1, t->h->tcp_cfg.syncookies) {
		TH_LOG("cookies: the default is 1 (when the backlog is full)");
	}
	t->hport = H_PORT;
	tc_call(t, &c);
	t->pport = 40000;
	tc_seg(t, TH_SYN, P_ISS, 0, NULL, 0, O_ALL);
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ((TH_SYN | TH_ACK), t->seg[0].flags);
	ASSERT_TRUE(t->seg[0].has_ts);
	EXPECT_FALSE(stats(t)->syncookies_sent);
	EXPECT_EQ(1, stats(t)->conns) {
		TH_LOG("cookies: the first SYN (backlog 1) gets a stateful SYN-ACK");
	}
	t->pport = 40001;
	tc_seg(t, TH_SYN, P_ISS, 0, NULL, 0, O_ALL);
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ((TH_SYN | TH_ACK), t->seg[0].flags);
	EXPECT_EQ(P_ISS + 1, t->seg[0].ack);
	ASSERT_TRUE(t->seg[0].mss);
	EXPECT_LT(t->seg[0].wscale, 0);
	EXPECT_FALSE(t->seg[0].has_ts);
	EXPECT_EQ(1, stats(t)->syncookies_sent);
	EXPECT_EQ(1, stats(t)->conns) {
		TH_LOG("cookies: the second gets a SYN-ACK with MSS only, and no slot");
	}
	cookie = t->seg[0].seq;
	t->pport = 40002;
	tc_seg(t, TH_SYN, P_ISS, 0, NULL, 0, O_MSS);
	t->ts = false;
	tc_seg(t, TH_ACK, P_ISS + 1, t->seg[0].seq + 1 + 0x100, NULL, 0, 0);
	EXPECT_EQ(1, t->nseg);
	ASSERT_TRUE(t->seg[0].flags & TH_RST);
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(1, stats(t)->syncookies_bad);
	EXPECT_EQ(1, stats(t)->conns) {
		TH_LOG("cookies: an ACK with a wrong cookie: RST, syncookies_bad, no connection");
	}
	t->pport = 40003;
	tc_seg(t, TH_ACK, P_ISS + 1, cookie + 1, NULL, 0, 0);
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(2, stats(t)->syncookies_bad);
	EXPECT_EQ(1, stats(t)->conns) TH_LOG("cookies: another pair's cookie does not validate");
	t->pport = 40001;
	for (i = 1, ok = true; i < 8; i++) {
		tc_seg(t, TH_ACK, P_ISS + 1, (cookie ^ i << 24) + 1, NULL, 0, 0);
		ok &= t->nseg == 1 && (t->seg[0].flags & TH_RST) && !t->nev;
	}
	ASSERT_TRUE(ok);
	EXPECT_EQ(2 + 7, stats(t)->syncookies_bad);
	EXPECT_EQ(1, stats(t)->conns) {
		TH_LOG("cookies: the MSS index (bits 24-26) is under the hash: each of its 7 changes fails");
	}
	t->rcv = cookie + 1;
	t->snd = P_ISS + 1;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_KNOCK);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(ixm_htons(40001), ev->port);
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(1, stats(t)->syncookies_ok);
	EXPECT_EQ(2, stats(t)->conns) {
		TH_LOG("cookies: the ACK of the cookie opens the connection: KNOCK, syncookies_ok");
	}
	t->ch = ev ? ev->handle : 0;
	c = tn_call_accept(t->ch, 0xc0);
	tc_call(t, &c);
	tc_send(t, TH_ACK | TH_PSH, data, 300);
	EXPECT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 300)) {
		TH_LOG("cookies: data on it arrives");
	}
	EXPECT_GT(tc_sendv(t, 0, 3000), 0);
	EXPECT_GE(t->nseg, 1);
	EXPECT_EQ(cookie + 1, t->seg[0].seq);
	EXPECT_LE(t->seg[0].dlen, 1460) {
		TH_LOG("cookies: it sends from the cookie's ISN + 1, within the cookie's MSS");
	}
	/* each of the eight MSS values: it comes back, and no other index validates */
	for (i = 0, ok = true; i < 8; i++) {
		static const u16 mss[8] = { 536, 1000, 1200, 1300, 1360, 1400, 1440, 1460 };
		struct ixm_tcp_table *tt = t->h->tcp;
		__be32 la = be32_of(H_IP), ra = be32_of(P_IP);
		__be16 lp = ixm_htons(H_PORT), rp = ixm_htons(40009);
		u32 ck = ixm_tcp_cookie_make(tt, la, lp, ra, rp, 1234, mss[i], T0);
		unsigned int x;

		ok &= ixm_tcp_cookie_check(tt, la, lp, ra, rp, 1234, ck, T0) == mss[i];
		for (x = 1; x < 8; x++)
			ok &= !ixm_tcp_cookie_check(tt, la, lp, ra, rp, 1234, ck ^ x << 24, T0);
	}
	EXPECT_TRUE(ok) {
		TH_LOG("cookies: for each of the 8 MSS values the cookie gives it back; 56 index changes fail");
	}
	tc_fini(t);
}

/*
 * Sending
 */

TEST(tcp_state_sendv_window)
{
	const struct ixmod_event *ev;
	struct tc *t = &T;
	u32 sent, i, win;
	int res;

	tc_init(t);
	t->pwin = 10000;
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	res = tc_sendv(t, 0, 20000);
	for (sent = 0, i = 0; i < t->nseg; i++)
		sent += t->seg[i].dlen;
	EXPECT_GT(res, 0);
	EXPECT_LE(res, 10000);
	EXPECT_EQ((u32)res, sent) {
		TH_LOG("sendv: 20000 bytes to a window of 10000: res %d, all of it sent now", res);
	}
	ASSERT_TRUE(t->nseg);
	EXPECT_EQ(t->rcv, t->seg[0].seq);
	EXPECT_LE(t->seg[0].dlen, 1460);
	EXPECT_EQ(0, memcmp(t->seg[0].data, t->a->arena, t->seg[0].dlen)) {
		TH_LOG("sendv: the segments carry the arena's bytes in MSS-sized pieces");
	}
	t->rcv += (u32)res;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	win = ev ? ev->win : 0;
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(res, ev->res);
	EXPECT_GT(win, 0);
	EXPECT_LE(win, 10000);
	EXPECT_EQ(0xc0, ev->user_data) TH_LOG("sendv: the ACK -> SENT res %d, win %u", res, win);
	res = tc_sendv(t, (u32)res, 20000);
	EXPECT_EQ(win, (u64)res) TH_LOG("sendv: the next SENDV takes exactly SENT's win");
	t->rcv += (u32)res;
	while (res == (int)win && t->rcv - t->hiss - 1 < 10000) {
		tc_send(t, TH_ACK, NULL, 0);
		ev = tc_ev(t, IXMOD_EV_TCP_SENT);
		win = ev ? ev->win : 0;
		res = tc_sendv(t, t->rcv - t->hiss - 1, win + 1);
		t->rcv += (u32)res;
	}
	res = tc_sendv(t, 0, 1000);
	EXPECT_EQ(0, res);
	EXPECT_GE(stats(t)->window_stalls, 1) {
		TH_LOG("sendv: with the window full: res 0, window_stalls counted");
	}
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev);
	EXPECT_GT(ev->res, 0);
	EXPECT_GT(ev->win, 0) TH_LOG("sendv: the ACK that opens it -> SENT with res and win > 0");
	tc_fini(t);
}

/*
 * Header prediction (ixm_tcp_rcv_fast()): the next in-order segment with
 * only ACK or ACK|PSH takes the short path, window changes included; a
 * closed window, a FIN or a segment out of order take the full one.
 */
TEST(tcp_state_header_prediction)
{
	const struct ixmod_event *ev;
	struct tc *t = &T;
	u64 fast;
	int res;

	tc_init(t);
	t->pwin = 1000;
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	fast = stats(t)->fast_path;
	res = tc_sendv(t, 0, 3000);
	EXPECT_EQ(1000, res) TH_LOG("sendv: a window of 1000 takes 1000 of 3000 bytes");
	/* data that acknowledges nothing new and opens the window */
	t->pwin = 5000;
	tc_send(t, TH_ACK | TH_PSH, data, 10);
	EXPECT_EQ(fast + 1, stats(t)->fast_path);
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_RECV));
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev) TH_LOG("the opened window is announced: sendv wanted more");
	EXPECT_GT(ev->win, 0);
	EXPECT_LE(ev->win, 4000) {
		TH_LOG("header prediction: in-order data, window 1000 -> 5000: SENT win %u",
		       ev->win);
	}
	/* new data and the acknowledgment of ours */
	t->rcv += (u32)res;
	tc_send(t, TH_ACK, data, 10);
	EXPECT_EQ(fast + 2, stats(t)->fast_path);
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_RECV));
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(1000, ev->res) TH_LOG("header prediction: the ACK of 1000 bytes -> SENT 1000");
	/* the full path: a closed window, a FIN */
	t->pwin = 0;
	tc_send(t, TH_ACK, data, 10);
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_RECV));
	t->pwin = 5000;
	tc_send(t, TH_ACK | TH_FIN, data, 10);
	EXPECT_EQ(2, tc_nev(t, IXMOD_EV_TCP_RECV)) TH_LOG("the data, then the end of stream");
	EXPECT_EQ(fast + 2, stats(t)->fast_path) {
		TH_LOG("header prediction: a zero window and a FIN take the full path (%llu)",
		       stats(t)->fast_path - fast);
	}
	tc_fini(t);
}

/* a window that opens with nothing acknowledged */
TEST(tcp_state_sendv_window_update_unacked)
{
	const struct ixmod_event *ev;
	struct tc *t = &T;
	int res;

	tc_init(t);
	t->pwin = 3000;
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	res = tc_sendv(t, 0, 3000);
	EXPECT_EQ(3000, res);
	EXPECT_EQ(0, tc_sendv(t, 3000, 3000)) {
		TH_LOG("sendv: a window of 3000 holding 3000 unacknowledged bytes: res 0");
	}
	t->pwin = 6000;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->res);
	EXPECT_GT(ev->win, 0) {
		TH_LOG("sendv: a window update, nothing acknowledged -> SENT res 0, win %u > 0",
		       ev ? ev->win : 0);
	}
	tc_fini(t);
}

/* SENDV of @n pieces (@off[i], @len[i]); the segment must carry them in order. */
static bool tc_sendv_pieces(struct tc *t, const u32 *off, const u32 *len, unsigned int n)
{
	struct ixmod_iov *iov = (struct ixmod_iov *)(t->a->arena + ARENA - 64);
	struct ixmod_call c = tn_call_sendv(t->ch, ARENA - 64, n, 0x5e);
	static u8 want[IXM_MBUF_SIZE];
	u32 total = 0, i;

	for (i = 0; i < n; i++) {
		iov[i].off = off[i];
		iov[i].len = len[i];
		memcpy(want + total, t->a->arena + off[i], len[i]);
		total += len[i];
	}
	if (tc_call(t, &c) != (int)total || !one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, total) ||
	    memcmp(t->seg[0].data, want, total))
		return false;
	t->rcv += total;
	tc_send(t, TH_ACK, NULL, 0);
	return true;
}

/*
 * The NIC reads a segment's data where it lies: one fragment per arena
 * page (testnet maps no two pages side by side), up to IXM_MBUF_FRAGS;
 * more, and the data is copied.  Odd offsets and lengths keep the
 * checksum honest (tc_run() checks every frame's).
 */
TEST_F(tcp_state_established, sendv_gather)
{
	static const u32 off1[] = { 4096 - 701 }, len1[] = { 1400 };
	static const u32 off4[] = { 8192 + 5, 3 * 4096 + 77, 4096 + 1, 7 * 4096 + 4000 },
			 len4[] = { 101, 33, 77, 96 };
	static const u32 off5[] = { 9 * 4096, 11 * 4096 + 1, 13 * 4096, 15 * 4096, 17 * 4096 },
			 len5[] = { 100, 99, 100, 100, 100 };
	/* 6 pieces in a row on one page, then one on the next: 2 fragments */
	static const u32 off6[] = { 20 * 4096 + 3000, 20 * 4096 + 3101, 20 * 4096 + 3200,
				    20 * 4096 + 3333, 20 * 4096 + 3500, 20 * 4096 + 3900,
				    21 * 4096 },
			 len6[] = { 101, 99, 133, 167, 400, 196, 50 };
	const struct ixm_tcp_stats *st;
	struct tc *t = self->t;
	u64 zc, cp;

	st = &t->h->tcp->stats;
	zc = st->tx_zerocopy;
	cp = st->tx_copied;
	ASSERT_TRUE(tc_sendv_pieces(t, off1, len1, 1));
	EXPECT_EQ(zc + 1, st->tx_zerocopy);
	EXPECT_EQ(cp, st->tx_copied) {
		TH_LOG("gather: 1400 bytes across a page boundary go out in place");
	}
	ASSERT_TRUE(tc_sendv_pieces(t, off4, len4, 4));
	EXPECT_EQ(zc + 2, st->tx_zerocopy);
	EXPECT_EQ(cp, st->tx_copied) {
		TH_LOG("gather: 4 pieces of odd lengths on 4 pages go out in place");
	}
	ASSERT_TRUE(tc_sendv_pieces(t, off5, len5, 5));
	EXPECT_EQ(zc + 2, st->tx_zerocopy);
	EXPECT_EQ(cp + 1, st->tx_copied) {
		TH_LOG("gather: 5 pieces on 5 pages need too many fragments: copied");
	}
	ASSERT_TRUE(tc_sendv_pieces(t, off6, len6, 7));
	EXPECT_EQ(zc + 3, st->tx_zerocopy);
	EXPECT_EQ(cp + 1, st->tx_copied) {
		TH_LOG("gather: 7 pieces, 6 of them in a row on one page: 2 fragments, in place");
	}
	tn_app_copy_only(t->a, true);
	ASSERT_TRUE(tc_sendv_pieces(t, off1, len1, 1));
	EXPECT_EQ(zc + 3, st->tx_zerocopy);
	EXPECT_EQ(cp + 2, st->tx_copied) {
		TH_LOG("gather: no mapping of the arena for the port: copied");
	}
	EXPECT_EQ(0, t->a->txmap.inflight) TH_LOG("gather: no frame reads the arena once sent");
}

/* The handle the first event of @type in the last run carried; 0 if none. */
static u64 tc_evh(const struct tc *t, u8 type)
{
	unsigned int i;

	for (i = 0; i < t->nev; i++)
		if (t->ev[i].type == type)
			return t->evh[i];
	return 0;
}

/*
 * With IXMOD_SETUP_EVENT_EXT every event of a connection names it, the
 * ones whose 32 bytes hold no handle (RECV, SENT) too; without it the
 * extension reads as zero.
 */
TEST(tcp_state_event_ext)
{
	struct tc *t = &T;

	tc_init(t);
	tn_app_set_event_ext(t->a, true);
	ASSERT_TRUE(tc_passive(t, O_MSS));
	EXPECT_TRUE(t->ch);
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	EXPECT_EQ(t->ch, tc_evh(t, IXMOD_EV_TCP_RECV)) TH_LOG("RECV names its connection");
	ASSERT_EQ(0, tc_recv_done(t, 100));
	ASSERT_EQ(5, tc_sendv(t, 0, 5));
	t->rcv += 5;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_EQ(t->ch, tc_evh(t, IXMOD_EV_TCP_SENT)) TH_LOG("SENT names its connection");
	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	EXPECT_EQ(t->ch, tc_evh(t, IXMOD_EV_TCP_RECV)) TH_LOG("the FIN's RECV 0 too");
	ASSERT_EQ(0, tc_close(t, true));
	EXPECT_EQ(t->ch, tc_evh(t, IXMOD_EV_TCP_DEAD)) TH_LOG("and DEAD");
	tc_fini(t);

	tc_init(t);
	ASSERT_TRUE(tc_passive(t, O_MSS));
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_RECV));
	EXPECT_EQ(0, tc_evh(t, IXMOD_EV_TCP_RECV)) TH_LOG("32-byte events: no extension");
	tc_fini(t);
}

/*
 * IXMOD_OP_TCP_SEND: one buffer, no array in the arena.  Its bytes go out
 * as sendv's would; a bad length or range, or a handle of another kind,
 * is refused and sends nothing.
 */
TEST_F(tcp_state_established, send_one_buffer)
{
	struct tc *t = self->t;
	struct ixmod_call c;
	u32 off = 3 * 4096 - 333, n = 777, i;
	u64 segs;

	for (i = 0; i < n; i++)
		t->a->arena[off + i] = (u8)(i * 7 + 3);
	c = tn_call_send(t->ch, off, n, 0x5e);
	EXPECT_EQ((int)n, tc_call(t, &c)) TH_LOG("send: res is the bytes accepted");
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, n));
	EXPECT_EQ(0, memcmp(t->seg[0].data, t->a->arena + off, n)) {
		TH_LOG("send: one segment with the buffer's bytes");
	}
	t->rcv += n;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_EQ(n, (u32)tc_ev(t, IXMOD_EV_TCP_SENT)->res) TH_LOG("send: acknowledged: SENT");

	segs = t->h->tcp->stats.segs_out;
	c = tn_call_send(t->ch, off, 0, 1);
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("send of 0 bytes: -EINVAL");
	c = tn_call_send(t->ch, ARENA - 10, 11, 1);
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("send one byte past the arena: -EINVAL");
	c = tn_call_send(t->ch, 0xffffff00u, 0x200, 1);
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("send whose end overflows: -EINVAL");
	c = tn_call_send(ixm_handle(IXMOD_HANDLE_UDP, ixm_handle_idx(t->ch),
				    ixm_handle_gen(t->ch)), off, n, 1);
	EXPECT_EQ(-EBADF, tc_call(t, &c)) TH_LOG("send on a UDP socket's handle: -EBADF");
	c = tn_call_send(t->ch, ARENA - 10, 10, 1);
	c.addr = 1;
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("send with addr set: -EINVAL");
	EXPECT_EQ(segs, t->h->tcp->stats.segs_out) TH_LOG("no refused send sent a segment");
}

/* The device finishes the frames tc_run() kept (t->hold): they are freed. */
static void tc_release_held(struct tc *t)
{
	while (t->nheld)
		ixm_mbuf_free(t->held[--t->nheld]);
}

/*
 * The NIC reads sent bytes in place from the arena, so a TCP_SENT, which
 * gives them back to the application, waits until no frame that reads
 * them is still queued: else a peer that acknowledges data before the NIC
 * read it (or an acknowledgment that overtakes a queued retransmission)
 * would let the application write other bytes there, another client's
 * reply say, and the queued frame would carry them to this peer.  The
 * same for TCP_DEAD, which gives back every byte.
 */
TEST_F(tcp_state_established, sent_waits_for_the_nic)
{
	struct tc *t = self->t;
	struct ixmod_call c;
	u32 off = 8192, n = 1000;
	u64 zc = stats(t)->tx_zerocopy, waits = stats(t)->zc_waits;

	t->hold = true;
	c = tn_call_send(t->ch, off, n, 0x5e);
	EXPECT_EQ((int)n, tc_call(t, &c));
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, n));
	ASSERT_EQ(zc + 1, stats(t)->tx_zerocopy) TH_LOG("the segment reads the arena in place");
	ASSERT_EQ(1, t->nheld);
	t->rcv += n;
	tc_send(t, TH_ACK, NULL, 0);	/* acknowledged before the NIC is done */
	EXPECT_EQ(NULL, tc_ev(t, IXMOD_EV_TCP_SENT)) {
		TH_LOG("no TCP_SENT while the frame that reads the bytes is queued");
	}
	EXPECT_LT(waits, stats(t)->zc_waits) TH_LOG("the wait is counted (tcp_zc_waits)");
	tc_advance(t, 1000);
	EXPECT_EQ(NULL, tc_ev(t, IXMOD_EV_TCP_SENT)) TH_LOG("nor in the next iteration");
	tc_release_held(t);
	tc_advance(t, 1000);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_SENT)) TH_LOG("the NIC is done: TCP_SENT");
	EXPECT_EQ((int)n, tc_ev(t, IXMOD_EV_TCP_SENT)->res);

	/* a reset while a frame is queued: DEAD waits too */
	c = tn_call_send(t->ch, off, n, 0x5f);
	EXPECT_EQ((int)n, tc_call(t, &c));
	ASSERT_EQ(1, t->nheld);
	tc_seg(t, TH_RST, t->snd, 0, NULL, 0, 0);
	EXPECT_EQ(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD)) {
		TH_LOG("no TCP_DEAD while a frame that reads the connection's bytes is queued");
	}
	tc_release_held(t);
	tc_advance(t, 1000);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD)) TH_LOG("the NIC is done: TCP_DEAD");
	EXPECT_EQ(-ECONNRESET, tc_ev(t, IXMOD_EV_TCP_DEAD)->res);
	t->hold = false;
}

/*
 * A frame the device never took (its ring was full) is freed at once and
 * does not count: the acknowledgment is not held back by it.
 */
TEST_F(tcp_state_established, sent_needs_no_frame_that_never_left)
{
	struct tc *t = self->t;
	struct ixmod_call c;
	u32 off = 8192, n = 500;

	c = tn_call_send(t->ch, off, n, 0x5e);
	tn_app_submit(t->a, &c);
	tn_host_run(t->h);
	ASSERT_EQ(1, t->h->port.ntx);
	t->h->port.tx[0]->flags &= ~IXM_MBUF_F_TX_TAKEN;	/* as a full ring leaves it */
	tn_tx_flush(t->h);
	while (tn_app_event_ext(t->a, &(struct ixmod_event_ext){ 0 }))
		;
	t->rcv += n;
	tc_send(t, TH_ACK, NULL, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_SENT)) TH_LOG("TCP_SENT at once");
	EXPECT_EQ((int)n, tc_ev(t, IXMOD_EV_TCP_SENT)->res);
	EXPECT_EQ(t->h->tcp->conns[ixm_handle_idx(t->ch)].zc.built,
		  t->h->tcp->conns[ixm_handle_idx(t->ch)].zc.done) {
		TH_LOG("the dropped frame left the counts even");
	}
}

TEST(tcp_state_zero_window)
{
	struct tc *t = &T;
	u64 first, second;
	int res;

	tc_init(t);
	t->pwin = 0;
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	res = tc_sendv(t, 0, 1000);
	EXPECT_GT(res, 0);
	EXPECT_FALSE(t->nseg) {
		TH_LOG("zero window: SENDV takes a probe's worth (%d) and sends nothing", res);
	}
	first = tc_wait_seg(t, 5000 * MS, MS);
	ASSERT_TRUE(first);
	ASSERT_TRUE(one_seg(t, TH_ACK, t->rcv, t->snd, 1));
	EXPECT_EQ(t->a->arena[0], t->seg[0].data[0]);
	EXPECT_EQ(1, stats(t)->zero_window_probes) {
		TH_LOG("zero window: after %llu ms a probe of one byte at SND.UNA", first / MS);
	}
	second = tc_wait_seg(t, 10000 * MS, MS);
	ASSERT_TRUE(second);
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(t->rcv, t->seg[0].seq);
	EXPECT_GE(second, first * 3 / 2) {
		TH_LOG("zero window: the next probe %llu ms later (backed off)", second / MS);
	}
	t->pwin = 65535;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(t->rcv, t->seg[0].seq);
	EXPECT_EQ((u32)res, t->seg[0].dlen) {
		TH_LOG("zero window: it opens (the probe byte not taken) -> all %d bytes from SND.UNA",
		       res);
	}
	if (t->nseg && t->seg[0].seq != t->rcv) {
		u64 hole;

		TH_LOG("sent: seq SND.UNA%+d, %zu bytes", (int)(t->seg[0].seq - t->rcv),
		       t->seg[0].dlen);
		hole = tc_wait_seg(t, 120000 * MS, MS);
		TH_LOG("the byte at SND.UNA went out %llu ms later (seq SND.UNA%+d)", hole / MS,
		       t->nseg ? (int)(t->seg[0].seq - t->rcv) : 0);
	}
	tc_fini(t);
}

/* RFC 6298 §5.5: each timeout doubles the RTO; Karn: no sample from a retransmission. */
TEST_F(tcp_state_established, rto_backoff)
{
	u64 iv[4], next;
	struct tc *t = self->t;
	unsigned int i;
	bool ok = true;

	tc_sendv(t, 0, 100);
	for (i = 0; i < 4; i++) {
		iv[i] = tc_wait_seg(t, 60000 * MS, MS);
		if (!iv[i] || !one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, 100))
			ok = false;
	}
	EXPECT_TRUE(ok) TH_LOG("RTO: the segment is sent again 4 times");
	EXPECT_GE(iv[0], 999 * MS);
	EXPECT_LE(iv[0], 1001 * MS) {
		TH_LOG("RTO: the first timeout is the initial RTO, 1 s (RFC 6298 §2.1): %llu ms",
		       iv[0] / MS);
	}
	for (i = 1; i < 4; i++)
		ok = ok && iv[i] >= 2 * iv[i - 1] - MS && iv[i] <= 2 * iv[i - 1] + MS;
	EXPECT_TRUE(ok) {
		TH_LOG("RTO: each timeout doubles it: %llu, %llu, %llu, %llu ms",
		       iv[0] / MS, iv[1] / MS, iv[2] / MS, iv[3] / MS);
	}
	EXPECT_EQ(4, stats(t)->timeouts);
	EXPECT_EQ(4, stats(t)->retrans) {
		TH_LOG("RTO: timeouts and retrans counted (%llu, %llu)",
		       stats(t)->timeouts, stats(t)->retrans);
	}
	t->rcv += 100;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_SENT)) {
		TH_LOG("RTO: the ACK of the retransmission -> SENT");
	}
	tc_sendv(t, 100, 100);
	next = tc_wait_seg(t, 60000 * MS, MS);
	EXPECT_TRUE((next >= 999 * MS && next <= 1001 * MS) || (next >= iv[3] * 2 - MS && next <= iv[3] * 2 + MS)) {
		TH_LOG("Karn: that ACK gave no RTT sample (next RTO %llu ms: 1 s, or still backed off)",
		       next / MS);
	}
}

/* The RTT of the handshake is measured from when the SYN went out. */
TEST(tcp_state_syn_rtt)
{
	struct ixmod_call c = tn_call_connect(P_IP, P_PORT, 0xc0);
	struct tc *t = &T;
	u64 rto;

	tc_init(t);
	tc_call(t, &c);
	t->ch = t->nev ? t->ev[0].handle : 0;
	t->hport = t->seg[0].sport;
	t->rcv = t->seg[0].seq + 1;
	t->snd = P_ISS;
	tc_advance(t, MS);
	tc_seg(t, TH_SYN | TH_ACK, t->snd++, t->rcv, NULL, 0, O_MSS);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_CONNECTED));
	EXPECT_TRUE(is_ack(t)) TH_LOG("SYN RTT: connected after 1 ms");
	tc_sendv(t, 0, 100);
	rto = tc_wait_seg(t, 120000 * MS, MS);
	EXPECT_TRUE(rto);
	EXPECT_LE(rto, 1000 * MS) {
		TH_LOG("SYN RTT: with a 1 ms handshake the first data RTO is at most 1 s: %llu ms",
		       rto / MS);
	}
	if (conn(t))
		TH_LOG("srtt %u us, rttvar %u us, rto %u us", conn(t)->srtt_us,
		       conn(t)->rttvar_us, conn(t)->rto_us);
	tc_fini(t);
}

/* RFC 5681 §3.2: three duplicate ACKs resend the first unacknowledged segment. */
TEST_F(tcp_state_established, fast_retransmit)
{
	struct tc *t = self->t;
	u32 una, end;
	int res, i;
	bool quiet = true;

	res = tc_sendv(t, 0, 4380);
	end = t->rcv + (u32)res;
	t->rcv += 1460;
	tc_send(t, TH_ACK, NULL, 0);
	res = tc_sendv(t, end - t->hiss - 1, 2920);
	end += (u32)res;
	una = t->rcv;
	EXPECT_GE(end - una, 4 * 1460) {
		TH_LOG("fast retransmit: %u bytes outstanding past SND.UNA", end - una);
	}
	for (i = 0; i < 2; i++) {
		tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
		quiet = quiet && !t->nseg;
	}
	ASSERT_TRUE(quiet);
	EXPECT_FALSE(stats(t)->fast_retrans) {
		TH_LOG("fast retransmit: two duplicate ACKs: nothing yet");
	}
	tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_PSH, una, t->snd, 1460) || one_seg(t, TH_ACK, una, t->snd, 1460)) {
		TH_LOG("fast retransmit: the third -> the segment at SND.UNA again");
	}
	EXPECT_EQ(1, stats(t)->fast_retrans);
	EXPECT_EQ(1, stats(t)->retrans);
	EXPECT_FALSE(stats(t)->timeouts) TH_LOG("fast retransmit: counted, without a timeout");
	tc_seg(t, TH_ACK, t->snd, end, NULL, 0, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_SENT));
	EXPECT_EQ((int)(end - una), tc_ev(t, IXMOD_EV_TCP_SENT)->res) {
		TH_LOG("fast retransmit: the ACK of everything -> SENT of the rest");
	}
}

/*
 * Receiving
 */

/* RFC 9293 §3.8.6.3, RFC 5681 §4.2: an ACK for every second full segment, else a timer. */
TEST_F(tcp_state_established, delayed_ack)
{
	struct tc *t = self->t;
	unsigned int quick;
	u64 wait;

	for (quick = 0; quick < 40; quick++) {
		tc_send(t, TH_ACK, data, 1460);
		if (!t->nseg)
			break;
	}
	EXPECT_LT(quick, 40) {
		TH_LOG("delayed ACK: after %u quick ACKs a full segment is not ACKed at once",
		       quick);
	}
	tc_send(t, TH_ACK, data, 1460);
	EXPECT_TRUE(is_ack(t)) TH_LOG("delayed ACK: the second full segment is ACKed at once");
	tc_send(t, TH_ACK, data, 1460);
	EXPECT_FALSE(t->nseg) TH_LOG("delayed ACK: one more is not");
	wait = tc_wait_seg(t, 100 * MS, 100000);
	EXPECT_GE(wait, 3900000);
	EXPECT_LE(wait, 4200000);
	ASSERT_TRUE(is_ack(t));
	EXPECT_EQ(1, stats(t)->delayed_acks) {
		TH_LOG("delayed ACK: it is ACKed after delack_us (4 ms): %llu us", wait / 1000);
	}
}

/*
 * Request and response, the application answering each 64-byte request
 * after @think_ns: the segments the host sends on its own before each
 * answer (pure ACKs), over @n requests.  Every answer must carry the
 * request's ACK.
 */
static unsigned int tc_pingpong(struct tc *t, unsigned int n, u64 think_ns)
{
	unsigned int i, pure = 0;

	for (i = 0; i < n; i++) {
		tc_send(t, TH_ACK | TH_PSH, data, 64);
		pure += t->nseg;
		if (think_ns) {
			tc_advance(t, think_ns);
			pure += t->nseg;
		}
		if (tc_recv_done(t, 64) || tc_sendv(t, 0, 64) != 64 || t->nseg != 1 ||
		    t->seg[0].dlen != 64 || t->seg[0].ack != t->snd) {
			ixm_diag("request %u: no answer of 64 bytes acknowledging it", i);
			return ~0u;
		}
		t->rcv += 64;
	}
	return pure;
}

/*
 * An interactive connection (it answers within delack_us) leaves the
 * quick ACKs of its start: its answers carry the ACKs, and a quick ACK
 * before each would double the segments per request.
 */
TEST_F(tcp_state_established, interactive_answers_carry_the_acks)
{
	struct tc *t = self->t;

	EXPECT_EQ(1, tc_pingpong(t, 20, 0)) {
		TH_LOG("interactive: only the first request is ACKed before its answer");
	}
	EXPECT_EQ(0, stats(t)->delayed_acks) TH_LOG("interactive: no delayed ACK fired");
}

/* One that answers later than delack_us keeps them: the peer is not kept waiting. */
TEST_F(tcp_state_established, slow_answers_keep_the_quick_acks)
{
	struct tc *t = self->t;

	EXPECT_EQ(8, tc_pingpong(t, 8, 5 * MS)) {
		TH_LOG("slow answers: each of the first requests is ACKed at once");
	}
}

/* RFC 9293 §3.8.6.2.2: RECV_DONE reopens the window, and the peer is told. */
TEST(tcp_state_window_update)
{
	struct ixm_tcp_config cfg;
	struct tc *t = &T;
	u32 got = 0, n;

	ixm_tcp_config_default(&cfg);
	cfg.rcv_buf = 16384;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_passive(t, O_MSS | O_WS)) TH_LOG("the handshake");
	while (got < 16384) {
		n = 16384 - got < 1460 ? 16384 - got : 1460;
		tc_send(t, TH_ACK, data, n);
		got += (u32)tc_nev(t, IXMOD_EV_TCP_RECV) ? n : 0;
		if (!tc_nev(t, IXMOD_EV_TCP_RECV))
			break;
	}
	EXPECT_EQ(16384, got);
	EXPECT_EQ(1, t->nseg);
	EXPECT_FALSE(host_win(t, &t->seg[0])) {
		TH_LOG("window: 16384 bytes fill the buffer; the last ACK offers 0 (%u taken)",
		       got);
	}
	tc_send(t, TH_ACK, data, 100);
	t->snd -= 100;
	EXPECT_FALSE(t->nev);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(host_win(t, &t->seg[0])) {
		TH_LOG("window: a byte more is not taken: ACK, window still 0");
	}
	EXPECT_EQ(0, tc_recv_done(t, 100));
	EXPECT_FALSE(t->nseg) {
		TH_LOG("window: RECV_DONE of 100 bytes: no update for so little (SWS avoidance)");
	}
	EXPECT_EQ(0, tc_recv_done(t, 16284));
	ASSERT_TRUE(is_ack(t));
	EXPECT_GE(host_win(t, &t->seg[0]), 2920) {
		TH_LOG("window: RECV_DONE of the rest -> a window update (%u)",
		       t->nseg ? host_win(t, &t->seg[0]) : 0);
	}
	EXPECT_EQ(t->h->pool.count, t->h->pool.nfree) {
		TH_LOG("window: every buffer is back in the pool");
	}
	tc_send(t, TH_ACK, data, 1000);
	EXPECT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 1000)) {
		TH_LOG("window: data flows again");
	}
	tc_fini(t);
}

/*
 * What the lossy link of tcp_pair found, one segment at a time
 */

/*
 * After a timeout sends SND.UNA's segment again, a bare ACK still carries
 * the sequence number of the next new byte: the peer, which may have had
 * everything, accepts a zero-length segment only at RCV.NXT or later
 * (RFC 9293 §3.10.7.4), and drops the ACK otherwise.
 */
TEST_F(tcp_state_established, ack_seq_after_rto)
{
	struct tc *t = self->t;
	u32 top;
	int res;

	res = tc_sendv(t, 0, 4380);
	top = t->rcv + (u32)res;
	EXPECT_EQ(4380, res);
	EXPECT_EQ(3, t->nseg) TH_LOG("ACK after RTO: 3 segments out (%d bytes)", res);
	ASSERT_TRUE(tc_wait_seg(t, 2000 * MS, MS));
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(t->rcv, t->seg[0].seq) TH_LOG("ACK after RTO: the timeout sends the first again");
	tc_seg(t, TH_ACK | TH_PSH, t->snd, t->rcv, data, 100, 0);
	t->snd += 100;
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(TH_ACK, t->seg[0].flags);
	EXPECT_FALSE(t->seg[0].dlen);
	EXPECT_EQ(top, t->seg[0].seq);
	EXPECT_EQ(t->snd, t->seg[0].ack) {
		TH_LOG("ACK after RTO: the ACK of the peer's data has SEQ = SND.UNA + %u (the next new byte)",
		       top - t->rcv);
	}
	if (t->nseg)
		TH_LOG("its SEQ is SND.UNA + %u", t->seg[0].seq - t->rcv);
}

/* RFC 5681 §4.2: a receiver SHOULD send a duplicate ACK for every out-of-order segment. */
TEST_F(tcp_state_established, dupack_per_segment)
{
	static u8 f[3][IXM_MBUF_SIZE];
	size_t len[3];
	struct tc *t = self->t;
	unsigned int i, dups = 0;

	for (i = 0; i < 3; i++) {
		struct tcp_args a = {
			.src = P_IP, .dst = H_IP, .sport = t->pport, .dport = t->hport,
			.seq = t->snd + 1000 * (i + 1), .ack = t->rcv, .flags = TH_ACK,
			.win = t->pwin, .data = data, .dlen = 1000,
		};

		len[i] = tcp_frame(f[i], our_mac, peer_mac, &a);
	}
	for (i = 0; i < 3; i++)
		tn_input(t->h, f[i], len[i], 0);
	tc_run(t);
	for (i = 0; i < t->nseg; i++)
		dups += t->seg[i].flags == TH_ACK && t->seg[i].ack == t->snd && !t->seg[i].dlen;
	EXPECT_EQ(3, dups);
	EXPECT_EQ(3, stats(t)->ooo) {
		TH_LOG("dup ACKs: 3 out-of-order segments in one batch -> 3 duplicate ACKs (%u)",
		       dups);
	}
	tc_send(t, TH_ACK, data, 1000);
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(t->snd + 3000, t->seg[0].ack);
	EXPECT_EQ(4, tc_nev(t, IXMOD_EV_TCP_RECV)) {
		TH_LOG("dup ACKs: the hole filled -> one ACK of all 4000 bytes, 4 TCP_RECV");
	}
}

/*
 * A FIN on an out-of-order segment waits with it and takes effect once the
 * data before it arrives (RFC 9293 §3.10.7.4, eighth check: the FIN is
 * processed in sequence).  Data past a queued FIN cancels it.
 */
TEST_F(tcp_state_established, ooo_fin)
{
	struct tc *t = self->t;
	u32 seq;

	seq = t->snd;
	tc_seg(t, TH_ACK | TH_FIN, seq + 1000, t->rcv, data + 1000, 500, 0);
	EXPECT_FALSE(t->nev);
	ASSERT_TRUE(is_ack(t));
	EXPECT_STREQ("ESTABLISHED", state(t));
	EXPECT_EQ(1, stats(t)->ooo) {
		TH_LOG("ooo FIN: data and FIN past a hole -> queued, duplicate ACK, still ESTABLISHED");
	}
	t->snd += 1500 + 1;
	tc_seg(t, TH_ACK, seq, t->rcv, data, 1000, 0);
	EXPECT_EQ(3, t->nev);
	ASSERT_TRUE(recv_is(t, &t->ev[0], data, 1000));
	ASSERT_TRUE(recv_is(t, &t->ev[1], data + 1000, 500));
	EXPECT_EQ(IXMOD_EV_TCP_RECV, t->ev[2].type);
	EXPECT_FALSE(t->ev[2].res);
	EXPECT_FALSE(t->ev[2].off) {
		TH_LOG("ooo FIN: the hole filled -> RECV 1000, RECV 500, end of stream");
	}
	ASSERT_TRUE(is_ack(t));
	EXPECT_STREQ("CLOSE_WAIT", state(t)) {
		TH_LOG("ooo FIN: one ACK covers the data and the FIN; CLOSE-WAIT");
	}
}

TEST_F(tcp_state_established, ooo_fin_cancelled)
{
	struct tc *t = self->t;
	u32 seq;

	seq = t->snd;
	tc_seg(t, TH_ACK | TH_FIN, seq + 1000, t->rcv, data, 100, 0);
	tc_seg(t, TH_ACK, seq, t->rcv, data, 1200, 0);
	EXPECT_STREQ("ESTABLISHED", state(t));
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_RECV));
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(seq + 1200, t->seg[0].ack) {
		TH_LOG("ooo FIN: data past the queued FIN cancels it (ACK %u, ESTABLISHED)",
		       seq + 1200);
	}
	t->snd = seq + 1200;
	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	tc_wait_seg(t, 100 * MS, 100000);	/* a bare FIN's ACK is delayed */
	ASSERT_TRUE(is_ack(t));
	EXPECT_STREQ("CLOSE_WAIT", state(t)) {
		TH_LOG("ooo FIN: the FIN sent again in order closes it");
	}
}

/*
 * The peer's FIN in ESTABLISHED: its ACK waits for the application, as
 * Linux's does (tcp_fin(): pingpong mode), so a close within the
 * delayed-ACK time answers with one FIN+ACK segment instead of an ACK
 * and a FIN; without a close the ACK goes when the timer fires.
 */
TEST_F(tcp_state_established, fin_ack_rides_the_close)
{
	struct tc *t = self->t;

	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	EXPECT_STREQ("CLOSE_WAIT", state(t));
	EXPECT_EQ(0, t->nseg) TH_LOG("the peer's FIN is not ACKed at once");
	tc_advance(t, 1 * MS);
	EXPECT_EQ(0, t->nseg) TH_LOG("nor a millisecond later");
	ASSERT_EQ(0, tc_close(t, false));
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_FIN, t->rcv, t->snd, 0)) {
		TH_LOG("the close sends one FIN that acknowledges the peer's FIN");
	}
	EXPECT_STREQ("LAST_ACK", state(t));
	EXPECT_EQ(0, stats(t)->delayed_acks);
	EXPECT_EQ(0, tc_wait_seg(t, 20 * MS, 100000)) TH_LOG("and no ACK follows alone");
}

TEST_F(tcp_state_established, fin_ack_delayed)
{
	struct tc *t = self->t;
	u64 wait;

	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	EXPECT_EQ(0, t->nseg);
	wait = tc_wait_seg(t, 100 * MS, 100000);
	EXPECT_GE(wait, 3900000);
	EXPECT_LE(wait, 4200000);
	ASSERT_TRUE(is_ack(t));
	EXPECT_EQ(1, stats(t)->delayed_acks) {
		TH_LOG("no close: the FIN is ACKed after delack_us (4 ms): %llu us",
		       wait / 1000);
	}
	EXPECT_STREQ("CLOSE_WAIT", state(t));
}

/*
 * At most IXM_TCP_OOO_MAX out-of-order segments wait; the next, past them
 * all, is dropped (tcp_ooo_drops, not tcp_rcv_drops: the pool has room).
 */
TEST_F(tcp_state_established, ooo_bound)
{
	struct tc *t = self->t;
	unsigned int i;

	for (i = 0; i <= IXM_TCP_OOO_MAX; i++)
		tc_seg(t, TH_ACK, t->snd + 200 * (i + 1), t->rcv, data, 100, 0);
	EXPECT_EQ(IXM_TCP_OOO_MAX, stats(t)->ooo);
	EXPECT_EQ(1, stats(t)->ooo_drops) {
		TH_LOG("out of order: %u segments wait, the next is dropped (ooo %llu, ooo_drops %llu)",
		       IXM_TCP_OOO_MAX, (unsigned long long)stats(t)->ooo,
		       (unsigned long long)stats(t)->ooo_drops);
	}
	EXPECT_EQ(0, stats(t)->rcv_drops);
	tc_send(t, TH_ACK, data, 200);
	EXPECT_GE(tc_nev(t, IXMOD_EV_TCP_RECV), 1);
	EXPECT_EQ(1, stats(t)->conns) {
		TH_LOG("out of order: the hole filled, the connection goes on");
	}
}

/*
 * Small segments that continue one another past a hole share a buffer:
 * the second and third are copied into the first one's tail (tcp_ofo.c),
 * and the hole filled delivers all of them, byte for byte.
 */
TEST_F(tcp_state_established, ooo_coalesce)
{
	struct tc *t = self->t;
	u32 nfree = t->h->pool.nfree;
	unsigned int i, n = 0;

	for (i = 0; i < 3; i++)
		tc_seg(t, TH_ACK, t->snd + 100 + 10 * i, t->rcv, data + 100 + 10 * i, 10, 0);
	EXPECT_EQ(1, conn(t)->ooo_count);
	EXPECT_EQ(2, stats(t)->ooo_coalesced);
	EXPECT_EQ(nfree - 1, t->h->pool.nfree) {
		TH_LOG("3 touching 10-byte segments past a hole: one buffer, 2 copied (ooo_count %u, pool %u free, was %u)",
		       conn(t)->ooo_count, t->h->pool.nfree, nfree);
	}
	tc_send(t, TH_ACK, data, 100);
	t->snd += 30;
	EXPECT_EQ(t->snd, t->seg[0].ack) TH_LOG("the hole filled: all 130 bytes acknowledged");
	for (i = 0; i < t->nev; i++) {
		if (t->ev[i].type != IXMOD_EV_TCP_RECV)
			continue;
		EXPECT_TRUE(recv_is(t, &t->ev[i], data + n, (u32)t->ev[i].res));
		n += (u32)t->ev[i].res;
	}
	EXPECT_EQ(130, n) TH_LOG("the hole filled: 130 bytes announced in order");
	EXPECT_EQ(0, conn(t)->ooo_count);
	EXPECT_EQ(0, t->h->tcp->ooo_bufs);
}

/*
 * A connection keeps out-of-order data worth at most its receive buffer,
 * charged a whole buffer per segment: with tcp_rcv_buf 16 KiB, 8 one-byte
 * segments.  A ninth past them is dropped; one before the newest takes
 * the newest's place (Linux's tcp_prune_ofo_queue(): the newest goes).
 */
TEST(tcp_state_ooo_truesize)
{
	struct ixm_tcp_config cfg;
	struct tc *t = &T;
	unsigned int i;

	ixm_tcp_config_default(&cfg);
	cfg.rcv_buf = 16 * 1024;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_passive(t, O_MSS));
	for (i = 0; i < 9; i++)
		tc_seg(t, TH_ACK, t->snd + 100 + 2 * i, t->rcv, data, 1, 0);
	EXPECT_EQ(8, conn(t)->ooo_count);
	EXPECT_EQ(1, stats(t)->ooo_drops) {
		TH_LOG("16 KiB of receive buffer: 8 one-byte segments kept, the ninth dropped (%u kept, %llu dropped)",
		       conn(t)->ooo_count, (unsigned long long)stats(t)->ooo_drops);
	}
	tc_seg(t, TH_ACK, t->snd + 50, t->rcv, data, 1, 0);
	EXPECT_EQ(8, conn(t)->ooo_count);
	EXPECT_EQ(1, stats(t)->ooo_pruned);
	EXPECT_EQ(t->snd + 50, conn(t)->ooo->seq) {
		TH_LOG("one before them: queued first, the newest pruned (pruned %llu)",
		       (unsigned long long)stats(t)->ooo_pruned);
	}
	EXPECT_EQ(0, stats(t)->rcv_drops);
	tc_fini(t);
}

/*
 * A connection that dies frees its out-of-order buffers at once, not when
 * the application closes its handle; the data it delivered stays.
 */
TEST_F(tcp_state_established, ooo_freed_at_dead)
{
	struct tc *t = self->t;
	u32 nfree = t->h->pool.nfree;
	unsigned int i;

	tc_send(t, TH_ACK, data, 100);
	for (i = 0; i < 5; i++)
		tc_seg(t, TH_ACK, t->snd + 100 + 200 * i, t->rcv, data, 100, 0);
	EXPECT_EQ(5, conn(t)->ooo_count);
	tc_seg(t, TH_RST, t->snd, 0, NULL, 0, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_EQ(0, conn(t)->ooo_count);
	EXPECT_EQ(5, stats(t)->ooo_purged);
	EXPECT_EQ(nfree - 1, t->h->pool.nfree) {
		TH_LOG("reset: 5 out-of-order buffers freed before the close, the delivered one kept (pool %u free, was %u)",
		       t->h->pool.nfree, nfree);
	}
	EXPECT_EQ(0, tc_recv_done(t, 100));
	EXPECT_EQ(nfree, t->h->pool.nfree);
	EXPECT_EQ(0, tc_close(t, false));
}

/*
 * A peer ISN in the upper half of the sequence space (0x90000000): the
 * window is still the buffer's, and data far past it is not taken.
 */
TEST(tcp_state_isn_upper_half)
{
	static const char * const how[2] = { "passive", "active" };
	struct tc *t = &T;
	unsigned int k, i;
	u64 ow, ooo;
	u32 nfree;

	for (k = 0; k < 2; k++) {
		tc_init(t);
		t->piss = 0x90000000u;
		if (!(k ? tc_active(t, O_ALL) : tc_passive(t, O_ALL))) {
			EXPECT_TRUE(false) TH_LOG("ISN 0x90000000, %s: connected", how[k]);
			EXPECT_TRUE(false) TH_LOG("ISN 0x90000000, %s: (skipped)", how[k]);
			tc_fini(t);
			continue;
		}
		ow = stats(t)->out_of_window;
		ooo = stats(t)->ooo;
		nfree = t->h->pool.nfree;
		tc_seg(t, TH_ACK | TH_PSH, t->snd + 1000000, t->rcv, data, 100, 0);
		ASSERT_TRUE(is_ack(t));
		EXPECT_EQ(ow + 1, stats(t)->out_of_window);
		EXPECT_EQ(ooo, stats(t)->ooo);
		EXPECT_EQ(nfree, t->h->pool.nfree) {
			TH_LOG("ISN 0x90000000, %s: data 1 MB past the window: ACK, dropped, out_of_window",
			       how[k]);
		}
		for (i = 0; i < 20; i++)
			tc_send(t, TH_ACK, data, 1460);
		EXPECT_EQ(1, t->nseg);
		EXPECT_LE(host_win(t, &t->seg[0]), 131072 - 20 * 1460 + (1u << t->hws)) {
			TH_LOG("ISN 0x90000000, %s: 20 segments held: the window shrank to %u (buffer 131072)",
			       how[k], t->nseg ? host_win(t, &t->seg[0]) : 0);
		}
		tc_fini(t);
	}
}

/*
 * Timers of an idle or half-dead connection
 */

/* RFC 6298 §5.5 for the SYN: 1, 2, 4 ... s, then CONNECTED and DEAD -ETIMEDOUT. */
TEST(tcp_state_syn_timeout)
{
	struct ixmod_call c = tn_call_connect(P_IP, P_PORT, 0x5a);
	const struct ixmod_event *ev = NULL;
	struct tc *t = &T;
	unsigned int n = 0, i;
	u64 iv[8], waited, total = 0;
	bool ok = true;

	tc_init(t);
	tc_call(t, &c);
	t->ch = t->nev ? t->ev[0].handle : 0;
	while (n < 8) {
		waited = tc_wait_any(t, 200000 * MS, 10 * MS);
		total += waited;
		ev = tc_ev(t, IXMOD_EV_TCP_CONNECTED);
		if (!waited || ev)
			break;
		if (t->nseg != 1 || t->seg[0].flags != TH_SYN)
			ok = false;
		iv[n++] = waited;
	}
	for (i = 0; i < n; i++)
		ok = ok && iv[i] >= (1000ULL << i) * MS - 10 * MS &&
		     iv[i] <= (1000ULL << i) * MS + 10 * MS;
	EXPECT_TRUE(ok);
	EXPECT_EQ(6, n) TH_LOG("SYN timeout: 6 retransmissions, 1 s apart doubling (%u)", n);
	if (!ev) {
		total += tc_wait_ev(t, IXMOD_EV_TCP_CONNECTED, 200000 * MS, 10 * MS);
		ev = tc_ev(t, IXMOD_EV_TCP_CONNECTED);
	}
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(-ETIMEDOUT, ev->res);
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_EQ(-ETIMEDOUT, tc_ev(t, IXMOD_EV_TCP_DEAD)->res);
	EXPECT_TRUE(dead_handle_lives_until_close(t)) TH_LOG("SYN timeout");
	EXPECT_EQ(1, stats(t)->attempt_fails);
	EXPECT_GE(total, 122900 * MS);
	EXPECT_LE(total, 123100 * MS) {
		TH_LOG("SYN timeout: after %llu ms (1 + 2 + ... + 32 + 60 s, the RTO's cap) CONNECTED and DEAD -ETIMEDOUT",
		       total / MS);
	}
	tc_fini(t);
}

/* FIN-WAIT-2 does not last for ever: after tw_ns the connection goes. */
TEST(tcp_state_fin_wait_2_timeout)
{
	struct ixm_tcp_config cfg;
	const struct ixmod_event *ev;
	struct tc *t = &T;

	ixm_tcp_config_default(&cfg);
	cfg.tw_ns = 10000 * MS;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	tc_close(t, false);
	t->rcv++;
	tc_send(t, TH_ACK, NULL, 0);
	tc_advance(t, cfg.tw_ns - MS);
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(1, stats(t)->conns) TH_LOG("FIN-WAIT-2: still waiting for the peer's FIN");
	tc_advance(t, 2 * MS);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_NE(NULL, ev);
	EXPECT_FALSE(ev->res);
	EXPECT_FALSE(stats(t)->conns) {
		TH_LOG("FIN-WAIT-2: after tw_ns without a FIN -> DEAD 0, slot freed");
	}
	tc_fini(t);
}

/* RFC 1122 §4.2.3.6: keep-alives on an idle connection, when turned on. */
TEST(tcp_state_keepalive)
{
	struct ixm_tcp_config cfg;
	const struct ixmod_event *ev = NULL;
	struct tc *t = &T;
	unsigned int i, probes = 0;
	u64 first, waited;
	bool alive = true;

	ixm_tcp_config_default(&cfg);
	cfg.keepalive_ns = 10000 * MS;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	first = tc_wait_seg(t, 30000 * MS, 100 * MS);
	EXPECT_TRUE(first);
	EXPECT_LE(first, 10100 * MS) {
		TH_LOG("keepalive: an idle connection is probed after 10 s (%llu ms)", first / MS);
	}
	ASSERT_TRUE(first);
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(TH_ACK, t->seg[0].flags);
	EXPECT_FALSE(t->seg[0].dlen);
	EXPECT_EQ(t->rcv - 1, t->seg[0].seq);
	EXPECT_EQ(t->snd, t->seg[0].ack) {
		TH_LOG("keepalive: the probe has SEG.SEQ = SND.NXT - 1, so the peer must answer");
	}
	if (first && t->nseg)
		TH_LOG("probe SEQ = SND.NXT%+d", (int)(t->seg[0].seq - t->rcv));
	else
		TH_LOG("no probe in 30 s of silence");
	for (i = 0; first && i < 20; i++) {
		if (!tc_wait_seg(t, 20000 * MS, 100 * MS))
			break;
		tc_send(t, TH_ACK, NULL, 0);
		alive = alive && !tc_ev(t, IXMOD_EV_TCP_DEAD);
	}
	ASSERT_TRUE(first);
	ASSERT_TRUE(alive);
	EXPECT_EQ(1, stats(t)->conns) TH_LOG("keepalive: a peer that answers keeps the connection");
	for (i = 0; i < 40 && !ev; i++) {
		/* _any: the DEAD comes in a step that sends nothing */
		waited = tc_wait_any(t, 20000 * MS, 100 * MS);
		probes += t->nseg;
		ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
		if (!waited)
			break;
	}
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(-ETIMEDOUT, ev->res) {
		TH_LOG("keepalive: a silent peer -> DEAD -ETIMEDOUT after %u probes", probes);
	}
	EXPECT_TRUE(dead_handle_lives_until_close(t)) TH_LOG("keepalive");
	tc_fini(t);
}

/*
 * The application's side
 */

/* Data before ACCEPT waits for it; a connection that dies before ACCEPT gets a DEAD. */
TEST(tcp_state_before_accept)
{
	struct ixmod_call c = tn_call_listen(H_PORT, 16, 0x11);
	struct tc *t = &T;
	u64 h;

	tc_init(t);
	t->hport = H_PORT;
	tc_call(t, &c);
	t->snd = P_ISS;
	tc_seg(t, TH_SYN, t->snd++, 0, NULL, 0, O_MSS);
	t->rcv = t->seg[0].seq + 1;
	tc_send(t, TH_ACK, NULL, 0);
	h = tc_ev(t, IXMOD_EV_TCP_KNOCK) ? tc_ev(t, IXMOD_EV_TCP_KNOCK)->handle : 0;
	tc_send(t, TH_ACK | TH_PSH, data, 300);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) TH_LOG("before accept: data is acknowledged, no event yet");
	c = tn_call_accept(h, 0xc0);
	EXPECT_EQ(0, tc_call(t, &c));
	ASSERT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 300));
	EXPECT_EQ(0xc0, tc_ev(t, IXMOD_EV_TCP_RECV)->user_data) {
		TH_LOG("before accept: ACCEPT -> the data's TCP_RECV, with the accept's cookie");
	}
	tc_fini(t);
}

/*
 * Data for a connection not yet accepted waits for the application, so it
 * is refused once the pool is below a quarter free (a listener's backlog
 * of such connections could hold the whole pool); accepted, the same
 * connection takes it down to the eighth in-order data keeps.
 */
TEST(tcp_state_before_accept_pool)
{
	struct ixmod_call c = tn_call_listen(H_PORT, 16, 0x11);
	struct ixm_mbuf **taken;
	struct tc *t = &T;
	u32 i, n;
	u64 h;

	tc_init(t);
	t->hport = H_PORT;
	tc_call(t, &c);
	t->snd = P_ISS;
	tc_seg(t, TH_SYN, t->snd++, 0, NULL, 0, O_MSS);
	t->rcv = t->seg[0].seq + 1;
	tc_send(t, TH_ACK, NULL, 0);
	h = tc_ev(t, IXMOD_EV_TCP_KNOCK) ? tc_ev(t, IXMOD_EV_TCP_KNOCK)->handle : 0;
	/* the rest of the core holds all but a quarter, less one */
	n = t->h->pool.nfree - t->h->pool.count / 4 + 1;
	taken = calloc(n, sizeof(*taken));
	ASSERT_NE(NULL, taken);
	for (i = 0; i < n; i++)
		taken[i] = ixm_mbuf_alloc(&t->h->pool);
	tc_seg(t, TH_ACK | TH_PSH, t->snd, t->rcv, data, 300, 0);
	EXPECT_EQ(1, stats(t)->rcv_drops);
	EXPECT_EQ(0, t->nseg) {
		TH_LOG("before accept, the pool below a quarter free: the data is dropped, no ACK");
	}
	c = tn_call_accept(h, 0xc0);
	EXPECT_EQ(0, tc_call(t, &c));
	tc_send(t, TH_ACK | TH_PSH, data, 300);
	ASSERT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 300)) {
		TH_LOG("accepted, the same data is taken (the pool is above an eighth)");
	}
	for (i = 0; i < n; i++)
		ixm_mbuf_free(taken[i]);
	free(taken);
	tc_fini(t);
}

TEST(tcp_state_before_accept_reset)
{
	struct ixmod_call c = tn_call_listen(H_PORT, 16, 0x11);
	const struct ixmod_event *ev;
	struct tc *t = &T;
	u64 h;

	tc_init(t);
	t->hport = H_PORT;
	c = tn_call_listen(H_PORT, 16, 0x11);
	tc_call(t, &c);
	t->snd = P_ISS;
	tc_seg(t, TH_SYN, t->snd++, 0, NULL, 0, O_MSS);
	t->rcv = t->seg[0].seq + 1;
	tc_send(t, TH_ACK, NULL, 0);
	h = tc_ev(t, IXMOD_EV_TCP_KNOCK) ? tc_ev(t, IXMOD_EV_TCP_KNOCK)->handle : 0;
	tc_seg(t, TH_RST, t->snd, 0, NULL, 0, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(h, ev->handle);
	EXPECT_EQ(0x11, ev->user_data);
	EXPECT_EQ(-ECONNRESET, ev->res) {
		TH_LOG("before accept: reset -> DEAD -ECONNRESET with the listener's cookie");
	}
	c = tn_call_accept(h, 0xc0);
	EXPECT_EQ(-EBADF, tc_call(t, &c));
	EXPECT_FALSE(stats(t)->conns) {
		TH_LOG("before accept: then ACCEPT of it -> -EBADF; the slot is free");
	}
	tc_fini(t);
}

/* A full event ring: TCP_RECVs are owed, not lost, and come in order. */
TEST(tcp_state_event_ring_full)
{
	static u8 f[IXM_MBUF_SIZE];
	struct ixmod_event ev;
	struct tc *t = &T;
	unsigned int i, got = 0, rounds, most = 0;
	bool ok = true;
	u32 off = 0;

	tc_init(t);
	tn_app_free(t->a);
	t->a = tn_app_new(t->h, 64, 4, ARENA);
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	for (i = 0; i < 20; i++) {
		struct tcp_args a = {
			.src = P_IP, .dst = H_IP, .sport = t->pport, .dport = t->hport,
			.seq = t->snd, .ack = t->rcv, .flags = TH_ACK | TH_PSH,
			.win = t->pwin, .data = data + 100 * i, .dlen = 100,
		};

		t->snd += 100;
		tn_input(t->h, f, tcp_frame(f, our_mac, peer_mac, &a), 0);
		tn_host_run(t->h);
		tn_tx_flush(t->h);
	}
	EXPECT_EQ(4, tn_app_nevents(t->a));
	EXPECT_EQ(4, t->a->app.hold_count);
	EXPECT_TRUE(*tn_ring_word(t->a->events, IXM_RING_OFF_FLAGS) & IXMOD_RING_OVERFLOW) {
		TH_LOG("full ring: 20 segments, ring of 4: 4 in the ring, 4 held, OVERFLOW set");
	}
	for (rounds = 0; rounds < 20 && got < 20; rounds++) {
		unsigned int n = 0;

		while (tn_app_event(t->a, &ev)) {
			const u8 *p = tn_rx_ptr(t->h, ev.off, 100);

			n++;
			if (ev.type != IXMOD_EV_TCP_RECV || ev.res != 100 || !p ||
			    memcmp(p, data + off, 100))
				ok = false;
			off += 100;
			got++;
		}
		most = n > most ? n : most;
		tn_host_run(t->h);
		tn_tx_flush(t->h);
	}
	EXPECT_TRUE(ok);
	EXPECT_EQ(20, got);
	EXPECT_LE(most, 8) {
		TH_LOG("full ring: all 20 TCP_RECVs come, in order, as the ring drains (%u)", got);
	}
	EXPECT_EQ(0, tc_recv_done(t, 2000));
	EXPECT_EQ(t->h->pool.count, t->h->pool.nfree);
	EXPECT_FALSE(t->a->app.stats.rx_bufs) {
		TH_LOG("full ring: RECV_DONE of the 2000 bytes frees them all");
	}
	tc_fini(t);
}

/* Segments the host sends for @n copies of a peer segment; ACKs only. */
static unsigned int oow_burst(struct tc *t, unsigned int n, u32 seq, const u8 *d, size_t dlen)
{
	unsigned int i, acks = 0;

	for (i = 0; i < n; i++) {
		tc_seg(t, TH_ACK | (dlen ? TH_PSH : 0), seq, t->rcv, d, dlen, 0);
		acks += t->nseg;
		if (t->nseg && !is_ack(t))
			acks += 1000;	/* something else than the ACK */
	}
	return acks;
}

/*
 * Issue 15: the ACKs owed to out-of-window and PAWS-rejected segments
 * are limited per connection to one per 500 ms (Linux's
 * tcp_invalid_ratelimit); segments with data are always answered.
 */
TEST(tcp_state_ack_ratelimit)
{
	struct tc *t = &T;
	unsigned int n;
	u64 ow, rl;

	tc_init(t);
	EXPECT_EQ(500 * MS, t->h->tcp_cfg.invalid_ratelimit_ns) {
		TH_LOG("ratelimit: the default is 500 ms");
	}
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	ow = stats(t)->out_of_window;
	rl = stats(t)->ack_ratelimited;
	n = oow_burst(t, 100, t->snd + 70000, NULL, 0);
	EXPECT_EQ(1, n);
	EXPECT_EQ(ow + 100, stats(t)->out_of_window);
	EXPECT_EQ(rl + 99, stats(t)->ack_ratelimited) {
		TH_LOG("ratelimit: 100 ACKs beyond the window -> 1 ACK, 99 in ack_ratelimited (%u)",
		       n);
	}
	tc_advance(t, 400 * MS);
	n = oow_burst(t, 1, t->snd - 5000, NULL, 0);
	tc_advance(t, 100 * MS);
	n = n * 10 + oow_burst(t, 3, t->snd + 70000, NULL, 0);
	EXPECT_EQ(1, n);
	EXPECT_EQ(rl + 99 + 1 + 2, stats(t)->ack_ratelimited) {
		TH_LOG("ratelimit: 400 ms later still none; 500 ms after the first ACK, one more (%u)",
		       n);
	}
	tc_advance(t, 100 * MS);
	n = oow_burst(t, 10, t->snd + 70000, data, 100);
	EXPECT_EQ(10, n);
	EXPECT_EQ(rl + 99 + 1 + 2, stats(t)->ack_ratelimited) {
		TH_LOG("ratelimit: 10 data segments beyond the window: 10 ACKs, none limited (%u)",
		       n);
	}
	tc_fini(t);
}

TEST(tcp_state_ack_ratelimit_paws)
{
	struct tc *t = &T;
	unsigned int n;
	u64 ow, rl;

	tc_init(t);
	t->tsval = 1000;
	ASSERT_TRUE(tc_passive(t, O_MSS | O_TS)) TH_LOG("the handshake");
	t->tsval = 2000;
	tc_send(t, TH_ACK, NULL, 0);
	rl = stats(t)->ack_ratelimited;
	for (n = 0, ow = 0; ow < 100; ow++) {
		t->tsval = 1500;
		tc_seg(t, TH_ACK, t->snd, t->rcv, NULL, 0, 0);
		n += t->nseg;
	}
	EXPECT_EQ(1, n);
	EXPECT_EQ(100, stats(t)->paws_drops);
	EXPECT_EQ(rl + 99, stats(t)->ack_ratelimited) {
		TH_LOG("ratelimit: 100 ACKs with an old TSval (PAWS) -> 1 ACK, 99 limited (%u)", n);
	}
	tc_fini(t);
}

TEST(tcp_state_ack_ratelimit_off)
{
	struct ixm_tcp_config cfg;
	struct tc *t = &T;
	unsigned int n;

	ixm_tcp_config_default(&cfg);
	cfg.invalid_ratelimit_ns = 0;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	n = oow_burst(t, 20, t->snd + 70000, NULL, 0);
	EXPECT_EQ(20, n);
	EXPECT_FALSE(stats(t)->ack_ratelimited) {
		TH_LOG("ratelimit: 0 turns it off: 20 ACKs beyond the window, 20 ACKs (%u)", n);
	}
	tc_fini(t);
}

/*
 * Hostile options (issue 15)
 */

/* MSS values a SYN or SYN-ACK names: 0, the wrap-prone 1..12, the floor, big ones */
static const u16 mss_cases[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 63, 64, 75, 76, 77,
	536, 1000, 1460, 1461, 9000, 65535,
};

/*
 * The most data a segment may carry for a peer's MSS option: RFC 9293
 * §3.7.1 (0 means 536), RFC 6691 §2 (the timestamps come out of it),
 * then IXM_TCP_MSS_MIN data bytes at least and a 1500-byte MTU at most.
 */
static u32 mss_budget(u16 mss, bool ts)
{
	u32 opt = ts ? 12 : 0;
	u32 m = mss ? mss : 536;

	if (m < IXM_TCP_MSS_MIN + opt)
		m = IXM_TCP_MSS_MIN + opt;
	if (m > 1460)
		m = 1460;
	return m - opt;
}

/*
 * Check the segments of the last run against @budget and the MTU, and
 * copy their data to @rx (the stream from sequence number @base on).
 * Return: false on any bad frame.
 */
static bool mss_absorb(struct tc *t, u32 budget, u32 base, u8 *rx, u32 *got)
{
	unsigned int i;
	bool ok = !t->bad;

	for (i = 0; i < t->nseg; i++) {
		const struct tcp_seg *s = &t->seg[i];
		u32 tot = get16(t->frame[i] + 16), off = s->seq - base;

		if (tot > 1500 || s->dlen > budget || tot != 20 + 20 + s->dlen +
		    (s->has_ts ? 12 : 0)) {
			ixm_diag("segment of %zu data bytes, IP length %u: budget %u, MTU 1500",
				 s->dlen, tot, budget);
			ok = false;
		}
		if (s->dlen && off <= *got && off + s->dlen > *got && off + s->dlen <= 65536) {
			memcpy(rx + off, s->data, s->dlen);
			*got = off + (u32)s->dlen;
		}
	}
	return ok;
}

/*
 * 64 KiB from the arena to a peer that advertises 8 MiB (65535 << 7) and
 * acknowledges what it got after every run.  Return: true if every
 * segment kept to @budget and the MTU and the bytes arrived whole.
 */
static bool mss_stream(struct tc *t, u32 budget)
{
	static u8 rx[65536];
	u32 base = t->rcv, sent = 0, got = 0, most = 0;
	unsigned int rounds;
	bool ok = true;
	unsigned int i;

	memset(rx, 0, sizeof(rx));
	for (rounds = 0; rounds < 4000 && got < sizeof(rx); rounds++) {
		if (sent < sizeof(rx)) {
			int n = tc_sendv(t, sent, (u32)sizeof(rx) - sent);

			if (n > 0)
				sent += (u32)n;
		} else {
			tc_advance(t, MS);
		}
		ok &= mss_absorb(t, budget, base, rx, &got);
		for (i = 0; i < t->nseg; i++)
			most = t->seg[i].dlen > most ? (u32)t->seg[i].dlen : most;
		if (!t->nseg)
			continue;
		t->rcv = base + got;
		tc_send(t, TH_ACK, NULL, 0);
		ok &= mss_absorb(t, budget, base, rx, &got);
	}
	if (got != sizeof(rx) || memcmp(rx, t->a->arena, sizeof(rx))) {
		ixm_diag("%u of 65536 bytes arrived in %u rounds%s", got, rounds,
			 got == sizeof(rx) ? ", not the ones sent" : "");
		ok = false;
	}
	if (most != budget && got == sizeof(rx)) {
		ixm_diag("the largest segment carried %u bytes, want the budget %u", most, budget);
		ok = false;
	}
	return ok;
}

/*
 * Issue 15 item 0: ixm_tcp_set_mss() took the timestamps' 12 bytes from
 * a peer's MSS of 1..11 in unsigned arithmetic: an MSS of about 2^32,
 * segments as long as the data, copied past their 2 KiB buffer.  For
 * every MSS, on the SYN (passive) and the SYN-ACK (active), with and
 * without timestamps, in place and copied: 64 KiB go out in segments no
 * longer than the budget, inside the MTU, with a right IP length.
 */
TEST(tcp_state_mss_option)
{
	unsigned int side, ts, i, copy;
	struct tc *t = &T;

	for (side = 0; side < 2; side++) {
		for (ts = 0; ts < 2; ts++) {
			for (i = 0; i < ARRAY_SIZE(mss_cases); i++) {
				u32 budget = mss_budget(mss_cases[i], ts);
				bool ok = true;

				for (copy = 0; copy < 2; copy++) {
					bool up;

					tc_init(t);
					t->pmss = mss_cases[i];
					tn_app_copy_only(t->a, copy);
					up = side ? tc_active(t, O_MSS | O_WS | (ts ? O_TS : 0)) :
						    tc_passive(t, O_MSS | O_WS | (ts ? O_TS : 0));
					if (!up || t->ts != !!ts || conn(t)->mss != budget) {
						TH_LOG("handshake: %d, timestamps %d, mss %u",
						       up, t->ts, conn(t) ? conn(t)->mss : 0);
						ok = false;
					} else {
						ok &= mss_stream(t, budget);
					}
					ok &= !stats(t)->tx_oversize && !ixm_host_warnings;
					tc_fini(t);
				}
				EXPECT_TRUE(ok) {
					TH_LOG("MSS %u on the %s%s: 64 KiB in segments of <= %u bytes, in place and copied",
					       mss_cases[i], side ? "SYN-ACK" : "SYN",
					       ts ? " with timestamps" : "", budget);
				}
			}
		}
	}
}

/*
 * ixm_tcp_xmit() refuses a segment over the MTU whatever the MSS says:
 * counted in tx_oversize, one warning, nothing on the wire, and the
 * connection is not left spinning on the pending list.
 */
TEST_F(tcp_state_established, mss_oversize)
{
	unsigned int warned = ixm_host_warnings;
	struct tc *t = self->t;
	u64 segs;

	conn(t)->mss = 4000;		/* what the wrap gave: never, now */
	segs = stats(t)->segs_out;
	EXPECT_EQ(3000, tc_sendv(t, 0, 3000));
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(1, stats(t)->tx_oversize);
	EXPECT_EQ(segs, stats(t)->segs_out);
	EXPECT_EQ(warned + 1, ixm_host_warnings);
	EXPECT_FALSE(conn(t)->flags & IXM_TCPF_PENDING) {
		TH_LOG("oversize: a 3000-byte segment is refused: tcp_tx_oversize 1, one warning, no frame");
	}
	ixm_host_warnings = warned;
}

/* The peer's bytes, filled once before the harness forks the first test. */
static void __attribute__((constructor)) data_fill(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 7 + i / 256 + 3);
}

TEST_HARNESS_MAIN
