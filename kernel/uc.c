// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE unreliable connected (UC) datapath (spec section UC,
 * MR-UC-1..12): the send WQE at the SQ head cut into UC packets, each
 * sent once, the WR complete once they are handed to the IP layer; and
 * the core's UC receiver (proto/ucrecv.h) over this QP's receive queue
 * and memory regions. No acknowledgement, retransmission, timer or
 * congestion state: nothing here answers a packet.
 */

#include <linux/slab.h>

#include "metaroce.h"
#include "resp.h"

/* The UC opcode of a send WR (MR-UC-1); 0 for one UC does not carry. */
static u8 mroce_uc_opcode(enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_SEND:
		return MR_OP_UC_SEND;
	case IB_WR_SEND_WITH_IMM:
		return MR_OP_UC_SEND_IMM;
	case IB_WR_RDMA_WRITE:
		return MR_OP_UC_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return MR_OP_UC_WRITE_IMM;
	default:
		return 0;
	}
}

int mroce_uc_alloc(struct mroce_qp *qp)
{
	qp->uc = kvzalloc(sizeof(*qp->uc), GFP_KERNEL_ACCOUNT);
	return qp->uc ? 0 : -ENOMEM;
}

/* ---- send ----------------------------------------------------------------- */

/* Entering RTS: PSNs from sq_psn, MSNs from 0 (MR-UC-3). modify_lock held. */
void mroce_uc_start_tx(struct mroce_qp *qp)
{
	spin_lock_bh(&qp->sq.lock);
	qp->uc->psn = qp->attr.sq_psn;
	qp->uc->msn = 0;
	qp->uc->off = 0;
	spin_unlock_bh(&qp->sq.lock);
}

/*
 * Build up to @budget packets of @wqe, the SQ head, onto @q: each once,
 * on a per-packet entropy (MR-UC-3), with no congestion state
 * (MR-UC-4). When its last packet is built the WQE is done; the caller
 * sends @q before it completes the WR (MR-UC-5). A packet that cannot
 * be allocated is lost, as the network may lose it. sq.lock held.
 */
void mroce_uc_send(struct mroce_qp *qp, struct mroce_send_wqe *wqe,
		   struct sk_buff_head *q, unsigned int budget)
{
	struct mroce_uc *uc = qp->uc;
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	struct mr_req_msg m = {};
	struct sk_buff *skb;
	struct mr_pkt p;
	u8 *payload;
	bool last;
	int err;

	m.opcode = mroce_uc_opcode(wqe->opcode);
	m.solicited = !!(wqe->send_flags & IB_SEND_SOLICITED);
	m.msn = uc->msn;
	m.length = wqe->tx.length;
	m.va = wqe->wr.rdma.remote_addr;
	m.rkey = wqe->wr.rdma.rkey;
	m.imm = be32_to_cpu(wqe->ex.imm_data);
	if (!m.opcode) {
		wqe->tx.status = IB_WC_LOC_QP_OP_ERR;
		wqe->tx.state = MR_SWQE_DONE;
		return;
	}
	do {
		last = mr_req_segment(&m, uc->off, mtu, 0, false, &p);
		p.dqpn = qp->attr.dest_qpn;
		p.sqpn = qp->ibqp.qp_num;
		p.psn = uc->psn;
		p.ts = mroce_qp_ts(qp, mroce_now());
		skb = mroce_pkt_new(qp, &p, &payload);
		if (IS_ERR(skb)) {
			if (PTR_ERR(skb) != -ENOMEM) {
				wqe->tx.status = IB_WC_LOC_QP_OP_ERR;
				break;
			}
			mroce_count(qp->dev, MROCE_CNT_TX_DROPS);
		} else {
			err = mroce_req_payload(qp, wqe, uc->off, payload,
						p.payload_len);
			if (err) {
				kfree_skb(skb);
				wqe->tx.status = err == -EMSGSIZE ?
						 IB_WC_LOC_LEN_ERR :
						 IB_WC_LOC_PROT_ERR;
				break;
			}
			mroce_pkt_queue(q, skb,
					(qp->ibqp.qp_num * 0x9e37 + uc->psn) &
					MR_ENTROPY_MASK, false);
		}
		uc->psn = mr_psn_add(uc->psn, 1);
		uc->off += p.payload_len;
		if (last) {
			wqe->tx.status = IB_WC_SUCCESS;
			break;
		}
	} while (--budget);
	if (last || wqe->tx.status != IB_WC_SUCCESS) {
		/* The next message, whatever became of this one. */
		uc->msn++;
		uc->off = 0;
		wqe->tx.state = MR_SWQE_DONE;
	}
}

/* ---- receive -------------------------------------------------------------- */

static const u8 mroce_uc_ev_cnt[MR_UC_EV_NUM] = {
	[MR_UC_EV_OLD] = MROCE_CNT_UC_OLD_DROPS,
	[MR_UC_EV_DUP] = MROCE_CNT_DUP_DROPS,
	[MR_UC_EV_MISMATCH] = MROCE_CNT_MSG_MISMATCH_DROPS,
	[MR_UC_EV_PAYLOAD] = MROCE_CNT_PAYLOAD_DROPS,
	[MR_UC_EV_PMTU] = MROCE_CNT_PMTU_DROPS,
	[MR_UC_EV_TRIMMED] = MROCE_CNT_TRIM_DROPS,
	[MR_UC_EV_REFUSED] = MROCE_CNT_UC_REFUSED_DROPS,
	[MR_UC_EV_LATE] = MROCE_CNT_UC_LATE_DROPS,
	[MR_UC_EV_MSG_DROPPED] = MROCE_CNT_UC_MSG_DROPS,
};

static const struct mr_ucrecv_ops mroce_uc_ops;

/* Entering RTR: the receiver starts at rq_psn (MR-UC-9). modify_lock held. */
void mroce_uc_start_rx(struct mroce_qp *qp)
{
	spin_lock_bh(&qp->resp_lock);
	qp->uc->rcv.ops = &mroce_uc_ops;
	mr_ucrecv_init(&qp->uc->rcv, qp->attr.rq_psn);
	WRITE_ONCE(qp->stopping, false);
	spin_unlock_bh(&qp->resp_lock);
}

/*
 * Receive WQE @rel after the RQ head, or NULL if the consumer has not
 * posted it. resp_lock held.
 */
static struct mroce_recv_wqe *mroce_uc_rwqe(struct mroce_qp *qp,
					    struct mroce_rx_ctx *c, u32 rel)
{
	struct mroce_rq *rq = &qp->rq;
	struct mroce_recv_wqe *wqe = NULL;

	spin_lock(&rq->lock);
	/* A user RQ: take what the process posted meanwhile. */
	if (rel >= mroce_rq_count(rq) && mroce_urq_pull(rq))
		c->fatal = true;
	if (rel < mroce_rq_count(rq))
		wqe = mroce_rq_wqe(rq, rq->head + rel);
	spin_unlock(&rq->lock);
	return wqe;
}

/* R_Key, access and range of a UC_WRITE* packet (MR-UC-10). */
static struct mroce_mr *mroce_uc_write_mr(struct mroce_qp *qp,
					  const struct mr_pkt *p, bool *ok)
{
	struct mroce_mr *mr;

	*ok = !mroce_resp_rkey(qp, p->rxh.rkey, p->rxh.va + p->dxh.offset,
			       p->payload_len, IB_ACCESS_REMOTE_WRITE, &mr);
	if (!*ok)
		mroce_count(qp->dev, MROCE_CNT_RKEY_VIOLATIONS);
	return mr;
}

/* ops->check: the receive WQE and the R_Key a new packet needs. */
static bool mroce_uc_check(void *ctx, const struct mr_pkt *p, u32 rel)
{
	struct mroce_rx_ctx *c = ctx;
	struct mroce_recv_wqe *rwqe;
	struct mroce_mr *mr;
	bool ok = true;

	if (p->opcode != MR_OP_UC_WRITE) {
		rwqe = mroce_uc_rwqe(c->qp, c, rel);
		if (!rwqe) {
			mroce_count(c->qp->dev, MROCE_CNT_NO_WQE_DROPS);
			return false;
		}
		if (p->opcode != MR_OP_UC_WRITE_IMM &&
		    p->dxh.msg_len > mroce_rwqe_len(rwqe))
			return false;
	}
	if (p->opcode == MR_OP_UC_WRITE || p->opcode == MR_OP_UC_WRITE_IMM) {
		mr = mroce_uc_write_mr(c->qp, p, &ok);
		if (mr)
			mroce_mr_put(mr);
	}
	return ok;
}

/* ops->place: a checked packet's payload (non-empty). */
static bool mroce_uc_place(void *ctx, const struct mr_pkt *p, u32 rel)
{
	struct mroce_rx_ctx *c = ctx;
	struct mroce_qp *qp = c->qp;
	struct mroce_recv_wqe *rwqe;
	struct mroce_mr *mr;
	bool ok;
	int err;

	if (p->opcode == MR_OP_UC_SEND || p->opcode == MR_OP_UC_SEND_IMM) {
		rwqe = mroce_uc_rwqe(qp, c, rel);
		return rwqe && !mroce_sge_copy(qp, rwqe->sge, rwqe->num_sge,
					       p->dxh.offset,
					       (void *)p->payload,
					       p->payload_len, true);
	}
	/* Checked again: the region may have gone since the check. */
	mr = mroce_uc_write_mr(qp, p, &ok);
	if (!ok)
		return false;
	err = mroce_mr_copy(mr, p->rxh.va + p->dxh.offset, (void *)p->payload,
			    p->payload_len, true);
	mroce_mr_put(mr);
	return !err;
}

/*
 * ops->rebind: an earlier message was dropped, so @m moves from receive
 * WQE @from to WQE @to (MR-UC-8): copy the bytes it placed, through a
 * bounce buffer. The core asks for at most MR_UC_MOVE_BUDGET bytes per
 * packet over all its moves, so that no softirq copies without bound.
 */
static bool mroce_uc_rebind(void *ctx, const struct mr_uc_msg *m, u32 from,
			    u32 to)
{
	struct mroce_rx_ctx *c = ctx;
	struct mroce_qp *qp = c->qp;
	struct mroce_recv_wqe *src, *dst;
	u32 off, n;
	bool ok = true;
	void *buf;

	src = mroce_uc_rwqe(qp, c, from);
	dst = mroce_uc_rwqe(qp, c, to);
	if (!src || !dst)
		return false;
	/* UC_WRITE_IMM placed nothing in its WQE. */
	if (m->opcode == MR_OP_UC_WRITE_IMM || !m->msg_len)
		return true;
	if (m->msg_len > MR_UC_MOVE_BUDGET || m->msg_len > mroce_rwqe_len(dst))
		return false;
	buf = kmalloc(min_t(u32, m->msg_len, PAGE_SIZE), GFP_ATOMIC);
	if (!buf)
		return false;
	for (off = 0; ok && off < m->msg_len; off += n) {
		n = min_t(u32, m->msg_len - off, PAGE_SIZE);
		ok = !mroce_sge_copy(qp, src->sge, src->num_sge, off, buf, n,
				     false) &&
		     !mroce_sge_copy(qp, dst->sge, dst->num_sge, off, buf, n,
				     true);
	}
	kfree(buf);
	return ok;
}

/*
 * ops->deliver: complete the RQ head with message @m (MR-UC-11); the CQE
 * enters the CQ under rq.lock, in WQE order. resp_lock held.
 */
static void mroce_uc_deliver(void *ctx, const struct mr_uc_msg *m)
{
	struct mroce_rx_ctx *c = ctx;
	struct mroce_qp *qp = c->qp;
	struct mroce_rq *rq = &qp->rq;
	struct ib_wc wc = {};

	wc.status = IB_WC_SUCCESS;
	wc.opcode = m->opcode == MR_OP_UC_WRITE_IMM ?
		    IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV;
	wc.byte_len = m->msg_len;
	wc.qp = &qp->ibqp;
	wc.src_qp = qp->attr.dest_qpn;
	wc.port_num = 1;
	if (m->opcode == MR_OP_UC_SEND_IMM ||
	    m->opcode == MR_OP_UC_WRITE_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = cpu_to_be32(m->imm);
	}
	spin_lock(&rq->lock);
	/*
	 * Bound when the message began, and no flush or reset takes it
	 * while a run holds resp_lock (mroce_rq_flush): never empty here;
	 * checked so that head cannot pass tail.
	 */
	if (WARN_ON_ONCE(!mroce_rq_count(rq))) {
		spin_unlock(&rq->lock);
		return;
	}
	wc.wr_id = mroce_rq_wqe(rq, rq->head)->wr_id;
	c->cq_note |= mroce_cq_add(qp->rcq, &wc, !!(m->flags & MR_F_SE));
	rq->head++;
	mroce_urq_publish(rq);
	spin_unlock(&rq->lock);
}

static void mroce_uc_count(void *ctx, enum mr_uc_event ev)
{
	struct mroce_rx_ctx *c = ctx;

	mroce_count(c->qp->dev, mroce_uc_ev_cnt[ev]);
	/* Malformed by its reason and in the total, as for RC (resp.c). */
	if (ev == MR_UC_EV_PAYLOAD || ev == MR_UC_EV_MISMATCH)
		mroce_count(c->qp->dev, MROCE_CNT_MALFORMED_DROPS);
}

static const struct mr_ucrecv_ops mroce_uc_ops = {
	.check = mroce_uc_check,
	.place = mroce_uc_place,
	.rebind = mroce_uc_rebind,
	.deliver = mroce_uc_deliver,
	.count = mroce_uc_count,
};

/*
 * A UC packet for this UC QP from its peer (recv.c checked both). Softirq;
 * nothing is ever sent back (MR-UC-12).
 */
void mroce_uc_rcv(struct mroce_qp *qp, struct mr_pkt *p)
{
	struct mroce_rx_ctx c;
	enum ib_qp_state state;

	mroce_rx_ctx_init(&c, qp);
	spin_lock_bh(&qp->resp_lock);
	state = READ_ONCE(qp->state);
	if (!mroce_state_receives(state)) {
		mroce_count(qp->dev, MROCE_CNT_QPN_DROPS);	/* MR-MAL-5 */
	} else {
		qp->uc->rcv.pmtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
		mr_ucrecv_on_pkt(&qp->uc->rcv, p, &c);
	}
	spin_unlock_bh(&qp->resp_lock);
	if (c.cq_note)
		mroce_cq_notify(qp->rcq, c.cq_note);
	if (c.fatal)
		mroce_qp_fatal(qp);
}
