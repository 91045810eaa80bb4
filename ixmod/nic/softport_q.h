/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softport_q.h - a software port's queue pair: two rings between a
 * dataplane core and Linux
 *
 * PORTABLE.  A software port (../softport.c) has no device; Linux plays
 * its part.  What Linux transmits on the port's netdev is the port's
 * receive ring's input, and the netdev's NAPI poll is its transmit ring's
 * output.  struct ixm_swq is the queue pair the port and the loop see
 * (struct ixm_queue_ops); the ixm_swq_dev_*() functions are the device's
 * side, called by the netdev's code.
 *
 * Each ring has one producer and one consumer, and three free-running
 * u32 indices, each written by one side only:
 *
 *   receive:  @rx_post   buffers the core posted          (core)
 *             @rx_done   of those, filled with a frame    (device side)
 *             @rx_clean  of those, taken by the core      (core)
 *   transmit: @tx_prod   frames the core queued           (core)
 *             @tx_done   of those, copied out by Linux    (device side)
 *             @tx_reaped of those, freed by the core      (core)
 *
 * with clean <= done <= post <= clean + size (and the same for
 * reaped, done, prod).  A side publishes what it wrote with a release
 * store of its index and reads the other side's with an acquire load:
 * a filled buffer's frame is complete before @rx_done covers it, a
 * posted buffer's slot is written before @rx_post covers it.  This is a
 * NIC's descriptor ring with the ownership bit replaced by the indices.
 *
 * The device side is serialised per ring by its caller: one netdev
 * transmit queue (its lock) per receive ring, one NAPI instance per
 * transmit ring.
 */
#ifndef _IXM_NIC_SOFTPORT_Q_H
#define _IXM_NIC_SOFTPORT_Q_H

#include "nic.h"

#define IXM_SWQ_SIZE	512	/* slots per ring, a power of two */

struct ixm_swq;

/**
 * struct ixm_swq - a software port's queue pair
 * @q: what the port and the loop hold (ops = &ixm_swq_ops)
 * @pool: where receive buffers come from
 * @kick: called by the core after it queued frames to send, to get the
 *	device side to copy them out (the netdev schedules its NAPI)
 * @kick_data: for @kick
 * @rx_slot: the receive ring, IXM_SWQ_SIZE buffers
 * @tx_slot: the transmit ring
 * @rx_post: see the top of this file (core)
 * @rx_clean: (core)
 * @tx_prod: (core)
 * @tx_reaped: (core)
 * @rx_no_buf: refills that found the pool empty (core)
 * @tx_full: frames refused because the transmit ring was full (core)
 * @rx_done: (device side)
 * @tx_done: (device side)
 * @armed: the core sleeps and wants its interrupt (set by the core,
 *	cleared by whoever raises it)
 * @dev_rx_dropped: frames the device side dropped: no buffer posted (it)
 * @dev_rx_csum: frames whose TCP/UDP checksum the device side computed
 *	while copying (it)
 * @dev_tx_csum: frames whose checksums the device side left to Linux,
 *	as a NIC inserting them would (it)
 */
struct ixm_swq {
	struct ixm_queue	q;
	struct ixm_mbuf_pool	*pool;
	void			(*kick)(struct ixm_swq *sq);
	void			*kick_data;
	struct ixm_mbuf		**rx_slot;
	struct ixm_mbuf		**tx_slot;

	/* the core's */
	u32			rx_post;
	u32			rx_clean;
	u32			tx_prod;
	u32			tx_reaped;
	u64			rx_no_buf;
	u64			tx_full;

	/* the device side's */
	u32			rx_done;
	u32			tx_done;
	u64			dev_rx_dropped;
	u64			dev_rx_csum;
	u64			dev_tx_csum;

	u32			armed;
};

static inline struct ixm_swq *ixm_swq(struct ixm_queue *q)
{
	return container_of(q, struct ixm_swq, q);
}

extern const struct ixm_queue_ops ixm_swq_ops;

struct ixm_swq *ixm_swq_alloc(unsigned int idx, struct ixm_mbuf_pool *pool, int node);
void ixm_swq_free(struct ixm_swq *sq);

/* the device side */
struct ixm_mbuf *ixm_swq_dev_rx_next(struct ixm_swq *sq);
bool ixm_swq_dev_rx_commit(struct ixm_swq *sq, struct ixm_mbuf *m);
unsigned int ixm_swq_dev_tx_avail(struct ixm_swq *sq);
struct ixm_mbuf *ixm_swq_dev_tx_frame(struct ixm_swq *sq, unsigned int i);
bool ixm_swq_dev_tx_commit(struct ixm_swq *sq, unsigned int n);

#endif /* _IXM_NIC_SOFTPORT_Q_H */
