/* SPDX-License-Identifier: GPL-2.0 */
/*
 * handle.h - handles, and the one lookup of the objects they name
 *
 * A handle names one slot of one kind of object: the slot's index in
 * bits 0-23, the kind (IXMOD_HANDLE_*, uapi/linux/ixmod.h) in bits 24-31,
 * the slot's generation (never 0) in the high 32 bits.  UDP sockets, TCP
 * connections and TCP listeners each live in an array of one kind, and
 * each begins with a struct ixm_slot (its owner and generation).
 *
 * ixm_slot_get() is the only way from a handle to a slot, as io_uring's
 * io_rsrc_node_lookup() is for every table of registered resources: it
 * checks the kind, the bound (clamped under speculation), the generation
 * and the owner, in that order, here and nowhere else.  A slot given back
 * (ixm_slot_put()) takes its next generation, so every handle to it goes
 * stale at once; the next owner's handle differs from every earlier one
 * until the 32-bit generation wraps.
 *
 * The table is a description (struct ixm_slot_table), not storage: each
 * kind's objects stay in their protocol's table, and IXM_SLOT_TABLE()
 * describes such an array with constants the compiler folds into the
 * inline lookup.
 */
#ifndef _IXM_NET_HANDLE_H
#define _IXM_NET_HANDLE_H

#include <linux/ixmod.h>

#include "platform.h"

struct ixm_app;

#define IXM_HANDLE_IDX_MASK	((1U << IXMOD_HANDLE_KIND_SHIFT) - 1)

static inline u64 ixm_handle(u32 kind, u32 idx, u32 gen)
{
	return (u64)gen << 32 | kind << IXMOD_HANDLE_KIND_SHIFT |
	       (idx & IXM_HANDLE_IDX_MASK);
}

static inline u32 ixm_handle_kind(u64 h)
{
	return IXMOD_HANDLE_KIND(h);
}

static inline u32 ixm_handle_idx(u64 h)
{
	return (u32)h & IXM_HANDLE_IDX_MASK;
}

static inline u32 ixm_handle_gen(u64 h)
{
	return (u32)(h >> 32);
}

/* A slot's next generation: never 0, so no valid handle is 0. */
static inline u32 ixm_gen_next(u32 gen)
{
	return gen + 1 ? gen + 1 : 1;
}

/**
 * struct ixm_slot - what every object a handle names begins with
 * @app: the context that owns it; NULL while the slot is free
 * @gen: the slot's generation, part of every handle to it; never 0
 */
struct ixm_slot {
	struct ixm_app	*app;
	u32		gen;
};

/*
 * An object's first member is a union of its struct ixm_slot @slot and
 * the same two fields by name, which its own code reads directly (as
 * struct_group_tagged() makes them):
 *
 *	union {
 *		struct ixm_slot		slot;
 *		struct {
 *			struct ixm_app	*app;
 *			u32		gen;
 *		};
 *	};
 *
 * IXM_SLOT_CHECK() proves at build time that the two agree and that the
 * slot is at the object's start.
 */
#define IXM_SLOT_CHECK(type)						\
	BUILD_BUG_ON(offsetof(type, slot) ||				\
		     offsetof(type, app) != offsetof(struct ixm_slot, app) || \
		     offsetof(type, gen) != offsetof(struct ixm_slot, gen))

/**
 * struct ixm_slot_table - the slots that handles of one kind name
 * @base: the first object; each begins with its struct ixm_slot
 * @stride: bytes from one object to the next
 * @nr: objects
 * @kind: IXMOD_HANDLE_*
 */
struct ixm_slot_table {
	void	*base;
	size_t	stride;
	u32	nr;
	u32	kind;
};

/* The table of @array, whose handles are of @kind (constants, folded). */
#define IXM_SLOT_TABLE(kind, array)					\
	((const struct ixm_slot_table){ (array), sizeof((array)[0]),	\
					ARRAY_SIZE(array), (kind) })

/**
 * ixm_slot_init() - a free slot at its first generation
 * @s: the slot
 * @gen: the generation; 0 is taken as 1
 */
static inline void ixm_slot_init(struct ixm_slot *s, u32 gen)
{
	s->app = NULL;
	s->gen = gen ? gen : 1;
}

/**
 * ixm_slot_put() - give a slot back: every handle to it goes stale
 * @s: the slot
 */
static inline void ixm_slot_put(struct ixm_slot *s)
{
	s->app = NULL;
	s->gen = ixm_gen_next(s->gen);
}

/**
 * ixm_slot_get() - the slot a handle names, if @app owns it
 * @t: the table of the kind the caller expects
 * @app: the context presenting the handle
 * @handle: as the application passed it
 *
 * Return: the slot, or NULL: a handle of another kind, an index out of
 * @t, a stale generation, a free slot or another context's.  The caller
 * answers NULL with -EBADF.
 */
static __always_inline struct ixm_slot *
ixm_slot_get(const struct ixm_slot_table *t, const struct ixm_app *app,
	     u64 handle)
{
	u32 idx = ixm_handle_idx(handle);
	struct ixm_slot *s;

	if (ixm_handle_kind(handle) != t->kind || idx >= t->nr)
		return NULL;
	idx = ixm_index_nospec(idx, t->nr);
	s = (struct ixm_slot *)((u8 *)t->base + idx * t->stride);
	if (s->gen != ixm_handle_gen(handle) || !s->app || s->app != app)
		return NULL;
	return s;
}

#endif /* _IXM_NET_HANDLE_H */
