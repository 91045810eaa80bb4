/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the only place that tests LINUX_VERSION_CODE
 *
 * ixmod builds against Debian's 6.1 and 6.12 kernels; what differs between
 * them is wrapped here, each with the release that changed it.
 */
#ifndef _IXMOD_COMPAT_H
#define _IXMOD_COMPAT_H

#include <linux/mm.h>
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

/*
 * vm_flags became read-only in 6.3; vm_flags_set()/vm_flags_clear() (which
 * also take care of the VMA lock) replaced direct writes.
 */
static inline void ixm_vma_set_flags(struct vm_area_struct *vma, unsigned long set,
				     unsigned long clear)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

#endif /* _IXMOD_COMPAT_H */
