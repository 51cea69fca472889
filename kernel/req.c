// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE requester: processes the send queue of one QP in the context
 * that made work available (post_send, ACK reception, timers), never
 * through a per-packet workqueue hop. One thread at a time runs a QP's
 * requester (sq.running); others only queue and return.
 *
 * STUB: only the local operations (IB_WR_REG_MR, IB_WR_LOCAL_INV) and
 * the error-state flush are implemented. The wire operations (SEND*,
 * WRITE*, READ, ATOMIC*) on the protocol core are the next step and are
 * rejected by post_send with -EOPNOTSUPP until then.
 */

#include "metaroce.h"

static enum ib_wc_opcode mroce_wc_opcode(enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	default:
		return IB_WC_SEND;
	}
}

/*
 * Report the completion of @wqe: always on error, on success only when
 * signaled (per WR or IB_SIGNAL_ALL_WR). No QP lock may be held.
 */
void mroce_send_complete(struct mroce_qp *qp,
			 const struct mroce_send_wqe *wqe,
			 enum ib_wc_status status)
{
	struct ib_wc wc = {
		.wr_id = wqe->wr_id,
		.status = status,
		.opcode = mroce_wc_opcode(wqe->opcode),
		.qp = &qp->ibqp,
	};

	if (status == IB_WC_SUCCESS && !(wqe->send_flags & IB_SEND_SIGNALED) &&
	    qp->sq_sig_type != IB_SIGNAL_ALL_WR)
		return;
	if (status == IB_WC_SUCCESS)
		wc.byte_len = wqe->length;
	mroce_cq_post(qp->scq, &wc, false);
}

/* Execute a local operation; sq.lock held. */
static enum ib_wc_status mroce_req_local(struct mroce_qp *qp,
					 struct mroce_send_wqe *wqe)
{
	struct mroce_dev *dev = qp->dev;
	struct mroce_mr *mr;
	int err;

	switch (wqe->opcode) {
	case IB_WR_REG_MR:
		mr = wqe->wr.reg.mr;
		if (mr->ibmr.pd != qp->ibqp.pd)
			return IB_WC_MW_BIND_ERR;
		err = mroce_mr_reg(mr, wqe->wr.reg.key, wqe->wr.reg.access);
		return err ? IB_WC_MW_BIND_ERR : IB_WC_SUCCESS;
	case IB_WR_LOCAL_INV:
		mr = mroce_mr_get(dev, wqe->ex.invalidate_rkey);
		if (!mr)
			return IB_WC_LOC_PROT_ERR;
		err = mr->ibmr.pd == qp->ibqp.pd ?
		      mroce_mr_invalidate(mr, wqe->ex.invalidate_rkey) :
		      -EACCES;
		mroce_mr_put(mr);
		return err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	default:
		/* Not reachable: post_send rejects wire operations (STUB). */
		return IB_WC_LOC_QP_OP_ERR;
	}
}

void mroce_req_run(struct mroce_qp *qp)
{
	struct mroce_sq *sq = &qp->sq;
	struct mroce_send_wqe done, *wqe;
	enum ib_wc_status status;
	enum ib_qp_state state;

	spin_lock_bh(&sq->lock);
	if (sq->running) {
		/* The running thread re-checks the ring before it stops. */
		spin_unlock_bh(&sq->lock);
		return;
	}
	sq->running = true;
	while (sq->head != sq->tail) {
		state = qp->state;
		if (state != IB_QPS_RTS && state != IB_QPS_ERR)
			break;
		wqe = mroce_sq_wqe(sq, sq->head);
		if (state == IB_QPS_ERR)
			status = IB_WC_WR_FLUSH_ERR;
		else
			status = mroce_req_local(qp, wqe);
		done = *wqe;	/* header only: what the completion needs */
		sq->head++;
		spin_unlock_bh(&sq->lock);

		mroce_send_complete(qp, &done, status);
		/* A failed WR moves the QP to error; the rest is flushed. */
		if (status != IB_WC_SUCCESS && status != IB_WC_WR_FLUSH_ERR)
			mroce_qp_error(qp);

		spin_lock_bh(&sq->lock);
	}
	sq->running = false;
	spin_unlock_bh(&sq->lock);
}
