// SPDX-License-Identifier: GPL-2.0
/*
 * ixgbe.c - the 82599 ops (nic/ixgbe.c) and the shared advanced-descriptor
 * rings (nic/intel_adv.c) against the 82599 register model
 * (model/ixgbe_model.c)
 *
 * The model enforces the datasheet's bring-up rules; every test that
 * expects success also expects ixgbem_violations() == 0 afterwards.
 * Frames go through the rings both ways, with the 82599's own checksum
 * and RSS write-back (whose error bits differ from the 82576's), and
 * every buffer must be back in its pool at the end.  Register offsets
 * below are written again from the datasheet, not taken from the
 * driver's header.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ixgbe_model.h"
#include "intel_adv.h"
#include "net.h"
#include "toeplitz.h"
#include "testnet.h"
#include "harness.h"

#define NQ	4
#define RING	16
#define NBUF	256

/* 82599 datasheet §8.2.3, for the test's own checks */
#define R_CTRL_EXT	0x00018
#define R_EITR(n)	(0x00820 + (n) * 4)
#define R_IVAR(n)	(0x00900 + (n) * 4)
#define R_GPIE		0x00898
#define R_RDRXCTL	0x02f00
#define R_RXCTRL	0x03000
#define R_FCCFG		0x03d00
#define R_HLREG0	0x04240
#define R_MFLCN		0x04294
#define R_AUTOC		0x042a0
#define R_AUTOC2	0x042a8
#define R_DMATXCTL	0x04a80
#define R_FCTRL		0x05080
#define R_RETA(n)	(0x0eb00 + (n) * 4)
#define R_RSSRK(n)	(0x0eb80 + (n) * 4)
#define R_MRQC		0x0ec80
#define R_RFCTL		0x05008

static const u8 station[6] = { 0x52, 0x54, 0x00, 0x82, 0x59, 0x10 };

struct rig {
	struct ixm_nic		nic;
	struct ixm_mbuf_pool	pool;
	struct ixm_mbuf		mbufs[NBUF];
	struct ixm_mbuf		*free[NBUF];
	struct ixm_rxq		rxq[NQ];
	struct ixm_txq		txq[NQ];
	union ixm_adv_rx_desc	*rxd[NQ];
	union ixm_adv_tx_desc	*txd[NQ];
	struct ixm_mbuf		*rslot[NQ][RING];
	struct ixm_tx_slot	tslot[NQ][RING];
	unsigned int		nq;
};

static const struct ixm_nic_ops *ops = &ixm_ixgbe_ops;
static const struct ixm_adv_chip_ops *chip = &ixm_ixgbe_chip_ops;

static void rig_init(struct rig *r, unsigned int nq, u16 device)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->nq = nq;
	r->nic.ops = ops;
	r->nic.max_queues = nq;
	r->nic.device_id = device;
	for (i = 0; i < NBUF; i++) {
		r->mbufs[i].buf = aligned_alloc(64, IXM_MBUF_SIZE);
		r->mbufs[i].dma = (dma_addr_t)(uintptr_t)r->mbufs[i].buf;
	}
	ixm_mbuf_pool_init(&r->pool, r->mbufs, r->free, NBUF);
	for (i = 0; i < NQ; i++) {
		r->rxd[i] = aligned_alloc(128, RING * sizeof(*r->rxd[i]));
		r->txd[i] = aligned_alloc(128, RING * sizeof(*r->txd[i]));
		r->rxq[i] = (struct ixm_rxq){ .nic = &r->nic, .idx = i, .count = RING,
					      .desc = r->rxd[i],
					      .desc_dma = (uintptr_t)r->rxd[i],
					      .slot = r->rslot[i], .pool = &r->pool };
		r->txq[i] = (struct ixm_txq){ .nic = &r->nic, .idx = i, .count = RING,
					      .desc = r->txd[i],
					      .desc_dma = (uintptr_t)r->txd[i],
					      .slot = r->tslot[i] };
	}
}

static void rig_free(struct rig *r)
{
	unsigned int i;

	for (i = 0; i < NBUF; i++)
		free(r->mbufs[i].buf);
	for (i = 0; i < NQ; i++) {
		free(r->rxd[i]);
		free(r->txd[i]);
	}
}

/* Every ring's buffers back in the pool (the queues are stopped). */
static void rig_release(struct rig *r)
{
	unsigned int i;

	for (i = 0; i < r->nq; i++) {
		ixm_adv_rxq_release(&r->rxq[i]);
		ixm_adv_txq_release(&r->txq[i]);
	}
}

/* The port's bring-up (port.c): reset, init, queues, RSS, RX on. */
static int rig_start(struct rig *r)
{
	u8 reta[IXM_RSS_RETA_SIZE];
	unsigned int i;
	int err;

	err = ops->reset(&r->nic);
	if (!err)
		err = ops->init(&r->nic);
	for (i = 0; !err && i < r->nq; i++) {
		err = ixm_adv_rxq_fill(&r->rxq[i]);
		if (!err)
			err = chip->rxq_start(&r->nic, &r->rxq[i]);
		if (!err)
			err = chip->txq_start(&r->nic, &r->txq[i]);
	}
	if (err)
		return err;
	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		reta[i] = ixm_rss_queue(i, r->nq);
	ops->set_rss(&r->nic, ixm_rss_key_symmetric, reta);
	ops->rx_enable(&r->nic, true);
	return 0;
}

static int rig_up(struct rig *r)
{
	ixgbem_power_on(station);
	ixgbem.rx_queues = ixgbem.tx_queues = r->nq;
	return rig_start(r);
}

/* ---- frames: model_frames.h, to station[] ---- */

#include "model_frames.h"

#define IP4(a, b, c, d)	((u32)(a) << 24 | (b) << 16 | (c) << 8 | (d))

/* Take what queue @q has, free it; how many frames. */
static unsigned int drain(struct rig *r, unsigned int q)
{
	struct ixm_mbuf *out[RING];
	unsigned int n, i, total = 0;

	while ((n = ixm_adv_rx_burst(&r->rxq[q], out, RING))) {
		for (i = 0; i < n; i++)
			ixm_mbuf_free(out[i]);
		total += n;
		ixm_adv_rx_refill(&r->rxq[q]);
	}
	ixm_adv_rx_refill(&r->rxq[q]);
	return total;
}

/* ---- bring-up ---- */

TEST(ixgbe_bringup)
{
	struct rig r;
	u32 mbps = 0;
	unsigned int q;
	bool ok = true;

	rig_init(&r, NQ, 0x10fb);
	ASSERT_EQ(0, rig_up(&r)) TH_LOG("reset, init, %u queue pairs, RSS, RX on", NQ);
	EXPECT_EQ(0, ixgbem_violations()) {
		TH_LOG("no datasheet rule broken (last: %s)",
		       ixgbem.last_violation ? ixgbem.last_violation : "none");
	}
	EXPECT_EQ(0, memcmp(r.nic.mac, station, 6)) TH_LOG("MAC from RAL0/RAH0 after EEC.ARD");
	EXPECT_TRUE(ixgbem_reg(R_CTRL_EXT) & 0x10000000) TH_LOG("CTRL_EXT.DRV_LOAD");
	EXPECT_EQ(0x400, ixgbem_reg(R_FCTRL)) TH_LOG("FCTRL: broadcast, nothing promiscuous");
	EXPECT_EQ(0, ixgbem_reg(R_FCCFG) & 0x18) TH_LOG("FCCFG: no pause frames sent");
	EXPECT_EQ(0x2, ixgbem_reg(R_MFLCN) & 0xf) {
		TH_LOG("MFLCN: pause frames discarded (DPF), not honoured (RFCE/RPFCE clear)");
	}
	EXPECT_EQ(0x403, ixgbem_reg(R_HLREG0) & 0x8407) {
		TH_LOG("HLREG0: TXCRCEN, RXCRCSTRP, TXPADEN; no jumbo, no loopback");
	}
	EXPECT_TRUE(ixgbem_reg(R_RDRXCTL) & 0x2) TH_LOG("RDRXCTL.CRCSTRIP matches HLREG0");
	EXPECT_TRUE(ixgbem_reg(R_GPIE) & 0x10) TH_LOG("GPIE: MSI-X mode");
	EXPECT_EQ(3u << 13, ixgbem_reg(R_AUTOC) & (7u << 13)) TH_LOG("SFP+: AUTOC.LMS 10G serial");
	EXPECT_EQ(2u << 16, ixgbem_reg(R_AUTOC2) & (3u << 16)) TH_LOG("SFP+: AUTOC2 SFI");
	EXPECT_TRUE(ixgbem_reg(R_RXCTRL) & 1) TH_LOG("RXCTRL.RXEN");
	EXPECT_TRUE(ixgbem_reg(R_DMATXCTL) & 1) TH_LOG("DMATXCTL.TE");
	for (q = 0; q < NQ; q++) {
		u32 rb = ixgbem_rxq_off(q), tb = ixgbem_txq_off(q);

		ok &= ixgbem_reg(rb) == (u32)(uintptr_t)r.rxd[q];
		ok &= ixgbem_reg(rb + 0x04) == (u32)((uintptr_t)r.rxd[q] >> 32);
		ok &= ixgbem_reg(rb + 0x08) == RING * 16;
		ok &= ixgbem_reg(rb + 0x14) == 0x12000002;
		ok &= ixgbem_reg(rb + 0x18) == RING - 1;
		ok &= ixgbem_reg(tb) == (u32)(uintptr_t)r.txd[q];
		ok &= ixgbem_reg(tb + 0x08) == RING * 16;
		ok &= (ixgbem_reg(tb + 0x28) & 0x7f7f7f) == 0x010120;
	}
	EXPECT_TRUE(ok) {
		TH_LOG("per queue: RDBAL/RDBAH/RDLEN, SRRCTL = 2 KiB adv. one-buffer DROP_EN,");
		TH_LOG("RDT = ring - 1; TDBAL/TDLEN; TXDCTL thresholds 32/1/1");
	}
	EXPECT_FALSE(ixgbem.tail_before_enable) TH_LOG("no tail before ENABLE read back");

	EXPECT_FALSE(ops->link_up(&r.nic, &mbps)) TH_LOG("link still training after bring-up");
	ixm_host_delay_us(200000);
	ASSERT_TRUE(ops->link_up(&r.nic, &mbps));
	EXPECT_EQ(10000, mbps) TH_LOG("LINKS: up at 10 Gb/s later");
	EXPECT_EQ(0, ixgbem_violations());
	for (q = 0; q < NQ; q++) {
		chip->rxq_stop(&r.nic, &r.rxq[q]);
		chip->txq_stop(&r.nic, &r.txq[q]);
	}
	rig_release(&r);
	EXPECT_EQ(NBUF, r.pool.nfree) TH_LOG("every buffer back after stop and release");
	ops->shutdown(&r.nic);
	EXPECT_FALSE(ixgbem_reg(R_CTRL_EXT) & 0x10000000) TH_LOG("shutdown: DRV_LOAD cleared");
	EXPECT_EQ(0, ixgbem_violations());
	EXPECT_EQ(0, ixm_host_warnings);
	rig_free(&r);

	/* the backplane parts negotiate KX4/KX/KR */
	rig_init(&r, 1, 0x1517);
	ASSERT_EQ(0, rig_up(&r));
	EXPECT_EQ(4u << 13, ixgbem_reg(R_AUTOC) & (7u << 13));
	EXPECT_TRUE(ixgbem_reg(R_AUTOC) & 0x10000) TH_LOG("KR: LMS KX4/KX/KR AN, KR supported");
	EXPECT_EQ(0, ixgbem_violations());
	rig_release(&r);
	rig_free(&r);
}

/* ---- receive: the 82599's write-back decoded ---- */

TEST(ixgbe_rx_csum_rss)
{
	static const u8 reta0[IXM_RSS_RETA_SIZE];
	const u32 sa = IP4(198, 18, 0, 1), da = IP4(198, 18, 0, 2);
	struct ixm_mbuf *out[8];
	u8 f[4][1600];
	unsigned int len[4], n, i;
	struct rig r;
	u32 want;

	rig_init(&r, 1, 0x10fb);
	ASSERT_EQ(0, rig_up(&r));
	ixm_host_delay_us(200000);			/* link up */
	ops->set_rss(&r.nic, ixm_rss_key_symmetric, reta0);
	len[0] = mkframe(f[0], 6, sa, da, 40000, 80, 1000, true);	/* good TCP */
	len[1] = mkframe(f[1], 6, sa, da, 40001, 80, 10, true);
	f[1][14 + 10] ^= 0x55;				/* bad IPv4 header sum */
	len[2] = mkframe(f[2], 6, sa, da, 40002, 80, 10, true);
	f[2][14 + 20 + 16] ^= 0x55;			/* bad TCP sum */
	len[3] = mkframe(f[3], 17, sa, da, 5000, 53, 30, true);	/* good UDP */
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, ixgbem_rx(f[i], len[i])) TH_LOG("frame %u to queue 0", i);
	n = ixm_adv_rx_burst(&r.rxq[0], out, 8);
	ASSERT_EQ(4, n) TH_LOG("all four frames delivered: no checksum error is a frame error");
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(len[i], out[i]->len);
		EXPECT_EQ(0, memcmp(out[i]->data, f[i], len[i])) TH_LOG("frame %u intact", i);
	}
	EXPECT_EQ(IXM_MBUF_F_IP_CSUM_OK | IXM_MBUF_F_L4_CSUM_OK,
		  out[0]->flags & ~IXM_MBUF_F_RSS) TH_LOG("good: IP and L4 OK");
	EXPECT_EQ(IXM_MBUF_F_IP_CSUM_BAD, out[1]->flags & IXM_MBUF_F_IP_CSUM_BAD) {
		TH_LOG("bad IP header: IP_CSUM_BAD (82599 IPE, bit 31)");
	}
	EXPECT_FALSE(out[1]->flags & IXM_MBUF_F_IP_CSUM_OK);
	EXPECT_EQ(IXM_MBUF_F_IP_CSUM_OK | IXM_MBUF_F_L4_CSUM_BAD,
		  out[2]->flags & ~IXM_MBUF_F_RSS) {
		TH_LOG("bad TCP sum: L4_CSUM_BAD (82599 TCPE, bit 30), IP still OK");
	}
	EXPECT_EQ(IXM_MBUF_F_IP_CSUM_OK | IXM_MBUF_F_L4_CSUM_OK,
		  out[3]->flags & ~IXM_MBUF_F_RSS) TH_LOG("good UDP: IP and L4 OK");
	want = ixm_toeplitz_ipv4_l4(ixm_rss_key_symmetric, ixm_htonl(sa), ixm_htonl(da),
				    ixm_htons(40000), ixm_htons(80));
	ASSERT_TRUE(out[0]->flags & IXM_MBUF_F_RSS);
	EXPECT_EQ(want, out[0]->rss_hash) TH_LOG("TCP: the RSS hash is base/toeplitz.c's");
	want = ixm_toeplitz_ipv4_l4(ixm_rss_key_symmetric, ixm_htonl(sa), ixm_htonl(da),
				    ixm_htons(5000), ixm_htons(53));
	ASSERT_TRUE(out[3]->flags & IXM_MBUF_F_RSS);
	EXPECT_EQ(want, out[3]->rss_hash) TH_LOG("UDP: hashed with its ports too");
	EXPECT_EQ(4, r.rxq[0].csum_hw);
	EXPECT_EQ(0, r.rxq[0].errors);
	for (i = 0; i < n; i++)
		ixm_mbuf_free(out[i]);
	ixm_adv_rx_refill(&r.rxq[0]);

	/* a frame error (82599 CE, bit 24) drops the frame */
	ASSERT_EQ(0, ixgbem_rx(f[0], len[0]));
	r.rxd[0][r.rxq[0].next_to_clean].wb.status_error |= cpu_to_le32(0x01000000);
	ASSERT_EQ(0, ixgbem_rx(f[3], len[3]));
	n = ixm_adv_rx_burst(&r.rxq[0], out, 8);
	ASSERT_EQ(1, n) TH_LOG("the CRC-errored frame dropped, the next delivered");
	EXPECT_EQ(len[3], out[0]->len);
	EXPECT_EQ(1, r.rxq[0].errors);
	ixm_mbuf_free(out[0]);
	EXPECT_EQ(0, ixgbem_violations());
	chip->rxq_stop(&r.nic, &r.rxq[0]);
	chip->txq_stop(&r.nic, &r.txq[0]);
	rig_release(&r);
	EXPECT_EQ(NBUF, r.pool.nfree);
	rig_free(&r);
}

TEST(ixgbe_rss_spread)
{
	u8 reta[IXM_RSS_RETA_SIZE];
	unsigned int i, q, per[NQ] = { 0 }, wrong = 0, least;
	bool ok = true;
	struct rig r;
	u8 f[256];

	rig_init(&r, NQ, 0x10fb);
	ASSERT_EQ(0, rig_up(&r));
	ixm_host_delay_us(200000);
	for (i = 0; i < 10; i++) {
		const u8 *k = ixm_rss_key_symmetric + 4 * i;

		ok &= ixgbem_reg(R_RSSRK(i)) == (k[0] | k[1] << 8 | k[2] << 16 | (u32)k[3] << 24);
	}
	EXPECT_TRUE(ok) TH_LOG("RSSRK: key byte 0 in the low byte of RSSRK[0]");
	ok = true;
	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		ok &= ((ixgbem_reg(R_RETA(i / 4)) >> (8 * (i % 4))) & 0xf) == i % NQ;
	EXPECT_TRUE(ok) TH_LOG("RETA: entry 4n+i in bits 8i+3:8i of RETA[n]");
	EXPECT_EQ(0x00f30001, ixgbem_reg(R_MRQC)) {
		TH_LOG("MRQC: RSS; IPv4, IPv4/TCP, IPv4/UDP, IPv6, IPv6/TCP, IPv6/UDP");
	}
	EXPECT_TRUE(ixgbem_reg(R_RFCTL) & 0x10000) TH_LOG("RFCTL.IPV6_EX_DIS");

	for (i = 0; i < 400; i++) {
		u32 sa = IP4(198, 18, 1, i & 0xff), da = IP4(198, 19, 0, 7);
		u16 sp = 1024 + i * 37, dp = 80;
		unsigned int len = mkframe(f, 6, sa, da, sp, dp, 20, true);
		u32 h = ixm_toeplitz_ipv4_l4(ixm_rss_key_symmetric, ixm_htonl(sa),
					     ixm_htonl(da), ixm_htons(sp), ixm_htons(dp));
		int got = ixgbem_rx(f, len);

		if (got < 0 || got != ixm_rss_queue(h, NQ)) {
			if (wrong++ < IXM_DIAG_MAX)
				ixm_diag("flow %u: queue %d, net/ expects %u", i, got,
					 ixm_rss_queue(h, NQ));
			continue;
		}
		per[got]++;
		if (!drain(&r, got))
			wrong++;
	}
	EXPECT_EQ(0, wrong) TH_LOG("every flow on the queue ixm_rss_queue() predicts");
	for (q = 1, least = per[0]; q < NQ; q++)
		least = per[q] < least ? per[q] : least;
	EXPECT_GE(least, 50) {
		TH_LOG("each queue gets 50 of 400 flows or more: %u %u %u %u",
		       per[0], per[1], per[2], per[3]);
	}

	/* a table that sends everything to queue 2 */
	memset(reta, 2, sizeof(reta));
	ops->set_rss(&r.nic, ixm_rss_key_symmetric, reta);
	wrong = 0;
	for (i = 0; i < 50; i++) {
		unsigned int len = mkframe(f, 17, IP4(198, 18, 2, i), IP4(198, 18, 3, 1),
					   3000 + i, 53, 8, true);

		wrong += ixgbem_rx(f, len) != 2;
		drain(&r, 2);
	}
	EXPECT_EQ(0, wrong) TH_LOG("RETA all 2: every flow on queue 2");
	EXPECT_EQ(0, ixgbem_violations());
	for (q = 0; q < NQ; q++) {
		chip->rxq_stop(&r.nic, &r.rxq[q]);
		chip->txq_stop(&r.nic, &r.txq[q]);
	}
	rig_release(&r);
	EXPECT_EQ(NBUF, r.pool.nfree);
	EXPECT_EQ(0, ixm_host_warnings);
	rig_free(&r);
}

/* The one frame on queue @q: its RSS hash (and whether it had one), freed. */
static bool take_hash(struct rig *r, unsigned int q, u32 *hash)
{
	struct ixm_mbuf *out[2];
	bool ok;

	if (ixm_adv_rx_burst(&r->rxq[q], out, 2) != 1)
		return false;
	ok = out[0]->flags & IXM_MBUF_F_RSS;
	*hash = out[0]->rss_hash;
	ixm_mbuf_free(out[0]);
	ixm_adv_rx_refill(&r->rxq[q]);
	return ok;
}

/*
 * IPv6 flows spread over the queues as base/toeplitz.c predicts: the
 * 4-tuple of TCP and UDP right after the fixed header, the addresses when
 * an extension header comes first (RFCTL.IPV6_EX_DIS) or for a fragment;
 * and ixm_toeplitz_frame(), the software port's choice, agrees on each.
 */
TEST(ixgbe_rss_ipv6)
{
	static const u8 exts[] = { 0, 44, 60 };	/* hop-by-hop, fragment, dest. options */
	unsigned int i, q, per[NQ] = { 0 }, wrong = 0, least;
	u8 sa[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	u8 da[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 7 };
	struct rig r;
	u8 f[256];

	rig_init(&r, NQ, 0x10fb);
	ASSERT_EQ(0, rig_up(&r));
	ixm_host_delay_us(200000);
	for (i = 0; i < 400; i++) {
		u8 proto = i & 1 ? 17 : 6;
		u16 sp = 1024 + i * 37, dp = proto == 6 ? 80 : 53;
		unsigned int len;
		u32 h, got = 0, fh = 0;
		int qi;

		sa[14] = i >> 8;
		sa[15] = i;
		len = mkframe6(f, proto, sa, da, sp, dp, 20, 0xff);
		h = ixm_toeplitz_ipv6_l4(ixm_rss_key_symmetric, sa, da, ixm_htons(sp),
					 ixm_htons(dp));
		qi = ixgbem_rx(f, len);
		if (qi < 0 || qi != ixm_rss_queue(h, NQ) || !take_hash(&r, qi, &got) ||
		    got != h || !ixm_toeplitz_frame(ixm_rss_key_symmetric, f, len, &fh) ||
		    fh != h) {
			if (wrong++ < IXM_DIAG_MAX)
				ixm_diag(
					"flow %u: queue %d hash 0x%08x, net/ expects %u 0x%08x, frame 0x%08x",
					 i, qi, got, ixm_rss_queue(h, NQ), h, fh);
			drain(&r, qi < 0 ? 0 : qi);
			continue;
		}
		per[qi]++;
	}
	EXPECT_EQ(0, wrong) TH_LOG("every IPv6 flow on the queue its 4-tuple's hash names");
	for (q = 1, least = per[0]; q < NQ; q++)
		least = per[q] < least ? per[q] : least;
	EXPECT_GE(least, 50) {
		TH_LOG("each queue gets 50 of 400 IPv6 flows or more: %u %u %u %u",
		       per[0], per[1], per[2], per[3]);
	}

	/* an extension header first: the addresses, whatever the ports */
	wrong = 0;
	for (i = 0; i < 3 * 40; i++) {
		unsigned int len;
		u32 h, got = 0, fh = 0;
		int qi;

		sa[15] = i;
		len = mkframe6(f, i & 1 ? 17 : 6, sa, da, 2000 + i, 80, 10, exts[i % 3]);
		h = ixm_toeplitz_ipv6(ixm_rss_key_symmetric, sa, da);
		qi = ixgbem_rx(f, len);
		if (qi < 0 || qi != ixm_rss_queue(h, NQ) || !take_hash(&r, qi, &got) ||
		    got != h || !ixm_toeplitz_frame(ixm_rss_key_symmetric, f, len, &fh) ||
		    fh != h) {
			if (wrong++ < IXM_DIAG_MAX)
				ixm_diag(
					"ext %u frame %u: queue %d hash 0x%08x, expected %u 0x%08x",
					 exts[i % 3], i, qi, got, ixm_rss_queue(h, NQ), h);
			drain(&r, qi < 0 ? 0 : qi);
		}
	}
	EXPECT_EQ(0, wrong) TH_LOG("hop-by-hop, fragment, dest. options: the addresses' hash");
	EXPECT_EQ(0, ixgbem_violations());
	for (q = 0; q < NQ; q++) {
		chip->rxq_stop(&r.nic, &r.rxq[q]);
		chip->txq_stop(&r.nic, &r.txq[q]);
	}
	rig_release(&r);
	EXPECT_EQ(NBUF, r.pool.nfree);
	rig_free(&r);
}

/* ---- transmit with checksum offload ---- */

struct sink {
	unsigned int	n;
	unsigned int	len[16];
	u8		f[16][1600];
};

static void sink_fn(const u8 *f, unsigned int len, void *arg)
{
	struct sink *s = arg;

	if (s->n < 16) {
		s->len[s->n] = len;
		memcpy(s->f[s->n], f, len < 1600 ? len : 1600);
	}
	s->n++;
}

/* A frame as ixmod's protocols leave it for the NIC (mbuf.h). */
static struct ixm_mbuf *offload_frame(struct rig *r, u8 proto, u16 sp, unsigned int plen)
{
	struct ixm_mbuf *m = ixm_mbuf_alloc(&r->pool);
	u8 *ip, *l4;

	m->len = mkframe(m->data, proto, IP4(198, 18, 0, 1), IP4(198, 18, 0, 2), sp, 80,
			 plen, false);
	ip = m->data + 14;
	l4 = ip + 20;
	be16put(l4 + (proto == 6 ? 16 : 6), csum(NULL, 0, pseudo(ip)));
	m->flags = proto == 6 ? IXM_MBUF_F_TX_TCP_CSUM : IXM_MBUF_F_TX_UDP_CSUM;
	return m;
}

TEST(ixgbe_tx_csum)
{
	struct ixm_mbuf *m[4];
	struct sink s = { 0 };
	unsigned int i, bad = 0;
	struct rig r;
	u32 ol;

	rig_init(&r, 2, 0x10fb);
	ASSERT_EQ(0, rig_up(&r));
	ixm_host_delay_us(200000);
	m[0] = offload_frame(&r, 6, 1000, 100);
	m[1] = offload_frame(&r, 17, 1001, 33);
	m[2] = offload_frame(&r, 6, 1002, 1400);
	m[3] = ixm_mbuf_alloc(&r.pool);
	m[3]->len = mkframe(m[3]->data, 17, 1, 2, 3, 4, 5, true);
	EXPECT_EQ(4, ixm_adv_tx_burst(&r.txq[1], m, 4)) {
		TH_LOG("4 frames, 2 contexts: 6 descriptors");
	}
	EXPECT_EQ(0x00200000u, le32_to_cpu(r.txd[1][0].read.cmd_type_len) & 0x00f00000) {
		TH_LOG("a context descriptor loads slot 0 first");
	}
	ol = le32_to_cpu(r.txd[1][1].read.olinfo_status);
	EXPECT_EQ(0x80u | 0x300, ol & 0x3f0) {
		TH_LOG("data descriptor olinfo: CC (82599), IXSM, TXSM, IDX 0");
	}
	EXPECT_EQ(4, ixgbem_tx(1, sink_fn, &s)) TH_LOG("the model sends all four");
	for (i = 0; i < 3; i++) {
		u8 *ip = s.f[i] + 14, *l4 = ip + 20;
		unsigned int l4len = s.len[i] - 34;

		if (csum(ip, 20, 0) != 0xffff || csum(l4, l4len, pseudo(ip)) != 0xffff) {
			bad++;
			ixm_diag("frame %u: checksums not inserted right", i);
		}
	}
	EXPECT_EQ(0, bad) TH_LOG("IPv4, TCP and UDP checksums inserted by the device");
	EXPECT_EQ(3, r.txq[1].csum_hw);
	EXPECT_EQ(6, ixm_adv_tx_reap(&r.txq[1])) TH_LOG("all 6 descriptors reaped");
	EXPECT_EQ(0, ixgbem_violations()) {
		TH_LOG("no context or PAYLEN rule broken (last: %s)",
		       ixgbem.last_violation ? ixgbem.last_violation : "none");
	}
	chip->txq_stop(&r.nic, &r.txq[1]);
	chip->rxq_stop(&r.nic, &r.rxq[1]);
	rig_release(&r);
	EXPECT_EQ(NBUF, r.pool.nfree);
	rig_free(&r);
}

/*
 * IPv4 and IPv6, TCP and UDP, on one queue: the first eight frames each
 * want a kind of context neither slot holds (v4 TCP, v6 TCP, v6 UDP, v4
 * UDP, ...), so each is preceded by a context descriptor; then TCP over
 * both families alternates, which two loads settle for good.  Every
 * frame must leave the model byte for byte as it should, its checksums
 * verifying by ref.h: a context of the wrong family (one not reloaded)
 * makes the 82599 sum and store at the wrong offsets.  Each context
 * descriptor must say what the datasheet's table asks for the frame
 * after it (§7.2.3.2.3): IPLEN 20 or 40, TUCMD.IPV4 set only for IPv4,
 * L4T; and a data descriptor IXSM only over IPv4.
 */
static const unsigned int csum6_kinds[] = {
	0, OFF_V6, OFF_V6 | OFF_UDP, OFF_UDP, 0, OFF_V6 | OFF_UDP, OFF_V6, OFF_UDP,
	0, OFF_V6, 0, OFF_V6, 0, OFF_V6,
};
#define CSUM6_CTX	10	/* context descriptors the sequence needs */

/* Check the descriptors of one frame from @i; return its first data one's index. */
static unsigned int csum6_descs(const union ixm_adv_tx_desc *d, unsigned int i,
				unsigned int kind, unsigned int *ctx, unsigned int *bad)
{
	u32 cmd = le32_to_cpu(d[i].read.cmd_type_len), ol;

	if ((cmd & 0x00f00000) == 0x00200000) {
		const struct ixm_adv_tx_ctx_desc *c = (const void *)&d[i];
		u32 lens = le32_to_cpu(c->vlan_macip_lens), tucmd = le32_to_cpu(c->type_tucmd_mlhl);
		bool v6 = kind & OFF_V6;

		if ((lens & 0x1ff) != (v6 ? 40u : 20u) || ((lens >> 9) & 0x7f) != 14 ||
		    !!(tucmd & (1u << 10)) == v6 ||
		    ((tucmd >> 11) & 3) != ((kind & OFF_UDP) ? 0u : 1u) ||
		    ((le32_to_cpu(c->mss_l4len_idx) >> 4) & 7) > 1) {
			ixm_diag("kind %u: context lens 0x%x tucmd 0x%x", kind, lens, tucmd);
			(*bad)++;
		}
		(*ctx)++;
		i = (i + 1) % RING;
	}
	ol = le32_to_cpu(d[i].read.olinfo_status);
	if (!(ol & 0x200) || !!(ol & 0x100) != !(kind & OFF_V6)) {
		ixm_diag("kind %u: olinfo 0x%x: TXSM, IXSM over IPv4 only", kind, ol);
		(*bad)++;
	}
	return i;
}

TEST(ixgbe_tx_csum6)
{
	const unsigned int n = ARRAY_SIZE(csum6_kinds);
	unsigned int k, j, got = 0, bad = 0, ctx = 0, ctx0;
	static u8 want[ARRAY_SIZE(csum6_kinds)][1600];
	unsigned int wlen[ARRAY_SIZE(csum6_kinds)];
	struct ixm_txq *q;
	struct rig r;

	rig_init(&r, 2, 0x10fb);
	ASSERT_EQ(0, rig_up(&r));
	ixm_host_delay_us(200000);
	q = &r.txq[1];
	ctx0 = ixgbem.tx_ctx_descs;
	/* bursts of up to 4 frames (a 16-entry ring), each sent and reaped */
	for (k = 0; k < n; k += 4) {
		struct ixm_mbuf *m[4];
		struct sink s = { 0 };
		unsigned int b = n - k < 4 ? n - k : 4, i = q->next_to_use;

		for (j = 0; j < b; j++) {
			m[j] = ixm_mbuf_alloc(&r.pool);
			m[j]->len = mkframe_offload(m[j]->data, want[k + j], &m[j]->flags,
						    csum6_kinds[k + j], 1000 + k + j,
						    10 + (k + j) * 37);
			wlen[k + j] = m[j]->len;
		}
		ASSERT_EQ(b, ixm_adv_tx_burst(q, m, b));
		for (j = 0; j < b; j++)
			i = (csum6_descs(r.txd[1], i, csum6_kinds[k + j], &ctx, &bad) + 1) % RING;
		EXPECT_EQ(q->next_to_use, i) TH_LOG("frames %u-: one data descriptor each", k);
		EXPECT_EQ(b, ixgbem_tx(1, sink_fn, &s));
		for (j = 0; j < b && j < s.n; j++, got++) {
			if (!offload_frame_ok(s.f[j], s.len[j], want[k + j], wlen[k + j])) {
				bad++;
				ixm_diag("frame %u (kind %u): not as it should leave", k + j,
					 csum6_kinds[k + j]);
			}
		}
		ixm_adv_tx_reap(q);
	}
	EXPECT_EQ(n, got) TH_LOG("the model sent every frame");
	EXPECT_EQ(0, bad) TH_LOG("checksums right on the wire; contexts as the datasheet says");
	EXPECT_EQ(CSUM6_CTX, ctx) TH_LOG("a context descriptor for each change, none after");
	EXPECT_EQ(CSUM6_CTX, ixgbem.tx_ctx_descs - ctx0) TH_LOG("the model read as many");
	EXPECT_EQ(n, q->csum_hw) TH_LOG("each counted in tx_csum_hw");
	EXPECT_EQ(0, ixgbem_violations()) {
		TH_LOG("no context rule broken (last: %s)",
		       ixgbem.last_violation ? ixgbem.last_violation : "none");
	}
	/*
	 * a restarted queue (every frame reaped: nothing to release) forgets
	 * its contexts as the device does: the next frame loads one
	 */
	chip->txq_stop(&r.nic, q);
	ASSERT_EQ(0, chip->txq_start(&r.nic, q));
	ctx0 = ixgbem.tx_ctx_descs;
	{
		struct ixm_mbuf *m = ixm_mbuf_alloc(&r.pool);
		struct sink s = { 0 };

		m->len = mkframe_offload(m->data, want[0], &m->flags, OFF_V6, 7, 100);
		ASSERT_EQ(1, ixm_adv_tx_burst(q, &m, 1));
		EXPECT_EQ(1, ixgbem_tx(1, sink_fn, &s));
		EXPECT_EQ(1, ixgbem.tx_ctx_descs - ctx0) TH_LOG("restart: the context reloaded");
		EXPECT_TRUE(s.n == 1 && offload_frame_ok(s.f[0], s.len[0], want[0], m->len));
		ixm_adv_tx_reap(q);
	}
	chip->txq_stop(&r.nic, q);
	chip->rxq_stop(&r.nic, &r.rxq[1]);
	rig_release(&r);
	EXPECT_EQ(NBUF, r.pool.nfree);
	rig_free(&r);
}

/* ---- interrupts ---- */

TEST(ixgbe_ivar_routing)
{
	struct rig r;
	u8 f[128];
	unsigned int len;

	rig_init(&r, NQ, 0x10fb);
	ASSERT_EQ(0, rig_up(&r));
	ixm_host_delay_us(200000);
	chip->irq_enable(&r.nic, 0, 0);
	chip->irq_enable(&r.nic, 1, 1);
	chip->irq_enable(&r.nic, 3, 2);
	EXPECT_EQ(0x81818080, ixgbem_reg(R_IVAR(0))) {
		TH_LOG("IVAR[0]: RX0 7:0, TX0 15:8 -> 0; RX1 23:16, TX1 31:24 -> 1; valid bits");
	}
	EXPECT_EQ(0x82820000, ixgbem_reg(R_IVAR(1))) TH_LOG("IVAR[1]: queue 3 (odd) -> vector 2");
	ASSERT_TRUE(ixgbem_irq_routed(3, false, 2));
	EXPECT_TRUE(ixgbem_irq_routed(3, true, 2)) TH_LOG("queue 3 RX and TX on vector 2");
	EXPECT_FALSE(ixgbem_irq_routed(2, false, 2)) TH_LOG("queue 2 not routed");
	EXPECT_EQ(0x80000050, ixgbem_reg(R_EITR(2))) TH_LOG("EITR: 20 us moderation");
	len = mkframe(f, 17, 1, 2, 3, 4, 10, true);
	ASSERT_EQ(3, ixgbem_rx_to(3, f, len));
	EXPECT_EQ(1, ixgbem.irqs[2]) TH_LOG("a frame on queue 3 raises vector 2");
	chip->irq_mask(&r.nic, 2);
	EXPECT_FALSE(ixgbem_irq_routed(3, false, 2));
	EXPECT_TRUE(ixgbem_irq_routed(1, false, 1)) TH_LOG("irq_mask masks its vector only");
	ASSERT_EQ(3, ixgbem_rx_to(3, f, len));
	EXPECT_EQ(1, ixgbem.irqs[2]) TH_LOG("masked: no message");
	ops->irq_disable(&r.nic);
	EXPECT_EQ(0, ixgbem.eims) TH_LOG("irq_disable masks every vector");
	EXPECT_EQ(0, ixgbem_violations());
	EXPECT_EQ(0, ixm_host_warnings);
	drain(&r, 3);
	rig_release(&r);
	rig_free(&r);
}

/* ---- statistics ---- */

TEST(ixgbe_stats)
{
	struct ixm_nic_stats *st;
	struct ixm_mbuf *m[3];
	struct sink s = { 0 };
	unsigned int i, len;
	struct rig r;
	u8 f[256];

	rig_init(&r, 1, 0x10fb);
	ASSERT_EQ(0, rig_up(&r));
	st = &r.nic.stats;
	ixm_host_delay_us(200000);
	len = mkframe(f, 17, 1, 2, 3, 4, 100, true);
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, ixgbem_rx(f, len));
	ixgbem_rx_bad_crc(f, len);
	for (i = 0; i < 3; i++) {
		m[i] = ixm_mbuf_alloc(&r.pool);
		m[i]->len = 60 + i;
		memset(m[i]->data, i, m[i]->len);
	}
	ASSERT_EQ(3, ixm_adv_tx_burst(&r.txq[0], m, 3));
	ASSERT_EQ(3, ixgbem_tx(0, sink_fn, &s));
	ops->read_stats(&r.nic);
	EXPECT_EQ(5, st->rx_packets);
	EXPECT_EQ(5 * (len + 4), st->rx_bytes) TH_LOG("GPRC, GORCL/H (FCS counted)");
	EXPECT_EQ(3, st->tx_packets);
	EXPECT_EQ(60 + 61 + 62 + 12, st->tx_bytes) TH_LOG("GPTC, GOTCL/H");
	EXPECT_EQ(1, st->rx_crc_errors) TH_LOG("CRCERRS");
	ops->read_stats(&r.nic);
	EXPECT_EQ(5, st->rx_packets);
	EXPECT_EQ(3, st->tx_packets) TH_LOG("clear on read: a second read adds nothing");

	/* the ring holds 10 more (15 posted); the rest find no descriptor */
	for (i = 0; i < 14; i++)
		ixgbem_rx(f, len);
	ops->read_stats(&r.nic);
	EXPECT_EQ(15, st->rx_packets);
	EXPECT_EQ(4, st->rx_no_desc) TH_LOG("QPRDC: dropped for want of a descriptor");
	EXPECT_EQ(15, drain(&r, 0));

	/* shutdown resets the chip, which clears the counters: kept */
	ASSERT_EQ(0, ixgbem_rx(f, len));
	drain(&r, 0);
	chip->rxq_stop(&r.nic, &r.rxq[0]);
	ixm_adv_tx_reap(&r.txq[0]);
	chip->txq_stop(&r.nic, &r.txq[0]);
	ops->shutdown(&r.nic);
	EXPECT_EQ(16, st->rx_packets) TH_LOG("shutdown folds the counters before its reset");
	EXPECT_EQ(0, ixgbem_violations());
	rig_release(&r);
	EXPECT_EQ(NBUF, r.pool.nfree);
	rig_free(&r);
}

/* ---- link ---- */

TEST(ixgbe_link)
{
	struct rig r;
	u32 mbps = 0;

	rig_init(&r, 1, 0x10fb);
	ASSERT_EQ(0, rig_up(&r));
	ixm_host_delay_us(200000);
	ASSERT_TRUE(ops->link_up(&r.nic, &mbps));
	ixgbem_link_down();
	EXPECT_FALSE(ops->link_up(&r.nic, &mbps)) TH_LOG("cable out: LINKS.UP clear at once");
	ixgbem.link_speed = 1000;
	ixgbem_link_up();
	EXPECT_FALSE(ops->link_up(&r.nic, &mbps)) TH_LOG("cable in: still training");
	ixm_host_delay_us(200000);
	ASSERT_TRUE(ops->link_up(&r.nic, &mbps));
	EXPECT_EQ(1000, mbps) TH_LOG("up again, at the speed LINKS reports");
	EXPECT_TRUE(ops->link_up(&r.nic, NULL)) TH_LOG("speed pointer optional");
	EXPECT_EQ(0, ixgbem_violations());
	rig_release(&r);
	rig_free(&r);
}

/* ---- reset with traffic in flight ---- */

TEST(ixgbe_reset_in_flight)
{
	struct ixm_mbuf *m[8];
	struct sink s = { 0 };
	unsigned int i, q, len;
	struct rig r;
	u8 f[256];

	rig_init(&r, 2, 0x10fb);
	ASSERT_EQ(0, rig_up(&r));
	ixm_host_delay_us(200000);
	len = mkframe(f, 6, 1, 2, 3, 4, 50, true);
	for (i = 0; i < 6; i++)
		ixgbem_rx_to(i & 1, f, len);		/* received, not taken */
	for (i = 0; i < 8; i++) {
		m[i] = ixm_mbuf_alloc(&r.pool);
		m[i]->len = 60;
	}
	ASSERT_EQ(4, ixm_adv_tx_burst(&r.txq[0], m, 4));	/* queued, not sent */
	ASSERT_EQ(4, ixm_adv_tx_burst(&r.txq[1], m + 4, 4));
	ASSERT_EQ(4, ixgbem_tx(1, sink_fn, &s));		/* sent, not reaped */

	/* the device is reset under the rings, as a second up would */
	for (q = 0; q < 2; q++) {
		chip->rxq_stop(&r.nic, &r.rxq[q]);
		chip->txq_stop(&r.nic, &r.txq[q]);
	}
	ASSERT_EQ(0, ops->reset(&r.nic));
	rig_release(&r);
	EXPECT_EQ(NBUF, r.pool.nfree) TH_LOG("every buffer back: none leaked by the reset");
	ASSERT_EQ(0, rig_start(&r)) TH_LOG("a second bring-up after the reset");
	EXPECT_EQ(0, ixgbem_violations()) {
		TH_LOG("second bring-up keeps the rules (last: %s)",
		       ixgbem.last_violation ? ixgbem.last_violation : "none");
	}
	ixm_host_delay_us(200000);
	ASSERT_EQ(1, ixgbem_rx_to(1, f, len));
	EXPECT_EQ(1, drain(&r, 1)) TH_LOG("traffic flows again");
	for (q = 0; q < 2; q++) {
		chip->rxq_stop(&r.nic, &r.rxq[q]);
		chip->txq_stop(&r.nic, &r.txq[q]);
	}
	rig_release(&r);
	EXPECT_EQ(NBUF, r.pool.nfree);
	rig_free(&r);
}

/* ---- every bad input gives its error ---- */

/* Whether the last dmesg line says @what; if not, the line is shown. */
static bool logged(const char *what)
{
	if (strstr(ixm_host_last_dev_err, what))
		return true;
	fprintf(stderr, "# no \"%s\" in the last dmesg line: %s\n", what,
		ixm_host_last_dev_err);
	return false;
}

TEST(ixgbe_errors)
{
	struct rig r;
	unsigned int logs;

	/* more queues than RSS spreads over */
	rig_init(&r, 1, 0x10fb);
	r.nic.max_queues = 17;
	ixgbem_power_on(station);
	ASSERT_EQ(0, ops->reset(&r.nic));
	EXPECT_EQ(-EINVAL, ops->init(&r.nic)) TH_LOG("17 queue pairs: -EINVAL");
	EXPECT_TRUE(logged("RSS spreads over 16"));
	r.nic.max_queues = 16;
	ASSERT_EQ(0, ops->init(&r.nic));
	r.rxq[0].idx = 16;
	r.txq[0].idx = 16;
	EXPECT_EQ(-EINVAL, chip->rxq_start(&r.nic, &r.rxq[0])) TH_LOG("RX queue 16: -EINVAL");
	EXPECT_EQ(-EINVAL, chip->txq_start(&r.nic, &r.txq[0])) TH_LOG("TX queue 16: -EINVAL");
	EXPECT_TRUE(logged("TX queue 16"));
	r.rxq[0].idx = 0;
	r.txq[0].idx = 0;
	EXPECT_EQ(0, ixgbem_violations()) TH_LOG("no queue register written for them");
	rig_free(&r);

	/* a reset that never completes, each of its three waits */
	rig_init(&r, 1, 0x10fb);
	ixgbem.rst_stuck = true;
	ixgbem_power_on(station);
	EXPECT_EQ(-ETIMEDOUT, ops->reset(&r.nic)) TH_LOG("CTRL.RST never clears: -ETIMEDOUT");
	EXPECT_TRUE(logged("CTRL.RST"));
	logs = ixm_host_dev_errs;
	ops->shutdown(&r.nic);
	EXPECT_EQ(logs + 1, ixm_host_dev_errs) TH_LOG("shutdown of a stuck chip: one line");
	EXPECT_EQ(0, ixgbem_violations()) TH_LOG("nothing written while the reset runs");
	ixgbem.rst_stuck = false;
	ixgbem.ard_stuck = true;
	ixgbem_power_on(station);
	EXPECT_EQ(-ETIMEDOUT, ops->reset(&r.nic));
	EXPECT_TRUE(logged("EEC.ARD"));
	ixgbem.ard_stuck = false;
	ixgbem.dmaidone_stuck = true;
	ixgbem_power_on(station);
	EXPECT_EQ(-ETIMEDOUT, ops->reset(&r.nic));
	EXPECT_TRUE(logged("DMAIDONE"));
	ixgbem.dmaidone_stuck = false;

	/* queue ENABLE that never latches */
	ixgbem.enable_stuck = true;
	ixgbem_power_on(station);
	ixgbem.rx_queues = ixgbem.tx_queues = 1;
	ASSERT_EQ(0, ops->reset(&r.nic));
	ASSERT_EQ(0, ops->init(&r.nic));
	ASSERT_EQ(0, ixm_adv_rxq_fill(&r.rxq[0]));
	EXPECT_EQ(-ETIMEDOUT, chip->rxq_start(&r.nic, &r.rxq[0])) {
		TH_LOG("RXDCTL.ENABLE never reads 1: -ETIMEDOUT");
	}
	EXPECT_TRUE(logged("RXDCTL.ENABLE"));
	EXPECT_EQ(-ETIMEDOUT, chip->txq_start(&r.nic, &r.txq[0]));
	EXPECT_TRUE(logged("TXDCTL.ENABLE"));
	EXPECT_EQ(0, ixgbem.tail_writes);
	EXPECT_FALSE(ixgbem.tail_before_enable) TH_LOG("no descriptors given to a dead queue");
	EXPECT_EQ(0, ixgbem_violations());
	ixgbem.enable_stuck = false;
	ixm_adv_rxq_release(&r.rxq[0]);

	/* a security block that never reports drained: RXEN set anyway, one line */
	ixgbem.secrx_stuck = true;
	logs = ixm_host_dev_errs;
	ops->rx_enable(&r.nic, true);
	EXPECT_EQ(logs + 1, ixm_host_dev_errs) TH_LOG("one line for the stuck SECRX_RDY");
	EXPECT_TRUE(logged("SECRX_RDY"));
	EXPECT_TRUE(ixgbem_reg(R_RXCTRL) & 1) TH_LOG("the receiver is on regardless");
	ixgbem.secrx_stuck = false;
	EXPECT_EQ(NBUF, r.pool.nfree) TH_LOG("a queue that never started keeps no buffer");

	/* an EEPROM without a usable address */
	{
		static const u8 mcast[6] = { 0x01, 0, 0x5e, 0, 0, 1 };
		static const u8 zero[6];

		ixgbem_power_on(mcast);
		ASSERT_EQ(0, ops->reset(&r.nic));
		EXPECT_EQ(-EADDRNOTAVAIL, ops->init(&r.nic)) TH_LOG("multicast MAC refused");
		ixgbem_power_on(zero);
		ASSERT_EQ(0, ops->reset(&r.nic));
		EXPECT_EQ(-EADDRNOTAVAIL, ops->init(&r.nic)) TH_LOG("all-zero MAC refused");
	}
	rig_free(&r);
}

/* ---- the dataplane loop over a modelled 82599 ---- */

#define PEER_IP		IP4(198, 18, 0, 2)
#define PEER_PORT	40000
#define PEER_ISS	1000u

static const u8 peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };	/* mkframe's source */

static u32 be32get(const u8 *p)
{
	return (u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/* A TCP segment from the peer to the host's port 80, checksums right. */
static unsigned int peer_seg(u8 *f, u8 flags, u32 seq, u32 ack, const char *data)
{
	unsigned int plen = data ? strlen(data) : 0;
	unsigned int len = mkframe(f, 6, PEER_IP, TN_IP(1), PEER_PORT, 80, plen, false);
	u8 *ip = f + 14, *th = ip + 20;

	be32put(th + 4, seq);
	be32put(th + 8, ack);
	th[13] = flags;
	be16put(th + 14, 65535);
	if (data)
		memcpy(th + 20, data, plen);
	be16put(ip + 10, ~csum(ip, 20, 0));
	be16put(th + 16, ~csum(th, 20 + plen, pseudo(ip)));
	return len;
}

/*
 * The host's one queue pair is a modelled 82599's, made and started as
 * port.c makes them: through the chip's queue_alloc and queue_start.
 */
struct loop_rig {
	struct ixm_nic		nic;
	struct tn_host		*h;
	struct tn_app		*a;
	struct ixm_queue	*q;
	struct sink		out;
};

static bool loop_rig_up(struct loop_rig *r)
{
	static const u8 reta0[IXM_RSS_RETA_SIZE];
	struct tn_host_cfg hc = {
		.ip = TN_IP(1), .mac = station, .seed = 9, .offload = true,
	};

	memset(r, 0, sizeof(*r));
	ixm_host_now_ns = 1000000000ULL;
	r->h = tn_host_new(&hc);
	r->a = tn_app_new(r->h, 64, 64, 65536);
	tn_learn(r->h, PEER_IP, peer_mac);
	r->nic = (struct ixm_nic){ .ops = ops, .max_queues = 1, .device_id = 0x10fb };
	ixgbem_power_on(station);
	ixgbem.rx_queues = ixgbem.tx_queues = 1;
	if (ops->reset(&r->nic) || ops->init(&r->nic))
		return false;
	r->q = ops->queue_alloc(&r->nic, 0, &r->h->pool, 0);
	if (!r->q || ops->queue_start(&r->nic, r->q))
		return false;
	tn_host_nic(r->h, r->q, NULL, NULL);
	ops->set_rss(&r->nic, ixm_rss_key_symmetric, reta0);
	ops->rx_enable(&r->nic, true);
	ixm_host_delay_us(200000);
	return ops->link_up(&r->nic, NULL);
}

/* One loop iteration, then what the device sends, in r->out. */
static unsigned int loop_step(struct loop_rig *r)
{
	r->out.n = 0;
	tn_host_run(r->h);
	ixm_host_now_ns += 100000;
	return ixgbem_tx(0, sink_fn, &r->out);
}

/* An event of @type from the context, skipping none. */
static bool loop_event(struct loop_rig *r, u8 type, struct ixmod_event *ev)
{
	return tn_app_event(r->a, ev) && ev->type == type;
}

/* The frame the device sent: valid IPv4 and TCP checksums, our ports. */
static bool tcp_out_ok(const u8 *f, unsigned int len)
{
	const u8 *ip = f + 14, *th = ip + 20;

	return len >= 54 && f[12] == 0x08 && f[13] == 0 && ip[9] == 6 &&
	       csum(ip, 20, 0) == 0xffff &&
	       csum(th, (ip[2] << 8 | ip[3]) - 20, pseudo(ip)) == 0xffff &&
	       (th[0] << 8 | th[1]) == 80 && (th[2] << 8 | th[3]) == PEER_PORT;
}

TEST(ixgbe_loop_tcp)
{
	static const char hello[] = "hello over a modelled 82599";
	struct ixm_queue_stats qs;
	struct ixm_adv_queue *q;
	struct ixmod_event ev;
	u64 held;
	struct ixmod_call c;
	struct loop_rig r;
	u32 hiss, hseq;
	const u8 *th, *got;
	u64 ch;
	u8 f[256];

	ASSERT_TRUE(loop_rig_up(&r)) TH_LOG("a tn_host whose queue is a modelled 82599's");
	q = ixm_adv_q(r.q);
	EXPECT_EQ(512, q->rx.count) TH_LOG("queue_alloc: port.c's ring size");
	EXPECT_EQ(511, r.h->pool.count - r.h->pool.nfree) TH_LOG("the receive ring filled");
	EXPECT_EQ(-1, q->q.vector) TH_LOG("no interrupt vector until the port gives one");
	c = tn_call_listen(80, 4, 0x11);
	ASSERT_EQ(0, tn_app_call(r.a, &c, &ev)) TH_LOG("listen on port 80");

	ASSERT_EQ(0, ixgbem_rx(f, peer_seg(f, 0x02, PEER_ISS, 0, NULL)));	/* SYN */
	ASSERT_EQ(1, loop_step(&r)) TH_LOG("the SYN in through RX, a SYN-ACK out through TX");
	th = r.out.f[0] + 34;
	EXPECT_TRUE(tcp_out_ok(r.out.f[0], r.out.len[0])) {
		TH_LOG("SYN-ACK: IPv4 and TCP checksums inserted by the device");
	}
	ASSERT_EQ(0x12, th[13]) TH_LOG("SYN|ACK");
	ASSERT_EQ(PEER_ISS + 1, be32get(th + 8)) TH_LOG("acknowledges the SYN");
	hiss = be32get(th + 4);
	EXPECT_EQ(1, q->rx.csum_hw) TH_LOG("the SYN's checksums checked by the device");
	EXPECT_EQ(1, q->tx.csum_hw) TH_LOG("the SYN-ACK's inserted by it");

	ASSERT_EQ(0, ixgbem_rx(f, peer_seg(f, 0x10, PEER_ISS + 1, hiss + 1, NULL)));
	EXPECT_EQ(0, loop_step(&r)) TH_LOG("the handshake's ACK: nothing to send");
	ASSERT_TRUE(loop_event(&r, IXMOD_EV_TCP_KNOCK, &ev)) TH_LOG("a knock on the listener");
	ch = ev.handle;
	c = tn_call_accept(ch, 0xc0);
	tn_app_submit(r.a, &c);
	EXPECT_EQ(0, loop_step(&r));
	EXPECT_EQ(0, tn_app_nevents(r.a)) TH_LOG("accept: no error event");

	ASSERT_EQ(0, ixgbem_rx(f, peer_seg(f, 0x18, PEER_ISS + 1, hiss + 1, hello)));
	loop_step(&r);
	ASSERT_TRUE(loop_event(&r, IXMOD_EV_TCP_RECV, &ev)) TH_LOG("the peer's bytes arrive");
	ASSERT_EQ((int)strlen(hello), ev.res);
	got = tn_rx_ptr(r.h, ev.off, ev.res);
	ASSERT_TRUE(got != NULL);
	EXPECT_EQ(0, memcmp(got, hello, strlen(hello))) TH_LOG("in order, intact, zero-copy");

	memcpy(r.a->arena, "ok", 2);
	c = tn_call_send(ch, 0, 2, 0x5e);
	tn_app_submit(r.a, &c);
	loop_step(&r);
	ASSERT_GE(r.out.n, 1) TH_LOG("the reply goes out");
	th = r.out.f[r.out.n - 1] + 34;
	hseq = be32get(th + 4);
	EXPECT_TRUE(tcp_out_ok(r.out.f[r.out.n - 1], r.out.len[r.out.n - 1])) {
		TH_LOG("data segment: checksums inserted by the device over the arena's bytes");
	}
	EXPECT_EQ(hiss + 1, hseq);
	EXPECT_EQ(PEER_ISS + 1 + strlen(hello), be32get(th + 8)) TH_LOG("and it acks the data");
	EXPECT_EQ(0, memcmp(th + 20, "ok", 2)) TH_LOG("the reply's bytes on the wire");
	EXPECT_EQ(0, ixgbem_violations()) {
		TH_LOG("no datasheet rule broken by the loop (last: %s)",
		       ixgbem.last_violation ? ixgbem.last_violation : "none");
	}
	EXPECT_EQ(0, q->rx.errors);
	EXPECT_EQ(0, tn_drops(r.h)) TH_LOG("nothing dropped by the stack");
	EXPECT_EQ(0, ixm_host_warnings);
	r.q->ops->get_stats(r.q, &qs);
	EXPECT_EQ(q->rx.csum_hw, qs.rx_csum_hw) TH_LOG("get_stats: the ring's counters");
	EXPECT_EQ(q->tx.csum_hw, qs.tx_csum_hw);
	EXPECT_EQ((u16)(q->rx.next_to_use - q->rx.next_to_clean) & 511, qs.rx_posted);
	EXPECT_GT(qs.rx_posted, 400) TH_LOG("get_stats: the receive ring refilled");
	EXPECT_GT(qs.tx_pending, 0) TH_LOG("the reply's descriptors not reaped yet");
	held = r.h->pool.count - r.h->pool.nfree - qs.rx_posted - qs.tx_pending;
	ops->queue_stop(&r.nic, r.q);
	ops->queue_free(&r.nic, r.q);
	tn_host_nic(r.h, NULL, NULL, NULL);
	EXPECT_EQ(held, r.h->pool.count - r.h->pool.nfree) {
		TH_LOG("queue_free: every buffer on the rings back (the rest are the application's)");
	}
	tn_app_free(r.a);
	tn_host_free(r.h);
}

TEST_HARNESS_MAIN
