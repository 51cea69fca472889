// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE provider: a QP moved to RESET leaves no completions behind.
 * The kernel has written every completion of the QP's old life (its
 * flushes included) before the transition returns (provider.rst, "QP
 * reset"); the provider then removes those still unpolled from the QP's
 * CQs, as other providers do, so that the next ibv_poll_cq does not
 * return a stale flush error of the old life.
 */
#include <string.h>

#include "metaroce.h"

/*
 * Remove the unpolled CQEs of QP @qpn from @ibcq: the ones of other QPs
 * move up, in order, over the removed ones, and cons advances past the
 * slots freed at the front.  Only slots below the kernel's prod are
 * touched: the kernel writes at prod and beyond, into slots that free
 * space (prod - cons < entries) allows, and cons is published last.
 */
void mroce_cq_discard_qp(struct ibv_cq *ibcq, uint32_t qpn)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	struct mroce_ring *r = &cq->ring;
	struct metaroce_cqe *e;
	uint32_t prod, i, nfreed = 0;

	pthread_spin_lock(&cq->lock);
	prod = mroce_load_acquire(&r->hdr->prod);
	/* A corrupt prod: poll reports it; nothing to clean safely. */
	if (prod - r->idx > r->entries)
		goto out;
	for (i = prod; i != r->idx;) {
		i--;
		e = mroce_ring_slot(r, i);
		if (e->qp_num == qpn)
			nfreed++;
		else if (nfreed)
			memcpy(mroce_ring_slot(r, i + nfreed), e, sizeof(*e));
	}
	if (nfreed) {
		r->idx += nfreed;
		mroce_store_release(&r->hdr->cons, r->idx);
	}
out:
	pthread_spin_unlock(&cq->lock);
}
