/* SPDX-License-Identifier: MIT */
/*
 * kv output queue - a connection's replies waiting for the network
 *
 * Replies are bytes the session wrote (copied into @buf) and values it
 * named by reference (an item held until its bytes are sent): memcached's
 * rule, so a reply never copies a large value and a value waiting for a
 * slow reader stays charged to the store (store.h), whatever the number of
 * keys that named it.  Segments keep the order; consecutive copies share
 * one.  The three front ends use it: kv-epoll and kv-uring send it with
 * sendmsg() from kv_outq_iov(), kv-ixev copies it into ixev's send buffer.
 */
#ifndef KV_OUTQ_H
#define KV_OUTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#include "store.h"

/**
 * struct kv_oseg - a run of queued bytes
 * @it: the item the bytes are in (a reference), or NULL: bytes in @buf
 * @p: the first byte, when @it is set
 * @off: the first byte's offset in @buf, when @it is NULL
 * @len: bytes
 */
struct kv_oseg {
	struct kv_item	*it;
	const char	*p;
	size_t		off;
	size_t		len;
};

/**
 * struct kv_outq - the queue
 * @buf: copied bytes (@blen used of @bcap)
 * @seg: segments @head to @n - 1 are queued (@cap allocated)
 * @done: bytes of seg[@head] already sent
 * @bytes: bytes queued and not yet sent
 */
struct kv_outq {
	char		*buf;
	size_t		blen, bcap;
	struct kv_oseg	*seg;
	unsigned int	head, n, cap;
	size_t		done;
	size_t		bytes;
};

/* Queue a copy of @len bytes; false if memory ran out (nothing queued). */
bool kv_outq_copy(struct kv_outq *q, const void *p, size_t len);
/* Queue @len bytes at @p in @it, taking the caller's reference on @it. */
bool kv_outq_item(struct kv_outq *q, struct kv_item *it, const void *p, size_t len);
/* Up to @max iovecs describing the queued bytes, in order; returns how many. */
unsigned int kv_outq_iov(const struct kv_outq *q, struct iovec *iov, unsigned int max);
/* @n bytes were sent: drop them, release the items, compact the copies. */
void kv_outq_sent(struct kv_outq *q, size_t n);
/* Drop everything and free the buffers. */
void kv_outq_free(struct kv_outq *q);

static inline size_t kv_outq_bytes(const struct kv_outq *q)
{
	return q->bytes;
}

#endif /* KV_OUTQ_H */
