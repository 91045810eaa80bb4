// SPDX-License-Identifier: GPL-2.0
/*
 * tcp6.c - TCP over IPv6: what the application sees of it
 *
 * Two hosts of testnet.h on one link, each with IPv6 (2001:db8::1 and
 * ::2, /64), found by Neighbor Discovery.  unit/tcp_pair.c moves bytes
 * over IPv6 under loss; this file checks the ABI around it: the peer's
 * address in TCP_KNOCK and TCP_CONNECTED (IXMOD_EVF_INET6, addr6), a
 * listener of an ABI 2 context refusing IPv6 with RST, the source
 * address of the peer's scope, SYN cookies over IPv6, and the
 * connects the call refuses.
 */
#include <string.h>

#include "frames.h"
#include "harness.h"
#include "testnet.h"
#include "toeplitz.h"

#define SPORT		8080
#define RING		64
#define ARENA		(64u << 10)
#define UD_LISTEN	0x10
#define UD_CONNECT	0x20
#define MS		1000000ULL

static const u8 ip6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const u8 ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

struct pair {
	struct tn_host	*h[2];
	struct tn_app	*a[2];
	struct tn_link	*l;
};

/* Host 0 the client, host 1 the server; @inet6: which set up for IPv6. */
static void pair_new(struct pair *p, const bool inet6[2], u8 syncookies)
{
	struct tn_link_cfg lc = { .delay = 1, .seed = 5 };
	struct ixm_tcp_config cfg;
	unsigned int k;

	ixm_host_now_ns = 1000000 * MS;
	ixm_tcp_config_default(&cfg);
	cfg.syncookies = syncookies;
	for (k = 0; k < 2; k++) {
		struct tn_host_cfg hc = { .ip = TN_IP(k + 1), .seed = k + 1, .tcp = &cfg };

		p->h[k] = tn_host_new(&hc);
		tn_host_ip6(p->h[k], k ? ip6_b : ip6_a, 64);
		p->a[k] = tn_app_new(p->h[k], RING, RING, ARENA);
		if (inet6[k])
			tn_app_set_inet6(p->a[k], true);
		else
			tn_app_set_event_ext(p->a[k], true);
	}
	p->l = tn_link_new(p->h[0], p->h[1], &lc);
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

/* Step the link until @k's application has an event of @type (or 200 steps). */
static bool pair_wait(struct pair *p, unsigned int k, u8 type, struct ixmod_event_ext *x)
{
	unsigned int i;

	for (i = 0; i < 200; i++) {
		tn_step(p->l);
		while (tn_app_event_ext(p->a[k], x))
			if (x->ev.type == type)
				return true;
	}
	return false;
}

static struct ixmod_call connect6(const u8 *addr6, u16 port)
{
	struct ixmod_call c = tn_call_connect(0, port, UD_CONNECT);

	c.flags = IXMOD_CALL_F_INET6;
	memcpy(c.addr6, addr6, 16);
	return c;
}

/* Listen on the server, connect from the client: the connect's handle. */
static u64 pair_open(struct __test_metadata *_metadata, struct pair *p, const u8 *to)
{
	struct ixmod_call c = tn_call_listen(SPORT, 8, UD_LISTEN);
	struct ixmod_event ev;

	EXPECT_EQ(0, tn_app_call(p->a[1], &c, &ev));
	c = connect6(to, SPORT);
	EXPECT_EQ(0, tn_app_call(p->a[0], &c, &ev)) TH_LOG("TCP_CONNECT over IPv6");
	return ev.handle;
}

TEST(tcp6_events_name_the_peer)
{
	static const bool inet6[2] = { true, true };
	struct ixmod_event_ext kn, cn;
	struct pair p;
	u64 h;

	pair_new(&p, inet6, 1);
	h = pair_open(_metadata, &p, ip6_b);
	ASSERT_TRUE(pair_wait(&p, 1, IXMOD_EV_TCP_KNOCK, &kn));
	EXPECT_EQ(IXMOD_EVF_INET6, kn.ev.flags);
	EXPECT_EQ(0, kn.ev.addr);
	EXPECT_EQ(0, memcmp(kn.addr6, ip6_a, 16)) TH_LOG("KNOCK: the client's address");
	EXPECT_EQ(0, kn.resv2);
	EXPECT_EQ(ixm_htons(SPORT), kn.ev.lport);
	EXPECT_EQ(kn.ev.handle, kn.handle);
	ASSERT_TRUE(pair_wait(&p, 0, IXMOD_EV_TCP_CONNECTED, &cn));
	EXPECT_EQ(0, cn.ev.res);
	EXPECT_EQ(IXMOD_EVF_INET6, cn.ev.flags);
	EXPECT_EQ(0, cn.ev.addr);
	EXPECT_EQ(0, memcmp(cn.addr6, ip6_b, 16)) TH_LOG("CONNECTED: the server's address");
	EXPECT_EQ(h, cn.ev.handle);
	EXPECT_EQ(ixm_htons(SPORT), cn.ev.port);
	/* the two ends agree on the client's port */
	EXPECT_EQ(cn.ev.lport, kn.ev.port);
	EXPECT_EQ(1, p.h[0]->tcp->stats.active_opens);
	EXPECT_EQ(1, p.h[0]->stats.nd_solicits_out) TH_LOG("the server found by ND");
	pair_free(&p);
}

TEST(tcp6_link_local_peer_from_link_local)
{
	static const bool inet6[2] = { true, true };
	struct ixmod_event_ext kn;
	struct pair p;

	pair_new(&p, inet6, 1);
	pair_open(_metadata, &p, p.h[1]->cfg.ll6.s6);
	ASSERT_TRUE(pair_wait(&p, 1, IXMOD_EV_TCP_KNOCK, &kn));
	EXPECT_EQ(0, memcmp(kn.addr6, p.h[0]->cfg.ll6.s6, 16)) {
		TH_LOG("to a link-local address the source is the link-local one");
	}
	pair_free(&p);
}

TEST(tcp6_syncookies)
{
	static const bool inet6[2] = { true, true };
	struct ixmod_event_ext kn, cn;
	struct pair p;

	pair_new(&p, inet6, 2);		/* every SYN answered with a cookie */
	pair_open(_metadata, &p, ip6_b);
	ASSERT_TRUE(pair_wait(&p, 0, IXMOD_EV_TCP_CONNECTED, &cn));
	EXPECT_EQ(0, cn.ev.res);
	ASSERT_TRUE(pair_wait(&p, 1, IXMOD_EV_TCP_KNOCK, &kn));
	EXPECT_EQ(0, memcmp(kn.addr6, ip6_a, 16));
	EXPECT_EQ(1, p.h[1]->tcp->stats.syncookies_sent);
	EXPECT_EQ(1, p.h[1]->tcp->stats.syncookies_ok) TH_LOG("opened by the cookie");
	pair_free(&p);
}

TEST(tcp6_abi2_listener_resets)
{
	static const bool inet6[2] = { true, false };
	struct ixmod_event_ext cn, x;
	struct pair p;

	pair_new(&p, inet6, 1);
	pair_open(_metadata, &p, ip6_b);
	ASSERT_TRUE(pair_wait(&p, 0, IXMOD_EV_TCP_CONNECTED, &cn));
	EXPECT_EQ(-ECONNREFUSED, cn.ev.res) TH_LOG("the SYN answered with RST");
	EXPECT_EQ(1, p.h[1]->stats.drops[IXM_DROP_TCP_NO_SOCK]);
	EXPECT_EQ(1, p.h[1]->tcp->stats.resets_out);
	EXPECT_FALSE(tn_app_event_ext(p.a[1], &x)) TH_LOG("the ABI 2 context heard nothing");
	pair_free(&p);
}

TEST(tcp6_connect_refusals)
{
	static const bool inet6[2] = { true, false };
	static const u8 offlink[16] = { 0x20, 0x01, 0x0d, 0xb9, [15] = 2 };
	static const u8 group[16] = { 0xff, 0x02, [15] = 1 };
	static const u8 lo[16] = { [15] = 1 };
	struct ixmod_event ev;
	struct ixmod_call c;
	struct pair p;

	pair_new(&p, inet6, 1);
	c = connect6(ip6_a, SPORT);
	EXPECT_EQ(-EINVAL, tn_app_call(p.a[1], &c, &ev)) TH_LOG("not set up for IPv6");
	c = connect6(offlink, SPORT);
	EXPECT_EQ(-ENETUNREACH, tn_app_call(p.a[0], &c, &ev)) TH_LOG("off-link: no router");
	c = connect6(ip6_a, SPORT);
	EXPECT_EQ(-EINVAL, tn_app_call(p.a[0], &c, &ev)) TH_LOG("our own address");
	c = connect6(group, SPORT);
	EXPECT_EQ(-EINVAL, tn_app_call(p.a[0], &c, &ev)) TH_LOG("a group");
	c = connect6(lo, SPORT);
	EXPECT_EQ(-EINVAL, tn_app_call(p.a[0], &c, &ev)) TH_LOG("::1");
	c = connect6(ip6_b, 0);
	EXPECT_EQ(-EINVAL, tn_app_call(p.a[0], &c, &ev)) TH_LOG("port 0");
	EXPECT_EQ(0, p.h[0]->tcp->stats.conns) TH_LOG("nothing half-made");
	pair_free(&p);
}

/*
 * A SYN to all-nodes (a group the port is in, so ip6.c delivers it) with
 * a listener on its port: dropped unanswered (RFC 1122 §4.2.3.10), no
 * connection made, nothing sent from a group address.
 */
TEST(tcp6_syn_to_a_group_dropped)
{
	static const bool inet6[2] = { true, true };
	static const u8 mc_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };
	struct ixmod_call c = tn_call_listen(SPORT, 8, UD_LISTEN);
	struct ixm_tcp_table *t;
	struct ixmod_event ev;
	u8 f[14 + 40 + 20], *th;
	struct pair p;

	pair_new(&p, inet6, 1);
	EXPECT_EQ(0, tn_app_call(p.a[1], &c, &ev));
	th = put_ip6(put_eth(f, mc_mac, p.h[0]->cfg.mac, 0x86dd), ip6_a, all_nodes6, 6, 20,
		     64);
	memset(th, 0, 20);
	put16(th, 40000);
	put16(th + 2, SPORT);
	put32(th + 4, 12345);
	th[12] = 5 << 4;
	th[13] = TH_SYN;
	put16(th + 14, 65535);
	put16(th + 16, ref_l4_csum6(ip6_a, all_nodes6, 6, th, 20));
	t = p.h[1]->tcp;
	tn_host_begin(p.h[1]);
	ASSERT_TRUE(tn_input(p.h[1], f, sizeof(f), 0));
	tn_host_run(p.h[1]);
	EXPECT_EQ(1, p.h[1]->stats.drops[IXM_DROP_TCP_NO_SOCK]);
	EXPECT_EQ(0, t->stats.conns) TH_LOG("no connection with a group's address");
	EXPECT_EQ(0, t->stats.segs_out) TH_LOG("no SYN-ACK and no RST from a group");
	pair_free(&p);
}

/*
 * With RSS, an active open picks a local port whose replies the NIC
 * steers to this core's queue: the Toeplitz hash of the reply's 4-tuple
 * (source the peer, RFC 8200 addresses first for IPv6) under the port's
 * key.  Microsoft's sample key, which unlike ixmod's symmetric one tells
 * the reply's direction from the request's.
 */
TEST(tcp6_connect_ports_steer_here)
{
	static const u8 key[40] = {
		0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
		0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
		0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
		0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
	};
	static const bool inet6[2] = { true, true };
	struct ixm_tcp_table *t;
	unsigned int i, n4 = 0, n6 = 0, bad = 0;
	struct ixmod_event ev;
	struct ixmod_call c;
	struct pair p;

	pair_new(&p, inet6, 1);
	p.h[0]->port.rss_key = key;
	p.h[0]->port.rss_nq = 4;
	p.h[0]->port.rss_q = 3;
	for (i = 0; i < 16; i++) {
		c = connect6(ip6_b, 9000 + i);
		EXPECT_EQ(0, tn_app_call(p.a[0], &c, &ev));
		c = tn_call_connect(TN_IP(2), 9000 + i, UD_CONNECT);
		EXPECT_EQ(0, tn_app_call(p.a[0], &c, &ev));
	}
	t = p.h[0]->tcp;
	for (i = 0; i < IXM_TCP_CONNS; i++) {
		const struct ixm_tcp_conn *cn = &t->conns[i];
		u32 h;

		if (cn->state != IXM_TCP_SYN_SENT)
			continue;
		if (cn->flags & IXM_TCPF_INET6) {
			h = ixm_toeplitz_ipv6_l4(key, ip6_b, ip6_a, cn->rport, cn->lport);
			n6++;
		} else {
			h = ixm_toeplitz_ipv4_l4(key, be32_of(TN_IP(2)), be32_of(TN_IP(1)),
						 cn->rport, cn->lport);
			n4++;
		}
		bad += (h & 127) % 4 != 3;
	}
	EXPECT_EQ(16, n4);
	EXPECT_EQ(16, n6);
	EXPECT_EQ(0, bad) TH_LOG("every connection's replies hash to queue 3 of 4");

	/* a device whose RSS hashes IPv4 alone sends IPv6 to queue 0 */
	p.h[0]->port.rss_v4_only = true;
	c = connect6(ip6_b, 9100);
	EXPECT_EQ(-EADDRNOTAVAIL, tn_app_call(p.a[0], &c, &ev)) {
		TH_LOG("IPv6 from queue 3 of a device that hashes IPv4 only: no port comes back");
	}
	c = tn_call_connect(TN_IP(2), 9100, UD_CONNECT);
	EXPECT_EQ(0, tn_app_call(p.a[0], &c, &ev)) TH_LOG("IPv4 still does");
	p.h[0]->port.rss_q = 0;
	c = connect6(ip6_b, 9100);
	EXPECT_EQ(0, tn_app_call(p.a[0], &c, &ev)) TH_LOG("queue 0's core takes IPv6");
	pair_free(&p);
}

/*
 * What the link carries, through frames.h's check_tx() as its sender
 * queued it; each TCP/IPv6 frame once more with its checksum broken and
 * once with ourselves as the destination, which check_tx() must refuse.
 */
struct tap6 {
	struct tn_host	*h[2];
	unsigned int	frames;
	unsigned int	tcp6;
	const char	*err;
	const char	*bad_csum;
	const char	*to_self;
};

static void tap6(void *arg, unsigned int from, const u8 *f, size_t len)
{
	static u8 buf[IXM_MBUF_SIZE];
	struct ixm_mbuf m = { .buf = buf, .data = buf, .len = (u16)len };
	const struct ixm_if_config *cfg = &((struct tap6 *)arg)->h[from]->cfg;
	struct tap6 *t = arg;
	const char *err;

	if (len > sizeof(buf))
		return;
	memcpy(buf, f, len);
	t->frames++;
	err = check_tx(cfg, &m);
	if (err && !t->err)
		t->err = err;
	if (len < 14 + 40 + 20 || get16(f + 12) != 0x86dd || f[20] != 6)
		return;
	t->tcp6++;
	buf[14 + 40 + 17] ^= 0x01;
	t->bad_csum = check_tx(cfg, &m);
	memcpy(buf, f, len);
	memcpy(buf + 38, f + 22, 16);
	t->to_self = check_tx(cfg, &m);
}

TEST(tcp6_frames_pass_check_tx)
{
	static const bool inet6[2] = { true, true };
	struct ixmod_event_ext cn;
	struct tap6 t = { 0 };
	struct pair p;

	pair_new(&p, inet6, 1);
	t.h[0] = p.h[0];
	t.h[1] = p.h[1];
	p.l->tap = tap6;
	p.l->tap_arg = &t;
	pair_open(_metadata, &p, ip6_b);
	ASSERT_TRUE(pair_wait(&p, 0, IXMOD_EV_TCP_CONNECTED, &cn));
	EXPECT_EQ(0, cn.ev.res);
	EXPECT_LE(3, t.tcp6) TH_LOG("SYN, SYN-ACK and ACK over IPv6 on the link");
	EXPECT_EQ(NULL, t.err) TH_LOG("every frame well formed: %s", t.err);
	EXPECT_STREQ("TCP checksum", t.bad_csum);
	EXPECT_STREQ("TCP over IPv6 to ::, ::1 or ourselves", t.to_self);
	pair_free(&p);
}

TEST_HARNESS_MAIN
