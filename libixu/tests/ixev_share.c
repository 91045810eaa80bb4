// SPDX-License-Identifier: MIT
/*
 * ixev_share - peers that stop reading cannot take the transmit arena
 * from the other connections of their ixev (issue 35)
 *
 * A host test of ixev's arena accounting: it reads the library's private
 * header (src/internal.h), links the static libixu and drives one struct
 * ixev with no kernel behind it (no ring is used: ixev_send() only fills
 * send buffers).  64 connections whose peers never
 * acknowledge anything each try to queue 1 MB, as kv-ixev does for
 * clients that keep their window shut; then an honest connection must
 * still get room, and move 1 MB through acknowledgments.  Before each
 * connection had its share, about 32 such peers (8 MiB arena, 256 KiB
 * send buffers) left the honest one nothing, for good.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../src/internal.h"
#include "helpers.h"

#define ARENA		(8U << 20)
#define STALLED		64
#define MB		1000000

static unsigned char src[MB];

int main(void)
{
	struct ixev_conn *stalled[STALLED], *c;
	size_t moved = 0, held = 0;
	struct ixev ev = { 0 };
	unsigned int i, rounds;
	ssize_t n;

	ev.sndbuf = DEF_SNDBUF;
	ev.ixu.txarena = calloc(1, ARENA);
	ev.unit_base = UNIT;
	ev.nunits = (ARENA - ev.unit_base) / UNIT / 64 * 64;
	ev.bitmap = calloc(ev.nunits / 64, sizeof(*ev.bitmap));
	ev.free_slot = ~0U;
	T_CHECK(ev.ixu.txarena && ev.bitmap, "out of memory");

	for (i = 0; i < STALLED; i++) {
		stalled[i] = ixev_conn_alloc(&ev);
		T_CHECK(stalled[i], "ixev_conn_alloc");
		stalled[i]->state = S_OPEN;
		n = ixev_send(stalled[i], src, MB);
		T_CHECK(n >= 0, "stalled %u: %zd", i, n);
		held += n;
	}
	printf("%d stalled connections hold %zu KiB of the %u KiB arena\n", STALLED,
	       held >> 10, ev.nunits * UNIT >> 10);

	/* the honest connection: its peer acknowledges everything sent */
	c = ixev_conn_alloc(&ev);
	T_CHECK(c, "ixev_conn_alloc");
	c->state = S_OPEN;
	for (rounds = 0; moved < MB && rounds < 10000; rounds++) {
		n = ixev_send(c, src + moved, MB - moved);
		T_CHECK(n >= 0, "honest: %zd", n);
		if (!n)
			break;
		moved += n;
		c->queued = c->acked = c->fill;	/* sent and acknowledged */
		ixev_segs_acked(c);
	}
	printf("the honest connection moved %zu of %d bytes in %u rounds\n", moved, MB, rounds);
	T_CHECK(moved == MB, "the honest connection got no room after %zu bytes", moved);
	/* the stalled ones: half the arena, and 4 KiB each of the other half */
	T_CHECK(held <= (size_t)(ev.nunits / 2 + STALLED * RESV_UNITS) * UNIT,
		"the stalled connections hold %zu bytes", held);

	/* the stalled ones give everything back when they go */
	ixev_conn_free(c);
	for (i = 0; i < STALLED; i++)
		ixev_conn_free(stalled[i]);
	T_CHECK(ev.st.arena_used == 0, "%llu arena bytes still used", ev.st.arena_used);
	free(ev.bitmap);
	free(ev.ixu.txarena);
	free(ev.slots);
	free(ev.dirty);
	free(ev.starved);
	return T_EXIT_PASS;
}
