// SPDX-License-Identifier: MIT
/*
 * prep.c - each ixu_prep_tcp_*() writes exactly its call's fields, as
 * does ixu_prep_udp_send6(); ixu_event_addr6() finds an IPv6 peer only
 * where the event says there is one
 *
 * The kernel refuses a call whose unused fields are not zero, so a helper
 * that writes one byte too many breaks every application that uses it.
 * Each case fills an entry that ixu_call_get() would have zeroed and
 * compares it, byte for byte, with the expected call.
 */
#include <stdbool.h>
#include <string.h>
#include <arpa/inet.h>

#include "ixu.h"
#include "helpers.h"

static struct ixmod_call zeroed(void)
{
	struct ixmod_call c;

	memset(&c, 0, sizeof(c));
	return c;
}

static void same(const struct ixmod_call *got, const struct ixmod_call *want,
		 const char *what)
{
	const unsigned char *g = (const void *)got, *w = (const void *)want;
	unsigned int i;

	for (i = 0; i < sizeof(*got); i++)
		T_CHECK(g[i] == w[i], "%s: byte %u is 0x%02x, expected 0x%02x",
			what, i, g[i], w[i]);
}

/* 2001:db8::2 (RFC 3849) */
static const __u8 peer6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static void udp6(void)
{
	struct ixmod_event_ext x[2];
	struct ixmod_call c, w;
	struct ixu ixu;

	c = zeroed();
	w = zeroed();
	ixu_prep_udp_send6(&c, 9, 4096, 1452, peer6, ixu_htons(7), 49);
	w.opcode = IXMOD_OP_UDP_SEND;
	w.flags = IXMOD_CALL_F_INET6;
	w.handle = 9;
	w.off = 4096;
	w.len = 1452;
	memcpy(w.addr6, peer6, 16);
	w.port = (IXU_FORCE __be16)htons(7);
	w.user_data = 49;
	same(&c, &w, "udp_send6");
	T_CHECK(!c.addr && !c.resv4, "udp_send6: addr and resv4 stay 0");
	/* with NOTIFY asked first, the flag joins it */
	c = zeroed();
	c.flags = IXMOD_CALL_F_NOTIFY;
	ixu_prep_udp_send6(&c, 9, 4096, 1452, peer6, ixu_htons(7), 49);
	w.flags = IXMOD_CALL_F_NOTIFY | IXMOD_CALL_F_INET6;
	same(&c, &w, "udp_send6 with NOTIFY");

	memset(&ixu, 0, sizeof(ixu));
	memset(x, 0, sizeof(x));
	x[0].ev.type = IXMOD_EV_UDP_RECV;
	x[0].ev.flags = IXMOD_EVF_INET6;
	memcpy(x[0].addr6, peer6, 16);
	x[1].ev.type = IXMOD_EV_UDP_RECV;
	x[1].ev.addr = ixu_htonl(0xc6120002);
	memcpy(x[1].addr6, peer6, 16);	/* not to be read: no flag */
	ixu.events.esize = sizeof(struct ixmod_event_ext);
	T_CHECK(ixu_event_addr6(&ixu, &x[0].ev) == x[0].addr6,
		"ixu_event_addr6: the extension's address of an IPv6 peer's event");
	T_CHECK(!ixu_event_addr6(&ixu, &x[1].ev), "ixu_event_addr6: NULL without IXMOD_EVF_INET6");
	ixu.events.esize = sizeof(struct ixmod_event);
	T_CHECK(!ixu_event_addr6(&ixu, &x[0].ev), "ixu_event_addr6: NULL with 32-byte events");
}

int main(void)
{
	struct ixmod_call c, w;
	__be16 p = ixu_htons(0x1234);
	__be32 a = ixu_htonl(0xc6120002);
	const unsigned char *pb = (const void *)&p, *ab = (const void *)&a;

	/* network order: the most significant byte first, whatever the host */
	T_CHECK(pb[0] == 0x12 && pb[1] == 0x34, "ixu_htons: %02x %02x", pb[0], pb[1]);
	T_CHECK(ab[0] == 0xc6 && ab[1] == 0x12 && ab[2] == 0 && ab[3] == 2,
		"ixu_htonl: %02x %02x %02x %02x", ab[0], ab[1], ab[2], ab[3]);
	T_CHECK(ixu_ntohs(p) == 0x1234 && ixu_ntohl(a) == 0xc6120002, "ixu_ntoh*");
	T_CHECK((IXU_FORCE __u16)ixu_htons(0x1234) == htons(0x1234), "ixu_htons is htons");

	c = zeroed();
	w = zeroed();
	ixu_prep_tcp_listen(&c, ixu_htons(8080), 128, 0x1122334455667788ULL);
	w.opcode = IXMOD_OP_TCP_LISTEN;
	w.port = (IXU_FORCE __be16)htons(8080);
	w.len = 128;
	w.user_data = 0x1122334455667788ULL;
	same(&c, &w, "listen");

	c = zeroed();
	w = zeroed();
	ixu_prep_tcp_accept(&c, 0x0000000700000003ULL, 42);
	w.opcode = IXMOD_OP_TCP_ACCEPT;
	w.handle = 0x0000000700000003ULL;
	w.user_data = 42;
	same(&c, &w, "accept");

	c = zeroed();
	w = zeroed();
	ixu_prep_tcp_connect(&c, ixu_htonl(0xc6120002), ixu_htons(7), 43);
	w.opcode = IXMOD_OP_TCP_CONNECT;
	w.addr = (IXU_FORCE __be32)htonl(0xc6120002);
	w.port = (IXU_FORCE __be16)htons(7);
	w.user_data = 43;
	same(&c, &w, "connect");

	c = zeroed();
	w = zeroed();
	ixu_prep_tcp_connect6(&c, peer6, ixu_htons(7), 43);
	w.opcode = IXMOD_OP_TCP_CONNECT;
	w.flags = IXMOD_CALL_F_INET6;
	memcpy(w.addr6, peer6, 16);
	w.port = (IXU_FORCE __be16)htons(7);
	w.user_data = 43;
	same(&c, &w, "connect6");
	T_CHECK(!c.addr && !c.resv4, "connect6: addr and resv4 stay 0");

	c = zeroed();
	w = zeroed();
	ixu_prep_tcp_sendv(&c, 5, 4096, 2, 44);
	w.opcode = IXMOD_OP_TCP_SENDV;
	w.handle = 5;
	w.off = 4096;
	w.len = 2;
	w.user_data = 44;
	same(&c, &w, "sendv");

	c = zeroed();
	w = zeroed();
	ixu_prep_tcp_send(&c, 5, 8192, 100, 46);
	w.opcode = IXMOD_OP_TCP_SEND;
	w.handle = 5;
	w.off = 8192;
	w.len = 100;
	w.user_data = 46;
	same(&c, &w, "send");

	c = zeroed();
	w = zeroed();
	ixu_prep_tcp_recv_done(&c, 6, 1448);
	w.opcode = IXMOD_OP_TCP_RECV_DONE;
	w.handle = 6;
	w.len = 1448;
	same(&c, &w, "recv_done");

	c = zeroed();
	w = zeroed();
	ixu_prep_tcp_close(&c, 7, false, 45);
	w.opcode = IXMOD_OP_TCP_CLOSE;
	w.handle = 7;
	w.user_data = 45;
	same(&c, &w, "close");

	c = zeroed();
	w.flags = IXMOD_CALL_F_ABORT;
	ixu_prep_tcp_close(&c, 7, true, 45);
	same(&c, &w, "close with abort");

	c = zeroed();
	w = zeroed();
	ixu_prep_tcp_shutdown(&c, 8, 47);
	w.opcode = IXMOD_OP_TCP_SHUTDOWN;
	w.handle = 8;
	w.user_data = 47;
	same(&c, &w, "shutdown");

	udp6();
	return T_EXIT_PASS;
}
