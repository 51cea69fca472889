/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE requester side of one READ or ATOMIC message in flight: which
 * response bytes to place, what counts as progress, and what to send next
 * for it - the READ's next range, a round of asking again for what is
 * missing after a stall or a trim (MR-REL-24, MR-LOSS-14, MR-REL-16), an
 * atomic re-sent under its own PSN (MR-REL-27) - or that its retry budget
 * is spent (MR-RETRY-1, MR-RETRY-2, MR-RETRY-8).
 *
 * Decisions only: the caller walks its READ/ATOMIC messages in order,
 * sends what mr_rdreq_next() names, reports what it sent, and places the
 * bytes. Built on rdasm (what arrived, what was asked).
 */
#ifndef MR_PROTO_RDREQ_H
#define MR_PROTO_RDREQ_H

#include "compat.h"
#include "rdasm.h"
#include "txsb.h"

struct mr_rdreq {
	struct mr_rdasm rd;	/* READ: what arrived and what was asked */
	u32 ask_from;		/* the current round asks again from here */
	u32 ask_end;		/* ... up to here */
	bool asking;		/* a round of asking again is under way */
	u32 hi;			/* end of the highest response bytes placed */
	/*
	 * RACK for responses (MR-LOSS-14): the holes below rack_end were
	 * asked for again (a lost re-request is the RTO's); rack_due says
	 * that one opened above it, at hole_ns.
	 */
	u32 rack_end;
	bool rack_due;
	u64 hole_ns;
	/*
	 * Responses were trimmed (MR-REL-16): ask again now for what is
	 * missing in [trim_from, trim_end), the pieces they named (the
	 * span of them when several were trimmed before the next walk).
	 */
	bool trimmed;
	u32 trim_from;
	u32 trim_end;
	/*
	 * The current round asks again after a stall (the RTO rule of
	 * MR-LOSS-14), or the atomic was re-sent after one: responses were
	 * lost on their way back (MR-MP-34). stall_new: the caller has not
	 * yet acted on this stall (mr_rdreq_stall_taken()).
	 */
	bool stalled;
	bool stall_new;
	u32 retries;		/* re-requests counted against retry_cnt */
	u64 retry_ns;		/* when one was last counted, or progress */
	u64 progress_ns;	/* when response data last arrived */
};

/* What the requester knows when it decides for one message. */
struct mr_rdreq_env {
	u64 now;
	/* latest response progress of the READs/ATOMICs before this one */
	u64 ahead_ns;
	u64 rto_ns;
	u64 reo_wnd_ns;		/* the RACK reordering window (MR-LOSS-14) */
	u64 verbs_timeout_ns;	/* MR_TIME_NEVER: retries are not counted */
	u32 retry_cnt;
	/* the message's latest request PSN is unacknowledged, in flight */
	bool req_in_flight;
	/*
	 * A request packet may go now: no RNR pause (MR-RETRY-8), and the
	 * window, credit and pacer let it (MR-CC-2, MR-CC-3, MR-CC-12).
	 */
	bool can_send;
	/*
	 * READ bytes requested and not arrived, all the QP's READs, and the
	 * most it may have (bounds the responder's bursts).
	 */
	u32 rd_bytes_out;
	u32 rd_bytes_max;
};

enum mr_rdreq_act {
	MR_RDREQ_NONE,		/* nothing for this message now */
	MR_RDREQ_MORE,		/* READ: request the next range [off, +len) */
	MR_RDREQ_AGAIN,		/* READ: ask again for [off, +len) (RETX) */
	MR_RDREQ_ATOMIC_AGAIN,	/* re-send the atomic under its own PSN */
	MR_RDREQ_FAIL,		/* retries exhausted: RETRY_EXC_ERR */
	MR_RDREQ_STOP,		/* nothing may be sent: stop the walk */
};

/* The message's first request goes out (@len: READ length, else 0). */
void mr_rdreq_start(struct mr_rdreq *q, u32 len, u64 now);

/*
 * What to send next for READ (@read) or ATOMIC message @q, whose request
 * was sent. Fills [*off, *off + *len) for MORE and AGAIN. May count a
 * retry (FAIL once over the budget). After sending MORE or AGAIN the
 * caller reports it (mr_rdreq_sent()) and may ask again for the same
 * message while its budget of packets lasts.
 */
enum mr_rdreq_act mr_rdreq_next(struct mr_rdreq *q, bool read,
				const struct mr_rdreq_env *env, u32 *off,
				u32 *len);

/*
 * True once per stall, when mr_rdreq_next() answered it: the caller moves
 * the path that the message's latest request used (MR-MP-34).
 */
static inline bool mr_rdreq_stall_taken(struct mr_rdreq *q)
{
	bool n = q->stall_new;

	q->stall_new = false;
	return n;
}

/*
 * A trimmed READ_RESP that matches the READ by MSN and PSN (MR-REL-26)
 * named piece [off, end), not yet arrived: mr_rdreq_next() asks for it
 * again at once, without a retry counted (MR-REL-16, MR-REL-24).
 */
void mr_rdreq_trimmed(struct mr_rdreq *q, u32 off, u32 end);

/* The READ_REQ that mr_rdreq_next() named (MORE or AGAIN) went out. */
void mr_rdreq_sent(struct mr_rdreq *q, enum mr_rdreq_act act, u32 off,
		   u32 len);

/*
 * A READ_RESP with bytes [off, off + len): true if they are new bytes of
 * a range asked for, to be placed once (MR-PLACE-6).
 */
static inline bool mr_rdreq_resp_new(const struct mr_rdreq *q, u32 off,
				     u32 len)
{
	return mr_rdasm_check(&q->rd, off, len) == MR_RDASM_PLACE;
}

/* Bytes below the highest ones placed are missing (MR-LOSS-14). */
static inline bool mr_rdreq_hole(const struct mr_rdreq *q)
{
	return q->rd.done < q->hi;
}

/*
 * Those bytes were placed: progress (MR-RETRY-2). Returns the bytes no
 * longer outstanding (arrived in order).
 */
u32 mr_rdreq_placed(struct mr_rdreq *q, u32 off, u32 len, u64 now);

#endif /* MR_PROTO_RDREQ_H */
