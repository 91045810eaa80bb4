/* SPDX-License-Identifier: GPL-2.0 */
/*
 * call.h - what an application asks of its core: calls, and the close
 *
 * Above the protocols: call.c runs a context's calls through UDP and TCP
 * and, at close, takes back what the context holds in them.  app.h (rings
 * and events) is below the protocols, which post to it.
 */
#ifndef _IXM_NET_CALL_H
#define _IXM_NET_CALL_H

#include "platform.h"
#include "app.h"

int ixm_call_check(const struct ixmod_call *c);
bool ixm_call_always_completes(u8 opcode);
int ixm_call_exec(struct ixm_app *app, const struct ixmod_call *c,
		  struct ixmod_event *ev);
unsigned int ixm_app_run_calls(struct ixm_app *app, unsigned int budget);
void ixm_app_release_all(struct ixm_app *app);
void ixm_stack_pool_gone(struct ixm_stack *st, struct ixm_mbuf_pool *pool);

#endif /* _IXM_NET_CALL_H */
