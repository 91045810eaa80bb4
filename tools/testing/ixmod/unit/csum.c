// SPDX-License-Identifier: GPL-2.0
/*
 * unit/csum.c - tests of ixmod/base/csum.c
 *
 * Published numbers first (RFC 1071 §3, a captured IPv4 header, RFC 1624
 * §3), then the optimized code against ref.h's naive sum over every
 * alignment and length, then RFC 1624 updates against recomputation over
 * many pseudo-random headers, including the ones where the new sum is -0.
 * Checksums are compared as the bytes they put in memory, so the tests
 * mean the same thing on either byte order.  Buffers are allocated at
 * their exact size so that ASan (SANITIZE=1) catches any over-read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "ref.h"
#include "harness.h"

#define NR_RANDOM	100000
#define MAX_LEN		300

/* The checksum as the big-endian number its two bytes in memory spell. */
static u16 be(__sum16 c)
{
	return ref_be16_of(&c);
}

/*
 * A copy of @src in a block that ends right after it, @off bytes past a
 * 16-byte boundary (where malloc puts blocks): ASan then sees an over-read
 * of even one byte.
 */
static u8 *dup_at(const u8 *src, size_t len, unsigned int off, void **base)
{
	size_t size = off + len ? off + len : 1;
	u8 *p = malloc(size);

	if (!p) {
		perror("malloc");
		exit(255);
	}
	*base = p;
	memcpy(p + off, src, len);
	return p + off;
}

TEST(csum_rfc1071_example)
{
	/* RFC 1071 §3: these bytes sum to ddf2 (as big-endian words). */
	static const u8 b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	__sum16 c = ixm_csum(b, sizeof(b));
	u16 sum = (u16)~(u16)ixm_csum_fold(ixm_csum_partial(b, sizeof(b), 0));

	EXPECT_EQ(0xddf2, ref_be16_of(&sum)) TH_LOG("RFC 1071 §3 example sums to 0xddf2");
	EXPECT_EQ(0x220d, be(c)) TH_LOG("RFC 1071 §3 example: checksum bytes are 22 0d");
}

/* A captured UDP/IPv4 header, 192.168.0.1 -> 192.168.0.199, checksum b861. */
static const u8 ip_hdr[20] = {
	0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
};

TEST(csum_ipv4_header)
{
	u8 h[20];

	EXPECT_EQ(0, be(ixm_csum(ip_hdr, sizeof(ip_hdr)))) {
		TH_LOG("IPv4 header with its checksum verifies to 0");
	}
	memcpy(h, ip_hdr, sizeof(h));
	h[10] = 0;
	h[11] = 0;
	EXPECT_EQ(0xb861, be(ixm_csum(h, sizeof(h)))) {
		TH_LOG("IPv4 header with the field zeroed gives 0xb861");
	}
}

TEST(csum_odd_lengths)
{
	static const u8 b[] = { 0x00, 0x01, 0xf2 };
	static const u8 one = 0x01;
	bool pass;

	/* RFC 9293 §3.1: an odd last byte is padded with zero on its right. */
	pass = be(ixm_csum(&one, 1)) == 0xfeff &&
	       be(ixm_csum(b, 3)) == (u16)~0xf201 &&
	       be(ixm_csum(b, 0)) == 0xffff;
	EXPECT_TRUE(pass) TH_LOG("odd lengths: last byte is the high half of a word");
}

/* Splitting a buffer at any even point and chaining the sums changes nothing. */
TEST(csum_chaining)
{
	u64 seed = 1071;
	int bad = 0;
	size_t len, k;
	u8 b[97];

	for (len = 0; len <= sizeof(b); len++) {
		ref_rand_fill(&seed, b, len);
		b[0] |= 1;	/* not all zero: see the -0 note in csum.c */
		for (k = 0; k <= len; k += 2) {
			u32 s = ixm_csum_partial(b, k, 0);

			s = ixm_csum_partial(b + k, len - k, s);
			if (len && be(ixm_csum_fold(s)) != ref_csum(b, len)) {
				if (bad++ < IXM_DIAG_MAX)
					TH_LOG("length %zu split at %zu", len, k);
			}
		}
		/* A sum of -0 carried in changes nothing either. */
		if (len && be(ixm_csum_fold(ixm_csum_partial(b, len, 0xffffffff))) !=
			   ref_csum(b, len)) {
			if (bad++ < IXM_DIAG_MAX)
				TH_LOG("length %zu from 0xffffffff", len);
		}
	}
	EXPECT_FALSE(bad) TH_LOG("sums chain across every even split point");
}

/* Blocks summed alone and added at any offset, odd ones included. */
TEST(csum_block_add)
{
	u64 seed = 1624;
	int bad = 0;
	size_t len, k, j;
	u8 b[131];
	u32 s;

	for (len = 1; len <= sizeof(b); len++) {
		ref_rand_fill(&seed, b, len);
		b[0] |= 1;
		for (k = 0; k <= len; k++) {
			/* three blocks: [0, k), [k, j), [j, len) */
			j = k + (len - k) / 2;
			s = ixm_csum_block_add(0, ixm_csum_partial(b, k, 0), 0);

			s = ixm_csum_block_add(s, ixm_csum_partial(b + k, j - k, 0), k);
			s = ixm_csum_block_add(s, ixm_csum_partial(b + j, len - j, 0), j);
			if (be(ixm_csum_fold(s)) != ref_csum(b, len) && bad++ < IXM_DIAG_MAX)
				TH_LOG("length %zu blocks at %zu and %zu", len, k, j);
		}
	}
	EXPECT_FALSE(bad) TH_LOG("blocks at odd and even offsets add up to the whole sum");
}

/* Every length 0..MAX_LEN at alignment @off, against the reference. */
static int check_lengths(const u8 *data, unsigned int off, const char *what)
{
	int bad = 0;
	size_t len;

	for (len = 0; len <= MAX_LEN; len++) {
		void *base;
		u8 *p = dup_at(data, len, off, &base);
		u16 got = be(ixm_csum(p, len));
		u16 exp = ref_csum(p, len);

		if (got != exp && bad++ < IXM_DIAG_MAX)
			ixm_diag("%s, offset %u, length %zu: expected 0x%04x got 0x%04x",
				 what, off, len, exp, got);
		free(base);
	}
	return bad;
}

/* Every start offset 0..7 and every length 0..MAX_LEN, three kinds of data. */
TEST(csum_alignment_random)
{
	u8 data[MAX_LEN];
	unsigned int off;
	u64 seed = 42;

	ref_rand_fill(&seed, data, sizeof(data));
	for (off = 0; off < 8; off++) {
		EXPECT_EQ(0, check_lengths(data, off, "random")) {
			TH_LOG("offset %u: random data, lengths 0..%d match the reference",
			       off, MAX_LEN);
		}
	}
}

TEST(csum_alignment_all_ones)
{
	u8 ones[MAX_LEN];
	unsigned int off;
	int bad = 0;

	memset(ones, 0xff, sizeof(ones));
	for (off = 0; off < 8; off++)
		bad += check_lengths(ones, off, "0xff");
	EXPECT_EQ(0, bad) TH_LOG("all-0xff data (a carry on every add), every offset and length");
}

TEST(csum_alignment_all_zero)
{
	u8 zeros[MAX_LEN];
	unsigned int off;
	int bad = 0;

	memset(zeros, 0, sizeof(zeros));
	for (off = 0; off < 8; off++)
		bad += check_lengths(zeros, off, "zero");
	EXPECT_EQ(0, bad) TH_LOG("all-zero data sums to +0 and checks as 0xffff");
}

TEST(csum_large)
{
	size_t len = (1 << 20) + 3;
	u8 *b = malloc(len);
	u64 seed = 7;
	bool pass;

	if (!b) {
		perror("malloc");
		exit(255);
	}
	memset(b, 0xff, len);
	pass = be(ixm_csum(b, len)) == ref_csum(b, len);
	ref_rand_fill(&seed, b, len);
	pass = pass && be(ixm_csum(b + 1, len - 1)) == ref_csum(b + 1, len - 1);
	EXPECT_TRUE(pass) TH_LOG("1 MiB buffers (accumulator wraps many times)");
	free(b);
}

/* A random IPv4-like header (version 4, IHL 5) with a correct checksum. */
static void random_header(u64 *seed, u8 h[20])
{
	u16 c;

	ref_rand_fill(seed, h, 20);
	h[0] = 0x45;
	h[10] = 0;
	h[11] = 0;
	c = ref_csum(h, 20);
	h[10] = c >> 8;
	h[11] = c & 0xff;
}

static __sum16 get_check(const u8 h[20])
{
	__sum16 c;

	memcpy(&c, h + 10, 2);
	return c;
}

TEST(csum_replace16_random)
{
	u64 seed = 1624;
	int bad = 0, i;

	for (i = 0; i < NR_RANDOM; i++) {
		static const unsigned int fields[] = { 0, 2, 4, 6, 8, 12, 14, 16, 18 };
		unsigned int f = fields[ref_rand(&seed) % ARRAY_SIZE(fields)];
		__be16 old, new;
		__sum16 c;
		u8 h[20];

		random_header(&seed, h);
		memcpy(&old, h + f, 2);
		ref_rand_fill(&seed, &new, 2);
		if (f == 0)	/* keep the version: a header is never all zero */
			memset(&new, 0x45, 1);
		c = ixm_csum_replace16(get_check(h), old, new);
		memcpy(h + f, &new, 2);
		h[10] = 0;
		h[11] = 0;
		if (be(c) != ref_csum(h, 20) && bad++ < IXM_DIAG_MAX)
			TH_LOG("field %u: expected 0x%04x got 0x%04x",
			       f, ref_csum(h, 20), be(c));
	}
	EXPECT_FALSE(bad) TH_LOG("replace16 equals recomputation on %d random headers", NR_RANDOM);
}

TEST(csum_replace32_random)
{
	u64 seed = 3022;
	int bad = 0, i;

	for (i = 0; i < NR_RANDOM; i++) {
		/* 32-bit fields at even offsets clear of the checksum (10..11) */
		static const unsigned int fields[] = { 0, 2, 4, 6, 12, 14, 16 };
		unsigned int f = fields[ref_rand(&seed) % ARRAY_SIZE(fields)];
		__be32 old, new;
		__sum16 c;
		u8 h[20];

		random_header(&seed, h);
		memcpy(&old, h + f, 4);
		ref_rand_fill(&seed, &new, 4);
		if (f == 0)
			memset(&new, 0x45, 1);
		c = ixm_csum_replace32(get_check(h), old, new);
		memcpy(h + f, &new, 4);
		h[10] = 0;
		h[11] = 0;
		if (be(c) != ref_csum(h, 20) && bad++ < IXM_DIAG_MAX)
			TH_LOG("field %u: expected 0x%04x got 0x%04x",
			       f, ref_csum(h, 20), be(c));
	}
	EXPECT_FALSE(bad) TH_LOG("replace32 equals recomputation on %d random headers", NR_RANDOM);
}

/* RFC 1141's eqn 2, HC' = HC + m + ~m', to show what eqn 3 avoids. */
static u16 eqn2(u16 hc, u16 m, u16 m_new)
{
	u32 s = (u32)hc + m + (u16)~m_new;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (u16)s;
}

TEST(csum_rfc1624_example)
{
	/* RFC 1624 §3: the other words sum to 0xcd7a; m = 0x5555 -> 0x3285. */
	u8 h[6] = { 0x55, 0x55, 0xcd, 0x7a, 0x00, 0x00 };
	__be16 old, new;
	__sum16 c;

	c = ixm_csum(h, sizeof(h));
	EXPECT_EQ(0xdd2f, be(c)) TH_LOG("RFC 1624 §3: HC = 0xdd2f");
	memcpy(h + 4, &c, 2);
	memcpy(&old, h, 2);
	h[0] = 0x32;
	h[1] = 0x85;
	memcpy(&new, h, 2);
	c = ixm_csum_replace16(c, old, new);
	EXPECT_EQ(0x0000, be(c)) TH_LOG("RFC 1624 §3: eqn 3 gives HC' = 0x0000 (sum -0)");
	h[4] = 0;
	h[5] = 0;
	EXPECT_EQ(0x0000, ref_csum(h, sizeof(h))) TH_LOG("RFC 1624 §3: recomputation agrees");
	EXPECT_EQ(0xffff, eqn2(0xdd2f, 0x5555, 0x3285)) {
		TH_LOG("RFC 1624 §3: eqn 2 would give 0xffff here (the case is the corner)");
	}
}

/*
 * The same corner on random headers: choose the new field value so that the
 * header's sum becomes exactly 0xffff (-0), whose checksum is 0x0000.
 */
TEST(csum_minus_zero_random)
{
	u64 seed = 0xffff;
	int bad = 0, i;

	for (i = 0; i < 1000; i++) {
		u8 h[20];
		u16 rest, target;
		__be16 old, new;
		__be32 old32, new32;
		__sum16 c;

		/* 16-bit field at offset 4 (identification) */
		random_header(&seed, h);
		memcpy(&old, h + 4, 2);
		h[4] = 0;
		h[5] = 0;
		h[10] = 0;
		h[11] = 0;
		rest = ref_csum_sum(h, 20);
		target = (u16)~rest;	/* rest + target = 0xffff */
		h[4] = target >> 8;
		h[5] = target & 0xff;
		memcpy(&new, h + 4, 2);
		memcpy(h + 4, &old, 2);
		c = ixm_csum_replace16(ixm_csum(h, 20), old, new);
		if (be(c) != 0 && bad++ < IXM_DIAG_MAX)
			TH_LOG("replace16 to -0: got 0x%04x", be(c));

		/* 32-bit field at offset 12 (source address) */
		random_header(&seed, h);
		memcpy(&old32, h + 12, 4);
		memset(h + 12, 0, 4);
		h[10] = 0;
		h[11] = 0;
		h[12] = 0x0a;	/* 10.x.y.z: the high word is fixed */
		rest = ref_csum_sum(h, 20);
		target = (u16)~rest;
		h[14] = target >> 8;
		h[15] = target & 0xff;
		memcpy(&new32, h + 12, 4);
		if (ref_csum(h, 20) != 0 && bad++ < IXM_DIAG_MAX)
			TH_LOG("test bug: header does not sum to -0");
		memcpy(h + 12, &old32, 4);
		c = ixm_csum_replace32(ixm_csum(h, 20), old32, new32);
		if (be(c) != 0 && bad++ < IXM_DIAG_MAX)
			TH_LOG("replace32 to -0: got 0x%04x", be(c));
	}
	EXPECT_FALSE(bad) {
		TH_LOG("updates that bring the sum to -0 give 0x0000, as recomputation does");
	}
}

TEST(csum_replace_same)
{
	static const u16 values[] = { 0x0000, 0x0001, 0x5555, 0x8000, 0xfffe, 0xffff };
	unsigned int v;
	int bad = 0;
	u32 hc;

	/*
	 * RFC 1624 erratum 4782 claims ~(~0 + ~m + m) is 0xffff; with
	 * end-around carries it is 0, and any checksum survives a no-op
	 * update.  0xffff is the exception: only all-zero data has it.
	 */
	for (v = 0; v < ARRAY_SIZE(values); v++) {
		for (hc = 0; hc < 0xffff; hc++) {
			__be16 m;
			__sum16 c = (__sum16)hc;

			memcpy(&m, &values[v], 2);
			if (ixm_csum_replace16(c, m, m) != c && bad++ < IXM_DIAG_MAX)
				TH_LOG("HC 0x%04x m 0x%04x", hc, values[v]);
		}
	}
	EXPECT_FALSE(bad) TH_LOG("replacing a field with itself keeps every checksum but 0xffff");
}

TEST(csum_ttl_and_nat)
{
	u8 h[20];
	__be16 old16, new16;
	__be32 old32, new32;
	__sum16 c;

	/* RFC 791 §3.1 "Time to Live": 64 -> 63 (the word is TTL, protocol) */
	memcpy(h, ip_hdr, sizeof(h));
	memcpy(&old16, h + 8, 2);
	h[8]--;
	memcpy(&new16, h + 8, 2);
	c = ixm_csum_replace16(get_check(h), old16, new16);
	memcpy(h + 10, &c, 2);
	EXPECT_EQ(0, be(ixm_csum(h, sizeof(h)))) TH_LOG("TTL decrement: header still verifies");

	/* NAT: source 192.168.0.1 -> 10.0.0.1 */
	memcpy(&old32, h + 12, 4);
	h[12] = 10;
	h[13] = 0;
	h[14] = 0;
	h[15] = 1;
	memcpy(&new32, h + 12, 4);
	c = ixm_csum_replace32(get_check(h), old32, new32);
	memcpy(h + 10, &c, 2);
	EXPECT_EQ(0, be(ixm_csum(h, sizeof(h)))) TH_LOG("address rewrite: header still verifies");
}

/* The 12-byte pseudo-header of RFC 768 and RFC 9293 §3.1, laid out by hand. */
static void pseudo_bytes(u8 ph[12], __be32 s, __be32 d, u8 proto, u16 len)
{
	memcpy(ph, &s, 4);
	memcpy(ph + 4, &d, 4);
	ph[8] = 0;
	ph[9] = proto;
	ph[10] = len >> 8;
	ph[11] = len & 0xff;
}

TEST(csum_pseudo)
{
	u64 seed = 768;
	int bad = 0, i;

	for (i = 0; i < NR_RANDOM; i++) {
		u8 ph[12];
		__be32 s, d;
		u8 proto;
		u16 len;
		u32 sum;

		ref_rand_fill(&seed, &s, 4);
		ref_rand_fill(&seed, &d, 4);
		proto = (u8)ref_rand(&seed);
		len = (u16)ref_rand(&seed);
		pseudo_bytes(ph, s, d, proto, len);
		sum = ixm_csum_pseudo(s, d, proto, len, 0);
		if (be(ixm_csum_fold(sum)) != ref_csum(ph, 12) && bad++ < IXM_DIAG_MAX)
			TH_LOG("proto %u len %u: expected 0x%04x got 0x%04x",
			       proto, len, ref_csum(ph, 12), be(ixm_csum_fold(sum)));
	}
	EXPECT_FALSE(bad) {
		TH_LOG("pseudo-header equals the hand-built 12 bytes on %d cases", NR_RANDOM);
	}
}

TEST(csum_pseudo_datagram)
{
	u8 buf[12 + 64];
	u64 seed = 17;
	int bad = 0;
	size_t n;

	/* What UDP and TCP do: pseudo-header plus partial sum of the segment. */
	for (n = 8; n <= 64; n++) {
		__be32 s, d;
		u32 sum;

		ref_rand_fill(&seed, &s, 4);
		ref_rand_fill(&seed, &d, 4);
		ref_rand_fill(&seed, buf + 12, n);
		pseudo_bytes(buf, s, d, 17, (u16)n);
		sum = ixm_csum_pseudo(s, d, 17, (u16)n, ixm_csum_partial(buf + 12, n, 0));
		if (be(ixm_csum_fold(sum)) != ref_csum(buf, 12 + n) && bad++ < IXM_DIAG_MAX)
			TH_LOG("length %zu", n);
	}
	EXPECT_FALSE(bad) TH_LOG("pseudo-header chained with odd and even segments");
}

TEST_HARNESS_MAIN
