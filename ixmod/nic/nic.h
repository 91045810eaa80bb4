/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nic.h - the device contract: what every NIC driver implements
 *
 * PORTABLE: builds in the module and on the host (against the register
 * models).  A device (an Intel 82576 or 82599, a virtio-net device, a
 * software port) is a struct ixm_nic with a struct ixm_nic_ops: reset and
 * init, link state, RSS, reception on or off, interrupts off, shutdown,
 * statistics, and the life of its queue pairs (alloc, start, stop, free).
 * A queue pair's data path is struct ixm_queue_ops (base/queue.h), which
 * the loop calls.  What a family of devices shares beyond this stays
 * with it: the Intel chips' ring types and per-chip hooks are in
 * intel_adv.h, virtio's in virtio_net.h.
 *
 * Ownership: struct ixm_nic is the control plane's (pci.c, under the
 * port's lock); each queue pair belongs to one dataplane core while the
 * port is up and is touched by no one else.
 */
#ifndef _IXM_NIC_NIC_H
#define _IXM_NIC_NIC_H

#include "platform.h"
#include "mbuf.h"
#include "queue.h"

#define IXM_NIC_MAX_QUEUES	16
#define IXM_RSS_RETA_SIZE	128	/* redirection table entries (82576, 82599) */

struct ixm_nic;

/**
 * struct ixm_nic_ops - a device, as the port and the PCI glue drive it
 * @name: "igb", "ixgbe", "virtio-net", "softport"
 * @reset: global reset per the datasheet, interrupts masked; 0 or -errno
 *	(-ETIMEDOUT if the device never comes back)
 * @init: after reset: read the MAC address into nic->mac, set up the
 *	MAC/PHY and start link negotiation; 0 or -errno
 * @link_up: current link state; *@mbps gets the speed when up
 * @set_rss: program the 40-byte Toeplitz @key and the @reta (queue index
 *	per entry), and enable RSS on IPv4 and IPv4/TCP/UDP; called once per
 *	bring-up, after every queue started; 0 or -errno
 * @rx_enable: enable or disable reception as a whole
 * @irq_disable: mask every interrupt
 * @shutdown: stop RX and TX and mask interrupts, for unbind and down
 * @read_stats: add the chip's statistics registers, which clear on read,
 *	into nic->stats (NULL: the device keeps no counters of its own)
 * @set_mc: take frames sent to the @n group MACs at @macs (ETH_ALEN
 *	bytes each) besides the device's own and broadcast, and no other
 *	group (NULL: the device passes every group frame)
 * @queue_alloc: the rings of queue pair @idx (DMA memory for nic->dev, on
 *	NUMA node @node), the receive ring filled from @pool; NULL when out
 *	of memory.  The queue is not started.
 * @queue_start: program and enable both rings of @q; 0 or -ETIMEDOUT
 * @queue_stop: disable both rings and wait until the device stops using
 *	them
 * @queue_free: give every buffer still on @q's rings back to its pool
 *	(the queue is stopped, or was never started) and free the rings
 * @tx_csum: the chip inserts IPv4, TCP and UDP checksums for frames
 *	flagged IXM_MBUF_F_TX_*_CSUM (copied into nic->tx_csum at probe;
 *	@init may clear that when the device lacks the offload)
 *
 * Every device sets every entry but @read_stats and @set_mc (IPv6's
 * groups, net/ip6.c: without it the protocols filter group frames).  The port (port.c) sees
 * queues only through the queue_* entries and struct ixm_queue; how a
 * driver programs a ring, or routes and masks a queue's interrupt (its
 * queue's @arm and @disarm), is its own business.
 */
struct ixm_nic_ops {
	const char	*name;
	int		(*reset)(struct ixm_nic *nic);
	int		(*init)(struct ixm_nic *nic);
	bool		(*link_up)(struct ixm_nic *nic, u32 *mbps);
	int		(*set_rss)(struct ixm_nic *nic, const u8 *key,
				   const u8 *reta);
	void		(*rx_enable)(struct ixm_nic *nic, bool on);
	void		(*irq_disable)(struct ixm_nic *nic);
	void		(*shutdown)(struct ixm_nic *nic);
	void		(*read_stats)(struct ixm_nic *nic);
	void		(*set_mc)(struct ixm_nic *nic, const u8 *macs, unsigned int n);
	struct ixm_queue *(*queue_alloc)(struct ixm_nic *nic, unsigned int idx,
					 struct ixm_mbuf_pool *pool, int node);
	int		(*queue_start)(struct ixm_nic *nic, struct ixm_queue *q);
	void		(*queue_stop)(struct ixm_nic *nic, struct ixm_queue *q);
	void		(*queue_free)(struct ixm_nic *nic, struct ixm_queue *q);
	bool		tx_csum;
};

/**
 * struct ixm_nic_stats - the device's own counters, summed since probe
 * @rx_packets: good frames received
 * @rx_bytes: their bytes, FCS included
 * @tx_packets: good frames sent
 * @tx_bytes: their bytes, FCS included
 * @rx_missed: frames dropped for want of packet buffer space
 * @rx_no_desc: frames dropped for want of a receive descriptor
 * @rx_crc_errors: frames received with a bad FCS
 * @rx_length_errors: frames received too short, too long or with a bad
 *	length field
 *
 * The registers clear when read; @ops->read_stats adds what they held.
 * Control plane only (the port's lock).
 */
struct ixm_nic_stats {
	u64	rx_packets;
	u64	rx_bytes;
	u64	tx_packets;
	u64	tx_bytes;
	u64	rx_missed;
	u64	rx_no_desc;
	u64	rx_crc_errors;
	u64	rx_length_errors;
};

/**
 * struct ixm_nic - one device
 * @regs: BAR 0 mapping
 * @dev: the device buffers are DMA-mapped for (NULL on the host build)
 * @ops: the chip's table
 * @device_id: PCI device id
 * @max_queues: queue pairs the chip has
 * @mac: MAC address, filled by @ops->init
 * @tx_csum: the device inserts checksums (IXM_TXO_CSUM on its ports)
 * @rss_v4_only: its RSS hashes IPv4 alone: every IPv6 frame reaches queue 0
 * @stats: the device's counters (@ops->read_stats)
 * @priv: the driver's own state, if it keeps any beyond this (virtio)
 */
struct ixm_nic {
	u8 __iomem			*regs;
	struct device			*dev;
	const struct ixm_nic_ops	*ops;
	u16				device_id;
	u16				max_queues;
	u8				mac[ETH_ALEN];
	bool				tx_csum;
	bool				rss_v4_only;
	struct ixm_nic_stats		stats;
	void				*priv;
};

/* Devices: the PCI glue picks the ops by device id. */
extern const struct ixm_nic_ops ixm_igb_ops;
extern const struct ixm_nic_ops ixm_ixgbe_ops;
extern const struct ixm_nic_ops ixm_vnet_ops;	/* ../vnet_pci.c, kernel only */

#endif /* _IXM_NIC_NIC_H */
