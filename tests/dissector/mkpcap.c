// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writes the capture the Wireshark dissector (userspace/wireshark/
 * metaroce.lua) is checked against: one pcapng file of Ethernet / IPv4 or
 * IPv6 / UDP / MetaRoCE frames, every MetaRoCE packet produced by the
 * reference codec (kernel/proto/wire.c) and, for the malformed ones,
 * patched afterwards.
 *
 *   mkpcap OUT.pcapng
 *
 * Deterministic: fixed addresses, ports, timestamps and payloads, so the
 * same codec gives the same bytes and tests/dissector/check.sh can compare
 * the file with the committed one. Each frame carries a comment (pcapng
 * opt_comment, tshark's frame.comment) saying what it is and what the
 * codec says about it; the program checks that claim with mr_pkt_decode()
 * and mr_icrc_check() and fails if the codec disagrees, so the capture
 * cannot silently drift from what it says it holds.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

#define BUF_MAX		2048
#define T0		1700000000ULL	/* 2023-11-14T22:13:20Z, seconds */

/* What the codec must say about a frame's MetaRoCE bytes. */
enum verdict {
	V_OK,		/* decodes, ICRC good */
	V_BAD_ICRC,	/* decodes, ICRC wrong */
	V_TRIMMED,	/* decodes with TRIM, ICRC not checked */
	V_DECODE_ERR,	/* decode fails with .err */
};

struct frame {
	int		ipv6;
	u16		dport;		/* 0: MR_UDP_PORT */
	u16		sport;		/* 0: 0xC000 | entropy of the frame */
	enum verdict	v;
	int		err;		/* V_DECODE_ERR: expected enum mr_err */
};

static FILE *out;
static const char *out_path;
static unsigned int nframe;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mkpcap: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* ---- pcapng, written little-endian whatever the host ---- */

static void put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, out) != n)
		die("write %s failed", out_path);
}

static void put16(u16 v)
{
	u8 b[2] = { v & 0xff, v >> 8 };

	put(b, 2);
}

static void put32(u32 v)
{
	u8 b[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };

	put(b, 4);
}

static void pad4(size_t n)
{
	static const u8 zero[4];

	put(zero, (4 - n % 4) % 4);
}

static size_t round4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static void pcapng_start(void)
{
	/* Section header block, no options. */
	put32(0x0A0D0D0A);
	put32(28);
	put32(0x1A2B3C4D);
	put16(1);
	put16(0);
	put32(0xFFFFFFFF);	/* section length unknown: -1 */
	put32(0xFFFFFFFF);
	put32(28);
	/* Interface description block: Ethernet, no snap limit, us. */
	put32(1);
	put32(20);
	put16(1);		/* LINKTYPE_ETHERNET */
	put16(0);
	put32(0);
	put32(20);
}

static void pcapng_packet(const u8 *f, u32 len, const char *comment)
{
	size_t clen = strlen(comment);
	u32 total = 28 + round4(len) + 4 + round4(clen) + 4 + 4;
	u64 ts = (T0 + nframe) * 1000000ULL;

	put32(6);		/* enhanced packet block */
	put32(total);
	put32(0);		/* interface 0 */
	put32(ts >> 32);
	put32(ts & 0xffffffff);
	put32(len);
	put32(len);
	put(f, len);
	pad4(len);
	put16(1);		/* opt_comment */
	put16(clen);
	put(comment, clen);
	pad4(clen);
	put16(0);		/* opt_endofopt */
	put16(0);
	put32(total);
}

/* ---- Ethernet / IP / UDP ---- */

static void w16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void w32(u8 *p, u32 v)
{
	w16(p, v >> 16);
	w16(p + 2, v);
}

/* One's complement sum of @n bytes, folded later by csum_fold(). */
static u32 csum_add(u32 sum, const u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (u32)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (u32)p[n - 1] << 8;
	return sum;
}

static u16 csum_fold(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

static const u8 mac_dst[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const u8 mac_src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const u8 ip4_src[4] = { 192, 0, 2, 1 };	/* RFC 5737 */
static const u8 ip4_dst[4] = { 192, 0, 2, 2 };
static const u8 ip6_src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const u8 ip6_dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

#define DSCP_ECT0	(MR_DSCP_DEFAULT << 2 | 0x2)	/* AF31, ECT(0) */

/*
 * Wrap the MetaRoCE bytes @mr[0..len) as the spec's encapsulation says
 * and write the frame with @comment. Over IPv4 the UDP checksum is zero,
 * as the module sends it; over IPv6 it is computed.
 */
static void emit(const struct frame *fr, const u8 *mr, u32 len,
		 const char *comment)
{
	u8 f[BUF_MAX + 80];
	u32 l3 = fr->ipv6 ? 40 : 20, off = 14 + l3, flen;
	u16 entropy = (nframe * 0x1357 + 0x0abc) & MR_ENTROPY_MASK;
	u16 sport = fr->sport ? fr->sport : MR_ENTROPY_BASE | entropy;
	u16 dport = fr->dport ? fr->dport : MR_UDP_PORT;
	u8 *udp;

	if (len > BUF_MAX)
		die("frame %u too long", nframe + 1);
	memset(f, 0, sizeof(f));
	memcpy(f, mac_dst, 6);
	memcpy(f + 6, mac_src, 6);
	w16(f + 12, fr->ipv6 ? 0x86DD : 0x0800);
	udp = f + off;
	w16(udp, sport);
	w16(udp + 2, dport);
	w16(udp + 4, 8 + len);
	memcpy(udp + 8, mr, len);
	if (fr->ipv6) {
		u8 *ip = f + 14;
		u32 sum;

		/* Flow label = entropy, as the spec's ENC section allows. */
		w32(ip, 6U << 28 | (u32)DSCP_ECT0 << 20 | entropy);
		w16(ip + 4, 8 + len);
		ip[6] = 17;
		ip[7] = 64;
		memcpy(ip + 8, ip6_src, 16);
		memcpy(ip + 24, ip6_dst, 16);
		sum = csum_add(0, ip + 8, 32);
		sum += 17 + 8 + len;
		sum = csum_add(sum, udp, 8 + len);
		w16(udp + 6, csum_fold(sum) ? csum_fold(sum) : 0xffff);
	} else {
		u8 *ip = f + 14;

		ip[0] = 0x45;
		ip[1] = DSCP_ECT0;
		w16(ip + 2, 20 + 8 + len);
		w16(ip + 4, nframe + 1);	/* identification */
		w16(ip + 6, 0x4000);		/* DF, no fragment */
		ip[8] = 64;
		ip[9] = 17;
		memcpy(ip + 12, ip4_src, 4);
		memcpy(ip + 16, ip4_dst, 4);
		w16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	}
	flen = off + 8 + len;
	if (flen < 60)
		flen = 60;	/* Ethernet padding, outside the UDP length */
	pcapng_packet(f, flen, comment);
	nframe++;
}

/* ---- MetaRoCE packets ---- */

static const char *err_name(int err)
{
	return err ? mr_err_name(err) : "ok";
}

/*
 * Check what the codec says about @mr[0..len) against @fr->v, then write
 * the frame with the comment "@what (codec: ...)".
 */
static void frame(const struct frame *fr, const u8 *mr, u32 len,
		  const char *what)
{
	char comment[256];
	struct mr_pkt p;
	int dec = mr_pkt_decode(mr, len, &p);
	int icrc = dec ? dec : mr_icrc_check(mr, len);
	const char *codec = NULL;

	switch (fr->v) {
	case V_OK:
		if (!dec && !icrc)
			codec = "ok";
		break;
	case V_BAD_ICRC:
		if (!dec && icrc == MR_ERR_ICRC)
			codec = "icrc";
		break;
	case V_TRIMMED:
		if (!dec && (p.flags & MR_F_TRIM))
			codec = "ok, TRIM: ICRC not checked";
		break;
	case V_DECODE_ERR:
		if (dec == fr->err)
			codec = err_name(dec);
		break;
	}
	if (!codec)
		die("frame %u (%s): codec says decode %s, icrc %s", nframe + 1,
		    what, err_name(dec), err_name(icrc));
	snprintf(comment, sizeof(comment), "%s (codec: %s)", what, codec);
	emit(fr, mr, len, comment);
}

static const struct frame FR_OK = { .v = V_OK };

static u8 pattern[BUF_MAX];

/* Encode @p, payload from the pattern; the encoder validates it. */
static u32 enc(struct mr_pkt *p, u8 *b)
{
	int n;

	p->payload = p->payload_len ? pattern : NULL;
	n = mr_pkt_encode(p, b, BUF_MAX);
	if (n < 0)
		die("encode of opcode 0x%02x: %s", p->opcode, mr_err_name(n));
	return n;
}

/* Encode and write a valid packet. */
static void good(struct mr_pkt *p, const char *what)
{
	u8 b[BUF_MAX];
	u32 n = enc(p, b);

	frame(&FR_OK, b, n, what);
}

static void base(struct mr_pkt *p, u8 op, u16 flags, u32 psn)
{
	memset(p, 0, sizeof(*p));
	p->opcode = op;
	p->flags = flags;
	p->path = 5;
	p->dqpn = 0x00a1b2;
	p->sqpn = 0x00c3d4;
	p->psn = psn;
	p->ts = 0x10000000 + psn;
}

#define FL	(MR_F_FIRST | MR_F_LAST)

/* The "Example packet (informative)" of spec.rst, field by field. */
static void spec_example(struct mr_pkt *p)
{
	static const char data[] = "MetaRoCE";

	memset(p, 0, sizeof(*p));
	p->opcode = MR_OP_SEND;
	p->flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
	p->path = 3;
	p->dqpn = 0x000123;
	p->psn = 0xABCDEF;
	p->sqpn = 0x000456;
	p->ts = 0x00012345;
	p->dxh.msn = 7;
	p->dxh.ssn = 2;
	p->dxh.msg_len = 8;
	p->payload = (const u8 *)data;
	p->payload_len = 8;
}

static void one_of_each_opcode(void)
{
	struct mr_pkt p;
	u8 b[BUF_MAX];
	u32 n;

	spec_example(&p);
	n = mr_pkt_encode(&p, b, sizeof(b));
	if (n != 48 || mr_icrc_compute(b, 44) != 0xD5CED7EF)
		die("the spec's example packet does not encode as the spec says");
	frame(&FR_OK, b, n, "SEND: the spec's example packet");

	base(&p, MR_OP_SEND_IMM, FL | MR_F_SE | MR_F_ACKREQ, 0x000010);
	p.dxh.msn = 11;
	p.dxh.ssn = 4;
	p.dxh.msg_len = 16;
	p.payload_len = 16;
	p.imm = 0xdeadbeef;
	good(&p, "SEND_IMM, single packet, SE");

	base(&p, MR_OP_SEND_INV, MR_F_LAST, 0x000011);
	p.dxh.msn = 12;
	p.dxh.ssn = 5;
	p.dxh.offset = 1024;
	p.dxh.msg_len = 1040;
	p.payload_len = 16;
	p.inv_rkey = 0x00c0ffee;
	good(&p, "SEND_INV, last packet of two");

	base(&p, MR_OP_WRITE, MR_F_RETX | MR_F_ACKREQ, 0x000012);
	p.dxh.msn = 13;
	p.dxh.offset = 1024;
	p.dxh.msg_len = 3072;
	p.payload_len = 24;
	p.rxh.va = 0x00007f1234560000ULL;
	p.rxh.rkey = 0x00012345;
	good(&p, "WRITE, middle packet, retransmission");

	base(&p, MR_OP_WRITE_IMM, MR_F_FIRST, 0x000013);
	p.dxh.msn = 14;
	p.dxh.ssn = 6;
	p.dxh.msg_len = 64;
	p.payload_len = 32;
	p.rxh.va = 0xffffffff00001000ULL;
	p.rxh.rkey = 0x8000abcd;
	p.imm = 0x01020304;
	good(&p, "WRITE_IMM, first packet of two");

	base(&p, MR_OP_READ_REQ, FL | MR_F_ACKREQ, 0x000014);
	p.dxh.msn = 15;
	p.dxh.msg_len = 4096;
	p.rxh.va = 0x0000555500000000ULL;
	p.rxh.rkey = 0x00000777;
	good(&p, "READ_REQ for 4096 bytes");

	base(&p, MR_OP_ATOMIC_CS, FL, 0x000015);
	p.dxh.msn = 16;
	p.dxh.msg_len = MR_ATOMIC_LEN;
	p.axh.va = 0x0000555500000008ULL;
	p.axh.rkey = 0x00000777;
	p.axh.swap_add = 0x1122334455667788ULL;
	p.axh.compare = 0x8877665544332211ULL;
	good(&p, "ATOMIC_CS");

	base(&p, MR_OP_ATOMIC_FA, FL, 0x000016);
	p.dxh.msn = 17;
	p.dxh.msg_len = MR_ATOMIC_LEN;
	p.axh.va = 0x0000555500000010ULL;
	p.axh.rkey = 0x00000777;
	p.axh.swap_add = 1;
	good(&p, "ATOMIC_FA");

	base(&p, MR_OP_UD_SEND, FL | MR_F_SE, 0x000001);
	p.dqpn = 1;
	p.deth.qkey = 0x80010000;
	p.deth.src_qpn = p.sqpn;
	p.payload_len = 20;
	good(&p, "UD_SEND to the GSI QP");

	base(&p, MR_OP_UD_SEND_IMM, FL, 0x000002);
	p.deth.qkey = 0x11111111;
	p.deth.src_qpn = p.sqpn;
	p.imm = 0xcafef00d;
	good(&p, "UD_SEND_IMM, empty payload");

	base(&p, MR_OP_ACK, MR_F_ECE, 0);
	p.akh.cum_psn = 0x000017;
	p.akh.msn = 18;
	p.akh.ts_echo = 0x10000016;
	p.akh.ce_count = 1;
	p.akh.pkt_count = 3;
	p.akh.credit = MR_CREDIT_UNLIMITED;
	good(&p, "ACK, ECE, no SACK, unlimited credit");

	base(&p, MR_OP_NACK, 0, 0);
	p.akh.cum_psn = 0x000017;
	p.akh.msn = 18;
	p.akh.ts_echo = 0x10000016;
	p.akh.credit = 64;
	p.nkh.reason = MR_NACK_SEQ_ERR;
	p.nkh.nack_psn = 0x000120;
	good(&p, "NACK SEQ_ERR");

	base(&p, MR_OP_READ_RESP, MR_F_RETX, 0x000014);
	p.dxh.msn = 15;
	p.dxh.offset = 2048;
	p.dxh.msg_len = 4096;
	p.payload_len = 16;
	good(&p, "READ_RESP, middle piece, re-sent");

	base(&p, MR_OP_ATOMIC_RESP, FL, 0x000015);
	p.dxh.msn = 16;
	p.dxh.msg_len = MR_ATOMIC_LEN;
	p.atomic_orig = 0x8877665544332211ULL;
	good(&p, "ATOMIC_RESP");

	base(&p, MR_OP_PROBE, 0, 0x00beef);
	good(&p, "PROBE");

	base(&p, MR_OP_PROBE_REPLY, 0, 0x00beef);
	p.path = 7;
	good(&p, "PROBE_REPLY");

	/* Revision 1.1 connection setup (MR-VER-9, MR-HDR-27). */
	base(&p, MR_OP_HELLO, 0, 0);
	p.hlh.rev_major = 1;
	p.hlh.rev_minor = 1;
	p.hlh.caps = MR_CAP_CORE | MR_CAP_MULTIPATH | MR_CAP_CC;
	p.hlh.max_read_range = MR_HELLO_READ_RANGE_MIN;
	good(&p, "HELLO");
	p.hlh.hflags = MR_HLF_SEEN;
	p.hlh.caps = MR_CAP_CORE;
	good(&p, "HELLO answer, Core only");

	base(&p, MR_OP_SEND, FL, 0x000020);
	p.dxh.msn = 20;
	p.dxh.ssn = 9;
	p.dxh.msg_len = 12;
	p.payload_len = 12;
	n = enc(&p, b);
	frame(&(struct frame){ .ipv6 = 1, .v = V_OK }, b, n, "SEND over IPv6");
}

static void nacks_and_sacks(void)
{
	static const unsigned int sack_bits[] = {
		1, 2, 3, 15, 16, 17, 63, 64, 65, 128, 200, 255,
	};
	static const char * const reasons[] = {
		[MR_NACK_TRIMMED] = "TRIMMED",
		[MR_NACK_SEQ_ERR] = "SEQ_ERR",
		[MR_NACK_RNR] = "RNR",
		[MR_NACK_REMOTE_ACCESS] = "REMOTE_ACCESS",
		[MR_NACK_INVALID_REQ] = "INVALID_REQ",
		[MR_NACK_REMOTE_OP] = "REMOTE_OP",
		[MR_NACK_RESOURCE] = "RESOURCE",
	};
	char what[80];
	struct mr_pkt p;
	unsigned int r, i;

	/* MR-REL-5, MR-HDR-19: every reason, RESOURCE with its delay. */
	for (r = MR_NACK_TRIMMED; r <= MR_NACK_REASON_MAX; r++) {
		base(&p, MR_OP_NACK, 0, 0);
		p.akh.cum_psn = 0x000100;
		p.akh.msn = 100;
		p.akh.ts_echo = 0x20000000 + r;
		p.akh.pkt_count = 1;
		p.akh.credit = 32;
		p.nkh.reason = r;
		p.nkh.rnr_timer = r == MR_NACK_RNR || r == MR_NACK_RESOURCE ?
				  14 : 0;
		p.nkh.nack_psn = 0x000100 + (r == MR_NACK_SEQ_ERR ? 300 : 0);
		snprintf(what, sizeof(what), "NACK %s", reasons[r]);
		good(&p, what);
	}

	/* cum_psn 2^24 - 16: bits 16 and up name PSNs after the wrap. */
	base(&p, MR_OP_ACK, 0, 0);
	p.akh.cum_psn = 0xFFFFF0;
	p.akh.msn = 0xffffffff;
	p.akh.ts_echo = 0x30000000;
	p.akh.ce_count = 0;
	p.akh.pkt_count = 12;
	p.akh.credit = 256;
	for (i = 0; i < sizeof(sack_bits) / sizeof(sack_bits[0]); i++)
		p.akh.sack[sack_bits[i] / 64] |= 1ULL << (sack_bits[i] % 64);
	good(&p, "ACK, SACK across the PSN wrap: bits 1-3 15-17 63-65 128 200 255");
}

static void icrc_and_trim(void)
{
	u8 b[BUF_MAX], t[BUF_MAX];
	struct mr_pkt p;
	u32 n, hlen;

	base(&p, MR_OP_WRITE, MR_F_FIRST, 0x000030);
	p.dxh.msn = 30;
	p.dxh.msg_len = 2048;
	p.payload_len = 32;
	p.rxh.va = 0x10000;
	p.rxh.rkey = 0x42;
	n = enc(&p, b);
	b[n - 1] ^= 0x80;
	frame(&(struct frame){ .v = V_BAD_ICRC }, b, n,
	      "WRITE with a corrupted ICRC");

	/*
	 * A trimming switch keeps the headers and the last 4 bytes of the
	 * original packet (the original's ICRC), and sets TRIM.
	 */
	base(&p, MR_OP_SEND, MR_F_RETX, 0x000031);
	p.dxh.msn = 31;
	p.dxh.ssn = 10;
	p.dxh.offset = 1024;
	p.dxh.msg_len = 4096;
	p.payload_len = 1024;
	n = enc(&p, b);
	p.flags |= MR_F_TRIM;
	p.payload_len = 0;
	hlen = enc(&p, t) - MR_ICRC_LEN;
	memcpy(t + hlen, b + n - MR_ICRC_LEN, MR_ICRC_LEN);
	frame(&(struct frame){ .v = V_TRIMMED }, t, hlen + MR_ICRC_LEN,
	      "SEND trimmed by a switch (TRIM, payload cut)");

	/* Responses can be trimmed too; the requester asks again. */
	base(&p, MR_OP_READ_RESP, MR_F_LAST | MR_F_TRIM, 0x000014);
	p.dxh.msn = 15;
	p.dxh.offset = 3072;
	p.dxh.msg_len = 4096;
	n = enc(&p, t);
	memset(t + n - MR_ICRC_LEN, 0x5a, MR_ICRC_LEN);
	frame(&(struct frame){ .v = V_TRIMMED }, t, n,
	      "READ_RESP trimmed, any 4 bytes in the ICRC position");
}

/* Write @b[0..n) as a malformed frame the codec refuses with @err. */
static void bad(u8 *b, u32 n, int err, int fix_icrc, const char *what)
{
	if (fix_icrc)
		mr_icrc_put(b, n - MR_ICRC_LEN);
	frame(&(struct frame){ .v = V_DECODE_ERR, .err = err }, b, n, what);
}

static void malformed(void)
{
	u8 b[BUF_MAX];
	struct mr_pkt p;
	u32 n;

	b[0] = MR_VERSION << 4;
	b[1] = MR_OP_SEND;
	bad(b, 2, MR_ERR_TRUNC, 0, "2 bytes only");

	base(&p, MR_OP_PROBE, 0, 0x000001);
	n = enc(&p, b);
	bad(b, MR_MBH_LEN, MR_ERR_TRUNC, 0, "MBH without ICRC");

	n = enc(&p, b);
	b[0] = 2 << 4;
	bad(b, n, MR_ERR_VERSION, 1, "version 2");

	n = enc(&p, b);
	b[0] |= 0x01;
	bad(b, n, MR_ERR_RSVD, 1, "reserved low nibble of byte 0 set");

	n = enc(&p, b);
	b[1] = 0x40;
	bad(b, n, MR_ERR_OPCODE, 1, "unassigned opcode 0x40");

	base(&p, MR_OP_WRITE, FL, 0x000040);
	p.dxh.msn = 40;
	p.dxh.msg_len = 16;
	p.payload_len = 16;
	p.rxh.va = 0x20000;
	p.rxh.rkey = 0x43;
	n = enc(&p, b);
	/* MBH, DXH and half of the RXH. */
	bad(b, MR_MBH_LEN + MR_DXH_LEN + 8, MR_ERR_HDR_LEN, 0,
	    "WRITE cut inside the RXH");

	n = enc(&p, b);
	b[4] = MR_MAX_PATHS;
	bad(b, n, MR_ERR_FIELD, 1, "path 64");

	n = enc(&p, b);
	b[MR_MBH_LEN + MR_DXH_LEN + 12 + 3] = 1;	/* RXH.rsvd */
	bad(b, n, MR_ERR_RSVD, 1, "RXH reserved word not zero");

	base(&p, MR_OP_ACK, 0, 0);
	p.akh.cum_psn = 0x000200;
	p.akh.credit = 8;
	n = enc(&p, b);
	b[3] |= MR_F_FIRST;
	bad(b, n, MR_ERR_FLAGS, 1, "ACK with FIRST (flag not allowed)");

	n = enc(&p, b);
	b[MR_MBH_LEN + 27] |= 0x01;	/* SACK word 0, bit 0 */
	bad(b, n, MR_ERR_FIELD, 1, "ACK with SACK bit 0 set");

	base(&p, MR_OP_NACK, 0, 0);
	p.akh.cum_psn = 0x000200;
	p.nkh.reason = MR_NACK_TRIMMED;
	p.nkh.nack_psn = 0x000200;
	n = enc(&p, b);
	b[MR_MBH_LEN + MR_AKH_LEN] = 8;		/* NKH.reason */
	bad(b, n, MR_ERR_FIELD, 1, "NACK reason 8 (reserved)");

	base(&p, MR_OP_PROBE, 0, 0x000002);
	n = enc(&p, b);
	memset(b + MR_MBH_LEN, 0xab, 4);
	bad(b, n + 4, MR_ERR_PAYLOAD, 1, "PROBE with 4 bytes of payload");

	base(&p, MR_OP_UD_SEND, FL, 0x000003);
	p.deth.qkey = 0x22222222;
	p.deth.src_qpn = p.sqpn;
	p.payload_len = 4;
	n = enc(&p, b);
	b[MR_MBH_LEN + 7] ^= 0x01;	/* DETH source QPN */
	bad(b, n, MR_ERR_FIELD, 1, "UD_SEND whose DETH source QPN differs");
}

/*
 * Frames that exercise the port rules, not the codec (MR-ENC-1): the last
 * one goes to 4793, pre-1.1's default and UET's port, which is not
 * MetaRoCE's default (MR-VER-8, MR-ENC-11) and so MetaRoCE only with
 * Decode As.
 */
static void ports(void)
{
	u8 b[BUF_MAX];
	char c[96];
	struct mr_pkt p;
	u32 n;

	base(&p, MR_OP_PROBE, 0, 0x000abc);
	n = enc(&p, b);
	frame(&(struct frame){ .dport = 5000, .v = V_OK }, b, n,
	      "PROBE to UDP port 5000 (MetaRoCE only with udp_port 5000)");
	frame(&(struct frame){ .dport = 5001, .v = V_OK }, b, n,
	      "PROBE to UDP port 5001 (MetaRoCE only with Decode As)");
	snprintf(c, sizeof(c), "PROBE from port %u to 50000: not MetaRoCE (destination port only)",
		 MR_UDP_PORT);
	frame(&(struct frame){ .sport = MR_UDP_PORT, .dport = 50000,
			       .v = V_OK }, b, n, c);
	frame(&(struct frame){ .dport = 4793, .v = V_OK }, b, n,
	      "PROBE to UDP port 4793, pre-1.1 MetaRoCE and UET (MetaRoCE only with Decode As)");
}

/*
 * Revision 1.1 UC opcodes (MR-UC-2), after every other frame so that the
 * earlier frames keep their numbers: a UC_SEND_IMM cut at 256 bytes and a
 * one-packet UC_WRITE.
 */
static void uc_frames(void)
{
	struct mr_pkt p;

	base(&p, MR_OP_UC_SEND_IMM, MR_F_FIRST, 0x000100);
	p.dxh.msn = 3;
	p.dxh.msg_len = 300;
	p.imm = 0x0badcafe;
	p.payload_len = 256;
	good(&p, "UC_SEND_IMM, first of two packets");

	base(&p, MR_OP_UC_WRITE, FL, 0x000102);
	p.dxh.msn = 4;
	p.dxh.msg_len = 64;
	p.rxh.va = 0x00007f0000002000ULL;
	p.rxh.rkey = 0x00000999;
	p.payload_len = 64;
	good(&p, "UC_WRITE, one packet");
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: mkpcap OUT.pcapng\n");
		return 2;
	}
	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = (u8)(i * 7 + 1);
	out_path = argv[1];
	out = fopen(out_path, "wb");
	if (!out)
		die("cannot create %s", out_path);
	pcapng_start();
	one_of_each_opcode();
	nacks_and_sacks();
	icrc_and_trim();
	malformed();
	ports();
	uc_frames();
	if (fclose(out))
		die("write %s failed", out_path);
	printf("mkpcap: %u frames in %s\n", nframe, out_path);
	return 0;
}
