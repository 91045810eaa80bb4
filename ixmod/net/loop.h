/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loop.h - one iteration of a core's run-to-completion loop
 *
 * The kernel thread of a dataplane core (dp.c) and the host harness
 * (tools/testing/ixmod/testnet.c) run the same iteration: the order lives
 * in ixm_loop_iterate() only.
 */
#ifndef _IXM_NET_LOOP_H
#define _IXM_NET_LOOP_H

#include "platform.h"
#include "app.h"

unsigned int ixm_loop_iterate(struct ixm_stack *st, unsigned int rx_batch,
			      unsigned int call_batch);
bool ixm_loop_busy(struct ixm_stack *st);
void ixm_loop_tx_discard(struct ixm_net_port *np);

/* Hooks for the batch tracepoints; the kernel glue defines them. */
void ixm_net_trace_rx_batch(const struct ixm_net_port *port, unsigned int n);
void ixm_net_trace_tx_batch(const struct ixm_net_port *port, unsigned int sent,
			    unsigned int held);

#endif /* _IXM_NET_LOOP_H */
