// SPDX-License-Identifier: GPL-2.0
/*
 * calls.c - libFuzzer target for the call and event rings of a context:
 * ixm_app_run_calls(), ixm_call_check(), every call, the hold-back queue
 *
 * The input is what an application writes into its call ring, plus the
 * lies it may tell about the ring indices.  One context on one port
 * (testnet.h's host: 198.18.0.1/24 and 2001:db8::1/64, one receive slice,
 * its neighbours 198.18.0.2 and 2001:db8::2 resolved, UDP and TCP
 * tables), set up with IXMOD_SETUP_INET6 (64-byte events) or as an ABI 2
 * context, as the input says,
 * a call ring of 8 and an event ring of 4, so that the ring fills, events
 * are held and datagrams dropped.  The harness plays both sides, step by
 * step: it publishes some calls, sometimes delivers a datagram over IPv4
 * or IPv6 to a bound port through ixm_eth_input(), runs a small batch of
 * calls, sends what
 * was queued (checking each frame), publishes the events and consumes
 * some of them, sometimes answering a receive with RECV_DONE.  TCP's
 * timers run every step with the clock advanced as the input says, so a
 * TCP_CONNECT nobody answers sends its SYNs again and fails.  After every
 * step:
 *
 *  - pool nfree + buffers the context holds (rx_bufs) + frames queued
 *    == buffers in the pool; no more calls consumed than the budget;
 *  - the event ring never holds more than its entries, nothing is held
 *    back while the ring has room, and IXMOD_RING_OVERFLOW is set exactly
 *    while events are held;
 *  - every event is well formed, and a UDP_RECV's payload lies inside one
 *    buffer of the receive slice; one from an IPv6 peer only in an INET6
 *    context, with IXMOD_EVF_INET6, addr 0 and the peer's address in the
 *    extension (whose tail is otherwise zero): a UDP_RECV from the
 *    neighbour, or the TCP_CONNECTED of a connect over IPv6 that failed,
 *    naming a unicast address not ours;
 *  - every queued frame lies inside its buffer and is well formed
 *    (frames.h check_tx()).
 *
 * After the input: the buffers owned by the context are rx_bufs, and
 * ixm_app_release_all() returns all of them, unbinds every socket and
 * frees every TCP connection and listener.
 *
 * Input layout:
 *
 *	in[0]	bits 0-1: tamper the call ring's producer index: no, 100000
 *		ahead, one behind the kernel's consumer, in[4..7];
 *		bits 2-3: tamper the event ring's consumer index: no, 7 ahead
 *		of the producer, 1000 behind, in[4..7]; bit 4: the context
 *		takes IPv6 peers (IXMOD_SETUP_INET6, 64-byte events)
 *	in[1]	bits 0-3: the step (0-15) at which to tamper; the next step
 *		the harness writes honest indices again; bits 4-7: the clock
 *		advances by 8 ms times this per step
 *	in[2..3] seed of the harness's own choices
 *	in[4..7] the value for the "as given" tamperings (little endian)
 *	in[8..]	call entries of 64 bytes; a shorter tail is ignored
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "frames.h"
#include "testnet.h"
#include "udp.h"

#define LOCAL_IP	0xc6120001u	/* 198.18.0.1 */
#define REMOTE_IP	0xc6120002u	/* 198.18.0.2, resolved */
#define CALL_NR		8
#define EVENT_NR	4
#define ARENA_SIZE	4096
#define HDR		8
#define MAX_PENDING	16

static struct {
	struct tn_host		*host;
	struct tn_app		*a;
	u32			pending[MAX_PENDING];	/* RECV_DONEs to send */
	unsigned int		npending;
	bool			lied;		/* about the event consumer index */
	bool			inet6;		/* IXMOD_SETUP_INET6 this input */
	unsigned long long	rng;
} h;

static void check(int ok)
{
	if (!ok)
		abort();
}

static void setup_once(void)
{
	struct tn_host_cfg hc = {
		.ip = LOCAL_IP, .prefix = 24, .mac = our_mac, .nbufs = IXM_RX_SLICE_BUFS,
	};
	struct ixm_tcp_config cfg;
	unsigned int i;

	/* a SYN nobody answers gives up after 10 + 20 + 40 ms */
	ixm_tcp_config_default(&cfg);
	cfg.rto_init_us = 10000;
	cfg.syn_retries = 2;
	hc.tcp = &cfg;
	ixm_host_now_ns = 1000000000ULL;
	h.host = tn_host_new(&hc);
	tn_host_ip6(h.host, our_ip6, 64);
	h.a = tn_app_new(h.host, CALL_NR, EVENT_NR, ARENA_SIZE);
	for (i = 0; i < ARENA_SIZE; i++)
		h.a->arena[i] = (u8)(i * 7 + 1);
}

/* Every frame queued is inside its buffer and well formed; then sent. */
static void tx_check_flush(void)
{
	struct tn_host *host = h.host;
	unsigned int i;

	for (i = 0; i < host->port.ntx; i++) {
		const struct ixm_mbuf *m = host->port.tx[i];

		check(m->pool == &host->pool && !m->owner);
		check(m->data >= m->buf && m->data + m->len <= m->buf + IXM_MBUF_SIZE);
		check(!check_tx(&host->cfg, m));
	}
	tn_tx_flush(host);
}

static void input(const u8 *f, size_t len)
{
	tn_input(h.host, f, len, 0);
}

/*
 * A fresh core and context (rings, sockets, ARP and neighbour tables:
 * REMOTE_IP and peer_ip6 learned), INET6 or not.
 */
static void reset(bool inet6)
{
	ixm_host_now_ns = 1000000000ULL;
	h.a->inet6 = inet6;
	h.a->ev_ext = inet6;
	h.inet6 = inet6;
	tn_host_reset(h.host);
	h.npending = 0;
	h.lied = false;
	tn_learn(h.host, REMOTE_IP, peer_mac);
	tn_learn6(h.host, peer_ip6, peer_mac);
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

/* The same from peer_ip6 to our_ip6, over IPv6. */
static void deliver6(u16 dport, size_t n, bool bad)
{
	static u8 f[2048];
	u8 *u = put_ip6(put_eth(f, our_mac, peer_mac, 0x86dd), peer_ip6, our_ip6, 17,
			(unsigned int)(8 + n), 64);
	u16 ck;
	size_t i;

	put16(u, 5555);
	put16(u + 2, dport);
	put16(u + 4, 8 + n);
	put16(u + 6, 0);
	for (i = 0; i < n; i++)
		u[8 + i] = (u8)(i + n);
	ck = ref_l4_csum6(peer_ip6, our_ip6, 17, u, 8 + n);
	put16(u + 6, (ck ? ck : 0xffff) ^ (bad ? 0x0101 : 0));
	input(f, 14 + 40 + 8 + n);
}

/* The port of the first socket of the context, or 0. */
static u16 bound_port(void)
{
	unsigned int i;

	for (i = 0; i < IXM_UDP_SOCKS; i++)
		if (h.host->udp->socks[i].app == &h.a->app)
			return h.host->udp->socks[i].port;
	return 0;
}

/*
 * @x's extension (zero with 32-byte events): an IPv6 peer's address on
 * an event that says so, zeros anywhere else.
 */
static void check_event(const struct ixmod_event_ext *x)
{
	const struct ixmod_event *ev = &x->ev;

	check(ev->type < IXM_EV_NR);
	if (ev->flags) {
		check(h.inet6 && ev->flags == IXMOD_EVF_INET6 && !x->resv2 && !ev->addr);
		/* a datagram from the peer, or a TCP_CONNECT over IPv6 that failed */
		if (ev->type == IXMOD_EV_UDP_RECV)
			check(!memcmp(x->addr6, peer_ip6, 16));
		else
			check(ev->type == IXMOD_EV_TCP_CONNECTED && x->addr6[0] != 0xff &&
			      !is_ours6(&h.host->cfg, x->addr6));
	} else {
		check(!x->resv[0] && !x->resv[1] && !x->resv[2]);
	}
	switch (ev->type) {
	case IXMOD_EV_UDP_RECV:
		check(!ev->op && !ev->win && ev->res >= 0 && ev->res <= IXM_UDP_PAYLOAD_MAX);
		check(ev->off < IXM_RX_SLICE);
		check(ev->off % IXM_MBUF_SIZE >= IXM_MBUF_HEADROOM);
		check(ev->off % IXM_MBUF_SIZE + (u32)ev->res <= IXM_MBUF_SIZE);
		check((ev->flags || ev->addr == be32_of(REMOTE_IP)) && ev->port == ixm_htons(5555));
		if (h.a->ev_ext)
			check(IXMOD_HANDLE_KIND(x->handle) == IXMOD_HANDLE_UDP);
		break;
	case IXMOD_EV_CALL:
		check(ev->res != IXM_CALL_RETRY && ev->res >= -4095);
		check(!ev->addr && !ev->port && !ev->lport);
		/* a handle only in the answer of a call that makes one */
		if (ev->res || (ev->op != IXMOD_OP_UDP_BIND && ev->op != IXMOD_OP_TCP_LISTEN &&
				ev->op != IXMOD_OP_TCP_CONNECT))
			check(!ev->handle || ev->op == IXMOD_OP_TCP_SENDV);
		else
			check(ixm_handle_gen(ev->handle));
		if (ev->op == IXMOD_OP_UDP_SEND)
			check(ev->res <= IXM_UDP_PAYLOAD_MAX);
		break;
	case IXMOD_EV_TCP_CONNECTED:
	case IXMOD_EV_TCP_DEAD:
		/* no peer answers: a connect can only fail */
		check(ev->res < 0 && !ev->op && ixm_handle_gen(ev->handle));
		break;
	default:
		/* nothing sends TCP segments to the context's connections */
		check(0);
	}
}

/* The application takes up to @k events. */
static void consume(unsigned int k)
{
	const u8 *e = h.a->events + IXM_RING_OFF_ENTRIES;
	size_t esize = h.a->ev_ext ? sizeof(struct ixmod_event_ext) : sizeof(struct ixmod_event);
	u32 prod = __atomic_load_n(tn_ring_word(h.a->events, IXM_RING_OFF_PROD), __ATOMIC_ACQUIRE);

	/*
	 * A consumer index that lied within range lets the kernel overwrite
	 * events the application had not read: its own loss, nothing more.
	 */
	if (prod - h.a->event_cons > EVENT_NR) {
		check(h.lied);
		h.a->event_cons = prod - EVENT_NR;
	}
	while (k-- && prod != h.a->event_cons) {
		struct ixmod_event_ext x;

		memset(&x, 0, sizeof(x));
		memcpy(&x, e + (h.a->event_cons & (EVENT_NR - 1)) * esize, esize);
		check_event(&x);
		if (x.ev.type == IXMOD_EV_UDP_RECV && h.npending < MAX_PENDING &&
		    ref_rand(&h.rng) % 4)
			h.pending[h.npending++] = x.ev.off;
		h.a->event_cons++;
	}
	__atomic_store_n(tn_ring_word(h.a->events, IXM_RING_OFF_CONS), h.a->event_cons, __ATOMIC_RELEASE);
}

/* Publish calls: the harness's RECV_DONEs first, then the input's. */
static void submit(const u8 **calls, size_t *ncalls, unsigned int want)
{
	struct ixmod_call *e = (struct ixmod_call *)(h.a->calls + IXM_RING_OFF_ENTRIES);
	u32 cons = __atomic_load_n(tn_ring_word(h.a->calls, IXM_RING_OFF_CONS), __ATOMIC_ACQUIRE);

	/* after a lie, the kernel may have consumed past what we wrote */
	if ((s32)(cons - h.a->call_prod) > 0)
		h.a->call_prod = cons;
	while (want-- && h.a->call_prod - cons < CALL_NR) {
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
		e[h.a->call_prod & (CALL_NR - 1)] = c;
		h.a->call_prod++;
	}
	__atomic_store_n(tn_ring_word(h.a->calls, IXM_RING_OFF_PROD), h.a->call_prod, __ATOMIC_RELEASE);
}

static void tamper(u8 ctl, u32 val)
{
	u32 *cprod = tn_ring_word(h.a->calls, IXM_RING_OFF_PROD);
	u32 *econs = tn_ring_word(h.a->events, IXM_RING_OFF_CONS);
	u32 eprod = *tn_ring_word(h.a->events, IXM_RING_OFF_PROD);

	switch (ctl & 3) {
	case 1:
		*cprod = h.a->app.calls.cached + 100000;
		break;
	case 2:
		*cprod = h.a->app.calls.cached - 1;
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
	const struct tn_host *host = h.host;
	u32 flags = *tn_ring_word(h.a->events, IXM_RING_OFF_FLAGS);

	check(ran <= budget && ran <= CALL_NR);
	check(host->pool.nfree + h.a->app.stats.rx_bufs + host->port.ntx == host->pool.count);
	check(h.a->app.hold_count <= h.a->app.hold_nr);
	check(!!(flags & IXMOD_RING_OVERFLOW) == !!h.a->app.hold_count);
	check(h.a->app.events.cached - h.a->event_cons <= EVENT_NR || h.lied);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	static bool ready;
	unsigned int step, steps, budget, ran, i, owned;
	struct tn_host *host;
	u64 tick;
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
	ctl = in[0];
	reset(ctl & 0x10);
	host = h.host;
	tick = (u64)(in[1] >> 4) * 8000000ULL;
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

			if (r & (1ULL << 40))
				deliver6(port && r % 4 ? port : (u16)(r >> 16), (r >> 8) % 80,
					 r % 16 == 0);
			else
				deliver(port && r % 4 ? port : (u16)(r >> 16), (r >> 8) % 80,
					r % 16 == 0);
		}
		budget = 1 + ref_rand(&h.rng) % 6;
		tn_host_begin(host);
		ran = ixm_app_run_calls(&h.a->app, budget);
		consumed += ran;
		check_step(ran, budget);
		/* TCP's timers: SYNs nobody answers are sent again, then give up */
		ixm_host_now_ns += tick;
		tn_host_begin(host);
		ixm_tcp_poll(&host->stack);
		check_step(ran, budget);
		tx_check_flush();
		ixm_app_flush(&h.a->app);
		check_step(ran, budget);
		/* held only while the ring is full (or its consumer lies) */
		check(!h.a->app.hold_count ||
		      h.a->app.events.cached - *tn_ring_word(h.a->events, IXM_RING_OFF_CONS) >= EVENT_NR);
		consume(ref_rand(&h.rng) % 6);
	}
	check(h.a->app.stats.calls == consumed);

	/* the application is honest again and reads what is left */
	submit(&calls, &ncalls, 0);
	for (i = 0; i < 2 * EVENT_NR + 2; i++) {
		ixm_app_flush(&h.a->app);
		consume(EVENT_NR);
	}
	check(!h.a->app.hold_count);

	owned = 0;
	for (i = 0; i < host->pool.count; i++)
		owned += host->mbufs[i].owner == &h.a->app;
	check(owned == h.a->app.stats.rx_bufs);
	ixm_app_release_all(&h.a->app);
	tx_check_flush();
	check(host->pool.nfree == host->pool.count && !h.a->app.stats.rx_bufs &&
	      !host->udp->count);
	for (i = 0; i < host->pool.count; i++)
		check(!host->mbufs[i].owner);
	check(!bound_port());
	/* every connection and listener of the context went with it */
	check(!host->tcp->stats.conns && !host->tcp->stats.established);
	for (i = 0; i < IXM_TCP_LISTENERS; i++)
		check(!host->tcp->listeners[i].app);
	return 0;
}
