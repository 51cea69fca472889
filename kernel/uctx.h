/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE user-space verbs: a process's context and the rings it shares
 * with the kernel (uring.c). Every byte of a ring is the process's to
 * write at any time: see struct mroce_uring.
 */
#ifndef MROCE_UCTX_H
#define MROCE_UCTX_H

#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "uapi/metaroce-abi.h"

/*
 * A process's verbs context: the AHs it created, by the ah_num its UD
 * WQEs name them with (xarray index, never 0).
 */
struct mroce_ucontext {
	struct ib_ucontext ibuc;
	struct xarray ahs;
};

static inline struct mroce_ucontext *to_muctx(struct ib_ucontext *uc)
{
	return container_of(uc, struct mroce_ucontext, ibuc);
}

/* One mmap()able ring: vmalloc memory charged to the memcg, freed by mmap_free. */
struct mroce_mmap_entry {
	struct rdma_user_mmap_entry rentry;
	void *buf;
};

/*
 * Kernel view of a ring shared with a process (uapi/metaroce-abi.h).
 * Every byte behind hdr and slots is written by the process at will:
 * the kernel reads the peer index and each slot once, and only ever
 * indexes with its own counters masked by entries - 1 (a value it chose).
 * hdr == NULL: no ring (kernel consumer).
 */
struct mroce_uring {
	struct mroce_mmap_entry *entry;
	struct metaroce_ring_hdr *hdr;
	u8 *slots;
	u32 entries;		/* power of two */
	u32 stride;
};

static inline void *mroce_uring_slot(const struct mroce_uring *r, u32 idx)
{
	return r->slots + (size_t)(idx & (r->entries - 1)) * r->stride;
}

/*
 * The peer's index: acquire, so that the slots it filled (or finished
 * reading) before publishing the index are seen in that state.
 */
static inline u32 mroce_uring_get(u32 *idx)
{
	/* Pairs with the peer's release store of the index. */
	return smp_load_acquire(idx);
}

/* Our index or flags: release, after our slot accesses are complete. */
static inline void mroce_uring_put(u32 *idx, u32 val)
{
	/* Pairs with the peer's acquire load of the index. */
	smp_store_release(idx, val);
}

int mroce_uring_alloc(struct mroce_uring *r, struct ib_ucontext *uc,
		      u32 entries, u32 stride, struct metaroce_mmap_info *mi);
void mroce_uring_free(struct mroce_uring *r);
void mroce_uring_set_kflags(struct mroce_uring *r, u32 set, u32 clear);
struct mroce_ucontext *mroce_udata_uctx(struct ib_udata *udata);
int mroce_udata_req(struct ib_udata *udata, void *req, size_t len);
int mroce_udata_resp(struct ib_udata *udata, const void *resp, size_t len);
int mroce_alloc_ucontext(struct ib_ucontext *uc, struct ib_udata *udata);
void mroce_dealloc_ucontext(struct ib_ucontext *uc);
int mroce_mmap(struct ib_ucontext *uc, struct vm_area_struct *vma);
void mroce_mmap_free(struct rdma_user_mmap_entry *rentry);

#endif /* MROCE_UCTX_H */
