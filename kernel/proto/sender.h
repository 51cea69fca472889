/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE requester control: the sender scoreboard, congestion control
 * and path table of one QP, moved together.
 *
 * What comes back (ACK, NACK, a response that acknowledges its request)
 * and time (RTO, RACK, RNR deadlines) change the scoreboard; its verdict
 * then feeds congestion control and the path table in one fixed order.
 * The kernel, the model test and the profiling harness all call these
 * functions, so the order is written once (MR-REL-19/20, MR-CC-11,
 * MR-CC-14, MR-LOSS-15). No I/O: each call returns the scoreboard's
 * verdict and result, from which the caller completes or fails WQEs,
 * counts and arms its timer (mr_txsb_next_deadline()).
 */
#ifndef MR_PROTO_SENDER_H
#define MR_PROTO_SENDER_H

#include "compat.h"
#include "cc.h"
#include "path.h"
#include "txsb.h"
#include "wire.h"

struct mr_sender {
	struct mr_txsb sb;
	struct mr_cc cc;
	struct mr_path_table pt;
};

/* May a packet (new or retransmitted) go now: window, RNR pause, pacing. */
bool mr_sender_can_send(const struct mr_sender *s, u64 now_ns);

/* Free packets under which a request asks for an ACK (MR-REL-14). */
#define MR_SENDER_ACKREQ_FREE	8

/*
 * MR-REL-14: the next packet carries ACKREQ, so that a responder that
 * coalesces ACKs (MR-REL-3, at most 8 packets per ACK) answers it at
 * once: while the congestion window is below 2 * MR_SENDER_ACKREQ_FREE
 * packets (a window that would hold one coalesced ACK or none per round
 * trip), and when it leaves fewer than MR_SENDER_ACKREQ_FREE packets of
 * the scoreboard window free (MR-WIN-3).
 */
bool mr_sender_window_low(const struct mr_sender *s);

/*
 * A request packet went out on @path: congestion control (pacing) and the
 * path table learn of it. The scoreboard was told by mr_txsb_on_send() or
 * mr_txsb_on_retx(), which assign and track the PSN.
 */
void mr_sender_on_sent(struct mr_sender *s, u8 path, u64 now_ns);

/*
 * An ACK or NACK (@p decoded, opcode MR_OP_ACK or MR_OP_NACK) arrived.
 * Returns what mr_txsb_on_ack() or mr_txsb_on_nack() returned; on an
 * error (< 0) nothing changed anywhere. Otherwise: a spurious RTO is
 * undone first (MR-CC-11), then the ACK's delivery, ECN and delay
 * signals reach congestion control with its credit, unless the ACK is
 * stale (MR-REL-20, MR-CC-14), then the path table, then the losses the
 * scoreboard declared; a TRIMMED NACK is a congestion signal of its path
 * (MR-CC-9).
 */
int mr_sender_on_feedback(struct mr_sender *s, const struct mr_pkt *p,
			  u64 now_ns, struct mr_txsb_result *res);

/*
 * A READ or ATOMIC response arrived for request PSN @psn: the request was
 * received, so it is acknowledged selectively as an ACK would
 * (MR-REL-21). Only the scoreboard and an RTO undo move; the response
 * carries no ECN count or credit. Returns false if @psn is not an
 * outstanding, unacknowledged PSN in SACK range (nothing changed).
 */
bool mr_sender_on_implicit_ack(struct mr_sender *s, u32 psn, u64 now_ns,
			       struct mr_txsb_result *res);

/* A trimmed response came back on @path (MR-REL-16, MR-CC-9). */
void mr_sender_on_trim(struct mr_sender *s, u8 path, u64 now_ns);

/*
 * Time passed: RNR pause end, RACK reorder deadline, RTO. Returns what
 * mr_txsb_on_timer() returned (MR_TXSB_RETRY_EXCEEDED: the QP fails).
 * An expiry collapses the window (MR-CC-11) and re-rolls the paths that
 * had packets in flight (MR-MP-23); losses then feed both as on an ACK.
 */
int mr_sender_on_timer(struct mr_sender *s, u64 now_ns,
		       struct mr_txsb_result *res);

#endif /* MR_PROTO_SENDER_H */
