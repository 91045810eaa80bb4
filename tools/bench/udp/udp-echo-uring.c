// SPDX-License-Identifier: GPL-2.0
/*
 * udp-echo-uring - UDP echo server over io_uring (liburing)
 *
 * Same job as udp-echo-mmsg: each thread owns a socket bound to
 * 0.0.0.0:PORT with SO_REUSEPORT, plus its own ring.  It keeps 32
 * IORING_OP_RECVMSG requests outstanding on the socket, each with its own
 * buffer and msghdr; when one completes, the same msghdr goes back out as
 * an IORING_OP_SENDMSG to the source address, and when that completes the
 * slot is re-armed with a new RECVMSG.  io_uring_submit_and_wait() both
 * submits and waits.
 *
 *   udp-echo-uring [-p PORT] [-t THREADS] [-c CPU[,CPU...]] [-S | -D]
 *
 * -p: port (default 7); -t: threads (default 1); -c: pin thread i to the
 * i-th CPU of the list (wrapping around); -S: IORING_SETUP_SQPOLL (a
 * kernel thread polls the submission queue: one more busy CPU); -D:
 * IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN (Linux 6.1+:
 * completion work runs only when the thread waits in io_uring_enter,
 * never as an interrupting task_work; the ring is created by the thread
 * that uses it, as SINGLE_ISSUER requires).  -S and -D exclude each other
 * (the kernel refuses DEFER_TASKRUN with SQPOLL).  Runs until
 * SIGINT/SIGTERM, then prints "udp-echo-uring: N requests" (datagrams
 * received and echoed) and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#define SLOTS		32
#define RING_ENTRIES	128
#define BUF_SIZE	65536
#define STOP_TAG	((uint64_t)-1)	/* user_data of the stop-eventfd poll */

enum slot_state { SLOT_RECV, SLOT_SEND };

struct slot {
	enum slot_state state;
	struct msghdr msg;
	struct iovec iov;
	struct sockaddr_in addr;
	char *buf;
};

struct worker {
	pthread_t thread;
	int fd;
	int stop_fd;			/* eventfd written by main on exit */
	int cpu;			/* -1: not pinned */
	uint64_t requests;
	struct io_uring ring;
	struct slot slots[SLOTS];
};

static int sqpoll;
static int defer_taskrun;

static void usage(void)
{
	fprintf(stderr,
		"Usage: udp-echo-uring [-p PORT] [-t THREADS] [-c CPU[,CPU...]] [-S | -D]\n");
	exit(2);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "udp-echo-uring: %s: %s\n", what, strerror(err));
	exit(1);
}

static void on_signal(int sig)
{
	(void)sig;	/* never runs: the signals are blocked and sigwait()ed */
}

static struct io_uring_sqe *get_sqe(struct worker *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	/* at most SLOTS + 1 requests are in flight, so the SQ has room */
	if (!sqe) {
		fprintf(stderr, "udp-echo-uring: submission queue full\n");
		exit(1);
	}
	return sqe;
}

static void arm_recv(struct worker *w, struct slot *s)
{
	struct io_uring_sqe *sqe = get_sqe(w);

	s->state = SLOT_RECV;
	s->iov.iov_len = BUF_SIZE;
	s->msg.msg_namelen = sizeof(s->addr);
	s->msg.msg_flags = 0;
	io_uring_prep_recvmsg(sqe, w->fd, &s->msg, 0);
	io_uring_sqe_set_data(sqe, s);
}

static void arm_send(struct worker *w, struct slot *s, int len)
{
	struct io_uring_sqe *sqe = get_sqe(w);

	s->state = SLOT_SEND;
	s->iov.iov_len = len;
	io_uring_prep_sendmsg(sqe, w->fd, &s->msg, 0);
	io_uring_sqe_set_data(sqe, s);
}

/* Returns 1 once the stop eventfd fired. */
static int handle_cqe(struct worker *w, struct io_uring_cqe *cqe)
{
	struct slot *s;

	if (cqe->user_data == STOP_TAG)
		return 1;
	s = io_uring_cqe_get_data(cqe);
	if (s->state == SLOT_RECV) {
		if (cqe->res >= 0) {
			w->requests++;
			arm_send(w, s, cqe->res);
			return 0;
		}
		if (cqe->res != -EINTR && cqe->res != -EAGAIN &&
		    cqe->res != -ECONNREFUSED && cqe->res != -ENOBUFS)
			die("recvmsg", -cqe->res);
	}
	/* send done (a failed send just drops that datagram): receive again */
	arm_recv(w, s);
	return 0;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	unsigned int head, seen;
	int i, ret, done = 0;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity", errno);
	}

	memset(&p, 0, sizeof(p));
	if (sqpoll) {
		p.flags |= IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 1000;	/* ms */
	}
	if (defer_taskrun)
		p.flags |= IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	ret = io_uring_queue_init_params(RING_ENTRIES, &w->ring, &p);
	if (ret == -EINVAL && defer_taskrun)
		die("io_uring_queue_init (DEFER_TASKRUN needs Linux 6.1 or later)", -ret);
	if (ret < 0)
		die("io_uring_queue_init", -ret);

	sqe = get_sqe(w);
	io_uring_prep_poll_add(sqe, w->stop_fd, POLLIN);
	io_uring_sqe_set_data64(sqe, STOP_TAG);

	for (i = 0; i < SLOTS; i++) {
		struct slot *s = &w->slots[i];

		s->buf = malloc(BUF_SIZE);
		if (!s->buf)
			die("malloc", errno);
		s->iov.iov_base = s->buf;
		s->msg.msg_iov = &s->iov;
		s->msg.msg_iovlen = 1;
		s->msg.msg_name = &s->addr;
		arm_recv(w, s);
	}

	while (!done) {
		ret = io_uring_submit_and_wait(&w->ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN &&
		    ret != -EBUSY)
			die("io_uring_submit_and_wait", -ret);
		seen = 0;
		io_uring_for_each_cqe(&w->ring, head, cqe) {
			seen++;
			if (handle_cqe(w, cqe))
				done = 1;
		}
		io_uring_cq_advance(&w->ring, seen);
	}

	/* tears down the ring, cancelling what is still in flight */
	io_uring_queue_exit(&w->ring);
	for (i = 0; i < SLOTS; i++)
		free(w->slots[i].buf);
	return NULL;
}

int main(int argc, char **argv)
{
	int cpus[MAX_CPUS], ncpus = 0, nthreads = 1, port = 7, opt, i, sig;
	struct worker *workers;
	uint64_t total = 0, one = 1;
	struct sigaction sa;
	sigset_t mask;
	char *end;

	while ((opt = getopt(argc, argv, "p:t:c:SD")) != -1) {
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
		case 'S':
			sqpoll = 1;
			break;
		case 'D':
			defer_taskrun = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (sqpoll && defer_taskrun))
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
	if (!workers)
		die("calloc", errno);
	/* bind every socket before serving so startup errors come first */
	for (i = 0; i < nthreads; i++) {
		workers[i].fd = bench_open_socket("udp-echo-uring", port);
		workers[i].stop_fd = eventfd(0, EFD_CLOEXEC);
		if (workers[i].stop_fd < 0)
			die("eventfd", errno);
		workers[i].cpu = ncpus ? cpus[i % ncpus] : -1;
	}
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&workers[i].thread, NULL, worker_fn,
				   &workers[i]))
			die("pthread_create", EAGAIN);
	}

	sigwait(&mask, &sig);
	for (i = 0; i < nthreads; i++) {
		if (write(workers[i].stop_fd, &one, sizeof(one)) < 0)
			die("eventfd write", errno);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(workers[i].thread, NULL);
		total += workers[i].requests;
		close(workers[i].fd);
		close(workers[i].stop_fd);
	}
	free(workers);

	printf("udp-echo-uring: %llu requests\n", (unsigned long long)total);
	return 0;
}
