// SPDX-License-Identifier: MIT
/*
 * ixev_inet6.c - ixev_create() asks for IPv6 peers only when told, and
 * only from a module that has them
 *
 * No module is needed: as version.c does, this program stands in for one
 * by defining open() and ioctl().  GET_INFO answers with the features it
 * is told; SETUP records the flags it was asked for and fails (nothing
 * more of ixev_create() is under test).  With IXEV_F_INET6 a module
 * without IXMOD_FEAT_INET6 is refused with -EOPNOTSUPP before any setup;
 * one with it is asked for IXMOD_SETUP_INET6 and IXMOD_SETUP_EVENT_EXT;
 * without the flag neither is asked for; an unknown flag is -EINVAL.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ixev.h"
#include "helpers.h"

static __u64 fake_features;	/* what GET_INFO says */
static int fake_fd = -1;	/* the last "device" opened */
static __u32 setup_flags;	/* what the last SETUP asked for */
static int setups;		/* SETUPs seen */

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
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != fake_fd) {
		errno = EBADF;
		return -1;
	}
	if (req == IXMOD_IOC_GET_INFO) {
		struct ixmod_info *info = arg;

		memset(info, 0, sizeof(*info));
		info->abi_version = IXMOD_ABI_VERSION;
		info->features = fake_features;
		return 0;
	}
	if (req == IXMOD_IOC_SETUP) {
		setup_flags = ((struct ixmod_setup *)arg)->flags;
		setups++;
		errno = ENOSPC;		/* a mark: the setup was reached */
		return -1;
	}
	errno = ENOTTY;
	return -1;
}

/* ixev_create() against a module with @features, @flags asked; its result. */
static int create(__u64 features, unsigned int flags)
{
	struct ixev_params p = { .flags = flags };
	struct ixev *ev = NULL;
	int ret;

	fake_features = features;
	setup_flags = 0;
	setups = 0;
	ret = ixev_create(&ev, 0, &p);
	T_CHECK(!ev, "no module here: no context made");
	return ret;
}

int main(void)
{
	const __u64 base = IXMOD_FEAT_RINGS | IXMOD_FEAT_UDP | IXMOD_FEAT_TCP |
			   IXMOD_FEAT_EVENT_EXT;

	T_CHECK(create(base, IXEV_F_INET6) == -EOPNOTSUPP && !setups,
		"IXEV_F_INET6 from a module without IXMOD_FEAT_INET6: -EOPNOTSUPP, no setup");
	T_CHECK(create(base | IXMOD_FEAT_INET6, IXEV_F_INET6) == -ENOSPC && setups == 1,
		"IXEV_F_INET6 from a module with it: the setup is asked");
	T_CHECK((setup_flags & (IXMOD_SETUP_INET6 | IXMOD_SETUP_EVENT_EXT)) ==
		(IXMOD_SETUP_INET6 | IXMOD_SETUP_EVENT_EXT),
		"for IXMOD_SETUP_INET6 and IXMOD_SETUP_EVENT_EXT (flags %#x)", setup_flags);
	T_CHECK(create(base | IXMOD_FEAT_INET6, 0) == -ENOSPC && setups == 1 &&
		!(setup_flags & (IXMOD_SETUP_INET6 | IXMOD_SETUP_EVENT_EXT)),
		"without the flag: neither asked for (flags %#x)", setup_flags);
	T_CHECK(create(base | IXMOD_FEAT_INET6, 1U << 7) == -EINVAL && !setups,
		"an unknown ixev_params flag: -EINVAL");
	return T_EXIT_PASS;
}
