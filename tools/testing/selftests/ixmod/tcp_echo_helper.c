// SPDX-License-Identifier: MIT
/*
 * tcp_echo_helper - the test modes of the TCP selftests, on libixu's raw
 * rings: echo, sink, source, hold and a checking client
 *
 * libixu/examples/tcp-echo is the echo server as an application writes
 * it, on the event layer (ixev.h); this program keeps the rings' own
 * bookkeeping (a transmit ring per connection, orphans, cookies with
 * generations) and the modes the tests need.  It prints "tcp-echo: ..."
 * lines, as the tests expect from both.
 *
 *   tcp-echo [-p PORT] [-c CPULIST] [-b BACKLOG] [-C] [-q]	echo server
 *   tcp-echo --sink [-p PORT] ...			count and checksum
 *   tcp-echo --source BYTES [-p PORT] ...		send a pattern
 *   tcp-echo --hold [-p PORT] ...			keep every byte received
 *   tcp-echo --connect IP:PORT [--conns N] [--bytes B] [--repeat R] [--rst]
 *
 * One thread per dataplane core (-c, default: every core in
 * /sys/kernel/ixmod/cores), each with its own handle attached to its core;
 * with -C (--colocated) each thread runs its core's loop itself
 * (IXU_MODE_COLOCATED) instead of the core's kernel thread.
 * A server listens on PORT (default 7) on every core: RSS sends each flow
 * to one core, and the core's thread serves it.
 *
 * Modes:
 *   echo (default)  sends every byte back.  Received bytes are copied from
 *	the read-only receive region into the connection's ring in the
 *	transmit arena and queued with sendv; recv_done returns them only
 *	once copied, so a peer that does not read its echo fills the ring
 *	and then its own send window closes (backpressure).  The connection
 *	is closed once the peer's FIN arrived and every byte was echoed and
 *	acknowledged.
 *   --sink  counts the bytes and computes their CRC-32 (zlib's), prints
 *	"tcp-echo: conn N BYTES bytes crc XXXXXXXX" at the peer's FIN, closes.
 *   --source BYTES  sends BYTES bytes of the pattern (pattern_byte()) on
 *	each accepted connection, then closes; what the peer sends is
 *	counted and dropped.
 *   --hold  accepts connections and never gives a received byte back
 *	(no recv_done): the kernel keeps every buffer, so its window
 *	closes.  Prints "tcp-echo: conn N holds BYTES bytes" as they come.
 *	Its context outlives its port: a thread that lost its port says so
 *	and waits for SIGINT before it closes the context (a test closes it
 *	after the port came back).
 *   --connect IP:PORT  opens --conns N connections (default 1; shared out
 *	among the threads), sends --bytes B (default 65536) pattern bytes
 *	on each, checks the echo byte for byte, closes gracefully (--rst:
 *	with a RST) and does it --repeat R times.  Prints
 *	"tcp-echo: client OK/TOTAL ok, BAD bad"; exit status 0 only if every
 *	connection was verified.
 *
 * Servers print "tcp-echo: ready on port P, N cores" once every thread
 * listens.  SIGINT or SIGTERM stops every mode, with a summary line per
 * core (unless -q) and a total.  A thread whose port went away (PCI
 * removal; its context is dead) says "tcp-echo: cpu N lost its port" and
 * stops; the exit status is then 1.
 *
 * The structure every mode shares: events only change a connection's
 * state and mark it dirty; flush() then turns the state of the dirty
 * connections into calls, as far as call ring room allows.  So events are
 * always consumed (the dataplane needs event slots to run calls) and no
 * handler ever waits for a call slot.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ixu.h"

#define MAX_THREADS	64
#define MAX_CONNS	256		/* connections per thread */
#define CONN_BUF	(64 * 1024)	/* each one's transmit ring in the arena */
#define CALL_ENTRIES	512
#define EVENT_ENTRIES	2048
#define ORPHAN_MAX	256		/* handles without a slot, to close */

/*
 * The transmit arena: one pair of struct ixmod_iov per call slot (the
 * kernel copies a sendv's array when it runs the call, so the pair is
 * free again when the slot is: ixu_call_index()), then one CONN_BUF ring
 * per connection slot.
 */
#define IOV_PAIR	(2 * sizeof(struct ixmod_iov))
#define IOV_AREA	(CALL_ENTRIES * IOV_PAIR)
#define RING_OFF(i)	(IOV_AREA + (i) * CONN_BUF)
#define ARENA_SIZE	RING_OFF(MAX_CONNS)

/* Calls one connection's flush issues at most: accept, recv_done, sendv, close. */
#define CALLS_PER_FLUSH	4

/*
 * Cookies (user_data): a connection's is its slot index in the low 32
 * bits and the slot's generation (never 0) in the high 32, so an event
 * that arrives after the slot was freed, or reused, is recognised.  The
 * small values below are never a connection's.
 */
#define LISTEN_COOKIE	1
#define ORPHAN_COOKIE	2

enum mode { MODE_ECHO, MODE_SINK, MODE_SOURCE, MODE_CLIENT, MODE_HOLD };

/* Where a connection is, as far as the application is concerned. */
enum conn_state {
	C_FREE,
	C_ACCEPT,	/* knocked: flush() accepts it */
	C_CONNECT,	/* client: flush() connects it */
	C_CONNECTING,	/* client: waiting for IXMOD_EV_TCP_CONNECTED */
	C_OPEN,		/* data flows */
	C_CLOSED,	/* TCP_CLOSE queued: waiting for IXMOD_EV_TCP_DEAD */
};

/*
 * A handle the kernel still has a connection for, but no slot holds: a
 * knock that found every slot taken (refused: accepted and reset), or a
 * dead connection whose received bytes were not all given back (the
 * kernel keeps it until they are: closing it returns them).
 */
struct orphan {
	__u64	handle;
	bool	knock;
};

/* Received bytes not yet copied out (echo mode). */
struct rxseg {
	__u32	off;
	__u32	len;
};

struct conn {
	enum conn_state	state;
	__u32		gen;
	unsigned int	id;		/* process-wide number, for messages */
	bool		dirty;		/* on the worker's dirty list */
	__u64		handle;

	/* Transmit: byte counts since the start, positions in the ring. */
	__u64		tx_total;	/* source, client: bytes to send in all */
	__u64		tx_fill;	/* written into the ring */
	__u64		tx_queued;	/* accepted by sendv */
	__u64		tx_acked;	/* acknowledged (TCP_SENT) */
	__u32		sendv_len;	/* bytes of the sendv in flight, 0: none */
	bool		win_wait;	/* sendv took less: wait for TCP_SENT */

	/* Receive. */
	__u64		rx_bytes;	/* bytes TCP_RECV gave */
	__u32		rx_owed;	/* consumed, recv_done not yet queued */
	__u64		rx_returned;	/* given back with recv_done */
	__u32		crc;		/* sink: running CRC-32 state */
	struct rxseg	*rxq;		/* echo: a FIFO of segments to copy */
	unsigned int	rxq_head;
	unsigned int	rxq_len;
	unsigned int	rxq_cap;
	__u32		rx_skip;	/* bytes of the first one copied already */
	bool		eof;		/* the peer's FIN arrived */

	bool		failed;		/* give up: close with a RST */
	bool		bad;		/* client: a byte differed */
};

struct worker {
	pthread_t	tid;
	unsigned int	cpu;
	int		err;
	struct ixu	ixu;
	__u64		listener;
	bool		done;		/* client: every round finished */
	bool		lost;		/* the context died with its port */

	struct conn	conns[MAX_CONNS];
	unsigned int	live;		/* slots not free */
	unsigned short	dirty[MAX_CONNS];
	unsigned int	ndirty;
	struct orphan	orphans[ORPHAN_MAX];
	unsigned int	norphans;
	unsigned int	queued;		/* calls queued since the last submit */

	/* client */
	unsigned int	share;		/* connections per round */
	unsigned int	started;	/* of this round */
	unsigned int	round;

	/* counters */
	unsigned long	conns_opened;
	unsigned long	refused;	/* knocks with no slot free */
	unsigned long	resets;
	unsigned long	errors;		/* failed calls, unexpected events */
	unsigned long	unknown;	/* event types this program does not know */
	unsigned long	late;		/* events of connections already freed */
	unsigned long long bytes_in;
	unsigned long long bytes_out;
	unsigned long	ok;		/* client: verified connections */
	unsigned long	bad;		/* client: failed connections */
};

static struct {
	enum mode	mode;
	unsigned short	port;		/* server: listen; client: connect to */
	unsigned int	backlog;
	__be32		addr;		/* client */
	unsigned int	conns;
	unsigned long long bytes;	/* client: per connection; source: too */
	unsigned int	repeat;
	bool		rst;
	bool		quiet;
	unsigned int	run_mode;	/* IXU_MODE_* (-C: co-located) */
} opt = {
	.mode = MODE_ECHO, .port = 7, .backlog = 128, .conns = 1,
	.bytes = 65536, .repeat = 1,
};

static int stop;	/* set by the signal handler */
static unsigned int next_id;
static pthread_barrier_t ready;

static void on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

static bool stopping(void)
{
	return __atomic_load_n(&stop, __ATOMIC_RELAXED);
}

/*
 * The pattern --source and the client send: byte i of the stream is
 * (i * 131 + (i >> 11)) & 0xff.  131 is odd, so within a 2 KiB block
 * any 256 consecutive bytes hold every value once; the i >> 11 term
 * shifts each 2 KiB block by one more, so the pattern repeats only every
 * 512 KiB: bytes delivered at a wrong stream offset match only if the
 * error is a multiple of 512 KiB (without it, any multiple of 256 would).
 */
static unsigned char pattern_byte(__u64 i)
{
	return (i * 131 + (i >> 11)) & 0xff;
}

/*
 * One period of the pattern, for a source to copy from: computed a byte
 * at a time, 32 MB of it took CPU time from the VM's cores, which the
 * stacks test_tcp_07 compares share.
 */
#define PATTERN_PERIOD	(512 * 1024)
static unsigned char pattern[PATTERN_PERIOD];

static void pattern_init(void)
{
	__u32 i;

	for (i = 0; i < PATTERN_PERIOD; i++)
		pattern[i] = pattern_byte(i);
}

/* CRC-32 as zlib's crc32() computes it (reflected, polynomial 0xedb88320). */
static __u32 crc_table[256];

static void crc_init(void)
{
	__u32 i, k, c;

	for (i = 0; i < 256; i++) {
		for (c = i, k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static __u32 crc_update(__u32 crc, const unsigned char *p, __u32 len)
{
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/* ---- connection slots ---- */

static __u64 conn_cookie(const struct worker *w, const struct conn *c)
{
	return (__u64)c->gen << 32 | (__u64)(c - w->conns);
}

/* The connection a cookie names, or NULL if it is not (or no longer) one. */
static struct conn *conn_of(struct worker *w, __u64 cookie)
{
	__u32 idx = cookie & 0xffffffff;
	struct conn *c;

	if (idx >= MAX_CONNS)
		return NULL;
	c = &w->conns[idx];
	if (c->state == C_FREE || c->gen != cookie >> 32)
		return NULL;
	return c;
}

static struct conn *conn_alloc(struct worker *w)
{
	struct conn *c;
	__u32 gen;
	bool dirty;

	for (c = w->conns; c < w->conns + MAX_CONNS; c++) {
		if (c->state != C_FREE)
			continue;
		/* a freed slot may still sit on the dirty list: keep the flag */
		gen = c->gen;
		dirty = c->dirty;
		memset(c, 0, sizeof(*c));
		c->gen = gen;
		c->dirty = dirty;
		c->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
		c->crc = 0xffffffff;
		w->live++;
		return c;
	}
	return NULL;
}

/* Only on IXMOD_EV_TCP_DEAD, or when the call that was to open it failed. */
static void conn_free(struct worker *w, struct conn *c)
{
	free(c->rxq);
	c->rxq = NULL;
	c->state = C_FREE;
	if (++c->gen == 0)	/* never 0, so no cookie is below 2^32 */
		c->gen = 1;
	w->live--;
}

static void mark_dirty(struct worker *w, struct conn *c)
{
	if (c->dirty)
		return;
	c->dirty = true;
	w->dirty[w->ndirty++] = c - w->conns;
}

/* ---- the transmit ring of a connection ---- */

static unsigned char *ring(struct worker *w, struct conn *c)
{
	return ixu_tx_ptr(&w->ixu, RING_OFF(c - w->conns));
}

/* Bytes that may be written: what is not waiting for an acknowledgment. */
static __u32 ring_room(const struct conn *c)
{
	return CONN_BUF - (__u32)(c->tx_fill - c->tx_acked);
}

static void ring_write(struct worker *w, struct conn *c, const unsigned char *src,
		       __u32 len)
{
	__u32 pos = c->tx_fill % CONN_BUF;
	__u32 first = len < CONN_BUF - pos ? len : CONN_BUF - pos;

	memcpy(ring(w, c) + pos, src, first);
	memcpy(ring(w, c), src + first, len - first);
	c->tx_fill += len;
}

/* Source and client: write the next pattern bytes as room allows. */
static void fill_pattern(struct worker *w, struct conn *c)
{
	__u32 n = ring_room(c), off, k;

	if (n > c->tx_total - c->tx_fill)
		n = c->tx_total - c->tx_fill;
	while (n) {
		off = c->tx_fill % PATTERN_PERIOD;
		k = n < PATTERN_PERIOD - off ? n : PATTERN_PERIOD - off;
		ring_write(w, c, pattern + off, k);
		n -= k;
	}
}

/* Echo: copy received segments into the ring as room allows. */
static void fill_echo(struct worker *w, struct conn *c)
{
	while (c->rxq_len) {
		struct rxseg *s = &c->rxq[c->rxq_head];
		__u32 n = s->len - c->rx_skip;

		if (n > ring_room(c))
			n = ring_room(c);
		if (!n)
			return;		/* full: the peer must read first */
		ring_write(w, c, ixu_rx_ptr(&w->ixu, s->off + c->rx_skip), n);
		c->rx_skip += n;
		c->rx_owed += n;	/* only now may the kernel have it back */
		if (c->rx_skip == s->len) {
			c->rx_skip = 0;
			c->rxq_head = (c->rxq_head + 1) % c->rxq_cap;
			c->rxq_len--;
		}
	}
}

/* Echo: remember a received segment until it is copied. */
static bool rxq_push(struct conn *c, __u32 off, __u32 len)
{
	if (c->rxq_len == c->rxq_cap) {
		unsigned int cap = c->rxq_cap ? 2 * c->rxq_cap : 16, i;
		struct rxseg *q = malloc(cap * sizeof(*q));

		if (!q)
			return false;
		for (i = 0; i < c->rxq_len; i++)
			q[i] = c->rxq[(c->rxq_head + i) % c->rxq_cap];
		free(c->rxq);
		c->rxq = q;
		c->rxq_cap = cap;
		c->rxq_head = 0;
	}
	c->rxq[(c->rxq_head + c->rxq_len) % c->rxq_cap] = (struct rxseg){ off, len };
	c->rxq_len++;
	return true;
}

/* ---- flush: connection state to calls ---- */

/*
 * The next call entry.  Never NULL here: flush() checked the room first
 * (ixu_call_space()), and only flush() and the listen at start-up queue
 * calls.
 */
static struct ixmod_call *next_call(struct worker *w)
{
	w->queued++;
	return ixu_call_get(&w->ixu);
}

/*
 * Queue a sendv for everything written and not yet accepted, unless one is
 * in flight (its answer says how much it took: queuing more before would
 * reorder the stream if it took less) or the window is closed.
 */
static void conn_sendv(struct worker *w, struct conn *c)
{
	__u32 unsent = c->tx_fill - c->tx_queued;
	__u32 pos = c->tx_queued % CONN_BUF;
	struct ixmod_call *call;
	struct ixmod_iov *iov;
	__u32 iov_off;
	unsigned int n = 1;

	if (!unsent || c->sendv_len || c->win_wait)
		return;
	call = next_call(w);
	iov_off = ixu_call_index(&w->ixu, call) * IOV_PAIR;
	iov = ixu_tx_ptr(&w->ixu, iov_off);
	iov[0].off = RING_OFF(c - w->conns) + pos;
	iov[0].len = unsent < CONN_BUF - pos ? unsent : CONN_BUF - pos;
	if (iov[0].len < unsent) {	/* the ring wraps */
		iov[1].off = RING_OFF(c - w->conns);
		iov[1].len = unsent - iov[0].len;
		n = 2;
	}
	ixu_prep_tcp_sendv(call, c->handle, iov_off, n, conn_cookie(w, c));
	c->sendv_len = unsent;
}

/* Whether this mode is done with the connection and closes it now. */
static bool conn_finished(const struct conn *c)
{
	if (c->failed)
		return true;
	switch (opt.mode) {
	case MODE_ECHO:
		return c->eof && !c->rxq_len && !c->sendv_len &&
		       c->tx_acked == c->tx_fill;
	case MODE_SINK:
		return c->eof;
	case MODE_SOURCE:
		return c->tx_queued == c->tx_total;
	case MODE_HOLD:
		return false;
	case MODE_CLIENT:	/* all sent, acknowledged and echoed */
		return c->bad || c->eof ||
		       (c->rx_bytes >= c->tx_total && c->tx_acked == c->tx_total);
	}
	return false;
}

static void conn_flush(struct worker *w, struct conn *c)
{
	__u64 cookie = conn_cookie(w, c);

	switch (c->state) {
	case C_ACCEPT:
		ixu_prep_tcp_accept(next_call(w), c->handle, cookie);
		c->state = C_OPEN;	/* established already: it knocked */
		break;
	case C_CONNECT:
		ixu_prep_tcp_connect(next_call(w), opt.addr, ixu_htons(opt.port), cookie);
		c->state = C_CONNECTING;
		return;
	case C_OPEN:
		break;
	default:
		return;
	}

	if (opt.mode == MODE_ECHO)
		fill_echo(w, c);
	else if (opt.mode == MODE_SOURCE || opt.mode == MODE_CLIENT)
		fill_pattern(w, c);
	if (c->rx_owed) {
		ixu_prep_tcp_recv_done(next_call(w), c->handle, c->rx_owed);
		c->rx_returned += c->rx_owed;
		c->rx_owed = 0;
	}
	if (!c->failed)
		conn_sendv(w, c);
	if (conn_finished(c)) {
		ixu_prep_tcp_close(next_call(w), c->handle,
				   c->failed || (opt.mode == MODE_CLIENT && opt.rst),
				   cookie);
		c->state = C_CLOSED;
	}
}

/*
 * Close the orphans.  A refused knock is accepted with a cookie of its own
 * and reset at once; its IXMOD_EV_TCP_DEAD comes with ORPHAN_COOKIE.
 */
static void flush_orphans(struct worker *w)
{
	while (w->norphans && ixu_call_space(&w->ixu) >= 2) {
		struct orphan *o = &w->orphans[--w->norphans];

		if (o->knock)
			ixu_prep_tcp_accept(next_call(w), o->handle, ORPHAN_COOKIE);
		ixu_prep_tcp_close(next_call(w), o->handle, o->knock, ORPHAN_COOKIE);
	}
}

static void add_orphan(struct worker *w, __u64 handle, bool knock)
{
	if (w->norphans == ORPHAN_MAX) {
		w->errors++;	/* left to the kernel until the context closes */
		return;
	}
	w->orphans[w->norphans++] = (struct orphan){ handle, knock };
}

/* Turn dirty connections into calls while the call ring has room. */
static void flush(struct worker *w)
{
	unsigned int i = 0;

	flush_orphans(w);
	while (i < w->ndirty && ixu_call_space(&w->ixu) >= CALLS_PER_FLUSH) {
		struct conn *c = &w->conns[w->dirty[i++]];

		c->dirty = false;
		conn_flush(w, c);	/* nothing for a slot freed meanwhile */
	}
	memmove(w->dirty, w->dirty + i, (w->ndirty - i) * sizeof(w->dirty[0]));
	w->ndirty -= i;
}

/* ---- events: they change state and mark connections dirty ---- */

static void on_knock(struct worker *w, const struct ixmod_event *e)
{
	struct conn *c = conn_alloc(w);

	if (!c) {
		w->refused++;
		add_orphan(w, e->handle, true);
		return;
	}
	c->handle = e->handle;
	c->state = C_ACCEPT;
	if (opt.mode == MODE_SOURCE)
		c->tx_total = opt.bytes;
	w->conns_opened++;
	mark_dirty(w, c);
}

static void on_call(struct worker *w, struct conn *c, const struct ixmod_event *e)
{
	switch (e->op) {
	case IXMOD_OP_TCP_SENDV:
		if (e->res < 0) {
			w->errors++;
			c->failed = true;
		} else {
			if ((__u32)e->res < c->sendv_len)
				c->win_wait = true;	/* a TCP_SENT says when to retry */
			c->tx_queued += e->res;
		}
		c->sendv_len = 0;
		break;
	case IXMOD_OP_TCP_CONNECT:
		if (e->res < 0) {	/* no connection: no other event comes */
			fprintf(stderr, "tcp-echo: conn %u: connect: %s\n", c->id,
				strerror(-e->res));
			w->bad++;
			conn_free(w, c);
			break;
		}
		c->handle = e->handle;
		w->conns_opened++;
		break;
	case IXMOD_OP_TCP_ACCEPT:
		/*
		 * -EBADF: it died before the accept ran (its DEAD came with
		 * the listener's cookie).  No other event names this cookie.
		 */
		if (e->res != -EBADF)
			w->errors++;
		conn_free(w, c);
		break;
	default:			/* recv_done, close: cannot fail here */
		w->errors++;
		c->failed = true;
		break;
	}
}

static void on_recv(struct worker *w, struct conn *c, const struct ixmod_event *e)
{
	const unsigned char *p = ixu_rx_ptr(&w->ixu, e->off);
	__u32 i;

	if (e->res == 0) {	/* the peer's FIN: the end of its stream */
		c->eof = true;
		if (opt.mode == MODE_SINK)
			printf("tcp-echo: conn %u %llu bytes crc %08x\n", c->id,
			       (unsigned long long)c->rx_bytes, ~c->crc);
		return;
	}
	w->bytes_in += e->res;
	switch (opt.mode) {
	case MODE_ECHO:
		if (!rxq_push(c, e->off, e->res))
			c->failed = true;
		break;
	case MODE_SINK:
		c->crc = crc_update(c->crc, p, e->res);
		c->rx_owed += e->res;
		break;
	case MODE_SOURCE:
		c->rx_owed += e->res;	/* dropped */
		break;
	case MODE_HOLD:			/* kept: never returned */
		printf("tcp-echo: conn %u holds %llu bytes\n", c->id,
		       (unsigned long long)(c->rx_bytes + e->res));
		break;
	case MODE_CLIENT:
		for (i = 0; i < (__u32)e->res && !c->bad; i++) {
			if (p[i] != pattern_byte(c->rx_bytes + i) ||
			    c->rx_bytes + i >= c->tx_total) {
				fprintf(stderr, "tcp-echo: conn %u: byte %llu differs\n",
					c->id, (unsigned long long)(c->rx_bytes + i));
				c->bad = true;
			}
		}
		c->rx_owed += e->res;
		break;
	}
	c->rx_bytes += e->res;
}

static void on_dead(struct worker *w, struct conn *c, const struct ixmod_event *e)
{
	if (e->res == -ECONNRESET)
		w->resets++;
	/* the handle lives until we close it (ABI 2): close it, bytes held too */
	if (c->state != C_CLOSED)
		add_orphan(w, c->handle, false);
	if (opt.mode == MODE_CLIENT) {
		bool ok = !c->bad && !c->failed && c->rx_bytes == c->tx_total &&
			  c->tx_acked == c->tx_total &&
			  e->res == (opt.rst ? -ECONNABORTED : 0);

		if (ok) {
			w->ok++;
		} else {
			w->bad++;
			fprintf(stderr, "tcp-echo: conn %u: %llu of %llu bytes echoed%s, %s\n",
				c->id, (unsigned long long)c->rx_bytes,
				(unsigned long long)c->tx_total, c->bad ? " (wrong)" : "",
				e->res ? strerror(-e->res) : "closed");
		}
	}
	conn_free(w, c);
}

static void on_event(struct worker *w, const struct ixmod_event *e)
{
	struct conn *c;

	if (e->type == IXMOD_EV_TCP_KNOCK && e->user_data == LISTEN_COOKIE) {
		on_knock(w, e);
		return;
	}
	if (e->user_data == LISTEN_COOKIE || e->user_data == ORPHAN_COOKIE) {
		/*
		 * A knock that died before its accept (DEAD), an orphan's
		 * DEAD, or the error of an orphan's call (it was gone).
		 */
		if (e->type != IXMOD_EV_TCP_DEAD && e->type != IXMOD_EV_CALL)
			w->errors++;
		return;
	}
	if (e->type > IXMOD_EV_TCP_DEAD) {	/* a type this program does not know */
		w->unknown++;
		return;
	}
	c = conn_of(w, e->user_data);
	if (!c) {		/* e.g. a call's error posted after its DEAD */
		w->late++;
		return;
	}
	switch (e->type) {
	case IXMOD_EV_CALL:
		on_call(w, c, e);
		break;
	case IXMOD_EV_TCP_CONNECTED:
		if (e->res < 0)
			c->failed = true;	/* a TCP_DEAD follows */
		else if (c->state == C_CONNECTING)
			c->state = C_OPEN;
		break;
	case IXMOD_EV_TCP_RECV:
		on_recv(w, c, e);
		break;
	case IXMOD_EV_TCP_SENT:
		c->tx_acked += e->res;
		w->bytes_out += e->res;
		if (e->win)
			c->win_wait = false;
		break;
	case IXMOD_EV_TCP_DEAD:
		on_dead(w, c, e);
		return;
	default:		/* UDP_RECV, KNOCK: not for a connection */
		w->errors++;
		return;
	}
	if (c->state != C_FREE)
		mark_dirty(w, c);
}

/* Consume every waiting event; returns how many. */
static unsigned int handle_events(struct worker *w)
{
	const struct ixmod_event *e;
	unsigned int n = 0;

	while ((e = ixu_event_peek(&w->ixu, n))) {
		on_event(w, e);
		n++;
	}
	if (n)
		ixu_event_advance(&w->ixu, n);
	return n;
}

/* Client: open this round's connections, or start the next round. */
static void client_start(struct worker *w)
{
	struct conn *c;

	if (w->started == w->share) {
		if (w->live)
			return;		/* the round is still running */
		if (++w->round == opt.repeat) {
			w->done = true;
			return;
		}
		w->started = 0;
	}
	while (w->started < w->share && (c = conn_alloc(w))) {
		c->state = C_CONNECT;
		c->tx_total = opt.bytes;
		w->started++;
		mark_dirty(w, c);
	}
}

/* Listen on the core and wait for the answer, which carries the handle. */
static int listen_on_core(struct worker *w)
{
	const struct ixmod_event *e;
	int ret;

	ixu_prep_tcp_listen(next_call(w), ixu_htons(opt.port), opt.backlog, LISTEN_COOKIE);
	ixu_call_submit(&w->ixu);
	w->queued = 0;
	while (!(e = ixu_event_peek(&w->ixu, 0))) {
		if (stopping())
			return -EINTR;
		ixu_wait(&w->ixu, 1000);
	}
	ret = e->type == IXMOD_EV_CALL && e->op == IXMOD_OP_TCP_LISTEN ? e->res : -EPROTO;
	w->listener = e->handle;
	ixu_event_advance(&w->ixu, 1);
	return ret;
}

static int worker_setup(struct worker *w)
{
	struct ixu_params prm = { .call_entries = CALL_ENTRIES,
				  .event_entries = EVENT_ENTRIES,
				  .txarena_size = ARENA_SIZE, .mode = opt.run_mode };
	unsigned int i;
	int ret;

	for (i = 0; i < MAX_CONNS; i++)
		w->conns[i].gen = 1;
	ret = ixu_open(&w->ixu, 0);
	if (ret)
		return ret;
	if (!ixu_has_feature(&w->ixu, IXMOD_FEAT_TCP))
		return -EOPNOTSUPP;
	ret = ixu_attach(&w->ixu, w->cpu, &prm);
	if (ret)
		return ret;
	if (w->ixu.setup.call_entries != CALL_ENTRIES)
		return -EINVAL;		/* the iov pairs assume this size */
	if (opt.mode == MODE_CLIENT)
		return 0;
	return listen_on_core(w);
}

static void *serve(void *arg)
{
	struct worker *w = arg;
	int ret;

	w->err = worker_setup(w);
	pthread_barrier_wait(&ready);
	if (w->err) {
		ixu_close(&w->ixu);
		return NULL;
	}
	while (!stopping() && !w->done) {
		handle_events(w);
		if (opt.mode == MODE_CLIENT)
			client_start(w);
		flush(w);
		if (w->queued || w->ndirty) {
			/* calls queued, or more to queue once there is room */
			ixu_call_submit(&w->ixu);
			w->queued = 0;
			continue;
		}
		ret = ixu_wait(&w->ixu, 200);
		if (ret == -ENETDOWN) {
			fprintf(stderr, "tcp-echo: cpu %u lost its port\n", w->cpu);
			w->lost = true;
			/* --hold: the dead context stays open until SIGINT */
			while (opt.mode == MODE_HOLD && !stopping())
				nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
			break;
		}
	}
	ixu_close(&w->ixu);
	return NULL;
}

/* ---- main ---- */

static bool parse_addr(const char *s)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	struct in_addr a;

	if (!colon || colon == s || colon - s >= (long)sizeof(host))
		return false;
	memcpy(host, s, colon - s);
	host[colon - s] = 0;
	if (inet_pton(AF_INET, host, &a) != 1)
		return false;
	opt.addr = (IXU_FORCE __be32)a.s_addr;
	opt.port = atoi(colon + 1);
	return opt.port != 0;
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-p PORT] [-c CPULIST] [-b BACKLOG] [-C] [-q]  echo server\n"
		"       %s --sink [-p PORT] ...                          count, CRC-32\n"
		"       %s --source BYTES [-p PORT] ...                  send a pattern\n"
		"       %s --hold [-p PORT] ...                          keep what comes\n"
		"       %s --connect IP:PORT [--conns N] [--bytes B] [--repeat R] [--rst]\n",
		prog, prog, prog, prog, prog);
}

static int parse_options(int argc, char **argv, char *list, size_t size)
{
	static const struct option longopts[] = {
		{ "sink",	no_argument,		NULL, 'S' },
		{ "source",	required_argument,	NULL, 'O' },
		{ "hold",	no_argument,		NULL, 'H' },
		{ "connect",	required_argument,	NULL, 'K' },
		{ "colocated",	no_argument,		NULL, 'C' },
		{ "conns",	required_argument,	NULL, 'n' },
		{ "bytes",	required_argument,	NULL, 'B' },
		{ "repeat",	required_argument,	NULL, 'r' },
		{ "rst",	no_argument,		NULL, 'R' },
		{ "help",	no_argument,		NULL, 'h' },
		{ }
	};
	bool client_opts = false;
	int o;

	while ((o = getopt_long(argc, argv, "p:c:b:qCh", longopts, NULL)) != -1) {
		switch (o) {
		case 'p':
			opt.port = atoi(optarg);
			break;
		case 'c':
			snprintf(list, size, "%s", optarg);
			break;
		case 'b':
			opt.backlog = atoi(optarg);
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'S':
			opt.mode = MODE_SINK;
			break;
		case 'H':
			opt.mode = MODE_HOLD;
			break;
		case 'O':
			opt.mode = MODE_SOURCE;
			opt.bytes = strtoull(optarg, NULL, 0);
			break;
		case 'C':
			opt.run_mode = IXU_MODE_COLOCATED;
			break;
		case 'K':
			opt.mode = MODE_CLIENT;
			if (!parse_addr(optarg)) {
				fprintf(stderr, "tcp-echo: --connect wants IPV4:PORT, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'n':
			opt.conns = atoi(optarg);
			client_opts = true;
			break;
		case 'B':
			opt.bytes = strtoull(optarg, NULL, 0);
			client_opts = true;
			break;
		case 'r':
			opt.repeat = atoi(optarg);
			client_opts = true;
			break;
		case 'R':
			opt.rst = true;
			client_opts = true;
			break;
		default:
			print_usage(argv[0]);
			return -1;
		}
	}
	if (optind != argc || (client_opts && opt.mode != MODE_CLIENT) ||
	    opt.repeat < 1 || !opt.port) {
		print_usage(argv[0]);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	unsigned long conns = 0, resets = 0, errors = 0, unknown = 0, ok = 0, bad = 0;
	unsigned long long in = 0, out = 0;
	unsigned int cpus[MAX_THREADS];
	char list[256] = "";
	int n, i, failed = 0;

	if (parse_options(argc, argv, list, sizeof(list)))
		return 2;
	n = ixu_cpulist_parse(list[0] ? list : NULL, cpus, MAX_THREADS);
	if (n == -ENOENT) {
		fprintf(stderr, "tcp-echo: cannot read /sys/kernel/ixmod/cores; is ixmod loaded?\n");
		return 1;
	}
	if (n <= 0) {
		fprintf(stderr, "tcp-echo: no dataplane cores ('%s'); assign some first\n",
			list[0] ? list : "/sys/kernel/ixmod/cores");
		return 1;
	}

	crc_init();
	pattern_init();
	setvbuf(stdout, NULL, _IOLBF, 0);	/* tests read lines as they come */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	pthread_barrier_init(&ready, NULL, n + 1);
	for (i = 0; i < n; i++) {
		w[i].cpu = cpus[i];
		w[i].share = opt.conns / n + ((unsigned int)i < opt.conns % n);
		pthread_create(&w[i].tid, NULL, serve, &w[i]);
	}
	pthread_barrier_wait(&ready);
	for (i = 0; i < n; i++) {
		if (w[i].err) {
			fprintf(stderr, "tcp-echo: cpu %u: %s%s\n", w[i].cpu, strerror(-w[i].err),
				w[i].err == -EOPNOTSUPP ? " (the module has no IXMOD_FEAT_TCP)" : "");
			failed = 1;
		}
	}
	if (failed)
		on_signal(0);
	else if (opt.mode != MODE_CLIENT)
		printf("tcp-echo: ready on port %u, %d cores\n", opt.port, n);

	for (i = 0; i < n; i++) {
		pthread_join(w[i].tid, NULL);
		if (w[i].err)
			continue;
		if (!opt.quiet)
			printf("tcp-echo: cpu %u: %lu conns, %llu bytes in, %llu bytes out, %lu resets, %lu refused, %lu errors, %lu unknown events, %lu late\n",
			       w[i].cpu, w[i].conns_opened, w[i].bytes_in, w[i].bytes_out,
			       w[i].resets, w[i].refused, w[i].errors, w[i].unknown,
			       w[i].late);
		conns += w[i].conns_opened;
		in += w[i].bytes_in;
		out += w[i].bytes_out;
		resets += w[i].resets;
		errors += w[i].errors;
		unknown += w[i].unknown;
		ok += w[i].ok;
		bad += w[i].bad;
		failed |= w[i].lost;
	}
	printf("tcp-echo: %lu conns, %llu bytes in, %llu bytes out, %lu resets, %lu errors, %lu unknown events\n",
	       conns, in, out, resets, errors, unknown);
	if (opt.mode == MODE_CLIENT) {
		unsigned long total = (unsigned long)opt.conns * opt.repeat;

		printf("tcp-echo: client %lu/%lu ok, %lu bad\n", ok, total, bad);
		return failed || ok != total;
	}
	return failed;
}
