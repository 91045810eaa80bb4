// SPDX-License-Identifier: GPL-2.0
/*
 * cdev.c - /dev/ixmod, the applications' entry point
 *
 * A misc device (dynamic minor, mode 0600).  One open file is one
 * application context once IXMOD_IOC_SETUP attached it to a dataplane
 * core (ctx.c has the context, its regions, mmap and poll).  Every ioctl follows one shape: copy in,
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
	IXM_CHECK_FIELD(ixmod_info, ops, 24);
	IXM_CHECK_FIELD(ixmod_info, events, 32);
	IXM_CHECK_FIELD(ixmod_info, call_flags, 36);
	IXM_CHECK_FIELD(ixmod_info, setup_flags, 38);
	IXM_CHECK_FIELD(ixmod_info, ring_entries_max, 40);
	IXM_CHECK_FIELD(ixmod_info, txarena_max, 44);
	IXM_CHECK_FIELD(ixmod_info, sendv_max, 48);
	IXM_CHECK_FIELD(ixmod_info, __pad2, 50);
	IXM_CHECK_FIELD(ixmod_info, backlog_max, 52);
	IXM_CHECK_FIELD(ixmod_info, resv, 56);
	/* _IOR(0xE1, 0, 64 bytes): the number applications compiled in */
	BUILD_BUG_ON(IXMOD_IOC_GET_INFO != 0x8040e100);
	BUILD_BUG_ON(IXMOD_IOC_SETUP != 0xc0c0e101);
	BUILD_BUG_ON(IXMOD_IOC_WAKE != 0xe102);

	BUILD_BUG_ON(sizeof(struct ixmod_region) != 16);
	IXM_CHECK_FIELD(ixmod_region, mmap_offset, 0);
	IXM_CHECK_FIELD(ixmod_region, size, 8);

	BUILD_BUG_ON(sizeof(struct ixmod_ring_offsets) != 32);
	IXM_CHECK_FIELD(ixmod_ring_offsets, prod, 0);
	IXM_CHECK_FIELD(ixmod_ring_offsets, cons, 4);
	IXM_CHECK_FIELD(ixmod_ring_offsets, flags, 8);
	IXM_CHECK_FIELD(ixmod_ring_offsets, entries, 12);
	IXM_CHECK_FIELD(ixmod_ring_offsets, resv, 16);

	BUILD_BUG_ON(sizeof(struct ixmod_setup) != 192);
	IXM_CHECK_FIELD(ixmod_setup, flags, 0);
	IXM_CHECK_FIELD(ixmod_setup, cpu, 4);
	IXM_CHECK_FIELD(ixmod_setup, call_entries, 8);
	IXM_CHECK_FIELD(ixmod_setup, event_entries, 12);
	IXM_CHECK_FIELD(ixmod_setup, txarena_size, 16);
	IXM_CHECK_FIELD(ixmod_setup, rxbuf_size, 20);
	IXM_CHECK_FIELD(ixmod_setup, features, 24);
	IXM_CHECK_FIELD(ixmod_setup, regions, 32);
	IXM_CHECK_FIELD(ixmod_setup, call_off, 96);
	IXM_CHECK_FIELD(ixmod_setup, event_off, 128);
	IXM_CHECK_FIELD(ixmod_setup, event_size, 160);
	IXM_CHECK_FIELD(ixmod_setup, __pad, 164);
	IXM_CHECK_FIELD(ixmod_setup, resv, 168);

	BUILD_BUG_ON(sizeof(struct ixmod_event_ext) != 64);
	IXM_CHECK_FIELD(ixmod_event_ext, ev, 0);
	IXM_CHECK_FIELD(ixmod_event_ext, handle, 32);
	IXM_CHECK_FIELD(ixmod_event_ext, resv, 40);
	IXM_CHECK_FIELD(ixmod_event_ext, addr6, 40);
	IXM_CHECK_FIELD(ixmod_event_ext, resv2, 56);

	BUILD_BUG_ON(sizeof(struct ixmod_call) != 64);
	IXM_CHECK_FIELD(ixmod_call, opcode, 0);
	IXM_CHECK_FIELD(ixmod_call, flags, 1);
	IXM_CHECK_FIELD(ixmod_call, resv0, 2);
	IXM_CHECK_FIELD(ixmod_call, len, 4);
	IXM_CHECK_FIELD(ixmod_call, user_data, 8);
	IXM_CHECK_FIELD(ixmod_call, handle, 16);
	IXM_CHECK_FIELD(ixmod_call, off, 24);
	IXM_CHECK_FIELD(ixmod_call, addr, 28);
	IXM_CHECK_FIELD(ixmod_call, port, 32);
	IXM_CHECK_FIELD(ixmod_call, resv1, 34);
	IXM_CHECK_FIELD(ixmod_call, pos, 36);
	IXM_CHECK_FIELD(ixmod_call, resv3, 40);
	IXM_CHECK_FIELD(ixmod_call, addr6, 40);
	IXM_CHECK_FIELD(ixmod_call, resv4, 56);

	BUILD_BUG_ON(sizeof(struct ixmod_event) != 32);
	IXM_CHECK_FIELD(ixmod_event, type, 0);
	IXM_CHECK_FIELD(ixmod_event, op, 1);
	IXM_CHECK_FIELD(ixmod_event, flags, 2);
	IXM_CHECK_FIELD(ixmod_event, res, 4);
	IXM_CHECK_FIELD(ixmod_event, user_data, 8);
	IXM_CHECK_FIELD(ixmod_event, handle, 16);
	IXM_CHECK_FIELD(ixmod_event, off, 16);
	IXM_CHECK_FIELD(ixmod_event, addr, 24);
	IXM_CHECK_FIELD(ixmod_event, port, 28);
	IXM_CHECK_FIELD(ixmod_event, lport, 30);

	BUILD_BUG_ON(sizeof(struct ixmod_run) != 40);
	IXM_CHECK_FIELD(ixmod_run, min_events, 0);
	IXM_CHECK_FIELD(ixmod_run, flags, 4);
	IXM_CHECK_FIELD(ixmod_run, timeout_ns, 8);
	IXM_CHECK_FIELD(ixmod_run, iterations, 16);
	IXM_CHECK_FIELD(ixmod_run, resv, 24);
	BUILD_BUG_ON(IXMOD_IOC_RUN != 0xc028e103);

	/* the ring layout net/ring.h fixes: prod, cons, flags on their own lines */
	BUILD_BUG_ON(IXM_RING_OFF_CONS - IXM_RING_OFF_PROD < 2 * SMP_CACHE_BYTES);
	BUILD_BUG_ON(IXM_RING_OFF_FLAGS - IXM_RING_OFF_CONS < SMP_CACHE_BYTES);
	BUILD_BUG_ON(IXM_RING_OFF_ENTRIES % SMP_CACHE_BYTES);
}

static long ixm_ioctl_get_info(void __user *argp)
{
	struct ixmod_info info;

	memset(&info, 0, sizeof(info));
	info.abi_version = IXMOD_ABI_VERSION;
	info.features = IXM_FEAT_ALL;
	info.nr_cores = ixm_dp_nr_cores();
	info.nr_cpu_ids = nr_cpu_ids;
	info.ops = GENMASK_ULL(IXM_OP_NR - 1, 0);
	info.events = GENMASK(IXM_EV_NR - 1, 0);
	info.call_flags = IXM_CALL_F_ALL;
	info.setup_flags = IXM_SETUP_FLAGS_ALL;
	info.ring_entries_max = IXM_RING_ENTRIES_MAX;
	info.txarena_max = IXM_TXARENA_MAX;
	info.sendv_max = IXM_SENDV_MAX;
	info.backlog_max = IXM_BACKLOG_MAX;
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
	case IXMOD_IOC_SETUP:
		return ixm_ctx_setup(file, argp);
	case IXMOD_IOC_WAKE:
		return arg ? -EINVAL : ixm_ctx_wake(file);
	case IXMOD_IOC_RUN:
		return ixm_colo_run(file, argp);
	default:
		return -ENOTTY;
	}
}

static int ixm_open(struct inode *inode, struct file *file)
{
	/*
	 * misc_open() left the miscdevice here; a file's private_data is
	 * its context once IXMOD_IOC_SETUP ran, and NULL until then.
	 */
	file->private_data = NULL;
	return nonseekable_open(inode, file);
}

static int ixm_release(struct inode *inode, struct file *file)
{
	ixm_ctx_release(file);
	return 0;
}

static const struct file_operations ixm_fops = {
	.owner		= THIS_MODULE,
	.open		= ixm_open,
	.release	= ixm_release,
	.unlocked_ioctl	= ixm_ioctl,
	.mmap		= ixm_ctx_mmap,
	.poll		= ixm_ctx_poll,
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
