/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE responder message tracker: in-order completion (MR-PLACE-2).
 *
 * Packets are placed as soon as they arrive (self-describing DXH), but a
 * request message completes - SEND/WRITE_IMM consume their receive WQE
 * and generate a CQE, READ_REQ and ATOMIC_* execute - only once all of
 * its bytes arrived AND every earlier message (lower msn) completed.
 * mr_rxmsg_pop_completed() hands completions out strictly in msn order,
 * each exactly once.
 *
 * Duplicates are recognised per packet (by PSN), never by byte sums: a
 * PSN already counted is reported MR_RXMSG_DUP and adds nothing. The PSN
 * record is a 256-bit map below the highest PSN seen; with the receive
 * window in front (rxwin.h) every PSN not yet received lies inside it.
 *
 * Invalid input (msn outside [head, head + MR_RXMSG_RING) except READ
 * re-requests, a msg_len, opcode or other field that disagrees with
 * earlier packets of the same msn, bytes beyond msg_len) returns a
 * negative enum mr_err and changes nothing.
 *
 * Not detected here: a sender that skips an msn (MR-REL-25 makes that an
 * invalid request once cum_psn passes the later message); the tracker
 * then simply never completes past the gap.
 */
#ifndef MR_PROTO_RXMSG_H
#define MR_PROTO_RXMSG_H

#include "compat.h"
#include "psn.h"
#include "wire.h"

/* Messages in flight >= PSNs in flight: each message takes >= 1 PSN. */
#define MR_RXMSG_RING		MR_WINDOW
/* Extra READ_REQ ranges (split READs, re-requests) awaiting execution. */
#define MR_RXMSG_RDX		32

/* Positive returns of mr_rxmsg_add(). */
#define MR_RXMSG_DUP		1	/* PSN already counted: nothing new */
#define MR_RXMSG_READ_RANGE	2	/* extra READ_REQ range, see below */

/* One request message: ring slot and completion record. */
struct mr_rxmsg_info {
	u32	msn;
	u32	msg_len;	/* DXH.msg_len (READ_REQ: requested length) */
	u32	bytes;		/* distinct payload bytes received */
	u32	first_psn;	/* lowest PSN seen for this message */
	u32	last_psn;	/* highest PSN seen for this message */
	u32	ssn;		/* receive WQE index (SEND*, WRITE_IMM) */
	u32	imm;		/* IMM (SEND_IMM, WRITE_IMM) or IETH rkey */
	u32	offset;		/* READ_REQ: first requested byte */
	u32	rkey;		/* RXH/AXH rkey */
	u64	va;		/* RXH/AXH va */
	u64	swap_add;	/* ATOMIC_* */
	u64	compare;	/* ATOMIC_CS */
	u16	flags;		/* union of MBH flags of its packets */
	u16	npkts;		/* distinct packets received (saturating) */
	u8	opcode;
	/*
	 * MBH.path of its first packet received: a READ or atomic executes
	 * when the messages before it complete, maybe on another path's
	 * packet, and its responses echo its own path (MR-MP-15)
	 */
	u8	path;
	u8	active;		/* slot in use */
	u8	extra;		/* extra READ range: msn count unchanged */
};

struct mr_rxmsg {
	u32	head_msn;	/* oldest message not completed */
	u32	psn_hi;		/* one past the highest PSN seen */
	u32	cum_psn;	/* first PSN not seen: all before it were */
	u32	n_rdat;		/* READ/ATOMIC message records in ring */
	bool	stop_valid;	/* nothing at or after stop_psn completes */
	u32	stop_psn;
	u64	psn_map[MR_SACK_WORDS];	/* bit i: PSN psn_hi - 1 - i seen */
	struct mr_rxmsg_info rdx[MR_RXMSG_RDX];
	struct mr_rxmsg_info ring[MR_RXMSG_RING];
};

/*
 * @init_msn: first request msn expected (0 for a new QP); @init_psn: the
 * responder's initial PSN (same as for mr_rxwin_init()); every PSN before
 * it counts as seen.
 */
void mr_rxmsg_init(struct mr_rxmsg *m, u32 init_msn, u32 init_psn);

/*
 * Account one decoded request packet (opcode with MR_OPA_REQ, not
 * trimmed) whose PSN the receive window classified new. Returns:
 *  0 - counted towards its message;
 *  MR_RXMSG_DUP - its PSN was already counted, nothing changed;
 *  MR_RXMSG_READ_RANGE - a READ_REQ for a READ already recorded or
 *	completed (split READ or re-request, MR-REL-24/25): its PSN is now
 *	counted and the range queued; it is no new message and comes out of
 *	mr_rxmsg_pop_completed() with info.extra = 1 when due (MR-PLACE-16);
 *  or a negative enum mr_err without any change: MR_ERR_MSN_OLD (msn
 *  already completed, not a READ_REQ), MR_ERR_MSN_RANGE, MR_ERR_NOSPACE
 *  (the extra-range queue is full: a transient lack, MR-REL-34),
 *  MR_ERR_MSG_MISMATCH (fields differ from the
 *  message record, MR-PLACE-14; an ATOMIC under a second PSN),
 *  MR_ERR_RANGE, MR_ERR_INVAL.
 */
int mr_rxmsg_add(struct mr_rxmsg *m, const struct mr_pkt *p);

/*
 * mr_rxmsg_add() in two steps, for a packet that is placed in between:
 * mr_rxmsg_check() returns what mr_rxmsg_add() would, changing nothing;
 * mr_rxmsg_record() then counts a packet it passed (0 or
 * MR_RXMSG_READ_RANGE), with the same return. A packet whose placement
 * fails is the error point and leaves no trace here (MR-VERBS-24).
 */
int mr_rxmsg_check(const struct mr_rxmsg *m, const struct mr_pkt *p);
int mr_rxmsg_record(struct mr_rxmsg *m, const struct mr_pkt *p);

/* True if every byte of the oldest tracked message has arrived. */
bool mr_rxmsg_head_complete(const struct mr_rxmsg *m);

/*
 * Hand out the next thing to complete or execute: the oldest message once
 * all its bytes arrived and cum_psn has passed its last PSN (so every
 * earlier PSN arrived too, MR-PLACE-2), or a queued extra READ range
 * (info.extra = 1) once cum_psn has passed its PSN, whichever has the
 * lower PSN (MR-PLACE-16). Copies it to @out (may be NULL), releases it and
 * returns true; false if nothing is ready. Messages come out in msn order,
 * each exactly once; only they advance the completed-msn count.
 *
 * cum_psn here is the tracker's own (first PSN not counted by
 * mr_rxmsg_add()); it equals the window's cum_psn when, as intended, every
 * PSN the window marks was first counted here.
 */
bool mr_rxmsg_pop_completed(struct mr_rxmsg *m, struct mr_rxmsg_info *out);

static inline u32 mr_rxmsg_cum_psn(const struct mr_rxmsg *m)
{
	return m->cum_psn;
}

/*
 * READ and ATOMIC messages recorded and not yet executed (extra READ
 * ranges not counted): against max_dest_rd_atomic (MR-VERBS-15).
 */
static inline u32 mr_rxmsg_pending_rd_atomic(const struct mr_rxmsg *m)
{
	return m->n_rdat;
}

/*
 * READ ranges recorded and not yet executed, new READs (and atomics)
 * and extra ranges alike: each may need a READ response job when it
 * executes (MR-REL-34). Bounded work: MR_RXMSG_RDX slots.
 */
u32 mr_rxmsg_pending_ranges(const struct mr_rxmsg *m);

/*
 * An error point (MR-VERBS-24): from now on no message or READ range
 * whose PSNs reach @psn completes or executes, whatever arrives; the
 * lowest of several stops wins. Cleared by mr_rxmsg_init() only.
 */
void mr_rxmsg_stop_at(struct mr_rxmsg *m, u32 psn);

/* Is message @msn recorded (some packet of it counted, not completed)? */
bool mr_rxmsg_active(const struct mr_rxmsg *m, u32 msn);

/* Completed request messages so far (AKH.msn): the next msn to complete. */
static inline u32 mr_rxmsg_completed_msn(const struct mr_rxmsg *m)
{
	return m->head_msn;
}

#endif /* MR_PROTO_RXMSG_H */
