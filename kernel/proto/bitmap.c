// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE 256-bit maps (bitmap.h).
 */
#include "bitmap.h"

void mr_map_shr(u64 *m, u32 n)
{
	u32 ws = n / 64, bs = n % 64, i;

	for (i = 0; i < MR_SACK_WORDS; i++) {
		u64 v = 0;

		if (i + ws < MR_SACK_WORDS) {
			v = m[i + ws] >> bs;
			if (bs && i + ws + 1 < MR_SACK_WORDS)
				v |= m[i + ws + 1] << (64 - bs);
		}
		m[i] = v;
	}
}

void mr_map_shl(u64 *m, u32 n)
{
	u32 ws = n / 64, bs = n % 64, i;

	for (i = MR_SACK_WORDS; i-- > 0;) {
		u64 v = 0;

		if (i >= ws) {
			v = m[i - ws] << bs;
			if (bs && i > ws)
				v |= m[i - ws - 1] >> (64 - bs);
		}
		m[i] = v;
	}
}

u32 mr_map_run(const u64 *m)
{
	return mr_map_find(m, 0, false);
}

u32 mr_map_find(const u64 *m, u32 from, bool set)
{
	u32 w = from / 64;
	u64 bits;

	if (from >= MR_SACK_BITS)
		return MR_SACK_BITS;
	bits = (set ? m[w] : ~m[w]) & (~0ULL << (from % 64));
	for (;;) {
		if (bits)
			return w * 64 + mr_ctz64(bits);
		if (++w == MR_SACK_WORDS)
			return MR_SACK_BITS;
		bits = set ? m[w] : ~m[w];
	}
}

bool mr_psnmap_test(const u64 *m, u32 hi, u32 psn)
{
	u32 k;

	if (mr_psn_after_eq(psn, hi))
		return false;
	k = mr_psn_dist(hi, psn) - 1;
	if (k >= MR_SACK_BITS)
		return true;
	return mr_map_test(m, k);
}

void mr_psnmap_set(u64 *m, u32 *hi, u32 psn)
{
	if (mr_psn_after_eq(psn, *hi)) {
		/* Slide: PSNs skipped over stay unmarked (0) in the map. */
		mr_map_shl(m, mr_psn_dist(psn, *hi) + 1);
		*hi = mr_psn_add(psn, 1);
	}
	mr_map_set(m, mr_psn_dist(*hi, psn) - 1);
}
