// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests of the requester engine (requester.h), black-box through its
 * callbacks: the packets it emits for a send queue (opcode, FIRST/LAST,
 * MSN, SSN, PSN, offset, READ ranges), MSN and SSN assignment
 * (MR-VERBS-20), the READ/ATOMIC limit (MR-VERBS-15), fences, local
 * operations in SQ order, a WR whose source buffer fails (nothing after it
 * is sent, MR-VERBS-25; on a retransmission the run reports it),
 * retransmission of a lost packet exactly as it was (MR-PLACE-14) on
 * another path (MR-MP-5), in-order completion
 * (MR-VERBS-22), the retry budget (MR-RETRY-1; a READ's own halts the
 * queue, MR-RETRY-9), READ and atomic responses
 * placed once and acknowledging their request (MR-REL-21) on its path
 * (MR-MP-19), answers matched by PSN and MSN even after their request
 * left the window (MR-REL-26), a stalled READ or atomic re-rolling its request's path and
 * asking again on the path answered last (MR-MP-34), a trimmed READ
 * response matched by MSN and PSN (MR-REL-26) and its piece alone asked
 * for again (MR-REL-16, MR-REL-24), CE marks of responses fed to
 * congestion control (MR-CC-1), a READ's later ranges within the
 * window, credit and pacer (MR-CC-2, MR-CC-12), a
 * fatal NACK failing the WR it names with its status (MR-VERBS-22), and
 * the path health events the device counts (MR-CONF-7): a black-holed
 * path declared DEAD (MR-MP-8), probed (MR-MP-9) and revived by the
 * matching PROBE_REPLY only (MR-MP-11, MR-MP-25). And the cost of a
 * deep send queue: a duplicate ACK behind a slow READ, and completing a
 * queue once a WR failed, take WQE look-ups bounded by max_rd_atomic and
 * linear in the queue.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "requester.h"

#define US		1000ULL
#define MS		(1000 * US)
#define SQ		16
#define MTU		1024
#define PSN0		1000
#define ST_RETRY	12	/* a caller's status code for RETRY_EXC */
#define ST_LOCAL_OK	0
#define ST_BAD_BUF	7

struct sent {
	u8 opcode;
	u16 flags;
	u32 psn, msn, ssn, offset, len, msg_len;
	u8 path;
};

static struct t {
	struct mr_requester r;
	u32 msn_idx[SQ];
	struct mr_swqe sq[SQ];
	u32 head, tail;
	struct sent out[256];
	u32 n_out;
	u32 n_local, n_retx_ev, n_retry_exc, n_dup, n_trim;
	u64 ev[MR_REQ_EV_EXPLORES + 1];	/* @n summed per event */
	struct mr_pkt probes[8];	/* PROBEs the caller sent */
	u32 n_probes;
	bool refuse_probe;	/* the caller may not probe (MR-VER-15) */
	int fail_emit_at;	/* emit number that returns ST_BAD_BUF */
	u8 placed[MR_RDASM_WINDOW * 2];
	u32 n_placed;
	u64 seed;
} T;

static struct mr_swqe *t_wqe(void *ctx, u32 idx)
{
	(void)ctx;
	return &T.sq[idx % SQ];
}

static void t_msg(void *ctx, const struct mr_swqe *w, struct mr_req_msg *m)
{
	(void)ctx;
	(void)w;
	m->va = 0x10000;
	m->rkey = 0x77;
}

static int t_emit(void *ctx, struct mr_swqe *w, struct mr_pkt *p)
{
	struct sent *s = &T.out[T.n_out];

	(void)ctx;
	(void)w;
	if (T.fail_emit_at >= 0 && T.n_out == (u32)T.fail_emit_at) {
		T.fail_emit_at = -1;
		return ST_BAD_BUF;
	}
	assert_true(T.n_out < 256);
	s->opcode = p->opcode;
	s->flags = p->flags;
	s->psn = p->psn;
	s->msn = p->dxh.msn;
	s->ssn = p->dxh.ssn;
	s->offset = p->dxh.offset;
	s->len = p->payload_len;
	s->msg_len = p->dxh.msg_len;
	s->path = p->path;
	T.n_out++;
	return 0;
}

static u8 t_place(void *ctx, struct mr_swqe *w, u32 off, const void *buf,
		  u32 len)
{
	(void)ctx;
	(void)w;
	assert_true(off + len <= sizeof(T.placed));
	memcpy(T.placed + off, buf, len);
	T.n_placed += len;
	return 0;
}

static u8 t_local(void *ctx, struct mr_swqe *w)
{
	(void)ctx;
	(void)w;
	T.n_local++;
	return ST_LOCAL_OK;
}

static bool t_probe(void *ctx, struct mr_pkt *p)
{
	(void)ctx;
	if (T.refuse_probe)
		return false;
	assert_true(T.n_probes < 8);
	T.probes[T.n_probes++] = *p;
	return true;
}

static void t_event(void *ctx, enum mr_req_event ev, u64 n,
		    const struct mr_swqe *w)
{
	(void)ctx;
	(void)w;
	assert_true((u32)ev < MR_ARRAY_SIZE(T.ev));
	T.ev[ev] += n;
	if (ev == MR_REQ_EV_RETX)
		T.n_retx_ev += (u32)n;
	if (ev == MR_REQ_EV_RETRY_EXC)
		T.n_retry_exc++;
	if (ev == MR_REQ_EV_RESP_DUP)
		T.n_dup++;
	if (ev == MR_REQ_EV_TRIMMED)
		T.n_trim++;
}

static const struct mr_requester_ops t_ops = {
	.wqe = t_wqe,
	.msg = t_msg,
	.emit = t_emit,
	.place = t_place,
	.local = t_local,
	.probe = t_probe,
	.event = t_event,
};

static u32 t_rand(void *ctx)
{
	u64 *s = ctx;

	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (u32)(*s >> 33);
}

static int setup_with(bool path_health)
{
	struct mr_requester_params rp = {
		.mtu = MTU,
		.max_rd_atomic = 2,
		.rd_bytes_max = 2 * MR_RDASM_WINDOW,
		.sq_size = SQ,
		.probe_id = 5,
		.path_health = path_health,
	};
	struct mr_txsb_params tp;
	struct mr_cc_params cp;
	struct mr_path_params pp;

	memset(&T, 0, sizeof(T));
	T.fail_emit_at = -1;
	T.seed = 42;
	mr_txsb_default_params(&tp);
	tp.verbs_timeout_ns = 10 * MS;
	tp.retry_cnt = 2;
	/* RACK out of the way: only path health may move a lost packet */
	if (path_health)
		tp.reo_wnd_min_ns = 1000 * MS;
	assert_int_equal(mr_txsb_init(&T.r.snd.sb, &tp, PSN0), 0);
	mr_cc_default_params(&cp);
	cp.mode = MR_CC_FIXED;
	assert_int_equal(mr_cc_init(&T.r.snd.cc, &cp), 0);
	mr_path_default_params(&pp);
	pp.n_paths = 4;
	assert_int_equal(mr_path_init(&T.r.snd.pt, &pp, t_rand, &T.seed, 0),
			 0);
	rp.status[MR_REQ_ST_RETRY_EXC] = ST_RETRY;
	rp.status[MR_REQ_ST_RNR_RETRY_EXC] = ST_RETRY + 1;
	rp.status[MR_REQ_ST_REM_ACCESS] = ST_RETRY + 2;
	rp.status[MR_REQ_ST_REM_INV_REQ] = ST_RETRY + 3;
	rp.status[MR_REQ_ST_REM_OP] = ST_RETRY + 4;
	rp.status[MR_REQ_ST_FLUSH] = ST_RETRY + 5;
	T.r.ops = &t_ops;
	T.r.msn_idx = T.msn_idx;
	mr_requester_start(&T.r, &rp, 0);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return setup_with(false);
}

static int setup_health(void **state)
{
	(void)state;
	return setup_with(true);
}

static void post(u8 op, u32 len, bool fence)
{
	struct mr_swqe *w = &T.sq[T.tail % SQ];

	memset(w, 0, sizeof(*w));
	w->op = op;
	w->length = len;
	w->fence = fence;
	w->state = MR_SWQE_QUEUED;
	T.tail++;
}

static bool run(u64 now)
{
	return mr_requester_run(&T.r, T.head, T.tail, true, now, 64, NULL);
}

/* The caller's timer fired at @now: only its run acts on an RTO. */
static bool run_timer(u64 now)
{
	mr_requester_on_timer(&T.r);
	return run(now);
}

/* An ACK echoing path @path and a stamp of @now, cum_psn @cum. */
static void ack_fill_path(struct mr_pkt *a, u8 path, u32 cum, u64 now)
{
	memset(a, 0, sizeof(*a));
	a->opcode = MR_OP_ACK;
	a->path = path;
	a->akh.cum_psn = cum;
	a->akh.ts_echo = mr_txsb_stamp(&T.r.snd.sb, now);
	a->akh.credit = 64;
}

/* Acknowledge everything sent so far (cum_psn = nxt), echoing @now. */
static void ack_all(u64 now)
{
	struct mr_txsb_result res;
	struct mr_pkt a;

	ack_fill_path(&a, 0, T.r.snd.sb.nxt, now);
	assert_true(mr_sender_on_feedback(&T.r.snd, &a, now, &res) >= 0);
}

/* Retire what may complete; returns how many, checking each verdict. */
static u32 complete(u64 now, enum mr_done want)
{
	u32 n = 0;
	enum mr_done d;

	while (T.head != T.tail) {
		d = mr_requester_head(&T.r, T.head, now, NULL);
		if (d == MR_DONE_WAIT)
			break;
		assert_int_equal(d, want);
		mr_requester_retired(&T.r, &T.sq[T.head % SQ], T.head);
		T.head++;
		n++;
	}
	return n;
}

/* SEND, WRITE, SEND: segmented at the MTU, msn per message, ssn per SEND. */
static void test_segments_and_numbers(void **state)
{
	u32 i;

	(void)state;
	post(MR_OP_SEND, 2500, false);
	post(MR_OP_WRITE, 1024, false);
	post(MR_OP_SEND, 0, false);
	assert_false(run(0));
	assert_int_equal(T.n_out, 5);
	for (i = 0; i < 5; i++)
		assert_int_equal(T.out[i].psn, PSN0 + i);
	/* SEND 2500: three packets, FIRST on the first, LAST on the third */
	assert_int_equal(T.out[0].opcode, MR_OP_SEND);
	assert_true(T.out[0].flags & MR_F_FIRST);
	assert_false(T.out[0].flags & MR_F_LAST);
	assert_int_equal(T.out[1].offset, 1024);
	assert_int_equal(T.out[2].offset, 2048);
	assert_int_equal(T.out[2].len, 452);
	assert_true(T.out[2].flags & MR_F_LAST);
	assert_int_equal(T.out[2].msn, 0);
	assert_int_equal(T.out[2].ssn, 0);
	/* WRITE: msn 1, one packet; the last SEND: msn 2 but ssn 1 */
	assert_int_equal(T.out[3].opcode, MR_OP_WRITE);
	assert_int_equal(T.out[3].msn, 1);
	assert_true((T.out[3].flags & (MR_F_FIRST | MR_F_LAST)) ==
		    (MR_F_FIRST | MR_F_LAST));
	assert_int_equal(T.out[4].msn, 2);
	assert_int_equal(T.out[4].ssn, 1);
	assert_int_equal(T.out[4].len, 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(T.sq[i].state, MR_SWQE_SENT);
	assert_ptr_equal(mr_requester_find(&T.r, T.head, 1, NULL), &T.sq[1]);
	assert_null(mr_requester_find(&T.r, T.head, 3, NULL));
	/* nothing completes before its ACK, then all in order */
	assert_int_equal(complete(0, MR_DONE_SUCCESS), 0);
	ack_all(10 * US);
	assert_int_equal(complete(10 * US, MR_DONE_SUCCESS), 3);
	assert_true(mr_requester_idle(&T.r, T.head));
	assert_int_equal(mr_requester_deadline(&T.r, T.head, T.tail, 10 * US),
			 MR_TIME_NEVER);
}

/* At most max_rd_atomic READ/ATOMIC started; a fence waits for them. */
static void test_rd_atomic_limit_and_fence(void **state)
{
	(void)state;
	post(MR_OP_READ_REQ, 4096, false);
	post(MR_OP_ATOMIC_FA, 8, false);
	post(MR_OP_READ_REQ, 100, false);	/* third: over the limit */
	run(0);
	assert_int_equal(T.n_out, 2);
	assert_int_equal(T.out[0].opcode, MR_OP_READ_REQ);
	assert_int_equal(T.out[1].opcode, MR_OP_ATOMIC_FA);
	assert_int_equal(T.r.rd_atomic_out, 2);
	/* the atomic is answered and retired: the third READ may go */
	T.sq[0].state = MR_SWQE_DONE;
	T.sq[1].state = MR_SWQE_DONE;
	ack_all(5 * US);
	assert_int_equal(complete(5 * US, MR_DONE_OWN), 2);
	assert_int_equal(T.r.rd_atomic_out, 0);
	post(MR_OP_SEND, 10, true);		/* fenced behind the READ */
	run(6 * US);
	assert_int_equal(T.n_out, 3);
	assert_int_equal(T.out[2].opcode, MR_OP_READ_REQ);
	assert_int_equal(T.out[2].msn, 2);
	T.sq[2].state = MR_SWQE_DONE;
	ack_all(7 * US);
	assert_int_equal(complete(7 * US, MR_DONE_OWN), 1);
	run(8 * US);
	assert_int_equal(T.n_out, 4);
	assert_int_equal(T.out[3].opcode, MR_OP_SEND);
	assert_int_equal(T.out[3].msn, 3);
}

/* A local operation runs in SQ order; a bad source buffer halts the SQ. */
static void test_local_and_failed_source(void **state)
{
	(void)state;
	post(MR_OP_SEND, 10, false);
	post(0, 0, false);			/* local: REG_MR, LOCAL_INV */
	post(MR_OP_SEND, 3000, false);		/* its 2nd packet fails */
	post(MR_OP_SEND, 10, false);
	T.fail_emit_at = 2;
	assert_true(run(0));
	assert_int_equal(T.n_local, 1);
	assert_int_equal(T.sq[1].state, MR_SWQE_DONE);
	assert_int_equal(T.sq[1].status, ST_LOCAL_OK);
	assert_int_equal(T.sq[2].state, MR_SWQE_DONE);
	assert_int_equal(T.sq[2].status, ST_BAD_BUF);
	/* nothing after the failed WR went out, and nothing will */
	assert_int_equal(T.n_out, 2);
	run(1 * US);
	assert_int_equal(T.n_out, 2);
	assert_true(T.r.halted);
}

/* A lost packet goes out again as it was, on another path. */
static void test_retransmit_as_sent(void **state)
{
	u64 dl;

	(void)state;
	post(MR_OP_WRITE, 3 * MTU, false);
	run(0);
	assert_int_equal(T.n_out, 3);
	/* the RTO expires: the first unacknowledged packet is resent */
	dl = mr_requester_deadline(&T.r, T.head, T.tail, 0);
	assert_true(dl > 0 && dl != MR_TIME_NEVER);
	/* found by a run the timer did not bring, it waits for the timer */
	run(dl);
	assert_int_equal(T.n_out, 3);
	run_timer(dl);
	assert_true(T.n_out >= 4);
	assert_int_equal(T.out[3].psn, PSN0);
	assert_int_equal(T.out[3].offset, 0);
	assert_int_equal(T.out[3].len, MTU);
	assert_true(T.out[3].flags & MR_F_RETX);
	assert_int_not_equal(T.out[3].path, T.out[0].path);
	assert_true(T.n_retx_ev >= 1);
	/* acknowledged: it completes */
	ack_all(dl);
	assert_int_equal(complete(dl, MR_DONE_SUCCESS), 1);
}

/*
 * MR-LOSS-7: a host stalled past the RTO finds its timer and the ACKs
 * that would have restarted it pending at once. A run that follows a
 * received packet leaves the expired RTO to the timer, whose deadline is
 * still due: a delivering ACK handled meanwhile restarts it, and without
 * one the timer's own run fires it.
 *
 * rto_held_by_ack: three packets out, then 1 us past their RTO an ACK
 * that delivers nothing and its run. Returns that time.
 */
static u64 rto_held_by_ack(void)
{
	struct mr_pkt a;
	u64 t;

	post(MR_OP_WRITE, 3 * MTU, false);
	run(0);
	assert_int_equal(T.n_out, 3);
	t = mr_requester_deadline(&T.r, T.head, T.tail, 0);
	assert_true(t > 0 && t != MR_TIME_NEVER);
	t += US;
	ack_fill_path(&a, 0, PSN0, 0);
	mr_requester_rcv(&T.r, T.head, T.tail, &a, false, t, NULL);
	run(t);
	assert_int_equal(T.r.snd.sb.st.rto, 0);
	assert_int_equal(T.n_out, 3);
	assert_true(mr_requester_deadline(&T.r, T.head, T.tail, t) <= t);
	return t;
}

static void test_rto_waits_for_feedback(void **state)
{
	u64 t;

	(void)state;
	t = rto_held_by_ack();
	/* the timer's run, with nothing more received: the RTO fires */
	run_timer(t + US);
	assert_int_equal(T.r.snd.sb.st.rto, 1);
	assert_true(T.n_out >= 4);
	assert_int_equal(T.out[3].psn, PSN0);
	assert_true(T.out[3].flags & MR_F_RETX);
}

/* ... and when the ACK behind it delivers, no RTO fires at all. */
static void test_rto_restarted_by_queued_ack(void **state)
{
	struct mr_pkt a;
	u64 t;

	(void)state;
	t = rto_held_by_ack();
	ack_fill_path(&a, 1, PSN0 + 1, 0);
	mr_requester_rcv(&T.r, T.head, T.tail, &a, false, t + US, NULL);
	run(t + US);
	run_timer(t + 2 * US);
	assert_int_equal(T.r.snd.sb.st.rto, 0);
	assert_int_equal(T.n_out, 3);
	assert_int_equal(T.r.snd.sb.una, PSN0 + 1);
	/* restarted by the delivery: due an RTO after it */
	assert_true(mr_requester_deadline(&T.r, T.head, T.tail, t + 2 * US) >
		    t + 2 * US);
}

/* A 40-packet WRITE sent at 0, over every path: the packets sent. */
static u32 write_40(void)
{
	post(MR_OP_WRITE, 40 * MTU, false);
	run(0);
	assert_true(T.n_out >= 32);
	return T.n_out;
}

/*
 * MR-LOSS-7 and MR-MP-30: a silence of the whole QP past dead_rtos x
 * RTO_base (a host that did not run) kills no path. The run after the
 * first packet received, an ACK that delivers nothing, leaves both the
 * RTO and MR-MP-8 to the timer; the ACK behind it credits every path,
 * and the timer's run then finds none to declare DEAD and no RTO due.
 */
static void test_silence_kills_no_path(void **state)
{
	struct mr_pkt a;
	u64 t;
	u32 n;

	(void)state;
	n = write_40();
	t = (T.r.snd.pt.p.dead_rtos + 1) * mr_txsb_base_rto(&T.r.snd.sb);
	assert_true(mr_path_dead_deadline(&T.r.snd.pt,
					  mr_txsb_paths_in_flight(&T.r.snd.sb),
					  mr_txsb_base_rto(&T.r.snd.sb)) < t);
	ack_fill_path(&a, 0, PSN0, 0);
	mr_requester_rcv(&T.r, T.head, T.tail, &a, false, t, NULL);
	run(t);
	assert_int_equal(T.r.snd.pt.deaths, 0);
	assert_int_equal(T.ev[MR_REQ_EV_PATH_DEAD], 0);
	assert_int_equal(T.r.snd.sb.st.rto, 0);
	assert_true(mr_requester_deadline(&T.r, T.head, T.tail, t) <= t);
	ack_fill_path(&a, 1, PSN0 + n, 0);
	mr_requester_rcv(&T.r, T.head, T.tail, &a, false, t + US, NULL);
	run(t + US);
	run_timer(t + 2 * US);
	assert_int_equal(T.r.snd.sb.una, PSN0 + n);
	assert_int_equal(T.r.snd.pt.deaths, 0);
	assert_int_equal(T.ev[MR_REQ_EV_PATH_DEAD], 0);
	assert_int_equal(T.r.snd.sb.st.rto, 0);
	assert_int_equal(T.n_out, n);
}

/*
 * A retransmission whose source buffer went bad fails its WR, and the run
 * says so (MR-VERBS-23, MR-VERBS-25): here the WR is the head and still
 * being packetized, so no deadline is left to bring the caller back to
 * complete it.
 */
static void test_failed_retransmit_reported(void **state)
{
	u64 dl;

	(void)state;
	post(MR_OP_WRITE, 100 * MTU, false);
	run(0);
	assert_int_equal(T.n_out, 64);		/* the run's budget */
	assert_false(mr_requester_idle(&T.r, T.head));
	assert_int_equal(T.r.cur, T.head);
	/* the RTO: the retransmission of its first packet fails */
	dl = mr_requester_deadline(&T.r, T.head, T.tail, 0);
	assert_true(dl > 0 && dl != MR_TIME_NEVER);
	T.fail_emit_at = 64;
	assert_true(run(dl));
	assert_int_equal(T.n_out, 64);
	assert_int_equal(T.sq[0].state, MR_SWQE_DONE);
	assert_int_equal(T.sq[0].status, ST_BAD_BUF);
	assert_int_equal(mr_requester_head(&T.r, T.head, dl, NULL),
			 MR_DONE_OWN);
}

/*
 * A READ whose request was delivered but never answered spends its own
 * retry budget: the run that fails it with RETRY_EXC says so, and starts
 * no message after it (MR-RETRY-9, MR-VERBS-25), not even one posted
 * just before.
 */
static void test_read_budget_halts(void **state)
{
	const struct mr_swqe *w = &T.sq[0];
	u64 now = 10 * US, dl;
	int i;

	(void)state;
	post(MR_OP_READ_REQ, 512, false);
	run(0);
	assert_int_equal(T.n_out, 1);
	ack_all(now);
	/* asked again once per RTO, a retry counted per verbs timeout */
	for (i = 0; i < 100 && w->rdq.retries < 2; i++) {
		dl = mr_requester_deadline(&T.r, T.head, T.tail, now);
		assert_true(dl != MR_TIME_NEVER);
		now = MR_MAX(dl, now + 1);
		assert_false(mr_requester_run(&T.r, T.head, T.tail, false,
					      now, 64, NULL));
		ack_all(now);
	}
	assert_int_equal(w->rdq.retries, 2);
	assert_int_equal(w->state, MR_SWQE_SENT);
	/* the next counted stall is over the budget: a SEND waits */
	post(MR_OP_SEND, 10, false);
	dl = mr_requester_deadline(&T.r, T.head, T.tail, now);
	now = MR_MAX(dl, w->rdq.retry_ns + 10 * MS);
	i = (int)T.n_out;
	assert_true(run(now));
	assert_int_equal(T.ev[MR_REQ_EV_RD_STALLED], 1);
	assert_int_equal(w->state, MR_SWQE_DONE);
	assert_int_equal(w->status, ST_RETRY);
	assert_int_equal(T.n_out, i);
	assert_int_equal(T.sq[1].state, MR_SWQE_QUEUED);
	assert_true(T.r.halted);
	assert_int_equal(mr_requester_head(&T.r, T.head, now, NULL),
			 MR_DONE_OWN);
}

/*
 * A READ's request asked again, or an atomic re-sent, that the caller
 * cannot build for good (not a lack of memory) fails its WR with that
 * status, and the run says so (MR-VERBS-23, MR-VERBS-25); a later WR
 * is not started.
 */
static void test_rd_emit_failure(void **state)
{
	static const u8 ops[2] = { MR_OP_READ_REQ, MR_OP_ATOMIC_FA };
	const struct mr_swqe *w = &T.sq[0];
	u64 now, dl;
	bool ret;
	int k, i;

	(void)state;
	for (k = 0; k < 2; k++) {
		setup_with(false);
		now = 10 * US;
		post(ops[k], ops[k] == MR_OP_READ_REQ ? 512 : 8, false);
		run(0);
		assert_int_equal(T.n_out, 1);
		ack_all(now);
		post(MR_OP_SEND, 10, false);
		/* the RTO after delivery asks again (MR-LOSS-14, MR-REL-27) */
		T.fail_emit_at = (int)T.n_out;
		ret = false;
		for (i = 0; i < 100 && w->state != MR_SWQE_DONE; i++) {
			dl = mr_requester_deadline(&T.r, T.head, T.tail, now);
			assert_true(dl != MR_TIME_NEVER);
			now = MR_MAX(dl, now + 1);
			ret = mr_requester_run(&T.r, T.head, T.tail, false,
					       now, 64, NULL);
		}
		assert_int_equal(T.fail_emit_at, -1);
		assert_int_equal(w->state, MR_SWQE_DONE);
		assert_int_equal(w->status, ST_BAD_BUF);
		assert_true(ret);
		assert_true(T.r.halted);
		assert_int_equal(T.n_out, 1);
		assert_int_equal(mr_requester_head(&T.r, T.head, now, NULL),
				 MR_DONE_OWN);
	}
}

/* Never acknowledged: the retry budget fails the WR with RETRY_EXC. */
static void test_retry_budget(void **state)
{
	u64 now = 0, dl;
	int i;

	(void)state;
	post(MR_OP_SEND, 10, false);
	post(MR_OP_SEND, 10, false);
	run(now);
	for (i = 0; i < 100 && !T.n_retry_exc; i++) {
		dl = mr_requester_deadline(&T.r, T.head, T.tail, now);
		assert_true(dl != MR_TIME_NEVER);
		now = dl > now ? dl : now + 1;
		run_timer(now);
	}
	assert_int_equal(T.n_retry_exc, 1);
	assert_int_equal(T.sq[0].state, MR_SWQE_DONE);
	assert_int_equal(T.sq[0].status, ST_RETRY);
	/* the failed WR completes with its status, the next is flushed */
	assert_int_equal(mr_requester_head(&T.r, T.head, now, NULL),
			 MR_DONE_OWN);
	mr_requester_retired(&T.r, &T.sq[0], T.head++);
	assert_int_not_equal(mr_requester_head(&T.r, T.head, now + 10 * MS,
					       NULL), MR_DONE_SUCCESS);
}


/* A response from the responder of message @msn for request @psn. */
static void resp_pkt(struct mr_pkt *p, u8 op, u32 psn, u32 msn, u32 off,
		     const u8 *data, u32 len, u16 flags)
{
	memset(p, 0, sizeof(*p));
	p->opcode = op;
	p->flags = flags;
	p->psn = psn;
	p->dxh.msn = msn;
	p->dxh.offset = off;
	p->payload = data;
	p->payload_len = len;
	if (op == MR_OP_ATOMIC_RESP)
		p->atomic_orig = 0x1122334455667788ULL;
}

/* That response, by a caller that does not see its ECN field. */
static void respond(u8 op, u32 psn, u32 msn, u32 off, const u8 *data,
		    u32 len, u16 flags, u64 now)
{
	struct mr_pkt p;

	resp_pkt(&p, op, psn, msn, off, data, len, flags);
	mr_requester_on_pkt(&T.r, T.head, T.tail, &p, now, NULL);
}

/*
 * READ responses are placed once, at their offset, and complete the READ
 * with its request acknowledged by them (MR-REL-21); an atomic's original
 * value is placed; a duplicate or unknown response is dropped and
 * counted; a trimmed one makes the READ ask again at once (MR-REL-16).
 */
static void test_responses(void **state)
{
	u8 data[3000];
	u32 i, rpsn;

	(void)state;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 7 + 1);
	post(MR_OP_READ_REQ, 3000, false);
	post(MR_OP_ATOMIC_CS, 8, false);
	run(0);
	assert_int_equal(T.n_out, 2);
	rpsn = T.out[0].psn;
	/* the middle piece first, then it again: placed once */
	respond(MR_OP_READ_RESP, rpsn, 0, 1024, data + 1024, 1024, 0, US);
	respond(MR_OP_READ_RESP, rpsn, 0, 1024, data + 1024, 1024, 0, US);
	assert_int_equal(T.n_placed, 1024);
	assert_int_equal(T.n_dup, 1);
	/* a trimmed piece: nothing placed, the READ asks again now */
	respond(MR_OP_READ_RESP, rpsn, 0, 0, NULL, 0, MR_F_TRIM, 2 * US);
	assert_int_equal(T.n_trim, 1);
	assert_true(T.sq[0].rdq.trimmed);
	respond(MR_OP_READ_RESP, rpsn, 0, 0, data, 1024, 0, 3 * US);
	respond(MR_OP_READ_RESP, rpsn, 0, 2048, data + 2048, 952, 0, 3 * US);
	assert_int_equal(T.sq[0].state, MR_SWQE_DONE);
	assert_int_equal(T.sq[0].status, 0);
	assert_memory_equal(T.placed, data, 3000);
	/* a response for a message never started */
	respond(MR_OP_ATOMIC_RESP, T.out[1].psn, 7, 0, NULL, 0, 0, 4 * US);
	assert_int_equal(T.n_dup, 2);
	respond(MR_OP_ATOMIC_RESP, T.out[1].psn, 1, 0, NULL, 0, 0, 4 * US);
	assert_int_equal(T.sq[1].state, MR_SWQE_DONE);
	assert_int_equal(T.placed[0], 0x88);
	/* the responses acknowledged both requests: both complete */
	assert_int_equal(complete(5 * US, MR_DONE_OWN), 2);
	assert_int_equal(T.r.rd_atomic_out, 0);
	assert_int_equal(T.r.rd_bytes_out, 0);
}

/* A READ of @len bytes (@data gets its pattern) and a FETCH_ADD, sent. */
static void read_and_atomic_sent(u8 *data, u32 len)
{
	memset(data, 0x3c, len);
	post(MR_OP_READ_REQ, len, false);
	post(MR_OP_ATOMIC_FA, 8, false);
	run(0);
	assert_int_equal(T.n_out, 2);
}

/*
 * An answer is matched to its request by PSN and MSN (MR-REL-26) for as
 * long as the WR is outstanding, not only while its request PSN is among
 * the last MR_TXSB_WIN sent: a READ and an atomic acknowledged at once
 * and answered only after more than a window of WRITE packets are taken;
 * a response naming a PSN of another message is a duplicate, dropped.
 */
static void test_answer_after_window(void **state)
{
	u8 data[512];
	u32 rpsn, apsn;
	u64 now = US;

	(void)state;
	read_and_atomic_sent(data, sizeof(data));
	rpsn = T.out[0].psn;
	apsn = T.out[1].psn;
	ack_all(now);
	while (mr_psn_diff(T.r.snd.sb.nxt, apsn) <= MR_TXSB_WIN + 8) {
		post(MR_OP_WRITE, 64 * MTU, false);
		while (T.r.cur != T.tail) {
			T.n_out = 0;
			now += US;
			run(now);
			ack_all(now);
		}
	}
	/* the READ's and the atomic's PSNs have left the window */
	respond(MR_OP_READ_RESP, apsn, 0, 0, data, sizeof(data), 0, now);
	assert_int_equal(T.n_dup, 1);
	assert_int_equal(T.n_placed, 0);
	respond(MR_OP_ATOMIC_RESP, rpsn, 1, 0, NULL, 0, 0, now);
	assert_int_equal(T.n_dup, 2);
	assert_int_equal(T.sq[1].state, MR_SWQE_SENT);
	respond(MR_OP_READ_RESP, rpsn, 0, 0, data, sizeof(data), 0, now);
	respond(MR_OP_ATOMIC_RESP, apsn, 1, 0, NULL, 0, 0, now);
	assert_int_equal(T.n_dup, 2);
	assert_int_equal(T.ev[MR_REQ_EV_ACK_BAD], 0);
	assert_int_equal(T.sq[0].state, MR_SWQE_DONE);
	assert_int_equal(T.sq[0].status, 0);
	assert_int_equal(T.sq[1].state, MR_SWQE_DONE);
	assert_int_equal(T.sq[1].status, 0);
	assert_memory_equal(T.placed + 8, data + 8, sizeof(data) - 8);
	assert_int_equal(T.placed[0], 0x88);
	/* the READ and the atomic with their own status, then the WRITEs */
	for (; T.head < 2; T.head++) {
		assert_int_equal(mr_requester_head(&T.r, T.head, now, NULL),
				 MR_DONE_OWN);
		mr_requester_retired(&T.r, &T.sq[T.head], T.head);
	}
	assert_int_equal(complete(now, MR_DONE_SUCCESS), T.tail - 2);
}

/*
 * Delivery shown by a READ_RESP or an ATOMIC_RESP is credited to the
 * path its request was sent on (MR-MP-19), whatever path the response
 * carries: READ traffic, whose requests are often acknowledged by their
 * responses alone, keeps the paths it uses alive (MR-MP-8).
 */
static void test_response_credits_request_path(void **state)
{
	struct mr_path *rp, *ap;
	u8 data[512];
	u64 rd, ad;

	(void)state;
	memset(data, 0x5a, sizeof(data));
	post(MR_OP_READ_REQ, 512, false);
	post(MR_OP_ATOMIC_FA, 8, false);
	run(0);
	assert_int_equal(T.n_out, 2);
	assert_int_not_equal(T.out[0].path, T.out[1].path);
	rp = &T.r.snd.pt.path[T.out[0].path];
	ap = &T.r.snd.pt.path[T.out[1].path];
	assert_true(rp->pending && ap->pending);
	rd = rp->delivered;
	ad = ap->delivered;
	/* no ACK at all: the responses alone */
	respond(MR_OP_READ_RESP, T.out[0].psn, 0, 0, data, 512, 0, 50 * US);
	assert_int_equal(rp->delivered, rd + 1);
	assert_false(rp->pending);
	assert_int_equal(rp->last_delivery_ns, 50 * US);
	assert_true(ap->pending);
	respond(MR_OP_ATOMIC_RESP, T.out[1].psn, 1, 0, NULL, 0, 0, 60 * US);
	assert_int_equal(ap->delivered, ad + 1);
	assert_false(ap->pending);
	assert_int_equal(complete(70 * US, MR_DONE_OWN), 2);
}

/*
 * With more than one path a READ is asked for in ranges of
 * MR_REQ_RD_SPLIT_PKTS packets, one READ_REQ each, as many as the window
 * holds (MR-MP-28): the requests, and so the responses that follow them
 * back (MR-MP-15), spread over the paths; the next range goes out once a
 * whole one fits the window again, and the READ completes whole.
 */
static void test_split_read_spreads(void **state)
{
	const u32 range = MR_REQ_RD_SPLIT_PKTS * MTU;
	const u32 len = MR_RDASM_WINDOW + range + 100;
	static u8 data[MR_RDASM_WINDOW + 2 * MR_REQ_RD_SPLIT_PKTS * MTU];
	u32 i, o, paths = 0, n;

	(void)state;
	for (i = 0; i < len; i++)
		data[i] = (u8)(i * 13 + 5);
	post(MR_OP_READ_REQ, len, false);
	run(0);
	/* as many whole ranges as the window holds, back to back */
	n = MR_RDASM_WINDOW / range;
	assert_true(n >= 4);
	assert_int_equal(T.n_out, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(T.out[i].opcode, MR_OP_READ_REQ);
		assert_int_equal(T.out[i].msn, 0);
		assert_int_equal(T.out[i].offset, i * range);
		assert_int_equal(T.out[i].msg_len, range);
		paths |= 1U << T.out[i].path;
	}
	assert_int_equal(paths, 0xf);
	assert_int_equal(T.r.rd_bytes_out, n * range);
	/* the first range's responses: room for one more whole range */
	for (o = 0; o < range; o += MTU)
		respond(MR_OP_READ_RESP, T.out[0].psn, 0, o, data + o, MTU, 0,
			10 * US);
	assert_int_equal(T.n_out, n);
	run(20 * US);
	assert_int_equal(T.n_out, n + 1);
	assert_int_equal(T.out[n].offset, n * range);
	assert_int_equal(T.out[n].msg_len, range);
	/* each range answered on its own request; then the short rest */
	for (i = 1; i <= n; i++)
		for (o = i * range; o < (i + 1) * range; o += MTU)
			respond(MR_OP_READ_RESP, T.out[i].psn, 0, o, data + o,
				MTU, 0, 30 * US);
	run(40 * US);
	assert_int_equal(T.n_out, n + 2);
	assert_int_equal(T.out[n + 1].offset, (n + 1) * range);
	assert_int_equal(T.out[n + 1].msg_len, 100);
	respond(MR_OP_READ_RESP, T.out[n + 1].psn, 0, (n + 1) * range,
		data + (n + 1) * range, 100, 0, 50 * US);
	assert_int_equal(T.sq[0].state, MR_SWQE_DONE);
	assert_int_equal(T.sq[0].status, 0);
	assert_memory_equal(T.placed, data, len);
	assert_int_equal(complete(60 * US, MR_DONE_OWN), 1);
	assert_int_equal(T.r.rd_bytes_out, 0);
}

/*
 * An empty READ's response places nothing but acknowledges its request
 * (MR-REL-21): the READ completes without waiting for an ACK; a copy of
 * that response is a duplicate.
 */
static void test_empty_read_response(void **state)
{
	(void)state;
	post(MR_OP_READ_REQ, 0, false);
	run(0);
	assert_int_equal(T.n_out, 1);
	assert_int_equal(complete(US, MR_DONE_SUCCESS), 0);
	respond(MR_OP_READ_RESP, T.out[0].psn, 0, 0, NULL, 0,
		MR_F_FIRST | MR_F_LAST, 2 * US);
	assert_int_equal(T.n_dup, 0);
	assert_int_equal(T.n_placed, 0);
	respond(MR_OP_READ_RESP, T.out[0].psn, 0, 0, NULL, 0,
		MR_F_FIRST | MR_F_LAST, 3 * US);
	assert_int_equal(T.n_dup, 1);
	assert_int_equal(complete(3 * US, MR_DONE_SUCCESS), 1);
}

/*
 * RACK for READ responses (MR-LOSS-14): the requester wakes reo_wnd
 * after a response opened a hole, before any RTO, and asks again for the
 * hole alone; a second hole above the first gets its own reo_wnd.
 */
static void test_read_hole_deadline(void **state)
{
	u8 data[8 * MTU] = { 0 };
	u64 t = 10 * US, reo;
	u32 n;

	(void)state;
	post(MR_OP_READ_REQ, sizeof(data), false);
	run(0);
	assert_int_equal(T.n_out, 1);
	respond(MR_OP_READ_RESP, T.out[0].psn, 0, 0, data, MTU, MR_F_FIRST,
		t);
	respond(MR_OP_READ_RESP, T.out[0].psn, 0, 2 * MTU, data, MTU, 0, t);
	run(t);
	reo = mr_txsb_reo_wnd(&T.r.snd.sb);
	assert_true(reo < mr_txsb_rto(&T.r.snd.sb));
	assert_int_equal(mr_requester_deadline(&T.r, T.head, T.tail, t),
			 t + reo);
	n = T.n_out;
	run(t + reo);
	assert_int_equal(T.n_out, n + 1);
	assert_int_equal(T.out[n].opcode, MR_OP_READ_REQ);
	assert_true(T.out[n].flags & MR_F_RETX);
	assert_int_equal(T.out[n].offset, MTU);
	assert_int_equal(T.out[n].msg_len, MTU);
	assert_int_equal(T.r.rd_hole_ns, MR_TIME_NEVER);
	/* the second hole, [3, 5) MTUs, while the first is still missing */
	t += 2 * reo;
	respond(MR_OP_READ_RESP, T.out[0].psn, 0, 5 * MTU, data, MTU, 0, t);
	run(t);
	assert_int_equal(T.n_out, n + 1);
	assert_int_equal(mr_requester_deadline(&T.r, T.head, T.tail, t),
			 t + reo);
	run(t + reo);
	assert_int_equal(T.n_out, n + 2);
	assert_int_equal(T.out[n + 1].offset, 3 * MTU);
	assert_int_equal(T.out[n + 1].msg_len, 2 * MTU);
	assert_true(T.out[n + 1].psn != T.out[n].psn);
}

/* An ACK of everything sent, on path @path at @now. */
static void ack_on_path(u8 path, u64 now)
{
	struct mr_pkt a;

	ack_fill_path(&a, path, T.r.snd.sb.nxt, now);
	mr_requester_on_pkt(&T.r, T.head, T.tail, &a, now, NULL);
}

/*
 * MR-MP-34: a READ and an atomic whose requests were acknowledged (by an
 * ACK on another path) and whose answers never came stall an RTO later.
 * Each re-rolls the path its request used and asks again on the path
 * answered last; the answers complete both.
 */
static void test_stall_moves_path(void **state)
{
	u8 data[512];
	u64 t, t_ack = 40 * US;
	u16 e_read, e_atomic;
	u8 pr, pa, q;

	(void)state;
	read_and_atomic_sent(data, sizeof(data));
	pr = T.out[0].path;
	pa = T.out[1].path;
	assert_int_not_equal(pr, pa);
	for (q = 0; q == pr || q == pa; q++)
		;
	e_read = T.r.snd.pt.path[pr].entropy;
	e_atomic = T.r.snd.pt.path[pa].entropy;
	/* both requests delivered, answered on a third path only */
	ack_on_path(q, t_ack);
	assert_int_equal(T.r.snd.pt.path[q].last_answer_ns, t_ack);
	t = t_ack + mr_txsb_rto(&T.r.snd.sb) / 2;
	run(t);
	assert_int_equal(T.n_out, 2);
	t = t_ack + mr_txsb_rto(&T.r.snd.sb) + US;
	run(t);
	assert_int_equal(T.n_out, 4);
	/* the READ asks again for all of it under a new PSN, on path q */
	assert_int_equal(T.out[2].opcode, MR_OP_READ_REQ);
	assert_int_equal(T.out[2].offset, 0);
	assert_int_equal(T.out[2].msg_len, sizeof(data));
	assert_int_equal(T.out[2].path, q);
	assert_true(T.out[2].flags & MR_F_RETX);
	/* the atomic again under its own PSN, on path q too */
	assert_int_equal(T.out[3].opcode, MR_OP_ATOMIC_FA);
	assert_int_equal(T.out[3].psn, T.out[1].psn);
	assert_int_equal(T.out[3].path, q);
	/* their paths re-rolled: fresh entropy, no answer remembered */
	assert_int_not_equal(T.r.snd.pt.path[pr].entropy, e_read);
	assert_int_not_equal(T.r.snd.pt.path[pa].entropy, e_atomic);
	assert_int_equal(T.r.snd.pt.path[pr].rerolls, 1);
	assert_int_equal(T.r.snd.pt.path[pa].rerolls, 1);
	assert_int_equal(T.r.snd.pt.path[q].rerolls, 0);
	/* counted (MR-CONF-7) when the engine next runs */
	run(t + US);
	assert_int_equal(T.n_out, 4);
	assert_int_equal(T.ev[MR_REQ_EV_REROLLS], 2);
	respond(MR_OP_READ_RESP, T.out[2].psn, 0, 0, data, sizeof(data),
		MR_F_FIRST | MR_F_LAST, t + 10 * US);
	assert_memory_equal(T.placed, data, sizeof(data));
	respond(MR_OP_ATOMIC_RESP, T.out[1].psn, 1, 0, NULL, 0, 0,
		t + 10 * US);
	assert_int_equal(complete(t + 20 * US, MR_DONE_OWN), 2);
}

/* A response as respond() does, with CE in its IP header if @ce. */
static void respond_ce(u8 op, u32 psn, u32 msn, u32 off, const u8 *data,
		       u32 len, bool ce, u64 now)
{
	struct mr_pkt p;

	resp_pkt(&p, op, psn, msn, off, data, len, 0);
	mr_requester_rcv(&T.r, T.head, T.tail, &p, ce, now, NULL);
}

/*
 * An ACK at @now of everything sent granting @credit, echoing the stamp
 * of @sent: an RTT sample of now - sent.
 */
static void ack_credit(u32 credit, u64 sent, u64 now)
{
	struct mr_pkt a;

	ack_fill_path(&a, 0, T.r.snd.sb.nxt, sent);
	a.akh.credit = credit;
	mr_requester_on_pkt(&T.r, T.head, T.tail, &a, now, NULL);
}

/* Congestion control as deployed (DCTCP), not the comparison mode. */
static void cc_dctcp(void)
{
	struct mr_cc_params cp;

	mr_cc_default_params(&cp);
	assert_true(cp.use_ecn);
	assert_int_equal(mr_cc_init(&T.r.snd.cc, &cp), 0);
}

/*
 * MR-CC-1, MR-CC-15: a READ_RESP or ATOMIC_RESP the requester takes is
 * counted by congestion control as one packet an ACK reported, and its
 * CE mark as one that ACK reported: the ECN decrease (MR-CC-5), once per
 * srtt (MR-CC-8), and no growth from it. A duplicate is dropped without
 * any other effect (MR-REL-26); a caller that cannot see ECN feeds
 * nothing.
 */
static void test_resp_ce_feeds_cc(void **state)
{
	struct mr_cc *cc = &T.r.snd.cc;
	u8 data[2 * MTU];
	u32 cwnd, rpsn, pkts;

	(void)state;
	memset(data, 0x42, sizeof(data));
	cc_dctcp();
	/* an RTT sample of 10 us (srtt gates decreases, MR-CC-8) */
	post(MR_OP_SEND, 10, false);
	run(0);
	ack_credit(MR_CC_NO_CREDIT, 0, 10 * US);
	assert_int_equal(complete(10 * US, MR_DONE_SUCCESS), 1);
	post(MR_OP_READ_REQ, sizeof(data), false);
	post(MR_OP_ATOMIC_FA, 8, false);
	run(10 * US);
	/* paced */
	run(mr_requester_deadline(&T.r, T.head, T.tail, 10 * US));
	assert_int_equal(T.n_out, 3);
	rpsn = T.out[1].psn;
	cwnd = cc->cwnd;
	pkts = cc->win_pkts;
	/* unmarked: counted, no signal, the window as it was */
	respond_ce(MR_OP_READ_RESP, rpsn, 1, 0, data, MTU, false, 11 * US);
	assert_int_equal(cc->win_pkts, pkts + 1);
	assert_int_equal(cc->win_ce, 0);
	assert_int_equal(cc->st.cuts_ecn, 0);
	assert_int_equal(cc->cwnd, cwnd);
	/* its copy, marked: a duplicate, no effect */
	respond_ce(MR_OP_READ_RESP, rpsn, 1, 0, data, MTU, true, 12 * US);
	assert_int_equal(T.n_dup, 1);
	assert_int_equal(cc->win_pkts, pkts + 1);
	assert_int_equal(cc->st.cuts_ecn, 0);
	/* marked: the ECN decrease as on an ACK with ce_count 1 */
	respond_ce(MR_OP_READ_RESP, rpsn, 1, MTU, data + MTU, MTU, true,
		   13 * US);
	assert_int_equal(cc->win_pkts, pkts + 2);
	assert_int_equal(cc->win_ce, 1);
	assert_int_equal(cc->st.cuts_ecn, 1);
	assert_true(cc->cwnd < cwnd);
	assert_int_equal(T.sq[1].state, MR_SWQE_DONE);
	/* the ATOMIC_RESP's mark too, at most one decrease per srtt */
	cwnd = cc->cwnd;
	respond_ce(MR_OP_ATOMIC_RESP, T.out[2].psn, 2, 0, NULL, 0, true,
		   14 * US);
	assert_int_equal(T.sq[2].state, MR_SWQE_DONE);
	assert_int_equal(cc->win_ce, 2);
	assert_int_equal(cc->win_pkts, pkts + 3);
	assert_int_equal(cc->cwnd, cwnd);
	assert_int_equal(cc->st.cuts_ecn, 1);
	/* an srtt later, another mark decreases again */
	assert_int_equal(complete(20 * US, MR_DONE_OWN), 2);
	post(MR_OP_ATOMIC_FA, 8, false);
	run(30 * US);
	assert_int_equal(T.n_out, 4);
	respond_ce(MR_OP_ATOMIC_RESP, T.out[3].psn, 3, 0, NULL, 0, true,
		   40 * US);
	assert_int_equal(cc->st.cuts_ecn, 2);
	assert_true(cc->cwnd < cwnd);
	/* no ECN field seen: nothing counted */
	post(MR_OP_READ_REQ, MTU, false);
	run(41 * US);
	assert_int_equal(T.n_out, 5);
	respond(MR_OP_READ_RESP, T.out[4].psn, 4, 0, data, MTU, 0, 42 * US);
	assert_int_equal(T.sq[4 % SQ].state, MR_SWQE_DONE);
	assert_int_equal(cc->win_pkts, pkts + 4);
}


/*
 * A READ's ranges after its first (MR-MP-28) are request packets like
 * any other: within the receiver's credit (MR-CC-2, MR-CC-14; a credit
 * of 0 lets one packet be in flight) and the pacer (MR-CC-12), yet the
 * READ goes on, one range per request delivered.
 */
static void test_read_ranges_in_window(void **state)
{
	const u32 range = MR_REQ_RD_SPLIT_PKTS * MTU;
	static u8 data[4 * MR_REQ_RD_SPLIT_PKTS * MTU];
	u32 i, o;
	u64 t = 10 * US;

	(void)state;
	post(MR_OP_SEND, 10, false);
	run(0);
	ack_credit(0, 0, t);
	assert_int_equal(complete(t, MR_DONE_SUCCESS), 1);
	assert_int_equal(mr_cc_window(&T.r.snd.cc), MR_CC_ONE);
	post(MR_OP_READ_REQ, sizeof(data), false);
	run(t);
	/* one READ_REQ: the first range only, however many paths */
	assert_int_equal(T.n_out, 2);
	assert_int_equal(T.out[1].opcode, MR_OP_READ_REQ);
	assert_int_equal(T.out[1].msg_len, range);
	run(t + US);
	assert_int_equal(T.n_out, 2);
	assert_int_equal(mr_txsb_inflight(&T.r.snd.sb), 1);
	/* each range's responses deliver its request: the next one goes */
	for (i = 0; i < 4; i++) {
		t += 10 * US;
		for (o = i * range; o < (i + 1) * range; o += MTU)
			respond(MR_OP_READ_RESP, T.out[1 + i].psn, 1, o,
				data + o, MTU, 0, t);
		run(t);
		assert_int_equal(T.n_out, 2 + (i < 3 ? i + 1 : i));
		if (i < 3) {
			assert_int_equal(T.out[2 + i].offset,
					 (i + 1) * range);
			assert_int_equal(T.out[2 + i].msg_len, range);
		}
	}
	assert_int_equal(T.sq[1].state, MR_SWQE_DONE);
	assert_int_equal(complete(t, MR_DONE_OWN), 1);
}

/*
 * The pacer spaces a READ's ranges like the packets of WRITEs
 * (MR-CC-12): with an RTT sample and a window of many packets, the
 * first range goes at once, the next when the pacer lets it, and the
 * engine's deadline is then.
 */
static void test_read_ranges_paced(void **state)
{
	u64 t = 100 * US, dl;
	u32 n;

	(void)state;
	cc_dctcp();
	post(MR_OP_SEND, 10, false);
	run(0);
	ack_credit(MR_CC_NO_CREDIT, 0, t);
	assert_int_equal(complete(t, MR_DONE_SUCCESS), 1);
	assert_true(mr_cc_pacing_gap(&T.r.snd.cc) > 0);
	post(MR_OP_READ_REQ, 4 * MR_REQ_RD_SPLIT_PKTS * MTU, false);
	run(t);
	assert_int_equal(T.n_out, 2);
	dl = mr_requester_deadline(&T.r, T.head, T.tail, t);
	assert_int_equal(dl, mr_cc_next_send_ns(&T.r.snd.cc));
	assert_true(dl > t);
	run(dl - 1);
	assert_int_equal(T.n_out, 2);
	for (n = 3; n <= 5; n++) {
		run(dl);
		assert_int_equal(T.n_out, n);
		assert_int_equal(T.out[n - 1].opcode, MR_OP_READ_REQ);
		dl = mr_requester_deadline(&T.r, T.head, T.tail, dl);
	}
	/* all four ranges asked: nothing held, no pacer deadline */
	assert_true(dl > mr_cc_next_send_ns(&T.r.snd.cc));
}

/*
 * A trimmed READ_RESP names its piece by MSN, PSN and offset
 * (MR-REL-26): one naming the PSN of another message, a PSN never sent
 * or an offset outside what the READ asked for is dropped and counted,
 * without asking again or a congestion signal.
 */
static void test_trim_matched_by_psn(void **state)
{
	struct mr_cc *cc = &T.r.snd.cc;

	(void)state;
	cc_dctcp();
	post(MR_OP_READ_REQ, 4 * MTU, false);
	post(MR_OP_WRITE, 10, false);
	run(0);
	assert_int_equal(T.n_out, 2);
	ack_all(US);
	respond(MR_OP_READ_RESP, T.out[1].psn, 0, 0, NULL, 0, MR_F_TRIM,
		2 * US);
	respond(MR_OP_READ_RESP, 0x123456, 0, 0, NULL, 0, MR_F_TRIM,
		2 * US);
	respond(MR_OP_READ_RESP, T.out[0].psn, 0, 4 * MTU, NULL, 0,
		MR_F_TRIM, 2 * US);
	assert_int_equal(T.n_trim, 3);
	assert_int_equal(T.n_dup, 3);
	assert_false(T.sq[0].rdq.trimmed);
	assert_int_equal(cc->st.cuts_trim, 0);
	run(3 * US);
	assert_int_equal(T.n_out, 2);
	/* the READ's own PSN: a trim of a piece it asked for */
	respond(MR_OP_READ_RESP, T.out[0].psn, 0, MTU, NULL, 0, MR_F_TRIM,
		4 * US);
	assert_int_equal(T.n_dup, 3);
	assert_true(T.sq[0].rdq.trimmed);
	assert_int_equal(cc->st.cuts_trim, 1);
}

/*
 * A trimmed READ_RESP makes exactly its piece missing (MR-REL-16,
 * MR-REL-24, MR-LOSS-14): the READ asks again for that piece alone at
 * once, not for the rest of its ranges, which may still be on the way.
 */
static void test_trim_asks_piece(void **state)
{
	static u8 data[2 * MR_REQ_RD_SPLIT_PKTS * MTU];
	u32 o, n, rpsn;

	(void)state;
	for (o = 0; o < sizeof(data); o++)
		data[o] = (u8)(o * 11 + 3);
	post(MR_OP_READ_REQ, sizeof(data), false);
	run(0);
	assert_int_equal(T.n_out, 2);
	for (o = 0; o < 3 * MTU; o += MTU)
		respond(MR_OP_READ_RESP, T.out[0].psn, 0, o, data + o, MTU, 0,
			US);
	/* both requests delivered: a READ asks again once they are */
	ack_all(2 * US);
	respond(MR_OP_READ_RESP, T.out[0].psn, 0, 3 * MTU, NULL, 0, MR_F_TRIM,
		2 * US);
	n = T.n_out;
	run(2 * US);
	assert_int_equal(T.n_out, n + 1);
	assert_int_equal(T.out[n].opcode, MR_OP_READ_REQ);
	assert_true(T.out[n].flags & MR_F_RETX);
	assert_int_equal(T.out[n].msn, 0);
	assert_int_equal(T.out[n].offset, 3 * MTU);
	assert_int_equal(T.out[n].msg_len, MTU);
	run(3 * US);
	assert_int_equal(T.n_out, n + 1);
	/* the rest arrives as first asked, the piece as asked again */
	for (o = 4 * MTU; o < sizeof(data); o += MTU) {
		rpsn = T.out[o < sizeof(data) / 2 ? 0 : 1].psn;
		respond(MR_OP_READ_RESP, rpsn, 0, o, data + o, MTU, 0, 4 * US);
	}
	respond(MR_OP_READ_RESP, T.out[n].psn, 0, 3 * MTU, data + 3 * MTU,
		MTU, 0, 5 * US);
	assert_int_equal(T.sq[0].state, MR_SWQE_DONE);
	assert_int_equal(T.sq[0].status, 0);
	assert_memory_equal(T.placed, data, sizeof(data));
}

/*
 * NACK REMOTE_ACCESS at @psn, everything before it delivered, at @now,
 * echoing the stamp of @sent.
 */
static void nack_remote_access_at(u32 psn, u64 sent, u64 now)
{
	struct mr_pkt n;

	memset(&n, 0, sizeof(n));
	n.opcode = MR_OP_NACK;
	n.nkh.reason = MR_NACK_REMOTE_ACCESS;
	n.nkh.nack_psn = psn;
	n.akh.cum_psn = psn;
	n.akh.ts_echo = mr_txsb_stamp(&T.r.snd.sb, sent);
	mr_requester_on_pkt(&T.r, T.head, T.tail, &n, now, NULL);
}

/* The same at 2 us, echoing 1 us. */
static void nack_remote_access(u32 psn)
{
	nack_remote_access_at(psn, US, 2 * US);
}

/* A fatal NACK fails the WR at its PSN with the status it maps to. */
static void test_fatal_nack(void **state)
{
	(void)state;
	post(MR_OP_SEND, 10, false);
	post(MR_OP_WRITE, 10, false);
	run(0);
	nack_remote_access(PSN0 + 1);
	assert_int_not_equal(T.sq[0].state, MR_SWQE_DONE);
	assert_int_equal(T.sq[1].state, MR_SWQE_DONE);
	assert_int_equal(T.sq[1].status, ST_RETRY + 2);
	/* the SEND before it was acknowledged by the NACK: it succeeds */
	assert_int_equal(mr_requester_head(&T.r, T.head, 2 * US, NULL),
			 MR_DONE_SUCCESS);
	mr_requester_retired(&T.r, &T.sq[0], T.head++);
	assert_int_equal(mr_requester_head(&T.r, T.head, 2 * US, NULL),
			 MR_DONE_OWN);
}

/*
 * The completion statuses in the caller's codes: success, then the fatal
 * NACK's status (MR-VERBS-22); in Error every WR's own error or flushed
 * (MR-VERBS-25).
 */
static void test_complete_status(void **state)
{
	u8 st = 0xEE;

	(void)state;
	post(MR_OP_SEND, 10, false);
	post(MR_OP_WRITE, 10, false);
	post(MR_OP_SEND, 10, false);
	post(MR_OP_SEND, 10, false);
	run(0);
	assert_false(mr_requester_complete(&T.r, T.head, US, NULL, &st));
	nack_remote_access(PSN0 + 1);
	assert_true(mr_requester_complete(&T.r, T.head, 2 * US, NULL, &st));
	assert_int_equal(st, 0);
	mr_requester_retired(&T.r, &T.sq[0], T.head++);
	assert_true(mr_requester_complete(&T.r, T.head, 2 * US, NULL, &st));
	assert_int_equal(st, ST_RETRY + 2);
	/*
	 * the caller enters Error on that status: the failed WR keeps it,
	 * the WRs after it are flushed
	 */
	assert_int_equal(mr_swqe_flushed(&T.sq[1], 99), ST_RETRY + 2);
	assert_int_equal(mr_swqe_flushed(&T.sq[2], 99), 99);
}

/* An ACK on path @path: nothing past una, SACKs bit @bit (PSN una + bit). */
static void sack_one(u8 path, u32 bit, u64 now)
{
	struct mr_pkt a;

	ack_fill_path(&a, path, T.r.snd.sb.una, now);
	a.akh.pkt_count = 1;
	a.akh.sack[bit / 64] |= 1ULL << (bit % 64);
	mr_requester_on_pkt(&T.r, T.head, T.tail, &a, now, NULL);
}

static void probe_reply(const struct mr_pkt *probe, u32 psn, u64 now)
{
	struct mr_pkt p;

	memset(&p, 0, sizeof(p));
	p.opcode = MR_OP_PROBE_REPLY;
	p.path = probe->path;
	p.psn = psn;
	p.ts = probe->ts;
	mr_requester_on_pkt(&T.r, T.head, T.tail, &p, now, NULL);
}

/*
 * The path health events the device counts (path_deaths, path_probes,
 * path_probe_replies, path_revivals; MR-CONF-7), through the engine:
 * path X black-holes while the other paths deliver (SACKs, so the RTO
 * never fires); once dead_rtos * RTO_base passed since X's first
 * undelivered packet with packets in flight on it, the next run declares
 * it DEAD (MR-MP-8, reported once), resends its packets on other paths
 * (MR-MP-5: FAILOVER, then each one a retransmission as before) and
 * PROBEs it at once (MR-MP-9). A PROBE the caller could not send is not
 * counted. A PROBE_REPLY of another identifier is a duplicate
 * (MR-MP-25); the matching one revives X (MR-MP-11), once.
 */
static void test_path_death_probe_revival(void **state)
{
	u64 t, limit, rto, x_inflight = 0;
	u32 i, bit = 1, n_first;
	u8 x;

	(void)state;
	n_first = write_40();
	x = T.out[0].path;	/* una's path: nothing is acknowledged */
	for (i = 0; i < n_first; i++)
		x_inflight += T.out[i].path == x;
	assert_true(x_inflight >= T.r.snd.pt.p.dead_min_pkts);
	/* the other paths deliver a packet every millisecond */
	for (t = MS; T.ev[MR_REQ_EV_PATH_DEAD] == 0; t += MS) {
		while (bit < n_first && T.out[bit].path == x)
			bit++;
		assert_true(bit < n_first);
		sack_one(T.out[bit].path, bit, t);
		bit++;
		rto = mr_txsb_base_rto(&T.r.snd.sb);
		limit = T.r.snd.pt.p.dead_rtos * rto;
		run(t);
		/* The run of a packet leaves the death to the timer's. */
		assert_int_equal(T.ev[MR_REQ_EV_PATH_DEAD], 0);
		if (mr_requester_deadline(&T.r, T.head, T.tail, t) <= t)
			run_timer(t);
		if (t <= limit) {
			/* MR-MP-8: not before dead_rtos * RTO_base */
			assert_int_equal(T.ev[MR_REQ_EV_PATH_DEAD], 0);
			assert_int_equal(T.r.snd.pt.path[x].state,
					 MR_PATH_ACTIVE);
			/* ... whose deadline the timer is armed at */
			assert_true(mr_requester_deadline(&T.r, T.head, T.tail,
							  t) <= limit + 1);
		} else {
			/* ... and at the timer's run the deadline brings */
			assert_int_equal(T.ev[MR_REQ_EV_PATH_DEAD], 1);
		}
	}
	assert_int_equal(T.ev[MR_REQ_EV_RTO], 0);
	assert_int_equal(T.r.snd.pt.path[x].state, MR_PATH_DEAD);
	assert_int_equal(T.r.snd.pt.deaths, 1);
	/* X's packets go out again elsewhere, counted as retransmissions */
	assert_int_equal(T.ev[MR_REQ_EV_FAILOVER], x_inflight);
	assert_int_equal(T.ev[MR_REQ_EV_RETX], x_inflight);
	for (i = n_first; i < T.n_out; i++) {
		assert_true(T.out[i].flags & MR_F_RETX);
		assert_int_not_equal(T.out[i].path, x);
	}
	/* probed at once, on X (MR-MP-9) */
	assert_int_equal(T.n_probes, 1);
	assert_int_equal(T.ev[MR_REQ_EV_PROBE], 1);
	assert_int_equal(T.probes[0].opcode, MR_OP_PROBE);
	assert_int_equal(T.probes[0].path, x);
	t -= MS;
	/* dead once: later runs report no more deaths */
	run(t + 100 * US);
	assert_int_equal(T.ev[MR_REQ_EV_PATH_DEAD], 1);

	/* the next PROBE is due; the caller cannot send it: not counted */
	t += T.r.snd.pt.p.probe_interval_ns;
	T.refuse_probe = true;
	run(t);
	assert_int_equal(T.ev[MR_REQ_EV_PROBE], 1);
	assert_int_equal(T.n_probes, 1);
	T.refuse_probe = false;
	t = T.r.snd.pt.path[x].next_probe_ns;
	run(t);
	assert_int_equal(T.n_probes, 2);
	assert_int_equal(T.ev[MR_REQ_EV_PROBE], 2);
	assert_int_equal(T.probes[1].path, x);

	/* a reply to an older PROBE: dropped as a duplicate (MR-MP-25) */
	probe_reply(&T.probes[1], T.probes[0].psn, t + 10 * US);
	assert_int_equal(T.n_dup, 1);
	assert_int_equal(T.ev[MR_REQ_EV_PROBE_REPLY], 0);
	assert_int_equal(T.ev[MR_REQ_EV_PATH_REVIVED], 0);
	assert_int_equal(T.r.snd.pt.path[x].state, MR_PATH_DEAD);
	/* the matching one revives X on probation (MR-MP-11) */
	probe_reply(&T.probes[1], T.probes[1].psn, t + 20 * US);
	assert_int_equal(T.ev[MR_REQ_EV_PROBE_REPLY], 1);
	assert_int_equal(T.ev[MR_REQ_EV_PATH_REVIVED], 1);
	assert_int_equal(T.r.snd.pt.path[x].state, MR_PATH_SUSPECT);
	assert_int_equal(T.r.snd.pt.revivals, 1);
	/* the same reply again: a duplicate, no second revival */
	probe_reply(&T.probes[1], T.probes[1].psn, t + 30 * US);
	assert_int_equal(T.n_dup, 2);
	assert_int_equal(T.ev[MR_REQ_EV_PROBE_REPLY], 1);
	assert_int_equal(T.ev[MR_REQ_EV_PATH_REVIVED], 1);
	/* no more PROBEs for a live path */
	run(t + 100 * MS);
	assert_int_equal(T.ev[MR_REQ_EV_PROBE], 2);
}

/*
 * MR-VERBS-23: an unaligned atomic and a READ or WRITE range that wraps
 * 2^64 are refused at post time with the status their NACK would give;
 * everything else goes.
 */
static void test_refused_at_post(void **state)
{
	struct mr_swqe w;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.op = MR_OP_ATOMIC_FA;
	w.length = 8;
	assert_int_equal(mr_swqe_refused(&w, 0x1000, T.r.p.status), 0);
	assert_int_equal(mr_swqe_refused(&w, 0x1004, T.r.p.status),
			 ST_RETRY + 3);
	w.op = MR_OP_ATOMIC_CS;
	assert_int_equal(mr_swqe_refused(&w, 0x1001, T.r.p.status),
			 ST_RETRY + 3);
	w.op = MR_OP_READ_REQ;
	w.length = 16;
	assert_int_equal(mr_swqe_refused(&w, ~0ULL - 15, T.r.p.status), 0);
	assert_int_equal(mr_swqe_refused(&w, ~0ULL - 14, T.r.p.status),
			 ST_RETRY + 2);
	w.op = MR_OP_WRITE;
	assert_int_equal(mr_swqe_refused(&w, ~0ULL, T.r.p.status),
			 ST_RETRY + 2);
	w.op = MR_OP_WRITE_IMM;
	assert_int_equal(mr_swqe_refused(&w, ~0ULL - 1, T.r.p.status),
			 ST_RETRY + 2);
	/* an empty WRITE touches nothing; a SEND has no remote range */
	w.length = 0;
	assert_int_equal(mr_swqe_refused(&w, ~0ULL, T.r.p.status), 0);
	w.op = MR_OP_SEND;
	w.length = 16;
	assert_int_equal(mr_swqe_refused(&w, ~0ULL, T.r.p.status), 0);
}

/* ---- cost in a deep send queue ------------------------------------- */

#define BIG_SQ		8192

/* A queue of BIG_SQ WQEs behind the same engine, its wqe() calls counted. */
static struct big {
	u32 msn_idx[BIG_SQ];
	struct mr_swqe sq[BIG_SQ];
	u64 n_wqe;		/* ops->wqe() calls */
	u32 n_emit;
	u32 n_read_retx;	/* READ_REQs asking again */
	u32 read_retx_msn;	/* ... the first one's msn */
} B;

static struct mr_swqe *b_wqe(void *ctx, u32 idx)
{
	(void)ctx;
	B.n_wqe++;
	return &B.sq[idx % BIG_SQ];
}

static int b_emit(void *ctx, struct mr_swqe *w, struct mr_pkt *p)
{
	(void)ctx;
	(void)w;
	if (p->opcode == MR_OP_READ_REQ && (p->flags & MR_F_RETX) &&
	    !B.n_read_retx++)
		B.read_retx_msn = p->dxh.msn;
	B.n_emit++;
	return 0;
}

static const struct mr_requester_ops b_ops = {
	.wqe = b_wqe,
	.msg = t_msg,
	.emit = b_emit,
	.place = t_place,
	.local = t_local,
	.probe = t_probe,
	.event = t_event,
};

/* setup(), then the requester restarted on the deep queue. */
static void big_setup(u32 max_rd_atomic)
{
	struct mr_requester_params rp;

	setup_with(false);
	memset(&B, 0, sizeof(B));
	rp = T.r.p;
	rp.sq_size = BIG_SQ;
	rp.max_rd_atomic = max_rd_atomic;
	T.r.ops = &b_ops;
	T.r.msn_idx = B.msn_idx;
	mr_requester_start(&T.r, &rp, 0);
}

static void big_post(u8 op, u32 len)
{
	struct mr_swqe *w = &B.sq[T.tail % BIG_SQ];

	assert_true(T.tail - T.head < BIG_SQ);
	memset(w, 0, sizeof(*w));
	w->op = op;
	w->length = len;
	w->state = MR_SWQE_QUEUED;
	T.tail++;
}

static void big_run(u64 now)
{
	mr_requester_run(&T.r, T.head, T.tail, true, now, 64, NULL);
}

/* An ACK of everything sent, as the caller takes it (kernel/req.c). */
static void big_ack(u64 now)
{
	struct mr_pkt a;

	ack_fill_path(&a, 0, T.r.snd.sb.nxt, now);
	mr_requester_rcv(&T.r, T.head, T.tail, &a, false, now, NULL);
}

/* @n WRITEs sent and acknowledged, a microsecond per batch. */
static void big_writes(u32 n, u64 *now)
{
	u32 i;

	for (i = 0; i < n; i++) {
		big_post(MR_OP_WRITE, 8);
		if (i % 32 == 31 || i == n - 1) {
			big_run(*now);
			*now += US;
			big_ack(*now);
		}
	}
	assert_int_equal(T.r.cur, T.tail);
	assert_int_equal(T.r.snd.sb.una, T.r.snd.sb.nxt);
}

/*
 * The engine runs after every ACK or response the QP receives, a
 * duplicate too (kernel/req.c). A READ at the head whose data the peer
 * holds back keeps thousands of acknowledged WRITEs behind it from
 * completing (MR-VERBS-22): a duplicate ACK and the run after it must
 * cost a few WQE look-ups per READ/ATOMIC outstanding, not one per WQE
 * in the queue. The READs are still all seen: once their responses are
 * overdue the head one asks again (MR-LOSS-14), at the same cost.
 */
static void test_dup_ack_cost_deep_queue(void **state)
{
	struct mr_pkt a;
	u64 now = US;
	u32 k, bound;

	(void)state;
	big_setup(4);
	for (k = 0; k < 4; k++) {
		big_post(MR_OP_READ_REQ, 4 * MTU);
		big_writes(1000, &now);
	}
	assert_int_equal(T.r.rd_atomic_out, 4);
	assert_int_equal(T.tail - T.head, 4004);
	assert_int_equal(mr_requester_head(&T.r, T.head, now, NULL),
			 MR_DONE_WAIT);
	bound = 4 * T.r.p.max_rd_atomic + 4;

	B.n_wqe = 0;
	ack_fill_path(&a, 0, T.r.snd.sb.nxt, now);
	mr_requester_rcv(&T.r, T.head, T.tail, &a, false, now, NULL);
	big_run(now);
	assert_true(B.n_wqe <= bound);
	assert_int_equal(B.n_read_retx, 0);

	/* an RTO later without data: the head READ asks again */
	now += 2 * mr_txsb_rto(&T.r.snd.sb);
	B.n_wqe = 0;
	big_run(now);
	assert_true(B.n_wqe <= bound);
	assert_true(B.n_read_retx >= 1);
	assert_int_equal(B.read_retx_msn, 0);
}

/*
 * Once a WR failed (MR-VERBS-22, MR-VERBS-25), the head check asks
 * whether a later WR failed: polling a READ at the head while it waits
 * its last RTO for data, then completing thousands of WRs before the
 * failed one, must take WQE look-ups linear in the queue, not quadratic.
 */
static void test_failed_queue_completes_linear(void **state)
{
	const u32 n = 2000;
	u64 now = US;
	u32 i, psn;

	(void)state;
	big_setup(1);
	big_post(MR_OP_READ_REQ, 4 * MTU);
	big_writes(n, &now);
	big_post(MR_OP_WRITE, 8);
	big_run(now);
	psn = T.r.snd.sb.nxt - 1;
	nack_remote_access_at(psn, now, now);
	assert_true(T.r.snd.sb.failed);
	assert_int_equal(B.sq[n + 1].status, ST_RETRY + 2);

	B.n_wqe = 0;
	/* the READ gets an RTO for its data, checked after every packet */
	for (i = 0; i < 100; i++)
		assert_int_equal(mr_requester_head(&T.r, T.head, now, NULL),
				 MR_DONE_WAIT);
	now += mr_txsb_rto(&T.r.snd.sb);
	assert_int_equal(mr_requester_head(&T.r, T.head, now, NULL),
			 MR_DONE_FLUSH);
	mr_requester_retired(&T.r, &B.sq[0], T.head++);
	for (i = 0; i < n; i++) {
		assert_int_equal(mr_requester_head(&T.r, T.head, now, NULL),
				 MR_DONE_SUCCESS);
		mr_requester_retired(&T.r, &B.sq[T.head % BIG_SQ], T.head);
		T.head++;
	}
	assert_int_equal(mr_requester_head(&T.r, T.head, now, NULL),
			 MR_DONE_OWN);
	assert_true(B.n_wqe <= 3 * (n + 100));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_segments_and_numbers, setup),
		cmocka_unit_test_setup(test_rd_atomic_limit_and_fence, setup),
		cmocka_unit_test_setup(test_local_and_failed_source, setup),
		cmocka_unit_test_setup(test_retransmit_as_sent, setup),
		cmocka_unit_test_setup(test_rto_waits_for_feedback, setup),
		cmocka_unit_test_setup(test_rto_restarted_by_queued_ack, setup),
		cmocka_unit_test_setup(test_silence_kills_no_path, setup_health),
		cmocka_unit_test_setup(test_failed_retransmit_reported, setup),
		cmocka_unit_test_setup(test_read_budget_halts, setup),
		cmocka_unit_test_setup(test_retry_budget, setup),
		cmocka_unit_test_setup(test_rd_emit_failure, setup),
		cmocka_unit_test_setup(test_responses, setup),
		cmocka_unit_test_setup(test_answer_after_window, setup),
		cmocka_unit_test_setup(test_empty_read_response, setup),
		cmocka_unit_test_setup(test_read_hole_deadline, setup),
		cmocka_unit_test_setup(test_split_read_spreads, setup),
		cmocka_unit_test_setup(test_response_credits_request_path, setup),
		cmocka_unit_test_setup(test_stall_moves_path, setup),
		cmocka_unit_test_setup(test_resp_ce_feeds_cc, setup),
		cmocka_unit_test_setup(test_read_ranges_in_window, setup),
		cmocka_unit_test_setup(test_read_ranges_paced, setup),
		cmocka_unit_test_setup(test_trim_matched_by_psn, setup),
		cmocka_unit_test_setup(test_trim_asks_piece, setup),
		cmocka_unit_test_setup(test_fatal_nack, setup),
		cmocka_unit_test_setup(test_complete_status, setup),
		cmocka_unit_test_setup(test_refused_at_post, setup),
		cmocka_unit_test_setup(test_path_death_probe_revival,
				       setup_health),
		cmocka_unit_test(test_dup_ack_cost_deep_queue),
		cmocka_unit_test(test_failed_queue_completes_linear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
