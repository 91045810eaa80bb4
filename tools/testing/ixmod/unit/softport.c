// SPDX-License-Identifier: GPL-2.0
/*
 * softport.c - the software port's queue pair (nic/softport_q.c): the
 * core's side through struct ixm_queue_ops, the device side (Linux's, in
 * the module) called directly, and both at once from two threads
 *
 * Every test ends with every buffer back in its pool.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "softport_q.h"
#include "harness.h"

#define NBUF	1024

struct rig {
	struct ixm_mbuf_pool	pool;
	struct ixm_mbuf		mbufs[NBUF];
	struct ixm_mbuf		*free[NBUF];
	struct ixm_swq		*sq;
	unsigned int		kicks;
};

static void rig_kick(struct ixm_swq *sq)
{
	struct rig *r = sq->kick_data;

	__atomic_fetch_add(&r->kicks, 1, __ATOMIC_RELAXED);
}

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));
	unsigned int i;

	for (i = 0; i < NBUF; i++) {
		r->mbufs[i].buf = calloc(1, IXM_MBUF_SIZE);
		r->mbufs[i].dma = (dma_addr_t)(uintptr_t)r->mbufs[i].buf;
	}
	ixm_mbuf_pool_init(&r->pool, r->mbufs, r->free, NBUF);
	r->sq = ixm_swq_alloc(3, &r->pool, 0);
	if (r->sq) {
		r->sq->kick = rig_kick;
		r->sq->kick_data = r;
	}
	return r;
}

/* Free the queue pair; true if every buffer came back. */
static bool rig_free(struct rig *r)
{
	bool all;
	unsigned int i;

	ixm_swq_free(r->sq);
	all = r->pool.nfree == NBUF;
	for (i = 0; i < NBUF; i++)
		free(r->mbufs[i].buf);
	free(r);
	return all;
}

/* The device side receives a frame of @len bytes, each @seq's low byte. */
static bool dev_rx(struct ixm_swq *sq, u32 seq, u16 len, bool *irq)
{
	struct ixm_mbuf *m = ixm_swq_dev_rx_next(sq);
	bool want;

	if (!m)
		return false;
	memset(m->buf + IXM_MBUF_HEADROOM, seq & 0xff, len);
	memcpy(m->buf + IXM_MBUF_HEADROOM, &seq, sizeof(seq));
	m->len = len;
	m->flags = IXM_MBUF_F_L4_CSUM_OK;
	want = ixm_swq_dev_rx_commit(sq, m);
	if (irq)
		*irq = want;
	return true;
}

static u32 frame_seq(const struct ixm_mbuf *m)
{
	u32 seq;

	memcpy(&seq, m->data, sizeof(seq));
	return seq;
}

TEST(rx_frames_arrive_in_order_and_the_ring_is_refilled)
{
	struct rig *r = rig_new();
	struct ixm_queue *q = &r->sq->q;
	struct ixm_mbuf *m[8];
	struct ixm_queue_stats s;
	unsigned int i, n;

	ASSERT_NE(NULL, r->sq);
	q->ops->get_stats(q, &s);
	EXPECT_EQ(IXM_SWQ_SIZE, s.rx_posted);
	EXPECT_EQ(NBUF - IXM_SWQ_SIZE, r->pool.nfree);
	EXPECT_FALSE(q->ops->busy(q));
	for (i = 0; i < 3; i++)
		ASSERT_TRUE(dev_rx(r->sq, 100 + i, 60 + i, NULL));
	EXPECT_TRUE(q->ops->busy(q));
	n = q->ops->rx_burst(q, m, 8);
	ASSERT_EQ(3, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(100 + i, frame_seq(m[i]));
		EXPECT_EQ(60 + i, m[i]->len);
		EXPECT_EQ(IXM_MBUF_F_L4_CSUM_OK, m[i]->flags);
		EXPECT_EQ(m[i]->buf + IXM_MBUF_HEADROOM, m[i]->data);
		ixm_mbuf_free(m[i]);
	}
	EXPECT_FALSE(q->ops->busy(q));
	q->ops->get_stats(q, &s);
	EXPECT_EQ(IXM_SWQ_SIZE - 3, s.rx_posted);
	q->ops->rx_refill(q);
	q->ops->get_stats(q, &s);
	EXPECT_EQ(IXM_SWQ_SIZE, s.rx_posted);
	EXPECT_TRUE(rig_free(r));
}

TEST(rx_drops_and_counts_a_frame_when_nothing_is_posted)
{
	struct rig *r = rig_new();
	struct ixm_queue *q = &r->sq->q;
	struct ixm_mbuf *m[64];
	unsigned int i, n, got = 0;

	ASSERT_NE(NULL, r->sq);
	for (i = 0; i < IXM_SWQ_SIZE; i++)
		ASSERT_TRUE(dev_rx(r->sq, i, 64, NULL));
	EXPECT_FALSE(dev_rx(r->sq, 9999, 64, NULL));
	EXPECT_EQ(1, r->sq->dev_rx_dropped);
	/* the core takes them all; until it refills, still nothing posted */
	while ((n = q->ops->rx_burst(q, m, 64))) {
		for (i = 0; i < n; i++) {
			EXPECT_EQ(got + i, frame_seq(m[i]));
			ixm_mbuf_free(m[i]);
		}
		got += n;
	}
	EXPECT_EQ(IXM_SWQ_SIZE, got);
	EXPECT_FALSE(dev_rx(r->sq, 9999, 64, NULL));
	EXPECT_EQ(2, r->sq->dev_rx_dropped);
	q->ops->rx_refill(q);
	EXPECT_TRUE(dev_rx(r->sq, 7, 64, NULL));
	EXPECT_TRUE(rig_free(r));
}

TEST(rx_refill_counts_an_empty_pool)
{
	struct rig *r = rig_new();
	struct ixm_queue *q = &r->sq->q;
	struct ixm_mbuf *m[IXM_SWQ_SIZE], *held[NBUF];
	struct ixm_queue_stats s;
	unsigned int i, n, nheld = 0;

	ASSERT_NE(NULL, r->sq);
	while (r->pool.nfree)
		held[nheld++] = ixm_mbuf_alloc(&r->pool);
	for (i = 0; i < 10; i++)
		ASSERT_TRUE(dev_rx(r->sq, i, 64, NULL));
	n = q->ops->rx_burst(q, m, IXM_SWQ_SIZE);
	ASSERT_EQ(10, n);
	q->ops->rx_refill(q);
	q->ops->get_stats(q, &s);
	EXPECT_EQ(1, s.rx_no_buf);
	EXPECT_EQ(IXM_SWQ_SIZE - 10, s.rx_posted);
	for (i = 0; i < n; i++)
		ixm_mbuf_free(m[i]);
	while (nheld)
		ixm_mbuf_free(held[--nheld]);
	q->ops->rx_refill(q);
	q->ops->get_stats(q, &s);
	EXPECT_EQ(IXM_SWQ_SIZE, s.rx_posted);
	EXPECT_TRUE(rig_free(r));
}

/* A frame to send: @len bytes in the buffer, @frag more outside it. */
static struct ixm_mbuf *tx_frame(struct rig *r, u32 seq, u16 len, u32 *inflight,
				 u8 *frag, u32 fraglen)
{
	struct ixm_mbuf *m = ixm_mbuf_alloc(&r->pool);

	if (!m)
		return NULL;
	memcpy(m->data, &seq, sizeof(seq));
	m->len = len;
	if (frag) {
		m->nfrags = 1;
		m->frags[0].dma = (dma_addr_t)(uintptr_t)frag;
		m->frags[0].len = fraglen;
		m->inflight = inflight;
		(*inflight)++;
	}
	return m;
}

TEST(tx_frames_reach_the_device_side_in_order_then_are_reaped)
{
	struct rig *r = rig_new();
	struct ixm_queue *q = &r->sq->q;
	struct ixm_mbuf *m[3], *d;
	u8 payload[300];
	u32 inflight = 0;
	unsigned int i, nfree;

	ASSERT_NE(NULL, r->sq);
	memset(payload, 0xab, sizeof(payload));
	nfree = r->pool.nfree;
	m[0] = tx_frame(r, 10, 60, NULL, NULL, 0);
	m[1] = tx_frame(r, 11, 54, &inflight, payload, sizeof(payload));
	m[2] = tx_frame(r, 12, 1514, NULL, NULL, 0);
	ASSERT_EQ(3, q->ops->tx_burst(q, m, 3));
	EXPECT_EQ(1, r->kicks);
	EXPECT_TRUE(q->ops->busy(q));
	/* nothing is reaped before the device side copied it out */
	EXPECT_EQ(0, q->ops->tx_reap(q));
	ASSERT_EQ(3, ixm_swq_dev_tx_avail(r->sq));
	for (i = 0; i < 3; i++) {
		d = ixm_swq_dev_tx_frame(r->sq, i);
		EXPECT_EQ(10 + i, frame_seq(d));
	}
	d = ixm_swq_dev_tx_frame(r->sq, 1);
	EXPECT_EQ(54 + sizeof(payload), ixm_mbuf_frame_len(d));
	EXPECT_EQ((uintptr_t)payload, (uintptr_t)d->frags[0].dma);
	EXPECT_FALSE(ixm_swq_dev_tx_commit(r->sq, 2));
	EXPECT_EQ(1, ixm_swq_dev_tx_avail(r->sq));
	EXPECT_EQ(2, q->ops->tx_reap(q));
	EXPECT_EQ(0, inflight);	/* the fragment's memory is free again */
	EXPECT_TRUE(q->ops->busy(q));
	ixm_swq_dev_tx_commit(r->sq, 1);
	EXPECT_EQ(1, q->ops->tx_reap(q));
	EXPECT_EQ(nfree, r->pool.nfree);
	EXPECT_FALSE(q->ops->busy(q));
	EXPECT_TRUE(rig_free(r));
}

TEST(tx_takes_what_fits_and_counts_the_rest)
{
	struct rig *r = rig_new();
	struct ixm_queue *q = &r->sq->q;
	struct ixm_mbuf *m[IXM_SWQ_SIZE + 20];
	struct ixm_queue_stats s;
	unsigned int i, n = ARRAY_SIZE(m) - 20;

	ASSERT_NE(NULL, r->sq);
	/* the pool has NBUF - IXM_SWQ_SIZE = 512 left: fill the ring first */
	for (i = 0; i < n; i++)
		ASSERT_NE(NULL, m[i] = tx_frame(r, i, 60, NULL, NULL, 0));
	ASSERT_EQ(n, q->ops->tx_burst(q, m, n));
	EXPECT_EQ(0, q->ops->tx_burst(q, m, 1));	/* full: nothing taken */
	q->ops->get_stats(q, &s);
	EXPECT_EQ(1, s.tx_full);
	EXPECT_EQ(IXM_SWQ_SIZE, s.tx_pending);
	EXPECT_EQ(1, r->kicks);	/* no kick for nothing queued */
	ixm_swq_dev_tx_commit(r->sq, ixm_swq_dev_tx_avail(r->sq));
	/* reaped in budgets, so a core that sent much returns to receiving */
	EXPECT_EQ(IXM_TX_REAP_BUDGET, q->ops->tx_reap(q));
	while (q->ops->tx_reap(q))
		;
	q->ops->get_stats(q, &s);
	EXPECT_EQ(0, s.tx_pending);
	EXPECT_TRUE(rig_free(r));
}

TEST(an_armed_queue_asks_for_one_interrupt)
{
	struct rig *r = rig_new();
	struct ixm_queue *q = &r->sq->q;
	struct ixm_mbuf *m[2];
	bool irq = true;

	ASSERT_NE(NULL, r->sq);
	/* no vector: arming does nothing (the core cannot be woken) */
	q->ops->arm(q);
	ASSERT_TRUE(dev_rx(r->sq, 1, 64, &irq));
	EXPECT_FALSE(irq);

	q->vector = 0;
	q->ops->arm(q);
	ASSERT_TRUE(dev_rx(r->sq, 2, 64, &irq));
	EXPECT_TRUE(irq);
	q->ops->disarm(q);	/* what the interrupt's handler does */
	ASSERT_TRUE(dev_rx(r->sq, 3, 64, &irq));
	EXPECT_FALSE(irq);

	/* transmit completions wake an armed core too (reap, arena drain) */
	m[0] = tx_frame(r, 4, 60, NULL, NULL, 0);
	ASSERT_EQ(1, q->ops->tx_burst(q, m, 1));
	q->ops->arm(q);
	EXPECT_TRUE(ixm_swq_dev_tx_commit(r->sq, 1));
	EXPECT_TRUE(rig_free(r));
}

TEST(free_returns_every_buffer_from_both_rings)
{
	struct rig *r = rig_new();
	struct ixm_queue *q = &r->sq->q;
	struct ixm_mbuf *m[8];
	unsigned int i;

	ASSERT_NE(NULL, r->sq);
	/* received, not taken; sent, copied out but not reaped; sent, not copied */
	for (i = 0; i < 5; i++)
		ASSERT_TRUE(dev_rx(r->sq, i, 64, NULL));
	for (i = 0; i < 8; i++)
		m[i] = tx_frame(r, i, 60, NULL, NULL, 0);
	ASSERT_EQ(8, q->ops->tx_burst(q, m, 8));
	ixm_swq_dev_tx_commit(r->sq, 3);
	EXPECT_TRUE(rig_free(r));
}

TEST(alloc_fails_cleanly_without_enough_buffers)
{
	struct ixm_mbuf_pool pool;
	struct ixm_mbuf mbufs[IXM_SWQ_SIZE - 1], *free_[IXM_SWQ_SIZE - 1];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mbufs); i++)
		mbufs[i].buf = NULL;
	ixm_mbuf_pool_init(&pool, mbufs, free_, ARRAY_SIZE(mbufs));
	EXPECT_EQ(NULL, ixm_swq_alloc(0, &pool, 0));
	EXPECT_EQ(ARRAY_SIZE(mbufs), pool.nfree);
}

/*
 * Both rings at once from two threads, as in the module: this thread is
 * the core, the other Linux (its transmit queue's xmit and its NAPI
 * poll).  The device side offers each frame until a buffer takes it (a
 * refused offer is counted as a drop), so every frame must arrive, in
 * order, both ways.
 */
#define STRESS_FRAMES	200000

struct stress {
	struct rig	*r;
	u32		rx_offered;
	u32		tx_seen;
	u32		tx_bad;
};

static void *stress_dev(void *arg)
{
	struct stress *st = arg;
	struct ixm_swq *sq = st->r->sq;
	u32 next_tx = 0;

	while (st->rx_offered < STRESS_FRAMES || next_tx < STRESS_FRAMES) {
		unsigned int n, i;

		if (st->rx_offered < STRESS_FRAMES && dev_rx(sq, st->rx_offered, 64, NULL))
			st->rx_offered++;
		n = ixm_swq_dev_tx_avail(sq);
		for (i = 0; i < n; i++)
			if (frame_seq(ixm_swq_dev_tx_frame(sq, i)) != next_tx + i)
				st->tx_bad++;
		if (n) {
			ixm_swq_dev_tx_commit(sq, n);
			next_tx += n;
		}
	}
	__atomic_store_n(&st->tx_seen, next_tx, __ATOMIC_RELEASE);
	return NULL;
}

TEST(two_threads_keep_order_and_lose_nothing)
{
	struct stress st = { .r = rig_new() };
	struct ixm_queue *q = &st.r->sq->q;
	struct ixm_mbuf *m[32];
	u32 rx_got = 0, rx_bad = 0, tx_next = 0;
	pthread_t t;
	unsigned int i, n;

	ASSERT_NE(NULL, st.r->sq);
	ASSERT_EQ(0, pthread_create(&t, NULL, stress_dev, &st));
	while (!__atomic_load_n(&st.tx_seen, __ATOMIC_ACQUIRE) ||
	       q->ops->busy(q)) {
		n = q->ops->rx_burst(q, m, 32);
		for (i = 0; i < n; i++) {
			if (frame_seq(m[i]) != rx_got + i)
				rx_bad++;
			ixm_mbuf_free(m[i]);
		}
		rx_got += n;
		q->ops->rx_refill(q);
		q->ops->tx_reap(q);
		if (tx_next < STRESS_FRAMES) {
			n = 0;
			while (n < 8 && tx_next + n < STRESS_FRAMES) {
				m[n] = tx_frame(st.r, tx_next + n, 60, NULL, NULL, 0);
				if (!m[n])
					break;
				n++;
			}
			i = q->ops->tx_burst(q, m, n);
			tx_next += i;
			while (i < n)
				ixm_mbuf_free(m[i++]);
		}
	}
	pthread_join(t, NULL);
	EXPECT_EQ(0, rx_bad);
	EXPECT_EQ(0, st.tx_bad);
	EXPECT_EQ(STRESS_FRAMES, st.tx_seen);
	EXPECT_EQ(STRESS_FRAMES, rx_got);
	TH_LOG("offers refused for want of a posted buffer: %llu",
	       (unsigned long long)st.r->sq->dev_rx_dropped);
	EXPECT_TRUE(rig_free(st.r));
}

TEST_HARNESS_MAIN
