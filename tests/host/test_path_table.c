// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests: the path state table of the spec, row by row (MR-MP-17).
 * Each row of rows[] is one row of the table: a path of a 4-path table
 * is brought into the row's state, the row's event is applied to it, and
 * the next state and the actions the row names are checked. Rows:
 * MR-MP-18 (send), MR-MP-19 (credited delivery), MR-MP-20 (clean round),
 * MR-MP-21 (congested round), MR-MP-7 (re-roll after reroll_rounds),
 * MR-MP-22 (round of a DEAD path), MR-MP-23 (RTO), MR-MP-12 (RTO with
 * every path DEAD and without), MR-MP-8 (dead), MR-MP-9 (PROBE due),
 * MR-MP-24 (PROBE timed out), MR-MP-11 (matching PROBE_REPLY), MR-MP-25
 * (any other PROBE_REPLY). The reply entropy of MR-MP-15 / MR-MP-26 is
 * checked at the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "path.h"
#include "wire.h"

#define US	1000ULL
#define RTO	(100 * US)	/* RTO_base of every row */
#define P	1		/* the path under test */
#define NP	4

/* The states of the table; DEAD_PROBED is DEAD with a PROBE unanswered. */
enum st { ACTIVE, SUSPECT, DEAD, DEAD_PROBED, ALL_DEAD };

enum ev {
	EV_SEND,		/* a data packet sent on the path */
	EV_DELIVER,		/* delivery credited to the path */
	EV_ROUND_CLEAN,		/* its round closes clean */
	EV_ROUND_BAD,		/* ... congested, bad_rounds + 1 < reroll */
	EV_ROUND_BAD_LAST,	/* ... congested, bad_rounds + 1 = reroll */
	EV_RTO,			/* the QP's RTO, packets of it in flight */
	EV_DEAD_TIMEOUT,	/* dead_rtos RTO_base without delivery */
	EV_PROBE_DUE,		/* next_probe reached */
	EV_REPLY_MATCH,		/* PROBE_REPLY of the unanswered PROBE */
	EV_REPLY_OTHER,		/* PROBE_REPLY not matching */
};

/* Actions a row names; a row's set is checked exactly. */
#define A_REROLL	0x01	/* new entropy, health cleared */
#define A_PENDING	0x02	/* pending afterwards */
#define A_BAD_INC	0x04	/* bad_rounds + 1 */
#define A_BAD_CLEAR	0x08	/* bad_rounds = 0 */
#define A_MARK_LOST	0x10	/* its packets to be declared lost */
#define A_PROBE		0x20	/* a PROBE out, next one spaced */
#define A_MISS		0x40	/* misses + 1 */
#define A_REVIVE	0x80	/* revived: srtt from the probe, fresh round */
#define A_DROP		0x100	/* reply dropped */
#define A_DELIVERED	0x200	/* last delivery = now, counted */

struct row {
	const char *id;
	enum st from;
	enum ev ev;
	enum st to;
	u32 act;
};

static const struct row rows[] = {
	{ "MR-MP-18", ACTIVE, EV_SEND, ACTIVE, A_PENDING },
	{ "MR-MP-18", SUSPECT, EV_SEND, SUSPECT, A_PENDING },
	{ "MR-MP-18", DEAD, EV_SEND, DEAD, A_PENDING },
	{ "MR-MP-19", ACTIVE, EV_DELIVER, ACTIVE, A_DELIVERED },
	{ "MR-MP-19", SUSPECT, EV_DELIVER, SUSPECT, A_DELIVERED },
	{ "MR-MP-19", DEAD, EV_DELIVER, DEAD, A_DELIVERED },
	{ "MR-MP-20", ACTIVE, EV_ROUND_CLEAN, ACTIVE, A_BAD_CLEAR },
	{ "MR-MP-20", SUSPECT, EV_ROUND_CLEAN, ACTIVE, A_BAD_CLEAR },
	{ "MR-MP-21", ACTIVE, EV_ROUND_BAD, SUSPECT, A_BAD_INC },
	{ "MR-MP-21", SUSPECT, EV_ROUND_BAD, SUSPECT, A_BAD_INC },
	{ "MR-MP-7", ACTIVE, EV_ROUND_BAD_LAST, ACTIVE, A_REROLL },
	{ "MR-MP-7", SUSPECT, EV_ROUND_BAD_LAST, ACTIVE, A_REROLL },
	{ "MR-MP-22", DEAD, EV_ROUND_CLEAN, DEAD, 0 },
	{ "MR-MP-22", DEAD, EV_ROUND_BAD, DEAD, 0 },
	{ "MR-MP-23", ACTIVE, EV_RTO, ACTIVE, A_REROLL },
	{ "MR-MP-23", SUSPECT, EV_RTO, ACTIVE, A_REROLL },
	{ "MR-MP-12", DEAD, EV_RTO, DEAD, 0 },
	{ "MR-MP-12", ALL_DEAD, EV_RTO, DEAD, A_REROLL },
	{ "MR-MP-8", ACTIVE, EV_DEAD_TIMEOUT, DEAD,
	  A_REROLL | A_MARK_LOST | A_BAD_CLEAR },
	{ "MR-MP-8", SUSPECT, EV_DEAD_TIMEOUT, DEAD,
	  A_REROLL | A_MARK_LOST | A_BAD_CLEAR },
	{ "MR-MP-9", DEAD, EV_PROBE_DUE, DEAD, A_PROBE },
	{ "MR-MP-24", DEAD_PROBED, EV_PROBE_DUE, DEAD,
	  A_REROLL | A_PROBE | A_MISS },
	{ "MR-MP-11", DEAD_PROBED, EV_REPLY_MATCH, SUSPECT,
	  A_REVIVE | A_BAD_CLEAR },
	{ "MR-MP-25", ACTIVE, EV_REPLY_OTHER, ACTIVE, A_DROP },
	{ "MR-MP-25", SUSPECT, EV_REPLY_OTHER, SUSPECT, A_DROP },
	{ "MR-MP-25", DEAD, EV_REPLY_OTHER, DEAD, A_DROP },
	{ "MR-MP-25", DEAD_PROBED, EV_REPLY_OTHER, DEAD, A_DROP },
};

static struct mr_path_table pt;
static u32 rng;
static u64 now;

static u32 xorshift(void *ctx)
{
	u32 *s = ctx;

	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * One round of path @idx: @n packets reported by an ACK echoing it, @ce
 * of them CE-marked, all delivered; the round closes at the next event
 * at least round_min later (the tick).
 */
static void round_of(u8 idx, u32 n, u32 ce)
{
	now += 30 * US;
	mr_path_on_ack(&pt, idx, ce, n, 0, now);
	mr_path_on_delivery(&pt, idx, n, now);
	now += 30 * US;
	mr_path_tick(&pt, 0, RTO, now, true);
}

/* Send dead_min_pkts on @idx and let dead_rtos RTO_base pass. */
static u64 kill(u8 idx)
{
	u32 i;

	for (i = 0; i < pt.p.dead_min_pkts; i++)
		mr_path_on_send(&pt, idx, now);
	now += (u64)pt.p.dead_rtos * RTO + 1;
	return mr_path_tick(&pt, 1ULL << idx, RTO, now, true);
}

static void enter(enum st s)
{
	struct mr_path_params p;
	u8 i;

	mr_path_default_params(&p);
	p.n_paths = NP;
	rng = 0x2545F491;
	now = 1000 * US;
	assert_int_equal(mr_path_init(&pt, &p, xorshift, &rng, now), 0);
	switch (s) {
	case ACTIVE:
		break;
	case SUSPECT:
		round_of(P, 10, 10);
		break;
	case DEAD:
		assert_true(kill(P) == 1ULL << P);
		break;
	case DEAD_PROBED:
		assert_true(kill(P) == 1ULL << P);
		assert_true(mr_path_probe_due(&pt, now, &i));
		mr_path_on_probe_sent(&pt, P, 0x77, 0x1234, RTO, now);
		break;
	case ALL_DEAD:
		for (i = 0; i < NP; i++)
			kill(i);
		assert_int_equal(mr_path_usable(&pt), 0);
		break;
	}
	if (s == SUSPECT)
		assert_int_equal(pt.path[P].state, MR_PATH_SUSPECT);
	else if (s == ACTIVE)
		assert_int_equal(pt.path[P].state, MR_PATH_ACTIVE);
	else
		assert_int_equal(pt.path[P].state, MR_PATH_DEAD);
}

static const u8 state_of[] = {
	[ACTIVE] = MR_PATH_ACTIVE, [SUSPECT] = MR_PATH_SUSPECT,
	[DEAD] = MR_PATH_DEAD, [DEAD_PROBED] = MR_PATH_DEAD,
	[ALL_DEAD] = MR_PATH_DEAD,
};

static void run_row(const struct row *r)
{
	struct mr_path before;
	u64 rerolls, revivals, lost = 0;
	bool ok = true;
	u8 idx;

	enter(r->from);
	if (r->ev == EV_ROUND_BAD_LAST)
		pt.path[P].bad_rounds = pt.p.reroll_rounds - 1;
	before = pt.path[P];
	rerolls = pt.rerolls;
	revivals = pt.revivals;

	switch (r->ev) {
	case EV_SEND:
		mr_path_on_send(&pt, P, now);
		break;
	case EV_DELIVER:
		now += US;
		mr_path_on_delivery(&pt, P, 1, now);
		break;
	case EV_ROUND_CLEAN:
		round_of(P, 10, 0);
		break;
	case EV_ROUND_BAD:
	case EV_ROUND_BAD_LAST:
		round_of(P, 10, 10);
		break;
	case EV_RTO:
		now += US;
		mr_path_on_rto(&pt, 1ULL << P, 0, now);
		break;
	case EV_DEAD_TIMEOUT:
		lost = kill(P);
		break;
	case EV_PROBE_DUE:
		now = MR_MAX(now, pt.path[P].next_probe_ns);
		assert_true(mr_path_probe_due(&pt, now, &idx));
		assert_int_equal(idx, P);
		mr_path_on_probe_sent(&pt, P, 0x78, 0x1300, RTO, now);
		break;
	case EV_REPLY_MATCH:
		now += 40 * US;
		ok = mr_path_on_probe_reply(&pt, P, 0x77, 0x1234, 40 * US,
					    now);
		break;
	case EV_REPLY_OTHER:
		now += 40 * US;
		/* identifier right, timestamp wrong; and a stranger's */
		ok = mr_path_on_probe_reply(&pt, P, 0x77, 0x1235, 40 * US,
					    now) ||
		     mr_path_on_probe_reply(&pt, P, 0x99, 0x1234, 40 * US,
					    now);
		break;
	}

	print_message("%s: %d --%d--> %d\n", r->id, r->from, r->ev, r->to);
	assert_int_equal(pt.path[P].state, state_of[r->to]);
	/* a re-roll: a new entropy, counted, health cleared */
	assert_int_equal(pt.rerolls - rerolls, !!(r->act & A_REROLL));
	if (r->act & A_REROLL) {
		assert_int_not_equal(pt.path[P].entropy, before.entropy);
		assert_int_equal(pt.path[P].ecn_frac, 0);
		assert_int_equal(pt.path[P].srtt_ns, 0);
		assert_int_equal(pt.path[P].bad_rounds, 0);
		assert_int_equal(pt.path[P].round_start_ns, now);
	} else {
		assert_int_equal(pt.path[P].entropy, before.entropy);
	}
	assert_int_equal(pt.path[P].pending, !!(r->act & A_PENDING));
	if (r->act & A_PENDING) {
		assert_int_equal(pt.path[P].pending_since_ns, now);
		assert_int_equal(pt.path[P].sent_since, 1);
	}
	if (r->act & A_BAD_INC)
		assert_int_equal(pt.path[P].bad_rounds, before.bad_rounds + 1);
	if (r->act & A_BAD_CLEAR)
		assert_int_equal(pt.path[P].bad_rounds, 0);
	if (!(r->act & (A_BAD_INC | A_BAD_CLEAR | A_REROLL)))
		assert_int_equal(pt.path[P].bad_rounds, before.bad_rounds);
	assert_true(lost == ((r->act & A_MARK_LOST) ? 1ULL << P : 0));
	if (r->act & A_MARK_LOST) {
		/* first PROBE at once, nothing unanswered yet */
		assert_int_equal(pt.path[P].next_probe_ns, now);
		assert_false(pt.path[P].probe_out);
		assert_int_equal(pt.path[P].probe_misses, 0);
		assert_int_equal(pt.deaths, 1);
	}
	if (r->act & A_PROBE) {
		assert_true(pt.path[P].probe_out);
		assert_int_equal(pt.path[P].probe_id, 0x78);
		assert_int_equal(pt.path[P].next_probe_ns,
				 now + (pt.p.probe_interval_ns <<
					pt.path[P].probe_misses));
		assert_false(mr_path_probe_due(&pt, now, &idx));
	}
	assert_int_equal(pt.path[P].probe_misses,
			 (r->act & A_MISS) ? before.probe_misses + 1 :
			 (r->act & (A_REVIVE | A_MARK_LOST)) ? 0 :
			 before.probe_misses);
	assert_int_equal(pt.revivals - revivals, !!(r->act & A_REVIVE));
	assert_int_equal(ok, !(r->act & A_DROP));
	if (r->act & A_REVIVE) {
		assert_int_equal(pt.path[P].srtt_ns, 40 * US);
		assert_int_equal(pt.path[P].round_start_ns, now);
		assert_int_equal(pt.path[P].last_delivery_ns, now);
		assert_false(pt.path[P].probe_out);
		assert_int_equal(mr_path_next_probe_ns(&pt), ~0ULL);
	}
	if (r->act & A_DROP) {
		assert_int_equal(pt.path[P].probe_out, before.probe_out);
		assert_int_equal(pt.path[P].srtt_ns, before.srtt_ns);
	}
	if (r->act & A_DELIVERED) {
		assert_int_equal(pt.path[P].last_delivery_ns, now);
		assert_int_equal(pt.path[P].delivered, before.delivered + 1);
	}
}

static void test_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < MR_ARRAY_SIZE(rows); i++)
		run_row(&rows[i]);
}

/*
 * MR-MP-12, the row's other half: an RTO re-rolls no DEAD path while
 * some path is not DEAD (its probes re-roll it, MR-MP-24); with every
 * path DEAD the data go out on the path that delivered most recently.
 */
static void test_rto_dead_and_fallback(void **state)
{
	u16 e;
	u8 i;

	(void)state;
	enter(DEAD);
	e = pt.path[P].entropy;
	assert_true(mr_path_on_rto(&pt, 0xf, 0, now + US) == 0xd);
	assert_int_equal(pt.path[P].entropy, e);
	for (i = 0; i < 16; i++)
		assert_int_not_equal(mr_path_pick(&pt), P);

	enter(ALL_DEAD);
	mr_path_on_delivery(&pt, 2, 1, now + US);
	for (i = 0; i < 4; i++)
		assert_int_equal(mr_path_pick(&pt), 2);
}

/*
 * MR-MP-15, MR-MP-26: the responder's entropy on a path is fixed while
 * the requester keeps the path's entropy and changes whenever it is
 * re-rolled (one-to-one), so the re-rolls of the table (MR-MP-7,
 * MR-MP-23, MR-MP-8, MR-MP-24) move the reverse route too and a
 * matching PROBE_REPLY proves both routes.
 */
static void test_reply_entropy_follows(void **state)
{
	static u8 seen[(MR_PATH_ENTROPY_MASK + 1) / 8];
	u16 e, r, q;
	u32 x;
	u8 i;

	(void)state;
	for (x = 0; x <= MR_PATH_ENTROPY_MASK; x++) {
		r = mr_path_reply_entropy(0x123, 5, (u16)x);
		assert_true(r <= MR_PATH_ENTROPY_MASK);
		assert_false(seen[r / 8] & (1 << (r % 8)));
		seen[r / 8] |= 1 << (r % 8);
	}
	/* only the low 14 bits count (the source port's prefix does not) */
	assert_int_equal(mr_path_reply_entropy(0x123, 5, 0xC000 | 77),
			 mr_path_reply_entropy(0x123, 5, 77));

	enter(ACTIVE);
	e = mr_path_entropy(&pt, P);
	r = mr_path_reply_entropy(0x42, P, e);
	assert_int_equal(mr_path_reply_entropy(0x42, P, e), r);
	/* every re-roll of the table moves the reverse route */
	mr_path_on_rto(&pt, 1ULL << P, 0, now + US);		/* MR-MP-23 */
	q = mr_path_reply_entropy(0x42, P, mr_path_entropy(&pt, P));
	assert_int_not_equal(q, r);
	kill(P);						/* MR-MP-8 */
	r = mr_path_reply_entropy(0x42, P, mr_path_entropy(&pt, P));
	assert_int_not_equal(r, q);
	assert_true(mr_path_probe_due(&pt, now, &i));
	mr_path_on_probe_sent(&pt, P, 1, 1, RTO, now);
	now = pt.path[P].next_probe_ns;
	mr_path_on_probe_sent(&pt, P, 2, 2, RTO, now);		/* MR-MP-24 */
	q = mr_path_reply_entropy(0x42, P, mr_path_entropy(&pt, P));
	assert_int_not_equal(q, r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_rto_dead_and_fallback),
		cmocka_unit_test(test_reply_entropy_follows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
