/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctx.h - what ctx.c, ctx_map.c and ctx_mem.c share about a context
 */
#ifndef _IXMOD_CTX_H
#define _IXMOD_CTX_H

#include <linux/fs.h>

#include "ixmod.h"

/* The distance between two regions' IXMOD_OFF_* offsets. */
#define IXM_REGION_SPAN		0x10000000ULL

/* ctx_mem.c */
struct ixm_ctx *ixm_ctx_alloc(u32 calls, u32 events, bool ev_ext, u32 arena);
void ixm_ctx_free(struct ixm_ctx *ctx);
int ixm_ctx_map_arena(struct ixm_ctx *ctx, struct ixm_core_work *work);
void ixm_ctx_unmap_arena(struct ixm_ctx *ctx);
void ixm_ctx_wait_arena(struct ixm_ctx *ctx);
void ixm_ctx_keep_arena(struct ixm_ctx *ctx);

#endif /* _IXMOD_CTX_H */
