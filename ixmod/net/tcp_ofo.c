// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_ofo.c - the out-of-order queue: what a connection keeps past a hole
 *
 * A segment that arrives past RCV.NXT waits, sorted by sequence number,
 * until the data before it comes (RFC 9293 §3.10.7.4, seventh check: a
 * receiver may keep it; RFC 5681 §4.2 and §3.2's fast recovery depend on
 * it being kept).  Its buffer comes from the core's receive pool, which
 * the NIC's receive ring, every connection and the application share,
 * and the peer decides what it sends past a hole and for how long it
 * leaves the hole open.  Left alone, some 28 connections of one peer,
 * each with 64 one-byte segments past a hole, hold 7/8 of the pool for
 * good, and then no connection of the core gets in-order data in (issue
 * 35).  So:
 *
 * - a queued segment costs its connection a whole buffer (what Linux
 *   calls its truesize, charged against sk_rcvbuf), and a connection
 *   queues at most IXM_TCP_OOO_MAX of them and at most its receive
 *   buffer's worth (tcp_rcv_buf / 2 KiB); a segment that continues the
 *   one queued before it and fits that buffer's tail is copied there
 *   instead, at no charge (Linux's tcp_try_coalesce());
 * - all the connections of a core together hold at most
 *   IXM_TCP_OOO_CORE out-of-order buffers (an eighth of a pool), and
 *   none that in-order data needs: when a pool is below its reserve
 *   (ixm_tcp_pool_room()), queues give buffers back before a segment is
 *   refused;
 * - when room must be made, the connection that holds the most gives up
 *   its newest buffer (the highest sequence numbers, the least use soon,
 *   as in Linux's tcp_prune_ofo_queue()), unless that is the arriving
 *   segment's own connection and the segment would be its newest: then
 *   the segment is dropped.  So N connections that keep holes open share
 *   the core's part between them, and a connection that lost one segment
 *   gets its few buffers from the largest holder;
 * - a connection that can take no more data (it died, or the peer's FIN
 *   arrived in order) frees its queue at once.
 *
 * Dropping or pruning out-of-order data is always allowed: it was never
 * acknowledged, and the peer sends it again.  Each decision is counted:
 * tcp_ooo_coalesced, tcp_ooo_drops, tcp_ooo_pruned, tcp_ooo_purged.
 */
#include "tcp.h"
#include "app.h"

/* The least a connection may queue, however small its receive buffer. */
#define IXM_TCP_OOO_MIN		2

/* Out-of-order buffers @c may hold: its count bound and its buffer's worth. */
static u32 ixm_tcp_ooo_limit(const struct ixm_tcp_conn *c)
{
	u32 n = c->rcv_buf / IXM_MBUF_SIZE;

	return clamp_t(u32, n, IXM_TCP_OOO_MIN, IXM_TCP_OOO_MAX);
}

/* @c takes one more out-of-order buffer: its count and the core's. */
static void ixm_tcp_ooo_charge(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;

	/* the holders' table: 16-bit indices and counts, an eighth of a pool */
	BUILD_BUG_ON(IXM_TCP_CONNS > 65536 || IXM_TCP_OOO_MAX > 65535);
	BUILD_BUG_ON(IXM_TCP_OOO_CORE * 8 != IXM_RX_SLICE_BUFS);
	if (!c->ooo_count++) {
		c->ooo_slot = t->ooo_nhold++;
		t->ooo_hold[c->ooo_slot].conn = (u16)ixm_tcp_idx(c);
	}
	t->ooo_hold[c->ooo_slot].bufs = (u16)c->ooo_count;
	t->ooo_bufs++;
	c->rcv_bufs++;
}

/*
 * @c gives one out-of-order buffer up (the caller freed it, or moved it to
 * the in-order queue, where it still counts in @rcv_bufs).
 */
static void ixm_tcp_ooo_uncharge(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;

	t->ooo_bufs--;
	if (--c->ooo_count) {
		t->ooo_hold[c->ooo_slot].bufs = (u16)c->ooo_count;
		return;
	}
	/* the last entry takes its place */
	t->ooo_hold[c->ooo_slot] = t->ooo_hold[--t->ooo_nhold];
	t->conns[t->ooo_hold[c->ooo_slot].conn].ooo_slot = c->ooo_slot;
}

/* Free the newest (highest) buffer of @c's queue, which is not empty. */
static void ixm_tcp_ooo_free_newest(struct ixm_tcp_conn *c)
{
	struct ixm_mbuf **pp = &c->ooo, *m;

	while ((*pp)->next)
		pp = &(*pp)->next;
	m = *pp;
	*pp = NULL;
	/* the FIN it carried goes too; the peer sends it again */
	if ((c->flags & IXM_TCPF_OOO_FIN) && m->seq + m->len == c->ooo_fin)
		c->flags &= ~IXM_TCPF_OOO_FIN;
	ixm_tcp_ooo_uncharge(c);
	c->rcv_bufs--;
	ixm_mbuf_free(m);
}

/* The newest buffer of @c's queue, or NULL. */
static const struct ixm_mbuf *ixm_tcp_ooo_newest(const struct ixm_tcp_conn *c)
{
	const struct ixm_mbuf *m = c->ooo;

	while (m && m->next)
		m = m->next;
	return m;
}

/**
 * ixm_tcp_ooo_prune() - free one out-of-order buffer to make room
 * @c: the connection a segment arrived for
 * @seq: the segment's first sequence number
 * @pool: only a queue holding buffers of this pool will do; NULL: any
 *
 * The connection that holds the most gives up its newest buffer.  @c's
 * claim counts the arriving segment when it is out of order itself; if no
 * other connection holds more, @c's own newest goes, provided it lies past
 * @seq (Linux's tcp_prune_ofo_queue() keeps what is before the arriving
 * segment too).  The search reads @c->table->ooo_hold only, at most
 * IXM_TCP_OOO_CORE entries of four bytes.
 *
 * Return: true if a buffer was freed, false if the segment should go.
 */
static bool ixm_tcp_ooo_prune(struct ixm_tcp_conn *c, u32 seq,
			      const struct ixm_mbuf_pool *pool)
{
	struct ixm_tcp_table *t = c->table;
	u32 most = c->ooo_count + (seq != c->rcv_nxt);
	struct ixm_tcp_conn *hog = NULL;
	const struct ixm_mbuf *newest;
	u32 i;

	for (i = 0; i < t->ooo_nhold; i++) {
		const struct ixm_tcp_ooo_hold *h = &t->ooo_hold[i];
		struct ixm_tcp_conn *o;

		if (h->bufs <= most)
			continue;
		o = &t->conns[h->conn];
		if (pool && o->ooo->pool != pool)
			continue;
		hog = o;
		most = h->bufs;
	}
	if (!hog) {
		newest = ixm_tcp_ooo_newest(c);
		if (!newest || !ixm_seq_gt(newest->seq, seq) ||
		    (pool && newest->pool != pool))
			return false;
		hog = c;
	}
	ixm_tcp_ooo_free_newest(hog);
	t->stats.ooo_pruned++;
	return true;
}

/**
 * ixm_tcp_ooo_relieve() - make room in a pool below its reserve
 * @c: the connection whose segment @m arrived
 * @m: the segment, @m->seq its first sequence number
 *
 * ixm_tcp_rcv_room() said no.  When the pool was the reason (not @c's
 * own buffer count), out-of-order queues holding the pool's buffers give
 * them back, largest first, until the pool has its reserve again.
 *
 * Return: whether @m may be kept now.
 */
bool ixm_tcp_ooo_relieve(struct ixm_tcp_conn *c, const struct ixm_mbuf *m)
{
	if (c->rcv_bufs >= IXM_TCP_RCV_BUFS)
		return false;
	while (!ixm_tcp_pool_room(m->pool))
		if (!ixm_tcp_ooo_prune(c, m->seq, m->pool))
			return false;
	return true;
}

/*
 * Room for one more out-of-order buffer on @c, for @m: within the
 * connection's bound and the core's share, pruning as the header says.
 * The pool's reserve was seen to before (ixm_tcp_ooo_relieve()).
 */
static bool ixm_tcp_ooo_admit(struct ixm_tcp_conn *c, const struct ixm_mbuf *m)
{
	struct ixm_tcp_table *t = c->table;

	while (c->ooo_count >= ixm_tcp_ooo_limit(c)) {
		const struct ixm_mbuf *newest = ixm_tcp_ooo_newest(c);

		/* its own queue only: the newest goes, or the segment does */
		if (!ixm_seq_gt(newest->seq, m->seq))
			return false;
		ixm_tcp_ooo_free_newest(c);
		t->stats.ooo_pruned++;
	}
	while (t->ooo_bufs >= IXM_TCP_OOO_CORE)
		if (!ixm_tcp_ooo_prune(c, m->seq, NULL))
			return false;
	return true;
}

/*
 * Copy @m's bytes into the tail of @p, the queued buffer they continue,
 * if they fit there.
 */
static bool ixm_tcp_ooo_coalesce(struct ixm_mbuf *p, const struct ixm_mbuf *m)
{
	u8 *end = p->data + p->len;

	if (p->seq + p->len != m->seq || m->len > p->buf + IXM_MBUF_SIZE - end)
		return false;
	memcpy(end, m->data, m->len);
	p->len += m->len;
	return true;
}

/**
 * ixm_tcp_ooo_queue() - keep a segment that arrived past a hole
 * @c: the connection
 * @m: the segment, trimmed to the window, @m->seq past @c->rcv_nxt
 *
 * Return: IXM_TCP_OOO_QUEUED (the buffer waits in the queue),
 * IXM_TCP_OOO_COPIED (its bytes were copied into a queued buffer: the
 * caller frees @m), IXM_TCP_OOO_HAD (the same start is queued with at
 * least as many bytes: the caller frees @m) or IXM_TCP_OOO_DROPPED (no
 * room: counted in ooo_drops; the caller frees @m).
 */
int ixm_tcp_ooo_queue(struct ixm_tcp_conn *c, struct ixm_mbuf *m)
{
	struct ixm_tcp_table *t = c->table;
	struct ixm_mbuf **pp = &c->ooo, *prev = NULL;

	while (*pp && ixm_seq_lt((*pp)->seq, m->seq)) {
		prev = *pp;
		pp = &prev->next;
	}
	/* the same start again: keep the longer one already there */
	if (*pp && (*pp)->seq == m->seq && (*pp)->len >= m->len)
		return IXM_TCP_OOO_HAD;
	if (prev && ixm_tcp_ooo_coalesce(prev, m)) {
		t->stats.ooo_coalesced++;
		return IXM_TCP_OOO_COPIED;
	}
	if (!ixm_tcp_ooo_admit(c, m)) {
		t->stats.ooo_drops++;
		return IXM_TCP_OOO_DROPPED;
	}
	/* pruning may have taken what followed the place: find it again */
	for (pp = &c->ooo; *pp && ixm_seq_lt((*pp)->seq, m->seq); pp = &(*pp)->next)
		;
	m->next = *pp;
	*pp = m;
	m->owner = NULL;
	ixm_tcp_ooo_charge(c);
	return IXM_TCP_OOO_QUEUED;
}

/**
 * ixm_tcp_ooo_drain() - deliver what the data before it made in order
 * @c: the connection, @c->rcv_nxt just advanced
 */
void ixm_tcp_ooo_drain(struct ixm_tcp_conn *c)
{
	struct ixm_mbuf *m;

	while ((m = c->ooo) && ixm_seq_leq(m->seq, c->rcv_nxt)) {
		u32 skip = c->rcv_nxt - m->seq;

		c->ooo = m->next;
		ixm_tcp_ooo_uncharge(c);
		if (skip >= m->len) {
			c->rcv_bufs--;
			ixm_mbuf_free(m);
			continue;
		}
		m->data += skip;
		m->len -= skip;
		m->seq += skip;
		ixm_tcp_deliver(c, m);
	}
}

/**
 * ixm_tcp_ooo_purge() - free every out-of-order buffer of @c
 * @c: the connection
 *
 * Return: how many were freed.
 */
u32 ixm_tcp_ooo_purge(struct ixm_tcp_conn *c)
{
	struct ixm_mbuf *m;
	u32 n = 0;

	while ((m = c->ooo)) {
		c->ooo = m->next;
		ixm_tcp_ooo_uncharge(c);
		c->rcv_bufs--;
		ixm_mbuf_free(m);
		n++;
	}
	c->flags &= ~IXM_TCPF_OOO_FIN;
	return n;
}
