// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE multipath path table: spraying, PLB-style re-rolls, dead-path
 * detection and probing (MR-MP-1..13).  See path.h.
 */
#include "path.h"
#include "wire.h"

#define FP_ONE	MR_PATH_FP_ONE

void mr_path_default_params(struct mr_path_params *p)
{
	memset(p, 0, sizeof(*p));
	p->n_paths = MR_PATH_DEFAULT;
	/*
	 * A SUSPECT path keeps a quarter of a clean path's share: enough
	 * traffic to prove itself healthy again, little exposure if not.
	 */
	p->weight_active = 4;
	p->weight_suspect = 1;
	/* per-round EWMA of the CE fraction: reacts within a few rounds */
	p->ecn_g_shift = 2;
	/* PLB's K: a round is congested if half its packets saw CE */
	p->ecn_thresh = FP_ONE / 2;
	/*
	 * MR-MP-27: a path this much (plus twice the coolest's EWMA) above
	 * the coolest path is on a busier route; an eighth is above the
	 * noise of a CE fraction over a round's ~8 packets.
	 */
	p->ecn_rel = FP_ONE / 8;
	/*
	 * A quarter of a round lost is far above random corruption loss
	 * (~1e-4 .. 1e-2) and signals a broken or overloaded route.
	 */
	p->loss_thresh = FP_ONE / 4;
	/* one trim means the path's queue hit the trim threshold */
	p->trim_thresh = 1;
	/* PLB's M: re-roll after 3 consecutive congested rounds */
	p->reroll_rounds = 3;
	/* enough packets for the fractions above to mean something */
	p->round_min_pkts = 8;
	p->round_min_ns = 20000;
	/*
	 * Dead after 3 RTOs without delivery: one RTO may be a tail loss,
	 * three in a row with packets in flight is a black hole.
	 */
	p->dead_rtos = 3;
	/*
	 * ...and at least 6 packets sent into it meanwhile: a path carrying
	 * one packet per RTO (small cwnd spread over many paths) would
	 * otherwise die of two random losses in a row.  Counting losses,
	 * trims and late copies retransmitted elsewhere (credited to the
	 * other path), ~7% of a lossy path's packets are not credited to
	 * it; 6 in a row happen with probability ~1e-7.  This guard is an
	 * addition to MR-MP-8; dead_min_pkts = 1 gives the literal rule.
	 */
	p->dead_min_pkts = 6;
	p->probe_interval_ns = 500000;
	/*
	 * MR-MP-32: every other rule moves a path only away from a route,
	 * so a route that healed, or that no entropy hashed onto, stays
	 * idle.  One re-roll per 50 ms puts each of 16 paths on a fresh
	 * draw every 0.8 s: a healed route regains its share within a
	 * second or two, while a path keeps its entropy for thousands of
	 * round trips of a data-centre fabric.
	 */
	p->explore_ns = 50ULL * 1000 * 1000;
}

/*
 * Draw an entropy value different from every path's current one (the
 * re-rolled path's included); after 16 collisions take the last draw.
 */
static u16 new_entropy(struct mr_path_table *pt)
{
	u16 e = 0;
	int tries, i;

	for (tries = 0; tries < 16; tries++) {
		bool dup = false;

		e = pt->rand(pt->rand_ctx) & MR_PATH_ENTROPY_MASK;
		for (i = 0; i < pt->n; i++) {
			if (pt->path[i].entropy == e) {
				dup = true;
				break;
			}
		}
		if (!dup)
			break;
	}
	return e;
}

static void round_reset(struct mr_path *p, u64 now)
{
	p->r_pkts = 0;
	p->r_ce = 0;
	p->r_delivered = 0;
	p->r_lost = 0;
	p->r_trims = 0;
	p->round_start_ns = now;
}

int mr_path_init(struct mr_path_table *pt, const struct mr_path_params *p,
		 u32 (*rand)(void *ctx), void *rand_ctx, u64 now_ns)
{
	int i;

	if (!rand || (!p->single && (p->n_paths == 0 ||
				     p->n_paths > MR_PATH_MAX)) ||
	    p->weight_active == 0 || p->weight_suspect == 0 ||
	    p->weight_suspect > p->weight_active || p->ecn_g_shift > 16 ||
	    p->reroll_rounds == 0 || p->dead_rtos == 0 ||
	    (p->explore_ns && p->explore_ns < MR_PATH_EXPLORE_MIN_NS))
		return MR_ERR_INVAL;
	memset(pt, 0, sizeof(*pt));
	pt->p = *p;
	pt->rand = rand;
	pt->rand_ctx = rand_ctx;
	pt->n = p->single ? 1 : p->n_paths;
	pt->p.n_paths = pt->n;
	pt->explored_ns = now_ns;
	for (i = 0; i < pt->n; i++)
		pt->path[i].entropy = 0xFFFF;
	for (i = 0; i < pt->n; i++) {
		struct mr_path *x = &pt->path[i];

		/* paths not drawn yet hold 0xFFFF, never a valid entropy */
		x->entropy = new_entropy(pt);
		x->state = MR_PATH_ACTIVE;
		x->last_delivery_ns = now_ns;
		round_reset(x, now_ns);
	}
	return 0;
}

int mr_path_set_entropy(struct mr_path_table *pt, u8 idx, u16 entropy)
{
	if (idx >= pt->n || entropy > MR_PATH_ENTROPY_MASK)
		return MR_ERR_INVAL;
	pt->path[idx].entropy = entropy;
	return 0;
}

/*
 * WRR weight (MR-MP-4): the state's weight times (1 - CE EWMA / 2), in
 * 1/256 units so that the CE scaling has steps; never 0 for a usable path.
 */
static u32 weight(const struct mr_path_table *pt, const struct mr_path *p)
{
	u32 w;

	switch (p->state) {
	case MR_PATH_ACTIVE:
		w = pt->p.weight_active;
		break;
	case MR_PATH_SUSPECT:
		w = pt->p.weight_suspect;
		break;
	default:
		return 0;
	}
	w <<= 8;
	return MR_MAX(1U, (u32)(((u64)w *
				 (FP_ONE - MR_MIN(p->ecn_frac, FP_ONE) / 2)) >> 16));
}

/* Smooth weighted round robin (each pick: +weight, winner -total). */
static int wrr(struct mr_path_table *pt, int avoid)
{
	s32 total = 0;
	int i, best = -1;

	for (i = 0; i < pt->n; i++) {
		struct mr_path *p = &pt->path[i];
		u32 w;

		if (i == avoid)
			continue;
		w = weight(pt, p);
		if (!w)
			continue;
		p->wrr_cur += (s32)w;
		total += (s32)w;
		if (best < 0 || p->wrr_cur > pt->path[best].wrr_cur)
			best = i;
	}
	if (best >= 0)
		pt->path[best].wrr_cur -= total;
	return best;
}

/* All paths dead: keep sending on the one that delivered most recently. */
static u8 fallback(const struct mr_path_table *pt)
{
	int i, best = 0;

	for (i = 1; i < pt->n; i++)
		if (pt->path[i].last_delivery_ns >
		    pt->path[best].last_delivery_ns)
			best = i;
	return (u8)best;
}

u8 mr_path_pick(struct mr_path_table *pt)
{
	int i;

	if (pt->n == 1)
		return 0;
	i = wrr(pt, -1);
	return i >= 0 ? (u8)i : fallback(pt);
}

u8 mr_path_pick_other(struct mr_path_table *pt, u8 avoid)
{
	int i;

	if (pt->n == 1)
		return 0;
	i = wrr(pt, avoid);
	return i >= 0 ? (u8)i : mr_path_pick(pt);
}

/*
 * MR-MP-33: after an RTO the window is one packet, and its answer
 * restarts the ACK clock (MR-LOSS-15).  A path picked by weight lands
 * on a broken route as often as the route's share, whether the route
 * fails forward or in reverse (where cumulative ACKs on other paths keep
 * crediting it, MR-MP-19), and every miss doubles the RTO.  The path
 * answered last had both its routes working then.  Linear in the paths,
 * once per expiry.
 */
u8 mr_path_pick_answered(struct mr_path_table *pt, u8 avoid)
{
	int i, best = -1;

	for (i = 0; i < pt->n; i++) {
		const struct mr_path *p = &pt->path[i];

		if (i == avoid || p->state == MR_PATH_DEAD ||
		    !p->last_answer_ns)
			continue;
		if (best < 0 ||
		    p->last_answer_ns > pt->path[best].last_answer_ns)
			best = i;
	}
	return best >= 0 ? (u8)best : mr_path_pick_other(pt, avoid);
}

static void reroll(struct mr_path_table *pt, struct mr_path *p, u64 now)
{
	p->entropy = new_entropy(pt);
	p->last_answer_ns = 0;
	p->ecn_frac = 0;
	p->srtt_ns = 0;
	p->bad_rounds = 0;
	p->rounds = 0;
	p->hot_rounds = 0;
	p->rerolls++;
	pt->rerolls++;
	if (p->state != MR_PATH_DEAD)
		p->state = MR_PATH_ACTIVE;
	round_reset(p, now);
}

bool mr_path_reroll(struct mr_path_table *pt, u8 idx, u64 now_ns)
{
	if (pt->p.single || idx >= pt->n)
		return false;
	reroll(pt, &pt->path[idx], now_ns);
	return true;
}

bool mr_path_on_answer_stall(struct mr_path_table *pt, u8 idx, u64 now_ns)
{
	/* A DEAD path is its probes' to re-roll (MR-MP-9). */
	if (idx >= pt->n || pt->path[idx].state == MR_PATH_DEAD)
		return false;
	return mr_path_reroll(pt, idx, now_ns);
}

/*
 * The CE EWMA of the coolest usable path that has closed two rounds
 * since its last re-roll (a fresh EWMA starts at 0 and says nothing
 * yet), or ~0 if there is none (MR-MP-27).
 */
static u32 coolest_ecn(const struct mr_path_table *pt)
{
	u32 best = ~0U;
	int i;

	for (i = 0; i < pt->n; i++) {
		const struct mr_path *q = &pt->path[i];

		if (q->state != MR_PATH_DEAD && q->rounds >= 2 &&
		    q->ecn_frac < best)
			best = q->ecn_frac;
	}
	return best;
}

/*
 * Close the path's round once it lasted an RTT and saw enough packets,
 * and judge it (PLB): congested rounds demote to SUSPECT; reroll_rounds
 * of them in a row re-roll the entropy (MR-MP-6/7), as do reroll_rounds
 * hot ones, much hotter than the QP's coolest path (MR-MP-27).  Called before an event's
 * counts are added (and from the tick), and never twice at the same
 * instant, so that all feedback of one ACK lands in the same round.
 */
static void round_check(struct mr_path_table *pt, struct mr_path *p, u64 now)
{
	u64 len = MR_MAX(pt->p.round_min_ns, p->srtt_ns);
	u32 seen = p->r_delivered + p->r_lost + p->r_trims;
	bool congested = false, hot = false;
	u32 f;

	if (now == p->last_event_ns)
		return;
	p->last_event_ns = now;
	if (now - p->round_start_ns < len || seen < pt->p.round_min_pkts)
		return;
	if (p->r_pkts) {
		f = (u32)mr_div64_u64((u64)MR_MIN(p->r_ce, p->r_pkts) << 16,
				      p->r_pkts);
		p->ecn_frac = p->ecn_frac - (p->ecn_frac >> pt->p.ecn_g_shift) +
			      (f >> pt->p.ecn_g_shift);
		if (f >= pt->p.ecn_thresh)
			congested = true;
		/*
		 * Relative: the path's route is much hotter than another
		 * of the QP's, whose spine has room (MR-MP-6).
		 */
		if (pt->p.ecn_rel && f >= pt->p.ecn_rel && p->rounds >= 2 &&
		    (u64)p->ecn_frac >= (u64)coolest_ecn(pt) * 2 + pt->p.ecn_rel)
			hot = true;
	}
	if (p->r_lost + p->r_delivered) {
		f = (u32)mr_div64_u64((u64)p->r_lost << 16,
				      p->r_lost + p->r_delivered);
		if (f > pt->p.loss_thresh)
			congested = true;
	}
	if (pt->p.trim_thresh && p->r_trims >= pt->p.trim_thresh)
		congested = true;

	round_reset(p, now);
	if (p->rounds < 255)
		p->rounds++;
	if (p->state == MR_PATH_DEAD)
		return;
	p->hot_rounds = hot ? p->hot_rounds + 1 : 0;
	if (!congested) {
		p->bad_rounds = 0;
		p->state = MR_PATH_ACTIVE;
		if (p->hot_rounds >= pt->p.reroll_rounds && !pt->p.single)
			reroll(pt, p, now);
		return;
	}
	if (++p->bad_rounds >= pt->p.reroll_rounds && !pt->p.single)
		reroll(pt, p, now);	/* resets the round again: harmless */
	else
		p->state = MR_PATH_SUSPECT;
}

void mr_path_on_send(struct mr_path_table *pt, u8 idx, u64 now_ns)
{
	struct mr_path *p;

	if (idx >= pt->n)
		return;
	p = &pt->path[idx];
	if (!p->pending) {
		p->pending = true;
		p->pending_since_ns = now_ns;
		p->sent_since = 0;
		p->quiet = false;
	}
	if (p->sent_since != ~0U)
		p->sent_since++;
}

void mr_path_on_delivery(struct mr_path_table *pt, u8 idx, u32 n,
			 u64 now_ns)
{
	struct mr_path *p;

	if (idx >= pt->n || !n)
		return;
	p = &pt->path[idx];
	round_check(pt, p, now_ns);
	p->delivered += n;
	p->r_delivered += n;
	p->last_delivery_ns = now_ns;
	p->pending = false;
}

void mr_path_on_ack(struct mr_path_table *pt, u8 idx, u32 ce, u32 pkts,
		    u64 rtt_ns, u64 now_ns)
{
	struct mr_path *p;

	if (idx >= pt->n)
		return;
	p = &pt->path[idx];
	round_check(pt, p, now_ns);
	p->last_answer_ns = now_ns;
	p->r_pkts += pkts;
	p->r_ce += MR_MIN(ce, pkts);
	/*
	 * The ACK echoes the path of a packet that reached the peer: the
	 * route works, however late, even when that packet's copy on
	 * another path was credited first (MR-MP-31).
	 */
	if (pkts)
		p->pending = false;
	if (rtt_ns) {
		if (!p->srtt_ns)
			p->srtt_ns = rtt_ns;
		else
			p->srtt_ns = p->srtt_ns - (p->srtt_ns >> 3) +
				     (rtt_ns >> 3);
	}
}

void mr_path_on_answer(struct mr_path_table *pt, u8 idx, u64 now_ns)
{
	if (idx < pt->n)
		pt->path[idx].last_answer_ns = now_ns;
}

void mr_path_on_loss(struct mr_path_table *pt, u8 idx, u32 n, u64 now_ns)
{
	struct mr_path *p;

	if (idx >= pt->n || !n)
		return;
	p = &pt->path[idx];
	round_check(pt, p, now_ns);
	p->losses += n;
	p->r_lost += n;
}

void mr_path_on_trim(struct mr_path_table *pt, u8 idx, u64 now_ns)
{
	struct mr_path *p;

	if (idx >= pt->n)
		return;
	p = &pt->path[idx];
	round_check(pt, p, now_ns);
	p->trims++;
	p->r_trims++;
}

/*
 * MR-MP-30: a pending path that no other path's delivery has followed
 * by more than @rtt_ns (the QP's minimum RTT) since its pending_since
 * stops being pending.  Nothing came back on any path meanwhile that was
 * sent after the path's first pending packet: the QP as a whole went
 * without feedback (a stalled peer or host) and the path's silence says
 * nothing about its route.  A delivery within a minimum round trip of
 * pending_since acknowledges packets sent before it: with a coarse ACK
 * clock, the ACK a host took right before it stalled.  Linear: the
 * latest delivery of all, and the latest of the others for the path
 * that holds it.
 */
static void rto_silence(struct mr_path_table *pt, u64 rtt_ns)
{
	u64 first = 0, second = 0, others;
	int i, top = -1;

	for (i = 0; i < pt->n; i++) {
		u64 d = pt->path[i].last_delivery_ns;

		if (top < 0 || d > first) {
			second = first;
			first = d;
			top = i;
		} else if (d > second) {
			second = d;
		}
	}
	for (i = 0; i < pt->n; i++) {
		struct mr_path *p = &pt->path[i];

		others = i == top ? second : first;
		if (p->pending && others <= p->pending_since_ns + rtt_ns)
			p->pending = false;
	}
}

u64 mr_path_on_rto(struct mr_path_table *pt, u64 mask, u64 rtt_ns,
		   u64 now_ns)
{
	bool all_dead = !mr_path_usable(pt);
	u64 done = 0;
	int i;

	if (pt->p.single)
		return 0;
	rto_silence(pt, rtt_ns);
	for (i = 0; i < pt->n; i++) {
		struct mr_path *p = &pt->path[i];

		/*
		 * A DEAD path is re-rolled by its probes (MR-MP-9), unless
		 * every path is DEAD: then data goes out on one of them
		 * (the fallback) and each RTO moves it to a fresh entropy
		 * (MR-MP-12), however far the probes have backed off.  It
		 * stays DEAD until a reply to its probe revives it.
		 */
		if (!(mask & (1ULL << i)) ||
		    (p->state == MR_PATH_DEAD && !all_dead))
			continue;
		reroll(pt, p, now_ns);
		done |= 1ULL << i;
	}
	return done;
}

/*
 * A pending path with nothing in flight: its last packets were declared
 * lost and their copies delivered on other paths.  If it stays so for
 * RTO_base, the QP has stopped using it (idle, or its window went to the
 * other paths) and it stops being pending, so that its next packets start
 * a new pending_since (MR-MP-29).  A path whose packets an RTO declared
 * lost and that sends again sooner stays pending (unless no path at all
 * delivered, MR-MP-30): a black hole that stops the QP's progress is
 * still found (MR-MP-8).
 */
static void quiet_check(struct mr_path *p, bool in_flight, u64 rto_ns,
			u64 now_ns)
{
	if (in_flight || !p->pending) {
		p->quiet = false;
	} else if (!p->quiet) {
		p->quiet = true;
		p->quiet_since_ns = now_ns;
	} else if (now_ns - p->quiet_since_ns > rto_ns) {
		p->pending = false;
		p->quiet = false;
	}
}

/*
 * MR-MP-32: once per explore_ns, while every path the QP knows is
 * marked (even the coolest one's CE EWMA is above 0 and at least
 * ecn_rel), re-roll the hottest ACTIVE path: a route that no path uses
 * (one that healed, or that no entropy hashed onto) may have room, and
 * neither PLB nor MR-MP-27 ever moves a path onto it.  Once a path finds
 * such a route it is the coolest, exploration stops and MR-MP-27 moves
 * the hot paths.
 * Only ACTIVE paths that closed two rounds: a SUSPECT path is being
 * judged (MR-MP-21), a DEAD one probed, a fresh one says nothing yet.
 * The interval passes whether or not a path qualifies, so the scan runs
 * at most once per interval.
 */
static void explore(struct mr_path_table *pt, u64 now)
{
	struct mr_path *hot = NULL;
	u32 cool;
	int i;

	if (pt->p.single || !pt->p.explore_ns ||
	    now - pt->explored_ns < pt->p.explore_ns)
		return;
	pt->explored_ns = now;
	cool = coolest_ecn(pt);
	if (cool == ~0U || cool == 0 || cool < pt->p.ecn_rel)
		return;
	for (i = 0; i < pt->n; i++) {
		struct mr_path *p = &pt->path[i];

		if (p->state == MR_PATH_ACTIVE && p->rounds >= 2 &&
		    (!hot || p->ecn_frac > hot->ecn_frac))
			hot = p;
	}
	if (!hot)
		return;
	pt->explores++;
	reroll(pt, hot, now);
}

/* dead_rtos x @rto_ns, the time a pending path has (MR-MP-8). */
static u64 dead_limit(const struct mr_path_table *pt, u64 rto_ns)
{
	u64 limit = rto_ns * pt->p.dead_rtos;

	return limit < rto_ns ? ~0ULL : limit;	/* overflow: never */
}

/* Whether path @i counts towards MR-MP-8 at all, whatever the time. */
static bool dead_candidate(const struct mr_path_table *pt, int i,
			   u64 inflight_mask)
{
	const struct mr_path *p = &pt->path[i];

	return !pt->p.single && p->state != MR_PATH_DEAD && p->pending &&
	       (inflight_mask & (1ULL << i)) &&
	       p->sent_since >= pt->p.dead_min_pkts;
}

u64 mr_path_dead_deadline(const struct mr_path_table *pt, u64 inflight_mask,
			  u64 rto_ns)
{
	u64 limit = dead_limit(pt, rto_ns), t = ~0ULL, d;
	int i;

	if (limit == ~0ULL)
		return t;
	for (i = 0; i < pt->n; i++) {
		if (!dead_candidate(pt, i, inflight_mask))
			continue;
		d = pt->path[i].pending_since_ns + limit + 1;
		if (d > pt->path[i].pending_since_ns)
			t = MR_MIN(t, d);
	}
	return t;
}

u64 mr_path_tick(struct mr_path_table *pt, u64 inflight_mask, u64 rto_ns,
		 u64 now_ns, bool judge)
{
	u64 dead = 0, limit = dead_limit(pt, rto_ns);
	int i;

	for (i = 0; i < pt->n; i++) {
		struct mr_path *p = &pt->path[i];

		round_check(pt, p, now_ns);
		quiet_check(p, inflight_mask & (1ULL << i), rto_ns, now_ns);
		if (!judge || !dead_candidate(pt, i, inflight_mask) ||
		    now_ns - p->pending_since_ns <= limit)
			continue;
		/*
		 * Black hole: take it out of rotation and move it to a new
		 * entropy, which most likely hashes around the failure; the
		 * probes then test the new route (MR-MP-8).
		 */
		p->death_wait_ns = now_ns - p->pending_since_ns;
		p->death_sent = p->sent_since;
		p->state = MR_PATH_DEAD;
		p->probe_out = false;
		p->probe_misses = 0;
		p->deaths++;
		pt->deaths++;
		reroll(pt, p, now_ns);
		p->pending = false;
		p->wrr_cur = 0;
		p->next_probe_ns = now_ns;
		dead |= 1ULL << i;
	}
	explore(pt, now_ns);
	return dead;
}

bool mr_path_probe_due(const struct mr_path_table *pt, u64 now_ns, u8 *idx)
{
	int i;

	for (i = 0; i < pt->n; i++) {
		const struct mr_path *p = &pt->path[i];

		if (p->state == MR_PATH_DEAD && now_ns >= p->next_probe_ns) {
			*idx = (u8)i;
			return true;
		}
	}
	return false;
}

u64 mr_path_next_probe_ns(const struct mr_path_table *pt)
{
	u64 t = ~0ULL;
	int i;

	for (i = 0; i < pt->n; i++)
		if (pt->path[i].state == MR_PATH_DEAD)
			t = MR_MIN(t, pt->path[i].next_probe_ns);
	return t;
}

void mr_path_on_probe_sent(struct mr_path_table *pt, u8 idx, u32 probe_id,
			   u32 ts, u64 rto_ns, u64 now_ns)
{
	struct mr_path *p;

	if (idx >= pt->n)
		return;
	p = &pt->path[idx];
	/*
	 * The previous probe went unanswered: its entropy may hash onto the
	 * same broken link, so try the next probe on a fresh one (MR-MP-9).
	 */
	if (p->probe_out) {
		reroll(pt, p, now_ns);
		if (p->probe_misses < MR_PATH_PROBE_BACKOFF_MAX ||
		    (p->probe_misses < MR_PATH_PROBE_BACKOFF_LIMIT &&
		     (pt->p.probe_interval_ns << p->probe_misses) < rto_ns))
			p->probe_misses++;
	}
	p->probe_out = true;
	p->probe_id = probe_id;
	p->probe_ts = ts;
	/*
	 * A reply only matches the outstanding probe, so a probe replaced
	 * before its round trip completes can never revive the path: with
	 * a round trip above probe_interval (a loaded or virtualised host,
	 * a long fabric) a dead path would stay dead for good.  Back off
	 * while probes go unanswered until the spacing exceeds the round
	 * trip (MR-MP-9, MR-MP-11).  The cap of 64 x probe_interval (32 ms
	 * by default) is lifted while the spacing is below RTO_base: a
	 * round trip above the cap (a long-haul path, queues of tens of ms)
	 * would otherwise replace every probe unanswered (MR-MP-24).
	 */
	p->next_probe_ns = now_ns +
			   (pt->p.probe_interval_ns << p->probe_misses);
}

bool mr_path_on_probe_reply(struct mr_path_table *pt, u8 idx, u32 probe_id,
			    u32 ts, u64 rtt_ns, u64 now_ns)
{
	struct mr_path *p;

	if (idx >= pt->n)
		return false;
	p = &pt->path[idx];
	/* only the reply to the outstanding probe counts (MR-MP-11) */
	if (p->state != MR_PATH_DEAD || !p->probe_out ||
	    p->probe_id != probe_id || p->probe_ts != ts)
		return false;
	/* revived, but on probation until a clean round (MR-MP-11) */
	p->state = MR_PATH_SUSPECT;
	p->probe_out = false;
	p->probe_misses = 0;
	p->bad_rounds = 0;
	p->pending = false;
	p->last_delivery_ns = now_ns;
	p->srtt_ns = rtt_ns;
	p->wrr_cur = 0;
	round_reset(p, now_ns);
	pt->revivals++;
	return true;
}

u32 mr_path_usable(const struct mr_path_table *pt)
{
	u32 n = 0;
	int i;

	for (i = 0; i < pt->n; i++)
		n += pt->path[i].state != MR_PATH_DEAD;
	return n;
}

bool mr_probe_reply(const struct mr_pkt *probe, u64 now_ns, u64 gap_ns,
		    u64 *next_ns, struct mr_pkt *r)
{
	if (now_ns < *next_ns)
		return false;
	*next_ns = now_ns + gap_ns;
	memset(r, 0, sizeof(*r));
	r->opcode = MR_OP_PROBE_REPLY;
	r->path = probe->path;
	r->psn = probe->psn;
	r->ts = probe->ts;
	return true;
}
MR_KUNIT_EXPORT(mr_probe_reply);
