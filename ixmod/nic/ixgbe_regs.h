/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ixgbe_regs.h - the 82599 registers ixmod's queue driver uses
 *
 * PORTABLE.  Written from the Intel 82599 10 GbE Controller Datasheet
 * (chapter 8.2.3, "Detailed Register Descriptions"); offsets are into
 * BAR 0.  Names are the datasheet's mnemonics in the Linux driver's
 * spelling, so that tools/testing/ixmod/regs-crosscheck.py can compare
 * every value here with Linux's ixgbe_type.h by name.
 *
 * Where the 82599 answers at two addresses (RAL/RAH 0-15, SRRCTL 0-15,
 * MRQC, RETA, RSSRK: the 82598-compatible alias and the 82599 one), the
 * macros use the address Linux uses; the datasheet gives both as valid.
 *
 * The advanced descriptor formats the 82599 shares with the 82576 are in
 * intel_adv.h; only the bits that differ are here (the RX error bits and
 * the TX "check context" bit).  Left out on purpose: RNBC, which the
 * 82599 does not count (Linux and DPDK read it on the 82598 only; the
 * 82599's per-queue "no descriptor" drops are QPRDC), DCA and SR-IOV.
 */
#ifndef _IXM_NIC_IXGBE_REGS_H
#define _IXM_NIC_IXGBE_REGS_H

/* §8.2.3.1.1 CTRL, §8.2.3.1.2 STATUS, §8.2.3.1.3 CTRL_EXT */
#define IXGBE_CTRL		0x00000
#define  IXGBE_CTRL_GIO_DIS	0x00000004	/* PCIe master disable */
#define  IXGBE_CTRL_LNK_RST	0x00000008	/* link reset, self-clearing */
#define  IXGBE_CTRL_RST		0x04000000	/* device reset, self-clearing */
#define  IXGBE_CTRL_RST_MASK	(IXGBE_CTRL_LNK_RST | IXGBE_CTRL_RST)
#define IXGBE_STATUS		0x00008
#define  IXGBE_STATUS_LAN_ID	0x0000000c	/* which port of the chip */
#define  IXGBE_STATUS_LAN_ID_SHIFT 2
#define  IXGBE_STATUS_GIO	0x00080000	/* PCIe master enable status */
#define IXGBE_CTRL_EXT		0x00018
#define  IXGBE_CTRL_EXT_NS_DIS	0x00010000	/* no-snoop disable (§4.6.7) */
#define  IXGBE_CTRL_EXT_DRV_LOAD 0x10000000	/* a driver owns the device */

/* §8.2.3.2.1 EEC: the NVM auto-read after reset */
#define IXGBE_EEC		0x10010
#define  IXGBE_EEC_PRES		0x00000100	/* EEPROM present */
#define  IXGBE_EEC_ARD		0x00000200	/* auto-read done */

/*
 * §8.2.3.3 flow control: §8.2.3.3.3 FCRTL[n], §8.2.3.3.4 FCRTH[n] (one per
 * packet buffer, n = 0..7, 4 bytes apart on the 82599; the 82598 spaced
 * them 8 apart, so the macros say _82599, as Linux's do), §8.2.3.3.5
 * FCRTV, §8.2.3.3.7 FCCFG; and §8.2.3.22.34 MFLCN.  ixmod runs with flow
 * control off: FCCFG.TFCE and MFLCN.RFCE clear, FCRTH[n].FCEN and
 * FCRTL[n].XONE clear.
 */
#define IXGBE_FCRTL_82599(n)	(0x03220 + (n) * 4)
#define  IXGBE_FCRTL_XONE	0x80000000	/* send XON */
#define IXGBE_FCRTH_82599(n)	(0x03260 + (n) * 4)
#define  IXGBE_FCRTH_FCEN	0x80000000	/* send XOFF */
#define IXGBE_FCRTV		0x032a0
#define IXGBE_FCCFG		0x03d00
#define  IXGBE_FCCFG_TFCE_802_3X 0x00000008	/* link pause frames */
#define  IXGBE_FCCFG_TFCE_PRIORITY 0x00000010	/* priority pause frames */
#define IXGBE_MFLCN		0x04294
#define  IXGBE_MFLCN_PMCF	0x00000001	/* pass MAC control frames */
#define  IXGBE_MFLCN_DPF	0x00000002	/* discard pause frames */
#define  IXGBE_MFLCN_RPFCE	0x00000004	/* receive priority FC */
#define  IXGBE_MFLCN_RFCE	0x00000008	/* receive link FC */

/*
 * §8.2.3.5 interrupts: §8.2.3.5.1 EICR, §8.2.3.5.3 EIMS, §8.2.3.5.4 EIMC,
 * §8.2.3.5.5 EIAC, §8.2.3.5.8/9 EIMS[n]/EIMC[n] (the upper 64 causes,
 * n = 0..1), §8.2.3.5.12 EITR[n] (n = 0..128: 0..23 low, the rest high),
 * §8.2.3.5.18 GPIE.
 */
#define IXGBE_EICR		0x00800
#define IXGBE_EICS		0x00808
#define IXGBE_EIAC		0x00810
#define IXGBE_EIMS		0x00880
#define IXGBE_EIMC		0x00888
#define IXGBE_EIAM		0x00890
#define  IXGBE_EICR_RTX_QUEUE	0x0000ffff	/* queue causes (non MSI-X) */
#define  IXGBE_EICR_LSC		0x00100000	/* link status change */
#define  IXGBE_EICR_TCP_TIMER	0x40000000
#define  IXGBE_EICR_OTHER	0x80000000	/* "other" causes */
#define IXGBE_EIMS_EX(n)	(0x00aa0 + (n) * 4)
#define IXGBE_EIMC_EX(n)	(0x00ab0 + (n) * 4)
#define IXGBE_EITR(n)		((n) <= 23 ? 0x00820 + (n) * 4 : \
				 0x12300 + ((n) - 24) * 4)
#define  IXGBE_EITR_ITR_INT_MASK 0x00000ff8	/* interval, bits 11:3 */
#define  IXGBE_EITR_CNT_WDIS	0x80000000	/* write without counter reset */
#define IXGBE_GPIE		0x00898
#define  IXGBE_GPIE_MSIX_MODE	0x00000010
#define  IXGBE_GPIE_OCD		0x00000020	/* EICR read clears 16..29 only */
#define  IXGBE_GPIE_EIAME	0x40000000	/* auto-mask on MSI-X */
#define  IXGBE_GPIE_PBA_SUPPORT	0x80000000

/*
 * §8.2.3.5.16 IVAR[n], n = 0..63: four 8-bit entries each, for RX queue
 * 2n (bits 7:0), TX queue 2n (15:8), RX queue 2n+1 (23:16) and TX queue
 * 2n+1 (31:24); an entry is a vector (bits 5:0) and a valid bit (7).  The
 * 82576 packs its IVARs differently (§8.8.15 of its datasheet).  IVAR_MISC
 * (next to IVAR; subsection not confirmed): entry 0 the TCP timer, entry 1
 * the other causes (Linux's and ixy's ixgbe_set_ivar agree).
 */
#define IXGBE_IVAR(n)		(0x00900 + (n) * 4)
#define IXGBE_IVAR_MISC		0x00a00
#define  IXGBE_IVAR_ALLOC_VAL	0x80
#define  IXGBE_IVAR_RX_SHIFT(q)	(((q) & 1) * 16)
#define  IXGBE_IVAR_TX_SHIFT(q)	(((q) & 1) * 16 + 8)
#define  IXGBE_IVAR_MISC_OTHER_SHIFT 8

/*
 * §8.2.3.7 receive filters: §8.2.3.7.1 FCTRL, §8.2.3.7.5 RXCSUM (the
 * 82599 always checks IP and L4 checksums; PCSD puts the RSS hash in the
 * descriptor instead of the fragment checksum), §8.2.3.7.7 MTA[n]
 * (n = 0..127), §8.2.3.7.8/9 RAL[n]/RAH[n] (n = 0..127).
 */
#define IXGBE_FCTRL		0x05080
#define  IXGBE_FCTRL_SBP	0x00000002	/* store bad packets */
#define  IXGBE_FCTRL_MPE	0x00000100	/* multicast promiscuous */
#define  IXGBE_FCTRL_UPE	0x00000200	/* unicast promiscuous */
#define  IXGBE_FCTRL_BAM	0x00000400	/* accept broadcast */
#define IXGBE_RXCSUM		0x05000
#define  IXGBE_RXCSUM_IPPCSE	0x00001000	/* IP payload checksum */
#define  IXGBE_RXCSUM_PCSD	0x00002000	/* RSS hash in place of csum */
#define IXGBE_MTA(n)		(0x05200 + (n) * 4)
#define IXGBE_MCSTCTRL		0x05090	/* multicast control */
#define  IXGBE_MCSTCTRL_MFE	0x00000004	/* MTA filter enable; MO 00b */
#define IXGBE_RAL(n)		((n) <= 15 ? 0x05400 + (n) * 8 : 0x0a200 + (n) * 8)
#define IXGBE_RAH(n)		((n) <= 15 ? 0x05404 + (n) * 8 : 0x0a204 + (n) * 8)
#define  IXGBE_RAH_AV		0x80000000	/* address valid */

/*
 * RSS: §8.2.3.7.12 MRQC, §8.2.3.7.15 RETA[n] (128 one-byte entries in 32
 * registers, n = 0..31), RSSRK[n] (the 40-byte key in 10 registers,
 * n = 0..9; its subsection number is not cited: not confirmed).
 */
#define IXGBE_MRQC		0x05818
#define  IXGBE_MRQC_RSSEN	0x00000001	/* RSS, no DCB or VMDq */
#define  IXGBE_MRQC_RSS_FIELD_IPV4_TCP 0x00010000
#define  IXGBE_MRQC_RSS_FIELD_IPV4 0x00020000
#define  IXGBE_MRQC_RSS_FIELD_IPV4_UDP 0x00400000
#define  IXGBE_MRQC_RSS_FIELD_IPV6 0x00100000
#define  IXGBE_MRQC_RSS_FIELD_IPV6_TCP 0x00200000
#define  IXGBE_MRQC_RSS_FIELD_IPV6_UDP 0x00800000
#define IXGBE_RFCTL		0x05008		/* receive filter control */
#define  IXGBE_RFCTL_IPV6_EX_DIS 0x00010000	/* no IPv6 extension header parsing */
#define IXGBE_RETA(n)		(0x05c00 + (n) * 4)
#define IXGBE_RSSRK(n)		(0x05c80 + (n) * 4)

/*
 * §8.2.3.8 receive DMA, per queue n = 0..127 (0..63 low, 64..127 high):
 * §8.2.3.8.1 RDBAL, .2 RDBAH, .3 RDLEN, .4 RDH, .5 RDT, .6 RXDCTL,
 * .7 SRRCTL (queues 0..15 also at the 82598 address, used here), then the
 * global §8.2.3.8.8 RDRXCTL and §8.2.3.8.10 RXCTRL.  §4.6.7: RXDCTL.ENABLE
 * is polled until it reads 1 before RDT is written, and RXCTRL.RXEN is
 * set last, with the security block halted (§8.2.3.12.5 SECRXCTRL.RX_DIS,
 * then §8.2.3.12.6 SECRXSTAT.SECRX_RDY).
 */
#define IXGBE_RXQ(n, off)	((n) < 64 ? 0x01000 + (n) * 0x40 + (off) : \
				 0x0d000 + ((n) - 64) * 0x40 + (off))
#define IXGBE_RDBAL(n)		IXGBE_RXQ(n, 0x00)
#define IXGBE_RDBAH(n)		IXGBE_RXQ(n, 0x04)
#define IXGBE_RDLEN(n)		IXGBE_RXQ(n, 0x08)
#define IXGBE_RDH(n)		IXGBE_RXQ(n, 0x10)
#define IXGBE_RDT(n)		IXGBE_RXQ(n, 0x18)
#define IXGBE_RXDCTL(n)		IXGBE_RXQ(n, 0x28)
#define  IXGBE_RXDCTL_ENABLE	0x02000000
#define IXGBE_SRRCTL(n)		((n) <= 15 ? 0x02100 + (n) * 4 : IXGBE_RXQ(n, 0x14))
#define  IXGBE_SRRCTL_BSIZEPKT_SHIFT 10		/* the field is in KiB */
#define  IXGBE_SRRCTL_BSIZEHDR_MASK 0x00003f00	/* in 64-byte units */
#define  IXGBE_SRRCTL_BSIZEHDR_SHIFT 8
#define  IXGBE_SRRCTL_DESCTYPE_ADV_ONEBUF 0x02000000
#define  IXGBE_SRRCTL_DESCTYPE_MASK 0x0e000000
#define  IXGBE_SRRCTL_DROP_EN	0x10000000	/* drop when no descriptor */
#define IXGBE_RDRXCTL		0x02f00
#define  IXGBE_RDRXCTL_CRCSTRIP	0x00000002	/* must equal HLREG0.RXCRCSTRP */
#define  IXGBE_RDRXCTL_DMAIDONE	0x00000008	/* DMA init done after reset */
#define  IXGBE_RDRXCTL_RSCFRSTSIZE 0x003e0000	/* software clears it */
#define  IXGBE_RDRXCTL_RSCACKC	0x02000000	/* software sets it */
#define  IXGBE_RDRXCTL_FCOE_WRFIX 0x04000000	/* software sets it */
#define IXGBE_RXCTRL		0x03000
#define  IXGBE_RXCTRL_RXEN	0x00000001
#define IXGBE_SECRXCTRL		0x08d00
#define  IXGBE_SECRXCTRL_RX_DIS	0x00000002
#define IXGBE_SECRXSTAT		0x08d04
#define  IXGBE_SECRXSTAT_SECRX_RDY 0x00000001

/*
 * §8.2.3.9 transmit, per queue n = 0..127: §8.2.3.9.5 TDBAL, .6 TDBAH,
 * .7 TDLEN, .8 TDH, .9 TDT, .10 TXDCTL (thresholds PTHRESH 6:0, HTHRESH
 * 14:8, WTHRESH 22:16); global §8.2.3.9.2 DMATXCTL.  §4.6.8: DMATXCTL.TE
 * first, then each queue's TXDCTL.ENABLE, polled until it reads 1.  The
 * §8.2.3.10.2 RTTDCS.ARBDIS bit brackets the TX buffer setup.
 */
#define IXGBE_TXQ(n, off)	(0x06000 + (n) * 0x40 + (off))
#define IXGBE_TDBAL(n)		IXGBE_TXQ(n, 0x00)
#define IXGBE_TDBAH(n)		IXGBE_TXQ(n, 0x04)
#define IXGBE_TDLEN(n)		IXGBE_TXQ(n, 0x08)
#define IXGBE_TDH(n)		IXGBE_TXQ(n, 0x10)
#define IXGBE_TDT(n)		IXGBE_TXQ(n, 0x18)
#define IXGBE_TXDCTL(n)		IXGBE_TXQ(n, 0x28)
#define  IXGBE_TXDCTL_PTHRESH_SHIFT 0
#define  IXGBE_TXDCTL_HTHRESH_SHIFT 8
#define  IXGBE_TXDCTL_WTHRESH_SHIFT 16
#define  IXGBE_TXDCTL_ENABLE	0x02000000
#define  IXGBE_TXDCTL_SWFLSH	0x04000000	/* flush write-backs */
#define IXGBE_DMATXCTL		0x04a80
#define  IXGBE_DMATXCTL_TE	0x00000001	/* transmit enable */
#define IXGBE_RTTDCS		0x04900
#define  IXGBE_RTTDCS_ARBDIS	0x00000040

/*
 * §8.2.3.22 MAC: §8.2.3.22.8 HLREG0, §8.2.3.22.19 AUTOC (LMS: the link
 * mode, §4.6.4), §8.2.3.22.20 LINKS, and AUTOC2 (its 10G serial PMA/PMD
 * field picks SFI or KR when LMS is 10G serial).
 */
#define IXGBE_HLREG0		0x04240
#define  IXGBE_HLREG0_TXCRCEN	0x00000001	/* append the FCS */
#define  IXGBE_HLREG0_RXCRCSTRP	0x00000002	/* strip the FCS */
#define  IXGBE_HLREG0_JUMBOEN	0x00000004
#define  IXGBE_HLREG0_TXPADEN	0x00000400	/* pad short frames */
#define  IXGBE_HLREG0_LPBK	0x00008000	/* MAC loopback */
#define IXGBE_AUTOC		0x042a0
#define  IXGBE_AUTOC_FLU	0x00000001	/* force link up */
#define  IXGBE_AUTOC_10G_PMA_PMD_MASK 0x00000180
#define  IXGBE_AUTOC_10G_PMA_PMD_SHIFT 7
#define  IXGBE_AUTOC_10G_XAUI	(0u << IXGBE_AUTOC_10G_PMA_PMD_SHIFT)
#define  IXGBE_AUTOC_10G_KX4	(1u << IXGBE_AUTOC_10G_PMA_PMD_SHIFT)
#define  IXGBE_AUTOC_AN_RESTART	0x00001000
#define  IXGBE_AUTOC_LMS_SHIFT	13
#define  IXGBE_AUTOC_LMS_MASK	(0x7 << IXGBE_AUTOC_LMS_SHIFT)
#define  IXGBE_AUTOC_LMS_1G_LINK_NO_AN (0x0 << IXGBE_AUTOC_LMS_SHIFT)
#define  IXGBE_AUTOC_LMS_10G_LINK_NO_AN (0x1 << IXGBE_AUTOC_LMS_SHIFT) /* KX4/XAUI */
#define  IXGBE_AUTOC_LMS_1G_AN	(0x2 << IXGBE_AUTOC_LMS_SHIFT)
#define  IXGBE_AUTOC_LMS_10G_SERIAL (0x3 << IXGBE_AUTOC_LMS_SHIFT) /* SFI or KR */
#define  IXGBE_AUTOC_LMS_KX4_KX_KR (0x4 << IXGBE_AUTOC_LMS_SHIFT) /* backplane AN */
#define  IXGBE_AUTOC_LMS_KX4_KX_KR_1G_AN (0x6 << IXGBE_AUTOC_LMS_SHIFT)
#define  IXGBE_AUTOC_KR_SUPP	0x00010000
#define  IXGBE_AUTOC_KX_SUPP	0x40000000
#define  IXGBE_AUTOC_KX4_SUPP	0x80000000
#define IXGBE_AUTOC2		0x042a8
#define  IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_MASK 0x00030000
#define  IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_SHIFT 16
#define  IXGBE_AUTOC2_10G_KR	(0u << IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_SHIFT)
#define  IXGBE_AUTOC2_10G_SFI	(2u << IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_SHIFT)
#define IXGBE_LINKS		0x042a4
#define  IXGBE_LINKS_UP		0x40000000
#define  IXGBE_LINKS_SPEED_82599 0x30000000	/* speed field */
#define  IXGBE_LINKS_SPEED_10G_82599 0x30000000
#define  IXGBE_LINKS_SPEED_1G_82599 0x20000000
#define  IXGBE_LINKS_SPEED_100_82599 0x10000000

/*
 * §8.2.3.23 statistics, all clear-on-read; the 64-bit octet counters are
 * read low then high (reading the high half clears both).  MPC[n] is per
 * packet buffer (n = 0..7); QPRC/QPTC/QPRDC[n] (n = 0..15) count the
 * queues that §8.2.3.23.71 RQSMR[n] and §8.2.3.23.73 TQSM[n] (n = 0..31,
 * four queues a register) map to counter n, which a reset clears.
 * §8.2.3.23.26 GPRC, §8.2.3.23.75 QPRDC.
 */
#define IXGBE_CRCERRS		0x04000
#define IXGBE_ILLERRC		0x04004
#define IXGBE_ERRBC		0x04008
#define IXGBE_MPC(n)		(0x03fa0 + (n) * 4)
#define IXGBE_RLEC		0x04040
#define IXGBE_GPRC		0x04074
#define IXGBE_GPTC		0x04080
#define IXGBE_GORCL		0x04088
#define IXGBE_GORCH		0x0408c
#define IXGBE_GOTCL		0x04090
#define IXGBE_GOTCH		0x04094
#define IXGBE_RUC		0x040a4
#define IXGBE_ROC		0x040ac
#define IXGBE_TPR		0x040d0
#define IXGBE_TPT		0x040d4
#define IXGBE_QPRC(n)		(0x01030 + (n) * 0x40)
#define IXGBE_QPTC(n)		(0x06030 + (n) * 0x40)
#define IXGBE_QPRDC(n)		(0x01430 + (n) * 0x40)
#define IXGBE_RQSMR(n)		(0x02300 + (n) * 4)
#define IXGBE_TQSM(n)		(0x08600 + (n) * 4)

/*
 * §7.1.6 advanced RX write-back: the 82599's error bits are not the
 * 82576's (intel_adv.h's IXM_ADV_RXD_ERR_* are the 82576's: there bit 30
 * is the IP checksum error, here the L4 one).  §7.2.3.2 advanced TX
 * data descriptor: CC in olinfo_status makes the queue use the context
 * slot IDX names (the 82576 has no such bit).
 */
#define IXGBE_RXDADV_ERR_CE	0x01000000	/* CRC error */
#define IXGBE_RXDADV_ERR_LE	0x02000000	/* length error */
#define IXGBE_RXDADV_ERR_PE	0x08000000	/* packet error */
#define IXGBE_RXDADV_ERR_OSE	0x10000000	/* oversize */
#define IXGBE_RXDADV_ERR_USE	0x20000000	/* undersize */
#define IXGBE_RXDADV_ERR_TCPE	0x40000000	/* TCP/UDP checksum wrong */
#define IXGBE_RXDADV_ERR_IPE	0x80000000	/* IPv4 header checksum wrong */
#define IXGBE_RXDADV_ERR_FRAME_ERR_MASK (IXGBE_RXDADV_ERR_CE | IXGBE_RXDADV_ERR_LE | \
					 IXGBE_RXDADV_ERR_PE | IXGBE_RXDADV_ERR_OSE | \
					 IXGBE_RXDADV_ERR_USE)
#define IXGBE_ADVTXD_CC		0x00000080	/* check context */

/*
 * §1.3: 128 RX and 128 TX queues a port.  RSS alone spreads over 16 of
 * them (Linux's IXGBE_MAX_RSS_INDICES), and MSI-X has
 * 64 vectors (Linux's IXGBE_MAX_MSIX_VECTORS_82599).
 */
#define IXGBE_NUM_QUEUES	128
#define IXGBE_RSS_QUEUES	16
#define IXGBE_NUM_MSIX		64

#endif /* _IXM_NIC_IXGBE_REGS_H */
