// SPDX-License-Identifier: MIT
/*
 * px_main.c - libixu-posix: libc's functions, configuration, the
 * contexts, the fd table, and waiting
 *
 * Configuration, read once from the environment:
 *   IXU_POSIX_SOCKETS   addr (default): TCP sockets bound to one of the
 *                       up ports' IPv4 addresses, or connecting into a
 *                       port's subnet, go to ixmod; all: every AF_INET
 *                       TCP socket; off: none
 *   IXU_POSIX_CORES     the dataplane cores to attach (a cpulist;
 *                       default: every core of /sys/kernel/ixmod/cores)
 *   IXU_POSIX_SNDBUF    bytes a connection may hold unacknowledged
 *                       (ixev_params.sndbuf; default 256 KiB)
 *   IXU_POSIX_DEBUG     1: one line on stderr per routing decision
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/eventfd.h>

#include "px.h"

struct px_libc px_libc;
struct px_global px = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.placeholder = -1,
};

static __thread struct px_waiter *px_self;

#define LIBC(name)	(*(void **)&px_libc.name = dlsym(RTLD_NEXT, #name))

static pthread_once_t libc_once = PTHREAD_ONCE_INIT;

static void read_config(void);

/*
 * A child of fork() has the parent's rings mapped but is not the process
 * that owns the port: its copies of ixmod sockets are left to be what
 * their fds are, unbound Linux sockets (reads give ENOTCONN), and close()
 * closes only its fd.  Documentation/userspace-api/libixu-posix.rst.
 */
static void fork_child(void)
{
	px.forked = true;
	pthread_mutex_init(&px.lock, NULL);
}

static void libc_resolve(void)
{
	LIBC(socket); LIBC(bind); LIBC(listen); LIBC(accept4); LIBC(connect);
	LIBC(read); LIBC(write); LIBC(readv); LIBC(writev);
	LIBC(recvfrom); LIBC(sendto); LIBC(recvmsg); LIBC(sendmsg);
	LIBC(shutdown); LIBC(sendfile); LIBC(close); LIBC(dup); LIBC(dup2); LIBC(dup3);
	LIBC(fcntl); LIBC(ioctl); LIBC(setsockopt); LIBC(getsockopt);
	LIBC(getsockname); LIBC(getpeername);
	LIBC(poll); LIBC(ppoll); LIBC(select); LIBC(pselect);
	LIBC(epoll_create); LIBC(epoll_create1); LIBC(epoll_ctl);
	LIBC(epoll_wait); LIBC(epoll_pwait);
	read_config();
	pthread_atfork(px_lock, px_unlock, fork_child);
}

void px_init_libc(void)
{
	pthread_once(&libc_once, libc_resolve);
}

__attribute__((constructor)) static void px_ctor(void)
{
	px_init_libc();
}

void px_debug(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	if (!px.debug)
		return;
	n = snprintf(buf, sizeof(buf), "libixu-posix[%d]: ", getpid());
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (px_libc.write(2, buf, n) < 0)
		return;		/* stderr is gone: nothing to tell */
}

/* ---- configuration: the ports' addresses ---- */

static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = px_libc.read(fd, buf, size - 1);
	px_libc.close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

/* Every up port's "A.B.C.D/N" (ports/NAME/ipv4 and up) */
void px_read_ports(void)
{
	DIR *d = opendir("/sys/kernel/ixmod/ports");
	struct dirent *de;

	px.naddrs = 0;
	if (!d)
		return;
	while ((de = readdir(d)) && px.naddrs < PX_MAX_ADDRS) {
		char path[512], buf[64], *slash;
		struct in_addr a;
		int bits;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/ixmod/ports/%s/up", de->d_name);
		if (read_small(path, buf, sizeof(buf)) || buf[0] != '1')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/ixmod/ports/%s/ipv4", de->d_name);
		if (read_small(path, buf, sizeof(buf)))
			continue;
		slash = strchr(buf, '/');
		if (!slash)
			continue;
		*slash = 0;
		bits = atoi(slash + 1);
		if (inet_pton(AF_INET, buf, &a) != 1 || bits < 1 || bits > 32)
			continue;
		px.addrs[px.naddrs] = a;
		px.masks[px.naddrs].s_addr = htonl(bits == 32 ? ~0U : ~((1U << (32 - bits)) - 1));
		px.naddrs++;
	}
	closedir(d);
}

static void read_config(void)
{
	const char *v = getenv("IXU_POSIX_SOCKETS");

	px.route = PX_ROUTE_ADDR;
	if (v && !strcmp(v, "all"))
		px.route = PX_ROUTE_ALL;
	else if (v && !strcmp(v, "off"))
		px.route = PX_ROUTE_OFF;
	v = getenv("IXU_POSIX_DEBUG");
	px.debug = v && *v == '1';
	v = getenv("IXU_POSIX_SNDBUF");
	px.sndbuf = v ? (unsigned int)strtoul(v, NULL, 0) : 0;
	if (px.route != PX_ROUTE_OFF)
		px_read_ports();
}

bool px_is_port_addr(struct in_addr a)
{
	unsigned int i;

	for (i = 0; i < px.naddrs; i++)
		if (px.addrs[i].s_addr == a.s_addr)
			return true;
	return false;
}

bool px_in_port_subnet(struct in_addr a)
{
	unsigned int i;

	for (i = 0; i < px.naddrs; i++)
		if ((px.addrs[i].s_addr & px.masks[i].s_addr) ==
		    (a.s_addr & px.masks[i].s_addr))
			return true;
	return false;
}

/* ---- the contexts ---- */

static void px_rx_hook(struct ixev_conn *c)
{
	struct px_sock *s = ixev_data(c);

	if (s)
		px_changed(s);
}

/*
 * The contexts, one per dataplane core, created on the first socket the
 * layer routes to ixmod.  Called with the lock held; the result stays
 * (a failure is not retried: the process reports it on every socket).
 */
int px_ensure_contexts(void)
{
	unsigned int cpus[PX_MAX_CORES];
	struct ixev_params p = { .mode = IXU_MODE_THREAD };
	int n, i, ret;

	if (px.inited)
		return px.init_err;
	px.inited = true;
	p.sndbuf = px.sndbuf;
	n = ixu_cpulist_parse(getenv("IXU_POSIX_CORES"), cpus, PX_MAX_CORES);
	if (n <= 0) {
		px.init_err = n ? n : -ENETDOWN;
		fprintf(stderr, "libixu-posix: no dataplane core (%s): load ixmod and assign cores\n",
			strerror(-px.init_err));
		return px.init_err;
	}
	for (i = 0; i < n; i++) {
		struct px_core *core = &px.cores[px.ncores];

		ret = ixev_create(&core->ev, cpus[i], &p);
		if (ret) {
			fprintf(stderr, "libixu-posix: cannot attach to dataplane core %u: %s\n",
				cpus[i], strerror(-ret));
			goto fail;
		}
		core->cpu = cpus[i];
		core->ev->rx_hook = px_rx_hook;
		px.ncores++;
	}
	px.placeholder = px_libc.socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (px.placeholder < 0) {
		ret = -errno;
		goto fail;
	}
	px_debug("attached %u cores", px.ncores);
	return 0;
fail:
	/* nothing stays attached: the port is not the process's */
	while (px.ncores)
		ixev_destroy(px.cores[--px.ncores].ev);
	px.init_err = ret;
	return ret;
}

/* An fd for a new socket: the placeholder dup'd (@flags: SOCK_CLOEXEC) */
int px_placeholder(int flags)
{
	return px_libc.fcntl(px.placeholder, flags & SOCK_CLOEXEC ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
}

/*
 * A context lost its port (IXMOD_RING_DEAD: the port went down or away):
 * every ixmod socket now reports an error (ENETDOWN) and is ready, and
 * nobody waits on the contexts' files any more (they poll as EPOLLERR).
 */
static void contexts_dead(void)
{
	struct px_ep *ep;
	unsigned int i;

	if (px.dead)
		return;
	px.dead = true;
	fprintf(stderr, "libixu-posix: ixmod's port went down: its sockets fail with ENETDOWN\n");
	for (ep = px.eps; ep; ep = ep->next_all) {
		__u64 one = 1;
		struct px_epi *epi;

		for (i = 0; i < px.ncores; i++)
			px_libc.epoll_ctl(ep->epfd, EPOLL_CTL_DEL, ixev_fd(px.cores[i].ev), NULL);
		for (epi = ep->epis; epi; epi = epi->enext)
			px_epi_ready(epi);
		if (ep->efd >= 0 && px_libc.write(ep->efd, &one, sizeof(one)) < 0)
			continue;	/* full: readable anyway */
	}
	px_wake_all();
}

void px_pump_core(struct px_core *core)
{
	if (ixev_dispatch(core->ev) == -ENETDOWN)
		contexts_dead();
}

/* Run every context's events and flush every context's calls. */
void px_pump(void)
{
	unsigned int i;

	for (i = 0; i < px.ncores; i++)
		px_pump_core(&px.cores[i]);
}

/* ---- the fd table: two levels of 1024, filled as fds appear ---- */

#define FD_L2		1024
#define FD_L1		1024

static struct px_file **fd_table[FD_L1];

struct px_file *px_file_get(int fd)
{
	struct px_file **t;

	if (fd < 0 || fd >= FD_L1 * FD_L2 || px.forked)
		return NULL;
	t = __atomic_load_n(&fd_table[fd / FD_L2], __ATOMIC_ACQUIRE);
	return t ? __atomic_load_n(&t[fd % FD_L2], __ATOMIC_ACQUIRE) : NULL;
}

/* Called with the lock held. */
int px_file_set(int fd, struct px_file *f)
{
	struct px_file **t;

	if (fd < 0 || fd >= FD_L1 * FD_L2)
		return -EMFILE;
	t = fd_table[fd / FD_L2];
	if (!t) {
		t = calloc(FD_L2, sizeof(*t));
		if (!t)
			return -ENOMEM;
		__atomic_store_n(&fd_table[fd / FD_L2], t, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&t[fd % FD_L2], f, __ATOMIC_RELEASE);
	return 0;
}

void px_file_clear(int fd)
{
	struct px_file **t;

	if (fd < 0 || fd >= FD_L1 * FD_L2)
		return;
	t = fd_table[fd / FD_L2];
	if (t)
		__atomic_store_n(&t[fd % FD_L2], NULL, __ATOMIC_RELEASE);
}

/* ---- waiting ---- */

/* errno from a negative error; returns -1 (or @err when not negative) */
int px_ret(int err)
{
	if (err >= 0)
		return err;
	errno = -err;
	return -1;
}

long long px_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static struct px_waiter *self_waiter(void)
{
	struct px_waiter *w = px_self;

	if (w)
		return w;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->efd < 0) {
		free(w);
		return NULL;
	}
	/* threads' waiters are kept for the process's life (a few bytes each) */
	w->next = px.waiters;
	px.waiters = w;
	px_self = w;
	return w;
}

/* Wake every thread sleeping in px_sleep().  Called with the lock held. */
void px_wake_all(void)
{
	struct px_waiter *w;
	__u64 one = 1;

	if (!px.sleepers)
		return;
	for (w = px.waiters; w; w = w->next)
		if (w->sleeping && px_libc.write(w->efd, &one, sizeof(one)) < 0)
			continue;	/* EAGAIN: the counter is full, it wakes anyway */
}

/*
 * Sleep until a socket changed (px_changed() -> px_wake_all()), a context
 * has events, one of @extra (Linux fds) is ready, or @timeout_ms passed.
 * Called with the lock held, which it releases while asleep.  Returns 0,
 * or -EINTR, -ENOMEM.  The caller asks @extra again, without waiting.
 */
int px_sleep(int timeout_ms, const struct pollfd *extra, unsigned int nextra)
{
	struct pollfd fds[PX_MAX_CORES + 1 + 64], *pf = fds;
	struct pollfd *big = NULL;
	struct px_waiter *w = self_waiter();
	unsigned int i, n = 0;
	int ret, err = 0;
	__u64 v;

	if (!w)
		return -ENOMEM;
	if (nextra > 64) {
		big = malloc((px.ncores + 1 + nextra) * sizeof(*big));
		if (!big)
			return -ENOMEM;
		pf = big;
	}
	pf[n++] = (struct pollfd){ .fd = w->efd, .events = POLLIN };
	for (i = 0; i < px.ncores && !px.dead; i++)
		pf[n++] = (struct pollfd){ .fd = ixev_fd(px.cores[i].ev), .events = POLLIN };
	for (i = 0; i < nextra; i++)
		pf[n + i] = extra[i];
	w->sleeping = true;
	px.sleepers++;
	px_unlock();
	ret = px_libc.poll(pf, n + nextra, timeout_ms);
	if (ret < 0)
		err = -errno;
	if (pf[0].revents & POLLIN)
		while (px_libc.read(w->efd, &v, sizeof(v)) > 0)
			;
	px_lock();
	w->sleeping = false;
	if (!--px.sleepers)
		px_grave_empty();
	free(big);
	return err;
}
