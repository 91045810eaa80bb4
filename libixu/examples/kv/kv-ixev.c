// SPDX-License-Identifier: MIT
/*
 * kv-ixev - the memcached text-protocol server on ixmod, through libixu's
 * event layer (ixev.h)
 *
 *   kv-ixev [-p PORT] [-c CPULIST] [-m MEGABYTES] [-n MAXCONNS] [-C]
 *
 * -p: TCP port (default 11211); -c: the dataplane cores (default: all of
 * /sys/kernel/ixmod/cores), a thread and an ixev each; -m: memory limit in
 * MiB (default 64); -n: most connections at once (default 1024: memcached's
 * -c, whose letter names the cores here); -C: the co-located mode (each
 * thread runs its core).  Prints "kv-ixev: ready on port P, N cores" once
 * every core listens.
 *
 * The store and the protocol are kv-epoll's and kv-uring's (store.c,
 * proto.c): the three servers differ only in I/O.  Here a session's
 * replies go straight into the connection's send buffer in the transmit
 * arena (ixev_send(); what it cannot take waits in @q, large values by
 * reference, outq.h), its input is read in place from the receive
 * region, and what the session does not take under backpressure stays
 * with ixev, which keeps the peer's window shut until writable() resumes
 * it.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ixev.h"
#include "outq.h"
#include "proto.h"
#include "store.h"

struct kconn {
	struct kv_session	s;
	struct kv_out		out;
	struct ixev_conn	*c;
	struct kv_outq		q;		/* replies ixev_send() did not take */
	bool			eof;		/* close once the replies are out */
};

/*
 * What a connection holds beside the items (frontend.h's rule): its
 * struct, a partial command line, and the replies ixev could not take,
 * copied (referenced values are items): the session stops at KV_OUT_HIGH
 * pending plus one reply, which the queue's compaction keeps within twice
 * that.  Bytes ixev took are in the transmit arena, each connection's
 * share bounded (ixev_send(3)).
 */
#define KCONN_ALLOWANCE	(sizeof(struct kconn) + KV_LINE_MAX + 2 * (KV_OUT_HIGH + 4096))

static struct kv_store *store;
static unsigned short port = 11211;
static unsigned int maxconns = 1024;
static unsigned int nconns;		/* atomic: open connections, all cores */

static struct kconn *kconn_of(struct kv_out *out)
{
	return (struct kconn *)((char *)out - offsetof(struct kconn, out));
}

static void out_write(struct kv_out *out, const void *buf, size_t len)
{
	struct kconn *k = kconn_of(out);
	ssize_t n = 0;

	if (!kv_outq_bytes(&k->q)) {
		n = ixev_send(k->c, buf, len);
		if (n < 0 || (size_t)n == len)
			return;		/* all taken, or the connection is gone */
	}
	if (!kv_outq_copy(&k->q, (const char *)buf + n, len - n))
		ixev_abort(k->c);	/* cannot keep the reply: reset */
}

static void out_write_item(struct kv_out *out, struct kv_item *it, const void *p, size_t len)
{
	struct kconn *k = kconn_of(out);
	ssize_t n = 0;

	if (!kv_outq_bytes(&k->q)) {
		n = ixev_send(k->c, p, len);
		if (n < 0 || (size_t)n == len) {
			kv_item_put(it);
			return;
		}
	}
	if (!kv_outq_item(&k->q, it, (const char *)p + n, len - n))
		ixev_abort(k->c);
}

static size_t out_pending(struct kv_out *out)
{
	return kv_outq_bytes(&kconn_of(out)->q);
}

/* Close once the session is done and every reply went to ixev. */
static void settle(struct kconn *k)
{
	if (!kv_outq_bytes(&k->q) && (k->eof || kv_session_closing(&k->s)))
		ixev_close(k->c);
}

static size_t on_readable(struct ixev_conn *c, const void *data, size_t len)
{
	struct kconn *k = ixev_data(c);
	size_t n;

	if (!len) {
		k->eof = true;
		settle(k);
		return 0;
	}
	n = kv_session_input(&k->s, data, len, &k->out);
	settle(k);
	return kv_session_closing(&k->s) ? len : n;
}

static void on_writable(struct ixev_conn *c)
{
	struct kconn *k = ixev_data(c);
	struct iovec iov[8];
	unsigned int i, n;

	while (kv_outq_bytes(&k->q)) {
		ssize_t sent = 0, r = 0;

		n = kv_outq_iov(&k->q, iov, 8);
		for (i = 0; i < n; i++) {
			r = ixev_send(c, iov[i].iov_base, iov[i].iov_len);
			if (r > 0)
				sent += r;
			if (r < 0 || (size_t)r < iov[i].iov_len)
				break;
		}
		kv_outq_sent(&k->q, sent);
		if (i < n)
			break;		/* ixev is full: writable() comes again */
	}
	if (kv_outq_bytes(&k->q) > KV_OUT_HIGH)
		return;
	if (kv_session_blocked(&k->s))		/* a get stopped half-way */
		kv_session_input(&k->s, NULL, 0, &k->out);
	ixev_resume(c);				/* the bytes ixev holds */
	settle(k);
}

static void on_closed(struct ixev_conn *c, int err)
{
	struct kconn *k = ixev_data(c);

	(void)err;
	kv_session_fini(&k->s);
	kv_outq_free(&k->q);
	free(k);
	__atomic_sub_fetch(&nconns, 1, __ATOMIC_RELAXED);
}

static const struct ixev_conn_ops kv_ops = {
	.readable = on_readable,
	.writable = on_writable,
	.closed = on_closed,
};

/* A connection over -n: memcached's answer, then the close. */
static const struct ixev_conn_ops kv_refused_ops;

static const struct ixev_conn_ops *on_accept(struct ixev_conn *c, __be32 addr, __be16 p,
					     void *arg)
{
	static const char full[] = "ERROR Too many open connections\r\n";
	struct kconn *k;

	(void)addr;
	(void)p;
	(void)arg;
	if (__atomic_add_fetch(&nconns, 1, __ATOMIC_RELAXED) > maxconns) {
		__atomic_sub_fetch(&nconns, 1, __ATOMIC_RELAXED);
		ixev_send(c, full, sizeof(full) - 1);
		ixev_close(c);
		return &kv_refused_ops;
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		__atomic_sub_fetch(&nconns, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	kv_session_init(&k->s, store);	/* on this core's thread: its counters */
	k->out.write = out_write;
	k->out.write_item = out_write_item;
	k->out.pending = out_pending;
	k->c = c;
	ixev_set_data(c, k);
	return &kv_ops;
}

static int init(struct ixev *ev, void *arg)
{
	(void)arg;
	return ixev_listen(ev, ixu_htons(port), 1024, on_accept, NULL);
}

static void on_ready(unsigned int ncores, void *arg)
{
	(void)arg;
	store->settings.threads = ncores;
	printf("kv-ixev: ready on port %u, %u cores\n", port, ncores);
}

static void fini(struct ixev *ev, unsigned int cpu, int err, void *arg)
{
	(void)ev;
	(void)arg;
	if (err)
		fprintf(stderr, "kv-ixev: cpu %u: %s\n", cpu,
			err == -ENETDOWN ? "lost its port" : strerror(-err));
}

static void on_signal(int sig)
{
	(void)sig;
	ixev_stop_all();
}

static void __attribute__((noreturn)) usage(bool help)
{
	fprintf(help ? stdout : stderr,
		"usage: kv-ixev [-p PORT] [-c CPULIST] [-m MEGABYTES] [-n MAXCONNS] [-C]\n"
		"  -p PORT       TCP port (default 11211)\n"
		"  -c CPULIST    dataplane cores, as 1-3,5 (default: all of\n"
		"                /sys/kernel/ixmod/cores); a thread and an ixev each\n"
		"  -m MEGABYTES  item memory limit in MiB (default 64)\n"
		"  -n MAXCONNS   most connections at once (default 1024; memcached's -c);\n"
		"                one more is answered \"ERROR Too many open connections\"\n"
		"  -C            co-located mode: each thread runs its core's dataplane\n"
		"Memory: at most -m MiB of items (values being received or sent\n"
		"included), plus %zu KiB per connection beside ixev's transmit arena.\n"
		"Needs the ixmod module (/dev/ixmod) and a port bound to it.\n",
		KCONN_ALLOWANCE >> 10);
	exit(help ? 0 : 2);
}

static unsigned long number(const char *s, unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || v < min || v > max)
		usage(false);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ixev_params params = { 0 };
	struct ixev_runner r = { .params = &params, .init = init, .ready = on_ready, .fini = fini };
	unsigned long mb = 64;
	int o, ret;

	while ((o = getopt_long(argc, argv, "p:c:m:n:Ch", longopts, NULL)) != -1) {
		switch (o) {
		case 'p':
			port = number(optarg, 1, 65535);
			break;
		case 'c':
			r.cpulist = optarg;
			break;
		case 'm':
			mb = number(optarg, 1, 1UL << 20);
			break;
		case 'n':
			maxconns = number(optarg, 1, 1U << 24);
			break;
		case 'C':
			params.mode = IXU_MODE_COLOCATED;
			break;
		case 'h':
			usage(true);
		default:
			usage(false);
		}
	}
	if (optind != argc)
		usage(false);
	if (access("/dev/ixmod", F_OK)) {
		fprintf(stderr, "kv-ixev: no /dev/ixmod: is the module loaded? (modprobe ixmod)\n");
		return 1;
	}
	store = kv_store_create(mb << 20);
	if (!store) {
		fprintf(stderr, "kv-ixev: out of memory\n");
		return 1;
	}
	store->settings.maxbytes = mb << 20;
	store->settings.maxconns = maxconns;
	store->settings.port = port;
	store->settings.inter = "ixmod";
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = ixev_run_cores(&r);
	if (ret == -ENOENT && !r.cpulist)
		fprintf(stderr, "kv-ixev: no /sys/kernel/ixmod/cores: is the module loaded?\n");
	else if (ret && ret != -ENETDOWN)
		fprintf(stderr, "kv-ixev: %s\n", strerror(-ret));
	kv_store_destroy(store);
	return ret != 0;
}
