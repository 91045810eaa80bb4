/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udp.h - UDP (RFC 768) sockets of one core
 *
 * A socket is a local port bound by one context on one core.  RSS spreads
 * a server's flows over the cores, so a server binds its port on every
 * core it runs on, one context per core (IX's model).  The table belongs
 * to the core's thread: no locks.
 */
#ifndef _IXM_NET_UDP_H
#define _IXM_NET_UDP_H

#include "platform.h"
#include "net.h"
#include "ip.h"

#define IXM_UDP_HLEN		8
#define IXM_IPPROTO_UDP		17

#define IXM_UDP_SOCKS		1024	/* sockets per core */
#define IXM_UDP_BUCKETS		256
#define IXM_UDP_NONE		0xffff	/* end of a chain */

struct ixm_app;
struct ixm_stack;
struct ixm_ip6hdr;

struct ixm_udphdr {
	__be16	source;
	__be16	dest;
	__be16	len;
	__sum16	check;
} __packed;

/**
 * struct ixm_udp_sock - one bound port
 * @slot: what its handle names (handle.h)
 * @app: the context that bound it; NULL while the slot is free
 * @gen: generation of the slot, part of the handle; never 0
 * @cookie: user_data of the bind, echoed in every receive event
 * @port: local port, host order
 * @next: next slot in the bucket chain or the free list, IXM_UDP_NONE
 */
struct ixm_udp_sock {
	union {
		struct ixm_slot		slot;
		struct {
			struct ixm_app	*app;
			u32		gen;
		};
	};
	u64		cookie;
	u16		port;
	u16		next;
};

/**
 * struct ixm_udp_table - a core's UDP sockets
 * @bucket: chain heads, by port
 * @free: head of the free-slot list
 * @count: sockets bound
 * @socks: the slots
 */
struct ixm_udp_table {
	u16			bucket[IXM_UDP_BUCKETS];
	u16			free;
	u32			count;
	struct ixm_udp_sock	socks[IXM_UDP_SOCKS];
};

static inline unsigned int ixm_udp_hash(u16 port)
{
	return (port ^ (port >> 8)) & (IXM_UDP_BUCKETS - 1);
}

/* The socket bound to local @port (host order) on this core, or NULL. */
static inline struct ixm_udp_sock *ixm_udp_lookup(struct ixm_udp_table *t, u16 port)
{
	u16 i = t->bucket[ixm_udp_hash(port)];

	while (i != IXM_UDP_NONE) {
		struct ixm_udp_sock *s = &t->socks[i];

		if (s->port == port)
			return s;
		i = s->next;
	}
	return NULL;
}

void ixm_udp_table_init(struct ixm_udp_table *t, u32 gen);
int ixm_udp_bind(struct ixm_udp_table *t, struct ixm_app *app, u16 port,
		 u64 cookie, u64 *handle);
struct ixm_udp_sock *ixm_udp_sock_get(struct ixm_udp_table *t,
				      const struct ixm_app *app, u64 handle);
int ixm_udp_close(struct ixm_udp_table *t, const struct ixm_app *app, u64 handle);
void ixm_udp_close_all(struct ixm_udp_table *t, const struct ixm_app *app);
void ixm_udp_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		   struct ixm_iphdr *ih);
int ixm_udp_send(struct ixm_stack *st, const struct ixm_udp_sock *s,
		 const u8 *data, u16 len, __be32 daddr, __be16 dport);
void ixm_udp6_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		    struct ixm_ip6hdr *ih, unsigned int thoff);
int ixm_udp6_send(struct ixm_stack *st, const struct ixm_udp_sock *s,
		  const u8 *data, u16 len, const struct ixm_in6_addr *daddr,
		  __be16 dport);

#endif /* _IXM_NET_UDP_H */
