// SPDX-License-Identifier: GPL-2.0
/*
 * icmp6_relay.c - a port's mailboxes of ICMPv6 errors between its cores
 * (icmp6_relay.h says why and how)
 */
#include "platform.h"
#include "icmp6_relay.h"

/**
 * ixm_icmp6_relay_alloc() - empty mailboxes for a port's queues
 * @nq: the port's queues (2 or more: one queue needs none)
 * @wake: the glue's wake-up of a queue's core, or NULL
 * @priv: for @wake (struct ixm_icmp6_relay.priv)
 *
 * Context: control plane, before any core sees the result.
 * Return: the relay, or NULL when memory is short.
 */
struct ixm_icmp6_relay *ixm_icmp6_relay_alloc(unsigned int nq, ixm_icmp6_relay_wake_fn *wake,
					      void *priv)
{
	struct ixm_icmp6_relay *r;
	unsigned int q;

	r = ixm_zalloc(sizeof(*r) + nq * sizeof(r->box[0]));
	if (!r)
		return NULL;
	r->wake = wake;
	r->priv = priv;
	r->nq = nq;
	for (q = 0; q < nq; q++)
		ixm_spin_lock_init(&r->box[q].lock);
	return r;
}

/**
 * ixm_icmp6_relay_free() - free a port's mailboxes and what they hold
 * @r: the relay, or NULL
 *
 * The records hold nothing (no buffer, no reference): they go with it.
 *
 * Context: control plane, after a grace period has passed since the last
 * core could see @r.
 */
void ixm_icmp6_relay_free(struct ixm_icmp6_relay *r)
{
	ixm_free(r);
}

/**
 * ixm_icmp6_relay_post() - hand an error to the core of queue @q
 * @r: the port's relay
 * @q: the queue whose core owns the connection, below @r->nq
 * @n: the record, copied
 *
 * The poster that makes the mailbox non-empty wakes its core: a later
 * poster finds it non-empty, so the core was woken and has not yet
 * emptied it (it takes every record under the lock before it can sleep).
 *
 * Context: a dataplane core's loop; never waits but for the lock, held
 * only to copy one record.
 * Return: 0, or -ENOSPC when the mailbox is full (the record is dropped).
 */
int ixm_icmp6_relay_post(struct ixm_icmp6_relay *r, unsigned int q,
			 const struct ixm_icmp6_note *n)
{
	struct ixm_icmp6_box *b = &r->box[q];
	u32 count;

	ixm_spin_lock(&b->lock);
	count = b->count;
	if (count < IXM_ICMP6_RELAY_SLOTS) {
		b->note[(b->head + count) % IXM_ICMP6_RELAY_SLOTS] = *n;
		WRITE_ONCE(b->count, count + 1);
	}
	ixm_spin_unlock(&b->lock);
	if (count == IXM_ICMP6_RELAY_SLOTS)
		return -ENOSPC;
	if (!count && r->wake)
		r->wake(r, q);
	return 0;
}

/**
 * ixm_icmp6_relay_take() - take the oldest record of a mailbox
 * @b: this core's mailbox (ixm_icmp6_relay_box())
 * @n: filled with the record
 *
 * Context: the mailbox's core.
 * Return: false when the mailbox is empty.
 */
bool ixm_icmp6_relay_take(struct ixm_icmp6_box *b, struct ixm_icmp6_note *n)
{
	bool got;

	ixm_spin_lock(&b->lock);
	got = b->count != 0;
	if (got) {
		*n = b->note[b->head];
		b->head = (b->head + 1) % IXM_ICMP6_RELAY_SLOTS;
		WRITE_ONCE(b->count, b->count - 1);
	}
	ixm_spin_unlock(&b->lock);
	return got;
}
