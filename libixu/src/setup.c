// SPDX-License-Identifier: MIT
/*
 * setup.c - open /dev/ixmod, negotiate the ABI, and release it all
 *
 * ixu_close() undoes both this file's open and ring.c's mappings, so the
 * unmapping lives here: ring.c calls into this file, this file never into
 * ring.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

int ixu_open(struct ixu *ixu, unsigned int flags)
{
	int ret;

	if (!ixu)
		return -EINVAL;
	memset(ixu, 0, sizeof(*ixu));
	ixu->fd = -1;
	if (flags)
		return -EINVAL;

	ixu->fd = open(IXMOD_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (ixu->fd < 0)
		return -errno;

	ret = ixu_get_info(ixu, &ixu->info);
	if (ret)
		goto err_close;
	if (ixu->info.abi_version != IXMOD_ABI_VERSION) {
		ret = -EPROTONOSUPPORT;
		goto err_close;
	}
	return 0;

err_close:
	ixu_close(ixu);
	return ret;
}

void ixu_unmap(struct ixu *ixu)
{
	int i;

	for (i = 0; i < IXMOD_REGION_NR; i++) {
		if (ixu->maps[i])
			munmap(ixu->maps[i], ixu->setup.regions[i].size);
		ixu->maps[i] = NULL;
	}
	ixu->rxbuf = NULL;
	ixu->txarena = NULL;
}

void ixu_close(struct ixu *ixu)
{
	if (!ixu || ixu->fd < 0)
		return;
	ixu_unmap(ixu);
	close(ixu->fd);
	ixu->fd = -1;
}

int ixu_get_info(struct ixu *ixu, struct ixmod_info *info)
{
	if (!ixu || !info || ixu->fd < 0)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	if (ioctl(ixu->fd, IXMOD_IOC_GET_INFO, info) < 0)
		return -errno;
	return 0;
}

bool ixu_has_feature(const struct ixu *ixu, __u64 feature)
{
	return ixu && (ixu->info.features & feature) == feature;
}
