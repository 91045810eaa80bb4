// SPDX-License-Identifier: MIT
/*
 * px_poll.c - libixu-posix: epoll, poll and select over ixmod sockets and
 * Linux file descriptors together
 *
 * An epoll instance stays Linux's until an ixmod socket is added to it.
 * Then the layer keeps that socket's registration itself (struct
 * px_epi) and adds to the real epoll an eventfd and every context's
 * file: epoll_wait() returns the ixmod sockets that are ready and the
 * real epoll's events together, and sleeps in the real epoll_wait(),
 * which wakes for the Linux fds, for events that nobody runs yet (a
 * context's file), and for a socket another thread made ready (the
 * eventfd).  The ready list is the kernel's design (fs/eventpoll.c):
 * a registration is queued when its socket changes; level-triggered
 * ones stay queued while they are ready, edge-triggered and one-shot
 * ones leave when reported.
 *
 * poll() and select() ask the Linux fds with a zero timeout beside the
 * ixmod sockets' readiness, and sleep in px_sleep() with the Linux fds.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/select.h>

#include "px.h"

/* The real epoll's data words of the layer's own fds */
#define PX_EP_EFD	0x7078ee11f00dcafeULL
#define PX_EP_CORE	0x7078ee12f00d0000ULL	/* + the core's index */

static struct px_ep *ep_get(int epfd)
{
	struct px_file *f = px_file_get(epfd);

	return f && f->kind == PX_EPOLL ? (struct px_ep *)f : NULL;
}

/* ---- the ready list ---- */

static void rdl_add(struct px_epi *epi)
{
	struct px_ep *ep = epi->ep;

	if (epi->on_rdl)
		return;
	epi->on_rdl = true;
	epi->rnext = NULL;
	*ep->rdl_tail = epi;
	ep->rdl_tail = &epi->rnext;
}

static void rdl_del(struct px_epi *epi)
{
	struct px_ep *ep = epi->ep;
	struct px_epi **pp;

	if (!epi->on_rdl)
		return;
	for (pp = &ep->rdl; *pp; pp = &(*pp)->rnext) {
		if (*pp != epi)
			continue;
		*pp = epi->rnext;
		if (ep->rdl_tail == &epi->rnext)
			ep->rdl_tail = pp;
		break;
	}
	epi->on_rdl = false;
}

/* The socket of @epi changed: queue it and wake who sleeps on its epoll. */
void px_epi_ready(struct px_epi *epi)
{
	struct px_ep *ep = epi->ep;
	__u64 one = 1;

	if (epi->disabled)
		return;
	rdl_add(epi);
	if (ep->sleepers && px_libc.write(ep->efd, &one, sizeof(one)) < 0)
		return;		/* EAGAIN: the counter is full; it is readable anyway */
}

static void epi_free(struct px_epi *epi)
{
	struct px_epi **pp;

	rdl_del(epi);
	for (pp = &epi->s->epis; *pp; pp = &(*pp)->snext)
		if (*pp == epi) {
			*pp = epi->snext;
			break;
		}
	/* the epoll's list: doubly linked, as sockets leave in any order */
	*epi->eprev = epi->enext;
	if (epi->enext)
		epi->enext->eprev = epi->eprev;
	epi->ep->nsocks--;
	free(epi);
}

/* The socket's last fd closed: it leaves every epoll (as in Linux). */
void px_epis_drop(struct px_sock *s)
{
	while (s->epis)
		epi_free(s->epis);
}

/* The epoll's last fd closed: its registrations go; called with the lock held. */
void px_ep_put(struct px_ep *ep)
{
	struct px_ep **pp;

	if (--ep->f.refs)
		return;
	while (ep->epis)
		epi_free(ep->epis);
	for (pp = &px.eps; *pp; pp = &(*pp)->next_all)
		if (*pp == ep) {
			*pp = ep->next_all;
			break;
		}
	if (ep->efd >= 0)
		px_libc.close(ep->efd);
	free(ep);
}

/* ---- epoll ---- */

static unsigned int epi_mask(struct px_epi *epi)
{
	return px_revents(epi->s) & (epi->ev.events | EPOLLERR | EPOLLHUP);
}

/* Move ready registrations into @out; called with the lock held. */
static int rdl_collect(struct px_ep *ep, struct epoll_event *out, int max)
{
	struct px_epi *epi, *keep = NULL, **keep_tail = &keep;
	int n = 0;

	while (n < max && (epi = ep->rdl)) {
		unsigned int m;

		ep->rdl = epi->rnext;
		if (!ep->rdl)
			ep->rdl_tail = &ep->rdl;
		epi->on_rdl = false;
		m = epi_mask(epi);
		if (!m)
			continue;
		if ((epi->ev.events & EPOLLET) && epi->seq == epi->s->seq)
			continue;	/* reported already, nothing new since */
		epi->seq = epi->s->seq;
		out[n].events = m;
		out[n].data = epi->ev.data;
		n++;
		if (epi->ev.events & EPOLLONESHOT) {
			epi->disabled = true;
			continue;
		}
		if (!(epi->ev.events & EPOLLET)) {	/* level: stays while ready */
			epi->on_rdl = true;
			epi->rnext = NULL;
			*keep_tail = epi;
			keep_tail = &epi->rnext;
		}
	}
	if (keep) {
		*ep->rdl_tail = keep;
		ep->rdl_tail = keep_tail;
	}
	return n;
}

/* Add the eventfd and the contexts' files to the real epoll (first ixmod socket). */
static int ep_arm(struct px_ep *ep)
{
	struct epoll_event e = { .events = EPOLLIN | EPOLLET, .data.u64 = PX_EP_EFD };
	unsigned int i;

	if (ep->efd >= 0)
		return 0;
	ep->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ep->efd < 0)
		return -errno;
	if (px_libc.epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->efd, &e))
		return -errno;
	for (i = 0; i < px.ncores && !px.dead; i++) {
		e = (struct epoll_event){ .events = EPOLLIN, .data.u64 = PX_EP_CORE + i };
		if (px_libc.epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ixev_fd(px.cores[i].ev), &e))
			return -errno;
	}
	return 0;
}

static struct px_ep *ep_new(int epfd)
{
	struct px_ep *ep = calloc(1, sizeof(*ep));

	if (!ep)
		return NULL;
	ep->f.kind = PX_EPOLL;
	ep->f.refs = 1;
	ep->epfd = epfd;
	ep->efd = -1;
	ep->rdl_tail = &ep->rdl;
	if (px_file_set(epfd, &ep->f)) {
		free(ep);
		return NULL;
	}
	ep->next_all = px.eps;
	px.eps = ep;
	return ep;
}

static struct px_epi *epi_find(struct px_ep *ep, struct px_sock *s, int fd)
{
	struct px_epi *epi;

	for (epi = s->epis; epi; epi = epi->snext)
		if (epi->ep == ep && epi->fd == fd)
			return epi;
	return NULL;
}

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
{
	struct px_sock *s;
	struct px_ep *ep;
	struct px_epi *epi;
	int ret = 0;

	px_init_libc();
	s = px_sock_get(fd);
	if (!s || !s->ixm)
		return px_libc.epoll_ctl(epfd, op, fd, event);
	if (epfd == fd)
		return px_ret(-EINVAL);
	if (op != EPOLL_CTL_DEL && !event)
		return px_ret(-EFAULT);
	px_lock();
	ep = ep_get(epfd);
	if (!ep) {
		struct epoll_event probe = { 0 };

		/* is @epfd an epoll at all?  Linux says EBADF or EINVAL */
		if (px_libc.epoll_ctl(epfd, EPOLL_CTL_DEL, px.placeholder, &probe) &&
		    errno != ENOENT) {
			ret = -errno;
			goto out;
		}
		ep = ep_new(epfd);
		if (!ep) {
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = ep_arm(ep);
	if (ret)
		goto out;
	epi = epi_find(ep, s, fd);
	switch (op) {
	case EPOLL_CTL_ADD:
		if (epi) {
			ret = -EEXIST;
			break;
		}
		epi = calloc(1, sizeof(*epi));
		if (!epi) {
			ret = -ENOMEM;
			break;
		}
		epi->ep = ep;
		epi->s = s;
		epi->fd = fd;
		epi->ev = *event;
		epi->seq = s->seq - 1;	/* what is ready now is new */
		epi->snext = s->epis;
		s->epis = epi;
		epi->enext = ep->epis;
		if (ep->epis)
			ep->epis->eprev = &epi->enext;
		epi->eprev = &ep->epis;
		ep->epis = epi;
		ep->nsocks++;
		px_pump();
		if (epi_mask(epi))
			px_epi_ready(epi);
		break;
	case EPOLL_CTL_MOD:
		if (!epi) {
			ret = -ENOENT;
			break;
		}
		epi->ev = *event;
		epi->disabled = false;
		epi->seq = s->seq - 1;
		if (epi_mask(epi))
			px_epi_ready(epi);
		break;
	case EPOLL_CTL_DEL:
		if (!epi) {
			ret = -ENOENT;
			break;
		}
		epi_free(epi);
		break;
	default:
		ret = -EINVAL;
	}
out:
	px_unlock();
	return px_ret(ret);
}

/* Keep the application's events of the real epoll, drop the layer's. */
static int filter_real(struct epoll_event *ev, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		__u64 d = ev[i].data.u64;

		if (d == PX_EP_EFD || (d >= PX_EP_CORE && d < PX_EP_CORE + PX_MAX_CORES))
			continue;
		ev[k++] = ev[i];
	}
	return k;
}

static int px_epoll_wait(struct px_ep *ep, struct epoll_event *events, int max, int timeout,
			 const sigset_t *mask)
{
	long long end = timeout > 0 ? px_now_ms() + timeout : 0;
	int n, m, left = timeout;

	if (max <= 0)
		return px_ret(-EINVAL);
	for (;;) {
		px_lock();
		px_pump();
		n = rdl_collect(ep, events, max);
		if (n) {
			px_unlock();
			if (n < max) {
				m = px_libc.epoll_wait(ep->epfd, events + n, max - n, 0);
				if (m > 0)
					n += filter_real(events + n, m);
			}
			return n;
		}
		ep->sleepers++;
		px_unlock();
		m = mask ? px_libc.epoll_pwait(ep->epfd, events, max, left, mask) :
			   px_libc.epoll_wait(ep->epfd, events, max, left);
		px_lock();
		ep->sleepers--;
		if (m < 0) {
			px_unlock();
			return -1;
		}
		n = filter_real(events, m);
		if (n) {
			px_pump();
			if (n < max)
				n += rdl_collect(ep, events + n, max - n);
			px_unlock();
			return n;
		}
		px_unlock();
		if (!timeout || (timeout > 0 && m == 0 && px_now_ms() >= end))
			return 0;
		if (timeout > 0) {
			left = (int)(end - px_now_ms());
			if (left < 0)
				left = 0;
		}
	}
}

int epoll_wait(int epfd, struct epoll_event *events, int max, int timeout)
{
	struct px_ep *ep = ep_get(epfd);

	/* once armed, its real epoll holds the layer's fds: they must be filtered */
	if (!ep)
		return px_libc.epoll_wait(epfd, events, max, timeout);
	return px_epoll_wait(ep, events, max, timeout, NULL);
}

int epoll_pwait(int epfd, struct epoll_event *events, int max, int timeout,
		const sigset_t *mask)
{
	struct px_ep *ep = ep_get(epfd);

	if (!ep)
		return px_libc.epoll_pwait(epfd, events, max, timeout, mask);
	return px_epoll_wait(ep, events, max, timeout, mask);
}

/* A new epoll's fd may reuse the number of one closed behind our back. */
static int ep_created(int fd)
{
	struct px_file *f;

	if (fd < 0)
		return fd;
	f = px_file_get(fd);
	if (f) {
		px_lock();
		px_file_clear(fd);
		px_unlock();
	}
	return fd;
}

int epoll_create(int size)
{
	px_init_libc();
	return ep_created(px_libc.epoll_create(size));
}

int epoll_create1(int flags)
{
	px_init_libc();
	return ep_created(px_libc.epoll_create1(flags));
}

/* ---- poll, select ---- */

static bool any_ixm(const struct pollfd *fds, nfds_t n)
{
	nfds_t i;

	for (i = 0; i < n; i++) {
		struct px_sock *s = px_sock_get(fds[i].fd);

		if (s && s->ixm)
			return true;
	}
	return false;
}

/*
 * poll() with ixmod sockets among @fds.  @mask (ppoll, pselect): the
 * thread's signal mask while it waits, restored after; unlike the
 * kernel's, the swap is not atomic with the wait's start.
 */
static int px_poll(struct pollfd *fds, nfds_t n, int timeout, const sigset_t *mask)
{
	long long end = timeout > 0 ? px_now_ms() + timeout : 0;
	struct pollfd *lx = NULL;
	unsigned int *lx_idx = NULL;
	unsigned int nlx = 0;
	int ready, ret = 0;
	sigset_t old;
	nfds_t i;

	if (mask)
		pthread_sigmask(SIG_SETMASK, mask, &old);
	lx = calloc(n ? n : 1, sizeof(*lx));
	lx_idx = calloc(n ? n : 1, sizeof(*lx_idx));
	if (!lx || !lx_idx) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct px_sock *s = px_sock_get(fds[i].fd);

		if (!s || !s->ixm) {
			lx[nlx] = fds[i];
			lx_idx[nlx++] = i;
		}
	}
	px_lock();
	for (;;) {
		unsigned int k;

		px_pump();
		ready = 0;
		for (i = 0; i < n; i++) {
			struct px_sock *s = px_sock_get(fds[i].fd);

			fds[i].revents = 0;
			if (s && s->ixm) {
				fds[i].revents = (short)(px_revents(s) &
					(fds[i].events | POLLERR | POLLHUP | POLLNVAL));
				if (fds[i].revents)
					ready++;
			}
		}
		if (nlx) {
			int m = px_libc.poll(lx, nlx, 0);

			if (m < 0) {
				ret = -errno;
				break;
			}
			for (k = 0; k < nlx; k++) {
				fds[lx_idx[k]].revents = lx[k].revents;
				if (lx[k].revents)
					ready++;
			}
		}
		if (ready || !timeout) {
			ret = ready;
			break;
		}
		if (timeout > 0 && px_now_ms() >= end) {
			ret = 0;
			break;
		}
		ret = px_sleep(timeout < 0 ? -1 : (int)(end - px_now_ms()), lx, nlx);
		if (ret)
			break;
	}
	px_unlock();
out:
	if (mask)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(lx);
	free(lx_idx);
	return px_ret(ret);
}

static int ts_ms(const struct timespec *ts)
{
	if (!ts)
		return -1;
	return (int)(ts->tv_sec * 1000 + (ts->tv_nsec + 999999) / 1000000);
}

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	px_init_libc();
	if (!any_ixm(fds, n))
		return px_libc.poll(fds, n, timeout);
	return px_poll(fds, n, timeout, NULL);
}

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	px_init_libc();
	if (!any_ixm(fds, n))
		return px_libc.ppoll(fds, n, ts, mask);
	return px_poll(fds, n, ts_ms(ts), mask);
}

/* select() as poll(): the sets to pollfds and back */
static int px_select(int nfds, fd_set *r, fd_set *w, fd_set *x, int timeout,
		     const sigset_t *mask)
{
	struct pollfd *pf;
	int i, n = 0, ret, count = 0;

	pf = calloc(nfds > 0 ? nfds : 1, sizeof(*pf));
	if (!pf)
		return px_ret(-ENOMEM);
	for (i = 0; i < nfds; i++) {
		short ev = 0;

		if (r && FD_ISSET(i, r))
			ev |= POLLIN;
		if (w && FD_ISSET(i, w))
			ev |= POLLOUT;
		if (x && FD_ISSET(i, x))
			ev |= POLLPRI;
		if (ev)
			pf[n++] = (struct pollfd){ .fd = i, .events = ev };
	}
	ret = px_poll(pf, n, timeout, mask);
	if (ret < 0) {
		free(pf);
		return ret;
	}
	if (r)
		FD_ZERO(r);
	if (w)
		FD_ZERO(w);
	if (x)
		FD_ZERO(x);
	for (i = 0; i < n; i++) {
		short re = pf[i].revents;

		if (re & POLLNVAL) {
			free(pf);
			return px_ret(-EBADF);
		}
		if (r && (re & (POLLIN | POLLHUP | POLLERR)) && (pf[i].events & POLLIN)) {
			FD_SET(pf[i].fd, r);
			count++;
		}
		if (w && (re & (POLLOUT | POLLERR)) && (pf[i].events & POLLOUT)) {
			FD_SET(pf[i].fd, w);
			count++;
		}
		if (x && (re & POLLPRI) && (pf[i].events & POLLPRI)) {
			FD_SET(pf[i].fd, x);
			count++;
		}
	}
	free(pf);
	return count;
}

static bool any_ixm_set(int nfds, fd_set *r, fd_set *w, fd_set *x)
{
	int i;

	for (i = 0; i < nfds; i++) {
		struct px_sock *s;

		if (!((r && FD_ISSET(i, r)) || (w && FD_ISSET(i, w)) || (x && FD_ISSET(i, x))))
			continue;
		s = px_sock_get(i);
		if (s && s->ixm)
			return true;
	}
	return false;
}

int select(int nfds, fd_set *r, fd_set *w, fd_set *x, struct timeval *tv)
{
	px_init_libc();
	if (nfds <= 0 || nfds > FD_SETSIZE || !any_ixm_set(nfds, r, w, x))
		return px_libc.select(nfds, r, w, x, tv);
	return px_select(nfds, r, w, x,
			 tv ? (int)(tv->tv_sec * 1000 + (tv->tv_usec + 999) / 1000) : -1, NULL);
}

int pselect(int nfds, fd_set *r, fd_set *w, fd_set *x, const struct timespec *ts,
	    const sigset_t *mask)
{
	px_init_libc();
	if (nfds <= 0 || nfds > FD_SETSIZE || !any_ixm_set(nfds, r, w, x))
		return px_libc.pselect(nfds, r, w, x, ts, mask);
	return px_select(nfds, r, w, x, ts_ms(ts), mask);
}
