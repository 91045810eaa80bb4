// SPDX-License-Identifier: GPL-2.0
/*
 * testnet.c - hosts, applications and a lossy link, all in memory
 * (testnet.h says what each piece stands for)
 *
 * Linked into every unit test and fuzzer.  Nothing here knows more of the
 * portable code than a dataplane core does: it fills the structures
 * ixmod/dp.c and ixmod/ctx.c fill, calls the same entry points in the
 * same order, and hands frames over byte for byte, as a NIC would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "frames.h"
#include "testnet.h"
#include "icmp6_relay.h"

/**
 * struct tn_frame - a frame on the wire
 * @next: the next one sent
 * @due: the step it arrives in
 * @to: the receiving end (0 or 1)
 * @len: its bytes
 * @data: the frame
 */
struct tn_frame {
	struct tn_frame	*next;
	u64		due;
	unsigned int	to;
	size_t		len;
	u8		data[];
};

static void *tn_zalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		die("calloc");
	return p;
}

/**
 * tn_ring_word() - a 32-bit index or flag word of a ring region
 * @region: the ring region
 * @off: IXM_RING_OFF_PROD, _CONS or _FLAGS
 *
 * Return: the word.
 */
u32 *tn_ring_word(u8 *region, size_t off)
{
	return (u32 *)(region + off);
}

static unsigned int tn_wire_rx(struct tn_link *l, unsigned int to,
			       struct ixm_mbuf **m, unsigned int max);
static void tn_wire_tx(struct tn_link *l, unsigned int from, struct ixm_mbuf *m);

/*
 * The host's queue pair (struct ixm_queue_ops): on a link, the frames due
 * at its end arrive and what it sends goes on the wire; the buffers sent
 * go back to the pool at the next reap, as a NIC's would.
 */
static unsigned int tn_q_rx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				  unsigned int max)
{
	struct tn_host *h = container_of(q, struct tn_host, queue);

	return h->link ? tn_wire_rx(h->link, h->end, m, max) : 0;
}

static void tn_q_rx_refill(struct ixm_queue *q)
{
}

/*
 * With no link, nothing is taken: the frames stay in port.tx for the test
 * to read (the loop drops what the queue did not take, so tn_host_run()
 * puts them back; see there).
 */
static unsigned int tn_q_tx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				  unsigned int n)
{
	struct tn_host *h = container_of(q, struct tn_host, queue);
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (m[i]->flags & IXM_MBUF_F_TX_CSUM)
			h->tx_csum_hw++;
		if (h->link)
			tn_wire_tx(h->link, h->end, m[i]);
		h->sent[h->nsent++] = m[i];
	}
	return n;
}

static unsigned int tn_q_tx_reap(struct ixm_queue *q)
{
	struct tn_host *h = container_of(q, struct tn_host, queue);
	unsigned int i, n = h->nsent;

	if (!h->link)
		return 0;	/* tn_host_run() gives them back to the test */
	for (i = 0; i < n; i++)
		ixm_mbuf_free(h->sent[i]);
	h->nsent = 0;
	return n;
}

/* A frame due at this end, or sent buffers not yet reaped. */
static bool tn_q_busy(const struct ixm_queue *q)
{
	const struct tn_host *h = container_of(q, struct tn_host, queue);
	const struct tn_frame *f;

	if (h->nsent)
		return true;
	for (f = h->link ? h->link->head : NULL; f; f = f->next)
		if (f->to == h->end && f->due <= h->link->step)
			return true;
	return false;
}

static const struct ixm_queue_ops tn_queue_ops = {
	.rx_burst	= tn_q_rx_burst,
	.rx_refill	= tn_q_rx_refill,
	.tx_burst	= tn_q_tx_burst,
	.tx_reap	= tn_q_tx_reap,
	.busy		= tn_q_busy,
};

/**
 * tn_host_new() - a core with one port, its pool and its tables
 * @cfg: what to build; NULL for every default
 *
 * The clock (ixm_host_now_ns) should be set first: the TCP timer wheel
 * starts from it.
 *
 * Return: the host; exits the program if memory runs out.
 */
struct tn_host *tn_host_new(const struct tn_host_cfg *cfg)
{
	static const struct tn_host_cfg defaults;
	struct tn_host *h = tn_zalloc(sizeof(*h));
	unsigned long long rng;
	u32 i;

	if (!cfg)
		cfg = &defaults;
	h->nbufs = cfg->nbufs ? cfg->nbufs : TN_BUFS_DEF;
	if (h->nbufs > IXM_RX_SLICE_BUFS)
		h->nbufs = IXM_RX_SLICE_BUFS;
	h->mbufs = tn_zalloc(h->nbufs * sizeof(*h->mbufs));
	h->free = tn_zalloc(h->nbufs * sizeof(*h->free));
	for (i = 0; i < h->nbufs; i++) {
		h->mbufs[i].buf = malloc(IXM_MBUF_SIZE);
		if (!h->mbufs[i].buf)
			die("malloc");
		memset(h->mbufs[i].buf, 0, IXM_MBUF_SIZE);
		h->mbufs[i].dma = (dma_addr_t)(uintptr_t)h->mbufs[i].buf;
	}

	h->cfg.ip = be32_of(cfg->ip ? cfg->ip : TN_IP(1));
	h->cfg.prefix = cfg->prefix ? cfg->prefix : 24;
	h->cfg.cc = cfg->cc;
	h->cfg.netmask = be32_of(h->cfg.prefix >= 32 ? ~0u : ~(~0u >> h->cfg.prefix));
	if (cfg->mac) {
		memcpy(h->cfg.mac, cfg->mac, 6);
	} else {
		static const u8 base[6] = { 0x02, 0x00, 0x5e, 0x00, 0x01, 0x00 };

		memcpy(h->cfg.mac, base, 6);
		h->cfg.mac[5] = (u8)ixm_ntohl(h->cfg.ip);
	}

	if (cfg->tcp)
		h->tcp_cfg = *cfg->tcp;
	else
		ixm_tcp_config_default(&h->tcp_cfg);
	rng = cfg->seed ^ 0x5eed0f7e57ae7ULL;
	for (i = 0; i < 4; i++)
		h->secret[i] = ref_rand(&rng);

	h->udp = tn_zalloc(sizeof(*h->udp));
	h->tcp = tn_zalloc(sizeof(*h->tcp));
	tn_host_reset(h);
	tn_host_offload(h, cfg->offload);
	return h;
}

/**
 * tn_host_offload() - give @h's port a NIC that does checksums, or not
 * @h: the host
 * @on: its NIC inserts the IPv4, TCP and UDP checksums of frames the
 *	protocols flag (IXM_TXO_CSUM) and checks those of frames it
 *	receives, flagging them as igb does; off, software does both
 */
void tn_host_offload(struct tn_host *h, bool on)
{
	h->offload = on;
	h->port.tx_offload = on ? IXM_TXO_CSUM : 0;
}

/**
 * tn_host_reset() - make @h a fresh core again
 * @h: the host
 *
 * Every buffer back in the pool (whoever held it), empty UDP and TCP
 * tables, a new ARP table, zeroed counters, and each context with empty
 * rings.  What the buffers and arenas hold is left as it is.
 */
void tn_host_reset(struct tn_host *h)
{
	unsigned int i;

	memset(&h->stats, 0, sizeof(h->stats));
	h->tx_csum_hw = 0;
	ixm_mbuf_pool_init(&h->pool, h->mbufs, h->free, h->nbufs);
	h->pool.rx_base = 0;	/* slice 0 of every context's receive region */
	if (h->port.arp)
		ixm_arp_table_free(h->port.arp);
	h->port.arp = ixm_arp_table_alloc();
	if (!h->port.arp)
		die("ixm_arp_table_alloc");
	if (h->port.nd)
		ixm_nd_table_free(h->port.nd);
	h->port.nd = ixm_nd_table_alloc(tport_nd_key);
	if (!h->port.nd)
		die("ixm_nd_table_alloc");
	h->port.cfg = &h->cfg;
	h->port.pool = &h->pool;
	h->port.stats = &h->stats;
	h->port.stack = &h->stack;
	h->port.queue = &h->queue;
	h->queue.ops = &tn_queue_ops;
	h->port.ntx = 0;
	h->nsent = 0;
	h->ports[0] = &h->port;
	h->stack.ports = h->ports;
	h->stack.nports = 1;
	h->stack.udp = h->udp;
	h->stack.tcp = h->tcp;
	tn_host_begin(h);
	ixm_udp_table_init(h->udp, (u32)h->secret[3]);
	ixm_tcp_table_init(h->tcp, &h->stack, &h->tcp_cfg, h->secret);
	for (i = 0; i < h->napps; i++)
		tn_app_reset(h->apps[i]);
}

/**
 * tn_host_free() - close its contexts and free everything
 * @h: the host
 */
void tn_host_free(struct tn_host *h)
{
	u32 i;

	tn_tx_flush(h);
	while (h->napps)
		tn_app_free(h->apps[h->napps - 1]);
	tn_tx_flush(h);
	ixm_arp_table_free(h->port.arp);
	ixm_nd_table_free(h->port.nd);
	for (i = 0; i < h->nbufs; i++)
		free(h->mbufs[i].buf);
	free(h->mbufs);
	free(h->free);
	free(h->udp);
	free(h->tcp);
	free(h);
}

/**
 * tn_host_begin() - start an iteration: the core reads the clock
 * @h: the host
 */
void tn_host_begin(struct tn_host *h)
{
	h->stack.now_ns = ixm_host_now_ns;
	h->port.now_ns = ixm_host_now_ns;
}

/**
 * tn_host_run() - one iteration of the core's loop (ixm_loop_iterate())
 * @h: the host
 *
 * The ICMPv6 errors other cores handed it (a relay shared with other
 * hosts as the cores of one port), the frames due from the link (if any),
 * every context's calls (as many
 * as its ring holds), TCP's timers and pending output, the frames queued
 * sent, the events published.  With no link, the frames sent are left in
 * @h->port.tx for the caller to read or tn_tx_flush().
 */
void tn_host_run(struct tn_host *h)
{
	tn_host_begin(h);
	/* as the kernel's runner does first (ixm_core_begin_qpair()) */
	if (ixm_icmp6_relay_pending(&h->port))
		ixm_tcp_icmp6_relay_drain(&h->port);
	ixm_loop_iterate(&h->stack, h->link ? h->link->cfg.rx_batch : TN_RX_BATCH,
			 ~0u);
	if (!h->link) {
		memcpy(h->port.tx, h->sent, h->nsent * sizeof(h->sent[0]));
		h->port.ntx = h->nsent;
		h->nsent = 0;
	}
}

/**
 * tn_host_nic() - put a driver's queue and a device model under the host
 * @h: the host
 * @q: the driver's queue (its rings set up), which the host's loop then
 *	polls; NULL: the host's own queue again
 * @nic: the model's entry points, or NULL (the test moves frames itself)
 * @dev: the model's device, passed to them
 *
 * On a link, tn_step() then hands the frames due at @h's end to @nic->rx
 * and puts what @nic->tx sends on the wire; @h->offload is not used (the
 * device does the checksums, or not, as its driver set it up).
 */
void tn_host_nic(struct tn_host *h, struct ixm_queue *q, const struct tn_nic *nic,
		 void *dev)
{
	h->port.queue = q ? q : &h->queue;
	h->nic = nic;
	h->nic_dev = dev;
}

/**
 * tn_input() - a frame arrives on the port, copied into a pool buffer
 * @h: the host
 * @f: the frame
 * @len: its length
 * @flags: IXM_MBUF_F_* as a NIC would set them
 *
 * Return: false if no buffer was free or the frame is too long (nothing
 * happened).
 */
bool tn_input(struct tn_host *h, const u8 *f, size_t len, u16 flags)
{
	struct ixm_mbuf *m;

	if (len > IXM_MBUF_DATA_MAX)
		return false;
	m = ixm_mbuf_alloc(&h->pool);
	if (!m)
		return false;
	tn_host_begin(h);
	memcpy(m->data, f, len);
	m->len = (u16)len;
	m->flags = flags;
	ixm_eth_input(&h->port, m);
	return true;
}

/**
 * tn_tx_flush() - give every queued frame back to the pool, unsent
 * @h: the host
 */
void tn_tx_flush(struct tn_host *h)
{
	unsigned int i;

	for (i = 0; i < h->port.ntx; i++)
		ixm_mbuf_free(h->port.tx[i]);
	h->port.ntx = 0;
}

/**
 * tn_learn() - teach @h that @ip is at @mac
 * @h: the host
 * @ip: the neighbour, host order
 * @mac: its MAC address
 *
 * The neighbour asks for @h's address (RFC 826); @h learns from the
 * request, and its reply is thrown away.
 */
void tn_learn(struct tn_host *h, u32 ip, const u8 *mac)
{
	static const u8 zero[6];
	u8 f[60];

	memset(f, 0, sizeof(f));
	put_arp(put_eth(f, bcast_mac, mac, 0x0806), 1, mac, ip, zero,
		ixm_ntohl(h->cfg.ip));
	tn_input(h, f, sizeof(f), 0);
	tn_tx_flush(h);
}

/**
 * tn_host_ip6() - turn IPv6 on for @h's port
 * @h: the host
 * @addr: its global address (16 bytes)
 * @prefix: the prefix length, 1-128
 *
 * The link-local address is the MAC's modified EUI-64 (ip6.h), as the
 * port's sysfs ipv6 makes it.
 */
void tn_host_ip6(struct tn_host *h, const u8 *addr, u8 prefix)
{
	memcpy(h->cfg.ip6.s6, addr, 16);
	ixm_ip6_linklocal_from_mac(h->cfg.mac, &h->cfg.ll6);
	h->cfg.ip6_prefix = prefix;
}

/**
 * tn_learn6() - teach @h that the IPv6 neighbour @ip is at @mac
 * @h: the host, IPv6 on (tn_host_ip6())
 * @ip: the neighbour's address (16 bytes), on @h's link
 * @mac: its MAC address
 *
 * @h resolves @ip (a solicitation goes out, thrown away) and the
 * neighbour answers with a solicited advertisement (RFC 4861 §7.2.5):
 * the entry is REACHABLE, so sending to @ip sends nothing else for
 * IXM_ND_STALE_NS.
 */
void tn_learn6(struct tn_host *h, const u8 *ip, const u8 *mac)
{
	struct ixm_in6_addr a;
	u8 f[128], got[6];
	size_t len;

	memcpy(a.s6, ip, 16);
	tn_host_begin(h);
	ixm_nd_resolve(&h->port, &a, got);
	tn_tx_flush(h);
	len = na_frame(f, h->cfg.mac, mac, ip, ixm_ip6_addr_is_linklocal(&a) ?
		       h->cfg.ll6.s6 : h->cfg.ip6.s6, ip,
		       IXM_ND_NA_SOLICITED | IXM_ND_NA_OVERRIDE, mac, 255);
	tn_input(h, f, len, 0);
	tn_tx_flush(h);
}

/**
 * tn_rx_ptr() - bytes an event names in the receive region
 * @h: the host the context runs on
 * @off: the event's @off
 * @len: bytes to read there
 *
 * Return: the bytes, or NULL if they do not lie inside one buffer.
 */
const u8 *tn_rx_ptr(const struct tn_host *h, u32 off, u32 len)
{
	u32 idx = off / IXM_MBUF_SIZE, in = off % IXM_MBUF_SIZE;

	if (idx >= h->nbufs || len > IXM_MBUF_SIZE - in)
		return NULL;
	return h->mbufs[idx].buf + in;
}

/**
 * tn_drops() - frames the port dropped, for every reason
 * @h: the host
 *
 * Return: the sum of the drop counters.
 */
u64 tn_drops(const struct tn_host *h)
{
	u64 n = 0;
	unsigned int r;

	for (r = 0; r < IXM_DROP_MAX; r++)
		n += h->stats.drops[r];
	return n;
}

/**
 * tn_app_new() - a context on @h, as IXMOD_IOC_SETUP makes one
 * @h: the host
 * @call_nr: call ring entries, a power of two
 * @event_nr: event ring entries, a power of two
 * @arena_size: transmit arena bytes
 *
 * Return: the context, with zeroed rings and arena.
 */
/*
 * The arena twice over one memfd: as the application writes it, and as the
 * "device" reads it (@a->devview), each page alone in a two-page slot, in
 * an order shuffled by a fixed seed.  The bytes are the same memory, so a
 * frame gathered from @devview carries what the arena holds at that moment,
 * as a NIC's DMA would.
 */
static void tn_arena_map(struct tn_app *a)
{
	size_t pg = (size_t)1 << IXM_PAGE_SHIFT, n, i;
	u64 seed = 0x1e1e;
	u32 *slot;
	int fd;

	n = (a->arena_size + pg - 1) / pg;
	a->map_bytes = (n ? n : 1) * pg;
	n = a->map_bytes / pg;
	fd = (int)syscall(SYS_memfd_create, "tn-arena", 0);	/* no _GNU_SOURCE here */
	if (fd < 0 || ftruncate(fd, (off_t)a->map_bytes))
		die("memfd");
	a->arena = mmap(NULL, a->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	a->devview = mmap(NULL, 2 * a->map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->arena == MAP_FAILED || a->devview == MAP_FAILED)
		die("mmap");
	a->page_dma = tn_zalloc(n * sizeof(*a->page_dma));
	slot = tn_zalloc(n * sizeof(*slot));
	for (i = 0; i < n; i++)
		slot[i] = (u32)i;
	for (i = n; i > 1; i--) {		/* Fisher-Yates */
		size_t j = ref_rand(&seed) % i;
		u32 t = slot[i - 1];

		slot[i - 1] = slot[j];
		slot[j] = t;
	}
	for (i = 0; i < n; i++) {
		u8 *at = a->devview + 2 * pg * slot[i];

		if (mmap(at, pg, PROT_READ, MAP_SHARED | MAP_FIXED, fd, (off_t)(i * pg)) != at)
			die("mmap page");
		a->page_dma[i] = (dma_addr_t)(uintptr_t)at;
	}
	free(slot);
	close(fd);
	a->txmap.page_dma = a->page_dma;
}

/**
 * tn_app_copy_only() - let TCP send from the arena in place, or make it copy
 * @a: the context
 * @on: true: no mapping (as a port whose device could not map the arena)
 */
void tn_app_copy_only(struct tn_app *a, bool on)
{
	a->copy_only = on;
	a->app.txmap = on ? NULL : &a->txmap;
}

struct tn_app *tn_app_new(struct tn_host *h, u32 call_nr, u32 event_nr, u32 arena_size)
{
	struct tn_app *a = tn_zalloc(sizeof(*a));

	if (h->napps == TN_APPS_MAX) {
		fprintf(stderr, "%s: more than %d contexts\n", __func__, TN_APPS_MAX);
		exit(255);
	}
	a->host = h;
	a->call_nr = call_nr;
	a->event_nr = event_nr;
	a->arena_size = arena_size;
	a->calls = tn_zalloc(ixm_ring_bytes(call_nr, sizeof(struct ixmod_call)));
	/* room for either entry size (tn_app_set_event_ext()) */
	a->events = tn_zalloc(ixm_ring_bytes(event_nr, sizeof(struct ixmod_event_ext)));
	a->hold = tn_zalloc(event_nr * sizeof(*a->hold));
	tn_arena_map(a);
	tn_app_reset(a);
	h->apps[h->napps++] = a;
	return a;
}

/**
 * tn_app_reset() - empty rings and a freshly set up context
 * @a: the context (what it held on the core must be released first)
 */
void tn_app_reset(struct tn_app *a)
{
	memset(a->calls, 0, ixm_ring_bytes(a->call_nr, sizeof(struct ixmod_call)));
	memset(a->events, 0, ixm_ring_bytes(a->event_nr, sizeof(struct ixmod_event_ext)));
	if (a->on_loop)
		ixm_stack_del_app(&a->host->stack, &a->app);
	ixm_app_init(&a->app, &a->host->stack, &(struct ixm_app_regions) {
		.call_region = a->calls, .call_nr = a->call_nr,
		.event_region = a->events, .event_nr = a->event_nr,
		.ev_ext = a->ev_ext, .hold = a->hold,
		.sent_in_recv = a->sent_in_recv, .inet6 = a->inet6,
		.txarena = a->arena, .txarena_size = a->arena_size,
		.nslices = 1,
	});
	/* a host reset forgot the frames that counted in it */
	a->txmap.inflight = 0;
	tn_app_copy_only(a, a->copy_only);
	a->call_prod = 0;
	a->event_cons = 0;
	ixm_stack_add_app(&a->host->stack, &a->app);
	a->on_loop = true;
}

/**
 * tn_app_free() - the application closes its context
 * @a: the context
 *
 * What it held on the core is released first (ixm_app_release_all(), as
 * ixmod/ctx.c does on close): buffers, sockets, connections.
 */
void tn_app_free(struct tn_app *a)
{
	struct tn_host *h = a->host;
	unsigned int i;

	ixm_app_release_all(&a->app);
	ixm_stack_del_app(&h->stack, &a->app);
	if (a->txmap.inflight) {
		/* the kernel waits for the NIC here (ixm_ctx_release()) */
		fprintf(stderr, "%s: %u frames still read the arena; send or flush them first\n",
			__func__, a->txmap.inflight);
		exit(255);
	}
	for (i = 0; i < h->napps; i++) {
		if (h->apps[i] == a) {
			h->apps[i] = h->apps[--h->napps];
			h->apps[h->napps] = NULL;
			break;
		}
	}
	free(a->calls);
	free(a->events);
	free(a->hold);
	munmap(a->arena, a->map_bytes);
	munmap(a->devview, 2 * a->map_bytes);
	free(a->page_dma);
	free(a);
}

/**
 * tn_app_submit() - the application writes one call and publishes it (B)
 * @a: the context
 * @c: the call
 *
 * The caller keeps the ring from overflowing: at most @a->call_nr calls
 * not yet consumed.
 */
void tn_app_submit(struct tn_app *a, const struct ixmod_call *c)
{
	struct ixmod_call *e = (struct ixmod_call *)(a->calls + IXM_RING_OFF_ENTRIES);

	e[a->call_prod & (a->call_nr - 1)] = *c;
	a->call_prod++;
	__atomic_store_n(tn_ring_word(a->calls, IXM_RING_OFF_PROD), a->call_prod,
			 __ATOMIC_RELEASE);
}

/**
 * tn_app_run() - the dataplane's turn for this context alone
 * @a: the context
 * @budget: most calls to consume
 *
 * Return: calls consumed; their events are published.
 */
unsigned int tn_app_run(struct tn_app *a, unsigned int budget)
{
	unsigned int n;

	tn_host_begin(a->host);
	n = ixm_app_run_calls(&a->app, budget);
	ixm_app_flush(&a->app);
	return n;
}

/**
 * tn_app_nevents() - events published and not yet taken
 * @a: the context
 *
 * Return: how many.
 */
u32 tn_app_nevents(const struct tn_app *a)
{
	return __atomic_load_n(tn_ring_word(a->events, IXM_RING_OFF_PROD),
			       __ATOMIC_ACQUIRE) - a->event_cons;
}

/**
 * tn_app_event() - the application takes the next event (C, D)
 * @a: the context
 * @ev: filled in
 *
 * Return: false if there is none.
 */
bool tn_app_event(struct tn_app *a, struct ixmod_event *ev)
{
	struct ixmod_event_ext x;

	if (!tn_app_event_ext(a, &x))
		return false;
	*ev = x.ev;
	return true;
}

/**
 * tn_app_event_ext() - take the next event with its extension
 * @a: the context
 * @x: filled in; with 32-byte events (the default) @x->handle and
 *	@x->resv are zero
 *
 * Return: false if there is none.
 */
bool tn_app_event_ext(struct tn_app *a, struct ixmod_event_ext *x)
{
	const u8 *e = a->events + IXM_RING_OFF_ENTRIES;
	u32 i = a->event_cons & (a->event_nr - 1);

	if (!tn_app_nevents(a))
		return false;
	memset(x, 0, sizeof(*x));
	if (a->ev_ext)
		*x = ((const struct ixmod_event_ext *)e)[i];
	else
		x->ev = ((const struct ixmod_event *)e)[i];
	a->event_cons++;
	__atomic_store_n(tn_ring_word(a->events, IXM_RING_OFF_CONS), a->event_cons,
			 __ATOMIC_RELEASE);
	return true;
}

/**
 * tn_app_set_event_ext() - set the context up again with 64-byte events
 * @a: the context, holding nothing on the core yet
 * @on: struct ixmod_event_ext entries (IXMOD_SETUP_EVENT_EXT), or not
 */
void tn_app_set_event_ext(struct tn_app *a, bool on)
{
	a->ev_ext = on;
	tn_app_reset(a);
}

/**
 * tn_app_set_inet6() - set the context up again with IPv6 peers
 *	(IXMOD_SETUP_INET6, which implies IXMOD_SETUP_EVENT_EXT), or not
 * @a: the context, holding nothing on the core yet
 * @on: the flag
 */
void tn_app_set_inet6(struct tn_app *a, bool on)
{
	a->inet6 = on;
	if (on)
		a->ev_ext = true;
	tn_app_reset(a);
}

/**
 * tn_app_set_sent_in_recv() - set the context up again with acknowledged
 * bytes carried on TCP_RECV events (IXMOD_SETUP_SENT_IN_RECV), or not
 * @a: the context, holding nothing on the core yet
 * @on: the flag
 */
void tn_app_set_sent_in_recv(struct tn_app *a, bool on)
{
	a->sent_in_recv = on;
	tn_app_reset(a);
}

/**
 * tn_app_call() - submit @c, run it and take the one event it must produce
 * @a: the context
 * @c: the call
 * @ev: the event
 *
 * Return: its res, or TN_NO_EVENT if the call was not consumed or it
 * produced no event or more than one.
 */
int tn_app_call(struct tn_app *a, const struct ixmod_call *c, struct ixmod_event *ev)
{
	struct ixmod_event tmp;

	tn_app_submit(a, c);
	if (tn_app_run(a, 64) != 1 || !tn_app_event(a, ev))
		return TN_NO_EVENT;
	if (tn_app_event(a, &tmp))
		return TN_NO_EVENT;
	return ev->res;
}

/*
 * The TCP calls as uapi/linux/ixmod.h describes them, every field the
 * opcode does not use zero; @port and @ip in host order.
 */
struct ixmod_call tn_call_listen(u16 port, u32 backlog, u64 user_data)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_TCP_LISTEN, .port = ixm_htons(port),
		.len = backlog, .user_data = user_data,
	};

	return c;
}

struct ixmod_call tn_call_accept(u64 handle, u64 cookie)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_TCP_ACCEPT, .handle = handle, .user_data = cookie,
	};

	return c;
}

struct ixmod_call tn_call_connect(u32 ip, u16 port, u64 cookie)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_TCP_CONNECT, .addr = be32_of(ip),
		.port = ixm_htons(port), .user_data = cookie,
	};

	return c;
}

struct ixmod_call tn_call_sendv(u64 handle, u32 iov_off, u32 niov, u64 user_data)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_TCP_SENDV, .handle = handle, .off = iov_off,
		.len = niov, .user_data = user_data,
	};

	return c;
}

struct ixmod_call tn_call_send(u64 handle, u32 off, u32 len, u64 user_data)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_TCP_SEND, .handle = handle, .off = off,
		.len = len, .user_data = user_data,
	};

	return c;
}

struct ixmod_call tn_call_recv_done(u64 handle, u32 len)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_TCP_RECV_DONE, .handle = handle, .len = len,
	};

	return c;
}

struct ixmod_call tn_call_close(u64 handle, bool abort)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_TCP_CLOSE, .handle = handle,
		.flags = abort ? IXMOD_CALL_F_ABORT : 0,
	};

	return c;
}

struct ixmod_call tn_call_shutdown(u64 handle, u64 user_data)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_TCP_SHUTDOWN, .handle = handle, .user_data = user_data,
	};

	return c;
}

/**
 * tn_link_new() - join two hosts
 * @a: end 0
 * @b: end 1
 * @cfg: impairments; NULL for a clean link
 *
 * Return: the link.
 */
struct tn_link *tn_link_new(struct tn_host *a, struct tn_host *b,
			    const struct tn_link_cfg *cfg)
{
	struct tn_link *l = tn_zalloc(sizeof(*l));

	l->host[0] = a;
	l->host[1] = b;
	a->link = l;
	a->end = 0;
	b->link = l;
	b->end = 1;
	if (cfg)
		l->cfg = *cfg;
	if (!l->cfg.reorder_steps)
		l->cfg.reorder_steps = 3;
	if (!l->cfg.rx_batch)
		l->cfg.rx_batch = TN_RX_BATCH;
	if (!l->cfg.rx_ring)
		l->cfg.rx_ring = 4096;
	if (!l->cfg.step_ns)
		l->cfg.step_ns = TN_STEP_NS;
	l->rng = l->cfg.seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	if (!l->rng)
		l->rng = 1;
	return l;
}

/**
 * tn_link_free() - drop what is on the wire and free the link
 * @l: the link (the hosts stay)
 */
void tn_link_free(struct tn_link *l)
{
	struct tn_frame *f, *next;
	unsigned int i;

	for (f = l->head; f; f = next) {
		next = f->next;
		free(f);
	}
	for (i = 0; i < 2; i++) {
		/* the buffers on the wire go back to the pool */
		tn_q_tx_reap(&l->host[i]->queue);
		l->host[i]->link = NULL;
	}
	free(l);
}

static bool tn_chance(struct tn_link *l, u32 ppm)
{
	return ppm && ref_rand(&l->rng) % 1000000 < ppm;
}

/* A copy of @f on its way to end @to, arriving after @extra more steps. */
static void tn_wire_put(struct tn_link *l, unsigned int to, const u8 *data, size_t len,
			u64 extra)
{
	struct tn_frame *f;

	if (l->inflight[to] >= l->cfg.rx_ring) {
		l->stats.overflow++;
		return;
	}
	f = tn_zalloc(sizeof(*f) + len);
	f->due = l->step + 1 + l->cfg.delay + extra;
	f->to = to;
	f->len = len;
	memcpy(f->data, data, len);
	if (l->tail)
		l->tail->next = f;
	else
		l->head = f;
	l->tail = f;
	l->inflight[to]++;
}

/*
 * One bit of an IPv4 or IPv6 packet (header included), never of the
 * Ethernet header.  IPv6 has no header checksum, and nothing covers its
 * traffic class, flow label and hop limit (RFC 8200 §8.1's pseudo-header
 * leaves them out): those 36 bits are left alone, so that every bit
 * flipped is one some check must catch.
 */
static void tn_corrupt(struct tn_link *l, u8 *f, size_t len)
{
	size_t ip_len = len - 14;
	u64 bit;

	if (get16(f + 12) == 0x86dd && len >= 14 + 40 && 40u + get16(f + 18) <= ip_len) {
		ip_len = 40u + get16(f + 18);
		bit = ref_rand(&l->rng) % (ip_len * 8 - 36);
		/* the version's 4 bits, then from the payload length on */
		bit = bit < 4 ? bit : bit < 28 ? 32 + (bit - 4) : 64 + (bit - 28);
		/* bits count from the left of each byte here: the version is 4-7 */
		if (bit < 4)
			bit += 4;
		f[14 + bit / 8] ^= (u8)(1u << (bit % 8));
		l->stats.corrupted++;
		return;
	}
	if (len >= 14 + 20 && get16(f + 16) >= 20 && get16(f + 16) <= ip_len)
		ip_len = get16(f + 16);
	bit = ref_rand(&l->rng) % (ip_len * 8);
	f[14 + bit / 8] ^= (u8)(1u << (bit % 8));
	l->stats.corrupted++;
}

/*
 * The checksum offload of the Intel advanced descriptors, done the way
 * the NIC does it (82576 §7.2.2.3; ixm_adv_tx_burst()) and checked
 * against ref.h rather than ixmod's own checksum code: the IPv4 header's
 * checksum over the header as built, and the TCP or UDP checksum over
 * the segment from its header to the IP total length, summing the
 * checksum field as the protocols left it (the pseudo-header's sum).  A
 * frame that breaks that contract goes out with wrong checksums, and the
 * peer drops it.  IXM_MBUF_F_TX_IPV6: the segment after a 40-byte IPv6
 * header, to its payload length; no header checksum.
 */
static void tn_nic_tx_csum(u8 *f, size_t len, u16 flags)
{
	size_t tot = len >= 18 ? get16(f + 16) : 0, l4 = 14 + 20;
	u16 ck;

	if (!(flags & IXM_MBUF_F_TX_CSUM))
		return;
	if (flags & IXM_MBUF_F_TX_IPV6) {
		l4 = 14 + 40;
		tot = len >= l4 ? 40 + get16(f + 18) : 0;
		if (len < l4 + 8 || get16(f + 12) != 0x86dd || f[14] >> 4 != 6 ||
		    f[20] != ((flags & IXM_MBUF_F_TX_TCP_CSUM) ? 6 : 17) || 14 + tot > len)
			die("IPv6 checksum offload asked of a frame not TCP/UDP after 40 bytes");
	} else if (len < l4 + 8 || f[14] != 0x45 || tot < 28 || 14 + tot > len) {
		die("checksum offload asked for a frame that is not IPv4 without options");
	} else {
		put16(f + 24, ref_csum(f + 14, 20));
	}
	ck = ref_csum(f + l4, 14 + tot - l4);
	if ((flags & IXM_MBUF_F_TX_UDP_CSUM) && !ck)
		ck = 0xffff;
	put16(f + l4 + ((flags & IXM_MBUF_F_TX_TCP_CSUM) ? 16 : 6), ck);
}

/* What the NIC tells of a received frame's checksums (intel_adv.c). */
static u16 tn_nic_rx_csum(const u8 *f, size_t len)
{
	size_t hlen, tot;
	u16 flags;

	if (len < 14 + 20 || get16(f + 12) != 0x0800 || f[14] >> 4 != 4)
		return 0;
	hlen = (f[14] & 15) * 4u;
	tot = get16(f + 16);
	if (hlen < 20 || tot < hlen || 14 + tot > len)
		return 0;
	flags = ref_csum(f + 14, hlen) ? IXM_MBUF_F_IP_CSUM_BAD : IXM_MBUF_F_IP_CSUM_OK;
	if ((f[23] == 6 || f[23] == 17) && !(get16(f + 20) & 0x3fff) &&
	    tot - hlen >= (f[23] == 6 ? 20u : 8u) &&
	    !(f[23] == 17 && !get16(f + 14 + hlen + 6)))
		flags |= ref_l4_csum(get32(f + 26), get32(f + 30), f[23], f + 14 + hlen,
				     tot - hlen) ? IXM_MBUF_F_L4_CSUM_BAD :
						   IXM_MBUF_F_L4_CSUM_OK;
	return flags;
}

/* Whether frame @f is a TCP/IPv4 segment with data (its lengths trusted). */
static bool tn_tcp_data(const u8 *f, size_t len)
{
	size_t hlen, tot;

	/* over IPv6 with no extension header: the payload past TCP's header */
	if (len >= 14 + 40 + 20 && get16(f + 12) == 0x86dd && f[20] == 6)
		return get16(f + 18) > (f[14 + 40 + 12] >> 4) * 4u;
	if (len < 14 + 40 || get16(f + 12) != 0x0800 || f[23] != 6)
		return false;
	hlen = (f[14] & 15) * 4u;
	tot = get16(f + 16);
	return tot > hlen + ((f[14 + hlen + 12] >> 4) * 4u);
}

/*
 * An IPv6 packet in @f (@len bytes of frame) over the link's @mtu6: the
 * router sends its sender a Packet Too Big (RFC 4443 §3.2) quoting as
 * much of it as keeps the message within 1280 bytes (§2.4 (c)), from the
 * MAC the frame went to.  Return: whether @f was too big.
 */
static bool tn_too_big(struct tn_link *l, unsigned int from, const u8 *f, size_t len)
{
	static const u8 router[16] = TN_ROUTER6;
	u8 ptb[14 + 1280], *ip6 = ptb + 14, *msg = ip6 + 40;
	size_t q;

	if (!l->cfg.mtu6 || len < 14 + 40 || get16(f + 12) != 0x86dd || len - 14 <= l->cfg.mtu6)
		return false;
	l->stats.too_big++;
	q = min_t(size_t, len - 14, 1280 - 40 - 8);
	memcpy(ptb, f + 6, 6);
	memcpy(ptb + 6, f, 6);
	put16(ptb + 12, 0x86dd);
	put32(ip6, 0x60000000);
	put16(ip6 + 4, (u16)(8 + q));
	ip6[6] = 58;
	ip6[7] = 255;
	memcpy(ip6 + 8, router, 16);
	memcpy(ip6 + 24, f + 14 + 8, 16);	/* to the packet's source */
	msg[0] = 2;
	msg[1] = 0;
	put16(msg + 2, 0);
	put32(msg + 4, l->cfg.mtu6);
	memcpy(msg + 8, f + 14, q);
	put16(msg + 2, ref_l4_csum6(ip6 + 8, ip6 + 24, 58, msg, 8 + q));
	if (l->ptb_host)	/* RSS sent it to another core of the sender's port */
		tn_input(l->ptb_host, ptb, 14 + 40 + 8 + q, 0);
	else
		tn_wire_put(l, from, ptb, 14 + 40 + 8 + q, 0);
	l->stats.ptb_sent++;
	return true;
}

/* Frame @copy from end @from goes on the wire, impaired. */
static void tn_wire_send(struct tn_link *l, unsigned int from, u8 *copy, size_t len)
{
	unsigned int n;

	l->stats.sent++;
	if (l->tap)
		l->tap(l->tap_arg, from, copy, len);
	if (tn_too_big(l, from, copy, len))
		return;
	if (tn_chance(l, l->cfg.loss_ppm)) {
		l->stats.lost++;
		if (tn_tcp_data(copy, len))
			l->stats.lost_data++;
		return;
	}
	if (len > 14 && (get16(copy + 12) == 0x0800 || get16(copy + 12) == 0x86dd) &&
	    tn_chance(l, l->cfg.corrupt_ppm))
		tn_corrupt(l, copy, len);
	n = 1;
	if (tn_chance(l, l->cfg.dup_ppm)) {
		l->stats.duplicated++;
		n = 2;
	}
	/*
	 * A queue that marks (RED's or fq_codel's ce_threshold, reduced to a
	 * step): an ECT IPv4 packet that finds @ce_thresh frames waiting for
	 * its host becomes CE (RFC 3168 §5), the header checksum redone.
	 */
	if (l->cfg.ce_thresh && l->inflight[!from] >= l->cfg.ce_thresh &&
	    len >= 14 + 20 && get16(copy + 12) == 0x0800 && (copy[15] & 3)) {
		copy[15] |= 3;
		put16(copy + 24, 0);
		put16(copy + 24, ref_csum(copy + 14, (copy[14] & 15) * 4u));
		l->stats.ce_marked++;
	}
	if (l->inflight[!from] > l->stats.queue_max[!from])
		l->stats.queue_max[!from] = l->inflight[!from];
	while (n--) {
		u64 extra = 0;

		if (tn_chance(l, l->cfg.reorder_ppm)) {
			l->stats.reordered++;
			extra = 1 + ref_rand(&l->rng) % l->cfg.reorder_steps;
		}
		tn_wire_put(l, !from, copy, len, extra);
	}
}

/* A frame end @from sends goes on the wire (its buffer stays the sender's). */
static void tn_wire_tx(struct tn_link *l, unsigned int from, struct ixm_mbuf *m)
{
	static u8 copy[IXM_MBUF_SIZE];
	size_t len = frame_gather(m, copy, sizeof(copy));

	if (!len)
		die("a frame over a buffer's size or IXM_MBUF_FRAGS fragments");
	tn_nic_tx_csum(copy, len, m->flags);
	tn_wire_send(l, from, copy, len);
}

struct tn_nic_out {
	struct tn_link	*l;
	unsigned int	from;
};

/* A frame a host's device model transmits goes on the wire. */
static void tn_nic_sent(const u8 *f, unsigned int len, void *arg)
{
	static u8 copy[IXM_MBUF_SIZE];
	struct tn_nic_out *o = arg;

	if (len > sizeof(copy))
		die("the device sent a frame over a buffer's size");
	memcpy(copy, f, len);
	tn_wire_send(o->l, o->from, copy, len);
}

/* A walk along the wire, from its oldest frame (tn_wire_take()). */
struct tn_wire_cursor {
	struct tn_frame	**pp;
	struct tn_frame	*prev;
};

/*
 * The next frame due at end @to from @c on, taken off the wire; NULL when
 * none is left.  @c stays where it was, so a batch is one pass.
 */
static struct tn_frame *tn_wire_take(struct tn_link *l, unsigned int to,
				     struct tn_wire_cursor *c)
{
	struct tn_frame *f;

	for (; (f = *c->pp); c->prev = f, c->pp = &f->next) {
		if (f->to != to || f->due > l->step)
			continue;
		*c->pp = f->next;
		if (l->tail == f)
			l->tail = c->prev;
		l->inflight[to]--;
		return f;
	}
	return NULL;
}

/* The frames due at end @to arrive, oldest first, a batch at most. */
static unsigned int tn_wire_rx(struct tn_link *l, unsigned int to,
			       struct ixm_mbuf **out, unsigned int max)
{
	struct tn_wire_cursor c = { &l->head, NULL };
	struct tn_host *h = l->host[to];
	struct tn_frame *f;
	unsigned int n = 0;

	max = min_t(unsigned int, max, l->cfg.rx_batch);
	while (n < max && (f = tn_wire_take(l, to, &c))) {
		struct ixm_mbuf *m = ixm_mbuf_alloc(&h->pool);

		if (!m) {
			l->stats.nobuf++;	/* the NIC had no buffer: dropped */
		} else {
			memcpy(m->data, f->data, f->len);
			m->len = (u16)f->len;
			m->flags = h->offload ? tn_nic_rx_csum(f->data, f->len) : 0;
			out[n++] = m;
			l->stats.delivered++;
		}
		free(f);
	}
	return n;
}

/* The frames due at end @to reach its device model, a batch at most. */
static void tn_nic_deliver(struct tn_link *l, unsigned int to)
{
	struct tn_wire_cursor c = { &l->head, NULL };
	struct tn_host *h = l->host[to];
	struct tn_frame *f;
	unsigned int n;

	for (n = 0; n < l->cfg.rx_batch && (f = tn_wire_take(l, to, &c)); n++) {
		if (h->nic->rx(h->nic_dev, f->data, f->len))
			l->stats.delivered++;
		else
			l->stats.nobuf++;	/* no descriptor, link or queue: dropped */
		free(f);
	}
}

/**
 * tn_step() - one iteration of both cores and the wire between them
 * @l: the link
 *
 * The clock advances by @l->cfg.step_ns; each host runs one iteration of
 * the loop (tn_host_run()): it takes the frames due at its end, and what
 * it sends is due at the other end a step later at the earliest.
 */
void tn_step(struct tn_link *l)
{
	unsigned int i;

	ixm_host_now_ns += l->cfg.step_ns;
	l->step++;
	l->stats.queue_sum[0] += l->inflight[0];
	l->stats.queue_sum[1] += l->inflight[1];
	for (i = 0; i < 2; i++) {
		struct tn_host *h = l->host[i];
		struct tn_nic_out o = { l, i };

		if (h->nic)
			tn_nic_deliver(l, i);
		tn_host_run(h);
		if (h->nic)
			h->nic->tx(h->nic_dev, tn_nic_sent, &o);
	}
}

/**
 * tn_idle() - let time pass in coarser steps
 * @l: the link
 * @ns: how long
 * @step_ns: the step meanwhile
 */
void tn_idle(struct tn_link *l, u64 ns, u64 step_ns)
{
	u64 saved = l->cfg.step_ns, done;

	l->cfg.step_ns = step_ns;
	for (done = 0; done < ns; done += step_ns)
		tn_step(l);
	l->cfg.step_ns = saved;
}
