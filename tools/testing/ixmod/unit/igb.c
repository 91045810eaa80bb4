// SPDX-License-Identifier: GPL-2.0
/*
 * igb.c - the 82576 ops (nic/igb.c) and the shared advanced-descriptor
 * rings (nic/intel_adv.c) against the register model (model/igb_model.c)
 *
 * Bring-up sequences and register values are checked against the
 * datasheet as the model encodes it; frames go through the rings both
 * ways and must come out byte-identical, with every buffer back in its
 * pool afterwards.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "igb_model.h"
#include "intel_adv.h"
#include "net.h"
#include "toeplitz.h"
#include "harness.h"

#define NBUF	64

static const u8 station[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

struct rig {
	struct ixm_nic		nic;
	struct ixm_mbuf_pool	pool;
	struct ixm_mbuf		mbufs[NBUF];
	struct ixm_mbuf		*free[NBUF];
	struct ixm_rxq		rxq;
	struct ixm_txq		txq;
	union ixm_adv_rx_desc	*rxd;
	union ixm_adv_tx_desc	*txd;
	struct ixm_mbuf		*rslot[64];
	struct ixm_tx_slot	tslot[64];
};

static void rig_init(struct rig *r, unsigned int qidx, u16 ring)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->nic.ops = &ixm_igb_ops;
	r->nic.max_queues = 8;
	for (i = 0; i < NBUF; i++) {
		r->mbufs[i].buf = aligned_alloc(64, IXM_MBUF_SIZE);
		r->mbufs[i].dma = (dma_addr_t)(uintptr_t)r->mbufs[i].buf;
	}
	ixm_mbuf_pool_init(&r->pool, r->mbufs, r->free, NBUF);
	r->rxd = aligned_alloc(128, 64 * sizeof(*r->rxd));
	r->txd = aligned_alloc(128, 64 * sizeof(*r->txd));
	r->rxq = (struct ixm_rxq){ .nic = &r->nic, .idx = qidx, .count = ring,
				   .desc = r->rxd, .desc_dma = (uintptr_t)r->rxd,
				   .slot = r->rslot, .pool = &r->pool };
	r->txq = (struct ixm_txq){ .nic = &r->nic, .idx = qidx, .count = ring,
				   .desc = r->txd, .desc_dma = (uintptr_t)r->txd,
				   .slot = r->tslot };
}

static void rig_free(struct rig *r)
{
	unsigned int i;

	for (i = 0; i < NBUF; i++)
		free(r->mbufs[i].buf);
	free(r->rxd);
	free(r->txd);
}

/* reset + init + both queues started + RX on */
static bool rig_up(struct rig *r)
{
	igbm_power_on(station);
	return !ixm_igb_ops.reset(&r->nic) && !ixm_igb_ops.init(&r->nic) &&
	       !ixm_adv_rxq_fill(&r->rxq) && !ixm_igb_chip_ops.rxq_start(&r->nic, &r->rxq) &&
	       !ixm_igb_chip_ops.txq_start(&r->nic, &r->txq) &&
	       (ixm_igb_ops.rx_enable(&r->nic, true), true);
}

static void frame(u8 *f, unsigned int len, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		f[i] = (u8)(seed * 31 + i * 7);
}

TEST(igb_bringup)
{
	struct rig r;
	u32 mbps = 0;
	int err;

	rig_init(&r, 0, 8);
	igbm_power_on(station);
	EXPECT_EQ(0, ixm_igb_ops.reset(&r.nic)) TH_LOG("reset completes");
	err = ixm_igb_ops.init(&r.nic);
	EXPECT_EQ(0, err) TH_LOG("init succeeds");
	EXPECT_EQ(0, memcmp(r.nic.mac, station, 6)) TH_LOG("init reads the MAC from RAL0/RAH0");
	EXPECT_TRUE(igbm_reg(0x0000) & 0x40) TH_LOG("CTRL.SLU set");
	EXPECT_EQ(0x1340, igbm.phy[0]) {
		TH_LOG("BMCR of PHY 1 written through MDIC: autoneg enable+restart");
	}
	EXPECT_FALSE(ixm_igb_ops.link_up(&r.nic, &mbps)) TH_LOG("link down right after init");
	ixm_host_delay_us(400000);
	EXPECT_TRUE(ixm_igb_ops.link_up(&r.nic, &mbps));
	EXPECT_EQ(1000, mbps) TH_LOG("link up at 1000 Mb/s later");
	EXPECT_TRUE(igbm_reg(0x05404) & 0x80000000) {
		TH_LOG("RAH0.AV keeps our address in the filter");
	}

	igbm.rst_stuck = true;
	igbm_power_on(station);
	EXPECT_EQ(-ETIMEDOUT, ixm_igb_ops.reset(&r.nic)) {
		TH_LOG("reset: -ETIMEDOUT when RST never clears");
	}
	igbm.rst_stuck = false;

	{
		static const u8 mcast[6] = { 0x01, 0, 0x5e, 0, 0, 1 };
		static const u8 zero[6];

		igbm_power_on(mcast);
		ixm_igb_ops.reset(&r.nic);
		EXPECT_EQ(-EADDRNOTAVAIL, ixm_igb_ops.init(&r.nic)) {
			TH_LOG("init refuses a multicast NVM MAC");
		}
		igbm_power_on(zero);
		ixm_igb_ops.reset(&r.nic);
		EXPECT_EQ(-EADDRNOTAVAIL, ixm_igb_ops.init(&r.nic)) {
			TH_LOG("init refuses an all-zero NVM MAC");
		}
	}
	rig_free(&r);
}

TEST(igb_queue_start)
{
	struct rig r;
	unsigned int q;

	for (q = 0; q < 16; q += 5) {	/* 0, 5, 10, 15: both register blocks */
		rig_init(&r, q, 64);
		igbm_power_on(station);
		ixm_igb_ops.reset(&r.nic);
		ixm_igb_ops.init(&r.nic);
		ixm_adv_rxq_fill(&r.rxq);
		EXPECT_EQ(0, ixm_igb_chip_ops.rxq_start(&r.nic, &r.rxq)) TH_LOG("q%u: rxq_start", q);
		EXPECT_EQ((u32)(uintptr_t)r.rxd, igbm_rq(q, 0x00));
		EXPECT_EQ((u32)((uintptr_t)r.rxd >> 32), igbm_rq(q, 0x04));
		EXPECT_EQ(64 * 16, igbm_rq(q, 0x08)) TH_LOG("q%u: RDBAL/RDBAH/RDLEN", q);
		EXPECT_EQ(0x82000002, igbm_rq(q, 0x0c)) {
			TH_LOG("q%u: SRRCTL = 2 KiB buffers, advanced one-buffer, DROP_EN", q);
		}
		EXPECT_EQ(63, igbm_rq(q, 0x18));
		EXPECT_FALSE(igbm.tail_before_enable) {
			TH_LOG("q%u: RDT = 63 (ring filled but one), written after ENABLE", q);
		}
		EXPECT_EQ(0, ixm_igb_chip_ops.txq_start(&r.nic, &r.txq)) TH_LOG("q%u: txq_start", q);
		EXPECT_EQ((u32)(uintptr_t)r.txd, igbm_tq(q, 0x00));
		EXPECT_EQ(64 * 16, igbm_tq(q, 0x08));
		ASSERT_TRUE(igbm_tq(q, 0x28) & (1u << 25));
		EXPECT_TRUE(igbm_reg(0x400) & 2) {
			TH_LOG("q%u: TDBAL/TDLEN, TXDCTL.ENABLE, TCTL.EN", q);
		}
		ixm_adv_rxq_release(&r.rxq);
		EXPECT_EQ(NBUF, r.pool.nfree) TH_LOG("q%u: release returns every RX buffer", q);
		rig_free(&r);
	}

	rig_init(&r, 1, 8);
	igbm_power_on(station);
	ixm_igb_ops.reset(&r.nic);
	ixm_igb_ops.init(&r.nic);
	igbm.enable_stuck = true;
	ixm_adv_rxq_fill(&r.rxq);
	EXPECT_EQ(-ETIMEDOUT, ixm_igb_chip_ops.rxq_start(&r.nic, &r.rxq)) {
		TH_LOG("rxq_start: -ETIMEDOUT when RXDCTL.ENABLE never latches");
	}
	EXPECT_EQ(-ETIMEDOUT, ixm_igb_chip_ops.txq_start(&r.nic, &r.txq)) {
		TH_LOG("txq_start: -ETIMEDOUT when TXDCTL.ENABLE never latches");
	}
	EXPECT_FALSE(igbm.tail_writes);
	EXPECT_FALSE(igbm.tail_before_enable) {
		TH_LOG("no descriptors handed to a queue that did not enable");
	}
	igbm.enable_stuck = false;
	ixm_adv_rxq_release(&r.rxq);
	rig_free(&r);
}

TEST(igb_rx)
{
	static const u8 reta0[IXM_RSS_RETA_SIZE];
	struct ixm_mbuf *out[64];
	unsigned int i, n, total = 0, bad = 0, writes;
	u8 f[2048];
	struct rig r;

	rig_init(&r, 2, 16);
	ASSERT_TRUE(rig_up(&r)) TH_LOG("rx: queue up");
	EXPECT_EQ(NBUF - 15, r.pool.nfree) TH_LOG("fill posts count-1 buffers");

	frame(f, 60, 1);
	igbm_rx(2, f, 60, 0x40, 0, 0);				/* IPCS, no IPE */
	frame(f, 1514, 2);
	igbm_rx(2, f, 1514, 0x40 | 0x40000000, 0, 0);		/* IPCS + IPE */
	frame(f, 100, 3);
	igbm_rx(2, f, 100, 0x20, 0, 0);				/* L4CS */
	ixm_igb_ops.set_rss(&r.nic, ixm_rss_key_symmetric, reta0);
	frame(f, 64, 4);
	igbm_rx(2, f, 64, 0, 1, 0xdeadbeef);			/* RSS IPv4 */
	n = ixm_adv_rx_burst(&r.rxq, out, 3);
	EXPECT_EQ(3, n) TH_LOG("burst honours max");
	n += ixm_adv_rx_burst(&r.rxq, out + 3, 64);
	EXPECT_EQ(4, n) TH_LOG("all four frames come out");
	frame(f, 60, 1);
	ASSERT_EQ(60, out[0]->len);
	ASSERT_EQ(0, memcmp(out[0]->data, f, 60));
	EXPECT_EQ(out[0]->buf, out[0]->data) TH_LOG("frame 1 byte-identical at the buffer's start");
	frame(f, 1514, 2);
	ASSERT_EQ(1514, out[1]->len);
	EXPECT_EQ(0, memcmp(out[1]->data, f, 1514)) TH_LOG("frame 2 (1514 B) identical");
	EXPECT_EQ(IXM_MBUF_F_IP_CSUM_OK, out[0]->flags) TH_LOG("IPCS without IPE: IP_CSUM_OK");
	EXPECT_EQ(IXM_MBUF_F_IP_CSUM_BAD, out[1]->flags) TH_LOG("IPCS with IPE: IP_CSUM_BAD");
	EXPECT_EQ(IXM_MBUF_F_L4_CSUM_OK, out[2]->flags) TH_LOG("L4CS: L4_CSUM_OK");
	ASSERT_EQ(IXM_MBUF_F_RSS, out[3]->flags);
	EXPECT_EQ(0xdeadbeef, out[3]->rss_hash) TH_LOG("RSS type in pkt_info: hash delivered");
	EXPECT_EQ(2, r.rxq.csum_hw) TH_LOG("csum_hw counts frames with IPCS");
	for (i = 0; i < n; i++)
		ixm_mbuf_free(out[i]);

	/* a frame error and a frame spanning three buffers are dropped */
	frame(f, 80, 5);
	igbm_rx(2, f, 80, 0x01000000, 0, 0);			/* CE */
	{
		u32 s = igbm_rq(2, 0x0c);

		ixm_host_wr32(NULL, 0x02a0c, (s & ~0x7fu) | 1);	/* 1 KiB buffers */
		igbm_rx(2, f, 1500, 0, 0, 0);			/* 2 descriptors */
		ixm_host_wr32(NULL, 0x02a0c, s);
	}
	frame(f, 70, 6);
	igbm_rx(2, f, 70, 0, 0, 0);
	n = ixm_adv_rx_burst(&r.rxq, out, 64);
	ASSERT_EQ(1, n);
	ASSERT_EQ(70, out[0]->len);
	EXPECT_EQ(0, memcmp(out[0]->data, f, 70)) {
		TH_LOG("after an errored and a two-buffer frame, the next frame is intact");
	}
	EXPECT_EQ(3, r.rxq.errors) TH_LOG("errors: 1 frame error + 2 buffers of the split frame");
	ixm_mbuf_free(out[0]);

	/* refill: nothing below the threshold (half of a 16 ring), then once */
	ixm_adv_rxq_release(&r.rxq);
	ixm_adv_rxq_fill(&r.rxq);
	ixm_igb_chip_ops.rxq_start(&r.nic, &r.rxq);
	writes = igbm.tail_writes;
	for (i = 0; i < 7; i++)
		igbm_rx(2, f, 60, 0, 0, 0);
	n = ixm_adv_rx_burst(&r.rxq, out, 64);
	ixm_adv_rx_refill(&r.rxq);
	EXPECT_EQ(writes, igbm.tail_writes) TH_LOG("7 consumed of 16: no refill yet");
	for (i = 0; i < n; i++)
		ixm_mbuf_free(out[i]);
	igbm_rx(2, f, 60, 0, 0, 0);
	n = ixm_adv_rx_burst(&r.rxq, out, 64);
	ixm_mbuf_free(out[0]);
	ixm_adv_rx_refill(&r.rxq);
	EXPECT_EQ(writes + 1, igbm.tail_writes);
	EXPECT_EQ((15 + 8) % 16, igbm_rq(2, 0x18)) {
		TH_LOG("8 consumed: one refill, one tail write, tail moved by 8");
	}

	/* pool exhaustion: no_buf counted, recovery afterwards */
	{
		struct ixm_mbuf *hold[NBUF];
		unsigned int h = 0;

		for (i = 0; i < 15; i++)
			igbm_rx(2, f, 60, 0, 0, 0);
		n = ixm_adv_rx_burst(&r.rxq, out, 64);
		while ((hold[h] = ixm_mbuf_alloc(&r.pool)))
			h++;
		ixm_adv_rx_refill(&r.rxq);
		EXPECT_GE(r.rxq.no_buf, 1) TH_LOG("refill with an empty pool counts no_buf");
		for (i = 0; i < h; i++)
			ixm_mbuf_free(hold[i]);
		for (i = 0; i < n; i++)
			ixm_mbuf_free(out[i]);
		ixm_adv_rx_refill(&r.rxq);
		EXPECT_EQ(1, igbm_rx(2, f, 60, 0, 0, 0)) {
			TH_LOG("after the pool refills, frames land again");
		}
		n = ixm_adv_rx_burst(&r.rxq, out, 64);
		ixm_mbuf_free(out[0]);
	}

	/* wrap-around: many frames through a 16-entry ring */
	for (i = 0; i < 20000; i++) {
		unsigned int len = 60 + i % 1400;

		frame(f, len, i);
		if (igbm_rx(2, f, len, 0, 0, 0) != 1) {
			bad++;
			continue;
		}
		n = ixm_adv_rx_burst(&r.rxq, out, 64);
		if (n != 1 || out[0]->len != len || memcmp(out[0]->data, f, len))
			bad++;
		while (n)
			ixm_mbuf_free(out[--n]);
		ixm_adv_rx_refill(&r.rxq);
		total++;
	}
	EXPECT_FALSE(bad);
	EXPECT_EQ(20000, total) TH_LOG("20000 frames through a 16-entry ring, all intact");
	ixm_igb_chip_ops.rxq_stop(&r.nic, &r.rxq);
	ixm_adv_rxq_release(&r.rxq);
	EXPECT_EQ(NBUF, r.pool.nfree) TH_LOG("rx: every buffer back in the pool");
	rig_free(&r);
}

struct sink {
	unsigned int	n;
	unsigned int	len[64];
	u8		first[2048];
};

static void sink_fn(const u8 *f, unsigned int len, void *arg)
{
	struct sink *s = arg;

	if (!s->n)
		memcpy(s->first, f, len < 2048 ? len : 2048);
	if (s->n < 64)
		s->len[s->n] = len;
	s->n++;
}

TEST(igb_tx)
{
	struct ixm_mbuf *m[32];
	struct sink s = { 0 };
	unsigned int i, took;
	u8 f[1514];
	struct rig r;
	u32 cmd;

	rig_init(&r, 3, 8);
	ASSERT_TRUE(rig_up(&r)) TH_LOG("tx: queue up");
	for (i = 0; i < 10; i++) {
		m[i] = ixm_mbuf_alloc(&r.pool);
		m[i]->len = 60 + i * 100;
		frame(m[i]->data, m[i]->len, 100 + i);
	}
	took = ixm_adv_tx_burst(&r.txq, m, 10);
	EXPECT_EQ(7, took) TH_LOG("an 8-entry ring takes 7 frames");
	EXPECT_EQ(3, r.txq.full) TH_LOG("the other 3 are counted full");
	cmd = le32_to_cpu(r.txd[1].read.cmd_type_len);
	EXPECT_EQ(0x2b300000u | 160, cmd) TH_LOG("DTYP_DATA|DEXT|IFCS|EOP|RS|len");
	EXPECT_EQ(160u << 14, le32_to_cpu(r.txd[1].read.olinfo_status)) TH_LOG("PAYLEN = len");
	EXPECT_EQ(7, igbm_tq(3, 0x18)) TH_LOG("one tail write: TDT = 7");
	EXPECT_EQ(0, ixm_adv_tx_reap(&r.txq)) TH_LOG("nothing reaped before the device sent");
	EXPECT_EQ(7, igbm_tx(3, sink_fn, &s)) TH_LOG("the device sends 7 frames");
	frame(f, 60, 100);
	EXPECT_EQ(60, s.len[0]);
	EXPECT_EQ(0, memcmp(s.first, f, 60));
	EXPECT_EQ(660, s.len[6]) TH_LOG("frames on the wire are the ones queued");
	EXPECT_EQ(7, ixm_adv_tx_reap(&r.txq)) TH_LOG("reap frees all 7 after DD");
	took = ixm_adv_tx_burst(&r.txq, m + 7, 3);
	EXPECT_EQ(3, took) TH_LOG("ring room again");
	ixm_igb_chip_ops.txq_stop(&r.nic, &r.txq);
	ixm_adv_txq_release(&r.txq);
	ixm_adv_rxq_release(&r.rxq);
	EXPECT_EQ(NBUF, r.pool.nfree) TH_LOG("tx: release frees unsent frames: pool whole");

	/* a legacy descriptor (no DEXT) is ignored by the model, as by QEMU */
	{
		struct rig r2;

		rig_init(&r2, 0, 8);
		rig_up(&r2);
		m[0] = ixm_mbuf_alloc(&r2.pool);
		m[0]->len = 60;
		ixm_adv_tx_burst(&r2.txq, m, 1);
		r2.txd[0].read.cmd_type_len &= ~cpu_to_le32(IXM_ADV_TXD_DCMD_DEXT);
		s.n = 0;
		igbm_tx(0, sink_fn, &s);
		EXPECT_EQ(0, s.n) TH_LOG("model check: a legacy descriptor sends nothing");
		ixm_adv_tx_reap(&r2.txq);
		ixm_adv_txq_release(&r2.txq);
		ixm_adv_rxq_release(&r2.rxq);
		EXPECT_EQ(NBUF, r2.pool.nfree) TH_LOG("legacy case: pool whole");
		rig_free(&r2);
	}
	rig_free(&r);
}

/* A frame of @hlen bytes in a buffer, then @nfrags pieces of @ext. */
static struct ixm_mbuf *chain(struct rig *r, unsigned int hlen, const u8 *ext,
			      const unsigned int *flen, unsigned int nfrags,
			      u32 *inflight)
{
	struct ixm_mbuf *m = ixm_mbuf_alloc(&r->pool);
	unsigned int i;

	m->len = hlen;
	frame(m->data, hlen, hlen);
	for (i = 0; i < nfrags; i++) {
		m->frags[i].dma = (dma_addr_t)(uintptr_t)ext;
		m->frags[i].len = flen[i];
		ext += flen[i];
	}
	m->nfrags = nfrags;
	m->inflight = inflight;
	if (nfrags)
		(*inflight)++;
	return m;
}

TEST(igb_tx_chain)
{
	static const unsigned int la[] = { 700, 3 }, lb[] = { 1, 999, 448 };
	struct ixm_mbuf *m[3];
	struct sink s = { 0 };
	u32 inflight = 0, cmd;
	u8 ext[4096], want[2048];
	unsigned int i;
	struct rig r;

	frame(ext, sizeof(ext), 7);
	rig_init(&r, 1, 8);
	ASSERT_TRUE(rig_up(&r)) TH_LOG("chain: queue up");
	m[0] = chain(&r, 54, ext, la, 2, &inflight);
	m[1] = chain(&r, 66, ext + 1000, lb, 3, &inflight);
	m[2] = chain(&r, 60, NULL, NULL, 0, &inflight);
	EXPECT_EQ(2, ixm_adv_tx_burst(&r.txq, m, 3)) {
		TH_LOG("chain: 3 + 4 descriptors fill an 8-entry ring; the third frame waits");
	}
	EXPECT_EQ(1, r.txq.full) TH_LOG("chain: the refused frame is counted full");
	EXPECT_EQ(7, r.txq.next_to_use) TH_LOG("chain: no descriptor of the refused frame posted");
	cmd = le32_to_cpu(r.txd[0].read.cmd_type_len);
	EXPECT_EQ(0x22300000u | 54, cmd) {
		TH_LOG("first descriptor: no EOP, no RS, the buffer's length");
	}
	EXPECT_EQ((54u + 703) << 14, le32_to_cpu(r.txd[0].read.olinfo_status)) {
		TH_LOG("first descriptor: PAYLEN is the whole frame");
	}
	EXPECT_EQ((0x22300000u | 700), le32_to_cpu(r.txd[1].read.cmd_type_len));
	EXPECT_EQ((uintptr_t)ext, le64_to_cpu(r.txd[1].read.buffer_addr));
	EXPECT_FALSE(r.txd[1].read.olinfo_status) {
		TH_LOG("middle descriptor: the fragment, no EOP, no RS, olinfo 0");
	}
	EXPECT_EQ(0x2b300000u | 3, le32_to_cpu(r.txd[2].read.cmd_type_len)) {
		TH_LOG("last descriptor: EOP and RS");
	}
	EXPECT_EQ(m[0], r.tslot[0].mb);
	EXPECT_EQ(2, r.tslot[0].last);
	EXPECT_EQ(NULL, r.tslot[1].mb);
	EXPECT_EQ(NULL, r.tslot[2].mb);
	EXPECT_EQ(m[1], r.tslot[3].mb);
	EXPECT_EQ(6, r.tslot[3].last) {
		TH_LOG("the buffer and its last descriptor sit at the frame's first slot");
	}

	/* DD on the header descriptor only (the device writes none there) */
	r.txd[0].wb.status |= cpu_to_le32(IXM_ADV_TXD_STAT_DD);
	i = r.pool.nfree;
	EXPECT_EQ(0, ixm_adv_tx_reap(&r.txq)) TH_LOG("reap waits for the frame's last descriptor");
	EXPECT_EQ(i, r.pool.nfree);
	EXPECT_EQ(2, inflight) TH_LOG("a frame is not freed before its last descriptor is done");

	EXPECT_EQ(2, igbm_tx(1, sink_fn, &s)) TH_LOG("chain: the device sends 2 frames");
	memcpy(want, m[0]->data, 54);
	memcpy(want + 54, ext, 703);
	EXPECT_EQ(757, s.len[0]);
	EXPECT_EQ(0, memcmp(s.first, want, 757)) {
		TH_LOG("chain: on the wire, the buffer then the fragments in order");
	}
	EXPECT_EQ(66u + 1448, s.len[1]) TH_LOG("chain: second frame's length");
	EXPECT_FALSE(r.txd[1].wb.status & cpu_to_le32(IXM_ADV_TXD_STAT_DD));
	ASSERT_TRUE(r.txd[2].wb.status & cpu_to_le32(IXM_ADV_TXD_STAT_DD));
	EXPECT_TRUE(r.txd[6].wb.status & cpu_to_le32(IXM_ADV_TXD_STAT_DD)) {
		TH_LOG("chain: the device wrote DD into the frames' last descriptors only");
	}
	EXPECT_EQ(7, ixm_adv_tx_reap(&r.txq)) TH_LOG("chain: all 7 descriptors reaped");
	EXPECT_EQ(0, inflight) TH_LOG("chain: both frames released their fragments");

	/* never sent: release frees it and its fragments */
	m[1] = chain(&r, 54, ext, la, 2, &inflight);
	EXPECT_EQ(2, ixm_adv_tx_burst(&r.txq, m + 1, 2)) TH_LOG("chain: room again");
	ixm_igb_chip_ops.txq_stop(&r.nic, &r.txq);
	ixm_adv_txq_release(&r.txq);
	ixm_adv_rxq_release(&r.rxq);
	EXPECT_EQ(0, inflight);
	EXPECT_EQ(NBUF, r.pool.nfree) {
		TH_LOG("chain: release frees unsent frames and their fragments");
	}
	rig_free(&r);
}

/*
 * Reaping: oldest first, each frame ends where its first slot says, and
 * at most IXM_TX_REAP_BUDGET frames a call.  The ring is set up by hand
 * (3 * budget + 1 frames of one to three descriptors, all done), no device.
 */
TEST(tx_reap_budget)
{
	const unsigned int frames = 3 * IXM_TX_REAP_BUDGET + 1, count = 2048;
	union ixm_adv_tx_desc *d = calloc(count, sizeof(*d));
	struct ixm_tx_slot *slot = calloc(count, sizeof(*slot));
	struct ixm_txq q = { .count = count, .desc = d, .slot = slot };
	struct ixm_mbuf *mb = calloc(frames, sizeof(*mb));
	struct ixm_mbuf **fl = calloc(frames, sizeof(*fl));
	struct ixm_mbuf_pool pool;
	unsigned int k, i = 0, descs = 0, got, total = 0;

	ASSERT_TRUE(d && slot && mb && fl);
	ixm_mbuf_pool_init(&pool, mb, fl, frames);
	for (k = 0; k < frames; k++) {
		unsigned int n = 1 + k % 3;

		slot[i].mb = ixm_mbuf_alloc(&pool);
		slot[i].last = i + n - 1;
		d[i + n - 1].wb.status = cpu_to_le32(IXM_ADV_TXD_STAT_DD);
		i += n;
	}
	descs = i;
	q.next_to_use = i;
	/* the last frame not done yet: reaping stops before it */
	d[slot[descs - 1].last].wb.status = 0;
	EXPECT_EQ(0, pool.nfree);
	for (k = 0; k < 3; k++) {
		got = ixm_adv_tx_reap(&q);
		total += got;
		EXPECT_EQ((k + 1) * IXM_TX_REAP_BUDGET, pool.nfree) {
			TH_LOG("call %u: %u frames back, the budget", k, pool.nfree);
		}
	}
	EXPECT_EQ(descs - 1, total) TH_LOG("every descriptor of the done frames");
	EXPECT_EQ(descs - 1, q.next_to_clean);
	EXPECT_EQ(0, ixm_adv_tx_reap(&q)) TH_LOG("the last frame's DD not written: kept");
	d[descs - 1].wb.status = cpu_to_le32(IXM_ADV_TXD_STAT_DD);
	EXPECT_EQ(1, ixm_adv_tx_reap(&q));
	EXPECT_EQ(frames, pool.nfree) TH_LOG("every buffer back");
	EXPECT_EQ(q.next_to_use, q.next_to_clean);
	free(d);
	free(slot);
	free(mb);
	free(fl);
}

TEST(igb_rss_irq)
{
	u8 reta[IXM_RSS_RETA_SIZE];
	struct rig r;
	unsigned int i;
	bool ok = true;

	rig_init(&r, 0, 8);
	igbm_power_on(station);
	ixm_igb_ops.reset(&r.nic);
	ixm_igb_ops.init(&r.nic);
	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		reta[i] = (i * 5) % 3;
	ixm_igb_ops.set_rss(&r.nic, ixm_rss_key_symmetric, reta);
	for (i = 0; i < 10; i++) {
		const u8 *k = ixm_rss_key_symmetric + 4 * i;

		ok &= igbm_reg(0x5c80 + 4 * i) ==
		      (k[0] | k[1] << 8 | k[2] << 16 | (u32)k[3] << 24);
	}
	EXPECT_TRUE(ok) TH_LOG("RSSRK: key byte 0 in the low byte of RSSRK0, in order");
	ok = true;
	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		ok &= ((igbm_reg(0x5c00 + (i / 4) * 4) >> (8 * (i % 4))) & 0xff) == reta[i];
	EXPECT_TRUE(ok) TH_LOG("RETA: one byte per entry, entry 0 in the low byte");
	EXPECT_EQ(0x00f70002, igbm_reg(0x5818)) {
		TH_LOG(
		       "MRQC: RSS, IPv4, IPv4/TCP, IPv4/UDP, IPv6, IPv6/TCP (and TcpIPv6Ex), IPv6/UDP");
	}
	EXPECT_TRUE(igbm_reg(0x5008) & 0x10000) TH_LOG("RFCTL.IPV6_EX_DIS");
	EXPECT_TRUE(igbm_reg(0x5000) & (1u << 13)) TH_LOG("RXCSUM.PCSD: the hash is written back");

	ixm_igb_chip_ops.irq_enable(&r.nic, 0, 0);
	ixm_igb_chip_ops.irq_enable(&r.nic, 3, 2);
	ixm_igb_chip_ops.irq_enable(&r.nic, 9, 5);
	ASSERT_TRUE(igbm_irq_routed(0, false, 0));
	EXPECT_TRUE(igbm_irq_routed(0, true, 0)) TH_LOG("queue 0 RX and TX -> vector 0");
	ASSERT_TRUE(igbm_irq_routed(3, false, 2));
	EXPECT_TRUE(igbm_irq_routed(3, true, 2)) TH_LOG("queue 3 -> vector 2");
	ASSERT_TRUE(igbm_irq_routed(9, false, 5));
	ASSERT_TRUE(igbm_irq_routed(9, true, 5));
	EXPECT_EQ(false, igbm_irq_routed(1, false, 0)) {
		TH_LOG("queue 9 -> vector 5 (IVAR[1] upper half), queue 1 unrouted");
	}
	ixm_igb_chip_ops.irq_mask(&r.nic, 2);
	EXPECT_FALSE(igbm_irq_routed(3, false, 2));
	EXPECT_TRUE(igbm_irq_routed(9, false, 5)) TH_LOG("irq_mask masks only its vector");
	ixm_igb_ops.irq_disable(&r.nic);
	EXPECT_EQ(0, igbm.eims) TH_LOG("irq_disable masks every vector");
	rig_free(&r);
}

#include "model_frames.h"

/*
 * IPv6 flows spread over four queues as base/toeplitz.c predicts (the
 * 4-tuple when TCP or UDP follows the fixed header, the addresses after
 * an extension header), the model computing the 82576's hash from what
 * igb.c wrote; and the hash reaches the mbuf.
 */
TEST(igb_rss_ipv6)
{
	static const u8 exts[] = { 0xff, 0, 44, 60 };	/* none, hop-by-hop, frag., dest. */
	u8 sa[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	u8 da[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 7 };
	unsigned int i, q, per[4] = { 0 }, wrong = 0, least, len;
	u8 reta[IXM_RSS_RETA_SIZE], f[256];
	struct ixm_mbuf *out[2];
	struct rig r;
	uint16_t type;
	u32 h, got;
	int qi;

	rig_init(&r, 0, 8);
	ASSERT_TRUE(rig_up(&r));
	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		reta[i] = ixm_rss_queue(i, 4);
	ixm_igb_ops.set_rss(&r.nic, ixm_rss_key_symmetric, reta);
	for (i = 0; i < 4 * 400; i++) {
		u8 proto = i & 1 ? 17 : 6, ext = exts[i / 400];
		u16 sp = 1024 + (i % 400) * 37, dp = proto == 6 ? 80 : 53;

		sa[14] = (i % 400) >> 8;
		sa[15] = i % 400;
		len = mkframe6(f, proto, sa, da, sp, dp, 20, ext);
		if (ext == 0xff)
			h = ixm_toeplitz_ipv6_l4(ixm_rss_key_symmetric, sa, da, ixm_htons(sp),
						 ixm_htons(dp));
		else
			h = ixm_toeplitz_ipv6(ixm_rss_key_symmetric, sa, da);
		qi = igbm_rss_queue(f, len, &type, &got);
		if (qi != ixm_rss_queue(h, 4) || got != h ||
		    type != (ext != 0xff ? 5 : proto == 6 ? 3 : 8)) {
			if (wrong++ < IXM_DIAG_MAX)
				TH_LOG(
				       "frame %u (ext %u): queue %d type %u hash 0x%08x, expected %u 0x%08x",
				       i, ext, qi, type, got, ixm_rss_queue(h, 4), h);
			continue;
		}
		if (ext == 0xff)
			per[qi]++;
	}
	EXPECT_EQ(0, wrong) {
		TH_LOG("each IPv6 frame on the queue and with the hash and type predicted");
	}
	for (q = 1, least = per[0]; q < 4; q++)
		least = per[q] < least ? per[q] : least;
	EXPECT_GE(least, 50) {
		TH_LOG("each queue gets 50 of 400 IPv6 flows or more: %u %u %u %u",
		       per[0], per[1], per[2], per[3]);
	}

	/* the driver's queue 0 takes one, its hash in the mbuf */
	memset(reta, 0, sizeof(reta));
	ixm_igb_ops.set_rss(&r.nic, ixm_rss_key_symmetric, reta);
	len = mkframe6(f, 6, sa, da, 40000, 80, 10, 0xff);
	ASSERT_EQ(0, igbm_rx_rss(f, len, 0));
	ASSERT_EQ(1, ixm_adv_rx_burst(&r.rxq, out, 2));
	EXPECT_TRUE(out[0]->flags & IXM_MBUF_F_RSS);
	EXPECT_EQ(ixm_toeplitz_ipv6_l4(ixm_rss_key_symmetric, sa, da, ixm_htons(40000),
				       ixm_htons(80)), out[0]->rss_hash) {
		TH_LOG("the written-back hash is base/toeplitz.c's");
	}
	ixm_mbuf_free(out[0]);
	ixm_igb_chip_ops.rxq_stop(&r.nic, &r.rxq);
	ixm_igb_chip_ops.txq_stop(&r.nic, &r.txq);
	ixm_adv_rxq_release(&r.rxq);
	EXPECT_EQ(NBUF, r.pool.nfree);
	rig_free(&r);
}

/*
 * IPv4 and IPv6, TCP and UDP, interleaved in one burst on one queue: the
 * first eight frames each want a kind of context neither slot holds (v4
 * TCP, v6 TCP, v6 UDP, v4 UDP, ...), so a context descriptor precedes
 * each; then TCP over both families alternates, which two loads settle.
 * The model sums as the 82576 does from the context the data descriptor
 * names (§7.2.2.3, §7.2.4): one of the wrong family (a slot not reloaded)
 * sums and stores at the wrong offsets.  Each frame must leave byte for
 * byte as it should, its checksums verifying by ref.h, and each context
 * descriptor carry the table's bits: IPLEN 20 or 40, TUCMD.IPV4 only for
 * IPv4, L4T; the data descriptor IXSM only over IPv4.
 */
static const unsigned int csum6_kinds[] = {
	0, OFF_V6, OFF_V6 | OFF_UDP, OFF_UDP, 0, OFF_V6 | OFF_UDP, OFF_V6, OFF_UDP,
	0, OFF_V6, 0, OFF_V6, 0, OFF_V6,
};
#define CSUM6_CTX	10	/* context descriptors the sequence needs */

struct csum6_sink {
	unsigned int	n;
	unsigned int	len[16];
	u8		f[16][1600];
};

static void csum6_sink_fn(const u8 *f, unsigned int len, void *arg)
{
	struct csum6_sink *s = arg;

	if (s->n < 16) {
		s->len[s->n] = len;
		memcpy(s->f[s->n], f, len < 1600 ? len : 1600);
	}
	s->n++;
}

TEST(igb_tx_csum6)
{
	const unsigned int n = ARRAY_SIZE(csum6_kinds);
	static u8 want[ARRAY_SIZE(csum6_kinds)][1600];
	unsigned int wlen[ARRAY_SIZE(csum6_kinds)];
	unsigned int k, i = 0, bad = 0, ctx = 0;
	struct ixm_mbuf *m[ARRAY_SIZE(csum6_kinds)];
	static struct csum6_sink s;
	struct rig r;

	rig_init(&r, 5, 32);	/* 31 RX buffers posted, 33 left for TX */
	ASSERT_TRUE(rig_up(&r));
	for (k = 0; k < n; k++) {
		m[k] = ixm_mbuf_alloc(&r.pool);
		ASSERT_TRUE(m[k] != NULL);
		m[k]->len = mkframe_offload(m[k]->data, want[k], &m[k]->flags, csum6_kinds[k],
					    2000 + k, 5 + k * 53);
		wlen[k] = m[k]->len;
	}
	ASSERT_EQ(n, ixm_adv_tx_burst(&r.txq, m, n));
	for (k = 0; k < n; k++, i++) {
		u32 cmd = le32_to_cpu(r.txd[i].read.cmd_type_len), ol;
		unsigned int kind = csum6_kinds[k];

		if ((cmd & 0x00f00000) == 0x00200000) {	/* DTYP 0010b: context */
			const struct ixm_adv_tx_ctx_desc *c = (const void *)&r.txd[i];
			u32 lens = le32_to_cpu(c->vlan_macip_lens);
			u32 tucmd = le32_to_cpu(c->type_tucmd_mlhl);

			if ((lens & 0x1ff) != ((kind & OFF_V6) ? 40u : 20u) ||
			    ((lens >> 9) & 0x7f) != 14 ||
			    !!(tucmd & (1u << 10)) == !!(kind & OFF_V6) ||
			    ((tucmd >> 11) & 3) != ((kind & OFF_UDP) ? 0u : 1u)) {
				ixm_diag("frame %u: context lens 0x%x tucmd 0x%x", k, lens, tucmd);
				bad++;
			}
			ctx++;
			i++;
		}
		ol = le32_to_cpu(r.txd[i].read.olinfo_status);
		if (!(ol & 0x200) || !!(ol & 0x100) != !(kind & OFF_V6)) {
			ixm_diag("frame %u: olinfo 0x%x: TXSM, IXSM over IPv4 only", k, ol);
			bad++;
		}
	}
	EXPECT_EQ(r.txq.next_to_use, i) TH_LOG("one data descriptor a frame, besides contexts");
	EXPECT_EQ(n, igbm_tx(5, csum6_sink_fn, &s)) TH_LOG("the model sent every frame");
	for (k = 0; k < n && k < s.n; k++) {
		if (!offload_frame_ok(s.f[k], s.len[k], want[k], wlen[k])) {
			bad++;
			ixm_diag("frame %u (kind %u): not as it should leave", k, csum6_kinds[k]);
		}
	}
	EXPECT_EQ(0, bad) TH_LOG("checksums right on the wire; contexts as the datasheet says");
	EXPECT_EQ(CSUM6_CTX, ctx) TH_LOG("a context descriptor for each change, none after");
	EXPECT_EQ(CSUM6_CTX, igbm.tx_ctx_descs) TH_LOG("the model read as many");
	EXPECT_EQ(0, igbm.tx_ctx_bad) {
		TH_LOG("no offload rule broken (last: %s)",
		       igbm.last_ctx_bad ? igbm.last_ctx_bad : "none");
	}
	EXPECT_EQ(n, r.txq.csum_hw) TH_LOG("each counted in tx_csum_hw");
	EXPECT_EQ(n, ixm_adv_tx_reap(&r.txq) - CSUM6_CTX) TH_LOG("all reaped");
	/* restarted (nothing left to release), the queue and device forget */
	ixm_igb_chip_ops.txq_stop(&r.nic, &r.txq);
	ASSERT_EQ(0, ixm_igb_chip_ops.txq_start(&r.nic, &r.txq));
	m[0] = ixm_mbuf_alloc(&r.pool);
	ASSERT_TRUE(m[0] != NULL);
	m[0]->len = mkframe_offload(m[0]->data, want[0], &m[0]->flags, OFF_V6, 7, 100);
	wlen[0] = m[0]->len;
	s.n = 0;
	ASSERT_EQ(1, ixm_adv_tx_burst(&r.txq, m, 1));
	EXPECT_EQ(1, igbm_tx(5, csum6_sink_fn, &s));
	EXPECT_EQ(CSUM6_CTX + 1, igbm.tx_ctx_descs) TH_LOG("restart: the context reloaded");
	EXPECT_TRUE(s.n == 1 && offload_frame_ok(s.f[0], s.len[0], want[0], wlen[0]));
	EXPECT_EQ(0, igbm.tx_ctx_bad);
	ixm_adv_tx_reap(&r.txq);
	ixm_igb_chip_ops.txq_stop(&r.nic, &r.txq);
	ixm_igb_chip_ops.rxq_stop(&r.nic, &r.rxq);
	ixm_adv_txq_release(&r.txq);
	ixm_adv_rxq_release(&r.rxq);
	EXPECT_EQ(NBUF, r.pool.nfree);
	rig_free(&r);
}

TEST_HARNESS_MAIN
