// SPDX-License-Identifier: GPL-2.0
/*
 * vnet_steer.c - what software steering costs per frame, for callgrind
 *
 * Two virtio-net queue pairs (nic/virtio_net_q.c), one model device each
 * (model/virtio_net_model.c), receive FRAMES TCP frames of 64 flows in
 * bursts of 32, then each queue's receive burst and refill run until both
 * are idle.  Only those two functions are measured:
 *
 *   valgrind --tool=callgrind --toggle-collect=ixm_vnet_q_rx_burst \
 *	--toggle-collect=ixm_vnet_q_rx_refill build/plain/bench/vnet_steer MODE LEN
 *
 * MODE: "none" (no steering: the driver as it is with RSS or one pair),
 * "right" (steering, every frame delivered on its owner's queue: the
 * hash alone), "wrong" (steering, every frame on the other queue: hash,
 * copy, the owner's take and its buffer posted again).  LEN: frame bytes.
 * Collected instructions / FRAMES is the cost per frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtio_net_model.h"
#include "virtio_net.h"
#include "toeplitz.h"
#include "frames.h"

#define NQ		2
#define NBUF		1024
#define RXQ_SIZE	256
#define TXQ_SIZE	16
#define FRAMES		20000
#define BURST		32

#define F_EVENT_IDX	(1ULL << 29)
#define F_VERSION_1	(1ULL << 32)

struct rq {
	struct vnm_dev		*dev;
	struct ixm_vnet_queue	vnq;
	struct ixm_steer_q	sq;
	struct ixm_mbuf_pool	pool;
	struct ixm_mbuf		mbufs[NBUF];
	struct ixm_mbuf		*free[NBUF];
	u16			rxpriv[2 * RXQ_SIZE], txpriv[2 * TXQ_SIZE];
	struct ixm_mbuf		*rslot[RXQ_SIZE], *tslot[TXQ_SIZE];
	struct ixm_vnet_hdr	thdr[TXQ_SIZE];
};

static struct ixm_steer st;
static struct rq q[NQ];

static void vq_setup(struct rq *r, struct ixm_vq *vq, unsigned int qi, u16 size, u16 *priv)
{
	void *ring = aligned_alloc(64, (ixm_vq_ring_size(size) + 63) & ~63UL);

	if (!ring || ixm_vq_init(vq, size, ring, (uintptr_t)ring, priv, true))
		die("vq");
	vq->notify = r->dev->notify;
	vq->notify_data = qi;
	vnm_queue_setup(r->dev, qi, size, ring, (void *)(uintptr_t)ixm_vq_avail_dma(vq),
			(void *)(uintptr_t)ixm_vq_used_dma(vq));
}

static void wake(struct ixm_steer *s, unsigned int qi)
{
}

static size_t frame(u8 *b, unsigned int flow, size_t len)
{
	u8 *ip = b + 14;

	memset(b, 0, len);
	b[12] = 0x08;
	ip[0] = 0x45;
	ip[9] = 6;
	put32(ip + 12, 0xc6120002);
	put32(ip + 16, 0xc6130001);
	put16(ip + 20, 40000 + flow);
	put16(ip + 22, 80);
	return len;
}

int main(int argc, char **argv)
{
	static const char * const modes[] = { "none", "right", "wrong" };
	unsigned int mode = 3, i, k, f, sent = 0, got = 0, owner[64];
	struct ixm_mbuf *out[64];
	u8 reta[IXM_RSS_RETA_SIZE], b[1514];
	size_t len;
	bool work;

	for (i = 0; argc == 3 && i < 3; i++)
		if (!strcmp(argv[1], modes[i]))
			mode = i;
	len = argc == 3 ? strtoul(argv[2], NULL, 0) : 0;
	if (mode > 2 || len < 60 || len > 1514) {
		fprintf(stderr, "usage: %s none|right|wrong LEN(60-1514)\n", argv[0]);
		return 2;
	}
	st.wake = wake;
	for (k = 0; k < NQ; k++) {
		struct rq *r = &q[k];

		r->dev = vnm_new(F_VERSION_1 | F_EVENT_IDX);
		for (i = 0; i < NBUF; i++) {
			r->mbufs[i].buf = aligned_alloc(64, IXM_MBUF_SIZE);
			r->mbufs[i].dma = (dma_addr_t)(uintptr_t)r->mbufs[i].buf;
		}
		ixm_mbuf_pool_init(&r->pool, r->mbufs, r->free, NBUF);
		r->vnq.q.ops = &ixm_vnet_queue_ops;
		r->vnq.q.idx = k;
		r->vnq.q.vector = -1;
		r->vnq.pool = &r->pool;
		r->vnq.rx_slot = r->rslot;
		r->vnq.tx_slot = r->tslot;
		r->vnq.tx_hdr = r->thdr;
		r->vnq.tx_hdr_dma = (uintptr_t)r->thdr;
		vq_setup(r, &r->vnq.rx, VNM_RXQ, RXQ_SIZE, r->rxpriv);
		vq_setup(r, &r->vnq.tx, VNM_TXQ, TXQ_SIZE, r->txpriv);
		if (mode) {
			r->vnq.steer = &r->sq;
			ixm_steer_q_attach(&st, &r->sq, k, &r->pool);
		}
		if (ixm_vnet_rxq_fill(&r->vnq))
			die("fill");
	}
	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		reta[i] = i % NQ;
	if (mode && ixm_steer_start(&st, ixm_rss_key_symmetric, reta))
		die("start");
	for (f = 0; f < 64; f++) {
		struct ixm_mbuf m = { .buf = b, .data = b, .len = frame(b, f, len) };
		u32 h = ixm_toeplitz_ipv4_l4(ixm_rss_key_symmetric, ixm_htonl(0xc6120002),
					     ixm_htonl(0xc6130001), ixm_htons(40000 + f),
					     ixm_htons(80));

		owner[f] = reta[h & 127];
		if (mode && ixm_steer_owner(&st, &m) != owner[f])
			die("owner");
	}
	while (sent < FRAMES) {
		for (i = 0; i < BURST && sent < FRAMES; i++, sent++) {
			f = sent % 64;
			/* "none" delivers as "right" does: the same queues' work */
			k = mode == 2 ? !owner[f] : owner[f];
			if (vnm_rx(q[k].dev, b, frame(b, f, len)) < 0)
				die("rx");
		}
		do {
			work = false;
			for (k = 0; k < NQ; k++) {
				struct ixm_queue *qq = &q[k].vnq.q;
				unsigned int n = qq->ops->rx_burst(qq, out, 64);

				for (i = 0; i < n; i++)
					ixm_mbuf_free(out[i]);
				got += n;
				qq->ops->rx_refill(qq);
				work |= n;
			}
			for (k = 0; k < NQ; k++)
				work |= q[k].vnq.q.ops->busy(&q[k].vnq.q);
		} while (work);
	}
	printf("%s, %zu-byte frames: %u sent, %u received, %llu steered, %llu dropped\n",
	       modes[mode], len, sent, got,
	       (unsigned long long)(q[0].sq.steered + q[1].sq.steered),
	       (unsigned long long)(q[0].sq.steer_drops + q[1].sq.steer_drops));
	return got == sent ? 0 : 1;
}
