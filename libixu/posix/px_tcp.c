// SPDX-License-Identifier: MIT
/*
 * px_tcp.c - libixu-posix: the socket calls
 *
 * socket() of an AF_INET stream socket makes a Linux socket and, unless
 * IXU_POSIX_SOCKETS=off, a candidate px_sock beside it.  bind() or
 * connect() decides (px.route): the socket goes to ixmod, or the
 * candidate is dropped and the Linux socket is the application's.
 * Until then every call but those two also goes to the Linux socket, so
 * that options set early hold whichever way it goes.
 *
 * Errors are Linux's (tcp(7), socket(7), and what its tcp_sendmsg() and
 * tcp_recvmsg() return): a reset is reported once, as ECONNRESET, by the
 * first read, write or SO_ERROR, then reads give 0 and writes EPIPE; a
 * write on a connection closed for sending raises SIGPIPE unless
 * MSG_NOSIGNAL.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>

#include "px.h"

static const struct ixev_conn_ops px_conn_ops;
static int sleep_until(long long end);
static int sock_wait(struct px_sock *s, long long end);

/* now + @ms, or 0 (no deadline) for 0 */
static long long deadline(int ms)
{
	return ms ? px_now_ms() + ms : 0;
}

/* A candidate or routed socket, NULL for any other fd. */
struct px_sock *px_sock_get(int fd)
{
	struct px_file *f = px_file_get(fd);

	return f && f->kind == PX_SOCK ? (struct px_sock *)f : NULL;
}

/* routed: the socket is ixmod's, not a candidate any more */
static bool routed(const struct px_sock *s)
{
	return s->ixm;
}

static struct px_sock *sock_new(void)
{
	struct px_sock *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->f.kind = PX_SOCK;
	s->f.refs = 1;
	s->acq_tail = &s->acq;
	return s;
}

static void unbind(struct px_sock *s);

/*
 * The socket is done with.  A thread asleep in px_sleep() may still hold
 * it (a read() another thread's close() ended): it waits in px.grave
 * until nobody sleeps, and such a thread finds it gone.
 */
static void sock_free(struct px_sock *s)
{
	px_epis_drop(s);
	unbind(s);
	s->gone = true;
	if (px.sleepers) {
		s->next = px.grave;
		px.grave = s;
		return;
	}
	free(s->left);
	free(s);
}

/* Called with the lock held, when no thread sleeps any more. */
void px_grave_empty(void)
{
	while (px.grave) {
		struct px_sock *s = px.grave;

		px.grave = s->next;
		free(s->left);
		free(s);
	}
}

/* After a sleep: the application closed the socket meanwhile. */
static bool closed_meanwhile(const struct px_sock *s)
{
	return s->gone || s->released;
}

static struct px_core *core_of(struct ixev_conn *c)
{
	struct ixev *ev = ixev_conn_ev(c);
	unsigned int i;

	for (i = 0; i < px.ncores; i++)
		if (px.cores[i].ev == ev)
			return &px.cores[i];
	return NULL;
}

/* ---- readiness ---- */

/* The peer's FIN came (bytes before it may still wait to be read). */
static bool fin_seen(const struct px_sock *s)
{
	return s->peer_fin || (s->c && ixev_fin_seen(s->c));
}

/* Bytes a read would return now: held by ixev, or kept after the end. */
static size_t readable_bytes(const struct px_sock *s)
{
	if (s->c)
		return ixev_held_bytes(s->c);
	return s->nleft - s->left_off;
}

/* A read returns 0 now (no byte, and nothing more comes). */
static bool at_eof(const struct px_sock *s)
{
	return !readable_bytes(s) && (s->rd_shut || fin_seen(s) || (s->dead && !s->err));
}

/*
 * What poll() would say of the socket now (EPOLL* bits; POLL* are the
 * same), as Linux's tcp_poll() says it: EPOLLOUT also when a write would
 * not wait because it fails (closed for sending, reset).
 */
unsigned int px_revents(struct px_sock *s)
{
	unsigned int m = 0;

	if (px.dead && s->ixm)	/* as a reset: every call fails with ENETDOWN */
		return EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLRDNORM | EPOLLWRNORM;
	if (s->udp)
		return px_udp_revents(s);
	switch (s->state) {
	case PX_NEW:
		return EPOLLOUT | EPOLLHUP;	/* as Linux says of an unconnected socket */
	case PX_LISTEN:
		return s->nacq ? EPOLLIN | EPOLLRDNORM : 0;
	case PX_CONNECTING:
		return 0;
	case PX_OPEN:
		break;
	}
	if (s->err)
		m |= EPOLLERR;
	if (readable_bytes(s))
		m |= EPOLLIN | EPOLLRDNORM;
	if (fin_seen(s) || s->rd_shut || s->dead)
		m |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (s->dead || (s->wr_shut && fin_seen(s)))
		m |= EPOLLHUP;
	if (!s->c || s->wr_shut || ixev_send_space(s->c))
		m |= EPOLLOUT | EPOLLWRNORM;
	return m;
}

/* The socket's readiness may have changed: tell its epolls and the sleepers. */
void px_changed(struct px_sock *s)
{
	struct px_epi *epi;

	s->seq++;
	for (epi = s->epis; epi; epi = epi->snext)
		px_epi_ready(epi);
	px_wake_all();
}

/* ---- ixev's callbacks ---- */

static void px_connected(struct ixev_conn *c, int err)
{
	struct px_sock *s = ixev_data(c);

	if (!s)
		return;
	if (!err) {
		s->state = PX_OPEN;
		s->was_connected = true;
		s->local.sin_port = ixev_conn_lport(c);
	} else {
		s->err = -err;
		s->state = PX_OPEN;
	}
	px_changed(s);
}

static size_t px_readable(struct ixev_conn *c, const void *data, size_t len)
{
	struct px_sock *s = ixev_data(c);

	(void)data;
	if (!s)
		return 0;
	if (!len)
		s->peer_fin = true;	/* told once, when no byte was held */
	px_changed(s);
	return 0;	/* held by ixev until read() consumes it */
}

static void px_writable(struct ixev_conn *c)
{
	struct px_sock *s = ixev_data(c);

	if (s)
		px_changed(s);
}

/*
 * The connection is over.  Bytes the application has not read yet are
 * kept for it (after a reset too, as Linux reads them before the error),
 * and a reset after the peer's FIN is EPIPE, as Linux's tcp_reset() has
 * it in CLOSE_WAIT.
 */
static void px_closed(struct ixev_conn *c, int err)
{
	struct px_sock *s = ixev_data(c);
	size_t n;

	if (!s)
		return;
	if (ixev_fin_seen(c))
		s->peer_fin = true;
	n = s->released ? 0 : ixev_held_bytes(c);
	if (n) {
		s->left = malloc(n);
		if (s->left) {
			const void *p;
			size_t k, done = 0;
			unsigned int i = 0;

			while ((k = ixev_held_peek(c, i++, &p))) {
				memcpy(s->left + done, p, k);
				done += k;
			}
			s->nleft = done;
		}
	}
	s->c = NULL;
	s->dead = true;
	s->dead_err = err;
	if (err == -ECONNRESET && s->peer_fin)
		err = -EPIPE;
	if (err && err != -ECONNABORTED && !s->released && !s->err)
		s->err = -err;
	if (s->state == PX_CONNECTING)
		s->state = PX_OPEN;
	if (s->released) {
		sock_free(s);
		return;
	}
	px_changed(s);
}

static const struct ixev_conn_ops px_conn_ops = {
	.connected	= px_connected,
	.readable	= px_readable,
	.writable	= px_writable,
	.closed		= px_closed,
};

/*
 * A connection completed on a port: it goes to a listener of the port's
 * group (SO_REUSEPORT listeners share one, in turn) that has room in its
 * backlog, or is reset, as Linux drops past a backlog.
 */
static const struct ixev_conn_ops *px_accept_fn(struct ixev_conn *c, __be32 addr, __be16 port,
						void *arg)
{
	struct px_lgroup *g = arg;
	struct px_sock *l, *s;
	unsigned int i;

	l = g->members;
	for (i = 0; i < g->rr % g->n; i++)
		l = l->lgnext;
	for (i = 0; i < g->n; i++) {
		if (l->nacq < l->backlog)
			break;
		l = l->lgnext ? l->lgnext : g->members;
	}
	if (i == g->n)
		return NULL;
	g->rr++;
	s = sock_new();
	if (!s)
		return NULL;
	s->ixm = true;
	s->state = PX_OPEN;
	s->was_connected = true;
	s->core = core_of(c);
	s->c = c;
	s->local = l->local;
	if (!s->local.sin_addr.s_addr && px.naddrs)
		s->local.sin_addr = px.addrs[0];
	s->peer = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = port,
					.sin_addr.s_addr = addr };
	s->nodelay = l->nodelay;
	s->keepalive = l->keepalive;
	s->f.refs = 0;		/* no fd until accept() */
	ixev_set_data(c, s);
	*l->acq_tail = s;
	l->acq_tail = &s->next;
	l->nacq++;
	px_changed(l);
	return &px_conn_ops;
}

/* ---- releasing: the last fd of a socket closed ---- */

static void conn_release(struct px_sock *s, bool abort)
{
	s->released = true;
	px_epis_drop(s);
	if (!s->c) {
		sock_free(s);
		return;
	}
	/* Linux resets a connection closed with unread data (RFC 2525 2.17) */
	if (abort || (s->linger_on && !s->linger) || ixev_held_bytes(s->c))
		ixev_abort(s->c);
	else
		ixev_close(s->c);
	px_pump_core(s->core);
}

/* A listener closes: the port stops listening when its group is empty. */
static void lgroup_leave(struct px_sock *s)
{
	struct px_lgroup *g = s->lg;
	struct px_sock **pp;
	unsigned int i;

	for (pp = &g->members; *pp; pp = &(*pp)->lgnext)
		if (*pp == s) {
			*pp = s->lgnext;
			break;
		}
	s->lg = NULL;
	if (--g->n)
		return;
	for (i = 0; i < px.ncores; i++)
		ixev_unlisten(px.cores[i].ev, px_accept_fn, g);
	free(g);
}

static void sock_release(struct px_sock *s)
{
	if (s->udp) {
		if (s->ixm)
			px_udp_release(s);
		free(s->udps);
		s->udps = NULL;
		sock_free(s);
		return;
	}
	switch (s->state) {
	case PX_LISTEN:
		lgroup_leave(s);
		while (s->acq) {
			struct px_sock *a = s->acq;

			s->acq = a->next;
			conn_release(a, true);
		}
		px_pump();
		sock_free(s);
		return;
	case PX_CONNECTING:
	case PX_OPEN:
		conn_release(s, false);
		return;
	case PX_NEW:
		sock_free(s);
		return;
	}
}

/* ---- socket, bind, listen, accept, connect ---- */

int socket(int domain, int type, int protocol)
{
	struct px_sock *s;
	int fd;

	px_init_libc();
	fd = px_libc.socket(domain, type, protocol);
	if (fd < 0 || px.route == PX_ROUTE_OFF || domain != AF_INET)
		return fd;
	if (!((type & 0xf) == SOCK_STREAM && (!protocol || protocol == IPPROTO_TCP)) &&
	    !((type & 0xf) == SOCK_DGRAM && (!protocol || protocol == IPPROTO_UDP)))
		return fd;
	s = sock_new();
	if (!s)
		return fd;	/* a Linux socket, then */
	s->udp = (type & 0xf) == SOCK_DGRAM;
	s->nonblock = type & SOCK_NONBLOCK;
	px_lock();
	if (px_file_set(fd, &s->f)) {
		px_unlock();
		free(s);
		return fd;
	}
	px_unlock();
	return fd;
}

/* The candidate stays Linux's: forget it. */
static void drop_candidate(int fd, struct px_sock *s)
{
	px_lock();
	px_file_clear(fd);
	px_unlock();
	free(s);
}

static int route_error(int err)
{
	if (err == -EBUSY)
		return -EADDRINUSE;	/* another process owns the port */
	if (err == -EACCES || err == -EPERM)
		return -EACCES;
	return -EADDRNOTAVAIL;
}

/*
 * An ixmod socket is bound to the port and the new one may not share it:
 * Linux lets sockets that all set SO_REUSEPORT bind one port (ixmod
 * listens on a port once: a second listen() on it fails EADDRINUSE).
 */
static bool port_taken(__be16 port, const struct px_sock *s)
{
	struct px_sock *o;

	for (o = px.bound; o; o = o->bnext)
		if (o->local.sin_port == port && o->udp == s->udp &&
		    !(s->reuseport && o->reuseport && !s->udp))
			return true;
	return false;
}

static void unbind(struct px_sock *s)
{
	struct px_sock **pp;

	for (pp = &px.bound; *pp; pp = &(*pp)->bnext)
		if (*pp == s) {
			*pp = s->bnext;
			return;
		}
}

/*
 * Route @s to ixmod, bound to @sin (port 0: an ephemeral one); a UDP
 * socket is bound on every core at once.  Called with the lock held.
 */
static int bind_ixm(struct px_sock *s, const struct sockaddr_in *sin)
{
	int ret = px_ensure_contexts();

	if (ret)
		return route_error(ret);
	if (sin->sin_port && port_taken(sin->sin_port, s))
		return -EADDRINUSE;
	s->local = *sin;
	s->local.sin_family = AF_INET;
	while (!s->local.sin_port) {	/* an ephemeral port, from Linux's range */
		s->local.sin_port = htons(32768 + (unsigned int)random() % 28232);
		if (port_taken(s->local.sin_port, s))
			s->local.sin_port = 0;
	}
	if (s->udp) {
		s->udps = calloc(px.ncores, sizeof(*s->udps));
		if (!s->udps)
			return -ENOMEM;
		ret = px_udp_bind(s);
		if (ret) {
			free(s->udps);
			s->udps = NULL;
			s->local.sin_port = 0;
			return ret;
		}
	}
	s->ixm = true;
	s->bnext = px.bound;
	px.bound = s;
	return 0;
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	struct px_sock *s;
	int ret;

	px_init_libc();
	s = px_sock_get(fd);
	if (!s)
		return px_libc.bind(fd, addr, len);
	if (routed(s))
		return px_ret(-EINVAL);		/* bound already */
	if (!addr || len < sizeof(*sin))
		return px_ret(-EINVAL);
	if (sin->sin_family != AF_INET)
		return px_ret(-EAFNOSUPPORT);
	if (!px_is_port_addr(sin->sin_addr) && !px.inited) {
		px_lock();
		px_read_ports();	/* a port may have come up since the start */
		px_unlock();
	}
	if (!px_is_port_addr(sin->sin_addr) &&
	    !(px.route == PX_ROUTE_ALL && sin->sin_addr.s_addr == htonl(INADDR_ANY))) {
		drop_candidate(fd, s);
		return px_libc.bind(fd, addr, len);
	}
	px_lock();
	ret = bind_ixm(s, sin);
	px_unlock();
	if (!ret)
		px_debug("fd %d bound to %s:%u: ixmod", fd, inet_ntoa(sin->sin_addr),
			 ntohs(s->local.sin_port));
	return px_ret(ret);
}

int listen(int fd, int backlog)
{
	struct px_sock *s, *o;
	struct px_lgroup *g;
	unsigned int i, max;
	int ret = 0;

	px_init_libc();
	s = px_sock_get(fd);
	if (!s)
		return px_libc.listen(fd, backlog);
	if (!routed(s)) {
		drop_candidate(fd, s);
		return px_libc.listen(fd, backlog);
	}
	if (s->udp)
		return px_ret(-EOPNOTSUPP);
	px_lock();
	if (s->state == PX_LISTEN) {	/* Linux lets a listener change its backlog */
		s->backlog = backlog > 0 ? (unsigned int)backlog : 1;
		px_unlock();
		return 0;
	}
	if (s->state != PX_NEW) {
		px_unlock();
		return px_ret(-EINVAL);
	}
	max = px.cores[0].ev->ixu.info.backlog_max;
	s->backlog = backlog <= 0 ? 1 : (unsigned int)backlog;
	if (max && s->backlog > max)
		s->backlog = max;
	/* SO_REUSEPORT: a listener of the port is there already, share its group */
	for (o = px.bound; o; o = o->bnext)
		if (o != s && o->lg && o->local.sin_port == s->local.sin_port && !o->udp)
			break;
	if (o) {
		if (!s->reuseport || !o->reuseport) {
			px_unlock();
			return px_ret(-EADDRINUSE);
		}
		g = o->lg;
		goto join;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		px_unlock();
		return px_ret(-ENOMEM);
	}
	for (i = 0; i < px.ncores && !ret; i++) {
		ret = ixev_listen(px.cores[i].ev, s->local.sin_port, s->backlog, px_accept_fn, g);
		if (ret == -EAGAIN) {
			px_pump_core(&px.cores[i]);
			ret = ixev_listen(px.cores[i].ev, s->local.sin_port, s->backlog,
					  px_accept_fn, g);
		}
	}
	if (ret) {
		while (i--)
			ixev_unlisten(px.cores[i].ev, px_accept_fn, g);
		px_pump();
		free(g);
		px_unlock();
		return px_ret(ret);
	}
join:
	s->state = PX_LISTEN;
	s->lg = g;
	s->lgnext = g->members;
	g->members = s;
	g->n++;
	px_unlock();
	px_debug("fd %d listens on port %u: %d", fd, ntohs(s->local.sin_port), ret);
	return px_ret(ret);
}

static void fill_addr(const struct sockaddr_in *sin, struct sockaddr *addr, socklen_t *len)
{
	if (!addr || !len)
		return;
	memcpy(addr, sin, *len < sizeof(*sin) ? *len : sizeof(*sin));
	*len = sizeof(*sin);
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	struct px_sock *l, *s;
	long long end;
	int nfd, ret;

	px_init_libc();
	l = px_sock_get(fd);
	if (!l || !routed(l))
		return px_libc.accept4(fd, addr, len, flags);
	if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC))
		return px_ret(-EINVAL);
	if (l->udp)
		return px_ret(-EOPNOTSUPP);
	px_lock();
	end = deadline(l->rcvtimeo_ms);
	for (;;) {
		if (l->state != PX_LISTEN) {
			px_unlock();
			return px_ret(-EINVAL);
		}
		px_pump();
		if (l->acq)
			break;
		if (l->nonblock) {
			px_unlock();
			return px_ret(-EAGAIN);
		}
		ret = sock_wait(l, end);
		if (ret) {
			px_unlock();
			return px_ret(ret);
		}
	}
	nfd = px_placeholder(flags);
	if (nfd < 0) {
		px_unlock();
		return -1;		/* errno: EMFILE, ENFILE */
	}
	s = l->acq;
	if (px_file_set(nfd, &s->f)) {
		px_unlock();
		px_libc.close(nfd);
		return px_ret(-ENOMEM);
	}
	l->acq = s->next;
	if (!l->acq)
		l->acq_tail = &l->acq;
	l->nacq--;
	s->next = NULL;
	s->f.refs = 1;
	s->nonblock = flags & SOCK_NONBLOCK;
	fill_addr(&s->peer, addr, len);
	px_unlock();
	return nfd;
}

int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	return accept4(fd, addr, len, 0);
}

static int wait_connected(struct px_sock *s)
{
	long long end = deadline(s->sndtimeo_ms);
	int ret;

	while (s->state == PX_CONNECTING) {
		ret = sock_wait(s, end);
		if (ret == -EAGAIN) {
			s->connect_pending = true;	/* it goes on, as in Linux */
			return -EINPROGRESS;
		}
		if (ret)
			return ret;
		px_pump();
	}
	if (s->err) {
		ret = -s->err;
		s->err = 0;
		return ret;
	}
	return 0;
}

/* The port address a connection to @dst leaves from */
static struct in_addr source_for(struct in_addr dst)
{
	unsigned int i;

	for (i = 0; i < px.naddrs; i++)
		if ((px.addrs[i].s_addr & px.masks[i].s_addr) ==
		    (dst.s_addr & px.masks[i].s_addr))
			return px.addrs[i];
	return px.naddrs ? px.addrs[0] : (struct in_addr){ 0 };
}

/* UDP: the default peer, and the only source taken (AF_UNSPEC: none) */
static int udp_connect(struct px_sock *s, const struct sockaddr_in *sin)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	int ret = 0;

	px_lock();
	if (sin->sin_family == AF_UNSPEC) {
		s->was_connected = false;
	} else if (sin->sin_family != AF_INET) {
		ret = -EAFNOSUPPORT;
	} else {
		if (!s->ixm) {
			any.sin_addr = source_for(sin->sin_addr);
			ret = bind_ixm(s, &any);
		}
		if (!ret) {
			s->peer = *sin;
			s->was_connected = true;
		}
	}
	px_unlock();
	return ret;
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	struct px_sock *s;
	struct px_core *core;
	int ret;

	px_init_libc();
	s = px_sock_get(fd);
	if (!s)
		return px_libc.connect(fd, addr, len);
	if (!addr || len < sizeof(*sin))
		return px_ret(-EINVAL);
	if (!routed(s)) {
		if (sin->sin_family != AF_INET ||
		    !(px.route == PX_ROUTE_ALL || px_in_port_subnet(sin->sin_addr))) {
			drop_candidate(fd, s);
			return px_libc.connect(fd, addr, len);
		}
	}
	if (s->udp)
		return px_ret(udp_connect(s, sin));
	if (sin->sin_family != AF_INET)
		return px_ret(-EAFNOSUPPORT);
	px_lock();
	switch (s->state) {
	case PX_LISTEN:
		px_unlock();
		return px_ret(-EISCONN);
	case PX_CONNECTING:
		px_unlock();
		return px_ret(-EALREADY);
	case PX_OPEN:
		/* Linux: the outcome of a nonblocking connect, once, then EISCONN */
		if (s->err) {
			ret = -s->err;
			s->err = 0;
		} else if (s->connect_pending) {
			ret = s->was_connected ? 0 : -ECONNABORTED;
		} else {
			ret = s->was_connected ? -EISCONN : -ECONNABORTED;
		}
		s->connect_pending = false;
		px_unlock();
		return px_ret(ret);
	case PX_NEW:
		break;
	}
	ret = px_ensure_contexts();
	if (ret) {
		px_unlock();
		return px_ret(ret == -EBUSY ? -EADDRINUSE : -ENETUNREACH);
	}
	core = &px.cores[px.next_core++ % px.ncores];
	ret = ixev_connect(core->ev, sin->sin_addr.s_addr, sin->sin_port, &px_conn_ops, s,
			   &s->c);
	if (ret == -EAGAIN) {
		px_pump_core(core);
		ret = ixev_connect(core->ev, sin->sin_addr.s_addr, sin->sin_port, &px_conn_ops,
				   s, &s->c);
	}
	if (ret) {
		px_unlock();
		return px_ret(ret == -EAGAIN ? -ENOBUFS : ret);
	}
	s->ixm = true;
	s->core = core;
	s->state = PX_CONNECTING;
	s->peer = *sin;
	s->local.sin_family = AF_INET;
	s->local.sin_addr = source_for(sin->sin_addr);
	px_pump_core(core);
	px_debug("fd %d connects to %s:%u on core %u", fd, inet_ntoa(sin->sin_addr),
		 ntohs(sin->sin_port), core->cpu);
	if (s->nonblock) {
		s->connect_pending = true;
		px_unlock();
		return px_ret(-EINPROGRESS);
	}
	ret = wait_connected(s);
	px_unlock();
	return px_ret(ret);
}

/* ---- reading ---- */

/* Copy readable bytes from byte @skip on into @iov; returns the count */
static size_t copy_in(struct px_sock *s, const struct iovec *iov, int iovcnt, size_t skip,
		      bool peek)
{
	size_t done = 0, seg_off = 0, seglen;
	unsigned int seg = 0;
	const void *p;
	int i;

	if (s->c) {
		seglen = ixev_held_peek(s->c, 0, &p);
	} else {
		p = s->left + s->left_off;
		seglen = s->nleft - s->left_off;
	}
	/* MSG_PEEK with MSG_WAITALL: the bytes peeked already stay first */
	while (skip && seglen) {
		size_t k = skip < seglen - seg_off ? skip : seglen - seg_off;

		seg_off += k;
		skip -= k;
		if (seg_off == seglen) {
			seglen = s->c ? ixev_held_peek(s->c, ++seg, &p) : 0;
			seg_off = 0;
		}
	}
	for (i = 0; i < iovcnt && seglen; i++) {
		size_t io = 0;

		while (io < iov[i].iov_len && seglen) {
			size_t k = iov[i].iov_len - io;

			if (k > seglen - seg_off)
				k = seglen - seg_off;
			memcpy((char *)iov[i].iov_base + io, (const char *)p + seg_off, k);
			io += k;
			seg_off += k;
			done += k;
			if (seg_off == seglen) {
				seglen = s->c ? ixev_held_peek(s->c, ++seg, &p) : 0;
				seg_off = 0;
			}
		}
	}
	if (peek)
		return done;
	if (s->c)
		ixev_held_consume(s->c, done);
	else
		s->left_off += done;
	return done;
}

/* The rest of @iov after @skip bytes, in @rest; returns its count. */
static int iov_rest(const struct iovec *iov, int iovcnt, size_t skip, struct iovec *rest)
{
	int i, n = 0;

	for (i = 0; i < iovcnt; i++) {
		if (skip >= iov[i].iov_len) {
			skip -= iov[i].iov_len;
			continue;
		}
		rest[n].iov_base = (char *)iov[i].iov_base + skip;
		rest[n++].iov_len = iov[i].iov_len - skip;
		skip = 0;
	}
	return n;
}

/*
 * Sleep for a blocking call with a timeout (SO_RCVTIMEO, SO_SNDTIMEO:
 * @end, 0 for none): -EAGAIN once it passed, as Linux gives it.
 */
static int sleep_until(long long end)
{
	int left = -1, ret;

	if (px.dead)
		return -ENETDOWN;
	if (end) {
		left = (int)(end - px_now_ms());
		if (left <= 0)
			return -EAGAIN;
	}
	ret = px_sleep(left, NULL, 0);
	if (!ret && px.dead)
		ret = -ENETDOWN;
	if (!ret && end && px_now_ms() >= end)
		ret = -EAGAIN;
	return ret;
}

/*
 * A blocking call on @s sleeps: 0, or why it must stop: -EAGAIN (its
 * timeout), -EBADF (the application closed @s meanwhile), -EINTR,
 * -ENETDOWN.
 */
static int sock_wait(struct px_sock *s, long long end)
{
	int ret = sleep_until(end);

	if (!ret && closed_meanwhile(s))
		ret = -EBADF;
	return ret;
}

/*
 * tcp_recvmsg()'s order: bytes first; with none, the peer's FIN (0)
 * before a pending error, then the error once, then 0 for good.
 */
static ssize_t px_recv(struct px_sock *s, const struct iovec *iov, int iovcnt, int flags)
{
	bool nonblock = s->nonblock || (flags & MSG_DONTWAIT);
	size_t want = 0, got = 0;
	long long end = 0;
	int i, ret;

	for (i = 0; i < iovcnt; i++)
		want += iov[i].iov_len;
	if (flags & ~(MSG_DONTWAIT | MSG_PEEK | MSG_WAITALL | MSG_NOSIGNAL | MSG_CMSG_CLOEXEC))
		return -EOPNOTSUPP;
	px_lock();
	if (s->rcvtimeo_ms)
		end = px_now_ms() + s->rcvtimeo_ms;
	for (;;) {
		if (s->state == PX_NEW || s->state == PX_LISTEN) {
			px_unlock();
			return -ENOTCONN;
		}
		px_pump_core(s->core);
		if (s->state == PX_OPEN) {
			if (!s->rd_shut && want > got) {
				struct iovec rest[IOV_MAX];
				int n = iov_rest(iov, iovcnt, got, rest);

				got += copy_in(s, rest, n, (flags & MSG_PEEK) ? got : 0,
					       flags & MSG_PEEK);
			}
			if (got && (got == want || !(flags & MSG_WAITALL) || (flags & MSG_PEEK)))
				break;
			if (!want || at_eof(s) || (got && s->err))
				break;
			if (s->err) {
				ret = -s->err;
				s->err = 0;
				px_unlock();
				return ret;
			}
			if (s->dead)
				break;
		}
		if (nonblock) {
			if (got)
				break;
			px_unlock();
			return -EAGAIN;
		}
		ret = sock_wait(s, end);
		if (ret) {
			if (got && ret != -EBADF)
				break;
			px_unlock();
			return ret;
		}
	}
	px_unlock();
	return got;
}

/* Every read call of an ixmod socket: TCP or UDP; *@from: a datagram's source */
static ssize_t do_recv(struct px_sock *s, const struct iovec *iov, int iovcnt, int flags,
		       struct sockaddr_in *from, int *mflags)
{
	if (iovcnt < 0 || iovcnt > IOV_MAX)
		return -EINVAL;
	if (px.dead)
		return -ENETDOWN;
	if (s->udp)
		return px_udp_recv(s, iov, iovcnt, flags, from, mflags);
	if (mflags)
		*mflags = 0;
	return px_recv(s, iov, iovcnt, flags);
}

ssize_t read(int fd, void *buf, size_t len)
{
	struct px_sock *s = px_sock_get(fd);
	struct iovec iov = { buf, len };

	if (!s || !routed(s))
		return px_libc.read(fd, buf, len);
	return px_ret(do_recv(s, &iov, 1, 0, NULL, NULL));
}

ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	struct px_sock *s = px_sock_get(fd);

	if (!s || !routed(s))
		return px_libc.readv(fd, iov, iovcnt);
	return px_ret(do_recv(s, iov, iovcnt, 0, NULL, NULL));
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	struct px_sock *s = px_sock_get(fd);
	struct iovec iov = { buf, len };

	if (!s || !routed(s))
		return px_libc.recvfrom(fd, buf, len, flags, NULL, NULL);
	return px_ret(do_recv(s, &iov, 1, flags, NULL, NULL));
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr,
		 socklen_t *alen)
{
	struct px_sock *s = px_sock_get(fd);
	struct iovec iov = { buf, len };
	struct sockaddr_in from;
	ssize_t ret;

	if (!s || !routed(s))
		return px_libc.recvfrom(fd, buf, len, flags, addr, alen);
	ret = do_recv(s, &iov, 1, flags, &from, NULL);
	if (ret >= 0 && addr && alen) {
		if (s->udp)
			fill_addr(&from, addr, alen);
		else
			*alen = 0;	/* TCP: Linux leaves the address out */
	}
	return px_ret(ret);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct px_sock *s = px_sock_get(fd);
	struct sockaddr_in from;
	int mflags = 0;
	ssize_t ret;

	if (!s || !routed(s))
		return px_libc.recvmsg(fd, msg, flags);
	if (msg->msg_iovlen > IOV_MAX)
		return px_ret(-EMSGSIZE);
	ret = do_recv(s, msg->msg_iov, (int)msg->msg_iovlen, flags, &from, &mflags);
	if (ret >= 0) {
		if (s->udp && msg->msg_name)
			fill_addr(&from, msg->msg_name, &msg->msg_namelen);
		else
			msg->msg_namelen = 0;
		msg->msg_controllen = 0;
		msg->msg_flags = mflags;
	}
	return px_ret(ret);
}

/* ---- writing ---- */

static void sigpipe(int flags)
{
	if (!(flags & MSG_NOSIGNAL))
		pthread_kill(pthread_self(), SIGPIPE);
}

static ssize_t px_send(struct px_sock *s, const struct iovec *iov, int iovcnt, int flags)
{
	bool nonblock = s->nonblock || (flags & MSG_DONTWAIT);
	size_t want = 0, done = 0;
	long long end;
	int i, ret;

	for (i = 0; i < iovcnt; i++)
		want += iov[i].iov_len;
	if (flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_MORE | MSG_EOR | MSG_WAITALL))
		return -EOPNOTSUPP;
	px_lock();
	end = deadline(s->sndtimeo_ms);
	for (;;) {
		if (s->state == PX_NEW || s->state == PX_LISTEN) {
			px_unlock();	/* tcp_sendmsg(): not connecting, EPIPE */
			sigpipe(flags);
			return -EPIPE;
		}
		if (s->state == PX_OPEN) {
			if (s->err) {
				ret = -s->err;
				s->err = 0;
				px_unlock();
				return ret;
			}
			if (!s->c || s->wr_shut || s->dead) {
				px_unlock();
				sigpipe(flags);
				return -EPIPE;
			}
			if (!want)
				break;
			/* the part of @iov not sent yet */
			{
				size_t skip = done;

				for (i = 0; i < iovcnt && done < want; i++) {
					ssize_t n;

					if (skip >= iov[i].iov_len) {
						skip -= iov[i].iov_len;
						continue;
					}
					n = ixev_send(s->c, (const char *)iov[i].iov_base + skip,
						      iov[i].iov_len - skip);
					if (n <= 0)
						break;
					done += n;
					if ((size_t)n < iov[i].iov_len - skip)
						break;
					skip = 0;
				}
			}
			if (done)
				px_pump_core(s->core);
			if (done == want || (nonblock && done))
				break;
		}
		if (nonblock) {
			px_unlock();
			return -EAGAIN;
		}
		ret = sock_wait(s, end);
		if (ret) {
			if (done && ret != -EBADF)
				break;
			px_unlock();
			return ret;
		}
		px_pump_core(s->core);
	}
	px_unlock();
	return done;
}

/* Every write call of an ixmod socket: TCP or UDP (@to: sendto's address) */
static ssize_t do_send(struct px_sock *s, const struct iovec *iov, int iovcnt, int flags,
		       const struct sockaddr *to, socklen_t tolen)
{
	if (iovcnt < 0 || iovcnt > IOV_MAX)
		return -EINVAL;
	if (px.dead)
		return -ENETDOWN;
	if (s->udp) {
		if (to && tolen < sizeof(struct sockaddr_in))
			return -EINVAL;
		if (to && to->sa_family != AF_INET)
			return -EAFNOSUPPORT;
		return px_udp_send(s, iov, iovcnt, flags, (const struct sockaddr_in *)to);
	}
	if (to && s->state == PX_OPEN)
		return -EISCONN;
	return px_send(s, iov, iovcnt, flags);
}

/*
 * A UDP candidate sending before any bind: routed as connect() would
 * route its destination, bound to an ephemeral port.  True when it is
 * ixmod's now.
 */
static bool udp_autobind(int fd, struct px_sock *s, const struct sockaddr *to, socklen_t tolen)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)to;
	struct sockaddr_in any = { .sin_family = AF_INET };
	int ret;

	if (!s->udp || !to || tolen < sizeof(*sin) || sin->sin_family != AF_INET ||
	    !(px.route == PX_ROUTE_ALL || px_in_port_subnet(sin->sin_addr))) {
		drop_candidate(fd, s);
		return false;
	}
	px_lock();
	any.sin_addr = source_for(sin->sin_addr);
	ret = bind_ixm(s, &any);
	px_unlock();
	if (ret) {
		drop_candidate(fd, s);
		return false;
	}
	return true;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	struct px_sock *s = px_sock_get(fd);
	struct iovec iov = { (void *)buf, len };

	if (!s || !routed(s))
		return px_libc.write(fd, buf, len);
	return px_ret(do_send(s, &iov, 1, 0, NULL, 0));
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	struct px_sock *s = px_sock_get(fd);

	if (!s || !routed(s))
		return px_libc.writev(fd, iov, iovcnt);
	return px_ret(do_send(s, iov, iovcnt, 0, NULL, 0));
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	struct px_sock *s = px_sock_get(fd);
	struct iovec iov = { (void *)buf, len };

	if (!s || !routed(s))
		return px_libc.sendto(fd, buf, len, flags, NULL, 0);
	return px_ret(do_send(s, &iov, 1, flags, NULL, 0));
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *addr,
	       socklen_t alen)
{
	struct px_sock *s = px_sock_get(fd);
	struct iovec iov = { (void *)buf, len };

	if (s && !routed(s) && !udp_autobind(fd, s, addr, alen))
		s = NULL;
	if (!s)
		return px_libc.sendto(fd, buf, len, flags, addr, alen);
	return px_ret(do_send(s, &iov, 1, flags, addr, alen));
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct px_sock *s = px_sock_get(fd);

	if (s && !routed(s) && !udp_autobind(fd, s, msg->msg_name, msg->msg_namelen))
		s = NULL;
	if (!s)
		return px_libc.sendmsg(fd, msg, flags);
	if (msg->msg_iovlen > IOV_MAX)
		return px_ret(-EMSGSIZE);
	return px_ret(do_send(s, msg->msg_iov, (int)msg->msg_iovlen, flags, msg->msg_name,
			      msg->msg_namelen));
}

/*
 * sendfile(2) to an ixmod socket: the file's bytes read and sent, 64 KiB
 * at a time (a copy; Linux's is a page reference).  Bytes read and not
 * taken go back: *@offset or the file position counts what was sent.
 */
static ssize_t px_sendfile(struct px_sock *s, int in, off_t *offset, size_t count)
{
	static __thread char *buf;
	size_t done = 0;
	ssize_t n, m;

	if (s->udp)
		return -EINVAL;
	if (!buf) {
		buf = malloc(64 << 10);
		if (!buf)
			return -ENOMEM;
	}
	while (done < count) {
		size_t want = count - done < (64 << 10) ? count - done : 64 << 10;
		struct iovec iov;

		n = offset ? pread(in, buf, want, *offset) : px_libc.read(in, buf, want);
		if (n < 0)
			return done ? (ssize_t)done : -errno;
		if (!n)
			break;
		iov = (struct iovec){ buf, (size_t)n };
		m = px_send(s, &iov, 1, 0);
		if (m < 0) {
			if (!offset)
				lseek(in, -n, SEEK_CUR);
			return done ? (ssize_t)done : m;
		}
		if (offset)
			*offset += m;
		else if (m < n)
			lseek(in, m - n, SEEK_CUR);
		done += m;
		if (m < n)
			break;
	}
	return done;
}

ssize_t sendfile(int out, int in, off_t *offset, size_t count)
{
	struct px_sock *s = px_sock_get(out);

	px_init_libc();
	if (!s || !routed(s))
		return px_libc.sendfile(out, in, offset, count);
	return px_ret(px_sendfile(s, in, offset, count));
}

/* the same function on a 64-bit libc (off_t is off64_t there) */
ssize_t sendfile64(int out, int in, off64_t *offset, size_t count)
	__attribute__((alias("sendfile")));

/* ---- shutdown, close, dup ---- */

int shutdown(int fd, int how)
{
	struct px_sock *s = px_sock_get(fd);
	int ret = 0;

	if (!s || !routed(s))
		return px_libc.shutdown(fd, how);
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return px_ret(-EINVAL);
	px_lock();
	px_pump_core(s->core);
	if (s->state != PX_OPEN || (s->dead && (s->wr_shut || s->dead_err || fin_seen(s)))) {
		px_unlock();
		return px_ret(-ENOTCONN);
	}
	if (how != SHUT_WR)
		s->rd_shut = true;
	if (how != SHUT_RD && !s->wr_shut) {
		s->wr_shut = true;
		if (s->c)
			ret = ixev_shutdown(s->c);
		px_pump_core(s->core);
	}
	px_changed(s);
	px_unlock();
	return px_ret(ret);
}

/* Drop one fd's reference; called with the lock held. */
void px_sock_put(struct px_sock *s)
{
	if (--s->f.refs)
		return;
	sock_release(s);
}

int close(int fd)
{
	struct px_file *f = px_file_get(fd);

	if (!f)
		return px_libc.close(fd);
	px_lock();
	if (px_file_get(fd) == f) {
		px_file_clear(fd);
		if (f->kind == PX_SOCK)
			px_sock_put((struct px_sock *)f);
		else
			px_ep_put((struct px_ep *)f);
	}
	px_unlock();
	return px_libc.close(fd);
}

/* @nfd now names what @fd names (a dup); called with the lock held */
static void dup_file(int fd, int nfd)
{
	struct px_file *f = px_file_get(fd), *old = px_file_get(nfd);

	if (old && old != f) {
		px_file_clear(nfd);
		if (old->kind == PX_SOCK)
			px_sock_put((struct px_sock *)old);
		else
			px_ep_put((struct px_ep *)old);
	}
	if (f && old != f && !px_file_set(nfd, f))
		f->refs++;
}

int dup(int fd)
{
	int nfd;

	px_init_libc();
	if (!px_file_get(fd))
		return px_libc.dup(fd);
	px_lock();
	nfd = px_libc.dup(fd);
	if (nfd >= 0)
		dup_file(fd, nfd);
	px_unlock();
	return nfd;
}

int dup3(int fd, int nfd, int flags)
{
	int ret;

	px_init_libc();
	if (!px_file_get(fd) && !px_file_get(nfd))
		return px_libc.dup3(fd, nfd, flags);
	px_lock();
	ret = px_libc.dup3(fd, nfd, flags);
	if (ret >= 0)
		dup_file(fd, nfd);
	px_unlock();
	return ret;
}

int dup2(int fd, int nfd)
{
	int ret;

	px_init_libc();
	if (!px_file_get(fd) && !px_file_get(nfd))
		return px_libc.dup2(fd, nfd);
	px_lock();
	ret = px_libc.dup2(fd, nfd);
	if (ret >= 0 && fd != nfd)
		dup_file(fd, nfd);
	px_unlock();
	return ret;
}

/* ---- fcntl, ioctl ---- */

int fcntl(int fd, int cmd, ...)
{
	struct px_sock *s;
	va_list ap;
	long arg;
	int ret;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	px_init_libc();
	s = px_sock_get(fd);
	if (!s && !(px_file_get(fd) && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)))
		return px_libc.fcntl(fd, cmd, arg);
	switch (cmd) {
	case F_GETFL:
		ret = px_libc.fcntl(fd, F_GETFL);
		if (ret >= 0)
			ret = (ret & ~O_NONBLOCK) | (s->nonblock ? O_NONBLOCK : 0);
		return ret;
	case F_SETFL:
		px_lock();
		s->nonblock = arg & O_NONBLOCK;
		px_unlock();
		/* the candidate's Linux socket follows; a placeholder's is shared */
		if (!routed(s))
			return px_libc.fcntl(fd, F_SETFL, arg);
		return 0;
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		px_lock();
		ret = px_libc.fcntl(fd, cmd, arg);
		if (ret >= 0)
			dup_file(fd, ret);
		px_unlock();
		return ret;
	default:
		return px_libc.fcntl(fd, cmd, arg);
	}
}

/* glibc 2.28 and later name it fcntl64 for programs built with 64-bit offsets */
int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));

int ioctl(int fd, unsigned long req, ...)
{
	struct px_sock *s;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	px_init_libc();
	s = px_sock_get(fd);
	if (!s || (!routed(s) && req != FIONBIO))
		return px_libc.ioctl(fd, req, arg);
	switch (req) {
	case FIONBIO:
		if (!arg)
			return px_ret(-EFAULT);
		px_lock();
		s->nonblock = *(int *)arg != 0;
		px_unlock();
		return routed(s) ? 0 : px_libc.ioctl(fd, req, arg);
	case FIONREAD:
		if (!arg)
			return px_ret(-EFAULT);
		px_lock();
		if (s->state == PX_LISTEN) {
			px_unlock();
			return px_ret(-EINVAL);
		}
		if (s->core)
			px_pump_core(s->core);
		*(int *)arg = s->udp ? (int)px_udp_next_len(s) : (int)readable_bytes(s);
		px_unlock();
		return 0;
	default:
		return px_libc.ioctl(fd, req, arg);
	}
}

/* ---- options and names ---- */

static int put_int(void *val, socklen_t *len, int v)
{
	if (!val || !len)
		return -EFAULT;
	if (*len < sizeof(int)) {
		if (!*len)
			return -EINVAL;
		memcpy(val, &v, *len);	/* Linux gives what fits */
		return 0;
	}
	memcpy(val, &v, sizeof(int));
	*len = sizeof(int);
	return 0;
}

static unsigned int rcvbuf(void)
{
	char buf[32];
	static unsigned int v;
	int fd;
	ssize_t n;

	if (v)
		return v;
	v = 65536;
	fd = open("/sys/module/ixmod/parameters/tcp_rcv_buf", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = px_libc.read(fd, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = 0;
			if (atoi(buf) > 0)
				v = atoi(buf);
		}
		px_libc.close(fd);
	}
	return v;
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct px_sock *s;
	int v = 0;

	px_init_libc();
	s = px_sock_get(fd);
	if (!s)
		return px_libc.setsockopt(fd, level, name, val, len);
	if (!routed(s)) {
		int ret = px_libc.setsockopt(fd, level, name, val, len);

		if (ret)
			return ret;
	}
	if (val && len >= sizeof(int))
		memcpy(&v, val, sizeof(int));
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_REUSEADDR:
			s->reuseaddr = v;
			return 0;
		case SO_REUSEPORT:
			s->reuseport = v;
			return 0;
		case SO_KEEPALIVE:
			s->keepalive = v;
			return 0;
		case SO_LINGER: {
			struct linger l;

			if (!val || len < sizeof(l))
				return px_ret(-EINVAL);
			memcpy(&l, val, sizeof(l));
			s->linger_on = l.l_onoff;
			s->linger = l.l_linger;
			return 0;
		}
		case SO_RCVTIMEO:
		case SO_SNDTIMEO: {
			struct timeval tv;
			long long ms;

			if (!val || len < sizeof(tv))
				return px_ret(-EINVAL);
			memcpy(&tv, val, sizeof(tv));
			if (tv.tv_usec < 0 || tv.tv_usec >= 1000000)
				return px_ret(-EDOM);
			ms = tv.tv_sec * 1000LL + (tv.tv_usec + 999) / 1000;
			if (tv.tv_sec < 0)
				ms = 0;		/* Linux: negative is no timeout */
			if (ms > INT_MAX)
				ms = 0;
			if (name == SO_RCVTIMEO)
				s->rcvtimeo_ms = (int)ms;
			else
				s->sndtimeo_ms = (int)ms;
			return 0;
		}
		case SO_SNDBUF:
		case SO_RCVBUF:
		case SO_RCVLOWAT:
			/* taken; ixmod's buffers are the module's and ixev's */
			return 0;
		}
	} else if (level == IPPROTO_TCP) {
		switch (name) {
		case TCP_NODELAY:
			s->nodelay = v;
			return 0;
		case TCP_KEEPIDLE:
		case TCP_KEEPINTVL:
		case TCP_KEEPCNT:
		case TCP_QUICKACK:
		case TCP_CORK:
		case TCP_DEFER_ACCEPT:
		case TCP_FASTOPEN:
			return 0;
		}
	}
	if (!routed(s))
		return 0;	/* Linux took it above */
	return px_libc.setsockopt(fd, level, name, val, len);
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct px_sock *s;
	int ret;

	px_init_libc();
	s = px_sock_get(fd);
	if (!s || !routed(s))
		return px_libc.getsockopt(fd, level, name, val, len);
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_ERROR:
			px_lock();
			if (s->core)
				px_pump_core(s->core);
			ret = s->err;
			s->err = 0;
			px_unlock();
			return px_ret(put_int(val, len, ret));
		case SO_TYPE:
			return px_ret(put_int(val, len, s->udp ? SOCK_DGRAM : SOCK_STREAM));
		case SO_DOMAIN:
			return px_ret(put_int(val, len, AF_INET));
		case SO_PROTOCOL:
			return px_ret(put_int(val, len, s->udp ? IPPROTO_UDP : IPPROTO_TCP));
		case SO_ACCEPTCONN:
			return px_ret(put_int(val, len, s->state == PX_LISTEN));
		case SO_REUSEADDR:
			return px_ret(put_int(val, len, s->reuseaddr));
		case SO_REUSEPORT:
			return px_ret(put_int(val, len, s->reuseport));
		case SO_KEEPALIVE:
			return px_ret(put_int(val, len, s->keepalive));
		case SO_SNDBUF:
			return px_ret(put_int(val, len, px.sndbuf ? px.sndbuf : 256 << 10));
		case SO_RCVBUF:
			return px_ret(put_int(val, len, rcvbuf()));
		case SO_RCVTIMEO:
		case SO_SNDTIMEO: {
			int ms = name == SO_RCVTIMEO ? s->rcvtimeo_ms : s->sndtimeo_ms;
			struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

			if (!val || !len)
				return px_ret(-EFAULT);
			if (*len < sizeof(tv))
				return px_ret(-EINVAL);
			memcpy(val, &tv, sizeof(tv));
			*len = sizeof(tv);
			return 0;
		}
		case SO_LINGER: {
			struct linger l = { s->linger_on, s->linger };

			if (!val || !len)
				return px_ret(-EFAULT);
			if (*len > sizeof(l))
				*len = sizeof(l);
			memcpy(val, &l, *len);
			return 0;
		}
		}
	} else if (level == IPPROTO_TCP && name == TCP_NODELAY) {
		return px_ret(put_int(val, len, s->nodelay));
	}
	return px_libc.getsockopt(fd, level, name, val, len);
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct px_sock *s;
	struct sockaddr_in sin;

	px_init_libc();
	s = px_sock_get(fd);
	if (!s || !routed(s))
		return px_libc.getsockname(fd, addr, len);
	if (!addr || !len)
		return px_ret(-EFAULT);
	px_lock();
	sin = s->local;
	px_unlock();
	sin.sin_family = AF_INET;
	fill_addr(&sin, addr, len);
	return 0;
}

int getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct px_sock *s;
	struct sockaddr_in sin;
	bool conn;

	px_init_libc();
	s = px_sock_get(fd);
	if (!s || !routed(s))
		return px_libc.getpeername(fd, addr, len);
	if (!addr || !len)
		return px_ret(-EFAULT);
	px_lock();
	conn = s->udp ? s->was_connected :
	       s->state == PX_OPEN && s->was_connected && !(s->dead && s->dead_err);
	sin = s->peer;
	px_unlock();
	if (!conn)
		return px_ret(-ENOTCONN);
	fill_addr(&sin, addr, len);
	return 0;
}
