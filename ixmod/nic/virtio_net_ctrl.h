/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio_net_ctrl.h - virtio-net's control virtqueue: where the device
 * has it, and the multiqueue commands ixmod sends on it
 *
 * PORTABLE.  ixmod/vnet_pci.c gives it the queue's rings, its doorbell
 * and a DMA-coherent command buffer, and enables the queue at the index
 * ixm_vnet_layout() says; the host tests give it the device model's
 * (tools/testing/ixmod/model/virtio_net_model.c).
 */
#ifndef _IXM_NIC_VIRTIO_NET_CTRL_H
#define _IXM_NIC_VIRTIO_NET_CTRL_H

#include "platform.h"
#include "nic.h"
#include "virtio_ring.h"

#define IXM_VNET_CTRL_RING	16	/* the control queue's entries, at most */
#define IXM_VNET_RSS_TABLE	IXM_RSS_RETA_SIZE	/* indirection entries */
#define IXM_VNET_RSS_KEY	40	/* Toeplitz key bytes, as the Intel chips */

/*
 * §5.1.6.4.3.1 hash types: the Intel chips' fields as ixmod programs them.
 * IPv4's are required for RSS; IPv6's are asked for when the device has
 * all three (ixm_vnet_hash_types()).
 */
#define IXM_VNET_HASH_TYPES_V4	(VIRTIO_NET_RSS_HASH_TYPE_IPv4 | \
				 VIRTIO_NET_RSS_HASH_TYPE_TCPv4 | \
				 VIRTIO_NET_RSS_HASH_TYPE_UDPv4)
#define IXM_VNET_HASH_TYPES_V6	(VIRTIO_NET_RSS_HASH_TYPE_IPv6 | \
				 VIRTIO_NET_RSS_HASH_TYPE_TCPv6 | \
				 VIRTIO_NET_RSS_HASH_TYPE_UDPv6)

/*
 * §5.1.6.5.7.1: the MQ_RSS_CONFIG command's data, with the indirection
 * table at ixmod's fixed size (the uapi struct has a flexible one).
 */
struct ixm_vnet_rss {
	__le32	hash_types;
	__le16	table_mask;
	__le16	unclassified_queue;
	__le16	table[IXM_VNET_RSS_TABLE];
	__le16	max_tx_vq;
	u8	key_len;
	u8	key[IXM_VNET_RSS_KEY];
} __packed;

/* What one control command needs in device-visible memory (§5.1.6.5). */
struct ixm_vnet_ctrl_buf {
	struct virtio_net_ctrl_hdr	hdr;
	union {
		__le16			pairs;	/* MQ_VQ_PAIRS_SET */
		struct ixm_vnet_rss	rss;
	};
	u8				ack;
};

/**
 * struct ixm_vnet_layout - where a virtio-net device has its virtqueues
 * @dev_pairs: the device's queue pairs, N of virtio 1.2 §5.1.2:
 *	max_virtqueue_pairs if MQ or RSS is negotiated, else 1
 * @pairs: the queue pairs ixmod may use: @dev_pairs, at most
 *	IXM_NIC_MAX_QUEUES (and a port uses one per core)
 * @ctrl_vq: the control queue's index, 2N: after all the device's pairs,
 *	not only those ixmod uses (32 bits: 2 * 0x8000 is past virtio-pci's
 *	16-bit queue_select, which the PCI glue checks)
 */
struct ixm_vnet_layout {
	u16	dev_pairs;
	u16	pairs;
	u32	ctrl_vq;
};

/**
 * struct ixm_vnet_ctrl - the driver's side of the control queue
 * @vq: the queue (ixm_vq_init() by the caller, before each use)
 * @buf: the command buffer, DMA-coherent
 * @buf_dma: its bus address
 * @priv: @vq's free list and chain lengths
 */
struct ixm_vnet_ctrl {
	struct ixm_vq			vq;
	struct ixm_vnet_ctrl_buf	*buf;
	dma_addr_t			buf_dma;
	u16				priv[2 * IXM_VNET_CTRL_RING];
};

int ixm_vnet_layout(struct ixm_vnet_layout *l, u64 features, u16 max_virtqueue_pairs);
int ixm_vnet_ctrl_cmd(struct ixm_vnet_ctrl *c, u8 class, u8 cmd, size_t len);
u32 ixm_vnet_hash_types(u32 supported);
int ixm_vnet_ctrl_mq(struct ixm_vnet_ctrl *c, u32 hash_types, const u8 *key, const u8 *reta,
		     u16 pairs);

#endif /* _IXM_NIC_VIRTIO_NET_CTRL_H */
