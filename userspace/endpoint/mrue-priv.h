/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mrue internals shared by mrue.c (endpoint, socket, receive shim,
 * dispatch, progress, memory regions, CQ), mrue-req.c (requester side:
 * the requester engine's callbacks, send queue, send completions) and
 * mrue-resp.c (responder side: the receiver engine's callbacks, receive
 * queue, READ responses, ATOMIC execution, PROBE replies).
 */
#ifndef MRUE_PRIV_H
#define MRUE_PRIV_H

#include <netinet/in.h>

#include "compat.h"
#include "wire.h"
#include "hello.h"
#include "receiver.h"
#include "requester.h"

#include "mrue.h"

/* A datagram larger than this is no MetaRoCE packet of ours. */
#define MRUE_DGRAM_MAX		(MR_MAX_HDR_LEN + MRUE_MTU_MAX + MR_ICRC_LEN)
/* Request packets built per mr_requester_run() call (kernel: 16). */
#define MRUE_TX_BATCH		16
/* Datagrams taken from the socket per progress pass. */
#define MRUE_RX_BATCH		256
/* Datagrams the receive shim may hold back at once. */
#define MRUE_SHIM_SLOTS		16
/* PROBE_REPLY rate limit per QP (MR-MP-10). */
/* NACK SEQ_ERR / duplicate answer interval: the kernel's default. */
#define MRUE_SEQ_ERR_NS		(100ULL * 1000)
/* READ response bytes requested and not received (kernel/req.c). */
#define MRUE_RD_QP_BUDGET	(2 * MR_RDASM_WINDOW)

/* One send WQE: the engine's part and the WR it came from. */
struct mrue_swqe {
	struct mr_swqe tx;	/* requester engine (requester.h) */
	u64 wr_id;
	u8 wr_op;		/* enum mrue_wr_opcode */
	bool solicited;
	u8 *local;
	u32 lkey;
	u64 remote_addr;
	u32 rkey;
	u64 compare_add;
	u64 swap;
	u32 imm;
};

struct mrue_rwqe {
	u64 wr_id;
	u8 *buf;
	u32 len;
	u32 lkey;
};

struct mrue_mr {
	u8 *addr;
	u64 len;
	u32 key;
	u32 access;
	bool valid;
};

/* A datagram the receive shim holds back. */
struct mrue_held {
	u64 due;
	u32 len;
	u8 tos;			/* IP TOS byte: DSCP and ECN */
	bool used;
	struct sockaddr_in src;
	u8 buf[MRUE_DGRAM_MAX];
};

struct mrue {
	struct mrue_cfg cfg;
	int fd;
	enum mrue_qp_state state;
	struct sockaddr_in local;
	struct sockaddr_in peer;
	u32 qpn;
	u32 peer_qpn;
	u32 init_psn;		/* our requests' first PSN */
	u32 mtu;		/* path MTU: the smaller of both ends */
	u32 ts_offset;		/* the QP's own clock (MR-SEC-6) */
	u64 now;		/* clock of the call in progress */
	u64 rng;		/* PSN, QPN, keys, entropy, probe ids */
	u64 shim_rng;		/* receive shim, its own stream */

	/* requester */
	struct mr_requester req;
	struct mrue_swqe *sq;
	u32 *msn_idx;
	u32 sq_size, sq_head, sq_tail;
	u64 req_armed;		/* when mr_requester_run() is due */
	u64 req_emitted;	/* packets the engine had sent */

	/* responder */
	struct mr_receiver rcv;
	struct mrue_rwqe *rq;
	u32 rq_size, rq_head, rq_tail;
	u8 rx_path;		/* path of the request being handled */
	bool rwqe_err;		/* a receive WQE fails (MR-VERBS-21) */
	u8 rwqe_err_status;
	u32 rwqe_err_ssn;
	u32 flush_ssn;		/* SSN of the next receive WQE flushed */
	u64 probe_reply_next;	/* MR-MP-10 rate */
	/* connection setup, revision 1.1 (MR-VER-12) */
	struct mr_hello hello;
	u64 rd_due_ns;		/* READ responses: next pass (pacing, socket) */

	/* completion queue: sq_size + rq_size entries, never overflows */
	struct mrue_wc *cq;
	u32 cq_size, cq_head, cq_tail;

	struct mrue_mr mr[MRUE_MAX_MR];

	struct mrue_held held[MRUE_SHIM_SLOTS];
	u32 n_held;

	struct mrue_stats st;
	u8 txbuf[MRUE_DGRAM_MAX];
	u8 rxbuf[MRUE_DGRAM_MAX + 1];
};

/* mrue.c */
u64 mrue_clock(void);
u32 mrue_rand32(struct mrue *ue);
int mrue_xmit(struct mrue *ue, u32 len, bool ect);
int mrue_send_pkt(struct mrue *ue, struct mr_pkt *p, const void *payload,
		  bool ect);
u8 *mrue_local(struct mrue *ue, u32 lkey, const u8 *addr, u64 len);
const struct mrue_mr *mrue_mr_find(const struct mrue *ue, u32 key);
void mrue_cq_add(struct mrue *ue, const struct mrue_wc *wc);
u32 mrue_cq_room(const struct mrue *ue);
void mrue_enter_error(struct mrue *ue);

/* mrue-req.c */
void mrue_req_start(struct mrue *ue);
void mrue_req_run(struct mrue *ue);
void mrue_req_rcv(struct mrue *ue, const struct mr_pkt *p, bool ce);

/* mrue-resp.c */
void mrue_resp_start(struct mrue *ue, u32 peer_psn, u8 peer_rd_atomic);
void mrue_resp_rcv(struct mrue *ue, const struct mr_pkt *p, bool ce);
void mrue_resp_timer(struct mrue *ue);
void mrue_resp_rd_pass(struct mrue *ue);
void mrue_resp_probe(struct mrue *ue, const struct mr_pkt *p);
void mrue_resp_flush(struct mrue *ue);
u64 mrue_resp_deadline(const struct mrue *ue);

#endif /* MRUE_PRIV_H */
