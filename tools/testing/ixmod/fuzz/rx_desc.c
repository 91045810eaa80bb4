// SPDX-License-Identifier: GPL-2.0
/*
 * rx_desc.c - libFuzzer target for ixm_adv_rx_burst() and refill: what a
 * broken or hostile device may write back into the RX ring
 *
 * The input is a sequence of 16-byte write-back descriptors (status,
 * length, packet info, RSS hash: anything).  Each is written into the
 * next descriptor the driver expects, then the driver takes a burst and
 * refills, as the dataplane loop does.  After every step:
 *
 *  - every frame handed up lies inside its buffer and is 1..IXM_MBUF_SIZE
 *    bytes, and was written back with DD and EOP and no frame error;
 *  - every buffer is either posted in the ring, handed up, or free, and
 *    exactly one of these (no leak, no double use);
 *  - the tail the driver writes never passes the descriptor it has not
 *    yet cleaned.
 *
 * This target stands in for the device, so it provides the register
 * accessors itself (unit tests get them from model/igb_model.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "igb_regs.h"
#include "intel_adv.h"

#define RING	16
#define NBUF	48

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

static u32 last_tail = ~0u;

u32 ixm_host_rd32(void *base, u32 reg)
{
	(void)base;
	(void)reg;
	return 0;
}

void ixm_host_wr32(void *base, u32 reg, u32 val)
{
	(void)base;
	(void)reg;
	last_tail = val;
}

void ixm_host_delay_us(unsigned long us)
{
	(void)us;
}

static u8 data[NBUF][IXM_MBUF_SIZE];
static struct ixm_mbuf mbufs[NBUF];
static struct ixm_mbuf *freel[NBUF];
static union ixm_adv_rx_desc desc[RING];
static struct ixm_mbuf *slot[RING];

/* Each buffer is exactly once in the ring, in @held, or free. */
static void check_accounting(struct ixm_rxq *q, struct ixm_mbuf **held, unsigned int nheld)
{
	unsigned int seen[NBUF] = { 0 }, i;

	for (i = 0; i < RING; i++)
		if (slot[i])
			seen[slot[i] - mbufs]++;
	for (i = 0; i < nheld; i++)
		seen[held[i] - mbufs]++;
	for (i = 0; i < q->pool->nfree; i++)
		seen[q->pool->free[i] - mbufs]++;
	for (i = 0; i < NBUF; i++)
		check(seen[i] == 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	struct ixm_nic nic = { 0 };
	struct ixm_mbuf_pool pool;
	struct ixm_mbuf *out[RING];
	struct ixm_rxq q = {
		.nic = &nic, .idx = 0, .count = RING, .desc = desc,
		.slot = slot, .pool = &pool,
		/* the 82576's error bits, as igb's rxq_start sets them */
		.err_frame = IGB_RXDEXT_ERR_FRAME_ERR_MASK,
		.err_ipe = IGB_RXDEXT_STATERR_IPE, .err_l4e = IGB_RXDEXT_STATERR_TCPE,
	};
	unsigned int i, n;

	for (i = 0; i < NBUF; i++) {
		mbufs[i].buf = data[i];
		mbufs[i].dma = (dma_addr_t)(uintptr_t)data[i];
	}
	memset(slot, 0, sizeof(slot));
	ixm_mbuf_pool_init(&pool, mbufs, freel, NBUF);
	check(!ixm_adv_rxq_fill(&q));
	last_tail = q.next_to_use;

	while (size >= 17) {
		u8 burst = in[0] % (RING + 1);
		u16 at = q.next_to_clean;

		/* the device writes back the next descriptor it owns, if any */
		if (at != q.next_to_use) {
			check(slot[at] != NULL);
			memcpy(&desc[at], in + 1, 16);
		}
		in += 17;
		size -= 17;

		n = ixm_adv_rx_burst(&q, out, burst);
		check(n <= burst);
		for (i = 0; i < n; i++) {
			check(out[i]->data >= out[i]->buf);
			check(out[i]->len >= 1 && out[i]->len <= IXM_MBUF_SIZE);
			check(out[i]->data + out[i]->len <= out[i]->buf + IXM_MBUF_SIZE);
		}
		check_accounting(&q, out, n);
		for (i = 0; i < n; i++)
			ixm_mbuf_free(out[i]);
		ixm_adv_rx_refill(&q);
		/* the tail never reaches next_to_clean (one slot stays empty) */
		check(last_tail == q.next_to_use);
		check(slot[(q.next_to_use - 1) & (RING - 1)] != NULL ||
		      q.next_to_use == q.next_to_clean);
		check_accounting(&q, NULL, 0);
	}
	ixm_adv_rxq_release(&q);
	check(pool.nfree == NBUF);
	return 0;
}
