// SPDX-License-Identifier: GPL-2.0
/*
 * eth.c - what ixm_eth_input() does with frames it must refuse
 *
 * Every malformed frame, at whatever layer its defect is, must move
 * exactly one drop counter (its own) by one, plus rx_packets/rx_bytes,
 * and nothing else; nothing may be queued for transmission, the buffer
 * must be back in the pool and the drop tracepoint hook must have seen
 * the reason.  The cases are a table: a correct frame, built byte by
 * byte, with a few bytes patched.  Then the same for every truncation of
 * a correct echo request and ARP request, and the drop names' table.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "harness.h"

enum base { B_ECHO, B_ARP };

struct patch {
	int off;
	u8 val;
};

/**
 * struct mcase - one malformed frame
 */
struct mcase {
	const char *name;
	enum base base;
	struct patch p[4];
	int np;
	int flip;		/* byte to complement, or -1 */
	bool fix_ip;		/* recompute the IP header checksum */
	bool fix_icmp;		/* recompute the ICMP checksum */
	int len;		/* frame length, 0: as built */
	u16 flags;		/* NIC receive flags */
	bool noaddr;		/* port without an IPv4 address */
	enum ixm_drop_reason reason;
};

#define P(o, v)		{ (o), (v) }
#define NONE		.flip = -1

static const struct mcase cases[] = {
	/* Ethernet */
	{ "unicast to another MAC", B_ECHO, { P(5, 0x99) }, 1, NONE, .reason = IXM_DROP_ETH_DST },
	{ "multicast MAC", B_ECHO, { P(0, 0x01), P(1, 0x00), P(2, 0x5e) }, 3, NONE,
	  .reason = IXM_DROP_ETH_DST },
	{ "multicast source MAC", B_ECHO, { P(6, 0x01) }, 1, NONE, .reason = IXM_DROP_ETH_SRC },
	{ "broadcast source MAC", B_ECHO,
	  { P(6, 0xff), P(7, 0xff), P(8, 0xff), P(9, 0xff) }, 4, NONE, .reason = IXM_DROP_ETH_SRC },
	{ "unknown EtherType 0x88b5", B_ECHO, { P(12, 0x88), P(13, 0xb5) }, 2, NONE,
	  .reason = IXM_DROP_ETH_TYPE },
	{ "VLAN tag 0x8100", B_ECHO, { P(12, 0x81), P(13, 0x00) }, 2, NONE,
	  .reason = IXM_DROP_ETH_TYPE },
	{ "IPv6 EtherType, IPv6 off", B_ECHO, { P(12, 0x86), P(13, 0xdd) }, 2, NONE,
	  .reason = IXM_DROP_IP6_OFF },
	/* IPv4 (RFC 791 §3.1, RFC 1122 §3.2.1) */
	{ "IP version 6", B_ECHO, { P(14, 0x65) }, 1, NONE, .fix_ip = true,
	  .reason = IXM_DROP_IP_VERSION },
	{ "IP version 0", B_ECHO, { P(14, 0x05) }, 1, NONE, .reason = IXM_DROP_IP_VERSION },
	{ "IHL 4", B_ECHO, { P(14, 0x44) }, 1, NONE, .reason = IXM_DROP_IP_HLEN },
	{ "IHL 0", B_ECHO, { P(14, 0x40) }, 1, NONE, .reason = IXM_DROP_IP_HLEN },
	{ "IHL 15 past the frame", B_ECHO, { P(14, 0x4f) }, 1, NONE, .len = 14 + 40,
	  .reason = IXM_DROP_IP_HLEN },
	{ "total length past the frame", B_ECHO, { P(16, 0x05), P(17, 0x78) }, 2, NONE,
	  .fix_ip = true, .reason = IXM_DROP_IP_TOTLEN },
	{ "total length one past the frame", B_ECHO, { P(17, 61) }, 1, NONE,
	  .fix_ip = true, .reason = IXM_DROP_IP_TOTLEN },
	{ "total length 16 < IHL*4", B_ECHO, { P(16, 0), P(17, 16) }, 2, NONE,
	  .fix_ip = true, .reason = IXM_DROP_IP_TOTLEN },
	{ "bad header checksum", B_ECHO, { }, 0, .flip = 24, .reason = IXM_DROP_IP_CSUM },
	{ "bad checksum in the addresses", B_ECHO, { }, 0, .flip = 27,
	  .reason = IXM_DROP_IP_CSUM },
	{ "NIC says checksum bad", B_ECHO, { }, 0, NONE, .flags = IXM_MBUF_F_IP_CSUM_BAD,
	  .reason = IXM_DROP_IP_CSUM },
	{ "NIC says bad, and OK too", B_ECHO, { }, 0, NONE,
	  .flags = IXM_MBUF_F_IP_CSUM_BAD | IXM_MBUF_F_IP_CSUM_OK, .reason = IXM_DROP_IP_CSUM },
	{ "MF set", B_ECHO, { P(20, 0x60) }, 1, NONE, .fix_ip = true, .reason = IXM_DROP_IP_FRAG },
	{ "fragment offset 1", B_ECHO, { P(21, 0x01) }, 1, NONE, .fix_ip = true,
	  .reason = IXM_DROP_IP_FRAG },
	{ "fragment offset 0x1000", B_ECHO, { P(20, 0x50) }, 1, NONE, .fix_ip = true,
	  .reason = IXM_DROP_IP_FRAG },
	{ "TTL 0", B_ECHO, { P(22, 0) }, 1, NONE, .fix_ip = true, .reason = IXM_DROP_IP_TTL },
	{ "destination 192.0.2.99", B_ECHO, { P(33, 99) }, 1, NONE, .fix_ip = true,
	  .reason = IXM_DROP_IP_DST },
	{ "destination 255.255.255.255", B_ECHO,
	  { P(30, 255), P(31, 255), P(32, 255), P(33, 255) }, 4, NONE, .fix_ip = true,
	  .reason = IXM_DROP_IP_DST },
	{ "destination subnet broadcast", B_ECHO, { P(33, 255) }, 1, NONE, .fix_ip = true,
	  .reason = IXM_DROP_IP_DST },
	{ "source 255.255.255.255", B_ECHO,
	  { P(26, 255), P(27, 255), P(28, 255), P(29, 255) }, 4, NONE, .fix_ip = true,
	  .reason = IXM_DROP_IP_SRC },
	{ "source subnet broadcast", B_ECHO, { P(29, 255) }, 1, NONE, .fix_ip = true,
	  .reason = IXM_DROP_IP_SRC },
	{ "source multicast 224.0.0.1", B_ECHO, { P(26, 224), P(27, 0), P(28, 0), P(29, 1) },
	  4, NONE, .fix_ip = true, .reason = IXM_DROP_IP_SRC },
	{ "source 0.0.0.0", B_ECHO, { P(26, 0), P(27, 0), P(28, 0), P(29, 0) }, 4, NONE,
	  .fix_ip = true, .reason = IXM_DROP_IP_SRC },
	{ "source loopback", B_ECHO, { P(26, 127), P(27, 0), P(28, 0), P(29, 1) }, 4, NONE,
	  .fix_ip = true, .reason = IXM_DROP_IP_SRC },
	{ "source is our address", B_ECHO, { P(29, 1) }, 1, NONE, .fix_ip = true,
	  .reason = IXM_DROP_IP_SRC },
	{ "protocol 99", B_ECHO, { P(23, 99) }, 1, NONE, .fix_ip = true,
	  .reason = IXM_DROP_IP_PROTO },
	{ "TCP on a core with no TCP table", B_ECHO, { P(23, 6) }, 1, NONE, .fix_ip = true,
	  .reason = IXM_DROP_TCP_NO_SOCK },
	{ "no address configured", B_ECHO, { }, 0, NONE, .noaddr = true,
	  .reason = IXM_DROP_NO_ADDR },
	/* ICMP (RFC 792) */
	{ "bad ICMP checksum", B_ECHO, { }, 0, .flip = 36, .reason = IXM_DROP_ICMP_CSUM },
	{ "bad ICMP checksum in the data", B_ECHO, { }, 0, .flip = 60,
	  .reason = IXM_DROP_ICMP_CSUM },
	{ "ICMP type 13 (timestamp)", B_ECHO, { P(34, 13) }, 1, NONE, .fix_icmp = true,
	  .reason = IXM_DROP_ICMP_TYPE },
	{ "ICMP echo reply", B_ECHO, { P(34, 0) }, 1, NONE, .fix_icmp = true,
	  .reason = IXM_DROP_ICMP_TYPE },
	{ "ICMP echo code 1", B_ECHO, { P(35, 1) }, 1, NONE, .fix_icmp = true,
	  .reason = IXM_DROP_ICMP_TYPE },
	{ "ICMP shorter than its header", B_ECHO, { P(16, 0), P(17, 24) }, 2, NONE,
	  .fix_ip = true, .reason = IXM_DROP_ICMP_SHORT },
	{ "ICMP with no bytes", B_ECHO, { P(16, 0), P(17, 20) }, 2, NONE,
	  .fix_ip = true, .reason = IXM_DROP_ICMP_SHORT },
	/* ARP (RFC 826) */
	{ "ARP hlen 8", B_ARP, { P(18, 8) }, 1, NONE, .reason = IXM_DROP_ARP_MALFORMED },
	{ "ARP plen 16", B_ARP, { P(19, 16) }, 1, NONE, .reason = IXM_DROP_ARP_MALFORMED },
	{ "ARP htype 6", B_ARP, { P(15, 6) }, 1, NONE, .reason = IXM_DROP_ARP_MALFORMED },
	{ "ARP ptype IPv6", B_ARP, { P(16, 0x86), P(17, 0xdd) }, 2, NONE,
	  .reason = IXM_DROP_ARP_MALFORMED },
	{ "ARP op 3", B_ARP, { P(21, 3) }, 1, NONE, .reason = IXM_DROP_ARP_OP },
	{ "ARP op 0", B_ARP, { P(21, 0) }, 1, NONE, .reason = IXM_DROP_ARP_OP },
	{ "ARP op 0x0101", B_ARP, { P(20, 1) }, 1, NONE, .reason = IXM_DROP_ARP_OP },
	{ "ARP for 192.0.2.99", B_ARP, { P(41, 99) }, 1, NONE, .reason = IXM_DROP_ARP_NOT_US },
	{ "ARP sender MAC multicast", B_ARP, { P(22, 0x03) }, 1, NONE,
	  .reason = IXM_DROP_ARP_SENDER },
	{ "ARP sender MAC zero", B_ARP, { P(22, 0), P(24, 0), P(27, 0) }, 3, NONE,
	  .reason = IXM_DROP_ARP_SENDER },
	{ "ARP sender MAC ours", B_ARP, { P(27, 0x01) }, 1, NONE, .reason = IXM_DROP_ARP_SENDER },
	{ "ARP sender IP ours (conflict)", B_ARP, { P(31, 1) }, 1, NONE,
	  .reason = IXM_DROP_ARP_SENDER },
	{ "ARP sender IP broadcast", B_ARP, { P(31, 255) }, 1, NONE,
	  .reason = IXM_DROP_ARP_SENDER },
	{ "ARP sender IP multicast", B_ARP, { P(28, 239) }, 1, NONE,
	  .reason = IXM_DROP_ARP_SENDER },
	{ "ARP sender IP off our subnet", B_ARP, { P(28, 198), P(29, 18) }, 2, NONE,
	  .reason = IXM_DROP_ARP_OFFSUBNET },
	{ "ARP sender IP one past our /24", B_ARP, { P(30, 3) }, 1, NONE,
	  .reason = IXM_DROP_ARP_OFFSUBNET },
	{ "ARP with no address configured", B_ARP, { }, 0, NONE, .noaddr = true,
	  .reason = IXM_DROP_NO_ADDR },
};

static u8 echo_data[32];
static const u8 no_mac[6];

/* The correct frame each case starts from; returns its length. */
static size_t build_base(enum base b, u8 *f)
{
	struct iph_args a = {
		.id = 0x0102, .frag = 0x4000, .ttl = 64, .proto = 1,
		.src = PEER_IP, .dst = OUR_IP,
	};
	u8 *p;

	memset(f, 0, 2048);
	if (b == B_ARP) {
		p = put_eth(f, bcast_mac, peer_mac, 0x0806);
		put_arp(p, 1, peer_mac, PEER_IP, no_mac, OUR_IP);
		return 60;	/* padded, as it arrives */
	}
	p = put_eth(f, our_mac, peer_mac, 0x0800);
	p = put_ip(p, &a, 8 + sizeof(echo_data));
	p = put_icmp_echo(p, 8, 0, 7, 1, echo_data, sizeof(echo_data));
	return (size_t)(p - f);
}

/*
 * Feed @f and check that exactly @reason moved.  Returns true if all is
 * well; otherwise says what went wrong as a TAP comment.
 */
static bool expect_drop(struct tport *t, const u8 *f, size_t len, u16 flags,
			enum ixm_drop_reason reason, const char *name)
{
	struct ixm_net_stats before = t->stats, want = t->stats;
	unsigned int arp_count = t->port.arp->count;
	bool ok = true;

	ixm_host_last_drop = ~0u;
	tport_input(t, f, len, flags);
	want.rx_packets++;
	want.rx_bytes += len;
	want.drops[reason]++;
	if (memcmp(&want, &t->stats, sizeof(want))) {
		unsigned int r;

		for (r = 0; r < IXM_DROP_MAX; r++) {
			if (t->stats.drops[r] != before.drops[r])
				ixm_diag("%s: %s moved by %lld", name, ixm_drop_names[r],
					 (long long)(t->stats.drops[r] - before.drops[r]));
		}
		ixm_diag("%s: counters other than %s changed", name,
			 ixm_drop_names[reason]);
		ok = false;
	}
	if (t->port.ntx) {
		ixm_diag("%s: %u frames queued for TX", name, t->port.ntx);
		tport_tx_flush(t);
		ok = false;
	}
	if (t->pool.nfree != t->pool.count) {
		ixm_diag("%s: %u of %u buffers free", name, t->pool.nfree, t->pool.count);
		ok = false;
	}
	if (ixm_host_last_drop != reason) {
		ixm_diag("%s: drop hook saw reason %u", name, ixm_host_last_drop);
		ok = false;
	}
	if (t->port.arp->count != arp_count) {
		ixm_diag("%s: the ARP table changed", name);
		ok = false;
	}
	return ok;
}

TEST(eth_cases)
{
	static u8 f[2048];
	struct tport t, t0;
	size_t i;
	int k;

	tport_init(&t, OUR_IP);
	tport_init(&t0, 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct mcase *c = &cases[i];
		size_t len = build_base(c->base, f);

		for (k = 0; k < c->np; k++)
			f[c->p[k].off] = c->p[k].val;
		if (c->fix_ip)
			fix_ip_csum(f + 14, 20);
		if (c->fix_icmp) {
			f[36] = 0;
			f[37] = 0;
			put16(f + 36, ref_csum(f + 34, len - 34));
		}
		if (c->flip >= 0)
			f[c->flip] ^= 0xff;
		if (c->len)
			len = (size_t)c->len;
		EXPECT_TRUE(expect_drop(c->noaddr ? &t0 : &t, f, len, c->flags, c->reason, c->name)) {
			TH_LOG("%s: dropped as %s, nothing else moves",
			       c->name, ixm_drop_names[c->reason]);
		}
	}
	tport_fini(&t);
	tport_fini(&t0);
}

/* Every truncation of a correct frame is refused at the right layer. */
TEST(eth_truncations)
{
	static u8 f[2048];
	size_t full, len, bad = 0;
	enum ixm_drop_reason r;
	struct tport t;

	tport_init(&t, OUR_IP);
	full = build_base(B_ECHO, f);
	for (len = 0; len < full; len++) {
		/* the header says more than arrived: RFC 791 total length */
		r = len < 14 ? IXM_DROP_ETH_SHORT : len < 34 ? IXM_DROP_IP_SHORT :
		    IXM_DROP_IP_TOTLEN;
		if (!expect_drop(&t, f, len, 0, r, "echo truncated") && ++bad > 3)
			break;
	}
	EXPECT_FALSE(bad) TH_LOG("echo request truncated to each of 0..%zu bytes", full - 1);

	bad = 0;
	build_base(B_ARP, f);
	for (len = 0; len < 42; len++) {
		r = len < 14 ? IXM_DROP_ETH_SHORT : IXM_DROP_ARP_MALFORMED;
		if (!expect_drop(&t, f, len, 0, r, "ARP truncated") && ++bad > 3)
			break;
	}
	EXPECT_FALSE(bad) TH_LOG("ARP request truncated to each of 0..41 bytes");
	tport_fini(&t);
}

/* A correct frame is accepted: the base frames are not malformed. */
TEST(eth_bases_accepted)
{
	static u8 f[2048];
	struct tport t;
	size_t len;

	tport_init(&t, OUR_IP);
	len = build_base(B_ECHO, f);
	tport_input(&t, f, len, 0);
	EXPECT_EQ(1, t.port.ntx);
	EXPECT_EQ(1, t.stats.icmp_echo_replies) TH_LOG("the unpatched echo request is answered");
	tport_tx_flush(&t);
	len = build_base(B_ARP, f);
	tport_input(&t, f, len, 0);
	EXPECT_EQ(1, t.port.ntx);
	EXPECT_EQ(1, t.stats.arp_replies_out) {
		TH_LOG("the unpatched broadcast ARP request is answered");
	}
	tport_tx_flush(&t);
	EXPECT_EQ(2, t.stats.rx_packets) TH_LOG("rx_packets counts both");
	EXPECT_EQ(len + 74, t.stats.rx_bytes) TH_LOG("rx_bytes counts both");
	tport_fini(&t);
}

/* sysfs file names: present, distinct, lower case or digits, no path characters */
TEST(eth_drop_names)
{
	unsigned int r, s;
	bool ok = true;
	const char *c;

	for (r = 0; r < IXM_DROP_MAX; r++) {
		if (!ixm_drop_names[r] || !*ixm_drop_names[r]) {
			TH_LOG("reason %u has no name", r);
			ok = false;
			continue;
		}
		for (c = ixm_drop_names[r]; *c; c++)
			if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) ||
			      *c == '_'))
				ok = false;
		for (s = 0; s < r; s++)
			if (ixm_drop_names[s] && !strcmp(ixm_drop_names[r], ixm_drop_names[s]))
				ok = false;
	}
	EXPECT_TRUE(ok) TH_LOG("every drop reason has a distinct lower-case name");
	EXPECT_STREQ("eth_short", ixm_drop_names[IXM_DROP_ETH_SHORT]);
	EXPECT_STREQ("tx_full", ixm_drop_names[IXM_DROP_TX_FULL]);
	EXPECT_STREQ("arp_sender", ixm_drop_names[IXM_DROP_ARP_SENDER]);
	EXPECT_STREQ("arp_offsubnet", ixm_drop_names[IXM_DROP_ARP_OFFSUBNET]) {
		TH_LOG("names match the ABI document");
	}
}

/* Filled once, before the harness forks the first test. */
static void __attribute__((constructor)) echo_data_fill(void)
{
	size_t i;

	for (i = 0; i < sizeof(echo_data); i++)
		echo_data[i] = (u8)('a' + i);
}

TEST_HARNESS_MAIN
