// SPDX-License-Identifier: GPL-2.0
/*
 * eth_input.c - libFuzzer target for ixm_eth_input() and below
 *
 * Arbitrary bytes arrive as a frame on a configured port.  The frame sits
 * at the very end of a block allocated at exactly headroom + length, so
 * ASan reports any read or write past it.  After each input:
 *
 *  - it was consumed exactly once: at most one frame queued, and after
 *    the queue is freed every buffer is in the pool exactly once;
 *  - if nothing was queued, exactly one drop was counted, unless it was
 *    an ARP reply or a Neighbor Advertisement (consumed by learning);
 *    a drop and a queued frame together only for an ICMPv6 error;
 *  - every queued frame is well formed (frames.h check_tx(): our source
 *    MAC, consistent IPv4 lengths, IP and ICMP checksums that verify, ARP
 *    replies from us to the asker) and lies inside its buffer.
 *
 * Input layout:
 *
 *	in[0]	bit 0: NIC says IP checksum OK; bit 1: NIC says bad;
 *		bit 2: port without an address (IPv4 and IPv6; with one,
 *		2001:db8::1/64 too: fuzz/ip6_input.c goes deeper);
 *		bit 3: /31 instead of /24;
 *		bit 4: then resolve the frame's ARP sender and announce;
 *		bits 5-7: seconds to advance before the resolve and a gc
 *	in[1..]	the frame, from the Ethernet header, FCS stripped
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

/* Every queued frame is well formed and inside its buffer; then free. */
static void check_and_flush(struct tport *t, const u8 *exact, size_t exact_size)
{
	unsigned int i;

	for (i = 0; i < t->port.ntx; i++) {
		const struct ixm_mbuf *m = t->port.tx[i];
		size_t size = m->buf == exact ? exact_size : IXM_MBUF_SIZE;

		check(m->data >= m->buf && m->data + m->len <= m->buf + size);
		check(!check_tx(t->port.cfg, m));
	}
	tport_tx_flush(t);
}

/* Each buffer is in the free stack exactly once. */
static void check_pool_full(const struct tport *t)
{
	unsigned int i, j;

	check(t->pool.nfree == t->pool.count);
	for (i = 0; i < t->pool.nfree; i++)
		for (j = 0; j < i; j++)
			check(t->pool.free[i] != t->pool.free[j]);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	size_t len, exact_size;
	struct ixm_mbuf *m;
	u8 ctl, *exact, *orig;
	struct tport t;
	unsigned int r;
	u64 drops = 0;

	if (size < 1)
		return 0;
	ctl = in[0];
	len = size - 1;
	if (len > IXM_MBUF_DATA_MAX)
		len = IXM_MBUF_DATA_MAX;

	ixm_host_now_ns = 1000000000ULL;
	tport_init(&t, ctl & 4 ? 0 : OUR_IP);
	if (!(ctl & 4))
		tport_ip6(&t);
	if (ctl & 8) {
		t.cfg.prefix = 31;
		t.cfg.netmask = be32_of(0xfffffffeu);
	}

	exact_size = IXM_MBUF_HEADROOM + len;
	exact = malloc(exact_size);
	if (!exact)
		die("malloc");
	m = ixm_mbuf_alloc(&t.pool);
	orig = m->buf;
	m->buf = exact;
	m->data = exact + IXM_MBUF_HEADROOM;
	memcpy(m->data, in + 1, len);
	m->len = (u16)len;
	m->flags = (ctl & 1 ? IXM_MBUF_F_IP_CSUM_OK : 0) |
		   (ctl & 2 ? IXM_MBUF_F_IP_CSUM_BAD : 0);

	ixm_eth_input(&t.port, m);

	for (r = 0; r < IXM_DROP_MAX; r++)
		drops += t.stats.drops[r];
	check(t.stats.rx_packets == 1 && t.stats.rx_bytes == len);
	check(drops <= 1 && t.port.ntx <= 1);
	if (drops && t.port.ntx) {
		/* only an ICMPv6 error about the frame comes with its drop */
		check(t.port.tx[0]->data[12] == 0x86 && t.port.tx[0]->data[54] >= 1 &&
		      t.port.tx[0]->data[54] <= 4);
	}
	if (!drops && !t.port.ntx) {
		/* only an ARP reply or an NA is consumed without either */
		check((len >= 42 && in[1 + 12] == 0x08 && in[1 + 13] == 0x06 &&
		       in[1 + 20] == 0 && in[1 + 21] == 2) ||
		      (len >= 78 && in[1 + 12] == 0x86 && in[1 + 13] == 0xdd));
	}
	check_and_flush(&t, exact, exact_size);
	check_pool_full(&t);

	/* give the descriptor its full-size buffer back for what follows */
	for (r = 0; r < TPORT_BUFS; r++)
		if (t.mbufs[r].buf == exact)
			t.mbufs[r].buf = orig;
	free(exact);
	exact = NULL;

	if (ctl & 16 && len >= 42) {
		__be32 ip;
		u8 mac[6];

		memcpy(&ip, in + 1 + 28, 4);
		t.port.now_ns += (u64)(ctl >> 5) * 1000000000ULL;
		r = (unsigned int)ixm_arp_resolve(&t.port, ip, mac);
		ixm_arp_announce(&t.port);
		check(t.port.ntx <= 2);
		check_and_flush(&t, exact, exact_size);
		check_pool_full(&t);
		ixm_arp_table_gc(t.port.arp, t.port.now_ns + IXM_ARP_EXPIRE_NS + 1);
		check(t.port.arp->count == 0);
	}

	tport_fini(&t);
	return 0;
}
