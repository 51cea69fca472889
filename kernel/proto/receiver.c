// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE responder engine (receiver.h).
 *
 * Selective repeat (MR-REL-1): every in-window packet is checked and
 * placed at once (self-describing: DXH offset, RXH va), recorded, and
 * acknowledged per the ACK policy; messages complete strictly in msn
 * order (MR-PLACE-2). Duplicates are never placed twice.
 *
 * Hostile input: a packet is only acted on after its checks; a fatal
 * condition becomes the error point (MR-VERBS-24), NACKed once cum_psn
 * gets there; packets the peer's transport cannot have sent (stale
 * timestamps, duplicates older than any retransmission) get no answer;
 * answers to unauthenticated packets are rate-limited (MR-REL-10,
 * MR-SEC-8).
 */
#include "receiver.h"

/* One call into the engine: the caller's context and what to echo. */
struct rcv_call {
	void *ctx;
	u64 now;
	u32 ts;			/* MBH.ts echoed by a NACK (MR-REL-11) */
	bool ts_ack;		/* ... and by an ACK (a held one) */
	u8 path;		/* path echoed (MR-HDR-6) */
	bool error;		/* a fatal NACK went out */
};

void mr_receiver_init(struct mr_receiver *r, u32 init_psn, u64 now_ns)
{
	mr_rxwin_init(&r->w, init_psn);
	mr_rxmsg_init(&r->m, 0, init_psn);
	mr_rdresp_init(&r->rd);
	r->ssn_base = 0;
	r->ack_path = 0;
	r->ack_held = false;
	r->ack_held_path = 0;
	r->ack_held_ts = 0;
	r->ack_held_ns = 0;
	r->err_valid = false;
	r->err_due = false;
	r->err_sent = false;
	r->err_reason = 0;
	r->err_psn = 0;
	r->err_sent_ns = 0;
	r->seq_err_ns = 0;
	r->dup_tokens = MR_RCV_DUP_BURST;
	r->dup_refill_ns = now_ns;
	r->trim_tokens = MR_RCV_TRIM_BURST;
	r->trim_refill_ns = now_ns;
}

static void count(struct mr_receiver *r, struct rcv_call *c,
		  enum mr_rcv_event ev, const struct mr_pkt *p)
{
	r->ops->count(c->ctx, ev, p);
}

/* ---- rate limits -------------------------------------------------------- */

/* One NACK SEQ_ERR or fatal NACK repeat per interval (MR-REL-10). */
static bool seq_err_ok(struct mr_receiver *r, u64 now)
{
	if (r->seq_err_ns && now - r->seq_err_ns < r->seq_err_interval_ns)
		return false;
	r->seq_err_ns = now;
	return true;
}

/*
 * A token bucket of @burst answers refilled one per seq_err interval:
 * may one more go? What may not is counted (MR-SEC-8).
 */
static bool take_token(struct mr_receiver *r, struct rcv_call *c,
		       const struct mr_pkt *p, u32 burst, u32 *tokens,
		       u64 *refill_ns)
{
	u64 refill = r->seq_err_interval_ns ? r->seq_err_interval_ns : 1;
	u64 n;

	if (c->now > *refill_ns) {
		n = mr_div64_u64(c->now - *refill_ns, refill);
		if (n >= burst - *tokens) {
			*tokens = burst;
			*refill_ns = c->now;
		} else if (n) {
			*tokens += (u32)n;
			*refill_ns += n * refill;
		}
	}
	if (!*tokens) {
		count(r, c, MR_RCV_EV_RATE_LIMITED, p);
		return false;
	}
	(*tokens)--;
	return true;
}

/* May a duplicate be answered (ACK, READ or ATOMIC replay)? MR-SEC-8 */
static bool dup_token(struct mr_receiver *r, struct rcv_call *c,
		      const struct mr_pkt *p)
{
	return take_token(r, c, p, MR_RCV_DUP_BURST, &r->dup_tokens,
			  &r->dup_refill_ns);
}

/*
 * May a trimmed packet be NACKed? Its headers are unauthenticated
 * (MR-TRIM-3), so the NACKs it provokes are bounded (MR-TRIM-4).
 */
static bool trim_token(struct mr_receiver *r, struct rcv_call *c,
		       const struct mr_pkt *p)
{
	return take_token(r, c, p, MR_RCV_TRIM_BURST, &r->trim_tokens,
			  &r->trim_refill_ns);
}

/* ---- ACK / NACK -------------------------------------------------------- */

/*
 * An ACK (@reason 0) or NACK for @psn. Either carries the window's
 * cumulative and selective state and resets its ACK policy; a NACK
 * echoes the timestamp of the packet that caused it (MR-REL-11).
 */
static void send_ack(struct mr_receiver *r, struct rcv_call *c, u8 reason,
		     u32 psn)
{
	struct mr_pkt a;

	memset(&a, 0, sizeof(a));
	a.opcode = reason ? MR_OP_NACK : MR_OP_ACK;
	a.path = c->path;
	a.flags = mr_rxwin_ack_fill(&r->w, &a.akh);
	if (c->ts_ack)
		a.akh.ts_echo = c->ts;
	r->ack_held = false;
	a.akh.msn = mr_rxmsg_completed_msn(&r->m);
	a.akh.credit = MR_CREDIT_UNLIMITED;
	if (reason) {
		a.akh.ts_echo = c->ts;
		a.nkh.reason = reason;
		a.nkh.nack_psn = psn;
		if (reason == MR_NACK_RNR)
			a.nkh.rnr_timer = r->rnr_timer;
		else if (reason == MR_NACK_RESOURCE)
			a.nkh.rnr_timer = MR_RCV_RESOURCE_TIMER;
	}
	r->ops->emit(c->ctx, &a);
}

/* The held ACK's triggering packet, the first that called for it. */
static void held_trigger(const struct mr_receiver *r, struct rcv_call *c)
{
	c->path = r->ack_held_path;
	c->ts = r->ack_held_ts;
	c->ts_ack = true;
}

/*
 * The ACK packet @c calls for, held for the end of the receive batch
 * (ack_batch): the packets handled after it in the same batch add their
 * triggers to it, and one ACK answers them all (MR-REL-3). @c's packet,
 * the first to call for it, is its triggering packet (MR-REL-11). One
 * held for ack_delay already goes now (MR-REL-13's bound): a long batch
 * of many QPs' packets must not hold it into the requester's RTO.
 */
static void hold_ack(struct mr_receiver *r, const struct rcv_call *c)
{
	struct rcv_call h = *c;

	if (!r->ack_held) {
		r->ack_held = true;
		r->ack_held_path = c->path;
		r->ack_held_ts = c->ts;
		r->ack_held_ns = c->now;
		return;
	}
	if (c->now - r->ack_held_ns < r->w.delack_ns)
		return;
	held_trigger(r, &h);
	send_ack(r, &h, 0, 0);
}

/* ---- the error point (MR-VERBS-24, MR-REL-18) --------------------------- */

/*
 * A fatal condition @reason on the request with PSN @psn: keep the
 * lowest such PSN as the error point. Nothing at or after it is placed,
 * executed or completed from now on.
 */
static void error_point(struct mr_receiver *r, struct rcv_call *c,
			u8 reason, u32 psn)
{
	if (reason == MR_NACK_REMOTE_ACCESS)
		count(r, c, MR_RCV_EV_RKEY, NULL);
	mr_rxmsg_stop_at(&r->m, psn);
	if (r->err_valid && !mr_psn_before(psn, r->err_psn))
		return;
	r->err_valid = true;
	r->err_reason = reason;
	r->err_psn = psn;
}

/* Send the error point's NACK: the QP enters the Error state. */
static void err_nack(struct mr_receiver *r, struct rcv_call *c)
{
	send_ack(r, c, r->err_reason, r->err_psn);
	r->err_due = false;
	r->err_sent = true;
	r->err_sent_ns = c->now;
	c->error = true;
}

/* A message fails at its completion point: NACK it at once. */
static void fail(struct mr_receiver *r, struct rcv_call *c, u8 reason,
		 u32 psn)
{
	error_point(r, c, reason, psn);
	err_nack(r, c);
}

/*
 * Once cum_psn reaches the error point, every earlier message has
 * completed: NACK it now, or after the READ responses still queued for
 * earlier READs (mr_receiver_rd_drained()).
 */
static void error_check(struct mr_receiver *r, struct rcv_call *c)
{
	if (!r->err_valid || r->err_sent || r->err_due ||
	    r->w.cum_psn != r->err_psn)
		return;
	if (mr_rdresp_busy(&r->rd)) {
		r->err_due = true;
		return;
	}
	err_nack(r, c);
}

/* ---- new requests ------------------------------------------------------ */

/*
 * Checks of a new request before anything is recorded. Returns 0,
 * MR_NACK_RNR (nothing recorded, the peer retries), a fatal NACK reason,
 * or MR_RCV_DROP.
 */
static u8 check(struct mr_receiver *r, struct rcv_call *c,
		const struct mr_pkt *p)
{
	u32 ahead = mr_psn_dist(p->psn, r->w.cum_psn);
	s32 dm;
	int rc;

	/*
	 * MR-REL-25: every message between the next to complete and this
	 * one is incomplete, so it has its last PSN in [cum_psn, psn): an
	 * msn further ahead than that is no message of the peer's (the
	 * ones it skipped could never complete).
	 */
	dm = mr_seq32_diff(p->dxh.msn, mr_rxmsg_completed_msn(&r->m));
	if (dm > 0 && (u32)dm > ahead)
		return MR_NACK_INVALID_REQ;
	/*
	 * The same for SSNs: an SSN further ahead would bind receive WQEs
	 * the peer can never use (MR-VERBS-20).
	 */
	if (mr_op_has(p->opcode, MR_OPA_SSN) && p->dxh.ssn - r->ssn_base > ahead)
		return MR_NACK_INVALID_REQ;
	if (mr_op_has(p->opcode, MR_OPA_ANSWERED)) {
		rc = mr_rdresp_check_new(&r->rd, &r->m, p,
					 r->max_dest_rd_atomic);
		if (rc == MR_ERR_MSG_MISMATCH)
			return MR_RCV_DROP;
		if (rc)
			return (u8)rc;
	}
	return r->ops->check(c->ctx, p);
}

/*
 * Is there room to record READ_REQ @p and, once it executes, to queue
 * its responses (MR-REL-34)? Every READ range recorded and not executed
 * may take a job when it executes, so it holds one in reserve.
 */
static bool rd_room(const struct mr_receiver *r, const struct mr_pkt *p)
{
	if (p->opcode != MR_OP_READ_REQ)
		return true;
	return mr_rdresp_jobs_queued(&r->rd) +
	       mr_rxmsg_pending_ranges(&r->m) < MR_RDRESP_JOBS;
}

/*
 * A new request packet (MR-REL-6): checks, record, place, mark. Returns
 * true if it was accepted and an ACK is due at once.
 */
static bool on_new(struct mr_receiver *r, struct rcv_call *c,
		   const struct mr_pkt *p, enum mr_rx_class cls, bool ce)
{
	u8 reason;
	int rc;

	/* Past an error point nothing is placed or marked (MR-VERBS-24). */
	if (r->err_valid && !mr_psn_before(p->psn, r->err_psn)) {
		count(r, c, MR_RCV_EV_ERR_POINT, p);
		return false;
	}
	reason = check(r, c, p);
	if (reason == MR_NACK_RNR) {
		send_ack(r, c, MR_NACK_RNR, p->psn);
		return false;
	}
	if (reason == MR_RCV_DROP) {
		count(r, c, MR_RCV_EV_MALFORMED, p);
		return false;
	}
	if (reason) {
		error_point(r, c, reason, p->psn);
		return false;
	}
	/*
	 * A transient lack of room: not recorded, not marked, resent by
	 * the requester after the delay (MR-REL-34).
	 */
	if (!rd_room(r, p)) {
		send_ack(r, c, MR_NACK_RESOURCE, p->psn);
		return false;
	}

	/*
	 * The tracker's checks (MR-PLACE-14) come before the placement, its
	 * record after: a packet whose placement fails is the error point,
	 * dropped without being marked received (MR-VERBS-24, MR-REL-6),
	 * so it must neither count in the tracker nor establish the record
	 * of its message, against which the earlier packets of that message
	 * would be checked (and refused).
	 */
	rc = mr_rxmsg_check(&r->m, p);
	if (rc == MR_ERR_NOSPACE) {
		send_ack(r, c, MR_NACK_RESOURCE, p->psn);
		return false;
	}
	if (rc == MR_ERR_MSN_OLD) {
		/* An executed msn under a new PSN (MR-REL-25). */
		error_point(r, c, MR_NACK_INVALID_REQ, p->psn);
		return false;
	}
	if (rc < 0 || rc == MR_RXMSG_DUP) {
		/* Inconsistent with its message (MR-PLACE-14): no state. */
		count(r, c, MR_RCV_EV_MSG_MISMATCH, p);
		return false;
	}
	if (rc == 0 && p->payload_len) {
		reason = r->ops->place(c->ctx, p);
		if (reason) {
			error_point(r, c, reason, p->psn);
			return false;
		}
	}
	mr_rxmsg_record(&r->m, p);
	mr_rxwin_mark(&r->w, p->psn);
	mr_rxwin_ts_accept(&r->w, p->ts, c->now);
	return mr_rxwin_note(&r->w, cls, p->flags, ce, p->ts, c->now);
}

/*
 * Complete (or execute) every message that became due, in msn order.
 * A receive-consuming message takes the next receive WQE in ssn order;
 * one that fails there fails at its last PSN (all of it was placed), a
 * READ or ATOMIC at its first.
 */
static void complete(struct mr_receiver *r, struct rcv_call *c)
{
	struct mr_rxmsg_info m;
	u8 reason;

	while (!c->error && mr_rxmsg_pop_completed(&r->m, &m)) {
		if (!mr_op_has(m.opcode, MR_OPA_SSN)) {
			reason = r->ops->deliver(c->ctx, &m);
			if (reason)
				fail(r, c, reason, m.first_psn);
			continue;
		}
		if (m.ssn != r->ssn_base) {
			fail(r, c, MR_NACK_INVALID_REQ, m.first_psn);
			continue;
		}
		reason = r->ops->deliver(c->ctx, &m);
		r->ssn_base++;
		if (reason)
			fail(r, c, reason, m.last_psn);
	}
}

/* ---- duplicates -------------------------------------------------------- */

/* A duplicate request (MR-REL-7..9). Returns true if an ACK is due. */
static bool on_dup(struct mr_receiver *r, struct rcv_call *c,
		   const struct mr_pkt *p, bool ce)
{
	bool executed = mr_seq32_diff(p->dxh.msn,
				      mr_rxmsg_completed_msn(&r->m)) < 0;
	bool rd_at = mr_op_has(p->opcode, MR_OPA_ANSWERED);

	if (!mr_rxwin_dup_recent(&r->w, p->psn)) {
		/*
		 * Older than any retransmission (MR-REL-1): no answer,
		 * except an atomic re-sent under its own PSN, answered from
		 * the cache (MR-REL-27).
		 */
		if (rd_at && p->opcode != MR_OP_READ_REQ && executed) {
			if (dup_token(r, c, p))
				r->ops->replay(c->ctx, p);
		} else {
			count(r, c, MR_RCV_EV_OLD_DUP, p);
		}
		return false;
	}
	count(r, c, MR_RCV_EV_DUP, p);
	if (!dup_token(r, c, p)) {
		/* Counted for the next ACK only. */
		mr_rxwin_note(&r->w, MR_RX_DUP, p->flags, ce, p->ts, c->now);
		return false;
	}
	/*
	 * A READ or ATOMIC still waiting to execute is only acknowledged;
	 * one that no record covers is dropped without any response, not
	 * even an ACK (MR-REL-8, MR-REL-9): a genuine requester resends a
	 * request exactly as it sent it, so it is forged or corrupt.
	 */
	if (rd_at && executed && !r->ops->replay(c->ctx, p))
		return false;
	return mr_rxwin_note(&r->w, MR_RX_DUP, p->flags, ce, p->ts, c->now);
}

/* ---- entry points ------------------------------------------------------ */

bool mr_receiver_on_pkt(struct mr_receiver *r, const struct mr_pkt *p,
			bool ce, u64 now_ns, void *ctx)
{
	struct rcv_call c = {
		.ctx = ctx, .now = now_ns, .ts = p->ts, .path = p->path,
	};
	enum mr_rx_class cls;
	bool ack;
	int rc;

	/*
	 * The QP's PMTU rules (MR-MAL-2 step 11): a payload over the PMTU
	 * (MR-MAL-4) or a message not cut at it (MR-PLACE-9) is dropped
	 * and counted, without an answer or any state change.
	 */
	rc = mr_pkt_pmtu_check(p, r->pmtu);
	if (rc) {
		count(r, &c, rc == MR_ERR_PMTU ? MR_RCV_EV_PMTU :
			     rc == MR_ERR_PAYLOAD ? MR_RCV_EV_PAYLOAD :
			     MR_RCV_EV_MALFORMED, p);
		return false;
	}

	/* A timestamp the peer's clock cannot have made (MR-WIN-6). */
	switch (mr_rxwin_ts_check(&r->w, p->ts, now_ns)) {
	case MR_TS_OLD:
		count(r, &c, MR_RCV_EV_STALE, p);
		return false;
	case MR_TS_FUTURE:
		count(r, &c, MR_RCV_EV_FUTURE, p);
		return false;
	default:
		break;
	}
	r->ack_path = p->path;
	if (ce)
		count(r, &c, MR_RCV_EV_CE, p);

	cls = mr_rxwin_classify(&r->w, p->psn);
	if (p->flags & MR_F_TRIM) {
		/*
		 * A switch cut the payload: ask for it again (MR-REL-16),
		 * unless it is past an error point, within the rate of
		 * MR-TRIM-4.
		 */
		if (cls != MR_RX_NEW && cls != MR_RX_NEW_OOO)
			count(r, &c, MR_RCV_EV_TRIM_DUP, p);
		else if (r->err_valid && !mr_psn_before(p->psn, r->err_psn))
			count(r, &c, MR_RCV_EV_ERR_POINT, p);
		else if (trim_token(r, &c, p))
			send_ack(r, &c, MR_NACK_TRIMMED, p->psn);
		return false;
	}

	switch (cls) {
	case MR_RX_BEYOND:
		/* Unauthenticated: NACKed at a bounded rate (MR-REL-10). */
		count(r, &c, MR_RCV_EV_BEYOND, p);
		mr_rxwin_note(&r->w, cls, p->flags, ce, p->ts, now_ns);
		if (seq_err_ok(r, now_ns))
			send_ack(r, &c, MR_NACK_SEQ_ERR, p->psn);
		else
			count(r, &c, MR_RCV_EV_RATE_LIMITED, p);
		return false;
	case MR_RX_DUP:
		ack = on_dup(r, &c, p, ce);
		break;
	default:
		ack = on_new(r, &c, p, cls, ce);
		complete(r, &c);
		break;
	}

	error_check(r, &c);
	/*
	 * A CE mark is echoed at once, with its own packet's path, so that
	 * the mark is attributed to that path (MR-REL-12).
	 */
	if (!c.error && ack) {
		if (r->ack_batch && !ce)
			hold_ack(r, &c);
		else
			send_ack(r, &c, 0, 0);
	}
	return c.error;
}

void mr_receiver_on_pkt_in_error(struct mr_receiver *r,
				 const struct mr_pkt *p, u64 now_ns,
				 void *ctx)
{
	struct rcv_call c = {
		.ctx = ctx, .now = now_ns, .ts = p->ts, .path = p->path,
	};

	if (!r->err_sent || mr_psn_before(p->psn, r->err_psn) ||
	    now_ns - r->err_sent_ns > MR_RCV_ERR_REPEAT_NS ||
	    !seq_err_ok(r, now_ns))
		return;
	send_ack(r, &c, r->err_reason, r->err_psn);
}

u64 mr_receiver_ack_deadline(const struct mr_receiver *r)
{
	if (r->ack_held)
		return r->ack_held_ns;
	return r->w.delack_armed ? r->w.ack_deadline_ns : MR_TIME_NEVER;
}

void mr_receiver_on_timer(struct mr_receiver *r, u64 now_ns, void *ctx)
{
	struct rcv_call c = { .ctx = ctx, .now = now_ns, .path = r->ack_path };

	if (r->ack_held)
		held_trigger(r, &c);
	if (mr_rxwin_ack_due(&r->w, now_ns))
		send_ack(r, &c, 0, 0);
}

bool mr_receiver_rd_drained(struct mr_receiver *r, u64 now_ns, void *ctx)
{
	struct rcv_call c = { .ctx = ctx, .now = now_ns, .path = r->ack_path };

	if (mr_rdresp_busy(&r->rd) || !r->err_due)
		return false;
	err_nack(r, &c);
	return true;
}

bool mr_rcv_need(const struct mr_pkt *p, struct mr_rcv_need *n)
{
	memset(n, 0, sizeof(*n));
	switch (p->opcode) {
	case MR_OP_SEND:
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
		n->recv = true;
		return true;
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
		n->recv = p->opcode == MR_OP_WRITE_IMM;
		n->right = MR_RIGHT_WRITE;
		n->rkey = p->rxh.rkey;
		n->va = p->rxh.va + p->dxh.offset;
		n->len = p->payload_len;
		return true;
	case MR_OP_READ_REQ:
		n->right = MR_RIGHT_READ;
		n->rkey = p->rxh.rkey;
		n->va = p->rxh.va + p->dxh.offset;
		n->len = p->dxh.msg_len;
		return true;
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		n->right = MR_RIGHT_ATOMIC;
		n->rkey = p->axh.rkey;
		n->va = p->axh.va;
		n->len = MR_ATOMIC_LEN;
		return true;
	default:
		return false;
	}
}
MR_KUNIT_EXPORT(mr_rcv_need);
