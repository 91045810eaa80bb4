// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_state_opts.c - hostile options
 *
 * MSS options from 0 to 65535 (issue 15): no segment exceeds what the
 * peer's MSS, the MTU and the options allow.
 *
 * The host, the peer the test plays and the helpers: tcp_state.h.
 */
#include "tcp_state.h"

/* MSS values a SYN or SYN-ACK names: 0, the wrap-prone 1..12, the floor, big ones */
static const u16 mss_cases[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 63, 64, 75, 76, 77,
	536, 1000, 1460, 1461, 9000, 65535,
};

/*
 * The most data a segment may carry for a peer's MSS option: RFC 9293
 * §3.7.1 (0 means 536), RFC 6691 §2 (the timestamps come out of it),
 * then IXM_TCP_MSS_MIN data bytes at least and a 1500-byte MTU at most.
 */
static u32 mss_budget(u16 mss, bool ts)
{
	u32 opt = ts ? 12 : 0;
	u32 m = mss ? mss : 536;

	if (m < IXM_TCP_MSS_MIN + opt)
		m = IXM_TCP_MSS_MIN + opt;
	if (m > 1460)
		m = 1460;
	return m - opt;
}

/*
 * Check the segments of the last run against @budget and the MTU, and
 * copy their data to @rx (the stream from sequence number @base on).
 * Return: false on any bad frame.
 */
static bool mss_absorb(struct tc *t, u32 budget, u32 base, u8 *rx, u32 *got)
{
	unsigned int i;
	bool ok = !t->bad;

	for (i = 0; i < t->nseg; i++) {
		const struct tcp_seg *s = &t->seg[i];
		u32 tot = get16(t->frame[i] + 16), off = s->seq - base;

		if (tot > 1500 || s->dlen > budget || tot != 20 + 20 + s->dlen +
		    (s->has_ts ? 12 : 0)) {
			ixm_diag("segment of %zu data bytes, IP length %u: budget %u, MTU 1500",
				 s->dlen, tot, budget);
			ok = false;
		}
		if (s->dlen && off <= *got && off + s->dlen > *got && off + s->dlen <= 65536) {
			memcpy(rx + off, s->data, s->dlen);
			*got = off + (u32)s->dlen;
		}
	}
	return ok;
}

/*
 * 64 KiB from the arena to a peer that advertises 8 MiB (65535 << 7) and
 * acknowledges what it got after every run, the runs its ACKs let go
 * included.  Return: true if every
 * segment kept to @budget and the MTU and the bytes arrived whole.
 */
static bool mss_stream(struct tc *t, u32 budget)
{
	static u8 rx[65536];
	u32 base = t->rcv, sent = 0, got = 0, most = 0;
	unsigned int rounds;
	bool ok = true;
	unsigned int i;

	memset(rx, 0, sizeof(rx));
	for (rounds = 0; rounds < 4000 && got < sizeof(rx); rounds++) {
		if (sent < sizeof(rx)) {
			int n = tc_sendv(t, sent, (u32)sizeof(rx) - sent);

			if (n > 0)
				sent += (u32)n;
		} else {
			tc_advance(t, MS);
		}
		ok &= mss_absorb(t, budget, base, rx, &got);
		/* each run acknowledged, and what that ACK let go too */
		while (t->nseg && rounds++ < 4000) {
			for (i = 0; i < t->nseg; i++)
				most = t->seg[i].dlen > most ? (u32)t->seg[i].dlen : most;
			t->rcv = base + got;
			tc_send(t, TH_ACK, NULL, 0);
			ok &= mss_absorb(t, budget, base, rx, &got);
		}
	}
	if (got != sizeof(rx) || memcmp(rx, t->a->arena, sizeof(rx))) {
		ixm_diag("%u of 65536 bytes arrived in %u rounds%s", got, rounds,
			 got == sizeof(rx) ? ", not the ones sent" : "");
		ok = false;
	}
	if (most != budget && got == sizeof(rx)) {
		ixm_diag("the largest segment carried %u bytes, want the budget %u", most, budget);
		ok = false;
	}
	return ok;
}

/*
 * Issue 15 item 0: ixm_tcp_set_mss() took the timestamps' 12 bytes from
 * a peer's MSS of 1..11 in unsigned arithmetic: an MSS of about 2^32,
 * segments as long as the data, copied past their 2 KiB buffer.  For
 * every MSS, on the SYN (passive) and the SYN-ACK (active), with and
 * without timestamps, in place and copied: 64 KiB go out in segments no
 * longer than the budget, inside the MTU, with a right IP length.
 */
TEST(tcp_state_mss_option)
{
	unsigned int side, ts, i, copy;
	struct tc *t = &T;

	for (side = 0; side < 2; side++) {
		for (ts = 0; ts < 2; ts++) {
			for (i = 0; i < ARRAY_SIZE(mss_cases); i++) {
				u32 budget = mss_budget(mss_cases[i], ts);
				bool ok = true;

				for (copy = 0; copy < 2; copy++) {
					bool up;

					tc_init(t);
					t->pmss = mss_cases[i];
					tn_app_copy_only(t->a, copy);
					up = side ? tc_active(t, O_MSS | O_WS | (ts ? O_TS : 0)) :
						    tc_passive(t, O_MSS | O_WS | (ts ? O_TS : 0));
					if (!up || t->ts != !!ts || conn(t)->mss != budget) {
						TH_LOG("handshake: %d, timestamps %d, mss %u",
						       up, t->ts, conn(t) ? conn(t)->mss : 0);
						ok = false;
					} else {
						ok &= mss_stream(t, budget);
					}
					ok &= !stats(t)->tx_oversize && !ixm_host_warnings;
					tc_fini(t);
				}
				EXPECT_TRUE(ok) {
					TH_LOG("MSS %u on the %s%s: 64 KiB in segments of <= %u bytes, in place and copied",
					       mss_cases[i], side ? "SYN-ACK" : "SYN",
					       ts ? " with timestamps" : "", budget);
				}
			}
		}
	}
}

/*
 * ixm_tcp_xmit() refuses a segment over the MTU whatever the MSS says:
 * counted in tx_oversize, one warning, nothing on the wire, and the
 * connection is not left spinning on the pending list.
 */
TEST_F(tcp_state_established, mss_oversize)
{
	unsigned int warned = ixm_host_warnings;
	struct tc *t = self->t;
	u64 segs;

	conn(t)->mss = 4000;		/* what the wrap gave: never, now */
	segs = stats(t)->segs_out;
	EXPECT_EQ(3000, tc_sendv(t, 0, 3000));
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(1, stats(t)->tx_oversize);
	EXPECT_EQ(segs, stats(t)->segs_out);
	EXPECT_EQ(warned + 1, ixm_host_warnings);
	EXPECT_FALSE(conn(t)->flags & IXM_TCPF_PENDING) {
		TH_LOG("oversize: a 3000-byte segment is refused: tcp_tx_oversize 1, one warning, no frame");
	}
	ixm_host_warnings = warned;
}

TEST_HARNESS_MAIN
