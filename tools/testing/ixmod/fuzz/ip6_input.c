// SPDX-License-Identifier: GPL-2.0
/*
 * ip6_input.c - libFuzzer target for IPv6 input: ixm_eth_input() with
 * the EtherType forced to IPv6, and Neighbor Discovery after it
 *
 * Arbitrary bytes arrive as an IPv6 datagram on a port with IPv6 on, whose
 * core has one UDP socket, port 7, bound by a context set up with
 * IXMOD_SETUP_INET6 or without it (an ABI 2 one).  The frame sits at the
 * very end of a block allocated at exactly headroom + length, so ASan
 * reports any read or write past it.  After each input:
 *
 *  - it was consumed exactly once: at most one drop, at most one frame
 *    queued, both only when the frame is an ICMPv6 error about the
 *    datagram; nothing at all only when it was a Neighbor Advertisement
 *    learned from, or a UDP datagram delivered to the socket: then only
 *    to the INET6 context, its one event a UDP_RECV with IXMOD_EVF_INET6,
 *    the datagram's source and ports, its payload inside the buffer the
 *    context now holds; and after the queue is freed (and that buffer
 *    returned) every buffer is in the pool exactly once;
 *  - every queued frame is well formed (frames.h check_tx(): lengths,
 *    our source, ND's hop limit and option, the ICMPv6 checksum over the
 *    pseudo-header verified by ref.h, errors within the minimum MTU)
 *    and lies inside its buffer;
 *  - the neighbour table stays within IXM_ND_MAX_ENTRIES and gc empties it.
 *
 * Input layout:
 *
 *	in[0]	bit 0: IPv6 off; bit 1: prefix /128 instead of /64;
 *		bit 2: sent to all-nodes' MAC instead of ours;
 *		bit 3: then resolve the datagram's source and announce;
 *		bits 4-6: seconds to advance before that and a gc;
 *		bit 7: port 7's context is an ABI 2 one (no IPv6 peers)
 *	in[1..]	the datagram, from the IPv6 header (an Ethernet header
 *		from the peer is put in front)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "frames.h"
#include "udp.h"

#define RING_NR		4

/* The core's protocol state: one port, one socket, one context. */
static struct {
	struct ixm_stack	st;
	struct ixm_net_port	*ports[1];
	struct ixm_udp_table	udp;
	struct ixm_app		app;
	struct ixmod_event_ext	hold[RING_NR];
	u8			*calls;
	u8			*events;
	u8			arena[4096];
} c;

/* A fresh socket on port 7 of @t's core, its context INET6 or not. */
static void core_init(struct tport *t, bool inet6)
{
	size_t cb = ixm_ring_bytes(RING_NR, sizeof(struct ixmod_call));
	size_t eb = ixm_ring_bytes(RING_NR, sizeof(struct ixmod_event_ext));
	u64 handle;

	if (!c.calls) {
		c.calls = malloc(cb);
		c.events = malloc(eb);
		if (!c.calls || !c.events)
			die("malloc");
	}
	memset(c.calls, 0, cb);
	memset(c.events, 0, eb);
	ixm_app_init(&c.app, &c.st, &(struct ixm_app_regions){
		.call_region = c.calls, .call_nr = RING_NR,
		.event_region = c.events, .event_nr = RING_NR,
		.ev_ext = true, .inet6 = inet6, .hold = c.hold,
		.txarena = c.arena, .txarena_size = sizeof(c.arena), .nslices = 1,
	});
	ixm_udp_table_init(&c.udp, 1);
	if (ixm_udp_bind(&c.udp, &c.app, 7, 0xc0c1e, &handle))
		__builtin_trap();
	c.ports[0] = &t->port;
	c.st.ports = c.ports;
	c.st.nports = 1;
	c.st.udp = &c.udp;
	t->port.stack = &c.st;
}

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

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
	if (len > IXM_MBUF_DATA_MAX - 14)
		len = IXM_MBUF_DATA_MAX - 14;

	ixm_host_now_ns = 1000000000ULL;
	tport_init(&t, OUR_IP);
	if (!(ctl & 1))
		tport_ip6(&t);
	if (ctl & 2)
		t.cfg.ip6_prefix = 128;
	core_init(&t, !(ctl & 0x80));

	exact_size = IXM_MBUF_HEADROOM + 14 + len;
	exact = malloc(exact_size);
	if (!exact)
		die("malloc");
	m = ixm_mbuf_alloc(&t.pool);
	orig = m->buf;
	m->buf = exact;
	m->data = exact + IXM_MBUF_HEADROOM;
	put_eth(m->data, ctl & 4 ? (const u8 []){ 0x33, 0x33, 0, 0, 0, 1 } : our_mac,
		peer_mac, 0x86dd);
	memcpy(m->data + 14, in + 1, len);
	m->len = (u16)(14 + len);
	m->flags = 0;

	ixm_eth_input(&t.port, m);

	for (r = 0; r < IXM_DROP_MAX; r++)
		drops += t.stats.drops[r];
	check(drops <= 1 && t.port.ntx <= 1);
	if (drops && t.port.ntx) {
		const u8 *f = t.port.tx[0]->data;

		/* the one case of both: an ICMPv6 error about it */
		check(t.port.tx[0]->len >= 62 && f[20] == 58 && f[54] >= 1 && f[54] <= 4);
	}
	if (t.stats.udp6_in) {
		const struct ixmod_event_ext *x = c.app.events.entries;

		/* delivered: to the INET6 context only, the buffer now its own */
		check(t.stats.udp6_in == 1 && !drops && !t.port.ntx && !(ctl & 0x80));
		check(c.app.events.cached == 1 && c.app.stats.rx_bufs == 1 && m->owner == &c.app);
		check(x->ev.type == IXMOD_EV_UDP_RECV && x->ev.flags == IXMOD_EVF_INET6 &&
		      !x->ev.addr && !x->resv2 && !memcmp(x->addr6, in + 1 + 8, 16));
		check(get16((const u8 *)&x->ev.lport) == 7 && x->ev.user_data == 0xc0c1e);
		check(m->data == exact + x->ev.off % IXM_MBUF_SIZE && m->len == (u32)x->ev.res &&
		      m->data + m->len <= exact + exact_size);
		/* the source port the datagram's header gave, 8 bytes before its payload */
		check(x->ev.res >= 0 && len >= 40 + 8 + (size_t)x->ev.res &&
		      !memcmp(&x->ev.port, m->data - 8, 2));
		m->owner = NULL;
		c.app.stats.rx_bufs = 0;
		ixm_mbuf_free(m);
	} else {
		check(!c.app.events.cached && !c.app.stats.rx_bufs);
		if (!drops && !t.port.ntx)
			check(len >= 40 + 24 && in[1 + 6] == 58);	/* an NA learned from */
	}
	check(t.stats.icmp6_errors_out + t.stats.icmp6_echo_replies +
	      t.stats.nd_adverts_out == t.port.ntx);
	check_and_flush(&t, exact, exact_size);
	check_pool_full(&t);
	check(t.port.nd->count <= IXM_ND_MAX_ENTRIES);

	for (r = 0; r < TPORT_BUFS; r++)
		if (t.mbufs[r].buf == exact)
			t.mbufs[r].buf = orig;
	free(exact);
	exact = NULL;

	if (ctl & 8 && len >= 40) {
		struct ixm_in6_addr src;
		u8 mac[6];

		memcpy(src.s6, in + 1 + 8, 16);
		t.port.now_ns += (u64)((ctl >> 4) & 7) * 1000000000ULL;
		ixm_nd_resolve(&t.port, &src, mac);
		ixm_nd_announce(&t.port);
		check(t.port.ntx <= 3);
		check_and_flush(&t, exact, exact_size);
		check_pool_full(&t);
		ixm_nd_table_gc(t.port.nd, t.port.now_ns + IXM_ND_EXPIRE_NS + 1);
		check(t.port.nd->count == 0);
	}

	tport_fini(&t);
	return 0;
}
