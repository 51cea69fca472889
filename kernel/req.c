// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE requester: turns send WQEs into request packets on the
 * protocol core (sender scoreboard, congestion control, path table) and
 * completes them in order.
 *
 * It runs in the context that made work available - post_send, ACK or
 * response reception (softirq), the QP's timer (softirq hrtimer) - never
 * through a per-packet workqueue hop. One thread at a time runs a QP's
 * requester (sq.running); others set sq.kick and return, and the runner
 * loops until no kick is pending. Packets are built under sq.lock and
 * transmitted after dropping it, in batches.
 */

#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "metaroce.h"
#include "resp.h"

#define MROCE_TX_BATCH	16	/* packets built per lock hold */
/* Retry after a failed packet allocation: nothing else may wake us. */
#define MROCE_TX_NOMEM_RETRY_NS	(1000 * 1000)

/*
 * Congestion control knobs over the core's defaults (MR-CC-*). The
 * delay (Swift) component is off by default on this software device:
 * its RTT samples include host scheduling latency, which is not fabric
 * queueing and routinely exceeds the 10-20 us target, so on loaded or
 * virtualised hosts it collapses the window for no network reason.
 * ECN (DCTCP), loss and trim signals stay on.
 */
static bool mroce_cc_delay;
module_param_named(cc_delay, mroce_cc_delay, bool, 0644);
MODULE_PARM_DESC(cc_delay, "Use the delay (Swift) congestion signal (default off)");

static bool mroce_cc_fixed;
module_param_named(cc_fixed, mroce_cc_fixed, bool, 0644);
MODULE_PARM_DESC(cc_fixed, "Fixed full window, no congestion control (comparison mode)");

/*
 * Dead-path detection and probing (MR-MP-8..12). Off by default until
 * it is validated: enabling it made transfers fail in the test VM.
 */
static bool mroce_path_health;
module_param_named(path_health, mroce_path_health, bool, 0644);
MODULE_PARM_DESC(path_health, "Dead-path detection and probing (experimental, default off)");

static unsigned char mroce_paths = MR_PATH_DEFAULT;
module_param_named(paths, mroce_paths, byte, 0644);
MODULE_PARM_DESC(paths, "Paths (UDP source port entropies) per QP, 1..64; 1 = single path");

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

u8 mroce_wire_opcode(enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_SEND:
		return MR_OP_SEND;
	case IB_WR_SEND_WITH_IMM:
		return MR_OP_SEND_IMM;
	case IB_WR_SEND_WITH_INV:
		return MR_OP_SEND_INV;
	case IB_WR_RDMA_WRITE:
		return MR_OP_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return MR_OP_WRITE_IMM;
	case IB_WR_RDMA_READ:
		return MR_OP_READ_REQ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return MR_OP_ATOMIC_CS;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return MR_OP_ATOMIC_FA;
	default:
		return 0;	/* local operation */
	}
}

/* READ or ATOMIC: answered by responses (the opcode table, wire.c). */
static bool mroce_op_answered(u8 wire_op)
{
	return mr_op_has(wire_op, MR_OPA_ANSWERED);
}

/* Consumes a receive WQE at the peer: carries an SSN (MR-VERBS-20). */
static bool mroce_op_uses_ssn(u8 wire_op)
{
	return mr_op_has(wire_op, MR_OPA_SSN);
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

/* ---- protocol state --------------------------------------------------- */

static u32 mroce_rand32(void *ctx)
{
	return get_random_u32();
}

static enum hrtimer_restart mroce_req_timer_fn(struct hrtimer *t)
{
	struct mroce_qp *qp = container_of(t, struct mroce_qp, req_timer);

	mroce_req_run(qp);
	return HRTIMER_NORESTART;
}

int mroce_proto_alloc(struct mroce_qp *qp)
{
	hrtimer_init(&qp->req_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->req_timer.function = mroce_req_timer_fn;
	hrtimer_init(&qp->ack_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->ack_timer.function = mroce_ack_timer_fn;
	spin_lock_init(&qp->resp_lock);
	mroce_resp_rd_init(qp);
	/* The QP's own clock: off-path forgers must guess it (MR-SEC-6). */
	qp->ts_offset = get_random_u32();

	if (qp->ibqp.qp_type != IB_QPT_RC)
		return 0;
	/* Charged to the creator's memory cgroup, like its queues. */
	qp->req = kvzalloc(sizeof(*qp->req), GFP_KERNEL_ACCOUNT);
	qp->resp = kvzalloc(sizeof(*qp->resp), GFP_KERNEL_ACCOUNT);
	if (!qp->req || !qp->resp)
		goto err;
	qp->req->msn_idx = kvcalloc(qp->sq.size, sizeof(u32),
				    GFP_KERNEL_ACCOUNT);
	if (!qp->req->msn_idx)
		goto err;
	if (qp->srq) {
		qp->resp->slot_size = qp->srq->rq.wqe_size;
		qp->resp->slots = kvcalloc(MR_WINDOW, qp->resp->slot_size,
					   GFP_KERNEL_ACCOUNT);
		if (!qp->resp->slots)
			goto err;
	}
	return 0;
err:
	mroce_proto_free(qp);
	return -ENOMEM;
}

void mroce_proto_free(struct mroce_qp *qp)
{
	if (qp->resp)
		kvfree(qp->resp->slots);
	if (qp->req)
		kvfree(qp->req->msn_idx);
	kvfree(qp->resp);
	kvfree(qp->req);
	qp->resp = NULL;
	qp->req = NULL;
}

/*
 * Stop the QP's timers and works for good (destroy) or until the next
 * start (reset). Every site that arms a timer or queues a work checks
 * stopping under sq.lock or resp_lock; stopping is set under sq.lock and
 * then resp_lock is passed through, so once both are done nothing arms
 * or queues any more. The one exception is mroce_qp_kick() deferring a
 * post made with interrupts off (the MAD layer) to req_work: posts never
 * race destroy (the verbs contract), and a run after a reset finds no
 * work. The timers are cancelled first (their callbacks may queue the
 * works), then the works. Sleeps.
 */
void mroce_qp_stop_timers(struct mroce_qp *qp)
{
	spin_lock_bh(&qp->sq.lock);
	WRITE_ONCE(qp->stopping, true);
	spin_unlock_bh(&qp->sq.lock);
	/* Seen by every later holder of either lock. */
	spin_lock_bh(&qp->resp_lock);
	spin_unlock_bh(&qp->resp_lock);
	hrtimer_cancel(&qp->req_timer);
	hrtimer_cancel(&qp->ack_timer);
	hrtimer_cancel(&qp->rd_timer);
	cancel_work_sync(&qp->req_work);
	cancel_work_sync(&qp->resp_work);
}

/*
 * Entering RTS: (re)initialise the requester on the core with the
 * verbs attributes (modify_lock held, SQ idle: RTR has no send work).
 */
void mroce_req_start(struct mroce_qp *qp)
{
	struct mroce_req *req = qp->req;
	struct mroce_qp_attrs *a = &qp->attr;
	struct mr_txsb_params tp;
	struct mr_path_params pp;
	struct mr_cc_params cp;
	enum ib_mtu mtu;
	u64 cap;

	if (!req)
		return;
	mr_txsb_default_params(&tp);
	tp.retry_cnt = a->retry_cnt;
	tp.rnr_retry = a->rnr_retry;
	/*
	 * T_verbs from the verbs timeout (0: infinite): it caps the RTO and
	 * is the counting period of the retry budget (MR-RETRY-1/3); the
	 * core applies both.
	 */
	cap = mr_ib_timeout_ns(a->timeout);
	tp.verbs_timeout_ns = cap ? cap : MR_TIME_NEVER;
	tp.ts_offset = qp->ts_offset;
	mr_cc_default_params(&cp);
	if (mroce_cc_fixed) {
		cp.mode = MR_CC_FIXED;
	} else if (!mroce_cc_delay) {
		cp.use_delay = false;
		/* Sub-packet windows only make sense with delay pacing. */
		cp.min_cwnd = MR_CC_ONE;
	}
	mr_path_default_params(&pp);
	if (mroce_paths <= 1)
		pp.single = true;
	else
		pp.n_paths = min_t(u8, mroce_paths, MR_PATH_MAX);
	mtu = min(a->path_mtu, READ_ONCE(qp->dev->active_mtu));

	spin_lock_bh(&qp->sq.lock);
	WARN_ON(mr_txsb_init(&req->snd.sb, &tp, a->sq_psn));
	WARN_ON(mr_cc_init(&req->snd.cc, &cp));
	WARN_ON(mr_path_init(&req->snd.pt, &pp, mroce_rand32, NULL,
			     mroce_now()));
	req->msn_next = 0;
	req->ssn_next = 0;
	req->cur = qp->sq.head;
	req->cur_off = 0;
	req->rerolls_seen = req->snd.pt.rerolls;
	req->mtu = ib_mtu_enum_to_int(mtu);
	/* Probe identifiers an off-path forger cannot predict (MR-SEC-3). */
	req->probe_id = get_random_u32();
	req->rd_atomic_out = 0;
	req->rd_bytes_out = 0;
	req->failed_ns = 0;
	req->inited = true;
	req->halted = false;
	req->tx_nomem = false;
	WRITE_ONCE(qp->stopping, false);
	spin_unlock_bh(&qp->sq.lock);
}

/* ---- send queue walking ----------------------------------------------- */

/* SQ index past the WQEs the requester has started (cur if partly sent). */
static u32 mroce_req_started_end(const struct mroce_req *req)
{
	return req->cur + (req->cur_off ? 1 : 0);
}

/*
 * The WQE carrying request message @msn among those the requester has
 * started (head .. cur, cur included once partly sent), or NULL; O(1)
 * through req->msn_idx, as a response or NACK may name any msn.
 * sq.lock held.
 */
struct mroce_send_wqe *mroce_req_find_msn(struct mroce_qp *qp, u32 msn)
{
	struct mroce_req *req = qp->req;
	struct mroce_sq *sq = &qp->sq;
	struct mroce_send_wqe *wqe;
	u32 idx = req->msn_idx[msn & (sq->size - 1)];

	/* Only a started, unretired WQE with that msn is an answer. */
	if (idx - sq->head >= mroce_req_started_end(req) - sq->head)
		return NULL;
	wqe = mroce_sq_wqe(sq, idx);
	return wqe->wire_op && wqe->msn == msn ? wqe : NULL;
}

/*
 * The WQE the scoreboard's failure was charged to (the first started
 * WQE done with an error), or NULL. Only run once the QP failed.
 * sq.lock held.
 */
static struct mroce_send_wqe *mroce_req_failed_wqe(struct mroce_qp *qp)
{
	struct mroce_req *req = qp->req;
	struct mroce_send_wqe *wqe;
	u32 i, end = mroce_req_started_end(req);

	for (i = qp->sq.head; i != end; i++) {
		wqe = mroce_sq_wqe(&qp->sq, i);
		if (wqe->state == MROCE_WQE_DONE &&
		    wqe->status != IB_WC_SUCCESS)
			return wqe;
	}
	return NULL;
}

/*
 * Can the WQE at the SQ head complete? Fills *@status. Completion is
 * strictly in SQ order; the rule is the core's (proto/reqdone.h), the
 * Error state and UD/GSI (no requester state) are the glue's. sq.lock
 * held.
 */
static bool mroce_req_head_ready(struct mroce_qp *qp, u8 *status)
{
	struct mroce_sq *sq = &qp->sq;
	struct mroce_req *req = qp->req;
	struct mroce_send_wqe *wqe;
	struct mr_done_head h;
	bool later_failed = false;
	u64 now = 0;

	if (sq->head == sq->tail)
		return false;
	wqe = mroce_sq_wqe(sq, sq->head);

	if (qp->state == IB_QPS_ERR) {
		*status = wqe->state == MROCE_WQE_DONE &&
			  wqe->status != IB_WC_SUCCESS ?
			  wqe->status : IB_WC_WR_FLUSH_ERR;
		return true;
	}
	if (!req) {
		*status = wqe->status;
		return wqe->state == MROCE_WQE_DONE;
	}
	h.opcode = wqe->wire_op;
	h.length = wqe->length;
	h.first_psn = wqe->first_psn;
	h.last_psn = wqe->last_psn;
	h.sent = wqe->state == MROCE_WQE_SENT;
	h.finished = wqe->state == MROCE_WQE_DONE;
	h.ok = wqe->status == IB_WC_SUCCESS;
	/* Only once the scoreboard failed: a walk of the started WQEs. */
	if (req->snd.sb.failed) {
		later_failed = !!mroce_req_failed_wqe(qp);
		now = mroce_now();
	}
	switch (mr_req_head_done(&h, &req->snd.sb, later_failed,
				 &req->failed_ns, now)) {
	case MR_DONE_OWN:
		*status = wqe->status;
		return true;
	case MR_DONE_SUCCESS:
		*status = IB_WC_SUCCESS;
		return true;
	case MR_DONE_FLUSH:
		*status = IB_WC_WR_FLUSH_ERR;
		return true;
	case MR_DONE_RETRY_EXC:
		*status = IB_WC_RETRY_EXC_ERR;
		return true;
	default:
		return false;
	}
}

/*
 * A send WQE no responder would accept, found when it is posted
 * (MR-VERBS-23): an atomic at a remote address that is not 8-byte
 * aligned (the responder's answer would be NACK INVALID_REQ) or a READ
 * or WRITE whose remote range wraps 2^64 (NACK REMOTE_ACCESS). The wire
 * format cannot carry either (MR-HDR-14, MR-HDR-10), so such a WR is not
 * sent: it completes in SQ order with the status that NACK would give
 * (MR-VERBS-22) and the QP enters Error. Returns IB_WC_SUCCESS or that
 * status.
 */
u8 mroce_req_validate(const struct mroce_send_wqe *wqe)
{
	u64 addr;

	switch (wqe->opcode) {
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (wqe->wr.atomic.remote_addr & (MR_ATOMIC_LEN - 1))
			return IB_WC_REM_INV_REQ_ERR;
		return IB_WC_SUCCESS;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		addr = wqe->wr.rdma.remote_addr;
		if (wqe->length && addr > U64_MAX - (wqe->length - 1))
			return IB_WC_REM_ACCESS_ERR;
		return IB_WC_SUCCESS;
	default:
		return IB_WC_SUCCESS;
	}
}

/* Execute a local operation; sq.lock held. */
static u8 mroce_req_local(struct mroce_qp *qp, struct mroce_send_wqe *wqe)
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
		return IB_WC_LOC_QP_OP_ERR;
	}
}

/* Payload of the packet at byte @off of @wqe (inline or SGE list). */
int mroce_req_payload(struct mroce_qp *qp, struct mroce_send_wqe *wqe,
		      u32 off, u8 *dst, u32 len)
{
	if (!len)
		return 0;
	if (wqe->send_flags & IB_SEND_INLINE) {
		memcpy(dst, wqe->inline_data + off, len);
		return 0;
	}
	return mroce_sge_copy(qp, wqe->sge, wqe->num_sge, off, dst, len,
			      false);
}

/* The message @wqe sends, as the core's segmentation sees it. */
static void mroce_req_msg(const struct mroce_send_wqe *wqe,
			  struct mr_req_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->opcode = wqe->wire_op;
	m->solicited = !!(wqe->send_flags & IB_SEND_SOLICITED);
	m->msn = wqe->msn;
	m->ssn = wqe->ssn;
	m->length = wqe->length;
	switch (wqe->wire_op) {
	case MR_OP_SEND_IMM:
	case MR_OP_WRITE_IMM:
		m->imm = be32_to_cpu(wqe->ex.imm_data);
		break;
	case MR_OP_SEND_INV:
		m->imm = wqe->ex.invalidate_rkey;
		break;
	default:
		break;
	}
	switch (wqe->wire_op) {
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
	case MR_OP_READ_REQ:
		m->va = wqe->wr.rdma.remote_addr;
		m->rkey = wqe->wr.rdma.rkey;
		break;
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		m->va = wqe->wr.atomic.remote_addr;
		m->rkey = wqe->wr.atomic.rkey;
		if (wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP) {
			m->swap_add = wqe->wr.atomic.swap;
			m->compare = wqe->wr.atomic.compare_add;
		} else {
			m->swap_add = wqe->wr.atomic.compare_add;
		}
		break;
	default:
		break;
	}
}

/*
 * Build the request packet at byte @off of @wqe (segment.h) with @psn on
 * @path; a READ_REQ asks for bytes [off, off + rlen). *@last: it ends
 * the message. NULL on failure with *@status set (local protection or
 * length error) or 0 (no memory).
 */
static struct sk_buff *mroce_req_build(struct mroce_qp *qp,
				       struct mroce_send_wqe *wqe, u32 off,
				       u32 rlen, u32 psn, bool retx, u8 path,
				       u64 now, bool *last, u8 *status)
{
	struct mroce_req *req = qp->req;
	struct mr_req_msg m;
	struct mr_pkt p;
	struct sk_buff *skb;
	u8 *payload;
	int err;

	*status = 0;
	mroce_req_msg(wqe, &m);
	*last = mr_req_segment(&m, off, req->mtu, rlen, retx, &p);
	p.path = path;
	p.dqpn = qp->attr.dest_qpn;
	p.psn = psn;
	p.sqpn = qp->ibqp.qp_num;
	p.ts = mr_txsb_stamp(&req->snd.sb, now);

	skb = mroce_pkt_new(qp, &p, &payload);
	if (skb == ERR_PTR(-ENOMEM)) {
		req->tx_nomem = true;	/* the timer retries (req_arm) */
		return NULL;
	}
	if (IS_ERR(skb)) {
		/* Refused by the encoder: never retried, the WR fails. */
		*status = IB_WC_LOC_QP_OP_ERR;
		return NULL;
	}
	err = mroce_req_payload(qp, wqe, off, payload, p.payload_len);
	if (err) {
		kfree_skb(skb);
		*status = err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
					     IB_WC_LOC_PROT_ERR;
		return NULL;
	}
	return skb;
}

static void mroce_req_fail(struct mroce_send_wqe *wqe, u8 status)
{
	wqe->state = MROCE_WQE_DONE;
	wqe->status = status;
}

/*
 * Retransmit what the scoreboard declared lost, within the congestion
 * window like every request packet (MR-CC-3). After an RTO the window
 * is one packet: the first retransmission's ACK tells a spurious RTO
 * (MR-LOSS-15), which puts the rest back in flight unsent, from a real
 * one, after which slow start sends them. sq.lock held.
 */
static int mroce_req_retransmit(struct mroce_qp *qp, struct sk_buff_head *q,
				u64 now, int budget)
{
	struct mroce_req *req = qp->req;
	const struct mr_txsb_ent *ent;
	struct mroce_send_wqe *wqe;
	struct sk_buff *skb;
	u32 psn, off, rlen;
	u8 path, status;
	bool last;

	while (budget > 0 && mr_sender_can_send(&req->snd, now) &&
	       mr_txsb_next_retx(&req->snd.sb, now, &psn)) {
		ent = mr_txsb_get(&req->snd.sb, psn);
		wqe = ent ? mroce_req_find_msn(qp, ent->msn) : NULL;
		if (!wqe) {
			/* Every outstanding PSN belongs to a started WQE. */
			WARN_ONCE(1, "metaroce: qp %u: lost psn %u has no WQE\n",
				  qp->ibqp.qp_num, psn);
			break;
		}
		path = mr_path_pick_other(&req->snd.pt, ent->path);
		off = req->pkt_off[psn & MR_TXSB_WIN_MASK];
		/*
		 * A lost READ_REQ/atomic goes out again exactly as sent: the
		 * responder checks that every packet of a message agrees
		 * (MR-PLACE-14).
		 */
		rlen = req->pkt_len[psn & MR_TXSB_WIN_MASK];
		skb = mroce_req_build(qp, wqe, off, rlen, psn, true, path, now,
				      &last, &status);
		if (!skb) {
			/* The source buffer went bad under us: fail the WR. */
			if (status)
				mroce_req_fail(wqe, status);
			break;
		}
		mr_txsb_on_retx(&req->snd.sb, psn, path, now);
		mr_sender_on_sent(&req->snd, path, now);
		mroce_count(qp->dev, MROCE_CNT_RETX);
		mroce_pkt_queue(q, skb, mr_path_entropy(&req->snd.pt, path), true);
		budget--;
	}
	return budget;
}

/* Send one more READ_REQ/ATOMIC request of @wqe for [off, off + rlen). */
static bool mroce_req_more(struct mroce_qp *qp, struct sk_buff_head *q,
			   struct mroce_send_wqe *wqe, u32 off, u32 rlen,
			   bool retx, u64 now)
{
	struct mroce_req *req = qp->req;
	struct sk_buff *skb;
	u8 path, status;
	bool last;
	u32 psn;

	if (mr_txsb_window_full(&req->snd.sb))
		return false;
	path = mr_path_pick(&req->snd.pt);
	skb = mroce_req_build(qp, wqe, off, rlen, req->snd.sb.nxt, retx, path,
			      now, &last, &status);
	if (!skb)
		return false;
	if (mr_txsb_on_send(&req->snd.sb, wqe->msn, MR_TXE_FIRST | MR_TXE_LAST,
			    path, now, &psn)) {
		kfree_skb(skb);
		return false;
	}
	wqe->first_psn = psn;
	wqe->rdq.progress_ns = now;
	req->pkt_off[psn & MR_TXSB_WIN_MASK] = off;
	req->pkt_len[psn & MR_TXSB_WIN_MASK] = rlen;
	mr_sender_on_sent(&req->snd, path, now);
	if (retx)
		mroce_count(qp->dev, MROCE_CNT_RETX);
	mroce_pkt_queue(q, skb, mr_path_entropy(&req->snd.pt, path), true);
	return true;
}

/*
 * READ response bytes a QP may have requested and not yet received. The
 * responder sends a READ's whole range at once and serves READs in order,
 * so without a bound a QP with many READs posted (perftest: up to
 * max_rd_atomic) makes the responder queue megabytes at once: its netdev
 * queue overflows, the QPs behind starve past their retry budget and
 * every re-request is served again. Bounded, responses stream in at the
 * rate the requester takes them, like data under its congestion window.
 */
#define MROCE_RD_QP_BUDGET	(2 * MR_RDASM_WINDOW)

/*
 * Re-send a stalled atomic under its original PSN and MSN (MR-REL-27).
 * That PSN was delivered, so the copy takes no window slot and is not
 * tracked: a responder that executed the atomic answers it from its
 * cache (MR-REL-9); one still waiting to execute it in MSN order drops
 * the copy as a duplicate and answers when it executes. A new PSN would
 * be refused as inconsistent with the atomic's message (MR-PLACE-14)
 * and, never acknowledged, use up the retry budget. sq.lock held.
 */
static bool mroce_req_atomic_again(struct mroce_qp *qp,
				   struct sk_buff_head *q,
				   struct mroce_send_wqe *wqe, u64 now)
{
	struct mroce_req *req = qp->req;
	struct sk_buff *skb;
	u8 path, status;
	bool last;

	path = mr_path_pick(&req->snd.pt);
	skb = mroce_req_build(qp, wqe, 0, 0, wqe->first_psn, true, path, now,
			      &last, &status);
	if (!skb)
		return false;
	wqe->rdq.progress_ns = now;
	mroce_count(qp->dev, MROCE_CNT_RETX);
	mroce_pkt_queue(q, skb, mr_path_entropy(&req->snd.pt, path), true);
	return true;
}

/*
 * READ and ATOMIC follow-ups (proto/rdreq.h decides what): the next
 * range of a READ, asking again for what a stalled or trimmed READ
 * misses, an atomic re-sent, or the WR failed once its retries are spent.
 * Returns the packet budget left. sq.lock held.
 */
static int mroce_req_read_more(struct mroce_qp *qp, struct sk_buff_head *q,
			       u64 now, int budget)
{
	struct mroce_req *req = qp->req;
	struct mr_rdreq_env env = {
		.now = now,
		.rto_ns = mr_txsb_rto(&req->snd.sb),
		.verbs_timeout_ns = req->snd.sb.p.verbs_timeout_ns,
		.retry_cnt = req->snd.sb.p.retry_cnt,
		.rd_bytes_max = MROCE_RD_QP_BUDGET,
	};
	struct mroce_send_wqe *wqe;
	enum mr_rdreq_act act;
	u64 older = 0;
	u32 i, off, len;
	bool read;

	for (i = qp->sq.head; i != req->cur && budget > 0; i++) {
		wqe = mroce_sq_wqe(&qp->sq, i);
		if (!mroce_op_answered(wqe->wire_op))
			continue;
		/* Latest response data of the READs/ATOMICs before this one. */
		env.ahead_ns = older;
		older = max(older, wqe->rdq.progress_ns);
		if (wqe->state != MROCE_WQE_SENT)
			continue;
		read = wqe->wire_op == MR_OP_READ_REQ;
		env.req_in_flight = !!mr_txsb_get(&req->snd.sb, wqe->first_psn);
		env.can_send = mr_txsb_can_send(&req->snd.sb, now);
		env.rd_bytes_out = req->rd_bytes_out;
		do {
			act = mr_rdreq_next(&wqe->rdq, read, &env, &off, &len);
			switch (act) {
			case MR_RDREQ_MORE:
			case MR_RDREQ_AGAIN:
				if (!mroce_req_more(qp, q, wqe, off, len,
						    act == MR_RDREQ_AGAIN, now))
					return budget;
				mr_rdreq_sent(&wqe->rdq, act, off, len);
				if (act == MR_RDREQ_MORE)
					req->rd_bytes_out += len;
				budget--;
				break;
			case MR_RDREQ_ATOMIC_AGAIN:
				if (!mroce_req_atomic_again(qp, q, wqe, now))
					return budget;
				budget--;
				break;
			case MR_RDREQ_FAIL:
				pr_info_ratelimited("metaroce: qp %u: %s msn %u stalled at %u/%u of %u: retries exhausted\n",
						    qp->ibqp.qp_num,
						    read ? "READ" : "ATOMIC",
						    wqe->msn, wqe->rdq.rd.done,
						    wqe->rdq.rd.req_end,
						    wqe->length);
				mroce_req_fail(wqe, IB_WC_RETRY_EXC_ERR);
				break;
			case MR_RDREQ_STOP:
				return budget;
			default:
				break;
			}
			/* A round of asking again goes on while it can. */
		} while (act == MR_RDREQ_AGAIN && budget > 0);
	}
	return budget;
}

/* Packetize new work from req->cur. sq.lock held. */
static void mroce_req_send_new(struct mroce_qp *qp, struct sk_buff_head *q,
			       u64 now, int budget)
{
	struct mroce_sq *sq = &qp->sq;
	struct mroce_req *req = qp->req;
	struct mroce_send_wqe *wqe;
	struct sk_buff *skb;
	bool first, last;
	u8 path, status, txe;
	u32 psn;

	while (budget > 0 && req->cur != sq->tail && !req->halted) {
		wqe = mroce_sq_wqe(sq, req->cur);

		/*
		 * A user WQE that failed validation (uring.c): it completes
		 * with its error in SQ order; nothing after it is sent.
		 */
		if (!req->cur_off && wqe->state == MROCE_WQE_DONE) {
			req->cur++;
			req->halted = true;
			break;
		}
		if (!req->cur_off && !wqe->wire_op &&
		    wqe->state == MROCE_WQE_QUEUED) {
			/* Local operation, in SQ order. */
			mroce_req_fail(wqe, mroce_req_local(qp, wqe));
			req->cur++;
			continue;
		}
		/* Fence: wait for earlier READ/ATOMIC results. */
		if (!req->cur_off && (wqe->send_flags & IB_SEND_FENCE) &&
		    sq->head != req->cur)
			break;
		if (mr_txsb_window_full(&req->snd.sb) ||
		    !mr_sender_can_send(&req->snd, now))
			break;

		/*
		 * At most max_rd_atomic READ/ATOMIC WRs outstanding
		 * (MR-VERBS-15): the peer's responder refuses more than its
		 * max_dest_rd_atomic, which the connection matched to it.
		 */
		if (!req->cur_off && mroce_op_answered(wqe->wire_op) &&
		    req->rd_atomic_out >= qp->attr.max_rd_atomic)
			break;
		/* A new READ waits while earlier ones fill the budget. */
		if (!req->cur_off && wqe->wire_op == MR_OP_READ_REQ &&
		    req->rd_bytes_out + min_t(u32, wqe->length, MR_RDASM_WINDOW) >
		    MROCE_RD_QP_BUDGET)
			break;

		first = !req->cur_off;
		if (first) {
			wqe->msn = req->msn_next;
			wqe->first_psn = req->snd.sb.nxt;
			mr_rdreq_start(&wqe->rdq, wqe->length, now);
			wqe->rd_atomic = 0;
			if (mroce_op_uses_ssn(wqe->wire_op))
				wqe->ssn = req->ssn_next;
		}
		if (first && wqe->wire_op == MR_OP_READ_REQ)
			mr_rdasm_first(&wqe->rdq.rd);
		path = mr_path_pick(&req->snd.pt);
		skb = mroce_req_build(qp, wqe, req->cur_off, wqe->rdq.rd.req_end,
				      req->snd.sb.nxt, false, path, now, &last,
				      &status);
		if (!skb) {
			if (!status)
				break;	/* no memory: the timer retries */
			/* Nothing after a failed WR executes (MR-VERBS-25). */
			mroce_req_fail(wqe, status);
			req->cur++;
			req->cur_off = 0;
			req->halted = true;
			break;
		}
		txe = (first ? MR_TXE_FIRST : 0) | (last ? MR_TXE_LAST : 0);
		if (mr_txsb_on_send(&req->snd.sb, wqe->msn, txe, path, now, &psn)) {
			kfree_skb(skb);
			break;
		}
		req->pkt_off[psn & MR_TXSB_WIN_MASK] = req->cur_off;
		req->pkt_len[psn & MR_TXSB_WIN_MASK] = wqe->rdq.rd.req_end;
		if (first) {
			req->msn_idx[wqe->msn & (sq->size - 1)] = req->cur;
			req->msn_next++;
			if (mroce_op_uses_ssn(wqe->wire_op))
				req->ssn_next++;
			if (mroce_op_answered(wqe->wire_op)) {
				wqe->rd_atomic = 1;
				req->rd_atomic_out++;
				req->rd_bytes_out += wqe->rdq.rd.req_end;
			}
		}
		mr_sender_on_sent(&req->snd, path, now);
		mroce_pkt_queue(q, skb, mr_path_entropy(&req->snd.pt, path), true);
		budget--;

		if (last) {
			wqe->last_psn = psn;
			wqe->state = MROCE_WQE_SENT;
			req->cur++;
			req->cur_off = 0;
		} else {
			/* Every packet but the last is full (segment.h). */
			req->cur_off += req->mtu;
		}
	}
}

/*
 * Path health (MR-MP-8..12): close rounds, declare paths dead (their
 * packets go out again on other paths), probe dead paths, and account
 * every entropy re-roll the table made. sq.lock held.
 */
static void mroce_req_paths(struct mroce_qp *qp, struct sk_buff_head *q,
			    u64 now)
{
	struct mroce_req *req = qp->req;
	struct mr_txsb_result res = {};
	struct mr_pkt p = {};
	struct sk_buff *skb;
	u8 idx, *payload;
	u64 dead;
	int i;

	dead = mr_path_tick(&req->snd.pt, mr_txsb_paths_in_flight(&req->snd.sb),
			    mr_txsb_rto(&req->snd.sb), now);
	for (i = 0; dead; dead >>= 1, i++)
		if (dead & 1)
			mr_txsb_mark_path_lost(&req->snd.sb, i, &res);

	while (mr_path_probe_due(&req->snd.pt, now, &idx)) {
		p.opcode = MR_OP_PROBE;
		p.path = idx;
		p.dqpn = qp->attr.dest_qpn;
		p.sqpn = qp->ibqp.qp_num;
		p.psn = req->probe_id++ & MR_PSN_MASK;
		p.ts = mr_txsb_stamp(&req->snd.sb, now);
		mr_path_on_probe_sent(&req->snd.pt, idx, p.psn, p.ts, now);
		skb = mroce_pkt_new(qp, &p, &payload);
		if (IS_ERR(skb))
			break;
		mroce_pkt_queue(q, skb, mr_path_entropy(&req->snd.pt, idx), false);
	}

	if (req->snd.pt.rerolls != req->rerolls_seen) {
		mroce_count_add(qp->dev, MROCE_CNT_PATH_REROLLS,
				req->snd.pt.rerolls - req->rerolls_seen);
		req->rerolls_seen = req->snd.pt.rerolls;
	}
}

/* Arm the requester timer at the core's next deadline. sq.lock held. */
static void mroce_req_arm(struct mroce_qp *qp, u64 now)
{
	struct mroce_req *req = qp->req;
	u64 when = mr_txsb_next_deadline(&req->snd.sb);
	u64 pace;

	/* Held by the pacer: new work, or lost packets to resend. */
	if (req->cur != qp->sq.tail || req->snd.sb.n_lost) {
		pace = mr_cc_next_send_ns(&req->snd.cc);
		if (pace > now && pace < when)
			when = pace;
	}
	/*
	 * Stalled READ/ATOMIC responses and dead-path probes are checked
	 * once per RTO.
	 */
	if ((qp->sq.head != req->cur ||
	     mr_path_usable(&req->snd.pt) < req->snd.pt.n) && when == MR_TIME_NEVER)
		when = now + mr_txsb_rto(&req->snd.sb);
	if (req->tx_nomem && now + MROCE_TX_NOMEM_RETRY_NS < when)
		when = now + MROCE_TX_NOMEM_RETRY_NS;
	if (when == MR_TIME_NEVER || READ_ONCE(qp->stopping))
		return;
	if (when <= now)
		when = now + 1000;
	hrtimer_start(&qp->req_timer, ns_to_ktime(when), HRTIMER_MODE_ABS_SOFT);
}

/* Run the core's timers (RTO, RACK, RNR). sq.lock held. */
static bool mroce_req_timers(struct mroce_qp *qp, u64 now)
{
	struct mroce_req *req = qp->req;
	struct mr_txsb_result res = {};
	struct mroce_send_wqe *wqe;
	int rc;

	if (mr_txsb_next_deadline(&req->snd.sb) > now)
		return false;
	rc = mr_sender_on_timer(&req->snd, now, &res);
	/* Re-rolls of an expiry are counted in mroce_req_paths(). */
	if (res.rto_fired)
		mroce_count(qp->dev, MROCE_CNT_RTO);
	if (rc == MR_TXSB_RETRY_EXCEEDED) {
		pr_info_ratelimited("metaroce: qp %u: retry_cnt exhausted at una %u nxt %u (rto %llu us, acked %llu sacked %llu retx %llu rto %llu spurious_rto %llu ignored_nacks %llu stale_acks %llu aged_acks %llu bad_acks %llu)\n",
				    qp->ibqp.qp_num, req->snd.sb.una, req->snd.sb.nxt,
				    div_u64(mr_txsb_rto(&req->snd.sb), NSEC_PER_USEC),
				    req->snd.sb.st.acked, req->snd.sb.st.sacked,
				    req->snd.sb.st.retx, req->snd.sb.st.rto,
				    req->snd.sb.st.spurious_rto,
				    req->snd.sb.st.ignored_nacks,
				    req->snd.sb.st.stale_acks, req->snd.sb.st.aged_acks,
				    req->snd.sb.st.bad_acks);
		const struct mr_txsb_ent *ent = mr_txsb_get(&req->snd.sb,
							    req->snd.sb.una);

		wqe = ent ? mroce_req_find_msn(qp, ent->msn) : NULL;
		if (!wqe && qp->sq.head != qp->sq.tail)
			wqe = mroce_sq_wqe(&qp->sq, qp->sq.head);
		if (wqe)
			mroce_req_fail(wqe, IB_WC_RETRY_EXC_ERR);
		return true;
	}
	return false;
}

void mroce_req_run(struct mroce_qp *qp)
{
	struct mroce_sq *sq = &qp->sq;
	struct mroce_req *req = qp->req;
	struct mroce_send_wqe done;
	struct sk_buff_head q;
	bool active;
	int budget;
	u8 status;
	u64 now;

	__skb_queue_head_init(&q);
	spin_lock_bh(&sq->lock);
	if (sq->running) {
		/* The running thread loops again before it stops. */
		sq->kick = true;
		spin_unlock_bh(&sq->lock);
		return;
	}
	sq->running = true;
	do {
		sq->kick = false;

		/* 1. Complete what is done, in order, lock dropped. */
		while (mroce_req_head_ready(qp, &status)) {
			done = *mroce_sq_wqe(sq, sq->head);
			sq->head++;
			if (done.rd_atomic) {
				req->rd_atomic_out--;
				req->rd_bytes_out -=
					mr_rdasm_outstanding(&done.rdq.rd);
			}
			/* A user SQ slot is free again once retired. */
			if (qp->usq.hdr)
				mroce_uring_put(&qp->usq.hdr->cons, sq->head);
			/*
			 * A WQE that failed before it was started (or a
			 * flush) may retire past cur: the walks from head
			 * to cur must never see head beyond cur.
			 */
			if (req && (s32)(req->cur - sq->head) < 0) {
				req->cur = sq->head;
				req->cur_off = 0;
			}
			spin_unlock_bh(&sq->lock);
			mroce_send_complete(qp, &done, status);
			/* A failed WR moves the QP to error: flush the rest. */
			if (status != IB_WC_SUCCESS &&
			    status != IB_WC_WR_FLUSH_ERR)
				mroce_qp_error(qp);
			spin_lock_bh(&sq->lock);
		}

		/* SQD: everything started has completed -> drained. */
		if (qp->state == IB_QPS_SQD && qp->sqd_notify &&
		    (!req || (sq->head == req->cur && !req->cur_off))) {
			qp->sqd_notify = false;
			spin_unlock_bh(&sq->lock);
			mroce_qp_async_event(qp, IB_EVENT_SQ_DRAINED);
			spin_lock_bh(&sq->lock);
		}

		/* 2. Transmit: retransmissions first, then new work. */
		active = qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD;
		if (qp->state == IB_QPS_RTS && !req && sq->head != sq->tail) {
			struct mroce_send_wqe *w = mroce_sq_wqe(sq, sq->head);

			/* UD/GSI: the head WQE goes out and completes. */
			if (w->state == MROCE_WQE_QUEUED) {
				mroce_req_fail(w, mroce_ud_send(qp, w));
				sq->kick = true;
			}
			continue;
		}
		if (!active || !req || !req->inited)
			continue;
		now = mroce_now();
		if (mroce_req_timers(qp, now))
			sq->kick = true;
		if (mroce_path_health)
			mroce_req_paths(qp, &q, now);
		req->tx_nomem = false;
		budget = mroce_req_retransmit(qp, &q, now, MROCE_TX_BATCH);
		budget = mroce_req_read_more(qp, &q, now, budget);
		if (qp->state == IB_QPS_RTS)
			mroce_req_send_new(qp, &q, now, budget);
		if (mroce_req_head_ready(qp, &status))
			sq->kick = true;

		if (!skb_queue_empty(&q)) {
			spin_unlock_bh(&sq->lock);
			mroce_pkt_flush(qp, &q);
			spin_lock_bh(&sq->lock);
			sq->kick = true;
		}
		if (!sq->kick)
			mroce_req_arm(qp, now);
	} while (sq->kick);
	sq->running = false;
	spin_unlock_bh(&sq->lock);
}
