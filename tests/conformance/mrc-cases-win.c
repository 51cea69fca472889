// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-conform cases of the responder's receive window and timestamps
 * (WIN), its ACK timing (REL), placement and execution order (PLACE) and
 * the responder's verbs rules (VERBS): the tester sends requests to a
 * DUT QP, as in mrc-cases-resp.c, and checks answers, memory and
 * completions.
 */
#include <stdlib.h>
#include <string.h>

#include "mr-conform.h"

/* A one-packet WRITE of @len bytes at MR 0 offset @moff, PSN @psn, MSN
 * @msn, MBH.ts @ts, ACKREQ set; mem0 not updated. */
static void tx_write_ts(const struct tqp *q, uint32_t psn, uint32_t msn, uint32_t moff,
			const uint8_t *pl, uint32_t len, uint32_t ts)
{
	struct mr_pkt p;

	req_fill(&p, q, MR_OP_WRITE, psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.ts = ts;
	p.dxh.msn = msn;
	p.dxh.msg_len = len;
	p.rxh.va = DUT.addr0 + moff;
	p.rxh.rkey = DUT.rkey0;
	p.payload = pl;
	p.payload_len = len;
	tx_pkt(&p);
}

/* ------------------------------------------------------------------ */
/* WIN: serial numbers, wraparound, the window's edge                 */

static void c_psn_wrap(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[4 * PMTU];
	uint32_t ts, base = 0xFFFFFE;
	static const uint32_t s2[] = { 2 }, s23[] = { 2, 3 }, s12[] = { 1, 2 };
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open_at(t, &q, ACC_ALL, base))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	/* A 4-packet WRITE on PSNs 0xFFFFFE, 0xFFFFFF, 0, 1: the third
	 * first (SACK bit 2 across the wrap), then the fourth. */
	ts = tx_write(&q, MR_OP_WRITE, 0, 0, 40000, sizeof(pl), 2, pl, MR_F_ACKREQ, DUT.rkey0);
	e = ack_of(&q, base, 0, ts);
	e.sacked = s2;
	e.n_sacked = 1;
	ack_expect(t, &q, "ACK of PSN 0 with cum_psn 0xfffffe", &e);
	ts = tx_write(&q, MR_OP_WRITE, 1, 0, 40000, sizeof(pl), 3, pl, MR_F_ACKREQ, DUT.rkey0);
	e = ack_of(&q, base, 0, ts);
	e.sacked = s23;
	e.n_sacked = 2;
	ack_expect(t, &q, "ACK of PSN 1", &e);
	ts = tx_write(&q, MR_OP_WRITE, base, 0, 40000, sizeof(pl), 0, pl, MR_F_ACKREQ, DUT.rkey0);
	e = ack_of(&q, 0xFFFFFF, 0, ts);
	e.sacked = s12;
	e.n_sacked = 2;
	ack_expect(t, &q, "ACK of PSN 0xfffffe: cum_psn 0xffffff, bits 1 and 2", &e);
	ts = tx_write(&q, MR_OP_WRITE, 0xFFFFFF, 0, 40000, sizeof(pl), 1, pl, MR_F_ACKREQ,
		      DUT.rkey0);
	e = ack_of(&q, 2, 1, ts);
	ack_expect(t, &q, "ACK of PSN 0xffffff: cum_psn 2, the message complete", &e);
	memcpy(mem0 + 40000, pl, sizeof(pl));
	mem_check(t, "a WRITE across the PSN wrap", "MR-WIN-4");
	q.psn = 2;
	q.msn = 1;
	write_ok(t, &q, 100, 64, "ACK of the next WRITE after the wrap");
	tqp_close(&q);
}

static void c_window_edge(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[64];
	uint32_t ts;
	static const uint32_t s255[] = { 255 }, s254[] = { 254 };
	struct ack_expect e;
	uint64_t c0 = counter_now("psn");

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	/* cum_psn + 255: the window's last PSN, accepted (one-packet
	 * messages before it: its MSN is 255). */
	ts = tx_write(&q, MR_OP_WRITE, q.psn + 255, 255, 50000, sizeof(pl), 0, pl, MR_F_ACKREQ,
		      DUT.rkey0);
	memcpy(mem0 + 50000, pl, sizeof(pl));
	e = ack_of(&q, q.psn, 0, ts);
	e.sacked = s255;
	e.n_sacked = 1;
	ack_expect(t, &q, "ACK of cum_psn + 255 with SACK bit 255", &e);
	mem_check(t, "cum_psn + 255 placed", "MR-WIN-2");
	/* cum_psn + 256: beyond the 256-PSN window. */
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = tx_write(&q, MR_OP_WRITE, q.psn + 256, 256, 51000, sizeof(pl), 0, pl, MR_F_ACKREQ,
		      DUT.rkey0);
	e = nack_of(&q, q.psn, 0, ts, MR_NACK_SEQ_ERR, q.psn + 256);
	e.sacked = s255;
	e.n_sacked = 1;
	ack_expect(t, &q, "NACK SEQ_ERR for cum_psn + 256", &e);
	mem_check(t, "cum_psn + 256 placed", "MR-WIN-1, MR-WIN-2");
	counter_moved(t, "psn", c0, "MR-WIN-2");
	/* The bitmap slides with cum_psn: bit 255 becomes bit 254. */
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = tx_write(&q, MR_OP_WRITE, q.psn, 0, 52000, sizeof(pl), 0, pl, MR_F_ACKREQ, DUT.rkey0);
	memcpy(mem0 + 52000, pl, sizeof(pl));
	e = ack_of(&q, q.psn + 1, 1, ts);
	e.sacked = s254;
	e.n_sacked = 1;
	ack_expect(t, &q, "ACK of cum_psn: the SACK bit moved to 254", &e);
	mem_check(t, "after the WRITE at cum_psn", "MR-WIN-2");
	tqp_close(&q);
}

/* A WRITE of @q's next PSN stamped @ts_delta us from now: dropped
 * silently, nothing placed, counter @cnt moved (MR-WIN-6). */
static void ts_dropped(struct tctx *t, const struct tqp *q, const uint8_t *pl, uint32_t len,
		       int32_t ts_delta, const char *cnt, const char *what)
{
	uint64_t c0 = counter_now(cnt);

	tx_write_ts(q, q->psn, q->msn, 1000, pl, len, ts_now() + (uint32_t)ts_delta);
	expect_silence(t, q, what, "MR-WIN-6");
	mem_check(t, what, "MR-WIN-6");
	counter_moved(t, cnt, c0, "MR-WIN-6");
}

/* MBH.ts: stale and future timestamps, and their serial order. */
static void c_ts_stale_future(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[64];
	uint32_t ts;
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	write_ok(t, &q, 0, 64, "ACK of a WRITE with the current timestamp");
	/* 200 ms before the newest accepted (stale_age 100 ms), 3 s in the
	 * future (future_age 1 s). */
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts_dropped(t, &q, pl, sizeof(pl), -200000, "ts_stale",
		   "a request stamped 200 ms before the newest");
	ts_dropped(t, &q, pl, sizeof(pl), 3000000, "future", "a request stamped 3 s in the future");
	/* The PSN is still new: taken with a good timestamp. */
	ts = ts_now();
	tx_write_ts(&q, q.psn, q.msn, 1000, pl, sizeof(pl), ts);
	memcpy(mem0 + 1000, pl, sizeof(pl));
	e = ack_of(&q, q.psn + 1, q.msn + 1, ts);
	ack_expect(t, &q, "ACK of the PSN with a current timestamp", &e);
	mem_check(t, "after the WRITE", "MR-WIN-6");
	tqp_close(&q);
}

static void c_ts_wrap(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[64];
	uint32_t ts = 0xFFFFFF00u;
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	/* The tester's clock 256 us before 2^32, then 512 us later: after
	 * it in serial order, although smaller as an unsigned number. */
	for (int i = 0; i < 2; i++) {
		mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
		tx_write_ts(&q, q.psn, q.msn, 2000 + 100 * (uint32_t)i, pl, sizeof(pl), ts);
		memcpy(mem0 + 2000 + 100 * i, pl, sizeof(pl));
		q.psn = (q.psn + 1) & MR_PSN_MASK;
		q.msn++;
		e = ack_of(&q, q.psn, q.msn, ts);
		ack_expect(t, &q, i ? "ACK of the request stamped after 2^32 wrapped" :
			   "ACK of the request stamped just before 2^32", &e);
		ts += 0x200;
		net_pump(0.001);
	}
	mem_check(t, "after the two WRITEs", "MR-WIN-5");
	tqp_close(&q);
}

static void c_ts_resync(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[64];
	uint32_t ts;
	uint64_t f0;
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	/* The first request was delayed 5 s on the way: its timestamp is
	 * the reference, and every genuine request then looks 5 s ahead. */
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = ts_now() - 5000000;
	tx_write_ts(&q, q.psn, 0, 3000, pl, sizeof(pl), ts);
	memcpy(mem0 + 3000, pl, sizeof(pl));
	q.psn = (q.psn + 1) & MR_PSN_MASK;
	q.msn = 1;
	e = ack_of(&q, q.psn, 1, ts);
	ack_expect(t, &q, "ACK of the delayed request", &e);
	f0 = counter_now("future");
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	tx_write_ts(&q, q.psn, 1, 3100, pl, sizeof(pl), ts_now());
	expect_silence(t, &q, "a genuine request after the delayed one", "MR-WIN-6");
	counter_moved(t, "future", f0, "MR-WIN-6");
	/* Only future drops for more than future_age (1 s): the responder
	 * resynchronises and the next request is taken. */
	for (int i = 0; i < 3; i++) {
		net_pump(0.5);
		tx_write_ts(&q, q.psn, 1, 3100, pl, sizeof(pl), ts_now());
	}
	ts = ts_now();
	tx_write_ts(&q, q.psn, 1, 3100, pl, sizeof(pl), ts);
	memcpy(mem0 + 3100, pl, sizeof(pl));
	{
		struct rxpkt r;
		bool acked = false;

		while (!acked && rx_take(q.my_qpn, MR_OP_ACK, WAIT_RESP, &r))
			acked = r.p.akh.cum_psn == ((q.psn + 1) & MR_PSN_MASK);
		EXPECT(t, acked, "no ACK of the request after 1.5 s of future drops (MR-WIN-6 resynchronisation)");
	}
	mem_check(t, "after the resynchronisation", "MR-WIN-6");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* REL: the delayed ACK, MSNs, READ ranges, records                   */

static void c_ack_delay(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[64];
	double t0, rtt, d;
	struct rxpkt r;
	struct mr_pkt p;
	/* The spec's ack_delay of the software profile (parameter table). */
	const double ack_delay = 500e-6, slack = 0.01 * O.slow;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	/* The round trip of an immediate ACK, the least of three. */
	rtt = 1e9;
	for (int i = 0; i < 3; i++) {
		t0 = now_s();
		write_ok(t, &q, 64 * (uint32_t)i, 64, "ACK of a WRITE with ACKREQ");
		if (now_s() - t0 < rtt)
			rtt = now_s() - t0;
	}
	/* One packet without ACKREQ: only the delayed-ACK timer answers. */
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	req_fill(&p, &q, MR_OP_WRITE, q.psn, MR_F_FIRST | MR_F_LAST);
	p.dxh.msn = q.msn;
	p.dxh.msg_len = sizeof(pl);
	p.rxh.va = DUT.addr0 + 500;
	p.rxh.rkey = DUT.rkey0;
	p.payload = pl;
	p.payload_len = sizeof(pl);
	t0 = now_s();
	tx_pkt(&p);
	memcpy(mem0 + 500, pl, sizeof(pl));
	REQUIRE(t, rx_take(q.my_qpn, MR_OP_ACK, WAIT_RESP, &r),
		"no ACK within %.1f s of a packet without ACKREQ (MR-REL-13, MR-REL-3 g)",
		WAIT_RESP * O.slow);
	d = r.t - t0;
	diag("round trip %.1f ms, delayed ACK after %.1f ms", rtt * 1e3, d * 1e3);
	EXPECT(t, d <= 2 * rtt + ack_delay + slack,
	       "the delayed ACK came %.1f ms after the packet; bound: ack_delay 0.5 ms + 2 immediate-ACK round trips %.1f ms + %.0f ms tolerance (MR-REL-13)",
	       d * 1e3, 2 * rtt * 1e3, slack * 1e3);
	EXPECT(t, r.p.akh.cum_psn == ((q.psn + 1) & MR_PSN_MASK) && r.p.akh.ts_echo == p.ts,
	       "the delayed ACK has cum_psn %#x ts_echo %#x, want %#x %#x", r.p.akh.cum_psn,
	       r.p.akh.ts_echo, (q.psn + 1) & MR_PSN_MASK, p.ts);
	mem_check(t, "after the WRITE", "MR-REL-13");
	tqp_close(&q);
}

/* A request whose MSN is further ahead than its PSN: INVALID_REQ. */
static void c_msn_ahead(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[64];
	uint32_t ts;
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	write_ok(t, &q, 0, 64, "ACK of the first WRITE");
	/* At cum_psn, so no message can be incomplete before it, with the
	 * MSN after the next expected one. */
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = tx_write(&q, MR_OP_WRITE, q.psn, q.msn + 1, 800, sizeof(pl), 0, pl, MR_F_ACKREQ,
		      DUT.rkey0);
	e = nack_of(&q, q.psn, q.msn, ts, MR_NACK_INVALID_REQ, q.psn);
	ack_expect(t, &q, "NACK INVALID_REQ for an MSN one ahead at cum_psn", &e);
	mem_check(t, "a request with a skipped MSN was placed", "MR-REL-25");
	expect_state(t, &q, "ERR", "MR-REL-25");
	tqp_close(&q);
}

static void c_read_range_limit(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	struct rxpkt r;
	struct ack_expect e;
	uint32_t mrr = 65536;
	uint64_t rkey, addr;
	const char *a;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	if (q.have_hello && q.hello.p.hlh.max_read_range)
		mrr = q.hello.p.hlh.max_read_range;
	REQUIRE(t, mrr <= MRC_MR_MAX_LEN - 4096, "max_read_range %u: no MR of the agent holds it", mrr);
	/* MR 31: room for the limit and one byte more, so the range check
	 * passes and only the length is wrong. */
	a = agent("MR 31 %u 0x%x 3", mrr + 4096, ACC_ALL);
	REQUIRE(t, a && kv_u64(a, "rkey", &rkey) && kv_u64(a, "addr", &addr),
		"agent: MR 31: %s", agent_err);
	req_fill(&p, &q, MR_OP_READ_REQ, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msg_len = mrr + 1;
	p.rxh.va = addr;
	p.rxh.rkey = (uint32_t)rkey;
	tx_pkt(&p);
	e = nack_of(&q, q.psn, 0, p.ts, MR_NACK_INVALID_REQ, q.psn);
	ack_expect(t, &q, "NACK INVALID_REQ for a READ of max_read_range + 1 bytes", &e);
	EXPECT(t, !rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_SILENT, &r),
	       "a READ_RESP for a READ over max_read_range (MR-REL-31)");
	expect_state(t, &q, "ERR", "MR-REL-31");
	tqp_close(&q);
}

/* The records of the last max_dest_rd_atomic (16) atomics. */
static void c_atomic_records(struct tctx *t)
{
	struct tqp q;
	uint64_t first = 0, o, w;
	unsigned int i;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	for (i = 0; i < 16; i++) {
		w = word_at(256);
		if (!atomic_rt(t, &q, MR_OP_ATOMIC_FA, q.psn + i, 256, 3, 0, 0, &o))
			goto out;
		EXPECT(t, o == w, "FETCH_ADD %u orig %#llx, want %#llx", i, (unsigned long long)o,
		       (unsigned long long)w);
		if (!i)
			first = o;
		word_put(256, w + 3);
		q.msn++;
	}
	net_pump(0.1);
	rx_flush();
	/* The first again (RETX): the 16th most recent, still recorded. */
	q.msn = 0;
	if (atomic_rt(t, &q, MR_OP_ATOMIC_FA, q.psn, 256, 3, 0, MR_F_RETX, &o))
		EXPECT(t, o == first, "the oldest of 16 atomics replayed orig %#llx, want the recorded %#llx (MR-REL-32)",
		       (unsigned long long)o, (unsigned long long)first);
	net_pump(0.1);
	mem_check(t, "a replayed atomic executed again", "MR-REL-32");
out:
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* PLACE and VERBS: execution order, limits, zero lengths             */

/* A READ_REQ at @psn with MSN @msn of @len bytes at MR 0 offset @moff. */
static void tx_read(const struct tqp *q, uint32_t psn, uint32_t msn, uint32_t moff, uint32_t len)
{
	struct mr_pkt p;

	req_fill(&p, q, MR_OP_READ_REQ, psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msn = msn;
	p.dxh.msg_len = len;
	p.rxh.va = DUT.addr0 + moff;
	p.rxh.rkey = DUT.rkey0;
	tx_pkt(&p);
}

static void c_read_deferred(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r;
	uint8_t pl[512];
	uint32_t ts;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	/* The READ (PSN + 1) before the WRITE (PSN) that precedes it. */
	tx_read(&q, q.psn + 1, 1, 14000, sizeof(pl));
	REQUIRE(t, rx_take(q.my_qpn, 0, WAIT_RESP, &r), "no answer to the READ_REQ after a hole");
	EXPECT(t, r.p.opcode == MR_OP_ACK && r.p.akh.cum_psn == q.psn &&
	       mr_sack_test(r.p.akh.sack, 1),
	       "the READ_REQ after a hole: opcode %#x cum_psn %#x, want an ACK with cum_psn %#x and SACK bit 1 (MR-PLACE-16)",
	       r.p.opcode, r.p.akh.cum_psn, q.psn);
	EXPECT(t, !rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_SILENT, &r),
	       "the READ executed before the PSN before it arrived (MR-PLACE-16, MR-VERBS-8)");
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = tx_write(&q, MR_OP_WRITE, q.psn, 0, 14000, sizeof(pl), 0, pl, MR_F_ACKREQ, DUT.rkey0);
	(void)ts;
	memcpy(mem0 + 14000, pl, sizeof(pl));
	REQUIRE(t, rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_RESP, &r),
		"no READ_RESP once the hole before the READ was filled (MR-PLACE-16)");
	EXPECT(t, r.p.psn == ((q.psn + 1) & MR_PSN_MASK) && r.p.payload_len == sizeof(pl) &&
	       !memcmp(r.p.payload, pl, sizeof(pl)),
	       "the READ_RESP (psn %#x, %u bytes) does not carry the WRITE placed before it (MR-VERBS-8)",
	       r.p.psn, r.p.payload_len);
	net_pump(0.1);
	mem_check(t, "after the WRITE and the READ", "MR-PLACE-16");
	tqp_close(&q);
}

/*
 * A READ asked for in two ranges, the second sent after a WRITE, as a
 * requester spraying its ranges over paths does (MR-MP-28): the second
 * range arrives first, then the WRITE, then the first range. Whichever
 * arrived first, the range with the lowest PSN starts the READ
 * (MR-REL-24, MR-REL-25) and every request executes at its PSN
 * (MR-PLACE-16): the first range before the WRITE, the second after it,
 * so the second's READ_RESP carries what the WRITE placed.
 */
static void c_read_ranges_any_order(struct tctx *t)
{
	const uint32_t moff = 24576, half = 512;
	uint8_t old[512], pl[512];
	bool got[2] = { false, false }, nack = false;
	struct tqp q;
	struct rxpkt r;
	struct mr_pkt p;
	uint32_t k;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	memcpy(old, mem0 + moff, half);
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	/* The READ's second range at PSN + 2. */
	req_fill(&p, &q, MR_OP_READ_REQ, q.psn + 2, MR_F_FIRST | MR_F_LAST);
	p.dxh.msn = 0;
	p.dxh.offset = half;
	p.dxh.msg_len = half;
	p.rxh.va = DUT.addr0 + moff;
	p.rxh.rkey = DUT.rkey0;
	tx_pkt(&p);
	/* The WRITE at PSN + 1 over the second range's bytes. */
	tx_write(&q, MR_OP_WRITE, q.psn + 1, 1, moff + half, sizeof(pl), 0, pl, 0, DUT.rkey0);
	memcpy(mem0 + moff + half, pl, sizeof(pl));
	/* The READ's first range at PSN, last. */
	p.psn = q.psn & MR_PSN_MASK;
	p.flags |= MR_F_ACKREQ;
	p.dxh.offset = 0;
	tx_pkt(&p);
	while ((!got[0] || !got[1]) && !nack && rx_take(q.my_qpn, 0, WAIT_RESP, &r)) {
		if (r.p.opcode == MR_OP_NACK) {
			nack = true;
			fail_at(t, __LINE__, "NACK reason %u at psn %#x for a READ whose first range arrived last (MR-REL-24, MR-REL-25)",
				r.p.nkh.reason, r.p.nkh.nack_psn);
		}
		if (r.p.opcode != MR_OP_READ_RESP)
			continue;
		k = (r.p.psn - q.psn) & MR_PSN_MASK;
		if (k == 0) {
			EXPECT(t, r.p.dxh.offset == 0 && r.p.payload_len == half &&
			       !memcmp(r.p.payload, old, half),
			       "READ_RESP for the first range: offset %u len %u, want 0 %u with the bytes before the WRITE (MR-PLACE-16)",
			       r.p.dxh.offset, r.p.payload_len, half);
			got[0] = true;
		} else if (k == 2) {
			EXPECT(t, r.p.dxh.offset == half && r.p.payload_len == half &&
			       !memcmp(r.p.payload, pl, half),
			       "READ_RESP for the second range: offset %u len %u, want %u %u with the WRITE's bytes: it executed before the WRITE that precedes it (MR-PLACE-16)",
			       r.p.dxh.offset, r.p.payload_len, half, half);
			got[1] = true;
		} else {
			fail_at(t, __LINE__, "READ_RESP psn %#x answers no range of the READ", r.p.psn);
			break;
		}
	}
	EXPECT(t, got[0] && got[1], "READ_RESPs for the first range %s, the second %s (MR-REL-24)",
	       got[0] ? "seen" : "missing", got[1] ? "seen" : "missing");
	expect_state(t, &q, "RTS", "MR-REL-25");
	net_pump(0.1);
	mem_check(t, "after the READ's ranges and the WRITE", "MR-PLACE-16");
	tqp_close(&q);
}

static void c_rd_atomic_limit(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r;
	uint8_t pl[64];
	unsigned int nresp = 0;
	bool nacked = false;
	const unsigned int lim = 16;	/* the agent's max_dest_rd_atomic */

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	/* PSN + 1 .. PSN + 17: 17 READs held back by the hole at PSN. */
	for (unsigned int i = 1; i <= lim + 1; i++)
		tx_read(&q, q.psn + i, i, 64 * i, 64);
	net_pump(0.2);
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	tx_write(&q, MR_OP_WRITE, q.psn, 0, 20000, sizeof(pl), 0, pl, MR_F_ACKREQ, DUT.rkey0);
	memcpy(mem0 + 20000, pl, sizeof(pl));
	while (rx_take(q.my_qpn, 0, WAIT_RESP, &r)) {
		if (r.p.opcode == MR_OP_READ_RESP) {
			nresp++;
			EXPECT(t, ((r.p.psn - q.psn) & MR_PSN_MASK) <= lim,
			       "a READ_RESP for psn %#x, the READ beyond max_dest_rd_atomic (MR-VERBS-15)",
			       r.p.psn);
		} else if (r.p.opcode == MR_OP_NACK) {
			EXPECT(t, r.p.nkh.reason == MR_NACK_INVALID_REQ &&
			       r.p.nkh.nack_psn == ((q.psn + lim + 1) & MR_PSN_MASK),
			       "NACK reason %u psn %#x, want INVALID_REQ at %#x (MR-VERBS-15)",
			       r.p.nkh.reason, r.p.nkh.nack_psn, (q.psn + lim + 1) & MR_PSN_MASK);
			nacked = true;
			break;
		}
	}
	EXPECT(t, nacked, "no NACK INVALID_REQ for the READ beyond max_dest_rd_atomic (MR-VERBS-15)");
	EXPECT(t, nresp == lim, "%u READ_RESPs before the NACK, want one per READ within the limit, %u (MR-VERBS-24)",
	       nresp, lim);
	expect_state(t, &q, "ERR", "MR-VERBS-15");
	tqp_close(&q);
}

/* A FETCH_ADD at @va under @rkey on a fresh QP with @access: NACK
 * @reason at its PSN, nothing changed. */
static void atomic_refused(struct tctx *t, unsigned int access, uint64_t va, uint32_t rkey,
			   uint8_t reason, const char *what)
{
	struct tqp q;
	struct mr_pkt p;
	struct ack_expect e;

	if (!tqp_open(t, &q, access))
		return;
	req_fill(&p, &q, MR_OP_ATOMIC_FA, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msg_len = MR_ATOMIC_LEN;
	p.axh.va = va;
	p.axh.rkey = rkey;
	p.axh.swap_add = 1;
	tx_pkt(&p);
	e = nack_of(&q, q.psn, 0, p.ts, reason, q.psn);
	ack_expect(t, &q, what, &e);
	mem_check(t, what, "MR-VERBS-11");
	tqp_close(&q);
}

static void c_atomic_rules(struct tctx *t)
{
	struct tqp q;
	uint64_t o, w;

	/* FETCH_ADD modulo 2^64. */
	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	w = word_at(512);
	if (atomic_rt(t, &q, MR_OP_ATOMIC_FA, q.psn, 512, ~w + 6, 0, 0, &o)) {
		EXPECT(t, o == w, "orig %#llx, want %#llx", (unsigned long long)o,
		       (unsigned long long)w);
		word_put(512, 5);
	}
	net_pump(0.1);
	mem_check(t, "FETCH_ADD that wraps 2^64", "MR-VERBS-11");
	tqp_close(&q);
	/* A QP without IBV_ACCESS_REMOTE_ATOMIC; a target in MR 1,
	 * registered without remote atomic. */
	atomic_refused(t, ACC_ALL & ~IBV_ACCESS_REMOTE_ATOMIC, DUT.addr0 + 520, DUT.rkey0,
		       MR_NACK_INVALID_REQ,
		       "NACK INVALID_REQ for an atomic on a QP without remote atomic");
	atomic_refused(t, ACC_ALL, DUT.addr1 + 8, DUT.lkey1, MR_NACK_REMOTE_ACCESS,
		       "NACK REMOTE_ACCESS for an atomic in a region without remote atomic");
}

static void c_zero_length(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	struct rxpkt r;
	struct ack_expect e;
	struct cqe c[2];

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	/* A zero-length WRITE: neither R_Key nor address validated. */
	req_fill(&p, &q, MR_OP_WRITE, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.rxh.va = 0x1000;
	p.rxh.rkey = DUT.rkey0 ^ 0x5A5A00;
	tx_pkt(&p);
	e = ack_of(&q, q.psn + 1, 1, p.ts);
	ack_expect(t, &q, "ACK of a zero-length WRITE under an invalid key", &e);
	/* A zero-length READ: one empty READ_RESP. */
	tx_read(&q, q.psn + 1, 1, 0, 0);
	if (rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_RESP, &r)) {
		EXPECT(t, r.p.psn == ((q.psn + 1) & MR_PSN_MASK) && r.p.payload_len == 0 &&
		       r.p.dxh.msg_len == 0 &&
		       (r.p.flags & (MR_F_FIRST | MR_F_LAST)) == (MR_F_FIRST | MR_F_LAST),
		       "READ_RESP psn %#x len %u msg_len %u flags %#x, want one empty FIRST|LAST",
		       r.p.psn, r.p.payload_len, r.p.dxh.msg_len, r.p.flags);
		EXPECT(t, !rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_SILENT, &r),
		       "a second READ_RESP for a zero-length READ");
	} else {
		fail_at(t, __LINE__, "no READ_RESP for a zero-length READ (MR-VERBS-29)");
	}
	/* A zero-length SEND_IMM: a receive completion with the immediate. */
	REQUIRE(t, agent("RECV %d 61 1 0 64", q.id), "agent: RECV: %s", agent_err);
	req_fill(&p, &q, MR_OP_SEND_IMM, q.psn + 2, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msn = 2;
	p.imm = 0xFEEDF00Du;
	tx_pkt(&p);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no receive completion of a zero-length SEND_IMM");
	EXPECT(t, c[0].wrid == 61 && c[0].status == IBV_WC_SUCCESS && c[0].byte_len == 0,
	       "CQE wr_id %llu status %d byte_len %u, want 61 success 0 (MR-VERBS-29)",
	       (unsigned long long)c[0].wrid, c[0].status, c[0].byte_len);
	EXPECT(t, (c[0].wc_flags & IBV_WC_WITH_IMM) && c[0].imm == 0xFEEDF00Du,
	       "CQE imm %#x flags %#x, want 0xfeedf00d WITH_IMM (MR-VERBS-17)", c[0].imm,
	       c[0].wc_flags);
	mem_check(t, "zero-length operations changed the MR", "MR-VERBS-29");
	tqp_close(&q);
}

static void c_rnr_not_buffered(struct tctx *t)
{
	struct tqp q;
	uint8_t a[200], b[200], got[200];
	struct ack_expect e;
	struct cqe c[2];
	uint32_t ts;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(a, seed_new(), 0, sizeof(a));
	mrc_pat_fill(b, seed_new(), 0, sizeof(b));
	REQUIRE(t, mr_fill(1, 5), "agent: FILL: %s", agent_err);
	ts = tx_send1(&q, MR_OP_SEND, q.psn, 0, a, sizeof(a), 0);
	e = nack_of(&q, q.psn, 0, ts, MR_NACK_RNR, q.psn);
	e.rnr_timer = 12;
	ack_expect(t, &q, "NACK RNR without a receive WQE", &e);
	/* A WQE now: the refused payload was not kept for it. */
	REQUIRE(t, agent("RECV %d 62 1 0 1024", q.id), "agent: RECV: %s", agent_err);
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_SILENT) == 0,
	       "a completion without a resend: the RNR'd payload was buffered (MR-PLACE-12)");
	/* The resend (other bytes) is a new arrival. */
	ts = tx_send1(&q, MR_OP_SEND, q.psn, MR_F_RETX, b, sizeof(b), 0);
	e = ack_of(&q, q.psn + 1, 1, ts);
	ack_expect(t, &q, "ACK of the resent SEND", &e);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].wrid == 62 &&
		c[0].status == IBV_WC_SUCCESS && c[0].byte_len == sizeof(b),
		"no successful completion of the resent SEND");
	REQUIRE(t, mr_read(1, 0, sizeof(got), got), "agent: READMR: %s", agent_err);
	EXPECT(t, !memcmp(got, b, sizeof(b)), "the receive buffer does not hold the resent bytes (MR-PLACE-12)");
	tqp_close(&q);
}

static void c_no_renege(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[2 * PMTU], other[2 * PMTU];
	uint32_t ts;
	static const uint32_t bit1[] = { 1 };
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	mrc_pat_fill(other, seed_new(), 0, sizeof(other));
	ts = tx_write(&q, MR_OP_WRITE, q.psn + 1, 0, 24000, sizeof(pl), 1, pl, MR_F_ACKREQ,
		      DUT.rkey0);
	memcpy(mem0 + 24000 + PMTU, pl + PMTU, PMTU);
	e = ack_of(&q, q.psn, 0, ts);
	e.sacked = bit1;
	e.n_sacked = 1;
	ack_expect(t, &q, "ACK SACKing PSN + 1", &e);
	/* Visible once reported (MR-PLACE-11). */
	mem_check(t, "a SACKed packet not in memory", "MR-PLACE-11");
	/* Its PSN again with other bytes: still received, not re-placed. */
	ts = tx_write(&q, MR_OP_WRITE, q.psn + 1, 0, 24000, sizeof(other), 1, other,
		      MR_F_ACKREQ | MR_F_RETX, DUT.rkey0);
	e.ts_echo = ts;
	ack_expect(t, &q, "ACK of the SACKed PSN again: bit 1 still set", &e);
	mem_check(t, "a SACKed PSN was placed again", "MR-PLACE-10");
	/* The hole filled: cum_psn passes PSN + 1 without a resend. */
	ts = tx_write(&q, MR_OP_WRITE, q.psn, 0, 24000, sizeof(pl), 0, pl, MR_F_ACKREQ, DUT.rkey0);
	memcpy(mem0 + 24000, pl, PMTU);
	e = ack_of(&q, q.psn + 2, 1, ts);
	ack_expect(t, &q, "ACK once the hole is filled", &e);
	mem_check(t, "after the WRITE", "MR-PLACE-10, MR-PLACE-11");
	tqp_close(&q);
}

static void c_err_qp_not_placed(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[256];
	struct ack_expect e;
	uint32_t ts;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = tx_write(&q, MR_OP_WRITE, q.psn, 0, 100, sizeof(pl), 0, pl, MR_F_ACKREQ,
		      DUT.rkey0 ^ 0x5A5A00);
	e = nack_of(&q, q.psn, 0, ts, MR_NACK_REMOTE_ACCESS, q.psn);
	ack_expect(t, &q, "NACK REMOTE_ACCESS for the bad R_Key", &e);
	expect_state(t, &q, "ERR", "MR-VERBS-24");
	/* The QP left RTS: a valid WRITE after the error point, and one at
	 * its PSN with a good key, are not placed. */
	tx_write(&q, MR_OP_WRITE, q.psn + 1, 1, 200, sizeof(pl), 0, pl, MR_F_ACKREQ, DUT.rkey0);
	tx_write(&q, MR_OP_WRITE, q.psn, 0, 300, sizeof(pl), 0, pl, MR_F_ACKREQ | MR_F_RETX,
		 DUT.rkey0);
	net_pump(WAIT_SILENT);
	mem_check(t, "a packet placed by a QP in Error", "MR-PLACE-15");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* Error points, response order, atomics across QPs                   */

static void c_error_point_deferred(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r;
	uint8_t a[128], b[128];
	uint32_t ts;
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(a, seed_new(), 0, sizeof(a));
	mrc_pat_fill(b, seed_new(), 0, sizeof(b));
	/* PSN + 1 under a bad key, before PSN: an error point, not acted
	 * on while PSN is missing, and its bit never set. */
	tx_write(&q, MR_OP_WRITE, q.psn + 1, 1, 700, sizeof(b), 0, b, MR_F_ACKREQ,
		 DUT.rkey0 ^ 0x5A5A00);
	if (rx_take(q.my_qpn, 0, WAIT_SILENT, &r))
		EXPECT(t, r.p.opcode == MR_OP_ACK && !mr_sack_test(r.p.akh.sack, 1),
		       "the DUT answered the error point before cum_psn reached it (opcode %#x, SACK bit 1 %d) (MR-VERBS-24, MR-REL-6)",
		       r.p.opcode, r.p.opcode == MR_OP_ACK ? mr_sack_test(r.p.akh.sack, 1) : 0);
	expect_state(t, &q, "RTS", "MR-VERBS-24");
	/* PSN: accepted and placed; then the NACK for PSN + 1. */
	ts = tx_write(&q, MR_OP_WRITE, q.psn, 0, 600, sizeof(a), 0, a, MR_F_ACKREQ, DUT.rkey0);
	memcpy(mem0 + 600, a, sizeof(a));
	REQUIRE(t, rx_take(q.my_qpn, 0, WAIT_RESP, &r), "no answer to the WRITE before the error point");
	if (r.p.opcode == MR_OP_ACK) {
		e = ack_of(&q, q.psn + 1, 1, ts);
		check_ack(t, "ACK of the WRITE before the error point", &r, q.my_qpn, q.dut_qpn, &e);
		REQUIRE(t, rx_take(q.my_qpn, MR_OP_NACK, WAIT_RESP, &r),
			"no NACK once cum_psn reached the error point (MR-VERBS-24)");
	}
	e = nack_of(&q, q.psn + 1, 1, ts, MR_NACK_REMOTE_ACCESS, q.psn + 1);
	EXPECT(t, r.p.opcode == MR_OP_NACK && r.p.nkh.reason == MR_NACK_REMOTE_ACCESS &&
	       r.p.nkh.nack_psn == ((q.psn + 1) & MR_PSN_MASK) &&
	       r.p.akh.cum_psn == ((q.psn + 1) & MR_PSN_MASK) && !mr_sack_test(r.p.akh.sack, 0),
	       "want NACK REMOTE_ACCESS at PSN + 1 with cum_psn PSN + 1 (opcode %#x reason %u psn %#x cum %#x) (MR-VERBS-24, MR-REL-6)",
	       r.p.opcode, r.p.nkh.reason, r.p.nkh.nack_psn, r.p.akh.cum_psn);
	mem_check(t, "after the error point", "MR-VERBS-24");
	expect_state(t, &q, "ERR", "MR-VERBS-24");
	tqp_close(&q);
}

static void c_read_resp_order(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r;
	const uint32_t l1 = 24 * PMTU, l2 = 4 * PMTU;
	uint32_t next1 = 0, next2 = 0;
	unsigned int n = 0;
	bool order = true;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	/* Two READs back to back: 24 and 4 responses. */
	tx_read(&q, q.psn, 0, 0, l1);
	tx_read(&q, q.psn + 1, 1, 32768, l2);
	while (n < 28 && rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_RESP, &r)) {
		n++;
		if (r.p.psn == q.psn) {
			order &= r.p.dxh.offset == next1 && next2 == 0;
			EXPECT(t, !memcmp(r.p.payload, mem0 + r.p.dxh.offset, r.p.payload_len),
			       "READ 1 offset %u: not the MR's bytes", r.p.dxh.offset);
			next1 = r.p.dxh.offset + r.p.payload_len;
		} else {
			order &= r.p.psn == ((q.psn + 1) & MR_PSN_MASK) &&
				 r.p.dxh.offset == next2 && next1 == l1;
			EXPECT(t, !memcmp(r.p.payload, mem0 + 32768 + r.p.dxh.offset, r.p.payload_len),
			       "READ 2 offset %u: not the MR's bytes", r.p.dxh.offset);
			next2 = r.p.dxh.offset + r.p.payload_len;
		}
		if (!order) {
			fail_at(t, __LINE__, "READ_RESP psn %#x offset %u out of order (READ 1 at %u, READ 2 at %u) (MR-REL-33)",
				r.p.psn, r.p.dxh.offset, next1, next2);
			break;
		}
	}
	EXPECT(t, n == 28 && next1 == l1 && next2 == l2,
	       "%u READ_RESPs (READ 1 to %u, READ 2 to %u), want 28 covering both (MR-REL-33)", n,
	       next1, next2);
	tqp_close(&q);
}

static void c_atomic_two_qps(struct tctx *t)
{
	struct tqp q[2];
	const char *a = agent("INFO");
	uint64_t cap = 0, o, w;

	REQUIRE(t, a && kv_u64(a, "atomic_cap", &cap), "agent: INFO has no atomic_cap: %s",
		a ? a : agent_err);
	EXPECT(t, cap == IBV_ATOMIC_HCA || cap == IBV_ATOMIC_GLOB,
	       "atomic_cap %llu, want at least IBV_ATOMIC_HCA (MR-VERBS-12)", (unsigned long long)cap);
	if (!mem_reset(t) || !tqp_open(t, &q[0], ACC_ALL))
		return;
	if (!tqp_open(t, &q[1], ACC_ALL)) {
		tqp_close(&q[0]);
		return;
	}
	/* FETCH_ADDs on one word from two QPs in turn: each sees the other's. */
	for (unsigned int i = 0; i < 8; i++) {
		struct tqp *x = &q[i & 1];

		w = word_at(1024);
		if (!atomic_rt(t, x, MR_OP_ATOMIC_FA, x->psn, 1024, 0x101 + i, 0, 0, &o))
			break;
		EXPECT(t, o == w, "FETCH_ADD %u on QP %u: orig %#llx, want %#llx (MR-VERBS-12)", i,
		       i & 1, (unsigned long long)o, (unsigned long long)w);
		word_put(1024, w + 0x101 + i);
		x->psn = (x->psn + 1) & MR_PSN_MASK;
		x->msn++;
	}
	net_pump(0.1);
	mem_check(t, "after FETCH_ADDs from two QPs", "MR-VERBS-12");
	tqp_close(&q[0]);
	tqp_close(&q[1]);
}

/* ------------------------------------------------------------------ */
/* VERBS: SRQ binding, solicited events, QP attributes, QP types      */

/* A one-packet SEND (@flags added) of @len bytes of @pl with SSN and MSN
 * @n at PSN @psn; its ts. */
static uint32_t tx_send_n(const struct tqp *q, uint32_t psn, uint32_t n, uint16_t flags,
			  const uint8_t *pl, uint32_t len)
{
	struct mr_pkt p;

	req_fill(&p, q, MR_OP_SEND, psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ | flags);
	p.dxh.msn = n;
	p.dxh.ssn = n;
	p.dxh.msg_len = len;
	p.payload = pl;
	p.payload_len = len;
	tx_pkt(&p);
	return p.ts;
}

/* MR 1 at @off holds @len bytes of @want. */
static void mr1_holds(struct tctx *t, uint32_t off, const uint8_t *want, uint32_t len,
		      const char *what)
{
	uint8_t got[MRC_READ_MAX];

	if (!mr_read(1, off, len, got))
		fail_at(t, __LINE__, "agent: READMR: %s", agent_err);
	else
		EXPECT(t, !memcmp(got, want, len), "%s: MR 1 at %u does not hold the message (MR-VERBS-20)",
		       what, off);
}

static void c_srq_binding(struct tctx *t)
{
	static bool made;
	struct tqp q;
	uint8_t m[4][100];
	static const uint32_t len[4] = { 80, 100, 60, 90 };
	struct ack_expect e;
	struct cqe c[3];
	uint32_t ts;
	int n;

	if (!made) {
		REQUIRE(t, agent("SRQ 0 16"), "agent: SRQ: %s", agent_err);
		made = true;
	}
	REQUIRE(t, mr_fill(1, 21), "agent: FILL: %s", agent_err);
	for (int i = 0; i < 3; i++)
		REQUIRE(t, agent("SRECV 0 %d 1 %d 256", 501 + i, 256 * i), "agent: SRECV: %s",
			agent_err);
	if (!tqp_open_ex(t, &q, ACC_ALL, (uint32_t)rand() & MR_PSN_MASK, PMTU, 0, 0))
		return;
	for (int i = 0; i < 4; i++)
		mrc_pat_fill(m[i], seed_new(), 0, len[i]);
	/* SSN 1 first: SSNs 0 and 1 take WQEs 501 and 502, in SSN order. */
	ts = tx_send_n(&q, q.psn + 1, 1, 0, m[1], len[1]);
	{
		static const uint32_t b1[] = { 1 };

		e = ack_of(&q, q.psn, 0, ts);
		e.sacked = b1;
		e.n_sacked = 1;
		ack_expect(t, &q, "ACK of SSN 1 before SSN 0", &e);
	}
	ts = tx_send_n(&q, q.psn, 0, 0, m[0], len[0]);
	e = ack_of(&q, q.psn + 2, 2, ts);
	ack_expect(t, &q, "ACK of SSN 0", &e);
	n = cqe_wait(&q, c, 2, WAIT_RESP);
	REQUIRE(t, n == 2, "%d receive completions of SSNs 0 and 1, want 2", n);
	EXPECT(t, c[0].wrid == 501 && c[0].byte_len == len[0] && c[1].wrid == 502 &&
	       c[1].byte_len == len[1],
	       "completions wr_id %llu (%u bytes), %llu (%u bytes), want 501 (SSN 0, %u), 502 (SSN 1, %u) (MR-VERBS-20)",
	       (unsigned long long)c[0].wrid, c[0].byte_len, (unsigned long long)c[1].wrid,
	       c[1].byte_len, len[0], len[1]);
	mr1_holds(t, 0, m[0], len[0], "SSN 0 in the first WQE");
	mr1_holds(t, 256, m[1], len[1], "SSN 1 in the second WQE");
	/* SSN 3 before SSN 2 with one WQE left: SSN 2 keeps it, SSN 3 RNR. */
	ts = tx_send_n(&q, q.psn + 3, 3, 0, m[3], len[3]);
	e = nack_of(&q, q.psn + 2, 2, ts, MR_NACK_RNR, q.psn + 3);
	e.rnr_timer = 12;
	ack_expect(t, &q, "NACK RNR for SSN 3, the SRQ empty", &e);
	ts = tx_send_n(&q, q.psn + 2, 2, 0, m[2], len[2]);
	e = ack_of(&q, q.psn + 3, 3, ts);
	ack_expect(t, &q, "ACK of SSN 2 into the WQE bound to it", &e);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no completion of SSN 2");
	EXPECT(t, c[0].wrid == 503 && c[0].byte_len == len[2],
	       "SSN 2 completed wr_id %llu (%u bytes), want 503 bound before the RNR (MR-VERBS-20)",
	       (unsigned long long)c[0].wrid, c[0].byte_len);
	mr1_holds(t, 512, m[2], len[2], "SSN 2 in the third WQE");
	/* A WQE again: the resent SSN 3 takes it. */
	REQUIRE(t, agent("SRECV 0 504 1 768 256"), "agent: SRECV: %s", agent_err);
	ts = tx_send_n(&q, q.psn + 3, 3, MR_F_RETX, m[3], len[3]);
	e = ack_of(&q, q.psn + 4, 4, ts);
	ack_expect(t, &q, "ACK of SSN 3 resent", &e);
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].wrid == 504 && c[0].byte_len == len[3],
	       "SSN 3 resent did not complete in WQE 504 (MR-VERBS-20)");
	mr1_holds(t, 768, m[3], len[3], "SSN 3 in the fourth WQE");
	tqp_close(&q);
}

/* CQ 5 of the agent has a completion channel (CQEV). */
static bool ev_cq(struct tctx *t)
{
	static bool made;

	if (!made && !agent("CQEV 5 64")) {
		fail_at(t, __LINE__, "agent: CQEV: %s", agent_err);
		return false;
	}
	made = true;
	return true;
}

/* A completion on CQ 5 within @tmo s: 1, or 0. */
static int poll5(double tmo)
{
	const char *a = agent("POLL 5 1 %d", (int)(tmo * O.slow * 1000));
	uint64_t n = 0;

	if (!a || !kv_u64(a, "n", &n))
		return -1;
	for (uint64_t i = 0; i < n; i++)
		agent_line();
	return (int)n;
}

static void c_solicited(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[64];
	struct ack_expect e;
	uint32_t ts;
	const char *a;
	uint64_t ev = 2;

	if (!ev_cq(t) || !tqp_open_ex(t, &q, ACC_ALL, (uint32_t)rand() & MR_PSN_MASK, PMTU, 5, -1))
		return;
	REQUIRE(t, agent("RECV %d 71 1 0 256", q.id) && agent("RECV %d 72 1 256 256", q.id),
		"agent: RECV: %s", agent_err);
	REQUIRE(t, agent("ARM 5 1"), "agent: ARM: %s", agent_err);
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	/* Without SE: a completion, no solicited event. */
	ts = tx_send_n(&q, q.psn, 0, 0, pl, sizeof(pl));
	e = ack_of(&q, q.psn + 1, 1, ts);
	ack_expect(t, &q, "ACK of the SEND without SE", &e);
	a = agent("WAITEV 5 %d", (int)(WAIT_SILENT * O.slow * 1000));
	REQUIRE(t, a && kv_u64(a, "ev", &ev), "agent: WAITEV: %s", agent_err);
	EXPECT(t, ev == 0, "a solicited-only CQ got an event for a SEND without SE (MR-VERBS-18)");
	EXPECT(t, poll5(WAIT_RESP) == 1, "no completion of the SEND without SE");
	/* With SE: the event. */
	ts = tx_send_n(&q, q.psn + 1, 1, MR_F_SE, pl, sizeof(pl));
	e = ack_of(&q, q.psn + 2, 2, ts);
	ack_expect(t, &q, "ACK of the SEND with SE", &e);
	a = agent("WAITEV 5 %d", (int)(WAIT_RESP * O.slow * 1000));
	REQUIRE(t, a && kv_u64(a, "ev", &ev), "agent: WAITEV: %s", agent_err);
	EXPECT(t, ev == 1, "no solicited event for a SEND with SE on a CQ armed for them (MR-VERBS-18)");
	EXPECT(t, poll5(WAIT_RESP) == 1, "no completion of the SEND with SE");
	tqp_close(&q);
}

static void c_qp_attrs(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r;
	uint8_t pl[600];
	struct ack_expect e;
	uint32_t ts;
	uint64_t c0;

	if (!mem_reset(t) ||
	    !tqp_open_ex(t, &q, ACC_ALL, (uint32_t)rand() & MR_PSN_MASK, 512, 0, -1))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	/* rq_psn - 1 is before cum_psn = rq_psn: a duplicate, ACKed with
	 * cum_psn rq_psn and MSN 0, not placed. */
	ts = tx_write(&q, MR_OP_WRITE, q.psn - 1, 0, 100, 64, 0, pl, MR_F_ACKREQ, DUT.rkey0);
	e = ack_of(&q, q.psn, 0, ts);
	ack_expect(t, &q, "ACK of rq_psn - 1: cum_psn rq_psn, msn 0", &e);
	mem_check(t, "rq_psn - 1 was placed", "MR-VERBS-27");
	/* path_mtu 512: 600 bytes in one packet are over it. */
	c0 = counter_now("payload");
	tx_write(&q, MR_OP_WRITE, q.psn, 0, 100, sizeof(pl), 0, pl, MR_F_ACKREQ, DUT.rkey0);
	expect_silence(t, &q, "600 bytes on a 512-byte path MTU", "MR-VERBS-27");
	counter_moved(t, "payload", c0, "MR-VERBS-27");
	write_ok(t, &q, 100, 512, "ACK of 512 bytes at rq_psn, msn 1");
	/* The DUT's first request carries sq_psn. */
	REQUIRE(t, agent("POST %d WRITE 81 1 0 64 %u 4096 0 0 0 1", q.id, 0x1234u),
		"agent: POST: %s", agent_err);
	if (rx_take(q.my_qpn, MR_OP_WRITE, WAIT_RESP, &r))
		EXPECT(t, r.p.psn == q.dut_psn && r.p.sqpn == q.dut_qpn && r.p.dqpn == q.my_qpn,
		       "the DUT's first WRITE: psn %#x sqpn %#x dqpn %#x, want sq_psn %#x, %#x, the dest_qp_num %#x (MR-VERBS-27)",
		       r.p.psn, r.p.sqpn, r.p.dqpn, q.dut_psn, q.dut_qpn, q.my_qpn);
	else
		fail_at(t, __LINE__, "no WRITE from the DUT for a posted WR");
	tqp_close(&q);
}

/* A QP of @type must be refused with EOPNOTSUPP or EINVAL, or work. */
static void qp_type_refused(struct tctx *t, int id, const char *type)
{
	if (agent("QP %d 0 %s 16 16", id, type)) {
		agent("DESTROY %d", id);
		diag("the DUT created a %s QP: MR-VERBS-1 then asks that it work, not checked here", type);
		return;
	}
	EXPECT(t, strstr(agent_err, "Operation not supported") || strstr(agent_err, "Invalid argument"),
	       "creating a %s QP failed with '%s', want EOPNOTSUPP or EINVAL (MR-VERBS-1)", type,
	       agent_err);
}

static void c_qp_types(struct tctx *t)
{
	static bool made;
	const int id = MRC_MAX_QP - 11;
	struct tqp q;

	/* RC and UD QPs and an RC QP on an SRQ can be made. */
	REQUIRE(t, agent("QP %d 0 UD 16 16", id), "a UD QP could not be created: %s (MR-VERBS-1)",
		agent_err);
	agent("DESTROY %d", id);
	if (!made) {
		REQUIRE(t, agent("SRQ 1 16"), "an SRQ could not be created: %s (MR-VERBS-1)",
			agent_err);
		made = true;
	}
	if (!tqp_open_ex(t, &q, ACC_ALL, (uint32_t)rand() & MR_PSN_MASK, PMTU, 0, 1))
		return;
	write_ok(t, &q, 0, 64, "ACK of a WRITE to an RC QP on an SRQ");
	tqp_close(&q);
	qp_type_refused(t, id, "UC");
	qp_type_refused(t, id, "RAW");
}

/* MR-REL-34: ranges of one READ held behind a hole until the responder
 * has no room to record one more. */
#define RR_N	200	/* ranges */
#define RR_LEN	256	/* bytes each */

struct rr_state {
	bool served[RR_N], refused[RR_N];
	uint8_t rnr_timer;
};

/* READ_REQ for range @k of READ MSN 1 at PSN + 1 + k. */
static void tx_range(const struct tqp *q, unsigned int k, uint16_t flags)
{
	struct mr_pkt p;

	req_fill(&p, q, MR_OP_READ_REQ, q->psn + 1 + k, MR_F_FIRST | MR_F_LAST | flags);
	p.dxh.msn = 1;
	p.dxh.offset = k * RR_LEN;
	p.dxh.msg_len = RR_LEN;
	p.rxh.va = DUT.addr0;
	p.rxh.rkey = DUT.rkey0;
	tx_pkt(&p);
}

/* The answers until @tmo s pass without one: a READ_RESP serves its
 * range (once, with the MR's bytes), a NACK must be RESOURCE and leaves
 * its range unrecorded. */
static void rr_answers(struct tctx *t, const struct tqp *q, struct rr_state *s, double tmo,
		       bool resp_ok)
{
	struct rxpkt r;
	unsigned int k;

	while (rx_take(q->my_qpn, 0, tmo, &r)) {
		if (r.p.opcode == MR_OP_READ_RESP) {
			k = (r.p.psn - q->psn - 1) & MR_PSN_MASK;
			/* Again only for a resent range (RETX, MR-REL-8). */
			EXPECT(t, resp_ok && k < RR_N &&
			       (!s->served[k] || (r.p.flags & MR_F_RETX)) &&
			       r.p.dxh.offset == k * RR_LEN && r.p.payload_len == RR_LEN &&
			       !memcmp(r.p.payload, mem0 + k * RR_LEN, RR_LEN),
			       "READ_RESP psn %#x offset %u len %u: not range %u, once, after the hole (MR-REL-34, MR-PLACE-16)",
			       r.p.psn, r.p.dxh.offset, r.p.payload_len, k);
			if (k < RR_N)
				s->served[k] = true;
		} else if (r.p.opcode == MR_OP_NACK) {
			k = (r.p.nkh.nack_psn - q->psn - 1) & MR_PSN_MASK;
			if (r.p.nkh.reason != MR_NACK_RESOURCE || k >= RR_N) {
				fail_at(t, __LINE__, "NACK reason %u at psn %#x for a READ range, want RESOURCE at most (MR-REL-34)",
					r.p.nkh.reason, r.p.nkh.nack_psn);
				return;
			}
			EXPECT(t, !mr_sack_test(r.p.akh.sack,
						(r.p.nkh.nack_psn - r.p.akh.cum_psn) & MR_PSN_MASK),
			       "the range NACKed RESOURCE at psn %#x is SACKed (MR-REL-34)",
			       r.p.nkh.nack_psn);
			s->refused[k] = true;
			s->rnr_timer = r.p.nkh.rnr_timer;
		}
	}
}

static void c_read_ranges_resource(struct tctx *t)
{
	static struct rr_state s;
	struct tqp q;
	uint8_t pl[64];
	unsigned int k, nref = 0, nsrv = 0, round;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	memset(&s, 0, sizeof(s));
	for (k = 0; k < RR_N; k++)
		tx_range(&q, k, k == RR_N - 1 ? MR_F_ACKREQ : 0);
	rr_answers(t, &q, &s, WAIT_SILENT, false);
	for (k = 0; k < RR_N; k++)
		nref += s.refused[k];
	diag("%u of %u READ ranges refused with RESOURCE (rnr_timer %u)", nref, RR_N, s.rnr_timer);
	EXPECT(t, !nref || s.rnr_timer, "NACK RESOURCE with rnr_timer 0 (MR-REL-34)");
	expect_state(t, &q, "RTS", "MR-REL-34");
	/* The hole filled: the recorded ranges execute; every range not
	 * answered yet is resent (RETX) until it is, as a requester does
	 * (the tester's own socket may have lost a NACK or a READ_RESP of
	 * a burst: a duplicate of an executed range is executed again). */
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	tx_write(&q, MR_OP_WRITE, q.psn, 0, 60000, sizeof(pl), 0, pl, MR_F_ACKREQ, DUT.rkey0);
	memcpy(mem0 + 60000, pl, sizeof(pl));
	for (round = 0; round < 12; round++) {
		rr_answers(t, &q, &s, 0.3, true);
		for (nsrv = 0, k = 0; k < RR_N; k++)
			nsrv += s.served[k];
		if (nsrv == RR_N || t->nfail)
			break;
		for (k = 0; k < RR_N; k++)
			if (!s.served[k])
				tx_range(&q, k, MR_F_ACKREQ | MR_F_RETX);
	}
	diag("%u resend rounds", round);
	EXPECT(t, nsrv == RR_N, "%u of %u READ ranges answered after %u resend rounds (MR-REL-34)",
	       nsrv, RR_N, round);
	expect_state(t, &q, "RTS", "MR-REL-34");
	tqp_close(&q);
}

const struct tcase cases_win[] = {
	{ "WIN", "psn_wraparound", "MR-WIN-1, MR-WIN-2, MR-WIN-4", c_psn_wrap, NULL },
	{ "WIN", "window_edge_255_256", "MR-WIN-1, MR-WIN-2", c_window_edge, NULL },
	{ "WIN", "timestamp_stale_future", "MR-WIN-6", c_ts_stale_future, NULL },
	{ "WIN", "timestamp_serial_wrap", "MR-WIN-5", c_ts_wrap, NULL },
	{ "WIN", "timestamp_resync", "MR-WIN-6", c_ts_resync, NULL },
	{ "REL", "delayed_ack_bound", "MR-REL-13", c_ack_delay, NULL },
	{ "REL", "msn_ahead_invalid", "MR-REL-25", c_msn_ahead, NULL },
	{ "REL", "read_over_max_range", "MR-REL-31", c_read_range_limit, NULL },
	{ "REL", "atomic_records_16", "MR-REL-32, MR-REL-9", c_atomic_records, NULL },
	{ "PLACE", "read_deferred_to_cum", "MR-PLACE-16, MR-VERBS-8", c_read_deferred, NULL },
	{ "REL", "read_ranges_any_order", "MR-REL-24, MR-REL-25, MR-PLACE-16", c_read_ranges_any_order,
	  NULL },
	{ "VERBS", "max_dest_rd_atomic", "MR-VERBS-15, MR-VERBS-24", c_rd_atomic_limit, NULL },
	{ "VERBS", "atomic_rules", "MR-VERBS-11", c_atomic_rules, NULL },
	{ "VERBS", "zero_length_ops", "MR-VERBS-29, MR-VERBS-17", c_zero_length, NULL },
	{ "PLACE", "rnr_payload_not_kept", "MR-PLACE-12", c_rnr_not_buffered, NULL },
	{ "PLACE", "no_renege", "MR-PLACE-10, MR-PLACE-11", c_no_renege, NULL },
	{ "PLACE", "error_qp_places_nothing", "MR-PLACE-15", c_err_qp_not_placed, NULL },
	{ "REL", "error_point_deferred", "MR-REL-6, MR-VERBS-24", c_error_point_deferred, NULL },
	{ "REL", "read_resp_order", "MR-REL-33", c_read_resp_order, NULL },
	{ "VERBS", "atomic_cap_two_qps", "MR-VERBS-12", c_atomic_two_qps, NULL },
	{ "VERBS", "srq_binding_in_ssn_order", "MR-VERBS-20", c_srq_binding, NULL },
	{ "VERBS", "solicited_event", "MR-VERBS-18", c_solicited, NULL },
	{ "VERBS", "qp_attributes_used", "MR-VERBS-27", c_qp_attrs, NULL },
	{ "VERBS", "qp_types", "MR-VERBS-1", c_qp_types, NULL },
	{ "REL", "read_ranges_resource", "MR-REL-34", c_read_ranges_resource, NULL },
};
const unsigned int n_cases_win = MR_ARRAY_SIZE(cases_win);
