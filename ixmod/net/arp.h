/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arp.h - ARP for IPv4 over Ethernet (RFC 826) and the per-port ARP table
 *
 * The table is shared by every core serving the port.  Readers (the
 * dataplane resolving a next hop) only take ixm_rcu_read_lock(); writers
 * (any core that learns from an ARP packet, or records that it sent a
 * request, and the control plane's ageing) take @lock.  An entry's @mac
 * never changes once published: a new MAC gets a new entry that replaces
 * the old one, which is freed after a grace period.  Only the timestamps
 * change in place, with WRITE_ONCE() under @lock and READ_ONCE() outside;
 * @used_ns alone is also written by readers (WRITE_ONCE(), at most once
 * per IXM_ARP_USED_GRAIN_NS), and nothing orders it against the rest.
 *
 * The LRU list (@lru_head ... @lru_tail through the entries' @lru_prev
 * and @lru_next) is the writers' alone: it is only touched under @lock,
 * and readers never follow it.
 */
#ifndef _IXM_NET_ARP_H
#define _IXM_NET_ARP_H

#include "platform.h"
#include "net.h"

#define IXM_ARP_HLEN		28	/* Ethernet/IPv4 ARP packet */
#define IXM_ARP_HRD_ETHER	1	/* ar$hrd for Ethernet */
#define IXM_ARP_OP_REQUEST	1
#define IXM_ARP_OP_REPLY	2

#define IXM_ARP_BUCKETS		256
#define IXM_ARP_MAX_ENTRIES	1024
/* An entry not confirmed for this long is not used (it is re-requested). */
#define IXM_ARP_STALE_NS	(60ULL * 1000000000ULL)
/* ixm_arp_table_gc() frees entries not confirmed for this long. */
#define IXM_ARP_EXPIRE_NS	(2 * IXM_ARP_STALE_NS)
/* At most one request per address per this interval. */
#define IXM_ARP_RETRY_NS	(1000000000ULL)
/* A core records that it sent through an entry at most this often. */
#define IXM_ARP_USED_GRAIN_NS	(1000000000ULL)
/*
 * Entries the wire may create (senders of requests for our address): a
 * burst of IXM_ARP_LEARN_BURST, then one per IXM_ARP_LEARN_NS, 256 a
 * second.  Why these numbers: ixm_arp_learn_allowed() in arp.c.
 */
#define IXM_ARP_LEARN_BURST	32
#define IXM_ARP_LEARN_NS	(1000000000ULL / 256)

/**
 * struct ixm_arphdr - ARP packet for Ethernet and IPv4 (RFC 826)
 * @htype: ar$hrd, IXM_ARP_HRD_ETHER
 * @ptype: ar$pro, the EtherType of IPv4
 * @hlen: ar$hln, ETH_ALEN
 * @plen: ar$pln, 4
 * @op: ar$op, IXM_ARP_OP_*
 * @sha: ar$sha, sender hardware address
 * @spa: ar$spa, sender protocol address
 * @tha: ar$tha, target hardware address
 * @tpa: ar$tpa, target protocol address
 */
struct ixm_arphdr {
	__be16	htype;
	__be16	ptype;
	u8	hlen;
	u8	plen;
	__be16	op;
	u8	sha[ETH_ALEN];
	__be32	spa;
	u8	tha[ETH_ALEN];
	__be32	tpa;
} __packed;

/**
 * struct ixm_arp_entry - one IPv4 to MAC translation
 * @next: next entry in the bucket (RCU)
 * @ip: the protocol address
 * @mac: its hardware address; meaningless unless @valid
 * @valid: @mac is known (false: only a request is outstanding)
 * @updated_ns: when the translation was last learned or confirmed, or
 *	when the entry was created for a request
 * @next_request_ns: no request for @ip goes out before this time
 * @used_ns: when a core last resolved @ip through this entry to send,
 *	to IXM_ARP_USED_GRAIN_NS (written by readers too)
 * @lru_prev: the entry confirmed (or created) just before this one
 *	(under the table's lock only; NULL at the head)
 * @lru_next: the one confirmed just after (NULL at the tail)
 * @rcu: deferred free
 */
struct ixm_arp_entry {
	struct ixm_arp_entry __rcu	*next;
	__be32				ip;
	u8				mac[ETH_ALEN];
	bool				valid;
	u64				updated_ns;
	u64				next_request_ns;
	u64				used_ns;
	struct ixm_arp_entry		*lru_prev;
	struct ixm_arp_entry		*lru_next;
	struct rcu_head			rcu;
};

/**
 * struct ixm_arp_table - a port's translations
 * @lock: serialises writers
 * @count: entries linked (under @lock)
 * @lru_head: the entry least recently confirmed or created (under @lock)
 * @lru_tail: the one most recently confirmed or created (under @lock)
 * @learn_tat_ns: the rate limit of entries learned from the wire: GCRA's
 *	theoretical arrival time (under @lock)
 * @learned: entries made from received ARP packets
 * @evicted: entries removed to make room for a new one
 * @refused: entries not made because the table was full and nothing
 *	could be evicted (every entry in use)
 * @ratelimited: entries from the wire not made: over the rate limit
 * @nomem: entries not made because allocation failed
 * @buckets: hash chains (RCU)
 *
 * The counters are written under @lock and read by sysfs without it.
 */
struct ixm_arp_table {
	ixm_spinlock_t			lock;
	unsigned int			count;
	struct ixm_arp_entry		*lru_head;
	struct ixm_arp_entry		*lru_tail;
	u64				learn_tat_ns;
	u64				learned;
	u64				evicted;
	u64				refused;
	u64				ratelimited;
	u64				nomem;
	struct ixm_arp_entry __rcu	*buckets[IXM_ARP_BUCKETS];
};

struct ixm_arp_table *ixm_arp_table_alloc(void);
void ixm_arp_table_free(struct ixm_arp_table *t);
unsigned int ixm_arp_table_gc(struct ixm_arp_table *t, u64 now);
void ixm_arp_input(struct ixm_net_port *port, struct ixm_mbuf *m);
int ixm_arp_resolve(struct ixm_net_port *port, __be32 ip, u8 *mac_out);
int ixm_arp_announce(struct ixm_net_port *port);

#endif /* _IXM_NET_ARP_H */
