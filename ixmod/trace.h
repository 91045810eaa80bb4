/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - ixmod tracepoints: trace-cmd record -e ixmod
 *
 * Module-local trace events (the ice_trace.h pattern): TRACE_SYSTEM ixmod,
 * header found through TRACE_INCLUDE_PATH "." and -I$(src).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ixmod

#if !defined(_IXMOD_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _IXMOD_TRACE_H

#include <linux/tracepoint.h>

#include "compat.h"
#include "net/net.h"
#include "net/tcp.h"

DECLARE_EVENT_CLASS(ixm_core_class,
	TP_PROTO(unsigned int cpu, u64 iterations),
	TP_ARGS(cpu, iterations),
	TP_STRUCT__entry(
		__field(unsigned int, cpu)
		__field(u64, iterations)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->iterations = iterations;
	),
	TP_printk("cpu=%u iterations=%llu", __entry->cpu,
		  (unsigned long long)__entry->iterations)
);

/* A dataplane thread was started on @cpu. */
DEFINE_EVENT(ixm_core_class, ixm_core_start,
	TP_PROTO(unsigned int cpu, u64 iterations),
	TP_ARGS(cpu, iterations));

/* A dataplane thread was stopped after @iterations loop iterations. */
DEFINE_EVENT(ixm_core_class, ixm_core_stop,
	TP_PROTO(unsigned int cpu, u64 iterations),
	TP_ARGS(cpu, iterations));

/* The thread found no work for idle_us and is going to sleep. */
DEFINE_EVENT(ixm_core_class, ixm_core_sleep,
	TP_PROTO(unsigned int cpu, u64 iterations),
	TP_ARGS(cpu, iterations));

/* The thread woke up from its idle sleep. */
DEFINE_EVENT(ixm_core_class, ixm_core_wake,
	TP_PROTO(unsigned int cpu, u64 iterations),
	TP_ARGS(cpu, iterations));

/* A core received a batch of @n frames on queue @queue. */
TRACE_EVENT(ixm_rx_batch,
	TP_PROTO(unsigned int cpu, unsigned int queue, unsigned int n),
	TP_ARGS(cpu, queue, n),
	TP_STRUCT__entry(
		__field(unsigned int, cpu)
		__field(unsigned int, queue)
		__field(unsigned int, n)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->queue = queue;
		__entry->n = n;
	),
	TP_printk("cpu=%u queue=%u n=%u", __entry->cpu, __entry->queue, __entry->n)
);

/*
 * A core handed @sent frames to queue @queue's NIC ring; @held did not fit
 * and wait in the core's batch for the next iteration.
 */
TRACE_EVENT(ixm_tx_batch,
	TP_PROTO(unsigned int cpu, unsigned int queue, unsigned int sent,
		 unsigned int held),
	TP_ARGS(cpu, queue, sent, held),
	TP_STRUCT__entry(
		__field(unsigned int, cpu)
		__field(unsigned int, queue)
		__field(unsigned int, sent)
		__field(unsigned int, held)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->queue = queue;
		__entry->sent = sent;
		__entry->held = held;
	),
	TP_printk("cpu=%u queue=%u sent=%u held=%u", __entry->cpu,
		  __entry->queue, __entry->sent, __entry->held)
);

/*
 * The protocols dropped a frame of @len bytes for @reason (enum
 * ixm_drop_reason), recorded by name (its sysfs counter's name) so that
 * trace-cmd and the trace file both show it.
 */
TRACE_EVENT(ixm_drop,
	TP_PROTO(unsigned int cpu, unsigned int reason, unsigned int len),
	TP_ARGS(cpu, reason, len),
	TP_STRUCT__entry(
		__field(unsigned int, cpu)
		__field(unsigned int, len)
		__string(reason, reason < IXM_DROP_MAX ? ixm_drop_names[reason] : "?")
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->len = len;
		ixm_trace_assign_str(reason, reason < IXM_DROP_MAX ?
					     ixm_drop_names[reason] : "?");
	),
	TP_printk("cpu=%u reason=%s len=%u", __entry->cpu, __get_str(reason),
		  __entry->len)
);

/*
 * A TCP connection moved from state @old to @state (RFC 9293 §3.3.2).
 * @raddr: the peer, 16 bytes: an IPv4 peer as ::ffff:a.b.c.d (RFC 4291
 * §2.5.5.2), printed so by %pI6c.
 */
TRACE_EVENT(ixm_tcp_state,
	TP_PROTO(unsigned int cpu, u32 conn, const u8 *raddr, u16 rport, u16 lport,
		 unsigned int old, unsigned int state),
	TP_ARGS(cpu, conn, raddr, rport, lport, old, state),
	TP_STRUCT__entry(
		__field(unsigned int, cpu)
		__field(u32, conn)
		__array(u8, raddr, 16)
		__field(u16, rport)
		__field(u16, lport)
		__field(unsigned int, old)
		__field(unsigned int, state)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->conn = conn;
		memcpy(__entry->raddr, raddr, 16);
		__entry->rport = rport;
		__entry->lport = lport;
		__entry->old = old;
		__entry->state = state;
	),
	TP_printk("cpu=%u conn=%u peer=[%pI6c]:%u lport=%u %s -> %s", __entry->cpu,
		  __entry->conn, __entry->raddr, __entry->rport, __entry->lport,
		  __entry->old < IXM_TCP_NSTATES ? ixm_tcp_state_names[__entry->old] : "?",
		  __entry->state < IXM_TCP_NSTATES ?
		  ixm_tcp_state_names[__entry->state] : "?")
);

/* TCP sent @len bytes from @seq again (@timeout: after an RTO, else fast). */
TRACE_EVENT(ixm_tcp_retrans,
	TP_PROTO(unsigned int cpu, u32 conn, u32 seq, u32 len, bool timeout,
		 u32 cwnd, u32 rto_us),
	TP_ARGS(cpu, conn, seq, len, timeout, cwnd, rto_us),
	TP_STRUCT__entry(
		__field(unsigned int, cpu)
		__field(u32, conn)
		__field(u32, seq)
		__field(u32, len)
		__field(bool, timeout)
		__field(u32, cwnd)
		__field(u32, rto_us)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->conn = conn;
		__entry->seq = seq;
		__entry->len = len;
		__entry->timeout = timeout;
		__entry->cwnd = cwnd;
		__entry->rto_us = rto_us;
	),
	TP_printk("cpu=%u conn=%u seq=%u len=%u %s cwnd=%u rto_us=%u", __entry->cpu,
		  __entry->conn, __entry->seq, __entry->len,
		  __entry->timeout ? "timeout" : "fast", __entry->cwnd, __entry->rto_us)
);

/*
 * Loss recovery began (@enter; @cause IXM_TCP_REC_*: three duplicate
 * ACKs, RACK, a tail loss probe) or ended; cwnd and ssthresh after it.
 */
TRACE_EVENT(ixm_tcp_recovery,
	TP_PROTO(unsigned int cpu, u32 conn, bool enter, unsigned int cause,
		 u32 snd_una, u32 cwnd, u32 ssthresh),
	TP_ARGS(cpu, conn, enter, cause, snd_una, cwnd, ssthresh),
	TP_STRUCT__entry(
		__field(unsigned int, cpu)
		__field(u32, conn)
		__field(bool, enter)
		__field(unsigned int, cause)
		__field(u32, snd_una)
		__field(u32, cwnd)
		__field(u32, ssthresh)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->conn = conn;
		__entry->enter = enter;
		__entry->cause = cause;
		__entry->snd_una = snd_una;
		__entry->cwnd = cwnd;
		__entry->ssthresh = ssthresh;
	),
	TP_printk("cpu=%u conn=%u %s %s snd_una=%u cwnd=%u ssthresh=%u",
		  __entry->cpu, __entry->conn, __entry->enter ? "enter" : "exit",
		  __print_symbolic(__entry->cause, { 0, "dupacks" }, { 1, "rack" },
				   { 2, "tlp" }, { 3, "done" }),
		  __entry->snd_una, __entry->cwnd, __entry->ssthresh)
);

/* A sendv found the peer's window full: @asked bytes waited. */
TRACE_EVENT(ixm_tcp_stall,
	TP_PROTO(unsigned int cpu, u32 conn, u32 asked, u32 snd_wnd, u32 cwnd,
		 u32 inflight),
	TP_ARGS(cpu, conn, asked, snd_wnd, cwnd, inflight),
	TP_STRUCT__entry(
		__field(unsigned int, cpu)
		__field(u32, conn)
		__field(u32, asked)
		__field(u32, snd_wnd)
		__field(u32, cwnd)
		__field(u32, inflight)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->conn = conn;
		__entry->asked = asked;
		__entry->snd_wnd = snd_wnd;
		__entry->cwnd = cwnd;
		__entry->inflight = inflight;
	),
	TP_printk("cpu=%u conn=%u asked=%u snd_wnd=%u cwnd=%u inflight=%u",
		  __entry->cpu, __entry->conn, __entry->asked, __entry->snd_wnd,
		  __entry->cwnd, __entry->inflight)
);

#endif /* _IXMOD_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
