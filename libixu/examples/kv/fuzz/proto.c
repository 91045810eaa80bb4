// SPDX-License-Identifier: MIT
/*
 * proto - libFuzzer target: a session on a small store, fed in random cuts
 *
 * The first four bytes of the input seed the cuts, the moments the fake
 * front end holds its output (backpressure) and the clock's ticks; the rest
 * is what a client sends.  Checked after every call:
 * - kv_session_input() consumes at most what it was given, makes progress
 *   unless held back or closing, and nothing once closing;
 * - the bytes charged to the store never exceed its limit, and its lists,
 *   chains and counts agree (kv_store_check());
 * and at the end, that the output is a sequence of well-formed replies
 * (known lines, and VALUE headers followed by exactly their bytes).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "store.h"

#define LIMIT		(64 * 1024)
#define OUT_MAX		(8 << 20)	/* checked and dropped beyond this */

struct fout {
	struct kv_out	out;
	char		*buf;
	size_t		len, cap, sent;
	bool		hold;
};

static int64_t now = 1000000000;

static int64_t fuzz_clock(void)
{
	return now;
}

static void fout_write(struct kv_out *o, const void *p, size_t n)
{
	struct fout *f = (struct fout *)o;

	if (f->len + n > f->cap) {
		f->cap = (f->len + n) * 2;
		f->buf = realloc(f->buf, f->cap);
		if (!f->buf)
			abort();
	}
	memcpy(f->buf + f->len, p, n);
	f->len += n;
}

static size_t fout_pending(struct kv_out *o)
{
	struct fout *f = (struct fout *)o;

	if (!f->hold)
		f->sent = f->len;
	return f->len - f->sent;
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static bool starts(const char *p, size_t n, const char *s)
{
	size_t l = strlen(s);

	return n >= l && !memcmp(p, s, l);
}

/* Length of the well-formed reply at @p, 0 if there is none. */
static size_t reply_len(const char *p, size_t n)
{
	static const char *const fixed[] = {
		"STORED\r\n", "NOT_STORED\r\n", "EXISTS\r\n", "NOT_FOUND\r\n", "DELETED\r\n",
		"TOUCHED\r\n", "OK\r\n", "END\r\n", "ERROR\r\n",
	};
	static const char *const prefixed[] = {
		"CLIENT_ERROR ", "SERVER_ERROR ", "VERSION ", "STAT ",
	};
	const char *eol = memmem(p, n, "\r\n", 2);
	size_t i, line;

	if (!eol)
		return 0;
	line = eol - p + 2;
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		if (starts(p, n, fixed[i]))
			return strlen(fixed[i]);
	for (i = 0; i < ARRAY_SIZE(prefixed); i++)
		if (starts(p, n, prefixed[i]))
			return line;
	if (p[0] >= '0' && p[0] <= '9') {
		for (i = 0; i < line - 2; i++)
			if (p[i] < '0' || p[i] > '9')
				return 0;
		return line;
	}
	if (starts(p, n, "VALUE ")) {
		/* VALUE <key> <flags> <bytes>[ <cas>]: a key holds no space */
		const char *k = p + 6, *sp = memchr(k, ' ', line - 8);
		unsigned long long flags, bytes, cas;
		char nums[80];

		if (!sp || sp == k || sp - k > KV_KEY_MAX || (size_t)(eol - sp) >= sizeof(nums))
			return 0;
		memcpy(nums, sp, eol - sp);
		nums[eol - sp] = 0;
		if (sscanf(nums, " %llu %llu %llu", &flags, &bytes, &cas) < 2 ||
		    flags > UINT32_MAX || bytes > KV_VALUE_MAX || line + bytes + 2 > n ||
		    memcmp(p + line + bytes, "\r\n", 2))
			return 0;
		return line + bytes + 2;
	}
	return 0;
}

static void check_output(struct fout *f)
{
	size_t off = 0, l;

	while (off < f->len) {
		l = reply_len(f->buf + off, f->len - off);
		if (!l) {
			fprintf(stderr, "malformed reply at %zu: %.60s\n", off, f->buf + off);
			abort();
		}
		off += l;
	}
	f->len = f->sent = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kv_session s;
	struct kv_store *st;
	struct fout f = { 0 };
	uint32_t seed = 1;
	const char *err;
	size_t off = 0;

	if (size >= 4) {
		memcpy(&seed, data, 4);
		seed |= 1;
		data += 4;
		size -= 4;
	}
	st = kv_store_create(LIMIT);
	if (!st)
		return 0;
	st->now = fuzz_clock;
	f.out.write = fout_write;
	f.out.pending = fout_pending;
	kv_session_init(&s, st);
	while (off < size) {
		size_t cut = 1 + rnd(&seed) % (size - off), used;

		if (rnd(&seed) % 8 == 0)
			cut = size - off;
		f.hold = rnd(&seed) % 4 == 0;
		used = kv_session_input(&s, (const char *)data + off, cut, &f.out);
		if (used > cut)
			abort();
		if (kv_session_closing(&s)) {
			if (kv_session_input(&s, "get k\r\n", 7, &f.out) != 0)
				abort();
			break;
		}
		if (used < cut && !f.hold && !kv_session_blocked(&s))
			abort();	/* stopped for no reason */
		/* the network drains; a stopped get goes on */
		f.hold = false;
		while (kv_session_blocked(&s))
			kv_session_input(&s, NULL, 0, &f.out);
		off += used;
		if (kv_store_bytes(st) > LIMIT)
			abort();
		err = kv_store_check(st);
		if (err) {
			fprintf(stderr, "store: %s\n", err);
			abort();
		}
		if (rnd(&seed) % 16 == 0)
			now += rnd(&seed) % 4;
		if (f.len > OUT_MAX)
			check_output(&f);
	}
	check_output(&f);
	kv_session_fini(&s);
	kv_store_destroy(st);
	free(f.buf);
	return 0;
}
