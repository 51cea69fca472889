// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE shared receive queues, with the limit event: once armed with
 * a non-zero srq_limit, IB_EVENT_SRQ_LIMIT_REACHED is raised (once) when
 * the number of available WQEs drops below the limit. WQEs a QP bound
 * and gave back unused (qp.c, MR-VERBS-20) are available again.
 */

#include "metaroce.h"

int mroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct mroce_dev *dev = to_mdev(ibsrq->device);
	struct mroce_srq *srq = to_msrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	struct metaroce_create_srq_req req;
	struct metaroce_create_srq_resp resp = {};
	int err;

	err = mroce_udata_req(udata, &req, sizeof(req));
	if (err)
		return err;
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > dev->attr.max_srq_wr ||
	    attr->max_sge > dev->attr.max_srq_sge ||
	    attr->srq_limit > attr->max_wr)
		return -EINVAL;

	if (atomic_inc_return(&dev->num_srq) > dev->attr.max_srq) {
		atomic_dec(&dev->num_srq);
		return -ENOMEM;
	}
	err = mroce_rq_init(&srq->rq, attr->max_wr, attr->max_sge);
	if (!err) {
		srq->rq.ret = kvcalloc(srq->rq.size, srq->rq.wqe_size,
				       GFP_KERNEL_ACCOUNT);
		if (!srq->rq.ret) {
			mroce_rq_free(&srq->rq);
			err = -ENOMEM;
		}
	}
	if (err) {
		atomic_dec(&dev->num_srq);
		return err;
	}
	srq->limit = attr->srq_limit;
	attr->max_wr = srq->rq.size;
	attr->max_sge = srq->rq.max_sge;

	if (udata) {
		/* The ring has the kernel queue's size and slot layout. */
		resp.entries = srq->rq.size;
		resp.wqe_size = struct_size((struct metaroce_rq_wqe *)NULL, sge,
					    srq->rq.max_sge);
		err = mroce_uring_alloc(&srq->rq.ur,
					&mroce_udata_uctx(udata)->ibuc,
					resp.entries, resp.wqe_size, &resp.mi);
		if (!err) {
			err = mroce_udata_resp(udata, &resp, sizeof(resp));
			if (err)
				mroce_uring_free(&srq->rq.ur);
		}
		if (err) {
			kvfree(srq->rq.ret);
			mroce_rq_free(&srq->rq);
			atomic_dec(&dev->num_srq);
			return err;
		}
	}
	return 0;
}

int mroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct mroce_srq *srq = to_msrq(ibsrq);

	mroce_uring_free(&srq->rq.ur);
	kvfree(srq->rq.ret);
	mroce_rq_free(&srq->rq);
	atomic_dec(&to_mdev(ibsrq->device)->num_srq);
	return 0;
}

static void mroce_srq_event(struct mroce_srq *srq, enum ib_event_type type)
{
	struct ib_srq *ibsrq = &srq->ibsrq;
	struct ib_event ev = {
		.device = ibsrq->device,
		.element.srq = ibsrq,
		.event = type,
	};

	if (ibsrq->event_handler)
		ibsrq->event_handler(&ev, ibsrq->srq_context);
}

/*
 * Called (without rq.lock) after WQEs were consumed or the limit was
 * armed: fire the limit event once and disarm. A user SRQ counts what
 * its ring holds, so its new WQEs are taken first; a corrupt ring index
 * raises IB_EVENT_SRQ_ERR once.
 */
void mroce_srq_check_limit(struct mroce_srq *srq)
{
	bool fire = false, err = false;

	spin_lock_bh(&srq->rq.lock);
	mroce_urq_pull(&srq->rq);
	if (srq->rq.broken && !srq->err_reported) {
		srq->err_reported = true;
		err = true;
	}
	if (srq->limit && mroce_rq_avail(&srq->rq) < srq->limit) {
		srq->limit = 0;
		fire = true;
	}
	spin_unlock_bh(&srq->rq.lock);
	if (err)
		mroce_srq_event(srq, IB_EVENT_SRQ_ERR);
	if (fire)
		mroce_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
}

int mroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct mroce_srq *srq = to_msrq(ibsrq);
	int err = 0;

	if (udata && (udata->inlen || udata->outlen))
		return -EOPNOTSUPP;
	/* Resizing is not supported (no IB_DEVICE_SRQ_RESIZE). */
	if (mask & IB_SRQ_MAX_WR)
		return -EINVAL;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;

	spin_lock_bh(&srq->rq.lock);
	if (attr->srq_limit > srq->rq.size)
		err = -EINVAL;
	else
		srq->limit = attr->srq_limit;
	spin_unlock_bh(&srq->rq.lock);

	if (!err)
		mroce_srq_check_limit(srq);
	return err;
}

int mroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct mroce_srq *srq = to_msrq(ibsrq);

	spin_lock_bh(&srq->rq.lock);
	attr->max_wr = srq->rq.size;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_bh(&srq->rq.lock);
	return 0;
}

int mroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct mroce_srq *srq = to_msrq(ibsrq);
	unsigned long flags;
	int err = 0;

	/* A user SRQ is posted to through its ring only. */
	if (srq->rq.ur.hdr) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->rq.lock, flags);
	for (; wr; wr = wr->next) {
		err = mroce_rq_post(&srq->rq, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	return err;
}
