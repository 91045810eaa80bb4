// SPDX-License-Identifier: MIT
/*
 * ring.c - attach to a dataplane core, map the regions, submit and wait
 *
 * It stands on setup.c (the handle ixu_open() made, its features, and
 * ixu_unmap() to undo a half-done attach), never the reverse.
 */
#include <errno.h>
#include <sched.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "internal.h"

static const int ixu_region_prot[IXMOD_REGION_NR] = {
	[IXMOD_REGION_CALL_RING]	= PROT_READ | PROT_WRITE,
	[IXMOD_REGION_EVENT_RING]	= PROT_READ | PROT_WRITE,
	[IXMOD_REGION_RXBUF]		= PROT_READ,	/* the kernel refuses write */
	[IXMOD_REGION_TXARENA]		= PROT_READ | PROT_WRITE,
};

static void ixu_ring_init(struct ixu_ring *r, void *base,
			  const struct ixmod_ring_offsets *o, unsigned int nr,
			  unsigned int esize)
{
	char *b = base;

	r->kprod = (unsigned int *)(b + o->prod);
	r->kcons = (unsigned int *)(b + o->cons);
	r->kflags = (unsigned int *)(b + o->flags);
	r->entries = b + o->entries;
	r->esize = esize;
	r->nr = nr;
	r->mask = nr - 1;
	/* both indices start at 0; ours is whatever the shared word says */
	r->cached = 0;
}

int ixu_attach(struct ixu *ixu, unsigned int cpu, const struct ixu_params *params)
{
	struct ixmod_setup p;
	int i, ret;

	if (!ixu || ixu->fd < 0 || ixu->maps[IXMOD_REGION_CALL_RING])
		return -EINVAL;
	if (params && params->mode == IXU_MODE_COLOCATED) {
		cpu_set_t set;

		if (!ixu_has_feature(ixu, IXMOD_FEAT_RUN))
			return -EOPNOTSUPP;
		CPU_ZERO(&set);
		if (cpu >= CPU_SETSIZE)
			return -EINVAL;
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			return -errno;
	} else if (params && params->mode != IXU_MODE_THREAD) {
		return -EINVAL;
	}
	memset(&p, 0, sizeof(p));
	p.cpu = cpu;
	if (params) {
		p.flags = params->flags;
		p.call_entries = params->call_entries;
		p.event_entries = params->event_entries;
		p.txarena_size = params->txarena_size;
	}
	if (ioctl(ixu->fd, IXMOD_IOC_SETUP, &p) < 0)
		return -errno;
	ixu->setup = p;
	for (i = 0; i < IXMOD_REGION_NR; i++) {
		void *m = mmap(NULL, p.regions[i].size, ixu_region_prot[i], MAP_SHARED,
			       ixu->fd, (off_t)p.regions[i].mmap_offset);

		if (m == MAP_FAILED) {
			ret = -errno;
			ixu_unmap(ixu);
			return ret;
		}
		ixu->maps[i] = m;
	}
	ixu_ring_init(&ixu->calls, ixu->maps[IXMOD_REGION_CALL_RING], &p.call_off,
		      p.call_entries, sizeof(struct ixmod_call));
	/* a module before IXMOD_FEAT_EVENT_EXT leaves event_size 0: 32 bytes */
	ixu_ring_init(&ixu->events, ixu->maps[IXMOD_REGION_EVENT_RING], &p.event_off,
		      p.event_entries, p.event_size ? p.event_size : sizeof(struct ixmod_event));
	ixu->rxbuf = ixu->maps[IXMOD_REGION_RXBUF];
	ixu->txarena = ixu->maps[IXMOD_REGION_TXARENA];
	ixu->mode = params ? params->mode : IXU_MODE_THREAD;
	return 0;
}

int ixu_call_submit(struct ixu *ixu)
{
	struct ixu_ring *r = &ixu->calls;

	__atomic_store_n(r->kprod, r->cached, __ATOMIC_RELEASE);	/* (B) */
	if (ixu->mode == IXU_MODE_COLOCATED)
		return 0;	/* this thread runs them in ixu_wait() */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);			/* (E) */
	if (__atomic_load_n(r->kflags, __ATOMIC_RELAXED) & IXMOD_RING_NEED_WAKEUP)
		if (ioctl(ixu->fd, IXMOD_IOC_WAKE, 0) < 0)
			return -errno;
	return 0;
}

int ixu_wait(struct ixu *ixu, int timeout_ms)
{
	struct pollfd pfd = { .fd = ixu->fd, .events = POLLIN };
	int n;

	if (ixu_event_peek(ixu, 0))
		return 0;
	if (ixu->mode == IXU_MODE_COLOCATED) {
		struct ixmod_run run = {
			.min_events = 1,
			.timeout_ns = timeout_ms < 0 ? ~0ULL :
				      (unsigned long long)timeout_ms * 1000000,
		};

		return ioctl(ixu->fd, IXMOD_IOC_RUN, &run) < 0 ? -errno : 0;
	}
	n = poll(&pfd, 1, timeout_ms);
	if (n < 0)
		return -errno;
	if (pfd.revents & POLLERR)
		return -ENETDOWN;
	return n ? 0 : -ETIME;
}
