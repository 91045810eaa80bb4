// SPDX-License-Identifier: GPL-2.0
/*
 * loop.c - one iteration of a core's run-to-completion loop
 *
 * IX's order (Belay et al., OSDI '14): a bounded batch of
 * received frames from every port, each run through the protocols to
 * completion (posting events); a bounded batch of every context's calls;
 * TCP's timers and pending output; the frames all that queued handed to
 * the devices, and finished transmissions reaped; then the events are
 * published and the contexts that got some notified.  Everything a
 * context reads (events, receive buffers) is therefore complete before it
 * is published, and nothing waits for a lock.
 *
 * What a device needs (descriptor rings, DMA synchronisation) stays
 * behind struct ixm_queue_ops; what the kernel needs around an iteration
 * (RCU, the configuration each port reads, requests from processes)
 * stays in its caller.
 */
#include "platform.h"
#include "loop.h"
#include "call.h"
#include "queue.h"
#include "tcp.h"

/* Receive half of one port: a bounded batch, then the ring refilled. */
static unsigned int ixm_loop_rx(struct ixm_stack *st, struct ixm_net_port *np,
				unsigned int batch)
{
	struct ixm_queue *q = np->queue;
	struct ixm_mbuf *rx[IXM_RX_BATCH_MAX];
	unsigned int n, i;

	np->now_ns = st->now_ns;
	n = ixm_queue_rx_burst(q, rx, min_t(unsigned int, batch, IXM_RX_BATCH_MAX));
	if (n) {
		st->rx_batch_hist[min_t(unsigned int, ixm_ilog2(n),
					IXM_BATCH_HIST - 1)]++;
		ixm_net_trace_rx_batch(np, n);
		for (i = 0; i < n; i++)
			ixm_eth_input(np, rx[i]);
	}
	ixm_queue_rx_refill(q);
	return n;
}

/*
 * Transmit half: what the protocols and the applications queued goes to
 * the device (what its ring has no room for is dropped: IXM_DROP_TX_FULL),
 * then finished transmissions are reaped.
 */
static unsigned int ixm_loop_tx(struct ixm_net_port *np)
{
	struct ixm_queue *q = np->queue;
	unsigned int i, sent = 0, n = np->ntx;
	u64 bytes = 0;

	if (n) {
		sent = ixm_queue_tx_burst(q, np->tx, n);
		/* the buffers the device took are its until reaped below */
		for (i = 0; i < sent; i++) {
			np->tx[i]->flags |= IXM_MBUF_F_TX_TAKEN;
			bytes += ixm_mbuf_frame_len(np->tx[i]);
		}
		np->stats->tx_packets += sent;
		np->stats->tx_bytes += bytes;
		for (i = sent; i < n; i++)
			ixm_net_drop(np, np->tx[i], IXM_DROP_TX_FULL);
		ixm_net_trace_tx_batch(np, sent, n - sent);
		np->ntx = 0;
	}
	return sent + ixm_queue_tx_reap(q);
}

/**
 * ixm_loop_iterate() - run one iteration of a core's loop
 * @st: the core's stack: its ports (each with its queue) and contexts;
 *	@st->now_ns set by the caller
 * @rx_batch: frames per port at most (up to IXM_RX_BATCH_MAX)
 * @call_batch: calls per context at most
 *
 * Context: the core's loop, inside ixm_rcu_read_lock().
 * Return: the work found (frames received, calls run, descriptors sent
 * and reaped); 0 means an idle iteration.
 */
unsigned int ixm_loop_iterate(struct ixm_stack *st, unsigned int rx_batch,
			      unsigned int call_batch)
{
	unsigned int i, done = 0;
	struct ixm_app *app;

	for (i = 0; i < st->nports; i++)
		done += ixm_loop_rx(st, st->ports[i], rx_batch);
	ixm_stack_for_each_app(app, st)
		done += ixm_app_run_calls(app, call_batch);
	ixm_tcp_poll(st);
	for (i = 0; i < st->nports; i++)
		done += ixm_loop_tx(st->ports[i]);
	ixm_stack_for_each_app(app, st) {
		/* held-back events that just moved in count too */
		if (ixm_app_flush(app))
			ixm_app_notify(app);
	}
	return done;
}

/**
 * ixm_loop_busy() - would an iteration find work?  A cheap look
 * @st: the core's stack, as for ixm_loop_iterate()
 *
 * What can arrive while a core is idle, looked at without a clock and
 * without touching a ring: a frame or an unreaped transmission on any
 * port (&struct ixm_queue_ops.busy), a call in any context's ring,
 * events held back or not yet published.  Timers are not looked at: the
 * caller runs a whole iteration often enough for them.
 *
 * Context: the core's loop, inside ixm_rcu_read_lock().
 * Return: true if a whole iteration should run.
 */
bool ixm_loop_busy(struct ixm_stack *st)
{
	struct ixm_app *app;
	unsigned int i;

	for (i = 0; i < st->nports; i++) {
		struct ixm_net_port *np = st->ports[i];
		const struct ixm_queue *q = np->queue;

		if (np->ntx || ixm_queue_busy(q))
			return true;
	}
	ixm_stack_for_each_app(app, st) {
		if (app->dirty || app->hold_count ||
		    (!app->dead && READ_ONCE(*app->calls.prod) != app->calls.cached))
			return true;
	}
	return false;
}
