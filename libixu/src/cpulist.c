// SPDX-License-Identifier: MIT
/*
 * cpulist.c - the CPUs of a cpulist, and ixmod's dataplane cores
 *
 * The one parser of libixu and the programs on it: ixev_run_cores(), the
 * selftests' tcp_echo_helper and whatever runs a thread per dataplane
 * core.  The kernel writes cpulists as "1-3,5" (lib/bitmap-str.c); this
 * reads what it writes, in the order written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define IXU_CORES_PATH	"/sys/kernel/ixmod/cores"

int ixu_cpulist_parse(const char *list, unsigned int *cpus, unsigned int max)
{
	char buf[4096] = "";
	const char *s = list;
	unsigned int n = 0;

	if (!list) {
		FILE *f = fopen(IXU_CORES_PATH, "r");

		if (!f)
			return -ENOENT;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		s = buf;
	}
	while (*s && *s != '\n') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -EINVAL;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (b < a || b - a > max)
			return -EINVAL;
		for (; a <= b; a++) {
			if (n == max)
				return -EINVAL;
			cpus[n++] = a;
		}
		if (*end != ',' && *end && *end != '\n')
			return -EINVAL;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}
