// SPDX-License-Identifier: GPL-2.0
/*
 * fault_op - one ixmod operation, optionally with the Nth fault-injection
 * site it reaches made to fail (/proc/thread-self/fail-nth,
 * Documentation/fault-injection/fault-injection.rst), for
 * test_fault_01.sh:
 *
 *   fault_op [-n N] write PATH VALUE   one write(2) of VALUE to PATH
 *   fault_op [-n N] setup CPU          open /dev/ixmod, IXMOD_IOC_SETUP
 *   fault_op [-n N] mmap CPU           setup, then map every region and
 *                                      touch each page (N counts from
 *                                      the first mmap)
 *
 * fail-nth is set right before the operation's system calls, in the
 * thread that makes them, and read back after: it prints one line,
 * "rc=0 injected=0" or "rc=-ENOMEM injected=1" (injected: the Nth site
 * was reached and failed), and exits 0 when the operation succeeded, 1
 * when it failed, 2 on a usage or test error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/ixmod.h>

static int nth;

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

static int op_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), rc = 0;

	if (fd < 0) {
		perror(path);
		exit(2);
	}
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

int main(int argc, char **argv)
{
	int rc, injected;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		nth = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc == 4 && !strcmp(argv[1], "write"))
		rc = op_write(argv[2], argv[3]);
	else if (argc == 3 && !strcmp(argv[1], "setup"))
		rc = op_ctx(strtoul(argv[2], NULL, 0), 0);
	else if (argc == 3 && !strcmp(argv[1], "mmap"))
		rc = op_ctx(strtoul(argv[2], NULL, 0), 1);
	else {
		fprintf(stderr, "usage: fault_op [-n N] write PATH VALUE | setup CPU | mmap CPU\n");
		return 2;
	}
	injected = nth_disarm();
	if (rc)
		printf("rc=-%s injected=%d\n", strerrorname_np(-rc) ? : "?", injected);
	else
		printf("rc=0 injected=%d\n", injected);
	return rc ? 1 : 0;
}
