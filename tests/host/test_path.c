// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests: multipath path table (kernel/proto/path.c): entropy
 * allocation (MR-MP-2), WRR spraying (MR-MP-4, MR-MP-5), the path
 * answered last for a retransmission in an RTO episode (MR-MP-33), rounds and
 * PLB-style re-rolls on ECN / loss / trims (MR-MP-6, MR-MP-7) and on RTO
 * (MR-MP-23) and on a stalled answer (MR-MP-34), exploration (MR-MP-32),
 * dead-path detection (MR-MP-8), probing and revival (MR-MP-9, MR-MP-11)
 * also when a probe's round trip exceeds probe_interval,
 * all paths dead (MR-MP-12), single-path mode (MR-MP-13).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "path.h"
#include "wire.h"

#define US	1000ULL

static struct mr_path_table pt;

static u32 xorshift(void *ctx)
{
	u32 *s = ctx;

	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static u32 rng_state;

/* Returns the same value forever: forces entropy collisions. */
static u32 stuck(void *ctx)
{
	(void)ctx;
	return 0x1234;
}

static void setup(u8 n, bool single)
{
	struct mr_path_params p;

	mr_path_default_params(&p);
	p.n_paths = n;
	p.single = single;
	rng_state = 0x9e3779b9;
	assert_int_equal(mr_path_init(&pt, &p, xorshift, &rng_state, 0), 0);
}

static void test_init_entropy(void **state)
{
	struct mr_path_params p;
	int i, j;

	(void)state;
	setup(MR_PATH_MAX, false);
	assert_int_equal(pt.n, 64);
	for (i = 0; i < pt.n; i++) {
		assert_true(mr_path_entropy(&pt, i) <= MR_PATH_ENTROPY_MASK);
		assert_int_equal(mr_path_sport(&pt, i),
				 0xC000 | mr_path_entropy(&pt, i));
		for (j = 0; j < i; j++)
			assert_int_not_equal(mr_path_entropy(&pt, i),
					     mr_path_entropy(&pt, j));
	}
	mr_path_default_params(&p);
	assert_int_equal(p.n_paths, 16);
	p.n_paths = 65;
	assert_int_equal(mr_path_init(&pt, &p, xorshift, &rng_state, 0),
			 MR_ERR_INVAL);
	p.n_paths = 8;
	assert_int_equal(mr_path_init(&pt, &p, NULL, NULL, 0), MR_ERR_INVAL);
	/* a broken generator still terminates */
	assert_int_equal(mr_path_init(&pt, &p, stuck, NULL, 0), 0);
	assert_int_equal(mr_path_set_entropy(&pt, 1, 0x4000), MR_ERR_INVAL);
	assert_int_equal(mr_path_set_entropy(&pt, 1, 0x3fff), 0);
	assert_int_equal(mr_path_sport(&pt, 1), 0xffff);
}

static void test_wrr_spraying(void **state)
{
	int cnt[8] = { 0 }, i;

	(void)state;
	setup(8, false);
	for (i = 0; i < 800; i++)
		cnt[mr_path_pick(&pt)]++;
	for (i = 0; i < 8; i++)
		assert_int_equal(cnt[i], 100);

	/* a SUSPECT path gets weight 1 against 4, a DEAD one nothing */
	pt.path[2].state = MR_PATH_SUSPECT;
	pt.path[5].state = MR_PATH_DEAD;
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < 2500; i++)
		cnt[mr_path_pick(&pt)]++;
	assert_int_equal(cnt[5], 0);
	assert_int_equal(cnt[2], 100);
	assert_int_equal(cnt[0], 400);
	/* smooth: a path never gets two packets in a row with 7 paths */
	{
		u8 prev = mr_path_pick(&pt), cur;

		for (i = 0; i < 100; i++) {
			cur = mr_path_pick(&pt);
			assert_int_not_equal(cur, prev);
			prev = cur;
		}
	}
	/* pick_other avoids the given path */
	for (i = 0; i < 50; i++)
		assert_int_not_equal(mr_path_pick_other(&pt, 3), 3);
	/* a path's CE EWMA e scales its weight by 1 - e/2 */
	setup(3, false);
	pt.path[1].ecn_frac = MR_PATH_FP_ONE;
	pt.path[2].ecn_frac = MR_PATH_FP_ONE / 2;
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < 900; i++)
		cnt[mr_path_pick(&pt)]++;
	assert_int_equal(cnt[0], 400);
	assert_int_equal(cnt[1], 200);
	assert_int_equal(cnt[2], 300);
}

/*
 * MR-MP-33: in an RTO episode a retransmission goes on the usable path
 * answered last (an ACK, NACK or response echoing it), not on the path
 * its lost copy used, not on a DEAD one, not on one re-rolled since its
 * answer; with no such path, as MR-MP-5 picks (pick_other).
 */
static void test_pick_answered(void **state)
{
	u64 t = 1000 * US;
	int i;

	(void)state;
	setup(8, false);
	/* nothing answered yet: pick_other's choice, never the lost path */
	for (i = 0; i < 50; i++)
		assert_int_not_equal(mr_path_pick_answered(&pt, 3), 3);
	mr_path_on_ack(&pt, 5, 0, 1, 0, t);
	mr_path_on_answer(&pt, 2, t + 10 * US);	/* a READ_RESP */
	mr_path_on_ack(&pt, 6, 0, 0, 0, t + 5 * US);
	for (i = 0; i < 10; i++)
		assert_int_equal(mr_path_pick_answered(&pt, 3), 2);
	/* not on the path its lost copy used */
	assert_int_equal(mr_path_pick_answered(&pt, 2), 6);
	/* a DEAD path is not usable */
	pt.path[6].state = MR_PATH_DEAD;
	assert_int_equal(mr_path_pick_answered(&pt, 2), 5);
	/* a re-roll forgets the answer: the route it proved is gone */
	assert_true(mr_path_reroll(&pt, 5, t + 20 * US));
	assert_int_equal(pt.path[5].last_answer_ns, 0);
	for (i = 0; i < 50; i++) {
		u8 p = mr_path_pick_answered(&pt, 2);

		assert_int_not_equal(p, 2);
		assert_int_not_equal(p, 6);
	}
	/* an RTO re-rolls the paths in flight (MR-MP-23): 2 loses it too */
	mr_path_on_ack(&pt, 4, 0, 1, 0, t + 30 * US);
	mr_path_on_rto(&pt, 1ULL << 4, 0, t + 40 * US);
	assert_int_equal(pt.path[4].last_answer_ns, 0);
	assert_int_equal(mr_path_pick_answered(&pt, 0), 2);
	/* an index outside the table is ignored */
	mr_path_on_answer(&pt, 8, t);
	mr_path_on_answer(&pt, 63, t);
	/* single-path mode: path 0 */
	setup(1, true);
	mr_path_on_ack(&pt, 0, 0, 1, 0, t);
	assert_int_equal(mr_path_pick_answered(&pt, 0), 0);
}

/* One round on @idx: @n delivered packets with @ce CE marks, @lost lost. */
static void round_on(u8 idx, u32 n, u32 ce, u32 lost, u64 *t)
{
	*t += 25 * US;
	mr_path_on_ack(&pt, idx, ce, n, 10 * US, *t);
	if (lost)
		mr_path_on_loss(&pt, idx, lost, *t);
	mr_path_on_delivery(&pt, idx, n, *t);
}

/* A round is judged when the next one starts, or by the tick. */
static void flush(u64 *t)
{
	*t += 25 * US;
	mr_path_tick(&pt, 0, 100 * US, *t, true);
}

static void test_reroll_on_ecn(void **state)
{
	u64 t = 0;
	u16 e;

	(void)state;
	setup(8, false);
	e = mr_path_entropy(&pt, 3);
	/* one congested round: SUSPECT; a clean one: ACTIVE again */
	round_on(3, 10, 9, 0, &t);
	assert_int_equal(pt.path[3].state, MR_PATH_ACTIVE);
	flush(&t);
	assert_int_equal(pt.path[3].state, MR_PATH_SUSPECT);
	assert_true(pt.path[3].ecn_frac > 0);
	round_on(3, 10, 0, 0, &t);
	flush(&t);
	assert_int_equal(pt.path[3].state, MR_PATH_ACTIVE);
	assert_int_equal(pt.path[3].bad_rounds, 0);
	/* below the CE threshold (half): not congested */
	round_on(3, 10, 4, 0, &t);
	flush(&t);
	assert_int_equal(pt.path[3].state, MR_PATH_ACTIVE);
	/* three congested rounds in a row: new entropy (PLB) */
	round_on(3, 10, 5, 0, &t);
	flush(&t);
	round_on(3, 10, 10, 0, &t);
	flush(&t);
	assert_int_equal(mr_path_entropy(&pt, 3), e);
	assert_int_equal(pt.path[3].bad_rounds, 2);
	round_on(3, 10, 10, 0, &t);
	flush(&t);
	assert_int_not_equal(mr_path_entropy(&pt, 3), e);
	assert_int_equal(pt.path[3].rerolls, 1);
	assert_int_equal(pt.rerolls, 1);
	assert_int_equal(pt.path[3].state, MR_PATH_ACTIVE);
	assert_int_equal(pt.path[3].ecn_frac, 0);
	/* other paths untouched */
	assert_int_equal(pt.path[2].rerolls, 0);

	/* a round needs round_min_pkts before it is judged */
	mr_path_on_ack(&pt, 4, 4, 4, 10 * US, t);
	mr_path_on_delivery(&pt, 4, 4, t);
	flush(&t);
	assert_int_equal(pt.path[4].state, MR_PATH_ACTIVE);
	mr_path_on_ack(&pt, 4, 4, 4, 10 * US, t);
	mr_path_on_delivery(&pt, 4, 4, t);
	flush(&t);
	assert_int_equal(pt.path[4].state, MR_PATH_SUSPECT);
	/* ...and an RTT (round_min_ns before a path srtt exists) */
	setup(8, false);
	t = 0;
	mr_path_on_ack(&pt, 4, 10, 10, 0, t);
	mr_path_on_delivery(&pt, 4, 10, t);
	mr_path_tick(&pt, 0, 100 * US, t + 19 * US, true);
	assert_int_equal(pt.path[4].state, MR_PATH_ACTIVE);
	mr_path_tick(&pt, 0, 100 * US, t + 20 * US, true);
	assert_int_equal(pt.path[4].state, MR_PATH_SUSPECT);
}

/* One round on each of paths 0..n-1 with @ce[i] of 10 packets CE-marked. */
static void rounds_all(u8 n, const u32 *ce, u64 *t)
{
	u8 i;

	for (i = 0; i < n; i++)
		round_on(i, 10, ce[i], 0, t);
	flush(t);
}

/* @n rounds of rounds_all() on four paths. */
static void rounds_many(const u32 *ce, int n, u64 *t)
{
	while (n-- > 0)
		rounds_all(4, ce, t);
}

/*
 * MR-MP-27: a path whose CE EWMA stays far above the coolest path's is
 * re-rolled although no round of it reaches ecn_thresh (its spine is
 * busier than another of the QP's), and it is never demoted for that; a
 * QP whose paths are all equally marked re-rolls nothing by this rule
 * (40 rounds take 5 ms, less than an exploration interval, MR-MP-32).
 */
static void test_reroll_hot_path(void **state)
{
	const u32 hot[4] = { 1, 1, 1, 4 }, even[4] = { 4, 4, 4, 4 };
	u64 t = 0;
	u16 e;
	int r;

	(void)state;
	setup(4, false);
	e = mr_path_entropy(&pt, 3);
	for (r = 0; r < 20 && mr_path_entropy(&pt, 3) == e; r++) {
		rounds_all(4, hot, &t);
		assert_int_equal(pt.path[3].state, MR_PATH_ACTIVE);
	}
	assert_int_not_equal(mr_path_entropy(&pt, 3), e);
	/* not before its EWMA has climbed and stayed up reroll_rounds */
	assert_true(r >= 5);
	assert_int_equal(pt.path[3].rerolls, 1);
	assert_int_equal(pt.path[3].ecn_frac, 0);
	assert_int_equal(pt.path[0].rerolls + pt.path[1].rerolls +
			 pt.path[2].rerolls, 0);

	setup(4, false);
	t = 0;
	rounds_many(even, 40, &t);
	assert_int_equal(pt.rerolls, 0);

	/* off: ecn_rel 0 leaves only the absolute rule */
	setup(4, false);
	pt.p.ecn_rel = 0;
	t = 0;
	rounds_many(hot, 40, &t);
	assert_int_equal(pt.rerolls, 0);
}

/*
 * MR-MP-32: while even the coolest path is marked, one exploration per
 * explore_interval re-rolls the hottest ACTIVE path; never while some
 * path is unmarked, never sooner, never in single-path mode or with the
 * interval 0, and no interval below the floor.
 */
static void test_explore(void **state)
{
	const u32 marked[4] = { 2, 3, 3, 4 }, one_cool[4] = { 0, 3, 3, 4 };
	struct mr_path_params p;
	u16 e[4];
	u64 t = 0;
	int i;

	(void)state;
	setup(4, false);
	rounds_many(marked, 10, &t);
	for (i = 0; i < 4; i++) {
		e[i] = mr_path_entropy(&pt, i);
		assert_int_equal(pt.path[i].state, MR_PATH_ACTIVE);
	}
	/* 10 rounds take 1.25 ms: no exploration before 50 ms */
	assert_int_equal(pt.explores, 0);
	assert_int_equal(pt.rerolls, 0);
	t = pt.p.explore_ns - 50 * US;
	flush(&t);
	assert_int_equal(pt.explores, 0);
	flush(&t);
	assert_int_equal(pt.explores, 1);
	assert_int_equal(pt.rerolls, 1);
	/* the hottest, path 3; the others keep their entropies */
	assert_int_not_equal(mr_path_entropy(&pt, 3), e[3]);
	assert_int_equal(pt.path[3].rerolls, 1);
	assert_int_equal(pt.path[3].ecn_frac, 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(mr_path_entropy(&pt, i), e[i]);
	/* at most one per interval */
	rounds_many(marked, 10, &t);
	assert_int_equal(pt.explores, 1);
	t += pt.p.explore_ns;
	flush(&t);
	assert_int_equal(pt.explores, 2);
	assert_int_equal(pt.rerolls, 2);

	/*
	 * A path that sees no CE has room: nothing to explore for, and
	 * MR-MP-27 moves the marked paths instead.
	 */
	setup(4, false);
	t = 0;
	rounds_many(one_cool, 10, &t);
	assert_true(pt.rerolls >= 1);
	t += pt.p.explore_ns;
	flush(&t);
	assert_int_equal(pt.explores, 0);

	/* off */
	setup(4, false);
	pt.p.explore_ns = 0;
	t = 0;
	rounds_many(marked, 10, &t);
	t += 1000 * 1000 * US;
	flush(&t);
	assert_int_equal(pt.explores, 0);

	/* the floor of MR-MP-32 */
	mr_path_default_params(&p);
	assert_int_equal(p.explore_ns, 50 * 1000 * US);
	p.explore_ns = MR_PATH_EXPLORE_MIN_NS - 1;
	assert_int_equal(mr_path_init(&pt, &p, xorshift, &rng_state, 0),
			 MR_ERR_INVAL);
	p.explore_ns = MR_PATH_EXPLORE_MIN_NS;
	assert_int_equal(mr_path_init(&pt, &p, xorshift, &rng_state, 0), 0);
}

static void test_reroll_on_loss_and_trims(void **state)
{
	u64 t = 0;
	u16 e;

	(void)state;
	setup(4, false);
	e = mr_path_entropy(&pt, 1);
	/* 20% loss: below the 25% threshold */
	round_on(1, 8, 0, 2, &t);
	flush(&t);
	assert_int_equal(pt.path[1].state, MR_PATH_ACTIVE);
	/* 50% loss, three rounds: re-rolled */
	round_on(1, 8, 0, 8, &t);
	flush(&t);
	assert_int_equal(pt.path[1].state, MR_PATH_SUSPECT);
	round_on(1, 8, 0, 8, &t);
	flush(&t);
	round_on(1, 8, 0, 8, &t);
	assert_int_equal(mr_path_entropy(&pt, 1), e);
	flush(&t);
	assert_int_not_equal(mr_path_entropy(&pt, 1), e);
	assert_int_equal(pt.path[1].losses, 26);

	/* trims make a round congested */
	e = mr_path_entropy(&pt, 2);
	for (int i = 0; i < 3; i++) {
		t += 25 * US;
		mr_path_on_trim(&pt, 2, t);
		mr_path_on_delivery(&pt, 2, 10, t);
		flush(&t);
	}
	assert_int_not_equal(mr_path_entropy(&pt, 2), e);
	assert_int_equal(pt.path[2].trims, 3);
}

static void test_reroll_on_rto(void **state)
{
	u16 e1, e2, e3;
	u64 done;

	(void)state;
	setup(4, false);
	e1 = mr_path_entropy(&pt, 1);
	e2 = mr_path_entropy(&pt, 2);
	e3 = mr_path_entropy(&pt, 3);
	done = mr_path_on_rto(&pt, (1ULL << 1) | (1ULL << 3), 0, 100 * US);
	assert_true(done == ((1ULL << 1) | (1ULL << 3)));
	assert_int_not_equal(mr_path_entropy(&pt, 1), e1);
	assert_int_equal(mr_path_entropy(&pt, 2), e2);
	assert_int_not_equal(mr_path_entropy(&pt, 3), e3);
	assert_true(mr_path_reroll(&pt, 2, 100 * US));
	assert_int_not_equal(mr_path_entropy(&pt, 2), e2);
}

/*
 * A READ's or atomic's answer stalled on a path (MR-MP-34): an ACTIVE or
 * SUSPECT path moves to a new entropy; a DEAD one is left to its probes
 * (MR-MP-9), and an index outside the table changes nothing.
 */
static void test_reroll_on_answer_stall(void **state)
{
	u16 e1, e2;
	u64 n;

	(void)state;
	setup(4, false);
	pt.path[2].state = MR_PATH_SUSPECT;
	pt.path[3].state = MR_PATH_DEAD;
	e1 = mr_path_entropy(&pt, 1);
	e2 = mr_path_entropy(&pt, 2);
	n = pt.rerolls;
	assert_true(mr_path_on_answer_stall(&pt, 1, 100 * US));
	assert_int_not_equal(mr_path_entropy(&pt, 1), e1);
	assert_true(mr_path_on_answer_stall(&pt, 2, 100 * US));
	assert_int_not_equal(mr_path_entropy(&pt, 2), e2);
	assert_int_equal(pt.path[2].state, MR_PATH_ACTIVE);
	e1 = mr_path_entropy(&pt, 3);
	assert_false(mr_path_on_answer_stall(&pt, 3, 100 * US));
	assert_int_equal(mr_path_entropy(&pt, 3), e1);
	assert_int_equal(pt.path[3].state, MR_PATH_DEAD);
	assert_false(mr_path_on_answer_stall(&pt, 4, 100 * US));
	assert_false(mr_path_on_answer_stall(&pt, 0xff, 100 * US));
	assert_int_equal(pt.rerolls, n + 2);
}

static void test_dead_path_and_revival(void **state)
{
	u64 rto = 100 * US, t = 1000 * US, dead;
	int cnt[4] = { 0 }, i;
	u16 e;
	u8 idx;

	(void)state;
	setup(4, false);
	e = mr_path_entropy(&pt, 2);
	/* a path that got fewer than dead_min_pkts is never declared dead */
	for (i = 0; i < 5; i++)
		mr_path_on_send(&pt, 2, t + i * US);
	assert_true(mr_path_tick(&pt, 0xf, rto, t + 10 * rto, true) == 0);
	for (i = 0; i < 4; i++) {
		mr_path_on_send(&pt, i, t + 3 * US);
		mr_path_on_send(&pt, i, t + 4 * US);
		mr_path_on_send(&pt, i, t + 5 * US);
	}
	/* paths 0, 1, 3 deliver; path 2 is a black hole */
	for (i = 0; i < 4; i++)
		if (i != 2)
			mr_path_on_delivery(&pt, i, 1, t + 10 * US);
	/* not yet: exactly k RTOs after the first undelivered send */
	assert_true(mr_path_tick(&pt, 0xf, rto, t + 3 * rto, true) == 0);
	/* without packets in flight on it a path is not declared dead */
	assert_true(mr_path_tick(&pt, 0xb, rto, t + 3 * rto + 1, true) == 0);
	dead = mr_path_tick(&pt, 0xf, rto, t + 3 * rto + 1, true);
	assert_true(dead == 1ULL << 2);
	assert_int_equal(pt.path[2].state, MR_PATH_DEAD);
	assert_int_equal(pt.deaths, 1);
	/* moved to a new entropy: probes test a new route */
	assert_int_not_equal(mr_path_entropy(&pt, 2), e);
	assert_int_equal(mr_path_usable(&pt), 3);
	/* dead paths get no data */
	for (i = 0; i < 300; i++)
		cnt[mr_path_pick(&pt)]++;
	assert_int_equal(cnt[2], 0);
	assert_int_equal(cnt[0], 100);
	/* a dead path is not declared dead again */
	assert_true(mr_path_tick(&pt, 0xf, rto, t + 100 * rto, true) == 0);

	/* probing */
	t += 4 * rto;
	assert_true(mr_path_probe_due(&pt, t, &idx));
	assert_int_equal(idx, 2);
	mr_path_on_probe_sent(&pt, 2, 0x100, 7, rto, t);
	assert_false(mr_path_probe_due(&pt, t + 499 * US, &idx));
	assert_true(mr_path_probe_due(&pt, t + 500 * US, &idx));
	/* the first probe went unanswered: the next uses a new entropy */
	e = mr_path_entropy(&pt, 2);
	mr_path_on_probe_sent(&pt, 2, 0x101, 8, rto, t + 500 * US);
	assert_int_not_equal(mr_path_entropy(&pt, 2), e);
	assert_int_equal(pt.path[2].state, MR_PATH_DEAD);
	/* a late reply to the first probe does not match */
	assert_false(mr_path_on_probe_reply(&pt, 2, 0x100, 7, 12 * US,
					    t + 505 * US));
	assert_false(mr_path_on_probe_reply(&pt, 2, 0x101, 7, 12 * US,
					    t + 505 * US));
	assert_int_equal(pt.path[2].state, MR_PATH_DEAD);
	/* the matching reply revives it on probation (SUSPECT) */
	assert_true(mr_path_on_probe_reply(&pt, 2, 0x101, 8, 12 * US,
					   t + 510 * US));
	assert_int_equal(pt.path[2].state, MR_PATH_SUSPECT);
	assert_int_equal(pt.revivals, 1);
	assert_false(mr_path_probe_due(&pt, t + 10000 * US, &idx));
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < 130; i++)
		cnt[mr_path_pick(&pt)]++;
	assert_int_equal(cnt[2], 10);
	/* a clean round makes it ACTIVE */
	t += 1000 * US;
	mr_path_on_ack(&pt, 2, 0, 10, 12 * US, t);
	mr_path_on_delivery(&pt, 2, 10, t);
	assert_int_equal(pt.path[2].state, MR_PATH_SUSPECT);
	flush(&t);
	assert_int_equal(pt.path[2].state, MR_PATH_ACTIVE);
	/* a duplicate reply for an ACTIVE path changes nothing */
	assert_false(mr_path_on_probe_reply(&pt, 2, 0x101, 8, 12 * US, t));
	assert_int_equal(pt.revivals, 1);
}

/*
 * A dead path whose probe round trip (1.5 ms, e.g. a loaded VM host) is
 * longer than probe_interval (500 us): a reply only matches the
 * outstanding probe (MR-MP-11), so the spacing must grow while probes go
 * unanswered (MR-MP-9) until a reply can come back before the next probe
 * replaces its probe; otherwise the path stays dead forever.
 */
/*
 * MR-MP-29: a pending path with nothing in flight for longer than
 * RTO_base stops being pending; one back in flight sooner stays pending.
 */
static void test_quiet_path_not_pending(void **state)
{
	u64 rto = 100 * US, t = 1000 * US;
	int i;

	(void)state;
	setup(4, false);
	/*
	 * Path 1 sends 8 packets; they are declared lost and their copies
	 * delivered elsewhere: pending, nothing in flight.  The QP idles.
	 */
	for (i = 0; i < 8; i++)
		mr_path_on_send(&pt, 1, t + i * US);
	assert_true(mr_path_tick(&pt, 0, rto, t + rto, true) == 0);
	assert_true(pt.path[1].pending);
	assert_true(mr_path_tick(&pt, 0, rto, t + 2 * rto, true) == 0);
	assert_true(pt.path[1].pending);	/* exactly RTO_base: not yet */
	assert_true(mr_path_tick(&pt, 0, rto, t + 2 * rto + 1, true) == 0);
	assert_false(pt.path[1].pending);
	/* after the idle, its first packet in flight is not a black hole */
	mr_path_on_send(&pt, 1, t + 10 * rto);
	assert_true(mr_path_tick(&pt, 0x2, rto, t + 10 * rto + 1, true) == 0);
	assert_int_equal(pt.path[1].state, MR_PATH_ACTIVE);
	assert_int_equal(pt.path[1].pending_since_ns, t + 10 * rto);

	/*
	 * Path 2: an RTO declares its 6 packets lost and it sends again
	 * within RTO_base: still pending since its first packet, and DEAD
	 * dead_rtos RTO_base after it (MR-MP-8).
	 */
	t += 20 * rto;
	for (i = 0; i < 6; i++)
		mr_path_on_send(&pt, 2, t + i * US);
	assert_true(mr_path_tick(&pt, 0, rto, t + rto, true) == 0);
	mr_path_on_send(&pt, 2, t + rto + rto / 2);
	assert_true(mr_path_tick(&pt, 0x4, rto, t + 2 * rto + 1, true) == 0);
	assert_true(mr_path_tick(&pt, 0x4, rto, t + 3 * rto + 1, true) == 0x4);
	assert_int_equal(pt.path[2].state, MR_PATH_DEAD);
}

/*
 * MR-MP-30: an RTO that finds no path delivered since a path became
 * pending makes it not pending (the QP, not the route, went silent); a
 * path pending while others delivered stays pending through the RTO.
 */
static void test_rto_silence_not_pending(void **state)
{
	u64 rto = 100 * US, t = 1000 * US;
	int i;

	(void)state;
	setup(4, false);
	/* every path sends 6 packets, nothing comes back: a stall */
	for (i = 0; i < 4; i++) {
		mr_path_on_send(&pt, i, t + 1 * US);
		mr_path_on_send(&pt, i, t + 2 * US);
		mr_path_on_send(&pt, i, t + 3 * US);
		mr_path_on_send(&pt, i, t + 4 * US);
		mr_path_on_send(&pt, i, t + 5 * US);
		mr_path_on_send(&pt, i, t + 6 * US);
	}
	assert_int_equal(mr_path_on_rto(&pt, 0xf, 0, t + 3 * rto), 0xf);
	for (i = 0; i < 4; i++)
		assert_false(pt.path[i].pending);
	/* the expiry's copies go out: a new pending_since, no death */
	mr_path_on_send(&pt, 1, t + 3 * rto + 1);
	assert_true(mr_path_tick(&pt, 0x2, rto, t + 3 * rto + 2, true) == 0);
	assert_int_equal(pt.path[1].pending_since_ns, t + 3 * rto + 1);

	/* path 2 pending while paths 0, 1, 3 deliver: it stays pending */
	t += 10 * rto;
	for (i = 0; i < 4; i++)
		mr_path_on_send(&pt, i, t);
	for (i = 0; i < 6; i++)
		mr_path_on_send(&pt, 2, t + i * US);
	for (i = 0; i < 4; i++)
		if (i != 2)
			mr_path_on_delivery(&pt, i, 1, t + 10 * US);
	mr_path_on_rto(&pt, 0x4, 0, t + rto);
	assert_true(pt.path[2].pending);
	assert_int_equal(pt.path[2].pending_since_ns, t);
	mr_path_on_send(&pt, 2, t + rto + 1);
	assert_true(mr_path_tick(&pt, 0x4, rto, t + 3 * rto + 1, true) == 0x4);

	/*
	 * The others' deliveries came within the QP's minimum RTT (50 us)
	 * of path 2's pending_since: they acknowledge packets sent before
	 * it (the ACK a host took right before it stalled), so the expiry
	 * clears path 2; one a minimum RTT later keeps it pending.
	 */
	setup(4, false);
	t = 1000 * US;
	for (i = 0; i < 6; i++)
		mr_path_on_send(&pt, 2, t + i * US);
	for (i = 0; i < 4; i++) {
		if (i == 2)
			continue;
		mr_path_on_send(&pt, i, t - 100 * US);
		mr_path_on_delivery(&pt, i, 1, t + 40 * US);
	}
	mr_path_on_rto(&pt, 0x4, 50 * US, t + 3 * rto);
	assert_false(pt.path[2].pending);
	for (i = 0; i < 6; i++)
		mr_path_on_send(&pt, 2, t + 3 * rto + 1 + i * US);
	mr_path_on_send(&pt, 0, t + 3 * rto);
	mr_path_on_delivery(&pt, 0, 1, t + 3 * rto + 60 * US);
	mr_path_on_rto(&pt, 0x4, 50 * US, t + 4 * rto);
	assert_true(pt.path[2].pending);
	assert_int_equal(pt.path[2].pending_since_ns, t + 3 * rto + 1);
}

/*
 * MR-MP-31: a slow path whose packets are taken for lost and whose copies
 * are credited on other paths still reaches the peer: an ACK echoing it
 * (and reporting packets) ends its pending period, so it does not die.
 * An ACK reporting no packet proves nothing; a silent path still dies.
 */
static void test_echo_not_pending(void **state)
{
	u64 rto = 100 * US, t = 1000 * US;
	int i, k;

	(void)state;
	setup(4, false);
	/*
	 * For 10 RTO_base, path 1 sends a packet every 10 us and none is
	 * ever credited to it, while path 0 delivers; each ACK echoing
	 * path 1 comes 2.5 RTO_base after its packet.
	 */
	for (k = 0; k < 1000; k++) {
		u64 now = t + k * 10 * US;

		mr_path_on_send(&pt, 0, now);
		mr_path_on_send(&pt, 1, now);
		mr_path_on_delivery(&pt, 0, 1, now);
		if (now >= t + 5 * rto / 2)
			mr_path_on_ack(&pt, 1, 0, 2, 5 * rto / 2, now);
		if (k % 10 == 0)
			assert_true(mr_path_tick(&pt, 0x3, rto, now, true) == 0);
	}
	assert_int_equal(pt.path[1].state, MR_PATH_ACTIVE);
	assert_int_equal(pt.path[1].deaths, 0);

	/* echoes reporting no packet (pkt_count 0): path 2 dies */
	t += 20 * rto;
	for (i = 0; i < 8; i++)
		mr_path_on_send(&pt, 2, t + i * US);
	for (k = 1; k <= 40; k++) {
		u64 now = t + k * 10 * US;

		mr_path_on_delivery(&pt, 0, 1, now);
		mr_path_on_ack(&pt, 2, 0, 0, 0, now);
	}
	assert_true(mr_path_tick(&pt, 0x4, rto, t + 3 * rto + 1, true) == 0x4);
	assert_int_equal(pt.path[2].state, MR_PATH_DEAD);
}

/*
 * Kill path 1 and probe it in virtual time steps of @step until a reply,
 * which comes one round trip @rtt after its probe, revives it: fills
 * @sent with the probes' send times and returns how many went.
 */
static int probe_until_revived(u64 rto, u64 rtt, u64 step, u64 *t,
			       u64 sent[64])
{
	u32 ids[64];
	int n = 0, i, k;
	bool revived = false;
	u8 idx;

	for (i = 0; i < 6; i++)
		mr_path_on_send(&pt, 1, *t);
	assert_true(mr_path_tick(&pt, 0x2, rto, *t + 3 * rto + 1, true) == 0x2);
	*t += 3 * rto + 1;
	for (k = 0; k < 20000 && !revived; k++, *t += step) {
		for (i = 0; i < n; i++)
			if (sent[i] + rtt == *t &&
			    mr_path_on_probe_reply(&pt, 1, ids[i],
						   (u32)i, rtt, *t))
				revived = true;
		if (revived || !mr_path_probe_due(&pt, *t, &idx))
			continue;
		assert_int_equal(idx, 1);
		assert_true(n < 64);
		sent[n] = *t;
		ids[n] = 0x200 + (u32)n;
		mr_path_on_probe_sent(&pt, 1, ids[n], (u32)n, rto, *t);
		n++;
	}
	assert_true(revived);
	assert_int_equal(pt.path[1].state, MR_PATH_SUSPECT);
	return n;
}

static void test_probe_backoff_slow_rtt(void **state)
{
	u64 rto = 100 * US, t = 1000 * US, rtt = 1500 * US;
	u64 sent[64], gap, prev = 0;
	int n, i;
	u8 idx;

	(void)state;
	setup(4, false);
	/* 200 ms of virtual time at most, in 10 us steps */
	n = probe_until_revived(rto, rtt, 10 * US, &t, sent);
	assert_int_equal(pt.revivals, 1);
	/* 500, 1000, 2000 us: the third probe is the first answered */
	assert_int_equal(n, 3);
	for (i = 1; i < n; i++) {
		gap = sent[i] - sent[i - 1];
		assert_true(gap >= 500 * US << (i - 1));
		assert_true(gap > prev);
		prev = gap;
	}

	/* the backoff is capped, and starts over at the next death */
	for (i = 0; i < 6; i++)
		mr_path_on_send(&pt, 1, t);
	assert_true(mr_path_tick(&pt, 0x2, rto, t + 3 * rto + 1, true) == 0x2);
	t += 3 * rto + 1;
	assert_true(mr_path_probe_due(&pt, t, &idx));
	mr_path_on_probe_sent(&pt, 1, 1, 1, rto, t);
	assert_false(mr_path_probe_due(&pt, t + 499 * US, &idx));
	assert_true(mr_path_probe_due(&pt, t + 500 * US, &idx));
	for (i = 0; i < 20; i++) {
		assert_true(mr_path_probe_due(&pt, pt.path[1].next_probe_ns,
					      &idx));
		t = pt.path[1].next_probe_ns;
		mr_path_on_probe_sent(&pt, 1, 2 + (u32)i, 2 + (u32)i, rto, t);
	}
	assert_int_equal(pt.path[1].next_probe_ns - t,
			 500 * US << MR_PATH_PROBE_BACKOFF_MAX);
}

/*
 * A round trip above the cap of 64 x probe_interval (32 ms): the spacing
 * keeps doubling while it is below RTO_base, so a probe is answered
 * before the next replaces it and the path revives (MR-MP-24).  Without
 * the lifted cap every probe of this path would go unanswered forever.
 */
static void test_probe_backoff_long_rtt(void **state)
{
	u64 rto = 80000 * US, t = 1000 * US, rtt = 50000 * US;
	u64 sent[64];
	int n, i;
	u8 idx;

	(void)state;
	setup(4, false);
	/* 2 s of virtual time at most, in 100 us steps */
	n = probe_until_revived(rto, rtt, 100 * US, &t, sent);
	/* spacings 0.5 .. 32 ms, then 64 ms: the 8th probe is answered */
	assert_int_equal(n, 8);
	assert_int_equal(sent[7] - sent[6], 500 * US << 6);

	/* the doubling stops once the spacing reaches RTO_base */
	for (i = 0; i < 6; i++)
		mr_path_on_send(&pt, 1, t);
	assert_true(mr_path_tick(&pt, 0x2, rto, t + 3 * rto + 1, true) == 0x2);
	t += 3 * rto + 1;
	for (i = 0; i < 20; i++) {
		assert_true(mr_path_probe_due(&pt, t, &idx));
		mr_path_on_probe_sent(&pt, 1, 0x400 + (u32)i, (u32)i, rto, t);
		t = pt.path[1].next_probe_ns;
	}
	/* 64 ms < RTO_base 80 ms: once more, to 128 ms, and no further */
	assert_int_equal(pt.path[1].probe_misses, 8);
	assert_true(mr_path_probe_due(&pt, t, &idx));
	mr_path_on_probe_sent(&pt, 1, 0x500, 0, rto, t);
	assert_int_equal(pt.path[1].next_probe_ns - t, 500 * US << 8);
}

static void test_all_dead_fallback(void **state)
{
	u64 rto = 100 * US;
	int i;

	(void)state;
	setup(3, false);
	for (i = 0; i < 3; i++) {
		mr_path_on_send(&pt, i, 0);
		mr_path_on_delivery(&pt, i, 1, 10 * US * (i == 1 ? 5 : 1));
		for (int k = 0; k < 6; k++)
			mr_path_on_send(&pt, i, 100 * US);
	}
	assert_true(mr_path_tick(&pt, 0x7, rto, 1000 * US, true) == 0x7);
	assert_int_equal(mr_path_usable(&pt), 0);
	/* keep sending on the path that delivered last */
	for (i = 0; i < 5; i++)
		assert_int_equal(mr_path_pick(&pt), 1);
	/*
	 * ... on a fresh entropy after every RTO (MR-MP-12), whatever the
	 * probes' backoff; still DEAD until a probe is answered.
	 */
	for (i = 0; i < 3; i++) {
		u16 e = mr_path_entropy(&pt, 1), e0 = mr_path_entropy(&pt, 0);

		assert_true(mr_path_on_rto(&pt, 1ULL << 1, 0,
					   (2000 + i) * US) == 1ULL << 1);
		assert_int_not_equal(mr_path_entropy(&pt, 1), e);
		assert_int_equal(mr_path_entropy(&pt, 0), e0);
		assert_int_equal(pt.path[1].state, MR_PATH_DEAD);
	}
	assert_int_equal(mr_path_usable(&pt), 0);
	/* with a usable path, RTOs leave DEAD paths to their probes */
	pt.path[2].state = MR_PATH_SUSPECT;
	assert_true(mr_path_on_rto(&pt, 0x7, 0, 3000 * US) == 1ULL << 2);
}

static void test_single_path_mode(void **state)
{
	u64 t = 0;
	u16 e;
	int i;

	(void)state;
	setup(8, true);
	assert_int_equal(pt.n, 1);
	e = mr_path_entropy(&pt, 0);
	for (i = 0; i < 20; i++)
		assert_int_equal(mr_path_pick(&pt), 0);
	/* congestion, RTOs and black holes never move a RoCE-like QP */
	for (i = 0; i < 5; i++) {
		round_on(0, 10, 10, 5, &t);
		flush(&t);
	}
	assert_int_equal(pt.path[0].state, MR_PATH_SUSPECT);
	assert_true(mr_path_on_rto(&pt, 1, 0, t) == 0);
	assert_false(mr_path_reroll(&pt, 0, t));
	for (i = 0; i < 10; i++)
		mr_path_on_send(&pt, 0, t);
	assert_true(mr_path_tick(&pt, 1, 100 * US, t + 10000 * US, true) == 0);
	assert_int_equal(mr_path_entropy(&pt, 0), e);
	assert_int_equal(pt.rerolls, 0);
	assert_int_not_equal(pt.path[0].state, MR_PATH_DEAD);
	/* nor exploration (MR-MP-32): ACTIVE and marked, a second on */
	t += 10000 * US;
	for (i = 0; i < 10; i++) {
		round_on(0, 10, 4, 0, &t);
		flush(&t);
	}
	assert_int_equal(pt.path[0].state, MR_PATH_ACTIVE);
	assert_true(pt.path[0].ecn_frac >= pt.p.ecn_rel);
	t += 1000 * 1000 * US;
	flush(&t);
	assert_int_equal(mr_path_entropy(&pt, 0), e);
	assert_int_equal(pt.explores, 0);
}

/*
 * MR-MP-10: a PROBE_REPLY is the MBH only, with the PROBE's path, PSN and
 * timestamp and no flags; at most one per gap, the first at once.
 */
static void test_probe_reply(void **state)
{
	struct mr_pkt probe, r;
	u64 next = 0;

	(void)state;
	memset(&probe, 0, sizeof(probe));
	probe.opcode = MR_OP_PROBE;
	probe.path = 17;
	probe.psn = 0xABCDEF;
	probe.ts = 0x12345678;
	probe.dqpn = 5;
	probe.sqpn = 9;
	memset(&r, 0xA5, sizeof(r));
	assert_true(mr_probe_reply(&probe, 0, MR_PROBE_REPLY_GAP_NS, &next,
				   &r));
	assert_int_equal(r.opcode, MR_OP_PROBE_REPLY);
	assert_int_equal(r.path, 17);
	assert_int_equal(r.psn, 0xABCDEF);
	assert_int_equal(r.ts, 0x12345678);
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.payload_len, 0);
	/* the caller addresses it */
	assert_int_equal(r.dqpn, 0);
	assert_int_equal(r.sqpn, 0);
	assert_false(mr_probe_reply(&probe, 49 * US, MR_PROBE_REPLY_GAP_NS,
				    &next, &r));
	assert_true(mr_probe_reply(&probe, 50 * US, MR_PROBE_REPLY_GAP_NS,
				   &next, &r));
	assert_false(mr_probe_reply(&probe, 60 * US, MR_PROBE_REPLY_GAP_NS,
				    &next, &r));
	assert_true(mr_probe_reply(&probe, 200 * US, MR_PROBE_REPLY_GAP_NS,
				   &next, &r));
	/* gap 0: no limit */
	next = 0;
	assert_true(mr_probe_reply(&probe, 300 * US, 0, &next, &r));
	assert_true(mr_probe_reply(&probe, 300 * US, 0, &next, &r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_entropy),
		cmocka_unit_test(test_wrr_spraying),
		cmocka_unit_test(test_pick_answered),
		cmocka_unit_test(test_reroll_on_ecn),
		cmocka_unit_test(test_reroll_hot_path),
		cmocka_unit_test(test_reroll_on_answer_stall),
		cmocka_unit_test(test_explore),
		cmocka_unit_test(test_reroll_on_loss_and_trims),
		cmocka_unit_test(test_reroll_on_rto),
		cmocka_unit_test(test_dead_path_and_revival),
		cmocka_unit_test(test_quiet_path_not_pending),
		cmocka_unit_test(test_rto_silence_not_pending),
		cmocka_unit_test(test_echo_not_pending),
		cmocka_unit_test(test_probe_backoff_slow_rtt),
		cmocka_unit_test(test_probe_backoff_long_rtt),
		cmocka_unit_test(test_all_dead_fallback),
		cmocka_unit_test(test_single_path_mode),
		cmocka_unit_test(test_probe_reply),
	};

	return cmocka_run_group_tests_name("path", tests, NULL, NULL);
}
