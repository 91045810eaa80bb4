/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - what the TCP benchmark programs share: thread pinning,
 * TCP_NODELAY, and for the two Linux echo servers their options, their
 * listening socket, their counters and their main loop.  The CPU list
 * parser comes from the UDP benchmark's common.h.
 */
#ifndef BENCH_TCP_COMMON_H
#define BENCH_TCP_COMMON_H

#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "../udp/common.h"

/* Pin the calling thread to @cpu (nothing if @cpu < 0); exits on failure. */
static inline void bench_pin(const char *prog, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "%s: cpu %d: sched_setaffinity: %s\n", prog, cpu,
			strerror(errno));
		exit(1);
	}
}

/* TCP_NODELAY: an echo must leave at once, not wait for an ACK. */
static inline int bench_nodelay(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/*
 * A TCP socket listening on 0.0.0.0:@port with SO_REUSEPORT, so that every
 * thread owns one and the kernel spreads connections over them; @type_flags
 * (SOCK_NONBLOCK...) are or-ed into the socket type.  Exits on failure.
 */
static inline int bench_tcp_listen(const char *prog, int port, int type_flags)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | type_flags, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(fd, SOMAXCONN)) {
		fprintf(stderr, "%s: listening on port %d: %s\n", prog, port,
			strerror(errno));
		exit(1);
	}
	return fd;
}

/* What every thread of an echo server has; its worker struct starts with it. */
struct bench_worker {
	pthread_t thread;
	int cpu;			/* -1: not pinned */
	int lfd;			/* listening socket */
	uint64_t conns;			/* accepted */
	uint64_t bytes;			/* echoed */
	uint64_t resets;		/* ECONNRESET or EPIPE: a client gave up */
	uint64_t errors;		/* anything else, each said on stderr */
};

/* The options both echo servers take: -p PORT and -c CPU[,CPU...]. */
struct bench_server {
	int port;
	int ncpus;
	int cpus[MAX_CPUS];
};

/* Take option @opt with argument @arg: 0, or -1 if not -p/-c or bad. */
static inline int bench_server_opt(struct bench_server *srv, int opt, const char *arg)
{
	char *end;

	if (opt == 'p') {
		srv->port = strtol(arg, &end, 10);
		return *end || srv->port <= 0 || srv->port > 65535 ? -1 : 0;
	}
	if (opt == 'c') {
		srv->ncpus = bench_parse_cpus(arg, srv->cpus);
		return srv->ncpus < 0 ? -1 : 0;
	}
	return -1;
}

/* A connection of @w's ended with errno @err: count it as reset or error. */
static inline void bench_conn_error(const char *prog, struct bench_worker *w, int err)
{
	if (err == ECONNRESET || err == EPIPE) {
		w->resets++;
	} else {
		w->errors++;
		fprintf(stderr, "%s: connection: %s\n", prog, strerror(err));
	}
}

/*
 * Once the options are parsed: one unpinned thread if -c gave no CPU;
 * SIGINT and SIGTERM blocked in the calling thread (the threads inherit
 * the mask: only bench_serve() takes them), after resetting them to the
 * default action, since a SIG_IGN inherited from a shell ("cmd &") would
 * discard them even while blocked.  Returns the eventfd that will tell the
 * threads to stop; exits on failure.
 */
static inline int bench_server_setup(const char *prog, struct bench_server *srv,
				     sigset_t *mask)
{
	int fd;

	if (!srv->ncpus)
		srv->cpus[srv->ncpus++] = -1;
	sigemptyset(mask);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	pthread_sigmask(SIG_BLOCK, mask, NULL);
	fd = eventfd(0, EFD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: eventfd: %s\n", prog, strerror(errno));
		exit(1);
	}
	return fd;
}

/*
 * The echo servers' main, after bench_server_setup() gave @mask and
 * @stop_fd: start one thread running @fn on each of the @n workers of @size bytes at
 * @workers (each begins with a struct bench_worker, its cpu and lfd set),
 * wait for one of those signals, make @stop_fd readable so that every
 * thread returns, join them and print the totals.
 */
static inline void bench_serve(const char *prog, void *workers, size_t size, int n,
			       void *(*fn)(void *), const sigset_t *mask, int stop_fd)
{
	struct bench_worker *w, sum = { 0 };
	uint64_t one = 1;
	int i, sig, err;

	for (i = 0; i < n; i++) {
		w = (struct bench_worker *)((char *)workers + i * size);
		err = pthread_create(&w->thread, NULL, fn, w);
		if (err) {
			fprintf(stderr, "%s: pthread_create: %s\n", prog, strerror(err));
			exit(1);
		}
	}
	while (sigwait(mask, &sig))
		;
	if (write(stop_fd, &one, sizeof(one)) != sizeof(one)) {
		fprintf(stderr, "%s: eventfd write: %s\n", prog, strerror(errno));
		exit(1);
	}
	for (i = 0; i < n; i++) {
		w = (struct bench_worker *)((char *)workers + i * size);
		pthread_join(w->thread, NULL);
		sum.conns += w->conns;
		sum.bytes += w->bytes;
		sum.resets += w->resets;
		sum.errors += w->errors;
	}
	printf("%s: %llu connections, %llu bytes echoed, %llu resets, %llu errors\n", prog,
	       (unsigned long long)sum.conns, (unsigned long long)sum.bytes,
	       (unsigned long long)sum.resets, (unsigned long long)sum.errors);
}

#endif
