// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE completion queues: a ring of ib_wc filled by the datapath and
 * the flush path, drained by poll_cq, with solicited / next-completion
 * notification.
 */

#include <linux/slab.h>

#include "metaroce.h"

int mroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct mroce_dev *dev = to_mdev(ibcq->device);
	struct mroce_cq *cq = to_mcq(ibcq);

	if (udata)
		return -EOPNOTSUPP;
	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > dev->attr.max_cqe)
		return -EINVAL;

	if (atomic_inc_return(&dev->num_cq) > dev->attr.max_cq) {
		atomic_dec(&dev->num_cq);
		return -ENOMEM;
	}

	cq->wc = kvcalloc(attr->cqe, sizeof(*cq->wc), GFP_KERNEL);
	if (!cq->wc) {
		atomic_dec(&dev->num_cq);
		return -ENOMEM;
	}
	spin_lock_init(&cq->lock);
	cq->size = attr->cqe;
	ibcq->cqe = attr->cqe;
	return 0;
}

int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct mroce_cq *cq = to_mcq(ibcq);

	kvfree(cq->wc);
	atomic_dec(&to_mdev(ibcq->device)->num_cq);
	return 0;
}

/*
 * Add one completion. Calls the consumer's completion handler, with no
 * lock held, when the CQ was armed and the completion matches the
 * arming (any for NEXT_COMP; solicited or error for SOLICITED).
 * Returns -ENOSPC on overflow, after raising IB_EVENT_CQ_ERR.
 */
int mroce_cq_post(struct mroce_cq *cq, const struct ib_wc *wc, bool solicited)
{
	struct ib_cq *ibcq = &cq->ibcq;
	unsigned long flags;
	bool fire = false;

	spin_lock_irqsave(&cq->lock, flags);
	if (unlikely(cq->count == cq->size || cq->overflow)) {
		bool first = !cq->overflow;

		cq->overflow = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (first && ibcq->event_handler) {
			struct ib_event ev = {
				.device = ibcq->device,
				.element.cq = ibcq,
				.event = IB_EVENT_CQ_ERR,
			};

			ibcq->event_handler(&ev, ibcq->cq_context);
		}
		return -ENOSPC;
	}

	cq->wc[(cq->head + cq->count) % cq->size] = *wc;
	cq->count++;

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (solicited || wc->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		fire = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (fire && ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
	return 0;
}

int mroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	unsigned long flags;
	int n;

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
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->count)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
