// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE responder: request packets of an RC QP, on the core's
 * receive window (rxwin: classification, SACK, ACK policy) and message
 * tracker (rxmsg: in-order completion).
 *
 * Selective repeat (MR-REL-1): every in-window packet is checked and
 * placed at once (self-describing: DXH offset, RXH va), recorded, and
 * acknowledged per the ACK policy; messages complete strictly in msn
 * order (MR-PLACE-2): receive WQEs are consumed, READs served and
 * atomics executed only then. Duplicates are never placed twice.
 *
 * Runs in softirq under qp->resp_lock. Packets (ACK/NACK, READ and
 * ATOMIC responses) are built under the lock and sent after it is
 * dropped; completions are posted with no QP lock held.
 */

#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/skbuff.h>

#include <rdma/ib_mad.h>

#include "metaroce.h"

static const u8 mroce_nack_tx_cnt[] = {
	[MR_NACK_TRIMMED] = MROCE_CNT_NACK_TX_TRIMMED,
	[MR_NACK_SEQ_ERR] = MROCE_CNT_NACK_TX_SEQ_ERR,
	[MR_NACK_RNR] = MROCE_CNT_NACK_TX_RNR,
	[MR_NACK_REMOTE_ACCESS] = MROCE_CNT_NACK_TX_REM_ACCESS,
	[MR_NACK_INVALID_REQ] = MROCE_CNT_NACK_TX_INV_REQ,
	[MR_NACK_REMOTE_OP] = MROCE_CNT_NACK_TX_REM_OP,
};

/* Serialises atomics of all QPs (IB_ATOMIC_HCA). */
static DEFINE_SPINLOCK(mroce_atomic_lock);

/* Per-packet context of the responder. */
struct mroce_rx_ctx {
	struct sk_buff_head txq;
	bool error;		/* move the QP to error after unlocking */
	bool srq_check;		/* SRQ WQEs were taken: check its limit */
	bool fatal;		/* a user RQ/SRQ ring is corrupt */
	bool se;		/* the completed message asked for an event */
	u8 path;		/* path of the packet, echoed */
};

static u16 mroce_resp_entropy(struct mroce_qp *qp, u8 path)
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
	resp->ssn_base = 0;
	resp->ssn_fetched = 0;
	resp->rwqe_err = 0;
	resp->atomic_next = 0;
	memset(resp->atomic_cache, 0, sizeof(resp->atomic_cache));
	WRITE_ONCE(qp->stopping, false);
	spin_unlock_bh(&qp->resp_lock);
}

/* ---- ACK / NACK -------------------------------------------------------- */

/* Queue an ACK (reason 0) or NACK for @psn. resp_lock held. */
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
	a.ts = mr_txsb_ts(mroce_now());
	a.flags = mr_rxwin_ack_fill(&resp->w, &a.akh);
	a.akh.msn = mr_rxmsg_completed_msn(&resp->m);
	a.akh.credit = MR_CREDIT_UNLIMITED;
	if (reason) {
		a.nkh.reason = reason;
		a.nkh.nack_psn = psn;
		if (reason == MR_NACK_RNR)
			a.nkh.rnr_timer = qp->attr.min_rnr_timer;
	}
	skb = mroce_pkt_new(qp, &a, &payload);
	if (!skb)
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

/* NACK that ends the connection: the QP goes to error afterwards. */
static void mroce_resp_fatal(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			     u8 reason, u32 psn)
{
	mroce_resp_ack(qp, c, reason, psn);
	c->error = true;
}

/* ---- receive WQEs ------------------------------------------------------ */

/*
 * The receive WQE message @ssn consumes, or NULL if the consumer has not
 * posted it yet (RNR). SRQ WQEs are taken in ssn order into per-QP slots
 * the first time a message needs them. resp_lock held.
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
		if (!mroce_rq_count(rq))
			mroce_urq_pull(rq);
		if (!mroce_rq_count(rq)) {
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
		src = mroce_rq_wqe(rq, rq->head);
		memcpy(resp->slots + (resp->ssn_fetched % MR_WINDOW) *
		       resp->slot_size, src, rq->wqe_size);
		rq->head++;
		/* Taken: the slot is the process's again. */
		mroce_urq_publish(rq);
		spin_unlock(&rq->lock);
		resp->ssn_fetched++;
		c->srq_check = true;
	}
	return resp->slots + (ssn % MR_WINDOW) * resp->slot_size;
}

/* ---- checks and placement ---------------------------------------------- */

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

/*
 * Check rkey access to [va, va + len) needing @access; on success *@mr
 * holds a reference (NULL for len 0). Returns 0 or a NACK reason.
 */
static u8 mroce_resp_rkey(struct mroce_qp *qp, u32 rkey, u64 va, u64 len,
			  int access, struct mroce_mr **mrp)
{
	struct mroce_mr *mr;

	*mrp = NULL;
	if (!(qp->attr.access_flags & access))
		return MR_NACK_REMOTE_ACCESS;
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

/*
 * Check and place one new request packet (before it is recorded).
 * Returns 0, MR_NACK_RNR (nothing recorded, the peer retries) or a
 * fatal NACK reason. resp_lock held.
 */
static u8 mroce_resp_place(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			   const struct mr_pkt *p, bool place)
{
	struct mroce_recv_wqe *rwqe;
	struct mroce_mr *mr;
	u8 reason = 0;
	int err;

	switch (p->opcode) {
	case MR_OP_SEND:
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
	case MR_OP_WRITE_IMM:
		rwqe = mroce_resp_recv_wqe(qp, c, p->dxh.ssn);
		if (!rwqe)
			return c->fatal ? MR_NACK_REMOTE_OP : MR_NACK_RNR;
		if (p->opcode == MR_OP_WRITE_IMM)
			break;
		if (!place || !p->payload_len)
			return 0;
		err = mroce_sge_copy(qp, rwqe->sge, rwqe->num_sge,
				     p->dxh.offset, (void *)p->payload,
				     p->payload_len, true);
		if (err)
			mroce_resp_rwqe_error(qp, p->dxh.ssn,
					      err == -EMSGSIZE ?
					      IB_WC_LOC_LEN_ERR :
					      IB_WC_LOC_PROT_ERR);
		if (err == -EMSGSIZE)
			return MR_NACK_INVALID_REQ;
		return err ? MR_NACK_REMOTE_OP : 0;
	case MR_OP_READ_REQ:
		reason = mroce_resp_rkey(qp, p->rxh.rkey,
					 p->rxh.va + p->dxh.offset,
					 p->dxh.msg_len, IB_ACCESS_REMOTE_READ,
					 &mr);
		if (mr)
			mroce_mr_put(mr);
		return reason;
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		reason = mroce_resp_rkey(qp, p->axh.rkey, p->axh.va,
					 MR_ATOMIC_LEN, IB_ACCESS_REMOTE_ATOMIC,
					 &mr);
		if (mr)
			mroce_mr_put(mr);
		return reason;
	default:
		break;
	}

	/* WRITE, WRITE_IMM: the RXH va is the message start. */
	reason = mroce_resp_rkey(qp, p->rxh.rkey, p->rxh.va + p->dxh.offset,
				 p->payload_len, IB_ACCESS_REMOTE_WRITE, &mr);
	if (reason || !mr)
		return reason;
	if (place)
		err = mroce_mr_copy(mr, p->rxh.va + p->dxh.offset,
				    (void *)p->payload, p->payload_len, true);
	else
		err = 0;
	mroce_mr_put(mr);
	return err ? MR_NACK_REMOTE_ACCESS : 0;
}

/* ---- READ and ATOMIC execution ----------------------------------------- */

/* Queue READ_RESPs for bytes [off, off + len) of read @msn. */
static u8 mroce_resp_read(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			  u32 msn, u32 psn, u64 va, u32 rkey, u32 off,
			  u32 len, bool retx)
{
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	u32 end = off + len, chunk;
	struct mr_pkt r = {};
	struct sk_buff *skb;
	struct mroce_mr *mr;
	u8 reason, *payload;

	reason = mroce_resp_rkey(qp, rkey, va + off, len,
				 IB_ACCESS_REMOTE_READ, &mr);
	if (reason)
		return reason;

	r.opcode = MR_OP_READ_RESP;
	r.path = c->path;
	r.dqpn = qp->attr.dest_qpn;
	r.sqpn = qp->ibqp.qp_num;
	r.psn = psn;
	r.dxh.msn = msn;
	r.dxh.msg_len = end;
	do {
		/* Chunks end on absolute multiples of the MTU. */
		chunk = min(end - off, mtu - off % mtu);
		r.dxh.offset = off;
		r.payload_len = chunk;
		r.flags = (off == 0 ? MR_F_FIRST : 0) |
			  (off + chunk == end ? MR_F_LAST : 0) |
			  (retx ? MR_F_RETX : 0);
		r.ts = mr_txsb_ts(mroce_now());
		skb = mroce_pkt_new(qp, &r, &payload);
		if (!skb)
			break;	/* the requester re-requests the rest */
		if (chunk && mroce_mr_copy(mr, va + off, payload, chunk,
					   false)) {
			kfree_skb(skb);
			break;
		}
		mroce_pkt_queue(&c->txq, skb, mroce_resp_entropy(qp, c->path),
				true);
		off += chunk;
	} while (off < end);
	if (mr)
		mroce_mr_put(mr);
	return 0;
}

static void mroce_resp_atomic_reply(struct mroce_qp *qp,
				    struct mroce_rx_ctx *c, u32 msn, u32 psn,
				    u64 orig, bool retx)
{
	struct mr_pkt r = {};
	struct sk_buff *skb;
	u8 *payload;

	r.opcode = MR_OP_ATOMIC_RESP;
	r.path = c->path;
	r.flags = MR_F_FIRST | MR_F_LAST | (retx ? MR_F_RETX : 0);
	r.dqpn = qp->attr.dest_qpn;
	r.sqpn = qp->ibqp.qp_num;
	r.psn = psn;
	r.ts = mr_txsb_ts(mroce_now());
	r.dxh.msn = msn;
	r.dxh.msg_len = MR_ATOMIC_LEN;
	r.atomic_orig = orig;
	skb = mroce_pkt_new(qp, &r, &payload);
	if (skb)
		mroce_pkt_queue(&c->txq, skb, mroce_resp_entropy(qp, c->path),
				true);
}

/* Execute an atomic once; the result is cached for duplicates. */
static u8 mroce_resp_atomic(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			    const struct mr_rxmsg_info *m)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_mr *mr;
	u64 orig, val;
	u8 reason;
	int err;

	reason = mroce_resp_rkey(qp, m->rkey, m->va, MR_ATOMIC_LEN,
				 IB_ACCESS_REMOTE_ATOMIC, &mr);
	if (reason)
		return reason;
	spin_lock(&mroce_atomic_lock);
	err = mroce_mr_copy(mr, m->va, &orig, sizeof(orig), false);
	if (!err) {
		if (m->opcode == MR_OP_ATOMIC_FA)
			val = orig + m->swap_add;
		else
			val = orig == m->compare ? m->swap_add : orig;
		err = mroce_mr_copy(mr, m->va, &val, sizeof(val), true);
	}
	spin_unlock(&mroce_atomic_lock);
	mroce_mr_put(mr);
	if (err)
		return MR_NACK_REMOTE_ACCESS;

	resp->atomic_cache[resp->atomic_next % MROCE_ATOMIC_CACHE].psn = m->msn;
	resp->atomic_cache[resp->atomic_next % MROCE_ATOMIC_CACHE].orig = orig;
	resp->atomic_cache[resp->atomic_next % MROCE_ATOMIC_CACHE].valid = true;
	resp->atomic_next++;
	mroce_resp_atomic_reply(qp, c, m->msn, m->first_psn, orig, false);
	return 0;
}

/*
 * A READ or ATOMIC the responder already executed came again (its
 * response was lost): serve the READ range again, answer the ATOMIC
 * from the cache (never re-executed).
 */
static void mroce_resp_repeat(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			      const struct mr_pkt *p)
{
	struct mroce_resp *resp = qp->resp;
	int i;

	if (p->opcode == MR_OP_READ_REQ) {
		/* Re-executed with RETX set (MR-REL-8). */
		if (mroce_resp_read(qp, c, p->dxh.msn, p->psn, p->rxh.va,
				    p->rxh.rkey, p->dxh.offset,
				    p->dxh.msg_len, true))
			mroce_count(qp->dev, MROCE_CNT_RKEY_VIOLATIONS);
		return;
	}
	for (i = 0; i < MROCE_ATOMIC_CACHE; i++) {
		if (resp->atomic_cache[i].valid &&
		    resp->atomic_cache[i].psn == p->dxh.msn) {
			/* From the cache, RETX set (MR-REL-9). */
			mroce_resp_atomic_reply(qp, c, p->dxh.msn, p->psn,
						resp->atomic_cache[i].orig,
						true);
			return;
		}
	}
}

/* ---- in-order completion ----------------------------------------------- */

/*
 * Complete the oldest message if it is complete. Fills *@wc and returns
 * true when a receive completion must be posted. resp_lock held.
 */
static bool mroce_resp_complete_one(struct mroce_qp *qp,
				    struct mroce_rx_ctx *c, struct ib_wc *wc,
				    bool *popped)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_recv_wqe *rwqe;
	struct mr_rxmsg_info m;
	struct mroce_mr *mr;
	u8 reason;

	*popped = mr_rxmsg_pop_completed(&resp->m, &m);
	if (!*popped)
		return false;

	switch (m.opcode) {
	case MR_OP_READ_REQ:
		reason = mroce_resp_read(qp, c, m.msn, m.first_psn, m.va,
					 m.rkey, m.offset, m.msg_len, false);
		if (reason) {
			mroce_count(qp->dev, MROCE_CNT_RKEY_VIOLATIONS);
			mroce_resp_fatal(qp, c, reason, m.first_psn);
		}
		return false;
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		reason = mroce_resp_atomic(qp, c, &m);
		if (reason) {
			mroce_count(qp->dev, MROCE_CNT_RKEY_VIOLATIONS);
			mroce_resp_fatal(qp, c, reason, m.first_psn);
		}
		return false;
	case MR_OP_WRITE:
		return false;
	default:
		break;
	}

	/* SEND*, WRITE_IMM: consume receive WQE ssn, in order. */
	if (m.ssn != resp->ssn_base) {
		mroce_resp_fatal(qp, c, MR_NACK_INVALID_REQ, m.first_psn);
		return false;
	}
	rwqe = mroce_resp_recv_wqe(qp, c, m.ssn);
	if (WARN_ON_ONCE(!rwqe))
		return false;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = rwqe->wr_id;
	wc->status = IB_WC_SUCCESS;
	wc->opcode = m.opcode == MR_OP_WRITE_IMM ? IB_WC_RECV_RDMA_WITH_IMM :
						    IB_WC_RECV;
	wc->byte_len = m.msg_len;
	wc->qp = &qp->ibqp;
	wc->src_qp = qp->attr.dest_qpn;
	wc->port_num = 1;
	c->se = !!(m.flags & MR_F_SE);
	if (m.opcode == MR_OP_SEND_IMM || m.opcode == MR_OP_WRITE_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cpu_to_be32(m.imm);
	} else if (m.opcode == MR_OP_SEND_INV) {
		mr = mroce_mr_get(qp->dev, m.imm);
		if (mr && mr->ibmr.pd == qp->ibqp.pd &&
		    !mroce_mr_invalidate(mr, m.imm)) {
			wc->wc_flags |= IB_WC_WITH_INVALIDATE;
			wc->ex.invalidate_rkey = m.imm;
		} else {
			wc->status = IB_WC_LOC_PROT_ERR;
			c->error = true;
		}
		if (mr)
			mroce_mr_put(mr);
	}

	if (!qp->srq) {
		spin_lock(&qp->rq.lock);
		qp->rq.head++;
		mroce_urq_publish(&qp->rq);
		spin_unlock(&qp->rq.lock);
	}
	resp->ssn_base++;
	return true;
}

/* ---- entry ------------------------------------------------------------- */

static void mroce_resp_finish(struct mroce_qp *qp, struct mroce_rx_ctx *c)
{
	mroce_pkt_flush(qp, &c->txq);
	if (c->srq_check)
		mroce_srq_check_limit(qp->srq);
	if (c->fatal)
		mroce_qp_fatal(qp);
	else if (c->error)
		mroce_qp_error(qp);
}

void mroce_resp_rcv(struct mroce_qp *qp, struct mr_pkt *p, bool ce)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_dev *dev = qp->dev;
	struct mroce_rx_ctx c = { .path = p->path };
	enum mr_rx_class cls;
	enum ib_qp_state state;
	bool ack = false, popped, post;
	struct ib_wc wc;
	u64 now;
	u8 reason;
	int rc;

	if (!resp)
		return;	/* UD/GSI: not implemented yet */
	__skb_queue_head_init(&c.txq);

	spin_lock_bh(&qp->resp_lock);
	state = READ_ONCE(qp->state);
	if (state != IB_QPS_RTR && state != IB_QPS_RTS &&
	    state != IB_QPS_SQD) {
		/* MR-MAL-5 */
		mroce_count(dev, MROCE_CNT_QPN_DROPS);
		spin_unlock_bh(&qp->resp_lock);
		return;
	}
	if (p->payload_len > ib_mtu_enum_to_int(qp->attr.path_mtu)) {
		/* MR-MAL-4 */
		mroce_count(dev, MROCE_CNT_MALFORMED_DROPS);
		spin_unlock_bh(&qp->resp_lock);
		return;
	}
	now = mroce_now();
	resp->ack_path = p->path;
	if (ce)
		mroce_count(dev, MROCE_CNT_ECN_CE_SEEN);

	cls = mr_rxwin_classify(&resp->w, p->psn);
	if (p->flags & MR_F_TRIM) {
		/* A switch cut the payload: ask for it again (MR-REL-16). */
		if (cls != MR_RX_DUP)
			mroce_resp_ack(qp, &c, MR_NACK_TRIMMED, p->psn);
		goto out;
	}

	switch (cls) {
	case MR_RX_BEYOND:
		mroce_count(dev, MROCE_CNT_WINDOW_DROPS);
		mroce_resp_ack(qp, &c, MR_NACK_SEQ_ERR, p->psn);
		goto out;
	case MR_RX_DUP:
		mroce_count(dev, MROCE_CNT_DUP_DROPS);
		if ((p->opcode == MR_OP_READ_REQ ||
		     p->opcode == MR_OP_ATOMIC_CS ||
		     p->opcode == MR_OP_ATOMIC_FA) &&
		    mr_seq32_diff(p->dxh.msn,
				  mr_rxmsg_completed_msn(&resp->m)) < 0)
			mroce_resp_repeat(qp, &c, p);
		ack = mr_rxwin_note(&resp->w, cls, p->flags, ce, p->ts, now);
		break;
	default:
		/* Checks without side effects first: RNR, access. */
		reason = mroce_resp_place(qp, &c, p, false);
		if (reason == MR_NACK_RNR) {
			mroce_resp_ack(qp, &c, MR_NACK_RNR, p->psn);
			goto out;
		}
		if (reason) {
			if (reason == MR_NACK_REMOTE_ACCESS)
				mroce_count(dev, MROCE_CNT_RKEY_VIOLATIONS);
			mroce_resp_fatal(qp, &c, reason, p->psn);
			goto out;
		}
		rc = mr_rxmsg_add(&resp->m, p);
		if (rc == MR_ERR_MSN_OLD &&
		    (p->opcode == MR_OP_READ_REQ ||
		     p->opcode == MR_OP_ATOMIC_CS ||
		     p->opcode == MR_OP_ATOMIC_FA)) {
			/* Re-request of a completed READ/ATOMIC. */
			mroce_resp_repeat(qp, &c, p);
		} else if (rc < 0) {
			/* Inconsistent with its message: drop, no state. */
			mroce_count(dev, MROCE_CNT_MALFORMED_DROPS);
			goto out;
		} else if (rc == 0) {
			reason = mroce_resp_place(qp, &c, p, true);
			if (reason) {
				mroce_resp_fatal(qp, &c, reason, p->psn);
				goto out;
			}
		}
		mr_rxwin_mark(&resp->w, p->psn);
		ack = mr_rxwin_note(&resp->w, cls, p->flags, ce, p->ts, now);
		break;
	}

	/* Complete messages in msn order, posting with the lock dropped. */
	for (;;) {
		post = mroce_resp_complete_one(qp, &c, &wc, &popped);
		if (!popped || c.error)
			break;
		if (!post)
			continue;
		spin_unlock_bh(&qp->resp_lock);
		mroce_cq_post(qp->rcq, &wc, c.se);
		spin_lock_bh(&qp->resp_lock);
	}

	if (!c.error) {
		if (ack)
			mroce_resp_ack(qp, &c, 0, 0);
		else if (resp->w.delack_armed && !READ_ONCE(qp->stopping))
			hrtimer_start(&qp->ack_timer,
				      ns_to_ktime(resp->w.ack_deadline_ns),
				      HRTIMER_MODE_ABS_SOFT);
	}
out:
	spin_unlock_bh(&qp->resp_lock);
	mroce_resp_finish(qp, &c);
}

/* Delayed-ACK timer (softirq). */
enum hrtimer_restart mroce_ack_timer_fn(struct hrtimer *t)
{
	struct mroce_qp *qp = container_of(t, struct mroce_qp, ack_timer);
	struct mroce_rx_ctx c = {};

	if (!qp->resp)
		return HRTIMER_NORESTART;
	__skb_queue_head_init(&c.txq);
	spin_lock_bh(&qp->resp_lock);
	c.path = qp->resp->ack_path;
	if (mr_rxwin_ack_due(&qp->resp->w, mroce_now()))
		mroce_resp_ack(qp, &c, 0, 0);
	spin_unlock_bh(&qp->resp_lock);
	mroce_pkt_flush(qp, &c.txq);
	return HRTIMER_NORESTART;
}

/* ---- UD / GSI receive --------------------------------------------------- */

/*
 * One UD_SEND for a UD or GSI QP (MR-UD-*): Q_Key check, then the next
 * receive WQE gets the 40-byte GRH area (the IPv6 header, or the IPv4
 * header at offset 20, as for RoCE v2) followed by the payload. No WQE:
 * the datagram is dropped (UD has no RNR). Softirq context.
 */
void mroce_ud_rcv(struct mroce_qp *qp, struct mr_pkt *p, struct sk_buff *skb)
{
	struct mroce_dev *dev = qp->dev;
	struct mroce_rq *rq = qp->srq ? &qp->srq->rq : &qp->rq;
	struct mroce_recv_wqe *rwqe;
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct ib_wc wc = {};
	u8 grh[40] = {};
	int err;

	u32 i, room = 0;

	if (state != IB_QPS_RTR && state != IB_QPS_RTS &&
	    state != IB_QPS_SQD) {
		mroce_count(dev, MROCE_CNT_QPN_DROPS);
		return;
	}
	if (p->deth.qkey != qp->attr.qkey) {
		mroce_count(dev, MROCE_CNT_QKEY_DROPS);	/* MR-UD-5 */
		return;
	}
	/* The GSI QP takes exactly one MAD per datagram (MR-UD-14). */
	if (qp->ibqp.qp_type == IB_QPT_GSI &&
	    p->payload_len != sizeof(struct ib_mad)) {
		mroce_count(dev, MROCE_CNT_MALFORMED_DROPS);
		return;
	}

	if (skb->protocol == htons(ETH_P_IP)) {
		memcpy(grh + 20, skb_network_header(skb), 20);
		wc.network_hdr_type = RDMA_NETWORK_IPV4;
	} else {
		memcpy(grh, skb_network_header(skb), 40);
		wc.network_hdr_type = RDMA_NETWORK_IPV6;
	}

	spin_lock_bh(&rq->lock);
	if (!mroce_rq_count(rq))
		mroce_urq_pull(rq);
	if (!mroce_rq_count(rq)) {
		spin_unlock_bh(&rq->lock);
		mroce_count(dev, MROCE_CNT_NO_WQE_DROPS);	/* MR-UD-9 */
		return;
	}
	rwqe = mroce_rq_wqe(rq, rq->head);
	for (i = 0; i < rwqe->num_sge; i++)
		room += rwqe->sge[i].length;
	if (room < sizeof(grh) + p->payload_len) {
		/* Dropped without consuming the WQE (MR-UD-10). */
		spin_unlock_bh(&rq->lock);
		mroce_count(dev, MROCE_CNT_UD_LEN_DROPS);
		return;
	}
	wc.wr_id = rwqe->wr_id;
	err = mroce_sge_copy(qp, rwqe->sge, rwqe->num_sge, 0, grh,
			     sizeof(grh), true);
	if (!err)
		err = mroce_sge_copy(qp, rwqe->sge, rwqe->num_sge, sizeof(grh),
				     (void *)p->payload, p->payload_len, true);
	rq->head++;
	mroce_urq_publish(rq);
	spin_unlock_bh(&rq->lock);

	wc.status = err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	wc.opcode = IB_WC_RECV;
	wc.byte_len = sizeof(grh) + p->payload_len;
	wc.qp = &qp->ibqp;
	wc.src_qp = p->deth.src_qpn;
	wc.port_num = 1;
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	if (p->opcode == MR_OP_UD_SEND_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = cpu_to_be32(p->imm);
	}
	if (skb_mac_header_was_set(skb) &&
	    skb_network_header(skb) - skb_mac_header(skb) >= ETH_HLEN) {
		ether_addr_copy(wc.smac, eth_hdr(skb)->h_source);
		wc.wc_flags |= IB_WC_WITH_SMAC;
	}
	mroce_cq_post(qp->rcq, &wc, !!(p->flags & MR_F_SE));
	if (qp->srq)
		mroce_srq_check_limit(qp->srq);
}
