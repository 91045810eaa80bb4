// SPDX-License-Identifier: GPL-2.0
/*
 * arp.c - ARP for IPv4 over Ethernet (RFC 826), gratuitous announcements
 * (RFC 5227 §3) and the port's ARP table (see arp.h for its locking)
 *
 * Input follows RFC 826's "Packet Reception" algorithm: after the header
 * checks, the sender's translation is updated if we hold one (the merge
 * rule), and only if the packet is for our address is a new one added and
 * a request answered, in place.  Senders no station may be (group or zero
 * MAC, martian IP, our own IP) are never learned: they are counted as
 * IXM_DROP_ARP_SENDER.  A sender IP of 0.0.0.0 is an RFC 5227 §2.1.1
 * probe: it is answered but not learned.  A sender outside the port's
 * subnet is no neighbour of ours (ixmod has no gateway, so it never sends
 * to one): its packets are neither learned from nor answered, and count
 * as IXM_DROP_ARP_OFFSUBNET.
 *
 * Resolution never waits: a missing or stale translation sends a request
 * (at most one per address per IXM_ARP_RETRY_NS, remembered in an entry
 * that holds no MAC yet) and fails with -EAGAIN; the caller drops or
 * retries later.
 *
 * The table holds IXM_ARP_MAX_ENTRIES.  When it is full, a new entry
 * takes the place of the least recently confirmed one that is not in use
 * (ixm_arp_entry_in_use(): unanswered, stale, or not sent to lately).
 * Learning from the wire gives up when every entry is in use (the sender
 * is still answered, and is resolved if we ever send to it); resolving an
 * address a core must send to then evicts the least recently confirmed
 * entry even so.  The wire may also create no more than
 * IXM_ARP_LEARN_BURST entries at once and one per IXM_ARP_LEARN_NS after
 * that; refreshing a known neighbour and resolving are not limited.
 * RFC 1122 §2.3.2.1 asks that out-of-date entries be flushed and sets no
 * size policy; this one keeps strangers from locking the table, as
 * Linux's forced neighbour garbage collection (gc_thresh3) does.
 */
#include "platform.h"
#include "arp.h"
#include "eth.h"
#include "ip.h"
#include "net.h"

#define IXM_ARP_HASH_BITS	8
#define IXM_ARP_PLEN		4	/* ar$pln for IPv4 */

static inline unsigned int ixm_arp_hash(__be32 ip)
{
	/* Fibonacci hashing: the top bits of a golden-ratio product */
	return (ixm_ntohl(ip) * 0x9e3779b1U) >> (32 - IXM_ARP_HASH_BITS);
}

/* No translation is used this long after it was last confirmed. */
static inline bool ixm_arp_entry_is_stale(const struct ixm_arp_entry *e, u64 now)
{
	return (s64)(now - READ_ONCE(e->updated_ns)) >= (s64)IXM_ARP_STALE_NS;
}

/*
 * Whether @e is worth more than a newcomer: a translation confirmed
 * within IXM_ARP_STALE_NS that a core sent through within as long, or an
 * address whose request went out less than IXM_ARP_RETRY_NS ago (a core
 * waits for the answer).
 */
static bool ixm_arp_entry_in_use(const struct ixm_arp_entry *e, u64 now)
{
	if (!e->valid)
		return (s64)(now - READ_ONCE(e->next_request_ns)) < 0;
	return !ixm_arp_entry_is_stale(e, now) &&
	       (s64)(now - READ_ONCE(e->used_ns)) < (s64)IXM_ARP_STALE_NS;
}

/* A dropped frame we never had a buffer for. */
static void ixm_arp_count_no_buf(struct ixm_net_port *port)
{
	port->stats->drops[IXM_DROP_NO_BUF]++;
	ixm_net_trace_drop(port, IXM_DROP_NO_BUF, 0);
}

/**
 * ixm_arp_table_alloc() - make an empty ARP table
 *
 * Context: process or atomic; control plane.
 * Return: the table, or NULL when memory is short.
 */
struct ixm_arp_table *ixm_arp_table_alloc(void)
{
	struct ixm_arp_table *t;

	t = ixm_zalloc(sizeof(*t));
	if (!t)
		return NULL;
	ixm_spin_lock_init(&t->lock);
	return t;
}

/**
 * ixm_arp_table_free() - free a table and every entry in it
 * @t: the table, or NULL
 *
 * Context: control plane, after a grace period has passed since the last
 * dataplane core could see @t: no reader or writer is left.
 */
void ixm_arp_table_free(struct ixm_arp_table *t)
{
	struct ixm_arp_entry *e, *next;
	unsigned int b;

	if (!t)
		return;
	for (b = 0; b < IXM_ARP_BUCKETS; b++) {
		for (e = ixm_rcu_dereference_protected(t->buckets[b]); e; e = next) {
			next = ixm_rcu_dereference_protected(e->next);
			ixm_free(e);
		}
	}
	ixm_free(t);
}

/*
 * The link that points at @ip's entry, or the NULL link at the end of its
 * bucket when there is none.  Caller holds @t->lock.
 */
static struct ixm_arp_entry __rcu **ixm_arp_slot(struct ixm_arp_table *t,
						 __be32 ip)
{
	struct ixm_arp_entry __rcu **pp = &t->buckets[ixm_arp_hash(ip)];
	struct ixm_arp_entry *e;

	while ((e = ixm_rcu_dereference_protected(*pp)) && e->ip != ip)
		pp = &e->next;
	return pp;
}

/* RCU reader: @ip's entry, complete or not, or NULL. */
static struct ixm_arp_entry *ixm_arp_lookup(struct ixm_arp_table *t, __be32 ip)
{
	struct ixm_arp_entry *e;

	for (e = ixm_rcu_dereference(t->buckets[ixm_arp_hash(ip)]); e;
	     e = ixm_rcu_dereference(e->next)) {
		if (e->ip == ip)
			return e;
	}
	return NULL;
}

/*
 * The LRU list: entries in the order they were last confirmed or created,
 * the least recent at the head.  Only writers touch it, under @t->lock.
 */
static void ixm_arp_lru_add_tail(struct ixm_arp_table *t, struct ixm_arp_entry *e)
{
	e->lru_next = NULL;
	e->lru_prev = t->lru_tail;
	if (t->lru_tail)
		t->lru_tail->lru_next = e;
	else
		t->lru_head = e;
	t->lru_tail = e;
}

static void ixm_arp_lru_del(struct ixm_arp_table *t, struct ixm_arp_entry *e)
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

/* A new entry, or NULL with the reason counted.  Caller holds @t->lock. */
static struct ixm_arp_entry *ixm_arp_entry_new(struct ixm_arp_table *t,
					       __be32 ip, u64 now)
{
	struct ixm_arp_entry *n;

	n = ixm_zalloc(sizeof(*n));
	if (!n) {
		t->nomem++;
		return NULL;
	}
	n->ip = ip;
	n->updated_ns = now;
	return n;
}

/* Publish @n at link @pp (the NULL link ending its bucket).  Under @t->lock. */
static void ixm_arp_link(struct ixm_arp_table *t, struct ixm_arp_entry __rcu **pp,
			 struct ixm_arp_entry *n)
{
	ixm_rcu_assign_pointer(*pp, n);
	ixm_arp_lru_add_tail(t, n);
	t->count++;
}

/*
 * Unlink @e, reached through link @pp, from its bucket and the LRU list;
 * freed after a grace period (a reader on @e still finds its successor).
 * Under @t->lock.
 */
static void ixm_arp_unlink(struct ixm_arp_table *t, struct ixm_arp_entry __rcu **pp,
			   struct ixm_arp_entry *e)
{
	ixm_rcu_assign_pointer(*pp, ixm_rcu_dereference_protected(e->next));
	ixm_arp_lru_del(t, e);
	ixm_kfree_rcu(e, rcu);
	t->count--;
}

/*
 * Make room in a full table: evict the least recently confirmed entry
 * not in use, or with @in_use_too, failing that the least recently
 * confirmed of all.  Walks at most the whole list, only when the table
 * is full.  Returns whether one went.  Under @t->lock; bucket links the
 * caller holds may be stale afterwards.
 */
static bool ixm_arp_evict(struct ixm_arp_table *t, u64 now, bool in_use_too)
{
	struct ixm_arp_entry *e;

	for (e = t->lru_head; e; e = e->lru_next) {
		if (!ixm_arp_entry_in_use(e, now))
			break;
	}
	if (!e && in_use_too)
		e = t->lru_head;
	if (!e)
		return false;
	ixm_arp_unlink(t, ixm_arp_slot(t, e->ip), e);
	t->evicted++;
	return true;
}

/*
 * Whether the wire may make one more entry now: a token bucket of
 * IXM_ARP_LEARN_BURST tokens that gains one every IXM_ARP_LEARN_NS, kept
 * as the one timestamp of GCRA (ITU-T I.371's virtual scheduling: no
 * division, no refill loop).  Under @t->lock.
 *
 * The numbers.  Learning the sender of a request is an optimisation
 * (RFC 826: it will probably talk to us, and knowing it saves a request);
 * a sender over the limit is still answered, and is resolved if we ever
 * send to it.  So the limit need only cover neighbours that are really
 * new: 32 at once for a segment's hosts asking for us together (after
 * our announcement, or a switch coming back), then 256 a second: no
 * subnet whose hosts fit in the table's 1024 entries keeps producing new
 * ones faster.  Against a flood it bounds the work (each entry from the
 * wire costs an allocation, an RCU free and, in a full table of entries
 * in use, a walk of the LRU list) to 256 a second, and the churn: a table
 * full of idle entries takes at least 4 s to turn over.  That is still
 * faster than entries age (IXM_ARP_EXPIRE_NS); what protects the
 * neighbours we talk to is that entries in use are never evicted for the
 * wire, not this limit.
 */
static bool ixm_arp_learn_allowed(struct ixm_arp_table *t, u64 now)
{
	u64 tat = t->learn_tat_ns;

	if ((s64)(tat - now) < 0)
		tat = now;		/* refilled to the brim */
	if ((s64)(tat - now) > (s64)((IXM_ARP_LEARN_BURST - 1) * IXM_ARP_LEARN_NS))
		return false;		/* no token left */
	t->learn_tat_ns = tat + IXM_ARP_LEARN_NS;
	return true;
}

/*
 * Record that @ip is at @mac, as of @now.  An existing entry is updated
 * (RFC 826's merge rule) whatever the rate; a new one is made only when
 * @create and ixm_arp_learn_allowed() (else ratelimited), evicting one
 * not in use if the table is full (learned; or refused, when all are).
 * Returns whether an entry existed: RFC 826's Merge_flag.
 */
static bool ixm_arp_learn(struct ixm_arp_table *t, __be32 ip, const u8 *mac,
			  u64 now, bool create)
{
	struct ixm_arp_entry __rcu **pp;
	struct ixm_arp_entry *e, *n;
	bool found;

	ixm_spin_lock(&t->lock);
	pp = ixm_arp_slot(t, ip);
	e = ixm_rcu_dereference_protected(*pp);
	found = e;
	if (e && e->valid && ixm_eth_addr_equal(e->mac, mac)) {
		WRITE_ONCE(e->updated_ns, now);	/* confirmed */
		ixm_arp_lru_del(t, e);
		ixm_arp_lru_add_tail(t, e);
		goto out_unlock;
	}
	if (!e && !create)
		goto out_unlock;
	if (!e && !ixm_arp_learn_allowed(t, now)) {
		t->ratelimited++;
		goto out_unlock;
	}
	if (!e && t->count >= IXM_ARP_MAX_ENTRIES) {
		if (!ixm_arp_evict(t, now, false)) {
			t->refused++;
			goto out_unlock;
		}
		pp = ixm_arp_slot(t, ip);	/* the victim may have held it */
	}
	n = ixm_arp_entry_new(t, ip, now);
	if (!n)
		goto out_unlock;
	memcpy(n->mac, mac, ETH_ALEN);
	n->valid = true;
	if (e) {
		/* a new MAC (or the first one): readers see the old or the new */
		n->next_request_ns = e->next_request_ns;
		n->used_ns = READ_ONCE(e->used_ns);
		ixm_rcu_assign_pointer(n->next, ixm_rcu_dereference_protected(e->next));
		ixm_rcu_assign_pointer(*pp, n);
		ixm_arp_lru_del(t, e);
		ixm_arp_lru_add_tail(t, n);
		ixm_kfree_rcu(e, rcu);
	} else {
		/* not in use until a core sends to it: already idle */
		n->used_ns = now - IXM_ARP_STALE_NS;
		ixm_arp_link(t, pp, n);
		t->learned++;
	}
out_unlock:
	ixm_spin_unlock(&t->lock);
	return found;
}

/*
 * Claim the right to send a request for @ip now: none went out in the last
 * IXM_ARP_RETRY_NS (from any core).  Makes an entry without a MAC to
 * remember the time if there is none, evicting one (in use or not: a core
 * needs this address now) if the table is full.  Returns 0, -EAGAIN (a
 * request is already out) or -ENOMEM.
 */
static int ixm_arp_claim_request(struct ixm_arp_table *t, __be32 ip, u64 now)
{
	struct ixm_arp_entry __rcu **pp;
	struct ixm_arp_entry *e;
	int err = 0;

	ixm_spin_lock(&t->lock);
	pp = ixm_arp_slot(t, ip);
	e = ixm_rcu_dereference_protected(*pp);
	if (e) {
		WRITE_ONCE(e->used_ns, now);
		if ((s64)(now - e->next_request_ns) < 0)
			err = -EAGAIN;
		else
			WRITE_ONCE(e->next_request_ns, now + IXM_ARP_RETRY_NS);
		goto out_unlock;
	}
	if (t->count >= IXM_ARP_MAX_ENTRIES) {
		ixm_arp_evict(t, now, true);	/* never fails: the table is not empty */
		pp = ixm_arp_slot(t, ip);
	}
	e = ixm_arp_entry_new(t, ip, now);
	if (!e) {
		err = -ENOMEM;
		goto out_unlock;
	}
	e->next_request_ns = now + IXM_ARP_RETRY_NS;
	e->used_ns = now;
	ixm_arp_link(t, pp, e);
out_unlock:
	ixm_spin_unlock(&t->lock);
	return err;
}

/**
 * ixm_arp_table_gc() - free translations nobody confirmed for a while
 * @t: the table
 * @now: the time, ixm_now_ns()
 *
 * Unlinks every entry last confirmed (or, without a MAC, created) more
 * than IXM_ARP_EXPIRE_NS ago and frees it after a grace period.
 *
 * Context: control plane, periodically; takes @t->lock.
 * Return: the number of entries freed.
 */
unsigned int ixm_arp_table_gc(struct ixm_arp_table *t, u64 now)
{
	struct ixm_arp_entry __rcu **pp;
	struct ixm_arp_entry *e;
	unsigned int b, freed = 0;

	ixm_spin_lock(&t->lock);
	for (b = 0; b < IXM_ARP_BUCKETS; b++) {
		pp = &t->buckets[b];
		while ((e = ixm_rcu_dereference_protected(*pp))) {
			if ((s64)(now - e->updated_ns) <= (s64)IXM_ARP_EXPIRE_NS) {
				pp = &e->next;
				continue;
			}
			ixm_arp_unlink(t, pp, e);
			freed++;
		}
	}
	ixm_spin_unlock(&t->lock);
	return freed;
}

/*
 * Build and queue an ARP request for @tpa from our address, broadcast
 * (RFC 826 "Packet Generation"; ar$tha is zero, RFC 5227 §2.1.1).  With
 * @tpa our own address, it is an RFC 5227 §3 announcement.
 */
static int ixm_arp_send_request(struct ixm_net_port *port, __be32 tpa)
{
	const struct ixm_if_config *cfg = port->cfg;
	struct ixm_arphdr *ah;
	struct ixm_ethhdr *eh;
	struct ixm_mbuf *m;
	int err;

	m = ixm_mbuf_alloc(port->pool);
	if (unlikely(!m)) {
		ixm_arp_count_no_buf(port);
		return -ENOBUFS;
	}
	/* padded with zeros to the 60-byte minimum (RFC 894) */
	memset(m->data, 0, IXM_ETH_ZLEN);
	m->len = IXM_ETH_ZLEN;

	eh = ixm_eth_hdr(m);
	memcpy(eh->dst, ixm_eth_broadcast, ETH_ALEN);
	memcpy(eh->src, cfg->mac, ETH_ALEN);
	eh->type = ixm_htons(IXM_ETH_P_ARP);

	ah = (struct ixm_arphdr *)(m->data + IXM_ETH_HLEN);
	ah->htype = ixm_htons(IXM_ARP_HRD_ETHER);
	ah->ptype = ixm_htons(IXM_ETH_P_IP);
	ah->hlen = ETH_ALEN;
	ah->plen = IXM_ARP_PLEN;
	ah->op = ixm_htons(IXM_ARP_OP_REQUEST);
	memcpy(ah->sha, cfg->mac, ETH_ALEN);
	ah->spa = cfg->ip;
	ah->tpa = tpa;

	err = ixm_net_xmit(port, m);
	if (!err)
		port->stats->arp_requests_out++;
	return err;
}

/**
 * ixm_arp_resolve() - the MAC address of a neighbour
 * @port: the port and core that wants to send
 * @ip: the neighbour (the next hop, on @port's subnet)
 * @mac_out: ETH_ALEN bytes for the answer
 *
 * Answers from the table when it holds a translation, and marks it in
 * use (at most once per IXM_ARP_USED_GRAIN_NS, so that busy cores do not
 * write the entry for every frame).  One not confirmed in the last
 * IXM_ARP_STALE_NS is still used while a request revalidates it (RFC 1122
 * §2.3.2.1; gc frees it if nobody answers); without one, asks (RFC 826),
 * evicting another entry if the table is full.  Requests go out at most
 * once per IXM_ARP_RETRY_NS per address across all cores, and nothing
 * waits for the answer.
 *
 * Context: the port's dataplane core, inside ixm_rcu_read_lock().
 * Return: 0 with @mac_out filled (a revalidation may have gone out or
 * failed: it is not the caller's concern); -EAGAIN when a request went out now or
 * within the last IXM_ARP_RETRY_NS; -ENOBUFS (no buffer: NO_BUF
 * counted), -ENOSPC (TX batch full), -ENOMEM or -EADDRNOTAVAIL (the
 * port has no address) when none could be sent.
 */
int ixm_arp_resolve(struct ixm_net_port *port, __be32 ip, u8 *mac_out)
{
	struct ixm_arp_entry *e;
	u64 now = port->now_ns;
	int err;

	if (unlikely(!port->cfg->ip))
		return -EADDRNOTAVAIL;
	e = ixm_arp_lookup(port->arp, ip);
	if (likely(e && e->valid)) {
		memcpy(mac_out, e->mac, ETH_ALEN);
		if (unlikely((s64)(now - READ_ONCE(e->used_ns)) >=
			     (s64)IXM_ARP_USED_GRAIN_NS))
			WRITE_ONCE(e->used_ns, now);
		if (unlikely(ixm_arp_entry_is_stale(e, now)) &&
		    (s64)(now - READ_ONCE(e->next_request_ns)) >= 0 &&
		    !ixm_arp_claim_request(port->arp, ip, now))
			ixm_arp_send_request(port, ip);
		return 0;
	}
	/* the unlocked pre-check keeps a busy sender off the lock */
	if (e && (s64)(now - READ_ONCE(e->next_request_ns)) < 0)
		return -EAGAIN;
	err = ixm_arp_claim_request(port->arp, ip, now);
	if (err)
		return err;
	err = ixm_arp_send_request(port, ip);
	return err ? err : -EAGAIN;
}

/**
 * ixm_arp_announce() - broadcast a gratuitous ARP for our address
 * @port: the port and core to send it from
 *
 * RFC 5227 §3 "Announcing an Address": an ARP request whose sender and
 * target protocol addresses are both ours, so that neighbours update
 * their caches (after the address or the MAC changed).
 *
 * Context: the port's dataplane core.
 * Return: 0 when queued; -EADDRNOTAVAIL (no address), -ENOBUFS (NO_BUF
 * counted) or -ENOSPC (TX batch full).
 */
int ixm_arp_announce(struct ixm_net_port *port)
{
	if (!port->cfg->ip)
		return -EADDRNOTAVAIL;
	return ixm_arp_send_request(port, port->cfg->ip);
}

/* RFC 826: a sender we may learn from or answer. */
static bool ixm_arp_sender_is_valid(const struct ixm_net_port *port,
				    const struct ixm_arphdr *ah)
{
	const struct ixm_if_config *cfg = port->cfg;

	if (!ixm_eth_addr_is_valid(ah->sha) ||
	    ixm_eth_addr_equal(ah->sha, cfg->mac))
		return false;
	/* 0.0.0.0 is a probe (RFC 5227 §2.1.1); ours is a conflict (§2.4) */
	return !ah->spa || !ixm_ip_src_is_bad(cfg, ah->spa);
}

/*
 * Whether a valid sender can be on our link: a probe's 0.0.0.0, or an
 * address inside the port's prefix (RFC 1122 §3.3.1.1: only those are
 * reached directly; anything else would need a gateway, which ixmod does
 * not have).
 */
static bool ixm_arp_sender_is_onlink(const struct ixm_if_config *cfg, __be32 spa)
{
	return !spa || !((spa ^ cfg->ip) & cfg->netmask);
}

/**
 * ixm_arp_input() - handle a received ARP packet
 * @port: the port and core it arrived on
 * @m: the frame, @m->data at the Ethernet header, EtherType ARP
 *
 * RFC 826 "Packet Reception": checks the hardware and protocol types and
 * lengths (ARP_MALFORMED) and the opcode (ARP_OP); with no address
 * configured nothing is learned or answered (NO_ADDR); a bad sender is
 * ARP_SENDER, one outside the port's subnet ARP_OFFSUBNET.  Then the
 * merge rule; packets for another address are
 * ARP_NOT_US; for ours the sender is added, a request is answered in
 * place (arp_requests_in, arp_replies_out) and a reply is consumed.
 * Consumes @m.
 *
 * Context: the port's dataplane core, inside ixm_rcu_read_lock().
 */
void ixm_arp_input(struct ixm_net_port *port, struct ixm_mbuf *m)
{
	const struct ixm_if_config *cfg = port->cfg;
	struct ixm_arphdr *ah;
	struct ixm_ethhdr *eh;
	bool for_us;
	u16 op;

	if (unlikely(m->len < IXM_ETH_HLEN + IXM_ARP_HLEN)) {
		ixm_net_drop(port, m, IXM_DROP_ARP_MALFORMED);
		return;
	}
	ah = (struct ixm_arphdr *)(m->data + IXM_ETH_HLEN);
	if (unlikely(ah->htype != ixm_htons(IXM_ARP_HRD_ETHER) ||
		     ah->ptype != ixm_htons(IXM_ETH_P_IP) ||
		     ah->hlen != ETH_ALEN || ah->plen != IXM_ARP_PLEN)) {
		ixm_net_drop(port, m, IXM_DROP_ARP_MALFORMED);
		return;
	}
	op = ixm_ntohs(ah->op);
	if (unlikely(op != IXM_ARP_OP_REQUEST && op != IXM_ARP_OP_REPLY)) {
		ixm_net_drop(port, m, IXM_DROP_ARP_OP);
		return;
	}
	if (unlikely(!cfg->ip)) {
		ixm_net_drop(port, m, IXM_DROP_NO_ADDR);
		return;
	}
	if (unlikely(!ixm_arp_sender_is_valid(port, ah))) {
		ixm_net_drop(port, m, IXM_DROP_ARP_SENDER);
		return;
	}
	if (unlikely(!ixm_arp_sender_is_onlink(cfg, ah->spa))) {
		ixm_net_drop(port, m, IXM_DROP_ARP_OFFSUBNET);
		return;
	}

	/* merge, and add too when the packet is for us (one locked pass) */
	for_us = ah->tpa == cfg->ip;
	if (ah->spa)
		ixm_arp_learn(port->arp, ah->spa, ah->sha, port->now_ns, for_us);
	if (!for_us) {
		ixm_net_drop(port, m, IXM_DROP_ARP_NOT_US);
		return;
	}
	if (op == IXM_ARP_OP_REPLY) {
		ixm_mbuf_free(m);	/* learned from: consumed, not dropped */
		return;
	}

	/* RFC 826: swap hardware and protocol fields, put ours in, reply */
	port->stats->arp_requests_in++;
	memcpy(ah->tha, ah->sha, ETH_ALEN);
	ah->tpa = ah->spa;
	memcpy(ah->sha, cfg->mac, ETH_ALEN);
	ah->spa = cfg->ip;
	ah->op = ixm_htons(IXM_ARP_OP_REPLY);

	eh = ixm_eth_hdr(m);
	memcpy(eh->dst, ah->tha, ETH_ALEN);
	memcpy(eh->src, cfg->mac, ETH_ALEN);
	m->flags = 0;
	if (!ixm_net_xmit(port, m))
		port->stats->arp_replies_out++;
}
