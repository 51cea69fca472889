// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE requester control: scoreboard verdicts into congestion control
 * and the path table, in one order for every caller (sender.h).
 */
#include "sender.h"

bool mr_sender_can_send(const struct mr_sender *s, u64 now_ns)
{
	return mr_txsb_can_send(&s->sb, now_ns) &&
	       mr_cc_can_send(&s->cc, now_ns, mr_txsb_inflight(&s->sb));
}

bool mr_sender_window_low(const struct mr_sender *s)
{
	u32 cwnd = mr_cc_window(&s->cc) >> MR_CC_SHIFT;

	return cwnd < 2 * MR_SENDER_ACKREQ_FREE ||
	       mr_txsb_outstanding(&s->sb) + 1 + MR_SENDER_ACKREQ_FREE >
	       MR_TXSB_WIN;
}

void mr_sender_on_sent(struct mr_sender *s, u8 path, u64 now_ns)
{
	mr_cc_on_send(&s->cc, now_ns);
	mr_path_on_send(&s->pt, path, now_ns);
}

/* What the scoreboard delivered and declared lost, per path and in all. */
static void apply_verdicts(struct mr_sender *s,
			   const struct mr_txsb_result *res, u64 now_ns)
{
	u64 mask;
	u8 i;

	for (mask = res->path_delivered_mask, i = 0; mask; mask >>= 1, i++)
		if (mask & 1)
			mr_path_on_delivery(&s->pt, i, res->path_delivered[i],
					    now_ns);
	for (mask = res->path_lost_mask, i = 0; mask; mask >>= 1, i++)
		if (mask & 1)
			mr_path_on_loss(&s->pt, i, res->path_lost[i], now_ns);
	/* After an expiry at this instant, a no-op by design (cc.c). */
	if (res->newly_lost)
		mr_cc_on_loss(&s->cc, now_ns, res->newly_lost);
}

int mr_sender_on_feedback(struct mr_sender *s, const struct mr_pkt *p,
			  u64 now_ns, struct mr_txsb_result *res)
{
	u64 rtt;
	int rc;

	if (p->opcode == MR_OP_ACK)
		rc = mr_txsb_on_ack(&s->sb, &p->akh, now_ns, res);
	else
		rc = mr_txsb_on_nack(&s->sb, &p->akh, &p->nkh, now_ns, res);
	if (rc < 0)
		return rc;
	/* Undo before the ACK's own signals act on the restored window. */
	if (res->rto_undone)
		mr_cc_on_rto_undo(&s->cc, now_ns);
	rtt = res->rtt_valid ? res->rtt_ns : 0;
	mr_cc_on_ack(&s->cc, now_ns, res->newly_acked + res->newly_sacked,
		     p->akh.ce_count, p->akh.pkt_count, rtt,
		     res->stale ? s->cc.credit : p->akh.credit);
	mr_path_on_ack(&s->pt, p->path, p->akh.ce_count, p->akh.pkt_count,
		       rtt, now_ns);
	apply_verdicts(s, res, now_ns);
	if (rc == MR_TXSB_TRIMMED)
		mr_sender_on_trim(s, res->nack_path, now_ns);
	return rc;
}

bool mr_sender_on_implicit_ack(struct mr_sender *s, u32 psn, u64 now_ns,
			       struct mr_txsb_result *res)
{
	const struct mr_txsb_ent *ent = mr_txsb_get(&s->sb, psn);
	s32 off = mr_psn_diff(psn, s->sb.una);
	struct mr_akh akh;

	if (!ent || (ent->flags & MR_TXE_SACKED) || off < 0 ||
	    off >= MR_SACK_BITS)
		return false;
	memset(&akh, 0, sizeof(akh));
	/* The RTT of the copy that was answered, as an ACK would echo. */
	akh.ts_echo = mr_txsb_stamp(&s->sb, ent->sent_ns);
	if (!off) {
		akh.cum_psn = mr_psn_add(psn, 1);
	} else {
		akh.cum_psn = s->sb.una;
		akh.sack[off / 64] |= 1ULL << (off % 64);
	}
	if (mr_txsb_on_ack(&s->sb, &akh, now_ns, res) < 0)
		return false;
	if (res->rto_undone)
		mr_cc_on_rto_undo(&s->cc, now_ns);
	apply_verdicts(s, res, now_ns);
	return true;
}

void mr_sender_on_trim(struct mr_sender *s, u8 path, u64 now_ns)
{
	mr_cc_on_trim(&s->cc, now_ns);
	mr_path_on_trim(&s->pt, path, now_ns);
}

int mr_sender_on_timer(struct mr_sender *s, u64 now_ns,
		       struct mr_txsb_result *res)
{
	int rc = mr_txsb_on_timer(&s->sb, now_ns, res);

	if (res->rto_fired) {
		mr_cc_on_rto(&s->cc, now_ns);
		mr_path_on_rto(&s->pt, res->path_lost_mask,
			       s->sb.rtt_valid ? s->sb.min_rtt_ns : 0, now_ns);
	}
	apply_verdicts(s, res, now_ns);
	return rc;
}
