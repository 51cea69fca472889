// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE responder side of READ and ATOMIC: records of executed
 * requests, replay rules and the bounded queue of READ responses.
 */
#include "rdresp.h"
#include "txsb.h"

void mr_rdresp_init(struct mr_rdresp *r)
{
	memset(r, 0, sizeof(*r));
}

static bool mr_op_rd_atomic(u8 op)
{
	return op == MR_OP_READ_REQ || op == MR_OP_ATOMIC_CS ||
	       op == MR_OP_ATOMIC_FA;
}

/*
 * The newest record of executed message @msn, or NULL. A scan of a
 * fixed-size table: bounded work per packet.
 */
static const struct mr_rdresp_rec *mr_rdresp_find(const struct mr_rdresp *r,
						  u32 msn)
{
	u32 i, k;

	for (i = 1; i <= MR_RDRESP_RECS; i++) {
		k = (r->rec_next - i) % MR_RDRESP_RECS;
		if (r->rec[k].opcode && r->rec[k].msn == msn)
			return &r->rec[k];
	}
	return NULL;
}

int mr_rdresp_check_new(const struct mr_rdresp *r, const struct mr_rxmsg *m,
			const struct mr_pkt *p, u32 max_dest)
{
	u32 next_msn = mr_rxmsg_completed_msn(m);
	const struct mr_rdresp_rec *rec;

	if (!mr_op_rd_atomic(p->opcode))
		return 0;
	if (p->opcode == MR_OP_READ_REQ && p->dxh.msg_len > MR_READ_RANGE_MAX)
		return MR_NACK_INVALID_REQ;

	if (mr_seq32_diff(p->dxh.msn, next_msn) < 0) {
		/* Executed already: only a READ takes more ranges. */
		if (p->opcode != MR_OP_READ_REQ)
			return MR_NACK_INVALID_REQ;
		rec = mr_rdresp_find(r, p->dxh.msn);
		if (!rec || rec->opcode != MR_OP_READ_REQ)
			return MR_NACK_INVALID_REQ;
		/* Every record of one READ has its va and key. */
		if (rec->va != p->rxh.va || rec->rkey != p->rxh.rkey)
			return MR_ERR_MSG_MISMATCH;
		return 0;
	}
	/* A range of a READ already recorded is no new message. */
	if (mr_rxmsg_active(m, p->dxh.msn))
		return 0;
	if (mr_rdresp_pending(r, mr_rxmsg_pending_rd_atomic(m)) >= max_dest)
		return MR_NACK_INVALID_REQ;
	return 0;
}

static struct mr_rdresp_rec *mr_rdresp_rec_new(struct mr_rdresp *r)
{
	struct mr_rdresp_rec *rec = &r->rec[r->rec_next % MR_RDRESP_RECS];

	r->rec_next++;
	memset(rec, 0, sizeof(*rec));
	return rec;
}

/*
 * Is [off, end) of READ @msn still to be sent by a queued job? Then a
 * re-request or replay of it adds nothing (it would send the bytes
 * twice). Bounded by the queue size.
 */
static bool mr_rdresp_queued(const struct mr_rdresp *r, u32 msn, u32 off,
			     u32 end)
{
	const struct mr_rdresp_job *j;
	u32 i;

	for (i = r->job_head; i != r->job_tail; i++) {
		j = &r->job[i % MR_RDRESP_JOBS];
		if (j->msn == msn && j->off <= off && end <= j->end)
			return true;
	}
	return false;
}

static int mr_rdresp_queue(struct mr_rdresp *r, u32 msn, u32 psn, u64 va,
			   u32 rkey, u32 off, u32 end, bool retx, bool first,
			   u8 path)
{
	struct mr_rdresp_job *j;

	if (!first && end > off && mr_rdresp_queued(r, msn, off, end)) {
		r->st.covered++;
		return 0;
	}
	if (mr_rdresp_jobs_queued(r) >= MR_RDRESP_JOBS) {
		r->st.job_drops++;
		return MR_ERR_NOSPACE;
	}
	j = &r->job[r->job_tail % MR_RDRESP_JOBS];
	memset(j, 0, sizeof(*j));
	j->msn = msn;
	j->psn = psn;
	j->va = va;
	j->rkey = rkey;
	j->off = off;
	j->end = end;
	j->retx = retx;
	j->first = first;
	j->path = path;
	r->job_tail++;
	if (first)
		r->first_jobs++;
	return 0;
}

/*
 * The record of READ @msn at @va, @rkey whose range touches or overlaps
 * [off, end), or NULL.
 */
static struct mr_rdresp_rec *mr_rdresp_touching(struct mr_rdresp *r, u32 msn,
						u64 va, u32 rkey, u32 off,
						u32 end)
{
	struct mr_rdresp_rec *rec;
	u32 i;

	for (i = 0; i < MR_RDRESP_RECS; i++) {
		rec = &r->rec[i];
		if (rec->opcode == MR_OP_READ_REQ && rec->msn == msn &&
		    rec->va == va && rec->rkey == rkey && off <= rec->hi &&
		    end >= rec->lo)
			return rec;
	}
	return NULL;
}

int mr_rdresp_read(struct mr_rdresp *r, const struct mr_rxmsg_info *m,
		   u8 path)
{
	struct mr_rdresp_rec *rec;
	u32 end = m->offset + m->msg_len;
	bool first = !m->extra;

	/*
	 * The first range of a READ opens its record; a further range (a
	 * split READ, a re-request of lost pieces: MR-REL-24) widens the
	 * record it touches, or opens another one: the records are the
	 * union of the ranges served, never a hull with gaps in it.
	 */
	rec = first ? NULL : mr_rdresp_touching(r, m->msn, m->va, m->rkey,
						m->offset, end);
	if (!rec) {
		rec = mr_rdresp_rec_new(r);
		rec->opcode = MR_OP_READ_REQ;
		rec->msn = m->msn;
		rec->psn = m->first_psn;
		rec->va = m->va;
		rec->rkey = m->rkey;
		rec->lo = m->offset;
		rec->hi = end;
	} else {
		if (m->offset < rec->lo)
			rec->lo = m->offset;
		if (end > rec->hi)
			rec->hi = end;
	}
	r->st.reads++;
	return mr_rdresp_queue(r, m->msn, m->first_psn, m->va, m->rkey,
			       m->offset, end, false, first, path);
}

void mr_rdresp_atomic_done(struct mr_rdresp *r,
			   const struct mr_rxmsg_info *m, u64 orig)
{
	struct mr_rdresp_rec *rec = mr_rdresp_rec_new(r);

	rec->opcode = m->opcode;
	rec->msn = m->msn;
	rec->psn = m->first_psn;
	rec->va = m->va;
	rec->rkey = m->rkey;
	rec->orig = orig;
	r->st.atomics++;
}

/* Does a record of READ @msn at @va, @rkey contain [off, end)? */
static bool mr_rdresp_covers(const struct mr_rdresp *r, u32 msn, u64 va,
			     u32 rkey, u32 off, u64 end)
{
	const struct mr_rdresp_rec *rec;
	u32 i;

	for (i = 0; i < MR_RDRESP_RECS; i++) {
		rec = &r->rec[i];
		if (rec->opcode == MR_OP_READ_REQ && rec->msn == msn &&
		    rec->va == va && rec->rkey == rkey && off >= rec->lo &&
		    end <= rec->hi)
			return true;
	}
	return false;
}

enum mr_rdresp_replay mr_rdresp_replay(struct mr_rdresp *r,
				       const struct mr_pkt *p, u32 next_msn,
				       u64 *orig)
{
	const struct mr_rdresp_rec *rec = NULL;
	u64 end;

	if (mr_seq32_diff(p->dxh.msn, next_msn) >= 0) {
		/* Not executed: nothing to replay. */
		if (p->opcode == MR_OP_READ_REQ)
			r->st.replay_drops++;
		else
			r->st.atomic_miss++;
		return MR_REPLAY_DROP;
	}

	if (p->opcode == MR_OP_READ_REQ) {
		/* Only what one executed range covered, at its va and key. */
		end = (u64)p->dxh.offset + p->dxh.msg_len;
		if (!mr_rdresp_covers(r, p->dxh.msn, p->rxh.va, p->rxh.rkey,
				      p->dxh.offset, end)) {
			r->st.replay_drops++;
			return MR_REPLAY_DROP;
		}
		if (mr_rdresp_queue(r, p->dxh.msn, p->psn, p->rxh.va,
				    p->rxh.rkey, p->dxh.offset, (u32)end,
				    true, false, p->path))
			return MR_REPLAY_DROP;
		r->st.replays++;
		return MR_REPLAY_READ;
	}
	if (mr_op_rd_atomic(p->opcode)) {
		/* Never executed twice: the cached result or nothing. */
		rec = mr_rdresp_find(r, p->dxh.msn);
		if (!rec || rec->opcode != p->opcode || rec->psn != p->psn ||
		    rec->va != p->axh.va || rec->rkey != p->axh.rkey) {
			r->st.atomic_miss++;
			return MR_REPLAY_DROP;
		}
		*orig = rec->orig;
		r->st.replays++;
		return MR_REPLAY_ATOMIC;
	}
	r->st.replay_drops++;
	return MR_REPLAY_DROP;
}

bool mr_rdresp_peek(const struct mr_rdresp *r, u32 mtu,
		    struct mr_rdresp_chunk *c)
{
	const struct mr_rdresp_job *j;

	if (!mr_rdresp_busy(r) || !mtu)
		return false;
	j = &r->job[r->job_head % MR_RDRESP_JOBS];
	c->msn = j->msn;
	c->psn = j->psn;
	c->va = j->va;
	c->rkey = j->rkey;
	c->off = j->off;
	c->end = j->end;
	c->path = j->path;
	/* Chunks end on absolute multiples of the MTU. */
	c->len = j->end - j->off;
	if (c->len > mtu - j->off % mtu)
		c->len = mtu - j->off % mtu;
	c->flags = (j->off == 0 ? MR_F_FIRST : 0) |
		   (j->off + c->len == j->end ? MR_F_LAST : 0) |
		   (j->retx ? MR_F_RETX : 0);
	return true;
}

static void mr_rdresp_pop(struct mr_rdresp *r)
{
	struct mr_rdresp_job *j = &r->job[r->job_head % MR_RDRESP_JOBS];

	if (j->first)
		r->first_jobs--;
	r->job_head++;
}

void mr_rdresp_commit(struct mr_rdresp *r, const struct mr_rdresp_chunk *c)
{
	struct mr_rdresp_job *j;

	if (!mr_rdresp_busy(r))
		return;
	j = &r->job[r->job_head % MR_RDRESP_JOBS];
	j->off = c->off + c->len;
	r->st.packets++;
	if (j->off >= j->end)
		mr_rdresp_pop(r);
}

void mr_rdresp_abort(struct mr_rdresp *r)
{
	if (mr_rdresp_busy(r))
		mr_rdresp_pop(r);
}

void mr_rdresp_clear_jobs(struct mr_rdresp *r)
{
	r->job_head = r->job_tail;
	r->first_jobs = 0;
}

u64 mr_rdresp_pump(struct mr_rdresp *r, u32 mtu, int budget, u64 now_ns,
		   u64 gap_ns, u64 slack_ns,
		   int (*build)(void *ctx, const struct mr_rdresp_chunk *ch),
		   void *ctx)
{
	struct mr_rdresp_chunk ch;
	int rc;

	while (mr_rdresp_peek(r, mtu, &ch)) {
		if (budget <= 0)
			return now_ns;
		if (gap_ns && r->next_ns > now_ns + slack_ns)
			return r->next_ns;
		rc = build(ctx, &ch);
		if (rc == MR_RDRESP_NOMEM)
			return now_ns + MR_RDRESP_NOMEM_NS;
		if (rc) {
			mr_rdresp_abort(r);
			continue;
		}
		mr_rdresp_commit(r, &ch);
		if (gap_ns)
			r->next_ns = MR_MAX(r->next_ns, now_ns > slack_ns ?
						    now_ns - slack_ns : 0) +
				     gap_ns;
		budget--;
	}
	return MR_TIME_NEVER;
}
MR_KUNIT_EXPORT(mr_rdresp_pump);

void mr_rdresp_read_pkt(const struct mr_rdresp_chunk *c, struct mr_pkt *r)
{
	memset(r, 0, sizeof(*r));
	r->opcode = MR_OP_READ_RESP;
	r->flags = c->flags;
	r->path = c->path;
	r->psn = c->psn;
	r->dxh.msn = c->msn;
	r->dxh.offset = c->off;
	r->dxh.msg_len = c->end;
	r->payload_len = c->len;
}

void mr_rdresp_atomic_pkt(u32 msn, u32 psn, u8 path, u64 orig, bool retx,
			  struct mr_pkt *r)
{
	memset(r, 0, sizeof(*r));
	r->opcode = MR_OP_ATOMIC_RESP;
	r->flags = MR_F_FIRST | MR_F_LAST | (retx ? MR_F_RETX : 0);
	r->path = path;
	r->psn = psn;
	r->dxh.msn = msn;
	r->dxh.msg_len = MR_ATOMIC_LEN;
	r->atomic_orig = orig;
}

u64 mr_atomic_result(u8 opcode, u64 orig, u64 swap_add, u64 compare)
{
	if (opcode == MR_OP_ATOMIC_FA)
		return orig + swap_add;
	return orig == compare ? swap_add : orig;
}
