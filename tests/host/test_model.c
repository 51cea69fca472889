// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Model test of the protocol core: a requester on the requester engine
 * (requester.h: the send queue walks, sender, segmentation and completion
 * rule, the same code kernel/req.c runs) and a responder on the receiver
 * engine (receiver.h: rxwin + rxmsg, the same code kernel/resp.c runs)
 * exchange REAL encoded packets
 * (wire.c encode -> channel -> ICRC check + decode) through a simulated
 * multipath channel on a virtual clock.  The channel loses, reorders,
 * duplicates, corrupts (bit flips: the ICRC must catch every one), trims
 * and CE-marks packets in both directions, ACKs included.
 *
 * Messages (SEND and WRITE, 0 .. MODEL_MAX_MSG bytes, 1..6 packets; in
 * the every-opcode scenario also SEND_IMM, SEND_INV, WRITE_IMM, READ and
 * both atomics) carry payload derived from a seeded PRNG so the responder
 * verifies every byte it places at its offset; READ data and atomic
 * results are verified at the requester when the WR completes.  Asserted: every message completes exactly
 * once on both sides, completions come in msn order, data is byte-exact,
 * nothing from a corrupted packet is ever placed, the requester only
 * completes what the responder completed, and the run ends within a
 * bounded virtual time.  Deterministic for a seed; MR_MODEL_SEED=<n>
 * overrides it.
 *
 * Exercises MR-REL-1..23, MR-LOSS-1..10, MR-MP-3..11, MR-MP-33, MR-CC-2..14,
 * MR-PLACE-2 and MR-ICRC-4/5 end to end.  With a bottleneck link (a
 * serialisation gap per data packet) it measures goodput under random
 * loss (MR-CC-10); with a stall (a peer or path frozen for longer than
 * the RTO) it checks that the RTO is found spurious and undone
 * (MR-LOSS-15, MR-CC-11).  The responder answers on the path of the
 * packet it answers, from a source port that follows that path's request
 * entropy as the kernel picks it (MR-MP-15); a black-holed reverse route
 * recovers through the requester's re-rolls (MR-MP-26).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "wire.h"
#include "psn.h"
#include "txsb.h"
#include "cc.h"
#include "path.h"
#include "sender.h"
#include "receiver.h"
#include "segment.h"
#include "requester.h"

#define US		1000ULL
#define MS		1000000ULL
#define MODEL_MTU	256			/* payload bytes per packet: the smallest PMTU */
#define MODEL_MAX_MSG	(6 * MODEL_MTU)		/* 1..6 packets */
#define MODEL_PKT_MAX	(MR_MAX_HDR_LEN + MODEL_MTU + MR_ICRC_LEN)
#define MODEL_POOL	16384			/* packets in the channel */
#define MODEL_SRING	1024			/* requester message ring */
#define MODEL_RRING	MR_RXMSG_RING		/* responder buffers */
#define MODEL_LINKS	16			/* ECMP links in the fabric */
#define MODEL_PATH_HIST	64			/* requests kept per path */
#define REQ_QPN		0x000111
#define RSP_QPN		0x000222
#define WRITE_VA	0x7f0000000000ULL
#define WRITE_RKEY	0x5a5a
#define READ_VA		0x7e0000000000ULL
#define READ_RKEY	0x6b6b
#define ATOMIC_VA	0x7d0000000000ULL
#define ATOMIC_RKEY	0x7c7c
#define READ_SEED	0xBEADULL
/*
 * Scenario seeds are this XOR a per-scenario constant; MR_MODEL_SEED
 * replaces the base.
 */
#define MODEL_BASE_SEED	0x4d6574615246ULL

/* ---------------------------------------------------------------- PRNG */

static u64 splitmix(u64 x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static u64 rnd(u64 *s)
{
	*s += 0x9E3779B97F4A7C15ULL;
	return splitmix(*s);
}

/* true with probability ppm / 1e6 */
static bool chance(u64 *s, u32 ppm)
{
	return ppm && rnd(s) % 1000000 < ppm;
}

/* --------------------------------------------------------- scenario */

struct model_cfg {
	const char *name;
	u64 seed;
	u32 n_msgs;
	/* channel, parts per million, per packet and direction */
	u32 loss_ppm;
	u32 dup_ppm;
	u32 corrupt_ppm;
	u32 trim_ppm;
	u32 ce_ppm;
	u32 reorder_ppm;	/* extra delay up to jitter_ns */
	u32 far_ppm;		/* extra delay far_min..far_max: beyond reo_wnd */
	u64 base_ns;
	u64 jitter_ns;
	u64 far_min_ns;
	u64 far_max_ns;
	/* bottleneck: requester -> responder packets leave gap_ns apart */
	u64 gap_ns;
	/* or: 4 spines, each serialising spine_gap_ns per packet, CE above spine_ce_ns */
	u64 spine_gap_ns;
	u64 spine_ce_ns;
	/*
	 * a spine drops a packet that would wait longer than this in its
	 * queue (0: never), as a switch port's buffer (the e2e fabric's
	 * FAB_QUEUE)
	 */
	u64 spine_drop_ns;
	u32 spines;		/* 0: 4; fewer: a spine taken out of the routes */
	u64 slow_spine_gap_ns;	/* the last of the 4 spines serialises this slowly */
	/*
	 * spine hole_spine - 1 (0: none) black-holes requester -> responder
	 * packets in [dead_from, dead_until); spine_heal counts each spine's
	 * packets from heal_count_from on
	 */
	u32 hole_spine;
	u32 hole_mask;		/* or these spines (bit s: spine s) */
	/*
	 * the hole is in the other direction: responder -> requester
	 * packets whose source port hashes onto a dead spine (the reverse
	 * routes, MR-MP-26)
	 */
	bool hole_rev;
	u64 heal_count_from;
	/* exploration (MR-MP-32) off */
	bool no_explore;
	/* the responder's ack_every (MR-REL-3), 0: the profile's */
	u16 ack_every;
	/*
	 * stall: whatever would arrive (either way) in [stall_from,
	 * stall_until) arrives at stall_until, in order: a peer VM that the
	 * host did not run, or a path that stopped forwarding.
	 */
	u64 stall_from;
	u64 stall_until;
	/*
	 * and the requester's host with it: its timer does not fire in the
	 * stall, and when it resumes its expired timer runs before it takes
	 * the packets that waited (the kernel gives neither order)
	 */
	bool stall_req;
	/*
	 * host scheduling: in every sched_period_ns, at a random phase, the
	 * receiving end does not run for a random time below sched_max_ns;
	 * what arrives meanwhile arrives at the end, in order
	 */
	u64 sched_period_ns;
	u64 sched_max_ns;
	/* with kernel_params: the delay signal on (cc_delay=1) */
	bool delay_on;
	/* a fabric link that black-holes data from dead_from on */
	bool kill_link;
	u64 dead_from;
	/*
	 * or: path index 0 black-holed in [dead_from, dead_until) whatever
	 * its entropy (e.g. a failed uplink pinned to it): re-rolls cannot
	 * escape, only dead-path detection, failover and probing help.
	 */
	bool kill_path0;
	u8 kill_paths;		/* with kill_path0: indices below it too */
	u64 dead_until;
	/*
	 * or: from dead_from on, the link that the responder's packets on
	 * path 0 hash onto black-holes responder -> requester packets (the
	 * reverse route of path 0, MR-MP-26)
	 */
	bool kill_rev_link;
	/* the responder's entropy ignores the request's (version 1.0) */
	bool reply_fixed;
	/* responder: PROBE_REPLY rate limit per QP (MR-MP-10), 0: none */
	u64 probe_gap_ns;
	/* requester */
	u8 n_paths;
	bool single_path;
	u8 cc_mode;
	/*
	 * The kernel's defaults (kernel/req.c mroce_req_start): no delay
	 * signal (cc_delay=0), verbs timeout 14 (67 ms T_verbs) with
	 * retry_cnt 7 as perftest sets them.
	 */
	bool kernel_params;
	/*
	 * Every RC request opcode (SEND, SEND_IMM, SEND_INV, WRITE,
	 * WRITE_IMM, READ, both atomics), READ responses trimmed on the way
	 * back too; else SEND and WRITE only.
	 */
	bool all_ops;
	/*
	 * An application that posts burst_msgs messages, waits for all of
	 * them to complete and then idles for idle_ns (0: posts whenever
	 * the ring has room)
	 */
	u32 burst_msgs;
	u64 idle_ns;
	/* expectations */
	bool expect_no_retx;
	u64 max_virtual_ns;
};

/* Deterministic message description from (seed, msn). */
static u32 msg_len_of(u64 seed, u32 msn)
{
	u64 r = splitmix(seed ^ 0x1234 ^ ((u64)msn << 20));

	/* 1 in 16 empty, else up to 6 packets */
	if ((r & 15) == 0)
		return 0;
	return 1 + (u32)((r >> 8) % MODEL_MAX_MSG);
}

static const u8 model_ops[] = {
	MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_SEND_INV, MR_OP_WRITE,
	MR_OP_WRITE_IMM, MR_OP_READ_REQ, MR_OP_ATOMIC_FA, MR_OP_ATOMIC_CS,
};

static u8 msg_op_of(u64 seed, u32 msn, bool all_ops)
{
	u64 r = splitmix(seed ^ 0x777 ^ ((u64)msn << 24));

	if (all_ops)
		return model_ops[r % MR_ARRAY_SIZE(model_ops)];
	return (r & 1) ? MR_OP_WRITE : MR_OP_SEND;
}

/* SEND_IMM/WRITE_IMM immediate or SEND_INV key of message msn. */
static u32 msg_imm_of(u64 seed, u32 msn)
{
	return (u32)splitmix(seed ^ 0x1AA ^ ((u64)msn << 8));
}

/* Byte o of message msn is byte (o % 8) of splitmix(seed, msn, o / 8). */
static void msg_bytes(u64 seed, u32 msn, u32 off, u8 *out, u32 n)
{
	u64 w = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		u32 o = off + i;

		if (i == 0 || (o & 7) == 0)
			w = splitmix(seed ^ ((u64)msn << 32) ^ (o >> 3));
		out[i] = (u8)(w >> ((o & 7) * 8));
	}
}

/* ----------------------------------------------------------- channel */

struct spkt {
	u64 t;
	u64 seq;
	u16 len;
	u16 sport;
	u8 to_rsp;		/* 1: requester -> responder */
	u8 ce;
	u8 corrupted;		/* oracle only: the endpoints never look */
	u8 buf[MODEL_PKT_MAX];
};

struct channel {
	struct spkt pool[MODEL_POOL];
	u32 heap[MODEL_POOL];	/* min-heap of pool indices by (t, seq) */
	u32 free_list[MODEL_POOL];
	u32 n_heap;
	u32 n_free;
	u64 seq;
	int dead_link;
	int dead_rev_link;	/* responder -> requester, kill_rev_link */
	u64 busy_until;		/* the bottleneck (gap_ns) */
	u64 spine_busy[4];
	u64 spine_pkts[4];	/* requester -> responder, per spine */
	u64 spine_heal[4];	/* ... from heal_count_from on */
	u64 hole_offered;	/* ... to any spine while hole_spine is dead */
	u64 rev_offered;	/* responder -> requester while hole_rev is on */
	bool force_ce;
	/* counters */
	u64 sent, lost, dups, corrupted, trimmed, ce_marked, reordered;
	u64 dead_drops, max_depth;
	u64 rev_dead_drops;
	u64 spine_drops;
	/*
	 * the last MODEL_PATH_HIST requests sent on each path (MBH.path):
	 * when each was sent and reached the responder (MR_TIME_NEVER: it
	 * did not)
	 */
	struct {
		u64 sent, arrive;
	} path_req[MR_PATH_MAX][MODEL_PATH_HIST];
	u32 path_sent[MR_PATH_MAX];
};

static bool pkt_before(const struct channel *c, u32 a, u32 b)
{
	const struct spkt *x = &c->pool[a], *y = &c->pool[b];

	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static void heap_push(struct channel *c, u32 idx)
{
	u32 i = c->n_heap++;

	c->heap[i] = idx;
	while (i) {
		u32 p = (i - 1) / 2;

		if (!pkt_before(c, c->heap[i], c->heap[p]))
			break;
		c->heap[i] = c->heap[p];
		c->heap[p] = idx;
		i = p;
	}
}

static u32 heap_pop(struct channel *c)
{
	u32 top = c->heap[0], i = 0;

	c->heap[0] = c->heap[--c->n_heap];
	for (;;) {
		u32 l = 2 * i + 1, r = l + 1, m = i, tmp;

		if (l < c->n_heap && pkt_before(c, c->heap[l], c->heap[m]))
			m = l;
		if (r < c->n_heap && pkt_before(c, c->heap[r], c->heap[m]))
			m = r;
		if (m == i)
			break;
		tmp = c->heap[i];
		c->heap[i] = c->heap[m];
		c->heap[m] = tmp;
		i = m;
	}
	return top;
}

static u32 link_of(u16 sport)
{
	return (u32)(splitmix(sport * 0x9E37ULL) % MODEL_LINKS);
}

/*
 * Queue one copy of a packet, with this copy's own impairments; returns
 * when it arrives.
 */
static u64 chan_copy(struct channel *c, const struct model_cfg *cfg,
		      u64 *rs, u64 now, const u8 *buf, u32 len, u16 sport,
		      bool to_rsp)
{
	struct spkt *k;
	u64 delay;
	u32 idx;

	assert_true(c->n_free > 0);
	idx = c->free_list[--c->n_free];
	k = &c->pool[idx];
	memcpy(k->buf, buf, len);
	k->len = (u16)len;
	k->sport = sport;
	k->to_rsp = to_rsp;
	k->ce = chance(rs, cfg->ce_ppm) || c->force_ce;
	k->corrupted = 0;
	c->ce_marked += k->ce;

	/*
	 * Trimming switch: cut the payload and set TRIM; the 4 bytes after
	 * the headers stay as a (now invalid) ICRC, MR-ICRC-5.
	 */
	if ((to_rsp || (cfg->all_ops && buf[1] == MR_OP_READ_RESP)) &&
	    chance(rs, cfg->trim_ppm)) {
		u32 hlen = mr_pkt_hdr_len(k->buf[1]);

		if (hlen && len > hlen + MR_ICRC_LEN) {
			k->buf[3] |= MR_F_TRIM;
			k->len = (u16)(hlen + MR_ICRC_LEN);
			c->trimmed++;
		}
	}
	/* 1..3 bit flips: CRC32C detects all of them at these lengths */
	if (chance(rs, cfg->corrupt_ppm)) {
		u32 flips = 1 + (u32)(rnd(rs) % 3), bits[3], i, j;

		/* distinct bits, so that no flip undoes another */
		for (i = 0; i < flips; i++) {
			do {
				bits[i] = (u32)(rnd(rs) % (k->len * 8U));
				for (j = 0; j < i && bits[j] != bits[i]; j++)
					;
			} while (j < i);
			k->buf[bits[i] / 8] ^= (u8)(1U << (bits[i] % 8));
		}
		k->corrupted = 1;
		c->corrupted++;
	}
	delay = cfg->base_ns + link_of(sport) * 250;
	if (chance(rs, cfg->reorder_ppm)) {
		delay += rnd(rs) % (cfg->jitter_ns + 1);
		c->reordered++;
	}
	if (chance(rs, cfg->far_ppm)) {
		delay += cfg->far_min_ns +
			 rnd(rs) % (cfg->far_max_ns - cfg->far_min_ns + 1);
		c->reordered++;
	}
	k->t = now + delay;
	if (k->t >= cfg->stall_from && k->t < cfg->stall_until)
		k->t = cfg->stall_until;
	if (cfg->sched_period_ns) {
		u64 per = k->t / cfg->sched_period_ns;
		u64 r = splitmix(cfg->seed ^ 0x5C4ED ^ per);
		u64 len = r % cfg->sched_max_ns;
		u64 start = per * cfg->sched_period_ns +
			    (r >> 32) % (cfg->sched_period_ns - len);

		if (k->t >= start && k->t < start + len)
			k->t = start + len;
	}
	k->seq = c->seq++;
	heap_push(c, idx);
	if (c->n_heap > c->max_depth)
		c->max_depth = c->n_heap;
	return k->t;
}

static void chan_send(struct channel *c, const struct model_cfg *cfg,
		      u64 *rs, u64 now, const u8 *buf, u32 len, u16 sport,
		      bool to_rsp)
{
	u64 *arrive = NULL;	/* a request's entry in path_req */
	u64 t;

	c->sent++;
	/* a request: MBH.opcode is byte 1, MBH.path byte 4 */
	if (to_rsp && len > 4 && buf[1] >= MR_OP_SEND &&
	    buf[1] <= MR_OP_ATOMIC_FA && buf[4] < MR_PATH_MAX) {
		u32 n = c->path_sent[buf[4]]++ % MODEL_PATH_HIST;

		c->path_req[buf[4]][n].sent = now;
		arrive = &c->path_req[buf[4]][n].arrive;
		*arrive = MR_TIME_NEVER;
	}
	/* serialisation at the bottleneck; a lost packet used it too */
	if (to_rsp && cfg->gap_ns) {
		c->busy_until = MR_MAX(now, c->busy_until) + cfg->gap_ns;
		now = c->busy_until;
	}
	c->force_ce = false;
	if (!to_rsp && cfg->hole_rev && now >= cfg->dead_from &&
	    now < cfg->dead_until) {
		u32 s = link_of(sport) % (cfg->spines ? cfg->spines : 4);

		c->rev_offered++;
		if (s + 1 == cfg->hole_spine || (cfg->hole_mask >> s & 1)) {
			c->rev_dead_drops++;
			return;
		}
	}
	if (to_rsp && cfg->spine_gap_ns) {
		u32 s = link_of(sport) % (cfg->spines ? cfg->spines : 4);
		u64 start = MR_MAX(now, c->spine_busy[s]);

		if (cfg->spine_drop_ns && start - now > cfg->spine_drop_ns) {
			c->spine_drops++;
			return;
		}
		c->force_ce = start - now > cfg->spine_ce_ns;
		c->spine_busy[s] = start + (s == 3 && cfg->slow_spine_gap_ns ?
					    cfg->slow_spine_gap_ns : cfg->spine_gap_ns);
		c->spine_pkts[s]++;
		if ((cfg->hole_spine || cfg->hole_mask) && now >= cfg->heal_count_from)
			c->spine_heal[s]++;
		now = c->spine_busy[s];
		if ((cfg->hole_spine || cfg->hole_mask) && !cfg->hole_rev &&
		    now >= cfg->dead_from && now < cfg->dead_until) {
			c->hole_offered++;
			if (s + 1 == cfg->hole_spine || (cfg->hole_mask >> s & 1)) {
				c->dead_drops++;
				return;
			}
		}
	}
	if (to_rsp && c->dead_link >= 0 &&
	    link_of(sport) == (u32)c->dead_link) {
		c->dead_drops++;
		return;
	}
	if (!to_rsp && c->dead_rev_link >= 0 &&
	    link_of(sport) == (u32)c->dead_rev_link) {
		c->rev_dead_drops++;
		return;
	}
	/* MBH.path is the high byte of bytes 4..7 */
	if (to_rsp && cfg->kill_path0 && len > 4 &&
	    (buf[4] < cfg->kill_paths || buf[4] == 0) &&
	    now >= cfg->dead_from && now < cfg->dead_until) {
		c->dead_drops++;
		return;
	}
	if (chance(rs, cfg->loss_ppm)) {
		c->lost++;
		return;
	}
	t = chan_copy(c, cfg, rs, now, buf, len, sport, to_rsp);
	if (arrive)
		*arrive = t;	/* the first copy's */
	if (chance(rs, cfg->dup_ppm)) {
		c->dups++;
		chan_copy(c, cfg, rs, now, buf, len, sport, to_rsp);
	}
}

/* --------------------------------------------------------- requester */

/* One send WQE of the requester's queue. */
struct smsg {
	struct mr_swqe tx;	/* the requester engine's (requester.h) */
	u8 buf[MODEL_MAX_MSG];	/* READ: where its data lands */
	u64 orig;		/* atomic: the original value placed */
	u64 want_orig;		/* ... and the one it must be */
	u64 swap_add, compare;	/* atomic operands */
	bool placed;
};

struct requester {
	struct mr_requester e;	/* the kernel's requester engine */
	u32 msn_idx[MODEL_SRING];
	struct smsg ring[MODEL_SRING];
	u32 head, tail;		/* send queue: retired, posted */
	u32 posted;		/* messages posted so far */
	u64 atomic_word;	/* the target word after what was posted */
	u32 done_msn;		/* next msn the requester completes */
	u64 path_rng;
	u64 emitted;		/* packets the engine emitted */
	u64 armed;		/* the timer: when the engine runs next */
	u64 idle_until;		/* burst_msgs: no post before */
	/*
	 * the longest wait for a completion with messages outstanding,
	 * among completions in [stall_lo, stall_hi): since the previous
	 * completion, or since the post into an empty queue
	 */
	u64 waiting_since;
	u64 stall_lo, stall_hi, max_wait;
	/* counters */
	u64 pkts_new, pkts_retx, acks, nacks_trim, icrc_drops, probes;
	u64 probe_replies, dead_failover_pkts, bad_replies;
	u64 reads, atomics;	/* verified at completion */
	u64 trim_junk;		/* corrupted trimmed responses dropped */
	u64 dup_resps, trimmed_resps;
	u64 aged_acks;		/* ACKs/NACKs dropped by MR-SEC-6 */
	u64 spurious_ev;	/* MR_REQ_EV_SPURIOUS reported */
	/* MR_REQ_EV_PATH_DEAD, _PROBE, _PROBE_REPLY, _PATH_REVIVED, _EXPLORES */
	u64 deaths_ev, probes_ev, probe_replies_ev, revivals_ev;
	/*
	 * deaths of a path one of whose requests since it became pending
	 * reached the responder more than RTO_base before the death
	 */
	u64 deaths_missed;
	u32 deaths_seen[MR_PATH_MAX];
	u64 explores_ev;
};

/* ---------------------------------------------------------- responder */

struct responder {
	struct mr_receiver rcv;	/* the kernel's responder engine */
	u8 wr_mem[MODEL_RRING][MODEL_MAX_MSG];	/* WRITE target region */
	u8 rq_mem[MODEL_RRING][MODEL_MAX_MSG];	/* receive WQE buffers */
	u64 atomic_word;	/* the word at ATOMIC_VA */
	/* entropy of the latest request or PROBE per path (MR-MP-15) */
	u16 rx_entropy[MR_PATH_MAX];
	u64 read_resps, atomic_resps, replays, replay_drops;
	u32 next_msn;		/* next completion expected */
	u64 probe_reply_next;	/* when it may answer a PROBE */
	/* counters */
	u64 icrc_drops, placed, dup_drops, trims_nacked, trim_dups, acks;
	u64 bytes;		/* payload of completed messages */
	u64 trim_junk;		/* corrupted trimmed packets dropped */
	u64 garbled_trims;	/* corrupted trimmed requests received */
	u64 probes_limited;	/* PROBEs not answered (rate limit) */
	u64 rate_limited;	/* answers to duplicates withheld */
};

struct model {
	struct model_cfg cfg;
	u64 now;
	/* the window when the stall began and 2 ms after it ended */
	u32 cwnd_stall, cwnd_after;
	bool stalled, recovered;
	u64 rs;			/* channel randomness */
	u32 init_psn;
	struct channel ch;
	struct requester rq;
	struct responder rp;
};

static u8 msg_op(const struct model *m, u32 msn)
{
	return msg_op_of(m->cfg.seed, msn, m->cfg.all_ops);
}

/* Message length: what an atomic moves is its 8-byte word. */
static u32 msg_len(const struct model *m, u32 msn)
{
	if (mr_op_has(msg_op(m, msn), MR_OPA_ATOMIC))
		return MR_ATOMIC_LEN;
	return msg_len_of(m->cfg.seed, msn);
}

/* The READ region: slot k holds message-like bytes of (READ_SEED, k). */
static void read_bytes(const struct model *m, u32 slot, u32 off, u8 *out,
		       u32 n)
{
	msg_bytes(m->cfg.seed ^ READ_SEED, slot, off, out, n);
}

static u32 path_rand(void *ctx)
{
	return (u32)rnd((u64 *)ctx);
}

/*
 * The responder's source port on the requester's path @path, as the
 * kernel picks it (kernel/resp.c): it follows the entropy the path's
 * requests come with (MR-MP-15), unless reply_fixed.
 */
static u16 rp_sport(const struct model *m, u8 path)
{
	u16 e = m->cfg.reply_fixed ? 0 : m->rp.rx_entropy[path];

	return MR_ENTROPY_BASE | mr_path_reply_entropy(RSP_QPN, path, e);
}

static void send_pkt(struct model *m, struct mr_pkt *p, u16 sport,
		     bool to_rsp)
{
	u8 buf[MODEL_PKT_MAX];
	int len = mr_pkt_encode(p, buf, sizeof(buf));

	assert_true(len > 0);
	chan_send(&m->ch, &m->cfg, &m->rs, m->now, buf, (u32)len, sport,
		  to_rsp);
}

/*
 * The requester engine's callbacks (struct mr_requester_ops); ctx is the
 * model. Message ids are msns: every WR is a request message, posted in
 * order from msn 0.
 */
static struct mr_swqe *rq_wqe(void *ctx, u32 idx)
{
	struct model *m = ctx;

	return &m->rq.ring[idx % MODEL_SRING].tx;
}

/* The WQE around the engine's part (the model's container_of). */
static struct smsg *rq_smsg(struct model *m, const struct mr_swqe *w)
{
	(void)m;
	return (struct smsg *)((char *)w - offsetof(struct smsg, tx));
}

static void rq_msg(void *ctx, const struct mr_swqe *w, struct mr_req_msg *rm)
{
	struct model *m = ctx;
	const struct smsg *g = rq_smsg(m, w);
	u32 slot = w->msn % MODEL_RRING;

	assert_non_null(g);
	switch (w->op) {
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
		rm->va = WRITE_VA + (u64)slot * MODEL_MAX_MSG;
		rm->rkey = WRITE_RKEY;
		break;
	case MR_OP_READ_REQ:
		rm->va = READ_VA + (u64)slot * MODEL_MAX_MSG;
		rm->rkey = READ_RKEY;
		break;
	case MR_OP_ATOMIC_FA:
	case MR_OP_ATOMIC_CS:
		rm->va = ATOMIC_VA;
		rm->rkey = ATOMIC_RKEY;
		rm->swap_add = g->swap_add;
		rm->compare = g->compare;
		break;
	default:
		break;
	}
	if (w->op == MR_OP_SEND_IMM || w->op == MR_OP_WRITE_IMM ||
	    w->op == MR_OP_SEND_INV)
		rm->imm = msg_imm_of(m->cfg.seed, w->msn);
}

static int rq_emit(void *ctx, struct mr_swqe *w, struct mr_pkt *p)
{
	struct model *m = ctx;
	u8 payload[MODEL_MTU];

	/* the engine's segmentation, checked against the message */
	assert_int_equal(p->opcode, msg_op(m, w->msn));
	if (p->opcode == MR_OP_READ_REQ) {
		/* a range of the READ: all of it, or what is missing */
		assert_true(p->dxh.offset + p->dxh.msg_len <= w->length);
		assert_true(p->dxh.msg_len || !w->length);
		assert_true(p->flags & MR_F_LAST);
	} else if (mr_op_has(p->opcode, MR_OPA_ATOMIC)) {
		assert_int_equal(p->dxh.msg_len, MR_ATOMIC_LEN);
		assert_int_equal(p->payload_len, 0);
		assert_true(p->flags & MR_F_LAST);
	} else {
		assert_int_equal(p->dxh.msg_len, msg_len(m, w->msn));
		assert_int_equal(!!(p->flags & MR_F_LAST),
				 p->dxh.offset + p->payload_len == w->length);
	}
	p->dqpn = RSP_QPN;
	p->sqpn = REQ_QPN;
	msg_bytes(m->cfg.seed, w->msn, p->dxh.offset, payload, p->payload_len);
	p->payload = payload;
	if (!(p->flags & MR_F_RETX))
		m->rq.pkts_new++;
	m->rq.emitted++;
	send_pkt(m, p, mr_path_sport(&m->rq.e.snd.pt, p->path), true);
	return 0;
}

/* READ data or an atomic's original value arrives (once per byte). */
static u8 rq_place(void *ctx, struct mr_swqe *w, u32 off, const void *buf,
		   u32 len)
{
	struct model *m = ctx;
	struct smsg *g = rq_smsg(m, w);

	assert_non_null(g);
	if (w->op == MR_OP_READ_REQ) {
		assert_true(off + len <= w->length);
		memcpy(g->buf + off, buf, len);
	} else {
		assert_true(mr_op_has(w->op, MR_OPA_ATOMIC));
		assert_int_equal(off, 0);
		assert_int_equal(len, sizeof(g->orig));
		assert_false(g->placed);	/* exactly once */
		memcpy(&g->orig, buf, sizeof(g->orig));
	}
	g->placed = true;
	return 0;
}

static u8 rq_local(void *ctx, struct mr_swqe *w)
{
	(void)ctx;
	(void)w;
	fail_msg("the model posts no local operation");
	return 0;
}

static bool rq_probe(void *ctx, struct mr_pkt *p)
{
	struct model *m = ctx;

	p->dqpn = RSP_QPN;
	p->sqpn = REQ_QPN;
	send_pkt(m, p, mr_path_sport(&m->rq.e.snd.pt, p->path), true);
	m->rq.probes++;
	m->rq.emitted++;
	return true;
}

/*
 * The paths just declared DEAD (MR-MP-8): did a request the rule counted
 * (sent since the path became pending) reach the responder more than
 * RTO_base before the death, time enough for an ACK to credit the path?
 */
static void rq_deaths_check(struct model *m)
{
	struct mr_path_table *pt = &m->rq.e.snd.pt;
	u64 rto = mr_txsb_base_rto(&m->rq.e.snd.sb);
	u32 i, j, n;

	for (i = 0; i < pt->n; i++) {
		const struct mr_path *p = &pt->path[i];
		u64 since = m->now - p->death_wait_ns;
		bool missed = false;

		if (p->deaths == m->rq.deaths_seen[i])
			continue;
		m->rq.deaths_seen[i] = p->deaths;
		n = MR_MIN(m->ch.path_sent[i], MODEL_PATH_HIST);
		for (j = 0; j < n; j++) {
			u64 a = m->ch.path_req[i][j].arrive;

			if (m->ch.path_req[i][j].sent >= since &&
			    a != MR_TIME_NEVER && a + rto < m->now)
				missed = true;
		}
		m->rq.deaths_missed += missed;
	}
}

static void rq_event(void *ctx, enum mr_req_event ev, u64 n,
		     const struct mr_swqe *w)
{
	struct model *m = ctx;

	(void)w;
	switch (ev) {
	case MR_REQ_EV_RETX:
		m->rq.pkts_retx += n;
		break;
	case MR_REQ_EV_FAILOVER:
		m->rq.dead_failover_pkts += n;
		break;
	case MR_REQ_EV_ACK:
		m->rq.acks += n;
		break;
	case MR_REQ_EV_NACK:
		/* the only NACK this responder sends is TRIMMED */
		assert_int_equal(n, MR_NACK_TRIMMED);
		m->rq.nacks_trim++;
		break;
	case MR_REQ_EV_RESP_DUP:
		/* a duplicate response or a probe reply of nothing due */
		m->rq.dup_resps += n;
		break;
	case MR_REQ_EV_TRIMMED:
		m->rq.trimmed_resps += n;
		break;
	case MR_REQ_EV_ACK_AGED:
		/*
		 * A trimmed request has no ICRC (MR-ICRC-5): a bit flip in
		 * its MBH.ts passes the responder's window (MR-WIN-6) and its
		 * NACK TRIMMED echoes that ts, which MR-SEC-6 then refuses.
		 * Nothing else may make an echo look aged.
		 */
		m->rq.aged_acks += n;
		assert_true(m->rq.aged_acks <= m->rp.garbled_trims);
		break;
	case MR_REQ_EV_RTO:
	case MR_REQ_EV_REROLLS:
	case MR_REQ_EV_SACK:
	case MR_REQ_EV_SPURIOUS_RTO:
		break;
	case MR_REQ_EV_SPURIOUS:
		m->rq.spurious_ev += n;
		break;
	case MR_REQ_EV_PATH_DEAD:
		m->rq.deaths_ev += n;
		rq_deaths_check(m);
		break;
	case MR_REQ_EV_PROBE:
		m->rq.probes_ev += n;
		break;
	case MR_REQ_EV_PROBE_REPLY:
		m->rq.probe_replies_ev += n;
		break;
	case MR_REQ_EV_PATH_REVIVED:
		m->rq.revivals_ev += n;
		break;
	case MR_REQ_EV_EXPLORES:
		m->rq.explores_ev += n;
		break;
	default:
		/* the model's peer never stops answering for good */
		fail_msg("requester event %d (msn %u)", (int)ev,
			 w ? w->msn : 0);
	}
}

static const struct mr_requester_ops rq_ops = {
	.wqe = rq_wqe,
	.msg = rq_msg,
	.emit = rq_emit,
	.place = rq_place,
	.local = rq_local,
	.probe = rq_probe,
	.event = rq_event,
};

/* Post messages while the send queue has room. */
static void rq_post(struct model *m)
{
	struct requester *r = &m->rq;
	struct smsg *g;
	u32 room = MODEL_SRING;

	if (m->cfg.burst_msgs) {
		if (r->head != r->tail || m->now < r->idle_until)
			return;
		room = m->cfg.burst_msgs;
	}
	while (r->posted < m->cfg.n_msgs && r->tail - r->head < room) {
		if (r->head == r->tail)
			r->waiting_since = m->now;
		g = &r->ring[r->tail % MODEL_SRING];
		memset(g, 0, sizeof(*g));
		g->tx.op = msg_op(m, r->posted);
		g->tx.length = msg_len(m, r->posted);
		g->tx.state = MR_SWQE_QUEUED;
		/*
		 * Atomics execute once each, in msn order (MR-PLACE-16): the
		 * original value each returns is known when it is posted. A
		 * compare-and-swap matches on even msns.
		 */
		if (g->tx.op == MR_OP_ATOMIC_FA) {
			g->swap_add = splitmix(r->posted) >> 40;
			g->want_orig = r->atomic_word;
			r->atomic_word += g->swap_add;
		} else if (g->tx.op == MR_OP_ATOMIC_CS) {
			g->swap_add = splitmix(r->posted ^ 0x5A);
			g->compare = r->atomic_word + (r->posted & 1);
			g->want_orig = r->atomic_word;
			if (g->compare == r->atomic_word)
				r->atomic_word = g->swap_add;
		}
		r->posted++;
		r->tail++;
	}
}

/* A completed READ holds the region's bytes, an atomic its old word. */
static void rq_check_result(struct model *m, const struct smsg *g)
{
	u8 want[MODEL_MAX_MSG];

	assert_non_null(g);
	if (g->tx.op == MR_OP_READ_REQ) {
		read_bytes(m, g->tx.msn % MODEL_RRING, 0, want, g->tx.length);
		assert_memory_equal(g->buf, want, g->tx.length);
		m->rq.reads++;
	} else if (mr_op_has(g->tx.op, MR_OPA_ATOMIC)) {
		assert_true(g->placed);
		assert_int_equal(g->orig, g->want_orig);
		m->rq.atomics++;
	}
}

/* Complete from the head what the engine says is done, in order. */
static void rq_complete(struct model *m)
{
	struct requester *r = &m->rq;
	const struct mr_swqe *w;

	enum mr_done d;

	while (r->head != r->tail) {
		w = rq_wqe(m, r->head);
		d = mr_requester_head(&r->e, r->head, m->now, m);
		if (d == MR_DONE_WAIT)
			break;
		/*
		 * every message succeeds, in msn order, each exactly once: a
		 * SEND/WRITE when acknowledged, a READ/ATOMIC with the status
		 * its responses gave it
		 */
		assert_true(d == MR_DONE_SUCCESS ||
			    (d == MR_DONE_OWN && !w->status));
		assert_int_equal(w->msn, r->done_msn);
		/* only what the responder already completed (MR-PLACE-2) */
		assert_true(mr_seq32_diff(m->rp.next_msn, w->msn) > 0);
		rq_check_result(m, rq_smsg(m, w));
		mr_requester_retired(&r->e, w, r->head);
		if (m->now >= r->stall_lo && m->now < r->stall_hi)
			r->max_wait = MR_MAX(r->max_wait,
					     m->now - r->waiting_since);
		r->waiting_since = m->now;
		r->head++;
		r->done_msn++;
		if (r->head == r->tail)
			r->idle_until = m->now + m->cfg.idle_ns;
	}
}

/*
 * The engine runs as the kernel runs it (kernel/req.c mroce_req_run):
 * complete from the head, run, and again while a run sent packets or
 * finished a WQE.
 */
static void rq_run(struct model *m)
{
	struct requester *r = &m->rq;
	bool done;
	u64 before;

	do {
		rq_complete(m);
		rq_post(m);
		before = r->emitted;
		done = mr_requester_run(&r->e, r->head, r->tail, true, m->now,
					16, m);
	} while (done || r->emitted != before);
	rq_complete(m);
	/* the kernel arms its timer here (mroce_req_arm) */
	r->armed = mr_requester_deadline(&r->e, r->head, r->tail, m->now);
}

static void rq_on_pkt(struct model *m, const u8 *buf, u32 len, bool ce)
{
	struct requester *r = &m->rq;
	struct mr_pkt p;

	/* a trimmed READ_RESP has no valid ICRC (MR-ICRC-5) */
	bool trimmed = len >= 4 && (buf[3] & MR_F_TRIM);

	if (!trimmed && mr_icrc_check(buf, len)) {
		r->icrc_drops++;
		return;
	}
	if (mr_pkt_decode(buf, len, &p) || p.dqpn != REQ_QPN) {
		/* only a corrupted trimmed packet can be malformed */
		assert_true(trimmed);
		r->trim_junk++;
		return;
	}
	switch (p.opcode) {
	case MR_OP_PROBE_REPLY:
		r->probe_replies++;
		break;
	case MR_OP_READ_RESP:
	case MR_OP_ATOMIC_RESP:
		assert_true(m->cfg.all_ops);
		break;
	case MR_OP_ACK:
	case MR_OP_NACK:
		break;
	default:
		fail_msg("requester got opcode %#x", p.opcode);
		return;
	}
	/* as the kernel runs it: kernel/req.c mroce_req_rcv */
	mr_requester_rcv(&r->e, r->head, r->tail, &p, ce, m->now, m);
	rq_run(m);
}

/* burst_msgs: the application idles, more messages to post. */
static bool rq_idle_ends(const struct model *m)
{
	return m->cfg.burst_msgs && m->rq.head == m->rq.tail &&
	       m->rq.posted < m->cfg.n_msgs;
}

static bool rq_stalled(const struct model *m)
{
	return m->cfg.stall_req && m->now >= m->cfg.stall_from &&
	       m->now < m->cfg.stall_until;
}

/* The requester's timer fired, or the application's idle ended. */
static void rq_timers(struct model *m)
{
	if (rq_stalled(m))
		return;
	if (m->rq.armed <= m->now) {
		/* as kernel/req.c mroce_req_timer_fn */
		mr_requester_on_timer(&m->rq.e);
		rq_run(m);
	} else if (rq_idle_ends(m) && m->rq.idle_until <= m->now) {
		rq_run(m);
	}
}

static u64 rq_wake(const struct model *m)
{
	u64 t = m->rq.armed;

	if (rq_idle_ends(m))
		t = MR_MIN(t, m->rq.idle_until);
	if (m->cfg.stall_req && t >= m->cfg.stall_from &&
	    t < m->cfg.stall_until)
		t = m->cfg.stall_until;
	return t;
}

/* --------------------------------------------------------- responder */

/*
 * The responder engine's callbacks (struct mr_receiver_ops). ctx is the
 * model; rp_cur the channel packet being handled (NULL from a timer).
 */
static const struct spkt *rp_cur;

/* The model's receive queue and regions always have room and access. */
static u8 rp_check(void *ctx, const struct mr_pkt *p)
{
	struct model *m = ctx;

	assert_int_equal(p->opcode, msg_op(m, p->dxh.msn));
	return 0;
}

static u8 rp_place(void *ctx, const struct mr_pkt *p)
{
	struct model *m = ctx;
	struct responder *rp = &m->rp;
	u8 want[MODEL_MTU];
	u8 *dst;

	assert_int_equal(p->dxh.msg_len, msg_len(m, p->dxh.msn));
	assert_int_equal(p->opcode, msg_op(m, p->dxh.msn));
	msg_bytes(m->cfg.seed, p->dxh.msn, p->dxh.offset, want,
		  p->payload_len);
	assert_memory_equal(p->payload, want, p->payload_len);
	if (mr_op_has(p->opcode, MR_OPA_SSN) && p->opcode != MR_OP_WRITE_IMM) {
		dst = rp->rq_mem[p->dxh.ssn % MODEL_RRING];
	} else {
		u64 base = WRITE_VA + (u64)(p->dxh.msn % MODEL_RRING) *
				      MODEL_MAX_MSG;

		/* placement at RXH.va + offset (MR-PLACE-3) */
		assert_int_equal(p->rxh.va, base);
		assert_int_equal(p->rxh.rkey, WRITE_RKEY);
		dst = rp->wr_mem[p->dxh.msn % MODEL_RRING];
	}
	assert_true(p->dxh.offset + p->payload_len <= MODEL_MAX_MSG);
	memcpy(dst + p->dxh.offset, p->payload, p->payload_len);
	rp->placed++;
	return 0;
}

/* Send the ATOMIC_RESP of message @msn, request @psn, on @path. */
static void rp_atomic_resp(struct model *m, u8 path, u32 msn, u32 psn,
			   u64 orig, bool retx)
{
	struct mr_pkt r;

	mr_rdresp_atomic_pkt(msn, psn, path, orig, retx, &r);
	r.dqpn = REQ_QPN;
	r.sqpn = RSP_QPN;
	r.ts = (u32)(m->now / US);
	m->rp.atomic_resps++;
	send_pkt(m, &r, rp_sport(m, r.path), false);
}

/* Execute atomic @info on the word, once (MR-PLACE-16). */
static void rp_atomic(struct model *m, const struct mr_rxmsg_info *info)
{
	struct responder *rp = &m->rp;
	u64 orig = rp->atomic_word;

	assert_int_equal(info->va, ATOMIC_VA);
	assert_int_equal(info->rkey, ATOMIC_RKEY);
	rp->atomic_word = mr_atomic_result(info->opcode, orig, info->swap_add,
					   info->compare);
	mr_rdresp_atomic_done(&rp->rcv.rd, info, orig);
	rp_atomic_resp(m, info->path, info->msn, info->first_psn, orig, false);
}

static u8 rp_deliver(void *ctx, const struct mr_rxmsg_info *info)
{
	struct model *m = ctx;
	struct responder *rp = &m->rp;
	u8 want[MODEL_MAX_MSG];
	u8 *mem;

	if (info->extra) {
		/* another range of a READ already delivered */
		assert_int_equal(info->opcode, MR_OP_READ_REQ);
		assert_int_equal(mr_rdresp_read(&rp->rcv.rd, info, info->path),
				 0);
		return 0;
	}
	/* completions in msn order, each exactly once (MR-PLACE-2) */
	assert_int_equal(info->msn, rp->next_msn);
	assert_int_equal(info->opcode, msg_op(m, info->msn));
	rp->next_msn++;
	if (info->opcode == MR_OP_READ_REQ) {
		assert_int_equal(info->va,
				 READ_VA + (u64)(info->msn % MODEL_RRING) *
				 MODEL_MAX_MSG);
		assert_int_equal(info->rkey, READ_RKEY);
		/* the READ's responses, built by rp_read_resps() */
		assert_int_equal(mr_rdresp_read(&rp->rcv.rd, info, info->path),
				 0);
		return 0;
	}
	if (mr_op_has(info->opcode, MR_OPA_ATOMIC)) {
		rp_atomic(m, info);
		return 0;
	}
	assert_int_equal(info->msg_len, msg_len(m, info->msn));
	assert_int_equal(info->bytes, info->msg_len);
	if (info->opcode == MR_OP_SEND_IMM || info->opcode == MR_OP_WRITE_IMM ||
	    info->opcode == MR_OP_SEND_INV)
		assert_int_equal(info->imm, msg_imm_of(m->cfg.seed, info->msn));
	mem = mr_op_has(info->opcode, MR_OPA_SSN) &&
	      info->opcode != MR_OP_WRITE_IMM ?
	      rp->rq_mem[info->ssn % MODEL_RRING] :
	      rp->wr_mem[info->msn % MODEL_RRING];
	msg_bytes(m->cfg.seed, info->msn, 0, want, info->msg_len);
	assert_memory_equal(mem, want, info->msg_len);
	/* poison: a later message must place every byte itself */
	memset(mem, 0xA5, MODEL_MAX_MSG);
	rp->bytes += info->msg_len;
	return 0;
}

/* A duplicate READ_REQ or atomic: answered from the records (MR-REL-8/9). */
static bool rp_replay(void *ctx, const struct mr_pkt *p)
{
	struct model *m = ctx;
	struct responder *rp = &m->rp;
	u64 orig = 0;

	switch (mr_rdresp_replay(&rp->rcv.rd, p,
				 mr_rxmsg_completed_msn(&rp->rcv.m), &orig)) {
	case MR_REPLAY_READ:
		rp->replays++;
		return true;
	case MR_REPLAY_ATOMIC:
		rp->replays++;
		rp_atomic_resp(m, p->path, p->dxh.msn, p->psn, orig, true);
		return true;
	default:
		rp->replay_drops++;
		return false;
	}
}

/* rdresp's build callback: READ_RESP @ch from the READ region. */
static int rp_read_build(void *ctx, const struct mr_rdresp_chunk *ch)
{
	struct model *m = ctx;
	u8 payload[MODEL_MTU];
	struct mr_pkt r;
	u32 slot;

	assert_true(ch->va >= READ_VA);
	slot = (u32)((ch->va - READ_VA) / MODEL_MAX_MSG);
	assert_true(slot < MODEL_RRING);
	assert_true(ch->off + ch->len <= MODEL_MAX_MSG);
	mr_rdresp_read_pkt(ch, &r);
	r.dqpn = REQ_QPN;
	r.sqpn = RSP_QPN;
	r.ts = (u32)(m->now / US);
	read_bytes(m, slot, ch->off, payload, ch->len);
	r.payload = payload;
	m->rp.read_resps++;
	send_pkt(m, &r, rp_sport(m, r.path), false);
	return 0;
}

/*
 * Send the READ responses the engine has queued, as kernel/resp_rd.c
 * does (without its budget and pacing).
 */
static void rp_read_resps(struct model *m)
{
	struct responder *rp = &m->rp;

	assert_true(mr_rdresp_pump(&rp->rcv.rd, MODEL_MTU, INT32_MAX, m->now,
				   0, 0, rp_read_build, m) == MR_TIME_NEVER);
	/* no error point in the model: nothing waits for the drain */
	assert_false(mr_receiver_rd_drained(&rp->rcv, m->now, m));
}

static void rp_emit(void *ctx, struct mr_pkt *a)
{
	struct model *m = ctx;

	if (a->opcode == MR_OP_NACK) {
		/* the requester never runs ahead of the window (MR-WIN-3) */
		assert_int_equal(a->nkh.reason, MR_NACK_TRIMMED);
		m->rp.trims_nacked++;
	}
	a->dqpn = REQ_QPN;
	a->sqpn = RSP_QPN;
	a->ts = (u32)(m->now / US);
	m->rp.acks++;
	send_pkt(m, a, rp_sport(m, a->path), false);
}

static void rp_count(void *ctx, enum mr_rcv_event ev, const struct mr_pkt *p)
{
	struct model *m = ctx;
	struct responder *rp = &m->rp;

	switch (ev) {
	case MR_RCV_EV_CE:
		break;
	case MR_RCV_EV_DUP:
	case MR_RCV_EV_OLD_DUP:
		rp->dup_drops++;
		break;
	case MR_RCV_EV_TRIM_DUP:
		/* a trimmed PSN beyond the window was garbled on the way */
		if (mr_rxwin_classify(&rp->rcv.w, p->psn) == MR_RX_BEYOND)
			assert_true(rp_cur && rp_cur->corrupted);
		rp->trim_dups++;
		break;
	case MR_RCV_EV_RATE_LIMITED:
		rp->rate_limited++;
		break;
	case MR_RCV_EV_STALE:
	case MR_RCV_EV_FUTURE:
	case MR_RCV_EV_PMTU:
		/* only a trimmed packet (no ICRC) can carry a garbled ts */
		assert_true(rp_cur && rp_cur->corrupted);
		rp->trim_junk++;
		break;
	default:
		/* stale, beyond the window, malformed, error point: none */
		fail_msg("responder event %d on psn %u", (int)ev, p ? p->psn : 0);
	}
}

static const struct mr_receiver_ops rp_ops = {
	.check = rp_check,
	.place = rp_place,
	.deliver = rp_deliver,
	.replay = rp_replay,
	.emit = rp_emit,
	.count = rp_count,
};

static void rp_on_pkt(struct model *m, const struct spkt *k)
{
	struct responder *rp = &m->rp;
	bool trimmed;
	struct mr_pkt p;
	int rc;

	/*
	 * ICRC first: nothing of a corrupted packet is looked at
	 * (MR-ICRC-4), except that a TRIM packet has no valid ICRC and is
	 * only ever used for a NACK, never placed (MR-ICRC-5).
	 */
	trimmed = k->len >= 4 && (k->buf[3] & MR_F_TRIM);
	rp->garbled_trims += trimmed && k->corrupted;
	if (!trimmed) {
		if (mr_icrc_check(k->buf, k->len)) {
			assert_true(k->corrupted);
			rp->icrc_drops++;
			return;
		}
		/* every corruption must have been caught above */
		assert_false(k->corrupted);
	}
	rc = mr_pkt_decode(k->buf, k->len, &p);
	if (trimmed && (rc || p.dqpn != RSP_QPN ||
			!mr_op_has(p.opcode, MR_OPA_REQ) ||
			!mr_op_has(p.opcode, MR_OPA_PAYLOAD))) {
		/* only a corrupted trimmed packet can be malformed */
		assert_true(k->corrupted);
		rp->trim_junk++;
		return;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(p.dqpn, RSP_QPN);
	rp->rx_entropy[p.path] = k->sport & MR_ENTROPY_MASK;
	if (p.opcode == MR_OP_PROBE) {
		struct mr_pkt r;

		/* as the kernel answers: kernel/recv.c mroce_probe_reply */
		if (!mr_probe_reply(&p, m->now, m->cfg.probe_gap_ns,
				    &rp->probe_reply_next, &r)) {
			rp->probes_limited++;
			return;
		}
		r.dqpn = REQ_QPN;
		r.sqpn = RSP_QPN;
		send_pkt(m, &r, rp_sport(m, r.path), false);
		return;
	}
	assert_true(mr_op_has(p.opcode, MR_OPA_REQ));
	rp_cur = k;
	/* the model's responder never fails: no fatal NACK, no error state */
	assert_false(mr_receiver_on_pkt(&rp->rcv, &p, k->ce, m->now, m));
	rp_cur = NULL;
	rp_read_resps(m);
}

static void rp_timers(struct model *m)
{
	mr_receiver_on_timer(&m->rp.rcv, m->now, m);
	rp_read_resps(m);
}

static u64 rp_wake(const struct model *m)
{
	return mr_receiver_ack_deadline(&m->rp.rcv);
}

/* --------------------------------------------------------------- run */

static void model_init(struct model *m, const struct model_cfg *cfg)
{
	struct mr_txsb_params tp;
	struct mr_cc_params cp;
	struct mr_path_params pp;
	struct mr_requester_params rp = {};
	u32 i;

	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	if (getenv("MR_MODEL_SEED"))
		m->cfg.seed = strtoull(getenv("MR_MODEL_SEED"), NULL, 0) ^
			      (cfg->seed ^ MODEL_BASE_SEED);
	m->rs = splitmix(m->cfg.seed ^ 0xC4A7);
	/* start right below the PSN wrap so every run crosses it */
	m->init_psn = MR_PSN_MASK - (u32)(rnd(&m->rs) % 500);

	m->ch.dead_link = -1;
	m->ch.dead_rev_link = -1;
	m->rq.stall_lo = cfg->dead_from;
	m->rq.stall_hi = cfg->dead_until;
	for (i = 0; i < MODEL_POOL; i++)
		m->ch.free_list[i] = MODEL_POOL - 1 - i;
	m->ch.n_free = MODEL_POOL;

	mr_txsb_default_params(&tp);
	if (cfg->kernel_params)
		tp.verbs_timeout_ns = mr_ib_timeout_ns(14);
	assert_int_equal(mr_txsb_init(&m->rq.e.snd.sb, &tp, m->init_psn), 0);
	mr_cc_default_params(&cp);
	cp.mode = cfg->cc_mode;
	if (cfg->kernel_params && !cfg->delay_on) {
		cp.use_delay = false;
		cp.min_cwnd = MR_CC_ONE;
	}
	assert_int_equal(mr_cc_init(&m->rq.e.snd.cc, &cp), 0);
	mr_path_default_params(&pp);
	pp.n_paths = cfg->n_paths;
	pp.single = cfg->single_path;
	if (cfg->no_explore)
		pp.explore_ns = 0;
	m->rq.path_rng = splitmix(m->cfg.seed ^ 0xBA7);
	assert_int_equal(mr_path_init(&m->rq.e.snd.pt, &pp, path_rand,
				      &m->rq.path_rng, 0), 0);
	rp.mtu = MODEL_MTU;
	rp.max_rd_atomic = 16;
	rp.rd_bytes_max = 2 * MR_RDASM_WINDOW;
	/*
	 * READs here are at most 6 packets: ranges of 2 make the multipath
	 * scenarios split them (MR-MP-28) under loss, trims and reordering.
	 */
	rp.rd_split_pkts = 2;
	rp.sq_size = MODEL_SRING;
	rp.probe_id = (u32)rnd(&m->rq.path_rng);
	rp.path_health = true;
	for (i = 0; i < MR_REQ_ST_N; i++)
		rp.status[i] = (u8)(i + 1);
	m->rq.e.ops = &rq_ops;
	m->rq.e.msn_idx = m->rq.msn_idx;
	mr_requester_start(&m->rq.e, &rp, 0);

	mr_receiver_init(&m->rp.rcv, m->init_psn, m->now);
	m->rp.rcv.ops = &rp_ops;
	if (cfg->ack_every)
		m->rp.rcv.w.ack_every = cfg->ack_every;
	/*
	 * MODEL_ACK_REORDER=<n>: the whole suite under another ack_reorder
	 * (MR-REL-3 c), for diagnosis; unset, the profile's.
	 */
	if (getenv("MODEL_ACK_REORDER"))
		m->rp.rcv.w.ack_reorder = (u16)atoi(getenv("MODEL_ACK_REORDER"));
	/*
	 * MODEL_ACK_BATCH=1: ACKs held for the timer's run (MR-REL-3,
	 * receive batches), due at once: packets that arrive at the same
	 * instant share one ACK. For diagnosis; unset, packet by packet.
	 */
	if (getenv("MODEL_ACK_BATCH"))
		m->rp.rcv.ack_batch = atoi(getenv("MODEL_ACK_BATCH")) != 0;
	m->rp.rcv.seq_err_interval_ns = 100 * US;	/* the kernel's default */
	/* matched to the requester's max_rd_atomic (MR-VERBS-15) */
	m->rp.rcv.max_dest_rd_atomic = 16;
	/* both ends use one PMTU (MR-ENC-12) */
	m->rp.rcv.pmtu = MODEL_MTU;
	memset(m->rp.wr_mem, 0xA5, sizeof(m->rp.wr_mem));
	memset(m->rp.rq_mem, 0xA5, sizeof(m->rp.rq_mem));
}

static bool model_done(const struct model *m)
{
	return m->rq.done_msn == m->cfg.n_msgs &&
	       m->rp.next_msn == m->cfg.n_msgs;
}

static void model_run(struct model *m)
{
	struct timespec t0, t1;
	u64 steps = 0, same = 0, last = 0;
	double wall;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rq_run(m);	/* the first messages are posted */
	while (!model_done(m)) {
		u64 t = MR_MIN(rq_wake(m), rp_wake(m));

		if (m->ch.n_heap)
			t = MR_MIN(t, m->ch.pool[m->ch.heap[0]].t);
		/* something must always be pending until everything is done */
		assert_true(t != MR_TIME_NEVER);
		if (t < m->now)
			t = m->now;
		same = t == last ? same + 1 : 0;
		assert_true(same < 100000);	/* no livelock at one instant */
		last = t;
		m->now = t;
		assert_true(m->now < m->cfg.max_virtual_ns);
		if (m->cfg.stall_until && !m->stalled &&
		    m->now >= m->cfg.stall_from) {
			m->stalled = true;
			m->cwnd_stall = mr_cc_window(&m->rq.e.snd.cc);
		}
		if (m->cfg.stall_until && !m->recovered &&
		    m->now >= m->cfg.stall_until + 2 * MS) {
			m->recovered = true;
			m->cwnd_after = mr_cc_window(&m->rq.e.snd.cc);
		}

		if (m->cfg.kill_rev_link && m->ch.dead_rev_link < 0 &&
		    m->now >= m->cfg.dead_from)
			m->ch.dead_rev_link = (int)link_of(rp_sport(m, 0));
		if (m->cfg.kill_link && m->ch.dead_link < 0 &&
		    m->now >= m->cfg.dead_from)
			/* kill the link the busiest path (0) hashes onto */
			m->ch.dead_link =
				(int)link_of(mr_path_sport(&m->rq.e.snd.pt, 0));

		if (m->cfg.stall_req)
			rq_timers(m);
		while (m->ch.n_heap && m->ch.pool[m->ch.heap[0]].t <= m->now) {
			u32 idx = heap_pop(&m->ch);
			struct spkt *k = &m->ch.pool[idx];

			if (k->to_rsp)
				rp_on_pkt(m, k);
			else
				rq_on_pkt(m, k->buf, k->len, k->ce);
			m->ch.free_list[m->ch.n_free++] = idx;
		}
		rp_timers(m);
		rq_timers(m);
		steps++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wall = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	printf("model[%s]: seed=%#llx msgs=%u pkts=%llu retx=%llu (%.2f%%) "
	       "rto=%llu spurious_rto=%llu sacked=%llu rack_lost=%llu "
	       "spurious=%llu goodput=%.2f Mbit/s\n",
	       m->cfg.name, (unsigned long long)m->cfg.seed, m->cfg.n_msgs,
	       (unsigned long long)m->rq.pkts_new,
	       (unsigned long long)m->rq.pkts_retx,
	       m->rq.pkts_new ? 100.0 * (double)m->rq.pkts_retx /
				(double)m->rq.pkts_new : 0.0,
	       (unsigned long long)m->rq.e.snd.sb.st.rto,
	       (unsigned long long)m->rq.e.snd.sb.st.spurious_rto,
	       (unsigned long long)m->rq.e.snd.sb.st.sacked,
	       (unsigned long long)m->rq.e.snd.sb.st.lost_rack,
	       (unsigned long long)m->rq.e.snd.sb.st.spurious,
	       (double)m->rp.bytes * 8e3 / (double)m->now);
	printf("model[%s]: chan sent=%llu lost=%llu dup=%llu corrupt=%llu "
	       "trim=%llu ce=%llu reord=%llu dead_drops=%llu | icrc_drops "
	       "rsp=%llu req=%llu | trim_nacks=%llu dup_drops=%llu acks=%llu\n",
	       m->cfg.name, (unsigned long long)m->ch.sent,
	       (unsigned long long)m->ch.lost, (unsigned long long)m->ch.dups,
	       (unsigned long long)m->ch.corrupted,
	       (unsigned long long)m->ch.trimmed,
	       (unsigned long long)m->ch.ce_marked,
	       (unsigned long long)m->ch.reordered,
	       (unsigned long long)m->ch.dead_drops,
	       (unsigned long long)m->rp.icrc_drops,
	       (unsigned long long)m->rq.icrc_drops,
	       (unsigned long long)m->rp.trims_nacked,
	       (unsigned long long)m->rp.dup_drops,
	       (unsigned long long)m->rp.acks);
	printf("model[%s]: paths rerolls=%llu (explores %llu) deaths=%llu revivals=%llu "
	       "probes=%llu failover_pkts=%llu | cc cwnd=%.2f cuts ecn=%llu "
	       "delay=%llu loss=%llu (random %llu) trim=%llu undo=%llu | "
	       "virtual=%.3f ms wall=%.2f s steps=%llu\n",
	       m->cfg.name, (unsigned long long)m->rq.e.snd.pt.rerolls,
	       (unsigned long long)m->rq.e.snd.pt.explores,
	       (unsigned long long)m->rq.e.snd.pt.deaths,
	       (unsigned long long)m->rq.e.snd.pt.revivals,
	       (unsigned long long)m->rq.probes,
	       (unsigned long long)m->rq.dead_failover_pkts,
	       (double)m->rq.e.snd.cc.cwnd / MR_CC_ONE,
	       (unsigned long long)m->rq.e.snd.cc.st.cuts_ecn,
	       (unsigned long long)m->rq.e.snd.cc.st.cuts_delay,
	       (unsigned long long)m->rq.e.snd.cc.st.cuts_loss,
	       (unsigned long long)m->rq.e.snd.cc.st.cuts_loss_rand,
	       (unsigned long long)m->rq.e.snd.cc.st.cuts_trim,
	       (unsigned long long)m->rq.e.snd.cc.st.rto_undos,
	       (double)m->now / 1e6, wall, (unsigned long long)steps);
	if (m->cfg.all_ops)
		printf("model[%s]: reads=%llu atomics=%llu read_resps=%llu "
		       "atomic_resps=%llu replays=%llu replay_drops=%llu "
		       "trimmed_resps=%llu dup_resps=%llu\n", m->cfg.name,
		       (unsigned long long)m->rq.reads,
		       (unsigned long long)m->rq.atomics,
		       (unsigned long long)m->rp.read_resps,
		       (unsigned long long)m->rp.atomic_resps,
		       (unsigned long long)m->rp.replays,
		       (unsigned long long)m->rp.replay_drops,
		       (unsigned long long)m->rq.trimmed_resps,
		       (unsigned long long)m->rq.dup_resps);

	/* both sides saw every message exactly once, in order */
	assert_int_equal(m->rp.next_msn, m->cfg.n_msgs);
	assert_int_equal(m->rq.done_msn, m->cfg.n_msgs);
	assert_int_equal(mr_txsb_outstanding(&m->rq.e.snd.sb), 0);
	/* every corrupted copy that reached an endpoint was dropped */
	assert_true(m->rp.icrc_drops + m->rq.icrc_drops + m->rp.trim_junk +
		    m->rq.trim_junk <= m->ch.corrupted);
}

static struct model *g_model;

static void run_cfg(const struct model_cfg *cfg)
{
	if (!g_model)
		g_model = calloc(1, sizeof(*g_model));
	assert_non_null(g_model);
	model_init(g_model, cfg);
	model_run(g_model);
	/* Every spurious loss is reported for the counters (MR-CONF-7). */
	assert_int_equal(g_model->rq.spurious_ev,
			 g_model->rq.e.snd.sb.st.spurious);
	/*
	 * Path deaths, revivals and PROBEs sent are reported as they happen
	 * (path_deaths, path_revivals, path_probes, MR-CONF-7); a matching
	 * PROBE_REPLY is a revival (MR-MP-11), any other one a duplicate.
	 */
	assert_int_equal(g_model->rq.deaths_ev, g_model->rq.e.snd.pt.deaths);
	assert_int_equal(g_model->rq.revivals_ev,
			 g_model->rq.e.snd.pt.revivals);
	assert_int_equal(g_model->rq.probes_ev, g_model->rq.probes);
	assert_int_equal(g_model->rq.probe_replies_ev,
			 g_model->rq.revivals_ev);
	assert_int_equal(g_model->rq.explores_ev, g_model->rq.e.snd.pt.explores);
}

static const struct model_cfg lossy = {
	.name = "lossy-100k",
	.seed = MODEL_BASE_SEED,
	.n_msgs = 100000,
	.loss_ppm = 50000,		/* 5% in each direction */
	.dup_ppm = 20000,
	.corrupt_ppm = 5000,
	.trim_ppm = 5000,
	.ce_ppm = 20000,
	.reorder_ppm = 200000,
	.far_ppm = 5000,
	.base_ns = 4 * US,
	.jitter_ns = 30 * US,
	.far_min_ns = 80 * US,
	.far_max_ns = 300 * US,
	.n_paths = 8,
	.cc_mode = MR_CC_DCTCP_SWIFT,
	.max_virtual_ns = 600000 * MS,
};

static void test_model_lossy(void **state)
{
	(void)state;
	run_cfg(&lossy);
	/* the impairments really happened */
	assert_true(g_model->ch.lost > 10000);
	assert_true(g_model->ch.corrupted > 1000);
	assert_true(g_model->rp.icrc_drops > 500);
	assert_true(g_model->rq.icrc_drops > 100);
	assert_true(g_model->ch.dups > 1000);
	assert_true(g_model->rp.trims_nacked > 100);
	assert_true(g_model->rq.pkts_retx > 10000);
	assert_true(g_model->rq.e.snd.sb.st.sacked > 10000);
}

/*
 * Every RC request opcode under the lossy channel: READ data and atomic
 * results verified at completion, duplicates of READs and atomics
 * answered from the responder's records (MR-REL-8, MR-REL-9), trimmed
 * READ responses asked for again (MR-REL-16).
 */
static void test_model_every_opcode(void **state)
{
	struct model_cfg c = lossy;

	(void)state;
	c.name = "every-opcode";
	c.seed ^= 0x0BCD;
	c.n_msgs = 30000;
	c.all_ops = true;
	/* READ re-requests count once per T_verbs, as the kernel sets it */
	c.kernel_params = true;
	run_cfg(&c);
	assert_true(g_model->rq.reads > 3000);
	assert_true(g_model->rq.atomics > 6000);
	assert_true(g_model->rp.read_resps > g_model->rq.reads);
	assert_true(g_model->rp.replays > 10);
	assert_true(g_model->rq.trimmed_resps > 10);
	assert_true(g_model->rq.dup_resps > 10);
	assert_int_equal(g_model->rp.atomic_word, g_model->rq.atomic_word);
}

static void test_model_clean(void **state)
{
	struct model_cfg c = lossy;

	(void)state;
	c.name = "clean";
	c.seed ^= 0x1111;
	c.n_msgs = 20000;
	c.loss_ppm = 0;
	c.dup_ppm = 0;
	c.corrupt_ppm = 0;
	c.trim_ppm = 0;
	c.far_ppm = 0;
	c.jitter_ns = 10 * US;	/* reordering well inside reo_wnd */
	c.expect_no_retx = true;
	run_cfg(&c);
	/* no loss and reordering within reo_wnd: nothing retransmitted */
	assert_int_equal(g_model->rq.pkts_retx, 0);
	assert_int_equal(g_model->rq.e.snd.sb.st.rto, 0);
	assert_int_equal(g_model->rq.e.snd.sb.st.lost_rack, 0);
	assert_true(g_model->rq.e.snd.sb.st.sacked > 1000);	/* it did reorder */
}

/*
 * Path 0's packets all dropped for 20 ms: it is declared DEAD, probed and
 * revived.  Again with an ACK every 4th packet: the RTO then re-sent the
 * hole's packets on path 0 too, and the cumulative ACK that followed
 * credited path 0 for originals that had arrived on other paths, so it
 * never died.  Either rule prevents that alone: MR-MP-19 credits no path
 * for a PSN sent twice, and MR-REL-3 h's ACKs let RACK find the hole's
 * losses before the RTO.
 */
static void run_path_dies(u16 ack_every, const char *name)
{
	struct model_cfg c = lossy;

	c.name = name;
	c.seed ^= 0x2222;
	c.n_msgs = 20000;
	c.loss_ppm = 10000;
	c.far_ppm = 0;
	c.trim_ppm = 0;
	c.kill_path0 = true;
	c.dead_from = 20 * MS;
	c.dead_until = 40 * MS;
	c.ack_every = ack_every;
	run_cfg(&c);
	assert_true(g_model->ch.dead_drops > 0);
	/* declared dead, its packets moved to other paths (MR-MP-8) */
	assert_true(g_model->rq.e.snd.pt.deaths >= 1);
	assert_true(g_model->rq.dead_failover_pkts >= 1);
	/* probed while dead, revived once the route healed (MR-MP-9/11) */
	assert_true(g_model->rq.probes >= 2);
	assert_true(g_model->rq.e.snd.pt.revivals >= 1);
	assert_int_not_equal(g_model->rq.e.snd.pt.path[0].state, MR_PATH_DEAD);
	assert_true(g_model->now > c.dead_until);
}

static void test_model_path_dies(void **state)
{
	(void)state;
	run_path_dies(2, "path-dies");
	run_path_dies(4, "path-dies-ack4");
}

static void test_model_path_dies_plb(void **state)
{
	struct model_cfg c = lossy;

	(void)state;
	c.name = "path-dies-plb";
	c.seed ^= 0x3333;
	c.n_msgs = 20000;
	c.kill_link = true;
	c.dead_from = 10 * MS;
	run_cfg(&c);
	assert_true(g_model->ch.dead_drops > 0);
	assert_true(g_model->rq.e.snd.pt.rerolls + g_model->rq.e.snd.pt.deaths >= 1);
}

static void test_model_single_path(void **state)
{
	struct model_cfg c = lossy;

	(void)state;
	c.name = "single-path";
	c.seed ^= 0x4444;
	c.n_msgs = 10000;
	c.single_path = true;
	run_cfg(&c);
	assert_int_equal(g_model->rq.e.snd.pt.rerolls, 0);
	assert_true(g_model->rq.pkts_retx > 0);
}

static void test_model_fixed_window(void **state)
{
	struct model_cfg c = lossy;

	(void)state;
	c.name = "fixed-window";
	c.seed ^= 0x5555;
	c.n_msgs = 10000;
	c.cc_mode = MR_CC_FIXED;
	run_cfg(&c);
}

/*
 * An application that sends in bursts and idles between them, as
 * mr-verify's phases do (each side is the requester in turn), with the
 * kernel's parameters, 1% loss and 2% of packets delayed 2-10 ms (beyond
 * the RTO: declared lost, and their copies delivered on other paths).
 * A path whose last packets before a gap were declared lost so has had no
 * delivery credited since; it must not carry that pending_since over the
 * 100 ms gap and be found DEAD by the first packets it sends after it
 * (MR-MP-29).  The fixed window of 256 packets puts dead_min_pkts
 * packets in flight on a path before its first delivery after the gap,
 * as 64 KiB messages do in the VM fabric: without MR-MP-29 this run had
 * 7 deaths.  No path fails here: no death.
 */
static void test_model_bursts(void **state)
{
	struct model_cfg c = lossy;

	(void)state;
	c.name = "bursts";
	c.seed ^= 0xAAAA;
	c.n_msgs = 6000;
	c.kernel_params = true;
	c.loss_ppm = 10000;
	c.dup_ppm = 0;
	c.corrupt_ppm = 0;
	c.trim_ppm = 0;
	c.far_ppm = 20000;
	c.far_min_ns = 2 * MS;
	c.far_max_ns = 10 * MS;
	c.base_ns = 300 * US;
	c.jitter_ns = 20 * US;
	c.cc_mode = MR_CC_FIXED;
	c.burst_msgs = 30;
	c.idle_ns = 100 * MS;
	run_cfg(&c);
	assert_true(g_model->rq.e.snd.sb.st.lost_rack > 20);
	assert_int_equal(g_model->rq.e.snd.pt.deaths, 0);
}

/*
 * The kernel's parameters on a software fabric: no loss, ECN, trimming,
 * duplication, corruption or far delays; PROBE_REPLYs at most one per
 * 50 us (MR-MP-10).
 */
static void software_fabric(struct model_cfg *c)
{
	c->kernel_params = true;
	c->probe_gap_ns = 50 * US;
	c->loss_ppm = 0;
	c->ce_ppm = 0;
	c->trim_ppm = 0;
	c->dup_ppm = 0;
	c->corrupt_ppm = 0;
	c->far_ppm = 0;
}

/*
 * Dead-path handling as the kernel runs it (path_health=1, kernel
 * defaults: no delay signal, T_verbs 67 ms, retry_cnt 7) on a fabric
 * whose round trip (~600 us, a loaded VM host) exceeds probe_interval
 * (500 us), with the responder answering at most one PROBE per 50 us
 * (MR-MP-10).  Half the paths black-hole for 20 ms, whatever their
 * entropy: they must be declared dead (MR-MP-8) and, once the route
 * heals, probed back to life (MR-MP-9, MR-MP-11) although every probe's
 * reply arrives after the next probe would be due.  Before probes backed
 * off, each probe was replaced before its reply came back, no reply ever
 * matched, and the QP ran on one path for good (and on none after one
 * more death).  Four seeds.
 *
 * This ran with seven of eight paths in the hole until that stopped
 * giving deaths: the window of 64 packets puts about two on each path
 * after it becomes pending, the QP stalls until its RTO (RACK per path
 * sees no later delivery on a dead path), and the window restarts at one
 * packet that mostly goes into the hole, so no path reaches
 * dead_min_pkts; 0 or 1 deaths in six seeds with ack_every 2 or 4.  Such
 * a QP waits the hole out on RTOs; on a real fabric the RTO's re-rolls
 * (MR-MP-23) move its paths off the failed routes.
 */
static void run_slow_probes(u64 seed_x)
{
	struct model_cfg c = lossy;
	int i;

	c.name = "slow-probes";
	c.seed ^= 0x6666 ^ seed_x;
	c.n_msgs = 20000;
	software_fabric(&c);
	c.reorder_ppm = 20000;
	c.base_ns = 300 * US;
	c.jitter_ns = 20 * US;
	c.kill_path0 = true;
	c.kill_paths = 4;
	c.dead_from = 20 * MS;
	c.dead_until = 40 * MS;
	run_cfg(&c);
	printf("model[%s]: probes=%llu replies=%llu unmatched=%llu "
	       "rate_limited=%llu usable=%u\n", c.name,
	       (unsigned long long)g_model->rq.probes,
	       (unsigned long long)g_model->rq.probe_replies,
	       (unsigned long long)g_model->rq.bad_replies,
	       (unsigned long long)g_model->rp.probes_limited,
	       mr_path_usable(&g_model->rq.e.snd.pt));
	assert_true(g_model->now > c.dead_until);
	assert_true(g_model->rq.e.snd.pt.deaths >= 1);
	/* every dead path came back once the route healed */
	assert_int_equal(g_model->rq.e.snd.pt.revivals, g_model->rq.e.snd.pt.deaths);
	for (i = 0; i < g_model->rq.e.snd.pt.n; i++)
		assert_int_not_equal(g_model->rq.e.snd.pt.path[i].state,
				     MR_PATH_DEAD);
}

static void test_model_slow_probes(void **state)
{
	u64 k;

	(void)state;
	for (k = 0; k < 4; k++)
		run_slow_probes(k);
}

/*
 * A black-holed reverse route (MR-MP-26): from 2 ms on, the fabric link
 * that the responder's packets on path 0 hash onto drops everything
 * towards the requester, for good; every forward route works.  With every
 * opcode, the READ and ATOMIC responses of requests sent on path 0 are
 * lost too.  The responder answers on the path of the packet it answers
 * with an entropy that follows the path's request entropy (MR-MP-15), so
 * the requester's re-roll after the RTO (MR-MP-23) moves path 0's reverse
 * route off the dead link.  The same run with the version 1.0 reply
 * entropy (a fixed spread of the path index, reply_fixed) re-rolls in
 * vain: the reverse route never moves, drops go on for the whole run and
 * the run takes far longer.
 */
static void test_model_reverse_dies(void **state)
{
	struct model_cfg c = lossy;
	u64 drops, end;

	(void)state;
	c.name = "reverse-dies";
	c.seed ^= 0x7777;
	c.n_msgs = 20000;
	c.all_ops = true;
	software_fabric(&c);
	c.kill_rev_link = true;
	c.dead_from = 2 * MS;
	run_cfg(&c);
	printf("model[%s]: rev_dead_drops=%llu usable=%u\n", c.name,
	       (unsigned long long)g_model->ch.rev_dead_drops,
	       mr_path_usable(&g_model->rq.e.snd.pt));
	drops = g_model->ch.rev_dead_drops;
	end = g_model->now;
	assert_true(drops > 0);
	assert_true(g_model->rq.e.snd.pt.rerolls >= 1);
	/* path 0 answers on a working link again */
	assert_int_not_equal(link_of(rp_sport(g_model, 0)),
			     (u32)g_model->ch.dead_rev_link);

	c.name = "reverse-dies-fixed";
	c.reply_fixed = true;
	run_cfg(&c);
	printf("model[%s]: rev_dead_drops=%llu usable=%u\n", c.name,
	       (unsigned long long)g_model->ch.rev_dead_drops,
	       mr_path_usable(&g_model->rq.e.snd.pt));
	assert_int_equal(link_of(rp_sport(g_model, 0)),
			 (u32)g_model->ch.dead_rev_link);
	assert_true(drops < g_model->ch.rev_dead_drops);
	assert_true(end < g_model->now);
}

/*
 * A software path as the kernel runs on it (kernel defaults: no delay
 * signal; no ECN, trims, duplication or corruption), RTT 1 ms and a
 * bottleneck of one packet per 40 us, random loss on data and ACKs.  The
 * goodput at 1% and 5% loss is compared with the same transfer without
 * loss.  Random loss is not congestion (MR-CC-10): when every loss
 * halved the window, 1% cost half the goodput and 5% three quarters
 * (benchmarks.rst); the targets are 80% of the lossless goodput at 1%.
 */
static const struct model_cfg lossy_link = {
	.name = "lossy-link",
	.seed = MODEL_BASE_SEED ^ 0x7777,
	.n_msgs = 6000,
	.reorder_ppm = 20000,
	.base_ns = 500 * US,
	.jitter_ns = 20 * US,
	.gap_ns = 40 * US,
	.n_paths = 8,
	.cc_mode = MR_CC_DCTCP_SWIFT,
	.kernel_params = true,
	.max_virtual_ns = 60000 * MS,
};

static double run_goodput(u32 loss_ppm, u16 ack_every, const char *name)
{
	struct model_cfg c = lossy_link;

	c.name = name;
	c.loss_ppm = loss_ppm;
	c.ack_every = ack_every;
	run_cfg(&c);
	return (double)g_model->rp.bytes * 8e3 / (double)g_model->now;
}

/* The e2e fabric's four spines (or three: one out of the routes). */
static void spines_cfg(struct model_cfg *c, u32 spines, u64 slow_gap_ns,
		       const char *name)
{
	*c = lossy_link;
	c->name = name;
	c->reorder_ppm = 0;
	c->gap_ns = 0;
	c->spine_gap_ns = 1000 * US;
	c->spine_ce_ns = 4 * MS;
	c->base_ns = 1000 * US;
	c->n_msgs = 3000;
	c->spines = spines;
	c->slow_spine_gap_ns = slow_gap_ns;
}

/*
 * Four spines, the default number of paths and seed number @k of a
 * scenario that runs several: the fabric scenarios' tests.
 */
static void spines_seed_cfg(struct model_cfg *c, u64 k, const char *name)
{
	spines_cfg(c, 4, 0, name);
	c->seed = MODEL_BASE_SEED ^ (k * 0x9E3779B97F4A7C15ULL);
	c->n_paths = MR_PATH_DEFAULT;
}

/*
 * Percent the busiest or idlest of the four spines is off their mean,
 * rounded up: at most P exactly when every spine is within P% of it.
 */
static u32 spine_spread(void)
{
	u64 sum = 0, worst = 0;
	int i;

	for (i = 0; i < 4; i++)
		sum += g_model->ch.spine_pkts[i];
	for (i = 0; i < 4 && sum; i++) {
		u64 x = g_model->ch.spine_pkts[i] * 4 * 100, m = sum * 100;
		u64 d = x > m ? x - m : m - x;

		worst = MR_MAX(worst, (d + sum - 1) / sum);
	}
	return (u32)worst;
}

static double run_spines(u32 spines, u64 slow_gap_ns, const char *name)
{
	struct model_cfg c;

	spines_cfg(&c, spines, slow_gap_ns, name);
	run_cfg(&c);
	printf("model[%s]: spine packets %llu %llu %llu %llu, rerolls %u\n",
	       c.name, (unsigned long long)g_model->ch.spine_pkts[0],
	       (unsigned long long)g_model->ch.spine_pkts[1],
	       (unsigned long long)g_model->ch.spine_pkts[2],
	       (unsigned long long)g_model->ch.spine_pkts[3],
	       (unsigned int)g_model->rq.e.snd.pt.rerolls);
	return (double)g_model->rp.bytes * 8e3 / (double)g_model->now;
}

/*
 * The e2e fabric in the model: four spines, each a queue serialising one
 * packet per ms (8 Mbit/s) and marking CE above 4 ms of queueing, nothing
 * lost. The entropies land on the spines unevenly, so their queues differ
 * by milliseconds: with one RACK reference for the QP, packets on a longer
 * queue were declared lost whenever a later one on a shorter queue
 * arrived (rack_lost 2027, 502 spurious, 15% resent, 3 paths declared
 * dead). Judged per path (MR-LOSS-2) nothing is resent and no path dies.
 * The hash put three of the eight paths on one spine and one on
 * another; no round reached PLB's CE threshold, so nothing was
 * re-rolled and the spines carried 747 to 3328 packets. Re-rolling the
 * paths much hotter than the coolest (MR-MP-27) brings every spine
 * within 20% of the mean, the fabric scenario's criterion.
 */
static void test_model_spines(void **state)
{
	(void)state;
	run_spines(4, 0, "spines");
	assert_int_equal(g_model->ch.lost, 0);
	assert_true(g_model->rq.e.snd.sb.st.spurious <= 5);
	assert_true(g_model->rq.pkts_retx <= g_model->rq.pkts_new / 100);
	assert_int_equal(g_model->rq.e.snd.pt.deaths, 0);
	assert_true(spine_spread() <= 20);
}

/*
 * The default number of paths on four spines, over 20 seeds: the hash
 * leaves a spine without a path in some of them, and nothing in the path
 * layer moves a path onto a spine no path uses (it re-rolls away from
 * congestion only), so the default must be large enough that this is
 * rare (MR-MP-1).  Every one of these 20 seeds must keep each spine
 * within 20% of the mean, the fabric scenario's criterion: with 16 paths
 * the worst was 17%; with 8, one seed here was 37% off (in 100 seeds of
 * another series, 18 were beyond 20%, one spine carrying nothing), and
 * 2 of 200 with 16.
 */
static void test_model_spines_default_paths(void **state)
{
	struct model_cfg c;
	u32 k, spread;

	(void)state;
	for (k = 1; k <= 20; k++) {
		spines_seed_cfg(&c, k, "spines-default-paths");
		run_cfg(&c);
		spread = spine_spread();
		printf("model[%s]: seed %u: worst spine %u%% off the mean\n",
		       c.name, k, spread);
		assert_true(spread <= 20);
		assert_int_equal(g_model->rq.e.snd.pt.deaths, 0);
	}
}

/*
 * The four spines with switch-port buffers: a spine drops a request that
 * would wait more than 4 ms in its queue (four packets).  The queues
 * fill in bursts and drop several requests of one path in a row; when
 * those were the last the path sent for a while, RACK judged per path
 * (MR-LOSS-2) has no later delivery of that path to find them by, the
 * QP's RTO is restarted by the other paths' progress (MR-LOSS-7), and
 * after dead_rtos x RTO_base MR-MP-8 declares the path DEAD, as it must:
 * its route lost everything it was given.  What it must not do is take
 * a path for dead whose requests got through: no request sent on a dead
 * path since it became pending may have reached the responder more than
 * RTO_base before the death (an ACK would have credited the path by
 * then, MR-MP-19, MR-MP-31).  The e2e fabric's spray case judges its
 * deaths the same way, from metaroce_pkt_tx and metaroce_pkt_rx.  In
 * these 8 seeds 0 to 2 paths died each, 9 in all, none of them missed.
 */
static void test_model_spines_drop_tail(void **state)
{
	struct model_cfg c;
	u64 deaths = 0, drops = 0;
	u32 k;

	(void)state;
	for (k = 1; k <= 8; k++) {
		spines_seed_cfg(&c, k, "spines-drop-tail");
		c.spine_drop_ns = 4 * MS;
		run_cfg(&c);
		printf("model[%s]: seed %u: %llu requests dropped by the "
		       "spines, %llu paths declared dead, %llu of them after "
		       "a request got through\n", c.name, k,
		       (unsigned long long)g_model->ch.spine_drops,
		       (unsigned long long)g_model->rq.e.snd.pt.deaths,
		       (unsigned long long)g_model->rq.deaths_missed);
		assert_int_equal(g_model->rq.deaths_missed, 0);
		deaths += g_model->rq.e.snd.pt.deaths;
		drops += g_model->ch.spine_drops;
	}
	/* the queues dropped, and the rule was reached */
	assert_true(drops > 0);
	assert_true(deaths > 0);
}

/*
 * A spine black-holed for a second, then healed (the fabric scenario's
 * black hole): its paths die and their probes re-roll them onto the
 * other spines, or their losses re-roll them first (in one seed of 8 no
 * path died), so after the heal no path uses it.  PLB and MR-MP-27
 * move paths only away from a route, so the healed spine would stay
 * idle while the three others mark; exploration (MR-MP-32) re-rolls the
 * hottest path while even the coolest is marked, until one lands on the
 * idle spine.  From 1 s after the heal the healed spine must carry at
 * least 80% of the spines' mean (88-104% in 24 seeds; with one
 * exploration per 100 ms rather than 50, three of them were at 52-78%;
 * without exploration half of these 8 are below 50%).  Returns its
 * percent of the mean.
 */
static u32 run_spine_heal(u64 seed_k, bool explore)
{
	struct model_cfg c;
	u64 sum = 0;
	u32 i, pct;

	spines_seed_cfg(&c, seed_k, explore ? "spine-heal" : "spine-heal-no-explore");
	c.n_msgs = 6000;
	c.hole_spine = 2;
	c.dead_from = 500 * MS;
	c.dead_until = 1500 * MS;
	c.heal_count_from = 2500 * MS;
	c.no_explore = !explore;
	run_cfg(&c);
	for (i = 0; i < 4; i++)
		sum += g_model->ch.spine_heal[i];
	pct = sum ? (u32)(g_model->ch.spine_heal[1] * 4 * 100 / sum) : 0;
	printf("model[%s]: seed %llu: spine packets from 1 s after the heal %llu %llu %llu %llu: spine 2 at %u%% of the mean; the hole took %llu of %llu\n",
	       c.name, (unsigned long long)seed_k,
	       (unsigned long long)g_model->ch.spine_heal[0],
	       (unsigned long long)g_model->ch.spine_heal[1],
	       (unsigned long long)g_model->ch.spine_heal[2],
	       (unsigned long long)g_model->ch.spine_heal[3], pct,
	       (unsigned long long)g_model->ch.dead_drops,
	       (unsigned long long)g_model->ch.hole_offered);
	assert_true(g_model->ch.dead_drops > 0);
	/*
	 * The paths on the dead spine left it, whether they died (MR-MP-8)
	 * or their losses re-rolled them first (MR-MP-7): it took less
	 * than a quarter of its share of the hole's packets.
	 */
	assert_true(g_model->ch.dead_drops * 16 < g_model->ch.hole_offered);
	assert_true(sum > 1000);
	return pct;
}

static void test_model_spine_heal(void **state)
{
	u32 k, worst = 100, off = 0;

	(void)state;
	for (k = 1; k <= 8; k++) {
		u32 pct = run_spine_heal(k, true);

		worst = MR_MIN(worst, pct);
		assert_true(g_model->rq.e.snd.pt.explores >= 1);
	}
	/* the same without exploration, for the record (rationale) */
	for (k = 1; k <= 8; k++)
		off += run_spine_heal(k, false) < 50;
	printf("model[spine-heal]: worst healed spine %u%% of the mean; without exploration %u of 8 seeds below 50%%\n",
	       worst, off);
	assert_true(worst >= 80);
}

/*
 * Three of four spines black-holed for a second (500 ms to 1.5 s), the
 * fabric form of a QP losing most of its paths at once; every seed also
 * runs without the hole for reference.  Each RTO re-rolls the paths in
 * flight (MR-MP-23), three times in four onto a dead spine, and the
 * windows between RTOs are short, so few paths reach dead_min_pkts
 * (MR-MP-8).  What finds the live spine is the retransmission of each
 * RTO episode going on the path answered last (MR-MP-33): by weight
 * alone, the live spine carried 65 to 902 packets in the hole in these 8
 * seeds, of about 1000 it could carry; with MR-MP-33, 627 to 923.
 * Required: every message arrives (run_cfg), the live spine carries at
 * least half of what it could, and the hole costs less than 1.5 s (a
 * quarter of the capacity for a second costs 0.75 s).
 */
static void test_model_three_spines_dead(void **state)
{
	struct model_cfg c;
	u64 k, t0;

	(void)state;
	for (k = 1; k <= 8; k++) {
		spines_seed_cfg(&c, k, "three-spines-dead-ref");
		c.n_msgs = 6000;
		run_cfg(&c);
		t0 = g_model->now;
		c.name = "three-spines-dead";
		c.hole_mask = 0xe;
		c.dead_from = 500 * MS;
		c.dead_until = 1500 * MS;
		c.heal_count_from = 2500 * MS;
		run_cfg(&c);
		printf("model[%s]: seed %llu: %llu ms against %llu ms without the hole; in the hole %llu of %llu packets dropped, %llu through spine 0; deaths %u rerolls %u\n",
		       c.name, (unsigned long long)k,
		       (unsigned long long)(g_model->now / MS), (unsigned long long)(t0 / MS),
		       (unsigned long long)g_model->ch.dead_drops,
		       (unsigned long long)g_model->ch.hole_offered,
		       (unsigned long long)(g_model->ch.hole_offered - g_model->ch.dead_drops),
		       (unsigned int)g_model->rq.e.snd.pt.deaths,
		       (unsigned int)g_model->rq.e.snd.pt.rerolls);
		assert_true(g_model->ch.dead_drops > 0);
		assert_true(g_model->ch.hole_offered - g_model->ch.dead_drops >= 500);
		assert_true(g_model->now < t0 + 1500 * MS);
	}
}

/*
 * The fabric scenario's reverse case: spine 2 black-holes responder ->
 * requester packets for a second (ACKs, NACKs, READ and atomic
 * responses on the reverse routes through it, MR-MP-26), with every
 * opcode, in bursts of 16 messages 5 ms apart as mr-verify's phases
 * go.  A path that loses only its ACKs is credited by cumulative ACKs
 * on other paths (MR-MP-19), so the losses that stall the QP are a
 * burst's last packets and READ responses: only the RTO or the READ's
 * stall finds them.  Measured per seed: the run's time against the same
 * seed without the hole, and the longest wait for a completion in the
 * hole.  Retransmissions by weight alone waited 24-114 ms, 44 RTOs in
 * these 8 seeds; on the path answered last (MR-MP-33) 13-81 ms, 33
 * RTOs, with 1990 of 14416 reverse packets lost in the hole.  A stalled
 * READ or atomic re-rolling its request's path, whose answers now come
 * back on it (MR-MP-34, MR-MP-15): 13-53 ms, 17 RTOs, 473 of 16248
 * lost (2026-12-05); with the datapath of 2026-12-06, 20-37 ms, 10 RTOs,
 * 368 of 16062 lost.  Required: no wait of 200 ms or more (the VM fabric once
 * stalled a direction for a second in such a hole, before MR-MP-33),
 * and under 6% of the reverse packets lost in the hole over the seeds:
 * a path whose reverse route failed moves off it.
 */
static void test_model_reverse_spine_hole(void **state)
{
	struct model_cfg c;
	u64 k, t0, rto0, lost = 0, offered = 0;

	(void)state;
	for (k = 1; k <= 8; k++) {
		spines_seed_cfg(&c, k, "reverse-spine-hole-ref");
		c.n_msgs = 3000;
		c.all_ops = true;
		c.burst_msgs = 16;
		c.idle_ns = 5 * MS;
		run_cfg(&c);
		t0 = g_model->now;
		rto0 = g_model->rq.e.snd.sb.st.rto;
		c.name = "reverse-spine-hole";
		c.hole_spine = 2;
		c.hole_rev = true;
		c.dead_from = 500 * MS;
		c.dead_until = 1500 * MS;
		run_cfg(&c);
		printf("model[%s]: seed %llu: %llu ms against %llu ms without the hole; longest wait in the hole %llu ms; rtos %llu (%llu without); %llu of %llu reverse packets dropped; deaths %u rerolls %u\n",
		       c.name, (unsigned long long)k,
		       (unsigned long long)(g_model->now / MS), (unsigned long long)(t0 / MS),
		       (unsigned long long)(g_model->rq.max_wait / MS),
		       (unsigned long long)g_model->rq.e.snd.sb.st.rto,
		       (unsigned long long)rto0,
		       (unsigned long long)g_model->ch.rev_dead_drops,
		       (unsigned long long)g_model->ch.rev_offered,
		       (unsigned int)g_model->rq.e.snd.pt.deaths,
		       (unsigned int)g_model->rq.e.snd.pt.rerolls);
		assert_true(g_model->ch.rev_dead_drops > 0);
		assert_true(g_model->rq.max_wait < 200 * MS);
		lost += g_model->ch.rev_dead_drops;
		offered += g_model->ch.rev_offered;
	}
	printf("model[reverse-spine-hole]: %llu of %llu reverse packets lost in the hole\n",
	       (unsigned long long)lost, (unsigned long long)offered);
	assert_true(lost * 100 < offered * 6);
}

/*
 * The fabric scenario's slow case: one of four spines at a quarter of
 * the others' rate, against the same transfer with that spine out of
 * the routes (three spines).  Traffic must move off the slow spine
 * (MR-MP-4's CE scaling, MR-MP-27's re-roll) rather than let its marks
 * cut the whole window: with equal shares one seed in eight fell to 79%.
 */
static void test_model_slow_spine(void **state)
{
	double g3, gs;

	(void)state;
	g3 = run_spines(3, 0, "three-spines");
	gs = run_spines(4, 4000 * US, "slow-spine");
	printf("model: goodput with a slow spine %.2f Mbit/s, %.0f%% of %.2f with three spines\n",
	       gs, gs * 100 / g3, g3);
	assert_true(gs >= 0.8 * g3);
}

/*
 * Random loss costs little more than the packets lost: at 1% goodput
 * within 10% of lossless, at 5% within 30%, with an ACK every 2nd and
 * every 4th packet.  With 4 and no MR-REL-3 h, 5% gave 69%: the RACK of
 * the lost packet's path waited for coalesced ACKs.
 */
static void run_random_loss(u16 ack_every)
{
	double g0, g1, g5;

	g0 = run_goodput(0, ack_every, "lossy-link-0%");
	assert_int_equal(g_model->rq.pkts_retx, 0);
	g1 = run_goodput(10000, ack_every, "lossy-link-1%");
	assert_true(g_model->ch.lost > 200);
	/* the losses were taken for random: gentle cuts */
	assert_true(g_model->rq.e.snd.cc.st.cuts_loss_rand > 50);
	g5 = run_goodput(50000, ack_every, "lossy-link-5%");
	printf("model[lossy-link]: ack_every %u: goodput %.2f, %.2f (%.0f%%), %.2f (%.0f%%) "
	       "Mbit/s at 0%%, 1%%, 5%% loss\n", ack_every, g0, g1,
	       100 * g1 / g0, g5, 100 * g5 / g0);
	assert_true(g1 >= 0.9 * g0);
	assert_true(g5 >= 0.7 * g0);
}

static void test_model_random_loss_goodput(void **state)
{
	(void)state;
	run_random_loss(2);
	run_random_loss(4);
}

/*
 * The peer stops for 30 ms (a VM the host did not run): nothing is lost,
 * everything in flight arrives late.  The RTO fires during the stall and
 * resends one packet per expiry (the window is one packet); the first ACK
 * after the stall echoes a packet sent before the first expiry, so the RTO
 * is undone (MR-LOSS-15): the packets it declared lost are not resent and
 * the window is what it was (MR-CC-11).  Before, the whole window was
 * resent (the responder's duplicates) and the window restarted at one
 * packet.
 */
static void test_model_stall_undo(void **state)
{
	struct model_cfg c = lossy_link;

	(void)state;
	c.name = "stall";
	c.seed ^= 0x8888;
	c.n_msgs = 3000;
	c.stall_from = 20 * MS;
	c.stall_until = 50 * MS;
	run_cfg(&c);
	printf("model[stall]: window %u before the stall, %u after\n",
	       g_model->cwnd_stall >> MR_CC_SHIFT,
	       g_model->cwnd_after >> MR_CC_SHIFT);
	assert_true(g_model->now > c.stall_until);
	assert_true(g_model->rq.e.snd.sb.st.rto >= 1);
	assert_int_equal(g_model->rq.e.snd.sb.st.spurious_rto, 1);
	assert_int_equal(g_model->rq.e.snd.cc.st.rto_undos, 1);
	/* one copy per expiry went out, nothing else */
	assert_int_equal(g_model->rq.pkts_retx, g_model->rq.e.snd.sb.st.rto);
	assert_int_equal(g_model->rp.dup_drops, g_model->rq.e.snd.sb.st.rto);
	assert_true(g_model->cwnd_stall > 8 * MR_CC_ONE);
	assert_true(g_model->cwnd_after >= g_model->cwnd_stall);
}

/*
 * The requester's host stalls for 30 ms, six RTO_base, right after it
 * sent a window of 256 packets over 8 paths (a vCPU that did not run it,
 * as under emulation): nothing comes back meanwhile, and when it
 * resumes its RTO fires before it takes the ACKs that waited.  The
 * expiry declares every packet lost and the retransmissions go out on
 * the paths again, whose pending_since is from before the stall; no path
 * has delivered since, so the silence was the QP's, not a route's, and
 * no path may be declared DEAD for it (MR-MP-30).  Without MR-MP-30 this
 * run had 8 deaths, every path.  Again with an ACK every 4th packet: the
 * ACK taken right before the stall credits paths other than one that
 * had just become pending, for packets sent before it; counted as
 * evidence against that path, this run had 6 deaths, so MR-MP-30 counts
 * only deliveries more than a minimum RTT after pending_since.
 */
static void test_model_stall_sender(void **state)
{
	struct model_cfg c = lossy_link;

	(void)state;
	c.name = "stall-sender";
	c.seed ^= 0xBBBB;
	c.n_msgs = 3000;
	c.gap_ns = 0;
	c.cc_mode = MR_CC_FIXED;
	c.stall_from = 20 * MS;
	c.stall_until = 50 * MS;
	c.stall_req = true;
	run_cfg(&c);
	assert_true(g_model->now > c.stall_until);
	assert_true(g_model->rq.e.snd.sb.st.rto >= 1);
	assert_int_equal(g_model->rq.e.snd.pt.deaths, 0);
	c.name = "stall-sender-ack4";
	c.ack_every = 4;
	run_cfg(&c);
	assert_true(g_model->rq.e.snd.sb.st.rto >= 1);
	assert_int_equal(g_model->rq.e.snd.pt.deaths, 0);
}

/*
 * The delay signal on a software path whose hosts are not always
 * scheduled (cc_delay=1, MR-CC-6, MR-CC-7): RTT 600 us, a bottleneck of
 * one packet per 40 us (a BDP of 15 packets), and in every 2 ms the
 * receiving host stops for up to 1 ms, so that a quarter of the RTT
 * samples come late by hundreds of us.  With the delay signal on the
 * goodput must stay within 10% of the same run without it, and the
 * signal must still hold the queue the bottleneck builds down: srtt
 * under half of that without the delay signal (the window then grows
 * to 256 packets, 10 ms of queue).  Reacting to every sample above a
 * target of base + 15 us, the window collapsed to a few packets and the
 * goodput to 17%; the smallest sample per round alone gave 78%, with
 * the base-relative target too 99%.
 */
static double run_sched(bool delay, u64 *srtt, u64 *cuts)
{
	struct model_cfg c = lossy_link;

	c.name = delay ? "sched-noise-delay" : "sched-noise";
	c.seed ^= 0x9999;
	c.delay_on = delay;
	c.base_ns = 300 * US;
	c.sched_period_ns = 2 * MS;
	c.sched_max_ns = 1 * MS;
	run_cfg(&c);
	*srtt = g_model->rq.e.snd.cc.srtt_ns;
	*cuts = g_model->rq.e.snd.cc.st.cuts_delay;
	return (double)g_model->rp.bytes * 8e3 / (double)g_model->now;
}

static void test_model_sched_noise(void **state)
{
	u64 srtt0, srtt1, cuts0, cuts1;
	double g0, g1;

	(void)state;
	g0 = run_sched(false, &srtt0, &cuts0);
	g1 = run_sched(true, &srtt1, &cuts1);
	printf("model[sched-noise]: goodput %.2f Mbit/s, srtt %llu us without "
	       "the delay signal; %.2f Mbit/s (%.0f%%), srtt %llu us, %llu "
	       "delay cuts with it\n", g0, (unsigned long long)srtt0 / 1000,
	       g1, 100 * g1 / g0, (unsigned long long)srtt1 / 1000,
	       (unsigned long long)cuts1);
	assert_int_equal(cuts0, 0);
	assert_true(cuts1 > 0);
	assert_true(g1 >= 0.9 * g0);
	assert_true(srtt1 < srtt0 / 2);
}

static int teardown(void **state)
{
	(void)state;
	free(g_model);
	g_model = NULL;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_spines),
		cmocka_unit_test(test_model_spines_default_paths),
		cmocka_unit_test(test_model_spines_drop_tail),
		cmocka_unit_test(test_model_slow_spine),
		cmocka_unit_test(test_model_spine_heal),
		cmocka_unit_test(test_model_clean),
		cmocka_unit_test(test_model_lossy),
		cmocka_unit_test(test_model_every_opcode),
		cmocka_unit_test(test_model_path_dies),
		cmocka_unit_test(test_model_path_dies_plb),
		cmocka_unit_test(test_model_single_path),
		cmocka_unit_test(test_model_fixed_window),
		cmocka_unit_test(test_model_bursts),
		cmocka_unit_test(test_model_slow_probes),
		cmocka_unit_test(test_model_three_spines_dead),
		cmocka_unit_test(test_model_reverse_spine_hole),
		cmocka_unit_test(test_model_reverse_dies),
		cmocka_unit_test(test_model_random_loss_goodput),
		cmocka_unit_test(test_model_stall_undo),
		cmocka_unit_test(test_model_stall_sender),
		cmocka_unit_test(test_model_sched_noise),
	};

	/* MR_MODEL_ONLY=<glob>: run only the matching scenarios */
	if (getenv("MR_MODEL_ONLY"))
		cmocka_set_test_filter(getenv("MR_MODEL_ONLY"));
	return cmocka_run_group_tests_name("model", tests, NULL, teardown);
}
