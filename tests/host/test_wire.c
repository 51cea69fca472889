// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests: v1 packet codec (MR-HDR-1..26, MR-VER-1..4, MR-MAL-1,
 * MR-MAL-2, MR-MAL-6, MR-MAL-8) and ICRC (MR-ICRC-1, MR-ICRC-3,
 * MR-ICRC-7). Decoded buffers are heap copies of exactly the tested
 * length, so ASan flags any read past the end; every failing decode must
 * leave the output struct byte-for-byte untouched.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include "wire.h"
#include "crc32c.h"
#include "mr_test_util.h"

#define BUFSZ 4096
#define VER1 0x10

/* Decode a heap copy of exactly @len bytes; check @out on error. */
static int decode_exact(const u8 *raw, u32 len, struct mr_pkt *out)
{
	struct mr_pkt before;
	u8 *b = malloc(len ? len : 1);
	int err;

	assert_non_null(b);
	if (len)
		memcpy(b, raw, len);
	memset(out, 0xA5, sizeof(*out));
	before = *out;
	err = mr_pkt_decode(b, len, out);
	if (err) {
		assert_true(err < 0 && err > -MR_ERR_NUM);
		assert_memory_equal(out, &before, sizeof(before));
	} else {
		/* Payload must point inside the copy. */
		assert_true(out->payload >= b &&
			    out->payload + out->payload_len + MR_ICRC_LEN ==
			    b + len);
		out->payload = NULL; /* about to be freed */
	}
	free(b);
	return err;
}

static void expect_decode_err(const u8 *raw, u32 len, int want)
{
	struct mr_pkt out;
	int err = decode_exact(raw, len, &out);

	if (err != want)
		fail_msg("decode: got %d (%s), want %d (%s)", err,
			 mr_err_name(err), want, mr_err_name(want));
}

/*
 * @p is invalid: its raw wire form must be refused by decode with @want,
 * and the encoder must refuse the struct with the same code.
 */
static void expect_invalid(const struct mr_pkt *p, int want)
{
	u8 raw[BUFSZ], enc[BUFSZ];
	u32 len = t_write_raw(p, VER1, p->flags, raw);
	int err;

	expect_decode_err(raw, len, want);
	memset(enc, 0x5A, sizeof(enc));
	err = mr_pkt_encode_hdr(p, enc, sizeof(enc));
	if (err != want)
		fail_msg("encode op 0x%02x: got %d (%s), want %d (%s)",
			 p->opcode, err, mr_err_name(err), want,
			 mr_err_name(want));
	/* Nothing written on error. */
	assert_int_equal(enc[0], 0x5A);
	assert_int_equal(enc[19], 0x5A);
}

static void expect_valid(const struct mr_pkt *p)
{
	u8 raw[BUFSZ];
	struct mr_pkt out;
	u32 len = t_write_raw(p, VER1, p->flags, raw);
	int err = decode_exact(raw, len, &out);

	if (err)
		fail_msg("op 0x%02x: valid packet refused: %d (%s)", p->opcode,
			 err, mr_err_name(err));
}

static void test_header_lengths(void **state)
{
	static const struct { u8 op; u32 len; } want[] = {
		{ MR_OP_SEND, 36 }, { MR_OP_SEND_IMM, 40 },
		{ MR_OP_SEND_INV, 40 }, { MR_OP_WRITE, 52 },
		{ MR_OP_WRITE_IMM, 56 }, { MR_OP_READ_REQ, 52 },
		{ MR_OP_ATOMIC_CS, 64 }, { MR_OP_ATOMIC_FA, 64 },
		{ MR_OP_UD_SEND, 28 }, { MR_OP_UD_SEND_IMM, 32 },
		{ MR_OP_ACK, 72 }, { MR_OP_NACK, 80 },
		{ MR_OP_READ_RESP, 36 }, { MR_OP_ATOMIC_RESP, 44 },
		{ MR_OP_PROBE, 20 }, { MR_OP_PROBE_REPLY, 20 },
		{ MR_OP_HELLO, 36 },
		{ MR_OP_UC_SEND, 36 }, { MR_OP_UC_SEND_IMM, 40 },
		{ MR_OP_UC_WRITE, 52 }, { MR_OP_UC_WRITE_IMM, 56 },
	};
	unsigned int i, known = 0;

	(void)state;
	for (i = 0; i < MR_ARRAY_SIZE(want); i++) {
		u8 raw[BUFSZ];
		struct mr_pkt p;

		assert_int_equal(mr_pkt_hdr_len(want[i].op), want[i].len);
		/* The independent raw writer agrees with the table. */
		t_sample_pkt(&p, want[i].op, 0);
		assert_int_equal(t_write_raw_hdrs(&p, VER1, 0, raw),
				 want[i].len);
		assert_true(want[i].len <= MR_MAX_HDR_LEN);
	}
	for (i = 0; i < 256; i++)
		if (mr_pkt_hdr_len((u8)i))
			known++;
	assert_int_equal(known, MR_ARRAY_SIZE(want));
	assert_null(mr_op_desc(0x00));
	assert_null(mr_op_desc(0x0F));
	assert_null(mr_op_desc(0x33));
	assert_null(mr_op_desc(0xFF));
}

/*
 * The attribute sets the glue asks the table for: requests answered by
 * responses (MR-VERBS-15 counts them against max_rd_atomic) and requests
 * that carry an SSN, i.e. consume a receive WQE (MR-HDR-10); unknown
 * opcodes have none.
 */
static void test_op_attr_sets(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < 256; i++) {
		u8 op = (u8)i;
		bool answered = op == MR_OP_READ_REQ || op == MR_OP_ATOMIC_CS ||
				op == MR_OP_ATOMIC_FA;
		bool ssn = op == MR_OP_SEND || op == MR_OP_SEND_IMM ||
			   op == MR_OP_SEND_INV || op == MR_OP_WRITE_IMM;

		assert_int_equal(mr_op_has(op, MR_OPA_ANSWERED), answered);
		assert_int_equal(mr_op_has(op, MR_OPA_SSN), ssn);
		if (answered || ssn)
			assert_true(mr_op_has(op, MR_OPA_REQ));
	}
	assert_false(mr_op_has(0, 0));
	assert_true(mr_op_has(MR_OP_ACK, 0));
}

/* Encode == independent raw layout, decode(encode(p)) == p, all opcodes. */
static void test_roundtrip_all_opcodes(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < MR_ARRAY_SIZE(t_opcodes); i++) {
		const struct mr_op_desc *d = mr_op_desc(t_opcodes[i]);
		u32 plen = (d->attrs & MR_OPA_PAYLOAD) ? 1000 : 0;
		u8 payload[1000], enc[BUFSZ], raw[BUFSZ];
		struct mr_pkt p, out;
		int len, hlen;
		u32 rlen, k;

		for (k = 0; k < plen; k++)
			payload[k] = t_payload_byte(k);
		t_sample_pkt(&p, t_opcodes[i], plen);
		p.payload = plen ? payload : NULL;

		len = mr_pkt_encode(&p, enc, sizeof(enc));
		assert_int_equal(len, d->hdr_len + plen + MR_ICRC_LEN);
		rlen = t_write_raw(&p, VER1, p.flags, raw);
		assert_int_equal(rlen, (u32)len);
		assert_memory_equal(enc, raw, rlen);

		hlen = mr_pkt_encode_hdr(&p, enc, d->hdr_len);
		assert_int_equal(hlen, d->hdr_len);
		assert_memory_equal(enc, raw, d->hdr_len);

		assert_int_equal(mr_icrc_check(raw, rlen), 0);
		assert_int_equal(decode_exact(raw, rlen, &out), 0);
		assert_int_equal(out.hdr_len, d->hdr_len);
		assert_int_equal(out.hdrs, d->hdrs);
		assert_int_equal(out.payload_len, plen);
		/* Compare everything but the payload pointer and outputs. */
		out.payload = p.payload;
		out.hdrs = 0;
		out.hdr_len = 0;
		assert_memory_equal(&out, &p, sizeof(p));
	}
}

/* Byte-exact golden vector: pins field order, endianness, ICRC order. */
static void test_golden_write(void **state)
{
	static const u8 want_hdr[52] = {
		0x10, 0x04, 0x00, 0x0D,		/* ver, WRITE, ACKREQ|FIRST|LAST */
		0x05, 0xAB, 0xCD, 0xEF,		/* path 5, dqpn */
		0x00, 0xFE, 0xDC, 0xBA,		/* psn */
		0x00, 0x12, 0x34, 0x56,		/* sqpn */
		0xCA, 0xFE, 0xBA, 0xBE,		/* ts */
		0x01, 0x02, 0x03, 0x04,		/* msn */
		0x00, 0x00, 0x00, 0x00,		/* offset */
		0x00, 0x00, 0x00, 0x04,		/* msg_len */
		0x00, 0x00, 0x00, 0x00,		/* ssn */
		0x00, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xB0, /* va */
		0xDE, 0xAD, 0xBE, 0xEF,		/* rkey */
		0x00, 0x00, 0x00, 0x00,		/* rsvd */
	};
	static const u8 payload[4] = { 1, 2, 3, 4 };
	u8 buf[64];
	struct mr_pkt p;
	u32 crc;
	int len;

	(void)state;
	t_sample_pkt(&p, MR_OP_WRITE, 4);
	p.payload = payload;
	len = mr_pkt_encode(&p, buf, sizeof(buf));
	assert_int_equal(len, 52 + 4 + 4);
	assert_memory_equal(buf, want_hdr, sizeof(want_hdr));
	assert_memory_equal(buf + 52, payload, 4);
	crc = t_crc32c_ref(buf, 56);
	assert_int_equal(buf[56], crc & 0xff);
	assert_int_equal(buf[57], (crc >> 8) & 0xff);
	assert_int_equal(buf[58], (crc >> 16) & 0xff);
	assert_int_equal(buf[59], crc >> 24);
	assert_int_equal(mr_icrc_compute(buf, 56), crc);
}

/* The example packet of the spec, byte for byte (MR-ICRC-7). */
static void test_spec_example_packet(void **state)
{
	static const u8 want[48] = {
		0x10, 0x01, 0x00, 0x0d, 0x03, 0x00, 0x01, 0x23,
		0x00, 0xab, 0xcd, 0xef, 0x00, 0x00, 0x04, 0x56,
		0x00, 0x01, 0x23, 0x45, 0x00, 0x00, 0x00, 0x07,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08,
		0x00, 0x00, 0x00, 0x02, 0x4d, 0x65, 0x74, 0x61,
		0x52, 0x6f, 0x43, 0x45, 0xef, 0xd7, 0xce, 0xd5,
	};
	struct mr_pkt p, out;
	u8 buf[64];

	(void)state;
	memset(&p, 0, sizeof(p));
	p.opcode = MR_OP_SEND;
	p.path = 3;
	p.dqpn = 0x000123;
	p.psn = 0xABCDEF;
	p.sqpn = 0x000456;
	p.ts = 0x00012345;
	p.flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
	p.dxh.msn = 7;
	p.dxh.msg_len = 8;
	p.dxh.ssn = 2;
	p.payload = (const u8 *)"MetaRoCE";
	p.payload_len = 8;
	assert_int_equal(mr_pkt_encode(&p, buf, sizeof(buf)), 48);
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(mr_icrc_compute(want, 44), 0xD5CED7EF);
	assert_int_equal(mr_icrc_check(want, 48), 0);
	assert_int_equal(decode_exact(want, 48, &out), 0);
	assert_int_equal(out.dxh.ssn, 2);
	assert_int_equal(out.path, 3);
}

/* Every prefix of every sample packet is refused, with the right class. */
static void test_truncate_every_length(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < MR_ARRAY_SIZE(t_opcodes); i++) {
		const struct mr_op_desc *d = mr_op_desc(t_opcodes[i]);
		u32 plen = (d->attrs & MR_OPA_PAYLOAD) ? 100 : 0;
		u8 raw[BUFSZ];
		struct mr_pkt p, out;
		u32 len, l;

		t_sample_pkt(&p, t_opcodes[i], plen);
		len = t_write_raw(&p, VER1, p.flags, raw);
		for (l = 0; l < len; l++) {
			int err = decode_exact(raw, l, &out);

			if (l < MR_MBH_LEN + MR_ICRC_LEN)
				assert_int_equal(err, MR_ERR_TRUNC);
			else if (l < (u32)d->hdr_len + MR_ICRC_LEN)
				assert_int_equal(err, MR_ERR_HDR_LEN);
			else if (d->hdrs & MR_HDR_DETH)
				/* UD has no length field: a shorter one. */
				assert_int_equal(err, 0);
			else if (l == (u32)d->hdr_len + MR_ICRC_LEN)
				/* Empty packet of a non-empty message. */
				assert_int_equal(err, MR_ERR_PAYLOAD);
			else
				/* Shorter payload: LAST no longer matches. */
				assert_int_equal(err, MR_ERR_FLAGS);
		}
		assert_int_equal(decode_exact(raw, len, &out), 0);
	}
	expect_decode_err(NULL, 0, MR_ERR_TRUNC);
}

static void test_bad_version(void **state)
{
	u8 raw[BUFSZ];
	struct mr_pkt p;
	u32 len, v;

	(void)state;
	t_sample_pkt(&p, MR_OP_SEND, 8);
	for (v = 0; v < 16; v++) {
		if (v == MR_VERSION)
			continue;
		len = t_write_raw(&p, (u8)(v << 4), p.flags, raw);
		expect_decode_err(raw, len, MR_ERR_VERSION);
		/* Even a 1-byte packet of another version counts as such. */
		expect_decode_err(raw, 1, MR_ERR_VERSION);
	}
}

static void test_reserved_bits(void **state)
{
	u8 raw[BUFSZ];
	struct mr_pkt p;
	u32 len, bit;

	(void)state;
	/* MBH byte 0 low nibble. */
	t_sample_pkt(&p, MR_OP_SEND_IMM, 8);
	for (bit = 0; bit < 4; bit++) {
		len = t_write_raw(&p, VER1 | (1U << bit), p.flags, raw);
		expect_decode_err(raw, len, MR_ERR_RSVD);
	}
	/* Top byte of MBH psn / sqpn (dqpn's top byte is the path). */
	for (bit = 24; bit < 32; bit++) {
		t_sample_pkt(&p, MR_OP_SEND, 8);
		p.psn |= 1U << bit;
		expect_invalid(&p, MR_ERR_RSVD);
		t_sample_pkt(&p, MR_OP_SEND, 8);
		p.sqpn |= 1U << bit;
		expect_invalid(&p, MR_ERR_RSVD);
		t_sample_pkt(&p, MR_OP_UD_SEND, 8);
		p.deth.src_qpn |= 1U << bit;
		expect_invalid(&p, MR_ERR_RSVD);
		t_sample_pkt(&p, MR_OP_ACK, 0);
		p.akh.cum_psn |= 1U << bit;
		expect_invalid(&p, MR_ERR_RSVD);
		t_sample_pkt(&p, MR_OP_NACK, 0);
		p.nkh.nack_psn |= 1U << bit;
		expect_invalid(&p, MR_ERR_RSVD);
	}
	/* The encoder also refuses a dqpn that does not fit 24 bits. */
	t_sample_pkt(&p, MR_OP_SEND, 8);
	p.dqpn = 0x1000000;
	assert_int_equal(mr_pkt_encode_hdr(&p, raw, sizeof(raw)),
			 MR_ERR_RSVD);
	/* RXH.rsvd (32 bits) and NKH.rsvd (16 bits): wire-only fields. */
	for (bit = 0; bit < 32; bit++) {
		t_sample_pkt(&p, MR_OP_READ_REQ, 0);
		len = t_write_raw(&p, VER1, p.flags, raw);
		raw[20 + 16 + 12 + bit / 8] ^= 1U << (bit % 8);
		expect_decode_err(raw, len, MR_ERR_RSVD);
	}
	for (bit = 0; bit < 16; bit++) {
		t_sample_pkt(&p, MR_OP_NACK, 0);
		len = t_write_raw(&p, VER1, p.flags, raw);
		raw[20 + 52 + 2 + bit / 8] ^= 1U << (bit % 8);
		expect_decode_err(raw, len, MR_ERR_RSVD);
	}
}

/* Flag bits 7-15: ignored and cleared by decode, refused by encode. */
static void test_reserved_flags_ignored(void **state)
{
	u8 raw[BUFSZ];
	struct mr_pkt p, out;
	u32 len, bit;

	(void)state;
	for (bit = 7; bit < 16; bit++) {
		t_sample_pkt(&p, MR_OP_WRITE, 16);
		len = t_write_raw(&p, VER1, p.flags | (1U << bit), raw);
		assert_int_equal(decode_exact(raw, len, &out), 0);
		assert_int_equal(out.flags, p.flags);
		p.flags |= 1U << bit;
		assert_int_equal(mr_pkt_encode_hdr(&p, raw, sizeof(raw)),
				 MR_ERR_FLAGS);
	}
}

static void test_bad_opcode(void **state)
{
	u8 raw[BUFSZ];
	struct mr_pkt p;
	u32 len, op;

	(void)state;
	t_sample_pkt(&p, MR_OP_PROBE, 0);
	len = t_write_raw(&p, VER1, 0, raw);
	for (op = 0; op < 256; op++) {
		raw[1] = (u8)op;
		if (mr_op_desc((u8)op))
			continue;
		expect_decode_err(raw, len, MR_ERR_OPCODE);
		p.opcode = (u8)op;
		assert_int_equal(mr_pkt_encode_hdr(&p, raw + 100, 1000),
				 MR_ERR_OPCODE);
	}
}

/* Every known flag outside an opcode's allowed set is refused. */
static void test_flags_not_allowed(void **state)
{
	unsigned int i, bit, refused = 0;

	(void)state;
	for (i = 0; i < MR_ARRAY_SIZE(t_opcodes); i++) {
		const struct mr_op_desc *d = mr_op_desc(t_opcodes[i]);

		for (bit = 0; bit < 7; bit++) {
			struct mr_pkt p;

			if (d->flags_ok & (1U << bit))
				continue;
			t_sample_pkt(&p, t_opcodes[i], 8);
			p.flags |= 1U << bit;
			expect_invalid(&p, MR_ERR_FLAGS);
			refused++;
		}
	}
	/* Sanity: the table is not all-permissive. */
	assert_true(refused >= 40);
}

static void test_first_last_rules(void **state)
{
	struct mr_pkt p;

	(void)state;
	/* Middle packet of a multi-packet SEND: neither FIRST nor LAST. */
	t_sample_pkt(&p, MR_OP_SEND, 1024);
	p.dxh.offset = 1024;
	p.dxh.msg_len = 4096;
	p.flags = 0;
	expect_valid(&p);
	p.flags = MR_F_FIRST;
	expect_invalid(&p, MR_ERR_FLAGS);
	p.flags = MR_F_LAST;
	expect_invalid(&p, MR_ERR_FLAGS);
	/* Last packet. */
	p.dxh.offset = 3072;
	p.flags = MR_F_LAST;
	expect_valid(&p);
	p.flags = 0;
	expect_invalid(&p, MR_ERR_FLAGS);
	/* First packet. */
	p.dxh.offset = 0;
	p.flags = MR_F_FIRST;
	expect_valid(&p);
	p.flags = MR_F_FIRST | MR_F_LAST;
	expect_invalid(&p, MR_ERR_FLAGS);
	/* TRIM: payload cut, LAST no longer checkable, FIRST still is. */
	p.dxh.offset = 3072;
	p.payload_len = 0;
	p.flags = MR_F_LAST | MR_F_TRIM;
	expect_valid(&p);
	p.flags = MR_F_FIRST | MR_F_LAST | MR_F_TRIM;
	expect_invalid(&p, MR_ERR_FLAGS);
	/* Single-packet opcodes need both FIRST and LAST. */
	t_sample_pkt(&p, MR_OP_READ_REQ, 0);
	p.flags &= ~MR_F_LAST;
	expect_invalid(&p, MR_ERR_FLAGS);
	t_sample_pkt(&p, MR_OP_UD_SEND, 16);
	p.flags &= ~MR_F_FIRST;
	expect_invalid(&p, MR_ERR_FLAGS);
	t_sample_pkt(&p, MR_OP_ATOMIC_RESP, 0);
	p.flags = 0;
	expect_invalid(&p, MR_ERR_FLAGS);
}

static void test_payload_rules(void **state)
{
	static const u8 no_payload[] = {
		MR_OP_READ_REQ, MR_OP_ATOMIC_CS, MR_OP_ATOMIC_FA, MR_OP_ACK,
		MR_OP_NACK, MR_OP_ATOMIC_RESP, MR_OP_PROBE, MR_OP_PROBE_REPLY,
		MR_OP_HELLO,
	};
	struct mr_pkt p;
	unsigned int i;

	(void)state;
	for (i = 0; i < MR_ARRAY_SIZE(no_payload); i++) {
		t_sample_pkt(&p, no_payload[i], 0);
		p.payload_len = 1;
		expect_invalid(&p, MR_ERR_PAYLOAD);
		p.payload_len = 8;
		expect_invalid(&p, MR_ERR_PAYLOAD);
	}
	/* Zero-length message: one empty packet is fine ... */
	t_sample_pkt(&p, MR_OP_SEND, 0);
	expect_valid(&p);
	/* ... an empty packet of a non-empty message is not. */
	p.dxh.msg_len = 100;
	p.flags = MR_F_FIRST;
	expect_invalid(&p, MR_ERR_PAYLOAD);
	/* Payload beyond msg_len. */
	t_sample_pkt(&p, MR_OP_WRITE, 64);
	p.dxh.msg_len = 63;
	expect_invalid(&p, MR_ERR_RANGE);
	t_sample_pkt(&p, MR_OP_READ_RESP, 64);
	p.dxh.offset = 0xFFFFFFF0;
	p.dxh.msg_len = 0x80000000;
	p.flags = 0;
	expect_invalid(&p, MR_ERR_RANGE);
	/* msg_len cap 2^31. */
	t_sample_pkt(&p, MR_OP_SEND, 64);
	p.dxh.msg_len = 0x80000001;
	p.flags = MR_F_FIRST;
	expect_invalid(&p, MR_ERR_RANGE);
	p.dxh.msg_len = 0x80000000;
	expect_valid(&p);
	/* UD may be empty, must be single packet by flags. */
	t_sample_pkt(&p, MR_OP_UD_SEND_IMM, 0);
	expect_valid(&p);
}

static void test_field_rules(void **state)
{
	struct mr_pkt p;
	u32 v;

	(void)state;
	/* Atomics: aligned VA, offset 0, length 8. */
	for (v = 1; v < 8; v++) {
		t_sample_pkt(&p, MR_OP_ATOMIC_CS, 0);
		p.axh.va += v;
		expect_invalid(&p, MR_ERR_ALIGN);
	}
	t_sample_pkt(&p, MR_OP_ATOMIC_FA, 0);
	p.dxh.msg_len = 4;
	expect_invalid(&p, MR_ERR_FIELD);
	t_sample_pkt(&p, MR_OP_ATOMIC_RESP, 0);
	p.dxh.offset = 8;
	expect_invalid(&p, MR_ERR_FIELD);
	/* ssn only on SEND*, WRITE_IMM. */
	t_sample_pkt(&p, MR_OP_WRITE, 8);
	p.dxh.ssn = 1;
	expect_invalid(&p, MR_ERR_FIELD);
	t_sample_pkt(&p, MR_OP_READ_REQ, 0);
	p.dxh.ssn = 1;
	expect_invalid(&p, MR_ERR_FIELD);
	t_sample_pkt(&p, MR_OP_WRITE_IMM, 8);
	p.dxh.ssn = 0xFFFFFFFF;
	expect_valid(&p);
	/* ACK/NACK: MBH.psn unused, must be 0. */
	t_sample_pkt(&p, MR_OP_ACK, 0);
	p.psn = 1;
	expect_invalid(&p, MR_ERR_FIELD);
	/* SACK bit 0 stands for cum_psn itself. */
	t_sample_pkt(&p, MR_OP_ACK, 0);
	p.akh.sack[0] |= 1;
	expect_invalid(&p, MR_ERR_FIELD);
	/* NACK reasons and rnr_timer. */
	t_sample_pkt(&p, MR_OP_NACK, 0);
	p.nkh.reason = 0;
	p.nkh.rnr_timer = 0;
	expect_invalid(&p, MR_ERR_FIELD);
	/* MR-REL-5: 8..255 reserved; 7 is RESOURCE since v1.1. */
	p.nkh.reason = 8;
	expect_invalid(&p, MR_ERR_FIELD);
	p.nkh.reason = 255;
	expect_invalid(&p, MR_ERR_FIELD);
	for (v = MR_NACK_TRIMMED; v <= MR_NACK_RESOURCE; v++) {
		p.nkh.reason = (u8)v;
		p.nkh.rnr_timer = 0;
		expect_valid(&p);
		/* MR-HDR-19: a delay code with RNR and RESOURCE only. */
		p.nkh.rnr_timer = 1;
		if (v == MR_NACK_RNR || v == MR_NACK_RESOURCE)
			expect_valid(&p);
		else
			expect_invalid(&p, MR_ERR_FIELD);
	}
	p.nkh.reason = MR_NACK_RNR;
	p.nkh.rnr_timer = 32;
	expect_invalid(&p, MR_ERR_FIELD);
	/* UD: DETH src_qpn repeats the MBH's. */
	t_sample_pkt(&p, MR_OP_UD_SEND, 4);
	p.deth.src_qpn ^= 1;
	expect_invalid(&p, MR_ERR_FIELD);
	/* Path index < 64. */
	t_sample_pkt(&p, MR_OP_SEND, 4);
	p.path = 63;
	expect_valid(&p);
	p.path = 64;
	expect_invalid(&p, MR_ERR_FIELD);
	p.path = 255;
	expect_invalid(&p, MR_ERR_FIELD);
	/* Address-space wrap. */
	t_sample_pkt(&p, MR_OP_WRITE, 16);
	p.rxh.va = 0xFFFFFFFFFFFFFFF0ULL;
	expect_valid(&p);
	p.rxh.va++;
	expect_invalid(&p, MR_ERR_RANGE);
	t_sample_pkt(&p, MR_OP_READ_REQ, 0);
	p.dxh.offset = 0x40000000;
	p.dxh.msg_len = 0x40000000;
	expect_valid(&p);
	p.dxh.offset++;
	expect_invalid(&p, MR_ERR_RANGE);
	t_sample_pkt(&p, MR_OP_READ_REQ, 0);
	p.rxh.va = 0xFFFFFFFFFFFF0000ULL;
	p.dxh.offset = 0x8000;
	p.dxh.msg_len = 0x8000;
	expect_valid(&p);
	p.dxh.msg_len++;
	expect_invalid(&p, MR_ERR_RANGE);
	/* MR-HDR-24: a zero-length READ is requested whole, at offset 0. */
	t_sample_pkt(&p, MR_OP_READ_REQ, 0);
	p.dxh.offset = 0;
	p.dxh.msg_len = 0;
	expect_valid(&p);
	p.dxh.offset = 4096;
	expect_invalid(&p, MR_ERR_RANGE);
}

static void test_encode_nospace_and_inval(void **state)
{
	u8 payload[200], buf[BUFSZ];
	struct mr_pkt p;
	u32 need, l;

	(void)state;
	for (l = 0; l < sizeof(payload); l++)
		payload[l] = t_payload_byte(l);
	t_sample_pkt(&p, MR_OP_SEND_IMM, sizeof(payload));
	p.payload = payload;
	need = 40 + sizeof(payload) + 4;
	for (l = 0; l < need; l++) {
		memset(buf, 0xEE, sizeof(buf));
		assert_int_equal(mr_pkt_encode(&p, buf, l), MR_ERR_NOSPACE);
		assert_int_equal(buf[0], 0xEE);
		assert_int_equal(buf[40], 0xEE);
	}
	assert_int_equal(mr_pkt_encode(&p, buf, need), (int)need);
	for (l = 0; l < 40; l++)
		assert_int_equal(mr_pkt_encode_hdr(&p, buf, l),
				 MR_ERR_NOSPACE);
	p.payload = NULL;
	assert_int_equal(mr_pkt_encode(&p, buf, sizeof(buf)), MR_ERR_INVAL);
	assert_int_equal(mr_pkt_validate(NULL), MR_ERR_INVAL);
	assert_int_equal(mr_pkt_decode(buf, 10, NULL), MR_ERR_INVAL);
}

/* Payload already in place after the header room, or overlapping it. */
static void test_encode_in_place(void **state)
{
	u8 buf[BUFSZ], ref[BUFSZ];
	struct mr_pkt p, out;
	u32 i;
	int len;

	(void)state;
	t_sample_pkt(&p, MR_OP_WRITE_IMM, 300);
	for (i = 0; i < 300; i++)
		buf[56 + i] = t_payload_byte(i);
	p.payload = buf + 56;
	len = mr_pkt_encode(&p, buf, sizeof(buf));
	assert_int_equal(len, 56 + 300 + 4);
	assert_int_equal((u32)len, t_write_raw(&p, VER1, p.flags, ref));
	assert_memory_equal(buf, ref, len);

	/* Payload starting at buf[0] overlaps the headers being written. */
	for (i = 0; i < 300; i++)
		buf[i] = t_payload_byte(i);
	p.payload = buf;
	len = mr_pkt_encode(&p, buf, sizeof(buf));
	assert_memory_equal(buf, ref, len);
	assert_int_equal(decode_exact(buf, len, &out), 0);
}

static void test_err_names(void **state)
{
	int e, f;

	(void)state;
	for (e = 0; e > -MR_ERR_NUM; e--) {
		const char *n = mr_err_name(e);

		assert_non_null(n);
		assert_string_not_equal(n, "?");
		for (f = e - 1; f > -MR_ERR_NUM; f--)
			assert_string_not_equal(n, mr_err_name(f));
	}
	assert_string_equal(mr_err_name(-MR_ERR_NUM), "?");
	assert_string_equal(mr_err_name(1), "?");
	assert_string_equal(mr_err_name(MR_ERR_ICRC), "icrc");
}

/* RFC 3720 B.4 and the classic check value. */
static void test_crc32c_vectors(void **state)
{
	u8 b[64];
	u32 i, c;

	(void)state;
	assert_int_equal(mr_crc32c("123456789", 9), 0xE3069283);
	assert_int_equal(mr_crc32c("", 0), 0);
	memset(b, 0, 32);
	assert_int_equal(mr_crc32c(b, 32), 0x8A9136AA);
	memset(b, 0xFF, 32);
	assert_int_equal(mr_crc32c(b, 32), 0x62A8AB43);
	for (i = 0; i < 32; i++)
		b[i] = (u8)i;
	assert_int_equal(mr_crc32c(b, 32), 0x46DD794E);
	for (i = 0; i < 32; i++)
		b[i] = (u8)(31 - i);
	assert_int_equal(mr_crc32c(b, 32), 0x113FDB5C);
	/* Chained updates over every split, odd alignments. */
	for (i = 0; i < 64; i++)
		b[i] = (u8)(i * 37 + 1);
	for (i = 0; i <= 63; i++) {
		c = mr_crc32c_update(~0U, b + 1, i);
		c = mr_crc32c_update(c, b + 1 + i, 63 - i);
		assert_int_equal(~c, t_crc32c_ref(b + 1, 63));
	}
}

/* Every single-bit error anywhere in a packet is caught by the ICRC. */
static void test_icrc_bitflip(void **state)
{
	u8 raw[BUFSZ];
	struct mr_pkt p;
	u32 len, i;

	(void)state;
	t_sample_pkt(&p, MR_OP_WRITE_IMM, 200);
	len = t_write_raw(&p, VER1, p.flags, raw);
	assert_int_equal(mr_icrc_check(raw, len), 0);
	for (i = 0; i < len * 8; i++) {
		raw[i / 8] ^= 1U << (i % 8);
		assert_int_equal(mr_icrc_check(raw, len), MR_ERR_ICRC);
		raw[i / 8] ^= 1U << (i % 8);
	}
	/* mr_icrc_put writes what check expects. */
	memset(raw + len - 4, 0, 4);
	assert_int_equal(mr_icrc_check(raw, len), MR_ERR_ICRC);
	mr_icrc_put(raw, len - 4);
	assert_int_equal(mr_icrc_check(raw, len), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(mr_icrc_check(raw, i), MR_ERR_TRUNC);
	/* ICRC of the empty packet body is crc32c(""), i.e. 0. */
	memset(raw, 0, 4);
	assert_int_equal(mr_icrc_check(raw, 4), 0);
}

/* Received without the trimmed DSCP (MR-TRIM-2). */
static int rx_plain(const u8 *raw, u32 len, struct mr_pkt *out)
{
	return mr_pkt_receive(raw, len, 0, MR_TRIM_DSCP_DEFAULT, out);
}

/* Received with the trimmed DSCP (MR-TRIM-2). */
static int rx_marked(const u8 *raw, u32 len, struct mr_pkt *out)
{
	return mr_pkt_receive(raw, len, MR_TRIM_DSCP_DEFAULT,
			      MR_TRIM_DSCP_DEFAULT, out);
}

/*
 * MR-MAL-2 steps 2..9 as one pure function: the ICRC is checked after
 * decode, except on a trimmed packet, whose payload is then not exposed
 * (MR-ICRC-5); each failure has its own error.
 */
/*
 * MR-PLACE-9, MR-MAL-4, MR-HDR-4, MR-HDR-24: the QP's PMTU rules of a
 * decoded packet, as both receivers run them (MR-MAL-2 step 11).
 */
static void test_pmtu_check(void **state)
{
	static const u8 ops[] = { MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_SEND_INV,
				  MR_OP_WRITE, MR_OP_WRITE_IMM,
				  MR_OP_READ_RESP };
	struct mr_pkt p;
	unsigned int i;

	(void)state;
	for (i = 0; i < MR_ARRAY_SIZE(ops); i++) {
		/* packet 1 of 3 at PMTU 1024 */
		t_sample_pkt(&p, ops[i], 1024);
		p.dxh.msg_len = 2500;
		p.dxh.offset = 1024;
		p.flags &= (u16)~(MR_F_FIRST | MR_F_LAST);
		assert_int_equal(mr_pkt_validate(&p), 0);
		assert_int_equal(mr_pkt_pmtu_check(&p, 1024), 0);
		/* a receiver with a larger PMTU takes it, a smaller not */
		assert_int_equal(mr_pkt_pmtu_check(&p, 2048), 0);
		assert_int_equal(mr_pkt_pmtu_check(&p, 512), MR_ERR_PAYLOAD);
		/* a piece of 512 at a multiple of 512: a PMTU of 512 */
		p.payload_len = 512;
		assert_int_equal(mr_pkt_pmtu_check(&p, 1024), 0);
		/* a non-last packet that is no whole piece of any PMTU */
		p.payload_len = 1000;
		assert_int_equal(mr_pkt_pmtu_check(&p, 1024), MR_ERR_PMTU);
		p.payload_len = 128;
		assert_int_equal(mr_pkt_pmtu_check(&p, 1024), MR_ERR_PMTU);
		/* a piece not at a multiple of its size */
		p.payload_len = 1024;
		p.dxh.offset = 512;
		assert_int_equal(mr_pkt_pmtu_check(&p, 1024), MR_ERR_PMTU);
		p.dxh.offset = 1024;
		/* ... unless trimmed: only its offset is known */
		p.flags |= MR_F_TRIM;
		p.payload_len = 0;
		assert_int_equal(mr_pkt_pmtu_check(&p, 1024), 0);
		p.dxh.offset = 1000;
		assert_int_equal(mr_pkt_pmtu_check(&p, 1024), MR_ERR_PMTU);
		p.dxh.offset = 768;
		assert_int_equal(mr_pkt_pmtu_check(&p, 1024), 0);
		/* the last packet: any length up to the PMTU */
		t_sample_pkt(&p, ops[i], 452);
		p.dxh.msg_len = 2500;
		p.dxh.offset = 2048;
		p.flags &= (u16)~MR_F_FIRST;
		assert_int_equal(mr_pkt_validate(&p), 0);
		assert_int_equal(mr_pkt_pmtu_check(&p, 1024), 0);
		assert_int_equal(mr_pkt_pmtu_check(&p, 512), 0);
		assert_int_equal(mr_pkt_pmtu_check(&p, 256), MR_ERR_PAYLOAD);
		assert_int_equal(mr_pkt_pmtu_check(&p, 4096), 0);
		p.dxh.offset = 2048 + 100;
		p.dxh.msg_len = 2048 + 100 + 452;
		assert_int_equal(mr_pkt_pmtu_check(&p, 4096), MR_ERR_PMTU);
		/* one packet carrying the whole message */
		t_sample_pkt(&p, ops[i], 4096);
		assert_int_equal(mr_pkt_pmtu_check(&p, 4096), 0);
		assert_int_equal(mr_pkt_pmtu_check(&p, 2048), MR_ERR_PAYLOAD);
	}
	/* READ_REQ: a range starting on a PMTU piece */
	t_sample_pkt(&p, MR_OP_READ_REQ, 0);
	assert_int_equal(mr_pkt_pmtu_check(&p, 4096), 0);
	p.dxh.offset = 4096 + 256;
	assert_int_equal(mr_pkt_pmtu_check(&p, 512), 0);
	p.dxh.offset = 4096 + 8;
	assert_int_equal(mr_pkt_pmtu_check(&p, 512), MR_ERR_PMTU);
	/* single-packet opcodes without payload and control: no rule */
	t_sample_pkt(&p, MR_OP_ATOMIC_FA, 0);
	assert_int_equal(mr_pkt_pmtu_check(&p, 256), 0);
	t_sample_pkt(&p, MR_OP_NACK, 0);
	assert_int_equal(mr_pkt_pmtu_check(&p, 256), 0);
	/* a PMTU that is no power of two is the caller's error */
	t_sample_pkt(&p, MR_OP_WRITE, 100);
	assert_int_equal(mr_pkt_pmtu_check(&p, 0), MR_ERR_INVAL);
	assert_int_equal(mr_pkt_pmtu_check(&p, 1000), MR_ERR_INVAL);
}

static void test_receive(void **state)
{
	u8 raw[BUFSZ];
	struct mr_pkt p, out;
	u32 len;

	(void)state;
	t_sample_pkt(&p, MR_OP_WRITE_IMM, 200);
	len = t_write_raw(&p, VER1, p.flags, raw);
	assert_int_equal(rx_plain(raw, len, &out), 0);
	assert_int_equal(out.opcode, MR_OP_WRITE_IMM);
	assert_int_equal(out.payload_len, 200);
	assert_ptr_equal(out.payload, raw + len - 4 - 200);

	/* a payload bit flipped: decodes, fails the ICRC, @out untouched */
	raw[len - 10] ^= 0x40;
	memset(&out, 0xA5, sizeof(out));
	assert_int_equal(mr_pkt_decode(raw, len, &out), 0);
	memset(&out, 0xA5, sizeof(out));
	assert_int_equal(rx_plain(raw, len, &out), MR_ERR_ICRC);
	assert_int_equal(out.opcode, 0xA5);

	/* trimmed: no ICRC check, no payload */
	len = t_write_raw(&p, VER1, p.flags | MR_F_TRIM, raw);
	raw[len - 1] ^= 0xFF;
	assert_int_equal(rx_plain(raw, len, &out), 0);
	assert_true(out.flags & MR_F_TRIM);
	assert_null(out.payload);
	assert_int_equal(out.payload_len, 0);

	/* decode errors come first, under their own names */
	len = t_write_raw(&p, VER1, p.flags, raw);
	assert_int_equal(rx_plain(raw, 3, &out), MR_ERR_TRUNC);
	len = t_write_raw(&p, 0x20, p.flags, raw);
	assert_int_equal(rx_plain(raw, len, &out), MR_ERR_VERSION);
}

/*
 * MR-TRIM-1, MR-TRIM-2: a switch that cuts a packet to a fixed length and
 * re-marks its DSCP, without parsing MetaRoCE or setting TRIM. Marked and
 * failing its ICRC, the packet is trimmed: flags get TRIM, no payload,
 * LAST and the payload bytes are not checked. Marked and whole, it is an
 * ordinary packet. Unmarked (or detection off, or another DSCP), the cut
 * packet is malformed or an ICRC drop as before (MR-MAL-2).
 */
static void test_receive_trim_dscp(void **state)
{
	u8 raw[BUFSZ];
	struct mr_pkt p, out;
	u32 len, hl;

	(void)state;
	/* the last packet of a message, cut 20 bytes into its payload */
	t_sample_pkt(&p, MR_OP_WRITE_IMM, 200);
	len = t_write_raw(&p, VER1, p.flags, raw);
	hl = mr_pkt_hdr_len(MR_OP_WRITE_IMM);
	assert_int_equal(hl + 4, MR_TRIM_MIN_UDP);
	memset(&out, 0xA5, sizeof(out));
	assert_int_equal(rx_marked(raw, hl + 20, &out), 0);
	assert_true(out.flags & MR_F_TRIM);
	assert_true(out.flags & MR_F_LAST);
	assert_null(out.payload);
	assert_int_equal(out.payload_len, 0);
	assert_int_equal(out.psn, p.psn);
	assert_int_equal(out.dqpn, p.dqpn);
	/* unmarked, LAST no longer matches the bytes: malformed (step 7) */
	assert_int_equal(rx_plain(raw, hl + 20, &out), MR_ERR_FLAGS);
	/* detection off, or another codepoint: the same */
	assert_int_equal(mr_pkt_receive(raw, hl + 20, MR_TRIM_DSCP_DEFAULT,
					MR_TRIM_DSCP_OFF, &out), MR_ERR_FLAGS);
	assert_int_equal(mr_pkt_receive(raw, hl + 20, 26,
					MR_TRIM_DSCP_DEFAULT, &out),
			 MR_ERR_FLAGS);
	/* the whole packet with the mark: not trimmed, payload kept */
	assert_int_equal(rx_marked(raw, len, &out), 0);
	assert_false(out.flags & MR_F_TRIM);
	assert_int_equal(out.payload_len, 200);
	/* headers + 4 bytes are the least a trimmed packet keeps */
	assert_int_equal(rx_marked(raw, hl + 4, &out), 0);
	assert_true(out.flags & MR_F_TRIM);
	assert_int_equal(rx_marked(raw, hl + 3, &out), MR_ERR_HDR_LEN);

	/* a middle packet, cut: unmarked it is an ICRC drop (step 9) */
	t_sample_pkt(&p, MR_OP_SEND, 100);
	p.flags &= ~(MR_F_FIRST | MR_F_LAST);
	p.dxh.offset = 1000;
	p.dxh.msg_len = 4000;
	len = t_write_raw(&p, VER1, p.flags, raw);
	assert_int_equal(rx_plain(raw, len - 40, &out), MR_ERR_ICRC);
	assert_int_equal(rx_marked(raw, len - 40, &out), 0);
	assert_true(out.flags & MR_F_TRIM);
	assert_int_equal(out.dxh.offset, 1000);
	/* the header rules still hold: a range beyond the message is out */
	p.dxh.msg_len = 1000;
	len = t_write_raw(&p, VER1, p.flags, raw);
	assert_int_equal(rx_marked(raw, len - 40, &out), MR_ERR_RANGE);

	/* responses and datagrams: trimmed as well (MR-REL-16) */
	t_sample_pkt(&p, MR_OP_READ_RESP, 300);
	len = t_write_raw(&p, VER1, p.flags, raw);
	assert_int_equal(rx_marked(raw, len - 100, &out), 0);
	assert_true(out.flags & MR_F_TRIM);
	t_sample_pkt(&p, MR_OP_UD_SEND_IMM, 300);
	len = t_write_raw(&p, VER1, p.flags, raw);
	assert_int_equal(rx_marked(raw, len - 100, &out), 0);
	assert_true(out.flags & MR_F_TRIM);
}

/*
 * MR-TRIM-3: a packet whose content is its headers cannot lose a payload;
 * marked and failing its ICRC it is dropped under its own name, and the
 * output is untouched. Whole, it is received.
 */
static void test_receive_trim_ctrl(void **state)
{
	static const u8 ops[] = {
		MR_OP_ACK, MR_OP_NACK, MR_OP_READ_REQ, MR_OP_ATOMIC_CS,
		MR_OP_ATOMIC_FA, MR_OP_ATOMIC_RESP, MR_OP_PROBE,
		MR_OP_PROBE_REPLY,
	};
	u8 raw[BUFSZ];
	struct mr_pkt p, out;
	unsigned int i;
	u32 len;

	(void)state;
	for (i = 0; i < sizeof(ops); i++) {
		t_sample_pkt(&p, ops[i], 0);
		len = t_write_raw(&p, VER1, p.flags, raw);
		assert_int_equal(rx_marked(raw, len, &out), 0);
		raw[len - 1] ^= 0x5A;
		memset(&out, 0xA5, sizeof(out));
		assert_int_equal(rx_marked(raw, len, &out), MR_ERR_TRIMMED);
		assert_int_equal(out.opcode, 0xA5);
		assert_int_equal(rx_plain(raw, len, &out), MR_ERR_ICRC);
	}
	assert_string_equal(mr_err_name(MR_ERR_TRIMMED), "trimmed");
}

/* Which side of a QP each opcode is for (MR-MAL-2 step 10). */
static void test_rx_role(void **state)
{
	static const struct {
		u8 op;
		enum mr_rx_role role;
	} want[] = {
		{ MR_OP_SEND, MR_RX_REQUEST },
		{ MR_OP_SEND_INV, MR_RX_REQUEST },
		{ MR_OP_WRITE, MR_RX_REQUEST },
		{ MR_OP_WRITE_IMM, MR_RX_REQUEST },
		{ MR_OP_READ_REQ, MR_RX_REQUEST },
		{ MR_OP_ATOMIC_CS, MR_RX_REQUEST },
		{ MR_OP_ATOMIC_FA, MR_RX_REQUEST },
		{ MR_OP_UD_SEND, MR_RX_UD },
		{ MR_OP_UD_SEND_IMM, MR_RX_UD },
		{ MR_OP_PROBE, MR_RX_PROBE },
		{ MR_OP_ACK, MR_RX_RESPONSE },
		{ MR_OP_NACK, MR_RX_RESPONSE },
		{ MR_OP_READ_RESP, MR_RX_RESPONSE },
		{ MR_OP_ATOMIC_RESP, MR_RX_RESPONSE },
		{ MR_OP_PROBE_REPLY, MR_RX_RESPONSE },
		{ MR_OP_HELLO, MR_RX_HELLO },
		{ MR_OP_UC_SEND, MR_RX_UC },
		{ MR_OP_UC_SEND_IMM, MR_RX_UC },
		{ MR_OP_UC_WRITE, MR_RX_UC },
		{ MR_OP_UC_WRITE_IMM, MR_RX_UC },
	};
	struct mr_pkt p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.opcode = want[i].op;
		if (mr_pkt_role(&p) != want[i].role)
			fail_msg("opcode 0x%02x: role %d, want %d", want[i].op,
				 (int)mr_pkt_role(&p), (int)want[i].role);
	}
}

/*
 * Mutate valid packets at random: decode returns 0 or a defined error,
 * leaves @out alone on error, and anything accepted re-encodes to the same
 * bytes (reserved flag bits aside, which decode clears).
 */
static void test_mutation_consistency(void **state)
{
	u64 seed = 12345;
	u32 iter, accepted = 0;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		u8 op = t_opcodes[t_rand_below(&seed, MR_ARRAY_SIZE(t_opcodes))];
		const struct mr_op_desc *d = mr_op_desc(op);
		u32 plen = (d->attrs & MR_OPA_PAYLOAD) ?
			   t_rand_below(&seed, 64) : 0;
		u8 raw[BUFSZ], re[BUFSZ];
		struct mr_pkt p, out;
		u32 len, n, k;
		int err, rl;

		t_sample_pkt(&p, op, plen);
		len = t_write_raw(&p, VER1, p.flags, raw);
		n = 1 + t_rand_below(&seed, 3);
		for (k = 0; k < n; k++) {
			u32 pos = t_rand_below(&seed, len);

			raw[pos] ^= (u8)(1U << t_rand_below(&seed, 8));
		}
		if (t_rand_below(&seed, 4) == 0)
			len = t_rand_below(&seed, len + 1);
		err = decode_exact(raw, len, &out);
		if (err)
			continue;
		accepted++;
		out.payload = raw + out.hdr_len;
		rl = mr_pkt_encode(&out, re, sizeof(re));
		assert_int_equal(rl, (int)len);
		/* Flags: only the known bits survive. */
		raw[2] = 0;
		raw[3] &= MR_F_KNOWN;
		/* ATOMIC_FA: compare is ignored and sent as zero (MR-HDR-14). */
		if (op == MR_OP_ATOMIC_FA)
			memset(raw + MR_MBH_LEN + MR_DXH_LEN + 20, 0, 8);
		/* HELLO: unassigned hflags and word 3 are ignored (MR-VER-9). */
		if (op == MR_OP_HELLO) {
			raw[MR_MBH_LEN + 2] = 0;
			raw[MR_MBH_LEN + 3] &= MR_HLF_KNOWN;
			memset(raw + MR_MBH_LEN + 12, 0, 4);
		}
		assert_memory_equal(re, raw, len - MR_ICRC_LEN);
	}
	/* Mutations of field values must sometimes still be valid. */
	assert_true(accepted > 100);
}

/* MR-HDR-14: ATOMIC_FA's compare is sent as zero and ignored on receipt. */
/*
 * The default UDP destination port (MR-ENC-11): 4794, the value requested
 * from IANA. Never 4791, RoCEv2's, nor 4793, UET's (MR-VER-8); not a VXLAN
 * port (4789, 4790); below the range of MetaRoCE's own source ports
 * (MR-ENC-2), so no source port can be it.
 */
static void test_udp_port_default(void **state)
{
	static const unsigned int excluded[] = { 4789, 4790, 4791, 4793 };
	unsigned int i, e;

	(void)state;
	assert_int_equal(MR_UDP_PORT, 4794);
	for (i = 0; i < MR_ARRAY_SIZE(excluded); i++)
		assert_int_not_equal(MR_UDP_PORT, excluded[i]);
	assert_true(MR_UDP_PORT >= 1024 && MR_UDP_PORT < 49152);
	for (e = 0; e <= MR_ENTROPY_MASK; e++)
		assert_int_not_equal(MR_ENTROPY_BASE | e, MR_UDP_PORT);
}

/*
 * The registries of the IANA section against the codec (MR-IANA-1,
 * MR-IANA-2): the codec knows exactly the assigned opcodes, each in the
 * range MR-VER-5 gives its class and none in 0x00 or the Experimental
 * Use range; the encoder takes exactly the assigned NACK reasons
 * (MR-REL-5) and flag bits (MR-HDR-3, MR-VER-2), and writes the assigned
 * version (MR-VER-1).
 */
static void test_registries(void **state)
{
	enum { RQ, RS, PC };	/* MR-VER-5's classes */
	static const struct { u8 op, cls; } reg[] = {
		{ MR_OP_SEND, RQ }, { MR_OP_SEND_IMM, RQ },
		{ MR_OP_SEND_INV, RQ }, { MR_OP_WRITE, RQ },
		{ MR_OP_WRITE_IMM, RQ }, { MR_OP_READ_REQ, RQ },
		{ MR_OP_ATOMIC_CS, RQ }, { MR_OP_ATOMIC_FA, RQ },
		{ MR_OP_UD_SEND, RQ }, { MR_OP_UD_SEND_IMM, RQ },
		{ MR_OP_ACK, RS }, { MR_OP_NACK, RS },
		{ MR_OP_READ_RESP, RS }, { MR_OP_ATOMIC_RESP, RS },
		{ MR_OP_PROBE, PC }, { MR_OP_PROBE_REPLY, PC },
		{ MR_OP_HELLO, PC },
		{ MR_OP_UC_SEND, RQ }, { MR_OP_UC_SEND_IMM, RQ },
		{ MR_OP_UC_WRITE, RQ }, { MR_OP_UC_WRITE_IMM, RQ },
	};
	static const u8 lo[] = { 0x01, 0x20, 0x30 }, hi[] = { 0x1F, 0x2F, 0x3F };
	const struct mr_op_desc *d;
	u16 flags = 0;
	u8 raw[BUFSZ];
	struct mr_pkt p;
	unsigned int op, i, n = 0, r;
	int err;

	(void)state;
	for (op = 0; op < 256; op++) {
		d = mr_op_desc((u8)op);
		for (i = 0; i < MR_ARRAY_SIZE(reg); i++)
			if (reg[i].op == op)
				break;
		if (i == MR_ARRAY_SIZE(reg)) {
			if (d)
				fail_msg("opcode 0x%02x known but not registered", op);
			continue;
		}
		if (!d)
			fail_msg("registered opcode 0x%02x unknown", op);
		n++;
		flags |= d->flags_ok;
		assert_true(op >= lo[reg[i].cls] && op <= hi[reg[i].cls]);
		/*
		 * Requests consume PSNs; path control has no headers but
		 * HELLO's HLH (MR-HDR-27).
		 */
		if (reg[i].cls != RQ)
			assert_false(d->attrs & MR_OPA_REQ);
		if (reg[i].cls == PC && op != MR_OP_HELLO)
			assert_int_equal(d->hdrs, 0);
	}
	assert_int_equal(n, MR_ARRAY_SIZE(reg));
	assert_int_equal(flags, MR_F_KNOWN);
	assert_int_equal(MR_F_KNOWN, 0x007F);

	for (r = 0; r < 256; r++) {
		t_sample_pkt(&p, MR_OP_NACK, 0);
		p.nkh.reason = (u8)r;
		p.nkh.rnr_timer = 0;
		err = mr_pkt_encode_hdr(&p, raw, sizeof(raw));
		if (r >= 1 && r <= 7)	/* MR-REL-5's values, 7 since v1.1 */
			assert_int_equal(err, MR_MBH_LEN + MR_AKH_LEN + MR_NKH_LEN);
		else
			assert_int_equal(err, MR_ERR_FIELD);
	}
	assert_int_equal(MR_VERSION, 1);
	t_sample_pkt(&p, MR_OP_PROBE, 0);
	assert_true(mr_pkt_encode_hdr(&p, raw, sizeof(raw)) > 0);
	assert_int_equal(raw[0], MR_VERSION << 4);
}

static void test_fetch_add_compare(void **state)
{
	u8 buf[BUFSZ];
	struct mr_pkt p, out;
	int n, i;

	(void)state;
	t_sample_pkt(&p, MR_OP_ATOMIC_FA, 0);
	p.axh.compare = 0x1122334455667788ULL;
	n = mr_pkt_encode(&p, buf, sizeof(buf));
	assert_true(n > 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(buf[MR_MBH_LEN + MR_DXH_LEN + 20 + i], 0);
	buf[MR_MBH_LEN + MR_DXH_LEN + 27] = 0x5a;
	mr_icrc_put(buf, (u32)n - MR_ICRC_LEN);
	assert_int_equal(mr_pkt_decode(buf, (u32)n, &out), 0);
	assert_int_equal(out.axh.compare, 0);
	assert_int_equal(out.axh.swap_add, p.axh.swap_add);
	/* ATOMIC_CS keeps its compare value both ways */
	t_sample_pkt(&p, MR_OP_ATOMIC_CS, 0);
	p.axh.compare = 0x1122334455667788ULL;
	n = mr_pkt_encode(&p, buf, sizeof(buf));
	assert_int_equal(mr_pkt_decode(buf, (u32)n, &out), 0);
	assert_int_equal(out.axh.compare, p.axh.compare);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_lengths),
		cmocka_unit_test(test_op_attr_sets),
		cmocka_unit_test(test_roundtrip_all_opcodes),
		cmocka_unit_test(test_golden_write),
		cmocka_unit_test(test_spec_example_packet),
		cmocka_unit_test(test_truncate_every_length),
		cmocka_unit_test(test_bad_version),
		cmocka_unit_test(test_reserved_bits),
		cmocka_unit_test(test_reserved_flags_ignored),
		cmocka_unit_test(test_bad_opcode),
		cmocka_unit_test(test_flags_not_allowed),
		cmocka_unit_test(test_first_last_rules),
		cmocka_unit_test(test_payload_rules),
		cmocka_unit_test(test_field_rules),
		cmocka_unit_test(test_encode_nospace_and_inval),
		cmocka_unit_test(test_encode_in_place),
		cmocka_unit_test(test_err_names),
		cmocka_unit_test(test_crc32c_vectors),
		cmocka_unit_test(test_icrc_bitflip),
		cmocka_unit_test(test_receive),
		cmocka_unit_test(test_receive_trim_dscp),
		cmocka_unit_test(test_receive_trim_ctrl),
		cmocka_unit_test(test_pmtu_check),
		cmocka_unit_test(test_rx_role),
		cmocka_unit_test(test_mutation_consistency),
		cmocka_unit_test(test_fetch_add_compare),
		cmocka_unit_test(test_udp_port_default),
		cmocka_unit_test(test_registries),
	};

	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
