// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests: responder message tracker, in-order completion under
 * reordering and duplicates (MR-PLACE-2).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rxmsg.h"
#include "rxwin.h"
#include "mr_test_util.h"

#define MTU 1024

/* Packet @idx of a SEND of @len bytes, msn @msn, first PSN @psn0. */
static void send_pkt(struct mr_pkt *p, u8 op, u32 msn, u32 len, u32 idx,
		     u32 psn0)
{
	u32 off = idx * MTU;
	u32 plen = len - off < MTU ? len - off : MTU;

	t_sample_pkt(p, op, 0);
	p->psn = mr_psn_add(psn0, idx);
	p->dxh.msn = msn;
	p->dxh.offset = off;
	p->dxh.msg_len = len;
	p->payload_len = plen;
	p->flags = (off == 0 ? MR_F_FIRST : 0) |
		   (off + plen == len ? MR_F_LAST : 0);
	assert_int_equal(mr_pkt_validate(p), 0);
}

static u32 npkts(u32 len)
{
	return len ? (len + MTU - 1) / MTU : 1;
}

static void test_single_in_order(void **state)
{
	struct mr_rxmsg *m = malloc(sizeof(*m));
	struct mr_rxmsg_info c;
	struct mr_pkt p;

	(void)state;
	mr_rxmsg_init(m, 0, 1000);
	assert_false(mr_rxmsg_pop_completed(m, &c));
	send_pkt(&p, MR_OP_SEND_IMM, 0, 100, 0, 1000);
	p.imm = 0xABCD;
	p.flags |= MR_F_SE;
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	assert_true(mr_rxmsg_head_complete(m));
	assert_true(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(c.msn, 0);
	assert_int_equal(c.opcode, MR_OP_SEND_IMM);
	assert_int_equal(c.msg_len, 100);
	assert_int_equal(c.bytes, 100);
	assert_int_equal(c.imm, 0xABCD);
	assert_int_equal(c.first_psn, 1000);
	assert_int_equal(c.last_psn, 1000);
	assert_true(c.flags & MR_F_SE);
	assert_false(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(mr_rxmsg_completed_msn(m), 1);
	free(m);
}

/* A 5-packet message arriving backwards completes on its last arrival. */
static void test_multi_reordered(void **state)
{
	struct mr_rxmsg *m = malloc(sizeof(*m));
	struct mr_rxmsg_info c;
	struct mr_pkt p;
	int i;

	(void)state;
	mr_rxmsg_init(m, 7, 0xFFFFFE);
	for (i = 4; i >= 0; i--) {
		send_pkt(&p, MR_OP_WRITE_IMM, 7, 4 * MTU + 10, (u32)i,
			 0xFFFFFE);
		assert_int_equal(mr_rxmsg_add(m, &p), 0);
		assert_int_equal(mr_rxmsg_head_complete(m), i == 0);
	}
	assert_true(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(c.msn, 7);
	assert_int_equal(c.npkts, 5);
	assert_int_equal(c.first_psn, 0xFFFFFE);
	assert_int_equal(c.last_psn, 2);
	assert_int_equal(c.va, p.rxh.va);
	free(m);
}

/* Completion exactly at the last arrival, for every arrival order. */
static void test_complete_needs_every_byte(void **state)
{
	static const u32 lens[] = { 1, 2, MTU, MTU + 1, 2 * MTU + 1,
				    3 * MTU - 1, 3 * MTU };
	static const u8 perms[6][3] = {
		{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
		{ 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
	};
	struct mr_rxmsg *m = malloc(sizeof(*m));
	u32 li, pi, k;

	(void)state;
	for (li = 0; li < MR_ARRAY_SIZE(lens); li++) {
		for (pi = 0; pi < 6; pi++) {
			u32 n = npkts(lens[li]), seen = 0;
			struct mr_rxmsg_info c;
			struct mr_pkt p;

			mr_rxmsg_init(m, 0, 0);
			for (k = 0; k < 3; k++) {
				if (perms[pi][k] >= n)
					continue;
				send_pkt(&p, MR_OP_SEND, 0, lens[li],
					 perms[pi][k], 0);
				assert_int_equal(mr_rxmsg_add(m, &p), 0);
				seen++;
				assert_int_equal(mr_rxmsg_head_complete(m),
						 seen == n);
			}
			assert_true(mr_rxmsg_pop_completed(m, &c));
			assert_int_equal(c.bytes, lens[li]);
			assert_int_equal(c.npkts, n);
		}
	}
	free(m);
}

/* Message 1 complete before message 0: nothing pops until 0 is done. */
static void test_completion_order(void **state)
{
	struct mr_rxmsg *m = malloc(sizeof(*m));
	struct mr_rxmsg_info c;
	struct mr_pkt p;

	(void)state;
	mr_rxmsg_init(m, 0, 0);
	/* msn 0: PSN 0,1; msn 1: PSN 2; msn 2: PSN 3 (READ). */
	send_pkt(&p, MR_OP_SEND, 1, 10, 0, 2);
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	t_sample_pkt(&p, MR_OP_READ_REQ, 0);
	p.psn = 3;
	p.dxh.msn = 2;
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	send_pkt(&p, MR_OP_SEND, 0, 2 * MTU, 1, 0);
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	assert_false(mr_rxmsg_pop_completed(m, &c));
	send_pkt(&p, MR_OP_SEND, 0, 2 * MTU, 0, 0);
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	assert_true(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(c.msn, 0);
	assert_true(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(c.msn, 1);
	assert_true(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(c.msn, 2);
	assert_int_equal(c.opcode, MR_OP_READ_REQ);
	assert_int_equal(c.offset, 4096);
	assert_int_equal(c.msg_len, 65536);
	assert_false(mr_rxmsg_pop_completed(m, &c));
	free(m);
}

/* The same PSN again never adds bytes: the message stays incomplete. */
static void test_duplicates_not_counted(void **state)
{
	struct mr_rxmsg *m = malloc(sizeof(*m));
	struct mr_pkt p;
	int k;

	(void)state;
	mr_rxmsg_init(m, 0, 50);
	send_pkt(&p, MR_OP_SEND, 0, 3 * MTU, 0, 50);
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	/* Packet 0 three more times would fill 3 * MTU by byte sums. */
	for (k = 0; k < 3; k++)
		assert_int_equal(mr_rxmsg_add(m, &p), MR_RXMSG_DUP);
	send_pkt(&p, MR_OP_SEND, 0, 3 * MTU, 2, 50);
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	assert_int_equal(mr_rxmsg_add(m, &p), MR_RXMSG_DUP);
	assert_false(mr_rxmsg_head_complete(m));
	assert_int_equal(m->ring[0].bytes, 2 * MTU);
	/* A different PSN re-sending bytes already counted overflows. */
	send_pkt(&p, MR_OP_SEND, 0, 3 * MTU, 0, 50);
	p.psn = 53;
	p.dxh.offset = 0;
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	p.psn = 54;
	assert_int_equal(mr_rxmsg_add(m, &p), MR_ERR_RANGE);
	free(m);
}

static void test_rejects_without_change(void **state)
{
	struct mr_rxmsg *m = malloc(sizeof(*m));
	struct mr_rxmsg *before = malloc(sizeof(*m));
	struct mr_rxmsg_info c;
	struct mr_pkt p, q;

	(void)state;
	mr_rxmsg_init(m, 100, 0);
	send_pkt(&p, MR_OP_SEND, 100, 2 * MTU, 0, 0);
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	memcpy(before, m, sizeof(*m));

	/* msn before head / beyond the ring. */
	send_pkt(&q, MR_OP_SEND, 99, 10, 0, 5);
	assert_int_equal(mr_rxmsg_add(m, &q), MR_ERR_MSN_OLD);
	send_pkt(&q, MR_OP_SEND, 100 + MR_RXMSG_RING, 10, 0, 5);
	assert_int_equal(mr_rxmsg_add(m, &q), MR_ERR_MSN_RANGE);
	send_pkt(&q, MR_OP_SEND, 100 + MR_RXMSG_RING - 1, 10, 0, 5);
	assert_int_equal(mr_rxmsg_add(m, &q), 0);
	memcpy(before, m, sizeof(*m));
	/* Inconsistent msg_len / opcode / ssn for msn 100. */
	send_pkt(&q, MR_OP_SEND, 100, 2 * MTU + 1, 1, 0);
	assert_int_equal(mr_rxmsg_add(m, &q), MR_ERR_MSG_MISMATCH);
	send_pkt(&q, MR_OP_SEND_IMM, 100, 2 * MTU, 1, 0);
	assert_int_equal(mr_rxmsg_add(m, &q), MR_ERR_MSG_MISMATCH);
	send_pkt(&q, MR_OP_SEND, 100, 2 * MTU, 1, 0);
	q.dxh.ssn++;
	assert_int_equal(mr_rxmsg_add(m, &q), MR_ERR_MSG_MISMATCH);
	/* Bytes beyond msg_len (not from decode: built by hand). */
	send_pkt(&q, MR_OP_SEND, 100, 2 * MTU, 1, 0);
	q.payload_len = MTU + 1;
	assert_int_equal(mr_rxmsg_add(m, &q), MR_ERR_RANGE);
	/* Not a request / trimmed / not a PSN. */
	t_sample_pkt(&q, MR_OP_ACK, 0);
	assert_int_equal(mr_rxmsg_add(m, &q), MR_ERR_INVAL);
	t_sample_pkt(&q, MR_OP_UD_SEND, 4);
	assert_int_equal(mr_rxmsg_add(m, &q), MR_ERR_INVAL);
	send_pkt(&q, MR_OP_SEND, 100, 2 * MTU, 1, 0);
	q.flags |= MR_F_TRIM;
	assert_int_equal(mr_rxmsg_add(m, &q), MR_ERR_INVAL);
	send_pkt(&q, MR_OP_SEND, 100, 2 * MTU, 1, 0);
	q.psn |= 0x1000000;
	assert_int_equal(mr_rxmsg_add(m, &q), MR_ERR_INVAL);
	assert_int_equal(mr_rxmsg_add(m, NULL), MR_ERR_INVAL);
	assert_memory_equal(m, before, sizeof(*m));

	/* The genuine second packet still completes msn 100. */
	send_pkt(&q, MR_OP_SEND, 100, 2 * MTU, 1, 0);
	assert_int_equal(mr_rxmsg_add(m, &q), 0);
	assert_true(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(c.msn, 100);
	/* Now msn 100 is old. */
	assert_int_equal(mr_rxmsg_add(m, &q), MR_ERR_MSN_OLD);
	free(m);
	free(before);
}

static void test_zero_length_and_single_packet(void **state)
{
	struct mr_rxmsg *m = malloc(sizeof(*m));
	struct mr_rxmsg_info c;
	struct mr_pkt p, q;

	(void)state;
	mr_rxmsg_init(m, 0xFFFFFFFF, 0);
	/* Zero-length SEND: not complete before its one packet arrives. */
	assert_false(mr_rxmsg_head_complete(m));
	send_pkt(&p, MR_OP_SEND, 0xFFFFFFFF, 0, 0, 0);
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	assert_true(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(c.msn, 0xFFFFFFFF);
	assert_int_equal(mr_rxmsg_completed_msn(m), 0); /* msn wraps */

	/* ATOMIC completes on arrival; under a second PSN it is invalid. */
	t_sample_pkt(&p, MR_OP_ATOMIC_CS, 0);
	p.dxh.msn = 0;
	p.psn = 1;
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	assert_int_equal(mr_rxmsg_add(m, &p), MR_RXMSG_DUP);
	q = p;
	q.psn = 9;
	assert_int_equal(mr_rxmsg_add(m, &q), MR_ERR_MSG_MISMATCH);
	assert_true(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(c.compare, p.axh.compare);
	assert_int_equal(c.swap_add, p.axh.swap_add);
	assert_false(mr_rxmsg_pop_completed(m, NULL));
	/* READ re-request of a completed READ: an extra range. */
	t_sample_pkt(&p, MR_OP_READ_REQ, 0);
	p.dxh.msn = 0;
	p.psn = 3;
	assert_int_equal(mr_rxmsg_add(m, &p), MR_RXMSG_READ_RANGE);
	assert_int_equal(mr_rxmsg_add(m, &p), MR_RXMSG_DUP);
	/* PSN 2 missing: not executed before cum_psn passes 3. */
	assert_int_equal(mr_rxmsg_cum_psn(m), 2);
	assert_false(mr_rxmsg_pop_completed(m, &c));
	send_pkt(&q, MR_OP_SEND, 1, 5, 0, 2);
	assert_int_equal(mr_rxmsg_add(m, &q), 0);
	assert_int_equal(mr_rxmsg_cum_psn(m), 4);
	/* PSN order: the SEND (PSN 2), then the READ range (PSN 3). */
	assert_true(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(c.extra, 0);
	assert_int_equal(c.msn, 1);
	assert_true(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(c.extra, 1);
	assert_int_equal(c.msn, 0);
	assert_int_equal(c.offset, 4096);
	assert_int_equal(mr_rxmsg_completed_msn(m), 2);
	assert_false(mr_rxmsg_pop_completed(m, &c));
	/* Any other old msn is refused. */
	send_pkt(&p, MR_OP_SEND, 0, 10, 0, 6);
	assert_int_equal(mr_rxmsg_add(m, &p), MR_ERR_MSN_OLD);
	free(m);
}

/* Split READ (MR-REL-24): ranges execute in PSN order, one msn. */
static void test_split_read_psn_order(void **state)
{
	struct mr_rxmsg *m = malloc(sizeof(*m));
	struct mr_rxmsg_info c;
	struct mr_pkt r0, r1, w0;
	u32 i;

	(void)state;
	for (i = 0; i < 2; i++) {
		mr_rxmsg_init(m, 0, 0xFFFFFF);
		t_sample_pkt(&r0, MR_OP_READ_REQ, 0);
		r0.dxh.msn = 0;
		r0.dxh.offset = 0;
		r0.dxh.msg_len = 1000;
		r0.psn = 0xFFFFFF;
		r1 = r0;
		r1.dxh.offset = 1000;
		r1.psn = 0;
		send_pkt(&w0, MR_OP_WRITE, 1, 10, 0, 1);
		/* Either arrival order of the two ranges. */
		if (i == 0) {
			assert_int_equal(mr_rxmsg_add(m, &r0), 0);
			assert_int_equal(mr_rxmsg_add(m, &r1),
					 MR_RXMSG_READ_RANGE);
		} else {
			/*
			 * The later range opens the message; the earlier
			 * one, arriving, takes its place as the record (the
			 * READ's lowest PSN) and the later one is the extra
			 * range.
			 */
			assert_int_equal(mr_rxmsg_add(m, &r1), 0);
			assert_int_equal(mr_rxmsg_add(m, &r0), 0);
			assert_int_equal(m->ring[0].first_psn, 0xFFFFFF);
			assert_int_equal(m->ring[0].offset, 0);
		}
		assert_int_equal(mr_rxmsg_add(m, &w0), 0);
		/* Different va: not the same READ. */
		r1.psn = 2;
		r1.rxh.va += 8;
		assert_int_equal(mr_rxmsg_add(m, &r1), MR_ERR_MSG_MISMATCH);
		/* cum_psn past everything: PSN order 0xFFFFFF, 0, 1. */
		assert_true(mr_rxmsg_pop_completed(m, &c));
		assert_int_equal(c.offset, 0);
		assert_int_equal(c.last_psn, 0xFFFFFF);
		assert_int_equal(c.extra, 0);	/* the READ: msn counted */
		assert_true(mr_rxmsg_pop_completed(m, &c));
		assert_int_equal(c.offset, 1000);
		assert_int_equal(c.msn, 0);
		assert_int_equal(c.extra, 1);
		assert_true(mr_rxmsg_pop_completed(m, &c));
		assert_int_equal(c.opcode, MR_OP_WRITE);
		assert_int_equal(c.msn, 1);
		assert_int_equal(c.extra, 0);
		assert_false(mr_rxmsg_pop_completed(m, &c));
		assert_int_equal(mr_rxmsg_completed_msn(m), 2);
	}
	/* The extra-range queue is bounded: refusal changes nothing. */
	mr_rxmsg_init(m, 0, 0);
	t_sample_pkt(&r0, MR_OP_READ_REQ, 0);
	r0.dxh.msn = 0;
	r0.psn = 0;
	assert_int_equal(mr_rxmsg_add(m, &r0), 0);
	for (i = 1; i <= MR_RXMSG_RDX; i++) {
		r0.psn = i;
		assert_int_equal(mr_rxmsg_add(m, &r0), MR_RXMSG_READ_RANGE);
	}
	r0.psn = i;
	/* MR-REL-34: a full range queue is a transient lack (NOSPACE). */
	assert_int_equal(mr_rxmsg_add(m, &r0), MR_ERR_NOSPACE);
	free(m);
}

/*
 * Random message mix, packets in random order within the 256-PSN window,
 * with duplicates, through rxwin + rxmsg: every message completes exactly
 * once, in msn order, never before all its packets arrived.
 */
static void test_random_reorder_dups(void **state)
{
	enum { NMSG = 400, MAXP = 2048 };
	static u32 msg_len[NMSG], msg_psn0[NMSG], pkt_msg[MAXP], pkt_idx[MAXP];
	static bool arrived[MAXP];
	u64 seed = 4242;
	u32 round;

	(void)state;
	for (round = 0; round < 20; round++) {
		struct mr_rxmsg *m = malloc(sizeof(*m));
		u32 psn0 = mr_psn_sub(0, t_rand_below(&seed, 1000));
		u32 msn0 = 0xFFFFFFFF - t_rand_below(&seed, 100);
		u32 total = 0, i, next_msn = msn0, done = 0, sent = 0;
		struct mr_rxwin w;

		mr_rxwin_init(&w, psn0);
		mr_rxmsg_init(m, msn0, psn0);
		for (i = 0; i < NMSG && total < MAXP - 8; i++) {
			u32 k, n;

			msg_len[i] = t_rand_below(&seed, 5) == 0 ? 0 :
				     1 + t_rand_below(&seed, 4 * MTU);
			n = npkts(msg_len[i]);
			msg_psn0[i] = total;
			for (k = 0; k < n; k++) {
				pkt_msg[total] = i;
				pkt_idx[total] = k;
				total++;
			}
		}
		memset(arrived, 0, sizeof(arrived));
		while (done < i) {
			/* Pick a packet in [cum, cum + 256), or a dup. */
			u32 cum = mr_psn_dist(w.cum_psn, psn0);
			u32 rel = cum + t_rand_below(&seed, MR_WINDOW);
			u32 mi, psn;
			struct mr_pkt p;
			struct mr_rxmsg_info c;
			enum mr_rx_class cls;
			int rc;

			if (t_rand_below(&seed, 8) == 0 && cum > 0)
				rel = t_rand_below(&seed, cum);
			if (rel >= total)
				continue;
			mi = pkt_msg[rel];
			psn = mr_psn_add(psn0, rel);
			send_pkt(&p, mi % 3 ? MR_OP_SEND : MR_OP_WRITE,
				 msn0 + mi, msg_len[mi], pkt_idx[rel],
				 mr_psn_add(psn0, msg_psn0[mi]));
			assert_int_equal(p.psn, psn);
			sent++;
			cls = mr_rxwin_classify(&w, psn);
			assert_int_equal(cls == MR_RX_DUP, arrived[rel]);
			if (cls == MR_RX_DUP) {
				/* rxmsg also knows, or the msn is done. */
				rc = mr_rxmsg_add(m, &p);
				assert_true(rc == MR_RXMSG_DUP ||
					    rc == MR_ERR_MSN_OLD);
				continue;
			}
			assert_int_not_equal(cls, MR_RX_BEYOND);
			assert_int_equal(mr_rxmsg_add(m, &p), 0);
			assert_true(mr_rxwin_mark(&w, psn) >= 0);
			arrived[rel] = true;
			while (mr_rxmsg_pop_completed(m, &c)) {
				u32 k, idx = c.msn - msn0;

				assert_int_equal(c.extra, 0);
				assert_true(mr_psn_before(c.last_psn,
							  w.cum_psn));
				assert_int_equal(mr_rxmsg_cum_psn(m),
						 w.cum_psn);
				assert_int_equal(c.msn, next_msn);
				assert_int_equal(c.msg_len, msg_len[idx]);
				for (k = 0; k < npkts(msg_len[idx]); k++)
					assert_true(arrived[msg_psn0[idx] + k]);
				/* Earlier messages were all popped. */
				next_msn++;
				done++;
			}
		}
		assert_int_equal(mr_rxmsg_completed_msn(m), msn0 + i);
		assert_true(sent > total);
		free(m);
	}
}

/*
 * MR-VERBS-24: after an error point nothing whose PSNs reach it
 * completes, even when its packets were counted (a placement that failed
 * after counting, or packets after the point that arrived before it).
 */
static void test_stop_at_error_point(void **state)
{
	struct mr_rxmsg *m = malloc(sizeof(*m));
	struct mr_rxmsg_info c;
	struct mr_pkt p;

	(void)state;
	mr_rxmsg_init(m, 0, 500);
	/* msn 0 at 500, msn 1 at 501..502, msn 2 at 503 */
	send_pkt(&p, MR_OP_SEND, 2, 10, 0, 503);
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	send_pkt(&p, MR_OP_SEND, 1, 2 * MTU, 1, 501);
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	mr_rxmsg_stop_at(m, 502);
	mr_rxmsg_stop_at(m, 503);	/* a later point does not move it */
	send_pkt(&p, MR_OP_SEND, 0, 10, 0, 500);
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	send_pkt(&p, MR_OP_SEND, 1, 2 * MTU, 0, 501);
	assert_int_equal(mr_rxmsg_add(m, &p), 0);
	/* every byte is here and cum_psn is 504: only msn 0 completes */
	assert_int_equal(mr_rxmsg_cum_psn(m), 504);
	assert_true(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(c.msn, 0);
	assert_false(mr_rxmsg_pop_completed(m, &c));
	assert_int_equal(mr_rxmsg_completed_msn(m), 1);
	/* an earlier point still applies */
	mr_rxmsg_stop_at(m, 501);
	assert_false(mr_rxmsg_pop_completed(m, &c));
	mr_rxmsg_init(m, 0, 500);
	assert_false(m->stop_valid);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_in_order),
		cmocka_unit_test(test_multi_reordered),
		cmocka_unit_test(test_complete_needs_every_byte),
		cmocka_unit_test(test_completion_order),
		cmocka_unit_test(test_duplicates_not_counted),
		cmocka_unit_test(test_rejects_without_change),
		cmocka_unit_test(test_zero_length_and_single_packet),
		cmocka_unit_test(test_split_read_psn_order),
		cmocka_unit_test(test_random_reorder_dups),
		cmocka_unit_test(test_stop_at_error_point),
	};

	return cmocka_run_group_tests_name("rxmsg", tests, NULL, NULL);
}
