// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-conform cases of the unreliable connected service (UC, revision
 * 1.1): the tester sends UC packets to a UC QP of the DUT, which has
 * receive WQEs posted on MR 1, and checks completions, memory, counters
 * and that nothing ever answers; and takes the UC packets the DUT sends.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "mr-conform.h"

static unsigned int uc_seq;

/*
 * A UC QP of the DUT connected to the tester's QPN, first PSN expected
 * @q->psn; no receive WQE posted. A UC QP sends no HELLO (MR-UC-12).
 */
static bool uc_open(struct tctx *t, struct tqp *q)
{
	struct rxpkt r;
	const char *a;
	uint64_t v;

	memset(q, 0, sizeof(*q));
	/* ids below the UD cases' and win's, away from tqp_open()'s */
	q->id = (int)(MRC_MAX_QP - 12 - uc_seq % 4);
	q->my_qpn = 0xB000 + uc_seq++;
	q->psn = (uint32_t)rand() & MR_PSN_MASK;
	q->dut_psn = (uint32_t)rand() & MR_PSN_MASK;
	rx_flush();
	a = agent("QP %d 0 UC 16 16", q->id);
	if (!a || !kv_u64(a, "qpn", &v)) {
		fail_at(t, __LINE__, "agent: QP UC: %s (MR-VERBS-1, MR-UC-1)", agent_err);
		return false;
	}
	q->dut_qpn = (uint32_t)v;
	if (!agent("CONNECT %d %u %u %u %s %d 0x%x 0 0 0", q->id, q->my_qpn, q->psn,
		   q->dut_psn, DUT.my_gid, PMTU, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) ||
	    !mr_fill(1, 9)) {
		fail_at(t, __LINE__, "agent: UC setup: %s (MR-UC-1)", agent_err);
		tqp_close(q);
		return false;
	}
	EXPECT(t, !rx_take(q->my_qpn, MR_OP_HELLO, WAIT_SILENT, &r),
	       "the UC QP sent a HELLO (MR-UC-12)");
	return true;
}

/*
 * Packet @k of a UC message of @len bytes, msn @msn, whose first PSN is
 * @psn0: payload bytes [k * PMTU, ...) of @pl, FIRST/LAST as MR-HDR-4
 * says, SE on the last. UC_WRITE*: at MR 0 offset @moff under @rkey.
 */
static void tx_uc(const struct tqp *q, uint8_t op, uint32_t psn0, uint32_t msn,
		  uint32_t len, unsigned int k, const uint8_t *pl, uint32_t moff,
		  uint32_t rkey)
{
	uint32_t off = k * PMTU, n = len - off < PMTU ? len - off : PMTU;
	bool last = off + n == len;
	struct mr_pkt p;

	req_fill(&p, q, op, psn0 + k, (k == 0 ? MR_F_FIRST : 0) | (last ? MR_F_LAST : 0) |
		 (last && op != MR_OP_UC_WRITE ? MR_F_SE : 0));
	p.dxh.msn = msn;
	p.dxh.offset = off;
	p.dxh.msg_len = len;
	if (op == MR_OP_UC_WRITE || op == MR_OP_UC_WRITE_IMM) {
		p.rxh.va = DUT.addr0 + moff;
		p.rxh.rkey = rkey;
	}
	if (op == MR_OP_UC_SEND_IMM || op == MR_OP_UC_WRITE_IMM)
		p.imm = 0xC0FFEE00u | msn;
	p.payload = pl + off;
	p.payload_len = n;
	tx_pkt(&p);
}

/* MR 1 bytes [@off, @off + @len) are @pl's (in READMR-sized pieces). */
static bool mr1_is(uint32_t off, const uint8_t *pl, uint32_t len)
{
	uint8_t got[MRC_READ_MAX];

	for (uint32_t o = 0; o < len; o += MRC_READ_MAX) {
		uint32_t n = len - o < MRC_READ_MAX ? len - o : MRC_READ_MAX;

		if (!mr_read(1, off + o, n, got) || memcmp(got, pl + o, n))
			return false;
	}
	return true;
}

static bool uc_counter(struct tctx *t, const char *name, uint64_t *v, const char *ids)
{
	if (counter(name, v))
		return true;
	fail_at(t, __LINE__, "counter '%s' not exposed (%s, MR-CONF-7)", name, ids);
	return false;
}

/* A UC_SEND_IMM in three packets, last first, then a UC_WRITE_IMM. */
static void c_uc_recv(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[3000], w[100], got[100];
	struct cqe c[2];

	if (!uc_open(t, &q))
		return;
	REQUIRE(t, agent("RECV %d 1301 1 0 4096", q.id) && agent("RECV %d 1302 1 4096 4096", q.id),
		"agent: RECV: %s", agent_err);
	mrc_pat_fill(pl, 0x7301, 0, sizeof(pl));
	tx_uc(&q, MR_OP_UC_SEND_IMM, q.psn, 0, sizeof(pl), 2, pl, 0, 0);
	tx_uc(&q, MR_OP_UC_SEND_IMM, q.psn, 0, sizeof(pl), 0, pl, 0, 0);
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_SILENT) == 0,
	       "a UC message completed before all its packets arrived (MR-UC-7)");
	tx_uc(&q, MR_OP_UC_SEND_IMM, q.psn, 0, sizeof(pl), 1, pl, 0, 0);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1,
		"no receive completion of a reordered 3-packet UC_SEND_IMM (MR-UC-6, MR-UC-7)");
	EXPECT(t, c[0].wrid == 1301 && c[0].status == IBV_WC_SUCCESS && c[0].opcode == IBV_WC_RECV &&
	       c[0].byte_len == sizeof(pl),
	       "CQE wr_id %llu status %d opcode %d byte_len %u, want 1301 RECV 3000 (MR-UC-11)",
	       (unsigned long long)c[0].wrid, c[0].status, c[0].opcode, c[0].byte_len);
	EXPECT(t, (c[0].wc_flags & IBV_WC_WITH_IMM) && c[0].imm == 0xC0FFEE00u,
	       "CQE imm %#x flags %#x, want 0xc0ffee00 WITH_IMM (MR-UC-11)", c[0].imm, c[0].wc_flags);
	EXPECT(t, c[0].src_qp == q.my_qpn, "CQE src_qp %#x, want the peer's %#x (MR-UC-11)",
	       c[0].src_qp, q.my_qpn);
	EXPECT(t, mr1_is(0, pl, sizeof(pl)), "the UC_SEND's bytes are not in its receive buffer (MR-UC-6)");

	REQUIRE(t, mem_reset(t), "agent: FILL");
	mrc_pat_fill(w, 0x7302, 0, sizeof(w));
	tx_uc(&q, MR_OP_UC_WRITE_IMM, q.psn + 3, 1, sizeof(w), 0, w, 512, DUT.rkey0);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no receive completion of a UC_WRITE_IMM (MR-UC-11)");
	EXPECT(t, c[0].wrid == 1302 && c[0].status == IBV_WC_SUCCESS &&
	       c[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM && c[0].byte_len == sizeof(w) &&
	       (c[0].wc_flags & IBV_WC_WITH_IMM) && c[0].imm == (0xC0FFEE00u | 1),
	       "CQE wr_id %llu status %d opcode %d byte_len %u imm %#x, want 1302 RECV_RDMA_WITH_IMM 100 0xc0ffee01 (MR-UC-11)",
	       (unsigned long long)c[0].wrid, c[0].status, c[0].opcode, c[0].byte_len, c[0].imm);
	REQUIRE(t, mr_read(0, 512, sizeof(got), got), "agent: READMR: %s", agent_err);
	EXPECT(t, !memcmp(got, w, sizeof(w)), "the UC_WRITE_IMM's bytes are not at va (MR-UC-6)");
	expect_silence(t, &q, "UC packets", "MR-UC-12");
	tqp_close(&q);
}

/*
 * A message with a packet missing is dropped once a later one is
 * complete, and the receive WQE it had begun to fill takes the next
 * message (MR-UC-7, MR-UC-8): either that later message (moved there)
 * or, if the DUT dropped it too, the one after.
 */
static void c_uc_lost(struct tctx *t)
{
	struct tqp q;
	uint8_t m0[3000], m1[500], m2[300];
	struct cqe c[3];
	uint64_t d0 = 0, o0 = 0;
	int n;

	if (!uc_open(t, &q))
		return;
	REQUIRE(t, agent("RECV %d 1311 1 0 4096", q.id) && agent("RECV %d 1312 1 4096 4096", q.id) &&
		agent("RECV %d 1313 1 8192 4096", q.id), "agent: RECV: %s", agent_err);
	if (!uc_counter(t, "uc_msg_drop", &d0, "MR-UC-7") || !uc_counter(t, "uc_old", &o0, "MR-UC-7"))
		return;
	mrc_pat_fill(m0, 0x7311, 0, sizeof(m0));
	mrc_pat_fill(m1, 0x7312, 0, sizeof(m1));
	mrc_pat_fill(m2, 0x7313, 0, sizeof(m2));
	tx_uc(&q, MR_OP_UC_SEND, q.psn, 0, sizeof(m0), 0, m0, 0, 0);
	tx_uc(&q, MR_OP_UC_SEND, q.psn, 0, sizeof(m0), 2, m0, 0, 0);
	tx_uc(&q, MR_OP_UC_SEND, q.psn + 3, 1, sizeof(m1), 0, m1, 0, 0);
	n = cqe_wait(&q, c, 2, WAIT_RESP);
	if (n == 1) {
		EXPECT(t, c[0].wrid == 1311 && c[0].status == IBV_WC_SUCCESS && c[0].byte_len == sizeof(m1),
		       "CQE wr_id %llu status %d byte_len %u, want the next message in the dropped one's WQE 1311 (MR-UC-8)",
		       (unsigned long long)c[0].wrid, c[0].status, c[0].byte_len);
		EXPECT(t, mr1_is(0, m1, sizeof(m1)), "WQE 1311 does not hold the next message's bytes (MR-UC-8)");
	} else {
		EXPECT(t, n == 0, "%d completions for one incomplete and one complete message (MR-UC-7)", n);
		diag("the DUT dropped the message after the incomplete one too (MR-UC-8 allows it)");
	}
	counter_moved(t, "uc_msg_drop", d0, "MR-UC-7");
	/* The missing packet, late: its message is gone. */
	tx_uc(&q, MR_OP_UC_SEND, q.psn, 0, sizeof(m0), 1, m0, 0, 0);
	net_pump(WAIT_SILENT);
	counter_moved(t, "uc_old", o0, "MR-UC-7");
	tx_uc(&q, MR_OP_UC_SEND, q.psn + 4, 2, sizeof(m2), 0, m2, 0, 0);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no completion of the message after the drop (MR-UC-7)");
	EXPECT(t, c[0].wrid == (n == 1 ? 1312u : 1311u) && c[0].status == IBV_WC_SUCCESS &&
	       c[0].byte_len == sizeof(m2), "CQE wr_id %llu status %d byte_len %u, want %u 300 (MR-UC-8)",
	       (unsigned long long)c[0].wrid, c[0].status, c[0].byte_len, n == 1 ? 1312u : 1311u);
	EXPECT(t, mr1_is(n == 1 ? 4096 : 0, m2, sizeof(m2)), "the last message's bytes are not in its WQE");
	expect_silence(t, &q, "a UC loss", "MR-UC-12");
	tqp_close(&q);
}

/* RC requests to a UC QP and UC packets to an RC QP are dropped (qp). */
static void c_uc_rc_mixup(struct tctx *t)
{
	struct tqp u, q;
	struct mr_pkt p;
	struct cqe c[2];
	uint8_t pl[64];
	uint64_t c0 = 0;

	if (!uc_open(t, &u))
		return;
	REQUIRE(t, agent("RECV %d 1321 1 0 4096", u.id), "agent: RECV: %s", agent_err);
	mrc_pat_fill(pl, 0x7321, 0, sizeof(pl));
	if (!uc_counter(t, "qp", &c0, "MR-UC-2"))
		return;
	req_fill(&p, &u, MR_OP_SEND, u.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msg_len = sizeof(pl);
	p.payload = pl;
	p.payload_len = sizeof(pl);
	tx_pkt(&p);
	expect_silence(t, &u, "an RC SEND to a UC QP", "MR-UC-2");
	counter_moved(t, "qp", c0, "MR-UC-2");
	EXPECT(t, cqe_wait(&u, c, 1, WAIT_SILENT) == 0, "the UC QP completed a WQE for an RC SEND (MR-UC-2)");
	/* The UC QP still takes UC: the WQE was not used. */
	tx_uc(&u, MR_OP_UC_SEND, u.psn + 1, 0, sizeof(pl), 0, pl, 0, 0);
	EXPECT(t, cqe_wait(&u, c, 1, WAIT_RESP) == 1 && c[0].wrid == 1321 && c[0].status == IBV_WC_SUCCESS,
	       "the UC QP does not receive a UC_SEND after the RC SEND");
	tqp_close(&u);

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, agent("RECV %d 1322 1 0 1024", q.id), "agent: RECV: %s", agent_err);
	uc_counter(t, "qp", &c0, "MR-UC-2");
	tx_uc(&q, MR_OP_UC_SEND, q.psn, 0, sizeof(pl), 0, pl, 0, 0);
	expect_silence(t, &q, "a UC_SEND to an RC QP", "MR-UC-2");
	counter_moved(t, "qp", c0, "MR-UC-2");
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_SILENT) == 0, "the RC QP completed a WQE for a UC_SEND (MR-UC-2)");
	/* The RC QP's PSN did not move: its first request is still q.psn. */
	write_ok(t, &q, 0, 64, "a WRITE to the RC QP after the UC_SEND");
	tqp_close(&q);
}

/* No WQE, an R_Key the DUT never gave: silent drops, the QP stays up. */
static void c_uc_refused(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[100];
	struct cqe c[2];
	uint64_t r0 = 0;

	if (!uc_open(t, &q))
		return;
	mrc_pat_fill(pl, 0x7331, 0, sizeof(pl));
	if (!uc_counter(t, "uc_refused", &r0, "MR-UC-10"))
		return;
	tx_uc(&q, MR_OP_UC_SEND, q.psn, 0, sizeof(pl), 0, pl, 0, 0);
	expect_silence(t, &q, "a UC_SEND without a receive WQE", "MR-UC-10");
	counter_moved(t, "uc_refused", r0, "MR-UC-10");
	r0 = counter_now("uc_refused");
	REQUIRE(t, mem_reset(t), "agent: FILL");
	tx_uc(&q, MR_OP_UC_WRITE, q.psn + 1, 1, sizeof(pl), 0, pl, 0, DUT.rkey0 ^ 0x5A5A00);
	expect_silence(t, &q, "a UC_WRITE under a bad R_Key", "MR-UC-10");
	counter_moved(t, "uc_refused", r0, "MR-UC-10");
	mem_check(t, "a UC_WRITE under a bad R_Key", "MR-UC-10");
	expect_state(t, &q, "RTS", "MR-UC-10");
	REQUIRE(t, agent("RECV %d 1331 1 0 4096", q.id), "agent: RECV: %s", agent_err);
	tx_uc(&q, MR_OP_UC_SEND, q.psn + 2, 2, sizeof(pl), 0, pl, 0, 0);
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].wrid == 1331 && c[0].status == IBV_WC_SUCCESS,
	       "the UC QP does not receive after the refused messages (MR-UC-10)");
	tqp_close(&q);
}

/*
 * A flood of first packets of new MSNs that never complete, then one
 * whole message: delivered into the first receive WQE (MR-UC-9).
 */
static void c_uc_flood(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[2 * PMTU];
	struct cqe c[2];
	uint32_t msn, psn = 0;

	if (!uc_open(t, &q))
		return;
	REQUIRE(t, agent("RECV %d 1341 1 0 4096", q.id), "agent: RECV: %s", agent_err);
	mrc_pat_fill(pl, 0x7341, 0, sizeof(pl));
	for (msn = 0; msn < 2000; msn++) {
		psn = q.psn + 2 * msn;
		tx_uc(&q, msn % 2 ? MR_OP_UC_SEND : MR_OP_UC_WRITE, psn, msn, sizeof(pl), 0, pl,
		      0, DUT.rkey0);
		if (msn % 64 == 63)
			net_pump(0.01);
	}
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_SILENT) == 0, "a message completed from half its packets (MR-UC-7)");
	msn += 1000;
	psn += 100;
	tx_uc(&q, MR_OP_UC_SEND, psn, msn, sizeof(pl), 1, pl, 0, 0);
	tx_uc(&q, MR_OP_UC_SEND, psn, msn, sizeof(pl), 0, pl, 0, 0);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1,
		"no completion of a whole message after 2000 unfinished ones (MR-UC-9)");
	EXPECT(t, c[0].wrid == 1341 && c[0].status == IBV_WC_SUCCESS && c[0].byte_len == sizeof(pl),
	       "CQE wr_id %llu status %d byte_len %u, want 1341 2048 (MR-UC-8, MR-UC-9)",
	       (unsigned long long)c[0].wrid, c[0].status, c[0].byte_len);
	EXPECT(t, mr1_is(0, pl, sizeof(pl)), "the message's bytes are not in its WQE (MR-UC-9)");
	expect_silence(t, &q, "a UC flood", "MR-UC-12");
	tqp_close(&q);
}

/*
 * The DUT's UC sends: UC opcodes, consecutive PSNs from sq_psn, MSNs
 * from 0, DXH.ssn 0, no ACKREQ or RETX, each packet once, the WR
 * complete without any answer (MR-UC-2, MR-UC-3, MR-UC-5); a READ is
 * refused (MR-UC-1).
 */
static void c_uc_send_from_dut(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r[3];
	uint8_t src[2500];
	struct cqe c[2];
	const char *a;
	unsigned int k;

	memset(r, 0, sizeof(r));
	if (!uc_open(t, &q))
		return;
	mrc_pat_fill(src, 9, 0, sizeof(src));
	REQUIRE(t, agent("POST %d SEND 1351 1 0 2500 0 0 0 0 0 1", q.id), "agent: POST: %s", agent_err);
	for (k = 0; k < 3; k++) {
		const struct mr_pkt *p = &r[k].p;

		if (!rx_take(q.my_qpn, MR_OP_UC_SEND, WAIT_RESP, &r[k])) {
			fail_at(t, __LINE__, "UC_SEND packet %u of 3 not received (MR-UC-2, MR-UC-3)", k);
			break;
		}
		EXPECT(t, r[k].err == 0 && r[k].icrc == 0, "UC_SEND packet %u does not decode (MR-HDR-1)", k);
		EXPECT(t, p->sqpn == q.dut_qpn && p->dqpn == q.my_qpn, "UC_SEND QPNs %#x -> %#x (MR-UC-3)",
		       p->sqpn, p->dqpn);
		EXPECT(t, p->psn == ((q.dut_psn + k) & MR_PSN_MASK) && p->dxh.msn == 0 &&
		       p->dxh.offset == k * PMTU && p->dxh.msg_len == sizeof(src) && p->dxh.ssn == 0,
		       "UC_SEND packet %u: psn %#x msn %u offset %u msg_len %u ssn %u, want psn %#x msn 0 offset %u 2500 ssn 0 (MR-UC-2, MR-UC-3)",
		       k, p->psn, p->dxh.msn, p->dxh.offset, p->dxh.msg_len, p->dxh.ssn,
		       (q.dut_psn + k) & MR_PSN_MASK, k * PMTU);
		EXPECT(t, !(p->flags & (MR_F_ACKREQ | MR_F_RETX)),
		       "UC_SEND packet %u flags %#x: ACKREQ or RETX (MR-UC-2)", k, p->flags);
		EXPECT(t, p->payload_len == (k < 2 ? PMTU : sizeof(src) - 2 * PMTU) &&
		       !memcmp(p->payload, src + k * PMTU, p->payload_len),
		       "UC_SEND packet %u payload is not the WR's bytes (MR-UC-3)", k);
	}
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no send completion without any answer (MR-UC-5)");
	EXPECT(t, c[0].wrid == 1351 && c[0].status == IBV_WC_SUCCESS && c[0].opcode == IBV_WC_SEND,
	       "CQE wr_id %llu status %d opcode %d (MR-UC-5)", (unsigned long long)c[0].wrid,
	       c[0].status, c[0].opcode);
	EXPECT(t, !rx_take(q.my_qpn, MR_OP_UC_SEND, WAIT_SILENT, &r[0]),
	       "a UC_SEND packet sent again (MR-UC-3)");

	REQUIRE(t, agent("POST %d WRITE_IMM 1352 1 0 100 0x77 0x1000 5 0 0 1", q.id),
		"agent: POST: %s (MR-UC-1)", agent_err);
	if (rx_take(q.my_qpn, MR_OP_UC_WRITE_IMM, WAIT_RESP, &r[0]))
		EXPECT(t, r[0].p.psn == ((q.dut_psn + 3) & MR_PSN_MASK) && r[0].p.dxh.msn == 1 &&
		       r[0].p.rxh.va == 0x1000 && r[0].p.rxh.rkey == 0x77 && r[0].p.imm == 5 &&
		       (r[0].p.flags & (MR_F_FIRST | MR_F_LAST)) == (MR_F_FIRST | MR_F_LAST),
		       "UC_WRITE_IMM psn %#x msn %u va %#llx rkey %#x imm %u (MR-UC-2, MR-UC-3)",
		       r[0].p.psn, r[0].p.dxh.msn, (unsigned long long)r[0].p.rxh.va, r[0].p.rxh.rkey,
		       r[0].p.imm);
	else
		fail_at(t, __LINE__, "no UC_WRITE_IMM for a WRITE_WITH_IMM WR (MR-UC-1)");
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].wrid == 1352 && c[0].status == IBV_WC_SUCCESS,
	       "no successful completion of the WRITE_WITH_IMM WR (MR-UC-5)");

	/* READ: refused at posting, or completed with LOC_QP_OP_ERR. */
	a = agent("POST %d READ 1353 1 0 64 0x77 0x1000 0 0 0 1", q.id);
	if (a)
		EXPECT(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].wrid == 1353 &&
		       c[0].status == IBV_WC_LOC_QP_OP_ERR,
		       "a READ WR on a UC QP did not complete with LOC_QP_OP_ERR (MR-UC-1, MR-VERBS-2)");
	else
		EXPECT(t, strstr(agent_err, "Invalid argument"),
		       "a READ WR on a UC QP refused with '%s', want EINVAL (MR-UC-1, MR-VERBS-2)",
		       agent_err);
	EXPECT(t, !rx_take(q.my_qpn, MR_OP_READ_REQ, WAIT_SILENT, &r[0]),
	       "a UC QP sent a READ_REQ (MR-UC-1)");
	tqp_close(&q);
}

const struct tcase cases_uc[] = {
	{ "UC", "uc_reordered_send_and_write_imm", "MR-UC-6, MR-UC-7, MR-UC-11, MR-UC-12",
	  c_uc_recv, NULL },
	{ "UC", "uc_lost_packet_drops_message", "MR-UC-7, MR-UC-8", c_uc_lost, NULL },
	{ "UC", "uc_rc_opcode_mixup_dropped", "MR-UC-2", c_uc_rc_mixup, NULL },
	{ "UC", "uc_refused_silently", "MR-UC-10", c_uc_refused, NULL },
	{ "UC", "uc_msn_flood_bounded", "MR-UC-9", c_uc_flood, NULL },
	{ "UC", "uc_send_from_dut", "MR-UC-1, MR-UC-2, MR-UC-3, MR-UC-5", c_uc_send_from_dut, NULL },
};
const unsigned int n_cases_uc = MR_ARRAY_SIZE(cases_uc);
