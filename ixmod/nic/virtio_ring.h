/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio_ring.h - a split virtqueue driven by one polling core
 *
 * PORTABLE.  The layout is virtio 1.1 §2.6 ("Split Virtqueues"), every
 * field little-endian (§2.6.3: only legacy devices use the guest's).  Linux's
 * uapi <linux/virtio_ring.h> gives the bits (VRING_DESC_F_*,
 * VRING_AVAIL_F_NO_INTERRUPT, VRING_USED_F_NO_NOTIFY, vring_need_event())
 * but declares the rings with __virtio16, whose byte order depends on the
 * device; the structs here say __le16, so sparse checks each conversion.
 *
 * The three parts live in memory the caller allocates DMA-coherent (as
 * intel_adv's rings do), one block laid out by ixm_vq_ring_size():
 *
 *	desc[size]			16 bytes each, 16-byte aligned (§2.6)
 *	avail: flags idx ring[size] used_event
 *	used:  flags idx ring[size] avail_event		(4-byte aligned)
 *
 * Who writes what (§2.6.5, §2.6.8): the driver writes desc, avail.*
 * and used_event; the device writes used.* and avail_event.
 */
#ifndef _IXM_NIC_VIRTIO_RING_H
#define _IXM_NIC_VIRTIO_RING_H

#include "platform.h"

/* §2.6.5 the descriptor table */
struct ixm_vq_desc {
	__le64	addr;
	__le32	len;
	__le16	flags;		/* VRING_DESC_F_NEXT, VRING_DESC_F_WRITE */
	__le16	next;
};

/* §2.6.6 the available ring; used_event follows ring[size] */
struct ixm_vq_avail {
	__le16	flags;		/* VRING_AVAIL_F_NO_INTERRUPT */
	__le16	idx;
	__le16	ring[];
};

/* §2.6.8 the used ring; avail_event follows ring[size] */
struct ixm_vq_used_elem {
	__le32	id;		/* head of the chain the device finished */
	__le32	len;		/* bytes it wrote into the chain */
};

struct ixm_vq_used {
	__le16			flags;	/* VRING_USED_F_NO_NOTIFY */
	__le16			idx;
	struct ixm_vq_used_elem	ring[];
};

#define IXM_VQ_MAX_SIZE		32768	/* §2.6: Queue Size at most 32768 */

/**
 * struct ixm_vq_buf - one buffer of a chain to add
 * @addr: its bus address
 * @len: its bytes
 * @write: the device writes it (receive); else the device reads it
 */
struct ixm_vq_buf {
	dma_addr_t	addr;
	u32		len;
	bool		write;
};

/**
 * struct ixm_vq - the driver's side of one split virtqueue
 * @size: entries, a power of two up to IXM_VQ_MAX_SIZE
 * @event_idx: VIRTIO_F_EVENT_IDX (VIRTIO_RING_F_EVENT_IDX) was negotiated
 * @irq_armed: used-buffer notifications are asked for (ixm_vq_arm())
 * @num_free: descriptors on the free list
 * @free_head: first of them (its chain is @next)
 * @avail_idx: the driver's copy of avail->idx (free-running)
 * @kicked_idx: avail->idx when the device was last considered for a
 *	notification (ixm_vq_kick_prepare())
 * @last_used: used entries taken so far (free-running)
 * @desc: the descriptor table
 * @avail: the available ring
 * @used: the used ring
 * @used_event: avail->ring[@size], driver-written (EVENT_IDX)
 * @avail_event: used->ring[@size], device-written (EVENT_IDX)
 * @dma: bus address of @desc (the block's start)
 * @next: driver-private copy of each descriptor's next (the free list,
 *	and chains while the device holds them), @size entries
 * @ndesc: descriptors in the chain whose head is the index, @size entries
 * @notify: the queue's doorbell: the mapping of the virtio-pci notify
 *	capability's region (§4.1.4.4)
 * @notify_off: the queue's offset in it (queue_notify_off times
 *	notify_off_multiplier)
 * @notify_data: the 16-bit value written there: the queue's index
 *	(ixm_vq_notify())
 * @kicks: notifications sent to the device
 * @kicks_saved: kicks skipped because the device had not asked
 * @bad_used: used entries naming no chain the device held (ignored)
 */
struct ixm_vq {
	u16			size;
	bool			event_idx;
	bool			irq_armed;
	u16			num_free;
	u16			free_head;
	u16			avail_idx;
	u16			kicked_idx;
	u16			last_used;
	struct ixm_vq_desc	*desc;
	struct ixm_vq_avail	*avail;
	struct ixm_vq_used	*used;
	__le16			*used_event;
	__le16			*avail_event;
	dma_addr_t		dma;
	u16			*next;
	u16			*ndesc;
	u8 __iomem		*notify;
	u32			notify_off;
	u16			notify_data;
	u64			kicks;
	u64			kicks_saved;
	u64			bad_used;
};

/* Byte offsets of the three parts in the caller's block (§2.6 alignment). */
static inline size_t ixm_vq_avail_off(u16 size)
{
	return (size_t)size * sizeof(struct ixm_vq_desc);
}

static inline size_t ixm_vq_used_off(u16 size)
{
	/* avail: flags, idx, ring[size], used_event; then align to 4 */
	return (ixm_vq_avail_off(size) + 2 * (3 + (size_t)size) + 3) & ~(size_t)3;
}

/* The bytes of the block ixm_vq_init() lays the queue out in. */
static inline size_t ixm_vq_ring_size(u16 size)
{
	return ixm_vq_used_off(size) + 2 * 3 + 8 * (size_t)size;
}

/* Bus addresses the device is given (virtio-pci queue_desc/driver/device). */
static inline dma_addr_t ixm_vq_avail_dma(const struct ixm_vq *vq)
{
	return vq->dma + ixm_vq_avail_off(vq->size);
}

static inline dma_addr_t ixm_vq_used_dma(const struct ixm_vq *vq)
{
	return vq->dma + ixm_vq_used_off(vq->size);
}

int ixm_vq_init(struct ixm_vq *vq, u16 size, void *ring, dma_addr_t dma,
		u16 *priv, bool event_idx);
void ixm_vq_reset(struct ixm_vq *vq);
int ixm_vq_add(struct ixm_vq *vq, const struct ixm_vq_buf *b, unsigned int n);
void ixm_vq_publish(struct ixm_vq *vq);
bool ixm_vq_kick_prepare(struct ixm_vq *vq);
void ixm_vq_notify(struct ixm_vq *vq);
bool ixm_vq_kick(struct ixm_vq *vq);
int ixm_vq_get_used(struct ixm_vq *vq, u32 *len);
void ixm_vq_disarm(struct ixm_vq *vq);
bool ixm_vq_arm(struct ixm_vq *vq);

/* Chains the device has not given back yet. */
static inline u16 ixm_vq_inflight(const struct ixm_vq *vq)
{
	return vq->avail_idx - vq->last_used;
}

/**
 * ixm_vq_has_used() - a used entry is waiting (a cheap look)
 * @vq: the queue
 *
 * Reads only used->idx: the entry itself waits for ixm_vq_get_used() and
 * its barrier.
 *
 * Return: true if ixm_vq_get_used() has an entry to give.
 */
static inline bool ixm_vq_has_used(const struct ixm_vq *vq)
{
	return le16_to_cpu(READ_ONCE(vq->used->idx)) != vq->last_used;
}

#endif /* _IXM_NIC_VIRTIO_RING_H */
