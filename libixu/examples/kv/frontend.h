/* SPDX-License-Identifier: MIT */
/*
 * kv front ends - what kv-epoll and kv-uring share: options, listeners, and a
 * connection's buffers around its session
 *
 * A connection keeps received bytes the session did not take yet (it stops
 * under backpressure) in @ibuf, and the replies in two output queues
 * (outq.h: copies and referenced values): @oq, which the session appends
 * to, and @sq, the bytes a send in flight reads (kv-uring: io_uring reads
 * them after the call, so they must not move while the session writes;
 * kv-epoll sends @oq directly).
 *
 * Memory.  Items, also values being received and values waiting in a
 * queue, are charged to the store's -m (store.h).  Beside them a
 * connection holds at most KV_CONN_ALLOWANCE bytes: its struct (@ibuf
 * inside), the session's partial command line (KV_LINE_MAX), and the
 * copied replies: the session stops at KV_OUT_HIGH pending, plus one
 * reply's copies (a get's VALUE line, or stats), which the queue's
 * compaction keeps within twice that.
 */
#ifndef KV_FRONTEND_H
#define KV_FRONTEND_H

#include <stdbool.h>
#include <stddef.h>

#include "outq.h"
#include "proto.h"
#include "store.h"

#define KV_IBUF		16384
#define KV_THREADS_MAX	64
#define KV_IOV		64		/* iovecs per send */

struct kv_conn {
	struct kv_session	s;
	struct kv_out		out;
	struct kv_outq		oq;
	struct kv_outq		sq;
	size_t			ioff, ilen;
	char			ibuf[KV_IBUF];
};

/* See "Memory" above; the figure --help prints. */
#define KV_CONN_ALLOWANCE	(sizeof(struct kv_conn) + KV_LINE_MAX + 2 * (KV_OUT_HIGH + 4096))

struct kv_server {
	struct kv_store	*store;
	unsigned int	threads;
	unsigned int	port;
	unsigned int	maxconns;
	size_t		maxbytes;
	const char	*addr;
	int		lfd;		/* the listener, shared by the threads */
	unsigned int	conns;		/* atomic: open connections */
};

extern struct kv_server kv_server;

void kv_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Parse the options, create the store and one listener per thread. */
void kv_server_setup(int argc, char **argv, const char *prog);
/* Print the "ready" line. */
void kv_server_ready(const char *prog);

/* Count a new connection; false (and an error written to it) if over -c. */
bool kv_conn_admit(int fd);
void kv_conn_release(void);

void kv_conn_init(struct kv_conn *c, struct kv_store *st);
/* Frees the buffers, ends the session, releases the admission. */
void kv_conn_fini(struct kv_conn *c);

size_t kv_conn_pending(const struct kv_conn *c);
/* Run the session on the unconsumed input; true if it made progress. */
bool kv_conn_feed(struct kv_conn *c);
/* Free room at the end of @ibuf (compacting it first). */
size_t kv_conn_room(struct kv_conn *c);
bool kv_conn_wants_input(struct kv_conn *c);
/* kv-uring: move @oq to @sq for a send; false if a send is out or nothing waits. */
bool kv_conn_swap(struct kv_conn *c);

#endif /* KV_FRONTEND_H */
