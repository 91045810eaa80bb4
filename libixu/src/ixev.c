// SPDX-License-Identifier: MIT
/*
 * ixev.c - libixu's event layer (include/ixev.h)
 *
 * Structure.  Events only change state: a connection's send buffer, its
 * held receive bytes, its flags; each connection touched goes on the
 * dirty list.  flush() then turns every dirty connection's state into at
 * most four calls (accept, recv_done, send, close), as far as the call
 * ring has room; what does not fit stays dirty for the next pass.  So
 * events are always consumed (the dataplane needs event slots to run
 * calls) and no callback waits for a call slot.
 *
 * The transmit arena: an array of CALL_IOV struct ixmod_iov per call slot
 * (the kernel copies a sendv's array when it runs the call, so an area is
 * free again when its slot is), then units of UNIT bytes, handed out by a
 * first-fit bitmap: a connection's send buffer is a FIFO of segments of
 * 1 to SEG_UNITS units, freed as IXMOD_EV_TCP_SENT acknowledges them;
 * ixev_zc_alloc() and UDP payloads take runs of units too.
 *
 * Each connection's share of the arena.  A peer that stops reading keeps
 * its connection's units until it acknowledges them, possibly forever; with
 * first come, first served, about 32 such peers held the whole default
 * arena (8 MiB, 256 KiB send buffers) and every other connection of the
 * core waited.  So the arena is counted in two halves.  Every connection
 * may hold RESV_UNITS units (4 KiB) whatever the others do: these come
 * from the first half, which nothing else takes, so a connection always
 * gets them while the connections times RESV_UNITS fit in it (about 1,000
 * per core with the default arena; past that, first come is first served
 * again).  Units beyond those are borrowed from the second half, with UDP
 * payloads and ixev_zc_alloc(), and a connection may borrow only while
 * what it holds borrowed stays no more than what is left to borrow after
 * it: the first stalled reader holds at most half of that half, the next
 * half of the rest.  A connection whose share is full waits as for a full
 * arena (starve(): writable() when units come back).
 *
 * Cookies (user_data): the kind of object in bits 60-63, a generation in
 * bits 32-59 and a table index below, so an event that arrives after its
 * connection was freed, or its slot reused, is recognised and dropped.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ixev.h"

#define UNIT		2048U		/* arena allocation unit */
#define SEG_UNITS	8U		/* largest buffered segment: 16 KiB */
#define RESV_UNITS	2U		/* arena units any connection may hold: 4 KiB */
#define SEGS		64U		/* send segments per connection */
#define CALL_IOV	16U		/* struct ixmod_iov per sendv */
#define CALLS_PER_CONN	4U		/* accept, recv_done, send, close */
#define ORPHAN_CALLS	2U		/* accept and close */

#define DEF_CALLS	1024U
#define DEF_EVENTS	4096U
#define DEF_ARENA	(8U << 20)
#define DEF_SNDBUF	(256U << 10)

enum cookie_kind {
	CK_CONN = 1,
	CK_LISTENER,
	CK_UDP,
	CK_ORPHAN,
	CK_LIB,		/* the library's own calls (UDP sends) */
};

#define CK_SHIFT	60
#define GEN_SHIFT	32
#define GEN_MASK	0x0fffffffU

static inline __u64 cookie(enum cookie_kind k, __u32 gen, __u32 idx)
{
	return (__u64)k << CK_SHIFT | (__u64)(gen & GEN_MASK) << GEN_SHIFT | idx;
}

enum conn_state {
	S_ACCEPT,	/* knocked and taken: flush() queues the accept */
	S_CONNECT,	/* flush() queues the connect */
	S_CONNECTING,	/* waiting for IXMOD_EV_TCP_CONNECTED */
	S_OPEN,
	S_ZOMBIE,	/* dead and told: flush() closes the handle, then frees */
};

struct seg {
	__u32	off;		/* in the arena */
	__u32	len;		/* bytes written */
	__u32	units;		/* allocated (0: zero-copy, the application's) */
	void	(*release)(void *arg);
	void	*arg;
};

struct rxseg {
	__u32	off;
	__u32	len;
};

struct ixev_conn {
	struct ixev			*ev;
	const struct ixev_conn_ops	*ops;
	void				*data;
	__u64				handle;
	__u32				idx;
	__u32				gen;
	enum conn_state			state;
	bool				dirty;
	bool				closing;	/* the application closed it */
	bool				abort;
	bool				close_queued;	/* TCP_CLOSE is in the ring */
	bool				sending;	/* a send call in flight */
	bool				win_wait;	/* a send took less: wait for TCP_SENT */
	bool				want_write;	/* tell writable() when room comes */
	bool				resume;		/* offer held bytes again */
	bool				eof;		/* the peer's FIN is held */
	bool				in_readable;
	bool				starved;	/* on ev->starved: the arena was full */
	__u32				units;		/* arena units of its send buffer */

	/* transmit: byte positions since the start of the stream */
	struct seg			segs[SEGS];
	unsigned int			seg_head;
	unsigned int			seg_n;
	__u64				base;		/* stream position of segs[seg_head] */
	__u64				fill;		/* written */
	__u64				queued;		/* accepted by the kernel */
	__u64				acked;		/* acknowledged */
	__u32				asked;		/* bytes of the send in flight */

	/* receive */
	__u32				rx_owed;	/* consumed, recv_done not yet queued */
	struct rxseg			*held;
	unsigned int			held_head;
	unsigned int			held_n;
	unsigned int			held_cap;
};

struct slot {
	struct ixev_conn	*c;
	__u32			gen;
	__u32			next_free;
};

struct listener {
	__u64		handle;
	int		status;		/* 1: waiting for the answer */
	ixev_accept_fn	fn;
	void		*arg;
};

struct ixev_udp {
	struct ixev	*ev;
	__u64		handle;
	__u32		idx;
	int		status;
	ixev_udp_fn	fn;
	void		*arg;
};

struct orphan {
	__u64	handle;
	bool	knock;
};

/* Arena units to free once the call ring's consumer index passed @pos. */
struct deferred {
	__u32	pos;
	__u32	off;
	__u32	units;
};

struct ixev {
	struct ixu		ixu;
	unsigned int		cpu;
	unsigned int		sndbuf;
	bool			stop;
	int			err;		/* -ENETDOWN once the context died */
	struct ixev_stats	st;

	/* arena */
	__u32			unit_base;	/* offset of unit 0 */
	__u32			nunits;
	__u64			*bitmap;
	__u32			hint;		/* first word that may have a free unit */
	__u32			borrowed;	/* units of the second half (top) in use */

	/* connections */
	struct slot		*slots;
	__u32			nslots;
	__u32			free_slot;	/* head of the free list, ~0: none */
	__u32			*dirty;		/* slot indices */
	__u32			ndirty;
	__u32			dirty_cap;
	__u64			*starved;	/* cookies of connections the arena failed */
	unsigned int		nstarved;
	unsigned int		starved_cap;
	bool			arena_freed;	/* units came back since they failed */

	struct orphan		*orphans;
	unsigned int		norphans;
	unsigned int		orphan_cap;

	struct listener		*listeners;
	unsigned int		nlisteners;
	struct ixev_udp		**udps;
	unsigned int		nudps;

	__u32			*rx_done;	/* datagram buffers to return */
	unsigned int		nrx_done;
	unsigned int		rx_done_cap;
	struct deferred		*deferred;
	unsigned int		ndeferred;
	unsigned int		deferred_cap;

	struct ixev_timer	**timers;	/* a binary min-heap, 1-based */
	unsigned int		ntimers;
	unsigned int		timer_cap;

	unsigned int		queued;		/* calls since the last submit */
};

static int stop_all;

/* ---- small helpers ---- */

static int grow(void **p, unsigned int *cap, unsigned int need, size_t size)
{
	unsigned int n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, (size_t)n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct ixmod_call *next_call(struct ixev *ev)
{
	struct ixmod_call *call = ixu_call_get(&ev->ixu);

	if (call) {
		ev->queued++;
		ev->st.calls++;
	}
	return call;
}

/* ---- the arena's units ---- */

static bool unit_free(const struct ixev *ev, __u32 u)
{
	return !(ev->bitmap[u / 64] >> (u % 64) & 1);
}

static void units_mark(struct ixev *ev, __u32 u, __u32 n, bool used)
{
	for (; n; n--, u++) {
		if (used)
			ev->bitmap[u / 64] |= 1ULL << (u % 64);
		else
			ev->bitmap[u / 64] &= ~(1ULL << (u % 64));
	}
}

/* First fit: the offset of @n free consecutive units, or 0 (no unit is at 0). */
static __u32 units_alloc(struct ixev *ev, __u32 n)
{
	__u32 u, run = 0, start = 0;

	for (u = ev->hint * 64; u < ev->nunits; u++) {
		if (run == 0 && u % 64 == 0 && ev->bitmap[u / 64] == ~0ULL) {
			u += 63;
			continue;
		}
		if (!unit_free(ev, u)) {
			run = 0;
			continue;
		}
		if (!run++)
			start = u;
		if (run == n) {
			units_mark(ev, start, n, true);
			ev->st.arena_used += (unsigned long long)n * UNIT;
			while (ev->hint < ev->nunits / 64 && ev->bitmap[ev->hint] == ~0ULL)
				ev->hint++;
			return ev->unit_base + start * UNIT;
		}
	}
	return 0;
}

static void units_release(struct ixev *ev, __u32 off, __u32 n)
{
	__u32 u = (off - ev->unit_base) / UNIT;

	units_mark(ev, u, n, false);
	ev->st.arena_used -= (unsigned long long)n * UNIT;
	if (ev->nstarved)
		ev->arena_freed = true;
	if (u / 64 < ev->hint)
		ev->hint = u / 64;
}

/* Units of the second half still free: what UDP, zero-copy and borrowing may take. */
static __u32 units_lendable(const struct ixev *ev)
{
	return ev->borrowed < ev->nunits / 2 ? ev->nunits / 2 - ev->borrowed : 0;
}

/* What @c holds beyond its RESV_UNITS. */
static __u32 conn_borrowed(const struct ixev_conn *c)
{
	return c->units > RESV_UNITS ? c->units - RESV_UNITS : 0;
}

/* @n units for @c's send buffer, within its share (see the top); 0: none. */
static __u32 conn_units_alloc(struct ixev_conn *c, __u32 n)
{
	__u32 own = c->units < RESV_UNITS ? RESV_UNITS - c->units : 0;
	__u32 borrow = n > own ? n - own : 0, before = conn_borrowed(c);
	struct ixev *ev = c->ev;
	__u32 lendable = units_lendable(ev), off;

	if (borrow && (borrow > lendable || before + borrow > lendable - borrow))
		return 0;
	off = units_alloc(ev, n);
	if (!off)
		return 0;
	c->units += n;
	ev->borrowed += conn_borrowed(c) - before;
	return off;
}

static void conn_units_release(struct ixev_conn *c, __u32 off, __u32 n)
{
	__u32 before = conn_borrowed(c);

	units_release(c->ev, off, n);
	c->units -= n;
	c->ev->borrowed -= before - conn_borrowed(c);
}

/* UDP payloads and ixev_zc_alloc(): @n units of the second half; 0: none. */
static __u32 lib_units_alloc(struct ixev *ev, __u32 n)
{
	__u32 off = n <= units_lendable(ev) ? units_alloc(ev, n) : 0;

	if (off)
		ev->borrowed += n;
	return off;
}

static void lib_units_release(struct ixev *ev, __u32 off, __u32 n)
{
	units_release(ev, off, n);
	ev->borrowed -= n < ev->borrowed ? n : ev->borrowed;	/* a bad zc_free */
}

/* ---- connection slots ---- */

static void mark_dirty(struct ixev_conn *c)
{
	struct ixev *ev = c->ev;

	if (c->dirty)
		return;
	if (grow((void **)&ev->dirty, &ev->dirty_cap, ev->ndirty + 1, sizeof(*ev->dirty)))
		return;		/* stays clean: the next event of it retries */
	c->dirty = true;
	ev->dirty[ev->ndirty++] = c->idx;
}

static struct ixev_conn *conn_alloc(struct ixev *ev)
{
	struct ixev_conn *c = calloc(1, sizeof(*c));
	__u32 idx;

	if (!c)
		return NULL;
	if (ev->free_slot == ~0U) {
		__u32 n = ev->nslots ? 2 * ev->nslots : 64, i;
		struct slot *s = realloc(ev->slots, n * sizeof(*s));

		if (!s) {
			free(c);
			return NULL;
		}
		for (i = ev->nslots; i < n; i++)
			s[i] = (struct slot){ .gen = 1, .next_free = i + 1 < n ? i + 1 : ~0U };
		ev->slots = s;
		ev->free_slot = ev->nslots;
		ev->nslots = n;
	}
	idx = ev->free_slot;
	ev->free_slot = ev->slots[idx].next_free;
	ev->slots[idx].c = c;
	c->ev = ev;
	c->idx = idx;
	c->gen = ev->slots[idx].gen;
	return c;
}

static void conn_free(struct ixev_conn *c)
{
	struct ixev *ev = c->ev;
	struct slot *s = &ev->slots[c->idx];

	while (c->seg_n) {
		struct seg *g = &c->segs[c->seg_head];

		if (g->units)
			conn_units_release(c, g->off, g->units);
		else if (g->release)
			g->release(g->arg);
		c->seg_head = (c->seg_head + 1) % SEGS;
		c->seg_n--;
	}
	free(c->held);
	s->c = NULL;
	s->gen = (s->gen + 1) & GEN_MASK ? (s->gen + 1) & GEN_MASK : 1;
	s->next_free = ev->free_slot;
	ev->free_slot = c->idx;
	free(c);
}

static struct ixev_conn *conn_of(struct ixev *ev, __u64 ck)
{
	__u32 idx = ck & 0xffffffff;
	struct ixev_conn *c;

	if (idx >= ev->nslots)
		return NULL;
	c = ev->slots[idx].c;
	if (!c || c->gen != ((ck >> GEN_SHIFT) & GEN_MASK))
		return NULL;
	return c;
}

static __u64 conn_cookie(const struct ixev_conn *c)
{
	return cookie(CK_CONN, c->gen, c->idx);
}

static void add_orphan(struct ixev *ev, __u64 handle, bool knock)
{
	if (grow((void **)&ev->orphans, &ev->orphan_cap, ev->norphans + 1,
		 sizeof(*ev->orphans))) {
		ev->st.errors++;	/* left to the kernel until the context closes */
		return;
	}
	ev->orphans[ev->norphans++] = (struct orphan){ handle, knock };
}

/* The connection is over: tell the application once, free what ixev can. */
static void conn_dead(struct ixev_conn *c, int err)
{
	if (c->state == S_ZOMBIE)
		return;
	if (c->ops && c->ops->closed)
		c->ops->closed(c, err);
	if (c->close_queued || !c->handle) {
		conn_free(c);
		return;
	}
	c->state = S_ZOMBIE;	/* flush() closes the handle (ABI 2), then frees */
	mark_dirty(c);
}

/* ---- receiving ---- */

static int held_push(struct ixev_conn *c, __u32 off, __u32 len)
{
	if (c->held_n == c->held_cap) {
		unsigned int cap = c->held_cap ? 2 * c->held_cap : 8, i;
		struct rxseg *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (i = 0; i < c->held_n; i++)
			q[i] = c->held[(c->held_head + i) % c->held_cap];
		free(c->held);
		c->held = q;
		c->held_cap = cap;
		c->held_head = 0;
	}
	c->held[(c->held_head + c->held_n) % c->held_cap] = (struct rxseg){ off, len };
	c->held_n++;
	return 0;
}

/* Offer @len bytes at @off; returns how many the application took. */
static __u32 offer(struct ixev_conn *c, __u32 off, __u32 len)
{
	size_t n = len;

	if (c->ops && c->ops->readable) {
		c->in_readable = true;
		n = c->ops->readable(c, ixu_rx_ptr(&c->ev->ixu, off), len);
		c->in_readable = false;
		if (n > len)
			n = len;
	}
	c->rx_owed += n;
	return n;
}

static void tell_eof(struct ixev_conn *c)
{
	c->eof = false;
	if (c->ops && c->ops->readable && !c->closing)
		c->ops->readable(c, NULL, 0);
}

/* Offer the held bytes again, oldest first, until the application stops. */
static void offer_held(struct ixev_conn *c)
{
	c->resume = false;
	while (c->held_n && c->state == S_OPEN && !c->closing) {
		struct rxseg *h = &c->held[c->held_head];
		__u32 n = offer(c, h->off, h->len);

		if (n < h->len) {
			h->off += n;
			h->len -= n;
			return;
		}
		c->held_head = (c->held_head + 1) % c->held_cap;
		c->held_n--;
	}
	if (c->closing) {	/* no longer wanted: all of it goes back */
		while (c->held_n) {
			c->rx_owed += c->held[c->held_head].len;
			c->held_head = (c->held_head + 1) % c->held_cap;
			c->held_n--;
		}
	}
	if (!c->held_n && c->eof && c->state == S_OPEN)
		tell_eof(c);
}

static void on_recv(struct ixev_conn *c, const struct ixmod_event *e)
{
	__u32 n;

	if (e->res == 0) {
		c->eof = true;
		if (!c->held_n)
			tell_eof(c);
		return;
	}
	c->ev->st.bytes_in += e->res;
	if (c->closing) {		/* the application closed it: not wanted */
		c->rx_owed += e->res;
		return;
	}
	if (c->held_n) {		/* behind bytes the application left */
		if (held_push(c, e->off, e->res))
			ixev_abort(c);
		return;
	}
	n = offer(c, e->off, e->res);
	if (n < (__u32)e->res && held_push(c, e->off + n, e->res - n))
		ixev_abort(c);
}

/* ---- sending ---- */

static void segs_acked(struct ixev_conn *c)
{
	while (c->seg_n) {
		struct seg *g = &c->segs[c->seg_head];

		if (c->base + g->len > c->acked)
			break;
		c->base += g->len;
		if (g->units)
			conn_units_release(c, g->off, g->units);
		else if (g->release)
			g->release(g->arg);
		c->seg_head = (c->seg_head + 1) % SEGS;
		c->seg_n--;
	}
}

/*
 * The arena is full: this connection may have nothing in flight whose
 * acknowledgment would free room, so it waits for units freed by anyone
 * (wake_starved()).
 */
static void starve(struct ixev_conn *c)
{
	struct ixev *ev = c->ev;

	ev->st.arena_waits++;
	if (c->starved || grow((void **)&ev->starved, &ev->starved_cap, ev->nstarved + 1,
			       sizeof(*ev->starved)))
		return;
	c->starved = true;
	ev->starved[ev->nstarved++] = conn_cookie(c);
}

/* Room came back for a connection that asked (ixev_send() turned it away). */
static void tell_writable(struct ixev_conn *c)
{
	if (c->want_write && c->state == S_OPEN && !c->closing) {
		c->want_write = false;
		if (c->ops && c->ops->writable)
			c->ops->writable(c);
	}
}

/* Units came back: tell the connections the arena turned away. */
static void wake_starved(struct ixev *ev)
{
	unsigned int i, n = ev->nstarved;

	ev->arena_freed = false;
	ev->nstarved = 0;
	for (i = 0; i < n; i++) {
		struct ixev_conn *c = conn_of(ev, ev->starved[i]);

		if (!c || c->state == S_ZOMBIE)
			continue;
		c->starved = false;
		if (c->held_n)
			c->resume = true;
		mark_dirty(c);
		tell_writable(c);
	}
}

static bool conn_sendable(const struct ixev_conn *c)
{
	return c->state != S_ZOMBIE && !c->closing;
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
			off = conn_units_alloc(c, want);
			if (!off && want > 1)
				off = conn_units_alloc(c, want = 1);
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
		mark_dirty(c);
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
 * ixev_zc_alloc - transmit arena memory for zero-copy sends
 *
 * SYNOPSIS
 *	void *ixev_zc_alloc(struct ixev *ev, size_t len);
 *	void ixev_zc_free(struct ixev *ev, void *p, size_t len);
 *
 * DESCRIPTION
 *	ixev_zc_alloc() takes @len contiguous bytes of the transmit arena
 *	(rounded up to 2 KiB units), for data the application builds in
 *	place and sends, once or many times, with ixev_send_zc(): a reply
 *	that is cached, a file's contents.  ixev_zc_free() gives them back
 *	(@len as allocated); free only what no send still holds (see the
 *	release callback of ixev_send_zc()).
 *
 * RETURN VALUE
 *	ixev_zc_alloc(): the memory, or NULL when @len is 0 or the arena has
 *	no run of free units that long in the half of the arena that
 *	connections borrow from (ixev_send(3)).
 */
void *ixev_zc_alloc(struct ixev *ev, size_t len)
{
	__u32 off;

	if (!len || len > (size_t)ev->nunits * UNIT)
		return NULL;
	off = lib_units_alloc(ev, (len + UNIT - 1) / UNIT);
	return off ? ixu_tx_ptr(&ev->ixu, off) : NULL;
}

void ixev_zc_free(struct ixev *ev, void *p, size_t len)
{
	__u32 off = (unsigned char *)p - ev->ixu.txarena;

	if (!p || off < ev->unit_base || (off - ev->unit_base) % UNIT)
		return;
	lib_units_release(ev, off, (len + UNIT - 1) / UNIT);
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
	mark_dirty(c);
	return 0;
}

/* Queue one call for the unsent bytes [queued, fill), in up to CALL_IOV pieces. */
static void conn_send(struct ixev_conn *c)
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
	c->asked = total;
	c->sending = true;
}

/*
 * ixev_resume - offer held received bytes again
 *
 * SYNOPSIS
 *	void ixev_resume(struct ixev_conn *c);
 *
 * DESCRIPTION
 *	After readable() took less than it was given, ixev holds the rest
 *	and offers it again after the connection's next send progress (a
 *	TCP_SENT that frees send buffer room).  Call this when the reason to
 *	stop was something else; the bytes are offered at the end of the
 *	current pass.
 */
void ixev_resume(struct ixev_conn *c)
{
	if (c->held_n || c->eof) {
		c->resume = true;
		mark_dirty(c);
	}
}

/*
 * ixev_close - close a connection
 *
 * SYNOPSIS
 *	void ixev_close(struct ixev_conn *c);
 *	void ixev_abort(struct ixev_conn *c);
 *
 * DESCRIPTION
 *	ixev_close() closes gracefully: the bytes already sent with
 *	ixev_send() still go, then a FIN.  ixev_abort() resets the
 *	connection at once (RST), dropping unsent bytes.  After either,
 *	readable() and writable() are not called again and sends fail with
 *	-EPIPE; closed() follows when the connection is over (after the
 *	peer acknowledged everything and closed its side, or after the
 *	reset), and frees @c.  Calling either again, or on a connection
 *	already told closed(), does nothing more (ixev_abort() after
 *	ixev_close() still resets).
 */
void ixev_close(struct ixev_conn *c)
{
	if (c->closing || c->state == S_ZOMBIE)
		return;
	c->closing = true;
	c->want_write = false;
	mark_dirty(c);
}

void ixev_abort(struct ixev_conn *c)
{
	if (c->abort || c->state == S_ZOMBIE)
		return;
	c->closing = c->abort = true;
	c->want_write = false;
	mark_dirty(c);
}

/*
 * ixev_set_data - the application's pointer on a connection
 *
 * SYNOPSIS
 *	void ixev_set_data(struct ixev_conn *c, void *data);
 *	void *ixev_data(const struct ixev_conn *c);
 *	struct ixev *ixev_conn_ev(const struct ixev_conn *c);
 *
 * DESCRIPTION
 *	ixev_set_data() stores @data on @c (ixev never reads it);
 *	ixev_data() returns it (NULL until set).  ixev_conn_ev() returns
 *	the ixev the connection belongs to.
 */
void ixev_set_data(struct ixev_conn *c, void *data)
{
	c->data = data;
}

void *ixev_data(const struct ixev_conn *c)
{
	return c->data;
}

struct ixev *ixev_conn_ev(const struct ixev_conn *c)
{
	return c->ev;
}

/* ---- flush: state to calls ---- */

static void conn_flush(struct ixev_conn *c)
{
	struct ixev *ev = c->ev;

	switch (c->state) {
	case S_ACCEPT:
		ixu_prep_tcp_accept(next_call(ev), c->handle, conn_cookie(c));
		c->state = S_OPEN;
		break;
	case S_CONNECT:
		return;		/* queued by ixev_connect() */
	case S_CONNECTING:
		if (!c->closing)
			return;
		break;
	case S_ZOMBIE:
		ixu_prep_tcp_close(next_call(ev), c->handle, false, cookie(CK_LIB, 0, 0));
		conn_free(c);
		return;
	case S_OPEN:
		break;
	}
	if (c->resume || (c->closing && c->held_n))
		offer_held(c);
	if (c->rx_owed && !c->close_queued) {
		ixu_prep_tcp_recv_done(next_call(ev), c->handle, c->rx_owed);
		c->rx_owed = 0;
	}
	if (c->state == S_OPEN && !c->abort && !c->close_queued && !c->sending &&
	    !c->win_wait && c->queued < c->fill)
		conn_send(c);
	if (c->closing && !c->close_queued && c->handle &&
	    (c->abort || (c->queued == c->fill && !c->sending))) {
		ixu_prep_tcp_close(next_call(ev), c->handle, c->abort, conn_cookie(c));
		c->close_queued = true;
	}
}

static void flush(struct ixev *ev)
{
	unsigned int i = 0;
	__u32 cons;

	/* arena units of UDP payloads whose calls the kernel consumed */
	cons = __atomic_load_n(ev->ixu.calls.kcons, __ATOMIC_ACQUIRE);
	while (ev->ndeferred && (int)(ev->deferred[0].pos - cons) < 0) {
		lib_units_release(ev, ev->deferred[0].off, ev->deferred[0].units);
		memmove(ev->deferred, ev->deferred + 1, --ev->ndeferred * sizeof(*ev->deferred));
	}
	while (ev->nrx_done && ixu_call_space(&ev->ixu))
		ixu_prep_recv_done(next_call(ev), ev->rx_done[--ev->nrx_done]);
	while (ev->norphans && ixu_call_space(&ev->ixu) >= ORPHAN_CALLS) {
		struct orphan *o = &ev->orphans[--ev->norphans];
		__u64 ck = cookie(CK_ORPHAN, 0, 0);

		if (o->knock)
			ixu_prep_tcp_accept(next_call(ev), o->handle, ck);
		ixu_prep_tcp_close(next_call(ev), o->handle, o->knock, ck);
	}
	/* a callback run by conn_flush() may dirty more: ndirty grows */
	while (i < ev->ndirty && ixu_call_space(&ev->ixu) >= CALLS_PER_CONN) {
		__u32 idx = ev->dirty[i++];
		struct ixev_conn *c = ev->slots[idx].c;

		if (!c || !c->dirty)
			continue;	/* freed meanwhile, or flushed already */
		c->dirty = false;
		conn_flush(c);
	}
	memmove(ev->dirty, ev->dirty + i, (ev->ndirty - i) * sizeof(*ev->dirty));
	ev->ndirty -= i;
}

/* ---- events ---- */

static void on_knock(struct ixev *ev, const struct ixmod_event *e)
{
	__u32 li = e->user_data & 0xffffffff;
	struct listener *l = li < ev->nlisteners ? &ev->listeners[li] : NULL;
	const struct ixev_conn_ops *ops = NULL;
	struct ixev_conn *c;

	if (!l || !l->handle) {
		ev->st.errors++;
		return;
	}
	c = conn_alloc(ev);
	if (c) {
		c->handle = e->handle;
		c->state = S_ACCEPT;
		ops = l->fn(c, e->addr, e->port, l->arg);
	}
	if (!ops) {
		ev->st.refused++;
		if (c)
			conn_free(c);
		add_orphan(ev, e->handle, true);
		return;
	}
	c->ops = ops;
	ev->st.conns++;
	mark_dirty(c);
}

static void on_conn_call(struct ixev_conn *c, const struct ixmod_event *e)
{
	struct ixev *ev = c->ev;

	switch (e->op) {
	case IXMOD_OP_TCP_SEND:
	case IXMOD_OP_TCP_SENDV:
		c->sending = false;
		if (e->res < 0) {
			if (e->res != -EPIPE)	/* -EPIPE: its DEAD comes */
				ev->st.errors++;
			break;
		}
		c->queued += e->res;
		if ((__u32)e->res < c->asked)
			c->win_wait = true;	/* a TCP_SENT with win > 0 comes */
		break;
	case IXMOD_OP_TCP_CONNECT:
		if (e->res < 0) {	/* no connection: no other event comes */
			if (c->ops && c->ops->connected)
				c->ops->connected(c, e->res);
			conn_dead(c, e->res);
			return;
		}
		c->handle = e->handle;
		c->state = S_CONNECTING;
		ev->st.conns++;
		break;
	case IXMOD_OP_TCP_ACCEPT:
		/* it died before the accept ran; its DEAD came with the listener's cookie */
		if (e->res != -EBADF)
			ev->st.errors++;
		c->handle = 0;
		conn_dead(c, -ECONNRESET);
		return;
	default:
		ev->st.errors++;
		break;
	}
	mark_dirty(c);
}

static void on_conn_event(struct ixev *ev, const struct ixmod_event *e)
{
	struct ixev_conn *c = conn_of(ev, e->user_data);

	if (!c || c->state == S_ZOMBIE) {
		ev->st.late++;	/* e.g. a call's error posted after the DEAD */
		return;
	}
	switch (e->type) {
	case IXMOD_EV_CALL:
		on_conn_call(c, e);
		return;
	case IXMOD_EV_TCP_CONNECTED:
		if (c->ops && c->ops->connected && !c->closing)
			c->ops->connected(c, e->res);
		if (e->res == 0 && c->state == S_CONNECTING)
			c->state = S_OPEN;
		break;
	case IXMOD_EV_TCP_RECV:
		on_recv(c, e);
		break;
	case IXMOD_EV_TCP_SENT:
		c->acked += e->res;
		ev->st.bytes_out += e->res;
		segs_acked(c);
		if (e->win)
			c->win_wait = false;
		if (c->held_n)
			c->resume = true;
		tell_writable(c);
		break;
	case IXMOD_EV_TCP_DEAD:
		conn_dead(c, e->res);
		return;
	default:
		ev->st.errors++;
		return;
	}
	mark_dirty(c);
}

static void on_event(struct ixev *ev, const struct ixmod_event *e)
{
	__u32 idx = e->user_data & 0xffffffff;

	switch (e->user_data >> CK_SHIFT) {
	case CK_CONN:
		on_conn_event(ev, e);
		return;
	case CK_LISTENER:
		if (e->type == IXMOD_EV_TCP_KNOCK) {
			on_knock(ev, e);
		} else if (e->type == IXMOD_EV_CALL && e->op == IXMOD_OP_TCP_LISTEN &&
			   idx < ev->nlisteners) {
			ev->listeners[idx].status = e->res;
			ev->listeners[idx].handle = e->res ? 0 : e->handle;
		} else if (e->type != IXMOD_EV_TCP_DEAD) {
			/* a DEAD: a knock that died before its accept */
			ev->st.errors++;
		}
		return;
	case CK_UDP: {
		struct ixev_udp *u = idx < ev->nudps ? ev->udps[idx] : NULL;

		if (!u) {
			ev->st.late++;
			if (e->type == IXMOD_EV_UDP_RECV)
				goto rx_done;
			return;
		}
		if (e->type == IXMOD_EV_CALL && e->op == IXMOD_OP_UDP_BIND) {
			u->status = e->res;
			u->handle = e->res ? 0 : e->handle;
		} else if (e->type == IXMOD_EV_UDP_RECV) {
			if (u->fn)
				u->fn(u, ixu_rx_ptr(&ev->ixu, e->off), e->res, e->addr, e->port,
				      u->arg);
			goto rx_done;
		} else {
			ev->st.errors++;
		}
		return;
	}
	case CK_ORPHAN:
		/* an orphan's DEAD, or the error of its accept or close (it was gone) */
		return;
	default:
		ev->st.errors++;
		return;
	}
rx_done:
	if (grow((void **)&ev->rx_done, &ev->rx_done_cap, ev->nrx_done + 1,
		 sizeof(*ev->rx_done)) == 0)
		ev->rx_done[ev->nrx_done++] = e->off;
	else
		ev->st.errors++;
}

/* ---- timers: a binary min-heap on when_ns ---- */

static void heap_set(struct ixev *ev, unsigned int i, struct ixev_timer *t)
{
	ev->timers[i] = t;
	t->idx = i;
}

static void heap_up(struct ixev *ev, unsigned int i)
{
	struct ixev_timer *t = ev->timers[i];

	while (i > 1 && ev->timers[i / 2]->when_ns > t->when_ns) {
		heap_set(ev, i, ev->timers[i / 2]);
		i /= 2;
	}
	heap_set(ev, i, t);
}

static void heap_down(struct ixev *ev, unsigned int i)
{
	struct ixev_timer *t = ev->timers[i];

	for (;;) {
		unsigned int k = 2 * i;

		if (k > ev->ntimers)
			break;
		if (k < ev->ntimers && ev->timers[k + 1]->when_ns < ev->timers[k]->when_ns)
			k++;
		if (ev->timers[k]->when_ns >= t->when_ns)
			break;
		heap_set(ev, i, ev->timers[k]);
		i = k;
	}
	heap_set(ev, i, t);
}

/*
 * ixev_timer_arm - call a function after a delay
 *
 * SYNOPSIS
 *	int ixev_timer_arm(struct ixev *ev, struct ixev_timer *t,
 *			   unsigned long long usec);
 *	void ixev_timer_cancel(struct ixev *ev, struct ixev_timer *t);
 *
 * DESCRIPTION
 *	ixev_timer_arm() calls t->fn(t) from the thread's loop once @usec
 *	microseconds passed (CLOCK_MONOTONIC), once; arming an armed timer
 *	moves it.  Zero-initialise @t and set t->fn before the first use.
 *	ixev_timer_cancel() disarms it (nothing if it is not armed).  A
 *	timer's function may arm it again.
 *
 * RETURN VALUE
 *	ixev_timer_arm(): 0, -EINVAL (no t->fn), -ENOMEM.
 */
int ixev_timer_arm(struct ixev *ev, struct ixev_timer *t, unsigned long long usec)
{
	if (!t->fn)
		return -EINVAL;
	if (t->idx)
		ixev_timer_cancel(ev, t);
	if (grow((void **)&ev->timers, &ev->timer_cap, ev->ntimers + 2, sizeof(*ev->timers)))
		return -ENOMEM;
	t->when_ns = now_ns() + usec * 1000ULL;
	heap_set(ev, ++ev->ntimers, t);
	heap_up(ev, ev->ntimers);
	return 0;
}

void ixev_timer_cancel(struct ixev *ev, struct ixev_timer *t)
{
	unsigned int i = t->idx;
	struct ixev_timer *last;

	if (!i || i > ev->ntimers || ev->timers[i] != t)
		return;
	t->idx = 0;
	last = ev->timers[ev->ntimers--];
	if (last == t)
		return;
	heap_set(ev, i, last);
	heap_up(ev, i);
	heap_down(ev, last->idx);
}

static void run_timers(struct ixev *ev)
{
	unsigned long long now;

	if (!ev->ntimers)
		return;
	now = now_ns();
	while (ev->ntimers && ev->timers[1]->when_ns <= now) {
		struct ixev_timer *t = ev->timers[1];

		ixev_timer_cancel(ev, t);
		t->fn(t);
	}
}

/* Milliseconds until the first timer, at most @limit (-1: none). */
static int timer_wait_ms(struct ixev *ev, int limit)
{
	unsigned long long now, ms;

	if (!ev->ntimers)
		return limit;
	now = now_ns();
	if (ev->timers[1]->when_ns <= now)
		return 0;
	ms = (ev->timers[1]->when_ns - now + 999999) / 1000000;
	return limit >= 0 && (unsigned long long)limit < ms ? limit : (int)ms;
}

/* ---- the loop ---- */

/*
 * ixev_dispatch - one pass: events, timers, calls
 *
 * SYNOPSIS
 *	int ixev_dispatch(struct ixev *ev);
 *
 * DESCRIPTION
 *	Consumes every event waiting in the event ring and calls the
 *	callbacks, runs the expired timers, then turns the connections'
 *	state into calls and submits them (waking the core's kernel thread
 *	if it sleeps).  Never blocks.  An application with its own poll,
 *	epoll or io_uring loop calls it whenever ixev_fd() is readable, and
 *	after its own work that sent or closed something.
 *
 * RETURN VALUE
 *	The number of events consumed, or -ENETDOWN once the context lost
 *	its port (IXMOD_RING_DEAD: destroy it).
 */
int ixev_dispatch(struct ixev *ev)
{
	const struct ixmod_event *e;
	unsigned int n = 0;

	ev->st.passes++;
	while ((e = ixu_event_peek(&ev->ixu, n))) {
		on_event(ev, e);
		n++;
	}
	if (n)
		ixu_event_advance(&ev->ixu, n);
	ev->st.events += n;
	if (ev->arena_freed)
		wake_starved(ev);
	run_timers(ev);
	flush(ev);
	if (ev->queued) {
		ixu_call_submit(&ev->ixu);
		ev->queued = 0;
	}
	if (__atomic_load_n(ev->ixu.events.kflags, __ATOMIC_RELAXED) & IXMOD_RING_DEAD)
		return ev->err = -ENETDOWN;
	return n;
}

/*
 * ixev_run_once - one pass, sleeping first if there is nothing to do
 *
 * SYNOPSIS
 *	int ixev_run_once(struct ixev *ev, int timeout_ms);
 *	int ixev_run(struct ixev *ev);
 *	void ixev_stop(struct ixev *ev);
 *
 * DESCRIPTION
 *	ixev_run_once() waits for events (ixu_wait(): in the co-located mode
 *	it runs the core's loop meanwhile) for at most @timeout_ms (-1: no
 *	limit) or until the next timer, then does what ixev_dispatch() does.
 *	ixev_run() repeats it until ixev_stop() (from a callback or a timer
 *	of this ixev) or ixev_stop_all() (from any thread or a signal
 *	handler) or until the context dies.
 *
 * RETURN VALUE
 *	ixev_run_once(): as ixev_dispatch(), or another negative errno of
 *	ixu_wait() (-EINTR, -EBUSY).  ixev_run(): 0 after a stop, -ENETDOWN
 *	when the context lost its port.
 */
int ixev_run_once(struct ixev *ev, int timeout_ms)
{
	int ret;

	if (ev->err)
		return ev->err;
	if (ev->ndirty || ev->norphans || ev->nrx_done)
		timeout_ms = 0;		/* calls wait for ring room */
	ret = ixu_wait(&ev->ixu, timer_wait_ms(ev, timeout_ms));
	if (ret == -ENETDOWN)
		return ev->err = ret;
	if (ret && ret != -ETIME && ret != -EINTR)
		return ret;
	return ixev_dispatch(ev);
}

int ixev_run(struct ixev *ev)
{
	int ret;

	ev->stop = false;
	while (!ev->stop && !__atomic_load_n(&stop_all, __ATOMIC_RELAXED)) {
		ret = ixev_run_once(ev, 100);
		if (ret == -ENETDOWN)
			return ret;
	}
	return 0;
}

void ixev_stop(struct ixev *ev)
{
	ev->stop = true;
}

/*
 * ixev_create - a context on one dataplane core
 *
 * SYNOPSIS
 *	int ixev_create(struct ixev **evp, unsigned int cpu,
 *			const struct ixev_params *params);
 *	void ixev_destroy(struct ixev *ev);
 *
 * DESCRIPTION
 *	ixev_create() opens /dev/ixmod, attaches to dataplane core @cpu with
 *	@params (NULL: defaults; see struct ixev_params) and stores the new
 *	context in *@evp.  One context per thread; in the co-located mode the
 *	calling thread is bound to @cpu.  ixev_destroy() closes every
 *	connection that is left with a reset (each is told closed() with
 *	-ECONNABORTED), every listener and socket, and frees the context.
 *
 * RETURN VALUE
 *	0, or the negative errno of ixu_open() or ixu_attach(); -EOPNOTSUPP
 *	when the module has no TCP; -EINVAL for bad @params (non-zero
 *	reserved words, an arena too small); -ENOMEM.
 */
int ixev_create(struct ixev **evp, unsigned int cpu, const struct ixev_params *params)
{
	struct ixev_params p = params ? *params : (struct ixev_params){ 0 };
	struct ixu_params up;
	struct ixev *ev;
	__u32 iov_area;
	int ret;

	if (!evp || p.resv[0] || p.resv[1] || p.resv[2])
		return -EINVAL;
	*evp = NULL;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->free_slot = ~0U;
	ev->cpu = cpu;
	ev->sndbuf = p.sndbuf ? p.sndbuf : DEF_SNDBUF;
	up = (struct ixu_params){
		.call_entries = p.call_entries ? p.call_entries : DEF_CALLS,
		.event_entries = p.event_entries ? p.event_entries : DEF_EVENTS,
		.txarena_size = p.txarena_size ? p.txarena_size : DEF_ARENA,
		.mode = p.mode,
	};
	ret = ixu_open(&ev->ixu, 0);
	if (ret) {
		free(ev);
		return ret;
	}
	ret = -EOPNOTSUPP;
	if (!ixu_has_feature(&ev->ixu, IXMOD_FEAT_TCP | IXMOD_FEAT_UDP))
		goto fail;
	ret = ixu_attach(&ev->ixu, cpu, &up);
	if (ret)
		goto fail;
	iov_area = ev->ixu.setup.call_entries * CALL_IOV * sizeof(struct ixmod_iov);
	ev->unit_base = (iov_area + UNIT - 1) / UNIT * UNIT;
	ret = -EINVAL;
	if (ev->ixu.setup.txarena_size < ev->unit_base + 64 * UNIT)
		goto fail;
	ev->nunits = (ev->ixu.setup.txarena_size - ev->unit_base) / UNIT / 64 * 64;
	ret = -ENOMEM;
	ev->bitmap = calloc(ev->nunits / 64, sizeof(*ev->bitmap));
	if (!ev->bitmap)
		goto fail;
	*evp = ev;
	return 0;
fail:
	ixu_close(&ev->ixu);
	free(ev);
	return ret;
}

void ixev_destroy(struct ixev *ev)
{
	unsigned int i;

	if (!ev)
		return;
	for (i = 0; i < ev->nslots; i++) {
		struct ixev_conn *c = ev->slots[i].c;

		if (!c)
			continue;
		if (c->state != S_ZOMBIE && c->ops && c->ops->closed)
			c->ops->closed(c, -ECONNABORTED);
		conn_free(c);
	}
	ixu_close(&ev->ixu);	/* the kernel resets whatever is left */
	for (i = 0; i < ev->nudps; i++)
		free(ev->udps[i]);
	free(ev->udps);
	free(ev->listeners);
	free(ev->slots);
	free(ev->dirty);
	free(ev->starved);
	free(ev->orphans);
	free(ev->rx_done);
	free(ev->deferred);
	free(ev->timers);
	free(ev->bitmap);
	free(ev);
}

/*
 * ixev_fd - the file descriptor to watch in an application's own loop
 *
 * SYNOPSIS
 *	int ixev_fd(const struct ixev *ev);
 *	struct ixu *ixev_ixu(struct ixev *ev);
 *	unsigned int ixev_cpu(const struct ixev *ev);
 *
 * DESCRIPTION
 *	ixev_fd() is the context's /dev/ixmod file: it polls readable
 *	(POLLIN) when events wait; add it to an epoll set or an io_uring
 *	poll and call ixev_dispatch() when it fires (the kernel-thread mode;
 *	in the co-located mode the thread must sit in ixev_run() instead).
 *	ixev_ixu() gives the underlying libixu handle, for ixu_get_info()
 *	and the like (issuing calls on it directly is not supported).
 *	ixev_cpu() is the context's dataplane core.
 */
int ixev_fd(const struct ixev *ev)
{
	return ev->ixu.fd;
}

struct ixu *ixev_ixu(struct ixev *ev)
{
	return &ev->ixu;
}

unsigned int ixev_cpu(const struct ixev *ev)
{
	return ev->cpu;
}

/* Wait for the answer to a bind or listen: *status leaves 1. */
static int wait_answer(struct ixev *ev, int *status)
{
	int ret, rounds = 0;

	while (*status == 1) {
		ret = ixev_run_once(ev, 100);
		if (ret == -ENETDOWN)
			return ret;
		if (++rounds > 600)	/* a minute: the kernel always answers */
			return -ETIMEDOUT;
	}
	return *status;
}

/*
 * ixev_listen - accept TCP connections on a port
 *
 * SYNOPSIS
 *	int ixev_listen(struct ixev *ev, __be16 port, unsigned int backlog,
 *			ixev_accept_fn fn, void *arg);
 *
 * DESCRIPTION
 *	Listens on @port (network order) on the context's core, for every
 *	interface the core serves, with @backlog (1 to the module's
 *	backlog_max; 0: 128).  Each connection that completes its handshake
 *	is offered to @fn(c, addr, port, @arg), which accepts it by returning
 *	its callbacks.  A server listens on every core it runs on: the NIC's
 *	RSS sends each flow to one core.  Waits for the kernel's answer
 *	(running the loop meanwhile).
 *
 * RETURN VALUE
 *	0, -EADDRINUSE, -EINVAL, -EMFILE, -ENOMEM, -ENETDOWN.
 */
int ixev_listen(struct ixev *ev, __be16 port, unsigned int backlog, ixev_accept_fn fn,
		void *arg)
{
	unsigned int cap = ev->nlisteners, idx = ev->nlisteners;
	struct ixmod_call *call;
	int ret;

	if (!fn)
		return -EINVAL;
	ret = grow((void **)&ev->listeners, &cap, idx + 1, sizeof(*ev->listeners));
	if (ret)
		return ret;
	call = next_call(ev);
	if (!call)
		return -EAGAIN;
	ev->listeners[idx] = (struct listener){ .status = 1, .fn = fn, .arg = arg };
	ev->nlisteners++;
	ixu_prep_tcp_listen(call, port, backlog ? backlog : 128, cookie(CK_LISTENER, 0, idx));
	return wait_answer(ev, &ev->listeners[idx].status);
}

/*
 * ixev_connect - open a TCP connection
 *
 * SYNOPSIS
 *	int ixev_connect(struct ixev *ev, __be32 addr, __be16 port,
 *			 const struct ixev_conn_ops *ops, void *data,
 *			 struct ixev_conn **cp);
 *
 * DESCRIPTION
 *	Connects to @addr and @port (network order) from the context's core.
 *	Returns at once with the connection in *@cp (@cp may be NULL) and
 *	@data set on it; @ops->connected() tells the outcome.  Bytes sent
 *	before that are sent once it is established.
 *
 * RETURN VALUE
 *	0, -EINVAL (no @ops), -ENOMEM, -EAGAIN (the call ring is full: run
 *	the loop and retry).  Failures of the connection itself come to
 *	connected() and closed().
 */
int ixev_connect(struct ixev *ev, __be32 addr, __be16 port, const struct ixev_conn_ops *ops,
		 void *data, struct ixev_conn **cp)
{
	struct ixmod_call *call;
	struct ixev_conn *c;

	if (!ops)
		return -EINVAL;
	if (!ixu_call_space(&ev->ixu))
		return -EAGAIN;
	c = conn_alloc(ev);
	if (!c)
		return -ENOMEM;
	c->ops = ops;
	c->data = data;
	c->state = S_CONNECT;
	call = next_call(ev);
	ixu_prep_tcp_connect(call, addr, port, conn_cookie(c));
	if (cp)
		*cp = c;
	return 0;
}

/*
 * ixev_udp_bind - a UDP socket
 *
 * SYNOPSIS
 *	int ixev_udp_bind(struct ixev *ev, __be16 port, ixev_udp_fn fn,
 *			  void *arg, struct ixev_udp **up);
 *	int ixev_udp_send(struct ixev_udp *u, const void *buf, size_t len,
 *			  __be32 addr, __be16 port);
 *	void ixev_udp_close(struct ixev_udp *u);
 *
 * DESCRIPTION
 *	ixev_udp_bind() binds @port (network order) on the context's core and
 *	calls @fn(u, data, len, addr, port, @arg) for every datagram (the
 *	data is valid during the call and goes back to the kernel after it).
 *	Waits for the kernel's answer.  ixev_udp_send() copies @len bytes
 *	into the arena and queues a datagram to @addr and @port; it leaves at
 *	the end of the pass.  ixev_udp_close() closes the socket and frees
 *	@u.
 *
 * RETURN VALUE
 *	ixev_udp_bind(): 0, -EADDRINUSE, -EINVAL, -ENOMEM, -ENETDOWN.
 *	ixev_udp_send(): 0, -EINVAL (@len 0 or above 65507), -EAGAIN (the
 *	call ring or the arena is full now: retry after a pass).  Errors
 *	the kernel finds later (-EMSGSIZE above the port's MTU, -ENETUNREACH)
 *	are counted in ixev_stats.errors.
 */
int ixev_udp_bind(struct ixev *ev, __be16 port, ixev_udp_fn fn, void *arg,
		  struct ixev_udp **up)
{
	unsigned int cap = ev->nudps, idx = ev->nudps;
	struct ixmod_call *call;
	struct ixev_udp *u;
	int ret;

	ret = grow((void **)&ev->udps, &cap, idx + 1, sizeof(*ev->udps));
	if (ret)
		return ret;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	call = next_call(ev);
	if (!call) {
		free(u);
		return -EAGAIN;
	}
	*u = (struct ixev_udp){ .ev = ev, .idx = idx, .status = 1, .fn = fn, .arg = arg };
	ev->udps[ev->nudps++] = u;
	ixu_prep_udp_bind(call, port, cookie(CK_UDP, 0, idx));
	ret = wait_answer(ev, &u->status);
	if (ret) {
		ev->udps[idx] = NULL;
		free(u);
		return ret;
	}
	if (up)
		*up = u;
	return 0;
}

int ixev_udp_send(struct ixev_udp *u, const void *buf, size_t len, __be32 addr, __be16 port)
{
	struct ixev *ev = u->ev;
	struct ixmod_call *call;
	__u32 units, off, pos;

	if (!len || len > 65507)
		return -EINVAL;
	if (!ixu_call_space(&ev->ixu) ||
	    grow((void **)&ev->deferred, &ev->deferred_cap, ev->ndeferred + 1,
		 sizeof(*ev->deferred)))
		return -EAGAIN;
	units = (len + UNIT - 1) / UNIT;
	off = lib_units_alloc(ev, units);
	if (!off)
		return -EAGAIN;
	memcpy(ixu_tx_ptr(&ev->ixu, off), buf, len);
	pos = ev->ixu.calls.cached;
	call = next_call(ev);
	ixu_prep_udp_send(call, u->handle, off, len, addr, port, cookie(CK_LIB, 0, 0));
	/* the payload is copied before the consumer index passes the call */
	ev->deferred[ev->ndeferred++] = (struct deferred){ pos, off, units };
	return 0;
}

void ixev_udp_close(struct ixev_udp *u)
{
	struct ixev *ev = u->ev;
	struct ixmod_call *call = next_call(ev);

	if (call)
		ixu_prep_udp_close(call, u->handle, cookie(CK_LIB, 0, 0));
	else
		ev->st.errors++;	/* closed with the context */
	ev->udps[u->idx] = NULL;
	free(u);
}

/*
 * ixev_get_stats - the counters of a context
 *
 * SYNOPSIS
 *	void ixev_get_stats(const struct ixev *ev, struct ixev_stats *st,
 *			    size_t size);
 *
 * DESCRIPTION
 *	Copies the context's counters (struct ixev_stats) into @st, at most
 *	@size bytes: pass sizeof(*st), so that a program built against an
 *	older, shorter struct keeps working with a newer library.
 */
void ixev_get_stats(const struct ixev *ev, struct ixev_stats *st, size_t size)
{
	memcpy(st, &ev->st, size < sizeof(ev->st) ? size : sizeof(ev->st));
}

/* ---- several cores ---- */

#define RUN_MAX_CORES	256

struct runner_core {
	const struct ixev_runner	*r;
	pthread_t			tid;
	unsigned int			cpu;
	unsigned int			ncores;
	bool				first;
	int				err;
	pthread_barrier_t		*ready;
	int				*failed;
};

static void *run_core(void *arg)
{
	struct runner_core *rc = arg;
	const struct ixev_runner *r = rc->r;
	struct ixev *ev = NULL;

	rc->err = ixev_create(&ev, rc->cpu, r->params);
	if (!rc->err && r->init)
		rc->err = r->init(ev, r->arg);
	if (rc->err)
		__atomic_store_n(rc->failed, 1, __ATOMIC_RELAXED);
	pthread_barrier_wait(rc->ready);
	if (!__atomic_load_n(rc->failed, __ATOMIC_RELAXED)) {
		if (rc->first && r->ready)
			r->ready(rc->ncores, r->arg);
		rc->err = ixev_run(ev);
	}
	if (r->fini)
		r->fini(ev, rc->cpu, rc->err, r->arg);
	ixev_destroy(ev);
	return NULL;
}

/* Parse a cpulist such as "1-3,5"; returns the count or -EINVAL. */
static int parse_cpulist(const char *s, unsigned int *cpus, int max)
{
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -EINVAL;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (b < a || b - a > (unsigned long)max)
			return -EINVAL;
		for (; a <= b; a++) {
			if (n == max)
				return -EINVAL;
			cpus[n++] = a;
		}
		if (*end != ',' && *end && *end != '\n')
			return -EINVAL;
		s = *end == ',' ? end + 1 : end;
	}
	return n ? n : -EINVAL;
}

/*
 * ixev_run_cores - serve on several cores, a thread and an ixev each
 *
 * SYNOPSIS
 *	int ixev_run_cores(const struct ixev_runner *r);
 *	void ixev_stop_all(void);
 *
 * DESCRIPTION
 *	Starts one thread per core of r->cpulist; each creates its ixev with
 *	r->params, calls r->init (listen there: RSS spreads flows over the
 *	cores), and once all succeeded runs ixev_run() until ixev_stop_all()
 *	or until its context dies, then calls r->fini.  ixev_stop_all() is
 *	async-signal-safe: call it from a SIGINT handler.  In the co-located
 *	mode each thread is bound to its core.
 *
 * RETURN VALUE
 *	ixev_run_cores(): 0 when every core stopped after ixev_stop_all();
 *	else the first core's error (creation, r->init, or -ENETDOWN when it
 *	lost its port); -EINVAL for a bad cpulist, -ENOENT when no cpulist
 *	is given and /sys/kernel/ixmod/cores cannot be read, -ENOMEM.
 */
int ixev_run_cores(const struct ixev_runner *r)
{
	static struct runner_core rc[RUN_MAX_CORES];
	unsigned int cpus[RUN_MAX_CORES];
	pthread_barrier_t ready;
	char list[1024] = "";
	int n, i, failed = 0, ret = 0;

	if (!r)
		return -EINVAL;
	if (r->cpulist) {
		snprintf(list, sizeof(list), "%s", r->cpulist);
	} else {
		FILE *f = fopen("/sys/kernel/ixmod/cores", "r");

		if (!f)
			return -ENOENT;
		if (!fgets(list, sizeof(list), f))
			list[0] = 0;
		fclose(f);
	}
	n = parse_cpulist(list, cpus, RUN_MAX_CORES);
	if (n < 0)
		return n;
	__atomic_store_n(&stop_all, 0, __ATOMIC_RELAXED);
	if (pthread_barrier_init(&ready, NULL, n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		rc[i] = (struct runner_core){ .r = r, .cpu = cpus[i], .ncores = n,
					      .first = i == 0, .ready = &ready,
					      .failed = &failed };
		if (pthread_create(&rc[i].tid, NULL, run_core, &rc[i]))
			return -ENOMEM;	/* cannot happen after the first */
	}
	for (i = 0; i < n; i++) {
		pthread_join(rc[i].tid, NULL);
		if (rc[i].err && !ret)
			ret = rc[i].err;
	}
	pthread_barrier_destroy(&ready);
	return ret;
}

void ixev_stop_all(void)
{
	__atomic_store_n(&stop_all, 1, __ATOMIC_RELAXED);
}
