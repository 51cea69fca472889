// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mrue: the endpoint, its socket and its clock; the receive shim; the
 * receive dispatch in MR-MAL-2 order; progress; memory regions and the
 * completion queue. The requester and responder sides are mrue-req.c
 * and mrue-resp.c; every protocol decision is the engines' (kernel/proto).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mrue-priv.h"

/* ---- clock and randomness ----------------------------------------------- */

u64 mrue_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static u64 mrue_splitmix(u64 *s)
{
	u64 x = (*s += 0x9E3779B97F4A7C15ULL);

	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

u32 mrue_rand32(struct mrue *ue)
{
	return (u32)(mrue_splitmix(&ue->rng) >> 16);
}

/* true with probability @ppm / 10^6, from the shim's own stream */
static bool mrue_chance(struct mrue *ue, u32 ppm)
{
	return ppm && mrue_splitmix(&ue->shim_rng) % 1000000 < ppm;
}

/* ---- configuration and lifetime ----------------------------------------- */

void mrue_cfg_default(struct mrue_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mtu = 1024;
	cfg->sq_size = 64;
	cfg->rq_size = 64;
	cfg->max_rd_atomic = 16;
	/* 67 ms T_verbs, retry_cnt 7: what perftest and the kernel use. */
	cfg->timeout = 14;
	cfg->retry_cnt = 7;
	cfg->rnr_retry = 7;
	cfg->min_rnr_timer = 12;	/* 0.64 ms */
	cfg->qp_access = MRUE_ACCESS_REMOTE_WRITE | MRUE_ACCESS_REMOTE_READ |
			 MRUE_ACCESS_REMOTE_ATOMIC;
	cfg->hold_us = 500;
}

static bool mrue_pow2(u32 n)
{
	return n >= 2 && n <= MRUE_QUEUE_MAX && !(n & (n - 1));
}

static int mrue_cfg_check(const struct mrue_cfg *c)
{
	if (c->mtu < MRUE_MTU_MIN || c->mtu > MRUE_MTU_MAX ||
	    (c->mtu & (c->mtu - 1)) || !mrue_pow2(c->sq_size) ||
	    !mrue_pow2(c->rq_size) || !c->max_rd_atomic ||
	    c->max_rd_atomic > 16 || c->timeout > 31 || c->retry_cnt > 7 ||
	    c->rnr_retry > 7 || c->min_rnr_timer > MR_RNR_TIMER_MAX ||
	    c->qpn > MR_QPN_MASK || c->loss_ppm > 1000000 ||
	    c->dup_ppm > 1000000 || c->reorder_ppm > 1000000)
		return -EINVAL;
	return 0;
}

static int mrue_socket(struct mrue *ue)
{
	int one = 1, buf = 4 << 20;
	socklen_t sl = sizeof(ue->local);

	ue->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ue->fd < 0)
		return -errno;
	/* ECN: the CE mark of each datagram feeds the engines (MR-CC-*). */
	setsockopt(ue->fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	/* Datagrams the socket dropped: a loss the shim did not make. */
	setsockopt(ue->fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	setsockopt(ue->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(ue->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	ue->local.sin_family = AF_INET;
	ue->local.sin_port = htons(ue->cfg.port);
	if (ue->cfg.bind_addr &&
	    inet_pton(AF_INET, ue->cfg.bind_addr, &ue->local.sin_addr) != 1)
		return -EINVAL;
	if (bind(ue->fd, (struct sockaddr *)&ue->local, sizeof(ue->local)))
		return -errno;
	if (getsockname(ue->fd, (struct sockaddr *)&ue->local, &sl))
		return -errno;
	return 0;
}

int mrue_create(const struct mrue_cfg *cfg, struct mrue **out)
{
	struct mrue *ue;
	int err;

	*out = NULL;
	err = mrue_cfg_check(cfg);
	if (err)
		return err;
	ue = calloc(1, sizeof(*ue));
	if (!ue)
		return -ENOMEM;
	ue->fd = -1;
	ue->cfg = *cfg;
	ue->sq_size = cfg->sq_size;
	ue->rq_size = cfg->rq_size;
	/* Each WQE makes at most one CQE: the CQ holds them all. */
	ue->cq_size = cfg->sq_size + cfg->rq_size;
	ue->sq = calloc(ue->sq_size, sizeof(*ue->sq));
	ue->msn_idx = calloc(ue->sq_size, sizeof(*ue->msn_idx));
	ue->rq = calloc(ue->rq_size, sizeof(*ue->rq));
	ue->cq = calloc(ue->cq_size, sizeof(*ue->cq));
	if (!ue->sq || !ue->msn_idx || !ue->rq || !ue->cq) {
		mrue_destroy(ue);
		return -ENOMEM;
	}
	if (cfg->seed)
		ue->rng = cfg->seed;
	else if (getrandom(&ue->rng, sizeof(ue->rng), 0) != sizeof(ue->rng))
		ue->rng = mrue_clock() ^ ((u64)getpid() << 32);
	ue->shim_rng = mrue_splitmix(&ue->rng) ^ 0x5348494dULL;
	/* Unpredictable QPN, PSN and clock offset (MR-SEC-3, MR-SEC-6). */
	ue->qpn = cfg->qpn;
	while (ue->qpn < 2)
		ue->qpn = mrue_rand32(ue) & MR_QPN_MASK;
	ue->init_psn = mrue_rand32(ue) & MR_PSN_MASK;
	ue->ts_offset = mrue_rand32(ue);
	ue->mtu = cfg->mtu;
	ue->state = MRUE_QPS_INIT;
	ue->req_armed = MR_TIME_NEVER;
	err = mrue_socket(ue);
	if (err) {
		mrue_destroy(ue);
		return err;
	}
	*out = ue;
	return 0;
}

void mrue_destroy(struct mrue *ue)
{
	if (!ue)
		return;
	if (ue->fd >= 0)
		close(ue->fd);
	free(ue->sq);
	free(ue->msn_idx);
	free(ue->rq);
	free(ue->cq);
	free(ue);
}

void mrue_local_info(const struct mrue *ue, struct mrue_info *info)
{
	memset(info, 0, sizeof(*info));
	info->addr = ue->local.sin_addr.s_addr;
	info->port = ntohs(ue->local.sin_port);
	info->qpn = ue->qpn;
	info->psn = ue->init_psn;
	info->mtu = ue->cfg.mtu;
	info->max_rd_atomic = ue->cfg.max_rd_atomic;
}

static void mrue_hello_start(struct mrue *ue);

int mrue_connect(struct mrue *ue, const struct mrue_info *peer)
{
	if (ue->state != MRUE_QPS_INIT)
		return -EISCONN;
	if (!peer->addr || !peer->port || !peer->qpn ||
	    peer->qpn > MR_QPN_MASK || peer->psn > MR_PSN_MASK ||
	    peer->mtu < MRUE_MTU_MIN || (peer->mtu & (peer->mtu - 1)) ||
	    !peer->max_rd_atomic ||
	    peer->max_rd_atomic > MR_RDRESP_RECS)
		return -EINVAL;
	ue->peer.sin_family = AF_INET;
	ue->peer.sin_addr.s_addr = peer->addr;
	ue->peer.sin_port = htons(peer->port);
	ue->peer_qpn = peer->qpn;
	ue->mtu = MR_MIN(ue->cfg.mtu, peer->mtu);
	ue->now = mrue_clock();
	mrue_req_start(ue);
	/* max_dest_rd_atomic matched to the peer's max_rd_atomic. */
	mrue_resp_start(ue, peer->psn, peer->max_rd_atomic);
	mrue_hello_start(ue);
	ue->state = MRUE_QPS_RTS;
	return 0;
}

enum mrue_qp_state mrue_state(const struct mrue *ue)
{
	return ue->state;
}

int mrue_fd(const struct mrue *ue)
{
	return ue->fd;
}

void mrue_get_stats(const struct mrue *ue, struct mrue_stats *st)
{
	*st = ue->st;
	st->hello_state = ue->hello.state;
	st->hello_common = ue->hello.common;
}

const char *mrue_wc_status_str(uint8_t status)
{
	static const char *const names[MRUE_WC_N] = {
		[MRUE_WC_SUCCESS] = "success",
		[MRUE_WC_RETRY_EXC_ERR] = "retry exceeded",
		[MRUE_WC_RNR_RETRY_EXC_ERR] = "RNR retry exceeded",
		[MRUE_WC_REM_ACCESS_ERR] = "remote access error",
		[MRUE_WC_REM_INV_REQ_ERR] = "remote invalid request",
		[MRUE_WC_REM_OP_ERR] = "remote operation error",
		[MRUE_WC_LOC_LEN_ERR] = "local length error",
		[MRUE_WC_LOC_PROT_ERR] = "local protection error",
		[MRUE_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[MRUE_WC_WR_FLUSH_ERR] = "flushed",
	};

	return status < MRUE_WC_N ? names[status] : "?";
}

/*
 * The QP enters Error (MR-VERBS-25): no more requests or responses go
 * out (except MR-REL-28's repeated NACK), queued READ responses are
 * dropped, receive WQEs are flushed; the send queue flushes at the next
 * requester run.
 */
void mrue_enter_error(struct mrue *ue)
{
	if (ue->state == MRUE_QPS_ERR)
		return;
	ue->state = MRUE_QPS_ERR;
	ue->req_armed = MR_TIME_NEVER;
	mr_rdresp_clear_jobs(&ue->rcv.rd);
	/* The receive WQE at rq_head is the one SSN ssn_base binds. */
	ue->flush_ssn = ue->rcv.ssn_base;
	mrue_resp_flush(ue);
}

/* ---- memory regions ----------------------------------------------------- */

int mrue_reg_mr(struct mrue *ue, void *addr, size_t len, uint32_t access,
		uint32_t *key)
{
	struct mrue_mr *mr;
	u32 i;

	if (!addr || !len || (uintptr_t)addr > UINTPTR_MAX - (len - 1) ||
	    access & ~(u32)(MRUE_ACCESS_REMOTE_WRITE | MRUE_ACCESS_REMOTE_READ |
			    MRUE_ACCESS_REMOTE_ATOMIC))
		return -EINVAL;
	for (i = 0; i < MRUE_MAX_MR && ue->mr[i].valid; i++)
		;
	if (i == MRUE_MAX_MR)
		return -ENOSPC;
	mr = &ue->mr[i];
	mr->addr = addr;
	mr->len = len;
	mr->access = access;
	/* Unpredictable key (MR-SEC-1); its low byte is the slot. */
	mr->key = (mrue_rand32(ue) & ~0xffU) | i;
	mr->valid = true;
	*key = mr->key;
	return 0;
}

int mrue_dereg_mr(struct mrue *ue, uint32_t key)
{
	struct mrue_mr *mr;

	if (!mrue_mr_find(ue, key))
		return -ENOENT;
	mr = &ue->mr[key & 0xff];
	memset(mr, 0, sizeof(*mr));
	return 0;
}

const struct mrue_mr *mrue_mr_find(const struct mrue *ue, u32 key)
{
	const struct mrue_mr *mr;

	if ((key & 0xff) >= MRUE_MAX_MR)
		return NULL;
	mr = &ue->mr[key & 0xff];
	return mr->valid && mr->key == key ? mr : NULL;
}

/*
 * [addr, addr + len) lies in local region @lkey: the address, or NULL
 * (a local protection error). A range of 0 bytes needs no region.
 */
u8 *mrue_local(struct mrue *ue, u32 lkey, const u8 *addr, u64 len)
{
	const struct mrue_mr *mr;
	uintptr_t a = (uintptr_t)addr, base;

	if (!len)
		return (u8 *)addr;
	mr = mrue_mr_find(ue, lkey);
	if (!mr)
		return NULL;
	base = (uintptr_t)mr->addr;
	if (a < base || len > mr->len || a - base > mr->len - len)
		return NULL;
	return (u8 *)addr;
}

/* ---- completion queue ---------------------------------------------------- */

void mrue_cq_add(struct mrue *ue, const struct mrue_wc *wc)
{
	/* Cannot overflow: posting reserves a CQE (mrue_cq_room()). */
	ue->cq[ue->cq_tail++ % ue->cq_size] = *wc;
	if (wc->opcode == MRUE_WC_RECV ||
	    wc->opcode == MRUE_WC_RECV_RDMA_WITH_IMM)
		ue->st.recv_cqes++;
	else
		ue->st.send_cqes++;
}

/* CQEs that may still be produced without overflowing the CQ. */
u32 mrue_cq_room(const struct mrue *ue)
{
	return ue->cq_size - (ue->cq_tail - ue->cq_head) -
	       (ue->sq_tail - ue->sq_head) - (ue->rq_tail - ue->rq_head);
}

int mrue_poll_cq(struct mrue *ue, struct mrue_wc *wc, int n)
{
	int i;

	for (i = 0; i < n && ue->cq_head != ue->cq_tail; i++)
		wc[i] = ue->cq[ue->cq_head++ % ue->cq_size];
	return i;
}

/* ---- transmit ------------------------------------------------------------ */

/*
 * Send ue->txbuf[0..len) to the peer with DSCP AF31 and ECT(0) on
 * requests and responses (MR-ENC-4; ACKs, NACKs and probes are not
 * ECN-capable, as in kernel/net.c). Returns 0, or -EAGAIN if the socket
 * has no room (nothing sent). Another error counts as a loss: the
 * engines' retransmissions cover it.
 */
int mrue_xmit(struct mrue *ue, u32 len, bool ect)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = ue->txbuf, .iov_len = len };
	struct msghdr msg = {
		.msg_name = &ue->peer, .msg_namelen = sizeof(ue->peer),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	int tos = (MR_DSCP_DEFAULT << 2) | (ect ? 0x2 : 0);

	memset(&ctl, 0, sizeof(ctl));
	cm->cmsg_level = IPPROTO_IP;
	cm->cmsg_type = IP_TOS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &tos, sizeof(tos));
	if (sendmsg(ue->fd, &msg, MSG_DONTWAIT) < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == ENOBUFS || errno == ENOMEM) {
			ue->st.tx_again++;
			return -EAGAIN;
		}
		ue->st.tx_errors++;
		return 0;
	}
	ue->st.tx_pkts++;
	return 0;
}

/* Encode @p with @payload (p->payload_len bytes) and send it. */
int mrue_send_pkt(struct mrue *ue, struct mr_pkt *p, const void *payload,
		  bool ect)
{
	int hlen;

	p->dqpn = ue->peer_qpn;
	p->sqpn = ue->qpn;
	hlen = mr_pkt_encode_hdr(p, ue->txbuf, sizeof(ue->txbuf));
	if (hlen < 0 ||
	    (u32)hlen + p->payload_len + MR_ICRC_LEN > sizeof(ue->txbuf))
		return -EINVAL;
	if (p->payload_len)
		memcpy(ue->txbuf + hlen, payload, p->payload_len);
	mr_icrc_put(ue->txbuf, (u32)hlen + p->payload_len);
	return mrue_xmit(ue, (u32)hlen + p->payload_len + MR_ICRC_LEN, ect);
}

/* ---- connection setup (revision 1.1) ------------------------------------ */

/*
 * The endpoint announces Core and CC (MR-VER-11): it answers PROBEs but
 * sends on one path (mrue.h), so it claims no Multipath level. Its
 * responder takes READ ranges up to the revision 1.0 limit (MR-VER-16).
 */
static void mrue_hello_start(struct mrue *ue)
{
	struct mr_hello_params hp;

	mr_hello_default_params(&hp);
	hp.caps = MR_CAP_CORE | MR_CAP_CC;
	mr_hello_init(&ue->hello, &hp);
	mr_hello_on_rts(&ue->hello, ue->now);
}

const char *mrue_hello_state_str(uint32_t state)
{
	return mr_hello_state_name((u8)state);
}

static void mrue_hello_send(struct mrue *ue)
{
	struct mr_pkt p;

	mr_hello_fill(&ue->hello, &p);
	p.ts = mr_txsb_ts(ue->now) + ue->ts_offset;
	if (!mrue_send_pkt(ue, &p, NULL, false))
		ue->st.hello_sent++;
}

/* MR-VER-14: the repeats, and giving up on a 1.0 peer. */
static void mrue_hello_timer(struct mrue *ue)
{
	switch (mr_hello_on_timer(&ue->hello, ue->now)) {
	case MR_HELLO_TX_SEND:
		mrue_hello_send(ue);
		break;
	case MR_HELLO_TX_GAVE_UP:
		ue->st.hello_unanswered++;
		break;
	default:
		break;
	}
}

/* MR-VER-12, MR-VER-13: a valid HELLO of the connected peer. */
static void mrue_hello_rx(struct mrue *ue, const struct mr_pkt *p)
{
	bool reply, limited;

	switch (mr_hello_on_rx(&ue->hello, p, ue->now, &reply, &limited)) {
	case MR_HELLO_RX_CONFLICT:
		ue->st.hello_conflict++;
		return;
	case MR_HELLO_RX_LATE:
		ue->st.hello_late++;
		break;
	default:
		break;
	}
	ue->st.hello_received++;
	if (limited)
		ue->st.rate_limited++;
	if (reply)
		mrue_hello_send(ue);
}

/* ---- receive ------------------------------------------------------------- */

/*
 * One datagram, checked in MR-MAL-2 order, each drop counted once: the
 * packet alone (steps 2..9, mr_pkt_receive), QP, peer (MR-SEC-4), PMTU
 * (MR-MAL-4); then the engine that takes it.
 */
static void mrue_rx(struct mrue *ue, const u8 *buf, u32 len, u8 tos,
		    const struct sockaddr_in *src)
{
	bool ce = (tos & 0x3) == 0x3;
	enum mr_rx_role role;
	struct mr_pkt p;
	int err;

	ue->now = mrue_clock();
	/* A switch's trimmed DSCP marks a cut packet (MR-TRIM-2). */
	err = mr_pkt_receive(buf, len, tos >> 2, MR_TRIM_DSCP_DEFAULT, &p);
	if (err) {
		if (err == MR_ERR_ICRC)
			ue->st.drop_icrc++;
		else if (err == MR_ERR_TRIMMED)
			ue->st.drop_trimmed++;
		else
			ue->st.drop_decode++;
		if (err == MR_ERR_VERSION)
			ue->st.drop_version++;
		return;
	}
	role = mr_pkt_role(&p);
	/* RC only; a QP not yet connected takes nothing (MR-MAL-5). */
	if (ue->state == MRUE_QPS_INIT || p.dqpn != ue->qpn ||
	    role == MR_RX_UD || role == MR_RX_UC) {
		ue->st.drop_qpn++;
		return;
	}
	if (p.sqpn != ue->peer_qpn ||
	    src->sin_addr.s_addr != ue->peer.sin_addr.s_addr) {
		ue->st.drop_src++;
		return;
	}
	if (p.payload_len > ue->mtu) {
		ue->st.drop_payload++;
		return;
	}
	if (p.flags & MR_F_TRIM)
		ue->st.rx_trimmed++;
	/* A READ_RESP not cut at the PMTU (MR-HDR-24, MR-PLACE-9). */
	if (p.opcode == MR_OP_READ_RESP && mr_pkt_pmtu_check(&p, ue->mtu)) {
		ue->st.drop_pmtu++;
		return;
	}
	if (role == MR_RX_REQUEST)
		mrue_resp_rcv(ue, &p, ce);
	else if (role == MR_RX_PROBE)
		mrue_resp_probe(ue, &p);
	else if (role == MR_RX_HELLO)
		mrue_hello_rx(ue, &p);
	else
		mrue_req_rcv(ue, &p, ce);
}

/* Hold a copy of a datagram in the shim; a full shim lets one go first. */
static void mrue_shim_hold(struct mrue *ue, const u8 *buf, u32 len, u8 tos,
			   const struct sockaddr_in *src)
{
	struct mrue_held *h = NULL, *old = NULL;
	u32 i;

	for (i = 0; i < MRUE_SHIM_SLOTS; i++) {
		if (!ue->held[i].used) {
			h = &ue->held[i];
			break;
		}
		if (!old || ue->held[i].due < old->due)
			old = &ue->held[i];
	}
	if (!h) {
		old->used = false;
		ue->n_held--;
		mrue_rx(ue, old->buf, old->len, old->tos, &old->src);
		h = old;
	}
	memcpy(h->buf, buf, len);
	h->len = len;
	h->tos = tos;
	h->src = *src;
	h->due = mrue_clock() + (u64)ue->cfg.hold_us * 1000 / 2 +
		 mrue_splitmix(&ue->shim_rng) %
		 ((u64)ue->cfg.hold_us * 1000 / 2 + 1);
	h->used = true;
	ue->n_held++;
	ue->st.shim_held++;
}

/* Datagrams the shim held whose time has come. */
static void mrue_shim_release(struct mrue *ue, u64 now)
{
	struct mrue_held *h;
	u32 i;

	for (i = 0; i < MRUE_SHIM_SLOTS && ue->n_held; i++) {
		h = &ue->held[i];
		if (!h->used || h->due > now)
			continue;
		h->used = false;
		ue->n_held--;
		mrue_rx(ue, h->buf, h->len, h->tos, &h->src);
	}
}

static u64 mrue_shim_deadline(const struct mrue *ue)
{
	u64 t = MR_TIME_NEVER;
	u32 i;

	for (i = 0; i < MRUE_SHIM_SLOTS && ue->n_held; i++)
		if (ue->held[i].used && ue->held[i].due < t)
			t = ue->held[i].due;
	return t;
}

/*
 * The receive shim, before decoding: loss, reordering (held back for
 * about hold_us) and duplication (handled now and a copy later).
 */
static void mrue_shim(struct mrue *ue, u32 len, u8 tos,
		      const struct sockaddr_in *src)
{
	if (mrue_chance(ue, ue->cfg.loss_ppm)) {
		ue->st.shim_drops++;
		return;
	}
	if (mrue_chance(ue, ue->cfg.reorder_ppm)) {
		mrue_shim_hold(ue, ue->rxbuf, len, tos, src);
		return;
	}
	if (mrue_chance(ue, ue->cfg.dup_ppm)) {
		ue->st.shim_dups++;
		mrue_shim_hold(ue, ue->rxbuf, len, tos, src);
	}
	mrue_rx(ue, ue->rxbuf, len, tos, src);
}

/*
 * The TOS byte (DSCP, ECN) of a received datagram (IP_RECVTOS), or
 * MR_DSCP_UNKNOWN << 2 (no CE, no DSCP) without one; the socket's drop
 * count (SO_RXQ_OVFL) on the way.
 */
static u8 mrue_msg_tos(struct mrue *ue, struct msghdr *msg)
{
	struct cmsghdr *cm;
	u8 tos = (u8)(MR_DSCP_UNKNOWN << 2);
	u32 drops;

	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TOS) {
			memcpy(&tos, CMSG_DATA(cm), 1);
		} else if (cm->cmsg_level == SOL_SOCKET &&
			   cm->cmsg_type == SO_RXQ_OVFL) {
			memcpy(&drops, CMSG_DATA(cm), sizeof(drops));
			ue->st.sock_drops = drops;
		}
	}
	return tos;
}

/* Take what the socket has, a batch at most. */
static void mrue_rx_batch(struct mrue *ue)
{
	union {
		char buf[CMSG_SPACE(sizeof(int)) * 4];
		struct cmsghdr align;
	} ctl;
	struct sockaddr_in src;
	struct iovec iov;
	struct msghdr msg;
	ssize_t n;
	int i;

	for (i = 0; i < MRUE_RX_BATCH; i++) {
		iov.iov_base = ue->rxbuf;
		iov.iov_len = sizeof(ue->rxbuf);
		memset(&msg, 0, sizeof(msg));
		msg.msg_name = &src;
		msg.msg_namelen = sizeof(src);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		n = recvmsg(ue->fd, &msg, MSG_DONTWAIT);
		if (n < 0)
			break;
		ue->st.rx_dgrams++;
		if ((msg.msg_flags & MSG_TRUNC) || n > MRUE_DGRAM_MAX ||
		    msg.msg_namelen != sizeof(src) ||
		    src.sin_family != AF_INET) {
			ue->st.drop_oversize++;
			continue;
		}
		mrue_shim(ue, (u32)n, mrue_msg_tos(ue, &msg), &src);
	}
}

/* ---- progress ------------------------------------------------------------ */

/* When this endpoint has work without a datagram arriving. */
static u64 mrue_next_event(const struct mrue *ue, u64 now)
{
	u64 t = mrue_shim_deadline(ue);

	if (ue->state != MRUE_QPS_RTS)
		return t;
	t = MR_MIN(t, ue->req_armed);
	t = MR_MIN(t, mrue_resp_deadline(ue));
	t = MR_MIN(t, mr_hello_deadline(&ue->hello));
	return t < now ? now : t;
}

/* Datagrams, then the timers that are due, then READ responses. */
static void mrue_service(struct mrue *ue)
{
	u64 now;

	mrue_rx_batch(ue);
	now = mrue_clock();
	mrue_shim_release(ue, now);
	ue->now = mrue_clock();
	if (ue->state == MRUE_QPS_RTS) {
		mrue_resp_timer(ue);
		mrue_hello_timer(ue);
	}
	if (ue->state == MRUE_QPS_RTS && ue->req_armed <= ue->now) {
		/* only the timer's run acts on an RTO (MR-LOSS-7) */
		mr_requester_on_timer(&ue->req);
		mrue_req_run(ue);
	}
	mrue_resp_rd_pass(ue);
}

#define MRUE_POLL_MAX	16

int mrue_progress_many(struct mrue **ues, int n, int timeout_ms)
{
	struct pollfd pfd[MRUE_POLL_MAX];
	struct timespec ts, *tsp = NULL;
	u64 now = mrue_clock(), wake = MR_TIME_NEVER;
	int i;

	if (n <= 0 || n > MRUE_POLL_MAX)
		return -EINVAL;
	if (timeout_ms >= 0)
		wake = now + (u64)timeout_ms * 1000000ULL;
	for (i = 0; i < n; i++) {
		pfd[i].fd = ues[i]->fd;
		pfd[i].events = POLLIN;
		pfd[i].revents = 0;
		wake = MR_MIN(wake, mrue_next_event(ues[i], now));
	}
	if (wake != MR_TIME_NEVER) {
		wake = wake > now ? wake - now : 0;
		ts.tv_sec = (time_t)(wake / 1000000000ULL);
		ts.tv_nsec = (long)(wake % 1000000000ULL);
		tsp = &ts;
	}
	if (ppoll(pfd, (nfds_t)n, tsp, NULL) < 0 && errno != EINTR)
		return -errno;
	for (i = 0; i < n; i++)
		mrue_service(ues[i]);
	return 0;
}

int mrue_progress(struct mrue *ue, int timeout_ms)
{
	return mrue_progress_many(&ue, 1, timeout_ms);
}
