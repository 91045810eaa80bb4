// SPDX-License-Identifier: GPL-2.0
/*
 * mbuf.c - per-core buffer pools (see mbuf.h)
 */
#include "platform.h"
#include "mbuf.h"

/**
 * ixm_mbuf_pool_init() - make every buffer of a pool free
 * @pool: the pool
 * @mbufs: @count descriptors whose @buf and @dma the caller has set
 * @free: room for @count pointers
 * @count: number of buffers
 *
 * Context: before the pool's core uses it.
 */
void ixm_mbuf_pool_init(struct ixm_mbuf_pool *pool, struct ixm_mbuf *mbufs,
			struct ixm_mbuf **free, u32 count)
{
	u32 i;

	pool->mbufs = mbufs;
	pool->free = free;
	pool->count = count;
	pool->alloc_fail = 0;
	/* stack order: the lowest buffers are handed out first */
	for (i = 0; i < count; i++) {
		mbufs[i].pool = pool;
		mbufs[i].next = NULL;
		mbufs[i].owner = NULL;
		mbufs[i].nfrags = 0;
		mbufs[i].zc = NULL;
		free[i] = &mbufs[count - 1 - i];
	}
	pool->nfree = count;
}
