/* SPDX-License-Identifier: MIT */
/*
 * ixev.h - libixu's event layer: connections with callbacks over the rings
 *
 * ixu.h gives the raw rings; ixev keeps what every server otherwise
 * writes again (IX's libix/ixev plays the same part): per-connection
 * state and callbacks, buffered sends that coalesce one pass's writes
 * into one call per connection and keep their arena bytes until the peer
 * acknowledges them, zero-copy sends, received bytes returned with one
 * merged recv_done per connection and pass, UDP sockets, timers, one
 * context per thread and a runner for several cores.
 *
 * The model.  One struct ixev per thread, attached to one dataplane core.
 * ixev_dispatch() consumes the events that wait and calls the callbacks;
 * the callbacks only change state (ixev_send() copies into the
 * connection's send buffer, ixev_close() marks it), and at the end of the
 * pass ixev turns the state of every connection it touched into calls:
 * at most one recv_done, one send and one close each.  So no callback
 * ever waits for room in a ring.  ixev_run() repeats this, sleeping when
 * there is nothing to do; an application with its own epoll or io_uring
 * loop watches ixev_fd() instead and calls ixev_dispatch() when it is
 * readable (kernel-thread mode only: in the co-located mode the thread
 * must run the core in ixev_run()).
 *
 * A connection's callbacks (struct ixev_conn_ops) come from the
 * accept callback of its listener or from ixev_connect().  Each
 * connection ends with exactly one closed() call, after which it is freed:
 * free the application's state there.  Byte order as in ixu.h: addresses
 * and ports are network order (__be32, __be16).
 *
 * Errors: functions return 0, a count, or a negative errno; none prints
 * or sets errno.
 */
#ifndef _IXEV_H
#define _IXEV_H

#include <sys/types.h>
#include "ixu.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ixev;
struct ixev_conn;
struct ixev_udp;

/**
 * struct ixev_params - what ixev_create() asks for
 * @mode: IXU_MODE_THREAD (the core's kernel thread runs the dataplane) or
 *	IXU_MODE_COLOCATED (the thread in ixev_run() does; it is bound to
 *	the core)
 * @call_entries: call ring entries (0: 1024)
 * @event_entries: event ring entries (0: 4096)
 * @txarena_size: transmit arena bytes (0: 8 MiB), shared by the send
 *	buffers of every connection and UDP socket and by ixev_zc_alloc();
 *	half of it is kept for 4 KiB per connection (ixev_send(3))
 * @sndbuf: most bytes one connection may hold unacknowledged (0: 256 KiB)
 * @flags: IXEV_F_*
 * @resv: zero
 */
struct ixev_params {
	unsigned int	mode;
	unsigned int	call_entries;
	unsigned int	event_entries;
	unsigned int	txarena_size;
	unsigned int	sndbuf;
	unsigned int	flags;
	unsigned int	resv[2];
};

/*
 * ixev_params.flags.  IXEV_F_INET6: the context takes IPv6 peers
 * (IXMOD_SETUP_INET6, with 64-byte events); ixev_create() fails with
 * -EOPNOTSUPP on a module without IXMOD_FEAT_INET6.  UDP:
 * ixev_udp_bind6(), ixev_udp_send6().  TCP (IXMOD_FEAT_TCP6): its
 * listeners take IPv6 peers too (offered with addr 0:
 * ixev_conn_addr6()), ixev_connect6().
 */
#define IXEV_F_INET6	(1U << 0)

/**
 * struct ixev_conn_ops - what a connection calls back
 * @connected: ixev_connect() only: the connection is established (@err
 *	0) or failed (-ECONNREFUSED, -ETIMEDOUT, -ENETUNREACH, ...); after a
 *	failure closed() follows
 * @readable: @len bytes arrived at @data (read-only, valid during the
 *	call).  Return how many the application consumed; the rest stays
 *	with ixev and is offered again, first, after the next send progress
 *	or ixev_resume() (while held, bytes keep the peer's window shut: TCP
 *	flow control).  @len 0: the peer's FIN, its stream ended.
 * @writable: an ixev_send() took less than asked (or ixev_send_space()
 *	was 0) and room came back
 * @closed: the connection is over (@err 0 after a clean close, else
 *	-ECONNRESET, -ETIMEDOUT, -ECONNABORTED, ...); @c is freed when this
 *	returns
 *
 * Any callback may be NULL.  Callbacks may send, close and resume any
 * connection of the same ixev.
 */
struct ixev_conn_ops {
	void	(*connected)(struct ixev_conn *c, int err);
	size_t	(*readable)(struct ixev_conn *c, const void *data, size_t len);
	void	(*writable)(struct ixev_conn *c);
	void	(*closed)(struct ixev_conn *c, int err);
};

/*
 * ixev_accept_fn - a listener's callback for a new connection
 *
 * Called for every connection the listener's port completed, with its
 * remote @addr and @port (an IPv6 peer's: @addr 0, ixev_conn_addr6(c)
 * gives its address).  Return the connection's callbacks (and set its
 * data with ixev_set_data()) to accept it, or NULL to refuse it: it is
 * then reset and freed without a closed() call.
 */
typedef const struct ixev_conn_ops *(*ixev_accept_fn)(struct ixev_conn *c, __be32 addr,
						      __be16 port, void *arg);

/* Context: one per thread. */
int ixev_create(struct ixev **evp, unsigned int cpu, const struct ixev_params *params);
void ixev_destroy(struct ixev *ev);
int ixev_fd(const struct ixev *ev);
struct ixu *ixev_ixu(struct ixev *ev);
unsigned int ixev_cpu(const struct ixev *ev);

/* The loop. */
int ixev_dispatch(struct ixev *ev);
int ixev_run_once(struct ixev *ev, int timeout_ms);
int ixev_run(struct ixev *ev);
void ixev_stop(struct ixev *ev);

/* TCP. */
int ixev_listen(struct ixev *ev, __be16 port, unsigned int backlog, ixev_accept_fn fn,
		void *arg);
int ixev_connect(struct ixev *ev, __be32 addr, __be16 port, const struct ixev_conn_ops *ops,
		 void *data, struct ixev_conn **cp);
/* TCP with IPv6 peers (IXEV_F_INET6, IXMOD_FEAT_TCP6): 16 bytes, network order. */
int ixev_connect6(struct ixev *ev, const __u8 *addr6, __be16 port,
		  const struct ixev_conn_ops *ops, void *data, struct ixev_conn **cp);
const __u8 *ixev_conn_addr6(const struct ixev_conn *c);
ssize_t ixev_send(struct ixev_conn *c, const void *buf, size_t len);
size_t ixev_send_space(const struct ixev_conn *c);
void *ixev_zc_alloc(struct ixev *ev, size_t len);
void ixev_zc_free(struct ixev *ev, void *p, size_t len);
int ixev_send_zc(struct ixev_conn *c, const void *p, size_t len,
		 void (*release)(void *arg), void *arg);
void ixev_resume(struct ixev_conn *c);
void ixev_close(struct ixev_conn *c);
void ixev_abort(struct ixev_conn *c);
void ixev_set_data(struct ixev_conn *c, void *data);
void *ixev_data(const struct ixev_conn *c);
struct ixev *ixev_conn_ev(const struct ixev_conn *c);

/* UDP. */
typedef void (*ixev_udp_fn)(struct ixev_udp *u, const void *data, size_t len, __be32 addr,
			    __be16 port, void *arg);
int ixev_udp_bind(struct ixev *ev, __be16 port, ixev_udp_fn fn, void *arg,
		  struct ixev_udp **up);
int ixev_udp_send(struct ixev_udp *u, const void *buf, size_t len, __be32 addr, __be16 port);
void ixev_udp_close(struct ixev_udp *u);
/* UDP with IPv6 peers (IXEV_F_INET6): @addr6 is 16 bytes, network order. */
typedef void (*ixev_udp6_fn)(struct ixev_udp *u, const void *data, size_t len,
			     const __u8 *addr6, __be16 port, void *arg);
int ixev_udp_bind6(struct ixev *ev, __be16 port, ixev_udp_fn fn, ixev_udp6_fn fn6,
		   void *arg, struct ixev_udp **up);
int ixev_udp_send6(struct ixev_udp *u, const void *buf, size_t len, const __u8 *addr6,
		   __be16 port);

/**
 * struct ixev_timer - a one-shot timer, embedded in the application's state
 * @fn: called from ixev_dispatch() once the timer expired
 * @when_ns: private
 * @idx: private (its place in the ixev's heap, 0: not armed)
 */
struct ixev_timer {
	void			(*fn)(struct ixev_timer *t);
	unsigned long long	when_ns;
	unsigned int		idx;
};

int ixev_timer_arm(struct ixev *ev, struct ixev_timer *t, unsigned long long usec);
void ixev_timer_cancel(struct ixev *ev, struct ixev_timer *t);

/**
 * struct ixev_stats - counters of one ixev
 * @conns: connections accepted or connected
 * @refused: connections refused (by the accept callback or for want of memory)
 * @events: events consumed
 * @calls: calls queued
 * @passes: ixev_dispatch() passes
 * @late: events of connections already freed (ignored)
 * @errors: calls the kernel refused and unexpected events
 * @bytes_in: TCP bytes received
 * @bytes_out: TCP bytes acknowledged by peers
 * @arena_used: transmit arena bytes in use now (send buffers, UDP
 *	payloads on their way, ixev_zc_alloc())
 * @arena_waits: times ixev_send() took less because the arena was full
 *	(the connection gets writable() when units come back)
 *
 * Fields are only ever added at the end; ixev_get_stats() copies as many
 * bytes as the caller's struct has.
 */
struct ixev_stats {
	unsigned long long	conns;
	unsigned long long	refused;
	unsigned long long	events;
	unsigned long long	calls;
	unsigned long long	passes;
	unsigned long long	late;
	unsigned long long	errors;
	unsigned long long	bytes_in;
	unsigned long long	bytes_out;
	unsigned long long	arena_used;
	unsigned long long	arena_waits;
};

void ixev_get_stats(const struct ixev *ev, struct ixev_stats *st, size_t size);

/**
 * struct ixev_runner - ixev_run_cores(): one thread and one ixev per core
 * @cpulist: the dataplane cores, as "1-3,5" (NULL: all of
 *	/sys/kernel/ixmod/cores)
 * @params: each context's parameters (NULL: defaults)
 * @init: called in each core's thread once its ixev exists, to listen,
 *	bind and connect; a negative return stops every core
 * @ready: called once, in one thread, after every @init succeeded
 * @fini: called in each core's thread at the end, with its ixev (NULL if
 *	it could not be created), its core and how it ended: 0 after
 *	ixev_stop_all(), -ENETDOWN when it lost its port, or the error of
 *	its creation or @init
 * @arg: passed to the three
 */
struct ixev_runner {
	const char		*cpulist;
	const struct ixev_params *params;
	int			(*init)(struct ixev *ev, void *arg);
	void			(*ready)(unsigned int ncores, void *arg);
	void			(*fini)(struct ixev *ev, unsigned int cpu, int err, void *arg);
	void			*arg;
};

int ixev_run_cores(const struct ixev_runner *r);
void ixev_stop_all(void);

#ifdef __cplusplus
}
#endif

#endif /* _IXEV_H */
