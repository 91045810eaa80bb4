// SPDX-License-Identifier: GPL-2.0
/*
 * tcp6_icmp_relay.c - an ICMPv6 error reaches the core that owns the TCP
 * connection it quotes
 *
 * One port served by two cores: two hosts of testnet.h with the same
 * addresses and MAC (2001:db8::1), queue 0 (@q0) and queue 1 (@own), the
 * port's Toeplitz key and one relay (net/icmp6_relay.h) between them.
 * The connections are queue 1's: its core picks their ephemeral ports so
 * that their replies hash there (tcp_call.c), and only it has a link, to
 * the server (2001:db8::2).  The errors arrive at queue 0's core, as RSS
 * sends an ICMPv6 message by its addresses alone:
 *
 * - queue 0 hands each error about one of queue 1's connections over
 *   (tcp_icmp_handed), and wakes queue 1's core when its mailbox was
 *   empty; queue 1 acts on them at its next iteration: a Packet Too Big
 *   lowers the MSS, a Destination Unreachable in SYN-SENT aborts the
 *   connect with its errno;
 * - the checks still run at the owner: a quoted sequence number out of
 *   the window is ignored there (RFC 5927 §4.1), and an error for no
 *   connection is ignored, not handed on again;
 * - an error whose 4-tuple hashes to the core it reached, or quoting an
 *   address not the port's, is not handed: ignored there;
 * - a full mailbox (16 records) drops and counts (tcp_icmp_hand_full).
 *
 * The key is not a symmetric one: a hash of the wrong direction (the
 * quoted segment's, not its replies') names the wrong queue for about
 * half the connections.
 */
#include <string.h>

#include "frames.h"
#include "harness.h"
#include "icmp6_relay.h"
#include "testnet.h"
#include "toeplitz.h"

#define SPORT		8080
#define RING		256
#define ARENA		(256u << 10)
#define UD_LISTEN	0x10
#define UD_CONNECT	0x20
#define UD_SEND		0x30
#define MS		1000000ULL
#define NCONN		8
#define XFER		200000	/* bytes of relay_ptb_transfer_completes */

static const u8 ip6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const u8 ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/* Microsoft's RSS verification key: not symmetric */
static const u8 key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

struct port2 {
	struct tn_host		*q0;	/* queue 0's core: the errors arrive here */
	struct tn_host		*own;	/* queue 1's: the connections are here */
	struct tn_host		*srv;	/* the server, linked to @own */
	struct tn_app		*a[2];	/* @own's, @srv's */
	struct tn_link		*l;
	struct ixm_icmp6_relay	*relay;
	unsigned int		wakes[2];
	u64			ch[NCONN];
	unsigned int		nconn;
};

static void wake_fn(struct ixm_icmp6_relay *r, unsigned int q)
{
	struct port2 *p = r->priv;

	p->wakes[q]++;
}

static void set_queue(struct tn_host *h, struct ixm_icmp6_relay *r, u16 q)
{
	h->port.rss_key = key;
	h->port.rss_nq = 2;
	h->port.rss_q = q;
	h->port.relay = r;
}

/* @loss_ppm: the link's loss, 1000000 to keep connects in SYN-SENT */
static void port2_new(struct port2 *p, u32 loss_ppm)
{
	struct tn_link_cfg lc = { .delay = 2, .seed = 9, .loss_ppm = loss_ppm };
	struct tn_host_cfg hc = { .ip = TN_IP(1), .seed = 1 };
	struct tn_host_cfg sc = { .ip = TN_IP(2), .seed = 2 };
	unsigned int k;

	memset(p, 0, sizeof(*p));
	ixm_host_now_ns = 1000000 * MS;
	p->own = tn_host_new(&hc);
	hc.seed = 3;
	p->q0 = tn_host_new(&hc);
	p->srv = tn_host_new(&sc);
	tn_host_ip6(p->own, ip6_a, 64);
	tn_host_ip6(p->q0, ip6_a, 64);
	tn_host_ip6(p->srv, ip6_b, 64);
	p->relay = ixm_icmp6_relay_alloc(2, wake_fn, p);
	set_queue(p->q0, p->relay, 0);
	set_queue(p->own, p->relay, 1);
	p->a[0] = tn_app_new(p->own, RING, RING, ARENA);
	p->a[1] = tn_app_new(p->srv, RING, RING, ARENA);
	for (k = 0; k < 2; k++)
		tn_app_set_inet6(p->a[k], true);
	tn_learn6(p->own, ip6_b, p->srv->cfg.mac);
	tn_learn6(p->srv, ip6_a, p->own->cfg.mac);
	p->l = tn_link_new(p->own, p->srv, &lc);
}

static void port2_free(struct port2 *p)
{
	tn_link_free(p->l);
	tn_app_free(p->a[0]);
	tn_app_free(p->a[1]);
	tn_host_free(p->own);
	tn_host_free(p->q0);
	tn_host_free(p->srv);
	ixm_icmp6_relay_free(p->relay);
}

static struct ixm_tcp_stats *st(struct tn_host *h)
{
	return &h->tcp->stats;
}

/* @n connects from @own to the server, different ports */
static void port2_connect(struct __test_metadata *_metadata, struct port2 *p,
			  unsigned int n)
{
	struct ixmod_call c = tn_call_listen(SPORT, 16, UD_LISTEN);
	struct ixmod_event ev;
	unsigned int i;

	ASSERT_EQ(0, tn_app_call(p->a[1], &c, &ev));
	for (i = 0; i < n; i++) {
		c = tn_call_connect(0, SPORT, UD_CONNECT + i);
		c.flags = IXMOD_CALL_F_INET6;
		memcpy(c.addr6, ip6_b, 16);
		ASSERT_EQ(0, tn_app_call(p->a[0], &c, &ev));
		p->ch[i] = ev.handle;
	}
	p->nconn = n;
}

static struct ixm_tcp_conn *conn(struct port2 *p, unsigned int i)
{
	return ixm_tcp_conn_get(p->own->tcp, &p->a[0]->app, p->ch[i]);
}

/*
 * Hand @h an ICMPv6 error from the server quoting a segment from @qsrc of
 * @c's ports and sequence number @seq: the IPv6 header and the TCP
 * header's first 20 bytes.
 */
static void inject_from(struct tn_host *h, const u8 *qsrc, const struct ixm_tcp_conn *c,
			u8 type, u8 code, u32 info, u32 seq)
{
	static const u8 srv_mac[6] = { 0x02, 0x00, 0x5e, 0x00, 0x01, 0x02 };
	u8 f[14 + 40 + 8 + 40 + 20], *msg, *q;

	msg = put_ip6(put_eth(f, h->cfg.mac, srv_mac, 0x86dd), ip6_b, ip6_a, 58,
		      8 + 40 + 20, 255);
	msg[0] = type;
	msg[1] = code;
	put16(msg + 2, 0);
	put32(msg + 4, info);
	q = put_ip6(msg + 8, qsrc, ip6_b, 6, 20, 64);
	memcpy(q, &c->lport, 2);
	memcpy(q + 2, &c->rport, 2);
	put32(q + 4, seq);
	put32(q + 8, 0);
	q[12] = 5 << 4;
	q[13] = TH_ACK;
	put16(q + 14, 65535);
	put32(q + 16, 0);
	fix_icmp6_csum(f + 14, msg, 8 + 40 + 20);
	tn_input(h, f, sizeof(f), 0);
}

/* The same, quoting a segment of @c from our address */
static void inject(struct tn_host *h, const struct ixm_tcp_conn *c, u8 type, u8 code,
		   u32 info, u32 seq)
{
	inject_from(h, ip6_a, c, type, code, info, seq);
}

/* Run @own's loop @n times (and the link) */
static void run(struct port2 *p, unsigned int n)
{
	while (n--)
		tn_step(p->l);
}

/*
 * Destination Unreachables about @own's connects, in SYN-SENT, reach
 * queue 0: each is handed over, the first wakes @own, nothing happens
 * until @own runs; then every connect ends with ECONNREFUSED.
 */
TEST(relay_unreach_aborts_connects)
{
	struct ixmod_event_ext x;
	unsigned int i, refused = 0;
	struct port2 p;

	port2_new(&p, 1000000);
	port2_connect(_metadata, &p, NCONN);
	run(&p, 1);
	for (i = 0; i < NCONN; i++) {
		ASSERT_NE(NULL, conn(&p, i));
		ASSERT_EQ(IXM_TCP_SYN_SENT, conn(&p, i)->state);
		inject(p.q0, conn(&p, i), 1, 4, 0, conn(&p, i)->iss);
	}
	EXPECT_EQ(NCONN, st(p.q0)->icmp_handed) TH_LOG("every one handed to queue 1");
	EXPECT_EQ(0, st(p.q0)->icmp_ignored);
	EXPECT_EQ(0, st(p.q0)->icmp_hand_full);
	EXPECT_EQ(0, p.q0->stats.drops[IXM_DROP_ICMP6_TYPE]);
	EXPECT_EQ(1, p.wakes[1]) TH_LOG("the owner woken once: its mailbox was empty");
	EXPECT_EQ(0, p.wakes[0]);
	EXPECT_TRUE(ixm_icmp6_relay_pending(&p.own->port));
	EXPECT_FALSE(ixm_icmp6_relay_pending(&p.q0->port));
	EXPECT_EQ(0, st(p.own)->icmp_unreach) TH_LOG("nothing before the owner runs");
	EXPECT_EQ(IXM_TCP_SYN_SENT, conn(&p, 0)->state);

	run(&p, 1);
	EXPECT_FALSE(ixm_icmp6_relay_pending(&p.own->port)) TH_LOG("drained");
	EXPECT_EQ(NCONN, st(p.own)->icmp_unreach);
	EXPECT_EQ(NCONN, st(p.own)->attempt_fails);
	EXPECT_EQ(0, st(p.own)->icmp_ignored);
	EXPECT_EQ(0, st(p.own)->icmp_handed) TH_LOG("the owner hands nothing on");
	for (i = 0; i < 4 && refused < NCONN; i++) {
		while (tn_app_event_ext(p.a[0], &x))
			if (x.ev.type == IXMOD_EV_TCP_CONNECTED && x.ev.res == -ECONNREFUSED)
				refused++;
		run(&p, 1);
	}
	EXPECT_EQ(NCONN, refused) TH_LOG("every connect failed with ECONNREFUSED");
	port2_free(&p);
}

/*
 * The owner checks as if the error had come to it: a quoted sequence
 * number other than the ISS in SYN-SENT is ignored there, after the
 * handoff; a 4-tuple that names no connection and hashes to queue 1 is
 * handed, then ignored at queue 1; one that hashes to queue 0 is ignored
 * at queue 0; a quote from an address not the port's is ignored at once.
 */
TEST(relay_owner_checks)
{
	struct ixm_tcp_conn ghost;
	struct port2 p;
	unsigned int i, to1 = 0, to0 = 0;

	port2_new(&p, 1000000);
	port2_connect(_metadata, &p, 1);
	run(&p, 1);
	ASSERT_NE(NULL, conn(&p, 0));
	inject(p.q0, conn(&p, 0), 1, 4, 0, conn(&p, 0)->iss + 1);
	EXPECT_EQ(1, st(p.q0)->icmp_handed);
	run(&p, 1);
	EXPECT_EQ(1, st(p.own)->icmp_ignored) TH_LOG("wrong sequence number: ignored by the owner");
	EXPECT_EQ(0, st(p.own)->icmp_unreach);
	EXPECT_EQ(IXM_TCP_SYN_SENT, conn(&p, 0)->state);

	/* no connection at all: the hash alone decides */
	memcpy(&ghost, conn(&p, 0), sizeof(ghost));
	for (i = 0; i < 32; i++) {
		u32 h;

		ghost.lport = ixm_htons(40000 + i);
		h = ixm_toeplitz_ipv6_l4(key, ip6_b, ip6_a, ghost.rport, ghost.lport);
		if ((h & 127) % 2)
			to1++;
		else
			to0++;
		inject(p.q0, &ghost, 1, 4, 0, 1);
	}
	ASSERT_NE(0, to1);
	ASSERT_NE(0, to0);
	EXPECT_EQ(1 + to1, st(p.q0)->icmp_handed);
	EXPECT_EQ(to0, st(p.q0)->icmp_ignored);
	run(&p, 1);
	EXPECT_EQ(1 + to1, st(p.own)->icmp_ignored) TH_LOG("no connection at the owner either");
	EXPECT_EQ(0, st(p.own)->icmp_handed) TH_LOG("never handed back");
	EXPECT_EQ(0, st(p.q0)->icmp_unreach);

	/* the quoted source is not ours: not handed */
	inject_from(p.q0, ip6_b, conn(&p, 0), 1, 4, 0, conn(&p, 0)->iss);
	EXPECT_EQ(1 + to1, st(p.q0)->icmp_handed);
	EXPECT_EQ(to0 + 1, st(p.q0)->icmp_ignored);
	EXPECT_EQ(0, p.q0->stats.drops[IXM_DROP_ICMP6_TYPE]);

	/* the owner checks the address again: gone meanwhile, ignored */
	inject(p.q0, conn(&p, 0), 1, 4, 0, conn(&p, 0)->iss);
	EXPECT_EQ(2 + to1, st(p.q0)->icmp_handed);
	tn_host_ip6(p.own, ip6_b, 64);
	run(&p, 1);
	EXPECT_EQ(2 + to1, st(p.own)->icmp_ignored);
	EXPECT_EQ(0, st(p.own)->icmp_unreach);
	port2_free(&p);
}

/*
 * An established connection of queue 1 with data in flight: a Packet Too
 * Big that reached queue 0 lowers its MSS once queue 1 runs, and its data
 * is sent again in segments that fit; the error arriving at queue 1
 * itself is acted on there, not handed.
 */
TEST(relay_ptb_lowers_mss)
{
	struct ixmod_event_ext x;
	struct ixm_tcp_conn *c;
	struct ixmod_call call;
	unsigned int i;
	struct port2 p;
	u64 retrans;

	port2_new(&p, 0);
	port2_connect(_metadata, &p, 1);
	for (i = 0; i < 200; i++) {
		run(&p, 1);
		while (tn_app_event_ext(p.a[1], &x))
			if (x.ev.type == IXMOD_EV_TCP_KNOCK) {
				call = tn_call_accept(x.ev.handle, x.ev.handle);
				tn_app_submit(p.a[1], &call);
			}
		c = conn(&p, 0);
		if (c && c->state == IXM_TCP_ESTABLISHED)
			break;
	}
	c = conn(&p, 0);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(IXM_TCP_ESTABLISHED, c->state);
	EXPECT_EQ(1440 - 12, c->mss);
	call = tn_call_send(p.ch[0], 0, 20000, UD_SEND);
	tn_app_submit(p.a[0], &call);
	run(&p, 1);
	ASSERT_NE(c->snd_una, c->snd_max) TH_LOG("data in flight");
	retrans = st(p.own)->retrans;

	inject(p.q0, c, 2, 0, 1300, c->snd_una);
	EXPECT_EQ(1, st(p.q0)->icmp_handed);
	EXPECT_EQ(1440 - 12, c->mss) TH_LOG("not before the owner runs");
	run(&p, 1);
	EXPECT_EQ(1, st(p.own)->icmp_ptb);
	EXPECT_EQ(1300, c->pmtu);
	EXPECT_EQ(1300 - 40 - 20 - 12, c->mss);
	EXPECT_LT(retrans, st(p.own)->retrans) TH_LOG("what was in flight went again");

	/* at the owner itself: its own, no handoff */
	inject(p.own, c, 2, 0, 1280, c->snd_una);
	EXPECT_EQ(1280 - 40 - 20 - 12, c->mss);
	EXPECT_EQ(2, st(p.own)->icmp_ptb);
	EXPECT_EQ(0, st(p.own)->icmp_handed);
	EXPECT_EQ(1, st(p.q0)->icmp_handed);
	port2_free(&p);
}

/*
 * 200000 bytes from queue 1's connection over a path that takes 1280 bytes:
 * the router's Packet Too Bigs reach queue 0 (tn_link.ptb_host), which
 * hands them over; the MSS falls once, every byte arrives in order, no
 * segment over 1280 bytes after the first that fits, no timeout.
 */
TEST(relay_ptb_transfer_completes)
{
	struct ixmod_event_ext x;
	struct ixm_tcp_conn *c = NULL;
	u32 rcvd = 0, bad = 0, sent = 0;
	struct ixmod_call call;
	bool busy = false;
	unsigned int i;
	struct port2 p;
	const u8 *d;

	port2_new(&p, 0);
	for (i = 0; i < XFER; i++)
		p.a[0]->arena[i] = (u8)(i * 7 + i / 251);
	port2_connect(_metadata, &p, 1);
	p.l->cfg.mtu6 = 1280;
	p.l->ptb_host = p.q0;
	for (i = 0; i < 50000 && (rcvd < XFER || !c || c->snd_una != c->snd_max); i++) {
		run(&p, 1);
		while (tn_app_event_ext(p.a[1], &x)) {
			if (x.ev.type == IXMOD_EV_TCP_KNOCK) {
				call = tn_call_accept(x.ev.handle, x.ev.handle);
				tn_app_submit(p.a[1], &call);
			} else if (x.ev.type == IXMOD_EV_TCP_RECV && x.ev.res > 0) {
				d = tn_rx_ptr(p.srv, x.ev.off, (u32)x.ev.res);
				if (!d || rcvd + (u32)x.ev.res > XFER ||
				    memcmp(d, p.a[0]->arena + rcvd, (u32)x.ev.res))
					bad++;
				rcvd += (u32)x.ev.res;
				call = tn_call_recv_done(x.ev.user_data, (u32)x.ev.res);
				tn_app_submit(p.a[1], &call);
			}
		}
		while (tn_app_event_ext(p.a[0], &x))
			if (x.ev.type == IXMOD_EV_CALL && x.ev.user_data == UD_SEND) {
				busy = false;
				if (x.ev.res > 0)
					sent += (u32)x.ev.res;
			}
		c = conn(&p, 0);
		if (c && c->state == IXM_TCP_ESTABLISHED && !busy && sent < XFER) {
			call = tn_call_send(p.ch[0], sent, XFER - sent, UD_SEND);
			tn_app_submit(p.a[0], &call);
			busy = true;
		}
	}
	ASSERT_NE(NULL, c);
	EXPECT_EQ(XFER, rcvd) TH_LOG("every byte arrived (una %u max %u)",
				      c->snd_una - c->iss, c->snd_max - c->iss);
	EXPECT_EQ(0, bad);
	EXPECT_LE(1, p.l->stats.ptb_sent);
	EXPECT_EQ(p.l->stats.ptb_sent, st(p.q0)->icmp_handed) TH_LOG("every PTB handed");
	EXPECT_EQ(1, st(p.own)->icmp_ptb);
	EXPECT_EQ(1280 - 40 - 20 - 12, c->mss);
	EXPECT_EQ(0, st(p.own)->timeouts);
	port2_free(&p);
}

/*
 * The mailbox holds 16: more before the owner runs are dropped and
 * counted (tcp_icmp_hand_full), the owner woken once; after it ran, the
 * next error wakes it again.
 */
TEST(relay_full_mailbox_drops)
{
	struct ixm_tcp_conn *c;
	struct port2 p;
	unsigned int i;

	port2_new(&p, 1000000);
	port2_connect(_metadata, &p, 1);
	run(&p, 1);
	c = conn(&p, 0);
	ASSERT_NE(NULL, c);
	for (i = 0; i < IXM_ICMP6_RELAY_SLOTS + 5; i++)
		inject(p.q0, c, 2, 0, 1500, c->iss);	/* not below the path MTU */
	EXPECT_EQ(IXM_ICMP6_RELAY_SLOTS, st(p.q0)->icmp_handed);
	EXPECT_EQ(5, st(p.q0)->icmp_hand_full);
	EXPECT_EQ(1, p.wakes[1]);
	run(&p, 1);
	EXPECT_EQ(IXM_ICMP6_RELAY_SLOTS, st(p.own)->icmp_ignored) TH_LOG("each acted on once");
	EXPECT_FALSE(ixm_icmp6_relay_pending(&p.own->port));
	inject(p.q0, c, 1, 0, 0, c->iss);
	EXPECT_EQ(2, p.wakes[1]) TH_LOG("empty again: woken again");
	run(&p, 1);
	EXPECT_EQ(1, st(p.own)->icmp_unreach);
	EXPECT_EQ(1, st(p.own)->attempt_fails);
	port2_free(&p);
}

/* A device that hashes IPv4 alone: IPv6 connections are queue 0's. */
TEST(relay_v4_only_goes_to_queue_0)
{
	struct ixm_tcp_conn ghost;
	struct port2 p;
	unsigned int i;

	port2_new(&p, 1000000);
	port2_connect(_metadata, &p, 1);
	run(&p, 1);
	ASSERT_NE(NULL, conn(&p, 0));
	memcpy(&ghost, conn(&p, 0), sizeof(ghost));
	p.q0->port.rss_v4_only = true;
	p.own->port.rss_v4_only = true;
	inject(p.own, &ghost, 1, 4, 0, 1);	/* at queue 1: no such connection */
	EXPECT_EQ(0, st(p.own)->icmp_handed) TH_LOG("the connection is here: not handed");
	for (i = 0; i < 8; i++) {	/* whatever their 4-tuples' hashes */
		ghost.lport = ixm_htons(50000 + i);
		inject(p.own, &ghost, 1, 4, 0, 1);
	}
	EXPECT_EQ(8, st(p.own)->icmp_handed);
	EXPECT_EQ(1, st(p.own)->icmp_ignored);
	EXPECT_EQ(1, p.wakes[0]);
	EXPECT_TRUE(ixm_icmp6_relay_pending(&p.q0->port));
	tn_host_run(p.q0);
	EXPECT_EQ(8, st(p.q0)->icmp_ignored);
	port2_free(&p);
}

TEST_HARNESS_MAIN
