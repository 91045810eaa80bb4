// SPDX-License-Identifier: GPL-2.0
/*
 * virtio_pair.c - TCP between two stacks, each on its own modelled virtio-net
 *
 * unit/tcp_pair.c's transfers and every one of its checks, built again
 * with TCP_PAIR_NIC as unit/ixgbe_pair.c builds them: each host's queue
 * pair is now nic/virtio_net_q.c over nic/virtio_ring.c, against a
 * virtio-net device model of its own (model/virtio_net_model.c), with
 * VIRTIO_F_EVENT_IDX, VIRTIO_NET_F_CSUM and GUEST_CSUM negotiated.  A
 * frame a host sends is gathered from its transmit chain by its device
 * (the TCP checksum completed from NEEDS_CSUM, the IPv4 one the driver's),
 * impaired on the wire, and written into a receive chain of the other
 * device (DATA_VALID when its checksum is good) before that host's driver
 * sees it.  Neither model may count a driver rule broken; neither device
 * is kicked (both poll) nor raises an interrupt.
 */
#define TCP_PAIR_NIC 1
#include "tcp_pair.c"

#include "virtio_net_model.h"
#include "virtio_net.h"

#define NIC_RX_RING	256
#define NIC_TX_RING	2048	/* a step's worth, as unit/ixgbe_pair.c sizes it */

#define F_CSUM		(1ULL << 0)
#define F_GUEST_CSUM	(1ULL << 1)
#define F_EVENT_IDX	(1ULL << 29)
#define F_VERSION_1	(1ULL << 32)

FIXTURE_VARIANT_ADD(tcp_pair, virtio_clean) {
	.sc = { "two virtio-nets, clean wire", .delay = 1, .seed = 31, .max_steps = 4000,
		.offload = 2 },
};

FIXTURE_VARIANT_ADD(tcp_pair, virtio_loss_2pct) {
	.sc = { "two virtio-nets, 2% loss", LOSS(2), .delay = 1, .seed = 32,
		.max_steps = 300000, .offload = 2 },
};

/* TCP over IPv6, the device summing each segment (IPv6 contexts) */
FIXTURE_VARIANT_ADD(tcp_pair, virtio_ipv6_loss_1pct) {
	.sc = { "two virtio-nets, IPv6, 1% loss", LOSS(1), .delay = 1, .seed = 34,
		.max_steps = 300000, .offload = 2, .inet6 = true },
};

FIXTURE_VARIANT_ADD(tcp_pair, virtio_all_combined) {
	.sc = { "two virtio-nets, loss, duplication, reordering, corruption", LOSS(2), DUP(2),
		REORDER(2), CORRUPT(1), .delay = 2, .seed = 33, .max_steps = 600000,
		.offload = 2 },
};

/**
 * struct pair_nic - one host's device: the model and what its driver owns
 */
struct pair_nic {
	struct vnm_dev		*dev;
	struct ixm_vnet_queue	vnq;
	void			*rxring, *txring;
	u16			rxpriv[2 * NIC_RX_RING], txpriv[2 * NIC_TX_RING];
	struct ixm_mbuf		*rslot[NIC_RX_RING];
	struct ixm_mbuf		*tslot[NIC_TX_RING];
	struct ixm_vnet_hdr	thdr[NIC_TX_RING];
};

static struct pair_nic pair_nics[2];	/* the client's, the server's */

static bool pair_nic_rx(void *dev, const u8 *f, size_t len)
{
	return vnm_rx(dev, f, (unsigned int)len) >= 0;
}

static unsigned int pair_nic_tx(void *dev, tn_nic_sent_fn sent, void *arg)
{
	return vnm_tx(dev, ~0u, sent, arg);
}

static const struct tn_nic pair_nic_model = {
	.rx	= pair_nic_rx,
	.tx	= pair_nic_tx,
};

static void *pair_vq(struct pair_nic *pn, struct ixm_vq *vq, unsigned int qi, u16 size,
		     u16 *priv)
{
	void *ring = aligned_alloc(64, (ixm_vq_ring_size(size) + 63) & ~63UL);

	if (!ring || ixm_vq_init(vq, size, ring, (uintptr_t)ring, priv, true))
		return NULL;
	vq->notify = pn->dev->notify;
	vq->notify_data = qi;
	vnm_queue_setup(pn->dev, qi, size, ring, (void *)(uintptr_t)ixm_vq_avail_dma(vq),
			(void *)(uintptr_t)ixm_vq_used_dma(vq));
	return ring;
}

/* Bring up @s's device (queues set up, receive ring filled), under the host. */
static void pair_nic_attach(struct __test_metadata *_metadata, struct side *s)
{
	struct pair_nic *pn = &pair_nics[s->server];
	struct ixm_vnet_queue *vnq = &pn->vnq;

	memset(pn, 0, sizeof(*pn));
	pn->dev = vnm_new(F_VERSION_1 | F_CSUM | F_GUEST_CSUM | F_EVENT_IDX);
	pn->dev->rx_validate = true;
	vnq->q.ops = &ixm_vnet_queue_ops;
	vnq->pool = &s->h->pool;
	vnq->rx_slot = pn->rslot;
	vnq->tx_slot = pn->tslot;
	vnq->tx_hdr = pn->thdr;
	vnq->tx_hdr_dma = (uintptr_t)pn->thdr;
	vnq->csum = true;
	vnq->guest_csum = true;
	pn->rxring = pair_vq(pn, &vnq->rx, VNM_RXQ, NIC_RX_RING, pn->rxpriv);
	pn->txring = pair_vq(pn, &vnq->tx, VNM_TXQ, NIC_TX_RING, pn->txpriv);
	ASSERT_TRUE(pn->rxring && pn->txring);
	ASSERT_EQ(0, ixm_vnet_rxq_fill(vnq));
	tn_host_offload(s->h, true);	/* the stack leaves checksums to the device */
	tn_host_nic(s->h, &vnq->q, &pair_nic_model, pn->dev);
}

/* What the device saw, then its queues reset and their buffers given back. */
static void pair_nic_detach(struct __test_metadata *_metadata, struct side *s)
{
	struct pair_nic *pn = &pair_nics[s->server];
	struct ixm_vnet_queue *vnq = &pn->vnq;
	const char *who = s->server ? "server" : "client";
	unsigned int i;

	EXPECT_EQ(0, vnm_violations(pn->dev)) TH_LOG("%s's device: no driver rule broken", who);
	EXPECT_EQ(0, vnq->rx_errors) TH_LOG("%s: no receive chain dropped", who);
	EXPECT_EQ(0, vnq->tx_errors) TH_LOG("%s: no checksum asked of a queue without", who);
	/* the model vouches for IPv4's only: over IPv6 the stack sums them */
	if (!s->inet6)
		EXPECT_GT(vnq->rx_csum_hw, 0) {
			TH_LOG("%s: the device vouched for receive checksums", who);
		}
	EXPECT_GT(vnq->tx_csum_hw, 0) TH_LOG("%s: and completed transmit checksums", who);
	EXPECT_GT(vnq->rx_packets, 1000) TH_LOG("%s: the frames came through its rings", who);
	for (i = 0; i < VNM_NQ; i++) {
		EXPECT_EQ(0, pn->dev->q[i].kicks) {
			TH_LOG("%s: a polling device is never kicked", who);
		}
		EXPECT_EQ(0, pn->dev->q[i].irqs) TH_LOG("%s: nor interrupts a polling core", who);
	}
	ixm_vnet_q_tx_reap(&vnq->q);
	vnm_queue_reset(pn->dev, VNM_RXQ);
	vnm_queue_reset(pn->dev, VNM_TXQ);
	ixm_vnet_release(vnq);
	tn_host_nic(s->h, NULL, NULL, NULL);
	vnm_free(pn->dev);
	free(pn->rxring);
	free(pn->txring);
}
