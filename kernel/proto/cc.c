// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE per-QP congestion control: DCTCP-style ECN fraction combined
 * with a Swift-style delay target (MR-CC-3..13).  See cc.h.
 */
#include "cc.h"
#include "wire.h"

#define MR_CC_US	1000U	/* ns per microsecond */
/* srtt cap for fixed-point products (~18 minutes, never reached) */
#define MR_CC_RTT_CAP	(1ULL << 40)

static inline u32 frac(u32 num, u32 den)
{
	/* num/den as a fixed point fraction, num <= den */
	return (u32)mr_div64_u64((u64)num << MR_CC_SHIFT, den);
}

void mr_cc_default_params(struct mr_cc_params *p)
{
	memset(p, 0, sizeof(*p));
	p->mode = MR_CC_DCTCP_SWIFT;
	p->use_ecn = true;
	p->use_delay = true;
	/* DCTCP's recommended g = 1/16 (design brief) */
	p->g_shift = 4;
	/*
	 * 32 packets of 4 KiB = 128 KiB, about one BDP at 100 Gb/s and
	 * 10 us: a new QP fills a typical path in its first RTT without
	 * slow start (Swift has none) while staying well inside the
	 * 256-packet window.
	 */
	p->init_cwnd = MR_CC_PKTS(32);
	/*
	 * Windows below one packet are what makes large incasts work
	 * (Swift): the pacer then spaces packets by srtt / cwnd.
	 */
	p->min_cwnd = MR_CC_ONE / 64;
	/* the scoreboard cannot track more (MR-WIN-1) */
	p->max_cwnd = MR_CC_PKTS(256);
	/* comparison mode behaves like RoCE without DCQCN: full window */
	p->fixed_cwnd = MR_CC_PKTS(256);
	/* one packet per RTT, classic AIMD */
	p->ai = MR_CC_ONE;
	/*
	 * Swift's published gains: beta 0.8 scales the cut with how far the
	 * delay overshoots the target, max_mdf 0.5 bounds any single cut.
	 */
	p->beta = MR_CC_ONE * 4 / 5;
	p->max_mdf = MR_CC_ONE / 2;
	/*
	 * A trim is certain congestion evidence (a queue hit the trim
	 * threshold), so it cuts like the strongest delay signal, once per
	 * RTT; so does a loss that other evidence says is one (MR-CC-10).
	 */
	p->loss_mdf = MR_CC_ONE / 2;
	p->trim_mdf = MR_CC_ONE / 2;
	/*
	 * A loss alone is not: on a lossy link (corruption, a flapping
	 * port, a software path under load) losses come at random, and
	 * halving on each one (at most once per RTT) settles the window
	 * where p * W^2 * 1/2 = 1 packet of growth per RTT: 14 packets at
	 * 1% loss, half the bandwidth of a 1 ms, 200 Mbit/s path.  A cut
	 * of 1/16 settles at sqrt(16 / p): 40 packets at 1%, 18 at 5%, and
	 * is still a multiplicative decrease, so flows sharing a
	 * bottleneck without ECN converge (more slowly).  A queue that
	 * overflows loses in bursts: a quarter or more of the packets of
	 * the last two rounds lost, far above the loss rate of any link
	 * worth running, counts as congestion by itself.  (1/8 was
	 * reached by chance at 5% random loss over rounds of 20 packets
	 * and cost a third of the bandwidth in the simulation.)
	 */
	p->loss_rand_mdf = MR_CC_ONE / 16;
	p->loss_burst = MR_CC_ONE / 4;
	/*
	 * Target = base_rtt + 10 us + 5 hops * 1 us: 10 us of queueing is
	 * about one BDP at 100 Gb/s (enough to keep the bottleneck busy);
	 * each switch of a 3-tier Clos (<= 5 on a path) adds some jitter.
	 * One BDP of queueing is one base RTT of it whatever the rate:
	 * where the base RTT is longer (a software device, whose round
	 * trip is host scheduling and processing: hundreds of us under
	 * emulation), the allowance is base_rtt * 1.0 instead. Below a
	 * 15 us base RTT the fixed part is the larger (MR-CC-6).
	 */
	p->target_fixed_ns = 10 * MR_CC_US;
	p->target_per_hop_ns = 1 * MR_CC_US;
	p->hops = 5;
	p->target_base = MR_CC_ONE;
	/*
	 * Flow scaling (Swift): many flows sharing a bottleneck each hold
	 * a small window; raising their target by up to 10 us as cwnd goes
	 * from 100 down to 0.1 packets lets them converge to fairness
	 * instead of all cutting on the same queue.
	 */
	p->fs_range_ns = 10 * MR_CC_US;
	p->fs_min_cwnd = MR_CC_ONE / 10;
	p->fs_max_cwnd = MR_CC_PKTS(100);
	/*
	 * Pace 25% faster than cwnd/srtt: the window stays the binding
	 * limit in steady state, the pacer only smooths ACK-clocked bursts
	 * and enforces windows below one packet.
	 */
	p->pacing_gain = MR_CC_ONE * 5 / 4;
	/*
	 * A software device sends when an ACK arrives or its timer fires,
	 * and under load or emulation those wake-ups come hundreds of us
	 * apart: absorbing only one gap of lateness capped the rate at a
	 * packet or two per wake-up, far below cwnd / srtt. Catching up on
	 * 500 us of schedule keeps the paced rate; the window still bounds
	 * the burst. A NIC would use a few us.
	 */
	p->pacing_slack_ns = 500 * MR_CC_US;
}

int mr_cc_init(struct mr_cc *cc, const struct mr_cc_params *p)
{
	if (p->mode > MR_CC_DCTCP_SWIFT || !p->min_cwnd ||
	    p->min_cwnd > p->max_cwnd || p->max_cwnd > MR_CC_PKTS(65535) ||
	    p->init_cwnd < p->min_cwnd || p->init_cwnd > p->max_cwnd ||
	    !p->fixed_cwnd || p->fixed_cwnd > MR_CC_PKTS(65535) ||
	    p->g_shift == 0 || p->g_shift > 16 ||
	    p->beta > MR_CC_ONE || p->max_mdf > MR_CC_ONE ||
	    p->loss_mdf > MR_CC_ONE || p->trim_mdf > MR_CC_ONE ||
	    p->loss_rand_mdf > MR_CC_ONE || p->loss_burst > MR_CC_ONE ||
	    p->target_base > MR_CC_PKTS(16) ||
	    (p->fs_range_ns && (!p->fs_min_cwnd ||
				p->fs_min_cwnd >= p->fs_max_cwnd)))
		return MR_ERR_INVAL;
	memset(cc, 0, sizeof(*cc));
	cc->p = *p;
	cc->cwnd = p->mode == MR_CC_FIXED ? p->fixed_cwnd : p->init_cwnd;
	cc->credit = MR_CC_NO_CREDIT;
	/* DCTCP starts conservative: the first CE halves the window */
	cc->alpha = MR_CC_ONE;
	cc->win_len = cc->cwnd >> MR_CC_SHIFT ? cc->cwnd >> MR_CC_SHIFT : 1;
	return 0;
}

static void clamp_cwnd(struct mr_cc *cc)
{
	if (cc->cwnd < cc->p.min_cwnd)
		cc->cwnd = cc->p.min_cwnd;
	if (cc->cwnd > cc->p.max_cwnd)
		cc->cwnd = cc->p.max_cwnd;
}

/* Multiplicative decrease at most once per srtt (MR-CC-8). */
static bool can_cut(const struct mr_cc *cc, u64 now)
{
	if (!cc->cut_valid)
		return true;
	return now - cc->last_cut_ns >= (cc->rtt_valid ? cc->srtt_ns : 0);
}

static void cut(struct mr_cc *cc, u64 now, u32 keep)
{
	/* keep: fraction of the window that stays */
	cc->cwnd = (u32)(((u64)cc->cwnd * keep) >> MR_CC_SHIFT);
	clamp_cwnd(cc);
	cc->cut_valid = true;
	cc->last_cut_ns = now;
	/* a decrease ends slow start (MR-CC-13) */
	cc->ssthresh = 0;
}

/* A CE mark, a trim or a delay above target: a queue is building. */
static void cong_evidence(struct mr_cc *cc, u64 now)
{
	cc->cong_valid = true;
	cc->cong_ns = now;
}

/*
 * Loss fraction over rounds of one srtt (MR-CC-10): packets declared lost
 * and packets delivered or lost in the current and the previous round.
 */
static void round_account(struct mr_cc *cc, u64 now, u32 delivered, u32 lost)
{
	u64 len = cc->rtt_valid ? cc->srtt_ns : 0;

	if (now - cc->rnd_start_ns >= 2 * len) {
		cc->prev_lost = 0;
		cc->prev_total = 0;
	} else if (now - cc->rnd_start_ns >= len) {
		cc->prev_lost = cc->rnd_lost;
		cc->prev_total = cc->rnd_total;
	}
	if (now - cc->rnd_start_ns >= len) {
		cc->rnd_lost = 0;
		cc->rnd_total = 0;
		cc->rnd_start_ns = now;
	}
	/* at most a window of each per call: no overflow */
	cc->rnd_lost += MR_MIN(lost, MR_WINDOW);
	cc->rnd_total += MR_MIN(delivered, MR_WINDOW) + MR_MIN(lost, MR_WINDOW);
}

static void round_reset(struct mr_cc *cc, u64 now)
{
	cc->rnd_lost = 0;
	cc->rnd_total = 0;
	cc->prev_lost = 0;
	cc->prev_total = 0;
	cc->rnd_start_ns = now;
}

/*
 * Is a loss now congestion, rather than random loss (MR-CC-10)?  Evidence
 * counts for two srtt: a signal that cut the window closes the decrease
 * gate for one (MR-CC-8), and a loss after that must still see it.  The
 * loss fraction is taken over at least a window of packets: after a
 * quiet period one loss among a few packets is no burst.
 */
static bool loss_is_congestion(const struct mr_cc *cc, u64 now)
{
	u64 lost = cc->rnd_lost + cc->prev_lost;
	u64 total = cc->rnd_total + cc->prev_total;

	if (cc->cong_valid &&
	    now - cc->cong_ns <= (cc->rtt_valid ? 2 * cc->srtt_ns : 0))
		return true;
	total = MR_MAX(total, (u64)(cc->cwnd >> MR_CC_SHIFT));
	return total && (lost << MR_CC_SHIFT) >= cc->p.loss_burst * total;
}

static u64 isqrt64(u64 x)
{
	u64 r = 0, bit = 1ULL << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/* 1/sqrt(c) for a fixed point c > 0, fixed point result. */
static u64 inv_sqrt(u32 c)
{
	/* 2^16 / sqrt(c / 2^16) = 2^32 / sqrt(c * 2^16) */
	u64 s = isqrt64((u64)c << MR_CC_SHIFT);

	return mr_div64_u64(1ULL << 32, s ? s : 1);
}

/* Swift flow scaling, linear in 1/sqrt(cwnd), in [0, fs_range]. */
static u64 flow_scaling(const struct mr_cc *cc)
{
	u64 x, xmin, xmax;

	if (!cc->p.fs_range_ns)
		return 0;
	x = inv_sqrt(cc->cwnd);
	xmin = inv_sqrt(cc->p.fs_max_cwnd);
	xmax = inv_sqrt(cc->p.fs_min_cwnd);
	if (x <= xmin)
		return 0;
	if (x >= xmax)
		return cc->p.fs_range_ns;
	return mr_div64_u64((u64)cc->p.fs_range_ns * (x - xmin),
			    xmax - xmin);
}

u64 mr_cc_target_ns(const struct mr_cc *cc)
{
	u64 q, r;

	if (!cc->rtt_valid)
		return 0;
	/* queueing allowance: fixed + per hop, or base_rtt * target_base */
	q = cc->p.target_fixed_ns +
	    (u64)cc->p.hops * cc->p.target_per_hop_ns;
	r = (cc->base_rtt_ns * cc->p.target_base) >> MR_CC_SHIFT;
	return cc->base_rtt_ns + MR_MAX(q, r) + flow_scaling(cc);
}

u32 mr_cc_window(const struct mr_cc *cc)
{
	u64 w = cc->p.mode == MR_CC_FIXED ? cc->p.fixed_cwnd : cc->cwnd;

	/*
	 * Receiver admission (AKH.credit) caps the window (MR-CC-2/14).  A grant
	 * of 0 still allows one packet in flight: it serves as the probe
	 * that fetches the next grant, so the QP cannot deadlock waiting
	 * for an unsolicited update.
	 */
	if (cc->credit != MR_CC_NO_CREDIT) {
		u64 c = (u64)(cc->credit ? cc->credit : 1) << MR_CC_SHIFT;

		if (c < w)
			w = c;
	}
	return (u32)w;
}

static void rtt_sample(struct mr_cc *cc, u64 rtt)
{
	if (rtt > MR_CC_RTT_CAP)
		rtt = MR_CC_RTT_CAP;
	cc->last_rtt_ns = rtt;
	if (!cc->rtt_valid) {
		cc->rtt_valid = true;
		cc->srtt_ns = rtt;
		cc->base_rtt_ns = rtt;
		return;
	}
	cc->srtt_ns = cc->srtt_ns - (cc->srtt_ns >> 3) + (rtt >> 3);
	if (rtt < cc->base_rtt_ns)
		cc->base_rtt_ns = rtt;
}

/*
 * The delay signal (MR-CC-7): the smallest RTT sample of a round of one
 * srtt, taken when the round closes (at the first sample at least srtt
 * after it began) and in force until the next one closes.  A queue that
 * stands for a round raises every sample of it; a sample that the hosts
 * delayed (a responder or requester not scheduled, a delayed ACK) does not
 * raise the round's minimum while any other sample of the round came
 * through on time.
 */
static void delay_round(struct mr_cc *cc, u64 now)
{
	if (!cc->dly_valid) {
		cc->dly_valid = true;
		cc->dly_start_ns = now;
		cc->dly_min_ns = cc->last_rtt_ns;
		return;
	}
	if (cc->last_rtt_ns < cc->dly_min_ns)
		cc->dly_min_ns = cc->last_rtt_ns;
	if (now - cc->dly_start_ns < cc->srtt_ns)
		return;
	cc->dly_rtt_ns = cc->dly_min_ns;
	cc->dly_valid = false;
}

/* DCTCP: close an observation window of ~cwnd delivered packets. */
static void ecn_account(struct mr_cc *cc, u32 acked, u32 ce, u32 pkts)
{
	u32 f;

	if (ce > pkts)
		ce = pkts;	/* malformed counters: be conservative */
	/*
	 * Packets reported without delivery (duplicate ACKs, a peer's
	 * counters) do not close the window: halve both sums rather than
	 * let them wrap, which keeps the fraction they carry.
	 */
	while (cc->win_pkts > (u32)~0u - pkts) {
		cc->win_pkts >>= 1;
		cc->win_ce >>= 1;
	}
	cc->win_ce += ce;
	cc->win_pkts += pkts;
	cc->win_acked += acked;
	if (cc->win_acked < cc->win_len)
		return;
	f = cc->win_pkts ? frac(cc->win_ce, cc->win_pkts) : 0;
	/* alpha = (1 - g) * alpha + g * F */
	cc->alpha = cc->alpha - (cc->alpha >> cc->p.g_shift) +
		    (f >> cc->p.g_shift);
	if (cc->alpha > MR_CC_ONE)
		cc->alpha = MR_CC_ONE;
	cc->win_ce = 0;
	cc->win_pkts = 0;
	cc->win_acked = 0;
	cc->win_len = cc->cwnd >> MR_CC_SHIFT ? cc->cwnd >> MR_CC_SHIFT : 1;
	cc->st.alpha_updates++;
}

void mr_cc_on_ack(struct mr_cc *cc, u64 now_ns, u32 acked, u32 ce_count,
		  u32 pkt_count, u64 rtt_ns, u32 credit)
{
	bool ecn_sig, delay_sig;
	u64 target = 0, inc;

	cc->credit = credit;
	if (rtt_ns)
		rtt_sample(cc, rtt_ns);
	if (cc->p.mode == MR_CC_FIXED)
		return;
	round_account(cc, now_ns, acked, 0);
	/* a delivery ends an RTO episode (MR-CC-11) */
	if (acked)
		cc->rto_episode = false;

	if (cc->p.use_ecn)
		ecn_account(cc, acked, ce_count, pkt_count);
	ecn_sig = cc->p.use_ecn && ce_count;
	if (cc->p.use_delay && rtt_ns) {
		delay_round(cc, now_ns);
		target = mr_cc_target_ns(cc);
		/* 0 until the first round closed */
		delay_sig = cc->dly_rtt_ns > target;
	} else {
		delay_sig = false;
	}
	if (ecn_sig || delay_sig)
		cong_evidence(cc, now_ns);

	/* a loss or trim signal at this instant: no growth (MR-CC-8) */
	if (!ecn_sig && !delay_sig && cc->sig_valid && cc->sig_ns == now_ns)
		return;
	if (ecn_sig || delay_sig) {
		u32 keep = MR_CC_ONE, k;
		bool by_delay = false;

		if (!can_cut(cc, now_ns))
			return;	/* no increase either while congested */
		if (ecn_sig) {
			/* DCTCP: cwnd *= 1 - alpha / 2 */
			k = MR_CC_ONE - (cc->alpha >> 1);
			if (k < keep)
				keep = k;
		}
		if (delay_sig) {
			/* Swift: 1 - beta * (rtt - target) / rtt */
			u64 over = cc->dly_rtt_ns - target;
			u64 d = mr_div64_u64(over * cc->p.beta,
					     cc->dly_rtt_ns);

			if (d > cc->p.max_mdf)
				d = cc->p.max_mdf;
			k = MR_CC_ONE - (u32)d;
			if (k < keep) {
				keep = k;
				by_delay = true;
			}
		}
		if (by_delay)
			cc->st.cuts_delay++;
		else
			cc->st.cuts_ecn++;
		cut(cc, now_ns, keep);
		return;
	}

	if (!acked)
		return;
	/* no growth beyond what the receiver admits: it could not be used */
	if (cc->credit != MR_CC_NO_CREDIT &&
	    (u64)cc->cwnd >= ((u64)cc->credit << MR_CC_SHIFT))
		return;
	/*
	 * Additive increase (MR-CC-13): ai per window of acked packets, i.e.
	 * ai per RTT.  Below one packet the window grows by ai per acked
	 * packet (Swift), as one ACK per RTT would otherwise be too slow.
	 * Below ssthresh, after an RTO, slow start: one packet per packet
	 * delivered, doubling per RTT, up to ssthresh (MR-CC-11).
	 */
	if (acked > MR_WINDOW)
		acked = MR_WINDOW;	/* cannot exceed the window */
	if (cc->ssthresh && cc->cwnd < cc->ssthresh) {
		inc = (u64)cc->cwnd + ((u64)acked << MR_CC_SHIFT);
		if (inc >= cc->ssthresh) {
			inc = cc->ssthresh;
			cc->ssthresh = 0;
		}
	} else {
		if (cc->cwnd >= MR_CC_ONE)
			inc = mr_div64_u64(((u64)cc->p.ai * acked) <<
					   MR_CC_SHIFT, cc->cwnd);
		else
			inc = (u64)cc->p.ai * acked;
		inc += cc->cwnd;
	}
	inc = inc > cc->p.max_cwnd ? cc->p.max_cwnd : inc;
	/* remember this instant's growth: a later signal takes it back */
	if (cc->grow_ns != now_ns)
		cc->grow = 0;
	cc->grow += (u32)inc - cc->cwnd;
	cc->grow_ns = now_ns;
	cc->cwnd = (u32)inc;
}

/*
 * A loss or trim signal: take back growth applied at this instant by an
 * mr_cc_on_ack() of the same feedback (MR-CC-8) and remember the signal
 * for an mr_cc_on_ack() still to come.
 */
static void cong_signal(struct mr_cc *cc, u64 now)
{
	if (cc->grow_ns == now && cc->grow) {
		cc->cwnd -= cc->grow;
		cc->grow = 0;
		clamp_cwnd(cc);
	}
	cc->sig_valid = true;
	cc->sig_ns = now;
}

/*
 * MR-CC-10: a loss cuts by loss_mdf when something else says a queue is
 * full (CE, a trim or a delay above target within the last two srtt, or
 * a loss fraction of loss_burst or more), else by loss_rand_mdf.
 */
void mr_cc_on_loss(struct mr_cc *cc, u64 now_ns, u32 n)
{
	bool cong;

	if (cc->p.mode == MR_CC_FIXED || !n)
		return;
	cong_signal(cc, now_ns);
	/* what an RTO declares lost is its own signal (MR-CC-11) */
	if (cc->rto_valid && cc->rto_ns == now_ns)
		return;
	round_account(cc, now_ns, 0, n);
	if (!can_cut(cc, now_ns))
		return;
	cong = loss_is_congestion(cc, now_ns);
	cc->st.cuts_loss++;
	if (!cong)
		cc->st.cuts_loss_rand++;
	cut(cc, now_ns, MR_CC_ONE -
	    (cong ? cc->p.loss_mdf : cc->p.loss_rand_mdf));
}

void mr_cc_on_trim(struct mr_cc *cc, u64 now_ns)
{
	if (cc->p.mode == MR_CC_FIXED)
		return;
	cong_signal(cc, now_ns);
	cong_evidence(cc, now_ns);
	if (!can_cut(cc, now_ns))
		return;
	cc->st.cuts_trim++;
	cut(cc, now_ns, MR_CC_ONE - cc->p.trim_mdf);
}

static void ecn_restart(struct mr_cc *cc)
{
	cc->win_ce = 0;
	cc->win_pkts = 0;
	cc->win_acked = 0;
	cc->win_len = cc->cwnd >> MR_CC_SHIFT ? cc->cwnd >> MR_CC_SHIFT : 1;
}

void mr_cc_on_rto(struct mr_cc *cc, u64 now_ns)
{
	cc->st.rtos++;
	if (cc->p.mode == MR_CC_FIXED)
		return;
	/*
	 * MR-CC-11: the first expiry of an episode remembers the state for
	 * an undo (MR-LOSS-15) and sets the slow start threshold to half
	 * the window (RFC 5681); later expiries of the same episode, with
	 * the window already at one packet, change neither.
	 */
	if (!cc->rto_episode) {
		cc->rto_episode = true;
		cc->undo_valid = true;
		cc->undo_cwnd = cc->cwnd;
		cc->undo_ssthresh = cc->ssthresh;
		cc->undo_cut_valid = cc->cut_valid;
		cc->undo_last_cut_ns = cc->last_cut_ns;
		cc->ssthresh = cc->cwnd / 2 > MR_CC_ONE ? cc->cwnd / 2 : 0;
	}
	cc->rto_valid = true;
	cc->rto_ns = now_ns;
	/* everything in flight is presumed gone: restart from 1 */
	cc->cwnd = MR_CC_ONE;
	clamp_cwnd(cc);
	cc->cut_valid = true;
	cc->last_cut_ns = now_ns;
	ecn_restart(cc);
	round_reset(cc, now_ns);
}

void mr_cc_on_rto_undo(struct mr_cc *cc, u64 now_ns)
{
	(void)now_ns;
	if (!cc->undo_valid)
		return;
	/* MR-CC-11: the state before the episode, as if it never happened */
	cc->undo_valid = false;
	cc->rto_episode = false;
	cc->st.rto_undos++;
	if (cc->undo_cwnd > cc->cwnd)
		cc->cwnd = cc->undo_cwnd;
	cc->ssthresh = cc->undo_ssthresh;
	cc->cut_valid = cc->undo_cut_valid;
	cc->last_cut_ns = cc->undo_last_cut_ns;
	ecn_restart(cc);
}

/* srtt over @window (fixed point packets) and the pacing gain. */
static u64 mr_cc_gap_of(const struct mr_cc *cc, u64 window)
{
	u64 rate;

	if (cc->p.mode == MR_CC_FIXED || !cc->p.pacing_gain ||
	    !cc->rtt_valid)
		return 0;
	/* packets per srtt, fixed point */
	rate = (window * cc->p.pacing_gain) >> MR_CC_SHIFT;
	if (!rate)
		rate = 1;
	return mr_div64_u64(cc->srtt_ns << MR_CC_SHIFT, rate);
}

u64 mr_cc_pacing_gap(const struct mr_cc *cc)
{
	return mr_cc_gap_of(cc, mr_cc_window(cc));
}

u64 mr_cc_resp_gap(const struct mr_cc *cc)
{
	return mr_cc_gap_of(cc, MR_MAX((u64)mr_cc_window(cc),
				       (u64)cc->p.init_cwnd));
}

void mr_cc_on_send(struct mr_cc *cc, u64 now_ns)
{
	u64 gap = mr_cc_pacing_gap(cc), base, slack;

	if (!gap)
		return;
	/*
	 * Keep the schedule if the caller is late by at most one gap or the
	 * slack (wake-up granularity): it catches up with a burst bounded
	 * by the slack and the window. Later, or before any schedule,
	 * restart it: an idle QP earns no burst (MR-CC-12).
	 */
	slack = MR_MAX(gap, (u64)cc->p.pacing_slack_ns);
	if (cc->next_send_ns &&
	    (cc->next_send_ns > now_ns || now_ns - cc->next_send_ns <= slack))
		base = cc->next_send_ns;
	else
		base = now_ns;
	cc->next_send_ns = base + gap;
}

u64 mr_cc_next_send_ns(const struct mr_cc *cc)
{
	return mr_cc_pacing_gap(cc) ? cc->next_send_ns : 0;
}
MR_KUNIT_EXPORT(mr_cc_next_send_ns);

bool mr_cc_can_send(const struct mr_cc *cc, u64 now_ns, u32 inflight)
{
	u32 w = mr_cc_window(cc);

	/*
	 * MR-CC-2: the packet about to go must fit, in flight + 1 <= W; a
	 * window below one packet lets one packet out when none is in
	 * flight, at the pacer's pace (below).
	 */
	if (inflight && (((u64)inflight + 1) << MR_CC_SHIFT) > w)
		return false;
	/*
	 * MR-CC-12: pacing spaces the packets of a flight.  With nothing in
	 * flight there is no flight to space: an application-limited
	 * sender (a ping-pong) would only wait for a gap computed from an
	 * srtt that may be stale.  Below one packet the pacer is what
	 * enforces the window (MR-CC-2), with or without a flight.
	 */
	if (!inflight && w >= MR_CC_ONE)
		return true;
	return now_ns >= mr_cc_next_send_ns(cc);
}
