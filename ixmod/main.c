// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - ixmod module init and exit
 *
 * ixmod turns isolated CPU cores and dedicated NIC queues into a protected
 * network dataplane (IX, OSDI'14, without the hypervisor): Linux stays the
 * control plane, pinned polling kernel threads are the dataplane, and
 * applications talk to it through /dev/ixmod.  Loading the module starts
 * nothing; the operator assigns cores through /sys/kernel/ixmod/cores.
 *
 * Subsystems start in dependency order and module_exit undoes them in
 * exactly the reverse order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>

#include <linux/ixmod.h>

#include "ixmod.h"

static int __init ixm_init(void)
{
	int err;

	err = ixm_dp_init();
	if (err)
		return err;
	err = ixm_sysfs_init();
	if (err)
		goto err_dp_exit;
	err = ixm_cdev_init();
	if (err)
		goto err_sysfs_exit;
	err = ixm_pci_init();
	if (err)
		goto err_cdev_exit;
	err = ixm_softports_init();
	if (err)
		goto err_pci_exit;

	pr_info("loaded (ABI %u); assign cores in /sys/kernel/ixmod/cores\n",
		IXMOD_ABI_VERSION);
	return 0;

err_pci_exit:
	ixm_pci_exit();
err_cdev_exit:
	ixm_cdev_exit();
err_sysfs_exit:
	ixm_sysfs_exit();
err_dp_exit:
	ixm_dp_exit();
	return err;
}

static void __exit ixm_exit(void)
{
	ixm_softports_exit();	/* every software port down and removed */
	ixm_pci_exit();		/* every PCI port down and removed */
	ixm_ctx_exit();
	ixm_cdev_exit();
	ixm_sysfs_exit();	/* stops every dataplane core */
	ixm_dp_exit();
	pr_info("unloaded\n");
}

module_init(ixm_init);
module_exit(ixm_exit);

MODULE_DESCRIPTION("ixmod: protected kernel dataplane for latency-critical servers");
MODULE_AUTHOR("The ixmod developers");
MODULE_LICENSE("GPL");
