// SPDX-License-Identifier: MIT
/*
 * kv-epoll - a memcached text-protocol server on epoll
 *
 *   kv-epoll [-p PORT] [-t THREADS] [-m MEGABYTES] [-c MAXCONNS] [-l ADDR]
 *
 * -p: TCP port (default 11211; 0 picks a free one, printed); -t: threads
 * (default 4); -m: memory limit in MiB (default 64); -c: most connections
 * at once (default 1024); -l: address to listen on (default 0.0.0.0).
 * Prints "kv-epoll: ready on port P, N threads" once listening.
 *
 * One thread per -t, each with its own epoll instance watching the one
 * listener (EPOLLEXCLUSIVE: a new connection wakes one thread, which
 * accepts what it can); a connection lives on the thread that accepted
 * it.  Level-triggered: a connection that must not be read (its output is
 * over KV_OUT_HIGH) simply drops EPOLLIN from its interest, where edge-triggered would need a re-read
 * scheduled by hand.  Each pass reads once from every ready connection,
 * feeds the bytes to its session, then flushes every connection it
 * touched: replies to pipelined requests leave in one write.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "frontend.h"

#define EVENTS		64

struct econn {
	struct kv_conn	c;
	int		fd;
	uint32_t	events;		/* current epoll interest */
	bool		dirty;		/* on the pass's flush list */
	bool		eof;		/* the peer shut its side */
};

struct eworker {
	pthread_t	tid;
	int		ep;
	int		lfd;
	struct econn	**dirty;
	size_t		ndirty;
	size_t		cdirty;
};

static void econn_close(struct eworker *w, struct econn *e)
{
	epoll_ctl(w->ep, EPOLL_CTL_DEL, e->fd, NULL);
	close(e->fd);
	kv_conn_fini(&e->c);
	free(e);
}

static void econn_mark(struct eworker *w, struct econn *e)
{
	if (e->dirty)
		return;
	if (w->ndirty == w->cdirty) {
		size_t n = w->cdirty ? 2 * w->cdirty : 64;
		struct econn **d = realloc(w->dirty, n * sizeof(*d));

		if (!d)
			kv_die("out of memory");
		w->dirty = d;
		w->cdirty = n;
	}
	e->dirty = true;
	w->dirty[w->ndirty++] = e;
}

/* Write what is pending; false on a broken connection. */
static bool econn_flush(struct econn *e)
{
	struct kv_outq *q = &e->c.oq;
	struct iovec iov[KV_IOV];

	while (kv_outq_bytes(q)) {
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = kv_outq_iov(q, iov, KV_IOV) };
		ssize_t n = sendmsg(e->fd, &m, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK;
		}
		kv_outq_sent(q, n);
	}
	return true;
}

/* Flush, resume the session if it can go on, then set the interest. */
static void econn_settle(struct eworker *w, struct econn *e)
{
	struct kv_conn *c = &e->c;
	struct epoll_event ev;
	uint32_t want = 0;
	int rounds;

	for (rounds = 0; rounds < 8; rounds++) {
		if (!econn_flush(e)) {
			econn_close(w, e);
			return;
		}
		if (!kv_conn_feed(c))
			break;
	}
	if (kv_conn_pending(c) == 0 && (kv_session_closing(&c->s) || e->eof)) {
		econn_close(w, e);
		return;
	}
	if (kv_conn_wants_input(c) && !e->eof)
		want |= EPOLLIN;
	if (kv_conn_pending(c))
		want |= EPOLLOUT;
	if (want != e->events) {
		ev.events = want;
		ev.data.ptr = e;
		epoll_ctl(w->ep, EPOLL_CTL_MOD, e->fd, &ev);
		e->events = want;
	}
}

static void eworker_accept(struct eworker *w)
{
	for (;;) {
		struct epoll_event ev;
		struct econn *e;
		int fd;

		fd = accept4(w->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		if (!kv_conn_admit(fd)) {
			close(fd);
			continue;
		}
		e = calloc(1, sizeof(*e));
		if (!e) {
			kv_conn_release();
			close(fd);
			continue;
		}
		kv_conn_init(&e->c, kv_server.store);
		e->fd = fd;
		e->events = EPOLLIN;
		ev.events = EPOLLIN;
		ev.data.ptr = e;
		if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			kv_conn_fini(&e->c);
			free(e);
		}
	}
}

static void econn_read(struct eworker *w, struct econn *e, uint32_t events)
{
	struct kv_conn *c = &e->c;
	size_t room;
	ssize_t n;

	econn_mark(w, e);
	room = kv_conn_room(c);
	if (!room || !(events & EPOLLIN)) {
		if (events & (EPOLLERR | EPOLLHUP))
			e->eof = true;
		return;
	}
	n = recv(e->fd, c->ibuf + c->ilen, room, 0);
	if (n > 0) {
		c->ilen += n;
		kv_conn_feed(c);
	} else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
		e->eof = true;
	}
}

static void *eworker_run(void *arg)
{
	struct eworker *w = arg;
	struct epoll_event ev[EVENTS];

	for (;;) {
		int i, n;
		size_t j;

		n = epoll_wait(w->ep, ev, EVENTS, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			kv_die("epoll_wait: %s", strerror(errno));
		}
		for (i = 0; i < n; i++) {
			struct econn *e = ev[i].data.ptr;

			if (!e) {
				eworker_accept(w);
				continue;
			}
			if (ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
				econn_read(w, e, ev[i].events);
			if (ev[i].events & EPOLLOUT)
				econn_mark(w, e);
		}
		/* one flush per connection per pass */
		for (j = 0; j < w->ndirty; j++) {
			w->dirty[j]->dirty = false;
			econn_settle(w, w->dirty[j]);
		}
		w->ndirty = 0;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct eworker *w;
	unsigned int i;

	kv_server_setup(argc, argv, "kv-epoll");
	w = calloc(kv_server.threads, sizeof(*w));
	if (!w)
		kv_die("out of memory");
	for (i = 0; i < kv_server.threads; i++) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = NULL };

		w[i].lfd = kv_server.lfd;
		w[i].ep = epoll_create1(EPOLL_CLOEXEC);
		if (w[i].ep < 0 || epoll_ctl(w[i].ep, EPOLL_CTL_ADD, w[i].lfd, &ev))
			kv_die("epoll: %s", strerror(errno));
		if (pthread_create(&w[i].tid, NULL, eworker_run, &w[i]))
			kv_die("pthread_create failed");
	}
	kv_server_ready("kv-epoll");
	for (i = 0; i < kv_server.threads; i++)
		pthread_join(w[i].tid, NULL);
	return 0;
}
