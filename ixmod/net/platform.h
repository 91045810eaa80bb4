/* SPDX-License-Identifier: GPL-2.0 */
/*
 * platform.h - the kernel services portable code may use
 *
 * Everything under ixmod/net/ and ixmod/nic/ builds both in the module and
 * on the host, and this header is that code's only way into the kernel:
 * a portable file includes "platform.h", its own headers and
 * <linux/ixmod.h>, nothing else.
 *
 * The host build pre-includes tools/testing/ixmod/platform_user.h, which
 * defines this include guard first, so on the host this file is opened but
 * contributes nothing (the tools/testing/vma/vma_internal.h pattern).  The
 * two files must stay in step: a name added here is added there, with the
 * same type and meaning, or the host build breaks.
 *
 * u8..u64, s8..s64, bool, size_t, __be16/__be32/__le16/__le32, __sum16,
 * READ_ONCE()/WRITE_ONCE() and likely()/unlikely() come from the kernel
 * headers below under their usual names.
 */
#ifndef _IXM_NET_PLATFORM_H
#define _IXM_NET_PLATFORM_H

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>

/*
 * Byte order.  Wire fields are big-endian ("network order", RFC 791
 * Appendix B) and keep their __be types until the moment they are used
 * as numbers, so that sparse (C=1) finds a missing conversion.
 */
#define ixm_htons(x)	cpu_to_be16(x)
#define ixm_ntohs(x)	be16_to_cpu(x)
#define ixm_htonl(x)	cpu_to_be32(x)
#define ixm_ntohl(x)	be32_to_cpu(x)

#endif /* _IXM_NET_PLATFORM_H */
