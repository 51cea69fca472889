// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Seed corpus generator for the fuzzers, built from the real encoder.
 * Usage: gen_corpus OUTDIR  (writes OUTDIR/fuzz_decode/ and OUTDIR/fuzz_rx/;
 * the directories must exist). Deterministic: same seeds every run.
 */
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
		"atomic_resp", "probe",
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
		default:
			base(&p, MR_OP_PROBE, 0);
			p.flags = 0;
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
	return 0;
}
