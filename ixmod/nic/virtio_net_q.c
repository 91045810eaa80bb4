// SPDX-License-Identifier: GPL-2.0
/*
 * virtio_net_q.c - a virtio-net receive and transmit queue pair
 *
 * PORTABLE.  Each queue pair belongs to one dataplane core; nothing here
 * locks.  The rings are virtio_ring.c's; this file is what virtio 1.1
 * §5.1.6 ("Device Operation") puts in them.
 *
 * RX: one device-writable descriptor per buffer, the whole IXM_MBUF_SIZE
 * bytes from its start, as intel_adv.c posts m->dma.  The device writes
 * the 12-byte struct virtio_net_hdr there and the frame right after it,
 * so a received frame starts at m->buf + IXM_VNET_HDR_LEN (m->data says
 * so; the stack and ixm_app_rx_off() take the frame wherever @data is).
 * VIRTIO_NET_F_MRG_RXBUF is not used: without it §5.1.6.3.1 asks for
 * buffers of at least 1526 bytes (a 1514-byte frame and the header), and
 * 2048 is more, so every frame fits one buffer and one descriptor, and
 * the ring holds as many frames as it has entries.  A device must then
 * set num_buffers to 1 (§5.1.6.4.1); 0 is also taken, as older vhost
 * wrote it; more than 1 is dropped and counted.
 *
 * TX: a frame is a chain of one device-readable descriptor for its
 * header, from a per-head array (@tx_hdr), then its buffer's bytes, then
 * one per fragment, read in place (zero-copy, as intel_adv.c sends them).
 * The frame's own bytes are never moved to make room for the header.
 *
 * Checksums.  ixmod's protocols, on a port whose NIC inserts checksums
 * (IXM_TXO_CSUM), leave both the IPv4 header checksum and the TCP/UDP one
 * to it (mbuf.h).  virtio offloads one checksum only: VIRTIO_NET_F_CSUM's
 * NEEDS_CSUM completes a sum from csum_start to the end and stores it at
 * csum_start + csum_offset (§5.1.6.2).  This driver computes the IPv4
 * header's itself, 20 bytes already in the CPU's cache, rather than
 * teaching the protocols a second kind of offload; over IPv6 (no header
 * checksum) csum_start is the end of the fixed 40-byte header.  On receive,
 * DATA_VALID (the device checked the TCP/UDP checksum) and NEEDS_CSUM (a
 * local sender left it to be completed: the data is good) both become
 * IXM_MBUF_F_L4_CSUM_OK; virtio says nothing about the IPv4 header's,
 * which the stack then checks in software (ip.c), as Linux does.
 *
 * Notifications: a polling core wants no interrupts and kicks only a
 * device that asked, at most once per burst (virtio_ring.c).
 *
 * Steering: a device with several queue pairs but no RSS ixmod can
 * program delivers flows to queues of its own choosing; @steer then
 * sends each frame to the core that owns its flow (steer.c), and the
 * receive half of this queue pair includes its inbound steering rings
 * (burst, refill, busy, arm, the posted gauge).
 */
#include "platform.h"
#include "csum.h"
#include "virtio_net.h"

#define IXM_VNET_REFILL_BATCH	32
#define IXM_VNET_ETH_HLEN	14
#define IXM_VNET_IP_HLEN_MIN	20
#define IXM_VNET_IP6_HLEN	40	/* RFC 8200 §3: the fixed header */
#define IXM_VNET_TCP_CSUM_OFF	16	/* RFC 9293 §3.1: checksum at byte 16 */
#define IXM_VNET_UDP_CSUM_OFF	6	/* RFC 768: checksum at byte 6 */

/* Post @m as one device-writable chain (the whole buffer). */
static int ixm_vnet_rx_post(struct ixm_vnet_queue *vnq, struct ixm_mbuf *m)
{
	struct ixm_vq_buf b = {
		.addr	= m->dma,
		.len	= IXM_MBUF_SIZE,
		.write	= true,
	};
	int head;

	/* the header lands in the buffer too: the device may write it all */
	ixm_dma_sync_for_device(vnq->dev, m->dma, IXM_MBUF_SIZE);
	head = ixm_vq_add(&vnq->rx, &b, 1);
	if (head >= 0)
		vnq->rx_slot[head] = m;
	return head;
}

/**
 * ixm_vnet_rxq_fill() - post a buffer in every receive descriptor
 * @vnq: a queue pair the device does not use yet (or was reset), whose
 *	virtqueues are initialised (ixm_vq_init()) and whose @pool and
 *	slots are set
 *
 * The glue then enables the queue; the chains are published here.
 *
 * Return: 0, or -ENOMEM if the pool cannot fill the ring (nothing is left
 * posted).
 */
int ixm_vnet_rxq_fill(struct ixm_vnet_queue *vnq)
{
	BUILD_BUG_ON(sizeof(struct ixm_vnet_hdr) != IXM_VNET_HDR_LEN);
	BUILD_BUG_ON(sizeof(struct ixm_vnet_hdr) != sizeof(struct virtio_net_hdr_v1));
	BUILD_BUG_ON(sizeof(struct ixm_vq_desc) != sizeof(struct vring_desc));
	BUILD_BUG_ON(IXM_VNET_HDR_LEN + 1514 > IXM_MBUF_SIZE);

	while (vnq->rx.num_free) {
		struct ixm_mbuf *m = ixm_mbuf_alloc(vnq->pool);

		if (!m) {
			ixm_vnet_release(vnq);
			return -ENOMEM;
		}
		ixm_vnet_rx_post(vnq, m);
	}
	ixm_vq_publish(&vnq->rx);
	return 0;
}

/* Turn the device's receive header into mbuf flags. */
static inline u16 ixm_vnet_rx_flags(struct ixm_vnet_queue *vnq,
				    const struct ixm_vnet_hdr *h)
{
	if (!vnq->guest_csum ||
	    !(h->flags & (VIRTIO_NET_HDR_F_DATA_VALID | VIRTIO_NET_HDR_F_NEEDS_CSUM)))
		return 0;
	vnq->rx_csum_hw++;
	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
		return IXM_MBUF_F_L4_CSUM_OK | IXM_MBUF_F_L4_CSUM_PARTIAL;
	return IXM_MBUF_F_L4_CSUM_OK;
}

/*
 * Up to @max frames from the device's receive queue.  Chains too short
 * for a header and an Ethernet header, longer than a buffer, or spread
 * over more than one buffer are dropped here and counted in @rx_errors.
 */
static __always_inline unsigned int ixm_vnet_rx_device(struct ixm_vnet_queue *vnq,
						       struct ixm_mbuf **out,
						       unsigned int max)
{
	unsigned int n = 0;

	while (n < max) {
		const struct ixm_vnet_hdr *h;
		struct ixm_mbuf *m;
		int head;
		u32 len;

		head = ixm_vq_get_used(&vnq->rx, &len);
		if (head == -ENOENT)
			break;
		if (unlikely(head < 0)) {
			vnq->rx_errors++;
			continue;
		}
		m = vnq->rx_slot[head];
		vnq->rx_slot[head] = NULL;
		/* streaming DMA: a no-op unless bounce buffers are in play */
		ixm_dma_sync_for_cpu(vnq->dev, m->dma, min_t(u32, len, IXM_MBUF_SIZE));
		h = (const struct ixm_vnet_hdr *)m->buf;
		if (unlikely(len < IXM_VNET_HDR_LEN + IXM_VNET_ETH_HLEN ||
			     len > IXM_MBUF_SIZE ||
			     le16_to_cpu(h->num_buffers) > 1)) {
			vnq->rx_errors++;
			ixm_mbuf_free(m);
			continue;
		}
		m->data = m->buf + IXM_VNET_HDR_LEN;
		m->len = len - IXM_VNET_HDR_LEN;
		m->next = NULL;
		m->flags = ixm_vnet_rx_flags(vnq, h);
		vnq->rx_packets++;
		vnq->rx_bytes += m->len;
		out[n++] = m;
	}
	return n;
}

/**
 * ixm_vnet_q_rx_burst() - take up to @max received frames
 * @q: the core's queue pair (struct ixm_vnet_queue)
 * @out: where to put them
 * @max: room in @out
 *
 * With software steering (@steer), the frames other cores steered here
 * come first, then the device's that are this queue's own; the device's
 * others go to their owners (steer.c) and take room in @max too, which
 * bounds the burst's work.
 *
 * Return: how many frames were put in @out.
 */
unsigned int ixm_vnet_q_rx_burst(struct ixm_queue *q, struct ixm_mbuf **out,
				 unsigned int max)
{
	struct ixm_vnet_queue *vnq = ixm_vnet_q(q);
	unsigned int n;

	if (likely(!vnq->steer))
		return ixm_vnet_rx_device(vnq, out, max);
	n = ixm_steer_take(vnq->steer, out, max);
	return n + ixm_steer_rx(vnq->steer, out + n,
				ixm_vnet_rx_device(vnq, out + n, max - n));
}

/**
 * ixm_vnet_q_rx_refill() - post fresh buffers for the ones taken
 * @q: the core's queue pair
 *
 * Does nothing until IXM_VNET_REFILL_BATCH descriptors (or half a tiny
 * ring) are free, then posts as many as the pool gives, publishes once
 * and notifies the device if it asked.  An empty pool is counted in
 * @rx_no_buf; the next call tries again.
 */
void ixm_vnet_q_rx_refill(struct ixm_queue *q)
{
	struct ixm_vnet_queue *vnq = ixm_vnet_q(q);
	u16 added = 0;

	if (vnq->steer)
		ixm_steer_refill(vnq->steer);
	if (vnq->rx.num_free < IXM_VNET_REFILL_BATCH &&
	    vnq->rx.num_free < vnq->rx.size / 2)
		return;
	while (vnq->rx.num_free) {
		struct ixm_mbuf *m = ixm_mbuf_alloc(vnq->pool);

		if (unlikely(!m)) {
			vnq->rx_no_buf++;
			break;
		}
		ixm_vnet_rx_post(vnq, m);
		added++;
	}
	if (added)
		ixm_vq_kick(&vnq->rx);
}

/*
 * Fill the header of a frame to send.  A frame flagged for checksums is
 * Ethernet + IPv4 + TCP or UDP, its IPv4 checksum 0 and its TCP/UDP
 * checksum field holding the pseudo-header's sum (mbuf.h): the IPv4 one
 * is computed here, the other left to the device (NEEDS_CSUM).  Flagged
 * IXM_MBUF_F_TX_IPV6, the network header is IPv6's fixed 40 bytes, which
 * have no checksum: only the TCP/UDP one, from right after them.
 */
static void ixm_vnet_tx_hdr(struct ixm_vnet_queue *vnq, struct ixm_vnet_hdr *h,
			    struct ixm_mbuf *mb)
{
	bool v6 = mb->flags & IXM_MBUF_F_TX_IPV6;
	unsigned int ihl;
	__sum16 *check;
	u8 *ip;

	memset(h, 0, sizeof(*h));
	h->gso_type = VIRTIO_NET_HDR_GSO_NONE;
	if (!(mb->flags & IXM_MBUF_F_TX_CSUM))
		return;
	ip = mb->data + IXM_VNET_ETH_HLEN;
	ihl = v6 ? IXM_VNET_IP6_HLEN : (ip[0] & 0xf) * 4;
	if (unlikely(!vnq->csum || mb->len < IXM_VNET_ETH_HLEN + ihl ||
		     ihl < IXM_VNET_IP_HLEN_MIN)) {
		WARN_ONCE(1, "ixmod: virtio-net: checksum asked of a queue that cannot\n");
		vnq->tx_errors++;
		return;
	}
	if (!v6) {
		check = (__sum16 *)(ip + 10);
		*check = 0;
		*check = ixm_csum(ip, ihl);
	}
	h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	h->csum_start = cpu_to_le16(IXM_VNET_ETH_HLEN + ihl);
	h->csum_offset = cpu_to_le16((mb->flags & IXM_MBUF_F_TX_UDP_CSUM) ?
				     IXM_VNET_UDP_CSUM_OFF : IXM_VNET_TCP_CSUM_OFF);
	vnq->tx_csum_hw++;
}

/**
 * ixm_vnet_q_tx_burst() - queue frames for transmission
 * @q: the core's queue pair
 * @m: the frames; each one's @data and @len, then its @frags, describe it
 * @n: how many
 *
 * A frame takes 2 + nfrags descriptors (header, buffer, fragments).  The
 * ring takes what it has room for, whole frames in order, publishes once
 * and notifies the device at most once, only if it asked.  Frames it took
 * are freed by ixm_vnet_q_tx_reap() when the device gives them back; the
 * caller keeps (and typically drops) the rest.
 *
 * Return: how many frames the ring took, the first ones of @m.
 */
unsigned int ixm_vnet_q_tx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				 unsigned int n)
{
	struct ixm_vq_buf b[2 + IXM_MBUF_FRAGS];
	struct ixm_vnet_queue *vnq = ixm_vnet_q(q);
	struct ixm_vq *tx = &vnq->tx;
	unsigned int k, f;
	u64 bytes = 0;

	for (k = 0; k < n; k++) {
		struct ixm_mbuf *mb = m[k];
		u16 head = tx->free_head;
		int got;

		if (unlikely(2 + mb->nfrags > tx->num_free)) {
			vnq->tx_full += n - k;
			break;
		}
		/* the chain's head is the free list's: its header slot */
		ixm_vnet_tx_hdr(vnq, &vnq->tx_hdr[head], mb);
		b[0].addr = vnq->tx_hdr_dma + head * sizeof(struct ixm_vnet_hdr);
		b[0].len = IXM_VNET_HDR_LEN;
		b[0].write = false;
		b[1].addr = ixm_mbuf_data_dma(mb);
		b[1].len = mb->len;
		b[1].write = false;
		/* the header as built, the arena as the application left it */
		ixm_dma_sync_for_device(vnq->dev, b[1].addr, mb->len);
		for (f = 0; f < mb->nfrags; f++) {
			b[2 + f].addr = mb->frags[f].dma;
			b[2 + f].len = mb->frags[f].len;
			b[2 + f].write = false;
			ixm_dma_sync_to_device(vnq->dev, mb->frags[f].dma,
					       mb->frags[f].len);
		}
		got = ixm_vq_add(tx, b, 2 + mb->nfrags);
		if (WARN_ONCE(got != head, "ixmod: virtio-net: chain head %d, not %u\n",
			      got, head))
			break;
		vnq->tx_slot[head] = mb;
		bytes += ixm_mbuf_frame_len(mb);
	}
	if (k) {
		vnq->tx_packets += k;
		vnq->tx_bytes += bytes;
		ixm_vq_kick(tx);
	}
	return k;
}

/**
 * ixm_vnet_q_tx_reap() - free the frames the device has given back
 * @q: the core's queue pair
 *
 * Return: how many descriptors it took back.
 */
unsigned int ixm_vnet_q_tx_reap(struct ixm_queue *q)
{
	struct ixm_vnet_queue *vnq = ixm_vnet_q(q);
	unsigned int n = 0;

	for (;;) {
		struct ixm_mbuf *mb;
		int head;
		u32 len;

		head = ixm_vq_get_used(&vnq->tx, &len);
		if (head == -ENOENT)
			break;
		if (unlikely(head < 0))
			continue;
		mb = vnq->tx_slot[head];
		vnq->tx_slot[head] = NULL;
		n += 2 + mb->nfrags;
		ixm_mbuf_free(mb);
	}
	return n;
}

/*
 * A used receive entry waiting, or transmissions not yet reaped.  Only
 * used->idx is read: the entry waits for ixm_vq_get_used() and its
 * barrier.
 */
bool ixm_vnet_q_busy(const struct ixm_queue *q)
{
	const struct ixm_vnet_queue *vnq =
		container_of(q, struct ixm_vnet_queue, q);

	return ixm_vq_has_used(&vnq->rx) || ixm_vq_inflight(&vnq->tx) ||
	       (vnq->steer && ixm_steer_busy(vnq->steer));
}

/* Free the buffer held by each of @count slots. */
static void ixm_vnet_release_slots(struct ixm_mbuf **slot, u16 count)
{
	u16 i;

	for (i = 0; i < count; i++) {
		if (slot[i]) {
			ixm_mbuf_free(slot[i]);
			slot[i] = NULL;
		}
	}
}

/**
 * ixm_vnet_release() - give every buffer back to the pool, rings emptied
 * @vnq: a queue pair the device no longer uses (a device reset, §2.1;
 *	or, with virtio 1.2's VIRTIO_F_RING_RESET, both queues reset)
 *
 * Unsent frames are freed as never sent; the virtqueues are as
 * ixm_vq_init() left them.  With steering, the buffers on the inbound
 * rings go back too (frames steered here and not taken are dropped) and
 * the queue leaves the port's steering: no core may run or steer to any
 * of the port's queues any more.
 */
void ixm_vnet_release(struct ixm_vnet_queue *vnq)
{
	ixm_vnet_release_slots(vnq->rx_slot, vnq->rx.size);
	ixm_vnet_release_slots(vnq->tx_slot, vnq->tx.size);
	if (vnq->steer)
		ixm_steer_q_release(vnq->steer);
	ixm_vq_reset(&vnq->rx);
	ixm_vq_reset(&vnq->tx);
}

/*
 * Before the core sleeps: ask for an interrupt on the next used receive
 * chain (the loop looks at the queue once more afterwards).  Transmit
 * completions wake no one: they are reaped when the core next runs.
 *
 * A used chain already there refuses (ixm_vq_arm()), and the request is
 * withdrawn (used_event far ahead again): the device raises nothing for
 * that chain nor for any after it.  The core must not sleep then, even
 * if that look finds nothing of its own: with steering every frame it
 * takes may be another core's, and it would sleep deaf to its device
 * until a timer or another core woke it (seconds; with no timer and
 * nothing steered to it, for good).
 */
static bool ixm_vnet_q_arm(struct ixm_queue *q)
{
	struct ixm_vnet_queue *vnq = ixm_vnet_q(q);
	bool armed = true;

	if (q->vector >= 0)
		armed = ixm_vq_arm(&vnq->rx);
	/* and a frame another core steers here (steer.c: @wake) */
	if (vnq->steer)
		ixm_steer_arm(vnq->steer);
	return armed;
}

static void ixm_vnet_q_disarm(struct ixm_queue *q)
{
	struct ixm_vnet_queue *vnq = ixm_vnet_q(q);

	if (q->vector >= 0)
		ixm_vq_disarm(&vnq->rx);
	if (vnq->steer)
		ixm_steer_disarm(vnq->steer);
}

static void ixm_vnet_q_get_stats(const struct ixm_queue *q, struct ixm_queue_stats *s)
{
	const struct ixm_vnet_queue *vnq = container_of(q, const struct ixm_vnet_queue, q);

	memset(s, 0, sizeof(*s));
	s->rx_errors = READ_ONCE(vnq->rx_errors);
	s->rx_no_buf = READ_ONCE(vnq->rx_no_buf);
	s->rx_csum_hw = READ_ONCE(vnq->rx_csum_hw);
	s->tx_full = READ_ONCE(vnq->tx_full);
	s->tx_csum_hw = READ_ONCE(vnq->tx_csum_hw);
	s->rx_posted = ixm_vq_inflight(&vnq->rx);
	s->tx_pending = ixm_vq_inflight(&vnq->tx);
	if (vnq->steer) {
		s->rx_steered = READ_ONCE(vnq->steer->steered);
		s->rx_steer_drops = READ_ONCE(vnq->steer->steer_drops);
		s->rx_steered_in = READ_ONCE(vnq->steer->steered_in);
		s->rx_posted += ixm_steer_posted(vnq->steer);
	}
}

const struct ixm_queue_ops ixm_vnet_queue_ops = {
	.rx_burst	= ixm_vnet_q_rx_burst,
	.rx_refill	= ixm_vnet_q_rx_refill,
	.tx_burst	= ixm_vnet_q_tx_burst,
	.tx_reap	= ixm_vnet_q_tx_reap,
	.busy		= ixm_vnet_q_busy,
	.arm		= ixm_vnet_q_arm,
	.disarm		= ixm_vnet_q_disarm,
	.get_stats	= ixm_vnet_q_get_stats,
};
