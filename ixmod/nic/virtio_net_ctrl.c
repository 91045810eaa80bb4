// SPDX-License-Identifier: GPL-2.0
/*
 * virtio_net_ctrl.c - virtio-net's control virtqueue: its index, and the
 * number of queue pairs and RSS set through it
 *
 * PORTABLE.  Control-plane only: a bring-up sends a command and polls
 * for the device's answer, a second at most (§5.1.6.5: the device writes
 * the ack, then gives the chain back).  The queue is polled, never
 * armed, and holds one command at a time.
 */
#include "virtio_net_ctrl.h"

/**
 * ixm_vnet_layout() - where a virtio-net device's virtqueues are
 * @l: filled in
 * @features: the features negotiated (VIRTIO_NET_F_* bits)
 * @max_virtqueue_pairs: the device configuration's field of that name
 *
 * The control queue follows every queue pair the device has (virtio 1.2
 * §5.1.2: receiveq1, transmitq1, ... receiveqN, transmitqN, controlq),
 * so its index comes from the device's count, never from the pairs
 * ixmod uses: on a device with more pairs it would be a receive queue.
 *
 * Context: any.
 * Return: 0, or -EINVAL if MQ or RSS is negotiated and
 * @max_virtqueue_pairs is outside 1 to 0x8000 (§5.1.4.1: a broken device).
 */
int ixm_vnet_layout(struct ixm_vnet_layout *l, u64 features, u16 max_virtqueue_pairs)
{
	u16 n = 1;

	if (features & (BIT_ULL(VIRTIO_NET_F_MQ) | BIT_ULL(VIRTIO_NET_F_RSS))) {
		if (max_virtqueue_pairs < VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MIN ||
		    max_virtqueue_pairs > VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX)
			return -EINVAL;
		n = max_virtqueue_pairs;
	}
	l->dev_pairs = n;
	l->pairs = min_t(u16, n, IXM_NIC_MAX_QUEUES);
	l->ctrl_vq = 2 * (u32)n;
	return 0;
}

/**
 * ixm_vnet_ctrl_cmd() - send one control command and wait for its ack
 * @c: the control queue, started
 * @class: VIRTIO_NET_CTRL_* class
 * @cmd: the command in it
 * @len: bytes of command data in @c->buf (the union after the header)
 *
 * The header and the data are device-readable, the ack device-writable
 * (§5.1.6.5).  The caller has written the data.
 *
 * Context: process context, may sleep; the port's control-plane lock.
 * Return: 0 if the device answered VIRTIO_NET_OK; -EIO if it answered
 * otherwise; -ETIMEDOUT if it gave nothing back within a second; -ENOSPC
 * if the queue had no room.
 */
int ixm_vnet_ctrl_cmd(struct ixm_vnet_ctrl *c, u8 class, u8 cmd, size_t len)
{
	struct ixm_vnet_ctrl_buf *cb = c->buf;
	struct ixm_vq_buf b[3] = {
		{ c->buf_dma + offsetof(struct ixm_vnet_ctrl_buf, hdr), sizeof(cb->hdr), false },
		{ c->buf_dma + offsetof(struct ixm_vnet_ctrl_buf, rss), len, false },
		{ c->buf_dma + offsetof(struct ixm_vnet_ctrl_buf, ack), 1, true },
	};
	unsigned int waited;
	u32 used_len;
	int head;

	cb->hdr.class = class;
	cb->hdr.cmd = cmd;
	cb->ack = 0xff;
	head = ixm_vq_add(&c->vq, b, ARRAY_SIZE(b));
	if (head < 0)
		return head;
	ixm_vq_publish(&c->vq);
	ixm_vq_notify(&c->vq);
	for (waited = 0; waited < 1000000; waited += 100) {
		if (ixm_vq_get_used(&c->vq, &used_len) == head)
			return cb->ack == VIRTIO_NET_OK ? 0 : -EIO;
		ixm_usleep(100);
	}
	return -ETIMEDOUT;
}

/**
 * ixm_vnet_hash_types() - the RSS hash types ixmod asks a device for
 * @supported: the device's supported_hash_types (§5.1.4)
 *
 * IPv4, TCP/IPv4 and UDP/IPv4 are required; IPv6, TCP/IPv6 and UDP/IPv6
 * are added when the device has all three, so that IPv6 flows spread as
 * base/toeplitz.c predicts; with some missing, IPv6 frames go to the
 * unclassified queue, 0.  Never a type the device lacks (§5.1.6.5.7.1),
 * nor the "_EX" ones (ixmod's prediction never looks past an extension
 * header).
 *
 * Return: the types, or 0 if the device's RSS cannot serve ixmod.
 */
u32 ixm_vnet_hash_types(u32 supported)
{
	if ((supported & IXM_VNET_HASH_TYPES_V4) != IXM_VNET_HASH_TYPES_V4)
		return 0;
	if ((supported & IXM_VNET_HASH_TYPES_V6) != IXM_VNET_HASH_TYPES_V6)
		return IXM_VNET_HASH_TYPES_V4;
	return IXM_VNET_HASH_TYPES_V4 | IXM_VNET_HASH_TYPES_V6;
}

/**
 * ixm_vnet_ctrl_mq() - set the queue pairs the device uses, and with RSS
 *	how it spreads flows over them
 * @c: the control queue, started (after DRIVER_OK)
 * @hash_types: VIRTIO_NET_F_RSS is negotiated and can hash what ixmod
 *	needs: the types to hash (ixm_vnet_hash_types()), MQ_RSS_CONFIG;
 *	0: MQ_VQ_PAIRS_SET (VIRTIO_NET_F_MQ)
 * @key: the port's Toeplitz key, IXM_VNET_RSS_KEY bytes (RSS only)
 * @reta: the port's indirection table, IXM_RSS_RETA_SIZE receive queue
 *	numbers below @pairs (RSS only)
 * @pairs: the queue pairs to use
 *
 * With RSS, the device hashes the same fields as the Intel chips, so that
 * flow-consistent ports work alike (§5.1.6.5.7.1: table entries are
 * receive queue numbers); without, it spreads flows its own way
 * (§5.1.6.5.5).
 *
 * Context: as ixm_vnet_ctrl_cmd().
 * Return: as ixm_vnet_ctrl_cmd().
 */
int ixm_vnet_ctrl_mq(struct ixm_vnet_ctrl *c, u32 hash_types, const u8 *key, const u8 *reta,
		     u16 pairs)
{
	struct ixm_vnet_rss *r = &c->buf->rss;
	unsigned int i;

	if (!hash_types) {
		c->buf->pairs = cpu_to_le16(pairs);
		return ixm_vnet_ctrl_cmd(c, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET,
					 sizeof(c->buf->pairs));
	}
	r->hash_types = cpu_to_le32(hash_types);
	r->table_mask = cpu_to_le16(IXM_VNET_RSS_TABLE - 1);
	r->unclassified_queue = 0;
	for (i = 0; i < IXM_VNET_RSS_TABLE; i++)
		r->table[i] = cpu_to_le16(reta[i]);
	r->max_tx_vq = cpu_to_le16(pairs);
	r->key_len = IXM_VNET_RSS_KEY;
	memcpy(r->key, key, IXM_VNET_RSS_KEY);
	return ixm_vnet_ctrl_cmd(c, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_RSS_CONFIG, sizeof(*r));
}
