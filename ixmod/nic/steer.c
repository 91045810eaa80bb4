// SPDX-License-Identifier: GPL-2.0
/*
 * steer.c - software receive steering between a port's queue pairs
 * (steer.h has the rings)
 *
 * PORTABLE: builds in the module and on the host (unit/vnet_steer.c
 * drives several virtio-net queue pairs against the device model).
 *
 * Why.  ixmod's stack is flow-consistent: a TCP or UDP flow's state lives
 * on one core, the one the port's Toeplitz key and redirection table
 * name, and a core picks the ephemeral ports of its outbound connections
 * so that their replies hash to it (net/tcp_call.c).  A virtio-net device
 * with VIRTIO_NET_F_MQ but without VIRTIO_NET_F_RSS has several receive
 * queues, but chooses among them itself: virtio 1.1 §5.1.6.5.5
 * ("Automatic receive steering in multiqueue mode") only says it SHOULD
 * deliver a flow where the driver last transmitted it, and MAY pick any
 * queue before that.  QEMU's tap backend leaves it to the host's tun
 * driver, which hashes flows its own way and then learns each flow's
 * queue from the guest's transmissions.  So a frame may reach the wrong
 * core: the first frame of a flow nearly always can (a SYN, a UDP
 * request), later ones when the host's table forgets.  Without this
 * file such a port runs one queue pair, one core.
 *
 * How.  Each core hashes every frame its device queue delivers, as the
 * NIC would have (ixm_steer_owner()); a frame that is its own goes up
 * its stack; another core's frame is copied into a buffer that core
 * posted on the ring from this core to it, and this core's buffer goes
 * back to its own pool.  The owner takes its rings' frames in its next
 * receive burst, before its device's, and posts fresh buffers for them.
 *
 * The alternatives, and why not:
 *  - hand the buffer itself to the owner: a pool is one core's
 *    (struct ixm_mbuf_pool has no lock), its buffers sit in the receive
 *    region that only that core's application maps, and the owner would
 *    have to send each back to be freed; a 1.5 KB copy is cheaper than
 *    the round trip and keeps every pool single-threaded;
 *  - a lock-free multi-producer ring per owner: one single-producer ring
 *    per ordered pair of queues needs no atomic read-modify-write, only
 *    a release store per frame and an acquire load per burst, and at
 *    most 16 queues means at most 240 rings;
 *  - the owner posting nothing and the source allocating from the
 *    owner's pool: the same cross-core pool access.
 *
 * Order.  A flow's frames that one queue delivers reach the owner in
 * their order (one FIFO ring per source).  Frames of one flow delivered
 * partly on the owner's own queue and partly through another core's may
 * be reordered between the two paths, as a NIC's RSS table change
 * reorders them; TCP copes, and the host's tun driver keeps a flow on
 * one queue while its table entry lives.
 *
 * Wake-ups.  An owner that sleeps set @armed (ixm_steer_arm(), with a
 * full barrier before its last look at the rings); a source publishes
 * its frames, then a full barrier, then reads @armed and wakes the owner
 * through the glue's @wake, once per owner per burst (store buffering:
 * one of the two sees the other, as in softport_q.c).
 *
 * Cost: one Toeplitz hash per frame received (the right core's frames
 * too: only the hash says which they are), and per steered frame one
 * copy and a buffer freed on its way in, one taken on the owner's side.
 * The hash is a table lookup per input byte (@hash, 36 KiB per port,
 * made from the key at start): base/toeplitz.c's bit-serial function,
 * right for the few hashes the stack computes, costs about 1,500
 * instructions a frame, the table about 40.  dev-tools/testing.rst has
 * the instruction counts.
 */
#include "steer.h"
#include "toeplitz.h"

#define IXM_STEER_ETH_HLEN	14
#define IXM_STEER_IP_HLEN_MIN	20
#define IXM_STEER_PROTO_TCP	6
#define IXM_STEER_PROTO_UDP	17
#define IXM_STEER_IP6_HLEN	40

/*
 * IPv6 (RFC 8200 §3): the Toeplitz input of Microsoft's RSS specification,
 * source address, destination address, then TCP's or UDP's source and
 * destination ports, as they lie in the frame: a hash of the addresses
 * and ports when TCP or UDP follows the fixed header, of the addresses
 * alone otherwise (extension headers, ICMPv6), as a NIC hashes without
 * its "IPv6Ex" types.
 */
static unsigned int ixm_steer_owner6(const struct ixm_steer *st, const struct ixm_mbuf *m)
{
	const u8 *ip = m->data + IXM_STEER_ETH_HLEN;
	unsigned int i;
	u32 hash = 0;

	if (m->len < IXM_STEER_ETH_HLEN + IXM_STEER_IP6_HLEN || (ip[0] >> 4) != 6)
		return 0;
	for (i = 0; i < 32; i++)
		hash ^= st->hash[i][ip[8 + i]];
	if ((ip[6] == IXM_STEER_PROTO_TCP || ip[6] == IXM_STEER_PROTO_UDP) &&
	    m->len >= IXM_STEER_ETH_HLEN + IXM_STEER_IP6_HLEN + 4)
		for (i = 0; i < 4; i++)
			hash ^= st->hash[32 + i][ip[IXM_STEER_IP6_HLEN + i]];
	return st->reta[hash % IXM_RSS_RETA_SIZE];
}

/**
 * ixm_steer_owner() - the queue a frame's flow belongs to
 * @st: the port's steering, started
 * @m: a received Ethernet frame
 *
 * IPv4 TCP and UDP, not fragments: the 4-tuple's Toeplitz hash; other
 * IPv4: the addresses'; IPv6: TCP and UDP right after the fixed header
 * by their 4-tuple, the rest by the addresses (ixm_steer_owner6());
 * anything else (ARP, short frames): queue 0.  The same choice as
 * softport.c's ixm_sw_select_queue() (base/toeplitz.c's
 * ixm_toeplitz_frame(); unit/vnet_steer.c compares the two) and the
 * Intel chips' RSS as set_rss programs it, so that a server's IPv6 flows
 * spread over its cores as its IPv4 ones do.
 *
 * Return: the queue, below @st->nq.
 */
unsigned int ixm_steer_owner(const struct ixm_steer *st, const struct ixm_mbuf *m)
{
	const u8 *f = m->data, *ip = f + IXM_STEER_ETH_HLEN;
	unsigned int ihl, i;
	u32 hash = 0;

	if (m->len >= IXM_STEER_ETH_HLEN && f[12] == 0x86 && f[13] == 0xdd)
		return ixm_steer_owner6(st, m);
	if (m->len < IXM_STEER_ETH_HLEN + IXM_STEER_IP_HLEN_MIN ||
	    f[12] != 0x08 || f[13] != 0x00 || (ip[0] >> 4) != 4)
		return 0;
	ihl = (ip[0] & 0xf) * 4;
	if (ihl < IXM_STEER_IP_HLEN_MIN)
		return 0;
	/* the input as the frame has it: addresses, then ports, network order */
	for (i = 0; i < 8; i++)
		hash ^= st->hash[i][ip[12 + i]];
	/* not a fragment (no MF, offset 0), and its ports in the frame */
	if (!(ip[6] & 0x3f) && !ip[7] &&
	    (ip[9] == IXM_STEER_PROTO_TCP || ip[9] == IXM_STEER_PROTO_UDP) &&
	    m->len >= IXM_STEER_ETH_HLEN + ihl + 4)
		for (i = 0; i < 4; i++)
			hash ^= st->hash[8 + i][ip[ihl + i]];
	return st->reta[hash % IXM_RSS_RETA_SIZE];
}

/*
 * @st->hash from @st->key: each input bit's hash (base/toeplitz.c's, so the
 * two cannot disagree), then each byte value's as the XOR of its bits'.
 * An input shorter than IXM_STEER_HASH_IN (IPv4's 12 bytes, addresses
 * alone) hashes as if zeros followed, which add nothing.
 */
static void ixm_steer_make_table(struct ixm_steer *st)
{
	u8 in[IXM_STEER_HASH_IN];
	unsigned int p, b, v;
	u32 bit[8];

	for (p = 0; p < IXM_STEER_HASH_IN; p++) {
		for (b = 0; b < 8; b++) {
			memset(in, 0, sizeof(in));
			in[p] = 0x80 >> b;
			bit[b] = ixm_toeplitz(st->key, IXM_STEER_KEY_LEN, in, sizeof(in));
		}
		for (v = 0; v < 256; v++) {
			u32 h = 0;

			for (b = 0; b < 8; b++)
				if (v & (0x80 >> b))
					h ^= bit[b];
			st->hash[p][v] = h;
		}
	}
}

/**
 * ixm_steer_q_attach() - make a queue pair part of a port's steering
 * @st: the port's steering
 * @sq: the queue's part, zeroed
 * @idx: the queue's number
 * @pool: its buffers
 *
 * Context: the control plane, before ixm_steer_start().
 */
void ixm_steer_q_attach(struct ixm_steer *st, struct ixm_steer_q *sq, unsigned int idx,
			struct ixm_mbuf_pool *pool)
{
	sq->st = st;
	sq->pool = pool;
	sq->idx = idx;
	st->q[idx] = sq;
}

/**
 * ixm_steer_start() - steer by @key and @reta; post every ring's buffers
 * @st: the port's steering, each queue @reta names attached
 * @key: the port's Toeplitz key (IXM_STEER_KEY_LEN bytes)
 * @reta: its redirection table (IXM_RSS_RETA_SIZE queue numbers)
 *
 * Each queue posts its buffers on its inbound rings from its own pool.
 * With one queue there is nothing to steer.
 *
 * Context: the control plane, the cores not yet running the queues.
 * Return: 0, -EINVAL if @reta names a queue not attached, or -ENOMEM if
 * a pool cannot fill its rings (nothing is left posted).
 */
int ixm_steer_start(struct ixm_steer *st, const u8 *key, const u8 *reta)
{
	unsigned int i, nq = 1, ring = IXM_STEER_RING_MAX;

	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		nq = max_t(unsigned int, nq, reta[i] + 1);
	if (nq > IXM_NIC_MAX_QUEUES)
		return -EINVAL;
	for (i = 0; i < nq; i++)
		if (!st->q[i])
			return -EINVAL;
	memcpy(st->key, key, IXM_STEER_KEY_LEN);
	memcpy(st->reta, reta, IXM_RSS_RETA_SIZE);
	ixm_steer_make_table(st);
	/* a bound on what each queue keeps posted, a power of two per ring */
	while (nq > 1 && ring * (nq - 1) > IXM_STEER_POSTED_MAX)
		ring /= 2;
	st->ring = ring;
	st->nq = nq;
	if (nq < 2)
		return 0;
	for (i = 0; i < nq; i++) {
		ixm_steer_refill(st->q[i]);
		if (ixm_steer_posted(st->q[i]) != ring * (nq - 1))
			goto err_release;
	}
	return 0;

err_release:
	for (i = 0; i < nq; i++)
		ixm_steer_q_release(st->q[i]);
	st->nq = 0;
	return -ENOMEM;
}

/**
 * ixm_steer_q_release() - give the buffers on a queue's rings back
 * @sq: a queue no core runs any more (nor any core steers to)
 *
 * Frames steered to it and not taken are dropped with their buffers.
 * The queue leaves the port's steering.
 */
void ixm_steer_q_release(struct ixm_steer_q *sq)
{
	struct ixm_steer *st = sq->st;
	unsigned int s;
	u32 i;

	if (!st)
		return;
	for (s = 0; s < IXM_NIC_MAX_QUEUES; s++) {
		struct ixm_steer_in *in = &sq->in[s];

		for (i = in->clean; i != in->post; i++)
			ixm_mbuf_free(in->slot[i & (st->ring - 1)]);
		WRITE_ONCE(in->clean, in->post);
	}
	if (st->q[sq->idx] == sq)
		st->q[sq->idx] = NULL;
}

/**
 * ixm_steer_take() - take the frames other cores steered to this queue
 * @sq: the core's queue
 * @m: where to put them
 * @max: room in @m
 *
 * Return: how many were put in @m, each source's in its order.
 */
unsigned int ixm_steer_take(struct ixm_steer_q *sq, struct ixm_mbuf **m, unsigned int max)
{
	const struct ixm_steer *st = sq->st;
	u32 mask = st->ring - 1;
	unsigned int s, n = 0;

	for (s = 0; s < st->nq && n < max; s++) {
		struct ixm_steer_in *in = &sq->in[s];
		unsigned int k, i;
		u32 done;

		if (s == sq->idx)
			continue;
		/* pairs with the release in ixm_steer_one() */
		done = ixm_load_acquire(&st->q[s]->out_done[sq->idx]);
		k = min_t(u32, done - in->clean, max - n);
		for (i = 0; i < k; i++)
			m[n++] = in->slot[(in->clean + i) & mask];
		WRITE_ONCE(in->clean, in->clean + k);
	}
	if (n)
		WRITE_ONCE(sq->steered_in, sq->steered_in + n);
	return n;
}

/*
 * Free @m, a frame that is not @sq's own, into @sq's pool with its bytes
 * zeroed: the pool's pages are mapped read-only into the contexts of
 * @sq's core, and the frame was not delivered there.
 */
static void ixm_steer_forget(struct ixm_mbuf *m)
{
	memset(m->buf, 0, m->data - m->buf + m->len);
	ixm_mbuf_free(m);
}

/*
 * Copy @m into the next buffer queue @d posted for @sq and free @m into
 * @sq's own pool.  Returns false when @d had none posted (@m dropped).
 */
static bool ixm_steer_one(struct ixm_steer_q *sq, unsigned int d, struct ixm_mbuf *m)
{
	const struct ixm_steer *st = sq->st;
	struct ixm_steer_in *in = &st->q[d]->in[sq->idx];
	u32 done = sq->out_done[d];
	struct ixm_mbuf *b;
	size_t off;

	/* pairs with the release in ixm_steer_refill(): the slot is written */
	if (done == ixm_load_acquire(&in->post)) {
		WRITE_ONCE(sq->steer_drops, sq->steer_drops + 1);
		ixm_steer_forget(m);
		return false;
	}
	b = in->slot[done & (st->ring - 1)];
	/* where the device put it, so the owner sees what a device gives */
	off = m->data - m->buf;
	memcpy(b->buf + off, m->data, m->len);
	b->data = b->buf + off;
	b->len = m->len;
	b->flags = m->flags;
	b->next = NULL;
	/* the frame and its buffer's fields before the index: ixm_steer_take() */
	ixm_store_release(&sq->out_done[d], done + 1);
	WRITE_ONCE(sq->steered, sq->steered + 1);
	ixm_steer_forget(m);
	return true;
}

/**
 * ixm_steer_rx() - keep this queue's frames, steer the others'
 * @sq: the core's queue
 * @m: frames its device delivered
 * @n: how many
 *
 * Each frame that belongs to another queue is copied to that queue's
 * ring (or dropped when it has no buffer posted) and leaves @m; owners
 * that sleep are woken, once each.
 *
 * Return: how many frames are left in @m (its first ones, in order).
 */
unsigned int ixm_steer_rx(struct ixm_steer_q *sq, struct ixm_mbuf **m, unsigned int n)
{
	const struct ixm_steer *st = sq->st;
	unsigned int i, k = 0;
	u32 to = 0;

	if (st->nq < 2)
		return n;
	for (i = 0; i < n; i++) {
		unsigned int d = ixm_steer_owner(st, m[i]);

		if (likely(d == sq->idx)) {
			m[k++] = m[i];
			continue;
		}
		if (ixm_steer_one(sq, d, m[i]))
			to |= 1u << d;
	}
	if (!to)
		return k;
	/* the indices stored before the looks at @armed (see ixm_steer_arm()) */
	ixm_smp_mb();
	for (i = 0; to; i++, to >>= 1)
		if ((to & 1) && READ_ONCE(st->q[i]->armed))
			st->wake((struct ixm_steer *)st, i);
	return k;
}

/**
 * ixm_steer_refill() - post a buffer in every free slot of the inbound rings
 * @sq: the core's queue (or, before the cores run, the control plane)
 *
 * An empty pool leaves slots free (counted in the pool's alloc_fail);
 * the next call tries again.
 */
void ixm_steer_refill(struct ixm_steer_q *sq)
{
	const struct ixm_steer *st = sq->st;
	u32 ring = st->ring;
	unsigned int s;

	for (s = 0; s < st->nq; s++) {
		struct ixm_steer_in *in = &sq->in[s];
		u32 post = in->post;

		if (s == sq->idx)
			continue;
		while (post - in->clean < ring) {
			struct ixm_mbuf *b = ixm_mbuf_alloc(sq->pool);

			if (unlikely(!b))
				break;
			in->slot[post++ & (ring - 1)] = b;
		}
		if (post != in->post)
			ixm_store_release(&in->post, post);	/* pairs with ixm_steer_one() */
	}
}

/* A frame steered to @sq and not yet taken?  A look without side effects. */
bool ixm_steer_busy(const struct ixm_steer_q *sq)
{
	const struct ixm_steer *st = sq->st;
	unsigned int s;

	for (s = 0; s < st->nq; s++)
		if (s != sq->idx &&
		    READ_ONCE(st->q[s]->out_done[sq->idx]) != sq->in[s].clean)
			return true;
	return false;
}

/*
 * Buffers of @sq's pool on its inbound rings, filled or not (a gauge, read
 * racily by the control plane).
 */
u32 ixm_steer_posted(const struct ixm_steer_q *sq)
{
	u32 s, sum = 0;

	for (s = 0; s < IXM_NIC_MAX_QUEUES; s++)
		sum += READ_ONCE(sq->in[s].post) - READ_ONCE(sq->in[s].clean);
	return sum;
}

/*
 * Before the core sleeps.  The full barrier orders the store of @armed
 * before the core's last look at its rings (the loop looks once more
 * after arming); ixm_steer_rx() orders its index stores before its look
 * at @armed the same way.
 */
void ixm_steer_arm(struct ixm_steer_q *sq)
{
	WRITE_ONCE(sq->armed, 1);
	ixm_smp_mb();
}

void ixm_steer_disarm(struct ixm_steer_q *sq)
{
	WRITE_ONCE(sq->armed, 0);
}
