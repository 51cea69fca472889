/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE responder engine: what one RC QP does with the request
 * packets it receives, decided once for every caller.
 *
 * It owns the receive window (rxwin: classification, SACK, ACK policy,
 * timestamp window), the message tracker (rxmsg: in-order completion),
 * the READ/ATOMIC records (rdresp), the error point (MR-VERBS-24) and
 * the answer rate limits (MR-REL-10, MR-REL-28, MR-SEC-8). It decides
 * which packet is checked, placed, counted, acknowledged or NACKed and
 * which message completes, in which order; the caller does the I/O
 * through struct mr_receiver_ops: the checks against its memory and
 * receive queue, the copies, the completions, the packets.
 *
 * The kernel (kernel/resp.c), the model test and the fuzzer run this same
 * code. No locking: the caller serialises every call on one receiver.
 */
#ifndef MR_PROTO_RECEIVER_H
#define MR_PROTO_RECEIVER_H

#include "compat.h"
#include "rdresp.h"
#include "rxmsg.h"
#include "rxwin.h"
#include "txsb.h"
#include "wire.h"

/* ops->check: refuse the packet as inconsistent, no NACK (counted). */
#define MR_RCV_DROP		0xff

/* Answers to duplicates before the rate limit applies (MR-SEC-8). */
#define MR_RCV_DUP_BURST	16
/* NACK TRIMMED: a burst, then one per seq_err interval (MR-TRIM-4). */
#define MR_RCV_TRIM_BURST	16

/*
 * NACK RESOURCE's delay code (MR-REL-34): 14 is 1.28 ms in the RNR timer
 * encoding (MR-RETRY-7), about what a software responder takes to send
 * a queue of READ responses and free the room it lacked.
 */
#define MR_RCV_RESOURCE_TIMER	14
/* How long a fatal NACK is repeated after the error (MR-REL-28). */
#define MR_RCV_ERR_REPEAT_NS	(1000ULL * 1000 * 1000)

/* What ops->count is told about (one counter each in the kernel). */
enum mr_rcv_event {
	MR_RCV_EV_CE,		/* the packet was CE-marked */
	MR_RCV_EV_STALE,	/* timestamp older than the window (MR-WIN-6) */
	MR_RCV_EV_FUTURE,	/* timestamp from the future (MR-WIN-6) */
	MR_RCV_EV_BEYOND,	/* PSN beyond the window (MR-REL-10) */
	MR_RCV_EV_RATE_LIMITED,	/* an answer withheld by a rate limit */
	MR_RCV_EV_TRIM_DUP,	/* trimmed duplicate: nothing to ask for */
	MR_RCV_EV_DUP,		/* duplicate of a recent PSN (MR-REL-7) */
	MR_RCV_EV_OLD_DUP,	/* older than any retransmission (MR-REL-1) */
	MR_RCV_EV_ERR_POINT,	/* at or past the error point (MR-VERBS-24) */
	MR_RCV_EV_MALFORMED,	/* inconsistent with its QP or message */
	MR_RCV_EV_RKEY,		/* a remote access error became fatal */
	MR_RCV_EV_PMTU,		/* not cut at the QP's PMTU (MR-PLACE-9) */
	MR_RCV_EV_PAYLOAD,	/* a payload over the QP's PMTU (MR-MAL-4) */
	MR_RCV_EV_MSG_MISMATCH,	/* disagrees with its message (MR-PLACE-14) */
};

/* A right a request needs over a remote range (MR-VERBS-21). */
enum mr_right {
	MR_RIGHT_NONE,
	MR_RIGHT_WRITE,
	MR_RIGHT_READ,
	MR_RIGHT_ATOMIC,
};

/* What a new request packet is checked against before it is recorded. */
struct mr_rcv_need {
	bool recv;		/* the receive WQE of DXH.ssn (SEND*, WRITE_IMM) */
	u8 right;		/* enum mr_right over [va, va + len) under rkey */
	u32 rkey;
	u64 va;
	u64 len;
};

/*
 * What request @p needs of the responder's resources, for ops->check at
 * arrival and again when a WRITE's payload is placed: a WRITE's bytes of
 * this packet at RXH.va + DXH.offset (RXH.va is the message start,
 * MR-PLACE-3), a READ's range from its offset to the message end, an
 * atomic's 8 bytes. False for an opcode no responder takes.
 */
bool mr_rcv_need(const struct mr_pkt *p, struct mr_rcv_need *n);

struct mr_receiver;

/*
 * The caller's side. @ctx is what it passed to the call that led here.
 * check, place and deliver return 0 or an MR_NACK_* reason, which the
 * engine turns into the error point (check may also return MR_NACK_RNR,
 * or MR_RCV_DROP).
 */
struct mr_receiver_ops {
	/*
	 * A new request passed the protocol checks; check it against the
	 * local resources (receive WQE and its length, R_Keys), without
	 * recording anything.
	 */
	u8 (*check)(void *ctx, const struct mr_pkt *p);
	/*
	 * Place the payload (non-empty) of a checked packet, recorded only
	 * once this succeeds (MR-VERBS-24).
	 */
	u8 (*place)(void *ctx, const struct mr_pkt *p);
	/*
	 * Message @m is due, in msn order (MR-PLACE-2): complete its receive
	 * WQE, execute its READ or ATOMIC (an extra READ range too), or
	 * nothing for a WRITE.
	 */
	u8 (*deliver)(void *ctx, const struct mr_rxmsg_info *m);
	/*
	 * A duplicate READ_REQ or atomic of an executed message: answer it
	 * from the records. Returns false if no record covers it: it was
	 * dropped, and gets no response at all (MR-REL-8, MR-REL-9).
	 */
	bool (*replay)(void *ctx, const struct mr_pkt *p);
	/*
	 * Send ACK or NACK @a: opcode, flags, path, AKH and NKH are filled,
	 * the caller adds the QPNs and its own timestamp.
	 */
	void (*emit)(void *ctx, struct mr_pkt *a);
	/* Count @ev; @p is the packet concerned (NULL for none). */
	void (*count)(void *ctx, enum mr_rcv_event ev, const struct mr_pkt *p);
};

struct mr_receiver {
	struct mr_rxwin w;
	struct mr_rxmsg m;
	struct mr_rdresp rd;
	const struct mr_receiver_ops *ops;

	/* Configuration (the caller may change it between calls). */
	u64 seq_err_interval_ns;	/* MR-REL-10 interval, 0: none */
	u32 max_dest_rd_atomic;		/* MR-VERBS-15 */
	u32 pmtu;			/* the QP's path MTU, bytes (MR-ENC-12) */
	u8 rnr_timer;			/* NACK RNR's timer code */
	/*
	 * Hold the ACKs MR-REL-3 calls for until the caller's timer runs,
	 * at the end of its receive batch (MR-REL-3's batch rule), so that
	 * one ACK answers every trigger of the packets handled together.
	 * Held at most w.delack_ns; a CE-marked packet's ACK is not held
	 * (MR-REL-12).
	 */
	bool ack_batch;

	u32 ssn_base;		/* ssn of the next receive WQE to complete */
	u8 ack_path;		/* path of the latest packet, echoed */
	/*
	 * With ack_batch: an ACK is owed since ack_held_ns, for the
	 * timer's run. Its triggering packet is the first that called for
	 * it: the ACK echoes that packet's path and timestamp (MR-REL-11,
	 * MR-REL-12), so the RTT sample includes the wait. Cleared by
	 * every ACK or NACK sent.
	 */
	bool ack_held;
	u8 ack_held_path;
	u32 ack_held_ts;
	u64 ack_held_ns;

	/*
	 * Error point (MR-VERBS-24): the lowest PSN found with a fatal
	 * condition; nothing at or after it is placed or executed, and its
	 * NACK goes out once cum_psn reaches it (err_due: after the READ
	 * responses still queued for earlier READs). err_sent_ns: when
	 * that NACK left, for its repeats (MR-REL-28).
	 */
	bool err_valid;
	bool err_due;
	bool err_sent;
	u8 err_reason;
	u32 err_psn;
	u64 err_sent_ns;

	/* Rate limits (MR-REL-10, MR-REL-28, MR-SEC-8). */
	u64 seq_err_ns;		/* last NACK SEQ_ERR or repeated fatal NACK */
	u32 dup_tokens;		/* answers to duplicates still allowed */
	u64 dup_refill_ns;
	u32 trim_tokens;	/* NACK TRIMMED still allowed (MR-TRIM-4) */
	u64 trim_refill_ns;
};

/*
 * (Re)start at @init_psn, message 0, receive WQE 0. Configuration is
 * kept; ops must be set before the first packet.
 */
void mr_receiver_init(struct mr_receiver *r, u32 init_psn, u64 now_ns);

/*
 * A request packet (decoded, for this QP, in a state that receives) with
 * CE mark @ce. One that breaks the QP's PMTU rules is dropped and
 * counted first (MR-MAL-4, MR-PLACE-9). Classifies it and does what it
 * calls for: a new packet is
 * checked, recorded (or refused with NACK RESOURCE when the room to
 * record or answer it is lacking, MR-REL-34), placed and marked, then
 * every message that became
 * due is delivered; a duplicate is answered within the rate limit; a
 * trimmed one NACKed (MR-REL-16); one beyond the window NACKed SEQ_ERR at
 * a bounded rate. The fatal NACK goes out when cum_psn reaches the error
 * point. Returns true if the QP must enter the Error state.
 */
bool mr_receiver_on_pkt(struct mr_receiver *r, const struct mr_pkt *p,
			bool ce, u64 now_ns, void *ctx);

/*
 * A request for a QP already in the Error state after its fatal NACK:
 * repeat that NACK (rate-limited, for MR_RCV_ERR_REPEAT_NS) to requests
 * at or after the error point, so that its loss does not turn a remote
 * error into RETRY_EXC_ERR at the requester (MR-REL-28).
 */
void mr_receiver_on_pkt_in_error(struct mr_receiver *r,
				 const struct mr_pkt *p, u64 now_ns,
				 void *ctx);

/*
 * When the caller's timer must run for an ACK: the time an ACK was held
 * (ack_batch; due at once, at the end of the receive batch), else the
 * delayed ACK's; MR_TIME_NEVER if none is owed.
 */
u64 mr_receiver_ack_deadline(const struct mr_receiver *r);

/* Time passed: send the held or delayed ACK if it is due. */
void mr_receiver_on_timer(struct mr_receiver *r, u64 now_ns, void *ctx);

/*
 * The READ responses that had to go before the error point's NACK are
 * out (mr_rdresp_busy() false): send it if it is due. Returns true if the
 * QP must enter the Error state.
 */
bool mr_receiver_rd_drained(struct mr_receiver *r, u64 now_ns, void *ctx);

#endif /* MR_PROTO_RECEIVER_H */
