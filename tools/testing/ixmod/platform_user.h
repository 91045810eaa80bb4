/* SPDX-License-Identifier: GPL-2.0 */
/*
 * platform_user.h - ixmod/net/platform.h for the host
 *
 * The Makefile pre-includes this file (-include) ahead of every portable
 * source file and every test.  It defines platform.h's include guard,
 * _IXM_NET_PLATFORM_H, so the portable files' #include "platform.h" finds
 * the guard already set and pulls in no kernel header: the pattern of
 * tools/testing/vma/vma_internal.h.
 *
 * Each name here means what it means in the kernel, built from libc.  The
 * types match <linux/types.h> exactly (u64 is unsigned long long as in the
 * kernel, __be16 is the same unsigned short as the UAPI's), so portable
 * code may also include <linux/ixmod.h> without a clash.  Sparse's
 * __bitwise and __force annotations compile to nothing here; the kernel
 * build with C=1 is where they are checked.
 */
#ifndef _IXM_NET_PLATFORM_H
#define _IXM_NET_PLATFORM_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;

#ifndef __bitwise
#define __bitwise
#endif
#ifndef __force
#define __force
#endif

typedef uint16_t __be16;
typedef uint16_t __le16;
typedef uint32_t __be32;
typedef uint32_t __le32;
typedef unsigned long long __be64;
typedef unsigned long long __le64;
typedef uint16_t __sum16;
typedef uint32_t __wsum;

#define ixm_htons(x)	((__be16)htobe16(x))
#define ixm_ntohs(x)	((u16)be16toh(x))
#define ixm_htonl(x)	((__be32)htobe32(x))
#define ixm_ntohl(x)	((u32)be32toh(x))

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

/*
 * One access, neither torn nor repeated: a relaxed atomic is what
 * READ_ONCE() and WRITE_ONCE() promise, and ThreadSanitizer understands it.
 */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)

#define __maybe_unused		__attribute__((__unused__))
#define noinline		__attribute__((__noinline__))

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
/* A statement, as in the kernel: a negative array size if @cond holds. */
#define BUILD_BUG_ON(cond)	((void)sizeof(char[1 - 2 * !!(cond)]))

/*
 * The host has no modules to export to: the exports become empty
 * declarations that only carry the caller's semicolon.
 */
#define EXPORT_SYMBOL(sym)	_Static_assert(1, #sym)
/* (the same for GPL-only exports) */
#define EXPORT_SYMBOL_GPL(sym)	_Static_assert(1, #sym)

#endif /* _IXM_NET_PLATFORM_H */
