// SPDX-License-Identifier: MIT
/*
 * ixev_arena.c - the transmit arena's units (ixev's allocator)
 *
 * The transmit arena: an array of CALL_IOV struct ixmod_iov per call slot
 * (the kernel copies a sendv's array when it runs the call, so an area is
 * free again when its slot is), then units of UNIT bytes, handed out by a
 * first-fit bitmap: a connection's send buffer is a FIFO of segments of
 * 1 to SEG_UNITS units, freed as IXMOD_EV_TCP_SENT acknowledges them;
 * ixev_zc_alloc() and UDP payloads take runs of units too.
 *
 * Each connection's share of the arena.  A peer that stops reading keeps
 * its connection's units until it acknowledges them, possibly forever; with
 * first come, first served, about 32 such peers held the whole default
 * arena (8 MiB, 256 KiB send buffers) and every other connection of the
 * core waited.  So the arena is counted in two halves.  Every connection
 * may hold RESV_UNITS units (4 KiB) whatever the others do: these come
 * from the first half, which nothing else takes, so a connection always
 * gets them while the connections times RESV_UNITS fit in it (about 1,000
 * per core with the default arena; past that, first come is first served
 * again).  Units beyond those are borrowed from the second half, with UDP
 * payloads and ixev_zc_alloc(), and a connection may borrow only while
 * what it holds borrowed stays no more than what is left to borrow after
 * it: the first stalled reader holds at most half of that half, the next
 * half of the rest.  A connection whose share is full waits as for a full
 * arena (starve(): writable() when units come back).
 */
#include <errno.h>

#include "internal.h"

/* ---- the arena's units ---- */

static void units_mark(struct ixev *ev, __u32 u, __u32 n, bool used)
{
	for (; n; n--, u++) {
		if (used)
			ev->bitmap[u / 64] |= 1ULL << (u % 64);
		else
			ev->bitmap[u / 64] &= ~(1ULL << (u % 64));
	}
}

/*
 * The offset of @n free consecutive units, or 0 (no unit is at 0).  One
 * unit comes from the last ones freed when one of them is still free
 * (LIFO: warm in the cache, found without a scan); otherwise first fit,
 * a word at a time: the first free unit and the end of a free run are
 * found with a count of trailing zeros, not unit by unit (a core with
 * hundreds of connections, each holding a unit or two, leaves few words
 * empty and few full).
 */
static __u32 units_alloc(struct ixev *ev, __u32 n)
{
	__u32 u = ev->hint * 64, run = 0, start = 0;

	/* one unit, the size of most sends: the last one freed, if still free */
	while (n == 1 && ev->nspare) {
		u = ev->spare[--ev->nspare];
		if (!(ev->bitmap[u / 64] >> (u % 64) & 1)) {
			ev->bitmap[u / 64] |= 1ULL << (u % 64);
			ev->st.arena_used += UNIT;
			return ev->unit_base + u * UNIT;
		}
	}
	u = ev->hint * 64;

	while (u < ev->nunits) {
		/* the used bits from @u to the end of its word, @left of them */
		__u32 left = 64 - u % 64, k;
		__u64 used = ev->bitmap[u / 64] >> (u % 64);
		__u64 valid = left == 64 ? ~0ULL : (1ULL << left) - 1;

		if (!run) {
			__u64 avail = ~used & valid;

			if (!avail) {
				u += left;
				continue;
			}
			k = (__u32)__builtin_ctzll(avail);
			u += k;
			left -= k;
			used >>= k;
			start = u;
		}
		/* free units from @u on in this word (bits past @left read 0) */
		k = used ? (__u32)__builtin_ctzll(used) : left;
		if (k > left)
			k = left;
		if (run + k >= n) {
			units_mark(ev, start, n, true);
			ev->st.arena_used += (unsigned long long)n * UNIT;
			while (ev->hint < ev->nunits / 64 && ev->bitmap[ev->hint] == ~0ULL)
				ev->hint++;
			return ev->unit_base + start * UNIT;
		}
		run = k < left ? 0 : run + k;
		u += k;
	}
	return 0;
}

static void units_release(struct ixev *ev, __u32 off, __u32 n)
{
	__u32 u = (off - ev->unit_base) / UNIT;

	units_mark(ev, u, n, false);
	ev->st.arena_used -= (unsigned long long)n * UNIT;
	if (n == 1 && ev->nspare < UNIT_SPARES)
		ev->spare[ev->nspare++] = u;
	if (ev->nstarved)
		ev->arena_freed = true;
	if (u / 64 < ev->hint)
		ev->hint = u / 64;
}

/* Units of the second half still free: what UDP, zero-copy and borrowing may take. */
static __u32 units_lendable(const struct ixev *ev)
{
	return ev->borrowed < ev->nunits / 2 ? ev->nunits / 2 - ev->borrowed : 0;
}

/* What @c holds beyond its RESV_UNITS. */
static __u32 conn_borrowed(const struct ixev_conn *c)
{
	return c->units > RESV_UNITS ? c->units - RESV_UNITS : 0;
}

/* @n units for @c's send buffer, within its share (see the top); 0: none. */
__u32 ixev_conn_units_alloc(struct ixev_conn *c, __u32 n)
{
	__u32 own = c->units < RESV_UNITS ? RESV_UNITS - c->units : 0;
	__u32 borrow = n > own ? n - own : 0, before = conn_borrowed(c);
	struct ixev *ev = c->ev;
	__u32 lendable = units_lendable(ev), off;

	if (borrow && (borrow > lendable || before + borrow > lendable - borrow))
		return 0;
	off = units_alloc(ev, n);
	if (!off)
		return 0;
	c->units += n;
	ev->borrowed += conn_borrowed(c) - before;
	return off;
}

void ixev_conn_units_release(struct ixev_conn *c, __u32 off, __u32 n)
{
	__u32 before = conn_borrowed(c);

	units_release(c->ev, off, n);
	c->units -= n;
	c->ev->borrowed -= before - conn_borrowed(c);
}

/* UDP payloads and ixev_zc_alloc(): @n units of the second half; 0: none. */
__u32 ixev_lib_units_alloc(struct ixev *ev, __u32 n)
{
	__u32 off = n <= units_lendable(ev) ? units_alloc(ev, n) : 0;

	if (off)
		ev->borrowed += n;
	return off;
}

void ixev_lib_units_release(struct ixev *ev, __u32 off, __u32 n)
{
	units_release(ev, off, n);
	ev->borrowed -= n < ev->borrowed ? n : ev->borrowed;	/* a bad zc_free */
}

/*
 * ixev_zc_alloc - transmit arena memory for zero-copy sends
 *
 * SYNOPSIS
 *	void *ixev_zc_alloc(struct ixev *ev, size_t len);
 *	void ixev_zc_free(struct ixev *ev, void *p, size_t len);
 *
 * DESCRIPTION
 *	ixev_zc_alloc() takes @len contiguous bytes of the transmit arena
 *	(rounded up to 2 KiB units), for data the application builds in
 *	place and sends, once or many times, with ixev_send_zc(): a reply
 *	that is cached, a file's contents.  ixev_zc_free() gives them back
 *	(@len as allocated); free only what no send still holds (see the
 *	release callback of ixev_send_zc()).
 *
 * RETURN VALUE
 *	ixev_zc_alloc(): the memory, or NULL when @len is 0 or the arena has
 *	no run of free units that long in the half of the arena that
 *	connections borrow from (ixev_send(3)).
 */
void *ixev_zc_alloc(struct ixev *ev, size_t len)
{
	__u32 off;

	if (!len || len > (size_t)ev->nunits * UNIT)
		return NULL;
	off = ixev_lib_units_alloc(ev, (len + UNIT - 1) / UNIT);
	return off ? ixu_tx_ptr(&ev->ixu, off) : NULL;
}

void ixev_zc_free(struct ixev *ev, void *p, size_t len)
{
	__u32 off = (unsigned char *)p - ev->ixu.txarena;

	if (!p || off < ev->unit_base || (off - ev->unit_base) % UNIT)
		return;
	ixev_lib_units_release(ev, off, (len + UNIT - 1) / UNIT);
}
