// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE rdma-core provider: CQ, QP and SRQ on the rings the kernel
 * maps into the process, and the datapath (post_send, post_recv,
 * post_srq_recv, poll_cq) that runs in userspace on them.
 *
 * Ring protocol: kernel/uapi/metaroce-abi.h and
 * Documentation/metaroce/provider.rst.
 */
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "metaroce.h"

/* The ring encodings are the verbs values: translation is a copy. */
#define MROCE_SAME(a, b) _Static_assert((long)(a) == (long)(b), #a " != " #b)
MROCE_SAME(METAROCE_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE);
MROCE_SAME(METAROCE_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM);
MROCE_SAME(METAROCE_WR_SEND, IBV_WR_SEND);
MROCE_SAME(METAROCE_WR_SEND_WITH_IMM, IBV_WR_SEND_WITH_IMM);
MROCE_SAME(METAROCE_WR_RDMA_READ, IBV_WR_RDMA_READ);
MROCE_SAME(METAROCE_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_CMP_AND_SWP);
MROCE_SAME(METAROCE_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_FETCH_AND_ADD);
MROCE_SAME(METAROCE_WR_SEND_WITH_INV, IBV_WR_SEND_WITH_INV);
MROCE_SAME(METAROCE_SEND_FENCE, IBV_SEND_FENCE);
MROCE_SAME(METAROCE_SEND_SIGNALED, IBV_SEND_SIGNALED);
MROCE_SAME(METAROCE_SEND_SOLICITED, IBV_SEND_SOLICITED);
MROCE_SAME(METAROCE_SEND_INLINE, IBV_SEND_INLINE);
MROCE_SAME(METAROCE_WC_SEND, IBV_WC_SEND);
MROCE_SAME(METAROCE_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE);
MROCE_SAME(METAROCE_WC_RDMA_READ, IBV_WC_RDMA_READ);
MROCE_SAME(METAROCE_WC_COMP_SWAP, IBV_WC_COMP_SWAP);
MROCE_SAME(METAROCE_WC_FETCH_ADD, IBV_WC_FETCH_ADD);
MROCE_SAME(METAROCE_WC_RECV, IBV_WC_RECV);
MROCE_SAME(METAROCE_WC_RECV_RDMA_WITH_IMM, IBV_WC_RECV_RDMA_WITH_IMM);
MROCE_SAME(METAROCE_WC_F_GRH, IBV_WC_GRH);
MROCE_SAME(METAROCE_WC_F_WITH_IMM, IBV_WC_WITH_IMM);
MROCE_SAME(METAROCE_WC_F_WITH_INV, IBV_WC_WITH_INV);
#undef MROCE_SAME

#define MROCE_WC_FLAGS							\
	(METAROCE_WC_F_GRH | METAROCE_WC_F_WITH_IMM | METAROCE_WC_F_WITH_INV)

/* ------------------------------------------------------------------ */
/* Ring mapping                                                         */

/*
 * Checks the geometry the kernel returned and maps the ring.  A response
 * that does not describe a sane ring is a protocol error (EPROTO), never
 * a reason to touch memory outside the mapping.
 */
int mroce_ring_map(struct ibv_context *ctx, struct mroce_ring *r,
		   const struct metaroce_mmap_info *mi, uint32_t entries,
		   uint32_t stride, uint32_t min_stride)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t need;
	void *p;

	memset(r, 0, sizeof(*r));
	if (!entries || (entries & (entries - 1)) ||
	    entries > METAROCE_MAX_RING_ENTRIES || stride < min_stride ||
	    stride > (1U << 16) || stride % 16)
		return EPROTO;
	need = METAROCE_RING_HDR_SIZE + (uint64_t)entries * stride;
	if (page <= 0 || mi->size < need || mi->size > (1ULL << 32) ||
	    mi->size % (uint64_t)page || mi->offset > (uint64_t)INT64_MAX)
		return EPROTO;

	p = mmap(NULL, mi->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ctx->cmd_fd, (off_t)mi->offset);
	if (p == MAP_FAILED)
		return errno;

	r->map = p;
	r->map_size = mi->size;
	r->hdr = p;
	r->slots = (uint8_t *)p + METAROCE_RING_HDR_SIZE;
	r->entries = entries;
	r->stride = stride;
	r->limit = entries;
	r->idx = 0;
	return 0;
}

void mroce_ring_unmap(struct mroce_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_size);
	memset(r, 0, sizeof(*r));
}

/*
 * Free slots of a ring this side produces into, counted against the
 * granted queue depth (limit <= entries), so that no more work requests
 * are outstanding than the application asked for and sized its CQs by.
 * The consumer index comes from the peer: a value claiming more slots
 * consumed than produced is reported as corruption (-1), not believed.
 */
static int64_t mroce_ring_space(struct mroce_ring *r)
{
	uint32_t used = r->idx - mroce_load_acquire(&r->hdr->cons);

	if (used > r->entries)
		return -1;
	if (used >= r->limit)
		return 0;
	return r->limit - used;
}

/* ------------------------------------------------------------------ */
/* CQ                                                                   */

MROCE_UDATA_PAIR(mroce_create_cq_cmd, struct ibv_create_cq,
		 struct metaroce_create_cq_req);
MROCE_UDATA_PAIR(mroce_create_cq_resp, struct ib_uverbs_create_cq_resp,
		 struct metaroce_create_cq_resp);

struct ibv_cq *mroce_create_cq(struct ibv_context *ctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct mroce_create_cq_cmd cmd;
	struct mroce_create_cq_resp resp;
	struct mroce_cq *cq;
	int ret;

	if (cqe < 1) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	if (pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(cq);
		errno = ENOMEM;
		return NULL;
	}

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_cq(ctx, cqe, channel, comp_vector, &cq->vcq.cq,
				mroce_create_cq_cmd_core(&cmd), sizeof(cmd),
				mroce_create_cq_resp_core(&resp), sizeof(resp));
	if (ret)
		goto err_free;

	if (resp.drv.cqe_size != sizeof(struct metaroce_cqe) ||
	    resp.drv.entries < (uint32_t)cqe)
		ret = EPROTO;
	else
		ret = mroce_ring_map(ctx, &cq->ring, &resp.drv.mi,
				     resp.drv.entries, resp.drv.cqe_size,
				     sizeof(struct metaroce_cqe));
	if (ret)
		goto err_destroy;
	return &cq->vcq.cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	pthread_spin_destroy(&cq->lock);
	free(cq);
	errno = ret;
	return NULL;
}

int mroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	mroce_ring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

static void mroce_cqe_to_wc(const struct metaroce_cqe *e, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = e->wr_id;
	wc->status = e->status <= IBV_WC_TM_RNDV_INCOMPLETE ?
		(enum ibv_wc_status)e->status : IBV_WC_GENERAL_ERR;
	wc->opcode = (enum ibv_wc_opcode)e->opcode;
	wc->vendor_err = e->vendor_err;
	wc->byte_len = e->byte_len;
	wc->wc_flags = e->wc_flags & MROCE_WC_FLAGS;
	if (wc->wc_flags & METAROCE_WC_F_WITH_INV)
		wc->invalidated_rkey = e->ex.invalidated_rkey;
	else
		wc->imm_data = e->ex.imm_data;
	wc->qp_num = e->qp_num;
	wc->src_qp = e->src_qp;
	wc->pkey_index = e->pkey_index;
	wc->slid = e->slid;
	wc->sl = e->sl;
	wc->dlid_path_bits = e->dlid_path_bits;
}

/* Userspace only: reads CQEs below the kernel's prod, then publishes cons. */
int mroce_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	struct mroce_ring *r = &cq->ring;
	struct metaroce_cqe e;
	uint32_t avail;
	int n = 0;

	if (num_entries <= 0)
		return 0;

	pthread_spin_lock(&cq->lock);
	avail = mroce_load_acquire(&r->hdr->prod) - r->idx;
	if (avail > r->entries) {
		pthread_spin_unlock(&cq->lock);
		return -EIO;
	}
	while (n < num_entries && avail) {
		memcpy(&e, mroce_ring_slot(r, r->idx), sizeof(e));
		mroce_cqe_to_wc(&e, &wc[n]);
		r->idx++;
		avail--;
		n++;
	}
	if (n)
		mroce_store_release(&r->hdr->cons, r->idx);
	pthread_spin_unlock(&cq->lock);
	return n;
}

int mroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/* ------------------------------------------------------------------ */
/* QP                                                                   */

MROCE_UDATA_PAIR(mroce_create_qp_cmd, struct ibv_create_qp,
		 struct metaroce_create_qp_req);
MROCE_UDATA_PAIR(mroce_create_qp_resp, struct ib_uverbs_create_qp_resp,
		 struct metaroce_create_qp_resp);

static uint32_t mroce_sq_min_stride(uint32_t max_sge, uint32_t max_inline)
{
	uint32_t body = max_sge * sizeof(struct metaroce_sge);

	if (max_inline > body)
		body = max_inline;
	return sizeof(struct metaroce_sq_wqe) + body;
}

static uint32_t mroce_rq_min_stride(uint32_t max_sge)
{
	return sizeof(struct metaroce_rq_wqe) +
	       max_sge * sizeof(struct metaroce_sge);
}

struct ibv_qp *mroce_create_qp_ex(struct ibv_context *ctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct mroce_create_qp_cmd cmd;
	struct mroce_create_qp_resp resp;
	struct mroce_qp *qp;
	int ret;

	/*
	 * No XRC, and no ibv_wr_*() send API (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS):
	 * only ibv_post_send().
	 */
	if (attr->comp_mask & ~(uint32_t)IBV_QP_INIT_ATTR_PD) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UD &&
	    attr->qp_type != IBV_QPT_UC) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	if (pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE))
		goto err_nomem;
	if (pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE)) {
		pthread_spin_destroy(&qp->sq_lock);
		goto err_nomem;
	}

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_qp_ex(ctx, &qp->vqp, attr,
				   mroce_create_qp_cmd_core(&cmd), sizeof(cmd),
				   mroce_create_qp_resp_core(&resp), sizeof(resp));
	if (ret)
		goto err_locks;

	/* libibverbs put the granted capabilities into attr->cap. */
	qp->has_rq = !attr->srq;
	qp->sq_sig_all = attr->sq_sig_all;
	qp->max_send_sge = attr->cap.max_send_sge;
	qp->max_recv_sge = attr->cap.max_recv_sge;
	qp->max_inline_data = attr->cap.max_inline_data;

	ret = EPROTO;
	if (qp->max_send_sge > METAROCE_MAX_SGE ||
	    qp->max_recv_sge > METAROCE_MAX_SGE ||
	    qp->max_inline_data > METAROCE_MAX_INLINE ||
	    resp.drv.sq_entries < attr->cap.max_send_wr)
		goto err_destroy;
	ret = mroce_ring_map(ctx, &qp->sq, &resp.drv.sq_mi,
			     resp.drv.sq_entries, resp.drv.sq_wqe_size,
			     mroce_sq_min_stride(qp->max_send_sge,
						 qp->max_inline_data));
	if (ret)
		goto err_destroy;
	qp->sq.limit = attr->cap.max_send_wr;
	if (qp->has_rq) {
		ret = EPROTO;
		if (resp.drv.rq_entries < attr->cap.max_recv_wr)
			goto err_unmap;
		ret = mroce_ring_map(ctx, &qp->rq, &resp.drv.rq_mi,
				     resp.drv.rq_entries, resp.drv.rq_wqe_size,
				     mroce_rq_min_stride(qp->max_recv_sge));
		if (ret)
			goto err_unmap;
		qp->rq.limit = attr->cap.max_recv_wr;
	}
	return &qp->vqp.qp;

err_unmap:
	mroce_ring_unmap(&qp->sq);
err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_locks:
	pthread_spin_destroy(&qp->rq_lock);
	pthread_spin_destroy(&qp->sq_lock);
	free(qp);
	errno = ret;
	return NULL;
err_nomem:
	free(qp);
	errno = ENOMEM;
	return NULL;
}

struct ibv_qp *mroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex;
	struct ibv_qp *qp;

	memset(&ex, 0, sizeof(ex));
	ex.qp_context = attr->qp_context;
	ex.send_cq = attr->send_cq;
	ex.recv_cq = attr->recv_cq;
	ex.srq = attr->srq;
	ex.cap = attr->cap;
	ex.qp_type = attr->qp_type;
	ex.sq_sig_all = attr->sq_sig_all;
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;

	qp = mroce_create_qp_ex(pd->context, &ex);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

/*
 * Back to RESET: the kernel has emptied the queues and zeroed its own
 * indices (and the ring's cons); the producer indices restart at 0 too.
 */
static void mroce_qp_reset_rings(struct mroce_qp *qp)
{
	pthread_spin_lock(&qp->sq_lock);
	qp->sq.idx = 0;
	mroce_store_release(&qp->sq.hdr->prod, 0);
	pthread_spin_unlock(&qp->sq_lock);
	if (qp->has_rq) {
		pthread_spin_lock(&qp->rq_lock);
		qp->rq.idx = 0;
		mroce_store_release(&qp->rq.hdr->prod, 0);
		pthread_spin_unlock(&qp->rq_lock);
	}
}

int mroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	struct ibv_modify_qp cmd;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	/* libibverbs updates ibqp->state after we return. */
	if ((attr_mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET)
		mroce_qp_reset_rings(qp);
	return 0;
}

int mroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int mroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	mroce_ring_unmap(&qp->sq);
	mroce_ring_unmap(&qp->rq);
	pthread_spin_destroy(&qp->rq_lock);
	pthread_spin_destroy(&qp->sq_lock);
	free(qp);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Datapath: post_send                                                  */

static bool mroce_opcode_ok(enum ibv_qp_type type, enum ibv_wr_opcode op)
{
	if (type == IBV_QPT_UD)
		return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM;
	/* UC: SENDs and WRITEs (MR-UC-1). */
	if (type == IBV_QPT_UC)
		return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
		       op == IBV_WR_RDMA_WRITE ||
		       op == IBV_WR_RDMA_WRITE_WITH_IMM;
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_SEND_WITH_INV:
		return true;
	default:
		return false;
	}
}

static bool mroce_inline_ok(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE ||
	       op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/*
 * Builds one WQE in the slot at the SQ producer index (not yet published).
 * Errors are the immediate ones of ibv_post_send(); everything the kernel
 * must judge anyway (keys, lengths, atomics' 8-byte buffer) is left to
 * it, so that the error is reported in a completion as the spec asks.
 */
static int mroce_build_send(struct mroce_qp *qp, const struct ibv_send_wr *wr)
{
	struct metaroce_sq_wqe *wqe;
	unsigned int flags = wr->send_flags;
	int64_t space;
	uint32_t i, len;

	space = mroce_ring_space(&qp->sq);
	if (space < 0)
		return EIO;
	if (!space)
		return ENOMEM;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge)
		return EINVAL;
	if (flags & ~(unsigned int)METAROCE_SEND_VALID_FLAGS)
		return EINVAL;
	if (!mroce_opcode_ok(qp->vqp.qp.qp_type, wr->opcode))
		return EINVAL;
	if (qp->sq_sig_all)
		flags |= METAROCE_SEND_SIGNALED;

	wqe = mroce_ring_slot(&qp->sq, qp->sq.idx);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = flags;

	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_INV:
		wqe->ex.invalidate_rkey = wr->invalidate_rkey;
		break;
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex.imm_data = wr->imm_data;
		break;
	default:
		break;
	}

	if (qp->vqp.qp.qp_type == IBV_QPT_UD) {
		if (!wr->wr.ud.ah)
			return EINVAL;
		wqe->wr.ud.ah_num = to_mah(wr->wr.ud.ah)->ah_num;
		wqe->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		wqe->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
	} else {
		switch (wr->opcode) {
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
		case IBV_WR_RDMA_READ:
			wqe->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
			wqe->wr.rdma.rkey = wr->wr.rdma.rkey;
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			wqe->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
			wqe->wr.atomic.compare_add = wr->wr.atomic.compare_add;
			wqe->wr.atomic.swap = wr->wr.atomic.swap;
			wqe->wr.atomic.rkey = wr->wr.atomic.rkey;
			break;
		default:
			break;
		}
	}

	if (flags & METAROCE_SEND_INLINE) {
		if (!mroce_inline_ok(wr->opcode))
			return EINVAL;
		len = 0;
		for (i = 0; i < (uint32_t)wr->num_sge; i++) {
			uint32_t l = wr->sg_list[i].length;

			if (l > qp->max_inline_data - len)
				return EINVAL;
			memcpy(wqe->inline_data + len,
			       (const void *)(uintptr_t)wr->sg_list[i].addr, l);
			len += l;
		}
		wqe->inline_len = len;
		wqe->num_sge = 0;
	} else {
		for (i = 0; i < (uint32_t)wr->num_sge; i++) {
			wqe->sge[i].addr = wr->sg_list[i].addr;
			wqe->sge[i].length = wr->sg_list[i].length;
			wqe->sge[i].lkey = wr->sg_list[i].lkey;
		}
		wqe->num_sge = wr->num_sge;
	}
	return 0;
}

/*
 * WQEs go into the SQ ring; then one doorbell (a write-path POST_SEND
 * with no WR) makes the kernel look at the ring.
 */
int mroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	struct ibv_send_wr *first = wr, *unused;
	uint32_t start;
	int ret = 0, db;

	/*
	 * Before RTS a send is an immediate error, as for kernel consumers;
	 * in SQD and ERR it is queued (and flushed in ERR).
	 */
	if (ibqp->state == IBV_QPS_RESET || ibqp->state == IBV_QPS_INIT ||
	    ibqp->state == IBV_QPS_RTR) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&qp->sq_lock);
	start = qp->sq.idx;
	for (; wr; wr = wr->next) {
		ret = mroce_build_send(qp, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
		qp->sq.idx++;
	}
	if (qp->sq.idx != start)
		mroce_store_release(&qp->sq.hdr->prod, qp->sq.idx);
	pthread_spin_unlock(&qp->sq_lock);

	if (wr == first)	/* nothing posted */
		return ret;
	db = ibv_cmd_post_send(ibqp, NULL, &unused);
	if (db && !ret) {
		*bad_wr = first;
		ret = db;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Datapath: receive queues                                             */

static int mroce_build_recv(struct mroce_ring *r, uint32_t max_sge,
			    const struct ibv_recv_wr *wr)
{
	struct metaroce_rq_wqe *wqe;
	int64_t space;
	uint32_t i;

	space = mroce_ring_space(r);
	if (space < 0)
		return EIO;
	if (!space)
		return ENOMEM;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge)
		return EINVAL;

	wqe = mroce_ring_slot(r, r->idx);
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	wqe->reserved = 0;
	for (i = 0; i < (uint32_t)wr->num_sge; i++) {
		wqe->sge[i].addr = wr->sg_list[i].addr;
		wqe->sge[i].length = wr->sg_list[i].length;
		wqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

/* Fills slots from r->idx on and publishes them; caller holds the lock. */
static int mroce_post_recv_ring(struct mroce_ring *r, uint32_t max_sge,
				struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr)
{
	uint32_t start = r->idx;
	int ret = 0;

	for (; wr; wr = wr->next) {
		ret = mroce_build_recv(r, max_sge, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
		r->idx++;
	}
	if (r->idx != start)
		mroce_store_release(&r->hdr->prod, r->idx);
	return ret;
}

/*
 * No doorbell: the kernel reads the RQ when a message needs a WQE.  The
 * exception is a QP in the error state, where nothing arrives any more:
 * then a doorbell (write-path POST_RECV with no WR) lets the kernel flush
 * the new WQEs.
 */
int mroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	struct ibv_recv_wr *unused;
	uint32_t kflags;
	int ret;

	if (!qp->has_rq || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&qp->rq_lock);
	ret = mroce_post_recv_ring(&qp->rq, qp->max_recv_sge, wr, bad_wr);
	pthread_spin_unlock(&qp->rq_lock);

	/*
	 * Store (prod) then load (kflags): a full fence, matching the
	 * kernel's between setting the flag and reading prod, so that
	 * either the kernel's flush sees the new WQEs or we see the flag.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	kflags = mroce_load_acquire(&qp->rq.hdr->kflags);
	if (kflags & METAROCE_RING_F_QP_ERR)
		ibv_cmd_post_recv(ibqp, NULL, &unused);
	return ret;
}

/* ------------------------------------------------------------------ */
/* SRQ                                                                  */

MROCE_UDATA_PAIR(mroce_create_srq_cmd, struct ibv_create_srq,
		 struct metaroce_create_srq_req);
MROCE_UDATA_PAIR(mroce_create_srq_resp, struct ib_uverbs_create_srq_resp,
		 struct metaroce_create_srq_resp);

struct ibv_srq *mroce_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr)
{
	struct mroce_create_srq_cmd cmd;
	struct mroce_create_srq_resp resp;
	struct mroce_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	if (pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(srq);
		errno = ENOMEM;
		return NULL;
	}

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr,
				 mroce_create_srq_cmd_core(&cmd), sizeof(cmd),
				 mroce_create_srq_resp_core(&resp), sizeof(resp));
	if (ret)
		goto err_free;

	/* libibverbs put the granted max_wr/max_sge into attr->attr. */
	srq->max_sge = attr->attr.max_sge;
	ret = EPROTO;
	if (srq->max_sge > METAROCE_MAX_SGE ||
	    resp.drv.entries < attr->attr.max_wr)
		goto err_destroy;
	ret = mroce_ring_map(pd->context, &srq->ring, &resp.drv.mi,
			     resp.drv.entries, resp.drv.wqe_size,
			     mroce_rq_min_stride(srq->max_sge));
	if (ret)
		goto err_destroy;
	srq->ring.limit = attr->attr.max_wr;
	return &srq->vsrq.srq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->vsrq.srq);
err_free:
	pthread_spin_destroy(&srq->lock);
	free(srq);
	errno = ret;
	return NULL;
}

int mroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask)
{
	struct ibv_modify_srq cmd;

	/* Resizing would need a new ring: not supported. */
	if (attr_mask & IBV_SRQ_MAX_WR)
		return EOPNOTSUPP;
	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int mroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int mroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct mroce_srq *srq = to_msrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	mroce_ring_unmap(&srq->ring);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

/* Userspace only: the kernel takes SRQ WQEs when messages need them. */
int mroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct mroce_srq *srq = to_msrq(ibsrq);
	int ret;

	pthread_spin_lock(&srq->lock);
	ret = mroce_post_recv_ring(&srq->ring, srq->max_sge, wr, bad_wr);
	pthread_spin_unlock(&srq->lock);
	return ret;
}
