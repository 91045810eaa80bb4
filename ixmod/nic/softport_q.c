// SPDX-License-Identifier: GPL-2.0
/*
 * softport_q.c - a software port's queue pair (softport_q.h has the rings)
 *
 * PORTABLE: builds in the module and on the host (unit/softport.c drives
 * both sides).  The core's side is struct ixm_queue_ops; the device side
 * is what Linux's half of the port (../softport.c) calls when it has a
 * frame for the core or wants the core's frames.
 */
#include "softport_q.h"

#define IXM_SWQ_MASK	(IXM_SWQ_SIZE - 1)

/* ---- the core's side ---- */

static unsigned int ixm_swq_rx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				     unsigned int max)
{
	struct ixm_swq *sq = ixm_swq(q);
	u32 done = ixm_load_acquire(&sq->rx_done);	/* pairs with dev_rx_commit */
	unsigned int n = min_t(u32, done - sq->rx_clean, max), i;

	for (i = 0; i < n; i++)
		m[i] = sq->rx_slot[(sq->rx_clean + i) & IXM_SWQ_MASK];
	WRITE_ONCE(sq->rx_clean, sq->rx_clean + n);
	return n;
}

/* Post a buffer in every free slot; the device side sees them at once. */
static void ixm_swq_rx_refill(struct ixm_queue *q)
{
	struct ixm_swq *sq = ixm_swq(q);
	u32 post = sq->rx_post;

	while (post - sq->rx_clean < IXM_SWQ_SIZE) {
		struct ixm_mbuf *m = ixm_mbuf_alloc(sq->pool);

		if (!m) {
			WRITE_ONCE(sq->rx_no_buf, sq->rx_no_buf + 1);
			break;
		}
		sq->rx_slot[post++ & IXM_SWQ_MASK] = m;
	}
	if (post != sq->rx_post)
		ixm_store_release(&sq->rx_post, post);	/* pairs with dev_rx_next */
}

static unsigned int ixm_swq_tx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				     unsigned int n)
{
	struct ixm_swq *sq = ixm_swq(q);
	u32 room = IXM_SWQ_SIZE - (sq->tx_prod - sq->tx_reaped);
	unsigned int k = min_t(u32, n, room), i;

	if (k < n)
		WRITE_ONCE(sq->tx_full, sq->tx_full + n - k);
	if (!k)
		return 0;
	for (i = 0; i < k; i++)
		sq->tx_slot[(sq->tx_prod + i) & IXM_SWQ_MASK] = m[i];
	ixm_store_release(&sq->tx_prod, sq->tx_prod + k);	/* pairs with dev_tx_avail */
	sq->kick(sq);
	return k;
}

static unsigned int ixm_swq_tx_reap(struct ixm_queue *q)
{
	struct ixm_swq *sq = ixm_swq(q);
	u32 done = ixm_load_acquire(&sq->tx_done);	/* pairs with dev_tx_commit */
	unsigned int n = min_t(u32, done - sq->tx_reaped, IXM_TX_REAP_BUDGET), i;

	for (i = 0; i < n; i++)
		ixm_mbuf_free(sq->tx_slot[(sq->tx_reaped + i) & IXM_SWQ_MASK]);
	WRITE_ONCE(sq->tx_reaped, sq->tx_reaped + n);
	return n;
}

static bool ixm_swq_busy(const struct ixm_queue *q)
{
	const struct ixm_swq *sq = container_of(q, const struct ixm_swq, q);

	return READ_ONCE(sq->rx_done) != sq->rx_clean || sq->tx_prod != sq->tx_reaped;
}

/*
 * Before the core sleeps.  The full barrier orders the store of @armed
 * before the core's last look at the indices (the loop looks once more
 * after arming); the device side orders its index store before its look
 * at @armed the same way, so one of the two sees the other (store
 * buffering: both may, never neither).
 */
static bool ixm_swq_arm(struct ixm_queue *q)
{
	struct ixm_swq *sq = ixm_swq(q);

	if (q->vector < 0)
		return true;
	WRITE_ONCE(sq->armed, 1);
	ixm_smp_mb();
	return true;
}

static void ixm_swq_disarm(struct ixm_queue *q)
{
	WRITE_ONCE(ixm_swq(q)->armed, 0);
}

static void ixm_swq_get_stats(const struct ixm_queue *q, struct ixm_queue_stats *s)
{
	const struct ixm_swq *sq = container_of(q, const struct ixm_swq, q);

	memset(s, 0, sizeof(*s));
	s->rx_errors = 0;
	s->rx_no_buf = READ_ONCE(sq->rx_no_buf);
	s->rx_csum_hw = READ_ONCE(sq->dev_rx_csum);
	s->tx_full = READ_ONCE(sq->tx_full);
	s->tx_csum_hw = READ_ONCE(sq->dev_tx_csum);
	s->rx_posted = (u32)(READ_ONCE(sq->rx_post) - READ_ONCE(sq->rx_clean));
	s->tx_pending = (u32)(READ_ONCE(sq->tx_prod) - READ_ONCE(sq->tx_reaped));
}

const struct ixm_queue_ops ixm_swq_ops = {
	.rx_burst	= ixm_swq_rx_burst,
	.rx_refill	= ixm_swq_rx_refill,
	.tx_burst	= ixm_swq_tx_burst,
	.tx_reap	= ixm_swq_tx_reap,
	.busy		= ixm_swq_busy,
	.arm		= ixm_swq_arm,
	.disarm		= ixm_swq_disarm,
	.get_stats	= ixm_swq_get_stats,
};

/**
 * ixm_swq_alloc() - a queue pair with every receive slot posted
 * @idx: its number on the port
 * @pool: receive buffers; it must hold at least IXM_SWQ_SIZE
 * @node: NUMA node of the core that will own it
 *
 * @kick and @kick_data are the caller's to set before the core runs.
 *
 * Return: the queue pair, or NULL when out of memory or buffers.
 */
struct ixm_swq *ixm_swq_alloc(unsigned int idx, struct ixm_mbuf_pool *pool, int node)
{
	struct ixm_swq *sq = ixm_zalloc_node(sizeof(*sq), node);

	if (!sq)
		return NULL;
	sq->q.ops = &ixm_swq_ops;
	sq->q.idx = idx;
	sq->q.vector = -1;
	sq->pool = pool;
	sq->rx_slot = ixm_zalloc_node(IXM_SWQ_SIZE * sizeof(*sq->rx_slot), node);
	sq->tx_slot = ixm_zalloc_node(IXM_SWQ_SIZE * sizeof(*sq->tx_slot), node);
	if (!sq->rx_slot || !sq->tx_slot)
		goto err;
	ixm_swq_rx_refill(&sq->q);
	if (sq->rx_post != IXM_SWQ_SIZE)
		goto err;
	return sq;
err:
	ixm_swq_free(sq);
	return NULL;
}

/**
 * ixm_swq_free() - give every buffer back to the pool and free the rings
 * @sq: a queue pair neither side uses any more
 *
 * Frames never copied out are freed as never sent.
 */
void ixm_swq_free(struct ixm_swq *sq)
{
	u32 i;

	if (sq->rx_slot)
		for (i = sq->rx_clean; i != sq->rx_post; i++)
			ixm_mbuf_free(sq->rx_slot[i & IXM_SWQ_MASK]);
	if (sq->tx_slot)
		for (i = sq->tx_reaped; i != sq->tx_prod; i++)
			ixm_mbuf_free(sq->tx_slot[i & IXM_SWQ_MASK]);
	ixm_free(sq->rx_slot);
	ixm_free(sq->tx_slot);
	ixm_free(sq);
}

/* ---- the device side ---- */

/* Does the core want its interrupt?  After an index was published. */
static bool ixm_swq_want_irq(struct ixm_swq *sq)
{
	ixm_smp_mb();	/* the index store before the look at @armed (see arm) */
	return READ_ONCE(sq->armed);
}

/**
 * ixm_swq_dev_rx_next() - the buffer the next received frame goes into
 * @sq: the queue pair
 *
 * The caller writes the frame at @m->buf + IXM_MBUF_HEADROOM (at most
 * IXM_MBUF_DATA_MAX bytes), sets @m->len and @m->flags, and commits it;
 * or drops the frame and leaves the buffer for the next one.
 *
 * Context: the ring's one device-side producer.
 * Return: the buffer, or NULL when the core posted none (the caller drops
 * the frame and counts it in @dev_rx_dropped, as a NIC out of
 * descriptors).
 */
struct ixm_mbuf *ixm_swq_dev_rx_next(struct ixm_swq *sq)
{
	u32 post = ixm_load_acquire(&sq->rx_post);	/* pairs with rx_refill */

	if (sq->rx_done == post) {
		WRITE_ONCE(sq->dev_rx_dropped, sq->dev_rx_dropped + 1);
		return NULL;
	}
	return sq->rx_slot[sq->rx_done & IXM_SWQ_MASK];
}

/**
 * ixm_swq_dev_rx_commit() - hand the frame in @m to the core
 * @sq: the queue pair
 * @m: what ixm_swq_dev_rx_next() returned, filled
 *
 * Return: true if the core sleeps and wants its interrupt (the caller
 * raises it: ixm_port_queue_irq()).
 */
bool ixm_swq_dev_rx_commit(struct ixm_swq *sq, struct ixm_mbuf *m)
{
	m->data = m->buf + IXM_MBUF_HEADROOM;
	ixm_store_release(&sq->rx_done, sq->rx_done + 1);	/* pairs with rx_burst */
	return ixm_swq_want_irq(sq);
}

/**
 * ixm_swq_dev_tx_avail() - frames the core queued that are not copied out
 * @sq: the queue pair
 *
 * Context: the ring's one device-side consumer.
 * Return: how many; ixm_swq_dev_tx_frame() reads them in order.
 */
unsigned int ixm_swq_dev_tx_avail(struct ixm_swq *sq)
{
	return ixm_load_acquire(&sq->tx_prod) - sq->tx_done;	/* pairs with tx_burst */
}

/**
 * ixm_swq_dev_tx_frame() - the @i-th frame not yet copied out
 * @sq: the queue pair
 * @i: below what ixm_swq_dev_tx_avail() returned
 *
 * A frame is @m->data[0..@m->len) and then its fragments (the caller
 * translates their bus addresses); the caller must not change it.
 *
 * Return: the frame's buffer.
 */
struct ixm_mbuf *ixm_swq_dev_tx_frame(struct ixm_swq *sq, unsigned int i)
{
	return sq->tx_slot[(sq->tx_done + i) & IXM_SWQ_MASK];
}

/**
 * ixm_swq_dev_tx_commit() - the next @n frames are copied out
 * @sq: the queue pair
 * @n: at most what ixm_swq_dev_tx_avail() returned
 *
 * The core may reuse their buffers (and the memory their fragments read)
 * from now on.
 *
 * Return: true if the core sleeps and wants its interrupt.
 */
bool ixm_swq_dev_tx_commit(struct ixm_swq *sq, unsigned int n)
{
	ixm_store_release(&sq->tx_done, sq->tx_done + n);	/* pairs with tx_reap */
	return ixm_swq_want_irq(sq);
}
