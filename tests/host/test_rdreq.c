// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests of the requester's READ/ATOMIC follow-ups (rdreq.h): the
 * next range once half of the last arrived, within the QP's byte budget
 * (MR-REL-24, MR-REL-31); asking again for exactly the missing runs after
 * a stall of one RTO (MR-LOSS-14, told to the caller once: MR-MP-34),
 * reo_wnd after a piece above them arrived (RACK, MR-LOSS-14) or at once
 * after a trim, for the pieces trimmed alone and before a next range
 * (MR-REL-16); not while the request is in flight or earlier READs
 * still stream; an atomic re-sent (MR-REL-27); retries counted once per
 * T_verbs without progress and never during RNR (MR-RETRY-1,
 * MR-RETRY-2, MR-RETRY-8).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rdreq.h"

#define US	1000ULL
#define MS	(1000 * US)
#define RTO	(5 * MS)

static struct mr_rdreq q;
static struct mr_rdreq_env env;

static int setup(void **state)
{
	(void)state;
	memset(&env, 0, sizeof(env));
	env.now = 100 * MS;
	env.rto_ns = RTO;
	env.verbs_timeout_ns = 20 * MS;
	env.retry_cnt = 2;
	env.can_send = true;
	env.rd_bytes_max = 2 * MR_RDASM_WINDOW;
	/* beyond the RTO: the stall and trim cases see no RACK rule */
	env.reo_wnd_ns = 4 * RTO;
	return 0;
}

static enum mr_rdreq_act next(bool read, u32 *off, u32 *len)
{
	return mr_rdreq_next(&q, read, &env, off, len);
}

/* A READ of @len bytes whose first range went out. */
static void start_read(u32 len)
{
	mr_rdreq_start(&q, len, env.now);
	mr_rdasm_first(&q.rd);
	env.rd_bytes_out = q.rd.req_end;
}

static void arrive(u32 off, u32 len)
{
	assert_true(mr_rdreq_resp_new(&q, off, len));
	env.rd_bytes_out -= mr_rdreq_placed(&q, off, len, env.now);
	/* the same bytes again are not placed twice (MR-PLACE-6) */
	assert_false(mr_rdreq_resp_new(&q, off, len));
}

/*
 * The next action asks again for exactly [@want_off, @want_off +
 * @want_len); it is reported sent.
 */
static void ask_again(u32 want_off, u32 want_len)
{
	u32 off, len;

	assert_int_equal(next(true, &off, &len), MR_RDREQ_AGAIN);
	assert_int_equal(off, want_off);
	assert_int_equal(len, want_len);
	mr_rdreq_sent(&q, MR_RDREQ_AGAIN, off, len);
}

static void test_next_range(void **state)
{
	u32 off, len, w = MR_RDASM_WINDOW;

	(void)state;
	start_read(4 * w);
	assert_int_equal(q.rd.req_end, w);
	env.req_in_flight = true;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	arrive(0, w / 2);
	assert_int_equal(next(true, &off, &len), MR_RDREQ_MORE);
	assert_int_equal(off, w);
	assert_int_equal(off + len, w / 2 + w);
	/* over the QP's READ byte budget: later */
	env.rd_bytes_out = env.rd_bytes_max - len + 1;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	env.rd_bytes_out = 0;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_MORE);
	mr_rdreq_sent(&q, MR_RDREQ_MORE, off, len);
	assert_int_equal(q.rd.req_end, off + len);
	/* beyond the unit bitmap nothing is placed */
	assert_false(mr_rdreq_resp_new(&q, off + len, MR_RDASM_UNIT));
}

/* A stall of one RTO asks again for each missing run, in order. */
static void test_stall_asks_for_gaps(void **state)
{
	u32 off, len, u = MR_RDASM_UNIT;

	(void)state;
	start_read(8 * u);
	arrive(0, u);
	arrive(2 * u, u);
	arrive(5 * u, u);
	env.req_in_flight = false;
	env.now += RTO - 1;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	/* an earlier READ still streaming: not this one's stall */
	env.now += 1;
	env.ahead_ns = env.now - 1;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	env.ahead_ns = 0;
	/* in flight: wait for its answer */
	env.req_in_flight = true;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	env.req_in_flight = false;
	assert_false(mr_rdreq_stall_taken(&q));

	ask_again(u, u);
	/* a stall round: the caller moves the path once (MR-MP-34) */
	assert_true(q.stalled);
	assert_true(mr_rdreq_stall_taken(&q));
	assert_false(mr_rdreq_stall_taken(&q));
	/* the round goes on even though the new request is in flight */
	env.req_in_flight = true;
	ask_again(3 * u, 2 * u);
	ask_again(6 * u, 2 * u);
	assert_true(q.stalled);
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	assert_false(q.asking);
	assert_false(q.stalled);
}

/*
 * RACK for responses (MR-LOSS-14): reo_wnd after a piece above a hole
 * arrived, the pieces below the highest one placed are asked again for,
 * once per hole, whether or not the request is in flight; nothing above
 * the highest one (it may still come), and no retry counted.
 */
static void test_hole_asks_after_reo_wnd(void **state)
{
	u32 off, len, u = MR_RDASM_UNIT;

	(void)state;
	env.reo_wnd_ns = 100 * US;
	start_read(8 * u);
	env.req_in_flight = true;
	arrive(0, u);
	assert_false(mr_rdreq_hole(&q));
	arrive(2 * u, u);
	arrive(4 * u, u);
	assert_true(mr_rdreq_hole(&q));
	env.now += 100 * US - 1;
	/* a later piece of the hole still arrives within reo_wnd */
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	env.now += 1;
	ask_again(u, u);
	ask_again(3 * u, u);
	/* [5u, 8u) is above every piece placed: not asked */
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	assert_int_equal(q.retries, 0);
	/* once per hole: the re-requests are on their way */
	env.now += 10 * MS;
	env.ahead_ns = env.now;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	/* both answered: the hole closes, a new one opens afresh */
	arrive(u, u);
	assert_true(mr_rdreq_hole(&q));
	arrive(3 * u, u);
	assert_false(mr_rdreq_hole(&q));
	assert_false(q.rack_due);
	arrive(6 * u, u);
	assert_true(mr_rdreq_hole(&q));
	env.now += 100 * US;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_AGAIN);
	assert_int_equal(off, 5 * u);
	assert_int_equal(len, u);
}

/*
 * A hole that opens above the ones RACK asked for, while they are still
 * missing, is asked for reo_wnd after it opened - it alone: the first
 * re-request is on its way.
 */
static void test_later_hole_asks_alone(void **state)
{
	u32 off, len, u = MR_RDASM_UNIT;

	(void)state;
	env.reo_wnd_ns = 100 * US;
	start_read(8 * u);
	env.req_in_flight = true;
	arrive(0, u);
	arrive(2 * u, u);
	env.now += 100 * US;
	ask_again(u, u);
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	assert_false(q.rack_due);
	/* a piece next to the highest one opens no hole */
	arrive(3 * u, u);
	assert_false(q.rack_due);
	/* [4u, 6u) is missing once 6u arrived */
	arrive(6 * u, u);
	assert_true(q.rack_due);
	env.now += 50 * US;
	/* filling part of it neither asks nor moves the hole's time */
	arrive(5 * u, u);
	env.now += 50 * US - 1;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	env.now += 1;
	ask_again(4 * u, u);
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	assert_int_equal(q.retries, 0);
	/* a hole filled before its reo_wnd leaves nothing to ask */
	arrive(u, u);
	arrive(4 * u, u);
	assert_false(mr_rdreq_hole(&q));
	start_read(8 * u);
	arrive(2 * u, u);
	assert_true(q.rack_due);
	arrive(0, u);
	arrive(u, u);
	assert_false(q.rack_due);
	env.now += MS;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
}

/* No fast re-request during RNR (MR-RETRY-8). */
static void test_hole_waits_rnr(void **state)
{
	u32 off, len, u = MR_RDASM_UNIT;

	(void)state;
	env.reo_wnd_ns = 100 * US;
	start_read(4 * u);
	env.req_in_flight = true;
	arrive(u, u);
	env.now += MS;
	env.can_send = false;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	assert_true(q.rack_due);
	env.can_send = true;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_AGAIN);
	assert_int_equal(off, 0);
	assert_int_equal(len, u);
}

/*
 * A trimmed response: its piece asked again at once, alone (the rest may
 * still be on its way, MR-REL-24), no retry counted.
 */
static void test_trim_asks_at_once(void **state)
{
	u32 off, len, u = MR_RDASM_UNIT;

	(void)state;
	start_read(4 * u);
	arrive(0, u);
	mr_rdreq_trimmed(&q, u, 2 * u);
	env.req_in_flight = true;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	env.req_in_flight = false;
	env.now += 20 * MS;	/* a T_verbs: would count, were it a stall */
	env.ahead_ns = env.now;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_AGAIN);
	assert_int_equal(off, u);
	assert_int_equal(len, u);
	mr_rdreq_sent(&q, MR_RDREQ_AGAIN, off, len);
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	assert_false(q.trimmed);
	assert_int_equal(q.retries, 0);
	/* known lost, no stall: the path stays (MR-MP-34) */
	assert_false(q.stalled);
	assert_false(mr_rdreq_stall_taken(&q));
}

/*
 * Several trims before the READ acts ask again for the runs missing in
 * the span of their pieces, not for what arrived between them nor for
 * what lies above them (MR-REL-24).
 */
static void test_trims_ask_their_span(void **state)
{
	u32 u = MR_RDASM_UNIT;
	u32 off, len;

	(void)state;
	start_read(8 * u);
	arrive(0, u);
	arrive(2 * u, u);
	mr_rdreq_trimmed(&q, 3 * u, 4 * u);
	mr_rdreq_trimmed(&q, u, 2 * u);
	ask_again(u, u);
	ask_again(3 * u, u);
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	assert_int_equal(q.retries, 0);
}

/*
 * A trimmed piece is asked for again even while the QP's READ byte
 * budget holds the READ's next range back (MR-REL-16: without waiting).
 */
static void test_trim_before_next_range(void **state)
{
	u32 w = MR_RDASM_WINDOW, u = MR_RDASM_UNIT;
	u32 off, len;

	(void)state;
	start_read(2 * w);
	arrive(0, w / 2);
	/* a next range is due, but over the budget */
	env.rd_bytes_max = env.rd_bytes_out;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
	mr_rdreq_trimmed(&q, w / 2, w / 2 + 4 * u);
	ask_again(w / 2, 4 * u);
	assert_int_equal(next(true, &off, &len), MR_RDREQ_NONE);
}

/*
 * Retries: at most one per T_verbs without progress; over retry_cnt the
 * WR fails; progress resets them; RNR stops the walk and counts nothing.
 */
static void test_retries(void **state)
{
	u32 off, len, i;

	(void)state;
	mr_rdreq_start(&q, 0, env.now);
	env.can_send = false;
	env.now += 100 * MS;
	assert_int_equal(next(false, &off, &len), MR_RDREQ_STOP);
	assert_int_equal(q.retries, 0);
	env.can_send = true;
	for (i = 1; i <= env.retry_cnt; i++) {
		assert_int_equal(next(false, &off, &len),
				 MR_RDREQ_ATOMIC_AGAIN);
		assert_int_equal(q.retries, i);
		/* another RTO, within the same T_verbs: not counted */
		env.now += RTO;
		assert_int_equal(next(false, &off, &len),
				 MR_RDREQ_ATOMIC_AGAIN);
		assert_int_equal(q.retries, i);
		env.now += 20 * MS;
	}
	assert_int_equal(next(false, &off, &len), MR_RDREQ_FAIL);

	/* a READ that makes progress starts its budget afresh */
	start_read(4 * MR_RDASM_UNIT);
	env.now += 100 * MS;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_AGAIN);
	assert_int_equal(q.retries, 1);
	arrive(0, MR_RDASM_UNIT);
	assert_int_equal(q.retries, 0);
	assert_int_equal(q.progress_ns, env.now);

	/* verbs timeout 0 (infinite): never counted (MR-RETRY-1) */
	start_read(4 * MR_RDASM_UNIT);
	env.verbs_timeout_ns = MR_TIME_NEVER;
	env.now += 100 * MS;
	assert_int_equal(next(true, &off, &len), MR_RDREQ_AGAIN);
	assert_int_equal(q.retries, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_next_range, setup),
		cmocka_unit_test_setup(test_stall_asks_for_gaps, setup),
		cmocka_unit_test_setup(test_hole_asks_after_reo_wnd, setup),
		cmocka_unit_test_setup(test_later_hole_asks_alone, setup),
		cmocka_unit_test_setup(test_hole_waits_rnr, setup),
		cmocka_unit_test_setup(test_trim_asks_at_once, setup),
		cmocka_unit_test_setup(test_trims_ask_their_span, setup),
		cmocka_unit_test_setup(test_trim_before_next_range, setup),
		cmocka_unit_test_setup(test_retries, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
