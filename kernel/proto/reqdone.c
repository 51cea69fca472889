// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE send completion rule (reqdone.h).
 */
#include "reqdone.h"

enum mr_done mr_req_head_done(const struct mr_done_head *h,
			      const struct mr_txsb *sb, bool later_failed,
			      u64 *failed_ns, u64 now)
{
	bool answered = mr_op_has(h->opcode, MR_OPA_ANSWERED);

	if (h->finished) {
		/*
		 * A READ/ATOMIC keeps its WR until its last request PSN is
		 * cumulatively acknowledged: a lost request PSN can only be
		 * resent (and so acknowledged) from its WR. Once the
		 * scoreboard failed nothing is resent or acknowledged any
		 * more: with all its data it succeeds, before the WR that
		 * failed (MR-VERBS-22).
		 */
		if (h->ok && answered && !sb->failed &&
		    !mr_psn_before(h->first_psn, sb->una))
			return MR_DONE_WAIT;
		return MR_DONE_OWN;
	}
	/*
	 * SEND/WRITE, and a READ of no bytes (nothing to answer with): done
	 * once every packet is cumulatively acknowledged (MR-REL-29).
	 */
	if (h->sent &&
	    (!answered || (h->opcode == MR_OP_READ_REQ && !h->length)) &&
	    mr_psn_before(h->last_psn, sb->una))
		return MR_DONE_SUCCESS;
	if (!sb->failed)
		return MR_DONE_WAIT;
	/*
	 * The scoreboard gave up (retry or RNR budget, fatal NACK) and sends
	 * nothing more: a WR before the one that failed would wait forever
	 * for its ACK, its response or a re-request. If the failure was
	 * charged to a later WR, the head precedes it (MR-VERBS-22): a READ
	 * or ATOMIC still missing response data gets one RTO to receive it,
	 * then completes with WR_FLUSH_ERR, as does anything else that
	 * cannot finish now; the failed WR then reports its own status.
	 */
	if (!*failed_ns)
		*failed_ns = now;
	if (!later_failed)
		return MR_DONE_RETRY_EXC;
	if (answered && now < *failed_ns + mr_txsb_rto(sb))
		return MR_DONE_WAIT;
	return MR_DONE_FLUSH;
}
