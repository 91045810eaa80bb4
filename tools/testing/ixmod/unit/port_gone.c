// SPDX-License-Identifier: GPL-2.0
/*
 * port_gone.c - a port's buffer pool is freed under connections and an
 * application that hold its buffers (PCI removal, ixmod/port.c)
 *
 * The host's port receives into a pool of its own here, "the departing
 * pool", allocated and freed by the test as ixm_qpair_alloc() and
 * ixm_qpair_free() do.  A context holds buffers of it in every way there
 * is: TCP data received in order and announced but not returned with
 * recv_done, TCP data past a hole (out of order), and a UDP datagram.
 * Then the port goes: the stack's port receives into another pool from
 * then on (the same address, probed again), ixm_stack_pool_gone() runs
 * as the core's thread runs it (IXM_REQ_POOL_GONE), and the departing
 * pool is freed.  Timers run for minutes afterwards and the context is
 * closed.  Any pointer left into the freed pool is a heap-use-after-free
 * that ASan reports (make SANITIZE=1 run): without the detach, the close
 * walks the freed descriptors (ixm_tcp_rcv_purge()).
 *
 * Once with the context dead (what a PCI removal does to every context of
 * the core: the kernel's case), once alive (the connections must then
 * end with TCP_DEAD -ENETDOWN and the application's returns be refused).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "harness.h"
#include "testnet.h"

#define H_IP		TN_IP(1)
#define P_IP		TN_IP(2)
#define H_PORT		80
#define U_PORT		5000
#define P_PORT		40000
#define NCONN		2
#define HOLE		500		/* bytes missing before the out-of-order data */
#define MS		1000000ULL
#define T0		(1000 * 1000 * MS)
#define GONE_BUFS	256
#define MAXEV		64

/* A pool of the port that will go, as ixm_qpair_alloc() builds one. */
struct gone {
	struct ixm_mbuf_pool	pool;
	struct ixm_mbuf		*mbufs;
	struct ixm_mbuf		**free;
};

static struct gone *gone_new(void)
{
	struct gone *g = calloc(1, sizeof(*g));
	u32 i;

	if (!g)
		die("calloc");
	g->mbufs = calloc(GONE_BUFS, sizeof(*g->mbufs));
	g->free = calloc(GONE_BUFS, sizeof(*g->free));
	if (!g->mbufs || !g->free)
		die("calloc");
	for (i = 0; i < GONE_BUFS; i++) {
		g->mbufs[i].buf = calloc(1, IXM_MBUF_SIZE);
		if (!g->mbufs[i].buf)
			die("calloc");
		g->mbufs[i].dma = (dma_addr_t)(uintptr_t)g->mbufs[i].buf;
	}
	ixm_mbuf_pool_init(&g->pool, g->mbufs, g->free, GONE_BUFS);
	return g;
}

/* ixm_qpair_free(): the descriptors and the data go, whoever points there. */
static void gone_free(struct gone *g)
{
	u32 i;

	for (i = 0; i < GONE_BUFS; i++)
		free(g->mbufs[i].buf);
	free(g->mbufs);
	free(g->free);
	free(g);
}

struct peer {
	u16	port;
	u32	snd;		/* the peer's next sequence number */
	u32	rcv;		/* the host's next one */
	u64	handle;
};

static struct tn_host *h;
static struct tn_app *a;
static struct peer peers[NCONN];
static u64 udp_handle;
static u32 udp_off;		/* the datagram the application holds */
static struct tcp_seg last;	/* the host's last TCP segment */
static unsigned int nlast;
static struct ixmod_event evs[MAXEV];	/* the events of the last run */
static unsigned int nev;

static u8 data[4096];

/* A frame arrives on the port, in a buffer of the port's current pool. */
static void rx(const u8 *f, size_t len)
{
	struct ixm_mbuf *m = ixm_mbuf_alloc(h->port.pool);

	if (!m)
		die("the port's pool is empty");
	tn_host_begin(h);
	memcpy(m->data, f, len);
	m->len = (u16)len;
	m->flags = 0;
	ixm_eth_input(&h->port, m);
}

/* The rest of the iteration; what the host sent is read and freed. */
static void run(void)
{
	static u8 f[IXM_MBUF_SIZE];
	unsigned int i;

	tn_host_run(h);
	nlast = 0;
	for (i = 0; i < h->port.ntx; i++) {
		size_t len = frame_gather(h->port.tx[i], f, sizeof(f));
		struct tcp_seg s;

		if (len && !tcp_parse(f, len, &s)) {
			last = s;
			nlast++;
		}
	}
	tn_tx_flush(h);
	nev = 0;
	while (nev < MAXEV && tn_app_event(a, &evs[nev]))
		nev++;
}

static void seg(struct peer *p, u8 flags, u32 seq, const u8 *d, size_t n)
{
	static u8 f[IXM_MBUF_SIZE];
	struct tcp_args t = {
		.src = P_IP, .dst = H_IP, .sport = p->port, .dport = H_PORT,
		.seq = seq, .ack = p->rcv, .flags = flags, .win = 65535,
		.data = d, .dlen = n,
	};

	rx(f, tcp_frame(f, our_mac, peer_mac, &t));
	run();
}

/* An event of @type for @user_data among those of the last run. */
static bool event(u8 type, u64 user_data, struct ixmod_event *out)
{
	unsigned int i;

	for (i = 0; i < nev; i++) {
		if (evs[i].type == type && evs[i].user_data == user_data) {
			*out = evs[i];
			return true;
		}
	}
	return false;
}

/* A call through the ring; its IXMOD_EV_CALL's res, or 0 if none came. */
static int call(const struct ixmod_call *c, struct ixmod_event *ev)
{
	tn_app_submit(a, c);
	run();
	if (!event(IXMOD_EV_CALL, c->user_data, ev))
		return 0;
	return ev->res;
}

/*
 * Listen, open NCONN connections that each hold 1000 bytes in order
 * (announced, not returned) and 300 past a hole, and receive a datagram
 * the application keeps.  Every buffer comes from @g.
 */
static bool setup(struct gone *g)
{
	struct ixmod_call c = tn_call_listen(H_PORT, 16, 0x11);
	struct ixmod_event ev;
	unsigned int i;
	bool ok = true;
	u8 f[128];

	ixm_host_now_ns = T0;
	h = tn_host_new(&(struct tn_host_cfg){ .ip = H_IP, .mac = our_mac, .seed = 3 });
	a = tn_app_new(h, 64, 256, 1 << 16);
	tn_learn(h, P_IP, peer_mac);
	h->port.pool = &g->pool;	/* the port that will go receives from now on */
	if (call(&c, &ev))
		return false;
	for (i = 0; i < NCONN; i++) {
		struct peer *p = &peers[i];

		p->port = P_PORT + i;
		p->snd = 0x10000000u * (i + 1);
		p->rcv = 0;
		seg(p, TH_SYN, p->snd++, NULL, 0);
		if (nlast != 1 || last.flags != (TH_SYN | TH_ACK)) {
			ixm_diag("no SYN-ACK (%u segments)", nlast);
			return false;
		}
		p->rcv = last.seq + 1;
		seg(p, TH_ACK, p->snd, NULL, 0);
		if (!event(IXMOD_EV_TCP_KNOCK, 0x11, &ev)) {
			ixm_diag("no knock");
			return false;
		}
		p->handle = ev.handle;
		c = tn_call_accept(p->handle, 0xc0 + i);
		if (call(&c, &ev))
			return false;
		seg(p, TH_ACK | TH_PSH, p->snd, data, 1000);
		ok = ok && event(IXMOD_EV_TCP_RECV, 0xc0 + i, &ev) && ev.res == 1000;
		p->snd += 1000;
		seg(p, TH_ACK, p->snd + HOLE, data + 1000 + HOLE, 300);
	}
	c = (struct ixmod_call){ .opcode = IXMOD_OP_UDP_BIND, .user_data = 0x0d,
				 .port = ixm_htons(U_PORT) };
	if (call(&c, &ev))
		return false;
	udp_handle = ev.handle;
	memset(f, 0, sizeof(f));
	put_ip(put_eth(f, our_mac, peer_mac, 0x0800),
	       &(struct iph_args){ .frag = 0x4000, .ttl = 64, .proto = 17,
				   .src = P_IP, .dst = H_IP }, 8 + 20);
	put16(f + 34, 9999);
	put16(f + 36, U_PORT);
	put16(f + 38, 8 + 20);
	put16(f + 40, 0);	/* no checksum (RFC 768) */
	rx(f, 14 + 20 + 8 + 20);
	run();
	ok = ok && event(IXMOD_EV_UDP_RECV, 0x0d, &ev) && ev.res == 20;
	udp_off = ev.off;
	return ok && h->tcp->stats.conns == NCONN && h->tcp->stats.ooo == NCONN &&
	       a->app.stats.rx_bufs == NCONN + 1;
}

/* The port goes: the same address on a new port (h->pool), then the detach. */
static void port_gone(struct gone *g, bool dead)
{
	h->port.pool = &h->pool;
	a->app.dead = dead;		/* ixm_ctx_check_alive() */
	ixm_stack_pool_gone(&h->stack, &g->pool);
}

/* Minutes of timers in 100 ms steps: RTO, delayed ACK, keepalive, FIN-WAIT-2. */
static void let_time_pass(void)
{
	unsigned int i;

	for (i = 0; i < 3000; i++) {
		ixm_host_now_ns += 100 * MS;
		run();
	}
}

TEST(port_gone_dead_context)
{
	struct gone *g = gone_new();
	bool ok = setup(g);

	EXPECT_TRUE(ok) {
		TH_LOG("dead: %u connections hold data in order and past a hole, a datagram is held",
		       NCONN);
	}
	port_gone(g, true);
	EXPECT_EQ(0, h->tcp->stats.conns);
	EXPECT_EQ(0, h->tcp->stats.established) {
		TH_LOG("dead: the detach frees the connections (conns %llu)",
		       (unsigned long long)h->tcp->stats.conns);
	}
	EXPECT_EQ(0, a->app.stats.rx_bufs);
	EXPECT_EQ(g->pool.count, g->pool.nfree) {
		TH_LOG("dead: rx_bufs 0 and every buffer back in the departing pool (%u of %u)",
		       g->pool.nfree, g->pool.count);
	}
	gone_free(g);
	let_time_pass();
	tn_app_free(a);
	EXPECT_EQ(h->pool.count, h->pool.nfree);
	EXPECT_EQ(0, h->tcp->stats.conns) {
		TH_LOG("dead: timers ran and the context closed; nothing touched the freed pool");
	}
	tn_host_free(h);
}

TEST(port_gone_live_context)
{
	struct gone *g = gone_new();
	struct ixmod_event ev;
	struct ixmod_call c;
	unsigned int i, dead = 0;
	int res;
	bool ok = setup(g);

	EXPECT_TRUE(ok) {
		TH_LOG("live: %u connections hold data in order and past a hole, a datagram is held",
		       NCONN);
	}
	port_gone(g, false);
	run();
	for (i = 0; i < NCONN; i++)
		dead += event(IXMOD_EV_TCP_DEAD, 0xc0 + i, &ev) && ev.res == -ENETDOWN;
	EXPECT_EQ(NCONN, dead);
	EXPECT_EQ(0, a->app.stats.rx_bufs);
	EXPECT_EQ(g->pool.count, g->pool.nfree);
	EXPECT_EQ(NCONN, h->tcp->stats.conns) {
		TH_LOG("live: TCP_DEAD -ENETDOWN on each (%u), rx_bufs 0, pool whole; slots kept",
		       dead);
	}
	gone_free(g);
	c = tn_call_recv_done(peers[0].handle, 1000);
	res = call(&c, &ev);
	EXPECT_EQ(-EINVAL, res) {
		TH_LOG("live: recv_done of the bytes the port took is refused (%d)", res);
	}
	c = (struct ixmod_call){ .opcode = IXMOD_OP_RECV_DONE, .off = udp_off };
	res = call(&c, &ev);
	EXPECT_EQ(-ENOENT, res);
	EXPECT_EQ(h->pool.count, h->pool.nfree) {
		TH_LOG("live: recv_done of the datagram is refused (%d), the new pool untouched",
		       res);
	}
	for (i = 0; i < NCONN; i++) {
		c = tn_call_close(peers[i].handle, false);
		res = call(&c, &ev);
		EXPECT_EQ(0, res);
	}
	EXPECT_EQ(0, h->tcp->stats.conns);
	EXPECT_EQ(0, nlast) {
		TH_LOG("live: closing the dead connections frees their slots (%d), sends nothing",
		       res);
	}
	c = tn_call_close(peers[1].handle, false);
	EXPECT_EQ(-EBADF, call(&c, &ev)) TH_LOG("live: a second close: -EBADF");
	let_time_pass();
	tn_app_free(a);
	EXPECT_EQ(h->pool.count, h->pool.nfree);
	EXPECT_EQ(0, h->tcp->stats.conns) {
		TH_LOG("live: timers ran and the context closed; nothing touched the freed pool");
	}
	tn_host_free(h);
}

/* Filled once, before the harness forks the first test. */
static void __attribute__((constructor)) data_fill(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 13 + 5);
}

TEST_HARNESS_MAIN
