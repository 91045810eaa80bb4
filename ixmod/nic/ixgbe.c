// SPDX-License-Identifier: GPL-2.0
/*
 * ixgbe.c - the Intel 82599 (ixgbe family) behind struct ixm_nic_ops
 *
 * PORTABLE.  Reset, MAC and link, queue enable, RSS, MSI-X and statistics
 * registers of the 82599; the descriptor rings are intel_adv.c's, shared
 * with the 82576.  Sequences follow the Intel 82599 10 GbE Controller
 * Datasheet (section numbers below; register sections as ixgbe_regs.h
 * cites them), in the order the register model (tools/testing/ixmod/
 * model/ixgbe_model.c) enforces:
 *
 *   reset:  interrupts masked, master disable, CTRL.RST and its poll,
 *           EEC.ARD, RDRXCTL.DMAIDONE (§4.6.3)
 *   init:   MAC from RAL0/RAH0, filters, flow control off, CRC and
 *           padding, RDRXCTL, checksums, statistics mapping, MSI-X mode,
 *           link mode (AUTOC/AUTOC2) and autonegotiation restart (§4.6.4)
 *   RX:     per queue ring, RDH = RDT = 0, SRRCTL, RXDCTL.ENABLE polled,
 *           then RDT; RXCTRL.RXEN last (§4.6.7)
 *   TX:     per queue ring, TDH = TDT = 0, TXDCTL thresholds,
 *           DMATXCTL.TE, TXDCTL.ENABLE polled (§4.6.8)
 *
 * This code has run only against that model, never on an 82599.
 *
 * Left off, on purpose: DCA (no DCA_* register is written; the chip's
 * reset default keeps it off), SR-IOV and VMDq (MRQC selects RSS alone,
 * no VF is configured), DCB, RSC, flow director, FCoE, IPsec, the LSC
 * interrupt (the link is polled through LINKS), jumbo frames, and the
 * multispeed-fiber laser and SFP+ module identification Linux's ixgbe does
 * through SDP pins and I2C: the link mode is chosen from the device id
 * alone.
 */
#include "platform.h"
#include "ixgbe_regs.h"
#include "intel_adv.h"

/* EITR interval, bits 11:3, about 2 us a step (§8.2.3.5.12): 20 us */
#define IXGBE_EITR_IXM		(10 << 3)
/* TXDCTL thresholds: prefetch 32, host 1, write-back 1 (Linux's values) */
#define IXGBE_TXDCTL_IXM	(32 << IXGBE_TXDCTL_PTHRESH_SHIFT | \
				 1 << IXGBE_TXDCTL_HTHRESH_SHIFT | \
				 1 << IXGBE_TXDCTL_WTHRESH_SHIFT)

/* Posted writes reach the device before a read completes. */
static inline void ixgbe_flush(struct ixm_nic *nic)
{
	rd32(nic, IXGBE_STATUS);
}

/*
 * Wait at least @ms milliseconds for (@reg & @mask) == @want, sleeping
 * between reads: every caller is in process context (probe, sysfs up and
 * down, unbind).  Not marked for fail_function as igb_wait_reg is: no VM
 * here has an 82599 to fail it on; the model's stuck bits test the
 * -ETIMEDOUT paths (unit/ixgbe.c, ixgbe_errors).
 */
static int ixgbe_wait_reg(struct ixm_nic *nic, u32 reg, u32 mask, u32 want,
			  unsigned int ms)
{
	unsigned int i;

	for (i = 0; i <= ms * 10; i++) {
		if ((rd32(nic, reg) & mask) == want)
			return 0;
		ixm_usleep(100);
	}
	return -ETIMEDOUT;
}

/* §8.2.3.5.4 EIMC, §8.2.3.5.9 EIMC_EX: mask every cause; no auto-clear */
static void ixgbe_irq_disable(struct ixm_nic *nic)
{
	wr32(nic, IXGBE_EIMC, 0xffff0000);
	wr32(nic, IXGBE_EIMC_EX(0), ~0u);
	wr32(nic, IXGBE_EIMC_EX(1), ~0u);
	wr32(nic, IXGBE_EIAC, 0);
	ixgbe_flush(nic);
}

/*
 * §4.6.3.2 (global reset and general configuration): interrupts masked,
 * PCIe master disable (§5.2.5.3.2, section number not confirmed), then
 * CTRL.RST, which clears itself; at least 1 ms before the next access.
 * §4.6.3: the EEPROM auto-read (EEC.ARD) and the DMA initialisation
 * (RDRXCTL.DMAIDONE) follow, and nothing may be configured before both.
 * Every register but the PCI ones is back at its default afterwards,
 * statistics included.
 */
static int ixgbe_reset(struct ixm_nic *nic)
{
	/* nothing but CTRL may be written while a reset runs (§4.6.3.2) */
	if (ixgbe_wait_reg(nic, IXGBE_CTRL, IXGBE_CTRL_RST_MASK, 0, 10))
		goto err_rst;
	ixgbe_irq_disable(nic);
	wr32(nic, IXGBE_CTRL, rd32(nic, IXGBE_CTRL) | IXGBE_CTRL_GIO_DIS);
	/* requests in flight finish; the reset goes ahead either way (Linux) */
	ixgbe_wait_reg(nic, IXGBE_STATUS, IXGBE_STATUS_GIO, 0, 10);

	wr32(nic, IXGBE_CTRL, rd32(nic, IXGBE_CTRL) | IXGBE_CTRL_RST);
	ixm_msleep(1);
	if (ixgbe_wait_reg(nic, IXGBE_CTRL, IXGBE_CTRL_RST_MASK, 0, 10))
		goto err_rst;
	/* let the reset settle before the next access (Linux waits 50 ms) */
	ixm_msleep(10);
	if (ixgbe_wait_reg(nic, IXGBE_EEC, IXGBE_EEC_ARD, IXGBE_EEC_ARD, 20)) {
		ixm_dev_err(nic->dev, "ixgbe: EEPROM auto-read not done (EEC.ARD clear) 20 ms after reset\n");
		return -ETIMEDOUT;
	}
	if (ixgbe_wait_reg(nic, IXGBE_RDRXCTL, IXGBE_RDRXCTL_DMAIDONE,
			   IXGBE_RDRXCTL_DMAIDONE, 20)) {
		ixm_dev_err(nic->dev, "ixgbe: DMA init not done (RDRXCTL.DMAIDONE clear) 20 ms after reset\n");
		return -ETIMEDOUT;
	}
	ixgbe_irq_disable(nic);
	rd32(nic, IXGBE_EICR);	/* clear pending causes */
	return 0;

err_rst:
	ixm_dev_err(nic->dev, "ixgbe: reset did not complete: CTRL.RST still set after 10 ms\n");
	return -ETIMEDOUT;
}

/*
 * §4.6.4 link setup: the link mode (AUTOC.LMS) and what autonegotiation
 * offers, by device id.  SFP+ runs 10G serial over SFI (AUTOC2), the
 * backplanes negotiate KX4/KX/KR (clause 73); anything else (CX4, XAUI,
 * 10GBASE-T with its external PHY) keeps what the EEPROM loaded.
 * Multispeed fiber at 1G is not set up.
 */
struct ixgbe_link_mode {
	u16	device;
	u32	autoc;		/* LMS and the supported bits */
	u32	autoc2;		/* 10G serial PMA/PMD */
};

static const struct ixgbe_link_mode ixgbe_link_modes[] = {
	{ 0x10fb, IXGBE_AUTOC_LMS_10G_SERIAL, IXGBE_AUTOC2_10G_SFI },	/* SFP+ */
	{ 0x1529, IXGBE_AUTOC_LMS_10G_SERIAL, IXGBE_AUTOC2_10G_SFI },	/* SFP+ FCoE */
	{ 0x1557, IXGBE_AUTOC_LMS_10G_SERIAL, IXGBE_AUTOC2_10G_SFI },	/* 82599EN SFP+ */
	{ 0x1517, IXGBE_AUTOC_LMS_KX4_KX_KR | IXGBE_AUTOC_KR_SUPP | IXGBE_AUTOC_KX_SUPP,
	  IXGBE_AUTOC2_10G_KR },					/* KR */
	{ 0x10f7, IXGBE_AUTOC_LMS_KX4_KX_KR | IXGBE_AUTOC_KX4_SUPP | IXGBE_AUTOC_KX_SUPP,
	  IXGBE_AUTOC2_10G_KR },					/* KX4 */
	/* the combined backplane, and its FCoE twin */
	{ 0x10f8, IXGBE_AUTOC_LMS_KX4_KX_KR | IXGBE_AUTOC_KX4_SUPP | IXGBE_AUTOC_KX_SUPP |
	  IXGBE_AUTOC_KR_SUPP, IXGBE_AUTOC2_10G_KR },
	{ 0x152a, IXGBE_AUTOC_LMS_KX4_KX_KR | IXGBE_AUTOC_KX4_SUPP | IXGBE_AUTOC_KX_SUPP |
	  IXGBE_AUTOC_KR_SUPP, IXGBE_AUTOC2_10G_KR },
};

#define IXGBE_AUTOC_MODE_MASK	(IXGBE_AUTOC_LMS_MASK | IXGBE_AUTOC_KR_SUPP | \
				 IXGBE_AUTOC_KX_SUPP | IXGBE_AUTOC_KX4_SUPP)

/*
 * §8.2.3.22.19 AUTOC, §8.2.3.22.20 LINKS.  Linux takes the firmware's
 * semaphore around AUTOC writes when manageability firmware (LESM) runs;
 * this driver does not (not modelled, not confirmed needed without it).
 */
static void ixgbe_setup_link(struct ixm_nic *nic)
{
	u32 autoc = rd32(nic, IXGBE_AUTOC);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ixgbe_link_modes); i++) {
		const struct ixgbe_link_mode *lm = &ixgbe_link_modes[i];

		if (lm->device != nic->device_id)
			continue;
		wr32(nic, IXGBE_AUTOC2, (rd32(nic, IXGBE_AUTOC2) &
					 ~IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_MASK) | lm->autoc2);
		autoc = (autoc & ~IXGBE_AUTOC_MODE_MASK) | lm->autoc;
		break;
	}
	/* AN_RESTART clears itself; the link comes up in LINKS later */
	wr32(nic, IXGBE_AUTOC, (autoc & ~IXGBE_AUTOC_FLU) | IXGBE_AUTOC_AN_RESTART);
}

static int ixgbe_init(struct ixm_nic *nic)
{
	u32 ral, rah, i;

	if (nic->max_queues > IXGBE_RSS_QUEUES) {
		ixm_dev_err(nic->dev, "ixgbe: %u queue pairs asked; RSS spreads over %u on the 82599\n",
			    nic->max_queues, IXGBE_RSS_QUEUES);
		return -EINVAL;
	}
	wr32(nic, IXGBE_CTRL_EXT, rd32(nic, IXGBE_CTRL_EXT) | IXGBE_CTRL_EXT_DRV_LOAD);

	/* §8.2.3.7.8/9: the EEPROM loaded the station address (ARD polled) */
	ral = rd32(nic, IXGBE_RAL(0));
	rah = rd32(nic, IXGBE_RAH(0));
	if (ixm_adv_mac_from_ra(nic, ral, rah))
		return -EADDRNOTAVAIL;
	wr32(nic, IXGBE_RAH(0), (rah & 0xffff) | IXGBE_RAH_AV);
	for (i = 1; i < 128; i++) {
		wr32(nic, IXGBE_RAL(i), 0);
		wr32(nic, IXGBE_RAH(i), 0);
	}
	for (i = 0; i < 128; i++)
		wr32(nic, IXGBE_MTA(i), 0);
	/* §8.2.3.7.1: our address and broadcast, nothing promiscuous */
	wr32(nic, IXGBE_FCTRL, IXGBE_FCTRL_BAM);

	/*
	 * Flow control off (§8.2.3.3): no pause frames sent (FCCFG.TFCE,
	 * FCRTH.FCEN, FCRTL.XONE clear), none honoured (MFLCN.RFCE and
	 * RPFCE clear) and received ones dropped (MFLCN.DPF), as Linux's
	 * ixgbe_fc_enable_generic() does for "none".
	 */
	wr32(nic, IXGBE_FCCFG, 0);
	for (i = 0; i < 8; i++) {
		wr32(nic, IXGBE_FCRTL_82599(i), 0);
		wr32(nic, IXGBE_FCRTH_82599(i), 0);
	}
	wr32(nic, IXGBE_MFLCN, (rd32(nic, IXGBE_MFLCN) &
				~(IXGBE_MFLCN_RFCE | IXGBE_MFLCN_RPFCE)) | IXGBE_MFLCN_DPF);

	/*
	 * §8.2.3.22.8 HLREG0: append the FCS, strip it on receive, pad short
	 * frames; no jumbo frames (1518 bytes at most, one 2 KiB buffer) and
	 * no loopback.  §8.2.3.8.8 RDRXCTL: CRCSTRIP equal to RXCRCSTRP, and
	 * the bits software must set or clear (§4.6.7).
	 */
	wr32(nic, IXGBE_HLREG0, (rd32(nic, IXGBE_HLREG0) &
				 ~(IXGBE_HLREG0_JUMBOEN | IXGBE_HLREG0_LPBK)) |
	     IXGBE_HLREG0_TXCRCEN | IXGBE_HLREG0_RXCRCSTRP | IXGBE_HLREG0_TXPADEN);
	wr32(nic, IXGBE_RDRXCTL, (rd32(nic, IXGBE_RDRXCTL) & ~IXGBE_RDRXCTL_RSCFRSTSIZE) |
	     IXGBE_RDRXCTL_CRCSTRIP | IXGBE_RDRXCTL_RSCACKC | IXGBE_RDRXCTL_FCOE_WRFIX);
	/*
	 * §8.2.3.7.5: the 82599 always checks IPv4 and TCP/UDP checksums;
	 * PCSD puts the RSS hash in the descriptor (the status bits stay).
	 */
	wr32(nic, IXGBE_RXCSUM, IXGBE_RXCSUM_PCSD);

	/* §8.2.3.23.71/73: queue n's packets in QPRC(n)/QPTC(n), n < 16 */
	for (i = 0; i < IXGBE_RSS_QUEUES / 4; i++) {
		u32 map = (4 * i) | (4 * i + 1) << 8 | (4 * i + 2) << 16 | (4 * i + 3) << 24;

		wr32(nic, IXGBE_RQSMR(i), map);
		wr32(nic, IXGBE_TQSM(i), map);
	}

	/*
	 * §8.2.3.5.18 GPIE: MSI-X mode; reading EICR clears only the other
	 * causes; the pending-bit array is used.  A queue's cause clears when
	 * its vector fires (EIAC, set per vector in irq_enable).
	 */
	wr32(nic, IXGBE_GPIE, IXGBE_GPIE_MSIX_MODE | IXGBE_GPIE_OCD |
	     IXGBE_GPIE_PBA_SUPPORT);

	ixgbe_setup_link(nic);
	ixgbe_flush(nic);
	return 0;
}

static bool ixgbe_link_up(struct ixm_nic *nic, u32 *mbps)
{
	u32 links = rd32(nic, IXGBE_LINKS);

	if (!(links & IXGBE_LINKS_UP))
		return false;
	if (mbps) {
		switch (links & IXGBE_LINKS_SPEED_82599) {
		case IXGBE_LINKS_SPEED_10G_82599:
			*mbps = 10000;
			break;
		case IXGBE_LINKS_SPEED_1G_82599:
			*mbps = 1000;
			break;
		case IXGBE_LINKS_SPEED_100_82599:
			*mbps = 100;
			break;
		default:
			*mbps = 0;
		}
	}
	return true;
}

/* A queue index the chip, as configured, does not have. */
static bool ixgbe_queue_bad(struct ixm_nic *nic, unsigned int n, const char *dir)
{
	if (n < nic->max_queues && n < IXGBE_RSS_QUEUES)
		return false;
	ixm_dev_err(nic->dev, "ixgbe: %s queue %u beyond the %u configured (82599 RSS: %u)\n",
		    dir, n, nic->max_queues, IXGBE_RSS_QUEUES);
	return true;
}

/* §4.6.7 (receive initialization) and §4.6.7.1 for one queue */
static int ixgbe_rxq_start(struct ixm_nic *nic, struct ixm_rxq *q)
{
	unsigned int n = q->idx;
	u32 rxdctl;

	if (ixgbe_queue_bad(nic, n, "RX"))
		return -EINVAL;
	rxdctl = rd32(nic, IXGBE_RXDCTL(n)) & ~IXGBE_RXDCTL_ENABLE;
	wr32(nic, IXGBE_RXDCTL(n), rxdctl);
	if (ixgbe_wait_reg(nic, IXGBE_RXDCTL(n), IXGBE_RXDCTL_ENABLE, 0, 10))
		goto err_timeout;
	/* base and length 128-byte aligned (§8.2.3.8.1, §8.2.3.8.3) */
	wr32(nic, IXGBE_RDBAL(n), lower_32_bits(q->desc_dma));
	wr32(nic, IXGBE_RDBAH(n), upper_32_bits(q->desc_dma));
	wr32(nic, IXGBE_RDLEN(n), q->count * sizeof(union ixm_adv_rx_desc));
	wr32(nic, IXGBE_RDH(n), 0);
	wr32(nic, IXGBE_RDT(n), 0);
	/*
	 * §8.2.3.8.7: advanced one-buffer descriptors of IXM_MBUF_SIZE; no
	 * frame is longer (HLREG0.JUMBOEN off); drop rather than stall when
	 * the queue has no descriptor, so the other queues keep going.
	 */
	wr32(nic, IXGBE_SRRCTL(n), (IXM_MBUF_SIZE >> IXGBE_SRRCTL_BSIZEPKT_SHIFT) |
	     IXGBE_SRRCTL_DESCTYPE_ADV_ONEBUF | IXGBE_SRRCTL_DROP_EN);
	wr32(nic, IXGBE_RXDCTL(n), rxdctl | IXGBE_RXDCTL_ENABLE);
	if (ixgbe_wait_reg(nic, IXGBE_RXDCTL(n), IXGBE_RXDCTL_ENABLE,
			   IXGBE_RXDCTL_ENABLE, 10))
		goto err_timeout;
	/* the tail only once ENABLE reads back 1 (§4.6.7.1) */
	q->tail = IXGBE_RDT(n);
	q->err_frame = IXGBE_RXDADV_ERR_FRAME_ERR_MASK;
	q->err_ipe = IXGBE_RXDADV_ERR_IPE;
	q->err_l4e = IXGBE_RXDADV_ERR_TCPE;
	ixm_wmb();
	wr32(nic, q->tail, q->next_to_use);
	return 0;

err_timeout:
	ixm_dev_err(nic->dev, "ixgbe: RX queue %u: RXDCTL.ENABLE did not read back within 10 ms\n",
		    n);
	return -ETIMEDOUT;
}

static void ixgbe_rxq_stop(struct ixm_nic *nic, struct ixm_rxq *q)
{
	wr32(nic, IXGBE_RXDCTL(q->idx), rd32(nic, IXGBE_RXDCTL(q->idx)) & ~IXGBE_RXDCTL_ENABLE);
	ixgbe_wait_reg(nic, IXGBE_RXDCTL(q->idx), IXGBE_RXDCTL_ENABLE, 0, 10);
}

/* §4.6.8 (transmit initialization) and §4.6.8.1 for one queue */
static int ixgbe_txq_start(struct ixm_nic *nic, struct ixm_txq *q)
{
	unsigned int n = q->idx;

	if (ixgbe_queue_bad(nic, n, "TX"))
		return -EINVAL;
	memset(q->desc, 0, q->count * sizeof(*q->desc));
	q->next_to_use = 0;
	q->next_to_clean = 0;
	ixm_adv_txq_ctx_reset(q);	/* a reset or a new queue forgets its contexts */
	wr32(nic, IXGBE_TXDCTL(n), 0);
	if (ixgbe_wait_reg(nic, IXGBE_TXDCTL(n), IXGBE_TXDCTL_ENABLE, 0, 10))
		goto err_timeout;
	wr32(nic, IXGBE_TDBAL(n), lower_32_bits(q->desc_dma));
	wr32(nic, IXGBE_TDBAH(n), upper_32_bits(q->desc_dma));
	wr32(nic, IXGBE_TDLEN(n), q->count * sizeof(union ixm_adv_tx_desc));
	wr32(nic, IXGBE_TDH(n), 0);
	wr32(nic, IXGBE_TDT(n), 0);
	wr32(nic, IXGBE_TXDCTL(n), IXGBE_TXDCTL_IXM);
	/*
	 * §4.6.8: the transmit DMA as a whole first, then the queue.  MTQC
	 * keeps its default (64 queues, one packet buffer, no DCB or VT),
	 * so the RTTDCS.ARBDIS bracket around changing it is not needed.
	 */
	wr32(nic, IXGBE_DMATXCTL, rd32(nic, IXGBE_DMATXCTL) | IXGBE_DMATXCTL_TE);
	wr32(nic, IXGBE_TXDCTL(n), IXGBE_TXDCTL_IXM | IXGBE_TXDCTL_ENABLE);
	if (ixgbe_wait_reg(nic, IXGBE_TXDCTL(n), IXGBE_TXDCTL_ENABLE,
			   IXGBE_TXDCTL_ENABLE, 10))
		goto err_timeout;
	q->tail = IXGBE_TDT(n);
	/* §7.2.3.2.4: CC makes the queue use the context slot IDX names */
	q->olinfo_ctx = IXGBE_ADVTXD_CC;
	ixgbe_flush(nic);
	return 0;

err_timeout:
	ixm_dev_err(nic->dev, "ixgbe: TX queue %u: TXDCTL.ENABLE did not read back within 10 ms\n",
		    n);
	return -ETIMEDOUT;
}

static void ixgbe_txq_stop(struct ixm_nic *nic, struct ixm_txq *q)
{
	unsigned int n = q->idx;

	/* let the queue drain (head reaches tail), then disable it */
	ixgbe_wait_reg(nic, IXGBE_TDH(n), 0xffff, rd32(nic, IXGBE_TDT(n)) & 0xffff, 10);
	wr32(nic, IXGBE_TXDCTL(n), IXGBE_TXDCTL_SWFLSH);
	ixgbe_wait_reg(nic, IXGBE_TXDCTL(n), IXGBE_TXDCTL_ENABLE, 0, 10);
}

/*
 * §7.1.2.8 RSS: the 40-byte key (RSSRK, key byte 0 the most significant
 * byte of the hash key, in the low byte of RSSRK[0]), the 128-entry table
 * (entry 4n+i in bits 8i+3:8i of RETA[n]: 4 bits, so 16 queues at most),
 * and MRQC: RSS alone, hashing IPv4 and IPv6 each by its TCP or UDP
 * 4-tuple, else by its addresses (§7.1.2.8.1), as the 82576 does, so
 * base/toeplitz.c and the flow-consistent ephemeral ports agree with the
 * chip.  RFCTL.IPV6_EX_DIS keeps the parser from walking IPv6 extension
 * headers: such a packet hashes its addresses, as ixm_toeplitz_frame()
 * and nic/steer.c predict, and the "Ex" hash types stay off.
 */
static int ixgbe_set_rss(struct ixm_nic *nic, const u8 *key, const u8 *reta)
{
	unsigned int i, j;

	for (i = 0; i < 10; i++)
		wr32(nic, IXGBE_RSSRK(i), key[4 * i] | key[4 * i + 1] << 8 |
		     key[4 * i + 2] << 16 | (u32)key[4 * i + 3] << 24);
	for (i = 0; i < IXM_RSS_RETA_SIZE / 4; i++) {
		u32 v = 0;

		for (j = 0; j < 4; j++) {
			u8 e = reta[4 * i + j];

			WARN_ONCE(e >= IXGBE_RSS_QUEUES, "ixgbe: RETA entry %u names queue %u\n",
				  4 * i + j, e);
			v |= (u32)(e & (IXGBE_RSS_QUEUES - 1)) << (8 * j);
		}
		wr32(nic, IXGBE_RETA(i), v);
	}
	wr32(nic, IXGBE_RFCTL, rd32(nic, IXGBE_RFCTL) | IXGBE_RFCTL_IPV6_EX_DIS);
	wr32(nic, IXGBE_MRQC, IXGBE_MRQC_RSSEN | IXGBE_MRQC_RSS_FIELD_IPV4 |
	     IXGBE_MRQC_RSS_FIELD_IPV4_TCP | IXGBE_MRQC_RSS_FIELD_IPV4_UDP |
	     IXGBE_MRQC_RSS_FIELD_IPV6 | IXGBE_MRQC_RSS_FIELD_IPV6_TCP |
	     IXGBE_MRQC_RSS_FIELD_IPV6_UDP);
	ixgbe_flush(nic);
	return 0;
}

/*
 * §4.6.7: RXCTRL.RXEN last, once the queues are enabled.  Linux's
 * ixgbe_enable_rx_dma_82599() halts the security block's receive path
 * around the write (an 82599 erratum: traffic arriving while RXEN is set
 * can hang the RX DMA otherwise), waiting up to 40 ms for SECRX_RDY and
 * going ahead if it never comes; so does this.
 */
static void ixgbe_rx_enable(struct ixm_nic *nic, bool on)
{
	u32 sec = rd32(nic, IXGBE_SECRXCTRL);

	wr32(nic, IXGBE_SECRXCTRL, sec | IXGBE_SECRXCTRL_RX_DIS);
	if (ixgbe_wait_reg(nic, IXGBE_SECRXSTAT, IXGBE_SECRXSTAT_SECRX_RDY,
			   IXGBE_SECRXSTAT_SECRX_RDY, 40))
		ixm_dev_err(nic->dev, "ixgbe: SECRXSTAT.SECRX_RDY not set after 40 ms; switching the receiver anyway\n");
	wr32(nic, IXGBE_RXCTRL, on ? IXGBE_RXCTRL_RXEN : 0);
	wr32(nic, IXGBE_SECRXCTRL, sec & ~IXGBE_SECRXCTRL_RX_DIS);
	ixgbe_flush(nic);
}

/*
 * §8.2.3.5.16 IVAR[n]: RX of queue 2n in bits 7:0, its TX in 15:8, RX of
 * queue 2n+1 in 23:16, its TX in 31:24, each a vector and a valid bit;
 * §8.2.3.5.12 EITR moderates the vector; EIAC clears its cause when it
 * fires; EIMS_EX unmasks it.  ixmod has one vector a queue pair, fewer
 * than 16.
 */
static void ixgbe_irq_enable(struct ixm_nic *nic, unsigned int qidx,
			     unsigned int vector)
{
	u32 reg = IXGBE_IVAR(qidx / 2);
	u32 ent = vector | IXGBE_IVAR_ALLOC_VAL;
	u32 ivar;

	if (WARN_ONCE(qidx >= IXGBE_RSS_QUEUES || vector >= 16,
		      "ixgbe: queue %u on vector %u\n", qidx, vector))
		return;
	ivar = rd32(nic, reg);
	ivar &= ~(0xffffu << IXGBE_IVAR_RX_SHIFT(qidx));
	ivar |= (ent | ent << 8) << IXGBE_IVAR_RX_SHIFT(qidx);
	wr32(nic, reg, ivar);
	wr32(nic, IXGBE_EITR(vector), IXGBE_EITR_IXM | IXGBE_EITR_CNT_WDIS);
	wr32(nic, IXGBE_EIAC, rd32(nic, IXGBE_EIAC) | 1u << vector);
	wr32(nic, IXGBE_EIMS_EX(0), 1u << vector);
}

static void ixgbe_irq_mask(struct ixm_nic *nic, unsigned int vector)
{
	wr32(nic, IXGBE_EIMC_EX(vector / 32), 1u << (vector % 32));
}

/*
 * §8.2.3.23: fold the clear-on-read counters into nic->stats.  The
 * 36-bit octet counters are read low half first (the high half then
 * holds the rest).  RNBC is not counted by the 82599; its per-queue
 * "no descriptor" drops are QPRDC (SRRCTL.DROP_EN is set).
 */
static void ixgbe_read_stats(struct ixm_nic *nic)
{
	struct ixm_nic_stats *s = &nic->stats;
	unsigned int i;
	u64 lo;

	s->rx_packets += rd32(nic, IXGBE_GPRC);
	lo = rd32(nic, IXGBE_GORCL);
	s->rx_bytes += lo | (u64)rd32(nic, IXGBE_GORCH) << 32;
	s->tx_packets += rd32(nic, IXGBE_GPTC);
	lo = rd32(nic, IXGBE_GOTCL);
	s->tx_bytes += lo | (u64)rd32(nic, IXGBE_GOTCH) << 32;
	for (i = 0; i < 8; i++)
		s->rx_missed += rd32(nic, IXGBE_MPC(i));
	for (i = 0; i < IXGBE_RSS_QUEUES; i++)
		s->rx_no_desc += rd32(nic, IXGBE_QPRDC(i));
	s->rx_crc_errors += rd32(nic, IXGBE_CRCERRS);
	s->rx_length_errors += rd32(nic, IXGBE_RLEC) + rd32(nic, IXGBE_RUC) +
			       rd32(nic, IXGBE_ROC);
}

/*
 * The Multicast Table Array: with MCSTCTRL.MO 00b a group frame is taken
 * when the bit that destination address bits 47:36 index in its 4096 bits
 * is set, and MCSTCTRL.MFE turns the filter on (the hash of Linux's
 * ixgbe_mta_vector()).
 */
static void ixgbe_set_mc(struct ixm_nic *nic, const u8 *macs, unsigned int n)
{
	u32 mta[128] = { 0 };
	unsigned int i, h;

	for (i = 0; i < n; i++) {
		h = (macs[i * ETH_ALEN + 4] >> 4 | macs[i * ETH_ALEN + 5] << 4) & 0xfff;
		mta[h >> 5] |= 1u << (h & 31);
	}
	for (i = 0; i < 128; i++)
		wr32(nic, IXGBE_MTA(i), mta[i]);
	wr32(nic, IXGBE_MCSTCTRL, IXGBE_MCSTCTRL_MFE);
	ixgbe_flush(nic);
}

static void ixgbe_shutdown(struct ixm_nic *nic)
{
	/* the reset clears the counters: keep what they held */
	ixgbe_read_stats(nic);
	/* a reset stops every DMA; the stock driver re-initialises anyway */
	if (ixgbe_reset(nic))
		return;
	wr32(nic, IXGBE_CTRL_EXT, rd32(nic, IXGBE_CTRL_EXT) & ~IXGBE_CTRL_EXT_DRV_LOAD);
	ixgbe_flush(nic);
}

/* The hooks under the rings the 82576 and 82599 share (intel_adv.c). */
const struct ixm_adv_chip_ops ixm_ixgbe_chip_ops = {
	.rxq_start	= ixgbe_rxq_start,
	.rxq_stop	= ixgbe_rxq_stop,
	.txq_start	= ixgbe_txq_start,
	.txq_stop	= ixgbe_txq_stop,
	.irq_enable	= ixgbe_irq_enable,
	.irq_mask	= ixgbe_irq_mask,
};

static struct ixm_queue *ixgbe_queue_alloc(struct ixm_nic *nic, unsigned int idx,
					   struct ixm_mbuf_pool *pool, int node)
{
	return ixm_adv_queue_alloc(nic, &ixm_ixgbe_chip_ops, idx, pool, node);
}

const struct ixm_nic_ops ixm_ixgbe_ops = {
	.name		= "ixgbe",
	.reset		= ixgbe_reset,
	.init		= ixgbe_init,
	.link_up	= ixgbe_link_up,
	.set_rss	= ixgbe_set_rss,
	.set_mc		= ixgbe_set_mc,
	.rx_enable	= ixgbe_rx_enable,
	.irq_disable	= ixgbe_irq_disable,
	.shutdown	= ixgbe_shutdown,
	.read_stats	= ixgbe_read_stats,
	.queue_alloc	= ixgbe_queue_alloc,
	.queue_start	= ixm_adv_queue_start,
	.queue_stop	= ixm_adv_queue_stop,
	.queue_free	= ixm_adv_queue_free,
	.tx_csum	= true,
};
