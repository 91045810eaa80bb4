// SPDX-License-Identifier: GPL-2.0
/*
 * siphash.c - SipHash-2-4, the keyed hash of TCP's ISNs and SYN cookies
 *
 * From the paper's description (Aumasson and Bernstein, "SipHash: a fast
 * short-input PRF", 2012, §2): four 64-bit words of state initialised from
 * the key, two SipRounds per 8-byte message word, the length in the last
 * word's top byte, four rounds to finalise.  unit/siphash vectors come from
 * the paper's Appendix A.
 */
#include "tcp.h"

static inline u64 ixm_rol64(u64 w, unsigned int s)
{
	return (w << s) | (w >> (64 - s));
}

#define IXM_SIPROUND(v0, v1, v2, v3)				\
	do {							\
		v0 += v1; v1 = ixm_rol64(v1, 13); v1 ^= v0;	\
		v0 = ixm_rol64(v0, 32);				\
		v2 += v3; v3 = ixm_rol64(v3, 16); v3 ^= v2;	\
		v0 += v3; v3 = ixm_rol64(v3, 21); v3 ^= v0;	\
		v2 += v1; v1 = ixm_rol64(v1, 17); v1 ^= v2;	\
		v2 = ixm_rol64(v2, 32);				\
	} while (0)

static inline u64 ixm_le64(const u8 *p)
{
	u64 w = 0;
	int i;

	for (i = 7; i >= 0; i--)
		w = w << 8 | p[i];
	return w;
}

/**
 * ixm_siphash() - SipHash-2-4 of a byte string
 * @key: the 128-bit key, as two little-endian words
 * @data: the message
 * @len: its bytes
 *
 * Return: the 64-bit hash.
 */
u64 ixm_siphash(const u64 key[2], const void *data, size_t len)
{
	u64 v0 = 0x736f6d6570736575ULL ^ key[0];
	u64 v1 = 0x646f72616e646f6dULL ^ key[1];
	u64 v2 = 0x6c7967656e657261ULL ^ key[0];
	u64 v3 = 0x7465646279746573ULL ^ key[1];
	const u8 *p = data;
	u8 last[8] = { 0 };
	size_t left = len;
	u64 m;

	for (; left >= 8; p += 8, left -= 8) {
		m = ixm_le64(p);
		v3 ^= m;
		IXM_SIPROUND(v0, v1, v2, v3);
		IXM_SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	memcpy(last, p, left);
	last[7] = (u8)len;
	m = ixm_le64(last);
	v3 ^= m;
	IXM_SIPROUND(v0, v1, v2, v3);
	IXM_SIPROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	IXM_SIPROUND(v0, v1, v2, v3);
	IXM_SIPROUND(v0, v1, v2, v3);
	IXM_SIPROUND(v0, v1, v2, v3);
	IXM_SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}
