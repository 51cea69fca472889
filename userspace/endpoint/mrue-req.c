// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mrue requester side: the send queue over the requester engine
 * (kernel/proto/requester.h), as kernel/req.c runs it. The engine
 * decides what goes out and when, what ACKs, NACKs and responses mean,
 * and which head WR may complete; here are its callbacks (message
 * fields, packets with their payload from local memory, response
 * placement, counters), posting, and completions in SQ order.
 */
#include <errno.h>

#include "mrue-priv.h"

static struct mrue_swqe *mrue_swqe_of(struct mr_swqe *w)
{
	return (struct mrue_swqe *)((char *)w - offsetof(struct mrue_swqe, tx));
}

static struct mrue_swqe *mrue_sq_at(struct mrue *ue, u32 idx)
{
	return &ue->sq[idx & (ue->sq_size - 1)];
}

static const u8 mrue_wire_op[MRUE_WR_N] = {
	[MRUE_WR_SEND] = MR_OP_SEND,
	[MRUE_WR_SEND_IMM] = MR_OP_SEND_IMM,
	[MRUE_WR_WRITE] = MR_OP_WRITE,
	[MRUE_WR_WRITE_IMM] = MR_OP_WRITE_IMM,
	[MRUE_WR_READ] = MR_OP_READ_REQ,
	[MRUE_WR_FETCH_ADD] = MR_OP_ATOMIC_FA,
	[MRUE_WR_CMP_SWAP] = MR_OP_ATOMIC_CS,
};

static const u8 mrue_wc_op[MRUE_WR_N] = {
	[MRUE_WR_SEND] = MRUE_WC_SEND,
	[MRUE_WR_SEND_IMM] = MRUE_WC_SEND,
	[MRUE_WR_WRITE] = MRUE_WC_RDMA_WRITE,
	[MRUE_WR_WRITE_IMM] = MRUE_WC_RDMA_WRITE,
	[MRUE_WR_READ] = MRUE_WC_RDMA_READ,
	[MRUE_WR_FETCH_ADD] = MRUE_WC_FETCH_ADD,
	[MRUE_WR_CMP_SWAP] = MRUE_WC_CMP_SWAP,
};

/* The completion status of each requester failure (MR-VERBS-22). */
static const u8 mrue_req_status[MR_REQ_ST_N] = {
	[MR_REQ_ST_RETRY_EXC] = MRUE_WC_RETRY_EXC_ERR,
	[MR_REQ_ST_RNR_RETRY_EXC] = MRUE_WC_RNR_RETRY_EXC_ERR,
	[MR_REQ_ST_REM_ACCESS] = MRUE_WC_REM_ACCESS_ERR,
	[MR_REQ_ST_REM_INV_REQ] = MRUE_WC_REM_INV_REQ_ERR,
	[MR_REQ_ST_REM_OP] = MRUE_WC_REM_OP_ERR,
	[MR_REQ_ST_FLUSH] = MRUE_WC_WR_FLUSH_ERR,
};

/* ---- the requester engine's callbacks (mr_requester_ops) ---------------- */

static struct mr_swqe *mrue_req_wqe(void *ctx, u32 idx)
{
	return &mrue_sq_at(ctx, idx)->tx;
}

static void mrue_req_msg(void *ctx, const struct mr_swqe *w,
			 struct mr_req_msg *m)
{
	const struct mrue_swqe *s = mrue_swqe_of((struct mr_swqe *)w);

	(void)ctx;
	m->solicited = s->solicited;
	m->va = s->remote_addr;
	m->rkey = s->rkey;
	m->imm = s->imm;
	if (s->wr_op == MRUE_WR_CMP_SWAP) {
		m->swap_add = s->swap;
		m->compare = s->compare_add;
	} else if (s->wr_op == MRUE_WR_FETCH_ADD) {
		m->swap_add = s->compare_add;
	}
}

/* Request packet @p of @w with its payload from the WR's local buffer. */
static int mrue_req_emit(void *ctx, struct mr_swqe *w, struct mr_pkt *p)
{
	struct mrue *ue = ctx;
	struct mrue_swqe *s = mrue_swqe_of(w);
	const u8 *src = NULL;
	int rc;

	/* The region may have gone since the WR was posted (MR-VERBS-23). */
	if (p->payload_len) {
		src = mrue_local(ue, s->lkey, s->local + p->dxh.offset,
				 p->payload_len);
		if (!src)
			return MRUE_WC_LOC_PROT_ERR;
	}
	rc = mrue_send_pkt(ue, p, src, true);
	if (rc == -EAGAIN)
		return MR_REQ_TX_AGAIN;
	if (rc)
		return MRUE_WC_LOC_QP_OP_ERR;
	ue->req_emitted++;
	return 0;
}

/* READ response bytes, or an atomic's original value, into local memory. */
static u8 mrue_req_place(void *ctx, struct mr_swqe *w, u32 off,
			 const void *buf, u32 len)
{
	struct mrue *ue = ctx;
	struct mrue_swqe *s = mrue_swqe_of(w);
	u8 *dst;

	if ((u64)off + len > w->length)
		return MRUE_WC_LOC_LEN_ERR;
	dst = mrue_local(ue, s->lkey, s->local + off, len);
	if (!dst)
		return MRUE_WC_LOC_PROT_ERR;
	if (len)
		memcpy(dst, buf, len);
	return 0;
}

/* No local operations are posted here. */
static u8 mrue_req_local(void *ctx, struct mr_swqe *w)
{
	(void)ctx;
	(void)w;
	return MRUE_WC_LOC_QP_OP_ERR;
}

static bool mrue_req_probe(void *ctx, struct mr_pkt *p)
{
	struct mrue *ue = ctx;

	/* a probe lost like any other if the socket is full */
	if (mrue_send_pkt(ue, p, NULL, false))
		return false;
	ue->req_emitted++;
	return true;
}

static void mrue_req_event(void *ctx, enum mr_req_event ev, u64 n,
			   const struct mr_swqe *w)
{
	struct mrue_stats *st = &((struct mrue *)ctx)->st;

	(void)w;
	switch (ev) {
	case MR_REQ_EV_RETX:
		st->retx += n;
		break;
	case MR_REQ_EV_RTO:
		st->rto += n;
		break;
	case MR_REQ_EV_REROLLS:
		st->rerolls += n;
		break;
	case MR_REQ_EV_FAILOVER:
		break;	/* counted as retransmissions when they go */
	case MR_REQ_EV_RETRY_EXC:
		st->retry_exc += n;
		break;
	case MR_REQ_EV_RD_STALLED:
		st->rd_stalled += n;
		break;
	case MR_REQ_EV_ACK:
		st->acks_rx += n;
		break;
	case MR_REQ_EV_SACK:
		st->sacks_rx += n;
		break;
	case MR_REQ_EV_NACK:
		if (n < MR_ARRAY_SIZE(st->nacks_rx))
			st->nacks_rx[n]++;
		break;
	case MR_REQ_EV_RNR:
		st->rnr_events += n;
		break;
	case MR_REQ_EV_SPURIOUS_RTO:
		st->spurious_rto += n;
		break;
	case MR_REQ_EV_SPURIOUS:
		st->lost_spurious += n;
		break;
	case MR_REQ_EV_ACK_AGED:
		st->ack_aged += n;
		break;
	case MR_REQ_EV_ACK_BAD:
		st->ack_bad += n;
		break;
	case MR_REQ_EV_TRIMMED:
		st->resp_trimmed += n;
		break;
	case MR_REQ_EV_RESP_DUP:
		st->resp_dup += n;
		break;
	case MR_REQ_EV_PATH_DEAD:
		st->path_deaths += n;
		break;
	case MR_REQ_EV_PROBE:
		st->path_probes += n;
		break;
	case MR_REQ_EV_PROBE_REPLY:
		st->path_probe_replies += n;
		break;
	case MR_REQ_EV_PATH_REVIVED:
		st->path_revivals += n;
		break;
	case MR_REQ_EV_EXPLORES:
		st->path_explores += n;
		break;
	}
}

static const struct mr_requester_ops mrue_req_ops = {
	.wqe = mrue_req_wqe,
	.msg = mrue_req_msg,
	.emit = mrue_req_emit,
	.place = mrue_req_place,
	.local = mrue_req_local,
	.probe = mrue_req_probe,
	.event = mrue_req_event,
};

/* ---- start, completion, run --------------------------------------------- */

/* The path table's random source (path.h). */
static u32 mrue_path_rand_cb(void *ctx)
{
	return mrue_rand32(ctx);
}

/* Entering RTS: the engine with the verbs attributes (kernel/req.c). */
void mrue_req_start(struct mrue *ue)
{
	struct mr_requester_params rp = {};
	struct mr_txsb_params tp;
	struct mr_path_params pp;
	struct mr_cc_params cp;
	u64 cap;

	mr_txsb_default_params(&tp);
	tp.retry_cnt = ue->cfg.retry_cnt;
	tp.rnr_retry = ue->cfg.rnr_retry;
	/* T_verbs caps the RTO and paces the retry budget (MR-RETRY-1/3). */
	cap = mr_ib_timeout_ns(ue->cfg.timeout);
	tp.verbs_timeout_ns = cap ? cap : MR_TIME_NEVER;
	tp.ts_offset = ue->ts_offset;
	mr_cc_default_params(&cp);
	/* As the kernel's default: no delay signal on a software device. */
	cp.use_delay = false;
	cp.min_cwnd = MR_CC_ONE;
	mr_path_default_params(&pp);
	/* One socket, one source port: one path. */
	pp.single = true;
	rp.mtu = ue->mtu;
	rp.max_rd_atomic = ue->cfg.max_rd_atomic;
	rp.rd_bytes_max = MRUE_RD_QP_BUDGET;
	rp.sq_size = ue->sq_size;
	rp.probe_id = mrue_rand32(ue);	/* MR-SEC-3 */
	/*
	 * Single-path mode has no dead-path handling (MR-MP-13); path
	 * health is a rule of every other mode (MR-MP-17).
	 */
	rp.path_health = false;
	memcpy(rp.status, mrue_req_status, sizeof(rp.status));

	/* The parameters are the defaults' and validated above. */
	mr_txsb_init(&ue->req.snd.sb, &tp, ue->init_psn);
	mr_cc_init(&ue->req.snd.cc, &cp);
	mr_path_init(&ue->req.snd.pt, &pp, mrue_path_rand_cb, ue, ue->now);
	ue->req.ops = &mrue_req_ops;
	ue->req.msn_idx = ue->msn_idx;
	mr_requester_start(&ue->req, &rp, ue->sq_head);
}

/* Complete from the head what is done; a failed WR moves the QP to Error. */
static void mrue_req_complete(struct mrue *ue)
{
	struct mrue_wc wc;
	struct mrue_swqe *s;
	u8 status;

	while (ue->sq_head != ue->sq_tail) {
		s = mrue_sq_at(ue, ue->sq_head);
		/* In Error: its own error or flushed (MR-VERBS-25). */
		if (ue->state == MRUE_QPS_ERR)
			status = mr_swqe_flushed(&s->tx, MRUE_WC_WR_FLUSH_ERR);
		else if (!mr_requester_complete(&ue->req, ue->sq_head, ue->now,
						ue, &status))
			break;
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = s->wr_id;
		wc.status = status;
		wc.opcode = mrue_wc_op[s->wr_op];
		if (status == MRUE_WC_SUCCESS)
			wc.byte_len = s->tx.length;
		mr_requester_retired(&ue->req, &s->tx, ue->sq_head);
		ue->sq_head++;
		mrue_cq_add(ue, &wc);
		if (status != MRUE_WC_SUCCESS && status != MRUE_WC_WR_FLUSH_ERR)
			mrue_enter_error(ue);
	}
}

/*
 * Run the requester as kernel/req.c mroce_req_run does: complete from
 * the head, run the engine, and again while a run sent packets or
 * finished a WQE; then arm the deadline.
 */
void mrue_req_run(struct mrue *ue)
{
	bool again;
	u64 before;

	if (ue->state == MRUE_QPS_INIT)
		return;
	do {
		ue->now = mrue_clock();
		mrue_req_complete(ue);
		if (ue->state != MRUE_QPS_RTS)
			break;
		before = ue->req_emitted;
		again = mr_requester_run(&ue->req, ue->sq_head, ue->sq_tail,
					 true, ue->now, MRUE_TX_BATCH, ue);
		if (ue->req_emitted != before)
			again = true;
	} while (again);
	if (ue->state != MRUE_QPS_RTS) {
		ue->req_armed = MR_TIME_NEVER;
		return;
	}
	ue->req_armed = mr_requester_deadline(&ue->req, ue->sq_head,
					      ue->sq_tail, ue->now);
	if (ue->req_armed <= ue->now)
		ue->req_armed = ue->now + 1000;
}

/*
 * ACK, NACK, READ_RESP, ATOMIC_RESP or PROBE_REPLY for this QP, @ce its
 * IP CE mark: a response's feeds congestion control (MR-CC-1).
 */
void mrue_req_rcv(struct mrue *ue, const struct mr_pkt *p, bool ce)
{
	if (ue->state != MRUE_QPS_RTS) {
		ue->st.drop_state++;	/* MR-MAL-5 */
		return;
	}
	mr_requester_rcv(&ue->req, ue->sq_head, ue->sq_tail, p, ce, ue->now,
			 ue);
	mrue_req_run(ue);
}

/* ---- posting ------------------------------------------------------------- */

/*
 * The status a WR completes with without being sent, 0 if it may go:
 * its local buffer (MR-VERBS-23: LOC_LEN, LOC_PROT), then what no
 * responder would accept (the engine's mr_swqe_refused()).
 */
static u8 mrue_wr_status(struct mrue *ue, const struct mrue_send_wr *wr,
			 const struct mrue_swqe *s)
{
	bool atomic = wr->opcode == MRUE_WR_FETCH_ADD ||
		      wr->opcode == MRUE_WR_CMP_SWAP;

	if (wr->length > MR_MAX_MSG_LEN ||
	    (atomic && wr->length != MR_ATOMIC_LEN))
		return MRUE_WC_LOC_LEN_ERR;
	if (!mrue_local(ue, wr->lkey, wr->local, wr->length))
		return MRUE_WC_LOC_PROT_ERR;
	return mr_swqe_refused(&s->tx, wr->remote_addr, mrue_req_status);
}

int mrue_post_send(struct mrue *ue, const struct mrue_send_wr *wr)
{
	struct mrue_swqe *s;
	u8 status;

	if (ue->state == MRUE_QPS_INIT)
		return -ENOTCONN;
	if ((unsigned int)wr->opcode >= MRUE_WR_N ||
	    (!wr->local && wr->length))
		return -EINVAL;
	if (ue->sq_tail - ue->sq_head >= ue->sq_size || !mrue_cq_room(ue))
		return -EAGAIN;
	s = mrue_sq_at(ue, ue->sq_tail);
	memset(s, 0, sizeof(*s));
	s->wr_id = wr->wr_id;
	s->wr_op = (u8)wr->opcode;
	s->solicited = wr->solicited;
	s->local = wr->local;
	s->lkey = wr->lkey;
	s->remote_addr = wr->remote_addr;
	s->rkey = wr->rkey;
	s->compare_add = wr->compare_add;
	s->swap = wr->swap;
	s->imm = wr->imm;
	s->tx.op = mrue_wire_op[wr->opcode];
	s->tx.fence = wr->fence;
	s->tx.length = wr->length;
	s->tx.state = MR_SWQE_QUEUED;
	status = mrue_wr_status(ue, wr, s);
	if (status) {
		/* Completes with @status in its turn; nothing after it goes. */
		s->tx.state = MR_SWQE_DONE;
		s->tx.status = status;
	}
	ue->sq_tail++;
	mrue_req_run(ue);
	return 0;
}

bool mrue_sq_empty(const struct mrue *ue)
{
	return ue->sq_head == ue->sq_tail;
}
