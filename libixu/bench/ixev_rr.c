// SPDX-License-Identifier: MIT
/*
 * ixev_rr - libixu's event layer (ixev) against a fake /dev/ixmod, for
 * counting its user-space instructions per request on the host
 *
 *   ixev_rr [-c CONNS] [-n BATCH] [-s SIZE] [-f] N
 *
 * A TCP echo server with the callbacks of examples/tcp-echo.c runs on
 * ixev, linked statically with libixu.a.  No module is needed: this
 * program defines open(), close(), ioctl(), mmap(), munmap() and poll()
 * itself, so libixu.a's calls to them land here (an executable's
 * definitions come before libc's).  For /dev/ixmod and its file they are
 * a fake kernel that answers IXMOD_IOC_GET_INFO, IXMOD_IOC_SETUP, WAKE
 * and RUN, maps the four regions from memory of its own and runs the
 * calls the library submits; for anything else they forward to the
 * system calls.
 *
 * The fake kernel answers the listen, hands CONNS connections (default
 * 8) to the listener with IXMOD_EV_TCP_KNOCK, and then runs N requests of
 * SIZE bytes (default 64), BATCH of them per ixev_dispatch() (default 1),
 * spread over the connections in turn (a pass holds at most 1 MiB of
 * requests, 128 KiB per connection: the fake takes every send whole, it
 * models no backpressure).  Each round posts the round's
 * IXMOD_EV_TCP_RECV events (their bytes in the receive region), with the
 * completion (IXMOD_EV_CALL) and the IXMOD_EV_TCP_SENT of every send of
 * the round before, calls ixev_dispatch() once, and then runs every call
 * the library queued: a send's bytes must be the bytes the connection
 * received, in order; a recv_done must return no more than was received.
 * A connection's acknowledgment (IXMOD_EV_TCP_SENT) comes with its next
 * request, as a closed-loop client's ACK rides on its next request, and
 * before its FIN.  With -f the fake offers IXMOD_FEAT_SENT_IN_RECV and,
 * when the library asks for it (IXMOD_SETUP_SENT_IN_RECV), puts the
 * acknowledgment on that request's TCP_RECV (IXMOD_EVF_SENT) instead of
 * a TCP_SENT of its own, as the module does.  With -p it offers
 * IXMOD_CALL_F_POS and checks each positional call's offset: a send that
 * has it gets no IXMOD_EV_CALL (the fake takes it whole), a graceful
 * close one with res 0.
 * At the end each connection gets its peer's FIN, must close, and is told
 * dead.  Anything else (wrong bytes, a request not echoed, a call the
 * fake does not expect, an error counted by ixev) ends the program with
 * status 1 and a line on stderr, so a broken run is never measured.
 *
 * Only ixev.h's interface is used, so the same file builds against older
 * libixu versions.  The work of each request happens inside
 * ixev_dispatch(); scripts/ixev-icount measures it with
 *   valgrind --tool=callgrind --toggle-collect=ixev_dispatch
 * (build: make -C libixu bench).
 */
#undef _FORTIFY_SOURCE		/* this file defines open() itself */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ixev.h"

#define PORT		7
#define MAX_CONNS	256U
#define MAX_BATCH	1024U
#define MAX_SIZE	16384U
#define RX_REGION	(4U << 20)	/* bytes of the receive region */
#define RXBUF_SIZE	2048U
#define RING_MAX	65536U
#define ARENA_MAX	(64U << 20)
#define SEND_WIN	(1U << 20)	/* what a TCP_SENT says the window is */
#define PASS_MAX	(1U << 20)	/* request bytes per pass, a quarter of RX_REGION */
#define CONN_PASS_MAX	(128U << 10)	/* per connection: half of ixev's sndbuf */

/* ---- the fake kernel's state ---- */

struct fconn {
	__u64		handle;
	__u64		cookie;		/* the accept's user_data */
	bool		accepted;
	bool		closed;		/* TCP_CLOSE ran */
	bool		fin;		/* the peer's FIN was posted */
	unsigned char	*pend;		/* received, not yet echoed */
	size_t		npend;
	size_t		pend_cap;
	__u32		rx_owed;	/* received, not yet returned by recv_done */
	__u8		send_op;	/* the send to complete next round, or 0 */
	bool		send_pos;	/* it was positional: no completion */
	__u32		send_len;
	__u32		pos;		/* bytes its sends took */
	__u32		acked;		/* acknowledged, told with its next request */
	unsigned long	requests;
};

struct fring {
	unsigned int	*prod;
	unsigned int	*cons;
	unsigned int	*flags;
	void		*entries;
	unsigned int	nr;
};

static struct {
	int			fd;		/* the fake /dev/ixmod: /dev/null */
	struct ixmod_setup	setup;
	void			*map[IXMOD_REGION_NR];
	struct fring		calls;
	struct fring		events;
	unsigned int		ev_prod;	/* events written, published or not */
	unsigned char		*rx;
	unsigned char		*tx;
	__u32			rx_next;	/* where the next received bytes go */
	__u64			listener;	/* its handle, once listening */
	__u64			listener_cookie;
	struct fconn		conns[MAX_CONNS];
	unsigned int		nconns;
} fk = { .fd = -1 };

/* ---- the application: tcp-echo's callbacks ---- */

static struct {
	unsigned int	conns;
	unsigned int	batch;
	unsigned int	size;
	unsigned long	requests;
	bool		fold;		/* -f: offer IXMOD_FEAT_SENT_IN_RECV */
	bool		pos;		/* -p: offer IXMOD_CALL_F_POS */
} opt = { .conns = 8, .batch = 1, .size = 64 };

static unsigned int accepted, closed, close_errors;

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	fputs("ixev_rr: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static size_t on_readable(struct ixev_conn *c, const void *data, size_t len)
{
	ssize_t n;

	if (!len) {		/* the peer's FIN: close after the echo */
		ixev_close(c);
		return 0;
	}
	n = ixev_send(c, data, len);
	return n < 0 ? len : (size_t)n;	/* the rest waits for room */
}

static void on_writable(struct ixev_conn *c)
{
	ixev_resume(c);
}

static void on_closed(struct ixev_conn *c, int err)
{
	(void)c;
	closed++;
	if (err)
		close_errors++;
}

static const struct ixev_conn_ops echo_ops = {
	.readable = on_readable,
	.writable = on_writable,
	.closed = on_closed,
};

static const struct ixev_conn_ops *on_accept(struct ixev_conn *c, __be32 addr, __be16 port,
					     void *arg)
{
	(void)c;
	(void)addr;
	(void)port;
	(void)arg;
	accepted++;
	return &echo_ops;
}

/* ---- the fake kernel: events ---- */

/*
 * The next event entry, zeroed; publish() makes the entries written since
 * the last publish visible, as the kernel does once per batch.
 */
static struct ixmod_event *post(__u8 type, __u64 user_data)
{
	struct fring *r = &fk.events;
	struct ixmod_event *e;

	if (fk.ev_prod - __atomic_load_n(r->cons, __ATOMIC_ACQUIRE) >= r->nr)
		fail("the event ring is full");
	e = (struct ixmod_event *)r->entries + (fk.ev_prod++ & (r->nr - 1));
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->user_data = user_data;
	return e;
}

static void publish(void)
{
	__atomic_store_n(fk.events.prod, fk.ev_prod, __ATOMIC_RELEASE);
}

/* The event post() wrote last */
static struct ixmod_event *fk_last_event(void)
{
	return (struct ixmod_event *)fk.events.entries + ((fk.ev_prod - 1) & (fk.events.nr - 1));
}

static void post1(__u8 type, __u8 op, __s32 res, __u64 user_data, __u64 handle)
{
	struct ixmod_event *e = post(type, user_data);

	e->op = op;
	e->res = res;
	e->handle = handle;
}

/* ---- the fake kernel: calls ---- */

static struct fconn *conn_of(__u64 handle)
{
	__u32 i = (handle & 0xffffff) - 1;

	if (IXMOD_HANDLE_KIND(handle) != IXMOD_HANDLE_TCP || i >= fk.nconns ||
	    fk.conns[i].handle != handle)
		fail("a call names handle %#llx, not a connection", (unsigned long long)handle);
	return &fk.conns[i];
}

/* @len bytes at @off of the arena go out on @c: they must be what came in. */
static void echoed(struct fconn *c, __u32 off, __u32 len)
{
	if ((__u64)off + len > fk.setup.regions[IXMOD_REGION_TXARENA].size)
		fail("a send names bytes outside the arena");
	if (len > c->npend)
		fail("connection %u sent %u bytes, %zu were received",
		     (unsigned int)(c - fk.conns), len, c->npend);
	if (memcmp(fk.tx + off, c->pend, len))
		fail("connection %u sent other bytes than it received",
		     (unsigned int)(c - fk.conns));
	memmove(c->pend, c->pend + len, c->npend - len);
	c->npend -= len;
}

static void run_send(const struct ixmod_call *call)
{
	struct fconn *c = conn_of(call->handle);
	__u32 total = 0, i;

	if (!c->accepted || c->closed || c->send_op || !call->len ||
	    (call->flags & ~(opt.pos ? IXMOD_CALL_F_POS : 0)))
		fail("a send the kernel would refuse (connection %u)",
		     (unsigned int)(c - fk.conns));
	if (call->opcode == IXMOD_OP_TCP_SEND) {
		echoed(c, call->off, call->len);
		total = call->len;
	} else {
		const struct ixmod_iov *iov = (const struct ixmod_iov *)(fk.tx + call->off);

		if (call->off % 8 || call->len > 64 || (__u64)call->off + call->len *
		    sizeof(*iov) > fk.setup.regions[IXMOD_REGION_TXARENA].size)
			fail("a sendv with a bad iov array");
		for (i = 0; i < call->len; i++) {
			echoed(c, iov[i].off, iov[i].len);
			total += iov[i].len;
		}
	}
	if (call->user_data != c->cookie)
		fail("a send with another cookie than the accept's");
	c->send_pos = call->flags & IXMOD_CALL_F_POS;
	if (c->send_pos && call->pos != c->pos)
		fail("a send at offset %u, the stream is at %u", call->pos, c->pos);
	c->pos += total;
	c->send_op = call->opcode;
	c->send_len = total;
}

static void run_call(const struct ixmod_call *call)
{
	struct fconn *c;

	switch (call->opcode) {
	case IXMOD_OP_TCP_LISTEN:
		if (fk.listener || call->port != ixu_htons(PORT))
			fail("an unexpected listen");
		fk.listener = (__u64)IXMOD_HANDLE_LISTENER << IXMOD_HANDLE_KIND_SHIFT | 1;
		fk.listener_cookie = call->user_data;
		post1(IXMOD_EV_CALL, call->opcode, 0, call->user_data, fk.listener);
		return;
	case IXMOD_OP_TCP_ACCEPT:
		c = conn_of(call->handle);
		if (c->accepted)
			fail("connection %u accepted twice", (unsigned int)(c - fk.conns));
		c->accepted = true;
		c->cookie = call->user_data;
		return;
	case IXMOD_OP_TCP_SEND:
	case IXMOD_OP_TCP_SENDV:
		run_send(call);
		return;
	case IXMOD_OP_TCP_RECV_DONE:
		c = conn_of(call->handle);
		if (call->len > c->rx_owed)
			fail("recv_done of %u bytes, %u were received", call->len, c->rx_owed);
		c->rx_owed -= call->len;
		return;
	case IXMOD_OP_TCP_CLOSE:
		c = conn_of(call->handle);
		if (!c->fin || c->closed || c->send_op || c->npend ||
		    (call->flags & ~(opt.pos ? IXMOD_CALL_F_POS | IXMOD_CALL_F_NOTIFY : 0)))
			fail("connection %u closed early or twice", (unsigned int)(c - fk.conns));
		if ((call->flags & IXMOD_CALL_F_POS) && call->pos != c->pos)
			fail("a close at offset %u, the stream is at %u", call->pos, c->pos);
		c->closed = true;
		c->rx_owed = 0;		/* a close takes back what was not returned */
		if (call->flags & IXMOD_CALL_F_NOTIFY) {
			post1(IXMOD_EV_CALL, call->opcode, 0, call->user_data, 0);
			fk_last_event()->off = c->pos;
		}
		post1(IXMOD_EV_TCP_DEAD, 0, 0, c->cookie, c->handle);
		return;
	default:
		fail("an unexpected call, opcode %u", call->opcode);
	}
}

/* Run every call the library submitted, as the core's thread would. */
static void run_calls(void)
{
	struct fring *r = &fk.calls;
	unsigned int cons = *r->cons, prod = __atomic_load_n(r->prod, __ATOMIC_ACQUIRE);

	for (; cons != prod; cons++)
		run_call((struct ixmod_call *)r->entries + (cons & (r->nr - 1)));
	__atomic_store_n(r->cons, cons, __ATOMIC_RELEASE);
	publish();
}

/* ---- the fake kernel: the device ---- */

static unsigned int pow2(unsigned int want, unsigned int def)
{
	unsigned int n = 1;

	if (!want)
		return def;
	if (want > RING_MAX)
		return 0;
	while (n < want)
		n *= 2;
	return n;
}

static int fk_get_info(struct ixmod_info *info)
{
	memset(info, 0, sizeof(*info));
	info->abi_version = IXMOD_ABI_VERSION;
	info->nr_cores = 1;
	info->features = IXMOD_FEAT_RINGS | IXMOD_FEAT_UDP | IXMOD_FEAT_NODROP |
			 IXMOD_FEAT_TCP | IXMOD_FEAT_RUN | IXMOD_FEAT_HANDLE_KIND |
			 IXMOD_FEAT_LIMITS;
	info->nr_cpu_ids = 1;
	info->ops = (1ULL << (IXMOD_OP_TCP_SEND + 1)) - 1;
	info->events = (1U << (IXMOD_EV_TCP_DEAD + 1)) - 1;
	info->call_flags = IXMOD_CALL_F_NOTIFY | IXMOD_CALL_F_ABORT;
#ifdef IXMOD_CALL_F_POS
	if (opt.pos)
		info->call_flags |= IXMOD_CALL_F_POS;
#endif
	info->setup_flags = IXMOD_SETUP_CLAMP;
#ifdef IXMOD_FEAT_SENT_IN_RECV
	if (opt.fold) {
		info->features |= IXMOD_FEAT_SENT_IN_RECV;
		info->setup_flags |= IXMOD_SETUP_SENT_IN_RECV;
	}
#endif
	info->ring_entries_max = RING_MAX;
	info->txarena_max = ARENA_MAX;
	info->sendv_max = 64;
	info->backlog_max = 4096;
	return 0;
}

/* Ring regions: prod, cons and flags on their own cache lines, then the entries. */
static void ring_layout(struct ixmod_ring_offsets *o, struct ixmod_region *reg, __u64 off,
			unsigned int nr, unsigned int esize)
{
	memset(o, 0, sizeof(*o));
	o->prod = 0;
	o->cons = 64;
	o->flags = 128;
	o->entries = 192;
	reg->mmap_offset = off;
	reg->size = (192 + (__u64)nr * esize + 4095) & ~4095ULL;
}

static bool fk_folds;	/* the library asked for IXMOD_SETUP_SENT_IN_RECV */

static int fk_setup(struct ixmod_setup *p)
{
	__u32 flags = 0;

#ifdef IXMOD_FEAT_SENT_IN_RECV
	if (opt.fold)
		flags = IXMOD_SETUP_SENT_IN_RECV;
	fk_folds = p->flags & IXMOD_SETUP_SENT_IN_RECV;
#endif
	if (fk.setup.call_entries || p->flags & ~flags || p->cpu)
		return -EINVAL;
	p->call_entries = pow2(p->call_entries, 256);
	p->event_entries = pow2(p->event_entries, 256);
	if (!p->call_entries || !p->event_entries)
		return -EINVAL;
	if (!p->txarena_size)
		p->txarena_size = 1U << 20;
	if (p->txarena_size > ARENA_MAX)
		return -EINVAL;
	p->txarena_size = (p->txarena_size + 4095) & ~4095U;
	p->rxbuf_size = RXBUF_SIZE;
	p->features = IXMOD_FEAT_RINGS | IXMOD_FEAT_UDP | IXMOD_FEAT_NODROP | IXMOD_FEAT_TCP;
	ring_layout(&p->call_off, &p->regions[IXMOD_REGION_CALL_RING], IXMOD_OFF_CALL_RING,
		    p->call_entries, sizeof(struct ixmod_call));
	ring_layout(&p->event_off, &p->regions[IXMOD_REGION_EVENT_RING], IXMOD_OFF_EVENT_RING,
		    p->event_entries, sizeof(struct ixmod_event));
	p->regions[IXMOD_REGION_RXBUF].mmap_offset = IXMOD_OFF_RXBUF;
	p->regions[IXMOD_REGION_RXBUF].size = RX_REGION;
	p->regions[IXMOD_REGION_TXARENA].mmap_offset = IXMOD_OFF_TXARENA;
	p->regions[IXMOD_REGION_TXARENA].size = p->txarena_size;
	p->event_size = sizeof(struct ixmod_event);
	fk.setup = *p;
	return 0;
}

/* The fake's answer to a mapping: regions must be asked for as SETUP said. */
static void *fk_mmap(size_t len, off_t off)
{
	int i;

	for (i = 0; i < IXMOD_REGION_NR; i++) {
		const struct ixmod_region *reg = &fk.setup.regions[i];
		struct ixmod_ring_offsets *o;
		struct fring *r;
		void *m;

		if (!reg->size || (__u64)off != reg->mmap_offset)
			continue;
		if (len != reg->size || fk.map[i])
			break;
		m = aligned_alloc(4096, len);
		if (!m)
			break;
		memset(m, 0, len);
		fk.map[i] = m;
		if (i == IXMOD_REGION_RXBUF)
			fk.rx = m;
		if (i == IXMOD_REGION_TXARENA)
			fk.tx = m;
		if (i != IXMOD_REGION_CALL_RING && i != IXMOD_REGION_EVENT_RING)
			return m;
		r = i == IXMOD_REGION_CALL_RING ? &fk.calls : &fk.events;
		o = i == IXMOD_REGION_CALL_RING ? &fk.setup.call_off : &fk.setup.event_off;
		r->prod = (unsigned int *)((char *)m + o->prod);
		r->cons = (unsigned int *)((char *)m + o->cons);
		r->flags = (unsigned int *)((char *)m + o->flags);
		r->entries = (char *)m + o->entries;
		r->nr = i == IXMOD_REGION_CALL_RING ? fk.setup.call_entries :
						     fk.setup.event_entries;
		return m;
	}
	errno = EINVAL;
	return MAP_FAILED;
}

static bool fk_unmap(void *addr)
{
	int i;

	for (i = 0; i < IXMOD_REGION_NR; i++) {
		if (addr && fk.map[i] == addr) {
			free(addr);
			fk.map[i] = NULL;
			return true;
		}
	}
	return false;
}

static bool events_waiting(void)
{
	return fk.events.prod && *fk.events.prod != *fk.events.cons;
}

/* ---- what libixu.a calls: the fake for /dev/ixmod, the system otherwise ---- */

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (strcmp(path, IXMOD_DEV_PATH))
		return syscall(SYS_openat, AT_FDCWD, path, flags, mode);
	if (fk.fd >= 0) {
		errno = EBUSY;	/* one context per run */
		return -1;
	}
	fk.fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC);
	return fk.fd;
}

int close(int fd)
{
	if (fd >= 0 && fd == fk.fd)
		fk.fd = -1;
	return syscall(SYS_close, fd);
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd < 0 || fd != fk.fd)
		return syscall(SYS_ioctl, fd, req, arg);
	switch (req) {
	case IXMOD_IOC_GET_INFO:
		ret = fk_get_info(arg);
		break;
	case IXMOD_IOC_SETUP:
		ret = fk_setup(arg);
		break;
	case IXMOD_IOC_WAKE:
	case IXMOD_IOC_RUN:
		ret = fk.calls.prod ? (run_calls(), 0) : -EINVAL;
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (fd < 0 || fd != fk.fd)
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	return fk_mmap(len, off);
}

int munmap(void *addr, size_t len)
{
	if (fk_unmap(addr))
		return 0;
	return syscall(SYS_munmap, addr, len);
}

/*
 * ixu_wait() sleeps here while ixev_listen() waits for its answer.  glibc
 * declares poll()'s array write-only (access attribute), so reading its
 * fd looks like reading uninitialised memory to gcc; the empty asm (which
 * might write it, for all gcc knows) says otherwise, also at an -flto link
 * where a pragma would not reach.
 */
int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	struct timespec ts = { timeout / 1000, timeout % 1000 * 1000000L };

	__asm__("" : "+r" (fds) : : "memory");
	if (n != 1 || fds[0].fd < 0 || fds[0].fd != fk.fd)
		return syscall(SYS_ppoll, fds, n, timeout < 0 ? NULL : &ts, NULL, 0);
	if (fk.calls.prod)
		run_calls();
	fds[0].revents = events_waiting() ? POLLIN : 0;
	return fds[0].revents ? 1 : 0;
}

/* ---- the benchmark ---- */

static void dispatch(struct ixev *ev)
{
	int ret;

	publish();
	ret = ixev_dispatch(ev);

	if (ret < 0)
		fail("ixev_dispatch: %s", strerror(-ret));
	run_calls();
}

/* The peers connect: one knock each, then the accepts. */
static void connect_all(struct ixev *ev)
{
	unsigned int i;

	for (i = 0; i < opt.conns; i++) {
		struct ixmod_event *e;

		struct fconn *c = &fk.conns[i];

		c->handle = (__u64)IXMOD_HANDLE_TCP << IXMOD_HANDLE_KIND_SHIFT | (i + 1);
		c->pend_cap = 2 * ((opt.batch + opt.conns - 1) / opt.conns + 1) * opt.size;
		c->pend = malloc(c->pend_cap);
		if (!c->pend)
			fail("out of memory");
		e = post(IXMOD_EV_TCP_KNOCK, fk.listener_cookie);
		e->handle = c->handle;
		e->addr = ixu_htonl(0x0a000002);
		e->port = ixu_htons(40000 + i);
		e->lport = ixu_htons(PORT);
	}
	fk.nconns = opt.conns;
	dispatch(ev);
	for (i = 0; i < opt.conns; i++)
		if (!fk.conns[i].accepted)
			fail("connection %u was not accepted", i);
	if (accepted != opt.conns)
		fail("%u accept callbacks for %u connections", accepted, opt.conns);
}

/* The bytes of request @q: different for every request and connection. */
static void fill(unsigned char *p, unsigned long q, unsigned int conn)
{
	unsigned int i;

	for (i = 0; i < opt.size; i++)
		p[i] = (unsigned char)(q * 131 + i * 7 + conn);
}

/* The acknowledgment of what @c sent, in a TCP_SENT. */
static void post_sent(struct fconn *c)
{
	struct ixmod_event *e = post(IXMOD_EV_TCP_SENT, c->cookie);

	e->res = c->acked;
	e->win = SEND_WIN;
	c->acked = 0;
}

/*
 * One round: the completions of the sends of the round before, @nreq
 * requests (each with its connection's acknowledgment), one
 * ixev_dispatch(), then its calls.
 */
static void round_trip(struct ixev *ev, unsigned long first, unsigned int nreq)
{
	__u32 stride = (opt.size + 63) & ~63U;
	unsigned int i;

	for (i = 0; i < fk.nconns; i++) {
		struct fconn *c = &fk.conns[i];

		if (!c->send_op)
			continue;
		if (!c->send_pos)
			post1(IXMOD_EV_CALL, c->send_op, c->send_len, c->cookie, 0);
		c->send_op = 0;
		c->acked += c->send_len;
	}
	for (i = 0; i < nreq; i++) {
		unsigned long q = first + i;
		struct fconn *c = &fk.conns[q % fk.nconns];
		struct ixmod_event *e;

		if (fk.rx_next + stride > RX_REGION)
			fk.rx_next = 0;
		if (c->npend + opt.size > c->pend_cap)
			fail("connection %u echoes nothing", (unsigned int)(c - fk.conns));
		fill(fk.rx + fk.rx_next, q, c - fk.conns);
		memcpy(c->pend + c->npend, fk.rx + fk.rx_next, opt.size);
		c->npend += opt.size;
		c->rx_owed += opt.size;
		c->requests++;
		if (c->acked && !fk_folds)
			post_sent(c);
		e = post(IXMOD_EV_TCP_RECV, c->cookie);
		e->res = opt.size;
		e->off = fk.rx_next;
#ifdef IXMOD_EVF_SENT
		if (c->acked) {
			e->flags = IXMOD_EVF_SENT;
			e->win = c->acked;
			c->acked = 0;
		}
#endif
		fk.rx_next += stride;
	}
	dispatch(ev);
}

/* Every byte echoed and returned, no send left in flight. */
static void check_conns(void)
{
	unsigned int i;

	for (i = 0; i < fk.nconns; i++) {
		const struct fconn *c = &fk.conns[i];

		if (c->npend || c->rx_owed || c->send_op)
			fail("connection %u: %zu bytes not echoed, %u not returned%s", i,
			     c->npend, c->rx_owed, c->send_op ? ", a send in flight" : "");
	}
}

/* The peers close: a FIN each; ixev closes, and the fake tells them dead. */
static void close_all(struct ixev *ev)
{
	unsigned int i;

	for (i = 0; i < fk.nconns; i++) {
		if (fk.conns[i].acked)
			post_sent(&fk.conns[i]);
		fk.conns[i].fin = true;
		post1(IXMOD_EV_TCP_RECV, 0, 0, fk.conns[i].cookie, 0);
	}
	dispatch(ev);		/* the FINs in, the closes out: the DEADs posted */
	dispatch(ev);		/* the DEADs in: closed() */
	for (i = 0; i < fk.nconns; i++)
		if (!fk.conns[i].closed)
			fail("connection %u did not close after its peer's FIN", i);
	if (closed != fk.nconns || close_errors)
		fail("%u closed() calls (%u with an error) for %u connections", closed,
		     close_errors, fk.nconns);
}

static void die_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-c CONNS] [-n BATCH] [-s SIZE] [-f] [-p] N\n", prog);
	exit(2);
}

static unsigned long number(const char *s, const char *prog)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || *s == '-')
		die_usage(prog);
	return v;
}

int main(int argc, char **argv)
{
	struct ixev_stats st = { 0 };
	struct ixev *ev;
	unsigned long done;
	int o, ret;

	while ((o = getopt(argc, argv, "c:n:s:fp")) != -1) {
		switch (o) {
		case 'f':
			opt.fold = true;
			break;
		case 'p':
			opt.pos = true;
			break;
		case 'c':
			opt.conns = number(optarg, argv[0]);
			break;
		case 'n':
			opt.batch = number(optarg, argv[0]);
			break;
		case 's':
			opt.size = number(optarg, argv[0]);
			break;
		default:
			die_usage(argv[0]);
		}
	}
	if (optind != argc - 1)
		die_usage(argv[0]);
	opt.requests = number(argv[optind], argv[0]);
	if (!opt.conns || opt.conns > MAX_CONNS || !opt.batch || opt.batch > MAX_BATCH ||
	    !opt.size || opt.size > MAX_SIZE)
		fail("1 to %u connections, 1 to %u requests per pass, 1 to %u bytes each",
		     MAX_CONNS, MAX_BATCH, MAX_SIZE);
	/*
	 * Every send is taken whole: no backpressure is modelled, and the
	 * receive region is reused while earlier bytes are surely echoed.
	 */
	if (opt.batch * ((opt.size + 63) & ~63U) > PASS_MAX ||
	    (opt.batch + opt.conns - 1) / opt.conns * opt.size > CONN_PASS_MAX)
		fail("at most %u KiB of requests per pass, %u KiB per connection",
		     PASS_MAX >> 10, CONN_PASS_MAX >> 10);

	ret = ixev_create(&ev, 0, NULL);
	if (ret)
		fail("ixev_create: %s", strerror(-ret));
	ret = ixev_listen(ev, ixu_htons(PORT), 128, on_accept, NULL);
	if (ret)
		fail("ixev_listen: %s", strerror(-ret));
	connect_all(ev);

	for (done = 0; done < opt.requests; done += opt.batch)
		round_trip(ev, done, opt.requests - done < opt.batch ?
				     opt.requests - done : opt.batch);
	if (opt.requests)
		round_trip(ev, done, 0);	/* the last sends' completions */
	check_conns();
	close_all(ev);

	ixev_get_stats(ev, &st, sizeof(st));
	if (st.errors || st.late || st.refused || st.conns != opt.conns ||
	    st.bytes_in != opt.requests * opt.size || st.bytes_out != opt.requests * opt.size)
		fail("ixev counted %llu errors, %llu late, %llu refused, %llu conns, %llu bytes in, %llu out",
		     st.errors, st.late, st.refused, st.conns, st.bytes_in, st.bytes_out);
	ixev_destroy(ev);
	if (fk.fd >= 0 || fk.map[0] || fk.map[1] || fk.map[2] || fk.map[3])
		fail("ixev_destroy() left the device open or mapped");
	printf("ixev_rr: %lu requests of %u bytes on %u connections, %u per pass: %llu events, %llu calls, %llu passes\n",
	       opt.requests, opt.size, opt.conns, opt.batch, st.events, st.calls, st.passes);
	return 0;
}
