/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mbuf.h - packet buffers and per-core buffer pools
 *
 * A buffer is two things kept apart: the descriptor (struct ixm_mbuf, in
 * kernel memory) and the data (IXM_MBUF_SIZE bytes of DMA-able memory the
 * NIC writes).  Keeping the descriptor out of the data means the data can
 * later be mapped read-only into an application without exposing a single
 * kernel pointer.
 *
 * A pool belongs to one dataplane core and one port (its data is mapped
 * for that port's device); only that core allocates and frees, so the free
 * list is a plain stack with no atomics.
 */
#ifndef _IXM_BASE_MBUF_H
#define _IXM_BASE_MBUF_H

#include "platform.h"

#define IXM_MBUF_SIZE		2048	/* data bytes per buffer */
#define IXM_MBUF_HEADROOM	128	/* room to prepend headers */
#define IXM_MBUF_DATA_MAX	(IXM_MBUF_SIZE - IXM_MBUF_HEADROOM)

/* ixm_mbuf.flags, set by the NIC driver on receive */
#define IXM_MBUF_F_IP_CSUM_OK	0x0001	/* NIC verified the IPv4 header checksum */
#define IXM_MBUF_F_IP_CSUM_BAD	0x0002	/* NIC found it wrong */
#define IXM_MBUF_F_L4_CSUM_OK	0x0004	/* NIC verified the TCP/UDP checksum */
#define IXM_MBUF_F_L4_CSUM_BAD	0x0008
#define IXM_MBUF_F_RSS		0x0010	/* rss_hash is valid */
/*
 * With L4_CSUM_OK: the TCP/UDP checksum field holds only the pseudo-
 * header's sum, a local sender having left the rest to be completed
 * (virtio's NEEDS_CSUM, Linux's CHECKSUM_PARTIAL).  The data is good;
 * the field is not valid on a wire, which matters only to code that sends
 * the received bytes on (ixm_udp_reflect()).
 */
#define IXM_MBUF_F_L4_CSUM_PARTIAL 0x0020
/*
 * Set by the protocols on transmit, on a port whose NIC inserts checksums
 * (ixm_net_port.tx_offload): an Ethernet header, a 20-byte IPv4 header
 * whose checksum is left 0, then TCP or UDP with the pseudo-header's sum
 * (not complemented) in its checksum field.  The NIC sums from the TCP or
 * UDP header to the end of the frame, as Linux's CHECKSUM_PARTIAL asks.
 *
 * With IXM_MBUF_F_TX_IPV6 as well, the network header is instead the
 * fixed 40-byte IPv6 header with TCP or UDP directly after it (ixmod
 * sends no extension header), the field holding the sum of RFC 8200
 * §8.1's pseudo-header; IPv6 has no header checksum, so only the TCP or
 * UDP one is inserted.  The flag means nothing without one of the two.
 */
#define IXM_MBUF_F_TX_TCP_CSUM	0x0100	/* insert the IPv4 and TCP checksums */
#define IXM_MBUF_F_TX_UDP_CSUM	0x0200	/* insert the IPv4 and UDP checksums */
#define IXM_MBUF_F_TX_CSUM	(IXM_MBUF_F_TX_TCP_CSUM | IXM_MBUF_F_TX_UDP_CSUM)
#define IXM_MBUF_F_TX_TAKEN	0x0400	/* the device took the frame (ixm_loop_tx) */
#define IXM_MBUF_F_TX_IPV6	0x0800	/* ...over a 40-byte IPv6 header */

/* Fragments a frame to send may add to its buffer; each is a descriptor. */
#define IXM_MBUF_FRAGS		4

/**
 * struct ixm_mbuf_frag - bytes a frame sends from outside its buffer
 * @dma: their bus address for the port's device
 * @len: how many
 */
struct ixm_mbuf_frag {
	dma_addr_t	dma;
	u32		len;
};

struct ixm_mbuf_pool;

/**
 * struct ixm_mbuf_zc - a sender's frames that read its memory in place
 * @built: frames built, less those freed without reaching the device
 * @done: frames the device finished with (freed after IXM_MBUF_F_TX_TAKEN)
 *
 * A sender whose frames all go to one transmit queue sees them finished
 * in the order the device took them, so "the first N frames are done" is
 * @done >= N: what TCP needs to know before it lets the application
 * reuse bytes a (re)transmission read (ixm_tcp_zc_settled()).
 */
struct ixm_mbuf_zc {
	u32	built;
	u32	done;
};

/**
 * struct ixm_mbuf - one packet buffer
 * @buf: start of the data buffer (IXM_MBUF_SIZE bytes)
 * @dma: bus address of @buf for the pool's device
 * @data: first byte of the frame, inside @buf
 * @len: frame length in bytes
 * @flags: IXM_MBUF_F_*
 * @rss_hash: the NIC's RSS hash when IXM_MBUF_F_RSS is set
 * @seq: TCP: sequence number of @data[0] while a connection holds it
 * @pool: the pool it returns to
 * @next: link while free or while chained in a batch
 * @owner: the application context holding it (a receive event named it
 *	and no recv_done returned it yet), else NULL
 * @nfrags: transmit: entries of @frags the frame continues with
 * @inflight: transmit, with @nfrags: the counter of the memory @frags
 *	point into, decremented when the buffer is freed (the NIC is done)
 * @zc: transmit, with @nfrags: the sender's count of its frames that
 *	read its memory in place (struct ixm_mbuf_zc), or NULL
 * @frags: transmit: bytes sent after @data's @len, read by the NIC in
 *	place (zero-copy; the TCP payload in the application's arena)
 *
 * A frame to send is @data[0..@len) followed by every fragment in order.
 */
struct ixm_mbuf {
	u8			*buf;
	dma_addr_t		dma;
	u8			*data;
	u16			len;
	u16			flags;
	u32			rss_hash;
	u32			seq;
	struct ixm_mbuf_pool	*pool;
	struct ixm_mbuf		*next;
	void			*owner;
	u32			nfrags;
	u32			*inflight;
	struct ixm_mbuf_zc	*zc;
	struct ixm_mbuf_frag	frags[IXM_MBUF_FRAGS];
};

/**
 * struct ixm_mbuf_pool - a core's buffers for one port
 * @mbufs: @count descriptors; the owner sets each one's @buf and @dma
 *	before ixm_mbuf_pool_init()
 * @free: stack of free buffers, @count slots
 * @nfree: how many are on it
 * @count: buffers in the pool
 * @alloc_fail: allocations that found the pool empty
 * @rx_base: where buffer 0 lies in an application's receive region
 */
struct ixm_mbuf_pool {
	struct ixm_mbuf		*mbufs;
	struct ixm_mbuf		**free;
	u32			nfree;
	u32			count;
	u64			alloc_fail;
	u32			rx_base;
};

void ixm_mbuf_pool_init(struct ixm_mbuf_pool *pool, struct ixm_mbuf *mbufs,
			struct ixm_mbuf **free, u32 count);

/*
 * The reserves of a receive pool against what the wire can make it hold
 * (design doc, "What the wire can hold").  Data that waits for an
 * application to take it (datagrams, data for a connection not yet
 * accepted) is refused below a quarter free; data for accepted
 * connections below an eighth, once the out-of-order queues gave back
 * what they hold (net/tcp_ofo.c).
 */
#define IXM_POOL_RESERVE_UNTAKEN	4
#define IXM_POOL_RESERVE_TCP		8

/* Whether @pool has at least 1/@div of its buffers free. */
static inline bool ixm_mbuf_pool_free_over(const struct ixm_mbuf_pool *pool, u32 div)
{
	return pool->nfree >= pool->count / div;
}

/* The address of @m's data as the device sees it. */
static inline dma_addr_t ixm_mbuf_data_dma(const struct ixm_mbuf *m)
{
	return m->dma + (m->data - m->buf);
}

/**
 * ixm_mbuf_alloc() - take a buffer from @pool
 * @pool: the core's pool
 *
 * The buffer's data starts after IXM_MBUF_HEADROOM and is empty.
 *
 * Context: the pool's dataplane core.
 * Return: the buffer, or NULL (counted in @pool->alloc_fail).
 */
static inline struct ixm_mbuf *ixm_mbuf_alloc(struct ixm_mbuf_pool *pool)
{
	struct ixm_mbuf *m;

	if (unlikely(!pool->nfree)) {
		pool->alloc_fail++;
		return NULL;
	}
	m = pool->free[--pool->nfree];
	m->data = m->buf + IXM_MBUF_HEADROOM;
	m->len = 0;
	m->flags = 0;
	m->next = NULL;
	return m;
}

/**
 * ixm_mbuf_free() - return @m to its pool
 * @m: a buffer taken with ixm_mbuf_alloc()
 *
 * Context: the pool's dataplane core.
 */
static inline void ixm_mbuf_free(struct ixm_mbuf *m)
{
	struct ixm_mbuf_pool *pool = m->pool;

	if (unlikely(m->nfrags)) {
		/* the device no longer reads the fragments' memory */
		(*m->inflight)--;
		if (m->zc) {
			if (m->flags & IXM_MBUF_F_TX_TAKEN)
				m->zc->done++;	/* devices finish in order */
			else
				m->zc->built--;	/* never reached one */
			m->zc = NULL;
		}
		m->nfrags = 0;
	}
	pool->free[pool->nfree++] = m;
}

/* The bytes of the frame @m sends: its own and its fragments'. */
static inline u32 ixm_mbuf_frame_len(const struct ixm_mbuf *m)
{
	u32 len = m->len, i;

	for (i = 0; i < m->nfrags; i++)
		len += m->frags[i].len;
	return len;
}

#endif /* _IXM_BASE_MBUF_H */
