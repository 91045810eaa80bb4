// SPDX-License-Identifier: GPL-2.0
/*
 * udp.c - UDP input and output, zero-copy on receive
 *
 * A received datagram is not copied: its buffer goes to the context that
 * bound the port, named by its offset in the context's read-only receive
 * region, and comes back with IXMOD_OP_RECV_DONE.  On transmit the payload
 * is copied once from the transmit arena into a DMA buffer behind the
 * headers (a datagram is at most 1472 bytes; see the design document for
 * why the arena is not handed to the NIC directly yet).
 */
#include "udp.h"
#include "app.h"
#include "arp.h"
#include "csum.h"
#include "eth.h"

/**
 * ixm_udp_table_init() - empty a core's socket table
 * @t: the table
 * @gen: every slot's first generation (random in the kernel, so a
 *	handle from one boot or core is unlikely to name a socket of
 *	another); 0 is taken as 1
 */
void ixm_udp_table_init(struct ixm_udp_table *t, u32 gen)
{
	unsigned int i;

	IXM_SLOT_CHECK(struct ixm_udp_sock);
	memset(t, 0, sizeof(*t));
	for (i = 0; i < IXM_UDP_BUCKETS; i++)
		t->bucket[i] = IXM_UDP_NONE;
	for (i = 0; i < IXM_UDP_SOCKS; i++) {
		ixm_slot_init(&t->socks[i].slot, gen);
		t->socks[i].next = i + 1 < IXM_UDP_SOCKS ? i + 1 : IXM_UDP_NONE;
	}
	t->free = 0;
}

/**
 * ixm_udp_bind() - bind a local port for a context
 * @t: the core's table
 * @app: the context
 * @port: local port, host order, not 0
 * @cookie: echoed in the socket's receive events
 * @handle: the new socket's handle
 *
 * Return: 0; -EADDRINUSE if the port is bound on this core; -EMFILE when
 * the table is full.
 */
int ixm_udp_bind(struct ixm_udp_table *t, struct ixm_app *app, u16 port,
		 u64 cookie, u64 *handle)
{
	unsigned int b = ixm_udp_hash(port);
	struct ixm_udp_sock *s;
	u16 i;

	if (ixm_udp_lookup(t, port))
		return -EADDRINUSE;
	if (t->free == IXM_UDP_NONE)
		return -EMFILE;
	i = t->free;
	s = &t->socks[i];
	t->free = s->next;
	s->app = app;
	s->cookie = cookie;
	s->port = port;
	s->next = t->bucket[b];
	t->bucket[b] = i;
	t->count++;
	*handle = ixm_handle(IXMOD_HANDLE_UDP, i, s->gen);
	return 0;
}

/**
 * ixm_udp_sock_get() - the socket a handle names, if @app owns it
 * @t: the core's table
 * @app: the context presenting the handle
 * @handle: as the bind returned it
 *
 * Return: the socket, or NULL for a handle of another kind, an
 * out-of-range index, a stale generation or another context's socket
 * (ixm_slot_get()).
 */
struct ixm_udp_sock *ixm_udp_sock_get(struct ixm_udp_table *t,
				      const struct ixm_app *app, u64 handle)
{
	struct ixm_slot *s;

	s = ixm_slot_get(&IXM_SLOT_TABLE(IXMOD_HANDLE_UDP, t->socks), app, handle);
	return s ? container_of(s, struct ixm_udp_sock, slot) : NULL;
}

static void ixm_udp_unlink(struct ixm_udp_table *t, struct ixm_udp_sock *s)
{
	u16 i = (u16)(s - t->socks);
	u16 *pp = &t->bucket[ixm_udp_hash(s->port)];

	while (*pp != i)
		pp = &t->socks[*pp].next;
	*pp = s->next;
	s->port = 0;
	s->cookie = 0;
	/* a new generation: every handle to this slot is now stale */
	ixm_slot_put(&s->slot);
	s->next = t->free;
	t->free = i;
	t->count--;
}

/**
 * ixm_udp_close() - unbind a socket
 * @t: the core's table
 * @app: the context presenting the handle
 * @handle: the socket
 *
 * Return: 0, or -EBADF if @handle does not name a socket of @app.
 */
int ixm_udp_close(struct ixm_udp_table *t, const struct ixm_app *app, u64 handle)
{
	struct ixm_udp_sock *s = ixm_udp_sock_get(t, app, handle);

	if (!s)
		return -EBADF;
	ixm_udp_unlink(t, s);
	return 0;
}

/**
 * ixm_udp_close_all() - unbind every socket of a context
 * @t: the core's table
 * @app: the context going away
 */
void ixm_udp_close_all(struct ixm_udp_table *t, const struct ixm_app *app)
{
	unsigned int i;

	for (i = 0; i < IXM_UDP_SOCKS; i++)
		if (t->socks[i].app && t->socks[i].app == app)
			ixm_udp_unlink(t, &t->socks[i]);
}

/* RFC 768: the checksum covers a pseudo-header, the header and the data. */
static __sum16 ixm_udp_csum(__be32 saddr, __be32 daddr, const void *uh, u16 ulen)
{
	return ixm_csum_fold(ixm_csum_pseudo(saddr, daddr, IXM_IPPROTO_UDP, ulen,
					     ixm_csum_partial(uh, ulen, 0)));
}

/*
 * Send @m back where it came from (IXM_IFF_UDP_REFLECT): the addresses
 * and the ports swap places, which leaves the IPv4 and UDP checksums,
 * sums of 16-bit words (RFC 1071), as they were; nothing else changes.
 * A checksum the sender left partial (IXM_MBUF_F_L4_CSUM_PARTIAL, a local
 * peer on virtio) holds the pseudo-header's sum, which the swap keeps as
 * well: the NIC completes it, as for the protocols' own frames, or, on a
 * port without the offload, it is completed here.
 */
static void ixm_udp_reflect(struct ixm_net_port *port, struct ixm_mbuf *m,
			    struct ixm_iphdr *ih, struct ixm_udphdr *uh)
{
	struct ixm_ethhdr *eh = (struct ixm_ethhdr *)m->data;
	__be32 addr = ih->saddr;
	__be16 p = uh->source;

	memcpy(eh->dst, eh->src, ETH_ALEN);
	memcpy(eh->src, port->cfg->mac, ETH_ALEN);
	ih->saddr = ih->daddr;
	ih->daddr = addr;
	uh->source = uh->dest;
	uh->dest = p;
	if (unlikely(m->flags & IXM_MBUF_F_L4_CSUM_PARTIAL)) {
		if (port->tx_offload & IXM_TXO_CSUM) {
			ih->check = 0;	/* mbuf.h: the NIC inserts it */
			m->flags = IXM_MBUF_F_TX_UDP_CSUM;
		} else {
			uh->check = 0;
			uh->check = ixm_udp_csum(ih->saddr, ih->daddr, uh, ixm_ntohs(uh->len));
			if (!uh->check)
				uh->check = (__force __sum16)0xffff;	/* RFC 768: 0 means none */
			m->flags = 0;
		}
	} else {
		m->flags = 0;
	}
	port->stats->udp_in++;
	if (!ixm_net_xmit(port, m))	/* a full batch drops it: IXM_DROP_TX_FULL */
		port->stats->udp_out++;
}

/**
 * ixm_udp_input() - deliver a datagram to the context that bound its port
 * @port: the port and core it arrived on
 * @m: the frame, trimmed to the IP total length
 * @ih: its validated IPv4 header
 *
 * Checks the length (UDP_SHORT, UDP_LEN: RFC 768's length must cover the
 * header and fit the IP payload; extra IP payload is ignored, as Linux
 * does) and the checksum (UDP_CSUM; 0 means none was sent, RFC 768), then
 * posts IXMOD_EV_UDP_RECV naming the payload in the receive region.  No
 * socket: UDP_NO_SOCK (no ICMP port unreachable is sent; see the design
 * document).  Ring and hold-back queue full, or the pool below a quarter
 * free (IXM_POOL_RESERVE_UNTAKEN): UDP_APP_FULL.
 *
 * Context: the port's dataplane core.
 */
void ixm_udp_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		   struct ixm_iphdr *ih)
{
	unsigned int hlen = ixm_ip_hlen(ih);
	unsigned int len = ixm_ntohs(ih->tot_len) - hlen;
	struct ixm_udp_sock *s = NULL;
	struct ixmod_event ev;
	struct ixm_udphdr *uh;
	unsigned int ulen;

	if (unlikely(len < IXM_UDP_HLEN)) {
		ixm_net_drop(port, m, IXM_DROP_UDP_SHORT);
		return;
	}
	uh = (struct ixm_udphdr *)((u8 *)ih + hlen);
	ulen = ixm_ntohs(uh->len);
	if (unlikely(ulen < IXM_UDP_HLEN || ulen > len)) {
		ixm_net_drop(port, m, IXM_DROP_UDP_LEN);
		return;
	}
	if (unlikely(port->cfg->flags & IXM_IFF_UDP_REFLECT) && ih->daddr == port->cfg->ip) {
		ixm_udp_reflect(port, m, ih, uh);
		return;
	}
	/*
	 * The NIC's verdict is trusted only when it says good; a "bad" one
	 * (IXM_MBUF_F_L4_CSUM_BAD) is checked again here, as is anything
	 * it did not check.
	 */
	if (uh->check) {
		bool hw_ok = (m->flags & IXM_MBUF_F_L4_CSUM_OK) && ulen == len;

		if (unlikely(!hw_ok && ixm_udp_csum(ih->saddr, ih->daddr, uh, ulen))) {
			ixm_net_drop(port, m, IXM_DROP_UDP_CSUM);
			return;
		}
	}
	if (port->stack)
		s = ixm_udp_lookup(port->stack->udp, ixm_ntohs(uh->dest));
	if (!s || s->app->dead) {
		ixm_net_drop(port, m, IXM_DROP_UDP_NO_SOCK);
		return;
	}

	/*
	 * A context slow to return datagrams holds their buffers; it may not
	 * take the pool below the quarter that TCP and the receive ring
	 * need (mbuf.h), however large its rings: counted as the context
	 * being full, which it is.
	 */
	if (unlikely(!ixm_mbuf_pool_free_over(m->pool, IXM_POOL_RESERVE_UNTAKEN))) {
		s->app->stats.rx_dropped++;
		ixm_net_drop(port, m, IXM_DROP_UDP_APP_FULL);
		return;
	}
	memset(&ev, 0, sizeof(ev));
	ev.type = IXMOD_EV_UDP_RECV;
	ev.res = ulen - IXM_UDP_HLEN;
	ev.user_data = s->cookie;
	ev.off = ixm_app_rx_off(m) + ((u8 *)uh + IXM_UDP_HLEN - m->data);
	ev.addr = ih->saddr;
	ev.port = uh->source;
	ev.lport = uh->dest;
	if (ixm_app_post(s->app, &ev, ixm_handle(IXMOD_HANDLE_UDP,
						 (u32)(s - port->stack->udp->socks), s->gen))) {
		s->app->stats.rx_dropped++;
		ixm_net_drop(port, m, IXM_DROP_UDP_APP_FULL);
		return;
	}
	m->data = (u8 *)uh + IXM_UDP_HLEN;
	m->len = ev.res;
	m->owner = s->app;
	s->app->stats.rx_bufs++;
	port->stats->udp_in++;
}

/**
 * ixm_udp_send() - build and queue one datagram
 * @st: the core's protocol state
 * @s: the sending socket (its port is the source port)
 * @data: the payload, inside the transmit arena
 * @len: payload bytes, at most IXM_UDP_PAYLOAD_MAX
 * @daddr: destination, a unicast address (the caller checked)
 * @dport: destination port, not 0
 *
 * Return: @len when queued; IXM_CALL_RETRY when the port's TX batch is
 * full; -ENETUNREACH (no port has an address); -EINVAL (@daddr is ours);
 * -EAGAIN (the neighbour is being resolved: an ARP request is out; try
 * again); -ENOBUFS (no buffer); another errno from ixm_arp_resolve().
 */
int ixm_udp_send(struct ixm_stack *st, const struct ixm_udp_sock *s,
		 const u8 *data, u16 len, __be32 daddr, __be16 dport)
{
	const struct ixm_if_config *cfg;
	struct ixm_net_port *np;
	struct ixm_ethhdr *eh;
	struct ixm_udphdr *uh;
	struct ixm_iphdr *ih;
	struct ixm_mbuf *m;
	u8 mac[ETH_ALEN];
	u16 ulen = IXM_UDP_HLEN + len;
	bool nic_csum;
	int err;

	np = ixm_stack_route(st, daddr, NULL);
	if (!np)
		return -ENETUNREACH;
	cfg = np->cfg;
	/* ourselves, our subnet's broadcast: not a peer a datagram goes to */
	if (ixm_ip_src_is_bad(cfg, daddr))
		return -EINVAL;
	/* room for the datagram and for an ARP request the resolve may send */
	if (np->ntx + 2 > IXM_TX_BATCH)
		return IXM_CALL_RETRY;
	err = ixm_arp_resolve(np, daddr, mac);
	if (err)
		return err;
	m = ixm_mbuf_alloc(np->pool);
	if (!m) {
		np->stats->drops[IXM_DROP_NO_BUF]++;
		return -ENOBUFS;
	}

	nic_csum = np->tx_offload & IXM_TXO_CSUM;
	eh = (struct ixm_ethhdr *)m->data;
	ih = (struct ixm_iphdr *)(m->data + IXM_ETH_HLEN);
	uh = (struct ixm_udphdr *)((u8 *)ih + IXM_IP_HLEN);
	memcpy((u8 *)uh + IXM_UDP_HLEN, data, len);
	uh->source = ixm_htons(s->port);
	uh->dest = dport;
	uh->len = ixm_htons(ulen);
	if (nic_csum) {
		/* the pseudo-header's sum; the NIC adds the rest (mbuf.h) */
		uh->check = ~ixm_csum_fold(ixm_csum_pseudo(cfg->ip, daddr,
							   IXM_IPPROTO_UDP, ulen, 0));
		m->flags |= IXM_MBUF_F_TX_UDP_CSUM;
	} else {
		uh->check = 0;
		uh->check = ixm_udp_csum(cfg->ip, daddr, uh, ulen);
		if (!uh->check)
			uh->check = (__force __sum16)0xffff;	/* RFC 768: 0 means none */
		np->stats->tx_csum_sw++;
	}
	ixm_ip_build_header(ih, cfg->ip, daddr, IXM_IPPROTO_UDP, ulen, 0, nic_csum);
	memcpy(eh->dst, mac, ETH_ALEN);
	memcpy(eh->src, cfg->mac, ETH_ALEN);
	eh->type = ixm_htons(IXM_ETH_P_IP);
	m->len = IXM_ETH_HLEN + IXM_IP_HLEN + ulen;
	np->stats->udp_out++;
	ixm_net_xmit(np, m);
	return len;
}
