// SPDX-License-Identifier: GPL-2.0
/*
 * vnet_pci.c - a virtio 1.x network device (modern PCI) under ixmod's
 * queues
 *
 * Kernel only.  The PCI transport (virtio 1.1 §4.1: the capability walk,
 * the common configuration, the notification addresses) is Linux's own
 * virtio_pci_modern_dev library, which virtio_pci and vDPA drivers use
 * too; this file is the device's side of the bargain: the status
 * handshake (§3.1.1), the features ixmod takes, the virtqueues of each
 * queue pair (§5.1.2: receiveqN is 2N, transmitqN is 2N+1), the control
 * queue (§5.1.6.5) for the number of queue pairs and RSS, and link status.
 * The data path is virtio_net_q.c over virtio_ring.c, the control queue's
 * index and commands virtio_net_ctrl.c (portable, tested on the host
 * against a device model).
 *
 * The device's life follows the port's:
 *
 *   bind (reset, init):  reset; ACKNOWLEDGE | DRIVER; features; FEATURES_OK;
 *                        read the configuration.  The device waits there.
 *   up:  queue_alloc  -> rings and buffers per pair, receive rings filled
 *        queue_start  -> each pair's two queues programmed and enabled,
 *                        the receive queue on the pair's MSI-X vector
 *        set_rss      -> control queue enabled, DRIVER_OK, then
 *                        MQ_RSS_CONFIG (or MQ_VQ_PAIRS_SET)
 *        rx_enable    -> each receive queue notified once: its buffers
 *   down: rx_enable(false) -> device reset, handshake again up to
 *                        FEATURES_OK (virtio 1.x enables queues only
 *                        before DRIVER_OK, so every up starts from there)
 *   unbind (shutdown):   reset, everything freed, the BARs released.
 *
 * Features taken (and what ixmod does without each):
 *   VERSION_1 (required: this is a modern driver), MAC (required: the
 *   port's address), ACCESS_PLATFORM (buffers are mapped through the DMA
 *   API; without it a device behind an IOMMU is refused), RING_EVENT_IDX
 *   (without it: the avail flags), CSUM (without it: software checksums),
 *   GUEST_CSUM, STATUS (without it: the link is always up), CTRL_VQ, MQ and
 *   RSS (without RSS but with MQ: software steering, below; without MQ:
 *   one queue pair, so one dataplane core), MTU, SPEED_DUPLEX.  Not
 *   taken: MRG_RXBUF (each frame fits one 2 KiB buffer: "big buffers" are
 *   not needed below a 1500-byte MTU), the GUEST_TSO/UFO and HOST_TSO/UFO
 *   offloads (ixmod sends and accepts no GSO), HASH_REPORT,
 *   CTRL_RX/VLAN/GUEST_ANNOUNCE.
 *
 * Three modes, said in dmesg at bind:
 *   RSS:               the device hashes each frame with the port's
 *                      Toeplitz key and table (MQ_RSS_CONFIG, §5.1.6.5.7)
 *                      and queues it on its owner core's receive queue;
 *   software steering: MQ without usable RSS.  MQ_VQ_PAIRS_SET (§5.1.6.5.5)
 *                      sets the pairs; the device queues flows as it likes
 *                      ("automatic receive steering"), and each core
 *                      hashes what it receives and copies another core's
 *                      frames to that core (nic/steer.c): one copy per
 *                      such frame, a hash per frame;
 *   one queue pair:    no MQ: one dataplane core.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/iopoll.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/virtio_pci_modern.h>

#include "ixmod.h"
#include "nic/virtio_net.h"
#include "nic/virtio_net_ctrl.h"

#define IXM_VNET_RING_MAX	256	/* entries per data virtqueue, at most */

#define IXM_VNET_FEATURES						\
	(BIT_ULL(VIRTIO_F_VERSION_1) | BIT_ULL(VIRTIO_F_ACCESS_PLATFORM) | \
	 BIT_ULL(VIRTIO_RING_F_EVENT_IDX) | BIT_ULL(VIRTIO_NET_F_MAC) |	\
	 BIT_ULL(VIRTIO_NET_F_CSUM) | BIT_ULL(VIRTIO_NET_F_GUEST_CSUM) |	\
	 BIT_ULL(VIRTIO_NET_F_STATUS) | BIT_ULL(VIRTIO_NET_F_CTRL_VQ) |	\
	 BIT_ULL(VIRTIO_NET_F_MQ) | BIT_ULL(VIRTIO_NET_F_RSS) |		\
	 BIT_ULL(VIRTIO_NET_F_MTU) | BIT_ULL(VIRTIO_NET_F_SPEED_DUPLEX))

/**
 * struct ixm_vnet_dev - the driver's state of one device (nic->priv)
 * @mdev: Linux's view of the modern PCI transport
 * @features: the features negotiated
 * @dev_pairs: the device's queue pairs (struct ixm_vnet_layout)
 * @max_pairs: the queue pairs ixmod may use: @dev_pairs, at most 16
 * @ctrl_vq: the control queue's index, 2 * @dev_pairs (§5.1.2)
 * @rss: RSS is negotiated and can hash what ixmod needs
 * @hash_types: what it is asked to hash (ixm_vnet_hash_types()), with @rss
 * @steer_on: MQ without @rss: the queue pairs steer frames in software
 * @steer: that steering (nic/steer.c), its queues attached at queue_alloc
 * @live: DRIVER_OK is set (a reset is due before queues change)
 * @ctrl: the control queue (VIRTIO_NET_F_CTRL_VQ) and its command buffer
 * @ctrl_ring: its rings, DMA-coherent
 * @ctrl_ring_dma: their bus address
 * @ctrl_size: its entries
 * @ctrl_notify: its doorbell
 * @queues: the queue pairs allocated, by index (rx_enable notifies them)
 */
struct ixm_vnet_dev {
	struct virtio_pci_modern_device	mdev;
	u64				features;
	u16				dev_pairs;
	u16				max_pairs;
	u16				ctrl_vq;
	bool				rss;
	u32				hash_types;
	bool				steer_on;
	bool				live;
	struct ixm_vnet_ctrl		ctrl;
	void				*ctrl_ring;
	dma_addr_t			ctrl_ring_dma;
	u16				ctrl_size;
	void __iomem			*ctrl_notify;
	struct ixm_vnet_queue		*queues[IXM_NIC_MAX_QUEUES];
	struct ixm_steer		steer;
};

static struct ixm_vnet_dev *vdev(struct ixm_nic *nic)
{
	return nic->priv;
}

static bool vnet_has(const struct ixm_vnet_dev *vd, unsigned int bit)
{
	return vd->features & BIT_ULL(bit);
}

/* §4.1.4.3.2: after writing 0, the driver waits until it reads back 0. */
static int vnet_reset_status(struct ixm_vnet_dev *vd)
{
	u8 st;

	vd->live = false;
	vp_modern_set_status(&vd->mdev, 0);
	return read_poll_timeout(vp_modern_get_status, st, st == 0, 1000, 1000000, false,
				 &vd->mdev);
}

/*
 * §3.1.1 steps 1-6: reset, ACKNOWLEDGE, DRIVER, the features, FEATURES_OK
 * read back.  @vd->features is what to ask for (the device offered it).
 */
static int vnet_handshake(struct ixm_nic *nic)
{
	struct ixm_vnet_dev *vd = vdev(nic);
	u8 st;

	if (vnet_reset_status(vd)) {
		dev_err(nic->dev, "virtio-net: the device does not come out of reset\n");
		return -ETIMEDOUT;
	}
	vp_modern_set_status(&vd->mdev, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	vp_modern_set_status(&vd->mdev, VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER);
	vp_modern_set_features(&vd->mdev, vd->features);
	st = VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER | VIRTIO_CONFIG_S_FEATURES_OK;
	vp_modern_set_status(&vd->mdev, st);
	if (!(vp_modern_get_status(&vd->mdev) & VIRTIO_CONFIG_S_FEATURES_OK)) {
		dev_err(nic->dev, "virtio-net: the device refused features %#llx (FEATURES_OK not kept)\n",
			vd->features);
		vp_modern_set_status(&vd->mdev, st | VIRTIO_CONFIG_S_FAILED);
		return -EIO;
	}
	return 0;
}

/* The device-specific configuration's fields (struct virtio_net_config). */
#define vnet_cfg(vd, field) \
	((vd)->mdev.device + offsetof(struct virtio_net_config, field))

static void vnet_free_ctrl(struct ixm_vnet_dev *vd, struct device *dev)
{
	/* mapped apart only when the whole notify region was not */
	if (vd->ctrl_notify && !vd->mdev.notify_base)
		pci_iounmap(vd->mdev.pci_dev, vd->ctrl_notify);
	vd->ctrl_notify = NULL;
	if (vd->ctrl_ring)
		dma_free_coherent(dev, ixm_vq_ring_size(vd->ctrl_size), vd->ctrl_ring,
				  vd->ctrl_ring_dma);
	if (vd->ctrl.buf)
		dma_free_coherent(dev, sizeof(*vd->ctrl.buf), vd->ctrl.buf, vd->ctrl.buf_dma);
	vd->ctrl_ring = NULL;
	vd->ctrl.buf = NULL;
}

static void vnet_shutdown(struct ixm_nic *nic)
{
	struct ixm_vnet_dev *vd = vdev(nic);

	if (!vd)
		return;
	vnet_reset_status(vd);
	vnet_free_ctrl(vd, nic->dev);
	vp_modern_remove(&vd->mdev);
	kvfree(vd);
	nic->priv = NULL;
}

/*
 * Bind, first step: Linux's transport library finds the capabilities and
 * maps them; then the device is reset.  Nothing is held on failure.
 */
static int vnet_reset(struct ixm_nic *nic)
{
	struct pci_dev *pdev = to_pci_dev(nic->dev);
	struct ixm_vnet_dev *vd;
	int err;

	/* its steering's hash tables are 36 KiB (nic/steer.h) */
	vd = kvzalloc(sizeof(*vd), GFP_KERNEL);
	if (!vd)
		return -ENOMEM;
	vd->mdev.pci_dev = pdev;
	err = vp_modern_probe(&vd->mdev);
	if (err) {
		dev_err(nic->dev, "virtio-net: no virtio 1.x (modern) interface (%d): a legacy-only device, or its capabilities are broken\n",
			err);
		kvfree(vd);
		return err;
	}
	if (vd->mdev.id.device != VIRTIO_ID_NET) {
		dev_err(nic->dev, "virtio device type %u is not a network device\n",
			vd->mdev.id.device);
		vp_modern_remove(&vd->mdev);
		kvfree(vd);
		return -ENODEV;
	}
	nic->priv = vd;
	if (vnet_reset_status(vd)) {
		dev_err(nic->dev, "virtio-net: the device does not come out of reset\n");
		vnet_shutdown(nic);
		return -ETIMEDOUT;
	}
	return 0;
}

/* The features ixmod takes of those offered; -errno when it cannot run. */
static int vnet_choose_features(struct ixm_nic *nic, u64 offered)
{
	struct ixm_vnet_dev *vd = vdev(nic);
	u64 f = offered & IXM_VNET_FEATURES;

	if (!(f & BIT_ULL(VIRTIO_F_VERSION_1))) {
		dev_err(nic->dev, "virtio-net: the device does not offer VIRTIO_F_VERSION_1 (features %#llx); ixmod drives virtio 1.x devices only\n",
			offered);
		return -ENODEV;
	}
	if (!(f & BIT_ULL(VIRTIO_NET_F_MAC))) {
		dev_err(nic->dev, "virtio-net: the device has no MAC address (VIRTIO_NET_F_MAC); give it one (QEMU: -device virtio-net-pci,mac=...)\n");
		return -ENODEV;
	}
	if (!(f & BIT_ULL(VIRTIO_F_ACCESS_PLATFORM)) && device_iommu_mapped(nic->dev)) {
		dev_err(nic->dev, "virtio-net: behind an IOMMU but without VIRTIO_F_ACCESS_PLATFORM; give the device iommu_platform=on\n");
		return -ENODEV;
	}
	/* §5.1.3.1: MQ and RSS need the control queue */
	if (!(f & BIT_ULL(VIRTIO_NET_F_CTRL_VQ)))
		f &= ~(BIT_ULL(VIRTIO_NET_F_MQ) | BIT_ULL(VIRTIO_NET_F_RSS));
	vd->features = f;
	return 0;
}

/* The control queue's rings and command buffer, set up once at bind. */
static int vnet_alloc_ctrl(struct ixm_nic *nic)
{
	struct ixm_vnet_dev *vd = vdev(nic);
	u16 idx = vd->ctrl_vq;
	u16 size;

	size = min_t(u16, vp_modern_get_queue_size(&vd->mdev, idx), IXM_VNET_CTRL_RING);
	if (!size) {
		dev_err(nic->dev, "virtio-net: control queue %u has no entries\n", idx);
		return -ENODEV;
	}
	vd->ctrl_size = rounddown_pow_of_two(size);
	vd->ctrl_ring = dma_alloc_coherent(nic->dev, ixm_vq_ring_size(vd->ctrl_size),
					   &vd->ctrl_ring_dma, GFP_KERNEL);
	vd->ctrl.buf = dma_alloc_coherent(nic->dev, sizeof(*vd->ctrl.buf), &vd->ctrl.buf_dma,
					  GFP_KERNEL);
	vd->ctrl_notify = vp_modern_map_vq_notify(&vd->mdev, idx, NULL);
	if (!vd->ctrl_ring || !vd->ctrl.buf || !vd->ctrl_notify) {
		vnet_free_ctrl(vd, nic->dev);
		return -ENOMEM;
	}
	return 0;
}

/*
 * A core steered a frame to queue @qi's core, which sleeps armed: wake it
 * as the queue's MSI-X vector would (the port's queue pairs are stable
 * while cores run them).
 */
static void vnet_steer_wake(struct ixm_steer *st, unsigned int qi)
{
	struct ixm_nic *nic = st->wake_data;

	ixm_port_queue_irq(container_of(nic, struct ixm_port, nic), qi);
}

static int vnet_init(struct ixm_nic *nic)
{
	struct ixm_vnet_dev *vd = vdev(nic);
	struct ixm_vnet_layout l;
	unsigned int i;
	u16 mvp, nvq;
	int err;

	err = vnet_choose_features(nic, vp_modern_get_features(&vd->mdev));
	if (!err)
		err = vnet_handshake(nic);
	if (err)
		return err;

	for (i = 0; i < ETH_ALEN; i++)
		nic->mac[i] = ioread8(vnet_cfg(vd, mac) + i);
	mvp = ioread16(vnet_cfg(vd, max_virtqueue_pairs));
	if (ixm_vnet_layout(&l, vd->features, mvp)) {
		dev_err(nic->dev, "virtio-net: max_virtqueue_pairs %u is not 1-32768 (virtio 1.2, 5.1.4.1): a broken device\n",
			mvp);
		return -ENODEV;
	}
	/* §4.1.4.3: num_queues, and queue_select is 16 bits */
	nvq = vp_modern_get_num_queues(&vd->mdev);
	if (vnet_has(vd, VIRTIO_NET_F_CTRL_VQ) && l.ctrl_vq >= nvq) {
		dev_err(nic->dev, "virtio-net: %u queue pairs and a control queue need %u virtqueues; the device has %u\n",
			l.dev_pairs, l.ctrl_vq + 1, nvq);
		return -ENODEV;
	}
	vd->dev_pairs = l.dev_pairs;
	vd->max_pairs = l.pairs;
	vd->ctrl_vq = l.ctrl_vq;
	if (vnet_has(vd, VIRTIO_NET_F_RSS)) {
		u8 klen = ioread8(vnet_cfg(vd, rss_max_key_size));
		u16 tlen = ioread16(vnet_cfg(vd, rss_max_indirection_table_length));
		u32 types = ioread32(vnet_cfg(vd, supported_hash_types));

		vd->hash_types = ixm_vnet_hash_types(types);
		vd->rss = klen >= IXM_VNET_RSS_KEY && tlen >= IXM_VNET_RSS_TABLE &&
			  vd->hash_types;
		if (!vd->rss)
			dev_warn(nic->dev, "virtio-net: RSS too small for ixmod (key %u, table %u, hash types %#x; need 40, 128, %#x): not used\n",
				 klen, tlen, types, IXM_VNET_HASH_TYPES_V4);
		else if (!(vd->hash_types & IXM_VNET_HASH_TYPES_V6))
			dev_info(nic->dev, "virtio-net: RSS hashes IPv4 only (hash types %#x, IPv6 needs %#x): IPv6 frames all reach queue 0\n",
				 types, IXM_VNET_HASH_TYPES_V6);
		nic->rss_v4_only = vd->rss && !(vd->hash_types & IXM_VNET_HASH_TYPES_V6);
	}
	if (!vd->rss)
		vd->hash_types = 0;
	/* RSS alone, too small for ixmod: no command sets the pairs */
	if (!vd->rss && !vnet_has(vd, VIRTIO_NET_F_MQ))
		vd->max_pairs = 1;
	/*
	 * Without RSS the device spreads flows its own way, not by the
	 * Toeplitz hash that places each connection on its core: the cores
	 * steer frames to each other (nic/steer.c), or there is one pair.
	 */
	vd->steer_on = !vd->rss && vd->max_pairs > 1;
	vd->steer.wake = vnet_steer_wake;
	vd->steer.wake_data = nic;
	nic->max_queues = vd->max_pairs;
	if (vnet_has(vd, VIRTIO_NET_F_MTU)) {
		u16 mtu = ioread16(vnet_cfg(vd, mtu));

		if (mtu > ETH_DATA_LEN)
			dev_warn(nic->dev, "virtio-net: device MTU %u; ixmod receives frames up to %u bytes and drops longer ones\n",
				 mtu, ETH_DATA_LEN);
	}
	nic->tx_csum = vnet_has(vd, VIRTIO_NET_F_CSUM);
	if (vnet_has(vd, VIRTIO_NET_F_CTRL_VQ)) {
		err = vnet_alloc_ctrl(nic);
		if (err)
			return err;
	}
	if (vd->rss)
		dev_info(nic->dev, "virtio-net: RSS: %u queue pairs (the device has %u), the device steers flows to their cores\n",
			 nic->max_queues, vd->dev_pairs);
	else if (vd->steer_on)
		dev_info(nic->dev, "virtio-net: software steering: %u queue pairs (the device has %u), MQ without RSS; the cores hash each frame and copy other cores' frames to them\n",
			 nic->max_queues, vd->dev_pairs);
	else
		dev_info(nic->dev, "virtio-net: one queue pair (no MQ): one dataplane core\n");
	dev_info(nic->dev, "virtio-net: features %#llx, checksums %s\n",
		 vd->features, nic->tx_csum ? "offloaded" : "in software");
	return 0;
}

static bool vnet_link_up(struct ixm_nic *nic, u32 *mbps)
{
	struct ixm_vnet_dev *vd = vdev(nic);
	bool up = true;

	if (vnet_has(vd, VIRTIO_NET_F_STATUS))
		up = ioread16(vnet_cfg(vd, status)) & VIRTIO_NET_S_LINK_UP;
	if (mbps) {
		u32 speed = 0;

		/* SPEED_UNKNOWN (-1) and no SPEED_DUPLEX both say 0 */
		if (vnet_has(vd, VIRTIO_NET_F_SPEED_DUPLEX))
			speed = ioread32(vnet_cfg(vd, speed));
		*mbps = speed == (u32)SPEED_UNKNOWN ? 0 : speed;
	}
	return up;
}

/* One virtqueue's rings: DMA-coherent, laid out by virtio_ring.c. */
static int vnet_vq_alloc(struct ixm_nic *nic, struct ixm_vq *vq, u16 index, u16 *priv,
			 void **ring, dma_addr_t *dma)
{
	struct ixm_vnet_dev *vd = vdev(nic);
	u16 size = min_t(u16, vp_modern_get_queue_size(&vd->mdev, index), IXM_VNET_RING_MAX);

	if (!size)
		return -ENODEV;
	size = rounddown_pow_of_two(size);
	*ring = dma_alloc_coherent(nic->dev, ixm_vq_ring_size(size), dma, GFP_KERNEL);
	if (!*ring)
		return -ENOMEM;
	ixm_vq_init(vq, size, *ring, *dma, priv, vnet_has(vd, VIRTIO_RING_F_EVENT_IDX));
	vq->notify = vp_modern_map_vq_notify(&vd->mdev, index, NULL);
	vq->notify_data = index;
	return vq->notify ? 0 : -ENOMEM;
}

/**
 * struct ixm_vnet_qmem - a queue pair's memory beside struct ixm_vnet_queue
 * @vnq: the queue pair
 * @rx_ring: receiveqN's rings
 * @tx_ring: transmitqN's rings
 * @rx_ring_dma: their bus addresses
 * @tx_ring_dma: (as @rx_ring_dma)
 * @priv: both queues' free lists and chain lengths
 * @rx_slot: the buffer in each receive chain, by head
 * @tx_slot: the frame each transmit chain sends, by head
 */
struct ixm_vnet_qmem {
	struct ixm_vnet_queue	vnq;
	void			*rx_ring;
	void			*tx_ring;
	dma_addr_t		rx_ring_dma;
	dma_addr_t		tx_ring_dma;
	u16			priv[4 * IXM_VNET_RING_MAX];
	struct ixm_mbuf		*rx_slot[IXM_VNET_RING_MAX];
	struct ixm_mbuf		*tx_slot[IXM_VNET_RING_MAX];
};

static void vnet_unmap_notify(struct ixm_vnet_dev *vd, struct ixm_vq *vq)
{
	if (vq->notify && !vd->mdev.notify_base)
		pci_iounmap(vd->mdev.pci_dev, vq->notify);
	vq->notify = NULL;
}

static void vnet_queue_free(struct ixm_nic *nic, struct ixm_queue *q)
{
	struct ixm_vnet_dev *vd = vdev(nic);
	struct ixm_vnet_qmem *qm;

	if (!q)
		return;
	qm = container_of(ixm_vnet_q(q), struct ixm_vnet_qmem, vnq);
	if (qm->rx_ring && qm->tx_ring)
		ixm_vnet_release(&qm->vnq);
	vnet_unmap_notify(vd, &qm->vnq.rx);
	vnet_unmap_notify(vd, &qm->vnq.tx);
	if (qm->rx_ring)
		dma_free_coherent(nic->dev, ixm_vq_ring_size(qm->vnq.rx.size), qm->rx_ring,
				  qm->rx_ring_dma);
	if (qm->tx_ring)
		dma_free_coherent(nic->dev, ixm_vq_ring_size(qm->vnq.tx.size), qm->tx_ring,
				  qm->tx_ring_dma);
	if (qm->vnq.tx_hdr)
		dma_free_coherent(nic->dev, qm->vnq.tx.size * sizeof(struct ixm_vnet_hdr),
				  qm->vnq.tx_hdr, qm->vnq.tx_hdr_dma);
	if (q->idx < IXM_NIC_MAX_QUEUES && vd->queues[q->idx] == &qm->vnq)
		vd->queues[q->idx] = NULL;
	if (qm->vnq.steer) {
		ixm_steer_q_release(qm->vnq.steer);	/* again: harmless */
		kvfree(qm->vnq.steer);
	}
	kfree(qm);
}

static struct ixm_queue *vnet_queue_alloc(struct ixm_nic *nic, unsigned int idx,
					  struct ixm_mbuf_pool *pool, int node)
{
	struct ixm_vnet_dev *vd = vdev(nic);
	struct ixm_vnet_qmem *qm;
	struct ixm_vnet_queue *vnq;

	if (idx >= vd->max_pairs)
		return NULL;
	qm = kzalloc_node(sizeof(*qm), GFP_KERNEL, node);
	if (!qm)
		return NULL;
	vnq = &qm->vnq;
	vnq->q.ops = &ixm_vnet_queue_ops;
	vnq->q.idx = idx;
	vnq->q.vector = -1;
	vnq->dev = nic->dev;
	vnq->pool = pool;
	vnq->rx_slot = qm->rx_slot;
	vnq->tx_slot = qm->tx_slot;
	vnq->csum = vnet_has(vd, VIRTIO_NET_F_CSUM);
	vnq->guest_csum = vnet_has(vd, VIRTIO_NET_F_GUEST_CSUM);
	if (vnet_vq_alloc(nic, &vnq->rx, 2 * idx, qm->priv, &qm->rx_ring, &qm->rx_ring_dma) ||
	    vnet_vq_alloc(nic, &vnq->tx, 2 * idx + 1, qm->priv + 2 * IXM_VNET_RING_MAX,
			  &qm->tx_ring, &qm->tx_ring_dma))
		goto err;
	vnq->tx_hdr = dma_alloc_coherent(nic->dev, vnq->tx.size * sizeof(*vnq->tx_hdr),
					 &vnq->tx_hdr_dma, GFP_KERNEL);
	if (!vnq->tx_hdr)
		goto err;
	if (vd->steer_on) {
		/* its rings' buffers are posted by set_rss (ixm_steer_start()) */
		vnq->steer = kvzalloc_node(sizeof(*vnq->steer), GFP_KERNEL, node);
		if (!vnq->steer)
			goto err;
		ixm_steer_q_attach(&vd->steer, vnq->steer, idx, pool);
	}
	if (ixm_vnet_rxq_fill(vnq))
		goto err;
	vd->queues[idx] = vnq;
	return &vnq->q;

err:
	vnet_queue_free(nic, &vnq->q);
	return NULL;
}

/* Tell the device one virtqueue's size, rings and vector, and enable it. */
static int vnet_vq_start(struct ixm_nic *nic, struct ixm_vq *vq, u16 index, int vector)
{
	struct ixm_vnet_dev *vd = vdev(nic);
	u16 want = vector >= 0 ? vector : VIRTIO_MSI_NO_VECTOR;

	vp_modern_set_queue_size(&vd->mdev, index, vq->size);
	vp_modern_queue_address(&vd->mdev, index, vq->dma, ixm_vq_avail_dma(vq),
				ixm_vq_used_dma(vq));
	/* §4.1.4.3.1 (msix_vector): read back; NO_VECTOR means refused */
	if (vp_modern_queue_vector(&vd->mdev, index, want) != want) {
		dev_err(nic->dev, "virtio-net: queue %u refused MSI-X vector %u\n", index, want);
		return -EBUSY;
	}
	vp_modern_set_queue_enable(&vd->mdev, index, true);
	return 0;
}

static int vnet_queue_start(struct ixm_nic *nic, struct ixm_queue *q)
{
	struct ixm_vnet_queue *vnq = ixm_vnet_q(q);
	int err;

	/* receive completions wake a sleeping core; transmit ones do not */
	err = vnet_vq_start(nic, &vnq->rx, 2 * q->idx, q->vector);
	if (!err)
		err = vnet_vq_start(nic, &vnq->tx, 2 * q->idx + 1, -1);
	return err;
}

/* The device stopped using every queue at the reset (rx_enable(false)). */
static void vnet_queue_stop(struct ixm_nic *nic, struct ixm_queue *q)
{
	struct ixm_vnet_dev *vd = vdev(nic);

	if (vd->live)
		vnet_handshake(nic);
}

static int vnet_ctrl_start(struct ixm_nic *nic)
{
	struct ixm_vnet_dev *vd = vdev(nic);
	struct ixm_vq *vq = &vd->ctrl.vq;

	/* §2.6.7.1: with EVENT_IDX the avail flags stay 0, on every queue */
	ixm_vq_init(vq, vd->ctrl_size, vd->ctrl_ring, vd->ctrl_ring_dma, vd->ctrl.priv,
		    vnet_has(vd, VIRTIO_RING_F_EVENT_IDX));
	vq->notify = vd->ctrl_notify;
	vq->notify_data = vd->ctrl_vq;
	return vnet_vq_start(nic, vq, vd->ctrl_vq, -1);
}

/*
 * After every queue pair started: the control queue, DRIVER_OK, then
 * the number of pairs and, with RSS, the key and the indirection table
 * (ixm_vnet_ctrl_mq()).  With MQ but no RSS, the pairs (MQ_VQ_PAIRS_SET,
 * §5.1.6.5.5), and the same key and table go to the software steering,
 * which posts its buffers.
 */
static int vnet_set_rss(struct ixm_nic *nic, const u8 *key, const u8 *reta)
{
	struct ixm_vnet_dev *vd = vdev(nic);
	unsigned int i, nq = 1;
	int err = 0;

	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		nq = max_t(unsigned int, nq, reta[i] + 1);
	if (vnet_has(vd, VIRTIO_NET_F_CTRL_VQ)) {
		err = vnet_ctrl_start(nic);
		if (err)
			return err;
	}
	vp_modern_config_vector(&vd->mdev, VIRTIO_MSI_NO_VECTOR);
	vp_modern_set_status(&vd->mdev, vp_modern_get_status(&vd->mdev) |
			     VIRTIO_CONFIG_S_DRIVER_OK);
	vd->live = true;

	if (vd->rss || vnet_has(vd, VIRTIO_NET_F_MQ))
		err = ixm_vnet_ctrl_mq(&vd->ctrl, vd->hash_types, key, reta, nq);
	if (err) {
		dev_err(nic->dev, "virtio-net: the control queue refused %u queue pairs%s (%d)\n",
			nq, vd->rss ? " with RSS" : "", err);
		return err;
	}
	if (vd->steer_on) {
		/* the cores run the queues only after this */
		err = ixm_steer_start(&vd->steer, key, reta);
		if (err)
			dev_err(nic->dev, "virtio-net: software steering between %u queue pairs cannot start (%d)\n",
				nq, err);
	}
	return err;
}

/*
 * On: each receive queue is notified once, so that the device sees the
 * buffers posted before DRIVER_OK (§3.1.1: no notification before it).
 * Off: a device reset stops every queue (§2.1); the handshake is redone
 * so the next bring-up finds the device at FEATURES_OK again.
 */
static void vnet_rx_enable(struct ixm_nic *nic, bool on)
{
	struct ixm_vnet_dev *vd = vdev(nic);
	unsigned int i;

	if (!on) {
		vnet_handshake(nic);
		return;
	}
	for (i = 0; i < IXM_NIC_MAX_QUEUES; i++)
		if (vd->queues[i])
			ixm_vq_notify(&vd->queues[i]->rx);
}

/* Queue vectors go with the reset that stops the queues. */
static void vnet_irq_disable(struct ixm_nic *nic)
{
}

const struct ixm_nic_ops ixm_vnet_ops = {
	.name		= "virtio-net",
	.reset		= vnet_reset,
	.init		= vnet_init,
	.link_up	= vnet_link_up,
	.set_rss	= vnet_set_rss,
	.rx_enable	= vnet_rx_enable,
	.irq_disable	= vnet_irq_disable,
	.shutdown	= vnet_shutdown,
	.queue_alloc	= vnet_queue_alloc,
	.queue_start	= vnet_queue_start,
	.queue_stop	= vnet_queue_stop,
	.queue_free	= vnet_queue_free,
	.tx_csum	= true,
};
