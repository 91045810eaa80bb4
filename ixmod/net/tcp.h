/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcp.h - TCP (RFC 9293) of one dataplane core
 *
 * Every connection lives in the table of the core whose queue its flow
 * hashes to, and only that core's thread touches it: no locks.  Receive
 * is zero-copy (a segment's buffer goes to the application, named by its
 * offset in the read-only receive region, and comes back through
 * IXMOD_OP_TCP_RECV_DONE, which also reopens the window).  Transmit reads
 * the application's transmit arena: TCP keeps the (offset, length) pieces
 * sendv accepted and copies them into frames when it sends or retransmits,
 * until the peer acknowledges them (IXMOD_EV_TCP_SENT).
 *
 * Files: tcp.c (tables, lookups, the iteration's work), tcp_event.c (the
 * events owed to the application), tcp_call.c (the application's calls),
 * tcp_in.c (segment arrival, RFC 9293 §3.10.7), tcp_ofo.c (the
 * out-of-order queue and its bounds), tcp_out.c (segments, options,
 * retransmission),
 * tcp_timer.c (RTO, delayed ACK, persist, keepalive, TIME_WAIT),
 * tcp_sack.c (SACK blocks, the scoreboard, RACK-TLP loss detection),
 * tcp_cc.c (congestion control: NewReno, CUBIC and DCTCP; ECN's signals),
 * tcp_cookie.c (ISNs and SYN cookies), siphash.c.
 */
#ifndef _IXM_NET_TCP_H
#define _IXM_NET_TCP_H

#include <linux/ixmod.h>

#include "platform.h"
#include "net.h"
#include "ip.h"
#include "ip6.h"
#include "timer.h"

#define IXM_IPPROTO_TCP		6

/* struct ixm_tcphdr.flags (RFC 9293 §3.1) */
#define IXM_TCP_FIN		0x01
#define IXM_TCP_SYN		0x02
#define IXM_TCP_RST		0x04
#define IXM_TCP_PSH		0x08
#define IXM_TCP_ACK		0x10
#define IXM_TCP_URG		0x20
#define IXM_TCP_ECE		0x40
#define IXM_TCP_CWR		0x80

#define IXM_TCP_HLEN		20

/* Options (RFC 9293 §3.2, RFC 7323) */
#define IXM_TCPOPT_EOL		0
#define IXM_TCPOPT_NOP		1
#define IXM_TCPOPT_MSS		2
#define IXM_TCPOPT_WSCALE	3
#define IXM_TCPOPT_SACK_OK	4
#define IXM_TCPOPT_SACK		5
#define IXM_TCPOPT_TS		8
#define IXM_TCPOLEN_TS_ALIGNED	12	/* NOP NOP TS(10) */
#define IXM_TCP_SACK_BLOCKS	4	/* RFC 2018 §3: at most 4 fit in 40 bytes */

#define IXM_TCP_MTU		1500	/* the ports' MTU (no jumbo frames) */
#define IXM_TCP_MSS_DEFAULT	536	/* RFC 9293 §3.7.1: no MSS option */
#define IXM_TCP_MSS_MAX		(IXM_TCP_MTU - IXM_IP_HLEN - IXM_TCP_HLEN)
/* over IPv6 (RFC 8200 §3: a 40-byte header): 1440 */
#define IXM_TCP_MSS_MAX6	(IXM_TCP_MTU - IXM_IP6_HLEN - IXM_TCP_HLEN)
/*
 * The least data per segment, after options, whatever MSS a peer names.
 * RFC 1122 §3.3.2 has every host take 576-byte datagrams, so a segment of
 * 64 + 40 bytes of options + 40 bytes of headers is one any peer can
 * take; a peer asking for less (MSS 1 is legal on the wire) would make a
 * 64 KiB send cost 64 Ki segments.  Linux floors at 48 bytes with the
 * options inside (tcp_min_snd_mss) and its TCP_MAXSEG at 88.
 */
#define IXM_TCP_MSS_MIN		64
#define IXM_TCP_WSCALE_MAX	14	/* RFC 7323 §2.3 */

/* Table sizes (per core) */
#define IXM_TCP_CONNS		4096	/* connections, TIME_WAIT included */
#define IXM_TCP_BUCKETS		8192	/* 4-tuple hash chains */
#define IXM_TCP_LISTENERS	64
#define IXM_TCP_TW_MAX		1024	/* TIME_WAIT entries before the oldest goes */
#define IXM_TCP_SNDQ		64	/* pieces of arena data in flight, per connection */
#define IXM_TCP_OOO_MAX		64	/* out-of-order buffers held, per connection */
/*
 * Out-of-order buffers all the connections of one core hold together: an
 * eighth of a receive pool (IXM_RX_SLICE_BUFS), whatever the wire sends
 * (tcp_ofo.c).
 */
#define IXM_TCP_OOO_CORE	256
/*
 * IXMOD_SETUP_SENT_IN_RECV: TCP_SENTs of connections whose every byte was
 * acknowledged wait, at most this many and this long, for an event the
 * context gets anyway (tcp_event.c)
 */
#define IXM_TCP_SENT_HOLD	64
#define IXM_TCP_SENT_HOLD_NS	(10 * 1000 * 1000ULL)
#define IXM_TCP_RCV_BUFS	128	/* receive buffers a connection may hold */
/*
 * Segments of a SACK connection in flight, each remembered for the
 * scoreboard and RACK (tcp_sack.c): when all are taken, new data waits
 * for an acknowledgment (about 185 KB at a 1448-byte MSS).
 */
#define IXM_TCP_TXSEGS		128
#define IXM_TCP_NONE		0xffffffffU

/* Ephemeral ports (the IANA range is 49152-65535; Linux uses 32768-60999) */
#define IXM_TCP_EPH_LO		32768
#define IXM_TCP_EPH_HI		60999

/* Connection states (RFC 9293 §3.3.2) */
enum ixm_tcp_state {
	IXM_TCP_CLOSED,
	IXM_TCP_LISTEN,		/* listeners only; never a connection's state */
	IXM_TCP_SYN_SENT,
	IXM_TCP_SYN_RECEIVED,
	IXM_TCP_ESTABLISHED,
	IXM_TCP_FIN_WAIT_1,
	IXM_TCP_FIN_WAIT_2,
	IXM_TCP_CLOSE_WAIT,
	IXM_TCP_CLOSING,
	IXM_TCP_LAST_ACK,
	IXM_TCP_TIME_WAIT,
	IXM_TCP_NSTATES,
};

extern const char * const ixm_tcp_state_names[IXM_TCP_NSTATES];

/**
 * struct ixm_tcphdr - TCP header (RFC 9293 §3.1), without options
 * @source: source port
 * @dest: destination port
 * @seq: sequence number
 * @ack_seq: acknowledgment number
 * @doff: data offset in 32-bit words, in the high nibble
 * @flags: IXM_TCP_FIN .. IXM_TCP_CWR
 * @window: receive window (scaled, RFC 7323 §2)
 * @check: checksum over the pseudo-header, header and data
 * @urg_ptr: urgent pointer (ignored: no urgent data, RFC 6093)
 */
struct ixm_tcphdr {
	__be16	source;
	__be16	dest;
	__be32	seq;
	__be32	ack_seq;
	u8	doff;
	u8	flags;
	__be16	window;
	__sum16	check;
	__be16	urg_ptr;
} __packed;

static inline unsigned int ixm_tcp_doff(const struct ixm_tcphdr *th)
{
	return (th->doff >> 4) * 4;
}

/* Big-endian option fields at any alignment */
static inline void ixm_put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = (u8)v;
}

static inline void ixm_put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

static inline u16 ixm_get_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 ixm_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

/* Sequence-number arithmetic modulo 2^32 (RFC 9293 §3.4) */
static inline bool ixm_seq_lt(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static inline bool ixm_seq_leq(u32 a, u32 b)
{
	return (s32)(a - b) <= 0;
}

#define ixm_seq_gt(a, b)	ixm_seq_lt((b), (a))
#define ixm_seq_geq(a, b)	ixm_seq_leq((b), (a))

/**
 * struct ixm_tcp_opts - options parsed from one segment
 * @mss: MSS option value, 0 if absent
 * @wscale: window scale shift (clamped to 14), valid if @has_ws
 * @has_ws: a window scale option was present
 * @sack_ok: SACK-permitted was present (on a SYN)
 * @has_ts: a timestamps option was present
 * @nsack: SACK blocks in @sack (RFC 2018 §3), at most IXM_TCP_SACK_BLOCKS
 * @tsval: TSval
 * @tsecr: TSecr
 * @sack: the blocks as sent, [left edge, right edge) each
 */
struct ixm_tcp_opts {
	u16	mss;
	u8	wscale;
	bool	has_ws;
	bool	sack_ok;
	bool	has_ts;
	u8	nsack;
	u32	tsval;
	u32	tsecr;
	u32	sack[IXM_TCP_SACK_BLOCKS][2];
};

int ixm_tcp_parse_opts(const struct ixm_tcphdr *th, struct ixm_tcp_opts *o);

struct ixm_tcp_conn;
struct ixm_tcp_table;

/**
 * struct ixm_tcp_cc_ops - a congestion-control algorithm
 * @name: shown in sysfs
 * @init: a connection becomes established: set cwnd and ssthresh
 * @on_ack: @acked new bytes acknowledged outside loss recovery
 * @ssthresh: loss detected (three duplicate ACKs or a timeout): return
 *	the new slow-start threshold
 * @on_rto: a retransmission timeout (after @ssthresh)
 * @on_recovery_exit: loss recovery ended with a full acknowledgment
 * @on_ecn: an acceptable ACK of an ECN connection, @acked new bytes
 *	(maybe 0), with ECE or not
 * @ce_echo: the receiver echoes each segment's CE exactly (RFC 8257
 *	§3.2), not from the first CE until the sender's CWR (RFC 3168 §6.1.3)
 *
 * Fast retransmit and NewReno's partial-ACK handling (RFC 6582) are the
 * input path's; an algorithm only sizes cwnd and ssthresh.
 */
struct ixm_tcp_cc_ops {
	const char	*name;
	void		(*init)(struct ixm_tcp_conn *c);
	void		(*on_ack)(struct ixm_tcp_conn *c, u32 acked);
	u32		(*ssthresh)(struct ixm_tcp_conn *c);
	void		(*on_rto)(struct ixm_tcp_conn *c);
	void		(*on_recovery_exit)(struct ixm_tcp_conn *c);
	void		(*on_ecn)(struct ixm_tcp_conn *c, u32 acked, bool ece);
	bool		ce_echo;
};

extern const struct ixm_tcp_cc_ops ixm_tcp_newreno;
extern const struct ixm_tcp_cc_ops ixm_tcp_cubic;
extern const struct ixm_tcp_cc_ops ixm_tcp_dctcp;

/* struct ixm_tcp_conn.ecn (RFC 3168) */
#define IXM_ECN_WANT		0x01	/* asked for (our SYN) or offered (theirs) */
#define IXM_ECN_OK		0x02	/* agreed: our data is ECT(0) */
#define IXM_ECN_ECE		0x04	/* our ACKs carry ECE */
#define IXM_ECN_CWR		0x08	/* our next new data carries CWR */
#define IXM_ECN_CE		0x10	/* the last segment received was CE (DCTCP) */

/* The ECN field of the IPv4 TOS byte (RFC 3168 §5) */
#define IXM_IP_ECN_MASK		0x03
#define IXM_IP_ECN_ECT0		0x02
#define IXM_IP_ECN_CE		0x03

/**
 * struct ixm_tcp_sndpiece - arena bytes sendv accepted and not yet acked
 * @off: offset in the transmit arena
 * @len: bytes
 */
struct ixm_tcp_sndpiece {
	u32	off;
	u32	len;
};

/**
 * struct ixm_tcp_txseg - a segment of a SACK connection in flight
 * @seq: its first byte (moved up when an ACK covers part of it)
 * @len: its data bytes
 * @flags: IXM_TXSEG_*
 * @rsvd: zero
 * @xmit_us: when it was last sent, microseconds of the core's clock
 */
struct ixm_tcp_txseg {
	u32	seq;
	u16	len;
	u8	flags;
	u8	rsvd;
	u32	xmit_us;
};

#define IXM_TXSEG_SACKED	0x01	/* the peer SACKed it */
#define IXM_TXSEG_LOST		0x02	/* RACK (or a timeout) deemed it lost */
#define IXM_TXSEG_RETRANS	0x04	/* sent again since; that copy is in flight */
#define IXM_TXSEG_EVER_RETRANS	0x08	/* sent more than once: no clean RTT sample */
#define IXM_TXSEG_LONE		0x10	/* sent alone, or left alone at the window's edge */

/**
 * struct ixm_tcp_ooo_hold - a connection that holds out-of-order buffers
 * @conn: its index in the table
 * @bufs: how many it holds (its @ooo_count)
 */
struct ixm_tcp_ooo_hold {
	u16	conn;
	u16	bufs;
};

/* struct ixm_tcp_conn.flags */
#define IXM_TCPF_ACCEPTED	0x0001	/* the application accepted or connected it */
#define IXM_TCPF_CLOSED_APP	0x0002	/* the application closed its handle */
#define IXM_TCPF_FIN_QUEUED	0x0004	/* a FIN follows the queued data */
#define IXM_TCPF_FIN_SENT	0x0008	/* it went out (snd_max covers it) */
#define IXM_TCPF_FIN_RCVD	0x0010	/* the peer's FIN was processed */
#define IXM_TCPF_TS		0x0020	/* timestamps agreed (RFC 7323) */
#define IXM_TCPF_WS		0x0040	/* window scaling agreed */
#define IXM_TCPF_ACK_NOW	0x0080	/* send an ACK at the next flush */
#define IXM_TCPF_PENDING	0x0100	/* on the table's pending-output list */
#define IXM_TCPF_IN_RECOVERY	0x0200	/* NewReno fast recovery (RFC 6582) */
#define IXM_TCPF_RTT_TIMING	0x0400	/* @rtt_seq is being timed (no TS) */
#define IXM_TCPF_COOKIE		0x0800	/* opened from a SYN cookie */
#define IXM_TCPF_DEAD_POSTED	0x1000	/* IXMOD_EV_TCP_DEAD was posted */
#define IXM_TCPF_UNHASHED	0x2000	/* out of the lookup table: dead, held */
#define IXM_TCPF_PERSIST	0x4000	/* the timer is the zero-window probe */
#define IXM_TCPF_ACTIVE		0x8000	/* opened by TCP_CONNECT */
#define IXM_TCPF_KNOCKED	0x10000	/* a knock announced it */
#define IXM_TCPF_WANT_SPACE	0x20000	/* sendv took less than asked: say when */
#define IXM_TCPF_NEED_ARP	0x40000	/* @dmac not resolved yet */
#define IXM_TCPF_OOO_FIN	0x80000	/* a queued segment carried a FIN at @ooo_fin */
#define IXM_TCPF_SENT_WIN	0x100000 /* the app waits for a TCP_SENT with win > 0 */
#define IXM_TCPF_SENT_HELD	0x200000 /* its TCP_SENT waits on @sent_held */
#define IXM_TCPF_SACK		0x400000 /* SACK agreed (RFC 2018): RACK-TLP */
#define IXM_TCPF_PTO		0x800000 /* the timer is the tail loss probe's */
#define IXM_TCPF_REO		0x1000000 /* the timer is RACK's reordering wait */
#define IXM_TCPF_DSACK		0x2000000 /* a D-SACK (@dsack) goes on the next ACK */
#define IXM_TCPF_REORDER	0x4000000 /* the peer was seen to reorder */
#define IXM_TCPF_TLP_OUT	0x8000000 /* a probe is out, up to @tlp_end */
#define IXM_TCPF_TLP_RXT	0x10000000 /* ... and it was a retransmission */
#define IXM_TCPF_INET6		0x20000000 /* over IPv6: @laddr6, @raddr6 */

/* struct ixm_tcp_conn.evpend: events owed to the application */
#define IXM_TCPE_KNOCK		0x01
#define IXM_TCPE_CONNECTED	0x02
#define IXM_TCPE_SENT		0x04
#define IXM_TCPE_EOF		0x08
#define IXM_TCPE_DEAD		0x10

/**
 * struct ixm_tcp_conn - one connection
 * @slot: what its handle names (handle.h)
 * @app: the context that owns it (the listener's, for a passive open)
 * @gen: generation of the slot; part of the handle, never 0
 * @laddr: local IPv4 address; 0 for an IPv6 connection (ixm_tcp_lookup6())
 * @raddr: remote IPv4 address; for IPv6, a fold of @raddr6 (tcp.c)
 * @lport: local port
 * @rport: remote port
 * @state: enum ixm_tcp_state
 * @pidx: index of its port in the stack's @ports
 * @snd_wscale: shift the peer's windows are scaled by
 * @rcv_wscale: shift our windows are scaled by
 * @flags: IXM_TCPF_*
 * @next: next connection in the hash chain or the free list (by
 *	index), IXM_TCP_NONE at the end
 * @pnext: next on the pending-output list
 * @listener: for a passive open not yet accepted, the listener's index
 * @cookie: user_data of the accept or connect, in every event
 * @dmac: the next hop's MAC address (resolved when sending)
 * @iss: initial send sequence number
 * @snd_una: oldest unacknowledged sequence number
 * @snd_nxt: next sequence number to send
 * @snd_max: highest sequence number sent so far, plus one
 * @snd_wnd: the peer's window, unscaled to bytes
 * @max_snd_wnd: the largest @snd_wnd seen (RFC 5961 §5.2)
 * @snd_wl1: segment sequence number of the last window update
 * @snd_wl2: segment acknowledgment number of the last window update
 * @snd_end: sequence number after the last byte sendv accepted
 * @mss: the most payload bytes per segment we send (options excluded)
 * @cwnd: congestion window, bytes
 * @ssthresh: slow-start threshold, bytes
 * @recover: NewReno's recovery point (RFC 6582 §3.2)
 * @dupacks: duplicate ACKs in a row
 * @bytes_acked: RFC 3465 byte counting in congestion avoidance
 * @srtt_us: smoothed RTT (RFC 6298 §2), microseconds; 0 before a sample
 * @rttvar_us: RTT variation
 * @rto_us: retransmission timeout
 * @backoff: timeouts in a row (exponential backoff, Karn)
 * @rtt_seq: the sequence number being timed without timestamps
 * @rtt_start_ns: when it was sent
 * @ts_recent: the peer's last TSval to echo (RFC 7323 §4.3)
 * @ts_recent_ns: when @ts_recent was taken (PAWS' 24-day rule)
 * @oow_ack_ns: when the last ACK to a rejected segment was sent, 0 never
 * @irs: initial receive sequence number
 * @rcv_nxt: next sequence number expected
 * @rcv_adv: right edge of the window we advertised last
 * @rcv_buf: bytes the connection may hold for the application
 * @rcv_held: bytes delivered and not yet returned by recv_done
 * @rcv_bufs: buffers delivered or queued out of order
 * @rcv_unacked: full-sized segments received since the last ACK
 * @quickacks: ACKs still to send without delay (connection start; 0
 *	once the connection answers data within the delayed-ACK time)
 * @quick_rcv_ns: when data that earned a quick ACK last arrived, 0 never
 * @rcvq: delivered buffers, oldest first (returned by recv_done)
 * @rcvq_tail: the newest
 * @rcvq_off: bytes of @rcvq's first buffer already returned
 * @ooo: out-of-order segments, sorted by sequence number
 * @ooo_count: how many buffers it takes (small segments share one)
 * @ooo_slot: its entry in the table's @ooo_hold while @ooo_count > 0
 * @ooo_fin: the sequence number of a FIN that came out of order
 * @sndq: the arena pieces from @snd_una's piece on
 * @sndq_head: index of the oldest piece
 * @sndq_count: pieces held
 * @sndq_skip: bytes of the oldest piece already acknowledged
 * @pending_acked: bytes acknowledged and not yet reported in TCP_SENT
 * @timer: retransmission, persist, keepalive, SYN-RECEIVED or TIME_WAIT
 * @delack: the delayed-ACK timer
 * @tw_prev: previous on the TIME_WAIT list
 * @last_rx_ns: when a segment last arrived (keepalive)
 * @syn_retries: SYN or SYN-ACK retransmissions (or keepalive probes) so far
 * @evpend: IXM_TCPE_* events owed to the application
 * @conn_err: res of the TCP_CONNECTED and TCP_DEAD owed
 * @tw_next: next on the TIME_WAIT list
 * @sack_recent: the starts of the out-of-order segments received last,
 *	the newest first: the order SACK blocks go in (RFC 2018 §4)
 * @sack_nrecent: entries of @sack_recent
 * @dsack: the duplicate range the next ACK reports first (RFC 2883)
 * @seg_head: index of the oldest of @segs
 * @seg_count: segments in flight in @segs
 * @seg_bytes: their data bytes
 * @sacked_bytes: of those, SACKed
 * @lost_bytes: deemed lost and not sent again yet
 * @rxt_bytes: sent again, not SACKed: in flight a second time
 * @sack_high: the highest right edge the peer SACKed
 * @rack_xmit_us: RACK.xmit_ts (RFC 8985 §6.1): when the most recently
 *	sent of the segments delivered so far was sent
 * @rack_end: RACK.end_seq, the end of that segment
 * @fin_xmit_us: when a FIN last went out alone (RACK's send time for a
 *	FIN in flight with no data record left before it)
 * @rack_rtt_us: RACK.rtt: its round trip
 * @min_rtt_us: the least round trip seen (RACK.min_RTT)
 * @reo_mult: RACK.reo_wnd_mult (§6.2 step 4): grows with each D-SACK
 * @reo_persist: recoveries left before @reo_mult goes back to 1
 * @dsack_round: no second growth of @reo_mult before SND.UNA passes it
 * @tlp_end: the sequence number the probe out ends at (TLP.end_seq)
 * @rxt_lo: the start of what was sent again lately (D-SACKs in
 *	[@rxt_lo, @rxt_hi) show a needless retransmission)
 * @rxt_hi: its end
 * @ecn: IXM_ECN_*
 * @cwr_seq: no second cwnd cut for ECE before SND.UNA passes it
 * @dctcp: DCTCP's state (@cc is ixm_tcp_dctcp)
 * @dctcp.alpha: its estimate of the fraction marked (RFC 8257 §3.3),
 *	in 1/1024
 * @dctcp.acked: bytes acknowledged in this observation window
 * @dctcp.ce: of those, acknowledged with ECE
 * @dctcp.next: the window ends when SND.UNA passes it (one RTT)
 * @cubic: CUBIC's state (@cc is ixm_tcp_cubic; RFC 9438 §4.1.2)
 * @cubic.epoch_ns: when this congestion avoidance stage began (t_epoch),
 *	moved on by the time the connection did not fill cwnd; 0: it
 *	begins at the next acknowledgment
 * @cubic.stamp_ns: when congestion avoidance last took an acknowledgment
 * @cubic.wmax: W_max, bytes: the window the curve's plateau is at
 * @cubic.prior: cwnd_prior, bytes: the window before the last reduction
 * @cubic.k: K, in 1/1024 s: when the curve reaches @cubic.wmax
 * @cubic.west: W_est, bytes: the window Reno would have (§4.3)
 * @cubic.rem: the remainder of the curve's growth, bytes times bytes
 *	acknowledged, below one byte of cwnd
 * @cubic.idle: the acknowledgment at @cubic.stamp_ns left nothing in
 *	flight
 * @pmtu: the path MTU a Packet Too Big taught (RFC 8201 §4), IPv6 only;
 *	0: the port's (IXM_TCP_MTU).  Kept per connection: ixmod is on-link
 *	only and has no route cache to keep it in
 * @soft_err: the -errno of the last Destination Unreachable acted on in a
 *	synchronized state (RFC 1122 §4.2.3.9: reported, never fatal), 0 none
 * @soft_una: SND.UNA when it came: a timeout reports @soft_err instead of
 *	-ETIMEDOUT only if nothing was acknowledged since (ixm_tcp_timeout_err())
 * @rcv_posted: first buffer of @rcvq not yet announced in a TCP_RECV
 * @rcv_given: bytes announced and not yet returned
 * @cc: its congestion-control algorithm
 * @table: the table it lives in
 * @zc: the frames that read this slot's data in place from the arena
 *	(built, and done by the NIC, in order)
 * @zc_gate: @zc.built when bytes were last acknowledged (or the connection
 *	ended): TCP_SENT and TCP_DEAD wait until those frames are done, as
 *	either lets the application reuse bytes a (re)transmission may still
 *	read, which would then reach this peer (a peer may even acknowledge
 *	data before the NIC read it).  Both belong to the slot, not to one
 *	connection: a slot freed while frames are out (its context went
 *	away) keeps the counts, and the next connection in it waits for them
 *	too.
 * @segs: the segments in flight of a SACK connection, oldest first (a
 *	ring from @seg_head; not cleared with the rest of a new connection)
 * @laddr6: with IXM_TCPF_INET6, the local IPv6 address (the port's
 *	global or link-local one)
 * @raddr6: with IXM_TCPF_INET6, the peer's
 */
struct ixm_tcp_conn {
	union {
		struct ixm_slot		slot;
		struct {
			struct ixm_app	*app;
			u32		gen;
		};
	};
	__be32				laddr;
	__be32				raddr;
	__be16				lport;
	__be16				rport;
	u8				state;
	u8				pidx;
	u8				snd_wscale;
	u8				rcv_wscale;
	u8				evpend;
	u16				syn_retries;
	u32				flags;
	s32				conn_err;
	u32				next;
	u32				pnext;
	u32				tw_next;
	u32				tw_prev;
	u32				listener;
	u64				cookie;
	u8				dmac[ETH_ALEN];

	u32				iss;
	u32				snd_una;
	u32				snd_nxt;
	u32				snd_max;
	u32				snd_wnd;
	u32				max_snd_wnd;
	u32				snd_wl1;
	u32				snd_wl2;
	u32				snd_end;
	u32				mss;
	u32				cwnd;
	u32				ssthresh;
	u32				recover;
	u32				dupacks;
	u32				bytes_acked;
	u32				srtt_us;
	u32				rttvar_us;
	u32				rto_us;
	u32				backoff;
	u32				rtt_seq;
	u64				rtt_start_ns;
	u32				ts_recent;
	u64				ts_recent_ns;
	u64				oow_ack_ns;

	u32				irs;
	u32				rcv_nxt;
	u32				rcv_adv;
	u32				rcv_buf;
	u32				rcv_held;
	u32				rcv_bufs;
	u32				rcv_unacked;
	u32				quickacks;
	u64				quick_rcv_ns;
	struct ixm_mbuf			*rcvq;
	struct ixm_mbuf			*rcvq_tail;
	struct ixm_mbuf			*rcv_posted;
	u32				rcv_given;
	u32				rcvq_off;
	struct ixm_mbuf			*ooo;
	u32				ooo_count;
	u32				ooo_slot;
	u32				ooo_fin;
	u32				sack_recent[IXM_TCP_SACK_BLOCKS];
	u32				sack_nrecent;
	u32				dsack[2];

	u32				seg_head;
	u32				seg_count;
	u32				seg_bytes;
	u32				sacked_bytes;
	u32				lost_bytes;
	u32				rxt_bytes;
	u32				sack_high;
	u32				rack_xmit_us;
	u32				rack_end;
	u32				fin_xmit_us;
	u32				rack_rtt_us;
	u32				min_rtt_us;
	u32				reo_mult;
	u32				reo_persist;
	u32				dsack_round;
	u32				tlp_end;
	u32				rxt_lo;
	u32				rxt_hi;
	u8				ecn;
	u32				cwr_seq;
	union {
		struct {
			u32		alpha;
			u32		acked;
			u32		ce;
			u32		next;
		} dctcp;
		struct {
			u64		epoch_ns;
			u64		stamp_ns;
			u32		wmax;
			u32		prior;
			u32		k;
			u32		west;
			u32		rem;
			bool		idle;
		} cubic;
	};
	u32				pmtu;
	s32				soft_err;
	u32				soft_una;

	struct ixm_tcp_sndpiece		sndq[IXM_TCP_SNDQ];
	u32				sndq_head;
	u32				sndq_count;
	u32				sndq_skip;
	u32				pending_acked;

	struct ixm_timer		timer;
	struct ixm_timer		delack;
	u64				last_rx_ns;
	const struct ixm_tcp_cc_ops	*cc;
	struct ixm_tcp_table		*table;
	struct ixm_mbuf_zc		zc;
	u32				zc_gate;
	struct ixm_tcp_txseg		segs[IXM_TCP_TXSEGS];
	struct ixm_in6_addr		laddr6;
	struct ixm_in6_addr		raddr6;
};

/*
 * The network header of an arriving segment, as tcp_in.c passes it on:
 * an IPv4 one (ixm_tcp_input()) or an IPv6 one (ixm_tcp_input6()), told
 * apart by the version both begin with (ip.c and ip6.c checked it).
 */
static inline bool ixm_tcp_nh_v6(const void *nh)
{
	return *(const u8 *)nh >> 4 == 6;
}

/* Its ECN field: IPv4's TOS or IPv6's traffic class, low two bits. */
static inline u8 ixm_tcp_nh_ecn(const void *nh)
{
	if (ixm_tcp_nh_v6(nh))
		return (ixm_ntohl(((const struct ixm_ip6hdr *)nh)->vtc_flow) >> 20) &
		       IXM_IP_ECN_MASK;
	return ((const struct ixm_iphdr *)nh)->tos & IXM_IP_ECN_MASK;
}

/**
 * struct ixm_tcp_addrs - the two addresses of a 4-tuple, either family
 * @l: the local address, network order: 4 bytes (IPv4) or 16 (IPv6)
 * @r: the remote one
 * @len: 4 or 16
 */
struct ixm_tcp_addrs {
	const void	*l;
	const void	*r;
	unsigned int	len;
};

/* An arriving segment's: the local address is its destination. */
static inline struct ixm_tcp_addrs ixm_tcp_nh_addrs(const void *nh)
{
	struct ixm_tcp_addrs a;

	if (ixm_tcp_nh_v6(nh)) {
		const struct ixm_ip6hdr *ih = nh;

		a.l = &ih->daddr;
		a.r = &ih->saddr;
		a.len = 16;
	} else {
		const struct ixm_iphdr *ih = nh;

		a.l = &ih->daddr;
		a.r = &ih->saddr;
		a.len = 4;
	}
	return a;
}

/* A connection's. */
static inline struct ixm_tcp_addrs ixm_tcp_conn_addrs(const struct ixm_tcp_conn *c)
{
	struct ixm_tcp_addrs a;

	if (c->flags & IXM_TCPF_INET6) {
		a.l = &c->laddr6;
		a.r = &c->raddr6;
		a.len = 16;
	} else {
		a.l = &c->laddr;
		a.r = &c->raddr;
		a.len = 4;
	}
	return a;
}

/* The largest MSS its MTU allows: IPv6's header is 20 bytes longer. */
static inline u32 ixm_tcp_mss_cap(const struct ixm_tcp_conn *c)
{
	return (c->flags & IXM_TCPF_INET6) ? IXM_TCP_MSS_MAX6 : IXM_TCP_MSS_MAX;
}

/*
 * The largest MSS (data and options, RFC 6691 §2) its path takes: what
 * the port's MTU allows, or less once a Packet Too Big lowered the path
 * MTU (@pmtu, over IPv6 only: at least IXM_IP6_MIN_MTU).
 */
static inline u32 ixm_tcp_path_mss_cap(const struct ixm_tcp_conn *c)
{
	if (likely(!c->pmtu))
		return ixm_tcp_mss_cap(c);
	return c->pmtu - IXM_IP6_HLEN - IXM_TCP_HLEN;
}

/*
 * The error a connection that timed out reports: -ETIMEDOUT, or the soft
 * error an ICMPv6 Destination Unreachable left if nothing was acknowledged
 * since it came (Linux reports its sk_err_soft the same way).
 */
static inline int ixm_tcp_timeout_err(const struct ixm_tcp_conn *c)
{
	return c->soft_err && c->soft_una == c->snd_una ? c->soft_err : -ETIMEDOUT;
}

/**
 * struct ixm_tcp_listener - a listening port of one context
 * @slot: what its handle names (handle.h)
 * @app: the context; NULL while the slot is free
 * @gen: generation, part of the handle
 * @cookie: user_data of the listen, in knock events
 * @port: local port, network order
 * @backlog: most connections not yet accepted (SYN-RECEIVED included)
 * @queued: connections counted against @backlog now
 */
struct ixm_tcp_listener {
	union {
		struct ixm_slot		slot;
		struct {
			struct ixm_app	*app;
			u32		gen;
		};
	};
	u64		cookie;
	__be16		port;
	u16		backlog;
	u32		queued;
};

/**
 * struct ixm_tcp_config - the knobs (module parameters in the kernel)
 * @delack_us: delayed-ACK timeout; 0 acknowledges every segment at once
 * @rto_min_us: lower bound of the RTO (RFC 6298 §2.4 says 1 s; see docs)
 * @rto_max_us: upper bound of the RTO
 * @rto_init_us: the RTO before the first RTT sample (RFC 6298 §2.1)
 * @syn_retries: SYN (active open) retransmissions before -ETIMEDOUT
 * @synack_retries: SYN-ACK retransmissions before a half-open dies
 * @retries: data retransmissions before the connection is reset
 * @tw_ns: TIME_WAIT duration (2 MSL)
 * @keepalive_ns: idle time before keepalive probes; 0: off (RFC 1122
 *	§4.2.3.6: off by default)
 * @rcv_buf: receive buffer per connection, bytes
 * @syncookies: 0 never, 1 when a listener's backlog is full, 2 always
 * @invalid_ratelimit_ns: the least time between two ACKs a connection
 *	sends to segments PAWS or the window check rejected; 0: no limit
 * @sack: offer and accept SACK (RFC 2018), and with it RACK-TLP loss
 *	recovery (RFC 8985); 0: NewReno alone (RFC 6582)
 * @ecn: ECN (RFC 3168) with NewReno or CUBIC: 0 never, 1 ask on active
 *	opens and accept, 2 accept when asked (Linux's tcp_ecn); a DCTCP
 *	port always asks and accepts
 * @tlp_delack_us: what a tail loss probe adds for a peer's delayed ACK
 *	when the segment it waits for was sent alone (RFC 8985 §7.2's
 *	WCDelAckT)
 * @init_cwnd: the initial window in segments, N: min(N * MSS, max(2 *
 *	MSS, N * 1460)), RFC 6928's rule for 10; 0: RFC 3390's (3 segments)
 */
struct ixm_tcp_config {
	u32	delack_us;
	u32	rto_min_us;
	u32	rto_max_us;
	u32	rto_init_us;
	u32	syn_retries;
	u32	synack_retries;
	u32	retries;
	u64	tw_ns;
	u64	keepalive_ns;
	u32	rcv_buf;
	u32	syncookies;
	u64	invalid_ratelimit_ns;
	u32	sack;
	u32	ecn;
	u32	tlp_delack_us;
	u32	init_cwnd;
};

void ixm_tcp_config_default(struct ixm_tcp_config *cfg);

/**
 * struct ixm_tcp_stats - a core's TCP counters (written by that core)
 * @active_opens: connections opened by TCP_CONNECT (SYN sent)
 * @passive_opens: connections opened by a peer (reached ESTABLISHED)
 * @established: connections in a synchronized state now (a level)
 * @conns: connection slots in use now, TIME_WAIT included (a level)
 * @attempt_fails: opens that failed (refused, timed out, reset early)
 * @resets_in: RSTs accepted
 * @resets_out: RSTs sent
 * @segs_in: segments received (valid checksum)
 * @segs_out: segments sent
 * @retrans: segments retransmitted
 * @timeouts: retransmission timeouts
 * @fast_retrans: fast retransmits (three duplicate ACKs)
 * @ooo: segments queued out of order
 * @dup_data: segments whose data was all received before
 * @bad_csum: segments with a wrong checksum
 * @bad_hdr: segments too short or with a bad data offset or options
 * @no_conn: segments for no connection or listener (answered with RST)
 * @paws_drops: segments PAWS rejected (RFC 7323 §5)
 * @challenge_acks: challenge ACKs sent (RFC 5961)
 * @out_of_window: segments outside the receive window
 * @syncookies_sent: SYN-ACKs carrying a SYN cookie
 * @syncookies_ok: cookies validated (a connection opened from one)
 * @syncookies_bad: ACKs for a listener with an invalid cookie
 * @backlog_drops: SYNs dropped because backlog was full and cookies off
 * @rcv_drops: data segments dropped for want of buffer room: the
 *	connection's IXM_TCP_RCV_BUFS, or the pool's reserve after the
 *	out-of-order queues gave theirs back (ixm_tcp_ooo_relieve())
 * @zero_window_probes: probes sent to a peer's zero window
 * @window_stalls: times sendv found no window open
 * @pos_refused: IXMOD_CALL_F_POS calls refused: not at the stream's offset
 * @sent_held: TCP_SENTs held for an event the context got anyway
 * @delayed_acks: ACKs the delayed-ACK timer sent
 * @tw_recycled: TIME_WAIT entries reused early (table bound)
 * @conn_full: opens refused because the connection table was full
 * @tx_zerocopy: data segments the NIC read from the transmit arena
 * @tx_copied: data segments whose data was copied into the buffer (the
 *	port has no mapping of the arena, or it took over IXM_MBUF_FRAGS
 *	fragments)
 * @zc_waits: times a TCP_SENT or TCP_DEAD waited for the NIC to finish a
 *	frame that reads the bytes it would free (ixm_tcp_zc_settled())
 * @tx_oversize: segments refused because they would not fit the MTU
 *	(never, unless the MSS is wrong: a WARN_ONCE says so)
 * @ack_ratelimited: ACKs not sent to out-of-window or PAWS-rejected
 *	segments, because the connection sent one less than
 *	@invalid_ratelimit_ns before
 * @fast_path: segments header prediction handled (ixm_tcp_rcv_fast():
 *	in order, ACK and PSH only, an open window, new data or a new ACK)
 * @ooo_coalesced: out-of-order segments copied into the tail of the
 *	queued buffer they continue, instead of taking a buffer of their own
 * @ooo_drops: out-of-order segments not kept: the connection's bound, the
 *	core's share or the pool's reserve was reached and the segment would
 *	have been the newest of the largest queue (tcp_ofo.c)
 * @ooo_pruned: queued out-of-order buffers freed, newest first, from the
 *	connection holding the most, to make room for another segment
 * @ooo_purged: out-of-order buffers freed because no data can follow:
 *	the connection died or the peer's FIN arrived in order
 * @sacks_sent: ACKs sent with SACK blocks (RFC 2018), D-SACKs included
 * @dsacks_sent: of those, ACKs whose first block was a D-SACK (RFC 2883)
 * @sacks_rcvd: segments received with SACK blocks
 * @dsacks_rcvd: D-SACK blocks received
 * @sack_recoveries: loss recoveries of SACK connections (RFC 6675 §5)
 * @rack_losses: segments RACK deemed lost (RFC 8985 §6.2)
 * @tlp_probes: tail loss probes sent (RFC 8985 §7.3)
 * @spurious_retrans: retransmissions a D-SACK showed to have been needless
 * @reordering: connections RACK found the peer's path reordering (RFC
 *	8985 §6.2 step 3: a segment never sent again delivered below the
 *	highest byte SACKed before), counted once a connection: their
 *	losses wait RACK's reordering window from then on
 * @ecn_conns: connections that agreed ECN (RFC 3168 §6.1.1)
 * @ce_rcvd: segments received with CE (congestion experienced)
 * @ece_cuts: cwnd cuts for an ECE (once per window; DCTCP's by alpha)
 * @icmp_unreach: ICMPv6 Destination Unreachables acted on: a connect
 *	aborted (SYN-SENT), or a soft error remembered (RFC 1122 §4.2.3.9)
 * @icmp_ptb: ICMPv6 Packet Too Bigs that lowered a connection's path MTU
 *	(and its MSS with it, when that was larger; RFC 8201 §4)
 * @icmp_ignored: ICMPv6 errors quoting TCP that changed nothing: from an
 *	address not the port's, for no connection (or one in TIME_WAIT or
 *	closed), a quoted sequence number outside SND.UNA..SND.NXT (RFC 5927
 *	§4.1), or a Packet Too Big whose MTU is not below the path MTU;
 *	counted by the core that owns the connection the error quotes
 * @icmp_handed: ICMPv6 errors quoting TCP that reached this core but name
 *	no connection of it, handed to the core that owns the connection
 *	(its queue computed from the quoted 4-tuple; net/icmp6_relay.h),
 *	which counts them again as acted on or ignored
 * @icmp_hand_full: of those, errors dropped because the owner's mailbox
 *	was full (IXM_ICMP6_RELAY_SLOTS not yet taken); not in @icmp_handed,
 *	nor in the owner's counters
 *
 * Each is the file dataplane/cpuN/stats/tcp_NAME (the table in sysfs.c).
 */
struct ixm_tcp_stats {
	u64	active_opens;
	u64	passive_opens;
	u64	established;
	u64	conns;
	u64	attempt_fails;
	u64	resets_in;
	u64	resets_out;
	u64	segs_in;
	u64	segs_out;
	u64	retrans;
	u64	timeouts;
	u64	fast_retrans;
	u64	ooo;
	u64	dup_data;
	u64	bad_csum;
	u64	bad_hdr;
	u64	no_conn;
	u64	paws_drops;
	u64	challenge_acks;
	u64	out_of_window;
	u64	syncookies_sent;
	u64	syncookies_ok;
	u64	syncookies_bad;
	u64	backlog_drops;
	u64	rcv_drops;
	u64	zero_window_probes;
	u64	window_stalls;
	u64	pos_refused;
	u64	sent_held;
	u64	delayed_acks;
	u64	tw_recycled;
	u64	conn_full;
	u64	tx_zerocopy;
	u64	tx_copied;
	u64	zc_waits;
	u64	tx_oversize;
	u64	ack_ratelimited;
	u64	fast_path;
	u64	ooo_coalesced;
	u64	ooo_drops;
	u64	ooo_pruned;
	u64	ooo_purged;
	u64	sacks_sent;
	u64	dsacks_sent;
	u64	sacks_rcvd;
	u64	dsacks_rcvd;
	u64	sack_recoveries;
	u64	rack_losses;
	u64	tlp_probes;
	u64	spurious_retrans;
	u64	reordering;
	u64	ecn_conns;
	u64	ce_rcvd;
	u64	ece_cuts;
	u64	icmp_unreach;
	u64	icmp_ptb;
	u64	icmp_ignored;
	u64	icmp_handed;
	u64	icmp_hand_full;
};

/**
 * struct ixm_tcp_table - one core's TCP
 * @cfg: the knobs, copied at creation
 * @wheel: the core's timer wheel
 * @stack: the core's protocol state (ports, time)
 * @bucket: 4-tuple hash chains (connection indices)
 * @free: head of the free-slot list
 * @pending: head of the pending-output list
 * @tw_head: oldest TIME_WAIT connection
 * @tw_tail: newest
 * @tw_count: connections in TIME_WAIT
 * @secret: the keys of ISNs and SYN cookies (RFC 6528, RFC 4987)
 * @challenge_ns: start of the challenge-ACK rate window
 * @challenge_count: challenge ACKs sent in it
 * @eph_next: where the next ephemeral-port search starts
 * @ooo_bufs: out-of-order buffers its connections hold, at most
 *	IXM_TCP_OOO_CORE
 * @ooo_nhold: entries of @ooo_hold
 * @ooo_hold: every connection holding out-of-order buffers, searched for
 *	the largest holder when room must be made (at most IXM_TCP_OOO_CORE:
 *	each holds one buffer at least)
 * @sent_nheld: entries of @sent_held
 * @sent_held: connections whose TCP_SENT is held (index and generation:
 *	one freed since is skipped)
 * @sent_timer: posts every held TCP_SENT IXM_TCP_SENT_HOLD_NS after the
 *	first was held
 * @sent_releasing: ixm_tcp_sent_release() posts them: none is held again
 * @stats: counters
 * @listeners: listening ports
 * @conns: the connection slots
 */
struct ixm_tcp_table {
	struct ixm_tcp_config		cfg;
	struct ixm_timer_wheel		wheel;
	struct ixm_stack		*stack;
	u32				bucket[IXM_TCP_BUCKETS];
	u32				free;
	u32				pending;
	u32				tw_head;
	u32				tw_tail;
	u32				tw_count;
	u64				secret[4];
	u64				challenge_ns;
	u32				challenge_count;
	u32				eph_next;
	u32				ooo_bufs;
	u32				ooo_nhold;
	struct ixm_tcp_ooo_hold		ooo_hold[IXM_TCP_OOO_CORE];
	u32				sent_nheld;
	struct {
		u32	idx;
		u32	gen;
	}				sent_held[IXM_TCP_SENT_HOLD];
	struct ixm_timer		sent_timer;
	bool				sent_releasing;
	struct ixm_tcp_stats		stats;
	struct ixm_tcp_listener		listeners[IXM_TCP_LISTENERS];
	struct ixm_tcp_conn		conns[IXM_TCP_CONNS];
};

struct ixm_app;
struct ixm_stack;

/* Hooks for the tracepoints; the kernel glue defines them (dp.c). */
void ixm_tcp_trace_state(const struct ixm_tcp_conn *c, unsigned int old,
			 unsigned int state);
void ixm_tcp_trace_retrans(const struct ixm_tcp_conn *c, u32 seq, u32 len,
			   bool timeout);
void ixm_tcp_trace_stall(const struct ixm_tcp_conn *c, u32 asked);
void ixm_tcp_trace_recovery(const struct ixm_tcp_conn *c, bool enter,
			    unsigned int cause);

/* ixm_tcp_trace_recovery()'s causes */
#define IXM_TCP_REC_DUPACKS	0	/* three duplicate ACKs (NewReno) */
#define IXM_TCP_REC_RACK	1	/* RACK deemed a segment lost */
#define IXM_TCP_REC_TLP		2	/* a tail loss probe repaired a loss */
#define IXM_TCP_REC_DONE	3	/* exit: the recovery point acknowledged */

/* tcp.c, tcp_event.c, tcp_call.c: tables, events, the application's calls */
void ixm_tcp_table_init(struct ixm_tcp_table *t, struct ixm_stack *st,
			const struct ixm_tcp_config *cfg, const u64 secret[4]);
void ixm_tcp_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		   struct ixm_iphdr *ih);
void ixm_tcp_input6(struct ixm_net_port *port, struct ixm_mbuf *m,
		    struct ixm_ip6hdr *ih, unsigned int thoff);
bool ixm_tcp_icmp6_err(struct ixm_net_port *port, u8 type, u8 code, u32 info,
		       const struct ixm_ip6hdr *oih, const struct ixm_tcphdr *oth);
unsigned int ixm_tcp_icmp6_relay_drain(struct ixm_net_port *port);
void ixm_tcp_poll(struct ixm_stack *st);
int ixm_tcp_listen(struct ixm_tcp_table *t, struct ixm_app *app, __be16 port,
		   u32 backlog, u64 cookie, u64 *handle);
int ixm_tcp_accept(struct ixm_tcp_table *t, struct ixm_app *app, u64 handle,
		   u64 cookie);
int ixm_tcp_connect(struct ixm_tcp_table *t, struct ixm_app *app,
		    __be32 daddr, __be16 dport, u64 cookie, u64 *handle);
int ixm_tcp_connect6(struct ixm_tcp_table *t, struct ixm_app *app,
		     const struct ixm_in6_addr *daddr, __be16 dport, u64 cookie,
		     u64 *handle);
/*
 * IXMOD_CALL_F_POS (uapi): @on, the offset @pos the call expects; @next
 * the connection's offset after the call, for its event (when it has one)
 */
struct ixm_tcp_pos {
	bool	on;
	u32	pos;
	u32	next;
};

int ixm_tcp_sendv(struct ixm_tcp_table *t, struct ixm_app *app, u64 handle,
		  const struct ixmod_iov *iov, u32 niov, struct ixm_tcp_pos *p);
int ixm_tcp_recv_done(struct ixm_tcp_table *t, struct ixm_app *app,
		      u64 handle, u32 len);
int ixm_tcp_close(struct ixm_tcp_table *t, struct ixm_app *app, u64 handle,
		  bool abort, struct ixm_tcp_pos *p);
int ixm_tcp_shutdown(struct ixm_tcp_table *t, struct ixm_app *app, u64 handle,
		     struct ixm_tcp_pos *p);
void ixm_tcp_close_all(struct ixm_tcp_table *t, struct ixm_app *app);
void ixm_tcp_pool_gone(struct ixm_tcp_table *t, const struct ixm_mbuf_pool *pool);
struct ixm_tcp_conn *ixm_tcp_conn_get(struct ixm_tcp_table *t,
				      const struct ixm_app *app, u64 handle);
struct ixm_tcp_listener *ixm_tcp_listener_get(struct ixm_tcp_table *t,
					      const struct ixm_app *app,
					      u64 handle);
u32 ixm_tcp_send_space(const struct ixm_tcp_conn *c);

/* internal, shared by the tcp*.c files */
static inline u32 ixm_tcp_idx(const struct ixm_tcp_conn *c)
{
	return (u32)(c - c->table->conns);
}

/* The stream offset of the application's next byte (IXMOD_CALL_F_POS) */
static inline u32 ixm_tcp_app_pos(const struct ixm_tcp_conn *c)
{
	return c->snd_end - c->iss - 1;
}

static inline u64 ixm_tcp_handle(const struct ixm_tcp_conn *c)
{
	return ixm_handle(IXMOD_HANDLE_TCP, ixm_tcp_idx(c), c->gen);
}

void ixm_tcp_set_state(struct ixm_tcp_conn *c, enum ixm_tcp_state state);

/*
 * Whether every frame built before @c->zc_gate was set is done with the
 * arena: only then may a TCP_SENT or TCP_DEAD let the application reuse
 * bytes.  Frames freed without reaching a device are not counted, so the
 * gate is at most @zc.built.
 */
static inline bool ixm_tcp_zc_settled(const struct ixm_tcp_conn *c)
{
	u32 gate = (s32)(c->zc.built - c->zc_gate) < 0 ? c->zc.built : c->zc_gate;

	return (s32)(c->zc.done - gate) >= 0;
}
struct ixm_tcp_conn *ixm_tcp_lookup(struct ixm_tcp_table *t, __be32 laddr,
				    __be16 lport, __be32 raddr, __be16 rport);
struct ixm_tcp_conn *ixm_tcp_conn_alloc(struct ixm_tcp_table *t, __be32 laddr,
					__be16 lport, __be32 raddr, __be16 rport);
struct ixm_tcp_conn *ixm_tcp_lookup6(struct ixm_tcp_table *t,
				     const struct ixm_in6_addr *laddr, __be16 lport,
				     const struct ixm_in6_addr *raddr, __be16 rport);
struct ixm_tcp_conn *ixm_tcp_conn_alloc6(struct ixm_tcp_table *t,
					 const struct ixm_in6_addr *laddr, __be16 lport,
					 const struct ixm_in6_addr *raddr, __be16 rport);
void ixm_tcp_conn_free(struct ixm_tcp_conn *c);
void ixm_tcp_established(struct ixm_tcp_conn *c);
void ixm_tcp_deliver(struct ixm_tcp_conn *c, struct ixm_mbuf *m);
void ixm_tcp_post_eof(struct ixm_tcp_conn *c);
void ixm_tcp_post_sent(struct ixm_tcp_conn *c);
void ixm_tcp_done(struct ixm_tcp_conn *c, int err);
void ixm_tcp_enter_time_wait(struct ixm_tcp_conn *c);
void ixm_tcp_tw_release(struct ixm_tcp_conn *c);
void ixm_tcp_mark_pending(struct ixm_tcp_conn *c);
void ixm_tcp_flush_events(struct ixm_tcp_conn *c);
void ixm_tcp_sent_release(struct ixm_tcp_table *t, bool all);
void ixm_tcp_sent_timer_fn(struct ixm_timer *tm, u64 now_ns);
void ixm_tcp_zombie_check(struct ixm_tcp_conn *c);
void ixm_tcp_rcv_purge(struct ixm_tcp_conn *c);
void ixm_tcp_listener_unqueue(struct ixm_tcp_conn *c);
u32 ixm_tcp_listener_find(struct ixm_tcp_table *t, __be16 port);
u8 ixm_tcp_pick_wscale(u32 rcv_buf);
struct ixm_net_port *ixm_tcp_port(const struct ixm_tcp_conn *c);

/* tcp_out.c */
void ixm_tcp_output(struct ixm_tcp_conn *c);
int ixm_tcp_send_ack(struct ixm_tcp_conn *c);
int ixm_tcp_send_syn(struct ixm_tcp_conn *c);
int ixm_tcp_send_rst(struct ixm_tcp_conn *c);
int ixm_tcp_send_probe(struct ixm_tcp_conn *c);
int ixm_tcp_send_keepalive(struct ixm_tcp_conn *c);
void ixm_tcp_retransmit_head(struct ixm_tcp_conn *c);
void ixm_tcp_rewind(struct ixm_tcp_conn *c);
void ixm_tcp_mtu_rexmit(struct ixm_tcp_conn *c);
void ixm_tcp_reply_rst(struct ixm_net_port *port, const void *nh,
		       const struct ixm_tcphdr *th, u32 seglen);
int ixm_tcp_send_synack_stateless(struct ixm_net_port *port, const void *nh,
				  const struct ixm_tcphdr *th, u32 iss, u16 mss);
u32 ixm_tcp_rcv_window(const struct ixm_tcp_conn *c);
void ixm_tcp_challenge_ack(struct ixm_tcp_conn *c);

/* tcp_ofo.c */
int ixm_tcp_ooo_queue(struct ixm_tcp_conn *c, struct ixm_mbuf *m);
void ixm_tcp_ooo_drain(struct ixm_tcp_conn *c);
u32 ixm_tcp_ooo_purge(struct ixm_tcp_conn *c);
bool ixm_tcp_ooo_relieve(struct ixm_tcp_conn *c, const struct ixm_mbuf *m);

/* ixm_tcp_ooo_queue()'s answers */
#define IXM_TCP_OOO_DROPPED	0	/* no room: not kept (ooo_drops) */
#define IXM_TCP_OOO_QUEUED	1	/* the buffer waits in the queue */
#define IXM_TCP_OOO_COPIED	2	/* its bytes were copied; free the buffer */
#define IXM_TCP_OOO_HAD		3	/* as many bytes from there are queued */

/*
 * The reserve a pool keeps for in-order data: below an eighth free, data
 * is taken only after out-of-order queues gave buffers back
 * (ixm_tcp_ooo_relieve()).
 */
static inline bool ixm_tcp_pool_room(const struct ixm_mbuf_pool *pool)
{
	return ixm_mbuf_pool_free_over(pool, IXM_POOL_RESERVE_TCP);
}

/* tcp_cc.c */
void ixm_tcp_cc_pick(struct ixm_tcp_conn *c, const struct ixm_net_port *np);
void ixm_tcp_ecn_syn(struct ixm_tcp_conn *c, u8 flags);
void __ixm_tcp_ecn_rcv(struct ixm_tcp_conn *c, const void *nh, u8 flags, u32 dlen);
u8 __ixm_tcp_ecn_flags(struct ixm_tcp_conn *c, u8 flags, u32 seq, u32 dlen, u8 *tos);

/* An acceptable segment arrived: its CE, the peer's CWR (ECN connections). */
static inline void ixm_tcp_ecn_rcv(struct ixm_tcp_conn *c, const void *nh,
				   u8 flags, u32 dlen)
{
	if (unlikely(c->ecn & IXM_ECN_OK))
		__ixm_tcp_ecn_rcv(c, nh, flags, dlen);
}

/* An acceptable ACK, @acked new bytes (0 for a duplicate): ECE's answer. */
static inline void ixm_tcp_ecn_ack(struct ixm_tcp_conn *c, u32 acked, u8 flags)
{
	if (unlikely(c->ecn & IXM_ECN_OK))
		c->cc->on_ecn(c, acked, flags & IXM_TCP_ECE);
}

/* @flags with ECE and CWR as ECN wants them; *@tos ECT(0) for new data. */
static inline u8 ixm_tcp_ecn_flags(struct ixm_tcp_conn *c, u8 flags, u32 seq, u32 dlen,
				   u8 *tos)
{
	if (likely(!c->ecn))
		return flags;
	return __ixm_tcp_ecn_flags(c, flags, seq, dlen, tos);
}

/* tcp_sack.c */
unsigned int ixm_tcp_sack_put(struct ixm_tcp_conn *c, u8 *p, unsigned int room);
void ixm_tcp_sack_ooo(struct ixm_tcp_conn *c, u32 seq);
void ixm_tcp_sack_dup(struct ixm_tcp_conn *c, u32 seq, u32 end);
void ixm_tcp_seg_sent(struct ixm_tcp_conn *c, u32 seq, u32 len);
void ixm_tcp_seg_resent(struct ixm_tcp_conn *c, struct ixm_tcp_txseg *r);
bool ixm_tcp_sack_acked(struct ixm_tcp_conn *c, u32 ack);
void ixm_tcp_sack_rcv(struct ixm_tcp_conn *c, const struct ixm_tcp_opts *o,
		      bool moved, bool dup);
void ixm_tcp_sack_init(struct ixm_tcp_conn *c);
void ixm_tcp_sack_all_lost(struct ixm_tcp_conn *c);
void ixm_tcp_sack_rto_lost(struct ixm_tcp_conn *c);
void ixm_tcp_sack_mtu(struct ixm_tcp_conn *c);
u32 ixm_tcp_sack_pipe(const struct ixm_tcp_conn *c);
struct ixm_tcp_txseg *ixm_tcp_sack_next_lost(struct ixm_tcp_conn *c);
void ixm_tcp_arm_sack(struct ixm_tcp_conn *c, bool on_ack);
void ixm_tcp_pto_fn(struct ixm_tcp_conn *c);
void ixm_tcp_reo_fn(struct ixm_tcp_conn *c);

/* tcp_timer.c */
void ixm_tcp_timer_fn(struct ixm_timer *t, u64 now_ns);
void ixm_tcp_delack_fn(struct ixm_timer *t, u64 now_ns);
void ixm_tcp_arm_rexmit(struct ixm_tcp_conn *c);
void ixm_tcp_arm_idle(struct ixm_tcp_conn *c);
void ixm_tcp_rtt_sample(struct ixm_tcp_conn *c, u32 rtt_us);

/* tcp_cookie.c */
u32 ixm_tcp_isn(struct ixm_tcp_table *t, const struct ixm_tcp_addrs *a,
		__be16 lport, __be16 rport, u64 now_ns);
u32 ixm_tcp_cookie_make(struct ixm_tcp_table *t, const struct ixm_tcp_addrs *a,
			__be16 lport, __be16 rport, u32 peer_isn, u16 mss,
			u64 now_ns);
u16 ixm_tcp_cookie_check(struct ixm_tcp_table *t, const struct ixm_tcp_addrs *a,
			 __be16 lport, __be16 rport, u32 peer_isn, u32 cookie,
			 u64 now_ns);

/* siphash.c: SipHash-2-4 (Aumasson and Bernstein, 2012) */
u64 ixm_siphash(const u64 key[2], const void *data, size_t len);

#endif /* _IXM_NET_TCP_H */
