// SPDX-License-Identifier: GPL-2.0
/*
 * pin_keeper.c - a hostile owner that tries to keep the receive pages of a
 * core after it lets the core go (test_udp_03.sh).
 *
 *   pin_keeper CPU MARKER RESULT
 *
 * Attaches a context to CPU through the raw ABI (no libixu), maps the
 * receive region and vmsplice()s all of it into pipes, which would take a
 * reference on every page.  A child, the keeper, holds the pipes (not the
 * /dev/ixmod file, not the mappings); the owner exits, so the core is free
 * for another process.  On SIGUSR1 the keeper reads everything its pipes
 * hold and counts the occurrences of MARKER, the payload a later owner
 * receives.  It writes "spliced BYTES errno E" to RESULT.pinned at once
 * and "markers N" to RESULT at the end, then exits.  The parent prints the
 * keeper's pid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/ixmod.h>

#define CHUNK	(1u << 20)	/* pipe-max-size's default: 1 MiB per pipe */
#define MAXPIPES 64

static int write_result(const char *path, const char *fmt, long a, long b)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, fmt, a, b);
	return fclose(f);
}

static long count_marker(const char *buf, size_t len, const char *marker)
{
	size_t m = strlen(marker), i;
	long n = 0;

	for (i = 0; i + m <= len; i++)
		if (!memcmp(buf + i, marker, m))
			n++;
	return n;
}

int main(int argc, char **argv)
{
	int pipes[MAXPIPES][2], npipes = 0, fd, i, err = 0;
	struct ixmod_setup p = { 0 };
	char pinned[4096];
	long spliced = 0;
	sigset_t usr1;
	int sig;
	size_t size, off;
	pid_t pid;
	char *rx;

	if (argc != 4) {
		fprintf(stderr, "usage: pin_keeper CPU MARKER RESULT\n");
		return 2;
	}
	snprintf(pinned, sizeof(pinned), "%s.pinned", argv[3]);
	fd = open(IXMOD_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("pin_keeper: open");
		return 1;
	}
	p.cpu = (unsigned int)strtoul(argv[1], NULL, 0);
	if (ioctl(fd, IXMOD_IOC_SETUP, &p)) {
		perror("pin_keeper: setup");
		return 1;
	}
	size = p.regions[IXMOD_REGION_RXBUF].size;
	rx = mmap(NULL, size, PROT_READ, MAP_SHARED, fd,
		  (off_t)p.regions[IXMOD_REGION_RXBUF].mmap_offset);
	if (rx == MAP_FAILED) {
		perror("pin_keeper: mmap");
		return 1;
	}
	for (off = 0; off < size && npipes < MAXPIPES; off += CHUNK) {
		struct iovec iov = { .iov_base = rx + off, .iov_len = CHUNK };
		ssize_t n;

		if (pipe(pipes[npipes]))
			break;
		fcntl(pipes[npipes][1], F_SETPIPE_SZ, CHUNK);
		if (size - off < CHUNK)
			iov.iov_len = size - off;
		n = vmsplice(pipes[npipes][1], &iov, 1, SPLICE_F_NONBLOCK);
		npipes++;
		if (n < 0) {
			err = errno;
			break;
		}
		spliced += n;
	}
	if (write_result(pinned, "spliced %ld errno %ld\n", spliced, err))
		return 1;

	/* the keeper waits for SIGUSR1 with sigwait(): block it from now on */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid) {
		printf("%d\n", pid);
		return 0;	/* the owner exits: its file and mappings go */
	}

	/* the keeper: the pipes only (not the caller's stdout either) */
	i = open("/dev/null", O_RDWR);
	dup2(i, 0);
	dup2(i, 1);
	dup2(i, 2);
	close(i);
	close(fd);
	munmap(rx, size);
	setsid();
	while (sigwait(&usr1, &sig) || sig != SIGUSR1)
		;
	{
		static char buf[CHUNK];
		long markers = 0;
		ssize_t n;

		for (i = 0; i < npipes; i++) {
			close(pipes[i][1]);
			fcntl(pipes[i][0], F_SETFL, O_NONBLOCK);
			while ((n = read(pipes[i][0], buf, sizeof(buf))) > 0)
				markers += count_marker(buf, (size_t)n, argv[2]);
		}
		return write_result(argv[3], "markers %ld\n", markers, 0) ? 1 : 0;
	}
}
