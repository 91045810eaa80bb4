// SPDX-License-Identifier: GPL-2.0
/*
 * virtio_net_model.c - a virtio-net device over split virtqueues (host tests)
 *
 * Layout (virtio 1.1 §2.6, every field little-endian, §2.6.3):
 *	descriptor (§2.6.5): le64 addr, le32 len, le16 flags, le16 next
 *	driver area (§2.6.6): le16 flags, le16 idx, le16 ring[size],
 *		le16 used_event (VIRTIO_F_EVENT_IDX)
 *	device area (§2.6.8): le16 flags, le16 idx, {le32 id, le32 len}
 *		ring[size], le16 avail_event (VIRTIO_F_EVENT_IDX)
 *
 * The device fetches every chain the driver has published as soon as it
 * looks at a queue (a real device may prefetch), copies its descriptors
 * once and checks them; it then serves the chains in order.  The rules a
 * driver can break, each counted in dev->viol[]:
 *
 * DESC_RANGE	§2.6.5: a head or a next beyond the queue size.
 * CHAIN_LOOP	§2.6.5.2 (no chain over 2^32 bytes: "loops in the
 *		descriptor chain are forbidden") and §2.6.5.3.1 (no chain
 *		longer than the Queue Size): a chain that comes back to one
 *		of its descriptors, or is longer than the queue.
 * REUSE	§2.6.13.1 (chains are placed in free descriptors): a
 *		descriptor the device holds (made available, not yet in the
 *		used ring) made available again.
 * AVAIL_JUMP	§2.6.13 (the ring cannot wrap: it is the size of the
 *		table): avail->idx more than the queue size ahead of what
 *		the device has given back.
 * RX_READABLE	§5.1.6.3: receive buffers are device-writable.
 * TX_WRITABLE	§5.1.6.2: transmit buffers are device-readable (and
 *		§2.6.4.2: readable before writable in any chain).
 * RX_SHORT	§5.1.6.3.1: without MRG_RXBUF a receive chain holds at
 *		least 1526 bytes (a "SHOULD" the driver here promises).
 * HDR_SIZE	§5.1.6: a transmit chain starts with the 12-byte header.
 * TX_GSO	§5.1.6.2.1: gso_type NONE unless a HOST_* GSO feature.
 * CSUM_FEATURE	§5.1.6.2.1: NEEDS_CSUM only with VIRTIO_NET_F_CSUM.
 * CSUM_RANGE	§5.1.6.2: csum_start and csum_offset inside the frame.
 * AVAIL_FLAGS	§2.6.7.1: flags 0 or 1; 0 if VIRTIO_F_EVENT_IDX.
 * MISSED_KICK	§2.6.13.4/§2.6.10: the device asked to be notified
 *		(asleep) and new chains were published without a kick.
 * QUEUE_RANGE	§5.1.2 and §4.1.4.3: a queue set up or notified that the
 *		device does not have: 2N data queues, N being
 *		max_virtqueue_pairs if MQ or RSS is negotiated, else 1; the
 *		control queue at 2N if CTRL_VQ is.
 * CTRL_LAYOUT	§5.1.6.5 (and §2.6.4.2): a control chain is the class,
 *		command and data device-readable, then the ack
 *		device-writable.
 * CTRL_CMD	§5.1.6.5.5.1 and §5.1.6.5.7.1: a command the driver may
 *		not send: VQ_PAIRS_SET without MQ, or with 0 or more than
 *		max_virtqueue_pairs pairs, or pairs not set up; RSS_CONFIG
 *		without RSS, or with a table that is not a power of two,
 *		longer than the device's, naming a receive queue the
 *		device does not have or that is not set up, max_tx_vq 0 or
 *		over max_virtqueue_pairs, a key over the device's, hash
 *		types it does not support; any other command (ixmod sends
 *		none).  The device answers VIRTIO_NET_ERR.
 *
 * Notifications: awake, the device polls and asks for no kick (used->flags
 * VRING_USED_F_NO_NOTIFY, or avail_event kept far ahead); asleep
 * (vnm_sleep()) it asks for one at the next chain.  It counts the kicks it
 * gets (and those it had not asked for), and the used-buffer
 * notifications it would send (irqs): after each batch of used entries,
 * per used_event and vring_need_event(), or per VRING_AVAIL_F_NO_INTERRUPT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtio_net_model.h"

static const char *const vnm_rule_name[VNM_V_NR] = {
	[VNM_V_DESC_RANGE]	= "descriptor index beyond the queue (2.6.5)",
	[VNM_V_CHAIN_LOOP]	= "descriptor chain loops or exceeds the queue (2.6.5.2)",
	[VNM_V_REUSE]		= "descriptor made available while the device holds it (2.6.13.1)",
	[VNM_V_AVAIL_JUMP]	= "avail idx more than the queue size ahead (2.6.13)",
	[VNM_V_RX_READABLE]	= "device-readable descriptor in a receive chain (5.1.6.3)",
	[VNM_V_TX_WRITABLE]	= "device-writable descriptor in a transmit chain (5.1.6.2)",
	[VNM_V_RX_SHORT]	= "receive chain under 1526 bytes without MRG_RXBUF (5.1.6.3.1)",
	[VNM_V_HDR_SIZE]	= "transmit chain shorter than the 12-byte header (5.1.6)",
	[VNM_V_TX_GSO]		= "gso_type not NONE without a GSO feature (5.1.6.2.1)",
	[VNM_V_CSUM_FEATURE]	= "NEEDS_CSUM without VIRTIO_NET_F_CSUM (5.1.6.2.1)",
	[VNM_V_CSUM_RANGE]	= "csum_start/csum_offset outside the frame (5.1.6.2)",
	[VNM_V_AVAIL_FLAGS]	= "avail flags not 0 with EVENT_IDX, or not 0/1 (2.6.7.1)",
	[VNM_V_MISSED_KICK]	= "chains published to a sleeping device without a kick (2.6.13.4)",
	[VNM_V_QUEUE_RANGE]	= "a queue the device does not have set up or notified (5.1.2)",
	[VNM_V_CTRL_LAYOUT]	= "control chain not readable command then writable ack (5.1.6.5)",
	[VNM_V_CTRL_CMD]	= "control command the driver may not send (5.1.6.5.5.1, 5.1.6.5.7.1)",
};

/* Feature bits (§5.1.3, §6), the model's own spelling */
#define VNM_F_CSUM		(1ULL << 0)
#define VNM_F_MRG_RXBUF		(1ULL << 15)
#define VNM_F_CTRL_VQ		(1ULL << 17)
#define VNM_F_MQ		(1ULL << 22)
#define VNM_F_EVENT_IDX		(1ULL << 29)
#define VNM_F_RSS		(1ULL << 60)

#define VNM_HASH_TYPES		0x1ffu	/* §5.1.6.4.3.1: every type, as QEMU's */
#define VNM_CTRL_MAX		1024	/* bytes of one command the model reads */

/* What a queue carries: the rules its chains are checked against */
enum vnm_kind {
	VNM_K_RX,
	VNM_K_TX,
	VNM_K_CTRL,
};

static struct vnm_dev *vnm_devs;
uint64_t vnm_now_us;

static void vnm_viol(struct vnm_dev *dev, enum vnm_rule r)
{
	if (!dev->viol[r]++)
		fprintf(stderr, "# virtio-net model: %s\n", vnm_rule_name[r]);
}

uint64_t vnm_violations(const struct vnm_dev *dev)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < VNM_V_NR; i++)
		n += dev->viol[i];
	return n;
}

/* Little-endian loads and stores at any address (the model's own). */
static uint16_t ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t ld64(const uint8_t *p)
{
	return ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

static void st16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void st32(uint8_t *p, uint32_t v)
{
	st16(p, (uint16_t)v);
	st16(p + 2, (uint16_t)(v >> 16));
}

static bool vnm_event_idx(const struct vnm_dev *dev)
{
	return dev->features & VNM_F_EVENT_IDX;
}

/* §2.6.7.2 / §2.6.10: the condition both sides compute */
static bool vnm_need_event(uint16_t event, uint16_t new, uint16_t old)
{
	return (uint16_t)(new - event - 1) < (uint16_t)(new - old);
}

/* avail->idx and friends (the driver writes them) */
static uint16_t vnm_avail_idx(const struct vnm_queue *q)
{
	return __atomic_load_n((const uint16_t *)(q->avail + 2), __ATOMIC_ACQUIRE);
}

static uint16_t vnm_used_event(const struct vnm_queue *q)
{
	return ld16(q->avail + 4 + 2 * q->size);
}

/* What the device asks of the driver's kicks (§2.6.10, §2.6.7.2). */
static void vnm_ask(struct vnm_dev *dev, struct vnm_queue *q)
{
	uint8_t *avail_event = q->used + 4 + 8 * q->size;

	if (vnm_event_idx(dev)) {
		/* asleep: a kick at the next chain; awake: never reachable */
		st16(avail_event, q->asleep ? q->last_avail : (uint16_t)(q->last_avail + 0x8000));
		st16(q->used, 0);
	} else {
		st16(q->used, q->asleep ? 0 : 1);	/* VRING_USED_F_NO_NOTIFY */
	}
}

/* §5.1.2: N, the queue pairs the device has under the features negotiated */
static unsigned int vnm_pairs(const struct vnm_dev *dev)
{
	return dev->features & (VNM_F_MQ | VNM_F_RSS) ? dev->max_pairs : 1;
}

/**
 * vnm_ctrl_vq() - the control queue's index (§5.1.2)
 * Return: 2N, or the device's queue count (no queue) without CTRL_VQ.
 */
unsigned int vnm_ctrl_vq(const struct vnm_dev *dev)
{
	return dev->features & VNM_F_CTRL_VQ ? 2 * vnm_pairs(dev) : dev->nq;
}

static bool vnm_queue_exists(const struct vnm_dev *dev, unsigned int qi)
{
	return qi < 2 * vnm_pairs(dev) || qi == vnm_ctrl_vq(dev);
}

static enum vnm_kind vnm_queue_kind(const struct vnm_dev *dev, unsigned int qi)
{
	if (qi == vnm_ctrl_vq(dev))
		return VNM_K_CTRL;
	return qi % 2 ? VNM_K_TX : VNM_K_RX;
}

struct vnm_dev *vnm_new(uint64_t features)
{
	return vnm_new_mq(features, 1);
}

/**
 * vnm_new_mq() - a device whose configuration says @max_pairs queue pairs
 * Return: the device (the process ends if memory runs out, or on a
 * @max_pairs no device may say: §5.1.4.1, 1 to 0x8000).
 */
struct vnm_dev *vnm_new_mq(uint64_t features, uint16_t max_pairs)
{
	struct vnm_dev *dev = calloc(1, sizeof(*dev));

	if (!dev || max_pairs < 1 || max_pairs > VNM_PAIRS_MAX)
		abort();
	dev->features = features;
	dev->max_pairs = max_pairs;
	dev->nq = 2 * max_pairs + 1;
	dev->q = calloc(dev->nq, sizeof(*dev->q));
	if (!dev->q)
		abort();
	dev->rx_num_buffers = 1;
	dev->next_dev = vnm_devs;
	vnm_devs = dev;
	return dev;
}

void vnm_free(struct vnm_dev *dev)
{
	struct vnm_dev **p;
	unsigned int i;

	for (p = &vnm_devs; *p; p = &(*p)->next_dev) {
		if (*p == dev) {
			*p = dev->next_dev;
			break;
		}
	}
	for (i = 0; i < dev->nq; i++)
		vnm_queue_reset(dev, i);
	free(dev->q);
	free(dev);
}

/* The virtio-pci common configuration's queue_desc/driver/device + enable. */
void vnm_queue_setup(struct vnm_dev *dev, unsigned int qi, uint16_t size,
		     void *desc, void *avail, void *used)
{
	struct vnm_queue *q;
	unsigned int i;

	if (!vnm_queue_exists(dev, qi)) {
		vnm_viol(dev, VNM_V_QUEUE_RANGE);
		return;
	}
	q = &dev->q[qi];
	vnm_queue_reset(dev, qi);
	q->size = size;
	q->desc = desc;
	q->avail = avail;
	q->used = used;
	q->mark = calloc(size, sizeof(*q->mark));
	q->fifo = calloc(size, sizeof(*q->fifo));
	if (!q->mark || !q->fifo)
		abort();
	for (i = 0; i < size; i++) {
		q->fifo[i].seg = calloc(size, sizeof(struct vnm_seg));
		if (!q->fifo[i].seg)
			abort();
	}
	q->ready = true;
	vnm_ask(dev, q);
}

/* A device reset (§2.1), or virtio 1.2's queue_reset: all held is dropped. */
void vnm_queue_reset(struct vnm_dev *dev, unsigned int qi)
{
	struct vnm_queue *q;
	unsigned int i;

	if (qi >= dev->nq)
		return;
	q = &dev->q[qi];
	if (q->fifo)
		for (i = 0; i < q->size; i++)
			free(q->fifo[i].seg);
	free(q->fifo);
	free(q->mark);
	memset(q, 0, sizeof(*q));
}

void vnm_sleep(struct vnm_dev *dev, unsigned int qi, bool asleep)
{
	struct vnm_queue *q = &dev->q[qi];

	q->asleep = asleep;
	q->kicked = false;
	q->sleep_avail = vnm_avail_idx(q);
	vnm_ask(dev, q);
}

/* Copy one chain out of the descriptor table, checking it (header). */
static void vnm_fetch_one(struct vnm_dev *dev, struct vnm_queue *q, enum vnm_kind kind,
			  struct vnm_chain *c, uint16_t head)
{
	uint16_t i = head;
	uint32_t serial = ++q->serial;

	c->head = head;
	c->n = 0;
	c->bad = false;
	if (head >= q->size) {
		vnm_viol(dev, VNM_V_DESC_RANGE);
		c->bad = true;
		return;
	}
	for (;;) {
		const uint8_t *d = q->desc + 16 * i;
		uint16_t flags = ld16(d + 12);
		struct vnm_seg *s;

		if (q->mark[i] == serial || c->n == q->size) {
			vnm_viol(dev, VNM_V_CHAIN_LOOP);
			c->bad = true;
			break;
		}
		if (q->mark[i]) {
			vnm_viol(dev, VNM_V_REUSE);
			c->bad = true;
			break;
		}
		q->mark[i] = serial;
		s = &c->seg[c->n++];
		s->idx = i;
		s->addr = ld64(d);
		s->len = ld32(d + 8);
		s->write = flags & 2;			/* VIRTQ_DESC_F_WRITE */
		if (kind == VNM_K_RX && !s->write) {
			vnm_viol(dev, VNM_V_RX_READABLE);
			c->bad = true;
		}
		if (kind == VNM_K_TX && s->write) {
			vnm_viol(dev, VNM_V_TX_WRITABLE);
			c->bad = true;
		}
		if (kind == VNM_K_CTRL && c->n > 1 && c->seg[c->n - 2].write && !s->write) {
			vnm_viol(dev, VNM_V_CTRL_LAYOUT);
			c->bad = true;
		}
		if (!(flags & 1))			/* VIRTQ_DESC_F_NEXT */
			break;
		i = ld16(d + 14);
		if (i >= q->size) {
			vnm_viol(dev, VNM_V_DESC_RANGE);
			c->bad = true;
			break;
		}
	}
}

/* Free what a chain holds (its descriptors are the driver's again). */
static void vnm_unmark(struct vnm_queue *q, const struct vnm_chain *c)
{
	unsigned int k;

	for (k = 0; k < c->n; k++)
		q->mark[c->seg[k].idx] = 0;
}

/* Fetch every chain the driver has published since the last look. */
static void vnm_fetch(struct vnm_dev *dev, struct vnm_queue *q, enum vnm_kind kind)
{
	uint16_t idx = vnm_avail_idx(q);
	uint16_t flags = ld16(q->avail);

	if (vnm_event_idx(dev) ? flags != 0 : flags > 1)
		vnm_viol(dev, VNM_V_AVAIL_FLAGS);
	if (q->asleep && idx != q->sleep_avail && !q->kicked)
		vnm_viol(dev, VNM_V_MISSED_KICK);
	if ((uint16_t)(idx - q->used_idx) > q->size) {
		vnm_viol(dev, VNM_V_AVAIL_JUMP);
		return;
	}
	while (q->last_avail != idx) {
		uint16_t head = ld16(q->avail + 4 + 2 * (q->last_avail & (q->size - 1)));
		struct vnm_chain *c = &q->fifo[(q->fifo_head + q->fifo_n) % q->size];

		vnm_fetch_one(dev, q, kind, c, head);
		q->fifo_n++;
		q->last_avail++;
	}
	vnm_ask(dev, q);
}

/* Give @c back through the used ring (§2.6.8): the entry, then the index. */
static void vnm_put_used(struct vnm_queue *q, const struct vnm_chain *c, uint32_t len)
{
	uint8_t *e = q->used + 4 + 8 * (q->used_idx & (q->size - 1));

	vnm_unmark(q, c);
	st32(e, c->head);
	st32(e + 4, len);
	q->used_idx++;
	__atomic_store_n((uint16_t *)(q->used + 2), q->used_idx, __ATOMIC_RELEASE);
}

/* After a batch of used entries: would the device interrupt? */
static void vnm_notify_driver(struct vnm_dev *dev, struct vnm_queue *q, uint16_t old)
{
	if (old == q->used_idx)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (vnm_event_idx(dev)) {
		if (vnm_need_event(vnm_used_event(q), q->used_idx, old))
			q->irqs++;
	} else if (!(ld16(q->avail) & 1)) {	/* VRING_AVAIL_F_NO_INTERRUPT */
		q->irqs++;
	}
}

static struct vnm_chain *vnm_pop(struct vnm_queue *q)
{
	struct vnm_chain *c;

	if (!q->fifo_n)
		return NULL;
	c = &q->fifo[q->fifo_head];
	q->fifo_head = (q->fifo_head + 1) % q->size;
	q->fifo_n--;
	return c;
}

/*
 * §5.1.6.5.5: VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, le16 virtqueue_pairs.
 * Return: true if taken.
 */
static bool vnm_ctrl_pairs(struct vnm_dev *dev, const uint8_t *d, unsigned int len)
{
	unsigned int n, i;

	if (!(dev->features & VNM_F_MQ) || len != 2)
		return false;
	n = ld16(d);
	if (n < 1 || n > dev->max_pairs)
		return false;
	/* §5.1.6.5.5.1: the pairs' queues configured before they are enabled */
	for (i = 0; i < 2 * n; i++)
		if (!dev->q[i].ready)
			return false;
	dev->ctrl_pairs = (uint16_t)n;
	dev->ctrl_rss = false;
	return true;
}

/*
 * §5.1.6.5.7: VIRTIO_NET_CTRL_MQ_RSS_CONFIG: le32 hash_types, le16
 * indirection_table_mask, le16 unclassified_queue, le16
 * indirection_table[mask + 1], le16 max_tx_vq, u8 hash_key_length,
 * u8 hash_key_data[hash_key_length].  Receive queue numbers count from 0
 * (receiveq1).  Return: true if taken.
 */
static bool vnm_ctrl_rss(struct vnm_dev *dev, const uint8_t *d, unsigned int len)
{
	unsigned int tlen, at, i, q, max_tx, klen;
	uint32_t types;

	if (!(dev->features & VNM_F_RSS) || len < 8)
		return false;
	types = ld32(d);
	tlen = ld16(d + 4) + 1u;
	if ((types & ~VNM_HASH_TYPES) || (tlen & (tlen - 1)) || tlen > VNM_RSS_TABLE_MAX ||
	    len < 8 + 2 * tlen + 3)
		return false;
	for (i = 0; i <= tlen; i++) {		/* the table, then unclassified_queue */
		q = ld16(i < tlen ? d + 8 + 2 * i : d + 6);
		if (q >= dev->max_pairs || !dev->q[2 * q].ready)
			return false;
	}
	at = 8 + 2 * tlen;
	max_tx = ld16(d + at);
	klen = d[at + 2];
	if (max_tx < 1 || max_tx > dev->max_pairs || klen > VNM_RSS_KEY_MAX ||
	    len != at + 3 + klen)
		return false;
	dev->ctrl_rss = true;
	dev->ctrl_hash_types = types;
	dev->ctrl_table_len = (uint16_t)tlen;
	for (i = 0; i < tlen; i++)
		dev->ctrl_table[i] = ld16(d + 8 + 2 * i);
	dev->ctrl_unclassified = ld16(d + 6);
	dev->ctrl_pairs = (uint16_t)max_tx;
	dev->ctrl_key_len = (uint8_t)klen;
	memcpy(dev->ctrl_key, d + at + 3, klen);
	return true;
}

/* One command, class and command first: VIRTIO_NET_OK (0) or _ERR (1). */
static uint8_t vnm_ctrl_do(struct vnm_dev *dev, const uint8_t *cmd, unsigned int len)
{
	bool ok = false;

	dev->ctrl_cmds++;
	if (cmd[0] == 4 && cmd[1] == 0)		/* VIRTIO_NET_CTRL_MQ, _VQ_PAIRS_SET */
		ok = vnm_ctrl_pairs(dev, cmd + 2, len - 2);
	else if (cmd[0] == 4 && cmd[1] == 1)	/* _RSS_CONFIG */
		ok = vnm_ctrl_rss(dev, cmd + 2, len - 2);
	if (!ok) {
		vnm_viol(dev, VNM_V_CTRL_CMD);
		return 1;
	}
	dev->ctrl_ok++;
	return 0;
}

/*
 * The control queue was kicked: every command made available is read,
 * done and answered in its ack byte, and its chain given back with the
 * one byte written (§5.1.6.5).
 */
static void vnm_ctrl_serve(struct vnm_dev *dev)
{
	struct vnm_queue *q = &dev->q[vnm_ctrl_vq(dev)];
	uint16_t old = q->used_idx;
	struct vnm_chain *c;

	vnm_fetch(dev, q, VNM_K_CTRL);
	while ((c = vnm_pop(q))) {
		static uint8_t cmd[VNM_CTRL_MAX];
		unsigned int k, len = 0;
		uint8_t *ack = NULL;
		bool ok = !c->bad;

		for (k = 0; ok && k < c->n; k++) {
			const struct vnm_seg *sg = &c->seg[k];

			if (sg->write) {
				if (!ack && sg->len)
					ack = (uint8_t *)(uintptr_t)sg->addr;
			} else if (len + sg->len > sizeof(cmd)) {
				ok = false;
			} else {
				memcpy(cmd + len, (const void *)(uintptr_t)sg->addr, sg->len);
				len += sg->len;
			}
		}
		if (ok && (len < 2 || !ack)) {
			vnm_viol(dev, VNM_V_CTRL_LAYOUT);
			ok = false;
		}
		if (ok)
			*ack = vnm_ctrl_do(dev, cmd, len);
		vnm_put_used(q, c, ok ? 1 : 0);
	}
	vnm_notify_driver(dev, q, old);
}

/* The driver's waits (platform_user.h): the device does nothing meanwhile. */
void ixm_host_delay_us(unsigned long us)
{
	vnm_now_us += us;
}

/* The driver's doorbell (platform_user.h): @base is a device's notify area. */
void ixm_host_wr16(void *base, uint32_t reg, uint16_t val)
{
	struct vnm_dev *dev;
	struct vnm_queue *q;

	for (dev = vnm_devs; dev; dev = dev->next_dev)
		if ((uint8_t *)base + reg >= dev->notify &&
		    (uint8_t *)base + reg < dev->notify + sizeof(dev->notify))
			break;
	if (!dev) {
		fprintf(stderr, "# virtio-net model: a doorbell no device has\n");
		abort();
	}
	if (!vnm_queue_exists(dev, val)) {
		vnm_viol(dev, VNM_V_QUEUE_RANGE);
		return;
	}
	q = &dev->q[val];
	q->kicks++;
	if (!q->asleep)
		q->kicks_unasked++;
	q->kicked = true;
	if (val == vnm_ctrl_vq(dev))
		vnm_ctrl_serve(dev);
	else if (val >= VNM_NQ && q->ready)
		vnm_fetch(dev, q, vnm_queue_kind(dev, val));	/* checked, then held */
}

/*
 * A device with GUEST_CSUM may check a received TCP/UDP checksum and say
 * so (§5.1.6.4 DATA_VALID): an IPv4 frame whose segment with its
 * pseudo-header sums to 0xffff.
 */
static bool vnm_l4_valid(const uint8_t *f, unsigned int len)
{
	unsigned int ihl, tot, i;
	uint32_t sum;

	if (len < 34 || f[12] != 0x08 || f[13] != 0x00 || (f[14] >> 4) != 4)
		return false;
	ihl = (f[14] & 0xf) * 4;
	tot = (unsigned int)f[16] << 8 | f[17];
	if ((f[23] != 6 && f[23] != 17) || ihl < 20 || tot < ihl || 14 + tot > len ||
	    (f[20] & 0x3f) || f[21])		/* fragments: not checked */
		return false;
	sum = f[23] + (tot - ihl);
	for (i = 26; i < 34; i += 2)
		sum += (uint32_t)f[i] << 8 | f[i + 1];
	for (i = 14 + ihl; i + 1 < 14 + tot; i += 2)
		sum += (uint32_t)f[i] << 8 | f[i + 1];
	if (i < 14 + tot)
		sum += (uint32_t)f[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/**
 * vnm_rx() - a frame arrives from the wire
 * Return: 0, or -1 if no receive chain was there (counted in rx_no_buf)
 * or the frame did not fit the chain (rx_too_big; the chain is given back
 * with len 0).
 */
int vnm_rx(struct vnm_dev *dev, const void *frame, unsigned int len)
{
	struct vnm_queue *q = &dev->q[VNM_RXQ];
	uint8_t hdr[VNM_HDR_LEN] = { 0 };
	uint16_t old = q->used_idx;
	const uint8_t *src[2] = { hdr, frame };
	unsigned int srclen[2] = { VNM_HDR_LEN, len };
	struct vnm_chain *c;
	unsigned int k, part = 0, off = 0, room = 0, written = 0;

	if (!q->ready)
		return -1;
	vnm_fetch(dev, q, VNM_K_RX);
	c = vnm_pop(q);
	if (!c) {
		dev->rx_no_buf++;
		return -1;
	}
	for (k = 0; k < c->n; k++)
		room += c->seg[k].len;
	if (!c->bad && !(dev->features & VNM_F_MRG_RXBUF) && room < VNM_RX_MIN_BUF)
		vnm_viol(dev, VNM_V_RX_SHORT);	/* no VIRTIO_NET_F_MRG_RXBUF */
	if (c->bad || room < VNM_HDR_LEN + len) {
		if (!c->bad)
			dev->rx_too_big++;
		vnm_put_used(q, c, 0);
		vnm_notify_driver(dev, q, old);
		return -1;
	}
	hdr[0] = dev->rx_hdr_flags;
	if (dev->rx_validate && vnm_l4_valid(frame, len)) {
		hdr[0] |= 2;				/* VIRTIO_NET_HDR_F_DATA_VALID */
		dev->rx_valid++;
	}
	st16(hdr + 10, dev->rx_num_buffers);
	/* scatter the header and the frame over the chain's buffers */
	for (k = 0; k < c->n && part < 2; k++) {
		uint8_t *dst = (uint8_t *)(uintptr_t)c->seg[k].addr;
		unsigned int at = 0;

		while (at < c->seg[k].len && part < 2) {
			unsigned int chunk = srclen[part] - off;

			if (chunk > c->seg[k].len - at)
				chunk = c->seg[k].len - at;
			memcpy(dst + at, src[part] + off, chunk);
			at += chunk;
			off += chunk;
			written += chunk;
			if (off == srclen[part]) {
				part++;
				off = 0;
			}
		}
	}
	vnm_put_used(q, c, written);
	vnm_notify_driver(dev, q, old);
	dev->rx_frames++;
	return 0;
}

/* §5.1.6.2: complete the checksum from csum_start into csum_start+offset. */
static void vnm_csum(uint8_t *f, unsigned int len, unsigned int start, unsigned int at)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = start; i + 1 < len; i += 2)
		sum += (uint32_t)f[i] << 8 | f[i + 1];
	if (i < len)
		sum += (uint32_t)f[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	f[at] = (uint8_t)(sum >> 8);
	f[at + 1] = (uint8_t)sum;
}

/**
 * vnm_tx() - the device sends up to @max frames its transmit queue holds
 * Return: how many chains it gave back (bad ones included, not sent).
 */
unsigned int vnm_tx(struct vnm_dev *dev, unsigned int max, vnm_sent_fn sent, void *arg)
{
	struct vnm_queue *q = &dev->q[VNM_TXQ];
	static uint8_t buf[VNM_FRAME_MAX];
	uint16_t old = q->used_idx;
	unsigned int done = 0;
	struct vnm_chain *c;

	if (!q->ready)
		return 0;
	vnm_fetch(dev, q, VNM_K_TX);
	while (done < max && (c = vnm_pop(q))) {
		unsigned int k, len = 0, flen, start, off;
		const uint8_t *h = buf;
		uint8_t *f = buf + VNM_HDR_LEN;
		bool ok = !c->bad;

		for (k = 0; ok && k < c->n; k++) {
			if (len + c->seg[k].len > sizeof(buf)) {
				ok = false;
				break;
			}
			memcpy(buf + len, (const void *)(uintptr_t)c->seg[k].addr, c->seg[k].len);
			len += c->seg[k].len;
		}
		if (ok && len < VNM_HDR_LEN) {
			vnm_viol(dev, VNM_V_HDR_SIZE);
			ok = false;
		}
		if (ok && h[1] != 0) {			/* VIRTIO_NET_HDR_GSO_NONE */
			vnm_viol(dev, VNM_V_TX_GSO);
			ok = false;
		}
		flen = ok ? len - VNM_HDR_LEN : 0;
		if (ok && (h[0] & 1)) {			/* VIRTIO_NET_HDR_F_NEEDS_CSUM */
			start = ld16(h + 6);
			off = ld16(h + 8);
			if (!(dev->features & VNM_F_CSUM)) {
				vnm_viol(dev, VNM_V_CSUM_FEATURE);
				ok = false;
			} else if (start + off + 2 > flen) {
				vnm_viol(dev, VNM_V_CSUM_RANGE);
				ok = false;
			} else {
				vnm_csum(f, flen, start, start + off);
				dev->tx_csum++;
			}
		}
		if (ok) {
			dev->tx_frames++;
			if (sent)
				sent(f, flen, arg);
		}
		vnm_put_used(q, c, 0);
		done++;
	}
	vnm_notify_driver(dev, q, old);
	return done;
}

/* Chains the device holds on queue @qi (fetched or not yet). */
unsigned int vnm_held(struct vnm_dev *dev, unsigned int qi)
{
	struct vnm_queue *q = &dev->q[qi];

	return (uint16_t)(vnm_avail_idx(q) - q->used_idx);
}
