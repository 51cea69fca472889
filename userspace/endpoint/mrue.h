/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mrue: MetaRoCE user endpoint. One RC QP that speaks MetaRoCE over a
 * UDP socket in user space, on the same protocol engines the kernel runs
 * (kernel/proto: the requester engine, requester.h, and the receiver
 * engine, receiver.h). The engines decide everything the protocol
 * decides; this library does the I/O they ask for: the socket, the
 * clock, the memory checks and copies, the queues and completions.
 *
 * Wire: every datagram is one MetaRoCE packet, MBH to ICRC, encoded by
 * mr_pkt_encode_hdr() + mr_icrc_put() and checked by mr_pkt_decode() +
 * mr_icrc_check(), no framing of its own (MR-ENC-1). Received datagrams
 * are checked in MR-MAL-2 order and every drop is counted (struct
 * mrue_stats); the peer is untrusted and nothing is allocated after
 * mrue_create().
 *
 * Usage:
 *
 *	struct mrue_cfg cfg;
 *	mrue_cfg_default(&cfg);		then adjust: port, seed, loss ...
 *	mrue_create(&cfg, &ue);
 *	mrue_reg_mr(ue, buf, len, MRUE_ACCESS_REMOTE_WRITE | ..., &key);
 *	exchange mrue_local_info() and the MR (va = buf, key, len) with the
 *	peer out of band (mr-ue.c: a line over TCP), then
 *	mrue_connect(ue, &peer_info);
 *	mrue_post_recv() / mrue_post_send(); loop { mrue_progress();
 *	mrue_poll_cq(); }
 *	mrue_destroy(ue);
 *
 * Security (MR-SEC-2): MetaRoCE has no confidentiality or cryptographic
 * integrity; use it on trusted fabrics, or ones protected by MACsec or
 * IPsec.
 *
 * Threading: none. Every call on one endpoint must be serialised by the
 * caller; different endpoints are independent. Nothing blocks except
 * mrue_progress() / mrue_progress_many() (up to their timeout).
 *
 * Limits (by design, for a small portable endpoint):
 *  - One RC QP per endpoint and socket; IPv4 only.
 *  - One socket: its bound port is the UDP source port of every packet
 *    and so the path is single (one entropy); the engine runs with
 *    pp.single. MR-ENC-2 asks for a source port 0xC000 | entropy: bind
 *    such a port (or add a transmit socket) where that matters. To talk
 *    to the kernel device, bind its udp_port (MR_UDP_PORT, wire.h, 4794
 *    by default: MR-ENC-11) and connect to the peer's same port.
 *  - MR-SEC-4: the source address of every packet must be the peer's and
 *    its MBH source QPN the peer's QPN; the destination address is the
 *    socket's bound address (bind a specific address to enforce it).
 *  - Memory regions: at most MRUE_MAX_MR, va = the buffer's own address,
 *    key = L_Key = R_Key. Local buffers of WRs must lie in a registered
 *    region (checked when posted and at every copy, LOC_PROT otherwise).
 *    No memory windows, no fast registration, no remote invalidation
 *    (SEND_INV arriving: NACK INVALID_REQ, MR-VERBS-16); no SEND_INV or
 *    local operations are posted.
 *  - One SGE per WR; every WR is signaled; one CQ for send and receive
 *    completions, as deep as both queues, so it cannot overflow.
 *  - READ responses are built at most MRUE_RD_BUDGET per progress pass,
 *    paced as the kernel paces them (MR-CC-19); no SRQ; no UD; no path health (probes are answered,
 *    MR-MP-10, never sent).
 *  - Atomics are atomic with respect to this endpoint only (its own
 *    progress executes them); the 64-bit word is in host byte order.
 *  - Error (MR-VERBS-25): a failed WR or a fatal NACK moves the QP to
 *    MRUE_QPS_ERR for good; WRs complete flushed after the failed one;
 *    a new endpoint is needed (no modify/reset).
 *  - The receive shim (cfg loss_ppm, dup_ppm, reorder_ppm, hold_us)
 *    acts on received datagrams before decoding, from its own seeded
 *    random stream; it holds at most 16 datagrams at once.
 */
#ifndef MRUE_H
#define MRUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MRUE_MAX_MR		16
#define MRUE_RD_BUDGET		64	/* READ_RESPs per progress pass */
#define MRUE_MTU_MIN		256
#define MRUE_MTU_MAX		4096
#define MRUE_QUEUE_MAX		256	/* SQ and RQ entries, at most */

/* Memory region access (MR-VERBS-21: a missing right is REMOTE_ACCESS). */
enum mrue_access {
	MRUE_ACCESS_REMOTE_WRITE	= 1 << 0,
	MRUE_ACCESS_REMOTE_READ		= 1 << 1,
	MRUE_ACCESS_REMOTE_ATOMIC	= 1 << 2,
};

enum mrue_wr_opcode {
	MRUE_WR_SEND,
	MRUE_WR_SEND_IMM,
	MRUE_WR_WRITE,
	MRUE_WR_WRITE_IMM,
	MRUE_WR_READ,
	MRUE_WR_FETCH_ADD,
	MRUE_WR_CMP_SWAP,
	MRUE_WR_N,
};

/* Completion status; 0 is success, the rest map ibv_wc_status names. */
enum mrue_wc_status {
	MRUE_WC_SUCCESS = 0,
	MRUE_WC_RETRY_EXC_ERR,		/* retry budget spent (MR-RETRY-1) */
	MRUE_WC_RNR_RETRY_EXC_ERR,	/* RNR budget spent (MR-RETRY-5) */
	MRUE_WC_REM_ACCESS_ERR,		/* NACK REMOTE_ACCESS */
	MRUE_WC_REM_INV_REQ_ERR,	/* NACK INVALID_REQ */
	MRUE_WC_REM_OP_ERR,		/* NACK REMOTE_OP */
	MRUE_WC_LOC_LEN_ERR,		/* too long for the local buffer */
	MRUE_WC_LOC_PROT_ERR,		/* local buffer not in its region */
	MRUE_WC_LOC_QP_OP_ERR,		/* the encoder refused a packet */
	MRUE_WC_WR_FLUSH_ERR,		/* flushed: the QP is in Error */
	MRUE_WC_N,
};

enum mrue_wc_opcode {
	MRUE_WC_SEND,
	MRUE_WC_RDMA_WRITE,
	MRUE_WC_RDMA_READ,
	MRUE_WC_FETCH_ADD,
	MRUE_WC_CMP_SWAP,
	MRUE_WC_RECV,
	MRUE_WC_RECV_RDMA_WITH_IMM,
};

enum mrue_qp_state {
	MRUE_QPS_INIT,		/* created, not connected */
	MRUE_QPS_RTS,		/* connected: sends and receives */
	MRUE_QPS_ERR,		/* Error (MR-VERBS-25): everything flushes */
};

struct mrue_cfg {
	const char *bind_addr;	/* IPv4 dotted quad; NULL: any */
	uint16_t port;		/* UDP port; 0: ephemeral */
	uint32_t qpn;		/* 24 bits; 0: random (MR-SEC-3) */
	uint32_t mtu;		/* payload bytes per packet, 256..4096 */
	uint32_t sq_size;	/* power of two, 2..MRUE_QUEUE_MAX */
	uint32_t rq_size;	/* power of two, 2..MRUE_QUEUE_MAX */
	uint8_t max_rd_atomic;	/* READ/ATOMIC outstanding, 1..16 */
	uint8_t timeout;	/* verbs local ACK timeout code (0: none) */
	uint8_t retry_cnt;	/* 0..7 */
	uint8_t rnr_retry;	/* 0..7, 7: forever */
	uint8_t min_rnr_timer;	/* RNR NACK timer code, 0..31 */
	uint32_t qp_access;	/* enum mrue_access the QP enables */
	uint64_t seed;		/* randomness (PSN, QPN, keys, shim); 0: OS */
	/* Receive shim, parts per million of received datagrams. */
	uint32_t loss_ppm;	/* dropped before decoding */
	uint32_t dup_ppm;	/* handled now and again later */
	uint32_t reorder_ppm;	/* held back, handled later */
	uint32_t hold_us;	/* how long the shim holds a datagram */
};

/* What the peer needs to know to connect to this endpoint. */
struct mrue_info {
	uint32_t addr;		/* IPv4, network order (0: unknown) */
	uint16_t port;		/* UDP port, host order */
	uint32_t qpn;
	uint32_t psn;		/* initial PSN of this side's requests */
	uint32_t mtu;
	uint8_t max_rd_atomic;
};

struct mrue_send_wr {
	uint64_t wr_id;
	enum mrue_wr_opcode opcode;
	/*
	 * One local buffer in region @lkey: SEND/WRITE source, READ
	 * destination, atomics: 8 bytes receiving the original value.
	 */
	void *local;
	uint32_t length;	/* atomics: 8 */
	uint32_t lkey;
	uint64_t remote_addr;	/* WRITE, READ, atomics */
	uint32_t rkey;
	uint64_t compare_add;	/* FETCH_ADD: add; CMP_SWAP: compare */
	uint64_t swap;		/* CMP_SWAP */
	uint32_t imm;		/* SEND_IMM, WRITE_IMM */
	bool solicited;
	bool fence;		/* wait for earlier READ/ATOMIC results */
};

struct mrue_wc {
	uint64_t wr_id;
	uint8_t status;		/* enum mrue_wc_status */
	uint8_t opcode;		/* enum mrue_wc_opcode */
	bool with_imm;
	uint32_t byte_len;
	uint32_t imm;
};

/* Counters, all monotonic. */
struct mrue_stats {
	/* socket */
	uint64_t rx_dgrams, tx_pkts, tx_again, tx_errors;
	uint64_t sock_drops;	/* the socket's receive queue overflowed */
	/* shim */
	uint64_t shim_drops, shim_dups, shim_held;
	/* drops in MR-MAL-2 order, each counted once */
	uint64_t drop_oversize;	/* datagram larger than any packet */
	uint64_t drop_decode;	/* mr_pkt_decode() refused it */
	uint64_t drop_version;	/* ... of which a wrong version */
	uint64_t drop_icrc;
	uint64_t drop_trimmed;	/* trimmed, no payload to lose (MR-TRIM-3) */
	uint64_t rx_trimmed;	/* taken as trimmed (MR-TRIM-2), not a drop */
	uint64_t drop_qpn;	/* not this QP, UD, or QP not connected */
	uint64_t drop_src;	/* not from the connected peer (MR-SEC-4) */
	uint64_t drop_payload;	/* payload beyond the PMTU (MR-MAL-4) */
	uint64_t drop_pmtu;	/* not cut at the PMTU (MR-PLACE-9) */
	uint64_t drop_state;	/* QP in Error (MR-MAL-5) */
	/* requester (enum mr_req_event) */
	uint64_t retx, rto, spurious_rto, lost_spurious, acks_rx, sacks_rx;
	uint64_t rnr_events;
	uint64_t nacks_rx[8];	/* by MR_NACK_* reason, 1..7 */
	uint64_t ack_aged, ack_bad, resp_dup, resp_trimmed, retry_exc;
	uint64_t rd_stalled, rerolls;
	/* path health (MR-MP-8..11); replies: those matching a PROBE */
	uint64_t path_deaths, path_revivals, path_probes, path_probe_replies;
	uint64_t path_explores;
	/* responder (enum mr_rcv_event) */
	uint64_t acks_tx;
	uint64_t nacks_tx[8];	/* by MR_NACK_* reason, 1..7 */
	uint64_t ce_seen, stale, future, beyond, rate_limited, trim_dup;
	uint64_t dup, old_dup, err_point, malformed, rkey_violations;
	uint64_t read_resps, atomic_resps, replays, replay_drops;
	uint64_t resp_drops;	/* READ ranges refused or abandoned */
	uint64_t probe_replies;	/* PROBE_REPLYs sent (MR-MP-10) */
	/* connection setup (MR-VER-12..14): HELLOs, state, common set */
	uint64_t hello_sent, hello_received, hello_unanswered;
	uint64_t hello_conflict, hello_late;
	uint32_t hello_state;	/* enum mr_hello_state */
	uint32_t hello_common;	/* MR_CAP_* both announced */
	/* completions */
	uint64_t send_cqes, recv_cqes;
};

struct mrue;

void mrue_cfg_default(struct mrue_cfg *cfg);
/* "off", "wait", "settled", "old_peer": mrue_stats.hello_state. */
const char *mrue_hello_state_str(uint32_t state);

/* Socket bound, QP in INIT. 0 or -errno. */
int mrue_create(const struct mrue_cfg *cfg, struct mrue **out);
void mrue_destroy(struct mrue *ue);

/* This endpoint's side of the connection (addr: the bound address). */
void mrue_local_info(const struct mrue *ue, struct mrue_info *info);

/*
 * Connect to @peer (its addr and port are where packets go and the only
 * source accepted): the QP enters RTS. 0 or -errno.
 */
int mrue_connect(struct mrue *ue, const struct mrue_info *peer);

/* Register [addr, addr + len) with @access; *key is its L_Key/R_Key. */
int mrue_reg_mr(struct mrue *ue, void *addr, size_t len, uint32_t access,
		uint32_t *key);
/* Deregister: later remote and local accesses through @key fail. */
int mrue_dereg_mr(struct mrue *ue, uint32_t key);

/*
 * Post a send WR; it runs at once. 0, -EAGAIN (the SQ or the CQ has no
 * room: poll), -EINVAL (malformed WR), -ENOTCONN (not connected). A
 * WR refused by its checks still posts and completes with its error.
 */
int mrue_post_send(struct mrue *ue, const struct mrue_send_wr *wr);
/*
 * Post a receive WR of @len bytes at @buf in region @lkey; also before
 * mrue_connect(), so that the peer's first SEND finds it. Receive WQEs
 * are consumed in SSN order; in Error they complete flushed.
 */
int mrue_post_recv(struct mrue *ue, uint64_t wr_id, void *buf, uint32_t len,
		   uint32_t lkey);

/* Take up to @n completions, oldest first. Returns how many. */
int mrue_poll_cq(struct mrue *ue, struct mrue_wc *wc, int n);

/*
 * Wait up to @timeout_ms (0: do not wait; < 0: until something happens)
 * for datagrams or a protocol deadline, then run the engines. Returns
 * 0 or -errno (poll failed).
 */
int mrue_progress(struct mrue *ue, int timeout_ms);
/* The same for @n endpoints at once (one wait on all their sockets). */
int mrue_progress_many(struct mrue **ues, int n, int timeout_ms);

enum mrue_qp_state mrue_state(const struct mrue *ue);
/* Nothing posted is still outstanding on the send queue. */
bool mrue_sq_empty(const struct mrue *ue);
void mrue_get_stats(const struct mrue *ue, struct mrue_stats *st);
int mrue_fd(const struct mrue *ue);
const char *mrue_wc_status_str(uint8_t status);

#endif /* MRUE_H */
