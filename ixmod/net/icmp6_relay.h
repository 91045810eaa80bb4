/* SPDX-License-Identifier: GPL-2.0 */
/*
 * icmp6_relay.h - a port's mailboxes of ICMPv6 errors between its cores
 *
 * RSS gives an ICMPv6 message the queue of its addresses' hash (no ports
 * to hash), while a TCP connection lives on the core of its 4-tuple's.
 * The core an error about TCP reached, when the connection it quotes is
 * another core's, posts a record of it (struct ixm_icmp6_note: what TCP
 * needs, not the frame) to the owner's mailbox; the owner takes it at
 * the start of its next iteration and acts on it as on an error it had
 * received itself (net/tcp_in.c, ixm_tcp_icmp6_err()).
 *
 * One mailbox per queue of the port, shared by every core that serves
 * the port: a spinlock, as the port's ARP and ND tables have, and at
 * most IXM_ICMP6_RELAY_SLOTS records.  ICMPv6 errors are rare and anyone
 * can send them: a full mailbox drops the record (the poster counts
 * tcp_icmp_hand_full), nothing waits and nothing is allocated.  The
 * owner looks at its mailbox's @count without the lock, one load per
 * iteration; the poster that makes a mailbox non-empty wakes the owner
 * through the glue's @wake (a sleeping core would not look).
 */
#ifndef _IXM_NET_ICMP6_RELAY_H
#define _IXM_NET_ICMP6_RELAY_H

#include "net.h"

#define IXM_ICMP6_RELAY_SLOTS	16	/* records a mailbox holds */

/**
 * struct ixm_icmp6_note - an ICMPv6 error about a TCP segment, as TCP uses it
 * @saddr: the quoted segment's source: one of the port's addresses
 * @daddr: its destination: the peer
 * @sport: its source port (ours)
 * @dport: its destination port (the peer's)
 * @seq: its sequence number, network order
 * @info: the message's 32-bit field (a Packet Too Big's MTU), host order
 * @type: IXM_ICMP6_DEST_UNREACH or IXM_ICMP6_PKT_TOOBIG
 * @code: the message's code
 */
struct ixm_icmp6_note {
	struct ixm_in6_addr	saddr;
	struct ixm_in6_addr	daddr;
	__be16			sport;
	__be16			dport;
	__be32			seq;
	u32			info;
	u8			type;
	u8			code;
};

/**
 * struct ixm_icmp6_box - the mailbox of one queue's core
 * @lock: serialises posting and taking
 * @head: the oldest record's slot (under @lock)
 * @count: records held; written under @lock, read without it by the owner
 * @note: the records, a ring from @head
 */
struct ixm_icmp6_box {
	ixm_spinlock_t		lock;
	u32			head;
	u32			count;
	struct ixm_icmp6_note	note[IXM_ICMP6_RELAY_SLOTS];
};

struct ixm_icmp6_relay;

/**
 * typedef ixm_icmp6_relay_wake_fn - the glue's way to wake a queue's core
 * @r: the relay
 * @q: the queue whose core is to be woken (it may be awake)
 *
 * Context: a dataplane core's loop, inside ixm_rcu_read_lock().
 */
typedef void ixm_icmp6_relay_wake_fn(struct ixm_icmp6_relay *r, unsigned int q);

/**
 * struct ixm_icmp6_relay - a port's mailboxes, one per queue
 * @wake: wakes queue @q's core; NULL in tests that poll
 * @priv: the glue's (the port)
 * @nq: queues, entries of @box
 * @box: the mailboxes, indexed by queue
 */
struct ixm_icmp6_relay {
	ixm_icmp6_relay_wake_fn	*wake;
	void			*priv;
	unsigned int		nq;
	struct ixm_icmp6_box	box[];
};

struct ixm_icmp6_relay *ixm_icmp6_relay_alloc(unsigned int nq, ixm_icmp6_relay_wake_fn *wake,
					      void *priv);
void ixm_icmp6_relay_free(struct ixm_icmp6_relay *r);
int ixm_icmp6_relay_post(struct ixm_icmp6_relay *r, unsigned int q,
			 const struct ixm_icmp6_note *n);
bool ixm_icmp6_relay_take(struct ixm_icmp6_box *b, struct ixm_icmp6_note *n);

/**
 * ixm_icmp6_relay_box() - this core's mailbox on a port
 * @np: the port as this core sees it
 *
 * Return: the mailbox, or NULL when the port has none (one queue).
 */
static inline struct ixm_icmp6_box *ixm_icmp6_relay_box(const struct ixm_net_port *np)
{
	return np->relay ? &np->relay->box[np->rss_q] : NULL;
}

/**
 * ixm_icmp6_relay_pending() - has this core's mailbox on @np records?
 * @np: the port as this core sees it
 *
 * Without the lock: a record posted just now may be missed, and is then
 * seen at the next look (its poster woke the core if it slept).
 *
 * Return: true if there is something to take.
 */
static inline bool ixm_icmp6_relay_pending(const struct ixm_net_port *np)
{
	return np->relay && READ_ONCE(np->relay->box[np->rss_q].count);
}

#endif /* _IXM_NET_ICMP6_RELAY_H */
