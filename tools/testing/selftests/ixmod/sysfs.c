// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - /sys/kernel/ixmod: cores, idle_us and the per-core directories
 *
 * Every attribute is driven with good and bad input.  A bad write must
 * return the documented errno, log exactly one line naming the attribute,
 * and change nothing: the value reads back the same and the same threads
 * (same pids) still run.  Each dataplane thread must be bound to exactly
 * its core, and user space must not be able to move it.
 *
 * The VM boots with isolcpus=2 nohz_full=2 and at least 3 CPUs: cpu 1 is
 * a non-isolated dataplane candidate, cpu 2 an isolated one.
 */
#include <dirent.h>
#include <sched.h>
#include <sys/wait.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "ixmod_test.h"

FIXTURE(ixm) {
	struct ixt_kmsg kmsg;
};

/*
 * Every cpu online again: a test killed by its timeout while it had one
 * offline (offline_cpu_refused) must not fail every test after it.
 */
static void cpus_all_online(void)
{
	char path[64];
	int cpu;

	for (cpu = 1; cpu < 64; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
		if (!ixt_path_exists(path))
			break;
		if (ixt_read_u64("%s", path) == 0)
			ixt_write(path, "1");
	}
}

FIXTURE_SETUP(ixm)
{
	ASSERT_TRUE(ixt_path_exists(IXM_SYSFS "/cores"))
		TH_LOG("ixmod is not loaded (insmod ixmod.ko first)");
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "\n"));
	cpus_all_online();
	ASSERT_GE(ixt_nr_online_cpus(), 3)
		TH_LOG("these tests need 3 online cpus");
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/idle_us", "1000"));
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/idle_looks", "16"));
	ASSERT_EQ(0, ixt_kmsg_open(&self->kmsg));
}

FIXTURE_TEARDOWN(ixm)
{
	char why[512];

	EXPECT_EQ(0, ixt_write(IXM_SYSFS "/cores", "\n"));
	EXPECT_EQ(0, ixt_write(IXM_SYSFS "/idle_us", "1000"));
	EXPECT_EQ(0, ixt_write(IXM_SYSFS "/idle_looks", "16"));
	EXPECT_EQ(0, ixt_kmsg_check(&self->kmsg, why, sizeof(why)))
		TH_LOG("%s", why);
	ixt_kmsg_close(&self->kmsg);
}

static void cores_read(char *buf, size_t len)
{
	if (ixt_read(IXM_SYSFS "/cores", buf, len))
		snprintf(buf, len, "<unreadable>");
}

static int core_pid(int cpu)
{
	unsigned long long pid = ixt_read_u64(IXM_DP "/cpu%d/pid", cpu);

	return pid == ~0ULL ? -1 : (int)pid;
}

/* Cpus_allowed_list of @pid, e.g. "2". */
static int pid_allowed_list(int pid, char *out, size_t len)
{
	char path[64], line[256];
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Cpus_allowed_list: %255s", out) == 1) {
			ret = 0;
			break;
		}
	}
	fclose(f);
	(void)len;
	return ret;
}

/* Number of live tasks named "ixmod/N". */
/*
 * Threads named ixmod/N: the processes /proc lists (kernel threads are
 * their own), not every possible pid, which cost 65,535 failed opens a
 * call: minutes on the debug kernel.
 */
static int count_dp_threads(void)
{
	char path[300], comm[64];
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		if (!ixt_read(path, comm, sizeof(comm)) && !strncmp(comm, "ixmod/", 6))
			n++;
	}
	closedir(d);
	return n;
}

/* The thread of @cpu exists, is named ixmod/@cpu and may run only there. */
static void check_thread_placement(struct __test_metadata *_metadata, int cpu)
{
	char path[64], buf[64], want[32];
	int pid = core_pid(cpu);

	ASSERT_GT(pid, 0) TH_LOG("no pid for cpu %d", cpu);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	ASSERT_EQ(0, ixt_read(path, buf, sizeof(buf)));
	snprintf(want, sizeof(want), "ixmod/%d", cpu);
	EXPECT_STREQ(want, buf);
	ASSERT_EQ(0, pid_allowed_list(pid, buf, sizeof(buf)));
	snprintf(want, sizeof(want), "%d", cpu);
	EXPECT_STREQ(want, buf) TH_LOG("thread of cpu %d may run on %s", cpu, buf);
}

TEST_F(ixm, assign_one_core)
{
	char buf[64];

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "1"));
	cores_read(buf, sizeof(buf));
	EXPECT_STREQ("1", buf);
	EXPECT_TRUE(ixt_path_exists(IXM_DP "/cpu1"));
	EXPECT_FALSE(ixt_path_exists(IXM_DP "/cpu2"));
	check_thread_placement(_metadata, 1);
	EXPECT_EQ(1, count_dp_threads());

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "\n"));
	cores_read(buf, sizeof(buf));
	EXPECT_STREQ("", buf);
	EXPECT_FALSE(ixt_path_exists(IXM_DP "/cpu1"));
	EXPECT_EQ(0, count_dp_threads()) TH_LOG("threads left after release");
}

TEST_F(ixm, assign_range_places_each_thread)
{
	char buf[64];

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "1-2\n"));
	cores_read(buf, sizeof(buf));
	EXPECT_STREQ("1-2", buf);
	check_thread_placement(_metadata, 1);
	check_thread_placement(_metadata, 2);
	EXPECT_EQ(2, count_dp_threads());
	EXPECT_NE(core_pid(1), core_pid(2));
}

TEST_F(ixm, replace_keeps_unchanged_threads)
{
	char buf[64];
	int pid2;

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "1-2"));
	pid2 = core_pid(2);
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "2"));
	cores_read(buf, sizeof(buf));
	EXPECT_STREQ("2", buf);
	EXPECT_EQ(pid2, core_pid(2)) TH_LOG("cpu 2's thread was restarted");
	EXPECT_FALSE(ixt_path_exists(IXM_DP "/cpu1"));
	EXPECT_EQ(1, count_dp_threads());
}

TEST_F(ixm, add_and_remove)
{
	char buf[64];

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "+1"));
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "+2"));
	cores_read(buf, sizeof(buf));
	EXPECT_STREQ("1-2", buf);
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "-1"));
	cores_read(buf, sizeof(buf));
	EXPECT_STREQ("2", buf);
	check_thread_placement(_metadata, 2);
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "-2"));
	cores_read(buf, sizeof(buf));
	EXPECT_STREQ("", buf);
	EXPECT_EQ(0, count_dp_threads());
}

/*
 * Bad writes, each from the state "cores = 1": errno, one log line, no
 * change.  %d is replaced by the number of online cpus minus one.
 */
static const struct {
	const char *input;
	int err;
	const char *why;
} bad_cores[] = {
	{ "abc",	EINVAL, "garbage" },
	{ "1-",		EINVAL, "open range" },
	{ "2-1",	EINVAL, "reversed range" },
	{ "1,x",	EINVAL, "garbage after a cpu" },
	{ "99",		EINVAL, "cpu that does not exist" },
	{ "100000",	EINVAL, "cpu beyond any cpumask" },
	{ "0-%d",	EINVAL, "every online cpu: none left for Linux" },
	{ "+1",		EBUSY,  "adding a core that is already a dataplane core" },
	{ "+1-2",	EBUSY,  "adding a list with one owned core" },
	{ "-2",		EINVAL, "removing a core that is not assigned" },
	{ "+",		EINVAL, "add nothing" },
	{ "-",		EINVAL, "remove nothing" },
	{ "+99",	EINVAL, "adding a cpu that does not exist" },
};

/* each bad value reads cores, the threads and the log: slow on a loaded host */
TEST_F_TIMEOUT(ixm, bad_cores_change_nothing, 180)
{
	char buf[64], log[4096], input[32];
	int pid1;
	size_t i;

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "1"));
	pid1 = core_pid(1);
	ixt_kmsg_read(&self->kmsg, NULL, NULL, 0);	/* mark */

	for (i = 0; i < ARRAY_SIZE(bad_cores); i++) {
		int nlines;

		snprintf(input, sizeof(input), bad_cores[i].input,
			 ixt_nr_online_cpus() - 1);
		EXPECT_EQ(-bad_cores[i].err, ixt_write(IXM_SYSFS "/cores", input))
			TH_LOG("'%s' (%s) should fail with %s", input,
			       bad_cores[i].why, strerror(bad_cores[i].err));
		cores_read(buf, sizeof(buf));
		EXPECT_STREQ("1", buf) TH_LOG("'%s' changed cores to '%s'", input, buf);
		EXPECT_EQ(pid1, core_pid(1)) TH_LOG("'%s' restarted cpu 1's thread", input);
		EXPECT_EQ(1, count_dp_threads()) TH_LOG("'%s' changed the threads", input);
		nlines = ixt_kmsg_read(&self->kmsg, "ixmod: cores:", log, sizeof(log));
		EXPECT_EQ(1, nlines) TH_LOG("'%s' logged %d lines:\n%s", input, nlines, log);
	}
}

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

TEST_F(ixm, offline_cpu_refused)
{
	char buf[64], log[1024];

	if (!ixt_path_exists(CPU1_ONLINE))
		SKIP(return, "cpu 1 cannot be taken offline here");
	ASSERT_EQ(0, ixt_write(CPU1_ONLINE, "0"));
	ixt_kmsg_read(&self->kmsg, NULL, NULL, 0);

	EXPECT_EQ(-EINVAL, ixt_write(IXM_SYSFS "/cores", "1-2"));
	EXPECT_EQ(1, ixt_kmsg_read(&self->kmsg, "ixmod: cores: cpu 1 is offline",
				   log, sizeof(log)));
	cores_read(buf, sizeof(buf));
	EXPECT_STREQ("", buf);
	EXPECT_EQ(0, count_dp_threads());

	ASSERT_EQ(0, ixt_write(CPU1_ONLINE, "1"));
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "1-2"));
	check_thread_placement(_metadata, 1);
}

TEST_F(ixm, dataplane_core_stays_online)
{
	char buf[64], log[1024];

	if (!ixt_path_exists(CPU1_ONLINE))
		SKIP(return, "cpu 1 cannot be taken offline here");
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "1"));
	ixt_kmsg_read(&self->kmsg, NULL, NULL, 0);

	EXPECT_EQ(-EBUSY, ixt_write(CPU1_ONLINE, "0"));
	EXPECT_EQ(1, ixt_kmsg_read(&self->kmsg, "ixmod: cpu 1 is a dataplane core",
				   log, sizeof(log)));
	ASSERT_EQ(0, ixt_read(CPU1_ONLINE, buf, sizeof(buf)));
	EXPECT_STREQ("1", buf);
	check_thread_placement(_metadata, 1);

	/* released, it may go offline and come back */
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "\n"));
	EXPECT_EQ(0, ixt_write(CPU1_ONLINE, "0"));
	EXPECT_EQ(0, ixt_write(CPU1_ONLINE, "1"));
}

TEST_F(ixm, isolation_warning)
{
	char log[1024];

	ixt_kmsg_read(&self->kmsg, NULL, NULL, 0);
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "2"));
	EXPECT_EQ(0, ixt_kmsg_read(&self->kmsg, "is not isolated", log, sizeof(log)))
		TH_LOG("cpu 2 is isolated (isolcpus=2 nohz_full=2) yet: %s", log);
	EXPECT_EQ(1, ixt_read_u64(IXM_DP "/cpu2/isolated"));

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "+1"));
	EXPECT_EQ(1, ixt_kmsg_read(&self->kmsg, "ixmod: cores: cpu 1 is not isolated",
				   log, sizeof(log)));
	EXPECT_EQ(0, ixt_read_u64(IXM_DP "/cpu1/isolated"));
}

TEST_F(ixm, thread_cannot_be_moved)
{
	cpu_set_t set;
	int pid;

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "1"));
	pid = core_pid(1);
	ASSERT_GT(pid, 0);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	EXPECT_EQ(-1, sched_setaffinity(pid, sizeof(set), &set));
	EXPECT_EQ(EINVAL, errno);
	check_thread_placement(_metadata, 1);
}

struct attr_case {
	const char *input;
	const char *readback;	/* NULL: must fail with EINVAL */
};

static const struct attr_case idle_us_cases[] = {
	{ "0",		"0" },
	{ "1",		"1" },
	{ "250\n",	"250" },
	{ "10000000",	"10000000" },
	{ "10000001",	NULL },	/* above the 10 s maximum */
	{ "-1",		NULL },
	{ "abc",	NULL },
	{ "1.5",	NULL },
	{ "0x10",	NULL },	/* decimal only */
	{ "\n",		NULL },	/* empty */
	{ "99999999999999999999", NULL },
};

static const struct attr_case away_us_cases[] = {
	{ "1",		"1" },
	{ "10000000",	"10000000" },
	{ "0",		NULL },	/* the thread would take the core back at once */
	{ "10000001",	NULL },
	{ "x",		NULL },
};

static const struct attr_case idle_looks_cases[] = {
	{ "0",		"0" },	/* every iteration whole */
	{ "1024",	"1024" },
	{ "1025",	NULL },	/* timers would wait too long */
	{ "-1",		NULL },
	{ "\n",		NULL },	/* empty */
	{ "16x",	NULL },
};

static const struct attr_case rx_batch_cases[] = {
	{ "1",		"1" },
	{ "64\n",	"64" },
	{ "0",		NULL },	/* a queue would never be read */
	{ "65",		NULL },	/* over the transmit batch a reply may need */
	{ "-1",		NULL },
	{ "8 ",		NULL },
};

/*
 * Each input to /sys/kernel/ixmod/@attr reads back as given, or is refused
 * with EINVAL, one "ixmod: @attr:" line, and the value before it kept.
 */
static void attr_values(struct __test_metadata *_metadata, struct ixt_kmsg *kmsg,
			const char *attr, const char *before,
			const struct attr_case *cases, size_t n)
{
	char path[128], tag[64], buf[64], log[1024];
	size_t i;

	snprintf(path, sizeof(path), IXM_SYSFS "/%s", attr);
	snprintf(tag, sizeof(tag), "ixmod: %s:", attr);
	for (i = 0; i < n; i++) {
		const char *in = cases[i].input;

		ASSERT_EQ(0, ixt_write(path, before));
		ixt_kmsg_read(kmsg, NULL, NULL, 0);
		if (cases[i].readback) {
			EXPECT_EQ(0, ixt_write(path, in)) TH_LOG("%s: '%s'", attr, in);
			ASSERT_EQ(0, ixt_read(path, buf, sizeof(buf)));
			EXPECT_STREQ(cases[i].readback, buf);
		} else {
			EXPECT_EQ(-EINVAL, ixt_write(path, in))
				TH_LOG("%s: '%s' should be refused", attr, in);
			ASSERT_EQ(0, ixt_read(path, buf, sizeof(buf)));
			EXPECT_STREQ(before, buf) TH_LOG("'%s' changed %s", in, attr);
			EXPECT_EQ(1, ixt_kmsg_read(kmsg, tag, log, sizeof(log)))
				TH_LOG("%s: '%s' logged: %s", attr, in, log);
		}
	}
}

TEST_F(ixm, idle_us_values)
{
	attr_values(_metadata, &self->kmsg, "idle_us", "777", idle_us_cases,
		    ARRAY_SIZE(idle_us_cases));
}

TEST_F(ixm, idle_looks_values)
{
	attr_values(_metadata, &self->kmsg, "idle_looks", "8", idle_looks_cases,
		    ARRAY_SIZE(idle_looks_cases));
}

TEST_F(ixm, away_us_values)
{
	attr_values(_metadata, &self->kmsg, "away_us", "1000", away_us_cases,
		    ARRAY_SIZE(away_us_cases));
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/away_us", "1000"));
}

TEST_F(ixm, rx_batch_values)
{
	attr_values(_metadata, &self->kmsg, "rx_batch", "32", rx_batch_cases,
		    ARRAY_SIZE(rx_batch_cases));
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/rx_batch", "64"));
}

static unsigned long long stat_of(int cpu, const char *name)
{
	return ixt_read_u64(IXM_DP "/cpu%d/stats/%s", cpu, name);
}

TEST_F(ixm, polling_counts_iterations)
{
	unsigned long long it0, it1, idle0, idle1;
	char buf[32];

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/idle_us", "0"));	/* never sleep */
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "2"));
	ixt_msleep(100);
	it0 = stat_of(2, "iterations");
	idle0 = stat_of(2, "idle");
	ixt_msleep(300);
	it1 = stat_of(2, "iterations");
	idle1 = stat_of(2, "idle");
	EXPECT_GT(it1, it0) TH_LOG("a polling core must iterate");
	EXPECT_GT(idle1, idle0);
	/* no work source exists yet, so every iteration is idle */
	EXPECT_EQ(0, stat_of(2, "busy"));
	EXPECT_EQ(0, stat_of(2, "sleeps"));
	ASSERT_EQ(0, ixt_read(IXM_DP "/cpu2/state", buf, sizeof(buf)));
	EXPECT_STREQ("polling", buf);
}

/* Poll @path until it reads @want, for at most @ms milliseconds. */
static bool wait_for(const char *path, const char *want, int ms)
{
	char buf[64];

	for (; ms > 0; ms -= 10) {
		if (!ixt_read(path, buf, sizeof(buf)) && !strcmp(buf, want))
			return true;
		ixt_msleep(10);
	}
	return false;
}

TEST_F(ixm, idle_core_sleeps_and_wakes)
{
	unsigned long long it0, it1, wakeups0;
	char path[64], stat[256], *p;
	int pid;

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/idle_us", "1000"));
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "2"));
	ASSERT_TRUE(wait_for(IXM_DP "/cpu2/state", "sleeping", 5000))
		TH_LOG("an idle core must sleep after idle_us");
	EXPECT_GE(stat_of(2, "sleeps"), 1);

	/* asleep: the loop does not run, and the task is in TASK_IDLE ('I') */
	it0 = stat_of(2, "iterations");
	ixt_msleep(300);
	it1 = stat_of(2, "iterations");
	EXPECT_EQ(it0, it1) TH_LOG("a sleeping core iterated");
	pid = core_pid(2);
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	ASSERT_EQ(0, ixt_read(path, stat, sizeof(stat)));
	p = strrchr(stat, ')');
	ASSERT_NE(NULL, p);
	EXPECT_EQ('I', p[2]) TH_LOG("state '%c'", p[2]);

	/* a configuration change wakes it, and with idle_us=0 it polls on */
	wakeups0 = stat_of(2, "wakeups");
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/idle_us", "0"));
	ASSERT_TRUE(wait_for(IXM_DP "/cpu2/state", "polling", 5000));
	EXPECT_EQ(wakeups0 + 1, stat_of(2, "wakeups"));
	it0 = stat_of(2, "iterations");
	ixt_msleep(200);
	EXPECT_GT(stat_of(2, "iterations"), it0);
}

/*
 * An idle core only looks for work (no clock, no ring touched) on
 * idle_looks of every idle_looks + 1 idle iterations, and on none with 0.
 */
TEST_F(ixm, idle_core_mostly_looks)
{
	unsigned long long idle0, looks0, idle, looks;

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/idle_us", "0"));	/* poll on */
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/idle_looks", "16"));
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "2"));
	ASSERT_TRUE(wait_for(IXM_DP "/cpu2/state", "polling", 5000));
	idle0 = stat_of(2, "idle");
	looks0 = stat_of(2, "looks");
	ixt_msleep(200);
	idle = stat_of(2, "idle") - idle0;
	looks = stat_of(2, "looks") - looks0;
	ASSERT_GT(idle, 100) TH_LOG("the polling core ran %llu idle iterations", idle);
	/* 16 of 17, less the reads' skew */
	EXPECT_GT(looks * 10, idle * 8) {
		TH_LOG("idle_looks 16: %llu of %llu idle iterations only looked", looks, idle);
	}
	EXPECT_LE(looks, idle);

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/idle_looks", "0"));
	ixt_msleep(50);		/* the core's next iteration reads it */
	idle0 = stat_of(2, "idle");
	looks0 = stat_of(2, "looks");
	ixt_msleep(200);
	EXPECT_GT(stat_of(2, "idle"), idle0);
	EXPECT_EQ(looks0, stat_of(2, "looks")) TH_LOG("idle_looks 0: every iteration whole");
}

TEST_F(ixm, per_core_files_are_read_only)
{
	static const char * const files[] = {
		"pid", "state", "isolated", "stats/iterations", "stats/busy",
		"stats/idle", "stats/looks", "stats/sleeps", "stats/wakeups",
	};
	char path[128];
	struct stat st;
	size_t i;

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "1"));
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), IXM_DP "/cpu1/%s", files[i]);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s missing", path);
		EXPECT_EQ(0444, st.st_mode & 0777) TH_LOG("%s", path);
		EXPECT_EQ(-EACCES, ixt_write(path, "0")) TH_LOG("%s", path);
	}
	ASSERT_EQ(0, stat(IXM_SYSFS "/cores", &st));
	EXPECT_EQ(0644, st.st_mode & 0777);
	ASSERT_EQ(0, stat(IXM_SYSFS "/idle_us", &st));
	EXPECT_EQ(0644, st.st_mode & 0777);
}

/*
 * Several processes write random good and bad lists at once; afterwards
 * the list, the per-core directories and the running threads must agree.
 */
TEST_F_TIMEOUT(ixm, concurrent_writers_stay_consistent, 180)
{
	static const char * const inputs[] = {
		"1", "2", "1-2", "\n", "+1", "+2", "-1", "-2", "abc", "0-2", "99",
	};
	int ncpu = ixt_nr_online_cpus(), i, n, expect;
	char buf[64], path[64];
	pid_t pids[4];

	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0) {
			srand(getpid());
			for (n = 0; n < 300; n++)
				ixt_write(IXM_SYSFS "/cores",
					  inputs[rand() % ARRAY_SIZE(inputs)]);
			_exit(0);
		}
	}
	for (i = 0; i < 4; i++) {
		int status;

		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
	}

	cores_read(buf, sizeof(buf));
	expect = !strcmp(buf, "") ? 0 : !strcmp(buf, "1-2") ? 2 : 1;
	EXPECT_TRUE(!strcmp(buf, "") || !strcmp(buf, "1") || !strcmp(buf, "2") ||
		    !strcmp(buf, "1-2")) TH_LOG("cores '%s'", buf);
	EXPECT_EQ(expect, count_dp_threads()) TH_LOG("cores '%s'", buf);
	for (i = 0; i < ncpu; i++) {
		bool listed = (i == 1 && (!strcmp(buf, "1") || !strcmp(buf, "1-2"))) ||
			      (i == 2 && (!strcmp(buf, "2") || !strcmp(buf, "1-2")));

		snprintf(path, sizeof(path), IXM_DP "/cpu%d", i);
		EXPECT_EQ(listed, ixt_path_exists(path)) TH_LOG("cpu%d, cores '%s'", i, buf);
		if (listed)
			check_thread_placement(_metadata, i);
	}
}

int main(int argc, char **argv)
{
	return ixt_harness_run(argc, argv);
}
