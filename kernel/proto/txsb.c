// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE sender scoreboard: selective-repeat bookkeeping, RACK loss
 * detection, RTO and retry budgets.  See txsb.h.
 */
#include "txsb.h"

/*
 * IBTA RNR NAK timer encoding (Table "RNR NAK Timer Field Encodings"),
 * in microseconds.  Code 0 is the longest value, 655.36 ms.
 */
static const u32 mr_rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120,
	160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

u64 mr_rnr_timer_ns(u8 code)
{
	return (u64)mr_rnr_us[code & 31] * MR_NS_PER_US;
}

u64 mr_ib_timeout_ns(u8 timeout)
{
	/* 4.096 us * 2^timeout; 0 disables the timer (IBTA), > 31 invalid */
	if (timeout == 0 || timeout > 31)
		return MR_TIME_NEVER;
	return 4096ULL << timeout;
}

u32 mr_txsb_ts(u64 now_ns)
{
	/* MBH timestamp: sender clock in microseconds, wraps (MR-HDR-9) */
	return (u32)mr_div64_u64(now_ns, MR_NS_PER_US);
}
MR_KUNIT_EXPORT(mr_txsb_ts);

void mr_txsb_default_params(struct mr_txsb_params *p)
{
	memset(p, 0, sizeof(*p));
	/*
	 * MR-LOSS-6.  These defaults are for a software device: both ends
	 * run the protocol in softirq and thread context of a general
	 * purpose kernel, often in a virtual machine, where a round trip
	 * that is normally 10 us .. 1 ms is stretched by scheduling: a
	 * softirq deferred to ksoftirqd, a vCPU the host does not run for
	 * a few (KVM) to a few tens (TCG, overcommitted host) of
	 * milliseconds.  RFC 6298's srtt + 4 rttvar learns that variance
	 * only after it has seen a stall, so the floor has to cover the
	 * common case: min_rto 5 ms is above the scheduling latency of a
	 * loaded host (CFS's 6 ms period shared by a few runnable tasks)
	 * and still 40 times below TCP's 200 ms and 13 times below the
	 * 67 ms of rxe's usual verbs timeout.  The rarer, longer stalls
	 * still fire the RTO; the timestamp echo then proves it spurious
	 * and it is undone (MR-LOSS-15), so they cost a retransmitted
	 * packet, not the window.  A tail loss waits min_rto: the price
	 * of not retransmitting on every stall.  init_rto 10 ms, twice the
	 * floor, covers the first exchange (a full initial window
	 * serialised at a VM's 100 Mbit/s, a delayed ACK and a stall)
	 * without the 1 s of RFC 6298 that would stall a verbs consumer.
	 * A hardware implementation with bounded processing jitter would
	 * use about 1 ms and 100 us.  max_rto 1 s bounds backoff (the
	 * verbs timeout may lower it).
	 */
	p->init_rto_ns = 10000 * MR_NS_PER_US;
	p->min_rto_ns = 5000 * MR_NS_PER_US;
	p->max_rto_ns = 1000000 * MR_NS_PER_US;
	/* RACK reordering window floor (MR-LOSS-3) */
	p->reo_wnd_min_ns = 50 * MR_NS_PER_US;
	/*
	 * Without verbs attributes every RTO expiry counts against
	 * retry_cnt; the verbs layer sets T_verbs from the QP's timeout.
	 */
	p->verbs_timeout_ns = 0;
	/* MR-SEC-6 default: no RTT sample from an echo older than 1 s */
	p->ack_max_age_ns = 1000000 * MR_NS_PER_US;
	p->retry_cnt = 7;
	p->rnr_retry = 7;
}

int mr_txsb_init(struct mr_txsb *sb, const struct mr_txsb_params *p,
		 u32 init_psn)
{
	if (p->min_rto_ns == 0 || p->min_rto_ns > p->max_rto_ns ||
	    p->init_rto_ns == 0 || p->retry_cnt > 7 || p->rnr_retry > 7 ||
	    init_psn > MR_PSN_MASK)
		return MR_ERR_INVAL;
	memset(sb, 0, sizeof(*sb));
	sb->p = *p;
	sb->una = init_psn;
	sb->nxt = init_psn;
	/* max_rto_eff = max(min_rto, min(max_rto, T_verbs)) (MR-LOSS-6) */
	sb->max_rto_eff_ns = p->max_rto_ns;
	if (p->verbs_timeout_ns && p->verbs_timeout_ns != MR_TIME_NEVER &&
	    p->verbs_timeout_ns < p->max_rto_ns)
		sb->max_rto_eff_ns = MR_MAX(p->min_rto_ns, p->verbs_timeout_ns);
	return 0;
}

static inline struct mr_txsb_ent *ent_of(struct mr_txsb *sb, u32 psn)
{
	return &sb->ent[psn & MR_TXSB_WIN_MASK];
}

/* Offset of @psn from una if outstanding, else -1. */
static inline s32 out_off(const struct mr_txsb *sb, u32 psn)
{
	s32 d = mr_psn_diff(psn, sb->una);

	if (d < 0 || (u32)d >= mr_txsb_outstanding(sb))
		return -1;
	return d;
}

const struct mr_txsb_ent *mr_txsb_get(const struct mr_txsb *sb, u32 psn)
{
	if (out_off(sb, psn) < 0)
		return NULL;
	return &sb->ent[psn & MR_TXSB_WIN_MASK];
}

static inline void res_init(struct mr_txsb *sb, struct mr_txsb_result *res)
{
	memset(res, 0, sizeof(*res));
	res->una = sb->una;
}

/* RTO per RFC 6298 2.3 without backoff, clamped (MR-LOSS-6). */
u64 mr_txsb_base_rto(const struct mr_txsb *sb)
{
	u64 rto;

	if (!sb->rtt_valid)
		rto = sb->p.init_rto_ns;
	else
		rto = sb->srtt_ns + 4 * sb->rttvar_ns;
	if (rto < sb->p.min_rto_ns)
		rto = sb->p.min_rto_ns;
	if (rto > sb->max_rto_eff_ns)
		rto = sb->max_rto_eff_ns;
	return rto;
}

u64 mr_txsb_rto(const struct mr_txsb *sb)
{
	u64 rto = mr_txsb_base_rto(sb);
	u32 i;

	/* exponential backoff per expiry, capped (MR-LOSS-6, MR-LOSS-8) */
	for (i = 0; i < sb->backoff; i++) {
		if (rto >= sb->max_rto_eff_ns / 2)
			return sb->max_rto_eff_ns;
		rto <<= 1;
	}
	return rto;
}
MR_KUNIT_EXPORT(mr_txsb_rto);

u64 mr_txsb_reo_wnd(const struct mr_txsb *sb)
{
	u64 w = sb->rtt_valid ? sb->srtt_ns >> 2 : 0;

	/* reo_wnd = srtt/4, floor reo_wnd_min (MR-LOSS-3) */
	return w < sb->p.reo_wnd_min_ns ? sb->p.reo_wnd_min_ns : w;
}

static void rtt_update(struct mr_txsb *sb, u64 r)
{
	u64 d;

	if (!sb->rtt_valid) {
		/* RFC 6298 2.2 */
		sb->srtt_ns = r;
		sb->rttvar_ns = r >> 1;
		sb->min_rtt_ns = r;
		sb->rtt_valid = true;
		return;
	}
	/* RFC 6298 2.3: beta = 1/4, alpha = 1/8 (rttvar uses old srtt) */
	d = sb->srtt_ns > r ? sb->srtt_ns - r : r - sb->srtt_ns;
	sb->rttvar_ns = sb->rttvar_ns - (sb->rttvar_ns >> 2) + (d >> 2);
	sb->srtt_ns = sb->srtt_ns - (sb->srtt_ns >> 3) + (r >> 3);
	if (r < sb->min_rtt_ns)
		sb->min_rtt_ns = r;
}

/*
 * RTT from the echoed timestamp (MR-LOSS-4): it is the send time of the
 * copy that triggered the ACK, so samples from retransmissions are valid
 * (no Karn ambiguity).  Echoes from the future or older than ack_max_age
 * are discarded.
 */
static void rtt_sample(struct mr_txsb *sb, u32 ts_echo, u64 now,
		       struct mr_txsb_result *res)
{
	s32 rtt_us = mr_seq32_diff(mr_txsb_stamp(sb, now), ts_echo);
	u64 r;

	if (rtt_us < 0) {
		sb->st.old_samples++;
		return;
	}
	r = (u64)rtt_us * MR_NS_PER_US;
	if (r > sb->p.ack_max_age_ns) {
		sb->st.old_samples++;
		return;
	}
	/* sub-microsecond: clock granularity */
	if (!r)
		r = 1;
	rtt_update(sb, r);
	res->rtt_valid = true;
	res->rtt_ns = r;
}

/* RACK: does (t1, psn1) come after (t2, psn2) in send order? */
static inline bool sent_after(u64 t1, u32 psn1, u64 t2, u32 psn2)
{
	return t1 > t2 || (t1 == t2 && mr_psn_diff(psn1, psn2) > 0);
}

/*
 * A packet was delivered: advance the RACK state (RFC 8985 6.2).  A
 * delivered retransmission may have been delivered by an earlier copy;
 * its latest send time would make RACK believe newer packets were
 * delivered, so skip it when the ACK echoes a copy sent before that
 * time, or when that copy was sent less than min_rtt ago (MR-LOSS-2).
 */
static void rack_advance(struct mr_txsb *sb, const struct mr_txsb_ent *e,
			 u32 psn, u32 ts_echo, u64 now)
{
	if (e->retx &&
	    ((sb->rtt_valid && now - e->sent_ns < sb->min_rtt_ns) ||
	     mr_seq32_diff(ts_echo, mr_txsb_stamp(sb, e->sent_ns)) < 0))
		return;
	if (!(sb->rack_path_valid & (1ULL << e->path)) ||
	    sent_after(e->sent_ns, psn, sb->rack_path_sent_ns[e->path],
		       sb->rack_path_psn[e->path])) {
		sb->rack_path_valid |= 1ULL << e->path;
		sb->rack_path_sent_ns[e->path] = e->sent_ns;
		sb->rack_path_psn[e->path] = psn;
		sb->rack_path_rtt_ns[e->path] = now - e->sent_ns;
		sb->rack_dirty = true;
	}
	if (!sb->rack_valid ||
	    sent_after(e->sent_ns, psn, sb->rack_sent_ns, sb->rack_psn)) {
		sb->rack_valid = true;
		sb->rack_sent_ns = e->sent_ns;
		sb->rack_psn = psn;
		sb->rack_rtt_ns = now - e->sent_ns;
		sb->rack_retx = e->retx != 0;
		sb->rack_dirty = true;
	}
}

static void note_delivered(struct mr_txsb *sb, struct mr_txsb_ent *e,
			   u32 psn, u32 ts_echo, u64 now,
			   struct mr_txsb_result *res)
{
	if (e->flags & MR_TXE_LOST) {
		/* declared lost but delivered after all: spurious loss */
		e->flags &= ~(MR_TXE_LOST | MR_TXE_RTO);
		sb->n_lost--;
		res->spurious++;
		sb->st.spurious++;
	}
	/*
	 * Karn's rule for paths (MR-MP-19): the acknowledgement of a PSN
	 * sent more than once does not say which copy arrived, and the
	 * most recent one may sit in a black hole while an earlier one
	 * arrived on another path.
	 */
	if (!e->retx) {
		res->path_delivered[e->path]++;
		res->path_delivered_mask |= 1ULL << e->path;
	}
	rack_advance(sb, e, psn, ts_echo, now);
}

static void mark_lost(struct mr_txsb *sb, struct mr_txsb_ent *e,
		      struct mr_txsb_result *res)
{
	e->flags |= MR_TXE_LOST;
	sb->n_lost++;
	res->newly_lost++;
	res->path_lost[e->path]++;
	res->path_lost_mask |= 1ULL << e->path;
}

/*
 * RACK loss detection (RFC 8985 6.2, MR-LOSS-1/2), per path: a packet sent
 * before the most recently sent delivered packet of its own path is lost
 * once it has been outstanding longer than that packet's RTT plus the
 * reordering window, i.e. once it is more than reo_wnd late relative to a
 * later packet of its path that made it.
 * Reordering within reo_wnd therefore never causes a retransmission.
 * Duplicate ACKs are never counted.  Arms the reordering timer for the
 * earliest packet that is not lost yet but may become so.
 *
 * First transmissions leave in PSN order, and a copy is never sent before
 * its first transmission: when R's latest copy is a first transmission,
 * no packet after R in PSN order was sent before R, and the walk stops at
 * R.  In a stream acknowledged in order R is just before una and the walk
 * is empty; after a loss it covers the hole.
 */
static void rack_detect(struct mr_txsb *sb, u64 now,
			struct mr_txsb_result *res)
{
	u32 n = mr_txsb_outstanding(sb), i;
	u64 reo, deadline = 0;
	s32 r;

	sb->reo_deadline_ns = 0;
	sb->rack_dirty = false;
	if (!sb->rack_valid || n == sb->n_sacked + sb->n_lost)
		return;
	reo = mr_txsb_reo_wnd(sb);
	sb->rack_thresh_ns = sb->rack_rtt_ns + reo;
	if (!sb->rack_retx) {
		r = mr_psn_diff(sb->rack_psn, sb->una);
		if (r <= 0)
			return;
		if ((u32)r < n)
			n = (u32)r;
	}
	for (i = 0; i < n; i++) {
		u32 psn = mr_psn_add(sb->una, i);
		struct mr_txsb_ent *e = ent_of(sb, psn);
		u64 due;

		if (e->flags & (MR_TXE_SACKED | MR_TXE_LOST))
			continue;
		if (!(sb->rack_path_valid & (1ULL << e->path)) ||
		    !sent_after(sb->rack_path_sent_ns[e->path],
				sb->rack_path_psn[e->path], e->sent_ns, psn))
			continue;
		due = e->sent_ns + sb->rack_path_rtt_ns[e->path] + reo;
		if (now > due) {
			mark_lost(sb, e, res);
			sb->st.lost_rack++;
		} else if (!deadline || due + 1 < deadline) {
			deadline = due + 1;
		}
	}
	sb->reo_deadline_ns = deadline;
}

int mr_txsb_on_send(struct mr_txsb *sb, u32 msn, u8 flags, u8 path,
		    u64 now_ns, u32 *psn)
{
	struct mr_txsb_ent *e;

	if (path >= MR_TXSB_MAX_PATHS || (flags & ~MR_TXE_USER) ||
	    !mr_txsb_can_send(sb, now_ns))
		return MR_ERR_INVAL;
	if (mr_txsb_window_full(sb))
		return MR_ERR_NOSPACE;
	/* the RTO timer runs while a packet is in flight (MR-LOSS-7) */
	if (!mr_txsb_inflight(sb))
		sb->rto_start_ns = now_ns;
	/* a busy period starts: reference for the retry budget */
	if (sb->una == sb->nxt)
		sb->retry_ref_ns = now_ns;
	e = ent_of(sb, sb->nxt);
	e->sent_ns = now_ns;
	e->msn = msn;
	e->retx = 0;
	e->path = path;
	e->flags = flags;
	*psn = sb->nxt;
	sb->nxt = mr_psn_add(sb->nxt, 1);
	sb->st.sent++;
	return 0;
}

int mr_txsb_on_retx(struct mr_txsb *sb, u32 psn, u8 path, u64 now_ns)
{
	struct mr_txsb_ent *e;

	if (path >= MR_TXSB_MAX_PATHS || !mr_txsb_can_send(sb, now_ns))
		return MR_ERR_INVAL;
	if (out_off(sb, psn) < 0)
		return MR_ERR_PSN;
	e = ent_of(sb, psn);
	if (e->flags & MR_TXE_SACKED)
		return MR_ERR_PSN;
	if (!mr_txsb_inflight(sb))
		sb->rto_start_ns = now_ns;	/* timer starts (MR-LOSS-7) */
	if (e->flags & MR_TXE_LOST) {
		e->flags &= ~(MR_TXE_LOST | MR_TXE_RTO);
		sb->n_lost--;
	}
	/* a copy that RACK must judge against R (only with equal clocks) */
	if (sb->rack_valid &&
	    !sent_after(now_ns, psn, sb->rack_sent_ns, sb->rack_psn))
		sb->rack_dirty = true;
	e->sent_ns = now_ns;
	e->path = path;
	if (e->retx != 0xffff)
		e->retx++;
	sb->st.retx++;
	return 0;
}

/*
 * Selective acknowledgements (MR-REL-19): visit the set bits only, a
 * 64-bit word at a time, so that an ACK costs what it reports, not the
 * width of the map.  Bit 0 is cum_psn itself, never set.  @out: packets
 * outstanding after the cumulative advance.
 */
static void sack_apply(struct mr_txsb *sb, const struct mr_akh *ack,
		       u32 out, u64 now, struct mr_txsb_result *res)
{
	u32 w;

	for (w = 0; w < MR_SACK_WORDS; w++) {
		u64 bits = w ? ack->sack[w] : ack->sack[w] & ~1ULL;

		while (bits) {
			u32 i = w * 64 + mr_ctz64(bits);
			u32 psn = mr_psn_add(ack->cum_psn, i);
			s32 off = mr_psn_diff(psn, sb->una);
			struct mr_txsb_ent *e;

			bits &= bits - 1;
			if (off < 0)
				continue;
			/* never sent: ignore (cannot be received) */
			if ((u32)off >= out)
				return;
			e = ent_of(sb, psn);
			if (e->flags & MR_TXE_SACKED)
				continue;
			e->flags |= MR_TXE_SACKED;
			sb->n_sacked++;
			res->newly_sacked++;
			sb->st.sacked++;
			note_delivered(sb, e, psn, ack->ts_echo, now, res);
		}
	}
}

/*
 * Spurious RTO (MR-LOSS-15, Eifel detection of RFC 3522 on the MBH
 * timestamp): the first ACK after an expiry that delivers anything echoes
 * the copy that made the responder send it.  A copy sent before the
 * expiry means the packets were not lost, only late (a stalled peer or
 * path).  An echo from the future or older than ack_max_age proves
 * nothing (MR-SEC-6).
 */
static bool rto_was_spurious(const struct mr_txsb *sb, u32 ts_echo, u64 now)
{
	s32 age = mr_seq32_diff(mr_txsb_stamp(sb, now), ts_echo);

	if (age < 0 || (u64)age * MR_NS_PER_US > sb->p.ack_max_age_ns)
		return false;
	return mr_seq32_diff(ts_echo, sb->rto_ts) < 0;
}

/*
 * Undo a spurious RTO: what it declared lost and was not retransmitted
 * yet is in flight again; RACK judges it afresh against R (the caller
 * runs rack_detect()).  The backoff and the retry budget were reset by
 * the progress of the same ACK (MR-LOSS-9, MR-RETRY-2).
 */
static void rto_undo(struct mr_txsb *sb, struct mr_txsb_result *res)
{
	u32 n = mr_txsb_outstanding(sb), i;

	for (i = 0; i < n && sb->n_lost; i++) {
		struct mr_txsb_ent *e = ent_of(sb, mr_psn_add(sb->una, i));

		if (!(e->flags & MR_TXE_RTO))
			continue;
		e->flags &= ~(MR_TXE_LOST | MR_TXE_RTO);
		sb->n_lost--;
	}
	sb->st.spurious_rto++;
	res->rto_undone = true;
}

/* Common ACK/NACK feedback (MR-REL-19/20); validates before mutating. */
/*
 * SACKed PSNs at una were received, so they are cumulatively acknowledged
 * (MR-REL-30): advance una over them, as the responder's next cum_psn
 * would. That ACK may never come: a response SACKs its request
 * (MR-REL-21) before the ACK of the PSNs below it arrives, and when the
 * ACK that covers it is lost nothing is left in flight to run the RTO.
 * Returns how far una moved.
 */
static u32 sacked_advance(struct mr_txsb *sb, struct mr_txsb_result *res)
{
	u32 n = 0;
	struct mr_txsb_ent *e;

	while (sb->una != sb->nxt) {
		e = ent_of(sb, sb->una);
		if (!(e->flags & MR_TXE_SACKED))
			break;
		sb->n_sacked--;
		if (e->flags & MR_TXE_LAST) {
			res->done_valid = true;
			res->done_msn = e->msn;
		}
		e->flags = 0;
		sb->una = mr_psn_add(sb->una, 1);
		n++;
	}
	if (n) {
		res->una_advanced = true;
		res->una = sb->una;
	}
	return n;
}

/*
 * MR-SEC-6: an ACK or NACK echoes the timestamp of a packet we sent, so
 * its echo lies in [now - ack_max_age, now] on our clock (which carries
 * the QP's random offset).
 */
static bool mr_txsb_echo_fresh(const struct mr_txsb *sb, u32 ts_echo,
			       u64 now)
{
	s32 age = mr_seq32_diff(mr_txsb_stamp(sb, now), ts_echo);

	return age >= 0 && (u64)age * MR_NS_PER_US <= sb->p.ack_max_age_ns;
}

static int process_ack(struct mr_txsb *sb, const struct mr_akh *ack,
		       u64 now, struct mr_txsb_result *res)
{
	u32 out = mr_txsb_outstanding(sb), i, adv;
	bool undo = false;
	s32 d;

	res_init(sb, res);
	if (ack->cum_psn > MR_PSN_MASK) {
		sb->st.bad_acks++;
		return MR_ERR_INVAL;
	}
	if (!mr_txsb_echo_fresh(sb, ack->ts_echo, now)) {
		sb->st.aged_acks++;
		return MR_ERR_ACK_AGE;
	}
	d = mr_psn_diff(ack->cum_psn, sb->una);
	if (d > 0 && (u32)d > out) {
		/* acknowledges PSNs never sent: reject, no state change */
		sb->st.bad_acks++;
		return MR_ERR_ACK_RANGE;
	}
	if (d < 0) {
		/*
		 * Reordered, older ACK (MR-REL-20).  Receipt state only
		 * grows, so its SACK bits are still true; use those that
		 * reach into the window, ignore the rest (and its credit).
		 */
		res->stale = true;
		sb->st.stale_acks++;
		if (d <= -MR_TXSB_WIN)
			return MR_TXSB_OK;
	}

	/* cumulative advance */
	adv = d > 0 ? (u32)d : 0;
	for (i = 0; i < adv; i++) {
		u32 psn = mr_psn_add(sb->una, i);
		struct mr_txsb_ent *e = ent_of(sb, psn);

		if (e->flags & MR_TXE_SACKED) {
			sb->n_sacked--;
		} else {
			res->newly_acked++;
			sb->st.acked++;
			note_delivered(sb, e, psn, ack->ts_echo, now, res);
		}
		if (e->flags & MR_TXE_LAST) {
			res->done_valid = true;
			res->done_msn = e->msn;
		}
		e->flags = 0;
	}
	if (adv) {
		sb->una = ack->cum_psn;
		res->una_advanced = true;
		res->una = sb->una;
		out -= adv;
	}

	if (out)
		sack_apply(sb, ack, out, now, res);
	out -= sacked_advance(sb, res);

	if (res->newly_acked + res->newly_sacked) {
		/* the first delivering ACK after an RTO judges it */
		if (sb->rto_pending) {
			sb->rto_pending = false;
			undo = rto_was_spurious(sb, ack->ts_echo, now);
		}
		mr_txsb_on_progress(sb, now);
		rtt_sample(sb, ack->ts_echo, now, res);
		if (undo)
			rto_undo(sb, res);
	}
	if (sb->rnr_active && out_off(sb, sb->rnr_psn) < 0)
		sb->rnr_active = false;
	if (sb->rnr_active &&
	    (ent_of(sb, sb->rnr_psn)->flags & MR_TXE_SACKED))
		sb->rnr_active = false;
	if (!sb->rnr_active)
		sb->rnr_count = 0;

	/*
	 * RACK can only find a new loss when R moved, packets came back in
	 * flight, the threshold shrank (srtt fell) or a deadline passed;
	 * otherwise the last pass's verdicts and timer stand.
	 */
	if (undo || sb->rack_dirty ||
	    (sb->reo_deadline_ns && now >= sb->reo_deadline_ns) ||
	    (sb->rack_valid &&
	     sb->rack_rtt_ns + mr_txsb_reo_wnd(sb) < sb->rack_thresh_ns))
		rack_detect(sb, now, res);
	return MR_TXSB_OK;
}


/*
 * Progress (MR-RETRY-2): reset the retry budget and the backoff
 * (MR-LOSS-9) and restart the RTO timer (MR-LOSS-7). ACKs and SACKs call
 * it here; the glue calls it for the progress the scoreboard does not
 * see: new response bytes of an outstanding READ, an ATOMIC's response.
 */
void mr_txsb_on_progress(struct mr_txsb *sb, u64 now_ns)
{
	sb->rto_expiries = 0;
	sb->retry_ref_ns = now_ns;
	sb->backoff = 0;
	sb->rto_start_ns = now_ns;
}
int mr_txsb_on_ack(struct mr_txsb *sb, const struct mr_akh *ack,
		   u64 now_ns, struct mr_txsb_result *res)
{
	return process_ack(sb, ack, now_ns, res);
}

/*
 * Does a NACK about @e concern its latest copy?  The echoed timestamp
 * names the copy; without retransmissions there is only one copy.  A
 * NACK for an older copy (duplicated or late) must not trigger a second
 * retransmission or consume retry budget.
 */
static bool nack_current(const struct mr_txsb *sb,
			 const struct mr_txsb_ent *e, u32 ts_echo)
{
	if (e->flags & (MR_TXE_SACKED | MR_TXE_LOST))
		return false;
	return e->retx == 0 || mr_txsb_stamp(sb, e->sent_ns) == ts_echo;
}

/* Mark @from and every later undelivered PSN lost (RNR resend). */
static void lose_from(struct mr_txsb *sb, u32 from,
		      struct mr_txsb_result *res)
{
	s32 off = out_off(sb, from);
	u32 n = mr_txsb_outstanding(sb), i;

	if (off < 0)
		return;
	for (i = (u32)off; i < n; i++) {
		struct mr_txsb_ent *x = ent_of(sb, mr_psn_add(sb->una, i));

		if (x->flags & (MR_TXE_SACKED | MR_TXE_LOST))
			continue;
		mark_lost(sb, x, res);
		sb->st.lost_other++;
	}
}

/*
 * Pause all sending for the delay @code encodes (MR-RETRY-6,
 * MR-RETRY-10); the RTO does not run meanwhile (MR-RETRY-8).
 * mr_txsb_on_timer() then declares @psn and every later undelivered PSN
 * lost. A pause already running ends at the later of both times and
 * resends from the earlier PSN.
 */
static void txsb_pause(struct mr_txsb *sb, u32 psn, u8 code, u64 now_ns,
		       struct mr_txsb_result *res)
{
	u64 until;

	res->rnr_wait_ns = mr_rnr_timer_ns(code);
	until = now_ns + res->rnr_wait_ns;
	if (sb->rnr_wait) {
		if (mr_psn_before(psn, sb->pause_psn))
			sb->pause_psn = psn;
		if (until > sb->rnr_until_ns)
			sb->rnr_until_ns = until;
	} else {
		sb->rnr_wait = true;
		sb->pause_psn = psn;
		sb->rnr_until_ns = until;
	}
	sb->rto_start_ns = sb->rnr_until_ns;
}

/*
 * Retry budget (MR-RETRY-1): an expiry counts at most once per T_verbs
 * without progress. True when the count exceeds retry_cnt: the QP fails
 * (retry_cnt counts retries as in IB: 0 fails on the first counted
 * expiry).
 */
static bool count_expiry(struct mr_txsb *sb, u64 now_ns)
{
	if (sb->p.verbs_timeout_ns != MR_TIME_NEVER &&
	    now_ns - sb->retry_ref_ns >= sb->p.verbs_timeout_ns) {
		sb->rto_expiries++;
		sb->retry_ref_ns = now_ns;
	}
	return sb->rto_expiries > sb->p.retry_cnt;
}

int mr_txsb_on_nack(struct mr_txsb *sb, const struct mr_akh *ack,
		    const struct mr_nkh *nkh, u64 now_ns,
		    struct mr_txsb_result *res)
{
	u32 nack_psn = nkh->nack_psn;
	struct mr_txsb_ent *e = NULL;
	int ret;

	if (nack_psn > MR_PSN_MASK) {
		res_init(sb, res);
		sb->st.bad_acks++;
		return MR_ERR_INVAL;
	}
	/* the AKH part first, exactly as an ACK (MR-REL-15) */
	ret = process_ack(sb, ack, now_ns, res);
	if (ret < 0)
		return ret;
	if (sb->failed)
		return MR_TXSB_FAILED;
	res->nack_psn = nack_psn;
	if (out_off(sb, nack_psn) >= 0) {
		e = ent_of(sb, nack_psn);
		res->nack_msn = e->msn;
		res->nack_path = e->path;
		if (e->flags & MR_TXE_SACKED)
			e = NULL;
	}
	/* a NACK about no outstanding, undelivered PSN is void (MR-REL-23) */
	if (!e) {
		sb->st.ignored_nacks++;
		return MR_TXSB_IGNORED;
	}

	switch (nkh->reason) {
	case MR_NACK_TRIMMED:
		/*
		 * A switch cut the payload; the header reached the
		 * responder.  Lost at once, no RACK wait (MR-LOSS-10); the
		 * caller signals congestion to cc and path (MR-CC-9).
		 */
		if (!nack_current(sb, e, ack->ts_echo))
			break;
		mark_lost(sb, e, res);
		sb->st.lost_other++;
		sb->st.trims++;
		return MR_TXSB_TRIMMED;
	case MR_NACK_RNR:
		/*
		 * The responder NACKs each packet it refuses (MR-VERBS-19,
		 * MR-REL-17), so one refusal of an N-packet message brings
		 * up to N NACKs for consecutive PSNs.  The running pause
		 * resends from pause_psn on: a NACK for a PSN at or after it
		 * belongs to that episode and is no further retry, a no-op
		 * as for RESOURCE (MR-RETRY-10).  An earlier PSN is a new
		 * refusal and counts (MR-RETRY-5).
		 */
		if ((sb->rnr_wait && !mr_psn_before(nack_psn, sb->pause_psn)) ||
		    !nack_current(sb, e, ack->ts_echo))
			break;
		/*
		 * rnr_retry retries, one per pause, 7 = infinite; the count
		 * resets when the RNR'd PSN is delivered (MR-RETRY-5).
		 */
		if (sb->p.rnr_retry != MR_RNR_RETRY_INFINITE &&
		    sb->rnr_count >= sb->p.rnr_retry) {
			sb->failed = true;
			return MR_TXSB_RNR_RETRY_EXCEEDED;
		}
		sb->rnr_count++;
		sb->rnr_active = true;
		sb->rnr_psn = nack_psn;
		sb->st.rnr++;
		/*
		 * Pause all sending for the RNR delay (MR-RETRY-6); the RTO
		 * does not run meanwhile (MR-RETRY-8).  mr_txsb_on_timer()
		 * then declares the packets lost.
		 */
		txsb_pause(sb, nack_psn, nkh->rnr_timer, now_ns, res);
		return MR_TXSB_RNR_WAIT;
	case MR_NACK_RESOURCE:
		/* a repeat for the PSN the pause already covers: no-op */
		if ((sb->rnr_wait && !mr_psn_before(nack_psn, sb->pause_psn)) ||
		    !nack_current(sb, e, ack->ts_echo))
			break;
		/*
		 * The responder lacked room for the request: no loss, no
		 * congestion, but no progress either.  Charged to the retry
		 * budget as an RTO expiry is, at most once per T_verbs
		 * (MR-RETRY-10), so a responder that never finds room fails
		 * the QP in the time a dead path would.
		 */
		if (count_expiry(sb, now_ns)) {
			sb->failed = true;
			return MR_TXSB_RETRY_EXCEEDED;
		}
		sb->st.resource++;
		txsb_pause(sb, nack_psn, nkh->rnr_timer, now_ns, res);
		return MR_TXSB_RESOURCE_WAIT;
	case MR_NACK_SEQ_ERR:
		/*
		 * The responder saw a PSN beyond its window; the AKH already
		 * told what it holds, selective repeat needs no go-back:
		 * count only (MR-REL-23).
		 */
		sb->st.seq_err++;
		return MR_TXSB_SEQ_ERR;
	case MR_NACK_REMOTE_ACCESS:
	case MR_NACK_INVALID_REQ:
	case MR_NACK_REMOTE_OP:
		/* fatal NACKs name the responder's cum_psn (MR-REL-18/23) */
		if (nack_psn != ack->cum_psn)
			break;
		sb->failed = true;
		if (nkh->reason == MR_NACK_REMOTE_ACCESS)
			return MR_TXSB_REM_ACCESS_ERR;
		if (nkh->reason == MR_NACK_INVALID_REQ)
			return MR_TXSB_REM_INV_REQ;
		return MR_TXSB_REM_OP_ERR;
	default:
		/* decode rejects unknown reasons; defensive */
		return MR_TXSB_NACK_UNKNOWN;
	}
	sb->st.ignored_nacks++;
	return MR_TXSB_IGNORED;
}

u64 mr_txsb_next_deadline(const struct mr_txsb *sb)
{
	u64 t = MR_TIME_NEVER;

	if (sb->failed)
		return t;
	if (sb->rnr_wait)
		t = sb->rnr_until_ns;
	if (sb->reo_deadline_ns && sb->reo_deadline_ns < t)
		t = sb->reo_deadline_ns;
	if (sb->una != sb->nxt && mr_txsb_inflight(sb)) {
		u64 rto = mr_txsb_rto(sb);
		u64 d = sb->rto_start_ns + rto;

		if (d < sb->rto_start_ns)
			d = MR_TIME_NEVER;
		if (d < t)
			t = d;
	}
	return t;
}

int mr_txsb_on_timer(struct mr_txsb *sb, u64 now_ns,
		     struct mr_txsb_result *res)
{
	u32 n, i;
	u64 d;

	res_init(sb, res);
	if (sb->failed)
		return MR_TXSB_OK;
	if (sb->rnr_wait && now_ns >= sb->rnr_until_ns) {
		/*
		 * End of the RNR pause: resend the RNR'd PSN and everything
		 * undelivered after it, which the responder may have refused
		 * too (MR-RETRY-6).
		 */
		sb->rnr_wait = false;
		lose_from(sb, sb->pause_psn, res);
	}
	if (sb->reo_deadline_ns && now_ns >= sb->reo_deadline_ns)
		rack_detect(sb, now_ns, res);

	/*
	 * The RTO only matters while something is presumed in the network;
	 * packets already declared lost wait for the sender, not the peer.
	 */
	if (sb->una == sb->nxt || !mr_txsb_inflight(sb) || sb->rto_held)
		return MR_TXSB_OK;
	d = sb->rto_start_ns + mr_txsb_rto(sb);
	if (d < sb->rto_start_ns || now_ns < d)
		return MR_TXSB_OK;

	sb->st.rto++;
	res->rto_fired = true;
	/* Retry budget (MR-RETRY-1). */
	if (count_expiry(sb, now_ns)) {
		sb->failed = true;
		return MR_TXSB_RETRY_EXCEEDED;
	}
	if (sb->backoff < 32)
		sb->backoff++;
	sb->rto_start_ns = now_ns;
	/*
	 * An episode of expiries without a delivering ACK is judged by its
	 * first expiry (MR-LOSS-15).
	 */
	if (!sb->rto_pending) {
		sb->rto_pending = true;
		sb->rto_ts = mr_txsb_stamp(sb, now_ns);
	}
	/* RFC 8985 6.3: on RTO every undelivered packet is lost */
	n = mr_txsb_outstanding(sb);
	for (i = 0; i < n; i++) {
		struct mr_txsb_ent *e = ent_of(sb, mr_psn_add(sb->una, i));

		if (e->flags & (MR_TXE_SACKED | MR_TXE_LOST))
			continue;
		mark_lost(sb, e, res);
		e->flags |= MR_TXE_RTO;
		sb->st.lost_rto++;
	}
	sb->reo_deadline_ns = 0;
	return MR_TXSB_OK;
}

bool mr_txsb_next_retx(const struct mr_txsb *sb, u64 now_ns, u32 *psn)
{
	u32 n = mr_txsb_outstanding(sb), i;

	if (!sb->n_lost || !mr_txsb_can_send(sb, now_ns))
		return false;
	for (i = 0; i < n; i++) {
		u32 p = mr_psn_add(sb->una, i);

		if (sb->ent[p & MR_TXSB_WIN_MASK].flags & MR_TXE_LOST) {
			*psn = p;
			return true;
		}
	}
	return false;
}

u32 mr_txsb_mark_path_lost(struct mr_txsb *sb, u8 path,
			   struct mr_txsb_result *res)
{
	u32 n = mr_txsb_outstanding(sb), i, cnt = 0;

	for (i = 0; i < n; i++) {
		struct mr_txsb_ent *e = ent_of(sb, mr_psn_add(sb->una, i));

		if (e->path != path ||
		    (e->flags & (MR_TXE_SACKED | MR_TXE_LOST)))
			continue;
		mark_lost(sb, e, res);
		sb->st.lost_other++;
		cnt++;
	}
	return cnt;
}

u64 mr_txsb_paths_in_flight(const struct mr_txsb *sb)
{
	u32 n = mr_txsb_outstanding(sb), i;
	u64 mask = 0;

	for (i = 0; i < n; i++) {
		const struct mr_txsb_ent *e =
			&sb->ent[(sb->una + i) & MR_TXSB_WIN_MASK];

		if (!(e->flags & (MR_TXE_SACKED | MR_TXE_LOST)))
			mask |= 1ULL << e->path;
	}
	return mask;
}
