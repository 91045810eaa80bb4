/* SPDX-License-Identifier: GPL-2.0 */
/*
 * intel_adv.h - the advanced RX and TX descriptors of the 82576 and 82599
 *
 * PORTABLE.  Both chips use the same 16-byte formats (82576 datasheet
 * §7.1.5 and §7.2.2.3; 82599 datasheet §7.1.6 and §7.2.3.2): the driver
 * writes the "read" layout, the device writes back the "wb" layout in
 * place.  All fields are little-endian.
 *
 * Also the rings built from them, the queue pair over those rings, and
 * the hooks each chip gives the shared ring code (struct
 * ixm_adv_chip_ops): private to intel_adv.c, igb.c and ixgbe.c.  Nothing
 * else in the module sees an Intel type; the port sees struct ixm_nic_ops
 * and struct ixm_queue only.
 */
#ifndef _IXM_NIC_INTEL_ADV_H
#define _IXM_NIC_INTEL_ADV_H

#include "platform.h"
#include "nic.h"

/**
 * union ixm_adv_rx_desc - advanced receive descriptor, one buffer
 * @read: as the driver posts it
 * @read.pkt_addr: bus address of the packet buffer
 * @read.hdr_addr: header buffer (header split is off: 0)
 * @wb: as the device writes it back
 * @wb.pkt_info: RSS type (bits 3:0) and packet type
 * @wb.hdr_info: header length, split header flag
 * @wb.rss: RSS hash (RXCSUM.PCSD set) or IP id and fragment checksum
 * @wb.status_error: status (bits 19:0) and errors (bits 31:20)
 * @wb.length: bytes written to the buffer
 * @wb.vlan: stripped VLAN tag
 */
union ixm_adv_rx_desc {
	struct {
		__le64	pkt_addr;
		__le64	hdr_addr;
	} read;
	struct {
		__le16	pkt_info;
		__le16	hdr_info;
		__le32	rss;
		__le32	status_error;
		__le16	length;
		__le16	vlan;
	} wb;
};

/* wb.status_error: status bits (82576 Table 7-13, 82599 Table 7-17) */
#define IXM_ADV_RXD_STAT_DD	0x00000001	/* descriptor done */
#define IXM_ADV_RXD_STAT_EOP	0x00000002	/* end of packet */
#define IXM_ADV_RXD_STAT_UDPCS	0x00000010	/* UDP checksum checked */
#define IXM_ADV_RXD_STAT_L4CS	0x00000020	/* TCP/UDP checksum checked */
#define IXM_ADV_RXD_STAT_IPCS	0x00000040	/* IPv4 header checksum checked */
/*
 * The error bits (31:20) differ by chip (82576 Table 7-14: IPE is bit 30,
 * L4E bit 29; 82599 §7.1.6.2: IPE bit 31, L4E bit 30), so each chip's
 * rxq_start puts its own masks in struct ixm_rxq (@err_frame, @err_ipe,
 * @err_l4e): igb_regs.h and ixgbe_regs.h have them.
 */
/* wb.pkt_info: RSS type 0 means no hash was computed */
#define IXM_ADV_RXD_RSS_TYPE	0x000f

/**
 * union ixm_adv_tx_desc - advanced transmit data descriptor
 * @read: as the driver posts it
 * @read.buffer_addr: bus address of the data
 * @read.cmd_type_len: length (15:0), descriptor type, command bits
 * @read.olinfo_status: payload length (31:14) and offload options
 * @wb: as the device writes it back (RS set)
 * @wb.rsvd: reserved
 * @wb.nxtseq_seed: reserved
 * @wb.status: DD (bit 0)
 */
union ixm_adv_tx_desc {
	struct {
		__le64	buffer_addr;
		__le32	cmd_type_len;
		__le32	olinfo_status;
	} read;
	struct {
		__le64	rsvd;
		__le32	nxtseq_seed;
		__le32	status;
	} wb;
};

/* read.cmd_type_len (82576 Table 7-37, 82599 Table 7-39) */
#define IXM_ADV_TXD_DTYP_DATA	0x00300000	/* advanced data descriptor */
#define IXM_ADV_TXD_DCMD_EOP	0x01000000	/* end of packet */
#define IXM_ADV_TXD_DCMD_IFCS	0x02000000	/* insert the FCS */
#define IXM_ADV_TXD_DCMD_RS	0x08000000	/* report status (write back DD) */
#define IXM_ADV_TXD_DCMD_DEXT	0x20000000	/* extended (advanced) format */
#define IXM_ADV_TXD_PAYLEN_SHIFT 14		/* olinfo_status */
#define IXM_ADV_TXD_STAT_DD	0x00000001	/* wb.status */
/* read.olinfo_status: the context to use and the checksums to insert */
#define IXM_ADV_TXD_IDX_SHIFT	4		/* context slot, 0 or 1 */
#define IXM_ADV_TXD_POPTS_IXSM	0x00000100	/* insert the IPv4 header checksum */
#define IXM_ADV_TXD_POPTS_TXSM	0x00000200	/* insert the TCP/UDP checksum */

/**
 * struct ixm_adv_tx_ctx_desc - advanced transmit context descriptor
 * @vlan_macip_lens: IP header length (8:0), MAC header length (15:9),
 *	VLAN tag (31:16)
 * @seqnum_seed: reserved here (0)
 * @type_tucmd_mlhl: DTYP_CTXT, DEXT and the packet type (TUCMD)
 * @mss_l4len_idx: context slot (6:4), L4 header length and MSS for
 *	segmentation (unused here: 0)
 *
 * It takes a ring slot like a data descriptor and fills one of the
 * queue's two context slots, which data descriptors then name in their
 * olinfo (82576 §7.2.2.3, 82599 §7.2.3.2; the same bits as Linux's igb
 * and ixgbe and QEMU's igb model use).  A slot keeps its context until
 * written again, and the device reads the ring in order, so a queue
 * writes one only when a frame needs a kind of context neither slot
 * holds (DPDK's igb and ixgbe drivers cache them the same way).
 *
 * MACLEN + IPLEN is where the TCP/UDP checksum starts, and it runs to the
 * end of the frame; IXSM asks for the IPv4 header checksum over IPLEN
 * bytes from MACLEN.  TUCMD.IPV4 clear says IPv6, for which IXSM must be
 * clear: IPv6 has no header checksum (82576 §7.2.2.3 and 82599
 * §7.2.3.2.3 context descriptor tables, POPTS in the data descriptor's).
 */
struct ixm_adv_tx_ctx_desc {
	__le32	vlan_macip_lens;
	__le32	seqnum_seed;
	__le32	type_tucmd_mlhl;
	__le32	mss_l4len_idx;
};

#define IXM_ADV_TXD_DTYP_CTXT	0x00200000	/* advanced context descriptor */
#define IXM_ADV_TXD_MACLEN_SHIFT 9
#define IXM_ADV_TXD_TUCMD_IPV4	0x00000400	/* IPv4 (type_tucmd_mlhl); clear: IPv6 */
#define IXM_ADV_TXD_TUCMD_L4T_UDP 0x00000000	/* UDP */
#define IXM_ADV_TXD_TUCMD_L4T_TCP 0x00000800	/* TCP */

/**
 * struct ixm_rxq - one receive queue
 * @nic: the device
 * @idx: hardware queue number
 * @count: descriptors in the ring, a power of two, multiple of 8
 * @next_to_clean: next descriptor the driver expects the NIC to write back
 * @next_to_use: next descriptor the driver will give the NIC (tail)
 * @discard: dropping the rest of a frame that spans several buffers
 * @tail: offset of the queue's tail register (set by the chip's rxq_start)
 * @err_frame: write-back error bits that make a frame unusable (CRC,
 *	length...), the chip's (set by its rxq_start with @tail)
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
 * @tail: offset of the queue's tail register (set by the chip's txq_start)
 * @olinfo_ctx: chip-specific olinfo bits a data descriptor that names a
 *	context slot also sets (the 82599's CC; 0 on the 82576), set by
 *	the chip's txq_start
 * @desc: the ring (DMA-coherent, allocated by the caller)
 * @desc_dma: its bus address
 * @slot: per descriptor; a frame's first holds its buffer and last
 *	descriptor (struct ixm_tx_slot)
 * @packets: frames handed to the NIC
 * @bytes: their bytes
 * @full: frames refused because the ring was full
 * @csum_hw: frames whose checksums the NIC inserted
 * @ctx_kind: what each context slot holds: the IXM_ADV_CTX_KIND bits of
 *	the frame it was loaded for (protocol, family), 0 when not loaded
 *	since the queue started (see ixm_adv_tx_burst())
 * @ctx_next: the slot the next context descriptor loads
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
	u16			ctx_kind[2];
	u8			ctx_next;
};

/* The mbuf flags that choose a checksum context: protocol and family. */
#define IXM_ADV_CTX_KIND	(IXM_MBUF_F_TX_CSUM | IXM_MBUF_F_TX_IPV6)

/* A started or stopped queue's context slots hold nothing the driver knows. */
static inline void ixm_adv_txq_ctx_reset(struct ixm_txq *q)
{
	q->ctx_kind[0] = 0;
	q->ctx_kind[1] = 0;
	q->ctx_next = 0;
}

/**
 * struct ixm_adv_chip_ops - what differs between the 82576 and the 82599
 *	under the rings they share
 * @rxq_start: program and enable one RX queue whose ring the caller has
 *	filled (ixm_adv_rxq_fill()); sets its @tail and error masks; 0 or
 *	-ETIMEDOUT (-EINVAL: a queue the chip does not have)
 * @rxq_stop: disable one RX queue and wait until the NIC stops using it
 * @txq_start: program and enable one TX queue; 0 or -ETIMEDOUT (-EINVAL
 *	as for @rxq_start)
 * @txq_stop: disable one TX queue and wait until the NIC stops using it
 * @irq_enable: route queue @qidx's RX and TX causes to MSI-X vector
 *	@vector and unmask it
 * @irq_mask: mask MSI-X vector @vector (from its interrupt handler)
 *
 * Private to the Intel drivers, as Linux's ixgbe keeps its per-MAC hooks
 * (struct ixgbe_mac_operations) to itself: intel_adv.c calls them to
 * start and stop a queue pair and to arm and disarm it; each chip's
 * queue_alloc (struct ixm_nic_ops) hands its table to
 * ixm_adv_queue_alloc().
 */
struct ixm_adv_chip_ops {
	int	(*rxq_start)(struct ixm_nic *nic, struct ixm_rxq *q);
	void	(*rxq_stop)(struct ixm_nic *nic, struct ixm_rxq *q);
	int	(*txq_start)(struct ixm_nic *nic, struct ixm_txq *q);
	void	(*txq_stop)(struct ixm_nic *nic, struct ixm_txq *q);
	void	(*irq_enable)(struct ixm_nic *nic, unsigned int qidx,
			      unsigned int vector);
	void	(*irq_mask)(struct ixm_nic *nic, unsigned int vector);
};

/**
 * struct ixm_adv_queue - a queue pair on Intel advanced descriptors
 * @q: what the port and the loop hold (ops = &ixm_adv_queue_ops)
 * @chip: the chip's hooks for these rings
 * @rx: the receive ring
 * @tx: the transmit ring
 */
struct ixm_adv_queue {
	struct ixm_queue		q;
	const struct ixm_adv_chip_ops	*chip;
	struct ixm_rxq			rx;
	struct ixm_txq			tx;
};

static inline struct ixm_adv_queue *ixm_adv_q(struct ixm_queue *q)
{
	return container_of(q, struct ixm_adv_queue, q);
}

static inline const struct ixm_adv_queue *ixm_adv_cq(const struct ixm_queue *q)
{
	return container_of(q, const struct ixm_adv_queue, q);
}

/* The chips' registers, through the BAR mapping (igb's rd32()/wr32()). */
static inline u32 rd32(struct ixm_nic *nic, u32 reg)
{
	return ixm_rd32(nic->regs, reg);
}

static inline void wr32(struct ixm_nic *nic, u32 reg, u32 val)
{
	ixm_wr32(nic->regs, reg, val);
}

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
struct ixm_queue *ixm_adv_queue_alloc(struct ixm_nic *nic,
				      const struct ixm_adv_chip_ops *chip,
				      unsigned int idx,
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

/* The chips' hooks (igb.c, ixgbe.c), which their tests call directly */
extern const struct ixm_adv_chip_ops ixm_igb_chip_ops;
extern const struct ixm_adv_chip_ops ixm_ixgbe_chip_ops;

#endif /* _IXM_NIC_INTEL_ADV_H */
