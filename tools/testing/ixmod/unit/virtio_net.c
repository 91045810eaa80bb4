// SPDX-License-Identifier: GPL-2.0
/*
 * virtio_net.c - the split virtqueue (nic/virtio_ring.c) and the virtio-net
 * queue pair (nic/virtio_net_q.c) against the virtio-net device model
 * (model/virtio_net_model.c)
 *
 * Every test runs twice, with VIRTIO_F_EVENT_IDX negotiated and without
 * (the fixture's variants), and ends asserting that the model counted no
 * broken driver rule and no WARN fired.  Frames go through both rings;
 * checksums the model completes are checked again here with ref.h's own
 * sum, and every buffer must be back in its pool at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtio_net_model.h"
#include "virtio_net.h"
#include "frames.h"
#include "ref.h"
#include "harness.h"

#define NBUF	256
#define RXQ_SIZE 64
#define TXQ_SIZE 16

/* feature bits as the spec numbers them (§5.1.3, §6), not the driver's */
#define F_CSUM		(1ULL << 0)
#define F_GUEST_CSUM	(1ULL << 1)
#define F_EVENT_IDX	(1ULL << 29)
#define F_VERSION_1	(1ULL << 32)

struct rig {
	struct vnm_dev		*dev;
	struct ixm_vnet_queue	vnq;
	struct ixm_mbuf_pool	pool;
	struct ixm_mbuf		mbufs[NBUF];
	struct ixm_mbuf		*free[NBUF];
	void			*rxring, *txring;
	u16			rxpriv[2 * RXQ_SIZE], txpriv[2 * TXQ_SIZE];
	struct ixm_mbuf		*rslot[RXQ_SIZE], *tslot[TXQ_SIZE];
	struct ixm_vnet_hdr	*thdr;
};

/* Lay out one virtqueue and tell the model where it is. */
static void rig_vq(struct rig *r, struct ixm_vq *vq, unsigned int qi, u16 size,
		   void **ring, u16 *priv, bool event_idx)
{
	*ring = aligned_alloc(64, (ixm_vq_ring_size(size) + 63) & ~63UL);
	if (!*ring || ixm_vq_init(vq, size, *ring, (uintptr_t)*ring, priv, event_idx))
		die("vq");
	vq->notify = r->dev->notify;
	vq->notify_off = 0;
	vq->notify_data = qi;
	vnm_queue_setup(r->dev, qi, size, (void *)(uintptr_t)vq->dma,
			(void *)(uintptr_t)ixm_vq_avail_dma(vq),
			(void *)(uintptr_t)ixm_vq_used_dma(vq));
}

static void rig_init(struct rig *r, u64 features)
{
	struct ixm_vnet_queue *vnq = &r->vnq;
	bool ev = features & F_EVENT_IDX;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->dev = vnm_new(features);
	for (i = 0; i < NBUF; i++) {
		r->mbufs[i].buf = aligned_alloc(64, IXM_MBUF_SIZE);
		r->mbufs[i].dma = (dma_addr_t)(uintptr_t)r->mbufs[i].buf;
	}
	ixm_mbuf_pool_init(&r->pool, r->mbufs, r->free, NBUF);
	r->thdr = calloc(TXQ_SIZE, sizeof(*r->thdr));
	vnq->q.ops = &ixm_vnet_queue_ops;
	vnq->pool = &r->pool;
	vnq->rx_slot = r->rslot;
	vnq->tx_slot = r->tslot;
	vnq->tx_hdr = r->thdr;
	vnq->tx_hdr_dma = (uintptr_t)r->thdr;
	vnq->csum = features & F_CSUM;
	vnq->guest_csum = features & F_GUEST_CSUM;
	rig_vq(r, &vnq->rx, VNM_RXQ, RXQ_SIZE, &r->rxring, r->rxpriv, ev);
	rig_vq(r, &vnq->tx, VNM_TXQ, TXQ_SIZE, &r->txring, r->txpriv, ev);
}

static void rig_free(struct rig *r)
{
	unsigned int i;

	vnm_free(r->dev);
	for (i = 0; i < NBUF; i++)
		free(r->mbufs[i].buf);
	free(r->rxring);
	free(r->txring);
	free(r->thdr);
}

FIXTURE(vnet) {
	struct rig r;
};

FIXTURE_VARIANT(vnet) {
	u64 features;
};

FIXTURE_VARIANT_ADD(vnet, event_idx) {
	.features = F_VERSION_1 | F_CSUM | F_GUEST_CSUM | F_EVENT_IDX,
};

FIXTURE_VARIANT_ADD(vnet, no_event_idx) {
	.features = F_VERSION_1 | F_CSUM | F_GUEST_CSUM,
};

FIXTURE_SETUP(vnet)
{
	ixm_host_warnings = 0;
	rig_init(&self->r, variant->features);
}

FIXTURE_TEARDOWN(vnet)
{
	EXPECT_EQ(0, vnm_violations(self->r.dev));
	EXPECT_EQ(0, ixm_host_warnings);
	rig_free(&self->r);
}

/* A frame the model "receives": Ethernet header, then @seq everywhere. */
static size_t make_frame(u8 *f, u32 seq, size_t len)
{
	size_t i;

	memcpy(f, our_mac, 6);
	memcpy(f + 6, peer_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	for (i = 14; i < len; i++)
		f[i] = (u8)(seq + i);
	return len;
}

/* A frame to send, built in a pool buffer as the stack builds one. */
static struct ixm_mbuf *tx_frame(struct rig *r, u32 seq, size_t len)
{
	struct ixm_mbuf *m = ixm_mbuf_alloc(&r->pool);

	if (!m)
		return NULL;
	m->len = (u16)make_frame(m->data, seq, len);
	return m;
}

struct sink {
	unsigned int	n;
	u32		next_seq;
	unsigned int	bad;
	u8		last[2048];
	unsigned int	last_len;
};

static void sink_check(const u8 *f, unsigned int len, void *arg)
{
	struct sink *s = arg;
	u8 want[2048];

	make_frame(want, s->next_seq, len);
	if (len < 14 || memcmp(want, f, len))
		s->bad++;
	s->next_seq++;
	s->n++;
}

static void sink_keep(const u8 *f, unsigned int len, void *arg)
{
	struct sink *s = arg;

	memcpy(s->last, f, len);
	s->last_len = len;
	s->n++;
}

/*
 * Ring basics and wrap-around: 70000 frames each way through a 64-entry
 * receive ring and a 16-entry transmit ring, so both free-running 16-bit
 * indices wrap; every frame arrives whole, in order, and the rings end as
 * they began.
 */
TEST_F(vnet, wrap_many)
{
	struct ixm_vnet_queue *vnq = &self->r.vnq;
	struct ixm_queue *q = &vnq->q;
	struct sink s = { 0 };
	struct ixm_mbuf *m[8];
	unsigned int i, j, got = 0, bad = 0;
	u8 f[1514];

	ASSERT_EQ(0, ixm_vnet_rxq_fill(vnq));
	EXPECT_EQ(0, vnq->rx.num_free);
	for (i = 0; i < 70000; i++) {
		size_t len = 60 + (i * 7) % 1455;
		unsigned int n;

		ASSERT_EQ(0, vnm_rx(self->r.dev, f, make_frame(f, i, len)));
		n = q->ops->rx_burst(q, m, 8);
		ASSERT_EQ(1, n);
		if (m[0]->len != len || m[0]->data != m[0]->buf + IXM_VNET_HDR_LEN ||
		    memcmp(m[0]->data, f, len))
			bad++;
		got += n;
		ixm_mbuf_free(m[0]);
		q->ops->rx_refill(q);
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(70000, got);
	EXPECT_EQ(70000, vnq->rx_packets);

	for (i = 0; i < 70000; i += 7) {
		for (j = 0; j < 7; j++)
			m[j] = tx_frame(&self->r, i + j, 60 + (i + j) % 1455);
		ASSERT_EQ(7, q->ops->tx_burst(q, m, 7));
		EXPECT_TRUE(q->ops->busy(q));
		vnm_tx(self->r.dev, ~0u, sink_check, &s);
		EXPECT_EQ(14, q->ops->tx_reap(q));
	}
	EXPECT_EQ(70000, s.n);
	EXPECT_EQ(0, s.bad);
	EXPECT_FALSE(q->ops->busy(q));
	EXPECT_EQ(TXQ_SIZE, vnq->tx.num_free);
	EXPECT_EQ((u16)70000, vnq->tx.avail_idx);
	EXPECT_EQ(0, vnq->tx.bad_used + vnq->rx.bad_used + vnq->rx_errors);
	ixm_vnet_release(vnq);
	EXPECT_EQ(NBUF, self->r.pool.nfree);
}

/*
 * A device that polls asks for no kick: bursts on both rings write the
 * doorbell zero times, and no interrupt is ever due.
 */
TEST_F(vnet, polling_device_no_kicks)
{
	struct ixm_vnet_queue *vnq = &self->r.vnq;
	struct vnm_dev *dev = self->r.dev;
	struct ixm_queue *q = &vnq->q;
	struct ixm_mbuf *m[4];
	unsigned int i, j;
	u8 f[100];

	ASSERT_EQ(0, ixm_vnet_rxq_fill(vnq));
	for (i = 0; i < 1000; i++) {
		for (j = 0; j < 4; j++)
			m[j] = tx_frame(&self->r, j, 100);
		ASSERT_EQ(4, q->ops->tx_burst(q, m, 4));
		vnm_tx(dev, ~0u, NULL, NULL);
		q->ops->tx_reap(q);
		for (j = 0; j < 4; j++)
			ASSERT_EQ(0, vnm_rx(dev, f, make_frame(f, j, sizeof(f))));
		ASSERT_EQ(4, q->ops->rx_burst(q, m, 4));
		for (j = 0; j < 4; j++)
			ixm_mbuf_free(m[j]);
		q->ops->rx_refill(q);
	}
	EXPECT_EQ(0, dev->q[VNM_TXQ].kicks);
	EXPECT_EQ(0, dev->q[VNM_RXQ].kicks);
	EXPECT_EQ(0, vnq->tx.kicks + vnq->rx.kicks);
	EXPECT_EQ(1000, vnq->tx.kicks_saved);
	EXPECT_EQ(0, dev->q[VNM_TXQ].irqs);
	EXPECT_EQ(0, dev->q[VNM_RXQ].irqs);
	ixm_vnet_release(vnq);
	EXPECT_EQ(NBUF, self->r.pool.nfree);
}

/*
 * A sleeping device asks for a kick: each burst kicks exactly once, as
 * does each refill; and the model would count a burst published without
 * one (MISSED_KICK, checked in the teardown).
 */
TEST_F(vnet, sleeping_device_one_kick_per_burst)
{
	struct ixm_vnet_queue *vnq = &self->r.vnq;
	struct vnm_dev *dev = self->r.dev;
	struct ixm_queue *q = &vnq->q;
	struct ixm_mbuf *m[5];
	unsigned int i, j;
	u8 f[100];

	ASSERT_EQ(0, ixm_vnet_rxq_fill(vnq));
	for (i = 0; i < 100; i++) {
		vnm_sleep(dev, VNM_TXQ, true);
		for (j = 0; j < 5; j++)
			m[j] = tx_frame(&self->r, j, 100);
		ASSERT_EQ(5, q->ops->tx_burst(q, m, 5));
		EXPECT_EQ(i + 1, dev->q[VNM_TXQ].kicks);
		/* the kick woke it; it drains the ring polling */
		vnm_sleep(dev, VNM_TXQ, false);
		ASSERT_EQ(5, vnm_tx(dev, ~0u, NULL, NULL));
		EXPECT_EQ(10, q->ops->tx_reap(q));
	}
	EXPECT_EQ(0, dev->q[VNM_TXQ].kicks_unasked);

	/* receive: out of buffers, asleep; one refill, one kick */
	vnm_sleep(dev, VNM_RXQ, true);
	for (j = 0; j < RXQ_SIZE; j++)
		ASSERT_EQ(0, vnm_rx(dev, f, make_frame(f, j, sizeof(f))));
	for (j = 0; j < RXQ_SIZE; j += 4) {
		ASSERT_EQ(4, q->ops->rx_burst(q, m, 4));
		for (i = 0; i < 4; i++)
			ixm_mbuf_free(m[i]);
	}
	q->ops->rx_refill(q);
	EXPECT_EQ(1, dev->q[VNM_RXQ].kicks);
	EXPECT_EQ(0, dev->q[VNM_RXQ].kicks_unasked);
	ASSERT_EQ(0, vnm_rx(dev, f, make_frame(f, 0, sizeof(f))));
	ASSERT_EQ(1, q->ops->rx_burst(q, m, 4));
	ixm_mbuf_free(m[0]);
	ixm_vnet_release(vnq);
	EXPECT_EQ(NBUF, self->r.pool.nfree);
}

/*
 * Interrupts: none while polling; ixm_vq_arm() refuses to let the core
 * sleep while a used entry waits (the §2.6.14 re-check) and, once armed,
 * the next frame interrupts exactly once; disarmed again, none.
 */
TEST_F(vnet, arm_before_sleep)
{
	struct ixm_vnet_queue *vnq = &self->r.vnq;
	struct vnm_dev *dev = self->r.dev;
	struct ixm_queue *q = &vnq->q;
	struct ixm_mbuf *m[4];
	u8 f[100];

	ASSERT_EQ(0, ixm_vnet_rxq_fill(vnq));
	ASSERT_EQ(0, vnm_rx(dev, f, make_frame(f, 1, sizeof(f))));
	EXPECT_EQ(0, dev->q[VNM_RXQ].irqs);
	/* a frame came in before the request: no sleep */
	EXPECT_FALSE(ixm_vq_arm(&vnq->rx));
	EXPECT_FALSE(vnq->rx.irq_armed);
	EXPECT_TRUE(q->ops->busy(q));
	ASSERT_EQ(1, q->ops->rx_burst(q, m, 4));
	ixm_mbuf_free(m[0]);
	ASSERT_EQ(0, vnm_rx(dev, f, make_frame(f, 2, sizeof(f))));
	EXPECT_EQ(0, dev->q[VNM_RXQ].irqs);
	ASSERT_EQ(1, q->ops->rx_burst(q, m, 4));
	ixm_mbuf_free(m[0]);

	/* nothing waits: the core may sleep; the next frame interrupts */
	EXPECT_FALSE(q->ops->busy(q));
	EXPECT_TRUE(ixm_vq_arm(&vnq->rx));
	ASSERT_EQ(0, vnm_rx(dev, f, make_frame(f, 3, sizeof(f))));
	EXPECT_EQ(1, dev->q[VNM_RXQ].irqs);
	/* woken: polling again */
	ixm_vq_disarm(&vnq->rx);
	ASSERT_EQ(1, q->ops->rx_burst(q, m, 4));
	ixm_mbuf_free(m[0]);
	ASSERT_EQ(0, vnm_rx(dev, f, make_frame(f, 4, sizeof(f))));
	ASSERT_EQ(1, q->ops->rx_burst(q, m, 4));
	ixm_mbuf_free(m[0]);
	EXPECT_EQ(1, dev->q[VNM_RXQ].irqs);
	EXPECT_EQ(0, dev->q[VNM_TXQ].irqs);
	ixm_vnet_release(vnq);
	EXPECT_EQ(NBUF, self->r.pool.nfree);
}

/*
 * Polling for more than 2^16 entries never lets the device reach
 * used_event: with EVENT_IDX the driver keeps moving it.
 */
TEST_F(vnet, polling_no_irq_across_wrap)
{
	struct ixm_vnet_queue *vnq = &self->r.vnq;
	struct vnm_dev *dev = self->r.dev;
	struct ixm_queue *q = &vnq->q;
	struct ixm_mbuf *m[1];
	unsigned int i;
	u8 f[60];

	ASSERT_EQ(0, ixm_vnet_rxq_fill(vnq));
	for (i = 0; i < 140000; i++) {
		ASSERT_EQ(0, vnm_rx(dev, f, make_frame(f, i, sizeof(f))));
		ASSERT_EQ(1, q->ops->rx_burst(q, m, 1));
		ixm_mbuf_free(m[0]);
		q->ops->rx_refill(q);
	}
	EXPECT_EQ(0, dev->q[VNM_RXQ].irqs);
	ixm_vnet_release(vnq);
}

/* Receive checksum status: DATA_VALID and NEEDS_CSUM vouch for TCP/UDP. */
TEST_F(vnet, rx_csum_flags)
{
	static const struct {
		u8	hdr_flags;
		bool	guest_csum;
		u16	want;
	} c[] = {
		{ 0, true, 0 },
		{ VIRTIO_NET_HDR_F_DATA_VALID, true, IXM_MBUF_F_L4_CSUM_OK },
		/* a local sender's: good data, the field only partial */
		{ VIRTIO_NET_HDR_F_NEEDS_CSUM, true,
		  IXM_MBUF_F_L4_CSUM_OK | IXM_MBUF_F_L4_CSUM_PARTIAL },
		/* not negotiated: the bits mean nothing */
		{ VIRTIO_NET_HDR_F_DATA_VALID, false, 0 },
	};
	struct ixm_vnet_queue *vnq = &self->r.vnq;
	struct ixm_queue *q = &vnq->q;
	struct ixm_mbuf *m[2];
	unsigned int i;
	u8 f[200];

	ASSERT_EQ(0, ixm_vnet_rxq_fill(vnq));
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		self->r.dev->rx_hdr_flags = c[i].hdr_flags;
		vnq->guest_csum = c[i].guest_csum;
		ASSERT_EQ(0, vnm_rx(self->r.dev, f, make_frame(f, i, sizeof(f))));
		ASSERT_EQ(1, q->ops->rx_burst(q, m, 2));
		EXPECT_EQ(c[i].want, m[0]->flags);
		EXPECT_FALSE(m[0]->flags & IXM_MBUF_F_IP_CSUM_OK);
		ixm_mbuf_free(m[0]);
	}
	EXPECT_EQ(2, vnq->rx_csum_hw);
	/* more than one buffer (MRG_RXBUF is not negotiated): dropped */
	self->r.dev->rx_num_buffers = 2;
	ASSERT_EQ(0, vnm_rx(self->r.dev, f, make_frame(f, 9, sizeof(f))));
	EXPECT_EQ(0, q->ops->rx_burst(q, m, 2));
	EXPECT_EQ(1, vnq->rx_errors);
	/* older vhost wrote 0: taken */
	self->r.dev->rx_num_buffers = 0;
	ASSERT_EQ(0, vnm_rx(self->r.dev, f, make_frame(f, 9, sizeof(f))));
	ASSERT_EQ(1, q->ops->rx_burst(q, m, 2));
	ixm_mbuf_free(m[0]);
	ixm_vnet_release(vnq);
	EXPECT_EQ(NBUF, self->r.pool.nfree);
}

/*
 * An Ethernet + IPv4 + TCP/UDP frame as the stack leaves it for a NIC
 * that inserts checksums: IPv4 checksum 0, the L4 field the pseudo-header's
 * sum (mbuf.h).  Returns the frame's length.
 */
static size_t offload_frame(u8 *f, u8 proto, size_t payload)
{
	size_t l4 = proto == 6 ? 20 : 8, seglen = l4 + payload, i;
	u8 *ip = f + 14, *th = ip + 20, pseudo[12];

	memset(f, 0, 14 + 20 + seglen);
	memcpy(f, peer_mac, 6);
	memcpy(f + 6, our_mac, 6);
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, (unsigned int)(20 + seglen));
	ip[8] = 64;
	ip[9] = proto;
	put32(ip + 12, 0x0a000001);
	put32(ip + 16, 0x0a000002);
	put16(th, 1234);
	put16(th + 2, 80);
	if (proto == 6) {
		put32(th + 4, 1000);
		th[12] = 5 << 4;
		th[13] = TH_ACK;
		put16(th + 14, 65535);
	} else {
		put16(th + 4, (unsigned int)seglen);
	}
	for (i = 0; i < payload; i++)
		th[l4 + i] = (u8)(i * 13 + 1);
	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = proto;
	put16(pseudo + 10, (unsigned int)seglen);
	put16(th + (proto == 6 ? 16 : 6), ref_csum_sum(pseudo, 12));
	return 14 + 20 + seglen;
}

/*
 * Transmit checksum offload: the model completes TCP and UDP checksums
 * from NEEDS_CSUM, the driver the IPv4 header's; a frame without the
 * flag comes out byte for byte as it went in.
 */
TEST_F(vnet, tx_csum_offload)
{
	static const struct {
		u8	proto;
		u16	flag;
	} c[] = { { 6, IXM_MBUF_F_TX_TCP_CSUM }, { 17, IXM_MBUF_F_TX_UDP_CSUM } };
	struct ixm_vnet_queue *vnq = &self->r.vnq;
	struct ixm_queue *q = &vnq->q;
	struct sink s = { 0 };
	struct ixm_mbuf *m;
	unsigned int i;
	u8 copy[2048];
	size_t len;

	if (!(variant->features & F_CSUM))
		SKIP(return, "no VIRTIO_NET_F_CSUM");
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		m = ixm_mbuf_alloc(&self->r.pool);
		len = offload_frame(m->data, c[i].proto, 333);
		m->len = (u16)len;
		m->flags = c[i].flag;
		ASSERT_EQ(1, q->ops->tx_burst(q, &m, 1));
		ASSERT_EQ(1, vnm_tx(self->r.dev, ~0u, sink_keep, &s));
		ASSERT_EQ(len, s.last_len);
		/* IPv4 header, then the whole segment with its pseudo-header */
		EXPECT_EQ(0, ref_csum(s.last + 14, 20));
		EXPECT_NE(0, get16(s.last + 24));
		EXPECT_EQ(0, ref_l4_csum(0x0a000001, 0x0a000002, c[i].proto, s.last + 34,
					 len - 34));
		q->ops->tx_reap(q);
	}
	EXPECT_EQ(2, vnq->tx_csum_hw);
	EXPECT_EQ(2, self->r.dev->tx_csum);

	/* no flag: untouched, and no NEEDS_CSUM */
	m = ixm_mbuf_alloc(&self->r.pool);
	len = offload_frame(m->data, 6, 100);
	m->len = (u16)len;
	memcpy(copy, m->data, len);
	ASSERT_EQ(1, q->ops->tx_burst(q, &m, 1));
	ASSERT_EQ(1, vnm_tx(self->r.dev, ~0u, sink_keep, &s));
	ASSERT_EQ(len, s.last_len);
	EXPECT_EQ(0, memcmp(copy, s.last, len));
	EXPECT_EQ(2, self->r.dev->tx_csum);
	q->ops->tx_reap(q);
	EXPECT_EQ(0, vnq->tx_errors);
	EXPECT_EQ(NBUF, self->r.pool.nfree);
}

/*
 * The same over IPv6 (IXM_MBUF_F_TX_IPV6): NEEDS_CSUM from right after
 * the fixed 40-byte header (csum_start 54, csum_offset 16 or 6), nothing
 * written into the IPv6 header (it has no checksum), and the segment's
 * checksum verifies over RFC 8200 §8.1's pseudo-header.
 */
TEST_F(vnet, tx_csum_offload6)
{
	static const struct {
		u8	proto;
		u16	flag;
		u16	off;
	} c[] = { { 6, IXM_MBUF_F_TX_TCP_CSUM, 16 }, { 17, IXM_MBUF_F_TX_UDP_CSUM, 6 } };
	static const u8 zero[512];
	struct ixm_vnet_queue *vnq = &self->r.vnq;
	struct ixm_queue *q = &vnq->q;
	struct sink s = { 0 };
	unsigned int i, j, seen;
	struct ixm_mbuf *m;
	u8 want[2048];
	size_t len;

	if (!(variant->features & F_CSUM))
		SKIP(return, "no VIRTIO_NET_F_CSUM");
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		const unsigned int hl = c[i].proto == 6 ? 20 : 8, n = 333;
		u8 *p, *l4;

		m = ixm_mbuf_alloc(&self->r.pool);
		p = put_eth(m->data, peer_mac, our_mac, 0x86dd);
		p = put_ip6(p, our_ip6, peer_ip6, c[i].proto, hl + n, 64);
		l4 = p;
		memset(l4, 0, hl);
		put16(l4, 1234);
		put16(l4 + 2, 80);
		if (c[i].proto == 6)
			l4[12] = 5 << 4;
		else
			put16(l4 + 4, hl + n);
		for (j = 0; j < n; j++)
			l4[hl + j] = (u8)(j * 13 + 1);
		len = 54 + hl + n;
		/* the frame as it must leave: its checksum right */
		put16(l4 + c[i].off, ref_l4_csum6(our_ip6, peer_ip6, c[i].proto, l4, hl + n));
		memcpy(want, m->data, len);
		/* as the protocols leave it: the pseudo-header's sum (mbuf.h) */
		put16(l4 + c[i].off, ~ref_l4_csum6(our_ip6, peer_ip6, c[i].proto, zero, hl + n));
		m->len = (u16)len;
		m->flags = c[i].flag | IXM_MBUF_F_TX_IPV6;
		memset(self->r.thdr, 0, TXQ_SIZE * sizeof(*self->r.thdr));
		ASSERT_EQ(1, q->ops->tx_burst(q, &m, 1));
		for (j = 0, seen = 0; j < TXQ_SIZE; j++) {
			const struct ixm_vnet_hdr *h = &self->r.thdr[j];

			if (!(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
				continue;
			seen++;
			EXPECT_EQ(54, le16_to_cpu(h->csum_start)) TH_LOG("after 40-byte IPv6");
			EXPECT_EQ(c[i].off, le16_to_cpu(h->csum_offset));
		}
		EXPECT_EQ(1, seen) TH_LOG("proto %u: one header asks NEEDS_CSUM", c[i].proto);
		ASSERT_EQ(1, vnm_tx(self->r.dev, ~0u, sink_keep, &s));
		ASSERT_EQ(len, s.last_len);
		EXPECT_EQ(0, memcmp(want, s.last, len)) TH_LOG("proto %u: as it must leave",
							       c[i].proto);
		EXPECT_EQ(0, ref_l4_csum6(our_ip6, peer_ip6, c[i].proto, s.last + 54, len - 54));
		q->ops->tx_reap(q);
	}
	EXPECT_EQ(2, vnq->tx_csum_hw);
	EXPECT_EQ(2, self->r.dev->tx_csum);
	EXPECT_EQ(0, vnq->tx_errors);
	EXPECT_EQ(NBUF, self->r.pool.nfree);
}

/*
 * Zero-copy: a header in the buffer and three fragments read in place
 * from an "arena"; the device sends them as one frame, and the arena's
 * in-flight count drops back only when the frame is reaped.
 */
TEST_F(vnet, tx_zero_copy_frags)
{
	struct ixm_vnet_queue *vnq = &self->r.vnq;
	struct ixm_queue *q = &vnq->q;
	static const u32 fl[3] = { 1000, 1, 377 };
	struct ixm_mbuf_zc zc = { 0 };
	struct sink s = { 0 };
	u8 arena[4096], want[2048];
	struct ixm_mbuf *m;
	u32 inflight = 0, off = 0;
	unsigned int i;

	for (i = 0; i < sizeof(arena); i++)
		arena[i] = (u8)(i * 7 + 3);
	m = tx_frame(&self->r, 5, 54);
	memcpy(want, m->data, 54);
	for (i = 0; i < 3; i++) {
		m->frags[i].dma = (uintptr_t)(arena + 100 + off * 2);
		m->frags[i].len = fl[i];
		memcpy(want + 54 + off, arena + 100 + off * 2, fl[i]);
		off += fl[i];
	}
	m->nfrags = 3;
	m->inflight = &inflight;
	m->zc = &zc;
	inflight++;
	zc.built++;
	ASSERT_EQ(1, q->ops->tx_burst(q, &m, 1));
	m->flags |= IXM_MBUF_F_TX_TAKEN;
	EXPECT_EQ(TXQ_SIZE - 5, vnq->tx.num_free);
	ASSERT_EQ(1, vnm_tx(self->r.dev, ~0u, sink_keep, &s));
	ASSERT_EQ(54 + off, s.last_len);
	EXPECT_EQ(0, memcmp(want, s.last, s.last_len));
	EXPECT_EQ(1, inflight);
	EXPECT_EQ(5, q->ops->tx_reap(q));
	EXPECT_EQ(0, inflight);
	EXPECT_EQ(1, zc.done);
	EXPECT_EQ(TXQ_SIZE, vnq->tx.num_free);
	EXPECT_EQ(NBUF, self->r.pool.nfree);
}

/*
 * A full ring takes a prefix of the burst, whole frames only, counts the
 * rest, and loses nothing: what it took is sent, what it did not is the
 * caller's.
 */
TEST_F(vnet, tx_ring_full)
{
	struct ixm_vnet_queue *vnq = &self->r.vnq;
	struct ixm_queue *q = &vnq->q;
	struct sink s = { 0 };
	struct ixm_mbuf *m[12];
	unsigned int i, took;
	u32 inflight = 1;
	u8 tail[10];

	for (i = 0; i < 12; i++)
		m[i] = tx_frame(&self->r, i, 64);
	/* the first frame ends in a fragment (its last 10 bytes): 3 descriptors */
	memcpy(tail, m[0]->data + 54, 10);
	m[0]->len = 54;
	m[0]->frags[0].dma = (uintptr_t)tail;
	m[0]->frags[0].len = 10;
	m[0]->nfrags = 1;
	m[0]->inflight = &inflight;
	/* then 2 a frame: 16 entries hold 1 + 6, and one is left over */
	took = q->ops->tx_burst(q, m, 12);
	EXPECT_EQ(7, took);
	EXPECT_EQ(12 - took, vnq->tx_full);
	EXPECT_EQ(1, vnq->tx.num_free);
	EXPECT_EQ(0, q->ops->tx_burst(q, m + took, 12 - took));
	EXPECT_EQ(took, vnm_tx(self->r.dev, ~0u, sink_check, &s));
	EXPECT_EQ(0, s.bad);
	EXPECT_EQ(2 * took + 1, q->ops->tx_reap(q));
	EXPECT_EQ(0, inflight);
	/* the rest, now that there is room, in order */
	EXPECT_EQ(12 - took, q->ops->tx_burst(q, m + took, 12 - took));
	EXPECT_EQ(12 - took, vnm_tx(self->r.dev, ~0u, sink_check, &s));
	EXPECT_EQ(12, s.n);
	EXPECT_EQ(0, s.bad);
	q->ops->tx_reap(q);
	EXPECT_EQ(NBUF, self->r.pool.nfree);
}

/*
 * A stopped queue pair gives every buffer back: posted receive buffers,
 * frames the device never sent, frames sent and not reaped.
 */
TEST_F(vnet, release_returns_all)
{
	struct ixm_vnet_queue *vnq = &self->r.vnq;
	struct ixm_queue *q = &vnq->q;
	struct ixm_mbuf *m[6];
	unsigned int i;
	u8 f[100];

	ASSERT_EQ(0, ixm_vnet_rxq_fill(vnq));
	ASSERT_EQ(0, vnm_rx(self->r.dev, f, make_frame(f, 1, sizeof(f))));
	for (i = 0; i < 6; i++)
		m[i] = tx_frame(&self->r, i, 64);
	ASSERT_EQ(6, q->ops->tx_burst(q, m, 6));
	ASSERT_EQ(2, vnm_tx(self->r.dev, 2, NULL, NULL));
	EXPECT_EQ(NBUF - RXQ_SIZE - 6, self->r.pool.nfree);
	/* the device is reset (queue_reset), then the driver lets go */
	vnm_queue_reset(self->r.dev, VNM_RXQ);
	vnm_queue_reset(self->r.dev, VNM_TXQ);
	ixm_vnet_release(vnq);
	EXPECT_EQ(NBUF, self->r.pool.nfree);
	EXPECT_EQ(RXQ_SIZE, vnq->rx.num_free);
	EXPECT_EQ(TXQ_SIZE, vnq->tx.num_free);
	EXPECT_FALSE(q->ops->busy(q));
	/* and the queue starts again from scratch */
	vnm_queue_setup(self->r.dev, VNM_RXQ, RXQ_SIZE, (void *)(uintptr_t)vnq->rx.dma,
			(void *)(uintptr_t)ixm_vq_avail_dma(&vnq->rx),
			(void *)(uintptr_t)ixm_vq_used_dma(&vnq->rx));
	ASSERT_EQ(0, ixm_vnet_rxq_fill(vnq));
	ASSERT_EQ(0, vnm_rx(self->r.dev, f, make_frame(f, 2, sizeof(f))));
	ASSERT_EQ(1, q->ops->rx_burst(q, m, 6));
	EXPECT_EQ(0, memcmp(f, m[0]->data, sizeof(f)));
	ixm_mbuf_free(m[0]);
	ixm_vnet_release(vnq);
	EXPECT_EQ(NBUF, self->r.pool.nfree);
}

/* A pool that cannot fill the ring leaves nothing posted. */
TEST_F(vnet, fill_no_buffers)
{
	struct ixm_vnet_queue *vnq = &self->r.vnq;
	struct ixm_mbuf *hold[NBUF];
	unsigned int i, n = NBUF - RXQ_SIZE + 1;

	for (i = 0; i < n; i++)
		hold[i] = ixm_mbuf_alloc(&self->r.pool);
	EXPECT_EQ(-ENOMEM, ixm_vnet_rxq_fill(vnq));
	EXPECT_EQ(RXQ_SIZE - 1, self->r.pool.nfree);
	EXPECT_EQ(RXQ_SIZE, vnq->rx.num_free);
	for (i = 0; i < n; i++)
		ixm_mbuf_free(hold[i]);
}

/*
 * The virtqueue alone, playing the device by hand: chains of 1..size
 * descriptors, all-or-nothing when too few are free, a used entry naming
 * no chain skipped and counted, and the free list whole at the end.
 */
TEST(vq_add_and_used_limits)
{
	struct ixm_vq_buf b[8];
	u16 priv[2 * 8];
	struct ixm_vq vq;
	void *ring;
	u32 len;
	int h, i;

	ring = aligned_alloc(64, (ixm_vq_ring_size(8) + 63) & ~63UL);
	ASSERT_TRUE(ring != NULL);
	EXPECT_EQ(-EINVAL, ixm_vq_init(&vq, 6, ring, (uintptr_t)ring, priv, true));
	ASSERT_EQ(0, ixm_vq_init(&vq, 8, ring, (uintptr_t)ring, priv, true));
	for (i = 0; i < 8; i++)
		b[i] = (struct ixm_vq_buf){ .addr = 0x1000 * (i + 1), .len = 100 + i };
	EXPECT_EQ(-EINVAL, ixm_vq_add(&vq, b, 0));
	h = ixm_vq_add(&vq, b, 3);
	ASSERT_LE(0, h);
	EXPECT_EQ(5, vq.num_free);
	/* the chain as the device reads it: NEXT on all but the last */
	EXPECT_EQ(VRING_DESC_F_NEXT, le16_to_cpu(vq.desc[h].flags));
	EXPECT_EQ(0x1000, le64_to_cpu(vq.desc[h].addr));
	EXPECT_EQ(-ENOSPC, ixm_vq_add(&vq, b, 6));
	EXPECT_EQ(5, vq.num_free);
	EXPECT_EQ(1, vq.avail_idx);
	ixm_vq_publish(&vq);
	EXPECT_EQ(1, le16_to_cpu(vq.avail->idx));
	EXPECT_EQ(h, le16_to_cpu(vq.avail->ring[0]));
	EXPECT_EQ(-ENOENT, ixm_vq_get_used(&vq, &len));

	/* the device gives back a head it never had, then the real one */
	vq.used->ring[0].id = cpu_to_le32(9);
	vq.used->ring[1].id = cpu_to_le32(h + 1);
	vq.used->ring[2].id = cpu_to_le32(h);
	vq.used->ring[2].len = cpu_to_le32(42);
	vq.used->idx = cpu_to_le16(3);
	EXPECT_EQ(-EIO, ixm_vq_get_used(&vq, &len));
	EXPECT_EQ(-EIO, ixm_vq_get_used(&vq, &len));
	EXPECT_EQ(2, vq.bad_used);
	EXPECT_EQ(h, ixm_vq_get_used(&vq, &len));
	EXPECT_EQ(42, len);
	EXPECT_EQ(8, vq.num_free);
	/* a chain of the whole table, then nothing more fits */
	h = ixm_vq_add(&vq, b, 8);
	ASSERT_LE(0, h);
	EXPECT_EQ(0, vq.num_free);
	EXPECT_EQ(-ENOSPC, ixm_vq_add(&vq, b, 1));
	for (i = 0; i < 8; i++) {
		u16 f = le16_to_cpu(vq.desc[h].flags);

		EXPECT_EQ(0x1000 * (i + 1), le64_to_cpu(vq.desc[h].addr));
		EXPECT_EQ(i < 7 ? VRING_DESC_F_NEXT : 0, f);
		h = le16_to_cpu(vq.desc[h].next);
	}
	free(ring);
}

/*
 * The model catches what it is meant to: a driver that makes a held
 * descriptor available again, a readable receive buffer, a checksum
 * outside the frame.  (The ring is written by hand here, as a broken
 * driver would.)
 */
TEST(model_catches_driver_bugs)
{
	struct rig r;
	struct ixm_vq_buf b = { 0, 2048, true };
	struct ixm_mbuf *m;
	u8 f[64];

	rig_init(&r, F_VERSION_1 | F_CSUM | F_EVENT_IDX);
	b.addr = r.mbufs[0].dma;
	ASSERT_LE(0, ixm_vq_add(&r.vnq.rx, &b, 1));
	/* the same descriptor (head 0) again */
	r.vnq.rx.avail->ring[1] = 0;
	r.vnq.rx.avail_idx++;
	ixm_vq_publish(&r.vnq.rx);
	vnm_rx(r.dev, f, make_frame(f, 0, sizeof(f)));
	EXPECT_EQ(1, r.dev->viol[VNM_V_REUSE]);

	b.write = false;
	ASSERT_LE(0, ixm_vq_add(&r.vnq.rx, &b, 1));
	ixm_vq_publish(&r.vnq.rx);
	vnm_rx(r.dev, f, make_frame(f, 0, sizeof(f)));
	vnm_rx(r.dev, f, make_frame(f, 0, sizeof(f)));
	EXPECT_EQ(1, r.dev->viol[VNM_V_RX_READABLE]);

	m = ixm_mbuf_alloc(&r.pool);
	m->len = (u16)offload_frame(m->data, 17, 10);
	m->flags = IXM_MBUF_F_TX_UDP_CSUM;
	ASSERT_EQ(1, r.vnq.q.ops->tx_burst(&r.vnq.q, &m, 1));
	r.thdr[0].csum_start = cpu_to_le16(m->len);
	vnm_tx(r.dev, ~0u, NULL, NULL);
	EXPECT_EQ(1, r.dev->viol[VNM_V_CSUM_RANGE]);
	r.vnq.q.ops->tx_reap(&r.vnq.q);
	rig_free(&r);
}

TEST_HARNESS_MAIN
