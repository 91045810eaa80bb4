/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio_net.h - a virtio-net queue pair behind struct ixm_queue_ops
 *
 * PORTABLE.  The data path only: the PCI glue (capabilities, feature
 * negotiation, queue addresses, MSI-X, the control queue) is
 * ixmod/vnet_pci.c, kernel only; the host tests drive this against
 * tools/testing/ixmod/model/virtio_net_model.c.
 */
#ifndef _IXM_NIC_VIRTIO_NET_H
#define _IXM_NIC_VIRTIO_NET_H

#include "platform.h"
#include "nic.h"
#include "virtio_ring.h"
#include "steer.h"

/*
 * virtio 1.1 §5.1.6: struct virtio_net_hdr as a modern device lays it
 * out (uapi struct virtio_net_hdr_v1): 12 bytes with num_buffers, whether
 * or not VIRTIO_NET_F_MRG_RXBUF was negotiated, every field LE.
 */
struct ixm_vnet_hdr {
	u8	flags;		/* VIRTIO_NET_HDR_F_NEEDS_CSUM, _DATA_VALID */
	u8	gso_type;	/* VIRTIO_NET_HDR_GSO_NONE: ixmod sends no GSO */
	__le16	hdr_len;
	__le16	gso_size;
	__le16	csum_start;
	__le16	csum_offset;
	__le16	num_buffers;
};

#define IXM_VNET_HDR_LEN	12

/**
 * struct ixm_vnet_queue - one core's receive and transmit virtqueues
 * @q: what the loop holds (ops = &ixm_vnet_queue_ops); container_of()
 *	finds the rest
 * @rx: receiveqN
 * @tx: transmitqN
 * @dev: the device buffers are DMA-mapped for (NULL on the host build)
 * @pool: where receive buffers come from and go back
 * @rx_slot: the buffer posted in each receive chain, by head, @rx.size
 * @tx_slot: the frame each transmit chain sends, by head, @tx.size
 * @tx_hdr: one header per transmit head, @tx.size entries of
 *	DMA-coherent memory the caller allocates
 * @tx_hdr_dma: its bus address
 * @csum: VIRTIO_NET_F_CSUM: the device completes a TCP/UDP checksum from
 *	csum_start (the port may set IXM_TXO_CSUM)
 * @guest_csum: VIRTIO_NET_F_GUEST_CSUM: received headers' DATA_VALID and
 *	NEEDS_CSUM mean something
 * @steer: software steering (steer.h) when the device has several queue
 *	pairs and no RSS ixmod can program; NULL otherwise
 * @rx_packets: frames received
 * @rx_bytes: their bytes, without the virtio header
 * @rx_errors: received chains dropped (too short, too long, more than
 *	one buffer, or a used entry naming no chain)
 * @rx_csum_hw: frames whose TCP/UDP checksum the device vouched for
 * @rx_no_buf: refills that found the pool empty
 * @tx_packets: frames handed to the device
 * @tx_bytes: their bytes, without the virtio header
 * @tx_full: frames refused because the ring was full
 * @tx_csum_hw: frames sent with NEEDS_CSUM
 * @tx_errors: frames asking for a checksum the device cannot insert
 *	(@csum false: a port set up wrongly; sent as they are)
 */
struct ixm_vnet_queue {
	struct ixm_queue	q;
	struct ixm_vq		rx;
	struct ixm_vq		tx;
	struct device		*dev;
	struct ixm_mbuf_pool	*pool;
	struct ixm_mbuf		**rx_slot;
	struct ixm_mbuf		**tx_slot;
	struct ixm_vnet_hdr	*tx_hdr;
	dma_addr_t		tx_hdr_dma;
	bool			csum;
	bool			guest_csum;
	struct ixm_steer_q	*steer;
	u64			rx_packets;
	u64			rx_bytes;
	u64			rx_errors;
	u64			rx_csum_hw;
	u64			rx_no_buf;
	u64			tx_packets;
	u64			tx_bytes;
	u64			tx_full;
	u64			tx_csum_hw;
	u64			tx_errors;
};

static inline struct ixm_vnet_queue *ixm_vnet_q(struct ixm_queue *q)
{
	return container_of(q, struct ixm_vnet_queue, q);
}

int ixm_vnet_rxq_fill(struct ixm_vnet_queue *vnq);
void ixm_vnet_release(struct ixm_vnet_queue *vnq);

extern const struct ixm_queue_ops ixm_vnet_queue_ops;
unsigned int ixm_vnet_q_rx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				 unsigned int max);
void ixm_vnet_q_rx_refill(struct ixm_queue *q);
unsigned int ixm_vnet_q_tx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				 unsigned int n);
unsigned int ixm_vnet_q_tx_reap(struct ixm_queue *q);
bool ixm_vnet_q_busy(const struct ixm_queue *q);

#endif /* _IXM_NIC_VIRTIO_NET_H */
