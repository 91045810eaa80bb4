// SPDX-License-Identifier: GPL-2.0
/*
 * loop.c - one iteration of the run-to-completion loop (net/loop.c), with
 * a recording queue pair in place of the NIC
 *
 * The kernel's dataplane thread and the host harness both run
 * ixm_loop_iterate(); these tests pin what it promises them: the receive
 * batch bound and histogram, frames answered and transmitted within the
 * same iteration, the device's calls in order (receive, refill, transmit,
 * reap), frames the ring did not take kept in order for the next
 * iteration and dropped only when the ring stalls, the transmit
 * counters, and a context notified only when events were published.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "harness.h"
#include "testnet.h"

#define FQ_FRAMES	16

/* A queue pair that plays the NIC and writes down what the loop asked. */
struct fq {
	struct ixm_queue	q;
	struct tn_host		*h;
	u8			frame[FQ_FRAMES][128];
	size_t			len[FQ_FRAMES];
	unsigned int		nframes;	/* offered to the next rx_burst calls */
	unsigned int		asked;		/* the last rx_burst's max */
	unsigned int		take;		/* frames tx_burst takes at most */
	unsigned int		offered;	/* frames the last tx_burst was given */
	struct ixm_mbuf		*taken[IXM_TX_BATCH];
	unsigned int		ntaken;
	u16			seq_out[FQ_FRAMES];	/* ICMP sequence of each frame taken */
	unsigned int		nseq_out;
	unsigned int		reaped;
	bool			unfinished;	/* tx_reap finds nothing finished */
	char			order[64];	/* R, F, T, P: one letter per call */
};

static void fq_note(struct fq *fq, char c)
{
	size_t n = strlen(fq->order);

	if (n + 1 < sizeof(fq->order))
		fq->order[n] = c;
}

static unsigned int fq_rx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				unsigned int max)
{
	struct fq *fq = container_of(q, struct fq, q);
	unsigned int n = 0;

	fq_note(fq, 'R');
	fq->asked = max;
	while (n < max && fq->nframes) {
		struct ixm_mbuf *b = ixm_mbuf_alloc(&fq->h->pool);
		unsigned int i = --fq->nframes;

		if (!b)
			die("pool empty");
		memcpy(b->data, fq->frame[i], fq->len[i]);
		b->len = (u16)fq->len[i];
		b->flags = 0;
		m[n++] = b;
	}
	return n;
}

static void fq_rx_refill(struct ixm_queue *q)
{
	fq_note(container_of(q, struct fq, q), 'F');
}

static unsigned int fq_tx_burst(struct ixm_queue *q, struct ixm_mbuf **m,
				unsigned int n)
{
	struct fq *fq = container_of(q, struct fq, q);
	unsigned int i, k = n < fq->take ? n : fq->take;

	fq_note(fq, 'T');
	fq->offered = n;
	for (i = 0; i < k && fq->nseq_out < FQ_FRAMES; i++) {
		/* Ethernet 14, IPv4 20, then the echo's identifier and sequence */
		const u8 *seq = m[i]->data + 14 + 20 + 6;

		fq->seq_out[fq->nseq_out++] = (u16)(seq[0] << 8 | seq[1]);
	}
	memcpy(fq->taken + fq->ntaken, m, k * sizeof(*m));
	fq->ntaken += k;
	return k;
}

static unsigned int fq_tx_reap(struct ixm_queue *q)
{
	struct fq *fq = container_of(q, struct fq, q);
	unsigned int i, n = fq->ntaken;

	fq_note(fq, 'P');
	if (fq->unfinished)
		return 0;
	for (i = 0; i < n; i++)
		ixm_mbuf_free(fq->taken[i]);
	fq->ntaken = 0;
	fq->reaped += n;
	return n;
}

static bool fq_busy(const struct ixm_queue *q)
{
	const struct fq *fq = container_of(q, struct fq, q);

	return fq->nframes || fq->ntaken;
}

static const struct ixm_queue_ops fq_ops = {
	.rx_burst	= fq_rx_burst,
	.rx_refill	= fq_rx_refill,
	.tx_burst	= fq_tx_burst,
	.tx_reap	= fq_tx_reap,
	.busy		= fq_busy,
};

static struct tn_host *fq_host(struct fq *fq)
{
	struct tn_host_cfg cfg = { .ip = OUR_IP, .mac = our_mac };

	memset(fq, 0, sizeof(*fq));
	fq->h = tn_host_new(&cfg);
	fq->q.ops = &fq_ops;
	fq->h->port.queue = &fq->q;
	fq->take = IXM_TX_BATCH;
	return fq->h;
}

static void fq_add_echo(struct fq *fq, u16 seq)
{
	fq->len[fq->nframes] = echo_request(fq->frame[fq->nframes], 32, seq);
	fq->nframes++;
}

static unsigned int hist_total(const struct ixm_stack *st)
{
	unsigned int b, n = 0;

	for (b = 0; b < IXM_BATCH_HIST; b++)
		n += st->rx_batch_hist[b];
	return n;
}

TEST(loop_rx_batch_answered_in_the_same_iteration)
{
	struct fq fq;
	struct tn_host *h = fq_host(&fq);
	unsigned int i, done;

	for (i = 0; i < 6; i++)
		fq_add_echo(&fq, (u16)i);
	done = ixm_loop_iterate(&h->stack, 4, ~0u);
	EXPECT_EQ(4, fq.asked) TH_LOG("the receive batch bound reaches the queue");
	EXPECT_EQ(2, fq.nframes) TH_LOG("so 4 of the 6 frames are taken");
	EXPECT_EQ(4, fq.offered) TH_LOG("4 echo replies sent in the same iteration");
	EXPECT_EQ(4, fq.reaped);
	EXPECT_STREQ("RFTP", fq.order) TH_LOG("receive, refill, transmit, reap");
	EXPECT_EQ(1, h->stack.rx_batch_hist[2]) TH_LOG("a batch of 4: bucket 4-7");
	EXPECT_EQ(4, h->stats.rx_packets);
	EXPECT_EQ(4, h->stats.tx_packets);
	EXPECT_EQ(4 * (14 + 20 + 8 + 32), h->stats.tx_bytes);
	EXPECT_EQ(4 + 4 + 4, done) TH_LOG("received + sent + reaped");

	memset(fq.order, 0, sizeof(fq.order));
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(0, fq.nframes);
	EXPECT_EQ(2, fq.offered);
	EXPECT_EQ(1, h->stack.rx_batch_hist[1]) TH_LOG("then a batch of 2");

	memset(fq.order, 0, sizeof(fq.order));
	done = ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(0, done) TH_LOG("nothing left: an idle iteration");
	EXPECT_STREQ("RFP", fq.order) TH_LOG("no transmit call when nothing is queued");
	EXPECT_EQ(2, hist_total(&h->stack)) TH_LOG("an empty receive is not a batch");
	tn_host_free(h);
}

TEST(loop_tx_ring_full_keeps_the_rest_in_order)
{
	struct fq fq;
	struct tn_host *h = fq_host(&fq);
	unsigned int i;

	fq.take = 1;
	for (i = 0; i < 3; i++)
		fq_add_echo(&fq, (u16)i);
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(3, fq.offered);
	EXPECT_EQ(1, fq.reaped) TH_LOG("the ring took one");
	EXPECT_EQ(0, h->stats.drops[IXM_DROP_TX_FULL]) TH_LOG("a full ring drops nothing");
	EXPECT_EQ(1, h->stats.tx_packets) TH_LOG("only what the ring took counts as sent");
	EXPECT_EQ(2, h->port.ntx) TH_LOG("the other two wait for the next iteration");
	EXPECT_EQ(2, ixm_host_tx_held) TH_LOG("the tracepoint hook sees them held");
	EXPECT_TRUE(ixm_loop_busy(&h->stack)) TH_LOG("held frames are work: no sleep");

	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(2, fq.offered) TH_LOG("the held frames are offered first");
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(1, fq.offered);
	EXPECT_EQ(0, h->port.ntx);
	EXPECT_EQ(3, h->stats.tx_packets);
	ASSERT_EQ(3, fq.nseq_out);
	/* the receive ring hands them over last first: replies 2, 1, 0 */
	EXPECT_EQ(2, fq.seq_out[0]);
	EXPECT_EQ(1, fq.seq_out[1]);
	EXPECT_EQ(0, fq.seq_out[2]) TH_LOG("the replies leave in the order they were queued");
	EXPECT_EQ(0, h->stats.drops[IXM_DROP_TX_FULL]);
	EXPECT_EQ(h->nbufs, h->pool.nfree) TH_LOG("every buffer back in the pool");
	EXPECT_FALSE(ixm_loop_busy(&h->stack));

	/* long after, a ring that refuses at once: a new wait, not a stall */
	h->stack.now_ns += 5000000000ULL;
	fq.take = 0;
	fq_add_echo(&fq, 7);
	ixm_loop_iterate(&h->stack, 64, ~0u);
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(1, h->port.ntx) TH_LOG("the last wait's clock does not carry over");
	EXPECT_EQ(0, h->stats.drops[IXM_DROP_TX_STALL]);
	fq.take = 1;
	fq.offered = 0;
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(1, h->port.ntx) TH_LOG("refused, nothing reaped since: not offered again");
	EXPECT_EQ(0, fq.offered);
	tn_host_free(h);
}

TEST(loop_tx_ring_stalled_drops_after_a_second)
{
	const u64 ms = 1000000;
	struct fq fq;
	struct tn_host *h = fq_host(&fq);
	unsigned int i;

	/* a ring with room for one frame that never finishes sending it */
	fq.take = 1;
	fq.unfinished = true;
	h->stack.now_ns = 1000 * ms;
	for (i = 0; i < 3; i++)
		fq_add_echo(&fq, (u16)i);
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(2, h->port.ntx);
	h->stack.now_ns += 600 * ms;
	ixm_loop_iterate(&h->stack, 64, ~0u);
	h->stack.now_ns += 399 * ms;
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(2, h->port.ntx) TH_LOG("999 ms without progress: still waiting");
	EXPECT_EQ(3, fq.offered) TH_LOG("nothing reaped: the batch was not offered again");
	EXPECT_EQ(0, h->stats.drops[IXM_DROP_TX_STALL]);

	/* it finishes the one: the clock starts again, and one more goes */
	fq.unfinished = false;
	ixm_loop_iterate(&h->stack, 64, ~0u);
	fq.unfinished = true;
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(2, fq.offered) TH_LOG("room reaped: offered again");
	EXPECT_EQ(1, h->port.ntx);
	h->stack.now_ns += 1000 * ms;
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(1, h->port.ntx) TH_LOG("progress a second ago, not more: waiting");

	h->stack.now_ns += 1 * ms;
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(0, h->port.ntx) TH_LOG("no progress for over a second: a stalled ring");
	EXPECT_EQ(1, h->stats.drops[IXM_DROP_TX_STALL]) TH_LOG("dropped and counted as tx_stall");
	EXPECT_EQ(0, h->stats.drops[IXM_DROP_TX_FULL]);
	EXPECT_EQ(2, h->stats.tx_packets);
	fq.unfinished = false;
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(h->nbufs, h->pool.nfree) TH_LOG("every buffer back in the pool");
	EXPECT_FALSE(ixm_loop_busy(&h->stack)) TH_LOG("so the core may sleep");
	tn_host_free(h);
}

TEST(loop_notifies_only_contexts_with_new_events)
{
	struct fq fq;
	struct tn_host *h = fq_host(&fq);
	struct tn_app *a = tn_app_new(h, 8, 8, 4096);
	struct tn_app *b = tn_app_new(h, 8, 8, 4096);
	struct ixmod_call c = {
		.opcode = IXMOD_OP_UDP_BIND, .user_data = 7, .port = ixm_htons(5000),
	};
	unsigned long before = ixm_host_notified;
	struct ixmod_event ev;

	tn_app_submit(a, &c);
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(before + 1, ixm_host_notified) TH_LOG("a got its bind's event, b nothing");
	EXPECT_EQ(1, tn_app_nevents(a)) TH_LOG("published before the notification");
	EXPECT_EQ(0, tn_app_nevents(b));
	ASSERT_TRUE(tn_app_event(a, &ev));
	EXPECT_EQ(7, ev.user_data);

	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(before + 1, ixm_host_notified) TH_LOG("no new event: no notification");
	tn_app_free(b);
	tn_app_free(a);
	tn_host_free(h);
}

/*
 * ixm_loop_busy(), the idle core's cheap look: false only when a whole
 * iteration would find nothing (timers apart), true for each thing that
 * can arrive: a frame, a transmission to reap, a call, held events.
 */
TEST(loop_busy_sees_what_an_iteration_would_do)
{
	struct fq fq;
	struct tn_host *h = fq_host(&fq);
	struct tn_app *a = tn_app_new(h, 8, 8, 4096);
	struct ixmod_call c = {
		.opcode = IXMOD_OP_UDP_BIND, .user_data = 7, .port = ixm_htons(5000),
	};

	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_FALSE(ixm_loop_busy(&h->stack)) TH_LOG("nothing anywhere: idle");
	fq_add_echo(&fq, 1);
	EXPECT_TRUE(ixm_loop_busy(&h->stack)) TH_LOG("a frame waits in the receive ring");
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_EQ(0, fq.nframes);
	fq.ntaken = 1;	/* as if the device still held a frame */
	EXPECT_TRUE(ixm_loop_busy(&h->stack)) TH_LOG("a transmission to reap");
	fq.ntaken = 0;
	EXPECT_FALSE(ixm_loop_busy(&h->stack));

	tn_app_submit(a, &c);
	EXPECT_TRUE(ixm_loop_busy(&h->stack)) TH_LOG("a call in a context's ring");
	ixm_loop_iterate(&h->stack, 64, ~0u);
	EXPECT_FALSE(ixm_loop_busy(&h->stack)) TH_LOG("the call ran, its event published");
	h->stack.apps->dirty = true;
	EXPECT_TRUE(ixm_loop_busy(&h->stack)) TH_LOG("events written, not yet published");
	h->stack.apps->dirty = false;
	h->stack.apps->hold_count = 1;
	EXPECT_TRUE(ixm_loop_busy(&h->stack)) TH_LOG("events held back");
	h->stack.apps->hold_count = 0;
	tn_app_free(a);
	tn_host_free(h);
}

TEST_HARNESS_MAIN
