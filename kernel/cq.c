// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE completion queues: a ring of ib_wc filled by the datapath and
 * the flush path, drained by poll_cq, with solicited / next-completion
 * notification. A user CQ is a ring of metaroce_cqe mapped into the
 * process, which polls it without entering the kernel.
 */

#include <linux/slab.h>
#include <linux/log2.h>

#include "metaroce.h"

int mroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct mroce_dev *dev = to_mdev(ibcq->device);
	struct mroce_cq *cq = to_mcq(ibcq);
	struct metaroce_create_cq_req req;
	struct metaroce_create_cq_resp resp = {};
	u32 entries;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > dev->attr.max_cqe)
		return -EINVAL;
	err = mroce_udata_req(udata, &req, sizeof(req));
	if (err)
		return err;

	if (atomic_inc_return(&dev->num_cq) > dev->attr.max_cq) {
		atomic_dec(&dev->num_cq);
		return -ENOMEM;
	}
	spin_lock_init(&cq->lock);

	if (udata) {
		/* A ring the process polls (provider.rst, "Ring protocol"). */
		entries = roundup_pow_of_two(attr->cqe);
		err = mroce_uring_alloc(&cq->ur, &mroce_udata_uctx(udata)->ibuc,
					entries, sizeof(struct metaroce_cqe),
					&resp.mi);
		if (err)
			goto err_count;
		resp.entries = entries;
		resp.cqe_size = sizeof(struct metaroce_cqe);
		cq->size = entries;
		ibcq->cqe = entries;
		err = mroce_udata_resp(udata, &resp, sizeof(resp));
		if (err) {
			mroce_uring_free(&cq->ur);
			goto err_count;
		}
		return 0;
	}

	cq->wc = kvcalloc(attr->cqe, sizeof(*cq->wc), GFP_KERNEL_ACCOUNT);
	if (!cq->wc) {
		err = -ENOMEM;
		goto err_count;
	}
	cq->size = attr->cqe;
	ibcq->cqe = attr->cqe;
	return 0;

err_count:
	atomic_dec(&dev->num_cq);
	return err;
}

int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct mroce_cq *cq = to_mcq(ibcq);

	mroce_uring_free(&cq->ur);
	kvfree(cq->wc);
	atomic_dec(&to_mdev(ibcq->device)->num_cq);
	return 0;
}

/*
 * Resize a kernel CQ: the completions not yet polled move, in order, to
 * the front of a new array. -EINVAL when they do not fit.
 */
static int mroce_resize_kcq(struct mroce_cq *cq, u32 cqe)
{
	struct ib_wc *wc, *old;
	unsigned long flags;
	u32 i;

	wc = kvcalloc(cqe, sizeof(*wc), GFP_KERNEL_ACCOUNT);
	if (!wc)
		return -ENOMEM;
	spin_lock_irqsave(&cq->lock, flags);
	if (cq->count > cqe) {
		spin_unlock_irqrestore(&cq->lock, flags);
		kvfree(wc);
		return -EINVAL;
	}
	for (i = 0; i < cq->count; i++)
		wc[i] = cq->wc[(cq->head + i) % cq->size];
	old = cq->wc;
	cq->wc = wc;
	cq->head = 0;
	cq->size = cqe;
	cq->ibcq.cqe = cqe;
	spin_unlock_irqrestore(&cq->lock, flags);
	kvfree(old);
	return 0;
}

/*
 * Resize a user CQ (provider.rst, "CQ resize"): a new ring replaces the
 * old one under cq->lock, so every CQE the datapath writes goes to
 * exactly one of them. The CQEs between the process's cons and kprod
 * are copied to the same free-running indices of the new ring, whose
 * cons and prod continue the old ones; the kernel never touches the old
 * ring again, and its pages live on while the process maps them. cons
 * is read once: the copy is bounded by the old ring's size, at most
 * MROCE_MAX_CQE CQEs, and the slots are addressed with the kernel's own
 * masks. Concurrent resizes of one CQ (uverbs holds the CQ shared) are
 * serialised by cq->lock: each frees the ring it replaced.
 */
static int mroce_resize_ucq(struct mroce_cq *cq, u32 cqe,
			    struct ib_udata *udata)
{
	struct metaroce_resize_cq_resp resp = {};
	struct mroce_uring nr = {}, old;
	unsigned int note = 0;
	unsigned long flags;
	u32 entries = roundup_pow_of_two(cqe), cons, i;
	int err;

	err = mroce_uring_alloc(&nr, &mroce_udata_uctx(udata)->ibuc, entries,
				sizeof(struct metaroce_cqe), &resp.mi);
	if (err)
		return err;
	resp.entries = entries;
	resp.cqe_size = sizeof(struct metaroce_cqe);
	/* Before the swap: a failed copy-out leaves the CQ as it was. */
	err = mroce_udata_resp(udata, &resp, sizeof(resp));
	if (err)
		goto err_free;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflow) {
		err = -EIO;
		goto err_unlock;
	}
	cons = mroce_uring_get(&cq->ur.hdr->cons);
	if (cq->kprod - cons > cq->ur.entries) {
		/* A corrupt cons: the CQ goes to error as on a write. */
		mroce_uring_set_kflags(&cq->ur, METAROCE_RING_F_CQ_ERR, 0);
		cq->overflow = true;
		note = MROCE_CQ_OVERFLOW;
		err = -EIO;
		goto err_unlock;
	}
	if (cq->kprod - cons > entries) {
		err = -EINVAL;
		goto err_unlock;
	}
	for (i = cons; i != cq->kprod; i++)
		memcpy(mroce_uring_slot(&nr, i), mroce_uring_slot(&cq->ur, i),
		       sizeof(struct metaroce_cqe));
	WRITE_ONCE(nr.hdr->cons, cons);
	mroce_uring_put(&nr.hdr->prod, cq->kprod);
	old = cq->ur;
	cq->ur = nr;
	cq->size = entries;
	cq->ibcq.cqe = entries;
	spin_unlock_irqrestore(&cq->lock, flags);
	mroce_uring_free(&old);
	return 0;

err_unlock:
	spin_unlock_irqrestore(&cq->lock, flags);
	mroce_cq_notify(cq, note);
err_free:
	mroce_uring_free(&nr);
	return err;
}

/*
 * ibv_resize_cq / ib_resize_cq: the CQ keeps its
 * completions; -EINVAL if they do not fit in @cqe, -EIO on a CQ in error.
 */
int mroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct mroce_dev *dev = to_mdev(ibcq->device);
	struct mroce_cq *cq = to_mcq(ibcq);
	struct metaroce_resize_cq_req req;
	int err;

	if (cqe < 1 || cqe > dev->attr.max_cqe)
		return -EINVAL;
	err = mroce_udata_req(udata, &req, sizeof(req));
	if (err)
		return err;
	/* A user CQ is resized by its process, a kernel CQ by a consumer. */
	if (!udata != !cq->ur.hdr)
		return -EINVAL;
	if (udata)
		return mroce_resize_ucq(cq, cqe, udata);
	return mroce_resize_kcq(cq, cqe);
}

static u32 mroce_wc_flags_to_user(int f)
{
	return (f & IB_WC_GRH ? METAROCE_WC_F_GRH : 0) |
	       (f & IB_WC_WITH_IMM ? METAROCE_WC_F_WITH_IMM : 0) |
	       (f & IB_WC_WITH_INVALIDATE ? METAROCE_WC_F_WITH_INV : 0);
}

/*
 * Write one CQE to a user CQ's ring; cq->lock held. The process owns
 * cons: a value claiming more free slots than exist is corruption, and
 * both that and a full ring put the CQ in error (MR-VERBS-3).
 */
static int mroce_ucq_write(struct mroce_cq *cq, const struct ib_wc *wc)
{
	struct metaroce_cqe *e;
	u32 cons = mroce_uring_get(&cq->ur.hdr->cons);

	if (cq->kprod - cons >= cq->ur.entries)
		return -ENOSPC;
	e = mroce_uring_slot(&cq->ur, cq->kprod);
	e->wr_id = wc->wr_id;
	e->status = wc->status;
	/* The ABI's opcodes are the kernel's (uapi/metaroce-abi.h). */
	BUILD_BUG_ON((int)METAROCE_WC_BIND_MW != (int)IB_WC_BIND_MW ||
		     (int)METAROCE_WC_LOCAL_INV != (int)IB_WC_LOCAL_INV);
	e->opcode = wc->opcode;
	e->vendor_err = wc->vendor_err;
	e->byte_len = wc->byte_len;
	e->qp_num = wc->qp ? wc->qp->qp_num : 0;
	e->src_qp = wc->src_qp;
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		e->ex.invalidated_rkey = wc->ex.invalidate_rkey;
	else
		e->ex.imm_data = wc->ex.imm_data;
	e->wc_flags = mroce_wc_flags_to_user(wc->wc_flags);
	e->pkey_index = wc->pkey_index;
	e->slid = wc->slid;
	e->sl = wc->sl;
	e->dlid_path_bits = wc->dlid_path_bits;
	e->reserved0 = 0;
	memset(e->reserved, 0, sizeof(e->reserved));
	cq->kprod++;
	mroce_uring_put(&cq->ur.hdr->prod, cq->kprod);
	return 0;
}

/*
 * Add one completion to the ring; safe under the caller's queue locks
 * (rq.lock, resp_lock: lock order, metaroce.h), so that completions
 * enter the ring in the order of the WQEs they complete (MR-PLACE-2)
 * even when several CPUs receive for one QP. Returns what
 * mroce_cq_notify() must do once the caller holds no lock: MROCE_CQ_FIRE
 * when the CQ was armed and the completion matches the arming (any for
 * NEXT_COMP; solicited or error for SOLICITED), MROCE_CQ_OVERFLOW for
 * the first overflow (the CQ is then in error).
 */
unsigned int mroce_cq_add(struct mroce_cq *cq, const struct ib_wc *wc,
			  bool solicited)
{
	unsigned int note = 0;
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	if (unlikely(cq->overflow ||
		     (cq->ur.hdr ? mroce_ucq_write(cq, wc) :
				   cq->count == cq->size))) {
		if (!cq->overflow) {
			mroce_uring_set_kflags(&cq->ur, METAROCE_RING_F_CQ_ERR,
					       0);
			note = MROCE_CQ_OVERFLOW;
		}
		cq->overflow = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		return note;
	}

	if (!cq->ur.hdr) {
		cq->wc[(cq->head + cq->count) % cq->size] = *wc;
		cq->count++;
	}

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (solicited || wc->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		note = MROCE_CQ_FIRE;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return note;
}

/* Run what mroce_cq_add() asked for (@note: its results ORed); no lock. */
void mroce_cq_notify(struct mroce_cq *cq, unsigned int note)
{
	struct ib_cq *ibcq = &cq->ibcq;

	if ((note & MROCE_CQ_OVERFLOW) && ibcq->event_handler) {
		struct ib_event ev = {
			.device = ibcq->device,
			.element.cq = ibcq,
			.event = IB_EVENT_CQ_ERR,
		};

		ibcq->event_handler(&ev, ibcq->cq_context);
	}
	if ((note & MROCE_CQ_FIRE) && ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}

/*
 * Add one completion and notify: for callers that hold no lock and are
 * the only ones completing their queue (the requester's SQ run).
 * Returns -ENOSPC on overflow.
 */
int mroce_cq_post(struct mroce_cq *cq, const struct ib_wc *wc, bool solicited)
{
	unsigned int note = mroce_cq_add(cq, wc, solicited);

	mroce_cq_notify(cq, note);
	return READ_ONCE(cq->overflow) ? -ENOSPC : 0;
}
MR_KUNIT_EXPORT(mroce_cq_post);

int mroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	unsigned long flags;
	int n;

	/* A user CQ is polled in user space only. */
	if (cq->ur.hdr)
		return 0;
	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries && cq->count; n++) {
		wc[n] = cq->wc[cq->head];
		cq->head = (cq->head + 1) % cq->size;
		cq->count--;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int mroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_NEXT_COMP;
	else if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_SOLICITED;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    (cq->ur.hdr ? cq->kprod != READ_ONCE(cq->ur.hdr->cons) :
			  cq->count))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
