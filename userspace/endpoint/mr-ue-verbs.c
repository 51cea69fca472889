// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-ue-verbs: mr-ue's peer on a verbs device. One RC QP through
 * libibverbs runs the verified workload (mr-ue-load.h) over the same
 * handshake (mr-ue-chan.h), so a kernel device (mr0, MetaRoCE) and the
 * user-space endpoint (mr-ue, libmrue) check each other byte by byte:
 * every RC opcode both ways, every atomic's original value.
 *
 *   mr-ue-verbs [-d DEV] [-g GID_INDEX] [--udp-port PORT]
 *               [--qp-timeout CODE] --listen PORT | --connect HOST:PORT
 *               [--seed N] [--count N] [--size BYTES] [--timeout SEC]
 *
 * DEV: the device (default mr0), port 1. GID_INDEX: the source GID
 * (default: the first RoCE v2 GID of an IPv4 address, ::ffff:a.b.c.d);
 * the peer's GID is its IPv4 address mapped the same way. --udp-port:
 * the UDP port the device receives on, told to the peer (MetaRoCE: the
 * module's udp_port, default MR_UDP_PORT, MR-ENC-11); the peer's must be
 * the same, since the kernel sends every packet to that port (from a
 * source port that carries the path's entropy, MR-ENC-2). --qp-timeout:
 * the local ACK timeout code (default 14, MR-RETRY-3); retry_cnt and
 * rnr_retry are 7.
 * --listen PORT: the TCP port of the handshake. The rest as mr-ue.
 * Exit status 0 only if everything completed successfully and verified
 * on this side, and the peer said so too.
 *
 * The workload's key of a region is its R_Key; local uses are posted
 * with the L_Key of the same region. MetaRoCE reports the message length
 * in send completions too (byte_len), which the workload checks.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "mr-ue-chan.h"
#include "wire.h"		/* MR_UDP_PORT */

#define VQ_PORT		1
#define VQ_MAX_MR	4
#define VQ_RD_ATOMIC	16	/* READ/ATOMIC outstanding, as libmrue */

struct opts {
	struct ue_opts c;
	const char *dev;
	int gid_index;		/* -1: find it */
};

/* The QP and what it needs. */
struct vq {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr[VQ_MAX_MR];
	int nmr;
	const struct opts *o;
	int gid_index;
	enum ibv_mtu active_mtu;
	uint32_t max_dest_rd_atomic;	/* the device's limit */
	uint32_t psn;
	uint32_t peer_qpn;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: mr-ue-verbs [-d DEV] [-g GID_INDEX] [--udp-port PORT] "
		"[--qp-timeout CODE]\n"
		"                   --listen PORT | --connect HOST:PORT "
		"[--seed N] [--count N]\n"
		"                   [--size BYTES] [--timeout SEC]\n");
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		UE_OPTS_LONG,
		{ "device", required_argument, NULL, 'd' },
		{ "gid-index", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	ue_opts_default(&o->c);
	o->dev = "mr0";
	o->gid_index = -1;
	o->c.udp_port = MR_UDP_PORT;
	while ((c = getopt_long(argc, argv, "d:g:", lo, NULL)) != -1) {
		if (ue_opts_take(&o->c, c, optarg, usage))
			continue;
		switch (c) {
		case 'd':
			o->dev = optarg;
			break;
		case 'g':
			o->gid_index = (int)ue_num(optarg, 255, usage);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !ue_opts_ok(&o->c) || !o->c.udp_port)
		usage();
}

/* ---- the workload's backend --------------------------------------------- */

static int vq_reg_mr(void *ctx, void *addr, size_t len, uint32_t access,
		     uint32_t *key)
{
	struct vq *v = ctx;
	int flags = IBV_ACCESS_LOCAL_WRITE;
	struct ibv_mr *mr;

	if (access & MRUE_ACCESS_REMOTE_WRITE)
		flags |= IBV_ACCESS_REMOTE_WRITE;
	if (access & MRUE_ACCESS_REMOTE_READ)
		flags |= IBV_ACCESS_REMOTE_READ;
	if (access & MRUE_ACCESS_REMOTE_ATOMIC)
		flags |= IBV_ACCESS_REMOTE_ATOMIC;
	if (v->nmr == VQ_MAX_MR)
		return -ENOSPC;
	mr = ibv_reg_mr(v->pd, addr, len, flags);
	if (!mr)
		return -errno;
	v->mr[v->nmr++] = mr;
	*key = mr->rkey;
	return 0;
}

/* The L_Key of the region whose R_Key the workload holds. */
static int vq_lkey(const struct vq *v, uint32_t key, uint32_t *lkey)
{
	int i;

	for (i = 0; i < v->nmr; i++) {
		if (v->mr[i]->rkey == key) {
			*lkey = v->mr[i]->lkey;
			return 0;
		}
	}
	return -EINVAL;
}

static const enum ibv_wr_opcode vq_wr_op[MRUE_WR_N] = {
	[MRUE_WR_SEND] = IBV_WR_SEND,
	[MRUE_WR_SEND_IMM] = IBV_WR_SEND_WITH_IMM,
	[MRUE_WR_WRITE] = IBV_WR_RDMA_WRITE,
	[MRUE_WR_WRITE_IMM] = IBV_WR_RDMA_WRITE_WITH_IMM,
	[MRUE_WR_READ] = IBV_WR_RDMA_READ,
	[MRUE_WR_FETCH_ADD] = IBV_WR_ATOMIC_FETCH_AND_ADD,
	[MRUE_WR_CMP_SWAP] = IBV_WR_ATOMIC_CMP_AND_SWP,
};

static int vq_post_send(void *ctx, const struct mrue_send_wr *w)
{
	struct vq *v = ctx;
	struct ibv_sge sge = { .addr = (uintptr_t)w->local,
			       .length = w->length };
	struct ibv_send_wr wr = { .wr_id = w->wr_id, .sg_list = &sge,
				  .num_sge = w->length ? 1 : 0,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	int rc;

	if ((unsigned int)w->opcode >= MRUE_WR_N ||
	    vq_lkey(v, w->lkey, &sge.lkey))
		return -EINVAL;
	wr.opcode = vq_wr_op[w->opcode];
	if (w->solicited)
		wr.send_flags |= IBV_SEND_SOLICITED;
	if (w->fence)
		wr.send_flags |= IBV_SEND_FENCE;
	if (w->opcode == MRUE_WR_SEND_IMM || w->opcode == MRUE_WR_WRITE_IMM)
		wr.imm_data = htobe32(w->imm);
	if (w->opcode == MRUE_WR_FETCH_ADD || w->opcode == MRUE_WR_CMP_SWAP) {
		wr.wr.atomic.remote_addr = w->remote_addr;
		wr.wr.atomic.rkey = w->rkey;
		wr.wr.atomic.compare_add = w->compare_add;
		wr.wr.atomic.swap = w->swap;
	} else {
		wr.wr.rdma.remote_addr = w->remote_addr;
		wr.wr.rdma.rkey = w->rkey;
	}
	rc = ibv_post_send(v->qp, &wr, &bad);
	return rc == ENOMEM ? -EAGAIN : -rc;
}

static int vq_post_recv(void *ctx, uint64_t wr_id, void *buf, uint32_t len,
			uint32_t lkey)
{
	struct vq *v = ctx;
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = len ? 1 : 0 };
	struct ibv_recv_wr *bad;
	int rc;

	if (vq_lkey(v, lkey, &sge.lkey))
		return -EINVAL;
	rc = ibv_post_recv(v->qp, &wr, &bad);
	return rc == ENOMEM ? -EAGAIN : -rc;
}

static const struct {
	enum ibv_wc_opcode ibv;
	uint8_t mrue;
} vq_wc_op[] = {
	{ IBV_WC_SEND, MRUE_WC_SEND },
	{ IBV_WC_RDMA_WRITE, MRUE_WC_RDMA_WRITE },
	{ IBV_WC_RDMA_READ, MRUE_WC_RDMA_READ },
	{ IBV_WC_FETCH_ADD, MRUE_WC_FETCH_ADD },
	{ IBV_WC_COMP_SWAP, MRUE_WC_CMP_SWAP },
	{ IBV_WC_RECV, MRUE_WC_RECV },
	{ IBV_WC_RECV_RDMA_WITH_IMM, MRUE_WC_RECV_RDMA_WITH_IMM },
};

/* One verbs completion as the workload reads it (mr-ue-load.h). */
static void vq_wc(const struct ibv_wc *e, bool recv, struct mrue_wc *wc)
{
	size_t i;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = e->wr_id;
	wc->status = (uint8_t)e->status;
	wc->byte_len = e->byte_len;
	wc->with_imm = e->wc_flags & IBV_WC_WITH_IMM;
	if (wc->with_imm)
		wc->imm = be32toh(e->imm_data);
	/* The opcode of a failed completion is undefined in verbs. */
	if (e->status != IBV_WC_SUCCESS) {
		wc->opcode = recv ? MRUE_WC_RECV : MRUE_WC_SEND;
		return;
	}
	wc->opcode = 0xff;	/* one the workload never posts: it says so */
	for (i = 0; i < sizeof(vq_wc_op) / sizeof(vq_wc_op[0]); i++)
		if (vq_wc_op[i].ibv == e->opcode)
			wc->opcode = vq_wc_op[i].mrue;
}

/* Receive completions first, then send completions, each oldest first. */
static int vq_poll_cq(void *ctx, struct mrue_wc *wc, int n)
{
	struct vq *v = ctx;
	struct ibv_wc e[32];
	int got = 0, k, i, q;

	for (q = 0; q < 2 && got < n; q++) {
		k = n - got < 32 ? n - got : 32;
		k = ibv_poll_cq(q ? v->scq : v->rcq, k, e);
		if (k < 0)
			return -EIO;
		for (i = 0; i < k; i++)
			vq_wc(&e[i], !q, &wc[got++]);
	}
	return got;
}

static const char *vq_status_str(uint8_t status)
{
	return ibv_wc_status_str((enum ibv_wc_status)status);
}

static const struct load_backend vq_backend = {
	.reg_mr = vq_reg_mr,
	.post_send = vq_post_send,
	.post_recv = vq_post_recv,
	.poll_cq = vq_poll_cq,
	.status_str = vq_status_str,
};

/* ---- the QP under the channel ------------------------------------------- */

static uint32_t mtu_bytes(enum ibv_mtu m)
{
	return 128u << m;	/* IBV_MTU_256 is 1 */
}

static void vq_local(void *ctx, struct hello *h)
{
	struct vq *v = ctx;

	h->qpn = v->qp->qp_num;
	h->psn = v->psn;
	h->port = v->o->c.udp_port;
	h->mtu = mtu_bytes(v->active_mtu);
	h->rd_atomic = VQ_RD_ATOMIC;
}

static int vq_modify(struct vq *v, struct ibv_qp_attr *a, int mask,
		     const char *to)
{
	int rc = ibv_modify_qp(v->qp, a, mask);

	if (rc)
		fprintf(stderr, "mr-ue-verbs: modify QP to %s: %s\n", to,
			strerror(rc));
	return -rc;
}

/* RTR and RTS towards the peer of @h at IPv4 @addr. */
static int vq_connect(void *ctx, const struct hello *h, uint32_t addr)
{
	struct vq *v = ctx;
	struct ibv_qp_attr a;
	enum ibv_mtu mtu = v->active_mtu;

	if (h->port != v->o->c.udp_port) {
		fprintf(stderr, "mr-ue-verbs: the peer receives on UDP port "
			"%u, the device sends to %u\n", h->port,
			v->o->c.udp_port);
		return -EINVAL;
	}
	if (!h->rd_atomic || h->rd_atomic > v->max_dest_rd_atomic) {
		fprintf(stderr, "mr-ue-verbs: the peer's rd_atomic %u is "
			"beyond the device's %u\n", h->rd_atomic,
			v->max_dest_rd_atomic);
		return -EINVAL;
	}
	while (mtu > IBV_MTU_256 && mtu_bytes(mtu) > h->mtu)
		mtu--;
	v->peer_qpn = h->qpn;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = h->qpn;
	a.rq_psn = h->psn;
	/* The peer may have this many READ/ATOMIC outstanding. */
	a.max_dest_rd_atomic = (uint8_t)h->rd_atomic;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = VQ_PORT;
	a.ah_attr.grh.sgid_index = (uint8_t)v->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	/* The peer's RoCE v2 GID: its IPv4 address, ::ffff:a.b.c.d. */
	a.ah_attr.grh.dgid.raw[10] = 0xff;
	a.ah_attr.grh.dgid.raw[11] = 0xff;
	memcpy(&a.ah_attr.grh.dgid.raw[12], &addr, 4);
	if (vq_modify(v, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR"))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = v->psn;
	a.timeout = v->o->c.qp_timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = VQ_RD_ATOMIC;
	return vq_modify(v, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			 IBV_QP_MAX_QP_RD_ATOMIC, "RTS");
}

/* Wait for a completion event up to @ms; take it and ask for the next. */
static void vq_progress(void *ctx, int ms)
{
	struct vq *v = ctx;
	struct pollfd p = { .fd = v->ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;

	if (poll(&p, 1, ms) <= 0)
		return;
	while (!ibv_get_cq_event(v->ch, &cq, &cq_ctx)) {
		ibv_ack_cq_events(cq, 1);
		ibv_req_notify_cq(cq, 0);
	}
}

/* The first RoCE v2 GID of an IPv4 address on the port, or -1. */
static int vq_find_gid(struct vq *v, int tbl_len)
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_gid_entry e;
	int i;

	for (i = 0; i < tbl_len; i++) {
		if (ibv_query_gid_ex(v->ctx, VQ_PORT, (uint32_t)i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e.gid.raw, v4, sizeof(v4)))
			return i;
	}
	return -1;
}

static struct ibv_context *vq_open_dev(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name))
			ctx = ibv_open_device(l[i]);
	if (l)
		ibv_free_device_list(l);
	return ctx;
}

/* Device, PD, completion channel, CQs, QP in INIT. 0 or -1 (said). */
static int vq_open(struct vq *v, const struct opts *o)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 2 * UE_DEPTH,
			 .max_recv_wr = 2 * UE_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
				 .port_num = VQ_PORT,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
						    IBV_ACCESS_REMOTE_READ |
						    IBV_ACCESS_REMOTE_ATOMIC };
	struct ibv_device_attr da;
	struct ibv_port_attr pa;

	memset(v, 0, sizeof(*v));
	v->o = o;
	v->ctx = vq_open_dev(o->dev);
	if (!v->ctx) {
		fprintf(stderr, "mr-ue-verbs: no device %s\n", o->dev);
		return -1;
	}
	if (ibv_query_device(v->ctx, &da) ||
	    ibv_query_port(v->ctx, VQ_PORT, &pa)) {
		fprintf(stderr, "mr-ue-verbs: cannot query %s\n", o->dev);
		return -1;
	}
	if (pa.state != IBV_PORT_ACTIVE ||
	    da.max_qp_init_rd_atom < VQ_RD_ATOMIC) {
		fprintf(stderr, "mr-ue-verbs: %s/%d: port state %d, "
			"max_qp_init_rd_atom %d\n", o->dev, VQ_PORT, pa.state,
			da.max_qp_init_rd_atom);
		return -1;
	}
	v->active_mtu = pa.active_mtu;
	v->max_dest_rd_atomic = (uint32_t)da.max_qp_rd_atom;
	v->gid_index = o->gid_index >= 0 ? o->gid_index :
		       vq_find_gid(v, pa.gid_tbl_len);
	if (v->gid_index < 0) {
		fprintf(stderr, "mr-ue-verbs: %s has no RoCE v2 GID of an "
			"IPv4 address\n", o->dev);
		return -1;
	}
	if (getrandom(&v->psn, sizeof(v->psn), 0) != sizeof(v->psn))
		return -1;
	v->psn &= 0xffffff;
	v->pd = ibv_alloc_pd(v->ctx);
	v->ch = v->pd ? ibv_create_comp_channel(v->ctx) : NULL;
	if (v->ch)
		v->scq = ibv_create_cq(v->ctx, 2 * UE_DEPTH, NULL, v->ch, 0);
	if (v->scq)
		v->rcq = ibv_create_cq(v->ctx, 2 * UE_DEPTH, NULL, v->ch, 0);
	if (!v->rcq || fcntl(v->ch->fd, F_SETFL, O_NONBLOCK) ||
	    ibv_req_notify_cq(v->scq, 0) || ibv_req_notify_cq(v->rcq, 0)) {
		fprintf(stderr, "mr-ue-verbs: PD, channel or CQ: %s\n",
			strerror(errno));
		return -1;
	}
	qa.send_cq = v->scq;
	qa.recv_cq = v->rcq;
	v->qp = ibv_create_qp(v->pd, &qa);
	if (!v->qp) {
		fprintf(stderr, "mr-ue-verbs: create QP: %s\n",
			strerror(errno));
		return -1;
	}
	return vq_modify(v, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			 IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, "INIT") ? -1 : 0;
}

static void vq_close(struct vq *v)
{
	int i;

	if (v->qp)
		ibv_destroy_qp(v->qp);
	if (v->rcq)
		ibv_destroy_cq(v->rcq);
	if (v->scq)
		ibv_destroy_cq(v->scq);
	if (v->ch)
		ibv_destroy_comp_channel(v->ch);
	for (i = 0; i < v->nmr; i++)
		ibv_dereg_mr(v->mr[i]);
	if (v->pd)
		ibv_dealloc_pd(v->pd);
	if (v->ctx)
		ibv_close_device(v->ctx);
	memset(v, 0, sizeof(*v));
}

int main(int argc, char **argv)
{
	struct vq v;
	struct ue_peer peer = {
		.role = "mr-ue-verbs", .be = &vq_backend, .ctx = &v,
		.local = vq_local, .connect = vq_connect,
		.progress = vq_progress,
	};
	struct opts o;
	struct load l;
	char extra[128];
	uint64_t deadline;
	uint16_t port;
	int lfd = -1, tfd = -1, rc = 1;

	signal(SIGPIPE, SIG_IGN);
	parse(argc, argv, &o);
	deadline = now_ms() + (uint64_t)o.c.timeout_s * 1000;
	memset(&l, 0, sizeof(l));
	if (vq_open(&v, &o))
		goto out;
	if (o.c.listen) {
		peer.role = "mr-ue-verbs server";
		port = (uint16_t)ue_num(o.c.listen, 65535, usage);
		lfd = chan_listen(htonl(INADDR_ANY), port);
		if (lfd < 0) {
			fprintf(stderr, "%s: cannot listen on TCP port %u\n",
				peer.role, port);
			goto out;
		}
		printf("%s: listening on port %u\n", peer.role, port);
		fflush(stdout);
		tfd = chan_server(&peer, lfd, &l, deadline);
	} else {
		peer.role = "mr-ue-verbs client";
		tfd = chan_client(&peer, &o.c, &l, deadline);
	}
	if (tfd >= 0) {
		rc = chan_run(&peer, &l, tfd, deadline) ? 1 : 0;
		snprintf(extra, sizeof(extra), "device=%s gid_index=%d "
			 "qpn=%#x peer_qpn=%#x", o.dev, v.gid_index,
			 v.qp->qp_num, v.peer_qpn);
		chan_report(&peer, &l, rc == 0, extra);
		close(tfd);
	}
out:
	if (lfd >= 0)
		close(lfd);
	vq_close(&v);
	if (l.be)
		load_fini(&l);
	return rc;
}
