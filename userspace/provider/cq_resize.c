// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE provider: ibv_resize_cq.  The kernel gives the CQ a new ring
 * holding the CQEs not yet polled at the same free-running indices
 * (provider.rst, "CQ resize"); the provider maps it in place of the old
 * one under the CQ lock, so that no poll runs between the two.
 */
#include <errno.h>
#include <string.h>

#include "metaroce.h"

MROCE_UDATA_PAIR(mroce_resize_cq_cmd, struct ibv_resize_cq,
		 struct metaroce_resize_cq_req);
MROCE_UDATA_PAIR(mroce_resize_cq_resp, struct ib_uverbs_resize_cq_resp,
		 struct metaroce_resize_cq_resp);

int mroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	struct mroce_resize_cq_cmd cmd;
	struct mroce_resize_cq_resp resp;
	struct mroce_ring nr, old;
	int ret;

	if (cqe < 1)
		return EINVAL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));

	pthread_spin_lock(&cq->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, mroce_resize_cq_cmd_core(&cmd),
				sizeof(cmd), mroce_resize_cq_resp_core(&resp),
				sizeof(resp));
	if (ret)
		goto out;
	/*
	 * From here the kernel writes only the new ring: failing to map it
	 * leaves a CQ that cannot be polled (EPROTO/ENOMEM; destroy it).
	 */
	if (resp.drv.cqe_size != sizeof(struct metaroce_cqe) ||
	    resp.drv.entries < (uint32_t)cqe)
		ret = EPROTO;
	else
		ret = mroce_ring_map(ibcq->context, &nr, &resp.drv.mi,
				     resp.drv.entries, resp.drv.cqe_size,
				     sizeof(struct metaroce_cqe));
	if (ret)
		goto out;
	/* The indices continue: the kernel set the new cons to ours. */
	nr.idx = cq->ring.idx;
	old = cq->ring;
	cq->ring = nr;
	mroce_ring_unmap(&old);
out:
	pthread_spin_unlock(&cq->lock);
	return ret;
}
