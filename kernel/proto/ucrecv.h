/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE unreliable connected (UC) receiver: what one UC QP does with
 * the UC_* packets it receives (spec section UC, MR-UC-1..MR-UC-12).
 *
 * Packets are placed as they arrive, in any order, from their
 * self-describing DXH (as RC requests are, MR-PLACE-1); a message is
 * delivered once all its bytes arrived, in msn order. Nothing is ever
 * acknowledged or asked for again: a message that cannot complete is
 * dropped silently (MR-UC-7) and the receive WQE it had started to fill
 * is used for a later message (MR-UC-8).
 *
 * State is bounded whatever the peer sends (MR-UC-9): MR_UC_MSGS message
 * slots over the msns [head, head + MR_UC_MSGS) and a 256-bit map of the
 * PSNs below the highest one seen, for duplicates.
 *
 * Receive WQEs: a message that consumes one (UC_SEND*, UC_WRITE_IMM) is
 * bound, when it is first seen, to the next receive WQE not yet bound
 * (as an index relative to the receive queue's head); bound messages
 * hold WQEs in msn order, so delivering them in msn order completes the
 * receive queue in order. A WQE message first seen after a later one was
 * bound is dropped (its WQE would be out of order). Dropping a bound
 * message frees its WQE for the next message, which moves every later
 * bound message's WQE down by one: the caller moves the bytes they
 * placed (ops->rebind) or they are dropped too (MR-UC-8). What one
 * packet may have moved is bounded (MR_UC_MOVE_BUDGET); messages beyond
 * it are dropped.
 *
 * No I/O: the caller checks, copies and completes through struct
 * mr_ucrecv_ops. No locking: the caller serialises every call.
 */
#ifndef MR_PROTO_UCRECV_H
#define MR_PROTO_UCRECV_H

#include "compat.h"
#include "psn.h"
#include "wire.h"

/* Messages tracked at once (MR-UC-9). */
#define MR_UC_MSGS		8

/*
 * The most bytes ops->rebind may be asked to move for one packet, over
 * all the messages it moves (MR-UC-8, MR-UC-9). One packet can drop up
 * to MR_UC_MSGS messages and each drop moves every later bound message,
 * so a bound per move alone lets one small packet copy
 * MR_UC_MSGS * (MR_UC_MSGS - 1) / 2 times as much: a message whose move
 * would overrun what is left is dropped instead. Enough for one message
 * of this size to survive the loss of the one before it.
 */
#define MR_UC_MOVE_BUDGET	(256 * 1024)

/*
 * What ops->count is told about (one counter each in the kernel); 0 is
 * no event (mr_ucrecv_on_pkt() returns it for a packet it counted).
 */
enum mr_uc_event {
	MR_UC_EV_OLD = 1,	/* msn already delivered or dropped */
	MR_UC_EV_DUP,		/* PSN already counted, or too old to tell */
	MR_UC_EV_MISMATCH,	/* disagrees with its message (MR-UC-6) */
	MR_UC_EV_PAYLOAD,	/* payload over the QP's PMTU (MR-UC-6) */
	MR_UC_EV_PMTU,		/* not cut at a PMTU (MR-UC-6) */
	MR_UC_EV_TRIMMED,	/* trimmed: its message is lost (MR-UC-7) */
	MR_UC_EV_REFUSED,	/* no WQE, too short, R_Key (MR-UC-10) */
	MR_UC_EV_LATE,		/* first seen after a later message's WQE */
	MR_UC_EV_MSG_DROPPED,	/* a message dropped, once each (MR-UC-7) */
};

#define MR_UC_EV_NUM		(MR_UC_EV_MSG_DROPPED + 1)

/* Slot states. */
enum {
	MR_UC_FREE = 0,		/* no packet of this msn seen */
	MR_UC_OPEN,		/* some bytes arrived */
	MR_UC_DONE,		/* every byte arrived, waiting for its turn */
	MR_UC_DEAD,		/* dropped: its packets are ignored */
};

/* One message (its slot, and what ops->deliver is given). */
struct mr_uc_msg {
	u32	msn;
	u32	msg_len;
	u32	bytes;		/* payload bytes counted */
	u32	imm;		/* UC_SEND_IMM, UC_WRITE_IMM */
	u32	rkey;		/* UC_WRITE* */
	u64	va;		/* UC_WRITE* */
	u32	wqe;		/* bound receive WQE (absolute count) */
	u16	flags;		/* union of the MBH flags of its packets */
	u8	opcode;
	u8	state;		/* MR_UC_* */
	bool	bound;		/* holds receive WQE @wqe */
};

struct mr_ucrecv;

struct mr_ucrecv_ops {
	/*
	 * May new packet @p be placed? For a message that consumes a
	 * receive WQE, @wqe_rel is its WQE (0: the receive queue's head):
	 * it must exist and hold DXH.msg_len bytes (UC_SEND*); for
	 * UC_WRITE* the R_Key must grant remote write over this packet's
	 * bytes (MR-UC-10). False drops the whole message.
	 */
	bool (*check)(void *ctx, const struct mr_pkt *p, u32 wqe_rel);
	/*
	 * Place the (non-empty) payload of a checked packet. False: the
	 * memory failed under it, the message is dropped (MR-UC-10).
	 */
	bool (*place)(void *ctx, const struct mr_pkt *p, u32 wqe_rel);
	/*
	 * An earlier message was dropped: move message @m, which has
	 * placed bytes in receive WQE @from_rel, to WQE @to_rel (before
	 * it): copy its bytes [0, msg_len) there (none for UC_WRITE_IMM),
	 * or return false if WQE @to_rel cannot hold them or the move is
	 * too costly; @m is then dropped (MR-UC-8). Called for one packet
	 * with msg_len (UC_WRITE_IMM: 0) adding up to at most
	 * MR_UC_MOVE_BUDGET. NULL: never move.
	 */
	bool (*rebind)(void *ctx, const struct mr_uc_msg *m, u32 from_rel,
		       u32 to_rel);
	/*
	 * Message @m, which consumes a receive WQE, is complete and due:
	 * complete the receive queue's head WQE with it.
	 */
	void (*deliver)(void *ctx, const struct mr_uc_msg *m);
	/* Count @ev. */
	void (*count)(void *ctx, enum mr_uc_event ev);
};

struct mr_ucrecv {
	const struct mr_ucrecv_ops *ops;
	u32	pmtu;		/* the QP's path MTU, bytes (MR-UC-6) */
	u32	head_msn;	/* oldest msn neither delivered nor dropped */
	u32	wqe_done;	/* receive WQEs completed */
	u32	wqe_bind;	/* next receive WQE to bind */
	u32	n_done;		/* slots in MR_UC_DONE */
	u32	psn_hi;		/* one past the highest PSN counted */
	u32	move_left;	/* bytes this packet may still rebind */
	u64	psn_map[MR_SACK_WORDS];	/* bit i: PSN psn_hi - 1 - i counted */
	struct mr_uc_msg slot[MR_UC_MSGS];
};

/*
 * (Re)start: the first message expected is msn 0 and its first PSN
 * @init_psn (the QP's rq_psn); every PSN before it counts as seen. ops
 * and pmtu are kept.
 */
void mr_ucrecv_init(struct mr_ucrecv *r, u32 init_psn);

/*
 * A UC_* packet (mr_pkt_receive() passed, for this QP, from its peer)
 * arrived: check, count, place; deliver every message that became due
 * and drop those a later complete message leaves behind (MR-UC-7).
 * Returns 0 if the packet was counted, else the enum mr_uc_event it was
 * dropped for (already counted).
 */
int mr_ucrecv_on_pkt(struct mr_ucrecv *r, const struct mr_pkt *p,
		     void *ctx);

/* Receive WQEs bound to messages not yet delivered. */
static inline u32 mr_ucrecv_wqes_bound(const struct mr_ucrecv *r)
{
	return r->wqe_bind - r->wqe_done;
}

#endif /* MR_PROTO_UCRECV_H */
