/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ixmod_test.h - helpers shared by ixmod's kselftest_harness tests
 *
 * sysfs read/write that return -errno, CPU facts, and a /dev/kmsg watcher:
 * every fixture opens it at setup (seeking to the end) and, at teardown,
 * fails the test on any BUG/WARNING/Oops/GPF/RCU report or any new taint
 * other than O and E (an unsigned out-of-tree module: expected).  Tests
 * that check "one dmesg line that says what to fix" read the lines ixmod
 * logged since a mark.
 */
#ifndef _IXMOD_TEST_H
#define _IXMOD_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"	/* ixt_harness_run() */

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define IXM_SYSFS	"/sys/kernel/ixmod"
#define IXM_DP		IXM_SYSFS "/dataplane"

#define TAINT_OOT	(1UL << 12)	/* O: out-of-tree module */
#define TAINT_UNSIGNED	(1UL << 13)	/* E: unsigned module */

/* Write @val to @path in one write(2); 0 or -errno. */
static inline int ixt_write(const char *path, const char *val)
{
	int fd, ret = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Read @path into @buf, trailing newline removed; 0 or -errno. */
static inline int ixt_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

/* Read an unsigned number from a printf-formatted path; ~0ULL on error. */
static inline unsigned long long ixt_read_u64(const char *fmt, ...)
{
	char path[256], buf[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (ixt_read(path, buf, sizeof(buf)))
		return ~0ULL;
	return strtoull(buf, NULL, 0);
}

static inline bool ixt_path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static inline void ixt_msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static inline unsigned long ixt_taint(void)
{
	char buf[32];

	if (ixt_read("/proc/sys/kernel/tainted", buf, sizeof(buf)))
		return 0;
	return strtoul(buf, NULL, 10);
}

static inline int ixt_nr_online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* ---- /dev/kmsg watcher ---- */

struct ixt_kmsg {
	int fd;
	unsigned long taint;
};

static inline int ixt_kmsg_open(struct ixt_kmsg *k)
{
	k->taint = ixt_taint();
	k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (k->fd < 0)
		return -errno;
	lseek(k->fd, 0, SEEK_END);
	return 0;
}

/*
 * Read the records logged since the last call.  Each record's text (after
 * the "prio,seq,ts,flags;" prefix) is appended to @out (one per line) if
 * it contains @match (NULL: all).  Returns how many records matched.
 */
static inline int ixt_kmsg_read(struct ixt_kmsg *k, const char *match,
				char *out, size_t outlen)
{
	char rec[8192];
	int n = 0;

	if (out && outlen)
		out[0] = 0;
	for (;;) {
		ssize_t len = read(k->fd, rec, sizeof(rec) - 1);
		char *text, *nl;

		if (len < 0) {
			if (errno == EPIPE)	/* overwritten records: go on */
				continue;
			break;			/* EAGAIN: no more */
		}
		rec[len] = 0;
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		nl = strchr(text, '\n');
		if (nl)
			*nl = 0;
		if (match && !strstr(text, match))
			continue;
		n++;
		if (out && strlen(out) + strlen(text) + 2 < outlen) {
			strcat(out, text);
			strcat(out, "\n");
		}
	}
	return n;
}

static const char * const ixt_bad_patterns[] = {
	"BUG:", "WARNING:", "Oops", "general protection fault",
	"suspicious RCU usage", "possible recursive locking",
	"Call Trace:", "kernel BUG", "UBSAN:", "KFENCE:", "DMAR: [DMA",
};

/*
 * Scan what was logged since the last read for kernel error reports, and
 * the taint for new flags.  Returns 0, or -1 with the report in @why.
 */
static inline int ixt_kmsg_check(struct ixt_kmsg *k, char *why, size_t len)
{
	unsigned long newtaint;
	char log[16384];
	size_t i;

	ixt_kmsg_read(k, NULL, log, sizeof(log));
	for (i = 0; i < ARRAY_SIZE(ixt_bad_patterns); i++) {
		const char *hit = strstr(log, ixt_bad_patterns[i]);

		if (hit) {
			snprintf(why, len, "kernel log: %.200s", hit);
			return -1;
		}
	}
	newtaint = ixt_taint() & ~k->taint & ~(TAINT_OOT | TAINT_UNSIGNED);
	if (newtaint) {
		snprintf(why, len, "new kernel taint 0x%lx", newtaint);
		return -1;
	}
	return 0;
}

static inline void ixt_kmsg_close(struct ixt_kmsg *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

/* IXMOD_TEST_TIMEOUT_SCALE (run_in_vm.sh: larger on a debug kernel), or 1 */
static inline int ixt_timeout_scale(void)
{
	const char *s = getenv("IXMOD_TEST_TIMEOUT_SCALE");
	int scale = s ? atoi(s) : 1;

	return scale > 1 ? scale : 1;
}

/*
 * The harness's test_harness_run(), with every test's timeout multiplied
 * by IXMOD_TEST_TIMEOUT_SCALE when set: a debug kernel (KASAN, lockdep,
 * kmemleak) runs the tests several times slower, and run_in_vm.sh says
 * how much.  main() calls this instead of TEST_HARNESS_MAIN.
 */
static inline int ixt_harness_run(int argc, char **argv)
{
	int scale = ixt_timeout_scale();
	struct __fixture_metadata *f;
	struct __test_metadata *t;

	for (f = __fixture_list; scale > 1 && f; f = f->next)
		for (t = f->tests; t; t = t->next)
			t->timeout *= scale;
	return test_harness_run(argc, argv);
}

#endif /* _IXMOD_TEST_H */
