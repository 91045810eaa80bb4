// SPDX-License-Identifier: GPL-2.0
/*
 * fault_op - ixmod operations under fault injection, for test_fault_01.sh.
 *
 *   fault_op [-d DUT] [-n N] write PATH VALUE
 *                                  one write(2) of VALUE to PATH
 *   fault_op [-d DUT] [-n N] setup CPU
 *                                  open /dev/ixmod, IXMOD_IOC_SETUP
 *   fault_op [-d DUT] [-n N] mmap CPU
 *                                  setup, then map every region and touch
 *                                  each page (N counts from the first mmap)
 *   fault_op [-d DUT] state        the state under /sys/kernel/ixmod
 *   fault_op [-d DUT] walk [-u PATH VALUE] OP ARGS...
 *                                  the fail-nth walk over OP (below)
 *
 * -n N makes the Nth fault-injection site the operation reaches fail
 * (/proc/thread-self/fail-nth, Documentation/fault-injection/
 * fault-injection.rst): set right before the operation's system calls, in
 * the thread that makes them, and read back after.  One operation prints
 * "rc=0 injected=0" or "rc=-ENOMEM injected=1" (injected: the Nth site
 * was reached and failed) and exits 0 when it succeeded, 1 when it
 * failed, 2 on a usage or test error.
 *
 * walk runs OP with N = 1, 2, ... 24, then every half-again-larger N (the
 * sites past the first tens are the same page loops), until OP reaches no
 * Nth site and succeeds (at most N = 100000: a port coming up on the
 * debug kernel makes more than 4,600).  After each injected failure: OP returned an
 * errno, ixmod logged exactly one line, the kernel logged no report
 * (./kernel_reports), and the state reads as before.  An OP that
 * survives its failure, or succeeds, is undone by writing VALUE and a
 * newline to PATH (as echo VALUE > PATH).
 * Everything runs in this one process: a step costs a few system calls,
 * not the dozens of processes a shell needs (on the debug kernel under
 * emulation a fork costs tens of milliseconds).  It prints a comment line
 * per step and exits 0 when every step held, 1 otherwise.
 *
 * The state: the cores, dataplane threads and kept arenas; DUT's driver;
 * each port's up, queues and buffers held; each core's contexts, owner
 * and TCP connections.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/ixmod.h>

#include "kselftest.h"	/* __printf */

#define SYSFS "/sys/kernel/ixmod"

static int nth;
static const char *dut = "";

static void nth_arm(void)
{
	char buf[16];
	int fd, len;

	if (!nth)
		return;
	fd = open("/proc/thread-self/fail-nth", O_WRONLY);
	len = snprintf(buf, sizeof(buf), "%d", nth);
	if (fd < 0 || write(fd, buf, len) != len) {
		perror("fault_op: /proc/thread-self/fail-nth");
		exit(2);
	}
	close(fd);
}

/* 1 if the armed fault was injected; disarms what was not. */
static int nth_disarm(void)
{
	char buf[16] = "";
	int fd, left;

	if (!nth)
		return 0;
	fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0) {
		perror("fault_op: /proc/thread-self/fail-nth");
		exit(2);
	}
	left = atoi(buf);
	if (left && write(fd, "0", 1) != 1) {
		perror("fault_op: disarm");
		exit(2);
	}
	close(fd);
	return left == 0;
}

static int write_file(const char *path, const char *val, int armed)
{
	int fd = open(path, O_WRONLY), rc = 0;

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	if (armed)
		nth_arm();
	if (write(fd, val, strlen(val)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

static int setup(int fd, unsigned int cpu, struct ixmod_setup *p)
{
	memset(p, 0, sizeof(*p));
	p->cpu = cpu;
	p->call_entries = 64;
	p->event_entries = 64;
	p->txarena_size = 64 * 1024;
	return ioctl(fd, IXMOD_IOC_SETUP, p) ? -errno : 0;
}

/* Map every region of @p and touch each page; 0 or -errno. */
static int map_all(int fd, const struct ixmod_setup *p)
{
	long pg = sysconf(_SC_PAGESIZE);
	int i, rc = 0;

	for (i = 0; i < IXMOD_REGION_NR && !rc; i++) {
		int prot = i == IXMOD_REGION_RXBUF ? PROT_READ : PROT_READ | PROT_WRITE;
		size_t size = p->regions[i].size;
		unsigned char *m;
		size_t off;

		m = mmap(NULL, size, prot, MAP_SHARED, fd, p->regions[i].mmap_offset);
		if (m == MAP_FAILED) {
			rc = -errno;
			break;
		}
		for (off = 0; off < size; off += pg)
			(void)__atomic_load_n(&m[off], __ATOMIC_RELAXED);
		munmap(m, size);
	}
	return rc;
}

static int op_ctx(unsigned int cpu, int with_mmap)
{
	struct ixmod_setup p;
	int fd, rc;

	fd = open(IXMOD_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(IXMOD_DEV_PATH);
		exit(2);
	}
	if (!with_mmap)
		nth_arm();
	rc = setup(fd, cpu, &p);
	if (!rc && with_mmap) {
		nth_arm();
		rc = map_all(fd, &p);
	}
	close(fd);
	return rc;
}

/* Run one operation (argv: write PATH VALUE | setup CPU | mmap CPU). */
static int op_run(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[0], "write"))
		return write_file(argv[1], argv[2], 1);
	if (argc == 2 && !strcmp(argv[0], "setup"))
		return op_ctx(strtoul(argv[1], NULL, 0), 0);
	if (argc == 2 && !strcmp(argv[0], "mmap"))
		return op_ctx(strtoul(argv[1], NULL, 0), 1);
	fprintf(stderr, "usage: fault_op [-d DUT] [-n N] write PATH VALUE | setup CPU | mmap CPU\n"
		"       fault_op [-d DUT] state\n"
		"       fault_op [-d DUT] walk [-u PATH VALUE] OP ARGS...\n");
	exit(2);
}

/* ---- the state a failure must leave as it found it ---- */

struct buf {
	char s[8192];
	size_t len;
};

static void __printf(2, 3) bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, sizeof(b->s) - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n < sizeof(b->s) - b->len ? (size_t)n : sizeof(b->s) - b->len - 1;
}

/* The first line of @path, without its newline ("" if unreadable). */
static const char *rd(const char *dir, const char *name)
{
	static char v[256];
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s%s", dir, name);
	v[0] = 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return v;
	n = read(fd, v, sizeof(v) - 1);
	close(fd);
	v[n > 0 ? n : 0] = 0;
	v[strcspn(v, "\n")] = 0;
	return v;
}

/* The dataplane threads: tasks named ixmod/N. */
static int dp_threads(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[64], comm[32];
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/", e->d_name);
		snprintf(comm, sizeof(comm), "%s", rd(path, "comm"));
		if (!strncmp(comm, "ixmod/", 6))
			n++;
	}
	closedir(d);
	return n;
}

/* A line per directory matching @pattern: its @files' first lines. */
static void dirs_state(struct buf *b, const char *pattern, const char *const *files)
{
	const char *const *f;
	glob_t g;
	size_t i;

	if (glob(pattern, 0, NULL, &g))
		return;
	for (i = 0; i < g.gl_pathc; i++) {
		bprintf(b, "%s", g.gl_pathv[i]);
		for (f = files; *f; f++)
			bprintf(b, " %s=%s", *f, rd(g.gl_pathv[i], *f));
		bprintf(b, "\n");
	}
	globfree(&g);
}

static void state(struct buf *b)
{
	char path[PATH_MAX], drv[PATH_MAX] = "";
	ssize_t n;

	b->len = 0;
	b->s[0] = 0;
	bprintf(b, "cores=%s", rd(SYSFS, "/cores"));
	bprintf(b, " threads=%d", dp_threads());
	bprintf(b, " kept=%s\n", rd(SYSFS, "/arenas_kept"));
	if (*dut) {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", dut);
		n = readlink(path, drv, sizeof(drv) - 1);
		drv[n > 0 ? n : 0] = 0;
		bprintf(b, "%s driver=%s\n", dut, strrchr(drv, '/') ? strrchr(drv, '/') + 1 : drv);
	}
	dirs_state(b, SYSFS "/ports/*/", (const char *[]){ "up", "queues", "stats/bufs_held", NULL });
	dirs_state(b, SYSFS "/dataplane/cpu*/",
		   (const char *[]){ "contexts", "owner", "stats/tcp_conns", NULL });
}

/* ---- the kernel log, read from /dev/kmsg ---- */

static int kmsg_fd = -1;
static regex_t reports;

/* Compile ./kernel_reports (beside this program) into one expression. */
static void reports_load(void)
{
	char exe[PATH_MAX], line[256];
	struct buf re = { .len = 0 };
	ssize_t n;
	FILE *f;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 32);
	if (n <= 0 || !memchr(exe, '/', n)) {
		perror("fault_op: /proc/self/exe");
		exit(2);
	}
	exe[n] = 0;
	snprintf(strrchr(exe, '/') + 1, 32, "kernel_reports");
	f = fopen(exe, "r");
	if (!f) {
		perror(exe);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		bprintf(&re, "%s(%s)", re.len ? "|" : "", line);
	}
	fclose(f);
	if (!re.len || regcomp(&reports, re.s, REG_EXTENDED | REG_NOSUB)) {
		fprintf(stderr, "fault_op: %s: no valid expression\n", exe);
		exit(2);
	}
}

/* From now on, read only what is logged after this call. */
static void kmsg_mark(void)
{
	if (kmsg_fd < 0) {
		kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
		if (kmsg_fd < 0) {
			perror("fault_op: /dev/kmsg");
			exit(2);
		}
	}
	lseek(kmsg_fd, 0, SEEK_END);
}

/*
 * Everything logged since kmsg_mark, one message per line, into @b: a
 * tag written to /dev/kmsg marks the end, so that what the operation
 * logged is all there.  0, or -1 when the tag did not come back.
 */
static int kmsg_since(struct buf *b)
{
	static unsigned int seq;
	char tag[64], rec[2048], *msg;
	int fd, tries;
	ssize_t n;

	/*
	 * with its newline: a record without one stays open for a
	 * continuation, and readers see it only once the next one comes
	 */
	snprintf(tag, sizeof(tag), "fault_op sync %d %u\n", getpid(), ++seq);
	fd = open("/dev/kmsg", O_WRONLY);
	if (fd < 0 || write(fd, tag, strlen(tag)) < 0) {
		perror("fault_op: /dev/kmsg");
		exit(2);
	}
	close(fd);
	tag[strcspn(tag, "\n")] = 0;
	b->len = 0;
	b->s[0] = 0;
	for (tries = 0; tries < 500;) {
		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: go on from the next */
			continue;
		if (n <= 0) {
			usleep(20000);
			tries++;
			continue;
		}
		rec[n] = 0;
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		msg[strcspn(msg, "\n")] = 0;
		if (!strcmp(msg, tag))
			return 0;
		bprintf(b, "%s\n", msg);
	}
	return -1;
}

/*
 * ixmod's own lines in @log, not the driver core's after a failed probe
 * ("ixmod: probe of DEV failed with error -12" on 6.1, "ixmod DEV: probe
 * with driver ixmod failed with error -12" on 6.12)
 */
static int ixmod_lines(const char *log, struct buf *out)
{
	const char *l, *e;
	int n = 0;

	for (l = log; *l; l = e + 1) {
		e = strchrnul(l, '\n');
		if ((!strncmp(l, "ixmod:", 6) || !strncmp(l, "ixmod ", 6)) &&
		    !memmem(l, e - l, "failed with error", 17)) {
			n++;
			if (out)
				bprintf(out, "#   %.*s\n", (int)(e - l), l);
		}
		if (!*e)
			break;
	}
	return n;
}

/* The lines of @log a kernel report matches, as comments into @out. */
static int kernel_reports(const char *log, struct buf *out)
{
	char line[1024];
	const char *l, *e;
	int n = 0;

	for (l = log; *l; l = e + 1) {
		e = strchrnul(l, '\n');
		snprintf(line, sizeof(line), "%.*s", (int)(e - l), l);
		if (!regexec(&reports, line, 0, NULL, 0)) {
			n++;
			bprintf(out, "#   %s\n", line);
		}
		if (!*e)
			break;
	}
	return n;
}

/* ---- the walk ---- */

static int walk(int argc, char **argv, const char *undo_path, const char *undo_val)
{
	static struct buf before, after, log, why;
	int n = 1, sites = 0, bad = 0, rc, injected, lines, tries;
	time_t t0 = time(NULL);

	reports_load();
	while (n <= 100000) {
		state(&before);
		kmsg_mark();
		nth = n;
		rc = op_run(argc, argv);
		injected = nth_disarm();
		if (kmsg_since(&log)) {
			printf("# n=%d: the kernel log did not come through /dev/kmsg\n", n);
			return 1;
		}
		why.len = 0;
		why.s[0] = 0;
		if (injected && rc) {
			sites++;
			/* a stopped thread leaves /proc a moment later */
			for (tries = 0; tries < 50; tries++) {
				state(&after);
				if (!strcmp(before.s, after.s))
					break;
				usleep(20000);
			}
			if (strcmp(before.s, after.s))
				bprintf(&why, "#  the state changed:\n# before:\n%s# after:\n%s",
					before.s, after.s);
			lines = ixmod_lines(log.s, NULL);
			if (lines != 1) {
				bprintf(&why, "#  ixmod logged %d lines:\n", lines);
				ixmod_lines(log.s, &why);
			}
		} else if (injected || !rc) {
			/*
			 * survived the failure (a port that copies instead of
			 * mapping the arena), or never reached site n: undo
			 */
			if (undo_path && write_file(undo_path, undo_val, 0) < 0)
				bprintf(&why, "#  undo (%s > %s) failed\n", undo_val, undo_path);
		} else {
			bprintf(&why, "#  failed without an injection (%s)\n",
				strerrorname_np(-rc) ? : "?");
		}
		if (kernel_reports(log.s, &why))
			bprintf(&why, "#  (a kernel report, above)\n");
		printf("# n=%d: rc=%s injected=%d (%ld s)\n", n,
		       rc ? strerrorname_np(-rc) ? : "?" : "0", injected, (long)(time(NULL) - t0));
		if (why.len) {
			bad++;
			fputs(why.s, stdout);
		}
		fflush(stdout);
		if (!injected && !rc) {
			printf("# %d sites failed, then it succeeded at n=%d\n", sites, n);
			return bad ? 1 : 0;
		}
		if (!injected)
			return 1;
		n += n < 24 ? 1 : n / 2;
	}
	printf("# still failing at n=%d\n", n);
	return 1;
}

int main(int argc, char **argv)
{
	const char *undo_path = NULL;
	char *undo_val = NULL;
	int rc, injected;

	argv++;
	argc--;
	while (argc > 1 && argv[0][0] == '-') {
		if (!strcmp(argv[0], "-d"))
			dut = argv[1];
		else if (!strcmp(argv[0], "-n"))
			nth = atoi(argv[1]);
		else
			break;
		argv += 2;
		argc -= 2;
	}
	if (argc == 1 && !strcmp(argv[0], "state")) {
		static struct buf b;

		state(&b);
		fputs(b.s, stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[0], "walk")) {
		argv++;
		argc--;
		if (argc > 3 && !strcmp(argv[0], "-u")) {
			undo_path = argv[1];
			if (asprintf(&undo_val, "%s\n", argv[2]) < 0)
				return 2;
			argv += 3;
			argc -= 3;
		}
		return walk(argc, argv, undo_path, undo_val);
	}
	rc = op_run(argc, argv);
	injected = nth_disarm();
	if (rc)
		printf("rc=-%s injected=%d\n", strerrorname_np(-rc) ? : "?", injected);
	else
		printf("rc=0 injected=%d\n", injected);
	return rc ? 1 : 0;
}
