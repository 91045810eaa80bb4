// SPDX-License-Identifier: GPL-2.0
/*
 * arp.c - ARP (RFC 826), announcements (RFC 5227 §3) and the table
 *
 * Replies and requests are compared byte for byte with frames built from
 * RFC 826's layout.  Learning follows the merge rule; entries go stale
 * after IXM_ARP_STALE_NS of ixm_host_now_ns and are freed by gc after
 * twice that; a full table (IXM_ARP_MAX_ENTRIES) evicts the least
 * recently confirmed entry not in use, refuses senders from the wire when
 * all are and evicts even so for resolution; the wire creates entries
 * at a limited rate, refreshes and resolution at any; the table
 * survives allocation failures (ixm_host_fail_alloc); resolution sends
 * one request per address per second, from any core.  Senders off the
 * port's subnet are neither learned nor answered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "harness.h"

#define SEC	1000000000ULL

static const u8 zero_mac[6];
static const u8 new_mac[6] = { 0x02, 0x00, 0x5e, 0x00, 0x00, 0x77 };

/* An ARP frame padded with zeros to 60 bytes, as it arrives. */
static size_t arp_frame(u8 *f, const u8 *dst, unsigned int op, const u8 *sha,
			u32 spa, const u8 *tha, u32 tpa)
{
	memset(f, 0, 60);
	put_arp(put_eth(f, dst, sha, 0x0806), op, sha, spa, tha, tpa);
	return 60;
}

static void set_now(struct tport *t, u64 now)
{
	ixm_host_now_ns = now;
	t->port.now_ns = now;
}

/* The single queued frame equals @want; flushes the queue. */
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

static bool resolves_to(struct tport *t, u32 ip, const u8 *mac)
{
	u8 got[6];

	return ixm_arp_resolve(&t->port, be32_of(ip), got) == 0 && !memcmp(got, mac, 6);
}

TEST(arp_reply)
{
	u8 f[64], want[64];
	struct tport t;
	size_t len;

	tport_init(&t, OUR_IP);
	set_now(&t, 5 * SEC);
	len = arp_frame(f, bcast_mac, 1, peer_mac, PEER_IP, zero_mac, OUR_IP);
	tport_input(&t, f, len, 0);
	arp_frame(want, peer_mac, 2, our_mac, OUR_IP, peer_mac, PEER_IP);
	memcpy(want + 6, our_mac, 6);
	EXPECT_TRUE(tx_is(&t, want, 60, "reply")) {
		TH_LOG("broadcast request: exact reply to the requester");
	}
	EXPECT_EQ(1, t.stats.arp_requests_in);
	EXPECT_EQ(1, t.stats.arp_replies_out) TH_LOG("arp_requests_in and arp_replies_out counted");
	EXPECT_TRUE(resolves_to(&t, PEER_IP, peer_mac));
	EXPECT_FALSE(t.port.ntx) TH_LOG("the requester was learned (RFC 826: target is us)");

	len = arp_frame(f, our_mac, 1, peer_mac, PEER_IP, zero_mac, OUR_IP);
	tport_input(&t, f, len, 0);
	EXPECT_TRUE(tx_is(&t, want, 60, "unicast")) TH_LOG("unicast request: the same reply");

	/* RFC 5227 §2.1.1 probe: answered, sender 0.0.0.0 not learned */
	len = arp_frame(f, bcast_mac, 1, new_mac, 0, zero_mac, OUR_IP);
	tport_input(&t, f, len, 0);
	arp_frame(want, new_mac, 2, our_mac, OUR_IP, new_mac, 0);
	memcpy(want + 6, our_mac, 6);
	EXPECT_TRUE(tx_is(&t, want, 60, "probe")) TH_LOG("probe from 0.0.0.0: answered to its MAC");
	EXPECT_EQ(1, t.port.arp->count) TH_LOG("probe: nothing learned");

	/* a reply for us: learned, consumed, nothing sent, no drop */
	len = arp_frame(f, our_mac, 2, new_mac, PEER2_IP, our_mac, OUR_IP);
	tport_input(&t, f, len, 0);
	EXPECT_FALSE(t.port.ntx);
	EXPECT_TRUE(resolves_to(&t, PEER2_IP, new_mac)) {
		TH_LOG("reply for us: sender learned, nothing sent");
	}
	{
		unsigned int r;
		u64 drops = 0;

		for (r = 0; r < IXM_DROP_MAX; r++)
			drops += t.stats.drops[r];
		EXPECT_FALSE(drops);
		EXPECT_EQ(TPORT_BUFS, t.pool.nfree) {
			TH_LOG("no drop counted for any of these, every buffer back");
		}
	}
	tport_fini(&t);
}

/* RFC 826's merge rule: update who we know, add only who talks to us. */
TEST(arp_merge)
{
	u8 f[64];
	struct tport t;

	tport_init(&t, OUR_IP);
	set_now(&t, SEC);
	arp_frame(f, bcast_mac, 1, peer_mac, PEER_IP, zero_mac, 0xc0000263u);
	tport_input(&t, f, 60, 0);
	EXPECT_EQ(0, t.port.arp->count);
	EXPECT_EQ(1, t.stats.drops[IXM_DROP_ARP_NOT_US]) {
		TH_LOG("request for another host from a stranger: not learned, arp_not_us");
	}

	arp_frame(f, bcast_mac, 1, peer_mac, PEER_IP, zero_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	tport_tx_flush(&t);
	set_now(&t, 2 * SEC);
	/* same host, new MAC, asking someone else: merge updates it */
	arp_frame(f, bcast_mac, 1, new_mac, PEER_IP, zero_mac, 0xc0000263u);
	tport_input(&t, f, 60, 0);
	ASSERT_TRUE(resolves_to(&t, PEER_IP, new_mac));
	EXPECT_EQ(1, t.port.arp->count) {
		TH_LOG("merge: a known sender's new MAC replaces the old one");
	}
	/* gratuitous ARP (RFC 5227 §3) from a known host updates it too */
	arp_frame(f, bcast_mac, 1, peer_mac, PEER_IP, zero_mac, PEER_IP);
	tport_input(&t, f, 60, 0);
	EXPECT_TRUE(resolves_to(&t, PEER_IP, peer_mac)) {
		TH_LOG("merge: a gratuitous ARP updates a known host");
	}
	tport_fini(&t);
}

/* Build the request ixm_arp_resolve() must send for @tpa. */
static void expected_request(u8 *want, u32 tpa)
{
	arp_frame(want, bcast_mac, 1, our_mac, OUR_IP, zero_mac, tpa);
	memcpy(want + 6, our_mac, 6);
}

TEST(arp_resolve)
{
	struct tport t, core2;
	u8 f[64], want[64], mac[6];
	int err;

	tport_init(&t, OUR_IP);
	tport_init(&core2, OUR_IP);
	ixm_arp_table_free(core2.port.arp);
	core2.port.arp = t.port.arp;	/* a second core on the same port */

	set_now(&t, 10 * SEC);
	set_now(&core2, 10 * SEC);
	err = ixm_arp_resolve(&t.port, be32_of(PEER2_IP), mac);
	EXPECT_EQ(EAGAIN, (unsigned int)-err) TH_LOG("unknown address: -EAGAIN");
	expected_request(want, PEER2_IP);
	EXPECT_TRUE(tx_is(&t, want, 60, "request")) {
		TH_LOG("one exact broadcast request on the wire");
	}
	EXPECT_EQ(1, t.stats.arp_requests_out) TH_LOG("arp_requests_out counted");

	err = ixm_arp_resolve(&t.port, be32_of(PEER2_IP), mac);
	set_now(&core2, 10 * SEC + SEC / 2);
	err |= ixm_arp_resolve(&core2.port, be32_of(PEER2_IP), mac);
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_FALSE(t.port.ntx);
	EXPECT_FALSE(core2.port.ntx) TH_LOG("within a second no core sends another request");

	set_now(&core2, 11 * SEC);
	err = ixm_arp_resolve(&core2.port, be32_of(PEER2_IP), mac);
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_TRUE(tx_is(&core2, want, 60, "retry")) {
		TH_LOG("a second later: exactly one more request");
	}

	arp_frame(f, our_mac, 2, new_mac, PEER2_IP, our_mac, OUR_IP);
	set_now(&t, 11 * SEC + 1);
	tport_input(&t, f, 60, 0);
	ASSERT_TRUE(resolves_to(&t, PEER2_IP, new_mac));
	EXPECT_TRUE(resolves_to(&core2, PEER2_IP, new_mac)) {
		TH_LOG("after the reply both cores resolve it");
	}
	EXPECT_FALSE(t.port.ntx);
	EXPECT_FALSE(core2.port.ntx) TH_LOG("and send nothing");

	/* no buffer for the request */
	t.pool.nfree = 0;
	err = ixm_arp_resolve(&t.port, be32_of(0xc0000209u), mac);
	t.pool.nfree = TPORT_BUFS;
	EXPECT_EQ(-ENOBUFS, err);
	EXPECT_EQ(1, t.stats.drops[IXM_DROP_NO_BUF]) TH_LOG("empty pool: -ENOBUFS, no_buf counted");
	tport_fini(&t);
	core2.port.arp = NULL;
	tport_fini(&core2);
}

TEST(arp_ageing)
{
	u8 f[64], want[64];
	struct tport t;
	u8 mac[6];
	int err;

	tport_init(&t, OUR_IP);
	set_now(&t, 100 * SEC);
	arp_frame(f, bcast_mac, 1, peer_mac, PEER_IP, zero_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	tport_tx_flush(&t);

	set_now(&t, 100 * SEC + IXM_ARP_STALE_NS - 1);
	EXPECT_TRUE(resolves_to(&t, PEER_IP, peer_mac));
	EXPECT_FALSE(t.port.ntx) TH_LOG("just before IXM_ARP_STALE_NS: still used");
	set_now(&t, 100 * SEC + IXM_ARP_STALE_NS);
	memset(mac, 0, sizeof(mac));
	err = ixm_arp_resolve(&t.port, be32_of(PEER_IP), mac);
	expected_request(want, PEER_IP);
	EXPECT_FALSE(err);
	EXPECT_EQ(0, memcmp(mac, peer_mac, 6));
	EXPECT_TRUE(tx_is(&t, want, 60, "stale")) {
		TH_LOG("at IXM_ARP_STALE_NS: still used, and a request revalidates it");
	}
	EXPECT_TRUE(resolves_to(&t, PEER_IP, peer_mac));
	EXPECT_FALSE(t.port.ntx) {
		TH_LOG("asked again at once: still used, no second request (IXM_ARP_RETRY_NS)");
	}

	/* a confirmation makes it fresh again */
	tport_input(&t, f, 60, 0);
	tport_tx_flush(&t);
	EXPECT_TRUE(resolves_to(&t, PEER_IP, peer_mac)) TH_LOG("confirmed again: used again");

	/* gc: nothing younger than 2 * stale goes; older goes */
	EXPECT_EQ(0, ixm_arp_table_gc(t.port.arp, t.port.now_ns + IXM_ARP_EXPIRE_NS)) {
		TH_LOG("gc at exactly IXM_ARP_EXPIRE_NS frees nothing");
	}
	EXPECT_EQ(1, ixm_arp_table_gc(t.port.arp, t.port.now_ns + IXM_ARP_EXPIRE_NS + 1)) {
		TH_LOG("gc past it frees the entry");
	}
	EXPECT_EQ(0, t.port.arp->count) TH_LOG("the table is empty");
	set_now(&t, t.port.now_ns + IXM_ARP_EXPIRE_NS + 2);
	err = ixm_arp_resolve(&t.port, be32_of(PEER_IP), mac);
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_TRUE(tx_is(&t, want, 60, "after gc")) TH_LOG("after gc: resolution asks again");
	tport_fini(&t);
}

/* @t's address with a /16, room for more on-link senders than the table holds */
static void set_prefix16(struct tport *t)
{
	t->cfg.prefix = 16;
	t->cfg.netmask = be32_of(0xffff0000u);
}

/* The i-th of many on-link senders of a /16 port: 192.0.16.0 and up. */
#define SPOOF_IP(i)	(0xc0001000u + (i))

/* Whether @ip has an entry, complete or not (a walk of its bucket). */
static bool has_entry(struct tport *t, u32 ip)
{
	const struct ixm_arp_entry *e;
	unsigned int b;

	for (b = 0; b < IXM_ARP_BUCKETS; b++)
		for (e = t->port.arp->buckets[b]; e; e = e->next)
			if (e->ip == be32_of(ip))
				return true;
	return false;
}

/* The buckets and the LRU list hold the same count entries, linked both ways. */
static bool table_consistent(struct tport *t)
{
	const struct ixm_arp_table *a = t->port.arp;
	const struct ixm_arp_entry *e, *prev = NULL;
	unsigned int b, inb = 0, inl = 0;

	for (b = 0; b < IXM_ARP_BUCKETS; b++)
		for (e = a->buckets[b]; e; e = e->next)
			inb++;
	for (e = a->lru_head; e; prev = e, e = e->lru_next) {
		if (e->lru_prev != prev || !has_entry(t, ixm_ntohl(e->ip)))
			return false;
		inl++;
	}
	if (inb != a->count || inl != a->count || a->lru_tail != prev) {
		ixm_diag("count %u, %u in the buckets, %u on the LRU list", a->count, inb, inl);
		return false;
	}
	return true;
}

/* A request for us from @ip at @mac, its reply flushed. */
static void request_from(struct tport *t, u32 ip, const u8 *mac)
{
	u8 f[64];

	arp_frame(f, bcast_mac, 1, mac, ip, zero_mac, OUR_IP);
	tport_input(t, f, 60, 0);
	tport_tx_flush(t);
}

/*
 * @n spoofed on-link senders from SPOOF_IP(@first) ask for us, one per
 * IXM_ARP_LEARN_NS (the most the rate limit lets the wire make).
 */
static void flood(struct tport *t, unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = first; i < first + n; i++) {
		request_from(t, SPOOF_IP(i), peer_mac);
		set_now(t, t->port.now_ns + IXM_ARP_LEARN_NS);
	}
}

/*
 * A table filled by spoofed senders (on our subnet, so learnable) makes
 * room for a real peer, whether it asks for us or we ask for it, and a
 * peer in use survives a flood that replaces everything else.
 */
TEST(arp_full_evicts)
{
	struct ixm_arp_table *a;
	u8 f[64], want[64], mac[6];
	struct tport t;
	int err;

	tport_init(&t, OUR_IP);
	set_prefix16(&t);
	a = t.port.arp;
	set_now(&t, SEC);
	flood(&t, 0, IXM_ARP_MAX_ENTRIES);
	EXPECT_EQ(IXM_ARP_MAX_ENTRIES, a->count);
	EXPECT_EQ(IXM_ARP_MAX_ENTRIES, a->learned);
	EXPECT_FALSE(a->evicted);
	EXPECT_TRUE(table_consistent(&t)) TH_LOG("1024 spoofed senders fill the table");

	arp_frame(f, bcast_mac, 1, new_mac, PEER_IP, zero_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	arp_frame(want, new_mac, 2, our_mac, OUR_IP, new_mac, PEER_IP);
	memcpy(want + 6, our_mac, 6);
	ASSERT_TRUE(tx_is(&t, want, 60, "evict"));
	EXPECT_TRUE(resolves_to(&t, PEER_IP, new_mac)) {
		TH_LOG("full table: a new peer asking for us is answered and learned");
	}
	EXPECT_EQ(1, a->evicted);
	EXPECT_FALSE(a->refused);
	EXPECT_EQ(IXM_ARP_MAX_ENTRIES, a->count);
	EXPECT_FALSE(has_entry(&t, SPOOF_IP(0)));
	ASSERT_TRUE(has_entry(&t, SPOOF_IP(1)));
	EXPECT_TRUE(table_consistent(&t)) TH_LOG("by evicting the least recently confirmed spoof");

	err = ixm_arp_resolve(&t.port, be32_of(PEER2_IP), mac);
	expected_request(want, PEER2_IP);
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_TRUE(tx_is(&t, want, 60, "resolve")) {
		TH_LOG("full table: resolving a new address sends its request (not -ENOSPC)");
	}
	EXPECT_EQ(2, a->evicted);
	EXPECT_FALSE(has_entry(&t, SPOOF_IP(1)));
	EXPECT_TRUE(table_consistent(&t)) TH_LOG("and evicts the next spoof");
	arp_frame(f, our_mac, 2, peer_mac, PEER2_IP, our_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	EXPECT_FALSE(t.port.ntx);
	ASSERT_TRUE(resolves_to(&t, PEER2_IP, peer_mac));
	EXPECT_EQ(2, a->evicted) TH_LOG("its reply completes the entry without another eviction");

	/* both peers are confirmed and used: 1,024 more spoofs go around them */
	set_now(&t, t.port.now_ns + SEC);
	flood(&t, IXM_ARP_MAX_ENTRIES, IXM_ARP_MAX_ENTRIES);
	EXPECT_EQ(2 + IXM_ARP_MAX_ENTRIES, a->evicted);
	EXPECT_EQ(IXM_ARP_MAX_ENTRIES, a->count);
	EXPECT_FALSE(a->refused);
	EXPECT_TRUE(table_consistent(&t)) TH_LOG("1,024 more spoofs each evict an idle entry");
	ASSERT_TRUE(resolves_to(&t, PEER_IP, new_mac));
	EXPECT_TRUE(resolves_to(&t, PEER2_IP, peer_mac));
	EXPECT_FALSE(t.port.ntx) TH_LOG("the two peers in use survive it, no request needed");

	/* unconfirmed for IXM_ARP_STALE_NS, they are fair game */
	set_now(&t, t.port.now_ns + IXM_ARP_STALE_NS);
	flood(&t, 2 * IXM_ARP_MAX_ENTRIES, 2);
	EXPECT_FALSE(has_entry(&t, PEER_IP));
	EXPECT_FALSE(has_entry(&t, PEER2_IP));
	EXPECT_TRUE(table_consistent(&t)) {
		TH_LOG("once stale, they are the least recently confirmed and go first");
	}
	tport_fini(&t);
}

/*
 * Entries in use (confirmed and sent to lately, or waiting for an answer)
 * are not evicted for senders from the wire; a core's own resolution
 * evicts the least recently confirmed even so, and known neighbours
 * still refresh.
 */
TEST(arp_full_in_use)
{
	struct ixm_arp_table *a;
	u8 f[64], want[64], mac[6];
	struct tport t;
	unsigned int i;
	bool ok = true;
	int err;

	tport_init(&t, OUR_IP);
	set_prefix16(&t);
	a = t.port.arp;
	set_now(&t, SEC);
	flood(&t, 0, IXM_ARP_MAX_ENTRIES);
	for (i = 0; i < IXM_ARP_MAX_ENTRIES; i++)
		ok &= resolves_to(&t, SPOOF_IP(i), peer_mac);
	EXPECT_TRUE(ok);
	EXPECT_FALSE(t.port.ntx) TH_LOG("1024 entries, each sent to");

	arp_frame(f, bcast_mac, 1, new_mac, PEER_IP, zero_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	arp_frame(want, new_mac, 2, our_mac, OUR_IP, new_mac, PEER_IP);
	memcpy(want + 6, our_mac, 6);
	ASSERT_TRUE(tx_is(&t, want, 60, "refused"));
	EXPECT_FALSE(has_entry(&t, PEER_IP));
	EXPECT_EQ(1, a->refused);
	EXPECT_FALSE(a->evicted);
	EXPECT_EQ(IXM_ARP_MAX_ENTRIES, a->count) {
		TH_LOG("all in use: a new sender is answered but not learned (refused)");
	}

	err = ixm_arp_resolve(&t.port, be32_of(PEER2_IP), mac);
	expected_request(want, PEER2_IP);
	EXPECT_EQ(-EAGAIN, err);
	ASSERT_TRUE(tx_is(&t, want, 60, "in use"));
	EXPECT_EQ(1, a->evicted);
	EXPECT_FALSE(has_entry(&t, SPOOF_IP(0)));
	ASSERT_TRUE(has_entry(&t, PEER2_IP));
	EXPECT_TRUE(table_consistent(&t)) {
		TH_LOG("all in use: resolving evicts the least recently confirmed one");
	}

	request_from(&t, PEER_IP, new_mac);
	EXPECT_FALSE(has_entry(&t, PEER_IP));
	EXPECT_EQ(2, a->refused);
	EXPECT_EQ(1, a->evicted) TH_LOG("an address waiting for its answer is in use too");
	set_now(&t, t.port.now_ns + IXM_ARP_RETRY_NS);
	request_from(&t, PEER_IP, new_mac);
	ASSERT_TRUE(has_entry(&t, PEER_IP));
	EXPECT_FALSE(has_entry(&t, PEER2_IP));
	EXPECT_EQ(2, a->evicted);
	EXPECT_TRUE(table_consistent(&t)) {
		TH_LOG("unanswered after IXM_ARP_RETRY_NS, it is evicted first");
	}

	arp_frame(f, bcast_mac, 1, new_mac, SPOOF_IP(5), zero_mac, SPOOF_IP(5));
	tport_input(&t, f, 60, 0);
	ASSERT_TRUE(resolves_to(&t, SPOOF_IP(5), new_mac));
	EXPECT_EQ(2, a->refused);
	EXPECT_EQ(2, a->evicted);
	EXPECT_TRUE(table_consistent(&t)) TH_LOG("a known neighbour's new MAC is still taken");
	tport_fini(&t);
}

/* Count the replies queued and flush them. */
static unsigned int replies(struct tport *t)
{
	unsigned int n = t->port.ntx;

	tport_tx_flush(t);
	return n;
}

/*
 * The wire makes at most IXM_ARP_LEARN_BURST entries at once and one per
 * IXM_ARP_LEARN_NS after that; every sender is answered all the same, and
 * refreshes, answers to our requests and resolution are not limited.
 */
TEST(arp_ratelimit)
{
	struct ixm_arp_table *a;
	unsigned int i, n = 0;
	u8 f[64], want[64], mac[6];
	struct tport t;
	bool ok = true;
	int err;

	tport_init(&t, OUR_IP);
	set_prefix16(&t);
	a = t.port.arp;
	set_now(&t, SEC);
	for (i = 0; i < 100; i++) {
		arp_frame(f, bcast_mac, 1, peer_mac, SPOOF_IP(i), zero_mac, OUR_IP);
		tport_input(&t, f, 60, 0);
		n += replies(&t);
	}
	EXPECT_EQ(IXM_ARP_LEARN_BURST, a->learned);
	EXPECT_EQ(100 - IXM_ARP_LEARN_BURST, a->ratelimited);
	EXPECT_EQ(IXM_ARP_LEARN_BURST, a->count);
	EXPECT_EQ(100, n) {
		TH_LOG("100 new senders at once: 32 learned, 68 ratelimited, all 100 answered");
	}
	for (i = 0; i < 100; i++)
		ok &= has_entry(&t, SPOOF_IP(i)) == (i < IXM_ARP_LEARN_BURST);
	EXPECT_TRUE(ok) TH_LOG("the first 32 are the ones learned");

	/* the bucket is empty: known neighbours and our own requests are not limited */
	arp_frame(f, bcast_mac, 1, new_mac, SPOOF_IP(3), zero_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	tport_tx_flush(&t);
	ASSERT_TRUE(resolves_to(&t, SPOOF_IP(3), new_mac));
	EXPECT_EQ(68, a->ratelimited) {
		TH_LOG("a known neighbour's new MAC is taken with the bucket empty");
	}
	err = ixm_arp_resolve(&t.port, be32_of(PEER2_IP), mac);
	expected_request(want, PEER2_IP);
	EXPECT_EQ(-EAGAIN, err);
	ASSERT_TRUE(tx_is(&t, want, 60, "limited"));
	EXPECT_TRUE(has_entry(&t, PEER2_IP)) TH_LOG("resolving a new address is not limited");
	arp_frame(f, our_mac, 2, peer_mac, PEER2_IP, our_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	ASSERT_TRUE(resolves_to(&t, PEER2_IP, peer_mac));
	EXPECT_EQ(68, a->ratelimited) TH_LOG("and its answer completes it");

	/* one second of new senders at twice the rate: exactly 256 learned */
	n = a->learned;
	for (i = 1; i <= 512; i++) {
		set_now(&t, SEC + i * (IXM_ARP_LEARN_NS / 2));
		request_from(&t, SPOOF_IP(1000 + i), peer_mac);
	}
	EXPECT_EQ(256, a->learned - n);
	EXPECT_EQ(68 + 256, a->ratelimited) {
		TH_LOG("a second at 512 new senders a second: 256 learned, 256 ratelimited");
	}

	/* after a quiet while the burst is back, and no more */
	set_now(&t, t.port.now_ns + 10 * SEC);
	n = a->learned;
	for (i = 0; i < IXM_ARP_LEARN_BURST + 1; i++)
		request_from(&t, SPOOF_IP(2000 + i), peer_mac);
	EXPECT_EQ(IXM_ARP_LEARN_BURST, a->learned - n);
	EXPECT_EQ(68 + 256 + 1, a->ratelimited);
	EXPECT_TRUE(table_consistent(&t)) {
		TH_LOG("ten quiet seconds later: a burst of 32 again, not 33");
	}
	tport_fini(&t);
}

TEST(arp_nomem)
{
	u8 f[64], want[64], mac[6];
	struct tport t;
	int err;

	arp_frame(want, peer_mac, 2, our_mac, OUR_IP, peer_mac, PEER_IP);
	memcpy(want + 6, our_mac, 6);
	tport_init(&t, OUR_IP);
	set_now(&t, SEC);
	ixm_host_fail_alloc = 1;
	arp_frame(f, bcast_mac, 1, peer_mac, PEER_IP, zero_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	ASSERT_TRUE(tx_is(&t, want, 60, "nomem"));
	EXPECT_EQ(0, t.port.arp->count);
	EXPECT_EQ(1, t.port.arp->nomem) {
		TH_LOG("allocation failure: answered, not learned, counted");
	}
	ixm_host_fail_alloc = 1;
	err = ixm_arp_resolve(&t.port, be32_of(PEER2_IP), mac);
	EXPECT_EQ(-ENOMEM, err);
	EXPECT_FALSE(t.port.ntx);
	EXPECT_EQ(2, t.port.arp->nomem) {
		TH_LOG("allocation failure: resolve fails with -ENOMEM, nothing sent");
	}
	/* a MAC change needs a new entry: failure keeps the old one */
	tport_input(&t, f, 60, 0);
	tport_tx_flush(&t);
	ixm_host_fail_alloc = 1;
	arp_frame(f, bcast_mac, 1, new_mac, PEER_IP, zero_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	tport_tx_flush(&t);
	ASSERT_TRUE(resolves_to(&t, PEER_IP, peer_mac));
	EXPECT_EQ(3, t.port.arp->nomem) {
		TH_LOG("allocation failure on a MAC change keeps the old translation");
	}
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree) TH_LOG("every buffer back");
	tport_fini(&t);

	ixm_host_fail_alloc = 1;
	EXPECT_EQ(NULL, ixm_arp_table_alloc()) TH_LOG("ixm_arp_table_alloc() returns NULL on failure");
	ixm_arp_table_free(NULL);
}

/* Packets for us from senders off our subnet: neither learned nor answered. */
TEST(arp_offsubnet)
{
	u8 f[64], want[64];
	struct tport t;
	unsigned int i;

	tport_init(&t, OUR_IP);
	set_now(&t, SEC);
	arp_frame(f, bcast_mac, 1, peer_mac, 0xc6120005u, zero_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	EXPECT_FALSE(t.port.ntx);
	EXPECT_EQ(0, t.port.arp->count);
	EXPECT_EQ(1, t.stats.drops[IXM_DROP_ARP_OFFSUBNET]);
	EXPECT_FALSE(t.stats.arp_requests_in) {
		TH_LOG("request for us from 198.18.0.5 (off 192.0.2.0/24): not answered, not learned, arp_offsubnet");
	}
	arp_frame(f, our_mac, 2, peer_mac, 0xc0000302u, our_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	EXPECT_FALSE(t.port.ntx);
	EXPECT_EQ(0, t.port.arp->count);
	EXPECT_EQ(2, t.stats.drops[IXM_DROP_ARP_OFFSUBNET]) {
		TH_LOG("reply for us from 192.0.3.2, just past the /24: not learned, arp_offsubnet");
	}

	/* 1,500 spoofed off-subnet senders leave the table as it was */
	for (i = 0; i < 1500; i++) {
		arp_frame(f, bcast_mac, 1, peer_mac, 0x0a000001u + i, zero_mac, OUR_IP);
		tport_input(&t, f, 60, 0);
	}
	EXPECT_FALSE(t.port.ntx);
	EXPECT_EQ(0, t.port.arp->count);
	EXPECT_EQ(1502, t.stats.drops[IXM_DROP_ARP_OFFSUBNET]) {
		TH_LOG("1,500 requests from 10.0.0.1 and up: none learned or answered, each counted");
	}
	arp_frame(f, bcast_mac, 1, peer_mac, PEER_IP, zero_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	arp_frame(want, peer_mac, 2, our_mac, OUR_IP, peer_mac, PEER_IP);
	memcpy(want + 6, our_mac, 6);
	ASSERT_TRUE(tx_is(&t, want, 60, "on-link"));
	EXPECT_TRUE(resolves_to(&t, PEER_IP, peer_mac)) {
		TH_LOG("then an on-link peer is answered and learned");
	}
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree) TH_LOG("every buffer back");

	/* an entry off the subnet after a prefix change is not updated either */
	set_prefix16(&t);
	arp_frame(f, bcast_mac, 1, peer_mac, 0xc0000302u, zero_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	tport_tx_flush(&t);
	t.cfg.prefix = 24;
	t.cfg.netmask = be32_of(0xffffff00u);
	arp_frame(f, bcast_mac, 1, new_mac, 0xc0000302u, zero_mac, 0xc0000302u);
	tport_input(&t, f, 60, 0);
	ASSERT_TRUE(resolves_to(&t, 0xc0000302u, peer_mac));
	EXPECT_EQ(1503, t.stats.drops[IXM_DROP_ARP_OFFSUBNET]) {
		TH_LOG("after /16 -> /24 a gratuitous ARP from 192.0.3.2 changes nothing");
	}
	tport_fini(&t);
}

/* RFC 3021 /31: the other address is the only neighbour */
TEST(arp_offsubnet_slash31)
{
	struct tport t;
	u8 f[64];

	tport_init(&t, OUR_IP);
	t.cfg.prefix = 31;
	t.cfg.netmask = be32_of(0xfffffffeu);
	set_now(&t, SEC);
	arp_frame(f, bcast_mac, 1, peer_mac, 0xc0000200u, zero_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	tport_tx_flush(&t);
	arp_frame(f, bcast_mac, 1, new_mac, PEER_IP, zero_mac, OUR_IP);
	tport_input(&t, f, 60, 0);
	ASSERT_TRUE(resolves_to(&t, 0xc0000200u, peer_mac));
	EXPECT_EQ(1, t.port.arp->count);
	EXPECT_EQ(1, t.stats.drops[IXM_DROP_ARP_OFFSUBNET]);
	EXPECT_FALSE(t.port.ntx) TH_LOG("/31: 192.0.2.0 learned, 192.0.2.2 refused as off-subnet");
	tport_fini(&t);
}

TEST(arp_announce)
{
	struct tport t;
	u8 want[64];

	tport_init(&t, OUR_IP);
	EXPECT_EQ(0, ixm_arp_announce(&t.port)) TH_LOG("announce: 0");
	expected_request(want, OUR_IP);
	EXPECT_TRUE(tx_is(&t, want, 60, "announce")) {
		TH_LOG("RFC 5227 §3 announcement: sender IP = target IP = ours, broadcast");
	}
	EXPECT_EQ(1, t.stats.arp_requests_out) TH_LOG("counted in arp_requests_out");
	t.pool.nfree = 0;
	EXPECT_EQ(ENOBUFS, (unsigned int)-ixm_arp_announce(&t.port)) TH_LOG("no buffer: -ENOBUFS");
	t.pool.nfree = TPORT_BUFS;
	tport_fini(&t);
}

TEST(arp_announce_no_address)
{
	struct tport t0;
	u8 mac[6];

	tport_init(&t0, 0);
	EXPECT_EQ(-EADDRNOTAVAIL, ixm_arp_announce(&t0.port));
	EXPECT_EQ(-EADDRNOTAVAIL, ixm_arp_resolve(&t0.port, be32_of(PEER_IP), mac));
	EXPECT_FALSE(t0.port.ntx) TH_LOG("no address: nothing announced or resolved");
	tport_fini(&t0);
}

TEST_HARNESS_MAIN
