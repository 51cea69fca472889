/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE portable protocol core: the one door to kernel or libc types.
 *
 * Every file under kernel/proto/ includes this header and no system header
 * of its own, so the same C builds unchanged in the Linux 6.1 kernel
 * (__KERNEL__) and in userspace (host unit tests, fuzzers, model test).
 *
 * In the kernel the __be* types are sparse "bitwise" types: code must go
 * through cpu_to_be*()/be*_to_cpu() for every wire field. In userspace
 * they are plain integers and the same macros map to <endian.h>.
 */
#ifndef MR_PROTO_COMPAT_H
#define MR_PROTO_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <asm/byteorder.h>
#include <linux/math64.h>
#include <linux/bitops.h>
#ifdef MR_KERNEL_CRC32C
/* Opt-in: use the kernel's (accelerated) crc32c; needs libcrc32c loaded. */
#include <linux/crc32c.h>
#endif

#else /* userspace */

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <errno.h>
#include <endian.h>

/* Same widths and (for u64/s64) the same C types as the kernel's. */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;

typedef uint16_t __be16;
typedef uint32_t __be32;
typedef unsigned long long __be64;

#define cpu_to_be16(x) ((__be16)htobe16((u16)(x)))
#define cpu_to_be32(x) ((__be32)htobe32((u32)(x)))
#define cpu_to_be64(x) ((__be64)htobe64((u64)(x)))
#define be16_to_cpu(x) ((u16)be16toh((u16)(x)))
#define be32_to_cpu(x) ((u32)be32toh((u32)(x)))
#define be64_to_cpu(x) ((u64)be64toh((u64)(x)))

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
/*
 * The kernel's own spelling of attributes, for userspace builds of the
 * core. MR_GNU_ATTR keeps the raw attribute syntax in one place.
 */
#define MR_GNU_ATTR(x) __attribute__((x))
#ifndef __packed
#define __packed MR_GNU_ATTR(__packed__)
#endif

#endif /* __KERNEL__ */

/* Compile-time check usable at file scope in both worlds (C11). */
#define MR_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)

/*
 * 64-bit division: plain '/' on u64 does not link on 32-bit kernels, so
 * core code divides through this helper (div64_u64() in the kernel).
 */
#ifdef __KERNEL__
static inline u64 mr_div64_u64(u64 a, u64 b)
{
	return div64_u64(a, b);
}
#else
static inline u64 mr_div64_u64(u64 a, u64 b)
{
	return a / b;
}
#endif

/*
 * Index of the lowest set bit of a non-zero u64 (undefined for 0): the
 * kernel's __ffs64(), which is a single instruction where the CPU has one
 * and never a libgcc call on 32-bit; the compiler builtin in userspace.
 */
#ifdef __KERNEL__
static inline unsigned int mr_ctz64(u64 x)
{
	return (unsigned int)__ffs64(x);
}
#else
static inline unsigned int mr_ctz64(u64 x)
{
	return (unsigned int)__builtin_ctzll(x);
}
#endif

/*
 * MR_KUNIT_EXPORT(sym), right after a definition the kernel's KUnit suites
 * (kernel/tests/) call: exported only in the KUnit tier's build of the
 * module (MROCE_KUNIT_EXPORTS, kernel/Kbuild); nothing anywhere else.
 */
#if defined(__KERNEL__) && defined(MROCE_KUNIT_EXPORTS)
#include <linux/export.h>
#define MR_KUNIT_EXPORT(sym) EXPORT_SYMBOL_GPL(sym)
#else
/* Something that takes the caller's ';' (a bare one is pedantic C). */
#define MR_KUNIT_EXPORT(sym) MR_STATIC_ASSERT(1, #sym)
#endif

#define MR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Side-effect-free arguments only (evaluated twice). */
#define MR_MIN(a, b) ((a) < (b) ? (a) : (b))
#define MR_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif /* MR_PROTO_COMPAT_H */
