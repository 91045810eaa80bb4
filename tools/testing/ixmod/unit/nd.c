// SPDX-License-Identifier: GPL-2.0
/*
 * nd.c - Neighbor Discovery (RFC 4861) and the neighbour table
 *
 * Advertisements ixmod sends are compared byte for byte with ones built
 * from RFC 4861 §4.4's layout; duplicate address detection probes (RFC
 * 4862 §5.4.3) are answered to all-nodes and teach nothing; invalid
 * messages (§7.1.1, §7.1.2) are each counted; resolution solicits the
 * solicited-node group once per second from any core, and advertisements
 * update entries by §7.2.5's rules without ever making one; a flood of
 * solicitations from spoofed sources keeps the table within
 * IXM_ND_MAX_ENTRIES, rate-limited, with a neighbour in use kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "harness.h"

#define SEC	1000000000ULL

static const u8 new_mac[6] = { 0x02, 0x00, 0x5e, 0x00, 0x00, 0x77 };
static const u8 zero6[16];

static void set_now(struct tport *t, u64 now)
{
	ixm_host_now_ns = now;
	t->port.now_ns = now;
}

static void tport6_init(struct tport *t)
{
	tport_init(t, OUR_IP);
	tport_ip6(t);
	set_now(t, 100 * SEC);
}

/* The single queued frame equals @want and is well formed; flushes. */
static bool tx_is(struct tport *t, const u8 *want, size_t len, const char *what)
{
	bool ok = t->port.ntx == 1 && t->port.tx[0]->len == len &&
		  !memcmp(t->port.tx[0]->data, want, len);

	if (!ok)
		ixm_diag("%s: %u frames queued, first %u bytes", what, t->port.ntx,
			 t->port.ntx ? t->port.tx[0]->len : 0);
	if (ok && check_tx(t->port.cfg, t->port.tx[0])) {
		ixm_diag("%s: %s", what, check_tx(t->port.cfg, t->port.tx[0]));
		ok = false;
	}
	tport_tx_flush(t);
	return ok;
}

static bool resolves_to(struct tport *t, const u8 *ip, const u8 *mac)
{
	struct ixm_in6_addr a;
	u8 got[6];

	memcpy(a.s6, ip, 16);
	return ixm_nd_resolve(&t->port, &a, got) == 0 && !memcmp(got, mac, 6);
}

static u64 drops_total(const struct tport *t)
{
	unsigned int r;
	u64 n = 0;

	for (r = 0; r < IXM_DROP_MAX; r++)
		n += t->stats.drops[r];
	return n;
}

TEST(nd_answer)
{
	u8 f[128], want[128], grp[16], gmac[6];
	struct tport t;
	size_t len;

	tport6_init(&t);
	sol_node6(grp, our_ip6);
	memcpy(gmac, (u8 []){ 0x33, 0x33 }, 2);
	memcpy(gmac + 2, grp + 12, 4);
	len = ns_frame(f, gmac, peer_mac, peer_ip6, grp, our_ip6, peer_mac, 255);
	tport_input(&t, f, len, 0);
	/* RFC 4861 §7.2.4: solicited, override, our MAC, to the source */
	na_frame(want, peer_mac, our_mac, our_ip6, peer_ip6, our_ip6, 0x60, our_mac, 255);
	EXPECT_TRUE(tx_is(&t, want, 86, "answer")) TH_LOG("NS to our group: exact NA back");
	EXPECT_EQ(1, t.stats.nd_solicits_in);
	EXPECT_EQ(1, t.stats.nd_adverts_out) TH_LOG("nd_solicits_in, nd_adverts_out");
	EXPECT_EQ(1, t.port.nd->count) TH_LOG("the source is learned (§7.2.3)");
	EXPECT_TRUE(resolves_to(&t, peer_ip6, peer_mac));
	EXPECT_EQ(1, t.port.ntx) TH_LOG("learned STALE: using it sends one unicast NS");
	EXPECT_EQ(0, memcmp(t.port.tx[0]->data, peer_mac, 6));
	EXPECT_TRUE(!check_tx(t.port.cfg, t.port.tx[0]));
	tport_tx_flush(&t);

	/* to the link-local address, unicast, no SLLA: back to the frame's MAC */
	len = ns_frame(f, our_mac, new_mac, peer_ip6, our_ll6, our_ll6, NULL, 255);
	tport_input(&t, f, len, 0);
	na_frame(want, new_mac, our_mac, our_ll6, peer_ip6, our_ll6, 0x60, our_mac, 255);
	EXPECT_TRUE(tx_is(&t, want, 86, "no SLLA")) TH_LOG("without SLLA: to the Ethernet source");

	/* DAD (RFC 4862 §5.4.3): from ::, to all-nodes, not solicited */
	len = ns_frame(f, gmac, new_mac, zero6, grp, our_ip6, NULL, 255);
	tport_input(&t, f, len, 0);
	na_frame(want, (u8 []){ 0x33, 0x33, 0, 0, 0, 1 }, our_mac, our_ip6, all_nodes6,
		 our_ip6, 0x20, our_mac, 255);
	EXPECT_TRUE(tx_is(&t, want, 86, "DAD")) TH_LOG("a DAD probe is told the address is ours");
	EXPECT_EQ(1, t.port.nd->count) TH_LOG("nothing learned from ::");
	EXPECT_EQ(0, drops_total(&t));
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree) TH_LOG("no drop, every buffer back");
	tport_fini(&t);
}

/* RFC 4861 §7.1.1, §7.1.2 and the targets that are not ours. */
TEST(nd_invalid)
{
	u8 f[128], grp[16];
	struct tport t;
	size_t len;

	tport6_init(&t);
	sol_node6(grp, our_ip6);
#define SEND(patch, reason, what) do {						\
	u64 before = t.stats.drops[reason];					\
	len = ns_frame(f, our_mac, peer_mac, peer_ip6, our_ip6, our_ip6, peer_mac, 255); \
	patch;									\
	tport_input(&t, f, len, 0);						\
	EXPECT_EQ(before + 1, t.stats.drops[reason]) TH_LOG("%s", what);	\
	EXPECT_EQ(0, t.port.ntx) TH_LOG("%s: nothing sent", what);		\
	tport_tx_flush(&t);							\
} while (0)
	SEND(f[21] = 64; fix_icmp6_csum(f + 14, f + 54, 32), IXM_DROP_ND_INVALID,
	     "hop limit 64: forwarded");
	SEND(f[55] = 1; fix_icmp6_csum(f + 14, f + 54, 32), IXM_DROP_ND_INVALID, "code 1");
	SEND(put16(f + 18, 20); len = 14 + 40 + 20; fix_icmp6_csum(f + 14, f + 54, 20),
	     IXM_DROP_ND_INVALID, "20 bytes");
	SEND(f[62] = 0xff; fix_icmp6_csum(f + 14, f + 54, 32), IXM_DROP_ND_INVALID,
	     "target a group");
	SEND(f[79] = 0; fix_icmp6_csum(f + 14, f + 54, 32), IXM_DROP_ND_INVALID,
	     "option of length 0");
	SEND(f[79] = 2; fix_icmp6_csum(f + 14, f + 54, 32), IXM_DROP_ND_INVALID,
	     "option past the message");
	SEND(f[80] = 0x01; fix_icmp6_csum(f + 14, f + 54, 32), IXM_DROP_ND_INVALID,
	     "SLLA a group MAC");
	SEND(memset(f + 22, 0, 16); fix_icmp6_csum(f + 14, f + 54, 32), IXM_DROP_ND_INVALID,
	     "from :: with an SLLA");
	SEND(memset(f + 22, 0, 16); put16(f + 18, 24); len = 14 + 40 + 24;
	     fix_icmp6_csum(f + 14, f + 54, 24), IXM_DROP_ND_INVALID,
	     "from :: to a unicast address");
	SEND(f[77] = 0x42; fix_icmp6_csum(f + 14, f + 54, 32), IXM_DROP_ND_NOT_US,
	     "target not ours");
	SEND(f[56] ^= 1, IXM_DROP_ICMP6_CSUM, "checksum");
	/* advertisements */
	len = na_frame(f, our_mac, peer_mac, peer_ip6, all_nodes6, peer_ip6, 0x60, peer_mac, 255);
	memcpy(f, (u8 []){ 0x33, 0x33, 0, 0, 0, 1 }, 6);
	tport_input(&t, f, len, 0);
	EXPECT_EQ(10, t.stats.drops[IXM_DROP_ND_INVALID]) TH_LOG("NA to a group with S set");
	len = na_frame(f, our_mac, peer_mac, peer_ip6, our_ip6, peer_ip6, 0x20, peer_mac, 255);
	tport_input(&t, f, len, 0);
	EXPECT_EQ(2, t.stats.drops[IXM_DROP_ND_NOT_US]) TH_LOG("NA nobody asked about");
	EXPECT_EQ(0, t.port.nd->count) TH_LOG("never an entry from an advertisement");
	len = na_frame(f, our_mac, peer_mac, peer_ip6, our_ip6, our_ip6, 0x20, peer_mac, 255);
	tport_input(&t, f, len, 0);
	EXPECT_EQ(3, t.stats.drops[IXM_DROP_ND_NOT_US]) TH_LOG("NA claiming our address");
	EXPECT_EQ(0, t.stats.nd_adverts_out);
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree);
	tport_fini(&t);
#undef SEND
}

TEST(nd_resolve)
{
	u8 f[128], want[128], grp[16], gmac[6];
	struct ixm_in6_addr a;
	struct tport t, core2;
	u8 mac[6];
	size_t len;

	tport6_init(&t);
	tport6_init(&core2);
	ixm_nd_table_free(core2.port.nd);
	core2.port.nd = t.port.nd;	/* a second core on the same port */
	memcpy(a.s6, peer_ip6, 16);

	EXPECT_EQ(-EAGAIN, ixm_nd_resolve(&t.port, &a, mac)) TH_LOG("unknown: -EAGAIN");
	sol_node6(grp, peer_ip6);
	memcpy(gmac, (u8 []){ 0x33, 0x33 }, 2);
	memcpy(gmac + 2, grp + 12, 4);
	ns_frame(want, gmac, our_mac, our_ip6, grp, peer_ip6, our_mac, 255);
	EXPECT_TRUE(tx_is(&t, want, 86, "NS")) TH_LOG("one exact NS to the solicited-node group");
	EXPECT_EQ(1, t.stats.nd_solicits_out);
	EXPECT_EQ(-EAGAIN, ixm_nd_resolve(&core2.port, &a, mac));
	EXPECT_EQ(0, core2.port.ntx) TH_LOG("within a second no core solicits again");
	set_now(&core2, 101 * SEC);
	EXPECT_EQ(-EAGAIN, ixm_nd_resolve(&core2.port, &a, mac));
	EXPECT_TRUE(tx_is(&core2, want, 86, "retry")) TH_LOG("a second later: one more");

	/* an advertisement without TLLA for an INCOMPLETE entry: §7.2.5 */
	len = na_frame(f, our_mac, peer_mac, peer_ip6, our_ip6, peer_ip6, 0x60, NULL, 255);
	tport_input(&t, f, len, 0);
	EXPECT_EQ(1, t.stats.drops[IXM_DROP_ND_INVALID]) TH_LOG("INCOMPLETE + no TLLA: discarded");
	/* the answer: solicited, REACHABLE, used without a probe */
	len = na_frame(f, our_mac, peer_mac, peer_ip6, our_ip6, peer_ip6, 0x40, peer_mac, 255);
	tport_input(&t, f, len, 0);
	EXPECT_TRUE(resolves_to(&t, peer_ip6, peer_mac));
	EXPECT_TRUE(resolves_to(&core2, peer_ip6, peer_mac));
	EXPECT_EQ(0, t.port.ntx + core2.port.ntx) TH_LOG("REACHABLE: both cores, no probe");

	/* O clear, another MAC: the MAC stays, the entry goes STALE */
	set_now(&t, 103 * SEC);		/* past the retry interval */
	len = na_frame(f, our_mac, new_mac, peer_ip6, our_ip6, peer_ip6, 0x00, new_mac, 255);
	tport_input(&t, f, len, 0);
	EXPECT_TRUE(resolves_to(&t, peer_ip6, peer_mac)) TH_LOG("no Override: MAC kept");
	EXPECT_EQ(1, t.port.ntx) TH_LOG("and STALE: a unicast probe");
	tport_tx_flush(&t);
	/* O set: replaced */
	len = na_frame(f, our_mac, new_mac, peer_ip6, our_ip6, peer_ip6, 0x20, new_mac, 255);
	tport_input(&t, f, len, 0);
	EXPECT_TRUE(resolves_to(&t, peer_ip6, new_mac)) TH_LOG("Override: the new MAC");
	EXPECT_EQ(1, t.port.nd->count);

	/* a group is mapped, not resolved (RFC 2464 §7) */
	EXPECT_EQ(0, ixm_nd_resolve(&t.port, &ixm_ip6_all_nodes, mac));
	EXPECT_EQ(0, memcmp(mac, (u8 []){ 0x33, 0x33, 0, 0, 0, 1 }, 6));
	/* gc frees what nobody confirmed for IXM_ND_EXPIRE_NS */
	EXPECT_EQ(1, ixm_nd_table_gc(t.port.nd, t.port.now_ns + IXM_ND_EXPIRE_NS + 1));
	EXPECT_EQ(0, t.port.nd->count);
	tport_tx_flush(&t);
	tport_tx_flush(&core2);
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree);
	tport_fini(&t);
	core2.port.nd = NULL;
	tport_fini(&core2);
}

/* Solicitations from spoofed sources, each valid: the table holds. */
TEST(nd_flood)
{
	u8 f[128], src[16], smac[6], grp[16], gmac[6];
	unsigned int i, step;
	struct ixm_in6_addr keep;
	struct tport t;
	u64 answered;
	size_t len;
	u8 mac[6];

	tport6_init(&t);
	sol_node6(grp, our_ip6);
	memcpy(gmac, (u8 []){ 0x33, 0x33 }, 2);
	memcpy(gmac + 2, grp + 12, 4);
	/* a neighbour in use, confirmed, before the flood */
	memcpy(keep.s6, peer_ip6, 16);
	ixm_nd_resolve(&t.port, &keep, mac);
	tport_tx_flush(&t);
	len = na_frame(f, our_mac, peer_mac, peer_ip6, our_ip6, peer_ip6, 0x60, peer_mac, 255);
	tport_input(&t, f, len, 0);

	memcpy(src, peer_ip6, 16);
	memcpy(smac, (u8 []){ 0x02, 0xa6, 0, 0, 0, 0 }, 6);
	for (step = 0; step < 40; step++) {
		for (i = 0; i < 300; i++) {
			put32(src + 12, 0x10000 + step * 300 + i);
			put32(smac + 2, step * 300 + i + 1);
			len = ns_frame(f, gmac, smac, src, grp, our_ip6, smac, 255);
			tport_input(&t, f, len, 0);
			tport_tx_flush(&t);
		}
		if (t.port.nd->count > IXM_ND_MAX_ENTRIES)
			break;
		/* the neighbour in use keeps being used and confirmed */
		ixm_nd_resolve(&t.port, &keep, mac);
		tport_tx_flush(&t);
		len = na_frame(f, our_mac, peer_mac, peer_ip6, our_ip6, peer_ip6, 0x60,
			       peer_mac, 255);
		tport_input(&t, f, len, 0);
		set_now(&t, t.port.now_ns + SEC);
	}
	answered = t.stats.nd_adverts_out;
	EXPECT_GE(IXM_ND_MAX_ENTRIES, t.port.nd->count) TH_LOG("never more than the bound");
	EXPECT_EQ(IXM_ND_MAX_ENTRIES, t.port.nd->count) TH_LOG("filled over 40 s");
	EXPECT_LT(0, t.port.nd->ratelimited) TH_LOG("300 a second is over the limit");
	EXPECT_LT(0, t.port.nd->evicted) TH_LOG("idle spoofed entries make room");
	EXPECT_GE(32 + 40 * 256 + 1, t.port.nd->learned) TH_LOG("at most 32 + 256/s learned");
	EXPECT_EQ(40 * 300, answered) TH_LOG("every solicitation answered all the same");
	EXPECT_TRUE(resolves_to(&t, peer_ip6, peer_mac)) TH_LOG("the neighbour in use kept");
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree) TH_LOG("every buffer back");
	tport_fini(&t);
}

TEST(nd_announce)
{
	u8 want[128];
	struct tport t;

	tport_init(&t, OUR_IP);
	EXPECT_EQ(-EADDRNOTAVAIL, ixm_nd_announce(&t.port)) TH_LOG("nothing without IPv6");
	tport_ip6(&t);
	EXPECT_EQ(0, ixm_nd_announce(&t.port));
	ASSERT_EQ(2, t.port.ntx);
	na_frame(want, (u8 []){ 0x33, 0x33, 0, 0, 0, 1 }, our_mac, our_ll6, all_nodes6,
		 our_ll6, 0x20, our_mac, 255);
	EXPECT_EQ(0, memcmp(t.port.tx[0]->data, want, 86)) TH_LOG("link-local first");
	na_frame(want, (u8 []){ 0x33, 0x33, 0, 0, 0, 1 }, our_mac, our_ip6, all_nodes6,
		 our_ip6, 0x20, our_mac, 255);
	EXPECT_EQ(0, memcmp(t.port.tx[1]->data, want, 86)) TH_LOG("then global, both O only");
	EXPECT_TRUE(!check_tx(t.port.cfg, t.port.tx[1]));
	EXPECT_EQ(2, t.stats.nd_adverts_out);
	tport_fini(&t);
}

TEST_HARNESS_MAIN
