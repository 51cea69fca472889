// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE memory windows (user processes only): type 1, bound by the
 * bind WQE ibv_bind_mw() posts, and type 2 (2B), bound by an
 * IBV_WR_BIND_MW WQE to the QP that posts it and invalidated by
 * LOCAL_INV or a peer's SEND_WITH_INV.
 *
 * A window is a struct mroce_mr of type MROCE_MW_1/2 in dev->mrs, so
 * its rkey (random bits, index, key byte: dev.h) shares the MRs' key
 * space and lookups, references and teardown (MR-MW-1). The ib_mw that
 * uverbs allocates only points to it: uverbs frees the ib_mw right after
 * dealloc_mw, while a receive path may still be between xa_load and
 * refcount_inc_not_zero on the window, which therefore goes with
 * kfree_rcu() like an MR.
 *
 * A bound window holds a reference on its MR and counts in the MR's
 * num_mw, so dereg_mr fails while windows are bound (MR-MW-7). A
 * request through a window leaves with a reference on the MR taken
 * under the window's lock (mroce_mw_resolve()): once checked, the
 * placement works on the MR, whose pages stay until the last such
 * reference is dropped even if the window is invalidated meanwhile.
 *
 * Locks: a window's lock and its MR's lock are never held together.
 */

#include <linux/slab.h>

#include "metaroce.h"

/* The rights a window may grant (IBV_ACCESS_ZERO_BASED is refused). */
#define MROCE_MW_ACCESS							\
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |		\
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

int mroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct mroce_dev *dev = to_mdev(ibmw->device);
	struct mroce_mw *mw = to_mmw(ibmw);
	struct mroce_mr *win;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	/* No driver data is defined: what a process adds must be zero. */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;

	win = mroce_mr_new(dev, ibmw->type == IB_MW_TYPE_1 ? MROCE_MW_1 :
							      MROCE_MW_2);
	if (IS_ERR(win))
		return PTR_ERR(win);
	win->ibmr.pd = ibmw->pd;
	win->state = MROCE_MR_INVALID;
	mw->win = win;
	ibmw->rkey = win->key;
	mroce_mr_publish(win);
	return 0;
}
MR_KUNIT_EXPORT(mroce_alloc_mw);

/* Drop a window's hold on @mr (NULL: none). No window lock held. */
static void mroce_mw_release(struct mroce_mr *mr)
{
	unsigned long flags;

	if (!mr)
		return;
	spin_lock_irqsave(&mr->lock, flags);
	mr->num_mw--;
	spin_unlock_irqrestore(&mr->lock, flags);
	mroce_mr_put(mr);
}

int mroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct mroce_mr *win = to_mmw(ibmw)->win;
	struct mroce_dev *dev = win->dev;

	/* MR-MW-6: the key is gone before this returns. */
	mroce_mr_unpublish(win);
	mroce_mw_release(win->bound);
	kfree_rcu(win, rcu);
	atomic_dec(&dev->num_mr);
	return 0;
}
MR_KUNIT_EXPORT(mroce_dealloc_mw);

/*
 * Take a window's hold on MR @mr (referenced by the caller's lookup)
 * for [addr, addr + len) with @access through @lkey from @pd
 * (MR-MW-3). Returns 0 (the reference is now the window's) or -EACCES.
 */
static int mroce_mw_hold(struct mroce_mr *mr, struct ib_pd *pd, u32 lkey,
			 u64 addr, u64 len, int access)
{
	unsigned long flags;
	int err = -EACCES;

	if (mroce_mr_is_mw(mr))
		return err;
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->dead || mr->state != MROCE_MR_VALID || mr->key != lkey ||
	    mr->pd != pd || !(mr->access & IB_ACCESS_MW_BIND))
		goto out;
	/* Remote writes or atomics need a locally writable MR. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		goto out;
	if (addr < mr->iova || len > mr->length ||
	    addr - mr->iova > mr->length - len)
		goto out;
	mr->num_mw++;
	err = 0;
out:
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

/*
 * Execute BIND_MW @wqe posted on @qp (sq.lock held): every field came
 * from the process's ring. Returns IB_WC_SUCCESS or IB_WC_MW_BIND_ERR
 * (MR-MW-3, MR-MW-4); the requester then moves the QP to Error.
 */
u8 mroce_mw_bind(struct mroce_qp *qp, const struct mroce_send_wqe *wqe)
{
	struct mroce_dev *dev = qp->dev;
	struct mroce_mr *win, *mr = NULL, *old;
	u32 key = wqe->wr.bind.new_rkey;
	u64 len = wqe->wr.bind.length;
	unsigned long flags;
	u8 status = IB_WC_MW_BIND_ERR;

	if (!mroce_key_same_name(wqe->wr.bind.mw_rkey, key) ||
	    (wqe->wr.bind.access & ~MROCE_MW_ACCESS))
		return status;
	win = mroce_mr_get(dev, key);
	if (!win)
		return status;
	if (!mroce_mr_is_mw(win) || win->ibmr.pd != qp->ibqp.pd)
		goto out;
	if (len) {
		mr = mroce_mr_get(dev, wqe->wr.bind.mr_lkey);
		if (!mr)
			goto out;
		if (mroce_mw_hold(mr, qp->ibqp.pd, wqe->wr.bind.mr_lkey,
				  wqe->wr.bind.addr, len,
				  wqe->wr.bind.access)) {
			mroce_mr_put(mr);
			mr = NULL;
			goto out;
		}
	}

	spin_lock_irqsave(&win->lock, flags);
	/*
	 * A bound type 2 window is invalidated before it binds again. The
	 * new rkey changes the key byte only: the index found the window,
	 * the random bits must be its own (MR-SEC-1).
	 */
	if ((win->type == MROCE_MW_2 && win->state != MROCE_MR_INVALID) ||
	    !mroce_key_same_name(win->key, key)) {
		spin_unlock_irqrestore(&win->lock, flags);
		goto out;
	}
	old = win->bound;
	win->bound = mr;
	win->key = key;
	win->access = wqe->wr.bind.access;
	win->iova = wqe->wr.bind.addr;
	win->length = len;
	win->qp_serial = qp->serial;
	/* Type 1 with length 0: unbound (MR-MW-4). */
	win->state = win->type == MROCE_MW_1 && !len ? MROCE_MR_INVALID :
						       MROCE_MR_VALID;
	spin_unlock_irqrestore(&win->lock, flags);
	mr = NULL;
	mroce_mw_release(old);
	status = IB_WC_SUCCESS;
out:
	mroce_mw_release(mr);
	mroce_mr_put(win);
	return status;
}
MR_KUNIT_EXPORT(mroce_mw_bind);

/*
 * Invalidate type 2 window @win by @key: LOCAL_INV posted on @qp (same
 * PD) or, @remote, a SEND_WITH_INV arriving on @qp, which must be the
 * QP the window is bound to (MR-MW-5). Without @doit only checks.
 * Returns 0 or -EINVAL; a type 1 window is never invalidated this way.
 */
int mroce_mw_invalidate(struct mroce_mr *win, struct mroce_qp *qp, u32 key,
			bool remote, bool doit)
{
	struct mroce_mr *old = NULL;
	unsigned long flags;
	int err = -EINVAL;

	spin_lock_irqsave(&win->lock, flags);
	if (win->type == MROCE_MW_2 && win->state == MROCE_MR_VALID &&
	    win->key == key && win->ibmr.pd == qp->ibqp.pd &&
	    (!remote || win->qp_serial == qp->serial)) {
		err = 0;
		if (doit) {
			win->state = MROCE_MR_INVALID;
			old = win->bound;
			win->bound = NULL;
		}
	}
	spin_unlock_irqrestore(&win->lock, flags);
	mroce_mw_release(old);
	return err;
}
MR_KUNIT_EXPORT(mroce_mw_invalidate);

/*
 * A request on @qp for [va, va + len) needing @access through window
 * @win's @rkey (MR-MW-2): checked like an MR's rkey, plus the QP a
 * type 2 window is bound to. Returns the MR behind it with a reference
 * the caller drops (mroce_mr_put()), or NULL.
 */
struct mroce_mr *mroce_mw_resolve(struct mroce_mr *win, struct mroce_qp *qp,
				  u32 rkey, u64 va, u64 len, int access)
{
	struct mroce_mr *mr = NULL;
	unsigned long flags;

	spin_lock_irqsave(&win->lock, flags);
	if (win->state != MROCE_MR_VALID || win->key != rkey || !win->bound ||
	    win->ibmr.pd != qp->ibqp.pd ||
	    (win->type == MROCE_MW_2 && win->qp_serial != qp->serial) ||
	    (win->access & access) != access)
		goto out;
	if (va < win->iova || len > win->length ||
	    va - win->iova > win->length - len)
		goto out;
	/* The window's own reference keeps the count above zero. */
	mr = win->bound;
	refcount_inc(&mr->ref);
out:
	spin_unlock_irqrestore(&win->lock, flags);
	return mr;
}
MR_KUNIT_EXPORT(mroce_mw_resolve);
