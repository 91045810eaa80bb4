// SPDX-License-Identifier: MIT
/*
 * ixu-info - print what /dev/ixmod reports: ABI version, features, cores
 *
 * Usage: ixu-info        exit status 0, or 1 with the reason on stderr
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ixu.h"

int main(void)
{
	struct ixu ixu;
	int ret;

	ret = ixu_open(&ixu, 0);
	if (ret) {
		fprintf(stderr, "ixu-info: cannot open %s: %s%s\n", IXMOD_DEV_PATH,
			strerror(-ret), ret == -ENOENT ? " (is ixmod loaded?)" : "");
		return 1;
	}
	printf("abi_version  %u\n", ixu.info.abi_version);
	printf("features     0x%llx\n", (unsigned long long)ixu.info.features);
	printf("nr_cores     %u\n", ixu.info.nr_cores);
	printf("nr_cpu_ids   %u\n", ixu.info.nr_cpu_ids);
	ixu_close(&ixu);
	return 0;
}
