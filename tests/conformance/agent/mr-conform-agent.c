// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-conform-agent: the DUT side of the MetaRoCE conformance suite.
 *
 * An ordinary libibverbs program: it opens one RDMA device, listens on a
 * TCP port and, on the tester's requests, creates MRs, CQs and QPs, moves
 * QPs through their states with the tester's parameters, posts work
 * requests and reports completions, memory and the device's counters.
 * Nothing in it is MetaRoCE-specific beyond the verbs it calls, so it runs
 * on any implementation with a verbs provider.
 *
 *   mr-conform-agent [-d DEV] [-i IBPORT] [-g GIDIDX] [-p TCPPORT] [--once]
 *
 * The protocol: one request line, one answer line "OK ..." or "ERR text";
 * POLL and COUNTERS answer "OK n=K" followed by K lines. The commands
 * (Documentation/metaroce/conformance.rst has the table):
 *
 *   INFO
 *   MR id len access seed          access: IBV_ACCESS_* bits (hex)
 *   FILL id seed
 *   REREG id seed                  ibv_rereg_mr to new memory of the same
 *                                  length filled with the pattern seed
 *                                  (IBV_REREG_MR_CHANGE_TRANSLATION); OK
 *                                  lkey=0x.. rkey=0x.. addr=0x.. (the MR's
 *                                  keys after the call)
 *   CQ id depth
 *   QP id cq RC|UD|UC|RAW max_send max_recv [srq]
 *                                  RAW: to see it refused (MR-VERBS-1)
 *   SRQ id depth
 *   SRECV srq wrid mr off len      a receive WQE on a shared receive queue
 *   CQEV id depth                  a CQ with a completion channel
 *   ARM cq solicited_only
 *   WAITEV cq tmo_ms               OK ev=0|1 (the event acknowledged)
 *   CONNECT id dqpn rq_psn sq_psn dgid mtu access timeout retry rnr_retry
 *                                  (a UC QP takes UC's attributes only and
 *                                  ignores timeout, retry and rnr_retry)
 *   POST id op wrid mr off len rkey raddr imm compare swap flags
 *        op: SEND SEND_IMM SEND_INV WRITE WRITE_IMM READ CS FA; flags: 1
 *        signaled; SEND_INV takes the R_Key to invalidate in imm
 *   UDPOST id wrid mr off len dqpn qkey dgid flags
 *                                  a UD SEND to dqpn at dgid (hex32) under qkey
 *   MODQP id RESET|INIT|SQD|RTS|ERR
 *   RECV id wrid mr off len
 *   POLL cq max tmo_ms
 *   READMR id off len              at most MRC_READ_MAX bytes, hex
 *   HASH id off len                FNV-1a 64 (mrc_hash)
 *   STATE id
 *   DESTROY id
 *   COUNTERS                       /sys/class/infiniband/DEV/ports/P/hw_counters
 *   MW id qp 1|2 mr off len access window id (allocated on first use, of
 *                                  that type) bound on QP qp to len bytes
 *                                  of MR mr at off with access (hex):
 *                                  ibv_bind_mw (type 1) or IBV_WR_BIND_MW
 *                                  (type 2), signaled, wr_id MRC_MW_WRID;
 *                                  OK rkey=0x.. addr=0x.. (the new key)
 *   MWFREE id                      ibv_dealloc_mw
 *   QUIT
 *
 * The channel is trusted to come from the tester but every field is
 * validated: ids, lengths and depths are bounded, and nothing is allocated
 * in proportion to a number that was not checked against a limit.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "../mrc-proto.h"

struct amr {
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
};

struct aqp {
	struct ibv_qp *qp;
	int cq;
	struct ibv_ah *ah;	/* UDPOST's; one destination per QP */
	union ibv_gid ah_gid;
};

static struct {
	const char *dev;
	int ib_port;
	int gid_idx;
	int tcp_port;
	bool once;
} O = { .ib_port = 1, .gid_idx = -1, .tcp_port = MRC_CTL_PORT };

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid my_gid;
static struct amr mrs[MRC_MAX_MR];
static struct ibv_cq *cqs[MRC_MAX_CQ];
static struct ibv_comp_channel *cq_ch[MRC_MAX_CQ];
#define AGENT_MAX_SRQ	4
static struct ibv_srq *srqs[AGENT_MAX_SRQ];
static struct aqp qps[MRC_MAX_QP];
#define AGENT_MAX_MW	4
static struct ibv_mw *mws[AGENT_MAX_MW];
static uint32_t mw_key[AGENT_MAX_MW];	/* the key of the last bind */
static size_t mr_total;
static FILE *out;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mr-conform-agent: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

/* ---- Parsing: every number bounded ---- */

static char *tok_next(char **s)
{
	char *t = *s;

	while (*t == ' ')
		t++;
	if (!*t)
		return NULL;
	*s = t + strcspn(t, " ");
	if (**s)
		*(*s)++ = 0;
	return t;
}

/* One number of at most @max (base 0: 0x.. hex); false if absent/bad. */
static bool num(char **s, uint64_t max, uint64_t *v)
{
	char *t = tok_next(s), *e;

	if (!t || *t == '-')
		return false;
	errno = 0;
	*v = strtoull(t, &e, 0);
	return !errno && !*e && *v <= max;
}

static bool id_of(char **s, unsigned int lim, unsigned int *id)
{
	uint64_t v;

	if (!num(s, lim - 1, &v))
		return false;
	*id = (unsigned int)v;
	return true;
}

static bool gid_parse(const char *s, union ibv_gid *g)
{
	if (!s || strlen(s) != 32)
		return false;
	for (int i = 0; i < 16; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return false;
		g->raw[i] = (uint8_t)v;
	}
	return true;
}

/* ---- Device ---- */

static void dev_open(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_device *dv = NULL;
	struct ibv_port_attr pa;

	if (!l)
		die("ibv_get_device_list: %s", strerror(errno));
	for (int i = 0; l[i] && !dv; i++)
		if (!O.dev || !strcmp(ibv_get_device_name(l[i]), O.dev))
			dv = l[i];
	if (!dv)
		die("RDMA device %s not found", O.dev ? O.dev : "(any)");
	ctx = ibv_open_device(dv);
	if (!ctx)
		die("ibv_open_device: %s", strerror(errno));
	if (!O.dev)
		O.dev = strdup(ibv_get_device_name(dv));
	ibv_free_device_list(l);
	if (ibv_query_port(ctx, (uint8_t)O.ib_port, &pa))
		die("ibv_query_port: %s", strerror(errno));
	/* The RoCE v2 GID of an IPv4 address unless -g names one. */
	for (int g = 0; g < pa.gid_tbl_len && O.gid_idx < 0; g++) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(ctx, (uint32_t)O.ib_port, (uint32_t)g, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12))
			O.gid_idx = g;
	}
	if (O.gid_idx < 0)
		die("no RoCE v2 IPv4 GID on %s (give -g)", O.dev);
	if (ibv_query_gid(ctx, (uint8_t)O.ib_port, O.gid_idx, &my_gid))
		die("ibv_query_gid: %s", strerror(errno));
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd: %s", strerror(errno));
}

/* ---- Commands ---- */

static void c_info(void)
{
	char g[33];
	struct ibv_device_attr da;

	if (ibv_query_device(ctx, &da))
		return reply("ERR ibv_query_device: %s", strerror(errno));
	for (int i = 0; i < 16; i++)
		sprintf(g + 2 * i, "%02x", my_gid.raw[i]);
	reply("OK dev=%s port=%d gid_index=%d atomic_cap=%d gid=%s", O.dev, O.ib_port,
	      O.gid_idx, (int)da.atomic_cap, g);
}

static void c_mr(char *s)
{
	unsigned int id;
	uint64_t len, acc, seed;
	struct amr *m;

	if (!id_of(&s, MRC_MAX_MR, &id) || !num(&s, MRC_MR_MAX_LEN, &len) ||
	    len == 0 || !num(&s, 0xffff, &acc) || !num(&s, UINT64_MAX, &seed))
		return reply("ERR usage: MR id len(1..%u) access seed", MRC_MR_MAX_LEN);
	m = &mrs[id];
	if (m->mr)
		return reply("ERR MR %u exists", id);
	if (mr_total + len > MRC_MR_TOTAL)
		return reply("ERR MR total over %u bytes", MRC_MR_TOTAL);
	m->buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m->buf == MAP_FAILED) {
		m->buf = NULL;
		return reply("ERR mmap: %s", strerror(errno));
	}
	mrc_pat_fill(m->buf, seed, 0, len);
	m->mr = ibv_reg_mr(pd, m->buf, len, (int)acc);
	if (!m->mr) {
		int e = errno;

		munmap(m->buf, len);
		m->buf = NULL;
		return reply("ERR ibv_reg_mr: %s", strerror(e));
	}
	m->len = len;
	mr_total += len;
	reply("OK lkey=0x%x rkey=0x%x addr=0x%" PRIx64, m->mr->lkey,
	      m->mr->rkey, (uint64_t)(uintptr_t)m->buf);
}

static struct amr *mr_arg(char **s)
{
	unsigned int id;

	if (!id_of(s, MRC_MAX_MR, &id) || !mrs[id].mr)
		return NULL;
	return &mrs[id];
}

/*
 * Move an MR to new memory with ibv_rereg_mr (MR-SEC-14 is about the keys
 * it gets). The old memory is unmapped only once the MR no longer maps
 * it; after a failed call the MR keeps its memory, whatever state the
 * provider left it in, and the tester sees the error.
 */
static void c_rereg(char *s)
{
	struct amr *m = mr_arg(&s);
	uint64_t seed;
	uint8_t *nb;
	int rc;

	if (!m || !num(&s, UINT64_MAX, &seed))
		return reply("ERR usage: REREG id seed (an existing MR)");
	nb = mmap(NULL, m->len, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (nb == MAP_FAILED)
		return reply("ERR mmap: %s", strerror(errno));
	mrc_pat_fill(nb, seed, 0, m->len);
	rc = ibv_rereg_mr(m->mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, nb, m->len, 0);
	if (rc) {
		int e = errno;

		munmap(nb, m->len);
		return reply("ERR ibv_rereg_mr: %d (%s)", rc, strerror(e));
	}
	munmap(m->buf, m->len);
	m->buf = nb;
	reply("OK lkey=0x%x rkey=0x%x addr=0x%" PRIx64, m->mr->lkey,
	      m->mr->rkey, (uint64_t)(uintptr_t)m->buf);
}

/* @off, @len within @m (no overflow: both bounded by the MR's length). */
static bool range_arg(char **s, const struct amr *m, uint64_t *off, uint64_t *len)
{
	return num(s, m->len, off) && num(s, m->len, len) && *off + *len <= m->len;
}

/* The one SGE of a WR: @len bytes of @m at @off (range_arg() checked). */
static void sge_of(const struct amr *m, uint64_t off, uint64_t len, struct ibv_sge *sge)
{
	sge->addr = (uint64_t)(uintptr_t)(m->buf + off);
	sge->length = (uint32_t)len;
	sge->lkey = m->mr->lkey;
}

static void c_fill(char *s)
{
	struct amr *m = mr_arg(&s);
	uint64_t seed;

	if (!m || !num(&s, UINT64_MAX, &seed))
		return reply("ERR usage: FILL id seed");
	mrc_pat_fill(m->buf, seed, 0, m->len);
	reply("OK");
}

static void c_cq(char *s)
{
	unsigned int id;
	uint64_t depth;

	if (!id_of(&s, MRC_MAX_CQ, &id) || !num(&s, 4096, &depth) || !depth)
		return reply("ERR usage: CQ id depth(1..4096)");
	if (cqs[id])
		return reply("ERR CQ %u exists", id);
	cqs[id] = ibv_create_cq(ctx, (int)depth, NULL, NULL, 0);
	if (!cqs[id])
		return reply("ERR ibv_create_cq: %s", strerror(errno));
	reply("OK");
}

static void c_qp(char *s)
{
	unsigned int id, cq, srq = AGENT_MAX_SRQ;
	uint64_t ms, mrcv;
	char *type;
	struct ibv_qp_init_attr ia = { 0 };

	if (!id_of(&s, MRC_MAX_QP, &id) || !id_of(&s, MRC_MAX_CQ, &cq) ||
	    !(type = tok_next(&s)) || !num(&s, 1024, &ms) || !num(&s, 1024, &mrcv) ||
	    !ms || !mrcv || (s[strspn(s, " ")] && !id_of(&s, AGENT_MAX_SRQ, &srq)))
		return reply("ERR usage: QP id cq RC|UD|UC|RAW max_send max_recv [srq]");
	if (qps[id].qp)
		return reply("ERR QP %u exists", id);
	if (!cqs[cq])
		return reply("ERR no CQ %u", cq);
	if (srq < AGENT_MAX_SRQ && !srqs[srq])
		return reply("ERR no SRQ %u", srq);
	if (!strcmp(type, "RC"))
		ia.qp_type = IBV_QPT_RC;
	else if (!strcmp(type, "UD"))
		ia.qp_type = IBV_QPT_UD;
	else if (!strcmp(type, "UC"))
		ia.qp_type = IBV_QPT_UC;
	else if (!strcmp(type, "RAW"))
		ia.qp_type = IBV_QPT_RAW_PACKET;
	else
		return reply("ERR QP type %.16s", type);
	if (srq < AGENT_MAX_SRQ)
		ia.srq = srqs[srq];
	ia.send_cq = ia.recv_cq = cqs[cq];
	ia.cap.max_send_wr = (uint32_t)ms;
	ia.cap.max_recv_wr = (uint32_t)mrcv;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	qps[id].qp = ibv_create_qp(pd, &ia);
	if (!qps[id].qp)
		return reply("ERR ibv_create_qp: %s", strerror(errno));
	qps[id].cq = (int)cq;
	reply("OK qpn=%u", qps[id].qp->qp_num);
}

static void c_srq(char *s)
{
	unsigned int id;
	uint64_t depth;
	struct ibv_srq_init_attr ia = { 0 };

	if (!id_of(&s, AGENT_MAX_SRQ, &id) || !num(&s, 1024, &depth) || !depth)
		return reply("ERR usage: SRQ id(..%d) depth(1..1024)", AGENT_MAX_SRQ - 1);
	if (srqs[id])
		return reply("ERR SRQ %u exists", id);
	ia.attr.max_wr = (uint32_t)depth;
	ia.attr.max_sge = 1;
	srqs[id] = ibv_create_srq(pd, &ia);
	if (!srqs[id])
		return reply("ERR ibv_create_srq: %s", strerror(errno));
	reply("OK");
}

static void c_cqev(char *s)
{
	unsigned int id;
	uint64_t depth;

	if (!id_of(&s, MRC_MAX_CQ, &id) || !num(&s, 4096, &depth) || !depth)
		return reply("ERR usage: CQEV id depth(1..4096)");
	if (cqs[id])
		return reply("ERR CQ %u exists", id);
	cq_ch[id] = ibv_create_comp_channel(ctx);
	if (!cq_ch[id])
		return reply("ERR ibv_create_comp_channel: %s", strerror(errno));
	cqs[id] = ibv_create_cq(ctx, (int)depth, NULL, cq_ch[id], 0);
	if (!cqs[id]) {
		int e = errno;

		ibv_destroy_comp_channel(cq_ch[id]);
		cq_ch[id] = NULL;
		return reply("ERR ibv_create_cq: %s", strerror(e));
	}
	reply("OK");
}

static void c_arm(char *s)
{
	unsigned int id;
	uint64_t sol;

	if (!id_of(&s, MRC_MAX_CQ, &id) || !cqs[id] || !cq_ch[id] || !num(&s, 1, &sol))
		return reply("ERR usage: ARM cq(with a channel) solicited_only(0|1)");
	if (ibv_req_notify_cq(cqs[id], (int)sol))
		return reply("ERR ibv_req_notify_cq: %s", strerror(errno));
	reply("OK");
}

static void c_waitev(char *s)
{
	unsigned int id;
	uint64_t tmo;
	struct pollfd pfd;
	struct ibv_cq *ecq;
	void *ectx;
	int r;

	if (!id_of(&s, MRC_MAX_CQ, &id) || !cqs[id] || !cq_ch[id] ||
	    !num(&s, MRC_POLL_TMO_MAX, &tmo))
		return reply("ERR usage: WAITEV cq(with a channel) tmo_ms(..%d)", MRC_POLL_TMO_MAX);
	pfd.fd = cq_ch[id]->fd;
	pfd.events = POLLIN;
	r = poll(&pfd, 1, (int)tmo);
	if (r < 0)
		return reply("ERR poll: %s", strerror(errno));
	if (!r)
		return reply("OK ev=0");
	if (ibv_get_cq_event(cq_ch[id], &ecq, &ectx))
		return reply("ERR ibv_get_cq_event: %s", strerror(errno));
	ibv_ack_cq_events(ecq, 1);
	reply("OK ev=1");
}

static struct ibv_qp *qp_arg(char **s)
{
	unsigned int id;

	if (!id_of(s, MRC_MAX_QP, &id))
		return NULL;
	return qps[id].qp;
}

static void c_connect(char *s)
{
	struct ibv_qp *qp = qp_arg(&s);
	uint64_t dqpn, rq, sq, mtu, acc, tmo, retry, rnr;
	union ibv_gid dgid;
	struct ibv_qp_attr a = { 0 };
	bool uc;

	if (!qp || !num(&s, 0xffffff, &dqpn) || !num(&s, 0xffffff, &rq) ||
	    !num(&s, 0xffffff, &sq) || !gid_parse(tok_next(&s), &dgid) ||
	    !num(&s, 4096, &mtu) || !num(&s, 0xffff, &acc) ||
	    !num(&s, 31, &tmo) || !num(&s, 7, &retry) || !num(&s, 7, &rnr))
		return reply("ERR usage: CONNECT id dqpn rq_psn sq_psn dgid(hex32) mtu access timeout retry rnr_retry");
	a.qp_state = IBV_QPS_INIT;
	a.port_num = (uint8_t)O.ib_port;
	a.qp_access_flags = (unsigned int)acc;
	uc = qp->qp_type == IBV_QPT_UC;
	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_QKEY))
			return reply("ERR INIT: %s", strerror(errno));
		a.qp_state = IBV_QPS_RTR;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
			return reply("ERR RTR: %s", strerror(errno));
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = (uint32_t)sq;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
			return reply("ERR RTS: %s", strerror(errno));
		return reply("OK state=RTS");
	}
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return reply("ERR INIT: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	switch (mtu) {
	case 256: a.path_mtu = IBV_MTU_256; break;
	case 512: a.path_mtu = IBV_MTU_512; break;
	case 1024: a.path_mtu = IBV_MTU_1024; break;
	case 2048: a.path_mtu = IBV_MTU_2048; break;
	case 4096: a.path_mtu = IBV_MTU_4096; break;
	default: return reply("ERR mtu %" PRIu64, mtu);
	}
	a.dest_qp_num = (uint32_t)dqpn;
	a.rq_psn = (uint32_t)rq;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = (uint8_t)O.ib_port;
	a.ah_attr.grh.dgid = dgid;
	a.ah_attr.grh.sgid_index = (uint8_t)O.gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  (uc ? 0 : IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)))
		return reply("ERR RTR: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = (uint8_t)tmo;
	a.retry_cnt = (uint8_t)retry;
	a.rnr_retry = (uint8_t)rnr;
	a.sq_psn = (uint32_t)sq;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  (uc ? 0 : IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)))
		return reply("ERR RTS: %s", strerror(errno));
	reply("OK state=RTS");
}

static const struct {
	const char *name;
	enum ibv_wr_opcode op;
} ops[] = {
	{ "SEND", IBV_WR_SEND }, { "SEND_IMM", IBV_WR_SEND_WITH_IMM },
	{ "SEND_INV", IBV_WR_SEND_WITH_INV },
	{ "WRITE", IBV_WR_RDMA_WRITE }, { "WRITE_IMM", IBV_WR_RDMA_WRITE_WITH_IMM },
	{ "READ", IBV_WR_RDMA_READ }, { "CS", IBV_WR_ATOMIC_CMP_AND_SWP },
	{ "FA", IBV_WR_ATOMIC_FETCH_AND_ADD },
};

static void c_post(char *s)
{
	struct ibv_qp *qp = qp_arg(&s);
	char *opn = tok_next(&s);
	uint64_t wrid, off, len, rkey, raddr, imm, cmp, swp, fl;
	struct amr *m;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { 0 }, *bad;
	size_t k;

	if (!qp || !opn)
		return reply("ERR usage: POST id op wrid mr off len rkey raddr imm compare swap flags");
	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!strcmp(ops[k].name, opn))
			break;
	if (k == sizeof(ops) / sizeof(ops[0]))
		return reply("ERR op %s", opn);
	if (!num(&s, UINT64_MAX, &wrid) || !(m = mr_arg(&s)) ||
	    !range_arg(&s, m, &off, &len) || !num(&s, UINT32_MAX, &rkey) ||
	    !num(&s, UINT64_MAX, &raddr) || !num(&s, UINT32_MAX, &imm) ||
	    !num(&s, UINT64_MAX, &cmp) || !num(&s, UINT64_MAX, &swp) ||
	    !num(&s, 1, &fl))
		return reply("ERR usage: POST id op wrid mr off len rkey raddr imm compare swap flags");
	sge_of(m, off, len, &sge);
	wr.wr_id = wrid;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ops[k].op;
	wr.send_flags = fl ? IBV_SEND_SIGNALED : 0;
	if (wr.opcode == IBV_WR_SEND_WITH_INV)
		wr.invalidate_rkey = (uint32_t)imm;
	else
		wr.imm_data = htonl((uint32_t)imm);
	if (wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = (uint32_t)rkey;
		wr.wr.atomic.compare_add = wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? cmp : swp;
		wr.wr.atomic.swap = swp;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = (uint32_t)rkey;
	}
	errno = ibv_post_send(qp, &wr, &bad);
	if (errno)
		return reply("ERR ibv_post_send: %s", strerror(errno));
	reply("OK");
}

static void c_udpost(char *s)
{
	unsigned int id;
	uint64_t wrid, off, len, dqpn, qkey, fl;
	union ibv_gid dgid;
	struct amr *m;
	struct aqp *q;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { 0 }, *bad;

	if (!id_of(&s, MRC_MAX_QP, &id) || !(q = &qps[id])->qp ||
	    q->qp->qp_type != IBV_QPT_UD || !num(&s, UINT64_MAX, &wrid) ||
	    !(m = mr_arg(&s)) || !range_arg(&s, m, &off, &len) ||
	    !num(&s, 0xffffff, &dqpn) || !num(&s, UINT32_MAX, &qkey) ||
	    !gid_parse(tok_next(&s), &dgid) || !num(&s, 1, &fl))
		return reply("ERR usage: UDPOST id(a UD QP) wrid mr off len dqpn qkey dgid(hex32) flags");
	if (q->ah && memcmp(&q->ah_gid, &dgid, sizeof(dgid)))
		return reply("ERR QP %u sends to another GID", id);
	if (!q->ah) {
		struct ibv_ah_attr aa = { 0 };

		aa.is_global = 1;
		aa.port_num = (uint8_t)O.ib_port;
		aa.grh.dgid = dgid;
		aa.grh.sgid_index = (uint8_t)O.gid_idx;
		aa.grh.hop_limit = 64;
		q->ah = ibv_create_ah(pd, &aa);
		if (!q->ah)
			return reply("ERR ibv_create_ah: %s", strerror(errno));
		q->ah_gid = dgid;
	}
	sge_of(m, off, len, &sge);
	wr.wr_id = wrid;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = fl ? IBV_SEND_SIGNALED : 0;
	wr.wr.ud.ah = q->ah;
	wr.wr.ud.remote_qpn = (uint32_t)dqpn;
	wr.wr.ud.remote_qkey = (uint32_t)qkey;
	errno = ibv_post_send(q->qp, &wr, &bad);
	if (errno)
		return reply("ERR ibv_post_send: %s", strerror(errno));
	reply("OK");
}

static void c_modqp(char *s)
{
	static const struct {
		const char *name;
		enum ibv_qp_state st;
	} st[] = {
		{ "RESET", IBV_QPS_RESET }, { "INIT", IBV_QPS_INIT },
		{ "SQD", IBV_QPS_SQD }, { "RTS", IBV_QPS_RTS }, { "ERR", IBV_QPS_ERR },
	};
	struct ibv_qp *qp = qp_arg(&s);
	char *n = tok_next(&s);
	struct ibv_qp_attr a = { 0 };
	int mask = IBV_QP_STATE;
	size_t k;

	if (!qp || !n)
		return reply("ERR usage: MODQP id RESET|INIT|SQD|RTS|ERR");
	for (k = 0; k < sizeof(st) / sizeof(st[0]); k++)
		if (!strcmp(st[k].name, n))
			break;
	if (k == sizeof(st) / sizeof(st[0]))
		return reply("ERR state %.16s", n);
	a.qp_state = st[k].st;
	if (a.qp_state == IBV_QPS_INIT) {
		a.port_num = (uint8_t)O.ib_port;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (qp->qp_type == IBV_QPT_UD) {
			a.qkey = 0x11111111;
			mask |= IBV_QP_QKEY;
		} else {
			a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
			mask |= IBV_QP_ACCESS_FLAGS;
		}
	}
	if (ibv_modify_qp(qp, &a, mask))
		return reply("ERR ibv_modify_qp %s: %s", n, strerror(errno));
	reply("OK");
}

static void c_srecv(char *s)
{
	unsigned int id;
	uint64_t wrid, off, len;
	struct amr *m;
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { 0 }, *bad;

	if (!id_of(&s, AGENT_MAX_SRQ, &id) || !srqs[id] || !num(&s, UINT64_MAX, &wrid) ||
	    !(m = mr_arg(&s)) || !range_arg(&s, m, &off, &len))
		return reply("ERR usage: SRECV srq wrid mr off len");
	sge_of(m, off, len, &sge);
	wr.wr_id = wrid;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	errno = ibv_post_srq_recv(srqs[id], &wr, &bad);
	if (errno)
		return reply("ERR ibv_post_srq_recv: %s", strerror(errno));
	reply("OK");
}

static void c_recv(char *s)
{
	struct ibv_qp *qp = qp_arg(&s);
	uint64_t wrid, off, len;
	struct amr *m;
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { 0 }, *bad;

	if (!qp || !num(&s, UINT64_MAX, &wrid) || !(m = mr_arg(&s)) ||
	    !range_arg(&s, m, &off, &len))
		return reply("ERR usage: RECV id wrid mr off len");
	sge_of(m, off, len, &sge);
	wr.wr_id = wrid;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	errno = ibv_post_recv(qp, &wr, &bad);
	if (errno)
		return reply("ERR ibv_post_recv: %s", strerror(errno));
	reply("OK");
}

static void c_mw(char *s)
{
	struct ibv_mw_bind_info bi;
	struct ibv_qp *qp;
	struct amr *m;
	unsigned int id;
	uint64_t type, off, len, acc;
	uint32_t key;

	if (!id_of(&s, AGENT_MAX_MW, &id) || !(qp = qp_arg(&s)) ||
	    !num(&s, 2, &type) || type < 1 || !(m = mr_arg(&s)) ||
	    !range_arg(&s, m, &off, &len) || !num(&s, 0xffff, &acc))
		return reply("ERR usage: MW id qp 1|2 mr off len access");
	if (!mws[id]) {
		mws[id] = ibv_alloc_mw(pd, type == 1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
		if (!mws[id])
			return reply("ERR ibv_alloc_mw: %s", strerror(errno));
		mw_key[id] = mws[id]->rkey;
	}
	if ((uint64_t)mws[id]->type != type)
		return reply("ERR MW %u is of type %d", id, (int)mws[id]->type);
	memset(&bi, 0, sizeof(bi));
	bi.mr = m->mr;
	bi.addr = (uint64_t)(uintptr_t)(m->buf + off);
	bi.length = len;
	bi.mw_access_flags = (unsigned int)acc;
	if (type == 1) {
		struct ibv_mw_bind b = { .wr_id = MRC_MW_WRID,
					 .send_flags = IBV_SEND_SIGNALED,
					 .bind_info = bi };

		errno = ibv_bind_mw(qp, mws[id], &b);
		key = mws[id]->rkey;
	} else {
		struct ibv_send_wr wr = { 0 }, *bad;

		key = ibv_inc_rkey(mw_key[id]);
		wr.wr_id = MRC_MW_WRID;
		wr.opcode = IBV_WR_BIND_MW;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.bind_mw.mw = mws[id];
		wr.bind_mw.rkey = key;
		wr.bind_mw.bind_info = bi;
		errno = ibv_post_send(qp, &wr, &bad);
	}
	if (errno)
		return reply("ERR bind: %s", strerror(errno));
	mw_key[id] = key;
	reply("OK rkey=0x%x addr=0x%" PRIx64, key, bi.addr);
}

static void c_mwfree(char *s)
{
	unsigned int id;

	if (!id_of(&s, AGENT_MAX_MW, &id) || !mws[id])
		return reply("ERR usage: MWFREE id (an allocated window)");
	errno = ibv_dealloc_mw(mws[id]);
	if (errno)
		return reply("ERR ibv_dealloc_mw: %s", strerror(errno));
	mws[id] = NULL;
	reply("OK");
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void c_poll(char *s)
{
	unsigned int id;
	uint64_t max, tmo;
	struct ibv_wc wc[MRC_POLL_MAX];
	int n = 0;
	double end;

	if (!id_of(&s, MRC_MAX_CQ, &id) || !cqs[id] || !num(&s, MRC_POLL_MAX, &max) ||
	    !max || !num(&s, MRC_POLL_TMO_MAX, &tmo))
		return reply("ERR usage: POLL cq max(1..%d) tmo_ms(..%d)", MRC_POLL_MAX,
			     MRC_POLL_TMO_MAX);
	end = now_ms() + (double)tmo;
	for (;;) {
		int r = ibv_poll_cq(cqs[id], (int)max - n, wc + n);

		if (r < 0)
			return reply("ERR ibv_poll_cq: %d", r);
		n += r;
		if (n >= (int)max || now_ms() >= end)
			break;
		if (!r)
			usleep(1000);
	}
	reply("OK n=%d", n);
	for (int i = 0; i < n; i++)
		reply("CQE wrid=%" PRIu64 " status=%d opcode=%d byte_len=%u imm=0x%x wc_flags=0x%x qpn=%u src_qp=%u",
		      wc[i].wr_id, wc[i].status, wc[i].opcode, wc[i].byte_len,
		      (wc[i].wc_flags & IBV_WC_WITH_IMM) ? ntohl(wc[i].imm_data) :
		      (wc[i].wc_flags & IBV_WC_WITH_INV) ? wc[i].invalidated_rkey : 0,
		      wc[i].wc_flags, wc[i].qp_num, wc[i].src_qp);
}

static void c_readmr(char *s)
{
	struct amr *m = mr_arg(&s);
	uint64_t off, len;
	char hex[2 * MRC_READ_MAX + 1];

	if (!m || !range_arg(&s, m, &off, &len) || len > MRC_READ_MAX)
		return reply("ERR usage: READMR id off len(..%d)", MRC_READ_MAX);
	for (uint64_t i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", m->buf[off + i]);
	hex[2 * len] = 0;
	reply("OK %s", len ? hex : "-");
}

static void c_hash(char *s)
{
	struct amr *m = mr_arg(&s);
	uint64_t off, len;

	if (!m || !range_arg(&s, m, &off, &len))
		return reply("ERR usage: HASH id off len");
	reply("OK 0x%016" PRIx64, mrc_hash(m->buf + off, len));
}

static void c_state(char *s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD",
					  "SQE", "ERR" };
	struct ibv_qp *qp = qp_arg(&s);
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (!qp)
		return reply("ERR usage: STATE id");
	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return reply("ERR ibv_query_qp: %s", strerror(errno));
	reply("OK %s", a.qp_state <= IBV_QPS_ERR ? n[a.qp_state] : "?");
}

static void c_destroy(char *s)
{
	unsigned int id;

	if (!id_of(&s, MRC_MAX_QP, &id) || !qps[id].qp)
		return reply("ERR usage: DESTROY id (an existing QP)");
	if (ibv_destroy_qp(qps[id].qp))
		return reply("ERR ibv_destroy_qp: %s", strerror(errno));
	qps[id].qp = NULL;
	if (qps[id].ah)
		ibv_destroy_ah(qps[id].ah);
	qps[id].ah = NULL;
	reply("OK");
}

static void c_counters(void)
{
	char dir[256], names[MRC_CNT_MAX][64];
	unsigned long long vals[MRC_CNT_MAX];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports/%d/hw_counters",
		 O.dev, O.ib_port);
	d = opendir(dir);
	if (!d) {
		/* No counters is an answer, not an error: the tester decides. */
		reply("OK n=0");
		return;
	}
	while ((e = readdir(d)) && n < MRC_CNT_MAX) {
		char p[512];
		FILE *f;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(names[0]) ||
		    strchr(e->d_name, ' '))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &vals[n]) == 1)
			strcpy(names[n++], e->d_name);
		fclose(f);
	}
	closedir(d);
	reply("OK n=%d", n);
	for (int i = 0; i < n; i++)
		reply("CNT %s %llu", names[i], vals[i]);
}

static void cleanup(void)
{
	/* Windows first: an MR with a window bound cannot be deregistered. */
	for (int i = 0; i < AGENT_MAX_MW; i++)
		if (mws[i]) {
			ibv_dealloc_mw(mws[i]);
			mws[i] = NULL;
		}
	for (int i = 0; i < MRC_MAX_QP; i++)
		if (qps[i].qp) {
			ibv_destroy_qp(qps[i].qp);
			qps[i].qp = NULL;
			if (qps[i].ah)
				ibv_destroy_ah(qps[i].ah);
			qps[i].ah = NULL;
		}
	for (int i = 0; i < AGENT_MAX_SRQ; i++)
		if (srqs[i]) {
			ibv_destroy_srq(srqs[i]);
			srqs[i] = NULL;
		}
	for (int i = 0; i < MRC_MAX_CQ; i++) {
		if (cqs[i]) {
			ibv_destroy_cq(cqs[i]);
			cqs[i] = NULL;
		}
		if (cq_ch[i]) {
			ibv_destroy_comp_channel(cq_ch[i]);
			cq_ch[i] = NULL;
		}
	}
	for (int i = 0; i < MRC_MAX_MR; i++)
		if (mrs[i].mr) {
			ibv_dereg_mr(mrs[i].mr);
			munmap(mrs[i].buf, mrs[i].len);
			mrs[i].mr = NULL;
		}
	mr_total = 0;
}

/* One session: false when the tester said QUIT. */
static bool session(int fd)
{
	char line[MRC_LINE_MAX];
	FILE *in = fdopen(fd, "r");
	bool quit = false;

	out = fdopen(dup(fd), "w");
	if (!in || !out)
		die("fdopen: %s", strerror(errno));
	while (fgets(line, sizeof(line), in)) {
		size_t l = strlen(line);
		char *s = line, *cmd;

		if (l && line[l - 1] != '\n' && !feof(in)) {
			int c;

			while ((c = fgetc(in)) != EOF && c != '\n')
				;
			reply("ERR line longer than %d bytes", MRC_LINE_MAX - 1);
			fflush(out);
			continue;
		}
		line[strcspn(line, "\r\n")] = 0;
		cmd = tok_next(&s);
		if (!cmd)
			reply("ERR empty line");
		else if (!strcmp(cmd, "INFO"))
			c_info();
		else if (!strcmp(cmd, "MR"))
			c_mr(s);
		else if (!strcmp(cmd, "FILL"))
			c_fill(s);
		else if (!strcmp(cmd, "REREG"))
			c_rereg(s);
		else if (!strcmp(cmd, "CQ"))
			c_cq(s);
		else if (!strcmp(cmd, "QP"))
			c_qp(s);
		else if (!strcmp(cmd, "CONNECT"))
			c_connect(s);
		else if (!strcmp(cmd, "POST"))
			c_post(s);
		else if (!strcmp(cmd, "SRQ"))
			c_srq(s);
		else if (!strcmp(cmd, "SRECV"))
			c_srecv(s);
		else if (!strcmp(cmd, "CQEV"))
			c_cqev(s);
		else if (!strcmp(cmd, "ARM"))
			c_arm(s);
		else if (!strcmp(cmd, "WAITEV"))
			c_waitev(s);
		else if (!strcmp(cmd, "UDPOST"))
			c_udpost(s);
		else if (!strcmp(cmd, "MODQP"))
			c_modqp(s);
		else if (!strcmp(cmd, "RECV"))
			c_recv(s);
		else if (!strcmp(cmd, "POLL"))
			c_poll(s);
		else if (!strcmp(cmd, "READMR"))
			c_readmr(s);
		else if (!strcmp(cmd, "HASH"))
			c_hash(s);
		else if (!strcmp(cmd, "STATE"))
			c_state(s);
		else if (!strcmp(cmd, "DESTROY"))
			c_destroy(s);
		else if (!strcmp(cmd, "MW"))
			c_mw(s);
		else if (!strcmp(cmd, "MWFREE"))
			c_mwfree(s);
		else if (!strcmp(cmd, "COUNTERS"))
			c_counters();
		else if (!strcmp(cmd, "QUIT")) {
			reply("OK bye");
			quit = true;
		} else
			reply("ERR unknown command %.32s", cmd);
		fflush(out);
		if (quit)
			break;
	}
	fclose(in);
	fclose(out);
	cleanup();
	return !quit;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "ib-port", required_argument, NULL, 'i' },
		{ "gid-index", required_argument, NULL, 'g' },
		{ "port", required_argument, NULL, 'p' },
		{ "once", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in a = { .sin_family = AF_INET };
	int c, ls, one = 1;

	while ((c = getopt_long(argc, argv, "d:i:g:p:", lo, NULL)) != -1) {
		switch (c) {
		case 'd': O.dev = optarg; break;
		case 'i': O.ib_port = atoi(optarg); break;
		case 'g': O.gid_idx = atoi(optarg); break;
		case 'p': O.tcp_port = atoi(optarg); break;
		case 'o': O.once = true; break;
		default:
			fprintf(stderr, "usage: mr-conform-agent [-d DEV] [-i IBPORT] [-g GIDIDX] [-p TCPPORT] [--once]\n");
			return 2;
		}
	}
	if (O.ib_port < 1 || O.ib_port > 255 || O.tcp_port < 1 || O.tcp_port > 65535)
		die("bad port number");
	signal(SIGPIPE, SIG_IGN);
	dev_open();
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0)
		die("socket: %s", strerror(errno));
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_port = htons((uint16_t)O.tcp_port);
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1))
		die("listen on TCP port %d: %s", O.tcp_port, strerror(errno));
	printf("mr-conform-agent: %s port %d, listening on TCP %d\n", O.dev,
	       O.ib_port, O.tcp_port);
	fflush(stdout);
	for (;;) {
		int fd = accept(ls, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			die("accept: %s", strerror(errno));
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (!session(fd) || O.once)
			break;
	}
	close(ls);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
