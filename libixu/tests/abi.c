// SPDX-License-Identifier: MIT
/*
 * abi.c - the layout of uapi/linux/ixmod.h, fixed at compile time
 *
 * The same facts as ixm_abi_check() in the module: if either side's
 * header changed shape, one of the two builds breaks.
 */
#include <stddef.h>
#include <linux/ixmod.h>

#include "helpers.h"

_Static_assert(sizeof(struct ixmod_info) == 64, "ixmod_info size");
_Static_assert(offsetof(struct ixmod_info, abi_version) == 0, "abi_version");
_Static_assert(offsetof(struct ixmod_info, nr_cores) == 4, "nr_cores");
_Static_assert(offsetof(struct ixmod_info, features) == 8, "features");
_Static_assert(offsetof(struct ixmod_info, nr_cpu_ids) == 16, "nr_cpu_ids");
_Static_assert(offsetof(struct ixmod_info, __pad) == 20, "__pad");
_Static_assert(offsetof(struct ixmod_info, resv) == 24, "resv");
_Static_assert(IXMOD_IOC_GET_INFO == 0x8040e100, "GET_INFO number");

int main(void)
{
	/* the run-time half: the ioctl encodes the struct size */
	T_CHECK(_IOC_SIZE(IXMOD_IOC_GET_INFO) == sizeof(struct ixmod_info),
		"size %u", (unsigned int)_IOC_SIZE(IXMOD_IOC_GET_INFO));
	T_CHECK(_IOC_TYPE(IXMOD_IOC_GET_INFO) == IXMOD_IOC_MAGIC, "type");
	T_CHECK(_IOC_DIR(IXMOD_IOC_GET_INFO) == _IOC_READ, "direction");
	return T_EXIT_PASS;
}
