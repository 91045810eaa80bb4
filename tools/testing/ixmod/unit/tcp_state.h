/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcp_state.h - TCP's state machine, one crafted segment at a time
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
 *
 * The tests are in one program per concern, each including this header:
 * tcp_state_open.c (opening, closing, SYN cookies, before accept),
 * tcp_state_validate.c (RFC 9293 §3.10.7.4's first to fourth checks:
 * sequence, RST, SYN, PAWS, and the ACKs that answer a rejected segment),
 * tcp_state_send.c (ACK processing, send and receive windows, sendv and
 * its events), tcp_state_data.c (the text and FIN: in order, out of order,
 * delayed ACKs), tcp_state_timer.c (retransmission and the idle timers),
 * tcp_state_shutdown.c (the half-close, IXMOD_OP_TCP_SHUTDOWN),
 * tcp_state_sack.c (SACK, D-SACK and RACK-TLP), tcp_state_ecn.c (ECN
 * and DCTCP's echo) and tcp_state_opts.c (hostile options).  Everything here is static, so
 * each program has its own host and peer.
 */
#ifndef _IXM_TEST_TCP_STATE_H
#define _IXM_TEST_TCP_STATE_H

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
	u32			psack[4][2];	/* SACK blocks the peer's segments carry */
	unsigned int		npsack;		/* how many (0: no SACK option) */
	u8			ptos;		/* the IPv4 TOS of the peer's segments */
	u8			synack_flags;	/* the host's SYN-ACK's control bits */
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

static inline void tc_init_cfg(struct tc *t, const struct ixm_tcp_config *cfg)
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

static inline void tc_init(struct tc *t)
{
	tc_init_cfg(t, NULL);
}

static inline void tc_fini(struct tc *t)
{
	tn_host_free(t->h);
}

/*
 * The host's iteration after the test's input: calls, timers, pending
 * output.  Every frame it queued is read back into @t->seg, every event
 * into @t->ev.
 */
static inline void tc_run(struct tc *t)
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

static inline void tc_advance(struct tc *t, u64 ns)
{
	ixm_host_now_ns += ns;
	tc_run(t);
}

/* Let time pass in @step_ns steps until the host sends something; the wait, or 0. */
static inline u64 tc_wait_seg(struct tc *t, u64 max_ns, u64 step_ns)
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
static inline u64 tc_wait_any(struct tc *t, u64 max_ns, u64 step_ns)
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
static inline u64 tc_wait_ev(struct tc *t, u8 type, u64 max_ns, u64 step_ns)
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
static inline const struct ixmod_event *tc_ev(const struct tc *t, u8 type)
{
	unsigned int i;

	for (i = 0; i < t->nev; i++)
		if (t->ev[i].type == type)
			return &t->ev[i];
	return NULL;
}

static inline unsigned int tc_nev(const struct tc *t, u8 type)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->nev; i++)
		n += t->ev[i].type == type;
	return n;
}

/* A call through the ring; its EV_CALL's res, or 0 if it was answered with none. */
static inline int tc_call(struct tc *t, const struct ixmod_call *c)
{
	const struct ixmod_event *ev;

	tn_app_submit(t->a, c);
	tc_run(t);
	ev = tc_ev(t, IXMOD_EV_CALL);
	return ev ? ev->res : 0;
}

/* A segment from the peer, with @opts on a SYN or timestamps once agreed. */
static inline void tc_seg(struct tc *t, u8 flags, u32 seq, u32 ack, const u8 *d, size_t n,
		   unsigned int opts)
{
	static u8 f[IXM_MBUF_SIZE];
	struct tcp_args a = {
		.src = P_IP, .dst = H_IP, .sport = t->pport, .dport = t->hport,
		.seq = seq, .ack = ack, .flags = flags, .win = t->pwin,
		.data = d, .dlen = n, .tos = t->ptos,
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
	} else {
		unsigned int i;

		if (t->ts)
			olen += tcpopt_ts(o + olen, t->tsval++, t->tsecr);
		if (t->npsack) {
			o[olen++] = 1;
			o[olen++] = 1;
			o[olen++] = 5;
			o[olen++] = (u8)(2 + 8 * t->npsack);
			for (i = 0; i < t->npsack; i++) {
				put32(o + olen, t->psack[i][0]);
				put32(o + olen + 4, t->psack[i][1]);
				olen += 8;
			}
		}
	}
	a.opts = o;
	a.optlen = olen;
	tn_input(t->h, f, tcp_frame(f, our_mac, peer_mac, &a), 0);
	tc_run(t);
}

/* The peer's next segment in sequence; its sequence space is consumed. */
static inline void tc_send(struct tc *t, u8 flags, const u8 *d, size_t n)
{
	u32 seq = t->snd;

	t->snd += (u32)n + !!(flags & TH_SYN) + !!(flags & TH_FIN);
	tc_seg(t, flags, seq, t->rcv, d, n, 0);
}

static inline bool seg_is(const struct tcp_seg *s, u8 flags, u32 seq, u32 ack, size_t dlen)
{
	if (s->flags == flags && s->seq == seq && (!(flags & TH_ACK) || s->ack == ack) &&
	    s->dlen == dlen)
		return true;
	ixm_diag("segment: flags %#x seq %u ack %u len %zu; want flags %#x seq %u ack %u len %zu",
		 s->flags, s->seq, s->ack, s->dlen, flags, seq, ack, dlen);
	return false;
}

/* Exactly one segment went out and it is this one. */
static inline bool one_seg(const struct tc *t, u8 flags, u32 seq, u32 ack, size_t dlen)
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
static inline bool is_ack(const struct tc *t)
{
	return one_seg(t, TH_ACK, t->rcv, t->snd, 0);
}

static inline u32 host_win(const struct tc *t, const struct tcp_seg *s)
{
	return (u32)s->win << t->hws;
}

static inline struct ixm_tcp_stats *stats(struct tc *t)
{
	return &t->h->tcp->stats;
}

/* The connection behind @t->ch, for what nothing outside shows. */
static inline struct ixm_tcp_conn *conn(struct tc *t)
{
	u32 idx = ixm_handle_idx(t->ch);

	return idx < IXM_TCP_CONNS ? &t->h->tcp->conns[idx] : NULL;
}

static inline const char *state(struct tc *t)
{
	struct ixm_tcp_conn *c = conn(t);

	return c && c->state < IXM_TCP_NSTATES ? ixm_tcp_state_names[c->state] : "?";
}

/*
 * Passive open on H_PORT with a SYN carrying @opts and the control bits
 * @synflags (ECE and CWR: ECN-setup): LISTEN, SYN, SYN-ACK, ACK, KNOCK,
 * ACCEPT.  @t->ch is the accepted connection (cookie 0xc0).
 */
static inline bool tc_passive_flags(struct tc *t, unsigned int opts, u8 synflags)
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
	tc_seg(t, TH_SYN | synflags, t->snd, 0, NULL, 0, opts);
	t->snd++;
	if (t->nseg != 1 || (t->seg[0].flags & ~TH_ECE) != (TH_SYN | TH_ACK)) {
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

static inline bool tc_passive(struct tc *t, unsigned int opts)
{
	return tc_passive_flags(t, opts, 0);
}

/*
 * Active open to P_IP:P_PORT, the peer answering with @opts: CONNECT,
 * SYN, SYN-ACK, ACK, CONNECTED.  @t->ch is the connection (cookie 0xc0).
 */
static inline bool tc_active(struct tc *t, unsigned int opts)
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
static inline int tc_sendv(struct tc *t, u32 off, u32 n)
{
	struct ixmod_iov *iov = (struct ixmod_iov *)(t->a->arena + ARENA - 64);
	struct ixmod_call c = tn_call_sendv(t->ch, ARENA - 64, 1, 0x5e);

	iov->off = off;
	iov->len = n;
	return tc_call(t, &c);
}

static inline int tc_recv_done(struct tc *t, u32 n)
{
	struct ixmod_call c = tn_call_recv_done(t->ch, n);

	return tc_call(t, &c);
}

static inline int tc_close(struct tc *t, bool abort)
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
static inline bool dead_handle_lives_until_close(struct tc *t)
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
static inline bool recv_is(struct tc *t, const struct ixmod_event *ev, const u8 *want, u32 n)
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

/* The peer's bytes, filled once before the harness forks the first test. */
static void __attribute__((constructor)) data_fill(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 7 + i / 256 + 3);
}

#endif /* _IXM_TEST_TCP_STATE_H */
