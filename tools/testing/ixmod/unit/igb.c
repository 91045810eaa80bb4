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
#include "toeplitz.h"
#include "tap.h"

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
	struct ixm_mbuf		*rslot[64], *tslot[64];
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
	       !ixm_adv_rxq_fill(&r->rxq) && !ixm_igb_ops.rxq_start(&r->nic, &r->rxq) &&
	       !ixm_igb_ops.txq_start(&r->nic, &r->txq) &&
	       (ixm_igb_ops.rx_enable(&r->nic, true), true);
}

static void frame(u8 *f, unsigned int len, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		f[i] = (u8)(seed * 31 + i * 7);
}

static void test_bringup(void)
{
	struct rig r;
	u32 mbps = 0;
	int err;

	rig_init(&r, 0, 8);
	igbm_power_on(station);
	tap_eq(ixm_igb_ops.reset(&r.nic), 0, "reset completes");
	err = ixm_igb_ops.init(&r.nic);
	tap_eq(err, 0, "init succeeds");
	tap_ok(!memcmp(r.nic.mac, station, 6), "init reads the MAC from RAL0/RAH0");
	tap_ok(igbm_reg(0x0000) & 0x40, "CTRL.SLU set");
	tap_eq(igbm.phy[0], 0x1340, "BMCR of PHY 1 written through MDIC: autoneg enable+restart");
	tap_ok(!ixm_igb_ops.link_up(&r.nic, &mbps), "link down right after init");
	ixm_host_delay_us(400000);
	tap_ok(ixm_igb_ops.link_up(&r.nic, &mbps) && mbps == 1000, "link up at 1000 Mb/s later");
	tap_ok(igbm_reg(0x05404) & 0x80000000, "RAH0.AV keeps our address in the filter");

	igbm.rst_stuck = true;
	igbm_power_on(station);
	tap_eq(ixm_igb_ops.reset(&r.nic), -ETIMEDOUT, "reset: -ETIMEDOUT when RST never clears");
	igbm.rst_stuck = false;

	{
		static const u8 mcast[6] = { 0x01, 0, 0x5e, 0, 0, 1 };
		static const u8 zero[6];

		igbm_power_on(mcast);
		ixm_igb_ops.reset(&r.nic);
		tap_eq(ixm_igb_ops.init(&r.nic), -EADDRNOTAVAIL, "init refuses a multicast NVM MAC");
		igbm_power_on(zero);
		ixm_igb_ops.reset(&r.nic);
		tap_eq(ixm_igb_ops.init(&r.nic), -EADDRNOTAVAIL, "init refuses an all-zero NVM MAC");
	}
	rig_free(&r);
}

static void test_queue_start(void)
{
	struct rig r;
	unsigned int q;

	for (q = 0; q < 16; q += 5) {	/* 0, 5, 10, 15: both register blocks */
		rig_init(&r, q, 64);
		igbm_power_on(station);
		ixm_igb_ops.reset(&r.nic);
		ixm_igb_ops.init(&r.nic);
		ixm_adv_rxq_fill(&r.rxq);
		tap_eq(ixm_igb_ops.rxq_start(&r.nic, &r.rxq), 0, "q%u: rxq_start", q);
		tap_ok(igbm_rq(q, 0x00) == (u32)(uintptr_t)r.rxd &&
		       igbm_rq(q, 0x04) == (u32)((uintptr_t)r.rxd >> 32) &&
		       igbm_rq(q, 0x08) == 64 * 16, "q%u: RDBAL/RDBAH/RDLEN", q);
		tap_eq(igbm_rq(q, 0x0c), 0x82000002,
		       "q%u: SRRCTL = 2 KiB buffers, advanced one-buffer, DROP_EN", q);
		tap_ok(igbm_rq(q, 0x18) == 63 && !igbm.tail_before_enable,
		       "q%u: RDT = 63 (ring filled but one), written after ENABLE", q);
		tap_eq(ixm_igb_ops.txq_start(&r.nic, &r.txq), 0, "q%u: txq_start", q);
		tap_ok(igbm_tq(q, 0x00) == (u32)(uintptr_t)r.txd && igbm_tq(q, 0x08) == 64 * 16 &&
		       (igbm_tq(q, 0x28) & (1u << 25)) && (igbm_reg(0x400) & 2),
		       "q%u: TDBAL/TDLEN, TXDCTL.ENABLE, TCTL.EN", q);
		ixm_adv_rxq_release(&r.rxq);
		tap_eq(r.pool.nfree, NBUF, "q%u: release returns every RX buffer", q);
		rig_free(&r);
	}

	rig_init(&r, 1, 8);
	igbm_power_on(station);
	ixm_igb_ops.reset(&r.nic);
	ixm_igb_ops.init(&r.nic);
	igbm.enable_stuck = true;
	ixm_adv_rxq_fill(&r.rxq);
	tap_eq(ixm_igb_ops.rxq_start(&r.nic, &r.rxq), -ETIMEDOUT,
	       "rxq_start: -ETIMEDOUT when RXDCTL.ENABLE never latches");
	tap_eq(ixm_igb_ops.txq_start(&r.nic, &r.txq), -ETIMEDOUT,
	       "txq_start: -ETIMEDOUT when TXDCTL.ENABLE never latches");
	tap_ok(!igbm.tail_writes && !igbm.tail_before_enable,
	       "no descriptors handed to a queue that did not enable");
	igbm.enable_stuck = false;
	ixm_adv_rxq_release(&r.rxq);
	rig_free(&r);
}

static void test_rx(void)
{
	static const u8 reta0[IXM_RSS_RETA_SIZE];
	struct ixm_mbuf *out[64];
	unsigned int i, n, total = 0, bad = 0, writes;
	u8 f[2048];
	struct rig r;

	rig_init(&r, 2, 16);
	tap_ok(rig_up(&r), "rx: queue up");
	tap_eq(r.pool.nfree, NBUF - 15, "fill posts count-1 buffers");

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
	tap_eq(n, 3, "burst honours max");
	n += ixm_adv_rx_burst(&r.rxq, out + 3, 64);
	tap_eq(n, 4, "all four frames come out");
	frame(f, 60, 1);
	tap_ok(out[0]->len == 60 && !memcmp(out[0]->data, f, 60) && out[0]->data == out[0]->buf,
	       "frame 1 byte-identical at the buffer's start");
	frame(f, 1514, 2);
	tap_ok(out[1]->len == 1514 && !memcmp(out[1]->data, f, 1514), "frame 2 (1514 B) identical");
	tap_eq(out[0]->flags, IXM_MBUF_F_IP_CSUM_OK, "IPCS without IPE: IP_CSUM_OK");
	tap_eq(out[1]->flags, IXM_MBUF_F_IP_CSUM_BAD, "IPCS with IPE: IP_CSUM_BAD");
	tap_eq(out[2]->flags, IXM_MBUF_F_L4_CSUM_OK, "L4CS: L4_CSUM_OK");
	tap_ok(out[3]->flags == IXM_MBUF_F_RSS && out[3]->rss_hash == 0xdeadbeef,
	       "RSS type in pkt_info: hash delivered");
	tap_eq(r.rxq.csum_hw, 2, "csum_hw counts frames with IPCS");
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
	tap_ok(n == 1 && out[0]->len == 70 && !memcmp(out[0]->data, f, 70),
	       "after an errored and a two-buffer frame, the next frame is intact");
	tap_eq(r.rxq.errors, 3, "errors: 1 frame error + 2 buffers of the split frame");
	ixm_mbuf_free(out[0]);

	/* refill: nothing below the threshold (half of a 16 ring), then once */
	ixm_adv_rxq_release(&r.rxq);
	ixm_adv_rxq_fill(&r.rxq);
	ixm_igb_ops.rxq_start(&r.nic, &r.rxq);
	writes = igbm.tail_writes;
	for (i = 0; i < 7; i++)
		igbm_rx(2, f, 60, 0, 0, 0);
	n = ixm_adv_rx_burst(&r.rxq, out, 64);
	ixm_adv_rx_refill(&r.rxq);
	tap_eq(igbm.tail_writes, writes, "7 consumed of 16: no refill yet");
	for (i = 0; i < n; i++)
		ixm_mbuf_free(out[i]);
	igbm_rx(2, f, 60, 0, 0, 0);
	n = ixm_adv_rx_burst(&r.rxq, out, 64);
	ixm_mbuf_free(out[0]);
	ixm_adv_rx_refill(&r.rxq);
	tap_ok(igbm.tail_writes == writes + 1 && igbm_rq(2, 0x18) == (15 + 8) % 16,
	       "8 consumed: one refill, one tail write, tail moved by 8");

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
		tap_ok(r.rxq.no_buf >= 1, "refill with an empty pool counts no_buf");
		for (i = 0; i < h; i++)
			ixm_mbuf_free(hold[i]);
		for (i = 0; i < n; i++)
			ixm_mbuf_free(out[i]);
		ixm_adv_rx_refill(&r.rxq);
		tap_eq(igbm_rx(2, f, 60, 0, 0, 0), 1, "after the pool refills, frames land again");
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
	tap_ok(!bad && total == 20000, "20000 frames through a 16-entry ring, all intact");
	ixm_igb_ops.rxq_stop(&r.nic, &r.rxq);
	ixm_adv_rxq_release(&r.rxq);
	tap_eq(r.pool.nfree, NBUF, "rx: every buffer back in the pool");
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

static void test_tx(void)
{
	struct ixm_mbuf *m[32];
	struct sink s = { 0 };
	unsigned int i, took;
	u8 f[1514];
	struct rig r;
	u32 cmd;

	rig_init(&r, 3, 8);
	tap_ok(rig_up(&r), "tx: queue up");
	for (i = 0; i < 10; i++) {
		m[i] = ixm_mbuf_alloc(&r.pool);
		m[i]->len = 60 + i * 100;
		frame(m[i]->data, m[i]->len, 100 + i);
	}
	took = ixm_adv_tx_burst(&r.txq, m, 10);
	tap_eq(took, 7, "an 8-entry ring takes 7 frames");
	tap_eq(r.txq.full, 3, "the other 3 are counted full");
	cmd = le32_to_cpu(r.txd[1].read.cmd_type_len);
	tap_eq(cmd, 0x2b300000u | 160, "DTYP_DATA|DEXT|IFCS|EOP|RS|len");
	tap_eq(le32_to_cpu(r.txd[1].read.olinfo_status), 160u << 14, "PAYLEN = len");
	tap_eq(igbm_tq(3, 0x18), 7, "one tail write: TDT = 7");
	tap_eq(ixm_adv_tx_reap(&r.txq), 0, "nothing reaped before the device sent");
	tap_eq(igbm_tx(3, sink_fn, &s), 7, "the device sends 7 frames");
	frame(f, 60, 100);
	tap_ok(s.len[0] == 60 && !memcmp(s.first, f, 60) && s.len[6] == 660,
	       "frames on the wire are the ones queued");
	tap_eq(ixm_adv_tx_reap(&r.txq), 7, "reap frees all 7 after DD");
	took = ixm_adv_tx_burst(&r.txq, m + 7, 3);
	tap_eq(took, 3, "ring room again");
	ixm_igb_ops.txq_stop(&r.nic, &r.txq);
	ixm_adv_txq_release(&r.txq);
	ixm_adv_rxq_release(&r.rxq);
	tap_eq(r.pool.nfree, NBUF, "tx: release frees unsent frames: pool whole");

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
		tap_eq(s.n, 0, "model check: a legacy descriptor sends nothing");
		ixm_adv_tx_reap(&r2.txq);
		ixm_adv_txq_release(&r2.txq);
		ixm_adv_rxq_release(&r2.rxq);
		tap_eq(r2.pool.nfree, NBUF, "legacy case: pool whole");
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

static void test_tx_chain(void)
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
	tap_ok(rig_up(&r), "chain: queue up");
	m[0] = chain(&r, 54, ext, la, 2, &inflight);
	m[1] = chain(&r, 66, ext + 1000, lb, 3, &inflight);
	m[2] = chain(&r, 60, NULL, NULL, 0, &inflight);
	tap_eq(ixm_adv_tx_burst(&r.txq, m, 3), 2,
	       "chain: 3 + 4 descriptors fill an 8-entry ring; the third frame waits");
	tap_eq(r.txq.full, 1, "chain: the refused frame is counted full");
	tap_eq(r.txq.next_to_use, 7, "chain: no descriptor of the refused frame posted");
	cmd = le32_to_cpu(r.txd[0].read.cmd_type_len);
	tap_eq(cmd, 0x22300000u | 54, "first descriptor: no EOP, no RS, the buffer's length");
	tap_eq(le32_to_cpu(r.txd[0].read.olinfo_status), (54u + 703) << 14,
	       "first descriptor: PAYLEN is the whole frame");
	tap_ok(le32_to_cpu(r.txd[1].read.cmd_type_len) == (0x22300000u | 700) &&
	       le64_to_cpu(r.txd[1].read.buffer_addr) == (uintptr_t)ext &&
	       !r.txd[1].read.olinfo_status,
	       "middle descriptor: the fragment, no EOP, no RS, olinfo 0");
	tap_eq(le32_to_cpu(r.txd[2].read.cmd_type_len), 0x2b300000u | 3,
	       "last descriptor: EOP and RS");
	tap_ok(!r.tslot[0] && !r.tslot[1] && r.tslot[2] == m[0] && r.tslot[6] == m[1],
	       "the buffer sits at its frame's last descriptor");

	/* DD on the header descriptor only (the device writes none there) */
	r.txd[0].wb.status |= cpu_to_le32(IXM_ADV_TXD_STAT_DD);
	i = r.pool.nfree;
	tap_eq(ixm_adv_tx_reap(&r.txq), 0, "reap waits for the frame's last descriptor");
	tap_ok(r.pool.nfree == i && inflight == 2,
	       "a frame is not freed before its last descriptor is done");

	tap_eq(igbm_tx(1, sink_fn, &s), 2, "chain: the device sends 2 frames");
	memcpy(want, m[0]->data, 54);
	memcpy(want + 54, ext, 703);
	tap_ok(s.len[0] == 757 && !memcmp(s.first, want, 757),
	       "chain: on the wire, the buffer then the fragments in order");
	tap_eq(s.len[1], 66u + 1448, "chain: second frame's length");
	tap_ok(!(r.txd[1].wb.status & cpu_to_le32(IXM_ADV_TXD_STAT_DD)) &&
	       (r.txd[2].wb.status & cpu_to_le32(IXM_ADV_TXD_STAT_DD)) &&
	       (r.txd[6].wb.status & cpu_to_le32(IXM_ADV_TXD_STAT_DD)),
	       "chain: the device wrote DD into the frames' last descriptors only");
	tap_eq(ixm_adv_tx_reap(&r.txq), 7, "chain: all 7 descriptors reaped");
	tap_eq(inflight, 0, "chain: both frames released their fragments");

	/* never sent: release frees it and its fragments */
	m[1] = chain(&r, 54, ext, la, 2, &inflight);
	tap_eq(ixm_adv_tx_burst(&r.txq, m + 1, 2), 2, "chain: room again");
	ixm_igb_ops.txq_stop(&r.nic, &r.txq);
	ixm_adv_txq_release(&r.txq);
	ixm_adv_rxq_release(&r.rxq);
	tap_ok(inflight == 0 && r.pool.nfree == NBUF,
	       "chain: release frees unsent frames and their fragments");
	rig_free(&r);
}

static void test_rss_irq(void)
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
	tap_ok(ok, "RSSRK: key byte 0 in the low byte of RSSRK0, in order");
	ok = true;
	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		ok &= ((igbm_reg(0x5c00 + (i / 4) * 4) >> (8 * (i % 4))) & 0xff) == reta[i];
	tap_ok(ok, "RETA: one byte per entry, entry 0 in the low byte");
	tap_eq(igbm_reg(0x5818), 0x00430002, "MRQC: RSS, IPv4, IPv4/TCP, IPv4/UDP");
	tap_ok(igbm_reg(0x5000) & (1u << 13), "RXCSUM.PCSD: the hash is written back");

	ixm_igb_ops.irq_enable(&r.nic, 0, 0);
	ixm_igb_ops.irq_enable(&r.nic, 3, 2);
	ixm_igb_ops.irq_enable(&r.nic, 9, 5);
	tap_ok(igbm_irq_routed(0, false, 0) && igbm_irq_routed(0, true, 0),
	       "queue 0 RX and TX -> vector 0");
	tap_ok(igbm_irq_routed(3, false, 2) && igbm_irq_routed(3, true, 2),
	       "queue 3 -> vector 2");
	tap_ok(igbm_irq_routed(9, false, 5) && igbm_irq_routed(9, true, 5) &&
	       igbm_irq_routed(1, false, 0) == false,
	       "queue 9 -> vector 5 (IVAR[1] upper half), queue 1 unrouted");
	ixm_igb_ops.irq_mask(&r.nic, 2);
	tap_ok(!igbm_irq_routed(3, false, 2) && igbm_irq_routed(9, false, 5),
	       "irq_mask masks only its vector");
	ixm_igb_ops.irq_disable(&r.nic);
	tap_eq(igbm.eims, 0, "irq_disable masks every vector");
	rig_free(&r);
}

int main(void)
{
	tap_plan(103);
	test_bringup();
	test_queue_start();
	test_rx();
	test_tx();
	test_tx_chain();
	test_rss_irq();
	return tap_exit();
}
