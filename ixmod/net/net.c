// SPDX-License-Identifier: GPL-2.0
/*
 * net.c - the names of the drop counters (enum ixm_drop_reason)
 *
 * The names are sysfs file names (/sys/kernel/ixmod/ports/<port>/drops/)
 * and ABI: Documentation/ABI/testing/sysfs-ixmod lists them.  The build
 * checks that the table is as long as the enum, so a reason added at the
 * end of net.h without a name here does not compile; the host test
 * (tools/testing/ixmod/unit/eth.c) checks that no slot is empty and that
 * the names are distinct.
 */
#include "platform.h"
#include "net.h"

#define IXM_DROP_NAME(u, l)	[IXM_DROP_##u] = #l,
const char * const ixm_drop_names[] = {
	IXM_DROP_REASONS(IXM_DROP_NAME)
};
#undef IXM_DROP_NAME
_Static_assert(ARRAY_SIZE(ixm_drop_names) == IXM_DROP_MAX,
	       "ixm_drop_names[] must name every enum ixm_drop_reason");
