// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mrue responder side: request packets go to the receiver engine
 * (kernel/proto/receiver.h), which decides what is checked, placed,
 * acknowledged, NACKed and completed, in which order; here is what it
 * asks of this endpoint's memory regions and receive queue, as
 * kernel/resp.c and kernel/resp_rd.c do it: receive WQE by SSN, R_Key,
 * range and access checks, placement, receive completions, READ and
 * ATOMIC execution at the completion point, answers to duplicates from
 * rdresp's records, READ responses from rdresp's jobs, and PROBE
 * replies.
 */
#include "mrue-priv.h"

/* ---- checks --------------------------------------------------------------- */

/* The access flag of each right a request may need (MR-VERBS-21). */
static const u32 mrue_access_bit[] = {
	[MR_RIGHT_WRITE] = MRUE_ACCESS_REMOTE_WRITE,
	[MR_RIGHT_READ] = MRUE_ACCESS_REMOTE_READ,
	[MR_RIGHT_ATOMIC] = MRUE_ACCESS_REMOTE_ATOMIC,
};

/*
 * R_Key access to [va, va + len) needing @acc: 0 with *@dst the memory,
 * or the NACK reason. An operation the QP does not enable is an invalid
 * request, a key, right or range problem a remote access error
 * (MR-VERBS-21, as kernel/resp.c mroce_resp_rkey).
 */
static u8 mrue_rkey(struct mrue *ue, u32 rkey, u64 va, u64 len, int acc,
		    u8 **dst)
{
	const struct mrue_mr *mr;
	u64 base;

	*dst = NULL;
	if (!(ue->cfg.qp_access & mrue_access_bit[acc]))
		return MR_NACK_INVALID_REQ;
	if (!len)
		return 0;
	mr = mrue_mr_find(ue, rkey);
	if (!mr || !(mr->access & mrue_access_bit[acc]))
		return MR_NACK_REMOTE_ACCESS;
	base = (uintptr_t)mr->addr;
	/* The peer's va is a number: it must lie in the region. */
	if (va < base || len > mr->len || va - base > mr->len - len)
		return MR_NACK_REMOTE_ACCESS;
	*dst = mr->addr + (va - base);
	return 0;
}

/* The receive WQE that message @ssn binds, or NULL (none posted: RNR). */
static struct mrue_rwqe *mrue_rwqe(struct mrue *ue, u32 ssn)
{
	u32 idx = ssn - ue->rcv.ssn_base;

	if (idx >= ue->rq_tail - ue->rq_head)
		return NULL;
	return &ue->rq[(ue->rq_head + idx) & (ue->rq_size - 1)];
}

/*
 * Message @ssn cannot be scattered into its receive WQE: it completes
 * with @status when the QP is flushed (MR-VERBS-21). The first wins.
 */
static void mrue_rwqe_error(struct mrue *ue, u32 ssn, u8 status)
{
	if (ue->rwqe_err)
		return;
	ue->rwqe_err = true;
	ue->rwqe_err_ssn = ssn;
	ue->rwqe_err_status = status;
}

/* A new SEND* or WRITE_IMM: its receive WQE, length, SEND_INV key. */
static u8 mrue_check_recv(struct mrue *ue, const struct mr_pkt *p)
{
	struct mrue_rwqe *rw = mrue_rwqe(ue, p->dxh.ssn);

	if (!rw)
		return MR_NACK_RNR;
	if (p->opcode == MR_OP_WRITE_IMM)
		return 0;
	if (p->dxh.msg_len > rw->len) {
		/* MR-PLACE-5: longer than the bound WQE. */
		mrue_rwqe_error(ue, p->dxh.ssn, MRUE_WC_LOC_LEN_ERR);
		return MR_NACK_INVALID_REQ;
	}
	if (p->opcode == MR_OP_SEND_INV) {
		/* MR-VERBS-16: no region here may be invalidated remotely. */
		mrue_rwqe_error(ue, p->dxh.ssn, MRUE_WC_REM_INV_REQ_ERR);
		return MR_NACK_INVALID_REQ;
	}
	return 0;
}

/* ---- the receiver engine's callbacks (mr_receiver_ops) ------------------ */

static u8 mrue_rcv_check(void *ctx, const struct mr_pkt *p)
{
	struct mrue *ue = ctx;
	struct mr_rcv_need n;
	u8 *dst, rc = 0;

	if (!mr_rcv_need(p, &n))
		return MR_RCV_DROP;
	if (n.recv)
		rc = mrue_check_recv(ue, p);
	if (!rc && n.right)
		rc = mrue_rkey(ue, n.rkey, n.va, n.len, n.right, &dst);
	return rc;
}

/* The payload of a SEND* at DXH.offset of its receive WQE. */
static u8 mrue_place_recv(struct mrue *ue, const struct mr_pkt *p)
{
	struct mrue_rwqe *rw = mrue_rwqe(ue, p->dxh.ssn);
	u8 *dst;

	if (!rw)
		return MR_NACK_REMOTE_OP;
	if ((u64)p->dxh.offset + p->payload_len > rw->len) {
		mrue_rwqe_error(ue, p->dxh.ssn, MRUE_WC_LOC_LEN_ERR);
		return MR_NACK_INVALID_REQ;
	}
	/* The buffer's region may have gone since the WR was posted. */
	dst = mrue_local(ue, rw->lkey, rw->buf + p->dxh.offset,
			 p->payload_len);
	if (!dst) {
		mrue_rwqe_error(ue, p->dxh.ssn, MRUE_WC_LOC_PROT_ERR);
		return MR_NACK_REMOTE_OP;
	}
	memcpy(dst, p->payload, p->payload_len);
	return 0;
}

static u8 mrue_rcv_place(void *ctx, const struct mr_pkt *p)
{
	struct mrue *ue = ctx;
	struct mr_rcv_need n;
	u8 *dst, rc;

	switch (p->opcode) {
	case MR_OP_SEND:
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
		return mrue_place_recv(ue, p);
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
		/* Checked again: the region may have gone since arrival. */
		mr_rcv_need(p, &n);
		rc = mrue_rkey(ue, n.rkey, n.va, n.len, n.right, &dst);
		if (rc)
			return rc;
		memcpy(dst, p->payload, p->payload_len);
		return 0;
	default:
		return 0;
	}
}

static void mrue_atomic_reply(struct mrue *ue, u32 msn, u32 psn, u64 orig,
			      bool retx)
{
	struct mr_pkt r;

	mr_rdresp_atomic_pkt(msn, psn, ue->rx_path, orig, retx, &r);
	r.ts = mr_txsb_stamp(&ue->req.snd.sb, ue->now);
	/* A lost answer is asked for again (MR-REL-27). */
	if (!mrue_send_pkt(ue, &r, NULL, true))
		ue->st.atomic_resps++;
}

/* Execute atomic @m once, at its completion point (MR-PLACE-16). */
static u8 mrue_atomic(struct mrue *ue, const struct mr_rxmsg_info *m)
{
	u64 orig, val;
	u8 *word, rc;

	rc = mrue_rkey(ue, m->rkey, m->va, MR_ATOMIC_LEN, MR_RIGHT_ATOMIC, &word);
	if (rc)
		return rc;
	memcpy(&orig, word, sizeof(orig));
	val = mr_atomic_result(m->opcode, orig, m->swap_add, m->compare);
	memcpy(word, &val, sizeof(val));
	/* Its duplicates are answered from this record (MR-REL-9). */
	mr_rdresp_atomic_done(&ue->rcv.rd, m, orig);
	mrue_atomic_reply(ue, m->msn, m->first_psn, orig, false);
	return 0;
}

/* A receive-consuming message completes its WQE, in SSN order. */
static u8 mrue_complete_recv(struct mrue *ue, const struct mr_rxmsg_info *m)
{
	struct mrue_rwqe *rw = &ue->rq[ue->rq_head & (ue->rq_size - 1)];
	struct mrue_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = rw->wr_id;
	wc.status = MRUE_WC_SUCCESS;
	wc.opcode = m->opcode == MR_OP_WRITE_IMM ?
		    MRUE_WC_RECV_RDMA_WITH_IMM : MRUE_WC_RECV;
	wc.byte_len = m->msg_len;
	if (m->opcode == MR_OP_SEND_IMM || m->opcode == MR_OP_WRITE_IMM) {
		wc.with_imm = true;
		wc.imm = m->imm;
	}
	ue->rq_head++;
	mrue_cq_add(ue, &wc);
	return 0;
}

static u8 mrue_rcv_deliver(void *ctx, const struct mr_rxmsg_info *m)
{
	struct mrue *ue = ctx;
	u8 *src, rc;

	switch (m->opcode) {
	case MR_OP_READ_REQ:
		/* The region may have gone since the arrival checks. */
		rc = mrue_rkey(ue, m->rkey, m->va + m->offset, m->msg_len,
			       MR_RIGHT_READ, &src);
		if (rc)
			return rc;
		/* Its responses come from the jobs (mrue_resp_rd_pass). */
		if (mr_rdresp_read(&ue->rcv.rd, m, ue->rx_path))
			ue->st.resp_drops++;
		return 0;
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		return mrue_atomic(ue, m);
	case MR_OP_WRITE:
		return 0;
	default:
		/* SEND*, WRITE_IMM: the engine keeps them in SSN order. */
		return mrue_complete_recv(ue, m);
	}
}

/* A duplicate READ_REQ or atomic of an executed message (MR-REL-8/9). */
static bool mrue_rcv_replay(void *ctx, const struct mr_pkt *p)
{
	struct mrue *ue = ctx;
	u64 orig = 0;

	switch (mr_rdresp_replay(&ue->rcv.rd, p,
				 mr_rxmsg_completed_msn(&ue->rcv.m), &orig)) {
	case MR_REPLAY_READ:
		ue->st.replays++;
		return true;
	case MR_REPLAY_ATOMIC:
		ue->st.replays++;
		mrue_atomic_reply(ue, p->dxh.msn, p->psn, orig, true);
		return true;
	default:
		ue->st.replay_drops++;
		return false;
	}
}

static void mrue_rcv_emit(void *ctx, struct mr_pkt *a)
{
	struct mrue *ue = ctx;

	a->ts = mr_txsb_stamp(&ue->req.snd.sb, ue->now);
	if (mrue_send_pkt(ue, a, NULL, false))
		return;
	if (a->opcode == MR_OP_NACK &&
	    a->nkh.reason < MR_ARRAY_SIZE(ue->st.nacks_tx))
		ue->st.nacks_tx[a->nkh.reason]++;
	else
		ue->st.acks_tx++;
}

static void mrue_rcv_count(void *ctx, enum mr_rcv_event ev,
			   const struct mr_pkt *p)
{
	struct mrue_stats *st = &((struct mrue *)ctx)->st;
	uint64_t *const cnt[] = {
		[MR_RCV_EV_CE] = &st->ce_seen,
		[MR_RCV_EV_STALE] = &st->stale,
		[MR_RCV_EV_FUTURE] = &st->future,
		[MR_RCV_EV_BEYOND] = &st->beyond,
		[MR_RCV_EV_RATE_LIMITED] = &st->rate_limited,
		[MR_RCV_EV_TRIM_DUP] = &st->trim_dup,
		[MR_RCV_EV_DUP] = &st->dup,
		[MR_RCV_EV_OLD_DUP] = &st->old_dup,
		[MR_RCV_EV_ERR_POINT] = &st->err_point,
		[MR_RCV_EV_MALFORMED] = &st->malformed,
		[MR_RCV_EV_RKEY] = &st->rkey_violations,
		[MR_RCV_EV_PMTU] = &st->drop_pmtu,
		[MR_RCV_EV_PAYLOAD] = &st->malformed,
		[MR_RCV_EV_MSG_MISMATCH] = &st->malformed,
	};

	(void)p;
	if ((unsigned int)ev < MR_ARRAY_SIZE(cnt) && cnt[ev])
		(*cnt[ev])++;
}

static const struct mr_receiver_ops mrue_rcv_ops = {
	.check = mrue_rcv_check,
	.place = mrue_rcv_place,
	.deliver = mrue_rcv_deliver,
	.replay = mrue_rcv_replay,
	.emit = mrue_rcv_emit,
	.count = mrue_rcv_count,
};

/* ---- entry points ---------------------------------------------------------- */

/* Entering RTR/RTS: the engine at the peer's initial PSN. */
void mrue_resp_start(struct mrue *ue, u32 peer_psn, u8 peer_rd_atomic)
{
	mr_receiver_init(&ue->rcv, peer_psn, ue->now);
	ue->rcv.ops = &mrue_rcv_ops;
	ue->rcv.seq_err_interval_ns = MRUE_SEQ_ERR_NS;
	/* MR-VERBS-15: as many as the peer may have outstanding. */
	ue->rcv.max_dest_rd_atomic = peer_rd_atomic;
	/* Both ends took the smaller MTU at connect (MR-ENC-12). */
	ue->rcv.pmtu = ue->mtu;
	ue->rcv.rnr_timer = ue->cfg.min_rnr_timer;
}

void mrue_resp_rcv(struct mrue *ue, const struct mr_pkt *p, bool ce)
{
	if (ue->state != MRUE_QPS_RTS) {
		/* MR-MAL-5; after a fatal NACK, its repeats (MR-REL-28). */
		ue->st.drop_state++;
		mr_receiver_on_pkt_in_error(&ue->rcv, p, ue->now, ue);
		return;
	}
	ue->rx_path = p->path;
	if (mr_receiver_on_pkt(&ue->rcv, p, ce, ue->now, ue)) {
		mrue_enter_error(ue);
		mrue_req_run(ue);
	}
}

/* The delayed ACK, if it is due. */
void mrue_resp_timer(struct mrue *ue)
{
	if (mr_receiver_ack_deadline(&ue->rcv) <= ue->now)
		mr_receiver_on_timer(&ue->rcv, ue->now, ue);
}

u64 mrue_resp_deadline(const struct mrue *ue)
{
	u64 t = mr_receiver_ack_deadline(&ue->rcv);

	if (mr_rdresp_busy(&ue->rcv.rd))
		t = MR_MIN(t, ue->rd_due_ns);
	return t;
}

/* rdresp's build callback: READ_RESP @ch, from a region that still grants it. */
static int mrue_rd_build(void *ctx, const struct mr_rdresp_chunk *ch)
{
	struct mrue *ue = ctx;
	struct mr_pkt r;
	u8 *src;

	/* The region may have gone since the READ executed (MR-LOSS-14). */
	if (mrue_rkey(ue, ch->rkey, ch->va + ch->off, ch->len, MR_RIGHT_READ,
		      &src)) {
		ue->st.resp_drops++;
		return MR_RDRESP_GONE;
	}
	mr_rdresp_read_pkt(ch, &r);
	r.ts = mr_txsb_stamp(&ue->req.snd.sb, ue->now);
	if (mrue_send_pkt(ue, &r, src, true) == -EAGAIN)
		return MR_RDRESP_NOMEM;
	ue->st.read_resps++;
	return 0;
}

/*
 * READ responses from rdresp's jobs, at most MRUE_RD_BUDGET a pass
 * (MR-SEC-9), paced at the QP's window (MR-CC-19); then the error
 * point's NACK if it waited for them (MR-VERBS-24).
 */
void mrue_resp_rd_pass(struct mrue *ue)
{
	const struct mr_cc *cc = &ue->req.snd.cc;
	u64 due;

	if (ue->state != MRUE_QPS_RTS)
		return;
	ue->now = mrue_clock();
	if (ue->rd_due_ns > ue->now)
		return;
	due = mr_rdresp_pump(&ue->rcv.rd, ue->mtu, MRUE_RD_BUDGET, ue->now,
			     mr_cc_resp_gap(cc), cc->p.pacing_slack_ns,
			     mrue_rd_build, ue);
	ue->rd_due_ns = due == MR_TIME_NEVER ? 0 : due;
	if (mr_receiver_rd_drained(&ue->rcv, ue->now, ue)) {
		mrue_enter_error(ue);
		mrue_req_run(ue);
	}
}

/* MR-MP-10: answer a PROBE, as the core's rate allows. */
void mrue_resp_probe(struct mrue *ue, const struct mr_pkt *p)
{
	struct mr_pkt r;

	if (ue->state != MRUE_QPS_RTS ||
	    !mr_probe_reply(p, ue->now, MR_PROBE_REPLY_GAP_NS,
			    &ue->probe_reply_next, &r))
		return;
	if (!mrue_send_pkt(ue, &r, NULL, false))
		ue->st.probe_replies++;
}

/*
 * Error: every posted receive WQE completes flushed, in order, except
 * the one a message failed in, with its own status (MR-VERBS-21/25).
 */
void mrue_resp_flush(struct mrue *ue)
{
	struct mrue_rwqe *rw;
	struct mrue_wc wc;
	u32 ssn;

	while (ue->rq_head != ue->rq_tail) {
		rw = &ue->rq[ue->rq_head & (ue->rq_size - 1)];
		ssn = ue->flush_ssn++;
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = rw->wr_id;
		wc.opcode = MRUE_WC_RECV;
		wc.status = ue->rwqe_err && ue->rwqe_err_ssn == ssn ?
			    ue->rwqe_err_status : MRUE_WC_WR_FLUSH_ERR;
		ue->rq_head++;
		mrue_cq_add(ue, &wc);
	}
}

int mrue_post_recv(struct mrue *ue, uint64_t wr_id, void *buf, uint32_t len,
		   uint32_t lkey)
{
	struct mrue_rwqe *rw;

	if (!buf && len)
		return -EINVAL;
	if (ue->rq_tail - ue->rq_head >= ue->rq_size || !mrue_cq_room(ue))
		return -EAGAIN;
	rw = &ue->rq[ue->rq_tail & (ue->rq_size - 1)];
	rw->wr_id = wr_id;
	rw->buf = buf;
	rw->len = len;
	rw->lkey = lkey;
	ue->rq_tail++;
	if (ue->state == MRUE_QPS_ERR)
		mrue_resp_flush(ue);
	return 0;
}
