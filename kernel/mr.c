// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE memory regions: for kernel consumers DMA MRs (virtual DMA:
 * addresses are kernel virtual addresses) and fast-registration MRs
 * (ib_alloc_mr + ib_map_mr_sg + IB_WR_REG_MR, invalidated by
 * IB_WR_LOCAL_INV or SEND_WITH_INV); for processes user MRs (pinned with
 * ib_umem, which also enforces RLIMIT_MEMLOCK).
 *
 * Keys: lkey == rkey == random bits, index, key byte (dev.h). The index
 * finds the MR in dev->mrs; the random bits are drawn at allocation, the
 * key byte is random then and chosen by the consumer at each REG_MR
 * (ib_update_fast_reg_key), and every check compares the whole key, so
 * a stale or guessed rkey with a valid index is rejected (MR-SEC-1): 12
 * of its 32 bits are unknown to a peer holding the rkey of the next MR.
 */

#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "metaroce.h"

/*
 * User MRs keep each pinned page's kernel address (page_address()): with
 * HIGHMEM a page may have none, and placement would write through NULL.
 */
#ifdef CONFIG_HIGHMEM
#error "metaroce needs a kernel without CONFIG_HIGHMEM (64-bit)"
#endif

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
	mr->key = (get_random_u32() & (MROCE_KEY_RAND_HI | 0xff)) | index << 8;
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
	mr->pd = ibpd;
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
	mr->pd = ibpd;
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
	mr = xa_load(&dev->mrs, mroce_key_index(key));
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
	    mr->pd != pd || (mr->access & access) != access)
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
	    !mroce_key_same_name(key, mr->key) || !mr->npages) {
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
MR_KUNIT_EXPORT(mroce_mr_reg);

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
	     mr->pd == qp->ibqp.pd;
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
 * The range checks of a user registration: -EINVAL for an empty or
 * oversized region, and for an IOVA range that wraps 2^64, which is no
 * region a peer can address (MR-SEC-7): every WRITE into its end would
 * be one the wire cannot carry.
 */
static int mroce_user_range_ok(struct mroce_dev *dev, u64 length,
			       u64 virt_addr)
{
	if (!length || length > dev->attr.max_mr_size)
		return -EINVAL;
	if (virt_addr > U64_MAX - (length - 1))
		return -EINVAL;
	return 0;
}

/*
 * Pin [start, start + length) of the calling process (ib_umem_get()
 * checks RLIMIT_MEMLOCK and, for a writable @access, the write
 * permission) and list the kernel address of every page.
 */
static int mroce_user_pin(struct mroce_dev *dev, u64 start, u64 length,
			  int access, struct ib_umem **umemp, u64 **pagesp,
			  u32 *npagesp)
{
	struct ib_umem *umem;
	struct sg_page_iter it;
	size_t npages, n = 0;
	u64 *pages;

	umem = mroce_umem_get(&dev->ibdev, start, length, access);
	if (IS_ERR(umem)) {
		/* Most often RLIMIT_MEMLOCK (admin-guide.rst). */
		ibdev_dbg(&dev->ibdev, "reg_mr of %llu bytes: pinning failed: %ld\n",
			  length, PTR_ERR(umem));
		return PTR_ERR(umem);
	}
	npages = ib_umem_num_pages(umem);
	pages = kvcalloc(npages, sizeof(*pages), GFP_KERNEL_ACCOUNT);
	if (!pages) {
		ib_umem_release(umem);
		return -ENOMEM;
	}
	for_each_sgtable_page(&umem->sgt_append.sgt, &it, 0) {
		if (WARN_ON_ONCE(n >= npages))
			break;
		pages[n++] = (uintptr_t)page_address(sg_page_iter_page(&it));
	}
	*umemp = umem;
	*pagesp = pages;
	*npagesp = n;
	return 0;
}

/*
 * Register process memory: pin it and keep the kernel address of every
 * page. The placement paths then use the MR like a fast-reg MR that is
 * always valid: iova maps to byte ib_umem_offset() of the first page.
 */
struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata)
{
	struct mroce_dev *dev = to_mdev(ibpd->device);
	struct ib_umem *umem;
	struct mroce_mr *mr;
	u64 *pages;
	u32 npages;
	int err;

	if (access & ~MROCE_USER_MR_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	err = mroce_user_range_ok(dev, length, virt_addr);
	if (err)
		return ERR_PTR(err);
	err = mroce_user_pin(dev, start, length, access, &umem, &pages,
			     &npages);
	if (err)
		return ERR_PTR(err);

	mr = mroce_mr_new(dev, MROCE_MR_USER);
	if (IS_ERR(mr)) {
		kvfree(pages);
		ib_umem_release(umem);
		return ERR_CAST(mr);
	}
	mr->pages = pages;
	mr->npages = npages;
	mr->max_pages = npages;
	mr->page_shift = PAGE_SHIFT;
	mr->first_off = ib_umem_offset(umem);
	mr->umem = umem;
	mr->pd = ibpd;
	mr->access = access;
	mr->iova = virt_addr;
	mr->length = length;
	mr->ibmr.iova = virt_addr;
	mr->ibmr.length = length;
	mr->state = MROCE_MR_VALID;
	mroce_mr_publish(mr);
	return &mr->ibmr;
}

/*
 * Take @mr out of the lookup table and wait until no datapath user holds
 * it (as dereg does), keeping its index reserved: an allocating xarray
 * turns a stored NULL into a reserved entry that lookups see as absent.
 * Accesses arriving meanwhile find no MR and fail as with a bad key.
 */
static void mroce_mr_quiesce(struct mroce_mr *mr)
{
	xa_store(&mr->dev->mrs, mr->index, NULL, GFP_KERNEL);
	mroce_mr_put(mr);
	wait_for_completion(&mr->done);
}

/* Undo mroce_mr_quiesce(): the MR is live again with its new state. */
static void mroce_mr_resume(struct mroce_mr *mr)
{
	/* Before the ref: only the final put may complete it from now. */
	reinit_completion(&mr->done);
	refcount_set(&mr->ref, 1);
	mroce_mr_publish(mr);
}

#define MROCE_REREG_FLAGS						\
	(IB_MR_REREG_TRANS | IB_MR_REREG_PD | IB_MR_REREG_ACCESS)

/*
 * ibv_rereg_mr of a user MR, in place (MR-SEC-14): ib_core keeps the
 * MR object when this returns NULL. Everything that can fail (checks,
 * pinning the new range) is done first and leaves the MR as it was; the
 * switch then runs with the MR quiesced, so no in-flight access uses the
 * old pages after they are released, nor checks against a half-changed
 * MR. A new translation gets new key bits (MR-SEC-1): the old lkey and
 * rkey no longer work; a change of PD or access alone keeps the keys.
 * Access rights that make the region writable when its pages were
 * pinned read-only re-pin the same range writable: the kernel must never
 * write to pages pinned without write permission (they may be shared
 * copy-on-write). An MR with memory windows bound is refused with
 * EBUSY, as dereg_mr refuses it.
 */
struct ib_mr *mroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mroce_mr *mr = to_mmr(ibmr);
	struct mroce_dev *dev = mr->dev;
	struct ib_umem *umem = NULL;
	unsigned long irqflags;
	u64 *pages = NULL;
	u32 npages = 0;
	bool busy;
	u8 kb;
	int err;

	if (!flags || (flags & ~MROCE_REREG_FLAGS))
		return ERR_PTR(-EOPNOTSUPP);
	if (mr->type != MROCE_MR_USER)
		return ERR_PTR(-EINVAL);
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	if (access & ~MROCE_USER_MR_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	if (!(flags & IB_MR_REREG_PD))
		ibpd = mr->pd;
	if (!(flags & IB_MR_REREG_TRANS) && ib_access_writable(access) &&
	    !mr->umem->writable) {
		/* The same range, pinned writable now. */
		flags |= IB_MR_REREG_TRANS;
		start = mr->umem->address;
		length = mr->length;
		virt_addr = mr->iova;
	}
	if (flags & IB_MR_REREG_TRANS) {
		err = mroce_user_range_ok(dev, length, virt_addr);
		if (!err)
			err = mroce_user_pin(dev, start, length, access, &umem,
					     &pages, &npages);
		if (err)
			return ERR_PTR(err);
	}

	/*
	 * Not while windows are bound (MR-MW-7): they address the current
	 * translation, and each holds a reference the quiesce would wait for
	 * forever. dead keeps binds off until the MR is live again.
	 */
	spin_lock_irqsave(&mr->lock, irqflags);
	busy = mr->num_mw || mr->dead;
	if (!busy)
		mr->dead = true;
	spin_unlock_irqrestore(&mr->lock, irqflags);
	if (busy) {
		kvfree(pages);
		if (umem)
			ib_umem_release(umem);
		return ERR_PTR(-EBUSY);
	}

	mroce_mr_quiesce(mr);
	spin_lock_irqsave(&mr->lock, irqflags);
	mr->dead = false;
	mr->pd = ibpd;
	mr->access = access;
	if (umem) {
		swap(mr->pages, pages);
		swap(mr->umem, umem);
		mr->npages = npages;
		mr->max_pages = npages;
		mr->first_off = ib_umem_offset(mr->umem);
		mr->iova = virt_addr;
		mr->length = length;
		mr->ibmr.iova = virt_addr;
		mr->ibmr.length = length;
		/* Fresh key bits, never the old ones (MR-SEC-1, MR-SEC-14). */
		kb = get_random_u32_below(255) + 1;
		mr->key = (get_random_u32() & MROCE_KEY_RAND_HI) |
			  mr->index << 8 | (u8)(mr->key + kb);
		mr->ibmr.lkey = mr->key;
		mr->ibmr.rkey = mr->key;
	}
	spin_unlock_irqrestore(&mr->lock, irqflags);
	mroce_mr_resume(mr);

	/* The old translation's, if replaced: no user is left. */
	kvfree(pages);
	if (umem)
		ib_umem_release(umem);
	return NULL;
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
