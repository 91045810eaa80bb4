/* SPDX-License-Identifier: GPL-2.0 */
/*
 * igb_regs.h - the 82576 registers ixmod uses (82576 datasheet, ch. 8)
 *
 * PORTABLE.  Offsets are into BAR 0.  Queues 0-3 have their registers at
 * the legacy-compatible offsets, queues 4-15 in the upper block (§8.10,
 * §8.12).
 */
#ifndef _IXM_NIC_IGB_REGS_H
#define _IXM_NIC_IGB_REGS_H

#define IGB_CTRL		0x00000
#define  IGB_CTRL_SLU		0x00000040	/* set link up */
#define  IGB_CTRL_FRCSPD	0x00000800
#define  IGB_CTRL_FRCDPX	0x00001000
#define  IGB_CTRL_RST		0x04000000	/* global reset, self-clearing */
#define IGB_STATUS		0x00008
#define  IGB_STATUS_LU		0x00000002	/* link up */
#define  IGB_STATUS_SPEED_SHIFT	6		/* 00: 10, 01: 100, 1x: 1000 */
#define IGB_EECD		0x00010
#define  IGB_EECD_AUTO_RD	0x00000200	/* NVM auto-read done */
#define IGB_CTRL_EXT		0x00018
#define  IGB_CTRL_EXT_DRV_LOAD	0x10000000	/* a driver owns the device */
#define IGB_MDIC		0x00020		/* §8.2.4: PHY access */
#define  IGB_MDIC_REG_SHIFT	16
#define  IGB_MDIC_PHY_SHIFT	21
#define  IGB_MDIC_OP_WRITE	0x04000000
#define  IGB_MDIC_OP_READ	0x08000000
#define  IGB_MDIC_READY		0x10000000
#define  IGB_MDIC_ERROR		0x40000000
#define IGB_ICR			0x000c0
#define IGB_IMC			0x000d8
#define IGB_RCTL		0x00100
#define  IGB_RCTL_EN		0x00000002
#define  IGB_RCTL_LBM_MAC	0x00000040	/* MAC loopback (tests) */
#define  IGB_RCTL_BAM		0x00008000	/* accept broadcast */
#define  IGB_RCTL_SECRC		0x04000000	/* strip the FCS */
#define IGB_TCTL		0x00400
#define  IGB_TCTL_EN		0x00000002
#define  IGB_TCTL_PSP		0x00000008	/* pad short frames to 64 bytes */
#define  IGB_TCTL_CT(x)		((x) << 4)	/* collision threshold */
#define  IGB_TCTL_COLD(x)	((x) << 12)	/* collision distance */
#define IGB_GPIE		0x01514
#define  IGB_GPIE_NSICR		0x00000001
#define  IGB_GPIE_MSIX_MODE	0x00000010
#define  IGB_GPIE_PBA		0x80000000
#define IGB_EICS		0x01520
#define IGB_EIMS		0x01524
#define IGB_EIMC		0x01528
#define IGB_EIAC		0x0152c
#define IGB_EICR		0x01580
#define IGB_IVAR0		0x01700		/* §8.8.15: 8 registers */
#define  IGB_IVAR_VALID		0x80
#define IGB_RXCSUM		0x05000
#define  IGB_RXCSUM_IPOFL	0x00000100	/* check IPv4 header checksums */
#define  IGB_RXCSUM_TUOFL	0x00000200	/* check TCP/UDP checksums */
#define  IGB_RXCSUM_PCSD	0x00002000	/* RSS hash in place of csum */
#define IGB_MTA(i)		(0x05200 + (i) * 4)	/* 128 registers */
/* the 82576's 24 receive addresses: 0-15 from 0x05400, 16-23 from 0x054e0 */
#define IGB_RAL(i)		((i) < 16 ? 0x05400 + (i) * 8 : 0x054e0 + ((i) - 16) * 8)
#define IGB_RAH(i)		((i) < 16 ? 0x05404 + (i) * 8 : 0x054e4 + ((i) - 16) * 8)
#define  IGB_RAH_AV		0x80000000
#define IGB_MRQC		0x05818
#define  IGB_MRQC_RSS		0x00000002	/* RSS, no VMDq */
#define  IGB_MRQC_FIELD_IPV4_TCP 0x00010000
#define  IGB_MRQC_FIELD_IPV4	0x00020000
#define  IGB_MRQC_FIELD_IPV4_UDP 0x00400000
#define  IGB_MRQC_FIELD_IPV6_TCP_EX 0x00040000	/* TcpIPv6Ex */
#define  IGB_MRQC_FIELD_IPV6	0x00100000
#define  IGB_MRQC_FIELD_IPV6_TCP 0x00200000
#define  IGB_MRQC_FIELD_IPV6_UDP 0x00800000
#define IGB_RFCTL		0x05008		/* receive filter control */
#define  IGB_RFCTL_IPV6_EX_DIS	0x00010000	/* no IPv6 extension header parsing */
#define IGB_RETA(i)		(0x05c00 + (i) * 4)	/* 32 x 4 entries */
#define IGB_RSSRK(i)		(0x05c80 + (i) * 4)	/* 10 x 4 key bytes */

/* per queue, n = 0..15 */
#define IGB_RQ(n, off)		((n) < 4 ? 0x02800 + (n) * 0x100 + (off) : \
					   0x0c000 + (n) * 0x40 + (off))
#define IGB_TQ(n, off)		((n) < 4 ? 0x03800 + (n) * 0x100 + (off) : \
					   0x0e000 + (n) * 0x40 + (off))
#define IGB_RDBAL(n)		IGB_RQ(n, 0x00)
#define IGB_RDBAH(n)		IGB_RQ(n, 0x04)
#define IGB_RDLEN(n)		IGB_RQ(n, 0x08)
#define IGB_SRRCTL(n)		IGB_RQ(n, 0x0c)
#define  IGB_SRRCTL_BSIZEPKT_SHIFT 10		/* packet buffer size in KiB */
#define  IGB_SRRCTL_DESC_ADV_ONEBUF 0x02000000
#define  IGB_SRRCTL_DROP_EN	0x80000000	/* drop when no descriptor */
#define IGB_RDH(n)		IGB_RQ(n, 0x10)
#define IGB_RDT(n)		IGB_RQ(n, 0x18)
#define IGB_RXDCTL(n)		IGB_RQ(n, 0x28)
#define IGB_TDBAL(n)		IGB_TQ(n, 0x00)
#define IGB_TDBAH(n)		IGB_TQ(n, 0x04)
#define IGB_TDLEN(n)		IGB_TQ(n, 0x08)
#define IGB_TDH(n)		IGB_TQ(n, 0x10)
#define IGB_TDT(n)		IGB_TQ(n, 0x18)
#define IGB_TXDCTL(n)		IGB_TQ(n, 0x28)
#define  IGB_XDCTL_ENABLE	0x02000000	/* RXDCTL and TXDCTL */
#define  IGB_XDCTL_THRESH(p, h, w) ((p) | (h) << 8 | (w) << 16)

/*
 * §7.1.5.2 advanced RX write-back, extended errors (Table 7-14): RXE,
 * CXE, SEQ, SE and CE make the frame unusable; IPE and TCPE report the
 * checksums.  The 82599's bits differ (ixgbe_regs.h).
 */
#define IGB_RXDEXT_STATERR_CE	0x01000000
#define IGB_RXDEXT_STATERR_SE	0x02000000
#define IGB_RXDEXT_STATERR_SEQ	0x04000000
#define IGB_RXDEXT_STATERR_CXE	0x10000000
#define IGB_RXDEXT_STATERR_TCPE	0x20000000	/* TCP/UDP checksum wrong */
#define IGB_RXDEXT_STATERR_IPE	0x40000000	/* IPv4 header checksum wrong */
#define IGB_RXDEXT_STATERR_RXE	0x80000000
#define IGB_RXDEXT_ERR_FRAME_ERR_MASK (IGB_RXDEXT_STATERR_CE | IGB_RXDEXT_STATERR_SE | \
				       IGB_RXDEXT_STATERR_SEQ | IGB_RXDEXT_STATERR_CXE | \
				       IGB_RXDEXT_STATERR_RXE)

/* the PHY (IEEE 802.3 clause 22) */
#define IGB_PHY_ADDR		1
#define IGB_PHY_BMCR		0
#define  IGB_BMCR_ANRESTART_1000FD 0x1340	/* AN enable+restart, 1000 FD */

#define IGB_NUM_QUEUES		16
#define IGB_RSS_QUEUES		8	/* RSS without VMDq: 8 queues (§7.1.2.8) */

#endif /* _IXM_NIC_IGB_REGS_H */
