// SPDX-License-Identifier: MIT
/*
 * ixev_tcp6 - ixev's TCP over IPv6 without a kernel: ixev_connect6()
 * refuses a module without IXMOD_FEAT_TCP6 and a context without
 * IXEV_F_INET6 (-EOPNOTSUPP, no call queued), and otherwise queues a
 * TCP_CONNECT with IXMOD_CALL_F_INET6, the address in addr6 and addr 0;
 * a listener's knock from an IPv6 peer reaches the accept callback with
 * addr 0 and ixev_conn_addr6() gives the peer, while an IPv4 peer's knock
 * gives its addr and ixev_conn_addr6() NULL.
 *
 * As ixev_units does, it reads the library's private header and drives
 * one struct ixev whose rings are plain memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "../src/internal.h"
#include "helpers.h"

#define NCALLS	8

/* 2001:db8::2 (RFC 3849) */
static const __u8 peer6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
static const struct ixev_conn_ops ops;

static struct ixmod_call calls[NCALLS];
static unsigned int kprod, kcons;

static struct {
	int		n;
	__be32		addr;
	__be16		port;
	const __u8	*addr6;
	struct ixev_conn *c;
} seen;

static const struct ixev_conn_ops *on_accept(struct ixev_conn *c, __be32 addr, __be16 port,
					     void *arg)
{
	(void)arg;
	seen.n++;
	seen.addr = addr;
	seen.port = port;
	seen.addr6 = ixev_conn_addr6(c);
	seen.c = c;
	return &ops;
}

/* A knock on listener 0 from @addr (IPv4) or @a6 (IPv6), as the kernel writes it. */
static void knock(struct ixev *ev, __be32 addr, const __u8 *a6, __u64 handle)
{
	struct ixmod_event_ext x;

	memset(&x, 0, sizeof(x));
	x.ev.type = IXMOD_EV_TCP_KNOCK;
	x.ev.user_data = cookie(CK_LISTENER, 0, 0);
	x.ev.handle = handle;
	x.ev.port = (IXU_FORCE __be16)htons(40000);
	x.ev.lport = (IXU_FORCE __be16)htons(7);
	if (a6) {
		x.ev.flags = IXMOD_EVF_INET6;
		memcpy(x.addr6, a6, 16);
	} else {
		x.ev.addr = addr;
	}
	memset(&seen, 0, sizeof(seen));
	ixev_listener_event(ev, &x.ev);
}

int main(void)
{
	struct listener l = { .handle = 1, .fn = on_accept };
	struct ixev ev = { 0 };
	struct ixev_conn *c = NULL;
	struct ixmod_call *call;
	__u8 a6[16];

	ev.ixu.calls = (struct ixu_ring){ .kprod = &kprod, .kcons = &kcons, .entries = calls,
					  .esize = sizeof(calls[0]), .mask = NCALLS - 1,
					  .nr = NCALLS };
	ev.ixu.events.esize = sizeof(struct ixmod_event_ext);
	ev.free_slot = ~0U;
	ev.listeners = &l;
	ev.nlisteners = 1;

	/* refusals: nothing queued */
	ev.ixu.info.features = IXMOD_FEAT_TCP | IXMOD_FEAT_INET6 | IXMOD_FEAT_TCP6;
	T_CHECK(ixev_connect6(&ev, peer6, ixu_htons(7), &ops, NULL, &c) == -EOPNOTSUPP && !c,
		"a context without IXEV_F_INET6: -EOPNOTSUPP");
	ev.ixu.setup.flags = IXMOD_SETUP_INET6 | IXMOD_SETUP_EVENT_EXT;
	ev.ixu.info.features = IXMOD_FEAT_TCP | IXMOD_FEAT_INET6;
	T_CHECK(ixev_connect6(&ev, peer6, ixu_htons(7), &ops, NULL, &c) == -EOPNOTSUPP && !c,
		"a module without IXMOD_FEAT_TCP6: -EOPNOTSUPP");
	ev.ixu.info.features |= IXMOD_FEAT_TCP6;
	T_CHECK(ixev_connect6(&ev, NULL, ixu_htons(7), &ops, NULL, &c) == -EINVAL && !c,
		"no address: -EINVAL");
	T_CHECK(ixev_connect6(&ev, peer6, ixu_htons(7), NULL, NULL, &c) == -EINVAL && !c,
		"no ops: -EINVAL");
	T_CHECK(ev.ixu.calls.cached == 0, "the refusals queued %u calls", ev.ixu.calls.cached);

	/* the call it queues; the caller's buffer is copied */
	memcpy(a6, peer6, 16);
	T_CHECK(ixev_connect6(&ev, a6, ixu_htons(7), &ops, NULL, &c) == 0 && c,
		"ixev_connect6() from an IXEV_F_INET6 context of a TCP6 module");
	memset(a6, 0, 16);
	T_CHECK(ev.ixu.calls.cached == 1, "one call queued (%u)", ev.ixu.calls.cached);
	call = &calls[0];
	T_CHECK(call->opcode == IXMOD_OP_TCP_CONNECT && call->flags == IXMOD_CALL_F_INET6,
		"TCP_CONNECT with IXMOD_CALL_F_INET6 (opcode %u, flags %#x)", call->opcode,
		call->flags);
	T_CHECK(!memcmp(call->addr6, peer6, 16) && call->addr == 0 && call->resv4 == 0,
		"addr6 the peer, addr and resv4 0");
	T_CHECK(call->port == ixu_htons(7) && call->user_data == conn_cookie(c),
		"the port, and the connection's cookie");
	T_CHECK(ixev_conn_addr6(c) && !memcmp(ixev_conn_addr6(c), peer6, 16),
		"ixev_conn_addr6() of the connection names the address connected to");
	ixev_conn_free(c);

	/* IPv4 connect: ixev_conn_addr6() NULL */
	T_CHECK(ixev_connect(&ev, (IXU_FORCE __be32)htonl(0xc0000202), ixu_htons(7), &ops,
			     NULL, &c) == 0, "ixev_connect() beside it");
	T_CHECK(!(calls[1].flags & IXMOD_CALL_F_INET6) && !ixev_conn_addr6(c),
		"an IPv4 connect: no IXMOD_CALL_F_INET6, ixev_conn_addr6() NULL");
	ixev_conn_free(c);

	/* a knock from an IPv6 peer, then one from an IPv4 peer */
	knock(&ev, 0, peer6, 77);
	T_CHECK(seen.n == 1 && seen.addr == 0 && seen.port == ixu_htons(40000),
		"an IPv6 peer's knock is offered with addr 0 and its port");
	T_CHECK(seen.addr6 && !memcmp(seen.addr6, peer6, 16),
		"ixev_conn_addr6() in the accept callback gives the peer");
	T_CHECK(seen.c && seen.c->handle == 77, "the knock's connection");
	T_CHECK(ixev_conn_addr6(seen.c) == seen.addr6, "and still after the callback");
	ixev_conn_free(seen.c);
	knock(&ev, (IXU_FORCE __be32)htonl(0xc0000202), NULL, 78);
	T_CHECK(seen.n == 1 && seen.addr == (IXU_FORCE __be32)htonl(0xc0000202) &&
		!seen.addr6, "an IPv4 peer's knock: its addr, ixev_conn_addr6() NULL");
	ixev_conn_free(seen.c);

	/* an event ring of 32-byte entries cannot carry addr6: no IPv6 peer */
	ev.ixu.events.esize = sizeof(struct ixmod_event);
	knock(&ev, 0, peer6, 79);
	T_CHECK(seen.n == 1 && !seen.addr6,
		"with 32-byte events EVF_INET6 is not believed (ixu_event_addr6())");
	ixev_conn_free(seen.c);
	free(ev.slots);
	free(ev.dirty);
	printf("ixev_connect6() refusals and call, IPv6 and IPv4 knocks\n");
	return T_EXIT_PASS;
}
