// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests of the send completion rule (reqdone.h): SEND/WRITE and an
 * empty READ complete once cumulatively acknowledged (MR-REL-29); a
 * finished READ/ATOMIC waits for its request PSN to be acknowledged; a
 * WR ahead of one that failed gets an RTO, then WR_FLUSH_ERR, and with
 * no failed WR the scoreboard's failure is RETRY_EXC_ERR (MR-VERBS-22).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "reqdone.h"

#define MS	1000000ULL

static struct mr_txsb sb;

static int setup(void **state)
{
	struct mr_txsb_params p;

	(void)state;
	mr_txsb_default_params(&p);
	assert_int_equal(mr_txsb_init(&sb, &p, 100), 0);
	return 0;
}

static struct mr_done_head head(u8 op, u32 len, u32 first, u32 last)
{
	struct mr_done_head h;

	memset(&h, 0, sizeof(h));
	h.opcode = op;
	h.length = len;
	h.first_psn = first;
	h.last_psn = last;
	h.sent = true;
	return h;
}

static void test_acked(void **state)
{
	struct mr_done_head h = head(MR_OP_WRITE, 3000, 100, 102);
	u64 f = 0;

	(void)state;
	sb.una = 102;
	assert_int_equal(mr_req_head_done(&h, &sb, false, &f, 0),
			 MR_DONE_WAIT);
	sb.una = 103;
	assert_int_equal(mr_req_head_done(&h, &sb, false, &f, 0),
			 MR_DONE_SUCCESS);
	/* not every packet sent yet */
	h.sent = false;
	assert_int_equal(mr_req_head_done(&h, &sb, false, &f, 0),
			 MR_DONE_WAIT);
	/* a READ needs its data, unless it reads nothing */
	h = head(MR_OP_READ_REQ, 4096, 100, 100);
	assert_int_equal(mr_req_head_done(&h, &sb, false, &f, 0),
			 MR_DONE_WAIT);
	h.length = 0;
	assert_int_equal(mr_req_head_done(&h, &sb, false, &f, 0),
			 MR_DONE_SUCCESS);
	assert_int_equal(f, 0);
}

/* A finished READ keeps its WR until its request PSN is acknowledged. */
static void test_finished_read_waits_for_ack(void **state)
{
	struct mr_done_head h = head(MR_OP_READ_REQ, 4096, 101, 101);
	u64 f = 0;

	(void)state;
	h.finished = true;
	h.ok = true;
	sb.una = 101;
	assert_int_equal(mr_req_head_done(&h, &sb, false, &f, 0),
			 MR_DONE_WAIT);
	sb.una = 102;
	assert_int_equal(mr_req_head_done(&h, &sb, false, &f, 0),
			 MR_DONE_OWN);
	/* finished in error: at once */
	sb.una = 101;
	h.ok = false;
	assert_int_equal(mr_req_head_done(&h, &sb, false, &f, 0),
			 MR_DONE_OWN);
}

static void test_scoreboard_failed(void **state)
{
	struct mr_done_head h = head(MR_OP_READ_REQ, 4096, 100, 100);
	u64 f = 0, rto = mr_txsb_rto(&sb);

	(void)state;
	sb.failed = true;
	/* nothing else failed: the scoreboard's own failure */
	assert_int_equal(mr_req_head_done(&h, &sb, false, &f, 50 * MS),
			 MR_DONE_RETRY_EXC);
	assert_int_equal(f, 50 * MS);
	/* a later WR failed: a READ gets one RTO for its data, then flush */
	assert_int_equal(mr_req_head_done(&h, &sb, true, &f, 50 * MS + 1),
			 MR_DONE_WAIT);
	assert_int_equal(mr_req_head_done(&h, &sb, true, &f,
					  50 * MS + rto), MR_DONE_FLUSH);
	/* a SEND that cannot be acknowledged any more: flushed at once */
	h = head(MR_OP_SEND, 10, 100, 100);
	assert_int_equal(mr_req_head_done(&h, &sb, true, &f, 50 * MS + 1),
			 MR_DONE_FLUSH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_acked, setup),
		cmocka_unit_test_setup(test_finished_read_waits_for_ack, setup),
		cmocka_unit_test_setup(test_scoreboard_failed, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
