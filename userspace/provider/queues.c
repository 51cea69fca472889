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
#include <limits.h>
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
MROCE_SAME(METAROCE_WR_LOCAL_INV, IBV_WR_LOCAL_INV);
MROCE_SAME(METAROCE_WR_BIND_MW, IBV_WR_BIND_MW);
MROCE_SAME(METAROCE_SEND_FENCE, IBV_SEND_FENCE);
MROCE_SAME(METAROCE_SEND_SIGNALED, IBV_SEND_SIGNALED);
MROCE_SAME(METAROCE_SEND_SOLICITED, IBV_SEND_SOLICITED);
MROCE_SAME(METAROCE_SEND_INLINE, IBV_SEND_INLINE);
MROCE_SAME(METAROCE_WC_SEND, IBV_WC_SEND);
MROCE_SAME(METAROCE_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE);
MROCE_SAME(METAROCE_WC_RDMA_READ, IBV_WC_RDMA_READ);
MROCE_SAME(METAROCE_WC_COMP_SWAP, IBV_WC_COMP_SWAP);
MROCE_SAME(METAROCE_WC_FETCH_ADD, IBV_WC_FETCH_ADD);
MROCE_SAME(METAROCE_WC_BIND_MW, IBV_WC_BIND_MW);
MROCE_SAME(METAROCE_WC_LOCAL_INV, IBV_WC_LOCAL_INV);
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

/*
 * The CQ of both ibv_create_cq() and ibv_create_cq_ex(): the kernel's
 * CREATE_CQ is the same for both (no kernel-side flag is ever asked for).
 */
static struct mroce_cq *mroce_cq_new(struct ibv_context *ctx, int cqe,
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
	return cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	pthread_spin_destroy(&cq->lock);
	free(cq);
	errno = ret;
	return NULL;
}

struct ibv_cq *mroce_create_cq(struct ibv_context *ctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct mroce_cq *cq = mroce_cq_new(ctx, cqe, channel, comp_vector);

	return cq ? &cq->vcq.cq : NULL;
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

/*
 * The one CQE decoder, for ibv_poll_cq() and for the ibv_cq_ex
 * accessors (which read the ibv_wc it fills).  Every field is taken from
 * a private copy of the CQE and clamped to what verbs can express.
 */
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

/*
 * CQEs ready below the kernel's prod; -1 if prod claims more than the
 * ring holds (corruption, never believed).  Caller holds the CQ lock.
 */
static int64_t mroce_cq_ready(struct mroce_ring *r)
{
	uint32_t avail = mroce_load_acquire(&r->hdr->prod) - r->idx;

	return avail > r->entries ? -1 : (int64_t)avail;
}

/* Decodes the CQE at the consumer index (not consumed yet). */
static void mroce_cq_read(struct mroce_ring *r, struct ibv_wc *wc)
{
	struct metaroce_cqe e;

	memcpy(&e, mroce_ring_slot(r, r->idx), sizeof(e));
	mroce_cqe_to_wc(&e, wc);
}

/* Userspace only: reads CQEs below the kernel's prod, then publishes cons. */
int mroce_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	struct mroce_ring *r = &cq->ring;
	int64_t avail;
	int n = 0;

	if (num_entries <= 0)
		return 0;

	pthread_spin_lock(&cq->lock);
	avail = mroce_cq_ready(r);
	if (avail < 0) {
		pthread_spin_unlock(&cq->lock);
		return -EIO;
	}
	while (n < num_entries && avail) {
		mroce_cq_read(r, &wc[n]);
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
/* Extended CQ: ibv_start_poll() / ibv_next_poll() / ibv_end_poll()     */

/*
 * The wc_flags an extended CQ can report: every field a CQE carries.
 * Completion timestamps (the device has no clock it reports, see
 * hca_core_clock), CVLAN, flow tags and tag matching are refused.
 */
#define MROCE_CQ_EX_WC_FLAGS	((uint64_t)IBV_WC_STANDARD_FLAGS)

static struct mroce_cq *to_mcqx(struct ibv_cq_ex *cqx)
{
	return MROCE_CONTAINER(cqx, struct mroce_cq, vcq.cq_ex);
}

/*
 * Makes the CQE at the consumer index the current one: 0, ENOENT (none
 * ready) or EIO (corrupt prod).  Caller holds the CQ lock.
 */
static int mroce_cqx_load(struct mroce_cq *cq)
{
	int64_t avail = mroce_cq_ready(&cq->ring);

	if (avail < 0)
		return EIO;
	if (!avail)
		return ENOENT;
	mroce_cq_read(&cq->ring, &cq->cur);
	cq->cur_valid = true;
	cq->vcq.cq_ex.wr_id = cq->cur.wr_id;
	cq->vcq.cq_ex.status = cq->cur.status;
	return 0;
}

/* Consumes the current CQE, if any, and hands its slot back. */
static void mroce_cqx_consume(struct mroce_cq *cq)
{
	if (!cq->cur_valid)
		return;
	cq->cur_valid = false;
	cq->ring.idx++;
	mroce_store_release(&cq->ring.hdr->cons, cq->ring.idx);
}

/*
 * The lock is held from a successful start_poll to end_poll, as the
 * verbs API requires; on any error start_poll returns without it.
 */
static int mroce_cqx_start_poll(struct ibv_cq_ex *cqx,
				struct ibv_poll_cq_attr *attr)
{
	struct mroce_cq *cq = to_mcqx(cqx);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	ret = mroce_cqx_load(cq);
	if (ret) {
		pthread_spin_unlock(&cq->lock);
		return ret;
	}
	cq->polling = true;
	return 0;
}

static int mroce_cqx_next_poll(struct ibv_cq_ex *cqx)
{
	struct mroce_cq *cq = to_mcqx(cqx);

	if (!cq->polling)
		return EINVAL;
	mroce_cqx_consume(cq);
	return mroce_cqx_load(cq);
}

/*
 * A call without a successful start_poll (pyverbs makes one after
 * start_poll returned ENOENT) does nothing.
 */
static void mroce_cqx_end_poll(struct ibv_cq_ex *cqx)
{
	struct mroce_cq *cq = to_mcqx(cqx);

	if (!cq->polling)
		return;
	mroce_cqx_consume(cq);
	cq->polling = false;
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode mroce_cqx_read_opcode(struct ibv_cq_ex *cqx)
{
	return to_mcqx(cqx)->cur.opcode;
}

static uint32_t mroce_cqx_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return to_mcqx(cqx)->cur.vendor_err;
}

static uint32_t mroce_cqx_read_byte_len(struct ibv_cq_ex *cqx)
{
	return to_mcqx(cqx)->cur.byte_len;
}

/* Also ibv_wc_read_invalidated_rkey(): the two share the ibv_wc union. */
static __be32 mroce_cqx_read_imm_data(struct ibv_cq_ex *cqx)
{
	return to_mcqx(cqx)->cur.imm_data;
}

static uint32_t mroce_cqx_read_qp_num(struct ibv_cq_ex *cqx)
{
	return to_mcqx(cqx)->cur.qp_num;
}

static uint32_t mroce_cqx_read_src_qp(struct ibv_cq_ex *cqx)
{
	return to_mcqx(cqx)->cur.src_qp;
}

static unsigned int mroce_cqx_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return to_mcqx(cqx)->cur.wc_flags;
}

static uint32_t mroce_cqx_read_slid(struct ibv_cq_ex *cqx)
{
	return to_mcqx(cqx)->cur.slid;
}

static uint8_t mroce_cqx_read_sl(struct ibv_cq_ex *cqx)
{
	return to_mcqx(cqx)->cur.sl;
}

static uint8_t mroce_cqx_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return to_mcqx(cqx)->cur.dlid_path_bits;
}

/*
 * Every accessor of a field the CQE has is installed whatever wc_flags
 * asked for (a read of an unrequested field returns its value, not a
 * crash); the refused ones stay NULL, as their flags cannot be granted.
 */
static void mroce_cqx_init(struct ibv_cq_ex *cqx)
{
	cqx->start_poll = mroce_cqx_start_poll;
	cqx->next_poll = mroce_cqx_next_poll;
	cqx->end_poll = mroce_cqx_end_poll;
	cqx->read_opcode = mroce_cqx_read_opcode;
	cqx->read_vendor_err = mroce_cqx_read_vendor_err;
	cqx->read_byte_len = mroce_cqx_read_byte_len;
	cqx->read_imm_data = mroce_cqx_read_imm_data;
	cqx->read_qp_num = mroce_cqx_read_qp_num;
	cqx->read_src_qp = mroce_cqx_read_src_qp;
	cqx->read_wc_flags = mroce_cqx_read_wc_flags;
	cqx->read_slid = mroce_cqx_read_slid;
	cqx->read_sl = mroce_cqx_read_sl;
	cqx->read_dlid_path_bits = mroce_cqx_read_dlid_path_bits;
}

/*
 * Refused (EOPNOTSUPP): wc_flags beyond MROCE_CQ_EX_WC_FLAGS, a parent
 * domain (IBV_CQ_INIT_ATTR_MASK_PD) and IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN
 * (a full CQ is an error to the kernel: MR-VERBS-21,
 * "Responder CQ overflow").
 * IBV_CREATE_CQ_ATTR_SINGLE_THREADED is accepted: the lock stays, which
 * is correct for any caller.
 */
struct ibv_cq_ex *mroce_create_cq_ex(struct ibv_context *ctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct mroce_cq *cq;
	uint32_t flags = 0;

	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS)
		flags = attr->flags;
	if ((attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    (attr->wc_flags & ~MROCE_CQ_EX_WC_FLAGS) ||
	    (flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->cqe > INT_MAX) {
		errno = EINVAL;
		return NULL;
	}
	cq = mroce_cq_new(ctx, (int)attr->cqe, attr->channel,
			  (int)attr->comp_vector);
	if (!cq)
		return NULL;
	mroce_cqx_init(&cq->vcq.cq_ex);
	return &cq->vcq.cq_ex;
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

static void mroce_qpx_init(struct mroce_qp *qp, uint64_t send_ops);

/* The ibv_wr_*() operations of each QP type (IBV_QP_EX_WITH_*). */
#define MROCE_QPX_OPS_UD						\
	((uint64_t)(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM))
/* UC: SENDs and WRITEs (MR-UC-1). */
#define MROCE_QPX_OPS_UC						\
	(MROCE_QPX_OPS_UD | IBV_QP_EX_WITH_RDMA_WRITE |			\
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define MROCE_QPX_OPS_RC						\
	(MROCE_QPX_OPS_UD | IBV_QP_EX_WITH_RDMA_WRITE |			\
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |				\
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |	\
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |				\
	 IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_LOCAL_INV |	\
	 IBV_QP_EX_WITH_BIND_MW)

/* For the opcodes above, IBV_QP_EX_WITH_<op> is 1 << IBV_WR_<op>. */
#define MROCE_QPX_BIT(op)						\
	_Static_assert(IBV_QP_EX_WITH_##op == 1ULL << IBV_WR_##op,	\
		       "IBV_QP_EX_WITH_" #op)
MROCE_QPX_BIT(RDMA_WRITE);
MROCE_QPX_BIT(RDMA_WRITE_WITH_IMM);
MROCE_QPX_BIT(SEND);
MROCE_QPX_BIT(SEND_WITH_IMM);
MROCE_QPX_BIT(RDMA_READ);
MROCE_QPX_BIT(ATOMIC_CMP_AND_SWP);
MROCE_QPX_BIT(ATOMIC_FETCH_AND_ADD);
MROCE_QPX_BIT(SEND_WITH_INV);
MROCE_QPX_BIT(LOCAL_INV);
MROCE_QPX_BIT(BIND_MW);
#undef MROCE_QPX_BIT

/*
 * The create_qp_ex attributes a QP can carry: a PD (required), the
 * ibv_wr_*() operations (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS), and creation
 * flags and a TSO header size at their defaults (0).  Refused with
 * EOPNOTSUPP: XRC, RSS (IND_TABLE, RX_HASH), any creation flag, TSO, and
 * ibv_wr_*() operations the device or the QP type cannot do (TSO,
 * ATOMIC_WRITE; on UD anything but SEND and SEND_WITH_IMM).
 */
#define MROCE_QP_INIT_ATTR_MASK						\
	((uint32_t)(IBV_QP_INIT_ATTR_PD |				\
		    IBV_QP_INIT_ATTR_CREATE_FLAGS |			\
		    IBV_QP_INIT_ATTR_MAX_TSO_HEADER |			\
		    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))

static int mroce_qp_attr_check(const struct ibv_qp_init_attr_ex *attr)
{
	uint32_t mask = attr->comp_mask;
	uint64_t ops_ok;

	if ((mask & ~MROCE_QP_INIT_ATTR_MASK) ||
	    ((mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags) ||
	    ((mask & IBV_QP_INIT_ATTR_MAX_TSO_HEADER) && attr->max_tso_header))
		return EOPNOTSUPP;
	if (!(mask & IBV_QP_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UD &&
	    attr->qp_type != IBV_QPT_UC)
		return EOPNOTSUPP;
	if (!(mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return 0;
	ops_ok = attr->qp_type == IBV_QPT_UD ? MROCE_QPX_OPS_UD :
		 attr->qp_type == IBV_QPT_UC ? MROCE_QPX_OPS_UC :
					       MROCE_QPX_OPS_RC;
	return attr->send_ops_flags & ~ops_ok ? EOPNOTSUPP : 0;
}

struct ibv_qp *mroce_create_qp_ex(struct ibv_context *ctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct mroce_create_qp_cmd cmd;
	struct mroce_create_qp_resp resp;
	struct ibv_qp_init_attr_ex kattr;
	struct mroce_qp *qp;
	int ret;

	ret = mroce_qp_attr_check(attr);
	if (ret) {
		errno = ret;
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

	/*
	 * The kernel command carries none of the other attributes (all at
	 * their defaults here, and ibv_cmd_create_qp_ex() refuses them).
	 */
	kattr = *attr;
	kattr.comp_mask = IBV_QP_INIT_ATTR_PD;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_qp_ex(ctx, &qp->vqp, &kattr,
				   mroce_create_qp_cmd_core(&cmd), sizeof(cmd),
				   mroce_create_qp_resp_core(&resp), sizeof(resp));
	if (ret)
		goto err_locks;
	attr->cap = kattr.cap;

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
	/* An ibv_qp_ex even with no operation: ibv_qp_to_qp_ex() works. */
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		mroce_qpx_init(qp, attr->send_ops_flags);
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
	if ((attr_mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET) {
		mroce_qp_reset_rings(qp);
		/* cq_clean.c: no completion of the old life is left. */
		mroce_cq_discard_qp(ibqp->send_cq, ibqp->qp_num);
		if (ibqp->recv_cq != ibqp->send_cq)
			mroce_cq_discard_qp(ibqp->recv_cq, ibqp->qp_num);
	}
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
	case IBV_WR_LOCAL_INV:
	case IBV_WR_BIND_MW:
		return true;
	default:
		return false;
	}
}

static bool mroce_inline_ok(uint32_t op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE ||
	       op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/*
 * The SQ WQE builder, in parts shared by ibv_post_send() and the
 * ibv_wr_*() API: mroce_wqe_start() claims the slot at the producer index
 * and writes the header, the mroce_wqe_set_*() calls fill in the
 * operation's fields and the data, and the caller commits the WQE by
 * advancing sq.idx (published later, with the doorbell, by
 * mroce_sq_publish()).  Errors are the immediate ones of ibv_post_send();
 * everything the kernel must judge anyway (keys, lengths, atomics' 8-byte
 * buffer) is left to it, so that the error is reported in a completion as
 * the spec asks.  Caller holds sq_lock.
 */
static int mroce_wqe_start(struct mroce_qp *qp, uint64_t wr_id,
			   enum ibv_wr_opcode op, unsigned int flags,
			   struct metaroce_sq_wqe **out)
{
	struct metaroce_sq_wqe *wqe;
	int64_t space;

	space = mroce_ring_space(&qp->sq);
	if (space < 0)
		return EIO;
	if (!space)
		return ENOMEM;
	if (flags & ~(unsigned int)METAROCE_SEND_VALID_FLAGS)
		return EINVAL;
	if (!mroce_opcode_ok(qp->vqp.qp.qp_type, op))
		return EINVAL;
	if (qp->sq_sig_all)
		flags |= METAROCE_SEND_SIGNALED;

	wqe = mroce_ring_slot(&qp->sq, qp->sq.idx);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr_id;
	wqe->opcode = op;
	wqe->send_flags = flags;
	*out = wqe;
	return 0;
}

static void mroce_wqe_set_rdma(struct metaroce_sq_wqe *wqe, uint32_t rkey,
			       uint64_t remote_addr)
{
	wqe->wr.rdma.remote_addr = remote_addr;
	wqe->wr.rdma.rkey = rkey;
}

static void mroce_wqe_set_atomic(struct metaroce_sq_wqe *wqe, uint32_t rkey,
				 uint64_t remote_addr, uint64_t compare_add,
				 uint64_t swap)
{
	wqe->wr.atomic.remote_addr = remote_addr;
	wqe->wr.atomic.compare_add = compare_add;
	wqe->wr.atomic.swap = swap;
	wqe->wr.atomic.rkey = rkey;
}

static int mroce_wqe_set_ud(struct metaroce_sq_wqe *wqe, struct ibv_ah *ah,
			    uint32_t remote_qpn, uint32_t remote_qkey)
{
	if (!ah)
		return EINVAL;
	wqe->wr.ud.ah_num = to_mah(ah)->ah_num;
	wqe->wr.ud.remote_qpn = remote_qpn;
	wqe->wr.ud.remote_qkey = remote_qkey;
	return 0;
}

/* Data by reference: num_sge SGEs (replaces any data set before). */
static int mroce_wqe_set_sge(struct mroce_qp *qp, struct metaroce_sq_wqe *wqe,
			     size_t num_sge, const struct ibv_sge *sg_list)
{
	size_t i;

	if (num_sge > qp->max_send_sge)
		return EINVAL;
	for (i = 0; i < num_sge; i++) {
		wqe->sge[i].addr = sg_list[i].addr;
		wqe->sge[i].length = sg_list[i].length;
		wqe->sge[i].lkey = sg_list[i].lkey;
	}
	wqe->num_sge = (uint32_t)num_sge;
	wqe->inline_len = 0;
	wqe->send_flags &= ~(uint32_t)METAROCE_SEND_INLINE;
	return 0;
}

/*
 * Inline data: mroce_wqe_inline_start(), then mroce_wqe_add_inline() per
 * buffer.  The running length lives in *len, the caller's, never read
 * back from the ring slot.
 */
static int mroce_wqe_inline_start(struct metaroce_sq_wqe *wqe, uint32_t *len)
{
	if (!mroce_inline_ok(wqe->opcode))
		return EINVAL;
	wqe->send_flags |= METAROCE_SEND_INLINE;
	wqe->num_sge = 0;
	wqe->inline_len = 0;
	*len = 0;
	return 0;
}

static int mroce_wqe_add_inline(struct mroce_qp *qp,
				struct metaroce_sq_wqe *wqe, uint32_t *len,
				const void *addr, size_t length)
{
	if (length > qp->max_inline_data - *len)
		return EINVAL;
	memcpy(wqe->inline_data + *len, addr, length);
	*len += (uint32_t)length;
	wqe->inline_len = *len;
	return 0;
}

/* Builds one ibv_post_send() WR into the slot at the SQ producer index. */
static int mroce_build_send(struct mroce_qp *qp, const struct ibv_send_wr *wr)
{
	struct metaroce_sq_wqe *wqe;
	uint32_t i, len;
	int ret;

	ret = mroce_wqe_start(qp, wr->wr_id, wr->opcode, wr->send_flags, &wqe);
	if (ret)
		return ret;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge)
		return EINVAL;

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
		ret = mroce_wqe_set_ud(wqe, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				       wr->wr.ud.remote_qkey);
		if (ret)
			return ret;
	} else {
		switch (wr->opcode) {
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
		case IBV_WR_RDMA_READ:
			mroce_wqe_set_rdma(wqe, wr->wr.rdma.rkey,
					   wr->wr.rdma.remote_addr);
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			mroce_wqe_set_atomic(wqe, wr->wr.atomic.rkey,
					     wr->wr.atomic.remote_addr,
					     wr->wr.atomic.compare_add,
					     wr->wr.atomic.swap);
			break;
		/* Local operations: no data (mw.c). */
		case IBV_WR_LOCAL_INV:
			wqe->ex.invalidate_rkey = wr->invalidate_rkey;
			return wr->send_flags & IBV_SEND_INLINE ? EINVAL : 0;
		case IBV_WR_BIND_MW:
			if (wr->send_flags & IBV_SEND_INLINE)
				return EINVAL;
			return mroce_wqe_set_bind(wqe, wr->bind_mw.mw,
						  wr->bind_mw.rkey,
						  &wr->bind_mw.bind_info);
		default:
			break;
		}
	}

	if (!(wr->send_flags & IBV_SEND_INLINE))
		return mroce_wqe_set_sge(qp, wqe, (size_t)wr->num_sge,
					 wr->sg_list);
	ret = mroce_wqe_inline_start(wqe, &len);
	for (i = 0; !ret && i < (uint32_t)wr->num_sge; i++)
		ret = mroce_wqe_add_inline(qp, wqe, &len,
			(const void *)(uintptr_t)wr->sg_list[i].addr,
			wr->sg_list[i].length);
	return ret;
}

/*
 * Before RTS a send is an immediate error, as for kernel consumers; in
 * SQD and ERR it is queued (and flushed in ERR).
 */
static bool mroce_sq_open(const struct ibv_qp *ibqp)
{
	return ibqp->state != IBV_QPS_RESET && ibqp->state != IBV_QPS_INIT &&
	       ibqp->state != IBV_QPS_RTR;
}

/*
 * Publishes the WQEs committed since 'start' and releases sq_lock; then
 * one doorbell (a write-path POST_SEND with no WR) makes the kernel look
 * at the ring.  Returns the doorbell's error; nothing to publish, no
 * doorbell.
 */
static int mroce_sq_publish(struct mroce_qp *qp, uint32_t start)
{
	struct ibv_send_wr *unused;
	bool posted = qp->sq.idx != start;

	if (posted)
		mroce_store_release(&qp->sq.hdr->prod, qp->sq.idx);
	pthread_spin_unlock(&qp->sq_lock);
	if (!posted)
		return 0;
	return ibv_cmd_post_send(&qp->vqp.qp, NULL, &unused);
}

int mroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	struct ibv_send_wr *first = wr;
	uint32_t start;
	int ret = 0, db;

	if (!mroce_sq_open(ibqp)) {
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
	db = mroce_sq_publish(qp, start);
	if (db && !ret) {
		*bad_wr = first;
		ret = db;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Datapath: the ibv_wr_*() send API (extended QP)                      */

/*
 * ibv_wr_start() takes sq_lock and ibv_wr_complete()/ibv_wr_abort()
 * releases it.  A builder (ibv_wr_send(), ...) commits the WQE before it
 * and starts a new one in the next slot with the same mroce_wqe_*() parts
 * as ibv_post_send(); the setters fill in the current one.  The first
 * error ends the building: the calls after it do nothing, and
 * ibv_wr_complete() discards the whole batch and returns that error.
 * Only ibv_wr_complete() publishes the producer index and rings the
 * doorbell, once for the batch.
 */

static struct mroce_qp *to_mqpx(struct ibv_qp_ex *qpx)
{
	return MROCE_CONTAINER(qpx, struct mroce_qp, vqp.qp_ex);
}

static void mroce_wr_fail(struct mroce_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
	qp->wr_cur = NULL;
}

/* Commits the current WQE, if any (a UD one only with its address). */
static void mroce_wr_commit(struct mroce_qp *qp)
{
	if (!qp->wr_cur)
		return;
	if (qp->wr_need_ud) {
		mroce_wr_fail(qp, EINVAL);
		return;
	}
	qp->wr_cur = NULL;
	qp->sq.idx++;
}

static struct metaroce_sq_wqe *mroce_wr_begin(struct ibv_qp_ex *qpx,
					      enum ibv_wr_opcode op)
{
	struct mroce_qp *qp = to_mqpx(qpx);
	/* Inline or gather is the data setter's choice, not wr_flags'. */
	unsigned int flags = qpx->wr_flags & ~(unsigned int)IBV_SEND_INLINE;
	struct metaroce_sq_wqe *wqe;
	int ret;

	mroce_wr_commit(qp);
	if (qp->wr_err)
		return NULL;
	if (!(qp->send_ops & (1ULL << op)))
		ret = EINVAL;
	else
		ret = mroce_wqe_start(qp, qpx->wr_id, op, flags, &wqe);
	if (ret) {
		mroce_wr_fail(qp, ret);
		return NULL;
	}
	qp->wr_cur = wqe;
	qp->wr_need_ud = qp->vqp.qp.qp_type == IBV_QPT_UD;
	return wqe;
}

/* The WQE a setter applies to; a setter without a builder is an error. */
static struct metaroce_sq_wqe *mroce_wr_cur(struct mroce_qp *qp)
{
	if (!qp->wr_cur && !qp->wr_err)
		mroce_wr_fail(qp, EINVAL);
	return qp->wr_cur;
}

static void mroce_wr_start(struct ibv_qp_ex *qpx)
{
	struct mroce_qp *qp = to_mqpx(qpx);

	pthread_spin_lock(&qp->sq_lock);
	qp->wr_first = qp->sq.idx;
	qp->wr_cur = NULL;
	qp->wr_err = 0;
}

static int mroce_wr_complete(struct ibv_qp_ex *qpx)
{
	struct mroce_qp *qp = to_mqpx(qpx);
	int ret;

	mroce_wr_commit(qp);
	ret = qp->wr_err;
	if (!ret && !mroce_sq_open(&qp->vqp.qp))
		ret = EINVAL;
	if (ret) {
		qp->sq.idx = qp->wr_first;
		pthread_spin_unlock(&qp->sq_lock);
		return ret;
	}
	return mroce_sq_publish(qp, qp->wr_first);
}

/* The slots after the published prod were never the kernel's. */
static void mroce_wr_abort(struct ibv_qp_ex *qpx)
{
	struct mroce_qp *qp = to_mqpx(qpx);

	qp->wr_cur = NULL;
	qp->sq.idx = qp->wr_first;
	pthread_spin_unlock(&qp->sq_lock);
}

static void mroce_wr_send(struct ibv_qp_ex *qpx)
{
	mroce_wr_begin(qpx, IBV_WR_SEND);
}

static void mroce_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct metaroce_sq_wqe *wqe = mroce_wr_begin(qpx, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->ex.imm_data = imm_data;
}

static void mroce_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct metaroce_sq_wqe *wqe = mroce_wr_begin(qpx, IBV_WR_SEND_WITH_INV);

	if (wqe)
		wqe->ex.invalidate_rkey = invalidate_rkey;
}

static void mroce_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr)
{
	struct metaroce_sq_wqe *wqe = mroce_wr_begin(qpx, IBV_WR_RDMA_WRITE);

	if (wqe)
		mroce_wqe_set_rdma(wqe, rkey, remote_addr);
}

static void mroce_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	struct metaroce_sq_wqe *wqe;

	wqe = mroce_wr_begin(qpx, IBV_WR_RDMA_WRITE_WITH_IMM);
	if (!wqe)
		return;
	wqe->ex.imm_data = imm_data;
	mroce_wqe_set_rdma(wqe, rkey, remote_addr);
}

static void mroce_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	struct metaroce_sq_wqe *wqe = mroce_wr_begin(qpx, IBV_WR_RDMA_READ);

	if (wqe)
		mroce_wqe_set_rdma(wqe, rkey, remote_addr);
}

static void mroce_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	struct metaroce_sq_wqe *wqe;

	wqe = mroce_wr_begin(qpx, IBV_WR_ATOMIC_CMP_AND_SWP);
	if (wqe)
		mroce_wqe_set_atomic(wqe, rkey, remote_addr, compare, swap);
}

static void mroce_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	struct metaroce_sq_wqe *wqe;

	wqe = mroce_wr_begin(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD);
	if (wqe)
		mroce_wqe_set_atomic(wqe, rkey, remote_addr, add, 0);
}

static void mroce_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct mroce_qp *qp = to_mqpx(qpx);
	struct metaroce_sq_wqe *wqe = mroce_wr_cur(qp);
	int ret;

	if (!wqe)
		return;
	if (qp->vqp.qp.qp_type != IBV_QPT_UD)
		ret = EINVAL;
	else
		ret = mroce_wqe_set_ud(wqe, ah, remote_qpn, remote_qkey);
	if (ret)
		mroce_wr_fail(qp, ret);
	else
		qp->wr_need_ud = false;
}

static void mroce_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct mroce_qp *qp = to_mqpx(qpx);
	struct metaroce_sq_wqe *wqe = mroce_wr_cur(qp);

	if (wqe && mroce_wqe_set_sge(qp, wqe, num_sge, sg_list))
		mroce_wr_fail(qp, EINVAL);
}

static void mroce_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	mroce_wr_set_sge_list(qpx, 1, &sge);
}

static void mroce_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct mroce_qp *qp = to_mqpx(qpx);
	struct metaroce_sq_wqe *wqe = mroce_wr_cur(qp);
	uint32_t len;
	size_t i;
	int ret;

	if (!wqe)
		return;
	ret = mroce_wqe_inline_start(wqe, &len);
	for (i = 0; !ret && i < num_buf; i++)
		ret = mroce_wqe_add_inline(qp, wqe, &len, buf_list[i].addr,
					   buf_list[i].length);
	if (ret)
		mroce_wr_fail(qp, ret);
}

static void mroce_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				     size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	mroce_wr_set_inline_data_list(qpx, 1, &buf);
}

/*
 * Memory windows: a bind carries its window, new rkey, MR range and
 * rights (struct metaroce_wqe_bind, checked by the kernel in SQ order,
 * MR-MW-3); LOCAL_INV its key.  Neither takes a data setter.
 */
static void mroce_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *bind_info)
{
	struct metaroce_sq_wqe *wqe = mroce_wr_begin(qpx, IBV_WR_BIND_MW);
	int ret;

	if (!wqe)
		return;
	ret = mroce_wqe_set_bind(wqe, mw, rkey, bind_info);
	if (ret)
		mroce_wr_fail(to_mqpx(qpx), ret);
}

static void mroce_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct metaroce_sq_wqe *wqe = mroce_wr_begin(qpx, IBV_WR_LOCAL_INV);

	if (wqe)
		wqe->ex.invalidate_rkey = invalidate_rkey;
}

/*
 * The operations create_qp_ex refuses (their IBV_QP_EX_WITH_* bits are
 * never granted) and XRC's setter: a call fails the batch instead of
 * jumping through a NULL pointer.
 */
static void mroce_wr_send_tso(struct ibv_qp_ex *qpx, void *hdr,
			      uint16_t hdr_sz, uint16_t mss)
{
	(void)hdr;
	(void)hdr_sz;
	(void)mss;
	mroce_wr_fail(to_mqpx(qpx), EOPNOTSUPP);
}

static void mroce_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	(void)remote_srqn;
	mroce_wr_fail(to_mqpx(qpx), EOPNOTSUPP);
}

static void mroce_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	(void)rkey;
	(void)remote_addr;
	(void)atomic_wr;
	mroce_wr_fail(to_mqpx(qpx), EOPNOTSUPP);
}

/* Makes the QP an ibv_qp_ex (ibv_qp_to_qp_ex() returns it from now on). */
static void mroce_qpx_init(struct mroce_qp *qp, uint64_t send_ops)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	qp->send_ops = send_ops;
	qpx->comp_mask = 0;
	qpx->wr_atomic_cmp_swp = mroce_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = mroce_wr_atomic_fetch_add;
	qpx->wr_bind_mw = mroce_wr_bind_mw;
	qpx->wr_local_inv = mroce_wr_local_inv;
	qpx->wr_rdma_read = mroce_wr_rdma_read;
	qpx->wr_rdma_write = mroce_wr_rdma_write;
	qpx->wr_rdma_write_imm = mroce_wr_rdma_write_imm;
	qpx->wr_send = mroce_wr_send;
	qpx->wr_send_imm = mroce_wr_send_imm;
	qpx->wr_send_inv = mroce_wr_send_inv;
	qpx->wr_send_tso = mroce_wr_send_tso;
	qpx->wr_set_ud_addr = mroce_wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = mroce_wr_set_xrc_srqn;
	qpx->wr_set_inline_data = mroce_wr_set_inline_data;
	qpx->wr_set_inline_data_list = mroce_wr_set_inline_data_list;
	qpx->wr_set_sge = mroce_wr_set_sge;
	qpx->wr_set_sge_list = mroce_wr_set_sge_list;
	qpx->wr_start = mroce_wr_start;
	qpx->wr_complete = mroce_wr_complete;
	qpx->wr_abort = mroce_wr_abort;
	qpx->wr_atomic_write = mroce_wr_atomic_write;
	qp->vqp.comp_mask |= VERBS_QP_EX;
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
