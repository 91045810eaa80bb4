/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctl.h - a host mark for the icount QEMU plugin (icount.c, ctl=CTL), for
 * a load generator that runs on the host, outside the guest, and so cannot
 * execute the guest's mark instruction.
 *
 * icount_host_mark(CTL, LABEL, &seq) opens CTL.ack for reading (O_RDWR:
 * never waits for the plugin, never sees end of file), takes flock
 * LOCK_EX on it so that one writer at a time marks, writes "mark LABEL"
 * to CTL and reads CTL.ack until the line "ack SEQ LABEL" (returns 0 and
 * SEQ, the mark's sequence number in the plugin's out= file) or
 * "error ... LABEL ..." (returns -1).  Lines naming other labels are
 * other writers' acknowledgments, left over: skipped.  LABEL: one word of
 * at most 64 letters, digits and "._:-".  Returns -1 with errno set (and
 * ETIMEDOUT when no answer came within ICOUNT_CTL_TIMEOUT_MS).
 */
#ifndef BENCH_ICOUNT_CTL_H
#define BENCH_ICOUNT_CTL_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#define ICOUNT_CTL_TIMEOUT_MS	10000

static inline long long icount_ctl_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Is @line "ack SEQ @label" (1, *@seq set), "error ... @label" (-1), or not ours (0)? */
static inline int icount_ctl_answer(const char *line, const char *label,
				    unsigned long long *seq)
{
	size_t n = strlen(label);
	const char *p;
	char *end;

	if (!strncmp(line, "ack ", 4)) {
		*seq = strtoull(line + 4, &end, 10);
		return *end == ' ' && !strcmp(end + 1, label);
	}
	if (!strncmp(line, "error ", 6))
		for (p = strstr(line, label); p; p = strstr(p + 1, label))
			if (p[-1] == ' ' && (!p[n] || p[n] == ' '))
				return -1;
	return 0;
}

static inline int icount_host_mark(const char *ctl, const char *label,
				   unsigned long long *seq)
{
	char path[PATH_MAX], buf[4096], *nl;
	long long deadline = icount_ctl_ms() + ICOUNT_CTL_TIMEOUT_MS, left;
	struct pollfd pfd = { .events = POLLIN };
	int afd, cfd, n, ret = -1, err = ETIMEDOUT;
	size_t len = 0;

	if (snprintf(path, sizeof(path), "%s.ack", ctl) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	afd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (afd < 0)
		return -1;
	if (flock(afd, LOCK_EX)) {
		err = errno;
		goto out;
	}
	/* the plugin's reader reopens CTL between writers: ENXIO meanwhile */
	while ((cfd = open(ctl, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		err = errno;
		if (err != ENXIO || icount_ctl_ms() > deadline)
			goto out;
		usleep(1000);
	}
	n = snprintf(buf, sizeof(buf), "mark %s\n", label);
	if (write(cfd, buf, n) != n) {
		err = errno;
		close(cfd);
		goto out;
	}
	close(cfd);
	pfd.fd = afd;
	err = ETIMEDOUT;
	while ((left = deadline - icount_ctl_ms()) > 0) {
		if (poll(&pfd, 1, left) <= 0)
			continue;
		n = read(afd, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			continue;
		len += n;
		buf[len] = 0;
		while ((nl = strchr(buf, '\n'))) {
			*nl = 0;
			n = icount_ctl_answer(buf, label, seq);
			len -= nl + 1 - buf;
			memmove(buf, nl + 1, len + 1);
			if (n) {
				ret = n > 0 ? 0 : -1;
				err = n > 0 ? 0 : EINVAL;
				goto out;
			}
		}
		if (len == sizeof(buf) - 1)
			len = 0;	/* a line too long to be an answer */
	}
out:
	close(afd);
	errno = err;
	return ret;
}

#endif
