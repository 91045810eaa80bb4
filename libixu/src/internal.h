/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what libixu's own files share and applications do not see
 */
#ifndef _IXU_INTERNAL_H
#define _IXU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "ixu.h"
#include "ixev.h"

/* The rings (setup.c, ring.c) */

/* Unmap whatever ixu_attach() mapped; safe on a handle that mapped nothing. */
void ixu_unmap(struct ixu *ixu);

/*
 * The event layer (ixev*.c): what its files share.  The files, by concern:
 *
 *   ixev.c        the context (create, destroy), one pass of the loop
 *                 (ixev_dispatch(): events in, flush() out), stats
 *   ixev_arena.c  the transmit arena's units, each connection's share,
 *                 ixev_zc_alloc()
 *   ixev_conn.c   connections: slots, receiving, their events, listen,
 *                 connect, close, and flushing a connection's state to calls
 *   ixev_send.c   buffered and zero-copy sends, waking connections that
 *                 wait for room
 *   ixev_udp.c    UDP sockets
 *   ixev_timer.c  timers: a binary min-heap
 *   ixev_run.c    ixev_run(), and ixev_run_cores(): a thread per core
 *
 * Cookies (user_data): the kind of object in bits 60-63, a generation in
 * bits 32-59 and a table index below, so an event that arrives after its
 * connection was freed, or its slot reused, is recognised and dropped.
 */

#define UNIT		2048U		/* arena allocation unit */
#define SEG_UNITS	8U		/* largest buffered segment: 16 KiB */
#define UNIT_SPARES	64U		/* single units kept at hand for reuse */
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
	bool				sending;	/* a send call in flight (not positional) */
	bool				win_wait;	/* a send took less: wait for TCP_SENT */
	bool				want_write;	/* tell writable() when room comes */
	bool				resume;		/* offer held bytes again */
	bool				eof;		/* the peer's FIN is held */
	bool				in_readable;
	bool				starved;	/* on ev->starved: the arena was full */
	bool				wr_shut;	/* ixev_shutdown(): FIN after the data */
	bool				shut_queued;	/* TCP_SHUTDOWN is in the ring */
	__be16				lport;		/* local port (knock, connected) */
	bool				inet6;		/* an IPv6 peer, at addr6 */
	__u8				addr6[16];
	__u32				units;		/* arena units of its send buffer */

	/* transmit: byte positions since the start of the stream */
	struct seg			segs[SEGS];
	unsigned int			seg_head;
	unsigned int			seg_n;
	__u64				base;		/* stream position of segs[seg_head] */
	__u64				fill;		/* written */
	/* accepted by the kernel; positional sends count until an event says fewer */
	__u64				queued;
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
	ixev_udp6_fn	fn6;
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
	bool			pos_calls;	/* sends and closes carry their offset */
	struct ixev_stats	st;

	/* arena */
	__u32			unit_base;	/* offset of unit 0 */
	__u32			nunits;
	__u64			*bitmap;
	__u32			hint;		/* first word that may have a free unit */
	__u32			spare[UNIT_SPARES]; /* single units freed last */
	unsigned int		nspare;
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

	/*
	 * libixu-posix: called when bytes or the peer's FIN are held behind
	 * bytes the application has not consumed (readable() is not called
	 * for them); NULL for everyone else
	 */
	void			(*rx_hook)(struct ixev_conn *c);
};

/* The next call entry, counted for submit and stats; NULL: the ring is full. */
static inline struct ixmod_call *next_call(struct ixev *ev)
{
	struct ixmod_call *call = ixu_call_get(&ev->ixu);

	if (call) {
		ev->queued++;
		ev->st.calls++;
	}
	return call;
}

static inline __u64 conn_cookie(const struct ixev_conn *c)
{
	return cookie(CK_CONN, c->gen, c->idx);
}

/*
 * The functions one file of the event layer calls in another.  libixu.so
 * exports none of them (libixu.map: local), but libixu.a holds them as
 * global symbols, hence the ixev_ prefix on every one.
 */

/* ixev.c: grow *@p, an array of *@cap elements of @size, to hold @need */
int ixev_grow(void **p, unsigned int *cap, unsigned int need, size_t size);

/* ixev_arena.c */
__u32 ixev_conn_units_alloc(struct ixev_conn *c, __u32 n);
void ixev_conn_units_release(struct ixev_conn *c, __u32 off, __u32 n);
__u32 ixev_lib_units_alloc(struct ixev *ev, __u32 n);
void ixev_lib_units_release(struct ixev *ev, __u32 off, __u32 n);

/* ixev_conn.c */
void ixev_mark_dirty(struct ixev_conn *c);
struct ixev_conn *ixev_conn_alloc(struct ixev *ev);
void ixev_conn_free(struct ixev_conn *c);
struct ixev_conn *ixev_conn_of(struct ixev *ev, __u64 ck);
void ixev_conn_event(struct ixev *ev, const struct ixmod_event *e);
void ixev_listener_event(struct ixev *ev, const struct ixmod_event *e);
void ixev_conn_flush(struct ixev_conn *c);

/*
 * For libixu-posix, which reads held bytes when the application calls
 * read() rather than in readable(): the @i-th held segment (its length;
 * 0 past the last), and the first @n held bytes consumed (they go back
 * with the next flush's recv_done).  ixev_held_eof(): the peer's FIN
 * came and no byte is held.
 */
size_t ixev_held_peek(const struct ixev_conn *c, unsigned int i, const void **p);
void ixev_held_consume(struct ixev_conn *c, size_t n);
size_t ixev_held_bytes(const struct ixev_conn *c);
bool ixev_held_eof(const struct ixev_conn *c);
/* the peer's FIN came (bytes before it may still be held) */
bool ixev_fin_seen(const struct ixev_conn *c);
/*
 * The half-close (IXMOD_FEAT_SHUTDOWN): a FIN after the bytes sent, and
 * received bytes keep coming.  0, -EPIPE (closed), -ENOTCONN (not
 * established), -EOPNOTSUPP (the module has no TCP_SHUTDOWN).
 */
int ixev_shutdown(struct ixev_conn *c);
/* the connection's local port, network order (0 until known) */
__be16 ixev_conn_lport(const struct ixev_conn *c);
/* stop the listener ixev_listen() made with @fn and @arg; -ENOENT: none */
int ixev_unlisten(struct ixev *ev, ixev_accept_fn fn, void *arg);

/* ixev_send.c */
void ixev_segs_acked(struct ixev_conn *c);

/*
 * The oldest queued segment is done with: its arena units or its
 * zero-copy buffer go back, and it leaves the queue.
 */
static inline void ixev_seg_pop(struct ixev_conn *c)
{
	struct seg *g = &c->segs[c->seg_head];

	if (g->units)
		ixev_conn_units_release(c, g->off, g->units);
	else if (g->release)
		g->release(g->arg);
	c->seg_head = (c->seg_head + 1) % SEGS;
	c->seg_n--;
}
void ixev_tell_writable(struct ixev_conn *c);
void ixev_wake_starved(struct ixev *ev);
void ixev_conn_send(struct ixev_conn *c);

/* ixev_udp.c */
void ixev_udp_event(struct ixev *ev, const struct ixmod_event *e);
void ixev_udp_flush(struct ixev *ev);

/* ixev_timer.c */
void ixev_run_timers(struct ixev *ev);
int ixev_timer_wait_ms(struct ixev *ev, int limit);

/* ixev_run.c */
int ixev_wait_answer(struct ixev *ev, int *status);

#endif /* _IXU_INTERNAL_H */
