// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests of requester segmentation (segment.h): every request opcode
 * cut into packets that the decoder accepts (MR-HDR-7..16), payload at
 * the MTU with FIRST and LAST on the right packets (MR-HDR-10), ACKREQ on
 * the last packet and on retransmissions (MR-REL-12), SE only on the last
 * packet of a solicited SEND or WRITE_IMM - a retransmitted one included
 * (MR-VERBS-18) - READ ranges (MR-REL-24) and atomic operands
 * (MR-HDR-14).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "segment.h"

#define MTU	1024

static const u8 req_ops[] = {
	MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_SEND_INV, MR_OP_WRITE,
	MR_OP_WRITE_IMM, MR_OP_READ_REQ, MR_OP_ATOMIC_CS, MR_OP_ATOMIC_FA,
};

static struct mr_req_msg msg(u8 op, u32 len)
{
	struct mr_req_msg m;

	memset(&m, 0, sizeof(m));
	m.opcode = op;
	m.msn = 77;
	m.ssn = 5;
	m.length = mr_op_has(op, MR_OPA_ATOMIC) ? MR_ATOMIC_LEN : len;
	m.va = 0x7f0000001000ULL;
	m.rkey = 0xabcd;
	m.swap_add = 3;
	m.compare = 9;
	m.imm = 0x11223344;
	m.solicited = true;
	return m;
}

/* Encode @p with a payload and decode it back: the wire rules hold. */
static void roundtrip(struct mr_pkt *p)
{
	static u8 payload[MTU], buf[MR_MAX_HDR_LEN + MTU + MR_ICRC_LEN];
	struct mr_pkt q;
	int len;

	p->dqpn = 0x12;
	p->sqpn = 0x34;
	p->psn = 100;
	p->payload = payload;
	len = mr_pkt_encode(p, buf, sizeof(buf));
	assert_true(len > 0);
	assert_int_equal(mr_pkt_decode(buf, (u32)len, &q), 0);
	assert_int_equal(q.flags, p->flags);
	assert_int_equal(q.payload_len, p->payload_len);
	assert_int_equal(q.dxh.offset, p->dxh.offset);
	assert_int_equal(q.dxh.msg_len, p->dxh.msg_len);
}

/* Every opcode and size: packets decode, cover the message once. */
static void test_segment_all_ops(void **state)
{
	static const u32 lens[] = { 0, 1, MTU - 1, MTU, MTU + 1, 5 * MTU };
	struct mr_pkt p;
	u32 i, j, off, n;
	bool last;

	(void)state;
	for (i = 0; i < sizeof(req_ops); i++) {
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			struct mr_req_msg m = msg(req_ops[i], lens[j]);

			off = 0;
			n = 0;
			do {
				last = mr_req_segment(&m, off, MTU,
						      m.length, false, &p);
				roundtrip(&p);
				assert_int_equal(!!(p.flags & MR_F_FIRST),
						 off == 0);
				assert_int_equal(!!(p.flags & MR_F_LAST), last);
				assert_int_equal(!!(p.flags & MR_F_ACKREQ),
						 last);
				assert_false(p.flags & MR_F_RETX);
				assert_int_equal(p.dxh.msn, 77);
				assert_int_equal(p.dxh.ssn,
					mr_op_has(m.opcode, MR_OPA_SSN) ? 5 : 0);
				if (!last)
					assert_int_equal(p.payload_len, MTU);
				off += p.payload_len;
				n++;
			} while (!last);
			assert_int_equal(n, mr_req_npkts(&m, MTU));
			if (!mr_op_has(m.opcode, MR_OPA_ANSWERED))
				assert_int_equal(off, m.length);
		}
	}
}

/* SE: on the last packet of a solicited SEND*, WRITE_IMM only. */
static void test_segment_solicited(void **state)
{
	struct mr_req_msg m;
	struct mr_pkt p;
	u32 i;

	(void)state;
	for (i = 0; i < sizeof(req_ops); i++) {
		bool se_op = req_ops[i] != MR_OP_WRITE &&
			     !mr_op_has(req_ops[i], MR_OPA_ANSWERED);

		m = msg(req_ops[i], 2 * MTU);
		mr_req_segment(&m, 0, MTU, m.length, false, &p);
		if (!mr_op_has(m.opcode, MR_OPA_ANSWERED))
			assert_false(p.flags & MR_F_SE);
		mr_req_segment(&m, MTU, MTU, m.length, false, &p);
		assert_int_equal(!!(p.flags & MR_F_SE), se_op);
		/* a retransmitted last packet keeps it: the event is not lost */
		mr_req_segment(&m, MTU, MTU, m.length, true, &p);
		assert_int_equal(!!(p.flags & MR_F_SE), se_op);
		m.solicited = false;
		mr_req_segment(&m, MTU, MTU, m.length, true, &p);
		assert_false(p.flags & MR_F_SE);
	}
}

/* A retransmitted middle packet: RETX and ACKREQ, its own FIRST/LAST. */
static void test_segment_retx(void **state)
{
	struct mr_req_msg m = msg(MR_OP_WRITE, 3 * MTU);
	struct mr_pkt p;

	(void)state;
	assert_false(mr_req_segment(&m, MTU, MTU, 0, true, &p));
	roundtrip(&p);
	assert_int_equal(p.flags, MR_F_RETX | MR_F_ACKREQ);
	assert_int_equal(p.rxh.va, m.va);
	assert_int_equal(p.rxh.rkey, m.rkey);
	assert_int_equal(p.payload_len, MTU);
}

/* READ_REQ asks for [off, off + rlen); atomics carry their operands. */
static void test_segment_read_atomic(void **state)
{
	struct mr_req_msg m = msg(MR_OP_READ_REQ, 1 << 20);
	struct mr_pkt p;

	(void)state;
	assert_true(mr_req_segment(&m, 65536, MTU, 32768, true, &p));
	roundtrip(&p);
	assert_int_equal(p.dxh.offset, 65536);
	assert_int_equal(p.dxh.msg_len, 32768);
	assert_int_equal(p.payload_len, 0);
	assert_int_equal(p.flags, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ |
				  MR_F_RETX);

	m = msg(MR_OP_ATOMIC_FA, 0);
	assert_true(mr_req_segment(&m, 0, MTU, 0, false, &p));
	roundtrip(&p);
	assert_int_equal(p.axh.swap_add, 3);
	assert_int_equal(p.axh.compare, 0);	/* FA: zero (MR-HDR-14) */
	assert_int_equal(p.dxh.msg_len, MR_ATOMIC_LEN);
	m = msg(MR_OP_ATOMIC_CS, 0);
	mr_req_segment(&m, 0, MTU, 0, false, &p);
	assert_int_equal(p.axh.compare, 9);
	assert_int_equal(p.axh.va, m.va);

	m = msg(MR_OP_SEND_INV, 10);
	mr_req_segment(&m, 0, MTU, 0, false, &p);
	assert_int_equal(p.inv_rkey, m.imm);
	m = msg(MR_OP_WRITE_IMM, 10);
	mr_req_segment(&m, 0, MTU, 0, false, &p);
	assert_int_equal(p.imm, m.imm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segment_all_ops),
		cmocka_unit_test(test_segment_solicited),
		cmocka_unit_test(test_segment_retx),
		cmocka_unit_test(test_segment_read_atomic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
