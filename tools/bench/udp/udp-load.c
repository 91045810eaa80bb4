// SPDX-License-Identifier: GPL-2.0
/*
 * udp-load - closed-loop UDP load generator and latency meter
 *
 * Keeps a window of -n requests outstanding against a UDP echo server and
 * sends a new request as soon as one is answered.  Requests go round-robin
 * over -f flows, each its own socket (own source port) connected to the
 * server.  A request's first 16 bytes are its 64-bit sequence number and
 * its send time (CLOCK_MONOTONIC ns), the rest a pattern derived from the
 * sequence number; every reply is checked byte for byte against what was
 * sent.  A request unanswered for 200 ms counts as lost and its slot is
 * reused.  After -T seconds, or once -N requests have been sent, no new
 * requests are sent and the outstanding ones get the loss timeout to come
 * back.  -L sets that timeout (default 200 ms; under emulation, where
 * stalls of a second happen, a longer one keeps a slow reply from being
 * counted lost).
 *
 *   udp-load -d DST [-p PORT] [-s SIZE] [-n WINDOW] [-T SECS] [-N COUNT]
 *	      [-f FLOWS] [-c CPU] [-L LOSS_MS] [-o FILE] [-M [-W FILE]]
 *
 * Prints a progress line to stderr every second and at the end one line
 *   requests=N rate=R p50_us=X p90_us=Y p99_us=Z lost=L mismatched=M
 *   [marked_reqs=K] [watch0=V watch1=W]
 * (rate: good replies per second over the measured window, from the first
 * request sent to the last one answered or lost; percentiles over all RTT
 * samples).  -o writes every RTT sample (microseconds, in completion
 * order) to FILE.  -M marks that window for the icount QEMU plugin and
 * prints marked_reqs, the good replies at the end mark; -W FILE with it
 * prints a counter read at each mark (see mark()).
 * Exit status 0 if no reply mismatched, 1 if some did, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HDR_SIZE	16		/* seq + send timestamp */
#define MAX_SIZE	65507		/* largest UDP/IPv4 payload */
#define LOSS_MS		200		/* default loss timeout */
#define POLL_MS		10
#define MAX_EVENTS	64

/*
 * Slot i of the window carries requests i, i + n, i + 2n, ... so a reply's
 * sequence number names its slot (seq % n) without a lookup table.
 */
struct slot {
	uint64_t seq;
	uint64_t sent_ns;
	int flow;
	int busy;
};

static struct slot *slots;
static int *fds;
static unsigned int window = 1, nflows = 1;
static size_t size = 64;
static char *txbuf, *expbuf, *rxbuf;
static uint64_t requests, replies, lost, mismatched, late;
static uint32_t *rtt;			/* RTT samples, ns */
static size_t nrtt, rtt_cap;
static unsigned int next_flow;
static uint64_t max_requests;		/* -N; 0: no limit */
static uint64_t loss_ns = LOSS_MS * 1000000ULL;
static int draining;			/* no more requests are sent */
static const char *watch;		/* -W: read at each mark */

static void usage(void)
{
	fprintf(stderr,
		"Usage: udp-load -d DST [-p PORT] [-s SIZE] [-n WINDOW] [-T SECS] [-N COUNT]\n"
		"                [-f FLOWS] [-c CPU] [-L LOSS_MS] [-o FILE] [-M [-W FILE]]\n");
	exit(2);
}

static void die(const char *what)
{
	fprintf(stderr, "udp-load: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long parse_num(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		usage();
	return v;
}

/* splitmix64: the payload pattern after the header, a function of seq */
static void fill_pattern(char *buf, size_t len, uint64_t seq)
{
	uint64_t x = seq, z;
	size_t off, n;

	for (off = HDR_SIZE; off < len; off += n) {
		x += 0x9e3779b97f4a7c15ULL;
		z = x;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		n = len - off < 8 ? len - off : 8;
		memcpy(buf + off, &z, n);
	}
}

static void add_rtt(uint64_t ns)
{
	if (nrtt == rtt_cap) {
		rtt_cap = rtt_cap ? rtt_cap * 2 : 1 << 20;
		rtt = realloc(rtt, rtt_cap * sizeof(*rtt));
		if (!rtt)
			die("realloc");
	}
	rtt[nrtt++] = ns > UINT32_MAX ? UINT32_MAX : ns;
}

/* Whether another request may go out: not draining, -N not reached. */
static int may_send(void)
{
	return !draining && (!max_requests || requests < max_requests);
}

static void send_request(struct slot *s, uint64_t seq)
{
	s->seq = seq;
	s->flow = next_flow++ % nflows;
	s->busy = 1;
	s->sent_ns = now_ns();
	memcpy(txbuf, &s->seq, 8);
	memcpy(txbuf + 8, &s->sent_ns, 8);
	fill_pattern(txbuf, size, seq);
	requests++;
	/*
	 * A failed send (e.g. ECONNREFUSED left by an earlier ICMP error)
	 * leaves the request outstanding; it is counted lost after 200 ms.
	 */
	while (send(fds[s->flow], txbuf, size, 0) < 0 && errno == EINTR)
		;
}

static void handle_reply(int flow, ssize_t len, uint64_t now)
{
	uint64_t seq;
	struct slot *s;

	if (len < HDR_SIZE) {
		mismatched++;
		return;
	}
	memcpy(&seq, rxbuf, 8);
	s = &slots[seq % window];

	if (!s->busy || s->seq != seq) {
		/*
		 * Not outstanding: a late reply to a request already counted
		 * lost if it matches what that request was, else garbage.
		 */
		if (seq < s->seq + (s->busy ? 0 : window) &&
		    (size_t)len == size) {
			fill_pattern(expbuf, size, seq);
			if (!memcmp(rxbuf + HDR_SIZE, expbuf + HDR_SIZE,
				    size - HDR_SIZE)) {
				late++;
				return;
			}
		}
		mismatched++;
		return;
	}

	/* the reply completes the request either way */
	s->busy = 0;
	memcpy(expbuf, &s->seq, 8);
	memcpy(expbuf + 8, &s->sent_ns, 8);
	fill_pattern(expbuf, size, seq);
	if ((size_t)len != size || flow != s->flow ||
	    memcmp(rxbuf, expbuf, size)) {
		mismatched++;
	} else {
		replies++;
		add_rtt(now - s->sent_ns);
	}
	if (may_send())
		send_request(s, seq + window);
}

static void expire(uint64_t now, int all)
{
	unsigned int i;

	for (i = 0; i < window; i++) {
		struct slot *s = &slots[i];

		if (!s->busy || (!all && now - s->sent_ns < loss_ns))
			continue;
		lost++;
		s->busy = 0;
		if (may_send())
			send_request(s, s->seq + window);
	}
}

static int outstanding(void)
{
	unsigned int i;

	for (i = 0; i < window; i++)
		if (slots[i].busy)
			return 1;
	return 0;
}

/*
 * -M: the icount QEMU plugin's mark (tools/bench/icount): the guest
 * executes "xchg %bx,%bx", a no-op anywhere else, and the plugin writes
 * every vCPU's instruction counts.  udp-load marks the start and the end
 * of the window its rate is measured over, so that a server's
 * instructions per request are its vCPU's count between the two marks
 * over marked_reqs.  -W FILE: a counter (a sysfs file holding a number)
 * read just before each mark and printed as watch0= and watch1=, e.g.
 * ixmod's idle iterations over the window.
 */
static unsigned long long mark(void)
{
	unsigned long long v = 0;
	FILE *f;

	if (watch) {
		f = fopen(watch, "r");
		if (!f)
			die(watch);
		if (fscanf(f, "%llu", &v) != 1) {
			fprintf(stderr, "udp-load: %s: no number to read\n", watch);
			exit(2);
		}
		fclose(f);
	}
	asm volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");
	return v;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile, in microseconds */
static double percentile(double p)
{
	size_t rank;

	if (!nrtt)
		return 0.0;
	rank = (size_t)(p / 100.0 * nrtt + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > nrtt)
		rank = nrtt;
	return rtt[rank - 1] / 1000.0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(7) };
	struct epoll_event ev, events[MAX_EVENTS];
	unsigned long long watch0 = 0, watch1 = 0, marked = 0;
	uint64_t start, end, now, next_tick, last_expire, drain_end;
	int opt, epfd, n, i, cpu = -1, have_dst = 0, marks = 0;
	const char *rtt_file = NULL;
	long secs = 5, tick = 0;
	unsigned int f;
	ssize_t len;
	size_t k;
	FILE *out;

	while ((opt = getopt(argc, argv, "d:p:s:n:T:N:f:c:L:o:MW:")) != -1) {
		switch (opt) {
		case 'd':
			if (inet_pton(AF_INET, optarg, &dst.sin_addr) != 1) {
				fprintf(stderr, "udp-load: bad IPv4 address '%s'\n",
					optarg);
				exit(2);
			}
			have_dst = 1;
			break;
		case 'p':
			dst.sin_port = htons(parse_num(optarg, 1, 65535));
			break;
		case 's':
			size = parse_num(optarg, 0, MAX_SIZE);
			break;
		case 'n':
			window = parse_num(optarg, 1, 1 << 20);
			break;
		case 'T':
			secs = parse_num(optarg, 1, 86400);
			break;
		case 'N':
			max_requests = parse_num(optarg, 1, 1L << 40);
			break;
		case 'L':
			loss_ns = parse_num(optarg, 1, 60000) * 1000000ULL;
			break;
		case 'o':
			rtt_file = optarg;
			break;
		case 'f':
			nflows = parse_num(optarg, 1, 4096);
			break;
		case 'c':
			cpu = parse_num(optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'M':
			marks = 1;
			break;
		case 'W':
			watch = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !have_dst || (watch && !marks))
		usage();
	if (size < HDR_SIZE) {
		fprintf(stderr,
			"udp-load: payload size %zu too small: must be >= %d (sequence number + timestamp)\n",
			size, HDR_SIZE);
		exit(2);
	}

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
	}

	slots = calloc(window, sizeof(*slots));
	fds = calloc(nflows, sizeof(*fds));
	txbuf = malloc(size);
	expbuf = malloc(size);
	rxbuf = malloc(MAX_SIZE + 1);
	if (!slots || !fds || !txbuf || !expbuf || !rxbuf)
		die("malloc");

	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		die("epoll_create1");
	for (f = 0; f < nflows; f++) {
		fds[f] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fds[f] < 0)
			die("socket");
		/* connected: the kernel picks a source port, filters replies */
		if (connect(fds[f], (struct sockaddr *)&dst, sizeof(dst)))
			die("connect");
		ev.events = EPOLLIN;
		ev.data.u32 = f;
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, fds[f], &ev))
			die("epoll_ctl");
	}

	/*
	 * The measured window: from here, where the first requests go out,
	 * to the end of the drain below (-N's closed loop and -T alike), the
	 * span rate divides by.
	 */
	if (marks)
		watch0 = mark();
	start = now_ns();
	end = start + secs * 1000000000ULL;
	next_tick = start + 1000000000ULL;
	last_expire = start;
	drain_end = 0;
	for (f = 0; f < window && may_send(); f++)
		send_request(&slots[f], f);

	for (;;) {
		n = epoll_wait(epfd, events, MAX_EVENTS, POLL_MS);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			f = events[i].data.u32;
			for (;;) {
				len = recv(fds[f], rxbuf, MAX_SIZE + 1,
					   MSG_DONTWAIT);
				if (len < 0) {
					/* EAGAIN, or a queued ICMP error */
					if (errno == EINTR ||
					    errno == ECONNREFUSED)
						continue;
					break;
				}
				handle_reply(f, len, now_ns());
			}
		}

		now = now_ns();
		if (now - last_expire >= POLL_MS * 1000000ULL) {
			expire(now, 0);
			last_expire = now;
		}
		while (now >= next_tick && tick < secs) {
			tick++;
			fprintf(stderr, "udp-load: t=%lds %llu replies\n",
				tick, (unsigned long long)replies);
			next_tick += 1000000000ULL;
		}
		if (!draining && (now >= end || !may_send())) {
			draining = 1;
			drain_end = now + loss_ns;
		}
		if (draining) {
			/* all were sent before draining began: now lost */
			if (now >= drain_end)
				expire(now, 1);
			if (!outstanding())
				break;
		}
	}
	now = now_ns();
	if (marks) {
		watch1 = mark();
		marked = replies;
	}

	if (rtt_file) {
		out = fopen(rtt_file, "w");
		if (!out)
			die(rtt_file);
		for (k = 0; k < nrtt; k++)
			fprintf(out, "%.1f\n", rtt[k] / 1000.0);
		if (fclose(out))
			die(rtt_file);
	}
	qsort(rtt, nrtt, sizeof(*rtt), cmp_u32);
	if (late)
		fprintf(stderr, "udp-load: %llu late replies ignored\n",
			(unsigned long long)late);
	printf("requests=%llu rate=%.1f p50_us=%.1f p90_us=%.1f p99_us=%.1f lost=%llu mismatched=%llu",
	       (unsigned long long)requests,
	       replies / ((now - start) / 1e9),
	       percentile(50), percentile(90), percentile(99),
	       (unsigned long long)lost, (unsigned long long)mismatched);
	if (marks)
		printf(" marked_reqs=%llu", marked);
	if (watch)
		printf(" watch0=%llu watch1=%llu", watch0, watch1);
	printf("\n");
	return mismatched ? 1 : 0;
}
