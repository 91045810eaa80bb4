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

#endif /* _IXMOD_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
