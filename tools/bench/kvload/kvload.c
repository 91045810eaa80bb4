// SPDX-License-Identifier: GPL-2.0
/*
 * kvload - an open-loop load generator for memcached's text protocol.
 *
 *   kvload -s HOST:PORT [-t THREADS] [-c CONNS] [-r RATE] [-d SECONDS]
 *          [-w WARMUP_S] [-W etc|usr] [-k KEYS] [-S SEED] [--preload]
 *          [-o FILE.json] [-q] [--late-us N] [--drain-ms N] [--spin-us N]
 *          [--set-ratio P] [-M | --mark-ctl CTL] [--watch FILE]
 *   kvload [-W etc|usr] [-k KEYS] [-S SEED] --dump-sizes N
 *   kvload [-r RATE] [-S SEED] --dump-arrivals N
 *   kvload [-S SEED] --check-hist N
 *
 * What it measures.  The latency of single-key GET and SET requests to a
 * memcached server at a given offered load: from the time a request was
 * scheduled to be sent to the time its reply has been read completely,
 * into a log-linear histogram (128 buckets per power of two, so a
 * reported percentile is within 0.4% of the true value of the samples).
 * It reports the load it achieved (replies read in the measurement window
 * per second), p50, p90, p99, p99.9 and max, misses, errors, and how many
 * requests it sent late.  Requests scheduled in the window are all sent
 * and their replies waited for up to --drain-ms after it: the latencies
 * are theirs, and those still without a reply are counted as lost.
 *
 * Open loop.  Requests arrive as a Poisson process of RATE requests/s in
 * total: each of THREADS threads draws exponential inter-arrival times of
 * mean THREADS/RATE (the superposition of independent Poisson processes
 * is Poisson) and gives each request to one of its connections at random.
 * A request is sent when its time comes, whether or not the replies to
 * earlier requests on that connection have arrived: requests pipeline on
 * a connection and replies are matched to them in order.  A closed-loop
 * generator waits for a reply before it sends the next request, so a slow
 * server slows down the load that measures it and the requests that would
 * have met the slow period are never sent: "coordinated omission", which
 * hides exactly the latencies a tail percentile is about.  Here latency
 * is counted from the scheduled send time, not the actual one, so that
 * even a generator that falls behind does not hide the wait: its lag is
 * in the latency, and every request sent more than --late-us (default
 * 1000 us) after its time is counted as late and reported, with a warning
 * when more than 1% are, rather than reporting a lower load silently.
 *
 * Workloads (-W).  From the Facebook memcached traces of Atikoglu et al.,
 * "Workload Analysis of a Large-Scale Key-Value Store", SIGMETRICS 2012,
 * which IX's memcached evaluation drove through mutilate (Belay et al.,
 * "IX: A Protected Dataplane Operating System", OSDI 2014: ETC and USR;
 * mutilate is github.com/leverich/mutilate, see Generator.cc: fb_key and
 * fb_value).
 *   etc  key size: generalized extreme value, location 30.7984, scale
 *        8.20449, shape 0.078688 (mutilate's fb_key; the paper's model).
 *        Value size: 0..14 bytes with the probabilities of mutilate's
 *        fb_value table (44.155% in all), else generalized Pareto of
 *        location 0, scale 214.476, shape 0.348238, rounded to bytes (the
 *        paper's model).  mutilate's fb_value builds this as
 *        GPareto(214.476, 0.348238), but GPareto's constructor takes
 *        (location, scale, shape = 1) in the Generator.h we read: that is
 *        location 214.476, scale 0.35 and shape 1, a distribution of
 *        infinite mean, which we take for a slip and do not copy.
 *        GET:SET 30:1, the paper's ETC ratio: 1/31 of requests are SETs.
 *   usr  keys of 16 or 21 bytes, half each (the paper's talk: "USR keys
 *        are 16B or 21B"; no split is given, so we chose halves); values
 *        of 2 bytes ("USR values are only 2B"); 99.8% GETs (the paper:
 *        USR is over 99.8% GET).
 * --set-ratio P makes a fraction P of the requests SETs instead: IX's
 * paper, as we remember it (its text was not at hand to check), ran ETC
 * with 75% GETs and USR with 99%, i.e. --set-ratio 0.25 and 0.01.
 * Key sizes are clamped to [digits of KEYS-1, 250] and value sizes to
 * [0, 1000000] (memcached's default item size limit is 1 MiB).
 * Keys are drawn uniformly from KEYS keys numbered 0..KEYS-1 (mutilate
 * draws uniformly too; the traces' popularity skew is not modelled).  A
 * key's string is its number in decimal, zero-padded to its length, and
 * its length is drawn from the key size distribution with a uniform
 * variate made by hashing the key number, so a key always has the same
 * length, whatever the seed.  A SET's value size is drawn afresh each
 * time; its bytes are a fixed pattern.  --preload sets every key once,
 * closed loop with a pipeline of 16 requests per connection, before the
 * measurement, so that GETs hit.  Inter-arrival times are exponential,
 * not mutilate's fb_ia.
 *
 * Marks (-M).  For the icount QEMU plugin (tools/bench/icount), which
 * counts the guest instructions of every vCPU between marks: the main
 * thread executes the plugin's mark instruction ("xchg %bx,%bx", a no-op
 * anywhere else) when the measurement window opens and when it closes, so
 * that a server's instructions per request are its vCPU's count between
 * the two marks over the replies read in the window (window_replies in
 * the JSON: achieved times the duration).  --watch FILE reads a counter
 * (a file holding a number, such as ixmod's idle iterations) just before
 * each mark, reported as watch0 and watch1.  --mark-ctl CTL places the
 * same two marks from outside the guest, for a kvload that runs on the
 * host: it writes "mark LABEL" to the plugin's control FIFO (its ctl=CTL)
 * and waits for the plugin's acknowledgment on CTL.ack
 * (tools/bench/icount/ctl.h); the marks' sequence numbers in the plugin's
 * out= file are reported as mark_seq0 and mark_seq1.
 *
 * CPU.  cpu_pct is kvload's own user and system time (getrusage) over
 * the measurement window, in percent of one core: with the generator
 * on its own core, well below 100 shows that it is not what limits the
 * rate.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
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

#include "../icount/ctl.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_USEC	1000ULL

#define KEY_MAX		250
#define VALUE_MAX	1000000
#define LINE_MAX_LEN	4096
#define BURST		256	/* requests issued before looking at replies */
#define PRELOAD_DEPTH	16
#define IN_CHUNK	65536

enum workload { WL_ETC, WL_USR };
enum op { OP_GET, OP_SET };
enum phase { PH_WARMUP, PH_MEASURE, PH_PRELOAD };
enum reply { RP_HIT, RP_MISS, RP_STORED, RP_NOT_STORED, RP_ERROR };

static struct {
	const char *host;
	const char *port;
	int threads;
	int conns;
	double rate;
	double duration;
	double warmup;
	enum workload wl;
	uint64_t keys;
	uint64_t seed;
	bool preload;
	const char *json;
	bool quiet;
	uint64_t late_ns;
	uint64_t drain_ns;
	uint64_t spin_ns;
	double set_ratio;
	bool mark;
	const char *mark_ctl;		/* --mark-ctl: the plugin's control FIFO */
	const char *watch;
	long dump_sizes;
	long dump_arrivals;
	long check_hist;
} opt = {
	.threads = 1,
	.conns = 64,
	.rate = 10000,
	.duration = 10,
	.warmup = 1,
	.wl = WL_ETC,
	.keys = 100000,
	.seed = 1,
	.late_ns = 1000 * NSEC_PER_USEC,
	.drain_ns = 1000 * NSEC_PER_MSEC,
	.spin_ns = 50 * NSEC_PER_USEC,
	.set_ratio = -1,
	.dump_sizes = -1,
	.dump_arrivals = -1,
	.check_hist = -1,
};

static const char *const wl_name[] = { "etc", "usr" };

static unsigned int key_digits;	/* digits of KEYS - 1: the shortest key */
static char *pattern;		/* VALUE_MAX + 2 bytes of value, then "\r\n" */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("kvload: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

/* ---- random numbers ---- */

/* splitmix64: a 64-bit mixer, used to hash key numbers and to seed. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* xoshiro256** (Blackman and Vigna), one state per thread. */
struct rng {
	uint64_t s[4];
};

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		seed = mix64(seed);
		r->s[i] = seed;
	}
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* A uniform variate in the open interval (0, 1) from 53 bits of x. */
static inline double unit_open(uint64_t x)
{
	return ((x >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static inline double rng_unit(struct rng *r)
{
	return unit_open(rng_next(r));
}

/* ---- the workloads' distributions ---- */

/* Generalized extreme value, inverse CDF: F(x) = exp(-(1 + k z)^(-1/k)). */
static double gev_inv(double u, double loc, double scale, double shape)
{
	return loc + scale * (pow(-log(u), -shape) - 1) / shape;
}

/*
 * Generalized Pareto from a uniform u standing for the survival
 * probability 1 - F(x) = (1 + k (x - loc) / scale)^(-1/k).
 */
static double gpd_inv_surv(double u, double loc, double scale, double shape)
{
	return loc + scale * (pow(u, -shape) - 1) / shape;
}

#define ETC_KEY_LOC	30.7984
#define ETC_KEY_SCALE	8.20449
#define ETC_KEY_SHAPE	0.078688
#define ETC_VAL_LOC	0.0
#define ETC_VAL_SCALE	214.476
#define ETC_VAL_SHAPE	0.348238
#define ETC_SET_P	(1.0 / 31)
#define USR_SET_P	0.002

/* mutilate's fb_value: the probability of value sizes 0..14 bytes. */
static const double etc_small_p[15] = {
	0.00536, 0.00047, 0.17820, 0.09239, 0.00018,
	0.02740, 0.00065, 0.00606, 0.00023, 0.00837,
	0.00837, 0.08989, 0.00092, 0.00326, 0.01980,
};

static unsigned int key_len(uint64_t key)
{
	uint64_t h = mix64(key ^ 0x6b766c6f61646b65ULL);
	long len;

	if (opt.wl == WL_USR) {
		len = (h >> 63) ? 21 : 16;
	} else {
		double x = gev_inv(unit_open(h), ETC_KEY_LOC, ETC_KEY_SCALE, ETC_KEY_SHAPE);

		len = x > KEY_MAX ? KEY_MAX : lround(x);
	}
	if (len < (long)key_digits)
		len = key_digits;
	if (len > KEY_MAX)
		len = KEY_MAX;
	return len;
}

static unsigned int value_len(struct rng *r)
{
	double u, x;

	if (opt.wl == WL_USR)
		return 2;
	u = rng_unit(r);
	for (int i = 0; i < 15; i++) {
		if (u < etc_small_p[i])
			return i;
		u -= etc_small_p[i];
	}
	x = gpd_inv_surv(rng_unit(r), ETC_VAL_LOC, ETC_VAL_SCALE, ETC_VAL_SHAPE);
	if (x >= VALUE_MAX)
		return VALUE_MAX;
	return lround(x);
}

static double set_p(void)
{
	if (opt.set_ratio >= 0)
		return opt.set_ratio;
	return opt.wl == WL_USR ? USR_SET_P : ETC_SET_P;
}

/* An exponential inter-arrival time in ns for a mean of mean_ns. */
static inline double exp_ns(struct rng *r, double mean_ns)
{
	return -mean_ns * log(rng_unit(r));
}

/* ---- log-linear histogram ---- */

/*
 * Values below 2^SUB_BITS have a bucket each; above, every power of two
 * [2^e, 2^(e+1)) has 2^SUB_BITS buckets of width 2^(e - SUB_BITS).  A
 * bucket's midpoint is within 1/2^(SUB_BITS+1) = 0.4% of any value in it.
 */
#define HIST_SUB_BITS	7
#define HIST_SUB	(1U << HIST_SUB_BITS)
#define HIST_BUCKETS	((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t n;
	uint64_t max;
	double sum;
	uint64_t count[HIST_BUCKETS];
};

static inline unsigned int hist_index(uint64_t v)
{
	unsigned int shift;

	if (v < HIST_SUB)
		return v;
	shift = 63 - __builtin_clzll(v) - HIST_SUB_BITS;
	return (shift + 1) * HIST_SUB + (unsigned int)((v >> shift) - HIST_SUB);
}

static uint64_t hist_low(unsigned int idx)
{
	unsigned int shift;

	if (idx < HIST_SUB)
		return idx;
	shift = idx / HIST_SUB - 1;
	return (uint64_t)(idx % HIST_SUB + HIST_SUB) << shift;
}

static uint64_t hist_width(unsigned int idx)
{
	return idx < 2 * HIST_SUB ? 1 : 1ULL << (idx / HIST_SUB - 1);
}

static inline void hist_add(struct hist *h, uint64_t v)
{
	h->count[hist_index(v)]++;
	h->n++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

static void hist_merge(struct hist *dst, const struct hist *src)
{
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		dst->count[i] += src->count[i];
	dst->n += src->n;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* The q-quantile (0 < q <= 1): the midpoint of its bucket, at most max. */
static uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return 0;
	rank = (uint64_t)ceil(q * h->n);
	if (rank < 1)
		rank = 1;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank) {
			uint64_t v = hist_low(i) + (hist_width(i) - 1) / 2;

			return v > h->max ? h->max : v;
		}
	}
	return h->max;
}

/* ---- connections ---- */

struct req {
	uint64_t sched;		/* the time it was due, ns */
	uint8_t op;		/* enum op */
	uint8_t phase;		/* enum phase */
};

struct conn {
	int fd;
	bool dead;
	bool want_out;		/* EPOLLOUT is armed */
	bool dirty;		/* on the thread's list to flush */
	char *out;
	size_t out_off, out_len, out_cap;
	char *in;
	size_t in_len, in_cap;
	size_t val_left;	/* bytes of a VALUE's data (and CRLF) to skip */
	bool got_value;		/* a VALUE line came before END */
	struct req *q;		/* requests awaiting replies, in order */
	size_t q_head, q_tail, q_cap;	/* q_cap a power of two */
};

struct counts {
	uint64_t sent;		/* requests sent in the measurement window */
	uint64_t done;		/* of these, replies read */
	uint64_t window;	/* replies read in the window, to any request */
	uint64_t gets, sets;
	uint64_t hits, misses;
	uint64_t errors;	/* error replies, NOT_STORED, broken ones */
	uint64_t late;		/* sent more than late_ns after their time */
	uint64_t lost;		/* no reply by the end of the drain */
};

struct thread {
	int id;
	pthread_t tid;
	int epfd;
	struct conn *conns;
	int nconns;
	int live;
	int *dirty;
	int ndirty;
	struct rng rng;
	double mean_ns;		/* mean inter-arrival time */
	struct counts c;
	uint64_t pre_sets, pre_done, pre_errors;
	uint64_t unexpected;	/* replies to no request, any phase */
	struct hist lat;	/* latency of measured requests, ns */
	struct hist lag;	/* send lag of measured requests, ns */
	uint64_t all_sent, all_done;	/* in any phase but preload */
	/* read by the progress reporter */
	uint64_t pub_sent, pub_done;
	bool finished;
};

static struct thread *threads;
static pthread_barrier_t barrier;
static uint64_t t_start, t_meas, t_end;

static void conn_q_push(struct conn *c, uint64_t sched, enum op op, enum phase ph)
{
	if (c->q_tail - c->q_head == c->q_cap) {
		size_t ncap = c->q_cap ? 2 * c->q_cap : 64;
		struct req *nq = xrealloc(NULL, ncap * sizeof(*nq));

		for (size_t i = c->q_head; i != c->q_tail; i++)
			nq[i & (ncap - 1)] = c->q[i & (c->q_cap - 1)];
		free(c->q);
		c->q = nq;
		c->q_cap = ncap;
	}
	c->q[c->q_tail++ & (c->q_cap - 1)] = (struct req){ sched, op, ph };
}

static size_t conn_q_len(const struct conn *c)
{
	return c->q_tail - c->q_head;
}

static char *conn_out_reserve(struct conn *c, size_t need)
{
	if (c->out_off && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->out_len + need > c->out_cap) {
		if (c->out_off) {
			memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
			c->out_len -= c->out_off;
			c->out_off = 0;
		}
		if (c->out_len + need > c->out_cap) {
			size_t ncap = c->out_cap ? c->out_cap : 16384;

			while (ncap < c->out_len + need)
				ncap *= 2;
			c->out = xrealloc(c->out, ncap);
			c->out_cap = ncap;
		}
	}
	return c->out + c->out_len;
}

static void conn_set_events(struct thread *th, int idx, bool out)
{
	struct conn *c = &th->conns[idx];
	struct epoll_event ev = {
		.events = EPOLLIN | (out ? EPOLLOUT : 0),
		.data.u32 = idx,
	};

	if (c->want_out == out)
		return;
	if (epoll_ctl(th->epfd, EPOLL_CTL_MOD, c->fd, &ev) < 0)
		die("epoll_ctl: %s", strerror(errno));
	c->want_out = out;
}

static void conn_fail(struct thread *th, int idx, const char *why);

static void conn_flush(struct thread *th, int idx)
{
	struct conn *c = &th->conns[idx];

	while (!c->dead && c->out_off < c->out_len) {
		ssize_t n = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				conn_set_events(th, idx, true);
				return;
			}
			conn_fail(th, idx, strerror(errno));
			return;
		}
		c->out_off += n;
	}
	c->out_off = c->out_len = 0;
	if (!c->dead)
		conn_set_events(th, idx, false);
}

/* Write key number k, zero-padded, in exactly len >= its digits bytes. */
static inline void put_key(char *dst, uint64_t k, unsigned int len)
{
	char *p = dst + len;

	while (p > dst) {
		*--p = '0' + k % 10;
		k /= 10;
	}
}

static inline char *put_uint(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static void conn_mark_dirty(struct thread *th, int idx)
{
	if (!th->conns[idx].dirty) {
		th->conns[idx].dirty = true;
		th->dirty[th->ndirty++] = idx;
	}
}

static void queue_request(struct thread *th, int idx, enum op op, uint64_t key,
			  unsigned int vlen, uint64_t sched, enum phase ph)
{
	struct conn *c = &th->conns[idx];
	unsigned int klen = key_len(key);
	char *p;

	if (op == OP_GET) {
		p = conn_out_reserve(c, 4 + klen + 2);
		memcpy(p, "get ", 4);
		put_key(p + 4, key, klen);
		p += 4 + klen;
		memcpy(p, "\r\n", 2);
		p += 2;
	} else {
		p = conn_out_reserve(c, 4 + klen + 5 + 20 + 2 + vlen + 2);
		memcpy(p, "set ", 4);
		put_key(p + 4, key, klen);
		p += 4 + klen;
		memcpy(p, " 0 0 ", 5);
		p = put_uint(p + 5, vlen);
		memcpy(p, "\r\n", 2);
		p += 2;
		memcpy(p, pattern + VALUE_MAX - vlen, vlen + 2);
		p += vlen + 2;
	}
	c->out_len = p - c->out;
	conn_q_push(c, sched, op, ph);
	conn_mark_dirty(th, idx);
}

static void flush_dirty(struct thread *th)
{
	for (int i = 0; i < th->ndirty; i++) {
		th->conns[th->dirty[i]].dirty = false;
		conn_flush(th, th->dirty[i]);
	}
	th->ndirty = 0;
}

/* A reply has been read completely at time now: account for its request. */
static void complete(struct thread *th, struct conn *c, enum reply rp, uint64_t now)
{
	struct req r;
	bool ok;

	if (!conn_q_len(c)) {
		th->unexpected++;
		return;
	}
	r = c->q[c->q_head++ & (c->q_cap - 1)];
	if (r.op == OP_GET)
		ok = rp == RP_HIT || rp == RP_MISS;
	else
		ok = rp == RP_STORED;
	if (r.phase == PH_PRELOAD) {
		th->pre_done++;
		if (!ok)
			th->pre_errors++;
		return;
	}
	th->all_done++;
	if (now >= t_meas && now < t_end)
		th->c.window++;
	if (r.phase != PH_MEASURE)
		return;
	th->c.done++;
	hist_add(&th->lat, now > r.sched ? now - r.sched : 0);
	if (!ok)
		th->c.errors++;
	else if (rp == RP_HIT)
		th->c.hits++;
	else if (rp == RP_MISS)
		th->c.misses++;
}

/* Count a connection's outstanding requests as lost and close it. */
static void conn_fail(struct thread *th, int idx, const char *why)
{
	struct conn *c = &th->conns[idx];

	if (c->dead)
		return;
	fprintf(stderr, "kvload: thread %d connection %d: %s\n", th->id, idx, why);
	for (size_t i = c->q_head; i != c->q_tail; i++) {
		struct req *r = &c->q[i & (c->q_cap - 1)];

		if (r->phase == PH_MEASURE)
			th->c.errors++;
		else if (r->phase == PH_PRELOAD)
			th->pre_errors++;
	}
	c->q_head = c->q_tail;
	c->dead = true;
	c->out_off = c->out_len = 0;
	epoll_ctl(th->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	th->live--;
	if (!th->live)
		die("thread %d: no connection left", th->id);
}

static bool line_is(const char *line, size_t len, const char *word)
{
	size_t n = strlen(word);

	return len >= n && !memcmp(line, word, n) && (len == n || line[n] == ' ');
}

/* The data size of "VALUE <key> <flags> <bytes> [<cas>]", or -1. */
static long value_bytes(const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	int field = 0;
	long v = 0;

	while (p < end && field < 4) {
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		field++;
		if (field == 4) {
			if (*p < '0' || *p > '9')
				return -1;
			while (p < end && *p >= '0' && *p <= '9') {
				v = v * 10 + (*p++ - '0');
				if (v > (1L << 40))
					return -1;
			}
			return (p == end || *p == ' ') ? v : -1;
		}
		while (p < end && *p != ' ')
			p++;
	}
	return -1;
}

/*
 * Parse what has been read on a connection: replies in the order of the
 * requests.  A GET's reply is END (a miss) or VALUE lines with their data
 * and then END (a hit); a SET's is STORED, or NOT_STORED, EXISTS or
 * NOT_FOUND, which count as errors; ERROR, CLIENT_ERROR and SERVER_ERROR
 * lines answer either and are errors.  Anything else breaks the
 * connection: once out of step, replies cannot be matched to requests.
 */
static void conn_parse(struct thread *th, int idx, uint64_t now)
{
	struct conn *c = &th->conns[idx];
	size_t off = 0;

	while (off < c->in_len) {
		char *line = c->in + off, *nl;
		size_t avail = c->in_len - off, len;

		if (c->val_left) {
			size_t n = avail < c->val_left ? avail : c->val_left;

			off += n;
			c->val_left -= n;
			continue;
		}
		nl = memchr(line, '\n', avail);
		if (!nl) {
			if (avail > LINE_MAX_LEN) {
				conn_fail(th, idx, "reply line too long");
				return;
			}
			break;
		}
		off += nl - line + 1;
		len = nl - line;
		if (len && line[len - 1] == '\r')
			len--;
		if (line_is(line, len, "VALUE")) {
			long n = value_bytes(line, len);

			if (n < 0) {
				conn_fail(th, idx, "bad VALUE line");
				return;
			}
			c->val_left = n + 2;
			c->got_value = true;
		} else if (line_is(line, len, "END")) {
			complete(th, c, c->got_value ? RP_HIT : RP_MISS, now);
			c->got_value = false;
		} else if (line_is(line, len, "STORED")) {
			complete(th, c, RP_STORED, now);
		} else if (line_is(line, len, "NOT_STORED") ||
			   line_is(line, len, "EXISTS") ||
			   line_is(line, len, "NOT_FOUND")) {
			complete(th, c, RP_NOT_STORED, now);
		} else if (line_is(line, len, "ERROR") ||
			   line_is(line, len, "CLIENT_ERROR") ||
			   line_is(line, len, "SERVER_ERROR")) {
			c->got_value = false;
			complete(th, c, RP_ERROR, now);
		} else {
			conn_fail(th, idx, "unknown reply");
			return;
		}
	}
	if (off) {
		memmove(c->in, c->in + off, c->in_len - off);
		c->in_len -= off;
	}
}

static void conn_read(struct thread *th, int idx)
{
	struct conn *c = &th->conns[idx];

	while (!c->dead) {
		size_t room;
		ssize_t n;

		if (c->in_cap - c->in_len < IN_CHUNK / 2) {
			c->in_cap += IN_CHUNK;
			c->in = xrealloc(c->in, c->in_cap);
		}
		room = c->in_cap - c->in_len;
		n = read(c->fd, c->in + c->in_len, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				conn_fail(th, idx, strerror(errno));
			return;
		}
		if (n == 0) {
			conn_fail(th, idx, "closed by the server");
			return;
		}
		c->in_len += n;
		conn_parse(th, idx, now_ns());
		if (c->in_cap > 4 * IN_CHUNK && c->in_len < IN_CHUNK) {
			c->in_cap = IN_CHUNK;
			c->in = xrealloc(c->in, c->in_cap);
		}
		/* A short read emptied the socket: save the read that says so. */
		if ((size_t)n < room)
			return;
	}
}

/*
 * Wait for events until deadline (ns, 0: poll) and handle them.  A sleep
 * in epoll ends some tens of microseconds late on a busy or virtual host,
 * so the last spin_ns before the deadline are spent polling instead.
 */
static void poll_events(struct thread *th, uint64_t deadline)
{
	struct epoll_event ev[64];
	struct timespec ts = { 0, 0 };
	uint64_t now = now_ns();
	int n;

	if (deadline > now + opt.spin_ns) {
		ts.tv_sec = (deadline - now - opt.spin_ns) / NSEC_PER_SEC;
		ts.tv_nsec = (deadline - now - opt.spin_ns) % NSEC_PER_SEC;
	}
	n = epoll_pwait2(th->epfd, ev, 64, &ts, NULL);
	if (n < 0) {
		if (errno == EINTR)
			return;
		die("epoll_pwait2: %s", strerror(errno));
	}
	for (int i = 0; i < n; i++) {
		int idx = ev[i].data.u32;

		if (th->conns[idx].dead)
			continue;
		if (ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
			conn_read(th, idx);
		if (!th->conns[idx].dead && (ev[i].events & EPOLLOUT))
			conn_flush(th, idx);
	}
}

static void connect_all(struct thread *th)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	int err = getaddrinfo(opt.host, opt.port, &hints, &ai);

	if (err)
		die("%s:%s: %s", opt.host, opt.port, gai_strerror(err));
	th->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (th->epfd < 0)
		die("epoll_create1: %s", strerror(errno));
	for (int i = 0; i < th->nconns; i++) {
		struct conn *c = &th->conns[i];
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };
		int one = 1;

		c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (c->fd < 0)
			die("socket: %s", strerror(errno));
		if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) < 0)
			die("connect to %s:%s: %s", opt.host, opt.port, strerror(errno));
		setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
		if (epoll_ctl(th->epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0)
			die("epoll_ctl: %s", strerror(errno));
	}
	th->live = th->nconns;
	freeaddrinfo(ai);
}

/* Set this thread's share of the keys, pipelined, and wait for the replies. */
static void preload(struct thread *th)
{
	uint64_t k = th->id;
	uint64_t last = now_ns(), done = 0;

	for (;;) {
		size_t outstanding = 0;

		for (int i = 0; i < th->nconns; i++) {
			struct conn *c = &th->conns[i];

			while (!c->dead && k < opt.keys && conn_q_len(c) < PRELOAD_DEPTH) {
				queue_request(th, i, OP_SET, k, value_len(&th->rng), 0,
					      PH_PRELOAD);
				th->pre_sets++;
				k += opt.threads;
			}
			outstanding += conn_q_len(c);
		}
		flush_dirty(th);
		if (!outstanding && k >= opt.keys)
			break;
		poll_events(th, now_ns() + 100 * NSEC_PER_MSEC);
		if (th->pre_done != done) {
			done = th->pre_done;
			last = now_ns();
		} else if (now_ns() - last > 10 * NSEC_PER_SEC) {
			die("no reply while loading the keys, for 10 s");
		}
	}
}

static int pick_conn(struct thread *th)
{
	int idx = rng_next(&th->rng) % th->nconns;

	while (th->conns[idx].dead)
		idx = (idx + 1) % th->nconns;
	return idx;
}

static void publish(struct thread *th)
{
	__atomic_store_n(&th->pub_sent, th->all_sent, __ATOMIC_RELAXED);
	__atomic_store_n(&th->pub_done, th->all_done, __ATOMIC_RELAXED);
}

static void run(struct thread *th)
{
	/* next: the next request's time, in ns after t_start */
	double next = exp_ns(&th->rng, th->mean_ns), stop = t_end - t_start;
	uint64_t deadline;
	size_t outstanding;

	while (next < stop) {
		uint64_t now = now_ns();

		for (int n = 0; n < BURST && t_start + next <= now && next < stop; n++) {
			uint64_t sched = t_start + (uint64_t)next;
			enum phase ph = sched >= t_meas ? PH_MEASURE : PH_WARMUP;
			enum op op = rng_unit(&th->rng) < set_p() ? OP_SET : OP_GET;
			uint64_t key = rng_next(&th->rng) % opt.keys;
			unsigned int vlen = op == OP_SET ? value_len(&th->rng) : 0;

			queue_request(th, pick_conn(th), op, key, vlen, sched, ph);
			th->all_sent++;
			if (ph == PH_MEASURE) {
				th->c.sent++;
				if (op == OP_SET)
					th->c.sets++;
				else
					th->c.gets++;
				hist_add(&th->lag, now - sched);
				if (now - sched > opt.late_ns)
					th->c.late++;
			}
			next += exp_ns(&th->rng, th->mean_ns);
		}
		flush_dirty(th);
		publish(th);
		poll_events(th, t_start + (uint64_t)next);
	}
	/* Drain: wait for the replies still due. */
	deadline = t_end + opt.drain_ns;
	for (;;) {
		outstanding = 0;
		for (int i = 0; i < th->nconns; i++)
			outstanding += conn_q_len(&th->conns[i]);
		publish(th);
		if (!outstanding || now_ns() >= deadline)
			break;
		poll_events(th, deadline);
	}
	for (int i = 0; i < th->nconns; i++) {
		struct conn *c = &th->conns[i];

		for (size_t j = c->q_head; j != c->q_tail; j++)
			if (c->q[j & (c->q_cap - 1)].phase == PH_MEASURE)
				th->c.lost++;
	}
}

static void *thread_main(void *arg)
{
	struct thread *th = arg;

	connect_all(th);
	if (opt.preload)
		preload(th);
	pthread_barrier_wait(&barrier);	/* connected and loaded */
	pthread_barrier_wait(&barrier);	/* t_start is set */
	run(th);
	__atomic_store_n(&th->finished, true, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- dump modes, for the selftest ---- */

static void dump_sizes(long n)
{
	struct rng r;

	rng_seed(&r, opt.seed);
	for (long i = 0; i < n; i++) {
		uint64_t key = rng_next(&r) % opt.keys;

		printf("%u %u\n", key_len(key), value_len(&r));
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Record n values spread log-uniformly over 1 ns .. 100 s and print, for
 * some quantiles, the histogram's value, the exact one and their relative
 * error; the largest error comes last.
 */
static void check_hist(long n)
{
	static const double qs[] = { 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1 };
	uint64_t *v = xrealloc(NULL, (n ? n : 1) * sizeof(*v));
	struct hist *h = xrealloc(NULL, sizeof(*h));
	double worst = 0;
	struct rng r;

	memset(h, 0, sizeof(*h));
	rng_seed(&r, opt.seed);
	for (long i = 0; i < n; i++) {
		v[i] = (uint64_t)exp(rng_unit(&r) * log(100.0 * NSEC_PER_SEC));
		hist_add(h, v[i]);
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	for (unsigned int i = 0; n && i < ARRAY_SIZE(qs); i++) {
		long rank = (long)ceil(qs[i] * n);
		uint64_t exact = v[(rank < 1 ? 1 : rank) - 1];
		uint64_t got = hist_quantile(h, qs[i]);
		double err = fabs((double)got - exact) / exact;

		printf("q %g hist %llu exact %llu error %.5f\n", qs[i],
		       (unsigned long long)got, (unsigned long long)exact, err);
		if (err > worst)
			worst = err;
	}
	printf("worst %.5f\n", worst);
	free(v);
	free(h);
}

static void dump_arrivals(long n)
{
	struct rng r;
	double mean_ns = NSEC_PER_SEC / opt.rate;

	rng_seed(&r, opt.seed);
	for (long i = 0; i < n; i++)
		printf("%.3f\n", exp_ns(&r, mean_ns) / NSEC_PER_USEC);
}

/* ---- reporting ---- */

static double us(uint64_t ns)
{
	return ns / 1000.0;
}

/* At the window's start and end: marks' sequence numbers, CPU and wall times. */
struct window_points {
	uint64_t watch[2];
	unsigned long long seq[2];
	uint64_t cpu[2];
	uint64_t wall[2];
};

static void report(struct counts *t, struct hist *lat, struct hist *lag,
		   uint64_t pre_sets, uint64_t pre_errors, uint64_t unexpected,
		   const struct window_points *wp)
{
	const uint64_t *watch = wp->watch;
	double cpu_pct = wp->wall[1] > wp->wall[0] ?
			 100.0 * (wp->cpu[1] - wp->cpu[0]) / (wp->wall[1] - wp->wall[0]) : 0;
	double achieved = t->window / opt.duration;
	double sent_rate = t->sent / opt.duration;
	double late_frac = t->sent ? (double)t->late / t->sent : 0;
	uint64_t p50 = hist_quantile(lat, 0.50), p90 = hist_quantile(lat, 0.90);
	uint64_t p99 = hist_quantile(lat, 0.99), p999 = hist_quantile(lat, 0.999);
	double mean = lat->n ? lat->sum / lat->n : 0;

	printf("kvload: %s:%s workload %s, %d conns, %d threads, %g s after %g s warm-up, "
	       "%llu keys\n",
	       opt.host, opt.port, wl_name[opt.wl], opt.conns, opt.threads,
	       opt.duration, opt.warmup, (unsigned long long)opt.keys);
	if (opt.preload)
		printf("preload    %llu sets, %llu errors\n",
		       (unsigned long long)pre_sets, (unsigned long long)pre_errors);
	printf("rate       offered %.0f/s  sent %.0f/s  achieved %.0f/s\n",
	       opt.rate, sent_rate, achieved);
	printf("requests   %llu replied (%llu gets, %llu sets sent)  hits %llu  misses %llu  "
	       "errors %llu  lost %llu\n",
	       (unsigned long long)t->done, (unsigned long long)t->gets,
	       (unsigned long long)t->sets, (unsigned long long)t->hits,
	       (unsigned long long)t->misses, (unsigned long long)t->errors,
	       (unsigned long long)t->lost);
	printf("latency us p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f\n",
	       us(p50), us(p90), us(p99), us(p999), us(lat->max), mean / 1000);
	printf("send lag us p50 %.1f  p99 %.1f  max %.1f  late (> %.0f us) %llu (%.2f%%)\n",
	       us(hist_quantile(lag, 0.5)), us(hist_quantile(lag, 0.99)), us(lag->max),
	       us(opt.late_ns), (unsigned long long)t->late, 100 * late_frac);
	printf("client cpu %.1f%% of one core over the window\n", cpu_pct);
	if (unexpected)
		printf("unexpected replies %llu\n", (unsigned long long)unexpected);
	if (late_frac > 0.01)
		printf("WARNING: the generator fell behind: %.2f%% of requests were sent more "
		       "than %.0f us late; their latencies include that lag: use more threads, "
		       "a lower rate or a quieter host\n",
		       100 * late_frac, us(opt.late_ns));
	if (t->lost)
		printf("WARNING: %llu requests had no reply %.0f ms after the end\n",
		       (unsigned long long)t->lost, opt.drain_ns / 1e6);

	if (opt.json) {
		FILE *f = fopen(opt.json, "w");

		if (!f)
			die("%s: %s", opt.json, strerror(errno));
		fprintf(f, "{\"offered\": %.1f, \"achieved\": %.1f, \"sent_rate\": %.1f, ",
			opt.rate, achieved, sent_rate);
		fprintf(f, "\"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, ",
			us(p50), us(p90), us(p99));
		fprintf(f, "\"p999_us\": %.1f, \"max_us\": %.1f, \"mean_us\": %.1f, ",
			us(p999), us(lat->max), mean / 1000);
		fprintf(f, "\"requests\": %llu, \"sent\": %llu, \"gets\": %llu, \"sets\": %llu, ",
			(unsigned long long)t->done, (unsigned long long)t->sent,
			(unsigned long long)t->gets, (unsigned long long)t->sets);
		fprintf(f, "\"hits\": %llu, \"errors\": %llu, \"misses\": %llu, ",
			(unsigned long long)t->hits, (unsigned long long)t->errors,
			(unsigned long long)t->misses);
		fprintf(f, "\"late\": %llu, \"lost\": %llu, \"unexpected\": %llu, ",
			(unsigned long long)t->late, (unsigned long long)t->lost,
			(unsigned long long)unexpected);
		fprintf(f, "\"window_replies\": %llu, \"marks\": %d, ",
			(unsigned long long)t->window, opt.mark ? 2 : 0);
		if (opt.mark_ctl)
			fprintf(f, "\"mark_seq0\": %llu, \"mark_seq1\": %llu, ",
				wp->seq[0], wp->seq[1]);
		if (opt.watch)
			fprintf(f, "\"watch0\": %llu, \"watch1\": %llu, ",
				(unsigned long long)watch[0], (unsigned long long)watch[1]);
		fprintf(f, "\"cpu_pct\": %.1f, ", cpu_pct);
		fprintf(f, "\"lag_p99_us\": %.1f, \"lag_max_us\": %.1f, ",
			us(hist_quantile(lag, 0.99)), us(lag->max));
		fprintf(f, "\"preload_sets\": %llu, \"preload_errors\": %llu, ",
			(unsigned long long)pre_sets, (unsigned long long)pre_errors);
		fprintf(f, "\"workload\": \"%s\", \"conns\": %d, \"threads\": %d, ",
			wl_name[opt.wl], opt.conns, opt.threads);
		fprintf(f, "\"duration_s\": %g, \"warmup_s\": %g, ", opt.duration, opt.warmup);
		fprintf(f, "\"keys\": %llu, \"seed\": %llu}\n", (unsigned long long)opt.keys,
			(unsigned long long)opt.seed);
		if (fclose(f))
			die("%s: %s", opt.json, strerror(errno));
	}
}

/* kvload's own CPU time so far, user and system, in nanoseconds. */
static uint64_t cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		die("getrusage: %s", strerror(errno));
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NSEC_PER_SEC +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * NSEC_PER_USEC;
}

/*
 * -M: the icount plugin's mark, after reading the --watch counter (0
 * without one).  The instruction is x86's; elsewhere there is no plugin.
 * --mark-ctl: the mark through the plugin's control FIFO instead, its
 * sequence number in *@seq.
 */
static uint64_t window_mark(int which, unsigned long long *seq)
{
	unsigned long long v = 0;
	char label[64];
	FILE *f;

	if (opt.watch) {
		f = fopen(opt.watch, "r");
		if (!f || fscanf(f, "%llu", &v) != 1)
			die("--watch %s: cannot read a number", opt.watch);
		fclose(f);
	}
	if (opt.mark_ctl) {
		snprintf(label, sizeof(label), "kvload-%d-%s", (int)getpid(),
			 which ? "end" : "start");
		if (icount_host_mark(opt.mark_ctl, label, seq))
			die("--mark-ctl %s: %s", opt.mark_ctl, strerror(errno));
		return v;
	}
#if defined(__x86_64__) || defined(__i386__)
	asm volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");
#endif
	return v;
}

/*
 * Report progress once a second until every thread has finished; at the
 * measurement window's start and end (t_meas, t_end) read the CPU time
 * and, with -M or --mark-ctl, mark, into @wp; @marked counts the points
 * passed.
 */
static void progress(struct window_points *wp, int *marked)
{
	uint64_t next = t_start + NSEC_PER_SEC, prev_done = 0;
	const uint64_t mark_at[2] = { t_meas, t_end };

	for (;;) {
		uint64_t wake = now_ns() + 50 * NSEC_PER_MSEC, sent = 0, done = 0;
		struct timespec ts;
		int finished = 0;

		if (wake > next)
			wake = next;
		if (*marked < 2 && wake > mark_at[*marked])
			wake = mark_at[*marked];
		ts.tv_sec = wake / NSEC_PER_SEC;
		ts.tv_nsec = wake % NSEC_PER_SEC;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		/* before the threads' end: they may finish right at t_end */
		if (*marked < 2 && now_ns() >= mark_at[*marked]) {
			int i = *marked;

			/* the CPU time after the start mark and before the end's */
			if (opt.mark && !i)
				wp->watch[i] = window_mark(i, &wp->seq[i]);
			wp->cpu[i] = cpu_ns();
			wp->wall[i] = now_ns();
			if (opt.mark && i)
				wp->watch[i] = window_mark(i, &wp->seq[i]);
			(*marked)++;
		}
		for (int i = 0; i < opt.threads; i++) {
			sent += __atomic_load_n(&threads[i].pub_sent, __ATOMIC_RELAXED);
			done += __atomic_load_n(&threads[i].pub_done, __ATOMIC_RELAXED);
			finished += __atomic_load_n(&threads[i].finished, __ATOMIC_ACQUIRE);
		}
		if (finished == opt.threads && *marked == 2)
			return;
		if (now_ns() < next)
			continue;
		if (!opt.quiet)
			fprintf(stderr,
				"kvload: %4.0f s  %s  sent %llu  received %llu  rate %llu/s\n",
				(double)(next - t_start) / NSEC_PER_SEC,
				next <= t_meas ? "warm-up" : "measure",
				(unsigned long long)sent, (unsigned long long)done,
				(unsigned long long)(done - prev_done));
		prev_done = done;
		next += NSEC_PER_SEC;
	}
}

/* ---- options ---- */

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: kvload -s HOST:PORT [-t THREADS] [-c CONNS] [-r RATE] [-d SECONDS]\n"
		"              [-w WARMUP_S] [-W etc|usr] [-k KEYS] [-S SEED] [--preload]\n"
		"              [-o FILE.json] [-q] [--late-us N] [--drain-ms N] [--spin-us N]\n"
		"              [--set-ratio P] [-M | --mark-ctl CTL] [--watch FILE]\n"
		"       kvload [-W etc|usr] [-k KEYS] [-S SEED] --dump-sizes N\n"
		"       kvload [-r RATE] [-S SEED] --dump-arrivals N\n"
		"       kvload [-S SEED] --check-hist N\n"
		"defaults: -t 1 -c 64 -r 10000 -d 10 -w 1 -W etc -k 100000 -S 1\n"
		"          --late-us 1000 --drain-ms 1000 --spin-us 50\n");
	exit(status);
}

static double num(const char *s, const char *what, double min)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= min))
		die("bad %s: %s", what, s);
	return v;
}

static void parse_server(char *s)
{
	char *colon = strrchr(s, ':');

	if (!colon || colon == s || !colon[1])
		die("-s wants HOST:PORT, not %s", s);
	*colon = '\0';
	opt.port = colon + 1;
	if (s[0] == '[' && colon[-1] == ']') {
		colon[-1] = '\0';
		s++;
	}
	opt.host = s;
}

static void parse_args(int argc, char **argv)
{
	enum { O_PRELOAD = 256, O_LATE, O_DRAIN, O_SPIN, O_SET_RATIO, O_DUMP_SIZES, O_DUMP_ARRIVALS,
	       O_CHECK_HIST, O_WATCH, O_MARK_CTL };
	static const struct option lopts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "conns", required_argument, NULL, 'c' },
		{ "rate", required_argument, NULL, 'r' },
		{ "duration", required_argument, NULL, 'd' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "workload", required_argument, NULL, 'W' },
		{ "keys", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "preload", no_argument, NULL, O_PRELOAD },
		{ "mark", no_argument, NULL, 'M' },
		{ "watch", required_argument, NULL, O_WATCH },
		{ "mark-ctl", required_argument, NULL, O_MARK_CTL },
		{ "late-us", required_argument, NULL, O_LATE },
		{ "drain-ms", required_argument, NULL, O_DRAIN },
		{ "spin-us", required_argument, NULL, O_SPIN },
		{ "set-ratio", required_argument, NULL, O_SET_RATIO },
		{ "dump-sizes", required_argument, NULL, O_DUMP_SIZES },
		{ "dump-arrivals", required_argument, NULL, O_DUMP_ARRIVALS },
		{ "check-hist", required_argument, NULL, O_CHECK_HIST },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "s:t:c:r:d:w:W:k:S:o:qhM", lopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			parse_server(optarg);
			break;
		case 't':
			opt.threads = num(optarg, "thread count", 1);
			break;
		case 'c':
			opt.conns = num(optarg, "connection count", 1);
			break;
		case 'r':
			opt.rate = num(optarg, "rate", 1e-3);
			break;
		case 'd':
			opt.duration = num(optarg, "duration", 1e-3);
			break;
		case 'w':
			opt.warmup = num(optarg, "warm-up", 0);
			break;
		case 'W':
			if (!strcmp(optarg, "etc"))
				opt.wl = WL_ETC;
			else if (!strcmp(optarg, "usr"))
				opt.wl = WL_USR;
			else
				die("unknown workload %s (etc, usr)", optarg);
			break;
		case 'k':
			opt.keys = num(optarg, "key count", 1);
			break;
		case 'S':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			opt.json = optarg;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'h':
			usage(0);
			break;
		case O_PRELOAD:
			opt.preload = true;
			break;
		case 'M':
			if (opt.mark_ctl)
				die("-M and --mark-ctl: one or the other");
			opt.mark = true;
			break;
		case O_MARK_CTL:
			if (opt.mark)
				die("-M and --mark-ctl: one or the other");
			opt.mark = true;
			opt.mark_ctl = optarg;
			break;
		case O_WATCH:
			opt.watch = optarg;
			break;
		case O_LATE:
			opt.late_ns = num(optarg, "late threshold", 0) * NSEC_PER_USEC;
			break;
		case O_DRAIN:
			opt.drain_ns = num(optarg, "drain time", 0) * NSEC_PER_MSEC;
			break;
		case O_SPIN:
			opt.spin_ns = num(optarg, "spin time", 0) * NSEC_PER_USEC;
			break;
		case O_SET_RATIO:
			opt.set_ratio = num(optarg, "set ratio", 0);
			if (opt.set_ratio > 1)
				die("--set-ratio wants a fraction in [0, 1]");
			break;
		case O_DUMP_SIZES:
			opt.dump_sizes = num(optarg, "sample count", 0);
			break;
		case O_DUMP_ARRIVALS:
			opt.dump_arrivals = num(optarg, "sample count", 0);
			break;
		case O_CHECK_HIST:
			opt.check_hist = num(optarg, "sample count", 0);
			break;
		default:
			usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	if (opt.dump_sizes < 0 && opt.dump_arrivals < 0 && opt.check_hist < 0 && !opt.host)
		usage(2);
	if (opt.conns < opt.threads)
		die("fewer connections (%d) than threads (%d)", opt.conns, opt.threads);
	if (opt.watch && !opt.mark)
		die("--watch reads its counter at the marks: it needs -M or --mark-ctl");
}

int main(int argc, char **argv)
{
	struct counts tot = { 0 };
	struct hist *lat, *lag;
	uint64_t pre_sets = 0, pre_errors = 0, unexpected = 0;
	struct window_points wp = { 0 };
	int marked = 0;

	parse_args(argc, argv);
	key_digits = 1;
	for (uint64_t k = opt.keys - 1; k >= 10; k /= 10)
		key_digits++;
	if (key_digits > KEY_MAX)
		die("too many keys");

	if (opt.dump_sizes >= 0 || opt.dump_arrivals >= 0 || opt.check_hist >= 0) {
		if (opt.check_hist >= 0)
			check_hist(opt.check_hist);
		if (opt.dump_sizes >= 0)
			dump_sizes(opt.dump_sizes);
		if (opt.dump_arrivals >= 0)
			dump_arrivals(opt.dump_arrivals);
		return fflush(stdout) ? 2 : 0;
	}

	pattern = xrealloc(NULL, VALUE_MAX + 2);
	for (int i = 0; i < VALUE_MAX; i++)
		pattern[i] = 'a' + i % 26;
	memcpy(pattern + VALUE_MAX, "\r\n", 2);

	/* A server that goes away is reported, not a reason to die of SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	/* Precise wake-ups for the send times: the default slack is 50 us. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	threads = xrealloc(NULL, opt.threads * sizeof(*threads));
	memset(threads, 0, opt.threads * sizeof(*threads));
	pthread_barrier_init(&barrier, NULL, opt.threads + 1);
	for (int i = 0; i < opt.threads; i++) {
		struct thread *th = &threads[i];

		th->id = i;
		th->nconns = opt.conns / opt.threads + (i < opt.conns % opt.threads);
		th->conns = xrealloc(NULL, th->nconns * sizeof(*th->conns));
		memset(th->conns, 0, th->nconns * sizeof(*th->conns));
		th->dirty = xrealloc(NULL, th->nconns * sizeof(*th->dirty));
		th->mean_ns = NSEC_PER_SEC * (double)opt.threads / opt.rate;
		rng_seed(&th->rng, opt.seed * 1000003 + i);
		if (pthread_create(&th->tid, NULL, thread_main, th))
			die("pthread_create failed");
	}
	pthread_barrier_wait(&barrier);
	t_start = now_ns() + 10 * NSEC_PER_MSEC;
	t_meas = t_start + opt.warmup * NSEC_PER_SEC;
	t_end = t_meas + opt.duration * NSEC_PER_SEC;
	pthread_barrier_wait(&barrier);
	progress(&wp, &marked);

	lat = xrealloc(NULL, sizeof(*lat));
	lag = xrealloc(NULL, sizeof(*lag));
	memset(lat, 0, sizeof(*lat));
	memset(lag, 0, sizeof(*lag));
	for (int i = 0; i < opt.threads; i++) {
		struct thread *th = &threads[i];

		pthread_join(th->tid, NULL);
		hist_merge(lat, &th->lat);
		hist_merge(lag, &th->lag);
		tot.sent += th->c.sent;
		tot.done += th->c.done;
		tot.window += th->c.window;
		tot.gets += th->c.gets;
		tot.sets += th->c.sets;
		tot.hits += th->c.hits;
		tot.misses += th->c.misses;
		tot.errors += th->c.errors;
		tot.late += th->c.late;
		tot.lost += th->c.lost;
		pre_sets += th->pre_sets;
		pre_errors += th->pre_errors;
		unexpected += th->unexpected;
	}
	report(&tot, lat, lag, pre_sets, pre_errors, unexpected, &wp);
	return 0;
}
