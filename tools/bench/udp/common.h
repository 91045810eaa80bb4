/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - what the two Linux echo servers share: the CPU list option
 * and the SO_REUSEPORT socket each thread owns.
 */
#ifndef BENCH_UDP_COMMON_H
#define BENCH_UDP_COMMON_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define MAX_CPUS	256

/* Parse "CPU[,CPU...]" into @cpus; the count, or -1 if it is malformed. */
static inline int bench_parse_cpus(const char *arg, int *cpus)
{
	char *list = strdup(arg);	/* leave argv intact for ps */
	char *tok, *save, *end;
	int n = 0;
	long v;

	if (!list)
		return -1;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		v = strtol(tok, &end, 10);
		if (*end || end == tok || v < 0 || v >= CPU_SETSIZE || n >= MAX_CPUS) {
			n = 0;
			break;
		}
		cpus[n++] = v;
	}
	free(list);
	return n ? n : -1;
}

/* A UDP socket on 0.0.0.0:@port with SO_REUSEPORT; exits on failure. */
static inline int bench_open_socket(const char *prog, int port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	const char *what = "socket";
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd >= 0) {
		what = "SO_REUSEPORT";
		if (!setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one))) {
			what = "bind";
			if (!bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
				return fd;
		}
	}
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(1);
}

#endif
