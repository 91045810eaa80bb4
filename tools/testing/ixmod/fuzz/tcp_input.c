// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_input.c - libFuzzer target for TCP segment arrival, with calls and
 * time in between
 *
 * One host (testnet.h: 198.18.0.1, a context on its core, the neighbour
 * 198.18.0.2 resolved) that listens on port 80 and has two established
 * connections with 198.18.0.2: a passive one (80 <- 40000) and an active
 * one (an ephemeral port -> 9000), both opened by a handshake the harness
 * plays.  Then the input is a series of records: TCP segments (arbitrary
 * header, options and payload, wrapped in a valid Ethernet/IPv4 header,
 * with the TCP checksum made right and the sequence numbers placed near
 * the connection's own unless the record says otherwise), calls of the
 * context, and time passing.  After every record:
 *
 *  - every buffer is accounted for: free in the pool, queued for
 *    transmission, or held by a connection (delivered or out of order);
 *  - every frame queued is well formed, TCP checksum included
 *    (frames.h check_tx()), and lies inside its buffer;
 *  - every event is well formed: a TCP_RECV names bytes inside one
 *    buffer of the receive slice, no connection gets a second TCP_DEAD;
 *  - established <= conns;
 *  - a SACK connection's scoreboard adds up: its segments are in order,
 *    contiguous, inside [SND.UNA, SND.MAX], and the SACKed, lost and
 *    resent byte counts are what its segments' flags say.
 *
 * At the end the context closes (ixm_app_release_all()): every buffer is
 * back in the pool and owned by nobody, and no connection is left.
 *
 * Input layout:
 *
 *	in[0]	bit 0: timestamps on both handshakes; bit 1: window scale;
 *		bit 2: SYN cookies always (else when the backlog is full);
 *		bits 3-4: receive buffer 4 KiB << 2n; bits 5-7: the MSS the
 *		peer's SYN and SYN-ACK name, from handshake_mss[]
 *	in[1..]	records:
 *	  0x00-0x7f  a segment; the byte's bits 0-1: to the passive
 *		connection, the listener, the active connection, or ports as
 *		given; bit 2: seq = that connection's RCV.NXT + the s16 in
 *		header bytes 6-7; bit 3: ack = its SND.UNA + the s16 in bytes
 *		10-11; bit 4: the TCP checksum as given; bit 5: the NIC says
 *		the L4 checksum is good.  Then a u16 (little endian) n and n
 *		bytes: the TCP header and payload (cut to what is left, at
 *		most 1480)
 *	  0x80-0xbf  a call; bits 0-2 pick it, the next byte is its argument
 *	  0xc0-0xff  (bits 0-5 + 1) * 4 ms pass, then the host's iteration
 *
 * The TCP timers are short (RTO 10-400 ms, TIME_WAIT 300 ms, keepalive
 * 500 ms) so that a few records of time reach every one of them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "testnet.h"

#define H_IP		TN_IP(1)
#define P_IP		TN_IP(2)
#define LPORT		80
#define PPORT		40000
#define APORT		9000
#define ARENA		65536
#define EVENT_NR	64
#define MAX_TCP		1480
#define MAX_DEAD	64

static struct {
	struct tn_host		*host;
	struct tn_app		*a;
	u64			lh;		/* the listener */
	u64			ph;		/* the passive connection */
	u64			ah;		/* the active connection */
	u16			aport;		/* its local port */
	u64			knock;		/* the last knock's handle */
	u32			synack;		/* ISN of the last SYN-ACK sent */
	u64			dead[MAX_DEAD];	/* handles that got TCP_DEAD */
	unsigned int		ndead;
	u32			tsval;
	u16			mss;		/* the peer's MSS option */
} h;

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

/* Buffers: free + queued + held by connections == all of them. */
static void check_buffers(void)
{
	const struct tn_host *host = h.host;
	u64 held = 0, seen = 0;
	u32 i;

	/* slots are taken from the low end; stop after the last one in use */
	for (i = 0; i < IXM_TCP_CONNS && seen < host->tcp->stats.conns; i++) {
		if (host->tcp->conns[i].app) {
			held += host->tcp->conns[i].rcv_bufs;
			seen++;
			if (host->tcp->conns[i].flags & IXM_TCPF_SACK)
				check_scoreboard(&host->tcp->conns[i]);
		}
	}
	check(seen == host->tcp->stats.conns);
	check(host->pool.nfree + host->port.ntx + held == host->pool.count);
	check(h.a->app.stats.rx_bufs <= held);
	check(host->tcp->stats.established <= host->tcp->stats.conns);
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

		check(m->pool == &host->pool && !m->owner);
		check(m->data >= m->buf && m->data + m->len <= m->buf + IXM_MBUF_SIZE);
		check(!check_tx(&host->cfg, m));
		len = frame_gather(m, f, sizeof(f));
		/* whatever MSS the peer named: inside the MTU, no warning */
		check(len <= 14 + 1500 && !ixm_host_warnings);
		if (get16(f + 12) == 0x0800 && !tcp_parse(f, len, &s) &&
		    s.flags == (TH_SYN | TH_ACK))
			h.synack = s.seq;
	}
	tn_tx_flush(host);
}

static void consume(void)
{
	struct ixmod_event ev;
	unsigned int i;

	while (tn_app_event(h.a, &ev)) {
		check(ev.type < IXM_EV_NR && !ev.flags);
		switch (ev.type) {
		case IXMOD_EV_TCP_RECV:
			check(ev.res >= 0 && ev.res <= IXM_MBUF_DATA_MAX);
			check(!ev.res || tn_rx_ptr(h.host, ev.off, (u32)ev.res));
			check(!ev.res || ev.off % IXM_MBUF_SIZE >= IXM_MBUF_HEADROOM);
			break;
		case IXMOD_EV_TCP_KNOCK:
			check(ev.addr == be32_of(P_IP) && ixm_handle_gen(ev.handle));
			h.knock = ev.handle;
			break;
		case IXMOD_EV_TCP_DEAD:
			for (i = 0; i < h.ndead; i++)
				check(h.dead[i] != ev.handle);
			if (h.ndead < MAX_DEAD)
				h.dead[h.ndead++] = ev.handle;
			check(ev.res <= 0);
			break;
		case IXMOD_EV_TCP_CONNECTED:
			check(ev.res <= 0 && ixm_handle_gen(ev.handle));
			break;
		case IXMOD_EV_TCP_SENT:
			check(ev.res >= 0);
			break;
		case IXMOD_EV_CALL:
			check(ev.res >= -4095 && ev.res != IXM_CALL_RETRY);
			break;
		default:
			check(0);
		}
	}
}

/* The host's iteration, then every check. */
static void run(void)
{
	tn_host_run(h.host);
	check_buffers();
	check_tx_flush();
	consume();
	check_buffers();
}

/* A segment from the peer with the usual fields (handshakes). */
static void seg(u16 sport, u16 dport, u32 seq, u32 ack, u8 flags, u8 setup)
{
	u8 f[128], o[40];
	size_t olen = 0;
	struct tcp_args a = {
		.src = P_IP, .dst = H_IP, .sport = sport, .dport = dport, .seq = seq,
		.ack = ack, .flags = flags, .win = 65535, .opts = o,
	};

	if (flags & TH_SYN) {
		olen += tcpopt_mss(o, h.mss);
		if (setup & 2)
			olen += tcpopt_wscale(o + olen, 7);
		olen += tcpopt_sack_ok(o + olen);
	}
	if (setup & 1)
		olen += tcpopt_ts(o + olen, h.tsval++, 0);
	a.optlen = olen;
	tn_input(h.host, f, tcp_frame(f, our_mac, peer_mac, &a), 0);
	run();
}

static u64 call(const struct ixmod_call *c)
{
	struct ixmod_event ev;
	u64 handle = 0;

	tn_app_submit(h.a, c);
	tn_host_run(h.host);
	check_buffers();
	check_tx_flush();
	while (tn_app_event(h.a, &ev)) {
		if (ev.type == IXMOD_EV_CALL && !ev.res)
			handle = ev.handle;
		if (ev.type == IXMOD_EV_TCP_KNOCK)
			h.knock = ev.handle;
	}
	return handle;
}

/* The listener, the passive and the active connection, all by handshakes. */
static void setup(u8 s)
{
	struct ixm_tcp_config cfg;
	struct ixmod_call c;
	struct ixm_tcp_conn *cn;
	u32 iss;

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
	tn_learn(h.host, P_IP, peer_mac);
	h.ndead = 0;
	h.knock = 0;
	h.tsval = 100;
	h.mss = handshake_mss[s >> 5];

	c = tn_call_listen(LPORT, 4, 0x11);
	h.lh = call(&c);
	h.synack = 0;
	seg(PPORT, LPORT, 0x70000000u, 0, TH_SYN, s);
	seg(PPORT, LPORT, 0x70000001u, h.synack + 1, TH_ACK, s);
	c = tn_call_accept(h.knock, 0xc0);
	call(&c);
	h.ph = h.knock;

	c = tn_call_connect(P_IP, APORT, 0xa0);
	h.ah = call(&c);
	cn = conn_of(h.ah);
	h.aport = cn ? ixm_ntohs(cn->lport) : 0;
	iss = cn ? cn->iss : 0;
	seg(APORT, h.aport, 0x30000000u, iss + 1, TH_SYN | TH_ACK, s);
}

/* A record's segment: the fields it asks to place, the rest as given. */
static size_t segment(u8 ctl, const u8 *in, size_t left)
{
	static u8 f[14 + 20 + MAX_TCP];
	struct iph_args ip = {
		.id = 7, .frag = 0x4000, .ttl = 64, .proto = 6, .src = P_IP, .dst = H_IP,
	};
	struct ixm_tcp_conn *cn;
	size_t n, used;
	u8 *t;

	if (left < 2)
		return left;
	n = (size_t)in[0] | (size_t)in[1] << 8;
	used = 2;
	if (n > left - used)
		n = left - used;
	if (n > MAX_TCP)
		n = MAX_TCP;
	t = put_ip(put_eth(f, our_mac, peer_mac, 0x0800), &ip, (unsigned int)n);
	memcpy(t, in + used, n);
	used += n;
	cn = conn_of((ctl & 3) == 2 ? h.ah : h.ph);
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
			put16(t + 2, h.aport);
			break;
		}
	}
	if (n >= 8 && (ctl & 4) && cn)
		put32(t + 4, cn->rcv_nxt + (u32)(s32)(s16)get16(t + 6));
	if (n >= 12 && (ctl & 8) && cn)
		put32(t + 8, cn->snd_una + (u32)(s32)(s16)get16(t + 10));
	if (n >= 18 && !(ctl & 16)) {
		put16(t + 16, 0);
		put16(t + 16, ref_l4_csum(P_IP, H_IP, 6, t, n));
	}
	tn_input(h.host, f, 14 + 20 + n, ctl & 32 ? IXM_MBUF_F_L4_CSUM_OK : 0);
	run();
	return used;
}

static void do_call(u8 op, u8 arg)
{
	struct ixmod_iov *iov = (struct ixmod_iov *)(h.a->arena + ARENA - 64);
	u64 ch = arg & 0x80 ? h.ah : h.ph;
	struct ixm_tcp_conn *cn;
	struct ixmod_call c;

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
		c = tn_call_connect(P_IP, APORT, 0xa0);
		h.ah = call(&c);
		cn = conn_of(h.ah);
		h.aport = cn ? ixm_ntohs(cn->lport) : h.aport;
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
		h.a = tn_app_new(h.host, 16, EVENT_NR, ARENA);
		ready = true;
	}
	setup(in[0]);
	while (pos < size) {
		u8 r = in[pos++];

		if (r < 0x80) {
			pos += segment(r, in + pos, size - pos);
		} else if (r < 0xc0) {
			do_call(r & 7, pos < size ? in[pos] : 0);
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
