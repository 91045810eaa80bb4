// SPDX-License-Identifier: GPL-2.0
/*
 * unit/toeplitz.c - tests of ixmod/base/toeplitz.c
 *
 * The verification vectors of Microsoft's RSS specification ("Verifying
 * the RSS hash calculation"), computed with its 40-byte sample key; the
 * optimized hash against ref.h's bit-serial one; and the symmetric key:
 * symmetric over random tuples, while the sample key is not (so the
 * symmetry test can fail), and a function of the XOR of the input's
 * 16-bit words only, as toeplitz.c says.  Then ixm_toeplitz_frame():
 * which frames it hashes and how, as a NIC's RSS would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toeplitz.h"
#include "ref.h"
#include "harness.h"

#define NR_RANDOM	100000

/* The specification's sample key. */
static const u8 ms_key[IXM_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Host order here; converted where used (htonl is no constant expression). */
#define IP4(a, b, c, d)	((u32)(a) << 24 | (b) << 16 | (c) << 8 | (d))

/* As the specification's table lists them: destination first. */
static const struct {
	const char *name;
	u32 daddr;
	u16 dport;
	u32 saddr;
	u16 sport;
	u32 ipv4;
	u32 tcp;
} vectors[] = {
	{ "161.142.100.80:1766 <- 66.9.149.187:2794",
	  IP4(161, 142, 100, 80), 1766, IP4(66, 9, 149, 187), 2794,
	  0x323e8fc2, 0x51ccc178 },
	{ "65.69.140.83:4739 <- 199.92.111.2:14230",
	  IP4(65, 69, 140, 83), 4739, IP4(199, 92, 111, 2), 14230,
	  0xd718262a, 0xc626b0ea },
	{ "12.22.207.184:38024 <- 24.19.198.95:12898",
	  IP4(12, 22, 207, 184), 38024, IP4(24, 19, 198, 95), 12898,
	  0xd2d0a5de, 0x5c2b394a },
	{ "209.142.163.6:2217 <- 38.27.205.30:48228",
	  IP4(209, 142, 163, 6), 2217, IP4(38, 27, 205, 30), 48228,
	  0x82989176, 0xafc7327f },
	{ "202.188.127.2:1303 <- 153.39.163.191:44251",
	  IP4(202, 188, 127, 2), 1303, IP4(153, 39, 163, 191), 44251,
	  0x5d1809c5, 0x10e828a2 },
};

/* The specification's input order: src, dst, sport, dport (network order). */
static void tuple_bytes(u8 in[12], __be32 s, __be32 d, __be16 sp, __be16 dp)
{
	memcpy(in, &s, 4);
	memcpy(in + 4, &d, 4);
	memcpy(in + 8, &sp, 2);
	memcpy(in + 10, &dp, 2);
}

TEST(toeplitz_ipv4_vectors)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		EXPECT_EQ(vectors[i].ipv4,
			  ixm_toeplitz_ipv4(ms_key, ixm_htonl(vectors[i].saddr),
					    ixm_htonl(vectors[i].daddr))) {
			TH_LOG("RSS IPv4 vector %s", vectors[i].name);
		}
	}
}

TEST(toeplitz_ipv4_tcp_vectors)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		EXPECT_EQ(vectors[i].tcp,
			  ixm_toeplitz_ipv4_l4(ms_key, ixm_htonl(vectors[i].saddr),
					       ixm_htonl(vectors[i].daddr),
					       ixm_htons(vectors[i].sport),
					       ixm_htons(vectors[i].dport))) {
			TH_LOG("RSS IPv4/TCP vector %s", vectors[i].name);
		}
	}
}

/* The specification's IPv6 vectors, destination first, addresses in bytes. */
static const struct {
	u8 daddr[16];
	u16 dport;
	u8 saddr[16];
	u16 sport;
	u32 tcp;
	u32 ip;		/* IPv6 only: the addresses */
} vectors6[] = {
	{ { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, [15] = 0x01 }, 1766,
	  { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, [15] = 0x07 }, 2794,
	  0x40207d3d, 0x2cc18cd5 },
	{ { 0xff, 0x02, [15] = 0x01 }, 4739,
	  { 0x3f, 0xfe, 0x05, 0x01, 0x00, 0x08, 0x00, 0x00,
	    0x02, 0x60, 0x97, 0xff, 0xfe, 0x40, 0xef, 0xab }, 14230,
	  0xdde51bbf, 0x0f0c461c },
	{ { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf }, 38024,
	  { 0x3f, 0xfe, 0x19, 0x00, 0x45, 0x45, 0x00, 0x03,
	    0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf }, 44251,
	  0x02d1feef, 0x4b61e985 },
};

TEST(toeplitz_ipv6_tcp_vectors)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vectors6); i++) {
		EXPECT_EQ(vectors6[i].tcp,
			  ixm_toeplitz_ipv6_l4(ms_key, vectors6[i].saddr, vectors6[i].daddr,
					       ixm_htons(vectors6[i].sport),
					       ixm_htons(vectors6[i].dport))) {
			TH_LOG("RSS IPv6/TCP vector %zu", i);
		}
		EXPECT_EQ(vectors6[i].ip,
			  ixm_toeplitz_ipv6(ms_key, vectors6[i].saddr, vectors6[i].daddr)) {
			TH_LOG("RSS IPv6 vector %zu", i);
		}
	}
}

TEST(toeplitz_reference_vectors)
{
	unsigned int i;
	int bad = 0;

	/* The reference is only a reference if it passes them too. */
	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		u8 in[12];

		tuple_bytes(in, ixm_htonl(vectors[i].saddr), ixm_htonl(vectors[i].daddr),
			    ixm_htons(vectors[i].sport), ixm_htons(vectors[i].dport));
		if (ref_toeplitz(ms_key, sizeof(ms_key), in, 8) != vectors[i].ipv4 ||
		    ref_toeplitz(ms_key, sizeof(ms_key), in, 12) != vectors[i].tcp)
			bad++;
	}
	EXPECT_FALSE(bad) TH_LOG("the bit-serial reference computes all ten vectors");
}

TEST(toeplitz_random_vs_reference)
{
	u8 *key = malloc(IXM_RSS_KEY_LEN);	/* exact size: ASan sees over-reads */
	u8 in[IXM_RSS_KEY_LEN - 4];
	u64 seed = 320;
	int bad = 0, i;
	size_t len;

	if (!key) {
		perror("malloc");
		exit(255);
	}
	for (i = 0; i < 2000; i++) {
		ref_rand_fill(&seed, key, IXM_RSS_KEY_LEN);
		len = ref_rand(&seed) % (sizeof(in) + 1);	/* 0..36 */
		ref_rand_fill(&seed, in, len);
		if (ixm_toeplitz(key, IXM_RSS_KEY_LEN, in, len) !=
		    ref_toeplitz(key, IXM_RSS_KEY_LEN, in, len) && bad++ < IXM_DIAG_MAX)
			TH_LOG("case %d, length %zu", i, len);
	}
	EXPECT_FALSE(bad) TH_LOG("random keys and inputs of 0..36 bytes match the reference");
	free(key);
}

TEST(toeplitz_short_key)
{
	u8 padded[64] = { 0 };
	u64 seed = 4;
	size_t key_len;
	u8 in[24];
	int bad = 0;

	/*
	 * A key shorter than len + 4 behaves as if zero-padded, and is never
	 * read past its end (each key is allocated at exactly key_len).
	 */
	ref_rand_fill(&seed, in, sizeof(in));
	for (key_len = 0; key_len <= sizeof(in) + 4; key_len++) {
		u8 *key = malloc(key_len ? key_len : 1);

		if (!key) {
			perror("malloc");
			exit(255);
		}
		memset(padded, 0, sizeof(padded));
		ref_rand_fill(&seed, key, key_len);
		memcpy(padded, key, key_len);
		if (ixm_toeplitz(key, key_len, in, sizeof(in)) !=
		    ixm_toeplitz(padded, sizeof(padded), in, sizeof(in)) && bad++ < IXM_DIAG_MAX)
			TH_LOG("key_len %zu", key_len);
		free(key);
	}
	EXPECT_FALSE(bad) TH_LOG("a short key reads as zero-padded and is not over-read");
}

static void random_tuple(u64 *seed, __be32 *s, __be32 *d, __be16 *sp, __be16 *dp)
{
	ref_rand_fill(seed, s, 4);
	ref_rand_fill(seed, d, 4);
	ref_rand_fill(seed, sp, 2);
	ref_rand_fill(seed, dp, 2);
}

TEST(toeplitz_symmetric)
{
	const u8 *k = ixm_rss_key_symmetric;
	int bad2 = 0, bad4 = 0, i;
	u64 seed = 0x6d5a;

	for (i = 0; i < NR_RANDOM; i++) {
		__be32 s, d;
		__be16 sp, dp;

		random_tuple(&seed, &s, &d, &sp, &dp);
		if (ixm_toeplitz_ipv4(k, s, d) != ixm_toeplitz_ipv4(k, d, s))
			bad2++;
		if (ixm_toeplitz_ipv4_l4(k, s, d, sp, dp) !=
		    ixm_toeplitz_ipv4_l4(k, d, s, dp, sp))
			bad4++;
	}
	EXPECT_FALSE(bad2) {
		TH_LOG("symmetric key: IPv4 hash(a, b) == hash(b, a) on %d tuples", NR_RANDOM);
	}
	EXPECT_FALSE(bad4) {
		TH_LOG("symmetric key: IPv4/L4 hash(a, b) == hash(b, a) on %d tuples", NR_RANDOM);
	}
}

TEST(toeplitz_ms_key_not_symmetric)
{
	unsigned int i, asym = 0;

	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		__be16 sp = ixm_htons(vectors[i].sport);
		__be16 dp = ixm_htons(vectors[i].dport);
		__be32 s = ixm_htonl(vectors[i].saddr);
		__be32 d = ixm_htonl(vectors[i].daddr);

		if (ixm_toeplitz_ipv4_l4(ms_key, s, d, sp, dp) !=
		    ixm_toeplitz_ipv4_l4(ms_key, d, s, dp, sp))
			asym++;
	}
	EXPECT_GT(asym, 0) {
		TH_LOG("the sample key is not symmetric (%u of %zu vectors differ)",
		       asym, ARRAY_SIZE(vectors));
	}
}

TEST(toeplitz_symmetric_xor_fold)
{
	u64 seed = 16;
	int bad = 0, i;

	/*
	 * With a 16-bit-periodic key the hash is a function of the XOR of the
	 * input's 16-bit words (toeplitz.c): move bits between words without
	 * changing that XOR and the hash must not change.
	 */
	for (i = 0; i < 10000; i++) {
		u8 a[12], b[12];
		u16 x, w;

		ref_rand_fill(&seed, a, sizeof(a));
		memcpy(b, a, sizeof(b));
		x = (u16)ref_rand(&seed);
		w = (u16)ref_rand(&seed) % 5;	/* flip x in word w and in word 5 */
		b[2 * w] ^= x >> 8;
		b[2 * w + 1] ^= x & 0xff;
		b[10] ^= x >> 8;
		b[11] ^= x & 0xff;
		if (ixm_toeplitz(ixm_rss_key_symmetric, IXM_RSS_KEY_LEN, a, 12) !=
		    ixm_toeplitz(ixm_rss_key_symmetric, IXM_RSS_KEY_LEN, b, 12))
			bad++;
	}
	EXPECT_FALSE(bad) TH_LOG("symmetric key hashes only the XOR of the 16-bit words");
}

/* An IPv4 frame: @proto, @ihl words of header, ports 1234 -> 80. */
static unsigned int frame_build(u8 *f, u8 proto, unsigned int ihl, u16 frag)
{
	unsigned int l4 = 14 + ihl * 4;

	memset(f, 0, 128);
	f[12] = 0x08;
	f[13] = 0x00;
	f[14] = 0x40 | ihl;
	f[14 + 6] = frag >> 8;
	f[14 + 7] = frag & 0xff;
	f[14 + 9] = proto;
	memcpy(f + 14 + 12, "\xc6\x12\x00\x02", 4);	/* 198.18.0.2 */
	memcpy(f + 14 + 16, "\xc6\x12\x00\x01", 4);	/* 198.18.0.1 */
	f[l4] = 1234 >> 8;
	f[l4 + 1] = 1234 & 0xff;
	f[l4 + 2] = 0;
	f[l4 + 3] = 80;
	return l4 + 20;
}

TEST(toeplitz_frame_hashes_what_a_nic_hashes)
{
	__be32 sa = ixm_htonl(IP4(198, 18, 0, 2)), da = ixm_htonl(IP4(198, 18, 0, 1));
	u32 l4 = ixm_toeplitz_ipv4_l4(ms_key, sa, da, ixm_htons(1234), ixm_htons(80));
	u32 l3 = ixm_toeplitz_ipv4(ms_key, sa, da);
	u8 f[128];
	u32 h;
	unsigned int len;

	len = frame_build(f, 6, 5, 0x4000);	/* TCP, DF */
	ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, len, &h));
	EXPECT_EQ(l4, h);
	len = frame_build(f, 17, 5, 0);		/* UDP */
	ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, len, &h));
	EXPECT_EQ(l4, h);
	len = frame_build(f, 6, 15, 0);		/* 40 bytes of options */
	ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, IXM_TOEPLITZ_FRAME_MAX, &h));
	EXPECT_EQ(l4, h);
	len = frame_build(f, 1, 5, 0);		/* ICMP: the addresses */
	ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, len, &h));
	EXPECT_EQ(l3, h);
	len = frame_build(f, 17, 5, 0x2000);	/* first fragment (MF) */
	ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, len, &h));
	EXPECT_EQ(l3, h);
	len = frame_build(f, 17, 5, 0x0010);	/* a later fragment */
	ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, len, &h));
	EXPECT_EQ(l3, h);
	frame_build(f, 6, 5, 0);		/* ports cut off: the addresses */
	ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, 14 + 20 + 3, &h));
	EXPECT_EQ(l3, h);

	/* not hashed: ARP, VLAN-tagged, version 6 under 0x0800, ihl < 5, short */
	h = 0xdead;
	len = frame_build(f, 6, 5, 0);
	f[13] = 0x06;
	EXPECT_FALSE(ixm_toeplitz_frame(ms_key, f, len, &h));
	f[12] = 0x81;
	f[13] = 0x00;
	EXPECT_FALSE(ixm_toeplitz_frame(ms_key, f, len, &h));
	len = frame_build(f, 6, 5, 0);
	f[14] = 0x65;
	EXPECT_FALSE(ixm_toeplitz_frame(ms_key, f, len, &h));
	f[14] = 0x44;
	EXPECT_FALSE(ixm_toeplitz_frame(ms_key, f, len, &h));
	len = frame_build(f, 6, 6, 0);
	EXPECT_FALSE(ixm_toeplitz_frame(ms_key, f, 14 + 23, &h));
	EXPECT_FALSE(ixm_toeplitz_frame(ms_key, f, 14 + 19, &h));
	EXPECT_EQ(0xdead, h);
}

/*
 * An IPv6 frame: vectors6[0]'s addresses and ports, next header @nh in
 * the fixed header; @ext, unless 0xff, an 8-byte extension header of that
 * type between it and the ports' header (@nh then its next header).
 */
static unsigned int frame6_build(u8 *f, u8 nh, u8 ext)
{
	unsigned int l4 = 14 + 40 + (ext == 0xff ? 0 : 8);

	memset(f, 0, 128);
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[14 + 6] = ext == 0xff ? nh : ext;
	memcpy(f + 14 + 8, vectors6[0].saddr, 16);
	memcpy(f + 14 + 24, vectors6[0].daddr, 16);
	if (ext != 0xff)
		f[14 + 40] = nh;
	f[l4] = vectors6[0].sport >> 8;
	f[l4 + 1] = vectors6[0].sport & 0xff;
	f[l4 + 2] = vectors6[0].dport >> 8;
	f[l4 + 3] = vectors6[0].dport & 0xff;
	return l4 + 20;
}

/*
 * IPv6 as nic/steer.c's ixm_steer_owner6() and the NICs (RFCTL.IPV6_EX_DIS)
 * hash it: the 4-tuple when TCP or UDP is the fixed header's next header
 * and the ports are there, else the addresses; never past an extension
 * header.
 */
TEST(toeplitz_frame_hashes_ipv6)
{
	static const u8 exts[] = { 0, 43, 44, 60 };
	u32 l4 = vectors6[0].tcp, l3 = vectors6[0].ip, h;
	unsigned int len, i;
	u8 f[128];

	len = frame6_build(f, 6, 0xff);		/* TCP */
	ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, len, &h));
	EXPECT_EQ(l4, h) TH_LOG("TCP after the fixed header: the spec's TCP/IPv6 vector");
	len = frame6_build(f, 17, 0xff);	/* UDP */
	ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, len, &h));
	EXPECT_EQ(l4, h) TH_LOG("UDP: the same input");
	ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, IXM_TOEPLITZ_FRAME_IPV6, &h));
	EXPECT_EQ(l4, h) TH_LOG("IXM_TOEPLITZ_FRAME_IPV6 bytes are enough");
	ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, IXM_TOEPLITZ_FRAME_IPV6 - 1, &h));
	EXPECT_EQ(l3, h) TH_LOG("ports cut off: the addresses");
	len = frame6_build(f, 58, 0xff);	/* ICMPv6 */
	ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, len, &h));
	EXPECT_EQ(l3, h) TH_LOG("ICMPv6: the spec's IPv6 vector");
	for (i = 0; i < ARRAY_SIZE(exts); i++) {
		len = frame6_build(f, 6, exts[i]);
		ASSERT_TRUE(ixm_toeplitz_frame(ms_key, f, len, &h));
		EXPECT_EQ(l3, h) TH_LOG("extension header %u before TCP: the addresses", exts[i]);
	}
	EXPECT_GE(IXM_TOEPLITZ_FRAME_MAX, IXM_TOEPLITZ_FRAME_IPV6);
	EXPECT_GE(IXM_TOEPLITZ_FRAME_MAX, IXM_TOEPLITZ_FRAME_IPV4);

	/* not hashed: version 4 under 0x86dd, a cut fixed header, VLAN-tagged */
	h = 0xdead;
	len = frame6_build(f, 6, 0xff);
	f[14] = 0x45;
	EXPECT_FALSE(ixm_toeplitz_frame(ms_key, f, len, &h));
	len = frame6_build(f, 6, 0xff);
	EXPECT_FALSE(ixm_toeplitz_frame(ms_key, f, 14 + 39, &h));
	EXPECT_FALSE(ixm_toeplitz_frame(ms_key, f, 13, &h));
	f[12] = 0x81;
	f[13] = 0x00;
	EXPECT_FALSE(ixm_toeplitz_frame(ms_key, f, len, &h));
	EXPECT_EQ(0xdead, h);
}

TEST_HARNESS_MAIN
