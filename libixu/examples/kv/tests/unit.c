// SPDX-License-Identifier: MIT
/*
 * unit - the store and the protocol session, with a fake clock (TAP)
 *
 * Each test drives sessions over a fake struct kv_out that collects the
 * replies and reports a pending count the test controls.  Expected
 * replies for bad input are Debian memcached 1.6.18's, found by
 * experiment.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "store.h"

static int64_t fake_now = 1000000000;	/* well after 30 days: absolute times work */
static int failed_checks;
static int test_no, tests_failed;
static const char *only;	/* run only the tests whose name holds this */

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort();
	return p;
}

static int64_t fake_clock(void)
{
	return __atomic_load_n(&fake_now, __ATOMIC_RELAXED);
}

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		failed_checks++;					\
		printf("#   %s:%d: %s: ", __FILE__, __LINE__, #cond);	\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

/**
 * struct fout - a front end in a test tube
 * @buf: everything written
 * @sent: how much of it the "network" took; pending = len - sent
 * @hold: while true, nothing is ever sent (pending only grows)
 */
struct fout {
	struct kv_out	out;
	char		*buf;
	size_t		len, cap, sent;
	bool		hold;
};

static void fout_write(struct kv_out *o, const void *p, size_t n)
{
	struct fout *f = (struct fout *)o;

	if (f->len + n + 1 > f->cap) {
		f->cap = (f->len + n + 1) * 2;
		f->buf = realloc(f->buf, f->cap);
		if (!f->buf)
			abort();
	}
	memcpy(f->buf + f->len, p, n);
	f->len += n;
	f->buf[f->len] = 0;
}

static size_t fout_pending(struct kv_out *o)
{
	struct fout *f = (struct fout *)o;

	if (!f->hold)
		f->sent = f->len;
	return f->len - f->sent;
}

static void fout_init(struct fout *f)
{
	memset(f, 0, sizeof(*f));
	f->out.write = fout_write;
	f->out.pending = fout_pending;
	f->buf = calloc(1, 1);
	f->cap = 1;
}

static void fout_reset(struct fout *f)
{
	f->len = f->sent = 0;
	f->buf[0] = 0;
}

/* A store on the fake clock, a session and an output. */
struct rig {
	struct kv_store		*st;
	struct kv_session	s;
	struct fout		f;
};

static void rig_init(struct rig *r, size_t maxbytes)
{
	r->st = kv_store_create(maxbytes);
	r->st->now = fake_clock;
	r->st->started = fake_clock();
	kv_session_init(&r->s, r->st);
	fout_init(&r->f);
}

static void rig_fini(struct rig *r)
{
	kv_session_fini(&r->s);
	kv_store_destroy(r->st);
	free(r->f.buf);
}

/* Feed @in (@n bytes), return what it answered (valid until the next call). */
static const char *feedn(struct rig *r, const char *in, size_t n)
{
	size_t used;

	fout_reset(&r->f);
	used = kv_session_input(&r->s, in, n, &r->f.out);
	CHECK(used == n || kv_session_closing(&r->s), "consumed %zu of %zu", used, n);
	return r->f.buf;
}

static const char *feed(struct rig *r, const char *in)
{
	return feedn(r, in, strlen(in));
}

#define EXPECT(r, in, want) do {					\
	const char *got_ = feed(r, in);					\
	CHECK(!strcmp(got_, want), "sent \"%s\"\n#     got  \"%s\"\n#     want \"%s\"", \
	      in, got_, want);						\
} while (0)

static void test(const char *name, void (*fn)(void))
{
	int before = failed_checks;

	if (only && !strstr(name, only))
		return;
	fn();
	test_no++;
	if (failed_checks == before) {
		printf("ok %d - %s\n", test_no, name);
	} else {
		printf("not ok %d - %s\n", test_no, name);
		tests_failed++;
	}
	fflush(stdout);
}

/* ---- the tests ------------------------------------------------------- */

static void t_expiry(void)
{
	struct rig r;
	char cmd[128];

	rig_init(&r, 64 << 20);
	EXPECT(&r, "set rel 0 10 1\r\na\r\n", "STORED\r\n");
	snprintf(cmd, sizeof(cmd), "set abs 0 %lld 1\r\nb\r\n", (long long)fake_now + 5);
	EXPECT(&r, cmd, "STORED\r\n");
	EXPECT(&r, "set neg 0 -1 1\r\nc\r\n", "STORED\r\n");
	EXPECT(&r, "set never 0 0 1\r\nd\r\n", "STORED\r\n");
	/* 30 days is still relative; one more second is an absolute time in 1970 */
	EXPECT(&r, "set d30 0 2592000 1\r\ne\r\n", "STORED\r\n");
	EXPECT(&r, "set d30p 0 2592001 1\r\nf\r\n", "STORED\r\n");
	EXPECT(&r, "get neg d30p\r\n", "END\r\n");
	EXPECT(&r, "get rel abs\r\n", "VALUE rel 0 1\r\na\r\nVALUE abs 0 1\r\nb\r\nEND\r\n");
	fake_now += 4;
	EXPECT(&r, "get abs\r\n", "VALUE abs 0 1\r\nb\r\nEND\r\n");
	fake_now += 1;
	EXPECT(&r, "get abs rel\r\n", "VALUE rel 0 1\r\na\r\nEND\r\n");
	fake_now += 5;
	EXPECT(&r, "get rel\r\n", "END\r\n");
	fake_now += 2592000 - 10 - 1;
	EXPECT(&r, "get d30 never\r\n", "VALUE d30 0 1\r\ne\r\nVALUE never 0 1\r\nd\r\nEND\r\n");
	fake_now += 1;
	EXPECT(&r, "get d30 never\r\n", "VALUE never 0 1\r\nd\r\nEND\r\n");
	rig_fini(&r);
}

static void t_flush(void)
{
	struct rig r;

	rig_init(&r, 64 << 20);
	EXPECT(&r, "set a 0 0 1\r\na\r\nset b 0 0 1\r\nb\r\n", "STORED\r\nSTORED\r\n");
	EXPECT(&r, "flush_all\r\n", "OK\r\n");
	EXPECT(&r, "get a b\r\n", "END\r\n");
	/* an item set in the same second as the flush is not flushed */
	EXPECT(&r, "set a 0 0 1\r\nA\r\n", "STORED\r\n");
	EXPECT(&r, "get a\r\n", "VALUE a 0 1\r\nA\r\nEND\r\n");
	EXPECT(&r, "flush_all 10\r\n", "OK\r\n");
	fake_now += 5;
	EXPECT(&r, "set b 0 0 1\r\nB\r\n", "STORED\r\n");
	EXPECT(&r, "get a b\r\n", "VALUE a 0 1\r\nA\r\nVALUE b 0 1\r\nB\r\nEND\r\n");
	fake_now += 5;
	/* everything set before the flush time goes, even after the command */
	EXPECT(&r, "get a b\r\n", "END\r\n");
	EXPECT(&r, "set c 0 0 1\r\nC\r\n", "STORED\r\n");
	fake_now += 100;
	EXPECT(&r, "get c\r\n", "VALUE c 0 1\r\nC\r\nEND\r\n");
	EXPECT(&r, "flush_all 0\r\nget c\r\n", "OK\r\nEND\r\n");
	EXPECT(&r, "flush_all -1\r\n", "OK\r\n");
	EXPECT(&r, "flush_all 5 noreply\r\n", "");
	rig_fini(&r);
}

static void t_lru(void)
{
	size_t isz = kv_item_size(2, 100);
	struct kv_stats stats;
	char cmd[256], val[101];
	struct rig r;
	int i;

	/* room for exactly ten 100-byte items under 2-byte keys */
	rig_init(&r, 10 * isz + isz / 2);
	memset(val, 'v', 100);
	val[100] = 0;
	for (i = 0; i < 10; i++) {
		snprintf(cmd, sizeof(cmd), "set k%d 0 0 100\r\n%s\r\n", i, val);
		EXPECT(&r, cmd, "STORED\r\n");
	}
	/*
	 * k0 becomes the most recent by a get, k1 by a set.  As in memcached
	 * the new k1 is charged before the old one goes: the old one, at the
	 * tail, is evicted to make room (evictions 1).
	 */
	feed(&r, "get k0\r\n");
	snprintf(cmd, sizeof(cmd), "set k1 0 0 100\r\n%s\r\n", val);
	EXPECT(&r, cmd, "STORED\r\n");
	snprintf(cmd, sizeof(cmd), "set kA 0 0 100\r\n%s\r\n", val);
	EXPECT(&r, cmd, "STORED\r\n");
	EXPECT(&r, "get k2\r\n", "END\r\n");
	CHECK(strstr(feed(&r, "get k0 k1 k3\r\n"), "k3"), "k3 was evicted");
	kv_store_stats(r.st, &stats);
	CHECK(stats.evictions == 2, "evictions %llu", (unsigned long long)stats.evictions);
	CHECK(stats.curr_items == 10, "items %llu", (unsigned long long)stats.curr_items);
	/* an item of three slots' size evicts the three oldest: k4 k5 k6 */
	snprintf(cmd, sizeof(cmd), "set kB 0 0 %zu\r\n", 2 * isz + 100);
	feed(&r, cmd);
	{
		size_t n = 2 * isz + 100 + 2;
		char *big = xmalloc(n);

		memset(big, 'b', n - 2);
		memcpy(big + n - 2, "\r\n", 2);
		CHECK(!strcmp(feedn(&r, big, n), "STORED\r\n"), "big set: %s", r.f.buf);
		free(big);
	}
	EXPECT(&r, "get k4 k5 k6\r\n", "END\r\n");
	CHECK(strstr(feed(&r, "get k7\r\n"), "VALUE k7"), "k7 stays");
	kv_store_stats(r.st, &stats);
	CHECK(stats.evictions == 5, "evictions %llu", (unsigned long long)stats.evictions);
	CHECK(kv_store_bytes(r.st) <= 10 * isz + isz / 2, "over the limit");
	CHECK(!kv_store_check(r.st), "store: %s", kv_store_check(r.st));
	/* larger than the whole limit: refused at the command line, nothing evicted */
	rig_fini(&r);
	rig_init(&r, 4096);
	EXPECT(&r, "set s 0 0 1\r\na\r\n", "STORED\r\n");
	EXPECT(&r, "set k 0 0 5000\r\n", "SERVER_ERROR out of memory storing object\r\n");
	{
		char big[5002];

		memset(big, 'x', 5000);
		memcpy(big + 5000, "\r\n", 2);
		CHECK(!strcmp(feedn(&r, big, sizeof(big)), ""), "swallowed: %s", r.f.buf);
	}
	EXPECT(&r, "get s\r\n", "VALUE s 0 1\r\na\r\nEND\r\n");
	rig_fini(&r);
}

/* The cas unique of @key, by gets. */
static unsigned long long cas_of(struct rig *r, const char *key)
{
	char cmd[300];
	const char *p;
	unsigned long long cas = 0;

	snprintf(cmd, sizeof(cmd), "gets %s\r\n", key);
	p = feed(r, cmd);
	if (sscanf(p, "VALUE %*s %*u %*u %llu", &cas) != 1)
		CHECK(0, "no cas in \"%s\"", p);
	return cas;
}

static void t_cas(void)
{
	unsigned long long c1, c2;
	char cmd[128];
	struct rig r;

	rig_init(&r, 64 << 20);
	EXPECT(&r, "cas k 0 0 1 1\r\na\r\n", "NOT_FOUND\r\n");
	EXPECT(&r, "set k 0 0 1\r\na\r\n", "STORED\r\n");
	c1 = cas_of(&r, "k");
	snprintf(cmd, sizeof(cmd), "cas k 7 0 1 %llu\r\nb\r\n", c1 + 1);
	EXPECT(&r, cmd, "EXISTS\r\n");
	snprintf(cmd, sizeof(cmd), "cas k 7 0 1 %llu\r\nb\r\n", c1);
	EXPECT(&r, cmd, "STORED\r\n");
	EXPECT(&r, cmd, "EXISTS\r\n");
	EXPECT(&r, "get k\r\n", "VALUE k 7 1\r\nb\r\nEND\r\n");
	c2 = cas_of(&r, "k");
	CHECK(c2 > c1, "cas %llu after %llu", c2, c1);
	EXPECT(&r, "touch k 100\r\n", "TOUCHED\r\n");
	CHECK(cas_of(&r, "k") == c2, "touch changed the cas");
	EXPECT(&r, "append k 0 0 1\r\nc\r\n", "STORED\r\n");
	CHECK(cas_of(&r, "k") > c2, "append kept the cas");
	c2 = cas_of(&r, "k");
	EXPECT(&r, "set n 0 0 1\r\n1\r\n", "STORED\r\n");
	c1 = cas_of(&r, "n");
	EXPECT(&r, "incr n 1\r\n", "2\r\n");
	CHECK(cas_of(&r, "n") > c1, "incr kept the cas");
	snprintf(cmd, sizeof(cmd), "cas k 0 0 1 %llu noreply\r\nz\r\n", c2);
	EXPECT(&r, cmd, "");
	EXPECT(&r, "get k\r\n", "VALUE k 0 1\r\nz\r\nEND\r\n");
	rig_fini(&r);
}

static void t_delta(void)
{
	struct rig r;

	rig_init(&r, 64 << 20);
	EXPECT(&r, "incr nx 1\r\n", "NOT_FOUND\r\n");
	EXPECT(&r, "set n 5 0 20\r\n18446744073709551615\r\n", "STORED\r\n");
	EXPECT(&r, "incr n 1\r\n", "0\r\n");
	EXPECT(&r, "incr n 18446744073709551615\r\n", "18446744073709551615\r\n");
	EXPECT(&r, "incr n 2\r\n", "1\r\n");
	EXPECT(&r, "decr n 10\r\n", "0\r\n");
	EXPECT(&r, "get n\r\n", "VALUE n 5 20\r\n0                   \r\nEND\r\n");
	EXPECT(&r, "set n 0 0 3\r\n100\r\ndecr n 1\r\nget n\r\n",
	       "STORED\r\n99\r\nVALUE n 0 3\r\n99 \r\nEND\r\n");
	EXPECT(&r, "incr n 901\r\nget n\r\n", "1000\r\nVALUE n 0 4\r\n1000\r\nEND\r\n");
	EXPECT(&r, "set n 0 0 5\r\n12 ab\r\nincr n 1\r\n", "STORED\r\n13\r\n");
	EXPECT(&r, "set n 0 0 3\r\n 12\r\nincr n 1\r\n", "STORED\r\n13\r\n");
	EXPECT(&r, "set n 0 0 3\r\n12a\r\nincr n 1\r\n",
	       "STORED\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\n");
	EXPECT(&r, "set n 0 0 0\r\n\r\ndecr n 1\r\n",
	       "STORED\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\n");
	EXPECT(&r, "set n 0 0 2\r\n-5\r\nincr n 1\r\n",
	       "STORED\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\n");
	EXPECT(&r, "set n 0 0 20\r\n18446744073709551616\r\nincr n 1\r\n",
	       "STORED\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\n");
	/* memcached reads the value as a C string: a NUL ends the number */
	CHECK(!strcmp(feedn(&r, "set n 0 0 3\r\n1\0x\r\nincr n 1\r\n", 28), "STORED\r\n2\r\n"),
	      "NUL: %s", r.f.buf);
	EXPECT(&r, "incr n -1\r\n", "CLIENT_ERROR invalid numeric delta argument\r\n");
	EXPECT(&r, "incr n 18446744073709551616\r\n",
	       "CLIENT_ERROR invalid numeric delta argument\r\n");
	rig_fini(&r);
}

static void t_append(void)
{
	struct rig r;

	rig_init(&r, 64 << 20);
	EXPECT(&r, "append k 0 0 1\r\na\r\nprepend k 0 0 1\r\na\r\n",
	       "NOT_STORED\r\nNOT_STORED\r\n");
	EXPECT(&r, "set k 3 0 2\r\nmm\r\n", "STORED\r\n");
	EXPECT(&r, "append k 9 0 3\r\nzzz\r\nprepend k 9 0 1\r\na\r\n", "STORED\r\nSTORED\r\n");
	EXPECT(&r, "get k\r\n", "VALUE k 3 6\r\nammzzz\r\nEND\r\n");
	EXPECT(&r, "add k 0 0 1\r\nx\r\nreplace k 1 0 1\r\ny\r\n", "NOT_STORED\r\nSTORED\r\n");
	EXPECT(&r, "replace q 0 0 1\r\ny\r\nadd q 2 0 1\r\nw\r\n", "NOT_STORED\r\nSTORED\r\n");
	EXPECT(&r, "get k q\r\n", "VALUE k 1 1\r\ny\r\nVALUE q 2 1\r\nw\r\nEND\r\n");
	/* appending keeps the expiry */
	EXPECT(&r, "set e 0 10 1\r\na\r\nappend e 0 0 1\r\nb\r\n", "STORED\r\nSTORED\r\n");
	fake_now += 10;
	EXPECT(&r, "get e\r\n", "END\r\n");
	rig_fini(&r);
}

static void t_touch(void)
{
	unsigned long long c;
	char want[128];
	struct rig r;

	rig_init(&r, 64 << 20);
	EXPECT(&r, "touch k 10\r\n", "NOT_FOUND\r\n");
	EXPECT(&r, "set k 0 5 1\r\na\r\nset j 0 5 1\r\nb\r\n", "STORED\r\nSTORED\r\n");
	EXPECT(&r, "touch k 100\r\n", "TOUCHED\r\n");
	EXPECT(&r, "gat 0 j nx\r\n", "VALUE j 0 1\r\nb\r\nEND\r\n");
	fake_now += 50;
	EXPECT(&r, "get k j\r\n", "VALUE k 0 1\r\na\r\nVALUE j 0 1\r\nb\r\nEND\r\n");
	c = cas_of(&r, "k");
	snprintf(want, sizeof(want), "VALUE k 0 1 %llu\r\na\r\nEND\r\n", c);
	EXPECT(&r, "gats 10 k\r\n", want);
	fake_now += 10;
	EXPECT(&r, "get k j\r\n", "VALUE j 0 1\r\nb\r\nEND\r\n");
	EXPECT(&r, "gat 10\r\n", "END\r\n");
	EXPECT(&r, "gat -1 j\r\nget j\r\n", "VALUE j 0 1\r\nb\r\nEND\r\nEND\r\n");
	rig_fini(&r);
}

static void t_noreply(void)
{
	struct rig r;

	rig_init(&r, 64 << 20);
	EXPECT(&r, "set a 0 0 1 noreply\r\n1\r\n", "");
	EXPECT(&r, "add a 0 0 1 noreply\r\n2\r\n", "");
	EXPECT(&r, "add b 0 0 1 noreply\r\n2\r\n", "");
	EXPECT(&r, "replace b 0 0 1 noreply\r\n3\r\n", "");
	EXPECT(&r, "append b 0 0 1 noreply\r\n4\r\n", "");
	EXPECT(&r, "prepend b 0 0 1 noreply\r\n5\r\n", "");
	EXPECT(&r, "cas b 0 0 1 1 noreply\r\n6\r\n", "");
	EXPECT(&r, "incr a 10 noreply\r\n", "");
	EXPECT(&r, "decr a 1 noreply\r\n", "");
	EXPECT(&r, "incr nx 1 noreply\r\n", "");
	EXPECT(&r, "touch a 100 noreply\r\n", "");
	EXPECT(&r, "delete nx noreply\r\n", "");
	EXPECT(&r, "verbosity 1 noreply\r\n", "");
	EXPECT(&r, "get a b\r\n", "VALUE a 0 2\r\n10\r\nVALUE b 0 3\r\n534\r\nEND\r\n");
	EXPECT(&r, "delete a noreply\r\ndelete b 0 noreply\r\nget a b\r\n", "END\r\n");
	EXPECT(&r, "set a 0 0 1\r\n1\r\nflush_all noreply\r\nget a\r\n", "STORED\r\nEND\r\n");
	/* errors too are silenced, as memcached does */
	EXPECT(&r, "set a 0 0 1 noreply\r\nabc\r\n", "ERROR\r\n");
	EXPECT(&r, "incr a x noreply\r\nset k abc 0 1 noreply\r\n", "");
	EXPECT(&r, "set a 0 0 2000000 noreply\r\n", "");
	rig_fini(&r);
}

/* Bad input: every error reply, checked against memcached 1.6.18. */
static void t_errors(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "foo\r\n", "ERROR\r\n" },
		{ "\r\n", "ERROR\r\n" },
		{ "GET k\r\n", "ERROR\r\n" },
		{ "get\r\n", "ERROR\r\n" },
		{ "set k 0 0\r\n", "ERROR\r\n" },
		{ "set k 0 0 1 noreply extra\r\na\r\n", "ERROR\r\nERROR\r\n" },
		{ "set k 0 0 x\r\n", "CLIENT_ERROR bad command line format\r\n" },
		{ "set k abc 0 1\r\na\r\n", "CLIENT_ERROR bad command line format\r\nERROR\r\n" },
		{ "set k -1 0 1\r\na\r\n", "CLIENT_ERROR bad command line format\r\nERROR\r\n" },
		{ "set k 0 x 1\r\na\r\n", "CLIENT_ERROR bad command line format\r\nERROR\r\n" },
		{ "set k 0 0 -1\r\na\r\n", "CLIENT_ERROR bad command line format\r\nERROR\r\n" },
		{ "set k 0 0 5\r\nabcdefg\r\n", "CLIENT_ERROR bad data chunk\r\nERROR\r\n" },
		{ "cas k 0 0 1\r\n", "ERROR\r\n" },
		{ "cas k 0 0 1 x\r\na\r\n", "CLIENT_ERROR bad command line format\r\nERROR\r\n" },
		{ "delete\r\n", "ERROR\r\n" },
		{ "delete k 5\r\n",
		  "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n" },
		{ "delete a b c\r\n",
		  "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n" },
		{ "delete k 0\r\n", "NOT_FOUND\r\n" },
		{ "incr\r\n", "ERROR\r\n" },
		{ "incr k\r\n", "ERROR\r\n" },
		{ "incr k x\r\n", "CLIENT_ERROR invalid numeric delta argument\r\n" },
		{ "touch k\r\n", "ERROR\r\n" },
		{ "touch k x\r\n", "CLIENT_ERROR invalid exptime argument\r\n" },
		{ "gat\r\n", "ERROR\r\n" },
		{ "gat x k\r\n", "CLIENT_ERROR invalid exptime argument\r\n" },
		{ "flush_all x\r\n", "CLIENT_ERROR invalid exptime argument\r\n" },
		{ "verbosity\r\n", "ERROR\r\n" },
		{ "verbosity x\r\n", "CLIENT_ERROR bad command line format\r\n" },
		{ "stats foo\r\n", "ERROR\r\n" },
		{ "version x\r\n", "VERSION 1.6.18\r\n" },
		{ "set k 0 0 1\na\r\nget k\n", "STORED\r\nVALUE k 0 1\r\na\r\nEND\r\n" },
		{ "set  k  0 0 1 garbage\r\na\r\n", "STORED\r\n" },
	};
	char line[600], key[300];
	struct rig r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		rig_init(&r, 64 << 20);
		EXPECT(&r, cases[i].in, cases[i].out);
		rig_fini(&r);
	}
	memset(key, 'a', 251);
	key[251] = 0;
	rig_init(&r, 64 << 20);
	snprintf(line, sizeof(line), "set %s 0 0 1\r\na\r\n", key);
	EXPECT(&r, line, "CLIENT_ERROR bad command line format\r\nERROR\r\n");
	snprintf(line, sizeof(line), "get k %s\r\n", key);
	EXPECT(&r, line, "CLIENT_ERROR bad command line format\r\n");
	snprintf(line, sizeof(line), "delete %s\r\n", key);
	EXPECT(&r, line, "CLIENT_ERROR bad command line format\r\n");
	snprintf(line, sizeof(line), "incr %s 1\r\n", key);
	EXPECT(&r, line, "CLIENT_ERROR bad command line format\r\n");
	snprintf(line, sizeof(line), "touch %s 1\r\n", key);
	EXPECT(&r, line, "CLIENT_ERROR bad command line format\r\n");
	key[250] = 0;
	snprintf(line, sizeof(line), "set %s 0 0 1\r\na\r\n", key);
	EXPECT(&r, line, "STORED\r\n");
	/* too large: refused, its data swallowed, the old value gone */
	EXPECT(&r, "set big 0 0 1\r\na\r\n", "STORED\r\n");
	EXPECT(&r, "set big 0 0 1048577\r\n", "SERVER_ERROR object too large for cache\r\n");
	{
		size_t n = 1048577 + 2;
		char *blob = xmalloc(n);

		memset(blob, 'x', n);
		memcpy(blob + n - 2, "\r\n", 2);
		CHECK(!strcmp(feedn(&r, blob, n), ""), "swallow answered %s", r.f.buf);
		free(blob);
	}
	EXPECT(&r, "get big\r\n", "END\r\n");
	rig_fini(&r);
}

/*
 * memcached's largest value under a 3-byte key, 1048514 bytes, passes and
 * one byte more is too large; a line of KV_LINE_MAX bytes passes; a longer
 * one closes.
 */
static void t_limits(void)
{
	size_t n = 1048514 + 2;
	char *blob = xmalloc(n + 100);
	struct rig r;

	rig_init(&r, 64 << 20);
	memset(blob, 'y', n + 100);
	EXPECT(&r, "set big 0 0 1048515\r\n", "SERVER_ERROR object too large for cache\r\n");
	memcpy(blob + 1048515, "\r\n", 2);
	CHECK(!strcmp(feedn(&r, blob, 1048517), ""), "swallowed: %s", r.f.buf);
	EXPECT(&r, "set big 0 0 1048576\r\n", "SERVER_ERROR object too large for cache\r\n");
	memcpy(blob + 1048576, "\r\n", 2);
	CHECK(!strcmp(feedn(&r, blob, 1048578), ""), "swallowed: %s", r.f.buf);
	EXPECT(&r, "set big 0 0 1048514\r\n", "");
	memset(blob, 'y', n);
	memcpy(blob + n - 2, "\r\n", 2);
	CHECK(!strcmp(feedn(&r, blob, n), "STORED\r\n"), "1048514: %s", r.f.buf);
	feed(&r, "get big\r\n");
	CHECK(r.f.len == 21 + n + 5, "get big: %zu bytes", r.f.len);
	memset(blob, 'a', KV_LINE_MAX - 1);
	memcpy(blob + KV_LINE_MAX - 1, "\r\n", 2);
	CHECK(!strcmp(feedn(&r, blob, KV_LINE_MAX + 1), "ERROR\r\n"), "max: %s", r.f.buf);
	/* in pieces, the same */
	feedn(&r, blob, 1500);
	CHECK(!strcmp(feedn(&r, blob + 1500, KV_LINE_MAX + 1 - 1500), "ERROR\r\n"), "cut: %s",
	      r.f.buf);
	/* KV_LINE_MAX + 1000 bytes with no end, in pieces: closed, having kept one line */
	memset(blob, 'a', KV_LINE_MAX + 1000);
	feedn(&r, blob, KV_LINE_MAX - 500);
	CHECK(!kv_session_closing(&r.s) && r.s.line_cap <= 2 * KV_LINE_MAX, "cap %zu",
	      r.s.line_cap);
	fout_reset(&r.f);
	kv_session_input(&r.s, blob, 1500, &r.f.out);
	CHECK(kv_session_closing(&r.s), "a line over KV_LINE_MAX did not close");
	CHECK(kv_session_input(&r.s, "get k\r\n", 7, &r.f.out) == 0, "input after close");
	rig_fini(&r);
	/* a get line may be long: 10 keys of 250 bytes */
	rig_init(&r, 64 << 20);
	memcpy(blob, "get", 4);
	for (n = 0; n < 10; n++) {
		strcat(blob, " ");
		memset(blob + strlen(blob) + 250, 0, 1);
		memset(blob + strlen(blob), 'k', 250);
	}
	strcat(blob, "\r\n");
	EXPECT(&r, blob, "END\r\n");
	/* a half command that stalls holds only its bytes */
	EXPECT(&r, "set k 0 0 1000000\r\nabc", "");
	CHECK(r.s.state == KV_ST_DATA && r.s.line_len == 0, "state %d", r.s.state);
	EXPECT(&r, "get k", "");
	rig_fini(&r);
	free(blob);
}

/*
 * Long lines as memcached 1.6.18 answers them when they arrive in one
 * read: a 100-key gat of 30-byte keys (about 3 KB), a get of 3 KB with a
 * 251-byte key (the error alone), a NUL in a get line longer than
 * KV_LINE_MAX (the keys before it, then END); and a binary-protocol
 * request (ERROR, then the close).
 */
static void t_long_lines(void)
{
	char *line = xmalloc(KV_LINE_MAX + 4096), *p;
	const char *got;
	struct rig r;
	int i, values;

	rig_init(&r, 64 << 20);
	EXPECT(&r, "set k0123456789012345678901234567 0 0 1\r\na\r\n", "STORED\r\n");
	p = line + sprintf(line, "gat 0");
	for (i = 0; i < 100; i++)
		p += sprintf(p, " k0123456789012345678901234567");
	memcpy(p, "\r\n", 3);
	got = feed(&r, line);
	for (values = 0; (got = strstr(got, "VALUE ")); got++)
		values++;
	CHECK(values == 100 && strstr(r.f.buf, "END\r\n"), "gat: %d values", values);
	CHECK(!kv_session_closing(&r.s), "closed");
	/* a 251-byte key in a 3 KB get: the error alone */
	p = line + sprintf(line, "get");
	for (i = 0; i < 90; i++)
		p += sprintf(p, " k0123456789012345678901234567");
	p += sprintf(p, " %0251d\r\n", 0);
	EXPECT(&r, line, "CLIENT_ERROR bad command line format\r\n");
	/* a NUL in a get line over KV_LINE_MAX ends its keys */
	p = line + sprintf(line, "get");
	while (p - line < KV_LINE_MAX + 100)
		p += sprintf(p, " k0123456789012345678901234567");
	values = (p - line - 3) / 30;
	memcpy(p, " \0 k0123456789012345678901234567 x\r\nversion\r\n", 46);
	got = feedn(&r, line, p - line + 46);
	for (i = 0; (got = strstr(got, "VALUE ")); got++)
		i++;
	CHECK(i == values && strstr(r.f.buf, "END\r\nVERSION "), "NUL: %d values of %d", i,
	      values);
	rig_fini(&r);
	/* binary protocol: a get for "foo" */
	rig_init(&r, 1 << 20);
	CHECK(!strcmp(feedn(&r, "\x80\x00\x00\x03\0\0\0\0\0\0\0\x03\0\0\0\0\0\0\0\0\0\0\0\0foo",
			    27), "ERROR\r\n") && kv_session_closing(&r.s), "binary: %s", r.f.buf);
	rig_fini(&r);
	free(line);
}

/*
 * memcached's memory rule: values being received and items still read
 * after they left the table are charged; the total never passes the limit.
 */
static void t_charged(void)
{
	const size_t limit = 8 << 20, size = 1000000;
	struct kv_session s[20];
	struct kv_item *held;
	enum kv_result res;
	struct rig r;
	int i, refused = 0;

	rig_init(&r, limit);
	for (i = 0; i < 20; i++) {
		kv_session_init(&s[i], r.st);
		fout_reset(&r.f);
		kv_session_input(&s[i], "set k 0 0 1000000\r\nabc", 23, &r.f.out);
		refused += !strcmp(r.f.buf, "SERVER_ERROR out of memory storing object\r\n");
		CHECK(kv_store_bytes(r.st) <= limit, "%d: %zu charged", i, kv_store_bytes(r.st));
	}
	CHECK(refused == 20 - (int)(limit / kv_item_size(1, size)), "refused %d", refused);
	for (i = 0; i < 20; i++)
		kv_session_fini(&s[i]);
	CHECK(kv_store_bytes(r.st) == 0, "%zu charged after the sessions", kv_store_bytes(r.st));
	/* an item read while it is replaced stays charged until put */
	held = kv_item_alloc(r.st, "h", 1, 0, 0, size, &res);
	CHECK(held && kv_store_store(r.st, held, KV_SET, 0) == KV_STORED, "store h");
	held = kv_store_get(r.st, "h", 1, false, 0);
	EXPECT(&r, "delete h\r\n", "DELETED\r\n");
	CHECK(kv_store_bytes(r.st) == kv_item_size(1, size), "%zu", kv_store_bytes(r.st));
	kv_item_put(held);
	CHECK(kv_store_bytes(r.st) == 0, "%zu", kv_store_bytes(r.st));
	CHECK(!kv_store_check(r.st), "store: %s", kv_store_check(r.st));
	rig_fini(&r);
}

/* A get line too long to hold is answered key by key, in bounded memory. */
static void t_long_get(void)
{
	size_t cap = 64 << 20, n, i, used;
	char *line = xmalloc(cap), *want = xmalloc(cap), *p, *w;
	struct rig r;
	int k;

	if (!line || !want)
		abort();
	rig_init(&r, 64 << 20);
	for (k = 0; k < 3000; k += 7) {
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "set key%04d %d 0 4\r\n%04d\r\n", k, k, k);
		EXPECT(&r, cmd, "STORED\r\n");
	}
	/* 30000 keys, about 300 KB of line, some twice */
	p = line + sprintf(line, "gets");
	w = want;
	for (i = 0; i < 30000; i++) {
		k = (i * 7919) % 3000;
		p += sprintf(p, " key%04d", k);
		if (k % 7 == 0)
			w += sprintf(w, "VALUE key%04d %d 4 C\r\n%04d\r\n", k, k, k);
	}
	p += sprintf(p, "\r\n");
	w += sprintf(w, "END\r\n");
	n = p - line;
	feedn(&r, line, n);
	/* the cas uniques vary: compare with them cut out */
	for (p = r.f.buf, w = r.f.buf; *p; ) {
		if (!strncmp(p, "VALUE ", 6)) {
			char *eol = strstr(p, "\r\n"), *sp = eol;

			while (sp[-1] != ' ')
				sp--;
			memmove(w, p, sp - p);
			w += sp - p;
			*w++ = 'C';
			p = eol;
		} else {
			*w++ = *p++;
		}
	}
	*w = 0;
	CHECK(!strcmp(r.f.buf, want), "answer differs (%zu vs %zu bytes)", strlen(r.f.buf),
	      strlen(want));
	CHECK(r.s.line_cap <= 2 * KV_LINE_MAX, "line buffer grew to %zu", r.s.line_cap);
	/* the same line in 1000-byte reads under backpressure */
	fout_reset(&r.f);
	for (used = 0; used < n;) {
		r.f.hold = (used / 1000) % 2;
		used += kv_session_input(&r.s, line + used, n - used < 1000 ? n - used : 1000,
					 &r.f.out);
		r.f.hold = false;
		while (kv_session_blocked(&r.s))
			kv_session_input(&r.s, NULL, 0, &r.f.out);
	}
	CHECK(strstr(r.f.buf, "END\r\n") == r.f.buf + r.f.len - 5, "no END at the end");
	/*
	 * a key too long past KV_LINE_MAX: the keys before are answered, then
	 * the error (memcached, holding the whole line, answers the error only)
	 */
	n = sprintf(line, "get key0000 %0300d key0007\r\nget key0007\r\n", 0);
	memset(line + n, 0, 1);
	memmove(line + KV_LINE_MAX + 500, line + 12, n - 12 + 1);
	memset(line + 12, 'x', KV_LINE_MAX + 488);
	EXPECT(&r, line, "VALUE key0000 0 4\r\n0000\r\n"
	       "CLIENT_ERROR bad command line format\r\nVALUE key0007 7 4\r\n0007\r\nEND\r\n");
	/* not a get: closed */
	memset(line, 'x', KV_LINE_MAX + 1000);
	memcpy(line, "gat 0 ", 6);
	feedn(&r, line, KV_LINE_MAX + 1000);
	CHECK(kv_session_closing(&r.s), "a long gat line did not close");
	rig_fini(&r);
	free(line);
	free(want);
}

/* A script cut in two at every byte answers as it does whole. */
static void t_split(void)
{
	static const char base[] =
		"set a 1 0 3\r\nabc\r\nget a b\r\ngets a\r\nappend a 0 0 2 noreply\r\nde\r\n"
		"set n 0 0 2\r\n10\r\nincr n 5\r\ndecr n 100\r\nadd a 0 0 1\r\nx\r\n"
		"set bad 0 0 2\r\nabcd\r\nbogus\r\ncas a 0 0 1 1\r\nq\r\ntouch a 10\r\n"
		"gat 0 a n\r\ndelete n\r\nget n\n\r\n";
	size_t len, i, j;
	char *script = xmalloc(sizeof(base) + 4000), *whole;
	struct rig r;

	if (!script)
		abort();
	/* and a get line longer than a line may be, with a hit in it */
	len = sprintf(script, "%sget", base);
	for (i = 0; i < 400; i++)
		len += sprintf(script + len, " k%03zu", i);
	len += sprintf(script + len, " a\r\nget n\r\nset big 0 0 2000000\r\n");

	rig_init(&r, 64 << 20);
	feedn(&r, script, len);
	whole = strdup(r.f.buf);
	rig_fini(&r);
	CHECK(strstr(whole, "CLIENT_ERROR bad data chunk") && strstr(whole, "VALUE a 1 5"),
	      "script output %s", whole);
	for (i = 0; i <= len; i++) {
		rig_init(&r, 64 << 20);
		fout_reset(&r.f);
		CHECK(kv_session_input(&r.s, script, i, &r.f.out) == i, "cut at %zu", i);
		CHECK(kv_session_input(&r.s, script + i, len - i, &r.f.out) == len - i,
		      "cut at %zu", i);
		CHECK(!strcmp(r.f.buf, whole), "cut at %zu:\n%s", i, r.f.buf);
		rig_fini(&r);
	}
	/* and fed byte by byte */
	rig_init(&r, 64 << 20);
	fout_reset(&r.f);
	for (j = 0; j < len; j++)
		kv_session_input(&r.s, script + j, 1, &r.f.out);
	CHECK(!strcmp(r.f.buf, whole), "byte by byte:\n%s", r.f.buf);
	rig_fini(&r);
	free(whole);
	free(script);
}

/* Pending output over KV_OUT_HIGH stops the session; it resumes exactly. */
static void t_backpressure(void)
{
	static const char keys[] = "get v0 v1 v2 v3 v4 v5 v6 v7\r\nget v1\r\nget v2\r\n";
	size_t vlen = KV_OUT_HIGH * 2 / 5, n = vlen + 2, used, off;
	char *val = xmalloc(n), cmd[64], *want;
	struct rig r;
	int i;

	rig_init(&r, 64 << 20);
	memset(val, 'v', n);
	memcpy(val + vlen, "\r\n", 2);
	for (i = 0; i < 8; i++) {
		snprintf(cmd, sizeof(cmd), "set v%d 0 0 %zu\r\n", i, vlen);
		feed(&r, cmd);
		val[0] = '0' + i;
		CHECK(!strcmp(feedn(&r, val, n), "STORED\r\n"), "set v%d", i);
	}
	/* the reference: nothing pending */
	feed(&r, keys);
	want = xmalloc(r.f.len + 1);
	memcpy(want, r.f.buf, r.f.len + 1);

	/* hold: the multi-get stops after the key that crossed KV_OUT_HIGH */
	fout_reset(&r.f);
	r.f.hold = true;
	used = kv_session_input(&r.s, keys, sizeof(keys) - 1, &r.f.out);
	off = strchr(keys, '\n') - keys + 1;
	CHECK(used == off, "stopped after %zu bytes, not at the first line end %zu", used, off);
	CHECK(kv_session_blocked(&r.s), "not blocked");
	CHECK(r.f.len > KV_OUT_HIGH && r.f.len < KV_OUT_HIGH + 2 * n, "wrote %zu", r.f.len);
	CHECK(!strstr(r.f.buf, "END"), "finished anyway");
	/* still held: a call makes no progress */
	i = r.f.len;
	CHECK(kv_session_input(&r.s, keys + used, sizeof(keys) - 1 - used, &r.f.out) == 0,
	      "consumed while blocked");
	CHECK(r.f.len == (size_t)i, "wrote while blocked");
	/* drain by steps: resume with len 0, then with the rest */
	while (kv_session_blocked(&r.s)) {
		r.f.sent = r.f.len;
		kv_session_input(&r.s, NULL, 0, &r.f.out);
	}
	while (used < sizeof(keys) - 1) {
		size_t u;

		r.f.sent = r.f.len;
		u = kv_session_input(&r.s, keys + used, sizeof(keys) - 1 - used, &r.f.out);
		CHECK(u > 0, "no progress at %zu", used);
		if (!u)
			break;
		used += u;
		while (kv_session_blocked(&r.s)) {
			r.f.sent = r.f.len;
			kv_session_input(&r.s, NULL, 0, &r.f.out);
		}
	}
	CHECK(r.f.len == strlen(want) && !memcmp(r.f.buf, want, r.f.len),
	      "resumed output differs (%zu vs %zu bytes)", r.f.len, strlen(want));
	/* a pipeline stops at a command boundary and takes nothing more */
	fout_reset(&r.f);
	r.f.hold = true;
	used = kv_session_input(&r.s, "get v0\r\nget v1\r\nget v2\r\nget v3\r\n", 32, &r.f.out);
	CHECK(used == 24 && !kv_session_blocked(&r.s), "pipeline stopped at %zu", used);
	rig_fini(&r);
	free(want);
	free(val);
}

/* A million pipelined gets, fed in 64 KiB reads: all answered. */
static void t_million(void)
{
	size_t per = strlen("get k\r\n"), total = 1000000 * per, done = 0, got = 0;
	char *buf = xmalloc(65536);
	struct rig r;
	size_t i;

	rig_init(&r, 64 << 20);
	EXPECT(&r, "set k 0 0 1\r\nv\r\n", "STORED\r\n");
	for (i = 0; i + per <= 65536; i += per)
		memcpy(buf + i, "get k\r\n", per);
	while (done < total) {
		size_t n = total - done < i ? total - done : i, off = 0;

		r.f.hold = true;
		fout_reset(&r.f);
		while (off < n) {
			off += kv_session_input(&r.s, buf + off, n - off, &r.f.out);
			got += r.f.len / strlen("VALUE k 0 1\r\nv\r\nEND\r\n");
			fout_reset(&r.f);	/* the network took it */
		}
		done += n;
	}
	CHECK(got == 1000000, "answered %zu", got);
	CHECK(r.s.line_cap <= 256, "line buffer %zu", r.s.line_cap);
	rig_fini(&r);
	free(buf);
}

/* ---- concurrency ----------------------------------------------------- */

#define THREADS		8
#define ROUNDS		20000

struct hammer {
	pthread_t		tid;
	struct kv_store		*st;
	unsigned int		seed;
	unsigned long		incrs;
	unsigned long		appends;
	int			bad;
};

static void *hammer_run(void *arg)
{
	struct hammer *h = arg;
	struct kv_session s;
	struct fout f;
	char cmd[128], val[64];
	int i;

	fout_init(&f);
	kv_session_init(&s, h->st);
	for (i = 0; i < ROUNDS; i++) {
		unsigned int k = rand_r(&h->seed) % 4;
		const char *p;
		int n;

		fout_reset(&f);
		switch (rand_r(&h->seed) % 8) {
		case 0:
			p = "incr ctr 1\r\n";
			kv_session_input(&s, p, strlen(p), &f.out);
			h->incrs++;
			break;
		case 1:
			p = "append log 0 0 1\r\nx\r\n";
			kv_session_input(&s, p, strlen(p), &f.out);
			h->appends++;
			break;
		case 2:
			/* the value names its key: a get must never see another's */
			n = snprintf(val, sizeof(val), "key%u-%d", k, i);
			snprintf(cmd, sizeof(cmd), "set key%u 0 0 %d\r\n%s\r\n", k, n, val);
			kv_session_input(&s, cmd, strlen(cmd), &f.out);
			if (strcmp(f.buf, "STORED\r\n"))
				h->bad++;
			break;
		case 3:
		case 4:
		case 5:
		case 6:
			snprintf(cmd, sizeof(cmd), "get key%u key%u\r\n", k, (k + 1) % 4);
			kv_session_input(&s, cmd, strlen(cmd), &f.out);
			for (p = f.buf; (p = strstr(p, "VALUE key")); p++) {
				unsigned int a, b;

				if (sscanf(p, "VALUE key%u %*u %*u\r\nkey%u-", &a, &b) != 2 ||
				    a != b)
					h->bad++;
			}
			break;
		default:
			snprintf(cmd, sizeof(cmd), "delete key%u\r\n", k);
			kv_session_input(&s, cmd, strlen(cmd), &f.out);
			break;
		}
	}
	kv_session_fini(&s);
	free(f.buf);
	return NULL;
}

static void hammer(size_t maxbytes, bool exact)
{
	struct hammer h[THREADS];
	unsigned long incrs = 0, appends = 0;
	struct kv_stats stats;
	struct rig r;
	char want[64];
	int i;

	rig_init(&r, maxbytes);
	EXPECT(&r, "set ctr 0 0 1\r\n0\r\nset log 0 0 0\r\n\r\n", "STORED\r\nSTORED\r\n");
	for (i = 0; i < THREADS; i++) {
		memset(&h[i], 0, sizeof(h[i]));
		h[i].st = r.st;
		h[i].seed = 1234 + i;
		pthread_create(&h[i].tid, NULL, hammer_run, &h[i]);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(h[i].tid, NULL);
		incrs += h[i].incrs;
		appends += h[i].appends;
		CHECK(!h[i].bad, "thread %d saw %d bad replies", i, h[i].bad);
	}
	CHECK(kv_store_bytes(r.st) <= maxbytes, "bytes %zu over %zu", kv_store_bytes(r.st),
	      maxbytes);
	CHECK(!kv_store_check(r.st), "store: %s", kv_store_check(r.st));
	kv_store_stats(r.st, &stats);
	CHECK(stats.t.conn_opened == THREADS + 1 && stats.t.conn_closed == THREADS,
	      "connections %llu/%llu", (unsigned long long)stats.t.conn_opened,
	      (unsigned long long)stats.t.conn_closed);
	CHECK(stats.t.incr_hits + stats.t.incr_misses == incrs, "incr count");
	if (exact) {
		snprintf(want, sizeof(want), "%lu\r\n", incrs);
		EXPECT(&r, "incr ctr 0\r\n", want);
		feed(&r, "get log\r\n");
		snprintf(want, sizeof(want), "VALUE log 0 %lu\r\n", appends);
		CHECK(!strncmp(r.f.buf, want, strlen(want)), "log: %.40s", r.f.buf);
		CHECK(stats.evictions == 0, "evictions");
	} else {
		CHECK(stats.evictions > 0, "no eviction under a small limit");
	}
	rig_fini(&r);
}

static void t_concurrency(void)
{
	hammer(64 << 20, true);
}

static void t_concurrency_evicting(void)
{
	hammer(8 * 1024, false);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		only = argv[1];
	test("expiry: relative, absolute, negative, 30-day boundary", t_expiry);
	test("flush_all: now, delayed, items set during the delay", t_flush);
	test("LRU eviction order under a small limit", t_lru);
	test("cas: NOT_FOUND, EXISTS, STORED; which commands change the cas", t_cas);
	test("incr/decr: wrap, floor, padding, non-numeric, bad delta", t_delta);
	test("append/prepend/add/replace", t_append);
	test("touch, gat, gats", t_touch);
	test("noreply: no bytes, the effect happens", t_noreply);
	test("every error reply, as memcached 1.6.18", t_errors);
	test("limits: largest value, longest line, long get, stalled command", t_limits);
	test("a get line too long to hold: key by key, bounded, under backpressure",
	     t_long_get);
	test("values being received and items being read are charged", t_charged);
	test("long lines, a NUL in a long get, the binary protocol, as memcached", t_long_lines);
	test("a script cut at every byte answers as whole", t_split);
	test("backpressure stops and resumes exactly, mid multi-get too", t_backpressure);
	test("a million pipelined gets", t_million);
	test("concurrency: 8 threads on overlapping keys, totals consistent",
	     t_concurrency);
	test("concurrency under eviction: limit kept", t_concurrency_evicting);
	printf("1..%d\n", test_no);
	printf("# unit: %d passed, %d failed\n", test_no - tests_failed, tests_failed);
	return tests_failed ? 1 : 0;
}
