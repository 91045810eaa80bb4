// SPDX-License-Identifier: GPL-2.0
/*
 * call.c - application calls and events: call.c's validator, app.c's
 * rings and hold-back queue, udp.c's sockets, zero-copy receive and send
 *
 * ixm_call_check() first, on its own: every opcode with its fields set
 * passes, an unknown opcode is -EOPNOTSUPP, and an unknown flag bit, a
 * non-zero reserved word or a non-zero field the opcode does not use is
 * -EINVAL, one at a time.
 *
 * Then a context as ctx.c sets one up, with the regions in plain memory
 * (testnet.h's host and application): the test is the application.  It
 * writes calls into the call ring and publishes them, the dataplane's
 * side runs ixm_app_run_calls() and ixm_app_flush(), and the test reads
 * the events back.  One port, 198.18.0.1/24 (RFC 2544's benchmarking
 * range), whose pool is receive slice 0, so an event's off is checked by
 * reading the payload in the buffer it names.  Datagrams arrive through ixm_eth_input(), built byte by
 * byte; datagrams sent are compared byte for byte with frames built from
 * RFC 768 and RFC 791, checksums from ref.h.  Also: a full event ring
 * (held events, then drops), indices the application lies about, a full
 * TX batch (the call stays in the ring), two contexts on one core, and
 * ixm_app_release_all().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "csum.h"
#include "frames.h"
#include "harness.h"
#include "tcp.h"
#include "testnet.h"
#include "udp.h"

#define LOCAL_IP	0xc6120001u	/* 198.18.0.1, host order */
#define REMOTE_IP	0xc6120002u	/* 198.18.0.2, learned by ARP */
#define REMOTE2_IP	0xc6120003u	/* 198.18.0.3, never answers */
#define ARENA_SIZE	65536u
#define PAYLOAD_MAX	1472u

/* One context on a core with one port: the harness's host and application. */
struct ctx {
	struct tn_host	*h;
	struct tn_app	*a;
	bool		shared;	/* @h belongs to another ctx */
};

static void ctx_init(struct ctx *c, u32 call_nr, u32 event_nr)
{
	struct tn_host_cfg hc = {
		.ip = LOCAL_IP, .prefix = 24, .mac = our_mac,
	};

	ixm_host_now_ns = 1000000000ULL;
	c->h = tn_host_new(&hc);
	c->a = tn_app_new(c->h, call_nr, event_nr, ARENA_SIZE);
	c->shared = false;
}

static void ctx_fini(struct ctx *c)
{
	if (c->shared)
		tn_app_free(c->a);
	else
		tn_host_free(c->h);
}

static u32 ctx_flags(struct ctx *c)
{
	return __atomic_load_n(tn_ring_word(c->a->events, IXM_RING_OFF_FLAGS),
			       __ATOMIC_RELAXED);
}

static struct ixmod_call call_bind(u16 port, u64 user_data)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_UDP_BIND, .user_data = user_data,
		.port = ixm_htons(port),
	};

	return c;
}

/* With IXMOD_CALL_F_NOTIFY, so that success is answered too. */
static struct ixmod_call call_send(u64 handle, u32 off, u32 len, u32 addr, u16 port)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_UDP_SEND, .flags = IXMOD_CALL_F_NOTIFY,
		.user_data = 0x5e4d0000u + len, .handle = handle, .off = off,
		.len = len, .addr = be32_of(addr), .port = ixm_htons(port),
	};

	return c;
}

static struct ixmod_call call_recv_done(u32 off)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_RECV_DONE, .flags = IXMOD_CALL_F_NOTIFY,
		.user_data = 0xd0e, .off = off,
	};

	return c;
}

static struct ixmod_call call_close(u64 handle)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_UDP_CLOSE, .flags = IXMOD_CALL_F_NOTIFY,
		.user_data = 0xc105e, .handle = handle,
	};

	return c;
}

/* Bind @port; returns the res and the handle. */
static int ctx_bind(struct ctx *c, u16 port, u64 cookie, u64 *handle)
{
	struct ixmod_call call = call_bind(port, cookie);
	struct ixmod_event ev;
	int res = tn_app_call(c->a, &call, &ev);

	*handle = ev.handle;
	return res;
}

/* RFC 768: the checksum over pseudo-header and datagram @u of @ulen bytes. */
static u16 ref_udp_csum(u32 src, u32 dst, const u8 *u, size_t ulen)
{
	static u8 buf[12 + 65536];

	put32(buf, src);
	put32(buf + 4, dst);
	buf[8] = 0;
	buf[9] = 17;
	put16(buf + 10, (unsigned int)ulen);
	memcpy(buf + 12, u, ulen);
	return ref_csum(buf, 12 + ulen);
}

/*
 * A UDP datagram in a frame, from @src_mac/@src:@sport to @dst_mac/@dst:
 * @dport, IP ID @id, TTL @ttl, DF set, with a correct checksum (0xffff for
 * a computed 0); returns the frame length.
 */
static size_t udp_frame(u8 *f, const u8 *dst_mac, const u8 *src_mac, u32 src,
			u16 sport, u32 dst, u16 dport, u16 id, u8 ttl,
			const u8 *data, size_t n)
{
	struct iph_args a = {
		.id = id, .frag = 0x4000, .ttl = ttl, .proto = 17,
		.src = src, .dst = dst,
	};
	u8 *u = put_ip(put_eth(f, dst_mac, src_mac, 0x0800), &a, 8 + n);
	u16 ck;

	put16(u, sport);
	put16(u + 2, dport);
	put16(u + 4, 8 + n);
	put16(u + 6, 0);
	if (n)
		memcpy(u + 8, data, n);
	ck = ref_udp_csum(src, dst, u, 8 + n);
	put16(u + 6, ck ? ck : 0xffff);
	return 14 + 20 + 8 + n;
}

/* A datagram from the remote host to us. */
static size_t udp_in_frame(u8 *f, u16 sport, u16 dport, const u8 *data, size_t n)
{
	return udp_frame(f, our_mac, peer_mac, REMOTE_IP, sport, LOCAL_IP, dport,
			 0x1234, 64, data, n);
}

static void pattern(u8 *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (u8)(i * 13 + seed * 7 + 1);
}

/*
 * ixm_call_check()
 */

/* Which argument fields each opcode uses, as the header documents them. */
enum { F_LEN = 1, F_HANDLE = 2, F_OFF = 4, F_ADDR = 8, F_PORT = 16 };

static const struct {
	u8 op;
	const char *name;
	unsigned int fields;
} ops[] = {
	{ IXMOD_OP_NOP, "NOP", 0 },
	{ IXMOD_OP_UDP_BIND, "UDP_BIND", F_PORT },
	{ IXMOD_OP_UDP_SEND, "UDP_SEND", F_LEN | F_HANDLE | F_OFF | F_ADDR | F_PORT },
	{ IXMOD_OP_RECV_DONE, "RECV_DONE", F_OFF },
	{ IXMOD_OP_UDP_CLOSE, "UDP_CLOSE", F_HANDLE },
	{ IXMOD_OP_TCP_LISTEN, "TCP_LISTEN", F_PORT | F_LEN },
	{ IXMOD_OP_TCP_ACCEPT, "TCP_ACCEPT", F_HANDLE },
	{ IXMOD_OP_TCP_CONNECT, "TCP_CONNECT", F_ADDR | F_PORT },
	{ IXMOD_OP_TCP_SENDV, "TCP_SENDV", F_HANDLE | F_OFF | F_LEN },
	{ IXMOD_OP_TCP_RECV_DONE, "TCP_RECV_DONE", F_HANDLE | F_LEN },
	{ IXMOD_OP_TCP_CLOSE, "TCP_CLOSE", F_HANDLE },
	{ IXMOD_OP_TCP_SEND, "TCP_SEND", F_HANDLE | F_OFF | F_LEN },
	{ IXMOD_OP_TCP_SHUTDOWN, "TCP_SHUTDOWN", F_HANDLE },
};

/* @op's call with every field it uses set to @v (1, all ones, ...). */
static struct ixmod_call full_call(unsigned int i, u64 v, u8 flags)
{
	struct ixmod_call c;

	memset(&c, 0, sizeof(c));
	c.opcode = ops[i].op;
	c.flags = flags;
	c.user_data = ~v;
	if (ops[i].fields & F_LEN)
		c.len = (u32)v;
	if (ops[i].fields & F_HANDLE)
		c.handle = v;
	if (ops[i].fields & F_OFF)
		c.off = (u32)v;
	if (ops[i].fields & F_ADDR)
		c.addr = (u32)v;
	if (ops[i].fields & F_PORT)
		c.port = (u16)v;
	return c;
}

static const u64 values[] = { 0, 1, 0x80, 0x8000, 0x80000000u, 0x8000000000000000ULL, ~0ULL };

TEST(call_check_valid)
{
	unsigned int i, v, f;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		bool ok = true;

		for (v = 0; v < ARRAY_SIZE(values); v++) {
			for (f = 0; f <= IXMOD_CALL_F_NOTIFY; f += IXMOD_CALL_F_NOTIFY) {
				struct ixmod_call c = full_call(i, values[v], (u8)f);
				int res = ixm_call_check(&c);

				if (res) {
					TH_LOG("%s value %llx flags %u: %d", ops[i].name,
					       values[v], f, res);
					ok = false;
				}
			}
		}
		EXPECT_TRUE(ok) {
			TH_LOG("%s with its fields set, any user_data, flags 0 or NOTIFY: passes",
			       ops[i].name);
		}
	}
	EXPECT_EQ(IXM_OP_NR, ARRAY_SIZE(ops)) TH_LOG("the table names every opcode taken");
	EXPECT_EQ(64, sizeof(struct ixmod_call)) TH_LOG("struct ixmod_call is 64 bytes");
	EXPECT_EQ(32, sizeof(struct ixmod_event)) TH_LOG("struct ixmod_event is 32 bytes");
}

/* The calls IXMOD_CALL_F_POS applies to take it, with any @pos, and NOTIFY. */
TEST(call_check_pos)
{
	static const u8 pos_ops[] = {
		IXMOD_OP_TCP_SENDV, IXMOD_OP_TCP_CLOSE, IXMOD_OP_TCP_SEND, IXMOD_OP_TCP_SHUTDOWN,
	};
	unsigned int i, k, v;
	bool ok = true;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		for (k = 0; k < ARRAY_SIZE(pos_ops) && pos_ops[k] != ops[i].op; k++)
			;
		if (k == ARRAY_SIZE(pos_ops))
			continue;
		for (v = 0; v < ARRAY_SIZE(values); v++) {
			struct ixmod_call c;

			c = full_call(i, 1, IXMOD_CALL_F_POS | IXMOD_CALL_F_NOTIFY);

			c.pos = (u32)values[v];
			if (ixm_call_check(&c)) {
				TH_LOG("%s: IXMOD_CALL_F_POS, pos %x refused", ops[i].name, c.pos);
				ok = false;
			}
		}
	}
	EXPECT_TRUE(ok) TH_LOG("TCP_SEND(V), TCP_CLOSE, TCP_SHUTDOWN: F_POS with any pos passes");
}

TEST(call_check_opcode)
{
	unsigned int op;
	bool ok = true;

	for (op = IXM_OP_NR; op <= 255; op++) {
		struct ixmod_call c;

		memset(&c, 0, sizeof(c));
		c.opcode = (u8)op;
		if (ixm_call_check(&c) != -EOPNOTSUPP)
			ok = false;
		/* even with other faults, the opcode is what is reported */
		c.flags = 0x80;
		c.pos = 1;
		c.len = 1;
		if (ixm_call_check(&c) != -EOPNOTSUPP)
			ok = false;
	}
	EXPECT_TRUE(ok) TH_LOG("opcodes IXM_OP_NR (%d) to 255: -EOPNOTSUPP", IXM_OP_NR);
}

TEST(call_check_flags)
{
	unsigned int i, bit;
	bool ok = true;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		for (bit = 0; bit < 8; bit++) {
			struct ixmod_call c = full_call(i, 1, 0);

			if ((1u << bit) == IXMOD_CALL_F_NOTIFY ||
			    ((1u << bit) == IXMOD_CALL_F_ABORT &&
			     ops[i].op == IXMOD_OP_TCP_CLOSE) ||
			    ((1u << bit) == IXMOD_CALL_F_POS &&
			     (ops[i].op == IXMOD_OP_TCP_SEND || ops[i].op == IXMOD_OP_TCP_SENDV ||
			      ops[i].op == IXMOD_OP_TCP_CLOSE ||
			      ops[i].op == IXMOD_OP_TCP_SHUTDOWN)))
				continue;
			c.flags = (u8)(1u << bit);
			if (ixm_call_check(&c) != -EINVAL) {
				TH_LOG("%s flag bit %u accepted", ops[i].name, bit);
				ok = false;
			}
			c.flags |= IXMOD_CALL_F_NOTIFY;
			if (ixm_call_check(&c) != -EINVAL)
				ok = false;
		}
	}
	EXPECT_TRUE(ok) {
		TH_LOG("each unknown flag bit (1-7), alone or with NOTIFY: -EINVAL for every opcode");
	}
}

enum { R0, R1, R2, R3_0, R3_1, R3_2, R_NR };

static const char * const resv_names[R_NR] = {
	"resv0", "resv1", "pos (without IXMOD_CALL_F_POS)", "resv3[0]", "resv3[1]", "resv3[2]",
};

static void set_resv(struct ixmod_call *c, unsigned int r, u64 v)
{
	switch (r) {
	case R0:
		c->resv0 = (u16)v;
		break;
	case R1:
		c->resv1 = (u16)v;
		break;
	case R2:
		c->pos = (u32)v;
		break;
	default:
		c->resv3[r - R3_0] = v;
		break;
	}
}

TEST(call_check_reserved)
{
	unsigned int r, i, v;

	for (r = 0; r < R_NR; r++) {
		bool ok = true;

		for (i = 0; i < ARRAY_SIZE(ops); i++) {
			for (v = 1; v < ARRAY_SIZE(values); v++) {
				struct ixmod_call c = full_call(i, 1, IXMOD_CALL_F_NOTIFY);
				u64 val = values[v];

				/* a value the field can hold, not truncated to 0 */
				if (r <= R1)
					val = (val & 0xffff) ? val : 0x8000;
				else if (r == R2)
					val = (val & 0xffffffff) ? val : 0x80000000u;
				set_resv(&c, r, val);
				if (ixm_call_check(&c) != -EINVAL) {
					TH_LOG("%s: %s = %llx accepted", ops[i].name,
					       resv_names[r], val);
					ok = false;
				}
			}
		}
		EXPECT_TRUE(ok) TH_LOG("%s non-zero: -EINVAL for every opcode", resv_names[r]);
	}
}

TEST(call_check_unused)
{
	static const char * const fname[5] = { "len", "handle", "off", "addr", "port" };
	unsigned int i, f, v;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		bool ok = true;
		int tried = 0;

		for (f = 0; f < 5; f++) {
			if (ops[i].fields & (1u << f))
				continue;
			for (v = 1; v < ARRAY_SIZE(values); v++) {
				struct ixmod_call c = full_call(i, 1, 0);
				u64 val = values[v];

				switch (1u << f) {
				case F_LEN:
					c.len = (u32)val ? (u32)val : 0x80000000u;
					break;
				case F_HANDLE:
					c.handle = val;
					break;
				case F_OFF:
					c.off = (u32)val ? (u32)val : 0x80000000u;
					break;
				case F_ADDR:
					c.addr = (u32)val ? (u32)val : 0x80000000u;
					break;
				case F_PORT:
					c.port = (u16)val ? (u16)val : 0x8000;
					break;
				}
				tried++;
				if (ixm_call_check(&c) != -EINVAL) {
					TH_LOG("%s: unused %s = %llx accepted", ops[i].name,
					       fname[f], val);
					ok = false;
				}
			}
		}
		ASSERT_TRUE(ok);
		EXPECT_TRUE(tried || ops[i].fields == 0x1f) {
			TH_LOG("%s: each field it does not use, non-zero: -EINVAL", ops[i].name);
		}
	}
}

/*
 * Calls through the ring
 */

TEST(call_nop)
{
	struct ixmod_call call = { .opcode = IXMOD_OP_NOP, .user_data = 0x0123456789abcdefULL };
	struct ixmod_event ev;
	struct ctx c;
	int res;

	ctx_init(&c, 16, 16);
	res = tn_app_call(c.a, &call, &ev);
	EXPECT_EQ(0, res);
	EXPECT_EQ(IXMOD_EV_CALL, ev.type);
	EXPECT_EQ(IXMOD_OP_NOP, ev.op);
	EXPECT_EQ(0x0123456789abcdefULL, ev.user_data);
	EXPECT_FALSE(ev.flags);
	EXPECT_FALSE(ev.handle);
	EXPECT_FALSE(ev.addr);
	EXPECT_FALSE(ev.port);
	EXPECT_FALSE(ev.lport) TH_LOG("NOP completes with res 0 and echoes user_data");
	EXPECT_EQ(1, *tn_ring_word(c.a->calls, IXM_RING_OFF_CONS));
	EXPECT_EQ(1, c.a->app.stats.calls);
	EXPECT_EQ(1, c.a->app.stats.events);
	EXPECT_FALSE(c.a->app.stats.call_errors) {
		TH_LOG("the call ring's consumer index moved; calls and events counted");
	}

	call.pos = 7;
	call.user_data = 42;
	res = tn_app_call(c.a, &call, &ev);
	EXPECT_EQ(-EINVAL, res);
	EXPECT_EQ(IXMOD_OP_NOP, ev.op);
	EXPECT_EQ(42, ev.user_data);
	EXPECT_EQ(1, c.a->app.stats.call_errors) {
		TH_LOG("a call with a reserved word set is answered -EINVAL and counted");
	}
	memset(&call, 0, sizeof(call));
	call.opcode = 200;
	call.user_data = 43;
	res = tn_app_call(c.a, &call, &ev);
	EXPECT_EQ(-EOPNOTSUPP, res);
	EXPECT_EQ(200, ev.op);
	EXPECT_EQ(43, ev.user_data) {
		TH_LOG("opcode 200 is answered -EOPNOTSUPP, the opcode echoed as written");
	}
	ctx_fini(&c);
}

TEST(call_bind_port)
{
	struct ixmod_call call;
	struct ixmod_event ev;
	u64 h1, h2;
	struct ctx c;
	int res;

	ctx_init(&c, 16, 16);
	call = call_bind(7000, 0xc00c1e);
	res = tn_app_call(c.a, &call, &ev);
	h1 = ev.handle;
	EXPECT_EQ(0, res);
	EXPECT_EQ(IXMOD_OP_UDP_BIND, ev.op);
	EXPECT_EQ(0xc00c1e, ev.user_data);
	EXPECT_NE(0, ixm_handle_gen(h1));
	EXPECT_EQ(1, c.h->udp->count) {
		TH_LOG("UDP_BIND 7000 completes with a handle (generation %u, index %u)",
		       ixm_handle_gen(h1), ixm_handle_idx(h1));
	}
	EXPECT_EQ(-EADDRINUSE, ctx_bind(&c, 7000, 1, &h2)) {
		TH_LOG("a second bind of port 7000: -EADDRINUSE");
	}
	EXPECT_EQ(-EINVAL, ctx_bind(&c, 0, 1, &h2)) TH_LOG("a bind of port 0: -EINVAL");
	EXPECT_EQ(0, ctx_bind(&c, 7001, 2, &h2));
	EXPECT_NE(h1, h2);
	EXPECT_EQ(2, c.h->udp->count) TH_LOG("port 7001 gets a different handle");
	ctx_fini(&c);
}

TEST(call_send_errors)
{
	static const struct {
		u32 off, len, addr;
		u16 port;
		int res;
		const char *what;
	} cases[] = {
		{ ARENA_SIZE - 10, 11, REMOTE_IP, 9, -EINVAL, "off + len one past the arena" },
		{ ARENA_SIZE, 1, REMOTE_IP, 9, -EINVAL, "off at the arena's end, len 1" },
		{ 0x80000000u, 1, REMOTE_IP, 9, -EINVAL, "off far past the arena" },
		{ 0xffffffffu, 2, REMOTE_IP, 9, -EINVAL, "off + len overflowing u32" },
		{ 0xfffffc00u, 0x400, REMOTE_IP, 9, -EINVAL, "off + len exactly 2^32" },
		{ 0, PAYLOAD_MAX + 1, REMOTE_IP, 9, -EMSGSIZE, "len 1473" },
		{ 0, 0xffffffffu, REMOTE_IP, 9, -EMSGSIZE, "len 0xffffffff" },
		{ 0, 8, 0, 9, -EINVAL, "destination 0.0.0.0" },
		{ 0, 8, 0x00010203u, 9, -EINVAL, "destination 0.1.2.3" },
		{ 0, 8, 0xffffffffu, 9, -EINVAL, "destination 255.255.255.255" },
		{ 0, 8, 0xe0000001u, 9, -EINVAL, "destination 224.0.0.1" },
		{ 0, 8, 0xefffffffu, 9, -EINVAL, "destination 239.255.255.255" },
		{ 0, 8, LOCAL_IP, 9, -EINVAL, "destination our own address" },
		{ 0, 8, 0x7f000001u, 9, -EINVAL, "destination 127.0.0.1" },
		{ 0, 8, 0xf0000001u, 9, -EINVAL, "destination 240.0.0.1 (class E)" },
		{ 0, 8, (LOCAL_IP & ~0xffu) | 0xff, 9, -EINVAL,
		  "destination our /24's broadcast" },
		{ 0, 8, REMOTE_IP, 0, -EINVAL, "destination port 0" },
		{ 0, 8, 0x0a000001u, 9, -ENETUNREACH, "destination 10.0.0.1, off every subnet" },
	};
	struct ixmod_call call;
	struct ixmod_event ev;
	u64 h, h2;
	struct ctx c;
	unsigned int i;
	bool ok = true;

	ctx_init(&c, 16, 16);
	tn_learn(c.h, REMOTE_IP, peer_mac);
	ctx_bind(&c, 7000, 1, &h);

	call = call_send(ixm_handle(IXMOD_HANDLE_UDP, ixm_handle_idx(h) + 1, ixm_handle_gen(h)),
			 0, 8, REMOTE_IP, 9);
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("UDP_SEND with the next index (a free slot): -EBADF");
	}
	call.handle = ixm_handle(IXMOD_HANDLE_UDP, IXM_UDP_SOCKS, ixm_handle_gen(h));
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("UDP_SEND with index IXM_UDP_SOCKS: -EBADF");
	}
	call.handle = ixm_handle(IXMOD_HANDLE_UDP, IXM_HANDLE_IDX_MASK, ixm_handle_gen(h));
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("UDP_SEND with index 2^24-1: -EBADF");
	}
	call.handle = (u64)ixm_handle_gen(h) << 32 | 0xffffffffu;
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("UDP_SEND with low word 2^32-1 (kind 255): -EBADF");
	}
	call.handle = h & ~((u64)0xff << IXMOD_HANDLE_KIND_SHIFT);
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("UDP_SEND with the socket's handle, kind cleared: -EBADF");
	}
	call.handle = ixm_handle(IXMOD_HANDLE_UDP, ixm_handle_idx(h), ixm_handle_gen(h) + 1);
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("UDP_SEND with the wrong generation: -EBADF");
	}
	call.handle = ixm_handle(IXMOD_HANDLE_UDP, ixm_handle_idx(h), 0);
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("UDP_SEND with generation 0: -EBADF");
	}

	ctx_bind(&c, 7001, 2, &h2);
	call = call_close(h2);
	EXPECT_EQ(0, tn_app_call(c.a, &call, &ev));
	EXPECT_EQ(IXMOD_OP_UDP_CLOSE, ev.op);
	EXPECT_EQ(0xc105e, ev.user_data);
	EXPECT_EQ(1, c.h->udp->count) TH_LOG("UDP_CLOSE of the second socket: res 0");
	call = call_send(h2, 0, 8, REMOTE_IP, 9);
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("UDP_SEND on the closed socket's handle (stale generation): -EBADF");
	}
	call = call_close(h2);
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) TH_LOG("a second UDP_CLOSE: -EBADF");
	ctx_bind(&c, 7002, 3, &call.handle);
	EXPECT_EQ(ixm_handle_idx(h2), ixm_handle_idx(call.handle));
	EXPECT_NE(ixm_handle_gen(h2), ixm_handle_gen(call.handle)) {
		TH_LOG("the slot is reused under a new generation");
	}
	call = call_send(h2, 0, 8, REMOTE_IP, 9);
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("the old handle does not reach the slot's new socket");
	}

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int res;

		call = call_send(h, cases[i].off, cases[i].len, cases[i].addr, cases[i].port);
		res = tn_app_call(c.a, &call, &ev);
		if (res != cases[i].res || ev.op != IXMOD_OP_UDP_SEND ||
		    ev.user_data != call.user_data) {
			TH_LOG("%s: res %d, want %d", cases[i].what, res, cases[i].res);
			ok = false;
		}
	}
	EXPECT_TRUE(ok) {
		TH_LOG("%zu bad lengths, offsets and destinations: -EINVAL or -EMSGSIZE",
		       ARRAY_SIZE(cases));
	}
	EXPECT_FALSE(c.h->port.ntx);
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree);
	EXPECT_FALSE(c.h->stats.udp_out) TH_LOG("no refused call queued a frame or kept a buffer");
	EXPECT_EQ(10 + ARRAY_SIZE(cases), c.a->app.stats.call_errors) {
		TH_LOG("call_errors counted each");
	}
	ctx_fini(&c);
}

/* The frame RFC 768 and RFC 791 describe for a datagram we send. */
/* A TCP call and its one event; @ev's handle for LISTEN and CONNECT. */
static int ctx_tcp(struct ctx *c, struct ixmod_call call, u64 *handle)
{
	struct ixmod_event ev;
	int res;

	call.flags |= IXMOD_CALL_F_NOTIFY;
	res = tn_app_call(c->a, &call, &ev);
	if (handle)
		*handle = ev.handle;
	return res;
}

/*
 * Handles are typed (IXMOD_FEAT_HANDLE_KIND): the first UDP socket, the
 * first listener and the first connection of a context get different
 * handles, each of its kind, and a call given a handle of another kind
 * fails with -EBADF and changes nothing.
 */
TEST(call_handle_kinds)
{
	struct ixmod_call call;
	struct ixmod_event ev;
	u64 hu, hl, ht;
	u32 conns, socks;
	struct ctx c;

	ctx_init(&c, 16, 16);
	tn_learn(c.h, REMOTE_IP, peer_mac);
	/* the worst case: slot 0 of every table at the same generation */
	c.h->udp->socks[0].gen = 7;
	c.h->tcp->listeners[0].gen = 7;
	c.h->tcp->conns[0].gen = 7;
	ASSERT_EQ(0, ctx_bind(&c, 7000, 1, &hu));
	ASSERT_EQ(0, ctx_tcp(&c, tn_call_listen(7000, 4, 2), &hl));
	ASSERT_EQ(0, ctx_tcp(&c, tn_call_connect(REMOTE_IP, 80, 3), &ht));
	EXPECT_EQ(IXMOD_HANDLE_UDP, IXMOD_HANDLE_KIND(hu));
	EXPECT_EQ(IXMOD_HANDLE_LISTENER, IXMOD_HANDLE_KIND(hl));
	EXPECT_EQ(IXMOD_HANDLE_TCP, IXMOD_HANDLE_KIND(ht)) {
		TH_LOG("UDP socket %#llx, listener %#llx, connection %#llx: each of its kind",
		       (unsigned long long)hu, (unsigned long long)hl,
		       (unsigned long long)ht);
	}
	EXPECT_NE(hu, ht);
	EXPECT_NE(hu, hl);
	EXPECT_NE(hl, ht) TH_LOG("the first socket, listener and connection differ");
	EXPECT_EQ(0, ixm_handle_idx(hu));
	EXPECT_EQ(0, ixm_handle_idx(hl));
	EXPECT_EQ(0, ixm_handle_idx(ht));
	EXPECT_EQ(7, ixm_handle_gen(hu) & ixm_handle_gen(hl) & ixm_handle_gen(ht)) {
		TH_LOG("all three: slot 0, generation 7; only the kind tells them apart");
	}

	conns = c.h->tcp->stats.conns;
	socks = c.h->udp->count;
	call = call_close(ht);
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) TH_LOG("UDP_CLOSE of a connection: -EBADF");
	call = call_close(hl);
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) TH_LOG("UDP_CLOSE of a listener: -EBADF");
	call = call_send(ht, 0, 8, REMOTE_IP, 9);
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev)) TH_LOG("UDP_SEND on a connection: -EBADF");
	EXPECT_EQ(-EBADF, ctx_tcp(&c, tn_call_close(hu, false), NULL)) {
		TH_LOG("TCP_CLOSE of a UDP socket: -EBADF");
	}
	EXPECT_EQ(-EBADF, ctx_tcp(&c, tn_call_close(hu, true), NULL)) {
		TH_LOG("TCP_CLOSE (abort) of a UDP socket: -EBADF");
	}
	EXPECT_EQ(-EBADF, ctx_tcp(&c, tn_call_recv_done(hl, 1), NULL)) {
		TH_LOG("TCP_RECV_DONE on a listener: -EBADF");
	}
	EXPECT_EQ(-EBADF, ctx_tcp(&c, tn_call_accept(hu, 9), NULL)) {
		TH_LOG("TCP_ACCEPT of a UDP socket: -EBADF");
	}
	EXPECT_EQ(conns, c.h->tcp->stats.conns);
	EXPECT_EQ(socks, c.h->udp->count);
	EXPECT_STREQ("SYN_SENT", ixm_tcp_state_names[c.h->tcp->conns[0].state]) {
		TH_LOG("the wrong-kind calls changed nothing: the connection opens");
	}
	EXPECT_EQ(0, ctx_tcp(&c, tn_call_close(hl, false), NULL)) TH_LOG("the listener closes");
	call = call_close(hu);
	EXPECT_EQ(0, tn_app_call(c.a, &call, &ev)) TH_LOG("the socket closes");
	ctx_fini(&c);
}

/* The first generation comes from the core's secret: two cores' differ. */
TEST(call_handle_first_generation)
{
	struct tn_host_cfg hc = { .ip = LOCAL_IP, .prefix = 24, .mac = our_mac };
	u64 h[2], t[2];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct tn_host *host;
		struct tn_app *a;
		struct ixmod_event ev;
		struct ixmod_call call = call_bind(7000, 1);

		hc.seed = i + 1;
		host = tn_host_new(&hc);
		a = tn_app_new(host, 16, 16, ARENA_SIZE);
		tn_learn(host, REMOTE_IP, peer_mac);
		ASSERT_EQ(0, tn_app_call(a, &call, &ev));
		h[i] = ev.handle;
		call = tn_call_connect(REMOTE_IP, 80, 2);
		call.flags = IXMOD_CALL_F_NOTIFY;
		ASSERT_EQ(0, tn_app_call(a, &call, &ev));
		t[i] = ev.handle;
		tn_host_free(host);
	}
	EXPECT_EQ(ixm_handle_idx(h[0]), ixm_handle_idx(h[1]));
	EXPECT_NE(ixm_handle_gen(h[0]), ixm_handle_gen(h[1])) {
		TH_LOG("two cores' first UDP sockets: generations %u and %u",
		       ixm_handle_gen(h[0]), ixm_handle_gen(h[1]));
	}
	EXPECT_NE(ixm_handle_gen(t[0]), ixm_handle_gen(t[1])) {
		TH_LOG("two cores' first connections: generations %u and %u",
		       ixm_handle_gen(t[0]), ixm_handle_gen(t[1]));
	}
}

static size_t expected_send(u8 *f, u16 sport, u32 dst, u16 dport, const u8 *data, size_t n)
{
	return udp_frame(f, peer_mac, our_mac, LOCAL_IP, sport, dst, dport, 0, 64, data, n);
}

/* The one frame queued equals @want and its checksums verify; flushes. */
static bool sent_is(struct ctx *c, const u8 *want, size_t wlen, size_t n)
{
	const struct ixm_mbuf *m;
	const char *err;
	bool ok = true;

	if (c->h->port.ntx != 1) {
		ixm_diag("payload %zu: %u frames queued", n, c->h->port.ntx);
		tn_tx_flush(c->h);
		return false;
	}
	m = c->h->port.tx[0];
	if (m->len != wlen || memcmp(m->data, want, wlen)) {
		size_t i;

		for (i = 0; i < wlen && i < m->len && m->data[i] == want[i]; i++)
			;
		ixm_diag("payload %zu: length %u (want %zu), first difference at byte %zu",
			 n, m->len, wlen, i);
		ok = false;
	}
	if (ok && (ref_udp_csum(LOCAL_IP, get32(m->data + 30), m->data + 34, m->len - 34u) ||
		   ixm_csum_fold(ixm_csum_pseudo(c->h->cfg.ip, be32_of(get32(m->data + 30)),
						 IXM_IPPROTO_UDP, (u16)(m->len - 34u),
						 ixm_csum_partial(m->data + 34, m->len - 34u, 0))))) {
		ixm_diag("payload %zu: the UDP checksum does not verify", n);
		ok = false;
	}
	err = check_tx(&c->h->cfg, m);
	if (err) {
		ixm_diag("payload %zu: %s", n, err);
		ok = false;
	}
	if (m->data < m->buf || m->data + m->len > m->buf + IXM_MBUF_SIZE) {
		ixm_diag("payload %zu: frame outside its buffer", n);
		ok = false;
	}
	tn_tx_flush(c->h);
	return ok;
}

TEST(call_send_udp)
{
	static u8 want[2048];
	struct ixmod_call call;
	struct ixmod_event ev;
	unsigned int bad = 0;
	size_t n, wlen;
	struct ctx c;
	u32 off;
	u64 h;
	u16 ck;

	ctx_init(&c, 16, 16);
	tn_learn(c.h, REMOTE_IP, peer_mac);
	ctx_bind(&c, 7000, 1, &h);
	pattern(c.a->arena, ARENA_SIZE, 3);
	for (n = 0; n <= PAYLOAD_MAX; n++) {
		/* odd and even offsets, some at the very end of the arena */
		off = n % 3 == 2 ? ARENA_SIZE - (u32)n : (u32)(n * 41 % (ARENA_SIZE - n));
		call = call_send(h, off, (u32)n, REMOTE_IP, (u16)(9 + n));
		if (tn_app_call(c.a, &call, &ev) != (int)n) {
			TH_LOG("payload %zu at %u: res %d", n, off, ev.res);
			if (++bad > IXM_DIAG_MAX)
				break;
			tn_tx_flush(c.h);
			continue;
		}
		wlen = expected_send(want, 7000, REMOTE_IP, (u16)(9 + n), c.a->arena + off, n);
		if (!sent_is(&c, want, wlen, n) && ++bad > IXM_DIAG_MAX)
			break;
	}
	EXPECT_FALSE(bad) {
		TH_LOG("UDP_SEND of 0..%u bytes: one frame, byte-exact, checksums verify, res = len",
		       PAYLOAD_MAX);
	}
	EXPECT_EQ(PAYLOAD_MAX + 1, c.h->stats.udp_out) TH_LOG("udp_out counted each");
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree) TH_LOG("every buffer back in the pool");

	/* without NOTIFY a send that worked is not answered */
	call = call_send(h, 100, 20, REMOTE_IP, 53);
	call.flags = 0;
	tn_app_submit(c.a, &call);
	EXPECT_EQ(1, tn_app_run(c.a, 8));
	EXPECT_FALSE(tn_app_nevents(c.a));
	EXPECT_EQ(1, c.h->port.ntx) TH_LOG("UDP_SEND without NOTIFY: sent, no event");
	tn_tx_flush(c.h);

	/*
	 * A datagram whose checksum computes to 0: make the last payload
	 * word the checksum of the same datagram with that word 0.
	 */
	memset(c.a->arena, 0, 10);
	c.a->arena[0] = 0x5a;
	wlen = expected_send(want, 7000, REMOTE_IP, 4242, c.a->arena, 10);
	ck = get16(want + 40);
	put16(c.a->arena + 8, ck == 0xffff ? 0 : ck);
	wlen = expected_send(want, 7000, REMOTE_IP, 4242, c.a->arena, 10);
	call = call_send(h, 0, 10, REMOTE_IP, 4242);
	EXPECT_EQ(0xffff, get16(want + 40));
	EXPECT_EQ(10, tn_app_call(c.a, &call, &ev));
	EXPECT_TRUE(sent_is(&c, want, wlen, 10)) {
		TH_LOG("a checksum that computes to 0 goes out as 0xffff (RFC 768)");
	}
	ctx_fini(&c);
}

TEST(call_send_unresolved)
{
	struct ixmod_call call;
	struct ixmod_event ev;
	const u8 *f;
	struct ctx c;
	u64 h;

	ctx_init(&c, 16, 16);
	ctx_bind(&c, 7000, 1, &h);
	call = call_send(h, 0, 100, REMOTE2_IP, 9);
	EXPECT_EQ(-EAGAIN, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("UDP_SEND to an unresolved neighbour: -EAGAIN");
	}
	f = c.h->port.ntx == 1 ? c.h->port.tx[0]->data : NULL;
	ASSERT_NE(NULL, f);
	EXPECT_EQ(NULL, check_tx(&c.h->cfg, c.h->port.tx[0]));
	EXPECT_EQ(0x0806, get16(f + 12));
	EXPECT_EQ(1, get16(f + 20));
	EXPECT_EQ(REMOTE2_IP, get32(f + 38));
	EXPECT_FALSE(c.h->stats.udp_out) {
		TH_LOG("an ARP request for it was queued, and no datagram");
	}
	tn_tx_flush(c.h);
	call.user_data = 77;
	EXPECT_EQ(-EAGAIN, tn_app_call(c.a, &call, &ev));
	EXPECT_EQ(77, ev.user_data);
	EXPECT_FALSE(c.h->port.ntx) TH_LOG("again within a second: -EAGAIN, no second request");
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree) TH_LOG("no buffer kept");
	ctx_fini(&c);
}

/* The event for a datagram of @n bytes of @data from REMOTE:@sport to @lport. */
static bool recv_event_ok(struct ctx *c, const struct ixmod_event *ev, const u8 *data,
			  size_t n, u16 sport, u16 lport, u64 cookie)
{
	if (ev->type != IXMOD_EV_UDP_RECV || ev->res != (s32)n || ev->user_data != cookie ||
	    ev->addr != be32_of(REMOTE_IP) || ev->port != ixm_htons(sport) ||
	    ev->lport != ixm_htons(lport) || ev->op || ev->flags || ev->win) {
		ixm_diag("event: type %u res %d cookie %llx addr %x port %u lport %u",
			 ev->type, ev->res, ev->user_data, ixm_ntohl(ev->addr),
			 ixm_ntohs(ev->port), ixm_ntohs(ev->lport));
		return false;
	}
	if (ev->off > IXM_RX_SLICE - n || !tn_rx_ptr(c->h, ev->off, (u32)n) ||
	    memcmp(tn_rx_ptr(c->h, ev->off, (u32)n), data, n)) {
		ixm_diag("event: off %u does not hold the payload", ev->off);
		return false;
	}
	if (c->h->mbufs[ev->off / IXM_MBUF_SIZE].owner != &c->a->app) {
		ixm_diag("event: the buffer at %u is not owned by the context", ev->off);
		return false;
	}
	return true;
}

TEST(call_recv)
{
	static u8 f[2048], data[2048];
	struct ixmod_call call;
	struct ixmod_event ev;
	unsigned int bad = 0;
	size_t n, len;
	struct ctx c;
	u32 off;
	u64 h;

	ctx_init(&c, 16, 16);
	ctx_bind(&c, 7000, 0xc00c1e, &h);

	pattern(data, 100, 1);
	len = udp_in_frame(f, 5555, 7000, data, 100);
	tn_input(c.h, f, len, 0);
	ixm_app_flush(&c.a->app);
	ASSERT_TRUE(tn_app_event(c.a, &ev));
	EXPECT_TRUE(recv_event_ok(&c, &ev, data, 100, 5555, 7000, 0xc00c1e)) {
		TH_LOG("a datagram to a bound port: UDP_RECV, res = 100, payload at off, addresses, cookie");
	}
	off = ev.off;
	EXPECT_EQ(1, c.a->app.stats.rx_bufs);
	EXPECT_EQ(c.h->pool.count - 1, c.h->pool.nfree);
	EXPECT_EQ(1, c.h->stats.udp_in);
	EXPECT_FALSE(tn_drops(c.h));
	EXPECT_FALSE(tn_app_nevents(c.a)) {
		TH_LOG("the application holds the buffer (rx_bufs 1), udp_in counted, no drop");
	}
	call = call_recv_done(off);
	EXPECT_EQ(0, tn_app_call(c.a, &call, &ev));
	EXPECT_EQ(IXMOD_OP_RECV_DONE, ev.op);
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree);
	EXPECT_FALSE(c.a->app.stats.rx_bufs);
	EXPECT_EQ(NULL, c.h->mbufs[off / IXM_MBUF_SIZE].owner) {
		TH_LOG("RECV_DONE of that off: res 0, the buffer is back in the pool");
	}
	EXPECT_EQ(-ENOENT, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("a second RECV_DONE of the same off: -ENOENT");
	}
	call = call_recv_done(IXM_RX_SLICE);
	EXPECT_EQ(-EINVAL, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("RECV_DONE off = slice size: -EINVAL");
	}
	call = call_recv_done(0xffffffffu);
	EXPECT_EQ(-EINVAL, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("RECV_DONE off 0xffffffff: -EINVAL");
	}
	call = call_recv_done(IXM_RX_SLICE - 1);
	EXPECT_EQ(-ENOENT, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("RECV_DONE of a free buffer's last byte: -ENOENT");
	}
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree);
	EXPECT_FALSE(c.a->app.stats.rx_bufs) TH_LOG("refused RECV_DONEs changed nothing");

	for (n = 0; n <= PAYLOAD_MAX; n++) {
		pattern(data, n, (unsigned int)n);
		len = udp_in_frame(f, (u16)(1 + n), 7000, data, n);
		tn_input(c.h, f, len, 0);
		ixm_app_flush(&c.a->app);
		if (!tn_app_event(c.a, &ev) ||
		    !recv_event_ok(&c, &ev, data, n, (u16)(1 + n), 7000, 0xc00c1e)) {
			if (++bad > IXM_DIAG_MAX)
				break;
			continue;
		}
		call = call_recv_done(ev.off);
		if (tn_app_call(c.a, &call, &ev) != 0 && ++bad > IXM_DIAG_MAX)
			break;
	}
	EXPECT_FALSE(bad);
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree);
	EXPECT_FALSE(c.a->app.stats.rx_bufs) {
		TH_LOG("payloads of 0..%u bytes arrive whole at their off and go back",
		       PAYLOAD_MAX);
	}
	ctx_fini(&c);
}

/*
 * IXMOD_SETUP_EVENT_EXT: 64-byte events whose handle names the object,
 * also for the events whose 32 bytes have no room for it; through the
 * hold-back queue too.
 */
TEST(call_event_ext)
{
	static u8 f[2048], data[100];
	struct ixmod_event_ext x;
	struct ixmod_call call;
	unsigned int i, held = 0, bad = 0;
	size_t len;
	struct ctx c;
	u64 h;

	ctx_init(&c, 16, 4);
	tn_app_set_event_ext(c.a, true);
	call = call_bind(7000, 0xc00c1e);
	tn_app_submit(c.a, &call);
	tn_app_run(c.a, 64);
	ASSERT_TRUE(tn_app_event_ext(c.a, &x));
	h = x.ev.handle;
	EXPECT_EQ(IXMOD_EV_CALL, x.ev.type);
	EXPECT_EQ(h, x.handle);
	EXPECT_FALSE(x.resv[0] | x.resv[1] | x.resv[2]) {
		TH_LOG("UDP_BIND's completion: the extension's handle is the new socket's");
	}
	call = call_send(h ^ (1ULL << 32), 0, 8, REMOTE_IP, 9);
	tn_app_submit(c.a, &call);
	tn_app_run(c.a, 64);
	ASSERT_TRUE(tn_app_event_ext(c.a, &x));
	EXPECT_EQ(-EBADF, x.ev.res);
	EXPECT_EQ(h ^ (1ULL << 32), x.handle) TH_LOG("a failed call's: the handle it named");

	/* six datagrams into a ring of four: two wait in the hold-back queue */
	pattern(data, sizeof(data), 2);
	len = udp_in_frame(f, 5555, 7000, data, sizeof(data));
	for (i = 0; i < 6; i++)
		tn_input(c.h, f, len, 0);
	ixm_app_flush(&c.a->app);
	held = c.a->app.hold_count;
	for (i = 0; i < 6; i++) {
		if (!tn_app_event_ext(c.a, &x)) {
			ixm_app_flush(&c.a->app);
			if (!tn_app_event_ext(c.a, &x))
				break;
		}
		if (x.ev.type != IXMOD_EV_UDP_RECV || x.handle != h || x.ev.user_data != 0xc00c1e ||
		    x.resv[0] | x.resv[1] | x.resv[2])
			bad++;
		call = call_recv_done(x.ev.off);
		call.flags = 0;
		tn_app_submit(c.a, &call);
		tn_app_run(c.a, 64);
	}
	EXPECT_EQ(2, held);
	EXPECT_EQ(6, i);
	EXPECT_EQ(0, bad) {
		TH_LOG("six UDP_RECV, two held back: each carries the socket's handle");
	}
	ctx_fini(&c);
}

TEST(call_recv_drops)
{
	static u8 f[2048], data[64];
	struct ixmod_event ev;
	struct ctx c;
	size_t len;
	u64 h;

	ctx_init(&c, 16, 16);
	ctx_bind(&c, 7000, 5, &h);
	pattern(data, sizeof(data), 2);

	len = udp_in_frame(f, 5555, 7000, data, 40);
	f[len - 1] ^= 1;
	tn_input(c.h, f, len, 0);
	ixm_app_flush(&c.a->app);
	EXPECT_EQ(1, c.h->stats.drops[IXM_DROP_UDP_CSUM]);
	EXPECT_EQ(1, tn_drops(c.h));
	EXPECT_FALSE(tn_app_nevents(c.a));
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree) {
		TH_LOG("bad UDP checksum: dropped as udp_csum, no event, buffer back");
	}

	len = udp_in_frame(f, 5555, 7000, data, 40);
	put16(f + 38, 8 + 41);
	tn_input(c.h, f, len, 0);
	EXPECT_EQ(1, c.h->stats.drops[IXM_DROP_UDP_LEN]);
	EXPECT_EQ(2, tn_drops(c.h)) TH_LOG("UDP length one past the IP payload: udp_len");
	put16(f + 38, 7);
	tn_input(c.h, f, len, 0);
	EXPECT_EQ(2, c.h->stats.drops[IXM_DROP_UDP_LEN]);
	EXPECT_EQ(3, tn_drops(c.h)) TH_LOG("UDP length 7: udp_len");

	/* an IP payload of 4 bytes */
	len = udp_in_frame(f, 5555, 7000, data, 0);
	put16(f + 16, 24);
	fix_ip_csum(f + 14, 20);
	tn_input(c.h, f, 14 + 24, 0);
	EXPECT_EQ(1, c.h->stats.drops[IXM_DROP_UDP_SHORT]);
	EXPECT_EQ(4, tn_drops(c.h)) TH_LOG("an IP payload shorter than a UDP header: udp_short");

	len = udp_in_frame(f, 5555, 7001, data, 40);
	tn_input(c.h, f, len, 0);
	ixm_app_flush(&c.a->app);
	EXPECT_EQ(1, c.h->stats.drops[IXM_DROP_UDP_NO_SOCK]);
	EXPECT_EQ(5, tn_drops(c.h));
	EXPECT_FALSE(tn_app_nevents(c.a));
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree);
	EXPECT_FALSE(c.h->stats.udp_in) {
		TH_LOG("to an unbound port: udp_no_sock, no event, buffer back");
	}

	len = udp_in_frame(f, 5555, 7000, data, 40);
	put16(f + 40, 0);
	f[len - 1] ^= 0x55;	/* no checksum: nothing checks the data */
	tn_input(c.h, f, len, 0);
	ixm_app_flush(&c.a->app);
	ASSERT_TRUE(tn_app_event(c.a, &ev));
	EXPECT_EQ(IXMOD_EV_UDP_RECV, ev.type);
	EXPECT_EQ(40, ev.res);
	EXPECT_EQ(5, tn_drops(c.h)) TH_LOG("checksum 0 (none sent, RFC 768): accepted");

	/* Ethernet padding and extra IP payload past the UDP length are ignored */
	len = udp_in_frame(f, 5555, 7000, data, 4);
	memset(f + len, 0xee, 60 - len);
	tn_input(c.h, f, 60, 0);
	ixm_app_flush(&c.a->app);
	ASSERT_TRUE(tn_app_event(c.a, &ev));
	EXPECT_TRUE(recv_event_ok(&c, &ev, data, 4, 5555, 7000, 5)) {
		TH_LOG("a padded 60-byte frame: res is the UDP payload, 4 bytes");
	}
	EXPECT_EQ(2, c.a->app.stats.rx_bufs) TH_LOG("the application holds the two it was given");

	/* the NIC's "bad" is checked again in software, its "good" trusted */
	len = udp_in_frame(f, 5555, 7000, data, 40);
	tn_input(c.h, f, len, IXM_MBUF_F_L4_CSUM_BAD);
	ixm_app_flush(&c.a->app);
	ASSERT_TRUE(tn_app_event(c.a, &ev));
	ASSERT_TRUE(recv_event_ok(&c, &ev, data, 40, 5555, 7000, 5));
	EXPECT_EQ(5, tn_drops(c.h)) {
		TH_LOG("NIC says L4 checksum bad, software finds it right: delivered");
	}
	f[len - 1] ^= 1;
	tn_input(c.h, f, len, IXM_MBUF_F_L4_CSUM_BAD);
	ixm_app_flush(&c.a->app);
	EXPECT_EQ(2, c.h->stats.drops[IXM_DROP_UDP_CSUM]);
	EXPECT_EQ(6, tn_drops(c.h));
	EXPECT_FALSE(tn_app_event(c.a, &ev)) TH_LOG("NIC says bad and it is: dropped as udp_csum");
	ctx_fini(&c);
}

/*
 * A context that reads its events but never returns the datagrams' buffers,
 * with rings of 4096 (ring and hold-back could take 8192, four pools'
 * worth): the wire may not take the pool below a quarter free; what is
 * refused counts as udp_app_full and app_rx_dropped.
 */
TEST(call_udp_held_bounded)
{
	static u8 f[2048];
	struct ixmod_event ev;
	unsigned int i, got = 0;
	u8 data[1] = { 1 };
	struct ctx c;
	u32 floor;
	size_t len;
	u64 h;

	ctx_init(&c, 8, 4096);
	ctx_bind(&c, 7000, 5, &h);
	floor = c.h->pool.count / 4;
	len = udp_in_frame(f, 100, 7000, data, 1);
	for (i = 0; i < c.h->pool.count; i++) {
		tn_input(c.h, f, len, 0);
		ixm_app_flush(&c.a->app);
		while (tn_app_event(c.a, &ev))
			got++;
	}
	EXPECT_EQ(floor, c.h->pool.nfree);
	EXPECT_EQ(c.h->pool.count - floor, got);
	EXPECT_EQ(floor, c.h->stats.drops[IXM_DROP_UDP_APP_FULL]);
	EXPECT_EQ(floor, c.a->app.stats.rx_dropped) {
		TH_LOG("%u datagrams never returned: %u delivered, the pool kept %u free (a quarter), %llu refused as udp_app_full",
		       c.h->pool.count, got, c.h->pool.nfree,
		       (unsigned long long)c.h->stats.drops[IXM_DROP_UDP_APP_FULL]);
	}
	ctx_fini(&c);
}

/* A 4-entry event ring: held events, then drops, then the backlog drains. */
TEST(call_ring_full)
{
	static u8 f[2048];
	struct ixmod_call nop = { .opcode = IXMOD_OP_NOP, .user_data = 99 };
	struct ixmod_event ev;
	unsigned int i;
	u8 data[1];
	bool ok;
	struct ctx c;
	size_t len;
	u64 h;

	ctx_init(&c, 8, 4);
	ctx_bind(&c, 7000, 5, &h);
	for (i = 0; i < 10; i++) {
		data[0] = (u8)i;
		len = udp_in_frame(f, (u16)(100 + i), 7000, data, 1);
		tn_input(c.h, f, len, 0);
		ixm_app_flush(&c.a->app);
	}
	EXPECT_EQ(4, tn_app_nevents(c.a));
	EXPECT_EQ(4, c.a->app.hold_count);
	EXPECT_EQ(4, c.a->app.stats.held) TH_LOG("10 datagrams, ring of 4: 4 in the ring, 4 held");
	EXPECT_TRUE(ctx_flags(&c) & IXMOD_RING_OVERFLOW) TH_LOG("IXMOD_RING_OVERFLOW is set");
	EXPECT_EQ(2, c.h->stats.drops[IXM_DROP_UDP_APP_FULL]);
	EXPECT_EQ(2, c.a->app.stats.rx_dropped);
	EXPECT_EQ(8, c.a->app.stats.rx_bufs);
	EXPECT_EQ(c.h->pool.count - 8, c.h->pool.nfree) {
		TH_LOG("the last 2 dropped as udp_app_full; 8 buffers held");
	}

	tn_app_submit(c.a, &nop);
	EXPECT_EQ(0, tn_app_run(c.a, 8));
	EXPECT_EQ(1, *tn_ring_word(c.a->calls, IXM_RING_OFF_CONS));
	EXPECT_EQ(4, tn_app_nevents(c.a)) {
		TH_LOG("a NOP is not consumed while no event slot is free");
	}

	ok = true;
	for (i = 0; i < 4; i++)
		if (!tn_app_event(c.a, &ev) || ev.port != ixm_htons(100 + i) ||
		    *tn_rx_ptr(c.h, ev.off, 1) != i)
			ok = false;
	ixm_app_flush(&c.a->app);
	for (i = 4; i < 8; i++)
		if (!tn_app_event(c.a, &ev) || ev.port != ixm_htons(100 + i) ||
		    *tn_rx_ptr(c.h, ev.off, 1) != i)
			ok = false;
	ASSERT_TRUE(ok);
	EXPECT_FALSE(tn_app_nevents(c.a)) {
		TH_LOG("after consuming and a flush the held 4 follow, in order");
	}
	EXPECT_FALSE(ctx_flags(&c) & IXMOD_RING_OVERFLOW);
	EXPECT_FALSE(c.a->app.hold_count) TH_LOG("IXMOD_RING_OVERFLOW is clear again");
	EXPECT_EQ(1, tn_app_run(c.a, 8));
	EXPECT_TRUE(tn_app_event(c.a, &ev));
	EXPECT_EQ(99, ev.user_data);
	EXPECT_FALSE(ev.res) TH_LOG("the waiting NOP now runs");
	ctx_fini(&c);
}

/* The application lies about its indices; only it suffers. */
TEST(call_tamper_call_prod)
{
	struct ixmod_call nop = { .opcode = IXMOD_OP_NOP, .user_data = 1 };
	struct ixmod_event ev;
	unsigned int n;
	struct ctx c;
	u32 cons;

	ctx_init(&c, 16, 64);
	tn_app_submit(c.a, &nop);
	tn_app_run(c.a, 8);
	tn_app_event(c.a, &ev);
	__atomic_store_n(tn_ring_word(c.a->calls, IXM_RING_OFF_PROD), c.a->app.calls.cached + 100000,
			 __ATOMIC_RELEASE);
	n = tn_app_run(c.a, 5);
	EXPECT_EQ(5, n);
	EXPECT_GE(c.a->app.stats.ring_corrupt, 1) {
		TH_LOG("call producer 100000 ahead, budget 5: 5 consumed, ring_corrupt counted");
	}
	n = tn_app_run(c.a, 1000);
	EXPECT_LE(n, 16);
	EXPECT_GE(c.a->app.stats.ring_corrupt, 2) {
		TH_LOG("budget 1000: at most a ring's worth (16) consumed (%u)", n);
	}
	cons = *tn_ring_word(c.a->calls, IXM_RING_OFF_CONS);
	while (tn_app_event(c.a, &ev))
		;
	c.a->call_prod = cons;
	tn_app_submit(c.a, &nop);
	EXPECT_EQ(1, tn_app_run(c.a, 8));
	EXPECT_TRUE(tn_app_event(c.a, &ev));
	EXPECT_EQ(1, ev.user_data) TH_LOG("an honest producer index afterwards: calls run again");
	ctx_fini(&c);
}

TEST(call_tamper_event_cons)
{
	static u8 f[2048], before[2048];
	struct ixmod_call nop = { .opcode = IXMOD_OP_NOP, .user_data = 1 };
	unsigned int i;
	size_t ebytes, len;
	struct ctx c;
	u32 prod;
	u8 data[4] = { 1, 2, 3, 4 };
	u64 h;

	ctx_init(&c, 16, 4);
	ctx_bind(&c, 7000, 5, &h);
	prod = *tn_ring_word(c.a->events, IXM_RING_OFF_PROD);
	__atomic_store_n(tn_ring_word(c.a->events, IXM_RING_OFF_CONS), prod + 10, __ATOMIC_RELEASE);
	ebytes = ixm_ring_bytes(4, sizeof(struct ixmod_event)) - IXM_RING_OFF_ENTRIES;
	memcpy(before, c.a->events + IXM_RING_OFF_ENTRIES, ebytes);
	for (i = 0; i < 3; i++) {
		len = udp_in_frame(f, 5555, 7000, data, 4);
		tn_input(c.h, f, len, 0);
		ixm_app_flush(&c.a->app);
	}
	EXPECT_EQ(prod, *tn_ring_word(c.a->events, IXM_RING_OFF_PROD));
	EXPECT_EQ(0, memcmp(before, c.a->events + IXM_RING_OFF_ENTRIES, ebytes)) {
		TH_LOG("event consumer 10 ahead of the producer: nothing written to the ring");
	}
	EXPECT_EQ(3, c.a->app.hold_count);
	ASSERT_TRUE(ctx_flags(&c) & IXMOD_RING_OVERFLOW);
	EXPECT_GE(c.a->app.stats.ring_corrupt, 1);
	EXPECT_EQ(3, c.a->app.stats.rx_bufs) {
		TH_LOG("the 3 datagrams are held, IXMOD_RING_OVERFLOW set, ring_corrupt counted");
	}
	__atomic_store_n(tn_ring_word(c.a->events, IXM_RING_OFF_CONS), c.a->event_cons,
			 __ATOMIC_RELEASE);
	ixm_app_flush(&c.a->app);
	EXPECT_EQ(3, tn_app_nevents(c.a));
	EXPECT_FALSE(c.a->app.hold_count);
	EXPECT_FALSE(ctx_flags(&c) & IXMOD_RING_OVERFLOW) {
		TH_LOG("an honest consumer index afterwards: the held events follow");
	}
	__atomic_store_n(tn_ring_word(c.a->events, IXM_RING_OFF_CONS), c.a->event_cons - 1000,
			 __ATOMIC_RELEASE);
	tn_app_submit(c.a, &nop);
	tn_app_run(c.a, 8);
	EXPECT_EQ(prod + 3, *tn_ring_word(c.a->events, IXM_RING_OFF_PROD));
	EXPECT_EQ(1, c.a->app.hold_count) {
		TH_LOG("event consumer 1000 behind: nothing written past, the NOP's answer held");
	}
	ctx_fini(&c);
}

/* A full TX batch: UDP_SEND stays in the ring (IXM_CALL_RETRY) until there is room. */
TEST(call_tx_full)
{
	struct ixmod_call call;
	struct ixmod_event ev;
	struct ctx c;
	u64 h;

	ctx_init(&c, 16, 16);
	tn_learn(c.h, REMOTE_IP, peer_mac);
	ctx_bind(&c, 7000, 1, &h);
	while (c.h->port.ntx < IXM_TX_BATCH - 1)
		c.h->port.tx[c.h->port.ntx++] = ixm_mbuf_alloc(&c.h->pool);
	call = call_send(h, 0, 8, REMOTE_IP, 9);
	tn_app_submit(c.a, &call);
	EXPECT_EQ(0, tn_app_run(c.a, 8));
	EXPECT_FALSE(tn_app_nevents(c.a));
	EXPECT_EQ(1, *tn_ring_word(c.a->calls, IXM_RING_OFF_CONS));
	EXPECT_FALSE(c.a->app.stats.call_errors) {
		TH_LOG("63 frames queued: UDP_SEND is not consumed and not answered");
	}
	tn_tx_flush(c.h);
	EXPECT_EQ(1, tn_app_run(c.a, 8));
	ASSERT_TRUE(tn_app_event(c.a, &ev));
	EXPECT_EQ(8, ev.res);
	EXPECT_EQ(1, c.h->port.ntx) TH_LOG("once the batch went out, the same entry is sent");
	ctx_fini(&c);
}

/* A second context of the same core: its own rings, @c's stack and port. */
static void ctx_init_on(struct ctx *o, struct ctx *c)
{
	o->h = c->h;
	o->a = tn_app_new(c->h, 16, 16, ARENA_SIZE);
	o->shared = true;
}

/* Two contexts on one core reach only their own sockets and buffers. */
TEST(call_two_apps)
{
	static u8 f[2048];
	u8 data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct ixmod_call call;
	struct ixmod_event ev;
	u64 ha, hb, hx;
	u32 offa = 0, offb = 0;
	struct ctx a, b;
	size_t len;
	bool ok;

	ctx_init(&a, 16, 16);
	ctx_init_on(&b, &a);
	ctx_bind(&a, 7000, 0xa, &ha);
	EXPECT_EQ(-EADDRINUSE, ctx_bind(&b, 7000, 0xb, &hx));
	EXPECT_EQ(0, ctx_bind(&b, 8000, 0xb, &hb)) {
		TH_LOG("B cannot bind A's port 7000 on the same core; 8000 is fine");
	}
	call = call_send(ha, 0, 8, REMOTE_IP, 9);
	EXPECT_EQ(-EBADF, tn_app_call(b.a, &call, &ev)) {
		TH_LOG("B's UDP_SEND on A's handle: -EBADF");
	}
	call = call_close(ha);
	EXPECT_EQ(-EBADF, tn_app_call(b.a, &call, &ev));
	EXPECT_EQ(2, a.h->udp->count) {
		TH_LOG("B's UDP_CLOSE of A's handle: -EBADF, A's socket stays");
	}

	len = udp_in_frame(f, 5555, 7000, data, sizeof(data));
	tn_input(a.h, f, len, 0);
	len = udp_in_frame(f, 5555, 8000, data, sizeof(data));
	tn_input(a.h, f, len, 0);
	ixm_app_flush(&a.a->app);
	ixm_app_flush(&b.a->app);
	ok = tn_app_event(a.a, &ev) && ev.user_data == 0xa && !tn_app_nevents(a.a);
	offa = ev.off;
	ok = ok && tn_app_event(b.a, &ev) && ev.user_data == 0xb && !tn_app_nevents(b.a);
	offb = ev.off;
	ASSERT_TRUE(ok);
	EXPECT_EQ(&a.a->app, a.h->mbufs[offa / IXM_MBUF_SIZE].owner);
	EXPECT_EQ(&b.a->app, a.h->mbufs[offb / IXM_MBUF_SIZE].owner) {
		TH_LOG("each datagram goes to the context that bound its port");
	}
	call = call_recv_done(offb);
	EXPECT_EQ(-ENOENT, tn_app_call(a.a, &call, &ev));
	EXPECT_EQ(1, b.a->app.stats.rx_bufs);
	EXPECT_EQ(&b.a->app, a.h->mbufs[offb / IXM_MBUF_SIZE].owner) {
		TH_LOG("A's RECV_DONE of B's buffer: -ENOENT, B still holds it");
	}
	ixm_app_release_all(&b.a->app);
	EXPECT_EQ(NULL, a.h->mbufs[offb / IXM_MBUF_SIZE].owner);
	EXPECT_EQ(&a.a->app, a.h->mbufs[offa / IXM_MBUF_SIZE].owner);
	EXPECT_EQ(1, a.a->app.stats.rx_bufs);
	EXPECT_EQ(a.h->pool.count - 1, a.h->pool.nfree);
	EXPECT_EQ(1, a.h->udp->count);
	EXPECT_NE(NULL, ixm_udp_sock_get(a.h->udp, &a.a->app, ha)) {
		TH_LOG("releasing B leaves A's buffer and socket alone");
	}
	ctx_fini(&b);
	ctx_fini(&a);
}

TEST(call_release_all)
{
	static u8 f[2048];
	struct ixmod_call call;
	struct ixmod_event ev;
	u8 data[8] = { 0 };
	unsigned int i, owned = 0;
	u64 h1, h2, h3;
	struct ctx c;
	size_t len;

	ctx_init(&c, 16, 16);
	tn_learn(c.h, REMOTE_IP, peer_mac);
	ctx_bind(&c, 7000, 1, &h1);
	ctx_bind(&c, 7001, 2, &h2);
	for (i = 0; i < 5; i++) {
		len = udp_in_frame(f, 5555, (u16)(7000 + i % 2), data, sizeof(data));
		tn_input(c.h, f, len, 0);
	}
	ixm_app_flush(&c.a->app);
	EXPECT_EQ(5, c.a->app.stats.rx_bufs);
	EXPECT_EQ(c.h->pool.count - 5, c.h->pool.nfree);
	EXPECT_EQ(2, c.h->udp->count) TH_LOG("5 buffers held, 2 sockets bound");
	ixm_app_release_all(&c.a->app);
	for (i = 0; i < c.h->pool.count; i++)
		owned += c.h->mbufs[i].owner != NULL;
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree);
	EXPECT_FALSE(owned);
	EXPECT_FALSE(c.a->app.stats.rx_bufs) {
		TH_LOG("ixm_app_release_all(): every buffer back, none owned");
	}
	EXPECT_FALSE(c.h->udp->count);
	EXPECT_NE(IXM_UDP_NONE, c.h->udp->free) {
		TH_LOG("ixm_app_release_all(): every socket unbound");
	}
	len = udp_in_frame(f, 5555, 7000, data, sizeof(data));
	tn_input(c.h, f, len, 0);
	EXPECT_EQ(1, c.h->stats.drops[IXM_DROP_UDP_NO_SOCK]);
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree) {
		TH_LOG("a datagram to the old port is udp_no_sock");
	}
	while (tn_app_event(c.a, &ev))
		;
	call = call_send(h1, 0, 8, REMOTE_IP, 9);
	EXPECT_EQ(-EBADF, tn_app_call(c.a, &call, &ev));
	EXPECT_EQ(0, ctx_bind(&c, 7000, 3, &h3));
	EXPECT_NE(h1, h3) TH_LOG("the old handles are stale; the port can be bound again");
	ctx_fini(&c);
}

TEST_HARNESS_MAIN
