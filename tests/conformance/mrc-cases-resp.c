// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-conform cases with the DUT as responder: the tester sends requests
 * built by the codec to a DUT QP and checks the DUT's ACKs, NACKs and
 * responses field by field, the DUT's memory (MR 0, 64 KiB, remote access,
 * compared whole after every case: nothing may change but what the case
 * wrote), its completions and its counters.
 */
#include <stdlib.h>
#include <string.h>

#include "mr-conform.h"

/* The expected content of the DUT's MR 0. */
uint8_t mem0[MR_LEN];

uint64_t seed_new(void)
{
	return ((uint64_t)(unsigned int)rand() << 33) ^ ((uint64_t)(unsigned int)rand() << 7) ^
	       0x5EEDull;
}

/* Fill MR 0 with a fresh pattern, mirrored in mem0; false: reported. */
bool mem_reset(struct tctx *t)
{
	uint64_t s = seed_new();

	if (!mr_fill(0, s)) {
		fail_at(t, __LINE__, "agent: FILL: %s", agent_err);
		return false;
	}
	mrc_pat_fill(mem0, s, 0, MR_LEN);
	return true;
}

/* MR 0 equals mem0; on a difference, the first differing byte. */
void mem_check(struct tctx *t, const char *what, const char *ids)
{
	uint64_t h;
	uint8_t b[MRC_READ_MAX];

	if (!mr_hash(0, 0, MR_LEN, &h)) {
		fail_at(t, __LINE__, "agent: HASH: %s", agent_err);
		return;
	}
	if (h == mrc_hash(mem0, MR_LEN))
		return;
	for (uint32_t off = 0; off < MR_LEN; off += MRC_READ_MAX) {
		if (!mr_read(0, off, MRC_READ_MAX, b))
			break;
		for (uint32_t i = 0; i < MRC_READ_MAX; i++)
			if (b[i] != mem0[off + i]) {
				fail_at(t, __LINE__, "%s: MR byte %u is %#x, want %#x (%s)",
					what, off + i, b[i], mem0[off + i], ids);
				return;
			}
	}
	fail_at(t, __LINE__, "%s: MR hash differs (%s)", what, ids);
}

/* One WRITE* packet of a message of @len bytes at MR 0 offset @moff:
 * bytes [k * PMTU, ...) of payload @pl; FIRST/LAST as the spec sets them
 * (MR-HDR-4), plus @extra. Returns the MBH.ts it carried. */
uint32_t tx_write(const struct tqp *q, uint8_t op, uint32_t psn, uint32_t msn,
			 uint32_t moff, uint32_t len, unsigned int k, const uint8_t *pl,
			 uint16_t extra, uint32_t rkey)
{
	struct mr_pkt p;
	uint32_t off = k * PMTU, n = len - off < PMTU ? len - off : PMTU;

	req_fill(&p, q, op, psn, extra | (k == 0 ? MR_F_FIRST : 0) |
		 (off + n == len ? MR_F_LAST : 0));
	p.dxh.msn = msn;
	p.dxh.offset = off;
	p.dxh.msg_len = len;
	p.rxh.va = DUT.addr0 + moff;
	p.rxh.rkey = rkey;
	p.imm = 0x1234ABCD;
	p.payload = pl + off;
	p.payload_len = n;
	tx_pkt(&p);
	return p.ts;
}

/* The next ACK (or NACK) for @q within WAIT_RESP, checked against @e. */
bool ack_expect(struct tctx *t, const struct tqp *q, const char *what,
		       const struct ack_expect *e)
{
	struct rxpkt r;
	uint8_t op = e->nack_reason ? MR_OP_NACK : MR_OP_ACK;

	if (!rx_take(q->my_qpn, op, WAIT_RESP, &r)) {
		fail_at(t, __LINE__, "%s: no %s within %.1f s", what,
			e->nack_reason ? "NACK" : "ACK", WAIT_RESP * O.slow);
		return false;
	}
	check_ack(t, what, &r, q->my_qpn, q->dut_qpn, e);
	return true;
}

/* Nothing at all for @q within WAIT_SILENT. */
void expect_silence(struct tctx *t, const struct tqp *q, const char *what,
			   const char *ids)
{
	struct rxpkt r;

	if (rx_take(q->my_qpn, 0, WAIT_SILENT, &r))
		fail_at(t, __LINE__, "%s: the DUT answered (opcode %#x) where it must stay silent (%s)",
			what, r.p.opcode, ids);
}

/* Counter @name moved by at least 1 since @before. */
void counter_moved(struct tctx *t, const char *name, uint64_t before,
			  const char *ids)
{
	uint64_t v;

	if (!counter(name, &v)) {
		fail_at(t, __LINE__, "counter '%s' not exposed (MR-CONF-7, %s)", name, ids);
		return;
	}
	EXPECT(t, v > before, "counter '%s' did not move (%llu) (%s)", name,
	       (unsigned long long)v, ids);
}

uint64_t counter_now(const char *name)
{
	uint64_t v = 0;

	if (!counter(name, &v))
		return UINT64_MAX;	/* counter_moved() reports it */
	return v;
}

/* What an ACK of @q must carry (MR-REL-11, MR-REL-12). */
struct ack_expect ack_of(const struct tqp *q, uint32_t cum, uint32_t msn,
				uint32_t ts)
{
	struct ack_expect e = { .cum = cum, .msn = msn, .ts_echo = ts, .path = q->path };

	return e;
}

struct ack_expect nack_of(const struct tqp *q, uint32_t cum, uint32_t msn,
				 uint32_t ts, uint8_t reason, uint32_t nack_psn)
{
	struct ack_expect e = ack_of(q, cum, msn, ts);

	e.nack_reason = reason;
	e.nack_psn = nack_psn;
	return e;
}

/* The DUT QP's state is @want. */
void expect_state(struct tctx *t, const struct tqp *q, const char *want,
			 const char *ids)
{
	const char *st = dut_qp_state(q);

	EXPECT(t, !strcmp(st, want), "the DUT QP is %s, want %s (%s)", st, want, ids);
}

/* A one-packet SEND* of @len bytes of @pl at @psn (SSN 0, MSN 0); its ts. */
uint32_t tx_send1(const struct tqp *q, uint8_t op, uint32_t psn, uint16_t extra,
			 const uint8_t *pl, uint32_t len, uint32_t inv_rkey)
{
	struct mr_pkt p;

	req_fill(&p, q, op, psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ | extra);
	p.dxh.msg_len = len;
	p.inv_rkey = inv_rkey;
	p.payload = pl;
	p.payload_len = len;
	tx_pkt(&p);
	return p.ts;
}

/* A plain one-packet WRITE of @n bytes at @moff that must be ACKed; mem0
 * updated. */
void write_ok(struct tctx *t, struct tqp *q, uint32_t moff, uint32_t n,
		     const char *what)
{
	uint8_t pl[PMTU];
	uint32_t ts;
	struct ack_expect e;

	mrc_pat_fill(pl, seed_new(), 0, n);
	ts = tx_write(q, MR_OP_WRITE, q->psn, q->msn, moff, n, 0, pl, MR_F_ACKREQ,
		      DUT.rkey0);
	memcpy(mem0 + moff, pl, n);
	q->psn = (q->psn + 1) & MR_PSN_MASK;
	q->msn++;
	e = ack_of(q, q->psn, q->msn, ts);
	ack_expect(t, q, what, &e);
}

/* ------------------------------------------------------------------ */

static void c_write_1pkt(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r;
	uint8_t pl[700];
	uint32_t ts;
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = tx_write(&q, MR_OP_WRITE, q.psn, 0, 100, sizeof(pl), 0, pl, MR_F_ACKREQ,
		      DUT.rkey0);
	memcpy(mem0 + 100, pl, sizeof(pl));
	e = ack_of(&q, q.psn + 1, 1, ts);
	if (rx_take(q.my_qpn, MR_OP_ACK, WAIT_RESP, &r)) {
		check_ack(t, "ACK of a 1-packet WRITE", &r, q.my_qpn, q.dut_qpn, &e);
		/* The one packet accepted since the previous ACK (MR-REL-11). */
		EXPECT(t, r.p.akh.pkt_count == 1, "ACK pkt_count %u, want 1 (MR-REL-11)",
		       r.p.akh.pkt_count);
	} else {
		fail_at(t, __LINE__, "no ACK within %.1f s of a WRITE with ACKREQ (MR-REL-3 b)",
			WAIT_RESP * O.slow);
	}
	mem_check(t, "after the WRITE", "MR-PLACE-3");
	tqp_close(&q);
}

static void c_write_3pkt(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[2500];
	uint32_t ts = 0, pkts = 0, last_cum = 0;
	struct rxpkt r;
	bool done = false;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	for (unsigned int k = 0; k < 3; k++)
		ts = tx_write(&q, MR_OP_WRITE, q.psn + k, 0, 4000, sizeof(pl), k, pl,
			      k == 2 ? MR_F_ACKREQ : 0, DUT.rkey0);
	memcpy(mem0 + 4000, pl, sizeof(pl));
	/* ACKs until the one that covers the message (ACKREQ on LAST: at once,
	 * MR-REL-3 b); coalesced ones before it are allowed (MR-REL-3 a). */
	while (!done && rx_take(q.my_qpn, MR_OP_ACK, WAIT_RESP, &r)) {
		uint32_t cum = r.p.akh.cum_psn;

		pkts += r.p.akh.pkt_count;
		EXPECT(t, r.err == 0 && r.icrc == 0, "ACK malformed or ICRC wrong");
		EXPECT(t, r.p.sqpn == q.dut_qpn && r.p.path == q.path && r.p.psn == 0,
		       "ACK sqpn %#x path %u psn %#x (MR-REL-12)", r.p.sqpn, r.p.path,
		       r.p.psn);
		EXPECT(t, ((cum - q.psn) & MR_PSN_MASK) <= 3,
		       "ACK cum_psn %#x outside the 3 PSNs sent from %#x (MR-REL-2)", cum, q.psn);
		EXPECT(t, ((cum - last_cum) & MR_PSN_MASK) < 4 || !last_cum,
		       "cum_psn went back (MR-REL-2)");
		last_cum = cum;
		if (cum == ((q.psn + 3) & MR_PSN_MASK)) {
			done = true;
			EXPECT(t, r.p.akh.msn == 1, "final ACK msn %u, want 1 (MR-REL-11)",
			       r.p.akh.msn);
			EXPECT(t, r.p.akh.ts_echo == ts, "final ACK ts_echo %#x, want %#x (MR-REL-11)",
			       r.p.akh.ts_echo, ts);
		} else {
			EXPECT(t, r.p.akh.msn == 0, "ACK before the message completed has msn %u (MR-REL-11, MR-PLACE-2)",
			       r.p.akh.msn);
		}
	}
	EXPECT(t, done, "no ACK with cum_psn %#x (the whole message)", (q.psn + 3) & MR_PSN_MASK);
	EXPECT(t, pkts == 3, "pkt_count over the ACKs adds up to %u, want 3 (MR-REL-11)", pkts);
	mem_check(t, "after the 3-packet WRITE", "MR-HDR-4, MR-PLACE-1, MR-PLACE-3");
	tqp_close(&q);
}

static void c_ooo_sack(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[2048];
	uint32_t ts;
	static const uint32_t bit1[] = { 1 };
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	/* The second packet first: a new hole, ACK at once with SACK bit 1. */
	ts = tx_write(&q, MR_OP_WRITE, q.psn + 1, 0, 20000, sizeof(pl), 1, pl,
		      MR_F_ACKREQ, DUT.rkey0);
	memcpy(mem0 + 20000 + PMTU, pl + PMTU, PMTU);
	e = ack_of(&q, q.psn, 0, ts);
	e.sacked = bit1;
	e.n_sacked = 1;
	ack_expect(t, &q, "ACK of PSN+1 before PSN", &e);
	/* Placed out of order, before the message is complete (MR-PLACE-1). */
	mem_check(t, "second packet placed on arrival", "MR-PLACE-1");
	ts = tx_write(&q, MR_OP_WRITE, q.psn, 0, 20000, sizeof(pl), 0, pl, MR_F_ACKREQ,
		      DUT.rkey0);
	memcpy(mem0 + 20000, pl, PMTU);
	e = ack_of(&q, q.psn + 2, 1, ts);
	ack_expect(t, &q, "ACK once the hole is filled", &e);
	mem_check(t, "after the WRITE", "MR-PLACE-1");
	tqp_close(&q);
}

/* SEND or SEND_IMM of @len bytes into a receive WQE on MR 1. */
static void send_case(struct tctx *t, uint8_t op, uint32_t len)
{
	struct tqp q;
	uint8_t pl[3000], got[MRC_READ_MAX];
	unsigned int np = len ? (len + PMTU - 1) / PMTU : 1;
	uint32_t ts = 0;
	struct ack_expect e;
	struct cqe c[2];
	int n;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, mr_fill(1, 7) && agent("RECV %d 77 1 0 4096", q.id),
		"agent: RECV: %s", agent_err);
	mrc_pat_fill(pl, seed_new(), 0, len);
	for (unsigned int k = 0; k < np; k++) {
		struct mr_pkt p;
		uint32_t off = k * PMTU, pn = len - off < PMTU ? len - off : PMTU;

		req_fill(&p, &q, op, q.psn + k, (k == 0 ? MR_F_FIRST : 0) |
			 (k == np - 1 ? MR_F_LAST | MR_F_ACKREQ : 0));
		p.dxh.msn = 0;
		p.dxh.offset = off;
		p.dxh.msg_len = len;
		p.dxh.ssn = 0;
		p.imm = 0xC0FFEE11;
		p.payload = pl + off;
		p.payload_len = pn;
		tx_pkt(&p);
		ts = p.ts;
	}
	e = ack_of(&q, q.psn + np, 1, ts);
	/* Coalesced ACKs of the first packets may come first (MR-REL-3 a). */
	for (unsigned int k = 0; k + 1 < np; k++) {
		struct rxpkt r;

		if (rx_take(q.my_qpn, MR_OP_ACK, 0.2, &r) &&
		    r.p.akh.cum_psn == ((q.psn + np) & MR_PSN_MASK)) {
			check_ack(t, "ACK of the SEND", &r, q.my_qpn, q.dut_qpn, &e);
			goto acked;
		}
	}
	ack_expect(t, &q, "ACK of the SEND", &e);
acked:
	n = cqe_wait(&q, c, 1, WAIT_RESP);
	REQUIRE(t, n == 1, "no receive completion (MR-PLACE-2, MR-VERBS-6)");
	EXPECT(t, c[0].wrid == 77 && c[0].status == IBV_WC_SUCCESS,
	       "CQE wr_id %llu status %d, want 77 and success", (unsigned long long)c[0].wrid,
	       c[0].status);
	EXPECT(t, c[0].opcode == IBV_WC_RECV, "CQE opcode %d, want IBV_WC_RECV (MR-VERBS-6)",
	       c[0].opcode);
	EXPECT(t, c[0].byte_len == len, "CQE byte_len %u, want %u (MR-VERBS-6)",
	       c[0].byte_len, len);
	if (op == MR_OP_SEND_IMM) {
		EXPECT(t, c[0].wc_flags & IBV_WC_WITH_IMM, "CQE without IBV_WC_WITH_IMM (MR-VERBS-6)");
		EXPECT(t, c[0].imm == 0xC0FFEE11, "CQE imm %#x, want 0xc0ffee11 (MR-VERBS-6)",
		       c[0].imm);
	} else {
		EXPECT(t, !(c[0].wc_flags & IBV_WC_WITH_IMM), "SEND completed WITH_IMM");
	}
	for (uint32_t off = 0; off < len; off += MRC_READ_MAX) {
		uint32_t l = len - off < MRC_READ_MAX ? len - off : MRC_READ_MAX;

		REQUIRE(t, mr_read(1, off, l, got), "agent: READMR: %s", agent_err);
		EXPECT(t, !memcmp(got, pl + off, l), "received bytes at %u differ (MR-PLACE-4)", off);
	}
	tqp_close(&q);
}

static void c_send(struct tctx *t)
{
	send_case(t, MR_OP_SEND, 300);
}

static void c_send_imm(struct tctx *t)
{
	send_case(t, MR_OP_SEND_IMM, 1500);
}

/* A WRITE_IMM into MR 0 with a receive WQE posted: placed, ACKed, and a
 * receive completion with the immediate and the WRITE's length (MR-VERBS-6). */
static void c_write_imm(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[500];
	uint32_t ts;
	struct ack_expect e;
	struct cqe c[2];

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, agent("RECV %d 88 1 0 64", q.id), "agent: RECV: %s", agent_err);
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = tx_write(&q, MR_OP_WRITE_IMM, q.psn, 0, 8192, sizeof(pl), 0, pl,
		      MR_F_ACKREQ, DUT.rkey0);
	memcpy(mem0 + 8192, pl, sizeof(pl));
	e = ack_of(&q, q.psn + 1, 1, ts);
	ack_expect(t, &q, "ACK of the WRITE_IMM", &e);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no receive completion (MR-PLACE-13)");
	EXPECT(t, c[0].wrid == 88 && c[0].status == IBV_WC_SUCCESS, "CQE wr_id %llu status %d",
	       (unsigned long long)c[0].wrid, c[0].status);
	EXPECT(t, c[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM,
	       "CQE opcode %d, want IBV_WC_RECV_RDMA_WITH_IMM (MR-VERBS-6)", c[0].opcode);
	EXPECT(t, (c[0].wc_flags & IBV_WC_WITH_IMM) && c[0].imm == 0x1234ABCD,
	       "CQE imm %#x flags %#x, want 0x1234abcd WITH_IMM (MR-VERBS-6)", c[0].imm,
	       c[0].wc_flags);
	EXPECT(t, c[0].byte_len == sizeof(pl),
	       "CQE byte_len %u, want the WRITE's length %zu (MR-VERBS-6)", c[0].byte_len,
	       sizeof(pl));
	mem_check(t, "after the WRITE_IMM", "MR-PLACE-13");
	tqp_close(&q);
}

static void c_read_resp(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	const uint32_t moff = 1000, len = 2500;
	unsigned int got = 0;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	req_fill(&p, &q, MR_OP_READ_REQ, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msn = 0;
	p.dxh.offset = 0;
	p.dxh.msg_len = len;
	p.rxh.va = DUT.addr0 + moff;
	p.rxh.rkey = DUT.rkey0;
	tx_pkt(&p);
	for (unsigned int k = 0; k < 3; k++) {
		struct rxpkt r;
		uint32_t off = k * PMTU, n = len - off < PMTU ? len - off : PMTU;
		uint16_t fl = (k == 0 ? MR_F_FIRST : 0) | (k == 2 ? MR_F_LAST : 0);

		if (!rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_RESP, &r))
			break;
		got++;
		EXPECT(t, r.icrc == 0, "READ_RESP %u: ICRC wrong (MR-ICRC-1..3)", k);
		EXPECT(t, r.p.psn == q.psn, "READ_RESP %u: psn %#x, want the READ_REQ's %#x (MR-HDR-8)",
		       k, r.p.psn, q.psn);
		EXPECT(t, r.p.sqpn == q.dut_qpn && r.p.dqpn == q.my_qpn,
		       "READ_RESP %u: QPNs %#x -> %#x (MR-HDR-7)", k, r.p.sqpn, r.p.dqpn);
		EXPECT(t, r.p.path == q.path, "READ_RESP %u: path %u, want the request's %u (MR-HDR-6)",
		       k, r.p.path, q.path);
		EXPECT(t, r.p.dxh.msn == 0 && r.p.dxh.ssn == 0,
		       "READ_RESP %u: msn %u ssn %u, want 0 0 (MR-HDR-10)", k, r.p.dxh.msn,
		       r.p.dxh.ssn);
		EXPECT(t, r.p.dxh.offset == off && r.p.dxh.msg_len == len,
		       "READ_RESP %u: offset %u msg_len %u, want %u %u (MR-HDR-10, MR-HDR-24)",
		       k, r.p.dxh.offset, r.p.dxh.msg_len, off, len);
		EXPECT(t, (r.p.flags & (MR_F_FIRST | MR_F_LAST)) == fl,
		       "READ_RESP %u: flags %#x, want FIRST/LAST %#x (MR-HDR-24)", k, r.p.flags, fl);
		EXPECT(t, !(r.p.flags & (MR_F_RETX | MR_F_TRIM)), "READ_RESP %u: RETX/TRIM set", k);
		EXPECT(t, r.p.payload_len == n && !memcmp(r.p.payload, mem0 + moff + off, n),
		       "READ_RESP %u: %u payload bytes, not the %u bytes of the MR at %u (MR-HDR-24)",
		       k, r.p.payload_len, n, moff + off);
	}
	EXPECT(t, got == 3, "%u READ_RESPs within %.1f s each, want 3", got, WAIT_RESP * O.slow);
	{
		struct rxpkt r;

		EXPECT(t, !rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_SILENT, &r),
		       "a fourth READ_RESP (psn %#x offset %u)", r.p.psn, r.p.dxh.offset);
	}
	mem_check(t, "a READ changes nothing", "MR-PLACE-8");
	tqp_close(&q);
}

/* One ATOMIC_* request; the ATOMIC_RESP checked; its orig in @orig. */
bool atomic_rt(struct tctx *t, struct tqp *q, uint8_t op, uint32_t psn,
		      uint32_t moff, uint64_t add_swap, uint64_t cmp, uint16_t extra,
		      uint64_t *orig)
{
	struct mr_pkt p;
	struct rxpkt r;

	req_fill(&p, q, op, psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ | extra);
	p.dxh.msn = q->msn;
	p.dxh.msg_len = MR_ATOMIC_LEN;
	p.axh.va = DUT.addr0 + moff;
	p.axh.rkey = DUT.rkey0;
	p.axh.swap_add = add_swap;
	p.axh.compare = cmp;
	tx_pkt(&p);
	if (!rx_take(q->my_qpn, MR_OP_ATOMIC_RESP, WAIT_RESP, &r)) {
		fail_at(t, __LINE__, "no ATOMIC_RESP for psn %#x", psn);
		return false;
	}
	EXPECT(t, r.icrc == 0, "ATOMIC_RESP: ICRC wrong");
	EXPECT(t, r.p.psn == (psn & MR_PSN_MASK), "ATOMIC_RESP psn %#x, want %#x (MR-HDR-8)",
	       r.p.psn, psn & MR_PSN_MASK);
	EXPECT(t, r.p.dxh.msn == q->msn && r.p.dxh.offset == 0 && r.p.dxh.msg_len == 8,
	       "ATOMIC_RESP DXH msn %u offset %u msg_len %u, want %u 0 8 (MR-HDR-25)",
	       r.p.dxh.msn, r.p.dxh.offset, r.p.dxh.msg_len, q->msn);
	EXPECT(t, (r.p.flags & (MR_F_FIRST | MR_F_LAST)) == (MR_F_FIRST | MR_F_LAST),
	       "ATOMIC_RESP without FIRST|LAST (MR-HDR-23)");
	EXPECT(t, r.p.path == q->path, "ATOMIC_RESP path %u, want %u (MR-HDR-6)", r.p.path,
	       q->path);
	EXPECT(t, r.p.sqpn == q->dut_qpn, "ATOMIC_RESP sqpn %#x (MR-HDR-7)", r.p.sqpn);
	EXPECT(t, !(extra & MR_F_RETX) || (r.p.flags & MR_F_RETX),
	       "the answer to a duplicate atomic lacks RETX (MR-REL-9)");
	*orig = r.p.atomic_orig;
	return true;
}

/* The 64-bit word at @moff of mem0 in the DUT's byte order: the agent's
 * hosts are little-endian (x86, documented in conformance.rst). */
uint64_t word_at(uint32_t moff)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | mem0[moff + (uint32_t)i];
	return v;
}

void word_put(uint32_t moff, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		mem0[moff + (uint32_t)i] = (uint8_t)(v >> (8 * i));
}

static void c_atomic_fa(struct tctx *t)
{
	struct tqp q;
	uint64_t orig, w;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	w = word_at(16);
	if (atomic_rt(t, &q, MR_OP_ATOMIC_FA, q.psn, 16, 0x10, 0, 0, &orig)) {
		EXPECT(t, orig == w, "ATOMIC_RESP orig %#llx, want the MR's %#llx (MR-VERBS-13)",
		       (unsigned long long)orig, (unsigned long long)w);
		word_put(16, w + 0x10);
	}
	net_pump(0.1);
	mem_check(t, "after FETCH_ADD", "MR-VERBS-13");
	tqp_close(&q);
}

static void c_atomic_cs(struct tctx *t)
{
	struct tqp q;
	uint64_t orig, w;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	w = word_at(64);
	if (atomic_rt(t, &q, MR_OP_ATOMIC_CS, q.psn, 64, 0x1122334455667788ull, w, 0, &orig)) {
		EXPECT(t, orig == w, "CS orig %#llx, want %#llx (MR-VERBS-13)",
		       (unsigned long long)orig, (unsigned long long)w);
		word_put(64, 0x1122334455667788ull);
	}
	q.msn++;
	/* A compare that does not match: no swap. */
	if (atomic_rt(t, &q, MR_OP_ATOMIC_CS, q.psn + 1, 64, 0x99, w, 0, &orig))
		EXPECT(t, orig == 0x1122334455667788ull,
		       "second CS orig %#llx, want the swapped value (MR-VERBS-13)",
		       (unsigned long long)orig);
	net_pump(0.1);
	mem_check(t, "after two CMP_SWAPs", "MR-VERBS-13");
	tqp_close(&q);
}

static void c_dup_atomic(struct tctx *t)
{
	struct tqp q;
	uint64_t o1, o2, w;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	w = word_at(128);
	if (!atomic_rt(t, &q, MR_OP_ATOMIC_FA, q.psn, 128, 1, 0, 0, &o1))
		goto out;
	word_put(128, w + 1);
	net_pump(0.1);
	rx_flush();
	if (atomic_rt(t, &q, MR_OP_ATOMIC_FA, q.psn, 128, 1, 0, MR_F_RETX, &o2))
		EXPECT(t, o2 == o1, "duplicate's orig %#llx, want the cached %#llx (MR-REL-9, MR-VERBS-14)",
		       (unsigned long long)o2, (unsigned long long)o1);
	net_pump(0.1);
	mem_check(t, "executed once", "MR-VERBS-14");
out:
	tqp_close(&q);
}

static void c_dup_write(struct tctx *t)
{
	struct tqp q;
	uint8_t a[600], b[600];
	uint32_t ts, psn;
	uint64_t dup0 = counter_now("dup");
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	psn = q.psn;
	mrc_pat_fill(a, seed_new(), 0, sizeof(a));
	mrc_pat_fill(b, seed_new(), 0, sizeof(b));
	ts = tx_write(&q, MR_OP_WRITE, psn, 0, 3000, sizeof(a), 0, a, MR_F_ACKREQ, DUT.rkey0);
	memcpy(mem0 + 3000, a, sizeof(a));
	e = ack_of(&q, psn + 1, 1, ts);
	ack_expect(t, &q, "ACK of the WRITE", &e);
	/* The same PSN again with other bytes: a duplicate, never placed,
	 * ACKed at once echoing its timestamp (MR-REL-7). */
	ts = tx_write(&q, MR_OP_WRITE, psn, 0, 3000, sizeof(b), 0, b,
		      MR_F_ACKREQ | MR_F_RETX, DUT.rkey0);
	e.ts_echo = ts;
	ack_expect(t, &q, "ACK of the duplicate", &e);
	mem_check(t, "the duplicate was placed", "MR-REL-7, MR-PLACE-8");
	counter_moved(t, "dup", dup0, "MR-REL-7");
	tqp_close(&q);
}

static void c_beyond_window(struct tctx *t)
{
	struct tqp q;
	uint8_t a[256];
	uint32_t ts, far;
	uint64_t c0 = counter_now("psn");
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	far = (q.psn + 1000) & MR_PSN_MASK;
	mrc_pat_fill(a, seed_new(), 0, sizeof(a));
	ts = tx_write(&q, MR_OP_WRITE, far, 0, 500, sizeof(a), 0, a, MR_F_ACKREQ, DUT.rkey0);
	e = nack_of(&q, q.psn, 0, ts, MR_NACK_SEQ_ERR, far);
	ack_expect(t, &q, "NACK SEQ_ERR for PSN+1000", &e);
	mem_check(t, "a beyond-window packet was placed", "MR-REL-10, MR-PLACE-8");
	counter_moved(t, "psn", c0, "MR-REL-10");
	/* The window did not move: the expected PSN is still taken. */
	write_ok(t, &q, 900, 64, "ACK of the expected PSN after it");
	mem_check(t, "after the in-window WRITE", "MR-REL-1");
	tqp_close(&q);
}

/* A WRITE at the expected PSN mangled by @mangle (then its ICRC fixed
 * unless @keep_icrc_bad); the DUT must stay silent, count @cnt, place
 * nothing, and then take the same PSN when it arrives intact. */
static void dropped_case(struct tctx *t, void (*mangle)(uint8_t *b, uint32_t len),
			 bool icrc_bad, const char *cnt, const char *ids)
{
	struct tqp q;
	uint8_t pl[400], b[RX_BUF];
	struct mr_pkt p;
	uint32_t n;
	uint64_t c0 = counter_now(cnt);

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	req_fill(&p, &q, MR_OP_WRITE, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msg_len = sizeof(pl);
	p.rxh.va = DUT.addr0 + 7000;
	p.rxh.rkey = DUT.rkey0;
	p.payload = pl;
	p.payload_len = sizeof(pl);
	n = pkt_build(&p, b, sizeof(b));
	if (mangle)
		mangle(b, n);
	if (icrc_bad)
		b[n - 1] ^= 0x5A;
	else
		mr_icrc_put(b, n - MR_ICRC_LEN);
	tx_bytes(b, n);
	expect_silence(t, &q, "the malformed packet", ids);
	mem_check(t, "the malformed packet was placed", ids);
	counter_moved(t, cnt, c0, ids);
	/* It changed no state: the same PSN intact is accepted (MR-MAL-1). */
	write_ok(t, &q, 7000, sizeof(pl), "ACK of the intact packet after it");
	mem_check(t, "after the intact WRITE", "MR-MAL-1");
	tqp_close(&q);
}

static void c_bad_icrc(struct tctx *t)
{
	dropped_case(t, NULL, true, "icrc", "MR-ICRC-4");
}

static void m_version(uint8_t *b, uint32_t len)
{
	(void)len;
	b[0] = 2 << 4;
}

static void c_bad_version(struct tctx *t)
{
	dropped_case(t, m_version, false, "version", "MR-VER-1");
}

static void m_opcode(uint8_t *b, uint32_t len)
{
	(void)len;
	b[1] = 0x40;	/* reserved for future versions (MR-VER-5) */
}

static void c_unknown_opcode(struct tctx *t)
{
	dropped_case(t, m_opcode, false, "opcode", "MR-VER-4");
}

static void m_rsvd(uint8_t *b, uint32_t len)
{
	(void)len;
	b[0] |= 0x01;	/* the low nibble of MBH byte 0 */
}

static void c_reserved_nibble(struct tctx *t)
{
	dropped_case(t, m_rsvd, false, "rsvd", "MR-VER-3");
}

static void c_bad_rkey(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[300];
	uint32_t ts;
	struct ack_expect e;
	struct rxpkt r;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	/* An earlier WRITE succeeds and stays (MR-VERBS-24). */
	write_ok(t, &q, 0, 200, "ACK of the good WRITE");
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = tx_write(&q, MR_OP_WRITE, q.psn, q.msn, 1000, sizeof(pl), 0, pl, MR_F_ACKREQ,
		      DUT.rkey0 ^ 0x5A5A00);
	e = nack_of(&q, q.psn, q.msn, ts, MR_NACK_REMOTE_ACCESS, q.psn);
	ack_expect(t, &q, "NACK REMOTE_ACCESS for the bad R_Key", &e);
	mem_check(t, "bytes placed under a bad R_Key", "MR-PLACE-3, MR-VERBS-21");
	EXPECT(t, !rx_take(q.my_qpn, MR_OP_NACK, WAIT_SILENT, &r),
	       "a second NACK for the condition (MR-REL-18)");
	expect_state(t, &q, "ERR", "MR-VERBS-24");
	tqp_close(&q);
}

static void c_read_out_of_range(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	struct ack_expect e;
	struct rxpkt r;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	req_fill(&p, &q, MR_OP_READ_REQ, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msg_len = 200;
	p.rxh.va = DUT.addr0 + MR_LEN - 100;	/* 100 bytes past the MR's end */
	p.rxh.rkey = DUT.rkey0;
	tx_pkt(&p);
	e = nack_of(&q, q.psn, 0, p.ts, MR_NACK_REMOTE_ACCESS, q.psn);
	ack_expect(t, &q, "NACK REMOTE_ACCESS for a READ past the MR", &e);
	EXPECT(t, !rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_SILENT, &r),
	       "a READ_RESP for a READ past the MR (MR-VERBS-21)");
	tqp_close(&q);
}


/* ------------------------------------------------------------------ */
/* More of REL: duplicates and old PSNs                               */

static void c_dup_below_cum(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[128];
	uint32_t ts;
	uint64_t c0 = counter_now("dup");
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	write_ok(t, &q, 0, 64, "ACK of the first WRITE");
	/* 5 PSNs before cum_psn: a duplicate (d >= 2^24 - 256), ACKed at
	 * once and never placed, although this QP never sent it. */
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = tx_write(&q, MR_OP_WRITE, q.psn - 5, 0, 10000, sizeof(pl), 0, pl,
		      MR_F_ACKREQ, DUT.rkey0);
	e = ack_of(&q, q.psn, q.msn, ts);
	ack_expect(t, &q, "ACK of a duplicate PSN before cum_psn", &e);
	mem_check(t, "a duplicate was placed", "MR-REL-1, MR-REL-7, MR-PLACE-8");
	counter_moved(t, "dup", c0, "MR-REL-7");
	tqp_close(&q);
}

static void c_old_psn(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[128];
	uint64_t c0 = counter_now("stale");

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	/* 1000 PSNs before cum_psn: old (2^23 <= d < 2^24 - 256), dropped
	 * and counted without any response (MR-REL-1). */
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	tx_write(&q, MR_OP_WRITE, q.psn - 1000, 0, 10000, sizeof(pl), 0, pl, MR_F_ACKREQ,
		 DUT.rkey0);
	expect_silence(t, &q, "an old PSN", "MR-REL-1");
	mem_check(t, "an old PSN was placed", "MR-REL-1, MR-PLACE-8");
	counter_moved(t, "stale", c0, "MR-REL-1");
	write_ok(t, &q, 10000, sizeof(pl), "ACK of the expected PSN after it");
	tqp_close(&q);
}

/* A READ of @len at MR 0 offset 0 from @q at q->psn; its READ_RESPs
 * checked against mem0, RETX required if @retx. Returns how many came. */
static unsigned int read_rt(struct tctx *t, struct tqp *q, uint32_t len, uint16_t extra,
			    bool retx)
{
	struct mr_pkt p;
	unsigned int np = (len + PMTU - 1) / PMTU, got = 0;

	req_fill(&p, q, MR_OP_READ_REQ, q->psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ | extra);
	p.dxh.msn = 0;
	p.dxh.msg_len = len;
	p.rxh.va = DUT.addr0;
	p.rxh.rkey = DUT.rkey0;
	tx_pkt(&p);
	for (unsigned int k = 0; k < np; k++) {
		struct rxpkt r;
		uint32_t off;

		if (!rx_take(q->my_qpn, MR_OP_READ_RESP, WAIT_RESP, &r))
			break;
		got++;
		off = r.p.dxh.offset;
		EXPECT(t, r.p.psn == q->psn && off < len && off % PMTU == 0 &&
		       r.p.payload_len == (len - off < PMTU ? len - off : PMTU) &&
		       !memcmp(r.p.payload, mem0 + off, r.p.payload_len),
		       "READ_RESP psn %#x offset %u len %u: not the MR's bytes (MR-REL-8)",
		       r.p.psn, off, r.p.payload_len);
		EXPECT(t, !retx || (r.p.flags & MR_F_RETX),
		       "a re-executed READ's READ_RESP without RETX (MR-REL-8)");
	}
	return got;
}

static void c_dup_read_again(struct tctx *t)
{
	struct tqp q;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, read_rt(t, &q, 2048, 0, false) == 2, "the READ got no 2 READ_RESPs");
	net_pump(0.1);
	rx_flush();
	/* The same READ_REQ again: executed again for its range, RETX set. */
	EXPECT(t, read_rt(t, &q, 2048, MR_F_RETX, true) == 2,
	       "a duplicate READ_REQ within the executed range got no 2 READ_RESPs (MR-REL-8)");
	tqp_close(&q);
}

/* A READ executed, then its PSN again for 4096 bytes: outside what the
 * READ covered, dropped and counted without any response (MR-REL-8).
 * @silence: check that nothing at all comes back, else that no READ_RESP
 * does and the drop is counted. */
static void dup_read_outside(struct tctx *t, bool silence)
{
	struct tqp q;
	uint64_t c0 = counter_now("replay");

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, read_rt(t, &q, 2048, 0, false) == 2, "the READ got no 2 READ_RESPs");
	net_pump(0.1);
	rx_flush();
	if (silence) {
		struct mr_pkt p;

		req_fill(&p, &q, MR_OP_READ_REQ, q.psn,
			 MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ | MR_F_RETX);
		p.dxh.msg_len = 4096;
		p.rxh.va = DUT.addr0;
		p.rxh.rkey = DUT.rkey0;
		tx_pkt(&p);
		expect_silence(t, &q, "a replayed READ_REQ outside its record", "MR-REL-8");
	} else {
		EXPECT(t, read_rt(t, &q, 4096, MR_F_RETX, true) == 0,
		       "a duplicate READ_REQ beyond the executed range was answered (MR-REL-8)");
		counter_moved(t, "replay", c0, "MR-REL-8");
	}
	tqp_close(&q);
}

static void c_dup_read_outside(struct tctx *t)
{
	dup_read_outside(t, false);
}

static void c_dup_read_outside_silent(struct tctx *t)
{
	dup_read_outside(t, true);
}

/* ------------------------------------------------------------------ */
/* More of VERBS: responder errors                                    */

static void c_no_write_access(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[256];
	uint32_t ts;
	struct ack_expect e;

	if (!mem_reset(t) ||
	    !tqp_open(t, &q, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = tx_write(&q, MR_OP_WRITE, q.psn, 0, 600, sizeof(pl), 0, pl, MR_F_ACKREQ, DUT.rkey0);
	e = nack_of(&q, q.psn, 0, ts, MR_NACK_INVALID_REQ, q.psn);
	ack_expect(t, &q, "NACK INVALID_REQ for a WRITE the QP does not enable", &e);
	mem_check(t, "a WRITE the QP does not enable was placed", "MR-VERBS-21");
	expect_state(t, &q, "ERR", "MR-VERBS-21");
	tqp_close(&q);
}

/* A one-packet @op of @len bytes into a receive WQE of @wqe_len bytes that
 * the DUT must refuse: NACK INVALID_REQ at its PSN, the WQE completed with
 * @status, the QP in Error (MR-VERBS-21, MR-VERBS-24). */
static void recv_refused(struct tctx *t, uint8_t op, uint32_t len, uint32_t wqe_len,
			 uint32_t inv_rkey, int status, const char *what)
{
	struct tqp q;
	uint32_t ts;
	uint8_t pl[PMTU];
	struct ack_expect e;
	struct cqe c[2];

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, agent("RECV %d 99 1 0 %u", q.id, wqe_len), "agent: RECV: %s", agent_err);
	mrc_pat_fill(pl, seed_new(), 0, len);
	ts = tx_send1(&q, op, q.psn, 0, pl, len, inv_rkey);
	e = nack_of(&q, q.psn, 0, ts, MR_NACK_INVALID_REQ, q.psn);
	ack_expect(t, &q, what, &e);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no completion of the receive WQE (MR-VERBS-21)");
	EXPECT(t, c[0].wrid == 99 && c[0].status == status,
	       "receive CQE wr_id %llu status %d, want %d (MR-VERBS-21)",
	       (unsigned long long)c[0].wrid, c[0].status, status);
	expect_state(t, &q, "ERR", "MR-VERBS-21");
	tqp_close(&q);
}

static void c_send_inv_bad_key(struct tctx *t)
{
	/* DUT.rkey0 ^ 0xFFFF00: no key of the DUT */
	recv_refused(t, MR_OP_SEND_INV, 100, 4096, DUT.rkey0 ^ 0xFFFF00, IBV_WC_REM_INV_REQ_ERR,
		     "NACK INVALID_REQ for SEND_INV of an unknown key");
}

static void c_send_too_long(struct tctx *t)
{
	recv_refused(t, MR_OP_SEND, 200, 64, 0, IBV_WC_LOC_LEN_ERR,
		     "NACK INVALID_REQ for a SEND longer than its receive WQE");
}

static void c_rnr(struct tctx *t)
{
	struct tqp q;
	uint32_t ts;
	uint8_t pl[100];
	struct ack_expect e;
	struct cqe c[2];

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = tx_send1(&q, MR_OP_SEND, q.psn, 0, pl, sizeof(pl), 0);
	/* No receive WQE: NACK RNR with the QP's min_rnr_timer (12, set by
	 * the agent), the QP kept (MR-VERBS-19, MR-REL-17). */
	e = nack_of(&q, q.psn, 0, ts, MR_NACK_RNR, q.psn);
	e.rnr_timer = 12;
	ack_expect(t, &q, "NACK RNR for a SEND without a receive WQE", &e);
	expect_state(t, &q, "RTS", "MR-VERBS-19");
	REQUIRE(t, agent("RECV %d 98 1 0 4096", q.id), "agent: RECV: %s", agent_err);
	ts = tx_send1(&q, MR_OP_SEND, q.psn, MR_F_RETX, pl, sizeof(pl), 0);
	e = ack_of(&q, q.psn + 1, 1, ts);
	ack_expect(t, &q, "ACK of the SEND resent after RNR (its PSN was not marked)", &e);
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].wrid == 98 &&
	       c[0].status == IBV_WC_SUCCESS && c[0].byte_len == sizeof(pl),
	       "no successful receive completion after the resend");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* TRIM: a request whose payload a switch cut                         */

static void c_trimmed_write(struct tctx *t)
{
	struct tqp q;
	uint8_t b[RX_BUF];
	struct mr_pkt p;
	uint32_t n;
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	/* A 600-byte WRITE cut to its headers and 4 bytes in the ICRC
	 * position (MR-ICRC-5): TRIM set, no payload. */
	req_fill(&p, &q, MR_OP_WRITE, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ | MR_F_TRIM);
	p.dxh.msg_len = 600;
	p.rxh.va = DUT.addr0 + 12000;
	p.rxh.rkey = DUT.rkey0;
	n = pkt_build(&p, b, sizeof(b));
	memcpy(b + n - MR_ICRC_LEN, "\xde\xad\xbe\xef", MR_ICRC_LEN);
	tx_bytes(b, n);
	e = nack_of(&q, q.psn, 0, p.ts, MR_NACK_TRIMMED, q.psn);
	ack_expect(t, &q, "NACK TRIMMED for a trimmed WRITE", &e);
	mem_check(t, "a trimmed packet placed data", "MR-REL-16, MR-TRIM-3");
	/* Its PSN was not marked received: the whole packet is accepted. */
	write_ok(t, &q, 12000, 600, "ACK of the WRITE resent whole");
	mem_check(t, "after the whole WRITE", "MR-REL-16");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* VER-2 and MAL: headers the receiver ignores or drops               */

static void c_reserved_flags(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[300], b[RX_BUF];
	struct mr_pkt p;
	uint32_t n;
	struct ack_expect e;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	req_fill(&p, &q, MR_OP_WRITE, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msg_len = sizeof(pl);
	p.rxh.va = DUT.addr0 + 5000;
	p.rxh.rkey = DUT.rkey0;
	p.payload = pl;
	p.payload_len = sizeof(pl);
	n = pkt_build(&p, b, sizeof(b));
	b[2] |= 0xFF;	/* flag bits 8..15 (MBH bytes 2-3, big-endian) */
	b[3] |= 0x80;	/* and bit 7 */
	mr_icrc_put(b, n - MR_ICRC_LEN);
	tx_bytes(b, n);
	memcpy(mem0 + 5000, pl, sizeof(pl));
	e = ack_of(&q, q.psn + 1, 1, p.ts);
	ack_expect(t, &q, "ACK of a WRITE with reserved flag bits set", &e);
	mem_check(t, "a WRITE with reserved flag bits", "MR-VER-2");
	tqp_close(&q);
}

static void m_path64(uint8_t *b, uint32_t len)
{
	(void)len;
	b[4] = MR_MAX_PATHS;	/* MBH.path must be < 64 */
}

static void c_path64(struct tctx *t)
{
	dropped_case(t, m_path64, false, "field", "MR-MAL-6, MR-HDR-6, MR-MAL-1");
}

static void m_qpn(uint8_t *b, uint32_t len)
{
	(void)len;
	b[5] ^= 0x80;	/* a destination QPN the DUT does not have */
}

static void c_unknown_qpn(struct tctx *t)
{
	dropped_case(t, m_qpn, false, "qp", "MR-MAL-2, MR-MAL-1");
}

static void m_ece(uint8_t *b, uint32_t len)
{
	(void)len;
	b[3] |= MR_F_ECE;	/* ECE only on ACK/NACK */
}

static void c_ece_request(struct tctx *t)
{
	dropped_case(t, m_ece, false, "flags", "MR-HDR-22, MR-MAL-2, MR-MAL-1");
}

static void m_read_payload(uint8_t *b, uint32_t len)
{
	(void)len;
	b[1] = MR_OP_READ_REQ;	/* same headers as WRITE; a READ_REQ has no payload */
}

static void c_read_req_payload(struct tctx *t)
{
	dropped_case(t, m_read_payload, false, "payload", "MR-HDR-21, MR-MAL-2, MR-MAL-1");
}

/* ------------------------------------------------------------------ */
/* Memory windows (MW)                                                */

/* The DUT's MR 2, registered with IBV_ACCESS_MW_BIND by the first window
 * case (the agent's session keeps it); false: reported. */
static uint64_t mw_mr_addr;

static bool mw_mr(struct tctx *t)
{
	const char *a;

	if (mw_mr_addr)
		return true;
	a = agent("MR 2 %u 0x%x 3", MR_LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	if (!a || !kv_u64(a, "addr", &mw_mr_addr)) {
		fail_at(t, __LINE__, "agent: MR 2 with IBV_ACCESS_MW_BIND: %s", agent_err);
		return false;
	}
	return true;
}

/* Window 0 of type 2 bound on @q to [1024, 2048) of MR 2, remote write only;
 * its R_Key into *@key and address into *@va. */
static bool mw_bind2(struct tctx *t, struct tqp *q, uint64_t *key, uint64_t *va)
{
	const char *a;
	struct cqe c[1];

	a = agent("MW 0 %d 2 2 1024 1024 0x%x", q->id,
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!a || !kv_u64(a, "rkey", key) || !kv_u64(a, "addr", va)) {
		fail_at(t, __LINE__, "agent: MW (a type 2 bind): %s", agent_err);
		return false;
	}
	if (cqe_wait(q, c, 1, WAIT_RESP) != 1 || c[0].wrid != MRC_MW_WRID ||
	    c[0].status != IBV_WC_SUCCESS) {
		fail_at(t, __LINE__, "the DUT's bind did not complete successfully");
		return false;
	}
	return true;
}

/* A one-packet WRITE of @n bytes at @va through @rkey; its ts. */
static uint32_t mw_write(struct tqp *q, uint64_t va, const uint8_t *pl, uint32_t n,
			 uint32_t rkey)
{
	struct mr_pkt p;

	req_fill(&p, q, MR_OP_WRITE, q->psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msn = q->msn;
	p.dxh.msg_len = n;
	p.rxh.va = va;
	p.rxh.rkey = rkey;
	p.payload = pl;
	p.payload_len = n;
	tx_pkt(&p);
	return p.ts;
}

/* MR 2 at @off holds @want. */
static void mw_mem(struct tctx *t, uint32_t off, const uint8_t *want, uint32_t n,
		   const char *what)
{
	uint8_t back[256];

	if (n > sizeof(back) || !mr_read(2, off, n, back)) {
		fail_at(t, __LINE__, "agent: READMR 2: %s", agent_err);
		return;
	}
	EXPECT(t, !memcmp(back, want, n), "%s", what);
}

/* A type 2 window: a WRITE through it is placed; the tester's SEND_INV of
 * its key invalidates it (receive CQE WITH_INV); a WRITE through it then
 * gets NACK REMOTE_ACCESS and places nothing. */
static void c_mw_type2_inv(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[200], old[200];
	uint64_t key, va;
	struct ack_expect e;
	struct mr_pkt p;
	struct cqe c[1];
	uint32_t ts;

	if (!mw_mr(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	if (!mw_bind2(t, &q, &key, &va))
		goto out;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = mw_write(&q, va + 512, pl, sizeof(pl), (uint32_t)key);
	q.psn = (q.psn + 1) & MR_PSN_MASK;
	q.msn++;
	e = ack_of(&q, q.psn, q.msn, ts);
	ack_expect(t, &q, "ACK of a WRITE through the window", &e);
	mw_mem(t, 1024 + 512, pl, sizeof(pl),
	       "a WRITE through a bound window was not placed (MR-MW-2)");
	memcpy(old, pl, sizeof(old));

	/* MR-MW-5: the peer of the QP it is bound to invalidates it. */
	if (!agent("RECV %d 77 1 0 64", q.id)) {
		fail_at(t, __LINE__, "agent: RECV: %s", agent_err);
		goto out;
	}
	req_fill(&p, &q, MR_OP_SEND_INV, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msn = q.msn;
	p.dxh.ssn = q.ssn;
	p.dxh.msg_len = 16;
	p.inv_rkey = (uint32_t)key;
	p.payload = pl;
	p.payload_len = 16;
	tx_pkt(&p);
	q.psn = (q.psn + 1) & MR_PSN_MASK;
	q.msn++;
	q.ssn++;
	e = ack_of(&q, q.psn, q.msn, p.ts);
	ack_expect(t, &q, "ACK of the SEND_INV of the window's key", &e);
	if (cqe_wait(&q, c, 1, WAIT_RESP) != 1) {
		fail_at(t, __LINE__, "no receive completion of the SEND_INV (MR-VERBS-16)");
		goto out;
	}
	EXPECT(t, c[0].wrid == 77 && c[0].status == IBV_WC_SUCCESS &&
	       (c[0].wc_flags & IBV_WC_WITH_INV) && c[0].imm == (uint32_t)key,
	       "SEND_INV's CQE wr_id %llu status %d flags %#x rkey %#x, want WITH_INV of %#x "
	       "(MR-VERBS-16, MR-MW-5)", (unsigned long long)c[0].wrid, c[0].status,
	       c[0].wc_flags, c[0].imm, (unsigned int)key);

	/* MR-MW-2: the invalidated key is refused, nothing placed. */
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = mw_write(&q, va + 512, pl, sizeof(pl), (uint32_t)key);
	e = nack_of(&q, q.psn, q.msn, ts, MR_NACK_REMOTE_ACCESS, q.psn);
	ack_expect(t, &q, "NACK REMOTE_ACCESS through an invalidated window", &e);
	mw_mem(t, 1024 + 512, old, sizeof(old),
	       "bytes placed through an invalidated window (MR-MW-2, MR-MW-5)");
	expect_state(t, &q, "ERR", "MR-VERBS-21");
out:
	tqp_close(&q);
	agent("MWFREE 0");
}

/* A type 2 window is reached only in its range and through its QP: a
 * WRITE from another QP of the PD, and one running past the window's end
 * (still inside the MR), both get NACK REMOTE_ACCESS and place nothing. */
static void c_mw_type2_bounds(struct tctx *t)
{
	struct tqp q, q2;
	uint8_t pl[128], old[128];
	uint64_t key, va;
	struct ack_expect e;
	uint32_t ts;

	if (!mw_mr(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	if (!tqp_open(t, &q2, ACC_ALL)) {
		tqp_close(&q);
		return;
	}
	if (!mw_bind2(t, &q, &key, &va))
		goto out;
	if (!mr_read(2, 1024 + 1000, sizeof(old), old)) {
		fail_at(t, __LINE__, "agent: READMR 2: %s", agent_err);
		goto out;
	}
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	ts = mw_write(&q2, va, pl, sizeof(pl), (uint32_t)key);
	e = nack_of(&q2, q2.psn, q2.msn, ts, MR_NACK_REMOTE_ACCESS, q2.psn);
	ack_expect(t, &q2, "NACK REMOTE_ACCESS through a window bound to another QP", &e);
	ts = mw_write(&q, va + 1000, pl, sizeof(pl), (uint32_t)key);
	e = nack_of(&q, q.psn, q.msn, ts, MR_NACK_REMOTE_ACCESS, q.psn);
	ack_expect(t, &q, "NACK REMOTE_ACCESS for a WRITE past the window", &e);
	mw_mem(t, 1024 + 1000, old, sizeof(old),
	       "bytes placed past a window or through another QP (MR-MW-2)");
out:
	tqp_close(&q2);
	tqp_close(&q);
	agent("MWFREE 0");
}

const struct tcase cases_resp[] = {
	{ "REL", "write_1pkt_ack", "MR-REL-2, MR-REL-3, MR-REL-11, MR-REL-12, MR-HDR-6, MR-PLACE-3",
	  c_write_1pkt, NULL },
	{ "REL", "write_3pkt_ack", "MR-HDR-4, MR-PLACE-1, MR-PLACE-2, MR-PLACE-3, MR-REL-3, MR-REL-11",
	  c_write_3pkt, NULL },
	{ "REL", "ooo_sack", "MR-REL-1..3, MR-REL-11, MR-PLACE-1", c_ooo_sack, NULL },
	{ "PLACE", "send_recv", "MR-PLACE-2, MR-PLACE-4, MR-PLACE-5, MR-VERBS-6", c_send, NULL },
	{ "PLACE", "send_imm_2pkt", "MR-PLACE-4, MR-PLACE-5, MR-VERBS-6, MR-HDR-4", c_send_imm, NULL },
	{ "PLACE", "write_imm", "MR-PLACE-13, MR-VERBS-6", c_write_imm, NULL },
	{ "REL", "read_resp", "MR-HDR-6..8, MR-HDR-10, MR-HDR-24, MR-ICRC-1..3, MR-PLACE-8",
	  c_read_resp, NULL },
	{ "VERBS", "atomic_fetch_add", "MR-VERBS-13, MR-HDR-23, MR-HDR-25, MR-HDR-8", c_atomic_fa, NULL },
	{ "VERBS", "atomic_cmp_swap", "MR-VERBS-13, MR-HDR-25", c_atomic_cs, NULL },
	{ "REL", "dup_atomic_cached", "MR-REL-9, MR-VERBS-14", c_dup_atomic, NULL },
	{ "REL", "dup_write_not_placed", "MR-REL-1, MR-REL-7, MR-PLACE-8", c_dup_write, NULL },
	{ "REL", "beyond_window_seq_err", "MR-REL-1, MR-REL-10, MR-REL-15, MR-PLACE-8",
	  c_beyond_window, NULL },
	{ "ICRC", "bad_icrc_dropped", "MR-ICRC-4, MR-MAL-1", c_bad_icrc, NULL },
	{ "VER", "bad_version_dropped", "MR-VER-1, MR-MAL-1", c_bad_version, NULL },
	{ "VER", "unknown_opcode_dropped", "MR-VER-4, MR-VER-5, MR-MAL-1", c_unknown_opcode, NULL },
	{ "VER", "reserved_nibble_dropped", "MR-VER-3, MR-MAL-1", c_reserved_nibble, NULL },
	{ "VERBS", "bad_rkey_nack", "MR-PLACE-3, MR-VERBS-21, MR-VERBS-24, MR-REL-15, MR-REL-18",
	  c_bad_rkey, NULL },
	{ "VERBS", "read_past_mr_nack", "MR-VERBS-21, MR-VERBS-24, MR-REL-15", c_read_out_of_range,
	  NULL },
	{ "REL", "dup_below_cum_acked", "MR-REL-1, MR-REL-7, MR-PLACE-8", c_dup_below_cum, NULL },
	{ "REL", "old_psn_dropped", "MR-REL-1, MR-PLACE-8", c_old_psn, NULL },
	{ "REL", "dup_read_reexecuted", "MR-REL-8", c_dup_read_again, NULL },
	{ "REL", "dup_read_outside_refused", "MR-REL-8", c_dup_read_outside, NULL },
	{ "REL", "dup_read_outside_no_answer", "MR-REL-1, MR-REL-8", c_dup_read_outside_silent,
	  NULL },
	{ "VERBS", "no_write_access_invalid_req", "MR-VERBS-21", c_no_write_access, NULL },
	{ "VERBS", "send_inv_bad_key", "MR-VERBS-16, MR-VERBS-21", c_send_inv_bad_key, NULL },
	{ "VERBS", "rnr_nack_then_ack", "MR-VERBS-19, MR-REL-5, MR-REL-17", c_rnr, NULL },
	{ "VERBS", "send_too_long_invalid_req", "MR-VERBS-21, MR-PLACE-5", c_send_too_long, NULL },
	{ "TRIM", "trimmed_write_nack", "MR-REL-16, MR-ICRC-5, MR-TRIM-3", c_trimmed_write, NULL },
	{ "VER", "reserved_flags_ignored", "MR-VER-2", c_reserved_flags, NULL },
	{ "MAL", "path_64_dropped", "MR-MAL-1, MR-MAL-6, MR-HDR-6", c_path64, NULL },
	{ "MAL", "unknown_qpn_dropped", "MR-MAL-1, MR-MAL-2", c_unknown_qpn, NULL },
	{ "MAL", "ece_on_request_dropped", "MR-MAL-1, MR-MAL-2, MR-HDR-22", c_ece_request, NULL },
	{ "MAL", "payload_on_read_req_dropped", "MR-MAL-1, MR-MAL-2, MR-HDR-21", c_read_req_payload,
	  NULL },
	{ "MW", "type2_write_then_send_inv", "MR-MW-2, MR-MW-5, MR-VERBS-16", c_mw_type2_inv, NULL },
	{ "MW", "type2_other_qp_and_past_end", "MR-MW-2", c_mw_type2_bounds, NULL },
};
const unsigned int n_cases_resp = MR_ARRAY_SIZE(cases_resp);
