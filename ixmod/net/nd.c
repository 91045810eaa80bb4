// SPDX-License-Identifier: GPL-2.0
/*
 * nd.c - IPv6 Neighbor Discovery (RFC 4861) for a host with static
 * addresses, and the port's neighbour table (see nd.h for its locking
 * and states)
 *
 * Input validates Neighbor Solicitations and Advertisements as RFC 4861
 * §7.1.1 and §7.1.2 list (hop limit 255, code 0, length, target not a
 * group, every option's length non-zero and inside the message, the ::
 * source rules); a message that fails is counted as nd_invalid.
 *
 * A solicitation for one of our addresses is answered (§7.2.4) with a
 * solicited, overriding advertisement carrying our MAC; one from :: is a
 * duplicate address detection probe (RFC 4862 §5.4.3): it is answered to
 * all-nodes, unsolicited, so that the prober gives the address up, and
 * nothing is learned from it.  Other solicitations teach us their
 * source's MAC (§7.2.3), as STALE.  An advertisement updates an entry we
 * hold (§7.2.5: REACHABLE if solicited; the Override flag decides whether
 * a different MAC replaces the one held) and never makes one.
 *
 * The table is arp.c's, keyed by address: IXM_ND_MAX_ENTRIES entries; a
 * full table evicts the least recently confirmed entry not in use, the
 * wire (senders of solicitations) creates entries at most
 * IXM_ND_LEARN_BURST at once and one per IXM_ND_LEARN_NS after that and
 * never evicts an entry in use, and resolution evicts even so.  The
 * buckets are keyed by SipHash with a per-table secret, so that a sender
 * choosing addresses (2^64 of them per prefix) cannot pile them into one
 * chain.  Resolution never waits: it solicits, to the solicited-node group
 * for an unknown address and to the known MAC to revalidate a stale one,
 * at most once per IXM_ND_RETRY_NS per address from all cores, and
 * returns -EAGAIN until an advertisement answers.
 *
 * Unsolicited advertisements for both of our addresses go to all-nodes
 * when the port comes up or its addresses change (§7.2.6), as arp.c's
 * gratuitous ARP does.  Router Solicitations, Advertisements and
 * Redirects are icmp6.c's to ignore.
 */
#include "platform.h"
#include "eth.h"
#include "icmp6.h"
#include "ip6.h"
#include "nd.h"
#include "net.h"
#include "tcp.h"	/* ixm_siphash() */

#define IXM_ND_HASH_BITS	8

/* The options of an NS or NA that matter: the link-layer address. */
struct ixm_nd_opts {
	const u8	*lla;	/* SLLA (NS) or TLLA (NA), or NULL */
};

static inline unsigned int ixm_nd_hash(const struct ixm_nd_table *t,
				       const struct ixm_in6_addr *ip)
{
	return ixm_siphash(t->key, ip, sizeof(*ip)) >> (64 - IXM_ND_HASH_BITS);
}

static inline bool ixm_nd_entry_is_stale(const struct ixm_nd_entry *e, u64 now)
{
	return (s64)(now - READ_ONCE(e->updated_ns)) >= (s64)IXM_ND_STALE_NS;
}

/* arp.c's ixm_arp_entry_in_use(): worth more than a newcomer. */
static bool ixm_nd_entry_in_use(const struct ixm_nd_entry *e, u64 now)
{
	if (!e->valid)
		return (s64)(now - READ_ONCE(e->next_request_ns)) < 0;
	return (s64)(now - READ_ONCE(e->updated_ns)) < (s64)IXM_ND_EXPIRE_NS &&
	       (s64)(now - READ_ONCE(e->used_ns)) < (s64)IXM_ND_STALE_NS;
}

/* A dropped frame we never had a buffer for. */
static void ixm_nd_count_no_buf(struct ixm_net_port *port)
{
	port->stats->drops[IXM_DROP_NO_BUF]++;
	ixm_net_trace_drop(port, IXM_DROP_NO_BUF, 0);
}

/**
 * ixm_nd_table_alloc() - make an empty neighbour table
 * @key: the secret that keys its buckets (random, from the control plane)
 *
 * Context: process or atomic; control plane.
 * Return: the table, or NULL when memory is short.
 */
struct ixm_nd_table *ixm_nd_table_alloc(const u64 key[2])
{
	struct ixm_nd_table *t;

	t = ixm_zalloc(sizeof(*t));
	if (!t)
		return NULL;
	ixm_spin_lock_init(&t->lock);
	t->key[0] = key[0];
	t->key[1] = key[1];
	return t;
}

/**
 * ixm_nd_table_free() - free a table and every entry in it
 * @t: the table, or NULL
 *
 * Context: control plane, after a grace period has passed since the last
 * dataplane core could see @t.
 */
void ixm_nd_table_free(struct ixm_nd_table *t)
{
	struct ixm_nd_entry *e, *next;
	unsigned int b;

	if (!t)
		return;
	for (b = 0; b < IXM_ND_BUCKETS; b++) {
		for (e = ixm_rcu_dereference_protected(t->buckets[b]); e; e = next) {
			next = ixm_rcu_dereference_protected(e->next);
			ixm_free(e);
		}
	}
	ixm_free(t);
}

/* The link that points at @ip's entry, or the NULL link ending its bucket. */
static struct ixm_nd_entry __rcu **ixm_nd_slot(struct ixm_nd_table *t,
					       const struct ixm_in6_addr *ip)
{
	struct ixm_nd_entry __rcu **pp = &t->buckets[ixm_nd_hash(t, ip)];
	struct ixm_nd_entry *e;

	while ((e = ixm_rcu_dereference_protected(*pp)) &&
	       !ixm_ip6_addr_equal(&e->ip, ip))
		pp = &e->next;
	return pp;
}

/* RCU reader: @ip's entry, complete or not, or NULL. */
static struct ixm_nd_entry *ixm_nd_lookup(struct ixm_nd_table *t,
					  const struct ixm_in6_addr *ip)
{
	struct ixm_nd_entry *e;

	for (e = ixm_rcu_dereference(t->buckets[ixm_nd_hash(t, ip)]); e;
	     e = ixm_rcu_dereference(e->next)) {
		if (ixm_ip6_addr_equal(&e->ip, ip))
			return e;
	}
	return NULL;
}

static void ixm_nd_lru_add_tail(struct ixm_nd_table *t, struct ixm_nd_entry *e)
{
	e->lru_next = NULL;
	e->lru_prev = t->lru_tail;
	if (t->lru_tail)
		t->lru_tail->lru_next = e;
	else
		t->lru_head = e;
	t->lru_tail = e;
}

static void ixm_nd_lru_del(struct ixm_nd_table *t, struct ixm_nd_entry *e)
{
	if (e->lru_prev)
		e->lru_prev->lru_next = e->lru_next;
	else
		t->lru_head = e->lru_next;
	if (e->lru_next)
		e->lru_next->lru_prev = e->lru_prev;
	else
		t->lru_tail = e->lru_prev;
	e->lru_prev = NULL;
	e->lru_next = NULL;
}

static struct ixm_nd_entry *ixm_nd_entry_new(struct ixm_nd_table *t,
					     const struct ixm_in6_addr *ip, u64 now)
{
	struct ixm_nd_entry *n;

	n = ixm_zalloc(sizeof(*n));
	if (!n) {
		t->nomem++;
		return NULL;
	}
	n->ip = *ip;
	n->updated_ns = now;
	return n;
}

static void ixm_nd_link(struct ixm_nd_table *t, struct ixm_nd_entry __rcu **pp,
			struct ixm_nd_entry *n)
{
	ixm_rcu_assign_pointer(*pp, n);
	ixm_nd_lru_add_tail(t, n);
	t->count++;
}

static void ixm_nd_unlink(struct ixm_nd_table *t, struct ixm_nd_entry __rcu **pp,
			  struct ixm_nd_entry *e)
{
	ixm_rcu_assign_pointer(*pp, ixm_rcu_dereference_protected(e->next));
	ixm_nd_lru_del(t, e);
	ixm_kfree_rcu(e, rcu);
	t->count--;
}

/* Put @n in the place of @e (reached through @pp): a new MAC. */
static void ixm_nd_replace(struct ixm_nd_table *t, struct ixm_nd_entry __rcu **pp,
			   struct ixm_nd_entry *e, struct ixm_nd_entry *n)
{
	n->next_request_ns = e->next_request_ns;
	n->used_ns = READ_ONCE(e->used_ns);
	ixm_rcu_assign_pointer(n->next, ixm_rcu_dereference_protected(e->next));
	ixm_rcu_assign_pointer(*pp, n);
	ixm_nd_lru_del(t, e);
	ixm_nd_lru_add_tail(t, n);
	ixm_kfree_rcu(e, rcu);
}

/* arp.c's ixm_arp_evict(). */
static bool ixm_nd_evict(struct ixm_nd_table *t, u64 now, bool in_use_too)
{
	struct ixm_nd_entry *e;

	for (e = t->lru_head; e; e = e->lru_next) {
		if (!ixm_nd_entry_in_use(e, now))
			break;
	}
	if (!e && in_use_too)
		e = t->lru_head;
	if (!e)
		return false;
	ixm_nd_unlink(t, ixm_nd_slot(t, &e->ip), e);
	t->evicted++;
	return true;
}

/* arp.c's ixm_arp_learn_allowed(): GCRA, for the reasons given there. */
static bool ixm_nd_learn_allowed(struct ixm_nd_table *t, u64 now)
{
	u64 tat = t->learn_tat_ns;

	if ((s64)(tat - now) < 0)
		tat = now;
	if ((s64)(tat - now) > (s64)((IXM_ND_LEARN_BURST - 1) * IXM_ND_LEARN_NS))
		return false;
	t->learn_tat_ns = tat + IXM_ND_LEARN_NS;
	return true;
}

/*
 * What a message says about @ip (RFC 4861 §7.2.3, §7.2.5), applied under
 * the lock.  @mac: the link-layer address it carries, or NULL.  @create:
 * a solicitation may make an entry (rate-limited, evicting one not in use
 * when full).  @solicited: an advertisement's S flag, which confirms
 * (REACHABLE); anything else learned is STALE.  @override: a new MAC
 * replaces the one held (always for a solicitation; an advertisement's O
 * flag), else it only makes a REACHABLE entry STALE.
 * Returns 0, -ENOENT (no entry, none made) or -EINVAL (an INCOMPLETE
 * entry and an advertisement without a MAC: §7.2.5 discards it).
 */
static int ixm_nd_learn(struct ixm_nd_table *t, const struct ixm_in6_addr *ip,
			const u8 *mac, u64 now, bool create, bool solicited,
			bool override)
{
	u64 stamp = solicited ? now : now - IXM_ND_STALE_NS;
	struct ixm_nd_entry __rcu **pp;
	struct ixm_nd_entry *e, *n;
	int err = 0;

	ixm_spin_lock(&t->lock);
	pp = ixm_nd_slot(t, ip);
	e = ixm_rcu_dereference_protected(*pp);
	if (!e) {
		if (!create || !mac) {
			err = -ENOENT;
			goto out_unlock;
		}
		if (!ixm_nd_learn_allowed(t, now)) {
			t->ratelimited++;
			goto out_unlock;
		}
		if (t->count >= IXM_ND_MAX_ENTRIES) {
			if (!ixm_nd_evict(t, now, false)) {
				t->refused++;
				goto out_unlock;
			}
			pp = ixm_nd_slot(t, ip);
		}
		n = ixm_nd_entry_new(t, ip, stamp);
		if (!n)
			goto out_unlock;
		memcpy(n->mac, mac, ETH_ALEN);
		n->valid = true;
		n->used_ns = now - IXM_ND_STALE_NS;	/* idle until sent to */
		ixm_nd_link(t, pp, n);
		t->learned++;
		goto out_unlock;
	}
	if (!mac) {
		if (!e->valid)
			err = -EINVAL;
		else if (solicited)
			goto confirm;
		goto out_unlock;
	}
	if (e->valid && ixm_eth_addr_equal(e->mac, mac)) {
		if (solicited)
			goto confirm;
		goto out_unlock;
	}
	if (e->valid && !override) {
		/* §7.2.5: a REACHABLE entry becomes STALE, the MAC stays */
		if (!ixm_nd_entry_is_stale(e, now))
			WRITE_ONCE(e->updated_ns, now - IXM_ND_STALE_NS);
		goto out_unlock;
	}
	n = ixm_nd_entry_new(t, ip, stamp);
	if (!n)
		goto out_unlock;
	memcpy(n->mac, mac, ETH_ALEN);
	n->valid = true;
	ixm_nd_replace(t, pp, e, n);
	goto out_unlock;
confirm:
	WRITE_ONCE(e->updated_ns, now);
	ixm_nd_lru_del(t, e);
	ixm_nd_lru_add_tail(t, e);
out_unlock:
	ixm_spin_unlock(&t->lock);
	return err;
}

/* arp.c's ixm_arp_claim_request(): 0, -EAGAIN or -ENOMEM. */
static int ixm_nd_claim_request(struct ixm_nd_table *t,
				const struct ixm_in6_addr *ip, u64 now)
{
	struct ixm_nd_entry __rcu **pp;
	struct ixm_nd_entry *e;
	int err = 0;

	ixm_spin_lock(&t->lock);
	pp = ixm_nd_slot(t, ip);
	e = ixm_rcu_dereference_protected(*pp);
	if (e) {
		WRITE_ONCE(e->used_ns, now);
		if ((s64)(now - e->next_request_ns) < 0)
			err = -EAGAIN;
		else
			WRITE_ONCE(e->next_request_ns, now + IXM_ND_RETRY_NS);
		goto out_unlock;
	}
	if (t->count >= IXM_ND_MAX_ENTRIES) {
		ixm_nd_evict(t, now, true);
		pp = ixm_nd_slot(t, ip);
	}
	e = ixm_nd_entry_new(t, ip, now);
	if (!e) {
		err = -ENOMEM;
		goto out_unlock;
	}
	e->next_request_ns = now + IXM_ND_RETRY_NS;
	e->used_ns = now;
	ixm_nd_link(t, pp, e);
out_unlock:
	ixm_spin_unlock(&t->lock);
	return err;
}

/**
 * ixm_nd_table_gc() - free translations nobody confirmed for a while
 * @t: the table
 * @now: the time, ixm_now_ns()
 *
 * Unlinks every entry last confirmed (or learned, or without a MAC
 * created) more than IXM_ND_EXPIRE_NS ago.
 *
 * Context: control plane, periodically; takes @t->lock.
 * Return: the number of entries freed.
 */
unsigned int ixm_nd_table_gc(struct ixm_nd_table *t, u64 now)
{
	struct ixm_nd_entry __rcu **pp;
	struct ixm_nd_entry *e;
	unsigned int b, freed = 0;

	ixm_spin_lock(&t->lock);
	for (b = 0; b < IXM_ND_BUCKETS; b++) {
		pp = &t->buckets[b];
		while ((e = ixm_rcu_dereference_protected(*pp))) {
			if ((s64)(now - e->updated_ns) <= (s64)IXM_ND_EXPIRE_NS) {
				pp = &e->next;
				continue;
			}
			ixm_nd_unlink(t, pp, e);
			freed++;
		}
	}
	ixm_spin_unlock(&t->lock);
	return freed;
}

/*
 * Build and queue an NS or NA of 24 bytes plus one link-layer address
 * option carrying our MAC (SLLA in an NS, TLLA in an NA), hop limit 255
 * (RFC 4861 §7.1), from @src to @dst at @dst_mac.  Consumes nothing;
 * returns 0, -ENOBUFS (no_buf counted) or -ENOSPC (tx_full counted).
 */
static int ixm_nd_send(struct ixm_net_port *port, u8 type, u8 flags,
		       const struct ixm_in6_addr *src, const struct ixm_in6_addr *dst,
		       const u8 *dst_mac, const struct ixm_in6_addr *target)
{
	const unsigned int len = IXM_ND_MSG_LEN + IXM_ND_OPT_LLA_LEN;
	const struct ixm_if_config *cfg = port->cfg;
	struct ixm_nd_msg *nm;
	struct ixm_ip6hdr *ih;
	struct ixm_ethhdr *eh;
	struct ixm_mbuf *m;
	u8 *opt;

	m = ixm_mbuf_alloc(port->pool);
	if (unlikely(!m)) {
		ixm_nd_count_no_buf(port);
		return -ENOBUFS;
	}
	eh = ixm_eth_hdr(m);
	memcpy(eh->dst, dst_mac, ETH_ALEN);
	memcpy(eh->src, cfg->mac, ETH_ALEN);
	eh->type = ixm_htons(IXM_ETH_P_IPV6);
	ih = ixm_ip6_hdr(m);
	ixm_ip6_build_header(ih, src, dst, IXM_IPPROTO_ICMPV6, len, IXM_ND_HOPLIMIT);
	nm = (struct ixm_nd_msg *)(ih + 1);
	memset(nm, 0, sizeof(*nm));
	nm->type = type;
	nm->flags = flags;
	nm->target = *target;
	opt = (u8 *)(nm + 1);
	opt[0] = type == IXM_ND_NEIGH_SOLICIT ? IXM_ND_OPT_SLLA : IXM_ND_OPT_TLLA;
	opt[1] = 1;
	memcpy(opt + 2, cfg->mac, ETH_ALEN);
	nm->checksum = ixm_icmp6_csum(ih, nm, len);
	m->len = IXM_ETH_HLEN + IXM_IP6_HLEN + len;
	return ixm_net_xmit(port, m);
}

/*
 * RFC 4861 §7.2.2: a solicitation for @target, to its solicited-node
 * group, or to @mac (unicast, revalidating a STALE entry) when given.
 */
static int ixm_nd_send_ns(struct ixm_net_port *port,
			  const struct ixm_in6_addr *target, const u8 *mac)
{
	struct ixm_in6_addr grp;
	u8 grp_mac[ETH_ALEN];
	int err;

	if (mac) {
		err = ixm_nd_send(port, IXM_ND_NEIGH_SOLICIT, 0,
				  ixm_ip6_src_for(port->cfg, target), target, mac,
				  target);
	} else {
		ixm_ip6_solicited_node(target, &grp);
		ixm_ip6_mc_mac(&grp, grp_mac);
		err = ixm_nd_send(port, IXM_ND_NEIGH_SOLICIT, 0,
				  ixm_ip6_src_for(port->cfg, target), &grp,
				  grp_mac, target);
	}
	if (!err)
		port->stats->nd_solicits_out++;
	return err;
}

static int ixm_nd_send_na(struct ixm_net_port *port, u8 flags,
			  const struct ixm_in6_addr *dst, const u8 *dst_mac,
			  const struct ixm_in6_addr *target)
{
	int err;

	/* §7.2.4: from the address advertised, an address of ours */
	err = ixm_nd_send(port, IXM_ND_NEIGH_ADVERT, flags, target, dst, dst_mac,
			  target);
	if (!err)
		port->stats->nd_adverts_out++;
	return err;
}

/**
 * ixm_nd_resolve() - the MAC address of an IPv6 neighbour
 * @port: the port and core that wants to send
 * @ip: the neighbour: a link-local address or one in the port's prefix
 *	(ixm_ip6_onlink())
 * @mac_out: ETH_ALEN bytes for the answer
 *
 * ixm_arp_resolve() for IPv6.  Answers from the table when it holds a
 * MAC, and marks it in use (at most once per IXM_ND_USED_GRAIN_NS); a
 * STALE one is used while a unicast solicitation revalidates it (RFC 4861
 * §7.3.3's DELAY and PROBE); without one, solicits the solicited-node
 * group (§7.2.2), evicting another entry if the table is full.
 * Solicitations go out at most once per IXM_ND_RETRY_NS per address
 * across all cores.  A group address is mapped (RFC 2464 §7), not
 * resolved.
 *
 * Context: the port's dataplane core, inside ixm_rcu_read_lock().
 * Return: 0 with @mac_out filled; -EAGAIN when a solicitation went out
 * now or within the last IXM_ND_RETRY_NS (the caller counts NO_ND);
 * -ENOBUFS, -ENOSPC, -ENOMEM, or -EADDRNOTAVAIL (the port has no IPv6).
 */
int ixm_nd_resolve(struct ixm_net_port *port, const struct ixm_in6_addr *ip,
		   u8 *mac_out)
{
	struct ixm_nd_entry *e;
	u64 now = port->now_ns;
	int err;

	if (unlikely(!ixm_ip6_enabled(port->cfg)))
		return -EADDRNOTAVAIL;
	if (ixm_ip6_addr_is_multicast(ip)) {
		ixm_ip6_mc_mac(ip, mac_out);
		return 0;
	}
	e = ixm_nd_lookup(port->nd, ip);
	if (likely(e && e->valid)) {
		memcpy(mac_out, e->mac, ETH_ALEN);
		if (unlikely((s64)(now - READ_ONCE(e->used_ns)) >=
			     (s64)IXM_ND_USED_GRAIN_NS))
			WRITE_ONCE(e->used_ns, now);
		if (unlikely(ixm_nd_entry_is_stale(e, now)) &&
		    (s64)(now - READ_ONCE(e->next_request_ns)) >= 0 &&
		    !ixm_nd_claim_request(port->nd, ip, now))
			ixm_nd_send_ns(port, ip, e->mac);
		return 0;
	}
	if (e && (s64)(now - READ_ONCE(e->next_request_ns)) < 0)
		return -EAGAIN;
	err = ixm_nd_claim_request(port->nd, ip, now);
	if (err)
		return err;
	err = ixm_nd_send_ns(port, ip, NULL);
	return err ? err : -EAGAIN;
}

/**
 * ixm_nd_announce() - advertise our addresses to all nodes
 * @port: the port and core to send from
 *
 * RFC 4861 §7.2.6: an unsolicited advertisement with the Override flag
 * for each of our addresses (link-local, then global), so that neighbours
 * holding an old MAC for them update it.  One each: RFC 4861 allows
 * MAX_NEIGHBOR_ADVERTISEMENT (3) but the second and third would need a
 * timer, and arp.c's announcement is one too.
 *
 * Context: the port's dataplane core.
 * Return: 0 when both were queued; -EADDRNOTAVAIL (no IPv6), or the first
 * error of ixm_nd_send().
 */
int ixm_nd_announce(struct ixm_net_port *port)
{
	const struct ixm_if_config *cfg = port->cfg;
	u8 mac[ETH_ALEN];
	int err;

	if (!ixm_ip6_enabled(cfg))
		return -EADDRNOTAVAIL;
	ixm_ip6_mc_mac(&ixm_ip6_all_nodes, mac);
	err = ixm_nd_send_na(port, IXM_ND_NA_OVERRIDE, &ixm_ip6_all_nodes, mac,
			     &cfg->ll6);
	if (err)
		return err;
	return ixm_nd_send_na(port, IXM_ND_NA_OVERRIDE, &ixm_ip6_all_nodes, mac,
			      &cfg->ip6);
}

/*
 * RFC 4861 §7.1.1/§7.1.2, what NS and NA share: hop limit 255 (the
 * message was not forwarded, so its sender is on our link), code 0, at
 * least 24 bytes, a unicast target; then every option's length is
 * non-zero and inside the message (§4.6: the walk is bounded by @len and
 * each option is at least 8 bytes), and the link-layer address option the
 * message may carry (@lla_type) is one Ethernet address (RFC 2464 §8)
 * from a station (unicast, not zero).  Other options are skipped (§4.6).
 */
static bool ixm_nd_msg_valid(const struct ixm_ip6hdr *ih,
			     const struct ixm_nd_msg *nm, unsigned int len,
			     u8 lla_type, struct ixm_nd_opts *opts)
{
	const u8 *p = (const u8 *)nm;
	unsigned int off;

	if (ih->hop_limit != IXM_ND_HOPLIMIT || nm->code ||
	    len < IXM_ND_MSG_LEN || ixm_ip6_addr_is_multicast(&nm->target))
		return false;
	opts->lla = NULL;
	for (off = IXM_ND_MSG_LEN; off < len; off += p[off + 1] * 8u) {
		if (len - off < 2 || !p[off + 1] || p[off + 1] * 8u > len - off)
			return false;
		if (p[off] != lla_type)
			continue;
		if (p[off + 1] != 1 || !ixm_eth_addr_is_valid(p + off + 2))
			return false;
		opts->lla = p + off + 2;
	}
	return true;
}

/**
 * ixm_nd_ns_input() - handle a Neighbor Solicitation
 * @port: the port and core it arrived on
 * @m: the frame, trimmed to the payload length
 * @ih: its IPv6 header
 * @thoff: where the message starts, in bytes from @ih; its checksum was
 *	verified (icmp6.c)
 *
 * Validation (ND_INVALID): ixm_nd_msg_valid(), and from :: only to a
 * solicited-node group and without a source link-layer address (§7.1.1).
 * A target that is not ours is ND_NOT_US (§7.2.3).  Then the source is
 * learned (not from ::) and the advertisement goes back (§7.2.4): to the
 * source at its link-layer address (or the frame's source MAC when the
 * solicitation named none), solicited; to all-nodes, unsolicited, when
 * the source is :: (duplicate address detection, RFC 4862 §5.4.3).  The
 * solicitation is consumed (nd_solicits_in, nd_adverts_out).
 *
 * Context: the port's dataplane core, inside ixm_rcu_read_lock().
 */
void ixm_nd_ns_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		     struct ixm_ip6hdr *ih, unsigned int thoff)
{
	const struct ixm_nd_msg *nm = (const struct ixm_nd_msg *)((u8 *)ih + thoff);
	unsigned int len = ixm_ip6_l4_len(m, thoff);
	const struct ixm_if_config *cfg = port->cfg;
	struct ixm_in6_addr target, dst;
	struct ixm_nd_opts opts;
	u8 dst_mac[ETH_ALEN];
	bool dad;

	if (unlikely(!ixm_nd_msg_valid(ih, nm, len, IXM_ND_OPT_SLLA, &opts))) {
		ixm_net_drop(port, m, IXM_DROP_ND_INVALID);
		return;
	}
	dad = ixm_ip6_addr_is_any(&ih->saddr);
	if (dad) {
		ixm_ip6_solicited_node(&nm->target, &dst);
		if (unlikely(opts.lla || !ixm_ip6_addr_equal(&ih->daddr, &dst))) {
			ixm_net_drop(port, m, IXM_DROP_ND_INVALID);
			return;
		}
	}
	if (!ixm_ip6_addr_is_ours(cfg, &nm->target)) {
		ixm_net_drop(port, m, IXM_DROP_ND_NOT_US);
		return;
	}
	port->stats->nd_solicits_in++;
	target = nm->target;
	if (dad) {
		dst = ixm_ip6_all_nodes;
		ixm_ip6_mc_mac(&dst, dst_mac);
	} else {
		if (opts.lla)
			ixm_nd_learn(port->nd, &ih->saddr, opts.lla, port->now_ns,
				     true, false, true);
		dst = ih->saddr;
		memcpy(dst_mac, opts.lla ? opts.lla : ixm_eth_hdr(m)->src, ETH_ALEN);
	}
	/*
	 * A new buffer: the answer may be longer than the solicitation.  If
	 * it cannot go, ixm_nd_send() counted why (no_buf, tx_full).
	 */
	ixm_nd_send_na(port, IXM_ND_NA_OVERRIDE | (dad ? 0 : IXM_ND_NA_SOLICITED),
		       &dst, dst_mac, &target);
	ixm_mbuf_free(m);
}

/**
 * ixm_nd_na_input() - handle a Neighbor Advertisement
 * @port: the port and core it arrived on
 * @m: the frame, trimmed to the payload length
 * @ih: its IPv6 header
 * @thoff: where the message starts, in bytes from @ih; checksum verified
 *
 * Validation (ND_INVALID): ixm_nd_msg_valid(), and the Solicited flag
 * clear when sent to a group (§7.1.2).  An advertisement of one of our
 * own addresses is another node's claim to it (a duplicate, RFC 4862
 * §5.4.4), and one for an address we hold no entry for is unasked
 * (§7.2.5: "silently discarded"): both ND_NOT_US.  An entry waiting for
 * its MAC without a target link-layer address in the answer is
 * ND_INVALID (§7.2.5).  Otherwise the entry is updated by §7.2.5's rules
 * and the advertisement consumed.
 *
 * Context: the port's dataplane core, inside ixm_rcu_read_lock().
 */
void ixm_nd_na_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		     struct ixm_ip6hdr *ih, unsigned int thoff)
{
	const struct ixm_nd_msg *nm = (const struct ixm_nd_msg *)((u8 *)ih + thoff);
	unsigned int len = ixm_ip6_l4_len(m, thoff);
	struct ixm_nd_opts opts;
	int err;

	if (unlikely(!ixm_nd_msg_valid(ih, nm, len, IXM_ND_OPT_TLLA, &opts) ||
		     (ixm_ip6_addr_is_multicast(&ih->daddr) &&
		      (nm->flags & IXM_ND_NA_SOLICITED)))) {
		ixm_net_drop(port, m, IXM_DROP_ND_INVALID);
		return;
	}
	if (ixm_ip6_addr_is_ours(port->cfg, &nm->target)) {
		ixm_net_drop(port, m, IXM_DROP_ND_NOT_US);
		return;
	}
	err = ixm_nd_learn(port->nd, &nm->target, opts.lla, port->now_ns, false,
			   nm->flags & IXM_ND_NA_SOLICITED,
			   nm->flags & IXM_ND_NA_OVERRIDE);
	if (err) {
		ixm_net_drop(port, m, err == -ENOENT ? IXM_DROP_ND_NOT_US :
						       IXM_DROP_ND_INVALID);
		return;
	}
	ixm_mbuf_free(m);	/* learned from: consumed, not dropped */
}
