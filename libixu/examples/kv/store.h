/* SPDX-License-Identifier: MIT */
/*
 * kv store - the key-value store shared by every thread of a kv server
 *
 * The store knows nothing of sockets or of the text protocol: proto.c
 * drives it.  An item is allocated by the caller (kv_item_alloc()), filled
 * (the value arrives from the network straight into it) and handed to
 * kv_store_store(), which takes the caller's reference.  kv_store_get()
 * returns a referenced item that stays valid until kv_item_put(), even if
 * another thread replaces or evicts it meanwhile.
 *
 * Memory, as memcached counts it: an item is charged against the limit
 * from kv_item_alloc() to its last kv_item_put(), linked or not, so a
 * value being received and a value being sent after its key was replaced
 * count too.  kv_item_alloc() evicts to make room; when what is charged
 * cannot be evicted (values being received, unlinked items still read) it
 * fails with KV_NO_MEMORY.  The store's items never take more than the
 * limit.
 */
#ifndef KV_STORE_H
#define KV_STORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KV_KEY_MAX		250
#define KV_ITEM_SIZE_MAX	(1024 * 1024)		/* memcached's -I default */
/*
 * memcached counts its item header (48 bytes), the cas (8), the key's NUL
 * and the value's "\r\n" against -I: with a 3-byte key the largest value
 * is 1048514 bytes (found by experiment on 1.6.18).
 */
#define KV_ITEM_OVERHEAD_MC	(48 + 8 + 1 + 2)
#define KV_VALUE_MAX		(KV_ITEM_SIZE_MAX - KV_ITEM_OVERHEAD_MC - 1)	/* 1-byte key */
#define KV_REL_EXPTIME_MAX	(60 * 60 * 24 * 30)	/* larger: absolute time */
#define KV_VERSION		"1.6.18"		/* the reference we follow */

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

struct kv_store;

/* Seconds since the epoch; tests install a fake clock. */
typedef int64_t (*kv_time_fn)(void);

/**
 * struct kv_item - one key and its value
 * @st: the store it is charged to
 * @hnext: next item in the hash chain (stripe lock)
 * @lprev: LRU neighbour towards the head (stripe lock)
 * @lnext: LRU neighbour towards the tail (stripe lock)
 * @cas: cas unique, set when the item is linked
 * @exp: absolute expiry time, 0 = never, < 0 = already expired
 * @time: when the item was linked (for a delayed flush_all)
 * @hash: hash of the key
 * @flags: the client's opaque flags
 * @nbytes: length of the value, without the "\r\n" stored after it
 * @refs: references: one while linked, one per reader (atomic)
 * @nkey: length of the key
 * @linked: in the table (stripe lock)
 * @data: the key, then the value followed by "\r\n"
 */
struct kv_item {
	struct kv_store	*st;
	struct kv_item	*hnext;
	struct kv_item	*lprev;
	struct kv_item	*lnext;
	uint64_t	cas;
	int64_t		exp;
	int64_t		time;
	uint32_t	hash;
	uint32_t	flags;
	uint32_t	nbytes;
	uint32_t	refs;
	uint8_t		nkey;
	bool		linked;
	char		data[];
};

static inline const char *kv_item_key(const struct kv_item *it)
{
	return it->data;
}

/* The value; nbytes + 2 bytes long, the last two being "\r\n". */
static inline char *kv_item_value(struct kv_item *it)
{
	return it->data + it->nkey;
}

/* What an item costs against the memory limit. */
static inline size_t kv_item_size(size_t nkey, size_t nbytes)
{
	return sizeof(struct kv_item) + nkey + nbytes + 2;
}

/* memcached's "object too large for cache": over -I with its own header. */
static inline bool kv_item_too_large(size_t nkey, size_t nbytes)
{
	return nkey + nbytes + KV_ITEM_OVERHEAD_MC > KV_ITEM_SIZE_MAX;
}

enum kv_result {
	KV_STORED,
	KV_NOT_STORED,
	KV_EXISTS,
	KV_NOT_FOUND,
	KV_DELETED,
	KV_TOUCHED,
	KV_OK,			/* incr/decr: *result is the new value */
	KV_NON_NUMERIC,		/* incr/decr on a value that is not a number */
	KV_NO_MEMORY,		/* what is charged cannot be evicted to make room */
	KV_TOO_LARGE,		/* kv_item_too_large() */
};

enum kv_store_op {
	KV_SET,
	KV_ADD,
	KV_REPLACE,
	KV_APPEND,
	KV_PREPEND,
	KV_CAS,
};

/**
 * struct kv_tstats - one thread's counters
 *
 * Written only by the thread that owns it (relaxed loads and stores, no
 * lock, no locked instruction); read by kv_store_stats() from any thread.
 */
struct kv_tstats {
	struct kv_tstats *next;		/* the store's list (reg_lock) */
	pthread_t	owner;		/* the thread that writes it */
	uint64_t	cmd_get;
	uint64_t	cmd_set;
	uint64_t	cmd_flush;
	uint64_t	cmd_touch;
	uint64_t	get_hits;
	uint64_t	get_misses;
	uint64_t	delete_hits;
	uint64_t	delete_misses;
	uint64_t	incr_hits;
	uint64_t	incr_misses;
	uint64_t	decr_hits;
	uint64_t	decr_misses;
	uint64_t	cas_hits;
	uint64_t	cas_misses;
	uint64_t	cas_badval;
	uint64_t	touch_hits;
	uint64_t	touch_misses;
	uint64_t	store_too_large;
	uint64_t	store_no_memory;
	uint64_t	conn_opened;
	uint64_t	conn_closed;
	uint64_t	bytes_read;
	uint64_t	bytes_written;
};

/* Count on the calling thread's counters; see struct kv_tstats. */
#define KV_STAT_ADD(ts, field, n) \
	__atomic_store_n(&(ts)->field, __atomic_load_n(&(ts)->field, __ATOMIC_RELAXED) + (n), \
			 __ATOMIC_RELAXED)

/* The totals of every thread's counters plus the store's own. */
struct kv_stats {
	struct kv_tstats t;
	uint64_t	curr_items;
	uint64_t	total_items;
	uint64_t	bytes;
	uint64_t	evictions;
	uint64_t	expired_unfetched;
	uint64_t	reclaimed;
	unsigned int	stripes;
};

/* What the front end tells the store about itself, for "stats". */
struct kv_settings {
	size_t		maxbytes;
	unsigned int	maxconns;
	unsigned int	port;
	unsigned int	threads;
	unsigned int	verbosity;
	const char	*inter;
};

struct kv_stripe;

/**
 * struct kv_store - the table
 * @now: the clock (default: wall clock); tests replace it
 * @settings: filled by the front end
 * @started: @now() at creation, for "uptime"
 */
struct kv_store {
	kv_time_fn		now;
	struct kv_settings	settings;
	int64_t			started;

	/* private */
	uint64_t		cas_next;	/* atomic */
	uint64_t		flush_cas;	/* atomic: cas <= this is flushed */
	int64_t			flush_at;	/* atomic: see kv_item_dead() */
	unsigned int		nstripes;	/* power of two */
	unsigned int		stripe_shift;
	size_t			limit;
	size_t			used;		/* atomic: charged by live items */
	size_t			linked;		/* atomic: charged by linked items */
	struct kv_stripe	*stripes;
	unsigned long		id;		/* for the per-thread stats cache */
	pthread_mutex_t		reg_lock;	/* guards tstats */
	struct kv_tstats	*tstats;
};

struct kv_store *kv_store_create(size_t maxbytes);
void kv_store_destroy(struct kv_store *st);

/* Absolute expiry time (struct kv_item.exp) for a protocol exptime. */
int64_t kv_store_exptime(const struct kv_store *st, int64_t exptime);

/*
 * A new item charged to @st, with a reference for the caller, value
 * uninitialized.  NULL, *@res saying why, if it is too large (KV_TOO_LARGE,
 * also for @nkey > KV_KEY_MAX) or no room can be made (KV_NO_MEMORY, also
 * when malloc fails).  Evicts as needed; call it with no stripe locked.
 */
struct kv_item *kv_item_alloc(struct kv_store *st, const char *key, size_t nkey,
			      uint32_t flags, int64_t exp, size_t nbytes, enum kv_result *res);
void kv_item_put(struct kv_item *it);

/*
 * Store @it (takes the caller's reference whatever the result).  @cas is
 * the client's cas unique for KV_CAS.  APPEND/PREPEND keep the old item's
 * flags and expiry, and answer KV_NOT_STORED when the result would be too
 * large or cannot be charged, as memcached does.
 */
enum kv_result kv_store_store(struct kv_store *st, struct kv_item *it, enum kv_store_op op,
			      uint64_t cas);

/*
 * Look @key up; a hit returns a referenced item.  With @touch, also set its
 * expiry to @exp (gat/gats).
 */
struct kv_item *kv_store_get(struct kv_store *st, const char *key, size_t nkey, bool touch,
			     int64_t exp);

enum kv_result kv_store_delete(struct kv_store *st, const char *key, size_t nkey);
enum kv_result kv_store_touch(struct kv_store *st, const char *key, size_t nkey, int64_t exp);
enum kv_result kv_store_delta(struct kv_store *st, const char *key, size_t nkey, bool incr,
			      uint64_t delta, uint64_t *result);

/* Remove a key (set's answer to a value too large to store). */
void kv_store_unlink(struct kv_store *st, const char *key, size_t nkey);

/* flush_all: @delay <= 0 now, else at now + @delay. */
void kv_store_flush(struct kv_store *st, int64_t delay);

/* The calling thread's counters for @st, registered on first use. */
struct kv_tstats *kv_store_tstats(struct kv_store *st);

void kv_store_stats(struct kv_store *st, struct kv_stats *out);

/* Bytes charged against the limit now: linked, being received, being read. */
size_t kv_store_bytes(struct kv_store *st);

/*
 * Walk every stripe and check its invariants: LRU list and hash chains
 * hold the same items, the counts and linked bytes match, the charged
 * total is within the limit.  NULL if all hold, else what broke (tests,
 * fuzzer; with no other thread using the store).
 */
const char *kv_store_check(struct kv_store *st);

#endif /* KV_STORE_H */
