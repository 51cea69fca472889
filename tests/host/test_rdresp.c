// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests of the responder's READ/ATOMIC state (rdresp): arrival
 * checks (MR-REL-25, MR-REL-31, MR-VERBS-15), replays only within what
 * the original covered (MR-REL-8, MR-REL-9), and READ responses handed
 * out a bounded number at a time (MR-CC-19, MR-SEC-9).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rdresp.h"
#include "rxmsg.h"
#include "txsb.h"

#define VA	0x7f0000001000ULL
#define RKEY	0x1234ab
#define PSN0	0x100

static struct mr_rdresp r;
static struct mr_rxmsg m;

static void read_req(struct mr_pkt *p, u32 psn, u32 msn, u32 off, u32 len)
{
	memset(p, 0, sizeof(*p));
	p->opcode = MR_OP_READ_REQ;
	p->flags = MR_F_FIRST | MR_F_LAST;
	p->psn = psn;
	p->dxh.msn = msn;
	p->dxh.offset = off;
	p->dxh.msg_len = len;
	p->rxh.va = VA;
	p->rxh.rkey = RKEY;
	p->path = 3;
}

static void atomic_req(struct mr_pkt *p, u32 psn, u32 msn)
{
	memset(p, 0, sizeof(*p));
	p->opcode = MR_OP_ATOMIC_FA;
	p->flags = MR_F_FIRST | MR_F_LAST;
	p->psn = psn;
	p->dxh.msn = msn;
	p->dxh.msg_len = 8;
	p->axh.va = VA + 64;
	p->axh.rkey = RKEY;
	p->axh.swap_add = 5;
}

/* Receive @p in order and execute everything that became due. */
static void arrive_and_execute(const struct mr_pkt *p)
{
	struct mr_rxmsg_info info;

	assert_int_equal(mr_rdresp_check_new(&r, &m, p, 16), 0);
	assert_true(mr_rxmsg_add(&m, p) >= 0);
	while (mr_rxmsg_pop_completed(&m, &info)) {
		if (info.opcode == MR_OP_READ_REQ)
			assert_int_equal(mr_rdresp_read(&r, &info, p->path), 0);
		else
			mr_rdresp_atomic_done(&r, &info, 1000 + info.msn);
	}
}

static void setup(void)
{
	mr_rdresp_init(&r);
	mr_rxmsg_init(&m, 0, PSN0);
}

/* Every chunk handed out, at most @budget: the bytes they cover. */
static u32 drain(u32 mtu, u32 budget, u32 *pkts, struct mr_rdresp_chunk *last)
{
	struct mr_rdresp_chunk c;
	u32 bytes = 0;

	*pkts = 0;
	while (*pkts < budget && mr_rdresp_peek(&r, mtu, &c)) {
		assert_true(c.len <= mtu);
		/* chunks end on multiples of the MTU (MR-HDR-10) */
		assert_true((c.off + c.len) % mtu == 0 || c.off + c.len == c.end);
		mr_rdresp_commit(&r, &c);
		bytes += c.len;
		(*pkts)++;
		if (last)
			*last = c;
	}
	return bytes;
}

/* MR-REL-31: a READ_REQ asks for at most 64 KiB. */
static void test_range_limit(void **state)
{
	struct mr_pkt p;

	(void)state;
	setup();
	read_req(&p, PSN0, 0, 0, MR_READ_RANGE_MAX);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 16), 0);
	read_req(&p, PSN0, 0, 0, MR_READ_RANGE_MAX + 1);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 16),
			 MR_NACK_INVALID_REQ);
	read_req(&p, PSN0, 0, 0, 0x7fffffff);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 16),
			 MR_NACK_INVALID_REQ);
}

/* MR-VERBS-15: new READ/ATOMIC messages beyond max_dest_rd_atomic. */
static void test_max_dest_rd_atomic(void **state)
{
	struct mr_pkt p;
	u32 i, n;

	(void)state;
	setup();
	/* Four READs received out of order: none executed yet. */
	for (i = 1; i <= 4; i++) {
		read_req(&p, PSN0 + i, i, 0, 4096);
		assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 4), 0);
		assert_int_equal(mr_rxmsg_add(&m, &p), 0);
	}
	assert_int_equal(mr_rxmsg_pending_rd_atomic(&m), 4);
	read_req(&p, PSN0 + 5, 5, 0, 4096);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 4),
			 MR_NACK_INVALID_REQ);
	atomic_req(&p, PSN0 + 5, 5);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 4),
			 MR_NACK_INVALID_REQ);
	/* A further range of a READ already counted is no new message. */
	read_req(&p, PSN0 + 5, 2, 4096, 4096);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 4), 0);
	/* max_dest_rd_atomic 0: no READ at all. */
	read_req(&p, PSN0 + 5, 5, 0, 4096);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 0),
			 MR_NACK_INVALID_REQ);

	/* PSN0 fills the hole: all five execute, responses still queued. */
	read_req(&p, PSN0, 0, 0, 4096);
	assert_int_equal(mr_rxmsg_add(&m, &p), 0);
	{
		struct mr_rxmsg_info info;

		while (mr_rxmsg_pop_completed(&m, &info))
			assert_int_equal(mr_rdresp_read(&r, &info, 0), 0);
	}
	assert_int_equal(mr_rxmsg_pending_rd_atomic(&m), 0);
	/* Until their responses are out they still count. */
	assert_int_equal(mr_rdresp_pending(&r, 0), 5);
	read_req(&p, PSN0 + 6, 5, 0, 4096);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 5),
			 MR_NACK_INVALID_REQ);
	drain(1024, 1000, &n, NULL);
	assert_int_equal(n, 5 * 4);
	assert_int_equal(mr_rdresp_pending(&r, 0), 0);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 5), 0);
}

/*
 * MR-REL-25: a READ_REQ for an executed msn must be a further range of a
 * READ the responder remembers, at the same va and R_Key; an atomic is
 * never re-requested under a new PSN.
 */
static void test_executed_msn(void **state)
{
	struct mr_pkt p;
	u32 n;

	(void)state;
	setup();
	read_req(&p, PSN0, 0, 0, 8192);
	arrive_and_execute(&p);
	atomic_req(&p, PSN0 + 1, 1);
	arrive_and_execute(&p);
	drain(4096, 100, &n, NULL);
	assert_int_equal(mr_rxmsg_completed_msn(&m), 2);

	/* a re-request of READ 0 (new PSN) at its va and key */
	read_req(&p, PSN0 + 2, 0, 4096, 4096);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 16), 0);
	/* ... elsewhere: refused as inconsistent (MR-PLACE-14) */
	p.rxh.va = VA + 1;
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 16),
			 MR_ERR_MSG_MISMATCH);
	read_req(&p, PSN0 + 2, 0, 0, 4096);
	p.rxh.rkey ^= 1;
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 16),
			 MR_ERR_MSG_MISMATCH);
	/* msn 1 was an atomic, not a READ; msn 7 was never seen */
	read_req(&p, PSN0 + 2, 1, 0, 8);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 16),
			 MR_NACK_INVALID_REQ);
	read_req(&p, PSN0 + 2, (u32)-7, 0, 8);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 16),
			 MR_NACK_INVALID_REQ);
	atomic_req(&p, PSN0 + 2, 1);
	assert_int_equal(mr_rdresp_check_new(&r, &m, &p, 16),
			 MR_NACK_INVALID_REQ);
}

/*
 * MR-REL-8: a duplicate READ_REQ is served again only within the ranges
 * the original READ covered, at its va and R_Key. The field case: the
 * requester's initial PSN replayed with MSN 0 asking for a whole large
 * region is refused, whatever the region's size.
 */
static void test_read_replay_bounds(void **state)
{
	struct mr_rdresp_chunk c;
	struct mr_pkt p;
	u32 n, bytes;

	(void)state;
	setup();
	read_req(&p, PSN0, 0, 0, 4096);
	arrive_and_execute(&p);
	drain(1024, 100, &n, NULL);
	assert_int_equal(n, 4);

	/* the genuine retransmission: served again, RETX set */
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_READ);
	bytes = drain(1024, 100, &n, &c);
	assert_int_equal(bytes, 4096);
	assert_true(c.flags & MR_F_RETX);
	assert_int_equal(c.psn, PSN0);
	/* a part of it */
	read_req(&p, PSN0, 0, 1024, 2048);
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_READ);
	assert_int_equal(drain(1024, 100, &n, NULL), 2048);

	/* the whole region, another range, another key: nothing */
	read_req(&p, PSN0, 0, 0, MR_READ_RANGE_MAX);
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_DROP);
	read_req(&p, PSN0, 0, 0, 0x7fffffff);
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_DROP);
	read_req(&p, PSN0, 0, 2048, 4096);
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_DROP);
	read_req(&p, PSN0, 0, 0, 4096);
	p.rxh.va += 4096;
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_DROP);
	read_req(&p, PSN0, 0, 0, 4096);
	p.rxh.rkey = RKEY + 0x100;
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_DROP);
	/* an msn not executed yet, or never a READ */
	read_req(&p, PSN0, 1, 0, 16);
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_DROP);
	assert_int_equal(r.st.replay_drops, 6);
	assert_false(mr_rdresp_busy(&r));

	/* a further range widens what replays may ask for */
	read_req(&p, PSN0 + 1, 0, 4096, 4096);
	arrive_and_execute(&p);
	drain(1024, 100, &n, NULL);
	read_req(&p, PSN0 + 1, 0, 0, 8192);
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_READ);
	assert_int_equal(drain(4096, 100, &n, NULL), 8192);
}

/* MR-REL-9, MR-VERBS-14: duplicate atomics from the cache, by PSN. */
static void test_atomic_replay(void **state)
{
	struct mr_pkt p;
	u64 orig = 0;
	u32 i;

	(void)state;
	setup();
	for (i = 0; i < 3; i++) {
		atomic_req(&p, PSN0 + i, i);
		arrive_and_execute(&p);
	}
	atomic_req(&p, PSN0 + 1, 1);
	assert_int_equal(mr_rdresp_replay(&r, &p, 3, &orig), MR_REPLAY_ATOMIC);
	assert_int_equal(orig, 1001);
	/* same msn, other PSN or operand address: a miss, never executed */
	atomic_req(&p, PSN0 + 2, 1);
	assert_int_equal(mr_rdresp_replay(&r, &p, 3, &orig), MR_REPLAY_DROP);
	atomic_req(&p, PSN0 + 1, 1);
	p.axh.va += 8;
	assert_int_equal(mr_rdresp_replay(&r, &p, 3, &orig), MR_REPLAY_DROP);
	assert_int_equal(r.st.atomic_miss, 2);

	/* the cache keeps the last MR_RDRESP_RECS executed requests */
	for (i = 3; i < 3 + MR_RDRESP_RECS; i++) {
		atomic_req(&p, PSN0 + i, i);
		arrive_and_execute(&p);
	}
	atomic_req(&p, PSN0 + 2, 2);
	assert_int_equal(mr_rdresp_replay(&r, &p, 3 + MR_RDRESP_RECS, &orig),
			 MR_REPLAY_DROP);
	atomic_req(&p, PSN0 + 3, 3);
	assert_int_equal(mr_rdresp_replay(&r, &p, 3 + MR_RDRESP_RECS, &orig),
			 MR_REPLAY_ATOMIC);
	assert_int_equal(orig, 1003);
}

/*
 * MR-SEC-9, MR-CC-19: responses are handed out one chunk at a time; a
 * caller with a budget of 16 builds 16 packets however much was asked,
 * and the queue holds a bounded number of ranges.
 */
static void test_bounded_generation(void **state)
{
	struct mr_rdresp_chunk c;
	struct mr_pkt p;
	u32 i, n, total = 0, bytes = 0;

	(void)state;
	setup();
	for (i = 0; i < 8; i++) {
		read_req(&p, PSN0 + i, i, 0, MR_READ_RANGE_MAX);
		arrive_and_execute(&p);
	}
	while (mr_rdresp_busy(&r)) {
		bytes += drain(256, 16, &n, NULL);
		assert_true(n <= 16);
		total += n;
	}
	assert_int_equal(bytes, 8 * MR_READ_RANGE_MAX);
	assert_int_equal(total, 8 * MR_READ_RANGE_MAX / 256);
	assert_int_equal(r.st.packets, total);

	/* peek without commit changes nothing; abort drops the head job */
	read_req(&p, PSN0 + 8, 8, 100, 1000);
	arrive_and_execute(&p);
	assert_true(mr_rdresp_peek(&r, 256, &c));
	assert_int_equal(c.off, 100);
	assert_int_equal(c.len, 156);
	assert_int_equal(c.flags, 0);
	assert_true(mr_rdresp_peek(&r, 256, &c));
	assert_int_equal(c.off, 100);
	mr_rdresp_abort(&r);
	assert_false(mr_rdresp_busy(&r));

	/* a zero-length READ is one empty READ_RESP, FIRST|LAST */
	read_req(&p, PSN0 + 9, 9, 0, 0);
	arrive_and_execute(&p);
	assert_true(mr_rdresp_peek(&r, 256, &c));
	assert_int_equal(c.len, 0);
	assert_int_equal(c.flags, MR_F_FIRST | MR_F_LAST);
	mr_rdresp_commit(&r, &c);
	assert_false(mr_rdresp_busy(&r));

	/* a full queue refuses further ranges and counts them */
	for (i = 0; i < MR_RDRESP_JOBS + 3; i++) {
		struct mr_rxmsg_info info = {
			.opcode = MR_OP_READ_REQ, .msn = 1000 + i,
			.va = VA, .rkey = RKEY, .msg_len = 8,
		};

		assert_int_equal(mr_rdresp_read(&r, &info, 0),
				 i < MR_RDRESP_JOBS ? 0 : MR_ERR_NOSPACE);
	}
	assert_int_equal(r.st.job_drops, 3);
	mr_rdresp_clear_jobs(&r);
	assert_false(mr_rdresp_busy(&r));
	assert_int_equal(mr_rdresp_pending(&r, 0), 0);
}

/*
 * A re-request or replay of bytes a queued job still has to send adds no
 * job: the bytes leave once, and a requester that asks again while
 * responses are paced cannot fill the queue.
 */
static void test_covered_not_queued_twice(void **state)
{
	struct mr_pkt p;
	u32 n;

	(void)state;
	setup();
	read_req(&p, PSN0, 0, 0, 8192);
	arrive_and_execute(&p);
	/* two chunks out, [2048, 8192) still queued */
	drain(1024, 2, &n, NULL);
	read_req(&p, PSN0 + 1, 0, 2048, 4096);
	arrive_and_execute(&p);
	read_req(&p, PSN0, 0, 4096, 4096);
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_READ);
	assert_int_equal(r.st.covered, 2);
	assert_int_equal(drain(1024, 100, &n, NULL), 6144);
	/* once sent, asking again queues it again */
	read_req(&p, PSN0 + 2, 0, 2048, 1024);
	arrive_and_execute(&p);
	assert_int_equal(drain(1024, 100, &n, NULL), 1024);
}

/*
 * MR-REL-8, MR-REL-32: the record is the union of the ranges served, not
 * their hull: a duplicate asking for a gap between two executed ranges
 * of one READ gets nothing.
 */
static void test_replay_not_in_gaps(void **state)
{
	struct mr_pkt p;
	u32 n;

	(void)state;
	setup();
	read_req(&p, PSN0, 0, 0, 16384);
	arrive_and_execute(&p);
	read_req(&p, PSN0 + 1, 0, 49152, 16384);
	arrive_and_execute(&p);
	drain(4096, 100, &n, NULL);
	read_req(&p, PSN0, 0, 20480, 4096);
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_DROP);
	read_req(&p, PSN0, 0, 0, 65536);
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_DROP);
	read_req(&p, PSN0 + 1, 0, 49152, 8192);
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_READ);
	/* the range that fills the gap joins them */
	read_req(&p, PSN0 + 2, 0, 16384, 32768);
	arrive_and_execute(&p);
	drain(4096, 100, &n, NULL);
	read_req(&p, PSN0, 0, 20480, 4096);
	assert_int_equal(mr_rdresp_replay(&r, &p, 1, NULL), MR_REPLAY_READ);
}

/*
 * The response packets the responders build from rdresp: a READ_RESP
 * from a chunk and an ATOMIC_RESP encode and decode to the same headers
 * (MR-HDR-10); an atomic's result (MR-HDR-14).
 */
static void test_response_packets(void **state)
{
	struct mr_rdresp_chunk c = {
		.msn = 7, .psn = 0x123456, .off = 1024, .len = 512,
		.end = 4096, .flags = MR_F_RETX, .path = 3,
	};
	u8 buf[MR_MAX_HDR_LEN + 512 + MR_ICRC_LEN], pl[512] = { 0 };
	struct mr_pkt r, d;
	int n;

	(void)state;
	mr_rdresp_read_pkt(&c, &r);
	r.dqpn = 9;
	r.payload = pl;
	n = mr_pkt_encode(&r, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(mr_pkt_decode(buf, (u32)n, &d), 0);
	assert_int_equal(d.opcode, MR_OP_READ_RESP);
	assert_int_equal(d.psn, c.psn);
	assert_int_equal(d.path, c.path);
	assert_int_equal(d.flags & MR_F_RETX, MR_F_RETX);
	assert_int_equal(d.dxh.msn, 7);
	assert_int_equal(d.dxh.offset, 1024);
	assert_int_equal(d.dxh.msg_len, 4096);
	assert_int_equal(d.payload_len, 512);

	mr_rdresp_atomic_pkt(8, 0x42, 5, 0x1122334455667788ULL, false, &r);
	r.dqpn = 9;
	n = mr_pkt_encode(&r, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(mr_pkt_decode(buf, (u32)n, &d), 0);
	assert_int_equal(d.opcode, MR_OP_ATOMIC_RESP);
	assert_int_equal(d.psn, 0x42);
	assert_int_equal(d.path, 5);
	assert_int_equal(d.flags & MR_F_RETX, 0);
	assert_int_equal(d.dxh.msn, 8);
	assert_int_equal(d.dxh.msg_len, MR_ATOMIC_LEN);
	assert_true(d.atomic_orig == 0x1122334455667788ULL);

	assert_true(mr_atomic_result(MR_OP_ATOMIC_FA, 5, 3, 0) == 8);
	assert_true(mr_atomic_result(MR_OP_ATOMIC_FA, ~0ULL, 2, 0) == 1);
	assert_true(mr_atomic_result(MR_OP_ATOMIC_CS, 5, 9, 5) == 9);
	assert_true(mr_atomic_result(MR_OP_ATOMIC_CS, 5, 9, 6) == 5);
}

/* What the pump's build callback does: scripted results, bytes seen. */
static struct {
	int fail_at, fail_rc;	/* the fail_at-th call returns fail_rc */
	u32 calls, bytes;
} pb;

static int pump_build(void *ctx, const struct mr_rdresp_chunk *ch)
{
	(void)ctx;
	if (++pb.calls == (u32)pb.fail_at)
		return pb.fail_rc;
	pb.bytes += ch->len;
	return 0;
}

/*
 * The READ response pass every responder runs: at most a budget per pass
 * (MR-SEC-9), paced at the gap with a burst of slack (MR-CC-19), a
 * failed allocation retried later with the chunk kept, an unreadable
 * range's job dropped (MR-LOSS-14).
 */
static void test_pump(void **state)
{
	const u64 gap = 10 * 1000, slack = 20 * 1000;
	struct mr_pkt p;
	u64 now = 1000 * 1000, due;

	(void)state;
	setup();
	memset(&pb, 0, sizeof(pb));
	read_req(&p, PSN0, 0, 0, 4096);
	arrive_and_execute(&p);
	/* budget 2 of 16 pieces, no pacing: due again now */
	assert_true(mr_rdresp_pump(&r, 256, 2, now, 0, 0, pump_build, NULL) ==
		    now);
	assert_int_equal(pb.bytes, 512);
	/*
	 * paced from idle: the schedule starts slack behind now and may run
	 * slack ahead, a burst of 2 * slack / gap + 1; then due when the
	 * next slot is within slack again
	 */
	due = mr_rdresp_pump(&r, 256, 64, now, gap, slack, pump_build, NULL);
	assert_int_equal(pb.bytes, 512 + 5 * 256);
	assert_true(due == now + slack + gap);
	assert_true(mr_rdresp_pump(&r, 256, 64, now + gap - 1, gap, slack,
				   pump_build, NULL) == due);
	assert_int_equal(pb.bytes, 512 + 5 * 256);
	/* a slot later one more piece may go */
	assert_true(mr_rdresp_pump(&r, 256, 64, now + gap, gap, slack,
				   pump_build, NULL) == due + gap);
	assert_int_equal(pb.bytes, 512 + 6 * 256);
	/* no memory on the next piece: nothing lost, retried later */
	pb.fail_at = pb.calls + 1;
	pb.fail_rc = MR_RDRESP_NOMEM;
	assert_true(mr_rdresp_pump(&r, 256, 64, due, 0, 0, pump_build, NULL) ==
		    due + MR_RDRESP_NOMEM_NS);
	assert_int_equal(pb.bytes, 512 + 6 * 256);
	assert_true(mr_rdresp_pump(&r, 256, 64, due, 0, 0, pump_build, NULL) ==
		    MR_TIME_NEVER);
	assert_int_equal(pb.bytes, 4096);
	assert_false(mr_rdresp_busy(&r));

	/* the region went away: the job is dropped, the next one served */
	read_req(&p, PSN0 + 1, 1, 0, 1024);
	arrive_and_execute(&p);
	read_req(&p, PSN0 + 2, 2, 0, 512);
	arrive_and_execute(&p);
	pb.bytes = 0;
	pb.fail_at = pb.calls + 1;
	pb.fail_rc = MR_RDRESP_GONE;
	assert_true(mr_rdresp_pump(&r, 256, 64, due, 0, 0, pump_build, NULL) ==
		    MR_TIME_NEVER);
	assert_int_equal(pb.bytes, 512);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range_limit),
		cmocka_unit_test(test_max_dest_rd_atomic),
		cmocka_unit_test(test_executed_msn),
		cmocka_unit_test(test_read_replay_bounds),
		cmocka_unit_test(test_atomic_replay),
		cmocka_unit_test(test_bounded_generation),
		cmocka_unit_test(test_covered_not_queued_twice),
		cmocka_unit_test(test_replay_not_in_gaps),
		cmocka_unit_test(test_response_packets),
		cmocka_unit_test(test_pump),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
