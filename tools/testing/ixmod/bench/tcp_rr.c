// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_rr.c - N request/response exchanges of 64 bytes over one TCP
 * connection between two in-memory hosts (testnet.h), for
 * scripts/tcp-icount.
 *
 * Usage: tcp_rr [-c] [-o] [-s SIZE] N
 *
 * The client (198.18.0.1) connects to the server (198.18.0.2), then
 * sends a SIZE-byte request (default 64) and waits for the server's
 * SIZE-byte response, N times; then both close and TIME_WAIT passes.
 * TCP sends the data from the arena in place, or with -c copies it (as
 * on a port without a mapping of the arena), to compare the two.  With
 * -o both ports' NICs insert and check the checksums, as igb's do in the
 * kernel (tn_host_offload()); without it software sums every frame.
 * Both applications use nothing but the call and event rings: the server
 * answers each TCP_RECV with a TCP_SENDV of the same size and a
 * TCP_RECV_DONE, the client sends its next request once the response is
 * whole.  The link is clean and a frame arrives at the next step, so one
 * exchange is two steps, and every frame is delivered from the step loop,
 * never from inside a send: an instruction count of a receive function
 * does not include the peer's transmit, nor the reverse.
 *
 * The run fails (exit 1, with a line on stderr) unless every request and
 * response arrived whole with the bytes sent, nothing was retransmitted or
 * dropped, both connections closed with one TCP_DEAD and both tables are
 * empty after TIME_WAIT: a count of a run that went wrong would be a count
 * of something else.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testnet.h"

#define PORT		7
#define RING		64
#define ARENA		8192
#define IOV_OFF		4096
#define MS		1000000ULL
#define UD_CONNECT	1
#define UD_LISTEN	2

struct end {
	struct tn_host	*h;
	struct tn_app	*a;
	u64		handle;		/* the connection */
	bool		open;
	u32		got;		/* bytes of the current message */
	u64		msgs;		/* whole messages received */
	unsigned int	deads;
	unsigned int	errors;
};

static u32 size = 64;
static bool copy_only;
static bool offload;

static void fail(const char *what)
{
	fprintf(stderr, "tcp_rr: %s\n", what);
	exit(1);
}

/* Send one message from the start of the arena. */
static void end_send(struct end *e)
{
	struct ixmod_iov *iov = (struct ixmod_iov *)(e->a->arena + IOV_OFF);
	struct ixmod_call c;

	iov->off = 0;
	iov->len = size;
	c = tn_call_sendv(e->handle, IOV_OFF, 1, 0);
	tn_app_submit(e->a, &c);
}

/* Read @e's events; @server answers every whole message. */
static void end_events(struct end *e, const struct end *peer, bool server)
{
	struct ixmod_event ev;
	struct ixmod_call c;
	const u8 *d;

	while (tn_app_event(e->a, &ev)) {
		switch (ev.type) {
		case IXMOD_EV_CALL:
			/* a failure, or a send TCP did not take whole */
			if (ev.res < 0 || (ev.op == IXMOD_OP_TCP_SENDV && ev.res != (int)size))
				e->errors++;
			else if (ev.user_data == UD_CONNECT)
				e->handle = ev.handle;
			break;
		case IXMOD_EV_TCP_KNOCK:
			e->handle = ev.handle;
			e->open = true;
			c = tn_call_accept(ev.handle, 0);
			tn_app_submit(e->a, &c);
			break;
		case IXMOD_EV_TCP_CONNECTED:
			e->open = !ev.res;
			e->errors += !!ev.res;
			break;
		case IXMOD_EV_TCP_RECV:
			if (ev.res <= 0 || e->got + (u32)ev.res > size) {
				e->errors += ev.res != 0;
				break;
			}
			d = tn_rx_ptr(e->h, ev.off, (u32)ev.res);
			if (!d || memcmp(d, peer->a->arena + e->got, (u32)ev.res))
				e->errors++;
			e->got += (u32)ev.res;
			c = tn_call_recv_done(e->handle, (u32)ev.res);
			tn_app_submit(e->a, &c);
			if (e->got == size) {
				e->got = 0;
				e->msgs++;
				if (server)
					end_send(e);
			}
			break;
		case IXMOD_EV_TCP_SENT:
			break;
		case IXMOD_EV_TCP_DEAD:
			e->deads++;
			e->errors += ev.res != 0;
			break;
		default:
			e->errors++;
		}
	}
}

static void end_init(struct end *e, u32 ip, u8 fill)
{
	struct tn_host_cfg hc = { .ip = ip, .seed = ip, .offload = offload };

	memset(e, 0, sizeof(*e));
	e->h = tn_host_new(&hc);
	e->a = tn_app_new(e->h, RING, RING, ARENA);
	tn_app_copy_only(e->a, copy_only);
	memset(e->a->arena, fill, IOV_OFF);
}

static unsigned long parse_count(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		fail("a count must be a non-negative decimal number");
	return v;
}

int main(int argc, char **argv)
{
	struct tn_link_cfg lc = { .delay = 0, .seed = 1 };
	struct end cl, sv;
	struct ixmod_call c;
	struct tn_link *l;
	unsigned long n, i, steps;
	int opt;

	while ((opt = getopt(argc, argv, "cos:")) != -1) {
		if (opt == 'c') {
			copy_only = true;
			continue;
		}
		if (opt == 'o') {
			offload = true;
			continue;
		}
		if (opt != 's')
			fail("usage: tcp_rr [-c] [-o] [-s SIZE] N");
		size = (u32)parse_count(optarg);
		if (!size || size > IOV_OFF)
			fail("SIZE must be 1 to 4096 bytes");
	}
	if (optind + 1 != argc)
		fail("usage: tcp_rr [-c] [-o] [-s SIZE] N");
	n = parse_count(argv[optind]);

	ixm_host_now_ns = 1000 * MS;
	end_init(&cl, TN_IP(1), 'q');
	end_init(&sv, TN_IP(2), 'r');
	l = tn_link_new(cl.h, sv.h, &lc);

	c = tn_call_listen(PORT, 16, UD_LISTEN);
	tn_app_submit(sv.a, &c);
	tn_step(l);
	end_events(&sv, &cl, true);
	c = tn_call_connect(TN_IP(2), PORT, UD_CONNECT);
	tn_app_submit(cl.a, &c);
	for (steps = 0; steps < 100 && !(cl.open && sv.open); steps++) {
		tn_step(l);
		end_events(&cl, &sv, false);
		end_events(&sv, &cl, true);
	}
	if (!cl.open || !sv.open)
		fail("the connection did not open");

	for (i = 0; i < n; i++) {
		u64 want = cl.msgs + 1;

		end_send(&cl);
		for (steps = 0; steps < 100 && cl.msgs < want; steps++) {
			tn_step(l);
			end_events(&sv, &cl, true);
			end_events(&cl, &sv, false);
		}
		if (cl.msgs != want)
			fail("a response did not come back");
	}

	c = tn_call_close(cl.handle, false);
	tn_app_submit(cl.a, &c);
	c = tn_call_close(sv.handle, false);
	tn_app_submit(sv.a, &c);
	for (steps = 0; steps < 1000 && !(cl.deads && sv.deads); steps++) {
		tn_step(l);
		end_events(&cl, &sv, false);
		end_events(&sv, &cl, true);
	}
	tn_idle(l, cl.h->tcp_cfg.tw_ns + 1000 * MS, 10 * MS);

	if (cl.errors || sv.errors)
		fail("an event or a received byte was wrong");
	if (sv.msgs != n || cl.msgs != n)
		fail("a message was lost or duplicated");
	if (cl.deads != 1 || sv.deads != 1)
		fail("a connection did not close cleanly");
	if (cl.h->tcp->stats.retrans || sv.h->tcp->stats.retrans ||
	    tn_drops(cl.h) || tn_drops(sv.h))
		fail("a segment was retransmitted or dropped");
	if (cl.h->tcp->stats.conns || sv.h->tcp->stats.conns)
		fail("a connection outlived TIME_WAIT");
	if (copy_only ? cl.h->tcp->stats.tx_zerocopy + sv.h->tcp->stats.tx_zerocopy :
			cl.h->tcp->stats.tx_copied + sv.h->tcp->stats.tx_copied)
		fail(copy_only ? "data went out in place with -c" : "data was copied");

	printf("%lu exchanges of %u bytes: %llu frames on the link, %llu delayed ACKs\n",
	       n, size, (unsigned long long)l->stats.sent,
	       (unsigned long long)(cl.h->tcp->stats.delayed_acks +
				    sv.h->tcp->stats.delayed_acks));
	tn_link_free(l);
	tn_app_free(cl.a);
	tn_app_free(sv.a);
	tn_host_free(cl.h);
	tn_host_free(sv.h);
	return 0;
}
