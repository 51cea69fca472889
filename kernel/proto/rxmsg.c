// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE responder message tracker: per-msn byte accounting, PSN-exact
 * duplicate suppression, in-order completion (MR-PLACE-2).
 */
#include "rxmsg.h"
#include "bitmap.h"

void mr_rxmsg_init(struct mr_rxmsg *m, u32 init_msn, u32 init_psn)
{
	memset(m, 0, sizeof(*m));
	m->head_msn = init_msn;
	m->psn_hi = init_psn & MR_PSN_MASK;
	m->cum_psn = m->psn_hi;
	/* Everything before the initial PSN is history: count it as seen. */
	memset(m->psn_map, 0xff, sizeof(m->psn_map));
}

/*
 * Has @psn been counted? One older than the map is below cum_psn of the
 * window in front, hence received already.
 */
static bool mr_rxmsg_psn_seen(const struct mr_rxmsg *m, u32 psn)
{
	return mr_psnmap_test(m->psn_map, m->psn_hi, psn);
}

static void mr_rxmsg_psn_set(struct mr_rxmsg *m, u32 psn)
{
	mr_psnmap_set(m->psn_map, &m->psn_hi, psn);
	/* Same cum_psn as the window in front: every counted PSN is marked. */
	while (mr_psn_before(m->cum_psn, m->psn_hi) &&
	       mr_rxmsg_psn_seen(m, m->cum_psn))
		m->cum_psn = mr_psn_add(m->cum_psn, 1);
}

static bool mr_rxmsg_rd_atomic(u8 opcode)
{
	return opcode == MR_OP_READ_REQ || opcode == MR_OP_ATOMIC_CS ||
	       opcode == MR_OP_ATOMIC_FA;
}

bool mr_rxmsg_active(const struct mr_rxmsg *m, u32 msn)
{
	s32 dm = mr_seq32_diff(msn, m->head_msn);

	return dm >= 0 && dm < MR_RXMSG_RING &&
	       m->ring[msn % MR_RXMSG_RING].active;
}

static bool mr_rxmsg_is_complete(const struct mr_rxmsg_info *e)
{
	if (!e->active)
		return false;
	/* Single-packet requests are complete on arrival. */
	if (mr_rxmsg_rd_atomic(e->opcode))
		return true;
	return e->bytes == e->msg_len;
}

static void mr_rxmsg_fill(struct mr_rxmsg_info *e, const struct mr_pkt *p)
{
	memset(e, 0, sizeof(*e));
	e->msn = p->dxh.msn;
	e->opcode = p->opcode;
	e->path = p->path;
	e->msg_len = p->dxh.msg_len;
	e->ssn = p->dxh.ssn;
	e->first_psn = p->psn;
	e->last_psn = p->psn;
	switch (p->opcode) {
	case MR_OP_SEND_IMM:
	case MR_OP_WRITE_IMM:
		e->imm = p->imm;
		break;
	case MR_OP_SEND_INV:
		e->imm = p->inv_rkey;
		break;
	default:
		break;
	}
	switch (p->opcode) {
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
	case MR_OP_READ_REQ:
		e->va = p->rxh.va;
		e->rkey = p->rxh.rkey;
		if (p->opcode == MR_OP_READ_REQ)
			e->offset = p->dxh.offset;
		break;
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		e->va = p->axh.va;
		e->rkey = p->axh.rkey;
		e->swap_add = p->axh.swap_add;
		e->compare = p->axh.compare;
		break;
	default:
		break;
	}
}

/* Every field a later packet of the same msn must repeat. */
static bool mr_rxmsg_same(const struct mr_rxmsg_info *a,
			  const struct mr_rxmsg_info *b)
{
	return a->opcode == b->opcode && a->msg_len == b->msg_len &&
	       a->ssn == b->ssn && a->imm == b->imm && a->va == b->va &&
	       a->rkey == b->rkey && a->offset == b->offset &&
	       a->swap_add == b->swap_add && a->compare == b->compare;
}

/* The first free slot of the extra READ range queue, MR_RXMSG_RDX if none. */
static u32 mr_rxmsg_rdx_free(const struct mr_rxmsg *m)
{
	u32 i;

	for (i = 0; i < MR_RXMSG_RDX; i++)
		if (!m->rdx[i].active)
			break;
	return i;
}

/*
 * Queue an extra READ_REQ range of READ record @e (NULL: the READ
 * completed) until cum_psn passes its PSN. A request that arrived after a
 * later range of its READ had opened the record (a requester may send
 * its ranges back to back, MR-REL-24, and they take different paths,
 * MR-MP-28) takes the record's place instead, and the later range is
 * queued: the record must be the READ's lowest PSN, which the messages
 * after it follow, so that it executes in PSN order (MR-PLACE-16) and
 * MR-REL-25's bound on how far ahead an msn may be holds. Returns
 * MR_RXMSG_READ_RANGE, or 0 when @p became the record (MR_ERR_NOSPACE if
 * the queue is full, which mr_rxmsg_check() has ruled out).
 */
static int mr_rxmsg_add_range(struct mr_rxmsg *m, struct mr_rxmsg_info *e,
			      const struct mr_pkt *p)
{
	u32 i = mr_rxmsg_rdx_free(m);
	struct mr_rxmsg_info *x, *to;
	bool earlier = e && mr_psn_before(p->psn, e->first_psn);

	/* Checked, but a record without its check must not overrun. */
	if (unlikely(i == MR_RXMSG_RDX))
		return MR_ERR_NOSPACE;
	x = &m->rdx[i];
	to = x;
	if (earlier) {
		*x = *e;
		x->extra = 1;
		to = e;
	}
	mr_rxmsg_fill(to, p);
	to->flags = p->flags;
	to->npkts = 1;
	to->extra = !earlier;
	to->active = 1;
	mr_rxmsg_psn_set(m, p->psn);
	return earlier ? 0 : MR_RXMSG_READ_RANGE;
}

int mr_rxmsg_check(const struct mr_rxmsg *m, const struct mr_pkt *p)
{
	const struct mr_op_desc *d;
	const struct mr_rxmsg_info *e;
	struct mr_rxmsg_info n;
	s32 dm;

	if (unlikely(!p))
		return MR_ERR_INVAL;
	d = mr_op_desc(p->opcode);
	/*
	 * Only sequenced requests; a trimmed packet is NACKed and comes
	 * again under the same PSN, so it must not consume that PSN here.
	 */
	if (!d || !(d->attrs & MR_OPA_REQ) || (p->flags & MR_F_TRIM) ||
	    !mr_psn_valid(p->psn))
		return MR_ERR_INVAL;
	if ((u64)p->dxh.offset + p->payload_len > p->dxh.msg_len &&
	    (d->attrs & MR_OPA_MULTI))
		return MR_ERR_RANGE;

	dm = mr_seq32_diff(p->dxh.msn, m->head_msn);
	if (dm >= MR_RXMSG_RING)
		return MR_ERR_MSN_RANGE;
	e = dm >= 0 ? &m->ring[p->dxh.msn % MR_RXMSG_RING] : NULL;

	if (p->opcode == MR_OP_READ_REQ && (!e || e->active)) {
		/*
		 * Another READ_REQ for a READ already recorded (or completed):
		 * a split READ or a re-request of missing pieces, with the
		 * same va and R_Key (MR-REL-24, MR-REL-25). It takes its own
		 * PSN but is not a new message.
		 */
		if (e && (e->opcode != MR_OP_READ_REQ ||
			  e->va != p->rxh.va || e->rkey != p->rxh.rkey))
			return MR_ERR_MSG_MISMATCH;
		if (mr_rxmsg_psn_seen(m, p->psn))
			return MR_RXMSG_DUP;
		/*
		 * Full: refuse, nothing recorded; the responder NACKs it
		 * RESOURCE and the requester sends it again after the delay
		 * (MR-REL-34).
		 */
		if (mr_rxmsg_rdx_free(m) == MR_RXMSG_RDX)
			return MR_ERR_NOSPACE;
		return e && mr_psn_before(p->psn, e->first_psn) ?
		       0 : MR_RXMSG_READ_RANGE;
	}
	if (!e)
		return MR_ERR_MSN_OLD;

	mr_rxmsg_fill(&n, p);
	/* Every packet repeats its message's record (MR-PLACE-14). */
	if (e->active && !mr_rxmsg_same(e, &n))
		return MR_ERR_MSG_MISMATCH;
	if (mr_rxmsg_psn_seen(m, p->psn))
		return MR_RXMSG_DUP;
	/* An atomic is re-sent under its original PSN only (MR-REL-27). */
	if (e->active && !(d->attrs & MR_OPA_MULTI))
		return MR_ERR_MSG_MISMATCH;

	if (!e->active) {
		if ((d->attrs & MR_OPA_MULTI) &&
		    p->payload_len > n.msg_len)
			return MR_ERR_RANGE;
	} else if ((u64)e->bytes + p->payload_len > e->msg_len) {
		/*
		 * A new PSN carrying bytes the message has no room for left:
		 * overlapping packets, refuse rather than over-count.
		 */
		return MR_ERR_RANGE;
	}
	return 0;
}

int mr_rxmsg_record(struct mr_rxmsg *m, const struct mr_pkt *p)
{
	struct mr_rxmsg_info *e;

	/* Checked: the msn is in the ring, or completed for a READ_REQ. */
	e = mr_seq32_diff(p->dxh.msn, m->head_msn) >= 0 ?
	    &m->ring[p->dxh.msn % MR_RXMSG_RING] : NULL;
	if (p->opcode == MR_OP_READ_REQ && (!e || e->active))
		return mr_rxmsg_add_range(m, e, p);

	if (!e->active) {
		mr_rxmsg_fill(e, p);
		e->active = 1;
		if (mr_rxmsg_rd_atomic(e->opcode))
			m->n_rdat++;
	}

	mr_rxmsg_psn_set(m, p->psn);
	if (mr_op_has(p->opcode, MR_OPA_MULTI))
		e->bytes += p->payload_len;
	e->flags |= p->flags;
	if (e->npkts != 0xffff)
		e->npkts++;
	if (mr_psn_before(p->psn, e->first_psn))
		e->first_psn = p->psn;
	if (mr_psn_after(p->psn, e->last_psn))
		e->last_psn = p->psn;
	return 0;
}

int mr_rxmsg_add(struct mr_rxmsg *m, const struct mr_pkt *p)
{
	int rc = mr_rxmsg_check(m, p);

	if (rc < 0 || rc == MR_RXMSG_DUP)
		return rc;
	return mr_rxmsg_record(m, p);
}

bool mr_rxmsg_head_complete(const struct mr_rxmsg *m)
{
	return mr_rxmsg_is_complete(&m->ring[m->head_msn % MR_RXMSG_RING]);
}

void mr_rxmsg_stop_at(struct mr_rxmsg *m, u32 psn)
{
	if (!m->stop_valid || mr_psn_before(psn, m->stop_psn)) {
		m->stop_valid = true;
		m->stop_psn = psn & MR_PSN_MASK;
	}
}

bool mr_rxmsg_pop_completed(struct mr_rxmsg *m, struct mr_rxmsg_info *out)
{
	u32 cum_psn = m->stop_valid && mr_psn_before(m->stop_psn, m->cum_psn) ?
		      m->stop_psn : m->cum_psn;
	struct mr_rxmsg_info *e = &m->ring[m->head_msn % MR_RXMSG_RING];
	struct mr_rxmsg_info *x = NULL;
	bool head_ready;
	u32 i;

	/*
	 * Complete = all bytes here and cum_psn past its last PSN, which
	 * also means every earlier PSN arrived (MR-PLACE-2, MR-PLACE-16).
	 */
	head_ready = mr_rxmsg_is_complete(e) &&
		     mr_psn_before(e->last_psn, cum_psn);
	for (i = 0; i < MR_RXMSG_RDX; i++) {
		struct mr_rxmsg_info *r = &m->rdx[i];

		if (r->active && mr_psn_before(r->last_psn, cum_psn) &&
		    (!x || mr_psn_before(r->last_psn, x->last_psn)))
			x = r;
	}
	/* Execute in PSN order: an extra READ range may come first. */
	if (x && (!head_ready || mr_psn_before(x->last_psn, e->last_psn))) {
		if (out)
			*out = *x;
		memset(x, 0, sizeof(*x));
		return true;
	}
	if (!head_ready)
		return false;
	if (out)
		*out = *e;
	if (mr_rxmsg_rd_atomic(e->opcode))
		m->n_rdat--;
	memset(e, 0, sizeof(*e));
	m->head_msn++;
	return true;
}

u32 mr_rxmsg_pending_ranges(const struct mr_rxmsg *m)
{
	u32 i, n = m->n_rdat;

	for (i = 0; i < MR_RXMSG_RDX; i++)
		n += m->rdx[i].active;
	return n;
}
