// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-conform cases of connection setup (VER: HELLO) and with the DUT as
 * requester: the agent posts work requests towards the tester, which
 * checks every packet the DUT sends and answers as a responder would.
 */
#include <stdlib.h>
#include <string.h>

#include "mr-conform.h"

/* ------------------------------------------------------------------ */
/* VER: the HELLO exchange                                            */

static void c_hello_on_rts(struct tctx *t)
{
	struct tqp q;
	const struct mr_pkt *h = &q.hello.p;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, q.have_hello, "no HELLO within %.1f s of the QP entering RTS (MR-VER-14)",
		WAIT_RESP * O.slow);
	EXPECT(t, q.hello.icrc == 0, "HELLO: ICRC wrong");
	EXPECT(t, h->flags == 0, "HELLO: MBH flags %#x, want none (MR-VER-9)", h->flags);
	EXPECT(t, h->psn == 0, "HELLO: psn %#x, want 0 (MR-VER-9, MR-HDR-8)", h->psn);
	EXPECT(t, h->dqpn == q.my_qpn && h->sqpn == q.dut_qpn,
	       "HELLO: QPNs %#x -> %#x, want %#x -> %#x (MR-VER-9)", h->sqpn, h->dqpn,
	       q.dut_qpn, q.my_qpn);
	EXPECT(t, !(h->hlh.hflags & MR_HLF_SEEN), "the first HELLO has SEEN set (MR-VER-14)");
	EXPECT(t, h->hlh.rev_major == 1 && h->hlh.rev_minor >= 1,
	       "HELLO: revision %u.%u (MR-HDR-27)", h->hlh.rev_major, h->hlh.rev_minor);
	EXPECT(t, h->hlh.caps & MR_CAP_CORE, "HELLO: caps %#x without CORE (MR-VER-11)",
	       h->hlh.caps);
	EXPECT(t, h->hlh.max_read_range >= MR_HELLO_READ_RANGE_MIN &&
	       h->hlh.max_read_range <= MR_MAX_MSG_LEN,
	       "HELLO: max_read_range %u (MR-VER-16)", h->hlh.max_read_range);
	/* HLH word 3 and HELLO flag bits 1..15 are sent as zero (MR-VER-9). */
	EXPECT(t, q.hello.len >= MR_MBH_LEN + MR_HLH_LEN + MR_ICRC_LEN &&
	       !q.hello.b[MR_MBH_LEN + 12] && !q.hello.b[MR_MBH_LEN + 13] &&
	       !q.hello.b[MR_MBH_LEN + 14] && !q.hello.b[MR_MBH_LEN + 15] &&
	       !q.hello.b[MR_MBH_LEN + 2] && !(q.hello.b[MR_MBH_LEN + 3] & 0xFE),
	       "HELLO: reserved HLH bits not zero (MR-VER-9)");
	EXPECT(t, q.hello.len == MR_MBH_LEN + MR_HLH_LEN + MR_ICRC_LEN,
	       "HELLO: %u bytes, want %u (MR-HDR-27)", q.hello.len,
	       MR_MBH_LEN + MR_HLH_LEN + MR_ICRC_LEN);
	tqp_close(&q);
}

/* Send a HELLO of the tester's to @q; the DUT's HELLO answer, if any. */
static bool hello_probe(struct tqp *q, bool seen, uint32_t caps, double tmo,
			struct rxpkt *ans)
{
	struct mr_pkt h;

	double end = now_s() + tmo * O.slow;

	/* The DUT's repeats still in flight before it settled are answered
	 * (net_pump) and dropped; answers are the HELLOs with SEEN. */
	net_pump(0.3 * O.slow);
	rx_flush();
	hello_fill(&h, q->dut_qpn, q->my_qpn, seen, caps);
	tx_pkt(&h);
	while (now_s() < end)
		if (rx_take(q->my_qpn, MR_OP_HELLO, (end - now_s()) / O.slow, ans) &&
		    (ans->p.hlh.hflags & MR_HLF_SEEN))
			return true;
	return false;
}

static void c_hello_answered(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, q.have_hello, "no HELLO of the DUT (MR-VER-14)");
	/* Settled by the tester's automatic answer; the same HELLO without
	 * SEEN is no conflict and gets one answer, SEEN set (MR-VER-12). */
	REQUIRE(t, hello_probe(&q, false, MR_CAP_CORE, WAIT_RESP, &r),
		"no HELLO answers a valid HELLO without SEEN (MR-VER-12)");
	EXPECT(t, r.icrc == 0 && r.p.psn == 0 && r.p.flags == 0, "answer: ICRC/psn/flags");
	EXPECT(t, r.p.hlh.hflags & MR_HLF_SEEN, "the answer lacks SEEN (MR-VER-12)");
	EXPECT(t, r.p.sqpn == q.dut_qpn, "answer from QPN %#x", r.p.sqpn);
	EXPECT(t, r.p.hlh.caps == q.hello.p.hlh.caps &&
	       r.p.hlh.rev_minor == q.hello.p.hlh.rev_minor &&
	       r.p.hlh.max_read_range == q.hello.p.hlh.max_read_range,
	       "the answer's revision/caps/limit differ from the first HELLO's (MR-VER-13)");
	/* MBH.path names the entropy the source port carries: the same
	 * index as the first HELLO (both in RTS), the same port. */
	EXPECT(t, r.p.path != q.hello.p.path || r.sport == q.hello.sport,
	       "the answer claims path %u from UDP source port %#x, the first HELLO path %u from %#x (MR-HDR-6)",
	       r.p.path, r.sport, q.hello.p.path, q.hello.sport);
	EXPECT(t, !rx_take(q.my_qpn, MR_OP_HELLO, WAIT_SILENT, &r),
	       "more than one answer to one HELLO (MR-VER-12)");
	tqp_close(&q);
}

static void c_hello_seen_silent(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	net_pump(0.2);	/* the DUT's repeats stop once settled */
	EXPECT(t, !hello_probe(&q, true, MR_CAP_CORE, WAIT_SILENT, &r),
	       "a HELLO with SEEN set was answered (MR-VER-12)");
	tqp_close(&q);
}

static void c_hello_conflict(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r;
	uint64_t c0 = 0, c1 = 0;
	bool have = counter("hello_conflict", &c0);

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	net_pump(0.2);
	/* Settled on CORE; now CORE|CC: dropped, not answered (MR-VER-13). */
	EXPECT(t, !hello_probe(&q, false, MR_CAP_CORE | MR_CAP_CC, WAIT_SILENT, &r),
	       "a conflicting HELLO was answered (MR-VER-13)");
	if (!have || !counter("hello_conflict", &c1))
		fail_at(t, __LINE__, "counter 'hello_conflict' not exposed (MR-VER-13, MR-CONF-7)");
	else
		EXPECT(t, c1 > c0, "counter 'hello_conflict' did not move (MR-VER-13)");
	tqp_close(&q);
}

/* The tester as a revision 1.0 peer: it answers no HELLO. */
static void c_hello_repeats(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r;
	unsigned int n = 0;
	double last = now_s(), first = 0;
	uint64_t c0 = 0, c1 = 0;
	bool have = counter("hello_unanswered", &c0);
	struct mr_pkt h;

	hello_auto = false;
	if (!tqp_open(t, &q, ACC_ALL)) {
		hello_auto = true;
		return;
	}
	if (q.have_hello) {
		n = 1;
		first = last = q.hello.t;
	}
	/* Repeats until none for 1.5 s: at most hello_tries (14) in all,
	 * about a second (MR-VER-14). */
	while (rx_take(q.my_qpn, MR_OP_HELLO, 1.5, &r)) {
		EXPECT(t, !(r.p.hlh.hflags & MR_HLF_SEEN), "a repeat HELLO with SEEN (MR-VER-14)");
		if (!n)
			first = r.t;
		last = r.t;
		if (++n > 20)
			break;
	}
	hello_auto = true;
	EXPECT(t, n >= 2, "%u HELLO(s) without an answer, want repeats (MR-VER-14)", n);
	EXPECT(t, n <= 14, "%u HELLOs without an answer, want at most hello_tries = 14 (MR-VER-14)", n);
	diag("%u HELLOs over %.2f s", n, last - first);
	EXPECT(t, last - first < 5.0 * O.slow, "HELLOs repeated over %.1f s (MR-VER-14: about a second)",
	       last - first);
	/* Given up: the peer is of revision 1.0, counted; a late HELLO is
	 * still answered (SEEN set) so that the peer settles. */
	net_pump(0.3 * O.slow);
	if (!have || !counter("hello_unanswered", &c1))
		fail_at(t, __LINE__, "counter 'hello_unanswered' not exposed (MR-VER-14, MR-CONF-7)");
	else
		EXPECT(t, c1 > c0, "counter 'hello_unanswered' did not move (MR-VER-14)");
	rx_flush();
	hello_fill(&h, q.dut_qpn, q.my_qpn, false, MR_CAP_CORE);
	tx_pkt(&h);
	EXPECT(t, rx_take(q.my_qpn, MR_OP_HELLO, WAIT_RESP, &r) && (r.p.hlh.hflags & MR_HLF_SEEN),
	       "a late HELLO was not answered with SEEN (MR-VER-14)");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* The DUT as requester                                               */

/* The tester's fake remote region for the DUT's WRITEs and READs. */
#define T_VA	0x7E57000000ull
#define T_RKEY	0x0BADC0DEu

static unsigned int take_reqs(struct tqp *q, uint8_t op, uint32_t first, unsigned int n,
			      struct rxpkt *out)
{
	return req_take(q, op, first, n, out, 2 * WAIT_RESP);
}

/* The request fields every packet of the DUT must have (MR-HDR-7,
 * MR-HDR-22, MR-ENC-2, MR-ICRC). */
static void check_req(struct tctx *t, const char *what, const struct tqp *q,
		      const struct rxpkt *r)
{
	EXPECT(t, r->icrc == 0, "%s: ICRC wrong (MR-ICRC-1..3)", what);
	EXPECT(t, r->p.dqpn == q->my_qpn && r->p.sqpn == q->dut_qpn,
	       "%s: QPNs %#x -> %#x (MR-HDR-7)", what, r->p.sqpn, r->p.dqpn);
	EXPECT(t, r->sport >= MR_ENTROPY_BASE, "%s: UDP source port %u below 0xC000 (MR-ENC-2)",
	       what, r->sport);
	EXPECT(t, !(r->p.flags & (MR_F_RETX | MR_F_TRIM | MR_F_ECE)),
	       "%s: flags %#x on a first transmission (MR-HDR-22)", what, r->p.flags);
}

static void c_req_write(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r[3];
	const uint32_t len = 2500;
	uint8_t src[2500];
	struct cqe c[2];

	memset(r, 0, sizeof(r));
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, mr_fill(1, 0xA11CE), "agent: FILL: %s", agent_err);
	mrc_pat_fill(src, 0xA11CE, 0, len);
	REQUIRE(t, agent("POST %d WRITE 501 1 0 %u 0x%x 0x%llx 0 0 0 1", q.id, len, T_RKEY,
			 (unsigned long long)T_VA), "agent: POST: %s", agent_err);
	REQUIRE(t, take_reqs(&q, MR_OP_WRITE, 0, 3, r) == 3,
		"not 3 WRITE packets from PSN %#x (MR-HDR-4, MR-REL-4)", q.dut_psn);
	for (unsigned int k = 0; k < 3; k++) {
		const struct mr_pkt *p = &r[k].p;
		uint32_t off = k * PMTU, n = len - off < PMTU ? len - off : PMTU;
		uint16_t fl = (k == 0 ? MR_F_FIRST : 0) | (k == 2 ? MR_F_LAST : 0);
		char what[32];

		snprintf(what, sizeof(what), "WRITE packet %u", k);
		check_req(t, what, &q, &r[k]);
		EXPECT(t, (p->flags & (MR_F_FIRST | MR_F_LAST)) == fl,
		       "%s: flags %#x, want FIRST/LAST %#x (MR-HDR-4)", what, p->flags, fl);
		EXPECT(t, p->dxh.msn == 0 && p->dxh.offset == off && p->dxh.msg_len == len &&
		       p->dxh.ssn == 0, "%s: DXH %u/%u/%u/%u, want 0/%u/%u/0 (MR-HDR-10)", what,
		       p->dxh.msn, p->dxh.offset, p->dxh.msg_len, p->dxh.ssn, off, len);
		EXPECT(t, p->rxh.va == T_VA && p->rxh.rkey == T_RKEY,
		       "%s: RXH va %#llx rkey %#x, want the WR's (MR-PLACE-1)", what,
		       (unsigned long long)p->rxh.va, p->rxh.rkey);
		EXPECT(t, p->payload_len == n && !memcmp(p->payload, src + off, n),
		       "%s: payload is not the %u bytes of the WR's buffer at %u", what, n, off);
	}
	tx_ack(&q, q.dut_psn + 3, 1, &r[2]);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no send completion after the ACK");
	EXPECT(t, c[0].wrid == 501 && c[0].status == IBV_WC_SUCCESS &&
	       c[0].opcode == IBV_WC_RDMA_WRITE, "CQE wr_id %llu status %d opcode %d",
	       (unsigned long long)c[0].wrid, c[0].status, c[0].opcode);
	tqp_close(&q);
}

static void c_req_read(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r[1];
	const uint32_t len = 2000;
	uint8_t data[2000];
	uint64_t h;
	struct cqe c[2];
	const struct mr_pkt *p = &r[0].p;

	memset(r, 0, sizeof(r));
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, mr_fill(1, 3), "agent: FILL: %s", agent_err);
	REQUIRE(t, agent("POST %d READ 502 1 4096 %u 0x%x 0x%llx 0 0 0 1", q.id, len, T_RKEY,
			 (unsigned long long)T_VA), "agent: POST: %s", agent_err);
	REQUIRE(t, take_reqs(&q, MR_OP_READ_REQ, 0, 1, r) == 1,
		"no READ_REQ at PSN %#x (MR-REL-4)", q.dut_psn);
	check_req(t, "READ_REQ", &q, &r[0]);
	EXPECT(t, (p->flags & (MR_F_FIRST | MR_F_LAST)) == (MR_F_FIRST | MR_F_LAST),
	       "READ_REQ without FIRST|LAST (MR-HDR-23)");
	EXPECT(t, p->dxh.msn == 0 && p->dxh.offset == 0 && p->dxh.msg_len == len &&
	       p->dxh.ssn == 0, "READ_REQ DXH %u/%u/%u/%u, want 0/0/%u/0 (MR-HDR-10, MR-HDR-24)",
	       p->dxh.msn, p->dxh.offset, p->dxh.msg_len, p->dxh.ssn, len);
	EXPECT(t, p->rxh.va == T_VA && p->rxh.rkey == T_RKEY, "READ_REQ RXH va %#llx rkey %#x",
	       (unsigned long long)p->rxh.va, p->rxh.rkey);
	EXPECT(t, p->payload_len == 0, "READ_REQ with payload");
	/* Answer as a responder: 2 READ_RESPs of the tester's data. */
	mrc_pat_fill(data, 0xDA7A, 0, len);
	for (unsigned int k = 0; k < 2; k++) {
		struct mr_pkt a;
		uint32_t off = k * PMTU;

		memset(&a, 0, sizeof(a));
		a.opcode = MR_OP_READ_RESP;
		a.path = p->path;
		a.flags = (k == 0 ? MR_F_FIRST : 0) | (k == 1 ? MR_F_LAST : 0);
		a.dqpn = q.dut_qpn;
		a.sqpn = q.my_qpn;
		a.psn = p->psn;
		a.ts = ts_now();
		a.dxh.msn = p->dxh.msn;
		a.dxh.offset = off;
		a.dxh.msg_len = len;
		a.payload = data + off;
		a.payload_len = k ? len - PMTU : PMTU;
		tx_pkt(&a);
	}
	tx_ack(&q, q.dut_psn + 1, 1, &r[0]);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no completion of the READ");
	EXPECT(t, c[0].wrid == 502 && c[0].status == IBV_WC_SUCCESS &&
	       c[0].opcode == IBV_WC_RDMA_READ, "CQE wr_id %llu status %d opcode %d",
	       (unsigned long long)c[0].wrid, c[0].status, c[0].opcode);
	REQUIRE(t, mr_hash(1, 4096, len, &h), "agent: HASH: %s", agent_err);
	EXPECT(t, h == mrc_hash(data, len), "the READ's buffer does not hold the READ_RESP bytes (MR-PLACE-6)");
	tqp_close(&q);
}

static void c_req_send_imm(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r[1];
	uint8_t src[200];
	struct cqe c[2];
	const struct mr_pkt *p = &r[0].p;

	memset(r, 0, sizeof(r));
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, mr_fill(1, 0x5E4D), "agent: FILL: %s", agent_err);
	mrc_pat_fill(src, 0x5E4D, 0, sizeof(src));
	REQUIRE(t, agent("POST %d SEND_IMM 503 1 0 200 0 0 0xFEEDF00D 0 0 1", q.id),
		"agent: POST: %s", agent_err);
	REQUIRE(t, take_reqs(&q, MR_OP_SEND_IMM, 0, 1, r) == 1, "no SEND_IMM at PSN %#x",
		q.dut_psn);
	check_req(t, "SEND_IMM", &q, &r[0]);
	EXPECT(t, (p->flags & (MR_F_FIRST | MR_F_LAST)) == (MR_F_FIRST | MR_F_LAST),
	       "SEND_IMM of 200 bytes without FIRST|LAST (MR-HDR-4)");
	EXPECT(t, p->imm == 0xFEEDF00D, "IMM %#x, want 0xfeedf00d", p->imm);
	EXPECT(t, p->dxh.msn == 0 && p->dxh.ssn == 0 && p->dxh.offset == 0 &&
	       p->dxh.msg_len == 200, "DXH %u/%u/%u/%u, want 0/0/200/0 (MR-HDR-10)",
	       p->dxh.msn, p->dxh.offset, p->dxh.msg_len, p->dxh.ssn);
	EXPECT(t, p->payload_len == 200 && !memcmp(p->payload, src, 200),
	       "payload is not the WR's buffer");
	tx_ack(&q, q.dut_psn + 1, 1, &r[0]);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no send completion after the ACK");
	EXPECT(t, c[0].wrid == 503 && c[0].status == IBV_WC_SUCCESS && c[0].opcode == IBV_WC_SEND,
	       "CQE wr_id %llu status %d opcode %d", (unsigned long long)c[0].wrid,
	       c[0].status, c[0].opcode);
	tqp_close(&q);
}

static void c_req_nack_access(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r[1];
	struct cqe c[3];
	struct mr_pkt n;
	int k;

	memset(r, 0, sizeof(r));
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, agent("POST %d WRITE 504 1 0 100 0x%x 0x%llx 0 0 0 1", q.id, T_RKEY,
			 (unsigned long long)T_VA), "agent: POST: %s", agent_err);
	REQUIRE(t, take_reqs(&q, MR_OP_WRITE, 0, 1, r) == 1, "no WRITE at PSN %#x", q.dut_psn);
	/* Fatal NACK at the WRITE's PSN, cum_psn there (MR-REL-18). */
	memset(&n, 0, sizeof(n));
	n.opcode = MR_OP_NACK;
	n.path = r[0].p.path;
	n.dqpn = q.dut_qpn;
	n.sqpn = q.my_qpn;
	n.ts = ts_now();
	n.akh.cum_psn = q.dut_psn;
	n.akh.ts_echo = r[0].p.ts;
	n.akh.pkt_count = 1;
	n.akh.credit = MR_CREDIT_UNLIMITED;
	n.nkh.reason = MR_NACK_REMOTE_ACCESS;
	n.nkh.nack_psn = q.dut_psn;
	tx_pkt(&n);
	k = cqe_wait(&q, c, 1, WAIT_RESP);
	REQUIRE(t, k == 1, "no completion after a NACK REMOTE_ACCESS (MR-VERBS-22)");
	EXPECT(t, c[0].wrid == 504 && c[0].status == IBV_WC_REM_ACCESS_ERR,
	       "CQE wr_id %llu status %d, want IBV_WC_REM_ACCESS_ERR (%d) (MR-VERBS-22)",
	       (unsigned long long)c[0].wrid, c[0].status, IBV_WC_REM_ACCESS_ERR);
	EXPECT(t, !strcmp(dut_qp_state(&q), "ERR"), "QP is %s after a fatal NACK, want ERR (MR-VERBS-22)",
	       dut_qp_state(&q));
	/* A WR posted in Error completes flushed (MR-VERBS-25). */
	if (agent("POST %d WRITE 505 1 0 100 0x%x 0x%llx 0 0 0 1", q.id, T_RKEY,
		  (unsigned long long)T_VA)) {
		k = cqe_wait(&q, c, 1, WAIT_RESP);
		EXPECT(t, k == 1 && c[0].wrid == 505 && c[0].status == IBV_WC_WR_FLUSH_ERR,
		       "a WR posted in Error: %d CQEs, status %d, want IBV_WC_WR_FLUSH_ERR (MR-VERBS-25)",
		       k, k ? c[0].status : -1);
	}
	memset(r, 0, sizeof(r));
	EXPECT(t, !req_take(&q, MR_OP_WRITE, 1, 1, r, WAIT_SILENT),
	       "a request sent in Error (MR-VERBS-25)");
	tqp_close(&q);
}

/* ECN of the DUT's data packets, requests and READ responses (MR-ENC-5). */
static void c_ect0(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r[1], rr;
	struct mr_pkt p;

	memset(r, 0, sizeof(r));
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, agent("POST %d WRITE 506 1 0 64 0x%x 0x%llx 0 0 0 1", q.id, T_RKEY,
			 (unsigned long long)T_VA), "agent: POST: %s", agent_err);
	REQUIRE(t, take_reqs(&q, MR_OP_WRITE, 0, 1, r) == 1, "no WRITE from the DUT");
	if (!net_ecn_visible() || r[0].tos == 0xFF) {
		not_run(t, "the tester's socket does not report the IP TOS (IP_RECVTOS)");
		tqp_close(&q);
		return;
	}
	check_ect0(t, "WRITE request", &r[0]);
	tx_ack(&q, q.dut_psn + 1, 1, &r[0]);
	/* A READ_RESP of the DUT as responder. */
	req_fill(&p, &q, MR_OP_READ_REQ, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msg_len = 64;
	p.rxh.va = DUT.addr0;
	p.rxh.rkey = DUT.rkey0;
	tx_pkt(&p);
	REQUIRE(t, rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_RESP, &rr), "no READ_RESP");
	check_ect0(t, "READ_RESP", &rr);
	tqp_close(&q);
}

const struct tcase cases_req[] = {
	{ "VER", "hello_on_rts", "MR-VER-9, MR-VER-11, MR-VER-14, MR-VER-16, MR-HDR-27",
	  c_hello_on_rts, NULL },
	{ "VER", "hello_answered_seen", "MR-VER-12, MR-VER-13, MR-HDR-6", c_hello_answered, NULL },
	{ "VER", "hello_seen_not_answered", "MR-VER-12", c_hello_seen_silent, NULL },
	{ "VER", "hello_conflict_dropped", "MR-VER-13", c_hello_conflict, NULL },
	{ "VER", "hello_unanswered_gives_up", "MR-VER-14", c_hello_repeats, NULL },
	{ "HDR", "req_write_packets", "MR-ENC-2, MR-HDR-4, MR-HDR-7, MR-HDR-10, MR-HDR-22, MR-REL-4, MR-ICRC-1..3",
	  c_req_write, NULL },
	{ "HDR", "req_read_request", "MR-HDR-10, MR-HDR-23, MR-HDR-24, MR-PLACE-6", c_req_read, NULL },
	{ "HDR", "req_send_imm", "MR-HDR-4, MR-HDR-10, MR-VERBS-2", c_req_send_imm, NULL },
	{ "VERBS", "req_nack_remote_access", "MR-VERBS-22, MR-VERBS-25, MR-REL-23",
	  c_req_nack_access, NULL },
	{ "ENC", "ect0_data_packets", "MR-ENC-5", c_ect0, NULL },
};
const unsigned int n_cases_req = MR_ARRAY_SIZE(cases_req);
