/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nic.h - NIC queue drivers: the chip ops table and the queue types
 *
 * PORTABLE: builds in the module and on the host (against the register
 * model).  The queue logic shared by the 82599 and the 82576 (advanced
 * RX/TX descriptors, ring setup, refill, reap, doorbells) is in
 * intel_adv.c; what differs by chip (reset, MAC/PHY and link, queue
 * enable registers, RSS registers, interrupts) is behind struct
 * ixm_nic_ops, one table per chip (ixgbe.c, igb.c).
 *
 * Ownership: struct ixm_nic is the control plane's (pci.c, under the
 * port's lock); each ixm_rxq/ixm_txq belongs to one dataplane core while
 * the port is up and is touched by no one else.
 */
#ifndef _IXM_NIC_NIC_H
#define _IXM_NIC_NIC_H

#include "platform.h"
#include "mbuf.h"
#include "queue.h"

#define IXM_NIC_MAX_QUEUES	16
#define IXM_RSS_RETA_SIZE	128	/* redirection table entries (82576, 82599) */

struct ixm_nic;
union ixm_adv_rx_desc;
union ixm_adv_tx_desc;

/**
 * struct ixm_rxq - one receive queue
 * @nic: the device
 * @idx: hardware queue number
 * @count: descriptors in the ring, a power of two, multiple of 8
 * @next_to_clean: next descriptor the driver expects the NIC to write back
 * @next_to_use: next descriptor the driver will give the NIC (tail)
 * @discard: dropping the rest of a frame that spans several buffers
 * @tail: offset of the queue's tail register (set by @ops->rxq_start)
 * @err_frame: write-back error bits that make a frame unusable (CRC,
 *	length...), the chip's (set by @ops->rxq_start with @tail)
 * @err_ipe: the chip's IPv4 header checksum error bit
 * @err_l4e: the chip's TCP/UDP checksum error bit
 * @desc: the ring (DMA-coherent, allocated by the caller)
 * @desc_dma: its bus address
 * @slot: the buffer posted in each descriptor, @count entries
 * @pool: where buffers come from and go back
 * @packets: frames received
 * @bytes: bytes received
 * @errors: descriptors written back with an error bit (frame dropped)
 * @csum_hw: frames whose IPv4 header checksum the NIC checked
 * @no_buf: refills that found the pool empty
 */
struct ixm_rxq {
	struct ixm_nic		*nic;
	u16			idx;
	u16			count;
	u16			next_to_clean;
	u16			next_to_use;
	bool			discard;
	u32			tail;
	u32			err_frame;
	u32			err_ipe;
	u32			err_l4e;
	union ixm_adv_rx_desc	*desc;
	dma_addr_t		desc_dma;
	struct ixm_mbuf		**slot;
	struct ixm_mbuf_pool	*pool;
	u64			packets;
	u64			bytes;
	u64			errors;
	u64			csum_hw;
	u64			no_buf;
};

/*
 * Frames ixm_adv_tx_reap() frees at most per call: a core that filled its
 * ring returns to its receive work between batches (ixgbe's clean budget).
 */
#define IXM_TX_REAP_BUDGET	128

/**
 * struct ixm_tx_slot - a transmit descriptor's bookkeeping
 * @mb: on a frame's first descriptor: the frame's buffer, freed once the
 *	device is done with the frame; NULL elsewhere
 * @last: on that descriptor: the frame's last one, whose DD (written back
 *	because it has RS) says the frame is done (ixgbe's next_to_watch)
 */
struct ixm_tx_slot {
	struct ixm_mbuf	*mb;
	u16		last;
};

/**
 * struct ixm_txq - one transmit queue
 * @nic: the device
 * @idx: hardware queue number
 * @count: descriptors in the ring, a power of two, multiple of 8
 * @next_to_use: next free descriptor (tail)
 * @next_to_clean: oldest descriptor not yet reaped
 * @tail: offset of the queue's tail register (set by @ops->txq_start)
 * @olinfo_ctx: chip-specific olinfo bits a data descriptor that names a
 *	context slot also sets (the 82599's CC; 0 on the 82576), set by
 *	@ops->txq_start
 * @desc: the ring (DMA-coherent, allocated by the caller)
 * @desc_dma: its bus address
 * @slot: per descriptor; a frame's first holds its buffer and last
 *	descriptor (struct ixm_tx_slot)
 * @packets: frames handed to the NIC
 * @bytes: their bytes
 * @full: frames refused because the ring was full
 * @csum_hw: frames whose checksums the NIC inserted
 * @ctx_loaded: bit i set when context slot i holds IXM_ADV_TX_CTX(i)
 *	(written once after each start; see ixm_adv_tx_burst())
 */
struct ixm_txq {
	struct ixm_nic		*nic;
	u16			idx;
	u16			count;
	u16			next_to_use;
	u16			next_to_clean;
	u32			tail;
	u32			olinfo_ctx;
	union ixm_adv_tx_desc	*desc;
	dma_addr_t		desc_dma;
	struct ixm_tx_slot	*slot;
	u64			packets;
	u64			bytes;
	u64			full;
	u64			csum_hw;
	u8			ctx_loaded;
};

/**
 * struct ixm_nic_ops - what differs between chips
 * @name: "igb" or "ixgbe"
 * @reset: global reset per the datasheet, interrupts masked; 0 or -errno
 *	(-ETIMEDOUT if the device never comes back)
 * @init: after reset: read the MAC address into nic->mac, set up the
 *	MAC/PHY and start link negotiation; 0 or -errno
 * @link_up: current link state; *@mbps gets the speed when up
 * @rxq_start: program and enable one RX queue whose ring the caller has
 *	filled (ixm_adv_rxq_fill()); 0 or -ETIMEDOUT
 * @rxq_stop: disable one RX queue and wait until the NIC stops using it
 * @txq_start: program and enable one TX queue; 0 or -ETIMEDOUT
 * @txq_stop: disable one TX queue and wait until the NIC stops using it
 * @set_rss: program the 40-byte Toeplitz @key and the @reta (queue index
 *	per entry), and enable RSS on IPv4 and IPv4/TCP/UDP; called once per
 *	bring-up, after every queue started; 0 or -errno
 * @rx_enable: enable or disable reception as a whole
 * @irq_enable: route queue @qidx's RX and TX causes to MSI-X vector
 *	@vector and unmask it
 * @irq_mask: mask MSI-X vector @vector (from its interrupt handler)
 * @irq_disable: mask every interrupt
 * @shutdown: stop RX and TX and mask interrupts, for unbind and down
 * @read_stats: add the chip's statistics registers, which clear on read,
 *	into nic->stats (NULL: the chip's counters are not read)
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
 * The port (port.c) sees queues only through the queue_* entries and
 * struct ixm_queue.  @rxq_start, @rxq_stop, @txq_start, @txq_stop,
 * @irq_enable and @irq_mask are the Intel chips' own, which their shared
 * queue code (intel_adv.c) calls; NULL on other devices.
 */
struct ixm_nic_ops {
	const char	*name;
	int		(*reset)(struct ixm_nic *nic);
	int		(*init)(struct ixm_nic *nic);
	bool		(*link_up)(struct ixm_nic *nic, u32 *mbps);
	int		(*rxq_start)(struct ixm_nic *nic, struct ixm_rxq *q);
	void		(*rxq_stop)(struct ixm_nic *nic, struct ixm_rxq *q);
	int		(*txq_start)(struct ixm_nic *nic, struct ixm_txq *q);
	void		(*txq_stop)(struct ixm_nic *nic, struct ixm_txq *q);
	int		(*set_rss)(struct ixm_nic *nic, const u8 *key,
				   const u8 *reta);
	void		(*rx_enable)(struct ixm_nic *nic, bool on);
	void		(*irq_enable)(struct ixm_nic *nic, unsigned int qidx,
				      unsigned int vector);
	void		(*irq_mask)(struct ixm_nic *nic, unsigned int vector);
	void		(*irq_disable)(struct ixm_nic *nic);
	void		(*shutdown)(struct ixm_nic *nic);
	void		(*read_stats)(struct ixm_nic *nic);
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
	struct ixm_nic_stats		stats;
	void				*priv;
};

/**
 * struct ixm_adv_queue - a queue pair on Intel advanced descriptors
 * @q: what the port and the loop hold (ops = &ixm_adv_queue_ops)
 * @rx: the receive ring
 * @tx: the transmit ring
 */
struct ixm_adv_queue {
	struct ixm_queue	q;
	struct ixm_rxq		rx;
	struct ixm_txq		tx;
};

static inline struct ixm_adv_queue *ixm_adv_q(struct ixm_queue *q)
{
	return container_of(q, struct ixm_adv_queue, q);
}

static inline const struct ixm_adv_queue *ixm_adv_cq(const struct ixm_queue *q)
{
	return container_of(q, const struct ixm_adv_queue, q);
}

/* Chips: the PCI glue picks the ops by device id. */
extern const struct ixm_nic_ops ixm_igb_ops;
extern const struct ixm_nic_ops ixm_ixgbe_ops;
extern const struct ixm_nic_ops ixm_vnet_ops;	/* ../vnet_pci.c, kernel only */

/* intel_adv.c: the descriptor rings the 82576 and 82599 share */
int ixm_adv_mac_from_ra(struct ixm_nic *nic, u32 ral, u32 rah);
int ixm_adv_rxq_fill(struct ixm_rxq *q);
unsigned int ixm_adv_rx_burst(struct ixm_rxq *q, struct ixm_mbuf **m,
			      unsigned int max);
void ixm_adv_rx_refill(struct ixm_rxq *q);
void ixm_adv_rxq_release(struct ixm_rxq *q);
unsigned int ixm_adv_tx_burst(struct ixm_txq *q, struct ixm_mbuf **m,
			      unsigned int n);
unsigned int ixm_adv_tx_reap(struct ixm_txq *q);
void ixm_adv_txq_release(struct ixm_txq *q);

/* intel_adv.c: struct ixm_queue_ops over those rings */
extern const struct ixm_queue_ops ixm_adv_queue_ops;
struct ixm_queue *ixm_adv_queue_alloc(struct ixm_nic *nic, unsigned int idx,
				      struct ixm_mbuf_pool *pool, int node);
int ixm_adv_queue_start(struct ixm_nic *nic, struct ixm_queue *q);
void ixm_adv_queue_stop(struct ixm_nic *nic, struct ixm_queue *q);
void ixm_adv_queue_free(struct ixm_nic *nic, struct ixm_queue *q);
unsigned int ixm_adv_q_rx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				unsigned int max);
void ixm_adv_q_rx_refill(struct ixm_queue *q);
unsigned int ixm_adv_q_tx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				unsigned int n);
unsigned int ixm_adv_q_tx_reap(struct ixm_queue *q);
bool ixm_adv_q_busy(const struct ixm_queue *q);

#endif /* _IXM_NIC_NIC_H */
