// SPDX-License-Identifier: MIT
/*
 * open.c - ixu_open/ixu_close/ixu_get_info argument checks and, where
 * /dev/ixmod exists (inside the test VM), the answer of the module.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ixu.h"
#include "helpers.h"

/* Number of CPUs in the cpulist /sys/kernel/ixmod/cores holds. */
static int sysfs_nr_cores(void)
{
	static unsigned int cpus[8192];

	return ixu_cpulist_parse(NULL, cpus, ARRAY_SIZE(cpus));
}

int main(void)
{
	struct ixmod_info info;
	struct ixu ixu;
	int ret;

	/* bad arguments: an errno, no open file */
	T_CHECK(ixu_open(NULL, 0) == -EINVAL, "NULL handle");
	ixu.fd = 12345;
	T_CHECK(ixu_open(&ixu, 1) == -EINVAL, "flags 1");
	T_CHECK(ixu.fd == -1, "fd after failure %d", ixu.fd);
	T_CHECK(ixu_get_info(&ixu, &info) == -EINVAL, "closed handle");
	ixu_close(&ixu);		/* harmless on a closed handle */
	T_CHECK(!ixu_has_feature(NULL, 0), "NULL handle has no features");

	ret = ixu_open(&ixu, 0);
	if (access(IXMOD_DEV_PATH, F_OK) != 0) {
		T_CHECK(ret == -ENOENT, "without the module: %d", ret);
		T_CHECK(ixu.fd == -1, "fd %d", ixu.fd);
		printf("%s absent: module checks need the VM\n", IXMOD_DEV_PATH);
		return T_EXIT_SKIP;
	}
	T_CHECK(ret == 0, "ixu_open: %s", strerror(-ret));
	T_CHECK(ixu.fd >= 0, "fd");
	T_CHECK(fcntl(ixu.fd, F_GETFD) & FD_CLOEXEC, "close-on-exec");
	T_CHECK(ixu.info.abi_version == IXMOD_ABI_VERSION, "abi %u",
		ixu.info.abi_version);
	T_CHECK(ixu_has_feature(&ixu, IXMOD_FEAT_LIMITS), "IXMOD_FEAT_LIMITS in %llx",
		(unsigned long long)ixu.info.features);
	T_CHECK(ixu.info.ops & 1ULL << IXMOD_OP_TCP_CLOSE && ixu.info.sendv_max &&
		ixu.info.backlog_max, "limits: ops %llx, sendv_max %u, backlog_max %u",
		(unsigned long long)ixu.info.ops, ixu.info.sendv_max, ixu.info.backlog_max);
	T_CHECK(ixu.info.nr_cpu_ids > 0, "nr_cpu_ids");
	T_CHECK(ixu_has_feature(&ixu, 0), "the empty set");

	memset(&info, 0xa5, sizeof(info));
	T_CHECK(ixu_get_info(&ixu, &info) == 0, "get_info");
	T_CHECK((int)info.nr_cores == sysfs_nr_cores(), "nr_cores %u, sysfs %d",
		info.nr_cores, sysfs_nr_cores());
	T_CHECK(info.__pad == 0 && info.__pad2 == 0 && !info.resv, "reserved");

	ixu_close(&ixu);
	T_CHECK(ixu.fd == -1, "fd after close");
	ixu_close(&ixu);
	return T_EXIT_PASS;
}
