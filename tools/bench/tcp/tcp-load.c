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
 * Prints a progress line to stderr every second, then one line to stdout:
 *   msgs=N rate=R p50_us=X p90_us=Y p99_us=Z conns=K conn_p50_us=A
 *   conn_p99_us=B conn_err=E conn_timeouts=F timeouts=G io_err=H eofs=I
 *   mismatched=J
 * msgs: round trips completed within the -d seconds; rate: msgs per
 * second; pN_us: percentiles of a message's round trip (first byte
 * written to last byte read back); conns: connections that completed
 * their -n rounds within the -d seconds; conn_pN_us: percentiles of
 * connect() to established; then the failures by kind, with a line on
 * stderr per errno seen.  Percentiles come from a log-linear histogram
 * (64 buckets per power of two: within 1.6%), nearest rank; -H writes it
 * to FILE ("microseconds count" per non-empty bucket, the bucket's
 * middle).  Exit status 0 if nothing failed, 1 if anything did or no
 * message completed, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define MAX_SIZE	(1 << 20)
#define PAT_SPAN	251		/* message start offsets in the pattern */
#define TICK_MS		10		/* timeout and retry scan */
#define RETRY_MS	10
#define MAX_EVENTS	64
#define MAX_ERRNO	256

#define HIST_SUB_BITS	6
#define HIST_SUB	(1 << HIST_SUB_BITS)
#define HIST_BUCKETS	((65 - HIST_SUB_BITS) * HIST_SUB)

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
};

/*
 * Counters a thread writes and main reads for the progress line: stored
 * with relaxed atomics by the thread (bump), loaded the same way by main.
 */
struct stats {
	uint64_t msgs;
	uint64_t conns;
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
static uint64_t end_ns;			/* no message starts after this */
static char *pattern;			/* size + PAT_SPAN bytes, read-only */
static pthread_barrier_t start_line;

#define bump(x)	__atomic_store_n(&(x), (x) + 1, __ATOMIC_RELAXED)
#define peek(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

static void usage_exit(void)
{
	fprintf(stderr,
		"usage: tcp-load -a ADDR [-p PORT] [-c CONNS] [-n ROUNDS] [-s SIZE] [-d SECS]\n"
		"                [-t THREADS] [-C CPU[,CPU...]] [-L TIMEOUT_MS] [-H FILE] [-R]\n"
		"                [-M [-W FILE]]\n");
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
static void conn_fail(struct thread *th, struct conn *c, enum fail kind, int err)
{
	fail_count(th, kind, err);
	if (c->fd >= 0)
		conn_close(c, 1);
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

	if (now < end_ns) {
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
	if (c->rounds_done == rounds && now < end_ns)
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
		if (now >= end_ns) {
			conn_close(c, 0);
			conn_park(th, c, now);
			return;
		}
		hist_add(&th->conn_lat, now - c->t0);
		msg_start(th, c, now);
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
			if (now >= end_ns)
				conn_park(th, c, now);
			else if (now >= c->t0)
				conn_open(th, c, now);
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
	pthread_barrier_wait(&start_line);
	now = now_ns();
	for (i = 0; i < th->nconns; i++)
		conn_open(th, &th->conns[i], now);
	next_scan = now + TICK_MS * NS_PER_MS;
	while (th->active) {
		n = epoll_wait(th->epfd, events, MAX_EVENTS, TICK_MS);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; (int)i < n; i++)
			conn_event(th, events[i].data.ptr, events[i].events);
		now = now_ns();
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
		st->conns += peek(ths[i].st.conns);
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
 * its vCPU's count between the two marks over msgs.  -W FILE: a counter
 * (a sysfs file holding a number) read just before each mark, printed as
 * watch0= and watch1=, e.g. ixmod's idle iterations over the window.
 */
static unsigned long long mark(const char *watch)
{
	unsigned long long v = 0;
	FILE *f;

	if (watch) {
		f = fopen(watch, "r");
		if (!f || fscanf(f, "%llu", &v) != 1)
			die(watch);
		fclose(f);
	}
	asm volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");
	return v;
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
	const char *hist_file = NULL, *watch = NULL;
	unsigned long long watch0 = 0, watch1 = 0, marked = 0;
	int marks = 0;
	uint64_t start, next;
	struct thread *ths;
	struct stats st;
	long secs = 5, t;

	while ((opt = getopt(argc, argv, "a:p:c:n:s:d:t:C:L:H:RMW:")) != -1) {
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
			marks = 1;
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
		ths[i].rxbuf = malloc(size);
		ths[i].epfd = epoll_create1(EPOLL_CLOEXEC);
		if (!ths[i].conns || !ths[i].rxbuf)
			die("malloc");
		if (ths[i].epfd < 0)
			die("epoll_create1");
		for (c = 0; c < ths[i].nconns; c++)
			ths[i].conns[c].fd = -1;
	}

	pthread_barrier_init(&start_line, NULL, nth + 1);
	for (i = 0; i < nth; i++) {
		errno = pthread_create(&ths[i].tid, NULL, thread_fn, &ths[i]);
		if (errno)
			die("pthread_create");
	}
	if (marks)
		watch0 = mark(watch);
	start = now_ns();
	end_ns = start + secs * NS_PER_S;
	pthread_barrier_wait(&start_line);

	for (t = 1; t <= secs; t++) {
		struct timespec ts;

		next = start + t * NS_PER_S;
		ts.tv_sec = next / NS_PER_S;
		ts.tv_nsec = next % NS_PER_S;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		sum_stats(ths, nth, &st);
		fprintf(stderr, "tcp-load: t=%lds %llu msgs, %llu conns, %llu failures\n", t,
			(unsigned long long)st.msgs, (unsigned long long)st.conns,
			(unsigned long long)fails_total(&st));
	}
	if (marks) {
		watch1 = mark(watch);
		sum_stats(ths, nth, &st);
		marked = st.msgs;
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
	printf("msgs=%llu rate=%.1f p50_us=%.1f p90_us=%.1f p99_us=%.1f conns=%llu conn_p50_us=%.1f conn_p99_us=%.1f",
	       (unsigned long long)st.msgs, (double)st.msgs / secs,
	       hist_pct(lat, 50), hist_pct(lat, 90), hist_pct(lat, 99),
	       (unsigned long long)st.conns, hist_pct(conn_lat, 50), hist_pct(conn_lat, 99));
	for (k = 0; k < F_COUNT; k++)
		printf(" %s=%llu", fail_key[k], (unsigned long long)st.fails[k]);
	if (marks)
		printf(" marked_msgs=%llu", marked);
	if (watch)
		printf(" watch0=%llu watch1=%llu", watch0, watch1);
	printf("\n");
	if (!st.msgs)
		fprintf(stderr, "tcp-load: no message completed\n");
	return fails_total(&st) || !st.msgs ? 1 : 0;
}
