/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE multipath: per-QP path table (MR-MP-1..13), following the
 * spec's path state table (MR-MP-17..26).
 *
 * A path is an index (carried in MBH.path, echoed by the responder) bound
 * to a 14-bit entropy value; the UDP source port 0xC000 | entropy steers
 * ECMP hashing in the fabric.  Packets are sprayed per packet by smooth
 * weighted round robin over healthy paths.  Health per path: EWMA of the
 * CE fraction, srtt, loss and trim counts, last delivery.  A path that is
 * congested for several rounds in a row (PLB-style) or that saw an RTO is
 * re-rolled to a new random entropy; a path with nothing delivered for k
 * RTOs while packets were sent on it is declared dead (the caller
 * retransmits its packets elsewhere, mr_txsb_mark_path_lost()) and is
 * probed until a PROBE_REPLY revives it.  Single-path mode uses one
 * entropy for the whole QP, like RoCE, and never re-rolls.
 *
 * Randomness comes from a caller-supplied generator; no globals.
 */
#ifndef MR_PROTO_PATH_H
#define MR_PROTO_PATH_H

#include "compat.h"

#define MR_PATH_MAX		64
#define MR_PATH_DEFAULT		16
#define MR_PATH_ENTROPY_MASK	0x3FFF
#define MR_PATH_SPORT_BASE	0xC000
#define MR_PATH_FP_ONE		(1U << 16)	/* fixed point 1.0 */
/* unanswered PROBEs in a row double the spacing, up to 2^this times */
#define MR_PATH_PROBE_BACKOFF_MAX	6
/* and past it while the spacing is below RTO_base, up to this (MR-MP-24) */
#define MR_PATH_PROBE_BACKOFF_LIMIT	24

enum mr_path_state {
	MR_PATH_ACTIVE = 0,	/* healthy, full weight */
	MR_PATH_SUSPECT = 1,	/* congested last round or just revived */
	MR_PATH_DEAD = 2,	/* no delivery for k RTOs: not used, probed */
};

struct mr_path_params {
	u8 n_paths;		/* 1..MR_PATH_MAX */
	bool single;		/* single-path (RoCE-like) mode */
	u8 weight_active;	/* WRR weight of a clean ACTIVE path */
	u8 weight_suspect;	/* WRR weight of a SUSPECT path */
	u8 ecn_g_shift;		/* EWMA gain 2^-shift of the CE fraction */
	u32 ecn_thresh;		/* CE fraction making a round congested */
	u32 ecn_rel;		/* ... or this much above the coolest path's EWMA */
	u32 loss_thresh;	/* loss fraction making a round congested */
	u32 trim_thresh;	/* trims per round making it congested */
	u8 reroll_rounds;	/* consecutive congested rounds -> re-roll */
	u32 round_min_pkts;	/* packets accounted before a round closes */
	u64 round_min_ns;	/* round length floor (also before srtt) */
	u8 dead_rtos;		/* k: RTOs without delivery -> DEAD */
	u8 dead_min_pkts;	/* ... and at least this many sent since */
	u64 probe_interval_ns;	/* PROBE spacing for a DEAD path */
	u64 explore_ns;		/* one exploratory re-roll per this; 0: off */
};

struct mr_path {
	u64 last_delivery_ns;
	/*
	 * the latest ACK, NACK or response that echoed the path (MR-HDR-6)
	 * since its last re-roll, 0 if none (MR-MP-33)
	 */
	u64 last_answer_ns;
	u64 pending_since_ns;	/* first send after the last delivery */
	bool pending;
	bool quiet;		/* pending, nothing in flight since quiet_since_ns */
	u64 quiet_since_ns;
	u32 sent_since;		/* packets sent since the last delivery */
	u64 round_start_ns;
	u64 last_event_ns;	/* events at one instant share a round */
	u64 next_probe_ns;
	u64 srtt_ns;		/* 0: no sample yet */
	u32 ecn_frac;		/* EWMA CE fraction, fixed point */
	/* current round */
	u32 r_pkts;		/* packets seen by the responder (AKH) */
	u32 r_ce;
	u32 r_delivered;
	u32 r_lost;
	u32 r_trims;
	/* totals */
	u64 delivered;
	u64 losses;
	u64 trims;
	u32 rerolls;
	u32 deaths;
	/* the last death's evidence (MR-MP-8): time pending, packets sent */
	u64 death_wait_ns;
	u32 death_sent;
	s32 wrr_cur;		/* smooth WRR credit */
	u16 entropy;		/* 14 bits */
	u8 state;		/* enum mr_path_state */
	u8 bad_rounds;		/* consecutive congested rounds */
	u8 rounds;		/* rounds closed since the last re-roll (sat.) */
	u8 hot_rounds;		/* consecutive rounds much hotter than the coolest */
	bool probe_out;		/* a PROBE is unanswered */
	u8 probe_misses;	/* PROBEs in a row that went unanswered */
	u32 probe_id;		/* MBH.psn of the outstanding PROBE */
	u32 probe_ts;		/* MBH.ts of the outstanding PROBE */
};

struct mr_path_table {
	struct mr_path_params p;
	u32 (*rand)(void *ctx);	/* caller's random source */
	void *rand_ctx;
	u8 n;			/* paths in use */
	u64 explored_ns;	/* the last exploration (MR-MP-32) */
	u64 explores;
	u64 rerolls;		/* every re-roll, explorations included */
	u64 deaths;
	u64 revivals;
	struct mr_path path[MR_PATH_MAX];
};

/* never below this (MR-MP-32): bounds the churn a setting can cause */
#define MR_PATH_EXPLORE_MIN_NS	(10ULL * 1000 * 1000)

/* Defaults, reasoning in path.c. */
void mr_path_default_params(struct mr_path_params *p);
/*
 * Set up the table with distinct random entropies drawn from @rand.
 * 0 or MR_ERR_INVAL.  In single-path mode n_paths is forced to 1.
 */
int mr_path_init(struct mr_path_table *pt, const struct mr_path_params *p,
		 u32 (*rand)(void *ctx), void *rand_ctx, u64 now_ns);

/* Pick the path for the next data packet (WRR over healthy paths). */
u8 mr_path_pick(struct mr_path_table *pt);
/* Pick a usable path other than @avoid if there is one (retransmits). */
u8 mr_path_pick_other(struct mr_path_table *pt, u8 avoid);
/*
 * Pick, for a retransmission in an RTO episode (MR-MP-33), the usable
 * path other than @avoid whose current entropy was answered most
 * recently (both its routes worked then); mr_path_pick_other() if no
 * such path has been answered since its last re-roll.
 */
u8 mr_path_pick_answered(struct mr_path_table *pt, u8 avoid);

static inline u16 mr_path_entropy(const struct mr_path_table *pt, u8 idx)
{
	return pt->path[idx].entropy;
}

/* UDP source port for @idx (MR-ENC-2, MR-MP-2). */
static inline u16 mr_path_sport(const struct mr_path_table *pt, u8 idx)
{
	return MR_PATH_SPORT_BASE | pt->path[idx].entropy;
}

/*
 * The responder's entropy for the ACK, NACK, READ_RESP, ATOMIC_RESP and
 * PROBE_REPLY it sends on the peer's path @path, whose latest packet came
 * with entropy @req_entropy (low 14 bits of its UDP source port), on QP
 * @qpn (MR-MP-15): fixed while the peer keeps the path's entropy, so the
 * reverse route is as stable as the forward one, and distinct for each
 * entropy of one path (0x5bd1 is odd), so every re-roll of the path by
 * the peer moves its reverse route too (MR-MP-20).
 */
static inline u16 mr_path_reply_entropy(u32 qpn, u8 path, u16 req_entropy)
{
	return (u16)((qpn * 0x9e37U + path * 0x2f1U +
		      (u32)(req_entropy & MR_PATH_ENTROPY_MASK) * 0x5bd1U) &
		     MR_PATH_ENTROPY_MASK);
}

/* Override an entropy (e.g. a RoCE-style flow hash); 0 or MR_ERR_INVAL. */
int mr_path_set_entropy(struct mr_path_table *pt, u8 idx, u16 entropy);

/* A packet was sent on @idx. */
void mr_path_on_send(struct mr_path_table *pt, u8 idx, u64 now_ns);
/* @n packets last sent on @idx were delivered (cum or SACK). */
void mr_path_on_delivery(struct mr_path_table *pt, u8 idx, u32 n,
			 u64 now_ns);
/*
 * Per-path ACK signals: an ACK echoing path @idx (MBH.path of the ACK)
 * carried @ce / @pkts and an RTT sample @rtt_ns (0: none).
 */
void mr_path_on_ack(struct mr_path_table *pt, u8 idx, u32 ce, u32 pkts,
		    u64 rtt_ns, u64 now_ns);
/* A READ_RESP or ATOMIC_RESP echoing path @idx arrived (MR-MP-33). */
void mr_path_on_answer(struct mr_path_table *pt, u8 idx, u64 now_ns);
/* @n packets last sent on @idx were declared lost. */
void mr_path_on_loss(struct mr_path_table *pt, u8 idx, u32 n, u64 now_ns);
/* A trimmed NACK for a packet sent on @idx. */
void mr_path_on_trim(struct mr_path_table *pt, u8 idx, u64 now_ns);
/*
 * The QP's RTO fired while paths @mask had packets in flight: re-roll
 * them (PLB: a timeout means the route is bad, MR-MP-23), DEAD ones only
 * when no path is usable (MR-MP-12).  First, paths pending with no
 * other path's delivery later than @rtt_ns (the QP's minimum RTT, 0
 * before its first sample) after their pending_since stop being pending
 * (MR-MP-30).  Returns paths re-rolled.
 */
u64 mr_path_on_rto(struct mr_path_table *pt, u64 mask, u64 rtt_ns,
		   u64 now_ns);
/*
 * Periodic check (MR-MP-8): a path in @inflight_mask (packets in flight on
 * it, mr_txsb_paths_in_flight()) with nothing delivered for more than
 * dead_rtos * @rto_ns (the RTO without backoff, mr_txsb_base_rto()) since the first packet sent on it after its last
 * delivery, and at least dead_min_pkts sent since, becomes DEAD
 * (re-rolled, probing scheduled).  Returns the mask of newly dead paths:
 * the caller marks their packets lost in the scoreboard so they go out on
 * other paths.  Never in single-path mode.  A pending path out of
 * @inflight_mask for more than @rto_ns stops being pending (MR-MP-29):
 * call it before the run's sends.  Also closes rounds that are due, so
 * call it at least about once per RTT.  At most once per explore_ns, if
 * every path is marked, it re-rolls the hottest ACTIVE path (MR-MP-32;
 * counted in explores and rerolls).  Deaths only if @judge: a caller
 * leaves them, as the RTO, to the run of its timer, which it arms at
 * mr_path_dead_deadline() (MR-LOSS-7).
 */
u64 mr_path_tick(struct mr_path_table *pt, u64 inflight_mask, u64 rto_ns,
		 u64 now_ns, bool judge);

/*
 * When mr_path_tick() with the same @inflight_mask and @rto_ns would
 * first declare a path DEAD (MR-MP-8), as things stand; ~0: no path
 * could.
 */
u64 mr_path_dead_deadline(const struct mr_path_table *pt, u64 inflight_mask,
			  u64 rto_ns);

/* probe_reply_rate's default: one PROBE_REPLY per QP per 50 us (MR-MP-10). */
#define MR_PROBE_REPLY_GAP_NS		(50ULL * 1000)

/*
 * The replier's side of MR-MP-10, at most one reply per @gap_ns
 * (probe_reply_rate). @next_ns: when this QP may reply next (0 at
 * start). If a reply may go at @now_ns, fills @r with it (MBH only:
 * path, PSN and timestamp of @probe, no flags; the caller sets the QPNs
 * and sends it on a path of its own choosing), moves *@next_ns on and
 * returns true; else false and the PROBE is dropped.
 */
struct mr_pkt;
bool mr_probe_reply(const struct mr_pkt *probe, u64 now_ns, u64 gap_ns,
		    u64 *next_ns, struct mr_pkt *r);

/* A DEAD path whose PROBE is due; false if none. */
bool mr_path_probe_due(const struct mr_path_table *pt, u64 now_ns,
		       u8 *idx);
/* When the next PROBE is due (timer arming); ~0ULL if no path is DEAD. */
u64 mr_path_next_probe_ns(const struct mr_path_table *pt);
/*
 * Call right before sending the PROBE for @idx with identifier @probe_id
 * (its MBH.psn) and timestamp @ts (its MBH.ts): if the previous probe is
 * unanswered it moves the path to a new entropy first (MR-MP-9), so build
 * the probe with mr_path_sport() afterwards.  Each unanswered probe in a
 * row doubles the time to the next one, up to probe_interval <<
 * MR_PATH_PROBE_BACKOFF_MAX or until it reaches @rto_ns (the QP's
 * RTO_base), whichever is later: a probe is only replaced once it had
 * time to be answered, also when the round trip exceeds probe_interval
 * many times over (MR-MP-24).
 */
void mr_path_on_probe_sent(struct mr_path_table *pt, u8 idx, u32 probe_id,
			   u32 ts, u64 rto_ns, u64 now_ns);
/*
 * PROBE_REPLY for @idx echoing @probe_id and @ts: if it matches the
 * outstanding PROBE of a DEAD path, the path works again (SUSPECT, then
 * ACTIVE after a clean round) and true is returned; otherwise false
 * (drop and count, MR-MP-11).
 */
bool mr_path_on_probe_reply(struct mr_path_table *pt, u8 idx, u32 probe_id,
			    u32 ts, u64 rtt_ns, u64 now_ns);

/* Force a re-roll of @idx (returns false in single-path mode). */
bool mr_path_reroll(struct mr_path_table *pt, u8 idx, u64 now_ns);
/*
 * The answer to a READ or atomic sent on @idx stalled for an RTO after
 * its request was delivered: @idx's reverse route fails while its
 * forward route delivers, which nothing else notices (MR-MP-34). Re-rolls
 * @idx unless it is DEAD; returns whether it did.
 */
bool mr_path_on_answer_stall(struct mr_path_table *pt, u8 idx, u64 now_ns);
/* Number of paths not DEAD. */
u32 mr_path_usable(const struct mr_path_table *pt);

#endif /* MR_PROTO_PATH_H */
