// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE user-space verbs: the process's context, the rings shared with
 * it (allocation, mmap) and the copy-out of work requests from its rings
 * into the kernel's queues. Layout and rules: uapi/metaroce-abi.h;
 * design: Documentation/metaroce/provider.rst.
 *
 * Every ring byte is hostile (the ABI header's SECURITY rules): the peer
 * index is read once per batch and checked against the kernel's own
 * indices, each WQE is copied out once and only the copy is validated
 * and used, and every loop is bounded by the ring size the kernel chose.
 * The kernel's queue has the ring's size, so ring slot i and kernel
 * slot i correspond and no WQE index is ever taken from the ring.
 */

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "metaroce.h"

/* ---- udata ------------------------------------------------------------ */

/*
 * Read a driver request: missing bytes read as zero, extra bytes must be
 * zero, and no comp_mask bit (the first u32 of every request) is known.
 */
int mroce_udata_req(struct ib_udata *udata, void *req, size_t len)
{
	int err;

	memset(req, 0, len);
	if (!udata || !udata->inlen)
		return 0;
	err = ib_copy_from_udata(req, udata, min(len, udata->inlen));
	if (err)
		return err;
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EOPNOTSUPP;
	if (*(u32 *)req)
		return -EOPNOTSUPP;
	return 0;
}

/* Write a driver response, truncated to what the process asked for. */
int mroce_udata_resp(struct ib_udata *udata, const void *resp, size_t len)
{
	if (!udata->outlen)
		return 0;
	return ib_copy_to_udata(udata, (void *)resp, min(len, udata->outlen));
}

/* ---- context and mmap ------------------------------------------------- */

/* The context of the process a verb with @udata comes from. */
struct mroce_ucontext *mroce_udata_uctx(struct ib_udata *udata)
{
	return rdma_udata_to_drv_context(udata, struct mroce_ucontext, ibuc);
}

int mroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct mroce_ucontext *uc = to_muctx(ibuc);
	struct metaroce_alloc_ucontext_req req;
	struct metaroce_alloc_ucontext_resp resp = {
		.abi_version = METAROCE_UVERBS_ABI_VERSION,
		.ring_hdr_size = METAROCE_RING_HDR_SIZE,
		.cqe_size = sizeof(struct metaroce_cqe),
		.max_inline_data = MROCE_MAX_INLINE,
		.max_sge = MROCE_MAX_SGE,
	};
	int err;

	err = mroce_udata_req(udata, &req, sizeof(req));
	if (err)
		return err;
	/* Looked up under sq.lock, which softirqs take: BH-safe lock. */
	xa_init_flags(&uc->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	return mroce_udata_resp(udata, &resp, sizeof(resp));
}

void mroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct mroce_ucontext *uc = to_muctx(ibuc);

	/* uverbs destroyed every AH of the context before. */
	WARN_ON(!xa_empty(&uc->ahs));
	xa_destroy(&uc->ahs);
}

int mroce_mmap(struct ib_ucontext *uc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rentry;
	struct mroce_mmap_entry *e;
	unsigned long off;
	int err = 0;

	/* Checks that the length is exactly the ring's. */
	rentry = rdma_user_mmap_entry_get(uc, vma);
	if (!rentry)
		return -EINVAL;
	e = container_of(rentry, struct mroce_mmap_entry, rentry);
	/*
	 * Page by page: remap_vmalloc_range() takes only vmalloc_user()
	 * memory, which is not charged to the process's memory cgroup.
	 * The pages are referenced by the mapping: they outlive a vfree()
	 * of the ring (mmap_free) until the process unmaps them.  Work
	 * bounded by the ring's size, which the verb that made it bounded.
	 */
	for (off = 0; off < vma->vm_end - vma->vm_start && !err;
	     off += PAGE_SIZE)
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page((u8 *)e->buf + off));
	if (!err)
		vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	rdma_user_mmap_entry_put(rentry);
	return err;
}

void mroce_mmap_free(struct rdma_user_mmap_entry *rentry)
{
	struct mroce_mmap_entry *e =
		container_of(rentry, struct mroce_mmap_entry, rentry);

	vfree(e->buf);
	kfree(e);
}

/* ---- rings ------------------------------------------------------------ */

int mroce_uring_alloc(struct mroce_uring *r, struct ib_ucontext *uc,
		      u32 entries, u32 stride, struct metaroce_mmap_info *mi)
{
	struct mroce_mmap_entry *e;
	size_t size;
	int err;

	if (WARN_ON(!is_power_of_2(entries) ||
		    entries > METAROCE_MAX_RING_ENTRIES))
		return -EINVAL;
	size = PAGE_ALIGN(METAROCE_RING_HDR_SIZE + (size_t)entries * stride);
	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	/*
	 * Zeroed: both indices and every slot start at 0.  Charged to the
	 * memory cgroup of the process that asked, like every other object
	 * a verb allocates for it: a ring is up to 64 Ki slots, and a
	 * process may hold thousands of them.
	 */
	e->buf = __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!e->buf) {
		kfree(e);
		return -ENOMEM;
	}
	err = rdma_user_mmap_entry_insert(uc, &e->rentry, size);
	if (err) {
		vfree(e->buf);
		kfree(e);
		return err;
	}
	r->entry = e;
	r->hdr = e->buf;
	r->slots = (u8 *)e->buf + METAROCE_RING_HDR_SIZE;
	r->entries = entries;
	r->stride = stride;
	mi->offset = rdma_user_mmap_get_offset(&e->rentry);
	mi->size = size;
	return 0;
}

/* The kernel stops using the ring; the memory goes with the last unmap. */
void mroce_uring_free(struct mroce_uring *r)
{
	if (r->entry)
		rdma_user_mmap_entry_remove(&r->entry->rentry);
	memset(r, 0, sizeof(*r));
}

/* kflags is written by the kernel only; callers serialise. */
void mroce_uring_set_kflags(struct mroce_uring *r, u32 set, u32 clear)
{
	u32 f;

	if (!r->hdr)
		return;
	f = (READ_ONCE(r->hdr->kflags) & ~clear) | set;
	mroce_uring_put(&r->hdr->kflags, f);
}

/* ---- receive queues ---------------------------------------------------- */

/* Publish the consumer index of a user RQ/SRQ; rq->lock held. */
void mroce_urq_publish(struct mroce_rq *rq)
{
	if (rq->ur.hdr)
		mroce_uring_put(&rq->ur.hdr->cons, rq->head);
}

/*
 * Copy the WQEs the process produced since the last pull into the
 * kernel's queue, at the same indices; rq->lock held. A WQE whose
 * num_sge exceeds the queue's max_sge is taken as one without buffers:
 * any payload then fails on it as a length error and moves the QP to
 * the error state (MR-VERBS-3). Returns -EIO once the ring's prod is
 * corrupt (beyond the ring, or behind what was already taken); the
 * queue is then broken and the caller puts its QP/SRQ in error.
 */
int mroce_urq_pull(struct mroce_rq *rq)
{
	const struct metaroce_rq_wqe *src;
	struct mroce_recv_wqe *dst;
	u32 prod, num_sge;
	u64 wr_id;

	if (!rq->ur.hdr)
		return 0;
	if (rq->broken)
		return -EIO;
	prod = mroce_uring_get(&rq->ur.hdr->prod);
	if (prod - rq->head > rq->size ||
	    prod - rq->head < rq->tail - rq->head) {
		rq->broken = true;
		return -EIO;
	}
	/* At most rq->size iterations: prod - tail <= prod - head. */
	for (; rq->tail != prod; rq->tail++) {
		src = mroce_uring_slot(&rq->ur, rq->tail);
		dst = mroce_rq_wqe(rq, rq->tail);
		wr_id = READ_ONCE(src->wr_id);
		num_sge = READ_ONCE(src->num_sge);
		if (num_sge > rq->max_sge)
			num_sge = 0;
		/* metaroce_sge and ib_sge have the same layout. */
		BUILD_BUG_ON(sizeof(struct metaroce_sge) !=
			     sizeof(struct ib_sge));
		memcpy(dst->sge, src->sge, num_sge * sizeof(dst->sge[0]));
		dst->wr_id = wr_id;
		dst->num_sge = num_sge;
	}
	return 0;
}

/* ---- send queue -------------------------------------------------------- */

static bool mroce_uwr_opcode_ok(enum ib_qp_type type, u32 op)
{
	switch (op) {
	case METAROCE_WR_SEND:
	case METAROCE_WR_SEND_WITH_IMM:
		return true;
	case METAROCE_WR_RDMA_WRITE:
	case METAROCE_WR_RDMA_WRITE_WITH_IMM:
		/* UC carries SENDs and WRITEs (MR-UC-1). */
		return type == IB_QPT_RC || type == IB_QPT_UC;
	case METAROCE_WR_RDMA_READ:
	case METAROCE_WR_ATOMIC_CMP_AND_SWP:
	case METAROCE_WR_ATOMIC_FETCH_AND_ADD:
	case METAROCE_WR_SEND_WITH_INV:
	case METAROCE_WR_LOCAL_INV:
	case METAROCE_WR_BIND_MW:
		return type == IB_QPT_RC;
	default:
		return false;
	}
}

static bool mroce_uwr_inline_ok(u32 op)
{
	return op == METAROCE_WR_SEND || op == METAROCE_WR_SEND_WITH_IMM ||
	       op == METAROCE_WR_SEND_WITH_INV ||
	       op == METAROCE_WR_RDMA_WRITE ||
	       op == METAROCE_WR_RDMA_WRITE_WITH_IMM;
}

/* Resolve a UD WQE's AH in the QP's context (MR-VERBS-23). */
static u8 mroce_uwr_ah(struct mroce_qp *qp, u32 ah_num,
		       struct mroce_send_wqe *wqe)
{
	struct xarray *xa = &qp->uctx->ahs;
	struct mroce_ah *ah;
	unsigned long flags;
	u8 status = IB_WC_SUCCESS;

	/*
	 * Under sq.lock (the doorbell). The xarray lock is always taken
	 * with interrupts off (XA_FLAGS_LOCK_IRQ: ah.c's xa_alloc and
	 * xa_erase too), so nesting it here is consistent for lockdep, and
	 * the AH cannot be freed while its address vector is copied.
	 */
	xa_lock_irqsave(xa, flags);
	ah = xa_load(xa, ah_num);
	if (!ah || ah->ibah.pd != qp->ibqp.pd)
		status = IB_WC_LOC_QP_OP_ERR;
	else
		wqe->wr.ud.av = ah->av;
	xa_unlock_irqrestore(xa, flags);
	return status;
}

/*
 * Copy the SQ WQE at kernel index @idx out of the ring into the kernel's
 * SQ slot @idx, then validate the copy. Returns the completion status
 * of a WQE that cannot be executed, IB_WC_SUCCESS otherwise.
 */
static u8 mroce_usq_copy(struct mroce_qp *qp, u32 idx)
{
	const struct metaroce_sq_wqe *src = mroce_uring_slot(&qp->usq, idx);
	struct mroce_sq *sq = &qp->sq;
	struct mroce_send_wqe *wqe = mroce_sq_wqe(sq, idx);
	struct metaroce_sq_wqe h;
	u64 len = 0;
	u32 i;

	/*
	 * The fixed part, once; from here on only h is read (the barrier
	 * keeps the compiler from reading a field from the ring again).
	 */
	memcpy(&h, src, sizeof(h));
	barrier();

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = h.wr_id;
	wqe->opcode = h.opcode;
	wqe->send_flags = h.send_flags;
	wqe->tx.state = MR_SWQE_QUEUED;

	if (!mroce_uwr_opcode_ok(qp->ibqp.qp_type, h.opcode) ||
	    (h.send_flags & ~METAROCE_SEND_VALID_FLAGS))
		return IB_WC_LOC_QP_OP_ERR;
	/* Local operations carry no data (uapi: metaroce_wqe_bind). */
	if ((h.opcode == METAROCE_WR_LOCAL_INV ||
	     h.opcode == METAROCE_WR_BIND_MW) &&
	    (h.num_sge || (h.send_flags & METAROCE_SEND_INLINE)))
		return IB_WC_LOC_QP_OP_ERR;

	if (h.send_flags & METAROCE_SEND_INLINE) {
		if (!mroce_uwr_inline_ok(h.opcode) || h.num_sge)
			return IB_WC_LOC_QP_OP_ERR;
		if (h.inline_len > sq->max_inline)
			return IB_WC_LOC_LEN_ERR;
		memcpy(wqe->inline_data, src->inline_data, h.inline_len);
		len = h.inline_len;
	} else {
		if (h.num_sge > sq->max_sge)
			return IB_WC_LOC_LEN_ERR;
		memcpy(wqe->sge, src->sge, h.num_sge * sizeof(wqe->sge[0]));
		wqe->num_sge = h.num_sge;
		for (i = 0; i < h.num_sge; i++)
			len += wqe->sge[i].length;
	}
	/* The port's max_msg_sz. */
	if (len > 0x80000000ULL)
		return IB_WC_LOC_LEN_ERR;
	wqe->tx.length = len;

	switch (h.opcode) {
	case METAROCE_WR_SEND_WITH_IMM:
	case METAROCE_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex.imm_data = h.ex.imm_data;
		break;
	case METAROCE_WR_SEND_WITH_INV:
	case METAROCE_WR_LOCAL_INV:
		wqe->ex.invalidate_rkey = h.ex.invalidate_rkey;
		break;
	default:
		break;
	}

	if (qp->ibqp.qp_type == IB_QPT_UD) {
		wqe->wr.ud.remote_qpn = h.wr.ud.remote_qpn & MROCE_QPN_MAX;
		wqe->wr.ud.remote_qkey = h.wr.ud.remote_qkey;
		return mroce_uwr_ah(qp, h.wr.ud.ah_num, wqe);
	}

	switch (h.opcode) {
	case METAROCE_WR_RDMA_WRITE:
	case METAROCE_WR_RDMA_WRITE_WITH_IMM:
	case METAROCE_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = h.wr.rdma.remote_addr;
		wqe->wr.rdma.rkey = h.wr.rdma.rkey;
		break;
	case METAROCE_WR_ATOMIC_CMP_AND_SWP:
	case METAROCE_WR_ATOMIC_FETCH_AND_ADD:
		/* One 8-byte buffer for the original value. */
		if (h.num_sge != 1 || len != sizeof(u64))
			return IB_WC_LOC_LEN_ERR;
		wqe->wr.atomic.remote_addr = h.wr.atomic.remote_addr;
		wqe->wr.atomic.compare_add = h.wr.atomic.compare_add;
		wqe->wr.atomic.swap = h.wr.atomic.swap;
		wqe->wr.atomic.rkey = h.wr.atomic.rkey;
		break;
	case METAROCE_WR_BIND_MW:
		/* Checked when it executes, in SQ order (mw.c). */
		wqe->wr.bind.addr = h.wr.bind.addr;
		wqe->wr.bind.length = h.wr.bind.length;
		wqe->wr.bind.mw_rkey = h.wr.bind.mw_rkey;
		wqe->wr.bind.new_rkey = h.wr.bind.new_rkey;
		wqe->wr.bind.mr_lkey = h.wr.bind.mr_lkey;
		wqe->wr.bind.access = h.wr.bind.access;
		break;
	default:
		break;
	}
	wqe->tx.op = mroce_wire_opcode(h.opcode);
	wqe->tx.fence = !!(wqe->send_flags & IB_SEND_FENCE);
	/* The ABI's opcodes are the kernel's (uapi/metaroce-abi.h). */
	BUILD_BUG_ON((int)METAROCE_WR_ATOMIC_FETCH_AND_ADD !=
		     (int)IB_WR_ATOMIC_FETCH_AND_ADD ||
		     (int)METAROCE_WR_ATOMIC_CMP_AND_SWP !=
		     (int)IB_WR_ATOMIC_CMP_AND_SWP ||
		     (int)METAROCE_WR_RDMA_READ != (int)IB_WR_RDMA_READ ||
		     (int)METAROCE_WR_RDMA_WRITE != (int)IB_WR_RDMA_WRITE ||
		     (int)METAROCE_WR_RDMA_WRITE_WITH_IMM !=
		     (int)IB_WR_RDMA_WRITE_WITH_IMM ||
		     (int)METAROCE_WR_LOCAL_INV != (int)IB_WR_LOCAL_INV ||
		     (int)METAROCE_WR_BIND_MW != (int)IB_WR_BIND_MW);
	return mroce_req_validate(wqe);
}

/*
 * Doorbell: take the WQEs the process produced since the last one into
 * the kernel's SQ; sq.lock held. A WQE that fails validation is marked
 * done with its error status and wire_op 0: the requester sends nothing
 * from it on (req->halted) and completes it in order, which moves the
 * QP to the error state (MR-VERBS-3). Returns -EIO if the ring's prod
 * is corrupt.
 */
int mroce_usq_pull(struct mroce_qp *qp)
{
	struct mroce_sq *sq = &qp->sq;
	struct mroce_send_wqe *wqe;
	u32 prod;
	u8 status;

	if (!qp->usq.hdr)
		return 0;
	prod = mroce_uring_get(&qp->usq.hdr->prod);
	if (prod - sq->head > sq->size ||
	    prod - sq->head < sq->tail - sq->head)
		return -EIO;
	/* At most sq->size iterations. */
	for (; sq->tail != prod; sq->tail++) {
		status = mroce_usq_copy(qp, sq->tail);
		if (status != IB_WC_SUCCESS) {
			wqe = mroce_sq_wqe(sq, sq->tail);
			wqe->tx.op = 0;
			wqe->tx.state = MR_SWQE_DONE;
			wqe->tx.status = status;
		}
	}
	return 0;
}
