// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_cookie.c - initial sequence numbers (RFC 6528) and SYN cookies
 * (RFC 4987 §3.6)
 *
 * ISN = M + F(4-tuple, secret): M ticks every 4 us (RFC 9293 §3.4.1), F is
 * SipHash keyed with the table's first secret, so a connection's ISNs rise
 * with time while another host's ISNs are unpredictable.
 *
 * A SYN cookie is the ISN of a SYN-ACK we keep no state for:
 *
 *	bits 31-27  t, the minute counter (64-s periods) mod 32
 *	bits 26-24  i, the index of the peer's MSS in ixm_tcp_cookie_mss[]
 *	bits 23-0   SipHash(4-tuple, peer ISN, t, i) with the second secret
 *
 * The returning ACK acknowledges cookie + 1; the cookie is good if its t
 * is this period or the previous one and the hash matches.  t and i are
 * both under the hash, so an ACK that changes either (to pick a larger
 * MSS than the SYN named, say) fails it (RFC 4987 §3.6).  Nothing else
 * survives: a connection opened from a cookie has no window scaling and
 * no timestamps (the SYN-ACK offered neither), the same trade-off as
 * Linux without timestamps.
 */
#include "tcp.h"

#define IXM_COOKIE_PERIOD_SHIFT	36	/* 2^36 ns: about 69 s */

/* MSS values a cookie can carry, largest last (RFC 4987 §3.6 "encoding") */
static const u16 ixm_tcp_cookie_mss[8] = {
	536, 1000, 1200, 1300, 1360, 1400, 1440, 1460,
};

/*
 * The input: both addresses whole (an IPv6 one too: a fold would let a
 * sender pick an address whose cookie is another's), the ports, @extra
 * and @extra2.
 */
static u32 ixm_tcp_tuple_hash(const u64 *key, const struct ixm_tcp_addrs *a, __be16 lport,
			      __be16 rport, u32 extra, u32 extra2)
{
	u8 w[2 * 16 + 2 * 2 + 2 * 4];
	unsigned int n = 0;

	memcpy(w, a->l, a->len);
	n += a->len;
	memcpy(w + n, a->r, a->len);
	n += a->len;
	memcpy(w + n, &lport, 2);
	memcpy(w + n + 2, &rport, 2);
	memcpy(w + n + 4, &extra, 4);
	memcpy(w + n + 8, &extra2, 4);
	return (u32)ixm_siphash(key, w, n + 12);
}

/**
 * ixm_tcp_isn() - initial send sequence number of a new connection
 * @t: the core's table (its secret)
 * @a: the local and remote addresses
 * @lport: local port
 * @rport: remote port
 * @now_ns: the core's clock
 *
 * Return: the ISN (RFC 6528 §3).
 */
u32 ixm_tcp_isn(struct ixm_tcp_table *t, const struct ixm_tcp_addrs *a,
		__be16 lport, __be16 rport, u64 now_ns)
{
	return ixm_tcp_tuple_hash(&t->secret[0], a, lport, rport, 0, 0) +
	       (u32)(now_ns >> 12);
}

/**
 * ixm_tcp_cookie_make() - the ISN of a stateless SYN-ACK
 * @t: the core's table
 * @a: the local and remote addresses
 * @lport: local port
 * @rport: remote port
 * @peer_isn: the SYN's sequence number
 * @mss: the peer's MSS (rounded down to a value the cookie can carry)
 * @now_ns: the core's clock
 *
 * Return: the cookie.
 */
u32 ixm_tcp_cookie_make(struct ixm_tcp_table *t, const struct ixm_tcp_addrs *a,
			__be16 lport, __be16 rport, u32 peer_isn, u16 mss,
			u64 now_ns)
{
	u32 period = (u32)(now_ns >> IXM_COOKIE_PERIOD_SHIFT) & 31;
	u32 idx = 0, i, h;

	for (i = 0; i < ARRAY_SIZE(ixm_tcp_cookie_mss); i++)
		if (ixm_tcp_cookie_mss[i] <= mss)
			idx = i;
	h = ixm_tcp_tuple_hash(&t->secret[2], a, lport, rport,
			       peer_isn, period << 3 | idx);
	return period << 27 | idx << 24 | (h & 0xffffff);
}

/**
 * ixm_tcp_cookie_check() - validate the cookie an ACK returns
 * @t: the core's table
 * @a: the local and remote addresses
 * @lport: local port
 * @rport: remote port
 * @peer_isn: the ACK's sequence number minus 1 (the SYN's ISN)
 * @cookie: the ACK's acknowledgment number minus 1
 * @now_ns: the core's clock
 *
 * Return: the MSS the cookie carries, or 0 if it is not one of ours from
 * this period or the previous one.
 */
u16 ixm_tcp_cookie_check(struct ixm_tcp_table *t, const struct ixm_tcp_addrs *a,
			 __be16 lport, __be16 rport, u32 peer_isn, u32 cookie,
			 u64 now_ns)
{
	u32 now = (u32)(now_ns >> IXM_COOKIE_PERIOD_SHIFT) & 31;
	u32 period = cookie >> 27, idx = (cookie >> 24) & 7;
	u32 h;

	if (period != now && period != ((now - 1) & 31))
		return 0;
	h = ixm_tcp_tuple_hash(&t->secret[2], a, lport, rport,
			       peer_isn, period << 3 | idx);
	if ((h & 0xffffff) != (cookie & 0xffffff))
		return 0;
	return ixm_tcp_cookie_mss[idx];
}
