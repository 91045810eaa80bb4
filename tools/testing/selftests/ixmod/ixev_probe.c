// SPDX-License-Identifier: MIT
/*
 * ixev_probe - libixu's event layer (ixev.h) against Linux peers
 *
 *   ixev_probe slow [-p PORT] [-k CHUNK]	echo, CHUNK bytes per readable()
 *   ixev_probe zc [-p PORT]			echo by zero-copy sends
 *   ixev_probe udp [-p PORT]			UDP echo
 *   ixev_probe client IP:PORT [-n CONNS] [-B BYTES] [-e] [-a ARENA_KB]
 *   ixev_probe client IP6:PORT ...		the same over IPv6
 *
 * slow: readable() takes at most CHUNK (default 1000) bytes and leaves the
 *	rest with ixev; a 1 ms timer resumes the connection: held bytes,
 *	ixev_resume(), timers and merged recv_done under a Linux client.
 * zc: every received piece is copied into memory from ixev_zc_alloc() and
 *	sent with ixev_send_zc(); the release callback frees it.  Prints the
 *	sends and releases, which must match.
 * udp: echoes datagrams with ixev_udp_bind() / ixev_udp_send().
 * client: CONNS connections (default 4) from the first dataplane core to a
 *	Linux echo server, BYTES (default 200000) of tcp-echo's pattern each
 *	with ixev_send() (more than the send buffer: writable() resumes),
 *	the echo checked byte for byte, then closed; -e drives the ixev from
 *	the program's own epoll loop on ixev_fd() and ixev_dispatch(); -a
 *	gives the context a transmit arena of ARENA_KB KiB, so small that the
 *	connections' send buffers do not all fit (ixev_send() takes less
 *	for want of arena, and writable() must come when another connection's
 *	units are freed).
 *	Prints "ixev_probe: client OK/TOTAL ok" and exits 0 only if all were.
 *	An IPv6 address (2001:db8::2:7, the last colon before the port)
 *	connects over IPv6 (IXEV_F_INET6, ixev_connect6()); a connect that
 *	fails prints "ixev_probe: connect: <strerror>".
 *
 * Servers print "ixev_probe: ready" and run until SIGINT.  Every mode ends
 * with "ixev_probe: cpu N: ... arena_used U" per core: U must be 0 once
 * every connection is closed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "ixev.h"

static unsigned short port = 7;
static size_t chunk = 1000;
static unsigned int nconns = 4;
static size_t nbytes = 200000;
static bool use_epoll;
static unsigned int arena_kb;
static int failed;
static unsigned long zc_sends, zc_releases;	/* zc: one core at a time is enough */

static void on_signal(int sig)
{
	(void)sig;
	ixev_stop_all();
}

static unsigned char pattern_byte(size_t i)
{
	return (i * 131 + (i >> 11)) & 0xff;
}

static void report(struct ixev *ev, unsigned int cpu, int err, void *arg)
{
	struct ixev_stats st;

	(void)arg;
	if (err)
		printf("ixev_probe: cpu %u: %s\n", cpu, strerror(-err));
	if (!ev)
		return;
	ixev_get_stats(ev, &st, sizeof(st));
	printf("ixev_probe: cpu %u: %llu conns, %llu bytes in, %llu bytes out, %llu errors, %llu late, %llu arena waits, arena_used %llu\n",
	       cpu, st.conns, st.bytes_in, st.bytes_out, st.errors, st.late, st.arena_waits,
	       st.arena_used);
}

static void on_ready(unsigned int n, void *arg)
{
	(void)arg;
	printf("ixev_probe: ready on port %u, %u cores\n", port, n);
}

/* ---- slow: a bounded readable() and a timer to resume ---- */

struct slow_conn {
	struct ixev_timer	t;
	struct ixev_conn	*c;
};

static void slow_resume(struct ixev_timer *t)
{
	struct slow_conn *s = (struct slow_conn *)t;

	ixev_resume(s->c);
}

static size_t slow_readable(struct ixev_conn *c, const void *data, size_t len)
{
	struct slow_conn *s = ixev_data(c);
	size_t n = len < chunk ? len : chunk;
	ssize_t sent;

	if (!len) {
		ixev_close(c);
		return 0;
	}
	sent = ixev_send(c, data, n);
	if (sent < 0)
		return len;
	if ((size_t)sent < len)		/* the rest later: a timer, or room */
		ixev_timer_arm(ixev_conn_ev(c), &s->t, 1000);
	return sent;
}

static void slow_closed(struct ixev_conn *c, int err)
{
	struct slow_conn *s = ixev_data(c);

	(void)err;
	ixev_timer_cancel(ixev_conn_ev(c), &s->t);
	free(s);
}

static void slow_writable(struct ixev_conn *c)
{
	ixev_resume(c);
}

static const struct ixev_conn_ops slow_ops = {
	.readable = slow_readable, .writable = slow_writable, .closed = slow_closed,
};

/* ---- zc: echo from zero-copy buffers ---- */

struct zc_buf {
	struct ixev	*ev;
	void		*p;
	size_t		len;
};

static void zc_release(void *arg)
{
	struct zc_buf *b = arg;

	ixev_zc_free(b->ev, b->p, b->len);
	free(b);
	__atomic_add_fetch(&zc_releases, 1, __ATOMIC_RELAXED);
}

static size_t zc_readable(struct ixev_conn *c, const void *data, size_t len)
{
	struct ixev *ev = ixev_conn_ev(c);
	struct zc_buf *b;

	if (!len) {
		ixev_close(c);
		return 0;
	}
	b = malloc(sizeof(*b));
	if (!b)
		return 0;
	*b = (struct zc_buf){ .ev = ev, .p = ixev_zc_alloc(ev, len), .len = len };
	if (!b->p) {
		free(b);
		return 0;	/* offered again after the next acknowledgment */
	}
	memcpy(b->p, data, len);
	if (ixev_send_zc(c, b->p, len, zc_release, b)) {
		ixev_zc_free(ev, b->p, len);
		free(b);
		return 0;
	}
	__atomic_add_fetch(&zc_sends, 1, __ATOMIC_RELAXED);
	return len;
}

static void zc_writable(struct ixev_conn *c)
{
	ixev_resume(c);
}

static const struct ixev_conn_ops zc_ops = {
	.readable = zc_readable, .writable = zc_writable,
};

static const struct ixev_conn_ops *on_accept(struct ixev_conn *c, __be32 addr, __be16 p,
					     void *arg)
{
	struct slow_conn *s;

	(void)addr;
	(void)p;
	if (arg == &zc_ops)
		return &zc_ops;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->t.fn = slow_resume;
	s->c = c;
	ixev_set_data(c, s);
	return &slow_ops;
}

static int tcp_init(struct ixev *ev, void *arg)
{
	return ixev_listen(ev, ixu_htons(port), 128, on_accept, arg);
}

/* ---- udp ---- */

static void udp_echo(struct ixev_udp *u, const void *data, size_t len, __be32 addr,
		     __be16 p, void *arg)
{
	(void)arg;
	if (ixev_udp_send(u, data, len, addr, p))
		__atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);	/* counted, not fatal */
}

static int udp_init(struct ixev *ev, void *arg)
{
	(void)arg;
	return ixev_udp_bind(ev, ixu_htons(port), udp_echo, NULL, NULL);
}

/* ---- client ---- */

struct client_conn {
	size_t	sent;
	size_t	got;
	bool	bad;
	int	closed;		/* 1 + err once closed() came */
};

static struct client_conn *clients;
static unsigned int clients_closed;

static void client_push(struct ixev_conn *c)
{
	struct client_conn *k = ixev_data(c);
	unsigned char buf[4096];

	while (k->sent < nbytes) {
		size_t n = nbytes - k->sent, i;
		ssize_t r;

		if (n > sizeof(buf))
			n = sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = pattern_byte(k->sent + i);
		r = ixev_send(c, buf, n);
		if (r <= 0)
			return;		/* writable() comes */
		k->sent += r;
	}
}

static void client_connected(struct ixev_conn *c, int err)
{
	if (err)
		printf("ixev_probe: connect: %s\n", strerror(-err));
	else
		client_push(c);
}

static size_t client_readable(struct ixev_conn *c, const void *data, size_t len)
{
	struct client_conn *k = ixev_data(c);
	const unsigned char *p = data;
	size_t i;

	if (!len) {
		k->bad |= k->got != nbytes;
		ixev_close(c);
		return 0;
	}
	for (i = 0; i < len && !k->bad; i++)
		k->bad = k->got + i >= nbytes || p[i] != pattern_byte(k->got + i);
	k->got += len;
	if (k->got == nbytes)
		ixev_close(c);
	return len;
}

static void client_closed(struct ixev_conn *c, int err)
{
	struct client_conn *k = ixev_data(c);

	k->closed = 1 + (err ? 1 : 0);
	if (err || k->bad || k->got != nbytes)
		printf("ixev_probe: conn %ld: %zu of %zu bytes echoed%s, %s\n",
		       (long)(k - clients), k->got, nbytes, k->bad ? " (wrong)" : "",
		       err ? strerror(-err) : "closed");
	clients_closed++;
}

static const struct ixev_conn_ops client_ops = {
	.connected = client_connected, .readable = client_readable,
	.writable = client_push, .closed = client_closed,
};

static void on_deadline(struct ixev_timer *t)
{
	(void)t;
	printf("ixev_probe: deadline passed, %u of %u connections closed\n", clients_closed,
	       nconns);
	ixev_stop_all();
}

static int run_client(const char *target)
{
	struct ixev_timer dl = { .fn = on_deadline };
	char host[64], list[256] = "";
	struct ixev *ev;
	unsigned int cpu, i, ok = 0;
	struct in_addr a;
	unsigned char a6[16];
	bool v6;
	const char *colon = strrchr(target, ':');
	FILE *f = fopen("/sys/kernel/ixmod/cores", "r");
	int ret, ep = -1;

	if (!colon || colon - target >= (long)sizeof(host) || !f || !fgets(list, sizeof(list), f))
		return 2;
	fclose(f);
	memcpy(host, target, colon - target);
	host[colon - target] = 0;
	v6 = inet_pton(AF_INET6, host, a6) == 1;
	if ((!v6 && inet_pton(AF_INET, host, &a) != 1) || sscanf(list, "%u", &cpu) != 1)
		return 2;
	ret = ixev_create(&ev, cpu, &(struct ixev_params){ .txarena_size = arena_kb << 10,
							  .flags = v6 ? IXEV_F_INET6 : 0 });
	if (ret) {
		printf("ixev_probe: ixev_create: %s\n", strerror(-ret));
		return 1;
	}
	clients = calloc(nconns, sizeof(*clients));
	for (i = 0; i < nconns; i++) {
		while ((ret = v6 ? ixev_connect6(ev, a6, ixu_htons(atoi(colon + 1)), &client_ops,
						 &clients[i], NULL) :
			      ixev_connect(ev, (IXU_FORCE __be32)a.s_addr,
					   ixu_htons(atoi(colon + 1)), &client_ops, &clients[i],
					   NULL)) == -EAGAIN)
			ixev_run_once(ev, 10);
		if (ret)
			printf("ixev_probe: ixev_connect: %s\n", strerror(-ret));
	}
	ixev_timer_arm(ev, &dl, 120 * 1000000ULL);
	if (use_epoll) {
		struct epoll_event e = { .events = EPOLLIN };

		ep = epoll_create1(0);
		epoll_ctl(ep, EPOLL_CTL_ADD, ixev_fd(ev), &e);
	}
	signal(SIGINT, on_signal);
	while (clients_closed < nconns) {
		if (use_epoll) {	/* the application's own loop */
			struct epoll_event e;

			epoll_wait(ep, &e, 1, 10);
			ret = ixev_dispatch(ev);
		} else {
			ret = ixev_run_once(ev, 100);
		}
		if (ret == -ENETDOWN || !dl.idx)
			break;
	}
	for (i = 0; i < nconns; i++)
		ok += clients[i].closed == 1 && !clients[i].bad && clients[i].got == nbytes;
	ixev_timer_cancel(ev, &dl);
	report(ev, cpu, 0, NULL);
	printf("ixev_probe: client %u/%u ok%s\n", ok, nconns, use_epoll ? " (epoll)" : "");
	ixev_destroy(ev);
	if (ep >= 0)
		close(ep);
	return ok != nconns;
}

int main(int argc, char **argv)
{
	struct ixev_runner r = { .ready = on_ready, .fini = report };
	const char *mode = argc > 1 ? argv[1] : "";
	int o, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	optind = 2;
	while ((o = getopt(argc, argv, "p:k:n:B:ea:")) != -1) {
		switch (o) {
		case 'p':
			port = atoi(optarg);
			break;
		case 'k':
			chunk = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			nconns = atoi(optarg);
			break;
		case 'B':
			nbytes = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			use_epoll = true;
			break;
		case 'a':
			arena_kb = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!strcmp(mode, "client") && optind < argc)
		return run_client(argv[optind]);
	if (!strcmp(mode, "slow") || !strcmp(mode, "zc")) {
		r.init = tcp_init;
		r.arg = !strcmp(mode, "zc") ? (void *)&zc_ops : NULL;
	} else if (!strcmp(mode, "udp")) {
		r.init = udp_init;
	} else {
		fprintf(stderr, "usage: %s slow|zc|udp [-p PORT] [-k CHUNK] | client IP:PORT [-n N] [-B BYTES] [-e]\n",
			argv[0]);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = ixev_run_cores(&r);
	if (!strcmp(mode, "zc"))
		printf("ixev_probe: zc sends %lu releases %lu\n", zc_sends, zc_releases);
	if (!strcmp(mode, "udp"))
		printf("ixev_probe: udp send failures %d\n", failed);
	return ret != 0;
}
