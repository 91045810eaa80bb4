// SPDX-License-Identifier: GPL-2.0
/*
 * ixgbe_model.c - the 82599 as ixmod's host tests see it (ixgbe_model.h)
 *
 * Section numbers are the 82599 datasheet's (Intel 82599 10 GbE
 * Controller Datasheet, rev. 3.x).  Only what ixmod uses is modelled; any
 * other register stores what is written.  Frames carry no FCS: the model
 * behaves as if CRC stripping were on and counts the 4 bytes in the octet
 * counters, which include the FCS (§8.2.3.23).
 *
 * The bring-up order the model accepts (§4.6.3, §4.6.7, §4.6.8):
 *
 *   1. CTRL.RST (or LNK_RST); poll until it reads 0.  Nothing but CTRL
 *      may be written while it is set (IXGBEM_V_RESET_BUSY).
 *   2. Poll EEC.ARD until set (before reading RAL0/RAH0: V_EEC_WAIT), then
 *      RDRXCTL.DMAIDONE until set (before any queue register, RXCTRL or
 *      DMATXCTL is written: V_DMA_WAIT).
 *   3. RX, per queue: RDBAL/RDBAH/RDLEN (128-byte aligned), RDH = RDT = 0,
 *      SRRCTL (advanced one-buffer, BSIZEPACKET != 0), then RXDCTL.ENABLE
 *      and poll until it reads 1; only then RDT (V_TAIL_BEFORE_ENABLE).
 *   4. RXCTRL.RXEN last, once every queue that was enabled has latched
 *      (V_RXEN_BEFORE_QUEUES).
 *   5. TX: DMATXCTL.TE; per queue TDBAL/TDBAH/TDLEN, TDH = TDT = 0,
 *      TXDCTL.ENABLE and poll; descriptors only after (and never with TE
 *      clear: V_TX_NO_TE).
 *
 * Queue indices must be below ixgbem.rx_queues/tx_queues (the count the
 * test configured the driver for) and the chip's 128 (V_QUEUE_RANGE).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ixgbe_model.h"
#include "rss_model.h"

static struct ixgbem_dev ixgbem_first;
struct ixgbem_dev *ixgbem_cur = &ixgbem_first;
static struct ixgbem_dev *ixgbem_devs[IXGBEM_MAX_DEVS] = { &ixgbem_first };

/* §8.2.3 register map (byte offsets), written from the datasheet */
#define M_CTRL		0x00000		/* §8.2.3.1.1 */
#define  CTRL_LNK_RST	(1u << 3)
#define  CTRL_RST	(1u << 26)
#define M_STATUS	0x00008
#define M_EICR		0x00800		/* §8.2.3.5.1 */
#define M_EICS		0x00808
#define M_EIAC		0x00810
#define M_EIMS		0x00880
#define M_EIMC		0x00888
#define  EICR_RTXQ	0x0000ffffu	/* MSI-X: vectors 0-15 */
#define  EICR_LSC	(1u << 20)
#define M_IVAR(n)	(0x00900 + (n) * 4)	/* §8.2.3.5.16, n < 64 */
#define M_IVAR_MISC	0x00a00
#define M_EICS_EX(n)	(0x00a90 + (n) * 4)	/* vectors 32n..32n+31 */
#define M_EIMS_EX(n)	(0x00aa0 + (n) * 4)
#define M_EIMC_EX(n)	(0x00ab0 + (n) * 4)
#define M_RQSMR(n)	(0x02300 + (n) * 4)	/* §8.2.3.8.x, 32 of them */
#define M_RDRXCTL	0x02f00		/* §8.2.3.8.8 */
#define  RDRXCTL_DMAIDONE (1u << 3)
#define M_RXCTRL	0x03000		/* §8.2.3.8.10 */
#define  RXCTRL_RXEN	(1u << 0)
#define M_MPC(n)	(0x03fa0 + (n) * 4)	/* §8.2.3.23 statistics */
#define M_RNBC(n)	(0x03fc0 + (n) * 4)
#define M_CRCERRS	0x04000
#define M_GPRC		0x04074
#define M_GPTC		0x04080
#define M_GORCL		0x04088
#define M_GORCH		0x0408c
#define M_GOTCL		0x04090
#define M_GOTCH		0x04094
#define M_TPR		0x040d0
#define M_TPT		0x040d4
#define M_AUTOC		0x042a0		/* §8.2.3.22.19 */
#define  AUTOC_AN_RESTART (1u << 12)
#define M_LINKS		0x042a4		/* §8.2.3.22.20 */
#define  LINKS_UP	(1u << 30)
#define  LINKS_SPEED_SHIFT 28		/* 01b 100M, 10b 1G, 11b 10G */
#define M_DMATXCTL	0x04a80		/* §8.2.3.9.2 */
#define  DMATXCTL_TE	(1u << 0)
#define M_RXCSUM	0x05000		/* §8.2.3.7.5 */
#define  RXCSUM_PCSD	(1u << 13)
#define M_TQSM(n)	(0x08600 + (n) * 4)
#define M_QPTC(n)	(0x08680 + (n) * 4)	/* n < 16 */
#define M_QPRC(n)	(0x01030 + (n) * 0x40)
#define M_QPRDC(n)	(0x01430 + (n) * 0x40)
#define M_RAL0		0x0a200		/* §8.2.3.7.9 */
#define M_RAH0		0x0a204
#define M_RETA(n)	(0x0eb00 + (n) * 4)	/* §8.2.3.7.15, n < 32 */
#define M_RSSRK(n)	(0x0eb80 + (n) * 4)	/* §8.2.3.7.16, n < 10 */
#define M_MRQC		0x0ec80		/* §8.2.3.7.12 */
#define  MRQC_MRQE	0xfu		/* 0001b: RSS only; field enables: rss_model.h */
#define M_RFCTL		0x05008		/* IPV6_EX_DIS: rss_model.h */
#define M_EEC		0x10010		/* §8.2.3.2.1 */
#define M_SECRXCTRL	0x08d00		/* §8.2.3.12.5 */
#define  SECRXCTRL_RX_DIS (1u << 1)
#define M_SECRXSTAT	0x08d04		/* §8.2.3.12.6 */
#define  SECRXSTAT_RDY	(1u << 0)
#define  EEC_PRES	(1u << 8)
#define  EEC_ARD	(1u << 9)

/* §8.2.3.8 / §8.2.3.9: queue blocks, 0x40 apart */
#define Q_BAL		0x00
#define Q_BAH		0x04
#define Q_LEN		0x08
#define Q_SRRCTL	0x14		/* RX only */
#define Q_HEAD		0x10
#define Q_TAIL		0x18
#define Q_DCTL		0x28
#define  DCTL_ENABLE	(1u << 25)
#define  SRRCTL_BSIZE	0x1fu		/* BSIZEPACKET, 1 KiB units */
#define  SRRCTL_DESCTYPE(v) (((v) >> 25) & 7)	/* 001b: advanced one-buffer */
#define  SRRCTL_DROP_EN	(1u << 28)

/* §7.1.6.2 advanced RX write-back */
#define RXD_DD		(1u << 0)
#define RXD_EOP		(1u << 1)
#define RXD_UDPCS	(1u << 4)
#define RXD_L4CS	(1u << 5)
#define RXD_IPCS	(1u << 6)
#define RXD_ERR_L4E	(1u << 30)
#define RXD_ERR_IPE	(1u << 31)
#define PTYPE_IPV4	0x010u		/* dword 0, bits 16:4 */
#define PTYPE_TCP	0x100u
#define PTYPE_UDP	0x200u

/* §7.2.3.2.3 context and §7.2.3.2.4 data descriptors (QW1) */
#define TXD_DTYP(c)	(((c) >> 20) & 0xf)	/* 0010b context, 0011b data */
#define TXD_EOP		(1u << 24)
#define TXD_IFCS	(1u << 25)
#define TXD_RS		(1u << 27)
#define TXD_DEXT	(1u << 29)
#define TXD_TSE		(1u << 31)
#define TXD_IDX(o)	(((o) >> 4) & 7)	/* olinfo / mss_l4len_idx */
#define TXD_IXSM	(1u << 8)		/* olinfo POPTS */
#define TXD_TXSM	(1u << 9)
#define TXD_PAYLEN(o)	((o) >> 14)
#define TXD_STA_DD	(1u << 0)		/* write-back, QW1 bit 32 */
#define TUCMD_IPV4	(1u << 10)
#define TUCMD_L4T(t)	(((t) >> 11) & 3)	/* 00 UDP, 01 TCP, 10 SCTP */

static const char *const rule_names[IXGBEM_V_NR] = {
	[IXGBEM_V_RESET_BUSY]		= "register written during reset (§4.6.3.2)",
	[IXGBEM_V_EEC_WAIT]		= "EEC.ARD not polled (§4.6.3)",
	[IXGBEM_V_DMA_WAIT]		= "RDRXCTL.DMAIDONE not polled (§4.6.3)",
	[IXGBEM_V_ENABLE_NO_RING]	= "queue enabled without a ring (§4.6.7, §4.6.8)",
	[IXGBEM_V_RING_ALIGN]		= "ring base/length not 128-byte aligned (§8.2.3.8.1)",
	[IXGBEM_V_TAIL_BEFORE_ENABLE]	= "tail bumped before ENABLE read back (§4.6.7.1)",
	[IXGBEM_V_TAIL_RANGE]		= "tail beyond the ring (§7.1.9)",
	[IXGBEM_V_HEAD_WHILE_ENABLED]	= "head written on an enabled queue (§8.2.3.8.4)",
	[IXGBEM_V_RXEN_BEFORE_QUEUES]	= "RXCTRL.RXEN before the queues (§4.6.7)",
	[IXGBEM_V_RX_CONFIG]		= "SRRCTL not advanced one-buffer, or no buffer (§8.2.3.8.7)",
	[IXGBEM_V_TX_NO_TE]		= "transmit with DMATXCTL.TE clear (§4.6.8)",
	[IXGBEM_V_TX_DESC]		= "malformed transmit descriptors (§7.2.3.2)",
	[IXGBEM_V_TX_PAYLEN]		= "PAYLEN is not the frame length (§7.2.3.2.4)",
	[IXGBEM_V_TX_CONTEXT]		= "checksum offload without a fit context (§7.2.3.2.3)",
	[IXGBEM_V_QUEUE_RANGE]		= "queue beyond the configured or chip count",
	[IXGBEM_V_IVAR_RANGE]		= "IVAR vector beyond the 64 MSI-X vectors (§8.2.3.5.16)",
};

const char *ixgbem_rule_name(enum ixgbem_rule rule)
{
	return rule < IXGBEM_V_NR ? rule_names[rule] : "?";
}

static __attribute__((format(printf, 2, 3)))
void violation(enum ixgbem_rule rule, const char *fmt, ...)
{
	va_list ap;

	ixgbem.last_violation = rule_names[rule];
	if (ixgbem.viol[rule]++)
		return;			/* one line per rule and power-on */
	fprintf(stderr, "# ixgbe model: %s: ", rule_names[rule]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

unsigned int ixgbem_violations(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < IXGBEM_V_NR; i++)
		n += ixgbem.viol[i];
	return n;
}

static uint32_t *reg(uint32_t off)
{
	if (off >= IXGBEM_REGS_SIZE || (off & 3)) {
		fprintf(stderr, "ixgbe model: access to bad offset 0x%x\n", off);
		abort();
	}
	return &ixgbem.regs[off / 4];
}

uint32_t ixgbem_reg(uint32_t off)
{
	return *reg(off);
}

uint32_t ixgbem_rxq_off(unsigned int q)
{
	return q < 64 ? 0x01000 + q * 0x40 : 0x0d000 + (q - 64) * 0x40;
}

uint32_t ixgbem_txq_off(unsigned int q)
{
	return 0x06000 + q * 0x40;
}

/*
 * The 82598-compatible addresses the datasheet lists beside the 82599's
 * own (register summary, §8.1.3).  Each is one Linux's ixgbe uses on the
 * 82599, which therefore works on real parts; QPTC's old 0x06030 alias is
 * not accepted, as nothing here confirms it.
 */
static uint32_t canon(uint32_t off)
{
	if (off >= 0x02100 && off < 0x02140)		/* SRRCTL[0..15] */
		return ixgbem_rxq_off((off - 0x02100) / 4) + Q_SRRCTL;
	if (off >= 0x05c00 && off < 0x05c80)		/* RETA */
		return M_RETA(0) + off - 0x05c00;
	if (off >= 0x05c80 && off < 0x05ca8)		/* RSSRK */
		return M_RSSRK(0) + off - 0x05c80;
	if (off == 0x05818)				/* MRQC */
		return M_MRQC;
	if (off >= 0x05400 && off < 0x05480)		/* RAL/RAH[0..15] */
		return M_RAL0 + off - 0x05400;
	return off;
}

struct qreg {
	bool		tx;
	unsigned int	q;
	uint32_t	r;	/* Q_* */
	uint32_t	base;
};

static bool queue_reg(uint32_t off, struct qreg *qr)
{
	if (off >= 0x01000 && off < 0x02000)
		*qr = (struct qreg){ .q = (off - 0x01000) / 0x40 };
	else if (off >= 0x0d000 && off < 0x0e000)
		*qr = (struct qreg){ .q = 64 + (off - 0x0d000) / 0x40 };
	else if (off >= 0x06000 && off < 0x08000)
		*qr = (struct qreg){ .tx = true, .q = (off - 0x06000) / 0x40 };
	else
		return false;
	qr->r = off & 0x3f;
	qr->base = qr->tx ? ixgbem_txq_off(qr->q) : ixgbem_rxq_off(qr->q);
	switch (qr->r) {
	case Q_BAL: case Q_BAH: case Q_LEN: case Q_HEAD: case Q_TAIL: case Q_DCTL:
		return true;
	case Q_SRRCTL:
		return !qr->tx;
	}
	return false;
}

static bool is_stat(uint32_t off)
{
	if ((off >= M_MPC(0) && off < M_RNBC(8)) || off == M_CRCERRS || off == M_GPRC ||
	    off == M_GPTC || off == M_TPR || off == M_TPT ||
	    (off >= M_GORCL && off <= M_GOTCH))
		return true;
	if (off >= M_QPTC(0) && off < M_QPTC(16))
		return true;
	return (off & 0x3f) == 0x30 && off >= M_QPRC(0) && off < M_QPRDC(16);
}

static bool q_enabled(bool tx, unsigned int q)
{
	uint64_t at = tx ? ixgbem.tx_en_at[q] : ixgbem.rx_en_at[q];

	return at && ixgbem.now_us >= at;
}

static bool resetting(void)
{
	return ixgbem.rst_done_us != 0;
}

/* §4.6.3.2: what a global reset leaves (registers zero unless said) */
static void reset_regs(void)
{
	const uint8_t *a = ixgbem.mac;

	memset(ixgbem.regs, 0, sizeof(ixgbem.regs));
	memset(ixgbem.rx_en_at, 0, sizeof(ixgbem.rx_en_at));
	memset(ixgbem.tx_en_at, 0, sizeof(ixgbem.tx_en_at));
	memset(ixgbem.ctx, 0, sizeof(ixgbem.ctx));
	ixgbem.eims = 0;
	ixgbem.eims_other = 0;
	ixgbem.eicr = 0;
	ixgbem.eicr_other = 0;
	ixgbem.gorc = ixgbem.gotc = ixgbem.gorch_latch = ixgbem.gotch_latch = 0;
	/* the EEPROM auto-read puts the station address in RAL0/RAH0 */
	*reg(M_RAL0) = a[0] | a[1] << 8 | a[2] << 16 | (uint32_t)a[3] << 24;
	*reg(M_RAH0) = a[4] | a[5] << 8 | 1u << 31;	/* AV */
	*reg(M_EEC) = EEC_PRES;
}

void ixgbem_power_on(const uint8_t mac[6])
{
	bool rst = ixgbem.rst_stuck, ard = ixgbem.ard_stuck;
	bool dma = ixgbem.dmaidone_stuck, en = ixgbem.enable_stuck;
	bool secrx = ixgbem.secrx_stuck;

	memset(&ixgbem, 0, sizeof(ixgbem));
	ixgbem.rst_stuck = rst;
	ixgbem.ard_stuck = ard;
	ixgbem.dmaidone_stuck = dma;
	ixgbem.enable_stuck = en;
	ixgbem.secrx_stuck = secrx;
	memcpy(ixgbem.mac, mac, 6);
	ixgbem.rx_queues = IXGBEM_MAX_RXQ;
	ixgbem.tx_queues = IXGBEM_MAX_TXQ;
	ixgbem.link_speed = 10000;
	ixgbem.link_delay_us = IXGBEM_LINK_US;
	ixgbem.cable = true;
	reset_regs();
	/* the power-on reset and auto-read are over; the link is training */
	ixgbem.link_at_us = ixgbem.link_delay_us;
}

/* ---- time ---- */

static bool link_is_up(void)
{
	return ixgbem.cable && ixgbem.link_at_us && ixgbem.now_us >= ixgbem.link_at_us &&
	       !resetting();
}

/* Let what was due by now happen: the reset's end, a link change. */
static void tick(void)
{
	bool up;

	if (resetting() && !ixgbem.rst_stuck && ixgbem.now_us >= ixgbem.rst_done_us) {
		uint64_t t = ixgbem.rst_done_us;

		*reg(M_CTRL) &= ~(CTRL_RST | CTRL_LNK_RST);
		ixgbem.rst_done_us = 0;
		ixgbem.ard_at_us = t + IXGBEM_ARD_US;
		ixgbem.dmaidone_at_us = t + IXGBEM_DMAIDONE_US;
		ixgbem.link_at_us = ixgbem.cable ? t + ixgbem.link_delay_us : 0;
	}
	up = link_is_up();
	if (up != ixgbem.link_was_up) {
		ixgbem.eicr_other |= EICR_LSC;	/* §7.3.1.1: link status change */
		ixgbem.link_was_up = up;
	}
}

void ixm_host_delay_us(unsigned long us)
{
	struct ixgbem_dev *cur = ixgbem_cur;
	unsigned int i;

	for (i = 0; i < IXGBEM_MAX_DEVS; i++) {
		if (!ixgbem_devs[i])
			continue;
		ixgbem_cur = ixgbem_devs[i];
		ixgbem.now_us += us;
		tick();
	}
	ixgbem_cur = cur;
}

struct ixgbem_dev *ixgbem_new(void)
{
	unsigned int i;

	for (i = 1; i < IXGBEM_MAX_DEVS; i++) {
		if (!ixgbem_devs[i]) {
			ixgbem_devs[i] = calloc(1, sizeof(*ixgbem_devs[i]));
			return ixgbem_devs[i];
		}
	}
	return NULL;
}

void ixgbem_free(struct ixgbem_dev *m)
{
	unsigned int i;

	for (i = 1; i < IXGBEM_MAX_DEVS; i++) {
		if (ixgbem_devs[i] == m) {
			free(m);
			ixgbem_devs[i] = NULL;
		}
	}
	ixgbem_cur = &ixgbem_first;
}

void ixgbem_select(struct ixgbem_dev *m)
{
	ixgbem_cur = m;
}

/* The driver's accesses go to the device its register base names. */
static void select_base(void *base)
{
	unsigned int i;

	for (i = 0; base && i < IXGBEM_MAX_DEVS; i++)
		if (ixgbem_devs[i] == base)
			ixgbem_cur = base;
}

void ixgbem_link_down(void)
{
	tick();
	ixgbem.cable = false;
	ixgbem.link_at_us = 0;
	tick();
}

void ixgbem_link_up(void)
{
	tick();
	ixgbem.cable = true;
	ixgbem.link_at_us = ixgbem.now_us + ixgbem.link_delay_us;
	tick();
}

/* ---- interrupts (§7.3) ---- */

static void fire(unsigned int vector)
{
	ixgbem.eicr |= 1ull << vector;
	if (!(ixgbem.eims & (1ull << vector)))
		return;
	ixgbem.irqs[vector]++;
	/* EIAC: auto-clear of the cause when the message is sent */
	if (vector < 16 && (*reg(M_EIAC) & (1u << vector)))
		ixgbem.eicr &= ~(1ull << vector);
}

/*
 * §8.2.3.5.16 IVAR[n], n = queue / 2: four 8-bit entries, RX of the even
 * queue in bits 7:0, its TX in 15:8, RX of the odd queue in 23:16, its TX
 * in 31:24; each INT_ALLOC (5:0) and INT_ALLOC_VAL (7).
 */
static uint8_t ivar_entry(unsigned int q, bool tx)
{
	uint32_t ivar = *reg(M_IVAR(q / 2));

	return ivar >> ((q & 1) * 16 + (tx ? 8 : 0));
}

static void raise_queue(unsigned int q, bool tx)
{
	uint8_t ent = ivar_entry(q, tx);

	if (ent & 0x80)
		fire(ent & 0x3f);
}

bool ixgbem_irq_routed(unsigned int q, bool tx, unsigned int vector)
{
	uint8_t ent;

	if (q >= (tx ? IXGBEM_MAX_TXQ : IXGBEM_MAX_RXQ) || vector >= IXGBEM_MAX_VECTORS)
		return false;
	ent = ivar_entry(q, tx);
	return (ent & 0x80) && (ent & 0x3f) == vector && (ixgbem.eims & (1ull << vector));
}

static void ivar_write(unsigned int n, uint32_t v)
{
	unsigned int i;

	for (i = 0; i < 4; i++) {
		uint8_t ent = v >> (i * 8);
		unsigned int q = n * 2 + i / 2;
		bool tx = i & 1;

		if (!(ent & 0x80))
			continue;
		if (ent & 0x40)
			violation(IXGBEM_V_IVAR_RANGE, "IVAR[%u] entry %u = 0x%02x", n, i, ent);
		if (q >= (tx ? ixgbem.tx_queues : ixgbem.rx_queues))
			violation(IXGBEM_V_QUEUE_RANGE, "IVAR routes %s queue %u of %u",
				  tx ? "TX" : "RX", q, tx ? ixgbem.tx_queues : ixgbem.rx_queues);
	}
}

/* ---- register access ---- */

static uint32_t stat_read(uint32_t off)
{
	uint32_t v;

	switch (off) {
	case M_GORCL:
		v = (uint32_t)ixgbem.gorc;
		ixgbem.gorch_latch = ixgbem.gorc >> 32;
		ixgbem.gorc = 0;
		return v;
	case M_GORCH:
		v = ixgbem.gorch_latch;
		ixgbem.gorch_latch = 0;
		return v;
	case M_GOTCL:
		v = (uint32_t)ixgbem.gotc;
		ixgbem.gotch_latch = ixgbem.gotc >> 32;
		ixgbem.gotc = 0;
		return v;
	case M_GOTCH:
		v = ixgbem.gotch_latch;
		ixgbem.gotch_latch = 0;
		return v;
	}
	v = *reg(off);
	*reg(off) = 0;		/* §8.2.3.23: clear on read */
	return v;
}

uint32_t ixm_host_rd32(void *base, uint32_t off)
{
	struct qreg qr;
	uint32_t v;

	select_base(base);
	off = canon(off);
	(void)reg(off);
	tick();
	if (is_stat(off))
		return stat_read(off);
	if (queue_reg(off, &qr) && qr.r == Q_DCTL) {
		v = *reg(off) & ~DCTL_ENABLE;
		return v | (q_enabled(qr.tx, qr.q) ? DCTL_ENABLE : 0);
	}
	switch (off) {
	case M_SECRXSTAT:		/* the security block drains, then says so */
		return !ixgbem.secrx_stuck && (*reg(M_SECRXCTRL) & SECRXCTRL_RX_DIS) &&
		       ixgbem.now_us >= ixgbem.secrx_rdy_at_us ? SECRXSTAT_RDY : 0;
	case M_EEC:
		v = *reg(off) & ~EEC_ARD;
		if (!resetting() && !ixgbem.ard_stuck && ixgbem.now_us >= ixgbem.ard_at_us) {
			v |= EEC_ARD;
			ixgbem.ard_seen = true;
		}
		return v;
	case M_RDRXCTL:
		v = *reg(off) & ~RDRXCTL_DMAIDONE;
		if (!resetting() && !ixgbem.dmaidone_stuck &&
		    ixgbem.now_us >= ixgbem.dmaidone_at_us) {
			v |= RDRXCTL_DMAIDONE;
			ixgbem.dmaidone_seen = true;
		}
		return v;
	case M_RAL0:
	case M_RAH0:
		if (!ixgbem.ard_seen)
			violation(IXGBEM_V_EEC_WAIT, "RAL0/RAH0 read before EEC.ARD was seen");
		return *reg(off);
	case M_LINKS:
		v = *reg(off) & ~(LINKS_UP | 3u << LINKS_SPEED_SHIFT);
		if (link_is_up())
			v |= LINKS_UP | (ixgbem.link_speed >= 10000 ? 3u :
					 ixgbem.link_speed >= 1000 ? 2u : 1u) << LINKS_SPEED_SHIFT;
		return v;
	case M_EICR:		/* §8.2.3.5.1: read clears what it returns */
		v = (uint32_t)(ixgbem.eicr & EICR_RTXQ) | ixgbem.eicr_other;
		ixgbem.eicr &= ~(uint64_t)EICR_RTXQ;
		ixgbem.eicr_other = 0;
		return v;
	case M_EICS:		/* reads EICR without clearing it */
		return (uint32_t)(ixgbem.eicr & EICR_RTXQ) | ixgbem.eicr_other;
	case M_EIMS:
		return (uint32_t)(ixgbem.eims & EICR_RTXQ) | ixgbem.eims_other;
	case M_EIMS_EX(0):
		return (uint32_t)ixgbem.eims;
	case M_EIMS_EX(1):
		return (uint32_t)(ixgbem.eims >> 32);
	}
	return *reg(off);
}

static bool ring_ok(const struct qreg *qr)
{
	uint64_t a = *reg(qr->base + Q_BAL) | (uint64_t)*reg(qr->base + Q_BAH) << 32;
	uint32_t len = *reg(qr->base + Q_LEN);
	const char *dir = qr->tx ? "TX" : "RX";

	if (!a || !len) {
		violation(IXGBEM_V_ENABLE_NO_RING, "%s queue %u: base 0x%llx, length %u", dir,
			  qr->q, (unsigned long long)a, len);
		return false;
	}
	if ((a & 127) || (len & 127)) {
		violation(IXGBEM_V_RING_ALIGN, "%s queue %u: base 0x%llx, length %u", dir,
			  qr->q, (unsigned long long)a, len);
		return false;
	}
	if (!qr->tx) {
		uint32_t s = *reg(qr->base + Q_SRRCTL);

		if (SRRCTL_DESCTYPE(s) != 1 || !(s & SRRCTL_BSIZE)) {
			violation(IXGBEM_V_RX_CONFIG, "RX queue %u: SRRCTL 0x%08x", qr->q, s);
			return false;
		}
	}
	return true;
}

static void dctl_write(const struct qreg *qr, uint32_t v)
{
	uint64_t *at = qr->tx ? &ixgbem.tx_en_at[qr->q] : &ixgbem.rx_en_at[qr->q];

	if (!(v & DCTL_ENABLE)) {
		*at = 0;		/* the model stops a queue at once */
	} else if (!*at) {
		/* §8.2.3.8.6 RXDCTL, §8.2.3.9.10 TXDCTL: ENABLE reads 1 once
		 * the queue is up; never, when its ring is not set up
		 */
		if (ring_ok(qr) && !ixgbem.enable_stuck)
			*at = ixgbem.now_us + IXGBEM_ENABLE_US;
		if (qr->tx)
			memset(ixgbem.ctx[qr->q], 0, sizeof(ixgbem.ctx[qr->q]));
	}
	*reg(qr->base + Q_DCTL) = v;	/* ENABLE as asked; reads show the state */
}

static void tail_write(const struct qreg *qr, uint32_t v)
{
	uint32_t n = *reg(qr->base + Q_LEN) / 16;
	uint32_t head = *reg(qr->base + Q_HEAD);
	const char *dir = qr->tx ? "TX" : "RX";

	if (v >= n && v) {
		violation(IXGBEM_V_TAIL_RANGE, "%s queue %u: tail %u, ring of %u", dir, qr->q,
			  v, n);
	}
	if (q_enabled(qr->tx, qr->q)) {
		ixgbem.tail_writes++;
	} else if (v != head) {
		/* zeroing head and tail before enabling is initialisation;
		 * handing descriptors to a queue not yet enabled is the mistake
		 */
		ixgbem.tail_before_enable = true;
		violation(IXGBEM_V_TAIL_BEFORE_ENABLE, "%s queue %u: tail %u", dir, qr->q, v);
	}
	if (qr->tx && v != head && !(*reg(M_DMATXCTL) & DMATXCTL_TE))
		violation(IXGBEM_V_TX_NO_TE, "TX queue %u: tail %u", qr->q, v);
}

static void queue_write(const struct qreg *qr, uint32_t off, uint32_t v)
{
	unsigned int limit = qr->tx ? ixgbem.tx_queues : ixgbem.rx_queues;

	if (!ixgbem.dmaidone_seen)
		violation(IXGBEM_V_DMA_WAIT, "queue register 0x%05x written", off);
	if (qr->q >= limit && v)
		violation(IXGBEM_V_QUEUE_RANGE, "%s queue %u of %u", qr->tx ? "TX" : "RX", qr->q,
			  limit);
	switch (qr->r) {
	case Q_DCTL:
		dctl_write(qr, v);
		return;
	case Q_HEAD:
		if (q_enabled(qr->tx, qr->q))
			violation(IXGBEM_V_HEAD_WHILE_ENABLED, "%s queue %u",
				  qr->tx ? "TX" : "RX", qr->q);
		break;
	case Q_TAIL:
		tail_write(qr, v);
		break;
	}
	*reg(off) = v;
}

static void rxctrl_write(uint32_t v)
{
	unsigned int q, latched = 0;

	if (!ixgbem.dmaidone_seen)
		violation(IXGBEM_V_DMA_WAIT, "RXCTRL written");
	if ((v & RXCTRL_RXEN) && !(*reg(M_RXCTRL) & RXCTRL_RXEN)) {
		/* §4.6.7: "Enable the receive path by setting RXCTRL.RXEN.
		 * This should be done only after all other settings are done":
		 * after each queue's RXDCTL.ENABLE was polled until set
		 */
		for (q = 0; q < IXGBEM_MAX_RXQ; q++) {
			const uint32_t dctl = *reg(ixgbem_rxq_off(q) + Q_DCTL);

			if (q_enabled(false, q))
				latched++;
			else if (dctl & DCTL_ENABLE)
				violation(IXGBEM_V_RXEN_BEFORE_QUEUES,
					  "RX queue %u's ENABLE not read back yet", q);
		}
		if (!latched)
			violation(IXGBEM_V_RXEN_BEFORE_QUEUES, "no RX queue enabled yet");
	}
	*reg(M_RXCTRL) = v;
}

static void reta_write(uint32_t off, uint32_t v)
{
	unsigned int i;

	/* §8.2.3.7.15: entry 4n+i in bits 8i+3:8i of RETA[n] */
	for (i = 0; i < 4; i++) {
		unsigned int q = (v >> (i * 8)) & 0xf;

		if (q >= ixgbem.rx_queues)
			violation(IXGBEM_V_QUEUE_RANGE, "RETA entry %u -> queue %u of %u",
				  (off - M_RETA(0)) + i, q, ixgbem.rx_queues);
	}
	*reg(off) = v;
}

void ixm_host_wr32(void *base, uint32_t off, uint32_t v)
{
	struct qreg qr;

	select_base(base);
	off = canon(off);
	(void)reg(off);
	tick();
	if (off == M_CTRL) {
		*reg(off) = v;
		if (v & (CTRL_RST | CTRL_LNK_RST)) {	/* §4.6.3.2 global reset */
			reset_regs();
			*reg(off) = v;
			ixgbem.rst_done_us = ixgbem.now_us + IXGBEM_RST_US;
			ixgbem.ard_seen = false;
			ixgbem.dmaidone_seen = false;
			ixgbem.link_at_us = 0;
			tick();
		}
		return;
	}
	if (resetting()) {
		violation(IXGBEM_V_RESET_BUSY, "0x%05x written while CTRL.RST is set", off);
		return;
	}
	if (is_stat(off))
		return;				/* read-only, clear on read */
	if (queue_reg(off, &qr)) {
		queue_write(&qr, off, v);
		return;
	}
	if (off >= M_IVAR(0) && off < M_IVAR(64))
		ivar_write((off - M_IVAR(0)) / 4, v);
	if (off >= M_RETA(0) && off < M_RETA(32)) {
		reta_write(off, v);
		return;
	}
	switch (off) {
	case M_EIMS:
		ixgbem.eims |= v & EICR_RTXQ;
		ixgbem.eims_other |= v & ~EICR_RTXQ;
		return;
	case M_EIMC:
		ixgbem.eims &= ~(uint64_t)(v & EICR_RTXQ);
		ixgbem.eims_other &= ~(v & ~EICR_RTXQ);
		return;
	case M_EIMS_EX(0):
	case M_EIMS_EX(1):
		ixgbem.eims |= (uint64_t)v << (off == M_EIMS_EX(1) ? 32 : 0);
		return;
	case M_EIMC_EX(0):
	case M_EIMC_EX(1):
		ixgbem.eims &= ~((uint64_t)v << (off == M_EIMC_EX(1) ? 32 : 0));
		return;
	case M_EICR:			/* write 1 to clear */
		ixgbem.eicr &= ~(uint64_t)(v & EICR_RTXQ);
		ixgbem.eicr_other &= ~(v & ~EICR_RTXQ);
		return;
	case M_EICS:			/* software sets causes */
		ixgbem.eicr_other |= v & ~EICR_RTXQ;
		for (qr.q = 0; qr.q < 16; qr.q++)
			if (v & (1u << qr.q))
				fire(qr.q);
		return;
	case M_RXCTRL:
		rxctrl_write(v);
		return;
	case M_DMATXCTL:
		if (!ixgbem.dmaidone_seen)
			violation(IXGBEM_V_DMA_WAIT, "DMATXCTL written");
		break;
	case M_AUTOC:			/* AN_RESTART self-clears and retrains */
		if ((v & AUTOC_AN_RESTART) && ixgbem.cable)
			ixgbem.link_at_us = ixgbem.now_us + ixgbem.link_delay_us;
		v &= ~AUTOC_AN_RESTART;
		break;
	case M_EEC:
		v = (v & ~EEC_ARD) | EEC_PRES;	/* read-only bits */
		break;
	case M_SECRXCTRL:
		if ((v & SECRXCTRL_RX_DIS) && !(*reg(off) & SECRXCTRL_RX_DIS))
			ixgbem.secrx_rdy_at_us = ixgbem.now_us + IXGBEM_SECRX_US;
		break;
	case M_SECRXSTAT:
		return;
	case M_RDRXCTL:
		v &= ~RDRXCTL_DMAIDONE;
		break;
	case M_LINKS:
	case M_STATUS:
		return;
	}
	*reg(off) = v;
}

/* ---- frames ---- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

static uint16_t be16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

static uint8_t *ring(uint32_t base)
{
	uint64_t a = *reg(base + Q_BAL) | (uint64_t)*reg(base + Q_BAH) << 32;

	return (uint8_t *)(uintptr_t)a;
}

/* Ones' complement sum (RFC 1071), folded, not inverted */
static uint32_t sum16(uint32_t s, const uint8_t *p, unsigned int len)
{
	unsigned int i;

	for (i = 0; i + 1 < len; i += 2)
		s += be16(p + i);
	if (len & 1)
		s += p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/*
 * §7.1.2.8.1 the Toeplitz hash: for each input bit that is set, XOR in the
 * 32 key bits starting at that bit's position.  Key byte 4n+i is RSSRK[n]
 * bits 8i+7:8i (§8.2.3.7.16).
 */
uint32_t ixgbem_toeplitz(const uint8_t *in, unsigned int len)
{
	uint8_t key[40];
	unsigned int i;

	for (i = 0; i < 10; i++)
		put32(key + i * 4, *reg(M_RSSRK(i)));
	return rssm_toeplitz(key, in, len);
}

struct rxinfo {
	uint32_t	ptype, status, error;
	uint32_t	rss_type, hash;
};

/*
 * §7.1.2.8: the RSS hash of what rss_model.h says the chip hashes, with
 * the fields MRQC enables, when MRQC selects RSS.
 */
static void rx_rss(const uint8_t *f, unsigned int len, struct rxinfo *ri)
{
	uint32_t mrqc = *reg(M_MRQC);
	uint8_t in[RSSM_IN_MAX];
	unsigned int n;

	if ((mrqc & MRQC_MRQE) != 1)
		return;
	ri->rss_type = rssm_input(f, len, mrqc, *reg(M_RFCTL), in, &n);
	if (ri->rss_type)
		ri->hash = ixgbem_toeplitz(in, n);
}

/*
 * Parse what the model understands for the checksum status (§7.1.11):
 * untagged Ethernet II, IPv4, TCP and UDP (IPv6 only for the RSS hash).
 */
static void rx_parse(const uint8_t *f, unsigned int len, struct rxinfo *ri)
{
	unsigned int ihl, tl, l4len;
	const uint8_t *ip = f + 14, *l4;
	bool frag, tcp, udp;

	memset(ri, 0, sizeof(*ri));
	rx_rss(f, len, ri);
	if (len < 34 || be16(f + 12) != 0x0800 || (ip[0] >> 4) != 4)
		return;
	ihl = (ip[0] & 0xf) * 4;
	tl = be16(ip + 2);
	if (ihl < 20 || tl < ihl || 14 + tl > len)
		return;
	ri->ptype = PTYPE_IPV4;
	ri->status |= RXD_IPCS;
	if (sum16(0, ip, ihl) != 0xffff)
		ri->error |= RXD_ERR_IPE;
	frag = be16(ip + 6) & 0x3fff;		/* MF or an offset */
	tcp = !frag && ip[9] == 6 && tl >= ihl + 20;
	udp = !frag && ip[9] == 17 && tl >= ihl + 8;
	l4 = ip + ihl;
	l4len = tl - ihl;
	if (tcp || udp) {
		uint32_t s = sum16(0, ip + 12, 8);	/* pseudo-header */

		s = sum16(s + ip[9] + l4len, l4, l4len);
		ri->ptype |= tcp ? PTYPE_TCP : PTYPE_UDP;
		if (tcp || be16(l4 + 6)) {	/* UDP checksum 0: none sent */
			ri->status |= RXD_L4CS | (udp ? RXD_UDPCS : 0);
			if (s != 0xffff)
				ri->error |= RXD_ERR_L4E;
		}
	}
}

static unsigned int stat_map(uint32_t first, unsigned int q)
{
	/* RQSMR/TQSM[q / 4]: queue q's counter index in bits 8i+3:8i */
	return (*reg(first + (q / 4) * 4) >> ((q % 4) * 8)) & 0xf;
}

static int rx_queue(unsigned int q, const uint8_t *f, unsigned int len,
		    const struct rxinfo *ri)
{
	uint32_t b, n, head, tail, bsize, srrctl;
	unsigned int need, i, off = 0;

	if (q >= IXGBEM_MAX_RXQ || q >= ixgbem.rx_queues) {
		violation(IXGBEM_V_QUEUE_RANGE, "frame for RX queue %u of %u", q,
			  ixgbem.rx_queues);
		return -1;
	}
	b = ixgbem_rxq_off(q);
	srrctl = *reg(b + Q_SRRCTL);
	n = *reg(b + Q_LEN) / 16;
	head = *reg(b + Q_HEAD);
	tail = *reg(b + Q_TAIL);
	bsize = (srrctl & SRRCTL_BSIZE) * 1024;
	if (!(*reg(M_RXCTRL) & RXCTRL_RXEN) || !link_is_up() || !q_enabled(false, q) ||
	    !n || !bsize)
		return -1;
	need = (len + bsize - 1) / bsize;
	if ((tail + n - head) % n < need) {
		/* §7.1.3.1 no descriptors: RNBC; dropped (QPRDC) with DROP_EN,
		 * else it waits in the packet buffer, which the model counts
		 * as missed (MPC) at once
		 */
		(*reg(M_RNBC(0)))++;
		if (srrctl & SRRCTL_DROP_EN)
			(*reg(M_QPRDC(stat_map(M_RQSMR(0), q))))++;
		else
			(*reg(M_MPC(0)))++;
		return -2;
	}
	for (i = 0; i < need; i++) {		/* a buffer in each, or none written */
		if (!get64(ring(b) + (head + i) % n * 16)) {
			violation(IXGBEM_V_RX_CONFIG, "RX queue %u desc %u: no buffer", q,
				  (head + i) % n);
			return -1;
		}
	}
	for (i = 0; i < need; i++) {
		uint8_t *d = ring(b) + head * 16;
		unsigned int chunk = len - off < bsize ? len - off : bsize;
		bool last = i == need - 1;
		uint8_t *buf = (uint8_t *)(uintptr_t)get64(d);

		memcpy(buf, f + off, chunk);
		off += chunk;
		/* §7.1.6.2 advanced write-back; RSS fields on every
		 * descriptor, status and errors complete on the EOP one
		 */
		memset(d, 0, 16);
		if (*reg(M_RXCSUM) & RXCSUM_PCSD) {
			put32(d, ri->rss_type | ri->ptype);
			put32(d + 4, ri->hash);
		} else {
			put32(d, ri->ptype);
		}
		put16(d + 12, chunk);
		put32(d + 8, RXD_DD | (last ? RXD_EOP | ri->status | ri->error : 0));
		head = (head + 1) % n;
	}
	*reg(b + Q_HEAD) = head;
	(*reg(M_GPRC))++;
	(*reg(M_TPR))++;
	ixgbem.gorc += len + 4;
	(*reg(M_QPRC(stat_map(M_RQSMR(0), q))))++;
	raise_queue(q, false);
	return q;
}

int ixgbem_rx_to(unsigned int q, const void *frame, unsigned int len)
{
	struct rxinfo ri;

	tick();
	rx_parse(frame, len, &ri);
	return rx_queue(q, frame, len, &ri);
}

int ixgbem_rx(const void *frame, unsigned int len)
{
	struct rxinfo ri;
	unsigned int q = 0;

	tick();
	rx_parse(frame, len, &ri);
	/* §7.1.2.8: the 7 LSBs of the hash index the 128-entry RETA;
	 * frames with no hash type go to queue 0
	 */
	if (ri.rss_type) {
		unsigned int e = ri.hash & 127;

		q = (*reg(M_RETA(e / 4)) >> ((e % 4) * 8)) & 0xf;
	}
	return rx_queue(q, frame, len, &ri);
}

void ixgbem_rx_bad_crc(const void *frame, unsigned int len)
{
	(void)frame;
	(void)len;
	tick();
	if (link_is_up())
		(*reg(M_CRCERRS))++;
}

/*
 * §7.2.4: the offloads a data descriptor's POPTS ask for, with the context
 * it names (§7.2.3.2.3): IXSM only in an IPv4 context (TUCMD.IPV4 set;
 * IPv6 has no header checksum and IXSM must be clear), TXSM from
 * MACLEN + IPLEN to the end of the frame.  The device does not parse the
 * frame: a context of the other family sums and stores at the wrong bytes.
 */
static bool tx_offload(uint8_t *f, unsigned int flen, uint32_t popts,
		       const struct ixgbem_txctx *c, unsigned int q)
{
	unsigned int l4, at;
	uint32_t s;

	if (!(popts & (TXD_IXSM | TXD_TXSM)))
		return true;
	if (!c->valid || c->maclen + c->iplen > flen || c->iplen < 20) {
		violation(IXGBEM_V_TX_CONTEXT, "TX queue %u: POPTS 0x%x, context %s", q,
			  (popts >> 8) & 0x3f,
			  c->valid ? "does not fit the frame" : "never set");
		return false;
	}
	if (popts & TXD_IXSM) {
		uint8_t *ip = f + c->maclen;

		if (!(c->tucmd & TUCMD_IPV4)) {
			violation(IXGBEM_V_TX_CONTEXT, "TX queue %u: IXSM, TUCMD.IPV4 clear", q);
			return false;
		}
		put16(ip + 10, 0);
		s = ~sum16(0, ip, c->iplen) & 0xffff;
		ip[10] = s >> 8;
		ip[11] = s;
	}
	if (popts & TXD_TXSM) {
		/* the driver seeds the field with the pseudo-header sum;
		 * the device sums from the L4 header to the end
		 */
		l4 = c->maclen + c->iplen;
		switch (TUCMD_L4T(c->tucmd)) {
		case 0:
			at = 6;
			break;
		case 1:
			at = 16;
			break;
		default:
			violation(IXGBEM_V_TX_CONTEXT, "TX queue %u: L4T %u not modelled", q,
				  TUCMD_L4T(c->tucmd));
			return false;
		}
		if (l4 + at + 2 > flen) {
			violation(IXGBEM_V_TX_CONTEXT, "TX queue %u: L4 header past the frame", q);
			return false;
		}
		s = ~sum16(0, f + l4, flen - l4) & 0xffff;
		if (!s && at == 6)
			s = 0xffff;		/* UDP: 0 means "no checksum" */
		f[l4 + at] = s >> 8;
		f[l4 + at + 1] = s;
	}
	return true;
}

unsigned int ixgbem_tx(unsigned int q, ixgbem_sent_fn sent, void *arg)
{
	static uint8_t frame[16384];
	uint32_t b, n, head, tail;
	unsigned int frames = 0;
	bool rs = false;

	tick();
	if (q >= IXGBEM_MAX_TXQ || q >= ixgbem.tx_queues) {
		violation(IXGBEM_V_QUEUE_RANGE, "transmit on TX queue %u of %u", q,
			  ixgbem.tx_queues);
		return 0;
	}
	b = ixgbem_txq_off(q);
	n = *reg(b + Q_LEN) / 16;
	head = *reg(b + Q_HEAD);
	tail = *reg(b + Q_TAIL);
	if (!q_enabled(true, q) || !n || head == tail || tail >= n)
		return 0;
	if (!(*reg(M_DMATXCTL) & DMATXCTL_TE)) {
		violation(IXGBEM_V_TX_NO_TE, "TX queue %u holds descriptors", q);
		return 0;
	}
	while (head != tail) {
		uint32_t i = head, popts = 0, idx = 0, paylen = 0, flen = 0, ndesc = 0;
		bool eop = false, ok = true, ifcs = false;

		/* one frame: optional context descriptors, then data to EOP */
		while (i != tail && !eop) {
			uint8_t *d = ring(b) + i * 16;
			uint32_t cmd = get32(d + 8), ol = get32(d + 12);

			if (!(cmd & TXD_DEXT) || (TXD_DTYP(cmd) != 2 && TXD_DTYP(cmd) != 3) ||
			    (cmd & TXD_TSE)) {
				violation(IXGBEM_V_TX_DESC, "TX queue %u desc %u: 0x%08x (legacy or TSO)",
					  q, i, cmd);
				ok = false;
			} else if (TXD_DTYP(cmd) == 2) {
				uint32_t lens = get32(d);
				struct ixgbem_txctx *c = &ixgbem.ctx[q][TXD_IDX(ol) & 1];

				if (flen || TXD_IDX(ol) > 1) {
					violation(IXGBEM_V_TX_DESC,
						  "TX queue %u desc %u: context inside a frame or IDX %u",
						  q, i, TXD_IDX(ol));
					ok = false;
				}
				c->valid = true;
				c->iplen = lens & 0x1ff;
				c->maclen = (lens >> 9) & 0x7f;
				c->tucmd = cmd;
				ixgbem.tx_ctx_descs++;
			} else {
				unsigned int len = cmd & 0xffff;

				if (!ndesc++) {		/* the frame's first data desc */
					popts = ol;
					idx = TXD_IDX(ol);
					paylen = TXD_PAYLEN(ol);
					ifcs = cmd & TXD_IFCS;
				}
				if (flen + len <= sizeof(frame))
					memcpy(frame + flen, (uint8_t *)(uintptr_t)get64(d), len);
				else
					ok = false;
				flen += len;
				eop = cmd & TXD_EOP;
			}
			i = (i + 1) % n;
		}
		if (!eop)
			break;		/* the rest of the frame is not there yet */
		/* write back DD on RS descriptors of the frame (§7.2.3.2.4) */
		for (; head != i; head = (head + 1) % n) {
			uint8_t *d = ring(b) + head * 16;

			if (get32(d + 8) & TXD_RS) {
				put32(d + 12, get32(d + 12) | TXD_STA_DD);
				rs = true;
			}
		}
		if (flen > sizeof(frame) || !ok) {
			if (flen > sizeof(frame))
				violation(IXGBEM_V_TX_DESC, "TX queue %u: frame of %u bytes", q, flen);
			continue;
		}
		if (paylen != flen) {
			violation(IXGBEM_V_TX_PAYLEN, "TX queue %u: PAYLEN %u, frame %u", q, paylen,
				  flen);
			continue;
		}
		if (idx > 1) {
			violation(IXGBEM_V_TX_DESC, "TX queue %u: data IDX %u", q, idx);
			continue;
		}
		if (!tx_offload(frame, flen, popts, &ixgbem.ctx[q][idx], q))
			continue;
		sent(frame, flen, arg);
		frames++;
		(*reg(M_GPTC))++;
		(*reg(M_TPT))++;
		ixgbem.gotc += flen + (ifcs ? 4 : 0);
		(*reg(M_QPTC(stat_map(M_TQSM(0), q))))++;
	}
	*reg(b + Q_HEAD) = head;
	if (rs)
		raise_queue(q, true);
	return frames;
}
