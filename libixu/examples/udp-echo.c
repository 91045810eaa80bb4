// SPDX-License-Identifier: MIT
/*
 * udp-echo - echo every UDP datagram back to its sender through ixmod
 *
 *   udp-echo [-p PORT] [-c CPULIST] [-C] [-6] [-q]
 *
 * One thread per dataplane core, on libixu's event layer (ixev.h), each
 * with its own socket bound to the port on its core: RSS sends each flow
 * to one core, so each thread serves its own flows.  A datagram arrives
 * zero-copy in the read-only receive region; ixev_udp_send() copies it
 * into the transmit arena and queues it back, and ixev returns the
 * receive buffer, in the pass's one batch of calls.
 *
 * -p: port (default 7); -c: cores to serve (default: every dataplane
 * core, /sys/kernel/ixmod/cores); -C: co-located mode (each thread runs
 * its core's loop itself, IXU_MODE_COLOCATED); -6: IPv6 peers too (the
 * contexts are made with IXEV_F_INET6, IXMOD_SETUP_INET6: datagrams from
 * IPv6 peers are echoed to their source, as IPv4 ones; needs a module
 * with IXMOD_FEAT_INET6, else every thread fails with "Operation not
 * supported"; without -6 an IPv6 peer is answered by the kernel with a
 * port unreachable, as for any ABI 2 application); -q: no per-thread
 * summary.  Prints "udp-echo: ready" once every thread has bound its
 * socket, and on SIGINT/SIGTERM "udp-echo: N echoed, E errors" before
 * exiting.  Errors are the calls the kernel refused and the datagrams
 * not echoed for want of room in the call ring or the arena (UDP's
 * answer to overload; ixev_udp_send() also refuses an empty datagram).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ixev.h"

#define MAX_THREADS	256	/* ixev_run_cores()'s limit */

static struct {
	unsigned short	port;
	bool		quiet;
	bool		inet6;
	const char	*cpus;
	struct ixev_params params;
} opt = {
	.port = 7,
	/*
	 * ixev lends UDP payloads half of the arena after the calls' iovec
	 * arrays (256 KiB here): 5 MiB leaves a 2 KiB unit for every call slot
	 */
	.params = { .call_entries = 1024, .event_entries = 1024,
		    .txarena_size = 5U << 20 },
};

/* What each core's thread did, for the summary in core order. */
static struct core {
	unsigned int	cpu;
	unsigned long	echoed;
	unsigned long	errors;
	int		err;
} cores[MAX_THREADS];
static unsigned int ncores;
static bool failed;	/* a thread could not start */

static __thread unsigned long echoed, dropped;

static void on_datagram(struct ixev_udp *u, const void *data, size_t len, __be32 addr,
			__be16 port, void *arg)
{
	(void)arg;
	if (ixev_udp_send(u, data, len, addr, port) == 0)
		echoed++;
	else
		dropped++;
}

static void on_datagram6(struct ixev_udp *u, const void *data, size_t len,
			 const __u8 *addr6, __be16 port, void *arg)
{
	(void)arg;
	if (ixev_udp_send6(u, data, len, addr6, port) == 0)
		echoed++;
	else
		dropped++;
}

static int init(struct ixev *ev, void *arg)
{
	(void)arg;
	if (opt.inet6)
		return ixev_udp_bind6(ev, ixu_htons(opt.port), on_datagram, on_datagram6,
				      NULL, NULL);
	return ixev_udp_bind(ev, ixu_htons(opt.port), on_datagram, NULL, NULL);
}

static void on_ready(unsigned int n, void *arg)
{
	(void)arg;
	printf("udp-echo: ready on port %u, %u cores%s\n", opt.port, n,
	       opt.inet6 ? ", IPv4 and IPv6" : "");
}

static void fini(struct ixev *ev, unsigned int cpu, int err, void *arg)
{
	struct ixev_stats st = { 0 };
	unsigned int i;

	(void)arg;
	if (err == -ENETDOWN) {
		fprintf(stderr, "udp-echo: cpu %u lost its port\n", cpu);
	} else if (err) {
		fprintf(stderr, "udp-echo: cpu %u: %s\n", cpu, strerror(-err));
		__atomic_store_n(&failed, true, __ATOMIC_RELAXED);
	}
	if (ev)
		ixev_get_stats(ev, &st, sizeof(st));
	i = __atomic_fetch_add(&ncores, 1, __ATOMIC_RELAXED);
	cores[i] = (struct core){ cpu, echoed, st.errors + dropped, err };
}

static void on_signal(int sig)
{
	(void)sig;
	ixev_stop_all();
}

static int by_cpu(const void *a, const void *b)
{
	const struct core *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

int main(int argc, char **argv)
{
	struct ixev_runner r = { .params = &opt.params, .init = init, .ready = on_ready,
				 .fini = fini };
	unsigned long total = 0, errors = 0;
	unsigned int i;
	int o, ret;

	while ((o = getopt(argc, argv, "p:c:C6q")) != -1) {
		switch (o) {
		case 'p':
			opt.port = atoi(optarg);
			break;
		case 'c':
			opt.cpus = optarg;
			break;
		case 'C':
			opt.params.mode = IXU_MODE_COLOCATED;
			break;
		case '6':
			opt.inet6 = true;
			opt.params.flags |= IXEV_F_INET6;
			break;
		case 'q':
			opt.quiet = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-p PORT] [-c CPULIST] [-C] [-6] [-q]\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);	/* tests read lines as they come */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	r.cpulist = opt.cpus;
	ret = ixev_run_cores(&r);
	if (ret && !ncores) {	/* no thread started: the cpulist */
		if (ret == -ENOENT)
			fprintf(stderr, "udp-echo: cannot read /sys/kernel/ixmod/cores; is ixmod loaded?\n");
		else
			fprintf(stderr, "udp-echo: no dataplane cores ('%s'); assign some first\n",
				opt.cpus ? opt.cpus : "/sys/kernel/ixmod/cores");
		return 1;
	}
	qsort(cores, ncores, sizeof(cores[0]), by_cpu);
	for (i = 0; i < ncores; i++) {
		total += cores[i].echoed;
		errors += cores[i].errors;
		if (!opt.quiet && (!cores[i].err || cores[i].err == -ENETDOWN))
			printf("udp-echo: cpu %u: %lu echoed, %lu errors\n", cores[i].cpu,
			       cores[i].echoed, cores[i].errors);
	}
	printf("udp-echo: %lu echoed, %lu errors\n", total, errors);
	return failed;
}
