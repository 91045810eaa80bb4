// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-echo-uring - TCP echo server over io_uring (liburing)
 *
 * Same job as tcp-echo-epoll: one thread per CPU of -c (pinned there), or
 * one unpinned thread, each with its own SO_REUSEPORT listening socket on
 * 0.0.0.0:PORT and its own ring, writing back whatever a connection sends.
 * A multishot IORING_OP_ACCEPT takes the connections.  Two ways to move
 * the bytes:
 *
 *   default  one 16 KiB buffer per connection and one request in flight
 *            on it: a RECV into the buffer, then SENDs until the bytes are
 *            out, then the next RECV;
 *   -B       a multishot RECV per connection that picks buffers from a
 *            ring of 1024 provided 4 KiB buffers per thread
 *            (IORING_REGISTER_PBUF_RING); each received buffer joins the
 *            connection's queue, one SEND at a time drains the queue in
 *            order, and a sent buffer goes back to the ring.
 *
 *   tcp-echo-uring [-p PORT] [-c CPU[,CPU...]] [-B] [-S | -D]
 *
 * -p: port (default 7); -c: one thread on each CPU; -B: provided buffers
 * and multishot receive (Linux 6.0 or later); -S: IORING_SETUP_SQPOLL;
 * -D: IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN (Linux 6.1
 * or later; the thread that uses the ring creates it).  -S and -D exclude
 * each other.  Runs until SIGINT/SIGTERM, then prints
 *   tcp-echo-uring: C connections, B bytes echoed, R resets, E errors
 * (resets: ECONNRESET or EPIPE; errors: anything else, each also reported
 * on stderr) and, with -B, how often a receive found no free buffer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#define RING_ENTRIES	256
#define CQ_ENTRIES	4096
#define BUF_SIZE	16384		/* default: per connection */
#define PBUF_SIZE	4096		/* -B: provided buffer */
#define PBUF_COUNT	1024		/* -B: per thread, a power of two */
#define PBUF_GROUP	0

/* user_data: a connection pointer plus OP_*, or one of the tags */
#define OP_RECV		0ULL
#define OP_SEND		1ULL
#define OP_MASK		1ULL
#define TAG_ACCEPT	((uint64_t)-2)
#define TAG_STOP	((uint64_t)-4)

struct conn {
	int fd;
	unsigned int recv_armed:1;
	unsigned int send_busy:1;
	unsigned int eof:1;		/* -B: the peer finished sending */
	unsigned int dead:1;		/* close once nothing is in flight */
	unsigned int starving:1;	/* -B: on the worker's starved list */
	size_t len;			/* default: bytes in buf */
	size_t off;			/* bytes of buf (or of the -B queue head) sent */
	int head, tail;			/* -B: queue of buffer ids, -1: empty */
	struct conn *starved;		/* -B: next connection waiting for buffers */
	char buf[];			/* default: BUF_SIZE bytes */
};

struct worker {
	struct bench_worker b;
	struct io_uring ring;
	uint64_t nobufs;
	/* -B only */
	struct io_uring_buf_ring *br;
	char *pbufs;
	int next[PBUF_COUNT];		/* queue links, by buffer id */
	uint32_t len[PBUF_COUNT];	/* bytes received into each buffer */
	unsigned int pbuf_free;		/* buffers not held by a connection */
	struct conn *starved;		/* receives that ended with -ENOBUFS */
};

static int sqpoll, defer_taskrun, pbuf;
static int stop_fd;			/* eventfd: readable once main stops */

static void usage_exit(void)
{
	fprintf(stderr,
		"usage: tcp-echo-uring [-p PORT] [-c CPU[,CPU...]] [-B] [-S | -D]\n");
	exit(2);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "tcp-echo-uring: %s: %s\n", what, strerror(err));
	exit(1);
}

static struct io_uring_sqe *get_sqe(struct worker *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	if (!sqe) {
		/* full: hand what is queued to the kernel and take a fresh one */
		io_uring_submit(&w->ring);
		sqe = io_uring_get_sqe(&w->ring);
		if (!sqe)
			die("io_uring_get_sqe", EBUSY);
	}
	return sqe;
}

static void arm_accept(struct worker *w)
{
	struct io_uring_sqe *sqe = get_sqe(w);

	io_uring_prep_multishot_accept(sqe, w->b.lfd, NULL, NULL, SOCK_CLOEXEC);
	io_uring_sqe_set_data64(sqe, TAG_ACCEPT);
}

static void arm_recv(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe = get_sqe(w);

	if (pbuf) {
		io_uring_prep_recv_multishot(sqe, c->fd, NULL, 0, 0);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = PBUF_GROUP;
	} else {
		io_uring_prep_recv(sqe, c->fd, c->buf, BUF_SIZE, 0);
	}
	io_uring_sqe_set_data64(sqe, (uintptr_t)c | OP_RECV);
	c->recv_armed = 1;
}

static void arm_send(struct worker *w, struct conn *c, const char *p, size_t len)
{
	struct io_uring_sqe *sqe = get_sqe(w);

	io_uring_prep_send(sqe, c->fd, p, len, MSG_NOSIGNAL);
	io_uring_sqe_set_data64(sqe, (uintptr_t)c | OP_SEND);
	c->send_busy = 1;
}

static char *pbuf_addr(struct worker *w, int bid)
{
	return w->pbufs + (size_t)bid * PBUF_SIZE;
}

/* -B: give buffer @bid back to the ring; re-arm receives starved of one. */
static void pbuf_recycle(struct worker *w, int bid)
{
	struct conn *c;

	io_uring_buf_ring_add(w->br, pbuf_addr(w, bid), PBUF_SIZE, bid,
			      io_uring_buf_ring_mask(PBUF_COUNT), 0);
	io_uring_buf_ring_advance(w->br, 1);
	w->pbuf_free++;
	while (w->starved) {
		c = w->starved;
		w->starved = c->starved;
		c->starving = 0;
		if (!c->dead)
			arm_recv(w, c);
	}
}

static void starved_remove(struct worker *w, struct conn *c)
{
	struct conn **p;

	for (p = &w->starved; *p != c; p = &(*p)->starved)
		;
	*p = c->starved;
	c->starving = 0;
}

static void conn_error(struct worker *w, struct conn *c, int err)
{
	bench_conn_error("tcp-echo-uring", &w->b, err);
	c->dead = 1;
}

/*
 * Close @c once it is dead and nothing of it is in flight.  A multishot
 * receive still armed is ended by shutting the socket down.
 */
static void conn_reap(struct worker *w, struct conn *c)
{
	if (!c->dead || c->send_busy)
		return;
	if (c->recv_armed) {
		shutdown(c->fd, SHUT_RDWR);
		return;
	}
	if (c->starving)
		starved_remove(w, c);
	while (c->head >= 0) {
		int bid = c->head;

		c->head = w->next[bid];
		pbuf_recycle(w, bid);
	}
	close(c->fd);
	free(c);
}

/* -B: send the head of the queue, from where the last send stopped. */
static void queue_send(struct worker *w, struct conn *c)
{
	int bid = c->head;

	if (bid < 0 || c->send_busy || c->dead)
		return;
	arm_send(w, c, pbuf_addr(w, bid) + c->off, w->len[bid] - c->off);
}

static void on_recv(struct worker *w, struct conn *c, struct io_uring_cqe *cqe)
{
	int more = pbuf && (cqe->flags & IORING_CQE_F_MORE);
	int bid;

	if (!more)
		c->recv_armed = 0;
	if (cqe->res > 0) {
		w->b.bytes += cqe->res;
		if (!pbuf) {
			c->len = cqe->res;
			c->off = 0;
			arm_send(w, c, c->buf, c->len);
			return;
		}
		bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		w->pbuf_free--;
		w->len[bid] = cqe->res;
		w->next[bid] = -1;
		if (c->head < 0)
			c->head = bid;
		else
			w->next[c->tail] = bid;
		c->tail = bid;
		queue_send(w, c);
		if (!more && !c->dead)
			arm_recv(w, c);
	} else if (cqe->res == -ENOBUFS) {
		w->nobufs++;
		/*
		 * Buffers may have come back since the kernel found none;
		 * if not, every one is queued and the next one freed re-arms.
		 */
		if (w->pbuf_free) {
			arm_recv(w, c);
			return;
		}
		c->starved = w->starved;
		w->starved = c;
		c->starving = 1;
		return;
	} else if (cqe->res == 0) {
		c->eof = 1;
		if (c->head < 0)
			c->dead = 1;
	} else {
		conn_error(w, c, -cqe->res);
	}
	conn_reap(w, c);
}

static void on_send(struct worker *w, struct conn *c, int res)
{
	int bid;

	c->send_busy = 0;
	if (res < 0) {
		conn_error(w, c, -res);
		conn_reap(w, c);
		return;
	}
	c->off += res;
	if (!pbuf) {
		if (c->off < c->len)
			arm_send(w, c, c->buf + c->off, c->len - c->off);
		else
			arm_recv(w, c);
		return;
	}
	bid = c->head;
	if (c->off == w->len[bid]) {
		c->head = w->next[bid];
		c->off = 0;
		pbuf_recycle(w, bid);
	}
	if (c->head >= 0)
		queue_send(w, c);
	else if (c->eof)
		c->dead = 1;
	conn_reap(w, c);
}

static void on_accept(struct worker *w, struct io_uring_cqe *cqe)
{
	struct conn *c;

	if (!(cqe->flags & IORING_CQE_F_MORE))
		arm_accept(w);
	if (cqe->res == -EINVAL)
		die("multishot accept (needs Linux 5.19 or later)", EINVAL);
	if (cqe->res < 0) {
		w->b.errors++;
		fprintf(stderr, "tcp-echo-uring: accept: %s\n", strerror(-cqe->res));
		return;
	}
	c = calloc(1, sizeof(*c) + (pbuf ? 0 : BUF_SIZE));
	if (!c)
		die("calloc", errno);
	c->fd = cqe->res;
	c->head = -1;
	c->tail = -1;
	if (bench_nodelay(c->fd))
		die("TCP_NODELAY", errno);
	w->b.conns++;
	arm_recv(w, c);
}

/* Returns 1 once the stop eventfd fired. */
static int handle_cqe(struct worker *w, struct io_uring_cqe *cqe)
{
	uint64_t data = io_uring_cqe_get_data64(cqe);
	struct conn *c;

	if (data == TAG_STOP)
		return 1;
	if (data == TAG_ACCEPT) {
		on_accept(w, cqe);
		return 0;
	}
	c = (struct conn *)(uintptr_t)(data & ~OP_MASK);
	if ((data & OP_MASK) == OP_SEND)
		on_send(w, c, cqe->res);
	else
		on_recv(w, c, cqe);
	return 0;
}

static void setup_pbufs(struct worker *w)
{
	struct io_uring_buf_reg reg = { .ring_entries = PBUF_COUNT, .bgid = PBUF_GROUP };
	int i, ret;

	w->br = mmap(NULL, PBUF_COUNT * sizeof(struct io_uring_buf),
		     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->br == MAP_FAILED)
		die("mmap", errno);
	w->pbufs = malloc((size_t)PBUF_COUNT * PBUF_SIZE);
	if (!w->pbufs)
		die("malloc", errno);
	reg.ring_addr = (uintptr_t)w->br;
	ret = io_uring_register_buf_ring(&w->ring, &reg, 0);
	if (ret)
		die("io_uring_register_buf_ring (-B needs Linux 5.19 or later)", -ret);
	io_uring_buf_ring_init(w->br);
	for (i = 0; i < PBUF_COUNT; i++)
		io_uring_buf_ring_add(w->br, pbuf_addr(w, i), PBUF_SIZE, i,
				      io_uring_buf_ring_mask(PBUF_COUNT), i);
	io_uring_buf_ring_advance(w->br, PBUF_COUNT);
	w->pbuf_free = PBUF_COUNT;
}

static void *worker_fn(void *arg)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = CQ_ENTRIES };
	struct worker *w = arg;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	unsigned int head, seen;
	int ret, done = 0;

	bench_pin("tcp-echo-uring", w->b.cpu);
	if (sqpoll) {
		p.flags |= IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 1000;	/* ms */
	}
	if (defer_taskrun)
		p.flags |= IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	ret = io_uring_queue_init_params(RING_ENTRIES, &w->ring, &p);
	if (ret < 0)
		die(defer_taskrun ? "io_uring_queue_init (-D needs Linux 6.1 or later)" :
		    "io_uring_queue_init", -ret);
	if (pbuf)
		setup_pbufs(w);

	sqe = get_sqe(w);
	io_uring_prep_poll_add(sqe, stop_fd, POLLIN);
	io_uring_sqe_set_data64(sqe, TAG_STOP);
	arm_accept(w);

	while (!done) {
		ret = io_uring_submit_and_wait(&w->ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			die("io_uring_submit_and_wait", -ret);
		seen = 0;
		io_uring_for_each_cqe(&w->ring, head, cqe) {
			seen++;
			if (handle_cqe(w, cqe))
				done = 1;
		}
		io_uring_cq_advance(&w->ring, seen);
	}
	/* cancels what is in flight; the process exits next */
	io_uring_queue_exit(&w->ring);
	return NULL;
}

int main(int argc, char **argv)
{
	struct bench_server srv = { .port = 7 };
	struct worker *workers;
	uint64_t nobufs = 0;
	sigset_t mask;
	int opt, i;

	while ((opt = getopt(argc, argv, "p:c:BSD")) != -1) {
		if (opt == 'B')
			pbuf = 1;
		else if (opt == 'S')
			sqpoll = 1;
		else if (opt == 'D')
			defer_taskrun = 1;
		else if (bench_server_opt(&srv, opt, optarg))
			usage_exit();
	}
	if (optind != argc || (sqpoll && defer_taskrun))
		usage_exit();
	stop_fd = bench_server_setup("tcp-echo-uring", &srv, &mask);
	workers = calloc(srv.ncpus, sizeof(*workers));
	if (!workers)
		die("calloc", errno);
	/* listen on every socket before serving: startup errors come first */
	for (i = 0; i < srv.ncpus; i++) {
		workers[i].b.cpu = srv.cpus[i];
		workers[i].b.lfd = bench_tcp_listen("tcp-echo-uring", srv.port, 0);
	}
	bench_serve("tcp-echo-uring", workers, sizeof(*workers), srv.ncpus, worker_fn,
		    &mask, stop_fd);
	if (pbuf) {
		for (i = 0; i < srv.ncpus; i++)
			nobufs += workers[i].nobufs;
		printf("tcp-echo-uring: %llu receives found no free buffer\n",
		       (unsigned long long)nobufs);
	}
	return 0;
}
