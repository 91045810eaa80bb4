// SPDX-License-Identifier: GPL-2.0
/*
 * rings.c - a hostile application against /dev/ixmod's setup, mappings
 * and rings, through the raw ABI (no libixu): every bad request gets an
 * errno and changes nothing else, and the context keeps working.
 *
 * Needs ixmod loaded, a dataplane core with a port up (IXMOD_CPU, default
 * the first of /sys/kernel/ixmod/cores) and, for the garbage test, a peer
 * sending datagrams to IXMOD_UDP_PORT (default 9000) so that receive
 * buffers are in play.  IXMOD_HOSTILE_SECONDS bounds the garbage test
 * (default 10).  test_udp_02.sh sets all of this up and checks afterwards
 * that nothing leaked and the core still serves a real application.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include <linux/ixmod.h>

#include "kselftest_harness.h"
#include "ixmod_test.h"

#define MAGIC		0x4e5a000000000000ull	/* user_data of our calls */

static unsigned int env_uint(const char *name, unsigned int def)
{
	const char *v = getenv(name);

	return v && *v ? (unsigned int)strtoul(v, NULL, 0) : def;
}

static unsigned int test_cpu(void)
{
	char buf[64] = "";

	if (getenv("IXMOD_CPU"))
		return env_uint("IXMOD_CPU", 1);
	ixt_read(IXM_SYSFS "/cores", buf, sizeof(buf));
	return (unsigned int)strtoul(buf, NULL, 10);
}

static unsigned long long core_stat(unsigned int cpu, const char *name)
{
	return ixt_read_u64(IXM_DP "/cpu%u/stats/%s", cpu, name);
}

/* FIXTURE_DATA(ctx) is struct _test_data_ctx; helpers take it by name */
struct ring {
	uint32_t *prod, *cons, *flags;	/* shared: __atomic accesses only */
	void *entries;
	uint32_t nr;
	uint32_t esize;			/* bytes per entry; 0: the 32-byte event */
};

FIXTURE(ctx) {
	struct ixt_kmsg kmsg;
	struct ixmod_setup p;
	unsigned int cpu;
	int fd;
	void *map[IXMOD_REGION_NR];
	struct ring calls, events;
	uint32_t call_prod, event_cons;	/* our private copies */
	uint64_t seq;
	uint64_t ev_handle;		/* the last event's, with IXMOD_SETUP_EVENT_EXT */
};

static void ring_init(struct ring *r, void *base, const struct ixmod_ring_offsets *o,
		      uint32_t nr)
{
	r->prod = (uint32_t *)((char *)base + o->prod);
	r->cons = (uint32_t *)((char *)base + o->cons);
	r->flags = (uint32_t *)((char *)base + o->flags);
	r->entries = (char *)base + o->entries;
	r->nr = nr;
}

static int ctx_attach(int fd, unsigned int cpu, struct ixmod_setup *p)
{
	memset(p, 0, sizeof(*p));
	p->cpu = cpu;
	p->call_entries = 64;
	p->event_entries = 64;
	p->txarena_size = 64 * 1024;
	return ioctl(fd, IXMOD_IOC_SETUP, p);
}

/* What the module takes (IXMOD_IOC_GET_INFO, IXMOD_FEAT_LIMITS), read once. */
static const struct ixmod_info *module_info(void)
{
	static struct ixmod_info info;
	int fd;

	if (!info.abi_version) {
		fd = open(IXMOD_DEV_PATH, O_RDWR | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, IXMOD_IOC_GET_INFO, &info))
			memset(&info, 0, sizeof(info));
		if (fd >= 0)
			close(fd);
	}
	return &info;
}

/* Opcodes 0 to op_nr() - 1 are taken (abi.c checks there is no gap). */
static unsigned int op_nr(void)
{
	uint64_t ops = module_info()->ops;

	return ops ? 64 - (unsigned int)__builtin_clzll(ops) : 0;
}

FIXTURE_SETUP(ctx)
{
	int i;

	ASSERT_EQ(0, ixt_kmsg_open(&self->kmsg));
	self->cpu = test_cpu();
	self->fd = open(IXMOD_DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_NE(0, op_nr()) TH_LOG("IXMOD_IOC_GET_INFO reports no opcode");
	ASSERT_EQ(0, ctx_attach(self->fd, self->cpu, &self->p))
		TH_LOG("setup on cpu %u: %s (is a port up on it?)", self->cpu, strerror(errno));
	for (i = 0; i < IXMOD_REGION_NR; i++) {
		int prot = i == IXMOD_REGION_RXBUF ? PROT_READ : PROT_READ | PROT_WRITE;

		self->map[i] = mmap(NULL, self->p.regions[i].size, prot, MAP_SHARED, self->fd,
				    (off_t)self->p.regions[i].mmap_offset);
		ASSERT_NE(MAP_FAILED, self->map[i]) TH_LOG("region %d: %s", i, strerror(errno));
	}
	ring_init(&self->calls, self->map[IXMOD_REGION_CALL_RING], &self->p.call_off,
		  self->p.call_entries);
	ring_init(&self->events, self->map[IXMOD_REGION_EVENT_RING], &self->p.event_off,
		  self->p.event_entries);
	self->events.esize = self->p.event_size;
	EXPECT_EQ(sizeof(struct ixmod_event), self->p.event_size);
}

FIXTURE_TEARDOWN(ctx)
{
	char why[512];
	int i;

	for (i = 0; i < IXMOD_REGION_NR; i++)
		if (self->map[i] && self->map[i] != MAP_FAILED)
			munmap(self->map[i], self->p.regions[i].size);
	close(self->fd);
	EXPECT_EQ(0, ixt_kmsg_check(&self->kmsg, why, sizeof(why))) TH_LOG("%s", why);
	ixt_kmsg_close(&self->kmsg);
}

/*
 * Two threads set up the same new file at once.  IXMOD_IOC_SETUP maps
 * the arena without ixm_cfg_lock, so the second must still find the
 * first under way: exactly one attaches, the other gets EEXIST.
 */
struct setup_race {
	pthread_barrier_t go;
	int fd;
	unsigned int cpu;
	int err[2];
};

struct setup_racer_arg {
	struct setup_race *r;
	int me;
};

static void *setup_racer(void *arg)
{
	struct setup_racer_arg *a = arg;
	struct ixmod_setup p;

	pthread_barrier_wait(&a->r->go);
	a->r->err[a->me] = ctx_attach(a->r->fd, a->r->cpu, &p) ? errno : 0;
	return NULL;
}

TEST_F(ctx, setup_races_on_one_file)
{
	unsigned int i, one = 0;

	for (i = 0; i < 40; i++) {
		struct setup_race r = { .cpu = self->cpu };
		struct setup_racer_arg a[2] = { { &r, 0 }, { &r, 1 } };
		pthread_t t[2];

		r.fd = open(IXMOD_DEV_PATH, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, r.fd);
		pthread_barrier_init(&r.go, NULL, 2);
		ASSERT_EQ(0, pthread_create(&t[0], NULL, setup_racer, &a[0]));
		ASSERT_EQ(0, pthread_create(&t[1], NULL, setup_racer, &a[1]));
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		pthread_barrier_destroy(&r.go);
		one += (!r.err[0] && r.err[1] == EEXIST) || (r.err[0] == EEXIST && !r.err[1]);
		close(r.fd);
	}
	EXPECT_EQ(40, one) {
		TH_LOG("two setups of one file at once: one attaches, one gets EEXIST, %u of 40",
		       one);
	}
}

/*
 * Contexts attach and close on the core while another thread writes the
 * global configuration (idle_us, under ixm_cfg_lock) over and over: both
 * finish, and nothing complains (the debug kernel's lockdep watches the
 * order of ixm_cfg_lock and the core's attach_lock).
 */
struct churn {
	unsigned int cpu;
	bool stop;		/* __atomic accesses */
	unsigned int writes, failed;
};

static void *config_writer(void *arg)
{
	struct churn *c = arg;
	char cur[32] = "";

	ixt_read(IXM_SYSFS "/idle_us", cur, sizeof(cur));
	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		c->failed += ixt_write(IXM_SYSFS "/idle_us", cur) != 0;
		c->writes++;
	}
	return NULL;
}

TEST_F(ctx, attach_and_close_beside_config_writes)
{
	struct churn c = { .cpu = self->cpu };
	unsigned int i, attached = 0;
	struct ixmod_setup p;
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, config_writer, &c));
	for (i = 0; i < 30; i++) {
		int fd = open(IXMOD_DEV_PATH, O_RDWR | O_CLOEXEC);

		if (fd < 0)
			break;
		attached += ctx_attach(fd, self->cpu, &p) == 0;
		close(fd);
	}
	__atomic_store_n(&c.stop, true, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	EXPECT_EQ(30, attached);
	EXPECT_EQ(0, c.failed);
	EXPECT_LT(0, c.writes) {
		TH_LOG("30 contexts attached and closed beside %u idle_us writes (%u failed)",
		       c.writes, c.failed);
	}
}

/* Put @c in the next slot (if there is room) and publish it. */
static bool submit(struct _test_data_ctx *self, const struct ixmod_call *c)
{
	struct ixmod_call *slot;

	if (self->call_prod - __atomic_load_n(self->calls.cons, __ATOMIC_ACQUIRE) >=
	    self->calls.nr)
		return false;
	slot = (struct ixmod_call *)self->calls.entries +
	       (self->call_prod & (self->calls.nr - 1));
	*slot = *c;
	self->call_prod++;
	__atomic_store_n(self->calls.prod, self->call_prod, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(self->calls.flags, __ATOMIC_RELAXED) & IXMOD_RING_NEED_WAKEUP)
		ioctl(self->fd, IXMOD_IOC_WAKE, 0);
	return true;
}

/* Take the next event, waiting up to @ms; false if none came. */
static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

static bool next_event(struct _test_data_ctx *self, struct ixmod_event *ev, int ms)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	long long end = now_ms() + ms;

	for (;;) {
		uint32_t prod = __atomic_load_n(self->events.prod, __ATOMIC_ACQUIRE);

		if (prod != self->event_cons) {
			uint32_t esize = self->events.esize ? self->events.esize :
							      sizeof(*ev);
			const char *e = (const char *)self->events.entries +
					(size_t)(self->event_cons & (self->events.nr - 1)) * esize;

			*ev = *(const struct ixmod_event *)e;
			self->ev_handle = esize >= sizeof(struct ixmod_event_ext) ?
					  ((const struct ixmod_event_ext *)e)->handle : 0;
			self->event_cons++;
			__atomic_store_n(self->events.cons, self->event_cons, __ATOMIC_RELEASE);
			return true;
		}
		if (now_ms() >= end || poll(&pfd, 1, 50) < 0)
			return false;
	}
}

/* Submit @c and return the res of its IXMOD_EV_CALL (skipping receives). */
static int call_res(struct _test_data_ctx *self, struct ixmod_call c, struct ixmod_event *out)
{
	struct ixmod_event ev;

	long long end = now_ms() + 3000;

	c.user_data = MAGIC | ++self->seq;
	c.flags |= IXMOD_CALL_F_NOTIFY;	/* an answer on success too */
	/*
	 * A full call ring after a burst: the dataplane takes calls only
	 * while the event ring has room for their answers, so read (and
	 * skip, as below) what it has posted until ours fits.
	 */
	while (!submit(self, &c)) {
		if (!next_event(self, &ev, 50) && now_ms() >= end)
			return INT32_MIN;
	}
	while (next_event(self, &ev, 3000)) {
		/* receives, and answers to calls made before this one */
		if (ev.type != IXMOD_EV_CALL || ev.user_data != c.user_data)
			continue;
		if (out)
			*out = ev;
		return ev.res;
	}
	fprintf(stderr, "# no answer to op %u: calls prod %u cons %u flags %#x, events prod %u cons %u flags %#x, ours %u/%u\n",
		c.opcode, __atomic_load_n(self->calls.prod, __ATOMIC_ACQUIRE),
		__atomic_load_n(self->calls.cons, __ATOMIC_ACQUIRE),
		__atomic_load_n(self->calls.flags, __ATOMIC_ACQUIRE),
		__atomic_load_n(self->events.prod, __ATOMIC_ACQUIRE),
		__atomic_load_n(self->events.cons, __ATOMIC_ACQUIRE),
		__atomic_load_n(self->events.flags, __ATOMIC_ACQUIRE),
		self->call_prod, self->event_cons);
	return INT32_MIN + 2;	/* no answer */
}

static uint64_t bind_port(struct _test_data_ctx *self, uint16_t port)
{
	struct ixmod_call c = { .opcode = IXMOD_OP_UDP_BIND, .port = htons(port) };
	struct ixmod_event ev;

	return call_res(self, c, &ev) == 0 ? ev.handle : 0;
}

/*
 * IXMOD_SETUP_EVENT_EXT: 64-byte events that carry the handle of what
 * they are about; a second context of this process on the same core, its
 * ring wrapped several times at that stride.
 */
TEST_F(ctx, event_ext)
{
	struct _test_data_ctx x;
	struct ixmod_event ev;
	uint64_t h;
	int i;

	memset(&x, 0, sizeof(x));
	x.cpu = self->cpu;
	x.fd = open(IXMOD_DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, x.fd);
	x.p.cpu = self->cpu;
	x.p.flags = IXMOD_SETUP_EVENT_EXT;
	x.p.call_entries = 16;
	x.p.event_entries = 16;
	x.p.txarena_size = 64 * 1024;
	ASSERT_EQ(0, ioctl(x.fd, IXMOD_IOC_SETUP, &x.p)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(sizeof(struct ixmod_event_ext), x.p.event_size);
	EXPECT_LE(x.p.event_off.entries + 16 * sizeof(struct ixmod_event_ext),
		  x.p.regions[IXMOD_REGION_EVENT_RING].size);
	for (i = 0; i < 2; i++) {
		x.map[i] = mmap(NULL, x.p.regions[i].size, PROT_READ | PROT_WRITE, MAP_SHARED,
				x.fd, (off_t)x.p.regions[i].mmap_offset);
		ASSERT_NE(MAP_FAILED, x.map[i]);
	}
	ring_init(&x.calls, x.map[IXMOD_REGION_CALL_RING], &x.p.call_off, 16);
	ring_init(&x.events, x.map[IXMOD_REGION_EVENT_RING], &x.p.event_off, 16);
	x.events.esize = x.p.event_size;

	ASSERT_EQ(0, call_res(&x, (struct ixmod_call){
		.opcode = IXMOD_OP_UDP_BIND, .port = htons(9300) }, &ev));
	h = ev.handle;
	EXPECT_EQ(IXMOD_HANDLE_UDP, IXMOD_HANDLE_KIND(h));
	EXPECT_EQ(h, x.ev_handle) TH_LOG("the bind's completion: its socket's handle");
	for (i = 0; i < 40; i++) {
		ASSERT_EQ(0, call_res(&x, (struct ixmod_call){ .opcode = IXMOD_OP_NOP }, &ev));
		EXPECT_EQ(0, x.ev_handle);
	}
	EXPECT_EQ(-EBADF, call_res(&x, (struct ixmod_call){
		.opcode = IXMOD_OP_UDP_CLOSE, .handle = h ^ (1ull << 32) }, &ev));
	EXPECT_EQ(h ^ (1ull << 32), x.ev_handle) TH_LOG("a failed call's: the handle it named");
	EXPECT_EQ(0, call_res(&x, (struct ixmod_call){
		.opcode = IXMOD_OP_UDP_CLOSE, .handle = h }, &ev));
	EXPECT_EQ(h, x.ev_handle) TH_LOG("after 40 more answers around the ring");
	for (i = 0; i < 2; i++)
		munmap(x.map[i], x.p.regions[i].size);
	close(x.fd);
}

TEST_F(ctx, setup_rejects_bad_fields)
{
	struct ixmod_setup p, good;
	int fd = open(IXMOD_DEV_PATH, O_RDWR | O_CLOEXEC);
	unsigned int i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ctx_attach(fd, self->cpu, &good) ? errno : 0);
	close(fd);
	fd = open(IXMOD_DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	/* each case alone; a failure must leave the file unattached */
	for (i = 0; i < 15; i++) {
		memset(&p, 0, sizeof(p));
		p.cpu = self->cpu;
		switch (i) {
		case 14:
			p.flags = IXMOD_SETUP_INET6;	/* needs IXMOD_SETUP_EVENT_EXT */
			break;
		case 12:
			p.event_size = 64;	/* an output: zero on input */
			break;
		case 13:
			p.__pad = 1;
			break;
		case 0:
			p.flags = 1U << 31;
			break;
		case 1:
			p.rxbuf_size = 1;
			break;
		case 2:
			p.features = 1;
			break;
		case 3:
			p.regions[2].size = 4096;
			break;
		case 4:
			p.regions[0].mmap_offset = 1;
			break;
		case 5:
			p.call_off.prod = 4;
			break;
		case 6:
			p.event_off.resv[3] = 1;
			break;
		case 7:
			p.resv[2] = 1;
			break;
		case 8:
			p.call_entries = module_info()->ring_entries_max + 1;
			break;
		case 9:
			p.event_entries = 0xffffffff;
			break;
		case 10:
			p.txarena_size = module_info()->txarena_max + 1;
			break;
		case 11:
			p.cpu = 0xffffffff;
			break;
		}
		EXPECT_EQ(-1, ioctl(fd, IXMOD_IOC_SETUP, &p)) TH_LOG("case %u accepted", i);
		EXPECT_EQ(EINVAL, errno) TH_LOG("case %u: %s", i, strerror(errno));
	}
	EXPECT_EQ(-1, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, IXMOD_OFF_CALL_RING) ==
		      MAP_FAILED ? -1 : 0);
	/* CLAMP turns the too-large sizes into the limits */
	memset(&p, 0, sizeof(p));
	p.cpu = self->cpu;
	p.flags = IXMOD_SETUP_CLAMP;
	p.call_entries = 100000;
	p.event_entries = 3;
	p.txarena_size = 0xffffffff;
	ASSERT_EQ(0, ioctl(fd, IXMOD_IOC_SETUP, &p)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(module_info()->ring_entries_max, p.call_entries);
	EXPECT_EQ(4, p.event_entries);	/* rounded up to a power of two */
	EXPECT_EQ(module_info()->txarena_max, p.txarena_size);
	EXPECT_EQ(module_info()->features, p.features);
	memset(&p, 0, sizeof(p));
	p.cpu = self->cpu;
	EXPECT_EQ(-1, ioctl(fd, IXMOD_IOC_SETUP, &p));
	EXPECT_EQ(EEXIST, errno);
	close(fd);
}

static sigjmp_buf segv_jmp;
static int segv_code;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	__atomic_store_n(&segv_code, si->si_code, __ATOMIC_RELAXED);
	siglongjmp(segv_jmp, 1);
}

TEST_F(ctx, mappings_are_checked)
{
	struct ixmod_region *rx = &self->p.regions[IXMOD_REGION_RXBUF];
	struct ixmod_region *cr = &self->p.regions[IXMOD_REGION_CALL_RING];
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO }, old;
	uint8_t *rxp = self->map[IXMOD_REGION_RXBUF];
	pid_t pid;
	int status;

	EXPECT_EQ(MAP_FAILED, mmap(NULL, cr->size + 4096, PROT_READ, MAP_SHARED, self->fd,
				   (off_t)cr->mmap_offset));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, cr->size, PROT_READ, MAP_SHARED, self->fd,
				   (off_t)cr->mmap_offset + 4096));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, rx->size - 4096, PROT_READ, MAP_SHARED, self->fd,
				   (off_t)rx->mmap_offset));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, rx->size, PROT_READ | PROT_WRITE, MAP_SHARED,
				   self->fd, (off_t)rx->mmap_offset));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, mprotect(self->map[IXMOD_REGION_RXBUF], rx->size, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);

	/* reading works; writing faults on protection, not on a missing page */
	(void)__atomic_load_n(&rxp[rx->size - 1], __ATOMIC_RELAXED);
	ASSERT_EQ(0, sigaction(SIGSEGV, &sa, &old));
	__atomic_store_n(&segv_code, 0, __ATOMIC_RELAXED);
	if (!sigsetjmp(segv_jmp, 1))
		__atomic_store_n(&rxp[100], 0x5a, __ATOMIC_RELAXED);
	sigaction(SIGSEGV, &old, NULL);
	EXPECT_EQ(SEGV_ACCERR, __atomic_load_n(&segv_code, __ATOMIC_RELAXED))
		TH_LOG("write to the receive region did not fault");

	/* a child shares the fd but gets no mapping, and cannot map one */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		void *m = mmap(NULL, cr->size, PROT_READ, MAP_SHARED, self->fd,
			       (off_t)cr->mmap_offset);

		_exit(m == MAP_FAILED && errno == EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("a child mapped its parent's context");
	EXPECT_EQ(0, call_res(self, (struct ixmod_call){ .opcode = IXMOD_OP_NOP }, NULL));
}

static const char *region_name(int i)
{
	static const char *const name[IXMOD_REGION_NR] = {
		[IXMOD_REGION_CALL_RING] = "call ring",
		[IXMOD_REGION_EVENT_RING] = "event ring",
		[IXMOD_REGION_RXBUF] = "receive region",
		[IXMOD_REGION_TXARENA] = "transmit arena",
	};

	return i >= 0 && i < IXMOD_REGION_NR && name[i] ? name[i] : "?";
}

/*
 * No page reference can be taken through a mapping: vmsplice(),
 * process_vm_readv(), io_uring's registered buffers and O_DIRECT all pin
 * pages with get_user_pages(), and each must fail with EFAULT on every
 * region (a pin would outlive the context and see the next owner's data).
 * Copies (write() to a pipe) keep working.
 */
TEST_F(ctx, regions_cannot_be_pinned)
{
	const char *odpath = getenv("IXMOD_ODIRECT_PATH");
	struct io_uring_params up = { 0 };
	int pfd[2], ring, od, i;
	char buf[4096];

	if (odpath && !*odpath)
		odpath = NULL;
	ASSERT_EQ(0, pipe(pfd));
	ring = (int)syscall(__NR_io_uring_setup, 4, &up);
	if (ring < 0)
		TH_LOG("io_uring unavailable (%s): registered buffers not tried", strerror(errno));
	/* a block device: tmpfs "supports" O_DIRECT by copying */
	od = odpath ? open(odpath, O_WRONLY | O_DIRECT) : -1;
	if (od < 0)
		TH_LOG("no O_DIRECT block device (%s): O_DIRECT not tried",
		       odpath ? strerror(errno) : "IXMOD_ODIRECT_PATH unset");
	for (i = 0; i < IXMOD_REGION_NR; i++) {
		struct iovec iov = { .iov_base = self->map[i], .iov_len = 4096 };
		struct iovec local = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct iovec whole = { .iov_base = self->map[i],
				       .iov_len = self->p.regions[i].size };

		errno = 0;
		EXPECT_EQ(-1, vmsplice(pfd[1], &iov, 1, 0))
			TH_LOG("vmsplice pinned the %s", region_name(i));
		EXPECT_EQ(EFAULT, errno);
		errno = 0;
		EXPECT_EQ(-1, process_vm_readv(getpid(), &local, 1, &iov, 1, 0))
			TH_LOG("process_vm_readv pinned the %s", region_name(i));
		EXPECT_EQ(EFAULT, errno);
		if (ring >= 0) {
			errno = 0;
			EXPECT_GT(0, (int)syscall(__NR_io_uring_register, ring,
						  IORING_REGISTER_BUFFERS, &whole, 1))
				TH_LOG("io_uring registered the %s", region_name(i));
			EXPECT_EQ(EFAULT, errno);
		}
		if (od >= 0) {
			errno = 0;
			EXPECT_EQ(-1, pwrite(od, self->map[i], 4096, 0))
				TH_LOG("O_DIRECT wrote from the %s", region_name(i));
			EXPECT_EQ(EFAULT, errno);
		}
		/* a copy is fine */
		EXPECT_EQ(64, write(pfd[1], self->map[i], 64));
		EXPECT_EQ(64, read(pfd[0], buf, 64));
		EXPECT_EQ(0, memcmp(buf, self->map[i], 64)) TH_LOG("%s", region_name(i));
	}
	if (od >= 0)
		close(od);
	if (ring >= 0)
		close(ring);
	close(pfd[0]);
	close(pfd[1]);
	EXPECT_EQ(0, call_res(self, (struct ixmod_call){ .opcode = IXMOD_OP_NOP }, NULL));
}

/*
 * MADV_DOFORK would clear VM_DONTCOPY and let a forked child inherit the
 * rings and run calls on the parent's context: it must fail on every
 * region, and a child must find none of them mapped.
 */
TEST_F(ctx, regions_are_not_inherited)
{
	pid_t pid;
	int status, i;

	for (i = 0; i < IXMOD_REGION_NR; i++) {
		errno = 0;
		EXPECT_EQ(-1, madvise(self->map[i], self->p.regions[i].size, MADV_DOFORK))
			TH_LOG("MADV_DOFORK accepted on the %s", region_name(i));
		EXPECT_EQ(EINVAL, errno);
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int bad = 0;

		/* msync() fails with ENOMEM on a range that is not mapped */
		for (i = 0; i < IXMOD_REGION_NR; i++)
			if (msync(self->map[i], self->p.regions[i].size, MS_ASYNC) == 0 ||
			    errno != ENOMEM)
				bad |= 1 << i;
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child inherited regions (mask %#x)", WEXITSTATUS(status));
	EXPECT_EQ(0, call_res(self, (struct ixmod_call){ .opcode = IXMOD_OP_NOP }, NULL));
}

/*
 * MADV_DONTNEED is refused on a PFN mapping (EINVAL: nothing is dropped),
 * and mremap() moves a region: the pages stay the same, with what they
 * held (no SIGBUS), and the rings keep working.
 */
TEST_F(ctx, regions_stay_put_and_move)
{
	struct ixmod_region *ta = &self->p.regions[IXMOD_REGION_TXARENA];
	struct ixmod_region *rx = &self->p.regions[IXMOD_REGION_RXBUF];
	uint8_t *arena = self->map[IXMOD_REGION_TXARENA];
	uint8_t *rxp;
	uint8_t sum = 0;
	size_t j;
	void *to;
	int i;

	for (j = 0; j < ta->size; j++)
		arena[j] = (uint8_t)(j * 7 + 3);
	for (i = 0; i < IXMOD_REGION_NR; i++)
		EXPECT_EQ(-1, madvise(self->map[i], self->p.regions[i].size, MADV_DONTNEED))
			TH_LOG("MADV_DONTNEED accepted on the %s", region_name(i));
	for (j = 0; j < ta->size; j++)
		if (arena[j] != (uint8_t)(j * 7 + 3))
			break;
	EXPECT_EQ((size_t)ta->size, j) TH_LOG("the arena lost its bytes at %zu", j);
	EXPECT_EQ(0, call_res(self, (struct ixmod_call){ .opcode = IXMOD_OP_NOP }, NULL));

	/* move the receive region elsewhere and read every page of it */
	to = mmap(NULL, rx->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, to);
	to = mremap(self->map[IXMOD_REGION_RXBUF], rx->size, rx->size,
		    MREMAP_MAYMOVE | MREMAP_FIXED, to);
	ASSERT_NE(MAP_FAILED, to) TH_LOG("mremap: %s", strerror(errno));
	self->map[IXMOD_REGION_RXBUF] = to;
	rxp = to;
	for (j = 0; j < rx->size; j += 4096)
		sum += __atomic_load_n(&rxp[j], __ATOMIC_RELAXED);
	TH_LOG("read %zu pages of the moved receive region (sum %u)", (size_t)rx->size / 4096,
	       sum);
	EXPECT_EQ(0, call_res(self, (struct ixmod_call){ .opcode = IXMOD_OP_NOP }, NULL));
}

/* A private (copy-on-write) mapping of a region is refused. */
TEST_F(ctx, private_mappings_refused)
{
	int i;

	for (i = 0; i < IXMOD_REGION_NR; i++) {
		errno = 0;
		EXPECT_EQ(MAP_FAILED, mmap(NULL, self->p.regions[i].size, PROT_READ, MAP_PRIVATE,
					   self->fd, (off_t)self->p.regions[i].mmap_offset))
			TH_LOG("%s mapped MAP_PRIVATE", region_name(i));
		EXPECT_EQ(EINVAL, errno);
	}
}

TEST_F(ctx, forged_handles_and_bounds)
{
	uint64_t h = bind_port(self, 9100), h2;
	struct ixmod_call c;
	uint32_t arena = self->p.txarena_size;
	__be32 peer = htonl(0xc6120002);	/* 198.18.0.2 */

	ASSERT_NE(0, h);
	c = (struct ixmod_call){ .opcode = IXMOD_OP_UDP_SEND, .handle = h, .len = 8,
				 .addr = peer, .port = htons(9) };
	c.handle = h ^ (1ull << 32);
	EXPECT_EQ(-EBADF, call_res(self, c, NULL));
	c.handle = h + 1;
	EXPECT_EQ(-EBADF, call_res(self, c, NULL));
	c.handle = 0;
	EXPECT_EQ(-EBADF, call_res(self, c, NULL));
	/* typed handles: a socket's handle is of its kind, and only that */
	EXPECT_EQ(IXMOD_HANDLE_UDP, IXMOD_HANDLE_KIND(h));
	c.handle = (h & ~(0xffull << IXMOD_HANDLE_KIND_SHIFT)) |
		   (uint64_t)IXMOD_HANDLE_TCP << IXMOD_HANDLE_KIND_SHIFT;
	EXPECT_EQ(-EBADF, call_res(self, c, NULL));
	EXPECT_EQ(-EBADF, call_res(self, (struct ixmod_call){
		.opcode = IXMOD_OP_TCP_CLOSE, .handle = h }, NULL));
	EXPECT_EQ(-EBADF, call_res(self, (struct ixmod_call){
		.opcode = IXMOD_OP_TCP_CLOSE, .flags = IXMOD_CALL_F_ABORT, .handle = h }, NULL));
	c.handle = h;
	c.off = arena - 1;
	c.len = 2;
	EXPECT_EQ(-EINVAL, call_res(self, c, NULL));
	c.off = 0xffffffff;
	EXPECT_EQ(-EINVAL, call_res(self, c, NULL));
	c.off = 0;
	c.len = 1473;
	EXPECT_EQ(-EMSGSIZE, call_res(self, c, NULL));
	c.len = 8;
	c.addr = htonl(0x7f000001);
	EXPECT_EQ(-EINVAL, call_res(self, c, NULL));
	c.addr = peer;
	c.pos = 1;	/* without IXMOD_CALL_F_POS */
	EXPECT_EQ(-EINVAL, call_res(self, c, NULL));
	c.pos = 0;
	c.opcode = (uint8_t)op_nr();
	EXPECT_EQ(-EOPNOTSUPP, call_res(self, c, NULL));
	EXPECT_EQ(-EADDRINUSE, call_res(self, (struct ixmod_call){
		.opcode = IXMOD_OP_UDP_BIND, .port = htons(9100) }, NULL));
	EXPECT_EQ(-EINVAL, call_res(self, (struct ixmod_call){
		.opcode = IXMOD_OP_RECV_DONE, .off = 0xfffffff0 }, NULL));
	EXPECT_EQ(-ENOENT, call_res(self, (struct ixmod_call){
		.opcode = IXMOD_OP_RECV_DONE, .off = 0 }, NULL));
	EXPECT_EQ(0, call_res(self, (struct ixmod_call){
		.opcode = IXMOD_OP_UDP_CLOSE, .handle = h }, NULL));
	EXPECT_EQ(-EBADF, call_res(self, (struct ixmod_call){
		.opcode = IXMOD_OP_UDP_CLOSE, .handle = h }, NULL));
	h2 = bind_port(self, 9100);
	EXPECT_NE(0, h2);
	EXPECT_NE(h, h2);	/* same slot, new generation */
}

TEST_F(ctx, tampered_indices)
{
	unsigned int cpu = self->cpu;
	unsigned long long corrupt0 = core_stat(cpu, "app_ring_corrupt");
	struct ixmod_event ev;
	uint32_t kcons;
	int i;

	/* a producer index far ahead of anything written */
	__atomic_store_n(self->calls.prod, self->call_prod + 1000000, __ATOMIC_RELEASE);
	ioctl(self->fd, IXMOD_IOC_WAKE, 0);
	ixt_msleep(300);
	EXPECT_LT(corrupt0, core_stat(cpu, "app_ring_corrupt"));
	/*
	 * The kernel ran whatever sat in the slots (zeroes: NOPs) until the
	 * event ring and its hold-back queue filled, and then stopped: it
	 * takes no call it could not answer.  Resynchronise on its consumer
	 * index once that stands still, drain, and the context works again.
	 */
	do {
		kcons = __atomic_load_n(self->calls.cons, __ATOMIC_ACQUIRE);
		ixt_msleep(100);
	} while (kcons != __atomic_load_n(self->calls.cons, __ATOMIC_ACQUIRE));
	self->call_prod = kcons;
	__atomic_store_n(self->calls.prod, kcons, __ATOMIC_RELEASE);
	for (i = 0; i < 100000 && next_event(self, &ev, 200); i++)
		;
	EXPECT_EQ(0, call_res(self, (struct ixmod_call){ .opcode = IXMOD_OP_NOP }, NULL));

	/* an event consumer index ahead of the producer, then far behind */
	corrupt0 = core_stat(cpu, "app_ring_corrupt");
	__atomic_store_n(self->events.cons, self->event_cons + 5, __ATOMIC_RELEASE);
	EXPECT_TRUE(submit(self, &(struct ixmod_call){ .opcode = IXMOD_OP_NOP,
						       .user_data = 1 }));
	ixt_msleep(200);
	EXPECT_LT(corrupt0, core_stat(cpu, "app_ring_corrupt"));
	EXPECT_EQ(self->event_cons, __atomic_load_n(self->events.prod, __ATOMIC_ACQUIRE))
		TH_LOG("the kernel wrote events into slots it was told were free");
	__atomic_store_n(self->events.cons, self->event_cons - 1000, __ATOMIC_RELEASE);
	ixt_msleep(100);
	__atomic_store_n(self->events.cons, self->event_cons, __ATOMIC_RELEASE);
	/* the held NOP arrives once the index is sane again */
	ASSERT_TRUE(next_event(self, &ev, 3000));
	EXPECT_EQ(1, ev.user_data);

	/* the flag words are the kernel's to write; it never reads them back */
	__atomic_store_n(self->calls.flags, 0xffffffff, __ATOMIC_RELAXED);
	__atomic_store_n(self->events.flags, 0xffffffff, __ATOMIC_RELAXED);
	{
		struct pollfd pfd = { .fd = self->fd, .events = POLLIN };

		EXPECT_EQ(0, poll(&pfd, 1, 0) > 0 ? pfd.revents & POLLERR : 0)
			TH_LOG("a DEAD bit written by the application made poll report an error");
	}
	EXPECT_EQ(0, call_res(self, (struct ixmod_call){ .opcode = IXMOD_OP_NOP }, NULL));
}

/* Errors every call of this shape must get, or 1 for "any answer". */
/* ABORT is TCP_CLOSE's; POS the sends', TCP_CLOSE's and TCP_SHUTDOWN's */
static bool flag_taken(uint8_t op, uint8_t flag)
{
	if (flag == IXMOD_CALL_F_ABORT)
		return op == IXMOD_OP_TCP_CLOSE;
	if (flag == IXMOD_CALL_F_POS)
		return op == IXMOD_OP_TCP_SEND || op == IXMOD_OP_TCP_SENDV ||
		       op == IXMOD_OP_TCP_CLOSE || op == IXMOD_OP_TCP_SHUTDOWN;
	return false;
}

static int random_call(struct ixmod_call *c, uint64_t handle, uint32_t arena,
		       uint32_t rxsize)
{
	uint32_t r = (uint32_t)random();

	memset(c, 0, sizeof(*c));
	switch (r % 10) {
	case 0:		/* raw garbage */
		for (size_t i = 0; i < sizeof(*c); i++)
			((uint8_t *)c)[i] = (uint8_t)random();
		c->opcode = (uint8_t)(op_nr() + random() % (256 - op_nr()));
		return -EOPNOTSUPP;
	case 1:		/* a valid opcode with a reserved field set */
		c->opcode = (uint8_t)(random() % op_nr());
		c->resv3[random() % 3] = (uint64_t)random() | 1;
		return -EINVAL;
	case 2:		/* a forged handle */
		c->opcode = IXMOD_OP_UDP_CLOSE;
		c->handle = ((uint64_t)random() << 32 | (uint64_t)random()) ^ handle;
		if (c->handle == handle)
			c->handle++;
		return -EBADF;
	case 3:		/* outside the arena */
		c->opcode = IXMOD_OP_UDP_SEND;
		c->handle = handle;
		c->len = 1 + (uint32_t)random() % 1472;
		c->off = arena - c->len + 1 + (uint32_t)random() % 0x10000;
		c->addr = htonl(0xc6120002);
		c->port = htons(9);
		return -EINVAL;
	case 4:		/* a receive buffer outside the region */
		c->opcode = IXMOD_OP_RECV_DONE;
		c->off = rxsize + (uint32_t)random() % 0x100000;
		return -EINVAL;
	case 5:		/* any buffer: held or not */
		c->opcode = IXMOD_OP_RECV_DONE;
		c->off = (uint32_t)random() % rxsize;
		return 1;
	case 6:		/* a valid send (the peer drops it) */
		c->opcode = IXMOD_OP_UDP_SEND;
		c->handle = handle;
		c->len = (uint32_t)random() % 1473;
		c->off = (uint32_t)random() % (arena - c->len);
		c->addr = htonl(0xc6120002);
		c->port = htons(9);
		c->flags = IXMOD_CALL_F_NOTIFY;
		return 1;
	case 7:		/* flag bits the opcode does not take */
		c->opcode = (uint8_t)(random() % op_nr());
		do {
			c->flags = (uint8_t)(2 << (random() % 7));
		} while (flag_taken(c->opcode, c->flags));
		return -EINVAL;
	case 8:		/* binds anywhere */
		c->opcode = IXMOD_OP_UDP_BIND;
		c->port = (uint16_t)random();
		return 1;
	default:
		c->opcode = IXMOD_OP_NOP;
		return 0;
	}
}

TEST_F_TIMEOUT(ctx, garbage_for_a_while, 300)
{
	unsigned int seconds = env_uint("IXMOD_HOSTILE_SECONDS", 10);
	uint16_t port = (uint16_t)env_uint("IXMOD_UDP_PORT", 9000);
	uint32_t rxsize = (uint32_t)self->p.regions[IXMOD_REGION_RXBUF].size;
	uint32_t nr = 65536, held = 0;	/* ids in flight: far fewer */
	int *want = calloc(nr, sizeof(*want));
	uint64_t *sent = calloc(nr, sizeof(*sent));
	unsigned long calls = 0, answered = 0, recvs = 0, wrong = 0;
	struct timespec t0, t;
	struct ixmod_event ev;
	uint64_t h;

	ASSERT_TRUE(want && sent);
	h = bind_port(self, port);
	ASSERT_NE(0, h);
	srandom((unsigned int)getpid());
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct ixmod_call c;
		int expect = random_call(&c, h, self->p.txarena_size, rxsize);
		uint64_t id = ++self->seq;

		c.user_data = MAGIC | id;
		if (submit(self, &c)) {
			want[id % nr] = expect;
			sent[id % nr] = c.user_data;
			calls++;
		}
		for (int k = 0; k < 256 && next_event(self, &ev, k || calls % 64 ? 0 : 20); k++) {
			if (ev.type == IXMOD_EV_UDP_RECV) {
				recvs++;
				/* return half of them; keep the rest held at close */
				if (recvs % 2 && held < 1000) {
					held++;
					continue;
				}
				submit(self, &(struct ixmod_call){ .opcode = IXMOD_OP_RECV_DONE,
								   .off = ev.off });
				continue;
			}
			if (ev.type == IXMOD_EV_CALL && !ev.user_data) {
				/* our own RECV_DONE of a buffer a random one returned */
				if (ev.res != -ENOENT && wrong++ < 5)
					TH_LOG("RECV_DONE of a received buffer: %d", ev.res);
				continue;
			}
			if (ev.type != IXMOD_EV_CALL || (ev.user_data & ~0xffffffffffffull) != MAGIC) {
				if (wrong++ < 5)
					TH_LOG("event type %u with user_data %llx", ev.type,
					       (unsigned long long)ev.user_data);
				continue;
			}
			answered++;
			id = ev.user_data & 0xffffffffffffull;
			if (sent[id % nr] != ev.user_data ||
			    (want[id % nr] != 1 && want[id % nr] != ev.res)) {
				if (wrong++ < 5)
					TH_LOG("call %llu (op %u): res %d, expected %d",
					       (unsigned long long)id, ev.op, ev.res, want[id % nr]);
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < (time_t)seconds);
	TH_LOG("%lu calls, %lu answered, %lu datagrams received, %u held at close",
	       calls, answered, recvs, held);
	EXPECT_EQ(0, wrong);
	EXPECT_LT(1000, calls);
	EXPECT_LT(0, answered);
	EXPECT_EQ(0, call_res(self, (struct ixmod_call){ .opcode = IXMOD_OP_NOP }, NULL));
	free(want);
	free(sent);
}

int main(int argc, char **argv)
{
	return ixt_harness_run(argc, argv);
}
