// SPDX-License-Identifier: GPL-2.0
/*
 * intel_adv.c - advanced-descriptor RX and TX rings (82576 and 82599)
 *
 * PORTABLE.  Each ring belongs to one dataplane core; nothing here locks.
 *
 * RX: every descriptor between next_to_clean and next_to_use holds a
 * posted buffer the device may write.  The device owns [head, tail); we
 * keep one descriptor unposted so that a full ring (tail == head - 1) is
 * told apart from an empty one.  Consumed descriptors are refilled in
 * groups of IXM_RX_REFILL_BATCH so the tail register, an uncached MMIO
 * write, is written once per group (82576 §7.1.4.1: software may update
 * the tail any time after it has written the descriptors).
 *
 * TX: a frame is one data descriptor for its buffer and one per fragment,
 * all with IFCS; the last has EOP and RS, and the device writes DD back
 * into that one only (82576 §7.2.3.5.2, 82599 §7.2.3.2.4: DD is written
 * for descriptors with RS).  The buffer and the index of that last
 * descriptor sit at the frame's first slot (a context descriptor before
 * it included), and the buffer is freed once the last one's DD is seen.
 */
#include "platform.h"
#include "intel_adv.h"

#define IXM_RX_REFILL_BATCH	32
#define IXM_ADV_RING_SIZE	512	/* descriptors per RX and TX ring */

/* a frame's last TX descriptor: end of packet, report status (DD) */
#define IXM_ADV_TXD_DCMD_LAST	(IXM_ADV_TXD_DCMD_EOP | IXM_ADV_TXD_DCMD_RS)

static inline u16 ixm_ring_next(u16 i, u16 count)
{
	return (i + 1) & (count - 1);
}

/* Free the buffer held by each of @count slots (a stopped ring's). */
static void ixm_adv_release_slots(struct ixm_mbuf **slot, u16 count)
{
	u16 i;

	if (!slot)
		return;
	for (i = 0; i < count; i++) {
		if (slot[i]) {
			ixm_mbuf_free(slot[i]);
			slot[i] = NULL;
		}
	}
}

/* Hand @m to descriptor @i of @q. */
static inline void ixm_adv_rx_post(struct ixm_rxq *q, u16 i, struct ixm_mbuf *m)
{
	union ixm_adv_rx_desc *d = &q->desc[i];

	q->slot[i] = m;
	/*
	 * The whole buffer: the device writes the frame at its start.  The
	 * RX buffer size the chip code programs (IXM_MBUF_SIZE) is the most
	 * it may write, so it can never spill into a neighbour.  Writing
	 * hdr_addr also clears the written-back DD bit, which shares it.
	 */
	d->read.pkt_addr = cpu_to_le64(m->dma);
	d->read.hdr_addr = 0;
}

/**
 * ixm_adv_rxq_fill() - post a buffer in every descriptor but one
 * @q: a stopped RX queue whose @desc, @slot and @pool are set
 *
 * The chip's rxq_start then writes the tail (@q->next_to_use).
 *
 * Return: 0, or -ENOMEM if the pool cannot fill the ring (nothing is
 * left posted).
 */
int ixm_adv_rxq_fill(struct ixm_rxq *q)
{
	u16 i;

	memset(q->desc, 0, q->count * sizeof(*q->desc));
	q->next_to_clean = 0;
	q->next_to_use = 0;
	q->discard = false;
	for (i = 0; i < q->count - 1; i++) {
		struct ixm_mbuf *m = ixm_mbuf_alloc(q->pool);

		if (!m) {
			ixm_adv_rxq_release(q);
			return -ENOMEM;
		}
		ixm_adv_rx_post(q, i, m);
	}
	q->next_to_use = q->count - 1;
	return 0;
}

/**
 * ixm_adv_mac_from_ra() - the station address in receive-address pair 0
 * @nic: the device; its @mac is set
 * @ral: RAL0 as read (the first four bytes, first in the low byte)
 * @rah: RAH0 as read (the last two in its low 16 bits)
 *
 * The same layout on the 82576 (§7.1.1.1) and the 82599 (§8.2.3.7.8/9),
 * which the EEPROM loads at reset.
 *
 * Return: 0, or -EADDRNOTAVAIL when it is a group or all-zero address.
 */
int ixm_adv_mac_from_ra(struct ixm_nic *nic, u32 ral, u32 rah)
{
	u8 *a = nic->mac;
	unsigned int i;

	for (i = 0; i < 4; i++)
		a[i] = ral >> (8 * i);
	a[4] = rah;
	a[5] = rah >> 8;
	if ((a[0] & 1) || !(a[0] | a[1] | a[2] | a[3] | a[4] | a[5]))
		return -EADDRNOTAVAIL;
	return 0;
}

/* Turn what the device wrote back into mbuf metadata. */
static inline void ixm_adv_rx_meta(const struct ixm_rxq *q, struct ixm_mbuf *m,
				   const union ixm_adv_rx_desc *d, u32 st)
{
	u16 flags = 0;

	/*
	 * 82576 §7.1.5.2, 82599 §7.1.6.2: IPCS/L4CS say the check ran, the
	 * chip's IPE/L4E bits (in @q: they differ) its result
	 */
	if (st & IXM_ADV_RXD_STAT_IPCS)
		flags |= (st & q->err_ipe) ? IXM_MBUF_F_IP_CSUM_BAD :
					     IXM_MBUF_F_IP_CSUM_OK;
	if (st & IXM_ADV_RXD_STAT_L4CS)
		flags |= (st & q->err_l4e) ? IXM_MBUF_F_L4_CSUM_BAD :
					     IXM_MBUF_F_L4_CSUM_OK;
	if (le16_to_cpu(d->wb.pkt_info) & IXM_ADV_RXD_RSS_TYPE) {
		flags |= IXM_MBUF_F_RSS;
		m->rss_hash = le32_to_cpu(d->wb.rss);
	}
	m->flags = flags;
}

/**
 * ixm_adv_rx_burst() - take up to @max received frames off @q
 * @q: the core's RX queue
 * @out: where to put them
 * @max: room in @out
 *
 * Frames with a hardware error, frames that span more than one buffer
 * (none should: the chip code limits frames to one buffer) and
 * impossible lengths are dropped here and counted in @q->errors.
 *
 * Return: how many frames were put in @out.
 */
unsigned int ixm_adv_rx_burst(struct ixm_rxq *q, struct ixm_mbuf **out,
			      unsigned int max)
{
	u16 i = q->next_to_clean, mask = q->count - 1;
	unsigned int n = 0;

	while (n < max && i != q->next_to_use) {
		union ixm_adv_rx_desc *d = &q->desc[i];
		struct ixm_mbuf *m;
		u32 st;
		u16 len;

		st = le32_to_cpu(READ_ONCE(d->wb.status_error));
		if (!(st & IXM_ADV_RXD_STAT_DD))
			break;
		/* the rest of the descriptor only after DD */
		ixm_dma_rmb();
		len = le16_to_cpu(d->wb.length);
		m = q->slot[i];
		q->slot[i] = NULL;
		i = (i + 1) & mask;

		if (unlikely(q->discard || !(st & IXM_ADV_RXD_STAT_EOP) ||
			     (st & q->err_frame) || !len ||
			     len > IXM_MBUF_SIZE)) {
			/* drop every buffer of a multi-buffer frame */
			q->discard = !(st & IXM_ADV_RXD_STAT_EOP);
			q->errors++;
			ixm_mbuf_free(m);
			continue;
		}
		m->data = m->buf;
		m->len = len;
		m->next = NULL;
		/* streaming DMA: a no-op unless bounce buffers are in play */
		ixm_dma_sync_for_cpu(q->nic->dev, m->dma, len);
		ixm_adv_rx_meta(q, m, d, st);
		if (st & IXM_ADV_RXD_STAT_IPCS)
			q->csum_hw++;
		q->packets++;
		q->bytes += len;
		out[n++] = m;
	}
	q->next_to_clean = i;
	return n;
}

/**
 * ixm_adv_rx_refill() - post fresh buffers in consumed descriptors
 * @q: the core's RX queue
 *
 * Does nothing until IXM_RX_REFILL_BATCH descriptors (or the whole ring's
 * worth, for tiny rings) are free, then posts as many as the pool gives
 * and writes the tail once.  An empty pool is counted in @q->no_buf; the
 * next call tries again.
 */
void ixm_adv_rx_refill(struct ixm_rxq *q)
{
	u16 mask = q->count - 1, i = q->next_to_use;
	u16 todo = (q->next_to_clean - q->next_to_use - 1) & mask;

	if (todo < IXM_RX_REFILL_BATCH && todo < q->count / 2)
		return;
	while (todo--) {
		struct ixm_mbuf *m = ixm_mbuf_alloc(q->pool);

		if (unlikely(!m)) {
			q->no_buf++;
			break;
		}
		ixm_adv_rx_post(q, i, m);
		i = ixm_ring_next(i, q->count);
	}
	if (i != q->next_to_use) {
		q->next_to_use = i;
		/* descriptors visible before the device reads the tail */
		ixm_wmb();
		ixm_wr32(q->nic->regs, q->tail, i);
	}
}

/**
 * ixm_adv_rxq_release() - free every posted buffer
 * @q: an RX queue the device no longer uses (stopped)
 */
void ixm_adv_rxq_release(struct ixm_rxq *q)
{
	ixm_adv_release_slots(q->slot, q->count);
	q->next_to_clean = 0;
	q->next_to_use = 0;
}

/* Write one advanced data descriptor. */
static inline void ixm_adv_tx_desc(union ixm_adv_tx_desc *d, dma_addr_t dma,
				   u32 len, u32 cmd, u32 olinfo)
{
	d->read.buffer_addr = cpu_to_le64(dma);
	d->read.cmd_type_len = cpu_to_le32(IXM_ADV_TXD_DTYP_DATA |
					   IXM_ADV_TXD_DCMD_DEXT |
					   IXM_ADV_TXD_DCMD_IFCS | cmd | len);
	d->read.olinfo_status = cpu_to_le32(olinfo);
}

/*
 * Load context slot @slot for frames of @kind (IXM_ADV_CTX_KIND bits): an
 * Ethernet header, then a 20-byte IPv4 header (ixmod sends no IP options)
 * or the fixed 40-byte IPv6 one (no extension headers), then TCP or UDP.
 */
static void ixm_adv_tx_ctx(union ixm_adv_tx_desc *d, unsigned int slot, u16 kind)
{
	struct ixm_adv_tx_ctx_desc *c = (struct ixm_adv_tx_ctx_desc *)d;
	bool v6 = kind & IXM_MBUF_F_TX_IPV6;
	u32 tucmd = IXM_ADV_TXD_DTYP_CTXT | IXM_ADV_TXD_DCMD_DEXT;

	BUILD_BUG_ON(sizeof(*c) != sizeof(*d));
	tucmd |= v6 ? 0 : IXM_ADV_TXD_TUCMD_IPV4;
	tucmd |= (kind & IXM_MBUF_F_TX_UDP_CSUM) ? IXM_ADV_TXD_TUCMD_L4T_UDP :
						   IXM_ADV_TXD_TUCMD_L4T_TCP;
	c->vlan_macip_lens = cpu_to_le32(14 << IXM_ADV_TXD_MACLEN_SHIFT | (v6 ? 40 : 20));
	c->seqnum_seed = 0;
	c->type_tucmd_mlhl = cpu_to_le32(tucmd);
	c->mss_l4len_idx = cpu_to_le32(slot << IXM_ADV_TXD_IDX_SHIFT);
}

/**
 * ixm_adv_tx_burst() - queue frames for transmission
 * @q: the core's TX queue
 * @m: the frames; each one's @data and @len, then its @frags, describe it
 * @n: how many
 *
 * A frame takes one data descriptor for its buffer and one per fragment;
 * only the last has EOP and RS.  PAYLEN, the frame's length, goes in the
 * first one's olinfo and the others' is zero, as Linux's igb and ixgbe
 * post them.  The device writes DD back into the last descriptor only,
 * and a frame is reaped once it has it.
 *
 * A frame flagged IXM_MBUF_F_TX_TCP_CSUM or _UDP_CSUM names in olinfo
 * the context slot that holds its kind (protocol, and family:
 * IXM_MBUF_F_TX_IPV6), with TXSM and, over IPv4, IXSM set, so the NIC
 * inserts the checksums.  When neither slot holds that kind, a context
 * descriptor before the frame loads one, the slot loaded longer ago: IPv4
 * TCP and UDP, or TCP over both families, then never load again; a queue
 * that mixes three or four kinds pays a descriptor per change.
 *
 * The ring takes what it has room for, whole frames in order, and the
 * tail is written once.  Frames it took are freed by ixm_adv_tx_reap()
 * when sent; the caller keeps (and typically drops) the rest.
 *
 * Return: how many frames the ring took, the first ones of @m.
 */
unsigned int ixm_adv_tx_burst(struct ixm_txq *q, struct ixm_mbuf **m,
			      unsigned int n)
{
	u16 mask = q->count - 1, i = q->next_to_use;
	unsigned int room = (q->next_to_clean - q->next_to_use - 1) & mask;
	unsigned int k, f;
	u16 first;
	u64 bytes = 0;

	for (k = 0; k < n; k++) {
		struct ixm_mbuf *mb = m[k];
		u32 len = ixm_mbuf_frame_len(mb);
		u32 cmd = mb->nfrags ? 0 : IXM_ADV_TXD_DCMD_LAST;
		u32 olinfo = len << IXM_ADV_TXD_PAYLEN_SHIFT;
		unsigned int ctx = 0;
		bool load_ctx = false;
		u16 kind = 0;

		if (mb->flags & IXM_MBUF_F_TX_CSUM) {
			kind = mb->flags & IXM_ADV_CTX_KIND;
			if (likely(kind == q->ctx_kind[0])) {
				ctx = 0;
			} else if (kind == q->ctx_kind[1]) {
				ctx = 1;
			} else {
				ctx = q->ctx_next;
				load_ctx = true;
			}
			olinfo |= ctx << IXM_ADV_TXD_IDX_SHIFT | IXM_ADV_TXD_POPTS_TXSM |
				  q->olinfo_ctx;
			/* no header checksum in IPv6: IXSM clear with TUCMD.IPV4 */
			if (!(kind & IXM_MBUF_F_TX_IPV6))
				olinfo |= IXM_ADV_TXD_POPTS_IXSM;
		}
		if (unlikely(1 + mb->nfrags + load_ctx > room)) {
			q->full += n - k;
			break;
		}
		room -= 1 + mb->nfrags + load_ctx;
		first = i;
		if (unlikely(load_ctx)) {
			ixm_adv_tx_ctx(&q->desc[i], ctx, kind);
			q->ctx_kind[ctx] = kind;
			q->ctx_next = !ctx;
			i = (i + 1) & mask;
		}
		if (mb->flags & IXM_MBUF_F_TX_CSUM)
			q->csum_hw++;
		/* the header as built, the arena as the application left it */
		ixm_dma_sync_for_device(q->nic->dev, ixm_mbuf_data_dma(mb), mb->len);
		for (f = 0; f < mb->nfrags; f++)
			ixm_dma_sync_to_device(q->nic->dev, mb->frags[f].dma,
					       mb->frags[f].len);
		ixm_adv_tx_desc(&q->desc[i], ixm_mbuf_data_dma(mb), mb->len, cmd, olinfo);
		for (f = 0; f < mb->nfrags; f++) {
			i = (i + 1) & mask;
			if (f + 1 == mb->nfrags)
				cmd = IXM_ADV_TXD_DCMD_LAST;
			ixm_adv_tx_desc(&q->desc[i], mb->frags[f].dma,
					mb->frags[f].len, cmd, 0);
		}
		/*
		 * The frame's first slot keeps its buffer and where it ends
		 * (ixgbe's next_to_watch): the buffer goes back when that last
		 * descriptor is done.
		 */
		q->slot[first].mb = mb;
		q->slot[first].last = i;
		bytes += len;
		i = (i + 1) & mask;
	}
	if (k) {
		q->next_to_use = i;
		q->packets += k;
		q->bytes += bytes;
		ixm_wmb();
		ixm_wr32(q->nic->regs, q->tail, i);
	}
	return k;
}

/**
 * ixm_adv_tx_reap() - free the buffers of frames the device has sent
 * @q: the core's TX queue
 *
 * Oldest first, at most IXM_TX_REAP_BUDGET frames a call (a core that
 * sent a full ring goes back to its receive work between batches); the
 * first slot of each frame names its last descriptor, the one whose DD
 * says the frame is done.
 *
 * Return: how many descriptors it took back.
 */
unsigned int ixm_adv_tx_reap(struct ixm_txq *q)
{
	u16 mask = q->count - 1, i = q->next_to_clean;
	unsigned int n = 0, frames;

	for (frames = 0; i != q->next_to_use && frames < IXM_TX_REAP_BUDGET; frames++) {
		struct ixm_tx_slot *s = &q->slot[i];

		if (!(le32_to_cpu(READ_ONCE(q->desc[s->last].wb.status)) & IXM_ADV_TXD_STAT_DD))
			break;
		ixm_mbuf_free(s->mb);
		s->mb = NULL;
		n += ((s->last - i) & mask) + 1;
		i = (s->last + 1) & mask;
	}
	q->next_to_clean = i;
	return n;
}

/**
 * ixm_adv_txq_release() - free the buffers of frames never reaped
 * @q: a TX queue the device no longer uses (stopped)
 */
void ixm_adv_txq_release(struct ixm_txq *q)
{
	unsigned int i;

	for (i = 0; q->slot && i < q->count; i++) {
		if (q->slot[i].mb) {
			ixm_mbuf_free(q->slot[i].mb);
			q->slot[i].mb = NULL;
		}
	}
	q->next_to_clean = 0;
	q->next_to_use = 0;
	ixm_adv_txq_ctx_reset(q);
}

/* struct ixm_queue_ops over the rings above (base/queue.h) */
unsigned int ixm_adv_q_rx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				unsigned int max)
{
	return ixm_adv_rx_burst(&ixm_adv_q(q)->rx, m, max);
}

void ixm_adv_q_rx_refill(struct ixm_queue *q)
{
	ixm_adv_rx_refill(&ixm_adv_q(q)->rx);
}

unsigned int ixm_adv_q_tx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				unsigned int n)
{
	return ixm_adv_tx_burst(&ixm_adv_q(q)->tx, m, n);
}

unsigned int ixm_adv_q_tx_reap(struct ixm_queue *q)
{
	return ixm_adv_tx_reap(&ixm_adv_q(q)->tx);
}

/*
 * The next receive descriptor written back (DD), or transmissions not yet
 * reaped.  Only DD is read: the rest of a descriptor waits for
 * ixm_adv_rx_burst() and its barrier.
 */
bool ixm_adv_q_busy(const struct ixm_queue *q)
{
	const struct ixm_adv_queue *aq = ixm_adv_cq(q);
	const struct ixm_rxq *rx = &aq->rx;

	if (rx->next_to_clean != rx->next_to_use &&
	    (le32_to_cpu(READ_ONCE(rx->desc[rx->next_to_clean].wb.status_error)) &
	     IXM_ADV_RXD_STAT_DD))
		return true;
	return aq->tx.next_to_clean != aq->tx.next_to_use;
}

/*
 * Route the queue's causes to its vector and unmask it.  A frame written
 * back before the unmask still raises the interrupt when its cause is
 * pending, and the core looks once more after arming in any case.
 */
static bool ixm_adv_q_arm(struct ixm_queue *q)
{
	struct ixm_adv_queue *aq = ixm_adv_q(q);

	if (q->vector >= 0)
		aq->chip->irq_enable(aq->rx.nic, q->idx, q->vector);
	return true;
}

static void ixm_adv_q_disarm(struct ixm_queue *q)
{
	struct ixm_adv_queue *aq = ixm_adv_q(q);

	if (q->vector >= 0)
		aq->chip->irq_mask(aq->rx.nic, q->vector);
}

/*
 * Counters, and the buffers on the rings: every posted receive descriptor
 * holds one; a frame not yet reaped holds one at its first slot, however
 * many descriptors (context, fragments) it took.  Read while the core runs,
 * so a snapshot.
 */
static void ixm_adv_q_get_stats(const struct ixm_queue *q, struct ixm_queue_stats *s)
{
	const struct ixm_adv_queue *aq = ixm_adv_cq(q);
	const struct ixm_txq *tx = &aq->tx;
	u16 i, ntu;

	memset(s, 0, sizeof(*s));
	s->rx_errors = READ_ONCE(aq->rx.errors);
	s->rx_no_buf = READ_ONCE(aq->rx.no_buf);
	s->rx_csum_hw = READ_ONCE(aq->rx.csum_hw);
	s->tx_full = READ_ONCE(tx->full);
	s->tx_csum_hw = READ_ONCE(tx->csum_hw);
	s->rx_posted = (u16)(READ_ONCE(aq->rx.next_to_use) -
			     READ_ONCE(aq->rx.next_to_clean)) & (aq->rx.count - 1);
	s->tx_pending = 0;
	ntu = READ_ONCE(tx->next_to_use);
	for (i = READ_ONCE(tx->next_to_clean); i != ntu; i = ixm_ring_next(i, tx->count))
		s->tx_pending += !!READ_ONCE(tx->slot[i].mb);
}

const struct ixm_queue_ops ixm_adv_queue_ops = {
	.rx_burst	= ixm_adv_q_rx_burst,
	.rx_refill	= ixm_adv_q_rx_refill,
	.tx_burst	= ixm_adv_q_tx_burst,
	.tx_reap	= ixm_adv_q_tx_reap,
	.busy		= ixm_adv_q_busy,
	.arm		= ixm_adv_q_arm,
	.disarm		= ixm_adv_q_disarm,
	.get_stats	= ixm_adv_q_get_stats,
};

/* ---- a queue pair's life, for the chips' struct ixm_nic_ops ---- */

/**
 * ixm_adv_queue_alloc() - rings for one queue pair, the receive ring filled
 * @nic: the device (its @dev maps the rings)
 * @chip: the chip's hooks, which start, stop, arm and disarm the queue
 * @idx: the queue pair's number on the device
 * @pool: where receive buffers come from
 * @node: NUMA node of the core that will serve the queue
 *
 * Return: the queue (not started; @vector -1), or NULL when out of memory
 * (nothing held).  Injectable (NULL).
 */
noinline struct ixm_queue *ixm_adv_queue_alloc(struct ixm_nic *nic,
					       const struct ixm_adv_chip_ops *chip,
					       unsigned int idx,
					       struct ixm_mbuf_pool *pool, int node)
{
	const u16 count = IXM_ADV_RING_SIZE;
	struct ixm_adv_queue *aq;

	aq = ixm_zalloc_node(sizeof(*aq) + count * sizeof(*aq->rx.slot) +
			     count * sizeof(*aq->tx.slot), node);
	if (!aq)
		return NULL;
	aq->q.ops = &ixm_adv_queue_ops;
	aq->q.idx = idx;
	aq->q.vector = -1;
	aq->chip = chip;
	aq->rx.nic = nic;
	aq->rx.idx = idx;
	aq->rx.count = count;
	aq->rx.pool = pool;
	aq->rx.slot = (struct ixm_mbuf **)(aq + 1);
	aq->tx.nic = nic;
	aq->tx.idx = idx;
	aq->tx.count = count;
	aq->tx.slot = (struct ixm_tx_slot *)(aq->rx.slot + count);
	aq->rx.desc = ixm_dma_alloc(nic->dev, count * sizeof(*aq->rx.desc), &aq->rx.desc_dma);
	aq->tx.desc = ixm_dma_alloc(nic->dev, count * sizeof(*aq->tx.desc), &aq->tx.desc_dma);
	if (!aq->rx.desc || !aq->tx.desc || ixm_adv_rxq_fill(&aq->rx)) {
		ixm_adv_queue_free(nic, &aq->q);
		return NULL;
	}
	return &aq->q;
}
ixm_injectable_null(ixm_adv_queue_alloc);

/**
 * ixm_adv_queue_start() - program and enable both rings
 * @nic: the device
 * @q: a queue from ixm_adv_queue_alloc()
 *
 * Return: 0, or -ETIMEDOUT from the chip's ring enable.
 */
int ixm_adv_queue_start(struct ixm_nic *nic, struct ixm_queue *q)
{
	struct ixm_adv_queue *aq = ixm_adv_q(q);
	int err;

	err = aq->chip->rxq_start(nic, &aq->rx);
	if (!err)
		err = aq->chip->txq_start(nic, &aq->tx);
	return err;
}

/**
 * ixm_adv_queue_stop() - disable both rings; the device no longer uses them
 * @nic: the device
 * @q: the queue
 */
void ixm_adv_queue_stop(struct ixm_nic *nic, struct ixm_queue *q)
{
	struct ixm_adv_queue *aq = ixm_adv_q(q);

	aq->chip->rxq_stop(nic, &aq->rx);
	aq->chip->txq_stop(nic, &aq->tx);
}

/**
 * ixm_adv_queue_free() - give back every buffer on the rings, then free them
 * @nic: the device
 * @q: a stopped (or never started) queue, or NULL
 */
void ixm_adv_queue_free(struct ixm_nic *nic, struct ixm_queue *q)
{
	struct ixm_adv_queue *aq;

	if (!q)
		return;
	aq = ixm_adv_q(q);
	ixm_adv_rxq_release(&aq->rx);
	ixm_adv_txq_release(&aq->tx);
	if (aq->rx.desc)
		ixm_dma_free(nic->dev, aq->rx.count * sizeof(*aq->rx.desc), aq->rx.desc,
			     aq->rx.desc_dma);
	if (aq->tx.desc)
		ixm_dma_free(nic->dev, aq->tx.count * sizeof(*aq->tx.desc), aq->tx.desc,
			     aq->tx.desc_dma);
	ixm_free(aq);
}
