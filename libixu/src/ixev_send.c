// SPDX-License-Identifier: MIT
/*
 * ixev_send.c - buffered and zero-copy sends on ixev's connections
 *
 * A connection's send buffer is a FIFO of segments in the transmit arena
 * (ixev_arena.c), counted in stream positions: fill (written), queued
 * (accepted by the kernel) and acked (acknowledged).  ixev_send() copies
 * into it, ixev_send_zc() queues bytes the application built in the
 * arena; ixev_conn_send() turns the unsent bytes into one call per pass;
 * IXMOD_EV_TCP_SENT frees what the peer acknowledged.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/*
 * Whether an open connection may keep its acknowledged last unit for its
 * next send: only while most of the arena is free and nobody waits for
 * units, so that thousands of idle connections cannot pin it.
 */
static bool keep_unit(const struct ixev_conn *c)
{
	const struct ixev *ev = c->ev;

	return c->state == S_OPEN && !c->closing && !ev->nstarved &&
	       ev->st.arena_used < (unsigned long long)ev->nunits * UNIT / 2;
}

/*
 * Acknowledged segments leave the send buffer.  The last one, when it is
 * a single buffered unit, stays as an empty segment for the next send to
 * write into (keep_unit()): a request-response connection then takes and
 * frees no unit per response (its bytes are no frame's any more once
 * acknowledged).
 */
void ixev_segs_acked(struct ixev_conn *c)
{
	while (c->seg_n) {
		struct seg *g = &c->segs[c->seg_head];

		if (c->base + g->len > c->acked)
			break;
		c->base += g->len;
		if (c->seg_n == 1 && g->units == 1 && keep_unit(c)) {
			g->len = 0;
			break;
		}
		ixev_seg_pop(c);
	}
}

/*
 * The arena is full: this connection may have nothing in flight whose
 * acknowledgment would free room, so it waits for units freed by anyone
 * (ixev_wake_starved()).
 */
static void starve(struct ixev_conn *c)
{
	struct ixev *ev = c->ev;

	ev->st.arena_waits++;
	if (c->starved || ixev_grow((void **)&ev->starved, &ev->starved_cap, ev->nstarved + 1,
				    sizeof(*ev->starved)))
		return;
	c->starved = true;
	ev->starved[ev->nstarved++] = conn_cookie(c);
}

/* Room came back for a connection that asked (ixev_send() turned it away). */
void ixev_tell_writable(struct ixev_conn *c)
{
	if (c->want_write && c->state == S_OPEN && !c->closing) {
		c->want_write = false;
		if (c->ops && c->ops->writable)
			c->ops->writable(c);
	}
}

/* Units came back: tell the connections the arena turned away. */
void ixev_wake_starved(struct ixev *ev)
{
	unsigned int i, n = ev->nstarved;

	ev->arena_freed = false;
	ev->nstarved = 0;
	for (i = 0; i < n; i++) {
		struct ixev_conn *c = ixev_conn_of(ev, ev->starved[i]);

		if (!c || c->state == S_ZOMBIE)
			continue;
		c->starved = false;
		if (c->held_n)
			c->resume = true;
		ixev_mark_dirty(c);
		ixev_tell_writable(c);
	}
}

static bool conn_sendable(const struct ixev_conn *c)
{
	return c->state != S_ZOMBIE && !c->closing && !c->wr_shut;
}

/*
 * ixev_send - queue bytes on a connection
 *
 * SYNOPSIS
 *	ssize_t ixev_send(struct ixev_conn *c, const void *buf, size_t len);
 *
 * DESCRIPTION
 *	Copies up to @len bytes from @buf into the connection's send buffer
 *	in the transmit arena.  Everything written during one pass goes to
 *	the kernel in one call per connection at the end of the pass; the
 *	bytes stay in the arena until the peer acknowledges them.  A send
 *	buffer holds at most ixev_params.sndbuf unacknowledged bytes and at
 *	most the connection's share of the arena: 4 KiB that the other
 *	connections cannot take (half of the arena is kept for these, about
 *	1,000 connections' worth with the default arena), and beyond them
 *	what it may borrow from the other half: no more than is left to
 *	borrow after it.  So peers that stop reading cannot take the arena
 *	from the other connections.  When the send buffer, the share or the
 *	arena is full the call takes less, and writable() is called when
 *	room comes back.  May
 *	be called from any callback, also before the connection is
 *	established (the bytes go once it is).
 *
 * RETURN VALUE
 *	The bytes taken (0 to @len), or -EPIPE when the connection was
 *	closed or is over.
 */
ssize_t ixev_send(struct ixev_conn *c, const void *buf, size_t len)
{
	struct ixev *ev = c->ev;
	const unsigned char *src = buf;
	size_t done = 0;

	if (!conn_sendable(c))
		return -EPIPE;
	while (done < len) {
		struct seg *g = c->seg_n ? &c->segs[(c->seg_head + c->seg_n - 1) % SEGS] : NULL;
		size_t budget = ev->sndbuf - (size_t)(c->fill - c->acked);
		size_t room = g && g->units ? g->units * UNIT - g->len : 0;
		size_t n;

		if (!budget)
			break;
		if (!room) {
			__u32 want = (len - done + UNIT - 1) / UNIT, off;

			if (c->seg_n == SEGS)
				break;
			if (want > SEG_UNITS)
				want = SEG_UNITS;
			off = ixev_conn_units_alloc(c, want);
			if (!off && want > 1)
				off = ixev_conn_units_alloc(c, want = 1);
			if (!off) {
				starve(c);	/* writable() once units come back */
				break;
			}
			g = &c->segs[(c->seg_head + c->seg_n++) % SEGS];
			*g = (struct seg){ .off = off, .units = want };
			room = want * UNIT;
		}
		n = len - done;
		if (n > room)
			n = room;
		if (n > budget)
			n = budget;
		memcpy(ixu_tx_ptr(&ev->ixu, g->off + g->len), src + done, n);
		g->len += n;
		c->fill += n;
		done += n;
	}
	if (done < len)
		c->want_write = true;
	if (done)
		ixev_mark_dirty(c);
	return done;
}

/*
 * ixev_send_space - how much ixev_send() would take now
 *
 * SYNOPSIS
 *	size_t ixev_send_space(const struct ixev_conn *c);
 *
 * DESCRIPTION
 *	The room left in the connection's send buffer (ixev_params.sndbuf
 *	minus the bytes not yet acknowledged).  An ixev_send() of at most
 *	this much takes it all unless the transmit arena, or the
 *	connection's share of it (ixev_send(3)), is full.
 *	writable() is called when room comes after an ixev_send() that
 *	took less than asked (one of 0 bytes too).
 *
 * RETURN VALUE
 *	Bytes; 0 when the connection is closed or over.
 */
size_t ixev_send_space(const struct ixev_conn *c)
{
	if (!conn_sendable(c))
		return 0;
	if (c->fill - c->acked >= c->ev->sndbuf)
		return 0;
	return c->ev->sndbuf - (size_t)(c->fill - c->acked);
}

/*
 * ixev_send_zc - send bytes that are already in the transmit arena
 *
 * SYNOPSIS
 *	int ixev_send_zc(struct ixev_conn *c, const void *p, size_t len,
 *			 void (*release)(void *arg), void *arg);
 *
 * DESCRIPTION
 *	Queues the @len bytes at @p, which must lie in memory from
 *	ixev_zc_alloc(), without copying them.  They are read until the peer
 *	acknowledges them; then (or when the connection is over) @release is
 *	called with @arg, once, and the bytes are the application's again.
 *	Ordered with ixev_send() on the same connection.
 *
 * RETURN VALUE
 *	0, -EINVAL (@len 0 or @p outside the arena's units), -EPIPE (closed
 *	or over), -EAGAIN (the connection has SEGS segments queued; writable()
 *	is called when one frees).  On an error @release is not called.
 */
int ixev_send_zc(struct ixev_conn *c, const void *p, size_t len,
		 void (*release)(void *arg), void *arg)
{
	struct ixev *ev = c->ev;
	size_t off = (const unsigned char *)p - ev->ixu.txarena;

	if (!len || (const unsigned char *)p < ev->ixu.txarena || off < ev->unit_base ||
	    off + len > ev->unit_base + (size_t)ev->nunits * UNIT)
		return -EINVAL;
	if (!conn_sendable(c))
		return -EPIPE;
	if (c->seg_n == SEGS) {
		c->want_write = true;
		return -EAGAIN;
	}
	c->segs[(c->seg_head + c->seg_n++) % SEGS] = (struct seg){
		.off = off, .len = len, .release = release, .arg = arg };
	c->fill += len;
	ixev_mark_dirty(c);
	return 0;
}

/* Queue one call for the unsent bytes [queued, fill), in up to CALL_IOV pieces. */
void ixev_conn_send(struct ixev_conn *c)
{
	struct ixev *ev = c->ev;
	struct ixmod_iov piece[CALL_IOV];
	struct ixmod_call *call;
	__u64 start = c->base, pos = c->queued;
	unsigned int i, n = 0;
	__u32 total = 0;

	for (i = 0; i < c->seg_n && n < CALL_IOV; i++) {
		const struct seg *g = &c->segs[(c->seg_head + i) % SEGS];
		__u64 end = start + g->len;

		if (pos < end) {
			piece[n].off = g->off + (__u32)(pos - start);
			piece[n].len = (__u32)(end - pos);
			total += piece[n++].len;
			pos = end;
		}
		start = end;
	}
	if (!n)
		return;
	call = next_call(ev);
	if (n == 1) {
		ixu_prep_tcp_send(call, c->handle, piece[0].off, piece[0].len, conn_cookie(c));
	} else {
		__u32 iov_off = ixu_call_index(&ev->ixu, call) * CALL_IOV * sizeof(piece[0]);

		memcpy(ixu_tx_ptr(&ev->ixu, iov_off), piece, n * sizeof(piece[0]));
		ixu_prep_tcp_sendv(call, c->handle, iov_off, n, conn_cookie(c));
	}
	if (ev->pos_calls) {
		/* taken whole unless its event says otherwise (on_pos_call()) */
		ixu_prep_at(call, (__u32)c->queued);
		c->queued += total;
		return;
	}
	c->asked = total;
	c->sending = true;
}
