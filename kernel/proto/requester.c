// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE requester engine (requester.h): the send queue walks (what
 * goes out, and when), then what comes back (ACK, NACK, responses).
 */

#include "bitmap.h"
#include "requester.h"

static bool mr_answered(u8 op)
{
	return mr_op_has(op, MR_OPA_ANSWERED);
}

/* @w finished: with @status, 0 for success. */
static void mr_swqe_done(struct mr_requester *r, struct mr_swqe *w,
			 u8 status)
{
	w->state = MR_SWQE_DONE;
	w->status = status;
	/* An error anywhere: what mr_later_failed() knew is stale. */
	if (status)
		r->fail_known = false;
}

void mr_requester_start(struct mr_requester *r,
			const struct mr_requester_params *p, u32 head)
{
	r->p = *p;
	if (r->p.max_rd_atomic > MR_REQ_MAX_RD_ATOMIC)
		r->p.max_rd_atomic = MR_REQ_MAX_RD_ATOMIC;
	if (!r->p.rd_split_pkts)
		r->p.rd_split_pkts = MR_REQ_RD_SPLIT_PKTS;
	r->msn_next = 0;
	r->ssn_next = 0;
	r->cur = head;
	r->cur_off = 0;
	r->probe_id = p->probe_id;
	r->rerolls_seen = r->snd.pt.rerolls;
	r->explores_seen = r->snd.pt.explores;
	r->rd_atomic_out = 0;
	r->rd_first = 0;
	r->rd_n = 0;
	r->rd_bytes_out = 0;
	r->rd_hole_ns = MR_TIME_NEVER;
	r->failed_ns = 0;
	r->fail_known = false;
	r->halted = false;
	r->tx_nomem = false;
	r->rd_held = false;
	/* No PSN of the window was sent by this incarnation yet. */
	memset(r->pkt_msn, 0xff, sizeof(r->pkt_msn));
}

/*
 * Was @psn a request of READ or atomic @w? A response names the request
 * it answers by PSN and MSN (MR-HDR-8, MR-REL-26); one that names
 * another message's PSN is not an answer. The last MR_TXSB_WIN PSNs sent
 * are known by their message; @w's latest request is known for as long
 * as @w is outstanding. That matters once an acknowledged request falls
 * out of the window while its answer is still due: an atomic waiting to
 * execute behind a hole, re-sent under its original PSN (MR-REL-27), or
 * a READ whose responder is slow to serve it, while later WRITEs and
 * SENDs go on.
 */
static bool mr_psn_of_msn(const struct mr_requester *r, u32 psn,
			  const struct mr_swqe *w)
{
	u32 base = mr_psn_sub(r->snd.sb.nxt, MR_TXSB_WIN);

	if (mr_psn_in_window(psn, base, MR_TXSB_WIN))
		return r->pkt_msn[psn & MR_TXSB_WIN_MASK] == w->msn;
	return w->state == MR_SWQE_SENT && psn == w->first_psn;
}

/*
 * @w failed with @st: nothing after it is sent or executed (MR-VERBS-25).
 * A WR that already finished keeps its first status.
 */
static void mr_fail_wr(struct mr_requester *r, struct mr_swqe *w, u8 st)
{
	if (w->state != MR_SWQE_DONE)
		mr_swqe_done(r, w, st);
	r->halted = true;
}

/* SQ index past the WQEs started (cur too once partly sent). */
static u32 mr_started_end(const struct mr_requester *r)
{
	return r->cur + (r->cur_off ? 1 : 0);
}

struct mr_swqe *mr_requester_find(const struct mr_requester *r, u32 head,
				  u32 msn, void *ctx)
{
	u32 idx = r->msn_idx[msn & (r->p.sq_size - 1)];
	struct mr_swqe *w;

	/* Only a started, unretired WQE with that msn is an answer. */
	if (idx - head >= mr_started_end(r) - head)
		return NULL;
	w = r->ops->wqe(ctx, idx);
	return w->op && w->msn == msn ? w : NULL;
}

/*
 * A started WQE finished with an error (the scoreboard's failure). The
 * search goes on from where the last one stopped (fail_from): a WQE
 * before it is clean unless an error came since, which restarts it at
 * the head; one found failed stays so until it retires, and is where
 * the next search looks first. WQEs enter the started range at its end
 * only, past fail_from.
 */
static bool mr_later_failed(struct mr_requester *r, u32 head, void *ctx)
{
	u32 i, end = mr_started_end(r);
	const struct mr_swqe *w;

	if (!r->fail_known || (s32)(r->fail_from - head) < 0)
		r->fail_from = head;
	r->fail_known = true;
	for (i = r->fail_from; i != end; i++) {
		w = r->ops->wqe(ctx, i);
		if (w->state == MR_SWQE_DONE && w->status) {
			r->fail_from = i;
			return true;
		}
	}
	r->fail_from = end;
	return false;
}

enum mr_done mr_requester_head(struct mr_requester *r, u32 head, u64 now,
			       void *ctx)
{
	const struct mr_swqe *w = r->ops->wqe(ctx, head);
	struct mr_done_head h = {
		.opcode = w->op,
		.length = w->length,
		.first_psn = w->first_psn,
		.last_psn = w->last_psn,
		.sent = w->state == MR_SWQE_SENT,
		.finished = w->state == MR_SWQE_DONE,
		.ok = !w->status,
	};
	enum mr_done d;

	/*
	 * Whether a later WR failed matters only to a head that would
	 * otherwise fail with RETRY_EXC (reqdone.h): the search is made
	 * for that one alone, not for a head that completes anyway.
	 */
	d = mr_req_head_done(&h, &r->snd.sb, false, &r->failed_ns, now);
	if (d == MR_DONE_RETRY_EXC && mr_later_failed(r, head, ctx))
		d = mr_req_head_done(&h, &r->snd.sb, true, &r->failed_ns,
				     now);
	return d;
}

u8 mr_swqe_refused(const struct mr_swqe *w, u64 remote_addr,
		   const u8 *status)
{
	switch (w->op) {
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		if (remote_addr & (MR_ATOMIC_LEN - 1))
			return status[MR_REQ_ST_REM_INV_REQ];
		return 0;
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
	case MR_OP_READ_REQ:
		if (w->length && remote_addr > ~0ULL - (w->length - 1))
			return status[MR_REQ_ST_REM_ACCESS];
		return 0;
	default:
		return 0;
	}
}

bool mr_requester_complete(struct mr_requester *r, u32 head, u64 now,
			   void *ctx, u8 *status)
{
	const struct mr_swqe *w = r->ops->wqe(ctx, head);

	switch (mr_requester_head(r, head, now, ctx)) {
	case MR_DONE_OWN:
		*status = w->status;
		return true;
	case MR_DONE_SUCCESS:
		*status = 0;
		return true;
	case MR_DONE_FLUSH:
		*status = r->p.status[MR_REQ_ST_FLUSH];
		return true;
	case MR_DONE_RETRY_EXC:
		*status = r->p.status[MR_REQ_ST_RETRY_EXC];
		return true;
	default:
		return false;
	}
}

void mr_requester_retired(struct mr_requester *r, const struct mr_swqe *w,
			  u32 head)
{
	if (w->rd_atomic) {
		r->rd_atomic_out--;
		r->rd_bytes_out -= mr_rdasm_outstanding(&w->rdq.rd);
	}
	/* Retirement is in SQ order: the oldest READ/ATOMIC goes first. */
	while (r->rd_n &&
	       (s32)(r->rd_idx[r->rd_first] - (head + 1)) < 0) {
		r->rd_first = (r->rd_first + 1) % MR_REQ_MAX_RD_ATOMIC;
		r->rd_n--;
	}
	/*
	 * A WQE that failed before it was started (or a flush) may retire
	 * past cur: the walks from head to cur must never see head beyond
	 * cur.
	 */
	if ((s32)(r->cur - (head + 1)) < 0) {
		r->cur = head + 1;
		r->cur_off = 0;
	}
}

bool mr_requester_idle(const struct mr_requester *r, u32 head)
{
	return head == r->cur && !r->cur_off;
}

/*
 * Send the packet of @w at byte @off (a READ_REQ: for [off, off + rlen))
 * with @psn on @path. Returns what ops->emit returned.
 */
static int mr_emit(struct mr_requester *r, struct mr_swqe *w, u32 off,
		   u32 rlen, u32 psn, u8 path, bool retx, bool *last,
		   u64 now, void *ctx)
{
	struct mr_req_msg m;
	struct mr_pkt p;
	int rc;

	memset(&m, 0, sizeof(m));
	r->ops->msg(ctx, w, &m);
	m.opcode = w->op;
	m.msn = w->msn;
	m.ssn = w->ssn;
	m.length = w->length;
	*last = mr_req_segment(&m, off, r->p.mtu, rlen, retx, &p);
	/* Feedback before the window runs dry (MR-REL-14). */
	if (mr_sender_window_low(&r->snd))
		p.flags |= MR_F_ACKREQ;
	p.path = path;
	p.psn = psn;
	p.ts = mr_txsb_stamp(&r->snd.sb, now);
	rc = r->ops->emit(ctx, w, &p);
	if (rc == MR_REQ_TX_AGAIN)
		r->tx_nomem = true;
	/* Its responses come back on that path (MR-HDR-6, MR-MP-34). */
	else if (!rc && mr_answered(w->op))
		w->rd_path = path;
	return rc;
}

/*
 * The retry budget is spent (MR-RETRY-1, MR-RETRY-10): the oldest
 * incomplete WR fails with RETRY_EXC.
 */
static void mr_fail_retry(struct mr_requester *r, u32 head, u32 tail,
			  void *ctx)
{
	const struct mr_txsb_ent *ent;
	struct mr_swqe *w = NULL;
	u32 i, end = mr_started_end(r);

	/*
	 * The oldest started WR not yet done: a READ whose responses are
	 * still missing may be older than the WR of the PSN at una (its
	 * PSNs were acknowledged), and completions go in order, so failing
	 * the later one would show the READ flushed first.
	 */
	for (i = head; i != end; i++) {
		w = r->ops->wqe(ctx, i);
		if (w->state != MR_SWQE_DONE)
			break;
		w = NULL;
	}
	if (!w) {
		ent = mr_txsb_get(&r->snd.sb, r->snd.sb.una);
		w = ent ? mr_requester_find(r, head, ent->msn, ctx) : NULL;
	}
	if (!w && head != tail)
		w = r->ops->wqe(ctx, head);
	r->ops->event(ctx, MR_REQ_EV_RETRY_EXC, 1, w);
	if (w)
		mr_fail_wr(r, w, r->p.status[MR_REQ_ST_RETRY_EXC]);
}

/* Deadlines: RTO, RACK, RNR. Returns true if a WQE failed. */
static bool mr_run_timers(struct mr_requester *r, u32 head, u32 tail,
			  u64 now, void *ctx)
{
	struct mr_txsb_result res = {};
	int rc;

	if (mr_txsb_next_deadline(&r->snd.sb) > now)
		return false;
	rc = mr_sender_on_timer(&r->snd, now, &res);
	/* Re-rolls of an expiry are reported by mr_run_paths(). */
	if (res.rto_fired)
		r->ops->event(ctx, MR_REQ_EV_RTO, 1, NULL);
	if (rc != MR_TXSB_RETRY_EXCEEDED)
		return false;
	mr_fail_retry(r, head, tail, ctx);
	return true;
}

/* Report what a running total @total gained since *@seen as @ev. */
static void mr_report_new(struct mr_requester *r, enum mr_req_event ev,
			  u64 total, u64 *seen, void *ctx)
{
	if (total == *seen)
		return;
	r->ops->event(ctx, ev, total - *seen, NULL);
	*seen = total;
}

/*
 * Path health (MR-MP-8..12): close rounds, declare paths dead (their
 * packets go out again on other paths), probe dead paths, and report
 * every entropy re-roll the table made.
 */
static void mr_run_paths(struct mr_requester *r, u64 now, bool timer,
			 void *ctx)
{
	struct mr_txsb_result res = {};
	struct mr_pkt p;
	u64 rto = mr_txsb_base_rto(&r->snd.sb);
	u32 n = 0, n_dead = 0;
	u64 dead;
	u8 idx;
	int i;

	if (r->p.path_health) {
		dead = mr_path_tick(&r->snd.pt,
				    mr_txsb_paths_in_flight(&r->snd.sb),
				    rto, now, timer);
		for (i = 0; dead; dead >>= 1, i++) {
			if (!(dead & 1))
				continue;
			n_dead++;
			n += mr_txsb_mark_path_lost(&r->snd.sb, (u8)i, &res);
		}
		if (n_dead)
			r->ops->event(ctx, MR_REQ_EV_PATH_DEAD, n_dead, NULL);
		/* Their retransmissions count as MR_REQ_EV_RETX when they go. */
		if (n)
			r->ops->event(ctx, MR_REQ_EV_FAILOVER, n, NULL);
		while (mr_path_probe_due(&r->snd.pt, now, &idx)) {
			/* MBH only, PSN = probe identifier (MR-MP-9) */
			memset(&p, 0, sizeof(p));
			p.opcode = MR_OP_PROBE;
			p.path = idx;
			p.psn = r->probe_id++ & MR_PSN_MASK;
			p.ts = mr_txsb_stamp(&r->snd.sb, now);
			mr_path_on_probe_sent(&r->snd.pt, idx, p.psn, p.ts,
					      rto, now);
			if (r->ops->probe(ctx, &p))
				r->ops->event(ctx, MR_REQ_EV_PROBE, 1, NULL);
		}
	}
	mr_report_new(r, MR_REQ_EV_REROLLS, r->snd.pt.rerolls,
		      &r->rerolls_seen, ctx);
	mr_report_new(r, MR_REQ_EV_EXPLORES, r->snd.pt.explores,
		      &r->explores_seen, ctx);
}

/*
 * An emit of a packet of @w already started failed with @rc: a lack of
 * memory is tried again later; anything else (a source buffer gone bad,
 * the encoder refusing the packet) fails the WR, and the run says so,
 * for the caller to complete it and enter Error (MR-VERBS-23,
 * MR-VERBS-25): the WR may be the head with no deadline left to bring
 * the caller back.
 */
static void mr_emit_failed(struct mr_requester *r, struct mr_swqe *w,
			   int rc, bool *done)
{
	if (rc == MR_REQ_TX_AGAIN)
		return;
	mr_fail_wr(r, w, (u8)rc);
	*done = true;
}

/*
 * Retransmit what the scoreboard declared lost, within the congestion
 * window like every request packet (MR-CC-3), on another path than the
 * one it was lost on (MR-MP-5). After an RTO the window is one packet:
 * the first retransmission's ACK tells a spurious RTO (MR-LOSS-15), which
 * puts the rest back in flight unsent, from a real one, after which slow
 * start sends them. Returns the budget left; *@done is set if a WQE
 * failed.
 */
static int mr_send_retx(struct mr_requester *r, u32 head, u64 now,
			int budget, bool *done, void *ctx)
{
	const struct mr_txsb_ent *ent;
	struct mr_swqe *w;
	u32 psn, slot;
	bool last;
	u8 path;
	int rc;

	while (budget > 0 && mr_sender_can_send(&r->snd, now) &&
	       mr_txsb_next_retx(&r->snd.sb, now, &psn)) {
		ent = mr_txsb_get(&r->snd.sb, psn);
		/* Every outstanding PSN belongs to a started WQE. */
		w = ent ? mr_requester_find(r, head, ent->msn, ctx) : NULL;
		if (!w)
			break;
		if (w->state == MR_SWQE_DONE && w->status) {
			/*
			 * Nothing of a failed WR goes out again (MR-VERBS-25):
			 * the PSN waits as if resent, and the retry budget
			 * ends the QP if nothing else does.
			 */
			mr_txsb_on_retx(&r->snd.sb, psn, ent->path, now);
			continue;
		}
		/* in an RTO episode, the path answered last (MR-MP-33) */
		path = r->snd.sb.backoff ?
		       mr_path_pick_answered(&r->snd.pt, ent->path) :
		       mr_path_pick_other(&r->snd.pt, ent->path);
		slot = psn & MR_TXSB_WIN_MASK;
		/*
		 * A lost READ_REQ/atomic goes out again exactly as sent: the
		 * responder checks that every packet of a message agrees
		 * (MR-PLACE-14).
		 */
		rc = mr_emit(r, w, r->pkt_off[slot], r->pkt_len[slot], psn,
			     path, true, &last, now, ctx);
		if (rc) {
			mr_emit_failed(r, w, rc, done);
			break;
		}
		mr_txsb_on_retx(&r->snd.sb, psn, path, now);
		mr_sender_on_sent(&r->snd, path, now);
		r->ops->event(ctx, MR_REQ_EV_RETX, 1, w);
		budget--;
	}
	return budget;
}

/*
 * The path for a READ_REQ or atomic that asks again: after a stall, the
 * one answered last (MR-MP-34, as MR-MP-33 chooses; the stalled path was
 * re-rolled, which forgets its answers), else by weight.
 */
static u8 mr_rd_path(struct mr_requester *r, const struct mr_swqe *w,
		     bool again)
{
	return again && w->rdq.stalled ?
	       mr_path_pick_answered(&r->snd.pt, w->rd_path) :
	       mr_path_pick(&r->snd.pt);
}

/*
 * May a READ/ATOMIC follow-up go now? Like every request packet, within
 * the scoreboard window (MR-WIN-3), the congestion window and credit
 * (MR-CC-2) and the pacer (MR-CC-12), not during an RNR pause
 * (MR-RETRY-8): the follow-ups of a READ are most of its requests, and
 * a READ split over several paths asks for all its ranges at once
 * (MR-MP-28). A window below one packet still lets one request out when
 * none is in flight: the READ goes on one range at a time.
 */
static bool mr_rd_can_send(const struct mr_requester *r, u64 now)
{
	return !mr_txsb_window_full(&r->snd.sb) &&
	       mr_sender_can_send(&r->snd, now);
}

/*
 * Request [off, off + rlen) of READ @w on a new PSN. False if it did not
 * go out; *@done is set if @w failed.
 */
static bool mr_send_more(struct mr_requester *r, struct mr_swqe *w, u32 off,
			 u32 rlen, bool retx, u64 now, bool *done, void *ctx)
{
	u32 psn = r->snd.sb.nxt;
	bool last;
	u8 path;
	int rc;

	if (!mr_rd_can_send(r, now)) {
		r->rd_held = true;
		return false;
	}
	path = mr_rd_path(r, w, retx);
	rc = mr_emit(r, w, off, rlen, psn, path, retx, &last, now, ctx);
	if (rc) {
		mr_emit_failed(r, w, rc, done);
		return false;
	}
	/* Cannot fail now: the window has room, no RNR pause. */
	mr_txsb_on_send(&r->snd.sb, w->msn, MR_TXE_FIRST | MR_TXE_LAST, path,
			now, &psn);
	w->first_psn = psn;
	w->rdq.progress_ns = now;
	r->pkt_off[psn & MR_TXSB_WIN_MASK] = off;
	r->pkt_len[psn & MR_TXSB_WIN_MASK] = rlen;
	r->pkt_msn[psn & MR_TXSB_WIN_MASK] = w->msn;
	mr_sender_on_sent(&r->snd, path, now);
	if (retx)
		r->ops->event(ctx, MR_REQ_EV_RETX, 1, w);
	return true;
}

/*
 * Re-send a stalled atomic under its original PSN and MSN (MR-REL-27).
 * That PSN was delivered, so the copy takes no window slot and is not
 * tracked: a responder that executed the atomic answers it from its
 * cache (MR-REL-9); one still waiting to execute it in MSN order drops
 * the copy as a duplicate and answers when it executes. A new PSN would
 * be refused as inconsistent with the atomic's message (MR-PLACE-14)
 * and, never acknowledged, use up the retry budget.
 */
static bool mr_send_atomic_again(struct mr_requester *r, struct mr_swqe *w,
				 u64 now, bool *done, void *ctx)
{
	bool last;
	int rc;
	u8 path;

	/* Paced like every request packet (MR-CC-3, MR-CC-12). */
	if (!mr_rd_can_send(r, now)) {
		r->rd_held = true;
		return false;
	}
	path = mr_rd_path(r, w, true);
	rc = mr_emit(r, w, 0, 0, w->first_psn, path, true, &last, now, ctx);
	if (rc) {
		mr_emit_failed(r, w, rc, done);
		return false;
	}
	mr_cc_on_send(&r->snd.cc, now);
	w->rdq.progress_ns = now;
	r->ops->event(ctx, MR_REQ_EV_RETX, 1, w);
	return true;
}

/*
 * READ and ATOMIC follow-ups (rdreq.h decides what): the next range of a
 * READ, asking again for what a stalled or trimmed READ misses, an atomic
 * re-sent, or the WR failed once its retries are spent. Returns the
 * budget left; *@done is set if a WQE failed.
 */
static int mr_send_rd_more(struct mr_requester *r, u32 head, u64 now,
			   int budget, bool *done, void *ctx)
{
	struct mr_rdreq_env env = {
		.now = now,
		.rto_ns = mr_txsb_rto(&r->snd.sb),
		.reo_wnd_ns = mr_txsb_reo_wnd(&r->snd.sb),
		.verbs_timeout_ns = r->snd.sb.p.verbs_timeout_ns,
		.retry_cnt = r->snd.sb.p.retry_cnt,
		.rd_bytes_max = r->p.rd_bytes_max,
	};
	u64 older = 0, hole = MR_TIME_NEVER;
	enum mr_rdreq_act act;
	struct mr_swqe *w;
	u32 k, idx, off, len, past = head;
	bool read;

	r->rd_held = false;
	/* None started and unretired: nothing to walk for. */
	if (!r->rd_atomic_out) {
		r->rd_hole_ns = MR_TIME_NEVER;
		return budget;
	}
	/*
	 * The started, unretired READ/ATOMIC WQEs, in SQ order: no other
	 * WQE before cur has anything to do here. (An answered WR that
	 * failed as it started is not one of them: it halted the queue, so
	 * it is done and the last before cur, no WQE after it to take its
	 * progress time.)
	 */
	for (k = 0; k < r->rd_n && budget > 0; k++) {
		idx = r->rd_idx[(r->rd_first + k) % MR_REQ_MAX_RD_ATOMIC];
		if (idx - head >= r->cur - head)
			break;
		w = r->ops->wqe(ctx, idx);
		past = idx + 1;
		/* Latest response data of the READs/ATOMICs before this one. */
		env.ahead_ns = older;
		older = MR_MAX(older, w->rdq.progress_ns);
		if (w->state != MR_SWQE_SENT)
			continue;
		read = w->op == MR_OP_READ_REQ;
		env.req_in_flight = !!mr_txsb_get(&r->snd.sb, w->first_psn);
		env.can_send = mr_rd_can_send(r, now);
		env.rd_bytes_out = (u32)r->rd_bytes_out;
		do {
			act = mr_rdreq_next(&w->rdq, read, &env, &off, &len);
			/*
			 * No answer for an RTO after delivery (MR-LOSS-14):
			 * lost on the way back. Cumulative ACKs on other
			 * paths credit a path whose reverse route alone
			 * fails (MR-MP-19), so no RTO re-rolls it
			 * (MR-MP-23): the stall does (MR-MP-34).
			 */
			if (mr_rdreq_stall_taken(&w->rdq))
				mr_path_on_answer_stall(&r->snd.pt,
							w->rd_path, now);
			switch (act) {
			case MR_RDREQ_MORE:
			case MR_RDREQ_AGAIN:
				if (!mr_send_more(r, w, off, len,
						  act == MR_RDREQ_AGAIN, now,
						  done, ctx))
					return budget;
				mr_rdreq_sent(&w->rdq, act, off, len);
				if (act == MR_RDREQ_MORE)
					r->rd_bytes_out += len;
				env.rd_bytes_out = (u32)r->rd_bytes_out;
				budget--;
				break;
			case MR_RDREQ_ATOMIC_AGAIN:
				if (!mr_send_atomic_again(r, w, now, done,
							  ctx))
					return budget;
				budget--;
				break;
			case MR_RDREQ_FAIL:
				/*
				 * Its budget is spent: no message starts after
				 * it (MR-RETRY-9, MR-VERBS-25), and the caller
				 * completes it in its turn.
				 */
				r->ops->event(ctx, MR_REQ_EV_RD_STALLED, 1, w);
				mr_fail_wr(r, w,
					   r->p.status[MR_REQ_ST_RETRY_EXC]);
				*done = true;
				break;
			case MR_RDREQ_STOP:
				r->rd_held = true;
				return budget;
			default:
				break;
			}
			/*
			 * A round of asking again, and a split READ's ranges
			 * (MR-MP-28), go on while they can.
			 */
		} while ((act == MR_RDREQ_AGAIN || act == MR_RDREQ_MORE) &&
			 budget > 0);
		if (read && w->rdq.rack_due)
			hole = MR_MIN(hole, w->rdq.hole_ns);
	}
	/*
	 * A walk cut short keeps the older time: a deadline already past
	 * is left to the run the budget queued. The walk reached cur if
	 * budget was left, or its last WQE was the one before cur.
	 */
	if (past == r->cur || budget > 0)
		r->rd_hole_ns = hole;
	return budget;
}

/* May @w, the next WQE to start, start now? */
static bool mr_may_start(const struct mr_requester *r, u32 head,
			 const struct mr_swqe *w)
{
	/* Fence: wait for earlier READ/ATOMIC results. */
	if (w->fence && head != r->cur)
		return false;
	/*
	 * At most max_rd_atomic READ/ATOMIC WRs outstanding (MR-VERBS-15):
	 * the peer's responder refuses more than its max_dest_rd_atomic,
	 * which the connection matched to it. (rd_n follows rd_atomic_out:
	 * rd_idx[] never overflows.)
	 */
	if (mr_answered(w->op) && (r->rd_atomic_out >= r->p.max_rd_atomic ||
				   r->rd_n == MR_REQ_MAX_RD_ATOMIC))
		return false;
	/* A new READ waits while earlier ones fill the budget. */
	if (w->op == MR_OP_READ_REQ &&
	    r->rd_bytes_out + MR_MIN(w->length, MR_RDASM_WINDOW) >
	    r->p.rd_bytes_max)
		return false;
	return true;
}

/* Assign @w its message sequence numbers: it starts. */
static void mr_start_msg(struct mr_requester *r, struct mr_swqe *w, u64 now)
{
	w->msn = r->msn_next;
	w->first_psn = r->snd.sb.nxt;
	w->rd_atomic = false;
	if (mr_op_has(w->op, MR_OPA_SSN))
		w->ssn = r->ssn_next;
	mr_rdreq_start(&w->rdq, w->length, now);
	if (w->op == MR_OP_READ_REQ) {
		/* Each range's responses take its request's path (MR-MP-28). */
		if (r->snd.pt.n > 1)
			mr_rdasm_split(&w->rdq.rd,
				       r->p.rd_split_pkts * r->p.mtu);
		mr_rdasm_first(&w->rdq.rd);
	}
}

/* Its first packet went out: the message is started (@idx its index). */
static void mr_started_msg(struct mr_requester *r, struct mr_swqe *w,
			   u32 idx)
{
	r->msn_idx[w->msn & (r->p.sq_size - 1)] = idx;
	r->msn_next++;
	if (mr_op_has(w->op, MR_OPA_SSN))
		r->ssn_next++;
	if (mr_answered(w->op)) {
		w->rd_atomic = true;
		r->rd_atomic_out++;
		r->rd_bytes_out += w->rdq.rd.req_end;
		/* Started in SQ order: the newest goes last. */
		r->rd_idx[(r->rd_first + r->rd_n) % MR_REQ_MAX_RD_ATOMIC] = idx;
		r->rd_n++;
	}
}

/*
 * Packetize new work from cur up to @tail, taking from *@budget. Returns
 * true if a WQE finished here (a local operation or one that failed).
 */
static bool mr_send_new(struct mr_requester *r, u32 head, u32 tail,
			u64 now, int *budget, void *ctx)
{
	bool first, last, done = false;
	struct mr_swqe *w;
	u32 psn;
	u8 path, st;
	int rc;

	while (*budget > 0 && r->cur != tail && !r->halted) {
		w = r->ops->wqe(ctx, r->cur);
		first = !r->cur_off;
		if (first && w->state == MR_SWQE_DONE) {
			/*
			 * Refused when it was posted: it completes with its
			 * error in SQ order; nothing after it is sent.
			 */
			r->cur++;
			r->halted = true;
			return true;
		}
		if (first && !w->op) {
			/* Local operation, in SQ order. */
			st = r->ops->local(ctx, w);
			if (st)
				mr_fail_wr(r, w, st);
			else
				mr_swqe_done(r, w, 0);
			r->cur++;
			done = true;
			continue;
		}
		if (first && !mr_may_start(r, head, w))
			break;
		if (mr_txsb_window_full(&r->snd.sb) ||
		    !mr_sender_can_send(&r->snd, now))
			break;
		if (first)
			mr_start_msg(r, w, now);
		path = mr_path_pick(&r->snd.pt);
		psn = r->snd.sb.nxt;
		rc = mr_emit(r, w, r->cur_off, w->rdq.rd.req_end, psn, path,
			     false, &last, now, ctx);
		if (rc == MR_REQ_TX_AGAIN)
			break;
		if (rc) {
			mr_fail_wr(r, w, (u8)rc);
			r->cur++;
			r->cur_off = 0;
			return true;
		}
		mr_txsb_on_send(&r->snd.sb, w->msn,
				(first ? MR_TXE_FIRST : 0) |
				(last ? MR_TXE_LAST : 0), path, now, &psn);
		r->pkt_off[psn & MR_TXSB_WIN_MASK] = r->cur_off;
		r->pkt_len[psn & MR_TXSB_WIN_MASK] = w->rdq.rd.req_end;
		r->pkt_msn[psn & MR_TXSB_WIN_MASK] = w->msn;
		if (first)
			mr_started_msg(r, w, r->cur);
		mr_sender_on_sent(&r->snd, path, now);
		(*budget)--;
		if (last) {
			w->last_psn = psn;
			w->state = MR_SWQE_SENT;
			r->cur++;
			r->cur_off = 0;
		} else {
			/* Every packet but the last is full (segment.h). */
			r->cur_off += r->p.mtu;
		}
	}
	return done;
}

void mr_requester_on_timer(struct mr_requester *r)
{
	r->snd.sb.rto_held = false;
}

bool mr_requester_run(struct mr_requester *r, u32 head, u32 tail,
		      bool new_work, u64 now, int budget, void *ctx)
{
	bool timer = !r->snd.sb.rto_held;
	u32 cur = r->cur;
	bool done;

	done = mr_run_timers(r, head, tail, now, ctx);
	/*
	 * Only a run right after mr_requester_on_timer() acts on an RTO
	 * or declares a path DEAD (MR-LOSS-7). A host stalled past the RTO
	 * finds its timer and the ACKs that would have restarted it pending
	 * at once, and a run from a packet, a doorbell or a work that sends
	 * for long holds off the receive path on its CPU: the ACKs waiting
	 * there come first. A silence of the whole QP is the RTO's to judge
	 * (MR-MP-30), not a path's, and the ACKs after it credit the paths.
	 */
	r->snd.sb.rto_held = true;
	/* A QP whose retries are spent sends nothing, probes neither. */
	if (r->snd.sb.failed)
		return done;
	mr_run_paths(r, now, timer, ctx);
	r->tx_nomem = false;
	budget = mr_send_retx(r, head, now, budget, &done, ctx);
	budget = mr_send_rd_more(r, head, now, budget, &done, ctx);
	if (new_work && mr_send_new(r, head, tail, now, &budget, ctx))
		done = true;
	/* A split READ just started asks for its next ranges (MR-MP-28). */
	if (r->cur != cur && r->snd.pt.n > 1 && r->rd_atomic_out)
		mr_send_rd_more(r, head, now, budget, &done, ctx);
	return done;
}

u64 mr_requester_deadline(const struct mr_requester *r, u32 head, u32 tail,
			  u64 now)
{
	u64 when = mr_txsb_next_deadline(&r->snd.sb);
	u64 pace, hole, dead, rto;

	/*
	 * Held by the pacer: new work, lost packets to resend, or READ and
	 * atomic follow-ups.
	 */
	if (r->cur != tail || r->snd.sb.n_lost || r->rd_held) {
		pace = mr_cc_next_send_ns(&r->snd.cc);
		if (pace > now && pace < when)
			when = pace;
	}
	/* A READ's response hole, reo_wnd after it opened (MR-LOSS-14). */
	if (r->rd_hole_ns != MR_TIME_NEVER) {
		hole = r->rd_hole_ns + mr_txsb_reo_wnd(&r->snd.sb);
		if (hole > now && hole < when)
			when = hole;
	}
	/*
	 * The first path MR-MP-8 would declare DEAD, for the timer's run
	 * (none once the retries are spent: the run judges no path then).
	 * Counting every path as in flight gives a deadline no later; only
	 * when that one comes first is the scoreboard walked for the paths
	 * really in flight. While paths deliver it does not: a pending
	 * path's dead_rtos RTOs end after the QP's next RTO.
	 */
	if (r->p.path_health && !r->snd.sb.failed) {
		rto = mr_txsb_base_rto(&r->snd.sb);
		dead = mr_path_dead_deadline(&r->snd.pt, ~0ULL, rto);
		if (dead < when)
			dead = mr_path_dead_deadline(&r->snd.pt,
					mr_txsb_paths_in_flight(&r->snd.sb), rto);
		if (dead < when)
			when = dead;
	}
	/*
	 * Stalled READ/ATOMIC responses and dead-path probes are checked
	 * once per RTO.
	 */
	if ((head != r->cur || mr_path_usable(&r->snd.pt) < r->snd.pt.n) &&
	    when == MR_TIME_NEVER)
		when = now + mr_txsb_rto(&r->snd.sb);
	if (r->tx_nomem && now + MR_REQ_NOMEM_RETRY_NS < when)
		when = now + MR_REQ_NOMEM_RETRY_NS;
	return when;
}

/* ---- what comes back ------------------------------------------------ */

/* Fail the WR of message @msn (or the head's) with @st (QP to error). */
static void mr_fail_msn(struct mr_requester *r, u32 head, u32 tail, u32 msn,
			enum mr_req_status st, void *ctx)
{
	struct mr_swqe *w = mr_requester_find(r, head, msn, ctx);

	if (!w && head != tail)
		w = r->ops->wqe(ctx, head);
	if (w && w->state != MR_SWQE_DONE)
		mr_swqe_done(r, w, r->p.status[st]);
}

/*
 * What feedback proved about earlier loss decisions: packets declared
 * lost that were delivered after all (MR-LOSS-12) and an RTO episode
 * undone (MR-LOSS-15), for the device's counters (MR-CONF-7).
 */
static void mr_report_spurious(struct mr_requester *r,
			       const struct mr_txsb_result *res, void *ctx)
{
	if (res->spurious)
		r->ops->event(ctx, MR_REQ_EV_SPURIOUS, res->spurious, NULL);
	if (res->rto_undone)
		r->ops->event(ctx, MR_REQ_EV_SPURIOUS_RTO, 1, NULL);
}

static void mr_on_feedback(struct mr_requester *r, u32 head, u32 tail,
			   const struct mr_pkt *p, u64 now, void *ctx)
{
	struct mr_txsb_result res = {};
	int rc;

	/* The core moves scoreboard, window and paths (sender.h). */
	rc = mr_sender_on_feedback(&r->snd, p, now, &res);
	if (rc == MR_ERR_ACK_AGE) {
		/* Echoes no recent timestamp of ours (MR-SEC-6). */
		r->ops->event(ctx, MR_REQ_EV_ACK_AGED, 1, NULL);
		return;
	}
	if (rc < 0) {
		/* Acknowledges PSNs never sent: forged or stale. */
		r->ops->event(ctx, MR_REQ_EV_ACK_BAD, 1, NULL);
		return;
	}
	r->ops->event(ctx, MR_REQ_EV_ACK, 1, NULL);
	if (!mr_map_empty(p->akh.sack))
		r->ops->event(ctx, MR_REQ_EV_SACK, 1, NULL);
	mr_report_spurious(r, &res, ctx);
	/*
	 * SEND/WRITE complete once their last PSN is before una
	 * (reqdone.h); the AKH msn is informative (MR-REL-29).
	 */
	if (p->opcode != MR_OP_NACK)
		return;
	r->ops->event(ctx, MR_REQ_EV_NACK, p->nkh.reason, NULL);
	switch (rc) {
	case MR_TXSB_RNR_WAIT:
		r->ops->event(ctx, MR_REQ_EV_RNR, 1, NULL);
		break;
	case MR_TXSB_RESOURCE_WAIT:
		/* Paused, then resent (MR-REL-34); counted by its reason. */
		break;
	case MR_TXSB_RETRY_EXCEEDED:
		/* NACK RESOURCE spent the retry budget (MR-RETRY-10). */
		mr_fail_retry(r, head, tail, ctx);
		break;
	case MR_TXSB_RNR_RETRY_EXCEEDED:
		r->ops->event(ctx, MR_REQ_EV_RNR, 1, NULL);
		mr_fail_msn(r, head, tail, res.nack_msn,
			    MR_REQ_ST_RNR_RETRY_EXC, ctx);
		break;
	case MR_TXSB_REM_ACCESS_ERR:
		mr_fail_msn(r, head, tail, res.nack_msn, MR_REQ_ST_REM_ACCESS,
			    ctx);
		break;
	case MR_TXSB_REM_INV_REQ:
		mr_fail_msn(r, head, tail, res.nack_msn, MR_REQ_ST_REM_INV_REQ,
			    ctx);
		break;
	case MR_TXSB_REM_OP_ERR:
		mr_fail_msn(r, head, tail, res.nack_msn, MR_REQ_ST_REM_OP, ctx);
		break;
	default:
		break;
	}
}

/*
 * READ_RESP bytes [offset, offset + len) for READ @w: new bytes of a
 * range it asked for are placed, once (MR-PLACE-6). Returns false if the
 * packet brought nothing new.
 */
static bool mr_on_read_resp(struct mr_requester *r, struct mr_swqe *w,
			    const struct mr_pkt *p, u64 now, void *ctx)
{
	u32 off = p->dxh.offset, len = p->payload_len;
	u8 st;

	if (!mr_rdreq_resp_new(&w->rdq, off, len))
		return false;
	st = r->ops->place(ctx, w, off, p->payload, len);
	if (st) {
		mr_fail_wr(r, w, st);
		return true;
	}
	/*
	 * New bytes: progress (MR-RETRY-2); what arrived in order is no
	 * longer outstanding.
	 */
	r->rd_bytes_out -= mr_rdreq_placed(&w->rdq, off, len, now);
	if (w->rdq.rack_due)
		r->rd_hole_ns = MR_MIN(r->rd_hole_ns, w->rdq.hole_ns);
	if (mr_rdasm_complete(&w->rdq.rd))
		mr_swqe_done(r, w, 0);
	return true;
}

static void mr_on_atomic_resp(struct mr_requester *r, struct mr_swqe *w,
			      const struct mr_pkt *p, void *ctx)
{
	u64 orig = p->atomic_orig;
	u8 st = r->ops->place(ctx, w, 0, &orig, sizeof(orig));

	if (st)
		mr_fail_wr(r, w, st);
	else
		mr_swqe_done(r, w, 0);
}

/*
 * A trimmed READ_RESP: its piece is missing. Nothing is placed from it
 * (MR-ICRC-5); the READ asks for that piece again at the next run
 * instead of after an RTO, and the trim is a congestion signal of its
 * path (MR-REL-16, MR-CC-9). Only its headers are left, and they must
 * match an outstanding READ by MSN and PSN and name a piece of a range
 * it asked for (MR-REL-26); anything else is dropped and counted, or a
 * forged trim could make the READ ask for data again and cut the window.
 */
static void mr_on_trimmed(struct mr_requester *r, u32 head,
			  const struct mr_pkt *p, u64 now, void *ctx)
{
	struct mr_swqe *w = mr_requester_find(r, head, p->dxh.msn, ctx);
	u32 off = p->dxh.offset, end;
	int v;

	r->ops->event(ctx, MR_REQ_EV_TRIMMED, 1, w);
	if (p->opcode != MR_OP_READ_RESP || !w || w->op != MR_OP_READ_REQ ||
	    w->state != MR_SWQE_SENT)
		return;
	if (!mr_psn_of_msn(r, p->psn, w) || off >= w->rdq.rd.req_end) {
		r->ops->event(ctx, MR_REQ_EV_RESP_DUP, 1, w);
		return;
	}
	/*
	 * The piece it carried: responses cover a range in PMTU pieces
	 * aligned to the READ's start, the last cut at the range's end
	 * (MR-HDR-24); ranges end on a piece or at the READ's end.
	 */
	end = MR_MIN(off - off % r->p.mtu + r->p.mtu, w->rdq.rd.req_end);
	v = mr_rdasm_check(&w->rdq.rd, off, end - off);
	if (v == MR_RDASM_BAD) {
		r->ops->event(ctx, MR_REQ_EV_RESP_DUP, 1, w);
		return;
	}
	/* A copy of a piece that arrived leaves nothing to ask for. */
	if (v == MR_RDASM_PLACE)
		mr_rdreq_trimmed(&w->rdq, off, end);
	mr_sender_on_trim(&r->snd, p->path, now);
}

/*
 * The one response of an empty READ has nothing to place: it only shows
 * that the request arrived, which acknowledges its PSN (MR-REL-21) -
 * once: a copy, or one with payload, is dropped.
 */
static bool mr_on_empty_read_resp(struct mr_requester *r,
				  const struct mr_swqe *w,
				  const struct mr_pkt *p, u64 now, void *ctx)
{
	struct mr_txsb_result res = {};

	if (p->payload_len ||
	    !mr_sender_on_implicit_ack(&r->snd, p->psn, now, &res)) {
		r->ops->event(ctx, MR_REQ_EV_RESP_DUP, 1, w);
		return false;
	}
	mr_txsb_on_progress(&r->snd.sb, now);
	mr_report_spurious(r, &res, ctx);
	return true;
}

/* A response that was not trimmed; returns true if it was taken. */
static bool mr_on_response(struct mr_requester *r, u32 head,
			   const struct mr_pkt *p, u64 now, void *ctx)
{
	struct mr_swqe *w = mr_requester_find(r, head, p->dxh.msn, ctx);
	struct mr_txsb_result res = {};
	bool ok = false;

	if (w && !mr_psn_of_msn(r, p->psn, w)) {
		/* Not an answer of @w: dropped as MR-REL-26 says. */
		r->ops->event(ctx, MR_REQ_EV_RESP_DUP, 1, w);
		return false;
	}
	if (w && w->state == MR_SWQE_SENT && w->op == MR_OP_READ_REQ &&
	    p->opcode == MR_OP_READ_RESP && !w->length)
		return mr_on_empty_read_resp(r, w, p, now, ctx);
	if (w && w->state == MR_SWQE_SENT) {
		if (p->opcode == MR_OP_READ_RESP && w->op == MR_OP_READ_REQ)
			ok = mr_on_read_resp(r, w, p, now, ctx);
		else if (p->opcode == MR_OP_ATOMIC_RESP &&
			 mr_op_has(w->op, MR_OPA_ATOMIC)) {
			mr_on_atomic_resp(r, w, p, ctx);
			ok = true;
		}
	}
	if (!ok) {
		r->ops->event(ctx, MR_REQ_EV_RESP_DUP, 1, w);
		return false;
	}
	mr_path_on_answer(&r->snd.pt, p->path, now);
	/*
	 * New response data is progress (MR-RETRY-2) even while the request
	 * PSNs wait for their ACK behind queued responses: it resets the
	 * retry budget and restarts the RTO. The WQE's own rdq.progress_ns
	 * tells the stall check of the READs queued behind it that the
	 * responder is serving them in order. And the response proves its
	 * request PSN arrived: that PSN is acknowledged selectively
	 * (MR-REL-21), so a lost ACK does not make the RTO resend the request
	 * and the responder serve the whole range again.
	 */
	mr_txsb_on_progress(&r->snd.sb, now);
	if (mr_sender_on_implicit_ack(&r->snd, p->psn, now, &res))
		mr_report_spurious(r, &res, ctx);
	return true;
}

/*
 * A response was taken: congestion control counts it as one packet an
 * ACK reported, CE-marked if @ce (MR-CC-1, MR-CC-15). READ responses are
 * the data of a READ and cross the fabric towards this requester, which
 * governs them (MR-CC-15); their CE marks are the only ECN signal of
 * that direction, and counting the unmarked ones too keeps alpha the
 * fraction marked (MR-CC-4). The ECN decrease applies as for an ACK
 * (MR-CC-5, at most once per srtt, MR-CC-8). It delivers no request
 * packet of its own (its request's delivery is the scoreboard's,
 * MR-REL-21): the window does not grow here; no RTT sample, and the
 * credit stays as the last ACK set it (MR-CC-14).
 */
static void mr_resp_ecn(struct mr_requester *r, bool ce, u64 now)
{
	mr_cc_on_ack(&r->snd.cc, now, 0, ce ? 1 : 0, 1, 0, r->snd.cc.credit);
}

/* @ce: NULL if the caller cannot see the ECN field. */
static void mr_rcv(struct mr_requester *r, u32 head, u32 tail,
		   const struct mr_pkt *p, const bool *ce, u64 now, void *ctx)
{
	u64 rtt;

	switch (p->opcode) {
	case MR_OP_ACK:
	case MR_OP_NACK:
		mr_on_feedback(r, head, tail, p, now, ctx);
		break;
	case MR_OP_READ_RESP:
	case MR_OP_ATOMIC_RESP:
		/* A trim is a congestion signal of its own (MR-CC-9). */
		if (p->flags & MR_F_TRIM)
			mr_on_trimmed(r, head, p, now, ctx);
		else if (mr_on_response(r, head, p, now, ctx) && ce)
			mr_resp_ecn(r, *ce, now);
		break;
	case MR_OP_PROBE_REPLY:
		/* RTT from the echoed timestamp, microseconds (MR-MP-11). */
		rtt = (u64)(u32)(mr_txsb_stamp(&r->snd.sb, now) - p->ts) *
		      MR_NS_PER_US;
		if (p->path >= r->snd.pt.n ||
		    !mr_path_on_probe_reply(&r->snd.pt, p->path, p->psn, p->ts,
					    rtt, now)) {
			/* MR-MP-25: dropped, counted as a duplicate */
			r->ops->event(ctx, MR_REQ_EV_RESP_DUP, 1, NULL);
			break;
		}
		/* Only a DEAD path's outstanding PROBE matches: a revival. */
		r->ops->event(ctx, MR_REQ_EV_PROBE_REPLY, 1, NULL);
		r->ops->event(ctx, MR_REQ_EV_PATH_REVIVED, 1, NULL);
		break;
	default:
		break;
	}
}

void mr_requester_rcv(struct mr_requester *r, u32 head, u32 tail,
		      const struct mr_pkt *p, bool ce, u64 now, void *ctx)
{
	mr_rcv(r, head, tail, p, &ce, now, ctx);
}

void mr_requester_on_pkt(struct mr_requester *r, u32 head, u32 tail,
			 const struct mr_pkt *p, u64 now, void *ctx)
{
	mr_rcv(r, head, tail, p, NULL, now, ctx);
}
