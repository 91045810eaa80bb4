// SPDX-License-Identifier: GPL-2.0
/*
 * ip.c - IPv4 input details and ixm_ip_build_header()
 *
 * The malformed-frame table is in unit/eth.c.  Here: the NIC's checksum
 * verdicts are honoured (IXM_MBUF_F_IP_CSUM_OK skips the software check),
 * TTL 1 is accepted (RFC 1122 §3.2.1.7), source checks follow the prefix
 * (/31 and /32 have no broadcast address), and a built header matches
 * RFC 791's layout byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "ip.h"
#include "harness.h"

TEST(ip_nic_flags)
{
	static u8 f[2048];
	struct tport t;
	size_t len;

	tport_init(&t, OUR_IP);
	len = echo_request(f, 16, 3);
	f[14 + 10] ^= 0x55;		/* break the header checksum */
	tport_input(&t, f, len, IXM_MBUF_F_IP_CSUM_OK);
	EXPECT_EQ(1, t.port.ntx);
	EXPECT_FALSE(t.stats.drops[IXM_DROP_IP_CSUM]) {
		TH_LOG("IP_CSUM_OK from the NIC: no software check");
	}
	ASSERT_EQ(1, t.port.ntx);
	EXPECT_FALSE(ref_csum(t.port.tx[0]->data + 14, 20)) {
		TH_LOG("IP_CSUM_OK: the reply's header checksum is still right");
	}
	tport_tx_flush(&t);
	tport_input(&t, f, len, 0);
	EXPECT_EQ(1, t.stats.drops[IXM_DROP_IP_CSUM]) {
		TH_LOG("no flag: the software check drops it");
	}
	f[14 + 10] ^= 0x55;
	tport_input(&t, f, len, IXM_MBUF_F_IP_CSUM_BAD);
	EXPECT_EQ(2, t.stats.drops[IXM_DROP_IP_CSUM]) {
		TH_LOG("IP_CSUM_BAD: dropped though it is right");
	}
	tport_input(&t, f, len, IXM_MBUF_F_L4_CSUM_BAD | IXM_MBUF_F_RSS);
	EXPECT_EQ(1, t.port.ntx) TH_LOG("L4 and RSS flags do not matter to IPv4 input");
	tport_tx_flush(&t);
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree) TH_LOG("every buffer back");
	tport_fini(&t);
}

TEST(ip_ttl_one)
{
	static u8 f[2048];
	struct tport t;
	size_t len;

	tport_init(&t, OUR_IP);
	len = echo_request(f, 8, 1);
	f[14 + 8] = 1;
	fix_ip_csum(f + 14, 20);
	tport_input(&t, f, len, 0);
	ASSERT_EQ(1, t.port.ntx);
	EXPECT_EQ(64, t.port.tx[0]->data[14 + 8]) {
		TH_LOG("TTL 1 is accepted and the reply has TTL 64");
	}
	tport_fini(&t);
}

TEST(ip_src_prefix)
{
	struct ixm_if_config c = { .ip = be32_of(0xc0000201u) };
	static const struct {
		u8 prefix;
		u32 src;
		bool bad;
	} v[] = {
		{ 24, 0xc00002ffu, true },	/* directed broadcast */
		{ 24, 0xc0000200u, false },	/* network address: not refused */
		{ 24, 0xc0000302u, false },	/* off-subnet unicast */
		{ 31, 0xc0000200u, false },	/* RFC 3021: both /31 addresses */
		{ 30, 0xc0000203u, true },
		{ 32, 0xc00002ffu, false },
		{ 16, 0xc000ffffu, true },
		{ 24, 0x0a000001u, false },
		{ 24, 0x00000001u, true },	/* 0/8 */
		{ 24, 0x7f000001u, true },
		{ 24, 0xe0000001u, true },
		{ 24, 0xf0000001u, true },	/* 240/4 */
		{ 24, 0xdfffffffu, false },	/* another subnet's broadcast */
		{ 24, 0xc00003ffu, false },
		{ 24, 0xc0000201u, true },	/* ours */
	};
	unsigned int i, bad = 0;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		c.prefix = v[i].prefix;
		c.netmask = be32_of(v[i].prefix ? ~0u << (32 - v[i].prefix) : 0);
		if (ixm_ip_src_is_bad(&c, be32_of(v[i].src)) != v[i].bad) {
			TH_LOG("/%u source %08x: expected %s", v[i].prefix, v[i].src,
			       v[i].bad ? "bad" : "good");
			bad++;
		}
	}
	EXPECT_FALSE(bad) TH_LOG("source checks by prefix (%zu cases)", ARRAY_SIZE(v));
}

TEST(ip_build_header)
{
	u8 want[20], got[21];
	u8 *p;

	/* RFC 791 §3.1 laid out by hand: 45 00 len id 4000 40 11 sum src dst */
	memset(want, 0, sizeof(want));
	want[0] = 0x45;
	put16(want + 2, 20 + 100);
	put16(want + 4, 0xabcd);
	put16(want + 6, 0x4000);
	want[8] = 64;
	want[9] = 17;
	put32(want + 12, 0xc0000201u);
	put32(want + 16, 0x0a000001u);
	put16(want + 10, ref_csum(want, 20));

	/* at an odd address, as headers in frames are */
	p = got + 1;
	memset(got, 0xee, sizeof(got));
	ixm_ip_build_header((struct ixm_iphdr *)p, be32_of(0xc0000201u),
			    be32_of(0x0a000001u), 17, 100, 0xabcd, false);
	EXPECT_EQ(0, memcmp(p, want, 20)) {
		TH_LOG("ixm_ip_build_header() matches RFC 791 byte for byte");
	}
	EXPECT_EQ(0, ref_csum(p, 20)) TH_LOG("its checksum verifies");

	/* for a NIC that inserts the checksum: the same header, checksum 0 */
	memset(got, 0xee, sizeof(got));
	ixm_ip_build_header((struct ixm_iphdr *)p, be32_of(0xc0000201u),
			    be32_of(0x0a000001u), 17, 100, 0xabcd, true);
	put16(want + 10, 0);
	EXPECT_EQ(0, memcmp(p, want, 20)) TH_LOG("nic_csum: the checksum is left 0");
	EXPECT_EQ(20, sizeof(struct ixm_iphdr)) TH_LOG("struct ixm_iphdr is 20 bytes");
}

TEST_HARNESS_MAIN
