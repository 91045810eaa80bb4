/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ixmod: protected kernel dataplane for latency-critical servers.
 *
 * This is the whole user/kernel ABI of /dev/ixmod, the only header the
 * module and user space (libixu, applications, tests) share.
 *
 * Rules this header keeps (Documentation/userspace-api/ixmod.rst):
 *  - ioctl numbers are encoded with _IOR/_IOWR and never re-numbered;
 *  - a struct's size never changes (it is encoded in the ioctl number);
 *    new fields are carved out of reserved words under a new feature bit;
 *  - reserved words and unknown flag bits must be zero on input (-EINVAL)
 *    and are zero on output;
 *  - applications test feature bits, not the ABI version.
 *    IXMOD_ABI_VERSION changes only on a deliberate break.
 */
#ifndef _UAPI_LINUX_IXMOD_H
#define _UAPI_LINUX_IXMOD_H

#include <linux/types.h>
#include <linux/ioctl.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IXMOD_ABI_VERSION	1

/* Path of the character device (a misc device, dynamic minor). */
#define IXMOD_DEV_PATH		"/dev/ixmod"

/*
 * Feature bits reported in ixmod_info.features.  None is defined yet: the
 * first release answers IXMOD_IOC_GET_INFO only.  Applications must ignore
 * bits they do not know.
 */
#define IXMOD_FEAT_ALL		0ULL

/**
 * struct ixmod_info - answer of IXMOD_IOC_GET_INFO
 * @abi_version: IXMOD_ABI_VERSION of the running module
 * @nr_cores: number of dataplane cores assigned right now
 *	(/sys/kernel/ixmod/cores); 0 means no dataplane is running
 * @features: IXMOD_FEAT_* bits this module supports
 * @nr_cpu_ids: highest possible CPU number plus one, the bound for the
 *	cpulists the sysfs interface accepts
 * @__pad: zero
 * @resv: reserved for future fields, zero
 *
 * Every field is written by the kernel; whatever the caller passed in is
 * overwritten, so no stale input can come back.
 */
struct ixmod_info {
	__u32	abi_version;
	__u32	nr_cores;
	__u64	features;
	__u32	nr_cpu_ids;
	__u32	__pad;
	__u64	resv[5];
};

/*
 * ioctl type 0xE1 ('\xe1'), commands 0x00-0x3f; registered in
 * Documentation/userspace-api/ixmod.rst (the kernel's ioctl-number.rst has
 * no user of 0xE1).  Unknown commands return -ENOTTY.
 */
#define IXMOD_IOC_MAGIC		0xE1

/* Query ABI version and features; needs no setup; any open file may ask. */
#define IXMOD_IOC_GET_INFO	_IOR(IXMOD_IOC_MAGIC, 0x00, struct ixmod_info)

#ifdef __cplusplus
}
#endif

#endif /* _UAPI_LINUX_IXMOD_H */
