/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared helpers for the host tests of the protocol core: a deterministic
 * PRNG, a valid sample packet per opcode, and an independent raw writer of
 * the v1 wire layout (explicit byte offsets, no validation) used to pin the
 * encoder's byte layout and to craft invalid packets.
 */
#ifndef MR_TEST_UTIL_H
#define MR_TEST_UTIL_H

#include <stdint.h>
#include <string.h>

#include "wire.h"

/* All opcodes of the v1 table. */
static const u8 t_opcodes[] = {
	MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_SEND_INV, MR_OP_WRITE,
	MR_OP_WRITE_IMM, MR_OP_READ_REQ, MR_OP_ATOMIC_CS, MR_OP_ATOMIC_FA,
	MR_OP_UD_SEND, MR_OP_UD_SEND_IMM, MR_OP_ACK, MR_OP_NACK,
	MR_OP_READ_RESP, MR_OP_ATOMIC_RESP, MR_OP_PROBE, MR_OP_PROBE_REPLY,
	MR_OP_HELLO, MR_OP_UC_SEND, MR_OP_UC_SEND_IMM, MR_OP_UC_WRITE,
	MR_OP_UC_WRITE_IMM,
};

/* xorshift64*: deterministic, seedable. */
static inline u64 t_rand(u64 *s)
{
	u64 x = *s ? *s : 0x9E3779B97F4A7C15ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static inline u32 t_rand_below(u64 *s, u32 n)
{
	return n ? (u32)(t_rand(s) % n) : 0;
}

static inline u8 t_payload_byte(u32 i)
{
	return (u8)(i * 31 + 7);
}

/*
 * A valid single-packet sample of @opcode with distinctive field values.
 * Payload-carrying opcodes get @plen bytes (pointer left NULL: set
 * p->payload yourself for mr_pkt_encode()).
 */
static inline void t_sample_pkt(struct mr_pkt *p, u8 opcode, u32 plen)
{
	memset(p, 0, sizeof(*p));
	p->opcode = opcode;
	p->path = 5;
	p->dqpn = 0xABCDEF;
	p->sqpn = 0x123456;
	p->psn = 0xFEDCBA;
	p->ts = 0xCAFEBABE;
	p->flags = MR_F_FIRST | MR_F_LAST;
	p->dxh.msn = 0x01020304;
	p->dxh.offset = 0;
	p->dxh.msg_len = plen;
	p->dxh.ssn = 0;
	p->payload_len = plen;

	switch (opcode) {
	case MR_OP_SEND:
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
		p->dxh.ssn = 0x0A0B0C0D;
		p->flags |= MR_F_SE;
		p->imm = 0x11223344;
		p->inv_rkey = 0x55667788;
		if (opcode == MR_OP_SEND)
			p->imm = p->inv_rkey = 0;
		if (opcode == MR_OP_SEND_IMM)
			p->inv_rkey = 0;
		if (opcode == MR_OP_SEND_INV)
			p->imm = 0;
		break;
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
		p->rxh.va = 0x0000123456789AB0ULL;
		p->rxh.rkey = 0xDEADBEEF;
		if (opcode == MR_OP_WRITE_IMM) {
			p->imm = 0x99AABBCC;
			p->dxh.ssn = 7;
		}
		p->flags |= MR_F_ACKREQ;
		break;
	case MR_OP_UC_SEND:
	case MR_OP_UC_SEND_IMM:
		p->flags |= MR_F_SE;
		if (opcode == MR_OP_UC_SEND_IMM)
			p->imm = 0x21436587;
		break;
	case MR_OP_UC_WRITE:
	case MR_OP_UC_WRITE_IMM:
		p->rxh.va = 0x0000654321000040ULL;
		p->rxh.rkey = 0xFEEDC0DE;
		if (opcode == MR_OP_UC_WRITE_IMM) {
			p->imm = 0x31415926;
			p->flags |= MR_F_SE;
		}
		break;
	case MR_OP_READ_REQ:
		p->rxh.va = 0x00007F0000001000ULL;
		p->rxh.rkey = 0x0BADF00D;
		p->dxh.offset = 4096;
		p->dxh.msg_len = 65536;
		p->payload_len = 0;
		break;
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		p->axh.va = 0x00007F0000002008ULL;
		p->axh.rkey = 0x13579BDF;
		p->axh.swap_add = 0x1111222233334444ULL;
		p->axh.compare = opcode == MR_OP_ATOMIC_CS ?
				 0x5555666677778888ULL : 0;
		p->dxh.msg_len = 8;
		p->payload_len = 0;
		p->flags |= MR_F_RETX;
		break;
	case MR_OP_UD_SEND:
	case MR_OP_UD_SEND_IMM:
		p->deth.qkey = 0x80010203;
		p->deth.src_qpn = p->sqpn;
		if (opcode == MR_OP_UD_SEND_IMM)
			p->imm = 0x0F0E0D0C;
		p->dxh.msn = 0;
		p->dxh.msg_len = 0;
		break;
	case MR_OP_ACK:
	case MR_OP_NACK:
		p->psn = 0;
		p->flags = MR_F_ECE;
		p->dxh.msn = 0;
		p->dxh.msg_len = 0;
		p->payload_len = 0;
		p->akh.cum_psn = 0xFFFFF0;
		p->akh.msn = 42;
		p->akh.ts_echo = 0x76543210;
		p->akh.ce_count = 3;
		p->akh.pkt_count = 17;
		p->akh.credit = MR_CREDIT_UNLIMITED;
		p->akh.sack[0] = 0x8000000000000006ULL;
		p->akh.sack[1] = 0x1ULL;
		p->akh.sack[3] = 0x8000000000000000ULL;
		if (opcode == MR_OP_NACK) {
			p->nkh.reason = MR_NACK_RNR;
			p->nkh.rnr_timer = 14;
			p->nkh.nack_psn = 0xFFFFF0;
		}
		break;
	case MR_OP_READ_RESP:
		p->dxh.offset = 0;
		break;
	case MR_OP_ATOMIC_RESP:
		p->dxh.msg_len = 8;
		p->payload_len = 0;
		p->atomic_orig = 0xFEEDFACECAFEF00DULL;
		break;
	case MR_OP_HELLO:
		p->psn = 0;
		p->hlh.rev_major = 1;
		p->hlh.rev_minor = 1;
		p->hlh.hflags = MR_HLF_SEEN;
		p->hlh.caps = 0x80000007U;	/* an unassigned bit too */
		p->hlh.max_read_range = 0x00123456;
		/* fall through */
	case MR_OP_PROBE:
	case MR_OP_PROBE_REPLY:
	default:
		p->flags = 0;
		p->dxh.msn = 0;
		p->dxh.msg_len = 0;
		p->payload_len = 0;
		break;
	}
}

static inline void t_put16(u8 *b, u16 v)
{
	b[0] = v >> 8;
	b[1] = (u8)v;
}

static inline void t_put32(u8 *b, u32 v)
{
	b[0] = v >> 24;
	b[1] = (u8)(v >> 16);
	b[2] = (u8)(v >> 8);
	b[3] = (u8)v;
}

static inline void t_put64(u8 *b, u64 v)
{
	t_put32(b, (u32)(v >> 32));
	t_put32(b + 4, (u32)v);
}

/*
 * Write MBH + extension headers of @p as the brief lays them out, without
 * any validation; @raw_flags/@ver_byte are written verbatim. Returns the
 * header length. Opcode must be known (layout from the brief, not from
 * wire.c's table).
 */
static inline u32 t_write_raw_hdrs(const struct mr_pkt *p, u8 ver_byte,
				   u16 raw_flags, u8 *b)
{
	u32 o = 20;
	int i;

	b[0] = ver_byte;
	b[1] = p->opcode;
	t_put16(b + 2, raw_flags);
	t_put32(b + 4, (u32)p->path << 24 | (p->dqpn & 0xFFFFFF));
	t_put32(b + 8, p->psn);
	t_put32(b + 12, p->sqpn);
	t_put32(b + 16, p->ts);

	switch (p->opcode) {
	case MR_OP_UD_SEND:
	case MR_OP_UD_SEND_IMM:
		t_put32(b + o, p->deth.qkey);
		t_put32(b + o + 4, p->deth.src_qpn);
		o += 8;
		if (p->opcode == MR_OP_UD_SEND_IMM) {
			t_put32(b + o, p->imm);
			o += 4;
		}
		return o;
	case MR_OP_ACK:
	case MR_OP_NACK:
		t_put32(b + o, p->akh.cum_psn);
		t_put32(b + o + 4, p->akh.msn);
		t_put32(b + o + 8, p->akh.ts_echo);
		t_put16(b + o + 12, p->akh.ce_count);
		t_put16(b + o + 14, p->akh.pkt_count);
		t_put32(b + o + 16, p->akh.credit);
		for (i = 0; i < 4; i++)
			t_put64(b + o + 20 + 8 * i, p->akh.sack[i]);
		o += 52;
		if (p->opcode == MR_OP_NACK) {
			b[o] = p->nkh.reason;
			b[o + 1] = p->nkh.rnr_timer;
			t_put16(b + o + 2, 0);
			t_put32(b + o + 4, p->nkh.nack_psn);
			o += 8;
		}
		return o;
	case MR_OP_PROBE:
	case MR_OP_PROBE_REPLY:
		return o;
	case MR_OP_HELLO:
		b[o] = p->hlh.rev_major;
		b[o + 1] = p->hlh.rev_minor;
		t_put16(b + o + 2, p->hlh.hflags);
		t_put32(b + o + 4, p->hlh.caps);
		t_put32(b + o + 8, p->hlh.max_read_range);
		t_put32(b + o + 12, 0);
		return o + 16;
	default:
		break;
	}
	/* Everything else starts with a DXH. */
	t_put32(b + o, p->dxh.msn);
	t_put32(b + o + 4, p->dxh.offset);
	t_put32(b + o + 8, p->dxh.msg_len);
	t_put32(b + o + 12, p->dxh.ssn);
	o += 16;
	switch (p->opcode) {
	case MR_OP_SEND_IMM:
	case MR_OP_UC_SEND_IMM:
		t_put32(b + o, p->imm);
		o += 4;
		break;
	case MR_OP_SEND_INV:
		t_put32(b + o, p->inv_rkey);
		o += 4;
		break;
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
	case MR_OP_READ_REQ:
	case MR_OP_UC_WRITE:
	case MR_OP_UC_WRITE_IMM:
		t_put64(b + o, p->rxh.va);
		t_put32(b + o + 8, p->rxh.rkey);
		t_put32(b + o + 12, 0);
		o += 16;
		if (p->opcode == MR_OP_WRITE_IMM ||
		    p->opcode == MR_OP_UC_WRITE_IMM) {
			t_put32(b + o, p->imm);
			o += 4;
		}
		break;
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		t_put64(b + o, p->axh.va);
		t_put32(b + o + 8, p->axh.rkey);
		t_put64(b + o + 12, p->axh.swap_add);
		t_put64(b + o + 20, p->axh.compare);
		o += 28;
		break;
	case MR_OP_ATOMIC_RESP:
		t_put64(b + o, p->atomic_orig);
		o += 8;
		break;
	default:
		break;
	}
	return o;
}

/* Bitwise reference CRC32C (independent of crc32c.c's tables). */
static inline u32 t_crc32c_ref(const u8 *b, size_t n)
{
	u32 c = 0xFFFFFFFFU;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		c ^= b[i];
		for (k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82F63B78U : c >> 1;
	}
	return ~c;
}

/*
 * Raw packet: headers as t_write_raw_hdrs(), p->payload_len payload bytes
 * (pattern), little-endian reference ICRC. Returns the total length.
 */
static inline u32 t_write_raw(const struct mr_pkt *p, u8 ver_byte,
			      u16 raw_flags, u8 *b)
{
	u32 o = t_write_raw_hdrs(p, ver_byte, raw_flags, b);
	u32 i, crc;

	for (i = 0; i < p->payload_len; i++)
		b[o + i] = t_payload_byte(i);
	o += p->payload_len;
	crc = t_crc32c_ref(b, o);
	b[o] = (u8)crc;
	b[o + 1] = (u8)(crc >> 8);
	b[o + 2] = (u8)(crc >> 16);
	b[o + 3] = (u8)(crc >> 24);
	return o + 4;
}

#endif /* MR_TEST_UTIL_H */
