// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz/csum.c - libFuzzer target for ixmod/base/csum.c
 *
 * Differential: every result of the optimized code is checked against
 * ref.h's naive sum, and the program traps on the first disagreement.
 * Input layout:
 *
 *	in[0]      bits 0-2: alignment of the data copy (0..7)
 *	in[1]      selector: split point, field offsets, protocol
 *	in[2..3]   new value of a 16-bit field (memory order)
 *	in[4..7]   new value of a 32-bit field (memory order)
 *	in[8..]    the data, also read as a "header" for the update checks
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "ref.h"

#define HDR	8

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

static u16 be(__sum16 c)
{
	return ref_be16_of(&c);
}

/* The whole sum, and the sum chained across an even split. */
static void check_sum(const u8 *p, size_t n, u8 sel)
{
	size_t k = n ? ((size_t)sel * 2) % (n + 1) & ~(size_t)1 : 0;
	u32 s;

	check(be(ixm_csum(p, n)) == ref_csum(p, n));
	s = ixm_csum_partial(p, k, 0);
	s = ixm_csum_partial(p + k, n - k, s);
	check(be(ixm_csum_fold(s)) == ref_csum(p, n));
}

/*
 * Recompute from scratch with the checksum field at @c zeroed and compare
 * with @inc.  The only allowed difference is RFC 1624's: when every other
 * word is zero, recomputation gives 0xffff and eqn 3 gives 0x0000.
 */
static void check_update(u8 *h, size_t hl, size_t c, __sum16 inc)
{
	u16 full;

	h[c] = 0;
	h[c + 1] = 0;
	full = ref_csum(h, hl);
	if (ref_csum_sum(h, hl) == 0)
		check(full == 0xffff && be(inc) == 0x0000);
	else
		check(be(inc) == full);
}

static void check_replace(const u8 *in, const u8 *data, size_t n)
{
	size_t hl = n & ~(size_t)1, words = hl / 2, c, f;
	__be16 old16, new16;
	__be32 old32, new32;
	__sum16 check16;
	u8 *h;

	if (words < 3)
		return;
	h = malloc(hl);
	if (!h)
		return;

	/* a checksum field at an even offset, and a 16-bit field elsewhere */
	c = 2 * (in[1] % words);
	f = 2 * ((in[1] / words + c / 2 + 1) % words);
	if (f == c)
		f = (c + 2) % hl;
	memcpy(h, data, hl);
	h[c] = 0;
	h[c + 1] = 0;
	check16 = ixm_csum(h, hl);
	memcpy(h + c, &check16, 2);
	memcpy(&old16, h + f, 2);
	memcpy(&new16, in + 2, 2);
	memcpy(h + f, &new16, 2);
	check_update(h, hl, c, ixm_csum_replace16(check16, old16, new16));

	/* a 32-bit field clear of the checksum: right after it, or before */
	if (c + 6 <= hl)
		f = c + 2;
	else if (c >= 4)
		f = c - 4;
	else
		goto out;
	memcpy(h, data, hl);
	h[c] = 0;
	h[c + 1] = 0;
	check16 = ixm_csum(h, hl);
	memcpy(h + c, &check16, 2);
	memcpy(&old32, h + f, 4);
	memcpy(&new32, in + 4, 4);
	memcpy(h + f, &new32, 4);
	check_update(h, hl, c, ixm_csum_replace32(check16, old32, new32));
out:
	free(h);
}

/* The pseudo-header against the same 12 bytes laid out by hand. */
static void check_pseudo(const u8 *in, const u8 *data, size_t n)
{
	u8 *buf = malloc(12 + n);
	u16 len = (u16)(in[2] << 8 | in[3]);
	__be32 s, d;
	u32 sum;

	if (!buf)
		return;
	memcpy(&s, in + 4, 4);
	memcpy(&d, in, 4);
	memcpy(buf, &s, 4);
	memcpy(buf + 4, &d, 4);
	buf[8] = 0;
	buf[9] = in[1];
	buf[10] = len >> 8;
	buf[11] = len & 0xff;
	memcpy(buf + 12, data, n);
	sum = ixm_csum_pseudo(s, d, in[1], len, ixm_csum_partial(data, n, 0));
	check(be(ixm_csum_fold(sum)) == ref_csum(buf, 12 + n));
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	unsigned int off;
	size_t n;
	u8 *base;

	if (size < HDR)
		return 0;
	off = in[0] & 7;
	n = size - HDR;

	/* An exact-size block, so ASan sees any read past the data. */
	base = malloc(off + n ? off + n : 1);
	if (!base)
		return 0;
	memcpy(base + off, in + HDR, n);

	check_sum(base + off, n, in[1]);
	check_replace(in, base + off, n);
	check_pseudo(in, base + off, n);
	free(base);
	return 0;
}
