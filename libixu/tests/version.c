// SPDX-License-Identifier: MIT
/*
 * version.c - ixu_open() refuses a module that speaks another ABI version
 *
 * A binary built against one uapi header must get a clear error from a
 * module of another IXMOD_ABI_VERSION, not misread it (ABI 2 changed a
 * TCP handle's lifetime).  No module is needed: this program stands in
 * for one by defining open() and ioctl(), which the static libixu links
 * to before libc's, and answers IXMOD_IOC_GET_INFO as it is told.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ixu.h"
#include "helpers.h"

static unsigned int fake_version;	/* what GET_INFO says */
static int fake_errno;			/* or: GET_INFO fails with this */
static int fake_fd = -1;		/* the last "device" opened */

int open(const char *path, int flags, ...)
{
	if (strcmp(path, IXMOD_DEV_PATH)) {
		errno = ENOENT;
		return -1;
	}
	(void)flags;
	fake_fd = (int)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC);
	return fake_fd;
}

int ioctl(int fd, unsigned long req, ...)
{
	struct ixmod_info *info;
	va_list ap;

	va_start(ap, req);
	info = va_arg(ap, struct ixmod_info *);
	va_end(ap);
	if (fd != fake_fd || req != IXMOD_IOC_GET_INFO) {
		errno = ENOTTY;
		return -1;
	}
	if (fake_errno) {
		errno = fake_errno;
		return -1;
	}
	memset(info, 0, sizeof(*info));
	info->abi_version = fake_version;
	info->features = IXMOD_FEAT_RINGS;
	return 0;
}

/* ixu_open() against a module answering @version; its result. */
static int open_as(unsigned int version, int err)
{
	struct ixu ixu;
	int ret;

	fake_version = version;
	fake_errno = err;
	ret = ixu_open(&ixu, 0);
	if (ret) {
		T_CHECK(ixu.fd == -1, "a failed open leaves fd %d", ixu.fd);
		T_CHECK(fcntl(fake_fd, F_GETFD) == -1 && errno == EBADF,
			"a failed open closed the device (fd %d)", fake_fd);
	} else {
		T_CHECK(ixu.fd == fake_fd, "fd %d, opened %d", ixu.fd, fake_fd);
		T_CHECK(ixu.info.abi_version == version, "abi %u", ixu.info.abi_version);
		ixu_close(&ixu);
	}
	return ret;
}

int main(void)
{
	T_CHECK(open_as(IXMOD_ABI_VERSION, 0) == 0, "this version's module is taken");
	T_CHECK(open_as(IXMOD_ABI_VERSION - 1, 0) == -EPROTONOSUPPORT,
		"a module of the previous version: -EPROTONOSUPPORT");
	T_CHECK(open_as(IXMOD_ABI_VERSION + 1, 0) == -EPROTONOSUPPORT,
		"a module of a later version: -EPROTONOSUPPORT");
	T_CHECK(open_as(0, 0) == -EPROTONOSUPPORT, "version 0: -EPROTONOSUPPORT");
	T_CHECK(open_as(IXMOD_ABI_VERSION, ENOTTY) == -ENOTTY,
		"GET_INFO refused (another ioctl layout): -ENOTTY");
	return T_EXIT_PASS;
}
