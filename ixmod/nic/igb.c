// SPDX-License-Identifier: GPL-2.0
/*
 * igb.c - the Intel 82576 (igb) behind struct ixm_nic_ops
 *
 * PORTABLE.  Reset, MAC/PHY, queue enable, RSS and MSI-X registers of the
 * 82576; the descriptor rings themselves are intel_adv.c.  Sequences follow
 * the 82576 datasheet (section numbers below).  QEMU's model (the only
 * 82576 this code has run on) needs two things a real part does without:
 * link comes up only after a PHY autonegotiation restart, and only
 * advanced TX descriptors work; both are what this driver does anyway.
 */
#include "platform.h"
#include "igb_regs.h"
#include "intel_adv.h"

/* Posted writes reach the device before a read completes. */
static inline void igb_flush(struct ixm_nic *nic)
{
	rd32(nic, IGB_STATUS);
}

/*
 * Wait up to @ms milliseconds for (@reg & @mask) == @want.  Injectable
 * (-ETIMEDOUT): a device that never comes back from reset or never starts
 * a queue.
 */
static noinline int igb_wait_reg(struct ixm_nic *nic, u32 reg, u32 mask, u32 want,
		    unsigned int ms)
{
	unsigned int i;

	for (i = 0; i <= ms * 10; i++) {
		if ((rd32(nic, reg) & mask) == want)
			return 0;
		ixm_udelay(100);
	}
	return -ETIMEDOUT;
}
ixm_injectable_errno(igb_wait_reg);

static void igb_irq_disable(struct ixm_nic *nic)
{
	wr32(nic, IGB_EIMC, ~0u);
	wr32(nic, IGB_IMC, ~0u);
	wr32(nic, IGB_EIAC, 0);
	igb_flush(nic);
}

/* §4.2.1.6.1 (software reset) and §4.5.1: quiesce, reset, wait for NVM */
static int igb_reset(struct ixm_nic *nic)
{
	igb_irq_disable(nic);
	wr32(nic, IGB_RCTL, 0);
	wr32(nic, IGB_TCTL, IGB_TCTL_PSP);
	igb_flush(nic);
	ixm_msleep(10);		/* let DMA in flight finish */

	wr32(nic, IGB_CTRL, rd32(nic, IGB_CTRL) | IGB_CTRL_RST);
	ixm_msleep(1);
	if (igb_wait_reg(nic, IGB_CTRL, IGB_CTRL_RST, 0, 10))
		return -ETIMEDOUT;
	/*
	 * §4.5.1: the NVM auto-read follows.  A part without an NVM (and
	 * QEMU's model) never sets AUTO_RD; the MAC address check in init
	 * catches a device that really did not load, so wait, don't fail.
	 */
	igb_wait_reg(nic, IGB_EECD, IGB_EECD_AUTO_RD, IGB_EECD_AUTO_RD, 10);

	igb_irq_disable(nic);
	rd32(nic, IGB_ICR);	/* clear pending causes */
	rd32(nic, IGB_EICR);
	return 0;
}

/* §8.2.4: one clause 22 PHY register write through MDIC */
static int igb_phy_write(struct ixm_nic *nic, u32 reg, u16 val)
{
	u32 mdic;
	int err;

	wr32(nic, IGB_MDIC, val | reg << IGB_MDIC_REG_SHIFT |
	     IGB_PHY_ADDR << IGB_MDIC_PHY_SHIFT | IGB_MDIC_OP_WRITE);
	err = igb_wait_reg(nic, IGB_MDIC, IGB_MDIC_READY, IGB_MDIC_READY, 10);
	if (err)
		return err;
	mdic = rd32(nic, IGB_MDIC);
	return (mdic & IGB_MDIC_ERROR) ? -EIO : 0;
}

static int igb_init(struct ixm_nic *nic)
{
	u32 ral, rah, i;
	int err;

	wr32(nic, IGB_CTRL_EXT, rd32(nic, IGB_CTRL_EXT) | IGB_CTRL_EXT_DRV_LOAD);

	/* §7.1.1.1: the NVM loaded the station address into RAL0/RAH0 */
	ral = rd32(nic, IGB_RAL(0));
	rah = rd32(nic, IGB_RAH(0));
	if (ixm_adv_mac_from_ra(nic, ral, rah))
		return -EADDRNOTAVAIL;
	wr32(nic, IGB_RAH(0), (rah & 0xffff) | IGB_RAH_AV);
	for (i = 1; i < 16; i++) {
		wr32(nic, IGB_RAL(i), 0);
		wr32(nic, IGB_RAH(i), 0);
	}
	for (i = 0; i < 128; i++)
		wr32(nic, IGB_MTA(i), 0);

	/* §4.6.7 (link setup): let the PHY negotiate, MAC follows it */
	wr32(nic, IGB_CTRL, (rd32(nic, IGB_CTRL) | IGB_CTRL_SLU) &
	     ~(IGB_CTRL_FRCSPD | IGB_CTRL_FRCDPX));
	err = igb_phy_write(nic, IGB_PHY_BMCR, IGB_BMCR_ANRESTART_1000FD);
	if (err)
		return err;

	/* §7.3.1.4: MSI-X mode; a queue's cause clears when its vector fires */
	wr32(nic, IGB_GPIE, IGB_GPIE_NSICR | IGB_GPIE_MSIX_MODE | IGB_GPIE_PBA);
	wr32(nic, IGB_TCTL, IGB_TCTL_PSP | IGB_TCTL_CT(15) | IGB_TCTL_COLD(63));
	/* §8.10.14: report IPv4 and TCP/UDP checksum results; PCSD puts
	 * the RSS hash in the descriptor (checksum status bits stay)
	 */
	wr32(nic, IGB_RXCSUM, IGB_RXCSUM_IPOFL | IGB_RXCSUM_TUOFL | IGB_RXCSUM_PCSD);
	igb_flush(nic);
	return 0;
}

static bool igb_link_up(struct ixm_nic *nic, u32 *mbps)
{
	static const u32 speed[4] = { 10, 100, 1000, 1000 };
	u32 st = rd32(nic, IGB_STATUS);

	if (!(st & IGB_STATUS_LU))
		return false;
	if (mbps)
		*mbps = speed[(st >> IGB_STATUS_SPEED_SHIFT) & 3];
	return true;
}

/* §4.5.9 (receive initialization) for one queue */
static int igb_rxq_start(struct ixm_nic *nic, struct ixm_rxq *q)
{
	unsigned int n = q->idx;
	int err;

	wr32(nic, IGB_RXDCTL(n), 0);
	if (igb_wait_reg(nic, IGB_RXDCTL(n), IGB_XDCTL_ENABLE, 0, 10))
		return -ETIMEDOUT;
	wr32(nic, IGB_RDBAL(n), lower_32_bits(q->desc_dma));
	wr32(nic, IGB_RDBAH(n), upper_32_bits(q->desc_dma));
	wr32(nic, IGB_RDLEN(n), q->count * sizeof(union ixm_adv_rx_desc));
	/* one buffer of IXM_MBUF_SIZE per frame; RCTL.LPE stays off so no
	 * frame is longer than 1522 bytes; drop rather than stall when the
	 * queue has no descriptor (the other queues keep going)
	 */
	wr32(nic, IGB_SRRCTL(n), (IXM_MBUF_SIZE >> IGB_SRRCTL_BSIZEPKT_SHIFT) |
	     IGB_SRRCTL_DESC_ADV_ONEBUF | IGB_SRRCTL_DROP_EN);
	wr32(nic, IGB_RDH(n), 0);
	wr32(nic, IGB_RDT(n), 0);
	wr32(nic, IGB_RXDCTL(n), IGB_XDCTL_ENABLE | IGB_XDCTL_THRESH(8, 8, 1));
	err = igb_wait_reg(nic, IGB_RXDCTL(n), IGB_XDCTL_ENABLE, IGB_XDCTL_ENABLE, 10);
	if (err)
		return err;
	/* the tail only after the queue is enabled (§4.5.9) */
	q->tail = IGB_RDT(n);
	q->err_frame = IGB_RXDEXT_ERR_FRAME_ERR_MASK;
	q->err_ipe = IGB_RXDEXT_STATERR_IPE;
	q->err_l4e = IGB_RXDEXT_STATERR_TCPE;
	ixm_wmb();
	wr32(nic, q->tail, q->next_to_use);
	return 0;
}

static void igb_rxq_stop(struct ixm_nic *nic, struct ixm_rxq *q)
{
	wr32(nic, IGB_RXDCTL(q->idx), 0);
	igb_wait_reg(nic, IGB_RXDCTL(q->idx), IGB_XDCTL_ENABLE, 0, 10);
}

/* §4.5.10 (transmit initialization) for one queue */
static int igb_txq_start(struct ixm_nic *nic, struct ixm_txq *q)
{
	unsigned int n = q->idx;
	int err;

	memset(q->desc, 0, q->count * sizeof(*q->desc));
	q->next_to_use = 0;
	q->next_to_clean = 0;
	ixm_adv_txq_ctx_reset(q);	/* a reset or a new queue forgets its contexts */
	q->olinfo_ctx = 0;	/* the 82576 has no "check context" bit */
	wr32(nic, IGB_TXDCTL(n), 0);
	if (igb_wait_reg(nic, IGB_TXDCTL(n), IGB_XDCTL_ENABLE, 0, 10))
		return -ETIMEDOUT;
	wr32(nic, IGB_TDBAL(n), lower_32_bits(q->desc_dma));
	wr32(nic, IGB_TDBAH(n), upper_32_bits(q->desc_dma));
	wr32(nic, IGB_TDLEN(n), q->count * sizeof(union ixm_adv_tx_desc));
	wr32(nic, IGB_TDH(n), 0);
	wr32(nic, IGB_TDT(n), 0);
	wr32(nic, IGB_TXDCTL(n), IGB_XDCTL_ENABLE | IGB_XDCTL_THRESH(8, 1, 1));
	err = igb_wait_reg(nic, IGB_TXDCTL(n), IGB_XDCTL_ENABLE, IGB_XDCTL_ENABLE, 10);
	if (err)
		return err;
	q->tail = IGB_TDT(n);
	wr32(nic, IGB_TCTL, rd32(nic, IGB_TCTL) | IGB_TCTL_EN);
	igb_flush(nic);
	return 0;
}

static void igb_txq_stop(struct ixm_nic *nic, struct ixm_txq *q)
{
	unsigned int n = q->idx;

	/* let the queue drain (head reaches tail), then disable it */
	igb_wait_reg(nic, IGB_TDH(n), 0xffff, rd32(nic, IGB_TDT(n)) & 0xffff, 10);
	wr32(nic, IGB_TXDCTL(n), 0);
	igb_wait_reg(nic, IGB_TXDCTL(n), IGB_XDCTL_ENABLE, 0, 10);
}

/*
 * §7.1.2.8: RSS key, redirection table, hashed fields.  MRQC's field
 * enables: IPv4 and IPv6 each by its TCP or UDP 4-tuple, else by the
 * addresses, with RFCTL.IPV6_EX_DIS so that the chip does not look past
 * IPv6 extension headers: a packet with one hashes its addresses, as
 * base/toeplitz.c's ixm_toeplitz_frame() and nic/steer.c predict, and the
 * "Ex" variants (a Home Address option or a type 2 routing header in
 * place of an address) never apply.  TcpIPv6Ex is set beside TcpIPv6
 * because some QEMU versions' igb (hw/net/igb_core.c) hash IPv6 TCP
 * ports only under it; with no extension header parsed the two hash the
 * same input.  Linux's igb sets both too.
 */
static int igb_set_rss(struct ixm_nic *nic, const u8 *key, const u8 *reta)
{
	unsigned int i;

	/* key byte 0 is the most significant byte of the hash input key */
	for (i = 0; i < 10; i++)
		wr32(nic, IGB_RSSRK(i), key[4 * i] | key[4 * i + 1] << 8 |
		     key[4 * i + 2] << 16 | (u32)key[4 * i + 3] << 24);
	for (i = 0; i < IXM_RSS_RETA_SIZE / 4; i++)
		wr32(nic, IGB_RETA(i), reta[4 * i] | reta[4 * i + 1] << 8 |
		     reta[4 * i + 2] << 16 | (u32)reta[4 * i + 3] << 24);
	wr32(nic, IGB_RFCTL, rd32(nic, IGB_RFCTL) | IGB_RFCTL_IPV6_EX_DIS);
	wr32(nic, IGB_MRQC, IGB_MRQC_RSS | IGB_MRQC_FIELD_IPV4 |
	     IGB_MRQC_FIELD_IPV4_TCP | IGB_MRQC_FIELD_IPV4_UDP |
	     IGB_MRQC_FIELD_IPV6 | IGB_MRQC_FIELD_IPV6_TCP |
	     IGB_MRQC_FIELD_IPV6_TCP_EX | IGB_MRQC_FIELD_IPV6_UDP);
	igb_flush(nic);
	return 0;
}

/*
 * The Multicast Table Array: with RCTL.MO 00b the chip takes a group
 * frame when the bit that destination address bits 47:36 index in its
 * 4096 bits is set (the hash of Linux's e1000_hash_mc_addr()).
 */
static void igb_set_mc(struct ixm_nic *nic, const u8 *macs, unsigned int n)
{
	u32 mta[128] = { 0 };
	unsigned int i, h;

	for (i = 0; i < n; i++) {
		h = (macs[i * ETH_ALEN + 4] >> 4 | macs[i * ETH_ALEN + 5] << 4) & 0xfff;
		mta[h >> 5] |= 1u << (h & 31);
	}
	for (i = 0; i < 128; i++)
		wr32(nic, IGB_MTA(i), mta[i]);
	igb_flush(nic);
}

static void igb_rx_enable(struct ixm_nic *nic, bool on)
{
	/* BSIZE 00b: 2048 bytes (SRRCTL overrides it per queue anyway) */
	wr32(nic, IGB_RCTL, on ? IGB_RCTL_EN | IGB_RCTL_BAM | IGB_RCTL_SECRC : 0);
	igb_flush(nic);
}

/* §7.3.2 and §8.8.15: queue n's RX cause is IVAR[n & 7] byte 0 (n < 8)
 * or byte 2 (n >= 8); its TX cause is the byte above
 */
static void igb_irq_enable(struct ixm_nic *nic, unsigned int qidx,
			   unsigned int vector)
{
	u32 reg = IGB_IVAR0 + (qidx & 7) * 4;
	u32 shift = (qidx & 8) ? 16 : 0;
	u32 ivar = rd32(nic, reg);
	u32 ent = (vector | IGB_IVAR_VALID);

	ivar &= ~(0xffffu << shift);
	ivar |= (ent | ent << 8) << shift;
	wr32(nic, reg, ivar);
	wr32(nic, IGB_EIAC, rd32(nic, IGB_EIAC) | 1u << vector);
	wr32(nic, IGB_EIMS, 1u << vector);
}

static void igb_irq_mask(struct ixm_nic *nic, unsigned int vector)
{
	wr32(nic, IGB_EIMC, 1u << vector);
}

static void igb_shutdown(struct ixm_nic *nic)
{
	/* a reset stops every DMA; the stock driver re-initialises anyway */
	igb_reset(nic);
	wr32(nic, IGB_CTRL_EXT, rd32(nic, IGB_CTRL_EXT) & ~IGB_CTRL_EXT_DRV_LOAD);
	igb_flush(nic);
}

/* The hooks under the rings the 82576 and 82599 share (intel_adv.c). */
const struct ixm_adv_chip_ops ixm_igb_chip_ops = {
	.rxq_start	= igb_rxq_start,
	.rxq_stop	= igb_rxq_stop,
	.txq_start	= igb_txq_start,
	.txq_stop	= igb_txq_stop,
	.irq_enable	= igb_irq_enable,
	.irq_mask	= igb_irq_mask,
};

static struct ixm_queue *igb_queue_alloc(struct ixm_nic *nic, unsigned int idx,
					 struct ixm_mbuf_pool *pool, int node)
{
	return ixm_adv_queue_alloc(nic, &ixm_igb_chip_ops, idx, pool, node);
}

const struct ixm_nic_ops ixm_igb_ops = {
	.name		= "igb",
	.reset		= igb_reset,
	.init		= igb_init,
	.link_up	= igb_link_up,
	.set_rss	= igb_set_rss,
	.set_mc		= igb_set_mc,
	.rx_enable	= igb_rx_enable,
	.irq_disable	= igb_irq_disable,
	.shutdown	= igb_shutdown,
	.queue_alloc	= igb_queue_alloc,
	.queue_start	= ixm_adv_queue_start,
	.queue_stop	= ixm_adv_queue_stop,
	.queue_free	= ixm_adv_queue_free,
	.tx_csum	= true,
};
