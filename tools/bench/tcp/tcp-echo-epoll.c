// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-echo-epoll - TCP echo server on Linux sockets and epoll, the
 * baseline for ixmod's tcp-echo
 *
 * One thread per CPU of -c (pinned there), or one unpinned thread.  Each
 * owns a listening socket on 0.0.0.0:PORT (SO_REUSEPORT: the kernel
 * spreads connections over them) and an epoll instance; every socket is
 * non-blocking and has TCP_NODELAY.  A thread writes back whatever a
 * connection sends, as it arrives (no framing).  While the peer cannot
 * take a reply, the thread reads nothing more from that connection.
 *
 *   tcp-echo-epoll [-p PORT] [-c CPU[,CPU...]] [-e]
 *
 * -p: port (default 7); -c: one thread on each CPU; -e: edge-triggered
 * (EPOLLIN | EPOLLOUT | EPOLLET, registered once: each event reads and
 * writes until EAGAIN) instead of level-triggered (one read per EPOLLIN
 * event; the interest moves to EPOLLOUT while a reply waits for room).
 * Runs until SIGINT/SIGTERM, then prints
 *   tcp-echo-epoll: C connections, B bytes echoed, R resets, E errors
 * (resets: ECONNRESET or EPIPE, as a client that gives up causes; errors:
 * anything else, each also reported on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#define BUF_SIZE	16384
#define MAX_EVENTS	64

struct conn {
	int fd;
	uint32_t events;		/* level-triggered: current interest */
	size_t len;			/* bytes in buf */
	size_t off;			/* of which already written back */
	char buf[BUF_SIZE];
};

struct worker {
	struct bench_worker b;
	int epfd;
};

static int edge;
static int stop_fd;			/* eventfd: readable once main stops */

/* epoll tags of the two sockets that are not connections */
static char listen_tag, stop_tag;

static void usage_exit(void)
{
	fprintf(stderr, "usage: tcp-echo-epoll [-p PORT] [-c CPU[,CPU...]] [-e]\n");
	exit(2);
}

static void die(const char *what)
{
	fprintf(stderr, "tcp-echo-epoll: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void conn_close(struct worker *w, struct conn *c, int err)
{
	if (err)
		bench_conn_error("tcp-echo-epoll", &w->b, err);
	close(c->fd);		/* also drops it from the epoll set */
	free(c);
}

/* Level-triggered only: wait for @events on @c next. */
static int conn_want(struct worker *w, struct conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	if (edge || c->events == events)
		return 0;
	c->events = events;
	return epoll_ctl(w->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Write back what is pending: 1 all out, 0 would block, -errno. */
static int conn_flush(struct conn *c)
{
	ssize_t n;

	while (c->off < c->len) {
		n = send(c->fd, c->buf + c->off, c->len - c->off, MSG_NOSIGNAL);
		if (n > 0)
			c->off += n;
		else if (errno == EAGAIN)
			return 0;
		else if (errno != EINTR)
			return -errno;
	}
	return 1;
}

/*
 * Echo on @c until it would block (edge-triggered) or after one read
 * (level-triggered); close it on end of stream or error.
 */
static void conn_serve(struct worker *w, struct conn *c)
{
	int ret, did_read = 0;
	ssize_t n;

	for (;;) {
		ret = conn_flush(c);
		if (ret < 0)
			goto out_close;
		if (conn_want(w, c, ret ? EPOLLIN : EPOLLOUT)) {
			ret = -errno;
			goto out_close;
		}
		if (!ret || (!edge && did_read))
			return;
		n = recv(c->fd, c->buf, BUF_SIZE, 0);
		if (n > 0) {
			c->len = n;
			c->off = 0;
			w->b.bytes += n;
			did_read = 1;
		} else if (n == 0) {
			ret = 0;
			goto out_close;
		} else if (errno == EAGAIN) {
			return;
		} else if (errno != EINTR) {
			ret = -errno;
			goto out_close;
		}
	}

out_close:
	conn_close(w, c, -ret);
}

static void accept_all(struct worker *w)
{
	struct epoll_event ev;
	struct conn *c;
	int fd;

	for (;;) {
		fd = accept4(w->b.lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN)
				return;
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			/* EMFILE and the like: retried on the next event */
			w->b.errors++;
			fprintf(stderr, "tcp-echo-epoll: accept: %s\n", strerror(errno));
			return;
		}
		c = malloc(sizeof(*c));
		if (!c)
			die("malloc");
		c->fd = fd;
		c->len = 0;
		c->off = 0;
		c->events = EPOLLIN;
		ev.events = edge ? EPOLLIN | EPOLLOUT | EPOLLET : EPOLLIN;
		ev.data.ptr = c;
		if (bench_nodelay(fd) || epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev))
			die("accepted socket");
		w->b.conns++;
	}
}

static void *worker_fn(void *arg)
{
	struct epoll_event ev, events[MAX_EVENTS];
	struct worker *w = arg;
	int i, n;

	bench_pin("tcp-echo-epoll", w->b.cpu);
	for (;;) {
		n = epoll_wait(w->epfd, events, MAX_EVENTS, -1);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			ev = events[i];
			if (ev.data.ptr == &stop_tag)
				return NULL;
			if (ev.data.ptr == &listen_tag)
				accept_all(w);
			else
				conn_serve(w, ev.data.ptr);
		}
	}
}

static void worker_init(struct worker *w, int port)
{
	struct epoll_event ev = { .events = EPOLLIN };

	w->b.lfd = bench_tcp_listen("tcp-echo-epoll", port, SOCK_NONBLOCK);
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0)
		die("epoll_create1");
	ev.data.ptr = &listen_tag;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->b.lfd, &ev))
		die("epoll_ctl");
	ev.data.ptr = &stop_tag;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, stop_fd, &ev))
		die("epoll_ctl");
}

int main(int argc, char **argv)
{
	struct bench_server srv = { .port = 7 };
	struct worker *workers;
	sigset_t mask;
	int opt, i;

	while ((opt = getopt(argc, argv, "p:c:e")) != -1) {
		if (opt == 'e')
			edge = 1;
		else if (bench_server_opt(&srv, opt, optarg))
			usage_exit();
	}
	if (optind != argc)
		usage_exit();
	stop_fd = bench_server_setup("tcp-echo-epoll", &srv, &mask);
	workers = calloc(srv.ncpus, sizeof(*workers));
	if (!workers)
		die("calloc");
	/* listen on every socket before serving: startup errors come first */
	for (i = 0; i < srv.ncpus; i++) {
		workers[i].b.cpu = srv.cpus[i];
		worker_init(&workers[i], srv.port);
	}
	bench_serve("tcp-echo-epoll", workers, sizeof(*workers), srv.ncpus, worker_fn,
		    &mask, stop_fd);
	return 0;
}
