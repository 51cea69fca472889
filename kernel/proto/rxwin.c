// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE receiver window: 256-bit receive map, classification, cum_psn
 * advance and ACK policy (MR-WIN-2, MR-REL-1, MR-REL-3).
 */
#include "rxwin.h"
#include "bitmap.h"

void mr_rxwin_init(struct mr_rxwin *w, u32 init_psn)
{
	memset(w, 0, sizeof(*w));
	w->cum_psn = init_psn & MR_PSN_MASK;
	w->high_end = w->cum_psn;
	w->rep_psn = w->cum_psn;
	w->ovd_end = w->cum_psn;
	w->ack_every = MR_RXWIN_ACK_EVERY;
	w->ack_reorder = MR_RXWIN_ACK_REORDER;
	w->delack_ns = MR_RXWIN_DELACK_NS;
	w->stale_age_us = MR_RXWIN_STALE_AGE_US;
	w->future_age_us = MR_RXWIN_FUTURE_AGE_US;
}

enum mr_rx_class mr_rxwin_classify(const struct mr_rxwin *w, u32 psn)
{
	u32 d;

	if (!mr_psn_valid(psn))
		return MR_RX_BEYOND;
	if (mr_psn_before(psn, w->cum_psn))
		return MR_RX_DUP;
	d = mr_psn_dist(psn, w->cum_psn);
	if (d >= MR_WINDOW)
		return MR_RX_BEYOND;
	if (mr_map_test(w->map, d))
		return MR_RX_DUP;
	return d ? MR_RX_NEW_OOO : MR_RX_NEW;
}

bool mr_rxwin_dup_recent(const struct mr_rxwin *w, u32 psn)
{
	if (!mr_psn_valid(psn))
		return false;
	if (!mr_psn_before(psn, w->cum_psn))
		return mr_psn_dist(psn, w->cum_psn) < MR_WINDOW;
	return mr_psn_dist(w->cum_psn, psn) <= MR_WINDOW;
}

/* Beyond this the s32 comparison of 32-bit microsecond clocks is void. */
#define MR_RXWIN_TS_HORIZON_US	(1U << 30)

enum mr_ts_verdict mr_rxwin_ts_check(struct mr_rxwin *w, u32 ts, u64 now_ns)
{
	u64 elapsed_us = 0;
	u32 tol;

	if (!w->ts_valid || w->ts_resync)
		return MR_TS_OK;
	if (now_ns > w->ts_ref_ns)
		elapsed_us = mr_div64_u64(now_ns - w->ts_ref_ns, MR_NS_PER_US);
	/* Idle for about 18 minutes: no prediction left, re-anchor. */
	if (elapsed_us >= MR_RXWIN_TS_HORIZON_US)
		return MR_TS_OK;
	/*
	 * Too old: stamped more than stale_age before the newest accepted
	 * packet, whatever time passed here (a stall of this host delays
	 * every packet alike).
	 */
	if (mr_seq32_diff(ts, w->ts_ref) < -(s32)w->stale_age_us) {
		w->stale_pkts++;
		return MR_TS_OLD;
	}
	/*
	 * From the future: the peer's clock cannot have advanced more than
	 * our own since the newest accepted packet, plus future_age (the
	 * delay that packet may have had) and 1/1024 of the elapsed time
	 * for drift.
	 */
	tol = w->future_age_us + (u32)(elapsed_us >> 10);
	if (mr_seq32_diff(ts, w->ts_ref + (u32)elapsed_us) > (s32)tol) {
		/*
		 * Only future drops for future_age: the reference is the
		 * one in doubt (a delayed packet set it). Let requests
		 * through until the PSN window accepts one as new.
		 */
		if (!w->future_since_ns) {
			w->future_since_ns = now_ns ? now_ns : 1;
		} else if (now_ns - w->future_since_ns >=
			   (u64)w->future_age_us * MR_NS_PER_US) {
			w->ts_resync = true;
			w->ts_resyncs++;
			return MR_TS_OK;
		}
		w->future_pkts++;
		return MR_TS_FUTURE;
	}
	w->future_since_ns = 0;
	return MR_TS_OK;
}

void mr_rxwin_ts_accept(struct mr_rxwin *w, u32 ts, u64 now_ns)
{
	/* The newest timestamp accepted, and when; resynchronising: this. */
	if (w->ts_valid && !w->ts_resync && mr_seq32_diff(ts, w->ts_ref) <= 0)
		return;
	w->ts_resync = false;
	w->future_since_ns = 0;
	w->ts_valid = true;
	w->ts_ref = ts;
	w->ts_ref_ns = now_ns;
}

bool mr_rxwin_received(const struct mr_rxwin *w, u32 psn)
{
	return mr_psn_valid(psn) && mr_rxwin_classify(w, psn) == MR_RX_DUP;
}

/*
 * MR-REL-3 c: a PSN missing ack_reorder or more PSNs before the highest
 * one received is overdue (every one before ovd_end); a shorter gap is
 * taken for reordering, which spraying and a multiqueue NIC cause without
 * any loss. Is an overdue PSN missing that no ACK has reported (at or
 * after rep_psn)?
 */
static bool mr_rxwin_overdue(struct mr_rxwin *w)
{
	u32 high = mr_psn_dist(w->high_end, w->cum_psn);
	u32 from = mr_psn_dist(w->rep_psn, w->cum_psn);
	u32 ovd = mr_psn_dist(w->ovd_end, w->cum_psn);

	if (high > w->ack_reorder && high - w->ack_reorder > ovd) {
		ovd = high - w->ack_reorder;
		w->ovd_end = mr_psn_add(w->cum_psn, ovd);
	}
	if (from >= ovd)
		return false;
	return mr_map_find(w->map, from, false) < ovd;
}

int mr_rxwin_mark(struct mr_rxwin *w, u32 psn)
{
	enum mr_rx_class cls = mr_rxwin_classify(w, psn);
	bool overdue;
	u32 d, run;

	if (cls != MR_RX_NEW && cls != MR_RX_NEW_OOO)
		return MR_ERR_PSN;
	d = mr_psn_dist(psn, w->cum_psn);
	/* @psn was overdue (and so reported): it lies before ovd_end. */
	overdue = mr_psn_before(psn, w->ovd_end);
	mr_map_set(w->map, d);
	if (!mr_psn_before(psn, w->high_end))
		w->high_end = mr_psn_add(psn, 1);
	run = 0;
	if (d == 0) {
		/* Filled the head: slide over every contiguous receipt. */
		run = mr_map_run(w->map);
		if (run >= MR_SACK_BITS)
			memset(w->map, 0, sizeof(w->map));
		else
			mr_map_shr(w->map, run);
		w->cum_psn = mr_psn_add(w->cum_psn, run);
		if (mr_psn_before(w->rep_psn, w->cum_psn))
			w->rep_psn = w->cum_psn;
		if (mr_psn_before(w->ovd_end, w->cum_psn))
			w->ovd_end = w->cum_psn;
	}
	/* The overdue lowest hole, filled past SACKed PSNs (MR-REL-3 d). */
	w->last_fill = overdue && run > 1;
	w->last_overdue = mr_rxwin_overdue(w);
	return (int)run;
}

static u16 mr_sat_inc16(u16 v)
{
	return v == 0xffff ? v : v + 1;
}

bool mr_rxwin_note(struct mr_rxwin *w, enum mr_rx_class cls, u16 flags,
		   bool ce, u32 ts, u64 now_ns)
{
	if (cls == MR_RX_BEYOND) {
		/*
		 * Dropped without processing (MR-REL-10): only counted. The
		 * caller answers with a rate-limited NACK SEQ_ERR.
		 */
		w->beyond_pkts++;
		return false;
	}

	/* Accepted or duplicate: both count towards the next AKH. */
	w->pkt_count = mr_sat_inc16(w->pkt_count);
	w->ts_echo = ts;
	w->last_ce = ce;
	if (ce) {
		/* Echo congestion at once (MR-REL-3 f). */
		w->ce_count = mr_sat_inc16(w->ce_count);
		w->ack_now = true;
	}
	if (flags & MR_F_ACKREQ)
		w->ack_now = true;

	if (cls == MR_RX_DUP) {
		/* The sender missed our ACK: repeat it now (MR-REL-3 e). */
		w->dup_pkts++;
		w->ack_now = true;
	} else {
		w->unacked = mr_sat_inc16(w->unacked);
		/*
		 * Out of order, only what the requester must learn at once:
		 * a hole that stayed open while ack_reorder later PSNs came
		 * (MR-REL-3 c) for its loss detection, a fill of such a hole
		 * at cum_psn that moves cum_psn past SACKed PSNs (MR-REL-3
		 * d). Shorter reordering, and packets inside the region
		 * already reported, are coalesced like in-order ones.
		 */
		if (cls == MR_RX_NEW_OOO)
			w->ooo_pkts++;
		if (w->last_overdue || w->last_fill)
			w->ack_now = true;
		/* Every ack_every accepted packets (MR-REL-3 a). */
		if (w->unacked >= w->ack_every)
			w->ack_now = true;
		/*
		 * While an overdue hole is open (cum_psn is missing, and an
		 * ACK said so), every MR_RXWIN_ACK_EVERY_HOLE: the requester
		 * judges a loss only by later packets of its own path
		 * (MR-LOSS-2), which coalescing would hold back (MR-REL-3 h).
		 */
		if (w->unacked >= MR_RXWIN_ACK_EVERY_HOLE &&
		    mr_psn_before(w->cum_psn, w->ovd_end))
			w->ack_now = true;
	}
	/* Delayed-ACK timer for an accepted packet not acked now (MR-REL-13). */
	if (!w->ack_now && !w->delack_armed) {
		w->ack_deadline_ns = now_ns + w->delack_ns;
		w->delack_armed = true;
	}
	return w->ack_now;
}

bool mr_rxwin_ack_due(const struct mr_rxwin *w, u64 now_ns)
{
	return w->ack_now ||
	       (w->delack_armed && now_ns >= w->ack_deadline_ns);
}

u16 mr_rxwin_ack_fill(struct mr_rxwin *w, struct mr_akh *akh)
{
	/* ECE iff the triggering packet carried CE (MR-REL-12). */
	u16 flags = w->last_ce ? MR_F_ECE : 0;

	akh->cum_psn = w->cum_psn;
	memcpy(akh->sack, w->map, sizeof(akh->sack));
	akh->ts_echo = w->ts_echo;
	akh->ce_count = w->ce_count;
	akh->pkt_count = w->pkt_count;
	/* Every hole up to the highest PSN received is now reported. */
	w->rep_psn = w->high_end;

	w->ce_count = 0;
	w->pkt_count = 0;
	w->last_ce = false;
	w->unacked = 0;
	w->ack_now = false;
	w->ack_deadline_ns = 0;
	w->delack_armed = false;
	return flags;
}
