/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE v1 wire format: constants, on-wire header layouts, the decoded
 * packet, the codec and the ICRC (Documentation/metaroce/spec.rst).
 *
 * Packet: Ethernet / IPv4|IPv6 / UDP / MBH / extension headers / payload /
 * ICRC(4). Every header field is big-endian; the ICRC is stored
 * little-endian. Which extension headers follow the MBH is fixed per
 * opcode (one table in wire.c drives decode and encode); they always
 * appear in the canonical order of enum mr_hdr_bit.
 */
#ifndef MR_PROTO_WIRE_H
#define MR_PROTO_WIRE_H

#include "compat.h"
#include "psn.h"

/* ---- Encapsulation (MR-ENC-1, MR-VER-1) ---- */

#define MR_VERSION		1
#define MR_UDP_PORT		4794	/* default UDP dst port (MR-ENC-11) */
#define MR_ENTROPY_BASE		0xC000	/* UDP source port = base | entropy */
#define MR_ENTROPY_MASK		0x3FFF	/* 14 bits of per-packet entropy */
#define MR_DSCP_DEFAULT		26	/* AF31 */

/* ---- Packet trimming (MR-TRIM-1, MR-TRIM-2) ---- */

/*
 * DSCP a trimming switch re-marks a cut packet with, by default: 6 is
 * unassigned in the standards pool and used by no common QoS profile.
 */
#define MR_TRIM_DSCP_DEFAULT	6
#define MR_TRIM_DSCP_OFF	64	/* no DSCP marks a trimmed packet */
#define MR_DSCP_UNKNOWN		0xFF	/* the caller cannot read the DSCP */
/* UDP payload a trimmed data packet keeps at least: WRITE_IMM + 4. */
#define MR_TRIM_MIN_UDP		60

/* ---- Reliability constants (MR-WIN-1, MR-REL-1) ---- */

#define MR_WINDOW		256	/* max outstanding PSNs per QP */
#define MR_SACK_BITS		256	/* == MR_WINDOW */
#define MR_SACK_WORDS		(MR_SACK_BITS / 64)
#define MR_MAX_PATHS		64	/* MBH.path must be < this */
#define MR_MAX_MSG_LEN		0x80000000U	/* 2^31, as in IB */
#define MR_CREDIT_UNLIMITED	0xFFFFFFFFU	/* AKH.credit: no limit */
#define MR_RNR_TIMER_MAX	31	/* IB RNR timer encoding is 5 bits */
#define MR_ATOMIC_LEN		8	/* atomics operate on 64 bits */
#define MR_QPN_MASK		0x00FFFFFFU	/* QPNs are 24 bits */
#define MR_PMTU_MIN		256	/* the smallest PMTU (MR-ENC-12) */

/* ---- Header sizes (MR-HDR-1) ---- */

#define MR_MBH_LEN		20
#define MR_DXH_LEN		16
#define MR_RXH_LEN		16
#define MR_IMM_LEN		4
#define MR_IETH_LEN		4
#define MR_AXH_LEN		28
#define MR_ATKH_LEN		8
#define MR_DETH_LEN		8
#define MR_AKH_LEN		52
#define MR_NKH_LEN		8
#define MR_HLH_LEN		16	/* HELLO header, spec revision 1.1 */
#define MR_ICRC_LEN		4
/* Largest MBH + extension headers of any opcode (NACK: MBH AKH NKH). */
#define MR_MAX_HDR_LEN		(MR_MBH_LEN + MR_AKH_LEN + MR_NKH_LEN)

/* ---- Opcodes (MR-HDR-2) ---- */

enum mr_opcode {
	/* Requests: sequenced, one PSN per packet. */
	MR_OP_SEND		= 0x01,	/* MBH DXH payload */
	MR_OP_SEND_IMM		= 0x02,	/* MBH DXH IMM payload */
	MR_OP_SEND_INV		= 0x03,	/* MBH DXH IETH payload */
	MR_OP_WRITE		= 0x04,	/* MBH DXH RXH payload */
	MR_OP_WRITE_IMM		= 0x05,	/* MBH DXH RXH IMM payload */
	MR_OP_READ_REQ		= 0x06,	/* MBH DXH RXH */
	MR_OP_ATOMIC_CS		= 0x07,	/* MBH DXH AXH */
	MR_OP_ATOMIC_FA		= 0x08,	/* MBH DXH AXH */
	/* Unreliable datagram: single packet, not sequenced, no ACK. */
	MR_OP_UD_SEND		= 0x09,	/* MBH DETH payload */
	MR_OP_UD_SEND_IMM	= 0x0A,	/* MBH DETH IMM payload */
	/*
	 * Unreliable connected (MR-UC-2): one PSN per packet, sent once,
	 * never acknowledged; self-describing like the RC requests.
	 */
	MR_OP_UC_SEND		= 0x0B,	/* MBH DXH payload */
	MR_OP_UC_SEND_IMM	= 0x0C,	/* MBH DXH IMM payload */
	MR_OP_UC_WRITE		= 0x0D,	/* MBH DXH RXH payload */
	MR_OP_UC_WRITE_IMM	= 0x0E,	/* MBH DXH RXH IMM payload */
	/* Responses / control. */
	MR_OP_ACK		= 0x20,	/* MBH AKH, MBH.psn = 0 */
	MR_OP_NACK		= 0x21,	/* MBH AKH NKH, MBH.psn = 0 */
	MR_OP_READ_RESP		= 0x22,	/* MBH DXH payload */
	MR_OP_ATOMIC_RESP	= 0x23,	/* MBH DXH ATKH */
	MR_OP_PROBE		= 0x30,	/* MBH */
	MR_OP_PROBE_REPLY	= 0x31,	/* MBH */
	MR_OP_HELLO		= 0x32,	/* MBH HLH, MBH.psn = 0 (rev 1.1) */
};

#define MR_OP_TABLE_SIZE	0x33	/* opcodes are < this */

/* ---- MBH.flags (MR-HDR-3) ---- */

#define MR_F_ACKREQ	0x0001	/* ack immediately */
#define MR_F_SE		0x0002	/* solicited event */
#define MR_F_FIRST	0x0004	/* first packet of a message */
#define MR_F_LAST	0x0008	/* last packet of a message */
#define MR_F_RETX	0x0010	/* retransmission */
#define MR_F_ECE	0x0020	/* ECN echo (ACK/NACK) */
#define MR_F_TRIM	0x0040	/* payload cut by a trimming switch */
/*
 * Bits 7-15 are reserved: senders send 0 (the encoder refuses them),
 * receivers ignore them (the decoder clears them), MR-VER-2.
 */
#define MR_F_KNOWN	0x007F

/* ---- NKH.reason (MR-REL-5) ---- */

enum mr_nack_reason {
	MR_NACK_TRIMMED		= 1,
	MR_NACK_SEQ_ERR		= 2,	/* PSN beyond the receive window */
	MR_NACK_RNR		= 3,	/* receiver not ready, see rnr_timer */
	MR_NACK_REMOTE_ACCESS	= 4,
	MR_NACK_INVALID_REQ	= 5,
	MR_NACK_REMOTE_OP	= 6,
	/*
	 * v1.1: the responder lacks a transient resource for the request at
	 * nack_psn (not received); resend it after the delay rnr_timer
	 * encodes (MR-REL-34).
	 */
	MR_NACK_RESOURCE	= 7,
};

#define MR_NACK_REASON_MAX	MR_NACK_RESOURCE

/* ---- Error codes ----
 *
 * Every decode/validate/state function returns 0 or one of these
 * (negative). One code per failure class so that callers can keep one
 * drop counter per code: counter index = -err, MR_ERR_NUM counters.
 */
enum mr_err {
	MR_OK			= 0,
	MR_ERR_TRUNC		= -1,	/* shorter than MBH + ICRC */
	MR_ERR_VERSION		= -2,	/* MBH version != 1 */
	MR_ERR_RSVD		= -3,	/* a reserved bit/field is not 0 */
	MR_ERR_OPCODE		= -4,	/* unknown opcode */
	MR_ERR_HDR_LEN		= -5,	/* shorter than the opcode's headers + ICRC */
	MR_ERR_FLAGS		= -6,	/* flag not allowed / FIRST,LAST wrong */
	MR_ERR_PAYLOAD		= -7,	/* payload where none allowed, or empty */
	MR_ERR_RANGE		= -8,	/* offset/length beyond msg_len, overflow */
	MR_ERR_ALIGN		= -9,	/* atomic VA not 8-byte aligned */
	MR_ERR_FIELD		= -10,	/* a field has a value it may not have */
	MR_ERR_ICRC		= -11,	/* ICRC mismatch */
	MR_ERR_NOSPACE		= -12,	/* encoder: buffer too small */
	MR_ERR_INVAL		= -13,	/* bad argument from the caller */
	MR_ERR_PSN		= -14,	/* PSN not acceptable for this operation */
	MR_ERR_MSN_OLD		= -15,	/* msn already completed */
	MR_ERR_MSN_RANGE	= -16,	/* msn beyond the tracked range */
	MR_ERR_MSG_MISMATCH	= -17,	/* msg_len/opcode/... differ for a msn */
	MR_ERR_ACK_RANGE	= -18,	/* ACK/NACK names PSNs never sent */
	MR_ERR_ACK_AGE		= -19,	/* ACK/NACK ts_echo future or too old */
	MR_ERR_TRIMMED		= -20,	/* trimmed, of an opcode without payload */
	MR_ERR_PMTU		= -21,	/* not cut at the QP's PMTU (MR-PLACE-9) */
};

#define MR_ERR_NUM		22	/* counters needed: index -err */

/* Short stable name of an error code ("trunc", "icrc", ...), or "?". */
const char *mr_err_name(int err);

/* ---- On-wire headers (MR-HDR-1), big-endian, no padding ---- */

struct mr_wire_mbh {
	u8	ver_rsvd;	/* version << 4 | rsvd(4) = 0 */
	u8	opcode;
	__be16	flags;
	__be32	path_dqpn;	/* path(8) << 24 | dest QPN(24) */
	__be32	psn;		/* rsvd(8) = 0 | PSN(24) */
	__be32	sqpn;		/* rsvd(8) = 0 | src QPN(24) */
	__be32	ts;		/* sender clock, microseconds, wraps */
} __packed;

/* Data / self-description header. */
struct mr_wire_dxh {
	__be32	msn;		/* request message sequence number */
	__be32	offset;		/* byte offset of this payload in the message */
	__be32	msg_len;	/* total message length */
	__be32	ssn;		/* receive WQE index (SEND*, WRITE_IMM), else 0 */
} __packed;

/* RDMA extended header: VA of the message start, placement at va+offset. */
struct mr_wire_rxh {
	__be64	va;
	__be32	rkey;
	__be32	rsvd;		/* 0 */
} __packed;

struct mr_wire_imm {
	__be32	imm;
} __packed;

/* Invalidate extended header: rkey to invalidate. */
struct mr_wire_ieth {
	__be32	rkey;
} __packed;

/* Atomic extended header. */
struct mr_wire_axh {
	__be64	va;
	__be32	rkey;
	__be64	swap_add;
	__be64	compare;
} __packed;

/* Atomic response: original value. */
struct mr_wire_atkh {
	__be64	orig;
} __packed;

/* Datagram extended header. */
struct mr_wire_deth {
	__be32	qkey;
	__be32	src_qpn;	/* rsvd(8) = 0 | src QPN(24) */
} __packed;

/*
 * ACK header. SACK: 4 big-endian 64-bit words; bit i of the 256-bit map is
 * bit (i % 64) of word (i / 64) and means PSN cum_psn + i was received.
 * Bit 0 is always 0 (cum_psn is by definition not yet received).
 */
struct mr_wire_akh {
	__be32	cum_psn;	/* rsvd(8) = 0 | next expected PSN(24) */
	__be32	msn;		/* completed request messages */
	__be32	ts_echo;	/* MBH.ts of the packet that triggered the ACK */
	__be16	ce_count;	/* CE-marked packets since the previous ACK */
	__be16	pkt_count;	/* packets seen since the previous ACK */
	__be32	credit;		/* admission grant in packets */
	__be64	sack[MR_SACK_WORDS];
} __packed;

/* NACK header. */
struct mr_wire_nkh {
	u8	reason;		/* enum mr_nack_reason */
	u8	rnr_timer;	/* IB encoding, RNR only, else 0 */
	__be16	rsvd;		/* 0 */
	__be32	nack_psn;	/* rsvd(8) = 0 | PSN(24) */
} __packed;

/*
 * HELLO header (MR-VER-9): the sender's spec revision, capability bitmap
 * (MR-VER-11) and responder limits. Words 0 bits 16..31 above SEEN and
 * word 3 are reserved: sent as zero, ignored on receipt (a later
 * revision, which the rev fields name, may assign them).
 */
struct mr_wire_hlh {
	u8	rev_major;	/* 1 */
	u8	rev_minor;	/* >= 1: HELLO exists from revision 1.1 */
	__be16	hflags;		/* MR_HLF_* */
	__be32	caps;		/* MR_CAP_* */
	__be32	max_read_range;	/* bytes, MR-REL-31, >= 65536 */
	__be32	rsvd;		/* 0, ignored */
} __packed;

MR_STATIC_ASSERT(sizeof(struct mr_wire_mbh) == MR_MBH_LEN, "MBH size");
MR_STATIC_ASSERT(sizeof(struct mr_wire_dxh) == MR_DXH_LEN, "DXH size");
MR_STATIC_ASSERT(sizeof(struct mr_wire_rxh) == MR_RXH_LEN, "RXH size");
MR_STATIC_ASSERT(sizeof(struct mr_wire_imm) == MR_IMM_LEN, "IMM size");
MR_STATIC_ASSERT(sizeof(struct mr_wire_ieth) == MR_IETH_LEN, "IETH size");
MR_STATIC_ASSERT(sizeof(struct mr_wire_axh) == MR_AXH_LEN, "AXH size");
MR_STATIC_ASSERT(sizeof(struct mr_wire_atkh) == MR_ATKH_LEN, "ATKH size");
MR_STATIC_ASSERT(sizeof(struct mr_wire_deth) == MR_DETH_LEN, "DETH size");
MR_STATIC_ASSERT(sizeof(struct mr_wire_akh) == MR_AKH_LEN, "AKH size");
MR_STATIC_ASSERT(sizeof(struct mr_wire_nkh) == MR_NKH_LEN, "NKH size");
MR_STATIC_ASSERT(sizeof(struct mr_wire_hlh) == MR_HLH_LEN, "HLH size");

/* ---- Per-opcode layout table ---- */

/* Extension headers, in the canonical order they appear on the wire. */
enum mr_hdr_bit {
	MR_HDR_DETH	= 1 << 0,
	MR_HDR_DXH	= 1 << 1,
	MR_HDR_RXH	= 1 << 2,
	MR_HDR_AXH	= 1 << 3,
	MR_HDR_IETH	= 1 << 4,
	MR_HDR_IMM	= 1 << 5,
	MR_HDR_AKH	= 1 << 6,
	MR_HDR_NKH	= 1 << 7,
	MR_HDR_ATKH	= 1 << 8,
	MR_HDR_HLH	= 1 << 9,
};

/* Opcode attributes. */
enum mr_op_attr {
	MR_OPA_REQ	= 1 << 0,	/* sequenced request: consumes a PSN */
	MR_OPA_PAYLOAD	= 1 << 1,	/* may carry payload */
	MR_OPA_MULTI	= 1 << 2,	/* message may span packets */
	MR_OPA_SINGLE	= 1 << 3,	/* one-packet message: FIRST|LAST set */
	MR_OPA_PSN0	= 1 << 4,	/* MBH.psn unused, must be 0 */
	MR_OPA_SSN	= 1 << 5,	/* DXH.ssn meaningful (else must be 0) */
	MR_OPA_ATOMIC	= 1 << 6,	/* DXH range 0/8 (request or response) */
	MR_OPA_CTRL	= 1 << 7,	/* ACK/NACK/PROBE: not part of a message */
	/*
	 * A request answered by response packets (READ_RESP, ATOMIC_RESP)
	 * rather than an ACK alone; counted against max_rd_atomic
	 * (MR-VERBS-15).
	 */
	MR_OPA_ANSWERED	= 1 << 8,
	/* Unreliable connected data (MR-UC-2): a UC QP's, never an RC's. */
	MR_OPA_UC	= 1 << 9,
};

struct mr_op_desc {
	u16	hdrs;		/* enum mr_hdr_bit set */
	u16	hdr_len;	/* MBH + extension headers, bytes */
	u16	flags_ok;	/* MR_F_* a packet of this opcode may carry */
	u16	attrs;		/* enum mr_op_attr set */
};

/* Layout of @opcode, or NULL if the opcode is unknown. */
const struct mr_op_desc *mr_op_desc(u8 opcode);

/* Does @opcode (a known one) have every attribute of @attrs? */
static inline bool mr_op_has(u8 opcode, u16 attrs)
{
	const struct mr_op_desc *d = mr_op_desc(opcode);

	return d && (d->attrs & attrs) == attrs;
}

/* ---- Decoded packet (host byte order) ---- */

struct mr_dxh {
	u32	msn;
	u32	offset;
	u32	msg_len;
	u32	ssn;
};

struct mr_rxh {
	u64	va;
	u32	rkey;
};

struct mr_axh {
	u64	va;
	u32	rkey;
	u64	swap_add;
	u64	compare;
};

struct mr_deth {
	u32	qkey;
	u32	src_qpn;
};

struct mr_akh {
	u32	cum_psn;
	u32	msn;
	u32	ts_echo;
	u16	ce_count;
	u16	pkt_count;
	u32	credit;
	u64	sack[MR_SACK_WORDS];	/* bit i: word i / 64, bit i % 64 */
};

struct mr_nkh {
	u8	reason;
	u8	rnr_timer;
	u32	nack_psn;
};

/*
 * Capability bits of HLH.caps (MR-VER-11). A bit a node sends is a
 * promise about what it accepts and does; a node uses a capability
 * towards its peer only if both set it (the common set, MR-VER-13).
 */
#define MR_CAP_CORE		0x00000001U	/* Core level, always set */
#define MR_CAP_MULTIPATH	0x00000002U	/* Multipath level: PROBEs answered */
#define MR_CAP_CC		0x00000004U	/* CC level */
/* What this implementation can announce (MR-CONF-1: Full). */
#define MR_CAP_IMPL		(MR_CAP_CORE | MR_CAP_MULTIPATH | MR_CAP_CC)

/* HLH.hflags: the sender has seen a HELLO of this QP's peer (MR-VER-12). */
#define MR_HLF_SEEN		0x0001
/* Revision 1.1 defines no other flag; the rest is ignored (MR-VER-9). */
#define MR_HLF_KNOWN		0x0001
/* Smallest HLH.max_read_range: the version 1.0 value (MR-REL-31). */
#define MR_HELLO_READ_RANGE_MIN	65536U

struct mr_hlh {
	u8	rev_major;
	u8	rev_minor;
	u16	hflags;		/* MR_HLF_* (decode clears unknown bits) */
	u32	caps;		/* MR_CAP_* (unknown bits kept: ANDed away) */
	u32	max_read_range;
};

/*
 * A decoded packet. Fields of extension headers the opcode does not carry
 * are 0 after decode and ignored by the encoder. For the encoder, fill
 * opcode, the MBH fields, the headers of the opcode, payload_len (and
 * payload for mr_pkt_encode()); hdrs/hdr_len are outputs of decode only.
 */
struct mr_pkt {
	u8		opcode;
	u8		path;		/* < MR_MAX_PATHS */
	u16		flags;		/* MR_F_* (decode clears reserved bits) */
	u16		hdrs;		/* decode: enum mr_hdr_bit present */
	u16		hdr_len;	/* decode: bytes before the payload */
	u32		dqpn;
	u32		psn;
	u32		sqpn;
	u32		ts;
	struct mr_dxh	dxh;
	struct mr_rxh	rxh;
	u32		imm;
	u32		inv_rkey;	/* IETH */
	struct mr_axh	axh;
	u64		atomic_orig;	/* ATKH */
	struct mr_deth	deth;
	struct mr_akh	akh;
	struct mr_nkh	nkh;
	struct mr_hlh	hlh;
	const u8	*payload;	/* decode: points into the buffer */
	u32		payload_len;
};

/* True if bit @i (0..255) of a host-order SACK map is set. */
static inline bool mr_sack_test(const u64 *sack, unsigned int i)
{
	return (sack[i / 64] >> (i % 64)) & 1;
}

/* ---- Codec ----
 *
 * Validation rules, in the order of MR-MAL-2 steps 2-8 (decode drops, encode
 * refuses; first failing rule wins; error names are the drop counters):
 *  1. len >= 1, else TRUNC; MBH version == 1, else VERSION; len >= MBH +
 *     ICRC, else TRUNC; MBH low nibble of byte 0 == 0, else RSVD.
 *  2. opcode in the table, else OPCODE; len >= headers + ICRC, else HDR_LEN.
 *  3. Reserved bits zero (MR-VER-3), else RSVD: top byte of MBH psn and
 *     sqpn words, RXH.rsvd, DETH top byte, AKH.cum_psn top byte, NKH.rsvd,
 *     NKH.nack_psn top byte. (QPNs and PSNs are 24 bits.)
 *  4. path < 64 (MR-MAL-6), else FIELD. Flags outside the opcode's
 *     flags_ok, else FLAGS. ACK/NACK: MBH.psn == 0, else FIELD.
 *  5. No payload for opcodes without MR_OPA_PAYLOAD (MR-HDR-21), else
 *     PAYLOAD.
 *  6. DXH (MR-HDR-4, MR-HDR-10, MR-HDR-24, MR-HDR-25): msg_len <= 2^31,
 *     else RANGE; ssn == 0 unless SEND* or WRITE_IMM, else FIELD.
 *     Multi-packet opcodes (SEND*, WRITE*, READ_RESP): offset + payload <=
 *     msg_len, else RANGE; empty payload only if msg_len == 0 (or TRIM),
 *     else PAYLOAD; FIRST set iff offset == 0, and (unless TRIM) LAST set
 *     iff offset + payload == msg_len, else FLAGS.
 *     WRITE*: va + msg_len must not exceed 2^64, else RANGE.
 *     READ_REQ: requests bytes [offset, offset + msg_len) of the message at
 *     RXH.va; offset + msg_len <= 2^31 and va + offset + msg_len <= 2^64,
 *     else RANGE. READ_RESP.msg_len is the end of the range served.
 *     ATOMIC_*, ATOMIC_RESP: offset == 0 and msg_len == 8, else FIELD;
 *     requests: AXH.va % 8 == 0, else ALIGN.
 *  7. Single-packet opcodes (READ_REQ, ATOMIC_*, ATOMIC_RESP, UD_*): FIRST
 *     and LAST both set, else FLAGS (MR-HDR-23).
 *  8. AKH: SACK bit 0 == 0 (MR-HDR-18), else FIELD. NKH: reason in 1..7,
 *     rnr_timer <= 31 and == 0 unless reason is RNR or RESOURCE, else
 *     FIELD. DETH src_qpn == MBH src QPN, else FIELD. HLH (MR-VER-9):
 *     rev_major == 1, rev_minor >= 1, caps has MR_CAP_CORE, 65536 <=
 *     max_read_range <= 2^31, else FIELD; reserved hflags bits and word 3
 *     are ignored.
 *  Flags allowed (MR-HDR-22): ACKREQ and RETX on requests (RETX also on
 *  READ_RESP, ATOMIC_RESP); SE on SEND*, WRITE_IMM, UD_*; FIRST/LAST on
 *  all but ACK/NACK/PROBE*, HELLO; ECE on ACK/NACK; TRIM on opcodes that carry
 *  payload. Reserved flag bits 7-15 are ignored (cleared) by decode
 *  (MR-VER-2).
 *  The ICRC (MR-MAL-2 step 9) is mr_icrc_check(); callers skip it for
 *  TRIM packets (MR-ICRC-5), which still need headers + 4 bytes here.
 */

/*
 * Decode and fully validate one packet: @buf[0..len) is everything from
 * the MBH to the end of the ICRC trailer (the ICRC itself is checked by
 * mr_icrc_check()). Returns 0 and fills @out, or a negative enum mr_err and
 * leaves @out untouched. Never reads outside [buf, buf + len).
 * (MR-HDR-1, MR-VER-1, MR-MAL-1, MR-MAL-2)
 */
int mr_pkt_decode(const u8 *buf, u32 len, struct mr_pkt *out);

/*
 * MR-MAL-2 steps 2..9, the checks that depend on the packet alone, as the
 * one pure function every receiver runs: mr_pkt_decode(), then the ICRC,
 * except on a trimmed packet (MR-ICRC-5, MR-TRIM-2), whose payload is
 * gone: @out then has MR_F_TRIM set and carries no payload (payload NULL,
 * payload_len 0), so a trimmed request can only be NACKed and a trimmed
 * response only mark a range missing (MR-TRIM-3).
 *
 * A packet is trimmed if its MBH has TRIM set (the v1 form) or if it
 * arrived with @dscp == @trim_dscp and its ICRC does not verify (the
 * v1.1 form: a switch cut it to a fixed length and re-marked it without
 * parsing MetaRoCE; its LAST flag and payload bytes are not checked). A
 * marked packet whose ICRC verifies is whole and received as such.
 * @dscp is the received IP DSCP (MR_DSCP_UNKNOWN if the caller cannot
 * read it), @trim_dscp the device's trimmed codepoint (MR_TRIM_DSCP_OFF:
 * none).
 *
 * Returns 0 and fills @out, or a negative enum mr_err (MR_ERR_ICRC for a
 * bad ICRC, MR_ERR_TRIMMED for a trimmed packet of an opcode without
 * payload; a receiver counts each under its own name).
 */
int mr_pkt_receive(const u8 *buf, u32 len, u8 dscp, u8 trim_dscp,
		   struct mr_pkt *out);

/*
 * The rules the receiver's PMTU @pmtu (bytes, a power of two) sets for
 * a request or READ_RESP @p that passed mr_pkt_receive(), as the
 * receiver of either runs them once it knows the QP (MR-MAL-2 step 11):
 * a payload of at most @pmtu bytes, else MR_ERR_PAYLOAD (MR-MAL-4); a
 * message cut at a PMTU of the sender, at most @pmtu (MR-HDR-4,
 * MR-HDR-24, MR-PLACE-9): a SEND*, WRITE* or READ_RESP packet without
 * LAST carries a power of two of at least MR_PMTU_MIN bytes at an offset
 * that is a multiple of it; every other packet of those and a READ_REQ
 * starts at a multiple of MR_PMTU_MIN; else MR_ERR_PMTU. A trimmed
 * packet has lost its payload: only its offset is checked. Other opcodes
 * pass. 0 or a negative enum mr_err.
 */
int mr_pkt_pmtu_check(const struct mr_pkt *p, u32 pmtu);

/* Which side of a connection a packet that passed mr_pkt_receive() is for. */
enum mr_rx_role {
	MR_RX_UD,		/* UD_SEND*: a UD or GSI QP (MR-UD-1) */
	MR_RX_REQUEST,		/* a sequenced request: the responder */
	MR_RX_PROBE,		/* PROBE: answered at once (MR-MP-10) */
	MR_RX_RESPONSE,		/* ACK, NACK, READ/ATOMIC_RESP, PROBE_REPLY */
	MR_RX_HELLO,		/* HELLO: connection setup (MR-VER-12) */
	MR_RX_UC,		/* UC_*: a UC QP's receiver (MR-UC-2) */
};

/*
 * The role of @p, from its opcode alone (MR-MAL-2 step 10 checks it
 * against the destination QP's type).
 */
enum mr_rx_role mr_pkt_role(const struct mr_pkt *p);

/*
 * The field rules of decode applied to a host-order packet (what the
 * encoders check first): 0 or a negative enum mr_err.
 */
int mr_pkt_validate(const struct mr_pkt *p);

/* Header bytes (MBH + extension headers) of @opcode, 0 if unknown. */
u32 mr_pkt_hdr_len(u8 opcode);

/*
 * Validate @p (with p->payload_len) and write its MBH + extension headers
 * to @buf. Returns the header length or a negative enum mr_err
 * (MR_ERR_NOSPACE if @buflen is too small; nothing is written on error).
 */
int mr_pkt_encode_hdr(const struct mr_pkt *p, u8 *buf, u32 buflen);

/*
 * Whole packet: headers, p->payload_len bytes from p->payload (may alias
 * @buf + header length), ICRC. Returns the total length or a negative
 * enum mr_err; nothing is written on error.
 */
int mr_pkt_encode(const struct mr_pkt *p, u8 *buf, u32 buflen);

/* ---- ICRC (MR-ICRC-1, MR-ICRC-2, MR-ICRC-3) ---- */

/*
 * CRC32C (Castagnoli, reflected, init ~0, xorout ~0) over @buf[0..len):
 * the ICRC of a packet whose MBH..payload is @buf[0..len).
 */
u32 mr_icrc_compute(const u8 *buf, u32 len);

/* Store the ICRC of @buf[0..len) little-endian at @buf + len. */
void mr_icrc_put(u8 *buf, u32 len);

/*
 * @buf[0..len) is a whole packet MBH..ICRC: 0 if the trailing 4 bytes are
 * the ICRC of what precedes them, MR_ERR_ICRC if not, MR_ERR_TRUNC if
 * len < 4.
 */
int mr_icrc_check(const u8 *buf, u32 len);

#endif /* MR_PROTO_WIRE_H */
