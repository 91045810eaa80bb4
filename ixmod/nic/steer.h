/* SPDX-License-Identifier: GPL-2.0 */
/*
 * steer.h - software receive steering between a port's queue pairs
 *
 * PORTABLE.  For a device with several receive queues but no RSS that
 * ixmod can program (virtio-net with VIRTIO_NET_F_MQ and no
 * VIRTIO_NET_F_RSS): the device spreads flows its own way, and each core
 * sends the frames that are another core's to that core, as RSS would
 * have delivered them.  The owner of a frame is the port's:
 * reta[toeplitz(key, IPv4 4-tuple or addresses) % IXM_RSS_RETA_SIZE],
 * anything not IPv4 going to queue 0 (softport.c's ixm_sw_select_queue()
 * and the Intel chips hash the same fields).  steer.c has the design.
 *
 * Rings.  Between every ordered pair of queues (source s, destination d)
 * there is one ring of buffers that d's core posted from its own pool
 * and s's core fills with a copy of a frame: the receive ring of
 * softport_q.h with the core of s in the device's place.  Three
 * free-running u32 indices, each written by one side only:
 *
 *   @post    buffers d posted                        (d: in d's ixm_steer_q)
 *   @done    of those, filled with a frame by s      (s: in s's ixm_steer_q)
 *   @clean   of those, taken by d                    (d)
 *
 * clean <= done <= post <= clean + ring size.  A side publishes what it
 * wrote with a release store of its index and reads the other's with an
 * acquire load (softport_q.h).  Each core's words live in its own
 * struct ixm_steer_q, so no cache line is written by two cores but
 * @armed's.
 */
#ifndef _IXM_NIC_STEER_H
#define _IXM_NIC_STEER_H

#include "nic.h"

#define IXM_STEER_RING_MAX	128	/* slots per ring, a power of two */
#define IXM_STEER_POSTED_MAX	512	/* buffers a queue posts over all its rings */
#define IXM_STEER_KEY_LEN	40
#define IXM_STEER_HASH_IN	36	/* Toeplitz input bytes: the IPv6 4-tuple */

struct ixm_steer;

/**
 * struct ixm_steer_in - the ring from one source queue, the owner's words
 * @slot: IXM_STEER_RING_MAX buffers (the first &struct ixm_steer.ring used)
 * @post: buffers posted (the owner)
 * @clean: buffers taken (the owner)
 */
struct ixm_steer_in {
	struct ixm_mbuf	*slot[IXM_STEER_RING_MAX];
	u32		post;
	u32		clean;
};

/**
 * struct ixm_steer_q - one queue pair's part in the steering
 * @st: the port's steering (shared, read-only while the cores run)
 * @pool: the queue's buffers: posted on its inbound rings
 * @idx: the queue's number
 * @in: by source queue: the rings whose frames are this queue's
 * @out_done: by destination queue: frames this queue filled on that
 *	queue's ring from it (@done above; written by this queue's core)
 * @steered: frames this queue's device delivered that were another
 *	queue's, copied to it
 * @steer_drops: of those, dropped: the owner had no buffer posted
 * @steered_in: frames taken from the inbound rings
 * @armed: the core sleeps and wants a wake when a frame is steered to it
 *	(set by its core, cleared by whoever wakes it)
 */
struct ixm_steer_q {
	struct ixm_steer	*st;
	struct ixm_mbuf_pool	*pool;
	u16			idx;
	struct ixm_steer_in	in[IXM_NIC_MAX_QUEUES];
	u32			out_done[IXM_NIC_MAX_QUEUES];
	u64			steered;
	u64			steer_drops;
	u64			steered_in;
	u32			armed;
};

/**
 * struct ixm_steer - a port's steering
 * @key: the Toeplitz key (the port's, set by ixm_steer_start())
 * @hash: @key's hash of each value of each input byte: the hash of an
 *	input is the XOR of its bytes' entries (Toeplitz is linear)
 * @reta: queue per hash bucket (the port's)
 * @nq: queues steered between (0 or 1: no steering)
 * @ring: slots per ring, a power of two
 * @wake: wake queue @qi's core, sleeping armed (the glue's; called once
 *	per burst by the core that filled the ring)
 * @wake_data: for @wake
 * @q: the queues, by index
 */
struct ixm_steer {
	u8			key[IXM_STEER_KEY_LEN];
	u32			hash[IXM_STEER_HASH_IN][256];
	u8			reta[IXM_RSS_RETA_SIZE];
	u16			nq;
	u16			ring;
	void			(*wake)(struct ixm_steer *st, unsigned int qi);
	void			*wake_data;
	struct ixm_steer_q	*q[IXM_NIC_MAX_QUEUES];
};

unsigned int ixm_steer_owner(const struct ixm_steer *st, const struct ixm_mbuf *m);
void ixm_steer_q_attach(struct ixm_steer *st, struct ixm_steer_q *sq, unsigned int idx,
			struct ixm_mbuf_pool *pool);
int ixm_steer_start(struct ixm_steer *st, const u8 *key, const u8 *reta);
void ixm_steer_q_release(struct ixm_steer_q *sq);

unsigned int ixm_steer_take(struct ixm_steer_q *sq, struct ixm_mbuf **m, unsigned int max);
unsigned int ixm_steer_rx(struct ixm_steer_q *sq, struct ixm_mbuf **m, unsigned int n);
void ixm_steer_refill(struct ixm_steer_q *sq);
bool ixm_steer_busy(const struct ixm_steer_q *sq);
u32 ixm_steer_posted(const struct ixm_steer_q *sq);
void ixm_steer_arm(struct ixm_steer_q *sq);
void ixm_steer_disarm(struct ixm_steer_q *sq);

#endif /* _IXM_NIC_STEER_H */
