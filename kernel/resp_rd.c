// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE responder, READ and ATOMIC side: execution at the in-order
 * completion point (MR-PLACE-16), answers to duplicates from what the
 * core's rdresp remembers (MR-REL-8, MR-REL-9), and the READ responses.
 *
 * READ responses are never built all at once: an executed range is a
 * job in rdresp's bounded queue, and each pass builds at most a budget
 * of READ_RESP packets, paced at the rate of the QP's own congestion
 * window (MR-CC-19). The receive softirq runs one small pass; the rest
 * is built by the QP's resp_work in process context, a batch at a time,
 * or later from rd_timer when pacing or a failed allocation holds it.
 * So a READ_REQ of any size costs the softirq a bounded amount of work
 * (MR-SEC-9), and one QP's READs cannot monopolise a CPU.
 *
 * Locking: rdresp and the pacing state are under resp_lock; the pacing
 * gap is read from the requester's congestion state under sq.lock, never
 * nested with resp_lock.
 */

#include <linux/skbuff.h>
#include <linux/workqueue.h>

#include "resp.h"

/* READ_RESPs built by the receive softirq for one packet. */
#define MROCE_RD_SOFTIRQ_BUDGET	16
/* READ_RESPs per batch of resp_work, between rescheduling points. */
#define MROCE_RD_WORK_BUDGET	64

/* The ATOMIC_RESP on the requester's path @path (MR-MP-15). */
static void mroce_resp_atomic_reply(struct mroce_qp *qp,
				    struct mroce_rx_ctx *c, u8 path, u32 msn,
				    u32 psn, u64 orig, bool retx)
{
	struct mr_pkt r;
	struct sk_buff *skb;
	u8 *payload;

	mr_rdresp_atomic_pkt(msn, psn, path, orig, retx, &r);
	r.dqpn = qp->attr.dest_qpn;
	r.sqpn = qp->ibqp.qp_num;
	r.ts = mroce_qp_ts(qp, mroce_now());
	skb = mroce_pkt_new(qp, &r, &payload);
	if (!IS_ERR(skb))
		mroce_pkt_queue(&c->txq, skb, mroce_resp_entropy(qp, path),
				true);
}

/* Serialises atomics of all QPs (IB_ATOMIC_HCA, MR-VERBS-12). */
static DEFINE_SPINLOCK(mroce_atomic_lock);

/* Execute an atomic once; the result is kept for its duplicates. */
static u8 mroce_resp_atomic(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			    const struct mr_rxmsg_info *m)
{
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
		val = mr_atomic_result(m->opcode, orig, m->swap_add,
				       m->compare);
		err = mroce_mr_copy(mr, m->va, &val, sizeof(val), true);
	}
	spin_unlock(&mroce_atomic_lock);
	mroce_mr_put(mr);
	if (err)
		return MR_NACK_REMOTE_ACCESS;

	mr_rdresp_atomic_done(&qp->resp->rcv.rd, m, orig);
	mroce_resp_atomic_reply(qp, c, m->path, m->msn, m->first_psn, orig,
				false);
	return 0;
}

/*
 * Execute READ or ATOMIC message @m at its completion point. A READ is
 * re-validated (the region may have gone since its arrival) and queued;
 * its responses follow from mroce_resp_rd_run(). Returns 0 or a fatal
 * NACK reason. resp_lock held.
 */
u8 mroce_resp_rd_exec(struct mroce_qp *qp, struct mroce_rx_ctx *c,
		      const struct mr_rxmsg_info *m)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_mr *mr;
	u8 reason;

	if (m->opcode != MR_OP_READ_REQ)
		return mroce_resp_atomic(qp, c, m);

	reason = mroce_resp_rkey(qp, m->rkey, m->va + m->offset, m->msg_len,
				 IB_ACCESS_REMOTE_READ, &mr);
	if (reason)
		return reason;
	if (mr)
		mroce_mr_put(mr);
	if (mr_rdresp_read(&resp->rcv.rd, m, m->path))
		mroce_count(qp->dev, MROCE_CNT_RESP_DROPS);
	c->rd_kick = true;
	return 0;
}

/*
 * A duplicate READ_REQ or atomic of an executed message, within the
 * duplicate rate limit: serve it again from what rdresp remembers
 * (true), or drop it, counted (false: no response, MR-REL-8, MR-REL-9).
 * resp_lock held.
 */
bool mroce_resp_rd_replay(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			  const struct mr_pkt *p)
{
	struct mroce_resp *resp = qp->resp;
	u64 orig = 0;

	switch (mr_rdresp_replay(&resp->rcv.rd, p,
				 mr_rxmsg_completed_msn(&resp->rcv.m),
				 &orig)) {
	case MR_REPLAY_READ:
		c->rd_kick = true;
		return true;
	case MR_REPLAY_ATOMIC:
		mroce_resp_atomic_reply(qp, c, p->path, p->dxh.msn, p->psn,
					orig, true);
		return true;
	default:
		mroce_count(qp->dev, p->opcode == MR_OP_READ_REQ ?
			    MROCE_CNT_REPLAY_DROPS : MROCE_CNT_ATOMIC_MISS);
		return false;
	}
}

/*
 * rdresp's build callback: the READ_RESP of @ch, read from the region
 * that must still grant it, into the pass's queue.
 */
static int mroce_resp_rd_build(void *ctx, const struct mr_rdresp_chunk *ch)
{
	struct mroce_rx_ctx *c = ctx;
	struct mroce_qp *qp = c->qp;
	struct mroce_mr *mr;
	struct sk_buff *skb;
	struct mr_pkt r;
	u8 *payload;
	int rc = 0;

	if (mroce_resp_rkey(qp, ch->rkey, ch->va + ch->off, ch->len,
			    IB_ACCESS_REMOTE_READ, &mr)) {
		mroce_count(qp->dev, MROCE_CNT_RESP_DROPS);
		return MR_RDRESP_GONE;
	}
	mr_rdresp_read_pkt(ch, &r);
	r.dqpn = qp->attr.dest_qpn;
	r.sqpn = qp->ibqp.qp_num;
	r.ts = mroce_qp_ts(qp, mroce_now());
	skb = mroce_pkt_new(qp, &r, &payload);
	if (IS_ERR(skb)) {
		rc = MR_RDRESP_NOMEM;
	} else if (ch->len && mroce_mr_copy(mr, ch->va + ch->off, payload,
					    ch->len, false)) {
		kfree_skb(skb);
		rc = MR_RDRESP_GONE;
	}
	if (mr)
		mroce_mr_put(mr);
	if (rc) {
		mroce_count(qp->dev, MROCE_CNT_RESP_DROPS);
		return rc;
	}
	mroce_pkt_queue(&c->txq, skb, mroce_resp_entropy(qp, ch->path), true);
	return 0;
}

/* Pacing gap of the QP's READ responses (MR-CC-19); 0: none. */
static u64 mroce_resp_rd_gap(struct mroce_qp *qp, u64 *slack)
{
	u64 gap = 0;

	*slack = 0;
	if (!qp->req)
		return 0;
	spin_lock_bh(&qp->sq.lock);
	if (qp->req->inited) {
		gap = mr_cc_resp_gap(&qp->req->rq.snd.cc);
		*slack = qp->req->rq.snd.cc.p.pacing_slack_ns;
	}
	spin_unlock_bh(&qp->sq.lock);
	return gap;
}

static void mroce_resp_rd_arm(struct mroce_qp *qp, u64 when)
{
	if (READ_ONCE(qp->stopping))
		return;
	qp->resp->rd_wait = true;
	hrtimer_start(&qp->rd_timer, ns_to_ktime(when), HRTIMER_MODE_ABS_SOFT);
}

/*
 * Build at most @budget READ_RESPs into @c's queue, as rdresp paces
 * them. Returns true if more are ready to build now (not held by pacing
 * or a failed allocation: rd_timer resumes those). A QP that left the
 * responder states drops its jobs (MR-VERBS-25). resp_lock held.
 */
static bool mroce_resp_rd_pass(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			       int budget, u64 gap, u64 slack)
{
	struct mroce_resp *resp = qp->resp;
	enum ib_qp_state state = READ_ONCE(qp->state);
	u64 now = mroce_now(), when;
	u32 mtu;

	if (!mroce_state_receives(state)) {
		mr_rdresp_clear_jobs(&resp->rcv.rd);
		return false;
	}
	if (resp->rd_wait)
		return false;
	/*
	 * Pieces no larger than the path MTU (MR-HDR-21) nor than what the
	 * netdev carries now: with IP_DF set a larger one is dropped before
	 * it leaves, for good, if the netdev MTU went below the QP's path
	 * MTU. The requester places pieces of any size on 256-byte units.
	 */
	mtu = ib_mtu_enum_to_int(min(qp->attr.path_mtu,
				     READ_ONCE(qp->dev->active_mtu)));
	when = mr_rdresp_pump(&resp->rcv.rd, mtu, budget, now, gap, slack,
			      mroce_resp_rd_build, c);
	if (when != now && when != MR_TIME_NEVER)
		mroce_resp_rd_arm(qp, when);
	/* The error point waited for these responses (MR-VERBS-24). */
	if (mr_receiver_rd_drained(&resp->rcv, now, c))
		c->error = true;
	return when == now;
}

/*
 * One pass of READ responses in the caller's context (the receive
 * softirq); the rest goes to resp_work. No lock held.
 */
void mroce_resp_rd_run(struct mroce_qp *qp)
{
	struct mroce_rx_ctx c;
	u64 gap, slack;
	bool more;

	if (!qp->resp)
		return;
	gap = mroce_resp_rd_gap(qp, &slack);
	mroce_rx_ctx_init(&c, qp);
	spin_lock_bh(&qp->resp_lock);
	more = mroce_resp_rd_pass(qp, &c, MROCE_RD_SOFTIRQ_BUDGET, gap, slack);
	if (more && !READ_ONCE(qp->stopping))
		queue_work(system_highpri_wq, &qp->resp_work);
	mroce_resp_unlock(qp, &c);
	mroce_resp_finish(qp, &c);
}

static void mroce_resp_work(struct work_struct *work)
{
	struct mroce_qp *qp = container_of(work, struct mroce_qp, resp_work);
	struct mroce_rx_ctx c;
	u64 gap, slack;
	bool more;

	do {
		gap = mroce_resp_rd_gap(qp, &slack);
		mroce_rx_ctx_init(&c, qp);
		spin_lock_bh(&qp->resp_lock);
		more = !READ_ONCE(qp->stopping) &&
		       mroce_resp_rd_pass(qp, &c, MROCE_RD_WORK_BUDGET, gap,
					  slack);
		mroce_resp_unlock(qp, &c);
		/* The rx ctx never asks for READ responses from here. */
		c.rd_kick = false;
		mroce_resp_finish(qp, &c);
		cond_resched();
	} while (more);
}

/* Pacing or allocation retry is over: resume building (softirq). */
static enum hrtimer_restart mroce_rd_timer_fn(struct hrtimer *t)
{
	struct mroce_qp *qp = container_of(t, struct mroce_qp, rd_timer);

	spin_lock(&qp->resp_lock);
	qp->resp->rd_wait = false;
	if (!READ_ONCE(qp->stopping))
		queue_work(system_highpri_wq, &qp->resp_work);
	spin_unlock(&qp->resp_lock);
	return HRTIMER_NORESTART;
}

/* Timer and work of the READ responses (QP creation). */
void mroce_resp_rd_init(struct mroce_qp *qp)
{
	hrtimer_setup(&qp->rd_timer, mroce_rd_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_SOFT);
	INIT_WORK(&qp->resp_work, mroce_resp_work);
}
