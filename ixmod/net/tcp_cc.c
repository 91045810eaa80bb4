// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_cc.c - congestion control: NewReno (RFC 5681, RFC 6582)
 *
 * Only window sizing lives here; fast retransmit and the partial-ACK
 * rules of recovery are in tcp_in.c, shared by every algorithm.
 */
#include "tcp.h"

/* RFC 5681 §3.1: IW = min(4 * SMSS, max(2 * SMSS, 4380)) (RFC 3390) */
static void ixm_newreno_init(struct ixm_tcp_conn *c)
{
	c->cwnd = min_t(u32, 4 * c->mss, max_t(u32, 2 * c->mss, 4380));
	c->ssthresh = 0x7fffffff;	/* "arbitrarily high" */
	c->bytes_acked = 0;
}

/*
 * RFC 5681 §3.1: slow start by bytes acked (at most one SMSS per ACK),
 * then congestion avoidance by appropriate byte counting (RFC 3465).
 */
static void ixm_newreno_on_ack(struct ixm_tcp_conn *c, u32 acked)
{
	if (c->cwnd < c->ssthresh) {
		c->cwnd += min_t(u32, acked, c->mss);
		return;
	}
	c->bytes_acked += acked;
	if (c->bytes_acked >= c->cwnd) {
		c->bytes_acked -= c->cwnd;
		c->cwnd += c->mss;
	}
}

/* RFC 5681 §3.1 equation (4): ssthresh = max(FlightSize / 2, 2 * SMSS) */
static u32 ixm_newreno_ssthresh(struct ixm_tcp_conn *c)
{
	u32 flight = c->snd_max - c->snd_una;

	return max_t(u32, flight / 2, 2 * c->mss);
}

/* RFC 5681 §3.1: after a timeout the window is one segment (LW) */
static void ixm_newreno_on_rto(struct ixm_tcp_conn *c)
{
	c->cwnd = c->mss;
	c->bytes_acked = 0;
}

static void ixm_newreno_on_recovery_exit(struct ixm_tcp_conn *c)
{
	c->bytes_acked = 0;
}

const struct ixm_tcp_cc_ops ixm_tcp_newreno = {
	.name			= "newreno",
	.init			= ixm_newreno_init,
	.on_ack			= ixm_newreno_on_ack,
	.ssthresh		= ixm_newreno_ssthresh,
	.on_rto			= ixm_newreno_on_rto,
	.on_recovery_exit	= ixm_newreno_on_recovery_exit,
};
