// SPDX-License-Identifier: MIT
/*
 * kv front ends' common part - options, listeners and connection buffers for kv-epoll and
 * kv-uring (see frontend.h)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "frontend.h"

struct kv_server kv_server = {
	.threads	= 4,
	.port		= 11211,
	.maxconns	= 1024,
	.maxbytes	= 64,
	.addr		= "0.0.0.0",
};

void kv_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* --help to stdout with status 0, a bad option to stderr with status 2. */
static void __attribute__((noreturn)) kv_usage(const char *prog, bool help)
{
	fprintf(help ? stdout : stderr,
		"usage: %s [-p PORT] [-t THREADS] [-m MEGABYTES] [-c MAXCONNS] [-l ADDR]\n"
		"  -p PORT       TCP port (default 11211; 0: a free one, printed)\n"
		"  -t THREADS    worker threads (default 4, at most %d)\n"
		"  -m MEGABYTES  item memory limit in MiB (default 64)\n"
		"  -c MAXCONNS   most connections at once (default 1024); one more is\n"
		"                answered \"ERROR Too many open connections\" and closed\n"
		"  -l ADDR       IPv4 address to listen on (default 0.0.0.0)\n"
		"Memory: at most -m MiB of items (values being received or sent\n"
		"included), plus %zu KiB per connection.\n"
		"A second server on the same port is refused (EADDRINUSE).\n",
		prog, KV_THREADS_MAX, KV_CONN_ALLOWANCE >> 10);
	exit(help ? 0 : 2);
}

static unsigned long kv_number(const char *s, const char *prog, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || v > max)
		kv_usage(prog, false);
	return v;
}

/*
 * One listener for every thread.  SO_REUSEADDR only, as memcached: a
 * second server on the port fails with EADDRINUSE (SO_REUSEPORT would let
 * it start and the kernel would split the connections between two
 * separate stores).
 */
static int kv_listen(struct sockaddr_in *sin, const char *prog)
{
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		kv_die("socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		kv_die("setsockopt: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)sin, sizeof(*sin)))
		kv_die("%s: failed to listen on TCP port %u: %s", prog, ntohs(sin->sin_port),
		       strerror(errno));
	if (listen(fd, 1024))
		kv_die("listen: %s", strerror(errno));
	return fd;
}

void kv_server_setup(int argc, char **argv, const char *prog)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int opt;

	while ((opt = getopt_long(argc, argv, "p:t:m:c:l:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			kv_server.port = kv_number(optarg, prog, 65535);
			break;
		case 't':
			kv_server.threads = kv_number(optarg, prog, KV_THREADS_MAX);
			break;
		case 'm':
			kv_server.maxbytes = kv_number(optarg, prog, 1ul << 30);
			break;
		case 'c':
			kv_server.maxconns = kv_number(optarg, prog, 1u << 24);
			break;
		case 'l':
			kv_server.addr = optarg;
			break;
		case 'h':
			kv_usage(prog, true);
		default:
			kv_usage(prog, false);
		}
	}
	if (optind != argc || !kv_server.threads || !kv_server.maxbytes || !kv_server.maxconns)
		kv_usage(prog, false);
	if (inet_pton(AF_INET, kv_server.addr, &sin.sin_addr) != 1)
		kv_die("%s: bad address %s", prog, kv_server.addr);
	signal(SIGPIPE, SIG_IGN);

	kv_server.store = kv_store_create(kv_server.maxbytes << 20);
	if (!kv_server.store)
		kv_die("out of memory");
	sin.sin_port = htons(kv_server.port);
	kv_server.lfd = kv_listen(&sin, prog);
	if (getsockname(kv_server.lfd, (struct sockaddr *)&sin, &len))
		kv_die("getsockname: %s", strerror(errno));
	kv_server.port = ntohs(sin.sin_port);
	kv_server.store->settings.maxbytes = kv_server.maxbytes << 20;
	kv_server.store->settings.maxconns = kv_server.maxconns;
	kv_server.store->settings.port = kv_server.port;
	kv_server.store->settings.threads = kv_server.threads;
	kv_server.store->settings.inter = kv_server.addr;
}

void kv_server_ready(const char *prog)
{
	printf("%s: ready on port %u, %u threads\n", prog, kv_server.port, kv_server.threads);
	fflush(stdout);
}

bool kv_conn_admit(int fd)
{
	static const char full[] = "ERROR Too many open connections\r\n";
	int one = 1;

	if (__atomic_add_fetch(&kv_server.conns, 1, __ATOMIC_RELAXED) > kv_server.maxconns) {
		__atomic_sub_fetch(&kv_server.conns, 1, __ATOMIC_RELAXED);
		/* best effort: the connection is closed whatever happens */
		(void)!send(fd, full, sizeof(full) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		return false;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return true;
}

void kv_conn_release(void)
{
	__atomic_sub_fetch(&kv_server.conns, 1, __ATOMIC_RELAXED);
}

static struct kv_conn *kv_conn_of(struct kv_out *out)
{
	return (struct kv_conn *)((char *)out - offsetof(struct kv_conn, out));
}

static void kv_conn_write(struct kv_out *out, const void *buf, size_t len)
{
	if (!kv_outq_copy(&kv_conn_of(out)->oq, buf, len))
		kv_die("out of memory for a reply");
}

static void kv_conn_write_item(struct kv_out *out, struct kv_item *it, const void *p,
			       size_t len)
{
	if (!kv_outq_item(&kv_conn_of(out)->oq, it, p, len))
		kv_die("out of memory for a reply");
}

static size_t kv_conn_out_pending(struct kv_out *out)
{
	return kv_conn_pending(kv_conn_of(out));
}

void kv_conn_init(struct kv_conn *c, struct kv_store *st)
{
	kv_session_init(&c->s, st);
	c->out.write = kv_conn_write;
	c->out.write_item = kv_conn_write_item;
	c->out.pending = kv_conn_out_pending;
}

void kv_conn_fini(struct kv_conn *c)
{
	kv_session_fini(&c->s);
	kv_outq_free(&c->oq);
	kv_outq_free(&c->sq);
	kv_conn_release();
}

size_t kv_conn_pending(const struct kv_conn *c)
{
	return kv_outq_bytes(&c->oq) + kv_outq_bytes(&c->sq);
}

bool kv_conn_feed(struct kv_conn *c)
{
	size_t before = kv_conn_pending(c), used;

	if (c->ioff == c->ilen && !kv_session_blocked(&c->s))
		return false;
	used = kv_session_input(&c->s, c->ibuf + c->ioff, c->ilen - c->ioff, &c->out);
	c->ioff += used;
	if (c->ioff == c->ilen)
		c->ioff = c->ilen = 0;
	return used || kv_conn_pending(c) != before;
}

size_t kv_conn_room(struct kv_conn *c)
{
	if (c->ilen == KV_IBUF && c->ioff) {
		memmove(c->ibuf, c->ibuf + c->ioff, c->ilen - c->ioff);
		c->ilen -= c->ioff;
		c->ioff = 0;
	}
	return KV_IBUF - c->ilen;
}

bool kv_conn_wants_input(struct kv_conn *c)
{
	return !kv_session_closing(&c->s) && !kv_session_blocked(&c->s) &&
	       kv_conn_pending(c) <= KV_OUT_HIGH && (c->ilen < KV_IBUF || c->ioff);
}

bool kv_conn_swap(struct kv_conn *c)
{
	struct kv_outq q;

	if (kv_outq_bytes(&c->sq) || !kv_outq_bytes(&c->oq))
		return false;
	q = c->sq;		/* empty: its buffers are reused */
	c->sq = c->oq;
	c->oq = q;
	return true;
}
