/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE 24-bit PSN serial arithmetic (MR-WIN-1).
 *
 * PSNs live in [0, 2^24) and wrap. Two PSNs are compared by the signed
 * distance a - b taken mod 2^24 and mapped to [-2^23, 2^23): a is "after"
 * b when the distance is positive. Exactly 2^23 apart counts as "before"
 * (distance -2^23); the 256-packet window keeps real traffic far from that.
 */
#ifndef MR_PROTO_PSN_H
#define MR_PROTO_PSN_H

#include "compat.h"

#define MR_PSN_BITS	24
#define MR_PSN_MASK	0x00ffffffU
#define MR_PSN_HALF	0x00800000U

/* True if @psn fits in 24 bits (upper byte of the wire word is zero). */
static inline bool mr_psn_valid(u32 psn)
{
	return psn <= MR_PSN_MASK;
}

static inline u32 mr_psn_add(u32 psn, u32 n)
{
	return (psn + n) & MR_PSN_MASK;
}

static inline u32 mr_psn_sub(u32 psn, u32 n)
{
	return (psn - n) & MR_PSN_MASK;
}

/* Forward distance from @b to @a mod 2^24, in [0, 2^24). */
static inline u32 mr_psn_dist(u32 a, u32 b)
{
	return (a - b) & MR_PSN_MASK;
}

/* Signed distance a - b in [-2^23, 2^23); no implementation-defined casts. */
static inline s32 mr_psn_diff(u32 a, u32 b)
{
	u32 d = mr_psn_dist(a, b);

	if (d >= MR_PSN_HALF)
		return (s32)d - (s32)(MR_PSN_MASK + 1);
	return (s32)d;
}

/* a strictly before b. */
static inline bool mr_psn_before(u32 a, u32 b)
{
	return mr_psn_diff(a, b) < 0;
}

/* a strictly after b. */
static inline bool mr_psn_after(u32 a, u32 b)
{
	return mr_psn_diff(a, b) > 0;
}

/* a before or equal to b. */
static inline bool mr_psn_before_eq(u32 a, u32 b)
{
	return mr_psn_diff(a, b) <= 0;
}

/* a after or equal to b. */
static inline bool mr_psn_after_eq(u32 a, u32 b)
{
	return mr_psn_diff(a, b) >= 0;
}

/* @psn in [base, base + size) mod 2^24; @size <= 2^24. */
static inline bool mr_psn_in_window(u32 psn, u32 base, u32 size)
{
	return mr_psn_dist(psn, base) < size;
}

/*
 * 32-bit serial numbers (MSN, SSN, microsecond timestamps): signed
 * distance a - b in [-2^31, 2^31), without implementation-defined casts.
 */
static inline s32 mr_seq32_diff(u32 a, u32 b)
{
	u32 d = a - b;

	if (d >= 0x80000000U)
		return -(s32)(~d) - 1;
	return (s32)d;
}

/* MBH timestamps count microseconds (MR-HDR-9). */
#define MR_NS_PER_US		1000ULL

#endif /* MR_PROTO_PSN_H */
