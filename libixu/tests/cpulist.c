// SPDX-License-Identifier: MIT
/*
 * cpulist - ixu_cpulist_parse(), the one cpulist parser of libixu and the
 * programs on it (ixev_run_cores(), udp-echo, tcp-echo, the selftests)
 *
 * Cpulists as the kernel writes them come out in the order written; a
 * malformed one, or one naming more CPUs than fit, is -EINVAL, never a
 * partial list.  Without the module (no /sys/kernel/ixmod/cores) a NULL
 * list is -ENOENT.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "ixu.h"
#include "helpers.h"

static const struct {
	const char	*list;
	int		ret;
	unsigned int	cpus[8];
} cases[] = {
	{ "0",		1,	 { 0 } },
	{ "1-3,5",	4,	 { 1, 2, 3, 5 } },
	{ "1-3,5\n",	4,	 { 1, 2, 3, 5 } },
	{ "7,2",	2,	 { 7, 2 } },
	{ "4-4",	1,	 { 4 } },
	{ "0-7",	8,	 { 0, 1, 2, 3, 4, 5, 6, 7 } },
	{ "",		0,	 { 0 } },	/* no dataplane core */
	{ "\n",		0,	 { 0 } },
	{ "0-8",	-EINVAL, { 0 } },	/* 9 CPUs, 8 fit */
	{ "0,1,2,3,4,5,6,7,8", -EINVAL, { 0 } },
	{ "3-1",	-EINVAL, { 0 } },
	{ "1-3x",	-EINVAL, { 0 } },
	{ "a",		-EINVAL, { 0 } },
	{ "1,,2",	-EINVAL, { 0 } },
	{ ",1",		-EINVAL, { 0 } },
	{ "1;2",	-EINVAL, { 0 } },
};

int main(void)
{
	unsigned int i, cpus[8];
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(cpus, 0xff, sizeof(cpus));
		ret = ixu_cpulist_parse(cases[i].list, cpus, 8);
		T_CHECK(ret == cases[i].ret, "'%s': %d, want %d", cases[i].list, ret,
			cases[i].ret);
		T_CHECK(ret <= 0 || !memcmp(cpus, cases[i].cpus, ret * sizeof(cpus[0])),
			"'%s': other CPUs", cases[i].list);
	}
	ret = ixu_cpulist_parse(NULL, cpus, 8);
	if (access("/sys/kernel/ixmod/cores", F_OK))
		T_CHECK(ret == -ENOENT, "NULL without the module: %d", ret);
	else
		T_CHECK(ret >= 0 || ret == -EINVAL, "NULL: %d", ret);
	return T_EXIT_PASS;
}
