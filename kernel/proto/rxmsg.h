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
 * Invalid input (msn outside [head, head + MR_RXMSG_RING), a msg_len,
 * opcode or other field that disagrees with earlier packets of the same
 * msn, bytes beyond msg_len) returns a negative enum mr_err and changes
 * nothing.
 */
#ifndef MR_PROTO_RXMSG_H
#define MR_PROTO_RXMSG_H

#include "compat.h"
#include "psn.h"
#include "wire.h"

/* Messages in flight >= PSNs in flight: each message takes >= 1 PSN. */
#define MR_RXMSG_RING		MR_WINDOW

/* Positive return of mr_rxmsg_add(): the PSN was already counted. */
#define MR_RXMSG_DUP		1

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
	u8	active;		/* slot in use */
};

struct mr_rxmsg {
	u32	head_msn;	/* oldest message not completed */
	u32	psn_hi;		/* one past the highest PSN seen */
	u64	psn_map[MR_SACK_WORDS];	/* bit i: PSN psn_hi - 1 - i seen */
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
 * trimmed). Returns 0 if counted, MR_RXMSG_DUP if its PSN was already
 * counted (or it repeats a READ_REQ/ATOMIC of an uncompleted msn under a
 * new PSN), or a negative enum mr_err without any change:
 * MR_ERR_MSN_OLD (msn already completed, e.g. a READ re-request),
 * MR_ERR_MSN_RANGE, MR_ERR_MSG_MISMATCH, MR_ERR_RANGE, MR_ERR_INVAL.
 */
int mr_rxmsg_add(struct mr_rxmsg *m, const struct mr_pkt *p);

/* True if the oldest tracked message is complete (pop would succeed). */
bool mr_rxmsg_head_complete(const struct mr_rxmsg *m);

/*
 * If the oldest message is complete, copy it to @out, release it and
 * return true; else return false. Completions come out in msn order.
 */
bool mr_rxmsg_pop_completed(struct mr_rxmsg *m, struct mr_rxmsg_info *out);

/* Completed request messages so far (AKH.msn): the next msn to complete. */
static inline u32 mr_rxmsg_completed_msn(const struct mr_rxmsg *m)
{
	return m->head_msn;
}

#endif /* MR_PROTO_RXMSG_H */
