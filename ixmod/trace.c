// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - the tracepoints (trace.h) and the portable code's hooks to them
 *
 * The protocols and the loop (net/) name their trace points through
 * hooks declared in net/net.h, net/loop.h and net/tcp.h; the kernel defines them here,
 * the host harness in tools/testing/ixmod/host.c.  This file calls nothing
 * else of the module, so every file may trace through it.
 */
#include "ixmod.h"
#include "net/loop.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/* net/net.h, net/loop.h */
void ixm_net_trace_drop(const struct ixm_net_port *port, unsigned int reason,
			unsigned int len)
{
	trace_ixm_drop(raw_smp_processor_id(), reason, len);
}

void ixm_net_trace_rx_batch(const struct ixm_net_port *port, unsigned int n)
{
	const struct ixm_qpair *qp = container_of(port, struct ixm_qpair, net);

	trace_ixm_rx_batch(qp->cpu, qp->q->idx, n);
}

void ixm_net_trace_tx_batch(const struct ixm_net_port *port, unsigned int sent,
			    unsigned int held)
{
	const struct ixm_qpair *qp = container_of(port, struct ixm_qpair, net);

	trace_ixm_tx_batch(qp->cpu, qp->q->idx, sent, held);
}

/* net/tcp.h */
void ixm_tcp_trace_state(const struct ixm_tcp_conn *c, unsigned int old,
			 unsigned int state)
{
	u8 peer[16] = { [10] = 0xff, [11] = 0xff };

	if (!trace_ixm_tcp_state_enabled())
		return;
	if (c->flags & IXM_TCPF_INET6)
		memcpy(peer, c->raddr6.s6, 16);
	else
		memcpy(peer + 12, &c->raddr, 4);
	trace_ixm_tcp_state(raw_smp_processor_id(), ixm_tcp_idx(c), peer,
			    ntohs(c->rport), ntohs(c->lport), old, state);
}

void ixm_tcp_trace_retrans(const struct ixm_tcp_conn *c, u32 seq, u32 len,
			   bool timeout)
{
	trace_ixm_tcp_retrans(raw_smp_processor_id(), ixm_tcp_idx(c), seq, len,
			      timeout, c->cwnd, c->rto_us);
}

void ixm_tcp_trace_stall(const struct ixm_tcp_conn *c, u32 asked)
{
	trace_ixm_tcp_stall(raw_smp_processor_id(), ixm_tcp_idx(c), asked,
			    c->snd_wnd, c->cwnd, c->snd_max - c->snd_una);
}

void ixm_tcp_trace_recovery(const struct ixm_tcp_conn *c, bool enter,
			    unsigned int cause)
{
	trace_ixm_tcp_recovery(raw_smp_processor_id(), ixm_tcp_idx(c), enter,
			       cause, c->snd_una, c->cwnd, c->ssthresh);
}
