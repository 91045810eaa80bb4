// SPDX-License-Identifier: GPL-2.0
/*
 * vnet_ctrl.c - virtio-net's control queue (nic/virtio_net_ctrl.c) against
 * the device model's (model/virtio_net_model.c)
 *
 * Each variant is a device with some number of queue pairs
 * (max_virtqueue_pairs) brought up as ixmod/vnet_pci.c brings one up: the
 * layout from the features and that field, the queue pairs ixmod uses
 * (as many as its cores, at most IXM_NIC_MAX_QUEUES) set up, the control
 * queue set up where the layout says, and then the one command a
 * bring-up sends: MQ_VQ_PAIRS_SET, or MQ_RSS_CONFIG with the port's key
 * and table.  The device must take it at once, and have been asked for
 * nothing else.  The model knows where its control queue is (virtio 1.2
 * §5.1.2: 2 * max_virtqueue_pairs with MQ or RSS, else 2); a command sent
 * anywhere else lands on a receive queue and is never answered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtio_net_model.h"
#include "virtio_net_ctrl.h"
#include "harness.h"

#define DATA_RING	8	/* entries of each data queue set up */

/* feature bits as the spec numbers them (§5.1.3, §6), not the driver's */
#define F_CTRL_VQ	(1ULL << 17)
#define F_MQ		(1ULL << 22)
#define F_EVENT_IDX	(1ULL << 29)
#define F_VERSION_1	(1ULL << 32)
#define F_RSS		(1ULL << 60)

#define F_BASE		(F_VERSION_1 | F_EVENT_IDX | F_CTRL_VQ)

FIXTURE(ctrl) {
	struct vnm_dev			*dev;
	struct ixm_vnet_layout		l;
	struct ixm_vq			vq[2 * IXM_NIC_MAX_QUEUES];
	void				*ring[2 * IXM_NIC_MAX_QUEUES];
	u16				priv[2 * IXM_NIC_MAX_QUEUES][2 * DATA_RING];
	struct ixm_vnet_ctrl		ctrl;
	void				*ctrl_ring;
	struct ixm_vnet_ctrl_buf	*buf;
	u8				key[IXM_VNET_RSS_KEY];
	u8				reta[IXM_RSS_RETA_SIZE];
};

/* One device, and what ixmod makes of it */
FIXTURE_VARIANT(ctrl) {
	u64		features;	/* negotiated */
	unsigned int	max_pairs;	/* its max_virtqueue_pairs */
	unsigned int	cores;		/* dataplane cores: a queue pair each */
	bool		rss;		/* MQ_RSS_CONFIG, else MQ_VQ_PAIRS_SET */
};

FIXTURE_VARIANT_ADD(ctrl, mq_2) {
	.features = F_BASE | F_MQ, .max_pairs = 2, .cores = 2,
};

FIXTURE_VARIANT_ADD(ctrl, mq_16) {
	.features = F_BASE | F_MQ, .max_pairs = 16, .cores = 2,
};

FIXTURE_VARIANT_ADD(ctrl, mq_16_all_cores) {
	.features = F_BASE | F_MQ, .max_pairs = 16, .cores = 16,
};

FIXTURE_VARIANT_ADD(ctrl, rss_4) {
	.features = F_BASE | F_MQ | F_RSS, .max_pairs = 4, .cores = 2, .rss = true,
};

/* More pairs than ixmod uses: the control queue still follows all of them */
FIXTURE_VARIANT_ADD(ctrl, mq_17) {
	.features = F_BASE | F_MQ, .max_pairs = 17, .cores = 2,
};

FIXTURE_VARIANT_ADD(ctrl, mq_32) {
	.features = F_BASE | F_MQ, .max_pairs = 32, .cores = 2,
};

FIXTURE_VARIANT_ADD(ctrl, mq_32_all_cores) {
	.features = F_BASE | F_MQ, .max_pairs = 32, .cores = 16,
};

FIXTURE_VARIANT_ADD(ctrl, rss_32) {
	.features = F_BASE | F_MQ | F_RSS, .max_pairs = 32, .cores = 2, .rss = true,
};

/* §5.1.2: N is max_virtqueue_pairs with RSS alone too */
FIXTURE_VARIANT_ADD(ctrl, rss_only_32) {
	.features = F_BASE | F_RSS, .max_pairs = 32, .cores = 2, .rss = true,
};

/* the most a virtio-pci device can have: queue_select is 16 bits */
FIXTURE_VARIANT_ADD(ctrl, mq_0x7fff) {
	.features = F_BASE | F_MQ, .max_pairs = 0x7fff, .cores = 2,
};

/* Allocate and lay out one virtqueue, and tell the model where it is. */
static void *rig_vq(struct vnm_dev *dev, struct ixm_vq *vq, unsigned int qi, u16 size,
		    u16 *priv)
{
	void *ring = aligned_alloc(64, (ixm_vq_ring_size(size) + 63) & ~63UL);

	if (!ring || ixm_vq_init(vq, size, ring, (uintptr_t)ring, priv, true))
		abort();
	vq->notify = dev->notify;
	vq->notify_data = qi;
	vnm_queue_setup(dev, qi, size, ring, (void *)(uintptr_t)ixm_vq_avail_dma(vq),
			(void *)(uintptr_t)ixm_vq_used_dma(vq));
	return ring;
}

FIXTURE_SETUP(ctrl)
{
	unsigned int i;

	ixm_host_warnings = 0;
	vnm_now_us = 0;
	self->dev = vnm_new_mq(variant->features, variant->max_pairs);
	ASSERT_EQ(0, ixm_vnet_layout(&self->l, variant->features, variant->max_pairs));
	ASSERT_LE(variant->cores, self->l.pairs) TH_LOG("ixmod may use a pair per core");
	/* vnet_pci.c's order: the pairs' queues, then the control queue */
	for (i = 0; i < 2 * variant->cores; i++)
		self->ring[i] = rig_vq(self->dev, &self->vq[i], i, DATA_RING, self->priv[i]);
	self->ctrl_ring = rig_vq(self->dev, &self->ctrl.vq, self->l.ctrl_vq,
				 IXM_VNET_CTRL_RING, self->ctrl.priv);
	self->buf = calloc(1, sizeof(*self->buf));
	ASSERT_NE(NULL, self->buf);
	self->ctrl.buf = self->buf;
	self->ctrl.buf_dma = (uintptr_t)self->buf;
	for (i = 0; i < IXM_VNET_RSS_KEY; i++)
		self->key[i] = (u8)(0x6d + 7 * i);
	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		self->reta[i] = (u8)(i % variant->cores);
}

FIXTURE_TEARDOWN(ctrl)
{
	unsigned int i;

	EXPECT_EQ(0, vnm_violations(self->dev)) TH_LOG("no driver rule broken");
	EXPECT_EQ(0, ixm_host_warnings);
	vnm_free(self->dev);
	for (i = 0; i < 2 * variant->cores; i++)
		free(self->ring[i]);
	free(self->ctrl_ring);
	free(self->buf);
}

/* The bring-up's command goes to the control queue, and the device takes it. */
TEST_F(ctrl, bring_up_command)
{
	unsigned int want_ctrl = 2 * variant->max_pairs, i;
	int err;

	/* the model supports every hash type, as QEMU's: IPv4 and IPv6 asked for */
	err = ixm_vnet_ctrl_mq(&self->ctrl, variant->rss ? ixm_vnet_hash_types(0x1ff) : 0,
			       self->key, self->reta, variant->cores);
	EXPECT_EQ(0, err) {
		TH_LOG("%s for %u pairs on a device of %u: the control queue is %u, the driver used %u",
		       variant->rss ? "MQ_RSS_CONFIG" : "MQ_VQ_PAIRS_SET", variant->cores,
		       variant->max_pairs, vnm_ctrl_vq(self->dev), self->l.ctrl_vq);
	}
	EXPECT_EQ(want_ctrl, self->l.ctrl_vq) TH_LOG("§5.1.2: controlq is 2 * max_virtqueue_pairs");
	EXPECT_EQ(0, vnm_now_us) TH_LOG("answered at the kick: the driver did not wait");
	EXPECT_EQ(1, self->dev->ctrl_cmds) TH_LOG("one command reached the control queue");
	EXPECT_EQ(1, self->dev->ctrl_ok);
	EXPECT_EQ(variant->cores, self->dev->ctrl_pairs) TH_LOG("one pair per core in use");
	EXPECT_EQ(variant->rss, self->dev->ctrl_rss);
	if (variant->rss) {
		EXPECT_EQ(IXM_VNET_HASH_TYPES_V4 | IXM_VNET_HASH_TYPES_V6,
			  self->dev->ctrl_hash_types) TH_LOG("IPv4 and IPv6, TCP and UDP");
		EXPECT_EQ(IXM_RSS_RETA_SIZE, self->dev->ctrl_table_len);
		for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
			EXPECT_EQ(self->reta[i], self->dev->ctrl_table[i]);
		EXPECT_EQ(IXM_VNET_RSS_KEY, self->dev->ctrl_key_len);
		EXPECT_EQ(0, memcmp(self->key, self->dev->ctrl_key, IXM_VNET_RSS_KEY));
	}
	for (i = 0; i < self->dev->nq; i++) {
		if (i == want_ctrl)
			continue;
		EXPECT_EQ(0, self->dev->q[i].kicks) TH_LOG("queue %u was kicked", i);
	}
}

/*
 * The model refuses what a driver may not send (§5.1.6.5.5.1,
 * §5.1.6.5.7.1), so that the test above means something: more pairs
 * than the device has, or a table naming a receive queue not set up.
 */
TEST_F(ctrl, refused_commands)
{
	int err;

	if (variant->rss) {
		self->reta[5] = (u8)variant->cores;
		err = ixm_vnet_ctrl_mq(&self->ctrl, IXM_VNET_HASH_TYPES_V4, self->key, self->reta,
				       variant->cores);
		EXPECT_EQ(-EIO, err) TH_LOG("receiveq%u is not set up", variant->cores + 1);
	} else {
		err = ixm_vnet_ctrl_mq(&self->ctrl, 0, NULL, NULL,
				       (u16)(variant->max_pairs + 1));
		EXPECT_EQ(-EIO, err) TH_LOG("%u pairs of %u", variant->max_pairs + 1,
					    variant->max_pairs);
	}
	EXPECT_EQ(1, self->dev->ctrl_cmds);
	EXPECT_EQ(0, self->dev->ctrl_ok);
	EXPECT_EQ(1, self->dev->viol[VNM_V_CTRL_CMD]);
	self->dev->viol[VNM_V_CTRL_CMD] = 0;	/* seen; the teardown checks the rest */
}

/*
 * The hash types asked for (§5.1.4 supported_hash_types in): IPv4's three
 * required, IPv6's three added only when all are there, never a type the
 * device lacks (§5.1.6.5.7.1) nor an "_EX" one.
 */
TEST(vnet_hash_types)
{
	const u32 v4 = VIRTIO_NET_RSS_HASH_TYPE_IPv4 | VIRTIO_NET_RSS_HASH_TYPE_TCPv4 |
		       VIRTIO_NET_RSS_HASH_TYPE_UDPv4;
	const u32 v6 = VIRTIO_NET_RSS_HASH_TYPE_IPv6 | VIRTIO_NET_RSS_HASH_TYPE_TCPv6 |
		       VIRTIO_NET_RSS_HASH_TYPE_UDPv6;

	EXPECT_EQ(v4 | v6, ixm_vnet_hash_types(0x1ff)) TH_LOG("QEMU's: all nine");
	EXPECT_EQ(v4 | v6, ixm_vnet_hash_types(v4 | v6));
	EXPECT_EQ(v4, ixm_vnet_hash_types(v4)) TH_LOG("IPv4 only: IPv4 only");
	EXPECT_EQ(v4, ixm_vnet_hash_types(v4 | VIRTIO_NET_RSS_HASH_TYPE_IPv6 |
					   VIRTIO_NET_RSS_HASH_TYPE_TCPv6)) {
		TH_LOG("no UDP/IPv6: no IPv6 at all (UDP flows would split from the prediction)");
	}
	EXPECT_EQ(v4, ixm_vnet_hash_types(v4 | VIRTIO_NET_RSS_HASH_TYPE_IP_EX |
					   VIRTIO_NET_RSS_HASH_TYPE_TCP_EX |
					   VIRTIO_NET_RSS_HASH_TYPE_UDP_EX)) TH_LOG("no _EX");
	EXPECT_EQ(0, ixm_vnet_hash_types(v6 | VIRTIO_NET_RSS_HASH_TYPE_IPv4 |
					 VIRTIO_NET_RSS_HASH_TYPE_TCPv4)) {
		TH_LOG("no UDP/IPv4: no RSS");
	}
	EXPECT_EQ(0, ixm_vnet_hash_types(0));
}

/*
 * ixm_vnet_layout() on its own: the pairs ixmod may use and the control
 * queue's index (virtio 1.2 §5.1.2), and the values §5.1.4.1 forbids a
 * device refused.
 */
TEST(layout_table)
{
	static const struct {
		u64		features;
		unsigned int	max_pairs;	/* the configuration's field */
		int		err;
		unsigned int	pairs;		/* ixmod's, at most IXM_NIC_MAX_QUEUES */
		unsigned int	ctrl_vq;
	} t[] = {
		/* no MQ nor RSS: the field means nothing, N = 1 */
		{ F_BASE, 0, 0, 1, 2 },
		{ F_BASE, 32, 0, 1, 2 },
		{ F_BASE | F_MQ, 1, 0, 1, 2 },
		{ F_BASE | F_MQ, 2, 0, 2, 4 },
		{ F_BASE | F_MQ, 16, 0, 16, 32 },
		{ F_BASE | F_MQ, 17, 0, 16, 34 },		/* first over the cap */
		{ F_BASE | F_MQ, 32, 0, 16, 64 },
		{ F_BASE | F_RSS, 32, 0, 16, 64 },		/* RSS alone */
		{ F_BASE | F_MQ | F_RSS, 32, 0, 16, 64 },
		{ F_BASE | F_MQ, 0x7fff, 0, 16, 0xfffe },
		{ F_BASE | F_MQ, 0x8000, 0, 16, 0x10000 },	/* past queue_select */
		{ F_BASE | F_MQ, 0, -EINVAL, 0, 0 },		/* §5.1.4.1: 1 to 0x8000 */
		{ F_BASE | F_RSS, 0, -EINVAL, 0, 0 },
		{ F_BASE | F_MQ, 0x8001, -EINVAL, 0, 0 },
		{ F_BASE | F_MQ, 0xffff, -EINVAL, 0, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct ixm_vnet_layout l = { 0 };
		int err = ixm_vnet_layout(&l, t[i].features, (u16)t[i].max_pairs);

		EXPECT_EQ(t[i].err, err) TH_LOG("row %u: max_virtqueue_pairs %#x", i,
						t[i].max_pairs);
		if (err || t[i].err)
			continue;
		EXPECT_EQ(t[i].pairs, l.pairs) TH_LOG("row %u: pairs", i);
		EXPECT_EQ(t[i].ctrl_vq, l.ctrl_vq) TH_LOG("row %u: control queue", i);
	}
}

TEST_HARNESS_MAIN
