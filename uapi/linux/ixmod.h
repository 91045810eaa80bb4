/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ixmod: protected kernel dataplane for latency-critical servers.
 *
 * This is the whole user/kernel ABI of /dev/ixmod, the only header the
 * module and user space (libixu, applications, tests) share.
 *
 * Rules this header keeps (Documentation/userspace-api/ixmod.rst):
 *  - ioctl numbers are encoded with _IOR/_IOWR and never re-numbered;
 *  - a struct's size never changes (it is encoded in the ioctl number);
 *    new fields are carved out of reserved words under a new feature bit;
 *  - reserved words and unknown flag bits must be zero on input (-EINVAL)
 *    and are zero on output;
 *  - applications test feature bits, not the ABI version.
 *    IXMOD_ABI_VERSION changes only on a deliberate break;
 *  - what a module takes (opcodes, flags, sizes) is reported by
 *    IXMOD_IOC_GET_INFO, not fixed here, so it can grow.
 */
#ifndef _UAPI_LINUX_IXMOD_H
#define _UAPI_LINUX_IXMOD_H

#include <linux/types.h>
#include <linux/ioctl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2: a connection's handle lives until its TCP_CLOSE (was: its TCP_DEAD) */
#define IXMOD_ABI_VERSION	2

/* Path of the character device (a misc device, dynamic minor). */
#define IXMOD_DEV_PATH		"/dev/ixmod"

/*
 * Feature bits, reported in ixmod_info.features and ixmod_setup.features.
 * Applications must ignore bits they do not know.
 *
 * IXMOD_FEAT_RINGS: IXMOD_IOC_SETUP, the four regions, poll() and
 *	IXMOD_IOC_WAKE exist (this header's structs and calls).
 * IXMOD_FEAT_UDP: the UDP calls and events (IXMOD_OP_UDP_*).
 * IXMOD_FEAT_NODROP: a full event ring holds events back instead of
 *	dropping them (IXMOD_RING_OVERFLOW).
 * IXMOD_FEAT_TCP: the TCP calls and events (IXMOD_OP_TCP_*,
 *	IXMOD_EV_TCP_*), struct ixmod_iov and ixmod_event.win.
 * IXMOD_FEAT_RUN: IXMOD_IOC_RUN, the co-located mode.
 * IXMOD_FEAT_HANDLE_KIND: every handle carries its kind
 *	(IXMOD_HANDLE_KIND()); a handle of one kind never names an object
 *	of another.
 * IXMOD_FEAT_LIMITS: ixmod_info reports the opcodes, event types, flags
 *	and limits the module takes (@ops to @backlog_max).
 * IXMOD_FEAT_EVENT_EXT: IXMOD_SETUP_EVENT_EXT, events of 64 bytes
 *	(struct ixmod_event_ext) that carry their object's handle.
 * IXMOD_FEAT_SENT_IN_RECV: IXMOD_SETUP_SENT_IN_RECV, a TCP_RECV that
 *	carries what a TCP_SENT would have (IXMOD_EVF_SENT).
 * IXMOD_FEAT_SHUTDOWN: IXMOD_OP_TCP_SHUTDOWN, the half-close: a FIN
 *	after the data, the connection still receiving.
 * IXMOD_FEAT_INET6: IPv6 peers for UDP: IXMOD_SETUP_INET6,
 *	IXMOD_CALL_F_INET6 on IXMOD_OP_UDP_SEND (ixmod_call.addr6) and
 *	IXMOD_EVF_INET6 on IXMOD_EV_UDP_RECV (ixmod_event_ext.addr6).
 * IXMOD_FEAT_TCP6: and for TCP: IXMOD_CALL_F_INET6 on
 *	IXMOD_OP_TCP_CONNECT, IXMOD_EVF_INET6 on IXMOD_EV_TCP_KNOCK and
 *	IXMOD_EV_TCP_CONNECTED; a listener of an IXMOD_SETUP_INET6 context
 *	takes connections of both families.
 */
#define IXMOD_FEAT_RINGS	(1ULL << 0)
#define IXMOD_FEAT_UDP		(1ULL << 1)
#define IXMOD_FEAT_NODROP	(1ULL << 2)
#define IXMOD_FEAT_TCP		(1ULL << 3)
#define IXMOD_FEAT_RUN		(1ULL << 4)
#define IXMOD_FEAT_HANDLE_KIND	(1ULL << 5)
#define IXMOD_FEAT_LIMITS	(1ULL << 6)
#define IXMOD_FEAT_EVENT_EXT	(1ULL << 7)
#define IXMOD_FEAT_SENT_IN_RECV	(1ULL << 8)
#define IXMOD_FEAT_SHUTDOWN	(1ULL << 9)
#define IXMOD_FEAT_INET6	(1ULL << 10)
#define IXMOD_FEAT_TCP6		(1ULL << 11)

/**
 * struct ixmod_info - answer of IXMOD_IOC_GET_INFO
 * @abi_version: IXMOD_ABI_VERSION of the running module
 * @nr_cores: number of dataplane cores assigned right now
 *	(/sys/kernel/ixmod/cores); 0 means no dataplane is running
 * @features: IXMOD_FEAT_* bits this module supports
 * @nr_cpu_ids: highest possible CPU number plus one, the bound for the
 *	cpulists the sysfs interface accepts
 * @__pad: zero
 * @ops: bit n set: opcode n (IXMOD_OP_*) is taken; others answer
 *	-EOPNOTSUPP
 * @events: bit n set: the module may post event type n (IXMOD_EV_*)
 * @call_flags: the IXMOD_CALL_F_* bits a call may set (others: -EINVAL)
 * @setup_flags: the IXMOD_SETUP_* bits IXMOD_IOC_SETUP takes
 * @ring_entries_max: most entries a ring may have (IXMOD_IOC_SETUP)
 * @txarena_max: most bytes a transmit arena may have
 * @sendv_max: most entries one IXMOD_OP_TCP_SENDV may name
 * @__pad2: zero
 * @backlog_max: largest listen backlog (IXMOD_OP_TCP_LISTEN's @len)
 * @resv: reserved for a future field, zero
 *
 * Every field is written by the kernel; whatever the caller passed in is
 * overwritten, so no stale input can come back.  @ops to @backlog_max
 * are there with IXMOD_FEAT_LIMITS (zero before it).
 */
struct ixmod_info {
	__u32	abi_version;
	__u32	nr_cores;
	__u64	features;
	__u32	nr_cpu_ids;
	__u32	__pad;
	__u64	ops;
	__u32	events;
	__u16	call_flags;
	__u16	setup_flags;
	__u32	ring_entries_max;
	__u32	txarena_max;
	__u16	sendv_max;
	__u16	__pad2;
	__u32	backlog_max;
	__u64	resv;
};

/**
 * struct ixmod_region - where one shared region is mapped
 * @mmap_offset: the offset argument of mmap(2) for this region
 * @size: its length in bytes; mmap(2) must ask for exactly this
 */
struct ixmod_region {
	__u64	mmap_offset;
	__u64	size;
};

/**
 * struct ixmod_ring_offsets - byte offsets of a ring's parts in its region
 * @prod: the producer index (__u32), on its own cache line
 * @cons: the consumer index (__u32), on its own cache line
 * @flags: IXMOD_RING_* (__u32), written only by the kernel
 * @entries: the first entry, cache-line aligned
 * @resv: zero
 */
struct ixmod_ring_offsets {
	__u32	prod;
	__u32	cons;
	__u32	flags;
	__u32	entries;
	__u32	resv[4];
};

/* mmap(2) offsets of the four regions (also returned in ixmod_setup). */
#define IXMOD_OFF_CALL_RING	0x00000000ULL
#define IXMOD_OFF_EVENT_RING	0x10000000ULL
#define IXMOD_OFF_RXBUF		0x20000000ULL
#define IXMOD_OFF_TXARENA	0x30000000ULL

/* Index of each region in ixmod_setup.regions[]. */
enum {
	IXMOD_REGION_CALL_RING,
	IXMOD_REGION_EVENT_RING,
	IXMOD_REGION_RXBUF,
	IXMOD_REGION_TXARENA,
	IXMOD_REGION_NR,
};

/*
 * ixmod_setup.flags.  The sizes an application may ask for are bounded
 * by ixmod_info.ring_entries_max and .txarena_max.
 */
#define IXMOD_SETUP_CLAMP	(1U << 0)	/* clamp sizes above the limits */
#define IXMOD_SETUP_EVENT_EXT	(1U << 1)	/* events are struct ixmod_event_ext */
#define IXMOD_SETUP_SENT_IN_RECV (1U << 2)	/* TCP_RECV may carry a TCP_SENT's bytes */
/*
 * IXMOD_SETUP_INET6: the context takes IPv6 peers (IXMOD_FEAT_INET6);
 * needs IXMOD_SETUP_EVENT_EXT, whose entries carry the 16-byte address.
 * A context without it never sees an IPv6 peer: an IPv6 datagram to a
 * port only it bound is answered as one to an unbound port, an IPv6 SYN
 * to its listener as one to a closed port (RST).
 */
#define IXMOD_SETUP_INET6	(1U << 3)

/**
 * struct ixmod_setup - argument of IXMOD_IOC_SETUP
 * @flags: in: IXMOD_SETUP_*
 * @cpu: in: the dataplane core to attach to (a CPU in .../cores)
 * @call_entries: in: wanted call ring entries (0: the module's default,
 *	256 today); out: the power of two chosen
 * @event_entries: in/out: the same for the event ring
 * @txarena_size: in: wanted transmit arena bytes (0: the module's
 *	default, 1 MiB today); out: the size, a multiple of the page size
 * @rxbuf_size: out: bytes per receive buffer (an event's @off lies in
 *	one; recv_done returns that buffer)
 * @features: out: IXMOD_FEAT_*
 * @regions: out: mmap offset and size of each region, by IXMOD_REGION_*
 * @call_off: out: layout of the call ring region
 * @event_off: out: layout of the event ring region
 * @event_size: out: bytes per event ring entry: sizeof(struct
 *	ixmod_event), or sizeof(struct ixmod_event_ext) with
 *	IXMOD_SETUP_EVENT_EXT (in: zero)
 * @__pad: zero
 * @resv: in: zero; out: zero
 *
 * The application fills @flags, @cpu and the sizes and zeroes the rest;
 * the kernel writes back every field.  On any error nothing is attached.
 */
struct ixmod_setup {
	__u32				flags;
	__u32				cpu;
	__u32				call_entries;
	__u32				event_entries;
	__u32				txarena_size;
	__u32				rxbuf_size;
	__u64				features;
	struct ixmod_region		regions[IXMOD_REGION_NR];
	struct ixmod_ring_offsets	call_off;
	struct ixmod_ring_offsets	event_off;
	__u32				event_size;
	__u32				__pad;
	__u64				resv[3];
};

/*
 * Ring flags (the word at ixmod_ring_offsets.flags), written by the
 * kernel only.
 *
 * IXMOD_RING_NEED_WAKEUP (call ring): the dataplane thread sleeps; after
 *	publishing calls, call IXMOD_IOC_WAKE or poll() (io_uring SQPOLL's
 *	IORING_SQ_NEED_WAKEUP).
 * IXMOD_RING_OVERFLOW (event ring): events are held back because the ring
 *	was full; they follow as soon as the application consumes.
 * IXMOD_RING_DEAD (both): the context lost its core (its port went away);
 *	no more calls are taken; close the file and set up again.
 */
#define IXMOD_RING_NEED_WAKEUP	(1U << 0)
#define IXMOD_RING_OVERFLOW	(1U << 1)
#define IXMOD_RING_DEAD		(1U << 2)

/*
 * Call opcodes.  Each call's unused fields must be zero.  See
 * Documentation/userspace-api/ixmod.rst for each call's errnos.
 */
enum {
	IXMOD_OP_NOP,		/* completes with res 0 */
	IXMOD_OP_UDP_BIND,	/* port; completes with the socket's handle */
	IXMOD_OP_UDP_SEND,	/* handle, off, len, addr, port */
	IXMOD_OP_RECV_DONE,	/* off: a receive buffer back to the kernel */
	IXMOD_OP_UDP_CLOSE,	/* handle */
	IXMOD_OP_TCP_LISTEN,	/* port, len: backlog; completes with a handle */
	IXMOD_OP_TCP_ACCEPT,	/* handle (of a knock); user_data: the cookie */
	IXMOD_OP_TCP_CONNECT,	/* addr, port; completes with a handle */
	IXMOD_OP_TCP_SENDV,	/* handle, off: ixmod_iov array, len: entries */
	IXMOD_OP_TCP_RECV_DONE,	/* handle, len: bytes consumed */
	IXMOD_OP_TCP_CLOSE,	/* handle; IXMOD_CALL_F_ABORT: reset */
	IXMOD_OP_TCP_SEND,	/* handle, off, len: bytes in the arena */
	IXMOD_OP_TCP_SHUTDOWN,	/* handle: FIN after the data, still receiving */
};

/*
 * Handles.  A handle (ixmod_call.handle, ixmod_event.handle) names one
 * object of one kind: bits 24-31 hold its IXMOD_HANDLE_* kind, and a call
 * given a handle of the wrong kind fails with -EBADF and changes nothing.
 * The other bits are the kernel's (a slot and its generation; the first
 * generation is random per core and boot) and mean nothing to
 * applications.  No valid handle is 0.
 */
#define IXMOD_HANDLE_KIND_SHIFT	24
#define IXMOD_HANDLE_KIND(h)	((__u32)((h) >> IXMOD_HANDLE_KIND_SHIFT) & 0xff)

enum {
	IXMOD_HANDLE_NONE,	/* never a valid handle's kind */
	IXMOD_HANDLE_UDP,	/* a UDP socket (UDP_BIND) */
	IXMOD_HANDLE_TCP,	/* a TCP connection (knock, TCP_CONNECT) */
	IXMOD_HANDLE_LISTENER,	/* a TCP listener (TCP_LISTEN) */
};

/* ixmod_call.flags */
#define IXMOD_CALL_F_NOTIFY	(1U << 0)	/* post IXMOD_EV_CALL on success too */
#define IXMOD_CALL_F_ABORT	(1U << 1)	/* TCP_CLOSE only: send RST, drop data */
/*
 * IXMOD_CALL_F_POS: TCP_SEND, TCP_SENDV, a graceful TCP_CLOSE and
 * TCP_SHUTDOWN only.
 * The call's @pos is the stream offset (bytes the connection's sends took
 * before it, modulo 2^32) it expects to start at, so that an application
 * may have several in flight and still learn nothing of a send that went
 * whole.  A call whose @pos is not the connection's offset does nothing
 * and fails with -EAGAIN.  A send takes what fits, as without the flag,
 * but posts no IXMOD_EV_CALL when it took every byte; when it took fewer
 * (0 too) its event's res says how many, and a TCP_SENT with @win above
 * 0 comes when there is room.  The event of such a call that reached an
 * open connection (short, or -EAGAIN) has in @off the offset the
 * connection's next send must start at.
 */
#define IXMOD_CALL_F_POS	(1U << 2)
/*
 * IXMOD_CALL_F_INET6: UDP_SEND and (IXMOD_FEAT_TCP6) TCP_CONNECT, from a
 * context set up with IXMOD_SETUP_INET6.  The destination is the IPv6
 * address in the call's
 * @addr6 (a unicast address: not ::, ::1, multicast or the port's own);
 * @addr must be 0 and @resv4 zero.
 */
#define IXMOD_CALL_F_INET6	(1U << 3)

/**
 * struct ixmod_iov - one piece of the data an IXMOD_OP_TCP_SENDV sends
 * @off: offset of the bytes in the transmit arena
 * @len: their length; 0 is allowed and sends nothing
 *
 * The array of them lies in the transmit arena too (8-byte aligned), at
 * the call's @off.  The kernel copies the array once; the bytes it names
 * are read while TCP sends and retransmits them, so the application must
 * leave them unchanged until IXMOD_EV_TCP_SENT has acknowledged them.
 */
struct ixmod_iov {
	__u32	off;
	__u32	len;
};

/**
 * struct ixmod_call - one call, written by the application
 * @opcode: IXMOD_OP_*
 * @flags: IXMOD_CALL_F_*
 * @resv0: zero
 * @len: UDP_SEND, TCP_SEND: payload bytes; TCP_LISTEN: backlog (1 to
 *	ixmod_info.backlog_max); TCP_SENDV: entries in the ixmod_iov array
 *	(1 to ixmod_info.sendv_max); TCP_RECV_DONE: bytes of the
 *	connection's received data the application is done with
 * @user_data: opaque; echoed in the call's completion or error event.
 *	UDP_BIND: also the cookie of every event of the new socket;
 *	TCP_LISTEN: the cookie of its knock events; TCP_ACCEPT and
 *	TCP_CONNECT: the cookie of every event of the connection
 * @handle: UDP_SEND, UDP_CLOSE: the socket; TCP_ACCEPT: the handle of a
 *	knock; TCP_SENDV, TCP_SEND, TCP_RECV_DONE, TCP_CLOSE, TCP_SHUTDOWN: a
 *	connection (TCP_CLOSE also takes a listener)
 * @off: UDP_SEND: payload offset in the transmit arena; RECV_DONE: the
 *	@off of the IXMOD_EV_UDP_RECV event whose buffer is returned;
 *	TCP_SENDV: offset of the ixmod_iov array in the transmit arena;
 *	TCP_SEND: offset of the bytes in the transmit arena
 * @addr: UDP_SEND, TCP_CONNECT: destination IPv4 address, network order;
 *	0 with IXMOD_CALL_F_INET6
 * @port: UDP_BIND, TCP_LISTEN: local port; UDP_SEND, TCP_CONNECT:
 *	destination port (network order)
 * @resv1: zero
 * @pos: with IXMOD_CALL_F_POS: the stream offset the call expects
 *	(above); otherwise zero
 * @resv3: zero, all 24 bytes, without IXMOD_CALL_F_INET6
 * @addr6: with IXMOD_CALL_F_INET6: UDP_SEND's or TCP_CONNECT's
 *	destination IPv6 address, network order
 * @resv4: zero
 */
struct ixmod_call {
	__u8	opcode;
	__u8	flags;
	__u16	resv0;
	__u32	len;
	__u64	user_data;
	__u64	handle;
	__u32	off;
	__be32	addr;
	__be16	port;
	__u16	resv1;
	__u32	pos;
	union {
		__u64	resv3[3];
		struct {
			__u8	addr6[16];
			__u64	resv4;
		};
	};
};

/* Event types */
enum {
	IXMOD_EV_CALL,		/* a call completed or failed: res, @op */
	IXMOD_EV_UDP_RECV,	/* a datagram: res bytes at off */
	IXMOD_EV_TCP_KNOCK,	/* a connection to a listener: handle, addr, port */
	IXMOD_EV_TCP_CONNECTED,	/* a TCP_CONNECT finished: res 0 or -errno */
	IXMOD_EV_TCP_RECV,	/* res bytes in order at off; res 0: peer's FIN */
	IXMOD_EV_TCP_SENT,	/* res bytes acknowledged, win: bytes sendv takes */
	IXMOD_EV_TCP_DEAD,	/* the connection is gone: res 0 or -errno */
};

/*
 * Event flags (ixmod_event.flags).
 *
 * IXMOD_EVF_SENT: on a TCP_RECV, with IXMOD_SETUP_SENT_IN_RECV: @win
 *	holds bytes newly acknowledged, what a TCP_SENT's res would have
 *	said; no TCP_SENT comes for them.  Not while the application waits
 *	for send space: from a TCP_SENDV that took less than asked until a
 *	TCP_SENT with @win above 0, every acknowledgment comes as a TCP_SENT.
 *	An acknowledgment without data of every byte sent may wait for the
 *	connection's next TCP_RECV, or the context's next event, 10 ms at
 *	most; one that leaves bytes unacknowledged comes at once.
 */
#define IXMOD_EVF_SENT		(1U << 0)
/*
 * IXMOD_EVF_INET6: the event's peer is an IPv6 one (IXMOD_SETUP_INET6
 *	contexts only; on UDP_RECV, TCP_KNOCK and TCP_CONNECTED): @addr is
 *	0 and the extended
 *	event's @addr6 holds the peer's address; @port and @lport are as
 *	for IPv4.
 */
#define IXMOD_EVF_INET6		(1U << 1)

/**
 * struct ixmod_event - one event, written by the kernel
 * @type: IXMOD_EV_*
 * @op: IXMOD_EV_CALL: the call's opcode (as the application wrote it)
 * @flags: IXMOD_EVF_*: IXMOD_EVF_SENT on a TCP_RECV, IXMOD_EVF_INET6 on
 *	a UDP_RECV, TCP_KNOCK or TCP_CONNECTED of an IPv6 peer; else zero
 * @res: IXMOD_EV_CALL: 0, a byte count or -errno; UDP_RECV, TCP_RECV:
 *	payload bytes; TCP_SENT: bytes newly acknowledged; TCP_CONNECTED,
 *	TCP_DEAD: 0 or -errno
 * @user_data: IXMOD_EV_CALL: the call's user_data; UDP_RECV: the
 *	socket's cookie (the user_data of its UDP_BIND); TCP_KNOCK: the
 *	listener's cookie; other TCP events: the connection's cookie
 * @handle: IXMOD_EV_CALL of UDP_BIND, TCP_LISTEN, TCP_CONNECT: the new
 *	handle; TCP_KNOCK, TCP_CONNECTED, TCP_DEAD: the connection
 * @off: UDP_RECV, TCP_RECV: payload offset in the receive region
 *	(read-only); return a datagram's buffer with IXMOD_OP_RECV_DONE and
 *	TCP bytes with IXMOD_OP_TCP_RECV_DONE; IXMOD_EV_CALL of a call with
 *	IXMOD_CALL_F_POS: the stream offset the connection's next send
 *	must start at
 * @win: TCP_SENT: bytes a TCP_SENDV would accept now; TCP_RECV with
 *	IXMOD_EVF_SENT: bytes newly acknowledged; otherwise zero
 * @addr: UDP_RECV, TCP_KNOCK: source IPv4 address, network order;
 *	TCP_CONNECTED: the remote address; 0 with IXMOD_EVF_INET6
 * @port: UDP_RECV, TCP_KNOCK: source port, network order;
 *	TCP_CONNECTED: the remote port
 * @lport: UDP_RECV, TCP_KNOCK: destination (local) port, network order;
 *	TCP_CONNECTED: the local port the connection was given
 *
 * @handle and @off/@win share their bytes: which holds depends on @type.
 */
struct ixmod_event {
	__u8	type;
	__u8	op;
	__u16	flags;
	__s32	res;
	__u64	user_data;
	union {
		__u64	handle;
		struct {
			__u32	off;
			__u32	win;
		};
	};
	__be32	addr;
	__be16	port;
	__be16	lport;
};

/**
 * struct ixmod_event_ext - an event ring entry with IXMOD_SETUP_EVENT_EXT
 * @ev: the event, as without the flag
 * @handle: the object the event is about, for every type: EV_CALL: the
 *	call's handle, or the new one of a successful UDP_BIND, TCP_LISTEN
 *	or TCP_CONNECT (0 for calls that take none); UDP_RECV: the socket;
 *	TCP_KNOCK: the new connection; TCP_CONNECTED, TCP_RECV, TCP_SENT,
 *	TCP_DEAD: the connection
 * @resv: zero, all 24 bytes, without IXMOD_EVF_INET6; later fields
 *	come here, each under a feature bit
 * @addr6: with IXMOD_EVF_INET6 (IXMOD_FEAT_INET6): the peer's IPv6
 *	address, network order (UDP_RECV: the source; TCP_KNOCK,
 *	TCP_CONNECTED: the remote address)
 * @resv2: zero
 *
 * The entries are 64 bytes apart (ixmod_setup.event_size); @ev keeps its
 * layout, so code that reads 32-byte events reads @ev unchanged.
 */
struct ixmod_event_ext {
	struct ixmod_event	ev;
	__u64			handle;
	union {
		__u64		resv[3];
		struct {
			__u8	addr6[16];
			__u64	resv2;
		};
	};
};

/**
 * struct ixmod_run - argument of IXMOD_IOC_RUN
 * @min_events: in: return once the event ring holds this many events
 *	(0 means 1)
 * @flags: in: zero
 * @timeout_ns: in: return -ETIME after this long without @min_events
 *	(0: one iteration; ~0: no bound)
 * @iterations: in: zero; out: iterations of the loop the call ran
 * @resv: in: zero
 */
struct ixmod_run {
	__u32	min_events;
	__u32	flags;
	__u64	timeout_ns;
	__u64	iterations;
	__u64	resv[2];
};

/*
 * ioctl type 0xE1 ('\xe1'), commands 0x00-0x3f; registered in
 * Documentation/userspace-api/ixmod.rst (the kernel's ioctl-number.rst has
 * no user of 0xE1).  Unknown commands return -ENOTTY.
 */
#define IXMOD_IOC_MAGIC		0xE1

/* Query ABI version and features; needs no setup; any open file may ask. */
#define IXMOD_IOC_GET_INFO	_IOR(IXMOD_IOC_MAGIC, 0x00, struct ixmod_info)
/* Attach this file to a dataplane core; once per file. */
#define IXMOD_IOC_SETUP		_IOWR(IXMOD_IOC_MAGIC, 0x01, struct ixmod_setup)
/* Wake the dataplane thread (after it set IXMOD_RING_NEED_WAKEUP). */
#define IXMOD_IOC_WAKE		_IO(IXMOD_IOC_MAGIC, 0x02)
/*
 * Run the context's core's loop in this thread (the co-located mode): the
 * thread must be bound to that CPU alone.  See struct ixmod_run.
 */
#define IXMOD_IOC_RUN		_IOWR(IXMOD_IOC_MAGIC, 0x03, struct ixmod_run)

#ifdef __cplusplus
}
#endif

#endif /* _UAPI_LINUX_IXMOD_H */
