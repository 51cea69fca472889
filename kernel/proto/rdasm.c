// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE requester side of READ: reassembly and re-requests (rdasm.h).
 */
#include "rdasm.h"
#include "rdresp.h"

/* A responder refuses longer ranges (MR-REL-31): never ask for them. */
MR_STATIC_ASSERT(MR_RDASM_WINDOW <= MR_READ_RANGE_MAX, "READ window");

void mr_rdasm_init(struct mr_rdasm *r, u32 len)
{
	r->len = len;
	r->done = 0;
	r->req_end = 0;
	r->range = 0;
	mr_map_clear_all(r->map);
}

int mr_rdasm_check(const struct mr_rdasm *r, u32 off, u32 len)
{
	u64 end = (u64)off + len;
	u32 first, last, u;

	if (!len || end > r->req_end || (off & (MR_RDASM_UNIT - 1)) ||
	    ((len & (MR_RDASM_UNIT - 1)) && end != r->len))
		return MR_RDASM_BAD;
	if (off < r->done)
		return MR_RDASM_DUP;
	/* req_end <= done + MR_RDASM_WINDOW: both indices fit the map. */
	first = (off - r->done) >> MR_RDASM_UNIT_SHIFT;
	last = (u32)((end - 1 - r->done) >> MR_RDASM_UNIT_SHIFT);
	if (last >= MR_SACK_BITS)
		return MR_RDASM_BAD;
	for (u = first; u <= last; u++)
		if (mr_map_test(r->map, u))
			return MR_RDASM_DUP;
	return MR_RDASM_PLACE;
}

u32 mr_rdasm_mark(struct mr_rdasm *r, u32 off, u32 len)
{
	u32 first = (off - r->done) >> MR_RDASM_UNIT_SHIFT;
	u32 last = (u32)(((u64)off + len - 1 - r->done) >> MR_RDASM_UNIT_SHIFT);
	u32 old = r->done, run, u;

	for (u = first; u <= last; u++)
		mr_map_set(r->map, u);
	run = mr_map_run(r->map);
	if (run) {
		mr_map_shr(r->map, run);
		/* The READ's last unit may be short. */
		r->done = (u32)MR_MIN((u64)r->done + ((u64)run << MR_RDASM_UNIT_SHIFT),
				      (u64)r->len);
	}
	return r->done - old;
}

void mr_rdasm_split(struct mr_rdasm *r, u32 range)
{
	r->range = MR_MIN(range & ~(MR_RDASM_UNIT - 1), MR_RDASM_WINDOW);
}

u32 mr_rdasm_first(struct mr_rdasm *r)
{
	r->req_end = MR_MIN(r->len, MR_RDASM_WINDOW);
	if (r->range && r->req_end > r->range)
		r->req_end = r->range;
	return r->req_end;
}

bool mr_rdasm_next(const struct mr_rdasm *r, u32 *off, u32 *len)
{
	u64 end;

	if (r->req_end >= r->len)
		return false;
	if (r->range) {
		/* A whole range, not the sliver the last arrival freed. */
		end = MR_MIN((u64)r->req_end + r->range, (u64)r->len);
		if (end > (u64)r->done + MR_RDASM_WINDOW)
			return false;
	} else {
		if (r->req_end - r->done > MR_RDASM_WINDOW / 2)
			return false;
		end = MR_MIN((u64)r->done + MR_RDASM_WINDOW, (u64)r->len);
	}
	*off = r->req_end;
	*len = (u32)(end - r->req_end);
	return true;
}

void mr_rdasm_requested(struct mr_rdasm *r, u32 end)
{
	if (end > r->req_end)
		r->req_end = end;
}

bool mr_rdasm_gap(const struct mr_rdasm *r, u32 from, u32 *off, u32 *len)
{
	u64 start, end;
	u32 z, s;

	if (from < r->done)
		from = r->done;
	if (from >= r->req_end)
		return false;
	z = mr_map_find(r->map, (from - r->done) >> MR_RDASM_UNIT_SHIFT, false);
	start = (u64)r->done + ((u64)z << MR_RDASM_UNIT_SHIFT);
	if (z >= MR_SACK_BITS || start >= r->req_end)
		return false;
	s = mr_map_find(r->map, z, true);
	end = (u64)r->done + ((u64)s << MR_RDASM_UNIT_SHIFT);
	if (s >= MR_SACK_BITS || end > r->req_end)
		end = r->req_end;
	*off = (u32)start;
	*len = (u32)(end - start);
	return true;
}
