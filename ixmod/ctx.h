/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctx.h - what ctx.c, ctx_map.c and ctx_arena.c share about a context
 */
#ifndef _IXMOD_CTX_H
#define _IXMOD_CTX_H

#include <linux/fs.h>

#include "ixmod.h"

/* The distance between two regions' IXMOD_OFF_* offsets. */
#define IXM_REGION_SPAN		0x10000000ULL

static inline struct ixm_ctx *ixm_file_ctx(struct file *file)
{
	/* pairs with the release store at the end of ixm_ctx_setup() */
	return smp_load_acquire(&file->private_data);
}

/* ctx.c */
void ixm_ctx_free(struct ixm_ctx *ctx);

/* ctx_arena.c */
int ixm_ctx_map_arena(struct ixm_ctx *ctx, struct ixm_core_work *work);
void ixm_ctx_unmap_arena(struct ixm_ctx *ctx);
void ixm_ctx_wait_arena(struct ixm_ctx *ctx);
void ixm_ctx_keep_arena(struct ixm_ctx *ctx);

#endif /* _IXMOD_CTX_H */
