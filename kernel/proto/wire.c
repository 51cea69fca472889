// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE v1 packet codec: one opcode table drives decode, validation and
 * encode, so the two directions cannot disagree about a layout.
 *
 * Decode parses the wire into a scratch struct mr_pkt keeping the full
 * 32-bit words that hold 24-bit fields, then runs the same validator the
 * encoders run on the caller's packet: a reserved top byte on the wire is
 * the same error as an out-of-range host value. @out is written only once
 * everything passed (MR-MAL-1).
 */
#include "wire.h"
#include "crc32c.h"

#define MR_F_REQ_FLAGS	(MR_F_ACKREQ | MR_F_FIRST | MR_F_LAST | MR_F_RETX)
#define MR_F_UC_FLAGS	(MR_F_FIRST | MR_F_LAST | MR_F_TRIM)

#define MR_OP(h, f, a) {					\
	.hdrs = (h), .hdr_len = MR_HDRS_LEN(h), .flags_ok = (f),	\
	.attrs = (a),							\
}

/* Compile-time header length of an enum mr_hdr_bit set. */
#define MR_HDRS_LEN(h) (MR_MBH_LEN +					\
	(((h) & MR_HDR_DETH) ? MR_DETH_LEN : 0) +			\
	(((h) & MR_HDR_DXH) ? MR_DXH_LEN : 0) +				\
	(((h) & MR_HDR_RXH) ? MR_RXH_LEN : 0) +				\
	(((h) & MR_HDR_AXH) ? MR_AXH_LEN : 0) +				\
	(((h) & MR_HDR_IETH) ? MR_IETH_LEN : 0) +			\
	(((h) & MR_HDR_IMM) ? MR_IMM_LEN : 0) +				\
	(((h) & MR_HDR_AKH) ? MR_AKH_LEN : 0) +				\
	(((h) & MR_HDR_NKH) ? MR_NKH_LEN : 0) +				\
	(((h) & MR_HDR_ATKH) ? MR_ATKH_LEN : 0) +			\
	(((h) & MR_HDR_HLH) ? MR_HLH_LEN : 0))

/*
 * Indexed by opcode; holes (attrs == 0) are unknown opcodes. hdr_len is
 * computed from hdrs at compile time rather than written by hand, so a
 * typo cannot make decode read past a header.
 */
static const struct mr_op_desc mr_op_tab[MR_OP_TABLE_SIZE] = {
	[MR_OP_SEND] = MR_OP(MR_HDR_DXH,
			     MR_F_REQ_FLAGS | MR_F_SE | MR_F_TRIM,
			     MR_OPA_REQ | MR_OPA_PAYLOAD | MR_OPA_MULTI |
			     MR_OPA_SSN),
	[MR_OP_SEND_IMM] = MR_OP(MR_HDR_DXH | MR_HDR_IMM,
				 MR_F_REQ_FLAGS | MR_F_SE | MR_F_TRIM,
				 MR_OPA_REQ | MR_OPA_PAYLOAD | MR_OPA_MULTI |
				 MR_OPA_SSN),
	[MR_OP_SEND_INV] = MR_OP(MR_HDR_DXH | MR_HDR_IETH,
				 MR_F_REQ_FLAGS | MR_F_SE | MR_F_TRIM,
				 MR_OPA_REQ | MR_OPA_PAYLOAD | MR_OPA_MULTI |
				 MR_OPA_SSN),
	[MR_OP_WRITE] = MR_OP(MR_HDR_DXH | MR_HDR_RXH,
			      MR_F_REQ_FLAGS | MR_F_TRIM,
			      MR_OPA_REQ | MR_OPA_PAYLOAD | MR_OPA_MULTI),
	[MR_OP_WRITE_IMM] = MR_OP(MR_HDR_DXH | MR_HDR_RXH | MR_HDR_IMM,
				  MR_F_REQ_FLAGS | MR_F_SE | MR_F_TRIM,
				  MR_OPA_REQ | MR_OPA_PAYLOAD | MR_OPA_MULTI |
				  MR_OPA_SSN),
	[MR_OP_READ_REQ] = MR_OP(MR_HDR_DXH | MR_HDR_RXH,
				 MR_F_REQ_FLAGS,
				 MR_OPA_REQ | MR_OPA_SINGLE | MR_OPA_ANSWERED),
	[MR_OP_ATOMIC_CS] = MR_OP(MR_HDR_DXH | MR_HDR_AXH,
				  MR_F_REQ_FLAGS,
				  MR_OPA_REQ | MR_OPA_SINGLE | MR_OPA_ATOMIC |
				  MR_OPA_ANSWERED),
	[MR_OP_ATOMIC_FA] = MR_OP(MR_HDR_DXH | MR_HDR_AXH,
				  MR_F_REQ_FLAGS,
				  MR_OPA_REQ | MR_OPA_SINGLE | MR_OPA_ATOMIC |
				  MR_OPA_ANSWERED),
	[MR_OP_UD_SEND] = MR_OP(MR_HDR_DETH,
				MR_F_SE | MR_F_FIRST | MR_F_LAST | MR_F_TRIM,
				MR_OPA_PAYLOAD | MR_OPA_SINGLE),
	[MR_OP_UD_SEND_IMM] = MR_OP(MR_HDR_DETH | MR_HDR_IMM,
				    MR_F_SE | MR_F_FIRST | MR_F_LAST |
				    MR_F_TRIM,
				    MR_OPA_PAYLOAD | MR_OPA_SINGLE),
	/* UC (MR-UC-2): no ACKREQ, no RETX, DXH.ssn 0. */
	[MR_OP_UC_SEND] = MR_OP(MR_HDR_DXH,
				MR_F_UC_FLAGS | MR_F_SE,
				MR_OPA_UC | MR_OPA_PAYLOAD | MR_OPA_MULTI),
	[MR_OP_UC_SEND_IMM] = MR_OP(MR_HDR_DXH | MR_HDR_IMM,
				    MR_F_UC_FLAGS | MR_F_SE,
				    MR_OPA_UC | MR_OPA_PAYLOAD | MR_OPA_MULTI),
	[MR_OP_UC_WRITE] = MR_OP(MR_HDR_DXH | MR_HDR_RXH, MR_F_UC_FLAGS,
				 MR_OPA_UC | MR_OPA_PAYLOAD | MR_OPA_MULTI),
	[MR_OP_UC_WRITE_IMM] = MR_OP(MR_HDR_DXH | MR_HDR_RXH | MR_HDR_IMM,
				     MR_F_UC_FLAGS | MR_F_SE,
				     MR_OPA_UC | MR_OPA_PAYLOAD |
				     MR_OPA_MULTI),
	[MR_OP_ACK] = MR_OP(MR_HDR_AKH, MR_F_ECE,
			    MR_OPA_PSN0 | MR_OPA_CTRL),
	[MR_OP_NACK] = MR_OP(MR_HDR_AKH | MR_HDR_NKH, MR_F_ECE,
			     MR_OPA_PSN0 | MR_OPA_CTRL),
	[MR_OP_READ_RESP] = MR_OP(MR_HDR_DXH,
				  MR_F_FIRST | MR_F_LAST | MR_F_RETX |
				  MR_F_TRIM,
				  MR_OPA_PAYLOAD | MR_OPA_MULTI),
	[MR_OP_ATOMIC_RESP] = MR_OP(MR_HDR_DXH | MR_HDR_ATKH,
				    MR_F_FIRST | MR_F_LAST | MR_F_RETX,
				    MR_OPA_SINGLE | MR_OPA_ATOMIC),
	[MR_OP_PROBE] = MR_OP(0, 0, MR_OPA_CTRL),
	[MR_OP_PROBE_REPLY] = MR_OP(0, 0, MR_OPA_CTRL),
	[MR_OP_HELLO] = MR_OP(MR_HDR_HLH, 0, MR_OPA_PSN0 | MR_OPA_CTRL),
};

const struct mr_op_desc *mr_op_desc(u8 opcode)
{
	const struct mr_op_desc *d;

	if (opcode >= MR_OP_TABLE_SIZE)
		return NULL;
	d = &mr_op_tab[opcode];
	/* Holes in the table have no attributes: every opcode has some. */
	if (!d->attrs)
		return NULL;
	return d;
}

u32 mr_pkt_hdr_len(u8 opcode)
{
	const struct mr_op_desc *d = mr_op_desc(opcode);

	return d ? d->hdr_len : 0;
}
MR_KUNIT_EXPORT(mr_pkt_hdr_len);

static const char * const mr_err_names[MR_ERR_NUM] = {
	[0] = "ok",
	[-MR_ERR_TRUNC] = "trunc",
	[-MR_ERR_VERSION] = "version",
	[-MR_ERR_RSVD] = "rsvd",
	[-MR_ERR_OPCODE] = "opcode",
	[-MR_ERR_HDR_LEN] = "hdr_len",
	[-MR_ERR_FLAGS] = "flags",
	[-MR_ERR_PAYLOAD] = "payload",
	[-MR_ERR_RANGE] = "range",
	[-MR_ERR_ALIGN] = "align",
	[-MR_ERR_FIELD] = "field",
	[-MR_ERR_ICRC] = "icrc",
	[-MR_ERR_NOSPACE] = "nospace",
	[-MR_ERR_INVAL] = "inval",
	[-MR_ERR_PSN] = "psn",
	[-MR_ERR_MSN_OLD] = "msn_old",
	[-MR_ERR_MSN_RANGE] = "msn_range",
	[-MR_ERR_MSG_MISMATCH] = "msg_mismatch",
	[-MR_ERR_ACK_RANGE] = "ack_range",
	[-MR_ERR_ACK_AGE] = "ack_age",
	[-MR_ERR_TRIMMED] = "trimmed",
	[-MR_ERR_PMTU] = "pmtu",
};

const char *mr_err_name(int err)
{
	if (err > 0 || err <= -MR_ERR_NUM || !mr_err_names[-err])
		return "?";
	return mr_err_names[-err];
}

/* ---- Validation: host-order fields, shared by decode and encode ---- */

/* [va, va + len) fits the 64-bit address space (its last byte may be ~0). */
static bool mr_va_range_ok(u64 va, u64 len)
{
	return !len || va <= ~0ULL - (len - 1);
}

/* DXH rules for messages that may span packets (MR-HDR-4, MR-PLACE-1). */
static int mr_validate_multi(const struct mr_pkt *p)
{
	const struct mr_dxh *x = &p->dxh;
	u64 end = (u64)x->offset + p->payload_len;
	bool trim = p->flags & MR_F_TRIM;

	if (end > x->msg_len)
		return MR_ERR_RANGE;
	/* A packet without payload only carries a zero-length message. */
	if (!p->payload_len && x->msg_len && !trim)
		return MR_ERR_PAYLOAD;
	if (!!(p->flags & MR_F_FIRST) != (x->offset == 0))
		return MR_ERR_FLAGS;
	/* A trimmed packet lost its payload tail: LAST cannot be checked. */
	if (!trim && !!(p->flags & MR_F_LAST) != (end == x->msg_len))
		return MR_ERR_FLAGS;
	return 0;
}

static int mr_validate_dxh(const struct mr_pkt *p,
			   const struct mr_op_desc *d)
{
	const struct mr_dxh *x = &p->dxh;
	int err;

	if (x->msg_len > MR_MAX_MSG_LEN)
		return MR_ERR_RANGE;
	if (!(d->attrs & MR_OPA_SSN) && x->ssn)
		return MR_ERR_FIELD;
	if (d->attrs & MR_OPA_MULTI) {
		err = mr_validate_multi(p);
		if (err)
			return err;
	}
	if (p->opcode == MR_OP_READ_REQ) {
		/* [offset, offset + msg_len) of the message at va. */
		u64 end = (u64)x->offset + x->msg_len;

		if (end > MR_MAX_MSG_LEN || !mr_va_range_ok(p->rxh.va, end))
			return MR_ERR_RANGE;
		/* An empty range is only the whole empty READ (MR-HDR-24). */
		if (!x->msg_len && x->offset)
			return MR_ERR_RANGE;
	} else if (d->hdrs & MR_HDR_RXH) {
		/* WRITE*: the message must not wrap the address space. */
		if (!mr_va_range_ok(p->rxh.va, x->msg_len))
			return MR_ERR_RANGE;
	}
	if (d->attrs & MR_OPA_ATOMIC) {
		if (x->offset || x->msg_len != MR_ATOMIC_LEN)
			return MR_ERR_FIELD;
		/* Atomics act on naturally aligned 64-bit words. */
		if ((d->hdrs & MR_HDR_AXH) && (p->axh.va & (MR_ATOMIC_LEN - 1)))
			return MR_ERR_ALIGN;
	}
	return 0;
}

int mr_pkt_validate(const struct mr_pkt *p)
{
	const struct mr_op_desc *d;
	int err;

	if (unlikely(!p))
		return MR_ERR_INVAL;
	d = mr_op_desc(p->opcode);
	if (!d)
		return MR_ERR_OPCODE;

	/* 24-bit fields in 32-bit words: the top byte is reserved. */
	if (!mr_psn_valid(p->psn) || p->dqpn > MR_QPN_MASK ||
	    p->sqpn > MR_QPN_MASK)
		return MR_ERR_RSVD;
	if ((d->hdrs & MR_HDR_DETH) && p->deth.src_qpn > MR_QPN_MASK)
		return MR_ERR_RSVD;
	if ((d->hdrs & MR_HDR_AKH) && !mr_psn_valid(p->akh.cum_psn))
		return MR_ERR_RSVD;
	if ((d->hdrs & MR_HDR_NKH) && !mr_psn_valid(p->nkh.nack_psn))
		return MR_ERR_RSVD;

	if (p->path >= MR_MAX_PATHS)
		return MR_ERR_FIELD;
	/* Also refuses reserved bits 7-15 (decode has cleared them). */
	if (p->flags & ~d->flags_ok)
		return MR_ERR_FLAGS;
	if ((d->attrs & MR_OPA_PSN0) && p->psn)
		return MR_ERR_FIELD;
	if (!(d->attrs & MR_OPA_PAYLOAD) && p->payload_len)
		return MR_ERR_PAYLOAD;

	if (d->hdrs & MR_HDR_DXH) {
		err = mr_validate_dxh(p, d);
		if (err)
			return err;
	}
	if ((d->attrs & MR_OPA_SINGLE) &&
	    (p->flags & (MR_F_FIRST | MR_F_LAST)) != (MR_F_FIRST | MR_F_LAST))
		return MR_ERR_FLAGS;

	/* UD: the DETH repeats the source QPN; disagreement is malformed. */
	if ((d->hdrs & MR_HDR_DETH) && p->deth.src_qpn != p->sqpn)
		return MR_ERR_FIELD;
	/* SACK bit 0 stands for cum_psn, which is not received (MR-REL-2). */
	if ((d->hdrs & MR_HDR_AKH) && (p->akh.sack[0] & 1))
		return MR_ERR_FIELD;
	if (d->hdrs & MR_HDR_NKH) {
		const struct mr_nkh *n = &p->nkh;

		if (n->reason < MR_NACK_TRIMMED || n->reason > MR_NACK_REASON_MAX)
			return MR_ERR_FIELD;
		/* The delay code of RNR and RESOURCE (MR-HDR-19). */
		if (n->rnr_timer > MR_RNR_TIMER_MAX ||
		    (n->rnr_timer && n->reason != MR_NACK_RNR &&
		     n->reason != MR_NACK_RESOURCE))
			return MR_ERR_FIELD;
	}
	if (d->hdrs & MR_HDR_HLH) {
		const struct mr_hlh *h = &p->hlh;

		/* MR-VER-9: a revision that has HELLO, a Core sender. */
		if (h->rev_major != MR_VERSION || h->rev_minor < 1 ||
		    !(h->caps & MR_CAP_CORE) ||
		    h->max_read_range < MR_HELLO_READ_RANGE_MIN ||
		    h->max_read_range > MR_MAX_MSG_LEN ||
		    (h->hflags & ~MR_HLF_KNOWN))
			return MR_ERR_FIELD;
	}
	return 0;
}

/* ---- Decode ---- */

/*
 * Decode; @trim: the packet is known trimmed although its MBH may not say
 * so (MR-TRIM-2), validated as if TRIM were set.
 */
static int mr_decode(const u8 *buf, u32 len, bool trim, struct mr_pkt *out)
{
	const struct mr_op_desc *d;
	struct mr_wire_mbh mbh;
	struct mr_pkt p;
	u32 off, w;
	int err;

	if (unlikely(!out || (!buf && len)))
		return MR_ERR_INVAL;
	if (len < 1)
		return MR_ERR_TRUNC;
	/* Version first: a future version may have another MBH size. */
	if ((buf[0] >> 4) != MR_VERSION)
		return MR_ERR_VERSION;
	if (len < MR_MBH_LEN + MR_ICRC_LEN)
		return MR_ERR_TRUNC;
	memcpy(&mbh, buf, sizeof(mbh));
	if (mbh.ver_rsvd & 0x0f)
		return MR_ERR_RSVD;
	d = mr_op_desc(mbh.opcode);
	if (!d)
		return MR_ERR_OPCODE;
	if (len < (u32)d->hdr_len + MR_ICRC_LEN)
		return MR_ERR_HDR_LEN;

	/* From here on every header lies inside [buf, buf + len - ICRC). */
	memset(&p, 0, sizeof(p));
	p.opcode = mbh.opcode;
	p.flags = be16_to_cpu(mbh.flags) & MR_F_KNOWN;
	w = be32_to_cpu(mbh.path_dqpn);
	p.path = w >> 24;
	p.dqpn = w & MR_QPN_MASK;
	p.psn = be32_to_cpu(mbh.psn);
	p.sqpn = be32_to_cpu(mbh.sqpn);
	p.ts = be32_to_cpu(mbh.ts);
	off = MR_MBH_LEN;

	if (d->hdrs & MR_HDR_DETH) {
		struct mr_wire_deth h;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		p.deth.qkey = be32_to_cpu(h.qkey);
		p.deth.src_qpn = be32_to_cpu(h.src_qpn);
	}
	if (d->hdrs & MR_HDR_DXH) {
		struct mr_wire_dxh h;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		p.dxh.msn = be32_to_cpu(h.msn);
		p.dxh.offset = be32_to_cpu(h.offset);
		p.dxh.msg_len = be32_to_cpu(h.msg_len);
		p.dxh.ssn = be32_to_cpu(h.ssn);
	}
	if (d->hdrs & MR_HDR_RXH) {
		struct mr_wire_rxh h;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		if (h.rsvd)
			return MR_ERR_RSVD;
		p.rxh.va = be64_to_cpu(h.va);
		p.rxh.rkey = be32_to_cpu(h.rkey);
	}
	if (d->hdrs & MR_HDR_AXH) {
		struct mr_wire_axh h;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		p.axh.va = be64_to_cpu(h.va);
		p.axh.rkey = be32_to_cpu(h.rkey);
		p.axh.swap_add = be64_to_cpu(h.swap_add);
		/* ATOMIC_FA's compare field is ignored (MR-HDR-14). */
		p.axh.compare = p.opcode == MR_OP_ATOMIC_FA ? 0 :
				be64_to_cpu(h.compare);
	}
	if (d->hdrs & MR_HDR_IETH) {
		struct mr_wire_ieth h;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		p.inv_rkey = be32_to_cpu(h.rkey);
	}
	if (d->hdrs & MR_HDR_IMM) {
		struct mr_wire_imm h;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		p.imm = be32_to_cpu(h.imm);
	}
	if (d->hdrs & MR_HDR_AKH) {
		struct mr_wire_akh h;
		unsigned int i;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		p.akh.cum_psn = be32_to_cpu(h.cum_psn);
		p.akh.msn = be32_to_cpu(h.msn);
		p.akh.ts_echo = be32_to_cpu(h.ts_echo);
		p.akh.ce_count = be16_to_cpu(h.ce_count);
		p.akh.pkt_count = be16_to_cpu(h.pkt_count);
		p.akh.credit = be32_to_cpu(h.credit);
		for (i = 0; i < MR_SACK_WORDS; i++)
			p.akh.sack[i] = be64_to_cpu(h.sack[i]);
	}
	if (d->hdrs & MR_HDR_NKH) {
		struct mr_wire_nkh h;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		if (h.rsvd)
			return MR_ERR_RSVD;
		p.nkh.reason = h.reason;
		p.nkh.rnr_timer = h.rnr_timer;
		p.nkh.nack_psn = be32_to_cpu(h.nack_psn);
	}
	if (d->hdrs & MR_HDR_ATKH) {
		struct mr_wire_atkh h;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		p.atomic_orig = be64_to_cpu(h.orig);
	}

	if (d->hdrs & MR_HDR_HLH) {
		struct mr_wire_hlh h;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		p.hlh.rev_major = h.rev_major;
		p.hlh.rev_minor = h.rev_minor;
		/* Unassigned flags and word 3 are ignored (MR-VER-9). */
		p.hlh.hflags = be16_to_cpu(h.hflags) & MR_HLF_KNOWN;
		p.hlh.caps = be32_to_cpu(h.caps);
		p.hlh.max_read_range = be32_to_cpu(h.max_read_range);
	}

	p.hdrs = d->hdrs;
	p.hdr_len = off;
	p.payload = buf + off;
	p.payload_len = len - off - MR_ICRC_LEN;

	if (trim) {
		/*
		 * Only a payload was cut: a packet whose content is its
		 * headers cannot be used at all (MR-TRIM-3).
		 */
		if (!(d->flags_ok & MR_F_TRIM))
			return MR_ERR_TRIMMED;
		p.flags |= MR_F_TRIM;
	}
	err = mr_pkt_validate(&p);
	if (err)
		return err;
	/* memcpy: padding too, so equal packets decode to equal bytes. */
	memcpy(out, &p, sizeof(p));
	return 0;
}

int mr_pkt_decode(const u8 *buf, u32 len, struct mr_pkt *out)
{
	return mr_decode(buf, len, false, out);
}
MR_KUNIT_EXPORT(mr_pkt_decode);

int mr_pkt_receive(const u8 *buf, u32 len, u8 dscp, u8 trim_dscp,
		   struct mr_pkt *out)
{
	struct mr_pkt p;
	bool marked = trim_dscp < MR_TRIM_DSCP_OFF && dscp == trim_dscp;
	int err;

	/*
	 * A switch that trims re-marks the DSCP and cuts at a fixed length
	 * without parsing MetaRoCE (MR-TRIM-1): a marked packet is whole
	 * only if its ICRC says so; otherwise its headers are unauthenticated
	 * hints (MR-TRIM-2). Unmarked: MR-MAL-2 steps 2..9 in order.
	 */
	if (marked && len >= MR_ICRC_LEN && !mr_icrc_check(buf, len))
		marked = false;
	err = mr_decode(buf, len, marked, &p);
	if (err)
		return err;
	if (p.flags & MR_F_TRIM) {
		p.payload = NULL;
		p.payload_len = 0;
	} else if (mr_icrc_check(buf, len)) {
		return MR_ERR_ICRC;
	}
	memcpy(out, &p, sizeof(p));
	return 0;
}
MR_KUNIT_EXPORT(mr_pkt_receive);

int mr_pkt_pmtu_check(const struct mr_pkt *p, u32 pmtu)
{
	const struct mr_op_desc *d = mr_op_desc(p->opcode);

	if (!d || !pmtu || (pmtu & (pmtu - 1)))
		return MR_ERR_INVAL;
	if (!(d->attrs & MR_OPA_MULTI) && p->opcode != MR_OP_READ_REQ)
		return 0;
	if (p->payload_len > pmtu)
		return MR_ERR_PAYLOAD;
	/*
	 * A packet that is not its message's last carries one whole piece
	 * of the sender's PMTU, a power of two of at least MR_PMTU_MIN and
	 * at most ours, at a multiple of it (MR-HDR-4, MR-PLACE-9).
	 */
	if ((d->attrs & MR_OPA_MULTI) && !(p->flags & (MR_F_LAST | MR_F_TRIM))) {
		if (p->payload_len < MR_PMTU_MIN ||
		    (p->payload_len & (p->payload_len - 1)) ||
		    (p->dxh.offset & (p->payload_len - 1)))
			return MR_ERR_PMTU;
		return 0;
	}
	/* Any other piece starts on a piece of the smallest PMTU. */
	if (p->dxh.offset & (MR_PMTU_MIN - 1))
		return MR_ERR_PMTU;
	return 0;
}
MR_KUNIT_EXPORT(mr_pkt_pmtu_check);

enum mr_rx_role mr_pkt_role(const struct mr_pkt *p)
{
	const struct mr_op_desc *d = mr_op_desc(p->opcode);

	if (d->hdrs & MR_HDR_DETH)
		return MR_RX_UD;
	if (d->attrs & MR_OPA_REQ)
		return MR_RX_REQUEST;
	if (d->attrs & MR_OPA_UC)
		return MR_RX_UC;
	if (p->opcode == MR_OP_PROBE)
		return MR_RX_PROBE;
	if (p->opcode == MR_OP_HELLO)
		return MR_RX_HELLO;
	return MR_RX_RESPONSE;
}
MR_KUNIT_EXPORT(mr_pkt_role);

/* ---- Encode ---- */

/* Write the headers of a validated @p; @buf has room for d->hdr_len. */
static u32 mr_write_hdrs(const struct mr_pkt *p, const struct mr_op_desc *d,
			 u8 *buf)
{
	struct mr_wire_mbh mbh;
	u32 off;

	mbh.ver_rsvd = MR_VERSION << 4;
	mbh.opcode = p->opcode;
	mbh.flags = cpu_to_be16(p->flags);
	mbh.path_dqpn = cpu_to_be32((u32)p->path << 24 | p->dqpn);
	mbh.psn = cpu_to_be32(p->psn);
	mbh.sqpn = cpu_to_be32(p->sqpn);
	mbh.ts = cpu_to_be32(p->ts);
	memcpy(buf, &mbh, sizeof(mbh));
	off = sizeof(mbh);

	if (d->hdrs & MR_HDR_DETH) {
		struct mr_wire_deth h;

		h.qkey = cpu_to_be32(p->deth.qkey);
		h.src_qpn = cpu_to_be32(p->deth.src_qpn);
		memcpy(buf + off, &h, sizeof(h));
		off += sizeof(h);
	}
	if (d->hdrs & MR_HDR_DXH) {
		struct mr_wire_dxh h;

		h.msn = cpu_to_be32(p->dxh.msn);
		h.offset = cpu_to_be32(p->dxh.offset);
		h.msg_len = cpu_to_be32(p->dxh.msg_len);
		h.ssn = cpu_to_be32(p->dxh.ssn);
		memcpy(buf + off, &h, sizeof(h));
		off += sizeof(h);
	}
	if (d->hdrs & MR_HDR_RXH) {
		struct mr_wire_rxh h;

		h.va = cpu_to_be64(p->rxh.va);
		h.rkey = cpu_to_be32(p->rxh.rkey);
		h.rsvd = 0;
		memcpy(buf + off, &h, sizeof(h));
		off += sizeof(h);
	}
	if (d->hdrs & MR_HDR_AXH) {
		struct mr_wire_axh h;

		h.va = cpu_to_be64(p->axh.va);
		h.rkey = cpu_to_be32(p->axh.rkey);
		h.swap_add = cpu_to_be64(p->axh.swap_add);
		/* ATOMIC_FA sends compare as zero (MR-HDR-14). */
		h.compare = p->opcode == MR_OP_ATOMIC_FA ? 0 :
			    cpu_to_be64(p->axh.compare);
		memcpy(buf + off, &h, sizeof(h));
		off += sizeof(h);
	}
	if (d->hdrs & MR_HDR_IETH) {
		struct mr_wire_ieth h;

		h.rkey = cpu_to_be32(p->inv_rkey);
		memcpy(buf + off, &h, sizeof(h));
		off += sizeof(h);
	}
	if (d->hdrs & MR_HDR_IMM) {
		struct mr_wire_imm h;

		h.imm = cpu_to_be32(p->imm);
		memcpy(buf + off, &h, sizeof(h));
		off += sizeof(h);
	}
	if (d->hdrs & MR_HDR_AKH) {
		struct mr_wire_akh h;
		unsigned int i;

		h.cum_psn = cpu_to_be32(p->akh.cum_psn);
		h.msn = cpu_to_be32(p->akh.msn);
		h.ts_echo = cpu_to_be32(p->akh.ts_echo);
		h.ce_count = cpu_to_be16(p->akh.ce_count);
		h.pkt_count = cpu_to_be16(p->akh.pkt_count);
		h.credit = cpu_to_be32(p->akh.credit);
		for (i = 0; i < MR_SACK_WORDS; i++)
			h.sack[i] = cpu_to_be64(p->akh.sack[i]);
		memcpy(buf + off, &h, sizeof(h));
		off += sizeof(h);
	}
	if (d->hdrs & MR_HDR_NKH) {
		struct mr_wire_nkh h;

		h.reason = p->nkh.reason;
		h.rnr_timer = p->nkh.rnr_timer;
		h.rsvd = 0;
		h.nack_psn = cpu_to_be32(p->nkh.nack_psn);
		memcpy(buf + off, &h, sizeof(h));
		off += sizeof(h);
	}
	if (d->hdrs & MR_HDR_ATKH) {
		struct mr_wire_atkh h;

		h.orig = cpu_to_be64(p->atomic_orig);
		memcpy(buf + off, &h, sizeof(h));
		off += sizeof(h);
	}
	if (d->hdrs & MR_HDR_HLH) {
		struct mr_wire_hlh h;

		h.rev_major = p->hlh.rev_major;
		h.rev_minor = p->hlh.rev_minor;
		h.hflags = cpu_to_be16(p->hlh.hflags);
		h.caps = cpu_to_be32(p->hlh.caps);
		h.max_read_range = cpu_to_be32(p->hlh.max_read_range);
		h.rsvd = 0;
		memcpy(buf + off, &h, sizeof(h));
		off += sizeof(h);
	}
	return off;
}

int mr_pkt_encode_hdr(const struct mr_pkt *p, u8 *buf, u32 buflen)
{
	const struct mr_op_desc *d;
	int err;

	err = mr_pkt_validate(p);
	if (err)
		return err;
	if (unlikely(!buf))
		return MR_ERR_INVAL;
	d = mr_op_desc(p->opcode);
	if (buflen < d->hdr_len)
		return MR_ERR_NOSPACE;
	return (int)mr_write_hdrs(p, d, buf);
}

int mr_pkt_encode(const struct mr_pkt *p, u8 *buf, u32 buflen)
{
	const struct mr_op_desc *d;
	u64 total;
	u32 hlen;
	int err;

	err = mr_pkt_validate(p);
	if (err)
		return err;
	if (unlikely(!buf || (p->payload_len && !p->payload)))
		return MR_ERR_INVAL;
	d = mr_op_desc(p->opcode);
	hlen = d->hdr_len;
	total = (u64)hlen + p->payload_len + MR_ICRC_LEN;
	if (total > buflen)
		return MR_ERR_NOSPACE;
	/* The return value must be able to carry the length. */
	if (total > 0x7fffffff)
		return MR_ERR_INVAL;

	/* Payload first: it may alias the header area of @buf. */
	if (p->payload_len && p->payload != buf + hlen)
		memmove(buf + hlen, p->payload, p->payload_len);
	mr_write_hdrs(p, d, buf);
	mr_icrc_put(buf, hlen + p->payload_len);
	return (int)total;
}
MR_KUNIT_EXPORT(mr_pkt_encode);

/* ---- ICRC (MR-ICRC-1) ---- */

u32 mr_icrc_compute(const u8 *buf, u32 len)
{
	return mr_crc32c(buf, len);
}

void mr_icrc_put(u8 *buf, u32 len)
{
	u32 crc = mr_crc32c(buf, len);

	/* Little-endian, like the RoCE ICRC. */
	buf[len] = crc & 0xff;
	buf[len + 1] = (crc >> 8) & 0xff;
	buf[len + 2] = (crc >> 16) & 0xff;
	buf[len + 3] = crc >> 24;
}
MR_KUNIT_EXPORT(mr_icrc_put);

int mr_icrc_check(const u8 *buf, u32 len)
{
	const u8 *t;
	u32 stored;

	if (len < MR_ICRC_LEN)
		return MR_ERR_TRUNC;
	t = buf + len - MR_ICRC_LEN;
	stored = (u32)t[0] | (u32)t[1] << 8 | (u32)t[2] << 16 |
		 (u32)t[3] << 24;
	return mr_crc32c(buf, len - MR_ICRC_LEN) == stored ? 0 : MR_ERR_ICRC;
}
