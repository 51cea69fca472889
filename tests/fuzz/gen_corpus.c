// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Seed corpus generator for the fuzzers, built from the real encoder.
 * Usage: gen_corpus OUTDIR  (writes OUTDIR/fuzz_decode/, OUTDIR/fuzz_rx/
 * and OUTDIR/fuzz_req/; the directories must exist). Deterministic: same
 * seeds every run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

#define MTU 256

static const char *outdir;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void write_file(const char *sub, const char *name, const u8 *b,
		       size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", outdir, sub, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n || fclose(f))
		die(path);
}

static u8 payload[4096];

/* Encode @p (payload from the pattern) into @b; abort if invalid. */
static int enc(struct mr_pkt *p, u8 *b, u32 cap)
{
	int len;

	p->payload = p->payload_len ? payload : NULL;
	len = mr_pkt_encode(p, b, cap);
	if (len < 0) {
		fprintf(stderr, "encode op 0x%02x: %s\n", p->opcode,
			mr_err_name(len));
		exit(1);
	}
	return len;
}

static void base(struct mr_pkt *p, u8 op, u32 psn)
{
	memset(p, 0, sizeof(*p));
	p->opcode = op;
	p->path = 3;
	p->dqpn = 0x000101;
	p->sqpn = 0x000202;
	p->psn = psn & MR_PSN_MASK;
	p->ts = 0x1000 + psn;
	p->flags = MR_F_FIRST | MR_F_LAST;
}

/* Packet @idx of a multi-packet message of @op. */
static void data_pkt(struct mr_pkt *p, u8 op, u32 msn, u32 len, u32 idx,
		     u32 psn)
{
	u32 off = idx * MTU, plen = len - off < MTU ? len - off : MTU;

	base(p, op, psn);
	p->dxh.msn = msn;
	p->dxh.offset = off;
	p->dxh.msg_len = len;
	p->payload_len = plen;
	p->flags = (off == 0 ? MR_F_FIRST : 0) |
		   (off + plen == len ? MR_F_LAST : 0);
	if (op == MR_OP_WRITE || op == MR_OP_WRITE_IMM) {
		p->rxh.va = 0x10000;
		p->rxh.rkey = 0x77;
	}
	if (op == MR_OP_SEND || op == MR_OP_SEND_IMM || op == MR_OP_WRITE_IMM)
		p->dxh.ssn = msn;
	if (op == MR_OP_SEND_IMM || op == MR_OP_WRITE_IMM)
		p->imm = 0xC0DE0000 | msn;
}

static void read_req(struct mr_pkt *p, u32 msn, u32 psn)
{
	base(p, MR_OP_READ_REQ, psn);
	p->dxh.msn = msn;
	p->dxh.msg_len = 1000;
	p->rxh.va = 0x20000;
	p->rxh.rkey = 0x88;
}

static void atomic(struct mr_pkt *p, u32 msn, u32 psn)
{
	base(p, MR_OP_ATOMIC_FA, psn);
	p->dxh.msn = msn;
	p->dxh.msg_len = MR_ATOMIC_LEN;
	p->axh.va = 0x30008;
	p->axh.rkey = 0x99;
	p->axh.swap_add = 1;
}

static void gen_decode(void)
{
	static const char *const names[] = {
		"send_mid", "write_imm", "read_req", "atomic_cs",
		"ud_send_imm", "ack", "nack_rnr", "read_resp",
		"atomic_resp", "probe", "hello", "uc_write_imm",
	};
	u8 b[2048];
	struct mr_pkt p;
	unsigned int i;

	for (i = 0; i < MR_ARRAY_SIZE(names); i++) {
		switch (i) {
		case 0:
			data_pkt(&p, MR_OP_SEND, 5, 3 * MTU, 1, 100);
			break;
		case 1:
			data_pkt(&p, MR_OP_WRITE_IMM, 6, 40, 0, 101);
			break;
		case 2:
			read_req(&p, 7, 102);
			break;
		case 3:
			atomic(&p, 8, 103);
			p.opcode = MR_OP_ATOMIC_CS;
			p.axh.compare = 5;
			break;
		case 4:
			base(&p, MR_OP_UD_SEND_IMM, 0);
			p.deth.qkey = 0x11111111;
			p.deth.src_qpn = p.sqpn;
			p.imm = 42;
			p.payload_len = 24;
			break;
		case 5:
		case 6:
			base(&p, i == 5 ? MR_OP_ACK : MR_OP_NACK, 0);
			p.psn = 0;
			p.flags = MR_F_ECE;
			p.akh.cum_psn = 0xFFFFF0;
			p.akh.msn = 9;
			p.akh.credit = MR_CREDIT_UNLIMITED;
			p.akh.sack[0] = 0x6;
			p.akh.sack[3] = 1ULL << 63;
			p.nkh.reason = i == 6 ? MR_NACK_RNR : 0;
			p.nkh.rnr_timer = i == 6 ? 12 : 0;
			p.nkh.nack_psn = i == 6 ? 0xFFFFF0 : 0;
			break;
		case 7:
			data_pkt(&p, MR_OP_READ_RESP, 7, 1000, 3, 102);
			break;
		case 8:
			base(&p, MR_OP_ATOMIC_RESP, 103);
			p.dxh.msn = 8;
			p.dxh.msg_len = MR_ATOMIC_LEN;
			p.atomic_orig = 0x1234;
			break;
		case 9:
			base(&p, MR_OP_PROBE, 0);
			p.flags = 0;
			break;
		case 11:
			/* Revision 1.1 UC (MR-UC-2): no SSN, no ACKREQ. */
			data_pkt(&p, MR_OP_UC_WRITE_IMM, 9, 1500, 1, 104);
			p.rxh.va = 0x10000;
			p.rxh.rkey = 0x77;
			p.imm = 0xC0DE0009;
			p.flags |= MR_F_SE;
			break;
		case 10:
			/* Revision 1.1 connection setup (MR-VER-9). */
			base(&p, MR_OP_HELLO, 0);
			p.flags = 0;
			p.hlh.rev_major = 1;
			p.hlh.rev_minor = 1;
			p.hlh.hflags = MR_HLF_SEEN;
			p.hlh.caps = MR_CAP_CORE | MR_CAP_CC;
			p.hlh.max_read_range = MR_HELLO_READ_RANGE_MIN;
			break;
		}
		write_file("fuzz_decode", names[i], b, enc(&p, b, sizeof(b)));
	}
}

/* fuzz_rx input: 3-byte PSN, 4-byte msn, then [u16 len][packet]... */
static u8 rx[65536];
static size_t rx_len;

static void rx_start(u32 psn, u32 msn)
{
	rx[0] = psn >> 16;
	rx[1] = psn >> 8;
	rx[2] = psn;
	rx[3] = msn >> 24;
	rx[4] = msn >> 16;
	rx[5] = msn >> 8;
	rx[6] = msn;
	rx_len = 7;
}

static void rx_add(struct mr_pkt *p)
{
	int len = enc(p, rx + rx_len + 2, sizeof(rx) - rx_len - 2);

	rx[rx_len] = len >> 8;
	rx[rx_len + 1] = len;
	rx_len += 2 + len;
}

static void gen_rx(void)
{
	struct mr_pkt p;
	u32 psn, i;

	/* 1: in order: two SENDs, a 3-packet WRITE_IMM, a READ. */
	rx_start(1000, 0);
	psn = 1000;
	data_pkt(&p, MR_OP_SEND, 0, 10, 0, psn++);
	rx_add(&p);
	data_pkt(&p, MR_OP_SEND_IMM, 1, 0, 0, psn++);
	rx_add(&p);
	for (i = 0; i < 3; i++) {
		data_pkt(&p, MR_OP_WRITE_IMM, 2, 3 * MTU - 7, i, psn++);
		rx_add(&p);
	}
	read_req(&p, 3, psn++);
	rx_add(&p);
	write_file("fuzz_rx", "inorder", rx, rx_len);

	/* 2: reordered multi-packet messages with duplicates. */
	rx_start(50, 10);
	for (i = 4; i-- > 0;) {
		data_pkt(&p, MR_OP_SEND, 10, 4 * MTU, i, 50 + i);
		rx_add(&p);
		if (i == 2)
			rx_add(&p);
	}
	data_pkt(&p, MR_OP_WRITE, 12, 2 * MTU, 1, 56);
	rx_add(&p);
	data_pkt(&p, MR_OP_WRITE, 11, 2 * MTU, 1, 55);
	rx_add(&p);
	data_pkt(&p, MR_OP_WRITE, 11, 2 * MTU, 0, 54);
	rx_add(&p);
	data_pkt(&p, MR_OP_WRITE, 12, 2 * MTU, 0, 57);
	rx_add(&p);
	write_file("fuzz_rx", "reorder_dups", rx, rx_len);

	/* 3: PSN and msn wrap, READ/ATOMIC, a READ re-request. */
	rx_start(0xFFFFFE, 0xFFFFFFFE);
	atomic(&p, 0xFFFFFFFF, 0xFFFFFF);
	rx_add(&p);
	read_req(&p, 0xFFFFFFFE, 0xFFFFFE);
	rx_add(&p);
	data_pkt(&p, MR_OP_SEND, 0, 2 * MTU, 1, 1);
	rx_add(&p);
	data_pkt(&p, MR_OP_SEND, 0, 2 * MTU, 0, 0);
	p.flags |= MR_F_ACKREQ;
	rx_add(&p);
	read_req(&p, 0xFFFFFFFE, 2);
	rx_add(&p);
	write_file("fuzz_rx", "wrap_read_atomic", rx, rx_len);

	/* 4: beyond the window, an old duplicate, a trimmed packet. */
	rx_start(0, 0);
	data_pkt(&p, MR_OP_SEND, 0, 10, 0, 300);
	rx_add(&p);
	data_pkt(&p, MR_OP_SEND, 0, 2 * MTU, 0, 0);
	rx_add(&p);
	data_pkt(&p, MR_OP_SEND, 0, 2 * MTU, 1, 1);
	p.flags |= MR_F_TRIM;
	p.payload_len = 0;
	rx_add(&p);
	data_pkt(&p, MR_OP_SEND, 0, 2 * MTU, 0, 0);
	rx_add(&p);
	write_file("fuzz_rx", "beyond_trim", rx, rx_len);
}

/*
 * fuzz_req input (see fuzz_req.c): a 40-byte header (initial PSN, retry
 * and RNR budgets, fixed window, max_rd_atomic, verbs timeout, timestamp
 * offset, 16 WR descriptors), then records.
 */
enum { Q_SEND, Q_SEND_IMM, Q_SEND_INV, Q_WRITE, Q_WRITE_IMM, Q_READ,
       Q_ATOMIC_CS, Q_ATOMIC_FA, Q_LOCAL, Q_REFUSED = 10 };
enum { R_ADVANCE, R_FIRE, R_ACK, R_NACK, R_READ_RESP, R_ATOMIC_RESP,
       R_PROBE_REPLY, R_SERVE, R_RAW, R_FAULT };
#define REQ_PSN		1000

static u8 rq[4096];
static size_t rq_len;

struct req_cfg {
	u8 retry_cnt, rnr_retry, rd_code, timeout;	/* timeout 0: never */
	bool cc_fixed;
};

/* Header: @n descriptors (op | len class << 4 | fence 0x80, byte), cycled. */
static void req_start(const struct req_cfg *c, const u8 (*d)[2], int n)
{
	int i;

	rq[0] = REQ_PSN >> 16;
	rq[1] = REQ_PSN >> 8;
	rq[2] = REQ_PSN & 0xff;
	rq[3] = c->retry_cnt | c->rnr_retry << 3 | (c->cc_fixed ? 0x40 : 0);
	rq[4] = c->rd_code | c->timeout << 3;
	rq[5] = rq[6] = rq[7] = 0;	/* timestamp offset 0 */
	for (i = 0; i < 16; i++) {
		rq[8 + 2 * i] = d[i % n][0];
		rq[9 + 2 * i] = d[i % n][1];
	}
	rq_len = 40;
}

static void req_rec(int n, ...)
{
	va_list ap;
	int i;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		rq[rq_len++] = (u8)va_arg(ap, int);
	va_end(ap);
}

/* A raw ACK of every PSN before @cum, echoing the first send at 1 s. */
/* @marked: it arrives with the trimmed DSCP (MR-TRIM-2). */
static void req_raw_ack_dscp(u32 cum, bool bad_icrc, bool marked)
{
	struct mr_pkt p;
	int len;

	base(&p, MR_OP_ACK, 0);
	p.psn = 0;
	p.flags = 0;
	p.akh.cum_psn = cum;
	p.akh.ts_echo = 1000 * 1000;	/* mr_txsb_ts() of the harness's t0 */
	p.akh.credit = MR_CREDIT_UNLIMITED;
	p.akh.pkt_count = 1;
	len = enc(&p, rq + rq_len + 3, sizeof(rq) - rq_len - 3);
	rq[rq_len] = R_RAW;
	rq[rq_len + 1] = (u8)(len >> 8 | (bad_icrc ? 0x80 : 0) |
			      (marked ? 0x40 : 0));
	rq[rq_len + 2] = (u8)len;
	rq_len += 3 + len;
}

static void req_raw_ack(u32 cum, bool bad_icrc)
{
	req_raw_ack_dscp(cum, bad_icrc, false);
}

static void req_write(const char *name)
{
	write_file("fuzz_req", name, rq, rq_len);
}

static void gen_req(void)
{
	/* every RC opcode; lengths 0, <MTU, MTU, multi-packet; a fence */
	static const u8 all[][2] = {
		{ Q_SEND | 1 << 4, 9 }, { Q_SEND_IMM | 0 << 4, 0 },
		{ Q_SEND_INV | 3 << 4, 7 }, { Q_WRITE | 2 << 4, 0 },
		{ Q_WRITE_IMM | 4 << 4, 0x83 }, { Q_READ | 3 << 4, 40 },
		{ Q_ATOMIC_CS, 0 }, { Q_ATOMIC_FA | 0x80, 0 },
		{ Q_READ | 0 << 4, 0 }, { Q_WRITE | 6 << 4, 2 },
		{ Q_READ | 5 << 4, 33 }, { Q_SEND | 0x80 | 1 << 4, 1 },
	};
	static const u8 sends[][2] = {
		{ Q_SEND | 3 << 4, 0 }, { Q_WRITE | 1 << 4, 20 },
	};
	static const u8 read_head[][2] = {
		{ Q_READ | 4 << 4, 4 }, { Q_SEND | 1 << 4, 9 },
		{ Q_WRITE | 3 << 4, 0 }, { Q_SEND | 1 << 4, 9 },
	};
	static const u8 atomics[][2] = {
		{ Q_ATOMIC_FA, 0 }, { Q_ATOMIC_CS, 0 }, { Q_SEND, 0 },
	};
	static const u8 big_read[][2] = {
		{ Q_READ | 7 << 4, 200 }, { Q_SEND | 1 << 4, 3 },
	};
	static const u8 long_sends[][2] = {
		{ Q_SEND | 6 << 4, 31 }, { Q_WRITE | 6 << 4, 31 },
	};
	static const u8 local[][2] = {
		{ Q_LOCAL, 0 }, { Q_SEND | 1 << 4, 9 }, { Q_LOCAL, 2 },
		{ Q_WRITE | 3 << 4, 1 },
	};
	static const u8 refused[][2] = {
		{ Q_SEND | 1 << 4, 9 }, { Q_WRITE | 1 << 4, 9 },
		{ Q_REFUSED, 6 }, { Q_SEND | 1 << 4, 9 },
	};
	struct req_cfg never = { 7, 7, 7, 0, true };
	struct req_cfg dctcp = { 7, 7, 7, 0, false };
	struct req_cfg rnr0 = { 7, 0, 7, 0, true };
	int i;

	/* clean transfer: an honest responder answers and ACKs each turn */
	req_start(&never, all, MR_ARRAY_SIZE(all));
	for (i = 0; i < 6; i++)
		req_rec(4, R_SERVE, 0, 8, R_FIRE);
	req_write("clean_all_ops");

	/* the same under the kernel's default congestion control */
	req_start(&dctcp, all, MR_ARRAY_SIZE(all));
	for (i = 0; i < 6; i++)
		req_rec(6, R_SERVE, 0, 8, R_ADVANCE, 4, 9);
	req_write("clean_dctcp");

	/* a READ longer than one READ range: the next range follows */
	req_start(&never, big_read, MR_ARRAY_SIZE(big_read));
	for (i = 0; i < 8; i++)
		req_rec(3, R_SERVE, 0, 0xff);
	req_write("read_two_ranges");

	/* loss: a SACK of the later packets, RACK and the RTO resend */
	req_start(&never, sends, MR_ARRAY_SIZE(sends));
	req_rec(7, R_ACK, 2, 2, 3, 12, 0, 1);
	req_rec(4, R_ADVANCE, 6, 0, R_FIRE);
	req_rec(4, R_SERVE, 0, 0, R_FIRE);
	req_rec(3, R_SERVE, 0, 0);
	req_write("loss_sack");

	/*
	 * 256 packets outstanding (MR-WIN-3): a SACK frees congestion
	 * window, not the send window; then everything is acknowledged
	 */
	req_start(&never, long_sends, MR_ARRAY_SIZE(long_sends));
	req_rec(7, R_ACK, 0, 2, 0, 63, 0, 1);
	req_rec(4, R_SERVE, 0, 0, R_FIRE);
	req_rec(3, R_SERVE, 0, 0);
	req_write("window_full");

	/* NACK SEQ_ERR and TRIMMED, a stale ACK, an aged one */
	req_start(&never, sends, MR_ARRAY_SIZE(sends));
	req_rec(6, R_NACK, 1, 2, 1, 0, 0);
	req_rec(6, R_NACK, 0, 3, 1 | 2 << 1, 0, 0);
	req_rec(7, R_ACK, 5, 0, 0, 0, 0, 1);
	req_rec(7, R_ACK, 0xf2, 0, 0, 0, 0, 1);
	req_rec(7, R_ACK, 9, 0, 0, 0xf5, 0, 1);
	req_rec(4, R_SERVE, 0, 0, R_FIRE);
	req_write("nack_seq_trim");

	/* fatal NACKs at the head: the WR fails, the rest is flushed */
	for (i = 0; i < 3; i++) {
		static const char *const n[] = {
			"nack_rem_access", "nack_inv_req", "nack_rem_op",
		};

		req_start(&never, sends, MR_ARRAY_SIZE(sends));
		req_rec(6, R_NACK, 3 + i, 0, 1, 0, 0);
		req_rec(3, R_SERVE, 0, 0);
		req_write(n[i]);
	}

	/* RNR: a pause, the resend; then with rnr_retry 0 the WR fails */
	req_start(&never, sends, MR_ARRAY_SIZE(sends));
	req_rec(6, R_NACK, 2, 0, 1, 0, 1);
	req_rec(4, R_FIRE, R_SERVE, 0, 0);
	req_write("nack_rnr");
	req_start(&rnr0, sends, MR_ARRAY_SIZE(sends));
	req_rec(6, R_NACK, 2, 0, 1, 0, 1);
	req_write("nack_rnr_exceeded");

	/* READ responses backwards, duplicated, one trimmed: asked again */
	req_start(&never, read_head, MR_ARRAY_SIZE(read_head));
	req_rec(5, R_READ_RESP, 0, 0, 0x85, 0x80);
	req_rec(5, R_READ_RESP, 0, 1, 0, 0x01);
	req_rec(4, R_FIRE, R_SERVE, 1, 0);
	req_rec(4, R_SERVE, 0, 0, R_FIRE);
	req_write("read_reorder_trim");

	/* atomics answered, one twice, and a READ too late after its WR */
	req_start(&never, atomics, MR_ARRAY_SIZE(atomics));
	req_rec(4, R_ATOMIC_RESP, 0, 0x80, 7);
	req_rec(4, R_ATOMIC_RESP, 1, 0, 9);
	req_rec(4, R_SERVE, 0, 0, R_FIRE);
	req_rec(3, R_SERVE, 0, 0);
	req_write("atomics");

	/* a silent peer: RTOs, dead paths probed, a probe answered */
	req_start(&never, sends, MR_ARRAY_SIZE(sends));
	for (i = 0; i < 10; i++)
		req_rec(1, R_FIRE);
	req_rec(3, R_PROBE_REPLY, 0, 0);
	req_rec(3, R_PROBE_REPLY, 1, 0x81);
	req_rec(3, R_SERVE, 0, 0);
	req_write("dead_paths_probe");

	/* raw ACKs through mr_pkt_receive(): one with a bad ICRC */
	req_start(&never, sends, MR_ARRAY_SIZE(sends));
	req_raw_ack(REQ_PSN + 2, true);
	req_raw_ack(REQ_PSN + 2, false);
	req_rec(3, R_SERVE, 0, 0);
	req_write("raw_ack");

	/*
	 * raw ACKs with the trimmed DSCP: a bad ICRC makes it a trimmed
	 * ACK, dropped (MR-TRIM-3); a good one is a whole ACK
	 */
	req_start(&never, sends, MR_ARRAY_SIZE(sends));
	req_raw_ack_dscp(REQ_PSN + 2, true, true);
	req_raw_ack_dscp(REQ_PSN + 2, false, true);
	req_rec(3, R_SERVE, 0, 0);
	req_write("raw_ack_trim_dscp");

	/* no memory for a packet, then a READ's buffer fails at the head */
	req_start(&never, read_head, MR_ARRAY_SIZE(read_head));
	req_rec(4, R_FAULT, 0, R_ADVANCE, 10);
	req_rec(1, 0);
	req_rec(2, R_FAULT, 2);
	req_rec(5, R_READ_RESP, 3, 0, 0, 0);
	req_rec(3, R_SERVE, 0, 0);
	req_write("faults");

	/* local operations in SQ order; a WR refused when posted */
	req_start(&never, local, MR_ARRAY_SIZE(local));
	req_rec(4, R_SERVE, 0, 0, R_FIRE);
	req_write("local_ops");
	req_start(&never, refused, MR_ARRAY_SIZE(refused));
	req_rec(4, R_SERVE, 0, 0, R_FIRE);
	req_write("refused_at_post");
}

/* fuzz_uc input: 3-byte PSN, PMTU code, WQEs posted, 8-byte records. */
static u8 uc_buf[1024];
static size_t uc_len;

static void uc_start(u32 psn, u8 posted)
{
	uc_buf[0] = (u8)(psn >> 16);
	uc_buf[1] = (u8)(psn >> 8);
	uc_buf[2] = (u8)psn;
	uc_buf[3] = 2;		/* PMTU 1024 */
	uc_buf[4] = posted;
	uc_len = 5;
}

/* One record: op index, flags (b0 bits 2..7), MSN and PSN steps, ... */
static void uc_rec(u8 op, u8 fl, s8 dmsn, s8 dpsn, u8 k, u16 len4, u8 b6,
		   u8 b7)
{
	u8 *b = uc_buf + uc_len;

	if (uc_len + 8 > sizeof(uc_buf))
		die("uc corpus");
	b[0] = (u8)(op | fl);
	b[1] = (u8)dmsn;
	b[2] = (u8)dpsn;
	b[3] = k;
	b[4] = (u8)(len4 >> 8);
	b[5] = (u8)len4;
	b[6] = b6;
	b[7] = b7;
	uc_len += 8;
}

static void gen_uc(void)
{
	unsigned int i;

	/* in order: a 3-packet SEND, a WRITE_IMM, a WRITE, across the wrap */
	uc_start(0xFFFFF0, 16);
	uc_rec(0, 0x80, 0, 0, 0, 750, 0, 0);
	uc_rec(0, 0, 0, 1, 1, 750, 0, 0);
	uc_rec(0, 0, 0, 1, 2, 750, 0, 0);
	uc_rec(3, 0x80, 1, 1, 0, 25, 1, 0);
	uc_rec(2, 0x80, 1, 1, 0, 512, 2, 0);
	uc_rec(2, 0, 0, 1, 1, 512, 2, 0);
	write_file("fuzz_uc", "inorder", uc_buf, uc_len);

	/* a lost packet: the next message moves into its WQE, or cannot */
	uc_start(100, 8);
	uc_rec(1, 0x80, 0, 0, 0, 750, 3, 0);
	uc_rec(1, 0, 0, 2, 2, 750, 3, 0);
	uc_rec(0, 0x80, 1, 1, 0, 125, 0, 0);
	uc_rec(0, 0x20 | 0x80, 1, 1, 0, 750, 0, 0);
	uc_rec(0, 0x80, 1, 1, 0, 50, 0, 0);
	uc_rec(0, 0x80, -2, 1, 1, 750, 0, 0);
	uc_rec(0, 0, 0, -4, 1, 750, 0, 0);
	write_file("fuzz_uc", "loss_rebind", uc_buf, uc_len);

	/* reordered messages, late first packets, refusals, trims, posts */
	uc_start(7, 1);
	uc_rec(0, 0x80, 1, 0, 0, 500, 0, 0);
	uc_rec(0, 0, -1, 2, 0, 500, 0, 0);
	uc_rec(0, 0x40, 5, 0, 0, 0, 0, 0);
	uc_rec(3, 0x08, 2, 1, 0, 10, 1, 0);
	uc_rec(2, 0x10, 3, 1, 0, 300, 2, 0);
	uc_rec(1, 0x04, 4, 1, 0, 600, 1, 0);
	uc_rec(1, 0, 4, 1, 1, 600, 1, 0);
	uc_rec(0, 0x80, 5, 1, 0, 0, 0, 0);
	write_file("fuzz_uc", "reorder_faults", uc_buf, uc_len);

	/* a flood of new MSNs and far jumps, then a whole message */
	uc_start(0x800000, 4);
	for (i = 0; i < 40; i++)
		uc_rec((u8)(i % 4), 0x80, (s8)(1 + i % 3), 2, 0, 512,
		       (u8)(i * 37), i % 7 == 0);
	uc_rec(0, 0x80, 3, 5, 1, 512, 0, 0);
	uc_rec(0, 0, 0, -1, 0, 512, 0, 0);
	write_file("fuzz_uc", "flood", uc_buf, uc_len);
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
		return 2;
	}
	outdir = argv[1];
	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (u8)(i * 13 + 5);
	gen_decode();
	gen_rx();
	gen_req();
	gen_uc();
	return 0;
}
