// SPDX-License-Identifier: MIT
/*
 * kv output queue - copied bytes and referenced values in order (outq.h)
 *
 * Memory: @buf holds only copied bytes not yet sent, plus what sent bytes
 * precede them until the next compaction (when half of @buf is sent
 * bytes, the rest moves down); @buf over KV_OUTQ_KEEP is freed once the
 * queue empties.  So a connection's copies stay within twice what it may
 * queue (the session's backpressure bound, proto.h).
 */
#include <stdlib.h>
#include <string.h>

#include "outq.h"

#define KV_OUTQ_KEEP	(64 * 1024)	/* a drained buffer above this is freed */

static bool kv_outq_grow_segs(struct kv_outq *q)
{
	unsigned int cap;
	struct kv_oseg *s;

	if (q->n < q->cap)
		return true;
	if (q->head) {		/* room at the front: move the queued segments down */
		memmove(q->seg, q->seg + q->head, (q->n - q->head) * sizeof(*q->seg));
		q->n -= q->head;
		q->head = 0;
		return true;
	}
	cap = q->cap ? 2 * q->cap : 16;
	s = realloc(q->seg, cap * sizeof(*s));
	if (!s)
		return false;
	q->seg = s;
	q->cap = cap;
	return true;
}

bool kv_outq_copy(struct kv_outq *q, const void *p, size_t len)
{
	struct kv_oseg *last = q->n > q->head ? &q->seg[q->n - 1] : NULL;

	if (!len)
		return true;
	if (q->blen + len > q->bcap) {
		size_t cap = q->bcap ? q->bcap : 4096;
		char *b;

		while (cap < q->blen + len)
			cap *= 2;
		b = realloc(q->buf, cap);
		if (!b)
			return false;
		q->buf = b;
		q->bcap = cap;
	}
	if (!last || last->it || last->off + last->len != q->blen) {
		if (!kv_outq_grow_segs(q))
			return false;
		last = &q->seg[q->n++];
		*last = (struct kv_oseg){ .off = q->blen };
	}
	memcpy(q->buf + q->blen, p, len);
	q->blen += len;
	last->len += len;
	q->bytes += len;
	return true;
}

bool kv_outq_item(struct kv_outq *q, struct kv_item *it, const void *p, size_t len)
{
	if (!kv_outq_grow_segs(q)) {
		kv_item_put(it);
		return false;
	}
	q->seg[q->n++] = (struct kv_oseg){ .it = it, .p = p, .len = len };
	q->bytes += len;
	return true;
}

unsigned int kv_outq_iov(const struct kv_outq *q, struct iovec *iov, unsigned int max)
{
	unsigned int i, k = 0;

	for (i = q->head; i < q->n && k < max; i++, k++) {
		const struct kv_oseg *s = &q->seg[i];
		size_t skip = i == q->head ? q->done : 0;

		iov[k].iov_base = (char *)(s->it ? s->p : q->buf + s->off) + skip;
		iov[k].iov_len = s->len - skip;
	}
	return k;
}

/* Move the unsent copies to the front of @buf. */
static void kv_outq_compact(struct kv_outq *q)
{
	size_t from = q->blen, i;

	for (i = q->head; i < q->n; i++) {
		if (!q->seg[i].it) {
			from = q->seg[i].off;
			break;
		}
	}
	if (from < q->bcap / 2)
		return;
	memmove(q->buf, q->buf + from, q->blen - from);
	q->blen -= from;
	for (i = q->head; i < q->n; i++) {
		if (!q->seg[i].it)
			q->seg[i].off -= from;
	}
}

void kv_outq_sent(struct kv_outq *q, size_t n)
{
	q->bytes -= n;
	while (n) {
		struct kv_oseg *s = &q->seg[q->head];
		size_t left = s->len - q->done;

		if (n < left) {
			q->done += n;
			break;
		}
		n -= left;
		q->done = 0;
		if (s->it)
			kv_item_put(s->it);
		q->head++;
	}
	if (q->head == q->n) {
		q->head = q->n = 0;
		q->blen = 0;
		if (q->bcap > KV_OUTQ_KEEP) {
			free(q->buf);
			q->buf = NULL;
			q->bcap = 0;
		}
	} else if (q->bcap > KV_OUTQ_KEEP) {
		kv_outq_compact(q);
	}
}

void kv_outq_free(struct kv_outq *q)
{
	unsigned int i;

	for (i = q->head; i < q->n; i++) {
		if (q->seg[i].it)
			kv_item_put(q->seg[i].it);
	}
	free(q->buf);
	free(q->seg);
	memset(q, 0, sizeof(*q));
}
