// SPDX-License-Identifier: MIT
/*
 * sockcheck - the socket calls' semantics as Linux gives them
 *
 *   sockcheck LOCAL_ADDR PEER_ADDR CTL_PORT [CASE...]
 *   sockcheck --list
 *
 * The same program runs on Linux's own TCP/IP and under libixu-posix's
 * LD_PRELOAD layer; the two runs must print the same lines.  Its other
 * side is sockpeer.py on PEER_ADDR, on Linux's TCP/IP, driven step by step
 * over one control connection to PEER_ADDR:CTL_PORT (sockpeer.py lists
 * the commands).  Every listening socket is bound to LOCAL_ADDR, every
 * connecting one connects to PEER_ADDR.
 *
 * Each observation is one line, "CASE: call -> result" or "CASE: fact:
 * yes|no", normalised so that nothing in it depends on timing, addresses,
 * ports or buffer sizes.  The program knows what Linux gives: a line that
 * differs says UNEXPECTED and what Linux gives, and the program then exits
 * 1, so a run on plain Linux is itself a test.  Every wait is a poll of at
 * most WAIT_MS; alarm() ends a case that blocks anyway.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define WAIT_MS		5000	/* the longest wait for an event */
#define CTL_MS		12000	/* for an answer of the peer (its waits are 5 s) */
#define QUIET_MS	200	/* "nothing happens" is nothing for this long */
#define CASE_SECONDS	30	/* alarm(): a case that blocks anyway */
#define BIG		(64 << 20)	/* more than Linux takes at once */
#define CHUNK		(64 << 10)

static struct sockaddr_in local_sa, peer_sa;	/* port 0 */
static const char *local_str;
static int ctl_fd = -1;
static const char *cur = "sockcheck";	/* the case running */
static int failed;
static int sigpipes;		/* SIGPIPEs caught (atomic: a handler counts) */
static jmp_buf bail_jmp;

/* The case's descriptors, closed after it whatever happened. */
static int open_fds[64];
static unsigned int nr_open;

/* ---- printing ---- */

struct name {
	int nr;
	const char *name;
};

#define N(x)	{ x, #x }
static const struct name errnames[] = {
	N(EPERM), N(ENOENT), N(EINTR), N(EBADF), N(EAGAIN), N(EFAULT),
	N(EEXIST), N(EINVAL), N(ENOTTY), N(EPIPE), N(ENOTSOCK),
	N(EDESTADDRREQ), N(EMSGSIZE), N(EPROTOTYPE), N(ENOPROTOOPT),
	N(EPROTONOSUPPORT), N(EOPNOTSUPP), N(EAFNOSUPPORT), N(EADDRINUSE),
	N(EADDRNOTAVAIL), N(ENETUNREACH), N(ECONNABORTED), N(ECONNRESET),
	N(ENOBUFS), N(EISCONN), N(ENOTCONN), N(ETIMEDOUT), N(ECONNREFUSED),
	N(EHOSTUNREACH), N(EALREADY), N(EINPROGRESS),
};

static const struct name pollnames[] = {
	N(POLLIN), N(POLLPRI), N(POLLOUT), N(POLLERR), N(POLLHUP),
	N(POLLNVAL), N(POLLRDNORM), N(POLLRDBAND), N(POLLWRNORM),
	N(POLLWRBAND), N(POLLRDHUP),
};

static const struct name epollnames[] = {
	N(EPOLLIN), N(EPOLLPRI), N(EPOLLOUT), N(EPOLLERR), N(EPOLLHUP),
	N(EPOLLRDNORM), N(EPOLLRDBAND), N(EPOLLWRNORM), N(EPOLLWRBAND),
	N(EPOLLRDHUP),
};
#undef N

/* Eight results can be in use in one printf. */
static char *strbuf(void)
{
	static char bufs[8][256];
	static unsigned int i;

	return bufs[i++ % ARRAY_SIZE(bufs)];
}

static const char *errname(int err)
{
	char *b;
	unsigned int i;

	if (!err)
		return "0";
	for (i = 0; i < ARRAY_SIZE(errnames); i++)
		if (errnames[i].nr == err)
			return errnames[i].name;
	b = strbuf();
	snprintf(b, 256, "errno %d", err);
	return b;
}

/* A bit mask as names joined by '|', in the table's order; "0" if none. */
static const char *masknames(unsigned int mask, const struct name *t,
			     unsigned int n)
{
	char *b = strbuf();
	unsigned int i;

	b[0] = 0;
	for (i = 0; i < n; i++) {
		if (!(mask & t[i].nr))
			continue;
		if (b[0])
			strcat(b, "|");
		strcat(b, t[i].name);
		mask &= ~t[i].nr;
	}
	if (mask)
		snprintf(b + strlen(b), 32, "%s0x%x", b[0] ? "|" : "", mask);
	return b[0] ? b : "0";
}

#define POLLMASK(m)	masknames(m, pollnames, ARRAY_SIZE(pollnames))
#define EPOLLMASK(m)	masknames(m, epollnames, ARRAY_SIZE(epollnames))

/* A call's result as printed: its value, or "-1 ENAME". */
static const char *res(long ret, int err)
{
	char *b = strbuf();

	if (ret < 0)
		snprintf(b, 256, "-1 %s", errname(err));
	else
		snprintf(b, 256, "%ld", ret);
	return b;
}

#define R(call)	({ long r_; errno = 0; r_ = (long)(call); res(r_, errno); })

static void out(const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", cur);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* "CASE: WHAT -> GOT", and what Linux gives if that is something else. */
static void check(const char *what, const char *got, const char *want)
{
	if (!strcmp(got, want)) {
		out("%s -> %s", what, got);
		return;
	}
	out("%s -> %s UNEXPECTED (Linux: %s)", what, got, want);
	failed = 1;
}

static void check_int(const char *what, long got, long want)
{
	char g[32], w[32];

	snprintf(g, sizeof(g), "%ld", got);
	snprintf(w, sizeof(w), "%ld", want);
	check(what, g, w);
}

/* "CASE: WHAT: yes|no" */
static void fact(const char *what, int got, int want)
{
	if (!got == !want) {
		out("%s: %s", what, got ? "yes" : "no");
		return;
	}
	out("%s: %s UNEXPECTED (Linux: %s)", what, got ? "yes" : "no",
	    want ? "yes" : "no");
	failed = 1;
}

/* The case cannot go on: say why, and on to the next case. */
static void __attribute__((noreturn, format(printf, 1, 2)))
bail(const char *fmt, ...)
{
	va_list ap;

	printf("%s: UNEXPECTED ", cur);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	failed = 1;
	longjmp(bail_jmp, 1);
}

/* The control connection is lost: nothing more can be run. */
static void __attribute__((noreturn, format(printf, 1, 2)))
fatal(const char *fmt, ...)
{
	va_list ap;

	printf("%s: UNEXPECTED control connection: ", cur);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(1);
}

/* ---- descriptors, signals, waiting ---- */

static int keep(int fd)
{
	if (fd >= 0 && nr_open < ARRAY_SIZE(open_fds))
		open_fds[nr_open++] = fd;
	return fd;
}

/* close() as the case sees it, and forget the descriptor. */
static int closefd(int fd)
{
	unsigned int i;

	for (i = 0; i < nr_open; i++) {
		if (open_fds[i] == fd) {
			open_fds[i] = open_fds[--nr_open];
			break;
		}
	}
	return close(fd);
}

static void close_all(void)
{
	while (nr_open)
		close(open_fds[--nr_open]);
}

static void on_sigpipe(int sig)
{
	(void)sig;
	__atomic_fetch_add(&sigpipes, 1, __ATOMIC_RELAXED);
}

static void on_alarm(int sig)
{
	static const char msg[] = ": UNEXPECTED timeout: the case blocked\n";
	ssize_t r;

	(void)sig;
	r = write(STDOUT_FILENO, cur, strlen(cur));
	r = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	(void)r;
	_exit(1);
}

static int nr_sigpipes(void)
{
	return __atomic_load_n(&sigpipes, __ATOMIC_RELAXED);
}

/* A result and whether SIGPIPE came since @before. */
static const char *with_sigpipe(const char *r, int before)
{
	char *b = strbuf();

	snprintf(b, 256, "%s, %s", r,
		 nr_sigpipes() != before ? "SIGPIPE delivered" : "no SIGPIPE");
	return b;
}

/* poll() @fd until one of @events (or an error) is there: the revents. */
static short wait_fd(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	do {
		r = poll(&p, 1, ms);
	} while (r < 0 && errno == EINTR);
	return r > 0 ? p.revents : 0;
}

static void wait_in(int fd)
{
	if (!(wait_fd(fd, POLLIN, WAIT_MS) & POLLIN))
		bail("nothing to read within %d ms", WAIT_MS);
}

/* poll() @fd for @events with no wait: the revents as names. */
static const char *poll_now(int fd, short events)
{
	return POLLMASK(wait_fd(fd, events, 0));
}

/*
 * Poll until @until is among the revents, then poll until the revents
 * stop changing: a state reached in several steps (data, then a FIN) is
 * printed whole.  One poll() is not the wait: it returns as soon as any
 * of @events is ready (POLLOUT is, long before a FIN), and the peer's
 * acknowledgment on the control connection may arrive before the segment
 * it talks of has been seen here (on Linux's loopback it never does).
 */
static const char *poll_settled(int fd, short events, short until)
{
	short r, last;
	int i;

	for (i = 0; i < WAIT_MS / 10; i++) {
		r = wait_fd(fd, events, 0);
		if (r & until)
			break;
		poll(NULL, 0, 10);
	}
	if (!(r & until))
		bail("poll: %s within %d ms, waited for %s", POLLMASK(r),
		     WAIT_MS, POLLMASK(until));
	for (i = 0; i < 50; i++) {
		poll(NULL, 0, 10);
		last = r;
		r = wait_fd(fd, events, 0);
		if (r == last)
			break;
	}
	return POLLMASK(r);
}

static int inq(int fd)
{
	int n = -1;

	if (ioctl(fd, FIONREAD, &n) < 0)
		return -1;
	return n;
}

/* Wait until FIONREAD on @fd shows at least @n bytes, or bail. */
static void wait_avail(int fd, int n)
{
	int i;

	for (i = 0; i < WAIT_MS / 10; i++) {
		if (inq(fd) >= n)
			return;
		wait_fd(fd, POLLIN, 10);
		poll(NULL, 0, 1);
	}
	bail("FIONREAD %d, waited for %d", inq(fd), n);
}

/* Read @n bytes of a stream, polling before each read: the text read. */
static const char *read_exact(int fd, size_t n)
{
	char *b = strbuf();
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		wait_in(fd);
		r = read(fd, b + got, n - got);
		if (r < 0)
			bail("read: %s", errname(errno));
		if (!r)
			break;
		got += r;
	}
	b[got] = 0;
	return b;
}

/* ---- the control connection ---- */

static void ctl_send(const char *line)
{
	size_t n = strlen(line), off = 0;
	ssize_t r;

	while (off < n) {
		r = send(ctl_fd, line + off, n - off, MSG_NOSIGNAL);
		if (r <= 0)
			fatal("send: %s", errname(errno));
		off += r;
	}
}

/*
 * One command to the peer and its answer: the text after "ok" (empty if
 * none).  The peer's "err" ends the case.
 */
static char *ctl(const char *fmt, ...)
{
	static char line[512];
	char cmd[256];
	size_t n = 0;
	va_list ap;
	char c;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ctl_send(cmd);
	ctl_send("\n");
	for (;;) {
		if (!(wait_fd(ctl_fd, POLLIN, CTL_MS) & (POLLIN | POLLHUP)))
			fatal("no answer to %s", cmd);
		if (read(ctl_fd, &c, 1) != 1)
			fatal("closed by the peer");
		if (c == '\n')
			break;
		if (n < sizeof(line) - 1)
			line[n++] = c;
	}
	line[n] = 0;
	if (strncmp(line, "ok", 2) || (line[2] && line[2] != ' '))
		bail("peer: %s: %s", cmd, line);
	return line[2] ? line + 3 : line + 2;
}

static int ctl_int(const char *cmd)
{
	return atoi(ctl("%s", cmd));
}

/* ---- sockets ---- */

static struct sockaddr_in addr_port(const struct sockaddr_in *a, int port)
{
	struct sockaddr_in sa = *a;

	sa.sin_port = htons(port);
	return sa;
}

#define SA(p)	((struct sockaddr *)(p))

static int same_addr(const struct sockaddr_in *a, socklen_t len,
		     const struct sockaddr_in *b, int port)
{
	return len == sizeof(*a) && a->sin_family == AF_INET &&
	       a->sin_addr.s_addr == b->sin_addr.s_addr &&
	       (port < 0 || ntohs(a->sin_port) == port);
}

static int sockname_port(int fd)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	if (getsockname(fd, SA(&sa), &len) < 0)
		return -1;
	return ntohs(sa.sin_port);
}

static int getint(int fd, int level, int opt)
{
	socklen_t len = sizeof(int);
	int v = -1;

	if (getsockopt(fd, level, opt, &v, &len) < 0)
		return -errno;
	return v;
}

static int setint(int fd, int level, int opt, int v)
{
	return setsockopt(fd, level, opt, &v, sizeof(v));
}

static const char *so_error(int fd)
{
	int v = getint(fd, SOL_SOCKET, SO_ERROR);

	return v < 0 ? res(-1, -v) : errname(v);
}

static int has_fl(int fd, int flag)
{
	return fcntl(fd, F_GETFL) & flag;
}

static int has_fd(int fd, int flag)
{
	return fcntl(fd, F_GETFD) & flag;
}

static void set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static int xsocket(int type)
{
	int fd = keep(socket(AF_INET, type, 0));

	if (fd < 0)
		bail("socket: %s", errname(errno));
	return fd;
}

/* A TCP listener on LOCAL_ADDR, a port of the stack's choosing. */
static int tcp_listener(int *port)
{
	int fd = xsocket(SOCK_STREAM);

	if (bind(fd, SA(&local_sa), sizeof(local_sa)) < 0)
		bail("bind: %s", errname(errno));
	if (listen(fd, 8) < 0)
		bail("listen: %s", errname(errno));
	*port = sockname_port(fd);
	return fd;
}

/* A connection the peer made to a listener of ours. */
static int accept_pair(void)
{
	int lfd, fd, port;

	lfd = tcp_listener(&port);
	ctl("connect %d", port);
	wait_in(lfd);
	fd = keep(accept(lfd, NULL, NULL));
	if (fd < 0)
		bail("accept: %s", errname(errno));
	closefd(lfd);
	return fd;
}

static int xconnect(int fd, int port)
{
	struct sockaddr_in sa = addr_port(&peer_sa, port);

	return connect(fd, SA(&sa), sizeof(sa));
}

/* A connection we made to a listener of the peer's. */
static int connect_pair(void)
{
	int fd, port;

	port = ctl_int("listen");
	fd = xsocket(SOCK_STREAM);
	if (xconnect(fd, port) < 0)
		bail("connect: %s", errname(errno));
	ctl("accept");
	return fd;
}

/* The peer's stream pattern, byte i = i % 251, from offset 0. */
static void pattern(unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = i % 251;
}

static int is_pattern(const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != i % 251)
			return 0;
	return 1;
}

/* ---- the cases ---- */

/* 1. The data calls on a blocking connection we accepted. */
static void case_echo(void)
{
	struct sockaddr_in sa, sb, sl;
	socklen_t len, lenb;
	char b1[2], b2[3], b3[4], buf[64], name[32];
	static struct iovec many[1025];	/* IOV_MAX is 1024 */
	struct iovec iov[3];
	struct msghdr msg;
	int lfd, fd, port;

	lfd = tcp_listener(&port);
	len = sizeof(sl);
	getsockname(lfd, SA(&sl), &len);
	fact("listener's getsockname == LOCAL_ADDR and the bound port",
	     same_addr(&sl, len, &local_sa, port) && port > 0, 1);
	ctl("connect %d", port);
	wait_in(lfd);
	len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	fd = keep(accept(lfd, SA(&sa), &len));
	if (fd < 0)
		bail("accept: %s", errname(errno));
	fact("accept's address == PEER_ADDR", same_addr(&sa, len, &peer_sa, -1),
	     1);
	lenb = sizeof(sb);
	getpeername(fd, SA(&sb), &lenb);
	fact("getpeername == accept's address and port",
	     same_addr(&sb, lenb, &sa, ntohs(sa.sin_port)), 1);
	lenb = sizeof(sb);
	getsockname(fd, SA(&sb), &lenb);
	fact("accepted socket's getsockname == the listener's",
	     same_addr(&sb, lenb, &local_sa, port), 1);
	closefd(lfd);

	check("write 5", R(write(fd, "hello", 5)), "5");
	check("peer read", ctl("recv 5"), "hello");
	ctl("write world");
	check("read exactly 5 (a loop of reads)", read_exact(fd, 5), "world");

	iov[0] = (struct iovec){ "ab", 2 };
	iov[1] = (struct iovec){ "cde", 3 };
	iov[2] = (struct iovec){ "fghi", 4 };
	check("writev 2+3+4", R(writev(fd, iov, 3)), "9");
	check("peer read", ctl("recv 9"), "abcdefghi");
	ctl("write ABCDEFGHI");
	wait_avail(fd, 9);
	iov[0] = (struct iovec){ b1, sizeof(b1) };
	iov[1] = (struct iovec){ b2, sizeof(b2) };
	iov[2] = (struct iovec){ b3, sizeof(b3) };
	check("readv 2+3+4", R(readv(fd, iov, 3)), "9");
	snprintf(buf, sizeof(buf), "%.2s|%.3s|%.4s", b1, b2, b3);
	check("readv's buffers", buf, "AB|CDE|FGHI");
	check("writev of 0 iovecs", R(writev(fd, iov, 0)), "0");
	check("writev of IOV_MAX + 1 iovecs", R(writev(fd, many, 1025)),
	      "-1 EINVAL");

	check("send 5", R(send(fd, "send1", 5, 0)), "5");
	check("peer read", ctl("recv 5"), "send1");
	ctl("write recv1");
	wait_avail(fd, 5);
	memset(buf, 0, sizeof(buf));
	check("recv", R(recv(fd, buf, sizeof(buf) - 1, 0)), "5");
	check("recv's data", buf, "recv1");

	check("sendto with no address", R(sendto(fd, "sendto", 6, 0, NULL, 0)),
	      "6");
	check("peer read", ctl("recv 6"), "sendto");
	ctl("write rfrom");
	wait_avail(fd, 5);
	memset(buf, 0, sizeof(buf));
	len = sizeof(sa);
	check("recvfrom with an address buffer",
	      R(recvfrom(fd, buf, sizeof(buf) - 1, 0, SA(&sa), &len)), "5");
	check("recvfrom's data", buf, "rfrom");
	check_int("recvfrom's address length on TCP", len, 0);

	iov[0] = (struct iovec){ "send", 4 };
	iov[1] = (struct iovec){ "msg", 3 };
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.msg_iovlen = 2;
	check("sendmsg 4+3", R(sendmsg(fd, &msg, 0)), "7");
	check("peer read", ctl("recv 7"), "sendmsg");
	ctl("write rmsg");
	wait_avail(fd, 4);
	iov[0] = (struct iovec){ b1, sizeof(b1) };
	iov[1] = (struct iovec){ b3, sizeof(b3) };
	memset(&msg, 0, sizeof(msg));
	msg.msg_name = name;
	msg.msg_namelen = sizeof(name);
	msg.msg_iov = iov;
	msg.msg_iovlen = 2;
	msg.msg_flags = -1;
	check("recvmsg into 2+4", R(recvmsg(fd, &msg, 0)), "4");
	snprintf(buf, sizeof(buf), "%.2s|%.2s", b1, b3);
	check("recvmsg's buffers", buf, "rm|sg");
	check_int("recvmsg's msg_namelen on TCP", msg.msg_namelen, 0);
	check("recvmsg's msg_flags", msg.msg_flags ? "not 0" : "0", "0");

	check("close", R(closefd(fd)), "0");
	check("peer reads to the end", ctl("read_eof"), "eof 0");
}

/* 2. accept4's flags, accept on an empty listener, FIONBIO. */
static void case_accept4(void)
{
	int lfd, fd, fd2, port, on = 1, off = 0;
	struct sockaddr_in sa;
	socklen_t len;
	char c;

	lfd = tcp_listener(&port);
	fact("listener O_NONBLOCK", has_fl(lfd, O_NONBLOCK), 0);
	set_nonblock(lfd, 1);
	fact("after F_SETFL O_NONBLOCK", has_fl(lfd, O_NONBLOCK), 1);
	check("accept on an empty nonblocking listener",
	      R(accept(lfd, NULL, NULL)), "-1 EAGAIN");
	check("accept4 on it", R(accept4(lfd, NULL, NULL, SOCK_CLOEXEC)),
	      "-1 EAGAIN");
	check("poll the empty listener", poll_now(lfd, POLLIN | POLLOUT), "0");
	check("accept4 with flags 1", R(accept4(lfd, NULL, NULL, 1)),
	      "-1 EINVAL");

	ctl("connect %d", port);
	check("poll the listener with a connection waiting",
	      poll_settled(lfd, POLLIN | POLLOUT, POLLIN), "POLLIN");
	fd = keep(accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC));
	if (fd < 0)
		bail("accept4: %s", errname(errno));
	fact("accept4(SOCK_NONBLOCK|SOCK_CLOEXEC): O_NONBLOCK",
	     has_fl(fd, O_NONBLOCK), 1);
	fact("accept4(SOCK_NONBLOCK|SOCK_CLOEXEC): FD_CLOEXEC",
	     has_fd(fd, FD_CLOEXEC), 1);
	fact("F_GETFL access mode O_RDWR",
	     (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR, 1);
	check("read on it, nothing sent", R(read(fd, &c, 1)), "-1 EAGAIN");
	check("ioctl FIONBIO 0", R(ioctl(fd, FIONBIO, &off)), "0");
	fact("then O_NONBLOCK", has_fl(fd, O_NONBLOCK), 0);
	check("recv MSG_DONTWAIT", R(recv(fd, &c, 1, MSG_DONTWAIT)),
	      "-1 EAGAIN");
	check("ioctl FIONBIO 1", R(ioctl(fd, FIONBIO, &on)), "0");
	fact("then O_NONBLOCK", has_fl(fd, O_NONBLOCK), 1);
	check("read", R(read(fd, &c, 1)), "-1 EAGAIN");

	ctl("connect %d", port);
	wait_in(lfd);
	len = 4;
	memset(&sa, 0, sizeof(sa));
	fd2 = keep(accept(lfd, SA(&sa), &len));
	if (fd2 < 0)
		bail("accept: %s", errname(errno));
	check_int("accept with addrlen 4: addrlen after", len, sizeof(sa));
	fact("the address cut to 4 bytes", sa.sin_family == AF_INET &&
	     !sa.sin_addr.s_addr, 1);
	fact("accept from a nonblocking listener: O_NONBLOCK",
	     has_fl(fd2, O_NONBLOCK), 0);
	fact("accept: FD_CLOEXEC", has_fd(fd2, FD_CLOEXEC), 0);
	check("F_SETFD FD_CLOEXEC", R(fcntl(fd2, F_SETFD, FD_CLOEXEC)), "0");
	fact("then FD_CLOEXEC", has_fd(fd2, FD_CLOEXEC), 1);

	fd = xsocket(SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC);
	fact("socket(SOCK_NONBLOCK|SOCK_CLOEXEC): O_NONBLOCK",
	     has_fl(fd, O_NONBLOCK), 1);
	fact("socket(SOCK_NONBLOCK|SOCK_CLOEXEC): FD_CLOEXEC",
	     has_fd(fd, FD_CLOEXEC), 1);
}

/* 3. Nonblocking reads, FIONREAD, MSG_PEEK, MSG_WAITALL. */
static void case_nbread(void)
{
	unsigned char buf[256];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fd, i, n;

	fd = connect_pair();
	set_nonblock(fd, 1);
	check("read, nothing sent", R(read(fd, buf, 10)), "-1 EAGAIN");
	check("recv", R(recv(fd, buf, 10, 0)), "-1 EAGAIN");
	check("recvmsg", R(recvmsg(fd, &msg, 0)), "-1 EAGAIN");
	check("recv MSG_PEEK", R(recv(fd, buf, 10, MSG_PEEK)), "-1 EAGAIN");
	set_nonblock(fd, 0);
	check("recv MSG_DONTWAIT on a blocking socket",
	      R(recv(fd, buf, 10, MSG_DONTWAIT)), "-1 EAGAIN");
	check("read 0 bytes", R(read(fd, buf, 0)), "0");
	check("FIONREAD", R(inq(fd)), "0");
	check("poll", poll_now(fd, POLLIN | POLLOUT | POLLRDHUP), "POLLOUT");

	ctl("fill 100");
	wait_in(fd);
	/* all 100 bytes may come in more than one segment */
	for (i = 0; i < WAIT_MS / 10 && (n = inq(fd)) < 100; i++)
		poll(NULL, 0, 10);
	check_int("FIONREAD once the peer sent 100 bytes", n, 100);
	check("poll", poll_now(fd, POLLIN | POLLOUT | POLLRDHUP),
	      "POLLIN|POLLOUT");
	check("recv 10 MSG_PEEK", R(recv(fd, buf, 10, MSG_PEEK)), "10");
	fact("peeked the first 10 bytes", is_pattern(buf, 10), 1);
	check("FIONREAD after the peek", R(inq(fd)), "100");
	check("recv 200 MSG_PEEK", R(recv(fd, buf, 200, MSG_PEEK)), "100");
	check("read 200", R(read(fd, buf, 200)), "100");
	fact("read the 100 bytes from the start", is_pattern(buf, 100), 1);
	check("FIONREAD", R(inq(fd)), "0");
	check("recv MSG_DONTWAIT", R(recv(fd, buf, 10, MSG_DONTWAIT)),
	      "-1 EAGAIN");

	ctl("split abc def 200");
	memset(buf, 0, sizeof(buf));
	check("recv 6 MSG_WAITALL, 3 and 3 bytes 200 ms apart",
	      R(recv(fd, buf, 6, MSG_WAITALL)), "6");
	check("its data", (char *)buf, "abcdef");
}

/* 4. The peer sends data and a FIN; we read it, then write back. */
static void case_fin(void)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	char buf[64];
	int fd, ep;

	fd = accept_pair();
	ctl("write hello");
	ctl("shut");
	check("poll POLLIN|POLLRDHUP after data and FIN",
	      poll_settled(fd, POLLIN | POLLRDHUP, POLLRDHUP),
	      "POLLIN|POLLRDHUP");
	ep = keep(epoll_create1(0));
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	memset(&ev, 0, sizeof(ev));
	check("epoll_wait EPOLLIN|EPOLLRDHUP", R(epoll_wait(ep, &ev, 1, 0)),
	      "1");
	check("its events", EPOLLMASK(ev.events), "EPOLLIN|EPOLLRDHUP");
	check("FIONREAD", R(inq(fd)), "5");
	memset(buf, 0, sizeof(buf));
	check("read", R(read(fd, buf, sizeof(buf))), "5");
	check("its data", buf, "hello");
	check("read at the end", R(read(fd, buf, sizeof(buf))), "0");
	check("read again", R(read(fd, buf, sizeof(buf))), "0");
	check("recv MSG_DONTWAIT", R(recv(fd, buf, 1, MSG_DONTWAIT)), "0");
	check("FIONREAD", R(inq(fd)), "0");
	check("poll at the end", poll_now(fd, POLLIN | POLLOUT | POLLRDHUP),
	      "POLLIN|POLLOUT|POLLRDHUP");
	check("write after the peer's FIN", R(write(fd, "bye", 3)), "3");
	check("peer read", ctl("recv 3"), "bye");
	check("close", R(closefd(fd)), "0");
	check("peer reads to the end", ctl("read_eof"), "eof 0");
}

/* 5. We shut our side down; the peer still sends. */
static void case_halfclose(void)
{
	char buf[8];
	int fd, sp;

	fd = connect_pair();
	check("shutdown SHUT_WR", R(shutdown(fd, SHUT_WR)), "0");
	check("peer reads to the end", ctl("read_eof"), "eof 0");
	check("poll", poll_now(fd, POLLIN | POLLOUT | POLLRDHUP), "POLLOUT");
	ctl("write after");
	check("read what the peer sent after our FIN", read_exact(fd, 5),
	      "after");
	sp = nr_sigpipes();
	check("send MSG_NOSIGNAL after SHUT_WR",
	      with_sigpipe(R(send(fd, "x", 1, MSG_NOSIGNAL)), sp),
	      "-1 EPIPE, no SIGPIPE");
	sp = nr_sigpipes();
	check("write after SHUT_WR", with_sigpipe(R(write(fd, "x", 1)), sp),
	      "-1 EPIPE, SIGPIPE delivered");
	check("shutdown SHUT_WR again", R(shutdown(fd, SHUT_WR)), "0");
	ctl("shut");
	check("poll after both FINs",
	      poll_settled(fd, POLLIN | POLLOUT | POLLRDHUP, POLLRDHUP),
	      "POLLIN|POLLOUT|POLLHUP|POLLRDHUP");
	check("read", R(read(fd, buf, sizeof(buf))), "0");
	check("shutdown SHUT_RDWR after both FINs",
	      R(shutdown(fd, SHUT_RDWR)), "-1 ENOTCONN");
	check("shutdown with how 3", R(shutdown(fd, 3)), "-1 EINVAL");
}

/* Wait for the peer's RST on @fd: the revents once it is in. */
static const char *wait_rst(int fd)
{
	return poll_settled(fd, POLLIN | POLLOUT | POLLRDHUP, POLLERR);
}

#define RST_POLL	"POLLIN|POLLOUT|POLLERR|POLLHUP|POLLRDHUP"
#define CLOSED_POLL	"POLLIN|POLLOUT|POLLHUP|POLLRDHUP"

/* 6. A RST, seen first by a read. */
static void case_rst_read(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	char buf[8];
	int fd, sp, ep;

	fd = accept_pair();
	ep = keep(epoll_create1(0));
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	ctl("rst");
	check("poll after the peer's RST", wait_rst(fd), RST_POLL);
	check("epoll_wait EPOLLIN", R(epoll_wait(ep, &ev, 1, 0)), "1");
	check("its events", EPOLLMASK(ev.events), "EPOLLIN|EPOLLERR|EPOLLHUP");
	check("read", R(read(fd, buf, sizeof(buf))), "-1 ECONNRESET");
	check("read again", R(read(fd, buf, sizeof(buf))), "0");
	check("poll", poll_now(fd, POLLIN | POLLOUT | POLLRDHUP), CLOSED_POLL);
	sp = nr_sigpipes();
	check("send MSG_NOSIGNAL",
	      with_sigpipe(R(send(fd, "x", 1, MSG_NOSIGNAL)), sp),
	      "-1 EPIPE, no SIGPIPE");
	sp = nr_sigpipes();
	check("write", with_sigpipe(R(write(fd, "x", 1)), sp),
	      "-1 EPIPE, SIGPIPE delivered");
	check("SO_ERROR", so_error(fd), "0");
	check("close", R(closefd(fd)), "0");
}

/* A RST, seen first by a write: the error, not EPIPE, and no signal. */
static void case_rst_write(void)
{
	char buf[8];
	int fd, sp;

	fd = accept_pair();
	ctl("rst");
	wait_rst(fd);
	sp = nr_sigpipes();
	check("write after the peer's RST",
	      with_sigpipe(R(write(fd, "x", 1)), sp),
	      "-1 ECONNRESET, no SIGPIPE");
	sp = nr_sigpipes();
	check("write again", with_sigpipe(R(write(fd, "x", 1)), sp),
	      "-1 EPIPE, SIGPIPE delivered");
	check("read", R(read(fd, buf, sizeof(buf))), "0");
}

/* A RST, seen first by SO_ERROR, which clears it. */
static void case_rst_sockopt(void)
{
	char buf[8];
	int fd;

	fd = accept_pair();
	ctl("rst");
	wait_rst(fd);
	check("SO_ERROR after the peer's RST", so_error(fd), "ECONNRESET");
	check("SO_ERROR again", so_error(fd), "0");
	check("poll", poll_now(fd, POLLIN | POLLOUT | POLLRDHUP), CLOSED_POLL);
	check("read", R(read(fd, buf, sizeof(buf))), "0");
}

/* A RST behind data we have not read: the data first. */
static void case_rst_data(void)
{
	char buf[8];
	int fd;

	fd = accept_pair();
	ctl("write abc");
	ctl("rst");
	check("poll after data and RST", wait_rst(fd), RST_POLL);
	memset(buf, 0, sizeof(buf));
	check("read", R(read(fd, buf, sizeof(buf))), "3");
	check("its data", buf, "abc");
	check("read again", R(read(fd, buf, sizeof(buf))), "-1 ECONNRESET");
	check("and again", R(read(fd, buf, sizeof(buf))), "0");
}

/* A RST after the peer's FIN (we are in CLOSE_WAIT): Linux says EPIPE. */
static void case_fin_rst(void)
{
	char buf[8];
	int fd, sp;

	fd = accept_pair();
	ctl("shut");
	poll_settled(fd, POLLIN | POLLRDHUP, POLLRDHUP);
	ctl("rst");
	check("poll after FIN and RST", wait_rst(fd), RST_POLL);
	check("read", R(read(fd, buf, sizeof(buf))), "0");
	check("SO_ERROR", so_error(fd), "EPIPE");
	sp = nr_sigpipes();
	check("write", with_sigpipe(R(write(fd, "x", 1)), sp),
	      "-1 EPIPE, SIGPIPE delivered");
}

/* The peer connects and resets before we accept: accept still gives it. */
static void case_accept_reset(void)
{
	char buf[8];
	int lfd, fd, port;

	lfd = tcp_listener(&port);
	set_nonblock(lfd, 1);
	ctl("connect %d", port);
	ctl("rst");
	wait_in(lfd);
	fd = keep(accept(lfd, NULL, NULL));
	fact("accept gives the reset connection", fd >= 0, 1);
	if (fd < 0)
		return;
	check("poll it", wait_rst(fd), RST_POLL);
	check("read", R(read(fd, buf, sizeof(buf))), "-1 ECONNRESET");
	check("accept again", R(accept(lfd, NULL, NULL)), "-1 EAGAIN");
}

/* 7. Nonblocking connect that succeeds. */
static void case_nbconnect(void)
{
	struct sockaddr_in sa;
	socklen_t len;
	int fd, port;

	port = ctl_int("listen");
	fd = xsocket(SOCK_STREAM | SOCK_NONBLOCK);
	check("connect", R(xconnect(fd, port)), "-1 EINPROGRESS");
	check("poll POLLOUT", poll_settled(fd, POLLOUT, POLLOUT), "POLLOUT");
	check("SO_ERROR", so_error(fd), "0");
	len = sizeof(sa);
	check("getpeername", R(getpeername(fd, SA(&sa), &len)), "0");
	fact("getpeername == PEER_ADDR and the port",
	     same_addr(&sa, len, &peer_sa, port), 1);
	len = sizeof(sa);
	getsockname(fd, SA(&sa), &len);
	fact("getsockname: LOCAL_ADDR and a port",
	     same_addr(&sa, len, &local_sa, -1) && sa.sin_port, 1);
	/* the first call after the handshake completes it: SS_CONNECTED */
	check("connect again", R(xconnect(fd, port)), "0");
	check("and again", R(xconnect(fd, port)), "-1 EISCONN");
	ctl("accept");
	check("write", R(write(fd, "nb", 2)), "2");
	check("peer read", ctl("recv 2"), "nb");
}

/* Nonblocking connect to a port nobody listens on; SO_ERROR says. */
static void case_nbconnect_refused(void)
{
	int fd, port;

	port = ctl_int("refused");
	fd = xsocket(SOCK_STREAM | SOCK_NONBLOCK);
	check("connect", R(xconnect(fd, port)), "-1 EINPROGRESS");
	check("poll POLLOUT", poll_settled(fd, POLLOUT, POLLOUT | POLLERR),
	      "POLLOUT|POLLERR|POLLHUP");
	check("SO_ERROR", so_error(fd), "ECONNREFUSED");
	check("SO_ERROR again", so_error(fd), "0");
	check("connect again", R(xconnect(fd, port)), "-1 ECONNABORTED");
}

/* The same, the result asked for by calling connect() again. */
static void case_nbconnect_recheck(void)
{
	int fd, port;

	port = ctl_int("refused");
	fd = xsocket(SOCK_STREAM | SOCK_NONBLOCK);
	check("connect", R(xconnect(fd, port)), "-1 EINPROGRESS");
	poll_settled(fd, POLLOUT, POLLOUT | POLLERR);
	check("connect again after POLLOUT", R(xconnect(fd, port)),
	      "-1 ECONNREFUSED");
	check("SO_ERROR", so_error(fd), "0");

	port = ctl_int("listen");
	fd = xsocket(SOCK_STREAM | SOCK_NONBLOCK);
	check("connect to a listener", R(xconnect(fd, port)),
	      "-1 EINPROGRESS");
	poll_settled(fd, POLLOUT, POLLOUT);
	check("connect again after POLLOUT", R(xconnect(fd, port)), "0");
	check("and again", R(xconnect(fd, port)), "-1 EISCONN");
}

static void case_connect_refused(void)
{
	int fd, port;

	port = ctl_int("refused");
	fd = xsocket(SOCK_STREAM);
	check("blocking connect", R(xconnect(fd, port)), "-1 ECONNREFUSED");
	check("SO_ERROR", so_error(fd), "0");
}

/* A TCP socket never connected. */
static void case_notconn(void)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	char buf[8];
	int fd, sp;

	fd = xsocket(SOCK_STREAM);
	check("poll", poll_now(fd, POLLIN | POLLOUT | POLLRDHUP),
	      "POLLOUT|POLLHUP");
	check("read", R(read(fd, buf, 1)), "-1 ENOTCONN");
	check("recv", R(recv(fd, buf, 1, 0)), "-1 ENOTCONN");
	sp = nr_sigpipes();
	check("send MSG_NOSIGNAL",
	      with_sigpipe(R(send(fd, "x", 1, MSG_NOSIGNAL)), sp),
	      "-1 EPIPE, no SIGPIPE");
	sp = nr_sigpipes();
	check("write", with_sigpipe(R(write(fd, "x", 1)), sp),
	      "-1 EPIPE, SIGPIPE delivered");
	check("getpeername", R(getpeername(fd, SA(&sa), &len)), "-1 ENOTCONN");
	len = sizeof(sa);
	memset(&sa, 0xff, sizeof(sa));
	check("getsockname", R(getsockname(fd, SA(&sa), &len)), "0");
	fact("it gives 0.0.0.0 port 0", len == sizeof(sa) &&
	     sa.sin_family == AF_INET && !sa.sin_addr.s_addr && !sa.sin_port,
	     1);
	/* inet_shutdown() fails but marks the socket shut down all the same */
	check("shutdown", R(shutdown(fd, SHUT_RDWR)), "-1 ENOTCONN");
	check("poll after it", poll_now(fd, POLLIN | POLLOUT | POLLRDHUP),
	      "POLLIN|POLLOUT|POLLHUP|POLLRDHUP");
	check("read after it", R(read(fd, buf, 1)), "0");
	sa = addr_port(&peer_sa, 9);
	check("connect with a short address length",
	      R(connect(fd, SA(&sa), sizeof(sa) - 1)), "-1 EINVAL");
	sa.sin_family = AF_INET6;
	check("connect with sin_family AF_INET6",
	      R(connect(fd, SA(&sa), sizeof(sa))), "-1 EAFNOSUPPORT");
}

/* 8. A peer that does not read: partial writes, EAGAIN, then POLLOUT. */
static void case_partial(void)
{
	unsigned char *big;
	long total = 0, r, max = 0;
	int fd, i, eagain = 0;
	char want[64];

	big = malloc(BIG + 251);
	if (!big)
		bail("no memory");
	pattern(big, BIG + 251);
	fd = accept_pair();
	set_nonblock(fd, 1);
	r = write(fd, big, BIG);
	fact("a 64 MiB write returns more than 0 and less than 64 MiB",
	     r > 0 && r < BIG, 1);
	if (r > 0)
		total = r;
	for (i = 0; i < 4096; i++) {
		r = write(fd, big + total % 251, CHUNK);
		if (r < 0) {
			eagain = errno == EAGAIN;
			break;
		}
		total += r;
		max = r > max ? r : max;
	}
	fact("the writes end with EAGAIN", eagain, 1);
	fact("bytes were written before it", total > 0, 1);
	snprintf(want, sizeof(want), "%ld good", total);
	fact("the peer reads all that was written, in order",
	     !strcmp(ctl("drain %ld", total), want), 1);
	check("poll POLLOUT", poll_settled(fd, POLLOUT, POLLOUT), "POLLOUT");
	r = write(fd, big + total % 251, CHUNK);
	fact("a write then takes bytes", r > 0, 1);
	if (r > 0)
		total += r;
	snprintf(want, sizeof(want), "%ld good", r);
	fact("and the peer reads them", !strcmp(ctl("drain %ld", r), want),
	     1);
	free(big);
}

/* 9. epoll, level-triggered. */
static void case_epoll_lt(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 42 };
	char buf[16];
	int fd, ep;

	fd = connect_pair();
	set_nonblock(fd, 1);
	ep = keep(epoll_create1(EPOLL_CLOEXEC));
	fact("epoll_create1(EPOLL_CLOEXEC): FD_CLOEXEC", has_fd(ep, FD_CLOEXEC),
	     1);
	check("EPOLL_CTL_ADD EPOLLIN", R(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)),
	      "0");
	check("epoll_wait, nothing sent", R(epoll_wait(ep, &ev, 1, QUIET_MS)),
	      "0");
	ctl("fill 10");
	wait_in(fd);
	memset(&ev, 0, sizeof(ev));
	check("epoll_wait once the peer sent 10 bytes",
	      R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	check("its events", EPOLLMASK(ev.events), "EPOLLIN");
	check_int("its data", ev.data.u64, 42);
	check("epoll_wait again, nothing read",
	      R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	wait_avail(fd, 10);
	check("read 5", R(read(fd, buf, 5)), "5");
	check("epoll_wait, 5 bytes left", R(epoll_wait(ep, &ev, 1, WAIT_MS)),
	      "1");
	check("read", R(read(fd, buf, sizeof(buf))), "5");
	check("epoll_wait, all read", R(epoll_wait(ep, &ev, 1, QUIET_MS)), "0");
}

/* epoll, edge-triggered. */
static void case_epoll_et(void)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	char buf[32];
	int fd, ep;

	fd = connect_pair();
	set_nonblock(fd, 1);
	ep = keep(epoll_create1(0));
	check("EPOLL_CTL_ADD EPOLLIN|EPOLLET",
	      R(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)), "0");
	check("epoll_wait, nothing sent", R(epoll_wait(ep, &ev, 1, QUIET_MS)),
	      "0");
	ctl("write 0123456789");
	wait_avail(fd, 10);
	check("epoll_wait once the peer sent 10 bytes",
	      R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	check("its events", EPOLLMASK(ev.events), "EPOLLIN");
	check("epoll_wait again, nothing read",
	      R(epoll_wait(ep, &ev, 1, QUIET_MS)), "0");
	check("read 5", R(read(fd, buf, 5)), "5");
	check("epoll_wait, 5 bytes left", R(epoll_wait(ep, &ev, 1, QUIET_MS)),
	      "0");
	ctl("write abcde");
	wait_avail(fd, 10);
	check("epoll_wait once the peer sent 5 more",
	      R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	check("read", R(read(fd, buf, sizeof(buf))), "10");
	check("read to EAGAIN", R(read(fd, buf, sizeof(buf))), "-1 EAGAIN");
	check("epoll_wait", R(epoll_wait(ep, &ev, 1, QUIET_MS)), "0");
	ctl("shut");
	poll_settled(fd, POLLIN | POLLRDHUP, POLLRDHUP);
	check("epoll_wait after the peer's FIN",
	      R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	check("its events", EPOLLMASK(ev.events), "EPOLLIN");
	check("epoll_wait again", R(epoll_wait(ep, &ev, 1, QUIET_MS)), "0");
}

/* Both directions and EPOLLRDHUP, edge-triggered (nginx's registration). */
static void case_epoll_et_rdhup(void)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
	};
	int fd, ep;

	fd = accept_pair();
	ep = keep(epoll_create1(0));
	check("EPOLL_CTL_ADD EPOLLIN|EPOLLOUT|EPOLLRDHUP|EPOLLET",
	      R(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)), "0");
	check("epoll_wait", R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	check("its events", EPOLLMASK(ev.events), "EPOLLOUT");
	check("epoll_wait again", R(epoll_wait(ep, &ev, 1, QUIET_MS)), "0");
	ctl("fill 10");
	wait_avail(fd, 10);
	check("epoll_wait once the peer sent", R(epoll_wait(ep, &ev, 1, WAIT_MS)),
	      "1");
	check("its events", EPOLLMASK(ev.events), "EPOLLIN|EPOLLOUT");
	check("epoll_wait again", R(epoll_wait(ep, &ev, 1, QUIET_MS)), "0");
	ctl("shut");
	poll_settled(fd, POLLIN | POLLRDHUP, POLLRDHUP);
	check("epoll_wait after the peer's FIN",
	      R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	check("its events", EPOLLMASK(ev.events),
	      "EPOLLIN|EPOLLOUT|EPOLLRDHUP");
	check("epoll_wait again", R(epoll_wait(ep, &ev, 1, QUIET_MS)), "0");
	ctl("rst");
	wait_rst(fd);
	check("epoll_wait after its RST", R(epoll_wait(ep, &ev, 1, WAIT_MS)),
	      "1");
	check("its events", EPOLLMASK(ev.events),
	      "EPOLLIN|EPOLLOUT|EPOLLERR|EPOLLHUP|EPOLLRDHUP");
}

/* EPOLLONESHOT: once, then nothing until EPOLL_CTL_MOD. */
static void case_epoll_oneshot(void)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT };
	int fd, ep;

	fd = connect_pair();
	ep = keep(epoll_create1(0));
	check("EPOLL_CTL_ADD EPOLLIN|EPOLLONESHOT",
	      R(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)), "0");
	ctl("fill 10");
	wait_avail(fd, 10);
	check("epoll_wait once the peer sent 10 bytes",
	      R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	check("epoll_wait again, nothing read",
	      R(epoll_wait(ep, &ev, 1, QUIET_MS)), "0");
	ctl("fill 10");
	wait_avail(fd, 20);
	check("epoll_wait after more data", R(epoll_wait(ep, &ev, 1, QUIET_MS)),
	      "0");
	ev.events = EPOLLIN | EPOLLONESHOT;
	check("EPOLL_CTL_MOD rearms", R(epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev)),
	      "0");
	check("epoll_wait", R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	check("epoll_wait again", R(epoll_wait(ep, &ev, 1, QUIET_MS)), "0");
}

/* EPOLLOUT on a connected socket, level and edge. */
static void case_epoll_out(void)
{
	struct epoll_event ev = { .events = EPOLLOUT };
	int fd, ep;

	fd = connect_pair();
	ep = keep(epoll_create1(0));
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	check("epoll_wait EPOLLOUT", R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	check("its events", EPOLLMASK(ev.events), "EPOLLOUT");
	check("epoll_wait again", R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	ev.events = EPOLLIN | EPOLLOUT;
	check("EPOLL_CTL_MOD EPOLLIN|EPOLLOUT",
	      R(epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev)), "0");
	ctl("fill 10");
	wait_avail(fd, 10);
	check("epoll_wait, data in", R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	check("its events", EPOLLMASK(ev.events), "EPOLLIN|EPOLLOUT");
	ev.events = EPOLLOUT | EPOLLET;
	check("EPOLL_CTL_MOD EPOLLOUT|EPOLLET",
	      R(epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev)), "0");
	check("epoll_wait", R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	check("its events", EPOLLMASK(ev.events), "EPOLLOUT");
	check("epoll_wait again", R(epoll_wait(ep, &ev, 1, QUIET_MS)), "0");
}

/* epoll_ctl's and epoll_wait's errors. */
static void case_epoll_errors(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd, ep, dir, other;
	sigset_t mask;

	fd = connect_pair();
	other = xsocket(SOCK_STREAM);
	ep = keep(epoll_create1(0));
	check("epoll_create1 with flags 1", R(keep(epoll_create1(1))),
	      "-1 EINVAL");
	check("EPOLL_CTL_ADD", R(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)), "0");
	check("EPOLL_CTL_ADD twice", R(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)),
	      "-1 EEXIST");
	check("EPOLL_CTL_MOD of a socket not in it",
	      R(epoll_ctl(ep, EPOLL_CTL_MOD, other, &ev)), "-1 ENOENT");
	check("EPOLL_CTL_DEL of a socket not in it",
	      R(epoll_ctl(ep, EPOLL_CTL_DEL, other, &ev)), "-1 ENOENT");
	check("EPOLL_CTL_ADD of the epoll itself",
	      R(epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev)), "-1 EINVAL");
	check("EPOLL_CTL_ADD of fd -1", R(epoll_ctl(ep, EPOLL_CTL_ADD, -1, &ev)),
	      "-1 EBADF");
	dir = keep(open("/", O_RDONLY | O_DIRECTORY));
	check("EPOLL_CTL_ADD of a directory",
	      R(epoll_ctl(ep, EPOLL_CTL_ADD, dir, &ev)), "-1 EPERM");
	check("epoll_ctl op 99", R(epoll_ctl(ep, 99, fd, &ev)), "-1 EINVAL");
	check("epoll_ctl on a socket as the epoll",
	      R(epoll_ctl(other, EPOLL_CTL_ADD, fd, &ev)), "-1 EINVAL");
	check("epoll_wait maxevents 0", R(epoll_wait(ep, &ev, 0, 0)),
	      "-1 EINVAL");
	check("epoll_wait on a socket", R(epoll_wait(other, &ev, 1, 0)),
	      "-1 EINVAL");
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	check("epoll_pwait, nothing sent",
	      R(epoll_pwait(ep, &ev, 1, QUIET_MS, &mask)), "0");
	ctl("fill 1");
	check("epoll_pwait once the peer sent a byte",
	      R(epoll_pwait(ep, &ev, 1, WAIT_MS, &mask)), "1");
	check("EPOLL_CTL_DEL", R(epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL)), "0");
	check("epoll_wait after EPOLL_CTL_DEL",
	      R(epoll_wait(ep, &ev, 1, QUIET_MS)), "0");
	check("EPOLL_CTL_ADD again", R(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)),
	      "0");
	check("epoll_wait", R(epoll_wait(ep, &ev, 1, WAIT_MS)), "1");
	check("close the socket", R(closefd(fd)), "0");
	check("epoll_wait after its close", R(epoll_wait(ep, &ev, 1, QUIET_MS)),
	      "0");
	check("EPOLL_CTL_DEL of the closed descriptor",
	      R(epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL)), "-1 EBADF");
}

/* The ready descriptors of an epoll_wait as tags: "sock,pipe,eventfd". */
static const char *ready_set(struct epoll_event *ev, int n)
{
	static const char * const tags[] = { "sock", "pipe", "eventfd" };
	unsigned int bits = 0, i;
	char *b = strbuf();
	int k;

	for (k = 0; k < n; k++)
		bits |= 1U << ev[k].data.u32;
	b[0] = 0;
	for (i = 0; i < ARRAY_SIZE(tags); i++) {
		if (!(bits & (1U << i)))
			continue;
		if (b[0])
			strcat(b, ",");
		strcat(b, tags[i]);
	}
	return b[0] ? b : "none";
}

/* One epoll for a socket, a pipe and an eventfd (libevent's wakeups). */
static void case_epoll_mixed(void)
{
	struct epoll_event ev[8], e = { .events = EPOLLIN };
	uint64_t one = 1, v = 0;
	int fd, ep, efd, p[2], n;
	sigset_t mask;

	fd = connect_pair();
	if (pipe(p) < 0)
		bail("pipe: %s", errname(errno));
	keep(p[0]);
	keep(p[1]);
	efd = keep(eventfd(0, EFD_NONBLOCK));
	ep = keep(epoll_create1(0));
	e.data.u32 = 0;
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
	e.data.u32 = 1;
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &e);
	e.data.u32 = 2;
	epoll_ctl(ep, EPOLL_CTL_ADD, efd, &e);
	check("epoll_wait, nothing ready", R(epoll_wait(ep, ev, 8, QUIET_MS)),
	      "0");
	check("write the eventfd", R(write(efd, &one, 8)), "8");
	n = epoll_wait(ep, ev, 8, WAIT_MS);
	check("epoll_wait", ready_set(ev, n), "eventfd");
	check("read the eventfd", R(read(efd, &v, 8)), "8");
	check_int("its count", v, 1);
	check("epoll_wait", R(epoll_wait(ep, ev, 8, QUIET_MS)), "0");
	ctl("fill 10");
	wait_avail(fd, 10);
	n = epoll_wait(ep, ev, 8, WAIT_MS);
	check("epoll_wait once the peer sent", ready_set(ev, n), "sock");
	check("write the pipe", R(write(p[1], "x", 1)), "1");
	n = epoll_wait(ep, ev, 8, WAIT_MS);
	check("epoll_wait", ready_set(ev, n), "sock,pipe");
	check("write the eventfd", R(write(efd, &one, 8)), "8");
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	n = epoll_pwait(ep, ev, 8, WAIT_MS, &mask);
	check("epoll_pwait after the eventfd too", ready_set(ev, n),
	      "sock,pipe,eventfd");
	n = epoll_wait(ep, ev, 1, WAIT_MS);
	check("epoll_wait with room for one event", R(n), "1");
}

/* 10. poll, ppoll, select, pselect over a socket and a pipe. */
static void case_poll_select(void)
{
	struct timespec ts = { 0, 0 };
	struct timeval tv;
	struct pollfd pf[3];
	fd_set rf, wf;
	int fd, p[2], nfds, closed;
	char buf[16];

	fd = connect_pair();
	if (pipe(p) < 0)
		bail("pipe: %s", errname(errno));
	keep(p[0]);
	keep(p[1]);
	pf[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	check("poll, nothing ready", R(poll(pf, 2, QUIET_MS)), "0");
	nfds = (fd > p[0] ? fd : p[0]) + 1;
	FD_ZERO(&rf);
	FD_SET(fd, &rf);
	FD_SET(p[0], &rf);
	tv = (struct timeval){ 0, QUIET_MS * 1000 };
	check("select, nothing ready", R(select(nfds, &rf, NULL, NULL, &tv)),
	      "0");
	ctl("fill 10");
	wait_avail(fd, 10);
	check("poll once the peer sent", R(poll(pf, 2, WAIT_MS)), "1");
	check("the socket's revents", POLLMASK(pf[0].revents), "POLLIN");
	check("the pipe's revents", POLLMASK(pf[1].revents), "0");
	check("write the pipe", R(write(p[1], "x", 1)), "1");
	check("poll, the pipe written", R(poll(pf, 2, WAIT_MS)), "2");
	check("the pipe's revents", POLLMASK(pf[1].revents), "POLLIN");
	check("ppoll", R(ppoll(pf, 2, &ts, NULL)), "2");
	FD_ZERO(&rf);
	FD_SET(fd, &rf);
	FD_SET(p[0], &rf);
	FD_ZERO(&wf);
	FD_SET(fd, &wf);
	tv = (struct timeval){ 5, 0 };
	check("select: both read, the socket write",
	      R(select(nfds, &rf, &wf, NULL, &tv)), "3");
	fact("the socket in the read set", FD_ISSET(fd, &rf), 1);
	fact("the pipe in the read set", FD_ISSET(p[0], &rf), 1);
	fact("the socket in the write set", FD_ISSET(fd, &wf), 1);
	FD_ZERO(&rf);
	FD_SET(fd, &rf);
	check("pselect", R(pselect(nfds, &rf, NULL, NULL, &ts, NULL)), "1");
	check("read the socket", R(read(fd, buf, sizeof(buf))), "10");
	check("read the pipe", R(read(p[0], buf, 1)), "1");
	FD_ZERO(&rf);
	FD_SET(fd, &rf);
	FD_SET(p[0], &rf);
	tv = (struct timeval){ 0, QUIET_MS * 1000 };
	check("select, all read", R(select(nfds, &rf, NULL, NULL, &tv)), "0");
	fact("a descriptor left in the read set",
	     FD_ISSET(fd, &rf) || FD_ISSET(p[0], &rf), 0);
	pf[2] = (struct pollfd){ .fd = -1, .events = POLLIN };
	check("poll with an fd -1 entry", R(poll(&pf[2], 1, 0)), "0");
	closed = keep(dup(fd));
	closefd(closed);
	pf[2] = (struct pollfd){ .fd = closed, .events = POLLIN };
	check("poll a closed descriptor", R(poll(&pf[2], 1, 0)), "1");
	check("its revents", POLLMASK(pf[2].revents), "POLLNVAL");
	FD_ZERO(&rf);
	FD_SET(closed, &rf);
	tv = (struct timeval){ 0, 0 };
	check("select a closed descriptor",
	      R(select(closed + 1, &rf, NULL, NULL, &tv)), "-1 EBADF");
}

/* 11. Socket options. */
static void case_sockopt(void)
{
	struct linger lg = { 1, 5 };
	struct timeval tv = { 0, 200000 };
	socklen_t len;
	int fd, lfd, port, v, p[2];

	fd = xsocket(SOCK_STREAM);
	fact("SO_TYPE == SOCK_STREAM",
	     getint(fd, SOL_SOCKET, SO_TYPE) == SOCK_STREAM, 1);
	fact("SO_DOMAIN == AF_INET", getint(fd, SOL_SOCKET, SO_DOMAIN) == AF_INET,
	     1);
	fact("SO_PROTOCOL == IPPROTO_TCP",
	     getint(fd, SOL_SOCKET, SO_PROTOCOL) == IPPROTO_TCP, 1);
	check("SO_ERROR", so_error(fd), "0");
	check_int("SO_ACCEPTCONN", getint(fd, SOL_SOCKET, SO_ACCEPTCONN), 0);
	fact("SO_SNDBUF > 0", getint(fd, SOL_SOCKET, SO_SNDBUF) > 0, 1);
	fact("SO_RCVBUF > 0", getint(fd, SOL_SOCKET, SO_RCVBUF) > 0, 1);

	check_int("SO_REUSEADDR", getint(fd, SOL_SOCKET, SO_REUSEADDR), 0);
	check("set SO_REUSEADDR 1", R(setint(fd, SOL_SOCKET, SO_REUSEADDR, 1)),
	      "0");
	check_int("SO_REUSEADDR", getint(fd, SOL_SOCKET, SO_REUSEADDR), 1);
	check("set SO_REUSEPORT 1", R(setint(fd, SOL_SOCKET, SO_REUSEPORT, 1)),
	      "0");
	check_int("SO_REUSEPORT", getint(fd, SOL_SOCKET, SO_REUSEPORT), 1);
	check("set SO_KEEPALIVE 1", R(setint(fd, SOL_SOCKET, SO_KEEPALIVE, 1)),
	      "0");
	check_int("SO_KEEPALIVE", getint(fd, SOL_SOCKET, SO_KEEPALIVE), 1);
	check("set SO_KEEPALIVE 0", R(setint(fd, SOL_SOCKET, SO_KEEPALIVE, 0)),
	      "0");
	check_int("SO_KEEPALIVE", getint(fd, SOL_SOCKET, SO_KEEPALIVE), 0);
	check_int("TCP_NODELAY", getint(fd, IPPROTO_TCP, TCP_NODELAY), 0);
	check("set TCP_NODELAY 1", R(setint(fd, IPPROTO_TCP, TCP_NODELAY, 1)),
	      "0");
	check_int("TCP_NODELAY", getint(fd, IPPROTO_TCP, TCP_NODELAY), 1);
	check("set TCP_KEEPIDLE 30", R(setint(fd, IPPROTO_TCP, TCP_KEEPIDLE, 30)),
	      "0");
	check_int("TCP_KEEPIDLE", getint(fd, IPPROTO_TCP, TCP_KEEPIDLE), 30);
	check("set TCP_KEEPINTVL 5", R(setint(fd, IPPROTO_TCP, TCP_KEEPINTVL, 5)),
	      "0");
	check_int("TCP_KEEPINTVL", getint(fd, IPPROTO_TCP, TCP_KEEPINTVL), 5);
	check("set TCP_KEEPCNT 3", R(setint(fd, IPPROTO_TCP, TCP_KEEPCNT, 3)),
	      "0");
	check_int("TCP_KEEPCNT", getint(fd, IPPROTO_TCP, TCP_KEEPCNT), 3);

	len = sizeof(lg);
	memset(&lg, 0xff, sizeof(lg));
	getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &len);
	fact("SO_LINGER is {0, 0}", len == sizeof(lg) && !lg.l_onoff &&
	     !lg.l_linger, 1);
	lg = (struct linger){ 1, 5 };
	check("set SO_LINGER {1, 5}",
	      R(setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg))), "0");
	memset(&lg, 0, sizeof(lg));
	getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &len);
	fact("SO_LINGER is {1, 5}", len == sizeof(lg) && lg.l_onoff == 1 &&
	     lg.l_linger == 5, 1);

	check("set SO_RCVBUF 16384", R(setint(fd, SOL_SOCKET, SO_RCVBUF, 16384)),
	      "0");
	check_int("SO_RCVBUF (Linux doubles it)",
		  getint(fd, SOL_SOCKET, SO_RCVBUF), 32768);
	check("set SO_SNDBUF 16384", R(setint(fd, SOL_SOCKET, SO_SNDBUF, 16384)),
	      "0");
	check_int("SO_SNDBUF", getint(fd, SOL_SOCKET, SO_SNDBUF), 32768);
	check("set SO_RCVTIMEO 200 ms",
	      R(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))), "0");
	memset(&tv, 0, sizeof(tv));
	len = sizeof(tv);
	getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len);
	fact("SO_RCVTIMEO is 200 ms", len == sizeof(tv) && !tv.tv_sec &&
	     tv.tv_usec == 200000, 1);

	v = -1;
	len = 2;
	check("getsockopt SO_TYPE with optlen 2",
	      R(getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len)), "0");
	check_int("optlen after", len, 2);
	len = -1;
	check("getsockopt SO_TYPE with optlen -1",
	      R(getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len)), "-1 EINVAL");
	len = sizeof(v);
	check("getsockopt SOL_SOCKET option 9999",
	      R(getsockopt(fd, SOL_SOCKET, 9999, &v, &len)), "-1 ENOPROTOOPT");
	check("getsockopt IPPROTO_TCP option 9999",
	      R(getsockopt(fd, IPPROTO_TCP, 9999, &v, &len)), "-1 ENOPROTOOPT");
	check("getsockopt level 9999",
	      R(getsockopt(fd, 9999, 1, &v, &len)), "-1 EOPNOTSUPP");
	check("setsockopt SOL_SOCKET option 9999",
	      R(setint(fd, SOL_SOCKET, 9999, 1)), "-1 ENOPROTOOPT");
	check("setsockopt IPPROTO_TCP option 9999",
	      R(setint(fd, IPPROTO_TCP, 9999, 1)), "-1 ENOPROTOOPT");
	check("setsockopt level 9999", R(setint(fd, 9999, 1, 1)),
	      "-1 ENOPROTOOPT");
	v = 1;
	check("setsockopt SO_REUSEADDR with optlen 2",
	      R(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &v, 2)), "-1 EINVAL");
	check("setsockopt TCP_NODELAY with optlen 2",
	      R(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, 2)), "-1 EINVAL");
	check("getsockopt on fd -1",
	      R(getsockopt(-1, SOL_SOCKET, SO_TYPE, &v, &len)), "-1 EBADF");
	if (pipe(p) < 0)
		bail("pipe: %s", errname(errno));
	keep(p[0]);
	keep(p[1]);
	check("setsockopt on a pipe", R(setint(p[0], SOL_SOCKET, SO_KEEPALIVE, 1)),
	      "-1 ENOTSOCK");

	lfd = tcp_listener(&port);
	check_int("SO_ACCEPTCONN of a listener",
		  getint(lfd, SOL_SOCKET, SO_ACCEPTCONN), 1);
}

/* A receive timeout: the blocking read ends with EAGAIN. */
static void case_rcvtimeo(void)
{
	struct timeval tv = { 0, 200000 };
	char buf[8];
	int fd;

	fd = connect_pair();
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	check("blocking read with SO_RCVTIMEO 200 ms, nothing sent",
	      R(read(fd, buf, sizeof(buf))), "-1 EAGAIN");
	ctl("write ok");
	check("then a read of what the peer sent", read_exact(fd, 2), "ok");
}

/* 12. Names and binding. */
static void case_bind(void)
{
	struct sockaddr_in sa;
	socklen_t len;
	int a, b, c, port;
	char ch;

	a = xsocket(SOCK_STREAM);
	check("bind LOCAL_ADDR port 0", R(bind(a, SA(&local_sa),
					       sizeof(local_sa))), "0");
	len = sizeof(sa);
	getsockname(a, SA(&sa), &len);
	port = ntohs(sa.sin_port);
	fact("getsockname: LOCAL_ADDR and a port",
	     same_addr(&sa, len, &local_sa, -1) && port, 1);
	len = 4;
	check("getsockname with addrlen 4", R(getsockname(a, SA(&sa), &len)),
	      "0");
	check_int("addrlen after", len, sizeof(sa));
	check("bind again", R(bind(a, SA(&local_sa), sizeof(local_sa))),
	      "-1 EINVAL");
	check("accept on a socket not listening", R(accept(a, NULL, NULL)),
	      "-1 EINVAL");
	check("listen", R(listen(a, 8)), "0");
	check("listen again", R(listen(a, 16)), "0");
	sa = addr_port(&local_sa, port);
	b = xsocket(SOCK_STREAM);
	check("bind to the listener's port", R(bind(b, SA(&sa), sizeof(sa))),
	      "-1 EADDRINUSE");
	setint(b, SOL_SOCKET, SO_REUSEADDR, 1);
	check("with SO_REUSEADDR", R(bind(b, SA(&sa), sizeof(sa))),
	      "-1 EADDRINUSE");
	check("read on the listener", R(read(a, &ch, 1)), "-1 ENOTCONN");
	check("connect on the listener", R(xconnect(a, 9)), "-1 EISCONN");
	len = sizeof(sa);
	check("getpeername of the listener", R(getpeername(a, SA(&sa), &len)),
	      "-1 ENOTCONN");
	check("close the listener", R(closefd(a)), "0");
	sa = addr_port(&local_sa, port);
	c = xsocket(SOCK_STREAM);
	check("bind to its port now", R(bind(c, SA(&sa), sizeof(sa))), "0");
	fact("getsockname gives that port", sockname_port(c) == port, 1);
	check("bind with a short address length",
	      R(bind(b, SA(&sa), sizeof(sa) - 1)), "-1 EINVAL");
	sa.sin_family = AF_INET6;
	check("bind with sin_family AF_INET6", R(bind(b, SA(&sa), sizeof(sa))),
	      "-1 EAFNOSUPPORT");

	a = xsocket(SOCK_STREAM);
	b = xsocket(SOCK_STREAM);
	setint(a, SOL_SOCKET, SO_REUSEPORT, 1);
	setint(b, SOL_SOCKET, SO_REUSEPORT, 1);
	check("bind with SO_REUSEPORT",
	      R(bind(a, SA(&local_sa), sizeof(local_sa))), "0");
	sa = addr_port(&local_sa, sockname_port(a));
	check("listen", R(listen(a, 8)), "0");
	check("a second socket with SO_REUSEPORT, the same port",
	      R(bind(b, SA(&sa), sizeof(sa))), "0");
	check("listen", R(listen(b, 8)), "0");
}

/* 13. dup, dup2, dup3: the connection lasts until the last descriptor. */
static void case_dup(void)
{
	int fd, d, t, t2, d4;

	fd = accept_pair();
	d = keep(dup(fd));
	check("write on a dup", R(write(d, "abc", 3)), "3");
	check("peer read", ctl("recv 3"), "abc");
	ctl("write xyz");
	check("read on the original", read_exact(fd, 3), "xyz");
	check("close the original", R(closefd(fd)), "0");
	check("the peer's side", ctl("check_open"), "open");

	t = keep(dup(d));	/* a free descriptor number */
	closefd(t);
	check("dup2 to a free number", R(dup2(d, t) == t ? 0 : -1), "0");
	keep(t);
	t2 = keep(dup(d));
	closefd(t2);
	check("dup3 O_CLOEXEC to a free number",
	      R(dup3(d, t2, O_CLOEXEC) == t2 ? 0 : -1), "0");
	keep(t2);
	fact("dup3's copy FD_CLOEXEC", has_fd(t2, FD_CLOEXEC), 1);
	fact("the original's FD_CLOEXEC", has_fd(d, FD_CLOEXEC), 0);
	check("dup3 to itself", R(dup3(d, d, 0)), "-1 EINVAL");
	fact("dup2 to itself returns it", dup2(d, d) == d, 1);
	d4 = keep(fcntl(d, F_DUPFD_CLOEXEC, 0));
	fact("F_DUPFD_CLOEXEC: FD_CLOEXEC", d4 >= 0 && has_fd(d4, FD_CLOEXEC),
	     1);
	closefd(d);
	closefd(t);
	closefd(d4);
	check("the peer's side, one descriptor left", ctl("check_open"),
	      "open");
	ctl("write q");
	check("read on the last one", read_exact(t2, 1), "q");
	check("close the last one", R(closefd(t2)), "0");
	check("the peer reads to the end", ctl("read_eof"), "eof 0");
}

/* sendfile() from a file to a connection, with and without an offset. */
static void case_sendfile(void)
{
	char path[] = "/tmp/sockcheck.XXXXXX";
	unsigned char buf[4 * 251];	/* the stream pattern goes on across */
	off_t off = 0;
	int fd, f;

	f = keep(mkstemp(path));
	if (f < 0)
		bail("mkstemp: %s", errname(errno));
	unlink(path);
	pattern(buf, sizeof(buf));
	if (write(f, buf, sizeof(buf)) != sizeof(buf))
		bail("write %s: %s", path, errname(errno));
	lseek(f, 0, SEEK_SET);
	fd = accept_pair();
	check("sendfile 1004 bytes from offset 0",
	      R(sendfile(fd, f, &off, sizeof(buf))), "1004");
	check_int("the offset after", off, 1004);
	check("the file position (not moved)", R(lseek(f, 0, SEEK_CUR)), "0");
	check("sendfile 2000 bytes, no offset", R(sendfile(fd, f, NULL, 2000)),
	      "1004");
	check("the file position", R(lseek(f, 0, SEEK_CUR)), "1004");
	check("sendfile at the end of the file", R(sendfile(fd, f, NULL, 10)),
	      "0");
	check("the peer reads", ctl("drain 2008"), "2008 good");
}

/* 14. Closing with unread data sends a RST. */
static void case_close_unread(void)
{
	int fd;

	fd = accept_pair();
	ctl("write abc");
	wait_avail(fd, 3);
	check("close with 3 bytes unread", R(closefd(fd)), "0");
	check("the peer reads to the end", ctl("read_eof"), "reset 0");
}

/* SO_LINGER {1, 0}: close sends a RST. */
static void case_close_linger0(void)
{
	struct linger lg = { 1, 0 };
	int fd;

	fd = connect_pair();
	check("set SO_LINGER {1, 0}",
	      R(setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg))), "0");
	check("close", R(closefd(fd)), "0");
	check("the peer reads to the end", ctl("read_eof"), "reset 0");
}

/* 15. UDP. */
static int udp_socket(int *port)
{
	int fd = xsocket(SOCK_DGRAM);

	if (bind(fd, SA(&local_sa), sizeof(local_sa)) < 0)
		bail("bind: %s", errname(errno));
	*port = sockname_port(fd);
	return fd;
}

/* Datagrams from the peer, and one back. */
static void case_udp(void)
{
	static const int sizes[] = { 0, 1, 1000, 1472 };
	unsigned char buf[2048];
	struct sockaddr_in sa;
	socklen_t len;
	char what[64], *r;
	int fd, port, pport, src;
	unsigned int i;

	fd = udp_socket(&port);
	fact("SO_TYPE == SOCK_DGRAM",
	     getint(fd, SOL_SOCKET, SO_TYPE) == SOCK_DGRAM, 1);
	pport = atoi(ctl("udp_send %d 0 1 1000 1472", port));
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		wait_in(fd);
		len = sizeof(sa);
		memset(&sa, 0, sizeof(sa));
		snprintf(what, sizeof(what), "recvfrom, datagram %u", i + 1);
		check(what, R(recvfrom(fd, buf, sizeof(buf), 0, SA(&sa), &len)),
		      res(sizes[i], 0));
		fact("its data", is_pattern(buf, sizes[i]), 1);
		fact("its source == the peer's address and port",
		     same_addr(&sa, len, &peer_sa, pport), 1);
	}
	sa = addr_port(&peer_sa, pport);
	check("sendto the peer",
	      R(sendto(fd, "hello", 5, 0, SA(&sa), sizeof(sa))), "5");
	r = ctl("udp_recv");
	snprintf(what, sizeof(what), "5 %d hello", port);
	fact("the peer gets it from our port", !strcmp(r, what), 1);
	check("sendto with a short address length",
	      R(sendto(fd, "x", 1, 0, SA(&sa), sizeof(sa) - 1)), "-1 EINVAL");
	src = sockname_port(fd);
	fact("getsockname still the bound port", src == port, 1);
}

/* MSG_TRUNC, MSG_PEEK and FIONREAD on datagrams. */
static void case_udp_trunc(void)
{
	unsigned char buf[2048];
	struct iovec iov = { buf, 100 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fd, port;

	fd = udp_socket(&port);
	set_nonblock(fd, 1);
	check("recvfrom, nothing sent", R(recvfrom(fd, buf, 10, 0, NULL, NULL)),
	      "-1 EAGAIN");
	ctl("udp_send %d 1000 1000 300 200", port);
	wait_in(fd);
	check("FIONREAD (the first datagram)", R(inq(fd)), "1000");
	check("recvmsg 100 bytes MSG_TRUNC", R(recvmsg(fd, &msg, MSG_TRUNC)),
	      "1000");
	fact("msg_flags MSG_TRUNC", msg.msg_flags & MSG_TRUNC, 1);
	fact("its data", is_pattern(buf, 100), 1);
	wait_in(fd);
	msg.msg_flags = 0;
	check("recvmsg 100 bytes", R(recvmsg(fd, &msg, 0)), "100");
	fact("msg_flags MSG_TRUNC", msg.msg_flags & MSG_TRUNC, 1);
	wait_in(fd);
	check("recv 1000 MSG_PEEK", R(recv(fd, buf, 1000, MSG_PEEK)), "300");
	check("recv 1000", R(recv(fd, buf, 1000, 0)), "300");
	wait_in(fd);
	check("read 50 of 200", R(read(fd, buf, 50)), "50");
	check("recv (the rest was dropped)", R(recv(fd, buf, 1000, 0)),
	      "-1 EAGAIN");
}

/* connect() on UDP: a default destination and a filter on sources. */
static void case_udp_connected(void)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	char buf[64], want[64];
	int fd, port, pport;

	fd = udp_socket(&port);
	pport = ctl_int("udp_port");
	check("connect", R(xconnect(fd, pport)), "0");
	check("getpeername", R(getpeername(fd, SA(&sa), &len)), "0");
	fact("it is the peer's address and port",
	     same_addr(&sa, len, &peer_sa, pport), 1);
	check("send", R(send(fd, "hi", 2, 0)), "2");
	snprintf(want, sizeof(want), "2 %d hi", port);
	fact("the peer gets it from our port", !strcmp(ctl("udp_recv"), want),
	     1);
	ctl("udp_other %d 10", port);
	ctl("udp_reply back");
	wait_in(fd);
	memset(buf, 0, sizeof(buf));
	check("recv: the peer's reply, not the other port's datagram",
	      R(recv(fd, buf, sizeof(buf), 0)), "4");
	check("its data", buf, "back");
	check("recv MSG_DONTWAIT", R(recv(fd, buf, sizeof(buf), MSG_DONTWAIT)),
	      "-1 EAGAIN");
	check("write", R(write(fd, "w", 1)), "1");
	snprintf(want, sizeof(want), "1 %d w", port);
	fact("the peer gets it", !strcmp(ctl("udp_recv"), want), 1);
	sa.sin_family = AF_UNSPEC;
	check("connect AF_UNSPEC", R(connect(fd, SA(&sa), sizeof(sa))), "0");
	check("send, no destination", R(send(fd, "x", 1, 0)),
	      "-1 EDESTADDRREQ");
}

/* UDP's errors. */
static void case_udp_errors(void)
{
	static char big[65508];
	struct sockaddr_in sa;
	int fd, port, pport;

	fd = udp_socket(&port);
	pport = ctl_int("udp_port");
	sa = addr_port(&peer_sa, pport);
	check("send on an unconnected socket", R(send(fd, "x", 1, 0)),
	      "-1 EDESTADDRREQ");
	check("sendto 65508 bytes",
	      R(sendto(fd, big, sizeof(big), 0, SA(&sa), sizeof(sa))),
	      "-1 EMSGSIZE");
}

/* The largest datagram: Linux fragments it (ixmod does not: its own case) */
static void case_udp_big(void)
{
	static char big[65507];
	struct sockaddr_in sa;
	int fd, port, pport;

	fd = udp_socket(&port);
	pport = ctl_int("udp_port");
	sa = addr_port(&peer_sa, pport);
	check("sendto 65507 bytes",
	      R(sendto(fd, big, sizeof(big), 0, SA(&sa), sizeof(sa))),
	      "65507");
	fact("the peer gets 65507 bytes", atoi(ctl("udp_recv")) == 65507, 1);
}

/* A connected UDP socket learns of an ICMP port unreachable. */
static void case_udp_refused(void)
{
	char buf[8];
	int fd, port;

	fd = udp_socket(&port);
	port = ctl_int("udp_closed");
	check("connect to a closed port", R(xconnect(fd, port)), "0");
	check("send", R(send(fd, "x", 1, 0)), "1");
	check("poll POLLIN", poll_settled(fd, POLLIN, POLLERR), "POLLERR");
	check("recv", R(recv(fd, buf, sizeof(buf), 0)), "-1 ECONNREFUSED");
	check("recv MSG_DONTWAIT", R(recv(fd, buf, sizeof(buf), MSG_DONTWAIT)),
	      "-1 EAGAIN");
}

struct tcase {
	const char *name;
	void (*run)(void);
};

static const struct tcase cases[] = {
	{ "echo", case_echo },
	{ "accept4", case_accept4 },
	{ "nbread", case_nbread },
	{ "fin", case_fin },
	{ "halfclose", case_halfclose },
	{ "rst_read", case_rst_read },
	{ "rst_write", case_rst_write },
	{ "rst_sockopt", case_rst_sockopt },
	{ "rst_data", case_rst_data },
	{ "accept_reset", case_accept_reset },
	{ "fin_rst", case_fin_rst },
	{ "nbconnect", case_nbconnect },
	{ "nbconnect_refused", case_nbconnect_refused },
	{ "nbconnect_recheck", case_nbconnect_recheck },
	{ "connect_refused", case_connect_refused },
	{ "notconn", case_notconn },
	{ "partial", case_partial },
	{ "epoll_lt", case_epoll_lt },
	{ "epoll_et", case_epoll_et },
	{ "epoll_et_rdhup", case_epoll_et_rdhup },
	{ "epoll_oneshot", case_epoll_oneshot },
	{ "epoll_out", case_epoll_out },
	{ "epoll_errors", case_epoll_errors },
	{ "epoll_mixed", case_epoll_mixed },
	{ "poll_select", case_poll_select },
	{ "sockopt", case_sockopt },
	{ "rcvtimeo", case_rcvtimeo },
	{ "bind", case_bind },
	{ "dup", case_dup },
	{ "sendfile", case_sendfile },
	{ "close_unread", case_close_unread },
	{ "close_linger0", case_close_linger0 },
	{ "udp", case_udp },
	{ "udp_trunc", case_udp_trunc },
	{ "udp_connected", case_udp_connected },
	{ "udp_errors", case_udp_errors },
	{ "udp_big", case_udp_big },
	{ "udp_refused", case_udp_refused },
};

static void run(const struct tcase *c)
{
	cur = c->name;
	ctl("case %s", c->name);
	alarm(CASE_SECONDS);
	if (!setjmp(bail_jmp))
		c->run();
	alarm(0);
	close_all();
}

static void bad_args(void)
{
	fprintf(stderr,
		"usage: sockcheck LOCAL_ADDR PEER_ADDR CTL_PORT [CASE...]\n"
		"       sockcheck --list\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigpipe };
	unsigned int i;
	int a;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			puts(cases[i].name);
		return 0;
	}
	if (argc < 4)
		bad_args();
	local_str = argv[1];
	local_sa.sin_family = AF_INET;
	peer_sa.sin_family = AF_INET;
	if (inet_pton(AF_INET, argv[1], &local_sa.sin_addr) != 1 ||
	    inet_pton(AF_INET, argv[2], &peer_sa.sin_addr) != 1 ||
	    atoi(argv[3]) <= 0)
		bad_args();
	for (a = 4; a < argc; a++) {
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			if (!strcmp(argv[a], cases[i].name))
				break;
		if (i == ARRAY_SIZE(cases)) {
			fprintf(stderr, "sockcheck: no case %s\n", argv[a]);
			bad_args();
		}
	}
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);

	alarm(CASE_SECONDS);
	ctl_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (ctl_fd < 0 || xconnect(ctl_fd, atoi(argv[3])) < 0)
		fatal("connect: %s", errname(errno));
	alarm(0);
	ctl("hello %s", local_str);

	if (argc == 4) {
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			run(&cases[i]);
	} else {
		for (a = 4; a < argc; a++)
			for (i = 0; i < ARRAY_SIZE(cases); i++)
				if (!strcmp(argv[a], cases[i].name))
					run(&cases[i]);
	}
	close(ctl_fd);
	return failed;
}
