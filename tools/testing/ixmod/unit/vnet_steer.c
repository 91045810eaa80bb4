// SPDX-License-Identifier: GPL-2.0
/*
 * vnet_steer.c - software steering between virtio-net queue pairs
 * (nic/steer.c through nic/virtio_net_q.c) against the device model
 *
 * The rig is one port of NQ virtio-net queue pairs, each a queue pair of
 * nic/virtio_net_q.c over its own model device (model/virtio_net_model.c
 * has one receive and one transmit queue per device: one device per pair
 * plays a multiqueue device whose queues it chooses itself), each with
 * its own pool, as each core has.  Frames of many flows are delivered on
 * queues that do not own them, as a device without RSS does; the queues
 * are then polled as their cores would, and every frame must come out of
 * exactly its owner's queue (the port's Toeplitz key and table, computed
 * here with base/toeplitz.c directly), once, in its flow's order, byte for
 * byte.  Every test ends with each queue released and each pool full, no
 * model rule broken and no WARN.  IPv6 frames go to the queue of the hash
 * ref.h's bit-serial Toeplitz gives Microsoft's IPv6 input (addresses,
 * then TCP's or UDP's ports when they follow the fixed header), checked
 * against the specification's IPv6 vectors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtio_net_model.h"
#include "virtio_net.h"
#include "toeplitz.h"
#include "frames.h"
#include "harness.h"

#define NQ		3
#define NBUF		512
#define RXQ_SIZE	64
#define TXQ_SIZE	16
#define BURST		64

#define F_EVENT_IDX	(1ULL << 29)
#define F_VERSION_1	(1ULL << 32)

/* Microsoft's RSS verification key: not symmetric, unlike the port's default */
static const u8 test_key[IXM_STEER_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

struct rq {
	struct vnm_dev		*dev;
	struct ixm_vnet_queue	vnq;
	struct ixm_steer_q	*sq;
	struct ixm_mbuf_pool	pool;
	struct ixm_mbuf		mbufs[NBUF];
	struct ixm_mbuf		*free[NBUF];
	void			*rxring, *txring;
	u16			rxpriv[2 * RXQ_SIZE], txpriv[2 * TXQ_SIZE];
	struct ixm_mbuf		*rslot[RXQ_SIZE], *tslot[TXQ_SIZE];
	struct ixm_vnet_hdr	thdr[TXQ_SIZE];
};

struct rig {
	struct ixm_steer	st;
	struct rq		q[NQ];
	unsigned int		nq;
	u8			reta[IXM_RSS_RETA_SIZE];
	unsigned int		wakes[NQ];
};

static void rig_vq(struct rq *r, struct ixm_vq *vq, unsigned int qi, u16 size, void **ring,
		   u16 *priv)
{
	*ring = aligned_alloc(64, (ixm_vq_ring_size(size) + 63) & ~63UL);
	if (!*ring || ixm_vq_init(vq, size, *ring, (uintptr_t)*ring, priv, true))
		die("vq");
	vq->notify = r->dev->notify;
	vq->notify_data = qi;
	vnm_queue_setup(r->dev, qi, size, *ring, (void *)(uintptr_t)ixm_vq_avail_dma(vq),
			(void *)(uintptr_t)ixm_vq_used_dma(vq));
}

/* What the glue's wake does (ixm_port_queue_irq()): disarm, then wake. */
static void rig_wake(struct ixm_steer *st, unsigned int qi)
{
	struct rig *g = st->wake_data;

	g->wakes[qi]++;
	g->q[qi].vnq.q.ops->disarm(&g->q[qi].vnq.q);
}

/* @nq queue pairs steering by test_key, the table as port.c fills it */
static void rig_init(struct rig *g, unsigned int nq)
{
	unsigned int i, k;

	memset(g, 0, sizeof(*g));
	g->nq = nq;
	g->st.wake = rig_wake;
	g->st.wake_data = g;
	for (k = 0; k < nq; k++) {
		struct rq *r = &g->q[k];
		struct ixm_vnet_queue *vnq = &r->vnq;

		r->dev = vnm_new(F_VERSION_1 | F_EVENT_IDX);
		for (i = 0; i < NBUF; i++) {
			r->mbufs[i].buf = aligned_alloc(64, IXM_MBUF_SIZE);
			if (!r->mbufs[i].buf)
				die("buffer");
			memset(r->mbufs[i].buf, 0, IXM_MBUF_SIZE);	/* as port.c's pages */
			r->mbufs[i].dma = (dma_addr_t)(uintptr_t)r->mbufs[i].buf;
		}
		ixm_mbuf_pool_init(&r->pool, r->mbufs, r->free, NBUF);
		vnq->q.ops = &ixm_vnet_queue_ops;
		vnq->q.idx = k;
		vnq->q.vector = k;
		vnq->pool = &r->pool;
		vnq->rx_slot = r->rslot;
		vnq->tx_slot = r->tslot;
		vnq->tx_hdr = r->thdr;
		vnq->tx_hdr_dma = (uintptr_t)r->thdr;
		rig_vq(r, &vnq->rx, VNM_RXQ, RXQ_SIZE, &r->rxring, r->rxpriv);
		rig_vq(r, &vnq->tx, VNM_TXQ, TXQ_SIZE, &r->txring, r->txpriv);
		r->sq = calloc(1, sizeof(*r->sq));
		if (!r->sq)
			die("steer_q");
		vnq->steer = r->sq;
		ixm_steer_q_attach(&g->st, r->sq, k, &r->pool);
		if (ixm_vnet_rxq_fill(vnq))
			die("fill");
	}
	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		g->reta[i] = i % nq;
}

/* Every queue released (the port's down), then each pool must be full. */
static void rig_fini(struct __test_metadata *_metadata, struct rig *g)
{
	unsigned int k, i;

	for (k = 0; k < g->nq; k++) {
		vnm_queue_reset(g->q[k].dev, VNM_RXQ);
		vnm_queue_reset(g->q[k].dev, VNM_TXQ);
		ixm_vnet_release(&g->q[k].vnq);
	}
	for (k = 0; k < g->nq; k++) {
		struct rq *r = &g->q[k];

		EXPECT_EQ(NBUF, r->pool.nfree) TH_LOG("queue %u: every buffer back in its pool", k);
		EXPECT_EQ(0, vnm_violations(r->dev));
		EXPECT_EQ(NULL, g->st.q[k]) TH_LOG("queue %u left the steering", k);
		vnm_free(r->dev);
		for (i = 0; i < NBUF; i++)
			free(r->mbufs[i].buf);
		free(r->rxring);
		free(r->txring);
		free(r->sq);
	}
}

/* ---- flows and their frames ---- */

enum kind { K_TCP, K_UDP, K_ICMP, K_FRAG, K_ARP };

struct flow {
	enum kind	kind;
	u32		sa, da;		/* host order */
	u16		sp, dp;
	unsigned int	owner;		/* computed here, not by steer.c */
	u32		sent;		/* frames made */
	u32		next;		/* the next seq expected out */
	unsigned int	seen_on;	/* the queue its frames came out of */
};

#define NFLOWS	40

static u32 flow_hash(const struct flow *f)
{
	if (f->kind == K_TCP || f->kind == K_UDP)
		return ixm_toeplitz_ipv4_l4(test_key, ixm_htonl(f->sa), ixm_htonl(f->da),
					    ixm_htons(f->sp), ixm_htons(f->dp));
	return ixm_toeplitz_ipv4(test_key, ixm_htonl(f->sa), ixm_htonl(f->da));
}

static void flows_init(struct rig *g, struct flow *fl, unsigned int n)
{
	static const enum kind kinds[] = { K_TCP, K_UDP, K_TCP, K_UDP, K_ICMP, K_FRAG, K_TCP,
					   K_ARP };
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct flow *f = &fl[i];

		memset(f, 0, sizeof(*f));
		f->kind = kinds[i % ARRAY_SIZE(kinds)];
		f->sa = 0xc6120000 | (i * 7 + 2);	/* 198.18.x.y */
		f->da = 0xc6130001;
		f->sp = 1024 + i * 13;
		f->dp = i & 1 ? 11211 : 80;
		f->owner = f->kind == K_ARP ? 0 : g->reta[flow_hash(f) & 127];
		f->seen_on = ~0u;
	}
}

/* The frame of flow @id's frame @seq: headers, pattern, then id and seq. */
static size_t make_frame(u8 *b, const struct flow *fl, u32 id, u32 seq)
{
	const struct flow *f = &fl[id];
	size_t len = 60 + (id * 131 + seq * 97) % 1400, i, hdr;
	u8 *ip = b + 14;

	memset(b, 0, len);
	memcpy(b, "\x02\x00\x5e\x00\x00\x01\x02\x00\x5e\x00\x00\x02", 12);
	if (f->kind == K_ARP) {
		b[12] = 0x08;
		b[13] = 0x06;
		hdr = 14 + 28;
	} else {
		b[12] = 0x08;
		b[13] = 0x00;
		ip[0] = 0x45;
		ip[2] = (len - 14) >> 8;
		ip[3] = (len - 14) & 0xff;
		ip[8] = 64;
		ip[9] = f->kind == K_TCP ? 6 : f->kind == K_ICMP ? 1 : 17;
		if (f->kind == K_FRAG)
			ip[6] = 0x20;		/* MF: a first fragment still has ports */
		put32(ip + 12, f->sa);
		put32(ip + 16, f->da);
		put16(ip + 20, f->sp);
		put16(ip + 22, f->dp);
		hdr = 14 + 20 + 8;
	}
	for (i = hdr; i < len - 8; i++)
		b[i] = (u8)(id * 31 + seq + i);
	put32(b + len - 8, id);
	put32(b + len - 4, seq);
	return len;
}

/* Deliver flow @id's next frame on queue @qi, as the device chose. */
static void deliver(struct __test_metadata *_metadata, struct rig *g, struct flow *fl,
		    u32 id, unsigned int qi)
{
	u8 b[1514];
	size_t len = make_frame(b, fl, id, fl[id].sent++);

	ASSERT_LE(0, vnm_rx(g->q[qi].dev, b, len)) TH_LOG("queue %u has a buffer posted", qi);
}

struct seen {
	unsigned int	frames[NQ];
	unsigned int	bad;
};

/* One frame out of queue @qi: whose, in order, intact, on the owner. */
static void check_frame(struct __test_metadata *_metadata, struct rig *g, struct flow *fl,
			unsigned int qi, struct ixm_mbuf *m, struct seen *sn)
{
	u8 want[1514];
	u32 id, seq;
	size_t len;

	sn->frames[qi]++;
	ASSERT_GE(m->len, 60);
	id = get32(m->data + m->len - 8);
	seq = get32(m->data + m->len - 4);
	ASSERT_LT(id, NFLOWS);
	len = make_frame(want, fl, id, seq);
	if (m->len != len || memcmp(m->data, want, len) || qi != fl[id].owner ||
	    seq != fl[id].next || m->data != m->buf + IXM_VNET_HDR_LEN) {
		if (sn->bad++ < IXM_DIAG_MAX)
			TH_LOG("flow %u seq %u (kind %d): out of queue %u, owner %u, expected seq %u, len %u/%zu",
			       id, seq, fl[id].kind, qi, fl[id].owner, fl[id].next, m->len, len);
	}
	fl[id].next = seq + 1;
	fl[id].seen_on = qi;
}

/* Each queue's burst and refill, round robin, until none has work. */
static void poll_all(struct __test_metadata *_metadata, struct rig *g, struct flow *fl,
		     struct seen *sn, unsigned int only)
{
	struct ixm_mbuf *out[BURST];
	unsigned int k, i, n, rounds = 0;
	bool work;

	do {
		work = false;
		for (k = 0; k < g->nq; k++) {
			struct ixm_queue *q = &g->q[k].vnq.q;

			if (only < NQ && k != only)
				continue;
			n = q->ops->rx_burst(q, out, BURST);
			for (i = 0; i < n; i++) {
				check_frame(_metadata, g, fl, k, out[i], sn);
				ixm_mbuf_free(out[i]);
			}
			q->ops->rx_refill(q);
			work |= n;
		}
		/* frames a later queue steered to an earlier one */
		for (k = 0; k < g->nq; k++)
			if (only >= NQ || k == only)
				work |= g->q[k].vnq.q.ops->busy(&g->q[k].vnq.q);
		ASSERT_LT(++rounds, 1000);
	} while (work);
}

static void queue_stats(struct rig *g, unsigned int k, struct ixm_queue_stats *s)
{
	g->q[k].vnq.q.ops->get_stats(&g->q[k].vnq.q, s);
}

FIXTURE(steer) {
	struct rig	g;
	struct flow	fl[NFLOWS];
	struct seen	sn;
};

FIXTURE_SETUP(steer)
{
	ixm_host_warnings = 0;
	rig_init(&self->g, NQ);
	flows_init(&self->g, self->fl, NFLOWS);
	memset(&self->sn, 0, sizeof(self->sn));
}

FIXTURE_TEARDOWN(steer)
{
	rig_fini(_metadata, &self->g);
	EXPECT_EQ(0, ixm_host_warnings);
}

/*
 * Every flow's frames on a queue that is not its owner (the next one),
 * interleaved: each comes out of its owner, once, in order, intact.
 */
TEST_F(steer, wrong_queue_reaches_owner)
{
	struct rig *g = &self->g;
	unsigned int round, id, k, owned[NQ] = { 0 };
	u64 steered = 0, in = 0, drops = 0;
	unsigned int wrong = 0;

	ASSERT_EQ(0, ixm_steer_start(&g->st, test_key, g->reta));
	for (id = 0; id < NFLOWS; id++)
		owned[self->fl[id].owner]++;
	for (k = 0; k < NQ; k++)
		ASSERT_GT(owned[k], 0) TH_LOG("queue %u owns some flows (the rig's flows)", k);
	for (round = 0; round < 6; round++) {
		/* at most RXQ_SIZE frames per queue between polls */
		for (id = 0; id < NFLOWS; id++) {
			deliver(_metadata, g, self->fl, id, (self->fl[id].owner + 1) % NQ);
			wrong++;
		}
		poll_all(_metadata, g, self->fl, &self->sn, NQ);
	}
	EXPECT_EQ(0, self->sn.bad);
	for (id = 0; id < NFLOWS; id++) {
		EXPECT_EQ(self->fl[id].sent, self->fl[id].next) TH_LOG("flow %u: every frame, once", id);
		EXPECT_EQ(self->fl[id].owner, self->fl[id].seen_on);
	}
	for (k = 0; k < NQ; k++) {
		struct ixm_queue_stats s;

		queue_stats(g, k, &s);
		steered += s.rx_steered;
		in += s.rx_steered_in;
		drops += s.rx_steer_drops;
	}
	EXPECT_EQ(wrong, steered) TH_LOG("every frame was another queue's");
	EXPECT_EQ(wrong, in);
	EXPECT_EQ(0, drops);
}

/* A flow's frames on its own queue are not steered; on others, they are. */
TEST_F(steer, right_queue_stays)
{
	struct rig *g = &self->g;
	unsigned int id, k, round, right = 0, wrong = 0;
	u64 steered = 0, in = 0;

	ASSERT_EQ(0, ixm_steer_start(&g->st, test_key, g->reta));
	for (round = 0; round < 4; round++) {
		for (id = 0; id < NFLOWS; id++) {
			/* even rounds on the owner, odd rounds elsewhere */
			unsigned int qi = (self->fl[id].owner + (round & 1) * (1 + id % 2)) % NQ;

			deliver(_metadata, g, self->fl, id, qi);
			if (qi == self->fl[id].owner)
				right++;
			else
				wrong++;
		}
		poll_all(_metadata, g, self->fl, &self->sn, NQ);
	}
	EXPECT_EQ(0, self->sn.bad);
	for (k = 0; k < NQ; k++) {
		struct ixm_queue_stats s;

		queue_stats(g, k, &s);
		steered += s.rx_steered;
		in += s.rx_steered_in;
	}
	EXPECT_EQ(wrong, steered);
	EXPECT_EQ(wrong, in);
	EXPECT_EQ(right + wrong, self->sn.frames[0] + self->sn.frames[1] + self->sn.frames[2]);
}

/*
 * Queue 1 gets ring + 10 frames of a flow of queue 0 of kind @kind while
 * queue 0 does not run: queue 1 steers the first ring of them and drops
 * the rest.  Returns the flow's id.
 */
static unsigned int flood_owner_asleep(struct __test_metadata *_metadata, struct rig *g,
				       struct flow *fl, struct seen *sn, enum kind kind)
{
	unsigned int id, i, sent = 0, ring = g->st.ring;
	struct flow *f = NULL;

	for (id = 0; id < NFLOWS; id++)
		if (fl[id].owner == 0 && fl[id].kind == kind)
			f = &fl[id];
	if (!f)
		die("no flow of queue 0 of that kind");
	id = f - fl;
	while (sent < ring + 10) {
		for (i = 0; i < 32 && sent < ring + 10; i++, sent++)
			deliver(_metadata, g, fl, id, 1);
		poll_all(_metadata, g, fl, sn, 1);
	}
	return id;
}

/*
 * An owner that does not run: its ring from the source fills, then the
 * source drops and counts; once the owner takes and posts again, frames
 * flow again.  The posted gauge counts the rings' buffers.
 */
TEST_F(steer, ring_full_drops_counted)
{
	struct rig *g = &self->g;
	struct ixm_queue_stats s;
	unsigned int id, ring;

	ASSERT_EQ(0, ixm_steer_start(&g->st, test_key, g->reta));
	ring = g->st.ring;
	ASSERT_EQ(128, ring);
	queue_stats(g, 0, &s);
	EXPECT_EQ(RXQ_SIZE + (NQ - 1) * ring, s.rx_posted) TH_LOG("the rings' buffers are posted");
	id = flood_owner_asleep(_metadata, g, self->fl, &self->sn, K_TCP);
	queue_stats(g, 1, &s);
	EXPECT_EQ(ring, s.rx_steered);
	EXPECT_EQ(10, s.rx_steer_drops) TH_LOG("no buffer posted: dropped and counted");
	EXPECT_EQ(0, self->sn.frames[1]) TH_LOG("the source kept none");
	/* queue 0 takes them (the first @ring, in order), and posts again */
	poll_all(_metadata, g, self->fl, &self->sn, 0);
	EXPECT_EQ(ring, self->sn.frames[0]);
	EXPECT_EQ(0, self->sn.bad);
	queue_stats(g, 0, &s);
	EXPECT_EQ(ring, s.rx_steered_in);
	EXPECT_EQ(RXQ_SIZE + (NQ - 1) * ring, s.rx_posted) TH_LOG("and posted again");
	/* the flow resumes (its seq skips the 10 dropped) */
	self->fl[id].next = self->fl[id].sent;
	deliver(_metadata, g, self->fl, id, 2);
	poll_all(_metadata, g, self->fl, &self->sn, NQ);
	EXPECT_EQ(ring + 1, self->sn.frames[0]);
	EXPECT_EQ(0, self->sn.bad);
}

/*
 * A source queue's pool is mapped into its own core's contexts: a frame
 * it passed on, or dropped for want of a posted buffer, must not stay
 * readable there.  Queue 1 receives only queue 0's flow: afterwards not
 * one byte of queue 1's buffers is set.
 */
TEST_F(steer, source_buffer_zeroed)
{
	struct rig *g = &self->g;
	struct ixm_queue_stats s;
	unsigned int i, ring, dirty = 0;

	ASSERT_EQ(0, ixm_steer_start(&g->st, test_key, g->reta));
	ring = g->st.ring;
	/* more than queue 0's ring from queue 1 holds: some are dropped */
	flood_owner_asleep(_metadata, g, self->fl, &self->sn, K_UDP);
	queue_stats(g, 1, &s);
	EXPECT_EQ(ring, s.rx_steered);
	EXPECT_EQ(10, s.rx_steer_drops);
	for (i = 0; i < NBUF; i++) {
		const u8 *b = g->q[1].mbufs[i].buf;
		size_t k;

		for (k = 0; k < IXM_MBUF_SIZE && !b[k]; k++)
			;
		if (k < IXM_MBUF_SIZE && dirty++ < IXM_DIAG_MAX)
			TH_LOG("queue 1's buffer %u: byte %zu is 0x%02x", i, k, b[k]);
	}
	EXPECT_EQ(0, dirty) TH_LOG("no frame left in the source's pool");
	poll_all(_metadata, g, self->fl, &self->sn, 0);
	EXPECT_EQ(ring, self->sn.frames[0]);
	EXPECT_EQ(0, self->sn.bad);
}

/*
 * An owner asleep (armed) is woken once per source burst that steered it
 * frames, and busy() sees the frames; an owner awake is not woken.
 */
TEST_F(steer, sleeping_owner_woken)
{
	struct rig *g = &self->g;
	struct ixm_queue *q0 = &g->q[0].vnq.q, *q1 = &g->q[1].vnq.q;
	struct ixm_mbuf *out[BURST];
	unsigned int id, n;

	ASSERT_EQ(0, ixm_steer_start(&g->st, test_key, g->reta));
	for (id = 0; id < NFLOWS; id++)
		if (self->fl[id].owner == 0)
			break;
	ASSERT_LT(id, NFLOWS);
	/* awake: no wake */
	deliver(_metadata, g, self->fl, id, 1);
	n = q1->ops->rx_burst(q1, out, BURST);
	EXPECT_EQ(0, n);
	EXPECT_EQ(0, g->wakes[0]) TH_LOG("an owner that polls is not woken");
	EXPECT_TRUE(q0->ops->busy(q0)) TH_LOG("busy() sees a steered frame");
	poll_all(_metadata, g, self->fl, &self->sn, 0);
	EXPECT_FALSE(q0->ops->busy(q0));
	/* asleep: three frames in one burst, one wake, which disarms */
	q0->ops->arm(q0);
	deliver(_metadata, g, self->fl, id, 1);
	deliver(_metadata, g, self->fl, id, 1);
	deliver(_metadata, g, self->fl, id, 1);
	n = q1->ops->rx_burst(q1, out, BURST);
	EXPECT_EQ(0, n);
	EXPECT_EQ(1, g->wakes[0]) TH_LOG("woken once for a burst");
	EXPECT_EQ(0, g->q[0].sq->armed);
	deliver(_metadata, g, self->fl, id, 2);
	n = g->q[2].vnq.q.ops->rx_burst(&g->q[2].vnq.q, out, BURST);
	EXPECT_EQ(1, g->wakes[0]) TH_LOG("disarmed by the wake: no second one");
	EXPECT_EQ(0, g->wakes[1] + g->wakes[2]);
	poll_all(_metadata, g, self->fl, &self->sn, NQ);
	EXPECT_EQ(5, self->sn.frames[0]);
	EXPECT_EQ(0, self->sn.bad);
}

/* A TCP flow of queue @qi (the rig's flows have some on each queue). */
static unsigned int flow_of(const struct flow *fl, unsigned int qi)
{
	unsigned int id;

	for (id = 0; id < NFLOWS; id++)
		if (fl[id].owner == qi && fl[id].kind == K_TCP)
			return id;
	die("no TCP flow of that queue");
	return 0;
}

/*
 * A core about to sleep arms its queue, then looks once more and sleeps
 * if that look found no work of its own (runner.c, ixm_core_sleep()).  A
 * frame of another core's flow that reached its device just before it
 * armed is steered away by that look, which finds nothing of its own;
 * the device interrupts for no frame after it (used_event lies behind
 * what the look took).  So the queue must refuse to arm and keep the
 * core awake, or the core sleeps deaf to its device until a timer or
 * another core wakes it.  Next time nothing waits: it arms, and its next
 * frame interrupts.
 */
TEST_F(steer, arm_refused_for_a_frame_steered_away)
{
	struct rig *g = &self->g;
	struct ixm_queue *q1 = &g->q[1].vnq.q;
	struct vnm_queue *dq1 = &g->q[1].dev->q[VNM_RXQ];
	unsigned int id0, id1, n;
	struct ixm_mbuf *out[BURST];
	u64 irqs;
	bool armed;

	ASSERT_EQ(0, ixm_steer_start(&g->st, test_key, g->reta));
	id0 = flow_of(self->fl, 0);
	id1 = flow_of(self->fl, 1);
	/* queue 0's frame on queue 1's device as queue 1's core goes to sleep */
	deliver(_metadata, g, self->fl, id0, 1);
	armed = q1->ops->arm(q1);
	n = q1->ops->rx_burst(q1, out, BURST);		/* the last look */
	q1->ops->rx_refill(q1);
	EXPECT_EQ(0, n) TH_LOG("the look steered the frame away: no work of its own");
	irqs = dq1->irqs;
	deliver(_metadata, g, self->fl, id1, 1);
	EXPECT_EQ(irqs, dq1->irqs) TH_LOG("the device does not interrupt for the next frame");
	EXPECT_FALSE(armed) TH_LOG("so the core must not sleep: the queue refuses to arm");
	poll_all(_metadata, g, self->fl, &self->sn, NQ);
	EXPECT_EQ(1, self->sn.frames[0]);
	EXPECT_EQ(1, self->sn.frames[1]);

	/* nothing waits: armed, the core sleeps; its next frame interrupts */
	EXPECT_TRUE(q1->ops->arm(q1));
	EXPECT_EQ(0, q1->ops->rx_burst(q1, out, BURST));
	irqs = dq1->irqs;
	deliver(_metadata, g, self->fl, id1, 1);
	EXPECT_EQ(irqs + 1, dq1->irqs) TH_LOG("an armed queue's next frame interrupts");
	q1->ops->disarm(q1);				/* the interrupt's handler */
	poll_all(_metadata, g, self->fl, &self->sn, NQ);
	EXPECT_EQ(2, self->sn.frames[1]);
	EXPECT_EQ(0, self->sn.bad);
	EXPECT_EQ(0, g->wakes[0] + g->wakes[1] + g->wakes[2]) TH_LOG("no owner slept armed");
}

/*
 * Released with frames steered and not taken, and buffers posted: the
 * teardown finds every pool full (the frames are dropped with their
 * buffers, which go back to their owner's pool).
 */
TEST_F(steer, release_with_frames_in_flight)
{
	struct rig *g = &self->g;
	struct ixm_queue *q1 = &g->q[1].vnq.q;
	struct ixm_mbuf *out[BURST];
	unsigned int id, n = 0;

	ASSERT_EQ(0, ixm_steer_start(&g->st, test_key, g->reta));
	for (id = 0; id < NFLOWS; id++)
		if (self->fl[id].owner != 1)
			deliver(_metadata, g, self->fl, id, 1);
	n = q1->ops->rx_burst(q1, out, BURST);
	EXPECT_EQ(0, n) TH_LOG("queue 1 got none of its own");
	EXPECT_LT(0, READ_ONCE(g->q[1].sq->steered));
}

/* One queue: nothing is hashed away, whatever the frames. */
TEST(steer_one_queue)
{
	struct rig *g = calloc(1, sizeof(*g));
	struct flow fl[NFLOWS];
	struct seen sn = { 0 };
	unsigned int id;
	struct ixm_queue_stats s;

	ASSERT_NE(NULL, g);
	ixm_host_warnings = 0;
	rig_init(g, 1);
	flows_init(g, fl, NFLOWS);
	ASSERT_EQ(0, ixm_steer_start(&g->st, test_key, g->reta));
	EXPECT_EQ(1, g->st.nq);
	for (id = 0; id < NFLOWS; id++)
		deliver(_metadata, g, fl, id, 0);
	poll_all(_metadata, g, fl, &sn, NQ);
	EXPECT_EQ(NFLOWS, sn.frames[0]);
	EXPECT_EQ(0, sn.bad);
	queue_stats(g, 0, &s);
	EXPECT_EQ(0, s.rx_steered);
	EXPECT_EQ(RXQ_SIZE, s.rx_posted) TH_LOG("no ring, nothing posted on one");
	rig_fini(_metadata, g);
	EXPECT_EQ(0, ixm_host_warnings);
	free(g);
}

/* Microsoft's RSS verification vectors for IPv6, with test_key. */
static const struct {
	const char *dst, *src;
	u16 dport, sport;
	u32 ipv6, tcp;
} vectors6[] = {
	{ "3ffe 2501 0200 0003 0000 0000 0000 0001", "3ffe 2501 0200 1fff 0000 0000 0000 0007",
	  1766, 2794, 0x2cc18cd5, 0x40207d3d },
	{ "ff02 0000 0000 0000 0000 0000 0000 0001", "3ffe 0501 0008 0000 0260 97ff fe40 efab",
	  4739, 14230, 0x0f0c461c, 0xdde51bbf },
	{ "fe80 0000 0000 0000 0200 f8ff fe21 67cf", "3ffe 1900 4545 0003 0200 f8ff fe21 67cf",
	  38024, 44251, 0x4b61e985, 0x02d1feef },
};

static const u8 some6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };

/* 16 bytes from hex, spaces skipped. */
static void hex16(u8 *out, const char *s)
{
	unsigned int n = 0, v;

	while (*s && n < 32) {
		if (*s == ' ') {
			s++;
			continue;
		}
		sscanf(s, "%1x", &v);
		out[n / 2] = (u8)(n & 1 ? out[n / 2] | v : v << 4);
		n++;
		s++;
	}
}

/*
 * An IPv6 frame of @len bytes (at least 54) from @src to @dst, next
 * header @nh, its first 4 bytes after the header @sport and @dport.
 */
static void frame6(u8 *b, size_t len, const u8 *src, const u8 *dst, u8 nh, u16 sport,
		   u16 dport)
{
	memset(b, 0, len);
	memcpy(b, "\x02\x00\x5e\x00\x00\x01\x02\x00\x5e\x00\x00\x02\x86\xdd", 14);
	b[14] = 0x60;
	put16(b + 18, (unsigned int)(len - 54));
	b[20] = nh;
	b[21] = 64;
	memcpy(b + 22, src, 16);
	memcpy(b + 38, dst, 16);
	if (len >= 58) {
		put16(b + 54, sport);
		put16(b + 56, dport);
	}
}

static unsigned int owner_of(struct rig *g, u8 *b, size_t len)
{
	struct ixm_mbuf m;

	memset(&m, 0, sizeof(m));
	m.data = b;
	m.len = (u16)len;
	return ixm_steer_owner(&g->st, &m);
}

/* IPv6 by Microsoft's input: 4-tuple for TCP and UDP, else the addresses. */
TEST(steer_ipv6)
{
	struct rig *g = calloc(1, sizeof(*g));
	static const u8 nhs[] = { 6, 17, 58, 60, 17, 6 };	/* TCP, UDP, ICMPv6, DstOpts */
	unsigned long long rng = 0x1b6;
	unsigned int i, bad = 0, differ = 0, spread[NQ] = { 0 };
	u8 b[200], in[36];
	u32 fh;

	ASSERT_NE(NULL, g);
	rig_init(g, NQ);
	ASSERT_EQ(0, ixm_steer_start(&g->st, test_key, g->reta));
	for (i = 0; i < ARRAY_SIZE(vectors6); i++) {
		u8 src[16], dst[16];
		u32 h4, h2;

		hex16(dst, vectors6[i].dst);
		hex16(src, vectors6[i].src);
		memcpy(in, src, 16);
		memcpy(in + 16, dst, 16);
		put16(in + 32, vectors6[i].sport);
		put16(in + 34, vectors6[i].dport);
		h2 = ref_toeplitz(test_key, sizeof(test_key), in, 32);
		h4 = ref_toeplitz(test_key, sizeof(test_key), in, 36);
		EXPECT_EQ(vectors6[i].ipv6, h2) TH_LOG("vector %u: the reference's IPv6 hash", i);
		EXPECT_EQ(vectors6[i].tcp, h4) TH_LOG("vector %u: its IPv6/TCP hash", i);
		frame6(b, 80, src, dst, 6, vectors6[i].sport, vectors6[i].dport);
		EXPECT_EQ(g->reta[h4 & 127], owner_of(g, b, 80)) TH_LOG("vector %u over TCP", i);
		frame6(b, 80, src, dst, 17, vectors6[i].sport, vectors6[i].dport);
		EXPECT_EQ(g->reta[h4 & 127], owner_of(g, b, 80)) TH_LOG("vector %u over UDP", i);
		frame6(b, 80, src, dst, 58, vectors6[i].sport, vectors6[i].dport);
		EXPECT_EQ(g->reta[h2 & 127], owner_of(g, b, 80)) TH_LOG("vector %u, ICMPv6", i);
	}
	for (i = 0; i < 20000; i++) {
		u8 src[16], dst[16], nh;
		u16 sp = (u16)ref_rand(&rng), dp = (u16)ref_rand(&rng);
		size_t len, n;
		u32 h;

		ref_rand_fill(&rng, src, 16);
		ref_rand_fill(&rng, dst, 16);
		nh = nhs[i % ARRAY_SIZE(nhs)];
		len = i % 50 == 7 ? 56 : 58 + i % 100;	/* a few without room for ports */
		frame6(b, len, src, dst, nh, sp, dp);
		memcpy(in, src, 16);
		memcpy(in + 16, dst, 16);
		put16(in + 32, sp);
		put16(in + 34, dp);
		n = (nh == 6 || nh == 17) && len >= 58 ? 36 : 32;
		h = ref_toeplitz(test_key, sizeof(test_key), in, n);
		if (owner_of(g, b, len) != g->reta[h & 127] && ++bad <= IXM_DIAG_MAX)
			ixm_diag("frame %u: next header %u, %zu bytes", i, nh, len);
		/* the software port's queue choice: the same hash */
		if ((!ixm_toeplitz_frame(test_key, b, len, &fh) || fh != h) &&
		    ++differ <= IXM_DIAG_MAX)
			ixm_diag("frame %u: ixm_toeplitz_frame() 0x%08x, steering's 0x%08x",
				 i, fh, h);
		spread[g->reta[h & 127]]++;
	}
	EXPECT_EQ(0, bad) TH_LOG("20,000 random IPv6 frames on their reference queue");
	EXPECT_EQ(0, differ) TH_LOG("and ixm_toeplitz_frame() hashes each as steering does");
	for (i = 0; i < NQ; i++)
		EXPECT_LT(20000 / NQ / 2, spread[i]) TH_LOG("queue %u gets its share", i);
	/* not steered: too short, version 4 under IPv6's EtherType */
	frame6(b, 60, some6, some6, 17, 1, 2);
	EXPECT_EQ(0, owner_of(g, b, 53)) TH_LOG("shorter than an IPv6 header: queue 0");
	EXPECT_FALSE(ixm_toeplitz_frame(test_key, b, 53, &fh)) TH_LOG("nor hashed for a softport");
	b[14] = 0x45;
	EXPECT_EQ(0, owner_of(g, b, 60)) TH_LOG("version 4 under 0x86dd: queue 0");
	EXPECT_FALSE(ixm_toeplitz_frame(test_key, b, 60, &fh));
	rig_fini(_metadata, g);
	free(g);
}

/* ixm_steer_start() refuses a table naming a queue not attached. */
TEST(steer_start_refuses)
{
	struct ixm_steer st;
	u8 reta[IXM_RSS_RETA_SIZE];
	unsigned int i;

	memset(&st, 0, sizeof(st));
	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		reta[i] = i % 2;
	EXPECT_EQ(-EINVAL, ixm_steer_start(&st, test_key, reta));
	reta[5] = IXM_NIC_MAX_QUEUES;
	EXPECT_EQ(-EINVAL, ixm_steer_start(&st, test_key, reta));
}

TEST_HARNESS_MAIN
