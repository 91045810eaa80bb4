// SPDX-License-Identifier: GPL-2.0
/*
 * tcp6_icmp.c - what TCP over IPv6 does with the ICMPv6 errors about it
 *
 * Two hosts of testnet.h on one link (2001:db8::1 the client, ::2 the
 * server).  A tap keeps a copy of the client's last TCP segment, and the
 * test hands the client an ICMPv6 error quoting it, as the server or a
 * router (2001:db8::fe) would send it (RFC 4443 §3.1, §3.2):
 *
 * - a Destination Unreachable aborts a connect in SYN-SENT with the
 *   errno Linux gives its code; in ESTABLISHED it is a soft error only
 *   (RFC 1122 §4.2.3.9), which a later timeout reports instead of
 *   ETIMEDOUT unless data was acknowledged since;
 * - a quoted sequence number outside SND.UNA..SND.NXT (the ISS in
 *   SYN-SENT), a quote of another connection or from another address,
 *   change nothing (RFC 5927 §4.1), counted in tcp_icmp_ignored;
 * - a Packet Too Big lowers the MSS to what the MTU leaves, an MTU under
 *   1280 taken as 1280 (RFC 8200 §5), never raises it; what was in flight
 *   goes again at once in pieces that fit, every later segment fits, and
 *   the bytes arrive exact, with SACK and without.
 *
 * unit/tcp_pair.c's ipv6_ptb_1280 variants move 2 MiB each way over a
 * link that drops larger packets and sends the Packet Too Bigs itself.
 */
#include <string.h>

#include "frames.h"
#include "harness.h"
#include "testnet.h"

#define SPORT		8080
#define RING		256
#define ARENA		(256u << 10)
#define UD_LISTEN	0x10
#define UD_CONNECT	0x20
#define UD_SEND		0x30
#define MS		1000000ULL

static const u8 ip6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const u8 ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
static const u8 router6[16] = TN_ROUTER6;

/*
 * What the tap saw the client send: its last TCP segment (the SYN, or
 * data), the largest IPv6 packet since @big_from was reset, and how many
 * segments over @mtu.
 */
struct tap {
	u8		last[IXM_MBUF_SIZE];
	size_t		last_len;
	size_t		big;
	unsigned int	over;
	u32		mtu;
};

struct pair {
	struct tn_host	*h[2];
	struct tn_app	*a[2];
	struct tn_link	*l;
	struct tap	tap;
	u64		ch;		/* the client's connection */
	u64		sh;		/* the server's, accepted */
	u32		want;		/* bytes the client is to send */
	u32		sent;		/* of those, bytes TCP took */
	bool		busy;		/* a send call is out */
	u32		rcvd;		/* bytes the server got, checked */
	u32		bad;		/* of those, wrong */
};

static void tap_fn(void *arg, unsigned int from, const u8 *f, size_t len)
{
	struct tap *t = arg;

	if (from || len < 14 + 40 + 20 || get16(f + 12) != 0x86dd || f[20] != 6)
		return;
	memcpy(t->last, f, len);
	t->last_len = len;
	if (len - 14 > t->big)
		t->big = len - 14;
	if (t->mtu && len - 14 > t->mtu)
		t->over++;
}

/* Host 0 the client, host 1 the server; @sack: tcp_sack on both. */
static void pair_new(struct pair *p, bool sack, u32 loss_ppm)
{
	struct tn_link_cfg lc = { .delay = 2, .seed = 9, .loss_ppm = loss_ppm };
	struct ixm_tcp_config cfg;
	unsigned int k;

	memset(p, 0, sizeof(*p));
	ixm_host_now_ns = 1000000 * MS;
	ixm_tcp_config_default(&cfg);
	cfg.sack = sack;
	cfg.retries = 3;
	cfg.syn_retries = 2;
	for (k = 0; k < 2; k++) {
		struct tn_host_cfg hc = { .ip = TN_IP(k + 1), .seed = k + 1, .tcp = &cfg };

		p->h[k] = tn_host_new(&hc);
		tn_host_ip6(p->h[k], k ? ip6_b : ip6_a, 64);
		p->a[k] = tn_app_new(p->h[k], RING, RING, ARENA);
		tn_app_set_inet6(p->a[k], true);
	}
	/* each knows the other: the first frame of a connect is its SYN */
	tn_learn6(p->h[0], ip6_b, p->h[1]->cfg.mac);
	tn_learn6(p->h[1], ip6_a, p->h[0]->cfg.mac);
	for (k = 0; k < ARENA; k++)
		p->a[0]->arena[k] = (u8)(k * 7 + k / 251);
	p->l = tn_link_new(p->h[0], p->h[1], &lc);
	p->l->tap = tap_fn;
	p->l->tap_arg = &p->tap;
}

static void pair_free(struct pair *p)
{
	unsigned int k;

	tn_link_free(p->l);
	for (k = 0; k < 2; k++) {
		tn_app_free(p->a[k]);
		tn_host_free(p->h[k]);
	}
}

/* The server's application: accept, check what arrives, give it back. */
static void server_app(struct pair *p)
{
	struct ixmod_event_ext x;
	struct ixmod_call c;
	const u8 *d;

	while (tn_app_event_ext(p->a[1], &x)) {
		switch (x.ev.type) {
		case IXMOD_EV_TCP_KNOCK:
			p->sh = x.ev.handle;
			c = tn_call_accept(x.ev.handle, x.ev.handle);
			tn_app_submit(p->a[1], &c);
			break;
		case IXMOD_EV_TCP_RECV:
			if (x.ev.res <= 0)
				break;
			d = tn_rx_ptr(p->h[1], x.ev.off, (u32)x.ev.res);
			if (!d || p->rcvd + (u32)x.ev.res > ARENA ||
			    memcmp(d, p->a[0]->arena + p->rcvd, (u32)x.ev.res))
				p->bad++;
			p->rcvd += (u32)x.ev.res;
			c = tn_call_recv_done(x.ev.user_data, (u32)x.ev.res);
			tn_app_submit(p->a[1], &c);
			break;
		default:
			break;
		}
	}
}

/* Step until the client's application has an event of @type (or @steps pass). */
static bool client_wait(struct pair *p, u8 type, struct ixmod_event_ext *x,
			unsigned int steps)
{
	unsigned int i;

	struct ixmod_call c;

	for (i = 0; i < steps; i++) {
		tn_step(p->l);
		server_app(p);
		while (tn_app_event_ext(p->a[0], x)) {
			if (x->ev.type == IXMOD_EV_CALL && x->ev.user_data == UD_SEND) {
				p->busy = false;
				if (x->ev.res > 0)
					p->sent += (u32)x->ev.res;
			}
			if (x->ev.type == type)
				return true;
		}
		/* what TCP did not take goes again, a step later */
		if (!p->busy && p->sent < p->want) {
			c = tn_call_send(p->ch, p->sent, p->want - p->sent, UD_SEND);
			tn_app_submit(p->a[0], &c);
			p->busy = true;
		}
	}
	return false;
}

/* One step of the link and both applications (the client's events read). */
static void step(struct pair *p)
{
	struct ixmod_event_ext x;

	client_wait(p, 0xff, &x, 1);
}

/* Listen, connect over IPv6; with @wait, until both ends are open. */
static void pair_open(struct __test_metadata *_metadata, struct pair *p, bool wait)
{
	struct ixmod_call c = tn_call_listen(SPORT, 8, UD_LISTEN);
	struct ixmod_event_ext x;
	struct ixmod_event ev;
	unsigned int i;

	ASSERT_EQ(0, tn_app_call(p->a[1], &c, &ev));
	c = tn_call_connect(0, SPORT, UD_CONNECT);
	c.flags = IXMOD_CALL_F_INET6;
	memcpy(c.addr6, ip6_b, 16);
	ASSERT_EQ(0, tn_app_call(p->a[0], &c, &ev));
	p->ch = ev.handle;
	if (!wait)
		return;
	ASSERT_TRUE(client_wait(p, IXMOD_EV_TCP_CONNECTED, &x, 200));
	ASSERT_EQ(0, x.ev.res);
	for (i = 0; i < 200 && !p->sh; i++)
		step(p);
	ASSERT_NE(0, p->sh) TH_LOG("the server accepted");
}

static struct ixm_tcp_conn *client_conn(struct pair *p)
{
	return ixm_tcp_conn_get(p->h[0]->tcp, &p->a[0]->app, p->ch);
}

/* The client is to send the arena's bytes up to @want, from where it is. */
static void client_send(struct pair *p, u32 want)
{
	struct ixmod_call c = tn_call_send(p->ch, p->sent, want - p->sent, UD_SEND);

	p->want = want;
	if (p->busy)
		return;		/* its answer brings the next call */
	tn_app_submit(p->a[0], &c);
	p->busy = true;
}

/*
 * Hand the client an ICMPv6 error from @src6 quoting the IPv6 packet of
 * frame @q (as much as keeps the message within 1280 bytes), with the
 * quoted sequence number moved by @dseq.
 */
static void inject(struct pair *p, const u8 *src6, u8 type, u8 code, u32 info,
		   const u8 *q, size_t qlen, s32 dseq)
{
	struct tn_host *h = p->h[0];
	u8 f[14 + 1280], *ip6 = f + 14, *msg;
	size_t n = qlen - 14 < 1280 - 48 ? qlen - 14 : 1280 - 48;

	msg = put_ip6(put_eth(f, h->cfg.mac, p->h[1]->cfg.mac, 0x86dd), src6, h->cfg.ip6.s6,
		      58, (unsigned int)(8 + n), 255);
	msg[0] = type;
	msg[1] = code;
	put32(msg + 4, info);
	memcpy(msg + 8, q + 14, n);
	put32(msg + 8 + 40 + 4, get32(msg + 8 + 40 + 4) + (u32)dseq);
	fix_icmp6_csum(ip6, msg, 8 + n);
	tn_input(h, f, 14 + 40 + 8 + n, 0);
}

/* The same, quoting the client's last segment. */
static void inject_last(struct pair *p, u8 type, u8 code, u32 info, s32 dseq)
{
	inject(p, ip6_b, type, code, info, p->tap.last, p->tap.last_len, dseq);
}

static const struct ixm_tcp_stats *cstats(const struct pair *p)
{
	return &p->h[0]->tcp->stats;
}

/*
 * Each code of RFC 4443 §3.1 ends a connect in SYN-SENT at once, with
 * Linux's errno for it (icmpv6_err_convert()) in TCP_CONNECTED and
 * TCP_DEAD; the SYN never reaches the server (the link loses it all).
 */
TEST(tcp6_unreach_aborts_connect)
{
	static const struct { u8 code; int err; } map[] = {
		{ 0, -ENETUNREACH }, { 1, -EACCES }, { 2, -EHOSTUNREACH },
		{ 3, -EHOSTUNREACH }, { 4, -ECONNREFUSED }, { 5, -EACCES },
		{ 6, -EACCES }, { 7, -EPROTO },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		struct ixmod_event_ext x;
		struct pair p;

		pair_new(&p, true, 1000000);
		pair_open(_metadata, &p, false);
		tn_step(p.l);
		ASSERT_NE(0, p.tap.last_len) TH_LOG("the SYN went out");
		EXPECT_EQ(TH_SYN, p.tap.last[14 + 40 + 13]);
		inject_last(&p, 1, map[i].code, 0, 0);
		EXPECT_EQ(1, cstats(&p)->icmp_unreach) TH_LOG("code %u", map[i].code);
		EXPECT_EQ(1, cstats(&p)->attempt_fails);
		ASSERT_TRUE(client_wait(&p, IXMOD_EV_TCP_CONNECTED, &x, 2));
		EXPECT_EQ(map[i].err, x.ev.res) TH_LOG("code %u: TCP_CONNECTED's errno",
						       map[i].code);
		ASSERT_TRUE(client_wait(&p, IXMOD_EV_TCP_DEAD, &x, 2));
		EXPECT_EQ(map[i].err, x.ev.res) TH_LOG("code %u: TCP_DEAD's", map[i].code);
		EXPECT_EQ(0, p.h[0]->stats.drops[IXM_DROP_ICMP6_TYPE]) TH_LOG("TCP took it");
		pair_free(&p);
	}
}

/*
 * In SYN-SENT only the ISS may be quoted; and only a quote from one of
 * the port's addresses, naming the connection's 4-tuple, counts.  The
 * connect then goes on as if nothing came, until its own timeout.
 */
TEST(tcp6_unreach_ignored_unless_ours)
{
	static const u8 other6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 9 };
	struct ixmod_event_ext x;
	struct ixm_tcp_conn *c;
	u8 q[IXM_MBUF_SIZE];
	struct pair p;

	pair_new(&p, true, 1000000);
	pair_open(_metadata, &p, false);
	tn_step(p.l);
	ASSERT_NE(0, p.tap.last_len);
	inject_last(&p, 1, 4, 0, 1);		/* ISS + 1 */
	inject_last(&p, 1, 4, 0, -1);		/* ISS - 1 */
	memcpy(q, p.tap.last, p.tap.last_len);
	memcpy(q + 14 + 8, other6, 16);		/* not our address */
	inject(&p, ip6_b, 1, 4, 0, q, p.tap.last_len, 0);
	memcpy(q, p.tap.last, p.tap.last_len);
	put16(q + 14 + 40, get16(q + 14 + 40) + 1);	/* another source port */
	inject(&p, ip6_b, 1, 4, 0, q, p.tap.last_len, 0);
	EXPECT_EQ(4, cstats(&p)->icmp_ignored);
	EXPECT_EQ(0, cstats(&p)->icmp_unreach);
	c = client_conn(&p);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(IXM_TCP_SYN_SENT, c->state);
	/* a quote too short to hold the ports and sequence number: not TCP's */
	inject(&p, ip6_b, 1, 4, 0, p.tap.last, 14 + 40 + 7, 0);
	EXPECT_EQ(1, p.h[0]->stats.drops[IXM_DROP_ICMP6_TYPE]);
	EXPECT_EQ(4, cstats(&p)->icmp_ignored);
	ASSERT_TRUE(client_wait(&p, IXMOD_EV_TCP_CONNECTED, &x, 200000));
	EXPECT_EQ(-ETIMEDOUT, x.ev.res) TH_LOG("the connect timed out on its own");
	pair_free(&p);
}

/*
 * Established: a Destination Unreachable does not abort (RFC 1122
 * §4.2.3.9).  The link then loses everything: the data times out, and
 * TCP_DEAD says what the ICMPv6 message said, not ETIMEDOUT.
 */
TEST(tcp6_unreach_established_soft)
{
	struct ixmod_event_ext x;
	struct ixm_tcp_conn *c;
	struct pair p;

	pair_new(&p, true, 0);
	pair_open(_metadata, &p, true);
	p.l->cfg.loss_ppm = 1000000;
	client_send(&p, 3000);
	step(&p);
	c = client_conn(&p);
	ASSERT_NE(NULL, c);
	ASSERT_NE(c->snd_una, c->snd_max) TH_LOG("data in flight");
	inject_last(&p, 1, 1, 0, 0);		/* administratively prohibited */
	EXPECT_EQ(1, cstats(&p)->icmp_unreach);
	EXPECT_EQ(IXM_TCP_ESTABLISHED, c->state) TH_LOG("not aborted");
	EXPECT_FALSE(client_wait(&p, IXMOD_EV_TCP_DEAD, &x, 100));
	ASSERT_TRUE(client_wait(&p, IXMOD_EV_TCP_DEAD, &x, 100000));
	EXPECT_EQ(-EACCES, x.ev.res) TH_LOG("the timeout reports the soft error");
	EXPECT_LE(4, cstats(&p)->timeouts);
	pair_free(&p);
}

/*
 * The soft error is forgotten once data is acknowledged after it: a
 * later timeout is ETIMEDOUT.  An unreachable quoting a sequence number
 * already acknowledged, or past SND.NXT, is ignored (RFC 5927 §4.1).
 */
TEST(tcp6_unreach_soft_forgotten_and_window)
{
	struct ixmod_event_ext x;
	struct ixm_tcp_conn *c;
	struct pair p;

	pair_new(&p, true, 0);
	pair_open(_metadata, &p, true);
	client_send(&p, 3000);
	step(&p);
	c = client_conn(&p);
	ASSERT_NE(NULL, c);
	ASSERT_NE(c->snd_una, c->snd_max);
	inject_last(&p, 1, 3, 0, 0);
	EXPECT_EQ(1, cstats(&p)->icmp_unreach);
	while (c->snd_una != c->snd_max && p.l->step < 1000)
		step(&p);
	EXPECT_EQ(3000, p.rcvd);
	/* [snd_una, snd_max] is empty of this segment now: below SND.UNA */
	inject_last(&p, 1, 3, 0, 0);
	inject_last(&p, 1, 3, 0, 100000);
	EXPECT_EQ(2, cstats(&p)->icmp_ignored);
	EXPECT_EQ(1, cstats(&p)->icmp_unreach);
	p.l->cfg.loss_ppm = 1000000;
	client_send(&p, 4000);
	ASSERT_TRUE(client_wait(&p, IXMOD_EV_TCP_DEAD, &x, 100000));
	EXPECT_EQ(-ETIMEDOUT, x.ev.res) TH_LOG("acknowledged since: not the soft error");
	EXPECT_EQ(0, p.bad);
	pair_free(&p);
}

/*
 * A Packet Too Big with MTU 1000 quoting a segment in flight: the path
 * MTU is 1280 (RFC 8200 §5), the MSS 1280 - 40 - 20 - 12 (timestamps);
 * what was in flight goes again at once, and from then on no segment is
 * larger than 1280 bytes; a second one (1400, or 1280 again) changes
 * nothing; a PTB quoting a sequence number out of the window is ignored.
 * Every byte reaches the server, in order.
 */
static void ptb_run(struct __test_metadata *_metadata, bool sack)
{
	struct ixm_tcp_conn *c;
	u64 retrans;
	struct pair p;

	pair_new(&p, sack, 0);
	pair_open(_metadata, &p, true);
	c = client_conn(&p);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(!!sack, !!(c->flags & IXM_TCPF_SACK));
	EXPECT_EQ(1440 - 12, c->mss) TH_LOG("an MSS for 1500 bytes");
	client_send(&p, 20000);
	step(&p);
	EXPECT_EQ(1500, p.tap.big) TH_LOG("full-sized segments out");
	ASSERT_NE(c->snd_una, c->snd_max);
	inject_last(&p, 2, 0, 1500, 0);		/* not below 1500: nothing */
	EXPECT_EQ(1, cstats(&p)->icmp_ignored);
	inject_last(&p, 2, 0, 1000, 1 << 30);	/* out of the window */
	EXPECT_EQ(2, cstats(&p)->icmp_ignored);
	EXPECT_EQ(1440 - 12, c->mss);
	retrans = cstats(&p)->retrans;
	inject(&p, router6, 2, 0, 1000, p.tap.last, p.tap.last_len, 0);
	EXPECT_EQ(1, cstats(&p)->icmp_ptb);
	EXPECT_EQ(1280, c->pmtu);
	EXPECT_EQ(1280 - 40 - 20 - 12, c->mss) TH_LOG("the MSS for 1280 bytes");
	EXPECT_EQ(0, p.h[0]->stats.drops[IXM_DROP_ICMP6_TYPE]);
	p.tap.big = 0;
	p.tap.mtu = 1280;
	step(&p);
	EXPECT_LT(retrans, cstats(&p)->retrans) TH_LOG("sent again at once");
	inject_last(&p, 2, 0, 1400, 0);
	inject_last(&p, 2, 0, 1280, 0);
	EXPECT_EQ(4, cstats(&p)->icmp_ignored) TH_LOG("never raised, not lowered twice");
	EXPECT_EQ(1280 - 40 - 20 - 12, c->mss);
	client_send(&p, 60000);
	while ((p.rcvd < 60000 || c->snd_una != c->snd_max) && p.l->step < 20000)
		step(&p);
	EXPECT_EQ(60000, p.rcvd) {
		TH_LOG(
		       "every byte arrived: una %u nxt %u max %u end %u wnd %u cwnd %u lost %u segs %u flags %#x",
		       c->snd_una - c->iss, c->snd_nxt - c->iss, c->snd_max - c->iss,
		       c->snd_end - c->iss, c->snd_wnd, c->cwnd, c->lost_bytes, c->seg_count,
		       c->flags);
	}
	EXPECT_EQ(0, p.bad) TH_LOG("exact");
	EXPECT_EQ(1280, p.tap.big) TH_LOG("after the PTB, segments of 1280 bytes");
	EXPECT_EQ(0, p.tap.over) TH_LOG("none over it");
	EXPECT_EQ(0, cstats(&p)->timeouts);
	EXPECT_EQ(0, cstats(&p)->fast_retrans);
	EXPECT_EQ(0, cstats(&p)->tx_oversize);
	pair_free(&p);
}

TEST(tcp6_ptb_lowers_mss_sack)
{
	ptb_run(_metadata, true);
}

TEST(tcp6_ptb_lowers_mss_newreno)
{
	ptb_run(_metadata, false);
}

/*
 * Without SACK: a full-sized segment, then three small ones, over a link
 * whose router takes 1280 bytes at most (tn_link_cfg.mtu6).  The small
 * ones arrive and the server answers each with a duplicate ACK, after
 * the Packet Too Big: the go-back the PTB started sends all four again,
 * and those duplicates must not start a fast retransmit, which would cut
 * cwnd for what is no congestion (RFC 6582 §3.2 step 2: the recovery
 * point moved to SND.MAX).
 */
TEST(tcp6_ptb_newreno_dupacks_no_recovery)
{
	struct ixm_tcp_conn *c;
	struct ixmod_call call;
	unsigned int i;
	struct pair p;
	u32 cwnd;

	pair_new(&p, false, 0);
	pair_open(_metadata, &p, true);
	/* SND.UNA past the recovery point the handshake set (RFC 6582 §3.2) */
	call = tn_call_send(p.ch, 0, 1000, UD_SEND);
	tn_app_submit(p.a[0], &call);
	for (i = 0; i < 50; i++)
		step(&p);
	p.l->cfg.mtu6 = 1280;
	p.l->cfg.delay = 5;	/* the small ones all leave before the PTB is back */
	c = client_conn(&p);
	ASSERT_NE(NULL, c);
	cwnd = c->cwnd;
	for (i = 0; i < 4; i++) {
		call = tn_call_send(p.ch, i ? 2428 + (i - 1) * 100 : 1000, i ? 100 : 1428,
				    UD_SEND);
		tn_app_submit(p.a[0], &call);
		step(&p);
	}
	for (i = 0; i < 200 && c->snd_una != c->snd_max; i++)
		step(&p);
	EXPECT_EQ(2728, p.rcvd);
	EXPECT_EQ(0, p.bad);
	EXPECT_EQ(1, p.l->stats.ptb_sent);
	EXPECT_EQ(1, cstats(&p)->icmp_ptb);
	EXPECT_LE(3, p.h[1]->tcp->stats.ooo) TH_LOG("the small ones arrived out of order");
	EXPECT_EQ(0, cstats(&p)->fast_retrans) TH_LOG("no fast retransmit for the go-back");
	EXPECT_LE(cwnd, c->cwnd) TH_LOG("cwnd not cut");
	pair_free(&p);
}

/*
 * A Packet Too Big before the handshake ends caps the MSS the SYN-ACK's
 * option then sets.
 */
TEST(tcp6_ptb_in_syn_sent)
{
	struct ixmod_event_ext x;
	struct ixm_tcp_conn *c;
	struct pair p;

	pair_new(&p, true, 0);
	pair_open(_metadata, &p, false);
	tn_step(p.l);
	ASSERT_NE(0, p.tap.last_len);
	inject_last(&p, 2, 0, 1300, 0);
	EXPECT_EQ(1, cstats(&p)->icmp_ptb);
	ASSERT_TRUE(client_wait(&p, IXMOD_EV_TCP_CONNECTED, &x, 200));
	EXPECT_EQ(0, x.ev.res);
	c = client_conn(&p);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(1300 - 40 - 20 - 12, c->mss);
	pair_free(&p);
}

TEST_HARNESS_MAIN
