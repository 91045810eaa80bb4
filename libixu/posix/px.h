/* SPDX-License-Identifier: MIT */
/*
 * px.h - libixu-posix: what its files share
 *
 * libixu-posix.so is an LD_PRELOAD library: it interposes libc's socket
 * calls and serves the AF_INET TCP sockets it routes to ixmod with ixev,
 * one ixev context per dataplane core, in the kernel-thread mode.  The
 * files, by concern:
 *
 *   px_main.c   libc's functions, configuration, the contexts, the fd
 *               table, the lock, waiting and waking
 *   px_tcp.c    the socket calls: socket, bind, listen, accept,
 *               connect, read and write in all their forms, shutdown,
 *               close, dup, fcntl, ioctl, socket options, names
 *   px_poll.c   epoll, poll and select over ixmod sockets and Linux
 *               file descriptors together
 *
 * Model (Documentation/userspace-api/libixu-posix.rst has the user's
 * view).  Every ixmod socket has a file descriptor of its own, a
 * placeholder: a Linux socket that is never bound, so that fd numbers,
 * close-on-exec and dup() behave, and no other file can take the number
 * while the socket lives.  One lock (px.lock) guards all of the layer's
 * state and every ixev; any thread may use any socket.  Under it, a call
 * first runs the contexts' events (px_pump()), whose callbacks only
 * change socket state and wake who waits (px_changed()), then does its
 * work and submits its calls.  A thread that must wait releases the lock
 * and sleeps in poll(2) on its own eventfd and on every context's file,
 * so it wakes when another thread changed what it waits for or when
 * events arrive that nobody runs.
 */
#ifndef _PX_H
#define _PX_H

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <unistd.h>

#include "../src/internal.h"

/* libc's own functions, found with dlsym(RTLD_NEXT), typed as libc declares them */
struct px_libc {
	__typeof__(socket) *socket;
	__typeof__(bind) *bind;
	__typeof__(listen) *listen;
	__typeof__(accept4) *accept4;
	__typeof__(connect) *connect;
	__typeof__(read) *read;
	__typeof__(write) *write;
	__typeof__(readv) *readv;
	__typeof__(writev) *writev;
	__typeof__(recvfrom) *recvfrom;
	__typeof__(sendto) *sendto;
	__typeof__(recvmsg) *recvmsg;
	__typeof__(sendmsg) *sendmsg;
	__typeof__(shutdown) *shutdown;
	__typeof__(sendfile) *sendfile;
	__typeof__(close) *close;
	__typeof__(dup) *dup;
	__typeof__(dup2) *dup2;
	__typeof__(dup3) *dup3;
	__typeof__(fcntl) *fcntl;
	__typeof__(ioctl) *ioctl;
	__typeof__(setsockopt) *setsockopt;
	__typeof__(getsockopt) *getsockopt;
	__typeof__(getsockname) *getsockname;
	__typeof__(getpeername) *getpeername;
	__typeof__(poll) *poll;
	__typeof__(ppoll) *ppoll;
	__typeof__(select) *select;
	__typeof__(pselect) *pselect;
	__typeof__(epoll_create) *epoll_create;
	__typeof__(epoll_create1) *epoll_create1;
	__typeof__(epoll_ctl) *epoll_ctl;
	__typeof__(epoll_wait) *epoll_wait;
	__typeof__(epoll_pwait) *epoll_pwait;
};

extern struct px_libc px_libc;

/* Which AF_INET sockets go to ixmod (IXU_POSIX_SOCKETS) */
enum px_route {
	PX_ROUTE_ADDR,	/* bound to a port's address, or connecting into its subnet */
	PX_ROUTE_ALL,	/* every AF_INET TCP socket */
	PX_ROUTE_OFF,	/* none: the layer passes everything to libc */
};

#define PX_MAX_CORES	64
#define PX_MAX_ADDRS	16

struct px_core {
	struct ixev	*ev;
	unsigned int	cpu;
};

enum px_kind {
	PX_SOCK = 1,
	PX_EPOLL,
};

/* What the fd table holds: a socket or an epoll instance, by kind. */
struct px_file {
	enum px_kind	kind;
	unsigned int	refs;		/* fds that name it (dup) */
};

enum px_state {
	PX_NEW,		/* socket() or bind(): not listening nor connected */
	PX_LISTEN,
	PX_CONNECTING,
	PX_OPEN,	/* established, or over (see dead) */
};

struct px_epi;
struct px_sock;

/* The listeners of one port: ixev listens once, for all of them */
struct px_lgroup {
	struct px_sock	*members;
	unsigned int	n;
	unsigned int	rr;	/* the next to take a connection, in turn */
};

/**
 * struct px_sock - an ixmod TCP socket
 * @f: the fd table's view (kind PX_SOCK)
 * @state: PX_*
 * @udp: a UDP socket (else TCP)
 * @ixm: routed to ixmod (a candidate until bind() or connect() decides)
 * @gone: freed; kept in px.grave while a thread may still hold it
 * @nonblock: O_NONBLOCK
 * @peer_fin: the peer's FIN came when no byte was held
 * @local: the bound address (sin_port 0: not bound)
 * @peer: the remote address once connecting or accepted
 * @core: the core the connection lives on
 * @c: the connection; NULL before, and after its closed()
 * @err: SO_ERROR: pending error, read and cleared by getsockopt
 * @dead_err: the connection is over: 0 after a clean end, else -errno
 * @dead: closed() came
 * @rd_shut: shutdown(SHUT_RD)
 * @wr_shut: shutdown(SHUT_WR): the FIN is queued (or will be)
 * @released: the application closed its last fd; freed at closed()
 * @was_connected: connect() succeeded once (EISCONN, ENOTCONN)
 * @nodelay, @keepalive, @reuseaddr, @reuseport, @linger_on: options kept
 *	to answer getsockopt (ixmod's TCP always sends at once)
 * @linger: SO_LINGER's seconds
 * @backlog: PX_LISTEN: listen()'s backlog
 * @acq: PX_LISTEN: accepted connections not yet taken by accept(),
 *	oldest first
 * @nacq: how many
 * @next: in a listener's @acq
 * @bnext: in px.bound
 * @lg: PX_LISTEN: the port's listeners (several with SO_REUSEPORT)
 * @lgnext: the next in @lg
 * @epis: the epoll registrations of this socket
 * @seq: bumped on every change of readiness (edge-triggered epoll)
 * @left: the bytes not read yet when the connection ended (@nleft of
 *	them, @left_off read since)
 * @connect_pending: a nonblocking connect() said EINPROGRESS: the next
 *	connect() reports its outcome once (0), as Linux's does
 * @rcvtimeo_ms, @sndtimeo_ms: SO_RCVTIMEO, SO_SNDTIMEO (0: none)
 * @udps: UDP: the socket on each core (px_udp.c)
 * @q: UDP: the datagrams received, oldest first (@qbytes of payload)
 * @udp_drops: UDP: datagrams dropped, the queue being full
 */
struct px_sock {
	struct px_file		f;
	enum px_state		state;
	bool			ixm;
	bool			udp;
	bool			gone;
	bool			nonblock;
	bool			peer_fin;
	struct sockaddr_in	local;
	struct sockaddr_in	peer;
	struct px_core		*core;
	struct ixev_conn	*c;
	int			err;
	int			dead_err;
	bool			dead;
	bool			rd_shut;
	bool			wr_shut;
	bool			released;
	bool			was_connected;
	bool			nodelay;
	bool			keepalive;
	bool			reuseaddr;
	bool			reuseport;
	bool			linger_on;
	int			linger;
	unsigned int		backlog;
	struct px_sock		*acq;
	struct px_sock		**acq_tail;
	unsigned int		nacq;
	struct px_sock		*next;
	struct px_sock		*bnext;
	struct px_lgroup	*lg;
	struct px_sock		*lgnext;
	struct px_epi		*epis;
	unsigned int		seq;
	unsigned char		*left;
	size_t			nleft;
	size_t			left_off;
	bool			connect_pending;
	int			rcvtimeo_ms;
	int			sndtimeo_ms;
	struct ixev_udp		**udps;
	struct px_dgram		*q;
	struct px_dgram		**q_tail;
	size_t			qbytes;
	unsigned long		udp_drops;
};

/**
 * struct px_ep - an epoll instance that holds ixmod sockets
 * @f: the fd table's view (kind PX_EPOLL)
 * @epfd: the real epoll's fd (it holds the Linux fds, @efd and the
 *	contexts' fds)
 * @efd: an eventfd in the real epoll (edge-triggered): written when a
 *	socket of @rdl changed while a thread sleeps in epoll_wait()
 * @sleepers: threads sleeping in the real epoll_wait()
 * @rdl: the registrations that may be ready, oldest first
 * @nsocks: ixmod sockets registered
 * @epis: their registrations
 * @next_all: in px.eps
 */
struct px_ep {
	struct px_file	f;
	int		epfd;
	int		efd;
	unsigned int	sleepers;
	struct px_epi	*rdl;
	struct px_epi	**rdl_tail;
	unsigned int	nsocks;
	struct px_epi	*epis;
	struct px_ep	*next_all;
};

/**
 * struct px_epi - one ixmod socket in one epoll instance
 * @ep: the instance
 * @s: the socket
 * @ev: what epoll_ctl() gave (events and data)
 * @seq: @s->seq when last reported (edge-triggered)
 * @on_rdl: on @ep->rdl
 * @disabled: EPOLLONESHOT fired: nothing until EPOLL_CTL_MOD
 * @fd: the fd it was added with
 * @snext: next of the socket's registrations
 * @rnext: next on @ep->rdl
 * @enext: next of @ep's registrations
 * @eprev: what points at this one in @ep's list
 */
struct px_epi {
	struct px_ep		*ep;
	struct px_sock		*s;
	struct epoll_event	ev;
	unsigned int		seq;
	bool			on_rdl;
	bool			disabled;
	int			fd;
	struct px_epi		*snext;
	struct px_epi		*rnext;
	struct px_epi		*enext;
	struct px_epi		**eprev;
};

/* The layer's global state (px_main.c) */
struct px_global {
	pthread_mutex_t		lock;
	enum px_route		route;
	bool			inited;		/* the contexts exist */
	int			init_err;	/* their creation failed: -errno */
	struct px_core		cores[PX_MAX_CORES];
	unsigned int		ncores;
	unsigned int		next_core;	/* connect(): round robin */
	struct in_addr		addrs[PX_MAX_ADDRS];	/* the ports' addresses */
	struct in_addr		masks[PX_MAX_ADDRS];
	unsigned int		naddrs;
	int			placeholder;	/* a Linux socket to dup */
	unsigned int		sleepers;	/* threads in px_sleep() */
	struct px_waiter	*waiters;
	struct px_sock		*bound;		/* ixmod sockets bound to a port */
	struct px_sock		*grave;		/* freed while threads slept */
	unsigned int		sndbuf;
	bool			debug;
	bool			forked;		/* a child of fork(): see px_main.c */
	bool			dead;		/* the contexts lost their port */
	struct px_ep		*eps;		/* every epoll that holds ixmod sockets */
};

extern struct px_global px;

/* A thread's wait: its eventfd, written by px_changed() while it sleeps. */
struct px_waiter {
	int			efd;
	bool			sleeping;
	struct px_waiter	*next;
};

static inline void px_lock(void)
{
	pthread_mutex_lock(&px.lock);
}

static inline void px_unlock(void)
{
	pthread_mutex_unlock(&px.lock);
}

/* px_main.c */
void px_init_libc(void);
struct px_file *px_file_get(int fd);
int px_file_set(int fd, struct px_file *f);
void px_file_clear(int fd);
int px_ensure_contexts(void);
void px_read_ports(void);
bool px_is_port_addr(struct in_addr a);
bool px_in_port_subnet(struct in_addr a);
void px_pump(void);
void px_pump_core(struct px_core *core);
int px_sleep(int timeout_ms, const struct pollfd *extra, unsigned int nextra);
void px_wake_all(void);
int px_ret(int err);
long long px_now_ms(void);
int px_placeholder(int flags);
void px_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* px_tcp.c */
struct px_sock *px_sock_get(int fd);
unsigned int px_revents(struct px_sock *s);
void px_changed(struct px_sock *s);
void px_sock_put(struct px_sock *s);
void px_grave_empty(void);

/* px_udp.c */
struct px_dgram;
int px_udp_bind(struct px_sock *s);
void px_udp_release(struct px_sock *s);
unsigned int px_udp_revents(const struct px_sock *s);
size_t px_udp_next_len(const struct px_sock *s);
ssize_t px_udp_recv(struct px_sock *s, const struct iovec *iov, int iovcnt, int flags,
		    struct sockaddr_in *from, int *mflags);
ssize_t px_udp_send(struct px_sock *s, const struct iovec *iov, int iovcnt, int flags,
		    const struct sockaddr_in *to);

/* px_poll.c */
void px_epi_ready(struct px_epi *epi);
void px_epis_drop(struct px_sock *s);
void px_ep_put(struct px_ep *ep);

#endif /* _PX_H */
