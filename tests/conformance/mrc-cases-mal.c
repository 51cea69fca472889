// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-conform cases of hostile input (MAL, SEC, TRIM, VER): packets a
 * genuine peer never sends, or sends from elsewhere, to a DUT QP. Each
 * case checks the DUT's answer (none, or the NACK the spec names), its
 * memory (MR 0 compared whole), the drop counter of the reason, and that
 * the QP still works afterwards where the spec says nothing changed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mr-conform.h"

#define TRIM_DSCP	6	/* trim_dscp's default (MR-TRIM-2) */

/* @b was sent: no answer, nothing placed, counter @cnt (taken at @c0)
 * moved. */
static void refused(struct tctx *t, const struct tqp *q, const char *what,
		    const char *cnt, uint64_t c0, const char *ids)
{
	expect_silence(t, q, what, ids);
	mem_check(t, what, ids);
	counter_moved(t, cnt, c0, ids);
}

/* WRITE @p (from wr_fill(), at MR 0 offset @moff) was sent and must be
 * taken: mem0 updated, @q's PSN and MSN advanced, its ACK checked. */
static void taken(struct tctx *t, struct tqp *q, const struct mr_pkt *p, uint32_t moff,
		  const char *what)
{
	struct ack_expect e;

	memcpy(mem0 + moff, p->payload, p->payload_len);
	q->psn = (q->psn + 1) & MR_PSN_MASK;
	q->msn++;
	e = ack_of(q, q->psn, q->msn, p->ts);
	ack_expect(t, q, what, &e);
}

/* ------------------------------------------------------------------ */
/* MR-MAL-4, MR-PLACE-9: payloads the QP's PMTU does not allow        */

static void c_payload_over_pmtu(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	uint8_t pl[PMTU + 76], b[RX_BUF];
	uint64_t c0 = counter_now("payload");

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	/* One packet, FIRST|LAST, 1100 bytes on a 1024-byte PMTU QP. */
	wr_fill(&p, &q, 2000, pl, sizeof(pl));
	tx_bytes(b, pkt_build(&p, b, sizeof(b)));
	refused(t, &q, "a WRITE with 1100 bytes on a 1024-byte PMTU", "payload", c0, "MR-MAL-4");
	write_ok(t, &q, 2000, PMTU, "ACK of a PMTU-sized WRITE at the same PSN");
	mem_check(t, "after the WRITE", "MR-MAL-1");
	tqp_close(&q);
}

static void c_pmtu_cut(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	uint8_t pl[PMTU], b[RX_BUF];
	uint64_t c0 = counter_now("pmtu");

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	/* FIRST of a 2048-byte WRITE with 300 bytes: no power of two. */
	wr_fill(&p, &q, 4000, pl, 300);
	p.flags = MR_F_FIRST | MR_F_ACKREQ;
	p.dxh.msg_len = 2048;
	tx_bytes(b, pkt_build(&p, b, sizeof(b)));
	refused(t, &q, "a non-LAST packet of 300 bytes", "pmtu", c0, "MR-PLACE-9");
	/* The LAST packet of a 1100-byte WRITE at offset 100: its first
	 * PSN is q.psn, but 100 is no multiple of 256. */
	c0 = counter_now("pmtu");
	wr_fill(&p, &q, 4000, pl, 1000);
	p.flags = MR_F_LAST | MR_F_ACKREQ;
	p.dxh.offset = 100;
	p.dxh.msg_len = 1100;
	tx_bytes(b, pkt_build(&p, b, sizeof(b)));
	refused(t, &q, "a LAST packet at offset 100", "pmtu", c0, "MR-PLACE-9");
	write_ok(t, &q, 4000, 512, "ACK of a well-cut WRITE at the same PSN");
	mem_check(t, "after the WRITE", "MR-MAL-1");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* MR-PLACE-14: a packet that disagrees with its message's record      */

static void c_msg_mismatch(struct tctx *t)
{
	struct tqp q;
	uint8_t pl[2 * PMTU], b[RX_BUF];
	struct mr_pkt p;
	static const uint32_t bit1[] = { 1 };
	struct ack_expect e;
	uint32_t ts;
	uint64_t c0 = counter_now("msg_mismatch");

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	/* The second packet first: it sets the record (msg_len 2048). */
	ts = tx_write(&q, MR_OP_WRITE, q.psn + 1, 0, 30000, sizeof(pl), 1, pl, MR_F_ACKREQ,
		      DUT.rkey0);
	memcpy(mem0 + 30000 + PMTU, pl + PMTU, PMTU);
	e = ack_of(&q, q.psn, 0, ts);
	e.sacked = bit1;
	e.n_sacked = 1;
	ack_expect(t, &q, "ACK of the second packet", &e);
	/* The first packet claiming msg_len 3072: not the record's. */
	req_fill(&p, &q, MR_OP_WRITE, q.psn, MR_F_FIRST | MR_F_ACKREQ);
	p.dxh.msg_len = 3 * PMTU;
	p.rxh.va = DUT.addr0 + 30000;
	p.rxh.rkey = DUT.rkey0;
	p.payload = pl;
	p.payload_len = PMTU;
	tx_bytes(b, pkt_build(&p, b, sizeof(b)));
	refused(t, &q, "a first packet with another msg_len", "msg_mismatch", c0, "MR-PLACE-14");
	/* The right first packet completes the message. */
	ts = tx_write(&q, MR_OP_WRITE, q.psn, 0, 30000, sizeof(pl), 0, pl, MR_F_ACKREQ,
		      DUT.rkey0);
	memcpy(mem0 + 30000, pl, PMTU);
	e = ack_of(&q, q.psn + 2, 1, ts);
	ack_expect(t, &q, "ACK of the consistent first packet", &e);
	mem_check(t, "after the whole WRITE", "MR-PLACE-14");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* MR-MAL-5: no QP to take it                                          */

/* A second DUT QP @r, created and left in RESET, addressed as @q's peer
 * would; false: reported. */
static bool qp_unconnected(struct tctx *t, const struct tqp *q, struct tqp *r)
{
	const char *a;
	uint64_t v;

	memset(r, 0, sizeof(*r));
	r->id = q->id == MRC_MAX_QP - 9 ? MRC_MAX_QP - 10 : MRC_MAX_QP - 9;
	a = agent("QP %d 0 RC 16 16", r->id);
	if (!a || !kv_u64(a, "qpn", &v)) {
		fail_at(t, __LINE__, "agent: QP: %s", agent_err);
		return false;
	}
	r->dut_qpn = (uint32_t)v;
	r->my_qpn = q->my_qpn;
	r->path = q->path;
	r->psn = q->psn;
	return true;
}

static void c_qp_reset_dropped(struct tctx *t)
{
	struct tqp q, r;
	struct mr_pkt p;
	uint8_t pl[256], b[RX_BUF];
	uint64_t c0;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	if (!qp_unconnected(t, &q, &r)) {
		tqp_close(&q);
		return;
	}
	c0 = counter_now("qp");
	wr_fill(&p, &r, 1000, pl, sizeof(pl));
	tx_bytes(b, pkt_build(&p, b, sizeof(b)));
	refused(t, &q, "a WRITE to a QP in RESET", "qp", c0, "MR-MAL-5, MR-VERBS-26");
	tqp_close(&r);
	/* QPN 0 does not exist (MR-UD-6). */
	c0 = counter_now("qp");
	r.dut_qpn = 0;
	wr_fill(&p, &r, 1000, pl, sizeof(pl));
	tx_bytes(b, pkt_build(&p, b, sizeof(b)));
	refused(t, &q, "a WRITE to QPN 0", "qp", c0, "MR-MAL-5");
	write_ok(t, &q, 1000, sizeof(pl), "ACK of the same WRITE to the connected QP");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* MR-SEC-4: not from the connected peer                               */

static void c_wrong_src_qpn(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	uint8_t pl[256], b[RX_BUF];
	uint64_t c0 = counter_now("src");

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	wr_fill(&p, &q, 1500, pl, sizeof(pl));
	p.sqpn = q.my_qpn ^ 0x10;	/* not the QP's dest_qp_num */
	tx_bytes(b, pkt_build(&p, b, sizeof(b)));
	refused(t, &q, "a WRITE from another source QPN", "src", c0, "MR-SEC-4, MR-SEC-11");
	write_ok(t, &q, 1500, sizeof(pl), "ACK of the same WRITE from the peer's QPN");
	tqp_close(&q);
}

static void c_spoofed_src_ip(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	uint8_t pl[256], b[RX_BUF];
	uint32_t n, me = ntohl(DUT.me), src;
	uint64_t c0 = counter_now("src");

	/* Another host of the tester's subnet (as far as a /24 goes). */
	src = htonl((me & ~0xFFu) | ((me & 0xFFu) ^ 0x40u));
	if (src == DUT.ip)
		src = htonl((me & ~0xFFu) | ((me & 0xFFu) ^ 0x41u));
	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	wr_fill(&p, &q, 1800, pl, sizeof(pl));
	n = pkt_build(&p, b, sizeof(b));
	if (!tx_bytes_from(b, n, src)) {
		not_run(t, "the tester may not open a raw IP socket (run it as root)");
		tqp_close(&q);
		return;
	}
	refused(t, &q, "a WRITE from another IP source address", "src", c0, "MR-SEC-4");
	write_ok(t, &q, 1800, sizeof(pl), "ACK of the same WRITE from the peer's address");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* MR-SEC-1, MR-SEC-10, MR-MAL-3: keys and access rights               */

/* A WRITE of @q's next PSN under @rkey at @va must be refused with NACK
 * REMOTE_ACCESS, nothing placed, the QP in Error, the key violation
 * counted, and not counted as malformed (MR-MAL-3). */
static void key_refused(struct tctx *t, uint64_t va, uint32_t rkey, const char *what,
			const char *ids)
{
	struct tqp q;
	struct mr_pkt p;
	uint8_t pl[128], b[RX_BUF];
	struct ack_expect e;
	uint64_t k0 = counter_now("rkey"), m0 = counter_now("malformed"), m1;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	wr_fill(&p, &q, 0, pl, sizeof(pl));
	p.rxh.va = va;
	p.rxh.rkey = rkey;
	tx_bytes(b, pkt_build(&p, b, sizeof(b)));
	e = nack_of(&q, q.psn, 0, p.ts, MR_NACK_REMOTE_ACCESS, q.psn);
	ack_expect(t, &q, what, &e);
	mem_check(t, what, ids);
	expect_state(t, &q, "ERR", "MR-VERBS-24");
	counter_moved(t, "rkey", k0, "MR-SEC-11");
	m1 = counter_now("malformed");
	EXPECT(t, m1 == m0, "counter 'malformed' moved (%llu -> %llu) for a bad key (MR-MAL-3)",
	       (unsigned long long)m0, (unsigned long long)m1);
	tqp_close(&q);
}

static void c_rkey_low_bit(struct tctx *t)
{
	/* The lowest bit flipped: with any layout of index and key bits,
	 * no key of MR 0 and none that grants remote write (MR 1 does not). */
	key_refused(t, DUT.addr0, DUT.rkey0 ^ 1, "NACK REMOTE_ACCESS for the R_Key with bit 0 flipped",
		    "MR-SEC-1");
	if (!t->nfail)
		key_refused(t, DUT.addr0, DUT.rkey0 ^ 0x80,
			    "NACK REMOTE_ACCESS for the R_Key with bit 7 flipped", "MR-SEC-1");
	/* The highest bit: an index, or key bits above one; checked too. */
	if (!t->nfail)
		key_refused(t, DUT.addr0, DUT.rkey0 ^ 0x80000000u,
			    "NACK REMOTE_ACCESS for the R_Key with bit 31 flipped", "MR-SEC-1");
}

static void c_local_mr_no_remote(struct tctx *t)
{
	/* MR 1 is registered with local write only: its key, its memory. */
	key_refused(t, DUT.addr1, DUT.lkey1,
		    "NACK REMOTE_ACCESS for a WRITE into a region without remote write",
		    "MR-SEC-10, MR-MAL-3");
}

/*
 * MR-SEC-14: ibv_rereg_mr that moves an MR to new memory gives it new
 * keys. MR 30 (4 KiB, remote access) is moved by the agent's REREG: the
 * R_Key it had is refused at the new memory and at the old, the new
 * memory keeps its pattern, and the new R_Key places a WRITE there.
 */
#define REREG_MR	30
#define REREG_LEN	4096u

static void c_rereg_new_keys(struct tctx *t)
{
	uint64_t rk0, va0, rk1, va1, seed = seed_new(), h;
	static uint8_t want[REREG_LEN];
	uint8_t pl[256], got[256];
	struct ack_expect e;
	struct mr_pkt p;
	struct tqp q;
	const char *a;

	a = agent("MR %d %u 0x%x 0x%" PRIx64, REREG_MR, REREG_LEN, ACC_ALL, seed_new());
	REQUIRE(t, a && kv_u64(a, "rkey", &rk0) && kv_u64(a, "addr", &va0),
		"agent: MR %d: %s", REREG_MR, agent_err);
	a = agent("REREG %d 0x%" PRIx64, REREG_MR, seed);
	if (!a && strstr(agent_err, strerror(EOPNOTSUPP))) {
		/* MR-SEC-14 binds reregistration where it is offered */
		not_run(t, "the DUT's provider does not offer ibv_rereg_mr");
		return;
	}
	REQUIRE(t, a && kv_u64(a, "rkey", &rk1) && kv_u64(a, "addr", &va1),
		"agent: REREG %d (ibv_rereg_mr to new memory): %s", REREG_MR, agent_err);
	REQUIRE(t, rk1 != rk0,
		"ibv_rereg_mr to new memory kept the R_Key 0x%" PRIx64 " (MR-SEC-14)", rk0);
	key_refused(t, va1, (uint32_t)rk0,
		    "NACK REMOTE_ACCESS for the R_Key of before ibv_rereg_mr, at the new memory",
		    "MR-SEC-14");
	key_refused(t, va0, (uint32_t)rk0,
		    "NACK REMOTE_ACCESS for the R_Key of before ibv_rereg_mr, at the old memory",
		    "MR-SEC-14");
	mrc_pat_fill(want, seed, 0, REREG_LEN);
	REQUIRE(t, mr_hash(REREG_MR, 0, REREG_LEN, &h), "agent: HASH %d: %s", REREG_MR,
		agent_err);
	EXPECT(t, h == mrc_hash(want, REREG_LEN),
	       "the new memory of MR %d changed after WRITEs under its old R_Key (MR-SEC-14)",
	       REREG_MR);
	/* the new key works */
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	wr_fill(&p, &q, 0, pl, sizeof(pl));
	p.rxh.va = va1 + 1024;
	p.rxh.rkey = (uint32_t)rk1;
	tx_pkt(&p);
	e = ack_of(&q, (q.psn + 1) & MR_PSN_MASK, q.msn + 1, p.ts);
	ack_expect(t, &q, "ACK of a WRITE under the R_Key ibv_rereg_mr gave", &e);
	EXPECT(t, mr_read(REREG_MR, 1024, sizeof(got), got) && !memcmp(got, pl, sizeof(got)),
	       "a WRITE under the new R_Key was ACKed but MR %d does not hold it (MR-SEC-14)",
	       REREG_MR);
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* MR-SEC-7: a range that wraps 2^64                                   */

/* Replace the first big-endian copy of @from in @b by @to. */
static bool be64_swap(uint8_t *b, uint32_t n, uint64_t from, uint64_t to)
{
	uint8_t f[8], x[8];

	for (int i = 0; i < 8; i++) {
		f[i] = (uint8_t)(from >> (56 - 8 * i));
		x[i] = (uint8_t)(to >> (56 - 8 * i));
	}
	for (uint32_t i = 0; i + 8 <= n; i++)
		if (!memcmp(b + i, f, 8)) {
			memcpy(b + i, x, 8);
			return true;
		}
	return false;
}

static void c_range_wraps(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	struct rxpkt r;
	uint8_t pl[512], b[RX_BUF];
	uint32_t n;
	const uint64_t wrap = 0xFFFFFFFFFFFFFF00ull;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	/* VA 2^64 - 256, 512 bytes: the codec refuses to build it, so the
	 * VA is patched into a valid packet and the ICRC redone. */
	wr_fill(&p, &q, 0, pl, sizeof(pl));
	n = pkt_build(&p, b, sizeof(b));
	REQUIRE(t, be64_swap(b, n, p.rxh.va, wrap), "internal: RXH.va not found");
	mr_icrc_put(b, n - MR_ICRC_LEN);
	tx_bytes(b, n);
	if (rx_take(q.my_qpn, 0, WAIT_SILENT, &r))
		EXPECT(t, r.p.opcode == MR_OP_NACK && (r.p.nkh.reason == MR_NACK_REMOTE_ACCESS ||
						      r.p.nkh.reason == MR_NACK_INVALID_REQ),
		       "a WRITE whose range wraps 2^64 got opcode %#x (reason %u), want no answer or a NACK (MR-SEC-7)",
		       r.p.opcode, r.p.opcode == MR_OP_NACK ? r.p.nkh.reason : 0);
	mem_check(t, "a WRITE whose range wraps 2^64", "MR-SEC-7");
	tqp_close(&q);
	/* The same for a READ: no READ_RESP. */
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	req_fill(&p, &q, MR_OP_READ_REQ, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msg_len = 512;
	p.rxh.va = DUT.addr0;
	p.rxh.rkey = DUT.rkey0;
	n = pkt_build(&p, b, sizeof(b));
	REQUIRE(t, be64_swap(b, n, p.rxh.va, wrap), "internal: RXH.va not found");
	mr_icrc_put(b, n - MR_ICRC_LEN);
	tx_bytes(b, n);
	EXPECT(t, !rx_take(q.my_qpn, MR_OP_READ_RESP, WAIT_SILENT, &r),
	       "a READ whose range wraps 2^64 was answered (MR-SEC-7)");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* MR-TRIM-2, MR-TRIM-5: the trimmed DSCP, the UDP checksum            */

static void c_trim_dscp(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	struct ack_expect e;
	uint8_t pl[400], b[RX_BUF];
	uint32_t n;
	uint64_t c0;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	/* Whole (ICRC good) with the trimmed DSCP: received as any other. */
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	wr_fill(&p, &q, 6000, pl, sizeof(pl));
	n = pkt_build(&p, b, sizeof(b));
	tx_bytes_ex(b, n, TRIM_DSCP << 2, 0);
	taken(t, &q, &p, 6000, "ACK of a whole WRITE with the trimmed DSCP");
	mem_check(t, "a whole WRITE with the trimmed DSCP", "MR-TRIM-2");
	/* Unmarked, cut to 100 payload bytes: not trimmed, but an ICRC or
	 * malformed drop without an answer. */
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	wr_fill(&p, &q, 6000, pl, sizeof(pl));
	n = pkt_build(&p, b, sizeof(b));
	c0 = counter_now("icrc") + counter_now("malformed");
	tx_bytes(b, n - 300);
	expect_silence(t, &q, "a short packet without a trim mark", "MR-TRIM-2");
	mem_check(t, "a short unmarked packet", "MR-TRIM-2");
	EXPECT(t, counter_now("icrc") + counter_now("malformed") > c0,
	       "a short unmarked packet moved neither 'icrc' nor 'malformed' (MR-TRIM-2)");
	/* Whole length, ICRC wrong, trimmed DSCP: taken as trimmed. */
	b[n - 1] ^= 0x5A;
	tx_bytes_ex(b, n, TRIM_DSCP << 2, 0);
	e = nack_of(&q, q.psn, q.msn, p.ts, MR_NACK_TRIMMED, q.psn);
	ack_expect(t, &q, "NACK TRIMMED for the trimmed DSCP with a bad ICRC", &e);
	mem_check(t, "a packet taken as trimmed", "MR-TRIM-2, MR-TRIM-3");
	write_ok(t, &q, 6000, sizeof(pl), "ACK of the WRITE resent whole");
	tqp_close(&q);
}

static void c_udp_csum(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	uint8_t pl[300], b[RX_BUF];
	uint32_t n;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	wr_fill(&p, &q, 9000, pl, sizeof(pl));
	n = pkt_build(&p, b, sizeof(b));
	/* A wrong non-zero UDP checksum: the host drops it. */
	if (!tx_bytes_udp_csum(b, n, true)) {
		not_run(t, "the tester may not open a raw socket (run it as root)");
		tqp_close(&q);
		return;
	}
	expect_silence(t, &q, "a wrong UDP checksum", "MR-TRIM-5");
	mem_check(t, "a datagram with a wrong UDP checksum", "MR-TRIM-5");
	/* The same with checksum zero: accepted. */
	REQUIRE(t, tx_bytes_udp_csum(b, n, false), "raw socket send failed");
	taken(t, &q, &p, 9000, "ACK of a WRITE with UDP checksum zero");
	mem_check(t, "a WRITE with UDP checksum zero", "MR-TRIM-5");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* MR-ENC-7, MR-MAL-2 step 1: IP fragments                             */

static void c_ip_fragments(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	uint8_t pl[600], b[RX_BUF];
	uint32_t n;
	uint64_t c0 = counter_now("malformed");

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	wr_fill(&p, &q, 2400, pl, sizeof(pl));
	n = pkt_build(&p, b, sizeof(b));
	/* A WRITE the QP would take, as two fragments the host reassembles. */
	if (!tx_bytes_frag(b, n)) {
		not_run(t, "the tester may not open a raw IP socket (run it as root)");
		tqp_close(&q);
		return;
	}
	refused(t, &q, "a WRITE in two IP fragments", "malformed", c0, "MR-ENC-7, MR-MAL-2");
	/* The same datagram whole: taken. */
	tx_bytes(b, n);
	taken(t, &q, &p, 2400, "ACK of the same WRITE unfragmented");
	mem_check(t, "a WRITE after its fragments", "MR-ENC-7");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* MR-VER-8: not the RoCEv2 or UET port                                */

static void c_not_roce_port(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	uint8_t pl[200], b[RX_BUF];
	uint32_t n;

	EXPECT(t, O.udp_port != 4791 && O.udp_port != 4793,
	       "the DUT's MetaRoCE port is %d (MR-VER-8)", O.udp_port);
	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	wr_fill(&p, &q, 11000, pl, sizeof(pl));
	n = pkt_build(&p, b, sizeof(b));
	tx_bytes_ex(b, n, -1, 4791);
	tx_bytes_ex(b, n, -1, 4793);
	expect_silence(t, &q, "a MetaRoCE packet to UDP 4791 and 4793", "MR-VER-8");
	mem_check(t, "a packet to UDP 4791 or 4793 was placed", "MR-VER-8");
	tx_bytes(b, n);
	taken(t, &q, &p, 11000, "ACK of the same packet to the MetaRoCE port");
	mem_check(t, "after the WRITE", "MR-VER-8");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* MR-MAL-9: one counter per reason                                    */

static void c_counters_per_reason(struct tctx *t)
{
	static const char *const names[] = {
		"trunc", "version", "rsvd", "opcode", "hdr_len", "flags", "payload",
		"range", "align", "field", "icrc", "qp", "src", "qkey", "pmtu",
		"msg_mismatch", "trimmed", "dup", "psn", "stale", "dup_resp",
		"atomic_miss", "replay", "ack_age", "error_point", "rate_limited",
		"hello_conflict",
	};
	struct tqp q;
	struct mr_pkt p;
	uint8_t pl[64], b[RX_BUF];
	uint64_t v, q0;

	for (size_t i = 0; i < MR_ARRAY_SIZE(names); i++)
		EXPECT(t, counter(names[i], &v), "no counter '%s' (MR-MAL-9)", names[i]);
	/* A packet from another source QPN moves "src", not "qp". */
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	q0 = counter_now("qp");
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	req_fill(&p, &q, MR_OP_WRITE, q.psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p.dxh.msg_len = sizeof(pl);
	p.rxh.va = DUT.addr0;
	p.rxh.rkey = DUT.rkey0;
	p.payload = pl;
	p.payload_len = sizeof(pl);
	p.sqpn ^= 0x10;
	tx_bytes(b, pkt_build(&p, b, sizeof(b)));
	net_pump(WAIT_SILENT);
	EXPECT(t, counter_now("qp") == q0,
	       "a packet from a wrong source QPN moved counter 'qp' too: not one counter per reason (MR-MAL-9)");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* MR-VERBS-26, MR-SEC-13: what each QP state takes                    */

/* A HELLO to @q (from its tester QPN): no answer, counted "qp". */
static void hello_dropped(struct tctx *t, const struct tqp *q, const char *what)
{
	struct mr_pkt p;
	uint64_t c0 = counter_now("qp");

	hello_fill(&p, q->dut_qpn, q->my_qpn, false, MR_CAP_CORE);
	tx_pkt(&p);
	expect_silence(t, q, what, "MR-SEC-13");
	counter_moved(t, "qp", c0, "MR-SEC-13");
}

static void c_qp_states(struct tctx *t)
{
	struct tqp q, r;
	struct mr_pkt p;
	struct rxpkt x;
	uint8_t pl[128], b[RX_BUF];
	uint32_t n;
	uint64_t c0;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	/* A second QP in RESET, then INIT: no request, no HELLO taken. */
	if (!qp_unconnected(t, &q, &r)) {
		tqp_close(&q);
		return;
	}
	hello_dropped(t, &r, "a HELLO to a QP in RESET");
	if (!agent("MODQP %d INIT", r.id)) {
		fail_at(t, __LINE__, "agent: MODQP INIT: %s", agent_err);
		tqp_close(&r);
		tqp_close(&q);
		return;
	}
	c0 = counter_now("qp");
	wr_fill(&p, &r, 3000, pl, sizeof(pl));
	tx_bytes(b, pkt_build(&p, b, sizeof(b)));
	refused(t, &q, "a WRITE to a QP in INIT", "qp", c0, "MR-MAL-5, MR-VERBS-26");
	hello_dropped(t, &r, "a HELLO to a QP in INIT");
	tqp_close(&r);
	/* The connected QP answers a HELLO with one no larger (MR-SEC-13). */
	hello_fill(&p, q.dut_qpn, q.my_qpn, false, MR_CAP_CORE);
	n = pkt_build(&p, b, sizeof(b));
	tx_bytes(b, n);
	if (rx_take(q.my_qpn, MR_OP_HELLO, WAIT_RESP, &x))
		EXPECT(t, x.len <= n, "a %u-byte answer to a %u-byte HELLO (MR-SEC-13)", x.len, n);
	else
		fail_at(t, __LINE__, "no answer to a HELLO without SEEN in RTS (MR-VER-12)");
	/* SQD: the responder stays active. */
	REQUIRE(t, agent("MODQP %d SQD", q.id), "agent: MODQP SQD: %s", agent_err);
	write_ok(t, &q, 3000, sizeof(pl), "ACK of a WRITE to a QP in SQD");
	mem_check(t, "a WRITE to a QP in SQD", "MR-VERBS-26");
	/* ERR: nothing placed, nothing acknowledged. */
	REQUIRE(t, agent("MODQP %d ERR", q.id), "agent: MODQP ERR: %s", agent_err);
	net_pump(0.1);
	rx_flush();
	c0 = counter_now("qp");
	wr_fill(&p, &q, 3500, pl, sizeof(pl));
	tx_bytes(b, pkt_build(&p, b, sizeof(b)));
	EXPECT(t, !rx_take(q.my_qpn, MR_OP_ACK, WAIT_SILENT, &x),
	       "a QP in Error acknowledged a WRITE (MR-VERBS-26, MR-VERBS-25)");
	mem_check(t, "a WRITE to a QP in Error", "MR-VERBS-26");
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* MR-SEC-8, MR-TRIM-4: answers to what cannot be authenticated        */

/*
 * How many packets of @op for @q arrive within @tmo s; @span: the seconds
 * between the first and the last by the DUT's own transmit timestamps
 * (MBH.ts, a microsecond clock: MR-REL-12, MR-SEC-6), which the network
 * and the tester's scheduling neither stretch nor compress.
 */
static unsigned int count_answers(const struct tqp *q, uint8_t op, double tmo, uint32_t *maxlen,
				  double *span)
{
	struct rxpkt r;
	unsigned int n = 0;
	uint32_t ts0 = 0;

	*maxlen = 0;
	*span = 0;
	while (rx_take(q->my_qpn, op, tmo, &r)) {
		if (!n++)
			ts0 = r.p.ts;
		*span = (uint32_t)(r.p.ts - ts0) * 1e-6;
		if (r.len > *maxlen)
			*maxlen = r.len;
	}
	return n;
}

/*
 * @n answers came for @sent packets sent back to back, the first to the
 * last sent @span s apart by the DUT's clock. The reference limit (MR-SEC-8, MR-TRIM-4) is a
 * burst of 16 then one per 100 us: fewer answers than packets must be
 * counted rate_limited; all of them answered fails only when they came
 * faster than that limit lets through - a DUT slower than one packet per
 * 100 us never meets it, and the case is then not run.
 */
static void rate_check(struct tctx *t, unsigned int n, unsigned int sent, double span,
		       uint64_t c0, const char *ids)
{
	if (n < sent) {
		counter_moved(t, "rate_limited", c0, ids);
		return;
	}
	if (span < 0.8 * (sent - 16) * 100e-6)
		fail_at(t, __LINE__, "all %u packets answered, sent within %.1f ms: more than a burst of 16 and one per 100 us (%s)",
			sent, span * 1e3, ids);
	else
		not_run(t, "the DUT answered one packet per 100 us or slower: the rate limit cannot show");
}

static void c_dup_rate_limit(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	uint8_t pl[256], b[RX_BUF];
	uint32_t n, maxlen;
	double span;
	unsigned int acks;
	const unsigned int ndup = 300;
	uint64_t c0;

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	memcpy(mem0 + 5000, pl, sizeof(pl));
	wr_fill(&p, &q, 5000, pl, sizeof(pl));
	n = pkt_build(&p, b, sizeof(b));
	tx_bytes(b, n);
	REQUIRE(t, count_answers(&q, MR_OP_ACK, WAIT_SILENT, &maxlen, &span) >= 1,
		"no ACK of the WRITE");
	/* 300 copies back to back: at most a burst and one per interval. */
	c0 = counter_now("rate_limited");
	for (unsigned int i = 0; i < ndup; i++)
		tx_bytes(b, n);
	acks = count_answers(&q, MR_OP_ACK, WAIT_SILENT, &maxlen, &span);
	diag("%u ACKs for %u duplicates sent within %.1f ms", acks, ndup, span * 1e3);
	EXPECT(t, acks >= 1, "no ACK for %u duplicates (MR-REL-7)", ndup);
	EXPECT(t, maxlen <= n, "a %u-byte ACK for a %u-byte request (MR-SEC-8)", maxlen, n);
	mem_check(t, "after the duplicates", "MR-SEC-8");
	rate_check(t, acks, ndup, span, c0, "MR-SEC-8");
	tqp_close(&q);
}

static void c_trim_rate_limit(struct tctx *t)
{
	struct tqp q;
	struct mr_pkt p;
	struct rxpkt r;
	uint8_t pl[64], b[RX_BUF];
	uint32_t n, maxlen;
	double span;
	const unsigned int nt = 100;
	unsigned int nacks;
	bool done = false;
	uint64_t c0 = counter_now("rate_limited");

	if (!mem_reset(t) || !tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(pl, seed_new(), 0, sizeof(pl));
	/* 100 one-packet WRITEs, all trimmed (MR-ICRC-5), back to back. */
	for (unsigned int i = 0; i < nt; i++) {
		req_fill(&p, &q, MR_OP_WRITE, q.psn + i, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ | MR_F_TRIM);
		p.dxh.msn = i;
		p.dxh.msg_len = sizeof(pl);
		p.rxh.va = DUT.addr0 + 16000 + 64 * i;
		p.rxh.rkey = DUT.rkey0;
		n = pkt_build(&p, b, sizeof(b));
		memcpy(b + n - MR_ICRC_LEN, "\xde\xad\xbe\xef", MR_ICRC_LEN);
		tx_bytes(b, n);
	}
	nacks = count_answers(&q, MR_OP_NACK, WAIT_SILENT, &maxlen, &span);
	diag("%u NACK TRIMMED for %u trimmed requests sent within %.1f ms", nacks, nt, span * 1e3);
	EXPECT(t, nacks >= 1, "no NACK TRIMMED for %u trimmed requests (MR-REL-16)", nt);
	rate_check(t, nacks, nt, span, c0, "MR-TRIM-4");
	mem_check(t, "trimmed requests placed data", "MR-TRIM-3");
	/* Every PSN stayed new: the whole packets are all taken. */
	for (unsigned int i = 0; i < nt; i++) {
		req_fill(&p, &q, MR_OP_WRITE, q.psn + i,
			 MR_F_FIRST | MR_F_LAST | (i == nt - 1 ? MR_F_ACKREQ : 0) | MR_F_RETX);
		p.dxh.msn = i;
		p.dxh.msg_len = sizeof(pl);
		p.rxh.va = DUT.addr0 + 16000 + 64 * i;
		p.rxh.rkey = DUT.rkey0;
		p.payload = pl;
		p.payload_len = sizeof(pl);
		tx_pkt(&p);
		memcpy(mem0 + 16000 + 64 * i, pl, sizeof(pl));
	}
	while (!done && rx_take(q.my_qpn, MR_OP_ACK, WAIT_RESP, &r))
		done = r.p.akh.cum_psn == ((q.psn + nt) & MR_PSN_MASK);
	EXPECT(t, done, "the whole packets of the unanswered trimmed PSNs were not all taken (MR-TRIM-4)");
	mem_check(t, "after the whole packets", "MR-TRIM-4");
	tqp_close(&q);
}

const struct tcase cases_mal[] = {
	{ "MAL", "payload_over_pmtu_dropped", "MR-MAL-4", c_payload_over_pmtu, NULL },
	{ "PLACE", "pmtu_cut_dropped", "MR-PLACE-9", c_pmtu_cut, NULL },
	{ "PLACE", "msg_mismatch_dropped", "MR-PLACE-14", c_msg_mismatch, NULL },
	{ "MAL", "qp_reset_or_zero_dropped", "MR-MAL-5, MR-VERBS-26", c_qp_reset_dropped, NULL },
	{ "SEC", "wrong_src_qpn_dropped", "MR-SEC-4", c_wrong_src_qpn, NULL },
	{ "SEC", "spoofed_src_ip_dropped", "MR-SEC-4", c_spoofed_src_ip, NULL },
	{ "SEC", "rkey_key_bits_checked", "MR-SEC-1, MR-SEC-11, MR-MAL-3", c_rkey_low_bit, NULL },
	{ "SEC", "local_only_mr_refused", "MR-SEC-10, MR-SEC-11, MR-MAL-3", c_local_mr_no_remote,
	  NULL },
	{ "SEC", "rereg_new_keys", "MR-SEC-14, MR-SEC-10", c_rereg_new_keys, NULL },
	{ "SEC", "range_wrap_refused", "MR-SEC-7", c_range_wraps, NULL },
	{ "TRIM", "trim_dscp_marks", "MR-TRIM-2", c_trim_dscp, NULL },
	{ "TRIM", "udp_checksum_zero_and_wrong", "MR-TRIM-5", c_udp_csum, NULL },
	{ "ENC", "ip_fragments_dropped", "MR-ENC-7, MR-MAL-2", c_ip_fragments, NULL },
	{ "VER", "not_roce_or_uet_port", "MR-VER-8", c_not_roce_port, NULL },
	{ "VERBS", "qp_states_rx", "MR-VERBS-26, MR-MAL-5, MR-SEC-13", c_qp_states, NULL },
	{ "SEC", "dup_answers_rate_limited", "MR-SEC-8", c_dup_rate_limit, NULL },
	{ "TRIM", "trimmed_nacks_rate_limited", "MR-TRIM-4", c_trim_rate_limit, NULL },
	{ "MAL", "counters_per_reason", "MR-MAL-9", c_counters_per_reason, NULL },
};
const unsigned int n_cases_mal = MR_ARRAY_SIZE(cases_mal);
