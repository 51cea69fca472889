/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE rdma-core provider: private definitions.
 * Design: Documentation/metaroce/provider.rst.
 */
#ifndef METAROCE_PROVIDER_H
#define METAROCE_PROVIDER_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verbs_abi.h"
#ifdef METAROCE_RDMA_CORE_TREE
#include <rdma/metaroce-abi.h>
#else
#include "metaroce-abi.h"
#endif

#define MROCE_CONTAINER(ptr, type, member)				\
	((type *)((char *)(ptr) - offsetof(type, member)))

/*
 * A driver request/response must start exactly where the core struct
 * ends: libibverbs sends (and the kernel reads) the bytes after the core
 * struct as udata, so any padding in between shifts every field.
 *
 * The core structs end in a flexible array (driver_data[]), which ISO C
 * does not allow inside another struct (gcc accepts it, clang flags it
 * as a GNU extension): the pair holds the core as suitably aligned
 * bytes that only libibverbs reads and writes, through the typed pointer
 * <name>_core() returns. The provider never touches core fields itself.
 */
#define MROCE_UDATA_PAIR(name, core_t, drv_t)				\
	struct name {							\
		_Alignas(core_t) unsigned char core[sizeof(core_t)];	\
		drv_t drv;						\
	};								\
	static inline core_t *name##_core(struct name *p)		\
	{								\
		return (core_t *)(void *)p->core;			\
	}								\
	_Static_assert(offsetof(struct name, drv) == sizeof(core_t),	\
		       #name ": padding between core and driver data"); \
	_Static_assert(sizeof(struct name) ==				\
		       sizeof(core_t) + sizeof(drv_t),			\
		       #name ": trailing padding")

struct mroce_device {
	struct verbs_device vdev;
};

struct mroce_context {
	struct verbs_context vctx;
	uint32_t max_inline_data;
	uint32_t max_sge;
};

static inline struct mroce_context *to_mctx(struct ibv_context *ibctx)
{
	return MROCE_CONTAINER(ibctx, struct mroce_context, vctx.context);
}

/*
 * Userspace view of one mapped ring (kernel/uapi/metaroce-abi.h).  'idx'
 * is this side's own index, the authoritative copy: the producer index
 * for an SQ/RQ/SRQ, the consumer index for a CQ.
 */
struct mroce_ring {
	void *map;
	size_t map_size;
	struct metaroce_ring_hdr *hdr;
	uint8_t *slots;
	uint32_t entries;	/* power of two */
	uint32_t stride;
	uint32_t limit;		/* producer: at most this many posted WQEs */
	uint32_t idx;
};

static inline void *mroce_ring_slot(struct mroce_ring *r, uint32_t i)
{
	return r->slots + (size_t)(i & (r->entries - 1)) * r->stride;
}

static inline uint32_t mroce_load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void mroce_store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

struct mroce_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;
	struct mroce_ring ring;
	/*
	 * ibv_cq_ex polling: 'lock' is held from a successful start_poll
	 * to end_poll; 'cur' is the decoded CQE at ring.idx while
	 * cur_valid (consumed by the next next_poll or end_poll).
	 */
	bool polling;
	bool cur_valid;
	struct ibv_wc cur;
};

struct mroce_qp {
	struct verbs_qp vqp;
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	struct mroce_ring sq;
	struct mroce_ring rq;		/* unused (map NULL) on an SRQ */
	bool has_rq;
	bool sq_sig_all;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	/*
	 * The ibv_wr_*() API (an ibv_qp_ex): sq_lock is held from wr_start
	 * to wr_complete/wr_abort.  wr_cur is the WQE being built, in the
	 * slot at sq.idx, not yet committed.
	 */
	uint64_t send_ops;		/* IBV_QP_EX_WITH_* granted */
	struct metaroce_sq_wqe *wr_cur;
	uint32_t wr_first;		/* sq.idx at wr_start */
	bool wr_need_ud;		/* wr_cur still lacks wr_set_ud_addr */
	int wr_err;			/* first error of the batch */
};

struct mroce_srq {
	struct verbs_srq vsrq;
	pthread_spinlock_t lock;
	struct mroce_ring ring;
	uint32_t max_sge;
};

struct mroce_ah {
	struct ibv_ah ibah;
	uint32_t ah_num;
};

static inline struct mroce_cq *to_mcq(struct ibv_cq *ibcq)
{
	return MROCE_CONTAINER(ibcq, struct mroce_cq, vcq.cq);
}

static inline struct mroce_qp *to_mqp(struct ibv_qp *ibqp)
{
	return MROCE_CONTAINER(ibqp, struct mroce_qp, vqp.qp);
}

static inline struct mroce_srq *to_msrq(struct ibv_srq *ibsrq)
{
	return MROCE_CONTAINER(ibsrq, struct mroce_srq, vsrq.srq);
}

static inline struct mroce_ah *to_mah(struct ibv_ah *ibah)
{
	return MROCE_CONTAINER(ibah, struct mroce_ah, ibah);
}

/* queues.c: rings, CQ/QP/SRQ verbs and the datapath. */
int mroce_ring_map(struct ibv_context *ctx, struct mroce_ring *r,
		   const struct metaroce_mmap_info *mi, uint32_t entries,
		   uint32_t stride, uint32_t min_stride);
void mroce_ring_unmap(struct mroce_ring *r);

struct ibv_cq *mroce_create_cq(struct ibv_context *ctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
struct ibv_cq_ex *mroce_create_cq_ex(struct ibv_context *ctx,
				     struct ibv_cq_init_attr_ex *attr);
int mroce_destroy_cq(struct ibv_cq *cq);
int mroce_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int mroce_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int mroce_resize_cq(struct ibv_cq *cq, int cqe);	/* cq_resize.c */
void mroce_cq_discard_qp(struct ibv_cq *cq, uint32_t qpn);	/* cq_clean.c */
int mroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access);	/* mr_rereg.c */

struct ibv_qp *mroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr);
struct ibv_qp *mroce_create_qp_ex(struct ibv_context *ctx,
				  struct ibv_qp_init_attr_ex *attr);
int mroce_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		    int attr_mask);
int mroce_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int mroce_destroy_qp(struct ibv_qp *qp);
int mroce_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int mroce_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);

struct ibv_srq *mroce_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr);
int mroce_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		     int attr_mask);
int mroce_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int mroce_destroy_srq(struct ibv_srq *srq);
int mroce_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);

/* mw.c: memory windows. */
struct ibv_mw *mroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int mroce_dealloc_mw(struct ibv_mw *mw);
int mroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind);

/*
 * Fills the bind part of a BIND_MW WQE: window @mw (named by its rkey),
 * new rkey @rkey, and the MR range and rights of @info.  Only what the
 * verbs API defines as an immediate error is refused here; the kernel
 * judges the rest and completes a bad bind with IBV_WC_MW_BIND_ERR.
 * Inline, so that the WQE builders (queues.c, also compiled alone by
 * test_datapath) need nothing of mw.c.
 */
static inline int mroce_wqe_set_bind(struct metaroce_sq_wqe *wqe,
				     struct ibv_mw *mw, uint32_t rkey,
				     const struct ibv_mw_bind_info *info)
{
	if (!mw || !info || (!info->mr && info->length))
		return EINVAL;
	wqe->wr.bind.addr = info->addr;
	wqe->wr.bind.length = info->length;
	wqe->wr.bind.mw_rkey = mw->rkey;
	wqe->wr.bind.new_rkey = rkey;
	wqe->wr.bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->wr.bind.access = info->mw_access_flags;
	return 0;
}

#endif /* METAROCE_PROVIDER_H */
