// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests of the responder engine (receiver.h), through its entry
 * points and what it asks of its caller: the ACKs and NACKs it emits,
 * what it places and delivers, what it counts. The rules: the error
 * point (MR-VERBS-24) and its NACK once cum_psn reaches it, after the
 * READ responses before it; fatal NACK repeats (MR-REL-28); rate limits
 * of NACK SEQ_ERR (MR-REL-10) and of answers to duplicates (MR-SEC-8);
 * trimmed packets (MR-REL-16); RNR; the msn and SSN bounds (MR-REL-25,
 * MR-VERBS-20); receive WQEs in SSN order; a deferred READ or atomic
 * delivered with its own request's path (MR-MP-15).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "receiver.h"

#define PSN0	0x1000
#define US	1000ULL
#define MTU	256
#define VA	0x7f0000000000ULL

/* What the engine asked for, in order. */
struct rec {
	struct mr_pkt out[64];		/* ACKs and NACKs emitted */
	u32 n_out;
	u32 placed[64];			/* PSNs placed */
	u32 n_placed;
	struct mr_rxmsg_info done[64];	/* messages delivered */
	u32 n_done;
	u32 replays;
	bool replay_drops;		/* replay finds no record */
	u32 ev[MR_RCV_EV_MSG_MISMATCH + 1];
	/* scripted answers */
	u8 check_psn_reason;		/* returned by check for check_psn */
	u32 check_psn;
	u8 place_psn_reason;		/* returned by place for place_psn */
	u32 place_psn;
	u8 deliver_reason;		/* returned by deliver for deliver_msn */
	u32 deliver_msn;
	bool reads_queue;		/* deliver queues READ responses */
};

static struct mr_receiver r;
static struct rec t;
static u64 now;

static u8 t_check(void *ctx, const struct mr_pkt *p)
{
	(void)ctx;
	return t.check_psn_reason && p->psn == t.check_psn ?
	       t.check_psn_reason : 0;
}

static u8 t_place(void *ctx, const struct mr_pkt *p)
{
	(void)ctx;
	if (t.place_psn_reason && p->psn == t.place_psn)
		return t.place_psn_reason;
	assert_true(t.n_placed < 64);
	t.placed[t.n_placed++] = p->psn;
	return 0;
}

static u8 t_deliver(void *ctx, const struct mr_rxmsg_info *m)
{
	(void)ctx;
	assert_true(t.n_done < 64);
	t.done[t.n_done++] = *m;
	if (m->opcode == MR_OP_READ_REQ && t.reads_queue)
		assert_int_equal(mr_rdresp_read(&r.rd, m, 0), 0);
	return t.deliver_reason && m->msn == t.deliver_msn ?
	       t.deliver_reason : 0;
}

static bool t_replay(void *ctx, const struct mr_pkt *p)
{
	(void)ctx;
	(void)p;
	t.replays++;
	return !t.replay_drops;
}

static void t_emit(void *ctx, struct mr_pkt *a)
{
	(void)ctx;
	assert_true(t.n_out < 64);
	t.out[t.n_out++] = *a;
}

static void t_count(void *ctx, enum mr_rcv_event ev, const struct mr_pkt *p)
{
	(void)ctx;
	(void)p;
	t.ev[ev]++;
}

static const struct mr_receiver_ops t_ops = {
	.check = t_check,
	.place = t_place,
	.deliver = t_deliver,
	.replay = t_replay,
	.emit = t_emit,
	.count = t_count,
};

static int setup(void **state)
{
	(void)state;
	memset(&t, 0, sizeof(t));
	now = 1000 * US;
	mr_receiver_init(&r, PSN0, now);
	r.ops = &t_ops;
	r.seq_err_interval_ns = 100 * US;
	r.max_dest_rd_atomic = 4;
	r.pmtu = MTU;
	r.rnr_timer = 7;
	return 0;
}

/* Packet @k of a @n-packet message @msn starting at PSN @first. */
static struct mr_pkt pkt(u8 op, u32 first, u32 k, u32 n, u32 msn, u32 ssn)
{
	struct mr_pkt p;

	memset(&p, 0, sizeof(p));
	p.opcode = op;
	p.psn = (first + k) & MR_PSN_MASK;
	p.path = 5;
	p.ts = (u32)(now / US);
	p.flags = (k == 0 ? MR_F_FIRST : 0) | (k + 1 == n ? MR_F_LAST : 0);
	p.dxh.msn = msn;
	p.dxh.msg_len = n * MTU;
	p.dxh.offset = k * MTU;
	p.payload_len = MTU;
	if (mr_op_has(op, MR_OPA_SSN))
		p.dxh.ssn = ssn;
	if (op == MR_OP_WRITE) {
		p.rxh.va = VA;
		p.rxh.rkey = 0x42;
	}
	return p;
}

static struct mr_pkt read_req(u32 psn, u32 msn, u32 len)
{
	struct mr_pkt p;

	memset(&p, 0, sizeof(p));
	p.opcode = MR_OP_READ_REQ;
	p.flags = MR_F_FIRST | MR_F_LAST;
	p.psn = psn;
	p.ts = (u32)(now / US);
	p.dxh.msn = msn;
	p.dxh.msg_len = len;
	p.rxh.va = VA;
	p.rxh.rkey = 0x42;
	return p;
}

static bool rx(const struct mr_pkt *p)
{
	now += US;
	return mr_receiver_on_pkt(&r, p, false, now, NULL);
}

static const struct mr_pkt *last_out(void)
{
	assert_true(t.n_out > 0);
	return &t.out[t.n_out - 1];
}

/*
 * A fatal condition found ahead of a gap is only NACKed once cum_psn
 * reaches it; nothing at or after it is placed or delivered, and the
 * NACK names its PSN (MR-VERBS-24, MR-REL-18).
 */
static void test_error_point_waits_for_gap(void **state)
{
	struct mr_pkt p;

	(void)state;
	t.check_psn_reason = MR_NACK_REMOTE_ACCESS;
	t.check_psn = PSN0 + 1;
	p = pkt(MR_OP_WRITE, PSN0 + 1, 0, 1, 1, 0);
	assert_false(rx(&p));
	assert_int_equal(t.ev[MR_RCV_EV_RKEY], 1);
	for (u32 i = 0; i < t.n_out; i++)
		assert_int_equal(t.out[i].opcode, MR_OP_ACK);
	/* a later packet is past the error point: dropped, not placed */
	p = pkt(MR_OP_WRITE, PSN0 + 2, 0, 1, 2, 0);
	assert_false(rx(&p));
	assert_int_equal(t.ev[MR_RCV_EV_ERR_POINT], 1);
	assert_int_equal(t.n_placed, 0);
	/* the gap fills: message 0 completes, then the NACK, then Error */
	p = pkt(MR_OP_WRITE, PSN0, 0, 1, 0, 0);
	assert_true(rx(&p));
	assert_int_equal(t.n_placed, 1);
	assert_int_equal(t.n_done, 1);
	assert_int_equal(t.done[0].msn, 0);
	assert_int_equal(last_out()->opcode, MR_OP_NACK);
	assert_int_equal(last_out()->nkh.reason, MR_NACK_REMOTE_ACCESS);
	assert_int_equal(last_out()->nkh.nack_psn, PSN0 + 1);
	assert_int_equal(last_out()->akh.cum_psn, PSN0 + 1);
	assert_int_equal(last_out()->akh.msn, 1);
	/* MR-REL-11: the NACK echoes the timestamp of its packet */
	assert_int_equal(last_out()->akh.ts_echo, p.ts);
}

/*
 * A packet whose placement fails is the error point and is recorded
 * nowhere (MR-VERBS-24, MR-REL-6): not marked in the window, not counted
 * by the message tracker, whose cum_psn stays the window's. Nor does it
 * establish its message's record (MR-PLACE-14): the earlier packets are
 * still taken, and the NACK goes out once cum_psn reaches it.
 */
static void test_place_failure_records_nothing(void **state)
{
	struct mr_pkt p;

	(void)state;
	/* in order: NACKed at once, nothing counted */
	t.place_psn_reason = MR_NACK_REMOTE_OP;
	t.place_psn = PSN0;
	p = pkt(MR_OP_SEND, PSN0, 0, 2, 0, 0);
	assert_true(rx(&p));
	assert_int_equal(last_out()->nkh.nack_psn, PSN0);
	assert_int_equal(r.w.cum_psn, PSN0);
	assert_int_equal(mr_rxmsg_cum_psn(&r.m), PSN0);
	assert_false(mr_rxmsg_active(&r.m, 0));

	/*
	 * Ahead of a gap, with the msn of the one-packet SEND before it
	 * but another msg_len (forged): that SEND is taken and completes,
	 * then the NACK names the failed PSN.
	 */
	setup(NULL);
	t.place_psn_reason = MR_NACK_REMOTE_OP;
	t.place_psn = PSN0 + 1;
	p = pkt(MR_OP_SEND, PSN0, 1, 2, 0, 0);
	assert_false(rx(&p));
	assert_int_equal(mr_rxmsg_cum_psn(&r.m), PSN0);
	assert_false(mr_rxmsg_active(&r.m, 0));
	p = pkt(MR_OP_SEND, PSN0, 0, 1, 0, 0);
	assert_true(rx(&p));
	assert_int_equal(t.ev[MR_RCV_EV_MSG_MISMATCH], 0);
	assert_int_equal(t.n_placed, 1);
	assert_int_equal(t.n_done, 1);
	assert_int_equal(last_out()->opcode, MR_OP_NACK);
	assert_int_equal(last_out()->nkh.reason, MR_NACK_REMOTE_OP);
	assert_int_equal(last_out()->nkh.nack_psn, PSN0 + 1);
	assert_int_equal(last_out()->akh.cum_psn, PSN0 + 1);
	assert_int_equal(last_out()->akh.msn, 1);
	assert_int_equal(mr_rxmsg_cum_psn(&r.m), r.w.cum_psn);
}

/*
 * The error point's NACK is repeated to requests at or after it, at the
 * SEQ_ERR rate, for MR_RCV_ERR_REPEAT_NS, never to earlier ones
 * (MR-REL-28).
 */
static void test_error_nack_repeats(void **state)
{
	struct mr_pkt p;
	u32 n;

	(void)state;
	t.check_psn_reason = MR_NACK_INVALID_REQ;
	t.check_psn = PSN0;
	p = pkt(MR_OP_SEND, PSN0, 0, 1, 0, 0);
	assert_true(rx(&p));
	n = t.n_out;
	assert_int_equal(last_out()->nkh.reason, MR_NACK_INVALID_REQ);

	now += 200 * US;
	mr_receiver_on_pkt_in_error(&r, &p, now, NULL);
	assert_int_equal(t.n_out, n + 1);
	assert_int_equal(last_out()->nkh.nack_psn, PSN0);
	/* within the interval: withheld */
	now += 10 * US;
	mr_receiver_on_pkt_in_error(&r, &p, now, NULL);
	assert_int_equal(t.n_out, n + 1);
	/* an earlier PSN gets nothing */
	now += 200 * US;
	p.psn = PSN0 - 1;
	mr_receiver_on_pkt_in_error(&r, &p, now, NULL);
	assert_int_equal(t.n_out, n + 1);
	/* after MR_RCV_ERR_REPEAT_NS: nothing more */
	p.psn = PSN0 + 3;
	now += MR_RCV_ERR_REPEAT_NS;
	mr_receiver_on_pkt_in_error(&r, &p, now, NULL);
	assert_int_equal(t.n_out, n + 1);
}

/* Beyond the window: one NACK SEQ_ERR per interval (MR-REL-10). */
static void test_seq_err_rate(void **state)
{
	struct mr_pkt p = pkt(MR_OP_WRITE, PSN0 + MR_WINDOW + 10, 0, 1, 0, 0);

	(void)state;
	assert_false(rx(&p));
	assert_int_equal(t.n_out, 1);
	assert_int_equal(last_out()->nkh.reason, MR_NACK_SEQ_ERR);
	assert_int_equal(last_out()->nkh.nack_psn, p.psn);
	assert_false(rx(&p));
	assert_int_equal(t.n_out, 1);
	assert_int_equal(t.ev[MR_RCV_EV_RATE_LIMITED], 1);
	assert_int_equal(t.ev[MR_RCV_EV_BEYOND], 2);
	now += 100 * US;
	assert_false(rx(&p));
	assert_int_equal(t.n_out, 2);
	assert_int_equal(t.n_placed, 0);
}

/*
 * Answers to duplicates: MR_RCV_DUP_BURST, then one per interval
 * (MR-SEC-8); a duplicate is never placed twice.
 */
static void test_dup_answers_bounded(void **state)
{
	struct mr_pkt p = pkt(MR_OP_WRITE, PSN0, 0, 1, 0, 0);
	u32 i, acks;

	(void)state;
	p.flags |= MR_F_ACKREQ;
	assert_false(rx(&p));
	acks = t.n_out;
	assert_int_equal(acks, 1);
	for (i = 0; i < 40; i++)
		assert_false(mr_receiver_on_pkt(&r, &p, false, now, NULL));
	assert_int_equal(t.n_out - acks, MR_RCV_DUP_BURST);
	assert_int_equal(t.ev[MR_RCV_EV_DUP], 40);
	assert_int_equal(t.ev[MR_RCV_EV_RATE_LIMITED], 40 - MR_RCV_DUP_BURST);
	assert_int_equal(t.n_placed, 1);
	/* one interval later, one more */
	now += 100 * US;
	acks = t.n_out;
	assert_false(mr_receiver_on_pkt(&r, &p, false, now, NULL));
	assert_false(mr_receiver_on_pkt(&r, &p, false, now, NULL));
	assert_int_equal(t.n_out - acks, 1);
}

/* A trimmed new packet is NACKed TRIMMED; a trimmed duplicate is not. */
static void test_trimmed(void **state)
{
	struct mr_pkt p = pkt(MR_OP_SEND, PSN0, 0, 2, 0, 0);

	(void)state;
	p.flags |= MR_F_TRIM;
	p.payload_len = 0;
	assert_false(rx(&p));
	assert_int_equal(t.n_out, 1);
	assert_int_equal(last_out()->nkh.reason, MR_NACK_TRIMMED);
	assert_int_equal(last_out()->nkh.nack_psn, PSN0);
	assert_int_equal(last_out()->akh.ts_echo, p.ts);
	assert_int_equal(last_out()->path, 5);
	assert_int_equal(t.n_placed, 0);
	/* the full packet arrives, then a late trimmed copy */
	p = pkt(MR_OP_SEND, PSN0, 0, 2, 0, 0);
	assert_false(rx(&p));
	p.flags |= MR_F_TRIM;
	assert_false(rx(&p));
	assert_int_equal(t.ev[MR_RCV_EV_TRIM_DUP], 1);
	assert_int_equal(last_out()->opcode, MR_OP_NACK);
	assert_int_equal(t.n_out, 1);
}

/*
 * MR-TRIM-4, MR-SEC-8: a trimmed packet is unauthenticated, so the NACK
 * TRIMMED it provokes is rate-limited per QP: a burst of 16, then one per
 * seq_err interval; what is withheld is counted and marks nothing.
 */
static void test_trimmed_rate(void **state)
{
	struct mr_pkt p;
	u32 i;

	(void)state;
	for (i = 0; i < MR_RCV_TRIM_BURST + 2; i++) {
		p = pkt(MR_OP_SEND, PSN0, i, 64, 0, 0);
		p.flags |= MR_F_TRIM;
		p.payload_len = 0;
		assert_false(rx(&p));
	}
	assert_int_equal(t.n_out, MR_RCV_TRIM_BURST);
	assert_int_equal(t.ev[MR_RCV_EV_RATE_LIMITED], 2);
	assert_int_equal(last_out()->nkh.reason, MR_NACK_TRIMMED);
	assert_int_equal(last_out()->nkh.nack_psn,
			 PSN0 + MR_RCV_TRIM_BURST - 1);
	assert_int_equal(t.n_placed, 0);
	/* a withheld one stays new: its later trimmed copy is NACKed */
	now += 100 * US;
	p = pkt(MR_OP_SEND, PSN0, MR_RCV_TRIM_BURST, 64, 0, 0);
	p.flags |= MR_F_TRIM;
	p.payload_len = 0;
	assert_false(rx(&p));
	assert_int_equal(t.n_out, MR_RCV_TRIM_BURST + 1);
	assert_int_equal(last_out()->nkh.nack_psn, PSN0 + MR_RCV_TRIM_BURST);
	assert_false(rx(&p));
	assert_int_equal(t.n_out, MR_RCV_TRIM_BURST + 1);
	assert_int_equal(t.ev[MR_RCV_EV_RATE_LIMITED], 3);
	/* duplicates' answers have their own bucket (MR-SEC-8) */
	assert_int_equal(r.dup_tokens, MR_RCV_DUP_BURST);
}

/* RNR: NACKed with the timer, nothing recorded; the retry is new. */
static void test_rnr(void **state)
{
	struct mr_pkt p = pkt(MR_OP_SEND, PSN0, 0, 1, 0, 0);

	(void)state;
	t.check_psn_reason = MR_NACK_RNR;
	t.check_psn = PSN0;
	assert_false(rx(&p));
	assert_int_equal(last_out()->nkh.reason, MR_NACK_RNR);
	assert_int_equal(last_out()->nkh.rnr_timer, 7);
	assert_int_equal(mr_rxwin_classify(&r.w, PSN0), MR_RX_NEW);
	t.check_psn_reason = 0;
	assert_false(rx(&p));
	assert_int_equal(t.n_done, 1);
	assert_int_equal(r.ssn_base, 1);
}

/*
 * MR-PLACE-9, MR-MAL-4, MR-HDR-24: a request not cut at the QP's PMTU
 * is dropped and counted (pmtu), one over the PMTU as malformed; no
 * answer, nothing placed or marked; the genuine packets then pass.
 */
static void test_pmtu_rules(void **state)
{
	struct mr_pkt p = pkt(MR_OP_WRITE, PSN0, 0, 2, 0, 0);
	struct mr_pkt q = pkt(MR_OP_WRITE, PSN0, 1, 2, 0, 0);
	struct mr_pkt bad;

	(void)state;
	/* a non-LAST packet shorter than the PMTU */
	bad = p;
	bad.payload_len = MTU - 1;
	assert_false(rx(&bad));
	/* an offset that is no multiple of the PMTU */
	bad = q;
	bad.dxh.offset = MTU / 2;
	bad.dxh.msg_len = MTU / 2 + MTU;
	assert_false(rx(&bad));
	/* a READ_REQ for a range not starting on a PMTU piece */
	bad = read_req(PSN0, 0, MTU);
	bad.dxh.offset = 8;
	assert_false(rx(&bad));
	assert_int_equal(t.ev[MR_RCV_EV_PMTU], 3);
	/* a payload over the PMTU (MR-MAL-4) */
	bad = q;
	bad.payload_len = MTU + 1;
	bad.dxh.msg_len = MTU + MTU + 1;
	assert_false(rx(&bad));
	assert_int_equal(t.ev[MR_RCV_EV_PAYLOAD], 1);
	assert_int_equal(t.ev[MR_RCV_EV_MALFORMED], 0);
	assert_int_equal(t.n_out, 0);
	assert_int_equal(t.n_placed, 0);
	assert_int_equal(mr_rxwin_classify(&r.w, PSN0), MR_RX_NEW);
	assert_int_equal(mr_rxwin_classify(&r.w, PSN0 + 1), MR_RX_NEW_OOO);
	/* the message as its requester cuts it */
	assert_false(rx(&p));
	assert_false(rx(&q));
	assert_int_equal(t.n_placed, 2);
	assert_int_equal(t.n_done, 1);
	assert_int_equal(t.ev[MR_RCV_EV_PMTU], 3);
}

/*
 * MR-REL-34: a READ_REQ the responder has no room for (its READ
 * response jobs, counting those reserved by READ ranges not yet
 * executed; or its queue of extra READ ranges) is refused with NACK
 * RESOURCE and the delay code, not recorded, not marked; sent again, it
 * is taken once there is room. Such a NACK is not fatal.
 */
static void test_resource_nack(void **state)
{
	struct mr_rxmsg_info j;
	struct mr_pkt p;
	u32 k;

	(void)state;
	/* PSN0 (a SEND) is missing: the READ at PSN0 + 1 cannot execute */
	r.w.ack_reorder = 1;	/* and is acknowledged at once (MR-REL-3 c) */
	memset(&j, 0, sizeof(j));
	j.opcode = MR_OP_READ_REQ;
	j.msn = 77;
	j.va = VA;
	j.extra = 1;
	j.msg_len = MTU;
	for (k = 0; k < MR_RDRESP_JOBS - 1; k++) {
		j.offset = k * MTU;
		assert_int_equal(mr_rdresp_read(&r.rd, &j, 0), 0);
	}
	p = read_req(PSN0 + 1, 1, MTU);
	assert_false(rx(&p));	/* 127 jobs + 0 pending: taken */
	assert_int_equal(t.n_out, 1);
	assert_int_equal(t.out[0].opcode, MR_OP_ACK);
	p = read_req(PSN0 + 2, 1, MTU);
	p.dxh.offset = MTU;
	assert_false(rx(&p));	/* 127 jobs + 1 pending: no room */
	assert_int_equal(last_out()->opcode, MR_OP_NACK);
	assert_int_equal(last_out()->nkh.reason, MR_NACK_RESOURCE);
	assert_int_equal(last_out()->nkh.rnr_timer, MR_RCV_RESOURCE_TIMER);
	assert_int_equal(last_out()->nkh.nack_psn, PSN0 + 2);
	assert_int_equal(mr_rxwin_classify(&r.w, PSN0 + 2), MR_RX_NEW_OOO);
	assert_false(r.err_valid);
	/* the jobs went out: the resent READ_REQ is taken */
	mr_rdresp_clear_jobs(&r.rd);
	k = t.n_out;
	assert_false(rx(&p));
	assert_true(mr_rxwin_received(&r.w, PSN0 + 2));
	/* inside the out-of-order region already reported: coalesced (MR-REL-3) */
	assert_int_equal(t.n_out, k);
	/* extra ranges up to the queue's size, then RESOURCE */
	for (k = 2; k <= MR_RXMSG_RDX; k++) {
		u32 n = t.n_out;

		p = read_req(PSN0 + 1 + k, 1, MTU);
		p.dxh.offset = k * MTU;
		assert_false(rx(&p));
		assert_true(mr_rxwin_received(&r.w, p.psn));
		/* taken: an ACK every ack_every packets, never a NACK */
		if (t.n_out != n)
			assert_int_equal(last_out()->opcode, MR_OP_ACK);
	}
	p = read_req(PSN0 + 2 + MR_RXMSG_RDX, 1, MTU);
	p.dxh.offset = (MR_RXMSG_RDX + 1) * MTU;
	assert_false(rx(&p));
	assert_int_equal(last_out()->nkh.reason, MR_NACK_RESOURCE);
	assert_int_equal(mr_rxwin_classify(&r.w, p.psn), MR_RX_NEW_OOO);
	assert_false(r.err_valid);
	assert_int_equal(t.n_done, 0);
}

/*
 * An msn or SSN further ahead than the PSN gap allows is no message of
 * the peer's: a fatal INVALID_REQ (MR-REL-25, MR-VERBS-20).
 */
static void test_msn_ssn_bounds(void **state)
{
	struct mr_pkt p;

	(void)state;
	p = pkt(MR_OP_SEND, PSN0 + 2, 0, 1, 2, 3);	/* ssn 3 > gap 2 */
	assert_false(rx(&p));
	assert_true(r.err_valid);
	assert_int_equal(r.err_reason, MR_NACK_INVALID_REQ);
	assert_int_equal(r.err_psn, PSN0 + 2);

	setup(NULL);
	p = pkt(MR_OP_WRITE, PSN0 + 2, 0, 1, 3, 0);	/* msn 3 > gap 2 */
	assert_false(rx(&p));
	assert_int_equal(r.err_psn, PSN0 + 2);

	setup(NULL);
	p = pkt(MR_OP_SEND, PSN0 + 2, 0, 1, 2, 2);	/* within: fine */
	assert_false(rx(&p));
	assert_false(r.err_valid);
	assert_int_equal(t.n_placed, 1);
}

/*
 * Receive-consuming messages take receive WQEs in SSN order; a failure
 * at delivery fails at the message's last PSN, after its WQE was used.
 */
static void test_deliver_failure(void **state)
{
	struct mr_pkt p;

	(void)state;
	t.deliver_reason = MR_NACK_INVALID_REQ;
	t.deliver_msn = 1;
	p = pkt(MR_OP_SEND, PSN0, 0, 1, 0, 0);
	assert_false(rx(&p));
	p = pkt(MR_OP_SEND, PSN0 + 1, 1, 2, 1, 1);
	assert_false(rx(&p));
	p = pkt(MR_OP_SEND, PSN0 + 1, 0, 2, 1, 1);
	assert_true(rx(&p));
	assert_int_equal(t.n_done, 2);
	assert_int_equal(r.ssn_base, 2);
	assert_int_equal(last_out()->nkh.reason, MR_NACK_INVALID_REQ);
	assert_int_equal(last_out()->nkh.nack_psn, PSN0 + 2);
}

/*
 * The error point's NACK waits for the READ responses of earlier READs
 * (they were executed and must reach the requester first).
 */
static void test_error_after_read_responses(void **state)
{
	struct mr_pkt p;
	struct mr_rdresp_chunk ch;

	(void)state;
	t.reads_queue = true;
	t.check_psn_reason = MR_NACK_REMOTE_ACCESS;
	t.check_psn = PSN0 + 1;
	p = read_req(PSN0, 0, 4 * MTU);
	assert_false(rx(&p));
	assert_true(mr_rdresp_busy(&r.rd));
	p = pkt(MR_OP_WRITE, PSN0 + 1, 0, 1, 1, 0);
	assert_false(rx(&p));
	assert_true(r.err_due);
	assert_false(mr_receiver_rd_drained(&r, now, NULL));
	while (mr_rdresp_peek(&r.rd, MTU, &ch))
		mr_rdresp_commit(&r.rd, &ch);
	assert_true(mr_receiver_rd_drained(&r, now, NULL));
	assert_int_equal(last_out()->nkh.reason, MR_NACK_REMOTE_ACCESS);
	assert_int_equal(last_out()->nkh.nack_psn, PSN0 + 1);
	assert_false(mr_receiver_rd_drained(&r, now, NULL));
}

/*
 * A READ and an atomic that wait for an earlier WRITE execute when its
 * last packet arrives on another path; the message handed to deliver
 * carries each one's own request path, which its answers echo (MR-MP-15).
 */
static void test_deferred_answer_path(void **state)
{
	struct mr_pkt w0 = pkt(MR_OP_WRITE, PSN0, 0, 2, 0, 0);
	struct mr_pkt w1 = pkt(MR_OP_WRITE, PSN0, 1, 2, 0, 0);
	struct mr_pkt rd = read_req(PSN0 + 2, 1, 100);
	struct mr_pkt at;

	(void)state;
	memset(&at, 0, sizeof(at));
	at.opcode = MR_OP_ATOMIC_FA;
	at.flags = MR_F_FIRST | MR_F_LAST;
	at.psn = PSN0 + 3;
	at.ts = (u32)(now / US);
	at.dxh.msn = 2;
	at.dxh.msg_len = MR_ATOMIC_LEN;
	at.axh.va = VA;
	at.axh.rkey = 0x42;
	w0.path = 9;
	rd.path = 3;
	at.path = 4;
	w1.path = 9;
	rx(&w0);
	rx(&rd);
	rx(&at);
	assert_int_equal(t.n_done, 0);
	rx(&w1);
	assert_int_equal(t.n_done, 3);
	assert_int_equal(t.done[0].opcode, MR_OP_WRITE);
	assert_int_equal(t.done[1].opcode, MR_OP_READ_REQ);
	assert_int_equal(t.done[1].path, 3);
	assert_int_equal(t.done[2].opcode, MR_OP_ATOMIC_FA);
	assert_int_equal(t.done[2].path, 4);
}

/*
 * MR-REL-8: a duplicate of an executed READ is answered from its record,
 * with an ACK; one that no record covers is dropped without any
 * response, not even an ACK.
 */
static void test_dup_read_replay_or_silence(void **state)
{
	struct mr_pkt p = read_req(PSN0, 0, MTU);
	u32 out;

	(void)state;
	p.flags |= MR_F_ACKREQ;
	assert_false(rx(&p));
	assert_int_equal(t.n_done, 1);
	out = t.n_out;
	/* covered: replayed and acknowledged */
	assert_false(rx(&p));
	assert_int_equal(t.replays, 1);
	assert_int_equal(t.n_out, out + 1);
	assert_int_equal(last_out()->opcode, MR_OP_ACK);
	/* not covered: replay drops it, nothing at all goes out */
	t.replay_drops = true;
	out = t.n_out;
	assert_false(rx(&p));
	assert_int_equal(t.replays, 2);
	assert_int_equal(t.n_out, out);
	assert_int_equal(t.n_done, 1);
	assert_int_equal(mr_receiver_ack_deadline(&r), MR_TIME_NEVER);
}

/* Delayed ACK: a deadline, then the ACK from the timer on the path. */
static void test_delayed_ack(void **state)
{
	struct mr_pkt p = pkt(MR_OP_WRITE, PSN0, 0, 2, 0, 0);
	u64 due;

	(void)state;
	assert_int_equal(mr_receiver_ack_deadline(&r), MR_TIME_NEVER);
	assert_false(rx(&p));
	assert_int_equal(t.n_out, 0);
	due = mr_receiver_ack_deadline(&r);
	assert_true(due != MR_TIME_NEVER && due > now);
	mr_receiver_on_timer(&r, due - 1, NULL);
	assert_int_equal(t.n_out, 0);
	mr_receiver_on_timer(&r, due, NULL);
	assert_int_equal(t.n_out, 1);
	assert_int_equal(last_out()->opcode, MR_OP_ACK);
	assert_int_equal(last_out()->akh.cum_psn, PSN0 + 1);
	assert_int_equal(last_out()->path, 5);
	assert_int_equal(mr_receiver_ack_deadline(&r), MR_TIME_NEVER);
}

/*
 * MR-REL-3's batch rule (ack_batch): the ACKs a batch of reordered
 * packets calls for (an overdue hole, its fill, ACKREQ) are held, due at
 * once from the first of them, and the timer's run sends one ACK that
 * answers them all: the final cum_psn, no SACK, the path and timestamp
 * of the first packet that called for it (MR-REL-11). A CE mark is
 * answered at once with its own path (MR-REL-12), and that ACK answers
 * the one held. Packet by packet, the overdue hole is ACKed at once.
 */
static void test_ack_batch(void **state)
{
	struct mr_pkt p[6];
	u64 first;
	int i;

	(void)state;
	for (i = 0; i < 6; i++) {
		p[i] = pkt(MR_OP_WRITE, PSN0, i, 6, 0, 0);
		p[i].path = i;
		p[i].ts = 100 + i;
	}
	p[5].flags |= MR_F_ACKREQ;

	/* Packet by packet: PSN0 is overdue once PSN0 + 3 is in. */
	for (i = 1; i <= 3; i++)
		assert_false(rx(&p[i]));
	assert_int_equal(t.n_out, 1);
	assert_int_equal(last_out()->akh.cum_psn, PSN0);
	assert_true(last_out()->akh.sack[0] != 0);

	/* The same batch again, held. */
	setup(NULL);
	r.ack_batch = true;
	for (i = 1; i <= 3; i++)
		assert_false(rx(&p[i]));
	assert_int_equal(t.n_out, 0);
	assert_int_equal(mr_receiver_ack_deadline(&r), now);
	/* CE: at once, on its own path, answering the held ACK too. */
	now += US;
	assert_false(mr_receiver_on_pkt(&r, &p[4], true, now, NULL));
	assert_int_equal(t.n_out, 1);
	assert_int_equal(last_out()->path, 4);
	assert_true(last_out()->flags & MR_F_ECE);
	assert_int_equal(last_out()->akh.ts_echo, 104);
	assert_int_equal(last_out()->akh.cum_psn, PSN0);
	assert_int_equal(mr_receiver_ack_deadline(&r), MR_TIME_NEVER);

	assert_false(rx(&p[0]));	/* fills the hole (MR-REL-3 d) */
	first = now;
	assert_false(rx(&p[5]));	/* ACKREQ (MR-REL-3 b) */
	assert_int_equal(t.n_out, 1);
	assert_int_equal(mr_receiver_ack_deadline(&r), first);
	mr_receiver_on_timer(&r, now, NULL);
	assert_int_equal(t.n_out, 2);
	assert_int_equal(last_out()->opcode, MR_OP_ACK);
	assert_int_equal(last_out()->akh.cum_psn, PSN0 + 6);
	assert_int_equal(last_out()->akh.sack[0], 0);
	assert_int_equal(last_out()->path, 0);
	assert_int_equal(last_out()->akh.ts_echo, 100);
	assert_false(last_out()->flags & MR_F_ECE);
	assert_int_equal(last_out()->akh.pkt_count, 2);
	assert_int_equal(mr_receiver_ack_deadline(&r), MR_TIME_NEVER);

	/* Coalesced packets hold nothing: the delayed ACK (MR-REL-13). */
	p[0] = pkt(MR_OP_WRITE, PSN0 + 6, 0, 2, 1, 0);
	assert_false(rx(&p[0]));
	assert_false(r.ack_held);
	assert_true(mr_receiver_ack_deadline(&r) > now);
}

/*
 * A held ACK waits at most ack_delay (MR-REL-13): in a long batch the
 * first packet that calls for an ACK after that sends the held one, with
 * its first trigger's path and timestamp.
 */
static void test_ack_batch_bound(void **state)
{
	struct mr_pkt p;
	u32 i;

	(void)state;
	r.ack_batch = true;
	for (i = 0; i < 4; i++) {
		p = pkt(MR_OP_WRITE, PSN0, i, 64, 0, 0);
		p.path = (u8)i;
		p.ts = 200 + i;
		p.flags |= MR_F_ACKREQ;
		assert_false(mr_receiver_on_pkt(&r, &p, false, now, NULL));
		now += r.w.delack_ns / 2;
	}
	/* Held at 0, due at delack_ns: the packet at 2 x delack_ns / 2 sent it. */
	assert_int_equal(t.n_out, 1);
	assert_int_equal(t.out[0].path, 0);
	assert_int_equal(t.out[0].akh.ts_echo, 200);
	assert_int_equal(t.out[0].akh.cum_psn, PSN0 + 3);
	/* The next packet (3) started a new hold. */
	assert_true(r.ack_held);
	assert_int_equal(r.ack_held_path, 3);
}

/*
 * A duplicate past the answer rate (MR-SEC-8) arms no timer: ack_batch
 * holds only the ACKs that would have been sent.
 */
static void test_ack_batch_dup_rate(void **state)
{
	struct mr_pkt p = pkt(MR_OP_WRITE, PSN0, 0, 1, 0, 0);
	u32 out;
	int i;

	(void)state;
	r.ack_batch = true;
	p.flags |= MR_F_ACKREQ;
	assert_false(rx(&p));
	mr_receiver_on_timer(&r, now, NULL);
	for (i = 0; i < MR_RCV_DUP_BURST; i++) {
		assert_false(rx(&p));
		mr_receiver_on_timer(&r, now, NULL);
	}
	out = t.n_out;
	assert_int_equal(out, 1 + MR_RCV_DUP_BURST);
	assert_false(rx(&p));
	assert_false(r.ack_held);
	assert_int_equal(mr_receiver_ack_deadline(&r), MR_TIME_NEVER);
	assert_int_equal(t.n_out, out);
	assert_int_equal(t.ev[MR_RCV_EV_RATE_LIMITED], 1);
}

/*
 * What each request is checked for (MR-VERBS-21): a WRITE's own bytes
 * at RXH.va + offset (MR-PLACE-3), a READ's range to the message end, an
 * atomic's word, the receive WQE of every receive-consuming opcode.
 */
static void test_rcv_need(void **state)
{
	struct mr_rcv_need n;
	struct mr_pkt p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.rxh.rkey = 0x1234;
	p.rxh.va = 0x10000;
	p.axh.rkey = 0x5678;
	p.axh.va = 0x20008;
	p.dxh.offset = 4096;
	p.dxh.msg_len = 10000;
	p.payload_len = 1024;

	p.opcode = MR_OP_WRITE;
	assert_true(mr_rcv_need(&p, &n));
	assert_false(n.recv);
	assert_int_equal(n.right, MR_RIGHT_WRITE);
	assert_int_equal(n.rkey, 0x1234);
	assert_int_equal(n.va, 0x10000 + 4096);
	assert_int_equal(n.len, 1024);
	p.opcode = MR_OP_WRITE_IMM;
	assert_true(mr_rcv_need(&p, &n));
	assert_true(n.recv);
	assert_int_equal(n.right, MR_RIGHT_WRITE);

	p.opcode = MR_OP_READ_REQ;
	assert_true(mr_rcv_need(&p, &n));
	assert_false(n.recv);
	assert_int_equal(n.right, MR_RIGHT_READ);
	assert_int_equal(n.va, 0x10000 + 4096);
	assert_int_equal(n.len, 10000);

	p.opcode = MR_OP_ATOMIC_FA;
	assert_true(mr_rcv_need(&p, &n));
	assert_int_equal(n.right, MR_RIGHT_ATOMIC);
	assert_int_equal(n.rkey, 0x5678);
	assert_int_equal(n.va, 0x20008);
	assert_int_equal(n.len, 8);
	p.opcode = MR_OP_ATOMIC_CS;
	assert_true(mr_rcv_need(&p, &n));
	assert_int_equal(n.right, MR_RIGHT_ATOMIC);

	p.opcode = MR_OP_SEND_INV;
	assert_true(mr_rcv_need(&p, &n));
	assert_true(n.recv);
	assert_int_equal(n.right, MR_RIGHT_NONE);

	p.opcode = MR_OP_READ_RESP;
	assert_false(mr_rcv_need(&p, &n));
	p.opcode = MR_OP_UD_SEND;
	assert_false(mr_rcv_need(&p, &n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_error_point_waits_for_gap, setup),
		cmocka_unit_test_setup(test_place_failure_records_nothing,
				       setup),
		cmocka_unit_test_setup(test_error_nack_repeats, setup),
		cmocka_unit_test_setup(test_seq_err_rate, setup),
		cmocka_unit_test_setup(test_dup_answers_bounded, setup),
		cmocka_unit_test_setup(test_trimmed, setup),
		cmocka_unit_test_setup(test_trimmed_rate, setup),
		cmocka_unit_test_setup(test_rnr, setup),
		cmocka_unit_test_setup(test_pmtu_rules, setup),
		cmocka_unit_test_setup(test_resource_nack, setup),
		cmocka_unit_test_setup(test_msn_ssn_bounds, setup),
		cmocka_unit_test_setup(test_deliver_failure, setup),
		cmocka_unit_test_setup(test_error_after_read_responses, setup),
		cmocka_unit_test_setup(test_deferred_answer_path, setup),
		cmocka_unit_test_setup(test_dup_read_replay_or_silence, setup),
		cmocka_unit_test_setup(test_delayed_ack, setup),
		cmocka_unit_test_setup(test_ack_batch, setup),
		cmocka_unit_test_setup(test_ack_batch_bound, setup),
		cmocka_unit_test_setup(test_ack_batch_dup_rate, setup),
		cmocka_unit_test(test_rcv_need),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
