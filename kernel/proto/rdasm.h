/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE requester side of READ: the reassembly of one READ message
 * from its READ_RESPs, and what to ask the responder for next.
 *
 * A READ of len bytes is requested in ranges (READ_REQs) of at most
 * MR_RDASM_WINDOW bytes past the bytes that arrived in order, so that a
 * responder never has more than that in flight for it (MR-REL-31) and
 * the arrivals fit one 256-bit map: one bit per MR_RDASM_UNIT bytes (the
 * smallest PMTU, so every READ_RESP starts on a unit, MR-HDR-10). The
 * tracker answers three questions:
 *
 *  - may this READ_RESP's payload be placed (mr_rdasm_check(): only
 *    bytes of a range asked for, once, MR-PLACE-6);
 *  - which new range to request (mr_rdasm_next());
 *  - which bytes are missing, one maximal run at a time
 *    (mr_rdasm_gap()), so that a stalled or trimmed READ asks again for
 *    exactly those (MR-REL-24).
 *
 * No I/O: the caller copies the payload and sends the READ_REQs.
 */
#ifndef MR_PROTO_RDASM_H
#define MR_PROTO_RDASM_H

#include "compat.h"
#include "bitmap.h"

#define MR_RDASM_UNIT_SHIFT	8
#define MR_RDASM_UNIT		(1U << MR_RDASM_UNIT_SHIFT)
/* Bytes a READ may have requested past the bytes that arrived in order. */
#define MR_RDASM_WINDOW		(MR_SACK_BITS << MR_RDASM_UNIT_SHIFT)

struct mr_rdasm {
	u32	len;		/* the READ's length */
	u32	done;		/* bytes [0, done) arrived */
	u32	req_end;	/* bytes [0, req_end) requested */
	u32	range;		/* longest range per READ_REQ; 0: the window */
	u64	map[MR_SACK_WORDS];	/* units from done that arrived */
};

/* mr_rdasm_check() verdicts */
enum {
	MR_RDASM_PLACE = 0,	/* new bytes: place them, then mr_rdasm_mark() */
	MR_RDASM_DUP,		/* every byte arrived before */
	MR_RDASM_BAD,		/* not a READ_RESP of a range asked for */
};

void mr_rdasm_init(struct mr_rdasm *r, u32 len);

/*
 * A READ_RESP carrying bytes [off, off + len) of this READ: a chunk
 * starts on a unit and is a whole number of units, except the READ's last
 * chunk; it lies within what was requested.
 */
int mr_rdasm_check(const struct mr_rdasm *r, u32 off, u32 len);

/*
 * Record bytes [off, off + len) as arrived (mr_rdasm_check() said
 * MR_RDASM_PLACE). Returns by how much done advanced: the bytes no
 * longer outstanding.
 */
u32 mr_rdasm_mark(struct mr_rdasm *r, u32 off, u32 len);

static inline bool mr_rdasm_complete(const struct mr_rdasm *r)
{
	return r->done == r->len;
}

/* Requested and not arrived, counting arrived bytes above done too. */
static inline u32 mr_rdasm_outstanding(const struct mr_rdasm *r)
{
	return r->req_end - r->done;
}

/*
 * Ask in ranges of at most @range bytes (rounded down to a unit, at most
 * the window), each its own READ_REQ, as many as the window holds, so
 * that the responses of one READ go back on as many paths as its
 * requests took (MR-MP-28). Before mr_rdasm_first(); 0 (the default)
 * asks by window.
 */
void mr_rdasm_split(struct mr_rdasm *r, u32 range);

/*
 * The READ's first range, [0, return value): what its first READ_REQ asks
 * for (a READ of 0 bytes asks for 0 bytes), recorded as requested.
 */
u32 mr_rdasm_first(struct mr_rdasm *r);

/*
 * The next new range to request after the first, [*off, *off + *len):
 * once at most half of the window is still outstanding, the bytes up to
 * done + MR_RDASM_WINDOW; split (mr_rdasm_split()), the next range of
 * the split length (or the READ's rest) once it fits the window. False
 * if there is none now.
 */
bool mr_rdasm_next(const struct mr_rdasm *r, u32 *off, u32 *len);

/* The caller sent the READ_REQ for mr_rdasm_next()'s range. */
void mr_rdasm_requested(struct mr_rdasm *r, u32 end);

/*
 * The first maximal run of requested bytes that did not arrive, starting
 * at or after @from: [*off, *off + *len), within [done, req_end). False
 * if there is none. A caller asking again for every missing byte walks
 * the runs with from = the previous run's end.
 */
bool mr_rdasm_gap(const struct mr_rdasm *r, u32 from, u32 *off, u32 *len);

#endif /* MR_PROTO_RDASM_H */
