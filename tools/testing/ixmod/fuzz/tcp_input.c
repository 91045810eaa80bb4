// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_input.c - libFuzzer target for TCP segment arrival, over IPv4 and
 * IPv6, with calls and time in between
 *
 * One host (testnet.h: 198.18.0.1 and 2001:db8::1/64, a context on its
 * core set up with IXMOD_SETUP_INET6, the neighbour 198.18.0.2 and
 * 2001:db8::2 resolved) that listens on port 80 and has four established
 * connections with the neighbour, two of each family on the same ports: a
 * passive one (80 <- 40000) and an active one (an ephemeral port -> 9000),
 * all opened by a handshake the harness plays.  Then the input is a series
 * of records: TCP segments (arbitrary header, options and payload, wrapped
 * in a valid Ethernet/IPv4 or Ethernet/IPv6 header, with the TCP checksum
 * made right and the sequence numbers placed near the connection's own
 * unless the record says otherwise), calls of the context, and time
 * passing.  After every record:
 *
 *  - every buffer is accounted for: free in the pool, queued for
 *    transmission, or held by a connection (delivered or out of order);
 *  - every frame queued is well formed, TCP checksum included, over
 *    either family (frames.h check_tx()), and lies inside its buffer;
 *  - no frame mixes families: every TCP frame goes from our address to the
 *    neighbour's of its own family; one sent while a segment is taken in
 *    (before the host's iteration) is the segment's family, addresses and
 *    ports reversed; any other is for a 4-tuple of its family that a
 *    connection held before the record or holds after it;
 *  - every connection is keyed by its family's addresses: an IPv4 one by
 *    198.18.0.1 and .2, an IPv6 one (IXM_TCPF_INET6) by 2001:db8::1 and
 *    ::2 with no IPv4 local address;
 *  - every event is well formed: a TCP_RECV names bytes inside one
 *    buffer of the receive slice, no connection gets a second TCP_DEAD;
 *    only a TCP_KNOCK or TCP_CONNECTED has a flag, IXMOD_EVF_INET6, and
 *    then addr 0 and addr6 2001:db8::2 (for a connection over IPv6, or
 *    the harness's last IPv6 connect), else addr 198.18.0.2 and the
 *    extension's address words 0; the extended handle names the
 *    connection;
 *  - established <= conns;
 *  - a SACK connection's scoreboard adds up: its segments are in order,
 *    contiguous, inside [SND.UNA, SND.MAX], and the SACKed, lost and
 *    resent byte counts are what its segments' flags say;
 *  - a path MTU a Packet Too Big set is 1280-1499, the MSS within it, and
 *    every segment of that connection fits it.
 *
 * At the end the context closes (ixm_app_release_all()): every buffer is
 * back in the pool and owned by nobody, and no connection is left.
 *
 * Input layout:
 *
 *	in[0]	bit 0: timestamps on every handshake; bit 1: window scale;
 *		bit 2: SYN cookies always (else when the backlog is full);
 *		bits 3-4: receive buffer 4 KiB << 2n; bits 5-7: the MSS the
 *		peer's SYNs and SYN-ACKs name, from handshake_mss[]
 *	in[1..]	records:
 *	  0x00-0x7f  a segment; the byte's bits 0-1: to the passive
 *		connection, the listener, the active connection, or ports as
 *		given; bit 2: seq = that connection's RCV.NXT + the s16 in
 *		header bytes 6-7; bit 3: ack = its SND.UNA + the s16 in bytes
 *		10-11; bit 4: the TCP checksum as given; bit 5: the NIC says
 *		the L4 checksum is good; bit 6: over IPv6 (2001:db8::2 to
 *		::1, the IPv6 connections) instead of IPv4.  Then a u16
 *		(little endian) n and n bytes: the TCP header and payload
 *		(cut to what is left, at most 1480 over IPv4, 1460 over IPv6)
 *	  0x80-0xbf  a call; bits 0-2 pick it, bit 3: on the IPv6
 *		connections (a new active one: over IPv6); the next byte is
 *		its argument; but with bits 4-5 both set (0xb0-0xbf):
 *	  0xb0-0xbf  an ICMPv6 error from a router (2001:db8::fe) quoting a
 *		segment of an IPv6 connection: bit 0: Packet Too Big, else
 *		Destination Unreachable; bit 1: the active connection's, else
 *		the passive one's; bit 2: the quote's addresses swapped (not
 *		from us); bit 3: the quote cut as the last byte says.  Then 8
 *		bytes: the code, the 32-bit MTU or unused field (big endian),
 *		an s16 (little endian) added to the connection's SND.UNA for
 *		the quoted sequence number, the quote's TCP bytes (mod 61)
 *	  0xc0-0xff  (bits 0-5 + 1) * 4 ms pass, then the host's iteration
 *
 * The host serves one queue of a port of two (its Toeplitz key, the
 * port's ICMPv6 mailboxes, net/icmp6_relay.h): the queue the quoted
 * 4-tuple of an error about no connection (a dead one's: ports 80 and
 * 40000) does not hash to, so such an error is handed to the other
 * queue's core (tcp_icmp_handed, or tcp_icmp_hand_full after 16 that
 * were not taken).  Before each iteration the host plays that core too,
 * on its own table: it drains the other mailbox (ixm_tcp_icmp6_relay_drain()),
 * where an error finds a connection only if one with that 4-tuple was
 * opened since.  No mailbox ever holds more than it can.
 *
 * The TCP timers are short (RTO 10-400 ms, TIME_WAIT 300 ms, keepalive
 * 500 ms) so that a few records of time reach every one of them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "icmp6_relay.h"
#include "testnet.h"
#include "toeplitz.h"

#define H_IP		TN_IP(1)
#define P_IP		TN_IP(2)
#define LPORT		80
#define PPORT		40000
#define APORT		9000
#define ARENA		65536
#define EVENT_NR	64
#define MAX_TCP		1480		/* over IPv4; 20 bytes less over IPv6 */
#define MAX_DEAD	64

/* A TCP 4-tuple's family and ports, as the connection sees them. */
#define TUPLE(v6, lport, rport)	((u64)!!(v6) << 32 | (u64)(lport) << 16 | (rport))
#define TUPLE_NONE		(~0ULL)

static struct {
	struct tn_host		*host;
	struct tn_app		*a;
	u64			lh;		/* the listener */
	u64			ph;		/* the passive connection */
	u64			ah;		/* the active connection */
	u64			ph6;		/* ... over IPv6 */
	u64			ah6;
	u16			aport;		/* the active ones' local ports */
	u16			aport6;
	u64			knock;		/* the last knock's handle */
	u32			synack;		/* ISN of the last SYN-ACK sent */
	u64			dead[MAX_DEAD];	/* handles that got TCP_DEAD */
	unsigned int		ndead;
	u32			tsval;
	u16			mss;		/* the peer's MSS option */
	/* the connections' 4-tuples before the record and after it */
	u64			was[IXM_TCP_CONNS];
	u32			nwas;
	u64			now[IXM_TCP_CONNS];
	u32			nnow;
	u64			in_tuple;	/* the record's segment, reversed */
	struct ixm_icmp6_relay	*relay;		/* the port's, of two queues */
	u16			q;		/* the host's queue */
} h;

/* Microsoft's RSS verification key: not symmetric */
static const u8 rss_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* MSS options of the handshakes: the usual one, the ones that wrapped (issue 15) */
static const u16 handshake_mss[8] = { 1460, 1, 11, 12, 0, 13, 536, 65535 };

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

static struct ixm_tcp_conn *conn_of(u64 handle)
{
	u32 idx = ixm_handle_idx(handle);
	struct ixm_tcp_conn *c;

	if (idx >= IXM_TCP_CONNS)
		return NULL;
	c = &h.host->tcp->conns[idx];
	return c->gen == ixm_handle_gen(handle) && c->app ? c : NULL;
}

static bool conn_v6(const struct ixm_tcp_conn *c)
{
	return c->flags & IXM_TCPF_INET6;
}

/* The scoreboard of a SACK connection (tcp_sack.c) adds up. */
static void check_scoreboard(const struct ixm_tcp_conn *c)
{
	u32 i, bytes = 0, sacked = 0, lost = 0, rxt = 0, next = c->snd_una;

	check(c->seg_count <= IXM_TCP_TXSEGS && c->seg_head < IXM_TCP_TXSEGS);
	for (i = 0; i < c->seg_count; i++) {
		const struct ixm_tcp_txseg *r = &c->segs[(c->seg_head + i) % IXM_TCP_TXSEGS];

		check(r->len && r->seq == next);
		next += r->len;
		bytes += r->len;
		if (r->flags & IXM_TXSEG_SACKED) {
			sacked += r->len;
			continue;
		}
		if (r->flags & IXM_TXSEG_LOST)
			lost += r->len;
		if (r->flags & IXM_TXSEG_RETRANS)
			rxt += r->len;
	}
	check(!c->seg_count || ixm_seq_leq(next, c->snd_max));
	check(bytes == c->seg_bytes && sacked == c->sacked_bytes &&
	      lost == c->lost_bytes && rxt == c->rxt_bytes);
}

/* A connection is keyed by its own family's addresses, ours and the peer's. */
static void check_keys(const struct ixm_tcp_conn *c)
{
	if (conn_v6(c))
		check(!c->laddr && !memcmp(c->laddr6.s6, our_ip6, 16) &&
		      !memcmp(c->raddr6.s6, peer_ip6, 16));
	else
		check(c->laddr == be32_of(H_IP) && c->raddr == be32_of(P_IP));
}

/*
 * Buffers: free + queued + held by connections == all of them.  Every
 * connection's keys, and its 4-tuple noted in h.now.
 */
static void check_buffers(void)
{
	const struct tn_host *host = h.host;
	u64 held = 0, seen = 0;
	u32 i;

	h.nnow = 0;
	/* slots are taken from the low end; stop after the last one in use */
	for (i = 0; i < IXM_TCP_CONNS && seen < host->tcp->stats.conns; i++) {
		const struct ixm_tcp_conn *c = &host->tcp->conns[i];

		if (c->app) {
			held += c->rcv_bufs;
			seen++;
			if (c->flags & IXM_TCPF_SACK)
				check_scoreboard(c);
			check(!c->pmtu || (c->pmtu >= 1280 && c->pmtu < 1500 &&
					   c->mss <= c->pmtu - 60));
			check_keys(c);
			h.now[h.nnow++] = TUPLE(conn_v6(c), ixm_ntohs(c->lport),
						ixm_ntohs(c->rport));
		}
	}
	check(seen == host->tcp->stats.conns);
	check(host->pool.nfree + host->port.ntx + held == host->pool.count);
	check(h.a->app.stats.rx_bufs <= held);
	check(host->tcp->stats.established <= host->tcp->stats.conns);
}

static bool tuple_in(u64 tuple, const u64 *set, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (set[i] == tuple)
			return true;
	return false;
}

/*
 * The TCP segment of a frame, either family, its addresses checked (ours
 * to the neighbour's); false if the frame is not TCP.
 */
static bool tx_tcp(const u8 *f, size_t len, struct tcp_seg *s)
{
	if (get16(f + 12) == 0x0800 && len >= 14 + 20 && f[23] == 6) {
		check(!tcp_parse(f, len, s));
		check(s->src == H_IP && s->dst == P_IP);
		return true;
	}
	if (get16(f + 12) == 0x86dd && len >= 14 + 40 && f[20] == 6) {
		check(!tcp_parse6(f, len, s));
		check(!memcmp(s->src6, our_ip6, 16) && !memcmp(s->dst6, peer_ip6, 16));
		return true;
	}
	return false;
}

static void check_tx_flush(void)
{
	struct tn_host *host = h.host;
	unsigned int i;

	for (i = 0; i < host->port.ntx; i++) {
		const struct ixm_mbuf *m = host->port.tx[i];
		static u8 f[IXM_MBUF_SIZE];
		struct tcp_seg s;
		size_t len;
		u64 tuple;

		check(m->pool == &host->pool && !m->owner);
		check(m->data >= m->buf && m->data + m->len <= m->buf + IXM_MBUF_SIZE);
		check(!check_tx(&host->cfg, m));
		len = frame_gather(m, f, sizeof(f));
		/* whatever MSS the peer named: inside the MTU, no warning */
		check(len <= 14 + 1500 && !ixm_host_warnings);
		if (!tx_tcp(f, len, &s))
			continue;
		if (s.v6) {
			const struct ixm_tcp_conn *cn;

			cn = ixm_tcp_lookup6(host->tcp, (const struct ixm_in6_addr *)our_ip6,
					     ixm_htons(s.sport),
					     (const struct ixm_in6_addr *)peer_ip6,
					     ixm_htons(s.dport));
			check(!cn || !cn->pmtu || len - 14 <= cn->pmtu);
		}
		/* for a 4-tuple of its family: a connection's, or the segment's */
		tuple = TUPLE(s.v6, s.sport, s.dport);
		check(tuple == h.in_tuple || tuple_in(tuple, h.was, h.nwas) ||
		      tuple_in(tuple, h.now, h.nnow));
		if (s.flags == (TH_SYN | TH_ACK))
			h.synack = s.seq;
	}
	tn_tx_flush(host);
}

/* The record is over: what the table holds now is what it held before the next. */
static void record_done(void)
{
	memcpy(h.was, h.now, h.nnow * sizeof(h.now[0]));
	h.nwas = h.nnow;
	h.in_tuple = TUPLE_NONE;
}

/* TCP_KNOCK and TCP_CONNECTED name the peer of the connection's family. */
static void check_peer(const struct ixmod_event_ext *x)
{
	const struct ixmod_event *ev = &x->ev;
	const struct ixm_tcp_conn *c = conn_of(ev->handle);
	bool v6 = ev->flags & IXMOD_EVF_INET6;

	check(ev->flags == (v6 ? IXMOD_EVF_INET6 : 0));
	check(x->handle == ev->handle && ixm_handle_gen(ev->handle));
	if (v6)
		check(!ev->addr && !memcmp(x->addr6, peer_ip6, 16) && !x->resv2);
	else
		check(ev->addr == be32_of(P_IP) && !x->resv[0] && !x->resv[1] &&
		      !x->resv[2]);
	if (c)
		check(conn_v6(c) == v6 && c->lport == ev->lport && c->rport == ev->port);
	if (ev->type == IXMOD_EV_TCP_KNOCK)
		check(ev->lport == ixm_htons(LPORT));
	if (ev->type == IXMOD_EV_TCP_CONNECTED && (ev->handle == h.ah || ev->handle == h.ah6))
		check(v6 == (ev->handle == h.ah6));
}

/* Every event the context has, checked; the handle of the last call that succeeded. */
static u64 consume(void)
{
	struct ixmod_event_ext x;
	const struct ixmod_event *ev = &x.ev;
	u64 handle = 0;
	unsigned int i;

	while (tn_app_event_ext(h.a, &x)) {
		check(ev->type < IXM_EV_NR);
		if (ev->type != IXMOD_EV_TCP_KNOCK && ev->type != IXMOD_EV_TCP_CONNECTED)
			check(!ev->flags && !x.resv[0] && !x.resv[1] && !x.resv[2]);
		if (ev->type != IXMOD_EV_CALL)
			check(ixm_handle_gen(x.handle));
		switch (ev->type) {
		case IXMOD_EV_TCP_RECV:
			check(ev->res >= 0 && ev->res <= IXM_MBUF_DATA_MAX);
			check(!ev->res || tn_rx_ptr(h.host, ev->off, (u32)ev->res));
			check(!ev->res || ev->off % IXM_MBUF_SIZE >= IXM_MBUF_HEADROOM);
			break;
		case IXMOD_EV_TCP_KNOCK:
			check_peer(&x);
			h.knock = ev->handle;
			break;
		case IXMOD_EV_TCP_DEAD:
			check(x.handle == ev->handle);
			for (i = 0; i < h.ndead; i++)
				check(h.dead[i] != ev->handle);
			if (h.ndead < MAX_DEAD)
				h.dead[h.ndead++] = ev->handle;
			check(ev->res <= 0);
			break;
		case IXMOD_EV_TCP_CONNECTED:
			check_peer(&x);
			check(ev->res <= 0);
			break;
		case IXMOD_EV_TCP_SENT:
			check(ev->res >= 0);
			break;
		case IXMOD_EV_CALL:
			check(ev->res >= -4095 && ev->res != IXM_CALL_RETRY);
			if (!ev->res)
				handle = ev->handle;
			break;
		default:
			check(0);
		}
	}
	return handle;
}

/*
 * The other queue's core: what the host handed it, acted on against the
 * host's own table (the port's mailboxes never overflow).
 */
static void other_core(void)
{
	struct ixm_net_port *np = &h.host->port;
	unsigned int q;

	for (q = 0; q < 2; q++)
		check(h.relay->box[q].count <= IXM_ICMP6_RELAY_SLOTS);
	check(!h.relay->box[h.q].count);
	np->rss_q = 1 - h.q;
	ixm_tcp_icmp6_relay_drain(np);
	np->rss_q = h.q;
}

/* The host's iteration, then every check; the handle of a call that succeeded. */
static u64 run(void)
{
	u64 handle;

	other_core();
	tn_host_run(h.host);
	check_buffers();
	check_tx_flush();
	handle = consume();
	check_buffers();
	record_done();
	return handle;
}

/*
 * Put Ethernet and the IP header of @v6's family, from the neighbour to
 * us, for @n bytes of TCP at the returned place.
 */
static u8 *put_l3(u8 *f, bool v6, size_t n)
{
	struct iph_args ip = {
		.id = 7, .frag = 0x4000, .ttl = 64, .proto = 6, .src = P_IP, .dst = H_IP,
	};

	if (v6)
		return put_ip6(put_eth(f, our_mac, peer_mac, 0x86dd), peer_ip6, our_ip6, 6,
			       (unsigned int)n, 64);
	return put_ip(put_eth(f, our_mac, peer_mac, 0x0800), &ip, (unsigned int)n);
}

static u16 tcp_csum(bool v6, const u8 *t, size_t n)
{
	if (v6)
		return ref_l4_csum6(peer_ip6, our_ip6, 6, t, n);
	return ref_l4_csum(P_IP, H_IP, 6, t, n);
}

/*
 * Hand the frame of @n bytes of TCP at @t to the host.  Every TCP frame it
 * sends while taking the segment in is of the segment's family, between
 * the same addresses and ports (tx_tcp() checks the addresses).
 */
static void input(const u8 *f, bool v6, const u8 *t, size_t n, u16 flags)
{
	struct tn_host *host = h.host;
	static u8 g[IXM_MBUF_SIZE];
	unsigned int i;

	check(!host->port.ntx);
	if (n >= 4)
		h.in_tuple = TUPLE(v6, get16(t + 2), get16(t));
	tn_input(host, f, (size_t)(t - f) + n, flags);
	for (i = 0; i < host->port.ntx; i++) {
		size_t len = frame_gather(host->port.tx[i], g, sizeof(g));
		struct tcp_seg s;

		if (len && tx_tcp(g, len, &s))
			check(TUPLE(s.v6, s.sport, s.dport) == h.in_tuple);
	}
}

/* A segment from the peer with the usual fields (handshakes). */
static void seg(bool v6, u16 sport, u16 dport, u32 seq, u32 ack, u8 flags, u8 setup)
{
	u8 f[14 + 40 + 60], o[40];
	size_t olen = 0, n;
	u8 *t;

	if (flags & TH_SYN) {
		olen += tcpopt_mss(o, h.mss);
		if (setup & 2)
			olen += tcpopt_wscale(o + olen, 7);
		olen += tcpopt_sack_ok(o + olen);
	}
	if (setup & 1)
		olen += tcpopt_ts(o + olen, h.tsval++, 0);
	n = 20 + olen;
	t = put_l3(f, v6, n);
	memset(t, 0, 20);
	put16(t, sport);
	put16(t + 2, dport);
	put32(t + 4, seq);
	put32(t + 8, ack);
	t[12] = (u8)(n / 4 << 4);
	t[13] = flags;
	put16(t + 14, 65535);
	memcpy(t + 20, o, olen);
	put16(t + 16, tcp_csum(v6, t, n));
	input(f, v6, t, n, 0);
	run();
}

static u64 call(const struct ixmod_call *c)
{
	tn_app_submit(h.a, c);
	return run();
}

/* TCP_CONNECT to the neighbour's port @port, over IPv6 or not. */
static struct ixmod_call connect_to(bool v6, u16 port)
{
	struct ixmod_call c = tn_call_connect(v6 ? 0 : P_IP, port, 0xa0);

	if (v6) {
		c.flags = IXMOD_CALL_F_INET6;
		memcpy(c.addr6, peer_ip6, 16);
	}
	return c;
}

/* A passive connection by a handshake: its handle (the knock accepted). */
static u64 passive(bool v6, u32 isn, u8 s)
{
	struct ixmod_call c;

	h.synack = 0;
	seg(v6, PPORT, LPORT, isn, 0, TH_SYN, s);
	seg(v6, PPORT, LPORT, isn + 1, h.synack + 1, TH_ACK, s);
	c = tn_call_accept(h.knock, 0xc0);
	call(&c);
	return h.knock;
}

/* An active connection, answered by a SYN-ACK: its handle and local port. */
static u64 active(bool v6, u32 isn, u8 s, u16 *lport)
{
	struct ixmod_call c = connect_to(v6, APORT);
	struct ixm_tcp_conn *cn;
	u64 handle;

	handle = call(&c);
	cn = conn_of(handle);
	*lport = cn ? ixm_ntohs(cn->lport) : 0;
	seg(v6, APORT, *lport, isn, cn ? cn->iss + 1 : 0, TH_SYN | TH_ACK, s);
	return handle;
}

/* The listener, the passive and the active connections, all by handshakes. */
static void setup(u8 s)
{
	struct ixm_tcp_config cfg;
	struct ixmod_call c;

	ixm_tcp_config_default(&cfg);
	cfg.syncookies = s & 4 ? 2 : 1;
	cfg.rcv_buf = 4096u << (2 * ((s >> 3) & 3));
	/*
	 * Every timer short, so that a few time records reach them: the
	 * wheel's work grows with the time that passes.
	 */
	cfg.rto_min_us = 10000;
	cfg.rto_init_us = 50000;
	cfg.rto_max_us = 400000;
	cfg.tw_ns = 300000000ULL;
	cfg.keepalive_ns = 500000000ULL;
	cfg.retries = 4;
	cfg.syn_retries = 3;
	h.host->tcp_cfg = cfg;
	ixm_host_now_ns = 1000000000000ULL;
	tn_host_reset(h.host);
	/* NewReno, DCTCP or CUBIC (IXM_CC_*), each with every MSS but one */
	h.host->cfg.cc = (s >> 5) % 3;
	ixm_icmp6_relay_free(h.relay);
	h.relay = ixm_icmp6_relay_alloc(2, NULL, NULL);
	check(!!h.relay);
	h.q = 1 - ixm_rss_queue(ixm_toeplitz_ipv6_l4(rss_key, peer_ip6, our_ip6,
						     ixm_htons(PPORT), ixm_htons(LPORT)), 2);
	h.host->port.rss_key = rss_key;
	h.host->port.rss_nq = 2;
	h.host->port.rss_q = h.q;
	h.host->port.relay = h.relay;
	tn_learn(h.host, P_IP, peer_mac);
	tn_learn6(h.host, peer_ip6, peer_mac);
	h.ndead = 0;
	h.knock = 0;
	h.tsval = 100;
	h.mss = handshake_mss[s >> 5];
	h.nwas = 0;
	h.nnow = 0;
	h.in_tuple = TUPLE_NONE;
	h.ah = 0;
	h.ah6 = 0;

	c = tn_call_listen(LPORT, 4, 0x11);
	h.lh = call(&c);
	h.ph = passive(false, 0x70000000u, s);
	h.ah = active(false, 0x30000000u, s, &h.aport);
	h.ph6 = passive(true, 0x50000000u, s);
	h.ah6 = active(true, 0x10000000u, s, &h.aport6);
}

/* A record's segment: the fields it asks to place, the rest as given. */
static size_t segment(u8 ctl, const u8 *in, size_t left)
{
	static u8 f[14 + 40 + MAX_TCP];
	bool v6 = ctl & 64;
	struct ixm_tcp_conn *cn;
	size_t n, used;
	u8 *t;

	if (left < 2)
		return left;
	n = (size_t)in[0] | (size_t)in[1] << 8;
	used = 2;
	if (n > left - used)
		n = left - used;
	if (n > MAX_TCP - (v6 ? 20 : 0))
		n = MAX_TCP - (v6 ? 20 : 0);
	t = put_l3(f, v6, n);
	memcpy(t, in + used, n);
	used += n;
	if ((ctl & 3) == 2)
		cn = conn_of(v6 ? h.ah6 : h.ah);
	else
		cn = conn_of(v6 ? h.ph6 : h.ph);
	if (n >= 4) {
		switch (ctl & 3) {
		case 0:
			put16(t, PPORT);
			put16(t + 2, LPORT);
			break;
		case 1:
			put16(t + 2, LPORT);
			break;
		case 2:
			put16(t, APORT);
			put16(t + 2, v6 ? h.aport6 : h.aport);
			break;
		}
	}
	if (n >= 8 && (ctl & 4) && cn)
		put32(t + 4, cn->rcv_nxt + (u32)(s32)(s16)get16(t + 6));
	if (n >= 12 && (ctl & 8) && cn)
		put32(t + 8, cn->snd_una + (u32)(s32)(s16)get16(t + 10));
	if (n >= 18 && !(ctl & 16)) {
		put16(t + 16, 0);
		put16(t + 16, tcp_csum(v6, t, n));
	}
	input(f, v6, t, n, ctl & 32 ? IXM_MBUF_F_L4_CSUM_OK : 0);
	run();
	return used;
}

/* A record's ICMPv6 error (the layout above); return: the bytes it used. */
static size_t icmp6_err(u8 ctl, const u8 *in, size_t left)
{
	static const u8 router[16] = TN_ROUTER6;
	static u8 f[14 + 40 + 8 + 40 + 60];
	const struct ixm_tcp_conn *cn = conn_of(ctl & 2 ? h.ah6 : h.ph6);
	u8 b[8] = { 0 }, *ip6 = f + 14, *msg = ip6 + 40, *q = msg + 8, *t = q + 40;
	size_t used = left < 8 ? left : 8, qlen;

	memcpy(b, in, used);
	qlen = ctl & 8 ? b[7] % 61 : 20;
	put_ip6(put_eth(f, our_mac, peer_mac, 0x86dd), router, our_ip6, 58,
		(unsigned int)(8 + 40 + qlen), 255);
	msg[0] = ctl & 1 ? 2 : 1;
	msg[1] = b[0];
	put32(msg + 4, get32(b + 1));
	put_ip6(q, ctl & 4 ? peer_ip6 : our_ip6, ctl & 4 ? our_ip6 : peer_ip6, 6, 20, 64);
	memset(t, 0, 20);
	put16(t, cn ? ixm_ntohs(cn->lport) : LPORT);
	put16(t + 2, cn ? ixm_ntohs(cn->rport) : PPORT);
	put32(t + 4, (cn ? cn->snd_una : 0) + (u32)(s32)(s16)(b[5] | b[6] << 8));
	t[12] = 5 << 4;
	t[13] = TH_ACK;
	fix_icmp6_csum(ip6, msg, 8 + 40 + qlen);
	tn_input(h.host, f, 14 + 40 + 8 + 40 + qlen, 0);
	run();
	return used;
}

static void do_call(u8 op, bool v6, u8 arg)
{
	struct ixmod_iov *iov = (struct ixmod_iov *)(h.a->arena + ARENA - 64);
	u64 ch = arg & 0x80 ? (v6 ? h.ah6 : h.ah) : (v6 ? h.ph6 : h.ph);
	u16 *aport = v6 ? &h.aport6 : &h.aport;
	struct ixm_tcp_conn *cn;
	struct ixmod_call c;
	u64 handle;

	switch (op) {
	case 0:		/* SENDV of arg * 37 bytes */
		iov->off = arg;
		iov->len = (u32)(arg & 0x7f) * 37;
		c = tn_call_sendv(ch, ARENA - 64, 1, 1);
		break;
	case 1:		/* RECV_DONE: all it was given, or arg * 16 */
		cn = conn_of(ch);
		c = tn_call_recv_done(ch, (arg & 0x7f) == 0x7f && cn ? cn->rcv_given :
				      (u32)(arg & 0x7f) * 16);
		break;
	case 2:
		c = tn_call_close(ch, false);
		break;
	case 3:
		c = tn_call_close(ch, true);
		break;
	case 4:
		c = tn_call_accept(h.knock, arg);
		break;
	case 5:		/* a new active connection, answered or not by later records */
		c = connect_to(v6, APORT);
		handle = call(&c);
		if (v6)
			h.ah6 = handle;
		else
			h.ah = handle;
		cn = conn_of(handle);
		*aport = cn ? ixm_ntohs(cn->lport) : *aport;
		return;
	case 6:		/* close the listener, or listen again */
		if (h.lh) {
			c = tn_call_close(h.lh, false);
			call(&c);
			h.lh = 0;
			return;
		}
		c = tn_call_listen(LPORT, 1 + (arg & 7), 0x11);
		h.lh = call(&c);
		return;
	default:	/* a handle that is not quite one */
		c = tn_call_sendv(ch ^ ((u64)arg << (arg & 32)), ARENA - 64, 1, 2);
		iov->off = ARENA;
		iov->len = arg;
		break;
	}
	call(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	static bool ready;
	size_t pos = 1;
	u32 i;

	if (size < 1)
		return 0;
	if (!ready) {
		struct tn_host_cfg hc = { .ip = H_IP, .mac = our_mac, .seed = 11 };

		ixm_host_now_ns = 1000000000000ULL;
		h.host = tn_host_new(&hc);
		tn_host_ip6(h.host, our_ip6, 64);
		h.a = tn_app_new(h.host, 16, EVENT_NR, ARENA);
		tn_app_set_inet6(h.a, true);
		ready = true;
	}
	setup(in[0]);
	while (pos < size) {
		u8 r = in[pos++];

		if (r < 0x80) {
			pos += segment(r, in + pos, size - pos);
		} else if ((r & 0xf0) == 0xb0) {
			pos += icmp6_err(r, in + pos, size - pos);
		} else if (r < 0xc0) {
			do_call(r & 7, r & 8, pos < size ? in[pos] : 0);
			pos++;
		} else {
			ixm_host_now_ns += ((u64)(r & 0x3f) + 1) * 4000000ULL;
			run();
		}
	}

	/* the context closes: everything comes back */
	ixm_app_release_all(&h.a->app);
	check_tx_flush();
	check(h.host->pool.nfree == h.host->pool.count);
	for (i = 0; i < h.host->pool.count; i++)
		check(!h.host->mbufs[i].owner);
	check(!h.host->tcp->stats.conns && !h.host->tcp->stats.established);
	return 0;
}
