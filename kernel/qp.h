/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE queue pair and its datapath: send WQEs, the requester's and
 * responder's protocol state, the send queue, struct mroce_qp (qp.c),
 * packet building (pkt.c), requester (req.c: both directions),
 * responder (resp.c, resp_rd.c; internals in resp.h) and UD (ud.c).
 * The protocol decisions are the core's (proto/); this is the glue.
 */
#ifndef MROCE_QP_H
#define MROCE_QP_H

#include <linux/hrtimer.h>
#include <linux/interrupt.h>

#include "proto/wire.h"
#include "proto/txsb.h"
#include "proto/cc.h"
#include "proto/path.h"
#include "proto/sender.h"
#include "proto/receiver.h"
#include "proto/segment.h"
#include "proto/rdasm.h"
#include "proto/rdreq.h"
#include "proto/reqdone.h"
#include "proto/requester.h"
#include "proto/hello.h"
#include "proto/ucrecv.h"
#include "verbs.h"

struct mroce_send_wqe {
	u64 wr_id;
	enum ib_wr_opcode opcode;
	int send_flags;
	u32 num_sge;
	/*
	 * The requester engine's part (proto/requester.h), under sq.lock:
	 * wire opcode (0: local), state, status once done (enum
	 * ib_wc_status), payload length, msn/ssn/PSNs, READ/ATOMIC progress.
	 */
	struct mr_swqe tx;
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
			/* BIND_MW (user QPs only, mw.c) */
			u64 addr;
			u64 length;
			u32 mw_rkey;
			u32 new_rkey;
			u32 mr_lkey;
			int access;
		} bind;
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
 * Requester protocol state of an RC QP (sq.lock): the core's requester
 * engine (scoreboard, congestion control, path table, the send queue
 * walks) over this QP's send queue.
 */
struct mroce_req {
	struct mr_requester rq;	/* the core's requester engine */
	bool inited;		/* started at RTS: packets may be handled */
	/* Connection setup with the peer (MR-VER-12), from RTR. */
	struct mr_hello hello;
	/* What metaroce_cwnd and metaroce_path last reported (trace.h). */
	u32 trace_cwnd;
	u32 trace_path[MR_PATH_MAX];	/* state << 16 | entropy */
};

/*
 * Responder state of an RC QP (resp_lock): the core's responder engine
 * (receive window, message tracker, READ/ATOMIC records, error point,
 * rate limits: proto/receiver.h) and what binds it to this QP's receive
 * queue and READ response pacing.
 */
struct mroce_resp {
	struct mr_receiver rcv;
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
	bool last_wqe;		/* SRQ: LAST_WQE_REACHED raised */
	/* rd_timer armed: READ responses paced (MR-CC-19) or no memory. */
	bool rd_wait;
	/*
	 * Packets built under resp_lock, in build order, waiting to be sent;
	 * tx_busy: a context is sending them (mroce_resp_xmit()).
	 */
	struct sk_buff_head txq;
	bool tx_busy;
};

/*
 * UC protocol state (uc.c): the sender's next PSN, MSN and progress in
 * the SQ head WQE under sq.lock; the receiver under resp_lock.
 */
struct mroce_uc {
	u32 psn;
	u32 msn;
	u32 off;		/* payload bytes of the head WQE sent */
	struct mr_ucrecv rcv;
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

/*
 * Passes one requester run makes (each at most 16 packets, or one UD
 * datagram) before it leaves the rest to req_work, so that a post, a
 * timer or a received packet does bounded work.  Unbounded, a run looped
 * for as long as each pass found something to do: with a peer answering
 * every SEND with an RNR NACK of a 10 us timer, each flush received the
 * NACK inline (the softirq runs at bh enable), the pause was over before
 * the next pass, and ib_post_send() did not return for tens of seconds.
 * No window bounds a UC message either (MR-UC-4): without this a poster
 * would send a message of up to 2 GiB in one go.
 */
#define MROCE_REQ_RUN_PASSES	16

/*
 * The states in which a QP takes packets from its peer and answers them
 * (MR-MAL-5, MR-VERBS-25, MR-VERBS-26).
 */
static inline bool mroce_state_receives(enum ib_qp_state state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD;
}

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
	/* UC QPs only: sender under sq.lock, receiver under resp_lock. */
	struct mroce_uc *uc;

	/* Requester timers (RTO, RACK, RNR, pacing): softirq hrtimer. */
	struct hrtimer req_timer;
	/* Responder delayed-ACK timer: softirq hrtimer. */
	struct hrtimer ack_timer;
	/*
	 * An ACK due now (held for the receive batch, MR-REL-3): sent by
	 * this tasklet, which runs when the softirq pass in progress ends,
	 * without the timer interrupt an expired hrtimer would need.
	 */
	struct tasklet_struct ack_tasklet;
	/* READ responses: paced restart of resp_work (softirq hrtimer). */
	struct hrtimer rd_timer;
	/*
	 * Set by destroy/reset under sq.lock, then resp_lock is taken once
	 * (mroce_qp_stop_timers()): timers and works must not be armed or
	 * queued once it is seen under either lock.
	 */
	bool stopping;
	/*
	 * Requester run deferred from interrupts-off posters, and the rest
	 * of a run that made MROCE_REQ_RUN_PASSES passes or completed a
	 * queue's worth of WQEs.
	 */
	struct work_struct req_work;
	/* READ responses beyond one softirq pass's budget (resp_rd.c). */
	struct work_struct resp_work;
	/* Random offset of this QP's MBH timestamps (MR-SEC-6). */
	u32 ts_offset;
	/* When it may answer a PROBE (rate limit, MR-MP-10); receive path. */
	u64 probe_reply_next;
	/*
	 * Entropy of the latest request or PROBE per peer path index: the
	 * responder's packets on that path follow it (MR-MP-15).
	 */
	u16 rx_entropy[MR_PATH_MAX];
	/* SQD with notification: raise SQ_DRAINED when drained (sq.lock). */
	bool sqd_notify;

	/*
	 * User QP: the SQ ring (WQEs pulled into sq.buf at the same index
	 * on a doorbell, sq.head published as its cons), the context that
	 * owns it (AH lookup) and the RQ ring (in rq.ur).
	 */
	struct mroce_uring usq;
	struct mroce_ucontext *uctx;
	/* Unique for the device's lifetime: names it to type 2 windows. */
	u64 serial;
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

/* Memory windows through a QP (mw.c); keys in the MR key space. */
u8 mroce_mw_bind(struct mroce_qp *qp, const struct mroce_send_wqe *wqe);
int mroce_mw_invalidate(struct mroce_mr *win, struct mroce_qp *qp, u32 key,
			bool remote, bool doit);
struct mroce_mr *mroce_mw_resolve(struct mroce_mr *win, struct mroce_qp *qp,
				  u32 rkey, u64 va, u64 len, int access);
bool mroce_mr_remote_inv(struct mroce_mr *mr, struct mroce_qp *qp, u32 key,
			 bool doit);
void mroce_srq_slots_release(struct mroce_qp *qp, bool err);

/* Protocol state set-up (req.c / resp.c) */
int mroce_proto_alloc(struct mroce_qp *qp);
void mroce_proto_free(struct mroce_qp *qp);
void mroce_req_start(struct mroce_qp *qp);
void mroce_hello_start(struct mroce_qp *qp);
void mroce_hello_rcv(struct mroce_qp *qp, const struct mr_pkt *p);
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
void mroce_pkt_send(struct mroce_qp *qp, struct sk_buff *skb, u16 entropy,
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

/* Receive dispatch (recv.c -> resp.c / req.c) */
void mroce_resp_rcv(struct mroce_qp *qp, struct mr_pkt *p, bool ce);
void mroce_req_rcv(struct mroce_qp *qp, struct mr_pkt *p, bool ce);
/* UD and GSI datapath (ud.c) */
u8 mroce_ud_send(struct mroce_qp *qp, struct mroce_send_wqe *wqe);
void mroce_ud_rcv(struct mroce_qp *qp, struct mr_pkt *p, struct sk_buff *skb);
/* The responder's delayed-ACK timer and held-ACK tasklet (resp.c). */
enum hrtimer_restart mroce_ack_timer_fn(struct hrtimer *t);
void mroce_ack_tasklet_fn(struct tasklet_struct *t);
int mroce_sge_copy(struct mroce_qp *qp, const struct ib_sge *sge,
		   u32 num_sge, u32 offset, void *buf, u32 len, bool to_sge);

/* UC datapath (uc.c) */
int mroce_uc_alloc(struct mroce_qp *qp);
void mroce_uc_start_tx(struct mroce_qp *qp);
void mroce_uc_start_rx(struct mroce_qp *qp);
void mroce_uc_send(struct mroce_qp *qp, struct mroce_send_wqe *wqe,
		   struct sk_buff_head *q, unsigned int budget);
void mroce_uc_rcv(struct mroce_qp *qp, struct mr_pkt *p);

/* Requester (req.c) */
void mroce_req_run(struct mroce_qp *qp);
u8 mroce_wire_opcode(enum ib_wr_opcode op);
u8 mroce_req_validate(const struct mroce_send_wqe *wqe);
int mroce_req_payload(struct mroce_qp *qp, struct mroce_send_wqe *wqe,
		      u32 off, u8 *dst, u32 len);
void mroce_send_complete(struct mroce_qp *qp,
			 const struct mroce_send_wqe *wqe,
			 enum ib_wc_status status);

#endif /* MROCE_QP_H */
