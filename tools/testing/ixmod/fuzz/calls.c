// SPDX-License-Identifier: GPL-2.0
/*
 * calls.c - libFuzzer target for the call and event rings of a context:
 * ixm_app_run_calls(), ixm_call_check(), every call, the hold-back queue
 *
 * The input is what an application writes into its call ring, plus the
 * lies it may tell about the ring indices.  One context on one port
 * (198.18.0.1/24, one receive slice, its neighbour 198.18.0.2 resolved),
 * a call ring of 8 and an event ring of 4, so that the ring fills, events
 * are held and datagrams dropped.  The harness plays both sides, step by
 * step: it publishes some calls, sometimes delivers a datagram to a bound
 * port through ixm_eth_input(), runs a small batch of calls, sends what
 * was queued (checking each frame), publishes the events and consumes
 * some of them, sometimes answering a receive with RECV_DONE.  After
 * every step:
 *
 *  - pool nfree + buffers the context holds (rx_bufs) + frames queued
 *    == buffers in the pool; no more calls consumed than the budget;
 *  - the event ring never holds more than its entries, nothing is held
 *    back while the ring has room, and IXMOD_RING_OVERFLOW is set exactly
 *    while events are held;
 *  - every event is well formed, and a UDP_RECV's payload lies inside one
 *    buffer of the receive slice;
 *  - every queued frame lies inside its buffer and is well formed
 *    (frames.h check_tx()).
 *
 * After the input: the buffers owned by the context are rx_bufs, and
 * ixm_app_release_all() returns all of them and unbinds every socket.
 *
 * Input layout:
 *
 *	in[0]	bits 0-1: tamper the call ring's producer index: no, 100000
 *		ahead, one behind the kernel's consumer, in[4..7];
 *		bits 2-3: tamper the event ring's consumer index: no, 7 ahead
 *		of the producer, 1000 behind, in[4..7]
 *	in[1]	the step (0-15) at which to tamper; the next step the harness
 *		writes honest indices again
 *	in[2..3] seed of the harness's own choices
 *	in[4..7] the value for the "as given" tamperings (little endian)
 *	in[8..]	call entries of 64 bytes; a shorter tail is ignored
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "frames.h"
#include "udp.h"

#define LOCAL_IP	0xc6120001u	/* 198.18.0.1 */
#define REMOTE_IP	0xc6120002u	/* 198.18.0.2, resolved */
#define CALL_NR		8
#define EVENT_NR	4
#define ARENA_SIZE	4096
#define HDR		8
#define MAX_PENDING	16

static const u8 zero_mac[6];

static struct {
	struct ixm_app		app;
	struct ixm_stack	stack;
	struct ixm_net_port	np;
	struct ixm_net_port	*ports[1];
	struct ixm_if_config	cfg;
	struct ixm_net_stats	stats;
	struct ixm_mbuf_pool	pool;
	struct ixm_mbuf		*mbufs;
	struct ixm_mbuf		**free;
	u8			*slice;
	struct ixm_udp_table	*udp;
	u8			*calls;
	u8			*events;
	struct ixmod_event	*hold;
	u8			*arena;
	u32			call_prod;	/* the application's indices */
	u32			event_cons;
	u32			pending[MAX_PENDING];	/* RECV_DONEs to send */
	unsigned int		npending;
	bool			lied;		/* about the event consumer index */
	unsigned long long	rng;
} h;

static void check(int ok)
{
	if (!ok)
		abort();
}

static u32 *ring_word(u8 *region, size_t off)
{
	return (u32 *)(region + off);
}

static void setup_once(void)
{
	unsigned int i;

	h.calls = calloc(1, ixm_ring_bytes(CALL_NR, sizeof(struct ixmod_call)));
	h.events = calloc(1, ixm_ring_bytes(EVENT_NR, sizeof(struct ixmod_event)));
	h.hold = calloc(EVENT_NR, sizeof(*h.hold));
	h.arena = malloc(ARENA_SIZE);
	h.udp = malloc(sizeof(*h.udp));
	h.slice = aligned_alloc(4096, IXM_RX_SLICE);
	h.mbufs = calloc(IXM_RX_SLICE_BUFS, sizeof(*h.mbufs));
	h.free = calloc(IXM_RX_SLICE_BUFS, sizeof(*h.free));
	if (!h.calls || !h.events || !h.hold || !h.arena || !h.udp || !h.slice ||
	    !h.mbufs || !h.free)
		die("alloc");
	memset(h.slice, 0, IXM_RX_SLICE);
	for (i = 0; i < ARENA_SIZE; i++)
		h.arena[i] = (u8)(i * 7 + 1);
	for (i = 0; i < IXM_RX_SLICE_BUFS; i++) {
		h.mbufs[i].buf = h.slice + (size_t)i * IXM_MBUF_SIZE;
		h.mbufs[i].dma = (dma_addr_t)(uintptr_t)h.mbufs[i].buf;
	}
	memcpy(h.cfg.mac, our_mac, 6);
	h.cfg.ip = be32_of(LOCAL_IP);
	h.cfg.prefix = 24;
	h.cfg.netmask = be32_of(0xffffff00u);
	ixm_host_now_ns = 1000000000ULL;
	h.np.cfg = &h.cfg;
	h.np.pool = &h.pool;
	h.np.stats = &h.stats;
	h.np.stack = &h.stack;
	h.np.now_ns = ixm_host_now_ns;
	h.ports[0] = &h.np;
	h.stack.ports = h.ports;
	h.stack.nports = 1;
	h.stack.udp = h.udp;
	h.stack.now_ns = ixm_host_now_ns;
}

/* Every frame queued is inside its buffer and well formed; then sent. */
static void tx_check_flush(void)
{
	unsigned int i;

	for (i = 0; i < h.np.ntx; i++) {
		const struct ixm_mbuf *m = h.np.tx[i];

		check(m->pool == &h.pool && !m->owner);
		check(m->data >= m->buf && m->data + m->len <= m->buf + IXM_MBUF_SIZE);
		check(!check_tx(&h.cfg, m));
		ixm_mbuf_free(h.np.tx[i]);
	}
	h.np.ntx = 0;
}

static void input(const u8 *f, size_t len)
{
	struct ixm_mbuf *m = ixm_mbuf_alloc(&h.pool);

	if (!m)
		return;
	memcpy(m->data, f, len);
	m->len = (u16)len;
	ixm_eth_input(&h.np, m);
}

/* A fresh context, sockets and ARP table (REMOTE_IP learned). */
static void reset(void)
{
	u8 f[60];

	memset(h.calls, 0, ixm_ring_bytes(CALL_NR, sizeof(struct ixmod_call)));
	memset(h.events, 0, ixm_ring_bytes(EVENT_NR, sizeof(struct ixmod_event)));
	memset(&h.stats, 0, sizeof(h.stats));
	ixm_udp_table_init(h.udp);
	ixm_mbuf_pool_init(&h.pool, h.mbufs, h.free, IXM_RX_SLICE_BUFS);
	h.pool.rx_base = 0;
	h.np.arp = ixm_arp_table_alloc();
	if (!h.np.arp)
		die("ixm_arp_table_alloc");
	ixm_app_init(&h.app, &h.stack, h.calls, CALL_NR, h.events, EVENT_NR, h.hold,
		     h.arena, ARENA_SIZE, 1);
	h.call_prod = 0;
	h.event_cons = 0;
	h.npending = 0;
	h.lied = false;

	memset(f, 0, sizeof(f));
	put_arp(put_eth(f, bcast_mac, peer_mac, 0x0806), 1, peer_mac, REMOTE_IP,
		zero_mac, LOCAL_IP);
	input(f, sizeof(f));
	tx_check_flush();
}

/* A datagram from REMOTE_IP to @dport; a wrong checksum if @bad. */
static void deliver(u16 dport, size_t n, bool bad)
{
	static u8 f[2048], ps[12 + 2048];
	struct iph_args a = {
		.id = 1, .frag = 0x4000, .ttl = 64, .proto = 17,
		.src = REMOTE_IP, .dst = LOCAL_IP,
	};
	u8 *u = put_ip(put_eth(f, our_mac, peer_mac, 0x0800), &a, 8 + n);
	u16 ck;
	size_t i;

	put16(u, 5555);
	put16(u + 2, dport);
	put16(u + 4, 8 + n);
	put16(u + 6, 0);
	for (i = 0; i < n; i++)
		u[8 + i] = (u8)(i + n);
	put32(ps, REMOTE_IP);
	put32(ps + 4, LOCAL_IP);
	ps[8] = 0;
	ps[9] = 17;
	put16(ps + 10, 8 + n);
	memcpy(ps + 12, u, 8 + n);
	ck = ref_csum(ps, 12 + 8 + n);
	put16(u + 6, (ck ? ck : 0xffff) ^ (bad ? 0x0101 : 0));
	input(f, 14 + 20 + 8 + n);
}

/* The port of the first socket of the context, or 0. */
static u16 bound_port(void)
{
	unsigned int i;

	for (i = 0; i < IXM_UDP_SOCKS; i++)
		if (h.udp->socks[i].app == &h.app)
			return h.udp->socks[i].port;
	return 0;
}

static void check_event(const struct ixmod_event *ev)
{
	check(ev->type < IXMOD_EV_LAST && !ev->flags);
	if (ev->type == IXMOD_EV_UDP_RECV) {
		check(!ev->op && !ev->__pad && ev->res >= 0 && ev->res <= IXM_UDP_PAYLOAD_MAX);
		check(ev->off < IXM_RX_SLICE);
		check(ev->off % IXM_MBUF_SIZE >= IXM_MBUF_HEADROOM);
		check(ev->off % IXM_MBUF_SIZE + (u32)ev->res <= IXM_MBUF_SIZE);
		check(ev->addr == be32_of(REMOTE_IP) && ev->port == ixm_htons(5555));
	} else {
		check(ev->res != IXM_CALL_RETRY && ev->res >= -4095 &&
		      ev->res <= IXM_UDP_PAYLOAD_MAX);
		check(!ev->addr && !ev->port && !ev->lport);
		if (ev->op != IXMOD_OP_UDP_BIND || ev->res)
			check(!ev->handle);
	}
}

/* The application takes up to @k events. */
static void consume(unsigned int k)
{
	const struct ixmod_event *e =
		(const struct ixmod_event *)(h.events + IXM_RING_OFF_ENTRIES);
	u32 prod = __atomic_load_n(ring_word(h.events, IXM_RING_OFF_PROD), __ATOMIC_ACQUIRE);

	/*
	 * A consumer index that lied within range lets the kernel overwrite
	 * events the application had not read: its own loss, nothing more.
	 */
	if (prod - h.event_cons > EVENT_NR) {
		check(h.lied);
		h.event_cons = prod - EVENT_NR;
	}
	while (k-- && prod != h.event_cons) {
		struct ixmod_event ev = e[h.event_cons & (EVENT_NR - 1)];

		check_event(&ev);
		if (ev.type == IXMOD_EV_UDP_RECV && h.npending < MAX_PENDING &&
		    ref_rand(&h.rng) % 4)
			h.pending[h.npending++] = ev.off;
		h.event_cons++;
	}
	__atomic_store_n(ring_word(h.events, IXM_RING_OFF_CONS), h.event_cons, __ATOMIC_RELEASE);
}

/* Publish calls: the harness's RECV_DONEs first, then the input's. */
static void submit(const u8 **calls, size_t *ncalls, unsigned int want)
{
	struct ixmod_call *e = (struct ixmod_call *)(h.calls + IXM_RING_OFF_ENTRIES);
	u32 cons = __atomic_load_n(ring_word(h.calls, IXM_RING_OFF_CONS), __ATOMIC_ACQUIRE);

	/* after a lie, the kernel may have consumed past what we wrote */
	if ((s32)(cons - h.call_prod) > 0)
		h.call_prod = cons;
	while (want-- && h.call_prod - cons < CALL_NR) {
		struct ixmod_call c;

		if (h.npending) {
			memset(&c, 0, sizeof(c));
			c.opcode = IXMOD_OP_RECV_DONE;
			c.off = h.pending[--h.npending];
		} else if (*ncalls) {
			memcpy(&c, *calls, sizeof(c));
			*calls += sizeof(c);
			(*ncalls)--;
		} else {
			break;
		}
		e[h.call_prod & (CALL_NR - 1)] = c;
		h.call_prod++;
	}
	__atomic_store_n(ring_word(h.calls, IXM_RING_OFF_PROD), h.call_prod, __ATOMIC_RELEASE);
}

static void tamper(u8 ctl, u32 val)
{
	u32 *cprod = ring_word(h.calls, IXM_RING_OFF_PROD);
	u32 *econs = ring_word(h.events, IXM_RING_OFF_CONS);
	u32 eprod = *ring_word(h.events, IXM_RING_OFF_PROD);

	switch (ctl & 3) {
	case 1:
		*cprod = h.app.calls.cached + 100000;
		break;
	case 2:
		*cprod = h.app.calls.cached - 1;
		break;
	case 3:
		*cprod = val;
		break;
	}
	switch ((ctl >> 2) & 3) {
	case 1:
		*econs = eprod + 7;
		break;
	case 2:
		*econs = eprod - 1000;
		break;
	case 3:
		*econs = val;
		break;
	}
	if ((ctl >> 2) & 3)
		h.lied = true;
}

static void check_step(unsigned int ran, unsigned int budget)
{
	u32 flags = *ring_word(h.events, IXM_RING_OFF_FLAGS);

	check(ran <= budget && ran <= CALL_NR);
	check(h.pool.nfree + h.app.stats.rx_bufs + h.np.ntx == h.pool.count);
	check(h.app.hold_count <= h.app.hold_nr);
	check(!!(flags & IXMOD_RING_OVERFLOW) == !!h.app.hold_count);
	check(h.app.events.cached - h.event_cons <= EVENT_NR || h.lied);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	static bool ready;
	unsigned int step, steps, budget, ran, i, owned;
	u64 consumed = 0;
	const u8 *calls;
	size_t ncalls;
	u32 val;
	u8 ctl;

	if (size < HDR)
		return 0;
	if (!ready) {
		setup_once();
		ready = true;
	}
	reset();
	ctl = in[0];
	h.rng = 0x9e3779b97f4a7c15ULL ^ ((u64)in[2] << 8 | in[3]);
	val = (u32)in[4] | (u32)in[5] << 8 | (u32)in[6] << 16 | (u32)in[7] << 24;
	calls = in + HDR;
	ncalls = (size - HDR) / sizeof(struct ixmod_call);
	steps = 8 + 2 * (unsigned int)ncalls;

	for (step = 0; step < steps; step++) {
		submit(&calls, &ncalls, 1 + ref_rand(&h.rng) % CALL_NR);
		if (step == (in[1] & 15u))
			tamper(ctl, val);
		if (ref_rand(&h.rng) % 3 == 0) {
			u16 port = bound_port();
			u64 r = ref_rand(&h.rng);

			deliver(port && r % 4 ? port : (u16)(r >> 16), (r >> 8) % 80, r % 16 == 0);
		}
		budget = 1 + ref_rand(&h.rng) % 6;
		ran = ixm_app_run_calls(&h.app, budget);
		consumed += ran;
		check_step(ran, budget);
		tx_check_flush();
		ixm_app_flush(&h.app);
		check_step(ran, budget);
		/* held only while the ring is full (or its consumer lies) */
		check(!h.app.hold_count ||
		      h.app.events.cached - *ring_word(h.events, IXM_RING_OFF_CONS) >= EVENT_NR);
		consume(ref_rand(&h.rng) % 6);
	}
	check(h.app.stats.calls == consumed);

	/* the application is honest again and reads what is left */
	submit(&calls, &ncalls, 0);
	for (i = 0; i < 2 * EVENT_NR + 2; i++) {
		ixm_app_flush(&h.app);
		consume(EVENT_NR);
	}
	check(!h.app.hold_count);

	owned = 0;
	for (i = 0; i < h.pool.count; i++)
		owned += h.mbufs[i].owner == &h.app;
	check(owned == h.app.stats.rx_bufs);
	ixm_app_release_all(&h.app);
	check(h.pool.nfree == h.pool.count && !h.app.stats.rx_bufs && !h.udp->count);
	for (i = 0; i < h.pool.count; i++)
		check(!h.mbufs[i].owner);
	check(!bound_port());
	ixm_arp_table_free(h.np.arp);
	h.np.arp = NULL;
	return 0;
}
