/* SPDX-License-Identifier: MIT */
/*
 * ixu.h - libixu, the user library of ixmod
 *
 * libixu wraps /dev/ixmod (uapi/linux/ixmod.h).  Every function that can
 * fail returns 0 or a negative errno, as liburing does; none sets errno
 * or prints.  Link with -lixu (pkg-config --libs libixu).
 *
 * An application opens a handle (ixu_open), attaches it to one dataplane
 * core (ixu_attach), which maps the four shared regions, then fills call
 * entries (ixu_call_get + ixu_prep_*), publishes them (ixu_call_submit),
 * and consumes events (ixu_event_peek / ixu_event_advance), sleeping in
 * ixu_wait() or in its own poll loop on ixu->fd when idle.  One handle
 * per thread: the rings are single-producer, single-consumer.
 *
 * Byte order: every IPv4 address and port, in the uapi's structs and in
 * libixu's arguments alike, is in network order (__be32, __be16), as in
 * struct sockaddr_in and as the events give them, so an event's address
 * and port go back into a call unchanged.  ixu_htons() and friends
 * convert, typed so that sparse (make -C libixu sparse) finds a value of
 * the wrong order.
 *
 * Ring orders (the kernel's side is ixmod/net/ring.h, same letters):
 *   (A) ixu_call_get() reads the call ring's consumer index with acquire
 *       before reusing a slot; pairs with the kernel's (D).
 *   (B) ixu_call_submit() publishes the producer index with release;
 *       pairs with the kernel's (C).
 *   (C) ixu_event_peek() reads the event ring's producer index with
 *       acquire; pairs with the kernel's (B).
 *   (D) ixu_event_advance() publishes the consumer index with release;
 *       pairs with the kernel's (A).
 *   (E) ixu_call_submit() issues a full barrier between publishing calls
 *       and reading IXMOD_RING_NEED_WAKEUP; pairs with the kernel's (E)
 *       before it sleeps, so either it sees the calls or we see the flag.
 */
#ifndef _IXU_H
#define _IXU_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/ixmod.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CHECKER__
#define IXU_FORCE	__attribute__((force))
#else
#define IXU_FORCE
#endif

/*
 * ixu_htons, ixu_ntohs, ixu_htonl, ixu_ntohl - byte order, typed
 *
 * SYNOPSIS
 *	__be16 ixu_htons(__u16 v);
 *	__u16 ixu_ntohs(__be16 v);
 *	__be32 ixu_htonl(__u32 v);
 *	__u32 ixu_ntohl(__be32 v);
 *
 * DESCRIPTION
 *	As htons(3) and friends, with the network-order side typed __be16
 *	or __be32 (a restricted type under sparse: make -C libixu sparse
 *	finds a value of the wrong order).
 */
static inline __be16 ixu_htons(__u16 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap16(v);
#endif
	return (IXU_FORCE __be16)v;
}

static inline __u16 ixu_ntohs(__be16 v)
{
	__u16 h = (IXU_FORCE __u16)v;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	h = __builtin_bswap16(h);
#endif
	return h;
}

static inline __be32 ixu_htonl(__u32 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return (IXU_FORCE __be32)v;
}

static inline __u32 ixu_ntohl(__be32 v)
{
	__u32 h = (IXU_FORCE __u32)v;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	h = __builtin_bswap32(h);
#endif
	return h;
}

/**
 * struct ixu_ring - the application's view of one shared ring
 * @kprod: the shared producer index
 * @kcons: the shared consumer index
 * @kflags: the shared flags (IXMOD_RING_*), written by the kernel
 * @entries: the first entry
 * @esize: bytes per entry (events: ixmod_setup.event_size)
 * @mask: entries - 1
 * @nr: entries
 * @cached: our own index (producer of the call ring, consumer of the
 *	event ring), published by ixu_call_submit() / ixu_event_advance()
 */
struct ixu_ring {
	unsigned int	*kprod;
	unsigned int	*kcons;
	unsigned int	*kflags;
	void		*entries;
	unsigned int	esize;
	unsigned int	mask;
	unsigned int	nr;
	unsigned int	cached;
};

/**
 * struct ixu - one handle on /dev/ixmod
 * @fd: the open file, or -1
 * @info: what IXMOD_IOC_GET_INFO answered when the handle was opened
 * @setup: what IXMOD_IOC_SETUP answered (after ixu_attach())
 * @calls: the call ring
 * @events: the event ring
 * @rxbuf: the receive region (read-only)
 * @txarena: the transmit arena
 * @maps: the four mappings, by IXMOD_REGION_* (NULL when not mapped)
 *
 * Filled by ixu_open() and ixu_attach(); treat as read-only.
 */
struct ixu {
	int			fd;
	struct ixmod_info	info;
	struct ixmod_setup	setup;
	struct ixu_ring		calls;
	struct ixu_ring		events;
	const unsigned char	*rxbuf;
	unsigned char		*txarena;
	void			*maps[IXMOD_REGION_NR];
	unsigned int		mode;
};

/*
 * ixu_open - open /dev/ixmod and check that the module speaks this ABI
 *
 * SYNOPSIS
 *	int ixu_open(struct ixu *ixu, unsigned int flags);
 *
 * DESCRIPTION
 *	Opens IXMOD_DEV_PATH read-write and close-on-exec, asks the module
 *	for its ABI version and features (IXMOD_IOC_GET_INFO) and stores the
 *	answer in ixu->info.  @flags must be 0; it is reserved for future
 *	open modes.
 *
 * RETURN VALUE
 *	0 on success.  -EINVAL if @ixu is NULL or @flags is not 0; -ENOENT
 *	if ixmod is not loaded; -EACCES if the caller may not open the
 *	device (it is root-only by default); -EPROTONOSUPPORT if the module
 *	speaks another ABI version; any other errno from open(2) or
 *	ioctl(2).  On failure ixu->fd is -1 and nothing stays open.
 */
int ixu_open(struct ixu *ixu, unsigned int flags);

/*
 * ixu_close - release a handle
 *
 * SYNOPSIS
 *	void ixu_close(struct ixu *ixu);
 *
 * DESCRIPTION
 *	Closes the device file and sets ixu->fd to -1.  Safe to call twice
 *	and on a handle whose ixu_open() failed.
 */
void ixu_close(struct ixu *ixu);

/*
 * ixu_get_info - ask the module for its current state
 *
 * SYNOPSIS
 *	int ixu_get_info(struct ixu *ixu, struct ixmod_info *info);
 *
 * DESCRIPTION
 *	Issues IXMOD_IOC_GET_INFO again and fills @info, e.g. to learn how
 *	many dataplane cores are assigned now (info->nr_cores).  ixu->info
 *	is not changed.
 *
 * RETURN VALUE
 *	0 on success, -EINVAL for a NULL argument or a closed handle,
 *	otherwise the negative errno of ioctl(2).
 */
int ixu_get_info(struct ixu *ixu, struct ixmod_info *info);

/*
 * ixu_has_feature - test an IXMOD_FEAT_* bit
 *
 * SYNOPSIS
 *	bool ixu_has_feature(const struct ixu *ixu, __u64 feature);
 *
 * DESCRIPTION
 *	Applications decide what to use by feature bits, never by the ABI
 *	version.  @feature may combine several bits; all must be present.
 *
 * RETURN VALUE
 *	true if the module reported every bit of @feature at ixu_open().
 */
bool ixu_has_feature(const struct ixu *ixu, __u64 feature);

/*
 * ixu_cpulist_parse - the CPUs of a cpulist, or ixmod's dataplane cores
 *
 * SYNOPSIS
 *	int ixu_cpulist_parse(const char *list, unsigned int *cpus,
 *			      unsigned int max);
 *
 * DESCRIPTION
 *	Stores the CPUs of @list, a cpulist as the kernel writes them
 *	("1-3,5"; a trailing newline is allowed), in @cpus in the order
 *	written, at most @max of them.  @list NULL stands for
 *	/sys/kernel/ixmod/cores, the dataplane cores: what a program with a
 *	thread per core serves when not told otherwise (one ixu handle, or
 *	one ixev, per core; ixev_run_cores() parses its cpulist with this
 *	function).
 *
 * RETURN VALUE
 *	The number of CPUs stored, 0 for an empty list (no dataplane core
 *	assigned).  -EINVAL if @list is malformed or names more than @max
 *	CPUs; -ENOENT if @list is NULL and /sys/kernel/ixmod/cores cannot be
 *	opened (ixmod is not loaded).
 */
int ixu_cpulist_parse(const char *list, unsigned int *cpus, unsigned int max);

/**
 * struct ixu_params - what ixu_attach() asks for
 * @call_entries: call ring entries (0: the module's default)
 * @event_entries: event ring entries (0: default)
 * @txarena_size: transmit arena bytes (0: default)
 * @flags: IXMOD_SETUP_*
 * @mode: who runs the core's loop: IXU_MODE_THREAD (the core's kernel
 *	thread; the default) or IXU_MODE_COLOCATED (the calling thread, in
 *	ixu_wait(); it is bound to @cpu)
 */
struct ixu_params {
	unsigned int	call_entries;
	unsigned int	event_entries;
	unsigned int	txarena_size;
	unsigned int	flags;
	unsigned int	mode;
};

/*
 * The two execution modes (Documentation/userspace-api/ixmod.rst).  In
 * IXU_MODE_COLOCATED the thread that attached runs the core's loop itself
 * each time it calls ixu_wait() (IXMOD_IOC_RUN, IX's run_io): no context
 * switch between the application and the dataplane.  It must then call
 * ixu_wait() regularly: after away_us (/sys/kernel/ixmod/away_us) outside
 * it, the core's kernel thread takes the core back until it returns.
 */
#define IXU_MODE_THREAD		0
#define IXU_MODE_COLOCATED	1

/*
 * ixu_attach - attach the handle to a dataplane core and map its regions
 *
 * SYNOPSIS
 *	int ixu_attach(struct ixu *ixu, unsigned int cpu,
 *		       const struct ixu_params *params);
 *
 * DESCRIPTION
 *	Issues IXMOD_IOC_SETUP for @cpu (one of /sys/kernel/ixmod/cores)
 *	with @params (NULL: defaults), then maps the call ring, the event
 *	ring, the receive region (read-only) and the transmit arena, and
 *	fills ixu->setup, ixu->calls, ixu->events, ixu->rxbuf and
 *	ixu->txarena.  A port serves one process at a time, on every core
 *	that serves it; all threads of that process may attach their own
 *	handles to those cores.  With
 *	@params->mode IXU_MODE_COLOCATED the calling thread is also bound
 *	to @cpu (sched_setaffinity(2)); one thread per core may run so.
 *
 * RETURN VALUE
 *	0 on success.  -EINVAL (bad parameters, @cpu is not a dataplane
 *	core, or the handle is already attached), -EOPNOTSUPP (co-located
 *	mode asked of a module without IXMOD_FEAT_RUN), -EBUSY (another process
 *	owns a port the core serves), -ENETDOWN (no port is up), -ENOMEM, or
 *	the errno of mmap(2).  On failure nothing stays mapped; the kernel side may stay
 *	attached until ixu_close().
 */
int ixu_attach(struct ixu *ixu, unsigned int cpu, const struct ixu_params *params);

/*
 * ixu_call_get - the next free call entry, zeroed
 *
 * SYNOPSIS
 *	struct ixmod_call *ixu_call_get(struct ixu *ixu);
 *
 * DESCRIPTION
 *	Reserves the next slot of the call ring and zeroes it (every unused
 *	field of a call must be zero).  Fill it (ixu_prep_*), then publish
 *	all reserved entries with ixu_call_submit().
 *
 * RETURN VALUE
 *	The entry, or NULL when the ring is full (the dataplane has not
 *	consumed enough yet: submit, then try again).
 */
static inline struct ixmod_call *ixu_call_get(struct ixu *ixu)
{
	struct ixu_ring *r = &ixu->calls;
	unsigned int cons = __atomic_load_n(r->kcons, __ATOMIC_ACQUIRE); /* (A) */
	struct ixmod_call *c;

	if (r->cached - cons >= r->nr)
		return NULL;
	c = (struct ixmod_call *)r->entries + (r->cached & r->mask);
	memset(c, 0, sizeof(*c));
	r->cached++;
	return c;
}

/*
 * ixu_call_space - free call entries
 *
 * SYNOPSIS
 *	unsigned int ixu_call_space(const struct ixu *ixu);
 *
 * DESCRIPTION
 *	How many ixu_call_get() calls would succeed now: the ring's size
 *	minus the entries reserved and not yet consumed by the dataplane
 *	(whose consumer index is read with acquire, as in (A)).  Check it
 *	before work that needs several calls, rather than finding the ring
 *	full half-way through (liburing's io_uring_sq_space_left()).
 *
 * RETURN VALUE
 *	0 to the number of call ring entries.
 */
static inline unsigned int ixu_call_space(const struct ixu *ixu)
{
	const struct ixu_ring *r = &ixu->calls;
	unsigned int cons = __atomic_load_n(r->kcons, __ATOMIC_ACQUIRE); /* (A) */

	return r->nr - (r->cached - cons);
}

/*
 * ixu_call_index - the ring position of a call entry
 *
 * SYNOPSIS
 *	unsigned int ixu_call_index(const struct ixu *ixu,
 *				    const struct ixmod_call *c);
 *
 * DESCRIPTION
 *	The slot number (0 to entries - 1) of an entry ixu_call_get()
 *	returned.  The kernel copies a UDP_SEND's payload before its
 *	consumer index passes the entry, so a transmit-arena area tied to
 *	the slot is free again whenever the slot is: a simple way to manage
 *	the arena (examples/udp-echo.c does so).
 */
static inline unsigned int ixu_call_index(const struct ixu *ixu,
					  const struct ixmod_call *c)
{
	return (unsigned int)(c - (const struct ixmod_call *)ixu->calls.entries);
}

/*
 * ixu_call_submit - publish the reserved call entries
 *
 * SYNOPSIS
 *	int ixu_call_submit(struct ixu *ixu);
 *
 * DESCRIPTION
 *	Makes every entry reserved since the last submit visible to the
 *	dataplane and, if its thread sleeps (IXMOD_RING_NEED_WAKEUP), wakes
 *	it with IXMOD_IOC_WAKE.
 *
 * RETURN VALUE
 *	0, or the negative errno of the wake-up ioctl.
 */
int ixu_call_submit(struct ixu *ixu);

/*
 * ixu_event_peek - the oldest unconsumed event
 *
 * SYNOPSIS
 *	struct ixmod_event *ixu_event_peek(struct ixu *ixu, unsigned int i);
 *
 * DESCRIPTION
 *	Returns event number @i counted from the oldest unconsumed one, in
 *	place in the ring, or NULL if fewer than @i + 1 are waiting.  The
 *	entry stays valid until ixu_event_advance() passes it.
 */
static inline struct ixmod_event *ixu_event_peek(struct ixu *ixu, unsigned int i)
{
	struct ixu_ring *r = &ixu->events;
	unsigned int prod = __atomic_load_n(r->kprod, __ATOMIC_ACQUIRE); /* (C) */

	if (prod - r->cached <= i)
		return NULL;
	return (struct ixmod_event *)((char *)r->entries +
				      (size_t)((r->cached + i) & r->mask) * r->esize);
}

/*
 * ixu_event_handle - the handle of the object an event is about
 *
 * SYNOPSIS
 *	__u64 ixu_event_handle(const struct ixu *ixu,
 *			       const struct ixmod_event *ev);
 *
 * DESCRIPTION
 *	With 64-byte events (ixu_params.flags IXMOD_SETUP_EVENT_EXT) every
 *	event carries it (struct ixmod_event_ext): a TCP_RECV's or
 *	TCP_SENT's connection too.  Without, only the events whose 32
 *	bytes hold one (IXMOD_EV_CALL of a bind, listen or connect,
 *	TCP_KNOCK, TCP_CONNECTED, TCP_DEAD).
 *
 * RETURN VALUE
 *	The handle, or 0 when @ev carries none.
 */
static inline __u64 ixu_event_handle(const struct ixu *ixu, const struct ixmod_event *ev)
{
	if (ixu->events.esize >= sizeof(struct ixmod_event_ext))
		return ((const struct ixmod_event_ext *)ev)->handle;
	switch (ev->type) {
	case IXMOD_EV_CALL:
	case IXMOD_EV_TCP_KNOCK:
	case IXMOD_EV_TCP_CONNECTED:
	case IXMOD_EV_TCP_DEAD:
		return ev->handle;
	}
	return 0;
}

/*
 * ixu_event_addr6 - the IPv6 peer of an event
 *
 * SYNOPSIS
 *	const __u8 *ixu_event_addr6(const struct ixu *ixu,
 *				    const struct ixmod_event *ev);
 *
 * DESCRIPTION
 *	A context set up with IXMOD_SETUP_INET6 (and IXMOD_SETUP_EVENT_EXT)
 *	gets events from IPv6 peers: IXMOD_EVF_INET6 in @ev's flags, its
 *	@addr 0, and the peer's 16-byte address (network order) in the
 *	extended event (struct ixmod_event_ext @addr6): a UDP_RECV's
 *	source, and (IXMOD_FEAT_TCP6) a TCP_KNOCK's or TCP_CONNECTED's
 *	remote end.
 *
 * RETURN VALUE
 *	The address, inside the event ring (valid until the event is
 *	advanced past), or NULL when @ev is not from an IPv6 peer: then
 *	@ev's @addr names an IPv4 one.
 */
static inline const __u8 *ixu_event_addr6(const struct ixu *ixu,
					  const struct ixmod_event *ev)
{
	if (!(ev->flags & IXMOD_EVF_INET6) ||
	    ixu->events.esize < sizeof(struct ixmod_event_ext))
		return NULL;
	return ((const struct ixmod_event_ext *)ev)->addr6;
}

/*
 * ixu_event_advance - consume events
 *
 * SYNOPSIS
 *	void ixu_event_advance(struct ixu *ixu, unsigned int n);
 *
 * DESCRIPTION
 *	Hands @n peeked events' slots back to the kernel.
 */
static inline void ixu_event_advance(struct ixu *ixu, unsigned int n)
{
	struct ixu_ring *r = &ixu->events;

	r->cached += n;
	__atomic_store_n(r->kcons, r->cached, __ATOMIC_RELEASE); /* (D) */
}

/*
 * ixu_wait - sleep until events arrive
 *
 * SYNOPSIS
 *	int ixu_wait(struct ixu *ixu, int timeout_ms);
 *
 * DESCRIPTION
 *	Returns at once if events are waiting, else sleeps in poll(2) on
 *	ixu->fd for at most @timeout_ms (-1: no limit).  Calls still in the
 *	ring wake the dataplane first.  In IXU_MODE_COLOCATED the calling
 *	thread runs the core's loop instead (IXMOD_IOC_RUN): the calls are
 *	executed, and it polls, then sleeps, until an event is there, for at
 *	most @timeout_ms; with 0 it runs one iteration and returns.
 *
 * RETURN VALUE
 *	0 when events are waiting; -ETIME on timeout; -ENETDOWN when the
 *	context lost its port (IXMOD_RING_DEAD); -EINTR or another errno of
 *	poll(2) or of IXMOD_IOC_RUN (-EBUSY: another thread runs the core).
 */
int ixu_wait(struct ixu *ixu, int timeout_ms);

/*
 * ixu_rx_ptr - pointers into the shared regions
 *
 * SYNOPSIS
 *	const void *ixu_rx_ptr(const struct ixu *ixu, __u32 off);
 *	void *ixu_tx_ptr(const struct ixu *ixu, __u32 off);
 *
 * DESCRIPTION
 *	ixu_rx_ptr() points at @off in the receive region (read-only), as a
 *	receive event's @off names it; ixu_tx_ptr() at @off in the transmit
 *	arena, where the application writes what it sends.  Neither checks
 *	@off: the events give valid offsets, and the kernel checks those a
 *	call names.
 */
static inline const void *ixu_rx_ptr(const struct ixu *ixu, __u32 off)
{
	return ixu->rxbuf + off;
}

static inline void *ixu_tx_ptr(const struct ixu *ixu, __u32 off)
{
	return ixu->txarena + off;
}

/*
 * ixu_prep_* - fill a call entry
 *
 * SYNOPSIS
 *	void ixu_prep_nop(struct ixmod_call *c, __u64 user_data);
 *	void ixu_prep_udp_bind(struct ixmod_call *c, __be16 port, __u64 cookie);
 *	void ixu_prep_udp_send(struct ixmod_call *c, __u64 handle, __u32 off,
 *			       __u32 len, __be32 addr, __be16 port,
 *			       __u64 user_data);
 *	void ixu_prep_udp_send6(struct ixmod_call *c, __u64 handle, __u32 off,
 *				__u32 len, const __u8 *addr6, __be16 port,
 *				__u64 user_data);
 *	void ixu_prep_recv_done(struct ixmod_call *c, __u32 off);
 *	void ixu_prep_udp_close(struct ixmod_call *c, __u64 handle,
 *				__u64 user_data);
 *
 * DESCRIPTION
 *	Each writes one call into an entry from ixu_call_get().  Addresses
 *	and ports are in network order (ixu_htons()), as the UDP_RECV
 *	event gives them.  The bind's @cookie comes back in every receive event
 *	of the socket, and its IXMOD_EV_CALL completion carries the handle.
 *	ixu_prep_udp_send6() sends to the 16 bytes at @addr6, an IPv6
 *	address in network order (IXMOD_CALL_F_INET6): the context must have
 *	been set up with IXMOD_SETUP_INET6 (IXMOD_FEAT_INET6), and the
 *	payload is at most 1452 bytes.
 */
static inline void ixu_prep_nop(struct ixmod_call *c, __u64 user_data)
{
	c->opcode = IXMOD_OP_NOP;
	c->user_data = user_data;
}

static inline void ixu_prep_udp_bind(struct ixmod_call *c, __be16 port, __u64 cookie)
{
	c->opcode = IXMOD_OP_UDP_BIND;
	c->port = port;
	c->user_data = cookie;
}

static inline void ixu_prep_udp_send(struct ixmod_call *c, __u64 handle, __u32 off,
				     __u32 len, __be32 addr, __be16 port,
				     __u64 user_data)
{
	c->opcode = IXMOD_OP_UDP_SEND;
	c->handle = handle;
	c->off = off;
	c->len = len;
	c->addr = addr;
	c->port = port;
	c->user_data = user_data;
}

static inline void ixu_prep_udp_send6(struct ixmod_call *c, __u64 handle, __u32 off,
				      __u32 len, const __u8 *addr6, __be16 port,
				      __u64 user_data)
{
	c->opcode = IXMOD_OP_UDP_SEND;
	c->flags |= IXMOD_CALL_F_INET6;
	c->handle = handle;
	c->off = off;
	c->len = len;
	memcpy(c->addr6, addr6, sizeof(c->addr6));
	c->port = port;
	c->user_data = user_data;
}

static inline void ixu_prep_recv_done(struct ixmod_call *c, __u32 off)
{
	c->opcode = IXMOD_OP_RECV_DONE;
	c->off = off;
}

static inline void ixu_prep_udp_close(struct ixmod_call *c, __u64 handle,
				      __u64 user_data)
{
	c->opcode = IXMOD_OP_UDP_CLOSE;
	c->handle = handle;
	c->user_data = user_data;
}

/*
 * TCP (IXMOD_FEAT_TCP).  A connection's events carry the cookie the
 * application chose when it accepted or connected it, so a cookie that
 * names the application's own connection state is the natural choice
 * (ixev.c and the selftests' tcp_echo_helper.c use a slot index and a
 * generation, so that a late event of a freed connection is recognised).  Every connection the
 * application accepted or connected ends with exactly one
 * IXMOD_EV_TCP_DEAD; free its state then, not before.  If the application
 * had not closed it and still holds received bytes of it, the kernel
 * keeps the connection until they come back: close the handle (or
 * return the bytes with recv_done) after the DEAD.
 */

/*
 * ixu_prep_tcp_listen - fill an IXMOD_OP_TCP_LISTEN call
 *
 * SYNOPSIS
 *	void ixu_prep_tcp_listen(struct ixmod_call *c, __be16 port,
 *				 unsigned int backlog, __u64 cookie);
 *
 * DESCRIPTION
 *	Listens on @port (network order) on this context's core, on every port
 *	(interface) the core serves.  @backlog (1 to @ixu->info.backlog_max)
 *	bounds the connections that completed or are completing the
 *	handshake and were not accepted yet.  @cookie comes back in the
 *	listener's IXMOD_EV_TCP_KNOCK events, and in the IXMOD_EV_TCP_DEAD
 *	of a connection that died before it was accepted.  A server listens
 *	on every core it serves (RSS sends each flow to one core).
 *
 * RETURN VALUE
 *	Always answered by an IXMOD_EV_CALL: res 0 and the listener's
 *	handle (close it with ixu_prep_tcp_close() to stop listening), or
 *	-EADDRINUSE, -EINVAL, -EMFILE.
 */
static inline void ixu_prep_tcp_listen(struct ixmod_call *c, __be16 port,
				       unsigned int backlog, __u64 cookie)
{
	c->opcode = IXMOD_OP_TCP_LISTEN;
	c->port = port;
	c->len = backlog;
	c->user_data = cookie;
}

/*
 * ixu_prep_tcp_accept - fill an IXMOD_OP_TCP_ACCEPT call
 *
 * SYNOPSIS
 *	void ixu_prep_tcp_accept(struct ixmod_call *c, __u64 handle,
 *				 __u64 cookie);
 *
 * DESCRIPTION
 *	Takes the connection an IXMOD_EV_TCP_KNOCK announced (@handle is
 *	the knock's).  @cookie becomes the user_data of every later event
 *	of the connection.  Data that arrived before the accept follows as
 *	IXMOD_EV_TCP_RECV events.
 *
 * RETURN VALUE
 *	No event on success (unless IXMOD_CALL_F_NOTIFY is set in c->flags).
 *	An IXMOD_EV_CALL with -EBADF when the connection died meanwhile
 *	(its IXMOD_EV_TCP_DEAD came with the listener's cookie) or @handle
 *	is not a connection of this context, -EINVAL when it was accepted
 *	already or is not a knock's.  After a failed accept no event names
 *	@cookie again.
 */
static inline void ixu_prep_tcp_accept(struct ixmod_call *c, __u64 handle,
				       __u64 cookie)
{
	c->opcode = IXMOD_OP_TCP_ACCEPT;
	c->handle = handle;
	c->user_data = cookie;
}

/*
 * ixu_prep_tcp_connect - fill an IXMOD_OP_TCP_CONNECT call
 *
 * SYNOPSIS
 *	void ixu_prep_tcp_connect(struct ixmod_call *c, __be32 addr,
 *				  __be16 port, __u64 cookie);
 *	void ixu_prep_tcp_connect6(struct ixmod_call *c, const __u8 *addr6,
 *				   __be16 port, __u64 cookie);
 *
 * DESCRIPTION
 *	Opens a connection to @addr and @port (both in network order, e.g.
 *	from inet_pton() and ixu_htons()) from this context's core.  @cookie becomes
 *	the user_data of every event of the connection.
 *	ixu_prep_tcp_connect6() connects to the 16 bytes at @addr6, an IPv6
 *	address in network order (IXMOD_CALL_F_INET6, @addr 0): the module
 *	must have IXMOD_FEAT_TCP6 and the context must have been set up
 *	with IXMOD_SETUP_INET6.  The source is the port's global or
 *	link-local address, whichever has the peer's scope; the
 *	IXMOD_EV_TCP_CONNECTED has IXMOD_EVF_INET6 (ixu_event_addr6()).
 *
 * RETURN VALUE
 *	Always answered by an IXMOD_EV_CALL: res 0 and the connection's
 *	handle, or -ENETUNREACH, -EADDRNOTAVAIL, -EMFILE, -EINVAL (then no
 *	other event names @cookie).  After a success exactly one
 *	IXMOD_EV_TCP_CONNECTED follows (res 0, or -ECONNREFUSED,
 *	-ETIMEDOUT, followed by an IXMOD_EV_TCP_DEAD).
 */
static inline void ixu_prep_tcp_connect(struct ixmod_call *c, __be32 addr,
					__be16 port, __u64 cookie)
{
	c->opcode = IXMOD_OP_TCP_CONNECT;
	c->addr = addr;
	c->port = port;
	c->user_data = cookie;
}

static inline void ixu_prep_tcp_connect6(struct ixmod_call *c, const __u8 *addr6,
					 __be16 port, __u64 cookie)
{
	c->opcode = IXMOD_OP_TCP_CONNECT;
	c->flags |= IXMOD_CALL_F_INET6;
	memcpy(c->addr6, addr6, sizeof(c->addr6));
	c->port = port;
	c->user_data = cookie;
}

/*
 * ixu_prep_tcp_sendv - fill an IXMOD_OP_TCP_SENDV call
 *
 * SYNOPSIS
 *	void ixu_prep_tcp_sendv(struct ixmod_call *c, __u64 handle,
 *				__u32 iov_off, unsigned int n,
 *				__u64 user_data);
 *
 * DESCRIPTION
 *	Queues data on the connection @handle.  @iov_off is the offset in
 *	the transmit arena of an array of @n (1 to @ixu->info.sendv_max) struct
 *	ixmod_iov, 8-byte aligned, each naming bytes in the arena.  The
 *	kernel copies the array when the call runs, so its area is free
 *	again once the call slot is (ixu_call_index()); the bytes it names
 *	are read until they are acknowledged and must not change before
 *	the IXMOD_EV_TCP_SENT events that cover them.
 *
 * RETURN VALUE
 *	Always answered by an IXMOD_EV_CALL with @user_data: res is the
 *	number of bytes accepted, the first res bytes of the list (0 when
 *	the peer's window is closed; an IXMOD_EV_TCP_SENT with win > 0
 *	follows when it opens), or -EBADF (stale, or closed by the
 *	application), -EINVAL (array or bytes outside the arena, bad
 *	alignment or count), -ENOTCONN (not synchronized yet), -EPIPE (the
 *	connection died; its IXMOD_EV_TCP_DEAD came or comes).  Do not
 *	queue the rest of the data before this answer came: a partial
 *	acceptance would reorder the stream.
 */
static inline void ixu_prep_tcp_sendv(struct ixmod_call *c, __u64 handle,
				      __u32 iov_off, unsigned int n,
				      __u64 user_data)
{
	c->opcode = IXMOD_OP_TCP_SENDV;
	c->handle = handle;
	c->off = iov_off;
	c->len = n;
	c->user_data = user_data;
}

/*
 * ixu_prep_tcp_send - fill an IXMOD_OP_TCP_SEND call
 *
 * SYNOPSIS
 *	void ixu_prep_tcp_send(struct ixmod_call *c, __u64 handle,
 *			       __u32 off, __u32 len, __u64 user_data);
 *
 * DESCRIPTION
 *	Queues the @len bytes at @off in the transmit arena on the
 *	connection @handle: ixu_prep_tcp_sendv() of one buffer, without an
 *	array in the arena.  The bytes are read until they are
 *	acknowledged and must not change before the IXMOD_EV_TCP_SENT
 *	events that cover them.  Needs IXMOD_OP_TCP_SEND's bit in
 *	@ixu->info.ops.
 *
 * RETURN VALUE
 *	As ixu_prep_tcp_sendv(): always answered by an IXMOD_EV_CALL with
 *	@user_data, res the bytes accepted (the first res of the buffer) or
 *	-EBADF, -EINVAL (@len 0, or bytes outside the arena), -ENOTCONN,
 *	-EPIPE.
 */
static inline void ixu_prep_tcp_send(struct ixmod_call *c, __u64 handle,
				     __u32 off, __u32 len, __u64 user_data)
{
	c->opcode = IXMOD_OP_TCP_SEND;
	c->handle = handle;
	c->off = off;
	c->len = len;
	c->user_data = user_data;
}

/*
 * ixu_prep_tcp_recv_done - fill an IXMOD_OP_TCP_RECV_DONE call
 *
 * SYNOPSIS
 *	void ixu_prep_tcp_recv_done(struct ixmod_call *c, __u64 handle,
 *				    __u32 len);
 *
 * DESCRIPTION
 *	Tells the kernel that the application is done with the oldest @len
 *	bytes IXMOD_EV_TCP_RECV events gave it on @handle, in any split of
 *	the events (a part of one, several at once).  Their receive
 *	buffers go back to the core and the receive window reopens by as
 *	much: an application that holds data slows its peer down.
 *
 * RETURN VALUE
 *	No event on success.  An IXMOD_EV_CALL with -EBADF (stale handle,
 *	or closed by the application) or -EINVAL (more bytes than were
 *	given and not yet returned).
 */
static inline void ixu_prep_tcp_recv_done(struct ixmod_call *c, __u64 handle,
					  __u32 len)
{
	c->opcode = IXMOD_OP_TCP_RECV_DONE;
	c->handle = handle;
	c->len = len;
}

/*
 * ixu_prep_tcp_close - fill an IXMOD_OP_TCP_CLOSE call
 *
 * SYNOPSIS
 *	void ixu_prep_tcp_close(struct ixmod_call *c, __u64 handle,
 *				bool abort, __u64 user_data);
 *
 * DESCRIPTION
 *	Closes the connection @handle: gracefully (a FIN after the data
 *	already accepted) or, with @abort, at once with a RST, dropping
 *	unsent data.  No IXMOD_EV_TCP_RECV follows; IXMOD_EV_TCP_SENT
 *	events still come, so the arena can be reused, and then exactly one
 *	IXMOD_EV_TCP_DEAD (none if the connection was told dead before).
 *	Closing a listener's handle stops listening (no IXMOD_EV_TCP_DEAD
 *	for it).  A connection's handle lives until this close, whatever
 *	happened to the connection: close every connection accepted or
 *	opened once, also after its IXMOD_EV_TCP_DEAD (which says the
 *	connection is over, not the handle); the slot is freed then.
 *
 * RETURN VALUE
 *	No event on success.  An IXMOD_EV_CALL with @user_data and -EBADF
 *	for a stale handle, one closed before included.
 */
static inline void ixu_prep_tcp_close(struct ixmod_call *c, __u64 handle,
				      bool abort, __u64 user_data)
{
	c->opcode = IXMOD_OP_TCP_CLOSE;
	c->flags = abort ? IXMOD_CALL_F_ABORT : 0;
	c->handle = handle;
	c->user_data = user_data;
}

/*
 * ixu_prep_tcp_shutdown - fill an IXMOD_OP_TCP_SHUTDOWN call
 *
 * SYNOPSIS
 *	void ixu_prep_tcp_shutdown(struct ixmod_call *c, __u64 handle,
 *				   __u64 user_data);
 *
 * DESCRIPTION
 *	Half-closes the connection @handle, as shutdown(2) with SHUT_WR: a
 *	FIN follows the data already accepted, and the application sends
 *	no more, but it keeps receiving: IXMOD_EV_TCP_RECV events go on
 *	with the peer's data and then its FIN (res 0), IXMOD_EV_TCP_SENT
 *	events for the data in flight, and IXMOD_EV_TCP_DEAD comes once
 *	both directions are over.  The handle lives until
 *	ixu_prep_tcp_close(), which still works as it does without a
 *	shutdown (graceful or @abort).  A shutdown once the FIN is queued
 *	does nothing.  ixu_prep_at() makes it positional: the FIN must
 *	follow that offset.  Needs IXMOD_FEAT_SHUTDOWN.
 *
 * RETURN VALUE
 *	No event on success (unless IXMOD_CALL_F_NOTIFY).  An IXMOD_EV_CALL
 *	with @user_data and -EBADF (stale handle, or closed by the
 *	application), -EINVAL (a listener's handle), -ENOTCONN (not yet
 *	established, or reset before a shutdown) or, positional, -EAGAIN.
 */
static inline void ixu_prep_tcp_shutdown(struct ixmod_call *c, __u64 handle,
					 __u64 user_data)
{
	c->opcode = IXMOD_OP_TCP_SHUTDOWN;
	c->handle = handle;
	c->user_data = user_data;
}

/*
 * ixu_prep_at - make a send, a graceful close or a shutdown positional
 *
 * SYNOPSIS
 *	void ixu_prep_at(struct ixmod_call *c, __u32 pos);
 *
 * DESCRIPTION
 *	Sets IXMOD_CALL_F_POS on a call filled by ixu_prep_tcp_send(),
 *	ixu_prep_tcp_sendv(), ixu_prep_tcp_close() (not an abort) or
 *	ixu_prep_tcp_shutdown(), with
 *	@pos the stream offset it must start at: the bytes the connection's
 *	sends took before it, modulo 2^32.  An application may then keep
 *	several such calls of a connection in flight without hearing of
 *	those that go well.  Needs IXMOD_CALL_F_POS in
 *	@ixu->info.call_flags.
 *
 * RETURN VALUE
 *	A send that took every byte posts no event.  One that took fewer
 *	(0 too) posts its IXMOD_EV_CALL with res the bytes taken; an
 *	IXMOD_EV_TCP_SENT with win above 0 comes when there is room.  A
 *	call whose @pos is not the connection's offset (behind a send that
 *	fell short) does nothing and answers -EAGAIN.  Both events have
 *	in @off the offset the connection's next send must start at; the
 *	other errors are the plain call's.
 */
static inline void ixu_prep_at(struct ixmod_call *c, __u32 pos)
{
	c->flags |= IXMOD_CALL_F_POS;
	c->pos = pos;
}

#ifdef __cplusplus
}
#endif

#endif /* _IXU_H */
