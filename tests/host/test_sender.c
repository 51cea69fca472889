// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests of the requester control (sender.c): the order in which a
 * scoreboard verdict reaches congestion control and the path table, as
 * the kernel, the model test and coreprof all run it. A stale ACK's
 * credit is ignored (MR-REL-20, MR-CC-14); a spurious RTO is undone
 * before the ACK's own signals (MR-CC-11, MR-LOSS-15); a trimmed NACK is
 * a congestion signal of its path (MR-CC-9); an expiry collapses the
 * window, re-rolls the paths in flight (MR-MP-23) and counts its losses
 * per path; a response acknowledges its request selectively (MR-REL-21);
 * refused feedback changes nothing; a packet asks for an ACK when the
 * windows run low (MR-REL-14).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "sender.h"

#define US	1000ULL
#define MS	1000000ULL
#define PSN0	1000U
#define T0	(5 * MS)

static u32 t_path_rand(void *ctx)
{
	u32 *x = ctx;

	*x = *x * 1103515245U + 12345U;
	return *x;
}

static u32 rng;

static void sender_init(struct mr_sender *s, u8 n_paths)
{
	struct mr_txsb_params tp;
	struct mr_cc_params cp;
	struct mr_path_params pp;

	memset(s, 0, sizeof(*s));
	mr_txsb_default_params(&tp);
	assert_int_equal(mr_txsb_init(&s->sb, &tp, PSN0), 0);
	mr_cc_default_params(&cp);
	assert_int_equal(mr_cc_init(&s->cc, &cp), 0);
	mr_path_default_params(&pp);
	pp.n_paths = n_paths;
	rng = 7;
	assert_int_equal(mr_path_init(&s->pt, &pp, t_path_rand, &rng, T0), 0);
}

/* @n single-packet messages, packet i on path i % paths, at @now. */
static void send_n(struct mr_sender *s, u32 n, u64 now)
{
	u32 i, psn;

	for (i = 0; i < n; i++) {
		u8 path = (u8)(i % s->pt.n);

		assert_int_equal(mr_txsb_on_send(&s->sb, i,
						 MR_TXE_FIRST | MR_TXE_LAST,
						 path, now, &psn), 0);
		assert_int_equal(psn, PSN0 + i);
		mr_sender_on_sent(s, path, now);
	}
}

/* An ACK of everything before @cum, echoing a copy sent at @sent. */
static struct mr_pkt ack_pkt(const struct mr_sender *s, u32 cum, u64 sent,
			     u32 credit)
{
	struct mr_pkt p;

	memset(&p, 0, sizeof(p));
	p.opcode = MR_OP_ACK;
	p.akh.cum_psn = cum;
	p.akh.ts_echo = mr_txsb_stamp(&s->sb, sent);
	p.akh.pkt_count = 1;
	p.akh.credit = credit;
	return p;
}

static void test_sender_stale_ack_credit(void **state)
{
	struct mr_sender s;
	struct mr_txsb_result res;
	struct mr_pkt p;

	(void)state;
	sender_init(&s, 1);
	send_n(&s, 8, T0);
	p = ack_pkt(&s, PSN0 + 4, T0, 20);
	assert_int_equal(mr_sender_on_feedback(&s, &p, T0 + 100 * US, &res),
			 MR_TXSB_OK);
	assert_false(res.stale);
	assert_int_equal(s.cc.credit, 20);
	/* Reordered, older ACK: its grant is not the responder's latest. */
	p = ack_pkt(&s, PSN0 + 2, T0, 3);
	assert_int_equal(mr_sender_on_feedback(&s, &p, T0 + 110 * US, &res),
			 MR_TXSB_OK);
	assert_true(res.stale);
	assert_int_equal(s.cc.credit, 20);
	assert_int_equal(s.sb.una, PSN0 + 4);
}

static void test_sender_refused_changes_nothing(void **state)
{
	struct mr_sender s, before;
	struct mr_txsb_result res;
	struct mr_pkt p;

	(void)state;
	sender_init(&s, 4);
	send_n(&s, 4, T0);
	before = s;
	/* Acknowledges PSNs never sent. */
	p = ack_pkt(&s, PSN0 + 9, T0, 1);
	assert_true(mr_sender_on_feedback(&s, &p, T0 + 100 * US, &res) < 0);
	/* Echoes a timestamp we never sent (MR-SEC-6). */
	p = ack_pkt(&s, PSN0 + 2, T0 + 50 * MS, 1);
	assert_true(mr_sender_on_feedback(&s, &p, T0 + 100 * US, &res) < 0);
	/* Counted by the scoreboard; nothing else moved. */
	assert_int_equal(s.sb.st.bad_acks, before.sb.st.bad_acks + 1);
	assert_int_equal(s.sb.st.aged_acks, before.sb.st.aged_acks + 1);
	before.sb.st = s.sb.st;
	assert_memory_equal(&s, &before, sizeof(s));
}

static void test_sender_trimmed_nack(void **state)
{
	struct mr_sender s;
	struct mr_txsb_result res;
	struct mr_pkt p;
	u64 cuts;

	(void)state;
	sender_init(&s, 4);
	send_n(&s, 8, T0);
	cuts = s.cc.st.cuts_trim;
	p = ack_pkt(&s, PSN0, T0, MR_CC_NO_CREDIT);
	p.opcode = MR_OP_NACK;
	p.nkh.reason = MR_NACK_TRIMMED;
	p.nkh.nack_psn = PSN0 + 1;	/* sent on path 1 */
	assert_int_equal(mr_sender_on_feedback(&s, &p, T0 + 100 * US, &res),
			 MR_TXSB_TRIMMED);
	assert_int_equal(res.nack_path, 1);
	assert_int_equal(s.pt.path[1].trims, 1);
	assert_int_equal(s.pt.path[0].trims, 0);
	assert_int_equal(s.cc.st.cuts_trim, cuts + 1);
	assert_int_equal(s.sb.n_lost, 1);
	assert_int_equal(res.newly_lost, 1);
	assert_int_equal(s.pt.path[1].losses, 1);
}

/* First expiry of the RTO timer after @from. */
static u64 expire(struct mr_sender *s, u64 from, struct mr_txsb_result *res)
{
	u64 t = mr_txsb_next_deadline(&s->sb);

	assert_true(t > from && t != MR_TIME_NEVER);
	assert_int_equal(mr_sender_on_timer(s, t, res), MR_TXSB_OK);
	assert_true(res->rto_fired);
	return t;
}

static void test_sender_rto(void **state)
{
	struct mr_sender s;
	struct mr_txsb_result res;
	u64 rerolls;

	(void)state;
	sender_init(&s, 4);
	send_n(&s, 6, T0);
	rerolls = s.pt.rerolls;
	expire(&s, T0, &res);
	assert_int_equal(res.newly_lost, 6);
	assert_int_equal(s.cc.cwnd, MR_CC_ONE);
	assert_int_equal(s.cc.st.rtos, 1);
	/* Paths 0 and 1 had two packets each, 2 and 3 one. */
	assert_int_equal(s.pt.path[0].losses, 2);
	assert_int_equal(s.pt.path[1].losses, 2);
	assert_int_equal(s.pt.path[2].losses, 1);
	assert_int_equal(s.pt.path[3].losses, 1);
	assert_int_equal(s.pt.rerolls, rerolls + 4);
}

static void test_sender_spurious_rto_undo(void **state)
{
	struct mr_sender s;
	struct mr_txsb_result res;
	struct mr_pkt p;
	u32 cwnd;
	u64 t;

	(void)state;
	sender_init(&s, 1);
	send_n(&s, 6, T0);
	cwnd = s.cc.cwnd;
	t = expire(&s, T0, &res);
	assert_int_equal(s.cc.cwnd, MR_CC_ONE);
	/* The original copies were only late: an ACK echoes one of them. */
	p = ack_pkt(&s, PSN0 + 6, T0, MR_CC_NO_CREDIT);
	assert_int_equal(mr_sender_on_feedback(&s, &p, t + 10 * US, &res),
			 MR_TXSB_OK);
	assert_true(res.rto_undone);
	assert_int_equal(s.cc.st.rto_undos, 1);
	assert_true(s.cc.cwnd >= cwnd);
	assert_int_equal(s.sb.una, PSN0 + 6);
}

static void test_sender_implicit_ack(void **state)
{
	struct mr_sender s;
	struct mr_txsb_result res;

	(void)state;
	sender_init(&s, 1);
	send_n(&s, 4, T0);
	/* Not outstanding: before una, or never sent. */
	assert_false(mr_sender_on_implicit_ack(&s, PSN0 - 1, T0 + MS, &res));
	assert_false(mr_sender_on_implicit_ack(&s, PSN0 + 4, T0 + MS, &res));
	/* A response to PSN0 + 2: SACKed, una stays. */
	assert_true(mr_sender_on_implicit_ack(&s, PSN0 + 2, T0 + MS, &res));
	assert_int_equal(res.newly_sacked, 1);
	assert_int_equal(s.sb.una, PSN0);
	assert_true(mr_txsb_get(&s.sb, PSN0 + 2)->flags & MR_TXE_SACKED);
	assert_false(mr_sender_on_implicit_ack(&s, PSN0 + 2, T0 + MS, &res));
	/* A response to una: cumulative, and the SACKed one follows. */
	assert_true(mr_sender_on_implicit_ack(&s, PSN0, T0 + MS, &res));
	assert_int_equal(s.sb.una, PSN0 + 1);
}

/*
 * MR-REL-14: ACKREQ while the congestion window is below twice the free
 * margin (a responder coalescing up to 8 packets per ACK, MR-REL-3,
 * would leave such a window waiting for ack_delay, and its one or two
 * ACKs per round trip are easily all lost), and on the packet that
 * leaves fewer than 8 packets of the scoreboard window free.
 */
static void test_sender_window_low(void **state)
{
	struct mr_cc_params cp;
	struct mr_sender s;
	u32 psn;

	(void)state;
	sender_init(&s, 4);
	/* init_cwnd 32 packets, nothing out: coalescing is fine. */
	assert_false(mr_sender_window_low(&s));
	send_n(&s, 16, T0);
	assert_false(mr_sender_window_low(&s));

	/* A window of 15 packets: every packet asks. */
	memset(&s.cc, 0, sizeof(s.cc));
	mr_cc_default_params(&cp);
	cp.init_cwnd = MR_CC_PKTS(2 * MR_SENDER_ACKREQ_FREE - 1);
	assert_int_equal(mr_cc_init(&s.cc, &cp), 0);
	assert_true(mr_sender_window_low(&s));
	cp.init_cwnd = MR_CC_PKTS(2 * MR_SENDER_ACKREQ_FREE);
	assert_int_equal(mr_cc_init(&s.cc, &cp), 0);
	assert_false(mr_sender_window_low(&s));

	/* The scoreboard: 247 out, the next leaves 8 free; 248, 7. */
	sender_init(&s, 4);
	send_n(&s, MR_TXSB_WIN - MR_SENDER_ACKREQ_FREE - 1, T0);
	assert_false(mr_sender_window_low(&s));
	assert_int_equal(mr_txsb_on_send(&s.sb, 999, MR_TXE_FIRST | MR_TXE_LAST,
					 0, T0, &psn), 0);
	assert_true(mr_sender_window_low(&s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sender_stale_ack_credit),
		cmocka_unit_test(test_sender_refused_changes_nothing),
		cmocka_unit_test(test_sender_trimmed_nack),
		cmocka_unit_test(test_sender_rto),
		cmocka_unit_test(test_sender_spurious_rto_undo),
		cmocka_unit_test(test_sender_implicit_ack),
		cmocka_unit_test(test_sender_window_low),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
