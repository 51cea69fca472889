// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: the UC receiver (ucrecv.h, the code kernel/uc.c runs)
 * driven by UC packets and receive-queue posts taken from the input
 * (MR-UC-6..10).
 *
 * Input: 3 bytes initial PSN (big-endian), 1 byte PMTU (256 << b % 5),
 * 1 byte receive WQEs posted at the start, then 8-byte records:
 *   b0  bits 0-1 opcode (UC_SEND, UC_SEND_IMM, UC_WRITE, UC_WRITE_IMM),
 *       bit 2 TRIM, bit 3 the local check refuses it, bit 4 its
 *       placement fails, bit 5 a move of a later message fails, bit 6
 *       "post b1 % 8 receive WQEs" instead of a packet, bit 7 the
 *       record's MSN becomes the MSN cursor
 *   b1  MSN: cursor + (s8)b1     b2  PSN: cursor + (s8)b2 (cursor moves)
 *   b3  packet index             b4,b5  msg_len (big-endian, x 4)
 *   b6  immediate / R_Key        b7  bit 0: MSN + (b6 << 24) (a far jump)
 * Records that do not make a packet the decoder would pass are skipped.
 *
 * Invariants, enforced with abort():
 *  - each delivery is the oldest message (MSN order), complete, holding
 *    the receive queue's head WQE, never more than were posted;
 *  - at most MR_UC_MSGS WQEs bound, held by live messages in MSN order
 *    contiguously from the next to complete; n_done counts the
 *    complete messages; no slot outside [head, head + MR_UC_MSGS);
 *  - the head MSN only moves forward (by at most 2^31 per packet);
 *    every event is a defined one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "ucrecv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define WQE_LEN		(256 * 1024)

struct uc_fz {
	struct mr_ucrecv r;
	u32 posted;		/* receive WQEs posted (absolute) */
	u32 head;		/* the receive queue's head (absolute) */
	u8 rec;			/* the current record's b0 */
	u8 payload[4096];
};

static bool fz_check(void *ctx, const struct mr_pkt *p, u32 rel)
{
	struct uc_fz *s = ctx;

	if (p->opcode != MR_OP_UC_WRITE &&
	    (rel >= s->posted - s->head || rel >= MR_UC_MSGS))
		return false;
	if ((p->opcode == MR_OP_UC_SEND || p->opcode == MR_OP_UC_SEND_IMM) &&
	    p->dxh.msg_len > WQE_LEN)
		return false;
	return !(s->rec & 0x08);
}

static bool fz_place(void *ctx, const struct mr_pkt *p, u32 rel)
{
	struct uc_fz *s = ctx;

	if (!p->payload_len || p->dxh.offset + p->payload_len > p->dxh.msg_len)
		abort();
	if (p->opcode != MR_OP_UC_WRITE && rel >= s->posted - s->head)
		abort();
	return !(s->rec & 0x10);
}

static bool fz_rebind(void *ctx, const struct mr_uc_msg *m, u32 from, u32 to)
{
	struct uc_fz *s = ctx;

	if (!m->bound || to >= from || from >= MR_UC_MSGS)
		abort();
	return !(s->rec & 0x20);
}

static void fz_deliver(void *ctx, const struct mr_uc_msg *m)
{
	struct uc_fz *s = ctx;

	if (!m->bound || m->state != MR_UC_DONE || m->bytes != m->msg_len ||
	    m->opcode == MR_OP_UC_WRITE)
		abort();
	if (s->head == s->posted || m->wqe != s->r.wqe_done - 1)
		abort();
	/* The oldest message: MSN order (the head only moves forward). */
	if (m->msn != s->r.head_msn)
		abort();
	s->head++;
}

static void fz_count(void *ctx, enum mr_uc_event ev)
{
	(void)ctx;
	if (ev < MR_UC_EV_OLD || ev >= MR_UC_EV_NUM)
		abort();
}

static const struct mr_ucrecv_ops fz_ops = {
	.check = fz_check, .place = fz_place, .rebind = fz_rebind,
	.deliver = fz_deliver, .count = fz_count,
};

static void fz_invariants(const struct uc_fz *s, u32 old_head)
{
	const struct mr_ucrecv *r = &s->r;
	u32 i, n_done = 0, next = r->wqe_done, msn;

	/* Forward by at most the packet's distance (< 2^31) + 1. */
	if (r->head_msn - old_head > 0x80000000U)
		abort();
	if (r->wqe_bind - r->wqe_done > MR_UC_MSGS || r->wqe_done != s->head)
		abort();
	for (i = 0; i < MR_UC_MSGS; i++) {
		const struct mr_uc_msg *m = &r->slot[i];

		if (m->state == MR_UC_FREE)
			continue;
		if (mr_seq32_diff(m->msn, r->head_msn) < 0 ||
		    mr_seq32_diff(m->msn, r->head_msn) >= MR_UC_MSGS ||
		    m->msn % MR_UC_MSGS != i)
			abort();
		if (m->state == MR_UC_DONE)
			n_done++;
		if (m->bound && m->state == MR_UC_DEAD)
			abort();
	}
	if (n_done != r->n_done)
		abort();
	/* Bound messages in MSN order hold wqe_done, wqe_done + 1, ... */
	for (msn = r->head_msn; msn != r->head_msn + MR_UC_MSGS; msn++) {
		const struct mr_uc_msg *m = &r->slot[msn % MR_UC_MSGS];

		if (m->state == MR_UC_FREE || !m->bound)
			continue;
		if (m->wqe != next++)
			abort();
	}
	if (next != r->wqe_bind)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const u8 ops[] = { MR_OP_UC_SEND, MR_OP_UC_SEND_IMM,
				  MR_OP_UC_WRITE, MR_OP_UC_WRITE_IMM };
	struct uc_fz *s;
	u32 psn, msn = 0, i;
	size_t pos = 5;

	if (size < 5)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return 0;
	for (i = 0; i < sizeof(s->payload); i++)
		s->payload[i] = (u8)i;
	psn = ((u32)data[0] << 16 | (u32)data[1] << 8 | data[2]) & MR_PSN_MASK;
	s->r.ops = &fz_ops;
	s->r.pmtu = 256u << (data[3] % 5);
	mr_ucrecv_init(&s->r, psn);
	s->posted = data[4] % 32;

	for (; pos + 8 <= size; pos += 8) {
		const u8 *b = data + pos;
		u32 old_head = s->r.head_msn, off, len, k;
		struct mr_pkt p;

		s->rec = b[0];
		if (b[0] & 0x40) {
			s->posted += b[1] % 8;
			continue;
		}
		memset(&p, 0, sizeof(p));
		p.opcode = ops[b[0] & 3];
		p.dxh.msn = msn + (u32)(s32)(s8)b[1];
		if (b[7] & 1)
			p.dxh.msn += (u32)b[6] << 24;
		if (b[0] & 0x80)
			msn = p.dxh.msn;
		psn = mr_psn_add(psn, (u32)(s32)(s8)b[2]);
		p.psn = psn;
		len = ((u32)b[4] << 8 | b[5]) * 4;
		k = b[3];
		off = k * s->r.pmtu;
		if (len && off >= len)
			continue;
		p.dxh.offset = off;
		p.dxh.msg_len = len;
		p.payload_len = len - off < s->r.pmtu ? len - off : s->r.pmtu;
		p.flags = (off == 0 ? MR_F_FIRST : 0) |
			  (off + p.payload_len == len ? MR_F_LAST : 0);
		if (b[0] & 0x04) {
			p.flags |= MR_F_TRIM;
			p.payload_len = 0;
		}
		if (p.opcode == MR_OP_UC_WRITE || p.opcode == MR_OP_UC_WRITE_IMM) {
			p.rxh.va = 0x100000;
			p.rxh.rkey = b[6] & 3;
		}
		if (p.opcode == MR_OP_UC_SEND_IMM || p.opcode == MR_OP_UC_WRITE_IMM)
			p.imm = b[6] & 3;
		if (p.opcode != MR_OP_UC_WRITE && (p.flags & MR_F_LAST))
			p.flags |= MR_F_SE;
		p.payload = s->payload;
		if (mr_pkt_validate(&p))
			continue;
		mr_ucrecv_on_pkt(&s->r, &p, s);
		fz_invariants(s, old_head);
	}
	free(s);
	return 0;
}
