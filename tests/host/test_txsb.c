// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests: sender scoreboard (kernel/proto/txsb.c): window edges and
 * PSN wraparound (MR-WIN-1, MR-WIN-3), cumulative + SACK processing and
 * ACK validation (MR-REL-19, MR-REL-20), RACK reorder-vs-loss (MR-LOSS-1,
 * MR-LOSS-2, MR-LOSS-3), RTT/RTO estimation and backoff (MR-LOSS-4 ..
 * MR-LOSS-9), spurious RTO undo (MR-LOSS-15), retry and RNR budgets
 * (MR-RETRY-1, MR-RETRY-5, MR-RETRY-6, MR-RETRY-7, MR-RETRY-9) and NACK
 * handling (MR-REL-23, MR-LOSS-10).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "txsb.h"
#include "mr_test_util.h"

#define US	1000ULL
#define MS	1000000ULL

static struct mr_txsb sb;
static struct mr_txsb_result res;

static void setup_sb(u32 init_psn, u8 retry_cnt, u8 rnr_retry)
{
	struct mr_txsb_params p;

	mr_txsb_default_params(&p);
	p.retry_cnt = retry_cnt;
	p.rnr_retry = rnr_retry;
	assert_int_equal(mr_txsb_init(&sb, &p, init_psn), 0);
}

/* Send @n single-packet messages (msn = first_msn + i) at @t on @path. */
static u32 send_n(u32 n, u32 first_msn, u8 path, u64 t)
{
	u32 i, psn = 0, first = 0;

	for (i = 0; i < n; i++) {
		assert_int_equal(mr_txsb_on_send(&sb, first_msn + i,
						 MR_TXE_FIRST | MR_TXE_LAST,
						 path, t, &psn), 0);
		if (!i)
			first = psn;
	}
	return first;
}

static void ack_init(struct mr_akh *a, u32 cum, u64 sent_at)
{
	memset(a, 0, sizeof(*a));
	a->cum_psn = cum & MR_PSN_MASK;
	a->ts_echo = mr_txsb_ts(sent_at);
	a->credit = MR_CREDIT_UNLIMITED;
}

static void sack_set(struct mr_akh *a, u32 psn)
{
	u32 i = mr_psn_dist(psn, a->cum_psn);

	assert_true(i > 0 && i < MR_SACK_BITS);
	a->sack[i / 64] |= 1ULL << (i % 64);
}

static void test_params_and_tables(void **state)
{
	struct mr_txsb_params p;

	(void)state;
	mr_txsb_default_params(&p);
	p.min_rto_ns = p.max_rto_ns + 1;
	assert_int_equal(mr_txsb_init(&sb, &p, 0), MR_ERR_INVAL);
	mr_txsb_default_params(&p);
	assert_int_equal(mr_txsb_init(&sb, &p, 0x1000000), MR_ERR_INVAL);
	p.retry_cnt = 8;
	assert_int_equal(mr_txsb_init(&sb, &p, 0), MR_ERR_INVAL);

	/* IBTA RNR NAK timer encodings */
	assert_int_equal(mr_rnr_timer_ns(0), 655360 * US);
	assert_int_equal(mr_rnr_timer_ns(1), 10 * US);
	assert_int_equal(mr_rnr_timer_ns(14), 1280 * US);
	assert_int_equal(mr_rnr_timer_ns(25), 61440 * US);
	assert_int_equal(mr_rnr_timer_ns(31), 491520 * US);
	/* local ACK timeout: 4.096 us * 2^t, 0 = infinite */
	assert_int_equal(mr_ib_timeout_ns(1), 8192);
	assert_int_equal(mr_ib_timeout_ns(14), 4096ULL << 14);
	assert_true(mr_ib_timeout_ns(0) == MR_TIME_NEVER);
	/* timestamps are microseconds and wrap at 2^32 */
	assert_int_equal(mr_txsb_ts(1999), 1);
	assert_int_equal(mr_txsb_ts((1ULL << 32) * 1000 + 5000), 5);
}

static void test_cum_ack_and_done_msn(void **state)
{
	struct mr_akh a;
	u32 psn, i;

	(void)state;
	setup_sb(100, 7, 7);
	/* message 7: 3 packets, message 8: 2 packets */
	for (i = 0; i < 5; i++) {
		u8 f = (i == 0 || i == 3) ? MR_TXE_FIRST : 0;

		if (i == 2 || i == 4)
			f |= MR_TXE_LAST;
		assert_int_equal(mr_txsb_on_send(&sb, i < 3 ? 7 : 8, f, 0,
						 0, &psn), 0);
		assert_int_equal(psn, 100 + i);
	}
	assert_int_equal(mr_txsb_outstanding(&sb), 5);

	/* cum through the middle of message 7: nothing done */
	ack_init(&a, 102, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 20 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 2);
	assert_false(res.done_valid);
	assert_true(res.una_advanced);
	assert_int_equal(sb.una, 102);
	assert_int_equal(res.path_delivered[0], 2);
	assert_true(res.rtt_valid);
	assert_int_equal(res.rtt_ns, 20 * US);

	/* cum covers both messages: highest done msn reported */
	ack_init(&a, 105, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 21 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 3);
	assert_true(res.done_valid);
	assert_int_equal(res.done_msn, 8);
	assert_int_equal(mr_txsb_outstanding(&sb), 0);
	assert_null(mr_txsb_get(&sb, 104));

	/* the same ACK again: nothing new, no RTT sample */
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 30 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_acked + res.newly_sacked, 0);
	assert_false(res.rtt_valid);
	assert_false(res.done_valid);
}

/*
 * MR-REL-30: a SACKed PSN at una counts as cumulatively acknowledged. The
 * case from the VMs: a READ_REQ (psn 201) is SACKed by its response
 * (MR-REL-21) while psn 200 is unacked; the ACK for 200 then moves una to
 * 201, and the ACK that would cover 201 is lost. With nothing in flight
 * no RTO runs, so una must not stop at the SACKed 201.
 */
static void test_sacked_at_una_advances(void **state)
{
	struct mr_akh a;

	(void)state;
	setup_sb(200, 7, 7);
	send_n(2, 1, 0, 0);

	/* the response's implicit SACK of 201 */
	ack_init(&a, 200, 0);
	sack_set(&a, 201);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 10 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_sacked, 1);
	assert_int_equal(sb.una, 200);

	/* the responder's ACK for 200, sent before 201 arrived */
	ack_init(&a, 201, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 20 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 1);
	assert_int_equal(sb.una, 202);
	assert_int_equal(res.una, 202);
	assert_true(res.done_valid);
	assert_int_equal(res.done_msn, 2);
	assert_int_equal(mr_txsb_outstanding(&sb), 0);
	assert_int_equal(sb.n_sacked, 0);

	/* a SACK run ending at a hole stops there: 203 still unacked */
	send_n(3, 3, 0, 30 * US);
	ack_init(&a, 202, 30 * US);
	sack_set(&a, 204);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 40 * US, &res), MR_TXSB_OK);
	ack_init(&a, 203, 30 * US);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 41 * US, &res), MR_TXSB_OK);
	assert_int_equal(sb.una, 203);
	assert_int_equal(sb.n_sacked, 1);
	assert_non_null(mr_txsb_get(&sb, 203));
	assert_int_equal(mr_txsb_inflight(&sb), 1);
}

static void test_window_edges(void **state)
{
	struct mr_akh a;
	u32 psn;

	(void)state;
	setup_sb(0, 7, 7);
	send_n(MR_TXSB_WIN - 1, 0, 0, 0);
	assert_false(mr_txsb_window_full(&sb));
	send_n(1, 255, 0, 0);
	assert_true(mr_txsb_window_full(&sb));
	assert_int_equal(mr_txsb_on_send(&sb, 256, MR_TXE_FIRST | MR_TXE_LAST,
					 0, 0, &psn), MR_ERR_NOSPACE);
	assert_int_equal(sb.nxt, 256);

	/* SACK the last PSN of the window (bit 255) */
	ack_init(&a, 0, 0);
	sack_set(&a, 255);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 10 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_sacked, 1);
	assert_true(mr_txsb_window_full(&sb));	/* una did not move */
	assert_int_equal(mr_txsb_inflight(&sb), 255);

	/* ACK of one PSN opens exactly one slot */
	ack_init(&a, 1, 0);
	sack_set(&a, 255);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 11 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 1);
	assert_int_equal(res.newly_sacked, 0);
	assert_false(mr_txsb_window_full(&sb));
	assert_int_equal(mr_txsb_on_send(&sb, 256, MR_TXE_FIRST | MR_TXE_LAST,
					 0, 12 * US, &psn), 0);
	assert_int_equal(psn, 256);
	assert_true(mr_txsb_window_full(&sb));

	/* cumulative ACK over a sacked PSN does not count it twice */
	ack_init(&a, 257, 12 * US);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 20 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 255);
	assert_int_equal(sb.n_sacked, 0);
	assert_int_equal(mr_txsb_outstanding(&sb), 0);
}

static void test_wraparound(void **state)
{
	struct mr_akh a;
	u32 first;

	(void)state;
	setup_sb(0xfffff0, 7, 7);
	first = send_n(40, 1000, 1, 0);
	assert_int_equal(first, 0xfffff0);
	assert_int_equal(sb.nxt, 0x18);
	assert_int_equal(mr_txsb_outstanding(&sb), 40);

	/* cum just before the wrap, SACKs just after it */
	ack_init(&a, 0xfffffe, 0);
	sack_set(&a, 0x000000);
	sack_set(&a, 0x000005);
	sack_set(&a, 0x000017);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 10 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 14);
	assert_int_equal(res.newly_sacked, 3);
	assert_true(res.done_valid);
	assert_int_equal(res.done_msn, 1013);
	assert_int_equal(sb.una, 0xfffffe);
	assert_int_equal(mr_txsb_get(&sb, 0x000005)->flags & MR_TXE_SACKED,
			 MR_TXE_SACKED);
	assert_null(mr_txsb_get(&sb, 0x000018));
	assert_null(mr_txsb_get(&sb, 0xfffffd));

	/* cum across the wrap */
	ack_init(&a, 0x000006, 0);
	sack_set(&a, 0x000017);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 11 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 6);	/* fffffe, ffffff, 1..4 */
	assert_int_equal(res.newly_sacked, 0);
	assert_int_equal(sb.una, 6);
	assert_int_equal(sb.n_sacked, 1);
	assert_int_equal(res.done_msn, 1021);

	/* beyond nxt across the wrap: rejected without state change */
	ack_init(&a, 0x000019, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 12 * US, &res),
			 MR_ERR_ACK_RANGE);
	assert_int_equal(sb.una, 6);
	ack_init(&a, 0x000018, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 12 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 17);
	assert_int_equal(sb.n_sacked, 0);
}

static void test_invalid_ack_no_state_change(void **state)
{
	static struct mr_txsb before;
	struct mr_akh a;

	(void)state;
	setup_sb(500, 7, 7);
	send_n(10, 0, 0, 0);
	before = sb;
	ack_init(&a, 511, 0);		/* one beyond nxt */
	sack_set(&a, 512);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 5 * US, &res),
			 MR_ERR_ACK_RANGE);
	assert_int_equal(sb.st.bad_acks, 1);
	sb.st.bad_acks = 0;
	assert_memory_equal(&before, &sb, sizeof(sb));
	a.cum_psn = 0x1000000;		/* not a 24-bit PSN */
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 5 * US, &res),
			 MR_ERR_INVAL);
	sb.st.bad_acks = 0;
	assert_memory_equal(&before, &sb, sizeof(sb));
}

static void test_stale_ack_and_unsent_sack_bits(void **state)
{
	struct mr_akh a;

	(void)state;
	setup_sb(0, 7, 7);
	send_n(10, 0, 0, 0);
	ack_init(&a, 5, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 10 * US, &res), MR_TXSB_OK);
	/* an older ACK arrives late: its SACK info still counts */
	ack_init(&a, 2, 0);
	sack_set(&a, 3);	/* already acked: ignored */
	sack_set(&a, 7);
	sack_set(&a, 20);	/* never sent: ignored */
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 11 * US, &res), MR_TXSB_OK);
	assert_false(res.una_advanced);
	assert_int_equal(sb.una, 5);
	assert_int_equal(res.newly_sacked, 1);
	assert_int_equal(sb.n_sacked, 1);
	assert_int_equal(sb.st.stale_acks, 1);
	assert_int_equal(mr_txsb_get(&sb, 7)->flags & MR_TXE_SACKED,
			 MR_TXE_SACKED);
}

static void test_rtt_estimator(void **state)
{
	struct mr_akh a;

	(void)state;
	setup_sb(0, 7, 7);
	/* before any sample the initial RTO applies: 10 ms (MR-LOSS-6) */
	assert_int_equal(mr_txsb_rto(&sb), 10 * MS);
	assert_int_equal(mr_txsb_reo_wnd(&sb), 50 * US);

	/* RTTs of a stalling VM: srtt + 4 rttvar above the 5 ms floor */
	send_n(1, 0, 0, 0);
	ack_init(&a, 1, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 4 * MS, &res), MR_TXSB_OK);
	/* RFC 6298 2.2: srtt = R, rttvar = R / 2 */
	assert_int_equal(sb.srtt_ns, 4 * MS);
	assert_int_equal(sb.rttvar_ns, 2 * MS);
	assert_int_equal(mr_txsb_rto(&sb), 12 * MS);
	assert_int_equal(mr_txsb_reo_wnd(&sb), 1 * MS);

	send_n(1, 1, 0, 10 * MS);
	ack_init(&a, 2, 10 * MS);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 12 * MS, &res),
			 MR_TXSB_OK);
	/* rttvar = 3/4 * 2 + 1/4 * |4 - 2|, srtt = 7/8 4 + 1/8 2 (ms) */
	assert_int_equal(sb.rttvar_ns, 2 * MS);
	assert_int_equal(sb.srtt_ns, 3750 * US);
	assert_int_equal(sb.min_rtt_ns, 2 * MS);
	assert_int_equal(mr_txsb_rto(&sb), 11750 * US);

	/* small RTTs: RTO clamps at min_rto 5 ms, reo_wnd at 50 us */
	setup_sb(0, 7, 7);
	send_n(1, 0, 0, 0);
	ack_init(&a, 1, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 8 * US, &res), MR_TXSB_OK);
	assert_int_equal(mr_txsb_rto(&sb), 5 * MS);
	assert_int_equal(mr_txsb_reo_wnd(&sb), 50 * US);

	/*
	 * An echo from the future is no echo of ours: the ACK is dropped
	 * without any state change (MR-SEC-6).
	 */
	send_n(1, 1, 0, 10 * US);
	ack_init(&a, 2, 50 * US);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 20 * US, &res),
			 MR_ERR_ACK_AGE);
	assert_int_equal(res.newly_acked, 0);
	assert_int_equal(sb.una, 1);
	assert_int_equal(sb.st.aged_acks, 1);
	ack_init(&a, 2, 10 * US);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 20 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 1);
}

/* Establish srtt = 20 us (reo_wnd = 50 us floor) on a fresh scoreboard. */
static void warm_up(void)
{
	struct mr_akh a;

	setup_sb(1000, 7, 7);
	send_n(1, 0, 0, 0);
	ack_init(&a, 1001, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 20 * US, &res), MR_TXSB_OK);
}

static void test_rack_reordering_within_window(void **state)
{
	struct mr_akh a;
	u64 t0 = 100 * US;
	u32 p0;

	(void)state;
	warm_up();
	p0 = send_n(1, 1, 0, t0);
	send_n(1, 2, 0, t0 + 1 * US);
	/* the later packet arrives first: p0 reordered, not yet lost */
	ack_init(&a, p0, t0 + 1 * US);
	sack_set(&a, p0 + 1);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t0 + 21 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_sacked, 1);
	assert_int_equal(res.newly_lost, 0);
	/* the reordering timer is armed at sent + rack_rtt + reo_wnd */
	assert_int_equal(mr_txsb_next_deadline(&sb),
			 t0 + 20 * US + 50 * US + 1);
	/* still within reo_wnd: timer runs, nothing lost */
	assert_int_equal(mr_txsb_on_timer(&sb, t0 + 70 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_lost, 0);
	/* p0 arrives 49 us late: reordering, never declared lost */
	ack_init(&a, p0 + 2, t0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t0 + 69 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 1);
	assert_int_equal(res.newly_lost, 0);
	assert_int_equal(sb.st.lost_rack, 0);
	assert_int_equal(sb.st.retx, 0);
	assert_false(mr_txsb_next_retx(&sb, t0 + 70 * US, &p0));
}

static void test_rack_loss_beyond_window(void **state)
{
	struct mr_akh a;
	u64 t0 = 100 * US;
	u32 p0, psn;

	(void)state;
	warm_up();
	p0 = send_n(1, 1, 3, t0);
	send_n(2, 2, 3, t0 + 1 * US);
	ack_init(&a, p0, t0 + 1 * US);
	sack_set(&a, p0 + 1);
	sack_set(&a, p0 + 2);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t0 + 21 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_lost, 0);
	assert_false(mr_txsb_next_retx(&sb, t0 + 21 * US, &psn));
	/* exactly at the threshold: not yet ("more than reo_wnd") */
	assert_int_equal(mr_txsb_on_timer(&sb, t0 + 70 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_lost, 0);
	/* just beyond: lost, no duplicate ACKs needed */
	assert_int_equal(mr_txsb_on_timer(&sb, t0 + 70 * US + 1, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_lost, 1);
	assert_int_equal(res.path_lost[3], 1);
	assert_true(res.path_lost_mask == 1ULL << 3);
	assert_int_equal(sb.st.lost_rack, 1);
	assert_int_equal(mr_txsb_inflight(&sb), 0);
	assert_true(mr_txsb_next_retx(&sb, t0 + 71 * US, &psn));
	assert_int_equal(psn, p0);
	/* retransmit on another path, then it is delivered */
	assert_int_equal(mr_txsb_on_retx(&sb, p0, 5, t0 + 80 * US), 0);
	assert_false(mr_txsb_next_retx(&sb, t0 + 80 * US, &psn));
	assert_int_equal(mr_txsb_get(&sb, p0)->retx, 1);
	assert_int_equal(mr_txsb_get(&sb, p0)->path, 5);
	ack_init(&a, p0 + 3, t0 + 80 * US);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t0 + 100 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 1);
	/* sent twice: neither copy's path is credited (MR-MP-19) */
	assert_int_equal(res.path_delivered[5], 0);
	assert_int_equal(res.path_delivered[3], 0);
	assert_true(res.path_delivered_mask == 0);
	/* the timestamp echo gives a valid sample for the retransmission */
	assert_true(res.rtt_valid);
	assert_int_equal(res.rtt_ns, 20 * US);
	assert_int_equal(res.spurious, 0);
}

/*
 * MR-MP-19: a PSN sent once is credited to its path when first
 * acknowledged, cumulatively or by SACK; a PSN sent more than once to no
 * path (Karn's rule).  Here the original of p0 went into a black hole on
 * path 2 and its retransmission on path 4 was acknowledged along with
 * packets sent once on paths 1 and 3: path 2's copy may be the one that
 * arrived for all the ACK says, so crediting path 4 could as well keep a
 * dead path alive.
 */
static void test_path_credit_karn(void **state)
{
	struct mr_akh a;
	u32 p0, p2;

	(void)state;
	warm_up();
	p0 = send_n(1, 1, 2, 100 * US);
	send_n(1, 2, 1, 110 * US);
	p2 = send_n(1, 3, 3, 120 * US);
	assert_int_equal(mr_txsb_on_retx(&sb, p0, 4, 200 * US), 0);
	/* p2 SACKed alone first: path 3 credited, nobody else */
	ack_init(&a, p0, 120 * US);
	sack_set(&a, p2);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 230 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_sacked, 1);
	assert_true(res.path_delivered_mask == 1ULL << 3);
	assert_int_equal(res.path_delivered[3], 1);
	/* then everything cumulatively: p1's path 1 only, not 2 nor 4 */
	ack_init(&a, p2 + 1, 200 * US);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 260 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 2);
	assert_true(res.path_delivered_mask == 1ULL << 1);
	assert_int_equal(res.path_delivered[1], 1);
	assert_int_equal(res.path_delivered[2], 0);
	assert_int_equal(res.path_delivered[4], 0);
	assert_int_equal(mr_txsb_inflight(&sb), 0);
}

/*
 * MR-LOSS-2: a packet is judged only against later packets of its own
 * path. One sent 100 us later on another path arrives first: the other
 * route's queues are shorter, which says nothing of this one (before, a
 * spine with a longer queue lost every packet to RACK). A later packet of
 * its own path that arrives does declare it lost.
 */
static void test_rack_other_path_is_no_evidence(void **state)
{
	struct mr_akh a;
	u64 t0 = 100 * US;
	u32 p0;

	(void)state;
	warm_up();
	p0 = send_n(1, 1, 2, t0);
	send_n(1, 2, 5, t0 + 100 * US);
	send_n(1, 3, 2, t0 + 110 * US);
	ack_init(&a, p0, t0 + 100 * US);
	sack_set(&a, p0 + 1);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t0 + 120 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_sacked, 1);
	assert_int_equal(res.newly_lost, 0);
	assert_int_equal(mr_txsb_on_timer(&sb, t0 + 400 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_lost, 0);
	/* the next packet of path 2 arrives: p0, 110 us older, is lost */
	ack_init(&a, p0, t0 + 110 * US);
	sack_set(&a, p0 + 1);
	sack_set(&a, p0 + 2);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t0 + 410 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_lost, 1);
	assert_int_equal(res.path_lost[2], 1);
}

static void test_rack_loss_on_ack_and_spurious(void **state)
{
	struct mr_akh a;
	u64 t0 = 100 * US;
	u32 p0;

	(void)state;
	warm_up();
	p0 = send_n(1, 1, 0, t0);
	send_n(1, 2, 0, t0 + 100 * US);
	/* a packet sent 100 us later arrives: p0 is way past reo_wnd */
	ack_init(&a, p0, t0 + 100 * US);
	sack_set(&a, p0 + 1);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t0 + 120 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_lost, 1);
	assert_int_equal(sb.n_lost, 1);
	/* ...but p0 was only very late: delivered before the retransmit */
	ack_init(&a, p0 + 2, t0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t0 + 125 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 1);
	assert_int_equal(res.spurious, 1);
	assert_int_equal(sb.n_lost, 0);
	assert_int_equal(mr_txsb_outstanding(&sb), 0);
}

/*
 * MR-LOSS-2: a retransmitted packet whose ACK echoes its earlier copy was
 * delivered by that copy; its retransmission time must not become R's, or
 * every packet sent between the two copies would look overdue.
 */
static void test_rack_retx_echo(void **state)
{
	struct mr_akh a;
	u64 t0 = 100 * US;
	u32 p0;

	(void)state;
	warm_up();			/* srtt = min_rtt = 20 us */
	p0 = send_n(1, 1, 0, t0);
	send_n(1, 2, 0, t0 + 1 * US);
	/* p0 resent (a tail probe, say) 300 us later, on its path */
	assert_int_equal(mr_txsb_on_retx(&sb, p0, 0, t0 + 300 * US), 0);
	/* the ACK of p0's first copy arrives 20 us after the resend */
	ack_init(&a, p0 + 1, t0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t0 + 320 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 1);
	assert_int_not_equal(sb.rack_psn, p0);
	/* p1, sent right after p0's first copy, is not overdue */
	assert_int_equal(res.newly_lost, 0);
	/* the echo of the resent copy would have made p0 R */
	warm_up();
	p0 = send_n(1, 1, 0, t0);
	send_n(1, 2, 0, t0 + 1 * US);
	assert_int_equal(mr_txsb_on_retx(&sb, p0, 0, t0 + 300 * US), 0);
	ack_init(&a, p0 + 1, t0 + 300 * US);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t0 + 320 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(sb.rack_psn, p0);
	assert_int_equal(res.newly_lost, 1);
}

static void test_rto_backoff_and_retry_exhaustion(void **state)
{
	struct mr_akh a;
	u64 t, rto;
	u32 psn;
	int i;

	(void)state;
	setup_sb(7, 2, 7);
	send_n(3, 0, 2, 0);
	rto = mr_txsb_rto(&sb);
	assert_int_equal(rto, 10 * MS);
	assert_int_equal(mr_txsb_next_deadline(&sb), rto);
	assert_int_equal(mr_txsb_on_timer(&sb, rto - 1, &res), MR_TXSB_OK);
	assert_false(res.rto_fired);

	/* retry_cnt = 2: two retransmission rounds, the third expiry fails */
	t = rto;
	for (i = 0; i < 2; i++) {
		assert_int_equal(mr_txsb_on_timer(&sb, t, &res), MR_TXSB_OK);
		assert_true(res.rto_fired);
		assert_int_equal(res.newly_lost, 3);
		assert_int_equal(res.path_lost[i ? 1 : 2], 3);
		/* exponential backoff */
		assert_int_equal(mr_txsb_rto(&sb), rto << (i + 1));
		while (mr_txsb_next_retx(&sb, t, &psn))
			assert_int_equal(mr_txsb_on_retx(&sb, psn, 1, t), 0);
		assert_int_equal(mr_txsb_next_deadline(&sb),
				 t + (rto << (i + 1)));
		t += rto << (i + 1);
	}
	assert_int_equal(mr_txsb_on_timer(&sb, t, &res),
			 MR_TXSB_RETRY_EXCEEDED);
	assert_int_equal(sb.st.rto, 3);

	/* progress resets the budget and the backoff */
	setup_sb(7, 1, 7);
	send_n(2, 0, 0, 0);
	assert_int_equal(mr_txsb_on_timer(&sb, 10 * MS, &res), MR_TXSB_OK);
	assert_int_equal(mr_txsb_rto(&sb), 20 * MS);
	while (mr_txsb_next_retx(&sb, 10 * MS, &psn))
		mr_txsb_on_retx(&sb, psn, 0, 10 * MS);
	/* the retransmissions answered: a genuine RTO, not undone */
	ack_init(&a, 8, 10 * MS);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 10 * MS + 30 * US, &res),
			 MR_TXSB_OK);
	assert_false(res.rto_undone);
	assert_int_equal(sb.rto_expiries, 0);
	assert_int_equal(sb.backoff, 0);
	/* one more expiry is again allowed with retry_cnt = 1 */
	t = mr_txsb_next_deadline(&sb);
	assert_int_equal(t, 10 * MS + 30 * US + 5 * MS);
	assert_int_equal(mr_txsb_on_timer(&sb, t, &res), MR_TXSB_OK);
	assert_true(res.rto_fired);
	assert_int_equal(mr_txsb_on_timer(&sb, t + 1, &res), MR_TXSB_OK);
	assert_false(res.rto_fired);	/* everything lost: nothing in flight */
	while (mr_txsb_next_retx(&sb, t, &psn))
		mr_txsb_on_retx(&sb, psn, 0, t);
	assert_int_equal(mr_txsb_on_timer(&sb, mr_txsb_next_deadline(&sb),
					  &res), MR_TXSB_RETRY_EXCEEDED);

	/* backoff is capped at max_rto */
	{
		struct mr_txsb_params p;

		mr_txsb_default_params(&p);
		p.max_rto_ns = 30 * MS;
		assert_int_equal(mr_txsb_init(&sb, &p, 0), 0);
	}
	send_n(1, 0, 0, 0);
	for (i = 0, t = 0; i < 5; i++) {
		t = mr_txsb_next_deadline(&sb);
		assert_int_equal(mr_txsb_on_timer(&sb, t, &res), MR_TXSB_OK);
		mr_txsb_on_retx(&sb, sb.una, 0, t);
	}
	assert_int_equal(mr_txsb_rto(&sb), 30 * MS);
}

/*
 * A stalled peer (MR-LOSS-15): the RTO fires, one packet is
 * retransmitted, then the ACKs of the original copies arrive.  The first
 * of them echoes a copy sent before the expiry: the RTO was spurious,
 * the packets it declared lost and that were not retransmitted yet are
 * in flight again, nothing more is resent.
 */
static void test_spurious_rto_undo(void **state)
{
	struct mr_akh a;
	u64 t;
	u32 p0, psn;

	(void)state;
	setup_sb(0, 7, 7);
	p0 = send_n(10, 0, 0, 0);
	t = mr_txsb_next_deadline(&sb);
	assert_int_equal(t, 10 * MS);
	assert_int_equal(mr_txsb_on_timer(&sb, t, &res), MR_TXSB_OK);
	assert_true(res.rto_fired);
	assert_int_equal(res.newly_lost, 10);
	assert_int_equal(sb.n_lost, 10);
	/* the window collapsed to one packet: one retransmission */
	assert_true(mr_txsb_next_retx(&sb, t, &psn));
	assert_int_equal(psn, p0);
	assert_int_equal(mr_txsb_on_retx(&sb, psn, 1, t), 0);
	/* the peer wakes up: the ACK of p0..p2's original copies */
	ack_init(&a, p0 + 3, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 25 * MS, &res), MR_TXSB_OK);
	assert_true(res.rto_undone);
	assert_int_equal(res.newly_acked, 3);
	assert_int_equal(sb.st.spurious_rto, 1);
	/* p3..p9 were never resent: in flight again, not lost */
	assert_int_equal(sb.n_lost, 0);
	assert_int_equal(mr_txsb_inflight(&sb), 7);
	assert_false(mr_txsb_next_retx(&sb, 25 * MS, &psn));
	assert_int_equal(sb.backoff, 0);
	assert_int_equal(sb.rto_expiries, 0);
	/* the stall is an RTT sample: the next RTO covers it */
	assert_true(res.rtt_valid);
	assert_int_equal(res.rtt_ns, 25 * MS);
	assert_true(mr_txsb_rto(&sb) > 25 * MS);
	/* the rest arrives: no retransmission was needed */
	ack_init(&a, p0 + 10, 1 * US);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 25 * MS + 10 * US, &res),
			 MR_TXSB_OK);
	assert_false(res.rto_undone);
	assert_int_equal(res.newly_acked, 7);
	assert_int_equal(res.spurious, 0);
	assert_int_equal(sb.st.retx, 1);
	assert_int_equal(sb.st.spurious_rto, 1);
	assert_int_equal(mr_txsb_outstanding(&sb), 0);
}

/*
 * Three packets, an RTO at *t that resends the first, a second expiry of
 * the same episode at *t2; returns the first PSN.
 */
static u32 rto_twice(u64 *t, u64 *t2)
{
	u32 p0;

	setup_sb(0, 7, 7);
	p0 = send_n(3, 0, 0, 0);
	*t = mr_txsb_next_deadline(&sb);
	assert_int_equal(mr_txsb_on_timer(&sb, *t, &res), MR_TXSB_OK);
	assert_int_equal(mr_txsb_on_retx(&sb, p0, 0, *t), 0);
	*t2 = mr_txsb_next_deadline(&sb);
	assert_int_equal(*t2, *t + 20 * MS);
	assert_int_equal(mr_txsb_on_timer(&sb, *t2, &res), MR_TXSB_OK);
	assert_true(res.rto_fired);
	return p0;
}

/* The echo of the retransmission: a real loss, nothing undone. */
static void test_genuine_rto_not_undone(void **state)
{
	struct mr_akh a;
	struct mr_txsb_params p;
	u64 t, t2;
	u32 p0, psn;

	(void)state;
	setup_sb(0, 7, 7);
	p0 = send_n(4, 0, 0, 0);
	t = mr_txsb_next_deadline(&sb);
	assert_int_equal(mr_txsb_on_timer(&sb, t, &res), MR_TXSB_OK);
	assert_true(mr_txsb_next_retx(&sb, t, &psn));
	assert_int_equal(mr_txsb_on_retx(&sb, psn, 0, t), 0);
	/* a duplicate ACK delivers nothing: the episode is not judged */
	ack_init(&a, p0, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t + 5 * US, &res),
			 MR_TXSB_OK);
	assert_false(res.rto_undone);
	assert_true(sb.rto_pending);
	/* the retransmitted copy arrived: echo at the expiry */
	ack_init(&a, p0 + 1, t);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t + 30 * US, &res),
			 MR_TXSB_OK);
	assert_false(res.rto_undone);
	assert_int_equal(sb.st.spurious_rto, 0);
	assert_int_equal(sb.n_lost, 3);
	/* only the first delivering ACK judges: a late old echo does not */
	ack_init(&a, p0 + 2, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t + 40 * US, &res),
			 MR_TXSB_OK);
	assert_false(res.rto_undone);
	assert_int_equal(sb.n_lost, 2);
	assert_int_equal(sb.st.spurious_rto, 0);

	/*
	 * Two expiries in one episode are judged by the first: an echo of
	 * the copy resent at the first expiry is not spurious ...
	 */
	p0 = rto_twice(&t, &t2);
	assert_int_equal(mr_txsb_on_retx(&sb, p0, 0, t2), 0);
	ack_init(&a, p0 + 1, t);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t2 + 1 * MS, &res),
			 MR_TXSB_OK);
	assert_false(res.rto_undone);
	/* ... while an echo from before the first one undoes both */
	p0 = rto_twice(&t, &t2);
	assert_int_equal(sb.n_lost, 3);
	ack_init(&a, p0 + 1, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t2 + 1 * MS, &res),
			 MR_TXSB_OK);
	assert_true(res.rto_undone);
	assert_int_equal(sb.n_lost, 0);
	assert_int_equal(sb.st.rto, 2);
	assert_int_equal(sb.st.spurious_rto, 1);

	/*
	 * An echo older than ack_max_age proves nothing: the ACK is
	 * dropped (MR-SEC-6), the RTO stands.
	 */
	mr_txsb_default_params(&p);
	p.ack_max_age_ns = 50 * MS;
	assert_int_equal(mr_txsb_init(&sb, &p, 0), 0);
	p0 = send_n(2, 0, 0, 0);
	t = mr_txsb_next_deadline(&sb);
	assert_int_equal(mr_txsb_on_timer(&sb, t, &res), MR_TXSB_OK);
	ack_init(&a, p0 + 1, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 60 * MS, &res),
			 MR_ERR_ACK_AGE);
	assert_int_equal(res.newly_acked, 0);
	assert_false(res.rto_undone);
	assert_int_equal(sb.n_lost, 2);
	/* nor does an echo from the future */
	setup_sb(0, 7, 7);
	p0 = send_n(2, 0, 0, 0);
	t = mr_txsb_next_deadline(&sb);
	assert_int_equal(mr_txsb_on_timer(&sb, t, &res), MR_TXSB_OK);
	ack_init(&a, p0 + 1, t + 5 * MS);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t + 1 * MS, &res),
			 MR_ERR_ACK_AGE);
	assert_false(res.rto_undone);
	assert_int_equal(sb.n_lost, 2);
}

/*
 * After an undo RACK judges the packets afresh: one sent well before the
 * most recent delivered packet and still missing is lost after all, the
 * others wait for the reordering window (MR-LOSS-2, MR-LOSS-15).
 */
static void test_undo_then_rack(void **state)
{
	struct mr_akh a;
	u64 t;
	u32 p0, psn, i;

	(void)state;
	setup_sb(0, 7, 7);
	p0 = send_n(1, 0, 0, 0);
	send_n(5, 1, 0, 4 * MS);
	t = mr_txsb_next_deadline(&sb);
	assert_int_equal(mr_txsb_on_timer(&sb, t, &res), MR_TXSB_OK);
	assert_int_equal(sb.n_lost, 6);
	/* p1..p4 arrive (sent at 4 ms), p0 and p5 do not */
	ack_init(&a, p0, 4 * MS);
	for (i = 1; i < 5; i++)
		sack_set(&a, p0 + i);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 16 * MS, &res), MR_TXSB_OK);
	assert_true(res.rto_undone);
	assert_int_equal(res.newly_sacked, 4);
	/* p0, sent 4 ms before R (reo_wnd 3 ms): lost by RACK at once */
	assert_int_equal(res.newly_lost, 1);
	assert_int_equal(sb.st.lost_rack, 1);
	assert_true(mr_txsb_next_retx(&sb, 16 * MS, &psn));
	assert_int_equal(psn, p0);
	/* p5 was sent after R: in flight */
	assert_int_equal(sb.n_lost, 1);
	assert_int_equal(mr_txsb_inflight(&sb), 1);
	assert_int_equal(mr_txsb_get(&sb, p0 + 5)->flags & MR_TXE_LOST, 0);
}

/* SACK bits in every word, at the word edges; bit 0 and unsent PSNs. */
static void test_sack_words(void **state)
{
	static const u32 bits[] = { 1, 2, 63, 64, 65, 127, 128, 191, 192,
				    254, 255 };
	struct mr_akh a;
	u32 p0, i;

	(void)state;
	setup_sb(0xfffff0, 7, 7);	/* across the PSN wrap */
	p0 = send_n(256, 0, 0, 0);
	ack_init(&a, p0, 0);
	for (i = 0; i < MR_ARRAY_SIZE(bits); i++)
		sack_set(&a, mr_psn_add(p0, bits[i]));
	a.sack[0] |= 1;		/* bit 0 is cum_psn: never SACKed */
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 10 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_sacked, MR_ARRAY_SIZE(bits));
	assert_int_equal(sb.n_sacked, MR_ARRAY_SIZE(bits));
	assert_null(mr_txsb_get(&sb, p0)->flags & MR_TXE_SACKED ? &sb : NULL);
	for (i = 0; i < MR_ARRAY_SIZE(bits); i++)
		assert_int_equal(mr_txsb_get(&sb, mr_psn_add(p0, bits[i]))->flags
				 & MR_TXE_SACKED, MR_TXE_SACKED);
	assert_int_equal(mr_txsb_get(&sb, mr_psn_add(p0, 3))->flags &
			 MR_TXE_SACKED, 0);
	/* the same map again: nothing new */
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 11 * US, &res), MR_TXSB_OK);
	assert_int_equal(res.newly_sacked, 0);
	/* cum moves by 100: bits now relative to it, old ones ignored */
	ack_init(&a, mr_psn_add(p0, 100), 0);
	sack_set(&a, mr_psn_add(p0, 101));
	sack_set(&a, mr_psn_add(p0, 128));	/* already SACKed */
	sack_set(&a, mr_psn_add(p0, 255));	/* already SACKed */
	sack_set(&a, mr_psn_add(p0, 300));	/* never sent: ignored */
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 12 * US, &res), MR_TXSB_OK);
	/* 1, 2, 63, 64 and 65 were SACKed already */
	assert_int_equal(res.newly_acked, 100 - 5);
	assert_int_equal(res.newly_sacked, 1);
	assert_int_equal(sb.n_sacked, 7);
	/* a stale ACK's bits below una are ignored, those above count */
	ack_init(&a, mr_psn_add(p0, 50), 0);
	sack_set(&a, mr_psn_add(p0, 60));
	sack_set(&a, mr_psn_add(p0, 150));
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 13 * US, &res), MR_TXSB_OK);
	assert_true(res.stale);
	assert_int_equal(res.newly_sacked, 1);
	assert_int_equal(res.newly_acked, 0);
	assert_int_equal(sb.n_sacked, 8);
}

/*
 * RACK's shortcuts (the walk stops at R when R is a first transmission;
 * an ACK that moves nothing skips the walk) never delay a loss: after
 * every ACK and timer no candidate is overdue and the reordering timer is
 * armed no later than the earliest candidate's deadline (MR-LOSS-2).
 * Random sends, losses, reordering, SACKs, retransmissions, RTOs.
 */
static void rack_check(u64 now)
{
	u32 n = mr_txsb_outstanding(&sb), i;
	u64 thresh;

	if (!sb.rack_valid || sb.failed)
		return;
	thresh = sb.rack_rtt_ns + mr_txsb_reo_wnd(&sb);
	for (i = 0; i < n; i++) {
		u32 psn = mr_psn_add(sb.una, i);
		const struct mr_txsb_ent *e = mr_txsb_get(&sb, psn);
		u64 due = e->sent_ns + thresh;

		if (e->flags & (MR_TXE_SACKED | MR_TXE_LOST))
			continue;
		if (!(sb.rack_sent_ns > e->sent_ns ||
		      (sb.rack_sent_ns == e->sent_ns &&
		       mr_psn_diff(sb.rack_psn, psn) > 0)))
			continue;
		assert_true(now <= due);
		assert_true(sb.reo_deadline_ns &&
			    sb.reo_deadline_ns <= due + 1);
	}
}

static void test_rack_shortcuts_random(void **state)
{
	u64 arrive[MR_TXSB_WIN], copy[MR_TXSB_WIN];	/* by una + i */
	u64 rng = 0x5eed, t = 0, last_arr, echo;
	u8 got[MR_TXSB_WIN];	/* receiver: has PSN una + i */
	u32 step, una_rx, psn, i;
	struct mr_akh a;

	(void)state;
	memset(got, 0, sizeof(got));
	setup_sb(0xffff00, 7, 7);
	una_rx = sb.una;
	for (step = 0; step < 200000; step++) {
		u32 op = t_rand_below(&rng, 8);

		t += 1 + t_rand_below(&rng, 40 * US);
		/* half the time an ACK comes before a due timer runs */
		if (mr_txsb_next_deadline(&sb) <= t &&
		    t_rand_below(&rng, 2)) {
			assert_int_equal(mr_txsb_on_timer(&sb, t, &res),
					 MR_TXSB_OK);
			rack_check(t);
		}
		if (op < 3 && !mr_txsb_window_full(&sb) &&
		    mr_txsb_inflight(&sb) < 40) {
			assert_int_equal(mr_txsb_on_send(&sb, step, MR_TXE_FIRST
							 | MR_TXE_LAST, 0, t,
							 &psn), 0);
			i = mr_psn_dist(psn, una_rx);
			/*
			 * 3% lost, others arrive after 0.2..1.2 ms: RTTs
			 * and reo_wnd = srtt / 4 move all the time
			 */
			got[i] = 0;
			copy[i] = t;
			arrive[i] = t_rand_below(&rng, 100) < 3 ? ~0ULL :
				    t + 200 * US + t_rand_below(&rng, 1 * MS);
		} else if (op == 3 && mr_txsb_next_retx(&sb, t, &psn)) {
			assert_int_equal(mr_txsb_on_retx(&sb, psn, 0, t), 0);
			i = mr_psn_dist(psn, una_rx);
			if (!got[i] && t_rand_below(&rng, 100) >= 3) {
				u64 at = t + 200 * US +
					 t_rand_below(&rng, 1 * MS);

				if (at < arrive[i]) {
					arrive[i] = at;
					copy[i] = t;
				}
			}
		} else if (op >= 4) {
			u32 n = mr_txsb_outstanding(&sb), cum;

			/* the receiver's view at t: cum + SACK map, the
			 * echo of the copy that arrived last
			 */
			last_arr = 0;
			echo = t;
			for (i = 0; i < n; i++) {
				if (arrive[i] > t)
					continue;
				got[i] = 1;
				if (arrive[i] >= last_arr) {
					last_arr = arrive[i];
					echo = copy[i];
				}
			}
			for (cum = 0; cum < n && got[cum]; cum++)
				;
			ack_init(&a, mr_psn_add(una_rx, cum), echo);
			for (i = cum + 1; i < n; i++)
				if (got[i])
					sack_set(&a, mr_psn_add(una_rx, i));
			assert_int_equal(mr_txsb_on_ack(&sb, &a, t, &res),
					 MR_TXSB_OK);
			rack_check(t);
			/* slide the receiver's arrays with una */
			if (cum) {
				memmove(got, got + cum, MR_TXSB_WIN - cum);
				memmove(arrive, arrive + cum,
					(MR_TXSB_WIN - cum) * sizeof(*arrive));
				memmove(copy, copy + cum,
					(MR_TXSB_WIN - cum) * sizeof(*copy));
				memset(got + MR_TXSB_WIN - cum, 0, cum);
				una_rx = mr_psn_add(una_rx, cum);
			}
			assert_int_equal(sb.una, una_rx);
		}
	}
	/* the run exercised what it is about */
	assert_true(sb.st.lost_rack > 100);
	assert_true(sb.st.retx > 100);
	assert_true(sb.st.sacked > 1000);
	assert_true(sb.st.spurious > 10);
}

/*
 * Progress the scoreboard cannot see (READ/ATOMIC response data while the
 * request PSN still waits for its ACK) is progress too (MR-RETRY-2): it
 * resets the budget and the backoff (MR-LOSS-9) and restarts the RTO
 * (MR-LOSS-7), so a READ streaming for longer than the budget does not
 * fail its QP.
 */
static void test_progress_outside_acks(void **state)
{
	u64 t;
	u32 psn;
	int i;

	(void)state;
	setup_sb(7, 1, 7);
	send_n(1, 0, 0, 0);		/* a READ_REQ, never acknowledged */
	assert_int_equal(mr_txsb_on_timer(&sb, 10 * MS, &res), MR_TXSB_OK);
	assert_true(res.rto_fired);
	assert_int_equal(sb.rto_expiries, 1);
	assert_int_equal(sb.backoff, 1);
	while (mr_txsb_next_retx(&sb, 10 * MS, &psn))
		mr_txsb_on_retx(&sb, psn, 0, 10 * MS);

	/* Response data keeps coming: no expiry, however long it takes. */
	for (i = 0, t = 10 * MS; i < 100; i++) {
		t += 500 * US;
		mr_txsb_on_progress(&sb, t);
		assert_int_equal(sb.rto_expiries, 0);
		assert_int_equal(sb.backoff, 0);
		assert_int_equal(mr_txsb_next_deadline(&sb),
				 t + mr_txsb_rto(&sb));
		assert_int_equal(mr_txsb_on_timer(&sb, t + 1, &res),
				 MR_TXSB_OK);
		assert_false(res.rto_fired);
	}
	/* Then it stops: the budget (retry_cnt 1) runs out as before. */
	t = mr_txsb_next_deadline(&sb);
	assert_int_equal(mr_txsb_on_timer(&sb, t, &res), MR_TXSB_OK);
	assert_true(res.rto_fired);
	while (mr_txsb_next_retx(&sb, t, &psn))
		mr_txsb_on_retx(&sb, psn, 0, t);
	assert_int_equal(mr_txsb_on_timer(&sb, mr_txsb_next_deadline(&sb),
					  &res), MR_TXSB_RETRY_EXCEEDED);
}

static void nack_init(struct mr_nkh *n, u8 reason, u8 timer, u32 psn)
{
	memset(n, 0, sizeof(*n));
	n->reason = reason;
	n->rnr_timer = timer;
	n->nack_psn = psn;
}

/*
 * After a NACK at *@t that pauses the QP for 1.28 ms (RNR, RESOURCE):
 * nothing is sent or retransmitted and no RTO runs during the pause, a
 * repeat of the NACK is ignored, and when it ends p0+1..p0+3 are
 * declared lost and resent. The NACK of the resent copy will echo its
 * timestamp. Moves *@t past the resend.
 */
static void expect_pause_then_resend(struct mr_akh *a, const struct mr_nkh *n,
				     u64 *t)
{
	u32 psn;

	assert_int_equal(sb.n_lost, 0);
	assert_false(mr_txsb_can_send(&sb, *t + 1279 * US));
	assert_false(mr_txsb_next_retx(&sb, *t + 1279 * US, &psn));
	assert_int_equal(mr_txsb_on_timer(&sb, *t + 1279 * US, &res),
			 MR_TXSB_OK);
	assert_false(res.rto_fired);
	assert_int_equal(mr_txsb_on_nack(&sb, a, n, *t + 1 * US, &res),
			 MR_TXSB_IGNORED);
	*t += 1280 * US;
	assert_int_equal(mr_txsb_on_timer(&sb, *t, &res), MR_TXSB_OK);
	assert_true(mr_txsb_can_send(&sb, *t));
	assert_int_equal(res.newly_lost, 3);
	assert_int_equal(sb.n_lost, 3);
	while (mr_txsb_next_retx(&sb, *t, &psn))
		assert_int_equal(mr_txsb_on_retx(&sb, psn, 0, *t), 0);
	a->ts_echo = mr_txsb_ts(*t);
	*t += 10 * US;
}
static void test_rnr_exhaustion(void **state)
{
	struct mr_akh a;
	struct mr_nkh n;
	u64 t = 10 * US;
	u32 psn, p0;
	int i;

	(void)state;
	setup_sb(50, 7, 2);
	p0 = send_n(4, 0, 0, 0);
	ack_init(&a, p0 + 1, 0);	/* p0 delivered, p0+1 RNR'd */
	nack_init(&n, MR_NACK_RNR, 14, p0 + 1);	/* 1.28 ms */
	for (i = 0; i < 2; i++) {
		assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, t, &res),
				 MR_TXSB_RNR_WAIT);
		assert_int_equal(res.rnr_wait_ns, 1280 * US);
		assert_int_equal(res.nack_psn, p0 + 1);
		/* paused: not even a new message goes */
		assert_int_equal(mr_txsb_on_send(&sb, 9, MR_TXE_FIRST |
						 MR_TXE_LAST, 0, t, &psn),
				 MR_ERR_INVAL);
		assert_int_equal(mr_txsb_next_deadline(&sb), t + 1280 * US);
		expect_pause_then_resend(&a, &n, &t);
	}
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, t, &res),
			 MR_TXSB_RNR_RETRY_EXCEEDED);
	assert_int_equal(sb.st.rnr, 2);
	/* budget exhausted: nothing may be sent any more (MR-RETRY-9) */
	assert_false(mr_txsb_can_send(&sb, t));
	assert_false(mr_txsb_next_retx(&sb, t, &psn));
	assert_true(mr_txsb_next_deadline(&sb) == MR_TIME_NEVER);
	assert_int_equal(mr_txsb_on_retx(&sb, p0 + 1, 0, t), MR_ERR_INVAL);
}

/*
 * MR-REL-34, MR-RETRY-10: NACK RESOURCE pauses the QP for its delay code,
 * then resends from nack_psn; it is no RNR (the RNR budget is untouched)
 * but is charged to the retry budget at most once per T_verbs, so a
 * responder that never finds room fails the QP with RETRY_EXC.
 */
static void test_resource_nack(void **state)
{
	struct mr_txsb_params p;
	struct mr_akh a;
	struct mr_nkh n;
	u64 t = 10 * US;
	u32 p0;
	int i;

	(void)state;
	mr_txsb_default_params(&p);
	p.retry_cnt = 1;
	p.rnr_retry = 0;
	p.verbs_timeout_ns = 1 * MS;
	assert_int_equal(mr_txsb_init(&sb, &p, 50), 0);
	p0 = send_n(4, 0, 0, 0);
	ack_init(&a, p0 + 1, 0);	/* p0 delivered: progress at t */
	nack_init(&n, MR_NACK_RESOURCE, 14, p0 + 1);	/* 1.28 ms */
	for (i = 0; i < 2; i++) {
		assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, t, &res),
				 MR_TXSB_RESOURCE_WAIT);
		assert_int_equal(res.rnr_wait_ns, 1280 * US);
		/* charged once per T_verbs without progress: 0, then 1 */
		assert_int_equal(sb.rto_expiries, (u32)i);
		assert_int_equal(sb.rnr_count, 0);
		assert_int_equal(sb.st.resource, (u64)i + 1);
		/* a repeat of the NACK within is no second charge */
		expect_pause_then_resend(&a, &n, &t);
	}
	/* the third, again a T_verbs later: E = 2 > retry_cnt */
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, t, &res),
			 MR_TXSB_RETRY_EXCEEDED);
	assert_false(mr_txsb_can_send(&sb, t));
	assert_true(mr_txsb_next_deadline(&sb) == MR_TIME_NEVER);
}

static void test_rnr_infinite_and_reset(void **state)
{
	struct mr_akh a;
	struct mr_nkh n;
	u64 t = 10 * US;
	u32 psn, p0;
	int i;

	(void)state;
	setup_sb(0, 7, MR_RNR_RETRY_INFINITE);
	p0 = send_n(1, 0, 0, 0);
	ack_init(&a, p0, 0);
	nack_init(&n, MR_NACK_RNR, 1, p0);
	for (i = 0; i < 100; i++) {
		assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, t, &res),
				 MR_TXSB_RNR_WAIT);
		t += 10 * US;
		assert_int_equal(mr_txsb_on_timer(&sb, t, &res), MR_TXSB_OK);
		assert_true(mr_txsb_next_retx(&sb, t, &psn));
		mr_txsb_on_retx(&sb, psn, 0, t);
		a.ts_echo = mr_txsb_ts(t);
		t += 2 * US;
	}
	assert_int_equal(sb.st.rnr, 100);
	/* delivery of the RNR'd PSN resets the count */
	setup_sb(0, 7, 1);
	p0 = send_n(2, 0, 0, 0);
	ack_init(&a, p0, 0);
	nack_init(&n, MR_NACK_RNR, 1, p0);
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, t, &res),
			 MR_TXSB_RNR_WAIT);
	t += 10 * US;
	mr_txsb_on_timer(&sb, t, &res);
	while (mr_txsb_next_retx(&sb, t, &psn))
		mr_txsb_on_retx(&sb, psn, 0, t);
	ack_init(&a, p0 + 1, t);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, t + 5 * US, &res),
			 MR_TXSB_OK);
	assert_int_equal(sb.rnr_count, 0);
	/* a new RNR for the next message gets a fresh budget */
	nack_init(&n, MR_NACK_RNR, 1, p0 + 1);
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, t + 6 * US, &res),
			 MR_TXSB_RNR_WAIT);
}

/*
 * One refusal of the 8-packet message at @first..@first+7: the responder
 * NACKs every packet (MR-VERBS-19).  Only the first NACK of the pause
 * is a retry (MR-RETRY-5); it returns @first_rc, the others are no-ops.
 */
static void rnr_every_packet(const struct mr_akh *a, u32 first, u64 t,
			     int first_rc)
{
	struct mr_nkh n;
	u32 i;

	for (i = 0; i < 8; i++) {
		nack_init(&n, MR_NACK_RNR, 14, first + i);	/* 1.28 ms */
		assert_int_equal(mr_txsb_on_nack(&sb, a, &n, t + i * US,
						 &res),
				 i ? MR_TXSB_IGNORED : first_rc);
		if (first_rc == MR_TXSB_RNR_RETRY_EXCEEDED)
			return;
		assert_false(sb.failed);
		assert_true(sb.rnr_wait);
	}
}

/* End the pause, resend the @n packets it declared lost; new time. */
static u64 rnr_pause_end(struct mr_akh *a, u32 n)
{
	u64 t = mr_txsb_next_deadline(&sb);
	u32 psn;

	assert_int_equal(mr_txsb_on_timer(&sb, t, &res), MR_TXSB_OK);
	assert_false(sb.rnr_wait);
	assert_int_equal(res.newly_lost, n);
	while (mr_txsb_next_retx(&sb, t, &psn))
		assert_int_equal(mr_txsb_on_retx(&sb, psn, 0, t), 0);
	a->ts_echo = mr_txsb_ts(t);
	return t + 10 * US;
}

/*
 * MR-RETRY-5, MR-RETRY-6: rnr_retry counts pauses, not NACKed packets.
 * A multi-packet SEND refused as a whole brings one NACK per packet;
 * those for PSNs the running pause resends anyway are no retry.  An RNR
 * for an earlier PSN and the first RNR after the pause do count.
 */
static void test_rnr_one_retry_per_pause(void **state)
{
	struct mr_akh a;
	struct mr_nkh n;
	u64 t = 10 * US;
	u32 psn, p0, i;

	(void)state;
	setup_sb(100, 7, 3);
	p0 = send_n(1, 0, 0, 0);	/* message 0 at p0 */
	for (i = 0; i < 8; i++)		/* message 1 at p0+1..p0+8 */
		assert_int_equal(mr_txsb_on_send(&sb, 1,
						 (i ? 0 : MR_TXE_FIRST) |
						 (i < 7 ? 0 : MR_TXE_LAST),
						 0, 0, &psn), 0);
	ack_init(&a, p0, 0);		/* nothing delivered */

	/* pause 1: eight NACKs, one retry; the QP does not fail */
	rnr_every_packet(&a, p0 + 1, t, MR_TXSB_RNR_WAIT);
	assert_int_equal(sb.rnr_count, 1);
	assert_int_equal(sb.st.rnr, 1);
	/* an RNR for an earlier PSN is a new refusal: counted, resent too */
	nack_init(&n, MR_NACK_RNR, 14, p0);
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, t + 20 * US, &res),
			 MR_TXSB_RNR_WAIT);
	assert_int_equal(sb.rnr_count, 2);
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, t + 21 * US, &res),
			 MR_TXSB_IGNORED);
	t = rnr_pause_end(&a, 9);

	/* pause 2, after the resend: its first NACK counts again */
	rnr_every_packet(&a, p0 + 1, t, MR_TXSB_RNR_WAIT);
	assert_int_equal(sb.rnr_count, 3);
	assert_int_equal(sb.st.rnr, 3);
	t = rnr_pause_end(&a, 8);	/* p0 stays in flight */

	/* a fourth refusal exceeds rnr_retry = 3 (MR-RETRY-9) */
	rnr_every_packet(&a, p0 + 1, t, MR_TXSB_RNR_RETRY_EXCEEDED);
	assert_false(mr_txsb_can_send(&sb, t));

	/* rnr_retry 7 (infinite): one retry per pause, never a failure */
	setup_sb(100, 7, MR_RNR_RETRY_INFINITE);
	for (i = 0; i < 8; i++)
		assert_int_equal(mr_txsb_on_send(&sb, 0,
						 (i ? 0 : MR_TXE_FIRST) |
						 (i < 7 ? 0 : MR_TXE_LAST),
						 0, 0, &psn), 0);
	p0 = psn - 7;
	ack_init(&a, p0, 0);
	t = 10 * US;
	for (i = 0; i < 20; i++) {
		rnr_every_packet(&a, p0, t, MR_TXSB_RNR_WAIT);
		t = rnr_pause_end(&a, 8);
	}
	assert_int_equal(sb.st.rnr, 20);
	assert_true(mr_txsb_can_send(&sb, t));
}

static void test_trim_nack(void **state)
{
	struct mr_akh a;
	struct mr_nkh n;
	u32 p0, psn;

	(void)state;
	warm_up();
	p0 = send_n(3, 10, 6, 100 * US);
	ack_init(&a, p0, 100 * US);
	nack_init(&n, MR_NACK_TRIMMED, 0, p0 + 1);
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, 110 * US, &res),
			 MR_TXSB_TRIMMED);
	assert_int_equal(res.nack_psn, p0 + 1);
	assert_int_equal(res.nack_msn, 11);
	assert_int_equal(res.nack_path, 6);
	/* retransmit immediately, no RACK wait */
	assert_true(mr_txsb_next_retx(&sb, 110 * US, &psn));
	assert_int_equal(psn, p0 + 1);
	/* duplicate trimmed NACK before the retransmission: ignored */
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, 111 * US, &res),
			 MR_TXSB_IGNORED);
	assert_int_equal(mr_txsb_on_retx(&sb, psn, 2, 112 * US), 0);
	/* ...and after it: the echo names the old copy, ignored */
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, 113 * US, &res),
			 MR_TXSB_IGNORED);
	assert_int_equal(sb.st.retx, 1);
	/* the retransmitted copy trimmed again: honoured */
	a.ts_echo = mr_txsb_ts(112 * US);
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, 130 * US, &res),
			 MR_TXSB_TRIMMED);
	assert_int_equal(res.nack_path, 2);
	assert_int_equal(sb.st.trims, 2);
}

static void test_other_nacks(void **state)
{
	static const struct {
		u8 reason;
		int st;
	} fatal[] = {
		{ MR_NACK_REMOTE_ACCESS, MR_TXSB_REM_ACCESS_ERR },
		{ MR_NACK_INVALID_REQ, MR_TXSB_REM_INV_REQ },
		{ MR_NACK_REMOTE_OP, MR_TXSB_REM_OP_ERR },
	};
	struct mr_akh a;
	struct mr_nkh n;
	u32 p0, psn, i;

	(void)state;
	setup_sb(0, 7, 7);
	p0 = send_n(3, 40, 0, 0);
	ack_init(&a, p0 + 1, 0);
	nack_init(&n, MR_NACK_SEQ_ERR, 0, p0 + 2);
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, 10 * US, &res),
			 MR_TXSB_SEQ_ERR);
	/* the AKH part was applied, nothing else */
	assert_int_equal(res.newly_acked, 1);
	assert_int_equal(sb.una, p0 + 1);
	assert_int_equal(sb.n_lost, 0);
	assert_int_equal(sb.st.seq_err, 1);
	/* RNR / TRIMMED / SEQ_ERR for a PSN no longer outstanding: void */
	nack_init(&n, MR_NACK_RNR, 1, p0);
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, 11 * US, &res),
			 MR_TXSB_IGNORED);
	assert_false(sb.rnr_wait);
	nack_init(&n, MR_NACK_SEQ_ERR, 0, p0 + 7);
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, 11 * US, &res),
			 MR_TXSB_IGNORED);
	/* a fatal NACK must name the responder's cum_psn */
	nack_init(&n, MR_NACK_REMOTE_ACCESS, 0, p0 + 2);
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, 11 * US, &res),
			 MR_TXSB_IGNORED);
	assert_true(mr_txsb_can_send(&sb, 11 * US));
	/* invalid AKH inside a NACK: error, nothing applied */
	ack_init(&a, p0 + 9, 0);
	nack_init(&n, MR_NACK_TRIMMED, 0, p0 + 2);
	assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, 12 * US, &res),
			 MR_ERR_ACK_RANGE);
	assert_int_equal(sb.n_lost, 0);

	for (i = 0; i < MR_ARRAY_SIZE(fatal); i++) {
		setup_sb(0, 7, 7);
		p0 = send_n(3, 40, 0, 0);
		ack_init(&a, p0 + 1, 0);
		nack_init(&n, fatal[i].reason, 0, p0 + 1);
		assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, 11 * US, &res),
				 fatal[i].st);
		assert_int_equal(res.nack_msn, 41);
		/* the QP is in error: nothing more goes out */
		assert_false(mr_txsb_can_send(&sb, 12 * US));
		assert_int_equal(mr_txsb_on_send(&sb, 50, MR_TXE_FIRST |
						 MR_TXE_LAST, 0, 12 * US,
						 &psn), MR_ERR_INVAL);
		assert_int_equal(mr_txsb_on_nack(&sb, &a, &n, 13 * US, &res),
				 MR_TXSB_FAILED);
	}
}

static void test_verbs_timeout_budget(void **state)
{
	struct mr_txsb_params p;
	u64 t;
	u32 psn;
	int i;

	(void)state;
	/* T_verbs = 30 ms: expiries within 30 ms of each other count once */
	mr_txsb_default_params(&p);
	p.retry_cnt = 0;
	p.verbs_timeout_ns = 30 * MS;
	assert_int_equal(mr_txsb_init(&sb, &p, 0), 0);
	send_n(1, 0, 0, 0);
	assert_int_equal(mr_txsb_on_timer(&sb, 10 * MS, &res), MR_TXSB_OK);
	assert_true(res.rto_fired);
	assert_int_equal(sb.rto_expiries, 0);
	mr_txsb_on_retx(&sb, 0, 0, 10 * MS);
	/* backoff capped at max_rto_eff = T_verbs */
	for (i = 0; i < 3; i++)
		sb.backoff++;
	assert_int_equal(mr_txsb_rto(&sb), 30 * MS);
	sb.backoff = 1;
	t = mr_txsb_next_deadline(&sb);
	assert_int_equal(t, 30 * MS);
	assert_int_equal(mr_txsb_on_timer(&sb, t, &res),
			 MR_TXSB_RETRY_EXCEEDED);

	/* T_verbs below min_rto: the RTO never goes under min_rto */
	mr_txsb_default_params(&p);
	p.verbs_timeout_ns = 3 * MS;
	assert_int_equal(mr_txsb_init(&sb, &p, 0), 0);
	assert_int_equal(mr_txsb_rto(&sb), 5 * MS);
	sb.backoff = 4;
	assert_int_equal(mr_txsb_rto(&sb), 5 * MS);

	/* verbs timeout 0 = infinite: never fails by retries */
	mr_txsb_default_params(&p);
	p.retry_cnt = 0;
	p.verbs_timeout_ns = mr_ib_timeout_ns(0);
	assert_int_equal(mr_txsb_init(&sb, &p, 0), 0);
	send_n(1, 0, 0, 0);
	for (i = 0; i < 40; i++) {
		t = mr_txsb_next_deadline(&sb);
		assert_int_equal(mr_txsb_on_timer(&sb, t, &res), MR_TXSB_OK);
		assert_true(res.rto_fired);
		/* the timer starts again when the retransmission leaves */
		assert_true(mr_txsb_next_deadline(&sb) == MR_TIME_NEVER);
		assert_true(mr_txsb_next_retx(&sb, t + 5 * MS, &psn));
		mr_txsb_on_retx(&sb, psn, 0, t + 5 * MS);
		assert_int_equal(mr_txsb_next_deadline(&sb),
				 t + 5 * MS + mr_txsb_rto(&sb));
	}
	assert_int_equal(mr_txsb_rto(&sb), 1000 * MS);
}

static void test_rtt_sample_validity(void **state)
{
	struct mr_txsb_params p;
	struct mr_akh a;

	(void)state;
	/* a per-QP timestamp offset is applied to MBH.ts and the echo */
	mr_txsb_default_params(&p);
	p.ts_offset = 0xfffffff0;
	assert_int_equal(mr_txsb_init(&sb, &p, 0), 0);
	assert_int_equal(mr_txsb_stamp(&sb, 20 * US), 4);
	send_n(2, 0, 0, 0);
	ack_init(&a, 1, 0);
	a.ts_echo = mr_txsb_stamp(&sb, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 30 * US, &res), MR_TXSB_OK);
	assert_true(res.rtt_valid);
	assert_int_equal(res.rtt_ns, 30 * US);
	/*
	 * An echo older than ack_max_age (1 s) is no recent echo of ours:
	 * dropped, nothing changes (MR-SEC-6).
	 */
	ack_init(&a, 2, 0);
	a.ts_echo = mr_txsb_stamp(&sb, 0);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 1001 * MS, &res),
			 MR_ERR_ACK_AGE);
	assert_int_equal(res.newly_acked, 0);
	assert_int_equal(sb.una, 1);
	assert_int_equal(sb.st.aged_acks, 1);
	ack_init(&a, 2, 0);
	a.ts_echo = mr_txsb_stamp(&sb, 1000 * MS);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 1001 * MS, &res),
			 MR_TXSB_OK);
	assert_int_equal(res.newly_acked, 1);
	/* stale ACKs are flagged so that their credit is ignored */
	ack_init(&a, 1, 0);
	a.ts_echo = mr_txsb_stamp(&sb, 1001 * MS);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, 1002 * MS, &res),
			 MR_TXSB_OK);
	assert_true(res.stale);
}

/*
 * MR-SEC-6: with a per-QP random clock offset, an ACK must echo a
 * timestamp of this QP's clock: a forger who echoes the plain clock (or
 * any value outside the last ack_max_age) completes nothing.
 */
static void test_ack_echo_needs_offset(void **state)
{
	struct mr_txsb_params p;
	struct mr_akh a;
	u64 now = 5000 * MS;

	(void)state;
	mr_txsb_default_params(&p);
	p.ts_offset = 0x9e3779b9;
	assert_int_equal(mr_txsb_init(&sb, &p, 100), 0);
	send_n(4, 0, 0, now - 10 * MS);
	ack_init(&a, 104, 0);
	a.ts_echo = mr_txsb_ts(now - 10 * MS);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, now, &res), MR_ERR_ACK_AGE);
	a.ts_echo = mr_txsb_stamp(&sb, now) + 1;
	assert_int_equal(mr_txsb_on_ack(&sb, &a, now, &res), MR_ERR_ACK_AGE);
	a.ts_echo = mr_txsb_stamp(&sb, now) - 1000001;
	assert_int_equal(mr_txsb_on_ack(&sb, &a, now, &res), MR_ERR_ACK_AGE);
	assert_int_equal(sb.una, 100);
	assert_int_equal(sb.st.aged_acks, 3);
	a.ts_echo = mr_txsb_stamp(&sb, now - 10 * MS);
	assert_int_equal(mr_txsb_on_ack(&sb, &a, now, &res), MR_TXSB_OK);
	assert_int_equal(sb.una, 104);
	assert_int_equal(res.newly_acked, 4);
}

static void test_path_failover(void **state)
{
	u32 psn, n, i;
	u64 mask;

	(void)state;
	setup_sb(0, 7, 7);
	for (i = 0; i < 12; i++)
		assert_int_equal(mr_txsb_on_send(&sb, i, MR_TXE_FIRST |
						 MR_TXE_LAST, i % 3, 0, &psn),
				 0);
	mask = mr_txsb_paths_in_flight(&sb);
	assert_true(mask == 0x7);
	memset(&res, 0, sizeof(res));
	n = mr_txsb_mark_path_lost(&sb, 1, &res);
	assert_int_equal(n, 4);
	assert_int_equal(res.path_lost[1], 4);
	assert_true(mr_txsb_paths_in_flight(&sb) == 0x5);
	assert_int_equal(mr_txsb_inflight(&sb), 8);
	/* retransmissions go out in PSN order */
	for (i = 0; i < 4; i++) {
		assert_true(mr_txsb_next_retx(&sb, 1 * US, &psn));
		assert_int_equal(psn, 1 + 3 * i);
		assert_int_equal(mr_txsb_on_retx(&sb, psn, 2, 1 * US), 0);
	}
	assert_false(mr_txsb_next_retx(&sb, 1 * US, &psn));
	assert_true(mr_txsb_paths_in_flight(&sb) == 0x5);
	/* marking again finds nothing */
	assert_int_equal(mr_txsb_mark_path_lost(&sb, 1, &res), 0);
	/* bad arguments */
	assert_int_equal(mr_txsb_on_retx(&sb, 12, 0, 2 * US), MR_ERR_PSN);
	assert_int_equal(mr_txsb_on_retx(&sb, 0, 64, 2 * US), MR_ERR_INVAL);
	assert_int_equal(mr_txsb_on_send(&sb, 0, 0x80, 0, 0, &psn),
			 MR_ERR_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_and_tables),
		cmocka_unit_test(test_cum_ack_and_done_msn),
		cmocka_unit_test(test_sacked_at_una_advances),
		cmocka_unit_test(test_window_edges),
		cmocka_unit_test(test_wraparound),
		cmocka_unit_test(test_invalid_ack_no_state_change),
		cmocka_unit_test(test_stale_ack_and_unsent_sack_bits),
		cmocka_unit_test(test_rtt_estimator),
		cmocka_unit_test(test_rack_reordering_within_window),
		cmocka_unit_test(test_rack_loss_beyond_window),
		cmocka_unit_test(test_rack_other_path_is_no_evidence),
		cmocka_unit_test(test_path_credit_karn),
		cmocka_unit_test(test_rack_loss_on_ack_and_spurious),
		cmocka_unit_test(test_rack_retx_echo),
		cmocka_unit_test(test_rto_backoff_and_retry_exhaustion),
		cmocka_unit_test(test_spurious_rto_undo),
		cmocka_unit_test(test_genuine_rto_not_undone),
		cmocka_unit_test(test_undo_then_rack),
		cmocka_unit_test(test_sack_words),
		cmocka_unit_test(test_rack_shortcuts_random),
		cmocka_unit_test(test_progress_outside_acks),
		cmocka_unit_test(test_rnr_exhaustion),
		cmocka_unit_test(test_rnr_infinite_and_reset),
		cmocka_unit_test(test_rnr_one_retry_per_pause),
		cmocka_unit_test(test_resource_nack),
		cmocka_unit_test(test_trim_nack),
		cmocka_unit_test(test_other_nacks),
		cmocka_unit_test(test_verbs_timeout_budget),
		cmocka_unit_test(test_rtt_sample_validity),
		cmocka_unit_test(test_ack_echo_needs_offset),
		cmocka_unit_test(test_path_failover),
	};

	return cmocka_run_group_tests_name("txsb", tests, NULL, NULL);
}
