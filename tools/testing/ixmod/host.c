// SPDX-License-Identifier: GPL-2.0
/*
 * host.c - the host side of platform_user.h: time, allocation with
 * failure injection.  Linked into every host test and fuzzer.
 */
#include <stdlib.h>

#include "net.h"

u64 ixm_host_now_ns;
int ixm_host_fail_alloc;

void *ixm_host_zalloc(size_t size)
{
	if (ixm_host_fail_alloc > 0 && --ixm_host_fail_alloc == 0)
		return NULL;
	return calloc(1, size);
}

/* The drop tracepoint's hook: tests read the last reason from here. */
unsigned int ixm_host_last_drop = ~0u;

void ixm_net_trace_drop(const struct ixm_net_port *port, unsigned int reason,
			unsigned int len)
{
	(void)port;
	(void)len;
	ixm_host_last_drop = reason;
}
