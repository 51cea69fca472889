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

const struct tcase cases_ud[] = {
	{ "UD", "ud_send_imm_recv", "MR-UD-3, MR-UD-7, MR-UD-8", c_ud_recv, NULL },
	{ "UD", "ud_bad_qkey_dropped", "MR-UD-5", c_ud_bad_qkey, NULL },
};
const unsigned int n_cases_ud = MR_ARRAY_SIZE(cases_ud);
