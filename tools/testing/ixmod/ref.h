/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ref.h - slow, obvious reference implementations for the unit tests and
 * the fuzzers
 *
 * Each is written the way the RFC or specification states it, and
 * deliberately not the way ixmod/net/ does it: the checksum reads big-endian
 * 16-bit words one at a time and folds the carry after every addition; the
 * Toeplitz hash really shifts the whole key left one bit at a time.  They
 * are only worth having while they stay this simple.
 */
#ifndef _IXM_TEST_REF_H
#define _IXM_TEST_REF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * One's complement sum of @p as big-endian 16-bit words (RFC 1071 §1), an
 * odd last byte padded with a zero byte on its right, folded after every
 * step.  Returns the folded sum as a number: 0 only for all-zero data.
 */
static inline uint16_t ref_csum_sum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i < len; i += 2) {
		uint32_t word = (uint32_t)p[i] << 8;

		if (i + 1 < len)
			word |= p[i + 1];
		sum += word;
		if (sum > 0xffff)
			sum -= 0xffff;	/* drop the carry, add it back at the bottom */
	}
	return (uint16_t)sum;
}

/* The checksum as the big-endian number the field's two bytes spell. */
static inline uint16_t ref_csum(const uint8_t *p, size_t len)
{
	return (uint16_t)~ref_csum_sum(p, len);
}

/* Reads a 16-bit value stored in memory order as a big-endian number. */
static inline uint16_t ref_be16_of(const void *v)
{
	const uint8_t *b = v;

	return (uint16_t)(b[0] << 8 | b[1]);
}

/*
 * Microsoft's ComputeHash() as its pseudo-code reads: for every input bit
 * from the left, XOR in the key's leftmost 32 bits if the bit is set, then
 * shift the key left by one bit.  Key bytes past @key_len are zero.
 * Returns 0 if memory runs out, which no test input comes near.
 */
static inline uint32_t ref_toeplitz(const uint8_t *key, size_t key_len,
				    const uint8_t *in, size_t len)
{
	size_t klen = len + 4, i, m;
	uint32_t result = 0;
	uint8_t *k;
	int bit;

	k = calloc(klen, 1);
	if (!k)
		return 0;
	memcpy(k, key, key_len < klen ? key_len : klen);
	for (i = 0; i < len; i++) {
		for (bit = 7; bit >= 0; bit--) {
			if (in[i] & (1u << bit))
				result ^= (uint32_t)k[0] << 24 | (uint32_t)k[1] << 16 |
					  (uint32_t)k[2] << 8 | k[3];
			for (m = 0; m + 1 < klen; m++)
				k[m] = (uint8_t)(k[m] << 1 | k[m + 1] >> 7);
			k[klen - 1] = (uint8_t)(k[klen - 1] << 1);
		}
	}
	free(k);
	return result;
}

/*
 * xorshift64*: a fixed seed gives the same "random" cases on every run.
 * The state is unsigned long long, the type of the kernel's u64.
 */
static inline unsigned long long ref_rand(unsigned long long *state)
{
	unsigned long long x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static inline void ref_rand_fill(unsigned long long *state, void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(ref_rand(state) >> 56);
}

#endif /* _IXM_TEST_REF_H */
