// SPDX-License-Identifier: GPL-2.0
/*
 * igb_model.c - the 82576 as ixmod's host tests see it (igb_model.h)
 *
 * Section numbers are the 82576 datasheet's.  Only what ixmod uses is
 * modelled; any other register just stores what is written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "igb_model.h"
#include "rss_model.h"

struct igbm igbm;

/* §8.1 register map (offsets in bytes) */
#define M_CTRL		0x00000
#define M_STATUS	0x00008
#define M_EECD		0x00010
#define M_MDIC		0x00020
#define M_ICR		0x000c0
#define M_RCTL		0x00100
#define M_TCTL		0x00400
#define M_EIMS		0x01524
#define M_EIMC		0x01528
#define M_EICR		0x01580
#define M_IVAR0		0x01700
#define M_RXCSUM	0x05000
#define M_RAL0		0x05400
#define M_RAH0		0x05404
#define M_RFCTL		0x05008		/* IPV6_EX_DIS: rss_model.h */
#define M_MRQC		0x05818		/* field enables: rss_model.h */
#define M_RETA(i)	(0x05c00 + (i) * 4)
#define M_RSSRK(i)	(0x05c80 + (i) * 4)

/* §8.10 (RX) and §8.12 (TX) queue blocks: 0-3 low, 4-15 high */
static uint32_t rq_base(unsigned int q)
{
	return q < 4 ? 0x02800 + q * 0x100 : 0x0c000 + q * 0x40;
}

static uint32_t tq_base(unsigned int q)
{
	return q < 4 ? 0x03800 + q * 0x100 : 0x0e000 + q * 0x40;
}

#define Q_BAL	0x00
#define Q_BAH	0x04
#define Q_LEN	0x08
#define Q_SRRCTL 0x0c
#define Q_HEAD	0x10
#define Q_TAIL	0x18
#define Q_DCTL	0x28
#define DCTL_ENABLE	(1u << 25)

static uint32_t *reg(uint32_t off)
{
	if (off >= IGBM_REGS_SIZE || (off & 3)) {
		fprintf(stderr, "igb model: access to bad offset 0x%x\n", off);
		abort();
	}
	return &igbm.regs[off / 4];
}

uint32_t igbm_reg(uint32_t off)
{
	return *reg(off);
}

uint32_t igbm_rq(unsigned int q, uint32_t off)
{
	return *reg(rq_base(q) + off);
}

uint32_t igbm_tq(unsigned int q, uint32_t off)
{
	return *reg(tq_base(q) + off);
}

/* §4.5.1: what a reset leaves (registers zero unless said otherwise) */
static void igbm_reset_regs(void)
{
	const uint8_t *a = igbm.mac;

	memset(igbm.regs, 0, sizeof(igbm.regs));
	igbm.eims = 0;
	/* the NVM auto-load puts the station address in RAL0/RAH0 */
	*reg(M_RAL0) = a[0] | a[1] << 8 | a[2] << 16 | (uint32_t)a[3] << 24;
	*reg(M_RAH0) = a[4] | a[5] << 8 | 1u << 31;
	*reg(M_EECD) = 1u << 9;		/* AUTO_RD */
	*reg(M_TCTL) = 1u << 3;		/* PSP */
}

void igbm_power_on(const uint8_t mac[6])
{
	bool rst_stuck = igbm.rst_stuck, enable_stuck = igbm.enable_stuck;

	memset(&igbm, 0, sizeof(igbm));
	memcpy(igbm.mac, mac, 6);
	igbm.rst_stuck = rst_stuck;
	igbm.enable_stuck = enable_stuck;
	igbm_reset_regs();
}

/* ---- the accessors platform_user.h asks for ---- */

void ixm_host_delay_us(unsigned long us)
{
	igbm.now_us += us;
}

static bool is_queue_reg(uint32_t off, uint32_t which, bool *tx, unsigned int *q)
{
	unsigned int i;

	for (i = 0; i < 16; i++) {
		if (off == rq_base(i) + which) {
			*tx = false;
			*q = i;
			return true;
		}
		if (off == tq_base(i) + which) {
			*tx = true;
			*q = i;
			return true;
		}
	}
	return false;
}

uint32_t ixm_host_rd32(void *base, uint32_t off)
{
	uint32_t v;

	(void)base;
	switch (off) {
	case M_CTRL:
		v = *reg(off);
		/* §8.2.1: RST self-clears when the reset completes */
		if ((v & (1u << 26)) && !igbm.rst_stuck && igbm.now_us >= igbm.rst_done_us) {
			igbm_reset_regs();
			v = *reg(off);
		}
		return v;
	case M_STATUS:
		v = *reg(off) & ~(0x2u | 0xc0u);
		if (igbm.link_at_us && igbm.now_us >= igbm.link_at_us &&
		    (*reg(M_CTRL) & (1u << 6)))
			v |= 0x2 | 0x80;	/* LU, 1000 Mb/s */
		return v;
	case M_EIMS:
		return igbm.eims;
	case M_ICR:
	case M_EICR:
		v = *reg(off);
		*reg(off) = 0;		/* read to clear */
		return v;
	}
	return *reg(off);
}

static void mdic_write(uint32_t v)
{
	unsigned int regad = (v >> 16) & 0x1f, phyad = (v >> 21) & 0x1f;
	uint32_t op = v & (3u << 26);

	/* §8.2.4: the only PHY is at address 1; others answer with ERROR */
	if (phyad != 1) {
		*reg(M_MDIC) = v | 1u << 28 | 1u << 30;
		return;
	}
	if (op == 1u << 26) {			/* write */
		igbm.phy[regad] = v & 0xffff;
		/* BMCR: autonegotiation enable + restart brings link up */
		if (regad == 0 && (v & 0x1000) && (v & 0x0200))
			igbm.link_at_us = igbm.now_us + 300000;
		*reg(M_MDIC) = v | 1u << 28;
	} else if (op == 2u << 26) {		/* read */
		*reg(M_MDIC) = (v & ~0xffffu) | igbm.phy[regad] | 1u << 28;
	} else {
		*reg(M_MDIC) = v | 1u << 28 | 1u << 30;
	}
}

void ixm_host_wr32(void *base, uint32_t off, uint32_t v)
{
	unsigned int q;
	bool tx;

	(void)base;
	if (off == M_CTRL && (v & (1u << 26))) {
		*reg(off) = v;
		igbm.rst_done_us = igbm.now_us + 500;
		igbm.link_at_us = 0;
		return;
	}
	if (off == M_MDIC) {
		mdic_write(v);
		return;
	}
	if (off == M_EIMS) {
		igbm.eims |= v;
		return;
	}
	if (off == M_EIMC) {
		igbm.eims &= ~v;
		return;
	}
	if (is_queue_reg(off, Q_DCTL, &tx, &q) && igbm.enable_stuck)
		v &= ~DCTL_ENABLE;
	/* a TX queue enabled anew holds no context (§7.2.2.3) */
	if (is_queue_reg(off, Q_DCTL, &tx, &q) && tx && (v & DCTL_ENABLE) &&
	    !(*reg(off) & DCTL_ENABLE))
		memset(igbm.ctx[q], 0, sizeof(igbm.ctx[q]));
	if (is_queue_reg(off, Q_TAIL, &tx, &q)) {
		uint32_t b = tx ? tq_base(q) : rq_base(q);

		/* zeroing head and tail before enabling is initialisation;
		 * handing descriptors to a disabled queue is the mistake
		 */
		if (*reg(b + Q_DCTL) & DCTL_ENABLE)
			igbm.tail_writes++;
		else if (v != *reg(b + Q_HEAD))
			igbm.tail_before_enable = true;
	}
	*reg(off) = v;
}

/* ---- DMA ---- */

static uint8_t *ring(uint32_t base)
{
	uint64_t a = *reg(base + Q_BAL) | (uint64_t)*reg(base + Q_BAH) << 32;

	return (uint8_t *)(uintptr_t)a;
}

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

int igbm_rx(unsigned int q, const void *frame, unsigned int len, uint32_t status,
	    uint16_t rss_type, uint32_t rss_hash)
{
	uint32_t b = rq_base(q);
	uint32_t n = *reg(b + Q_LEN) / 16, head = *reg(b + Q_HEAD), tail = *reg(b + Q_TAIL);
	uint32_t bsize = (*reg(b + Q_SRRCTL) & 0x7f) * 1024;
	unsigned int need, i, off = 0;
	const uint8_t *src = frame;

	if (!(*reg(M_RCTL) & 2) || !(*reg(b + Q_DCTL) & DCTL_ENABLE) || !n || !bsize)
		return -1;
	need = (len + bsize - 1) / bsize;
	if (((tail - head + n) % n) < need) {
		igbm.rx_missed++;	/* SRRCTL.DROP_EN: dropped, counted */
		return 0;
	}
	for (i = 0; i < need; i++) {
		uint8_t *d = ring(b) + head * 16;
		unsigned int chunk = len - off < bsize ? len - off : bsize;
		bool last = i == need - 1;
		uint32_t st = 0x1 | (last ? 0x2 | status : 0);

		memcpy((uint8_t *)(uintptr_t)get64(d), src + off, chunk);
		off += chunk;
		/* §7.1.5.2 advanced write-back */
		memset(d, 0, 16);
		if ((*reg(M_MRQC) & 7) == 2 && (*reg(M_RXCSUM) & (1u << 13)) && last) {
			put16(d, rss_type & 0xf);
			put32(d + 4, rss_hash);
		}
		put16(d + 12, chunk);
		put32(d + 8, st);	/* DD last, as the device does */
		head = (head + 1) % n;
	}
	*reg(b + Q_HEAD) = head;
	return need;
}

/* the checksum offload bits of §7.2.2.3's advanced TX descriptors */
#define TXD_DEXT	(1u << 29)
#define TXD_DTYP(cmd)	(((cmd) >> 20) & 0xf)	/* 0010b context, 0011b data */
#define TXD_EOP		(1u << 24)
#define TXD_IDX(w)	(((w) >> 4) & 7)	/* context slot: olinfo, mss_l4len_idx */
#define TXD_IXSM	(1u << 8)		/* olinfo POPTS */
#define TXD_TXSM	(1u << 9)
#define TUCMD_IPV4	(1u << 10)		/* type_tucmd_mlhl: clear = IPv6 */
#define TUCMD_L4T(w)	(((w) >> 11) & 3)	/* 00 UDP, 01 TCP, 10 SCTP */

static void bad_ctx(unsigned int q, const char *what)
{
	igbm.tx_ctx_bad++;
	igbm.last_ctx_bad = what;
	(void)q;
}

/* one's complement sum of @len bytes, big-endian words (RFC 1071) */
static uint32_t sum16(uint32_t s, const uint8_t *p, unsigned int len)
{
	unsigned int i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static void be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/*
 * §7.2.4 (transmit checksum offload) with the context the data
 * descriptor names (§7.2.2.3): the IPv4 header checksum (IXSM) over IPLEN
 * bytes from MACLEN, only in an IPv4 context (TUCMD.IPV4; IPv6 has none,
 * and IXSM must then be clear); the TCP/UDP checksum (TXSM) from
 * MACLEN + IPLEN to the end of the frame, the field summed as the driver
 * left it (the pseudo-header's sum), stored at +16 (TCP) or +6 (UDP).
 * The device does not parse the frame: a context of the wrong family
 * sums the wrong bytes.  False: a rule broken, the frame not sent.
 */
static bool tx_offload(uint8_t *f, unsigned int flen, uint32_t popts, unsigned int q)
{
	const struct igbm_txctx *c = &igbm.ctx[q][TXD_IDX(popts) & 1];
	unsigned int l4, at;
	uint16_t ck;

	if (!(popts & (TXD_IXSM | TXD_TXSM)))
		return true;
	if (TXD_IDX(popts) > 1 || !c->valid) {
		bad_ctx(q, "checksum asked of a context never loaded");
		return false;
	}
	if (c->maclen + c->iplen + 8u > flen || c->iplen < 20) {
		bad_ctx(q, "context does not fit the frame");
		return false;
	}
	if (popts & TXD_IXSM) {
		uint8_t *ip = f + c->maclen;

		if (!(c->tucmd & TUCMD_IPV4)) {
			bad_ctx(q, "IXSM in an IPv6 context");
			return false;
		}
		be16(ip + 10, 0);
		be16(ip + 10, ~sum16(0, ip, c->iplen));
	}
	if (popts & TXD_TXSM) {
		l4 = c->maclen + c->iplen;
		if (TUCMD_L4T(c->tucmd) > 1) {
			bad_ctx(q, "L4T not TCP or UDP");
			return false;
		}
		at = TUCMD_L4T(c->tucmd) ? 16 : 6;
		if (l4 + at + 2 > flen) {
			bad_ctx(q, "L4 header past the frame");
			return false;
		}
		ck = ~sum16(0, f + l4, flen - l4);
		if (!ck && at == 6)
			ck = 0xffff;		/* UDP: 0 would mean "none" */
		be16(f + l4 + at, ck);
	}
	return true;
}

unsigned int igbm_tx(unsigned int q, igbm_sent_fn sent, void *arg)
{
	uint32_t b = tq_base(q);
	uint32_t n = *reg(b + Q_LEN) / 16, head = *reg(b + Q_HEAD), tail = *reg(b + Q_TAIL);
	static uint8_t frame[16384];
	unsigned int flen = 0, frames = 0;
	uint32_t popts = 0;

	if (!(*reg(M_TCTL) & 2) || !(*reg(b + Q_DCTL) & DCTL_ENABLE) || !n)
		return 0;
	while (head != tail) {
		uint8_t *d = ring(b) + head * 16;
		uint32_t cmd = get32(d + 8);
		unsigned int len = cmd & 0xffff;

		/* §7.2.2.3: advanced data descriptor = DEXT and DTYP 0011b,
		 * context descriptor DTYP 0010b.  Legacy ones are skipped
		 * (QEMU's model ignores them too).
		 */
		if ((cmd & TXD_DEXT) && TXD_DTYP(cmd) == 2) {
			uint32_t lens = get32(d), idx = TXD_IDX(get32(d + 12));
			struct igbm_txctx *c = &igbm.ctx[q][idx & 1];

			if (flen || idx > 1)
				bad_ctx(q, "context inside a frame, or IDX past 1");
			c->valid = true;
			c->iplen = lens & 0x1ff;
			c->maclen = (lens >> 9) & 0x7f;
			c->tucmd = cmd;
			igbm.tx_ctx_descs++;
		} else if ((cmd & TXD_DEXT) && TXD_DTYP(cmd) == 3) {
			if (!flen)
				popts = get32(d + 12);	/* the frame's first */
			if (flen + len <= sizeof(frame))
				memcpy(frame + flen, (uint8_t *)(uintptr_t)get64(d), len);
			flen += len;
			if (cmd & TXD_EOP) {
				if (flen <= sizeof(frame) && tx_offload(frame, flen, popts, q)) {
					sent(frame, flen, arg);
					frames++;
				}
				flen = 0;
			}
		}
		if (cmd & (1u << 27))			/* RS: write back DD */
			put32(d + 12, get32(d + 12) | 1);
		head = (head + 1) % n;
	}
	*reg(b + Q_HEAD) = head;
	return frames;
}

bool igbm_irq_routed(unsigned int q, bool tx, unsigned int vector)
{
	/* §8.8.15: IVAR[q & 7], RX byte 0 (q < 8) or 2, TX the byte above */
	uint32_t ivar = *reg(M_IVAR0 + (q & 7) * 4);
	unsigned int shift = ((q & 8) ? 16 : 0) + (tx ? 8 : 0);
	uint32_t ent = (ivar >> shift) & 0xff;

	return (ent & 0x80) && (ent & 0x1f) == vector && (igbm.eims & (1u << vector));
}

int igbm_rss_queue(const void *frame, unsigned int len, uint16_t *type, uint32_t *hash)
{
	uint32_t mrqc = *reg(M_MRQC);
	uint8_t in[RSSM_IN_MAX], key[40];
	unsigned int n, i;

	/* §7.1.2.8: with MRQC's RSS mode, the hash's low 7 bits index RETA */
	*type = RSSM_NONE;
	*hash = 0;
	if ((mrqc & 7) == 2)
		*type = rssm_input(frame, len, mrqc, *reg(M_RFCTL), in, &n);
	if (!*type)
		return 0;
	for (i = 0; i < 10; i++)
		put32(key + 4 * i, *reg(M_RSSRK(i)));
	*hash = rssm_toeplitz(key, in, n);
	return (*reg(M_RETA((*hash & 127) / 4)) >> (8 * (*hash & 3))) & 7;
}

int igbm_rx_rss(const void *frame, unsigned int len, uint32_t status)
{
	uint16_t type;
	uint32_t hash;
	int q = igbm_rss_queue(frame, len, &type, &hash);

	return igbm_rx(q, frame, len, status, type, hash) > 0 ? q : -1;
}
