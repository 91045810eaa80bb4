/* SPDX-License-Identifier: MIT */
/*
 * kv protocol - memcached's text protocol over one connection ("session")
 *
 * A front end owns the socket and the output buffer; the session owns the
 * protocol state.  The front end feeds received bytes to
 * kv_session_input(), which writes replies through struct kv_out and says
 * how many bytes it took.
 *
 * Threads: the store may be shared by any number of threads; a session is
 * driven by one thread, the one that called kv_session_init() (it counts
 * on that thread's statistics, struct kv_tstats, without locks).
 */
#ifndef KV_PROTO_H
#define KV_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

/**
 * struct kv_out - where a session writes its replies
 * @write: append reply bytes; always succeeds (the front end buffers)
 * @write_item: append @len bytes at @p inside @it without copying them,
 *	taking the caller's reference on @it (released once they are sent);
 *	NULL: the session copies values with @write
 * @pending: bytes written and not yet sent by the front end (referenced
 *	ones included)
 */
struct kv_out {
	void (*write)(struct kv_out *out, const void *buf, size_t len);
	void (*write_item)(struct kv_out *out, struct kv_item *it, const void *p, size_t len);
	size_t (*pending)(struct kv_out *out);
};

/*
 * The session takes no new command, and a get no next key, while more
 * than this is pending.  Bytes the front end holds for a connection are
 * then at most this plus one command's reply; with values of
 * KV_OUT_REF_MIN bytes or more passed by reference, the copied part of
 * that reply is headers and small values only (the largest: "stats",
 * under 4 KiB).
 */
#define KV_OUT_HIGH		(64 * 1024)

/* Values at least this long go by reference (@write_item), shorter are copied. */
#define KV_OUT_REF_MIN		1024

/*
 * A command line longer than this (bytes before its "\n") closes the
 * connection, unless it is a get or gets: those may name any number of
 * keys and are then answered key by key as the line arrives (KV_ST_MGET),
 * holding one key at a time.  memcached's limit when a line comes in one
 * read: its "\n" must be within the 16 KiB read buffer (16382 bytes and
 * "\r\n" are answered, 16383 and "\r\n" close; 1.6.18, by experiment).
 */
#define KV_LINE_MAX		16383

enum kv_state {
	KV_ST_LINE,		/* reading a command line */
	KV_ST_DATA,		/* reading a value into @item */
	KV_ST_SWALLOW,		/* discarding the value of a refused set */
	KV_ST_GET,		/* a multi-key get stopped half-way, in @line */
	KV_ST_MGET,		/* a get line too long to hold, answered as it comes */
	KV_ST_CLOSING,		/* quit, or a fatal error */
};

/**
 * struct kv_session - one connection's protocol state
 * @st: the store
 * @ts: the thread's counters (the thread that called kv_session_init())
 * @state: what the next input bytes are
 * @line: a command line received in pieces, or the rest of a stopped get
 * @line_len: bytes in @line
 * @line_cap: bytes allocated at @line
 * @item: the item whose value is being received (KV_ST_DATA)
 * @data_got: value bytes received so far, "\r\n" included
 * @left: value bytes still to swallow (KV_ST_SWALLOW)
 * @op: the storage command being received
 * @cas: its cas unique (cas command)
 * @noreply: the command being received asked for no reply
 * @get_pos: next key of a stopped get, an offset in @line
 * @get_cmd: which get it is (an index in the command table)
 * @get_exp: the expiry a stopped gat/gats sets
 * @line_pos: KV_ST_MGET: bytes of @line already parsed
 * @key: KV_ST_MGET: the key being received
 * @key_len: its length so far
 * @key_ready: KV_ST_MGET: @key is complete, to answer when output allows
 * @mget_end: KV_ST_MGET: the line ended; "END" follows the last key
 * @mget_skip: KV_ST_MGET: discard the rest of the line (after a NUL, which
 *	ends a line as memcached reads it, or a key too long)
 * @mget_bad: KV_ST_MGET: a key was too long: no "END"
 * @started: input arrived (the first byte tells a binary-protocol client)
 */
struct kv_session {
	struct kv_store		*st;
	struct kv_tstats	*ts;
	enum kv_state		state;
	char			*line;
	size_t			line_len;
	size_t			line_cap;
	struct kv_item		*item;
	size_t			data_got;
	uint64_t		left;
	int			op;
	uint64_t		cas;
	bool			noreply;
	size_t			get_pos;
	int			get_cmd;
	int64_t			get_exp;
	size_t			line_pos;
	char			key[KV_KEY_MAX + 2];
	size_t			key_len;
	bool			key_ready;
	bool			mget_end;
	bool			mget_skip;
	bool			mget_bad;
	bool			started;
};

void kv_session_init(struct kv_session *s, struct kv_store *st);
/* Frees the partial item and the buffers. */
void kv_session_fini(struct kv_session *s);

/*
 * Feed @len received bytes.  Returns how many were consumed: all of them,
 * unless (a) the session stopped because out->pending() > KV_OUT_HIGH
 * (backpressure: resume later, also a multi-key get half-way through its
 * keys, by calling again with the unconsumed bytes or with len 0 once
 * pending went down), or (b) the session is closing (quit, or a fatal
 * error): kv_session_closing(s) is then true and the front end closes after
 * flushing what was written.  A partial command line is copied into the
 * session (bounded) and a value being received goes straight into its item,
 * so the front end never has to keep bytes the session consumed.
 */
size_t kv_session_input(struct kv_session *s, const char *data, size_t len, struct kv_out *out);

static inline bool kv_session_closing(const struct kv_session *s)
{
	return s->state == KV_ST_CLOSING;
}

/* A get stopped half-way: call kv_session_input() again once pending is low. */
static inline bool kv_session_blocked(const struct kv_session *s)
{
	return s->state == KV_ST_GET ||
	       (s->state == KV_ST_MGET && (s->key_ready || s->mget_end ||
					   s->line_pos < s->line_len));
}

#endif /* KV_PROTO_H */
