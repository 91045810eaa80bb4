// SPDX-License-Identifier: GPL-2.0
/*
 * cdev.c - /dev/ixmod, the applications' entry point
 *
 * A misc device (dynamic minor, mode 0600).  One open file will be one
 * application context attached to one dataplane core; today a file can
 * only ask IXMOD_IOC_GET_INFO.  Every ioctl follows one shape: copy in,
 * validate, act, copy out a zeroed-then-filled struct; unknown commands
 * are -ENOTTY.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>

#include <linux/ixmod.h>

#include "ixmod.h"

/*
 * Every UAPI struct's size and field offsets, fixed at build time.  libixu
 * carries the same facts as _Static_assert (libixu/tests/abi.c).
 */
#define IXM_CHECK_FIELD(_s, _f, _off)					\
	BUILD_BUG_ON(offsetof(struct _s, _f) != (_off))

static void __maybe_unused ixm_abi_check(void)
{
	BUILD_BUG_ON(sizeof(struct ixmod_info) != 64);
	IXM_CHECK_FIELD(ixmod_info, abi_version, 0);
	IXM_CHECK_FIELD(ixmod_info, nr_cores, 4);
	IXM_CHECK_FIELD(ixmod_info, features, 8);
	IXM_CHECK_FIELD(ixmod_info, nr_cpu_ids, 16);
	IXM_CHECK_FIELD(ixmod_info, __pad, 20);
	IXM_CHECK_FIELD(ixmod_info, resv, 24);
	/* _IOR(0xE1, 0, 64 bytes): the number applications compiled in */
	BUILD_BUG_ON(IXMOD_IOC_GET_INFO != 0x8040e100);
}

static long ixm_ioctl_get_info(void __user *argp)
{
	struct ixmod_info info;

	memset(&info, 0, sizeof(info));
	info.abi_version = IXMOD_ABI_VERSION;
	info.features = IXMOD_FEAT_ALL;
	info.nr_cores = ixm_dp_nr_cores();
	info.nr_cpu_ids = nr_cpu_ids;
	if (copy_to_user(argp, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long ixm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case IXMOD_IOC_GET_INFO:
		return ixm_ioctl_get_info(argp);
	default:
		return -ENOTTY;
	}
}

static int ixm_open(struct inode *inode, struct file *file)
{
	return nonseekable_open(inode, file);
}

static int ixm_release(struct inode *inode, struct file *file)
{
	return 0;
}

static const struct file_operations ixm_fops = {
	.owner		= THIS_MODULE,
	.open		= ixm_open,
	.release	= ixm_release,
	.unlocked_ioctl	= ixm_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice ixm_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "ixmod",
	.fops	= &ixm_fops,
	.mode	= 0600,
};

/**
 * ixm_cdev_init() - register /dev/ixmod
 *
 * Return: 0 or -errno from misc_register().
 */
int ixm_cdev_init(void)
{
	ixm_abi_check();
	return misc_register(&ixm_miscdev);
}

/**
 * ixm_cdev_exit() - unregister /dev/ixmod
 *
 * Open files keep the module pinned (fops.owner), so none is open here.
 */
void ixm_cdev_exit(void)
{
	misc_deregister(&ixm_miscdev);
}
