// SPDX-License-Identifier: GPL-2.0
/*
 * handle.c - handle.h's one lookup, and the three tables that use it
 *
 * ixm_slot_get() on an array of test objects first: a handle finds its
 * slot only with the right kind, an index inside the table (the object
 * just past it is set up to match, so an off-by-one shows), the slot's
 * generation and its owner; a slot given back and taken again answers
 * only its new handle, and generations skip 0.  Then the same edges
 * through udp.c's sockets and tcp.c's listeners and connections, whose
 * handles must keep their ABI values (index, kind, generation).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "handle.h"
#include "harness.h"
#include "tcp.h"
#include "udp.h"

#define NOBJ	5
#define GEN	7u

struct obj {
	union {
		struct ixm_slot		slot;
		struct {
			struct ixm_app	*app;
			u32		gen;
		};
	};
	u32 payload;
};

/* NOBJ objects in the table, and one past its end set up to match */
static struct obj objs[NOBJ + 1];
static struct ixm_app app_a, app_b;

static const struct ixm_slot_table *udp_objs(void)
{
	static struct ixm_slot_table t;

	t = (struct ixm_slot_table){ objs, sizeof(objs[0]), NOBJ, IXMOD_HANDLE_UDP };
	return &t;
}

static void objs_init(void)
{
	unsigned int i;

	IXM_SLOT_CHECK(struct obj);
	for (i = 0; i <= NOBJ; i++) {
		ixm_slot_init(&objs[i].slot, GEN);
		objs[i].app = &app_a;
		objs[i].payload = i;
	}
}

static struct obj *get(const struct ixm_slot_table *t, const struct ixm_app *app, u64 h)
{
	struct ixm_slot *s = ixm_slot_get(t, app, h);

	return s ? container_of(s, struct obj, slot) : NULL;
}

TEST(handle_slot_found)
{
	unsigned int i;

	objs_init();
	for (i = 0; i < NOBJ; i++) {
		u64 h = ixm_handle(IXMOD_HANDLE_UDP, i, GEN);
		struct obj *o = get(udp_objs(), &app_a, h);

		ASSERT_NE(NULL, o) TH_LOG("slot %u, its kind, generation and owner", i);
		EXPECT_EQ(i, o->payload);
		EXPECT_EQ(&o->slot, &objs[i].slot);
		EXPECT_EQ(&app_a, o->slot.app) TH_LOG("slot.app and app are one field");
		EXPECT_EQ(GEN, o->slot.gen);
	}
	EXPECT_EQ(0x0000000701000003ull, ixm_handle(IXMOD_HANDLE_UDP, 3, GEN)) {
		TH_LOG("the ABI: generation in bits 32-63, kind in 24-31, index in 0-23");
	}
}

TEST(handle_wrong_kind)
{
	unsigned int k;

	objs_init();
	for (k = 0; k < 256; k++) {
		u64 h = ixm_handle(k, 1, GEN);

		if (k == IXMOD_HANDLE_UDP)
			continue;
		EXPECT_EQ(NULL, get(udp_objs(), &app_a, h)) {
			TH_LOG("kind %u on a table of kind %u: refused", k, IXMOD_HANDLE_UDP);
		}
	}
	EXPECT_NE(NULL, get(udp_objs(), &app_a, ixm_handle(IXMOD_HANDLE_UDP, 1, GEN)));
}

TEST(handle_out_of_range)
{
	static const u32 idx[] = {
		NOBJ,			/* the first past the end (set up to match) */
		NOBJ + 1,
		IXM_HANDLE_IDX_MASK,	/* the largest index a handle holds */
	};
	unsigned int i;

	objs_init();
	for (i = 0; i < ARRAY_SIZE(idx); i++) {
		EXPECT_EQ(NULL, get(udp_objs(), &app_a, ixm_handle(IXMOD_HANDLE_UDP, idx[i], GEN))) {
			TH_LOG("index %u of a table of %u: refused", idx[i], NOBJ);
		}
	}
	EXPECT_NE(NULL, get(udp_objs(), &app_a, ixm_handle(IXMOD_HANDLE_UDP, NOBJ - 1, GEN))) {
		TH_LOG("the last index in range is found");
	}
}

TEST(handle_stale_generation)
{
	static const u32 gens[] = { 0, GEN - 1, GEN + 1, GEN ^ 0x80000000u, ~GEN };
	unsigned int i;

	objs_init();
	for (i = 0; i < ARRAY_SIZE(gens); i++) {
		EXPECT_EQ(NULL, get(udp_objs(), &app_a, ixm_handle(IXMOD_HANDLE_UDP, 2, gens[i]))) {
			TH_LOG("generation %#x for a slot at %#x: refused", gens[i], GEN);
		}
	}
}

TEST(handle_owner)
{
	u64 h = ixm_handle(IXMOD_HANDLE_UDP, 2, GEN);

	objs_init();
	EXPECT_EQ(NULL, get(udp_objs(), &app_b, h)) TH_LOG("another context's slot: refused");
	objs[2].app = NULL;
	EXPECT_EQ(NULL, get(udp_objs(), &app_a, h)) TH_LOG("a free slot: refused");
	EXPECT_EQ(NULL, get(udp_objs(), NULL, h)) TH_LOG("a free slot, asked without a context");
}

TEST(handle_reuse)
{
	u64 old = ixm_handle(IXMOD_HANDLE_UDP, 4, GEN), h;

	objs_init();
	ixm_slot_put(&objs[4].slot);
	EXPECT_EQ(NULL, objs[4].app);
	EXPECT_EQ(NULL, get(udp_objs(), &app_a, old)) TH_LOG("given back: its handle is stale");
	objs[4].app = &app_a;
	EXPECT_EQ(NULL, get(udp_objs(), &app_a, old)) TH_LOG("taken again: the old handle stays stale");
	h = ixm_handle(IXMOD_HANDLE_UDP, 4, objs[4].gen);
	EXPECT_NE(old, h);
	EXPECT_EQ(&objs[4], get(udp_objs(), &app_a, h)) TH_LOG("the new handle finds it");

	objs[4].gen = 0xffffffffu;
	ixm_slot_put(&objs[4].slot);
	EXPECT_EQ(1, objs[4].gen) TH_LOG("the generation after 2^32 - 1 is 1, never 0");
	ixm_slot_init(&objs[4].slot, 0);
	EXPECT_EQ(1, objs[4].gen) TH_LOG("a first generation of 0 is taken as 1");
}

/* UDP sockets: the values handles had, and the same edges through udp.c */
TEST(handle_udp_socks)
{
	struct ixm_udp_table *t = calloc(1, sizeof(*t));
	u64 h, h2;

	ASSERT_NE(NULL, t);
	ixm_udp_table_init(t, GEN);
	ASSERT_EQ(0, ixm_udp_bind(t, &app_a, 7000, 1, &h));
	EXPECT_EQ(ixm_handle(IXMOD_HANDLE_UDP, 0, GEN), h) TH_LOG("slot 0, first generation");
	EXPECT_EQ(&t->socks[0], ixm_udp_sock_get(t, &app_a, h));
	EXPECT_EQ(NULL, ixm_udp_sock_get(t, &app_b, h)) TH_LOG("another context's");
	EXPECT_EQ(NULL, ixm_udp_sock_get(t, &app_a, ixm_handle(IXMOD_HANDLE_TCP, 0, GEN)));
	EXPECT_EQ(NULL, ixm_udp_sock_get(t, &app_a, ixm_handle(IXMOD_HANDLE_LISTENER, 0, GEN)));
	EXPECT_EQ(NULL, ixm_udp_sock_get(t, &app_a, ixm_handle(IXMOD_HANDLE_UDP, 0, GEN + 1)));
	t->socks[IXM_UDP_SOCKS - 1].app = &app_a;
	t->socks[IXM_UDP_SOCKS - 1].gen = GEN;
	EXPECT_NE(NULL, ixm_udp_sock_get(t, &app_a,
					 ixm_handle(IXMOD_HANDLE_UDP, IXM_UDP_SOCKS - 1, GEN)));
	EXPECT_EQ(NULL, ixm_udp_sock_get(t, &app_a,
					 ixm_handle(IXMOD_HANDLE_UDP, IXM_UDP_SOCKS, GEN)));
	t->socks[IXM_UDP_SOCKS - 1].app = NULL;
	EXPECT_EQ(0, ixm_udp_close(t, &app_a, h));
	EXPECT_EQ(-EBADF, ixm_udp_close(t, &app_a, h)) TH_LOG("closed: stale");
	ASSERT_EQ(0, ixm_udp_bind(t, &app_a, 7001, 2, &h2));
	EXPECT_EQ(ixm_handle(IXMOD_HANDLE_UDP, 0, GEN + 1), h2) TH_LOG("slot 0 again, next generation");
	EXPECT_EQ(NULL, ixm_udp_sock_get(t, &app_a, h));
	EXPECT_EQ(-EBADF, ixm_udp_close(t, &app_b, h2));
	EXPECT_EQ(0, ixm_udp_close(t, &app_a, h2));
	free(t);
}

/* TCP listeners and connections, each kind refusing the other's handles */
TEST(handle_tcp_conns_and_listeners)
{
	struct ixm_tcp_table *t = calloc(1, sizeof(*t));
	u64 secret[4] = { 1, 2, (u64)(GEN + 100) << 32 | GEN, 4 };
	struct ixm_tcp_config cfg;
	struct ixm_stack st = { 0 };
	struct ixm_tcp_pos nopos = { 0 };
	struct ixm_tcp_conn *c;
	u64 hl, hl2, hc, hc2;
	u32 idx;

	ASSERT_NE(NULL, t);
	ixm_tcp_config_default(&cfg);
	ixm_tcp_table_init(t, &st, &cfg, secret);
	ASSERT_EQ(0, ixm_tcp_listen(t, &app_a, ixm_htons(80), 4, 1, &hl));
	EXPECT_EQ(ixm_handle(IXMOD_HANDLE_LISTENER, 0, GEN + 100), hl);
	EXPECT_EQ(&t->listeners[0], ixm_tcp_listener_get(t, &app_a, hl));
	EXPECT_EQ(NULL, ixm_tcp_listener_get(t, &app_b, hl));
	EXPECT_EQ(NULL, ixm_tcp_listener_get(t, &app_a, ixm_handle(IXMOD_HANDLE_TCP, 0, GEN + 100)));
	EXPECT_EQ(NULL, ixm_tcp_listener_get(t, &app_a,
					     ixm_handle(IXMOD_HANDLE_LISTENER, IXM_TCP_LISTENERS,
							GEN + 100)));

	c = ixm_tcp_conn_alloc(t, ixm_htonl(0xc6120001u), ixm_htons(80),
			       ixm_htonl(0xc6120002u), ixm_htons(40000));
	ASSERT_NE(NULL, c);
	c->app = &app_a;
	idx = ixm_tcp_idx(c);
	hc = ixm_tcp_handle(c);
	EXPECT_EQ(ixm_handle(IXMOD_HANDLE_TCP, idx, GEN), hc);
	EXPECT_EQ(c, ixm_tcp_conn_get(t, &app_a, hc));
	EXPECT_EQ(NULL, ixm_tcp_conn_get(t, &app_b, hc));
	EXPECT_EQ(NULL, ixm_tcp_conn_get(t, &app_a, ixm_handle(IXMOD_HANDLE_LISTENER, idx, GEN)));
	EXPECT_EQ(NULL, ixm_tcp_conn_get(t, &app_a, ixm_handle(IXMOD_HANDLE_TCP, idx, GEN + 1)));
	EXPECT_EQ(NULL, ixm_tcp_conn_get(t, &app_a,
					 ixm_handle(IXMOD_HANDLE_TCP, IXM_TCP_CONNS, GEN)));
	EXPECT_EQ(NULL, ixm_tcp_listener_get(t, &app_a, hc)) TH_LOG("a connection is no listener");
	c->flags |= IXM_TCPF_CLOSED_APP;
	EXPECT_EQ(NULL, ixm_tcp_conn_get(t, &app_a, hc)) TH_LOG("closed by its application");
	c->flags &= ~IXM_TCPF_CLOSED_APP;

	ixm_tcp_conn_free(c);
	EXPECT_EQ(NULL, ixm_tcp_conn_get(t, &app_a, hc)) TH_LOG("freed: stale");
	c = ixm_tcp_conn_alloc(t, ixm_htonl(0xc6120001u), ixm_htons(80),
			       ixm_htonl(0xc6120002u), ixm_htons(40001));
	ASSERT_NE(NULL, c);
	c->app = &app_a;
	hc2 = ixm_tcp_handle(c);
	EXPECT_EQ(ixm_handle(IXMOD_HANDLE_TCP, idx, GEN + 1), hc2) TH_LOG("the slot again, next generation");
	EXPECT_EQ(NULL, ixm_tcp_conn_get(t, &app_a, hc));
	EXPECT_EQ(c, ixm_tcp_conn_get(t, &app_a, hc2));
	ixm_tcp_conn_free(c);

	EXPECT_EQ(-EBADF, ixm_tcp_close(t, &app_b, hl, false, &nopos));
	EXPECT_EQ(0, ixm_tcp_close(t, &app_a, hl, false, &nopos));
	EXPECT_EQ(-EBADF, ixm_tcp_close(t, &app_a, hl, false, &nopos)) TH_LOG("closed: stale");
	ASSERT_EQ(0, ixm_tcp_listen(t, &app_a, ixm_htons(80), 4, 1, &hl2));
	EXPECT_EQ(ixm_handle(IXMOD_HANDLE_LISTENER, 0, GEN + 101), hl2);
	EXPECT_EQ(NULL, ixm_tcp_listener_get(t, &app_a, hl));
	EXPECT_EQ(0, ixm_tcp_close(t, &app_a, hl2, false, &nopos));
	free(t);
}

TEST_HARNESS_MAIN
