// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_sack.c - selective acknowledgments (RFC 2018, RFC 2883) and
 * RACK-TLP loss detection (RFC 8985)
 *
 * As a receiver, a connection that agreed to SACK reports what its
 * out-of-order queue holds: each ACK carries up to three blocks (four
 * without timestamps), the one holding the segment that arrived last
 * first, then the others it reported recently, then the highest (RFC 2018
 * §4), and a duplicate first of all (a D-SACK, RFC 2883 §4).
 *
 * As a sender, it remembers each segment in flight (@segs: its range,
 * when it was last sent, whether the peer SACKed it, whether it was
 * deemed lost, whether a copy was sent again): the scoreboard of RFC 6675
 * §3, by segment rather than by byte, as Linux keeps one per skb.  From
 * it come
 *
 * - pipe (RFC 6675 §4): the bytes in flight, those SACKed or deemed lost
 *   taken out and those sent again put in, which is what recovery sends
 *   against cwnd (tcp_out.c);
 * - RACK (RFC 8985 §6): a segment is lost when one sent after it by more
 *   than the reordering window was delivered (acknowledged or SACKed),
 *   and it was sent more than RACK.rtt ago.  The reordering window is a
 *   quarter of the least round trip, grown for each D-SACK, and zero
 *   until the peer was seen to reorder when three segments' worth was
 *   SACKed or recovery is on (§6.2 step 4);
 * - TLP (RFC 8985 §7): when the flight's last segments may be lost with
 *   nothing behind them to be SACKed, a probe two round trips after the
 *   last send, not an RTO (tcp_out.c).
 *
 * Loss recovery of a SACK connection (IXM_TCPF_IN_RECOVERY) begins when
 * RACK deems a segment lost, with NewReno's cwnd reduction (RFC 6675 §5
 * step 4.2: cwnd = ssthresh), and ends when the recovery point is
 * acknowledged, as RFC 6582's does.  A timeout marks the first segment
 * lost and those sent a round trip ago, and keeps what was SACKed unless
 * the peer shows it reneged (RFC 8985 §6.3, RFC 6675 §5.1).
 */
#include "tcp.h"
#include "app.h"

static u32 ixm_tcp_now_us(const struct ixm_tcp_conn *c)
{
	return (u32)(c->table->stack->now_ns / 1000);
}

static struct ixm_tcp_txseg *ixm_tcp_seg(struct ixm_tcp_conn *c, u32 i)
{
	return &c->segs[(c->seg_head + i) % IXM_TCP_TXSEGS];
}

/* ---- the receiver's blocks ---- */

/**
 * ixm_tcp_sack_ooo() - a segment from @seq on joined the out-of-order queue
 * @c: the connection
 * @seq: its first byte
 *
 * It becomes the most recent: its block goes first on the next ACKs.
 */
void ixm_tcp_sack_ooo(struct ixm_tcp_conn *c, u32 seq)
{
	u32 i, n = min_t(u32, c->sack_nrecent, IXM_TCP_SACK_BLOCKS - 1);

	if (!(c->flags & IXM_TCPF_SACK))
		return;
	for (i = n; i > 0; i--)
		c->sack_recent[i] = c->sack_recent[i - 1];
	c->sack_recent[0] = seq;
	c->sack_nrecent = n + 1;
}

/**
 * ixm_tcp_sack_dup() - bytes [@seq, @end) arrived that were here already
 * @c: the connection
 * @seq: the first
 * @end: after the last
 *
 * The next ACK reports them first, as a D-SACK (RFC 2883 §4).
 */
void ixm_tcp_sack_dup(struct ixm_tcp_conn *c, u32 seq, u32 end)
{
	if (!(c->flags & IXM_TCPF_SACK) || !ixm_seq_lt(seq, end))
		return;
	c->dsack[0] = seq;
	c->dsack[1] = end;
	c->flags |= IXM_TCPF_DSACK;
}

/* Whether a block starting at @lo is among @n blocks of @blk. */
static bool ixm_tcp_sack_has(u32 (*blk)[2], unsigned int n, u32 lo)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (blk[i][0] == lo)
			return true;
	return false;
}

#define IXM_TCP_SACK_HIGH	8	/* the highest runs remembered while walking */

/*
 * The out-of-order queue's runs (contiguous or overlapping buffers), as
 * blocks from @blk[@n] on, at most @max in all: those holding the recent
 * arrivals first, newest first, then the highest.  Recent entries no
 * longer queued drop out.  Return: the blocks now in @blk.
 */
static unsigned int ixm_tcp_sack_runs(struct ixm_tcp_conn *c, u32 (*blk)[2],
				      unsigned int n, unsigned int max)
{
	u32 rec[IXM_TCP_SACK_BLOCKS][2], high[IXM_TCP_SACK_HIGH][2];
	const struct ixm_mbuf *m = c->ooo;
	unsigned int i, k, nhigh = 0, first = n;
	bool have[IXM_TCP_SACK_BLOCKS] = { false };

	while (m) {
		u32 lo = m->seq, end = m->seq + m->len;

		for (m = m->next; m && ixm_seq_leq(m->seq, end); m = m->next)
			if (ixm_seq_gt(m->seq + m->len, end))
				end = m->seq + m->len;
		for (i = 0; i < c->sack_nrecent; i++) {
			if (ixm_seq_geq(c->sack_recent[i], lo) &&
			    ixm_seq_lt(c->sack_recent[i], end)) {
				rec[i][0] = lo;
				rec[i][1] = end;
				have[i] = true;
			}
		}
		high[nhigh % IXM_TCP_SACK_HIGH][0] = lo;
		high[nhigh % IXM_TCP_SACK_HIGH][1] = end;
		nhigh++;
	}
	for (i = 0, k = 0; i < c->sack_nrecent; i++) {
		if (!have[i] || ixm_tcp_sack_has(blk + first, n - first, rec[i][0]))
			continue;
		c->sack_recent[k++] = c->sack_recent[i];
		if (n < max) {
			blk[n][0] = rec[i][0];
			blk[n][1] = rec[i][1];
			n++;
		}
	}
	c->sack_nrecent = k;
	for (i = 0; i < min_t(u32, nhigh, IXM_TCP_SACK_HIGH) && n < max; i++) {
		u32 *h = high[(nhigh - 1 - i) % IXM_TCP_SACK_HIGH];

		if (!ixm_tcp_sack_has(blk + first, n - first, h[0])) {
			blk[n][0] = h[0];
			blk[n][1] = h[1];
			n++;
		}
	}
	return n;
}

/**
 * ixm_tcp_sack_put() - the SACK option of an ACK, if it has blocks to carry
 * @c: the connection, SACK agreed
 * @p: where the option goes (NOP, NOP, kind 5, length, blocks)
 * @room: option bytes left in the header
 *
 * Return: the bytes written (a multiple of 4), 0 for none.
 */
unsigned int ixm_tcp_sack_put(struct ixm_tcp_conn *c, u8 *p, unsigned int room)
{
	u32 blk[IXM_TCP_SACK_BLOCKS][2];
	unsigned int n = 0, max, i;

	if (room < 4 + 8)
		return 0;
	max = min_t(unsigned int, (room - 4) / 8, IXM_TCP_SACK_BLOCKS);
	if (c->flags & IXM_TCPF_DSACK) {
		blk[0][0] = c->dsack[0];
		blk[0][1] = c->dsack[1];
		n = 1;
		c->flags &= ~IXM_TCPF_DSACK;
		c->table->stats.dsacks_sent++;
	}
	if (c->ooo)
		n = ixm_tcp_sack_runs(c, blk, n, max);
	if (!n)
		return 0;
	p[0] = IXM_TCPOPT_NOP;
	p[1] = IXM_TCPOPT_NOP;
	p[2] = IXM_TCPOPT_SACK;
	p[3] = 2 + 8 * n;
	for (i = 0; i < n; i++) {
		ixm_put_be32(p + 4 + 8 * i, blk[i][0]);
		ixm_put_be32(p + 8 + 8 * i, blk[i][1]);
	}
	c->table->stats.sacks_sent++;
	return 4 + 8 * n;
}

/* ---- the sender's scoreboard ---- */

/* Add (@sign 1) or take out (-1) @r's bytes from the counts its flags name. */
static void ixm_tcp_seg_count(struct ixm_tcp_conn *c, const struct ixm_tcp_txseg *r,
			      int sign)
{
	u32 len = (u32)(sign * (int)r->len);

	if (r->flags & IXM_TXSEG_SACKED) {
		c->sacked_bytes += len;
		return;
	}
	if (r->flags & IXM_TXSEG_LOST)
		c->lost_bytes += len;
	if (r->flags & IXM_TXSEG_RETRANS)
		c->rxt_bytes += len;
}

static void ixm_tcp_seg_set(struct ixm_tcp_conn *c, struct ixm_tcp_txseg *r, u8 flags)
{
	ixm_tcp_seg_count(c, r, -1);
	r->flags = flags;
	ixm_tcp_seg_count(c, r, 1);
}

/**
 * ixm_tcp_seg_sent() - new data [@seq, @seq + @len) went out
 * @c: the connection, SACK agreed, fewer than IXM_TCP_TXSEGS in flight
 * @seq: its first byte, SND.MAX before it
 * @len: its bytes, at most the MSS
 */
void ixm_tcp_seg_sent(struct ixm_tcp_conn *c, u32 seq, u32 len)
{
	struct ixm_tcp_txseg *r;

	if (WARN_ONCE(c->seg_count >= IXM_TCP_TXSEGS,
		      "ixmod: TCP segment sent past the scoreboard\n"))
		return;
	r = ixm_tcp_seg(c, c->seg_count++);
	r->seq = seq;
	r->len = (u16)len;
	r->flags = c->seg_count == 1 ? IXM_TXSEG_LONE : 0;
	r->xmit_us = ixm_tcp_now_us(c);
	c->seg_bytes += len;
}

/**
 * ixm_tcp_seg_resent() - @r went out again (a loss repaired, or a probe)
 * @c: the connection
 * @r: one of its segments in flight
 */
void ixm_tcp_seg_resent(struct ixm_tcp_conn *c, struct ixm_tcp_txseg *r)
{
	u32 end = r->seq + r->len;

	ixm_tcp_seg_set(c, r, r->flags | IXM_TXSEG_RETRANS | IXM_TXSEG_EVER_RETRANS);
	r->xmit_us = ixm_tcp_now_us(c);
	/* the span a D-SACK must fall in to show a retransmission needless */
	if (c->rxt_lo == c->rxt_hi || ixm_seq_geq(c->snd_una, c->rxt_hi)) {
		c->rxt_lo = r->seq;
		c->rxt_hi = end;
	} else {
		if (ixm_seq_lt(r->seq, c->rxt_lo))
			c->rxt_lo = r->seq;
		if (ixm_seq_gt(end, c->rxt_hi))
			c->rxt_hi = end;
	}
}

/**
 * ixm_tcp_sack_pipe() - RFC 6675 §4's pipe: the data bytes in flight
 * @c: the connection
 *
 * Return: what was sent, less what was SACKed or deemed lost, plus what
 * was sent again.
 */
u32 ixm_tcp_sack_pipe(const struct ixm_tcp_conn *c)
{
	return c->seg_bytes - c->sacked_bytes - c->lost_bytes + c->rxt_bytes;
}

/**
 * ixm_tcp_sack_next_lost() - the oldest segment deemed lost and not sent again
 * @c: the connection
 *
 * Return: it, or NULL.
 */
struct ixm_tcp_txseg *ixm_tcp_sack_next_lost(struct ixm_tcp_conn *c)
{
	u32 i;

	if (!c->lost_bytes)
		return NULL;
	for (i = 0; i < c->seg_count; i++) {
		struct ixm_tcp_txseg *r = ixm_tcp_seg(c, i);

		if ((r->flags & (IXM_TXSEG_SACKED | IXM_TXSEG_LOST | IXM_TXSEG_RETRANS)) ==
		    IXM_TXSEG_LOST)
			return r;
	}
	return NULL;
}

/**
 * ixm_tcp_sack_all_lost() - every segment in flight is lost (a window
 * that reopened after a probe: what was in flight goes again)
 * @c: the connection, SACK agreed
 *
 * What the peer SACKed is forgotten (RFC 2018 §8); no probe is out.
 */
void ixm_tcp_sack_all_lost(struct ixm_tcp_conn *c)
{
	u32 i;

	for (i = 0; i < c->seg_count; i++) {
		struct ixm_tcp_txseg *r = ixm_tcp_seg(c, i);

		ixm_tcp_seg_set(c, r, (r->flags & ~(IXM_TXSEG_SACKED | IXM_TXSEG_RETRANS)) |
				IXM_TXSEG_LOST);
	}
	c->sack_high = c->snd_una;
	c->flags &= ~(IXM_TCPF_TLP_OUT | IXM_TCPF_TLP_RXT);
}

static u32 ixm_tcp_reo_wnd(const struct ixm_tcp_conn *c);

/**
 * ixm_tcp_sack_rto_lost() - a retransmission timeout: what is lost now
 * @c: the connection, SACK agreed, segments in flight
 *
 * RFC 8985 §6.3: the first segment in flight is lost (it went an RTO
 * ago); another only when it was sent RACK.rtt and the reordering window
 * ago or more.  What the peer SACKed stays SACKed, and is not sent again,
 * unless the first segment is among it: a receiver that SACKed what it
 * should have acknowledged has reneged (RFC 2018 §8), and then every mark
 * is forgotten (RFC 6675 §5.1 allows keeping them behind such a test, as
 * Linux's tcp_timeout_mark_lost() does).  Before, every SACK was
 * forgotten: a timeout in a window the peer had mostly SACKed sent all of
 * it again, needlessly (D-SACKed).  No probe is out.
 */
void ixm_tcp_sack_rto_lost(struct ixm_tcp_conn *c)
{
	u32 now = ixm_tcp_now_us(c), wnd = c->rack_rtt_us + ixm_tcp_reo_wnd(c), i;
	bool reneged = ixm_tcp_seg(c, 0)->flags & IXM_TXSEG_SACKED;

	for (i = 0; i < c->seg_count; i++) {
		struct ixm_tcp_txseg *r = ixm_tcp_seg(c, i);
		u8 f = r->flags;

		if (reneged)
			f &= ~IXM_TXSEG_SACKED;
		else if (f & IXM_TXSEG_SACKED)
			continue;
		if (i && c->rack_rtt_us && (s32)(now - r->xmit_us) < (s32)wnd) {
			ixm_tcp_seg_set(c, r, f);
			continue;	/* sent too recently to tell */
		}
		ixm_tcp_seg_set(c, r, (f & ~IXM_TXSEG_RETRANS) | IXM_TXSEG_LOST);
	}
	if (reneged)
		c->sack_high = c->snd_una;
	c->flags &= ~(IXM_TCPF_TLP_OUT | IXM_TCPF_TLP_RXT);
}

/*
 * Split record @i of @c into @n records of at most @mss bytes, in place:
 * the ones after it move up by @n - 1 (the ring has room for them).  Each
 * piece keeps the record's flags and send time, so the counts by flag
 * (lost, sent again, SACKed) stay what they were.
 */
static void ixm_tcp_seg_split(struct ixm_tcp_conn *c, u32 i, u32 n, u32 mss)
{
	struct ixm_tcp_txseg r = *ixm_tcp_seg(c, i);
	u32 j, k;

	for (j = c->seg_count - 1; j > i; j--)
		*ixm_tcp_seg(c, j + n - 1) = *ixm_tcp_seg(c, j);
	for (k = 0; k < n; k++) {
		struct ixm_tcp_txseg *p = ixm_tcp_seg(c, i + k);

		*p = r;
		p->seq = r.seq + k * mss;
		p->len = (u16)min_t(u32, mss, r.len - k * mss);
		if (k)
			p->flags &= ~IXM_TXSEG_LONE;
	}
	c->seg_count += n - 1;
}

/**
 * ixm_tcp_sack_mtu() - the MSS went down: records larger than it are lost
 * @c: the connection, SACK agreed, segments in flight
 *
 * RFC 8201 §4 (as Linux's tcp_simple_retransmit()): every segment in
 * flight that is larger than the new MSS was dropped for it, so each that
 * was not SACKed is deemed lost, and split into records of the new MSS,
 * which tcp_out.c sends again as it sends any loss (ahead of new data,
 * against pipe, and with no cwnd cut: this is not congestion).  A record
 * the ring has no room to split stays whole and goes again in pieces of
 * the MSS (ixm_tcp_output_lost()); its pieces are then SACKed only all
 * together.
 */
void ixm_tcp_sack_mtu(struct ixm_tcp_conn *c)
{
	u32 i, k, n;

	for (i = 0; i < c->seg_count; i += n) {
		struct ixm_tcp_txseg *r = ixm_tcp_seg(c, i);

		n = 1;
		if ((r->flags & IXM_TXSEG_SACKED) || r->len <= c->mss)
			continue;
		n = (r->len + c->mss - 1) / c->mss;
		if (c->seg_count + n - 1 <= IXM_TCP_TXSEGS)
			ixm_tcp_seg_split(c, i, n, c->mss);
		else
			n = 1;
		for (k = i; k < i + n; k++) {
			r = ixm_tcp_seg(c, k);
			ixm_tcp_seg_set(c, r, (r->flags & ~IXM_TXSEG_RETRANS) | IXM_TXSEG_LOST);
		}
	}
}

/* Whether a segment sent at @t1 ending at @e1 was sent after one at @t2, @e2. */
static bool ixm_tcp_sent_after(u32 t1, u32 e1, u32 t2, u32 e2)
{
	return (s32)(t1 - t2) > 0 || (t1 == t2 && ixm_seq_gt(e1, e2));
}

/*
 * RFC 8985 §6.2 step 2: @r was delivered (acknowledged or SACKed) now.
 * Its round trip is RACK.rtt unless it was sent more than once and the
 * time is too short for the last copy (the ACK is the first copy's).
 * Return: whether RACK.xmit_ts moved.
 */
static bool ixm_tcp_rack_update(struct ixm_tcp_conn *c, const struct ixm_tcp_txseg *r,
				u32 now)
{
	u32 rtt = now - r->xmit_us;

	if (r->flags & IXM_TXSEG_EVER_RETRANS) {
		if (rtt < c->min_rtt_us)
			return false;
	} else if (!c->min_rtt_us || rtt < c->min_rtt_us) {
		c->min_rtt_us = rtt ? rtt : 1;
	}
	c->rack_rtt_us = rtt;
	if (!ixm_tcp_sent_after(r->xmit_us, r->seq + r->len, c->rack_xmit_us, c->rack_end))
		return false;
	c->rack_xmit_us = r->xmit_us;
	c->rack_end = r->seq + r->len;
	return true;
}

/*
 * RFC 8985 §6.2 step 3: @r, never sent again, was delivered below @fack,
 * the highest byte delivered before it: RACK.reordering_seen, counted
 * once a connection.
 */
static void ixm_tcp_rack_reorder(struct ixm_tcp_conn *c, const struct ixm_tcp_txseg *r,
				 u32 fack)
{
	if ((r->flags & IXM_TXSEG_EVER_RETRANS) || !ixm_seq_lt(r->seq + r->len, fack) ||
	    (c->flags & IXM_TCPF_REORDER))
		return;
	c->table->stats.reordering++;
	c->flags |= IXM_TCPF_REORDER;
}

/* RFC 8985 §6.2 step 4: how much later than its successors a segment may arrive */
static u32 ixm_tcp_reo_wnd(const struct ixm_tcp_conn *c)
{
	if (!(c->flags & IXM_TCPF_REORDER) &&
	    ((c->flags & IXM_TCPF_IN_RECOVERY) || c->sacked_bytes >= 3 * c->mss))
		return 0;
	return min_t(u32, c->reo_mult * (c->min_rtt_us / 4), c->srtt_us);
}

/*
 * Only a FIN is in flight: every data byte is acknowledged, no record is
 * left (tcp_out.c records data only; a FIN that rode on data goes again
 * with its record).  RACK times it by @fin_xmit_us, set when a FIN goes
 * out alone, as it would a segment of its own (Linux's write queue holds
 * a FIN).  A FIN that rode on data of which a receiver took only the
 * data (its window ended there) has no time of its own: the first
 * delivery RACK hears of then finds it lost, and it goes again, rightly.
 */
static bool ixm_tcp_fin_alone(const struct ixm_tcp_conn *c)
{
	return !c->seg_count && (c->flags & IXM_TCPF_FIN_SENT) &&
	       c->snd_una + 1 == c->snd_max && c->snd_nxt == c->snd_max;
}

/*
 * RFC 8985 §6.2 step 5 for a FIN alone (above): sent before the segment
 * RACK last heard of and its round trip and the window past, it is lost,
 * and goes again at once (SND.NXT back to it: ixm_tcp_output() sends a
 * FIN there).  Before, only the RTO sent it again: a FIN lost in a
 * recovery, while the data it followed was repaired, cost 200 ms.
 */
static bool ixm_tcp_rack_detect_fin(struct ixm_tcp_conn *c, u32 now, u32 reo, u32 *wait_us)
{
	s32 left;

	if (!ixm_tcp_sent_after(c->rack_xmit_us, c->rack_end, c->fin_xmit_us, c->snd_max))
		return false;
	left = (s32)(c->fin_xmit_us + c->rack_rtt_us + reo - now);
	if (left > 0) {
		*wait_us = left;
		return false;
	}
	c->snd_nxt = c->snd_una;	/* ixm_tcp_output() sends it, and counts it */
	c->table->stats.rack_losses++;
	return true;
}

/*
 * RFC 8985 §6.2 step 5: every segment sent before RACK's that has had
 * its round trip and the reordering window is lost.  Return: whether one
 * was newly deemed so; *@wait_us, the longest any other must still wait.
 */
static bool ixm_tcp_rack_detect(struct ixm_tcp_conn *c, u32 now, u32 *wait_us)
{
	u32 reo = ixm_tcp_reo_wnd(c), i;
	bool lost = false;

	*wait_us = 0;
	if (ixm_tcp_fin_alone(c))
		return ixm_tcp_rack_detect_fin(c, now, reo, wait_us);
	for (i = 0; i < c->seg_count; i++) {
		struct ixm_tcp_txseg *r = ixm_tcp_seg(c, i);
		s32 left;

		if (r->flags & IXM_TXSEG_SACKED)
			continue;
		if ((r->flags & (IXM_TXSEG_LOST | IXM_TXSEG_RETRANS)) == IXM_TXSEG_LOST)
			continue;	/* lost already, waiting to go again */
		if (!ixm_tcp_sent_after(c->rack_xmit_us, c->rack_end, r->xmit_us,
					r->seq + r->len))
			continue;
		left = (s32)(r->xmit_us + c->rack_rtt_us + reo - now);
		if (left <= 0) {
			ixm_tcp_seg_set(c, r, (r->flags & ~IXM_TXSEG_RETRANS) | IXM_TXSEG_LOST);
			c->table->stats.rack_losses++;
			lost = true;
		} else if ((u32)left > *wait_us) {
			*wait_us = left;
		}
	}
	return lost;
}

/*
 * A segment was newly deemed lost: loss recovery begins, with cwnd cut
 * once for the window (not again while a timeout's repair goes on).
 */
static void ixm_tcp_sack_recover(struct ixm_tcp_conn *c)
{
	if ((c->flags & IXM_TCPF_IN_RECOVERY) || ixm_seq_lt(c->snd_una, c->recover))
		return;
	c->table->stats.sack_recoveries++;
	c->ssthresh = c->cc->ssthresh(c);
	c->cwnd = c->ssthresh;
	c->recover = c->snd_max;
	c->flags |= IXM_TCPF_IN_RECOVERY;
	/* RFC 8985 §6.2 step 4: reo_wnd_persist */
	if (c->reo_persist && !--c->reo_persist)
		c->reo_mult = 1;
	ixm_tcp_trace_recovery(c, true, IXM_TCP_REC_RACK);
}

/*
 * Run RACK's detection; arm its reordering timer if a segment must still
 * wait, and have what is lost sent (the pending list).
 */
static void ixm_tcp_rack_run(struct ixm_tcp_conn *c, u32 now)
{
	struct ixm_tcp_table *t = c->table;
	u32 wait;

	if (ixm_tcp_rack_detect(c, now, &wait)) {
		ixm_tcp_sack_recover(c);
		ixm_tcp_mark_pending(c);
	}
	/* a wait past the RTO is the RTO's to end (a peer's long RACK.rtt) */
	if (wait && wait < c->rto_us) {
		c->flags = (c->flags & ~(IXM_TCPF_PTO | IXM_TCPF_PERSIST)) | IXM_TCPF_REO;
		ixm_timer_arm(&t->wheel, &c->timer, t->stack->now_ns + (u64)wait * 1000 +
			      IXM_TIMER_TICK_NS);
	}
}

/*
 * Is block @i of @o a D-SACK (RFC 2883 §4)?  Only the first may be: it
 * lies below the cumulative acknowledgment, or inside the second block.
 */
static bool ixm_tcp_is_dsack(const struct ixm_tcp_opts *o, u32 ack)
{
	if (ixm_seq_leq(o->sack[0][1], ack))
		return true;
	return o->nsack > 1 && ixm_seq_geq(o->sack[0][0], o->sack[1][0]) &&
	       ixm_seq_leq(o->sack[0][1], o->sack[1][1]);
}

/* A D-SACK [@lo, @hi): a copy arrived twice; was it one we sent again? */
static void ixm_tcp_dsack_rcvd(struct ixm_tcp_conn *c, u32 lo, u32 hi)
{
	struct ixm_tcp_table *t = c->table;

	t->stats.dsacks_rcvd++;
	/*
	 * Within what was last sent more than once: that copy was needless
	 * (else the network duplicated a segment).
	 */
	if (c->rxt_lo != c->rxt_hi && ixm_seq_geq(lo, c->rxt_lo) &&
	    ixm_seq_leq(hi, c->rxt_hi))
		t->stats.spurious_retrans++;
	/*
	 * A tail loss probe sent again what had arrived after all: the
	 * D-SACK of the probe (it reaches the probe's end, TLP.end_seq, or
	 * the byte before it, a FIN) says the tail was not lost (RFC 8985
	 * §7.4.2), nothing about reordering.  Before, it widened RACK's
	 * window as reordering would, and for good: every later loss of the
	 * connection waited that window, up to an SRTT, in recovery too.
	 */
	if ((c->flags & IXM_TCPF_TLP_RXT) && ixm_seq_geq(hi + 1, c->tlp_end))
		return;
	/*
	 * RFC 8985 §6.2 step 4: once per round trip, a wider window.  Not
	 * reordering_seen: with none seen, recovery still waits no window.
	 */
	if (ixm_seq_geq(c->snd_una, c->dsack_round)) {
		c->dsack_round = c->snd_max;
		if (c->reo_mult < 16)
			c->reo_mult++;
		c->reo_persist = 16;
	}
}

/*
 * Mark the segments [@lo, @hi) covers whole as SACKed; RACK hears of
 * them.  @fack: the highest byte SACKed before this ACK (RACK.fack): an
 * ACK's blocks come newest first, and an older block in the same ACK
 * (its first report lost on the way back) is no sign of reordering.
 */
static bool ixm_tcp_sack_mark(struct ixm_tcp_conn *c, u32 lo, u32 hi, u32 now, u32 fack)
{
	bool moved = false;
	u32 i;

	for (i = 0; i < c->seg_count; i++) {
		struct ixm_tcp_txseg *r = ixm_tcp_seg(c, i);
		u32 end = r->seq + r->len;

		if (ixm_seq_geq(r->seq, hi))
			break;
		if ((r->flags & IXM_TXSEG_SACKED) || ixm_seq_lt(r->seq, lo) ||
		    ixm_seq_gt(end, hi))
			continue;
		ixm_tcp_rack_reorder(c, r, fack);
		ixm_tcp_seg_set(c, r, (r->flags | IXM_TXSEG_SACKED) &
				~(IXM_TXSEG_LOST | IXM_TXSEG_RETRANS));
		moved |= ixm_tcp_rack_update(c, r, now);
	}
	if (ixm_seq_gt(hi, c->sack_high))
		c->sack_high = hi;
	return moved;
}

/**
 * ixm_tcp_sack_acked() - a cumulative acknowledgment up to @ack
 * @c: the connection, SACK agreed
 * @ack: the acknowledgment, past SND.UNA
 *
 * The segments it covers leave the scoreboard, RACK hearing of each;
 * one it covers in part keeps the rest.
 *
 * Return: whether RACK.xmit_ts moved.
 */
bool ixm_tcp_sack_acked(struct ixm_tcp_conn *c, u32 ack)
{
	u32 now = ixm_tcp_now_us(c);
	bool moved = false;

	/*
	 * The common case: everything in flight acknowledged, nothing SACKed,
	 * lost or sent twice.  The newest segment was sent last and was
	 * delivered: RACK hears of it alone, and the ring empties.
	 */
	if (c->seg_count && !(c->sacked_bytes | c->lost_bytes | c->rxt_bytes)) {
		struct ixm_tcp_txseg *r = ixm_tcp_seg(c, c->seg_count - 1);

		if (ixm_seq_geq(ack, r->seq + r->len) && !(r->flags & IXM_TXSEG_EVER_RETRANS)) {
			moved = ixm_tcp_rack_update(c, r, now);
			c->seg_count = 0;
			c->seg_head = 0;
			c->seg_bytes = 0;
			c->sack_high = ack;
			return moved;
		}
	}

	while (c->seg_count) {
		struct ixm_tcp_txseg *r = ixm_tcp_seg(c, 0);
		u32 end = r->seq + r->len;

		if (ixm_seq_gt(end, ack)) {
			if (ixm_seq_gt(ack, r->seq)) {
				u32 cut = ack - r->seq;

				ixm_tcp_seg_count(c, r, -1);
				r->seq = ack;
				r->len -= (u16)cut;
				c->seg_bytes -= cut;
				ixm_tcp_seg_count(c, r, 1);
			}
			break;
		}
		if (!(r->flags & IXM_TXSEG_SACKED)) {
			ixm_tcp_rack_reorder(c, r, c->sack_high);
			moved |= ixm_tcp_rack_update(c, r, now);
		}
		ixm_tcp_seg_count(c, r, -1);
		c->seg_bytes -= r->len;
		c->seg_head = (c->seg_head + 1) % IXM_TCP_TXSEGS;
		c->seg_count--;
	}
	if (!c->seg_count)
		c->seg_head = 0;
	if (ixm_seq_lt(c->sack_high, ack))
		c->sack_high = ack;
	return moved;
}

/**
 * ixm_tcp_sack_rcv() - what an acceptable ACK's SACK option says
 * @c: the connection, SACK agreed
 * @o: the segment's options
 * @moved: a cumulative acknowledgment in the same segment moved RACK
 * @dup: the segment is a duplicate ACK (no data, no new ACK, same window)
 *
 * D-SACKs, new SACKed segments, then RACK's detection, and the end of a
 * tail loss probe (RFC 8985 §7.4, as Linux's tcp_process_tlp_ack()).
 */
void ixm_tcp_sack_rcv(struct ixm_tcp_conn *c, const struct ixm_tcp_opts *o,
		      bool moved, bool dup)
{
	struct ixm_tcp_table *t = c->table;
	u32 now = ixm_tcp_now_us(c), fack = c->sack_high;
	bool dsack = false;
	unsigned int i = 0;

	if (o->nsack) {
		t->stats.sacks_rcvd++;
		if (ixm_tcp_is_dsack(o, c->snd_una)) {
			ixm_tcp_dsack_rcvd(c, o->sack[0][0], o->sack[0][1]);
			dsack = true;
			i = 1;
		}
		for (; i < o->nsack; i++) {
			u32 lo = o->sack[i][0], hi = o->sack[i][1];

			/* RFC 2018 §3: only what lies in what we sent; trimmed to SND.UNA */
			if (!ixm_seq_lt(lo, hi) || ixm_seq_gt(hi, c->snd_max) ||
			    ixm_seq_leq(hi, c->snd_una))
				continue;
			if (ixm_seq_lt(lo, c->snd_una))
				lo = c->snd_una;
			moved |= ixm_tcp_sack_mark(c, lo, hi, now, fack);
		}
	}
	if (c->flags & IXM_TCPF_TLP_OUT && ixm_seq_geq(c->snd_una, c->tlp_end)) {
		if (!(c->flags & IXM_TCPF_TLP_RXT) || dsack) {
			c->flags &= ~(IXM_TCPF_TLP_OUT | IXM_TCPF_TLP_RXT);
		} else if (ixm_seq_gt(c->snd_una, c->tlp_end)) {
			/* the probe repaired a loss: answer it as one (§7.4.2) */
			c->flags &= ~(IXM_TCPF_TLP_OUT | IXM_TCPF_TLP_RXT);
			c->ssthresh = c->cc->ssthresh(c);
			c->cwnd = c->ssthresh;
			ixm_tcp_trace_recovery(c, false, IXM_TCP_REC_TLP);
		} else if (dup && !o->nsack) {
			c->flags &= ~(IXM_TCPF_TLP_OUT | IXM_TCPF_TLP_RXT);
		}
	}
	if (moved && (c->seg_count || ixm_tcp_fin_alone(c)))
		ixm_tcp_rack_run(c, now);
}

/**
 * ixm_tcp_reo_fn() - RACK's reordering wait is over
 * @c: the connection
 */
void ixm_tcp_reo_fn(struct ixm_tcp_conn *c)
{
	c->flags &= ~IXM_TCPF_REO;
	ixm_tcp_rack_run(c, ixm_tcp_now_us(c));
	if (!(c->flags & IXM_TCPF_REO) && c->snd_una != c->snd_max)
		ixm_tcp_arm_rexmit(c);
	ixm_tcp_output(c);
}

/**
 * ixm_tcp_sack_init() - SACK was agreed on the handshake
 * @c: the connection
 */
void ixm_tcp_sack_init(struct ixm_tcp_conn *c)
{
	c->flags |= IXM_TCPF_SACK;
	c->seg_head = 0;
	c->seg_count = 0;
	c->rack_xmit_us = ixm_tcp_now_us(c);
	c->rack_end = c->iss;
	c->reo_mult = 1;
	/* sequence numbers compare within 2^31 of each other: none is 0 here */
	c->dsack_round = c->iss;
	c->sack_high = c->iss;
	c->tlp_end = c->iss;
	c->rxt_lo = c->iss;
	c->rxt_hi = c->iss;
}
