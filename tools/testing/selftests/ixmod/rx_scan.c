// SPDX-License-Identifier: GPL-2.0
/*
 * rx_scan - a hostile application for test_owner_01.sh: it attaches
 * a context to one dataplane core and only reads its receive region,
 * looking for bytes another process was sent.
 *
 *   rx_scan [-w SECONDS] [-r FILE] CPU MARKER
 *
 * Attaches to CPU (or prints "rx_scan: cpu N: setup: <error>" and exits
 * 2), prints "ready", then scans the whole read-only receive region for
 * MARKER, again and again for SECONDS (default: once) or until SIGINT,
 * and prints "rx_scan: cpu N: marker seen K times" with K the most
 * copies one scan found.  With -r it first attaches, prints "attached", closes the
 * context and waits until FILE exists before attaching again (a process
 * that comes back to a core it left, while others used the port).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ixu.h"

static unsigned int cpu;
static int stopped;	/* set by the signal handler */

static void on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&stopped, 1, __ATOMIC_RELAXED);
}

static void attach(struct ixu *ixu)
{
	int err = ixu_open(ixu, 0);

	if (!err)
		err = ixu_attach(ixu, cpu, NULL);
	if (err) {
		printf("rx_scan: cpu %u: setup: %s\n", cpu, strerror(-err));
		exit(2);
	}
}

static unsigned int scan(const struct ixu *ixu, const char *marker)
{
	const unsigned char *p = ixu->rxbuf;
	size_t left = ixu->setup.regions[IXMOD_REGION_RXBUF].size;
	size_t len = strlen(marker);
	unsigned int n = 0;
	const unsigned char *hit;

	while ((hit = memmem(p, left, marker, len))) {
		n++;
		left -= hit + len - p;
		p = hit + len;
	}
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *again = NULL, *marker;
	unsigned int most = 0, n;
	double secs = 0, end;
	struct ixu ixu;
	int o;

	while ((o = getopt(argc, argv, "w:r:")) != -1) {
		switch (o) {
		case 'w':
			secs = atof(optarg);
			break;
		case 'r':
			again = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-w SECONDS] [-r FILE] CPU MARKER\n", argv[0]);
			return 2;
		}
	}
	if (argc - optind != 2 || !argv[optind + 1][0]) {
		fprintf(stderr, "usage: %s [-w SECONDS] [-r FILE] CPU MARKER\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, on_signal);
	cpu = atoi(argv[optind]);
	marker = argv[optind + 1];

	if (again) {
		attach(&ixu);
		printf("attached\n");
		ixu_close(&ixu);
		for (end = now() + 300; access(again, F_OK); usleep(50000))
			if (now() > end) {
				printf("rx_scan: %s never appeared\n", again);
				return 2;
			}
	}
	attach(&ixu);
	printf("ready\n");
	end = now() + secs;
	do {
		n = scan(&ixu, marker);
		if (n > most)
			most = n;
		usleep(10000);
	} while (now() < end && !__atomic_load_n(&stopped, __ATOMIC_RELAXED));
	printf("rx_scan: cpu %u: marker seen %u times\n", cpu, most);
	ixu_close(&ixu);
	return 0;
}
