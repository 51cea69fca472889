// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE QP state for `rdma res show qp -dd` (restrack driver
 * attributes): the requester's send queue walk, sender scoreboard,
 * congestion window and timer, path table, and the responder's receive
 * window. It is how a stuck QP or a failed path is diagnosed on a live
 * host (admin-guide.rst, "A QP that stopped moving", "When a path
 * fails").
 *
 * That state is the administrator's: it holds the live PSNs of every
 * QP, kernel QPs included, which others must not be able to predict
 * (MR-SEC-3). Anyone may dump QPs (RDMA_NLDEV_CMD_RES_QP_GET is not
 * RDMA_NL_ADMIN_PERM) and nldev does not tell fill_res_qp_entry whether
 * the requester holds CAP_NET_ADMIN, so the driver applies nldev's own
 * test itself.
 */

#include <linux/capability.h>
#include <net/sock.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "metaroce.h"

/* WQEs from the SQ head described one by one. */
#define MROCE_RES_WQES	4
/*
 * Paths described one by one (pathN): a QP entry must fit one dump
 * message, which may be as small as a page (rdma's receive buffer), and
 * each path line takes about 100 bytes, so at most this many of the up
 * to MR_PATH_MAX; "path_states" gives every path's state in a letter.
 */
#define MROCE_RES_PATHS	8

static const char *mroce_res_wqe_state(u8 state)
{
	switch (state) {
	case MR_SWQE_QUEUED:
		return "queued";
	case MR_SWQE_SENT:
		return "sent";
	case MR_SWQE_DONE:
		return "done";
	default:
		return "?";
	}
}

static const char *const mroce_res_path_states[] = {
	[MR_PATH_ACTIVE] = "active",
	[MR_PATH_SUSPECT] = "suspect",
	[MR_PATH_DEAD] = "dead",
};

static const char *mroce_res_path_state(u8 state)
{
	return state < ARRAY_SIZE(mroce_res_path_states) ?
	       mroce_res_path_states[state] : "?";
}

/* Path I of the table as one word of key=value pairs. */
static int mroce_res_path(struct sk_buff *msg, const struct mr_path_table *pt,
			  u32 i)
{
	const struct mr_path *p = &pt->path[i];
	char name[16], val[128];

	snprintf(name, sizeof(name), "path%u", i);
	snprintf(val, sizeof(val),
		 "state=%s,entropy=0x%04x,srtt_us=%llu,delivered=%llu,lost=%llu,rerolls=%u,deaths=%u",
		 mroce_res_path_state(p->state), p->entropy,
		 div_u64(p->srtt_ns, 1000), p->delivered, p->losses,
		 p->rerolls, p->deaths);
	return rdma_nl_put_driver_string(msg, name, val);
}

/*
 * The path table (MR-MP-8..12): totals, the RTO without backoff that
 * MR-MP-8 counts dead_rtos in, every path's state as a letter
 * (path_states: a active, s suspect, d dead; index 0 first), and up to
 * MROCE_RES_PATHS paths in detail, one word of key=value pairs each (a
 * script takes drv_pathN's value whole). The detail goes to the paths
 * that are not active first, so a failed path is described whatever its
 * index, then to the active ones in index order. Entropies are no
 * secret (every packet shows its own), but they share the nest with the
 * PSNs and so its MR-SEC-3 check. sq.lock held.
 */
static int mroce_res_paths(struct sk_buff *msg, struct mroce_req *req)
{
	const struct mr_path_table *pt = &req->rq.snd.pt;
	char states[MR_PATH_MAX + 1];
	u32 i, pass, shown = 0;

	if (rdma_nl_put_driver_u32(msg, "path_health",
				   req->rq.p.path_health) ||
	    rdma_nl_put_driver_u32(msg, "paths", pt->n) ||
	    rdma_nl_put_driver_u32(msg, "paths_usable", mr_path_usable(pt)) ||
	    rdma_nl_put_driver_u64(msg, "path_deaths", pt->deaths) ||
	    rdma_nl_put_driver_u64(msg, "path_revivals", pt->revivals) ||
	    rdma_nl_put_driver_u64(msg, "path_rerolls", pt->rerolls) ||
	    rdma_nl_put_driver_u64(msg, "path_explores", pt->explores) ||
	    rdma_nl_put_driver_u64(msg, "rto_base_us",
				   div_u64(mr_txsb_base_rto(&req->rq.snd.sb),
					   1000)))
		return -EMSGSIZE;
	for (i = 0; i < pt->n && i < MR_PATH_MAX; i++)
		states[i] = mroce_res_path_state(pt->path[i].state)[0];
	states[i] = '\0';
	if (rdma_nl_put_driver_string(msg, "path_states", states))
		return -EMSGSIZE;
	/* pass 0: the paths not active; pass 1: the active ones */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < pt->n && shown < MROCE_RES_PATHS; i++) {
			bool active = pt->path[i].state == MR_PATH_ACTIVE;

			if (active != (pass == 1))
				continue;
			if (mroce_res_path(msg, pt, i))
				return -EMSGSIZE;
			shown++;
		}
	}
	return 0;
}

/* Requester state; sq.lock held. */
static int mroce_res_req(struct sk_buff *msg, struct mroce_qp *qp, u64 now)
{
	struct mroce_req *req = qp->req;
	const struct mr_txsb *sb = &req->rq.snd.sb;
	u64 deadline = mr_txsb_next_deadline(sb);
	struct mroce_send_wqe *wqe;
	char name[16], val[96];
	u32 i, n;

	if (rdma_nl_put_driver_u32(msg, "sq_cur", req->rq.cur) ||
	    rdma_nl_put_driver_u32(msg, "sq_cur_off", req->rq.cur_off) ||
	    rdma_nl_put_driver_u32(msg, "halted", req->rq.halted) ||
	    rdma_nl_put_driver_u32(msg, "una", sb->una) ||
	    rdma_nl_put_driver_u32(msg, "nxt", sb->nxt) ||
	    rdma_nl_put_driver_u32(msg, "inflight", mr_txsb_inflight(sb)) ||
	    rdma_nl_put_driver_u32(msg, "sacked", sb->n_sacked) ||
	    rdma_nl_put_driver_u32(msg, "lost", sb->n_lost) ||
	    rdma_nl_put_driver_u32(msg, "failed", sb->failed) ||
	    rdma_nl_put_driver_u32(msg, "rnr_wait", sb->rnr_wait) ||
	    rdma_nl_put_driver_u32(msg, "backoff", sb->backoff) ||
	    rdma_nl_put_driver_u32(msg, "rto_expiries", sb->rto_expiries) ||
	    rdma_nl_put_driver_u64(msg, "rto_fired", sb->st.rto) ||
	    rdma_nl_put_driver_u64(msg, "rto_spurious", sb->st.spurious_rto) ||
	    rdma_nl_put_driver_u64(msg, "cuts_loss_rand",
				   req->rq.snd.cc.st.cuts_loss_rand) ||
	    rdma_nl_put_driver_u64(msg, "cuts_delay",
				   req->rq.snd.cc.st.cuts_delay) ||
	    rdma_nl_put_driver_u64(msg, "cuts_ecn",
				   req->rq.snd.cc.st.cuts_ecn) ||
	    /* the delay signal (MR-CC-6, MR-CC-7): 0 before any sample */
	    rdma_nl_put_driver_u64(msg, "base_rtt_us",
				   div_u64(req->rq.snd.cc.base_rtt_ns, 1000)) ||
	    rdma_nl_put_driver_u64(msg, "delay_rtt_us",
				   div_u64(req->rq.snd.cc.dly_rtt_ns, 1000)) ||
	    rdma_nl_put_driver_u64(msg, "target_us",
				   div_u64(mr_cc_target_ns(&req->rq.snd.cc),
					   1000)) ||
	    rdma_nl_put_driver_u64(msg, "rto_us",
				   div_u64(mr_txsb_rto(sb), 1000)) ||
	    rdma_nl_put_driver_u64(msg, "srtt_us",
				   div_u64(sb->srtt_ns, 1000)) ||
	    rdma_nl_put_driver_u32(msg, "cwnd_pkts",
				   req->rq.snd.cc.cwnd >> MR_CC_SHIFT) ||
	    rdma_nl_put_driver_u32(msg, "timer_armed",
				   hrtimer_active(&qp->req_timer)))
		return -EMSGSIZE;
	/* The next deadline from now, in microseconds (negative: overdue). */
	if (deadline == MR_TIME_NEVER)
		strscpy(val, "never", sizeof(val));
	else
		snprintf(val, sizeof(val), "%lld",
			 div_s64((s64)(deadline - now), 1000));
	if (rdma_nl_put_driver_string(msg, "deadline_us", val) ||
	    mroce_res_paths(msg, req))
		return -EMSGSIZE;

	n = min_t(u32, qp->sq.tail - qp->sq.head, MROCE_RES_WQES);
	for (i = 0; i < n; i++) {
		wqe = mroce_sq_wqe(&qp->sq, qp->sq.head + i);
		snprintf(name, sizeof(name), "wqe%u", i);
		snprintf(val, sizeof(val),
			 "op %u wire_op %u %s status %u msn %u psn %u-%u rd %u/%u/%u retries %u",
			 wqe->opcode, wqe->tx.op,
			 mroce_res_wqe_state(wqe->tx.state), wqe->tx.status,
			 wqe->tx.msn, wqe->tx.first_psn, wqe->tx.last_psn,
			 wqe->tx.rdq.rd.done, wqe->tx.rdq.rd.req_end, wqe->tx.length,
			 wqe->tx.rdq.retries);
		if (rdma_nl_put_driver_string(msg, name, val))
			return -EMSGSIZE;
	}
	return 0;
}

/*
 * The connection setup (MR-VER-17): state, the peer's revision, the
 * common capability set and the READ range towards the peer. sq.lock held.
 */
static int mroce_res_hello(struct sk_buff *msg, struct mroce_qp *qp)
{
	const struct mr_hello *h = &qp->req->hello;
	char rev[16];

	if (h->state == MR_HELLO_SETTLED)
		snprintf(rev, sizeof(rev), "1.%u", h->peer_minor);
	else if (h->state == MR_HELLO_OLD_PEER)
		strscpy(rev, "1.0", sizeof(rev));	/* no HELLO */
	else
		strscpy(rev, "?", sizeof(rev));
	if (rdma_nl_put_driver_string(msg, "hello",
				      mr_hello_state_name(h->state)) ||
	    rdma_nl_put_driver_string(msg, "peer_rev", rev) ||
	    rdma_nl_put_driver_u32_hex(msg, "own_caps", h->p.caps) ||
	    rdma_nl_put_driver_u32_hex(msg, "peer_caps", h->peer_caps) ||
	    rdma_nl_put_driver_u32_hex(msg, "common_caps", h->common) ||
	    rdma_nl_put_driver_u32(msg, "hello_tries", h->sent) ||
	    rdma_nl_put_driver_u32(msg, "read_range",
				   mr_hello_read_range(h, MR_READ_RANGE_MAX)))
		return -EMSGSIZE;
	return 0;
}

/* Both halves of the QP; the caller opened the driver attribute nest. */
static int mroce_res_qp(struct sk_buff *msg, struct mroce_qp *qp)
{
	const struct mr_receiver *rcv;
	u32 cum_psn, msn;
	bool rd_busy;
	char err[48];
	int rc = 0;

	spin_lock_bh(&qp->sq.lock);
	if (rdma_nl_put_driver_u32(msg, "sq_head", qp->sq.head) ||
	    rdma_nl_put_driver_u32(msg, "sq_tail", qp->sq.tail) ||
	    rdma_nl_put_driver_u32(msg, "sq_running", qp->sq.running))
		rc = -EMSGSIZE;
	else if (qp->req)
		rc = mroce_res_hello(msg, qp);
	if (!rc && qp->req && qp->req->inited)
		rc = mroce_res_req(msg, qp, mroce_now());
	spin_unlock_bh(&qp->sq.lock);
	if (rc || !qp->resp)
		return rc;

	spin_lock_bh(&qp->resp_lock);
	rcv = &qp->resp->rcv;
	cum_psn = rcv->w.cum_psn;
	msn = mr_rxmsg_completed_msn(&rcv->m);
	rd_busy = mr_rdresp_busy(&rcv->rd);
	/*
	 * The error point (MR-VERBS-24): its PSN and NACK reason, and
	 * whether the NACK is sent, waits for READ responses (due) or for
	 * cum_psn to reach it (pending).
	 */
	if (!rcv->err_valid)
		strscpy(err, "none", sizeof(err));
	else
		snprintf(err, sizeof(err), "psn %u reason %u %s", rcv->err_psn,
			 rcv->err_reason, rcv->err_sent ? "sent" :
			 rcv->err_due ? "due" : "pending");
	spin_unlock_bh(&qp->resp_lock);
	if (rdma_nl_put_driver_u32(msg, "rx_cum_psn", cum_psn) ||
	    rdma_nl_put_driver_u32(msg, "rx_completed_msn", msn) ||
	    rdma_nl_put_driver_u32(msg, "rx_read_busy", rd_busy) ||
	    rdma_nl_put_driver_string(msg, "rx_error_point", err))
		return -EMSGSIZE;
	return 0;
}

/*
 * Whether the reply @msg goes to a privileged requester: the test nldev
 * applies to RDMA_NL_ADMIN_PERM commands (netlink_capable(): the opener
 * of the requesting socket and the current task both hold CAP_NET_ADMIN
 * in the initial user namespace). A dump's reply skb belongs to the
 * requesting socket (netlink_dump() sets its owner before calling the
 * dump), which is what `rdma res show qp` sends. The reply to a
 * single-QP request (doit: `rdma res show qp ... lqpn N`) comes from
 * nlmsg_new() with no socket: the requester is unknown, the state is
 * not given (checking only current would let an unprivileged opener
 * have a privileged program send the request for it).
 */
static bool mroce_res_privileged(const struct sk_buff *msg)
{
	const struct sock *sk = msg->sk;

	return sk && sk->sk_socket && sk->sk_socket->file &&
	       sk_capable(sk, CAP_NET_ADMIN);
}

int mroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct nlattr *nest;

	if (!mroce_res_privileged(msg))
		return 0;
	nest = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (mroce_res_qp(msg, to_mqp(ibqp))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}
