// SPDX-License-Identifier: MIT
/*
 * udp-echo - echo every UDP datagram back to its sender through ixmod
 *
 * One thread per dataplane core, each with its own handle attached to its
 * core and its own socket bound to the port there (RSS sends each flow to
 * one core, so each thread serves its own flows).  A datagram arrives
 * zero-copy in the read-only receive region; the thread copies it into
 * the transmit-arena area tied to the call slot it sends from (the kernel
 * has read that area once the slot is free again), sends it back and
 * returns the receive buffer, all in one batch of calls.
 *
 *   udp-echo [-p PORT] [-c CPULIST] [-C] [-q]
 *
 * -p: port (default 7); -c: cores to serve (default: every dataplane
 * core, /sys/kernel/ixmod/cores); -C: co-located mode (each thread runs
 * its core's loop itself, IXU_MODE_COLOCATED); -q: no per-thread
 * summary.  Prints
 * "udp-echo: ready" once every thread has bound its socket, and on
 * SIGINT/SIGTERM "udp-echo: N echoed, E errors" before exiting.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ixu.h"

#define MAX_THREADS	64
#define SLOT		2048	/* arena bytes per call slot */

struct worker {
	pthread_t	tid;
	unsigned int	cpu;
	unsigned short	port;
	int		err;
	unsigned long	echoed;
	unsigned long	errors;
	struct ixu	ixu;
};

static int stop;	/* set by the signal handler */
static pthread_barrier_t ready;

static void on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

static bool stopping(void)
{
	return __atomic_load_n(&stop, __ATOMIC_RELAXED);
}

/*
 * Reserve a call slot.  While the call ring is full, hand back the events
 * read so far (*@seen of them) and submit: the kernel consumes calls only
 * while it has room for the events they may produce, so holding both
 * rings full would stall it.
 */
static struct ixmod_call *get_call(struct ixu *ixu, unsigned int *seen)
{
	struct ixmod_call *c;

	while (!(c = ixu_call_get(ixu)) && !stopping()) {
		if (seen && *seen) {
			ixu_event_advance(ixu, *seen);
			*seen = 0;
		}
		ixu_call_submit(ixu);
	}
	return c;
}

static unsigned int mode = IXU_MODE_THREAD;

static void *serve(void *arg)
{
	struct worker *w = arg;
	struct ixu_params prm = { .call_entries = 512, .event_entries = 1024,
				  .txarena_size = 512 * SLOT, .mode = mode };
	__u64 handle = 0;
	int ret;

	ret = ixu_open(&w->ixu, 0);
	if (!ret)
		ret = ixu_attach(&w->ixu, w->cpu, &prm);
	if (!ret) {
		/* the bind's completion carries the handle */
		struct ixmod_call *c = get_call(&w->ixu, NULL);
		struct ixmod_event *ev;

		ixu_prep_udp_bind(c, ixu_htons(w->port), 1);
		ixu_call_submit(&w->ixu);
		while (!(ev = ixu_event_peek(&w->ixu, 0)) && !stopping())
			ixu_wait(&w->ixu, 1000);
		ret = ev ? ev->res : -EINTR;
		if (ev) {
			handle = ev->handle;
			ixu_event_advance(&w->ixu, 1);
		}
	}
	w->err = ret;
	pthread_barrier_wait(&ready);
	if (ret)
		return NULL;

	while (!stopping()) {
		struct ixmod_event *ev, e;
		unsigned int n = 0;

		while ((ev = ixu_event_peek(&w->ixu, n))) {
			e = *ev;	/* get_call() may hand the slot back */
			n++;
			if (e.type == IXMOD_EV_UDP_RECV) {
				struct ixmod_call *c = get_call(&w->ixu, &n);
				struct ixmod_call *d;
				__u32 off;

				if (!c)
					break;
				off = ixu_call_index(&w->ixu, c) * SLOT;
				memcpy(ixu_tx_ptr(&w->ixu, off), ixu_rx_ptr(&w->ixu, e.off),
				       e.res);
				ixu_prep_udp_send(c, handle, off, e.res, e.addr, e.port, 0);
				d = get_call(&w->ixu, &n);
				if (!d)
					break;
				ixu_prep_recv_done(d, e.off);
				w->echoed++;
			} else if (e.res < 0) {
				w->errors++;
			}
		}
		if (n) {
			ixu_event_advance(&w->ixu, n);
			ixu_call_submit(&w->ixu);
			continue;
		}
		ret = ixu_wait(&w->ixu, 200);
		if (ret == -ENETDOWN) {
			fprintf(stderr, "udp-echo: cpu %u lost its port\n", w->cpu);
			break;
		}
	}
	ixu_close(&w->ixu);
	return NULL;
}

/* Parse a cpulist such as "1-3,5" into @cpus. */
static int parse_cpus(const char *s, unsigned int *cpus, int max)
{
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -1;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (; a <= b && n < max; a++)
			cpus[n++] = a;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	unsigned int cpus[MAX_THREADS];
	unsigned long echoed = 0, errors = 0;
	char list[256] = "";
	unsigned short port = 7;
	int opt, n, i, failed = 0;
	bool quiet = false;

	while ((opt = getopt(argc, argv, "p:c:Cq")) != -1) {
		switch (opt) {
		case 'p':
			port = atoi(optarg);
			break;
		case 'c':
			snprintf(list, sizeof(list), "%s", optarg);
			break;
		case 'C':
			mode = IXU_MODE_COLOCATED;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-p PORT] [-c CPULIST] [-C] [-q]\n", argv[0]);
			return 2;
		}
	}
	if (!list[0]) {
		FILE *f = fopen("/sys/kernel/ixmod/cores", "r");

		if (!f || !fgets(list, sizeof(list), f)) {
			fprintf(stderr, "udp-echo: cannot read /sys/kernel/ixmod/cores; is ixmod loaded?\n");
			return 1;
		}
		fclose(f);
	}
	n = parse_cpus(list, cpus, MAX_THREADS);
	if (n <= 0) {
		fprintf(stderr, "udp-echo: no dataplane cores ('%s'); assign some first\n", list);
		return 1;
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	pthread_barrier_init(&ready, NULL, n + 1);
	for (i = 0; i < n; i++) {
		w[i].cpu = cpus[i];
		w[i].port = port;
		pthread_create(&w[i].tid, NULL, serve, &w[i]);
	}
	pthread_barrier_wait(&ready);
	for (i = 0; i < n; i++) {
		if (w[i].err) {
			fprintf(stderr, "udp-echo: cpu %u: %s\n", w[i].cpu, strerror(-w[i].err));
			failed = 1;
		}
	}
	if (failed)
		on_signal(0);
	else
		printf("udp-echo: ready on port %u, %d cores\n", port, n);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		pthread_join(w[i].tid, NULL);
		echoed += w[i].echoed;
		errors += w[i].errors;
		if (!quiet && !w[i].err)
			printf("udp-echo: cpu %u: %lu echoed, %lu errors\n", w[i].cpu,
			       w[i].echoed, w[i].errors);
	}
	printf("udp-echo: %lu echoed, %lu errors\n", echoed, errors);
	return failed;
}
