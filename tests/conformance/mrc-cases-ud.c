// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-conform cases of the unreliable datagram service (UD): the tester
 * sends UD_SEND* packets to a UD QP of the DUT, which has receive WQEs
 * posted on MR 1, and checks the completions and the received bytes.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "mr-conform.h"

#define UD_QKEY	0x11111111u	/* the Q_Key the agent gives UD QPs */
#define GRH_LEN	40

static unsigned int ud_seq;

/* A UD QP of the DUT with a receive WQE of 1024 bytes at MR 1 offset 0. */
static bool ud_open(struct tctx *t, struct tqp *q)
{
	const char *a;
	uint64_t v;

	memset(q, 0, sizeof(*q));
	/* ids from the top, away from tqp_open()'s RC QPs of this run */
	q->id = (int)(MRC_MAX_QP - 1 - ud_seq % 8);
	q->my_qpn = 0xA000 + ud_seq++;
	rx_flush();
	a = agent("QP %d 0 UD 16 16", q->id);
	if (!a || !kv_u64(a, "qpn", &v)) {
		fail_at(t, __LINE__, "agent: QP UD: %s", agent_err);
		return false;
	}
	q->dut_qpn = (uint32_t)v;
	if (!agent("CONNECT %d 0 0 0 %s %d 0 0 0 0", q->id, DUT.my_gid, PMTU) ||
	    !mr_fill(1, 9) || !agent("RECV %d 1201 1 0 1024", q->id)) {
		fail_at(t, __LINE__, "agent: UD setup: %s", agent_err);
		tqp_close(q);
		return false;
	}
	return true;
}

static uint32_t tx_ud(const struct tqp *q, uint32_t qkey, const uint8_t *pl, uint32_t len)
{
	struct mr_pkt p;

	req_fill(&p, q, MR_OP_UD_SEND_IMM, 0, MR_F_FIRST | MR_F_LAST);
	p.path = 0;
	p.deth.qkey = qkey;
	p.deth.src_qpn = q->my_qpn;
	p.imm = 0x0DDBA11u;
	p.payload = pl;
	p.payload_len = len;
	tx_pkt(&p);
	return p.ts;
}

static void c_ud_recv(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[200], got[GRH_LEN + sizeof(pl)];
	struct cqe c[2];

	if (!ud_open(t, &q))
		return;
	mrc_pat_fill(pl, 0x0D, 0, sizeof(pl));
	tx_ud(&q, UD_QKEY, pl, sizeof(pl));
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no receive completion of a UD_SEND_IMM");
	EXPECT(t, c[0].wrid == 1201 && c[0].status == IBV_WC_SUCCESS && c[0].opcode == IBV_WC_RECV,
	       "CQE wr_id %llu status %d opcode %d", (unsigned long long)c[0].wrid, c[0].status,
	       c[0].opcode);
	EXPECT(t, c[0].byte_len == GRH_LEN + sizeof(pl),
	       "CQE byte_len %u, want the payload plus the 40-byte GRH area, %zu (MR-UD-7)",
	       c[0].byte_len, GRH_LEN + sizeof(pl));
	EXPECT(t, c[0].wc_flags & IBV_WC_GRH, "CQE without IBV_WC_GRH (MR-UD-7)");
	EXPECT(t, (c[0].wc_flags & IBV_WC_WITH_IMM) && c[0].imm == 0x0DDBA11u,
	       "CQE imm %#x flags %#x, want 0xddba11 WITH_IMM (MR-UD-8)", c[0].imm, c[0].wc_flags);
	EXPECT(t, c[0].src_qp == q.my_qpn, "CQE src_qp %#x, want the DETH's %#x (MR-UD-3, MR-UD-8)",
	       c[0].src_qp, q.my_qpn);
	REQUIRE(t, mr_read(1, 0, sizeof(got), got), "agent: READMR: %s", agent_err);
	EXPECT(t, !memcmp(got + GRH_LEN, pl, sizeof(pl)),
	       "the payload is not at offset 40 of the receive buffer (MR-UD-7)");
	/* IPv4: the header at bytes 20..39, from the tester to the DUT. */
	EXPECT(t, got[20] == 0x45 && !memcmp(got + 32, &DUT.me, 4) && !memcmp(got + 36, &DUT.ip, 4),
	       "GRH area bytes 20..39 are not the packet's IPv4 header (MR-UD-7)");
	tqp_close(&q);
}

static void c_ud_bad_qkey(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[64];
	struct cqe c[2];
	uint64_t c0 = 0, c1 = 0;
	bool have = counter("qkey", &c0);

	if (!ud_open(t, &q))
		return;
	mrc_pat_fill(pl, 0x0E, 0, sizeof(pl));
	tx_ud(&q, UD_QKEY ^ 0x100, pl, sizeof(pl));
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_SILENT) == 0,
	       "a UD packet with another Q_Key was received (MR-UD-5)");
	if (!have || !counter("qkey", &c1))
		fail_at(t, __LINE__, "counter 'qkey' not exposed (MR-UD-5, MR-CONF-7)");
	else
		EXPECT(t, c1 > c0, "counter 'qkey' did not move (MR-UD-5)");
	/* The QP still receives with the right Q_Key. */
	tx_ud(&q, UD_QKEY, pl, sizeof(pl));
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].status == IBV_WC_SUCCESS,
	       "the UD QP does not receive after the dropped packet");
	tqp_close(&q);
}

/* One UD datagram of @len bytes with PSN @psn to @dqpn under @qkey. */
static void tx_ud_to(const struct tqp *q, uint32_t dqpn, uint8_t op, uint32_t psn,
		     uint32_t qkey, const uint8_t *pl, uint32_t len)
{
	struct mr_pkt p;

	req_fill(&p, q, op, psn, MR_F_FIRST | MR_F_LAST);
	p.dqpn = dqpn;
	p.path = 0;
	p.deth.qkey = qkey;
	p.deth.src_qpn = q->my_qpn;
	p.payload = pl;
	p.payload_len = len;
	tx_pkt(&p);
}

static void ud_counter_moved(struct tctx *t, const char *name, uint64_t c0, const char *ids)
{
	uint64_t v;

	if (!counter(name, &v))
		fail_at(t, __LINE__, "counter '%s' not exposed (%s, MR-CONF-7)", name, ids);
	else
		EXPECT(t, v > c0, "counter '%s' did not move (%s)", name, ids);
}

static uint64_t ud_counter(const char *name)
{
	uint64_t v = UINT64_MAX;

	counter(name, &v);
	return v;
}

static void c_ud_no_wqe(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[64];
	struct cqe c[2];
	struct rxpkt r;
	uint64_t c0;

	if (!ud_open(t, &q))
		return;
	mrc_pat_fill(pl, 0x11, 0, sizeof(pl));
	tx_ud(&q, UD_QKEY, pl, sizeof(pl));
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no completion of the first datagram");
	c0 = ud_counter("no_wqe");
	tx_ud(&q, UD_QKEY, pl, sizeof(pl));
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_SILENT) == 0, "a completion without a receive WQE");
	EXPECT(t, !rx_take(q.my_qpn, 0, WAIT_SILENT, &r),
	       "the DUT answered a UD datagram (opcode %#x): UD never sends RNR (MR-UD-9)",
	       r.p.opcode);
	ud_counter_moved(t, "no_wqe", c0, "MR-UD-9");
	REQUIRE(t, agent("RECV %d 1202 1 0 1024", q.id), "agent: RECV: %s", agent_err);
	tx_ud(&q, UD_QKEY, pl, sizeof(pl));
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].wrid == 1202,
	       "the UD QP does not receive once a WQE is posted again (MR-UD-9)");
	tqp_close(&q);
}

static void c_ud_too_long(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[1000];
	struct cqe c[2];
	uint64_t c0 = ud_counter("ud_len");

	if (!ud_open(t, &q))
		return;
	/* 1000 + 40 > the WQE's 1024 bytes. */
	mrc_pat_fill(pl, 0x12, 0, sizeof(pl));
	tx_ud(&q, UD_QKEY, pl, sizeof(pl));
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_SILENT) == 0,
	       "a completion for a datagram longer than the WQE (MR-UD-10)");
	ud_counter_moved(t, "ud_len", c0, "MR-UD-10");
	/* The WQE was not consumed; the QP still works. */
	tx_ud(&q, UD_QKEY, pl, 984);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1, "no completion of a datagram that fits (MR-UD-10)");
	EXPECT(t, c[0].wrid == 1201 && c[0].status == IBV_WC_SUCCESS && c[0].byte_len == 1024,
	       "CQE wr_id %llu status %d byte_len %u, want the first WQE 1201, success, 1024 (MR-UD-10)",
	       (unsigned long long)c[0].wrid, c[0].status, c[0].byte_len);
	tqp_close(&q);
}

static void c_ud_psn_ignored(struct tctx *t)
{
	static const uint32_t psns[] = { 0x777777, 0x000005, 0x777777 };
	struct tqp q;
	uint8_t pl[32];
	struct cqe c[4];
	struct rxpkt r;
	int n;

	if (!ud_open(t, &q))
		return;
	REQUIRE(t, agent("RECV %d 1203 1 1024 1024", q.id) &&
		agent("RECV %d 1204 1 2048 1024", q.id), "agent: RECV: %s", agent_err);
	mrc_pat_fill(pl, 0x13, 0, sizeof(pl));
	/* Any PSN, a repeated one, one going back: all received. */
	for (unsigned int i = 0; i < 3; i++)
		tx_ud_to(&q, q.dut_qpn, MR_OP_UD_SEND, psns[i], UD_QKEY, pl, sizeof(pl));
	n = cqe_wait(&q, c, 3, WAIT_RESP);
	EXPECT(t, n == 3, "%d completions of 3 datagrams with PSNs 0x777777, 5, 0x777777 (MR-UD-2)", n);
	for (int i = 0; i < n; i++)
		EXPECT(t, c[i].status == IBV_WC_SUCCESS, "completion %d status %d", i, c[i].status);
	EXPECT(t, !rx_take(q.my_qpn, 0, WAIT_SILENT, &r),
	       "the DUT answered UD datagrams (opcode %#x): UD is not acknowledged (MR-UD-2)",
	       r.p.opcode);
	tqp_close(&q);
}

static void c_ud_rc_mixup(struct tctx *t)
{
	struct tqp u, q;
	struct mr_pkt p;
	struct cqe c[2];
	uint8_t pl[64];
	uint64_t c0;

	if (!ud_open(t, &u))
		return;
	mrc_pat_fill(pl, 0x14, 0, sizeof(pl));
	/* An RC WRITE addressed to the UD QP. */
	c0 = ud_counter("qp");
	req_fill(&p, &u, MR_OP_WRITE, 0, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msg_len = sizeof(pl);
	p.rxh.va = DUT.addr1;
	p.rxh.rkey = DUT.lkey1;
	p.payload = pl;
	p.payload_len = sizeof(pl);
	tx_pkt(&p);
	net_pump(WAIT_SILENT);
	ud_counter_moved(t, "qp", c0, "MR-UD-12");
	EXPECT(t, cqe_wait(&u, c, 1, WAIT_SILENT) == 0, "the UD QP completed a WQE for an RC WRITE (MR-UD-12)");
	tqp_close(&u);
	/* A UD_SEND addressed to an RC QP with a receive WQE. */
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, agent("RECV %d 1205 1 0 1024", q.id), "agent: RECV: %s", agent_err);
	c0 = ud_counter("qp");
	tx_ud_to(&q, q.dut_qpn, MR_OP_UD_SEND, 0, UD_QKEY, pl, sizeof(pl));
	net_pump(WAIT_SILENT);
	ud_counter_moved(t, "qp", c0, "MR-UD-12");
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_SILENT) == 0, "the RC QP completed a WQE for a UD_SEND (MR-UD-12)");
	tqp_close(&q);
}

static void c_gsi(struct tctx *t)
{
	struct tqp q = { .my_qpn = 0xA0F0 };
	uint8_t mad[256];
	uint64_t k0, m0, p0;

	rx_flush();
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;	/* base version; an unknown class, dropped above the QP */
	mad[1] = 0x7F;
	mad[2] = 1;
	mad[3] = 0x01;
	/* The GSI QP exists and checks its Q_Key 0x80010000. */
	k0 = ud_counter("qkey");
	tx_ud_to(&q, 1, MR_OP_UD_SEND, 0, 0x80010001u, mad, sizeof(mad));
	net_pump(WAIT_SILENT);
	ud_counter_moved(t, "qkey", k0, "MR-UD-6");
	/* Not one MAD: dropped and counted malformed. */
	m0 = ud_counter("malformed");
	tx_ud_to(&q, 1, MR_OP_UD_SEND, 0, 0x80010000u, mad, 100);
	net_pump(WAIT_SILENT);
	ud_counter_moved(t, "malformed", m0, "MR-UD-14");
	/* One MAD with the right Q_Key: none of these drops. */
	k0 = ud_counter("qkey");
	m0 = ud_counter("malformed");
	p0 = ud_counter("qp");
	tx_ud_to(&q, 1, MR_OP_UD_SEND, 0, 0x80010000u, mad, sizeof(mad));
	net_pump(WAIT_SILENT);
	EXPECT(t, ud_counter("qkey") == k0 && ud_counter("malformed") == m0 && ud_counter("qp") == p0,
	       "a 256-byte datagram under Q_Key 0x80010000 to QPN 1 was dropped (MR-UD-6)");
	/* QPN 0 does not exist. */
	tx_ud_to(&q, 0, MR_OP_UD_SEND, 0, 0x80010000u, mad, sizeof(mad));
	net_pump(WAIT_SILENT);
	ud_counter_moved(t, "qp", p0, "MR-UD-6");
}

static void c_ud_hello(struct tctx *t)
{
	struct tqp q, rc;
	struct mr_pkt p;
	struct rxpkt r;
	uint64_t c0;

	/* An RC QP takes part in the HELLO exchange... */
	if (!tqp_open(t, &rc, ACC_ALL))
		return;
	EXPECT(t, rc.have_hello, "no HELLO from a new RC QP (MR-VER-10)");
	tqp_close(&rc);
	/* ...a UD QP does not: a HELLO to it is dropped (qp). */
	if (!ud_open(t, &q))
		return;
	c0 = ud_counter("qp");
	hello_fill(&p, q.dut_qpn, q.my_qpn, false, 1);
	tx_pkt(&p);
	EXPECT(t, !rx_take(q.my_qpn, 0, WAIT_SILENT, &r),
	       "a UD QP answered a HELLO (opcode %#x) (MR-VER-10)", r.p.opcode);
	ud_counter_moved(t, "qp", c0, "MR-VER-10");
	tqp_close(&q);
}

/* UD sends of the DUT (UDPOST) to the tester's QPN. */
static void c_ud_send_from_dut(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r;
	struct cqe c[2];
	uint8_t want[300];

	if (!ud_open(t, &q))
		return;
	mrc_pat_fill(want, 9, 100, sizeof(want));	/* MR 1, as ud_open() filled it */
	REQUIRE(t, agent("UDPOST %d 1301 1 100 300 %u 0x2222 %s 1", q.id, q.my_qpn, DUT.my_gid),
		"agent: UDPOST: %s", agent_err);
	if (rx_take(q.my_qpn, MR_OP_UD_SEND, WAIT_RESP, &r)) {
		EXPECT(t, r.err == 0 && r.icrc == 0, "the UD_SEND does not decode or its ICRC is wrong");
		EXPECT(t, r.p.deth.qkey == 0x2222, "DETH Q_Key %#x, want the WR's 0x2222 (MR-UD-4)",
		       r.p.deth.qkey);
		EXPECT(t, r.p.deth.src_qpn == q.dut_qpn && r.p.sqpn == q.dut_qpn,
		       "DETH src_qpn %#x MBH sqpn %#x, want the DUT QP's %#x (MR-UD-3)",
		       r.p.deth.src_qpn, r.p.sqpn, q.dut_qpn);
		EXPECT(t, (r.p.flags & (MR_F_FIRST | MR_F_LAST)) == (MR_F_FIRST | MR_F_LAST),
		       "UD_SEND flags %#x, want FIRST and LAST (MR-UD-1)", r.p.flags);
		EXPECT(t, r.p.payload_len == sizeof(want) && !memcmp(r.p.payload, want, sizeof(want)),
		       "UD_SEND payload of %u bytes is not the WR's 300", r.p.payload_len);
	} else {
		fail_at(t, __LINE__, "no UD_SEND from the DUT within %.1f s", WAIT_RESP * O.slow);
	}
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].wrid == 1301 &&
	       c[0].status == IBV_WC_SUCCESS, "no successful send completion of the UD WR");
	/* Not acknowledged and never retransmitted (MR-UD-2). */
	EXPECT(t, !rx_take(q.my_qpn, MR_OP_UD_SEND, 2 * WAIT_SILENT, &r),
	       "a second copy of an unacknowledged UD_SEND (MR-UD-2)");
	/* A controlled Q_Key (MSB set): the QP's own goes out (MR-UD-4). */
	REQUIRE(t, agent("UDPOST %d 1302 1 0 16 %u 0x80000001 %s 1", q.id, q.my_qpn, DUT.my_gid),
		"agent: UDPOST: %s", agent_err);
	if (rx_take(q.my_qpn, MR_OP_UD_SEND, WAIT_RESP, &r))
		EXPECT(t, r.p.deth.qkey == UD_QKEY,
		       "DETH Q_Key %#x for a WR Q_Key with its MSB set, want the QP's %#x (MR-UD-4)",
		       r.p.deth.qkey, UD_QKEY);
	else
		fail_at(t, __LINE__, "no UD_SEND for the WR with a controlled Q_Key");
	cqe_wait(&q, c, 1, WAIT_RESP);
	/* Longer than the PMTU: LOC_LEN_ERR, nothing sent (MR-UD-1). */
	if (agent("UDPOST %d 1303 1 0 4096 %u 0x2222 %s 1", q.id, q.my_qpn, DUT.my_gid)) {
		EXPECT(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].wrid == 1303 &&
		       c[0].status == IBV_WC_LOC_LEN_ERR,
		       "a 4096-byte UD WR did not complete with IBV_WC_LOC_LEN_ERR (MR-UD-1)");
		EXPECT(t, !rx_take(q.my_qpn, MR_OP_UD_SEND, WAIT_SILENT, &r),
		       "a UD_SEND of %u bytes left for a WR over the PMTU (MR-UD-1)", r.p.payload_len);
	} else {
		fail_at(t, __LINE__, "posting a 4096-byte UD WR failed (%s): it must complete with IBV_WC_LOC_LEN_ERR (MR-UD-1)",
			agent_err);
	}
	tqp_close(&q);
}

/* A UD datagram to the subnet's broadcast address (MR-SEC-4). */
static void c_ud_broadcast(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	struct cqe c[2];
	uint8_t pl[64], b[RX_BUF];
	uint32_t n;
	uint64_t c0 = ud_counter("qp");

	if (!ud_open(t, &q))
		return;
	mrc_pat_fill(pl, 0x15, 0, sizeof(pl));
	req_fill(&p, &q, MR_OP_UD_SEND, 0, MR_F_FIRST | MR_F_LAST);
	p.path = 0;
	p.deth.qkey = UD_QKEY;
	p.deth.src_qpn = q.my_qpn;
	p.payload = pl;
	p.payload_len = sizeof(pl);
	n = pkt_build(&p, b, sizeof(b));
	if (!tx_bytes_bcast(b, n)) {
		not_run(t, "no subnet broadcast address to send to");
		tqp_close(&q);
		return;
	}
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_SILENT) == 0,
	       "a UD QP received a datagram sent to the broadcast address (MR-SEC-4)");
	ud_counter_moved(t, "qp", c0, "MR-SEC-4");
	/* The same datagram unicast is received. */
	tx_bytes(b, n);
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].status == IBV_WC_SUCCESS,
	       "the UD QP does not receive the same datagram unicast");
	tqp_close(&q);
}

const struct tcase cases_ud[] = {
	{ "UD", "ud_send_imm_recv", "MR-UD-3, MR-UD-7, MR-UD-8", c_ud_recv, NULL },
	{ "UD", "ud_bad_qkey_dropped", "MR-UD-5", c_ud_bad_qkey, NULL },
	{ "UD", "ud_no_wqe_dropped", "MR-UD-9", c_ud_no_wqe, NULL },
	{ "UD", "ud_longer_than_wqe_dropped", "MR-UD-10", c_ud_too_long, NULL },
	{ "UD", "ud_psn_ignored", "MR-UD-2", c_ud_psn_ignored, NULL },
	{ "UD", "ud_rc_opcode_mixup_dropped", "MR-UD-12", c_ud_rc_mixup, NULL },
	{ "UD", "gsi_qp1_qkey_and_mad_size", "MR-UD-6, MR-UD-14", c_gsi, NULL },
	{ "VER", "hello_rc_only", "MR-VER-10", c_ud_hello, NULL },
	{ "UD", "ud_send_from_dut", "MR-UD-1, MR-UD-2, MR-UD-4", c_ud_send_from_dut, NULL },
	{ "SEC", "ud_broadcast_dropped", "MR-SEC-4", c_ud_broadcast, NULL },
};
const unsigned int n_cases_ud = MR_ARRAY_SIZE(cases_ud);
