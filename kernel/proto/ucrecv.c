// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE unreliable connected receiver (ucrecv.h): per-message byte
 * accounting over MR_UC_MSGS slots, PSN-exact duplicate suppression,
 * in-order delivery, the drop rules of MR-UC-7 and MR-UC-8.
 */
#include "ucrecv.h"
#include "bitmap.h"

void mr_ucrecv_init(struct mr_ucrecv *r, u32 init_psn)
{
	r->head_msn = 0;
	r->wqe_done = 0;
	r->wqe_bind = 0;
	r->n_done = 0;
	r->psn_hi = init_psn & MR_PSN_MASK;
	r->move_left = MR_UC_MOVE_BUDGET;
	/* Everything before the initial PSN is history: count it as seen. */
	memset(r->psn_map, 0xff, sizeof(r->psn_map));
	memset(r->slot, 0, sizeof(r->slot));
}
MR_KUNIT_EXPORT(mr_ucrecv_init);

static struct mr_uc_msg *mr_uc_slot(struct mr_ucrecv *r, u32 msn)
{
	return &r->slot[msn % MR_UC_MSGS];
}

/* Does @p's opcode consume a receive WQE? */
static bool mr_uc_wqe_op(u8 opcode)
{
	return opcode != MR_OP_UC_WRITE;
}

/*
 * Move bound message @o to receive WQE @to (MR-UC-8), if what this
 * packet may still move covers its bytes (MR_UC_MOVE_BUDGET): one packet
 * dropping several messages must not copy several times over in the
 * caller's softirq. The bytes are charged before the move, whether or
 * not it succeeds: a failed move may have copied some already.
 * UC_WRITE_IMM placed nothing in its WQE and moves for free.
 */
static bool mr_uc_move(struct mr_ucrecv *r, const struct mr_uc_msg *o,
		       u32 to, void *ctx)
{
	u32 cost = o->opcode == MR_OP_UC_WRITE_IMM ? 0 : o->msg_len;

	if (!r->ops->rebind || cost > r->move_left)
		return false;
	r->move_left -= cost;
	return r->ops->rebind(ctx, o, o->wqe - r->wqe_done, to - r->wqe_done);
}

/*
 * Drop message @m (MR-UC-7). If it held a receive WQE, that WQE goes to
 * the next bound message, and so on down (MR-UC-8): each later bound
 * message is moved to the WQE before it by ops->rebind, or dropped if it
 * cannot be moved or this packet's move budget does not cover it. Bound
 * messages hold WQEs in msn order, contiguously from wqe_done.
 */
static void mr_uc_kill(struct mr_ucrecv *r, struct mr_uc_msg *m, void *ctx)
{
	u32 next = m->wqe, msn, end = r->head_msn + MR_UC_MSGS;
	bool bound = m->bound;

	if (m->state == MR_UC_DONE)
		r->n_done--;
	m->state = MR_UC_DEAD;
	m->bound = false;
	r->ops->count(ctx, MR_UC_EV_MSG_DROPPED);
	if (!bound)
		return;
	for (msn = m->msn + 1; msn != end; msn++) {
		struct mr_uc_msg *o = mr_uc_slot(r, msn);

		if (!o->bound)
			continue;
		if (mr_uc_move(r, o, next, ctx)) {
			o->wqe = next++;
			continue;
		}
		if (o->state == MR_UC_DONE)
			r->n_done--;
		o->state = MR_UC_DEAD;
		o->bound = false;
		r->ops->count(ctx, MR_UC_EV_MSG_DROPPED);
	}
	r->wqe_bind = next;
}

/*
 * Retire the oldest message: deliver it if complete, forget it if dead,
 * drop it if @force. Returns false if it stays.
 */
static bool mr_uc_pop_head(struct mr_ucrecv *r, bool force, void *ctx)
{
	struct mr_uc_msg *m = mr_uc_slot(r, r->head_msn);

	if (m->state == MR_UC_DONE) {
		r->n_done--;
		if (m->bound) {
			r->wqe_done++;
			r->ops->deliver(ctx, m);
		}
	} else if (m->state != MR_UC_DEAD) {
		if (!force)
			return false;
		m->msn = r->head_msn;
		mr_uc_kill(r, m, ctx);
	}
	memset(m, 0, sizeof(*m));
	r->head_msn++;
	return true;
}

/*
 * Deliver what is due, in msn order; an incomplete (or unseen) oldest
 * message that a later complete one waits behind is dropped (MR-UC-7).
 */
static void mr_uc_advance(struct mr_ucrecv *r, void *ctx)
{
	while (mr_uc_pop_head(r, r->n_done > 0, ctx))
		;
}

/*
 * @msn is at or beyond head + MR_UC_MSGS: retire messages until it fits
 * (MR-UC-9). At most MR_UC_MSGS slots are visited; a longer jump skips
 * msns nobody tracked, counted as one drop.
 */
static void mr_uc_slide(struct mr_ucrecv *r, u32 msn, void *ctx)
{
	unsigned int n;

	for (n = 0; n < MR_UC_MSGS; n++) {
		if (mr_seq32_diff(msn, r->head_msn) < MR_UC_MSGS)
			return;
		mr_uc_pop_head(r, true, ctx);
	}
	if (mr_seq32_diff(msn, r->head_msn) >= MR_UC_MSGS) {
		r->ops->count(ctx, MR_UC_EV_MSG_DROPPED);
		r->head_msn = msn - MR_UC_MSGS + 1;
	}
}

/*
 * Does @p agree with the message its earlier packets described? Fields
 * an opcode does not carry are 0 after decode, so all compare.
 */
static bool mr_uc_same(const struct mr_uc_msg *m, const struct mr_pkt *p)
{
	return m->opcode == p->opcode && m->msg_len == p->dxh.msg_len &&
	       m->imm == p->imm && m->rkey == p->rxh.rkey &&
	       m->va == p->rxh.va;
}

/* Is a message after @msn bound to a receive WQE? */
static bool mr_uc_bound_after(const struct mr_ucrecv *r, u32 msn)
{
	unsigned int i;

	for (i = 0; i < MR_UC_MSGS; i++)
		if (r->slot[i].bound && mr_seq32_diff(r->slot[i].msn, msn) > 0)
			return true;
	return false;
}

static int mr_uc_drop(struct mr_ucrecv *r, enum mr_uc_event ev, void *ctx)
{
	r->ops->count(ctx, ev);
	return ev;
}

/* Open the slot of @p's message, first seen now. */
static void mr_uc_open(struct mr_uc_msg *m, const struct mr_pkt *p)
{
	memset(m, 0, sizeof(*m));
	m->msn = p->dxh.msn;
	m->msg_len = p->dxh.msg_len;
	m->opcode = p->opcode;
	m->imm = p->imm;
	m->rkey = p->rxh.rkey;
	m->va = p->rxh.va;
	m->state = MR_UC_OPEN;
}

int mr_ucrecv_on_pkt(struct mr_ucrecv *r, const struct mr_pkt *p, void *ctx)
{
	struct mr_uc_msg *m;
	bool wqe_op;
	u32 rel = 0;
	int err;
	s32 d;

	/* Whatever this packet drops, it moves this much at most. */
	r->move_left = MR_UC_MOVE_BUDGET;
	if (!mr_op_has(p->opcode, MR_OPA_UC))
		return mr_uc_drop(r, MR_UC_EV_MISMATCH, ctx);
	err = mr_pkt_pmtu_check(p, r->pmtu);
	if (err)
		return mr_uc_drop(r, err == MR_ERR_PAYLOAD ? MR_UC_EV_PAYLOAD :
				  MR_UC_EV_PMTU, ctx);
	d = mr_seq32_diff(p->dxh.msn, r->head_msn);
	if (d < 0)
		return mr_uc_drop(r, MR_UC_EV_OLD, ctx);
	if (mr_psnmap_test(r->psn_map, r->psn_hi, p->psn))
		return mr_uc_drop(r, MR_UC_EV_DUP, ctx);
	if (d >= MR_UC_MSGS)
		mr_uc_slide(r, p->dxh.msn, ctx);
	m = mr_uc_slot(r, p->dxh.msn);
	if (m->state == MR_UC_DEAD)
		return mr_uc_drop(r, MR_UC_EV_OLD, ctx);
	if (m->state == MR_UC_DONE ||
	    (m->state == MR_UC_OPEN &&
	     (!mr_uc_same(m, p) || p->payload_len > m->msg_len - m->bytes)))
		return mr_uc_drop(r, MR_UC_EV_MISMATCH, ctx);

	mr_psnmap_set(r->psn_map, &r->psn_hi, p->psn);
	wqe_op = mr_uc_wqe_op(p->opcode);
	if (m->state == MR_UC_FREE) {
		mr_uc_open(m, p);
		/* Its WQE would come after a later message's (MR-UC-8). */
		if (wqe_op && mr_uc_bound_after(r, m->msn)) {
			mr_uc_kill(r, m, ctx);
			mr_uc_advance(r, ctx);
			return mr_uc_drop(r, MR_UC_EV_LATE, ctx);
		}
		if (wqe_op) {
			m->bound = true;
			m->wqe = r->wqe_bind++;
		}
	}
	if (m->bound)
		rel = m->wqe - r->wqe_done;
	if (p->flags & MR_F_TRIM) {
		/* Its payload is gone and nobody asks for it again. */
		mr_uc_kill(r, m, ctx);
		mr_uc_advance(r, ctx);
		return mr_uc_drop(r, MR_UC_EV_TRIMMED, ctx);
	}
	if (!r->ops->check(ctx, p, rel) ||
	    (p->payload_len && !r->ops->place(ctx, p, rel))) {
		mr_uc_kill(r, m, ctx);
		mr_uc_advance(r, ctx);
		return mr_uc_drop(r, MR_UC_EV_REFUSED, ctx);
	}
	m->bytes += p->payload_len;
	m->flags |= p->flags;
	if (m->bytes == m->msg_len) {
		m->state = MR_UC_DONE;
		r->n_done++;
	}
	mr_uc_advance(r, ctx);
	return 0;
}
MR_KUNIT_EXPORT(mr_ucrecv_on_pkt);
