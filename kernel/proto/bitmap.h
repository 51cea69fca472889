/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE 256-bit maps: the shape of every per-PSN or per-unit record
 * the core keeps over one window (MR_SACK_BITS, the SACK bitmap's size,
 * MR-HDR-18): the receive window's received PSNs (rxwin), the message
 * tracker's counted PSNs (rxmsg), a READ's arrived units (rdasm). Bit i
 * lives in word i / 64 at position i % 64, as the AKH's SACK words
 * number their bits (MR-HDR-18).
 *
 * Bit indices must be below MR_SACK_BITS; the callers check them.
 */
#ifndef MR_PROTO_BITMAP_H
#define MR_PROTO_BITMAP_H

#include "compat.h"
#include "wire.h"

static inline bool mr_map_test(const u64 *m, u32 i)
{
	return (m[i / 64] >> (i % 64)) & 1;
}

static inline void mr_map_set(u64 *m, u32 i)
{
	m[i / 64] |= 1ULL << (i % 64);
}

static inline void mr_map_clear_all(u64 *m)
{
	u32 i;

	for (i = 0; i < MR_SACK_WORDS; i++)
		m[i] = 0;
}

static inline bool mr_map_empty(const u64 *m)
{
	u32 i;

	for (i = 0; i < MR_SACK_WORDS; i++)
		if (m[i])
			return false;
	return true;
}

/* Shift down by @n bits (n >= 1): bit n becomes bit 0, the top fills with 0. */
void mr_map_shr(u64 *m, u32 n);

/* Shift up by @n bits (n >= 1): bit 0 becomes bit n, the bottom fills with 0. */
void mr_map_shl(u64 *m, u32 n);

/* Number of consecutive set bits from bit 0 (0..MR_SACK_BITS). */
u32 mr_map_run(const u64 *m);

/*
 * Index of the first bit at or after @from whose value is @set, or
 * MR_SACK_BITS if there is none.
 */
u32 mr_map_find(const u64 *m, u32 from, bool set);

/*
 * A map of the PSNs below @hi, one past the highest PSN marked: bit i
 * is PSN hi - 1 - i (the message trackers' duplicate records, rxmsg and
 * ucrecv). A PSN older than the map counts as marked (too old to tell).
 */
bool mr_psnmap_test(const u64 *m, u32 hi, u32 psn);

/* Mark @psn, sliding the map (and *@hi) forward if it is past *@hi. */
void mr_psnmap_set(u64 *m, u32 *hi, u32 psn);

#endif /* MR_PROTO_BITMAP_H */
