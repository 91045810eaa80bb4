/* SPDX-License-Identifier: MIT */
/*
 * ixu.h - libixu, the user library of ixmod
 *
 * libixu wraps /dev/ixmod (uapi/linux/ixmod.h).  Every function that can
 * fail returns 0 or a negative errno, as liburing does; none sets errno
 * or prints.  Link with -lixu (pkg-config --libs libixu).
 *
 * This first version opens the device and queries its ABI version and
 * features; the call and event rings arrive with ABI feature bits.
 */
#ifndef _IXU_H
#define _IXU_H

#include <stdbool.h>
#include <linux/ixmod.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct ixu - one handle on /dev/ixmod
 * @fd: the open file, or -1
 * @info: what IXMOD_IOC_GET_INFO answered when the handle was opened
 *
 * Fill by ixu_open(); treat as read-only.
 */
struct ixu {
	int			fd;
	struct ixmod_info	info;
};

/*
 * ixu_open - open /dev/ixmod and check that the module speaks this ABI
 *
 * SYNOPSIS
 *	int ixu_open(struct ixu *ixu, unsigned int flags);
 *
 * DESCRIPTION
 *	Opens IXMOD_DEV_PATH read-write and close-on-exec, asks the module
 *	for its ABI version and features (IXMOD_IOC_GET_INFO) and stores the
 *	answer in ixu->info.  @flags must be 0; it is reserved for future
 *	open modes.
 *
 * RETURN VALUE
 *	0 on success.  -EINVAL if @ixu is NULL or @flags is not 0; -ENOENT
 *	if ixmod is not loaded; -EACCES if the caller may not open the
 *	device (it is root-only by default); -EPROTONOSUPPORT if the module
 *	speaks another ABI version; any other errno from open(2) or
 *	ioctl(2).  On failure ixu->fd is -1 and nothing stays open.
 */
int ixu_open(struct ixu *ixu, unsigned int flags);

/*
 * ixu_close - release a handle
 *
 * SYNOPSIS
 *	void ixu_close(struct ixu *ixu);
 *
 * DESCRIPTION
 *	Closes the device file and sets ixu->fd to -1.  Safe to call twice
 *	and on a handle whose ixu_open() failed.
 */
void ixu_close(struct ixu *ixu);

/*
 * ixu_get_info - ask the module for its current state
 *
 * SYNOPSIS
 *	int ixu_get_info(struct ixu *ixu, struct ixmod_info *info);
 *
 * DESCRIPTION
 *	Issues IXMOD_IOC_GET_INFO again and fills @info, e.g. to learn how
 *	many dataplane cores are assigned now (info->nr_cores).  ixu->info
 *	is not changed.
 *
 * RETURN VALUE
 *	0 on success, -EINVAL for a NULL argument or a closed handle,
 *	otherwise the negative errno of ioctl(2).
 */
int ixu_get_info(struct ixu *ixu, struct ixmod_info *info);

/*
 * ixu_has_feature - test an IXMOD_FEAT_* bit
 *
 * SYNOPSIS
 *	bool ixu_has_feature(const struct ixu *ixu, __u64 feature);
 *
 * DESCRIPTION
 *	Applications decide what to use by feature bits, never by the ABI
 *	version.  @feature may combine several bits; all must be present.
 *
 * RETURN VALUE
 *	true if the module reported every bit of @feature at ixu_open().
 */
bool ixu_has_feature(const struct ixu *ixu, __u64 feature);

#ifdef __cplusplus
}
#endif

#endif /* _IXU_H */
