/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring.h - the kernel's side of the call and event rings
 *
 * Each context shares two single-producer/single-consumer rings with its
 * application: the call ring (the application produces, the dataplane
 * consumes) and the event ring (the dataplane produces, the application
 * consumes).  A ring region is laid out as
 *
 *	IXM_RING_OFF_PROD	u32 producer index		own cache line
 *	IXM_RING_OFF_CONS	u32 consumer index		own cache line,
 *							a spare line before it
 *	IXM_RING_OFF_FLAGS	u32 IXMOD_RING_*, kernel-written, own line
 *	IXM_RING_OFF_ENTRIES	the entries, a power of two of them
 *
 * Indices are free-running u32; entry i lives at entries[i & mask]; the
 * ring holds prod - cons entries (unsigned arithmetic) and is full when
 * that equals the entry count.
 *
 * The orders, as AF_XDP writes them (every barrier site cites its letter;
 * libixu's ixu.h carries the same letters for the application's side):
 *
 *   producer				consumer
 *   (A) cons = load_acquire(&r->cons)	(C) prod = load_acquire(&r->prod)
 *       if there is space:		    if prod != cons:
 *         write entries			      read entries
 *   (B) store_release(&r->prod, prod')	(D) store_release(&r->cons, cons')
 *
 * (A) pairs with (D): the producer overwrites a slot only after the
 * consumer has finished reading it.  (B) pairs with (C): the consumer
 * reads an entry only after it was completely written.
 *
 * The kernel never trusts an index it did not produce.  It keeps its own
 * copy of the index it owns (@cached: cons of the call ring, prod of the
 * event ring), never reads that word back from shared memory, and treats
 * the other side's index as a hint: a value that claims more than a ring's
 * worth is counted (ring_corrupt) and clamped to a full call ring or an
 * event ring with no space.  A lying application can only stall itself.
 *
 * Sleeping (io_uring SQPOLL, AF_XDP need_wakeup): before the dataplane
 * thread sleeps it sets IXMOD_RING_NEED_WAKEUP in every call ring's flags,
 * issues a full barrier (E), and looks at every call ring once more.  The
 * application publishes calls (B), issues a full barrier (E), then reads
 * the flag and, if it is set, wakes the thread (IXMOD_IOC_WAKE or poll).
 * Either the thread sees the new calls or the application sees the flag.
 */
#ifndef _IXM_NET_RING_H
#define _IXM_NET_RING_H

#include "platform.h"

#define IXM_RING_OFF_PROD	0
#define IXM_RING_OFF_CONS	128
#define IXM_RING_OFF_FLAGS	256
#define IXM_RING_OFF_ENTRIES	320

/**
 * struct ixm_ring - the kernel's view of one shared ring
 * @prod: the shared producer index
 * @cons: the shared consumer index
 * @flags: the shared IXMOD_RING_* word (written by the kernel only)
 * @entries: the first entry
 * @nr: number of entries, a power of two
 * @mask: @nr - 1
 * @cached: the kernel's own index: consumer of a call ring, producer of
 *	an event ring; the shared copy is only ever written from it
 * @kflags: the kernel's copy of @flags, which it writes and never reads
 */
struct ixm_ring {
	u32	*prod;
	u32	*cons;
	u32	*flags;
	void	*entries;
	u32	nr;
	u32	mask;
	u32	cached;
	u32	kflags;
};

/**
 * ixm_ring_init() - describe a ring region
 * @r: the ring
 * @region: start of the region (IXM_RING_OFF_* from here)
 * @nr: entries, a power of two
 */
static inline void ixm_ring_init(struct ixm_ring *r, void *region, u32 nr)
{
	u8 *base = region;

	r->prod = (u32 *)(base + IXM_RING_OFF_PROD);
	r->cons = (u32 *)(base + IXM_RING_OFF_CONS);
	r->flags = (u32 *)(base + IXM_RING_OFF_FLAGS);
	r->entries = base + IXM_RING_OFF_ENTRIES;
	r->nr = nr;
	r->mask = nr - 1;
	r->cached = 0;
	r->kflags = 0;
}

/* Bytes of a ring region with @nr entries of @size bytes. */
static inline size_t ixm_ring_bytes(u32 nr, size_t size)
{
	return IXM_RING_OFF_ENTRIES + (size_t)nr * size;
}

/**
 * ixm_ring_ready() - entries a consumer may take
 * @r: a ring the kernel consumes
 * @corrupt: incremented when the producer's index is impossible
 *
 * Return: at most @r->nr.
 */
static inline u32 ixm_ring_ready(struct ixm_ring *r, u64 *corrupt)
{
	u32 prod = ixm_load_acquire(r->prod);	/* (C), pairs with (B) */
	u32 n = prod - r->cached;

	if (unlikely(n > r->nr)) {
		(*corrupt)++;
		n = r->nr;
	}
	return n;
}

/* Release @n consumed entries to the producer. */
static inline void ixm_ring_release(struct ixm_ring *r, u32 n)
{
	r->cached += n;
	ixm_store_release(r->cons, r->cached);	/* (D), pairs with (A) */
}

/**
 * ixm_ring_space() - free slots a producer may fill
 * @r: a ring the kernel produces
 * @corrupt: incremented when the consumer's index is impossible
 *
 * Return: free slots; 0 when the consumer's index claims to be ahead of
 * the kernel's or more than a ring behind it.
 */
static inline u32 ixm_ring_space(struct ixm_ring *r, u64 *corrupt)
{
	u32 cons = ixm_load_acquire(r->cons);	/* (A), pairs with (D) */
	u32 used = r->cached - cons;

	if (unlikely(used > r->nr)) {
		(*corrupt)++;
		return 0;
	}
	return r->nr - used;
}

/* Publish every entry produced so far. */
static inline void ixm_ring_publish(struct ixm_ring *r)
{
	ixm_store_release(r->prod, r->cached);	/* (B), pairs with (C) */
}

/*
 * The flag word is written from the kernel's private copy, never read
 * back: whatever the application scribbles there is simply overwritten.
 */
static inline void ixm_ring_set_flag(struct ixm_ring *r, u32 flag)
{
	r->kflags |= flag;
	WRITE_ONCE(*r->flags, r->kflags);
}

static inline void ixm_ring_clear_flag(struct ixm_ring *r, u32 flag)
{
	r->kflags &= ~flag;
	WRITE_ONCE(*r->flags, r->kflags);
}

#endif /* _IXM_NET_RING_H */
