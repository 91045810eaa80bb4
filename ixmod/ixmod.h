/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ixmod.h - kernel-side types shared by the files of ixmod.ko
 *
 * Only the kernel glue in ixmod/ includes this; the portable code in
 * ixmod/base/, ixmod/net/ and ixmod/nic/ must not (it sees only
 * base/platform.h).
 *
 * Ownership: a struct ixm_core is created and destroyed by the control
 * plane (sysfs writes, module exit) under ixm_cfg_lock.  Its stats are
 * written only by the core's own dataplane thread and read locklessly by
 * sysfs; everything else in it is written under ixm_cfg_lock.
 */
#ifndef _IXMOD_IXMOD_H
#define _IXMOD_IXMOD_H

#include <linux/cache.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "base/mbuf.h"
#include "net/app.h"
#include "net/net.h"
#include "net/tcp.h"
#include "net/udp.h"
#include "nic/nic.h"

struct task_struct;
struct pci_dev;
struct ixm_port;

/* What IXMOD_IOC_GET_INFO and IXMOD_IOC_SETUP report and take. */
#define IXM_FEAT_ALL		(IXMOD_FEAT_RINGS | IXMOD_FEAT_UDP | IXMOD_FEAT_NODROP | \
				 IXMOD_FEAT_TCP | IXMOD_FEAT_RUN | IXMOD_FEAT_HANDLE_KIND | \
				 IXMOD_FEAT_LIMITS | IXMOD_FEAT_EVENT_EXT | \
				 IXMOD_FEAT_SENT_IN_RECV | IXMOD_FEAT_SHUTDOWN | \
				 IXMOD_FEAT_INET6 | IXMOD_FEAT_TCP6)
#define IXM_SETUP_FLAGS_ALL	(IXMOD_SETUP_CLAMP | IXMOD_SETUP_EVENT_EXT | \
				 IXMOD_SETUP_SENT_IN_RECV | IXMOD_SETUP_INET6)
#define IXM_RING_ENTRIES_MAX	4096
#define IXM_TXARENA_MAX		(64U << 20)
#define IXM_RING_ENTRIES_DEF	256		/* when the request is 0 */
#define IXM_TXARENA_DEF		(1U << 20)	/* when the request is 0 */

#define IXM_IDLE_US_DEFAULT	1000		/* poll this long, then sleep */
#define IXM_IDLE_US_MAX		(10 * USEC_PER_SEC)
#define IXM_AWAY_US_DEFAULT	1000		/* a co-located thread out this long loses it */
#define IXM_AWAY_US_MAX		(10 * USEC_PER_SEC)
#define IXM_IDLE_LOOKS_DEFAULT	16		/* idle looks between whole idle iterations */
#define IXM_IDLE_LOOKS_MAX	1024

/**
 * struct ixm_core_stats - per-core loop counters
 * @iterations: loop iterations run
 * @busy: iterations that found work
 * @idle: iterations that found no work
 * @looks: of those, the ones that only looked (ixm_loop_busy(), idle_looks)
 * @sleeps: times the thread went to sleep after @idle_us of idleness
 * @wakeups: times the thread was woken from that sleep
 * @runs: IXMOD_IOC_RUN calls: a co-located thread ran the loop
 * @takeovers: times the thread took the core back from a co-located
 *	thread that stayed away longer than away_us (or went)
 *
 * Written only by whoever runs the core's loop (@loop_lock: plain
 * increments, no atomics); read by sysfs with READ_ONCE.  64-bit loads are single-copy
 * atomic on the 64-bit architectures ixmod supports.
 */
struct ixm_core_stats {
	u64	iterations;
	u64	busy;
	u64	idle;
	u64	looks;
	u64	sleeps;
	u64	wakeups;
	u64	runs;
	u64	takeovers;
};

#define IXM_RX_BATCH_DEFAULT	64		/* RX frames per queue per iteration */
#define IXM_CALL_BATCH		64		/* calls per context per iteration */

/**
 * struct ixm_qpair - one port's queue pair owned by one dataplane core
 * @port: the port
 * @cpu: the owning core
 * @q: the receive and transmit queue (the device's queue pair @q->idx)
 *	and its data path, the driver's (@port's nic.ops->queue_alloc)
 * @pool: the buffers @q receives into and the protocols build in
 * @net: what the protocols see of the port on this core
 * @stats: protocol counters of this port on this core
 * @mbufs: @pool's descriptors
 * @free: @pool's free stack
 * @pages: the pool's pages (two buffers each), in buffer order
 * @page_dma: their bus addresses (streaming mappings for the device)
 * @npages: pages allocated
 * @core: the owning core's state
 *
 * Allocated by the control plane when the port goes up; from then until
 * the port goes down (and an RCU grace period has passed) only @cpu's
 * thread touches the queues, the pool and the counters.
 */
struct ixm_qpair {
	struct ixm_port		*port;
	unsigned int		cpu;
	struct ixm_queue	*q;
	struct ixm_mbuf_pool	pool;
	struct ixm_net_port	net;
	struct ixm_net_stats	stats;
	struct ixm_mbuf		*mbufs;
	struct ixm_mbuf		**free;
	struct page		**pages;
	dma_addr_t		*page_dma;
	unsigned int		npages;
	struct ixm_core		*core;
};

/**
 * struct ixm_core_work - the queue pairs one core polls
 * @rcu: freed after a grace period
 * @gen: changes every time a core's work is rebuilt (contexts set up
 *	against another generation have lost their receive region)
 * @nr: entries in @qp
 * @net: the protocols' view of each queue pair, for struct ixm_stack
 * @qp: the queue pairs, in port order (slice i of the receive region)
 *
 * Replaced as a whole by the control plane (RCU); the dataplane thread
 * reads it inside one RCU read-side section per loop iteration.
 */
struct ixm_core_work {
	struct rcu_head		rcu;
	u64			gen;
	unsigned int		nr;
	struct ixm_net_port	**net;
	struct ixm_qpair	*qp[];
};

/* What a process asks of a core's thread and waits for (ixm_core_request()). */
enum ixm_core_req {
	IXM_REQ_NONE,
	IXM_REQ_PURGE,		/* take back what a closing context holds */
	IXM_REQ_SCRUB,		/* zero every buffer before a new owner maps them */
	IXM_REQ_POOL_GONE,	/* let go of a departing port's pool (port.c) */
};

/**
 * struct ixm_ctx - one /dev/ixmod file attached to a core
 * @app: the dataplane's state of the context (only the core's thread
 *	touches it once published)
 * @core: the core
 * @node: in ixm_ctx_attaching while IXMOD_IOC_SETUP attaches it, in
 *	ixm_ctx_busy once released with its arena still busy
 * @file: the file it is for
 * @mm: the address space the regions may be mapped into
 * @wq: poll() waiters
 * @work_gen: the core's work generation at setup
 * @call_region: call ring region (vmalloc_user)
 * @call_bytes: its size
 * @event_region: event ring region (vmalloc_user)
 * @event_bytes: its size
 * @txarena: transmit arena (vmalloc_user)
 * @txarena_bytes: its size
 * @txmap: the arena mapped for each port's device (DMA_TO_DEVICE, page by
 *	page), @ntxmap entries in slice order; @app.txmap points here.  An
 *	entry without @page_dma (mapping failed, port gone) makes TCP copy.
 * @txmap_dev: the device of each mapped entry, referenced
 * @ntxmap: entries
 * @arena_busy: the NIC never finished with the arena: @ctx is kept until its device is reset
 * @hold: hold-back queue of @app
 * @rx_pages: the receive region's pages (a reference on each)
 * @rx_npages: their number
 * @setup: the answer of IXMOD_IOC_SETUP
 */
struct ixm_ctx {
	struct ixm_app		app;
	struct ixm_core		*core;
	struct list_head	node;
	struct file		*file;
	struct mm_struct	*mm;
	wait_queue_head_t	wq;
	u64			work_gen;
	void			*call_region;
	size_t			call_bytes;
	void			*event_region;
	size_t			event_bytes;
	void			*txarena;
	size_t			txarena_bytes;
	struct ixm_app_txmap	*txmap;
	struct device		**txmap_dev;
	unsigned int		ntxmap;
	bool			arena_busy;
	struct ixmod_event_ext	*hold;
	struct page		**rx_pages;
	unsigned int		rx_npages;
	struct ixmod_setup	setup;
};

/**
 * struct ixm_core - one dataplane core and its pinned kernel thread
 * @kobj: /sys/kernel/ixmod/dataplane/cpuN; its release frees the core
 * @cpu: the CPU the thread is bound to
 * @task: the dataplane thread, "ixmod/N"
 * @wq: where the thread sleeps when idle
 * @wake: set by ixm_core_wake(), cleared by the thread
 * @sleeping: true while the thread sleeps in @wq (written by the thread)
 * @work: queue pairs to poll (RCU), NULL when no port is up
 * @looks: idle iterations since the last whole one (0: that one found
 *	work; whoever runs the loop)
 * @alive_gen: the &struct ixm_core_work.gen its contexts were last
 *	checked against (ixm_core_check_alive(); whoever runs the loop)
 * @work_ns: the time (&struct ixm_stack.now_ns) of the last iteration
 *	that found work (whoever runs the loop)
 * @idled: an iteration found nothing, or the core slept, since then
 * @gap_ns: the core's idle periods, averaged (ixm_core_idle_expired())
 * @stats: loop counters, on their own cache line (written by the thread)
 * @stack: the protocols' state of this core (ports, sockets, contexts,
 *	receive batch sizes)
 * @udp: this core's UDP sockets
 * @tcp: this core's TCP connections, listeners and timer wheel
 * @app_closed: counters of the contexts closed so far (written by the thread)
 * @attach_lock: serialises attaching and releasing this core's contexts
 *	(@stack.apps and the fields below), their arenas' DMA mapping and the
 *	release's wait for the NIC, so that those no longer hold ixm_cfg_lock;
 *	taken after ixm_cfg_lock, never before it
 * @nctx: contexts attached (@stack.apps; written under @attach_lock)
 * @claims: contexts attached or being attached (ixm_cfg_lock): while
 *	any, @owner owns every port the core serves (ctx.c, "Owners")
 * @owner: the process all its contexts belong to, referenced (ixm_cfg_lock)
 * @owner_nr: its pid for sysfs, 0 when none (written under ixm_cfg_lock)
 * @scrub_seq: the ownership epoch (&struct ixm_port.owner_since) up to
 *	which the core's buffers were last zeroed (@attach_lock)
 * @req_lock: one request to the thread at a time
 * @req: the request, IXM_REQ_*, or IXM_REQ_NONE
 * @req_ctx: its context
 * @req_pool: the pool of IXM_REQ_POOL_GONE
 * @req_done: completed by the thread when the request is done
 * @loop_lock: held by whoever runs the loop: the thread, or the
 *	co-located application thread inside IXMOD_IOC_RUN (colo.c)
 * @park_wq: the thread waits here while a co-located thread has the core
 * @colo_lock: guards @colo_task and @colo_ctx
 * @colo_task: the co-located application thread (a reference), or NULL
 * @colo_ctx: the context it runs through (IXMOD_IOC_RUN's file)
 * @colo_inside: it is inside IXMOD_IOC_RUN (or about to be)
 * @colo_slept: it slept in the call it is in (then the parked thread
 *	waits for it to leave instead of looking every away_us)
 * @colo_park_untimed: the parked thread waits for the call to end: leaving
 *	wakes @park_wq
 * @colo_taken: the kernel thread took the core back from it (it stayed
 *	out longer than away_us, or a request came while it was out) and
 *	runs the loop until it calls again
 * @colo_left_ns: local_clock() when it last left IXMOD_IOC_RUN
 * @away_timer: wakes a thread parked until the call ends, away_us after
 *	a call that slept returned (armed by that return, at most one)
 */
struct ixm_core {
	struct kobject		kobj;
	unsigned int		cpu;
	struct task_struct	*task;
	wait_queue_head_t	wq;
	bool			wake;
	bool			sleeping;
	struct ixm_core_work __rcu *work;
	unsigned int		looks;
	u64			alive_gen;
	u64			work_ns;
	bool			idled;
	u64			gap_ns;

	struct ixm_core_stats	stats ____cacheline_aligned_in_smp;

	struct ixm_stack	stack;
	struct ixm_udp_table	*udp;
	struct ixm_tcp_table	*tcp;
	struct ixm_app_stats	app_closed;
	struct mutex		attach_lock;
	unsigned int		nctx;
	unsigned int		claims;
	struct pid		*owner;
	pid_t			owner_nr;
	u64			scrub_seq;
	struct mutex		req_lock;
	int			req;
	struct ixm_ctx		*req_ctx;
	struct ixm_mbuf_pool	*req_pool;
	struct completion	req_done;
	struct mutex		loop_lock;
	wait_queue_head_t	park_wq;
	spinlock_t		colo_lock;
	struct task_struct	*colo_task;
	struct ixm_ctx		*colo_ctx;
	bool			colo_inside;
	bool			colo_slept;
	bool			colo_park_untimed;
	bool			colo_taken;
	u64			colo_left_ns;
	struct timer_list	away_timer;
};

/**
 * struct ixm_port - a NIC port handed to ixmod, or a software port
 * @kobj: /sys/kernel/ixmod/ports/<@name>
 * @pdev: the PCI device; NULL on a software port (softport.c)
 * @dev: the device buffers are DMA-mapped for, which also names the
 *	port's mappings of application arenas: the PCI function's, or the
 *	software port's platform device
 * @name: the PCI address, or the software port's netdev name (ixsw0)
 * @nic: chip state and ops
 * @lock: serialises up/down and configuration of this port
 * @up: queues running (written under @lock and ixm_cfg_lock)
 * @cfg: protocol configuration (RCU), never NULL
 * @arp: ARP table shared by the port's cores
 * @nd: IPv6 neighbour table shared by the port's cores
 * @rss_key: Toeplitz key programmed at the next up
 * @nq: queue pairs in use while up
 * @qp: the queue pairs, @nq of them, while up
 * @announce: a gratuitous ARP and unsolicited Neighbor Advertisements are
 *	due (set by up and address changes, cleared by queue 0's core)
 * @base: protocol counters of queue pairs that no longer exist (down keeps totals)
 * @qbase: queue counters of queue pairs that no longer exist
 * @nvec: MSI-X vectors allocated (a software port wakes its cores through
 *	ixm_port_queue_irq() instead)
 * @gc_work: periodic ARP table ageing
 * @list: in ixm_ports
 * @cores_all: served by every dataplane core (the default), else by @cores
 * @cores: the dataplane cores that serve it when up, unless @cores_all
 *	(written under @lock and ixm_cfg_lock while down)
 * @owner_since: the ownership epoch that began when its current owner
 *	claimed it (ixm_cfg_lock; ctx.c, "Owners")
 */
struct ixm_port {
	struct kobject		kobj;
	struct pci_dev		*pdev;
	struct device		*dev;
	char			name[32];
	struct ixm_nic		nic;
	struct mutex		lock;
	bool			up;
	struct ixm_if_config __rcu *cfg;
	struct ixm_arp_table	*arp;
	struct ixm_nd_table	*nd;
	u8			rss_key[40];
	unsigned int		nq;
	struct ixm_qpair	**qp;
	unsigned long		announce;
	struct ixm_net_stats	base;
	struct ixm_queue_stats	qbase;
	int			nvec;
	struct delayed_work	gc_work;
	struct list_head	list;
	bool			cores_all;
	struct cpumask		cores;
	u64			owner_since;
};

/* Configuration shared with the dataplane; written under ixm_cfg_lock. */
extern struct mutex ixm_cfg_lock;
extern unsigned int ixm_idle_us;
extern unsigned int ixm_rx_batch;
extern unsigned int ixm_idle_looks;

/*
 * runner.c: the per-core runner, the one way into a core's loop for both
 * of its runners (the kernel thread, dp.c; the co-located entry, colo.c),
 * with @core->loop_lock held; and for processes, requests and wakes
 */
unsigned int ixm_core_iterate(struct ixm_core *core);
unsigned int ixm_core_run_once(struct ixm_core *core, u64 *idle_since);
bool ixm_core_idle_expired(struct ixm_core *core, u64 idle_since);
bool ixm_core_sleep(struct ixm_core *core, long timeout);
void ixm_core_request(struct ixm_core *core, int req, struct ixm_ctx *ctx);
void ixm_core_pool_gone(struct ixm_core *core, struct ixm_mbuf_pool *pool);
void ixm_core_wake(struct ixm_core *core);
void ixm_core_wake_loop(struct ixm_core *core);

/* dp.c: dataplane cores and their kernel threads */
int ixm_dp_init(void);
void ixm_dp_exit(void);
int ixm_dp_set_cores(const struct cpumask *want, struct kobject *parent);
void ixm_dp_stop_all(void);
void ixm_dp_get_cores(struct cpumask *out);
unsigned int ixm_dp_nr_cores(void);
void ixm_dp_wake_all(void);
unsigned int ixm_dp_cpus(unsigned int *cpus, unsigned int max, const struct cpumask *only);
struct ixm_core *ixm_dp_core(unsigned int cpu);
void ixm_dp_attach_lock_all(bool lock);

/* colo.c: the co-located mode (IX's run_io) */
extern unsigned int ixm_away_us;
long ixm_colo_run(struct file *file, void __user *argp);
bool ixm_colo_has_core(struct ixm_core *core);
void ixm_colo_park(struct ixm_core *core);
void ixm_colo_away_fn(struct timer_list *t);
void ixm_colo_ctx_gone(struct ixm_ctx *ctx);
int ixm_colo_mode(struct ixm_core *core, char *buf);

/* ctx.c, ctx_map.c, ctx_mem.c: application contexts */
extern unsigned int ixm_ctx_count;
extern unsigned int ixm_arenas_kept;

/* The context of an attached /dev/ixmod file, NULL before IXMOD_IOC_SETUP */
static inline struct ixm_ctx *ixm_file_ctx(struct file *file)
{
	/* pairs with the release store at the end of ixm_ctx_setup() */
	return smp_load_acquire(&file->private_data);
}

long ixm_ctx_setup(struct file *file, void __user *argp);
int ixm_ctx_mmap(struct file *file, struct vm_area_struct *vma);
__poll_t ixm_ctx_poll(struct file *file, struct poll_table_struct *wait);
int ixm_ctx_wake(struct file *file);
void ixm_ctx_release(struct file *file);
struct pid *ixm_port_owner(struct ixm_port *port);
void ixm_ctx_port_gone(struct device *dev);
void ixm_ctx_device_reset(struct device *dev);
void ixm_ctx_exit(void);

/* port.c: ports, their sysfs and up/down */
int ixm_port_register(struct ixm_port *port);
void ixm_port_unregister(struct ixm_port *port);
bool ixm_ports_any_up(void);
void ixm_port_queue_irq(struct ixm_port *port, unsigned int i);
int ixm_ports_init(struct kobject *parent);
void ixm_ports_exit(void);

/* softport.c: software ports (/sys/kernel/ixmod/softports) */
#if IS_ENABLED(CONFIG_IXMOD_SOFTPORT)
int ixm_softports_init(void);
void ixm_softports_exit(void);
#else
static inline int ixm_softports_init(void)
{
	return 0;
}

static inline void ixm_softports_exit(void)
{
}
#endif

/* pci.c: the PCI driver for ports handed over with driver_override */
int ixm_pci_init(void);
void ixm_pci_exit(void);

/* sysfs.c: /sys/kernel/ixmod */
int ixm_sysfs_init(void);
void ixm_sysfs_exit(void);
extern struct kobject *ixm_top_kobj;	/* /sys/kernel/ixmod */

/* core_sysfs.c: /sys/kernel/ixmod/dataplane/cpuN */
extern const struct kobj_type ixm_core_ktype;
void ixm_core_sysfs_init(void);
bool ixm_cpu_is_isolated(unsigned int cpu);

/* stats.c: counter files made from tables */

/**
 * struct ixm_stat_desc - one counter file of a set
 * @name: the file's name
 * @off: where the set's reader finds the counter (an offset in its struct)
 */
struct ixm_stat_desc {
	const char	*name;
	size_t		off;
};

struct ixm_stat_attr;

/**
 * struct ixm_stat_set - counter files of one kind, made from one table
 * @descs: the table, one file per entry
 * @n: its entries
 * @read: the counter @d names, for the object @kobj shows
 * @attrs: @n attributes, filled by ixm_stat_set_init()
 */
struct ixm_stat_set {
	const struct ixm_stat_desc	*descs;
	unsigned int			n;
	u64				(*read)(struct kobject *kobj,
						const struct ixm_stat_desc *d);
	struct ixm_stat_attr		*attrs;
};

/* One file of a set (struct ixm_stat_set); its show calls @set->read. */
struct ixm_stat_attr {
	struct kobj_attribute		kattr;
	const struct ixm_stat_set	*set;
	const struct ixm_stat_desc	*desc;
};

/* A set from its table, reader and attribute array (one entry per row) */
#define IXM_STAT_SET(_descs, _read, _attrs)				\
	{								\
		.descs = (_descs), .read = (_read), .attrs = (_attrs),	\
		.n = ARRAY_SIZE(_descs) +				\
		     BUILD_BUG_ON_ZERO(ARRAY_SIZE(_attrs) != ARRAY_SIZE(_descs)), \
	}

unsigned int ixm_stat_set_init(const struct ixm_stat_set *set, struct attribute **out);

/* cdev.c: /dev/ixmod */
int ixm_cdev_init(void);
void ixm_cdev_exit(void);

#endif /* _IXMOD_IXMOD_H */
