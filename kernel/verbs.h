/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE verbs objects other than the QP: PD, AH and its resolved
 * address, CQ, memory region, receive queue and SRQ (pd.c, ah.c, cq.c,
 * mr.c, srq.c), and the verbs entry points of every object.
 */
#ifndef MROCE_VERBS_H
#define MROCE_VERBS_H

#include <linux/in6.h>

#include "dev.h"
#include "uctx.h"

struct mroce_pd {
	struct ib_pd ibpd;
};

static inline struct mroce_pd *to_mpd(struct ib_pd *pd)
{
	return container_of(pd, struct mroce_pd, ibpd);
}

/* Resolved address: what the transmit path needs, derived from a GID. */
struct mroce_av {
	enum rdma_network_type net_type;	/* RDMA_NETWORK_IPV4 / IPV6 */
	union {
		__be32 v4;
		struct in6_addr v6;
	} saddr, daddr;
	u8 tclass;
	u8 hop_limit;
	u32 flow_label;
};

struct mroce_ah {
	struct ib_ah ibah;
	struct mroce_av av;
	struct mroce_ucontext *uctx;	/* user AH: in uctx->ahs */
	u32 ah_num;
};

static inline struct mroce_ah *to_mah(struct ib_ah *ah)
{
	return container_of(ah, struct mroce_ah, ibah);
}

int mroce_av_from_attr(struct mroce_av *av, const struct rdma_ah_attr *attr);

struct mroce_cq {
	struct ib_cq ibcq;
	/*
	 * Protects the completion ring (wc, head, tail, count) and the
	 * notification state. Taken with irqsave: completions are posted
	 * from softirq (receive path) and process context.
	 */
	spinlock_t lock;
	struct ib_wc *wc;
	u32 size;		/* ring entries, >= requested cqe */
	u32 head;		/* next entry to poll */
	u32 count;		/* entries in the ring */
	u8 notify;		/* 0 or IB_CQ_SOLICITED / IB_CQ_NEXT_COMP */
	bool overflow;		/* set once; the CQ is then in error */
	/*
	 * User CQ: CQEs go to this ring instead of wc; kprod is the
	 * kernel's producer index (the ring's prod is only a copy).
	 */
	struct mroce_uring ur;
	u32 kprod;
};

static inline struct mroce_cq *to_mcq(struct ib_cq *cq)
{
	return container_of(cq, struct mroce_cq, ibcq);
}

/* mroce_cq_add() results, ORed, for mroce_cq_notify(). */
#define MROCE_CQ_FIRE		0x1	/* call the completion handler */
#define MROCE_CQ_OVERFLOW	0x2	/* raise IB_EVENT_CQ_ERR */
unsigned int mroce_cq_add(struct mroce_cq *cq, const struct ib_wc *wc,
			  bool solicited);
void mroce_cq_notify(struct mroce_cq *cq, unsigned int note);
int mroce_cq_post(struct mroce_cq *cq, const struct ib_wc *wc, bool solicited);

enum mroce_mr_type {
	MROCE_MR_DMA,		/* whole kernel address space (virt DMA) */
	MROCE_MR_FAST_REG,	/* ib_alloc_mr + ib_map_mr_sg + IB_WR_REG_MR */
	MROCE_MR_USER,		/* reg_user_mr: pinned user pages (ib_umem) */
	MROCE_MW_1,		/* memory window type 1 (mw.c) */
	MROCE_MW_2,		/* memory window type 2 (2B: bound to a QP) */
};

enum mroce_mr_state {
	MROCE_MR_INVALID,	/* fast-reg MR not (or no longer) registered */
	MROCE_MR_VALID,
};

struct mroce_mr {
	struct ib_mr ibmr;
	struct mroce_dev *dev;
	enum mroce_mr_type type;
	u32 index;			/* key >> 8 */
	refcount_t ref;			/* lookup references; +1 while live */
	struct completion done;		/* ref reached zero */

	/*
	 * Protects state, pd, access, key, iova, length and the page list
	 * of a fast-reg MR, written by REG_MR / LOCAL_INV / remote
	 * invalidate and read by the placement paths while checking an
	 * access. A user MR's page list, umem, pd, access and keys change
	 * only in rereg, under this lock and while the MR is out of the
	 * lookup table with no reference left (mroce_mr_quiesce()).
	 */
	spinlock_t lock;
	enum mroce_mr_state state;
	struct ib_pd *pd;		/* accesses are checked against it */
	int access;
	u32 key;			/* current lkey == rkey */
	u64 iova;
	u64 length;

	/*
	 * Page list (kernel virtual addresses, virt DMA) of a fast-reg MR
	 * (filled by map_mr_sg) or a user MR (the pinned pages, constant).
	 * iova maps to byte first_off of pages[0].
	 */
	u64 *pages;
	u32 max_pages;
	u32 npages;
	u32 page_shift;
	u32 first_off;
	struct ib_umem *umem;		/* user MR only */

	/*
	 * Memory windows (mw.c), under lock. An MR: num_mw windows are
	 * bound to it (dereg_mr fails while there are), dead once
	 * dereg_mr began (no bind from then on). A window (MROCE_MW_*):
	 * state, key, access, iova and length are its own; bound is the
	 * MR it is bound to, holding a reference and one of its num_mw
	 * (NULL: no memory); qp_serial the QP a type 2 window is bound
	 * through (mroce_qp.serial, never reused).
	 */
	u32 num_mw;
	bool dead;
	struct mroce_mr *bound;
	u64 qp_serial;

	struct rcu_head rcu;		/* freed after RCU lookups finish */
};

static inline struct mroce_mr *to_mmr(struct ib_mr *mr)
{
	return container_of(mr, struct mroce_mr, ibmr);
}

struct mroce_mr *mroce_mr_get(struct mroce_dev *dev, u32 key);
void mroce_mr_put(struct mroce_mr *mr);
int mroce_mr_check(struct mroce_mr *mr, struct ib_pd *pd, u32 key, u64 iova,
		   u64 len, int access);
int mroce_mr_copy(struct mroce_mr *mr, u64 iova, void *buf, u64 len,
		  bool to_mr);
int mroce_mr_reg(struct mroce_mr *mr, u32 key, int access);
int mroce_mr_invalidate(struct mroce_mr *mr, u32 key);
struct mroce_mr *mroce_mr_new(struct mroce_dev *dev, enum mroce_mr_type type);
void mroce_mr_publish(struct mroce_mr *mr);
void mroce_mr_unpublish(struct mroce_mr *mr);

static inline bool mroce_mr_is_mw(const struct mroce_mr *mr)
{
	return mr->type == MROCE_MW_1 || mr->type == MROCE_MW_2;
}

/* Memory windows (mw.c). */
struct mroce_mw {
	struct ib_mw ibmw;
	struct mroce_mr *win;	/* the window, in dev->mrs (key space) */
};

static inline struct mroce_mw *to_mmw(struct ib_mw *mw)
{
	return container_of(mw, struct mroce_mw, ibmw);
}

int mroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int mroce_dealloc_mw(struct ib_mw *ibmw);

/* A receive WQE, kept in a ring sized at creation. */
struct mroce_recv_wqe {
	u64 wr_id;
	u32 num_sge;
	struct ib_sge sge[];
};

/* Bytes a receive WQE takes: the sum of its SGEs (no u32 wrap). */
static inline u64 mroce_rwqe_len(const struct mroce_recv_wqe *w)
{
	u64 len = 0;
	u32 i;

	for (i = 0; i < w->num_sge; i++)
		len += w->sge[i].length;
	return len;
}

/* Receive queue: embedded in a QP, or in an SRQ. */
struct mroce_rq {
	/* Protects the ring (buf, head, tail) and, for SRQs, limit. */
	spinlock_t lock;
	void *buf;
	u32 size;		/* entries, power of two */
	u32 max_sge;
	u32 wqe_size;		/* bytes per entry */
	u32 head;		/* consumer index */
	u32 tail;		/* producer index */
	/*
	 * User queue: WQEs are pulled from this ring into buf at the same
	 * index (tail is then the kernel's copy-out index), and head is
	 * published as the ring's cons. broken: the ring's prod was
	 * corrupt; nothing more is pulled.
	 */
	struct mroce_uring ur;
	bool broken;
	/*
	 * SRQ only: WQEs a QP had bound to its SSNs and gave back unused
	 * (MR-VERBS-20), a FIFO of size entries with buf's layout, handed
	 * out before the ring's WQEs. NULL for a QP's own RQ.
	 */
	void *ret;
	u32 ret_head;
	u32 ret_tail;
};

int mroce_urq_pull(struct mroce_rq *rq);
void mroce_urq_publish(struct mroce_rq *rq);

static inline u32 mroce_rq_count(const struct mroce_rq *rq)
{
	return rq->tail - rq->head;
}

/* WQEs available to consume: given back plus posted. rq->lock held. */
static inline u32 mroce_rq_avail(const struct mroce_rq *rq)
{
	return rq->ret_tail - rq->ret_head + mroce_rq_count(rq);
}

struct mroce_recv_wqe *mroce_rq_peek(struct mroce_rq *rq);
void mroce_rq_consume(struct mroce_rq *rq);
bool mroce_rq_give_back(struct mroce_rq *rq, const struct mroce_recv_wqe *w);

static inline struct mroce_recv_wqe *mroce_rq_wqe(struct mroce_rq *rq,
						  u32 idx)
{
	return rq->buf + (size_t)(idx & (rq->size - 1)) * rq->wqe_size;
}

int mroce_rq_init(struct mroce_rq *rq, u32 max_wr, u32 max_sge);
void mroce_rq_free(struct mroce_rq *rq);
int mroce_rq_post(struct mroce_rq *rq, const struct ib_recv_wr *wr);

struct mroce_srq {
	struct ib_srq ibsrq;
	struct mroce_rq rq;
	u32 limit;		/* 0 = disarmed; protected by rq.lock */
	bool err_reported;	/* IB_EVENT_SRQ_ERR raised; rq.lock */
};

static inline struct mroce_srq *to_msrq(struct ib_srq *srq)
{
	return container_of(srq, struct mroce_srq, ibsrq);
}

void mroce_srq_check_limit(struct mroce_srq *srq);

/* Verbs entry points, one file per object. */
int mroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int mroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

int mroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata);
int mroce_destroy_ah(struct ib_ah *ibah, u32 flags);

int mroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int mroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int mroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int mroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *mroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int mroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *mroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata);

int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int mroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

int mroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int mroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int mroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int mroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int mroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

#endif /* MROCE_VERBS_H */
