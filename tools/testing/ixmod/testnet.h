/* SPDX-License-Identifier: GPL-2.0 */
/*
 * testnet.h - hosts, applications and a lossy link, all in memory
 *
 * A host is what one dataplane core is to the portable code: a struct
 * ixm_stack with one port (address in 198.18.0.0/15, RFC 2544's
 * benchmarking range), its ARP table, a pool of buffers, a UDP table and
 * a TCP table.  An application is a context on that core (struct ixm_app)
 * whose rings, hold-back queue and transmit arena are plain memory: the
 * test plays the application through tn_app_submit() and tn_app_event(),
 * as libixu would.
 *
 * A link joins two hosts.  Each tn_step() is one iteration of both cores,
 * in the dataplane's order (ixmod/dp.c): the frames due arrive through
 * ixm_eth_input() (a bounded batch, like an RX ring), the contexts' calls
 * run, ixm_tcp_poll() runs the timers and pending output, and what each
 * port queued in port->tx goes on the wire, where a seeded PRNG loses,
 * duplicates, delays, reorders or corrupts it.  The same seed gives the
 * same run, so a failure is reproduced by its seed.
 *
 * A host may instead drive a device model (tn_host_nic(): a modelled
 * 82599 or virtio-net device under the real queue driver, whose queue the
 * host's loop then polls): the frames due at its end are then
 * handed to the device before its iteration, and what the device
 * transmits after it goes on the wire.
 *
 * Corruption flips one bit of an IPv4 packet, never of the Ethernet header
 * or of an ARP packet: a real NIC's FCS would have caught those, and no
 * checksum above covers them.  One flipped bit of an IPv4 packet is always
 * caught, by the IP, TCP or UDP checksum or by a length check before it,
 * so every corrupted frame is dropped and counted, and nothing corrupted
 * may ever reach an application.
 *
 * The clock is platform_user.h's ixm_host_now_ns, shared by every host:
 * a step advances it by the link's step_ns.
 */
#ifndef _IXM_TEST_TESTNET_H
#define _IXM_TEST_TESTNET_H

#include "app.h"
#include "arp.h"
#include "call.h"
#include "ip6.h"
#include "loop.h"
#include "net.h"
#include "nic.h"
#include "tcp.h"
#include "udp.h"

#define TN_IP(n)		(0xc6120000u + (n))	/* 198.18.0.n, host order */
#define TN_BUFS_DEF		IXM_RX_SLICE_BUFS	/* a full receive slice */
#define TN_APPS_MAX		8
#define TN_STEP_NS		100000ULL		/* 100 us per step */
#define TN_RX_BATCH		64			/* frames a step delivers */
#define TN_NO_EVENT		(-100000)		/* tn_app_call(): not one event */
/* 2001:db8::fe, the router of @mtu6 (struct tn_link_cfg) */
#define TN_ROUTER6		{ 0x20, 0x01, 0x0d, 0xb8, [15] = 0xfe }

struct tn_app;

/**
 * struct tn_host_cfg - how to build a host (zero fields take defaults)
 * @ip: address, host order (default TN_IP(1))
 * @prefix: prefix length (default 24)
 * @mac: MAC address (default 02:00:5e:00:01:<last byte of @ip>)
 * @nbufs: buffers in the pool, at most IXM_RX_SLICE_BUFS (default all)
 * @tcp: TCP knobs (default ixm_tcp_config_default())
 * @seed: makes the TCP secret (ISNs, cookies, timestamp offset)
 * @offload: the port's NIC does checksums (tn_host_offload())
 * @cc: the port's congestion control (IXM_CC_*, default NewReno)
 */
struct tn_host_cfg {
	u32				ip;
	u8				prefix;
	const u8			*mac;
	u32				nbufs;
	const struct ixm_tcp_config	*tcp;
	u64				seed;
	bool				offload;
	u8				cc;
};

/**
 * struct tn_host - one core with one port
 * @stack: the core's protocol state
 * @port: the port as the core sees it
 * @queue: the port's queue pair as ixm_loop_iterate() sees it: the wire of
 *	@link, or, with no link, nothing received and what is sent left in
 *	@port.tx for the test to read (@port.queue points here unless a
 *	driver's queue replaces it: tn_host_nic())
 * @link: the link the port is on, or NULL
 * @end: its end of @link
 * @sent: frames on the wire whose buffers the next reap frees
 * @nsent: how many
 * @ports: @stack's port array
 * @cfg: the port's address
 * @stats: the port's counters
 * @pool: the core's buffers for the port; receive slice 0 of its contexts
 * @mbufs: @pool's descriptors; buffer i's data is a malloc'ed 2 KiB block
 * @free: @pool's free stack
 * @nbufs: buffers in @pool
 * @udp: UDP sockets
 * @tcp: TCP connections and listeners
 * @tcp_cfg: the knobs @tcp was made with
 * @secret: the TCP secret
 * @apps: its contexts
 * @napps: how many
 * @offload: its NIC inserts and checks checksums as igb's does
 *	(tn_host_offload())
 * @tx_csum_hw: frames its queue took with their checksums left to that
 *	NIC (IXM_MBUF_F_TX_CSUM), as a driver's tx_csum_hw counts them
 * @nic: a device model under port.queue (tn_host_nic()), or NULL
 * @nic_dev: that model's device
 */
struct tn_link;
struct tn_nic;

struct tn_host {
	struct ixm_stack	stack;
	struct ixm_net_port	port;
	struct ixm_queue	queue;
	struct tn_link		*link;
	unsigned int		end;
	struct ixm_mbuf		*sent[IXM_TX_BATCH];
	unsigned int		nsent;
	struct ixm_net_port	*ports[1];
	struct ixm_if_config	cfg;
	struct ixm_net_stats	stats;
	struct ixm_mbuf_pool	pool;
	struct ixm_mbuf		*mbufs;
	struct ixm_mbuf		**free;
	u32			nbufs;
	struct ixm_udp_table	*udp;
	struct ixm_tcp_table	*tcp;
	struct ixm_tcp_config	tcp_cfg;
	u64			secret[4];
	struct tn_app		*apps[TN_APPS_MAX];
	unsigned int		napps;
	bool			offload;
	u64			tx_csum_hw;
	const struct tn_nic	*nic;
	void			*nic_dev;
};

/**
 * struct tn_app - a context and the application's side of it
 * @app: the kernel's state of the context
 * @host: its core
 * @calls: the call ring region
 * @events: the event ring region
 * @hold: the hold-back queue
 * @arena: the transmit arena (the application writes it)
 * @arena_size: its bytes
 * @devview: the same pages as the NIC sees them: mapped a second time,
 *	each alone in a two-page slot, in shuffled order, so no two are
 *	neighbours and TCP must gather page by page (bus address = address)
 * @map_bytes: the arena's bytes rounded up to pages
 * @page_dma: each arena page's address in @devview
 * @txmap: what @app.txmap points to
 * @ev_ext: its events are struct ixmod_event_ext (tn_app_set_event_ext())
 * @sent_in_recv: IXMOD_SETUP_SENT_IN_RECV (tn_app_set_sent_in_recv())
 * @inet6: IXMOD_SETUP_INET6 (tn_app_set_inet6())
 * @copy_only: TCP is given no mapping and copies (tn_app_copy_only())
 * @on_loop: @app is on its host's &struct ixm_stack.apps
 * @call_nr: call ring entries
 * @event_nr: event ring entries
 * @call_prod: the application's producer index of the call ring
 * @event_cons: its consumer index of the event ring
 */
struct tn_app {
	struct ixm_app		app;
	struct tn_host		*host;
	u8			*calls;
	u8			*events;
	struct ixmod_event_ext	*hold;
	bool			ev_ext;
	bool			sent_in_recv;
	bool			inet6;
	u8			*arena;
	u32			arena_size;
	u8			*devview;
	size_t			map_bytes;
	dma_addr_t		*page_dma;
	struct ixm_app_txmap	txmap;
	bool			copy_only;
	bool			on_loop;
	u32			call_nr;
	u32			event_nr;
	u32			call_prod;
	u32			event_cons;
};

/* A device's callback for each frame it transmits. */
typedef void (*tn_nic_sent_fn)(const u8 *f, unsigned int len, void *arg);

/**
 * struct tn_nic - a device model between a host's queue pair and the wire
 * @rx: a frame from the wire reaches the device, which writes it to its
 *	receive ring (and the host's driver finds it there); false if the
 *	device dropped it
 * @tx: the device sends what its transmit ring holds, calling @sent for
 *	each frame; returns how many
 */
struct tn_nic {
	bool		(*rx)(void *dev, const u8 *f, size_t len);
	unsigned int	(*tx)(void *dev, tn_nic_sent_fn sent, void *arg);
};

/**
 * struct tn_link_cfg - impairments of a link, in parts per million
 * @loss_ppm: frames lost
 * @dup_ppm: frames delivered twice
 * @reorder_ppm: frames held back 1..@reorder_steps extra steps
 * @corrupt_ppm: IPv4 frames with one bit of the IP packet flipped
 * @delay: steps every frame spends on the wire beyond the next step
 * @reorder_steps: the longest hold-back (default 3)
 * @rx_batch: frames a host takes per step (default TN_RX_BATCH)
 * @rx_ring: frames that may wait for a host; more are dropped
 *	(default 4096)
 * @step_ns: clock advance per step (default TN_STEP_NS)
 * @seed: of the impairments
 * @ce_thresh: an ECT packet that finds this many frames waiting for its
 *	host is marked CE; 0: never
 * @mtu6: an IPv6 packet over this many bytes (its header included) is
 *	not delivered: its sender gets an ICMPv6 Packet Too Big with this
 *	MTU from TN_ROUTER6, quoting it (RFC 4443 §3.2), as from a router
 *	whose next link is smaller; 0: no limit
 */
struct tn_link_cfg {
	u32		loss_ppm;
	u32		dup_ppm;
	u32		reorder_ppm;
	u32		corrupt_ppm;
	u32		delay;
	u32		reorder_steps;
	u32		rx_batch;
	u32		rx_ring;
	u64		step_ns;
	u64		seed;
	u32		ce_thresh;
	u32		mtu6;
};

/**
 * struct tn_link_stats - what the link did
 * @sent: frames the hosts queued
 * @delivered: frames handed to ixm_eth_input()
 * @lost: frames dropped by @loss_ppm
 * @lost_data: of those, TCP segments that carried data
 * @duplicated: extra copies made
 * @reordered: copies held back
 * @corrupted: frames with a bit flipped
 * @overflow: frames dropped because @rx_ring was full
 * @nobuf: frames dropped because the receiver's pool was empty
 * @ce_marked: packets marked CE (@ce_thresh)
 * @too_big: IPv6 packets over @mtu6, not delivered
 * @ptb_sent: Packet Too Bigs sent back for them
 * @queue_max: the most frames seen waiting for each host
 * @queue_sum: frames waiting for each host, summed over the steps
 */
struct tn_link_stats {
	u64	sent;
	u64	delivered;
	u64	lost;
	u64	lost_data;
	u64	duplicated;
	u64	reordered;
	u64	corrupted;
	u64	overflow;
	u64	nobuf;
	u64	ce_marked;
	u64	too_big;
	u64	ptb_sent;
	u32	queue_max[2];
	u64	queue_sum[2];
};

struct tn_frame;

/* Sees every frame a host sends, before impairments. */
typedef void (*tn_tap_fn)(void *arg, unsigned int from, const u8 *f, size_t len);

/**
 * struct tn_link - two hosts and the frames between them
 * @host: the two ends
 * @cfg: impairments
 * @stats: counters
 * @rng: PRNG state (ref_rand())
 * @step: steps taken
 * @head: frames on the wire, in the order they were sent
 * @tail: the newest
 * @inflight: frames on the wire toward each host
 * @tap: optional observer
 * @tap_arg: its argument
 * @ptb_host: if set, the Packet Too Bigs of @cfg.mtu6 go to this host
 *	(another core of the sender's port) instead of the sender
 */
struct tn_link {
	struct tn_host		*host[2];
	struct tn_link_cfg	cfg;
	struct tn_link_stats	stats;
	unsigned long long	rng;
	u64			step;
	struct tn_frame		*head;
	struct tn_frame		*tail;
	u32			inflight[2];
	tn_tap_fn		tap;
	void			*tap_arg;
	struct tn_host		*ptb_host;
};

/* Hosts */
struct tn_host *tn_host_new(const struct tn_host_cfg *cfg);
void tn_host_offload(struct tn_host *h, bool on);
void tn_host_free(struct tn_host *h);
void tn_host_reset(struct tn_host *h);
void tn_host_begin(struct tn_host *h);
void tn_host_run(struct tn_host *h);
bool tn_input(struct tn_host *h, const u8 *f, size_t len, u16 flags);
void tn_tx_flush(struct tn_host *h);
void tn_host_nic(struct tn_host *h, struct ixm_queue *q, const struct tn_nic *nic,
		 void *dev);
void tn_learn(struct tn_host *h, u32 ip, const u8 *mac);
void tn_host_ip6(struct tn_host *h, const u8 *addr, u8 prefix);
void tn_learn6(struct tn_host *h, const u8 *ip, const u8 *mac);
const u8 *tn_rx_ptr(const struct tn_host *h, u32 off, u32 len);
u64 tn_drops(const struct tn_host *h);

/* Applications */
struct tn_app *tn_app_new(struct tn_host *h, u32 call_nr, u32 event_nr, u32 arena_size);
void tn_app_free(struct tn_app *a);
void tn_app_reset(struct tn_app *a);
void tn_app_copy_only(struct tn_app *a, bool on);
void tn_app_submit(struct tn_app *a, const struct ixmod_call *c);
unsigned int tn_app_run(struct tn_app *a, unsigned int budget);
u32 tn_app_nevents(const struct tn_app *a);
bool tn_app_event(struct tn_app *a, struct ixmod_event *ev);
bool tn_app_event_ext(struct tn_app *a, struct ixmod_event_ext *x);
void tn_app_set_event_ext(struct tn_app *a, bool on);
void tn_app_set_sent_in_recv(struct tn_app *a, bool on);
void tn_app_set_inet6(struct tn_app *a, bool on);
int tn_app_call(struct tn_app *a, const struct ixmod_call *c, struct ixmod_event *ev);
u32 *tn_ring_word(u8 *region, size_t off);

/* Calls, as an application writes them */
struct ixmod_call tn_call_listen(u16 port, u32 backlog, u64 user_data);
struct ixmod_call tn_call_accept(u64 handle, u64 cookie);
struct ixmod_call tn_call_connect(u32 ip, u16 port, u64 cookie);
struct ixmod_call tn_call_sendv(u64 handle, u32 iov_off, u32 niov, u64 user_data);
struct ixmod_call tn_call_send(u64 handle, u32 off, u32 len, u64 user_data);
struct ixmod_call tn_call_recv_done(u64 handle, u32 len);
struct ixmod_call tn_call_close(u64 handle, bool abort);
struct ixmod_call tn_call_shutdown(u64 handle, u64 user_data);

/* Links */
struct tn_link *tn_link_new(struct tn_host *a, struct tn_host *b,
			    const struct tn_link_cfg *cfg);
void tn_link_free(struct tn_link *l);
void tn_step(struct tn_link *l);
void tn_idle(struct tn_link *l, u64 ns, u64 step_ns);

#endif /* _IXM_TEST_TESTNET_H */
