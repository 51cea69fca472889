// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE responder glue: request packets of an RC QP go to the core's
 * responder engine (proto/receiver.h), which decides what is checked,
 * placed, acknowledged, NACKed and completed; this file does what it
 * asks against the QP's memory regions and receive queue (or SRQ), and
 * builds its packets. READ and ATOMIC execution is resp_rd.c's.
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
	[MR_NACK_RESOURCE] = MROCE_CNT_NACK_TX_RESOURCE,
};

static const u8 mroce_rcv_ev_cnt[] = {
	[MR_RCV_EV_CE] = MROCE_CNT_ECN_CE_SEEN,
	[MR_RCV_EV_STALE] = MROCE_CNT_STALE_DROPS,
	[MR_RCV_EV_FUTURE] = MROCE_CNT_FUTURE_DROPS,
	[MR_RCV_EV_BEYOND] = MROCE_CNT_WINDOW_DROPS,
	[MR_RCV_EV_RATE_LIMITED] = MROCE_CNT_RATE_LIMITED,
	[MR_RCV_EV_TRIM_DUP] = MROCE_CNT_TRIM_DROPS,
	[MR_RCV_EV_DUP] = MROCE_CNT_DUP_DROPS,
	[MR_RCV_EV_OLD_DUP] = MROCE_CNT_OLD_DUP_DROPS,
	[MR_RCV_EV_ERR_POINT] = MROCE_CNT_ERR_POINT_DROPS,
	[MR_RCV_EV_MALFORMED] = MROCE_CNT_MALFORMED_DROPS,
	[MR_RCV_EV_RKEY] = MROCE_CNT_RKEY_VIOLATIONS,
	[MR_RCV_EV_PMTU] = MROCE_CNT_PMTU_DROPS,
	[MR_RCV_EV_PAYLOAD] = MROCE_CNT_PAYLOAD_DROPS,
	[MR_RCV_EV_MSG_MISMATCH] = MROCE_CNT_MSG_MISMATCH_DROPS,
};

static const struct mr_receiver_ops mroce_rcv_ops;

/*
 * Entropy of what the responder sends on the requester's path @path: it
 * follows the entropy the path's requests last came with (MR-MP-15).
 */
u16 mroce_resp_entropy(struct mroce_qp *qp, u8 path)
{
	return mr_path_reply_entropy(qp->ibqp.qp_num, path,
				     READ_ONCE(qp->rx_entropy[path]));
}

/*
 * Entering RTR: (re)initialise the responder (modify_lock held), with
 * the device's ACK coalescing at this moment (MR-REL-3, MR-REL-13).
 */
void mroce_resp_start(struct mroce_qp *qp)
{
	struct mroce_resp *resp = qp->resp;
	u16 ack_every, ack_reorder;
	bool ack_batch;
	u64 delack_ns;

	if (!resp)
		return;
	mroce_params_resp(&qp->dev->params, &ack_every, &ack_reorder,
			  &delack_ns, &ack_batch);
	spin_lock_bh(&qp->resp_lock);
	mr_receiver_init(&resp->rcv, qp->attr.rq_psn, mroce_now());
	resp->rcv.ops = &mroce_rcv_ops;
	resp->rcv.w.ack_every = ack_every;
	resp->rcv.w.ack_reorder = ack_reorder;
	resp->rcv.w.delack_ns = delack_ns;
	resp->rcv.ack_batch = ack_batch;
	resp->ssn_fetched = 0;
	memset(resp->slot_placed, 0, sizeof(resp->slot_placed));
	resp->rwqe_err = 0;
	resp->last_wqe = false;
	resp->rd_wait = false;
	WRITE_ONCE(qp->stopping, false);
	spin_unlock_bh(&qp->resp_lock);
}

/*
 * The engine's configuration from the QP and the device, per packet:
 * seq_err_interval_us (MR-REL-10, default 100 us) is one NACK SEQ_ERR or
 * repeated fatal NACK per QP per interval; answers to duplicates (ACKs,
 * READ and ATOMIC replays) a burst of MR_RCV_DUP_BURST, then one per
 * interval (MR-SEC-8). resp_lock held.
 */
static void mroce_resp_conf(struct mroce_qp *qp)
{
	struct mr_receiver *r = &qp->resp->rcv;

	r->seq_err_interval_ns = (u64)mroce_param(&qp->dev->params,
						  MROCE_P_SEQ_ERR_US) *
				 NSEC_PER_USEC;
	r->max_dest_rd_atomic = qp->attr.max_dest_rd_atomic;
	r->pmtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	r->rnr_timer = qp->attr.min_rnr_timer;
}

/* ---- the engine's packets and counters ----------------------------------- */

/* ops->emit: build ACK or NACK @a and queue it for after the lock. */
static void mroce_rcv_emit(void *ctx, struct mr_pkt *a)
{
	struct mroce_rx_ctx *c = ctx;
	struct mroce_qp *qp = c->qp;
	struct mroce_dev *dev = qp->dev;
	struct sk_buff *skb;
	u8 *payload;

	a->dqpn = qp->attr.dest_qpn;
	a->sqpn = qp->ibqp.qp_num;
	a->ts = mroce_qp_ts(qp, mroce_now());
	skb = mroce_pkt_new(qp, a, &payload);
	if (IS_ERR(skb))
		return;

	if (a->opcode == MR_OP_NACK)
		mroce_count(dev, mroce_nack_tx_cnt[a->nkh.reason]);
	else
		mroce_count(dev, MROCE_CNT_ACK_TX);
	if (!mr_map_empty(a->akh.sack))
		mroce_count(dev, MROCE_CNT_SACK_TX);
	if (a->flags & MR_F_ECE)
		mroce_count(dev, MROCE_CNT_ECN_ECHOED);
	mroce_pkt_queue(&c->txq, skb, mroce_resp_entropy(qp, a->path), false);
}

static void mroce_rcv_count(void *ctx, enum mr_rcv_event ev,
			    const struct mr_pkt *p)
{
	struct mroce_rx_ctx *c = ctx;
	struct mroce_qp *qp = c->qp;
	const struct mr_rxwin *w = &qp->resp->rcv.w;

	mroce_count(qp->dev, mroce_rcv_ev_cnt[ev]);
	/* Malformed by its reason (MR-MAL-9) and in the total, as decoded. */
	if (ev == MR_RCV_EV_PAYLOAD || ev == MR_RCV_EV_MSG_MISMATCH)
		mroce_count(qp->dev, MROCE_CNT_MALFORMED_DROPS);
	if (ev == MR_RCV_EV_STALE)
		pr_info_ratelimited("metaroce: qp %u: psn %u ts %u dropped as stale (newest accepted %u)\n",
				    qp->ibqp.qp_num, p->psn, p->ts, w->ts_ref);
	else if (ev == MR_RCV_EV_FUTURE)
		pr_info_ratelimited("metaroce: qp %u: psn %u ts %u dropped as from the future (newest accepted %u, %llu us ago)\n",
				    qp->ibqp.qp_num, p->psn, p->ts, w->ts_ref,
				    div_u64(mroce_now() - w->ts_ref_ns,
					    NSEC_PER_USEC));
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
	u32 idx = ssn - resp->rcv.ssn_base;

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
		resp->rwqe_err_idx = qp->rq.head + (ssn - resp->rcv.ssn_base);
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
	if (mroce_mr_is_mw(mr)) {
		/* MR-MW-2: on through the window to its MR, or refused. */
		*mrp = mroce_mw_resolve(mr, qp, rkey, va, len, access);
		mroce_mr_put(mr);
		return *mrp ? 0 : MR_NACK_REMOTE_ACCESS;
	}
	if (mroce_mr_check(mr, qp->ibqp.pd, rkey, va, len, access)) {
		mroce_mr_put(mr);
		return MR_NACK_REMOTE_ACCESS;
	}
	*mrp = mr;
	return 0;
}

/* The access flag of each right a request may need (MR-VERBS-21). */
static const int mroce_right_access[] = {
	[MR_RIGHT_WRITE] = IB_ACCESS_REMOTE_WRITE,
	[MR_RIGHT_READ] = IB_ACCESS_REMOTE_READ,
	[MR_RIGHT_ATOMIC] = IB_ACCESS_REMOTE_ATOMIC,
};

/*
 * Checks without side effects of a new receive-consuming packet (SEND*,
 * WRITE_IMM): receive WQE, length, SEND_INV key. resp_lock held.
 */
static u8 mroce_resp_check_recv(struct mroce_qp *qp, struct mroce_rx_ctx *c,
				const struct mr_pkt *p)
{
	struct mroce_recv_wqe *rwqe;
	struct mroce_mr *mr;
	bool ok;

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
	ok = mr && mroce_mr_remote_inv(mr, qp, p->inv_rkey, false);
	if (mr)
		mroce_mr_put(mr);
	if (!ok) {
		mroce_resp_rwqe_error(qp, p->dxh.ssn, IB_WC_REM_INV_REQ_ERR);
		return MR_NACK_INVALID_REQ;
	}
	return 0;
}

/*
 * ops->check: a new request packet against this QP's receive queue and
 * memory regions, as mr_rcv_need() says: 0, MR_NACK_RNR (nothing
 * recorded, the peer retries), a fatal NACK reason, or MR_RCV_DROP.
 * resp_lock held.
 */
static u8 mroce_rcv_check(void *ctx, const struct mr_pkt *p)
{
	struct mroce_rx_ctx *c = ctx;
	struct mr_rcv_need n;
	struct mroce_mr *mr;
	u8 rc = 0;

	if (!mr_rcv_need(p, &n))
		return MR_RCV_DROP;
	if (n.recv)
		rc = mroce_resp_check_recv(c->qp, c, p);
	if (!rc && n.right) {
		rc = mroce_resp_rkey(c->qp, n.rkey, n.va, n.len,
				     mroce_right_access[n.right], &mr);
		if (mr)
			mroce_mr_put(mr);
	}
	return rc;
}

/*
 * ops->place: the payload of a checked packet, recorded if this succeeds
 * (MR-VERBS-24). Returns 0 or a fatal NACK reason (the memory failed
 * under us). resp_lock held.
 */
static u8 mroce_rcv_place(void *ctx, const struct mr_pkt *p)
{
	struct mroce_rx_ctx *c = ctx;
	struct mroce_qp *qp = c->qp;
	struct mroce_resp *resp = qp->resp;
	struct mroce_recv_wqe *rwqe;
	struct mr_rcv_need n;
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
		/* Checked again: the region may have gone since arrival. */
		mr_rcv_need(p, &n);
		reason = mroce_resp_rkey(qp, n.rkey, n.va, n.len,
					 IB_ACCESS_REMOTE_WRITE, &mr);
		if (reason)
			return reason;
		err = mroce_mr_copy(mr, n.va, (void *)p->payload, n.len, true);
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
 * (MR-PLACE-2). Returns 0, or the reason it fails with after its CQE.
 * resp_lock held.
 */
static u8 mroce_resp_complete_recv(struct mroce_qp *qp,
				   struct mroce_rx_ctx *c,
				   const struct mr_rxmsg_info *m)
{
	struct mroce_resp *resp = qp->resp;
	u8 reason = 0;
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
		if (mr && mroce_mr_remote_inv(mr, qp, m->imm, true)) {
			wc.wc_flags |= IB_WC_WITH_INVALIDATE;
			wc.ex.invalidate_rkey = m->imm;
		} else {
			wc.status = IB_WC_REM_INV_REQ_ERR;
			reason = MR_NACK_INVALID_REQ;
		}
		if (mr)
			mroce_mr_put(mr);
	}

	if (!qp->srq) {
		spin_lock(&qp->rq.lock);
		/*
		 * Bound when the message began, and no flush or reset takes
		 * it while a run holds resp_lock (mroce_rq_flush): never
		 * empty here; checked so that head cannot pass tail.
		 */
		if (WARN_ON_ONCE(!mroce_rq_count(&qp->rq))) {
			spin_unlock(&qp->rq.lock);
			return MR_NACK_REMOTE_OP;
		}
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
	return reason;
}

/*
 * ops->deliver: message @m is due, in msn order. resp_lock held.
 */
static u8 mroce_rcv_deliver(void *ctx, const struct mr_rxmsg_info *m)
{
	struct mroce_rx_ctx *c = ctx;

	switch (m->opcode) {
	case MR_OP_READ_REQ:
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		/* The memory may have gone since the arrival checks. */
		return mroce_resp_rd_exec(c->qp, c, m);
	case MR_OP_WRITE:
		return 0;
	default:
		/* SEND*, WRITE_IMM: the engine keeps them in ssn order. */
		return mroce_resp_complete_recv(c->qp, c, m);
	}
}

/* ops->replay: a duplicate READ_REQ or atomic of an executed message. */
static bool mroce_rcv_replay(void *ctx, const struct mr_pkt *p)
{
	struct mroce_rx_ctx *c = ctx;

	return mroce_resp_rd_replay(c->qp, c, p);
}

static const struct mr_receiver_ops mroce_rcv_ops = {
	.check = mroce_rcv_check,
	.place = mroce_rcv_place,
	.deliver = mroce_rcv_deliver,
	.replay = mroce_rcv_replay,
	.emit = mroce_rcv_emit,
	.count = mroce_rcv_count,
};

/* ---- entry ------------------------------------------------------------- */

/*
 * Responder packets leave in the order they were built under resp_lock,
 * whichever context built them: the receive softirq, resp_work, or a
 * timer. Each context appends its packets to resp->txq before dropping
 * the lock (mroce_resp_unlock()), and one context at a time sends the
 * queue. Without this, a fatal NACK built after the last READ responses
 * it waits for (MR-VERBS-24) could leave first: resp_work drops the
 * lock holding those responses, the softirq run at that unlock builds
 * the NACK and sends it. A sender keeps going for MROCE_RESP_TX_ROUNDS
 * batches at most and leaves the rest to resp_work, so no context sends
 * without bound for others. No lock held.
 */
#define MROCE_RESP_TX_ROUNDS	4

static void mroce_resp_xmit(struct mroce_qp *qp)
{
	struct mroce_resp *resp = qp->resp;
	struct sk_buff_head q;
	int round;

	__skb_queue_head_init(&q);
	spin_lock_bh(&qp->resp_lock);
	if (resp->tx_busy) {
		spin_unlock_bh(&qp->resp_lock);
		return;
	}
	resp->tx_busy = true;
	for (round = 0; round < MROCE_RESP_TX_ROUNDS &&
	     !skb_queue_empty(&resp->txq); round++) {
		skb_queue_splice_init(&resp->txq, &q);
		spin_unlock_bh(&qp->resp_lock);
		mroce_pkt_flush(qp, &q);
		spin_lock_bh(&qp->resp_lock);
	}
	resp->tx_busy = false;
	if (!skb_queue_empty(&resp->txq) && !READ_ONCE(qp->stopping))
		queue_work(system_highpri_wq, &qp->resp_work);
	spin_unlock_bh(&qp->resp_lock);
}

/* Queue @c's packets behind those built before them, and unlock. */
void mroce_resp_unlock(struct mroce_qp *qp, struct mroce_rx_ctx *c)
	__releases(&qp->resp_lock)
{
	skb_queue_splice_tail_init(&c->txq, &qp->resp->txq);
	spin_unlock_bh(&qp->resp_lock);
}

/* Act on @c with no lock held, after mroce_resp_unlock(). */
void mroce_resp_finish(struct mroce_qp *qp, struct mroce_rx_ctx *c)
{
	mroce_resp_xmit(qp);
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

void mroce_resp_rcv(struct mroce_qp *qp, struct mr_pkt *p, bool ce)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_dev *dev = qp->dev;
	struct mroce_rx_ctx c;
	enum ib_qp_state state;
	u64 now, deadline;

	if (!resp)
		return;
	mroce_rx_ctx_init(&c, qp);
	now = mroce_now();

	spin_lock_bh(&qp->resp_lock);
	mroce_resp_conf(qp);
	state = READ_ONCE(qp->state);
	if (!mroce_state_receives(state)) {
		/* MR-MAL-5; after a fatal NACK, its repeats (MR-REL-28). */
		mroce_count(dev, MROCE_CNT_QPN_DROPS);
		if (state == IB_QPS_ERR)
			mr_receiver_on_pkt_in_error(&resp->rcv, p, now, &c);
		goto out;
	}
	c.error = mr_receiver_on_pkt(&resp->rcv, p, ce, now, &c);
	/*
	 * An ACK held for the end of the receive batch (ack_batch) is due
	 * at once. The tasklet runs when the softirq pass handling this
	 * packet ends, so the ACK answers every packet of the QP that pass
	 * handled, or ack_delay's worth of a longer pass (MR-REL-3). An
	 * expired soft hrtimer would do the same only after a timer
	 * interrupt, which a ping-pong waits for on every message.
	 */
	deadline = mr_receiver_ack_deadline(&resp->rcv);
	if (!c.error && deadline != MR_TIME_NEVER && !READ_ONCE(qp->stopping)) {
		if (deadline <= now)
			tasklet_schedule(&qp->ack_tasklet);
		else
			hrtimer_start(&qp->ack_timer, ns_to_ktime(deadline),
				      HRTIMER_MODE_ABS_SOFT);
	}
out:
	if (mr_rdresp_busy(&resp->rcv.rd))
		c.rd_kick = true;
	mroce_resp_unlock(qp, &c);
	mroce_resp_finish(qp, &c);
}

/* The held or delayed ACK is due (softirq). */
static void mroce_resp_ack_due(struct mroce_qp *qp)
{
	struct mroce_rx_ctx c;

	if (!qp->resp)
		return;
	spin_lock_bh(&qp->resp_lock);
	mroce_rx_ctx_init(&c, qp);
	/*
	 * A QP that left RTR, RTS and SQD sends no more responses
	 * (MR-VERBS-25): the delayed ACK armed before is not sent.
	 */
	if (mroce_state_receives(READ_ONCE(qp->state)))
		mr_receiver_on_timer(&qp->resp->rcv, mroce_now(), &c);
	mroce_resp_unlock(qp, &c);
	mroce_resp_xmit(qp);
}

enum hrtimer_restart mroce_ack_timer_fn(struct hrtimer *t)
{
	mroce_resp_ack_due(container_of(t, struct mroce_qp, ack_timer));
	return HRTIMER_NORESTART;
}

void mroce_ack_tasklet_fn(struct tasklet_struct *t)
{
	struct mroce_qp *qp = from_tasklet(qp, t, ack_tasklet);

	mroce_resp_ack_due(qp);
}
