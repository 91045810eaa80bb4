// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz/toeplitz.c - libFuzzer target for ixmod/base/toeplitz.c
 *
 * Differential: ixm_toeplitz() against ref.h's bit-serial ComputeHash(),
 * the IPv4 helpers against ixm_toeplitz() over the same bytes, and the
 * symmetric key's symmetry; ixm_toeplitz_frame() over the data taken as
 * a frame (an exact-size buffer: ASan sees any read past it), which must
 * agree with the IPv4 helpers when it hashes.  Traps on the first
 * disagreement.  Input:
 *
 *	in[0]              key length, modulo IXM_RSS_KEY_LEN + 1 (so keys
 *	                   shorter than the data + 4 occur: zero-padded)
 *	in[1..key length]  the key
 *	the rest           the data, at most MAX_DATA bytes of it (the
 *	                   reference costs data length squared)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "toeplitz.h"
#include "ref.h"

#define MAX_DATA	64

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

static void check_ipv4(const u8 *key, size_t key_len, const u8 *d)
{
	u8 k[IXM_RSS_KEY_LEN] = { 0 };
	__be32 sa, da;
	__be16 sp, dp;

	memcpy(k, key, key_len);
	memcpy(&sa, d, 4);
	memcpy(&da, d + 4, 4);
	memcpy(&sp, d + 8, 2);
	memcpy(&dp, d + 10, 2);
	check(ixm_toeplitz_ipv4(k, sa, da) == ixm_toeplitz(k, sizeof(k), d, 8));
	check(ixm_toeplitz_ipv4_l4(k, sa, da, sp, dp) ==
	      ixm_toeplitz(k, sizeof(k), d, 12));

	check(ixm_toeplitz_ipv4(ixm_rss_key_symmetric, sa, da) ==
	      ixm_toeplitz_ipv4(ixm_rss_key_symmetric, da, sa));
	check(ixm_toeplitz_ipv4_l4(ixm_rss_key_symmetric, sa, da, sp, dp) ==
	      ixm_toeplitz_ipv4_l4(ixm_rss_key_symmetric, da, sa, dp, sp));
}

/*
 * An IPv6 frame's hash: its addresses, or they and the ports after the
 * fixed header (RFC 8200 §3), as the byte string Toeplitz hashes.
 */
static void check_frame6(const u8 *f, size_t len, u32 h)
{
	u8 t[36];

	check(len >= 14 + 40 && (f[14] >> 4) == 6);
	if (h == ixm_toeplitz(ixm_rss_key_symmetric, IXM_RSS_KEY_LEN, f + 22, 32))
		return;
	check(len >= 14 + 40 + 4);
	memcpy(t, f + 22, 32);
	memcpy(t + 32, f + 54, 4);
	check(h == ixm_toeplitz(ixm_rss_key_symmetric, IXM_RSS_KEY_LEN, t, sizeof(t)));
}

/* The frame hash reads only what @len allows and hashes what it says. */
static void check_frame(const u8 *f, size_t len)
{
	u32 h;
	__be32 sa, da;
	unsigned int ihl;
	u8 t[12];

	if (!ixm_toeplitz_frame(ixm_rss_key_symmetric, f, len, &h))
		return;
	if (f[12] == 0x86 && f[13] == 0xdd) {
		check_frame6(f, len, h);
		return;
	}
	check(len >= 34 && f[12] == 0x08 && f[13] == 0 && (f[14] >> 4) == 4);
	ihl = (f[14] & 0xf) * 4;
	check(ihl >= 20 && len >= 14 + ihl);
	memcpy(&sa, f + 26, 4);
	memcpy(&da, f + 30, 4);
	if (h == ixm_toeplitz_ipv4(ixm_rss_key_symmetric, sa, da))
		return;
	/* else the 4-tuple: addresses, then the ports after the header */
	check(len >= 14 + ihl + 4);
	memcpy(t, f + 26, 8);
	memcpy(t + 8, f + 14 + ihl, 4);
	check(h == ixm_toeplitz(ixm_rss_key_symmetric, IXM_RSS_KEY_LEN, t, sizeof(t)));
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	size_t key_len, len;
	u8 *key, *data;

	if (size < 1)
		return 0;
	key_len = in[0] % (IXM_RSS_KEY_LEN + 1);
	if (size - 1 < key_len)
		key_len = size - 1;
	len = size - 1 - key_len;
	if (len > MAX_DATA)
		len = MAX_DATA;

	/* Exact-size copies, so ASan sees any read past either. */
	key = malloc(key_len ? key_len : 1);
	data = malloc(len ? len : 1);
	if (!key || !data)
		goto out;
	memcpy(key, in + 1, key_len);
	memcpy(data, in + 1 + key_len, len);

	check(ixm_toeplitz(key, key_len, data, len) ==
	      ref_toeplitz(key, key_len, data, len));
	if (len >= 12)
		check_ipv4(key, key_len, data);
	check_frame(data, len);
out:
	free(key);
	free(data);
	return 0;
}
