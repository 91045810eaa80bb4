// SPDX-License-Identifier: GPL-2.0
/*
 * ixgbe_pair.c - TCP between two stacks, each on its own modelled 82599
 *
 * unit/tcp_pair.c's transfers and every one of its checks (each byte of
 * 4 connections x 2 MiB each way, one DEAD per connection, empty tables
 * and full pools after TIME_WAIT, the counters the impairment must move),
 * built again with TCP_PAIR_NIC: each host's queue pair is now driven by
 * intel_adv.c's queue code and ixm_ixgbe_ops over a 82599 register model
 * of its own (model/ixgbe_model.c), and the link joins the two devices: a
 * frame a host sends is transmitted by its device (checksums inserted by
 * the model from the context descriptor the driver wrote), impaired on
 * the wire, and received by the other device (RSS, checksum status and
 * descriptor write-back by the model) before that host's driver sees it.
 * Neither model may count a datasheet rule broken, and no receive
 * descriptor may come back with an error.
 */
#define TCP_PAIR_NIC 1
#include "tcp_pair.c"

#include "ixgbe_model.h"
#include "intel_adv.h"
#include "nic.h"
#include "toeplitz.h"

/*
 * Descriptors per ring.  The model transmits once a step, after the
 * host's iteration, where a NIC drains its ring while the core works: the
 * transmit ring holds a step's worth (a segment of arena pieces takes a
 * context and up to 5 data descriptors) so the clean run drops nothing.
 */
#define NIC_RX_RING	256
#define NIC_TX_RING	2048

FIXTURE_VARIANT_ADD(tcp_pair, ixgbe_clean) {
	.sc = { "two 82599s, clean wire", .delay = 1, .seed = 21, .max_steps = 4000,
		.offload = 2 },
};

FIXTURE_VARIANT_ADD(tcp_pair, ixgbe_loss_2pct) {
	.sc = { "two 82599s, 2% loss", LOSS(2), .delay = 1, .seed = 22, .max_steps = 300000,
		.offload = 2 },
};

/* TCP over IPv6, the device summing each segment (IPv6 contexts) */
FIXTURE_VARIANT_ADD(tcp_pair, ixgbe_ipv6_loss_1pct) {
	.sc = { "two 82599s, IPv6, 1% loss", LOSS(1), .delay = 1, .seed = 24,
		.max_steps = 300000, .offload = 2, .inet6 = true },
};

FIXTURE_VARIANT_ADD(tcp_pair, ixgbe_all_combined) {
	.sc = { "two 82599s, loss, duplication, reordering, corruption", LOSS(2), DUP(2),
		REORDER(2), CORRUPT(1), .delay = 2, .seed = 23, .max_steps = 600000,
		.offload = 2 },
};

/**
 * struct pair_nic - one host's device: the model and what its driver owns
 */
struct pair_nic {
	struct ixgbem_dev	*dev;
	struct ixm_nic		nic;
	struct ixm_adv_queue	aq;
	union ixm_adv_rx_desc	*rxd;
	union ixm_adv_tx_desc	*txd;
	struct ixm_mbuf		*rslot[NIC_RX_RING];
	struct ixm_tx_slot	tslot[NIC_TX_RING];
};

static struct pair_nic pair_nics[2];	/* the client's, the server's */

static bool pair_nic_rx(void *dev, const u8 *f, size_t len)
{
	ixgbem_select(dev);
	return ixgbem_rx(f, (unsigned int)len) >= 0;
}

static unsigned int pair_nic_tx(void *dev, tn_nic_sent_fn sent, void *arg)
{
	ixgbem_select(dev);
	return ixgbem_tx(0, sent, arg);
}

static const struct tn_nic pair_nic_model = {
	.rx	= pair_nic_rx,
	.tx	= pair_nic_tx,
};

/*
 * Bring up @s's device as port.c does (reset, init, fill and start the
 * queues, RSS over one queue, receiver on) and put it under the host.
 */
static void pair_nic_attach(struct __test_metadata *_metadata, struct side *s)
{
	static const u8 reta0[IXM_RSS_RETA_SIZE];
	struct pair_nic *pn = &pair_nics[s->server];
	struct ixm_adv_queue *q = &pn->aq;
	const struct ixm_nic_ops *ops = &ixm_ixgbe_ops;

	memset(pn, 0, sizeof(*pn));
	pn->dev = ixgbem_new();
	ASSERT_TRUE(pn->dev != NULL);
	pn->rxd = aligned_alloc(128, NIC_RX_RING * sizeof(*pn->rxd));
	pn->txd = aligned_alloc(128, NIC_TX_RING * sizeof(*pn->txd));
	ASSERT_TRUE(pn->rxd && pn->txd);
	pn->nic = (struct ixm_nic){ .ops = ops, .max_queues = 1, .device_id = 0x10fb,
				    .regs = (void *)pn->dev };
	q->q = (struct ixm_queue){ .ops = &ixm_adv_queue_ops, .vector = -1 };
	q->chip = &ixm_ixgbe_chip_ops;
	q->rx = (struct ixm_rxq){ .nic = &pn->nic, .count = NIC_RX_RING, .desc = pn->rxd,
				  .desc_dma = (uintptr_t)pn->rxd, .slot = pn->rslot,
				  .pool = &s->h->pool };
	q->tx = (struct ixm_txq){ .nic = &pn->nic, .count = NIC_TX_RING, .desc = pn->txd,
				  .desc_dma = (uintptr_t)pn->txd, .slot = pn->tslot };
	ixgbem_select(pn->dev);
	ixgbem_power_on(s->h->cfg.mac);
	ixgbem.rx_queues = ixgbem.tx_queues = 1;
	ASSERT_EQ(0, ops->reset(&pn->nic));
	ASSERT_EQ(0, ops->init(&pn->nic));
	ASSERT_EQ(0, memcmp(pn->nic.mac, s->h->cfg.mac, 6)) TH_LOG("the MAC from the EEPROM");
	ASSERT_EQ(0, ixm_adv_rxq_fill(&q->rx));
	ASSERT_EQ(0, ixm_ixgbe_chip_ops.rxq_start(&pn->nic, &q->rx));
	ASSERT_EQ(0, ixm_ixgbe_chip_ops.txq_start(&pn->nic, &q->tx));
	ops->set_rss(&pn->nic, ixm_rss_key_symmetric, reta0);
	ops->rx_enable(&pn->nic, true);
	ixm_host_delay_us(200000);
	ASSERT_TRUE(ops->link_up(&pn->nic, NULL)) TH_LOG("link up after training");
	tn_host_offload(s->h, true);	/* the stack leaves checksums to the device */
	tn_host_nic(s->h, &q->q, &pair_nic_model, pn->dev);
}

/* What the device saw, then its rings stopped and their buffers given back. */
static void pair_nic_detach(struct __test_metadata *_metadata, struct side *s)
{
	struct pair_nic *pn = &pair_nics[s->server];
	struct ixm_adv_queue *q = &pn->aq;
	const char *who = s->server ? "server" : "client";

	ixgbem_select(pn->dev);
	EXPECT_EQ(0, ixgbem_violations()) {
		TH_LOG("%s's 82599: no datasheet rule broken (last: %s)", who,
		       ixgbem.last_violation ? ixgbem.last_violation : "none");
	}
	EXPECT_EQ(0, q->rx.errors) TH_LOG("%s: no receive descriptor with an error", who);
	/* the model checks IPv4's only: over IPv6 the stack sums what it receives */
	if (!s->inet6)
		EXPECT_GT(q->rx.csum_hw, 0) TH_LOG("%s: the device checked receive checksums", who);
	EXPECT_GT(q->tx.csum_hw, 0) TH_LOG("%s: and inserted transmit checksums", who);
	EXPECT_GT(q->rx.packets, 1000) TH_LOG("%s: the frames came through its rings", who);
	ixm_ixgbe_chip_ops.rxq_stop(&pn->nic, &q->rx);
	ixm_ixgbe_chip_ops.txq_stop(&pn->nic, &q->tx);
	ixm_adv_tx_reap(&q->tx);
	ixm_adv_rxq_release(&q->rx);
	ixm_adv_txq_release(&q->tx);
	pn->nic.ops->shutdown(&pn->nic);
	tn_host_nic(s->h, NULL, NULL, NULL);
	ixgbem_free(pn->dev);
	free(pn->rxd);
	free(pn->txd);
}
