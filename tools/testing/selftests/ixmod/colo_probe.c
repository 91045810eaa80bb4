// SPDX-License-Identifier: GPL-2.0
/*
 * colo_probe.c - IXMOD_IOC_RUN's rules, through the raw ABI: a thread not
 * bound to the core's CPU alone is refused (-EINVAL), a second thread is
 * refused while the first is alive (-EBUSY) and takes over once it has
 * exited, a signal ends a sleeping call at once (-EINTR), a call with
 * nothing to do ends at its timeout (-ETIME), and nonzero reserved fields
 * are refused.
 *
 * Needs ixmod loaded and a port up on the core IXMOD_CPU (default: the
 * first of /sys/kernel/ixmod/cores); test_colo_01.sh sets that up.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <time.h>

#include <linux/ixmod.h>

#include "kselftest_harness.h"
#include "ixmod_test.h"

static unsigned int test_cpu(void)
{
	char buf[64] = "";

	if (getenv("IXMOD_CPU"))
		return (unsigned int)strtoul(getenv("IXMOD_CPU"), NULL, 0);
	ixt_read(IXM_SYSFS "/cores", buf, sizeof(buf));
	return (unsigned int)strtoul(buf, NULL, 10);
}

static int pin(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int unpin(void)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN), i;

	CPU_ZERO(&set);
	for (i = 0; i < n; i++)
		CPU_SET(i, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* IXMOD_IOC_RUN for at most @ns with nothing expected; the errno, or 0. */
static int run(int fd, uint64_t ns)
{
	struct ixmod_run r = { .min_events = 1, .timeout_ns = ns };

	return ioctl(fd, IXMOD_IOC_RUN, &r) < 0 ? errno : 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

FIXTURE(colo) {
	int fd;
	unsigned int cpu;
};

FIXTURE_SETUP(colo)
{
	struct ixmod_setup p = { .call_entries = 64, .event_entries = 64,
				 .txarena_size = 64 * 1024 };

	self->cpu = test_cpu();
	p.cpu = self->cpu;
	self->fd = open(IXMOD_DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ioctl(self->fd, IXMOD_IOC_SETUP, &p))
		TH_LOG("setup on cpu %u: %s (is a port up on it?)", self->cpu, strerror(errno));
	ASSERT_TRUE(p.features & IXMOD_FEAT_RUN);
}

FIXTURE_TEARDOWN(colo)
{
	close(self->fd);
	unpin();
}

TEST_F(colo, unbound_thread_refused)
{
	ASSERT_EQ(0, unpin());
	EXPECT_EQ(EINVAL, run(self->fd, 0)) TH_LOG("a thread free to run anywhere");
}

TEST_F(colo, reserved_fields_refused)
{
	struct ixmod_run r = { .flags = 1 };

	ASSERT_EQ(0, pin(self->cpu));
	EXPECT_EQ(-1, ioctl(self->fd, IXMOD_IOC_RUN, &r));
	EXPECT_EQ(EINVAL, errno);
	memset(&r, 0, sizeof(r));
	r.resv[1] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, IXMOD_IOC_RUN, &r));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(colo, idle_call_ends_at_its_timeout)
{
	struct ixmod_run r = { .min_events = 1, .timeout_ns = 200 * 1000 * 1000 };
	double t0;

	ASSERT_EQ(0, pin(self->cpu));
	t0 = now_s();
	EXPECT_EQ(-1, ioctl(self->fd, IXMOD_IOC_RUN, &r));
	EXPECT_EQ(ETIME, errno);
	EXPECT_GE(now_s() - t0, 0.19);
	EXPECT_LT(now_s() - t0, 5.0 * ixt_timeout_scale());
	EXPECT_LT(0, r.iterations) TH_LOG("the loop ran in this thread");
	r.timeout_ns = 0;
	r.iterations = 0;
	EXPECT_EQ(-1, ioctl(self->fd, IXMOD_IOC_RUN, &r));
	EXPECT_EQ(ETIME, errno);
	EXPECT_EQ(1, r.iterations) TH_LOG("timeout 0: one iteration");
}

struct sleeper {
	int fd;
	unsigned int cpu;
	int err;
	double took;
};

static void on_usr1(int sig)
{
}

static void *sleeper_run(void *arg)
{
	struct sleeper *s = arg;
	double t0;

	if (pin(s->cpu)) {
		s->err = errno;
		return NULL;
	}
	t0 = now_s();
	s->err = run(s->fd, 20ULL * 1000 * 1000 * 1000);
	s->took = now_s() - t0;
	return NULL;
}

TEST_F(colo, second_thread_busy_signal_ends_sleep_then_takeover)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	struct sleeper s = { .fd = self->fd, .cpu = self->cpu };
	pthread_t t;

	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, pthread_create(&t, NULL, sleeper_run, &s));
	usleep(300 * 1000);
	ASSERT_EQ(0, pin(self->cpu));
	EXPECT_EQ(EBUSY, run(self->fd, 0)) TH_LOG("another thread runs the core");
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	EXPECT_EQ(EINTR, s.err) TH_LOG("the sleeping call ends on a signal");
	EXPECT_LT(s.took, 10.0) TH_LOG("long before its 20 s timeout (%.2f s)", s.took);
	EXPECT_EQ(ETIME, run(self->fd, 0)) TH_LOG("the first thread is gone: this one takes over");
}

int main(int argc, char **argv)
{
	return ixt_harness_run(argc, argv);
}
