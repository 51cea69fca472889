// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE memory regions: for kernel consumers DMA MRs (virtual DMA:
 * addresses are kernel virtual addresses) and fast-registration MRs
 * (ib_alloc_mr + ib_map_mr_sg + IB_WR_REG_MR, invalidated by
 * IB_WR_LOCAL_INV or SEND_WITH_INV); for processes user MRs (pinned with
 * ib_umem, which also enforces RLIMIT_MEMLOCK).
 *
 * Keys: lkey == rkey == index << 8 | key byte. The index finds the MR in
 * dev->mrs; the key byte is random at allocation and chosen by the
 * consumer at each REG_MR (ib_update_fast_reg_key), so a stale or
 * guessed rkey is rejected (MR-SEC-1).
 */

#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "metaroce.h"

struct mroce_mr *mroce_mr_new(struct mroce_dev *dev, enum mroce_mr_type type)
{
	struct mroce_mr *mr;
	u32 index;
	int err;

	if (atomic_inc_return(&dev->num_mr) > dev->attr.max_mr) {
		err = -ENOMEM;
		goto err_count;
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr) {
		err = -ENOMEM;
		goto err_count;
	}
	mr->dev = dev;
	mr->type = type;
	spin_lock_init(&mr->lock);
	refcount_set(&mr->ref, 1);
	init_completion(&mr->done);

	/* Published last: lookups only see a fully initialised MR. */
	err = xa_alloc_cyclic(&dev->mrs, &index, NULL,
			      XA_LIMIT(1, MROCE_KEY_IDX_MAX), &dev->mr_next,
			      GFP_KERNEL);
	if (err < 0)
		goto err_free;
	mr->index = index;
	mr->key = index << 8 | get_random_u8();
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return mr;

err_free:
	kfree(mr);
err_count:
	atomic_dec(&dev->num_mr);
	return ERR_PTR(err);
}

void mroce_mr_publish(struct mroce_mr *mr)
{
	xa_store(&mr->dev->mrs, mr->index, mr, GFP_KERNEL);
}

/*
 * Take @mr (MR or window) out of the key space and wait until no
 * datapath user holds it; its memory is then freed with kfree_rcu()
 * (lookups may still be between xa_load and refcount_inc_not_zero).
 */
void mroce_mr_unpublish(struct mroce_mr *mr)
{
	xa_erase(&mr->dev->mrs, mr->index);
	mroce_mr_put(mr);
	wait_for_completion(&mr->done);
}

/* Undo mroce_mr_new() of an MR that was never published. */
static void mroce_mr_abort(struct mroce_mr *mr)
{
	struct mroce_dev *dev = mr->dev;

	xa_erase(&dev->mrs, mr->index);
	kvfree(mr->pages);
	kfree(mr);
	atomic_dec(&dev->num_mr);
}

struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct mroce_mr *mr;

	mr = mroce_mr_new(to_mdev(ibpd->device), MROCE_MR_DMA);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->state = MROCE_MR_VALID;
	mr->access = access;
	mr->iova = 0;
	mr->length = U64_MAX;
	mroce_mr_publish(mr);
	return &mr->ibmr;
}
MR_KUNIT_EXPORT(mroce_get_dma_mr);

struct ib_mr *mroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct mroce_dev *dev = to_mdev(ibpd->device);
	struct mroce_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > dev->attr.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);

	mr = mroce_mr_new(dev, MROCE_MR_FAST_REG);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->pages = kvcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL_ACCOUNT);
	if (!mr->pages) {
		mroce_mr_abort(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_pages = max_num_sg;
	mr->state = MROCE_MR_INVALID;
	mroce_mr_publish(mr);
	return &mr->ibmr;
}

static int mroce_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct mroce_mr *mr = to_mmr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = addr;
	return 0;
}

/*
 * Load the page list (consumer-side, before posting IB_WR_REG_MR). The
 * MR must not be valid: remapping a live MR is a consumer error that
 * the REG_MR then reports; the page array itself never changes size,
 * so the placement paths stay memory-safe either way.
 */
int mroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct mroce_mr *mr = to_mmr(ibmr);
	unsigned long flags;
	int n;

	if (!is_power_of_2(ibmr->page_size) || ibmr->page_size < SZ_512)
		return -EINVAL;

	spin_lock_irqsave(&mr->lock, flags);
	mr->npages = 0;
	mr->page_shift = ilog2(ibmr->page_size);
	spin_unlock_irqrestore(&mr->lock, flags);

	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mroce_set_page);
	return n;
}

struct mroce_mr *mroce_mr_get(struct mroce_dev *dev, u32 key)
{
	struct mroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&dev->mrs, key >> 8);
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}
MR_KUNIT_EXPORT(mroce_mr_get);

void mroce_mr_put(struct mroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->done);
}
MR_KUNIT_EXPORT(mroce_mr_put);

/*
 * Check an access to [iova, iova + len) of @mr through @key from @pd
 * needing @access (IB_ACCESS_* bits; 0 = local read). Returns 0,
 * -EACCES (key, PD, state or permission) or -ERANGE (bounds).
 */
int mroce_mr_check(struct mroce_mr *mr, struct ib_pd *pd, u32 key, u64 iova,
		   u64 len, int access)
{
	unsigned long flags;
	int err = 0;

	/* A window is no local key, and reached remotely via mw.c only. */
	if (mroce_mr_is_mw(mr))
		return -EACCES;
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->state != MROCE_MR_VALID || mr->key != key ||
	    mr->ibmr.pd != pd || (mr->access & access) != access)
		err = -EACCES;
	else if (iova < mr->iova || len > mr->length ||
		 iova - mr->iova > mr->length - len)
		err = -ERANGE;
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}
MR_KUNIT_EXPORT(mroce_mr_check);

/*
 * Copy @len bytes between @buf and @mr at @iova (to_mr: into the MR).
 * The caller checked the range with mroce_mr_check(); the page index is
 * re-checked here so that a concurrent remap can never reach outside
 * the page array.
 */
int mroce_mr_copy(struct mroce_mr *mr, u64 iova, void *buf, u64 len,
		  bool to_mr)
{
	u64 off, idx, page_size;
	size_t chunk;
	u32 shift;
	void *va;

	if (mr->type == MROCE_MR_DMA) {
		va = (void *)(uintptr_t)iova;
		if (to_mr)
			memcpy(va, buf, len);
		else
			memcpy(buf, va, len);
		return 0;
	}

	shift = READ_ONCE(mr->page_shift);
	page_size = 1ULL << shift;
	off = iova - mr->iova + READ_ONCE(mr->first_off);
	while (len) {
		idx = off >> shift;
		if (idx >= min(READ_ONCE(mr->npages), mr->max_pages))
			return -ERANGE;
		chunk = min_t(u64, len, page_size - (off & (page_size - 1)));
		va = (void *)(uintptr_t)(mr->pages[idx] +
					 (off & (page_size - 1)));
		if (to_mr)
			memcpy(va, buf, chunk);
		else
			memcpy(buf, va, chunk);
		buf += chunk;
		off += chunk;
		len -= chunk;
	}
	return 0;
}
MR_KUNIT_EXPORT(mroce_mr_copy);

/* IB_WR_REG_MR: make a fast-reg MR valid with @key and @access. */
int mroce_mr_reg(struct mroce_mr *mr, u32 key, int access)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->type != MROCE_MR_FAST_REG || mr->state != MROCE_MR_INVALID ||
	    key >> 8 != mr->index || !mr->npages) {
		err = -EINVAL;
	} else {
		mr->key = key;
		mr->ibmr.lkey = key;
		mr->ibmr.rkey = key;
		mr->access = access;
		mr->iova = mr->ibmr.iova;
		mr->first_off = mr->iova & ((1ULL << mr->page_shift) - 1);
		mr->length = mr->ibmr.length;
		mr->state = MROCE_MR_VALID;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

/*
 * SEND_WITH_INV of @key arriving on @qp (MR-VERBS-16, MR-MW-5): may it
 * invalidate @mr, and with @doit do it. Without @doit a check without
 * side effects, for the arrival of a SEND_INV packet; with it, at the
 * message's completion. A window answers for itself (mw.c).
 */
bool mroce_mr_remote_inv(struct mroce_mr *mr, struct mroce_qp *qp, u32 key,
			 bool doit)
{
	unsigned long flags;
	bool ok;

	if (mroce_mr_is_mw(mr))
		return !mroce_mw_invalidate(mr, qp, key, true, doit);
	spin_lock_irqsave(&mr->lock, flags);
	ok = mr->type == MROCE_MR_FAST_REG && mr->key == key &&
	     mr->ibmr.pd == qp->ibqp.pd;
	if (ok && doit)
		mr->state = MROCE_MR_INVALID;
	spin_unlock_irqrestore(&mr->lock, flags);
	return ok;
}

/* IB_WR_LOCAL_INV and SEND_WITH_INV: invalidate a fast-reg MR. */
int mroce_mr_invalidate(struct mroce_mr *mr, u32 key)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->type != MROCE_MR_FAST_REG || mr->key != key)
		err = -EINVAL;
	else
		mr->state = MROCE_MR_INVALID;
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

#define MROCE_USER_MR_ACCESS						\
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |		\
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |		\
	 IB_ACCESS_MW_BIND | IB_ACCESS_RELAXED_ORDERING)

/*
 * Register process memory: pin it (ib_umem_get() checks RLIMIT_MEMLOCK
 * and the write permission) and keep the kernel address of every page.
 * The placement paths then use the MR like a fast-reg MR that is always
 * valid: iova maps to byte ib_umem_offset() of the first page.
 */
struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata)
{
	struct mroce_dev *dev = to_mdev(ibpd->device);
	struct ib_umem *umem;
	struct sg_page_iter it;
	struct mroce_mr *mr;
	size_t npages;
	int err;

	if (access & ~MROCE_USER_MR_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || length > dev->attr.max_mr_size)
		return ERR_PTR(-EINVAL);
	/*
	 * An IOVA range that wraps 2^64 is no region a peer can address
	 * (MR-SEC-7): every WRITE into its end would be one the wire
	 * cannot carry.
	 */
	if (virt_addr > U64_MAX - (length - 1))
		return ERR_PTR(-EINVAL);

	umem = mroce_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(umem)) {
		/* Most often RLIMIT_MEMLOCK (admin-guide.rst). */
		ibdev_dbg(&dev->ibdev, "reg_mr of %llu bytes: pinning failed: %ld\n",
			  length, PTR_ERR(umem));
		return ERR_CAST(umem);
	}
	npages = ib_umem_num_pages(umem);

	mr = mroce_mr_new(dev, MROCE_MR_USER);
	if (IS_ERR(mr)) {
		err = PTR_ERR(mr);
		goto err_umem;
	}
	mr->pages = kvcalloc(npages, sizeof(*mr->pages), GFP_KERNEL_ACCOUNT);
	if (!mr->pages) {
		mroce_mr_abort(mr);
		err = -ENOMEM;
		goto err_umem;
	}
	for_each_sgtable_page(&umem->sgt_append.sgt, &it, 0) {
		if (WARN_ON_ONCE(mr->npages >= npages))
			break;
		mr->pages[mr->npages++] =
			(uintptr_t)page_address(sg_page_iter_page(&it));
	}
	mr->max_pages = npages;
	mr->page_shift = PAGE_SHIFT;
	mr->first_off = ib_umem_offset(umem);
	mr->umem = umem;
	mr->access = access;
	mr->iova = virt_addr;
	mr->length = length;
	mr->ibmr.iova = virt_addr;
	mr->ibmr.length = length;
	mr->state = MROCE_MR_VALID;
	mroce_mr_publish(mr);
	return &mr->ibmr;

err_umem:
	ib_umem_release(umem);
	return ERR_PTR(err);
}

int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mroce_mr *mr = to_mmr(ibmr);
	struct mroce_dev *dev = mr->dev;
	unsigned long flags;
	u32 num_mw;

	/*
	 * An MR with windows bound stays (MR-MW-7): the windows keep
	 * addressing its pages. From here on nothing binds to it.
	 */
	spin_lock_irqsave(&mr->lock, flags);
	num_mw = mr->num_mw;
	if (!num_mw)
		mr->dead = true;
	spin_unlock_irqrestore(&mr->lock, flags);
	if (num_mw)
		return -EBUSY;

	/* Wait for datapath users that looked the MR up. */
	mroce_mr_unpublish(mr);

	kvfree(mr->pages);
	ib_umem_release(mr->umem);
	/* Lookups may still be between xa_load and refcount_inc_not_zero. */
	kfree_rcu(mr, rcu);
	atomic_dec(&dev->num_mr);
	return 0;
}
MR_KUNIT_EXPORT(mroce_dereg_mr);
