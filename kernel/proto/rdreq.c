// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE requester side of READ and ATOMIC messages in flight
 * (rdreq.h).
 *
 * A READ is requested in ranges of at most MR_RDASM_WINDOW bytes past
 * what arrived in order (MR-REL-24 allows splitting from the start): the
 * next range goes out once half of the previous one arrived, which is
 * after the responder executed the READ, so it is served at once as an
 * additional range (MR-REL-25). This bounds response bursts and fits the
 * tracking bitmap (rdasm.h).
 *
 * A READ asks again for exactly the missing pieces - one READ_REQ per
 * maximal run of them, each under a new PSN with the READ's msn
 * (MR-REL-24) - when one of its responses was trimmed (MR-REL-16: the
 * piece it named), when pieces below the highest one placed are still
 * missing reo_wnd after a piece above them arrived (RACK applied to
 * responses, MR-LOSS-14: only those below, once per hole), and when its
 * responses stall for one RTO
 * after its request was delivered (MR-LOSS-14: everything missing). An
 * ATOMIC is re-sent under its original PSN (MR-REL-27). Re-requests
 * without progress count against retry_cnt. A stall (not a trim or RACK:
 * those name pieces lost on the way) says the answers' reverse route
 * failed, so the round is marked for the caller to move the path
 * (MR-MP-34).
 */
#include "rdreq.h"

void mr_rdreq_start(struct mr_rdreq *q, u32 len, u64 now)
{
	mr_rdasm_init(&q->rd, len);
	q->ask_from = 0;
	q->ask_end = 0;
	q->asking = false;
	q->hi = 0;
	q->rack_end = 0;
	q->rack_due = false;
	q->hole_ns = now;
	q->trimmed = false;
	q->trim_from = 0;
	q->trim_end = 0;
	q->stalled = false;
	q->stall_new = false;
	q->retries = 0;
	q->retry_ns = now;
	q->progress_ns = now;
}

/* The next missing run of the current round, or the round is over. */
static enum mr_rdreq_act round_next(struct mr_rdreq *q, u32 *off, u32 *len)
{
	if (mr_rdasm_gap(&q->rd, q->ask_from, off, len) &&
	    *off < q->ask_end) {
		*len = MR_MIN(*len, q->ask_end - *off);
		return MR_RDREQ_AGAIN;
	}
	q->asking = false;
	q->stalled = false;
	return MR_RDREQ_NONE;
}

/*
 * Start a round of asking again for what is missing in [@from, @end),
 * after a stall (@stalled) or a trim or RACK.
 */
static enum mr_rdreq_act round_start(struct mr_rdreq *q, u32 from, u32 end,
				     bool stalled, u32 *off, u32 *len)
{
	q->ask_from = from;
	q->ask_end = end;
	q->asking = true;
	q->stalled = stalled;
	q->stall_new = stalled;
	return round_next(q, off, len);
}

enum mr_rdreq_act mr_rdreq_next(struct mr_rdreq *q, bool read,
				const struct mr_rdreq_env *env, u32 *off,
				u32 *len)
{
	u64 since;

	/* A round of asking again that a packet budget cut short. */
	if (read && q->asking)
		return round_next(q, off, len);
	/*
	 * A trimmed response (MR-REL-16) is known missing: asked again at
	 * once, without waiting or using the retry budget, and before a new
	 * range, which the byte budget may hold back. Only the pieces the
	 * trims named (MR-REL-24): the rest of what was asked may still be
	 * on its way.
	 */
	if (read && q->trimmed && !env->req_in_flight) {
		q->trimmed = false;
		return round_start(q, MR_MAX(q->rd.done, q->trim_from),
				   q->trim_end, false, off, len);
	}
	if (read && mr_rdasm_next(&q->rd, off, len))
		return env->rd_bytes_out + *len > env->rd_bytes_max ?
		       MR_RDREQ_NONE : MR_RDREQ_MORE;
	/*
	 * RACK for responses (MR-LOSS-14): a piece below the highest placed
	 * one still missing reo_wnd after that one arrived was lost (the
	 * responder answers in order; the paths reorder within reo_wnd).
	 * Each hole is asked for once: a lost re-request is the RTO's, and
	 * what lies above hi may still be on its way. A hole that opens
	 * above the ones asked for has its own reo_wnd.
	 */
	if (read && q->rack_due && env->can_send &&
	    env->now - q->hole_ns >= env->reo_wnd_ns) {
		u32 from = MR_MAX(q->rd.done, q->rack_end);

		q->rack_due = false;
		q->rack_end = q->hi;
		return round_start(q, from, q->hi, false, off, len);
	}
	/*
	 * Stalled: the last request was delivered, and neither this
	 * message nor one before it got response data for an RTO. The
	 * responder serves READs in order, so one queued behind others sees
	 * nothing while they stream, and asking again would only make the
	 * responder serve it twice. Data for the messages after it does not
	 * count: it shows that the responder has served this one, so what
	 * is missing here was lost.
	 */
	since = q->progress_ns > env->ahead_ns ? q->progress_ns : env->ahead_ns;
	if (env->req_in_flight || env->now < since + env->rto_ns)
		return MR_RDREQ_NONE;
	/*
	 * Nothing is asked and no retry counted while the peer said RNR
	 * (MR-RETRY-8), nor while congestion control holds every request
	 * (MR-CC-3): the round starts when its first packet may go. A
	 * retry counts at most once per T_verbs without progress, never
	 * with timeout 0 (MR-RETRY-1): re-requests come once per RTO,
	 * which a host under load makes far shorter.
	 */
	if (!env->can_send)
		return MR_RDREQ_STOP;
	if (env->verbs_timeout_ns != MR_TIME_NEVER &&
	    env->now - q->retry_ns >= env->verbs_timeout_ns) {
		q->retries++;
		q->retry_ns = env->now;
	}
	if (q->retries > env->retry_cnt)
		return MR_RDREQ_FAIL;
	/*
	 * With no response yet the READ may not have executed, and the
	 * responder accepts only the request's original range until it has
	 * (MR-PLACE-14): then nothing above the first range was requested,
	 * and the one missing run is that range.
	 */
	if (read)
		return round_start(q, q->rd.done, q->rd.len, true, off, len);
	q->stalled = true;
	q->stall_new = true;
	return MR_RDREQ_ATOMIC_AGAIN;
}

void mr_rdreq_trimmed(struct mr_rdreq *q, u32 off, u32 end)
{
	/*
	 * Bounded state: the span of the pieces trimmed since the last
	 * round. A range is answered in order on one path, so a piece
	 * between two trimmed ones of it arrived or was lost; the round
	 * asks only for the runs still missing in the span.
	 */
	if (q->trimmed) {
		q->trim_from = MR_MIN(q->trim_from, off);
		q->trim_end = MR_MAX(q->trim_end, end);
	} else {
		q->trim_from = off;
		q->trim_end = end;
	}
	q->trimmed = true;
}

void mr_rdreq_sent(struct mr_rdreq *q, enum mr_rdreq_act act, u32 off,
		   u32 len)
{
	if (act == MR_RDREQ_MORE)
		mr_rdasm_requested(&q->rd, off + len);
	else if (act == MR_RDREQ_AGAIN)
		q->ask_from = off + len;
}

u32 mr_rdreq_placed(struct mr_rdreq *q, u32 off, u32 len, u64 now)
{
	u32 n, old_hi = q->hi;

	q->progress_ns = now;
	q->retries = 0;
	q->retry_ns = now;
	n = mr_rdasm_mark(&q->rd, off, len);
	q->hi = MR_MAX(q->hi, off + len);
	/*
	 * A piece above hi opens the hole [old hi, off), above every one
	 * asked for; the oldest such hole times RACK. One filled before
	 * then leaves nothing to ask: the round finds no gap.
	 */
	if (!mr_rdreq_hole(q)) {
		q->rack_due = false;
	} else if (off > old_hi && !q->rack_due) {
		q->rack_due = true;
		q->hole_ns = now;
	}
	return n;
}
