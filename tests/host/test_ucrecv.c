// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests of the unreliable connected receiver (ucrecv.h) and UC
 * segmentation: in-order and reordered delivery (MR-UC-5), a lost packet
 * drops its message and the next one takes its receive WQE (MR-UC-7,
 * MR-UC-8), hostile input keeps the state bounded (MR-UC-9) and what one
 * packet makes the caller move (MR_UC_MOVE_BUDGET), refusals drop
 * silently (MR-UC-10), UC packets never ask for an ACK (MR-UC-3).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include "segment.h"
#include "ucrecv.h"
#include "mr_test_util.h"

#define MTU	1024
#define NWQE	16
#define WQE_LEN	8192
#define MEM_LEN	65536
#define MEM_VA	0x100000ULL
#define RKEY	0x4242
#define PSN0	0xFFFFF0	/* wraps during the tests */
#define MAXPK	256
#define BIG	(256 * 1024)	/* a large receive WQE (no buffer behind) */

/* The caller's side: a receive queue of NWQE buffers and one MR. */
struct uc_ctx {
	u8 rq[NWQE][WQE_LEN];
	u32 rq_len[NWQE];
	u32 rq_head;		/* next WQE to complete (absolute) */
	u32 rq_posted;		/* WQEs posted (absolute) */
	u8 mem[MEM_LEN];
	struct mr_uc_msg done[1024];
	u32 done_wqe[1024];
	u32 ndone;
	u32 ev[MR_UC_EV_NUM];
	bool no_rebind;
	bool place_fails;
	u32 rebinds;
	u64 moved;		/* bytes rebind copied, as kernel/uc.c does */
};

static bool uc_wqe_op(u8 op)
{
	return op != MR_OP_UC_WRITE;
}

static bool c_check(void *ctx, const struct mr_pkt *p, u32 rel)
{
	struct uc_ctx *c = ctx;
	u32 w = c->rq_head + rel;

	if (uc_wqe_op(p->opcode)) {
		if (rel >= c->rq_posted - c->rq_head)
			return false;
		if ((p->opcode == MR_OP_UC_SEND ||
		     p->opcode == MR_OP_UC_SEND_IMM) &&
		    p->dxh.msg_len > c->rq_len[w % NWQE])
			return false;
	}
	if (p->opcode == MR_OP_UC_WRITE || p->opcode == MR_OP_UC_WRITE_IMM) {
		u64 a = p->rxh.va + p->dxh.offset;

		if (p->rxh.rkey != RKEY || a < MEM_VA ||
		    a + p->payload_len > MEM_VA + MEM_LEN)
			return false;
	}
	return true;
}

static bool c_place(void *ctx, const struct mr_pkt *p, u32 rel)
{
	struct uc_ctx *c = ctx;

	if (c->place_fails)
		return false;
	if (p->opcode == MR_OP_UC_SEND || p->opcode == MR_OP_UC_SEND_IMM) {
		assert_true(p->dxh.offset + p->payload_len <= WQE_LEN);
		memcpy(c->rq[(c->rq_head + rel) % NWQE] + p->dxh.offset,
		       p->payload, p->payload_len);
	} else {
		memcpy(c->mem + (p->rxh.va + p->dxh.offset - MEM_VA),
		       p->payload, p->payload_len);
	}
	return true;
}

static bool c_rebind(void *ctx, const struct mr_uc_msg *m, u32 from, u32 to)
{
	struct uc_ctx *c = ctx;

	assert_true(to < from);
	if (c->no_rebind || m->msg_len > c->rq_len[(c->rq_head + to) % NWQE])
		return false;
	/* Longer than WQE_LEN: a BIG WQE, whose bytes nobody looks at. */
	if (m->opcode != MR_OP_UC_WRITE_IMM && m->msg_len <= WQE_LEN)
		memcpy(c->rq[(c->rq_head + to) % NWQE],
		       c->rq[(c->rq_head + from) % NWQE], m->msg_len);
	if (m->opcode != MR_OP_UC_WRITE_IMM)
		c->moved += m->msg_len;
	c->rebinds++;
	return true;
}

static void c_deliver(void *ctx, const struct mr_uc_msg *m)
{
	struct uc_ctx *c = ctx;

	assert_true(m->bound);
	assert_true(c->rq_head != c->rq_posted);
	assert_true(c->ndone < 1024);
	c->done[c->ndone] = *m;
	c->done_wqe[c->ndone++] = c->rq_head++;
}

static void c_count(void *ctx, enum mr_uc_event ev)
{
	struct uc_ctx *c = ctx;

	assert_true(ev > 0 && ev < MR_UC_EV_NUM);
	c->ev[ev]++;
}

static const struct mr_ucrecv_ops c_ops = {
	.check = c_check, .place = c_place, .rebind = c_rebind,
	.deliver = c_deliver, .count = c_count,
};

struct uc_fix {
	struct mr_ucrecv r;
	struct uc_ctx c;
};

static struct uc_fix *fix_new(void)
{
	struct uc_fix *f = calloc(1, sizeof(*f));
	unsigned int i;

	assert_non_null(f);
	f->r.ops = &c_ops;
	f->r.pmtu = MTU;
	mr_ucrecv_init(&f->r, PSN0);
	for (i = 0; i < NWQE; i++)
		f->c.rq_len[i] = WQE_LEN;
	f->c.rq_posted = NWQE;
	return f;
}

/* Repost the WQEs completed so far (the consumer's refill). */
static void fix_refill(struct uc_fix *f)
{
	f->c.rq_posted = f->c.rq_head + NWQE;
}

static u8 pat(u32 msn, u32 off)
{
	return (u8)(msn * 37 + off * 7 + (off >> 8));
}

/* A message's packets, in order, with their payloads. */
struct uc_pkts {
	struct mr_pkt p[MAXPK];
	u8 data[MAXPK][MTU];
	u32 n;
};

/*
 * Append the first @npk packets (0: all) of message @msn (@op, @len
 * bytes) from PSN *@psn.
 */
static void add_pkts(struct uc_pkts *k, u8 op, u32 msn, u32 len, u64 va,
		     u32 *psn, u32 npk)
{
	struct mr_req_msg m;
	u32 off = 0, i;
	bool last;

	memset(&m, 0, sizeof(m));
	m.opcode = op;
	m.msn = msn;
	m.length = len;
	m.va = va;
	m.rkey = RKEY;
	m.imm = 0xC0DE0000 | msn;
	m.solicited = true;
	do {
		struct mr_pkt *p = &k->p[k->n];

		assert_true(k->n < MAXPK);
		last = mr_req_segment(&m, off, MTU, 0, false, p);
		p->psn = *psn;
		p->dqpn = 0x11;
		p->sqpn = 0x22;
		*psn = mr_psn_add(*psn, 1);
		for (i = 0; i < p->payload_len; i++)
			k->data[k->n][i] = pat(msn, off + i);
		p->payload = k->data[k->n];
		assert_int_equal(mr_pkt_validate(p), 0);
		off += p->payload_len;
		k->n++;
	} while (!last && --npk);
}

/* Append the packets of message @msn (@op, @len bytes) from PSN *@psn. */
static void add_msg(struct uc_pkts *k, u8 op, u32 msn, u32 len, u64 va,
		    u32 *psn)
{
	add_pkts(k, op, msn, len, va, psn, 0);
}

/* One packet, which never makes the caller move more than the budget. */
static int rx(struct uc_fix *f, const struct mr_pkt *p)
{
	u64 moved = f->c.moved;
	int rc = mr_ucrecv_on_pkt(&f->r, p, &f->c);

	if (f->c.moved - moved > MR_UC_MOVE_BUDGET)
		fail_msg("one packet moved %llu bytes",
			 (unsigned long long)(f->c.moved - moved));
	return rc;
}

/* Delivery @i is message @msn of @len bytes in WQE @wqe, data intact. */
static void assert_done(struct uc_fix *f, u32 i, u32 msn, u32 len, u32 wqe)
{
	const struct mr_uc_msg *m = &f->c.done[i];
	u32 o;

	assert_true(i < f->c.ndone);
	assert_int_equal(m->msn, msn);
	assert_int_equal(m->msg_len, len);
	assert_int_equal(m->bytes, len);
	assert_int_equal(f->c.done_wqe[i], wqe);
	if (m->opcode == MR_OP_UC_WRITE_IMM) {
		assert_int_equal(m->imm, 0xC0DE0000 | msn);
		return;
	}
	if (m->opcode == MR_OP_UC_SEND_IMM)
		assert_int_equal(m->imm, 0xC0DE0000 | msn);
	for (o = 0; o < len; o++)
		if (f->c.rq[wqe % NWQE][o] != pat(msn, o))
			fail_msg("msn %u byte %u: %u != %u", msn, o,
				 f->c.rq[wqe % NWQE][o], pat(msn, o));
}

static u32 total_ev(const struct uc_fix *f)
{
	u32 i, n = 0;

	for (i = 1; i < MR_UC_EV_NUM; i++)
		n += f->c.ev[i];
	return n;
}

/* UC packets carry no ACKREQ or RETX, SE only on a solicited LAST. */
static void test_uc_segment_flags(void **state)
{
	static const u8 ops[] = { MR_OP_UC_SEND, MR_OP_UC_SEND_IMM,
				  MR_OP_UC_WRITE, MR_OP_UC_WRITE_IMM };
	struct uc_pkts *k = calloc(1, sizeof(*k));
	unsigned int i;
	u32 psn = 5;

	(void)state;
	for (i = 0; i < MR_ARRAY_SIZE(ops); i++)
		add_msg(k, ops[i], i, 2 * MTU + 1, MEM_VA, &psn);
	assert_int_equal(k->n, 12);
	for (i = 0; i < k->n; i++) {
		const struct mr_pkt *p = &k->p[i];
		bool last = i % 3 == 2;

		assert_false(p->flags & (MR_F_ACKREQ | MR_F_RETX));
		assert_int_equal(!!(p->flags & MR_F_LAST), last);
		assert_int_equal(!!(p->flags & MR_F_SE),
				 last && p->opcode != MR_OP_UC_WRITE);
		assert_int_equal(p->dxh.ssn, 0);
		assert_int_equal(mr_pkt_role(p), MR_RX_UC);
	}
	/* A retransmission does not exist for UC: no RETX either. */
	{
		struct mr_req_msg m = { .opcode = MR_OP_UC_SEND, .length = 1 };
		struct mr_pkt p;

		mr_req_segment(&m, 0, MTU, 0, true, &p);
		assert_false(p.flags & (MR_F_ACKREQ | MR_F_RETX));
		assert_int_equal(mr_pkt_validate(&p), 0);
	}
	free(k);
}

static void test_uc_in_order(void **state)
{
	struct uc_pkts *k = calloc(1, sizeof(*k));
	struct uc_fix *f = fix_new();
	u32 psn = PSN0, i;

	(void)state;
	add_msg(k, MR_OP_UC_SEND, 0, 3000, 0, &psn);
	add_msg(k, MR_OP_UC_SEND_IMM, 1, 0, 0, &psn);
	add_msg(k, MR_OP_UC_WRITE, 2, 2048, MEM_VA + 100, &psn);
	add_msg(k, MR_OP_UC_WRITE_IMM, 3, 100, MEM_VA + 5000, &psn);
	add_msg(k, MR_OP_UC_SEND, 4, 1, 0, &psn);
	for (i = 0; i < k->n; i++)
		assert_int_equal(rx(f, &k->p[i]), 0);
	assert_int_equal(total_ev(f), 0);
	assert_int_equal(f->c.ndone, 4);
	assert_done(f, 0, 0, 3000, 0);
	assert_done(f, 1, 1, 0, 1);
	assert_done(f, 2, 3, 100, 2);
	assert_done(f, 3, 4, 1, 3);
	assert_int_equal(f->c.done[1].opcode, MR_OP_UC_SEND_IMM);
	assert_true(f->c.done[3].flags & MR_F_SE);
	for (i = 0; i < 2048; i++)
		assert_int_equal(f->c.mem[100 + i], pat(2, i));
	for (i = 0; i < 100; i++)
		assert_int_equal(f->c.mem[5000 + i], pat(3, i));
	assert_int_equal(f->r.head_msn, 5);
	assert_int_equal(mr_ucrecv_wqes_bound(&f->r), 0);
	/* A second copy of any packet is a duplicate or an old message. */
	for (i = 0; i < k->n; i++)
		assert_int_not_equal(rx(f, &k->p[i]), 0);
	assert_int_equal(f->c.ndone, 4);
	free(k);
	free(f);
}

/*
 * Packets of a message in any order, and later messages started before
 * earlier ones ended: nothing is lost as long as messages complete in
 * order (MR-UC-5, MR-UC-7).
 */
static void test_uc_reordered(void **state)
{
	struct uc_pkts *k = calloc(1, sizeof(*k));
	struct uc_fix *f = fix_new();
	u32 psn = PSN0, i, m, start[7];

	(void)state;
	for (m = 0; m < 6; m++) {
		start[m] = k->n;
		add_msg(k, m == 3 ? MR_OP_UC_WRITE_IMM : MR_OP_UC_SEND, m,
			4 * MTU - m, MEM_VA, &psn);
	}
	start[6] = k->n;
	/* Each message's packets last to first... */
	for (m = 0; m < 6; m++)
		for (i = start[m + 1]; i-- > start[m];)
			if (i != start[m])
				assert_int_equal(rx(f, &k->p[i]), 0);
	assert_int_equal(f->c.ndone, 0);
	/* ... and the first packets (offset 0) last of all. */
	for (m = 0; m < 6; m++)
		assert_int_equal(rx(f, &k->p[start[m]]), 0);
	assert_int_equal(total_ev(f), 0);
	assert_int_equal(f->c.ndone, 6);
	for (m = 0; m < 6; m++)
		assert_done(f, m, m, 4 * MTU - m, m);
	free(k);
	free(f);
}

/*
 * A lost packet: its message is dropped once a later one completes, and
 * the receive WQE it had begun to fill takes the next message (MR-UC-7,
 * MR-UC-8), moved there by rebind; without rebind the next is dropped
 * too and the one after takes the WQE.
 */
static void lost_packet(bool can_rebind)
{
	struct uc_pkts *k = calloc(1, sizeof(*k));
	struct uc_fix *f = fix_new();
	u32 psn = PSN0, i;

	f->c.no_rebind = !can_rebind;
	add_msg(k, MR_OP_UC_SEND, 0, 3 * MTU, 0, &psn);		/* 0..2 */
	add_msg(k, MR_OP_UC_SEND_IMM, 1, 2 * MTU, 0, &psn);	/* 3..4 */
	add_msg(k, MR_OP_UC_SEND, 2, 10, 0, &psn);		/* 5 */
	for (i = 0; i < k->n; i++)
		if (i != 1)
			assert_int_equal(rx(f, &k->p[i]), 0);
	assert_int_equal(f->c.ev[MR_UC_EV_MSG_DROPPED], can_rebind ? 1 : 2);
	if (can_rebind) {
		assert_int_equal(f->c.rebinds, 1);
		assert_int_equal(f->c.ndone, 2);
		assert_done(f, 0, 1, 2 * MTU, 0);
		assert_done(f, 1, 2, 10, 1);
	} else {
		assert_int_equal(f->c.ndone, 1);
		assert_done(f, 0, 2, 10, 0);
	}
	/* The lost packet turning up late changes nothing. */
	assert_int_equal(rx(f, &k->p[1]), MR_UC_EV_OLD);
	assert_int_equal(f->c.ndone, can_rebind ? 2 : 1);
	assert_int_equal(mr_ucrecv_wqes_bound(&f->r), 0);
	free(k);
	free(f);
}

static void test_uc_lost_packet(void **state)
{
	(void)state;
	lost_packet(true);
	lost_packet(false);
}

/* A whole single-packet message lost: the gap is dropped, once. */
static void test_uc_lost_message(void **state)
{
	struct uc_pkts *k = calloc(1, sizeof(*k));
	struct uc_fix *f = fix_new();
	u32 psn = PSN0, i;

	(void)state;
	for (i = 0; i < 4; i++)
		add_msg(k, MR_OP_UC_SEND, i, 200 + i, 0, &psn);
	for (i = 0; i < 4; i++)
		if (i != 1)
			assert_int_equal(rx(f, &k->p[i]), 0);
	assert_int_equal(f->c.ev[MR_UC_EV_MSG_DROPPED], 1);
	assert_int_equal(f->c.ndone, 3);
	assert_done(f, 0, 0, 200, 0);
	assert_done(f, 1, 2, 202, 1);
	assert_done(f, 2, 3, 203, 2);
	assert_int_equal(f->c.rebinds, 0);
	free(k);
	free(f);
}

/*
 * A message whose first packet comes after a later message took the
 * next receive WQE is dropped (its WQE would complete out of order).
 */
static void test_uc_late_first_seen(void **state)
{
	struct uc_pkts *k = calloc(1, sizeof(*k));
	struct uc_fix *f = fix_new();
	u32 psn = PSN0;

	(void)state;
	add_msg(k, MR_OP_UC_SEND, 0, 2 * MTU, 0, &psn);	/* 0, 1 */
	add_msg(k, MR_OP_UC_SEND, 1, 2 * MTU, 0, &psn);	/* 2, 3 */
	assert_int_equal(rx(f, &k->p[2]), 0);
	assert_int_equal(rx(f, &k->p[0]), MR_UC_EV_LATE);
	assert_int_equal(rx(f, &k->p[1]), MR_UC_EV_OLD);
	assert_int_equal(rx(f, &k->p[3]), 0);
	assert_int_equal(f->c.ndone, 1);
	assert_done(f, 0, 1, 2 * MTU, 0);
	/* A WRITE needs no WQE: it is never late. */
	psn = k->p[3].psn + 1;
	k->n = 0;
	add_msg(k, MR_OP_UC_SEND, 3, 2 * MTU, 0, &psn);
	add_msg(k, MR_OP_UC_WRITE, 2, 10, MEM_VA, &psn);
	assert_int_equal(rx(f, &k->p[0]), 0);
	assert_int_equal(rx(f, &k->p[2]), 0);
	assert_int_equal(rx(f, &k->p[1]), 0);
	assert_int_equal(f->c.ndone, 2);
	assert_done(f, 1, 3, 2 * MTU, 1);
	free(k);
	free(f);
}

/* No WQE, a WQE too short, a bad R_Key: the message is dropped. */
static void test_uc_refused(void **state)
{
	struct uc_pkts *k = calloc(1, sizeof(*k));
	struct uc_fix *f = fix_new();
	u32 psn = PSN0;

	(void)state;
	f->c.rq_posted = 0;
	add_msg(k, MR_OP_UC_SEND, 0, 2 * MTU, 0, &psn);	/* 0, 1 */
	assert_int_equal(rx(f, &k->p[0]), MR_UC_EV_REFUSED);
	assert_int_equal(rx(f, &k->p[1]), MR_UC_EV_OLD);
	assert_int_equal(mr_ucrecv_wqes_bound(&f->r), 0);
	fix_refill(f);
	f->c.rq_len[0] = 100;
	add_msg(k, MR_OP_UC_SEND, 1, 101, 0, &psn);		/* 2 */
	assert_int_equal(rx(f, &k->p[2]), MR_UC_EV_REFUSED);
	f->c.rq_len[0] = WQE_LEN;
	add_msg(k, MR_OP_UC_WRITE, 2, 10, MEM_VA + MEM_LEN - 5, &psn); /* 3 */
	assert_int_equal(rx(f, &k->p[3]), MR_UC_EV_REFUSED);
	/* The memory failing under a placement. */
	f->c.place_fails = true;
	add_msg(k, MR_OP_UC_SEND, 3, 100, 0, &psn);		/* 4 */
	assert_int_equal(rx(f, &k->p[4]), MR_UC_EV_REFUSED);
	f->c.place_fails = false;
	add_msg(k, MR_OP_UC_SEND, 4, 100, 0, &psn);		/* 5 */
	assert_int_equal(rx(f, &k->p[5]), 0);
	assert_int_equal(f->c.ev[MR_UC_EV_REFUSED], 4);
	assert_int_equal(f->c.ev[MR_UC_EV_MSG_DROPPED], 4);
	assert_int_equal(f->c.ndone, 1);
	assert_done(f, 0, 4, 100, 0);
	free(k);
	free(f);
}

/*
 * Packets that disagree with their message, break the PMTU, repeat a
 * PSN or were trimmed change nothing but counters (trimmed: its message
 * is dropped).
 */
static void test_uc_hostile_fields(void **state)
{
	struct uc_pkts *k = calloc(1, sizeof(*k));
	struct uc_fix *f = fix_new();
	struct mr_pkt q;
	u32 psn = PSN0;

	(void)state;
	add_msg(k, MR_OP_UC_SEND, 0, 3 * MTU, 0, &psn);	/* 0..2 */
	assert_int_equal(rx(f, &k->p[0]), 0);
	assert_int_equal(rx(f, &k->p[0]), MR_UC_EV_DUP);
	q = k->p[1];
	q.psn = psn++;
	q.dxh.msg_len = 4 * MTU;
	assert_int_equal(rx(f, &q), MR_UC_EV_MISMATCH);
	q = k->p[1];
	q.psn = psn++;
	q.opcode = MR_OP_UC_SEND_IMM;
	q.imm = 1;
	assert_int_equal(rx(f, &q), MR_UC_EV_MISMATCH);
	/* Not cut at the PMTU (a 512-byte piece at 1024 is fine). */
	q = k->p[1];
	q.psn = psn++;
	q.dxh.offset = 100;
	assert_int_equal(rx(f, &q), MR_UC_EV_PMTU);
	f->r.pmtu = 512;
	assert_int_equal(rx(f, &k->p[1]), MR_UC_EV_PAYLOAD);
	f->r.pmtu = MTU;
	/* An RC opcode is not the UC receiver's. */
	q = k->p[1];
	q.opcode = MR_OP_SEND;
	assert_int_equal(rx(f, &q), MR_UC_EV_MISMATCH);
	/* A PSN older than the map cannot be told from a duplicate. */
	q = k->p[1];
	q.psn = mr_psn_sub(PSN0, 1);
	assert_int_equal(rx(f, &q), MR_UC_EV_DUP);
	q.psn = mr_psn_sub(PSN0, 1000);
	assert_int_equal(rx(f, &q), MR_UC_EV_DUP);
	assert_int_equal(f->c.ndone, 0);
	/* Still intact: the rest completes it. */
	assert_int_equal(rx(f, &k->p[2]), 0);
	assert_int_equal(rx(f, &k->p[1]), 0);
	assert_int_equal(f->c.ndone, 1);
	assert_done(f, 0, 0, 3 * MTU, 0);
	assert_int_equal(f->c.ev[MR_UC_EV_MSG_DROPPED], 0);
	/* Trimmed: the message is gone, the WQE stays for the next. */
	k->n = 0;
	add_msg(k, MR_OP_UC_SEND, 1, 2 * MTU, 0, &psn);	/* 0, 1 */
	add_msg(k, MR_OP_UC_SEND, 2, 5, 0, &psn);		/* 2 */
	q = k->p[1];
	q.flags |= MR_F_TRIM;
	q.payload_len = 0;
	assert_int_equal(rx(f, &k->p[0]), 0);
	assert_int_equal(rx(f, &q), MR_UC_EV_TRIMMED);
	assert_int_equal(rx(f, &k->p[1]), MR_UC_EV_OLD);
	assert_int_equal(rx(f, &k->p[2]), 0);
	assert_int_equal(f->c.ndone, 2);
	assert_done(f, 1, 2, 5, 1);
	free(k);
	free(f);
}

/*
 * A flood of new msns (first packets that never complete), far jumps and
 * random headers: the receiver's state stays within MR_UC_MSGS messages
 * and WQEs, and a proper message afterwards is delivered (MR-UC-9).
 */
static void test_uc_flood_bounded(void **state)
{
	struct uc_pkts *k = calloc(1, sizeof(*k));
	struct uc_fix *f = fix_new();
	u64 seed = 0x5eed;
	u32 psn = PSN0, i, msn = 0, before;
	struct mr_pkt q;

	(void)state;
	for (i = 0; i < 20000; i++) {
		k->n = 0;
		add_msg(k, i % 3 ? MR_OP_UC_SEND : MR_OP_UC_WRITE_IMM, msn,
			2 * MTU, MEM_VA, &psn);
		q = k->p[0];
		if (i % 97 == 0)
			q.dxh.msn = msn + t_rand_below(&seed, 0x7FFFFFFF);
		if (i % 89 == 0)
			q.psn = t_rand_below(&seed, 1 << 24);
		rx(f, &q);
		msn = q.dxh.msn + 1 + t_rand_below(&seed, 3);
		assert_true(mr_ucrecv_wqes_bound(&f->r) <= MR_UC_MSGS);
		assert_true(f->r.n_done <= MR_UC_MSGS);
		assert_int_equal(f->c.ndone, 0);
	}
	assert_true(f->c.ev[MR_UC_EV_MSG_DROPPED] > 1000);
	/* Random msns around the head, random PSNs: never a delivery. */
	for (i = 0; i < 20000; i++) {
		k->n = 0;
		psn = t_rand_below(&seed, 1 << 24);
		add_msg(k, MR_OP_UC_SEND,
			f->r.head_msn - 4 + t_rand_below(&seed, 24),
			2 * MTU, 0, &psn);
		rx(f, &k->p[t_rand_below(&seed, 2)]);
		assert_true(mr_ucrecv_wqes_bound(&f->r) <= MR_UC_MSGS);
		assert_true(f->r.n_done <= MR_UC_MSGS);
		fix_refill(f);
	}
	/* Two halves under new PSNs may complete a message: in order. */
	for (i = 1; i < f->c.ndone; i++) {
		assert_true(f->c.done[i].msn > f->c.done[i - 1].msn);
		assert_int_equal(f->c.done_wqe[i], f->c.done_wqe[i - 1] + 1);
	}
	/* The peer behaves again: a message far ahead completes. */
	before = f->c.ndone;
	k->n = 0;
	psn = mr_psn_add(f->r.psn_hi, 1);
	msn = f->r.head_msn + 1000;
	add_msg(k, MR_OP_UC_SEND, msn, 3 * MTU, 0, &psn);
	for (i = 0; i < k->n; i++)
		assert_int_equal(rx(f, &k->p[i]), 0);
	assert_int_equal(f->c.ndone, before + 1);
	assert_done(f, before, msn, 3 * MTU, f->c.rq_head - 1);
	assert_int_equal(mr_ucrecv_wqes_bound(&f->r), 0);
	free(k);
	free(f);
}

/*
 * One packet far ahead of MR_UC_MSGS bound messages, each a one-packet
 * start of a BIG message, drops all of them; each drop would move every
 * later one (MR-UC-8), 28 moves of BIG bytes in all. What the packet has
 * moved is bounded instead (rx() checks it): the messages the budget
 * does not cover are dropped, each counted once (MR-UC-7). Nothing
 * completes, so a peer could repeat it: every round is bounded alike.
 */
static void test_uc_move_bounded(void **state)
{
	struct uc_pkts *k = calloc(1, sizeof(*k));
	struct uc_fix *f = fix_new();
	u32 psn = PSN0, base = 0, round, i, drops, rebinds;
	u64 moved;

	(void)state;
	for (i = 0; i < NWQE; i++)
		f->c.rq_len[i] = BIG;
	for (round = 0; round < 3; round++) {
		/* Round 0 opens base too; later ones inherit it, bound. */
		k->n = 0;
		for (i = round ? 1 : 0; i < MR_UC_MSGS; i++)
			add_pkts(k, MR_OP_UC_SEND, base + i, BIG, 0, &psn, 1);
		for (i = 0; i < k->n; i++)
			assert_int_equal(rx(f, &k->p[i]), 0);
		assert_int_equal(f->r.head_msn, base);
		assert_int_equal(mr_ucrecv_wqes_bound(&f->r), MR_UC_MSGS);
		drops = f->c.ev[MR_UC_EV_MSG_DROPPED];
		rebinds = f->c.rebinds;
		moved = f->c.moved;
		k->n = 0;
		add_pkts(k, MR_OP_UC_SEND, base + 2 * MR_UC_MSGS, BIG, 0,
			 &psn, 1);
		assert_int_equal(rx(f, &k->p[0]), 0);
		/* At most one BIG move, not 28; the unseen gap is one drop. */
		assert_true(f->c.moved - moved <= MR_UC_MOVE_BUDGET);
		assert_true(f->c.rebinds - rebinds <=
			    MR_UC_MOVE_BUDGET / BIG);
		assert_int_equal(f->c.ev[MR_UC_EV_MSG_DROPPED] - drops,
				 MR_UC_MSGS + 1);
		/* Only the far message is left, in the head WQE. */
		assert_int_equal(mr_ucrecv_wqes_bound(&f->r), 1);
		assert_int_equal(f->r.head_msn, base + MR_UC_MSGS + 1);
		assert_int_equal(f->c.ndone, 0);
		base += 2 * MR_UC_MSGS;
	}
	assert_int_equal(f->c.ev[MR_UC_EV_REFUSED], 0);
	free(k);
	free(f);
}

/*
 * A loss that drops several messages: each later bound message is moved
 * while the packet's budget covers it, else dropped (MR-UC-8); a
 * UC_WRITE_IMM placed nothing in its WQE and moves for free. What is
 * delivered is intact, in the head WQE.
 */
static void test_uc_move_budget(void **state)
{
	struct uc_pkts *k = calloc(1, sizeof(*k));
	struct uc_fix *f = fix_new();
	u32 psn = PSN0, i;

	(void)state;
	for (i = 0; i < NWQE; i++)
		f->c.rq_len[i] = BIG;
	/* The first packet of each (msn 0 lost), msn 4 whole. */
	add_pkts(k, MR_OP_UC_SEND, 0, BIG / 4, 0, &psn, 1);
	add_pkts(k, MR_OP_UC_SEND, 1, BIG - BIG / 4, 0, &psn, 1);
	add_pkts(k, MR_OP_UC_SEND_IMM, 2, BIG / 2, 0, &psn, 1);
	add_pkts(k, MR_OP_UC_WRITE_IMM, 3, BIG, MEM_VA, &psn, 1);
	add_pkts(k, MR_OP_UC_SEND, 4, 100, 0, &psn, 1);
	for (i = 0; i < 4; i++)
		assert_int_equal(rx(f, &k->p[i]), 0);
	assert_int_equal(f->c.rebinds, 0);
	/*
	 * msn 4 completes: msn 0 is dropped, 1 moved (3/4 of the budget),
	 * 2 dropped (over what is left), 3 moved for free, 4 moved; then
	 * 1 and 3 are dropped in turn, 3 and 4 moved, 4 moved.
	 */
	assert_int_equal(rx(f, &k->p[4]), 0);
	assert_int_equal(f->c.moved, (u64)(BIG - BIG / 4) + 3 * 100);
	assert_int_equal(f->c.rebinds, 6);
	assert_int_equal(f->c.ev[MR_UC_EV_MSG_DROPPED], 4);
	assert_int_equal(total_ev(f), 4);
	assert_int_equal(f->c.ndone, 1);
	assert_done(f, 0, 4, 100, 0);
	assert_int_equal(mr_ucrecv_wqes_bound(&f->r), 0);
	/* The next packet has a budget of its own. */
	k->n = 0;
	add_pkts(k, MR_OP_UC_SEND, 5, BIG / 2, 0, &psn, 1);
	add_pkts(k, MR_OP_UC_SEND, 6, BIG - 100, 0, &psn, 1);
	add_pkts(k, MR_OP_UC_SEND, 7, 10, 0, &psn, 1);
	for (i = 0; i < 3; i++)
		assert_int_equal(rx(f, &k->p[i]), 0);
	assert_int_equal(f->c.moved - (BIG - BIG / 4) - 3 * 100,
			 BIG - 100 + 2 * 10);
	assert_int_equal(f->c.ev[MR_UC_EV_MSG_DROPPED], 6);
	assert_int_equal(f->c.ndone, 2);
	assert_done(f, 1, 7, 10, 1);
	free(k);
	free(f);
}

/*
 * Random reordering and losses: what is delivered is in msn order,
 * intact, in consecutive WQEs; with nothing dropped everything is.
 */
static void test_uc_random(void **state)
{
	struct uc_pkts *k = calloc(1, sizeof(*k));
	u32 order[MAXPK], full = 0, drops = 0, rebinds = 0;
	u64 seed;

	(void)state;
	for (seed = 1; seed <= 300; seed++) {
		struct uc_fix *f = fix_new();
		u64 s = seed;
		u32 psn = t_rand_below(&s, 1 << 24), i, j, nmsg = 12, t;
		bool lossy = seed % 2;

		mr_ucrecv_init(&f->r, psn);

		f->c.no_rebind = seed % 3 == 0;
		k->n = 0;
		for (i = 0; i < nmsg; i++)
			add_msg(k, i % 4 == 2 ? MR_OP_UC_WRITE_IMM :
				i % 4 == 3 ? MR_OP_UC_WRITE : MR_OP_UC_SEND,
				i, t_rand_below(&s, 5 * MTU), MEM_VA, &psn);
		for (i = 0; i < k->n; i++)
			order[i] = i;
		/* Neighbours swapped at random, some of seeds 1..4 moved far. */
		for (i = 0; i + 1 < k->n; i++) {
			j = i + 1;
			if (seed % 5 == 4)
				j = i + t_rand_below(&s, MR_MIN(4, k->n - i));
			else if (t_rand_below(&s, 3))
				continue;
			t = order[i];
			order[i] = order[j];
			order[j] = t;
			i += seed % 5 != 4;
		}
		for (i = 0; i < k->n; i++) {
			if (lossy && t_rand_below(&s, 10) == 0)
				continue;
			rx(f, &k->p[order[i]]);
		}
		for (i = 0; i < f->c.ndone; i++) {
			assert_int_equal(f->c.done_wqe[i], i);
			if (i)
				assert_true(f->c.done[i].msn >
					    f->c.done[i - 1].msn);
			assert_done(f, i, f->c.done[i].msn,
				    f->c.done[i].msg_len, i);
		}
		/* Lossless and nothing dropped: all here, nothing counted. */
		if (!lossy && !f->c.ev[MR_UC_EV_MSG_DROPPED]) {
			assert_int_equal(f->c.ndone, 9);
			assert_int_equal(total_ev(f), 0);
		}
		assert_true(mr_ucrecv_wqes_bound(&f->r) <= MR_UC_MSGS);
		full += !lossy && f->c.ndone == 9;
		drops += !!f->c.ev[MR_UC_EV_MSG_DROPPED];
		rebinds += f->c.rebinds;
		free(f);
	}
	/* The mix exercised every path. */
	assert_true(full > 20 && drops > 20 && rebinds > 5);
	free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uc_segment_flags),
		cmocka_unit_test(test_uc_in_order),
		cmocka_unit_test(test_uc_reordered),
		cmocka_unit_test(test_uc_lost_packet),
		cmocka_unit_test(test_uc_lost_message),
		cmocka_unit_test(test_uc_late_first_seen),
		cmocka_unit_test(test_uc_refused),
		cmocka_unit_test(test_uc_hostile_fields),
		cmocka_unit_test(test_uc_flood_bounded),
		cmocka_unit_test(test_uc_move_bounded),
		cmocka_unit_test(test_uc_move_budget),
		cmocka_unit_test(test_uc_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
