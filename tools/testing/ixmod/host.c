// SPDX-License-Identifier: GPL-2.0
/*
 * host.c - the host side of platform_user.h: time, allocation with
 * failure injection.  Linked into every host test and fuzzer.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "net.h"
#include "tcp.h"

u64 ixm_host_now_ns;
int ixm_host_fail_alloc;
unsigned int ixm_host_warnings;

void ixm_host_warn(const char *fmt, ...)
{
	va_list ap;

	if (ixm_host_warnings++)
		return;
	va_start(ap, fmt);
	fputs("WARNING: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

unsigned int ixm_host_dev_errs;
char ixm_host_last_dev_err[256];

void ixm_host_dev_err(const char *fmt, ...)
{
	va_list ap;

	ixm_host_dev_errs++;
	va_start(ap, fmt);
	vsnprintf(ixm_host_last_dev_err, sizeof(ixm_host_last_dev_err), fmt, ap);
	va_end(ap);
	fprintf(stderr, "# dmesg: %s", ixm_host_last_dev_err);
}

void *ixm_host_zalloc(size_t size)
{
	if (ixm_host_fail_alloc > 0 && --ixm_host_fail_alloc == 0)
		return NULL;
	return calloc(1, size);
}

/* As ixm_host_zalloc(), aligned as descriptor rings must be (128 bytes). */
void *ixm_host_dma_alloc(size_t size, dma_addr_t *dma)
{
	size_t n = (size + 127) & ~(size_t)127;
	void *p;

	if (ixm_host_fail_alloc > 0 && --ixm_host_fail_alloc == 0)
		return NULL;
	p = aligned_alloc(128, n);
	if (p) {
		memset(p, 0, n);
		*dma = (uintptr_t)p;
	}
	return p;
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

/* The loop's hooks (net/loop.h, net/app.h): batches and notified contexts. */
unsigned long ixm_host_rx_batches, ixm_host_tx_held, ixm_host_notified;

void ixm_net_trace_rx_batch(const struct ixm_net_port *port, unsigned int n)
{
	ixm_host_rx_batches++;
}

void ixm_net_trace_tx_batch(const struct ixm_net_port *port, unsigned int sent,
			    unsigned int held)
{
	ixm_host_tx_held += held;
}

void ixm_app_notify(struct ixm_app *app)
{
	ixm_host_notified++;
}

/* TCP's tracepoint hooks: the host build counts them. */
unsigned long ixm_host_tcp_state_changes, ixm_host_tcp_retrans, ixm_host_tcp_stalls;
unsigned long ixm_host_tcp_recoveries[4];

void ixm_tcp_trace_state(const struct ixm_tcp_conn *c, unsigned int old,
			 unsigned int state)
{
	ixm_host_tcp_state_changes++;
}

void ixm_tcp_trace_retrans(const struct ixm_tcp_conn *c, u32 seq, u32 len,
			   bool timeout)
{
	ixm_host_tcp_retrans++;
}

void ixm_tcp_trace_stall(const struct ixm_tcp_conn *c, u32 asked)
{
	ixm_host_tcp_stalls++;
}

void ixm_tcp_trace_recovery(const struct ixm_tcp_conn *c, bool enter,
			    unsigned int cause)
{
	if (cause < 4)
		ixm_host_tcp_recoveries[cause]++;
}
