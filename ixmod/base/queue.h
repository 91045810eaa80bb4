/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queue.h - the queue contract: one core's queue pair as the loop sees it
 *
 * PORTABLE.  Every device's queue pair (Intel advanced descriptors,
 * virtio-net, a software port, the host tests' wire) is a struct ixm_queue
 * with the same struct ixm_queue_ops; the loop (net/loop.c) calls those and
 * nothing of a driver's, and the drivers (nic/) know nothing of the loop.
 * How a device allocates, starts and stops its queues is the other half of
 * the contract, struct ixm_nic_ops in nic/nic.h, which the port calls.
 *
 * Buffers travel as struct ixm_mbuf; DMA synchronisation is the
 * implementation's business, not the loop's.  A queue belongs to one
 * dataplane core while its port is up and is touched by no one else,
 * except for @get_stats (a racy read) and @disarm (its interrupt).
 */
#ifndef _IXM_BASE_QUEUE_H
#define _IXM_BASE_QUEUE_H

#include "platform.h"
#include "mbuf.h"

struct ixm_queue;

/*
 * Frames a queue's tx_reap frees at most per call: a core that filled its
 * ring returns to its receive work between batches (ixgbe's clean budget).
 */
#define IXM_TX_REAP_BUDGET	128

/**
 * struct ixm_queue_stats - what a queue pair counts, as the port reports it
 * @rx_errors: frames the device delivered with an error (dropped)
 * @rx_no_buf: refills that found the pool empty
 * @rx_csum_hw: received frames whose checksums the device checked
 * @tx_full: frames refused because the ring was full
 * @tx_csum_hw: frames whose checksums the device inserted
 * @rx_posted: receive buffers on the ring now (a gauge)
 * @tx_pending: frames sent but not yet reaped now, each holding one
 *	buffer (a gauge)
 * @rx_steered: frames the device delivered to this queue that were another
 *	queue's, copied to it (software steering, nic/steer.c; 0 without)
 * @rx_steer_drops: such frames dropped: their queue had no buffer posted
 *	for this one
 * @rx_steered_in: frames other queues steered to this one, taken
 */
struct ixm_queue_stats {
	u64	rx_errors;
	u64	rx_no_buf;
	u64	rx_csum_hw;
	u64	tx_full;
	u64	tx_csum_hw;
	u64	rx_posted;
	u64	tx_pending;
	u64	rx_steered;
	u64	rx_steer_drops;
	u64	rx_steered_in;
};

/**
 * struct ixm_queue_ops - one queue pair's data path, as the loop calls it
 * @rx_burst: up to @max received frames, already readable by the CPU;
 *	returns how many were written to @m
 * @rx_refill: give the device fresh buffers for the ones taken
 * @tx_burst: hand @m[0..@n) to the device, each already readable by it;
 *	returns how many it took, a prefix of @m (the caller drops the rest)
 * @tx_reap: take back the buffers of finished transmissions; returns the
 *	descriptors reaped
 * @busy: a cheap look, without side effects: a received frame is ready
 *	or a transmission is not yet reaped (an idle core's loop asks this
 *	instead of running a whole iteration)
 * @arm: before its core sleeps: let the queue's next received frame raise
 *	interrupt @q->vector (the core looks at the queue once more after
 *	this, so a frame that came first is not missed); returns false when
 *	a frame already waits and the queue could not arm: the core must
 *	not sleep then, even if its last look finds no work of its own (a
 *	frame the look steers to another core counts as none, and the
 *	queue interrupts for no later frame until it is armed again)
 * @disarm: from that interrupt's handler: no more interrupts until the
 *	next @arm
 * @get_stats: the queue's counters, read racily by the control plane
 *	while the loop runs (each is a u64 written by one core); every
 *	field is filled, 0 where the queue keeps no such count
 *
 * Every entry is set by every implementation.  The loop calls the first
 * five through ixm_queue_rx_burst() and its siblings below.
 */
struct ixm_queue_ops {
	unsigned int	(*rx_burst)(struct ixm_queue *q, struct ixm_mbuf **m,
				    unsigned int max);
	void		(*rx_refill)(struct ixm_queue *q);
	unsigned int	(*tx_burst)(struct ixm_queue *q, struct ixm_mbuf **m,
				    unsigned int n);
	unsigned int	(*tx_reap)(struct ixm_queue *q);
	bool		(*busy)(const struct ixm_queue *q);
	bool		(*arm)(struct ixm_queue *q);
	void		(*disarm)(struct ixm_queue *q);
	void		(*get_stats)(const struct ixm_queue *q,
				     struct ixm_queue_stats *s);
};

/**
 * struct ixm_queue - one core's receive and transmit queue on a port
 * @ops: its data path
 * @idx: the device's queue pair number
 * @vector: the MSI-X vector that wakes its core (-1: none; set by the
 *	port after the device's queue_alloc)
 *
 * Embedded in the driver's own queue type (struct ixm_adv_queue,
 * struct ixm_vnet_queue, ...), which container_of() finds.
 */
struct ixm_queue {
	const struct ixm_queue_ops	*ops;
	u16				idx;
	int				vector;
};

/*
 * The loop's calls into a queue.  Each is an indirect call, which costs a
 * retpoline on a kernel that uses them.  The build may name the queue
 * implementation most ports are expected to have: IXM_QUEUE_LIKELY, the
 * prefix of its functions (<prefix>_rx_burst and so on), set on the
 * compiler's command line (ixmod/Kbuild).  A port whose ops are that
 * implementation's is then called directly (INDIRECT_CALL_1()), and every
 * other port as before.  Without it (the host build), plain indirect calls.
 */
#ifdef IXM_QUEUE_LIKELY
#define __IXM_QUEUE_PASTE(a, b)	a##b
#define IXM_QUEUE_PASTE(a, b)	__IXM_QUEUE_PASTE(a, b)
#define IXM_QUEUE_LIKELY_FN(op)	IXM_QUEUE_PASTE(IXM_QUEUE_LIKELY, op)

unsigned int IXM_QUEUE_LIKELY_FN(_rx_burst)(struct ixm_queue *q,
					    struct ixm_mbuf **m,
					    unsigned int max);
void IXM_QUEUE_LIKELY_FN(_rx_refill)(struct ixm_queue *q);
unsigned int IXM_QUEUE_LIKELY_FN(_tx_burst)(struct ixm_queue *q,
					    struct ixm_mbuf **m,
					    unsigned int n);
unsigned int IXM_QUEUE_LIKELY_FN(_tx_reap)(struct ixm_queue *q);
bool IXM_QUEUE_LIKELY_FN(_busy)(const struct ixm_queue *q);

#define IXM_QUEUE_CALL(q, op, ...) \
	IXM_INDIRECT_CALL_1((q)->ops->op, IXM_QUEUE_LIKELY_FN(_##op), __VA_ARGS__)
#else
#define IXM_QUEUE_CALL(q, op, ...)	((q)->ops->op(__VA_ARGS__))
#endif

static inline unsigned int ixm_queue_rx_burst(struct ixm_queue *q,
					      struct ixm_mbuf **m,
					      unsigned int max)
{
	return IXM_QUEUE_CALL(q, rx_burst, q, m, max);
}

static inline void ixm_queue_rx_refill(struct ixm_queue *q)
{
	IXM_QUEUE_CALL(q, rx_refill, q);
}

static inline unsigned int ixm_queue_tx_burst(struct ixm_queue *q,
					      struct ixm_mbuf **m,
					      unsigned int n)
{
	return IXM_QUEUE_CALL(q, tx_burst, q, m, n);
}

static inline unsigned int ixm_queue_tx_reap(struct ixm_queue *q)
{
	return IXM_QUEUE_CALL(q, tx_reap, q);
}

static inline bool ixm_queue_busy(const struct ixm_queue *q)
{
	return IXM_QUEUE_CALL(q, busy, q);
}

#endif /* _IXM_BASE_QUEUE_H */
