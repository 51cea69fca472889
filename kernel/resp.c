// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE responder: request packets of an RC QP, on the core's
 * receive window (rxwin: classification, SACK, ACK policy, timestamp
 * window) and message tracker (rxmsg: in-order completion).
 *
 * Selective repeat (MR-REL-1): every in-window packet is checked and
 * placed at once (self-describing: DXH offset, RXH va), recorded, and
 * acknowledged per the ACK policy; messages complete strictly in msn
 * order (MR-PLACE-2): receive WQEs are consumed, READs served and
 * atomics executed only then (resp_rd.c). Duplicates are never placed
 * twice.
 *
 * Hostile input: a packet is only acted on after its checks; a fatal
 * condition becomes the QP's error point (MR-VERBS-24), NACKed once
 * cum_psn gets there; packets the peer's transport cannot have sent
 * (stale timestamps, duplicates older than any retransmission) get no
 * answer; answers to unauthenticated packets are rate-limited
 * (MR-REL-10, MR-SEC-8).
 *
 * Runs in softirq under qp->resp_lock. Packets are built under the lock
 * and sent after it is dropped; completions enter the CQ under the
 * queue locks, in WQE order, and their notifications run unlocked.
 */

#include <linux/module.h>
#include <linux/skbuff.h>

#include "resp.h"

static const u8 mroce_nack_tx_cnt[] = {
	[MR_NACK_TRIMMED] = MROCE_CNT_NACK_TX_TRIMMED,
	[MR_NACK_SEQ_ERR] = MROCE_CNT_NACK_TX_SEQ_ERR,
	[MR_NACK_RNR] = MROCE_CNT_NACK_TX_RNR,
	[MR_NACK_REMOTE_ACCESS] = MROCE_CNT_NACK_TX_REM_ACCESS,
	[MR_NACK_INVALID_REQ] = MROCE_CNT_NACK_TX_INV_REQ,
	[MR_NACK_REMOTE_OP] = MROCE_CNT_NACK_TX_REM_OP,
};

unsigned int mroce_seq_err_us = 100;
MR_KUNIT_EXPORT(mroce_seq_err_us);
module_param_named(seq_err_interval_us, mroce_seq_err_us, uint, 0644);
MODULE_PARM_DESC(seq_err_interval_us, "Per-QP interval of NACK SEQ_ERR and of answers to duplicates beyond a burst, us (default 100)");

static u64 mroce_seq_err_ns(void)
{
	return (u64)READ_ONCE(mroce_seq_err_us) * NSEC_PER_USEC;
}

/* A check refused the packet as inconsistent: drop it, no NACK. */
#define MROCE_RESP_DROP		0xff

u16 mroce_resp_entropy(struct mroce_qp *qp, u8 path)
{
	return (qp->ibqp.qp_num * 0x9e37 + path * 0x2f1) & MR_ENTROPY_MASK;
}

/* Entering RTR: (re)initialise the responder (modify_lock held). */
void mroce_resp_start(struct mroce_qp *qp)
{
	struct mroce_resp *resp = qp->resp;

	if (!resp)
		return;
	spin_lock_bh(&qp->resp_lock);
	mr_rxwin_init(&resp->w, qp->attr.rq_psn);
	mr_rxmsg_init(&resp->m, 0, qp->attr.rq_psn);
	mr_rdresp_init(&resp->rd);
	resp->ssn_base = 0;
	resp->ssn_fetched = 0;
	memset(resp->slot_placed, 0, sizeof(resp->slot_placed));
	resp->rwqe_err = 0;
	resp->last_wqe = false;
	resp->err_valid = false;
	resp->err_due = false;
	resp->err_sent = false;
	resp->seq_err_ns = 0;
	resp->dup_tokens = MROCE_DUP_BURST;
	resp->dup_refill_ns = mroce_now();
	resp->rd_next_ns = 0;
	resp->rd_wait = false;
	WRITE_ONCE(qp->stopping, false);
	spin_unlock_bh(&qp->resp_lock);
}

/* ---- rate limits -------------------------------------------------------- */

/* One NACK SEQ_ERR or fatal NACK repeat per interval (MR-REL-10). */
static bool mroce_resp_seq_err_ok(struct mroce_resp *resp, u64 now)
{
	if (resp->seq_err_ns && now - resp->seq_err_ns < mroce_seq_err_ns())
		return false;
	resp->seq_err_ns = now;
	return true;
}

/*
 * May a duplicate be answered (ACK, READ or ATOMIC replay)? A token
 * bucket per QP (MR-SEC-8): duplicates are not authenticated beyond
 * MR-SEC-4, so what they cost the responder is bounded. resp_lock held.
 */
bool mroce_resp_dup_token(struct mroce_qp *qp, u64 now)
{
	struct mroce_resp *resp = qp->resp;
	u64 refill = mroce_seq_err_ns() ?: 1, n;

	if (now > resp->dup_refill_ns) {
		n = div64_u64(now - resp->dup_refill_ns, refill);
		if (n >= MROCE_DUP_BURST - resp->dup_tokens) {
			resp->dup_tokens = MROCE_DUP_BURST;
			resp->dup_refill_ns = now;
		} else if (n) {
			resp->dup_tokens += n;
			resp->dup_refill_ns += n * refill;
		}
	}
	if (!resp->dup_tokens) {
		mroce_count(qp->dev, MROCE_CNT_RATE_LIMITED);
		return false;
	}
	resp->dup_tokens--;
	return true;
}

/* ---- ACK / NACK -------------------------------------------------------- */

/*
 * Queue an ACK (reason 0) or NACK for @psn. A NACK echoes the timestamp
 * of the packet that caused it (MR-REL-11). resp_lock held.
 */
static void mroce_resp_ack(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			   u8 reason, u32 psn)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_dev *dev = qp->dev;
	struct mr_pkt a = {};
	struct sk_buff *skb;
	u8 *payload;
	int i;

	a.opcode = reason ? MR_OP_NACK : MR_OP_ACK;
	a.path = c->path;
	a.dqpn = qp->attr.dest_qpn;
	a.sqpn = qp->ibqp.qp_num;
	a.ts = mroce_qp_ts(qp, mroce_now());
	a.flags = mr_rxwin_ack_fill(&resp->w, &a.akh);
	a.akh.msn = mr_rxmsg_completed_msn(&resp->m);
	a.akh.credit = MR_CREDIT_UNLIMITED;
	if (reason) {
		a.akh.ts_echo = c->ts;
		a.nkh.reason = reason;
		a.nkh.nack_psn = psn;
		if (reason == MR_NACK_RNR)
			a.nkh.rnr_timer = qp->attr.min_rnr_timer;
	}
	skb = mroce_pkt_new(qp, &a, &payload);
	if (IS_ERR(skb))
		return;

	if (reason)
		mroce_count(dev, mroce_nack_tx_cnt[reason]);
	else
		mroce_count(dev, MROCE_CNT_ACK_TX);
	for (i = 0; i < MR_SACK_WORDS; i++) {
		if (a.akh.sack[i]) {
			mroce_count(dev, MROCE_CNT_SACK_TX);
			break;
		}
	}
	if (a.flags & MR_F_ECE)
		mroce_count(dev, MROCE_CNT_ECN_ECHOED);
	resp->ack_pending = false;
	mroce_pkt_queue(&c->txq, skb, mroce_resp_entropy(qp, c->path), false);
}

/* ---- the error point (MR-VERBS-24, MR-REL-18) --------------------------- */

/*
 * A fatal condition @reason on the request with PSN @psn: keep the
 * lowest such PSN as the error point. Nothing at or after it is placed,
 * executed or completed from now on. resp_lock held.
 */
void mroce_resp_error_point(struct mroce_qp *qp, u8 reason, u32 psn)
{
	struct mroce_resp *resp = qp->resp;

	if (reason == MR_NACK_REMOTE_ACCESS)
		mroce_count(qp->dev, MROCE_CNT_RKEY_VIOLATIONS);
	mr_rxmsg_stop_at(&resp->m, psn);
	if (resp->err_valid && !mr_psn_before(psn, resp->err_psn))
		return;
	resp->err_valid = true;
	resp->err_reason = reason;
	resp->err_psn = psn;
}

/* Send the error point's NACK and enter the Error state. resp_lock held. */
void mroce_resp_err_nack(struct mroce_qp *qp, struct mroce_rx_ctx *c)
{
	struct mroce_resp *resp = qp->resp;

	mroce_resp_ack(qp, c, resp->err_reason, resp->err_psn);
	resp->err_due = false;
	resp->err_sent = true;
	resp->err_sent_ns = mroce_now();
	c->error = true;
}

/*
 * Once cum_psn reaches the error point, every earlier message has
 * completed: NACK it now, or after the READ responses still queued for
 * earlier READs (resp_rd.c sends it when they are out). resp_lock held.
 */
static void mroce_resp_error_check(struct mroce_qp *qp, struct mroce_rx_ctx *c)
{
	struct mroce_resp *resp = qp->resp;

	if (!resp->err_valid || resp->err_sent || resp->err_due ||
	    resp->w.cum_psn != resp->err_psn)
		return;
	if (mr_rdresp_busy(&resp->rd)) {
		resp->err_due = true;
		c->rd_kick = true;
		return;
	}
	mroce_resp_err_nack(qp, c);
}

/* ---- receive WQEs ------------------------------------------------------ */

/*
 * The receive WQE message @ssn consumes, or NULL if the consumer has not
 * posted it yet (RNR). SRQ WQEs are taken in ssn order into per-QP slots
 * the first time a message needs them (MR-VERBS-20). resp_lock held.
 */
static struct mroce_recv_wqe *mroce_resp_recv_wqe(struct mroce_qp *qp,
						  struct mroce_rx_ctx *c,
						  u32 ssn)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_recv_wqe *wqe = NULL, *src;
	struct mroce_rq *rq;
	u32 idx = ssn - resp->ssn_base;

	if (idx >= MR_WINDOW)
		return NULL;

	if (!qp->srq) {
		rq = &qp->rq;
		spin_lock(&rq->lock);
		/* A user RQ: take what the process posted meanwhile. */
		if (idx >= mroce_rq_count(rq) && mroce_urq_pull(rq))
			c->fatal = true;
		if (idx < mroce_rq_count(rq))
			wqe = mroce_rq_wqe(rq, rq->head + idx);
		spin_unlock(&rq->lock);
		return wqe;
	}

	rq = &qp->srq->rq;
	/* Bounded: ssn - ssn_fetched < MR_WINDOW (idx above). */
	while ((s32)(ssn - resp->ssn_fetched) >= 0) {
		spin_lock(&rq->lock);
		src = mroce_rq_peek(rq);
		if (!src) {
			/*
			 * A corrupt SRQ ring: the SRQ is in error (its
			 * event is raised by the limit check) and so is
			 * every QP that needs a WQE from it.
			 */
			if (rq->broken) {
				c->srq_check = true;
				c->fatal = true;
			}
			spin_unlock(&rq->lock);
			return NULL;
		}
		memcpy(resp->slots + (resp->ssn_fetched % MR_WINDOW) *
		       resp->slot_size, src, rq->wqe_size);
		mroce_rq_consume(rq);
		spin_unlock(&rq->lock);
		__clear_bit(resp->ssn_fetched % MR_WINDOW,
			    (unsigned long *)resp->slot_placed);
		resp->ssn_fetched++;
		c->srq_check = true;
	}
	return resp->slots + (ssn % MR_WINDOW) * resp->slot_size;
}

/*
 * Message @ssn cannot be scattered into its receive WQE: remember the
 * WQE and the status it completes with when the QP is flushed
 * (MR-VERBS-21). The first failure wins. resp_lock held.
 */
static void mroce_resp_rwqe_error(struct mroce_qp *qp, u32 ssn, u8 status)
{
	struct mroce_resp *resp = qp->resp;

	if (resp->rwqe_err)
		return;
	resp->rwqe_err_ssn = ssn;
	if (!qp->srq) {
		spin_lock(&qp->rq.lock);
		resp->rwqe_err_idx = qp->rq.head + (ssn - resp->ssn_base);
		spin_unlock(&qp->rq.lock);
	}
	WRITE_ONCE(resp->rwqe_err, status);
}

/* ---- checks and placement ---------------------------------------------- */

/*
 * Check R_Key access to [va, va + len) needing @access; on success *@mrp
 * holds a reference (NULL for len 0). Returns 0 or a NACK reason: an
 * operation the QP's access flags do not enable is an invalid request,
 * a key or range problem a remote access error (MR-VERBS-21).
 */
u8 mroce_resp_rkey(struct mroce_qp *qp, u32 rkey, u64 va, u64 len,
		   int access, struct mroce_mr **mrp)
{
	struct mroce_mr *mr;

	*mrp = NULL;
	if (!(qp->attr.access_flags & access))
		return MR_NACK_INVALID_REQ;
	if (!len)
		return 0;
	mr = mroce_mr_get(qp->dev, rkey);
	if (!mr)
		return MR_NACK_REMOTE_ACCESS;
	if (mroce_mr_check(mr, qp->ibqp.pd, rkey, va, len, access)) {
		mroce_mr_put(mr);
		return MR_NACK_REMOTE_ACCESS;
	}
	*mrp = mr;
	return 0;
}

static u8 mroce_resp_rkey_check(struct mroce_qp *qp, u32 rkey, u64 va,
				u64 len, int access)
{
	struct mroce_mr *mr;
	u8 reason = mroce_resp_rkey(qp, rkey, va, len, access, &mr);

	if (mr)
		mroce_mr_put(mr);
	return reason;
}

/*
 * Checks without side effects of a new receive-consuming packet (SEND*,
 * WRITE_IMM): SSN, receive WQE, length, SEND_INV key. resp_lock held.
 */
static u8 mroce_resp_check_recv(struct mroce_qp *qp, struct mroce_rx_ctx *c,
				const struct mr_pkt *p)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_recv_wqe *rwqe;
	struct mroce_mr *mr;
	bool ok;

	/*
	 * Every message before this one with an SSN still bound has a PSN
	 * in [cum_psn, psn): an SSN further ahead is no message of the
	 * peer's, and would bind receive WQEs it can never use
	 * (MR-VERBS-20).
	 */
	if (p->dxh.ssn - resp->ssn_base > mr_psn_dist(p->psn, resp->w.cum_psn))
		return MR_NACK_INVALID_REQ;
	rwqe = mroce_resp_recv_wqe(qp, c, p->dxh.ssn);
	if (!rwqe)
		return c->fatal ? MR_NACK_REMOTE_OP : MR_NACK_RNR;
	if (p->opcode == MR_OP_WRITE_IMM)
		return 0;
	if (p->dxh.msg_len > mroce_rwqe_len(rwqe)) {
		/* MR-PLACE-5: longer than the bound WQE. */
		mroce_resp_rwqe_error(qp, p->dxh.ssn, IB_WC_LOC_LEN_ERR);
		return MR_NACK_INVALID_REQ;
	}
	if (p->opcode != MR_OP_SEND_INV)
		return 0;
	/* MR-VERBS-16: the key must be one this QP may invalidate. */
	mr = mroce_mr_get(qp->dev, p->inv_rkey);
	ok = mr && mroce_mr_can_invalidate(mr, qp->ibqp.pd, p->inv_rkey);
	if (mr)
		mroce_mr_put(mr);
	if (!ok) {
		mroce_resp_rwqe_error(qp, p->dxh.ssn, IB_WC_REM_INV_REQ_ERR);
		return MR_NACK_INVALID_REQ;
	}
	return 0;
}

/*
 * Checks of a new request packet before anything is recorded: RNR,
 * access, limits. Returns 0, MR_NACK_RNR (nothing recorded, the peer
 * retries), a fatal NACK reason, or MROCE_RESP_DROP. resp_lock held.
 */
static u8 mroce_resp_check(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			   const struct mr_pkt *p)
{
	struct mroce_resp *resp = qp->resp;
	s32 dm;
	int rc;

	/*
	 * MR-REL-25: every message between the next to complete and this
	 * one is incomplete, so it has its last PSN in [cum_psn, psn): an
	 * msn further ahead than that is no message of the peer's (the
	 * ones it skipped could never complete).
	 */
	dm = mr_seq32_diff(p->dxh.msn, mr_rxmsg_completed_msn(&resp->m));
	if (dm > 0 && (u32)dm > mr_psn_dist(p->psn, resp->w.cum_psn))
		return MR_NACK_INVALID_REQ;

	switch (p->opcode) {
	case MR_OP_SEND:
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
		return mroce_resp_check_recv(qp, c, p);
	case MR_OP_WRITE_IMM:
		rc = mroce_resp_check_recv(qp, c, p);
		if (rc)
			return rc;
		fallthrough;
	case MR_OP_WRITE:
		/* The RXH va is the message start (MR-PLACE-3). */
		return mroce_resp_rkey_check(qp, p->rxh.rkey,
					     p->rxh.va + p->dxh.offset,
					     p->payload_len,
					     IB_ACCESS_REMOTE_WRITE);
	case MR_OP_READ_REQ:
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		rc = mr_rdresp_check_new(&resp->rd, &resp->m, p,
					 qp->attr.max_dest_rd_atomic);
		if (rc == MR_ERR_MSG_MISMATCH)
			return MROCE_RESP_DROP;
		if (rc)
			return rc;
		if (p->opcode == MR_OP_READ_REQ)
			return mroce_resp_rkey_check(qp, p->rxh.rkey,
						     p->rxh.va + p->dxh.offset,
						     p->dxh.msg_len,
						     IB_ACCESS_REMOTE_READ);
		return mroce_resp_rkey_check(qp, p->axh.rkey, p->axh.va,
					     MR_ATOMIC_LEN,
					     IB_ACCESS_REMOTE_ATOMIC);
	default:
		return MROCE_RESP_DROP;
	}
}

/*
 * Place the payload of a checked and recorded packet. Returns 0 or a
 * fatal NACK reason (the memory failed under us). resp_lock held.
 */
static u8 mroce_resp_place(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			   const struct mr_pkt *p)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_recv_wqe *rwqe;
	struct mroce_mr *mr;
	u8 reason;
	int err;

	if (!p->payload_len)
		return 0;
	switch (p->opcode) {
	case MR_OP_SEND:
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
		rwqe = mroce_resp_recv_wqe(qp, c, p->dxh.ssn);
		if (!rwqe)
			return MR_NACK_REMOTE_OP;
		if (qp->srq)
			__set_bit(p->dxh.ssn % MR_WINDOW,
				  (unsigned long *)resp->slot_placed);
		err = mroce_sge_copy(qp, rwqe->sge, rwqe->num_sge,
				     p->dxh.offset, (void *)p->payload,
				     p->payload_len, true);
		if (!err)
			return 0;
		mroce_resp_rwqe_error(qp, p->dxh.ssn, err == -EMSGSIZE ?
				      IB_WC_LOC_LEN_ERR : IB_WC_LOC_PROT_ERR);
		return err == -EMSGSIZE ? MR_NACK_INVALID_REQ :
					  MR_NACK_REMOTE_OP;
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
		reason = mroce_resp_rkey(qp, p->rxh.rkey,
					 p->rxh.va + p->dxh.offset,
					 p->payload_len, IB_ACCESS_REMOTE_WRITE,
					 &mr);
		if (reason)
			return reason;
		err = mroce_mr_copy(mr, p->rxh.va + p->dxh.offset,
				    (void *)p->payload, p->payload_len, true);
		mroce_mr_put(mr);
		return err ? MR_NACK_REMOTE_ACCESS : 0;
	default:
		return 0;
	}
}

/* ---- in-order completion ----------------------------------------------- */

/*
 * Complete receive-consuming message @m: its CQE enters the CQ under the
 * lock that orders its WQE (rq.lock, or resp_lock for SRQ slots), so
 * receive completions leave in WQE order whatever CPU runs this
 * (MR-PLACE-2). resp_lock held.
 */
static void mroce_resp_complete_recv(struct mroce_qp *qp,
				     struct mroce_rx_ctx *c,
				     const struct mr_rxmsg_info *m)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_recv_wqe *rwqe;
	struct mroce_mr *mr;
	struct ib_wc wc = {};
	bool se = !!(m->flags & MR_F_SE);

	wc.status = IB_WC_SUCCESS;
	wc.opcode = m->opcode == MR_OP_WRITE_IMM ? IB_WC_RECV_RDMA_WITH_IMM :
						   IB_WC_RECV;
	wc.byte_len = m->msg_len;
	wc.qp = &qp->ibqp;
	wc.src_qp = qp->attr.dest_qpn;
	wc.port_num = 1;
	if (m->opcode == MR_OP_SEND_IMM || m->opcode == MR_OP_WRITE_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = cpu_to_be32(m->imm);
	} else if (m->opcode == MR_OP_SEND_INV) {
		/*
		 * Checked when its first packet arrived; a key that changed
		 * since fails here, at the completion point (MR-VERBS-16).
		 */
		mr = mroce_mr_get(qp->dev, m->imm);
		if (mr && mr->ibmr.pd == qp->ibqp.pd &&
		    !mroce_mr_invalidate(mr, m->imm)) {
			wc.wc_flags |= IB_WC_WITH_INVALIDATE;
			wc.ex.invalidate_rkey = m->imm;
		} else {
			wc.status = IB_WC_REM_INV_REQ_ERR;
			mroce_resp_error_point(qp, MR_NACK_INVALID_REQ,
					       m->last_psn);
			mroce_resp_err_nack(qp, c);
		}
		if (mr)
			mroce_mr_put(mr);
	}

	if (!qp->srq) {
		spin_lock(&qp->rq.lock);
		rwqe = mroce_rq_wqe(&qp->rq, qp->rq.head);
		wc.wr_id = rwqe->wr_id;
		c->cq_note |= mroce_cq_add(qp->rcq, &wc, se);
		qp->rq.head++;
		mroce_urq_publish(&qp->rq);
		spin_unlock(&qp->rq.lock);
	} else {
		rwqe = resp->slots + (m->ssn % MR_WINDOW) * resp->slot_size;
		wc.wr_id = rwqe->wr_id;
		c->cq_note |= mroce_cq_add(qp->rcq, &wc, se);
		__clear_bit(m->ssn % MR_WINDOW,
			    (unsigned long *)resp->slot_placed);
	}
	resp->ssn_base++;
}

/*
 * Complete (or execute) every message that became due, in msn order.
 * resp_lock held.
 */
static void mroce_resp_complete(struct mroce_qp *qp, struct mroce_rx_ctx *c)
{
	struct mroce_resp *resp = qp->resp;
	struct mr_rxmsg_info m;
	u8 reason;

	while (!c->error && mr_rxmsg_pop_completed(&resp->m, &m)) {
		switch (m.opcode) {
		case MR_OP_READ_REQ:
		case MR_OP_ATOMIC_CS:
		case MR_OP_ATOMIC_FA:
			reason = mroce_resp_rd_exec(qp, c, &m);
			if (reason) {
				/*
				 * The memory went away after the arrival
				 * checks: fail here.
				 */
				mroce_resp_error_point(qp, reason, m.first_psn);
				mroce_resp_err_nack(qp, c);
			}
			break;
		case MR_OP_WRITE:
			break;
		default:
			/* SEND*, WRITE_IMM: receive WQEs in ssn order. */
			if (m.ssn != resp->ssn_base) {
				mroce_resp_error_point(qp, MR_NACK_INVALID_REQ,
						       m.first_psn);
				mroce_resp_err_nack(qp, c);
				break;
			}
			mroce_resp_complete_recv(qp, c, &m);
			break;
		}
	}
}

/* ---- entry ------------------------------------------------------------- */

/* Act on @c with no lock held. */
void mroce_resp_finish(struct mroce_qp *qp, struct mroce_rx_ctx *c)
{
	mroce_pkt_flush(qp, &c->txq);
	if (c->cq_note)
		mroce_cq_notify(qp->rcq, c->cq_note);
	if (c->srq_check)
		mroce_srq_check_limit(qp->srq);
	if (c->fatal)
		mroce_qp_fatal(qp);
	else if (c->error)
		mroce_qp_error(qp);
	else if (c->rd_kick)
		mroce_resp_rd_run(qp);
}

/*
 * A request for a QP in the Error state after its fatal NACK: repeat the
 * NACK to requests at or after the error point, rate-limited, for
 * max_rto, so that its loss does not turn a remote error into
 * RETRY_EXC_ERR at the requester (MR-REL-28). resp_lock held.
 */
static void mroce_resp_err_repeat(struct mroce_qp *qp, struct mroce_rx_ctx *c,
				  const struct mr_pkt *p, u64 now)
{
	struct mroce_resp *resp = qp->resp;

	if (!resp->err_sent || mr_psn_before(p->psn, resp->err_psn) ||
	    now - resp->err_sent_ns > MROCE_ERR_REPEAT_NS ||
	    !mroce_resp_seq_err_ok(resp, now))
		return;
	mroce_resp_ack(qp, c, resp->err_reason, resp->err_psn);
}

/* A duplicate request (MR-REL-7..9). Returns true if an ACK is due. */
static bool mroce_resp_dup(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			   const struct mr_pkt *p, bool ce, u64 now)
{
	struct mroce_resp *resp = qp->resp;
	bool executed = mr_seq32_diff(p->dxh.msn,
				      mr_rxmsg_completed_msn(&resp->m)) < 0;
	bool rd_at = mr_op_has(p->opcode, MR_OPA_ANSWERED);
	bool ack;

	if (!mr_rxwin_dup_recent(&resp->w, p->psn)) {
		/*
		 * Older than any retransmission (MR-REL-1): no answer,
		 * except an atomic re-sent under its own PSN, answered from
		 * the cache (MR-REL-27).
		 */
		if (rd_at && p->opcode != MR_OP_READ_REQ && executed) {
			if (mroce_resp_dup_token(qp, now))
				mroce_resp_rd_replay(qp, c, p);
		} else {
			mroce_count(qp->dev, MROCE_CNT_OLD_DUP_DROPS);
		}
		return false;
	}
	mroce_count(qp->dev, MROCE_CNT_DUP_DROPS);
	if (!mroce_resp_dup_token(qp, now)) {
		/* Counted for the next ACK only. */
		mr_rxwin_note(&resp->w, MR_RX_DUP, p->flags, ce, p->ts, now);
		return false;
	}
	/* A READ or ATOMIC still waiting to execute is only acknowledged. */
	if (rd_at && executed)
		mroce_resp_rd_replay(qp, c, p);
	ack = mr_rxwin_note(&resp->w, MR_RX_DUP, p->flags, ce, p->ts, now);
	return ack;
}

/*
 * A new request packet (MR-REL-6): checks, record, place, mark. Returns
 * true if it was accepted (an ACK may be due: *@ack).
 */
static bool mroce_resp_new(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			   const struct mr_pkt *p, enum mr_rx_class cls,
			   bool ce, u64 now, bool *ack)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_dev *dev = qp->dev;
	u8 reason;
	int rc;

	/* Past an error point nothing is placed or marked (MR-VERBS-24). */
	if (resp->err_valid && !mr_psn_before(p->psn, resp->err_psn)) {
		mroce_count(dev, MROCE_CNT_ERR_POINT_DROPS);
		return false;
	}
	reason = mroce_resp_check(qp, c, p);
	if (reason == MR_NACK_RNR) {
		mroce_resp_ack(qp, c, MR_NACK_RNR, p->psn);
		return false;
	}
	if (reason == MROCE_RESP_DROP) {
		mroce_count(dev, MROCE_CNT_MALFORMED_DROPS);
		return false;
	}
	if (reason) {
		mroce_resp_error_point(qp, reason, p->psn);
		return false;
	}

	rc = mr_rxmsg_add(&resp->m, p);
	if (rc == MR_ERR_MSN_OLD) {
		/* An executed msn under a new PSN (MR-REL-25). */
		mroce_resp_error_point(qp, MR_NACK_INVALID_REQ, p->psn);
		return false;
	}
	if (rc < 0 || rc == MR_RXMSG_DUP) {
		/* Inconsistent with its message (MR-PLACE-14): no state. */
		mroce_count(dev, MROCE_CNT_MALFORMED_DROPS);
		return false;
	}
	if (rc == 0) {
		reason = mroce_resp_place(qp, c, p);
		if (reason) {
			/* Counted by the tracker: its stop covers it. */
			mroce_resp_error_point(qp, reason, p->psn);
			return false;
		}
	}
	mr_rxwin_mark(&resp->w, p->psn);
	mr_rxwin_ts_accept(&resp->w, p->ts, now);
	*ack = mr_rxwin_note(&resp->w, cls, p->flags, ce, p->ts, now);
	return true;
}

void mroce_resp_rcv(struct mroce_qp *qp, struct mr_pkt *p, bool ce)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_dev *dev = qp->dev;
	struct mroce_rx_ctx c;
	enum mr_rx_class cls;
	enum ib_qp_state state;
	bool ack = false;
	u64 now;

	if (!resp)
		return;
	mroce_rx_ctx_init(&c, p->path, p->ts);
	now = mroce_now();

	spin_lock_bh(&qp->resp_lock);
	state = READ_ONCE(qp->state);
	if (state != IB_QPS_RTR && state != IB_QPS_RTS &&
	    state != IB_QPS_SQD) {
		/* MR-MAL-5; after a fatal NACK, its repeats (MR-REL-28). */
		mroce_count(dev, MROCE_CNT_QPN_DROPS);
		if (state == IB_QPS_ERR)
			mroce_resp_err_repeat(qp, &c, p, now);
		goto out;
	}
	if (mroce_payload_over_pmtu(qp, p)) {
		mroce_count(dev, MROCE_CNT_MALFORMED_DROPS);
		goto out;
	}
	/* A timestamp the peer's clock cannot have made (MR-WIN-6). */
	switch (mr_rxwin_ts_check(&resp->w, p->ts, now)) {
	case MR_TS_OLD:
		mroce_count(dev, MROCE_CNT_STALE_DROPS);
		pr_info_ratelimited("metaroce: qp %u: psn %u ts %u dropped as stale (newest accepted %u)\n",
				    qp->ibqp.qp_num, p->psn, p->ts,
				    resp->w.ts_ref);
		goto out;
	case MR_TS_FUTURE:
		mroce_count(dev, MROCE_CNT_FUTURE_DROPS);
		pr_info_ratelimited("metaroce: qp %u: psn %u ts %u dropped as from the future (newest accepted %u, %llu us ago)\n",
				    qp->ibqp.qp_num, p->psn, p->ts,
				    resp->w.ts_ref,
				    div_u64(now - resp->w.ts_ref_ns, NSEC_PER_USEC));
		goto out;
	default:
		break;
	}
	resp->ack_path = p->path;
	if (ce)
		mroce_count(dev, MROCE_CNT_ECN_CE_SEEN);

	cls = mr_rxwin_classify(&resp->w, p->psn);
	if (p->flags & MR_F_TRIM) {
		/*
		 * A switch cut the payload: ask for it again (MR-REL-16),
		 * unless it is past an error point.
		 */
		if (cls == MR_RX_NEW || cls == MR_RX_NEW_OOO) {
			if (resp->err_valid &&
			    !mr_psn_before(p->psn, resp->err_psn))
				mroce_count(dev, MROCE_CNT_ERR_POINT_DROPS);
			else
				mroce_resp_ack(qp, &c, MR_NACK_TRIMMED, p->psn);
		} else {
			mroce_count(dev, MROCE_CNT_TRIM_DROPS);
		}
		goto out;
	}

	switch (cls) {
	case MR_RX_BEYOND:
		/* Unauthenticated: NACKed at a bounded rate (MR-REL-10). */
		mroce_count(dev, MROCE_CNT_WINDOW_DROPS);
		mr_rxwin_note(&resp->w, cls, p->flags, ce, p->ts, now);
		if (mroce_resp_seq_err_ok(resp, now))
			mroce_resp_ack(qp, &c, MR_NACK_SEQ_ERR, p->psn);
		else
			mroce_count(dev, MROCE_CNT_RATE_LIMITED);
		goto out;
	case MR_RX_DUP:
		ack = mroce_resp_dup(qp, &c, p, ce, now);
		break;
	default:
		mroce_resp_new(qp, &c, p, cls, ce, now, &ack);
		mroce_resp_complete(qp, &c);
		break;
	}

	mroce_resp_error_check(qp, &c);
	if (!c.error) {
		if (ack)
			mroce_resp_ack(qp, &c, 0, 0);
		else if (resp->w.delack_armed && !READ_ONCE(qp->stopping))
			hrtimer_start(&qp->ack_timer,
				      ns_to_ktime(resp->w.ack_deadline_ns),
				      HRTIMER_MODE_ABS_SOFT);
	}
out:
	if (mr_rdresp_busy(&resp->rd))
		c.rd_kick = true;
	spin_unlock_bh(&qp->resp_lock);
	mroce_resp_finish(qp, &c);
}

/* Delayed-ACK timer (softirq). */
enum hrtimer_restart mroce_ack_timer_fn(struct hrtimer *t)
{
	struct mroce_qp *qp = container_of(t, struct mroce_qp, ack_timer);
	struct mroce_rx_ctx c;

	if (!qp->resp)
		return HRTIMER_NORESTART;
	spin_lock_bh(&qp->resp_lock);
	mroce_rx_ctx_init(&c, qp->resp->ack_path, 0);
	if (mr_rxwin_ack_due(&qp->resp->w, mroce_now()))
		mroce_resp_ack(qp, &c, 0, 0);
	spin_unlock_bh(&qp->resp_lock);
	mroce_pkt_flush(qp, &c.txq);
	return HRTIMER_NORESTART;
}
