/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE per-QP congestion control (MR-CC-2..18).
 *
 * Window based, in packets, with a pacing rate derived from cwnd/srtt.
 * Two congestion signals are combined, the stronger one wins:
 *  - DCTCP: alpha = EWMA (g = 1/16) of the fraction of CE-marked packets
 *    per window of data; on CE, cwnd *= 1 - alpha/2;
 *  - Swift: delay target = base_rtt + max(fixed + per-hop, base_rtt *
 *    target_base) + flow scaling; while the smallest RTT sample of the
 *    last round (one srtt) is above target, cwnd is cut by beta *
 *    (rtt - target) / rtt, capped by max_mdf (MR-CC-6, MR-CC-7).
 * Decreases happen at most once per RTT; without a signal the window grows
 * additively (ai packets per RTT).  Trimmed NACKs are congestion signals
 * too; a loss is one in full only with other evidence of congestion and
 * cuts gently otherwise (MR-CC-10).  An RTO collapses the window to one
 * packet and slow-starts back to half the window it cut, or is undone
 * when it proves spurious (MR-CC-11); a receiver credit (AKH.credit)
 * caps the window.
 *
 * Fixed point: windows, fractions and gains are in units of 1/65536
 * (MR_CC_ONE); no floating point (kernel).
 */
#ifndef MR_PROTO_CC_H
#define MR_PROTO_CC_H

#include "compat.h"

#define MR_CC_SHIFT	16
#define MR_CC_ONE	(1U << MR_CC_SHIFT)	/* 1 packet / fraction 1.0 */
#define MR_CC_PKTS(n)	((u32)(n) << MR_CC_SHIFT)
/* AKH.credit value meaning "no limit" (same as MR_CREDIT_UNLIMITED). */
#define MR_CC_NO_CREDIT	0xFFFFFFFFU

enum mr_cc_mode {
	MR_CC_FIXED = 0,	/* fixed window, no pacing: comparison mode */
	MR_CC_DCTCP_SWIFT = 1,	/* ECN + delay, the default */
};

struct mr_cc_params {
	u8 mode;		/* enum mr_cc_mode */
	bool use_ecn;		/* DCTCP part */
	bool use_delay;		/* Swift part */
	u8 g_shift;		/* DCTCP g = 2^-g_shift */
	u32 init_cwnd;		/* fixed point packets */
	u32 min_cwnd;		/* fixed point packets, > 0 */
	u32 max_cwnd;		/* fixed point packets */
	u32 fixed_cwnd;		/* MR_CC_FIXED window */
	u32 ai;			/* additive increase per RTT, fixed point */
	u32 beta;		/* Swift decrease gain, fixed point */
	u32 max_mdf;		/* largest decrease fraction per cut */
	u32 loss_mdf;		/* decrease on loss with congestion evidence */
	u32 loss_rand_mdf;	/* decrease on loss without (MR-CC-10) */
	u32 loss_burst;		/* loss fraction that is evidence by itself */
	u32 trim_mdf;		/* decrease fraction on a trimmed NACK */
	u32 target_fixed_ns;	/* Swift target: base_rtt + this ... */
	u32 target_per_hop_ns;	/* ... + hops * this, or ... */
	u8 hops;
	u32 target_base;	/* ... base_rtt * this if more, fixed point */
	u32 fs_range_ns;	/* ... + flow scaling in [0, fs_range] */
	u32 fs_min_cwnd;	/* cwnd at which flow scaling is full */
	u32 fs_max_cwnd;	/* cwnd at which flow scaling is zero */
	u32 pacing_gain;	/* rate = gain * cwnd / srtt; 0 = no pacing */
	u32 pacing_slack_ns;	/* lateness the schedule absorbs (MR-CC-12) */
};

struct mr_cc_stats {
	u64 cuts_ecn;		/* decreases driven by CE */
	u64 cuts_delay;		/* decreases driven by the delay target */
	u64 cuts_loss;		/* all decreases driven by loss ... */
	u64 cuts_loss_rand;	/* ... of which without congestion evidence */
	u64 cuts_trim;
	u64 rtos;
	u64 rto_undos;		/* spurious RTOs undone */
	u64 alpha_updates;	/* closed DCTCP observation windows */
};

struct mr_cc {
	struct mr_cc_params p;
	u32 cwnd;		/* fixed point packets */
	u32 ssthresh;		/* slow start below this; 0: none */
	u32 credit;		/* packets, MR_CC_NO_CREDIT = none */
	u32 alpha;		/* DCTCP alpha, fixed point fraction */
	/* DCTCP observation window */
	u32 win_ce;
	u32 win_pkts;
	u32 win_acked;
	u32 win_len;		/* packets to deliver until alpha update */
	/* RTT */
	bool rtt_valid;
	u64 srtt_ns;
	u64 base_rtt_ns;
	u64 last_rtt_ns;
	/* delay signal: smallest RTT sample of the current round (MR-CC-7) */
	bool dly_valid;
	u64 dly_start_ns;
	u64 dly_min_ns;
	u64 dly_rtt_ns;		/* that of the last closed round, 0: none */
	/* once-per-RTT decrease gate */
	bool cut_valid;
	u64 last_cut_ns;
	/* last CE, trim or delay above target: corroborates a loss */
	bool cong_valid;
	u64 cong_ns;
	/* loss fraction: packets lost / (delivered + lost), two rounds */
	u64 rnd_start_ns;
	u32 rnd_lost, rnd_total;
	u32 prev_lost, prev_total;
	/* RTO: state before the episode's first expiry, for the undo */
	bool rto_valid;		/* an RTO happened, rto_ns valid */
	bool rto_episode;	/* no delivery since the last RTO */
	bool undo_valid;
	u64 rto_ns;
	u32 undo_cwnd;
	u32 undo_ssthresh;
	bool undo_cut_valid;
	u64 undo_last_cut_ns;
	/*
	 * Loss/trim signals and growth of the current instant: the signals
	 * of one ACK may be fed in any order without the window growing
	 * while a signal is present (MR-CC-8).
	 */
	bool sig_valid;
	u64 sig_ns;
	u64 grow_ns;
	u32 grow;		/* growth applied at grow_ns */
	/* pacing */
	u64 next_send_ns;
	struct mr_cc_stats st;
};

/* Defaults with the reasoning in cc.c. */
void mr_cc_default_params(struct mr_cc_params *p);
/* 0 or MR_ERR_INVAL (inconsistent parameters). */
int mr_cc_init(struct mr_cc *cc, const struct mr_cc_params *p);

/*
 * Feedback from one ACK: @acked packets newly delivered (cum + SACK),
 * @ce_count / @pkt_count from the AKH, @rtt_ns an RTT sample (0: none),
 * @credit the AKH grant (MR_CC_NO_CREDIT: no limit; for a stale ACK,
 * mr_txsb_result.stale, pass cc->credit: its grant is ignored, MR-REL-20).
 */
void mr_cc_on_ack(struct mr_cc *cc, u64 now_ns, u32 acked, u32 ce_count,
		  u32 pkt_count, u64 rtt_ns, u32 credit);
/*
 * @n packets declared lost (RACK); one decrease per RTT at most, by
 * loss_mdf with congestion evidence, else by loss_rand_mdf (MR-CC-10).
 * The loss and trim signals of an ACK may be given before or after its
 * mr_cc_on_ack(): either way the window does not grow on that ACK.
 */
void mr_cc_on_loss(struct mr_cc *cc, u64 now_ns, u32 n);
/* A trimmed NACK: a switch queue overflowed on this QP's path. */
void mr_cc_on_trim(struct mr_cc *cc, u64 now_ns);
/*
 * RTO expiry: collapse to one packet, slow start up to half the window
 * before the episode's first expiry (MR-CC-11).
 */
void mr_cc_on_rto(struct mr_cc *cc, u64 now_ns);
/*
 * The scoreboard proved the last RTO episode spurious
 * (mr_txsb_result.rto_undone, MR-LOSS-15): restore the window, slow
 * start threshold and decrease gate from before its first expiry.  Call
 * it before the mr_cc_on_ack() and mr_cc_on_loss() of the same ACK.
 */
void mr_cc_on_rto_undo(struct mr_cc *cc, u64 now_ns);
/* A packet (new or retransmitted) left at @now_ns: advance pacing. */
void mr_cc_on_send(struct mr_cc *cc, u64 now_ns);

/* Effective window (cwnd capped by credit), fixed point packets. */
u32 mr_cc_window(const struct mr_cc *cc);
/* Delay target in ns (0 before the first RTT sample). */
u64 mr_cc_target_ns(const struct mr_cc *cc);
/* Pacing gap between packets in ns, 0 if not pacing. */
u64 mr_cc_pacing_gap(const struct mr_cc *cc);
/*
 * Pacing gap of the READ responses a responder sends on this QP
 * (MR-CC-19): its window over srtt as for requests, the window never
 * taken below init_cwnd. The requester governs how much READ data is in
 * flight towards it (MR-CC-15) and asks again for what stalls for one
 * of its RTOs; pacing at a window the responder cut for its own
 * requests (down to one packet after an RTO) would space responses
 * further apart than that RTO, and every READ would stall and fail.
 */
u64 mr_cc_resp_gap(const struct mr_cc *cc);
/* Earliest time the next packet may leave (pacing). */
u64 mr_cc_next_send_ns(const struct mr_cc *cc);
/*
 * May a packet be sent now with @inflight packets in the network?  The
 * pacer spaces the packets of a flight: with nothing in flight and a
 * window of at least one packet, a packet goes at once (MR-CC-12).
 */
bool mr_cc_can_send(const struct mr_cc *cc, u64 now_ns, u32 inflight);

#endif /* MR_PROTO_CC_H */
