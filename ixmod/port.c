// SPDX-License-Identifier: GPL-2.0
/*
 * port.c - NIC ports: /sys/kernel/ixmod/ports/<pci address>/, up and down
 *
 * A port is down after bind.  Writing 1 to "up" gives each dataplane core
 * that serves it (all of them, or those its "cores" names) one RX/TX
 * queue pair of the port, with its own buffer pool (ordinary
 * pages mapped for this device through the DMA API, so an IOMMU confines
 * the device to them), programs RSS to spread flows over those queues,
 * and publishes the queue pairs to the cores' loops (RCU).  Down does the reverse: unpublish,
 * wait a grace period so no loop still holds a queue, have each core let
 * go of its pool, stop the queues, free every buffer.  The set of cores
 * cannot change while any port is up (cores returns -EBUSY), so a queue
 * pair's core never goes away under it.
 *
 * Buffers outlive their frame: TCP keeps received data on a connection's
 * in-order and out-of-order queues, and applications hold what receive
 * events named until recv_done.  Down happens under open contexts only on
 * PCI removal (their contexts die with it), and their connections live
 * on (timers, close), so a pool must not be freed while any of that
 * still points into it.  Two designs were possible: keep the pool alive
 * until its last holder lets go (a reference count on every hold and
 * release, and a pool that outlives its device's DMA mapping), or detach
 * every holder before the free.  ixmod detaches: the only code that
 * touches a pool's buffers is its core's thread, so one request to that
 * thread (IXM_REQ_POOL_GONE, ixm_core_pool_gone()) sees all holders at a
 * point where it is in the middle of nothing.  After the grace period no
 * new frame lands in the pool; the thread then marks the contexts that
 * lost the port dead and ixm_stack_pool_gone() ends every connection
 * holding a buffer of the pool (freed without a RST, which could not go
 * out; TCP_DEAD -ENETDOWN to a context still alive) and forgets the
 * buffers applications held (their recv_done is refused).  ARP keeps no
 * buffers, and frames on their way out are on the stopped TX ring, which
 * the driver's queue_free empties.  So when the pool is freed, every buffer
 * is back on its free stack, which ixm_port_free_qpairs() checks.
 *
 * Locking: ixm_cfg_lock (cores and ports) is taken before port->lock, and
 * that before a core's attach_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/dma-mapping.h>
#include <linux/inet.h>
#include <linux/interrupt.h>
#include <linux/pci.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "ixmod.h"
#include "net/arp.h"
#include "net/icmp6_relay.h"
#include "net/ip6.h"
#include "net/nd.h"
#include "net/loop.h"
#include "base/toeplitz.h"

#define IXM_POOL_BUFS		IXM_RX_SLICE_BUFS	/* buffers per queue pair */
#define IXM_POOL_PAGES		(IXM_RX_SLICE / PAGE_SIZE)
#define IXM_ARP_GC_PERIOD	(10 * HZ)

static struct kobject *ixm_ports_kobj;
static LIST_HEAD(ixm_ports);		/* under ixm_cfg_lock */

/* ---- queue pairs ---- */

static void ixm_qpair_free(struct ixm_qpair *qp)
{
	struct device *dev = qp->port->dev;
	unsigned int i;

	/* the rings' buffers go back to the pool first */
	if (qp->q)
		qp->port->nic.ops->queue_free(&qp->port->nic, qp->q);
	/*
	 * Unmapped from the device now; a page still mapped into an
	 * application lives on through the mapping's own reference.
	 */
	for (i = 0; i < qp->npages; i++) {
		dma_unmap_page(dev, qp->page_dma[i], PAGE_SIZE, DMA_BIDIRECTIONAL);
		put_page(qp->pages[i]);
	}
	kvfree(qp->pages);
	kvfree(qp->page_dma);
	kfree(qp->mbufs);
	kfree(qp->free);
	kfree(qp);
}

/*
 * Fill @qp's pool with zeroed pages, each mapped for the device.
 * Injectable (ERRNO): a DMA mapping that fails.
 */
static noinline int ixm_qpair_map_pool(struct ixm_qpair *qp, struct device *dev, int node)
{
	unsigned int i;

	/*
	 * Buffers live in ordinary pages, not DMA-coherent memory, so that
	 * applications can map them (read-only, zero-copy receive) and each
	 * mapping can hold its own page references.  Streaming mappings need
	 * syncs, which the loop does (free on coherent x86 without bounce
	 * buffering).
	 */
	BUILD_BUG_ON(PAGE_SIZE % IXM_MBUF_SIZE);
	for (i = 0; i < IXM_POOL_PAGES; i++) {
		struct page *pg = alloc_pages_node(node, GFP_KERNEL | __GFP_ZERO, 0);
		dma_addr_t dma;

		if (!pg)
			return -ENOMEM;
		dma = dma_map_page(dev, pg, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, dma)) {
			__free_page(pg);
			return -ENOMEM;
		}
		qp->pages[i] = pg;
		qp->page_dma[i] = dma;
		qp->npages++;
	}
	return 0;
}
ALLOW_ERROR_INJECTION(ixm_qpair_map_pool, ERRNO);

/* A queue pair for queue @q, served by @cpu.  Injectable (NULL). */
static noinline struct ixm_qpair *ixm_qpair_alloc(struct ixm_port *port, unsigned int q,
						  unsigned int cpu)
{
	struct device *dev = port->dev;
	int node = cpu_to_node(cpu);
	struct ixm_qpair *qp;
	unsigned int i;

	qp = kzalloc_node(sizeof(*qp), GFP_KERNEL, node);
	if (!qp)
		return NULL;
	qp->port = port;
	qp->cpu = cpu;
	qp->core = ixm_dp_core(cpu);

	qp->mbufs = kcalloc_node(IXM_POOL_BUFS, sizeof(*qp->mbufs), GFP_KERNEL, node);
	qp->free = kcalloc_node(IXM_POOL_BUFS, sizeof(void *), GFP_KERNEL, node);
	qp->pages = kvcalloc(IXM_POOL_PAGES, sizeof(struct page *), GFP_KERNEL);
	qp->page_dma = kvcalloc(IXM_POOL_PAGES, sizeof(dma_addr_t), GFP_KERNEL);
	if (!qp->mbufs || !qp->free || !qp->pages || !qp->page_dma)
		goto err_free;

	if (ixm_qpair_map_pool(qp, dev, node))
		goto err_free;
	for (i = 0; i < IXM_POOL_BUFS; i++) {
		unsigned int pg = i / (PAGE_SIZE / IXM_MBUF_SIZE);
		unsigned int off = (i % (PAGE_SIZE / IXM_MBUF_SIZE)) * IXM_MBUF_SIZE;

		qp->mbufs[i].buf = (u8 *)page_address(qp->pages[pg]) + off;
		qp->mbufs[i].dma = qp->page_dma[pg] + off;
	}
	ixm_mbuf_pool_init(&qp->pool, qp->mbufs, qp->free, IXM_POOL_BUFS);
	/* the device's rings, the receive ring filled from the pool */
	qp->q = port->nic.ops->queue_alloc(&port->nic, q, &qp->pool, node);
	if (!qp->q)
		goto err_free;

	qp->net.arp = port->arp;
	qp->net.nd = port->nd;
	qp->net.pool = &qp->pool;
	qp->net.stats = &qp->stats;
	qp->net.stack = &qp->core->stack;
	qp->net.queue = qp->q;
	qp->net.rss_key = port->rss_key;
	qp->net.rss_nq = port->nq;
	qp->net.rss_q = q;
	qp->net.rss_v4_only = port->nic.rss_v4_only;
	qp->net.tx_offload = port->nic.tx_csum ? IXM_TXO_CSUM : 0;
	qp->net.cfg = rcu_dereference_protected(port->cfg, 1);
	return qp;

err_free:
	ixm_qpair_free(qp);
	return NULL;
}
ALLOW_ERROR_INJECTION(ixm_qpair_alloc, NULL);

static irqreturn_t ixm_qpair_irq(int irq, void *data)
{
	struct ixm_qpair *qp = data;

	/* quiet until the core arms it again before its next sleep */
	qp->q->ops->disarm(qp->q);
	ixm_core_wake(qp->core);
	return IRQ_HANDLED;
}

/* ---- publishing queue pairs to the cores' loops ---- */

/*
 * A work list for @nr queue pairs.  Adding one may fail (injectable,
 * NULL); removing one may not, or a queue pair about to be freed would
 * stay published: that small allocation does not fail (__GFP_NOFAIL).
 */
static noinline struct ixm_core_work *ixm_core_work_alloc(unsigned int nr)
{
	struct ixm_core_work *w;	/* its type, for struct_size() */

	return kzalloc(struct_size(w, qp, nr) + nr * sizeof(*w->net), GFP_KERNEL);
}
ALLOW_ERROR_INJECTION(ixm_core_work_alloc, NULL);

/* Give @qp's core a work list with @qp added (@add) or removed. */
static int ixm_core_work_update(struct ixm_qpair *qp, bool add)
{
	struct ixm_core *core = qp->core;
	struct ixm_core_work *old, *new = NULL;
	static u64 ixm_work_gen;	/* under ixm_cfg_lock */
	unsigned int i, n = 0, nr;

	lockdep_assert_held(&ixm_cfg_lock);
	old = rcu_dereference_protected(core->work, lockdep_is_held(&ixm_cfg_lock));
	nr = (old ? old->nr : 0) + (add ? 1 : 0);
	if (!add)
		nr--;
	if (nr) {
		if (add)
			new = ixm_core_work_alloc(nr);
		else
			new = kzalloc(struct_size(new, qp, nr) + nr * sizeof(*new->net),
				      GFP_KERNEL | __GFP_NOFAIL);
		if (!new)
			return -ENOMEM;
		new->net = (struct ixm_net_port **)&new->qp[nr];
		for (i = 0; old && i < old->nr; i++)
			if (old->qp[i] != qp)
				new->qp[n++] = old->qp[i];
		if (add)
			new->qp[n++] = qp;
		new->nr = n;
		new->gen = ++ixm_work_gen;
		/* slice i of every receive region of the core is qp[i]'s pool */
		for (i = 0; i < n; i++) {
			new->net[i] = &new->qp[i]->net;
			new->qp[i]->pool.rx_base = i * IXM_RX_SLICE;
		}
	}
	rcu_assign_pointer(core->work, new);
	if (old)
		kfree_rcu(old, rcu);
	ixm_core_wake(core);
	return 0;
}

/* ---- up and down ---- */

/*
 * Have queue 0's core broadcast a gratuitous ARP (ixm_arp_announce()) at
 * its next iteration, and wake it: a core that sleeps idle would send it
 * only when something else woke it.
 */
static void ixm_port_announce(struct ixm_port *port)
{
	set_bit(0, &port->announce);
	ixm_core_wake(port->qp[0]->core);
}

static void ixm_port_stop_queues(struct ixm_port *port)
{
	const struct ixm_nic_ops *ops = port->nic.ops;
	unsigned int i;

	ops->irq_disable(&port->nic);
	ops->rx_enable(&port->nic, false);
	for (i = 0; i < port->nq; i++)
		ops->queue_stop(&port->nic, port->qp[i]->q);
}

static void ixm_port_fold_stats(struct ixm_port *port, struct ixm_qpair *qp)
{
	struct ixm_net_stats *b = &port->base;
	struct ixm_queue_stats qs;
	unsigned int r;

	b->rx_packets += qp->stats.rx_packets;
	b->rx_bytes += qp->stats.rx_bytes;
	b->tx_packets += qp->stats.tx_packets;
	b->tx_bytes += qp->stats.tx_bytes;
	b->arp_requests_in += qp->stats.arp_requests_in;
	b->arp_replies_out += qp->stats.arp_replies_out;
	b->arp_requests_out += qp->stats.arp_requests_out;
	b->icmp_echo_replies += qp->stats.icmp_echo_replies;
	b->udp_in += qp->stats.udp_in;
	b->udp_out += qp->stats.udp_out;
	b->tx_csum_sw += qp->stats.tx_csum_sw;
	b->icmp6_echo_replies += qp->stats.icmp6_echo_replies;
	b->icmp6_errors_out += qp->stats.icmp6_errors_out;
	b->icmp6_errors_ratelimited += qp->stats.icmp6_errors_ratelimited;
	b->nd_solicits_in += qp->stats.nd_solicits_in;
	b->nd_adverts_out += qp->stats.nd_adverts_out;
	b->nd_solicits_out += qp->stats.nd_solicits_out;
	b->udp6_in += qp->stats.udp6_in;
	b->udp6_out += qp->stats.udp6_out;
	for (r = 0; r < IXM_DROP_MAX; r++)
		b->drops[r] += qp->stats.drops[r];
	qp->q->ops->get_stats(qp->q, &qs);
	port->qbase.rx_errors += qs.rx_errors;
	port->qbase.rx_no_buf += qs.rx_no_buf;
	port->qbase.rx_csum_hw += qs.rx_csum_hw;
	port->qbase.tx_full += qs.tx_full;
	port->qbase.tx_csum_hw += qs.tx_csum_hw;
}

/*
 * Wake the core of queue @q of the port whose relay @r is: another core
 * handed it an ICMPv6 error (net/icmp6_relay.h).  Called from a loop that
 * holds a queue pair of the port (RCU), so the port is up and @q's queue
 * pair and core are there.
 */
static void ixm_port_relay_wake(struct ixm_icmp6_relay *r, unsigned int q)
{
	struct ixm_port *port = r->priv;

	ixm_core_wake(port->qp[q]->core);
}

/*
 * Give every queue pair of a port with several queues the mailboxes of
 * ICMPv6 errors its cores hand each other.  Injectable (ERRNO).
 */
static noinline int ixm_port_relay_alloc(struct ixm_port *port)
{
	struct ixm_icmp6_relay *r;
	unsigned int i;

	if (port->nq < 2)
		return 0;
	r = ixm_icmp6_relay_alloc(port->nq, ixm_port_relay_wake, port);
	if (!r)
		return -ENOMEM;
	for (i = 0; i < port->nq; i++)
		port->qp[i]->net.relay = r;
	return 0;
}
ALLOW_ERROR_INJECTION(ixm_port_relay_alloc, ERRNO);

/* Free every queue pair; the queues are stopped and unpublished. */
static void ixm_port_free_qpairs(struct ixm_port *port)
{
	unsigned int i;

	/* what the mailboxes still hold goes with them: records, no buffers */
	if (port->nq && port->qp[0])
		ixm_icmp6_relay_free(port->qp[0]->net.relay);

	for (i = 0; i < port->nq; i++) {
		struct ixm_qpair *qp = port->qp[i];

		if (!qp)
			continue;
		if (qp->q->vector >= 0 && port->pdev) {
			unsigned int irq = pci_irq_vector(port->pdev, qp->q->vector);

			irq_update_affinity_hint(irq, NULL);
			free_irq(irq, qp);
		}
		/* frames a full ring left waiting go back to the pool */
		ixm_loop_tx_discard(&qp->net);
		ixm_port_fold_stats(port, qp);
		port->nic.ops->queue_free(&port->nic, qp->q);
		qp->q = NULL;
		/* nothing else may point into the pool now (see the top) */
		WARN_ON_ONCE(qp->pool.nfree != qp->pool.count);
		ixm_qpair_free(qp);
	}
	if (port->nvec > 0)
		pci_free_irq_vectors(port->pdev);
	port->nvec = 0;
	kfree(port->qp);
	port->qp = NULL;
	port->nq = 0;
}

static void ixm_port_down_locked(struct ixm_port *port)
{
	/* only on PCI removal: contexts keep ports up */
	bool apps = ixm_ctx_count;
	unsigned int i;

	lockdep_assert_held(&ixm_cfg_lock);
	lockdep_assert_held(&port->lock);
	/* contexts being attached or released finish first */
	if (apps)
		ixm_dp_attach_lock_all(true);

	for (i = 0; i < port->nq; i++)
		WARN_ON_ONCE(ixm_core_work_update(port->qp[i], false));
	synchronize_rcu();	/* no loop holds a queue pair any more */
	/* each core lets go of the buffers its connections and contexts hold */
	for (i = 0; i < port->nq; i++)
		ixm_core_pool_gone(port->qp[i]->core, &port->qp[i]->pool);
	ixm_port_stop_queues(port);
	ixm_port_free_qpairs(port);
	if (apps) {
		pr_warn("ports: %s: removed under %u application contexts; they are dead now (IXMOD_RING_DEAD), close them\n",
			port->name, ixm_ctx_count);
		ixm_ctx_port_gone(port->dev);
		ixm_dp_attach_lock_all(false);
	}
	WRITE_ONCE(port->up, false);
}

static int ixm_port_up_locked(struct ixm_port *port)
{
	const struct ixm_nic_ops *ops = port->nic.ops;
	unsigned int cpus[IXM_NIC_MAX_QUEUES + 1];
	u8 reta[IXM_RSS_RETA_SIZE];
	unsigned int i, n;
	int err;

	lockdep_assert_held(&ixm_cfg_lock);
	lockdep_assert_held(&port->lock);
	n = ixm_dp_cpus(cpus, ARRAY_SIZE(cpus), port->cores_all ? NULL : &port->cores);
	if (!n) {
		pr_err("ports: %s: no dataplane cores; write /sys/kernel/ixmod/cores first\n",
		       port->name);
		return -EINVAL;
	}
	if (!port->cores_all) {
		unsigned int cpu;

		for_each_cpu(cpu, &port->cores) {
			if (ixm_dp_core(cpu))
				continue;
			pr_err("ports: %s: its cores name cpu %u, which is not a dataplane core; add it to /sys/kernel/ixmod/cores or write the port's cores again\n",
			       port->name, cpu);
			return -EINVAL;
		}
	}
	if (n > port->nic.max_queues) {
		pr_err("ports: %s: %u dataplane cores but the port has %u queue pairs; assign fewer cores\n",
		       port->name, n, port->nic.max_queues);
		return -EINVAL;
	}

	port->qp = kcalloc(n, sizeof(*port->qp), GFP_KERNEL);
	if (!port->qp)
		goto err_nomem;
	port->nq = n;
	for (i = 0; i < n; i++) {
		port->qp[i] = ixm_qpair_alloc(port, i, cpus[i]);
		if (!port->qp[i]) {
			err = -ENOMEM;
			pr_err("ports: %s: no memory for queue pair %u's rings and %lu buffer pages (%d); nothing changed\n",
			       port->name, i, (unsigned long)IXM_POOL_PAGES, err);
			goto err_free;
		}
	}
	err = ixm_port_relay_alloc(port);
	if (err) {
		pr_err("ports: %s: no memory for the ICMPv6 mailboxes of %u queues; nothing changed\n",
		       port->name, n);
		goto err_free;
	}

	/*
	 * MSI-X vector per queue pair: it only wakes a sleeping core.  A
	 * software port's queues wake it through ixm_port_queue_irq().
	 */
	port->nvec = port->pdev ? pci_alloc_irq_vectors(port->pdev, n, n, PCI_IRQ_MSIX) : 0;
	for (i = 0; !port->pdev && i < n; i++)
		port->qp[i]->q->vector = i;
	if (port->nvec < 0) {
		dev_warn(port->dev, "no MSI-X (%d); idle cores will not sleep\n",
			 port->nvec);
		port->nvec = 0;
	}
	for (i = 0; i < (unsigned int)port->nvec; i++) {
		err = request_irq(pci_irq_vector(port->pdev, i), ixm_qpair_irq, 0,
				  "ixmod", port->qp[i]);
		if (err) {
			pr_err("ports: %s: cannot request queue %u's interrupt (%d); nothing changed\n",
			       port->name, i, err);
			goto err_free;
		}
		port->qp[i]->q->vector = i;
		/*
		 * It only wakes the queue pair's core: taken on the core's
		 * CPU, the wake-up is local (no IPI, no second CPU woken).
		 * A refusal only costs that.
		 */
		irq_set_affinity_and_hint(pci_irq_vector(port->pdev, i),
					  cpumask_of(port->qp[i]->core->cpu));
	}

	for (i = 0; i < n; i++) {
		err = ops->queue_start(&port->nic, port->qp[i]->q);
		if (err) {
			pr_err("ports: %s: queue %u did not start (%d)\n",
			       port->name, i, err);
			goto err_stop;
		}
	}
	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		reta[i] = ixm_rss_queue(i, n);
	err = ops->set_rss(&port->nic, port->rss_key, reta);
	if (err) {
		pr_err("ports: %s: the device refused its RSS configuration (%d)\n",
		       port->name, err);
		goto err_stop;
	}
	ops->rx_enable(&port->nic, true);

	for (i = 0; i < n; i++) {
		err = ixm_core_work_update(port->qp[i], true);
		if (err) {
			pr_err("ports: %s: out of memory for cpu %u's work list; nothing changed\n",
			       port->name, cpus[i]);
			while (i--)
				ixm_core_work_update(port->qp[i], false);
			synchronize_rcu();
			goto err_stop;
		}
	}
	WRITE_ONCE(port->up, true);
	ixm_port_announce(port);
	return 0;

err_stop:
	ixm_port_stop_queues(port);
err_free:
	ixm_port_free_qpairs(port);
	return err;

err_nomem:
	pr_err("ports: %s: out of memory for %u queue pairs; nothing changed\n",
	       port->name, n);
	return -ENOMEM;
}

/**
 * ixm_port_queue_irq() - queue @i has work for its sleeping core
 * @port: a port, up
 * @i: the queue pair, armed by its core: a software port's queue (no
 *	vector at all), or a virtio-net queue that another core steered a
 *	frame to (nic/steer.c).  The driver keeps the arming and calls this
 *	once per arm, as an MSI-X vector would.
 *
 * Context: any; between the queue's start and stop, so @port->qp[@i] is
 * stable.
 */
void ixm_port_queue_irq(struct ixm_port *port, unsigned int i)
{
	ixm_qpair_irq(0, port->qp[i]);
}

/**
 * ixm_ports_any_up() - is any port up?
 *
 * Context: ixm_cfg_lock held.
 * Return: true if some port has queues running.
 */
bool ixm_ports_any_up(void)
{
	struct ixm_port *port;

	lockdep_assert_held(&ixm_cfg_lock);
	list_for_each_entry(port, &ixm_ports, list)
		if (READ_ONCE(port->up))
			return true;
	return false;
}

/* ---- sysfs: /sys/kernel/ixmod/ports/<pci>/ ---- */

static struct ixm_port *to_port(struct kobject *kobj)
{
	return container_of(kobj, struct ixm_port, kobj);
}

/* How much of a bad input to quote in the one dmesg line: up to 64 bytes. */
static int ixm_input_len(const char *buf)
{
	return min_t(size_t, strcspn(buf, "\n"), 64);
}

static ssize_t mac_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%pM\n", to_port(kobj)->nic.mac);
}
static struct kobj_attribute mac_attr = __ATTR_RO(mac);

static ssize_t link_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct ixm_port *port = to_port(kobj);
	u32 mbps = 0;

	if (port->nic.ops->link_up(&port->nic, &mbps))
		return sysfs_emit(buf, "up %u\n", mbps);
	return sysfs_emit(buf, "down\n");
}
static struct kobj_attribute link_attr = __ATTR_RO(link);

static ssize_t queues_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct ixm_port *port = to_port(kobj);
	ssize_t len = 0;
	unsigned int i;

	mutex_lock(&port->lock);
	for (i = 0; i < port->nq; i++)
		len += sysfs_emit_at(buf, len, "%s%u:%u", i ? " " : "",
				     port->qp[i]->q->idx, port->qp[i]->cpu);
	len += sysfs_emit_at(buf, len, "\n");
	mutex_unlock(&port->lock);
	return len;
}
static struct kobj_attribute queues_attr = __ATTR_RO(queues);

static ssize_t cores_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct ixm_port *port = to_port(kobj);
	ssize_t len;

	mutex_lock(&port->lock);
	if (port->cores_all)
		len = sysfs_emit(buf, "all\n");
	else
		len = sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(&port->cores));
	mutex_unlock(&port->lock);
	return len;
}

/*
 * The dataplane cores that serve the port from its next up: "all" (every
 * one, the default) or a CPU list.  Ports served by disjoint cores can
 * belong to different processes (ctx.c, "Owners").
 */
static ssize_t cores_store(struct kobject *kobj, struct kobj_attribute *a,
			   const char *buf, size_t count)
{
	struct ixm_port *port = to_port(kobj);
	cpumask_var_t want;
	bool all;
	int err = 0;

	if (!zalloc_cpumask_var(&want, GFP_KERNEL))
		return -ENOMEM;
	all = sysfs_streq(buf, "all");
	if (!all && (cpulist_parse(buf, want) || cpumask_empty(want))) {
		pr_err("ports: %s: cores: '%.*s' is not a CPU list such as 1-2,4 or 'all'\n",
		       port->name, ixm_input_len(buf), buf);
		err = -EINVAL;
		goto out;
	}
	mutex_lock(&ixm_cfg_lock);
	mutex_lock(&port->lock);
	if (port->up) {
		pr_err("ports: %s: cores: the port is up; write 0 to up first\n", port->name);
		err = -EBUSY;
	} else {
		port->cores_all = all;
		cpumask_copy(&port->cores, want);
	}
	mutex_unlock(&port->lock);
	mutex_unlock(&ixm_cfg_lock);
out:
	free_cpumask_var(want);
	return err ? err : count;
}
static struct kobj_attribute cores_attr = __ATTR_RW(cores);

static ssize_t owner_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	pid_t nr;

	mutex_lock(&ixm_cfg_lock);
	nr = pid_nr(ixm_port_owner(to_port(kobj)));
	mutex_unlock(&ixm_cfg_lock);
	return sysfs_emit(buf, "%d\n", nr);
}
static struct kobj_attribute port_owner_attr = __ATTR_RO(owner);

static ssize_t up_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_port(kobj)->up));
}

static ssize_t up_store(struct kobject *kobj, struct kobj_attribute *a,
			const char *buf, size_t count)
{
	struct ixm_port *port = to_port(kobj);
	bool want;
	int err = 0;

	if (kstrtobool(buf, &want)) {
		pr_err("ports: %s: up: '%.*s' is not 0 or 1\n", port->name,
		       ixm_input_len(buf), buf);
		return -EINVAL;
	}
	mutex_lock(&ixm_cfg_lock);
	if (want != port->up && ixm_ctx_count) {
		pr_err("ports: %s: up: %u application contexts are attached; close them first\n",
		       port->name, ixm_ctx_count);
		mutex_unlock(&ixm_cfg_lock);
		return -EBUSY;
	}
	mutex_lock(&port->lock);
	if (want && !port->up) {
		err = ixm_port_up_locked(port);
		if (!err)
			pr_info("ports: %s: up on %u queue pairs\n", port->name,
				port->nq);
	} else if (!want && port->up) {
		ixm_port_down_locked(port);
		pr_info("ports: %s: down\n", port->name);
	}
	mutex_unlock(&port->lock);
	mutex_unlock(&ixm_cfg_lock);
	return err ? err : count;
}
static struct kobj_attribute up_attr = __ATTR_RW(up);

static ssize_t ipv4_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct ixm_port *port = to_port(kobj);
	const struct ixm_if_config *cfg;
	ssize_t len;

	rcu_read_lock();
	cfg = rcu_dereference(port->cfg);
	if (cfg->ip)
		len = sysfs_emit(buf, "%pI4/%u\n", &cfg->ip, cfg->prefix);
	else
		len = sysfs_emit(buf, "\n");
	rcu_read_unlock();
	return len;
}

/* Parse "A.B.C.D/N" into @ip and @prefix; the empty line clears. */
static int ixm_parse_ipv4(const char *buf, __be32 *ip, unsigned int *prefix)
{
	const char *end;
	u32 host;

	if (!ixm_input_len(buf)) {
		*ip = 0;
		*prefix = 0;
		return 0;
	}
	if (!in4_pton(buf, -1, (u8 *)ip, '/', &end) || *end != '/')
		return -EINVAL;
	if (kstrtouint(end + 1, 10, prefix) || *prefix < 1 || *prefix > 32)
		return -EINVAL;
	host = ntohl(*ip);
	/* RFC 1122 §3.2.1.3: no 0/8, loopback, class D/E or limited broadcast */
	if ((host >> 24) == 0 || (host >> 24) == 127 || (host >> 28) >= 0xe)
		return -EINVAL;
	if (*prefix <= 30) {
		u32 hostmask = ~0u >> *prefix;

		if ((host & hostmask) == 0 || (host & hostmask) == hostmask)
			return -EINVAL;	/* network or subnet broadcast address */
	}
	return 0;
}

static ssize_t ipv4_store(struct kobject *kobj, struct kobj_attribute *a,
			  const char *buf, size_t count)
{
	struct ixm_port *port = to_port(kobj);
	struct ixm_if_config *new, *old;
	unsigned int prefix;
	__be32 ip;

	if (ixm_parse_ipv4(buf, &ip, &prefix)) {
		pr_err("ports: %s: ipv4: '%.*s' is not a usable unicast A.B.C.D/N (N 1-32, not network or broadcast); write e.g. 198.18.0.1/24, or an empty line to clear\n",
		       port->name, ixm_input_len(buf), buf);
		return -EINVAL;
	}
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	mutex_lock(&port->lock);
	old = rcu_dereference_protected(port->cfg, lockdep_is_held(&port->lock));
	*new = *old;
	new->ip = ip;
	new->prefix = prefix;
	new->netmask = prefix ? htonl(~0u << (32 - prefix)) : 0;
	rcu_assign_pointer(port->cfg, new);
	if (port->up && ip)
		ixm_port_announce(port);
	mutex_unlock(&port->lock);
	kfree_rcu(old, rcu);
	return count;
}
static struct kobj_attribute ipv4_attr = __ATTR_RW(ipv4);

static ssize_t ipv6_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct ixm_port *port = to_port(kobj);
	const struct ixm_if_config *cfg;
	ssize_t len;

	rcu_read_lock();
	cfg = rcu_dereference(port->cfg);
	if (ixm_ip6_enabled(cfg))
		len = sysfs_emit(buf, "%pI6c/%u\n", cfg->ip6.s6, cfg->ip6_prefix);
	else
		len = sysfs_emit(buf, "\n");
	rcu_read_unlock();
	return len;
}

/*
 * Parse "ADDR/N" into @ip and @prefix; the empty line clears (prefix 0).
 * The address must be a global unicast one (RFC 4291 §2.4): not ::, ::1,
 * a group or link-local (the port has its own, from its MAC), and for
 * N <= 126 not the Subnet-Router anycast address, whose interface
 * identifier is zero (§2.6.1; RFC 6164 §6 allows both of a /127).
 */
static int ixm_parse_ipv6(const char *buf, struct ixm_in6_addr *ip,
			  unsigned int *prefix)
{
	const char *end;
	unsigned int i;

	memset(ip, 0, sizeof(*ip));
	*prefix = 0;
	if (!ixm_input_len(buf))
		return 0;
	if (!in6_pton(buf, -1, ip->s6, '/', &end) || *end != '/')
		return -EINVAL;
	if (kstrtouint(end + 1, 10, prefix) || *prefix < 1 || *prefix > 128)
		return -EINVAL;
	if (ixm_ip6_addr_is_any(ip) || ixm_ip6_addr_is_loopback(ip) ||
	    ixm_ip6_addr_is_multicast(ip) || ixm_ip6_addr_is_linklocal(ip))
		return -EINVAL;
	if (*prefix <= 126) {
		for (i = *prefix; i < 128; i++)
			if (ip->s6[i / 8] & (0x80 >> (i % 8)))
				return 0;
		return -EINVAL;
	}
	return 0;
}

/*
 * Make the NIC take the port's IPv6 groups (all-nodes and the
 * solicited-node groups of its two addresses, RFC 4291 §2.8), or none
 * when IPv6 is off.  Under @port->lock.
 */
static void ixm_port_set_mc(struct ixm_port *port, const struct ixm_if_config *cfg)
{
	u8 mac[3][ETH_ALEN];
	struct ixm_in6_addr grp;

	if (!port->nic.ops->set_mc)
		return;
	if (!ixm_ip6_enabled(cfg)) {
		port->nic.ops->set_mc(&port->nic, NULL, 0);
		return;
	}
	ixm_ip6_mc_mac(&ixm_ip6_all_nodes, mac[0]);
	ixm_ip6_solicited_node(&cfg->ll6, &grp);
	ixm_ip6_mc_mac(&grp, mac[1]);
	ixm_ip6_solicited_node(&cfg->ip6, &grp);
	ixm_ip6_mc_mac(&grp, mac[2]);
	port->nic.ops->set_mc(&port->nic, &mac[0][0], 3);
}

/*
 * The port's global IPv6 address, which turns IPv6 on (net/ip6.c); its
 * link-local address comes from the MAC.  Announced as IPv4's is.
 */
static ssize_t ipv6_store(struct kobject *kobj, struct kobj_attribute *a,
			  const char *buf, size_t count)
{
	struct ixm_port *port = to_port(kobj);
	struct ixm_if_config *new, *old;
	struct ixm_in6_addr ip;
	unsigned int prefix;

	if (ixm_parse_ipv6(buf, &ip, &prefix)) {
		pr_err("ports: %s: ipv6: '%.*s' is not a global unicast ADDR/N (N 1-128; not ::, ::1, multicast, link-local or the subnet-router anycast); write e.g. 2001:db8::1/64, or an empty line to clear\n",
		       port->name, ixm_input_len(buf), buf);
		return -EINVAL;
	}
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	mutex_lock(&port->lock);
	old = rcu_dereference_protected(port->cfg, lockdep_is_held(&port->lock));
	*new = *old;
	new->ip6 = ip;
	new->ip6_prefix = prefix;
	ixm_ip6_linklocal_from_mac(new->mac, &new->ll6);
	ixm_port_set_mc(port, new);
	rcu_assign_pointer(port->cfg, new);
	if (port->up && prefix)
		ixm_port_announce(port);
	mutex_unlock(&port->lock);
	kfree_rcu(old, rcu);
	return count;
}
static struct kobj_attribute ipv6_attr = __ATTR_RW(ipv6);

static ssize_t rss_key_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%*phN\n", 40, to_port(kobj)->rss_key);
}

static ssize_t rss_key_store(struct kobject *kobj, struct kobj_attribute *a,
			     const char *buf, size_t count)
{
	struct ixm_port *port = to_port(kobj);
	u8 key[40];
	int err = 0;

	if (strcspn(buf, "\n") != 2 * sizeof(key) || hex2bin(key, buf, sizeof(key))) {
		pr_err("ports: %s: rss_key: write exactly 80 hex digits (a 40-byte Toeplitz key)\n",
		       port->name);
		return -EINVAL;
	}
	mutex_lock(&port->lock);
	if (port->up) {
		pr_err("ports: %s: rss_key: the port is up; write 0 to up first\n",
		       port->name);
		err = -EBUSY;
	} else {
		memcpy(port->rss_key, key, sizeof(key));
	}
	mutex_unlock(&port->lock);
	return err ? err : count;
}
static struct kobj_attribute rss_key_attr = __ATTR_RW(rss_key);

static ssize_t udp_reflect_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct ixm_port *port = to_port(kobj);
	bool on;

	rcu_read_lock();
	on = rcu_dereference(port->cfg)->flags & IXM_IFF_UDP_REFLECT;
	rcu_read_unlock();
	return sysfs_emit(buf, "%d\n", on);
}

/* Benchmarks only: the port sends every UDP datagram back (udp.c). */
static ssize_t udp_reflect_store(struct kobject *kobj, struct kobj_attribute *a,
				 const char *buf, size_t count)
{
	struct ixm_port *port = to_port(kobj);
	struct ixm_if_config *new, *old;
	bool on;

	if (kstrtobool(buf, &on)) {
		pr_err("ports: %s: udp_reflect: write 1 (benchmarks: every UDP datagram goes back) or 0\n",
		       port->name);
		return -EINVAL;
	}
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	mutex_lock(&port->lock);
	old = rcu_dereference_protected(port->cfg, lockdep_is_held(&port->lock));
	*new = *old;
	if (on)
		new->flags |= IXM_IFF_UDP_REFLECT;
	else
		new->flags &= ~IXM_IFF_UDP_REFLECT;
	rcu_assign_pointer(port->cfg, new);
	mutex_unlock(&port->lock);
	kfree_rcu(old, rcu);
	return count;
}
static struct kobj_attribute udp_reflect_attr = __ATTR_RW(udp_reflect);

static const char * const ixm_cc_names[] = {
	[IXM_CC_NEWRENO]	= "newreno",
	[IXM_CC_DCTCP]		= "dctcp",
	[IXM_CC_CUBIC]		= "cubic",
};

static ssize_t congestion_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct ixm_port *port = to_port(kobj);
	u8 cc;

	rcu_read_lock();
	cc = rcu_dereference(port->cfg)->cc;
	rcu_read_unlock();
	return sysfs_emit(buf, "%s\n", ixm_cc_names[cc]);
}

/*
 * The congestion control of the port's new TCP connections (those open
 * keep theirs): NewReno; CUBIC (RFC 9438), Linux's default; or DCTCP
 * (RFC 8257), which asks for ECN on every connection and is meant for a
 * datacenter whose switches mark CE.
 */
static ssize_t congestion_store(struct kobject *kobj, struct kobj_attribute *a,
				const char *buf, size_t count)
{
	struct ixm_port *port = to_port(kobj);
	struct ixm_if_config *new, *old;
	int cc = sysfs_match_string(ixm_cc_names, buf);

	if (cc < 0) {
		pr_err("ports: %s: congestion: write newreno, cubic or dctcp\n", port->name);
		return -EINVAL;
	}
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	mutex_lock(&port->lock);
	old = rcu_dereference_protected(port->cfg, lockdep_is_held(&port->lock));
	*new = *old;
	new->cc = (u8)cc;
	rcu_assign_pointer(port->cfg, new);
	mutex_unlock(&port->lock);
	kfree_rcu(old, rcu);
	return count;
}
static struct kobj_attribute congestion_attr = __ATTR_RW(congestion);

static struct attribute *ixm_port_attrs[] = {
	&mac_attr.attr,
	&link_attr.attr,
	&queues_attr.attr,
	&cores_attr.attr,
	&port_owner_attr.attr,
	&up_attr.attr,
	&ipv4_attr.attr,
	&ipv6_attr.attr,
	&rss_key_attr.attr,
	&udp_reflect_attr.attr,
	&congestion_attr.attr,
	NULL,
};

static const struct attribute_group ixm_port_group = {
	.attrs = ixm_port_attrs,
};

/* Port totals: what down kept (port->base) plus the live queue pairs. */
static u64 ixm_port_sum(struct ixm_port *port, size_t off)
{
	u64 sum;
	unsigned int i;

	mutex_lock(&port->lock);
	sum = *(u64 *)((u8 *)&port->base + off);
	for (i = 0; i < port->nq; i++)
		sum += READ_ONCE(*(u64 *)((u8 *)&port->qp[i]->stats + off));
	mutex_unlock(&port->lock);
	return sum;
}

#define IXM_PORT_STAT(_name)	{ #_name, offsetof(struct ixm_net_stats, _name) }

static const struct ixm_stat_desc ixm_port_stat_descs[] = {
	IXM_PORT_STAT(rx_packets),
	IXM_PORT_STAT(rx_bytes),
	IXM_PORT_STAT(tx_packets),
	IXM_PORT_STAT(tx_bytes),
	IXM_PORT_STAT(arp_requests_in),
	IXM_PORT_STAT(arp_replies_out),
	IXM_PORT_STAT(arp_requests_out),
	IXM_PORT_STAT(icmp_echo_replies),
	IXM_PORT_STAT(udp_in),
	IXM_PORT_STAT(udp_out),
	IXM_PORT_STAT(tx_csum_sw),
	IXM_PORT_STAT(icmp6_echo_replies),
	IXM_PORT_STAT(icmp6_errors_out),
	IXM_PORT_STAT(icmp6_errors_ratelimited),
	IXM_PORT_STAT(nd_solicits_in),
	IXM_PORT_STAT(nd_adverts_out),
	IXM_PORT_STAT(nd_solicits_out),
	IXM_PORT_STAT(udp6_in),
	IXM_PORT_STAT(udp6_out),
};
static_assert(ARRAY_SIZE(ixm_port_stat_descs) ==
	      offsetof(struct ixm_net_stats, drops) / sizeof(u64),
	      "a file for every port counter (drops/ has the drops)");
static struct ixm_stat_attr ixm_port_stat_attrs[ARRAY_SIZE(ixm_port_stat_descs)];

static u64 ixm_port_stat(struct kobject *kobj, const struct ixm_stat_desc *d)
{
	return ixm_port_sum(to_port(kobj), d->off);
}

/* Free buffers over the port's pools: back to its start once nothing is in use. */
static ssize_t bufs_free_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct ixm_port *port = to_port(kobj);
	unsigned int i;
	u64 sum = 0;

	mutex_lock(&port->lock);
	for (i = 0; i < port->nq; i++)
		sum += READ_ONCE(port->qp[i]->pool.nfree);
	mutex_unlock(&port->lock);
	return sysfs_emit(buf, "%llu\n", sum);
}
static struct kobj_attribute port_bufs_free_attr = __ATTR_RO(bufs_free);

/*
 * Buffers neither free nor on a NIC ring: held by applications, or for an
 * instant inside the loop.  0 on an idle port with no application, which
 * bufs_free alone cannot show (the RX ring is refilled in batches).
 */
static ssize_t bufs_held_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct ixm_port *port = to_port(kobj);
	unsigned int i;
	s64 sum = 0;

	mutex_lock(&port->lock);
	for (i = 0; i < port->nq; i++) {
		struct ixm_qpair *qp = port->qp[i];
		struct ixm_queue_stats qs;

		qp->q->ops->get_stats(qp->q, &qs);
		sum += qp->pool.count - READ_ONCE(qp->pool.nfree);
		sum -= qs.rx_posted + qs.tx_pending;
	}
	mutex_unlock(&port->lock);
	return sysfs_emit(buf, "%lld\n", sum);
}
static struct kobj_attribute port_bufs_held_attr = __ATTR_RO(bufs_held);

/*
 * The port's ARP table, which lives from bind to unbind (sysfs readers are
 * gone before ixm_port_unregister() frees it).  Written under the table's
 * lock by the cores; read here without it.
 */
static ssize_t arp_entries_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_port(kobj)->arp->count));
}
static struct kobj_attribute port_arp_entries_attr = __ATTR_RO(arp_entries);

/* The port's IPv6 neighbour table, which lives as long as the ARP table. */
static ssize_t nd_entries_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_port(kobj)->nd->count));
}
static struct kobj_attribute port_nd_entries_attr = __ATTR_RO(nd_entries);

/* Counters of the NIC's rings: what down kept plus the live queue pairs. */
#define IXM_QUEUE_STAT(_name, _field)	\
	{ #_name, offsetof(struct ixm_queue_stats, _field) }

static const struct ixm_stat_desc ixm_queue_stat_descs[] = {
	IXM_QUEUE_STAT(rx_errors, rx_errors),
	IXM_QUEUE_STAT(rx_no_buf, rx_no_buf),
	IXM_QUEUE_STAT(rx_csum_hw, rx_csum_hw),
	IXM_QUEUE_STAT(tx_ring_full, tx_full),
	IXM_QUEUE_STAT(tx_csum_hw, tx_csum_hw),
	IXM_QUEUE_STAT(rx_steered, rx_steered),
	IXM_QUEUE_STAT(rx_steer_drops, rx_steer_drops),
	IXM_QUEUE_STAT(rx_steered_in, rx_steered_in),
};
static struct ixm_stat_attr ixm_queue_stat_attrs[ARRAY_SIZE(ixm_queue_stat_descs)];

static u64 ixm_queue_stat(struct kobject *kobj, const struct ixm_stat_desc *d)
{
	struct ixm_port *port = to_port(kobj);
	unsigned int i;
	u64 sum;

	mutex_lock(&port->lock);
	sum = *(u64 *)((u8 *)&port->qbase + d->off);
	for (i = 0; i < port->nq; i++) {
		struct ixm_queue_stats qs;

		port->qp[i]->q->ops->get_stats(port->qp[i]->q, &qs);
		sum += *(u64 *)((u8 *)&qs + d->off);
	}
	mutex_unlock(&port->lock);
	return sum;
}

/* The ARP table's counters, written under its lock by the cores. */
#define IXM_ARP_STAT(_name)	{ "arp_" #_name, offsetof(struct ixm_arp_table, _name) }

static const struct ixm_stat_desc ixm_arp_stat_descs[] = {
	IXM_ARP_STAT(learned),
	IXM_ARP_STAT(evicted),
	IXM_ARP_STAT(refused),
	IXM_ARP_STAT(ratelimited),
};
static struct ixm_stat_attr ixm_arp_stat_attrs[ARRAY_SIZE(ixm_arp_stat_descs)];

static u64 ixm_arp_stat(struct kobject *kobj, const struct ixm_stat_desc *d)
{
	return READ_ONCE(*(u64 *)((u8 *)to_port(kobj)->arp + d->off));
}

/* The neighbour table's counters, written under its lock by the cores. */
#define IXM_ND_STAT(_name)	{ "nd_" #_name, offsetof(struct ixm_nd_table, _name) }

static const struct ixm_stat_desc ixm_nd_stat_descs[] = {
	IXM_ND_STAT(learned),
	IXM_ND_STAT(evicted),
	IXM_ND_STAT(refused),
	IXM_ND_STAT(ratelimited),
};
static struct ixm_stat_attr ixm_nd_stat_attrs[ARRAY_SIZE(ixm_nd_stat_descs)];

static u64 ixm_nd_stat(struct kobject *kobj, const struct ixm_stat_desc *d)
{
	return READ_ONCE(*(u64 *)((u8 *)to_port(kobj)->nd + d->off));
}

/*
 * The device's own counters (struct ixm_nic_stats), which clear on read:
 * each read adds what the registers held to the totals, under the port's
 * lock.  0 on a chip whose counters are not read (read_stats NULL).
 */
#define IXM_NIC_STAT(_name)	{ "nic_" #_name, offsetof(struct ixm_nic_stats, _name) }

static const struct ixm_stat_desc ixm_nic_stat_descs[] = {
	IXM_NIC_STAT(rx_packets),
	IXM_NIC_STAT(rx_bytes),
	IXM_NIC_STAT(tx_packets),
	IXM_NIC_STAT(tx_bytes),
	IXM_NIC_STAT(rx_missed),
	IXM_NIC_STAT(rx_no_desc),
	IXM_NIC_STAT(rx_crc_errors),
	IXM_NIC_STAT(rx_length_errors),
};
static struct ixm_stat_attr ixm_nic_stat_attrs[ARRAY_SIZE(ixm_nic_stat_descs)];

static u64 ixm_nic_stat(struct kobject *kobj, const struct ixm_stat_desc *d)
{
	struct ixm_port *port = to_port(kobj);
	u64 v;

	mutex_lock(&port->lock);
	if (port->nic.ops->read_stats)
		port->nic.ops->read_stats(&port->nic);
	v = *(u64 *)((u8 *)&port->nic.stats + d->off);
	mutex_unlock(&port->lock);
	return v;
}

static const struct ixm_stat_set ixm_port_stat_sets[] = {
	IXM_STAT_SET(ixm_port_stat_descs, ixm_port_stat, ixm_port_stat_attrs),
	IXM_STAT_SET(ixm_queue_stat_descs, ixm_queue_stat, ixm_queue_stat_attrs),
	IXM_STAT_SET(ixm_arp_stat_descs, ixm_arp_stat, ixm_arp_stat_attrs),
	IXM_STAT_SET(ixm_nd_stat_descs, ixm_nd_stat, ixm_nd_stat_attrs),
	IXM_STAT_SET(ixm_nic_stat_descs, ixm_nic_stat, ixm_nic_stat_attrs),
};

/* stats/: bufs_free, bufs_held, arp_entries, nd_entries, then the sets' files */
static struct attribute *ixm_port_stat_ptrs[4 + ARRAY_SIZE(ixm_port_stat_descs) +
					    ARRAY_SIZE(ixm_queue_stat_descs) +
					    ARRAY_SIZE(ixm_arp_stat_descs) +
					    ARRAY_SIZE(ixm_nd_stat_descs) +
					    ARRAY_SIZE(ixm_nic_stat_descs) + 1];

static const struct attribute_group ixm_port_stat_group = {
	.name = "stats",
	.attrs = ixm_port_stat_ptrs,
};

/* drops/<reason>: one file per enum ixm_drop_reason, its row made at init */
static struct ixm_stat_desc ixm_drop_descs[IXM_DROP_MAX];
static struct ixm_stat_attr ixm_drop_attrs[IXM_DROP_MAX];
static struct attribute *ixm_drop_attr_ptrs[IXM_DROP_MAX + 1];
static const struct ixm_stat_set ixm_drop_set =
	IXM_STAT_SET(ixm_drop_descs, ixm_port_stat, ixm_drop_attrs);

static const struct attribute_group ixm_port_drop_group = {
	.name = "drops",
	.attrs = ixm_drop_attr_ptrs,
};

static const struct attribute_group *ixm_port_groups[] = {
	&ixm_port_group,
	&ixm_port_stat_group,
	&ixm_port_drop_group,
	NULL,
};

static void ixm_port_release(struct kobject *kobj)
{
	struct ixm_port *port = to_port(kobj);

	kfree(rcu_dereference_protected(port->cfg, 1));
	kfree(port);
}

static const struct kobj_type ixm_port_ktype = {
	.release	= ixm_port_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= ixm_port_groups,
};

static void ixm_port_gc(struct work_struct *work)
{
	struct ixm_port *port = container_of(to_delayed_work(work),
					     struct ixm_port, gc_work);

	ixm_arp_table_gc(port->arp, ktime_get_ns());
	ixm_nd_table_gc(port->nd, ktime_get_ns());
	schedule_delayed_work(&port->gc_work, IXM_ARP_GC_PERIOD);
}

/**
 * ixm_port_register() - publish a probed port in sysfs, down
 * @port: filled by the PCI probe (nic set up, MAC known)
 *
 * On success the port's kobject owns @port; on failure @port is freed
 * and the chip is shut down.
 *
 * Context: process (PCI probe).
 * Return: 0 or -errno.
 */
int ixm_port_register(struct ixm_port *port)
{
	struct ixm_if_config *cfg;
	u64 nd_key[2];
	int err;

	mutex_init(&port->lock);
	INIT_DELAYED_WORK(&port->gc_work, ixm_port_gc);
	port->cores_all = true;
	memcpy(port->rss_key, ixm_rss_key_symmetric, sizeof(port->rss_key));
	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	port->arp = ixm_arp_table_alloc();
	get_random_bytes(nd_key, sizeof(nd_key));
	port->nd = ixm_nd_table_alloc(nd_key);
	if (!cfg || !port->arp || !port->nd) {
		err = -ENOMEM;
		goto err_free;
	}
	memcpy(cfg->mac, port->nic.mac, ETH_ALEN);
	ixm_ip6_linklocal_from_mac(cfg->mac, &cfg->ll6);
	RCU_INIT_POINTER(port->cfg, cfg);
	ixm_port_set_mc(port, cfg);

	kobject_init(&port->kobj, &ixm_port_ktype);
	err = kobject_add(&port->kobj, ixm_ports_kobj, "%s", port->name);
	if (err) {
		port->nic.ops->shutdown(&port->nic);
		ixm_arp_table_free(port->arp);
		ixm_nd_table_free(port->nd);
		kobject_put(&port->kobj);
		return err;
	}
	mutex_lock(&ixm_cfg_lock);
	list_add_tail(&port->list, &ixm_ports);
	mutex_unlock(&ixm_cfg_lock);
	schedule_delayed_work(&port->gc_work, IXM_ARP_GC_PERIOD);
	return 0;

err_free:
	port->nic.ops->shutdown(&port->nic);
	if (port->arp)
		ixm_arp_table_free(port->arp);
	ixm_nd_table_free(port->nd);
	kfree(cfg);
	kfree(port);
	return err;
}

/**
 * ixm_port_unregister() - take a port down and remove it
 * @port: a registered port
 *
 * Context: process (PCI remove).
 */
void ixm_port_unregister(struct ixm_port *port)
{
	kobject_del(&port->kobj);	/* waits for sysfs writers in flight */
	mutex_lock(&ixm_cfg_lock);
	mutex_lock(&port->lock);
	if (port->up)
		ixm_port_down_locked(port);
	list_del(&port->list);
	mutex_unlock(&port->lock);
	mutex_unlock(&ixm_cfg_lock);
	cancel_delayed_work_sync(&port->gc_work);
	port->nic.ops->shutdown(&port->nic);
	ixm_ctx_device_reset(port->dev);
	synchronize_rcu();
	ixm_arp_table_free(port->arp);
	ixm_nd_table_free(port->nd);
	kobject_put(&port->kobj);
}

/**
 * ixm_ports_init() - create /sys/kernel/ixmod/ports
 * @parent: /sys/kernel/ixmod
 *
 * Return: 0 or -ENOMEM.
 */
int ixm_ports_init(struct kobject *parent)
{
	unsigned int r, n = 0;

	ixm_port_stat_ptrs[n++] = &port_bufs_free_attr.attr;
	ixm_port_stat_ptrs[n++] = &port_bufs_held_attr.attr;
	ixm_port_stat_ptrs[n++] = &port_arp_entries_attr.attr;
	ixm_port_stat_ptrs[n++] = &port_nd_entries_attr.attr;
	for (r = 0; r < ARRAY_SIZE(ixm_port_stat_sets); r++)
		n += ixm_stat_set_init(&ixm_port_stat_sets[r], &ixm_port_stat_ptrs[n]);

	for (r = 0; r < IXM_DROP_MAX; r++) {
		ixm_drop_descs[r].name = ixm_drop_names[r];
		ixm_drop_descs[r].off = offsetof(struct ixm_net_stats, drops[r]);
	}
	ixm_stat_set_init(&ixm_drop_set, ixm_drop_attr_ptrs);
	ixm_ports_kobj = kobject_create_and_add("ports", parent);
	return ixm_ports_kobj ? 0 : -ENOMEM;
}

/**
 * ixm_ports_exit() - remove /sys/kernel/ixmod/ports; no port is left
 */
void ixm_ports_exit(void)
{
	WARN_ON_ONCE(!list_empty(&ixm_ports));
	kobject_put(ixm_ports_kobj);
}
