// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE requester glue: the requester engine (proto/requester.h)
 * over this QP's send queue. The engine decides what to send, when, and
 * what ACKs, NACKs and responses mean; here are its callbacks (message
 * fields, skb building and payload copies, response placement, local
 * operations, counters), send completions in SQ order, the timer, and
 * the receive entry for responder-to-requester packets (mroce_req_rcv).
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
#include "trace.h"

#define MROCE_TX_BATCH	16	/* packets built per lock hold */

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
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
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
		wc.byte_len = wqe->tx.length;
	mroce_cq_post(qp->scq, &wc, false);
}

/* ---- protocol state --------------------------------------------------- */

static u32 mroce_rand32(void *ctx)
{
	return get_random_u32();
}

static void mroce_req_loop(struct mroce_qp *qp, bool timer);

static enum hrtimer_restart mroce_req_timer_fn(struct hrtimer *t)
{
	struct mroce_qp *qp = container_of(t, struct mroce_qp, req_timer);

	mroce_req_loop(qp, true);
	return HRTIMER_NORESTART;
}

int mroce_proto_alloc(struct mroce_qp *qp)
{
	hrtimer_setup(&qp->req_timer, mroce_req_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
	hrtimer_setup(&qp->ack_timer, mroce_ack_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
	tasklet_setup(&qp->ack_tasklet, mroce_ack_tasklet_fn);
	spin_lock_init(&qp->resp_lock);
	mroce_resp_rd_init(qp);
	/* The QP's own clock: off-path forgers must guess it (MR-SEC-6). */
	qp->ts_offset = get_random_u32();

	if (qp->ibqp.qp_type == IB_QPT_UC)
		return mroce_uc_alloc(qp);
	if (qp->ibqp.qp_type != IB_QPT_RC)
		return 0;
	/* Charged to the creator's memory cgroup, like its queues. */
	qp->req = kvzalloc(sizeof(*qp->req), GFP_KERNEL_ACCOUNT);
	qp->resp = kvzalloc(sizeof(*qp->resp), GFP_KERNEL_ACCOUNT);
	if (qp->resp)
		__skb_queue_head_init(&qp->resp->txq);
	if (!qp->req || !qp->resp)
		goto err;
	qp->req->rq.msn_idx = kvcalloc(qp->sq.size, sizeof(u32),
				    GFP_KERNEL_ACCOUNT);
	if (!qp->req->rq.msn_idx)
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
	if (qp->resp) {
		__skb_queue_purge(&qp->resp->txq);
		kvfree(qp->resp->slots);
	}
	if (qp->req)
		kvfree(qp->req->rq.msn_idx);
	kvfree(qp->resp);
	kvfree(qp->req);
	kvfree(qp->uc);
	qp->resp = NULL;
	qp->req = NULL;
	qp->uc = NULL;
}

/*
 * Stop the QP's timers and works for good (destroy) or until the next
 * start (reset). Every site that arms a timer, schedules ack_tasklet or
 * queues a work checks stopping under sq.lock or resp_lock; stopping is
 * set under sq.lock and then resp_lock is passed through, so once both
 * are done nothing arms or queues any more. The one exception is
 * mroce_qp_kick() deferring a post made with interrupts off (the MAD
 * layer) to req_work: posts never race destroy (the verbs contract), and
 * a run after a reset finds no work. The timers and the tasklet are
 * cancelled first (their callbacks may queue the works), then the works.
 * Sleeps.
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
	tasklet_kill(&qp->ack_tasklet);
	hrtimer_cancel(&qp->rd_timer);
	cancel_work_sync(&qp->req_work);
	cancel_work_sync(&qp->resp_work);
}

/* The completion status of each requester failure (MR-VERBS-22). */
static const u8 mroce_req_status[MR_REQ_ST_N] = {
	[MR_REQ_ST_RETRY_EXC] = IB_WC_RETRY_EXC_ERR,
	[MR_REQ_ST_RNR_RETRY_EXC] = IB_WC_RNR_RETRY_EXC_ERR,
	[MR_REQ_ST_REM_ACCESS] = IB_WC_REM_ACCESS_ERR,
	[MR_REQ_ST_REM_INV_REQ] = IB_WC_REM_INV_REQ_ERR,
	[MR_REQ_ST_REM_OP] = IB_WC_REM_OP_ERR,
	[MR_REQ_ST_FLUSH] = IB_WC_WR_FLUSH_ERR,
};

/*
 * A send WQE no responder would accept, refused when it is posted
 * (MR-VERBS-23, the engine's rule). Returns IB_WC_SUCCESS or the status
 * it completes with in SQ order.
 */
u8 mroce_req_validate(const struct mroce_send_wqe *wqe)
{
	u64 raddr = mr_op_has(wqe->tx.op, MR_OPA_ATOMIC) ?
		    wqe->wr.atomic.remote_addr : wqe->wr.rdma.remote_addr;

	return mr_swqe_refused(&wqe->tx, raddr, mroce_req_status);
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
		/* A type 2 window of the QP's PD (MR-MW-5). */
		if (mroce_mr_is_mw(mr))
			err = mroce_mw_invalidate(mr, qp,
						  wqe->ex.invalidate_rkey,
						  false, true);
		else if (mr->ibmr.pd == qp->ibqp.pd)
			err = mroce_mr_invalidate(mr, wqe->ex.invalidate_rkey);
		else
			err = -EACCES;
		mroce_mr_put(mr);
		return err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	case IB_WR_BIND_MW:
		return mroce_mw_bind(qp, wqe);
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

/* ---- the requester engine's side of this QP (mr_requester_ops) -------- */

/* What the engine's callbacks work with: the QP and the packet queue. */
struct mroce_req_io {
	struct mroce_qp *qp;
	struct sk_buff_head *q;	/* NULL outside mroce_req_run() */
};

static struct mroce_send_wqe *mroce_swqe(struct mr_swqe *w)
{
	return container_of(w, struct mroce_send_wqe, tx);
}

static struct mr_swqe *mroce_req_wqe_at(void *ctx, u32 idx)
{
	struct mroce_req_io *io = ctx;

	return &mroce_sq_wqe(&io->qp->sq, idx)->tx;
}

/* The message @w sends, beyond what the engine fills (segment.h). */
static void mroce_req_msg(void *ctx, const struct mr_swqe *w,
			 struct mr_req_msg *m)
{
	const struct mroce_send_wqe *wqe =
		container_of(w, struct mroce_send_wqe, tx);

	m->solicited = !!(wqe->send_flags & IB_SEND_SOLICITED);
	switch (w->op) {
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
	switch (w->op) {
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
 * Why @psn goes out again, for metaroce_retx: a READ re-request takes a
 * new PSN (nxt), a re-sent atomic its delivered one (before una); an
 * outstanding PSN was declared lost by an RTO or otherwise (RACK, NACK,
 * RNR pause, dead path). sq.lock held.
 */
static int mroce_retx_cause(const struct mr_txsb *sb, u32 psn)
{
	const struct mr_txsb_ent *e;

	if (psn == sb->nxt)
		return MROCE_RETX_READ;
	e = mr_txsb_get(sb, psn);
	if (!e)
		return MROCE_RETX_ATOMIC;
	return e->flags & MR_TXE_RTO ? MROCE_RETX_RTO : MROCE_RETX_LOST;
}

/* Build request packet @p of @w with its payload and queue it. */
static int mroce_req_emit(void *ctx, struct mr_swqe *w, struct mr_pkt *p)
{
	struct mroce_req_io *io = ctx;
	struct mroce_qp *qp = io->qp;
	struct sk_buff *skb;
	u8 *payload;
	int err;

	p->dqpn = qp->attr.dest_qpn;
	p->sqpn = qp->ibqp.qp_num;
	if ((p->flags & MR_F_RETX) && trace_metaroce_retx_enabled())
		trace_metaroce_retx(qp->dev->ibdev.index, qp->ibqp.qp_num,
				    p->psn, p->path,
				    mroce_retx_cause(&qp->req->rq.snd.sb,
						     p->psn));
	skb = mroce_pkt_new(qp, p, &payload);
	if (skb == ERR_PTR(-ENOMEM))
		return MR_REQ_TX_AGAIN;
	/* Refused by the encoder: never retried, the WR fails. */
	if (IS_ERR(skb))
		return IB_WC_LOC_QP_OP_ERR;
	err = mroce_req_payload(qp, mroce_swqe(w), p->dxh.offset, payload,
				p->payload_len);
	if (err) {
		kfree_skb(skb);
		return err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
					  IB_WC_LOC_PROT_ERR;
	}
	mroce_pkt_queue(io->q, skb,
			mr_path_entropy(&qp->req->rq.snd.pt, p->path), true);
	return 0;
}

/* READ response bytes or an atomic's original value into @w's SGEs. */
static u8 mroce_req_place(void *ctx, struct mr_swqe *w, u32 off,
			  const void *buf, u32 len)
{
	struct mroce_req_io *io = ctx;
	struct mroce_send_wqe *wqe = mroce_swqe(w);
	int err;

	err = mroce_sge_copy(io->qp, wqe->sge, wqe->num_sge, off, (void *)buf,
			     len, true);
	if (!err)
		return IB_WC_SUCCESS;
	return err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR : IB_WC_LOC_PROT_ERR;
}

static u8 mroce_req_local_op(void *ctx, struct mr_swqe *w)
{
	struct mroce_req_io *io = ctx;

	return mroce_req_local(io->qp, mroce_swqe(w));
}

static bool mroce_req_probe(void *ctx, struct mr_pkt *p)
{
	struct mroce_req_io *io = ctx;
	struct mroce_qp *qp = io->qp;
	struct sk_buff *skb;
	u8 *payload;

	/* Not towards a peer that announced no Multipath (MR-VER-15). */
	if (!mr_hello_may_probe(&qp->req->hello))
		return false;
	p->dqpn = qp->attr.dest_qpn;
	p->sqpn = qp->ibqp.qp_num;
	skb = mroce_pkt_new(qp, p, &payload);
	if (IS_ERR(skb))
		return false;	/* a probe lost like any other */
	mroce_pkt_queue(io->q, skb,
			mr_path_entropy(&qp->req->rq.snd.pt, p->path), false);
	return true;
}

static const u8 mroce_nack_rx_cnt[] = {
	[MR_NACK_TRIMMED] = MROCE_CNT_NACK_RX_TRIMMED,
	[MR_NACK_SEQ_ERR] = MROCE_CNT_NACK_RX_SEQ_ERR,
	[MR_NACK_RNR] = MROCE_CNT_NACK_RX_RNR,
	[MR_NACK_REMOTE_ACCESS] = MROCE_CNT_NACK_RX_REM_ACCESS,
	[MR_NACK_INVALID_REQ] = MROCE_CNT_NACK_RX_INV_REQ,
	[MR_NACK_REMOTE_OP] = MROCE_CNT_NACK_RX_REM_OP,
	[MR_NACK_RESOURCE] = MROCE_CNT_NACK_RX_RESOURCE,
};

/* The counter of each engine event that is only counted (0: none). */
static const u8 mroce_req_ev_cnt[] = {
	[MR_REQ_EV_RETX] = MROCE_CNT_RETX,
	[MR_REQ_EV_RTO] = MROCE_CNT_RTO,
	[MR_REQ_EV_REROLLS] = MROCE_CNT_PATH_REROLLS,
	/* FAILOVER: counted as retransmissions when they go */
	[MR_REQ_EV_ACK] = MROCE_CNT_ACK_RX,
	[MR_REQ_EV_SACK] = MROCE_CNT_SACK_RX,
	[MR_REQ_EV_RNR] = MROCE_CNT_RNR_EVENTS,
	[MR_REQ_EV_SPURIOUS_RTO] = MROCE_CNT_SPURIOUS_RTO,
	[MR_REQ_EV_SPURIOUS] = MROCE_CNT_SPURIOUS_LOSS,
	[MR_REQ_EV_ACK_AGED] = MROCE_CNT_ACK_AGE_DROPS,
	[MR_REQ_EV_ACK_BAD] = MROCE_CNT_MALFORMED_DROPS,
	[MR_REQ_EV_TRIMMED] = MROCE_CNT_TRIM_DROPS,
	[MR_REQ_EV_RESP_DUP] = MROCE_CNT_DUP_DROPS,
	[MR_REQ_EV_PATH_DEAD] = MROCE_CNT_PATH_DEATHS,
	[MR_REQ_EV_PROBE] = MROCE_CNT_PATH_PROBES,
	[MR_REQ_EV_PROBE_REPLY] = MROCE_CNT_PATH_PROBE_REPLIES,
	[MR_REQ_EV_PATH_REVIVED] = MROCE_CNT_PATH_REVIVALS,
	[MR_REQ_EV_EXPLORES] = MROCE_CNT_PATH_EXPLORES,
};

static void mroce_req_event(void *ctx, enum mr_req_event ev, u64 n,
			   const struct mr_swqe *w)
{
	struct mroce_req_io *io = ctx;
	struct mroce_qp *qp = io->qp;
	const struct mr_txsb *sb = &qp->req->rq.snd.sb;

	/* Each packet's own event tells these (metaroce_pkt_*, _retx). */
	if (ev != MR_REQ_EV_RETX && ev != MR_REQ_EV_ACK &&
	    ev != MR_REQ_EV_SACK)
		trace_metaroce_req_event(qp->dev->ibdev.index, qp->ibqp.qp_num,
					 ev, n, sb->una, sb->nxt);
	if (ev < ARRAY_SIZE(mroce_req_ev_cnt) && mroce_req_ev_cnt[ev]) {
		mroce_count_add(qp->dev, mroce_req_ev_cnt[ev], n);
		return;
	}
	switch (ev) {
	case MR_REQ_EV_NACK:
		if (n < ARRAY_SIZE(mroce_nack_rx_cnt) && mroce_nack_rx_cnt[n])
			mroce_count(qp->dev, mroce_nack_rx_cnt[n]);
		break;
	case MR_REQ_EV_RETRY_EXC:
		pr_info_ratelimited("metaroce: qp %u: retry_cnt exhausted at una %u nxt %u (rto %llu us, acked %llu sacked %llu retx %llu rto %llu spurious_rto %llu ignored_nacks %llu stale_acks %llu aged_acks %llu bad_acks %llu)\n",
				    qp->ibqp.qp_num, sb->una, sb->nxt,
				    div_u64(mr_txsb_rto(sb), NSEC_PER_USEC),
				    sb->st.acked, sb->st.sacked, sb->st.retx,
				    sb->st.rto, sb->st.spurious_rto,
				    sb->st.ignored_nacks, sb->st.stale_acks,
				    sb->st.aged_acks, sb->st.bad_acks);
		break;
	case MR_REQ_EV_RD_STALLED:
		pr_info_ratelimited("metaroce: qp %u: %s msn %u stalled at %u/%u of %u: retries exhausted\n",
				    qp->ibqp.qp_num,
				    w->op == MR_OP_READ_REQ ? "READ" : "ATOMIC",
				    w->msn, w->rdq.rd.done, w->rdq.rd.req_end,
				    w->length);
		break;
	default:
		break;
	}
}

static const struct mr_requester_ops mroce_req_ops = {
	.wqe = mroce_req_wqe_at,
	.msg = mroce_req_msg,
	.emit = mroce_req_emit,
	.place = mroce_req_place,
	.local = mroce_req_local_op,
	.probe = mroce_req_probe,
	.event = mroce_req_event,
};

/* The core keeps the outstanding READs/ATOMICs of the verbs' limit. */
static_assert(MROCE_MAX_RD_ATOMIC <= MR_REQ_MAX_RD_ATOMIC);

/*
 * Entering RTS: (re)initialise the requester on the core with the
 * verbs attributes (modify_lock held, SQ idle: RTR has no send work).
 */
void mroce_req_start(struct mroce_qp *qp)
{
	struct mroce_req *req = qp->req;
	struct mroce_qp_attrs *a = &qp->attr;
	struct mr_requester_params rp = {};
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
	mr_path_default_params(&pp);
	/* The device's parameters as they are now (MR-CC-18). */
	mroce_params_req(&qp->dev->params, &tp, &cp, &pp, &rp.path_health);
	mtu = min(a->path_mtu, READ_ONCE(qp->dev->active_mtu));
	rp.mtu = ib_mtu_enum_to_int(mtu);
	rp.max_rd_atomic = a->max_rd_atomic;
	rp.rd_bytes_max = MROCE_RD_QP_BUDGET;
	rp.sq_size = qp->sq.size;
	/* Probe identifiers an off-path forger cannot predict (MR-SEC-3). */
	rp.probe_id = get_random_u32();
	memcpy(rp.status, mroce_req_status, sizeof(rp.status));

	spin_lock_bh(&qp->sq.lock);
	mr_hello_on_rts(&req->hello, mroce_now());
	WARN_ON(mr_txsb_init(&req->rq.snd.sb, &tp, a->sq_psn));
	WARN_ON(mr_cc_init(&req->rq.snd.cc, &cp));
	WARN_ON(mr_path_init(&req->rq.snd.pt, &pp, mroce_rand32, NULL,
			     mroce_now()));
	req->rq.ops = &mroce_req_ops;
	mr_requester_start(&req->rq, &rp, qp->sq.head);
	req->inited = true;
	WRITE_ONCE(qp->stopping, false);
	spin_unlock_bh(&qp->sq.lock);
}

/* ---- connection setup (revision 1.1, MR-VER-9..MR-VER-17) ---- */

/*
 * Entering RTR: the exchange starts with what the device announces now:
 * hello = 0 makes this QP a revision 1.0 node (MR-VER-17), hello_caps
 * withholds capabilities (CORE is always announced). Its responder takes
 * READ ranges up to the revision 1.0 limit, which it announces
 * (MR-VER-16).
 */
void mroce_hello_start(struct mroce_qp *qp)
{
	const struct mroce_params *dp = &qp->dev->params;
	struct mr_hello_params hp;

	if (!qp->req)
		return;
	mr_hello_default_params(&hp);
	hp.enabled = mroce_param(dp, MROCE_P_HELLO);
	hp.caps = mroce_param(dp, MROCE_P_HELLO_CAPS) & MR_CAP_IMPL;
	hp.max_read_range = MR_READ_RANGE_MAX;
	spin_lock_bh(&qp->sq.lock);
	mr_hello_init(&qp->req->hello, &hp);
	spin_unlock_bh(&qp->sq.lock);
}

/* This QP's HELLO, as it stands now; sq.lock held. NULL without memory. */
static struct sk_buff *mroce_hello_skb(struct mroce_qp *qp, u64 now)
{
	struct sk_buff *skb;
	struct mr_pkt p;
	u8 *payload;

	mr_hello_fill(&qp->req->hello, &p);
	p.dqpn = qp->attr.dest_qpn;
	p.sqpn = qp->ibqp.qp_num;
	p.ts = mroce_qp_ts(qp, now);
	skb = mroce_pkt_new(qp, &p, &payload);
	return IS_ERR(skb) ? NULL : skb;
}

/* The exchange's timer (MR-VER-14), from the requester run; sq.lock held. */
static void mroce_hello_tick(struct mroce_qp *qp, u64 now,
			     struct sk_buff_head *q)
{
	struct mroce_req *req = qp->req;
	struct sk_buff *skb;

	switch (mr_hello_on_timer(&req->hello, now)) {
	case MR_HELLO_TX_SEND:
		skb = mroce_hello_skb(qp, now);
		if (!skb)
			break;	/* lost like any packet: the next try comes */
		mroce_pkt_queue(q, skb, mr_path_entropy(&req->rq.snd.pt, 0),
				false);
		mroce_count(qp->dev, MROCE_CNT_HELLO_SENT);
		break;
	case MR_HELLO_TX_GAVE_UP:
		mroce_count(qp->dev, MROCE_CNT_HELLO_UNANSWERED);
		break;
	default:
		break;
	}
}

/*
 * A HELLO of the connected peer (recv.c checked QPN, type and source,
 * MR-SEC-4): accepted in RTR, RTS and SQD (MR-VER-12), answered at once
 * outside the lock if the core says so.
 */
void mroce_hello_rcv(struct mroce_qp *qp, const struct mr_pkt *p)
{
	struct mroce_dev *dev = qp->dev;
	struct sk_buff *skb = NULL;
	bool reply, limited;
	u16 entropy = 0;
	u64 now;

	if (!qp->req)
		return;
	spin_lock_bh(&qp->sq.lock);
	if (qp->state != IB_QPS_RTR && qp->state != IB_QPS_RTS &&
	    qp->state != IB_QPS_SQD) {
		spin_unlock_bh(&qp->sq.lock);
		mroce_count(dev, MROCE_CNT_QPN_DROPS);	/* MR-MAL-5 */
		return;
	}
	now = mroce_now();
	switch (mr_hello_on_rx(&qp->req->hello, p, now, &reply, &limited)) {
	case MR_HELLO_RX_IGNORED:
		/* A revision 1.0 node: an unassigned opcode (MR-VER-4). */
		mroce_count_decode_err(dev, MR_ERR_OPCODE);
		break;
	case MR_HELLO_RX_CONFLICT:
		mroce_count(dev, MROCE_CNT_HELLO_CONFLICT);
		break;
	case MR_HELLO_RX_LATE:
		mroce_count(dev, MROCE_CNT_HELLO_LATE);
		fallthrough;
	default:
		mroce_count(dev, MROCE_CNT_HELLO_RECEIVED);
		break;
	}
	if (limited)
		mroce_count(dev, MROCE_CNT_RATE_LIMITED);
	if (reply) {
		skb = mroce_hello_skb(qp, now);
		/*
		 * MBH.path 0 (MR-HDR-6): path 0's entropy once the table
		 * exists (RTS), as the exchange's own tries; entropy 0 in
		 * RTR, where there is no table yet.
		 */
		entropy = qp->req->inited ?
			  mr_path_entropy(&qp->req->rq.snd.pt, 0) : 0;
	}
	spin_unlock_bh(&qp->sq.lock);
	if (skb) {
		mroce_pkt_send(qp, skb, entropy, false);
		mroce_count(dev, MROCE_CNT_HELLO_SENT);
	}
}

/*
 * Receive-path entry for responder-to-requester packets (softirq): ACK,
 * NACK, READ_RESP, ATOMIC_RESP, PROBE_REPLY go to the engine under
 * sq.lock, with @ce, the packet's IP CE mark; then the requester runs
 * (completions, retransmissions, new packets).
 */
void mroce_req_rcv(struct mroce_qp *qp, struct mr_pkt *p, bool ce)
{
	struct mroce_req_io io = { .qp = qp };
	struct mroce_sq *sq = &qp->sq;
	int err;

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
	/*
	 * A READ_RESP longer than the path MTU is malformed (MR-MAL-4), one
	 * not cut at it breaks MR-HDR-24 (MR-PLACE-9); ATOMIC_RESP carries
	 * no payload (decode).
	 */
	err = mr_pkt_pmtu_check(p, ib_mtu_enum_to_int(qp->attr.path_mtu));
	if (err)
		mroce_count_decode_err(qp->dev, err);
	else	/* a response's CE feeds congestion control (MR-CC-1) */
		mr_requester_rcv(&qp->req->rq, sq->head, sq->tail, p, ce,
				 mroce_now(), &io);
	spin_unlock_bh(&sq->lock);

	mroce_req_run(qp);
}

/*
 * Can the WQE at the SQ head complete? Fills *@status. In Error every
 * WQE does, with its own error or flushed (MR-VERBS-25); otherwise the
 * rule is the engine's. UD/GSI QPs have no requester: a WR is done when
 * sent. sq.lock held.
 */
static bool mroce_req_head_ready(struct mroce_qp *qp, u8 *status)
{
	struct mroce_sq *sq = &qp->sq;
	struct mroce_req_io io = { .qp = qp };
	struct mroce_send_wqe *wqe;

	if (sq->head == sq->tail)
		return false;
	wqe = mroce_sq_wqe(sq, sq->head);
	if (qp->state == IB_QPS_ERR) {
		*status = mr_swqe_flushed(&wqe->tx, IB_WC_WR_FLUSH_ERR);
		return true;
	}
	/* Not started (before RTS, or reset since): nothing is done. */
	if (qp->req && !qp->req->inited)
		return false;
	if (qp->req)
		return mr_requester_complete(&qp->req->rq, sq->head,
					     mroce_now(), &io, status);
	*status = wqe->tx.status;
	return wqe->tx.state == MR_SWQE_DONE;
}

/*
 * Arm the requester timer at the engine's next deadline or the HELLO
 * exchange's, whichever comes first. sq.lock held.
 */
static void mroce_req_arm(struct mroce_qp *qp, u64 now)
{
	u64 when = mr_requester_deadline(&qp->req->rq, qp->sq.head,
					 qp->sq.tail, now);

	when = min(when, mr_hello_deadline(&qp->req->hello));

	if (when == MR_TIME_NEVER || READ_ONCE(qp->stopping))
		return;
	if (when <= now)
		when = now + 1000;
	hrtimer_start(&qp->req_timer, ns_to_ktime(when), HRTIMER_MODE_ABS_SOFT);
}

/* Nanoseconds as whole microseconds for a trace field, saturated. */
static u32 mroce_req_us(u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC);

	return us > U32_MAX ? U32_MAX : (u32)us;
}

/*
 * metaroce_cwnd and metaroce_path report changes: compare the window and
 * the path table with what was last reported, only while the events
 * are on. sq.lock held.
 */
static void mroce_req_trace(struct mroce_qp *qp)
{
	struct mroce_req *req = qp->req;
	const struct mr_sender *snd = &req->rq.snd;
	u32 i, now;
	u64 base;
	bool dead;

	if (trace_metaroce_cwnd_enabled() &&
	    snd->cc.cwnd != req->trace_cwnd) {
		req->trace_cwnd = snd->cc.cwnd;
		trace_metaroce_cwnd(qp->dev->ibdev.index, qp->ibqp.qp_num,
				    snd->cc.cwnd, snd->cc.ssthresh,
				    mr_txsb_inflight(&snd->sb));
	}
	if (!trace_metaroce_path_enabled())
		return;
	base = mr_txsb_base_rto(&snd->sb);
	for (i = 0; i < snd->pt.n && i < MR_PATH_MAX; i++) {
		const struct mr_path *pa = &snd->pt.path[i];

		now = (u32)pa->state << 16 | pa->entropy;
		if (now == req->trace_path[i])
			continue;
		req->trace_path[i] = now;
		dead = pa->state == MR_PATH_DEAD;
		trace_metaroce_path(qp->dev->ibdev.index, qp->ibqp.qp_num,
				    (u8)i, pa->state, pa->entropy,
				    dead ? mroce_req_us(pa->death_wait_ns) : 0,
				    dead ? pa->death_sent : 0,
				    dead ? mroce_req_us(base) : 0);
	}
}

/*
 * The requester's run, from a doorbell, a received packet, a work or
 * (@timer) req_timer. Only the timer's own run acts on an expired RTO
 * (mr_requester_on_timer(), MR-LOSS-7); the others re-arm the timer,
 * whose soft hrtimer runs after the receive softirq has handled its
 * batch. A run that finds another one going leaves its work to it, the
 * timer's too: the expiry, still due, then re-arms the timer on that
 * run's CPU, behind the batch it may be handling.
 */
static void mroce_req_loop(struct mroce_qp *qp, bool timer)
{
	struct mroce_sq *sq = &qp->sq;
	struct mroce_req *req = qp->req;
	struct sk_buff_head q;
	struct mroce_req_io io = { .qp = qp, .q = &q };
	struct mroce_send_wqe done;
	unsigned int passes = 0, budget;
	bool active, more = false;
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
	/*
	 * Completions per run: a queue's worth. A process refilling an SQ
	 * in error as fast as it is flushed would otherwise keep one run,
	 * in its syscall or in softirq, going without end.
	 */
	budget = sq->size;
	do {
		if (++passes > MROCE_REQ_RUN_PASSES || !budget) {
			/* The rest from req_work, below. */
			more = !qp->stopping;
			break;
		}
		sq->kick = false;

		/* 1. Complete what is done, in order, lock dropped. */
		while (budget && mroce_req_head_ready(qp, &status)) {
			budget--;
			done = *mroce_sq_wqe(sq, sq->head);
			if (req)
				mr_requester_retired(&req->rq, &done.tx,
						     sq->head);
			sq->head++;
			/* A user SQ slot is free again once retired. */
			if (qp->usq.hdr)
				mroce_uring_put(&qp->usq.hdr->cons, sq->head);
			spin_unlock_bh(&sq->lock);
			mroce_send_complete(qp, &done, status);
			/* A failed WR moves the QP to error: flush the rest. */
			if (status != IB_WC_SUCCESS &&
			    status != IB_WC_WR_FLUSH_ERR)
				mroce_qp_error(qp);
			spin_lock_bh(&sq->lock);
		}
		if (!budget)
			sq->kick = true;	/* the rest from req_work */

		/* SQD: everything started has completed -> drained. */
		if (qp->state == IB_QPS_SQD && qp->sqd_notify &&
		    (!req || mr_requester_idle(&req->rq, sq->head))) {
			qp->sqd_notify = false;
			spin_unlock_bh(&sq->lock);
			mroce_qp_async_event(qp, IB_EVENT_SQ_DRAINED);
			spin_lock_bh(&sq->lock);
		}

		/* 2. Transmit: retransmissions first, then new work. */
		active = qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD;
		if (qp->state == IB_QPS_RTS && !req && sq->head != sq->tail) {
			struct mroce_send_wqe *w = mroce_sq_wqe(sq, sq->head);

			/*
			 * UD/GSI: the head WQE goes out and completes. UC:
			 * its packets, a batch at a time, sent before it
			 * completes (MR-UC-5).
			 */
			if (w->tx.state == MR_SWQE_QUEUED) {
				if (qp->uc) {
					mroce_uc_send(qp, w, &q,
						      MROCE_TX_BATCH);
				} else {
					w->tx.status = mroce_ud_send(qp, w);
					w->tx.state = MR_SWQE_DONE;
				}
				sq->kick = true;
			}
			if (!skb_queue_empty(&q)) {
				spin_unlock_bh(&sq->lock);
				mroce_pkt_flush(qp, &q);
				spin_lock_bh(&sq->lock);
			}
			continue;
		}
		if (!active || !req || !req->inited)
			continue;
		now = mroce_now();
		mroce_hello_tick(qp, now, &q);
		if (timer) {
			timer = false;
			mr_requester_on_timer(&req->rq);
		}
		if (mr_requester_run(&req->rq, sq->head, sq->tail,
				     qp->state == IB_QPS_RTS, now,
				     MROCE_TX_BATCH, &io))
			sq->kick = true;
		mroce_req_trace(qp);
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
	/*
	 * At normal priority: a run that keeps finding work (the RNR storm
	 * above) requeues itself, and on system_highpri_wq (nice -20) it
	 * would leave the poster, which must post the receive that ends the
	 * storm, about 1% of a CPU.
	 */
	if (more)
		queue_work(system_wq, &qp->req_work);
}

void mroce_req_run(struct mroce_qp *qp)
{
	mroce_req_loop(qp, false);
}
