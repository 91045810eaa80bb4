// SPDX-License-Identifier: MIT
/*
 * kv store - one hash table shared by every thread, with striped locks
 *
 * WHICH: the table is cut into a power-of-two number of stripes (1 to 64;
 * the top bits of a key's hash pick its stripe).  A stripe is a little
 * cache: its mutex, its own chained hash buckets (resized under that
 * mutex, so a resize never stops the other stripes) and its own LRU list;
 * the memory limit is the store's, one charged total.  Every lookup takes
 * exactly one mutex, once; nothing global is written by a get, and a store
 * writes the cas counter and the charged totals (atomic adds).  Statistics are counted per thread
 * without locks (struct kv_tstats) and per stripe under the stripe's mutex,
 * and summed by kv_store_stats().
 *
 * WHY:
 * - Contention: RSS spreads keys over all cores, so any core may touch any
 *   key.  With S stripes and uniformly hashed keys two cores collide on a
 *   mutex with probability ~1/S per operation, and a critical section is a
 *   chain walk plus a few pointer writes (values are copied out after the
 *   unlock: readers hold a reference).  A global lock would serialize every
 *   core; per-bucket locks would save little more and make a per-bucket LRU
 *   meaningless.  A read-write lock would not help: every get writes (LRU
 *   bump).  Lock-free tables make LRU and memory accounting much harder.
 * - LRU accuracy: eviction is exact LRU within the stripe the new key falls
 *   in, and so approximate globally (the victim is the least recently used
 *   item of 1/S of the table; keys hash evenly, so stripes age alike).
 *   memcached itself is no better: it evicts per slab class.  Every get and
 *   every store moves the item to its stripe's head (memcached bumps at most
 *   once a minute; here the bump is three pointer writes under a lock
 *   already held).
 * - Stripes: the number of stripes is the largest power of two <= limit /
 *   4 MiB, capped at 64: 16 stripes for memcached's default 64 MiB, a
 *   single stripe (exact global LRU) for small limits such as the tests'.
 *   One charged total rather than a share per stripe: with shares, a
 *   stripe wasted up to one large item of room (a quarter of a 4 MiB share
 *   for 1 MB values), and one stripe could be full while the others had
 *   room.
 *
 * Memory, memcached's rule: an item costs kv_item_size() (header, key,
 * value, "\r\n") from kv_item_alloc() to its last kv_item_put(): a value
 * being received and an unlinked item still being sent are charged, so
 * @used, the total, never exceeds the limit.  kv_item_alloc() makes room by
 * evicting the least recently used item of the new key's stripe (of the
 * next stripe when that one is empty) until the item fits; an evicted item
 * still referenced frees its bytes only at its last put.  If what is
 * charged but not linked (@used - @linked) leaves no room, nothing is
 * evicted and the allocation fails: memcached's "out of memory storing
 * object".
 *
 * Expiry and flush_all are lazy: a lookup that finds a dead item (expired,
 * or older than a flush) unlinks it and reports a miss.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store.h"

#define KV_STRIPES_MAX		64
#define KV_STRIPE_MIN_BYTES	(4 * KV_VALUE_MAX)
#define KV_BUCKETS_INIT		256

/**
 * struct kv_stripe - a share of the table
 * @lock: guards everything below
 * @buckets: hash chains, @nbuckets of them (a power of two)
 * @count: items linked
 * @head: most recently used item
 * @tail: least recently used item
 * @used: bytes of the linked items (kv_item_size() of each)
 * @total_items: items ever linked
 * @evictions: live items unlinked to make room
 * @reclaimed: dead items unlinked (expired or flushed)
 */
struct kv_stripe {
	pthread_mutex_t	lock;
	struct kv_item	**buckets;
	unsigned int	nbuckets;
	unsigned int	count;
	struct kv_item	*head;
	struct kv_item	*tail;
	size_t		used;
	uint64_t	total_items;
	uint64_t	evictions;
	uint64_t	reclaimed;
} __attribute__((aligned(64)));

static unsigned long kv_store_ids;	/* atomic */

static __thread struct {
	unsigned long		id;
	struct kv_tstats	*ts;
} kv_tcache;

static int64_t kv_wall_clock(void)
{
	return time(NULL);
}

/*
 * FNV-1a over the key, then a 64-bit finalizer (splitmix64's) so that every
 * bit of the result depends on every byte: FNV-1a alone moves its top bits
 * little when only the last bytes differ, and the top bits pick the stripe
 * (keys r1000000_0 to r1000000_133 fell into 3 of 16 stripes).
 */
static uint32_t kv_hash(const char *key, size_t nkey)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < nkey; i++) {
		h ^= (unsigned char)key[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return (uint32_t)(h ^ (h >> 32));
}

static struct kv_stripe *kv_stripe_of(struct kv_store *st, uint32_t hash)
{
	return &st->stripes[st->stripe_shift ? hash >> st->stripe_shift : 0];
}

struct kv_store *kv_store_create(size_t maxbytes)
{
	struct kv_store *st;
	unsigned int i, n = 1;

	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	while (n < KV_STRIPES_MAX && maxbytes / (2 * n) >= KV_STRIPE_MIN_BYTES)
		n *= 2;
	st->nstripes = n;
	st->stripe_shift = 0;
	for (i = n; i > 1; i /= 2)
		st->stripe_shift++;
	st->stripe_shift = st->stripe_shift ? 32 - st->stripe_shift : 0;
	st->limit = maxbytes;
	st->stripes = aligned_alloc(64, n * sizeof(*st->stripes));
	if (!st->stripes)
		goto err_free_store;
	memset(st->stripes, 0, n * sizeof(*st->stripes));
	for (i = 0; i < n; i++) {
		struct kv_stripe *sp = &st->stripes[i];

		pthread_mutex_init(&sp->lock, NULL);
		sp->nbuckets = KV_BUCKETS_INIT;
		sp->buckets = calloc(sp->nbuckets, sizeof(*sp->buckets));
		if (!sp->buckets)
			goto err_free_buckets;
	}
	pthread_mutex_init(&st->reg_lock, NULL);
	st->now = kv_wall_clock;
	st->started = st->now();
	st->cas_next = 1;
	st->id = __atomic_add_fetch(&kv_store_ids, 1, __ATOMIC_RELAXED);
	st->settings.maxbytes = maxbytes;
	st->settings.maxconns = 1024;
	st->settings.port = 11211;
	st->settings.threads = 1;
	st->settings.inter = "NULL";
	return st;

err_free_buckets:
	while (i--)
		free(st->stripes[i].buckets);
	free(st->stripes);
err_free_store:
	free(st);
	return NULL;
}

void kv_store_destroy(struct kv_store *st)
{
	struct kv_tstats *ts, *next;
	unsigned int i;

	for (i = 0; i < st->nstripes; i++) {
		struct kv_stripe *sp = &st->stripes[i];
		struct kv_item *it, *n;

		for (it = sp->head; it; it = n) {
			n = it->lnext;
			kv_item_put(it);
		}
		free(sp->buckets);
		pthread_mutex_destroy(&sp->lock);
	}
	for (ts = st->tstats; ts; ts = next) {
		next = ts->next;
		free(ts);
	}
	if (kv_tcache.id == st->id)
		kv_tcache.id = 0;
	pthread_mutex_destroy(&st->reg_lock);
	free(st->stripes);
	free(st);
}

int64_t kv_store_exptime(const struct kv_store *st, int64_t exptime)
{
	if (exptime == 0)
		return 0;
	if (exptime < 0)
		return -1;
	if (exptime <= KV_REL_EXPTIME_MAX)
		return st->now() + exptime;
	return exptime;
}

static unsigned int kv_stripe_index(const struct kv_store *st, uint32_t hash)
{
	return st->stripe_shift ? hash >> st->stripe_shift : 0;
}

static void kv_lru_unlink(struct kv_stripe *sp, struct kv_item *it);
static void kv_unlink(struct kv_stripe *sp, struct kv_item *it);
static bool kv_item_dead(struct kv_store *st, const struct kv_item *it, int64_t now);

/*
 * Unlink one least recently used item, from stripe @home or the next one
 * that has any.  @locked: the caller holds @home's mutex (the others are
 * then only tried, never waited for: no lock order to keep).  False when
 * there was nothing to evict.
 */
static bool kv_evict_one(struct kv_store *st, unsigned int home, bool locked)
{
	int64_t now = st->now();
	unsigned int i;

	for (i = 0; i < st->nstripes; i++) {
		struct kv_stripe *sp = &st->stripes[(home + i) & (st->nstripes - 1)];
		bool mine = locked && i == 0;
		struct kv_item *victim;

		if (!mine) {
			if (locked ? pthread_mutex_trylock(&sp->lock) : pthread_mutex_lock(&sp->lock))
				continue;
		}
		victim = sp->tail;
		if (victim) {
			if (kv_item_dead(st, victim, now))
				sp->reclaimed++;
			else
				sp->evictions++;
			kv_unlink(sp, victim);
		}
		if (!mine)
			pthread_mutex_unlock(&sp->lock);
		if (victim)
			return true;
	}
	return false;
}

/* Charge @size bytes to @st, evicting as needed; false if they cannot fit. */
static bool kv_charge(struct kv_store *st, size_t size, uint32_t hash, bool locked)
{
	size_t used = __atomic_load_n(&st->used, __ATOMIC_RELAXED);

	for (;;) {
		if (used + size <= st->limit) {
			if (__atomic_compare_exchange_n(&st->used, &used, used + size, false,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
				return true;
			continue;
		}
		/* what eviction can never free: items not linked */
		if (size + used - __atomic_load_n(&st->linked, __ATOMIC_RELAXED) > st->limit)
			return false;
		if (!kv_evict_one(st, kv_stripe_index(st, hash), locked))
			return false;
		used = __atomic_load_n(&st->used, __ATOMIC_RELAXED);
	}
}

static struct kv_item *__kv_item_alloc(struct kv_store *st, const char *key, size_t nkey,
				       uint32_t hash, uint32_t flags, int64_t exp, size_t nbytes,
				       bool locked, enum kv_result *res)
{
	size_t size = kv_item_size(nkey, nbytes);
	struct kv_item *it;

	if (nkey > KV_KEY_MAX || kv_item_too_large(nkey, nbytes)) {
		*res = KV_TOO_LARGE;
		return NULL;
	}
	*res = KV_NO_MEMORY;
	if (!kv_charge(st, size, hash, locked))
		return NULL;
	it = malloc(size);
	if (!it) {
		__atomic_sub_fetch(&st->used, size, __ATOMIC_RELAXED);
		return NULL;
	}
	memset(it, 0, sizeof(*it));
	memcpy(it->data, key, nkey);
	it->st = st;
	it->nkey = nkey;
	it->nbytes = nbytes;
	it->flags = flags;
	it->exp = exp;
	it->refs = 1;
	it->hash = hash;
	return it;
}

struct kv_item *kv_item_alloc(struct kv_store *st, const char *key, size_t nkey,
			      uint32_t flags, int64_t exp, size_t nbytes, enum kv_result *res)
{
	return __kv_item_alloc(st, key, nkey, kv_hash(key, nkey), flags, exp, nbytes, false,
			       res);
}

void kv_item_put(struct kv_item *it)
{
	if (__atomic_sub_fetch(&it->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		__atomic_sub_fetch(&it->st->used, kv_item_size(it->nkey, it->nbytes),
				   __ATOMIC_RELAXED);
		free(it);
	}
}

static void kv_item_get_ref(struct kv_item *it)
{
	__atomic_add_fetch(&it->refs, 1, __ATOMIC_RELAXED);
}

/* Expired, or older than a flush_all that has taken effect. */
static bool kv_item_dead(struct kv_store *st, const struct kv_item *it, int64_t now)
{
	int64_t flush_at = __atomic_load_n(&st->flush_at, __ATOMIC_RELAXED);

	if (it->exp && it->exp <= now)
		return true;
	if (it->cas <= __atomic_load_n(&st->flush_cas, __ATOMIC_RELAXED))
		return true;
	return flush_at && flush_at <= now && it->time < flush_at;
}

static void kv_lru_unlink(struct kv_stripe *sp, struct kv_item *it)
{
	if (it->lprev)
		it->lprev->lnext = it->lnext;
	else
		sp->head = it->lnext;
	if (it->lnext)
		it->lnext->lprev = it->lprev;
	else
		sp->tail = it->lprev;
	it->lprev = NULL;
	it->lnext = NULL;
}

static void kv_lru_push(struct kv_stripe *sp, struct kv_item *it)
{
	it->lprev = NULL;
	it->lnext = sp->head;
	if (sp->head)
		sp->head->lprev = it;
	else
		sp->tail = it;
	sp->head = it;
}

static void kv_lru_bump(struct kv_stripe *sp, struct kv_item *it)
{
	if (sp->head != it) {
		kv_lru_unlink(sp, it);
		kv_lru_push(sp, it);
	}
}

static struct kv_item **kv_bucket(struct kv_stripe *sp, uint32_t hash)
{
	return &sp->buckets[hash & (sp->nbuckets - 1)];
}

/* Double the buckets when chains grow long; on failure keep the old ones. */
static void kv_stripe_grow(struct kv_stripe *sp)
{
	unsigned int i, n = sp->nbuckets * 2;
	struct kv_item **nb, *it, *next;

	nb = calloc(n, sizeof(*nb));
	if (!nb)
		return;
	for (i = 0; i < sp->nbuckets; i++) {
		for (it = sp->buckets[i]; it; it = next) {
			next = it->hnext;
			it->hnext = nb[it->hash & (n - 1)];
			nb[it->hash & (n - 1)] = it;
		}
	}
	free(sp->buckets);
	sp->buckets = nb;
	sp->nbuckets = n;
}

/* Drop @it from the table and release the table's reference. */
static void kv_unlink(struct kv_stripe *sp, struct kv_item *it)
{
	struct kv_item **pp = kv_bucket(sp, it->hash);

	while (*pp != it)
		pp = &(*pp)->hnext;
	*pp = it->hnext;
	it->hnext = NULL;
	kv_lru_unlink(sp, it);
	it->linked = false;
	sp->count--;
	sp->used -= kv_item_size(it->nkey, it->nbytes);
	__atomic_sub_fetch(&it->st->linked, kv_item_size(it->nkey, it->nbytes), __ATOMIC_RELAXED);
	kv_item_put(it);
}

/* Link @it (its reference becomes the table's), stamping cas and time. */
static void kv_link(struct kv_store *st, struct kv_stripe *sp, struct kv_item *it, int64_t now)
{
	struct kv_item **b;

	if (sp->count >= sp->nbuckets + sp->nbuckets / 2)
		kv_stripe_grow(sp);
	b = kv_bucket(sp, it->hash);
	it->hnext = *b;
	*b = it;
	kv_lru_push(sp, it);
	it->linked = true;
	it->time = now;
	it->cas = __atomic_fetch_add(&st->cas_next, 1, __ATOMIC_RELAXED);
	sp->count++;
	sp->used += kv_item_size(it->nkey, it->nbytes);
	__atomic_add_fetch(&st->linked, kv_item_size(it->nkey, it->nbytes), __ATOMIC_RELAXED);
	sp->total_items++;
}

/* The live item for @key, or NULL; a dead one found is unlinked. */
static struct kv_item *kv_find(struct kv_store *st, struct kv_stripe *sp, const char *key,
			       size_t nkey, uint32_t hash, int64_t now)
{
	struct kv_item *it;

	for (it = *kv_bucket(sp, hash); it; it = it->hnext) {
		if (it->hash == hash && it->nkey == nkey && !memcmp(it->data, key, nkey))
			break;
	}
	if (it && kv_item_dead(st, it, now)) {
		kv_unlink(sp, it);
		sp->reclaimed++;
		return NULL;
	}
	return it;
}

/* Link @it (already charged) in place of @old (may be NULL); takes @it's reference. */
static enum kv_result kv_replace_locked(struct kv_store *st, struct kv_stripe *sp,
					struct kv_item *old, struct kv_item *it, int64_t now)
{
	if (old)
		kv_unlink(sp, old);
	kv_link(st, sp, it, now);
	return KV_STORED;
}

/* The old value with the new one added at the end (APPEND) or start. */
static struct kv_item *kv_concat(struct kv_item *old, struct kv_item *it, bool append)
{
	struct kv_item *first = append ? old : it, *second = append ? it : old;
	enum kv_result res;
	struct kv_item *n;

	kv_item_get_ref(old);	/* making room may evict it */
	n = __kv_item_alloc(old->st, kv_item_key(old), old->nkey, old->hash, old->flags, old->exp,
			    (size_t)old->nbytes + it->nbytes, true, &res);
	if (!n || !old->linked) {
		if (n)
			kv_item_put(n);
		kv_item_put(old);
		return NULL;
	}
	memcpy(kv_item_value(n), kv_item_value(first), first->nbytes);
	memcpy(kv_item_value(n) + first->nbytes, kv_item_value(second), second->nbytes + 2);
	kv_item_put(old);	/* the table still holds it */
	return n;
}

enum kv_result kv_store_store(struct kv_store *st, struct kv_item *it, enum kv_store_op op,
			      uint64_t cas)
{
	struct kv_stripe *sp = kv_stripe_of(st, it->hash);
	enum kv_result res = KV_NOT_STORED;
	struct kv_item *old, *n;
	int64_t now = st->now();

	pthread_mutex_lock(&sp->lock);
	old = kv_find(st, sp, kv_item_key(it), it->nkey, it->hash, now);
	switch (op) {
	case KV_SET:
		break;
	case KV_ADD:
		if (old) {
			kv_lru_bump(sp, old);
			goto out_put;
		}
		break;
	case KV_REPLACE:
		if (!old)
			goto out_put;
		break;
	case KV_APPEND:
	case KV_PREPEND:
		if (!old)
			goto out_put;
		/* memcached: too large or no room is NOT_STORED */
		n = kv_concat(old, it, op == KV_APPEND);
		kv_item_put(it);
		if (!n) {
			pthread_mutex_unlock(&sp->lock);
			return KV_NOT_STORED;
		}
		it = n;
		break;
	case KV_CAS:
		if (!old) {
			res = KV_NOT_FOUND;
			goto out_put;
		}
		if (old->cas != cas) {
			res = KV_EXISTS;
			goto out_put;
		}
		break;
	}
	res = kv_replace_locked(st, sp, old, it, now);
	pthread_mutex_unlock(&sp->lock);
	return res;

out_put:
	pthread_mutex_unlock(&sp->lock);
	kv_item_put(it);
	return res;
}

struct kv_item *kv_store_get(struct kv_store *st, const char *key, size_t nkey, bool touch,
			     int64_t exp)
{
	uint32_t hash = kv_hash(key, nkey);
	struct kv_stripe *sp = kv_stripe_of(st, hash);
	struct kv_item *it;

	pthread_mutex_lock(&sp->lock);
	it = kv_find(st, sp, key, nkey, hash, st->now());
	if (it) {
		if (touch)
			it->exp = exp;
		kv_lru_bump(sp, it);
		kv_item_get_ref(it);
	}
	pthread_mutex_unlock(&sp->lock);
	return it;
}

enum kv_result kv_store_delete(struct kv_store *st, const char *key, size_t nkey)
{
	uint32_t hash = kv_hash(key, nkey);
	struct kv_stripe *sp = kv_stripe_of(st, hash);
	struct kv_item *it;

	pthread_mutex_lock(&sp->lock);
	it = kv_find(st, sp, key, nkey, hash, st->now());
	if (it)
		kv_unlink(sp, it);
	pthread_mutex_unlock(&sp->lock);
	return it ? KV_DELETED : KV_NOT_FOUND;
}

void kv_store_unlink(struct kv_store *st, const char *key, size_t nkey)
{
	kv_store_delete(st, key, nkey);
}

enum kv_result kv_store_touch(struct kv_store *st, const char *key, size_t nkey, int64_t exp)
{
	struct kv_item *it = kv_store_get(st, key, nkey, true, exp);

	if (!it)
		return KV_NOT_FOUND;
	kv_item_put(it);
	return KV_TOUCHED;
}

/*
 * The number a value holds: optional white space, decimal digits, then the
 * end, white space or a NUL (so "12 ab" and "1\0x" are numbers: memcached
 * reads the value as a C string).
 */
static bool kv_parse_value(const char *p, size_t n, uint64_t *v)
{
	size_t i = 0, digits = 0;
	uint64_t x = 0;

	while (i < n && isspace((unsigned char)p[i]))
		i++;
	if (i < n && p[i] == '+')
		i++;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits++) {
		unsigned int d = p[i] - '0';

		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	if (!digits || (i < n && p[i] && !isspace((unsigned char)p[i])))
		return false;
	*v = x;
	return true;
}

enum kv_result kv_store_delta(struct kv_store *st, const char *key, size_t nkey, bool incr,
			      uint64_t delta, uint64_t *result)
{
	uint32_t hash = kv_hash(key, nkey);
	struct kv_stripe *sp = kv_stripe_of(st, hash);
	struct kv_item *old, *it;
	enum kv_result res;
	char buf[24];
	int64_t now = st->now();
	uint64_t v;
	size_t len;

	pthread_mutex_lock(&sp->lock);
	old = kv_find(st, sp, key, nkey, hash, now);
	if (!old) {
		res = KV_NOT_FOUND;
		goto out_unlock;
	}
	if (!kv_parse_value(kv_item_value(old), old->nbytes, &v)) {
		res = KV_NON_NUMERIC;
		goto out_unlock;
	}
	if (incr)
		v += delta;	/* wraps, as memcached's does */
	else
		v = v < delta ? 0 : v - delta;
	len = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	/*
	 * memcached rewrites a value in place when the number fits, padding
	 * with spaces ("100" decr 1 reads back "99 ").  Readers may be copying
	 * the old item outside the lock, so build a new one of that length.
	 */
	kv_item_get_ref(old);	/* making room may evict it */
	it = __kv_item_alloc(st, key, nkey, hash, old->flags, old->exp,
			     len < old->nbytes ? old->nbytes : len, true, &res);
	if (!it || !old->linked) {
		if (it)
			kv_item_put(it);
		kv_item_put(old);
		res = KV_NO_MEMORY;
		goto out_unlock;
	}
	kv_item_put(old);
	memset(kv_item_value(it), ' ', it->nbytes);
	memcpy(kv_item_value(it), buf, len);
	memcpy(kv_item_value(it) + it->nbytes, "\r\n", 2);
	res = kv_replace_locked(st, sp, old, it, now);
	if (res == KV_STORED) {
		*result = v;
		res = KV_OK;
	}
out_unlock:
	pthread_mutex_unlock(&sp->lock);
	return res;
}

void kv_store_flush(struct kv_store *st, int64_t delay)
{
	if (delay > 0) {
		__atomic_store_n(&st->flush_at, kv_store_exptime(st, delay), __ATOMIC_RELAXED);
		return;
	}
	__atomic_store_n(&st->flush_at, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&st->flush_cas, __atomic_load_n(&st->cas_next, __ATOMIC_RELAXED) - 1,
			 __ATOMIC_RELAXED);
}

struct kv_tstats *kv_store_tstats(struct kv_store *st)
{
	pthread_t self = pthread_self();
	struct kv_tstats *ts;

	if (kv_tcache.id == st->id)
		return kv_tcache.ts;
	pthread_mutex_lock(&st->reg_lock);
	for (ts = st->tstats; ts; ts = ts->next) {
		if (pthread_equal(ts->owner, self))
			break;
	}
	if (!ts) {
		ts = calloc(1, sizeof(*ts));
		if (ts) {
			ts->owner = self;
			ts->next = st->tstats;
			st->tstats = ts;
		}
	}
	pthread_mutex_unlock(&st->reg_lock);
	if (!ts)
		abort();	/* a few hundred bytes once per thread */
	kv_tcache.id = st->id;
	kv_tcache.ts = ts;
	return ts;
}

void kv_store_stats(struct kv_store *st, struct kv_stats *out)
{
	const size_t nfields = offsetof(struct kv_tstats, bytes_written) / sizeof(uint64_t) -
			       offsetof(struct kv_tstats, cmd_get) / sizeof(uint64_t) + 1;
	struct kv_tstats *ts;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&st->reg_lock);
	for (ts = st->tstats; ts; ts = ts->next) {
		const uint64_t *src = &ts->cmd_get;
		uint64_t *dst = &out->t.cmd_get;

		for (i = 0; i < nfields; i++)
			dst[i] += __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&st->reg_lock);
	for (i = 0; i < st->nstripes; i++) {
		struct kv_stripe *sp = &st->stripes[i];

		pthread_mutex_lock(&sp->lock);
		out->curr_items += sp->count;
		out->total_items += sp->total_items;
		out->bytes += sp->used;
		out->evictions += sp->evictions;
		out->reclaimed += sp->reclaimed;
		pthread_mutex_unlock(&sp->lock);
	}
	out->stripes = st->nstripes;
}

size_t kv_store_bytes(struct kv_store *st)
{
	return __atomic_load_n(&st->used, __ATOMIC_RELAXED);
}

const char *kv_store_check(struct kv_store *st)
{
	const char *err = NULL;
	size_t total = 0;
	unsigned int i, b;

	for (i = 0; i < st->nstripes && !err; i++) {
		struct kv_stripe *sp = &st->stripes[i];
		unsigned int lru = 0, chained = 0;
		struct kv_item *it, *prev = NULL;
		size_t used = 0;

		pthread_mutex_lock(&sp->lock);
		for (it = sp->head; it && !err; prev = it, it = it->lnext) {
			if (it->lprev != prev || !it->linked)
				err = "LRU list broken";
			else if (kv_stripe_of(st, it->hash) != sp)
				err = "item in the wrong stripe";
			used += kv_item_size(it->nkey, it->nbytes);
			if (++lru > sp->count)
				err = "LRU list longer than the count";
		}
		if (!err && sp->tail != prev)
			err = "LRU tail wrong";
		for (b = 0; b < sp->nbuckets && !err; b++) {
			for (it = sp->buckets[b]; it && !err; it = it->hnext) {
				if ((it->hash & (sp->nbuckets - 1)) != b || !it->linked)
					err = "item in the wrong bucket";
				if (++chained > sp->count)
					err = "hash chains longer than the count";
			}
		}
		if (!err && (lru != sp->count || chained != sp->count))
			err = "count does not match the items";
		if (!err && used != sp->used)
			err = "linked bytes do not match the items";
		total += sp->used;
		pthread_mutex_unlock(&sp->lock);
	}
	/* exact only when no other thread runs (tests, fuzzer) */
	if (!err && total != __atomic_load_n(&st->linked, __ATOMIC_RELAXED))
		err = "the store's linked bytes do not match the stripes'";
	if (!err && __atomic_load_n(&st->used, __ATOMIC_RELAXED) < total)
		err = "less charged than linked";
	if (!err && __atomic_load_n(&st->used, __ATOMIC_RELAXED) > st->limit)
		err = "store over its limit";
	return err;
}
