// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE requester segmentation (segment.h).
 */
#include "segment.h"

u32 mr_req_npkts(const struct mr_req_msg *m, u32 mtu)
{
	if (mr_op_has(m->opcode, MR_OPA_ANSWERED) || !m->length || !mtu)
		return 1;
	return m->length / mtu + (m->length % mtu ? 1 : 0);
}

bool mr_req_segment(const struct mr_req_msg *m, u32 off, u32 mtu, u32 rlen,
		    bool retx, struct mr_pkt *p)
{
	bool answered = mr_op_has(m->opcode, MR_OPA_ANSWERED);
	bool uc = mr_op_has(m->opcode, MR_OPA_UC);
	bool first, last;
	u32 len = 0;

	memset(p, 0, sizeof(*p));
	p->opcode = m->opcode;
	p->dxh.msn = m->msn;
	p->dxh.offset = off;
	p->dxh.msg_len = m->length;
	if (mr_op_has(m->opcode, MR_OPA_SSN))
		p->dxh.ssn = m->ssn;

	switch (m->opcode) {
	case MR_OP_SEND_IMM:
	case MR_OP_WRITE_IMM:
	case MR_OP_UC_SEND_IMM:
	case MR_OP_UC_WRITE_IMM:
		p->imm = m->imm;
		break;
	case MR_OP_SEND_INV:
		p->inv_rkey = m->imm;
		break;
	default:
		break;
	}
	switch (m->opcode) {
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
	case MR_OP_UC_WRITE:
	case MR_OP_UC_WRITE_IMM:
		p->rxh.va = m->va;
		p->rxh.rkey = m->rkey;
		break;
	case MR_OP_READ_REQ:
		/* The range asked: DXH offset and length (MR-REL-24). */
		p->rxh.va = m->va;
		p->rxh.rkey = m->rkey;
		p->dxh.msg_len = rlen;
		break;
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		p->axh.va = m->va;
		p->axh.rkey = m->rkey;
		p->axh.swap_add = m->swap_add;
		p->axh.compare = m->opcode == MR_OP_ATOMIC_CS ? m->compare : 0;
		p->dxh.msg_len = MR_ATOMIC_LEN;
		break;
	default:
		break;
	}

	if (!answered && off < m->length)
		len = MR_MIN(mtu, m->length - off);
	p->payload_len = len;
	/* A READ_REQ or atomic is one packet, a re-request too. */
	first = answered || off == 0;
	last = answered || off + len >= m->length;
	p->flags = (first ? MR_F_FIRST : 0) | (last ? MR_F_LAST : 0);
	/* UC is never acknowledged nor retransmitted (MR-UC-3). */
	if ((last || retx) && !uc)
		p->flags |= MR_F_ACKREQ;
	if (retx && !uc)
		p->flags |= MR_F_RETX;
	if (last && m->solicited && m->opcode != MR_OP_UC_WRITE &&
	    (uc || m->opcode == MR_OP_SEND || m->opcode == MR_OP_SEND_IMM ||
	     m->opcode == MR_OP_SEND_INV || m->opcode == MR_OP_WRITE_IMM))
		p->flags |= MR_F_SE;
	return last;
}
