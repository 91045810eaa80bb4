// SPDX-License-Identifier: GPL-2.0
/*
 * softport.c - software ports: a Linux netdev whose other side is an
 * ixmod port, for machines with no NIC to spare
 *
 *   echo 0 > /sys/kernel/ixmod/softports/new   # netdev ixsw0, port ixsw0
 *   echo 0 > /sys/kernel/ixmod/softports/del
 *
 * The port (/sys/kernel/ixmod/ports/ixsw0/) is configured and brought up
 * like a NIC's; Linux's side is an ordinary Ethernet netdev, which Linux
 * processes reach by its address and routes (containers through routing
 * or a bridge).  Each dataplane core's queue pair is two rings
 * (nic/softport_q.c) with Linux playing the device:
 *
 *   Linux -> core:  ndo_select_queue() hashes the frame with the port's
 *		     Toeplitz key and indirection table, as a NIC's RSS
 *		     would, so a flow lands on the core that owns it;
 *		     ndo_start_xmit() copies it into a buffer the core
 *		     posted (completing a partial checksum on the way) and
 *		     frees the skb at once.
 *   core -> Linux:  the core queues its frames and schedules the queue's
 *		     NAPI instance, which runs in its own thread (threaded
 *		     NAPI, so no softirq work lands on a dataplane core),
 *		     copies each frame into an skb and hands it to GRO.
 *
 * One copy each way, on Linux's CPUs.  The port's buffers and the
 * applications' transmit arenas are "DMA-mapped" for a platform device
 * (ixmod-sw.N) whose DMA is the kernel's direct mapping, so the port code
 * is the same as for a NIC and the copy reads a frame's fragments through
 * that mapping.  A core sleeping idle is woken as a queue's MSI-X vector
 * would wake it (ixm_port_queue_irq()).
 *
 * Locking: ixm_softports_lock serialises new and del and guards the list;
 * the port's own locks do the rest, as for a PCI port.  A lane's @sq is
 * RCU: queue_stop() clears it and waits for transmitters in flight.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>

#include "ixmod.h"
#include "base/toeplitz.h"
#include "nic/softport_q.h"

#define IXM_SOFTPORT_MAX_ID	63

/**
 * struct ixm_sw_lane - one queue pair as Linux's side sees it
 * @napi: copies the core's frames into skbs
 * @sp: the software port
 * @sq: the queue pair while started (RCU), else NULL
 * @idx: its number
 * @rx_packets: frames Linux received from the core (NAPI)
 * @rx_bytes: their bytes
 * @rx_dropped: frames lost for want of an skb
 * @tx_packets: frames Linux sent to the core (its transmit queue)
 * @tx_bytes: their bytes
 * @tx_dropped: frames the core had no buffer for, or too long, or sent
 *	while the port was down
 */
struct ixm_sw_lane {
	struct napi_struct	napi;
	struct ixm_softport	*sp;
	struct ixm_swq __rcu	*sq;
	unsigned int		idx;
	u64			rx_packets;
	u64			rx_bytes;
	u64			rx_dropped;
	u64			tx_packets;
	u64			tx_bytes;
	u64			tx_dropped;
};

/**
 * struct ixm_softport - a software port (the netdev's private area)
 * @ndev: Linux's side
 * @pdev: the platform device its buffers are mapped for
 * @port: ixmod's side (its kobject owns it)
 * @id: N in ixswN
 * @nq: queue pairs in use while up
 * @key: the Toeplitz key (set_rss)
 * @reta: queue per hash bucket (set_rss)
 * @list: in ixm_softports
 * @lane: per queue pair, nic.max_queues of them
 */
struct ixm_softport {
	struct net_device	*ndev;
	struct platform_device	*pdev;
	struct ixm_port		*port;
	unsigned int		id;
	unsigned int		nq;
	u8			key[IXM_RSS_KEY_LEN];
	u8			reta[IXM_RSS_RETA_SIZE];
	struct list_head	list;
	struct ixm_sw_lane	lane[];
};

static DEFINE_MUTEX(ixm_softports_lock);
static LIST_HEAD(ixm_softports);
static struct kobject *ixm_softports_kobj;

static struct ixm_softport *sw_of(struct ixm_nic *nic)
{
	return nic->priv;
}

/* ---- the core's frames to Linux: NAPI ---- */

/* The bus address of a fragment back to the kernel address it maps. */
static const void *ixm_sw_frag_addr(struct ixm_softport *sp, dma_addr_t dma)
{
	return phys_to_virt(dma_to_phys(&sp->pdev->dev, dma));
}

/*
 * A frame the stack left its checksums to the device for (IXM_MBUF_F_TX_*,
 * base/mbuf.h): the IPv4 header sum is 0 and the TCP/UDP field holds the
 * pseudo-header's sum.  Fill the header sum and give Linux the rest as
 * CHECKSUM_PARTIAL, which its receive path accepts as sound and a device
 * forwarding the frame completes.  Over IPv6 (IXM_MBUF_F_TX_IPV6) there is
 * no header sum, and TCP/UDP starts after the fixed 40-byte header.
 */
static bool ixm_sw_tx_csum(struct sk_buff *skb, u16 flags)
{
	struct iphdr *iph = (struct iphdr *)(skb->data + ETH_HLEN);
	u16 off = flags & IXM_MBUF_F_TX_TCP_CSUM ? offsetof(struct tcphdr, check) :
						   offsetof(struct udphdr, check);

	if (flags & IXM_MBUF_F_TX_IPV6) {
		if (skb->len < ETH_HLEN + sizeof(struct ipv6hdr))
			return false;
		return skb_partial_csum_set(skb, ETH_HLEN + sizeof(struct ipv6hdr), off);
	}
	if (skb->len < ETH_HLEN + sizeof(*iph) || iph->ihl != 5)
		return false;
	iph->check = 0;
	iph->check = ip_fast_csum(iph, iph->ihl);
	return skb_partial_csum_set(skb, ETH_HLEN + sizeof(*iph), off);
}

static struct sk_buff *ixm_sw_frame_skb(struct ixm_sw_lane *lane, struct ixm_mbuf *m)
{
	struct sk_buff *skb = napi_alloc_skb(&lane->napi, ixm_mbuf_frame_len(m));
	u32 i;

	if (!skb)
		return NULL;
	skb_put_data(skb, m->data, m->len);
	for (i = 0; i < m->nfrags; i++)
		skb_put_data(skb, ixm_sw_frag_addr(lane->sp, m->frags[i].dma), m->frags[i].len);
	if (m->flags & IXM_MBUF_F_TX_CSUM && !ixm_sw_tx_csum(skb, m->flags)) {
		kfree_skb(skb);	/* the stack never builds such a frame */
		return NULL;
	}
	return skb;
}

static int ixm_sw_napi_poll(struct napi_struct *napi, int budget)
{
	struct ixm_sw_lane *lane = container_of(napi, struct ixm_sw_lane, napi);
	struct ixm_swq *sq = rcu_dereference_protected(lane->sq, 1);	/* enabled: set */
	unsigned int n = min_t(unsigned int, ixm_swq_dev_tx_avail(sq), budget), i;
	u64 bytes = 0, csum = 0, lost = 0;

	for (i = 0; i < n; i++) {
		struct ixm_mbuf *m = ixm_swq_dev_tx_frame(sq, i);
		struct sk_buff *skb = ixm_sw_frame_skb(lane, m);

		if (!skb) {
			lost++;
			continue;
		}
		csum += skb->ip_summed == CHECKSUM_PARTIAL;
		bytes += skb->len;
		skb->protocol = eth_type_trans(skb, lane->sp->ndev);
		skb_record_rx_queue(skb, lane->idx);
		napi_gro_receive(napi, skb);
	}
	if (n) {
		WRITE_ONCE(sq->dev_tx_csum, sq->dev_tx_csum + csum);
		WRITE_ONCE(lane->rx_packets, lane->rx_packets + n - lost);
		WRITE_ONCE(lane->rx_bytes, lane->rx_bytes + bytes);
		WRITE_ONCE(lane->rx_dropped, lane->rx_dropped + lost);
		if (ixm_swq_dev_tx_commit(sq, n))
			ixm_port_queue_irq(lane->sp->port, lane->idx);
	}
	if (n < budget && napi_complete_done(napi, n) && ixm_swq_dev_tx_avail(sq))
		napi_schedule(napi);	/* queued between the look and the completion */
	return n;
}

/*
 * The core queued frames (struct ixm_swq.kick).  Threaded NAPI only wakes
 * the instance's thread.  Should an operator turn threading off
 * (/sys/class/net/ixswN/threaded), the poll becomes a softirq raised on
 * this core, which nothing would run before its next interrupt: the
 * bottom-half section runs it here, on the dataplane core, rather than
 * late.
 */
static void ixm_sw_kick(struct ixm_swq *sq)
{
	struct ixm_sw_lane *lane = sq->kick_data;

	local_bh_disable();
	napi_schedule(&lane->napi);
	local_bh_enable();
}

/* ---- Linux's frames to the core: the netdev's transmit ---- */

/*
 * The queue a NIC's RSS would give the frame: the port's Toeplitz hash of
 * it (ixm_toeplitz_frame(): IPv4 and IPv6 4-tuples of TCP and UDP, else
 * the addresses; nothing else, which goes to queue 0) through its table.
 */
static u16 ixm_sw_select_queue(struct net_device *ndev, struct sk_buff *skb,
			       struct net_device *sb_dev)
{
	struct ixm_softport *sp = netdev_priv(ndev);
	u8 buf[IXM_TOEPLITZ_FRAME_MAX];
	unsigned int len = min_t(unsigned int, skb->len, sizeof(buf));
	const u8 *frame;
	u32 hash;

	if (!READ_ONCE(sp->nq))
		return 0;
	frame = skb_header_pointer(skb, 0, len, buf);
	if (!frame || !ixm_toeplitz_frame(sp->key, frame, len, &hash))
		return 0;
	return sp->reta[hash % IXM_RSS_RETA_SIZE];
}

/* Is the partial checksum where TCP's or UDP's is in an IPv4 frame? */
static bool ixm_sw_csum_is_l4(const struct sk_buff *skb)
{
	const struct iphdr *iph = (const struct iphdr *)(skb->data + ETH_HLEN);
	int start = skb_checksum_start_offset(skb);

	if (skb_headlen(skb) < ETH_HLEN + sizeof(*iph) ||
	    eth_hdr(skb)->h_proto != htons(ETH_P_IP) || start != ETH_HLEN + iph->ihl * 4)
		return false;
	return (iph->protocol == IPPROTO_TCP &&
		skb->csum_offset == offsetof(struct tcphdr, check)) ||
	       (iph->protocol == IPPROTO_UDP &&
		skb->csum_offset == offsetof(struct udphdr, check));
}

static netdev_tx_t ixm_sw_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct ixm_softport *sp = netdev_priv(ndev);
	struct ixm_sw_lane *lane = &sp->lane[skb_get_queue_mapping(skb)];
	struct ixm_swq *sq = rcu_dereference_bh(lane->sq);
	u16 flags = 0;
	struct ixm_mbuf *m;
	u8 *to;

	if (!sq || skb->len > IXM_MBUF_DATA_MAX)
		goto drop;
	if (skb->ip_summed == CHECKSUM_PARTIAL &&
	    skb_checksum_start_offset(skb) > skb_headlen(skb) && skb_checksum_help(skb))
		goto drop;
	m = ixm_swq_dev_rx_next(sq);
	if (!m)
		goto drop;
	to = m->buf + IXM_MBUF_HEADROOM;
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		/* the one copy also completes the sum, which is then sound */
		skb_copy_and_csum_dev(skb, to);
		if (ixm_sw_csum_is_l4(skb)) {
			flags = IXM_MBUF_F_L4_CSUM_OK;
			WRITE_ONCE(sq->dev_rx_csum, sq->dev_rx_csum + 1);
		}
	} else if (skb_copy_bits(skb, 0, to, skb->len)) {
		goto drop;
	}
	m->len = skb->len;
	m->flags = flags;
	WRITE_ONCE(lane->tx_packets, lane->tx_packets + 1);
	WRITE_ONCE(lane->tx_bytes, lane->tx_bytes + skb->len);
	if (ixm_swq_dev_rx_commit(sq, m))
		ixm_port_queue_irq(sp->port, lane->idx);
	dev_consume_skb_any(skb);
	return NETDEV_TX_OK;

drop:
	WRITE_ONCE(lane->tx_dropped, lane->tx_dropped + 1);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static int ixm_sw_open(struct net_device *ndev)
{
	netif_tx_start_all_queues(ndev);
	return 0;
}

static int ixm_sw_stop(struct net_device *ndev)
{
	netif_tx_stop_all_queues(ndev);
	return 0;
}

static void ixm_sw_get_stats64(struct net_device *ndev, struct rtnl_link_stats64 *s)
{
	struct ixm_softport *sp = netdev_priv(ndev);
	unsigned int i;

	for (i = 0; i < sp->port->nic.max_queues; i++) {
		const struct ixm_sw_lane *lane = &sp->lane[i];

		s->rx_packets += READ_ONCE(lane->rx_packets);
		s->rx_bytes += READ_ONCE(lane->rx_bytes);
		s->rx_dropped += READ_ONCE(lane->rx_dropped);
		s->tx_packets += READ_ONCE(lane->tx_packets);
		s->tx_bytes += READ_ONCE(lane->tx_bytes);
		s->tx_dropped += READ_ONCE(lane->tx_dropped);
	}
}

static const struct net_device_ops ixm_sw_netdev_ops = {
	.ndo_open		= ixm_sw_open,
	.ndo_stop		= ixm_sw_stop,
	.ndo_start_xmit		= ixm_sw_xmit,
	.ndo_select_queue	= ixm_sw_select_queue,
	.ndo_get_stats64	= ixm_sw_get_stats64,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

/* ---- the port's device: struct ixm_nic_ops ---- */

static int ixm_sw_reset(struct ixm_nic *nic)
{
	return 0;
}

/* ixmod's side gets an address of its own, locally administered. */
static int ixm_sw_init(struct ixm_nic *nic)
{
	eth_random_addr(nic->mac);
	return 0;
}

/* The link is up while Linux's side is (ip link set ixswN up). */
static bool ixm_sw_link_up(struct ixm_nic *nic, u32 *mbps)
{
	*mbps = 10000;	/* nominal: a copy per frame, not a wire */
	return netif_running(sw_of(nic)->ndev);
}

static int ixm_sw_set_rss(struct ixm_nic *nic, const u8 *key, const u8 *reta)
{
	struct ixm_softport *sp = sw_of(nic);
	unsigned int i, nq = 0;

	memcpy(sp->key, key, sizeof(sp->key));
	memcpy(sp->reta, reta, sizeof(sp->reta));
	for (i = 0; i < IXM_RSS_RETA_SIZE; i++)
		nq = max_t(unsigned int, nq, reta[i] + 1);
	WRITE_ONCE(sp->nq, nq);
	return 0;
}

static void ixm_sw_rx_enable(struct ixm_nic *nic, bool on)
{
	struct ixm_softport *sp = sw_of(nic);

	if (on) {
		netif_carrier_on(sp->ndev);
	} else {
		WRITE_ONCE(sp->nq, 0);
		netif_carrier_off(sp->ndev);
	}
}

static void ixm_sw_nop(struct ixm_nic *nic)
{
}

/* The netdev's counters, as a NIC's would count the same frames. */
static void ixm_sw_read_stats(struct ixm_nic *nic)
{
	struct ixm_softport *sp = sw_of(nic);
	struct rtnl_link_stats64 s = {};

	ixm_sw_get_stats64(sp->ndev, &s);
	nic->stats.rx_packets = s.tx_packets;
	nic->stats.rx_bytes = s.tx_bytes;
	nic->stats.tx_packets = s.rx_packets;
	nic->stats.tx_bytes = s.rx_bytes;
	nic->stats.rx_no_desc = s.tx_dropped;
}

static struct ixm_queue *ixm_sw_queue_alloc(struct ixm_nic *nic, unsigned int idx,
					    struct ixm_mbuf_pool *pool, int node)
{
	struct ixm_swq *sq = ixm_swq_alloc(idx, pool, node);

	if (!sq)
		return NULL;
	sq->kick = ixm_sw_kick;
	sq->kick_data = &sw_of(nic)->lane[idx];
	return &sq->q;
}

static int ixm_sw_queue_start(struct ixm_nic *nic, struct ixm_queue *q)
{
	struct ixm_sw_lane *lane = &sw_of(nic)->lane[q->idx];

	rcu_assign_pointer(lane->sq, ixm_swq(q));
	napi_enable(&lane->napi);
	return 0;
}

static void ixm_sw_queue_stop(struct ixm_nic *nic, struct ixm_queue *q)
{
	struct ixm_sw_lane *lane = &sw_of(nic)->lane[q->idx];

	if (!rcu_access_pointer(lane->sq))
		return;		/* never started: NAPI is disabled already */
	napi_disable(&lane->napi);
	RCU_INIT_POINTER(lane->sq, NULL);
	synchronize_net();	/* no transmitter still copies into the ring */
}

static void ixm_sw_queue_free(struct ixm_nic *nic, struct ixm_queue *q)
{
	ixm_swq_free(ixm_swq(q));
}

static const struct ixm_nic_ops ixm_softport_ops = {
	.name		= "softport",
	.reset		= ixm_sw_reset,
	.init		= ixm_sw_init,
	.link_up	= ixm_sw_link_up,
	.set_rss	= ixm_sw_set_rss,
	.rx_enable	= ixm_sw_rx_enable,
	.irq_disable	= ixm_sw_nop,
	.shutdown	= ixm_sw_nop,
	.read_stats	= ixm_sw_read_stats,
	.queue_alloc	= ixm_sw_queue_alloc,
	.queue_start	= ixm_sw_queue_start,
	.queue_stop	= ixm_sw_queue_stop,
	.queue_free	= ixm_sw_queue_free,
	.tx_csum	= true,
};

/* ---- new and del ---- */

static struct ixm_softport *ixm_softport_find(unsigned int id)
{
	struct ixm_softport *sp;

	list_for_each_entry(sp, &ixm_softports, list)
		if (sp->id == id)
			return sp;
	return NULL;
}

/* A platform device to map buffers for: 64-bit direct DMA, no IOMMU. */
static struct platform_device *ixm_softport_pdev(unsigned int id)
{
	struct platform_device *pdev;
	int err;

	pdev = platform_device_register_simple("ixmod-sw", id, NULL, 0);
	if (IS_ERR(pdev))
		return pdev;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (!err && device_iommu_mapped(&pdev->dev))
		err = -EOPNOTSUPP;
	if (err) {
		platform_device_unregister(pdev);
		return ERR_PTR(err);
	}
	return pdev;
}

static int ixm_softport_new(unsigned int id)
{
	unsigned int nq = min_t(unsigned int, num_online_cpus(), IXM_NIC_MAX_QUEUES), i;
	struct platform_device *pdev;
	struct ixm_softport *sp;
	struct net_device *ndev;
	struct ixm_port *port;
	int err;

	lockdep_assert_held(&ixm_softports_lock);
	pdev = ixm_softport_pdev(id);
	if (IS_ERR(pdev)) {
		pr_err("softports: new %u: no platform device for its buffers (%ld)\n",
		       id, PTR_ERR(pdev));
		return PTR_ERR(pdev);
	}
	ndev = alloc_etherdev_mqs(struct_size(sp, lane, nq), nq, 1);
	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!ndev || !port) {
		err = -ENOMEM;
		goto err_free;
	}
	sp = netdev_priv(ndev);
	sp->ndev = ndev;
	sp->pdev = pdev;
	sp->port = port;
	sp->id = id;
	snprintf(ndev->name, IFNAMSIZ, "ixsw%u", id);
	SET_NETDEV_DEV(ndev, &pdev->dev);
	ndev->netdev_ops = &ixm_sw_netdev_ops;
	ndev->max_mtu = ETH_DATA_LEN;	/* a frame fits one 2 KiB buffer */
	ndev->features = NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA;
	ndev->hw_features = ndev->features;
	eth_hw_addr_random(ndev);
	for (i = 0; i < nq; i++) {
		sp->lane[i].sp = sp;
		sp->lane[i].idx = i;
		netif_napi_add(ndev, &sp->lane[i].napi, ixm_sw_napi_poll);
	}
	netif_carrier_off(ndev);

	port->dev = &pdev->dev;
	strscpy(port->name, ndev->name, sizeof(port->name));
	port->nic.dev = &pdev->dev;
	port->nic.ops = &ixm_softport_ops;
	port->nic.tx_csum = true;
	port->nic.max_queues = nq;
	port->nic.priv = sp;
	ixm_sw_init(&port->nic);

	rtnl_lock();
	err = register_netdevice(ndev);
	if (!err) {
		/* the core schedules NAPI from its thread: no softirq there */
		err = dev_set_threaded(ndev, true);
		if (err)
			unregister_netdevice(ndev);
	}
	rtnl_unlock();
	if (err) {
		pr_err("softports: new %u: cannot register netdev %s (%d)\n", id,
		       ndev->name, err);
		goto err_free;
	}
	err = ixm_port_register(port);	/* from here the kobject owns @port */
	if (err) {
		pr_err("softports: new %u: cannot register the port (%d)\n", id, err);
		unregister_netdev(ndev);
		free_netdev(ndev);
		platform_device_unregister(pdev);
		return err;
	}
	list_add_tail(&sp->list, &ixm_softports);
	pr_info("softports: %s ready: Linux's side %pM, the port's %pM; configure it in /sys/kernel/ixmod/ports/%s\n",
		ndev->name, ndev->dev_addr, port->nic.mac, port->name);
	return 0;

err_free:
	kfree(port);
	if (ndev)
		free_netdev(ndev);
	platform_device_unregister(pdev);
	return err;
}

static void ixm_softport_del(struct ixm_softport *sp)
{
	struct platform_device *pdev = sp->pdev;
	struct net_device *ndev = sp->ndev;

	lockdep_assert_held(&ixm_softports_lock);
	list_del(&sp->list);
	ixm_port_unregister(sp->port);	/* down if up, then gone */
	unregister_netdev(ndev);
	free_netdev(ndev);
	platform_device_unregister(pdev);
}

/* "N" or "ixswN" */
static int ixm_softport_parse(const char *buf, unsigned int *id)
{
	if (!strncmp(buf, "ixsw", 4))
		buf += 4;
	if (kstrtouint(buf, 10, id) || *id > IXM_SOFTPORT_MAX_ID)
		return -EINVAL;
	return 0;
}

static ssize_t new_store(struct kobject *kobj, struct kobj_attribute *a,
			 const char *buf, size_t count)
{
	unsigned int id;
	int err;

	if (ixm_softport_parse(buf, &id)) {
		pr_err("softports: new: write a number 0-%u (the N of ixswN)\n",
		       IXM_SOFTPORT_MAX_ID);
		return -EINVAL;
	}
	mutex_lock(&ixm_softports_lock);
	if (ixm_softport_find(id)) {
		pr_err("softports: new: ixsw%u exists\n", id);
		err = -EEXIST;
	} else {
		err = ixm_softport_new(id);
	}
	mutex_unlock(&ixm_softports_lock);
	return err ? err : count;
}
static struct kobj_attribute new_attr = __ATTR_WO(new);

static ssize_t del_store(struct kobject *kobj, struct kobj_attribute *a,
			 const char *buf, size_t count)
{
	struct ixm_softport *sp;
	unsigned int id;
	int err = 0;

	if (ixm_softport_parse(buf, &id)) {
		pr_err("softports: del: write a number 0-%u (the N of ixswN)\n",
		       IXM_SOFTPORT_MAX_ID);
		return -EINVAL;
	}
	mutex_lock(&ixm_softports_lock);
	sp = ixm_softport_find(id);
	if (!sp) {
		pr_err("softports: del: there is no ixsw%u\n", id);
		err = -ENOENT;
	} else if (READ_ONCE(sp->port->up)) {
		pr_err("softports: del: ixsw%u is up; write 0 to /sys/kernel/ixmod/ports/ixsw%u/up first\n",
		       id, id);
		err = -EBUSY;
	} else {
		ixm_softport_del(sp);
		pr_info("softports: ixsw%u removed\n", id);
	}
	mutex_unlock(&ixm_softports_lock);
	return err ? err : count;
}
static struct kobj_attribute del_attr = __ATTR_WO(del);

static ssize_t list_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct ixm_softport *sp;
	ssize_t len = 0;

	mutex_lock(&ixm_softports_lock);
	list_for_each_entry(sp, &ixm_softports, list)
		len += sysfs_emit_at(buf, len, "%s%s", len ? " " : "", sp->ndev->name);
	mutex_unlock(&ixm_softports_lock);
	return len + sysfs_emit_at(buf, len, "\n");
}
static struct kobj_attribute list_attr = __ATTR_RO(list);

static struct attribute *ixm_softports_attrs[] = {
	&new_attr.attr,
	&del_attr.attr,
	&list_attr.attr,
	NULL,
};

static const struct attribute_group ixm_softports_group = {
	.attrs = ixm_softports_attrs,
};

/**
 * ixm_softports_init() - create /sys/kernel/ixmod/softports
 *
 * Return: 0 or -errno.
 */
int ixm_softports_init(void)
{
	int err;

	ixm_softports_kobj = kobject_create_and_add("softports", ixm_top_kobj);
	if (!ixm_softports_kobj)
		return -ENOMEM;
	err = sysfs_create_group(ixm_softports_kobj, &ixm_softports_group);
	if (err)
		kobject_put(ixm_softports_kobj);
	return err;
}

/**
 * ixm_softports_exit() - remove every software port, then the directory
 *
 * Context: module unload: no application context is open.
 */
void ixm_softports_exit(void)
{
	struct ixm_softport *sp, *tmp;

	sysfs_remove_group(ixm_softports_kobj, &ixm_softports_group);
	mutex_lock(&ixm_softports_lock);
	list_for_each_entry_safe(sp, tmp, &ixm_softports, list)
		ixm_softport_del(sp);
	mutex_unlock(&ixm_softports_lock);
	kobject_put(ixm_softports_kobj);
}
