// SPDX-License-Identifier: MIT
/*
 * ixev_units - the transmit arena's allocator (src/ixev_arena.c) against
 * a plain model of it
 *
 * The allocator hands out a single unit from the last ones freed (LIFO,
 * UNIT_SPARES of them) and otherwise finds the first free run a word of
 * its bitmap at a time.  This test drives it with 200,000 random
 * allocations and frees of 1 to 200 units (runs inside a word, across
 * words and over whole words), checking each offset against a model that
 * keeps the same list of freed units and scans unit by unit: the lowest
 * free run of that length, or none when there is none (or when the
 * arena's lendable half is used up, which the model counts too).  It reads
 * the library's private header and drives one struct ixev with no kernel
 * behind it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/internal.h"
#include "helpers.h"

#define ARENA		(2U << 20)
#define MAX_RUN		200
#define STEPS		200000
#define LIVE		4096

struct live {
	__u32	off;
	__u32	n;
};

static unsigned char model[ARENA / UNIT];
static __u32 spare[UNIT_SPARES];
static unsigned int nspare;

/*
 * The model: a single unit freed last and still free, else the lowest
 * @n free consecutive units, or -1.
 */
static long model_find(__u32 nunits, __u32 n)
{
	__u32 u, run = 0;

	while (n == 1 && nspare) {
		u = spare[--nspare];
		if (!model[u])
			return (long)u;
	}
	for (u = 0; u < nunits; u++) {
		run = model[u] ? 0 : run + 1;
		if (run == n)
			return (long)(u + 1 - n);
	}
	return -1;
}

int main(void)
{
	static struct live live[LIVE];
	unsigned int nlive = 0, step, allocs = 0, refused = 0;
	struct ixev ev = { 0 };
	__u32 borrowed = 0;

	srand(37);
	ev.ixu.txarena = calloc(1, ARENA);
	ev.unit_base = UNIT;
	ev.nunits = (ARENA - ev.unit_base) / UNIT / 64 * 64;
	ev.bitmap = calloc(ev.nunits / 64, sizeof(*ev.bitmap));
	T_CHECK(ev.ixu.txarena && ev.bitmap, "out of memory");

	for (step = 0; step < STEPS; step++) {
		bool give = nlive && (nlive == LIVE || rand() % 100 < 48);

		if (give) {
			unsigned int i = (unsigned int)rand() % nlive;
			__u32 u = (live[i].off - ev.unit_base) / UNIT;

			ixev_lib_units_release(&ev, live[i].off, live[i].n);
			memset(model + u, 0, live[i].n);
			if (live[i].n == 1 && nspare < UNIT_SPARES)
				spare[nspare++] = u;
			borrowed -= live[i].n;
			live[i] = live[--nlive];
		} else {
			/* mostly small runs, as sends take; some long ones */
			__u32 n = rand() % 4 ? 1 + rand() % 3 : 1 + rand() % MAX_RUN;
			long want = n <= ev.nunits / 2 - borrowed ? model_find(ev.nunits, n) : -1;
			unsigned int spares = nspare;
			__u32 off = ixev_lib_units_alloc(&ev, n);

			if (want < 0) {
				T_CHECK(off == 0, "step %u: %u units at %u, the model has none",
					step, n, off);
				refused++;
				continue;
			}
			T_CHECK(off == ev.unit_base + (__u32)want * UNIT,
				"step %u: %u units at unit %ld, the model's is %ld (%u spares)",
				step, n, off ? (long)((off - ev.unit_base) / UNIT) : -1L, want,
				spares);
			memset(model + want, 1, n);
			borrowed += n;
			live[nlive++] = (struct live){ off, n };
			allocs++;
		}
	}
	T_CHECK(allocs > STEPS / 3 && refused > 100,
		"the walk must both fill the arena and allocate: %u allocations, %u refusals",
		allocs, refused);
	printf("%u allocations, %u refused, all where the model put them\n", allocs, refused);
	free(ev.bitmap);
	free(ev.ixu.txarena);
	return T_EXIT_PASS;
}
