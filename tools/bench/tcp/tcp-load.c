// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-load - load generator and latency meter for the IX paper's TCP echo
 * benchmark
 *
 * -c connections, spread over -t threads, each doing -n round trips of -s
 * bytes: write the bytes, read as many back and check them, and after the
 * n-th round close the connection and open a new one (-n 1: a connection
 * per message).  Each thread drives its connections from one epoll
 * instance (edge-triggered, non-blocking sockets, TCP_NODELAY).  A
 * message's bytes are a slice of a fixed pseudo-random pattern that starts
 * at a different offset for each message, so a reply that is short, long,
 * stale or altered does not pass.
 *
 *   tcp-load -a ADDR [-p PORT] [-c CONNS] [-n ROUNDS] [-s SIZE] [-d SECS]
 *            [-t THREADS] [-C CPU[,CPU...]] [-L TIMEOUT_MS] [-H FILE] [-R]
 *            [-r RATE] [-w SECS] [-M | -X CTL] [-W FILE]
 *
 * Defaults: port 7, 1 connection, 1 round, 64 bytes, 5 s, 1 thread (thread
 * i pinned to the i-th CPU of -C, wrapping), 1000 ms timeout.  After -d
 * seconds no new message starts; those in flight get the timeout to
 * finish, and every connection is then closed.  A connect or a message
 * that takes longer than the timeout is counted, the connection is reset
 * and a new one opened 10 ms later; so are connections refused, reset or
 * closed by the server, and replies that do not match.
 *
 * The client closes first, so each connection leaves a socket in TIME_WAIT
 * behind on the client's side, and Linux reuses its port for a new
 * connection to the same server only a second or two later: with -n 1,
 * the ephemeral port range caps the rate (32768-60999 allows about 14000
 * connections/s on loopback; the cost of connect()'s port search grows
 * with it).  -R closes with a reset instead (SO_LINGER 0): no TIME_WAIT,
 * no cap, but the server sees ECONNRESET rather than end of stream.
 *
 * That is the closed loop, the default: a connection's next message
 * starts when the last one's reply is in.  -r RATE is the open loop
 * instead: messages arrive at RATE per second in all, a Poisson process
 * (each thread draws exponential gaps at RATE / THREADS per second and
 * hands its arrivals to its connections in turn), and a message is sent
 * when its time comes even if the connection's earlier ones await their
 * replies (pipelined; the replies are matched to messages in order, byte
 * by byte).  A message's latency runs from its scheduled time, not from
 * when it was sent, so a client or a connection that falls behind shows
 * in the figures instead of slowing the arrivals down (no coordinated
 * omission); a message first written more than 1 ms after its time is
 * counted as late, with a warning past 1% of those sent.  Connections
 * stay open for the whole run (-n does not apply); one that fails is
 * reset and reopened 10 ms later, its queued messages lost (dropped), as
 * are arrivals for a connection that already has 4096 queued.  After -d
 * seconds nothing more arrives; what is queued gets the timeout to
 * finish.  A connection whose oldest message passes the timeout counts
 * one timeout and is reset.  conns is 0: no connection completes rounds.
 *
 * -w SECS: a warmup of SECS seconds before the -d seconds, in either
 * loop, left out of every figure.  The measured window is the -d
 * seconds after it: in the closed loop a message counts when its reply
 * comes within the window, in the open loop when its scheduled time falls
 * in it (and its reply comes at all).
 *
 * Prints a progress line to stderr every second, then one line to stdout:
 *   msgs=N rate=R p50_us=X p90_us=Y p99_us=Z p999_us=Q conns=K
 *   conn_p50_us=A conn_p99_us=B conn_err=E conn_timeouts=F timeouts=G
 *   io_err=H eofs=I mismatched=J cpu_pct=P
 *   [target_rate=T sent=S late=L dropped=D] [marked_msgs=M]
 *   [mark_seq0=A mark_seq1=B] [watch0=V watch1=W]
 * msgs: round trips completed within the window; rate: msgs per
 * second; pN_us: percentiles of a message's round trip (first byte
 * written to last byte read back; open loop: scheduled time to last byte
 * read back), p999_us the 99.9th; conns: connections that completed
 * their -n rounds within the window; conn_pN_us: percentiles of
 * connect() to established; then the failures by kind, with a line on
 * stderr per errno seen; cpu_pct: tcp-load's own user and system CPU time
 * over the window (getrusage), in percent of one core, to show that the
 * client is not what limits the rate.  The open loop (-r) adds its
 * target_rate (RATE), sent (messages scheduled in the window and written),
 * late (of those, first written more than 1 ms after their time) and
 * dropped (messages lost with a failed connection or to a full queue).  Percentiles come from a log-linear histogram
 * (64 buckets per power of two: within 1.6%), nearest rank; -H writes it
 * to FILE ("microseconds count" per non-empty bucket, the bucket's
 * middle).  Exit status 0 if nothing failed, 1 if anything did (a
 * dropped message included) or no message completed, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "../icount/ctl.h"

#define MAX_SIZE	(1 << 20)
#define PAT_SPAN	251		/* message start offsets in the pattern */
#define TICK_MS		10		/* timeout and retry scan */
#define RETRY_MS	10
#define MAX_EVENTS	64
#define MAX_ERRNO	256

#define HIST_SUB_BITS	6
#define HIST_SUB	(1 << HIST_SUB_BITS)
#define HIST_BUCKETS	((65 - HIST_SUB_BITS) * HIST_SUB)

#define OQ_CAP		4096		/* open loop: messages queued per connection */
#define LATE_NS		1000000ULL	/* open loop: later than this is late */
#define OL_RXBUF	65536

#define NS_PER_MS	1000000ULL
#define NS_PER_S	1000000000ULL

/* Nanoseconds, log-linear: exact below 128, then 64 buckets per octave. */
struct hist {
	uint64_t n;
	uint64_t count[HIST_BUCKETS];
};

enum conn_state {
	C_WAIT,				/* closed; reopened at t0 */
	C_CONNECTING,
	C_SENDING,
	C_RECEIVING,
	C_OPEN,				/* open loop: established */
	C_DONE,				/* closed for good: the run is over */
};

enum fail {
	F_CONNECT,			/* connect failed */
	F_CONNECT_TIMEOUT,
	F_TIMEOUT,			/* a message took too long */
	F_IO,				/* send/recv error: reset, ... */
	F_EOF,				/* the server closed mid-connection */
	F_MISMATCH,			/* the reply differs from the message */
	F_COUNT
};

static const char *const fail_key[F_COUNT] = {
	[F_CONNECT] = "conn_err",
	[F_CONNECT_TIMEOUT] = "conn_timeouts",
	[F_TIMEOUT] = "timeouts",
	[F_IO] = "io_err",
	[F_EOF] = "eofs",
	[F_MISMATCH] = "mismatched",
};

struct conn {
	int fd;
	enum conn_state state;
	unsigned int rounds_done;
	size_t done;			/* bytes of this message sent or received */
	size_t pat;			/* where this message starts in the pattern */
	uint64_t t0;			/* connect or message start; C_WAIT: retry time */
	/*
	 * Open loop: a ring of messages by arrival; [head, tx) are written
	 * and await their replies (rx_done bytes of head's are in), [tx,
	 * tail) wait to be written (tx_done bytes of tx's are out).  The
	 * indices run free; tail - head <= OQ_CAP.
	 */
	struct oreq *q;
	unsigned int head, tx, tail;
	size_t tx_done, rx_done;
};

struct oreq {
	uint64_t sched;			/* when it arrived: latency counts from here */
	size_t pat;
};

/*
 * Counters a thread writes and main reads for the progress line: stored
 * with relaxed atomics by the thread (bump), loaded the same way by main.
 */
struct stats {
	uint64_t msgs;
	uint64_t wdone;			/* replies completed within the window */
	uint64_t conns;
	uint64_t sent;			/* open loop */
	uint64_t late;
	uint64_t dropped;
	uint64_t fails[F_COUNT];
};

struct thread {
	pthread_t tid;
	int cpu;			/* -1: not pinned */
	int epfd;
	unsigned int nconns;
	unsigned int active;		/* connections not C_DONE */
	struct conn *conns;
	char *rxbuf;
	size_t next_pat;
	size_t rxcap;
	uint64_t rng;			/* open loop: xorshift64 state */
	double mean_gap_ns;
	uint64_t next_arrival;
	unsigned int next_conn;
	struct stats st;
	struct hist lat;		/* message round trips */
	struct hist conn_lat;		/* connect to established */
	uint32_t conn_errno[MAX_ERRNO];
	uint32_t io_errno[MAX_ERRNO];
};

static struct sockaddr_in dst = { .sin_family = AF_INET };
static unsigned int rounds = 1;
static int reset_close;			/* -R */
static size_t size = 64;
static uint64_t timeout_ns = 1000 * NS_PER_MS;
static uint64_t win_ns;			/* the measured window: after the warmup */
static uint64_t end_ns;			/* no message starts after this */
static double open_rate;		/* -r: messages/s; 0: closed loop */
static char *pattern;			/* size + PAT_SPAN bytes, read-only */
static pthread_barrier_t start_line;

#define bump(x)	__atomic_store_n(&(x), (x) + 1, __ATOMIC_RELAXED)
#define peek(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

static void usage_exit(void)
{
	fprintf(stderr,
		"usage: tcp-load -a ADDR [-p PORT] [-c CONNS] [-n ROUNDS] [-s SIZE] [-d SECS]\n"
		"                [-t THREADS] [-C CPU[,CPU...]] [-L TIMEOUT_MS] [-H FILE] [-R]\n"
		"                [-r RATE] [-w SECS] [-M | -X CTL] [-W FILE]\n");
	exit(2);
}

static void die(const char *what)
{
	fprintf(stderr, "tcp-load: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* The number in option -@opt's @arg, within [@min, @max], or usage. */
static long opt_num(int opt, const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!errno && end != arg && !*end && v >= min && v <= max)
		return v;
	fprintf(stderr, "tcp-load: -%c takes a number from %ld to %ld, not '%s'\n",
		opt, min, max, arg);
	exit(2);
}

static unsigned int hist_index(uint64_t v)
{
	unsigned int shift;

	if (v < 2 * HIST_SUB)
		return v;
	shift = 63 - __builtin_clzll(v) - HIST_SUB_BITS;
	return shift * HIST_SUB + (v >> shift);
}

/* The middle of bucket @i, in nanoseconds. */
static double hist_value(unsigned int i)
{
	unsigned int shift;

	if (i < 2 * HIST_SUB)
		return i;
	shift = i / HIST_SUB - 1;
	return (double)((uint64_t)(i % HIST_SUB + HIST_SUB) << shift) +
	       ((1ULL << shift) - 1) / 2.0;
}

static void hist_add(struct hist *h, uint64_t ns)
{
	h->count[hist_index(ns)]++;
	h->n++;
}

static void hist_merge(struct hist *to, const struct hist *from)
{
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		to->count[i] += from->count[i];
	to->n += from->n;
}

/* Nearest-rank percentile @p (0..100], in microseconds; 0 if empty. */
static double hist_pct(const struct hist *h, double p)
{
	double r = p / 100.0 * h->n;
	uint64_t rank = r, seen = 0;
	unsigned int i;

	if (rank < r)
		rank++;
	if (rank < 1)
		rank = 1;
	for (i = 0; i < HIST_BUCKETS && h->n; i++) {
		seen += h->count[i];
		if (seen >= rank)
			return hist_value(i) / 1000.0;
	}
	return 0.0;
}

static int in_window(uint64_t t)
{
	return t >= win_ns && t < end_ns;
}

static void fail_count(struct thread *th, enum fail kind, int err)
{
	bump(th->st.fails[kind]);
	if (err > 0 && err < MAX_ERRNO) {
		if (kind == F_CONNECT)
			th->conn_errno[err]++;
		else
			th->io_errno[err]++;
	}
}

/* Close @c: with a reset if @abort (nothing lingers in TIME_WAIT). */
static void conn_close(struct conn *c, int abort)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (abort)
		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(c->fd);
	c->fd = -1;
}

/* Park @c: for good once the run is over, else until a retry at @when. */
static void conn_park(struct thread *th, struct conn *c, uint64_t when)
{
	if (when >= end_ns) {
		c->state = C_DONE;
		th->active--;
	} else {
		c->state = C_WAIT;
		c->t0 = when;
	}
}

/* A failure of kind @kind on @c (errno @err, 0 if none): count, reset, retry. */
/* Open loop: the messages queued on @c are lost. */
static void ol_drop(struct thread *th, struct conn *c)
{
	unsigned int n = c->tail - c->head;

	if (n)
		__atomic_store_n(&th->st.dropped, th->st.dropped + n, __ATOMIC_RELAXED);
	c->head = c->tail;
	c->tx = c->tail;
	c->tx_done = 0;
	c->rx_done = 0;
}

static void conn_fail(struct thread *th, struct conn *c, enum fail kind, int err)
{
	fail_count(th, kind, err);
	if (c->fd >= 0)
		conn_close(c, 1);
	if (open_rate)
		ol_drop(th, c);
	conn_park(th, c, now_ns() + RETRY_MS * NS_PER_MS);
}

static void conn_open(struct thread *th, struct conn *c, uint64_t now)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
		.data.ptr = c,
	};

	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		conn_fail(th, c, F_CONNECT, errno);
		return;
	}
	if (bench_nodelay(c->fd))
		die("TCP_NODELAY");
	c->state = C_CONNECTING;
	c->rounds_done = 0;
	c->t0 = now;
	/* established or not, epoll reports EPOLLOUT once it is */
	if (connect(c->fd, (struct sockaddr *)&dst, sizeof(dst)) && errno != EINPROGRESS) {
		conn_fail(th, c, F_CONNECT, errno);
		return;
	}
	if (epoll_ctl(th->epfd, EPOLL_CTL_ADD, c->fd, &ev))
		die("epoll_ctl");
}

static void msg_start(struct thread *th, struct conn *c, uint64_t now)
{
	c->state = C_SENDING;
	c->done = 0;
	c->pat = th->next_pat;
	th->next_pat = (th->next_pat + 1) % PAT_SPAN;
	c->t0 = now;
}

/* The reply is complete: count it, then the next round or a new connection. */
static void msg_done(struct thread *th, struct conn *c)
{
	uint64_t now = now_ns();

	if (in_window(now)) {
		bump(th->st.msgs);
		hist_add(&th->lat, now - c->t0);
	}
	if (++c->rounds_done < rounds && now < end_ns) {
		msg_start(th, c, now);
		return;
	}
	/* a byte beyond the last reply is an echo of nothing */
	if (recv(c->fd, th->rxbuf, 1, MSG_DONTWAIT) > 0) {
		conn_fail(th, c, F_MISMATCH, 0);
		return;
	}
	conn_close(c, reset_close);
	if (c->rounds_done == rounds && in_window(now))
		bump(th->st.conns);
	if (now < end_ns)
		conn_open(th, c, now);
	else
		conn_park(th, c, now);
}

/* Move @c's message along until the socket would block. */
static void conn_io(struct thread *th, struct conn *c)
{
	const char *msg;
	ssize_t n;

	while (c->state == C_SENDING || c->state == C_RECEIVING) {
		msg = pattern + c->pat + c->done;
		if (c->state == C_SENDING)
			n = send(c->fd, msg, size - c->done, MSG_NOSIGNAL);
		else
			n = recv(c->fd, th->rxbuf, size - c->done, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				conn_fail(th, c, F_IO, errno);
			return;
		}
		if (n == 0) {		/* recv only: send never returns 0 here */
			conn_fail(th, c, F_EOF, 0);
			return;
		}
		if (c->state == C_RECEIVING && memcmp(th->rxbuf, msg, n)) {
			conn_fail(th, c, F_MISMATCH, 0);
			return;
		}
		c->done += n;
		if (c->done < size)
			continue;
		if (c->state == C_SENDING) {
			c->state = C_RECEIVING;
			c->done = 0;
		} else {
			msg_done(th, c);
		}
	}
}

/* Open loop: write @c's queued messages until the socket would block. */
static int ol_send(struct thread *th, struct conn *c)
{
	struct oreq *r;
	uint64_t now;
	ssize_t n;

	while (c->tx != c->tail) {
		r = &c->q[c->tx % OQ_CAP];
		n = send(c->fd, pattern + r->pat + c->tx_done, size - c->tx_done,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			conn_fail(th, c, F_IO, errno);
			return -1;
		}
		if (!c->tx_done && in_window(r->sched)) {
			now = now_ns();
			bump(th->st.sent);
			if (now - r->sched > LATE_NS)
				bump(th->st.late);
		}
		c->tx_done += n;
		if (c->tx_done == size) {
			c->tx++;
			c->tx_done = 0;
		}
	}
	return 0;
}

/* Open loop: @c's replies, matched to its messages in order. */
static void ol_recv(struct thread *th, struct conn *c)
{
	size_t off, k, out;
	struct oreq *r;
	uint64_t now;
	ssize_t n;

	for (;;) {
		n = recv(c->fd, th->rxbuf, th->rxcap, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				conn_fail(th, c, F_IO, errno);
			break;
		}
		if (n == 0) {
			conn_fail(th, c, F_EOF, 0);
			return;
		}
		for (off = 0; off < (size_t)n; off += k) {
			/* bytes written and not yet echoed */
			out = (size_t)(c->tx - c->head) * size + c->tx_done - c->rx_done;
			r = &c->q[c->head % OQ_CAP];
			k = size - c->rx_done;
			if (k > n - off)
				k = n - off;
			if (k > out ||
			    memcmp(th->rxbuf + off, pattern + r->pat + c->rx_done, k)) {
				conn_fail(th, c, F_MISMATCH, 0);
				return;
			}
			c->rx_done += k;
			if (c->rx_done < size)
				continue;
			now = now_ns();
			if (in_window(r->sched)) {
				bump(th->st.msgs);
				hist_add(&th->lat, now - r->sched);
			}
			if (in_window(now))
				bump(th->st.wdone);
			c->head++;
			c->rx_done = 0;
		}
	}
	if (c->state == C_OPEN && c->head == c->tail && now_ns() >= end_ns) {
		conn_close(c, reset_close);
		conn_park(th, c, end_ns);
	}
}

/* Open loop: the next gap between arrivals, exponential. */
static uint64_t ol_gap(struct thread *th)
{
	uint64_t x = th->rng;
	double u;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	th->rng = x;
	u = ((x >> 11) + 1) * 0x1.0p-53;	/* (0, 1] */
	return -log(u) * th->mean_gap_ns;
}

/* Open loop: queue the messages whose time has come, each on the next connection. */
static void ol_arrivals(struct thread *th, uint64_t now)
{
	struct oreq *r;
	struct conn *c;

	while (th->next_arrival <= now && th->next_arrival < end_ns) {
		c = &th->conns[th->next_conn++ % th->nconns];
		if (c->tail - c->head == OQ_CAP) {
			bump(th->st.dropped);
		} else {
			r = &c->q[c->tail++ % OQ_CAP];
			r->sched = th->next_arrival;
			r->pat = th->next_pat;
			th->next_pat = (th->next_pat + 1) % PAT_SPAN;
			if (c->state == C_OPEN)
				ol_send(th, c);
		}
		th->next_arrival += ol_gap(th);
	}
}

static void conn_event(struct thread *th, struct conn *c, uint32_t events)
{
	socklen_t len = sizeof(int);
	uint64_t now;
	int err = 0;

	if (c->state == C_CONNECTING) {
		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len))
			err = errno;
		if (err || !(events & EPOLLOUT)) {
			conn_fail(th, c, F_CONNECT, err);
			return;
		}
		now = now_ns();
		if (now >= end_ns && c->head == c->tail) {
			conn_close(c, 0);
			conn_park(th, c, now);
			return;
		}
		if (in_window(now))
			hist_add(&th->conn_lat, now - c->t0);
		if (open_rate)
			c->state = C_OPEN;
		else
			msg_start(th, c, now);
	}
	if (c->state == C_OPEN) {
		if (!ol_send(th, c))
			ol_recv(th, c);
		return;
	}
	conn_io(th, c);
}

/* Every TICK_MS: reopen parked connections, fail those past the timeout. */
static void scan(struct thread *th, uint64_t now)
{
	struct conn *c;
	unsigned int i;

	for (i = 0; i < th->nconns; i++) {
		c = &th->conns[i];
		switch (c->state) {
		case C_WAIT:
			if (open_rate && c->head != c->tail &&
			    now - c->q[c->head % OQ_CAP].sched > timeout_ns)
				ol_drop(th, c);
			if (now >= end_ns && (!open_rate || c->head == c->tail)) {
				ol_drop(th, c);
				conn_park(th, c, now);
			} else if (now >= c->t0) {
				conn_open(th, c, now);
			}
			break;
		case C_CONNECTING:
			if (now - c->t0 > timeout_ns)
				conn_fail(th, c, F_CONNECT_TIMEOUT, 0);
			break;
		case C_SENDING:
		case C_RECEIVING:
			if (now - c->t0 > timeout_ns)
				conn_fail(th, c, F_TIMEOUT, 0);
			break;
		case C_OPEN:
			if (c->head != c->tail &&
			    now - c->q[c->head % OQ_CAP].sched > timeout_ns) {
				conn_fail(th, c, F_TIMEOUT, 0);
			} else if (c->head == c->tail && now >= end_ns) {
				conn_close(c, reset_close);
				conn_park(th, c, now);
			}
			break;
		case C_DONE:
			break;
		}
	}
}

static void *thread_fn(void *arg)
{
	struct epoll_event events[MAX_EVENTS];
	struct thread *th = arg;
	uint64_t now, next_scan;
	unsigned int i;
	int n;

	bench_pin("tcp-load", th->cpu);
	/* the open loop's timed waits: wake when asked, not 50 us later */
	prctl(PR_SET_TIMERSLACK, 1000UL);
	pthread_barrier_wait(&start_line);
	now = now_ns();
	th->next_arrival = now + ol_gap(th);
	for (i = 0; i < th->nconns; i++)
		conn_open(th, &th->conns[i], now);
	next_scan = now + TICK_MS * NS_PER_MS;
	while (th->active) {
		uint64_t wait = TICK_MS * NS_PER_MS;
		struct timespec ts;

		if (open_rate && th->next_arrival < end_ns)
			wait = th->next_arrival <= now ? 0 :
			       th->next_arrival - now < wait ? th->next_arrival - now : wait;
		ts.tv_sec = wait / NS_PER_S;
		ts.tv_nsec = wait % NS_PER_S;
		n = epoll_pwait2(th->epfd, events, MAX_EVENTS, &ts, NULL);
		if (n < 0 && errno != EINTR)
			die("epoll_pwait2");
		for (i = 0; (int)i < n; i++)
			conn_event(th, events[i].data.ptr, events[i].events);
		now = now_ns();
		if (open_rate) {
			ol_arrivals(th, now);
			now = now_ns();
		}
		if (now >= next_scan) {
			scan(th, now);
			next_scan = now + TICK_MS * NS_PER_MS;
		}
	}
	return NULL;
}

static void fill_pattern(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t i;

	pattern = malloc(size + PAT_SPAN);
	if (!pattern)
		die("malloc");
	for (i = 0; i < size + PAT_SPAN; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		pattern[i] = x >> 56;
	}
}

static void sum_stats(const struct thread *ths, int nth, struct stats *st)
{
	int i, k;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < nth; i++) {
		st->msgs += peek(ths[i].st.msgs);
		st->wdone += peek(ths[i].st.wdone);
		st->conns += peek(ths[i].st.conns);
		st->sent += peek(ths[i].st.sent);
		st->late += peek(ths[i].st.late);
		st->dropped += peek(ths[i].st.dropped);
		for (k = 0; k < F_COUNT; k++)
			st->fails[k] += peek(ths[i].st.fails[k]);
	}
}

static uint64_t fails_total(const struct stats *st)
{
	uint64_t sum = 0;
	int k;

	for (k = 0; k < F_COUNT; k++)
		sum += st->fails[k];
	return sum;
}

static void report_errnos(const struct thread *ths, int nth)
{
	uint64_t conn_n, io_n;
	int e, i;

	for (e = 1; e < MAX_ERRNO; e++) {
		conn_n = 0;
		io_n = 0;
		for (i = 0; i < nth; i++) {
			conn_n += ths[i].conn_errno[e];
			io_n += ths[i].io_errno[e];
		}
		if (conn_n)
			fprintf(stderr, "tcp-load: %llu connects failed: %s\n",
				(unsigned long long)conn_n, strerror(e));
		if (io_n)
			fprintf(stderr, "tcp-load: %llu transfers failed: %s\n",
				(unsigned long long)io_n, strerror(e));
	}
}

/*
 * -M: the icount QEMU plugin's mark (tools/bench/icount): the guest
 * executes "xchg %bx,%bx", a no-op anywhere else, and the plugin writes
 * every vCPU's instruction counts.  tcp-load marks the start and the end
 * of its measured window, so that a server's instructions per message are
 * its vCPU's count between the two marks over marked_msgs.  -X CTL: the
 * same two marks from the host, outside the guest, through the plugin's
 * control FIFO (ctl=CTL), each waited for until the plugin acknowledges
 * it; their sequence numbers in the plugin's out= file are printed as
 * mark_seq0= and mark_seq1=.  -W FILE: a counter (a sysfs file holding a
 * number) read just before each mark, printed as watch0= and watch1=, e.g.
 * ixmod's idle iterations over the window.
 */
static unsigned long long window_mark(const char *watch, const char *ctl, int which,
				      unsigned long long *seq)
{
	unsigned long long v = 0;
	char label[64];
	FILE *f;

	if (watch) {
		f = fopen(watch, "r");
		if (!f || fscanf(f, "%llu", &v) != 1)
			die(watch);
		fclose(f);
	}
	if (!ctl) {
		asm volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");
		return v;
	}
	snprintf(label, sizeof(label), "tcp-load-%d-%s", (int)getpid(),
		 which ? "end" : "start");
	if (icount_host_mark(ctl, label, seq)) {
		fprintf(stderr, "tcp-load: icount host mark, %s: %s\n", ctl,
			strerror(errno));
		exit(1);
	}
	return v;
}

/* tcp-load's own CPU time so far, user and system, in nanoseconds. */
static uint64_t cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		die("getrusage");
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NS_PER_S +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

static void write_hist(const char *path, const struct hist *h)
{
	unsigned int i;
	FILE *f;

	f = fopen(path, "w");
	if (!f)
		die(path);
	for (i = 0; i < HIST_BUCKETS; i++)
		if (h->count[i])
			fprintf(f, "%.3f %llu\n", hist_value(i) / 1000.0,
				(unsigned long long)h->count[i]);
	if (fclose(f))
		die(path);
}

int main(int argc, char **argv)
{
	int cpus[MAX_CPUS], ncpus = 0, nth = 1, opt, i, k, have_dst = 0;
	struct hist *lat, *conn_lat;
	unsigned int nconns = 1, c;
	const char *hist_file = NULL, *watch = NULL, *ctl = NULL;
	unsigned long long watch0 = 0, watch1 = 0, marked = 0, seq0 = 0, seq1 = 0;
	int marks = 0, rounds_set = 0;
	uint64_t start, next, cpu0 = 0, cpu1, wall0 = 0, wall1;
	struct thread *ths;
	struct stats st;
	long secs = 5, warm = 0, t;

	while ((opt = getopt(argc, argv, "a:p:c:n:s:d:t:C:L:H:RMW:X:r:w:")) != -1) {
		switch (opt) {
		case 'a':
			if (inet_pton(AF_INET, optarg, &dst.sin_addr) != 1) {
				fprintf(stderr, "tcp-load: bad IPv4 address '%s'\n", optarg);
				exit(2);
			}
			have_dst = 1;
			break;
		case 'p':
			dst.sin_port = htons(opt_num(opt, optarg, 1, 65535));
			break;
		case 'c':
			nconns = opt_num(opt, optarg, 1, 1 << 20);
			break;
		case 'n':
			rounds = opt_num(opt, optarg, 1, 1 << 30);
			rounds_set = 1;
			break;
		case 's':
			size = opt_num(opt, optarg, 1, MAX_SIZE);
			break;
		case 'd':
			secs = opt_num(opt, optarg, 1, 86400);
			break;
		case 't':
			nth = opt_num(opt, optarg, 1, MAX_CPUS);
			break;
		case 'C':
			ncpus = bench_parse_cpus(optarg, cpus);
			if (ncpus < 0)
				usage_exit();
			break;
		case 'L':
			timeout_ns = opt_num(opt, optarg, 1, 3600000) * NS_PER_MS;
			break;
		case 'H':
			hist_file = optarg;
			break;
		case 'R':
			reset_close = 1;
			break;
		case 'M':
			if (ctl)
				usage_exit();
			marks = 1;
			break;
		case 'X':
			if (marks)
				usage_exit();
			marks = 1;
			ctl = optarg;
			break;
		case 'r':
			open_rate = opt_num(opt, optarg, 1, 100000000);
			break;
		case 'w':
			warm = opt_num(opt, optarg, 0, 86400);
			break;
		case 'W':
			watch = optarg;
			break;
		default:
			usage_exit();
		}
	}
	if (optind != argc || !have_dst || (watch && !marks))
		usage_exit();
	if (open_rate && rounds_set) {
		fprintf(stderr, "tcp-load: -r keeps its connections open: no -n\n");
		exit(2);
	}
	if (!dst.sin_port)
		dst.sin_port = htons(7);
	if (nconns < (unsigned int)nth) {
		fprintf(stderr, "tcp-load: %u connections cannot keep %d threads busy\n",
			nconns, nth);
		exit(2);
	}

	fill_pattern();
	lat = calloc(1, sizeof(*lat));
	conn_lat = calloc(1, sizeof(*conn_lat));
	ths = calloc(nth, sizeof(*ths));
	if (!lat || !conn_lat || !ths)
		die("calloc");
	/* connection c belongs to thread c % nth */
	for (i = 0; i < nth; i++) {
		ths[i].cpu = ncpus ? cpus[i % ncpus] : -1;
		ths[i].nconns = nconns / nth + ((unsigned int)i < nconns % nth);
		ths[i].active = ths[i].nconns;
		ths[i].conns = calloc(ths[i].nconns, sizeof(struct conn));
		ths[i].rxcap = open_rate && size < OL_RXBUF ? OL_RXBUF : size;
		ths[i].rxbuf = malloc(ths[i].rxcap);
		ths[i].epfd = epoll_create1(EPOLL_CLOEXEC);
		if (!ths[i].conns || !ths[i].rxbuf)
			die("malloc");
		if (ths[i].epfd < 0)
			die("epoll_create1");
		ths[i].rng = 0x9e3779b97f4a7c15ULL * (i + 1) ^ now_ns();
		if (!ths[i].rng)
			ths[i].rng = 1;
		ths[i].mean_gap_ns = open_rate ? NS_PER_S * nth / open_rate : 0;
		for (c = 0; c < ths[i].nconns; c++) {
			ths[i].conns[c].fd = -1;
			if (!open_rate)
				continue;
			ths[i].conns[c].q = calloc(OQ_CAP, sizeof(struct oreq));
			if (!ths[i].conns[c].q)
				die("calloc");
		}
	}

	pthread_barrier_init(&start_line, NULL, nth + 1);
	for (i = 0; i < nth; i++) {
		errno = pthread_create(&ths[i].tid, NULL, thread_fn, &ths[i]);
		if (errno)
			die("pthread_create");
	}
	/* without a warmup, the start mark comes before any traffic */
	if (marks && !warm)
		watch0 = window_mark(watch, ctl, 0, &seq0);
	start = now_ns();
	win_ns = start + warm * NS_PER_S;
	end_ns = win_ns + secs * NS_PER_S;
	if (!warm) {
		cpu0 = cpu_ns();
		wall0 = now_ns();
	}
	pthread_barrier_wait(&start_line);

	for (t = 1; t <= warm + secs; t++) {
		struct timespec ts;

		next = start + t * NS_PER_S;
		ts.tv_sec = next / NS_PER_S;
		ts.tv_nsec = next % NS_PER_S;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		if (t == warm) {
			if (marks)
				watch0 = window_mark(watch, ctl, 0, &seq0);
			cpu0 = cpu_ns();
			wall0 = now_ns();
		}
		sum_stats(ths, nth, &st);
		fprintf(stderr, "tcp-load: t=%lds%s %llu msgs, %llu conns, %llu failures\n",
			t, t <= warm ? " (warmup)" : "",
			(unsigned long long)st.msgs, (unsigned long long)st.conns,
			(unsigned long long)fails_total(&st));
	}
	cpu1 = cpu_ns();
	wall1 = now_ns();
	if (marks) {
		watch1 = window_mark(watch, ctl, 1, &seq1);
		sum_stats(ths, nth, &st);
		marked = open_rate ? st.wdone : st.msgs;
	}
	for (i = 0; i < nth; i++) {
		pthread_join(ths[i].tid, NULL);
		hist_merge(lat, &ths[i].lat);
		hist_merge(conn_lat, &ths[i].conn_lat);
	}

	sum_stats(ths, nth, &st);
	report_errnos(ths, nth);
	if (hist_file)
		write_hist(hist_file, lat);
	printf("msgs=%llu rate=%.1f p50_us=%.1f p90_us=%.1f p99_us=%.1f p999_us=%.1f conns=%llu conn_p50_us=%.1f conn_p99_us=%.1f",
	       (unsigned long long)st.msgs, (double)st.msgs / secs,
	       hist_pct(lat, 50), hist_pct(lat, 90), hist_pct(lat, 99),
	       hist_pct(lat, 99.9),
	       (unsigned long long)st.conns, hist_pct(conn_lat, 50), hist_pct(conn_lat, 99));
	for (k = 0; k < F_COUNT; k++)
		printf(" %s=%llu", fail_key[k], (unsigned long long)st.fails[k]);
	printf(" cpu_pct=%.1f", 100.0 * (cpu1 - cpu0) / (wall1 - wall0));
	if (open_rate)
		printf(" target_rate=%.1f sent=%llu late=%llu dropped=%llu", open_rate,
		       (unsigned long long)st.sent, (unsigned long long)st.late,
		       (unsigned long long)st.dropped);
	if (marks)
		printf(" marked_msgs=%llu", marked);
	if (ctl)
		printf(" mark_seq0=%llu mark_seq1=%llu", seq0, seq1);
	if (watch)
		printf(" watch0=%llu watch1=%llu", watch0, watch1);
	printf("\n");
	if (!st.msgs)
		fprintf(stderr, "tcp-load: no message completed\n");
	if (open_rate && st.late * 100 > st.sent)
		fprintf(stderr, "tcp-load: %llu of %llu messages (%.1f%%) written more than 1 ms late: the client fell behind its schedule\n",
			(unsigned long long)st.late, (unsigned long long)st.sent,
			st.sent ? 100.0 * st.late / st.sent : 0.0);
	if (st.dropped)
		fprintf(stderr, "tcp-load: %llu messages dropped\n",
			(unsigned long long)st.dropped);
	return fails_total(&st) || st.dropped || !st.msgs ? 1 : 0;
}
