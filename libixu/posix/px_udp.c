// SPDX-License-Identifier: MIT
/*
 * px_udp.c - libixu-posix: UDP sockets
 *
 * A UDP socket routed to ixmod is bound on every core (RSS sends a flow
 * to any of them); each datagram is copied out of the receive region into
 * the socket's queue, which holds at most PX_UDP_RCVBUF bytes (beyond,
 * datagrams are dropped, as Linux drops past SO_RCVBUF).  Sends go out
 * from the first core.  ixmod carries a datagram in one frame: above the
 * port's MTU a send fails with EMSGSIZE (Linux fragments), and ICMP
 * errors are not reported to sockets (no ECONNREFUSED).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "px.h"

#define PX_UDP_RCVBUF	(208U << 10)	/* Linux's default rmem */
#define PX_UDP_MAX	1472U		/* payload of a 1500-byte frame */

struct px_dgram {
	struct px_dgram		*next;
	size_t			len;
	struct sockaddr_in	from;
	unsigned char		data[];
};

static void px_udp_rx(struct ixev_udp *u, const void *data, size_t len, __be32 addr,
		      __be16 port, void *arg)
{
	struct px_sock *s = arg;
	struct px_dgram *d;

	(void)u;
	if (s->was_connected && (addr != s->peer.sin_addr.s_addr || port != s->peer.sin_port))
		return;		/* a connected socket takes its peer's only */
	if (s->qbytes + len > PX_UDP_RCVBUF) {
		s->udp_drops++;
		return;
	}
	d = malloc(sizeof(*d) + len);
	if (!d) {
		s->udp_drops++;
		return;
	}
	d->next = NULL;
	d->len = len;
	d->from = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = port,
					.sin_addr.s_addr = addr };
	memcpy(d->data, data, len);
	*s->q_tail = d;
	s->q_tail = &d->next;
	s->qbytes += len;
	px_changed(s);
}

/* Bind @s (an ixmod UDP socket) to its port on every core; lock held. */
int px_udp_bind(struct px_sock *s)
{
	unsigned int i;
	int ret = 0;

	s->q_tail = &s->q;
	for (i = 0; i < px.ncores && !ret; i++) {
		ret = ixev_udp_bind(px.cores[i].ev, s->local.sin_port, px_udp_rx, s,
				    &s->udps[i]);
		if (ret == -EAGAIN) {
			px_pump_core(&px.cores[i]);
			ret = ixev_udp_bind(px.cores[i].ev, s->local.sin_port, px_udp_rx, s,
					    &s->udps[i]);
		}
	}
	if (ret) {
		while (i--) {
			if (s->udps[i])
				ixev_udp_close(s->udps[i]);
			s->udps[i] = NULL;
		}
		px_pump();
	}
	return ret;
}

void px_udp_release(struct px_sock *s)
{
	unsigned int i;

	for (i = 0; i < px.ncores; i++)
		if (s->udps[i])
			ixev_udp_close(s->udps[i]);
	px_pump();
	while (s->q) {
		struct px_dgram *d = s->q;

		s->q = d->next;
		free(d);
	}
}

unsigned int px_udp_revents(const struct px_sock *s)
{
	return (s->q ? EPOLLIN | EPOLLRDNORM : 0) | EPOLLOUT | EPOLLWRNORM;
}

size_t px_udp_next_len(const struct px_sock *s)
{
	return s->q ? s->q->len : 0;
}

/*
 * One datagram into @iov (the rest of a longer one is dropped, unless
 * MSG_PEEK); its source in *@from, MSG_TRUNC in *@mflags when it was
 * longer.  Returns the bytes copied, or its length with MSG_TRUNC.
 */
ssize_t px_udp_recv(struct px_sock *s, const struct iovec *iov, int iovcnt, int flags,
		    struct sockaddr_in *from, int *mflags)
{
	bool nonblock = s->nonblock || (flags & MSG_DONTWAIT);
	long long end = s->rcvtimeo_ms ? px_now_ms() + s->rcvtimeo_ms : 0;
	struct px_dgram *d;
	size_t done = 0, off = 0;
	int i, ret;

	if (flags & ~(MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC | MSG_WAITALL | MSG_CMSG_CLOEXEC |
		      MSG_NOSIGNAL))
		return -EOPNOTSUPP;
	px_lock();
	for (;;) {
		px_pump();
		if (s->q)
			break;
		if (nonblock) {
			px_unlock();
			return -EAGAIN;
		}
		if (end && px_now_ms() >= end) {
			px_unlock();
			return -EAGAIN;
		}
		ret = px.dead ? -ENETDOWN :
		      px_sleep(end ? (int)(end - px_now_ms()) : -1, NULL, 0);
		if (!ret && (s->gone || s->released))
			ret = -EBADF;
		if (ret) {
			px_unlock();
			return ret;
		}
	}
	d = s->q;
	for (i = 0; i < iovcnt && off < d->len; i++) {
		size_t k = iov[i].iov_len < d->len - off ? iov[i].iov_len : d->len - off;

		memcpy(iov[i].iov_base, d->data + off, k);
		off += k;
	}
	done = off;
	if (from)
		*from = d->from;
	if (mflags)
		*mflags = done < d->len ? MSG_TRUNC : 0;
	if (flags & MSG_TRUNC)
		done = d->len;
	if (!(flags & MSG_PEEK)) {
		s->q = d->next;
		if (!s->q)
			s->q_tail = &s->q;
		s->qbytes -= d->len;
		free(d);
	}
	px_unlock();
	return done;
}

/* One datagram of @iov to @to (NULL: the connected peer). */
ssize_t px_udp_send(struct px_sock *s, const struct iovec *iov, int iovcnt, int flags,
		    const struct sockaddr_in *to)
{
	unsigned char buf[PX_UDP_MAX];
	size_t len = 0, off = 0;
	int i, ret;

	if (flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_MORE | MSG_EOR | MSG_CONFIRM))
		return -EOPNOTSUPP;
	if (!to) {
		if (!s->was_connected)
			return -EDESTADDRREQ;
		to = &s->peer;
	}
	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	if (len > PX_UDP_MAX)
		return -EMSGSIZE;	/* ixmod does not fragment */
	for (i = 0; i < iovcnt; i++) {
		memcpy(buf + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	px_lock();
	if (!s->udps[0]) {
		px_unlock();
		return -EBADF;
	}
	ret = ixev_udp_send(s->udps[0], buf, len, to->sin_addr.s_addr, to->sin_port);
	if (ret == -EAGAIN) {
		px_pump_core(&px.cores[0]);
		ret = ixev_udp_send(s->udps[0], buf, len, to->sin_addr.s_addr, to->sin_port);
	}
	if (ret == -EINVAL && !len)	/* ixev takes no empty datagram */
		ret = -EOPNOTSUPP;
	if (!ret)
		px_pump_core(&px.cores[0]);
	px_unlock();
	if (ret == -EAGAIN)
		return -ENOBUFS;
	return ret ? ret : (ssize_t)len;
}
