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
 * How long frames may wait in a port's batch for a device ring that takes
 * none and finishes none before they are dropped: a ring that makes no
 * progress for this long is stalled (link down, a device that stopped),
 * not busy, and a core must not poll it for ever.  Long enough for an
 * emulated device whose host thread is late (QEMU under TCG), short
 * against TCP's timeouts.
 */
#define IXM_TX_STALL_NS		1000000000ULL

/*
 * Transmit half: what the protocols and the applications queued goes to
 * the device, then finished transmissions are reaped.  What the ring has
 * no room for stays queued, in order, for the next iteration: a batch
 * that stays full holds TCP's output back (ixm_tcp_seg_alloc()) and makes
 * UDP_SEND retry, as a full qdisc stops a Linux socket, instead of losing
 * frames that TCP would have to retransmit.  A ring gains room only by
 * reaping, so after a refusal the batch is offered again only once a
 * reap freed something: a core waiting on a full ring polls its reap,
 * nothing more.  Only a ring that took and finished nothing for
 * IXM_TX_STALL_NS gets its waiting frames dropped (IXM_DROP_TX_STALL).
 */
static unsigned int ixm_loop_tx(struct ixm_net_port *np)
{
	struct ixm_queue *q = np->queue;
	unsigned int i, sent = 0, reaped, n = np->ntx;
	u64 bytes = 0;

	if (n && likely(!np->tx_blocked)) {
		sent = ixm_queue_tx_burst(q, np->tx, n);
		/* the buffers the device took are its until reaped below */
		for (i = 0; i < sent; i++) {
			np->tx[i]->flags |= IXM_MBUF_F_TX_TAKEN;
			bytes += ixm_mbuf_frame_len(np->tx[i]);
		}
		np->stats->tx_packets += sent;
		np->stats->tx_bytes += bytes;
		ixm_net_trace_tx_batch(np, sent, n - sent);
		np->ntx = n - sent;
		if (unlikely(np->ntx)) {
			np->tx_blocked = true;
			if (sent)
				memmove(np->tx, np->tx + sent, np->ntx * sizeof(np->tx[0]));
		}
	}
	reaped = ixm_queue_tx_reap(q);
	if (likely(!np->ntx)) {
		np->tx_stall_ns = 0;
		return sent + reaped;
	}
	if (reaped)
		np->tx_blocked = false;
	/* backpressure: when did the ring last move? */
	if (sent || reaped || !np->tx_stall_ns) {
		np->tx_stall_ns = np->now_ns;
	} else if (np->now_ns - np->tx_stall_ns > IXM_TX_STALL_NS) {
		ixm_loop_tx_discard(np);
		return 1;	/* work done: the next look may sleep */
	}
	return sent + reaped;
}

/**
 * ixm_loop_tx_discard() - drop the frames waiting in a port's batch
 * @np: the port
 *
 * For a stalled ring, and before a port's buffers are zeroed or freed: a
 * frame left waiting would go out with a new owner's (zeroed) bytes, or
 * hold a buffer of a pool being freed.
 *
 * Context: the core that owns @np, or @np's queue stopped.
 */
void ixm_loop_tx_discard(struct ixm_net_port *np)
{
	unsigned int i;

	for (i = 0; i < np->ntx; i++)
		ixm_net_drop(np, np->tx[i], IXM_DROP_TX_STALL);
	np->ntx = 0;
	np->tx_stall_ns = 0;
	np->tx_blocked = false;
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
