/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the only place that tests LINUX_VERSION_CODE
 *
 * ixmod builds against Debian's 6.1 and 6.12 kernels; what differs between
 * them is wrapped here, each with the release that changed it.
 */
#ifndef _IXMOD_COMPAT_H
#define _IXMOD_COMPAT_H

#include <linux/version.h>

/*
 * Tracepoints: __assign_str() lost its source argument in 6.10 (the
 * source given to __string() is used instead).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define ixm_trace_assign_str(dst, src)	__assign_str(dst)
#else
#define ixm_trace_assign_str(dst, src)	__assign_str(dst, src)
#endif

#endif /* _IXMOD_COMPAT_H */
