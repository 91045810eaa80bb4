/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nd.h - IPv6 Neighbor Discovery (RFC 4861) and the per-port neighbour
 * table
 *
 * The table is arp.h's, keyed by IPv6 address, with the same locking:
 * shared by every core serving the port; readers (a core resolving a next
 * hop) only take ixm_rcu_read_lock(); writers (a core that learns from a
 * solicitation or an advertisement, or records that it sent one, and the
 * control plane's ageing) take @lock.  An entry's @mac never changes once
 * published: a new MAC gets a new entry that replaces the old one, freed
 * after a grace period.  Timestamps change in place, WRITE_ONCE() under
 * @lock and READ_ONCE() outside; @used_ns alone is also written by
 * readers, at most once per IXM_ND_USED_GRAIN_NS.  The LRU list is the
 * writers' alone.
 *
 * RFC 4861 §7.3.2's five states map onto the timestamps: INCOMPLETE is an
 * entry without a MAC whose solicitation is outstanding; REACHABLE is a
 * MAC confirmed (a solicited advertisement) within IXM_ND_STALE_NS; STALE
 * is one older than that, or learned unconfirmed (from a solicitation's
 * source link-layer address, or an unsolicited advertisement): it is
 * used, and using it sends a unicast solicitation at most once per
 * IXM_ND_RETRY_NS until an advertisement confirms it (DELAY and PROBE
 * folded into one, as arp.c revalidates), or gc frees it.
 */
#ifndef _IXM_NET_ND_H
#define _IXM_NET_ND_H

#include "platform.h"
#include "ip6.h"
#include "net.h"

/* ICMPv6 types of Neighbor Discovery (RFC 4861 §4) */
#define IXM_ND_ROUTER_SOLICIT	133
#define IXM_ND_ROUTER_ADVERT	134
#define IXM_ND_NEIGH_SOLICIT	135
#define IXM_ND_NEIGH_ADVERT	136
#define IXM_ND_REDIRECT		137

#define IXM_ND_HOPLIMIT		255	/* RFC 4861 §7.1: not forwarded */
#define IXM_ND_MSG_LEN		24	/* NS and NA: header, flags, target */
#define IXM_ND_OPT_SLLA		1	/* source link-layer address (§4.6.1) */
#define IXM_ND_OPT_TLLA		2	/* target link-layer address */
#define IXM_ND_OPT_LLA_LEN	8	/* for Ethernet: one unit (RFC 2464 §8) */

/* The flags byte of an NA (RFC 4861 §4.4) */
#define IXM_ND_NA_ROUTER	0x80
#define IXM_ND_NA_SOLICITED	0x40
#define IXM_ND_NA_OVERRIDE	0x20

#define IXM_ND_BUCKETS		256
#define IXM_ND_MAX_ENTRIES	1024	/* as IXM_ARP_MAX_ENTRIES */
/* RFC 4861 §10 REACHABLE_TIME: a confirmation is good this long. */
#define IXM_ND_STALE_NS		(30ULL * 1000000000ULL)
/* ixm_nd_table_gc() frees entries not confirmed for this long. */
#define IXM_ND_EXPIRE_NS	(4 * IXM_ND_STALE_NS)
/* RFC 4861 §10 RETRANS_TIMER: one solicitation per address per second. */
#define IXM_ND_RETRY_NS		(1000000000ULL)
/* A core records that it sent through an entry at most this often. */
#define IXM_ND_USED_GRAIN_NS	(1000000000ULL)
/* Entries the wire may create: arp.h's numbers and reasons. */
#define IXM_ND_LEARN_BURST	32
#define IXM_ND_LEARN_NS		(1000000000ULL / 256)

/**
 * struct ixm_nd_msg - Neighbor Solicitation or Advertisement (RFC 4861
 *	§4.3, §4.4), options following
 * @type: IXM_ND_NEIGH_SOLICIT or IXM_ND_NEIGH_ADVERT
 * @code: 0
 * @checksum: ICMPv6 checksum (RFC 4443 §2.3)
 * @flags: NA: IXM_ND_NA_*; NS: reserved, 0
 * @reserved: 0
 * @target: the address asked about or advertised
 */
struct ixm_nd_msg {
	u8			type;
	u8			code;
	__sum16			checksum;
	u8			flags;
	u8			reserved[3];
	struct ixm_in6_addr	target;
} __packed;

/**
 * struct ixm_nd_entry - one IPv6 to MAC translation
 * @next: next entry in the bucket (RCU)
 * @ip: the neighbour's address
 * @mac: its link-layer address; meaningless unless @valid
 * @valid: @mac is known (false: INCOMPLETE, a solicitation is out)
 * @updated_ns: when the translation was last confirmed (REACHABLE until
 *	IXM_ND_STALE_NS after it; an entry learned unconfirmed is stamped
 *	IXM_ND_STALE_NS in the past), or when an INCOMPLETE entry was made
 * @next_request_ns: no solicitation for @ip goes out before this time
 * @used_ns: when a core last resolved @ip through this entry to send
 * @lru_prev: the entry confirmed (or created) just before this one
 * @lru_next: the one confirmed just after
 * @rcu: deferred free
 */
struct ixm_nd_entry {
	struct ixm_nd_entry __rcu	*next;
	struct ixm_in6_addr		ip;
	u8				mac[ETH_ALEN];
	bool				valid;
	u64				updated_ns;
	u64				next_request_ns;
	u64				used_ns;
	struct ixm_nd_entry		*lru_prev;
	struct ixm_nd_entry		*lru_next;
	struct rcu_head			rcu;
};

/**
 * struct ixm_nd_table - a port's neighbours
 * @lock: serialises writers
 * @count: entries linked (under @lock)
 * @lru_head: the entry least recently confirmed or created (under @lock)
 * @lru_tail: the one most recently confirmed or created (under @lock)
 * @learn_tat_ns: GCRA state of the rate limit of entries from the wire
 * @key: SipHash key of the buckets, so that the wire cannot choose
 *	addresses that all land in one chain
 * @learned: entries made from received solicitations
 * @evicted: entries removed to make room for a new one
 * @refused: entries not made: table full, every entry in use
 * @ratelimited: entries from the wire not made: over the rate limit
 * @nomem: entries not made because allocation failed
 * @buckets: hash chains (RCU)
 *
 * The counters are written under @lock and read by sysfs without it.
 */
struct ixm_nd_table {
	ixm_spinlock_t			lock;
	unsigned int			count;
	struct ixm_nd_entry		*lru_head;
	struct ixm_nd_entry		*lru_tail;
	u64				learn_tat_ns;
	u64				key[2];
	u64				learned;
	u64				evicted;
	u64				refused;
	u64				ratelimited;
	u64				nomem;
	struct ixm_nd_entry __rcu	*buckets[IXM_ND_BUCKETS];
};

struct ixm_nd_table *ixm_nd_table_alloc(const u64 key[2]);
void ixm_nd_table_free(struct ixm_nd_table *t);
unsigned int ixm_nd_table_gc(struct ixm_nd_table *t, u64 now);
void ixm_nd_ns_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		     struct ixm_ip6hdr *ih, unsigned int thoff);
void ixm_nd_na_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		     struct ixm_ip6hdr *ih, unsigned int thoff);
int ixm_nd_resolve(struct ixm_net_port *port, const struct ixm_in6_addr *ip,
		   u8 *mac_out);
int ixm_nd_announce(struct ixm_net_port *port);

#endif /* _IXM_NET_ND_H */
