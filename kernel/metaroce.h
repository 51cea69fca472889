/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE: software RDMA device carrying the MetaRoCE transport over
 * any Ethernet netdev. Kernel glue shared declarations.
 *
 * Object model (one struct per verbs object, embedding the ib_* object
 * so ib_core allocates it, see INIT_RDMA_OBJ_SIZE in device.c):
 *
 *   mroce_dev  - one per `rdma link add`, bound to one netdev
 *   mroce_pd, mroce_ah, mroce_cq, mroce_mr, mroce_qp, mroce_srq
 *
 * Locking overview (each lock is also documented at its declaration):
 *   mroce_devs_lock (main.c)  - global device list
 *   mroce_net.lock            - per-namespace socket refcount + dev list
 *   dev->port_lock            - port state / active MTU
 *   qp->modify_lock (mutex)   - serialises modify_qp/destroy_qp
 *   qp->sq.lock               - send queue ring, requester state
 *   qp->resp_lock             - responder state (struct mroce_resp)
 *   qp->rq.lock / srq->rq.lock - receive queue ring
 *   cq->lock                  - completion ring + notify state
 *   mr->lock                  - fast-reg MR state/keys/page list
 * Lock order: qp->modify_lock -> qp->sq.lock -> qp->rq.lock -> cq->lock,
 * and qp->resp_lock -> qp->rq.lock or srq->rq.lock -> cq->lock
 * (sq.lock and resp_lock are never held together). mr->lock is a leaf.
 * A completion enters its CQ under the lock that orders its WQE; no
 * lock is held across a call into a consumer's completion or event
 * handler.
 */
#ifndef MROCE_METAROCE_H
#define MROCE_METAROCE_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/in6.h>
#include <linux/hrtimer.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

#include "proto/wire.h"
#include "proto/txsb.h"
#include "proto/cc.h"
#include "proto/path.h"
#include "proto/sender.h"
#include "proto/rxwin.h"
#include "proto/rxmsg.h"
#include "proto/rdresp.h"
#include "proto/rdasm.h"
#include "uapi/metaroce-abi.h"

#define MROCE_DRV_NAME		"metaroce"
#define MROCE_UDP_PORT_DEFAULT	4793

/*
 * Worst-case bytes between the netdev payload start and the IB payload:
 * IPv6 (40) + UDP (8) + MBH (20) + DXH (16) + RXH (16) + IMM (4) + ICRC (4).
 * The active IB MTU is the largest IB MTU that fits in netdev MTU minus
 * this overhead (MR-ENC-* in the spec).
 */
#define MROCE_MAX_HDR_OVERHEAD	(40 + 8 + 20 + 16 + 16 + 4 + 4)

/* Device limits (reported through query_device) */
#define MROCE_MAX_QP		0x10000
#define MROCE_MAX_QP_WR		0x4000
#define MROCE_MAX_SGE		32
#define MROCE_MAX_INLINE	512
#define MROCE_MAX_CQ		0x10000
#define MROCE_MAX_CQE		0x8000
#define MROCE_MAX_MR		0x40000
#define MROCE_MAX_MR_SIZE	(1ULL << 40)
#define MROCE_MAX_FR_PAGES	512
#define MROCE_MAX_PD		0x10000
#define MROCE_MAX_AH		0x10000
#define MROCE_MAX_SRQ		0x1000
#define MROCE_MAX_SRQ_WR	0x4000
#define MROCE_MAX_RD_ATOMIC	128
#define MROCE_QPN_MAX		0xffffffU	/* 24-bit QPN */
#define MROCE_GSI_QPN		1
#define MROCE_FIRST_QPN		2
#define MROCE_KEY_IDX_MAX	0xffffffU	/* key = index << 8 | key byte */

/* Hardware counters exported through `rdma statistic show`. */
enum mroce_counter {
	MROCE_CNT_TX_PKTS,
	MROCE_CNT_TX_BYTES,
	MROCE_CNT_RX_PKTS,
	MROCE_CNT_RX_BYTES,
	MROCE_CNT_TX_DROPS,
	MROCE_CNT_RETX,
	MROCE_CNT_ACK_TX,
	MROCE_CNT_ACK_RX,
	MROCE_CNT_SACK_TX,
	MROCE_CNT_SACK_RX,
	MROCE_CNT_NACK_TX_TRIMMED,
	MROCE_CNT_NACK_TX_SEQ_ERR,
	MROCE_CNT_NACK_TX_RNR,
	MROCE_CNT_NACK_TX_REM_ACCESS,
	MROCE_CNT_NACK_TX_INV_REQ,
	MROCE_CNT_NACK_TX_REM_OP,
	MROCE_CNT_NACK_RX_TRIMMED,
	MROCE_CNT_NACK_RX_SEQ_ERR,
	MROCE_CNT_NACK_RX_RNR,
	MROCE_CNT_NACK_RX_REM_ACCESS,
	MROCE_CNT_NACK_RX_INV_REQ,
	MROCE_CNT_NACK_RX_REM_OP,
	MROCE_CNT_RTO,
	MROCE_CNT_SPURIOUS_RTO,
	MROCE_CNT_RNR_EVENTS,
	MROCE_CNT_ECN_CE_SEEN,
	MROCE_CNT_ECN_ECHOED,
	MROCE_CNT_ICRC_DROPS,
	MROCE_CNT_MALFORMED_DROPS,
	MROCE_CNT_VERSION_DROPS,
	MROCE_CNT_QPN_DROPS,
	MROCE_CNT_DUP_DROPS,
	MROCE_CNT_WINDOW_DROPS,
	MROCE_CNT_RKEY_VIOLATIONS,
	MROCE_CNT_PATH_REROLLS,
	MROCE_CNT_QKEY_DROPS,
	MROCE_CNT_NO_WQE_DROPS,
	MROCE_CNT_UD_LEN_DROPS,
	MROCE_CNT_STALE_DROPS,
	MROCE_CNT_FUTURE_DROPS,
	MROCE_CNT_OLD_DUP_DROPS,
	MROCE_CNT_ERR_POINT_DROPS,
	MROCE_CNT_REPLAY_DROPS,
	MROCE_CNT_ATOMIC_MISS,
	MROCE_CNT_RATE_LIMITED,
	MROCE_CNT_ACK_AGE_DROPS,
	MROCE_CNT_TRIM_DROPS,
	MROCE_CNT_RESP_DROPS,
	MROCE_NUM_COUNTERS
};

struct mroce_stats {
	u64 cnt[MROCE_NUM_COUNTERS];
};

struct mroce_net;

struct mroce_dev {
	struct ib_device ibdev;		/* must be first: ib_alloc_device */

	/*
	 * The bound netdev. A reference is held (ndev_tracker) from
	 * newlink until dealloc_driver; the pointer never changes.
	 */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;

	/* On mroce_devs (main.c), protected by mroce_devs_lock. */
	struct list_head list;
	/* On mnet->devs: written under mnet->lock, read under RCU. */
	struct list_head net_node;
	/* Per-namespace UDP sockets, referenced while registered. */
	struct mroce_net *mnet;

	struct ib_device_attr attr;	/* constant after registration */

	/* Protects port_state and active_mtu; taken from notifier + verbs. */
	spinlock_t port_lock;
	enum ib_port_state port_state;
	enum ib_mtu active_mtu;

	/*
	 * qpn -> mroce_qp. The xarray's internal lock serialises writers;
	 * the receive path looks QPs up under RCU and takes qp->ref.
	 */
	struct xarray qps;
	u32 qpn_next;
	/* key index -> mroce_mr, same scheme as qps. */
	struct xarray mrs;
	u32 mr_next;

	/* Object counts against the limits in attr. */
	atomic_t num_pd, num_ah, num_cq, num_qp, num_srq, num_mr;

	struct mroce_stats __percpu *stats;

	/* Deferred unregistration on NETDEV_UNREGISTER (main.c). */
	struct work_struct unreg_work;
	unsigned long unreg_queued;	/* bit 0: queued once, never again */
};

static inline struct mroce_dev *to_mdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mroce_dev, ibdev);
}

static inline void mroce_count(struct mroce_dev *dev, enum mroce_counter c)
{
	this_cpu_inc(dev->stats->cnt[c]);
}

static inline void mroce_count_add(struct mroce_dev *dev,
				   enum mroce_counter c, u64 v)
{
	this_cpu_add(dev->stats->cnt[c], v);
}

u64 mroce_counter_read(struct mroce_dev *dev, enum mroce_counter c);

/* ------------------------------------------------------------------ */
/* User-space verbs: context and shared rings (uring.c)                */

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

/* One mmap()able ring: memory from vmalloc_user(), freed by mmap_free. */
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

/* ------------------------------------------------------------------ */
/* Verbs objects                                                        */

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
	 * Protects state, access, key, iova, length and the page list of
	 * a fast-reg MR, written by REG_MR / LOCAL_INV / remote invalidate
	 * and read by the placement paths while checking an access.
	 */
	spinlock_t lock;
	enum mroce_mr_state state;
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
bool mroce_mr_can_invalidate(struct mroce_mr *mr, struct ib_pd *pd, u32 key);

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

/* A send WQE: a copy of the consumer's WR, stable until completion. */
/* Requester progress of one send WQE (sq.lock). */
enum mroce_wqe_state {
	MROCE_WQE_QUEUED,	/* not (fully) packetized yet */
	MROCE_WQE_SENT,		/* every packet sent; awaiting ACK/response */
	MROCE_WQE_DONE,		/* may complete once it reaches the head */
};

struct mroce_send_wqe {
	u64 wr_id;
	enum ib_wr_opcode opcode;
	int send_flags;
	u32 num_sge;
	u32 length;		/* total payload bytes */

	/* Requester state, written under sq.lock. */
	u8 state;		/* enum mroce_wqe_state */
	u8 status;		/* enum ib_wc_status once DONE */
	u8 wire_op;		/* enum mr_opcode of its packets, 0: local */
	u8 rd_atomic;		/* counted in req->rd_atomic_out */
	u8 rd_trimmed;		/* READ: a response was trimmed, ask again */
	u8 rd_asking;		/* READ: asking again from rd_ask_from on */
	u32 msn;		/* request message sequence number */
	u32 ssn;		/* receive WQE it consumes at the peer */
	u32 first_psn;		/* PSN of its first packet */
	u32 last_psn;		/* PSN of its last packet (once SENT) */
	u32 retries;		/* READ/ATOMIC re-requests counted */
	u64 retry_ns;		/* last one counted, or progress */
	u64 progress_ns;	/* READ/ATOMIC: last response progress */
	/* READ: what arrived and what was requested (proto/rdasm.h). */
	struct mr_rdasm rd;
	/*
	 * READ: the missing runs of rd at or after this offset are still
	 * to be asked for again in the current round (MR-REL-24).
	 */
	u32 rd_ask_from;
	u64 atomic_orig;
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	} ex;
	union {
		struct {
			u64 remote_addr;
			u32 rkey;
		} rdma;
		struct {
			u64 remote_addr;
			u64 compare_add;
			u64 swap;
			u32 rkey;
		} atomic;
		struct {
			struct mroce_mr *mr;
			u32 key;
			int access;
		} reg;
		struct {
			/* A copy: a user AH may be destroyed meanwhile. */
			struct mroce_av av;
			u32 remote_qpn;
			u32 remote_qkey;
		} ud;
	} wr;
	/* Either num_sge SGEs or, with IB_SEND_INLINE, length bytes. */
	union {
		DECLARE_FLEX_ARRAY(struct ib_sge, sge);
		DECLARE_FLEX_ARRAY(u8, inline_data);
	};
};

/*
 * Requester protocol state of an RC QP (sq.lock): the core's sender
 * scoreboard, congestion control and path table.
 */
struct mroce_req {
	struct mr_sender snd;	/* scoreboard, congestion control, paths */
	u32 msn_next;		/* msn of the next request message */
	u32 ssn_next;		/* ssn of the next receive-consuming message */
	u32 cur;		/* SQ index of the WQE being packetized */
	u32 cur_off;		/* its bytes already packetized */
	u32 mtu;		/* payload bytes per packet */
	u32 probe_id;		/* MBH.psn of the next PROBE */
	u64 rerolls_seen;	/* snd.pt.rerolls already counted */
	/*
	 * SQ index of the WQE of each started request message, by
	 * msn & (sq.size - 1): the started, unretired WQEs have consecutive
	 * msns and are at most sq.size, so a response finds its WQE in O(1).
	 */
	u32 *msn_idx;
	/* READ/ATOMIC WRs started and not retired (MR-VERBS-15). */
	u32 rd_atomic_out;
	/* READ response bytes requested and not yet received. */
	u64 rd_bytes_out;
	/* When the scoreboard failed: earlier READs get one RTO more. */
	u64 failed_ns;
	bool inited;
	/* A WQE failed before it was sent: send nothing after it. */
	bool halted;
	/* A packet could not be allocated: the timer retries shortly. */
	bool tx_nomem;
	/*
	 * Byte offset in its message of each outstanding data packet, by
	 * PSN: a message's PSNs need not be consecutive (READ ranges may
	 * be requested in between), so retransmissions look it up here.
	 */
	u32 pkt_off[MR_TXSB_WIN];
	/* READ_REQ PSNs: length of the range asked (resent identically). */
	u32 pkt_len[MR_TXSB_WIN];
};

/*
 * Responder protocol state of an RC QP (resp_lock): receive window,
 * message tracker, READ/ATOMIC records and READ response jobs, receive
 * WQE binding, the error point and the rate limits of unauthenticated
 * responses.
 */
struct mroce_resp {
	struct mr_rxwin w;
	struct mr_rxmsg m;
	struct mr_rdresp rd;
	u32 ssn_base;		/* ssn of the oldest uncompleted recv WQE */
	u32 ssn_fetched;	/* SRQ: WQEs copied into slots up to here */
	void *slots;		/* SRQ: MR_WINDOW copied receive WQEs */
	u32 slot_size;
	/* SRQ: slot ssn % MR_WINDOW had bytes placed into it (MR-VERBS-20) */
	u64 slot_placed[MR_SACK_WORDS];
	/*
	 * The receive WQE a message failed to scatter into (MR-VERBS-21:
	 * LOC_LEN_ERR, LOC_PROT_ERR): the flush completes it with this
	 * status instead of WR_FLUSH_ERR. rwqe_err_idx is its RQ index, or
	 * rwqe_err_ssn its SSN on an SRQ. rwqe_err 0: none.
	 */
	u8 rwqe_err;
	u32 rwqe_err_ssn;
	u32 rwqe_err_idx;
	bool ack_pending;	/* delayed ACK owed */
	u8 ack_path;		/* path of the packet that triggered it */
	bool last_wqe;		/* SRQ: LAST_WQE_REACHED raised */
	/*
	 * Error point (MR-VERBS-24): the lowest PSN found with a fatal
	 * condition; nothing at or after it is placed or executed, and its
	 * NACK goes out once cum_psn reaches it (err_due: after the READ
	 * responses still queued for earlier READs). err_sent_ns: when
	 * that NACK left, for its repeats (MR-REL-28).
	 */
	bool err_valid;
	bool err_due;
	bool err_sent;
	u8 err_reason;
	u32 err_psn;
	u64 err_sent_ns;
	/* Rate limits (MR-REL-10, MR-REL-28, MR-SEC-8). */
	u64 seq_err_ns;		/* last NACK SEQ_ERR or repeated fatal NACK */
	u32 dup_tokens;		/* responses to duplicates still allowed */
	u64 dup_refill_ns;
	/* READ response pacing (MR-CC-19). */
	u64 rd_next_ns;
	bool rd_wait;		/* rd_timer armed: pacing or no memory */
};

struct mroce_sq {
	/* Protects the ring and the requester's per-QP state. */
	spinlock_t lock;
	void *buf;
	u32 size;		/* entries, power of two */
	u32 max_sge;
	u32 max_inline;
	u32 wqe_size;
	u32 head;		/* oldest uncompleted WQE */
	u32 tail;		/* producer index */
	bool running;		/* a thread is processing (req.c) */
	bool kick;		/* more work arrived while running */
};

static inline struct mroce_send_wqe *mroce_sq_wqe(struct mroce_sq *sq,
						  u32 idx)
{
	return sq->buf + (size_t)(idx & (sq->size - 1)) * sq->wqe_size;
}

struct mroce_qp_attrs {
	u32 dest_qpn;
	u32 sq_psn;
	u32 rq_psn;
	u32 qkey;
	enum ib_mtu path_mtu;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	int access_flags;
	u16 pkey_index;
	u8 port_num;
	bool sq_draining;
	struct rdma_ah_attr ah_attr;	/* as given, for query_qp */
	struct mroce_av av;		/* resolved for transmit */
};

struct mroce_qp {
	struct ib_qp ibqp;
	struct mroce_dev *dev;

	/*
	 * Receive-path lookup references (xarray under RCU); the creator's
	 * reference is dropped by destroy_qp, which then waits on done.
	 */
	refcount_t ref;
	struct completion done;

	/* Serialises modify_qp, query_qp and destroy_qp (may sleep). */
	struct mutex modify_lock;

	/*
	 * Written with both sq.lock and rq.lock held (mroce_qp_set_state),
	 * so a path holding either lock reads a stable value; lockless
	 * readers use READ_ONCE and re-check under the lock.
	 */
	enum ib_qp_state state;

	/* Written under modify_lock, read by the datapath. */
	struct mroce_qp_attrs attr;

	struct mroce_sq sq;
	struct mroce_rq rq;	/* unused when srq != NULL */
	struct mroce_srq *srq;
	struct mroce_cq *scq;
	struct mroce_cq *rcq;
	enum ib_sig_type sq_sig_type;

	/* Route cache of the transmit path (per-CPU, lockless). */
	struct dst_cache dst_cache;

	/* RC protocol state (allocated with the QP). */
	struct mroce_req *req;		/* under sq.lock */
	/*
	 * Protects resp: the responder's receive window, message tracker,
	 * receive WQE binding and atomic cache. Taken in softirq by the
	 * receive path; never held across a CQ post or a consumer call.
	 */
	spinlock_t resp_lock;
	struct mroce_resp *resp;

	/* Requester timers (RTO, RACK, RNR, pacing): softirq hrtimer. */
	struct hrtimer req_timer;
	/* Responder delayed-ACK timer: softirq hrtimer. */
	struct hrtimer ack_timer;
	/* READ responses: paced restart of resp_work (softirq hrtimer). */
	struct hrtimer rd_timer;
	/*
	 * Set by destroy/reset under sq.lock, then resp_lock is taken once
	 * (mroce_qp_stop_timers()): timers and works must not be armed or
	 * queued once it is seen under either lock.
	 */
	bool stopping;
	/* Requester run deferred from interrupts-off posters. */
	struct work_struct req_work;
	/* READ responses beyond one softirq pass's budget (resp_rd.c). */
	struct work_struct resp_work;
	/* Random offset of this QP's MBH timestamps (MR-SEC-6). */
	u32 ts_offset;
	/* Last PROBE_REPLY sent (rate limit, MR-MP-10); receive path. */
	u64 probe_reply_ns;
	/* SQD with notification: raise SQ_DRAINED when drained (sq.lock). */
	bool sqd_notify;

	/*
	 * User QP: the SQ ring (WQEs pulled into sq.buf at the same index
	 * on a doorbell, sq.head published as its cons), the context that
	 * owns it (AH lookup) and the RQ ring (in rq.ur).
	 */
	struct mroce_uring usq;
	struct mroce_ucontext *uctx;
};

static inline struct mroce_qp *to_mqp(struct ib_qp *qp)
{
	return container_of(qp, struct mroce_qp, ibqp);
}

struct mroce_qp *mroce_qp_get(struct mroce_dev *dev, u32 qpn);
void mroce_qp_put(struct mroce_qp *qp);
void mroce_qp_error(struct mroce_qp *qp);
void mroce_qp_kick(struct mroce_qp *qp);
void mroce_qp_flush(struct mroce_qp *qp);
void mroce_qp_async_event(struct mroce_qp *qp, enum ib_event_type type);
void mroce_qp_fatal(struct mroce_qp *qp);

/* restrack.c: driver attributes of `rdma res show qp -dd` */
int mroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);

int mroce_usq_pull(struct mroce_qp *qp);
void mroce_srq_slots_release(struct mroce_qp *qp, bool err);

/* Protocol state set-up (req.c / resp.c) */
int mroce_proto_alloc(struct mroce_qp *qp);
void mroce_proto_free(struct mroce_qp *qp);
void mroce_req_start(struct mroce_qp *qp);
void mroce_resp_start(struct mroce_qp *qp);
void mroce_qp_stop_timers(struct mroce_qp *qp);

/*
 * Packet building (pkt.c): mroce_pkt_new*() return the skb, or
 * ERR_PTR(-ENOMEM), or ERR_PTR(-EINVAL) for a packet the core's encoder
 * refuses.
 */
struct sk_buff *mroce_pkt_new(struct mroce_qp *qp, struct mr_pkt *p,
			      u8 **payload);
struct sk_buff *mroce_pkt_new_av(struct mroce_dev *dev,
				 const struct mroce_av *av, struct mr_pkt *p,
				 u8 **payload);
void mroce_pkt_finish(struct sk_buff *skb, u16 entropy, bool ect);
void mroce_pkt_send(struct mroce_qp *qp, struct sk_buff *skb, u8 path,
		    bool ect);
void mroce_pkt_queue(struct sk_buff_head *q, struct sk_buff *skb,
		     u16 entropy, bool ect);
void mroce_pkt_flush(struct mroce_qp *qp, struct sk_buff_head *q);
u64 mroce_now(void);

/* MBH.ts of a packet this QP sends at @now_ns: its own clock (MR-SEC-6). */
static inline u32 mroce_qp_ts(const struct mroce_qp *qp, u64 now_ns)
{
	return mr_txsb_ts(now_ns) + qp->ts_offset;
}

/* Receive dispatch (recv.c -> resp.c / comp.c) */
void mroce_resp_rcv(struct mroce_qp *qp, struct mr_pkt *p, bool ce);
void mroce_comp_rcv(struct mroce_qp *qp, struct mr_pkt *p, bool ce);
/* UD and GSI datapath (ud.c) */
u8 mroce_ud_send(struct mroce_qp *qp, struct mroce_send_wqe *wqe);
void mroce_ud_rcv(struct mroce_qp *qp, struct mr_pkt *p, struct sk_buff *skb);
/* The responder's delayed-ACK timer (resp.c). */
enum hrtimer_restart mroce_ack_timer_fn(struct hrtimer *t);
int mroce_sge_copy(struct mroce_qp *qp, const struct ib_sge *sge,
		   u32 num_sge, u32 offset, void *buf, u32 len, bool to_sge);

/* Requester (req.c) */
void mroce_req_run(struct mroce_qp *qp);
struct mroce_send_wqe *mroce_req_find_msn(struct mroce_qp *qp, u32 msn);
u8 mroce_wire_opcode(enum ib_wr_opcode op);
u8 mroce_req_validate(const struct mroce_send_wqe *wqe);
int mroce_req_payload(struct mroce_qp *qp, struct mroce_send_wqe *wqe,
		      u32 off, u8 *dst, u32 len);
void mroce_send_complete(struct mroce_qp *qp,
			 const struct mroce_send_wqe *wqe,
			 enum ib_wc_status status);

/* ------------------------------------------------------------------ */
/* Device, link and namespaces                                          */

extern unsigned short mroce_udp_port;

int mroce_dev_add(const char *ibdev_name, struct net_device *ndev);
int mroce_devs_add(struct mroce_dev *dev);
int mroce_global_init(void);
void mroce_devs_del(struct mroce_dev *dev);
void mroce_dev_init_unreg_work(struct mroce_dev *dev);
void mroce_dev_queue_unregister(struct mroce_dev *dev);
void mroce_flush_unregister(void);
struct mroce_dev *mroce_dev_find_ndev(struct net_device *ndev);
void mroce_dev_port_event(struct mroce_dev *dev, unsigned long event);
enum ib_mtu mroce_mtu_from_netdev(unsigned int netdev_mtu);

int mroce_net_init(void);
void mroce_net_exit(void);
int mroce_net_attach(struct mroce_dev *dev);
void mroce_net_detach(struct mroce_dev *dev);
struct sk_buff *mroce_skb_alloc(struct mroce_dev *dev,
				const struct mroce_av *av, unsigned int len,
				gfp_t gfp);
int mroce_xmit(struct mroce_dev *dev, const struct mroce_av *av,
	       struct dst_cache *dc, struct sk_buff *skb, u16 entropy,
	       bool ect);

/* Receive path entry (recv.c); consumes @skb, data at the base header. */
void mroce_rcv(struct mroce_dev *dev, struct sk_buff *skb);

/* Hardware counters (stats.c) */
struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

/* Verbs entry points, one file per object. */
int mroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int mroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

int mroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata);
int mroce_destroy_ah(struct ib_ah *ibah, u32 flags);

int mroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int mroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int mroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *mroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int mroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
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

#endif /* MROCE_METAROCE_H */
