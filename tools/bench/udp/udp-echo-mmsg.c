// SPDX-License-Identifier: GPL-2.0
/*
 * udp-echo-mmsg - plain Linux UDP echo server, the "epoll-style" baseline
 *
 * Each thread owns a socket bound to 0.0.0.0:PORT with SO_REUSEPORT (the
 * kernel spreads flows over them), receives up to 32 datagrams at a time
 * with a blocking recvmmsg(MSG_WAITFORONE) and sends the same datagrams
 * back to their sources with sendmmsg.
 *
 *   udp-echo-mmsg [-p PORT] [-t THREADS] [-c CPU[,CPU...]]
 *
 * -p: port (default 7); -t: threads (default 1); -c: pin thread i to the
 * i-th CPU of the list (wrapping around).  Runs until SIGINT/SIGTERM, then
 * prints "udp-echo-mmsg: N requests" (datagrams echoed) and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#define BATCH		32
#define BUF_SIZE	65536

struct worker {
	pthread_t thread;
	int fd;
	int cpu;			/* -1: not pinned */
	uint64_t requests;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in addr[BATCH];
	char *buf;
};

static int stop;			/* set by main, read by the workers */

#define STOPPING()	__atomic_load_n(&stop, __ATOMIC_ACQUIRE)

static void usage(void)
{
	fprintf(stderr,
		"Usage: udp-echo-mmsg [-p PORT] [-t THREADS] [-c CPU[,CPU...]]\n");
	exit(2);
}

static void on_signal(int sig)
{
	(void)sig;	/* never runs: the signals are blocked and sigwait()ed */
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	int i, n, sent, ret;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("udp-echo-mmsg: sched_setaffinity");
			exit(1);
		}
	}

	for (i = 0; i < BATCH; i++) {
		w->iov[i].iov_base = w->buf + (size_t)i * BUF_SIZE;
		w->msgs[i].msg_hdr.msg_iov = &w->iov[i];
		w->msgs[i].msg_hdr.msg_iovlen = 1;
		w->msgs[i].msg_hdr.msg_name = &w->addr[i];
	}

	while (!STOPPING()) {
		for (i = 0; i < BATCH; i++) {
			w->iov[i].iov_len = BUF_SIZE;
			w->msgs[i].msg_hdr.msg_namelen = sizeof(w->addr[i]);
			w->msgs[i].msg_hdr.msg_flags = 0;
		}
		n = recvmmsg(w->fd, w->msgs, BATCH, MSG_WAITFORONE, NULL);
		if (STOPPING())
			break;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN ||
			    errno == ECONNREFUSED)
				continue;
			perror("udp-echo-mmsg: recvmmsg");
			exit(1);
		}
		if (n == 0)
			continue;
		w->requests += n;

		for (i = 0; i < n; i++)
			w->iov[i].iov_len = w->msgs[i].msg_len;
		for (sent = 0; sent < n; ) {
			ret = sendmmsg(w->fd, w->msgs + sent, n - sent, 0);
			if (ret > 0) {
				sent += ret;
			} else if (ret < 0 && errno == EINTR) {
				continue;
			} else {
				/* this datagram failed; skip it, keep going */
				sent++;
			}
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int cpus[MAX_CPUS], ncpus = 0, nthreads = 1, port = 7, opt, i, sig;
	struct worker *workers;
	uint64_t total = 0;
	struct sigaction sa;
	sigset_t mask;
	char *end;

	while ((opt = getopt(argc, argv, "p:t:c:")) != -1) {
		switch (opt) {
		case 'p':
			port = strtol(optarg, &end, 10);
			if (*end || port <= 0 || port > 65535)
				usage();
			break;
		case 't':
			nthreads = strtol(optarg, &end, 10);
			if (*end || nthreads <= 0 || nthreads > 1024)
				usage();
			break;
		case 'c':
			ncpus = bench_parse_cpus(optarg, cpus);
			if (ncpus < 0)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	/* workers inherit the mask; only main takes the signals */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	/*
	 * An inherited SIG_IGN (e.g. "cmd &" in a script) would discard the
	 * signals before sigwait() sees them; a handler makes them pending.
	 */
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	workers = calloc(nthreads, sizeof(*workers));
	if (!workers) {
		perror("udp-echo-mmsg: calloc");
		return 1;
	}
	/* bind every socket before serving so startup errors come first */
	for (i = 0; i < nthreads; i++) {
		workers[i].fd = bench_open_socket("udp-echo-mmsg", port);
		workers[i].cpu = ncpus ? cpus[i % ncpus] : -1;
		workers[i].buf = malloc((size_t)BATCH * BUF_SIZE);
		if (!workers[i].buf) {
			perror("udp-echo-mmsg: malloc");
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&workers[i].thread, NULL, worker_fn,
				   &workers[i])) {
			fprintf(stderr, "udp-echo-mmsg: pthread_create failed\n");
			return 1;
		}
	}

	sigwait(&mask, &sig);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	/* wakes a thread blocked in recvmmsg even on an unconnected socket */
	for (i = 0; i < nthreads; i++)
		shutdown(workers[i].fd, SHUT_RDWR);
	for (i = 0; i < nthreads; i++) {
		pthread_join(workers[i].thread, NULL);
		total += workers[i].requests;
		close(workers[i].fd);
		free(workers[i].buf);
	}
	free(workers);

	printf("udp-echo-mmsg: %llu requests\n", (unsigned long long)total);
	return 0;
}
