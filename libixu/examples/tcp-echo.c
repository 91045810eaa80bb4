// SPDX-License-Identifier: MIT
/*
 * tcp-echo - a TCP echo server on libixu's event layer (ixev.h)
 *
 *   tcp-echo [-p PORT] [-c CPULIST] [-b BACKLOG] [-C] [-6] [-q]
 *
 * One thread per dataplane core (-c, default: every core in
 * /sys/kernel/ixmod/cores), each listening on PORT (default 7): the NIC's
 * RSS sends each flow to one core.  With -C each thread runs its core's
 * loop itself (the co-located mode); with -6 it takes IPv6 peers as well
 * as IPv4 ones (IXEV_F_INET6).  What arrives is sent back; when the
 * send buffer is full the rest stays with ixev, so the peer's window
 * closes (backpressure), and is echoed once the peer reads.  At the peer's
 * FIN the connection is closed after the echo.  SIGINT or SIGTERM stops
 * it with a line per core (unless -q) and a total.  The test modes (sink,
 * source, hold, a checking client) are in the selftests'
 * tcp_echo_helper.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ixev.h"

static struct {
	unsigned short	port;
	unsigned int	backlog;
	bool		quiet;
	struct ixev_params params;
	const char	*cpus;
} opt = { .port = 7, .backlog = 128 };

static struct total {
	unsigned long long conns, in, out, errors, resets;
	int lost;
} total;

/* Per core: connections that ended with a reset. */
static __thread unsigned long resets;

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
	if (err == -ECONNRESET)
		resets++;
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
	return &echo_ops;
}

static int init(struct ixev *ev, void *arg)
{
	(void)arg;
	return ixev_listen(ev, ixu_htons(opt.port), opt.backlog, on_accept, NULL);
}

static void on_ready(unsigned int ncores, void *arg)
{
	(void)arg;
	printf("tcp-echo: ready on port %u, %u cores%s\n", opt.port, ncores,
	       opt.params.flags & IXEV_F_INET6 ? ", IPv4 and IPv6" : "");
}

static void fini(struct ixev *ev, unsigned int cpu, int err, void *arg)
{
	struct ixev_stats st = { 0 };

	(void)arg;
	if (err == -ENETDOWN)
		fprintf(stderr, "tcp-echo: cpu %u lost its port\n", cpu);
	else if (err)
		fprintf(stderr, "tcp-echo: cpu %u: %s\n", cpu, strerror(-err));
	if (!ev)
		return;
	ixev_get_stats(ev, &st, sizeof(st));
	if (!opt.quiet)
		printf("tcp-echo: cpu %u: %llu conns, %llu bytes in, %llu bytes out, %lu resets, %llu refused, %llu errors, %llu late\n",
		       cpu, st.conns, st.bytes_in, st.bytes_out, resets, st.refused, st.errors,
		       st.late);
	__atomic_add_fetch(&total.conns, st.conns, __ATOMIC_RELAXED);
	__atomic_add_fetch(&total.in, st.bytes_in, __ATOMIC_RELAXED);
	__atomic_add_fetch(&total.out, st.bytes_out, __ATOMIC_RELAXED);
	__atomic_add_fetch(&total.errors, st.errors, __ATOMIC_RELAXED);
	__atomic_add_fetch(&total.resets, resets, __ATOMIC_RELAXED);
	__atomic_or_fetch(&total.lost, err == -ENETDOWN, __ATOMIC_RELAXED);
}

static void on_signal(int sig)
{
	(void)sig;
	ixev_stop_all();
}

int main(int argc, char **argv)
{
	struct ixev_runner r = { .params = &opt.params, .init = init, .ready = on_ready,
				 .fini = fini };
	int o, ret;

	while ((o = getopt(argc, argv, "p:c:b:C6q")) != -1) {
		switch (o) {
		case 'p':
			opt.port = atoi(optarg);
			break;
		case 'c':
			opt.cpus = optarg;
			break;
		case 'b':
			opt.backlog = atoi(optarg);
			break;
		case 'C':
			opt.params.mode = IXU_MODE_COLOCATED;
			break;
		case '6':
			opt.params.flags |= IXEV_F_INET6;
			break;
		case 'q':
			opt.quiet = true;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-p PORT] [-c CPULIST] [-b BACKLOG] [-C] [-6] [-q]\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);	/* tests read lines as they come */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	r.cpulist = opt.cpus;
	ret = ixev_run_cores(&r);
	if (ret == -ENOENT)
		fprintf(stderr, "tcp-echo: cannot read /sys/kernel/ixmod/cores; is ixmod loaded?\n");
	else if (ret == -EINVAL && opt.cpus)
		fprintf(stderr, "tcp-echo: bad cpulist '%s'\n", opt.cpus);
	printf("tcp-echo: %llu conns, %llu bytes in, %llu bytes out, %llu resets, %llu errors\n",
	       total.conns, total.in, total.out, total.resets, total.errors);
	return ret || total.lost;
}
