/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE responder internals shared by resp.c (request packets:
 * checks, placement, in-order completion, ACK/NACK, the error point)
 * and resp_rd.c (READ and ATOMIC execution, their replays, and the READ
 * responses sent a bounded number at a time).
 */
#ifndef MROCE_RESP_H
#define MROCE_RESP_H

#include "metaroce.h"

/*
 * Per-packet (or per-pass) context of the responder, filled under
 * resp_lock and acted on after it is dropped (mroce_resp_unlock(), then
 * mroce_resp_finish()): packets to send,
 * completion notifications, state changes. The engine's ops get it as
 * their ctx.
 */
struct mroce_rx_ctx {
	struct mroce_qp *qp;
	struct sk_buff_head txq;
	unsigned int cq_note;	/* mroce_cq_add() results for qp->rcq */
	bool error;		/* move the QP to error after unlocking */
	bool srq_check;		/* SRQ WQEs were taken: check its limit */
	bool fatal;		/* a user RQ/SRQ ring is corrupt */
	bool rd_kick;		/* READ responses are queued */
};

static inline void mroce_rx_ctx_init(struct mroce_rx_ctx *c,
				     struct mroce_qp *qp)
{
	memset(c, 0, sizeof(*c));
	__skb_queue_head_init(&c->txq);
	c->qp = qp;
}

/* resp.c */
u16 mroce_resp_entropy(struct mroce_qp *qp, u8 path);
u8 mroce_resp_rkey(struct mroce_qp *qp, u32 rkey, u64 va, u64 len,
		   int access, struct mroce_mr **mrp);
void mroce_resp_unlock(struct mroce_qp *qp, struct mroce_rx_ctx *c)
	__releases(&qp->resp_lock);
void mroce_resp_finish(struct mroce_qp *qp, struct mroce_rx_ctx *c);

/* resp_rd.c */
void mroce_resp_rd_init(struct mroce_qp *qp);
u8 mroce_resp_rd_exec(struct mroce_qp *qp, struct mroce_rx_ctx *c,
		      const struct mr_rxmsg_info *m);
bool mroce_resp_rd_replay(struct mroce_qp *qp, struct mroce_rx_ctx *c,
			  const struct mr_pkt *p);
void mroce_resp_rd_run(struct mroce_qp *qp);

#endif /* MROCE_RESP_H */
