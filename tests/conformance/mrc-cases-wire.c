// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-conform cases of the rules every packet of the DUT obeys: a workload
 * of every opcode the DUT originates, as requester and as responder, each
 * packet checked against the opcode table, the header layouts and the
 * encapsulation (ENC, HDR, ICRC), the DUT's spraying of request packets
 * over its paths (MP), the receiver credit and the ECN echo (CC).
 */
#include <string.h>

#include "mr-conform.h"

/* The tester's fake remote region for the DUT's WRITEs, READs, atomics. */
#define W_VA	0x5EED000000ull
#define W_RKEY	0x0C0FFEE1u

/* ------------------------------------------------------------------ */
/* The opcode table of MR-HDR-2, written from the spec (not the codec's) */

#define AR	MR_F_ACKREQ
#define SE	MR_F_SE
#define FL	(MR_F_FIRST | MR_F_LAST)
#define RX	MR_F_RETX

static const struct spec_op {
	uint8_t op;
	uint8_t hlen;		/* MBH and extension headers */
	bool payload;
	uint16_t flags;		/* a sender may set; TRIM never (MR-HDR-3) */
	bool data;		/* ECT(0) required (MR-ENC-5) */
} spec_ops[] = {
	{ MR_OP_SEND, 36, true, AR | SE | FL | RX, true },
	{ MR_OP_SEND_IMM, 40, true, AR | SE | FL | RX, true },
	{ MR_OP_SEND_INV, 40, true, AR | SE | FL | RX, true },
	{ MR_OP_WRITE, 52, true, AR | FL | RX, true },
	{ MR_OP_WRITE_IMM, 56, true, AR | SE | FL | RX, true },
	{ MR_OP_READ_REQ, 52, false, AR | FL | RX, true },
	{ MR_OP_ATOMIC_CS, 64, false, AR | FL | RX, true },
	{ MR_OP_ATOMIC_FA, 64, false, AR | FL | RX, true },
	{ MR_OP_UD_SEND, 28, true, SE | FL, true },
	{ MR_OP_UD_SEND_IMM, 32, true, SE | FL, true },
	{ MR_OP_ACK, 72, false, MR_F_ECE, false },
	{ MR_OP_NACK, 80, false, MR_F_ECE, false },
	{ MR_OP_READ_RESP, 36, true, FL | RX, true },
	{ MR_OP_ATOMIC_RESP, 44, false, FL | RX, true },
	{ MR_OP_PROBE, 20, false, 0, false },
	{ MR_OP_PROBE_REPLY, 20, false, 0, false },
	{ MR_OP_HELLO, 36, false, 0, false },
};

static const struct spec_op *spec_op_of(uint8_t op)
{
	for (unsigned int i = 0; i < MR_ARRAY_SIZE(spec_ops); i++)
		if (spec_ops[i].op == op)
			return &spec_ops[i];
	return NULL;
}

static uint32_t be32_at(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/*
 * Every rule one packet of the DUT can be checked against on its own,
 * raw bytes where the codec would hide a violation (reserved bits are
 * cleared by decoding).
 */
void wire_check(struct tctx *t, const char *what, const struct tqp *q,
		const struct rxpkt *r)
{
	const uint8_t *b = r->b;
	const struct spec_op *o = r->len >= 4 ? spec_op_of(b[1]) : NULL;
	uint32_t pl;
	uint16_t fl;

	REQUIRE(t, o, "%s: opcode %#x is not in the opcode table (MR-HDR-2)", what,
		r->len >= 2 ? b[1] : 0);
	EXPECT(t, r->err == 0, "%s: does not decode: %s (MR-HDR-1, MR-HDR-2)", what,
	       mr_err_name(r->err));
	REQUIRE(t, r->len >= (uint32_t)o->hlen + MR_ICRC_LEN,
		"%s: %u bytes, shorter than the %u of its opcode's headers and ICRC (MR-HDR-2, MR-HDR-20)",
		what, r->len, o->hlen + MR_ICRC_LEN);
	EXPECT(t, b[0] == 0x10, "%s: MBH byte 0 is %#x, want version 1, low nibble 0 (MR-HDR-5)",
	       what, b[0]);
	fl = (uint16_t)(b[2] << 8 | b[3]);
	EXPECT(t, !(fl & ~o->flags), "%s: flags %#x, opcode %#x allows only %#x (MR-HDR-3, MR-HDR-22)",
	       what, fl, b[1], o->flags);
	pl = r->len - o->hlen - MR_ICRC_LEN;
	EXPECT(t, o->payload || pl == 0, "%s: %u bytes of payload on an opcode without (MR-HDR-2, MR-HDR-21)",
	       what, pl);
	EXPECT(t, pl <= PMTU, "%s: payload %u over the PMTU (MR-HDR-21, MR-ENC-7)", what, pl);
	EXPECT(t, r->icrc == 0, "%s: ICRC of the last 4 bytes wrong (MR-HDR-20, MR-ICRC-1..3, MR-ICRC-6)",
	       what);
	EXPECT(t, b[4] < MR_MAX_PATHS, "%s: path %u (MR-HDR-6)", what, b[4]);
	/* The high bytes of PSN and source-QPN words are reserved. */
	EXPECT(t, b[8] == 0 && b[12] == 0, "%s: MBH reserved bytes %#x %#x (MR-HDR-1)", what,
	       b[8], b[12]);
	EXPECT(t, r->p.dqpn == q->my_qpn && r->p.sqpn == q->dut_qpn,
	       "%s: QPNs %#x -> %#x, want %#x -> %#x (MR-HDR-7)", what, r->p.sqpn, r->p.dqpn,
	       q->dut_qpn, q->my_qpn);
	EXPECT(t, r->sport >= MR_ENTROPY_BASE, "%s: UDP source port %u (MR-ENC-2)", what,
	       r->sport);
	EXPECT(t, r->src == DUT.ip && (!r->dst || r->dst == DUT.me),
	       "%s: IP addresses not the QP's (MR-ENC-9)", what);
	if (r->tos != 0xFF) {
		EXPECT(t, (r->tos & 3) != 1 && (r->tos & 3) != 3,
		       "%s: sent with ECN %u (ECT(1) or CE) (MR-ENC-5)", what, r->tos & 3);
		EXPECT(t, !o->data || (r->tos & 3) == 2, "%s: data packet with ECN %u, want ECT(0) (MR-ENC-5)",
		       what, r->tos & 3);
	}
	switch (b[1]) {
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
	case MR_OP_READ_REQ:
		EXPECT(t, !be32_at(b + MR_MBH_LEN + MR_DXH_LEN + 12),
		       "%s: RXH reserved word %#x (MR-HDR-11)", what,
		       be32_at(b + MR_MBH_LEN + MR_DXH_LEN + 12));
		break;
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		EXPECT(t, !(r->p.axh.va & 7), "%s: AXH va %#llx not 8-aligned (MR-HDR-25)", what,
		       (unsigned long long)r->p.axh.va);
		EXPECT(t, r->p.dxh.offset == 0 && r->p.dxh.msg_len == 8,
		       "%s: DXH offset %u msg_len %u, want 0 8 (MR-HDR-25)", what,
		       r->p.dxh.offset, r->p.dxh.msg_len);
		EXPECT(t, b[1] != MR_OP_ATOMIC_FA || !r->p.axh.compare,
		       "%s: ATOMIC_FA compare field %#llx, want 0 (MR-HDR-14)", what,
		       (unsigned long long)r->p.axh.compare);
		break;
	case MR_OP_NACK:
		EXPECT(t, !b[MR_MBH_LEN + MR_AKH_LEN + 2] && !b[MR_MBH_LEN + MR_AKH_LEN + 3] &&
		       !b[MR_MBH_LEN + MR_AKH_LEN + 4], "%s: NKH reserved bits set (MR-HDR-19)", what);
		EXPECT(t, r->p.nkh.rnr_timer == 0 || r->p.nkh.reason == MR_NACK_RNR ||
		       r->p.nkh.reason == MR_NACK_RESOURCE,
		       "%s: rnr_timer %u on reason %u (MR-HDR-19)", what, r->p.nkh.rnr_timer,
		       r->p.nkh.reason);
		__attribute__((fallthrough));	/* the AKH */
	case MR_OP_ACK:
		EXPECT(t, !b[MR_MBH_LEN], "%s: AKH cum_psn high byte %#x (MR-HDR-1, MR-HDR-17)",
		       what, b[MR_MBH_LEN]);
		EXPECT(t, !(b[MR_MBH_LEN + 27] & 1), "%s: SACK bit 0 set (MR-HDR-18)", what);
		EXPECT(t, r->p.psn == 0, "%s: psn %#x, want 0 (MR-HDR-8)", what, r->p.psn);
		break;
	default:
		break;
	}
	if (b[1] != MR_OP_SEND && b[1] != MR_OP_SEND_IMM && b[1] != MR_OP_SEND_INV &&
	    b[1] != MR_OP_WRITE_IMM && (r->p.hdrs & MR_HDR_DXH))
		EXPECT(t, r->p.dxh.ssn == 0, "%s: DXH ssn %u, want 0 (MR-HDR-10)", what, r->p.dxh.ssn);
}

/* ------------------------------------------------------------------ */
/* Paths: entropy per path index (MR-MP-2, MR-MP-3)                    */

struct pathmap {
	int sport[MR_MAX_PATHS];	/* 0: not seen */
	unsigned int used;
};

static void path_seen(struct tctx *t, struct pathmap *m, const struct rxpkt *r)
{
	uint8_t pi = r->p.path;

	if (pi >= MR_MAX_PATHS)
		return;
	if (!m->sport[pi]) {
		for (unsigned int i = 0; i < MR_MAX_PATHS; i++)
			EXPECT(t, m->sport[i] != r->sport,
			       "paths %u and %u share the entropy %#x (MR-MP-2: distinct)", i, pi,
			       r->sport & MR_ENTROPY_MASK);
		m->sport[pi] = r->sport;
		m->used++;
		return;
	}
	EXPECT(t, m->sport[pi] == r->sport,
	       "PSN %#x on path %u from UDP port %u, earlier %u, no re-roll due: no loss, no mark (MR-MP-3, MR-MP-2, MR-MP-32)",
	       r->p.psn, pi, r->sport, m->sport[pi]);
}

/* ------------------------------------------------------------------ */
/* The DUT as requester: every opcode it originates                    */

struct wmsg {
	const char *verb;
	uint8_t op;		/* on the wire */
	uint32_t len, moff;
	uint32_t imm;
	bool recv;		/* consumes a receive WQE: SSN */
};

#define W_IMM	0xC0DE1234u
#define W_INV	0x0000BEEFu
#define W_CS_CMP 0x1111ull
#define W_CS_SWP 0x2222ull
#define W_FA_ADD 0x33ull
#define W_ORIG_CS 0x0123456789ABCDEFull
#define W_ORIG_FA 0x0FEDCBA987654321ull

static const struct wmsg wmsgs[] = {
	{ "SEND", MR_OP_SEND, 2500, 0, 0, true },
	{ "SEND_IMM", MR_OP_SEND_IMM, 2100, 4096, W_IMM, true },
	{ "SEND_INV", MR_OP_SEND_INV, 100, 8192, W_INV, true },
	{ "WRITE", MR_OP_WRITE, 3000, 12288, 0, false },
	{ "WRITE_IMM", MR_OP_WRITE_IMM, 2048, 16384, W_IMM, true },
	{ "READ", MR_OP_READ_REQ, 1500, 20480, 0, false },
	{ "CS", MR_OP_ATOMIC_CS, 8, 24576, 0, false },
	{ "FA", MR_OP_ATOMIC_FA, 8, 24584, 0, false },
	{ "WRITE", MR_OP_WRITE, 4096, 28672, 0, false },
};
#define W_NMSG	MR_ARRAY_SIZE(wmsgs)
#define W_MAXPK	32

static unsigned int npk_of(const struct wmsg *m)
{
	if (m->op == MR_OP_READ_REQ || m->op == MR_OP_ATOMIC_CS || m->op == MR_OP_ATOMIC_FA)
		return 1;
	return m->len ? (m->len + PMTU - 1) / PMTU : 1;
}

/* Answer a READ_REQ or atomic of the DUT as a responder would. */
static void answer(const struct tqp *q, const struct rxpkt *r, const uint8_t *rdata)
{
	struct mr_pkt a;

	memset(&a, 0, sizeof(a));
	a.path = r->p.path;
	a.dqpn = q->dut_qpn;
	a.sqpn = q->my_qpn;
	a.psn = r->p.psn;
	a.ts = ts_now();
	a.dxh.msn = r->p.dxh.msn;
	if (r->p.opcode == MR_OP_READ_REQ) {
		a.opcode = MR_OP_READ_RESP;
		a.dxh.msg_len = r->p.dxh.offset + r->p.dxh.msg_len;
		for (uint32_t off = r->p.dxh.offset; off < a.dxh.msg_len; off += PMTU) {
			uint32_t n = a.dxh.msg_len - off < PMTU ? a.dxh.msg_len - off : PMTU;

			a.flags = (off == 0 ? MR_F_FIRST : 0) | (off + n == a.dxh.msg_len ? MR_F_LAST : 0);
			a.dxh.offset = off;
			a.payload = rdata + off;
			a.payload_len = n;
			tx_pkt(&a);
		}
		return;
	}
	a.opcode = MR_OP_ATOMIC_RESP;
	a.flags = MR_F_FIRST | MR_F_LAST;
	a.dxh.msg_len = 8;
	a.atomic_orig = r->p.opcode == MR_OP_ATOMIC_CS ? W_ORIG_CS : W_ORIG_FA;
	tx_pkt(&a);
}

/* The packet @k of message @m as the spec lays it out (MR-HDR-4,
 * MR-HDR-10..14). */
static void req_layout(struct tctx *t, const struct wmsg *m, unsigned int mi, unsigned int k,
		       uint32_t ssn, const struct rxpkt *r, const uint8_t *src)
{
	const struct mr_pkt *p = &r->p;
	uint32_t off = k * PMTU, n = npk_of(m) == 1 ? m->len : (m->len - off < PMTU ? m->len - off : PMTU);
	bool single = npk_of(m) == 1;
	char what[48];

	snprintf(what, sizeof(what), "%s packet %u (PSN %#x)", m->verb, k, p->psn);
	EXPECT(t, p->opcode == m->op, "%s: opcode %#x, want %#x", what, p->opcode, m->op);
	EXPECT(t, (p->flags & (MR_F_FIRST | MR_F_LAST)) ==
	       ((k == 0 ? MR_F_FIRST : 0) | (single || k + 1 == npk_of(m) ? MR_F_LAST : 0)),
	       "%s: flags %#x (MR-HDR-4, MR-HDR-23)", what, p->flags);
	EXPECT(t, p->dxh.msn == mi && p->dxh.ssn == (m->recv ? ssn : 0),
	       "%s: DXH msn %u ssn %u, want %u %u (MR-HDR-10)", what, p->dxh.msn, p->dxh.ssn, mi,
	       m->recv ? ssn : 0);
	switch (m->op) {
	case MR_OP_READ_REQ:
		EXPECT(t, p->dxh.offset == 0 && p->dxh.msg_len == m->len && p->payload_len == 0,
		       "%s: offset %u msg_len %u payload %u (MR-HDR-10)", what, p->dxh.offset,
		       p->dxh.msg_len, p->payload_len);
		break;
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		EXPECT(t, p->axh.va == W_VA + m->moff && p->axh.rkey == W_RKEY,
		       "%s: AXH va %#llx rkey %#x (MR-HDR-14)", what,
		       (unsigned long long)p->axh.va, p->axh.rkey);
		if (m->op == MR_OP_ATOMIC_CS)
			EXPECT(t, p->axh.swap_add == W_CS_SWP && p->axh.compare == W_CS_CMP,
			       "%s: swap %#llx compare %#llx, want %#llx %#llx (MR-HDR-14)", what,
			       (unsigned long long)p->axh.swap_add,
			       (unsigned long long)p->axh.compare, W_CS_SWP, W_CS_CMP);
		else
			EXPECT(t, p->axh.swap_add == W_FA_ADD, "%s: add %#llx, want %#llx (MR-HDR-14)",
			       what, (unsigned long long)p->axh.swap_add, W_FA_ADD);
		break;
	default:
		EXPECT(t, p->dxh.offset == off && p->dxh.msg_len == m->len && p->payload_len == n &&
		       !memcmp(p->payload, src + m->moff + off, n),
		       "%s: offset %u msg_len %u payload %u, want %u %u %u of the WR's buffer (MR-HDR-4)",
		       what, p->dxh.offset, p->dxh.msg_len, p->payload_len, off, m->len, n);
		break;
	}
	if (m->op == MR_OP_WRITE || m->op == MR_OP_WRITE_IMM || m->op == MR_OP_READ_REQ)
		EXPECT(t, p->rxh.va == W_VA + m->moff && p->rxh.rkey == W_RKEY,
		       "%s: RXH va %#llx rkey %#x, want the message start %#llx (MR-HDR-11)", what,
		       (unsigned long long)p->rxh.va, p->rxh.rkey,
		       (unsigned long long)(W_VA + m->moff));
	if (m->op == MR_OP_SEND_IMM || m->op == MR_OP_WRITE_IMM)
		EXPECT(t, p->imm == m->imm, "%s: IMM %#x, want %#x in every packet (MR-HDR-12)",
		       what, p->imm, m->imm);
	if (m->op == MR_OP_SEND_INV)
		EXPECT(t, p->inv_rkey == m->imm, "%s: IETH %#x, want %#x (MR-HDR-13)", what,
		       p->inv_rkey, m->imm);
}

static void c_wire_requester(struct tctx *t)
{
	static uint8_t src[MR_LEN], rdata[2048];
	struct rxpkt pk[W_MAXPK];
	unsigned int pmsg[W_MAXPK], pk_k[W_MAXPK], np = 0, got = 0, cum = 0, nchk = 0;
	uint32_t ssn_of[W_NMSG];
	struct pathmap pm;
	struct tqp q;
	struct rxpkt r;
	struct cqe c[W_NMSG + 2];
	int dscp = -1, lastpath[W_NMSG], n;
	uint64_t bad0 = rx_undecodable;
	uint8_t res[8];
	double end;
	bool retx_seen = false;

	memset(pk, 0, sizeof(pk));
	memset(&pm, 0, sizeof(pm));
	for (unsigned int i = 0, s = 0; i < W_NMSG; i++) {
		ssn_of[i] = s;
		s += wmsgs[i].recv;
		lastpath[i] = -1;
		for (unsigned int k = 0; k < npk_of(&wmsgs[i]); k++) {
			pmsg[np] = i;
			pk_k[np++] = k;
		}
	}
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, mr_fill(1, 0x3141), "agent: FILL: %s", agent_err);
	mrc_pat_fill(src, 0x3141, 0, MR_LEN);
	mrc_pat_fill(rdata, 0x2718, 0, sizeof(rdata));
	net_pump(0);
	memset(&RAW, 0, sizeof(RAW));
	for (unsigned int i = 0; i < W_NMSG; i++) {
		const struct wmsg *m = &wmsgs[i];

		REQUIRE(t, agent("POST %d %s %u 1 %u %u 0x%x 0x%llx %u %llu %llu 1", q.id, m->verb,
				 700 + i, m->moff, m->len, W_RKEY,
				 (unsigned long long)(W_VA + m->moff), m->imm,
				 m->op == MR_OP_ATOMIC_CS ? W_CS_CMP : 0ull,
				 m->op == MR_OP_ATOMIC_CS ? W_CS_SWP : W_FA_ADD),
			"agent: POST %s: %s", m->verb, agent_err);
	}
	/* Answer as a responder does, packet by packet, so that no RTO
	 * muddles the first transmissions. */
	end = now_s() + 8 * WAIT_RESP * O.slow;
	while (got < np && now_s() < end) {
		uint32_t d;
		char what[48];
		unsigned int mi;

		if (!rx_take(q.my_qpn, 0, 0.1, &r))
			continue;
		nchk++;
		d = (r.p.psn - q.dut_psn) & MR_PSN_MASK;
		snprintf(what, sizeof(what), "packet op %#x PSN +%u", r.p.opcode, d);
		wire_check(t, what, &q, &r);
		if (d >= np) {
			fail_at(t, __LINE__, "%s: no such PSN was posted (MR-REL-4)", what);
			continue;
		}
		mi = pmsg[d];
		if (r.tos != 0xFF) {
			if (dscp < 0)
				dscp = r.tos >> 2;
			EXPECT(t, (r.tos >> 2) == dscp, "%s: DSCP %u, earlier %d (MR-ENC-4)", what,
			       r.tos >> 2, dscp);
		}
		if (r.p.flags & MR_F_RETX) {
			retx_seen = true;	/* an RTO may re-roll paths */
		} else if (!retx_seen) {
			path_seen(t, &pm, &r);
		}
		if (!pk[d].len) {
			rx_copy(&pk[d], &r);
			got++;
			if (pk_k[d] > 0 && lastpath[mi] >= 0)
				EXPECT(t, r.p.path != lastpath[mi],
				       "%s: packets %u and %u of one message on path %u (MR-MP-4)",
				       what, pk_k[d] - 1, pk_k[d], r.p.path);
			lastpath[mi] = r.p.path;
		}
		if (r.p.opcode == MR_OP_READ_REQ || r.p.opcode == MR_OP_ATOMIC_CS ||
		    r.p.opcode == MR_OP_ATOMIC_FA)
			answer(&q, &r, rdata);
		while (cum < np && pk[cum].len)
			cum++;
		/* msn: the messages wholly below cum */
		tx_ack(&q, q.dut_psn + cum, cum == np ? W_NMSG : pmsg[cum], &r);
	}
	REQUIRE(t, got == np, "%u of the %u request PSNs of the workload arrived (MR-REL-4)", got, np);
	for (unsigned int d = 0; d < np; d++)
		req_layout(t, &wmsgs[pmsg[d]], pmsg[d], pk_k[d], ssn_of[pmsg[d]], &pk[d], src);
	diag("%u packets checked, %u paths used, %s", nchk, pm.used,
	     retx_seen ? "retransmissions seen" : "no retransmission");
	/* The default path table has 16 entries, sprayed round robin. */
	EXPECT(t, pm.used == 16 || retx_seen, "%u distinct paths over %u packets, want the default 16 (MR-MP-1, MR-MP-4)",
	       pm.used, np);
	EXPECT(t, rx_undecodable == bad0, "%llu packets of the DUT did not decode (MR-HDR-1)",
	       (unsigned long long)(rx_undecodable - bad0));
	n = cqe_wait(&q, c, (int)W_NMSG, 2 * WAIT_RESP);
	EXPECT(t, n == (int)W_NMSG, "%d completions of %u WRs", n, (unsigned int)W_NMSG);
	for (int i = 0; i < n; i++)
		EXPECT(t, c[i].status == IBV_WC_SUCCESS && c[i].wrid == 700u + (unsigned int)i,
		       "CQE %d: wr_id %llu status %d", i, (unsigned long long)c[i].wrid, c[i].status);
	{
		uint64_t h;

		EXPECT(t, mr_hash(1, wmsgs[5].moff, wmsgs[5].len, &h) &&
		       h == mrc_hash(rdata, wmsgs[5].len), "the READ's buffer does not hold the READ_RESP bytes");
	}
	/* The atomics' results are the originals the ATOMIC_RESPs carried. */
	if (mr_read(1, wmsgs[6].moff, 8, res)) {
		uint64_t v = 0;

		for (int i = 7; i >= 0; i--)
			v = v << 8 | res[i];
		EXPECT(t, v == W_ORIG_CS, "CS result %#llx, want %#llx", (unsigned long long)v,
		       W_ORIG_CS);
	}
	if (net_raw_visible()) {
		net_pump(0);
		diag("IP: %llu datagrams, TTL %u..%u, %llu zero UDP checksums",
		     (unsigned long long)RAW.seen, RAW.ttl_min, RAW.ttl_max,
		     (unsigned long long)RAW.zero_csum);
		EXPECT(t, RAW.seen >= np, "the raw socket saw %llu datagrams", (unsigned long long)RAW.seen);
		EXPECT(t, !RAW.no_df && !RAW.frag, "%llu datagrams without DF, %llu fragments (MR-ENC-7)",
		       (unsigned long long)RAW.no_df, (unsigned long long)RAW.frag);
		EXPECT(t, !RAW.bad_csum && !RAW.bad_len, "%llu wrong UDP checksums, %llu bad UDP lengths (MR-ENC-3, MR-ENC-1)",
		       (unsigned long long)RAW.bad_csum, (unsigned long long)RAW.bad_len);
	} else {
		fail_at(t, __LINE__, "no raw socket: DF and UDP checksum not observable (run as root)");
	}
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* The DUT as responder: READ_RESP, ATOMIC_RESP, ACK with SACK, NACK    */

static void c_wire_responder(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	struct rxpkt r;
	uint8_t pl[PMTU], m0[8];
	uint64_t old;
	unsigned int nresp = 0;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, mr_fill(0, 0xFACE), "agent: FILL: %s", agent_err);
	REQUIRE(t, mr_read(0, 64, 8, m0), "agent: READMR: %s", agent_err);
	old = 0;
	for (int i = 7; i >= 0; i--)
		old = old << 8 | m0[i];
	/* READ of 2500 bytes: 3 READ_RESPs. */
	req_fill(&p, &q, MR_OP_READ_REQ, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msn = q.msn;
	p.dxh.msg_len = 2500;
	p.rxh.va = DUT.addr0 + 1024;
	p.rxh.rkey = DUT.rkey0;
	tx_pkt(&p);
	q.psn = (q.psn + 1) & MR_PSN_MASK;
	q.msn++;
	while (nresp < 3 && rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_RESP, &r)) {
		wire_check(t, "READ_RESP", &q, &r);
		nresp++;
	}
	EXPECT(t, nresp == 3, "%u READ_RESPs for a READ of 2500 bytes", nresp);
	/* ATOMIC_FA: the ATKH carries the word's value before (MR-HDR-15). */
	req_fill(&p, &q, MR_OP_ATOMIC_FA, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msn = q.msn;
	p.dxh.msg_len = 8;
	p.axh.va = DUT.addr0 + 64;
	p.axh.rkey = DUT.rkey0;
	p.axh.swap_add = 5;
	tx_pkt(&p);
	q.psn = (q.psn + 1) & MR_PSN_MASK;
	q.msn++;
	if (rx_take(q.my_qpn, MR_OP_ATOMIC_RESP, WAIT_RESP, &r)) {
		wire_check(t, "ATOMIC_RESP", &q, &r);
		EXPECT(t, r.p.atomic_orig == old, "ATKH %#llx, want the original %#llx (MR-HDR-15)",
		       (unsigned long long)r.p.atomic_orig, (unsigned long long)old);
		/* big-endian on the wire: the decoded value from bytes 36..43 */
		EXPECT(t, r.len >= 44 && r.b[MR_MBH_LEN + MR_DXH_LEN + 7] == (uint8_t)old,
		       "ATKH byte order (MR-HDR-15, MR-HDR-1)");
	} else {
		fail_at(t, __LINE__, "no ATOMIC_RESP");
	}
	/* Drain the ACKs so far (checked too). */
	while (rx_take(q.my_qpn, MR_OP_ACK, WAIT_SILENT, &r))
		wire_check(t, "ACK", &q, &r);
	/* One-packet WRITEs at PSN +1 and +5 of a hole at +0: the ACKs' SACK
	 * bitmap in the bytes MR-HDR-18 names. */
	mrc_pat_fill(pl, 9, 0, sizeof(pl));
	for (unsigned int k = 0; k < 2; k++) {
		uint32_t d = k ? 5 : 1;
		unsigned int byte = MR_MBH_LEN + 20 + 7 - d / 8;

		req_fill(&p, &q, MR_OP_WRITE, q.psn + d, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
		p.dxh.msn = q.msn + d;
		p.dxh.msg_len = 64;
		p.rxh.va = DUT.addr0 + 4096 + 64 * d;
		p.rxh.rkey = DUT.rkey0;
		p.payload = pl;
		p.payload_len = 64;
		tx_pkt(&p);
		if (!rx_take(q.my_qpn, MR_OP_ACK, WAIT_RESP, &r)) {
			fail_at(t, __LINE__, "no ACK of the WRITE at PSN +%u (ACKREQ, MR-REL-3)", d);
			continue;
		}
		wire_check(t, "ACK with SACK", &q, &r);
		EXPECT(t, r.p.akh.cum_psn == q.psn, "cum_psn %#x, want the hole %#x (MR-HDR-17)",
		       r.p.akh.cum_psn, q.psn);
		EXPECT(t, r.len > byte && (r.b[byte] & (1u << (d % 8))),
		       "PSN cum+%u not SACKed in AKH byte %u mask %#x (MR-HDR-18)", d, byte - MR_MBH_LEN,
		       1u << (d % 8));
		EXPECT(t, r.p.akh.ts_echo == p.ts, "ts_echo %#x, want %#x (MR-HDR-17)",
		       r.p.akh.ts_echo, p.ts);
		EXPECT(t, r.p.akh.msn == q.msn, "msn %u, want %u: nothing completed (MR-HDR-17)",
		       r.p.akh.msn, q.msn);
		EXPECT(t, r.p.akh.pkt_count >= 1 && r.p.akh.pkt_count <= 2 && r.p.akh.ce_count == 0,
		       "pkt_count %u ce_count %u (MR-HDR-17)", r.p.akh.pkt_count, r.p.akh.ce_count);
	}
	/* A request far beyond the window: NACK SEQ_ERR, its NKH. */
	req_fill(&p, &q, MR_OP_WRITE, q.psn + 1000, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msn = q.msn;
	p.dxh.msg_len = 64;
	p.rxh.va = DUT.addr0;
	p.rxh.rkey = DUT.rkey0;
	p.payload = pl;
	p.payload_len = 64;
	tx_pkt(&p);
	if (rx_take(q.my_qpn, MR_OP_NACK, WAIT_RESP, &r)) {
		wire_check(t, "NACK SEQ_ERR", &q, &r);
		EXPECT(t, r.p.nkh.reason == MR_NACK_SEQ_ERR && r.p.nkh.nack_psn == ((q.psn + 1000) & MR_PSN_MASK),
		       "NACK reason %u nack_psn %#x, want SEQ_ERR at %#x (MR-HDR-19)", r.p.nkh.reason,
		       r.p.nkh.nack_psn, (q.psn + 1000) & MR_PSN_MASK);
	} else {
		fail_at(t, __LINE__, "no NACK SEQ_ERR for a PSN beyond the window (MR-REL-10)");
	}
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* The responder's reverse entropy (MR-MP-15), PROBE answers (MR-MP-10) */

static void c_reverse_entropy(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	struct rxpkt r;
	uint8_t pl[64];
	int port[2][2] = { { 0, 0 }, { 0, 0 } };

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, 5, 0, sizeof(pl));
	/* Two WRITEs per (tester entropy, path): the ACKs of a pair share
	 * one port, another entropy moves it, another path index too. */
	for (unsigned int i = 0; i < 6; i++) {
		unsigned int e = i / 2 % 2, pa = i >= 4;

		req_fill(&p, &q, MR_OP_WRITE, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
		p.path = (uint8_t)((q.path + pa * 9) % MR_MAX_PATHS);
		p.dxh.msn = q.msn;
		p.dxh.msg_len = sizeof(pl);
		p.rxh.va = DUT.addr0 + 64 * i;
		p.rxh.rkey = DUT.rkey0;
		p.payload = pl;
		p.payload_len = sizeof(pl);
		if (e)
			tx_pkt_alt(&p);
		else
			tx_pkt(&p);
		q.psn = (q.psn + 1) & MR_PSN_MASK;
		q.msn++;
		if (!rx_take(q.my_qpn, MR_OP_ACK, WAIT_RESP, &r)) {
			fail_at(t, __LINE__, "no ACK of WRITE %u", i);
			continue;
		}
		wire_check(t, "ACK", &q, &r);
		EXPECT(t, r.p.path == p.path, "ACK path %u, want the echo %u (MR-HDR-6, MR-MP-15)",
		       r.p.path, p.path);
		if (pa) {
			/* same entropy as the first pair, another path: any port */
			continue;
		}
		if (!port[e][0])
			port[e][0] = r.sport;
		else
			EXPECT(t, r.sport == port[e][0],
			       "ACKs of one path and entropy from UDP ports %d and %u: not a function of (QP, path, entropy) (MR-MP-15)",
			       port[e][0], r.sport);
	}
	diag("ACK ports: %d for entropy %#x, %d for %#x", port[0][0], tx_sport[0] & MR_ENTROPY_MASK,
	     port[1][0], tx_sport[1] & MR_ENTROPY_MASK);
	EXPECT(t, port[0][0] && port[1][0] && port[0][0] != port[1][0],
	       "the ACK port did not move with the requester's entropy (MR-MP-15: one-to-one)");
	tqp_close(&q);
}

/* Packet @k (0 or 1) of a 2-packet WRITE of @pl to the DUT's MR 0 at
 * 4096, message q->msn from PSN @psn0, on path @path; the last asks for
 * an ACK. */
static void wr2_piece(struct mr_pkt *p, const struct tqp *q, uint32_t psn0, unsigned int k,
		      const uint8_t *pl, uint8_t path)
{
	req_fill(p, q, MR_OP_WRITE, psn0 + k, k ? MR_F_LAST | MR_F_ACKREQ : MR_F_FIRST);
	p->path = path;
	p->dxh.msn = q->msn;
	p->dxh.msg_len = 2 * PMTU;
	p->dxh.offset = k * PMTU;
	p->rxh.va = DUT.addr0 + 4096;
	p->rxh.rkey = DUT.rkey0;
	p->payload = pl + k * PMTU;
	p->payload_len = PMTU;
}

/*
 * A READ and an atomic that wait for an earlier message execute when its
 * last packet arrives, on another path: their answers still go on their
 * own request's path and its reverse entropy (MR-MP-15).  First a WRITE
 * on the READ's path from the same tester port gives that entropy's ACK
 * port.
 */
static void c_deferred_answer_path(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	struct rxpkt r;
	uint8_t pl[2 * PMTU], pr, pa, pw;
	uint32_t psn0;
	int ack_port = -1;
	unsigned int got = 0;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	/* three distinct paths: the READ's, the atomic's, the WRITE's */
	pr = q.path;
	pa = (uint8_t)((pr + 21) % MR_MAX_PATHS);
	pw = (uint8_t)((pr + 42) % MR_MAX_PATHS);
	mrc_pat_fill(pl, 23, 0, sizeof(pl));
	wr_fill(&p, &q, 0, pl, 64);
	p.path = pr;
	tx_pkt(&p);
	memcpy(mem0, pl, 64);
	REQUIRE(t, rx_take(q.my_qpn, MR_OP_ACK, WAIT_RESP, &r), "no ACK of the first WRITE");
	REQUIRE(t, r.p.path == pr, "ACK path %u, want the echo %u (MR-HDR-6, MR-MP-15)",
		r.p.path, pr);
	ack_port = r.sport;
	q.psn = (q.psn + 1) & MR_PSN_MASK;
	q.msn++;
	/* msn +0: a 2-packet WRITE, its LAST held back; +1 READ; +2 FETCH_ADD */
	psn0 = q.psn;
	wr2_piece(&p, &q, psn0, 0, pl, pw);
	tx_pkt(&p);
	req_fill(&p, &q, MR_OP_READ_REQ, psn0 + 2, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.path = pr;
	p.dxh.msn = q.msn + 1;
	p.dxh.msg_len = 100;
	p.rxh.va = DUT.addr0 + 8192;
	p.rxh.rkey = DUT.rkey0;
	tx_pkt(&p);
	req_fill(&p, &q, MR_OP_ATOMIC_FA, psn0 + 3, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.path = pa;
	p.dxh.msn = q.msn + 2;
	p.dxh.msg_len = MR_ATOMIC_LEN;
	p.axh.va = DUT.addr0 + 12288;
	p.axh.rkey = DUT.rkey0;
	p.axh.swap_add = 1;
	tx_pkt(&p);
	EXPECT(t, !rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_SILENT, &r),
	       "a READ_RESP before the WRITE before the READ completed (MR-PLACE-16)");
	/* the WRITE's last packet, on a third path, from the other port */
	wr2_piece(&p, &q, psn0, 1, pl, pw);
	tx_pkt_alt(&p);
	memcpy(mem0 + 4096, pl, sizeof(pl));
	word_put(12288, word_at(12288) + 1);
	while (rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_RESP, &r)) {
		got++;
		EXPECT(t, r.p.path == pr,
		       "READ_RESP path %u, want its READ_REQ's %u, not %u of the packet that let it execute (MR-MP-15, MR-HDR-6)",
		       r.p.path, pr, pw);
		EXPECT(t, r.sport == ack_port,
		       "READ_RESP from UDP port %u, the ACKs of path %u and this entropy came from %d (MR-MP-15)",
		       r.sport, pr, ack_port);
		if (r.p.flags & MR_F_LAST)
			break;
	}
	EXPECT(t, got == 1, "%u READ_RESPs of a 100-byte READ, want 1", got);
	if (rx_take(q.my_qpn, MR_OP_ATOMIC_RESP, WAIT_RESP, &r))
		EXPECT(t, r.p.path == pa,
		       "ATOMIC_RESP path %u, want its request's %u, not %u of the packet that let it execute (MR-MP-15, MR-HDR-6)",
		       r.p.path, pa, pw);
	else
		fail_at(t, __LINE__, "no ATOMIC_RESP");
	mem_check(t, "the WRITE and the FETCH_ADD", "MR-PLACE-16");
	tqp_close(&q);
}

static void c_probe_reply(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	struct rxpkt r;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	net_pump(0.2 * O.slow);
	rx_flush();
	memset(&p, 0, sizeof(p));
	p.opcode = MR_OP_PROBE;
	p.path = 37;
	p.dqpn = q.dut_qpn;
	p.sqpn = q.my_qpn;
	p.psn = 0xABCDE;
	p.ts = ts_now();
	tx_pkt(&p);
	REQUIRE(t, rx_take(q.my_qpn, MR_OP_PROBE_REPLY, WAIT_RESP, &r),
		"no PROBE_REPLY to a PROBE (MR-MP-10)");
	wire_check(t, "PROBE_REPLY", &q, &r);
	EXPECT(t, r.p.path == 37 && r.p.psn == 0xABCDE && r.p.ts == p.ts && r.p.flags == 0,
	       "PROBE_REPLY path %u psn %#x ts %#x flags %#x, want 37 %#x %#x 0 (MR-MP-10, MR-HDR-8, MR-HDR-9)",
	       r.p.path, r.p.psn, r.p.ts, r.p.flags, 0xABCDEu, p.ts);
	EXPECT(t, r.len == MR_MBH_LEN + MR_ICRC_LEN, "PROBE_REPLY of %u bytes, want MBH only (MR-MP-10)",
	       r.len);
	/* Nothing else: no state changed, the QP still answers. */
	EXPECT(t, !strcmp(dut_qp_state(&q), "RTS"), "QP left RTS after a PROBE (MR-MP-10)");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* Congestion control: the receiver credit, the ECN echo               */

/* The DUT's first copies of WRITE PSNs [from, from + n) arriving within
 * @tmo s, no ACK sent: how many distinct PSNs. */
static unsigned int inflight(struct tqp *q, uint32_t from, unsigned int n, double tmo,
			     struct rxpkt *last)
{
	struct rxpkt r;
	bool seen[64] = { false };
	unsigned int got = 0;
	double end = now_s() + tmo * O.slow;

	while (now_s() < end) {
		uint32_t d;

		if (!rx_take(q->my_qpn, MR_OP_WRITE, 0.02, &r))
			continue;
		d = (r.p.psn - q->dut_psn - from) & MR_PSN_MASK;
		if (d < n && d < 64 && !seen[d]) {
			seen[d] = true;
			got++;
			rx_copy(last, &r);
		}
	}
	return got;
}

static void c_credit(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r[1], last;
	struct mr_pkt a;
	unsigned int n;

	memset(r, 0, sizeof(r));
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	/* A first WRITE, ACKed with credit 2. */
	REQUIRE(t, agent("POST %d WRITE 801 1 0 64 0x%x 0x%llx 0 0 0 1", q.id, W_RKEY,
			 (unsigned long long)W_VA), "agent: POST: %s", agent_err);
	REQUIRE(t, req_take(&q, MR_OP_WRITE, 0, 1, r, 2 * WAIT_RESP) == 1, "no WRITE");
	ack_fill(&a, &q, q.dut_psn + 1, 1, &r[0]);
	a.akh.credit = 2;
	tx_pkt(&a);
	/* 8 packets posted; at most 2 in flight until the next ACK. */
	REQUIRE(t, agent("POST %d WRITE 802 1 0 8192 0x%x 0x%llx 0 0 0 1", q.id, W_RKEY,
			 (unsigned long long)W_VA), "agent: POST: %s", agent_err);
	n = inflight(&q, 1, 8, 0.3, &last);
	EXPECT(t, n == 2, "%u packets sent with credit 2, want 2 (MR-CC-2, MR-CC-14)", n);
	if (!n)
		goto out;
	/* Credit 0 counts as 1: one more after the ACK of those two. */
	ack_fill(&a, &q, q.dut_psn + 1 + n, 1, &last);
	a.akh.credit = 0;
	tx_pkt(&a);
	n = inflight(&q, 3, 6, 0.3, &last);
	EXPECT(t, n == 1, "%u new packets with credit 0, want 1 (MR-CC-2, MR-CC-14)", n);
	if (!n)
		goto out;
	/* Unlimited: the rest, each ACKed as it comes (the window after the
	 * RTOs of the waits above is small). */
	ack_fill(&a, &q, q.dut_psn + 4, 1, &last);
	tx_pkt(&a);
	{
		bool seen[5] = { false };
		unsigned int cum = 0;
		double end = now_s() + 4 * WAIT_RESP * O.slow;
		struct rxpkt x;

		while (cum < 5 && now_s() < end) {
			uint32_t d;

			if (!rx_take(q.my_qpn, MR_OP_WRITE, 0.05, &x))
				continue;
			d = (x.p.psn - q.dut_psn - 4) & MR_PSN_MASK;
			if (d < 5)
				seen[d] = true;
			while (cum < 5 && seen[cum])
				cum++;
			tx_ack(&q, q.dut_psn + 4 + cum, cum == 5 ? 2 : 1, &x);
		}
		EXPECT(t, cum == 5, "%u of the last 5 packets after an unlimited credit (MR-CC-14)", cum);
	}
out:
	tqp_close(&q);
}

/* A CE-marked request: the DUT ACKs it at once with ECE and the counts
 * (MR-CC-1, MR-ENC-6). */
static void c_ce_echo(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	struct rxpkt r;
	uint8_t pl[64];
	bool acked = false;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, 77, 0, sizeof(pl));
	for (unsigned int k = 0; k < 2; k++) {
		/* no ACKREQ: only the CE mark calls for the ACK at once */
		req_fill(&p, &q, MR_OP_WRITE, q.psn, MR_F_FIRST | MR_F_LAST);
		p.dxh.msn = q.msn;
		p.dxh.msg_len = sizeof(pl);
		p.rxh.va = DUT.addr0 + 128 * k;
		p.rxh.rkey = DUT.rkey0;
		p.payload = pl;
		p.payload_len = sizeof(pl);
		tx_set_tos((uint8_t)(MR_DSCP_DEFAULT << 2 | (k ? 3 : 2)));
		tx_pkt(&p);
		tx_set_tos((uint8_t)(MR_DSCP_DEFAULT << 2 | 2));
		q.psn = (q.psn + 1) & MR_PSN_MASK;
		q.msn++;
		if (!k) {
			/* a clean packet first: its count rides on the next
			 * ACK unless the DUT's ACK timer sent one */
			acked = rx_take(q.my_qpn, MR_OP_ACK, WAIT_SILENT, &r);
			continue;
		}
		REQUIRE(t, rx_take(q.my_qpn, MR_OP_ACK, WAIT_RESP, &r),
			"no ACK at once for a CE-marked request (MR-CC-1)");
		wire_check(t, "ACK of a CE packet", &q, &r);
		EXPECT(t, r.p.flags & MR_F_ECE, "ACK of a CE-marked request without ECE (MR-CC-1, MR-ENC-6)");
		EXPECT(t, r.p.akh.ts_echo == p.ts, "the ACK's ts_echo %#x is not the CE packet's %#x (MR-CC-1)",
		       r.p.akh.ts_echo, p.ts);
		EXPECT(t, r.p.akh.ce_count == 1, "ce_count %u, want 1 (MR-CC-1, MR-HDR-17)",
		       r.p.akh.ce_count);
		EXPECT(t, r.p.akh.pkt_count == (acked ? 1 : 2),
		       "pkt_count %u, want %u: the packets since the last ACK (MR-CC-1)",
		       r.p.akh.pkt_count, acked ? 1 : 2);
		EXPECT(t, r.p.akh.cum_psn == q.psn, "cum_psn %#x, want %#x", r.p.akh.cum_psn, q.psn);
	}
	tqp_close(&q);
}

/* The first copies of WRITE PSNs [from, from + n) of @q arriving within
 * @tmo s (no ACK sent), their number; once @stop_at are in, 15 ms more
 * for one over.  The timestamps into @ts if not NULL. */
static unsigned int new_psns(struct tqp *q, bool *seen, uint32_t from, uint32_t n, double tmo,
			     unsigned int stop_at, struct rxpkt *last, uint32_t *ts)
{
	struct rxpkt r;
	unsigned int got = 0;
	double end = now_s() + tmo;

	while (now_s() < end) {
		/* @stop_at seen: a little longer for one more, no RTO's time */
		if (got == stop_at && end > now_s() + 0.015 * O.slow)
			end = now_s() + 0.015 * O.slow;
		uint32_t d;

		if (!rx_take(q->my_qpn, MR_OP_WRITE, 0.005, &r))
			continue;
		d = (r.p.psn - q->dut_psn) & MR_PSN_MASK;
		if (d >= from && d < from + n && !seen[d]) {
			seen[d] = true;
			if (ts)
				ts[d] = r.p.ts;
			got++;
		}
		rx_copy(last, &r);
	}
	return got;
}

/* A first WRITE of @q (PSN 0) ACKed after 60 ms, echoing its first copy,
 * with credit @credit: an RTT sample of 60 ms or more (the RTO about three
 * times that, and pacing spaces a flight of 32 by 1.5 ms or more). */
static bool rtt_sample_60ms(struct tctx *t, struct tqp *q, unsigned int wrid, uint32_t credit)
{
	struct rxpkt r[1];
	struct mr_pkt a;

	memset(r, 0, sizeof(r));
	if (!agent("POST %d WRITE %u 1 0 64 0x%x 0x%llx 0 0 0 1", q->id, wrid, W_RKEY,
		   (unsigned long long)W_VA) || req_take(q, MR_OP_WRITE, 0, 1, r, 2 * WAIT_RESP) != 1) {
		fail_at(t, __LINE__, "no first WRITE (%s)", agent_err);
		return false;
	}
	net_pump_until(r[0].t + 0.06);
	rx_flush();
	ack_fill(&a, q, q->dut_psn + 1, 1, &r[0]);
	a.akh.credit = credit;
	tx_pkt(&a);
	return true;
}

/* A WRITE of 48 packets whose first PSN is q->dut_psn + @from, posted and
 * not ACKed: the first flight's distinct PSNs, their timestamps in @ts. */
static unsigned int flight48(struct tctx *t, struct tqp *q, unsigned int wrid, uint32_t from,
			     bool *seen, uint32_t *ts, struct rxpkt *last)
{
	if (!agent("POST %d WRITE %u 1 0 %u 0x%x 0x%llx 0 0 0 1", q->id, wrid, 48 * PMTU,
		   W_RKEY, (unsigned long long)W_VA)) {
		fail_at(t, __LINE__, "agent: POST: %s", agent_err);
		return 0;
	}
	return new_psns(q, seen, from, 48, 0.12 * O.slow, 33, last, ts);
}

/* rtt_sample_60ms(), then flight48() from PSN 1. */
static unsigned int first_flight(struct tctx *t, struct tqp *q, unsigned int wrid, bool *seen,
				 uint32_t *ts, struct rxpkt *last)
{
	if (!rtt_sample_60ms(t, q, wrid, MR_CREDIT_UNLIMITED))
		return 0;
	return flight48(t, q, wrid + 1, 1, seen, ts, last);
}

/* The initial window: no more than init_cwnd = 32 in flight (MR-CC-2,
 * MR-CC-18's default). */
static void c_window_limit(struct tctx *t)
{
	struct tqp q;
	struct rxpkt last;
	bool seen[64] = { false };
	uint32_t ts[64];
	unsigned int n;
	struct mr_pkt a;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	n = first_flight(t, &q, 841, seen, ts, &last);
	diag("%u packets in the first flight", n);
	EXPECT(t, n == 32, "%u packets in flight before any ACK, want the initial window 32 and no more (MR-CC-2)",
	       n);
	if (n) {
		ack_fill(&a, &q, q.dut_psn + 49, 2, &last);
		tx_pkt(&a);
	}
	tqp_close(&q);
}

/*
 * ECN decrease (MR-CC-4, MR-CC-5): alpha starts at 1, so the first ACK
 * reporting CE halves the window.  After the first flight (32 packets;
 * 33 where the DUT rounds the window up, see window_limit), an ACK of 8
 * packets all CE cuts the window to about 16, which the 24 or 25 still in
 * flight exceed: nothing new.  An ACK of 16 more without CE leaves 8 or 9
 * in flight under a window of about 17: 7 to 10 new packets, where no
 * cut would give 16 (all that is left).  The first flight is paced
 * (MR-CC-12).
 */
static void c_ecn_decrease(struct tctx *t)
{
	struct tqp q;
	struct rxpkt last;
	struct mr_pkt a;
	bool seen[64] = { false };
	uint32_t ts[64];
	unsigned int n, first;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	first = first_flight(t, &q, 811, seen, ts, &last);
	diag("%u packets in the first flight", first);
	REQUIRE(t, first == 32 || first == 33,
		"%u packets of a 48-packet WRITE before any ACK, want the initial window 32", first);
	/* Paced: srtt >= 60 ms over 1.25 x W = 32 is a gap of 1.5 ms or
	 * more; 31 gaps less one caught up (MR-CC-12). */
	{
		int32_t span = (int32_t)(ts[32] - ts[1]), want = 30 * 60000 / 40 * 9 / 10;

		diag("packets 1..32 span %d us (DUT clock)", span);
		EXPECT(t, span >= want, "32 packets within %d us after an RTT sample of >= 60 ms: not paced at srtt / (1.25 W) (MR-CC-12)",
		       span);
	}
	ack_fill(&a, &q, q.dut_psn + 9, 1, &last);
	a.flags = MR_F_ECE;
	a.akh.pkt_count = 8;
	a.akh.ce_count = 8;
	tx_pkt(&a);
	n = new_psns(&q, seen, first + 1, 48 - first, 0.04 * O.slow, 99, &last, NULL);
	EXPECT(t, n == 0, "%u new packets after an ACK of 8 packets all CE with %u in flight: the window was not halved (MR-CC-4, MR-CC-5)",
	       n, first - 8);
	ack_fill(&a, &q, q.dut_psn + 25, 1, &last);
	a.akh.pkt_count = 16;
	tx_pkt(&a);
	n += new_psns(&q, seen, first + 1, 48 - first, 0.08 * O.slow, 99, &last, NULL);
	diag("%u new packets with %u in flight after the cut", n, first - 24);
	EXPECT(t, n >= 7 && n <= 10, "%u new packets with %u in flight, want 7..10 under a window of about 17 (MR-CC-4, MR-CC-5)",
	       n, first - 24);
	ack_fill(&a, &q, q.dut_psn + 49, 2, &last);
	tx_pkt(&a);
	tqp_close(&q);
}

/*
 * CE on READ responses (MR-CC-1, MR-CC-15): the requester takes each
 * READ_RESP as one packet an ACK reported, CE-marked or not, so CE-marked
 * responses are an ECN signal (MR-CC-5) for the window of its next
 * requests.  Two QPs side by side, each: a WRITE ACKed after 60 ms (an RTT
 * sample), a 4-packet READ answered at once, its READ_RESPs CE-marked on
 * the second QP only, then a 48-packet WRITE not ACKed.  The control's
 * first flight is the initial window (32); alpha starts at 1 (MR-CC-4),
 * so the CE-marked responses halve the window, once, as they arrive within
 * one srtt (MR-CC-8): a flight of about 16.  Asserted with room: at most
 * 3/4 of the control's flight, at least 1/4 of it.
 */
static unsigned int read_ce_then_flight(struct tctx *t, struct tqp *q, unsigned int wrid, bool ce)
{
	static uint8_t data[4 * PMTU];
	struct rxpkt r[1], last;
	struct mr_pkt a;
	struct cqe c[2];
	bool seen[64] = { false };
	unsigned int n;
	int got;

	memset(r, 0, sizeof(r));
	if (!rtt_sample_60ms(t, q, wrid, MR_CREDIT_UNLIMITED))
		return 0;
	mrc_pat_fill(data, wrid, 0, sizeof(data));
	if (!agent("POST %d READ %u 1 0 %u 0x%x 0x%llx 0 0 0 1", q->id, wrid + 1,
		   (unsigned int)sizeof(data), W_RKEY, (unsigned long long)W_VA) ||
	    req_take(q, MR_OP_READ_REQ, 1, 1, r, 2 * WAIT_RESP) != 1) {
		fail_at(t, __LINE__, "no READ_REQ for a 4-packet READ (%s)", agent_err);
		return 0;
	}
	if (r[0].p.dxh.offset || r[0].p.dxh.msg_len != sizeof(data)) {
		fail_at(t, __LINE__, "the 4-packet READ asked for as offset %u msg_len %u: the case needs it in one range",
			r[0].p.dxh.offset, r[0].p.dxh.msg_len);
		return 0;
	}
	tx_set_tos((uint8_t)(MR_DSCP_DEFAULT << 2 | (ce ? 3 : 2)));
	read_answer(q, &r[0], data, sizeof(data));
	tx_set_tos((uint8_t)(MR_DSCP_DEFAULT << 2 | 2));
	got = cqe_wait(q, c, 2, WAIT_RESP);
	if (got != 2 || c[1].wrid != wrid + 1 || c[1].status != IBV_WC_SUCCESS) {
		fail_at(t, __LINE__, "the READ answered by 4 READ_RESPs%s did not complete (%d CQEs)",
			ce ? " with CE" : "", got);
		return 0;
	}
	n = flight48(t, q, wrid + 2, 2, seen, NULL, &last);
	diag("%s READ_RESPs, then %u packets in the first flight", ce ? "CE-marked" : "unmarked", n);
	if (n) {
		ack_fill(&a, q, q->dut_psn + 50, 3, &last);
		tx_pkt(&a);
	}
	return n;
}

static void c_read_resp_ce(struct tctx *t)
{
	struct tqp q;
	unsigned int n0, n1;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	n0 = read_ce_then_flight(t, &q, 871, false);
	tqp_close(&q);
	REQUIRE(t, n0 >= 24,
		"%u packets in the first flight after unmarked READ_RESPs: want about the initial window 32, the control of this case (MR-CC-2)",
		n0);
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	n1 = read_ce_then_flight(t, &q, 875, true);
	tqp_close(&q);
	if (!n1)
		return;
	EXPECT(t, 4 * n1 <= 3 * n0,
	       "%u packets in the first flight after 4 CE-marked READ_RESPs, %u after unmarked ones: the CE marks of responses did not cut the window, want about half (MR-CC-1, MR-CC-5, MR-CC-15)",
	       n1, n0);
	EXPECT(t, 4 * n1 >= n0,
	       "%u packets in the first flight after 4 CE-marked READ_RESPs, %u after unmarked ones: more than one decrease within one srtt (MR-CC-8)",
	       n1, n0);
}

/* The first copies of the DUT's READ_REQs on @q arriving within @tmo s
 * (times --slow), the tester silent: each new PSN (offset d from
 * q->dut_psn) into @rq[d], @seen[d] set; once @stop_at are in, 30 ms more
 * for one over.  Their number. */
#define RQ_MAX	64
static unsigned int new_read_reqs(struct tqp *q, bool *seen, struct rxpkt *rq, double tmo,
				  unsigned int stop_at)
{
	struct rxpkt r;
	unsigned int got = 0;
	double end = now_s() + tmo * O.slow;

	while (now_s() < end) {
		uint32_t d;

		if (got == stop_at && end > now_s() + 0.03 * O.slow)
			end = now_s() + 0.03 * O.slow;
		if (!rx_take(q->my_qpn, MR_OP_READ_REQ, 0.005, &r))
			continue;
		d = (r.p.psn - q->dut_psn) & MR_PSN_MASK;
		if (d < RQ_MAX && !seen[d]) {
			seen[d] = true;
			rx_copy(&rq[d], &r);
			got++;
		}
	}
	return got;
}

/*
 * A READ's later ranges under the window (MR-CC-2, MR-CC-3, MR-CC-14):
 * after an ACK granting credit 2, a 64 KiB READ that the DUT asks for in
 * ranges (with several paths, of rd_split = 8 packets each, MR-MP-28) has
 * at most 2 READ_REQs in flight.  The tester silent for 0.25 s: at most 2
 * distinct READ_REQ PSNs (an RTO resends a lost one under its PSN, and
 * before any new one, MR-REL-22).  Then, round by round, the tester
 * answers every range asked for (all delivered) and is silent again: at
 * most 2 new READ_REQs a round, until every byte was asked for; the READ
 * completes with the tester's bytes.  A DUT asking for the whole READ in
 * 2 READ_REQs or fewer has no later range to hold back: not run.
 */
static void c_read_ranges_window(struct tctx *t)
{
	static uint8_t data[MR_LEN];
	static struct rxpkt rq[RQ_MAX];
	bool seen[RQ_MAX] = { false }, done[RQ_MAX] = { false }, piece[MR_LEN / PMTU] = { false };
	unsigned int n, k, ranges = 0, covered = 0, idle = 0, over = 0;
	struct tqp q;
	struct cqe c[2];
	uint64_t h;
	int got;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(data, 0x4EAD2, 0, sizeof(data));
	if (!rtt_sample_60ms(t, &q, 861, 2))
		goto out;
	if (!agent("POST %d READ 862 1 0 %u 0x%x 0x%llx 0 0 0 1", q.id, MR_LEN, W_RKEY,
		   (unsigned long long)W_VA)) {
		fail_at(t, __LINE__, "agent: POST: %s", agent_err);
		goto out;
	}
	n = new_read_reqs(&q, seen, rq, 0.25, RQ_MAX);
	diag("%u READ_REQs with credit 2, none answered", n);
	if (!n) {
		fail_at(t, __LINE__, "no READ_REQ for a 64 KiB READ with credit 2: one may be in flight (MR-CC-2)");
		goto out;
	}
	EXPECT(t, n <= 2,
	       "%u READ_REQs of one READ in flight after an ACK granting credit 2: its later ranges went past the window W = min(cwnd, credit) (MR-CC-2, MR-CC-3, MR-CC-14)",
	       n);
	while (covered < MR_LEN / PMTU && idle < 4) {
		for (uint32_t d = 0; d < RQ_MAX; d++) {
			const struct mr_pkt *p = &rq[d].p;

			if (!seen[d] || done[d])
				continue;
			done[d] = true;
			ranges++;
			if (!read_answer(&q, &rq[d], data, MR_LEN)) {
				fail_at(t, __LINE__, "READ_REQ at PSN +%u asks for offset %u msg_len %u, outside the 64 KiB READ (MR-HDR-24)",
					d, p->dxh.offset, p->dxh.msg_len);
				goto out;
			}
			for (k = p->dxh.offset / PMTU; k * PMTU < p->dxh.offset + p->dxh.msg_len; k++)
				if (!piece[k]) {
					piece[k] = true;
					covered++;
				}
		}
		if (covered == MR_LEN / PMTU)
			break;
		n = new_read_reqs(&q, seen, rq, 0.15, 2);
		idle = n ? 0 : idle + 1;
		if (n > 2 && !over++)
			fail_at(t, __LINE__, "%u new READ_REQs of one READ, none of its earlier ones in flight, with credit 2: past the window W = min(cwnd, credit) (MR-CC-2, MR-CC-3, MR-CC-14)",
				n);
	}
	diag("the READ asked for in %u READ_REQs", ranges);
	if (covered < MR_LEN / PMTU) {
		fail_at(t, __LINE__, "%u of the READ's %u KiB asked for, then no READ_REQ for 4 rounds with credit 2 (MR-CC-2 lets one go)",
			covered, MR_LEN / 1024);
		goto out;
	}
	got = cqe_wait(&q, c, 2, WAIT_RESP);
	EXPECT(t, got == 2 && c[1].wrid == 862 && c[1].status == IBV_WC_SUCCESS,
	       "the READ answered whole did not complete (%d CQEs)", got);
	if (mr_hash(1, 0, MR_LEN, &h))
		EXPECT(t, h == mrc_hash(data, MR_LEN), "the READ's buffer does not hold the tester's bytes (MR-REL-24)");
	else
		fail_at(t, __LINE__, "agent: HASH: %s", agent_err);
	if (ranges <= 2 && !t->nfail)
		not_run(t, "the DUT asked for a 64 KiB READ in 2 READ_REQs or fewer: no later range to hold back");
out:
	tqp_close(&q);
}

/* An ICMP "fragmentation needed" for the DUT's packets changes neither
 * their size nor DF: a node does not fragment and does not lower a QP's
 * PMTU on an unauthenticated ICMP message (MR-ENC-13). */
static void c_icmp_pmtu(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r[3];
	struct cqe c[2];
	uint64_t ic0 = 0, ic1 = 0;
	bool have_ic = counter("icmp_errors", &ic0);

	memset(r, 0, sizeof(r));
	if (!net_raw_visible()) {
		fail_at(t, __LINE__, "no raw socket: DF is not observable (run as root)");
		return;
	}
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, agent("POST %d WRITE 831 1 0 1024 0x%x 0x%llx 0 0 0 1", q.id, W_RKEY,
			 (unsigned long long)W_VA), "agent: POST: %s", agent_err);
	REQUIRE(t, req_take(&q, MR_OP_WRITE, 0, 1, r, 2 * WAIT_RESP) == 1, "no WRITE");
	/* IP 20 + UDP 8 + WRITE headers 52 + 1024 + ICRC 4 */
	REQUIRE(t, tx_icmp_frag_needed(r[0].sport, 20 + 8 + 52 + 1024 + 4, 576),
		"cannot send ICMP (raw socket)");
	tx_ack(&q, q.dut_psn + 1, 1, &r[0]);
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].status == IBV_WC_SUCCESS,
	       "no successful completion");
	net_pump(0.05);
	memset(&RAW, 0, sizeof(RAW));
	memset(r, 0, sizeof(r));
	REQUIRE(t, agent("POST %d WRITE 832 1 0 2048 0x%x 0x%llx 0 0 0 1", q.id, W_RKEY,
			 (unsigned long long)W_VA), "agent: POST: %s", agent_err);
	REQUIRE(t, req_take(&q, MR_OP_WRITE, 1, 2, r, WAIT_RESP) == 2,
		"the WRITE after an ICMP fragmentation needed (MTU 576) did not arrive in 2 packets (MR-ENC-13)");
	for (int k = 0; k < 2; k++)
		EXPECT(t, r[k].p.payload_len == PMTU, "packet %d after the ICMP: %u bytes of payload, want the PMTU %u (MR-ENC-13)",
		       k, r[k].p.payload_len, PMTU);
	net_pump(0);
	EXPECT(t, RAW.seen >= 2 && !RAW.no_df && !RAW.frag,
	       "after the ICMP: %llu datagrams, %llu without DF, %llu fragments (MR-ENC-13, MR-ENC-7)",
	       (unsigned long long)RAW.seen, (unsigned long long)RAW.no_df,
	       (unsigned long long)RAW.frag);
	tx_ack(&q, q.dut_psn + 3, 2, &r[1]);
	EXPECT(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].status == IBV_WC_SUCCESS,
	       "no successful completion after the ICMP");
	if (have_ic && counter("icmp_errors", &ic1))
		diag("icmp_errors %llu -> %llu (a SHOULD)", (unsigned long long)ic0,
		     (unsigned long long)ic1);
	tqp_close(&q);
}

/* READ responses paced by the responder's own congestion state
 * (MR-CC-19): the DUT's requests on the QP got an RTT sample of 100 ms or
 * more (the tester held its ACK), so its READ_RESPs of a 32-packet READ
 * leave srtt / (1.25 x W) >= 2.5 ms apart (W about 32, init_cwnd). */
static void c_read_resp_paced(struct tctx *t)
{
	struct tqp q;
	struct rxpkt r[1], x;
	struct mr_pkt p;
	struct cqe c[2];
	uint32_t ts0 = 0, ts1 = 0;
	unsigned int n = 0;
	double end;
	int32_t span, want = 30 * 100000 / 40 * 9 / 10;

	memset(r, 0, sizeof(r));
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, agent("POST %d WRITE 851 1 0 64 0x%x 0x%llx 0 0 0 1", q.id, W_RKEY,
			 (unsigned long long)W_VA), "agent: POST: %s", agent_err);
	REQUIRE(t, req_take(&q, MR_OP_WRITE, 0, 1, r, 2 * WAIT_RESP) == 1, "no WRITE");
	net_pump_until(r[0].t + 0.1);
	rx_flush();
	tx_ack(&q, q.dut_psn + 1, 1, &r[0]);
	REQUIRE(t, cqe_wait(&q, c, 1, WAIT_RESP) == 1 && c[0].status == IBV_WC_SUCCESS,
		"no successful completion of the WRITE");
	req_fill(&p, &q, MR_OP_READ_REQ, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msn = q.msn;
	p.dxh.msg_len = 32 * PMTU;
	p.rxh.va = DUT.addr0;
	p.rxh.rkey = DUT.rkey0;
	tx_pkt(&p);
	end = now_s() + 2 * WAIT_RESP * O.slow;
	while (n < 32 && now_s() < end) {
		if (!rx_take(q.my_qpn, MR_OP_READ_RESP, 0.05, &x) || x.p.psn != p.psn)
			continue;
		if (x.p.dxh.offset == 0)
			ts0 = x.p.ts;
		if (x.p.dxh.offset == 31 * PMTU)
			ts1 = x.p.ts;
		n++;
	}
	REQUIRE(t, n == 32 && ts1, "%u READ_RESPs of a 32-packet READ", n);
	span = (int32_t)(ts1 - ts0);
	diag("32 READ_RESPs span %d us (DUT clock), want >= %d", span, want);
	EXPECT(t, span >= want, "32 READ_RESPs within %d us after an RTT sample of >= 100 ms: not paced at srtt / (1.25 W) (MR-CC-19)",
	       span);
	tqp_close(&q);
}

const struct tcase cases_wire[] = {
	{ "HDR", "wire_requester_all_opcodes",
	  "MR-ENC-1, MR-ENC-3, MR-ENC-4, MR-ENC-7, MR-ENC-9, MR-ENC-12, MR-HDR-1..3, MR-HDR-5, MR-HDR-11..14, MR-HDR-20, MR-HDR-22, MR-HDR-25, MR-MP-1..4",
	  c_wire_requester, NULL },
	{ "HDR", "wire_responder_packets", "MR-HDR-1, MR-HDR-15, MR-HDR-17..19", c_wire_responder, NULL },
	{ "MP", "reverse_entropy", "MR-MP-15", c_reverse_entropy, NULL },
	{ "MP", "deferred_answer_path", "MR-MP-15, MR-HDR-6", c_deferred_answer_path, NULL },
	{ "MP", "probe_reply", "MR-MP-10", c_probe_reply, NULL },
	{ "CC", "receiver_credit", "MR-CC-2, MR-CC-14", c_credit, NULL },
	{ "CC", "ce_echo", "MR-CC-1, MR-ENC-6", c_ce_echo, NULL },
	{ "CC", "initial_window_limit", "MR-CC-2", c_window_limit, NULL },
	{ "CC", "ecn_decrease_paced", "MR-CC-4, MR-CC-5, MR-CC-12", c_ecn_decrease, NULL },
	{ "CC", "read_resp_paced", "MR-CC-19", c_read_resp_paced, NULL },
	{ "CC", "read_resp_ce_decrease", "MR-CC-1, MR-CC-5, MR-CC-8, MR-CC-15", c_read_resp_ce, NULL },
	{ "CC", "read_ranges_in_window", "MR-CC-2, MR-CC-3, MR-CC-14", c_read_ranges_window, NULL },
};
const unsigned int n_cases_wire = MR_ARRAY_SIZE(cases_wire);

/* Run last: a DUT that obeys the ICMP message keeps the lowered route MTU
 * to the tester for minutes (the IP layer's PMTU cache), and every later
 * case with full-size packets would fail. */
const struct tcase cases_last[] = {
	{ "ENC", "icmp_frag_needed_ignored", "MR-ENC-13", c_icmp_pmtu, NULL },
};
const unsigned int n_cases_last = MR_ARRAY_SIZE(cases_last);
