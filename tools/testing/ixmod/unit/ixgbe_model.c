// SPDX-License-Identifier: GPL-2.0
/*
 * ixgbe_model.c - tests of the 82599 register model (model/ixgbe_model.c)
 *
 * The model is what the 82599 driver will be proven against, so it is
 * tested first, as a careful driver would use it: the bring-up below is
 * written here from the datasheet (§4.6.3 reset, §4.6.7 RX, §4.6.8 TX),
 * with the test's own register offsets, and must leave no violation.
 * Breaking it one step at a time must raise exactly the rule that step
 * keeps.  Frames go through the rings both ways; checksums are verified
 * by sums computed here, the hash by the Microsoft RSS vectors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ixgbe_model.h"
#include "harness.h"

/* 82599 datasheet §8.2.3, transcribed again for the test */
#define CTRL		0x00000
#define CTRL_RST	(1u << 26)
#define EICR		0x00800
#define EIAC		0x00810
#define EIMS		0x00880
#define EIMC		0x00888
#define IVAR(n)		(0x00900 + (n) * 4)
#define RQSMR(n)	(0x02300 + (n) * 4)
#define RDRXCTL		0x02f00
#define DMAIDONE	(1u << 3)
#define RXCTRL		0x03000
#define RXEN		1u
#define MPC0		0x03fa0
#define RNBC0		0x03fc0
#define CRCERRS		0x04000
#define GPRC		0x04074
#define GPTC		0x04080
#define GORCL		0x04088
#define GORCH		0x0408c
#define GOTCL		0x04090
#define GOTCH		0x04094
#define LINKS		0x042a4
#define LINKS_UP	(1u << 30)
#define DMATXCTL	0x04a80
#define TE		1u
#define RXCSUM		0x05000
#define PCSD		(1u << 13)
#define QPRC(n)		(0x01030 + (n) * 0x40)
#define QPRDC(n)	(0x01430 + (n) * 0x40)
#define QPTC(n)		(0x08680 + (n) * 4)
#define RAL0		0x0a200
#define RAH0		0x0a204
#define RETA(n)		(0x0eb00 + (n) * 4)
#define RSSRK(n)	(0x0eb80 + (n) * 4)
#define MRQC		0x0ec80
#define EEC		0x10010
#define EEC_ARD		(1u << 9)
#define RDBAL(q)	((q) < 64 ? 0x01000 + (q) * 0x40 : 0x0d000 + ((q) - 64) * 0x40)
#define RDBAH(q)	(RDBAL(q) + 0x04)
#define RDLEN(q)	(RDBAL(q) + 0x08)
#define RDH(q)		(RDBAL(q) + 0x10)
#define SRRCTL(q)	(RDBAL(q) + 0x14)
#define RDT(q)		(RDBAL(q) + 0x18)
#define RXDCTL(q)	(RDBAL(q) + 0x28)
#define TDBAL(q)	(0x06000 + (q) * 0x40)
#define TDBAH(q)	(TDBAL(q) + 0x04)
#define TDLEN(q)	(TDBAL(q) + 0x08)
#define TDH(q)		(TDBAL(q) + 0x10)
#define TDT(q)		(TDBAL(q) + 0x18)
#define TXDCTL(q)	(TDBAL(q) + 0x28)
#define ENABLE		(1u << 25)
#define SRRCTL_ADV1	(1u << 25)
#define SRRCTL_DROP	(1u << 28)

#define RING	64
#define NQ	4
#define BUFSZ	2048

static const u8 station[6] = { 0x52, 0x54, 0x00, 0x82, 0x59, 0x09 };

static u32 rd(u32 off)
{
	return ixm_rd32(NULL, off);
}

static void wr(u32 off, u32 v)
{
	ixm_wr32(NULL, off, v);
}

/* Poll @off until (value & @mask) == @want, for at most @us. */
static bool poll(u32 off, u32 mask, u32 want, unsigned long us)
{
	unsigned long t;

	for (t = 0; t <= us; t += 10) {
		if ((rd(off) & mask) == want)
			return true;
		ixm_udelay(10);
	}
	return false;
}

/* Everything the datasheet's order lets a test break, one at a time. */
enum brk {
	B_NONE, B_WRITE_IN_RESET, B_SKIP_ARD, B_SKIP_DMAIDONE, B_TAIL_FIRST, B_NO_RING,
	B_MISALIGNED, B_LEGACY_SRRCTL, B_RXEN_FIRST, B_RXEN_NO_POLL, B_HEAD_WRITE,
	B_TAIL_RANGE, B_QUEUE_RANGE, B_NO_TE, B_NR
};

static const struct {
	const char		*name;
	enum ixgbem_rule	rule;
} breaks[B_NR] = {
	[B_NONE]		= { "none", IXGBEM_V_NR },
	[B_WRITE_IN_RESET]	= { "write during reset", IXGBEM_V_RESET_BUSY },
	[B_SKIP_ARD]		= { "MAC read without EEC.ARD", IXGBEM_V_EEC_WAIT },
	[B_SKIP_DMAIDONE]	= { "no DMAIDONE wait", IXGBEM_V_DMA_WAIT },
	[B_TAIL_FIRST]		= { "RDT before ENABLE", IXGBEM_V_TAIL_BEFORE_ENABLE },
	[B_NO_RING]		= { "ENABLE with RDLEN 0", IXGBEM_V_ENABLE_NO_RING },
	[B_MISALIGNED]		= { "ring base 64-aligned", IXGBEM_V_RING_ALIGN },
	[B_LEGACY_SRRCTL]	= { "SRRCTL legacy", IXGBEM_V_RX_CONFIG },
	[B_RXEN_FIRST]		= { "RXEN before the queues", IXGBEM_V_RXEN_BEFORE_QUEUES },
	[B_RXEN_NO_POLL]	= { "RXEN before ENABLE read back", IXGBEM_V_RXEN_BEFORE_QUEUES },
	[B_HEAD_WRITE]		= { "RDH on an enabled queue", IXGBEM_V_HEAD_WHILE_ENABLED },
	[B_TAIL_RANGE]		= { "RDT = ring size", IXGBEM_V_TAIL_RANGE },
	[B_QUEUE_RANGE]		= { "queue 1 of 1", IXGBEM_V_QUEUE_RANGE },
	[B_NO_TE]		= { "transmit without TE", IXGBEM_V_TX_NO_TE },
};

struct rig {
	u8	*rxd[NQ], *txd[NQ];
	u8	*buf[NQ][RING];
	u8	mac[6];
};

static void rig_alloc(struct rig *r)
{
	unsigned int q, i;

	memset(r, 0, sizeof(*r));
	for (q = 0; q < NQ; q++) {
		r->rxd[q] = aligned_alloc(128, RING * 16);
		r->txd[q] = aligned_alloc(128, RING * 16);
		memset(r->txd[q], 0, RING * 16);
		for (i = 0; i < RING; i++)
			r->buf[q][i] = aligned_alloc(64, BUFSZ);
	}
}

static void rig_free(struct rig *r)
{
	unsigned int q, i;

	for (q = 0; q < NQ; q++) {
		free(r->rxd[q]);
		free(r->txd[q]);
		for (i = 0; i < RING; i++)
			free(r->buf[q][i]);
	}
}

static void put64(u8 *p, u64 v)
{
	memcpy(p, &v, 8);	/* the host is little-endian, as the rings are */
}

static u32 get32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, 4);
	return v;
}

static u16 get16(const u8 *p)
{
	u16 v;

	memcpy(&v, p, 2);
	return v;
}

/* §4.6.3: reset, then the two done bits; the MAC from RAL0/RAH0 */
static bool dev_reset(struct rig *r, enum brk b)
{
	u32 lo, hi;

	wr(EIMC, 0x7fffffff);			/* §4.6.3.1 interrupts off */
	wr(CTRL, rd(CTRL) | CTRL_RST);		/* §4.6.3.2 global reset */
	if (b == B_WRITE_IN_RESET)
		wr(RXCTRL, 0);
	ixm_udelay(1000);
	if (!poll(CTRL, CTRL_RST, 0, 10000))
		return false;
	ixm_msleep(10);				/* "at least 10 ms" after */
	wr(EIMC, 0x7fffffff);
	if (b != B_SKIP_ARD && !poll(EEC, EEC_ARD, EEC_ARD, 100000))
		return false;
	if (b != B_SKIP_DMAIDONE && !poll(RDRXCTL, DMAIDONE, DMAIDONE, 100000))
		return false;
	lo = rd(RAL0);
	hi = rd(RAH0);
	memcpy(r->mac, &lo, 4);
	memcpy(r->mac + 4, &hi, 2);
	return true;
}

/* §4.6.7 per queue: ring, SRRCTL, ENABLE and its read-back, then RDT */
static bool rxq_start(struct rig *r, unsigned int q, unsigned int bkb, enum brk b)
{
	uintptr_t base = (uintptr_t)r->rxd[q] + (b == B_MISALIGNED ? 64 : 0);
	unsigned int i;

	for (i = 0; i < RING; i++) {
		put64(r->rxd[q] + i * 16, (uintptr_t)r->buf[q][i]);
		put64(r->rxd[q] + i * 16 + 8, 0);
	}
	wr(RDBAL(q), (u32)base);
	wr(RDBAH(q), (u32)((u64)base >> 32));
	wr(RDLEN(q), b == B_NO_RING ? 0 : RING * 16);
	wr(RDH(q), 0);
	wr(RDT(q), b == B_TAIL_FIRST ? RING - 1 : 0);
	wr(SRRCTL(q), (b == B_LEGACY_SRRCTL ? 0 : SRRCTL_ADV1) | SRRCTL_DROP | bkb);
	wr(RXDCTL(q), rd(RXDCTL(q)) | ENABLE);
	if (b == B_RXEN_NO_POLL)
		wr(RXCTRL, RXEN);
	if (!poll(RXDCTL(q), ENABLE, ENABLE, 10000))
		return false;
	if (b == B_HEAD_WRITE)
		wr(RDH(q), 0);
	wr(RDT(q), b == B_TAIL_RANGE ? RING : RING - 1);
	return true;
}

/* §4.6.8 per queue: TE first, the ring, ENABLE and its read-back */
static bool txq_start(struct rig *r, unsigned int q, enum brk b)
{
	if (b != B_NO_TE)
		wr(DMATXCTL, rd(DMATXCTL) | TE);
	wr(TDBAL(q), (u32)(uintptr_t)r->txd[q]);
	wr(TDBAH(q), (u32)((u64)(uintptr_t)r->txd[q] >> 32));
	wr(TDLEN(q), RING * 16);
	wr(TDH(q), 0);
	wr(TDT(q), 0);
	wr(TXDCTL(q), rd(TXDCTL(q)) | ENABLE);
	return poll(TXDCTL(q), ENABLE, ENABLE, 10000);
}

static bool bringup(struct rig *r, unsigned int nq, unsigned int bkb, enum brk b)
{
	unsigned int q;

	ixgbem_power_on(station);
	ixgbem.rx_queues = ixgbem.tx_queues = b == B_QUEUE_RANGE ? 1 : nq;
	if (!dev_reset(r, b))
		return false;
	wr(RXCTRL, 0);				/* §4.6.7: RX off meanwhile */
	if (b == B_RXEN_FIRST)
		wr(RXCTRL, RXEN);
	wr(RXCSUM, PCSD);			/* RSS hash in the write-back */
	for (q = 0; q < (b == B_QUEUE_RANGE ? 2 : nq); q++)
		if (!rxq_start(r, q, bkb, b))
			return false;
	wr(RXCTRL, RXEN);
	for (q = 0; q < nq; q++)
		if (!txq_start(r, q, b))
			return false;
	return true;
}

/* ---- frames: model_frames.h, to station[] ---- */

#include "model_frames.h"

#define IP4(a, b, c, d)	((u32)(a) << 24 | (b) << 16 | (c) << 8 | (d))

/* ---- reset and bring-up ---- */

TEST(ixgbem_reset_timing)
{
	struct rig r;

	rig_alloc(&r);
	ixgbem_power_on(station);
	wr(CTRL, CTRL_RST);
	EXPECT_TRUE(rd(CTRL) & CTRL_RST) TH_LOG("RST reads set while the reset runs");
	ixm_udelay(IXGBEM_RST_US - 10);
	EXPECT_TRUE(rd(CTRL) & CTRL_RST) TH_LOG("... until %u us", IXGBEM_RST_US);
	ixm_udelay(10);
	EXPECT_FALSE(rd(CTRL) & CTRL_RST) TH_LOG("RST self-clears after %u us", IXGBEM_RST_US);
	EXPECT_FALSE(rd(EEC) & EEC_ARD) TH_LOG("EEC.ARD not yet set");
	EXPECT_FALSE(rd(RDRXCTL) & DMAIDONE) TH_LOG("DMAIDONE not yet set");
	ixm_udelay(IXGBEM_ARD_US);
	EXPECT_TRUE(rd(EEC) & EEC_ARD) TH_LOG("EEC.ARD %u us after the reset", IXGBEM_ARD_US);
	EXPECT_FALSE(rd(RDRXCTL) & DMAIDONE) TH_LOG("DMAIDONE still not");
	ixm_udelay(IXGBEM_DMAIDONE_US - IXGBEM_ARD_US);
	EXPECT_TRUE(rd(RDRXCTL) & DMAIDONE) TH_LOG("DMAIDONE at %u us", IXGBEM_DMAIDONE_US);
	EXPECT_EQ(0, ixgbem_violations());

	ASSERT_TRUE(bringup(&r, 1, 2, B_NONE)) TH_LOG("the datasheet bring-up completes");
	EXPECT_EQ(0, ixgbem_violations()) TH_LOG("and breaks no rule (last: %s)",
						  ixgbem.last_violation);
	EXPECT_EQ(0, memcmp(r.mac, station, 6)) TH_LOG("RAL0/RAH0 hold the EEPROM's MAC");
	EXPECT_TRUE(rd(RAH0) & (1u << 31)) TH_LOG("RAH0.AV set");

	ixgbem.rst_stuck = true;
	ixgbem_power_on(station);
	EXPECT_FALSE(dev_reset(&r, B_NONE)) TH_LOG("a reset that never ends is seen");
	ixgbem.rst_stuck = false;
	ixgbem.ard_stuck = true;
	ixgbem_power_on(station);
	EXPECT_FALSE(dev_reset(&r, B_NONE)) TH_LOG("an EEPROM read that never ends is seen");
	ixgbem.ard_stuck = false;
	ixgbem.dmaidone_stuck = true;
	ixgbem_power_on(station);
	EXPECT_FALSE(dev_reset(&r, B_NONE)) TH_LOG("a DMA init that never ends is seen");
	ixgbem.dmaidone_stuck = false;
	ixgbem.enable_stuck = true;
	EXPECT_FALSE(bringup(&r, 1, 2, B_NONE)) TH_LOG("ENABLE that never latches is seen");
	EXPECT_EQ(0, ixgbem.tail_writes);
	EXPECT_FALSE(ixgbem.tail_before_enable) TH_LOG("and no tail was bumped");
	EXPECT_EQ(0, ixgbem_violations());
	ixgbem.enable_stuck = false;
	rig_free(&r);
}

static void send_one(struct rig *r, unsigned int q, const u8 *f, unsigned int len)
{
	u8 *d = r->txd[q] + rd(TDT(q)) * 16;
	static u8 copy[BUFSZ];

	memcpy(copy, f, len);
	put64(d, (uintptr_t)copy);
	/* DTYP data, DEXT, EOP, IFCS, RS; PAYLEN */
	put64(d + 8, (u64)len << 46 | 0x2b300000ull | len);
	wr(TDT(q), (rd(TDT(q)) + 1) % RING);
}

static void count_sent(const u8 *frame, unsigned int len, void *arg)
{
	(*(unsigned int *)arg)++;
}

TEST(ixgbem_rules_one_at_a_time)
{
	unsigned int b, rule, bad = 0;
	struct rig r;
	u8 f[128];
	unsigned int len = mkframe(f, 17, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 2, 20, true);

	rig_alloc(&r);
	for (b = 0; b < B_NR; b++) {
		unsigned int sent = 0;

		bringup(&r, 1, 2, b);
		if (b == B_NO_TE || b == B_NONE) {
			send_one(&r, 0, f, len);
			ixgbem_tx(0, count_sent, &sent);
			EXPECT_EQ(b == B_NONE ? 1 : 0, sent) TH_LOG("%s: frames sent", breaks[b].name);
		}
		for (rule = 0; rule < IXGBEM_V_NR; rule++) {
			bool want = rule == breaks[b].rule;

			if (want != !!ixgbem.viol[rule] && bad++ < IXM_DIAG_MAX)
				TH_LOG("break \"%s\": rule \"%s\" counted %u, expected %s",
				       breaks[b].name, ixgbem_rule_name(rule), ixgbem.viol[rule],
				       want ? "some" : "none");
		}
	}
	EXPECT_EQ(0, bad) TH_LOG("each break raises its own rule and no other");

	/* queue indices the chip does not have */
	bringup(&r, 1, 2, B_NONE);
	EXPECT_EQ(-1, ixgbem_rx_to(IXGBEM_MAX_RXQ, f, len));
	EXPECT_EQ(0, ixgbem_tx(IXGBEM_MAX_TXQ + 2, count_sent, &b));
	EXPECT_EQ(2, ixgbem.viol[IXGBEM_V_QUEUE_RANGE]) TH_LOG("queue 128 and 130 of the chip");
	wr(RETA(0), 0x00000100);			/* entry 1 -> queue 1 of 1 */
	EXPECT_EQ(3, ixgbem.viol[IXGBEM_V_QUEUE_RANGE]) TH_LOG("RETA naming queue 1 of 1");
	wr(IVAR(0), 0x80u << 16);			/* RX queue 1 of 1 */
	EXPECT_EQ(4, ixgbem.viol[IXGBEM_V_QUEUE_RANGE]) TH_LOG("IVAR routing queue 1 of 1");
	wr(IVAR(0), 0xc0);				/* vector 64 */
	EXPECT_EQ(1, ixgbem.viol[IXGBEM_V_IVAR_RANGE]) TH_LOG("IVAR vector 64");
	EXPECT_EQ(5, ixgbem_violations());
	rig_free(&r);
}

/* ---- receive ---- */

TEST(ixgbem_rx_writeback)
{
	struct rig r;
	u8 f[256], *d;
	unsigned int len;

	rig_alloc(&r);
	ASSERT_TRUE(bringup(&r, 1, 2, B_NONE));
	ixm_udelay(IXGBEM_LINK_US);
	ASSERT_TRUE(rd(LINKS) & LINKS_UP);

	len = mkframe(f, 17, IP4(192, 0, 2, 1), IP4(192, 0, 2, 2), 1000, 2000, 100, true);
	EXPECT_EQ(0, ixgbem_rx(f, len)) TH_LOG("RSS off: queue 0");
	d = r.rxd[0];
	EXPECT_EQ(0x3 | 0x70, get32(d + 8)) TH_LOG("DD, EOP, UDPCS, L4CS, IPCS; no error");
	EXPECT_EQ(len, get16(d + 12)) TH_LOG("PKT_LEN");
	EXPECT_EQ(0x210, get32(d) & 0x1fff0) TH_LOG("packet type IPv4 + UDP");
	EXPECT_EQ(0, get32(d) & 0xf) TH_LOG("RSS type 0 with RSS off");
	EXPECT_EQ(0, memcmp(r.buf[0][0], f, len)) TH_LOG("the frame is in the buffer");
	EXPECT_EQ(1, rd(RDH(0))) TH_LOG("RDH advanced");

	f[14 + 10] ^= 1;				/* break the IP checksum */
	EXPECT_EQ(0, ixgbem_rx(f, len));
	EXPECT_EQ(0x80000000, get32(r.rxd[0] + 16 + 8) & 0xc0000000) TH_LOG("IPE, not L4E");
	f[14 + 10] ^= 1;
	f[len - 1] ^= 1;				/* and the UDP one */
	EXPECT_EQ(0, ixgbem_rx(f, len));
	EXPECT_EQ(0x40000000, get32(r.rxd[0] + 32 + 8) & 0xc0000000) TH_LOG("L4E, not IPE");
	f[len - 1] ^= 1;
	len = mkframe(f, 6, IP4(192, 0, 2, 1), IP4(192, 0, 2, 2), 1000, 2000, 10, true);
	EXPECT_EQ(0, ixgbem_rx(f, len));
	EXPECT_EQ(0x3 | 0x60, get32(r.rxd[0] + 48 + 8)) TH_LOG("TCP: L4CS, IPCS, no UDPCS");
	EXPECT_EQ(0, ixgbem_violations());
	rig_free(&r);
}

TEST(ixgbem_rx_spanning_and_no_buffers)
{
	static u8 f[4096], out[4096];
	struct rig r;
	unsigned int len, i, off = 0;

	rig_alloc(&r);
	ASSERT_TRUE(bringup(&r, 1, 1, B_NONE)) TH_LOG("1 KiB buffers");
	ixm_udelay(IXGBEM_LINK_US);
	len = mkframe(f, 17, IP4(10, 1, 1, 1), IP4(10, 1, 1, 2), 5, 6, 2500 - 42, true);
	ASSERT_EQ(2500, len);
	EXPECT_EQ(0, ixgbem_rx(f, len));
	for (i = 0; i < 3; i++) {
		const u8 *d = r.rxd[0] + i * 16;
		u32 st = get32(d + 8);

		EXPECT_EQ(i < 2 ? 1024 : 452, get16(d + 12)) TH_LOG("descriptor %u length", i);
		EXPECT_TRUE(st & 1) TH_LOG("DD on descriptor %u", i);
		EXPECT_EQ(i == 2, !!(st & 2)) TH_LOG("EOP on the last only (%u)", i);
		memcpy(out + off, r.buf[0][i], get16(d + 12));
		off += get16(d + 12);
	}
	EXPECT_EQ(0, memcmp(out, f, len)) TH_LOG("the buffers hold the frame in order");
	EXPECT_EQ(3, rd(RDH(0)));

	/* RDT = 63, RDH = 3: 60 free; leave 2 and send a 3-buffer frame */
	wr(RDT(0), 5);
	EXPECT_EQ(-2, ixgbem_rx(f, len)) TH_LOG("too few descriptors");
	EXPECT_EQ(1, rd(RNBC0)) TH_LOG("RNBC counts it");
	EXPECT_EQ(1, rd(QPRDC(0))) TH_LOG("dropped (DROP_EN) to QPRDC");
	EXPECT_EQ(0, rd(MPC0));
	wr(SRRCTL(0), SRRCTL_ADV1 | 1);			/* DROP_EN off */
	EXPECT_EQ(-2, ixgbem_rx(f, len));
	EXPECT_EQ(1, rd(MPC0)) TH_LOG("without DROP_EN: missed (MPC)");
	EXPECT_EQ(3, rd(RDH(0))) TH_LOG("nothing consumed");
	EXPECT_EQ(0, ixgbem_violations());

	put64(r.rxd[0] + 4 * 16, 0);			/* a descriptor with no buffer */
	wr(RDT(0), 10);
	EXPECT_EQ(-1, ixgbem_rx(f, len));
	EXPECT_EQ(1, ixgbem.viol[IXGBEM_V_RX_CONFIG]) TH_LOG("caught, nothing written");
	EXPECT_EQ(3, rd(RDH(0)));
	rig_free(&r);
}

/* ---- transmit ---- */

struct capture {
	u8		frame[BUFSZ];
	unsigned int	len, n;
};

static void capture_frame(const u8 *frame, unsigned int len, void *arg)
{
	struct capture *c = arg;

	memcpy(c->frame, frame, len);
	c->len = len;
	c->n++;
}

/* A context descriptor and @frame split into three data descriptors. */
static void send_offload(struct rig *r, u8 *f, unsigned int len, bool tcp, u32 popts,
			 u32 paylen)
{
	unsigned int t = rd(TDT(0)), cut[4] = { 0, 14, 34 + (tcp ? 20 : 8), len }, i;
	u8 *d = r->txd[0] + t * 16;

	/* §7.2.3.2.3: MACLEN 14, IPLEN 20; TUCMD IPV4 + L4T; DTYP 0010b */
	put64(d, 14 << 9 | 20);
	put64(d + 8, 0x20200000ull | 1u << 10 | (tcp ? 1u << 11 : 0));
	t = (t + 1) % RING;
	for (i = 0; i < 3; i++) {
		u64 cmd = 0x22300000ull | (cut[i + 1] - cut[i]);	/* DEXT IFCS data */

		if (i == 2)
			cmd |= 1u << 24 | 1u << 27;			/* EOP, RS */
		if (i == 0)
			cmd |= (u64)((u64)paylen << 14 | popts) << 32;
		d = r->txd[0] + t * 16;
		put64(d, (uintptr_t)(f + cut[i]));
		put64(d + 8, cmd);
		t = (t + 1) % RING;
	}
	wr(TDT(0), t);
}

TEST(ixgbem_tx_gather_checksums)
{
	static u8 f[BUFSZ];
	struct capture c = { 0 };
	struct rig r;
	unsigned int len, i;
	u8 *ip = c.frame + 14;
	bool tcp;

	rig_alloc(&r);
	ASSERT_TRUE(bringup(&r, 1, 2, B_NONE));
	for (i = 0; i < 2; i++) {
		tcp = i == 0;
		len = mkframe(f, tcp ? 6 : 17, IP4(198, 18, 0, 1), IP4(198, 18, 0, 2), 4000, 80,
			      300, false);
		/* what a stack hands over for offload: the pseudo-header sum */
		be16put(f + 34 + (tcp ? 16 : 6), csum(NULL, 0, pseudo(f + 14)));
		send_offload(&r, f, len, tcp, 0x300, len);	/* IXSM | TXSM */
		c.n = 0;
		EXPECT_EQ(1, ixgbem_tx(0, capture_frame, &c)) TH_LOG("%s: one frame", tcp ? "TCP" : "UDP");
		ASSERT_EQ(len, c.len) TH_LOG("three fragments gathered");
		EXPECT_EQ(0, memcmp(c.frame + 34 + 20, f + 34 + 20, len - 54)) TH_LOG("payload");
		EXPECT_EQ(0xffff, csum(ip, 20, 0)) TH_LOG("IPv4 header checksum inserted");
		EXPECT_EQ(0xffff, csum(ip + 20, len - 34, pseudo(ip))) {
			TH_LOG("%s checksum inserted, pseudo-header included", tcp ? "TCP" : "UDP");
		}
		EXPECT_EQ(1, get32(r.txd[0] + ((rd(TDT(0)) + RING - 1) % RING) * 16 + 12) & 1) {
			TH_LOG("DD written back on the RS descriptor");
		}
		EXPECT_EQ(rd(TDT(0)), rd(TDH(0))) TH_LOG("TDH reached TDT");
	}
	EXPECT_EQ(0, ixgbem_violations());

	send_offload(&r, f, len, false, 0x300, len - 1);
	EXPECT_EQ(0, ixgbem_tx(0, capture_frame, &c));
	EXPECT_EQ(1, ixgbem.viol[IXGBEM_V_TX_PAYLEN]) TH_LOG("PAYLEN not the frame: caught");

	/* a fresh queue has no context: checksum offload without one */
	ixgbem.ctx[0][0].valid = false;
	i = rd(TDT(0));
	put64(r.txd[0] + i * 16, (uintptr_t)f);
	put64(r.txd[0] + i * 16 + 8, ((u64)len << 46 | 0x100ull << 32) | 0x2b300000ull | len);
	wr(TDT(0), (i + 1) % RING);
	EXPECT_EQ(0, ixgbem_tx(0, capture_frame, &c));
	EXPECT_EQ(1, ixgbem.viol[IXGBEM_V_TX_CONTEXT]) TH_LOG("IXSM with no context: caught");
	EXPECT_EQ(2, ixgbem_violations());
	rig_free(&r);
}

/* ---- RSS ---- */

static const u8 ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Microsoft's "Verifying the RSS hash calculation", IPv4 rows */
static const struct {
	u32 da; u16 dp; u32 sa; u16 sp; u32 ipv4, tcp;
} msv[] = {
	{ IP4(161, 142, 100, 80), 1766, IP4(66, 9, 149, 187), 2794, 0x323e8fc2, 0x51ccc178 },
	{ IP4(65, 69, 140, 83), 4739, IP4(199, 92, 111, 2), 14230, 0xd718262a, 0xc626b0ea },
	{ IP4(12, 22, 207, 184), 38024, IP4(24, 19, 198, 95), 12898, 0xd2d0a5de, 0x5c2b394a },
	{ IP4(209, 142, 163, 6), 2217, IP4(38, 27, 205, 30), 48228, 0x82989176, 0xafc7327f },
	{ IP4(202, 188, 127, 2), 1303, IP4(153, 39, 163, 191), 44251, 0x5d1809c5, 0x10e828a2 },
};

TEST(ixgbem_rss)
{
	unsigned int i, q;
	struct rig r;
	u8 f[256], in[12];

	rig_alloc(&r);
	ASSERT_TRUE(bringup(&r, NQ, 2, B_NONE));
	ixm_udelay(IXGBEM_LINK_US);
	for (i = 0; i < 10; i++)			/* key byte 4i in bits 7:0 */
		wr(RSSRK(i), ms_key[4 * i] | ms_key[4 * i + 1] << 8 | ms_key[4 * i + 2] << 16 |
		   (u32)ms_key[4 * i + 3] << 24);
	for (i = 0; i < 32; i++)			/* entry n -> queue n % 4 */
		wr(RETA(i), 0x03020100);
	wr(MRQC, 1 | 1u << 16 | 1u << 17);		/* RSS; TCP/IPv4, IPv4 */

	for (i = 0; i < ARRAY_SIZE(msv); i++) {
		const u8 *d;
		unsigned int h;

		be32put(in, msv[i].sa);
		be32put(in + 4, msv[i].da);
		be16put(in + 8, msv[i].sp);
		be16put(in + 10, msv[i].dp);
		EXPECT_EQ(msv[i].ipv4, ixgbem_toeplitz(in, 8)) TH_LOG("vector %u, IPv4", i);
		EXPECT_EQ(msv[i].tcp, ixgbem_toeplitz(in, 12)) TH_LOG("vector %u, TCP/IPv4", i);

		mkframe(f, 6, msv[i].sa, msv[i].da, msv[i].sp, msv[i].dp, 0, true);
		q = (msv[i].tcp & 127) % 4;
		h = rd(RDH(q));
		EXPECT_EQ(q, ixgbem_rx(f, 54)) TH_LOG("vector %u: RETA[hash & 127] = %u", i, q);
		d = r.rxd[q] + h * 16;
		EXPECT_EQ(msv[i].tcp, get32(d + 4)) TH_LOG("the hash is written back");
		EXPECT_EQ(1, get32(d) & 0xf) TH_LOG("RSS type TCP/IPv4");

		mkframe(f, 17, msv[i].sa, msv[i].da, msv[i].sp, msv[i].dp, 0, true);
		q = (msv[i].ipv4 & 127) % 4;
		EXPECT_EQ(q, ixgbem_rx(f, 42)) TH_LOG("UDP without its hash bit: 2-tuple");
	}
	EXPECT_EQ(0, ixgbem_violations());
	rig_free(&r);
}

/* ---- interrupts ---- */

TEST(ixgbem_ivar_routing)
{
	struct rig r;
	u8 f[128];
	unsigned int len = mkframe(f, 17, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 2, 20, true);

	rig_alloc(&r);
	ASSERT_TRUE(bringup(&r, NQ, 2, B_NONE));
	ixm_udelay(IXGBEM_LINK_US);
	/* §8.2.3.5.16: IVAR[1] covers queues 2 (bits 15:0) and 3 (31:16) */
	wr(IVAR(1), (0x80u | 5) << 16 | (0x80u | 6) << 24 | (0x80u | 2) | (0x80u | 9) << 8);
	wr(EIMS, 1u << 5 | 1u << 6 | 1u << 2);
	EXPECT_TRUE(ixgbem_irq_routed(3, false, 5)) TH_LOG("RX 3 -> vector 5");
	EXPECT_TRUE(ixgbem_irq_routed(3, true, 6)) TH_LOG("TX 3 -> vector 6");
	EXPECT_TRUE(ixgbem_irq_routed(2, false, 2)) TH_LOG("RX 2 -> vector 2");
	EXPECT_FALSE(ixgbem_irq_routed(2, true, 9)) TH_LOG("TX 2 -> vector 9, masked");
	EXPECT_FALSE(ixgbem_irq_routed(3, false, 6)) TH_LOG("RX 3 is not on vector 6");

	EXPECT_EQ(3, ixgbem_rx_to(3, f, len));
	EXPECT_EQ(1, ixgbem.irqs[5]) TH_LOG("a frame on RX 3 sends vector 5");
	EXPECT_EQ(1u << 5, rd(EICR) & 0xffff) TH_LOG("EICR shows the cause ...");
	EXPECT_EQ(0, rd(EICR) & 0xffff) TH_LOG("... and reading clears it");
	wr(EIAC, 1u << 5);
	EXPECT_EQ(3, ixgbem_rx_to(3, f, len));
	EXPECT_EQ(2, ixgbem.irqs[5]);
	EXPECT_EQ(0, rd(EICR) & 0xffff) TH_LOG("EIAC auto-clears it when sent");
	wr(EIMC, 1u << 5);
	EXPECT_FALSE(ixgbem_irq_routed(3, false, 5)) TH_LOG("EIMC masks vector 5");
	EXPECT_EQ(3, ixgbem_rx_to(3, f, len));
	EXPECT_EQ(2, ixgbem.irqs[5]) TH_LOG("no message while masked");
	EXPECT_EQ(1u << 5, rd(EICR) & 0xffff) TH_LOG("but the cause is latched");
	EXPECT_EQ(0, ixgbem_violations());
	rig_free(&r);
}

/* ---- statistics and link ---- */

TEST(ixgbem_counters_clear_on_read)
{
	struct rig r;
	u8 f[256];
	unsigned int len = mkframe(f, 17, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 2, 50, true);
	unsigned int sent = 0;

	rig_alloc(&r);
	ASSERT_TRUE(bringup(&r, 2, 2, B_NONE));
	ixm_udelay(IXGBEM_LINK_US);
	wr(RQSMR(0), 2u << 8);				/* queue 1 -> counter 2 */
	ixgbem_rx_to(0, f, len);
	ixgbem_rx_to(0, f, len);
	ixgbem_rx_to(1, f, len);
	ixgbem_rx_bad_crc(f, len);
	send_one(&r, 0, f, len);
	send_one(&r, 0, f, len);
	EXPECT_EQ(2, ixgbem_tx(0, count_sent, &sent));

	EXPECT_EQ(3, rd(GPRC));
	EXPECT_EQ(0, rd(GPRC)) TH_LOG("GPRC clears on read");
	EXPECT_EQ(3 * (len + 4), rd(GORCL)) TH_LOG("GORC counts the FCS too");
	EXPECT_EQ(0, rd(GORCH));
	EXPECT_EQ(0, rd(GORCL)) TH_LOG("GORCL clears on read");
	EXPECT_EQ(2, rd(QPRC(0))) TH_LOG("queue 0 -> counter 0");
	EXPECT_EQ(1, rd(QPRC(2))) TH_LOG("queue 1 -> counter 2 (RQSMR)");
	EXPECT_EQ(0, rd(QPRC(0)));
	EXPECT_EQ(1, rd(CRCERRS));
	EXPECT_EQ(0, rd(CRCERRS));
	EXPECT_EQ(2, rd(GPTC));
	EXPECT_EQ(0, rd(GPTC));
	EXPECT_EQ(2 * (len + 4), rd(GOTCL));
	EXPECT_EQ(0, rd(GOTCH));
	EXPECT_EQ(2, rd(QPTC(0)));
	EXPECT_EQ(0, rd(QPTC(0)));
	wr(GPRC, 5);
	EXPECT_EQ(0, rd(GPRC)) TH_LOG("a write does not set a counter");
	EXPECT_EQ(0, ixgbem_violations());
	rig_free(&r);
}

TEST(ixgbem_link)
{
	struct rig r;
	u8 f[128];
	unsigned int len = mkframe(f, 17, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 2, 20, true);

	rig_alloc(&r);
	ASSERT_TRUE(bringup(&r, 1, 2, B_NONE));
	EXPECT_FALSE(rd(LINKS) & LINKS_UP) TH_LOG("link still training after bring-up");
	EXPECT_EQ(-1, ixgbem_rx(f, len)) TH_LOG("no frame without link");
	ixm_udelay(IXGBEM_LINK_US);
	EXPECT_EQ(LINKS_UP | 3u << 28, rd(LINKS) & (LINKS_UP | 3u << 28)) TH_LOG("up, 10 Gb/s");
	EXPECT_TRUE(rd(EICR) & (1u << 20)) TH_LOG("EICR.LSC on the change");
	EXPECT_EQ(0, ixgbem_rx(f, len));

	ixgbem_link_down();
	EXPECT_FALSE(rd(LINKS) & LINKS_UP) TH_LOG("down at once");
	EXPECT_TRUE(rd(EICR) & (1u << 20)) TH_LOG("EICR.LSC again");
	EXPECT_EQ(-1, ixgbem_rx(f, len));
	ixgbem.link_speed = 1000;
	ixgbem_link_up();
	EXPECT_FALSE(rd(LINKS) & LINKS_UP) TH_LOG("not up at once");
	ixm_udelay(IXGBEM_LINK_US);
	EXPECT_EQ(LINKS_UP | 2u << 28, rd(LINKS) & (LINKS_UP | 3u << 28)) TH_LOG("up, 1 Gb/s");
	EXPECT_EQ(0, ixgbem_violations());
	rig_free(&r);
}

TEST_HARNESS_MAIN
