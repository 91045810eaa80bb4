// SPDX-License-Identifier: MIT
/*
 * kv-uring - a memcached text-protocol server on io_uring
 *
 *   kv-uring [-p PORT] [-t THREADS] [-m MEGABYTES] [-c MAXCONNS] [-l ADDR]
 *
 * The options and the "kv-uring: ready on port P, N threads" line are
 * kv-epoll's; so are the store and the protocol (the same object files).
 * Only the I/O differs: one ring per thread, each with an accept in flight
 * on the one listener; accept, recv and send are ring operations.
 *
 * A connection has at most one recv and one send in flight.  The send
 * (a sendmsg) reads @sq while the session appends to @oq (see frontend.h);
 * when it completes, what gathered in @oq goes next.  Each pass handles
 * every completion available, then visits the connections they touched:
 * feed the session what it did not take, start a send if none is in
 * flight, re-arm the recv unless backpressure holds it.  A connection is
 * freed only once no operation of its is in flight (shutdown() makes a
 * pending recv complete).
 */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "frontend.h"

#define RING_ENTRIES	512
#define BATCH_MAX	256

enum uop_kind { UOP_ACCEPT, UOP_RECV, UOP_SEND };

/* What a completion is about: user_data points at one of these. */
struct uop {
	enum uop_kind	kind;
	struct uconn	*conn;
};

struct uconn {
	struct kv_conn	c;
	int		fd;
	struct uop	recv_op;
	struct uop	send_op;
	struct msghdr	msg;		/* of the send in flight: read by the kernel */
	struct iovec	iov[KV_IOV];
	size_t		recv_at;	/* where the recv in flight writes in ibuf */
	bool		receiving;	/* a recv is in flight */
	bool		sending;	/* a send is in flight */
	bool		dirty;
	bool		eof;		/* peer closed or error: no more recv */
	bool		dead;		/* shut down; freed when nothing is in flight */
};

struct uworker {
	pthread_t	tid;
	int		lfd;
	struct io_uring	ring;
	struct uop	accept_op;
	struct uconn	**dirty;
	size_t		ndirty;
	size_t		cdirty;
};

static struct io_uring_sqe *uworker_sqe(struct uworker *w)
{
	struct io_uring_sqe *sqe;

	while (!(sqe = io_uring_get_sqe(&w->ring)))
		io_uring_submit(&w->ring);
	return sqe;
}

static void uworker_arm_accept(struct uworker *w)
{
	struct io_uring_sqe *sqe = uworker_sqe(w);

	io_uring_prep_accept(sqe, w->lfd, NULL, NULL, SOCK_CLOEXEC);
	io_uring_sqe_set_data(sqe, &w->accept_op);
}

static void uconn_mark(struct uworker *w, struct uconn *u)
{
	if (u->dirty)
		return;
	if (w->ndirty == w->cdirty) {
		size_t n = w->cdirty ? 2 * w->cdirty : 64;
		struct uconn **d = realloc(w->dirty, n * sizeof(*d));

		if (!d)
			kv_die("out of memory");
		w->dirty = d;
		w->cdirty = n;
	}
	u->dirty = true;
	w->dirty[w->ndirty++] = u;
}

static void uconn_arm_recv(struct uworker *w, struct uconn *u)
{
	struct io_uring_sqe *sqe = uworker_sqe(w);
	size_t room = kv_conn_room(&u->c);

	u->recv_at = u->c.ilen;
	io_uring_prep_recv(sqe, u->fd, u->c.ibuf + u->c.ilen, room, 0);
	io_uring_sqe_set_data(sqe, &u->recv_op);
	u->receiving = true;
}

static void uconn_arm_send(struct uworker *w, struct uconn *u)
{
	struct io_uring_sqe *sqe = uworker_sqe(w);
	struct kv_conn *c = &u->c;

	u->msg = (struct msghdr){ .msg_iov = u->iov,
				  .msg_iovlen = kv_outq_iov(&c->sq, u->iov, KV_IOV) };
	io_uring_prep_sendmsg(sqe, u->fd, &u->msg, MSG_NOSIGNAL);
	io_uring_sqe_set_data(sqe, &u->send_op);
	u->sending = true;
}

/* Stop all I/O; the last completion frees the connection. */
static void uconn_kill(struct uconn *u)
{
	if (u->dead)
		return;
	u->dead = true;
	shutdown(u->fd, SHUT_RDWR);
}

static void uconn_free(struct uconn *u)
{
	close(u->fd);
	kv_conn_fini(&u->c);
	free(u);
}

/* The pass is over for @u: feed, send, receive, or close. */
static void uconn_settle(struct uworker *w, struct uconn *u)
{
	struct kv_conn *c = &u->c;

	if (u->dead) {
		if (!u->receiving && !u->sending)
			uconn_free(u);
		return;
	}
	kv_conn_feed(c);
	if (!u->sending && kv_conn_swap(c))
		uconn_arm_send(w, u);
	if (!kv_conn_pending(c) && (kv_session_closing(&c->s) || u->eof)) {
		uconn_kill(u);
		if (!u->receiving)
			uconn_free(u);
		return;
	}
	if (!u->receiving && !u->eof && kv_conn_wants_input(c))
		uconn_arm_recv(w, u);
}

static void uworker_accepted(struct uworker *w, int fd)
{
	struct uconn *u;

	if (fd < 0 || !kv_conn_admit(fd)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		kv_conn_release();
		close(fd);
		return;
	}
	kv_conn_init(&u->c, kv_server.store);
	u->fd = fd;
	u->recv_op.kind = UOP_RECV;
	u->recv_op.conn = u;
	u->send_op.kind = UOP_SEND;
	u->send_op.conn = u;
	uconn_arm_recv(w, u);
}

static void uworker_complete(struct uworker *w, struct uop *op, int res)
{
	struct uconn *u = op->conn;
	struct kv_conn *c;

	switch (op->kind) {
	case UOP_ACCEPT:
		uworker_accepted(w, res);
		uworker_arm_accept(w);
		return;
	case UOP_RECV:
		c = &u->c;
		u->receiving = false;
		/* the session takes no input while a recv is out: nothing moved */
		if (c->ilen != u->recv_at)
			kv_die("kv-uring: input buffer moved under a recv");
		if (res > 0 && !u->dead)
			c->ilen += res;
		else if (res != -EINTR && res != -EAGAIN)
			u->eof = true;
		break;
	case UOP_SEND:
		c = &u->c;
		u->sending = false;
		if (res < 0 && res != -EINTR && res != -EAGAIN) {
			uconn_kill(u);
		} else if (res > 0) {
			kv_outq_sent(&c->sq, res);
			if (kv_outq_bytes(&c->sq) && !u->dead)
				uconn_arm_send(w, u);
		} else if (!u->dead) {
			uconn_arm_send(w, u);
		}
		break;
	}
	uconn_mark(w, u);
}

static void *uworker_run(void *arg)
{
	struct uworker *w = arg;

	uworker_arm_accept(w);
	for (;;) {
		struct io_uring_cqe *cqe;
		unsigned int head, seen = 0;
		size_t j;
		int ret;

		ret = io_uring_submit_and_wait(&w->ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			kv_die("io_uring_submit_and_wait: %s", strerror(-ret));
		io_uring_for_each_cqe(&w->ring, head, cqe) {
			uworker_complete(w, io_uring_cqe_get_data(cqe), cqe->res);
			if (++seen == BATCH_MAX)
				break;
		}
		io_uring_cq_advance(&w->ring, seen);
		/* one visit per connection per pass: replies leave together */
		for (j = 0; j < w->ndirty; j++) {
			w->dirty[j]->dirty = false;
			uconn_settle(w, w->dirty[j]);
		}
		w->ndirty = 0;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct uworker *w;
	unsigned int i;
	int ret;

	kv_server_setup(argc, argv, "kv-uring");
	w = calloc(kv_server.threads, sizeof(*w));
	if (!w)
		kv_die("out of memory");
	for (i = 0; i < kv_server.threads; i++) {
		w[i].lfd = kv_server.lfd;
		w[i].accept_op.kind = UOP_ACCEPT;
		ret = io_uring_queue_init(RING_ENTRIES, &w[i].ring, 0);
		if (ret == -EPERM)
			kv_die("kv-uring: io_uring is not available (%s): is it disabled "
			       "(sysctl kernel.io_uring_disabled)?", strerror(-ret));
		if (ret < 0)
			kv_die("io_uring_queue_init: %s", strerror(-ret));
		if (pthread_create(&w[i].tid, NULL, uworker_run, &w[i]))
			kv_die("pthread_create failed");
	}
	kv_server_ready("kv-uring");
	for (i = 0; i < kv_server.threads; i++)
		pthread_join(w[i].tid, NULL);
	return 0;
}
