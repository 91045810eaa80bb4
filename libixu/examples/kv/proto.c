// SPDX-License-Identifier: MIT
/*
 * kv protocol - memcached's text protocol, one session per connection
 *
 * The session is a small state machine fed with whatever bytes arrived:
 *
 *   LINE    --"set ..."-->  DATA     (value bytes go straight into the item)
 *   LINE    --too large-->  SWALLOW  (value bytes are counted and dropped)
 *   LINE    --get, output over KV_OUT_HIGH mid-keys-->  GET  (rest of the
 *           line kept in the session; resumed by the next call)
 *   LINE    --get/gets line over KV_LINE_MAX-->  MGET  (keys answered as
 *           they arrive, one key held)
 *   any     --quit, other line over KV_LINE_MAX-->  CLOSING
 *
 * A complete command line found in the caller's bytes is parsed where it
 * lies; only a line cut by the end of a read is copied, into @line, which
 * holds at most KV_LINE_MAX bytes (memcached's 16 KiB read buffer).  A
 * longer line closes the connection, as in memcached, except a get or gets:
 * memcached buffers those whole, without bound; we answer them key by key
 * as they arrive (KV_ST_MGET), holding one key.  Whatever arrives, the
 * session holds at most one line, one key and one item.
 *
 * A connection whose first byte is 0x80, the binary protocol's request
 * magic, is answered "ERROR" and closed.  memcached with the binary
 * protocol disabled (-B ascii) reads such a request as a text line: it
 * answers "ERROR" only if a "\n" comes, and a binary get has none, so the
 * client waits forever (1.6.18, by experiment); with -B auto, its default,
 * it speaks the binary protocol, which kv does not.
 *
 * Commands are found in a table (name, token counts, handler).  The
 * replies, including every error string and when it is given, follow
 * Debian's memcached 1.6.18, checked by experiment (tests/diff_memcached.py
 * compares the two).  Where memcached's answer depends on how the bytes
 * were cut into reads (it measures a line against its read buffer), this
 * session answers the same whatever the cuts.  Known differences:
 * - a line over 2048 bytes that arrives in several reads is answered if it
 *   is within KV_LINE_MAX (memcached closes once it holds 2048 bytes of it
 *   without a "\n", unless it is a get);
 * - after a get with a key over 250 bytes memcached also drops the replies
 *   to the commands before it in the same read; we keep them;
 * - a get line over KV_LINE_MAX is answered key by key: a key too long in
 *   it comes after the values of the keys before it (memcached: error
 *   only; under KV_LINE_MAX, error only here too);
 * - incr/decr always pad a shorter result with spaces to the old length,
 *   which memcached does only when no other thread holds the item.
 *
 * Backpressure: before each command, and before each key of a multi-get,
 * the session asks out->pending(); above KV_OUT_HIGH it stops and returns
 * what it consumed, so one client can queue at most KV_OUT_HIGH plus one
 * reply (<= one value) however many requests it pipelines.  Values of
 * KV_OUT_REF_MIN bytes or more go to the front end by reference
 * (out->write_item()), as memcached's replies do: a value waiting for a
 * slow reader is the item itself, charged to the store, however many
 * keys of a get named it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "proto.h"

#define KV_TOKENS_MAX	8	/* stored; more are only counted */

struct kv_tok {
	const char	*p;
	size_t		n;
};

/**
 * struct kv_line - a command line being executed
 * @p: its bytes, without "\r\n"
 * @n: their length
 * @tok: the first tokens (space separated)
 * @ntok: how many tokens the line has (may exceed KV_TOKENS_MAX)
 */
struct kv_line {
	const char	*p;
	size_t		n;
	struct kv_tok	tok[KV_TOKENS_MAX];
	unsigned int	ntok;
};

struct kv_cmd {
	const char	*name;
	unsigned int	min_tok;	/* with the command's own name */
	unsigned int	max_tok;	/* 0: no limit */
	void		(*fn)(struct kv_session *s, struct kv_line *l, struct kv_out *out,
			      const struct kv_cmd *cmd);
	int		arg;		/* a store op, a get kind, incr or decr */
};

enum kv_get_kind { KV_GET, KV_GETS, KV_GAT, KV_GATS };

/* Indices in kv_cmds[] of the commands a long line may be. */
enum { KV_CMD_GET, KV_CMD_GETS };

static const struct kv_cmd kv_cmds[];

static void kv_write(struct kv_session *s, struct kv_out *out, const void *buf, size_t len)
{
	out->write(out, buf, len);
	KV_STAT_ADD(s->ts, bytes_written, len);
}

/* A one-line reply, unless the command said noreply. */
static void kv_reply(struct kv_session *s, struct kv_out *out, const char *msg)
{
	if (s->noreply)
		return;
	kv_write(s, out, msg, strlen(msg));
}

static bool kv_tok_is(const struct kv_tok *t, const char *s)
{
	return t->n == strlen(s) && !memcmp(t->p, s, t->n);
}

/* Unsigned decimal, the whole token: memcached's safe_strtoull. */
static bool kv_tok_u64(const struct kv_tok *t, uint64_t *v)
{
	size_t i = 0;
	uint64_t x = 0;

	if (i < t->n && t->p[i] == '+')
		i++;
	if (i == t->n)
		return false;
	for (; i < t->n; i++) {
		unsigned int d = t->p[i] - '0';

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

/* Signed decimal within 32 bits: memcached's safe_strtol into an int32. */
static bool kv_tok_i32(const struct kv_tok *t, int64_t *v)
{
	struct kv_tok u = *t;
	bool neg = false;
	uint64_t x;

	if (u.n && u.p[0] == '-') {
		neg = true;
		u.p++;
		u.n--;
		if (u.n && u.p[0] == '+')
			return false;
	}
	if (!kv_tok_u64(&u, &x) || x > (neg ? 2147483648ull : 2147483647ull))
		return false;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return true;
}

static void kv_tokenize(struct kv_line *l)
{
	const char *p = l->p, *end = l->p + l->n;

	l->ntok = 0;
	while (p < end) {
		const char *q;

		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		q = memchr(p, ' ', end - p);
		if (!q)
			q = end;
		if (l->ntok < KV_TOKENS_MAX) {
			l->tok[l->ntok].p = p;
			l->tok[l->ntok].n = q - p;
		}
		l->ntok++;
		p = q;
	}
}

/* The key tokens of a get line, from @pos; false when none is left. */
static bool kv_next_key(const char *p, size_t n, size_t *pos, struct kv_tok *key)
{
	size_t i = *pos, j;

	while (i < n && p[i] == ' ')
		i++;
	if (i == n)
		return false;
	for (j = i; j < n && p[j] != ' '; j++)
		;
	key->p = p + i;
	key->n = j - i;
	*pos = j;
	return true;
}

/* ---- retrieval: get, gets, gat, gats --------------------------------- */

/* A VALUE reply for @it; takes the caller's reference on @it. */
static void kv_value_out(struct kv_session *s, struct kv_out *out, struct kv_item *it, bool cas)
{
	char hdr[KV_KEY_MAX + 80];
	int n;

	/* the key by its length, not as a C string */
	memcpy(hdr, "VALUE ", 6);
	memcpy(hdr + 6, kv_item_key(it), it->nkey);
	n = 6 + it->nkey;
	n += snprintf(hdr + n, sizeof(hdr) - n, " %u %u", it->flags, it->nbytes);
	if (cas)
		n += snprintf(hdr + n, sizeof(hdr) - n, " %llu", (unsigned long long)it->cas);
	memcpy(hdr + n, "\r\n", 2);
	kv_write(s, out, hdr, n + 2);
	KV_STAT_ADD(s->ts, bytes_written, it->nbytes + 2);
	if (out->write_item && it->nbytes + 2 >= KV_OUT_REF_MIN) {
		/* memcached's rule: the reply references the item, charged to the store */
		out->write_item(out, it, kv_item_value(it), it->nbytes + 2);
		return;
	}
	out->write(out, kv_item_value(it), it->nbytes + 2);
	kv_item_put(it);
}

/* Answer one key of a get, gets, gat or gats. */
static void kv_get_one(struct kv_session *s, const char *key, size_t nkey, struct kv_out *out)
{
	int kind = kv_cmds[s->get_cmd].arg;
	bool touch = kind == KV_GAT || kind == KV_GATS;
	struct kv_item *it;

	it = kv_store_get(s->st, key, nkey, touch, s->get_exp);
	if (touch) {
		KV_STAT_ADD(s->ts, cmd_touch, 1);
		if (it)
			KV_STAT_ADD(s->ts, touch_hits, 1);
		else
			KV_STAT_ADD(s->ts, touch_misses, 1);
	}
	KV_STAT_ADD(s->ts, cmd_get, 1);
	if (it) {
		KV_STAT_ADD(s->ts, get_hits, 1);
		kv_value_out(s, out, it, kind == KV_GETS || kind == KV_GATS);
	} else {
		KV_STAT_ADD(s->ts, get_misses, 1);
	}
}

/*
 * Answer the keys of the get line @p (@n bytes) from @pos on.  Returns
 * false if it stopped for backpressure: the rest of the line is then in
 * s->line and the session in KV_ST_GET.
 */
static bool kv_get_keys(struct kv_session *s, const char *p, size_t n, size_t pos,
			struct kv_out *out)
{
	struct kv_tok key;
	size_t at = pos;

	while (kv_next_key(p, n, &at, &key)) {
		if (out->pending(out) > KV_OUT_HIGH) {
			size_t rest = n - pos;

			if (p != s->line && rest > s->line_cap) {
				char *nl = realloc(s->line, rest);

				if (!nl) {
					s->state = KV_ST_CLOSING;
					return false;
				}
				s->line = nl;
				s->line_cap = rest;
			}
			memmove(s->line, p + pos, rest);
			s->line_len = rest;
			s->get_pos = 0;
			s->state = KV_ST_GET;
			return false;
		}
		kv_get_one(s, key.p, key.n, out);
		pos = at;
	}
	kv_write(s, out, "END\r\n", 5);
	s->line_len = 0;
	s->state = KV_ST_LINE;
	return true;
}

/*
 * KV_ST_MGET: take the bytes of a long get line, answering each key as its
 * end arrives.  Returns how many bytes it took; fewer than @n if it stopped
 * for backpressure (a complete key waits in s->key) or at the line's end
 * (the state is KV_ST_LINE again).  A key longer than KV_KEY_MAX ends the
 * answer with memcached's error for it and the rest of the line is
 * discarded; the keys before it have been answered already.  A NUL ends
 * the keys, as memcached reads the line as a C string.
 */
static size_t kv_mget_feed(struct kv_session *s, const char *p, size_t n, struct kv_out *out)
{
	size_t i = 0;

	for (;;) {
		const char *nl;
		char c;

		if (s->key_ready) {
			if (out->pending(out) > KV_OUT_HIGH)
				return i;
			kv_get_one(s, s->key, s->key_len, out);
			s->key_ready = false;
			s->key_len = 0;
		}
		if (s->mget_end) {
			if (!s->mget_bad)
				kv_write(s, out, "END\r\n", 5);
			s->mget_end = false;
			s->mget_skip = false;
			s->mget_bad = false;
			s->state = KV_ST_LINE;
			return i;
		}
		if (i == n)
			return i;
		if (s->mget_skip) {
			nl = memchr(p + i, '\n', n - i);
			if (!nl)
				return n;
			i = nl - p + 1;
			s->mget_end = true;
			continue;
		}
		c = p[i++];
		if (!c) {
			s->key_ready = s->key_len != 0;
			s->mget_skip = true;
			if (s->key_len > KV_KEY_MAX)
				goto bad;
			continue;
		}
		if (c == ' ' || c == '\n') {
			if (c == '\n' && s->key_len && s->key[s->key_len - 1] == '\r')
				s->key_len--;
			s->key_ready = s->key_len != 0;
			s->mget_end = c == '\n';
			if (s->key_len > KV_KEY_MAX)
				goto bad;
			continue;
		}
		/* one more than the limit: a "\r" may end the key at the "\n" */
		if (s->key_len > KV_KEY_MAX)
			goto bad;
		s->key[s->key_len++] = c;
		continue;
bad:
		kv_write(s, out, "CLIENT_ERROR bad command line format\r\n", 38);
		s->key_ready = false;
		s->key_len = 0;
		s->mget_skip = true;
		s->mget_bad = true;
	}
}

static void kv_cmd_get(struct kv_session *s, struct kv_line *l, struct kv_out *out,
		       const struct kv_cmd *cmd)
{
	bool touch = cmd->arg == KV_GAT || cmd->arg == KV_GATS;
	size_t pos = l->tok[0].p + l->tok[0].n - l->p, at;
	struct kv_tok key;
	int64_t exptime;

	s->get_exp = 0;
	if (touch) {
		if (!kv_tok_i32(&l->tok[1], &exptime)) {
			kv_reply(s, out, "CLIENT_ERROR invalid exptime argument\r\n");
			return;
		}
		s->get_exp = kv_store_exptime(s->st, exptime);
		pos = l->tok[1].p + l->tok[1].n - l->p;
	}
	/* memcached answers a line with a key too long with the error alone */
	for (at = pos; kv_next_key(l->p, l->n, &at, &key);) {
		if (key.n > KV_KEY_MAX) {
			kv_reply(s, out, "CLIENT_ERROR bad command line format\r\n");
			return;
		}
	}
	s->get_cmd = cmd - kv_cmds;
	kv_get_keys(s, l->p, l->n, pos, out);
}

/* ---- storage: set, add, replace, append, prepend, cas ----------------- */

static void kv_cmd_store(struct kv_session *s, struct kv_line *l, struct kv_out *out,
			 const struct kv_cmd *cmd)
{
	unsigned int nargs = cmd->arg == KV_CAS ? 6 : 5;
	int64_t exptime, vlen;
	uint64_t flags, cas = 0;
	enum kv_result res;
	struct kv_item *it;

	s->noreply = l->ntok > nargs && kv_tok_is(&l->tok[nargs], "noreply");
	if (l->tok[1].n > KV_KEY_MAX ||
	    !kv_tok_u64(&l->tok[2], &flags) || !kv_tok_i32(&l->tok[3], &exptime) ||
	    !kv_tok_i32(&l->tok[4], &vlen) || vlen < 0 ||
	    (cmd->arg == KV_CAS && !kv_tok_u64(&l->tok[5], &cas))) {
		kv_reply(s, out, "CLIENT_ERROR bad command line format\r\n");
		return;
	}
	KV_STAT_ADD(s->ts, cmd_set, 1);
	it = kv_item_alloc(s->st, l->tok[1].p, l->tok[1].n, (uint32_t)flags,
			   kv_store_exptime(s->st, exptime), vlen, &res);
	if (!it) {
		if (res == KV_TOO_LARGE) {
			KV_STAT_ADD(s->ts, store_too_large, 1);
			kv_reply(s, out, "SERVER_ERROR object too large for cache\r\n");
		} else {
			KV_STAT_ADD(s->ts, store_no_memory, 1);
			kv_reply(s, out, "SERVER_ERROR out of memory storing object\r\n");
		}
		/* as memcached: a failed set must not leave the old value readable */
		if (cmd->arg == KV_SET)
			kv_store_unlink(s->st, l->tok[1].p, l->tok[1].n);
		s->left = (uint64_t)vlen + 2;
		s->state = KV_ST_SWALLOW;
		return;
	}
	s->item = it;
	s->data_got = 0;
	s->op = cmd->arg;
	s->cas = cas;
	s->state = KV_ST_DATA;
}

/* The value and its "\r\n" are in: check the terminator and store. */
static void kv_data_done(struct kv_session *s, struct kv_out *out)
{
	static const char *const answer[] = {
		[KV_STORED]	= "STORED\r\n",
		[KV_NOT_STORED]	= "NOT_STORED\r\n",
		[KV_EXISTS]	= "EXISTS\r\n",
		[KV_NOT_FOUND]	= "NOT_FOUND\r\n",
		[KV_NO_MEMORY]	= "SERVER_ERROR out of memory storing object\r\n",
	};
	struct kv_item *it = s->item;
	enum kv_result res;

	s->item = NULL;
	s->state = KV_ST_LINE;
	if (memcmp(kv_item_value(it) + it->nbytes, "\r\n", 2)) {
		kv_item_put(it);
		kv_reply(s, out, "CLIENT_ERROR bad data chunk\r\n");
		return;
	}
	res = kv_store_store(s->st, it, s->op, s->cas);
	if (s->op == KV_CAS) {
		if (res == KV_STORED)
			KV_STAT_ADD(s->ts, cas_hits, 1);
		else if (res == KV_EXISTS)
			KV_STAT_ADD(s->ts, cas_badval, 1);
		else if (res == KV_NOT_FOUND)
			KV_STAT_ADD(s->ts, cas_misses, 1);
	}
	if (res == KV_NO_MEMORY)
		KV_STAT_ADD(s->ts, store_no_memory, 1);
	kv_reply(s, out, answer[res]);
}

/* ---- delete, incr, decr, touch ---------------------------------------- */

static void kv_cmd_delete(struct kv_session *s, struct kv_line *l, struct kv_out *out,
			  const struct kv_cmd *cmd)
{
	bool zero = l->ntok > 2 && kv_tok_is(&l->tok[2], "0");

	(void)cmd;
	s->noreply = l->ntok > 2 && kv_tok_is(&l->tok[l->ntok - 1], "noreply");
	/* "delete <key> 0" is an old form memcached still takes */
	if ((l->ntok == 3 && !zero && !s->noreply) || (l->ntok == 4 && !(zero && s->noreply))) {
		kv_reply(s, out, "CLIENT_ERROR bad command line format.  "
			 "Usage: delete <key> [noreply]\r\n");
		return;
	}
	if (l->tok[1].n > KV_KEY_MAX) {
		kv_reply(s, out, "CLIENT_ERROR bad command line format\r\n");
		return;
	}
	if (kv_store_delete(s->st, l->tok[1].p, l->tok[1].n) == KV_DELETED) {
		KV_STAT_ADD(s->ts, delete_hits, 1);
		kv_reply(s, out, "DELETED\r\n");
	} else {
		KV_STAT_ADD(s->ts, delete_misses, 1);
		kv_reply(s, out, "NOT_FOUND\r\n");
	}
}

static void kv_cmd_delta(struct kv_session *s, struct kv_line *l, struct kv_out *out,
			 const struct kv_cmd *cmd)
{
	bool incr = cmd->arg;
	uint64_t delta, v;
	char buf[24];

	s->noreply = l->ntok == 4 && kv_tok_is(&l->tok[3], "noreply");
	if (l->tok[1].n > KV_KEY_MAX) {
		kv_reply(s, out, "CLIENT_ERROR bad command line format\r\n");
		return;
	}
	if (!kv_tok_u64(&l->tok[2], &delta)) {
		kv_reply(s, out, "CLIENT_ERROR invalid numeric delta argument\r\n");
		return;
	}
	switch (kv_store_delta(s->st, l->tok[1].p, l->tok[1].n, incr, delta, &v)) {
	case KV_OK:
		if (incr)
			KV_STAT_ADD(s->ts, incr_hits, 1);
		else
			KV_STAT_ADD(s->ts, decr_hits, 1);
		snprintf(buf, sizeof(buf), "%llu\r\n", (unsigned long long)v);
		kv_reply(s, out, buf);
		break;
	case KV_NOT_FOUND:
		if (incr)
			KV_STAT_ADD(s->ts, incr_misses, 1);
		else
			KV_STAT_ADD(s->ts, decr_misses, 1);
		kv_reply(s, out, "NOT_FOUND\r\n");
		break;
	case KV_NON_NUMERIC:
		kv_reply(s, out,
			 "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n");
		break;
	default:
		kv_reply(s, out, "SERVER_ERROR out of memory\r\n");
		break;
	}
}

static void kv_cmd_touch(struct kv_session *s, struct kv_line *l, struct kv_out *out,
			 const struct kv_cmd *cmd)
{
	int64_t exptime;

	(void)cmd;
	s->noreply = l->ntok == 4 && kv_tok_is(&l->tok[3], "noreply");
	if (l->tok[1].n > KV_KEY_MAX) {
		kv_reply(s, out, "CLIENT_ERROR bad command line format\r\n");
		return;
	}
	if (!kv_tok_i32(&l->tok[2], &exptime)) {
		kv_reply(s, out, "CLIENT_ERROR invalid exptime argument\r\n");
		return;
	}
	KV_STAT_ADD(s->ts, cmd_touch, 1);
	if (kv_store_touch(s->st, l->tok[1].p, l->tok[1].n,
			   kv_store_exptime(s->st, exptime)) == KV_TOUCHED) {
		KV_STAT_ADD(s->ts, touch_hits, 1);
		kv_reply(s, out, "TOUCHED\r\n");
	} else {
		KV_STAT_ADD(s->ts, touch_misses, 1);
		kv_reply(s, out, "NOT_FOUND\r\n");
	}
}

/* ---- flush_all, version, verbosity, quit, stats ------------------------ */

static void kv_cmd_flush(struct kv_session *s, struct kv_line *l, struct kv_out *out,
			 const struct kv_cmd *cmd)
{
	int64_t delay = 0;

	(void)cmd;
	s->noreply = l->ntok > 1 && kv_tok_is(&l->tok[l->ntok - 1], "noreply");
	if (l->ntok != (s->noreply ? 2u : 1u) && !kv_tok_i32(&l->tok[1], &delay)) {
		kv_reply(s, out, "CLIENT_ERROR invalid exptime argument\r\n");
		return;
	}
	KV_STAT_ADD(s->ts, cmd_flush, 1);
	kv_store_flush(s->st, delay);
	kv_reply(s, out, "OK\r\n");
}

static void kv_cmd_version(struct kv_session *s, struct kv_line *l, struct kv_out *out,
			   const struct kv_cmd *cmd)
{
	(void)l;
	(void)cmd;
	kv_reply(s, out, "VERSION " KV_VERSION "\r\n");
}

static void kv_cmd_verbosity(struct kv_session *s, struct kv_line *l, struct kv_out *out,
			     const struct kv_cmd *cmd)
{
	uint64_t level;

	(void)cmd;
	s->noreply = kv_tok_is(&l->tok[l->ntok - 1], "noreply");
	if (!kv_tok_u64(&l->tok[1], &level)) {
		kv_reply(s, out, "CLIENT_ERROR bad command line format\r\n");
		return;
	}
	__atomic_store_n(&s->st->settings.verbosity, (unsigned int)level, __ATOMIC_RELAXED);
	kv_reply(s, out, "OK\r\n");
}

static void kv_cmd_quit(struct kv_session *s, struct kv_line *l, struct kv_out *out,
			const struct kv_cmd *cmd)
{
	(void)l;
	(void)out;
	(void)cmd;
	s->state = KV_ST_CLOSING;
}

static void kv_stat(struct kv_session *s, struct kv_out *out, const char *name,
		    const char *fmt, ...)
{
	char buf[160];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "STAT %s ", name);
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n - 2, fmt, ap);
	va_end(ap);
	memcpy(buf + n, "\r\n", 2);
	kv_write(s, out, buf, n + 2);
}

static void kv_stats_general(struct kv_session *s, struct kv_out *out)
{
	static const struct {
		const char	*name;
		size_t		off;
	} counters[] = {
#define C(f) { #f, offsetof(struct kv_tstats, f) }
		C(cmd_get), C(cmd_set), C(cmd_flush), C(cmd_touch),
		C(get_hits), C(get_misses), C(delete_misses), C(delete_hits),
		C(incr_misses), C(incr_hits), C(decr_misses), C(decr_hits),
		C(cas_misses), C(cas_hits), C(cas_badval), C(touch_hits), C(touch_misses),
		C(store_too_large), C(store_no_memory), C(bytes_read), C(bytes_written),
#undef C
	};
	struct kv_store *st = s->st;
	int64_t now = st->now();
	struct kv_stats t;
	struct rusage ru;
	unsigned int i;

	kv_store_stats(st, &t);
	getrusage(RUSAGE_SELF, &ru);
	kv_stat(s, out, "pid", "%d", (int)getpid());
	kv_stat(s, out, "uptime", "%lld", (long long)(now - st->started));
	kv_stat(s, out, "time", "%lld", (long long)now);
	kv_stat(s, out, "version", "%s", KV_VERSION);
	kv_stat(s, out, "pointer_size", "%d", (int)(8 * sizeof(void *)));
	kv_stat(s, out, "rusage_user", "%ld.%06ld", (long)ru.ru_utime.tv_sec,
		(long)ru.ru_utime.tv_usec);
	kv_stat(s, out, "rusage_system", "%ld.%06ld", (long)ru.ru_stime.tv_sec,
		(long)ru.ru_stime.tv_usec);
	kv_stat(s, out, "max_connections", "%u", st->settings.maxconns);
	kv_stat(s, out, "curr_connections", "%llu",
		(unsigned long long)(t.t.conn_opened - t.t.conn_closed));
	kv_stat(s, out, "total_connections", "%llu", (unsigned long long)t.t.conn_opened);
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		kv_stat(s, out, counters[i].name, "%llu", (unsigned long long)
			*(const uint64_t *)((const char *)&t.t + counters[i].off));
	kv_stat(s, out, "limit_maxbytes", "%zu", st->settings.maxbytes);
	kv_stat(s, out, "threads", "%u", st->settings.threads);
	kv_stat(s, out, "lock_stripes", "%u", t.stripes);
	kv_stat(s, out, "bytes", "%llu", (unsigned long long)t.bytes);
	kv_stat(s, out, "curr_items", "%llu", (unsigned long long)t.curr_items);
	kv_stat(s, out, "total_items", "%llu", (unsigned long long)t.total_items);
	kv_stat(s, out, "reclaimed", "%llu", (unsigned long long)t.reclaimed);
	kv_stat(s, out, "evictions", "%llu", (unsigned long long)t.evictions);
	kv_write(s, out, "END\r\n", 5);
}

static void kv_stats_settings(struct kv_session *s, struct kv_out *out)
{
	const struct kv_settings *set = &s->st->settings;

	kv_stat(s, out, "maxbytes", "%zu", set->maxbytes);
	kv_stat(s, out, "maxconns", "%u", set->maxconns);
	kv_stat(s, out, "tcpport", "%u", set->port);
	kv_stat(s, out, "udpport", "0");
	kv_stat(s, out, "inter", "%s", set->inter);
	kv_stat(s, out, "verbosity", "%u", __atomic_load_n(&set->verbosity, __ATOMIC_RELAXED));
	kv_stat(s, out, "evictions", "on");
	kv_stat(s, out, "num_threads", "%u", set->threads);
	kv_stat(s, out, "cas_enabled", "yes");
	kv_stat(s, out, "item_size_max", "%d", KV_ITEM_SIZE_MAX);
	kv_stat(s, out, "flush_enabled", "yes");
	kv_write(s, out, "END\r\n", 5);
}

static void kv_cmd_stats(struct kv_session *s, struct kv_line *l, struct kv_out *out,
			 const struct kv_cmd *cmd)
{
	(void)cmd;
	if (l->ntok == 1)
		kv_stats_general(s, out);
	else if (l->ntok == 2 && kv_tok_is(&l->tok[1], "settings"))
		kv_stats_settings(s, out);
	else
		kv_reply(s, out, "ERROR\r\n");
}

/* Token counts as memcached's dispatcher checks them (name included). */
static const struct kv_cmd kv_cmds[] = {
	{ "get",	2, 0, kv_cmd_get,	KV_GET },
	{ "gets",	2, 0, kv_cmd_get,	KV_GETS },
	{ "gat",	2, 0, kv_cmd_get,	KV_GAT },
	{ "gats",	2, 0, kv_cmd_get,	KV_GATS },
	{ "set",	5, 6, kv_cmd_store,	KV_SET },
	{ "add",	5, 6, kv_cmd_store,	KV_ADD },
	{ "replace",	5, 6, kv_cmd_store,	KV_REPLACE },
	{ "append",	5, 6, kv_cmd_store,	KV_APPEND },
	{ "prepend",	5, 6, kv_cmd_store,	KV_PREPEND },
	{ "cas",	6, 7, kv_cmd_store,	KV_CAS },
	{ "delete",	2, 4, kv_cmd_delete,	0 },
	{ "incr",	3, 4, kv_cmd_delta,	1 },
	{ "decr",	3, 4, kv_cmd_delta,	0 },
	{ "touch",	3, 4, kv_cmd_touch,	0 },
	{ "flush_all",	1, 3, kv_cmd_flush,	0 },
	{ "version",	1, 0, kv_cmd_version,	0 },
	{ "verbosity",	2, 3, kv_cmd_verbosity,	0 },
	{ "quit",	1, 0, kv_cmd_quit,	0 },
	{ "stats",	1, 0, kv_cmd_stats,	0 },
};

static void kv_execute(struct kv_session *s, const char *p, size_t n, struct kv_out *out)
{
	struct kv_line l = { .p = p, .n = strnlen(p, n) };
	unsigned int i;

	/*
	 * memcached reads a command line as a C string: a NUL ends it (so a
	 * key can never hold one, and "set \0..." has too few tokens)
	 */
	kv_tokenize(&l);
	s->noreply = false;
	if (!l.ntok)
		goto err;
	for (i = 0; i < ARRAY_SIZE(kv_cmds); i++) {
		const struct kv_cmd *c = &kv_cmds[i];

		if (!kv_tok_is(&l.tok[0], c->name))
			continue;
		if (l.ntok < c->min_tok || (c->max_tok && l.ntok > c->max_tok))
			goto err;
		c->fn(s, &l, out, c);
		if (s->state != KV_ST_DATA)
			s->noreply = false;
		return;
	}
err:
	kv_write(s, out, "ERROR\r\n", 7);
}

/*
 * A line grew past KV_LINE_MAX: @line holds its first KV_LINE_MAX bytes.  A
 * get or gets goes on key by key (KV_ST_MGET); anything else closes.
 */
static void kv_line_overflow(struct kv_session *s)
{
	size_t i = 0, n = s->line_len;
	const char *p = s->line;

	while (i < n && p[i] == ' ')
		i++;
	if (n - i >= 4 && !memcmp(p + i, "get ", 4))
		s->get_cmd = KV_CMD_GET;
	else if (n - i >= 5 && !memcmp(p + i, "gets ", 5))
		s->get_cmd = KV_CMD_GETS;
	else {
		s->state = KV_ST_CLOSING;
		return;
	}
	s->state = KV_ST_MGET;
	s->get_exp = 0;
	s->line_pos = i + strlen(kv_cmds[s->get_cmd].name);
	s->key_len = 0;
	s->key_ready = false;
	s->mget_end = false;
	s->mget_skip = false;
	s->mget_bad = false;
}

/* Keep @n bytes of a line in @line (the caller keeps to KV_LINE_MAX). */
static bool kv_line_append(struct kv_session *s, const char *p, size_t n)
{
	size_t need = s->line_len + n;

	if (need > s->line_cap) {
		size_t cap = s->line_cap ? s->line_cap : 256;
		char *nl;

		while (cap < need)
			cap *= 2;
		nl = realloc(s->line, cap);
		if (!nl)
			return false;
		s->line = nl;
		s->line_cap = cap;
	}
	memcpy(s->line + s->line_len, p, n);
	s->line_len = need;
	return true;
}

/* A whole line (without "\n") at @p: strip "\r", run it. */
static void kv_line_done(struct kv_session *s, const char *p, size_t n, struct kv_out *out)
{
	if (n && p[n - 1] == '\r')
		n--;
	kv_execute(s, p, n, out);
}

size_t kv_session_input(struct kv_session *s, const char *data, size_t len, struct kv_out *out)
{
	size_t done = 0;

	if (!len)
		data = "";	/* a resume call may pass NULL */
	if (!s->started && len) {
		s->started = true;
		if ((unsigned char)data[0] == 0x80) {	/* binary protocol: see the top */
			kv_write(s, out, "ERROR\r\n", 7);
			s->state = KV_ST_CLOSING;
			done = len;
		}
	}
	for (;;) {
		const char *nl;
		size_t n;

		switch (s->state) {
		case KV_ST_CLOSING:
			goto out;
		case KV_ST_GET:
			if (!kv_get_keys(s, s->line, s->line_len, s->get_pos, out))
				goto out;
			continue;
		case KV_ST_MGET:
			if (s->line_pos < s->line_len) {
				s->line_pos += kv_mget_feed(s, s->line + s->line_pos,
							    s->line_len - s->line_pos, out);
				if (s->line_pos < s->line_len && s->state == KV_ST_MGET)
					goto out;
				s->line_pos = 0;
				s->line_len = 0;
				if (s->state != KV_ST_MGET)
					continue;
			}
			done += kv_mget_feed(s, data + done, len - done, out);
			if (s->state == KV_ST_MGET)
				goto out;	/* stopped, or all taken and the line goes on */
			continue;
		case KV_ST_DATA:
			if (done == len)
				goto out;
			n = s->item->nbytes + 2 - s->data_got;
			if (n > len - done)
				n = len - done;
			memcpy(kv_item_value(s->item) + s->data_got, data + done, n);
			s->data_got += n;
			done += n;
			if (s->data_got == s->item->nbytes + 2u)
				kv_data_done(s, out);
			continue;
		case KV_ST_SWALLOW:
			if (done == len)
				goto out;
			n = s->left < len - done ? s->left : len - done;
			s->left -= n;
			done += n;
			if (!s->left) {
				s->state = KV_ST_LINE;
				s->noreply = false;
			}
			continue;
		case KV_ST_LINE:
			break;
		}
		if (done == len || out->pending(out) > KV_OUT_HIGH)
			goto out;
		nl = memchr(data + done, '\n', len - done);
		n = nl ? (size_t)(nl - (data + done)) : len - done;
		if (s->line_len + n > KV_LINE_MAX) {
			/* too long to hold: keep KV_LINE_MAX bytes, then decide */
			n = KV_LINE_MAX - s->line_len;
			if (!kv_line_append(s, data + done, n))
				s->state = KV_ST_CLOSING;
			else
				kv_line_overflow(s);
			done += n;
			continue;
		}
		if (!nl) {
			if (!kv_line_append(s, data + done, n))
				s->state = KV_ST_CLOSING;
			done = len;
			continue;
		}
		if (!s->line_len) {
			kv_line_done(s, data + done, n, out);
		} else if (kv_line_append(s, data + done, n)) {
			kv_line_done(s, s->line, s->line_len, out);
			if (s->state != KV_ST_GET)
				s->line_len = 0;
		} else {
			s->state = KV_ST_CLOSING;
		}
		done += n + 1;
	}
out:
	KV_STAT_ADD(s->ts, bytes_read, done);
	return done;
}

void kv_session_init(struct kv_session *s, struct kv_store *st)
{
	memset(s, 0, sizeof(*s));
	s->st = st;
	s->ts = kv_store_tstats(st);
	s->state = KV_ST_LINE;
	KV_STAT_ADD(s->ts, conn_opened, 1);
}

void kv_session_fini(struct kv_session *s)
{
	if (s->item)
		kv_item_put(s->item);
	free(s->line);
	s->item = NULL;
	s->line = NULL;
	s->line_len = 0;
	s->line_cap = 0;
	/* counted on the thread that opened it; a single writer per counter */
	KV_STAT_ADD(s->ts, conn_closed, 1);
}
