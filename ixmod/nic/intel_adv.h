/* SPDX-License-Identifier: GPL-2.0 */
/*
 * intel_adv.h - the advanced RX and TX descriptors of the 82576 and 82599
 *
 * PORTABLE.  Both chips use the same 16-byte formats (82576 datasheet
 * §7.1.5 and §7.2.2.3; 82599 datasheet §7.1.6 and §7.2.3.2): the driver
 * writes the "read" layout, the device writes back the "wb" layout in
 * place.  All fields are little-endian.
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
 * written again, so a queue writes each one once (DPDK's igb and ixgbe
 * drivers cache them the same way).
 */
struct ixm_adv_tx_ctx_desc {
	__le32	vlan_macip_lens;
	__le32	seqnum_seed;
	__le32	type_tucmd_mlhl;
	__le32	mss_l4len_idx;
};

#define IXM_ADV_TXD_DTYP_CTXT	0x00200000	/* advanced context descriptor */
#define IXM_ADV_TXD_MACLEN_SHIFT 9
#define IXM_ADV_TXD_TUCMD_IPV4	0x00000400	/* IPv4 (type_tucmd_mlhl) */
#define IXM_ADV_TXD_TUCMD_L4T_UDP 0x00000000	/* UDP */
#define IXM_ADV_TXD_TUCMD_L4T_TCP 0x00000800	/* TCP */

#endif /* _IXM_NIC_INTEL_ADV_H */
