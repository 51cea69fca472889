// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE completer: the requester's receive side. ACK/NACK feed the
 * sender scoreboard, congestion control and path table of the core;
 * READ_RESP and ATOMIC_RESP are placed into the requester's buffers.
 * Everything here runs in softirq under sq.lock and ends by running the
 * requester (completions, retransmissions, new packets).
 */

#include "metaroce.h"

static const u8 mroce_nack_rx_cnt[] = {
	[MR_NACK_TRIMMED] = MROCE_CNT_NACK_RX_TRIMMED,
	[MR_NACK_SEQ_ERR] = MROCE_CNT_NACK_RX_SEQ_ERR,
	[MR_NACK_RNR] = MROCE_CNT_NACK_RX_RNR,
	[MR_NACK_REMOTE_ACCESS] = MROCE_CNT_NACK_RX_REM_ACCESS,
	[MR_NACK_INVALID_REQ] = MROCE_CNT_NACK_RX_INV_REQ,
	[MR_NACK_REMOTE_OP] = MROCE_CNT_NACK_RX_REM_OP,
};

/* Fail the WQE of message @msn with @status (QP goes to error). */
static void mroce_comp_fail_msn(struct mroce_qp *qp, u32 msn, u8 status)
{
	struct mroce_send_wqe *wqe = mroce_req_find_msn(qp, msn);

	if (!wqe && qp->sq.head != qp->sq.tail)
		wqe = mroce_sq_wqe(&qp->sq, qp->sq.head);
	if (wqe && wqe->tx.state != MR_SWQE_DONE) {
		wqe->tx.state = MR_SWQE_DONE;
		wqe->tx.status = status;
	}
}

static void mroce_comp_ack(struct mroce_qp *qp, struct mr_pkt *p)
{
	struct mroce_req *req = qp->req;
	struct mroce_dev *dev = qp->dev;
	struct mr_txsb_result res = {};
	u64 now = mroce_now();
	int rc;

	/* The core moves scoreboard, window and paths (sender.h). */
	rc = mr_sender_on_feedback(&req->rq.snd, p, now, &res);
	if (rc == MR_ERR_ACK_AGE) {
		/* Echoes no recent timestamp of ours (MR-SEC-6). */
		mroce_count(dev, MROCE_CNT_ACK_AGE_DROPS);
		return;
	}
	if (rc < 0) {
		/* Acknowledges PSNs never sent: forged or stale. */
		mroce_count(dev, MROCE_CNT_MALFORMED_DROPS);
		return;
	}
	mroce_count(dev, MROCE_CNT_ACK_RX);
	if (!mr_map_empty(p->akh.sack))
		mroce_count(dev, MROCE_CNT_SACK_RX);
	if (res.rto_undone)
		mroce_count(dev, MROCE_CNT_SPURIOUS_RTO);

	/*
	 * SEND/WRITE complete once their last PSN is before una (see
	 * mroce_req_head_ready); the AKH msn is informative (MR-REL-29).
	 */
	if (p->opcode != MR_OP_NACK)
		return;
	if (p->nkh.reason < ARRAY_SIZE(mroce_nack_rx_cnt) &&
	    mroce_nack_rx_cnt[p->nkh.reason])
		mroce_count(dev, mroce_nack_rx_cnt[p->nkh.reason]);

	switch (rc) {
	case MR_TXSB_RNR_WAIT:
		mroce_count(dev, MROCE_CNT_RNR_EVENTS);
		break;
	case MR_TXSB_RETRY_EXCEEDED:
		mroce_comp_fail_msn(qp, res.nack_msn, IB_WC_RETRY_EXC_ERR);
		break;
	case MR_TXSB_RNR_RETRY_EXCEEDED:
		mroce_count(dev, MROCE_CNT_RNR_EVENTS);
		mroce_comp_fail_msn(qp, res.nack_msn, IB_WC_RNR_RETRY_EXC_ERR);
		break;
	case MR_TXSB_REM_ACCESS_ERR:
		mroce_comp_fail_msn(qp, res.nack_msn, IB_WC_REM_ACCESS_ERR);
		break;
	case MR_TXSB_REM_INV_REQ:
		mroce_comp_fail_msn(qp, res.nack_msn, IB_WC_REM_INV_REQ_ERR);
		break;
	case MR_TXSB_REM_OP_ERR:
		mroce_comp_fail_msn(qp, res.nack_msn, IB_WC_REM_OP_ERR);
		break;
	default:
		break;
	}
}

/*
 * A READ_RESP for @wqe: bytes [offset, offset + len) of the read. The
 * core says whether they are new bytes of a range the READ asked for
 * (MR-PLACE-6); those are placed, once. Returns false if the packet was
 * dropped.
 */
static bool mroce_comp_read_resp(struct mroce_qp *qp,
				 struct mroce_send_wqe *wqe,
				 const struct mr_pkt *p)
{
	u32 off = p->dxh.offset, len = p->payload_len;
	int err;

	if (!mr_rdreq_resp_new(&wqe->tx.rdq, off, len))
		return false;
	err = mroce_sge_copy(qp, wqe->sge, wqe->num_sge, off,
			     (void *)p->payload, len, true);
	if (err) {
		wqe->tx.state = MR_SWQE_DONE;
		wqe->tx.status = err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
						 IB_WC_LOC_PROT_ERR;
		return true;
	}
	/*
	 * New bytes: progress (MR-RETRY-2); what arrived in order is no
	 * longer outstanding.
	 */
	qp->req->rq.rd_bytes_out -= mr_rdreq_placed(&wqe->tx.rdq, off, len,
						 mroce_now());
	if (mr_rdasm_complete(&wqe->tx.rdq.rd)) {
		wqe->tx.state = MR_SWQE_DONE;
		wqe->tx.status = IB_WC_SUCCESS;
	}
	return true;
}

static bool mroce_comp_atomic_resp(struct mroce_qp *qp,
				   struct mroce_send_wqe *wqe,
				   const struct mr_pkt *p)
{
	u64 orig = p->atomic_orig;
	int err;

	err = mroce_sge_copy(qp, wqe->sge, wqe->num_sge, 0, &orig,
			     sizeof(orig), true);
	wqe->tx.state = MR_SWQE_DONE;
	wqe->tx.status = err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	return true;
}

/*
 * A READ_RESP or ATOMIC_RESP proves that its request PSN (the one it
 * carries) arrived: acknowledge that PSN selectively (MR-REL-21), so that
 * a lost ACK does not make the RTO resend the request and the responder
 * serve the whole range again. sq.lock held.
 */
static void mroce_comp_implicit_ack(struct mroce_qp *qp, u32 psn)
{
	struct mr_txsb_result res = {};

	if (mr_sender_on_implicit_ack(&qp->req->rq.snd, psn, mroce_now(), &res) &&
	    res.rto_undone)
		mroce_count(qp->dev, MROCE_CNT_SPURIOUS_RTO);
}

/*
 * A trimmed READ_RESP: its bytes are missing. Nothing is placed from it
 * (MR-ICRC-5); the READ asks for the missing range again at the next
 * run instead of after an RTO, and the trim is a congestion signal
 * (MR-REL-16, MR-CC-9). sq.lock held.
 */
static void mroce_comp_trimmed(struct mroce_qp *qp, struct mr_pkt *p)
{
	struct mroce_send_wqe *wqe = mroce_req_find_msn(qp, p->dxh.msn);
	u64 now = mroce_now();

	mroce_count(qp->dev, MROCE_CNT_TRIM_DROPS);
	if (p->opcode != MR_OP_READ_RESP || !wqe ||
	    wqe->tx.op != MR_OP_READ_REQ || wqe->tx.state != MR_SWQE_SENT)
		return;
	wqe->tx.rdq.trimmed = true;
	mr_sender_on_trim(&qp->req->rq.snd, p->path, now);
}

static void mroce_comp_response(struct mroce_qp *qp, struct mr_pkt *p)
{
	struct mroce_send_wqe *wqe;
	bool ok = false;

	if (mroce_payload_over_pmtu(qp, p)) {
		mroce_count(qp->dev, MROCE_CNT_MALFORMED_DROPS);
		return;
	}
	wqe = mroce_req_find_msn(qp, p->dxh.msn);
	if (wqe && wqe->tx.state == MR_SWQE_SENT) {
		if (p->opcode == MR_OP_READ_RESP &&
		    wqe->tx.op == MR_OP_READ_REQ)
			ok = mroce_comp_read_resp(qp, wqe, p);
		else if (p->opcode == MR_OP_ATOMIC_RESP &&
			 mr_op_has(wqe->tx.op, MR_OPA_ATOMIC))
			ok = mroce_comp_atomic_resp(qp, wqe, p);
	}
	if (ok) {
		u64 now = mroce_now();

		/*
		 * New response data is progress (MR-RETRY-2) even while the
		 * request PSNs wait for their ACK behind queued responses:
		 * it resets the retry budget and restarts the RTO. The WQE's
		 * own rdq.progress_ns tells the stall check of the READs queued
		 * behind it that the responder is serving them in order.
		 */
		mr_txsb_on_progress(&qp->req->rq.snd.sb, now);
		mroce_comp_implicit_ack(qp, p->psn);
	} else {
		mroce_count(qp->dev, MROCE_CNT_DUP_DROPS);
	}
}

/* Receive-path entry for responder-to-requester packets (softirq). */
void mroce_comp_rcv(struct mroce_qp *qp, struct mr_pkt *p, bool ce)
{
	struct mroce_sq *sq = &qp->sq;

	if (!qp->req)
		return;

	spin_lock_bh(&sq->lock);
	if (!qp->req->inited ||
	    (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)) {
		/* MR-MAL-5 */
		mroce_count(qp->dev, MROCE_CNT_QPN_DROPS);
		spin_unlock_bh(&sq->lock);
		return;
	}
	switch (p->opcode) {
	case MR_OP_ACK:
	case MR_OP_NACK:
		mroce_comp_ack(qp, p);
		break;
	case MR_OP_READ_RESP:
	case MR_OP_ATOMIC_RESP:
		if (p->flags & MR_F_TRIM)
			mroce_comp_trimmed(qp, p);
		else
			mroce_comp_response(qp, p);
		break;
	case MR_OP_PROBE_REPLY: {
		/* RTT from the echoed timestamp, microseconds (MR-MP-11). */
		u64 now = mroce_now();
		u64 rtt = (u64)(u32)(mroce_qp_ts(qp, now) - p->ts) * 1000;

		if (p->path >= qp->req->rq.snd.pt.n ||
		    !mr_path_on_probe_reply(&qp->req->rq.snd.pt, p->path, p->psn,
					    p->ts, rtt, now))
			mroce_count(qp->dev, MROCE_CNT_DUP_DROPS);
		break;
	}
	default:
		break;
	}
	spin_unlock_bh(&sq->lock);

	mroce_req_run(qp);
}
