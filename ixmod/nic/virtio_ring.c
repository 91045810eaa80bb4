// SPDX-License-Identifier: GPL-2.0
/*
 * virtio_ring.c - a split virtqueue (virtio 1.1 §2.6) for a polling core
 *
 * PORTABLE.  One queue belongs to one dataplane core; nothing here locks.
 *
 * The driver adds a chain of descriptors from its free list, puts the
 * chain's head in the next available ring entry, and later publishes
 * avail->idx; the device returns each chain's head (and the bytes it
 * wrote) through the used ring, and the chain goes back on the free list.
 * The free list and the chain lengths are kept in driver-private arrays
 * (@next, @ndesc), never read back from the descriptor table, so what the
 * device writes cannot corrupt them: a used entry is copied once, checked
 * against @ndesc, then acted on.
 *
 * The ordering rules, labelled; each site cites its label:
 *
 * (V1) §2.6.13.3: descriptors and available ring entries are written before
 *	avail->idx that publishes them: ixm_dma_wmb() between the two.
 * (V2) §2.6.8, the device's side mirrored (it sets an entry before the
 *	used->idx that covers it): used->idx is read before the entries it
 *	covers: ixm_dma_rmb() between the two.
 * (V3) §2.6.13.4: avail->idx is published before the driver reads the
 *	device's avail_event (or used->flags) to decide whether to notify:
 *	ixm_mb(), a full barrier, because a store then a load are ordered.
 * (V4) §2.6.14 (enabling used buffer notifications): used_event (or
 *	avail->flags) is written before used->idx is read again, so that an
 *	entry the device adds meanwhile is either seen by that read or
 *	interrupts: ixm_mb().
 *
 * Notifications, both ways (§2.6.10, §2.6.13.4; VIRTIO_F_EVENT_IDX §2.6.7):
 *
 * - driver to device ("kick"): with EVENT_IDX the driver notifies only
 *   when the avail->idx it published has gone past the device's
 *   avail_event (vring_need_event(), uapi <linux/virtio_ring.h>), at most
 *   once per ixm_vq_kick_prepare(); without it, only when used->flags
 *   lacks VRING_USED_F_NO_NOTIFY.  A device that polls asks for nothing,
 *   and the driver never writes the doorbell.
 * - device to driver (interrupts): a polling core wants none.  Without
 *   EVENT_IDX it keeps VRING_AVAIL_F_NO_INTERRUPT set; with EVENT_IDX the
 *   flags must be 0 (§2.6.7.1 driver requirements) and the driver keeps
 *   used_event half the index space ahead of what it has taken, where the
 *   device cannot reach before the driver moves it again.  Only before
 *   sleeping does it ask for an interrupt (ixm_vq_arm()), and it then
 *   looks at used->idx once more (V4): an entry that came in between is
 *   work, not a reason to sleep.
 */
#include "platform.h"
#include "virtio_ring.h"

/* used_event while disarmed: half the 16-bit index space ahead */
#define IXM_VQ_EVENT_FAR	0x8000

static void ixm_vq_set_used_event(struct ixm_vq *vq, u16 val)
{
	WRITE_ONCE(*vq->used_event, cpu_to_le16(val));
}

/**
 * ixm_vq_init() - lay a queue out in the caller's memory, every
 *	descriptor free, no notification asked for
 * @vq: the queue
 * @size: entries, a power of two, 1..IXM_VQ_MAX_SIZE
 * @ring: ixm_vq_ring_size(@size) bytes of DMA-coherent memory, 16-byte
 *	aligned
 * @dma: its bus address
 * @priv: 2 * @size u16 of driver-private memory (the free list and the
 *	chain lengths)
 * @event_idx: VIRTIO_F_EVENT_IDX was negotiated
 *
 * @vq->notify, @notify_off and @notify_data are the caller's to set,
 * after this call (it clears the whole of @vq, counters included).
 * Before the device is told the ring's addresses (§2.6: the driver
 * initialises the rings, the device reads them once the queue is enabled).
 *
 * Return: 0, or -EINVAL for a size that is not a power of two in range.
 */
int ixm_vq_init(struct ixm_vq *vq, u16 size, void *ring, dma_addr_t dma,
		u16 *priv, bool event_idx)
{
	u8 *base = ring;

	if (!size || size > IXM_VQ_MAX_SIZE || (size & (size - 1)))
		return -EINVAL;
	memset(vq, 0, sizeof(*vq));	/* counters and doorbell included */
	vq->size = size;
	vq->event_idx = event_idx;
	vq->desc = ring;
	vq->avail = (struct ixm_vq_avail *)(base + ixm_vq_avail_off(size));
	vq->used = (struct ixm_vq_used *)(base + ixm_vq_used_off(size));
	vq->used_event = &vq->avail->ring[size];
	vq->avail_event = (__le16 *)&vq->used->ring[size];
	vq->dma = dma;
	vq->next = priv;
	vq->ndesc = priv + size;
	ixm_vq_reset(vq);
	return 0;
}

/**
 * ixm_vq_reset() - the state ixm_vq_init() left, after a device reset
 * @vq: a queue the device no longer uses (the device was reset, or the
 *	queue disabled)
 *
 * Every chain the device held is forgotten: the caller frees the buffers
 * it keeps per head first.  The counters stay.
 */
void ixm_vq_reset(struct ixm_vq *vq)
{
	u16 i;

	/* used->flags included: the driver starts it at 0 (§2.6.10.1) */
	memset(vq->desc, 0, ixm_vq_ring_size(vq->size));
	for (i = 0; i < vq->size; i++) {
		vq->next[i] = (i + 1) & (vq->size - 1);
		vq->ndesc[i] = 0;
	}
	vq->free_head = 0;
	vq->num_free = vq->size;
	vq->avail_idx = 0;
	vq->kicked_idx = 0;
	vq->last_used = 0;
	vq->irq_armed = false;
	/* a polling core: no interrupts (see the header comment) */
	if (vq->event_idx)
		ixm_vq_set_used_event(vq, IXM_VQ_EVENT_FAR);
	else
		vq->avail->flags = cpu_to_le16(VRING_AVAIL_F_NO_INTERRUPT);
}

/**
 * ixm_vq_add() - put a chain of buffers in the next available entry
 * @vq: the queue
 * @b: the buffers, in the order the device reads or fills them
 * @n: how many, 1..@vq->size
 *
 * The device does not see the chain until ixm_vq_publish().  §2.6.4.2:
 * device-readable descriptors come before device-writable ones in a
 * chain; the caller orders @b so.
 *
 * Return: the chain's head (what the used ring will name), or -ENOSPC if
 * fewer than @n descriptors are free (nothing is added), -EINVAL for @n 0.
 */
int ixm_vq_add(struct ixm_vq *vq, const struct ixm_vq_buf *b, unsigned int n)
{
	u16 head = vq->free_head, i = head, last = head;
	unsigned int k;

	if (unlikely(!n))
		return -EINVAL;
	if (unlikely(n > vq->num_free))
		return -ENOSPC;
	for (k = 0; k < n; k++) {
		struct ixm_vq_desc *d = &vq->desc[i];
		u16 flags = b[k].write ? VRING_DESC_F_WRITE : 0;

		if (k + 1 < n)
			flags |= VRING_DESC_F_NEXT;
		d->addr = cpu_to_le64(b[k].addr);
		d->len = cpu_to_le32(b[k].len);
		d->flags = cpu_to_le16(flags);
		/* the free list already links the chain's descriptors */
		d->next = cpu_to_le16(vq->next[i]);
		last = i;
		i = vq->next[i];
	}
	vq->free_head = vq->next[last];
	vq->num_free -= n;
	vq->ndesc[head] = n;
	vq->avail->ring[vq->avail_idx & (vq->size - 1)] = cpu_to_le16(head);
	vq->avail_idx++;
	return head;
}

/**
 * ixm_vq_publish() - let the device see the chains added so far
 * @vq: the queue
 */
void ixm_vq_publish(struct ixm_vq *vq)
{
	/* (V1) descriptors and ring entries before the index */
	ixm_dma_wmb();
	WRITE_ONCE(vq->avail->idx, cpu_to_le16(vq->avail_idx));
}

/**
 * ixm_vq_kick_prepare() - does the device want to hear of what was published
 * @vq: the queue, after ixm_vq_publish()
 *
 * Considers the entries published since the last call: with EVENT_IDX,
 * whether they went past avail_event (§2.6.13.4, vring_need_event());
 * without, whether used->flags lacks VRING_USED_F_NO_NOTIFY.
 *
 * Return: true if the caller must notify (ixm_vq_notify()).
 */
bool ixm_vq_kick_prepare(struct ixm_vq *vq)
{
	u16 old = vq->kicked_idx, new = vq->avail_idx;
	bool need;

	if (old == new)
		return false;
	vq->kicked_idx = new;
	/* (V3) the published index before the device's wishes */
	ixm_mb();
	if (vq->event_idx)
		need = vring_need_event(le16_to_cpu(READ_ONCE(*vq->avail_event)), new, old);
	else
		need = !(le16_to_cpu(READ_ONCE(vq->used->flags)) & VRING_USED_F_NO_NOTIFY);
	if (!need)
		vq->kicks_saved++;
	return need;
}

/**
 * ixm_vq_notify() - ring the queue's doorbell
 * @vq: the queue
 */
void ixm_vq_notify(struct ixm_vq *vq)
{
	vq->kicks++;
	ixm_wr16(vq->notify, vq->notify_off, vq->notify_data);
}

/**
 * ixm_vq_kick() - publish, and notify the device if it asked
 * @vq: the queue
 *
 * Return: true if the doorbell was written.
 */
bool ixm_vq_kick(struct ixm_vq *vq)
{
	ixm_vq_publish(vq);
	if (!ixm_vq_kick_prepare(vq))
		return false;
	ixm_vq_notify(vq);
	return true;
}

/**
 * ixm_vq_get_used() - take the next chain the device gave back
 * @vq: the queue
 * @len: where the bytes the device wrote into it go
 *
 * The chain's descriptors go back on the free list.  An entry naming no
 * chain the device holds (a device bug) is counted in @vq->bad_used and
 * skipped.
 *
 * Return: the chain's head, -ENOENT if the device has given back nothing
 * more, or -EIO for a skipped entry (call again).
 */
int ixm_vq_get_used(struct ixm_vq *vq, u32 *len)
{
	u16 mask = vq->size - 1, head, i, n, k;
	struct ixm_vq_used_elem *e;
	u32 id;

	if (le16_to_cpu(READ_ONCE(vq->used->idx)) == vq->last_used)
		return -ENOENT;
	/* (V2) the entries only after the index that covers them */
	ixm_dma_rmb();
	e = &vq->used->ring[vq->last_used & mask];
	id = le32_to_cpu(READ_ONCE(e->id));
	*len = le32_to_cpu(READ_ONCE(e->len));
	vq->last_used++;
	if (vq->event_idx && !vq->irq_armed &&
	    (u16)(le16_to_cpu(*vq->used_event) - vq->last_used) <= vq->size)
		/* keep the device's reach short of used_event (header) */
		ixm_vq_set_used_event(vq, vq->last_used + IXM_VQ_EVENT_FAR);
	if (unlikely(id >= vq->size || !vq->ndesc[id])) {
		vq->bad_used++;
		return -EIO;
	}
	head = id;
	n = vq->ndesc[head];
	vq->ndesc[head] = 0;
	for (i = head, k = 1; k < n; k++)
		i = vq->next[i];
	vq->next[i] = vq->free_head;
	vq->free_head = head;
	vq->num_free += n;
	return head;
}

/**
 * ixm_vq_disarm() - no used-buffer notifications (a polling core)
 * @vq: the queue
 */
void ixm_vq_disarm(struct ixm_vq *vq)
{
	vq->irq_armed = false;
	if (vq->event_idx)
		ixm_vq_set_used_event(vq, vq->last_used + IXM_VQ_EVENT_FAR);
	else
		WRITE_ONCE(vq->avail->flags, cpu_to_le16(VRING_AVAIL_F_NO_INTERRUPT));
}

/**
 * ixm_vq_arm() - ask for an interrupt at the next used entry, before sleeping
 * @vq: the queue
 *
 * §2.6.14: after enabling notifications the driver must check the used
 * ring again, or an entry added just before the device saw the request
 * would neither interrupt nor be seen.  If that check finds one, the
 * request is withdrawn and the caller keeps polling.
 *
 * Return: true if the caller may sleep (an interrupt will come with the
 * next used entry), false if an entry is already there.
 */
bool ixm_vq_arm(struct ixm_vq *vq)
{
	vq->irq_armed = true;
	if (vq->event_idx)
		ixm_vq_set_used_event(vq, vq->last_used);
	else
		WRITE_ONCE(vq->avail->flags, 0);
	/* (V4) the request before the second look */
	ixm_mb();
	if (ixm_vq_has_used(vq)) {
		ixm_vq_disarm(vq);
		return false;
	}
	return true;
}
