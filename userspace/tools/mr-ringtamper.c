// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-ringtamper: hostile input from user space into a MetaRoCE device's
 * mmapped rings, and the proof that the kernel copes.
 *
 *   mr-ringtamper -d mr0 -g GID_INDEX [--mode ring|verbs] [--case NAME]...
 *
 * A white-box test tool. Each case creates fresh CQs and two RC QPs on
 * the device, connected to each other over the port's own GID (loopback),
 * writes garbage straight into a ring the kernel consumes (SQ, RQ, SRQ
 * WQEs: bad opcode, bad send_flags, num_sge above the queue's maximum,
 * inline_len above max_inline_data, unknown lkey, SGE range outside its
 * MR; BIND_MW WQEs naming no window, no MR, a window or MR of another
 * PD, a range outside the MR; tampered indices: SQ/RQ/SRQ prod jumped by
 * more than the ring, CQ cons ahead of prod or far behind it; a valid
 * SEND in the SQ ring of a QP in INIT), rings the doorbell, and checks:
 *
 *   - the bad WQE completes with the status the spec names (MR-VERBS-3,
 *     MR-VERBS-23, MR-MW-3, the receive-side table of MR-VERBS-21), the WRs behind
 *     it are flushed and the QP is in the error state (MR-VERBS-25); a
 *     corrupt index puts the QP, SRQ or CQ in error with an asynchronous
 *     event, and no WQE completes successfully;
 *   - a WQE in the ring of a QP before RTS does nothing until RTS, then
 *     goes out (sq-before-rts*);
 *   - every wait is bounded: no case hangs (per-case watchdog);
 *   - nothing outside the registered memory changed: the MR lies between
 *     two canary areas of the same allocation, checked after every case;
 *   - (ring-charge) the rings a process makes are charged to its memory
 *     cgroup: CQs of half the largest size raise memory.current by at
 *     least 90% of their mapped sizes, so the cgroup's limit bounds them.
 *
 * --mode verbs posts the cases that the verbs API can express (bad lkey,
 * ranges outside the MR, remote range outside the peer's MR) through
 * ibv_post_send/ibv_post_recv instead: that runs over any device (Soft-RoCE
 * is the baseline), and proves the tool's own plumbing. --mode ring (the
 * default on a metaroce device) runs every case, the verbs-expressible ones
 * written into the rings as well. --any-local-error accepts any of
 * LOC_QP_OP_ERR, LOC_LEN_ERR, LOC_PROT_ERR where one of them is expected:
 * rxe reports LOC_QP_OP_ERR for an unknown lkey and for a bad receive SGE,
 * where the MetaRoCE spec requires LOC_PROT_ERR. --break-canary-for-test
 * flips a byte just before the MR after the first case, which must then
 * fail (the proof that the canary check can fail).
 *
 * The provider's private structs (userspace/provider/metaroce.h) are used
 * in one place only, the "ring views" below: one function per ring kind
 * returns where its header, slots and the provider's own producer or
 * consumer index are. Everything else goes through libibverbs and the ring
 * layout of kernel/uapi/metaroce-abi.h.
 *
 * Exit status: 0 every case passed, 1 a case failed, 2 usage or set-up error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "metaroce.h"	/* provider's private structs; -I../provider */

#define CANARY_LEN	(16 * 1024)
#define MR_LEN		(64 * 1024)
/* MR layout: where each case puts what. */
#define OFF_SRC		0		/* send / write source */
#define OFF_RECV	(16 * 1024)	/* receive buffers */
#define OFF_DST		(32 * 1024)	/* read / write target */
#define OFF_SPARE	(48 * 1024)

#define WRID_GARBAGE	0x6a6a6a6a00000001ULL
#define WRID_VALID	0x5a5a5a5a00000002ULL
#define WRID_RECV	0x4b4b4b4b00000003ULL
#define WRID_SEND	0x3c3c3c3c00000004ULL
#define VALID_LEN	16	/* the valid WR posted behind a bad one */

static const char *prog = "mr-ringtamper";
static int verbose;
static int any_local_err;
static int break_canary;
static int wait_ms = 10000;
static const char *cur_case = "set-up";

static void logmsg(const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", prog);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

#define VLOG(...) do { if (verbose) logmsg(__VA_ARGS__); } while (0)

static void die2(const char *what)
{
	logmsg("ERROR: %s: %s", what, strerror(errno));
	exit(2);
}

/* The case watchdog: a hang is a failure with the case named, never a stuck test. */
static void on_alarm(int sig)
{
	char buf[256];
	int n;

	(void)sig;
	n = snprintf(buf, sizeof(buf),
		     "%s: FAIL: case %s: hung (watchdog), the kernel did not finish it\n",
		     prog, cur_case);
	if (n > 0 && write(1, buf, (size_t)n) < 0)
		_exit(1);
	_exit(1);
}

/* ------------------------------------------------------------------ */
/* Ring views: the only code that knows the provider's private structs. */

struct ring_view {
	struct metaroce_ring_hdr *hdr;
	uint8_t *slots;
	uint32_t entries;
	uint32_t stride;
	uint32_t *idx;		/* the provider's own index (producer; CQ: consumer) */
};

static int view_check(struct ring_view *v, const struct mroce_ring *r,
		      const char *what)
{
	if (!r->map || !r->hdr || (void *)r->hdr != r->map ||
	    r->slots != (uint8_t *)r->map + METAROCE_RING_HDR_SIZE ||
	    !r->entries || (r->entries & (r->entries - 1)) ||
	    r->stride < 16 || r->stride % 16 ||
	    METAROCE_RING_HDR_SIZE + (size_t)r->entries * r->stride > r->map_size) {
		logmsg("ERROR: %s ring: the provider's struct does not look like "
		       "userspace/provider/metaroce.h says (rebuild the tool)", what);
		return -1;
	}
	v->hdr = r->hdr;
	v->slots = r->slots;
	v->entries = r->entries;
	v->stride = r->stride;
	v->idx = (uint32_t *)&r->idx;
	return 0;
}

static int sq_view(struct ibv_qp *qp, struct ring_view *v)
{
	return view_check(v, &to_mqp(qp)->sq, "SQ");
}

static int rq_view(struct ibv_qp *qp, struct ring_view *v)
{
	if (!to_mqp(qp)->has_rq)
		return -1;
	return view_check(v, &to_mqp(qp)->rq, "RQ");
}

static int srq_view(struct ibv_srq *srq, struct ring_view *v)
{
	return view_check(v, &to_msrq(srq)->ring, "SRQ");
}

static int cq_view(struct ibv_cq *cq, struct ring_view *v)
{
	return view_check(v, &to_mcq(cq)->ring, "CQ");
}

/* The doorbells (provider.rst, "Doorbells"): POST_SEND/POST_RECV with no WR. */
static int sq_doorbell(struct ibv_qp *qp)
{
	struct ibv_send_wr *bad;

	return ibv_cmd_post_send(qp, NULL, &bad);
}

/* ------------------------------------------------------------------ */
/* Ring writes (layout: kernel/uapi/metaroce-abi.h)                     */

static void *ring_slot(struct ring_view *v)
{
	void *s = v->slots + (size_t)(*v->idx & (v->entries - 1)) * v->stride;

	memset(s, 0, v->stride);
	return s;
}

/* The slot at the provider's index is filled: publish it as the provider would. */
static void ring_publish(struct ring_view *v)
{
	(*v->idx)++;
	__atomic_store_n(&v->hdr->prod, *v->idx, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------ */
/* Device, memory and the per-case QP pair                              */

/* The access of env's MR. */
#define MR_ACCESS							\
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |		\
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |		\
	 IBV_ACCESS_MW_BIND)

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;	/* also IBV_ACCESS_MW_BIND: windows bind to it */
	struct ibv_pd *pd2;	/* a foreign PD for the bind cases */
	struct ibv_mr *mr2;	/* the same memory, registered in pd2 */
	uint8_t *alloc;		/* canary | MR | canary */
	uint8_t *base;		/* start of the MR */
	union ibv_gid gid;
	int gid_idx;
	int ring;		/* ring mode */
	enum ibv_mtu mtu;
};

struct pair {
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *a, *b;
	struct ibv_srq *srq;	/* b's receive queue, when the case asks */
	struct ibv_qp_cap cap_a, cap_b;
	int qp_fatal_a, qp_fatal_b, srq_err, cq_err_a, cq_err_b;
};

static uint8_t canary_byte(size_t i)
{
	return (uint8_t)(0xc5 ^ (i * 131) ^ (i >> 8));
}

static void canaries_fill(struct env *e)
{
	size_t i;

	for (i = 0; i < CANARY_LEN; i++) {
		e->alloc[i] = canary_byte(i);
		e->base[MR_LEN + i] = canary_byte(i + CANARY_LEN);
	}
}

/* 0 when both canary areas are intact; else prints where they changed. */
static int canaries_check(struct env *e)
{
	size_t i;

	for (i = 0; i < CANARY_LEN; i++) {
		if (e->alloc[i] != canary_byte(i)) {
			logmsg("FAIL: case %s: memory before the MR changed: byte %zu "
			       "before its start is 0x%02x, expected 0x%02x",
			       cur_case, CANARY_LEN - i, e->alloc[i], canary_byte(i));
			return -1;
		}
		if (e->base[MR_LEN + i] != canary_byte(i + CANARY_LEN)) {
			logmsg("FAIL: case %s: memory after the MR changed: byte %zu "
			       "after its end is 0x%02x, expected 0x%02x",
			       cur_case, i, e->base[MR_LEN + i],
			       canary_byte(i + CANARY_LEN));
			return -1;
		}
	}
	return 0;
}

static void drain_async(struct env *e, struct pair *p)
{
	struct ibv_async_event ev;

	while (ibv_get_async_event(e->ctx, &ev) == 0) {
		VLOG("async event %s", ibv_event_type_str(ev.event_type));
		if (p) {
			switch (ev.event_type) {
			case IBV_EVENT_QP_FATAL:
			case IBV_EVENT_QP_REQ_ERR:
			case IBV_EVENT_QP_ACCESS_ERR:
				if (ev.element.qp == p->a)
					p->qp_fatal_a = 1;
				if (ev.element.qp == p->b)
					p->qp_fatal_b = 1;
				break;
			case IBV_EVENT_SRQ_ERR:
				if (ev.element.srq == p->srq)
					p->srq_err = 1;
				break;
			case IBV_EVENT_CQ_ERR:
				if (ev.element.cq == p->cq_a)
					p->cq_err_a = 1;
				if (ev.element.cq == p->cq_b)
					p->cq_err_b = 1;
				break;
			default:
				break;
			}
		}
		ibv_ack_async_event(&ev);
	}
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		  const char *what)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret) {
		errno = ret;
		logmsg("ERROR: case %s: ibv_modify_qp to %s: %s", cur_case, what,
		       strerror(ret));
	}
	return ret;
}

/* QP to RTS, connected to the QP number dqpn on the same port and GID. */
static int connect_qp(struct env *e, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.pkey_index = 0;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	if (modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_ACCESS_FLAGS, "INIT"))
		return -1;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = e->mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0x1234;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = e->gid;
	a.ah_attr.grh.sgid_index = (uint8_t)e->gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		   IBV_QP_MIN_RNR_TIMER, "RTR"))
		return -1;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 3;
	a.rnr_retry = 3;
	a.sq_psn = 0x1234;
	a.max_rd_atomic = 4;
	return modify(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
		      "RTS");
}

static void pair_destroy(struct pair *p)
{
	if (p->a && ibv_destroy_qp(p->a))
		logmsg("ERROR: case %s: ibv_destroy_qp", cur_case);
	if (p->b && ibv_destroy_qp(p->b))
		logmsg("ERROR: case %s: ibv_destroy_qp", cur_case);
	if (p->srq && ibv_destroy_srq(p->srq))
		logmsg("ERROR: case %s: ibv_destroy_srq", cur_case);
	if (p->cq_a && ibv_destroy_cq(p->cq_a))
		logmsg("ERROR: case %s: ibv_destroy_cq", cur_case);
	if (p->cq_b && ibv_destroy_cq(p->cq_b))
		logmsg("ERROR: case %s: ibv_destroy_cq", cur_case);
	memset(p, 0, sizeof(*p));
}

static int pair_create(struct env *e, struct pair *p, int with_srq)
{
	struct ibv_qp_init_attr ia;

	memset(p, 0, sizeof(*p));
	p->cq_a = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	p->cq_b = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	if (!p->cq_a || !p->cq_b) {
		logmsg("ERROR: case %s: ibv_create_cq: %s", cur_case, strerror(errno));
		return -1;
	}
	if (with_srq) {
		struct ibv_srq_init_attr sa;

		memset(&sa, 0, sizeof(sa));
		sa.attr.max_wr = 16;
		sa.attr.max_sge = 2;
		p->srq = ibv_create_srq(e->pd, &sa);
		if (!p->srq) {
			logmsg("ERROR: case %s: ibv_create_srq: %s", cur_case,
			       strerror(errno));
			return -1;
		}
	}
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_RC;
	ia.send_cq = p->cq_a;
	ia.recv_cq = p->cq_a;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 2;
	ia.cap.max_inline_data = 64;
	p->a = ibv_create_qp(e->pd, &ia);
	if (!p->a) {
		logmsg("ERROR: case %s: ibv_create_qp: %s", cur_case, strerror(errno));
		return -1;
	}
	p->cap_a = ia.cap;
	ia.send_cq = p->cq_b;
	ia.recv_cq = p->cq_b;
	ia.srq = p->srq;
	if (p->srq)
		ia.cap.max_recv_wr = ia.cap.max_recv_sge = 0;
	p->b = ibv_create_qp(e->pd, &ia);
	if (!p->b) {
		logmsg("ERROR: case %s: ibv_create_qp: %s", cur_case, strerror(errno));
		return -1;
	}
	p->cap_b = ia.cap;
	if (connect_qp(e, p->a, p->b->qp_num) || connect_qp(e, p->b, p->a->qp_num))
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Waiting for what the kernel does                                     */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * Poll cq until a completion with wr_id arrives (its status in *status,
 * return 0) or wait_ms pass (return -1). Other completions are logged;
 * a successful one for a WR the case expects to fail is counted in *bad_ok.
 */
static int wait_wc(struct env *e, struct pair *p, struct ibv_cq *cq,
		   uint64_t wr_id, enum ibv_wc_status *status, int *bad_ok)
{
	long end = now_ms() + wait_ms;
	struct ibv_wc wc;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0) {
			logmsg("case %s: ibv_poll_cq returned %d", cur_case, n);
			return -2;
		}
		if (n == 1) {
			VLOG("completion wr_id 0x%" PRIx64 " status %s qp 0x%x",
			     wc.wr_id, ibv_wc_status_str(wc.status), wc.qp_num);
			if (wc.wr_id == wr_id) {
				*status = wc.status;
				return 0;
			}
			if (wc.status == IBV_WC_SUCCESS && bad_ok)
				(*bad_ok)++;
			continue;
		}
		drain_async(e, p);
		if (now_ms() > end)
			return -1;
		usleep(1000);
	}
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/* Wait until the QP is in ERR (by query or QP_FATAL event); 0 if it is. */
static int wait_qp_err(struct env *e, struct pair *p, struct ibv_qp *qp)
{
	long end = now_ms() + wait_ms;

	for (;;) {
		drain_async(e, p);
		if ((qp == p->a && p->qp_fatal_a) || (qp == p->b && p->qp_fatal_b) ||
		    qp_state(qp) == IBV_QPS_ERR)
			return 0;
		if (now_ms() > end)
			return -1;
		usleep(5000);
	}
}

static int is_local_err(enum ibv_wc_status s)
{
	return s == IBV_WC_LOC_QP_OP_ERR || s == IBV_WC_LOC_LEN_ERR ||
	       s == IBV_WC_LOC_PROT_ERR;
}

static int status_in(enum ibv_wc_status s, const enum ibv_wc_status *ok, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (s == ok[i])
			return 1;
		/* --any-local-error: one local error status stands for another. */
		if (any_local_err && is_local_err(s) && is_local_err(ok[i])) {
			logmsg("case %s: note: %s where the MetaRoCE spec requires %s "
			       "(accepted: --any-local-error)", cur_case,
			       ibv_wc_status_str(s), ibv_wc_status_str(ok[0]));
			return 1;
		}
	}
	return 0;
}

static void status_list(char *buf, size_t len, const enum ibv_wc_status *ok, int n)
{
	size_t o = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " or " : "",
				      ibv_wc_status_str(ok[i]));
}

/* Length of a message b received successfully within ms, else 0. */
static int peer_got(struct env *e, struct pair *p, int ms)
{
	long end = now_ms() + ms;
	struct ibv_wc wc;

	while (now_ms() < end) {
		if (ibv_poll_cq(p->cq_b, 1, &wc) == 1) {
			VLOG("peer completion wr_id 0x%" PRIx64 " status %s len %u",
			     wc.wr_id, ibv_wc_status_str(wc.status), wc.byte_len);
			if (wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV)
				return wc.byte_len ? (int)wc.byte_len : -1;
			continue;
		}
		drain_async(e, p);
		usleep(1000);
	}
	return 0;
}

#define FAIL(...) do { logmsg("FAIL: case " __VA_ARGS__); return 1; } while (0)

/*
 * The requester side of a bad WQE on a's SQ: its completion (wr_id
 * WRID_GARBAGE) carries one of ok[], the valid WR posted behind it
 * (WRID_VALID, when valid_behind) is flushed, and a is in ERR.
 */
static int expect_sq_error(struct env *e, struct pair *p,
			   const enum ibv_wc_status *ok, int nok, int valid_behind)
{
	enum ibv_wc_status st;
	const char *first;
	char want[160];
	int bad_ok = 0, r;

	status_list(want, sizeof(want), ok, nok);
	r = wait_wc(e, p, p->cq_a, WRID_GARBAGE, &st, &bad_ok);
	if (r)
		FAIL("%s: no completion for the bad WQE within %d ms (expected %s)",
		     cur_case, wait_ms, want);
	if (!status_in(st, ok, nok))
		FAIL("%s: the bad WQE completed with %s, expected %s", cur_case,
		     ibv_wc_status_str(st), want);
	first = ibv_wc_status_str(st);
	if (valid_behind) {
		r = wait_wc(e, p, p->cq_a, WRID_VALID, &st, &bad_ok);
		if (r)
			FAIL("%s: the WR behind the bad one was not flushed within %d ms "
			     "(MR-VERBS-25)", cur_case, wait_ms);
		if (st != IBV_WC_WR_FLUSH_ERR)
			FAIL("%s: the WR behind the bad one completed with %s, expected "
			     "WR_FLUSH_ERR", cur_case, ibv_wc_status_str(st));
	}
	if (bad_ok)
		FAIL("%s: %d unexpected successful completion(s)", cur_case, bad_ok);
	if (wait_qp_err(e, p, p->a))
		FAIL("%s: QP not in the error state after the bad WQE", cur_case);
	/*
	 * Nothing from the bad WQE reached the peer: a message sent from it
	 * (say, read from outside the MR) would have completed b's receive
	 * by now. The 16-byte valid WR behind it may have gone out before
	 * the error was found (a READ's local SGE is checked when its
	 * response arrives), although it completes here as flushed: noted.
	 */
	r = peer_got(e, p, 300);
	if (r != 0 && r != VALID_LEN)
		FAIL("%s: the peer received %d bytes from the bad WQE", cur_case, r);
	if (r == VALID_LEN)
		logmsg("case %s: note: the valid WR behind the bad one reached the "
		       "peer, yet completed here with WR_FLUSH_ERR", cur_case);
	logmsg("case %s: ok: %s%s, QP in ERR", cur_case, first,
	       valid_behind ? ", WR_FLUSH_ERR behind it" : "");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Building blocks of the cases                                         */

static uint64_t addr_of(struct env *e, long off)
{
	return (uint64_t)(uintptr_t)(e->base + off);
}

static int post_recv_b(struct env *e, struct pair *p, uint64_t addr,
		       uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = WRID_RECV, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret;

	(void)e;
	ret = p->srq ? ibv_post_srq_recv(p->srq, &wr, &bad) :
		       ibv_post_recv(p->b, &wr, &bad);
	if (ret)
		logmsg("ERROR: case %s: ibv_post_recv: %s", cur_case, strerror(ret));
	return ret;
}

/* One signaled WR with one SGE on qp. */
static int post_send_qp(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
			uint64_t addr, uint32_t len, uint32_t lkey,
			uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr, *bad;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ret = ibv_post_send(qp, &wr, &bad);
	if (ret)
		logmsg("case %s: ibv_post_send: %s", cur_case, strerror(ret));
	return ret;
}

/* One valid signaled WR on a (the doorbell of ring mode). */
static int post_send_a(struct pair *p, uint64_t wr_id, enum ibv_wr_opcode op,
		       uint64_t addr, uint32_t len, uint32_t lkey,
		       uint64_t raddr, uint32_t rkey)
{
	return post_send_qp(p->a, wr_id, op, addr, len, lkey, raddr, rkey);
}

/* A well-formed signaled SEND WQE of len bytes at off in a's SQ slot. */
static struct metaroce_sq_wqe *sq_wqe_send(struct env *e, struct ring_view *v,
					   uint32_t opcode, uint64_t addr,
					   uint32_t len, uint32_t lkey)
{
	struct metaroce_sq_wqe *w = ring_slot(v);

	(void)e;
	w->wr_id = WRID_GARBAGE;
	w->opcode = opcode;
	w->send_flags = METAROCE_SEND_SIGNALED;
	w->num_sge = 1;
	w->sge[0].addr = addr;
	w->sge[0].length = len;
	w->sge[0].lkey = lkey;
	return w;
}

/* ------------------------------------------------------------------ */
/* The cases                                                            */

enum sq_garbage {
	G_OPCODE, G_FLAGS, G_NUM_SGE, G_NUM_SGE_HUGE, G_INLINE, G_INLINE_HUGE,
	G_LKEY, G_OUT_HI, G_OUT_LO, G_READ_OUT, G_REMOTE_OUT,
};

static int case_sq(struct env *e, struct pair *p, int g)
{
	static const enum ibv_wc_status qp_op[] = { IBV_WC_LOC_QP_OP_ERR };
	static const enum ibv_wc_status len_or_op[] = { IBV_WC_LOC_LEN_ERR,
							IBV_WC_LOC_QP_OP_ERR };
	static const enum ibv_wc_status prot[] = { IBV_WC_LOC_PROT_ERR };
	static const enum ibv_wc_status rem[] = { IBV_WC_REM_ACCESS_ERR };
	uint32_t lkey = e->mr->lkey, op = IBV_WR_SEND;
	uint64_t addr = addr_of(e, OFF_SRC), raddr = 0;
	uint32_t len = 256, rkey = 0;
	const enum ibv_wc_status *ok = prot;
	int nok = 1;
	struct metaroce_sq_wqe *w;
	struct ring_view v;

	/* b may receive (it must not: a is failing): a buffer in the MR. */
	if (post_recv_b(e, p, addr_of(e, OFF_RECV), 8192, e->mr->lkey))
		return 2;

	switch (g) {
	case G_LKEY:
		lkey ^= 0x00a5a500;
		break;
	case G_OUT_HI:		/* runs 64 bytes into the canary after the MR */
		addr = addr_of(e, MR_LEN - 192);
		break;
	case G_OUT_LO:		/* starts 64 bytes before the MR */
		addr = addr_of(e, -64);
		break;
	case G_READ_OUT:	/* READ whose response would land past the MR */
		op = IBV_WR_RDMA_READ;
		addr = addr_of(e, MR_LEN - 1024);
		len = 4096;
		raddr = addr_of(e, OFF_SPARE);
		rkey = e->mr->rkey;
		break;
	case G_REMOTE_OUT:	/* WRITE past the end of the peer's MR */
		op = IBV_WR_RDMA_WRITE;
		len = 4096;
		raddr = addr_of(e, MR_LEN - 1024);
		rkey = e->mr->rkey;
		ok = rem;
		break;
	default:
		break;
	}

	if (!e->ring) {
		struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
		struct ibv_send_wr wr, *bad;
		int ret;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = WRID_GARBAGE;
		wr.opcode = op;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
		ret = ibv_post_send(p->a, &wr, &bad);
		if (ret)
			FAIL("%s: ibv_post_send: %s", cur_case, strerror(ret));
		if (post_send_a(p, WRID_VALID, IBV_WR_SEND, addr_of(e, OFF_SRC),
				VALID_LEN, e->mr->lkey, 0, 0))
			return 1;
		return expect_sq_error(e, p, ok, nok, 1);
	}

	if (sq_view(p->a, &v))
		return 2;
	w = sq_wqe_send(e, &v, op, addr, len, lkey);
	if (op != IBV_WR_SEND) {
		w->wr.rdma.remote_addr = raddr;
		w->wr.rdma.rkey = rkey;
	}
	switch (g) {
	case G_OPCODE:
		w->opcode = 0xdead;
		ok = qp_op;
		break;
	case G_FLAGS:
		w->send_flags |= 0x80000000u;
		ok = qp_op;
		break;
	case G_NUM_SGE:
		w->num_sge = p->cap_a.max_send_sge + 1;
		ok = len_or_op;
		nok = 2;
		break;
	case G_NUM_SGE_HUGE:
		w->num_sge = 0xffffffffu;
		ok = len_or_op;
		nok = 2;
		break;
	case G_INLINE:
		w->send_flags |= METAROCE_SEND_INLINE;
		w->num_sge = 0;
		w->inline_len = p->cap_a.max_inline_data + 1;
		ok = len_or_op;
		nok = 2;
		break;
	case G_INLINE_HUGE:
		w->send_flags |= METAROCE_SEND_INLINE;
		w->num_sge = 0;
		w->inline_len = 0x7fffffffu;
		ok = len_or_op;
		nok = 2;
		break;
	default:
		break;
	}
	ring_publish(&v);
	/* The valid WR behind it rings the doorbell (ibv_post_send). */
	if (post_send_a(p, WRID_VALID, IBV_WR_SEND, addr_of(e, OFF_SRC),
			VALID_LEN, e->mr->lkey, 0, 0))
		FAIL("%s: the doorbell (ibv_post_send) failed", cur_case);
	return expect_sq_error(e, p, ok, nok, 1);
}

/* Receive side: a bad WQE in b's RQ (or SRQ); a SEND from a must find it. */
enum rq_garbage { R_NUM_SGE, R_NUM_SGE_HUGE, R_LKEY, R_OUT_HI };

static int case_rq(struct env *e, struct pair *p, int g)
{
	static const enum ibv_wc_status len_or_op[] = { IBV_WC_LOC_QP_OP_ERR,
							IBV_WC_LOC_LEN_ERR };
	static const enum ibv_wc_status prot[] = { IBV_WC_LOC_PROT_ERR };
	const enum ibv_wc_status *ok = prot;
	uint64_t addr = addr_of(e, OFF_RECV);
	uint32_t lkey = e->mr->lkey, len = 4096;
	enum ibv_wc_status st;
	int nok = 1, bad_ok = 0, r;
	const char *recv;
	char want[160];

	if (g == R_LKEY)
		lkey ^= 0x00a5a500;
	if (g == R_OUT_HI)
		addr = addr_of(e, MR_LEN - 1024);	/* 3 KiB past the end */
	if (g == R_NUM_SGE || g == R_NUM_SGE_HUGE) {
		ok = len_or_op;
		nok = 2;
	}

	if (!e->ring) {
		if (post_recv_b(e, p, addr, len, lkey))
			return 1;
	} else {
		struct metaroce_rq_wqe *w;
		struct ring_view v;

		if (p->srq ? srq_view(p->srq, &v) : rq_view(p->b, &v))
			return 2;
		w = ring_slot(&v);
		w->wr_id = WRID_RECV;
		w->num_sge = 1;
		w->sge[0].addr = addr;
		w->sge[0].length = len;
		w->sge[0].lkey = lkey;
		if (g == R_NUM_SGE)
			w->num_sge = (p->srq ? 2 : p->cap_b.max_recv_sge) + 1;
		if (g == R_NUM_SGE_HUGE)
			w->num_sge = 0xffffffffu;
		ring_publish(&v);
	}
	if (post_send_a(p, WRID_SEND, IBV_WR_SEND, addr_of(e, OFF_SRC), 4096,
			e->mr->lkey, 0, 0))
		return 1;

	status_list(want, sizeof(want), ok, nok);
	r = wait_wc(e, p, p->cq_b, WRID_RECV, &st, &bad_ok);
	if (r) {
		/* An SRQ WQE the kernel rejects may put the SRQ in error instead. */
		if (!(p->srq && p->srq_err))
			FAIL("%s: no receive completion within %d ms (expected %s)",
			     cur_case, wait_ms, want);
		recv = "IBV_EVENT_SRQ_ERR";
	} else if (!status_in(st, ok, nok)) {
		FAIL("%s: the bad receive WQE completed with %s, expected %s",
		     cur_case, ibv_wc_status_str(st), want);
	} else {
		recv = ibv_wc_status_str(st);
	}
	/* The sender must not see success: its message found no valid buffer. */
	r = wait_wc(e, p, p->cq_a, WRID_SEND, &st, &bad_ok);
	if (r)
		FAIL("%s: the SEND did not complete within %d ms", cur_case, wait_ms);
	if (st == IBV_WC_SUCCESS)
		FAIL("%s: the SEND into a bad receive WQE completed successfully",
		     cur_case);
	if (bad_ok)
		FAIL("%s: %d unexpected successful completion(s)", cur_case, bad_ok);
	if (wait_qp_err(e, p, p->b))
		FAIL("%s: receiving QP not in the error state", cur_case);
	logmsg("case %s: ok: receive %s, sender %s, receiving QP in ERR",
	       cur_case, recv, ibv_wc_status_str(st));
	return 0;
}

/* Tampered producer indices of the queues the kernel consumes. */
enum idx_garbage { I_SQ_JUMP, I_SQ_BACK, I_RQ_JUMP, I_SRQ_JUMP };

static int case_idx(struct env *e, struct pair *p, int g)
{
	struct ring_view v;
	enum ibv_wc_status st;
	int bad_ok = 0, saved, r;

	if (g == I_SQ_JUMP || g == I_SQ_BACK) {
		if (post_recv_b(e, p, addr_of(e, OFF_RECV), 8192, e->mr->lkey))
			return 2;
		if (sq_view(p->a, &v))
			return 2;
		/* prod - kcons > entries: the queue is corrupt. */
		__atomic_store_n(&v.hdr->prod,
				 g == I_SQ_JUMP ? *v.idx + v.entries + 3 : *v.idx - 1,
				 __ATOMIC_RELEASE);
		if (sq_doorbell(p->a))
			VLOG("doorbell returned an error (fine: the ring is corrupt)");
		if (wait_qp_err(e, p, p->a))
			FAIL("%s: QP not in the error state after SQ prod %s",
			     cur_case, g == I_SQ_JUMP ? "jumped past the ring" :
			     "moved backwards");
		/* Nothing may have been sent: b's receive stays unused. */
		saved = wait_ms;
		wait_ms = 1000;
		r = wait_wc(e, p, p->cq_b, WRID_RECV, &st, &bad_ok);
		wait_ms = saved;
		if (r == 0 && st == IBV_WC_SUCCESS)
			FAIL("%s: a stale SQ slot was sent and received", cur_case);
		if (bad_ok)
			FAIL("%s: %d unexpected successful completion(s)", cur_case,
			     bad_ok);
		logmsg("case %s: ok: QP in ERR, nothing sent", cur_case);
		return 0;
	}

	if (p->srq ? srq_view(p->srq, &v) : rq_view(p->b, &v))
		return 2;
	__atomic_store_n(&v.hdr->prod, *v.idx + v.entries + 1, __ATOMIC_RELEASE);
	if (post_send_a(p, WRID_SEND, IBV_WR_SEND, addr_of(e, OFF_SRC), 256,
			e->mr->lkey, 0, 0))
		return 1;
	if (wait_wc(e, p, p->cq_a, WRID_SEND, &st, &bad_ok))
		FAIL("%s: the SEND did not complete within %d ms", cur_case, wait_ms);
	if (st == IBV_WC_SUCCESS)
		FAIL("%s: a SEND was received through a corrupt %s", cur_case,
		     p->srq ? "SRQ" : "RQ");
	drain_async(e, p);
	if (p->srq) {
		if (!p->srq_err && wait_qp_err(e, p, p->b))
			FAIL("%s: neither SRQ error event nor QP error after SRQ prod "
			     "jumped past the ring", cur_case);
	} else if (wait_qp_err(e, p, p->b)) {
		FAIL("%s: receiving QP not in the error state after RQ prod jumped "
		     "past the ring", cur_case);
	}
	if (bad_ok)
		FAIL("%s: %d unexpected successful completion(s)", cur_case, bad_ok);
	logmsg("case %s: ok: sender %s, receiver in error%s", cur_case,
	       ibv_wc_status_str(st), p->srq_err ? " (IBV_EVENT_SRQ_ERR)" : "");
	return 0;
}

/*
 * A SEND written into an SQ ring and the doorbell rung while its QP is in
 * INIT, the provider refusing such a post: only a process writing the
 * ring reaches the kernel with it. Nothing may happen before RTS (no
 * completion, the QP stays in INIT, no oops: the harness checks the
 * kernel log). Returns 0 when nothing happened.
 */
static int early_doorbell(struct env *e, struct pair *p, struct ibv_qp *qp,
			  struct ibv_cq *cq)
{
	struct ibv_qp_attr a;
	enum ibv_wc_status st;
	struct ring_view v;
	struct metaroce_sq_wqe *w;
	int bad_ok = 0, saved, r;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
	if (modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_ACCESS_FLAGS, "INIT"))
		return 2;
	if (sq_view(qp, &v))
		return 2;
	w = sq_wqe_send(e, &v, METAROCE_WR_SEND, addr_of(e, OFF_SRC), 256,
			e->mr->lkey);
	w->wr_id = WRID_SEND;
	ring_publish(&v);
	if (sq_doorbell(qp))
		VLOG("doorbell before RTS returned an error (fine)");
	saved = wait_ms;
	wait_ms = 500;
	r = wait_wc(e, p, cq, WRID_SEND, &st, &bad_ok);
	wait_ms = saved;
	if (r == 0)
		FAIL("%s: the SEND completed (%s) with its QP in INIT", cur_case,
		     ibv_wc_status_str(st));
	if (r != -1)
		return 2;
	if (qp_state(qp) != IBV_QPS_INIT)
		FAIL("%s: the doorbell moved the QP out of INIT (state %d)",
		     cur_case, qp_state(qp));
	return 0;
}

enum early_kind { E_FRESH, E_AFTER_RTS };

/*
 * The doorbell before RTS: on a QP that never was in RTS (E_FRESH: the
 * requester has no state at all), and on a after a life in RTS (RTS,
 * ERR, RESET, INIT), whose WQE the kernel must then take at RTS: sent
 * and received.
 */
static int case_early(struct env *e, struct pair *p, int g)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp_init_attr ia;
	enum ibv_wc_status st;
	struct ibv_qp *c;
	int bad_ok = 0, r;

	if (g == E_FRESH) {
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = IBV_QPT_RC;
		ia.send_cq = p->cq_a;
		ia.recv_cq = p->cq_a;
		ia.cap = p->cap_a;
		c = ibv_create_qp(e->pd, &ia);
		if (!c) {
			logmsg("ERROR: case %s: ibv_create_qp: %s", cur_case,
			       strerror(errno));
			return 2;
		}
		r = early_doorbell(e, p, c, p->cq_a);
		if (ibv_destroy_qp(c)) {
			logmsg("ERROR: case %s: ibv_destroy_qp", cur_case);
			return 2;
		}
		if (!r)
			logmsg("case %s: ok: nothing before RTS", cur_case);
		return r;
	}

	if (modify(p->a, &a, IBV_QP_STATE, "ERR") ||
	    modify(p->b, &a, IBV_QP_STATE, "ERR"))
		return 2;
	a.qp_state = IBV_QPS_RESET;
	if (modify(p->a, &a, IBV_QP_STATE, "RESET") ||
	    modify(p->b, &a, IBV_QP_STATE, "RESET"))
		return 2;
	r = early_doorbell(e, p, p->a, p->cq_a);
	if (r)
		return r;
	/* Connected again, b first: at a's RTS the WQE goes out. */
	if (connect_qp(e, p->b, p->a->qp_num) ||
	    post_recv_b(e, p, addr_of(e, OFF_RECV), 8192, e->mr->lkey) ||
	    connect_qp(e, p->a, p->b->qp_num))
		return 2;
	if (wait_wc(e, p, p->cq_a, WRID_SEND, &st, &bad_ok))
		FAIL("%s: the SEND written before RTS did not complete at RTS "
		     "within %d ms", cur_case, wait_ms);
	if (st != IBV_WC_SUCCESS)
		FAIL("%s: the SEND written before RTS completed with %s at RTS",
		     cur_case, ibv_wc_status_str(st));
	if (wait_wc(e, p, p->cq_b, WRID_RECV, &st, &bad_ok) ||
	    st != IBV_WC_SUCCESS)
		FAIL("%s: the SEND written before RTS was not received", cur_case);
	if (bad_ok)
		FAIL("%s: %d unexpected successful completion(s)", cur_case, bad_ok);
	logmsg("case %s: ok: nothing before RTS, sent and received at RTS",
	       cur_case);
	return 0;
}

/* The consumer index of a's CQ tampered with, then a completion is due. */
enum cq_garbage { C_AHEAD, C_BACK };

static int case_cq(struct env *e, struct pair *p, int g)
{
	struct ring_view v;
	uint32_t prod;
	long end;

	if (post_recv_b(e, p, addr_of(e, OFF_RECV), 8192, e->mr->lkey))
		return 2;
	if (cq_view(p->cq_a, &v))
		return 2;
	prod = __atomic_load_n(&v.hdr->prod, __ATOMIC_ACQUIRE);
	__atomic_store_n(&v.hdr->cons,
			 g == C_AHEAD ? prod + 5 : prod - v.entries - 1,
			 __ATOMIC_RELEASE);
	if (post_send_a(p, WRID_SEND, IBV_WR_SEND, addr_of(e, OFF_SRC), 256,
			e->mr->lkey, 0, 0))
		return 1;
	end = now_ms() + wait_ms;
	while (!p->cq_err_a && now_ms() < end) {
		struct ibv_wc wc;

		drain_async(e, p);
		/* Polling must not crash or report garbage either. */
		if (ibv_poll_cq(p->cq_a, 1, &wc) == 1)
			VLOG("completion wr_id 0x%" PRIx64 " status %s", wc.wr_id,
			     ibv_wc_status_str(wc.status));
		usleep(2000);
	}
	if (!p->cq_err_a)
		FAIL("%s: no IBV_EVENT_CQ_ERR within %d ms after CQ cons moved %s "
		     "(ring kflags 0x%x)", cur_case, wait_ms,
		     g == C_AHEAD ? "ahead of prod" : "back past the ring",
		     __atomic_load_n(&v.hdr->kflags, __ATOMIC_ACQUIRE));
	logmsg("case %s: ok: IBV_EVENT_CQ_ERR%s", cur_case,
	       (__atomic_load_n(&v.hdr->kflags, __ATOMIC_ACQUIRE) &
		METAROCE_RING_F_CQ_ERR) ? ", kflags CQ_ERR" : "");
	return 0;
}

/*
 * Memory windows (MR-MW-2, MR-MW-3): a BIND_MW WQE naming a window or an
 * MR the QP may not use, or a range outside the MR, written into a's SQ
 * ring, completes with MW_BIND_ERR and moves a to ERR; a good bind
 * gives b a window into a's memory and nothing beyond it.
 */
enum bind_garbage {
	B_MW, B_NEW_KEY, B_MR, B_MR_IS_MW, B_PAST_MR, B_BEFORE_MR, B_LEN_HUGE,
	B_MW_PD, B_MR_PD, B_ZERO_BASED, B_SGE, B_GOOD,
};

static uint32_t next_key(uint32_t rkey)
{
	return (rkey & ~0xffu) | ((rkey + 1) & 0xffu);
}

/* b writes len bytes into a's memory at raddr through rkey: its status. */
static int write_b(struct env *e, struct pair *p, uint64_t wr_id,
		   uint64_t raddr, uint32_t len, uint32_t rkey,
		   enum ibv_wc_status *st)
{
	if (post_send_qp(p->b, wr_id, IBV_WR_RDMA_WRITE, addr_of(e, OFF_SRC),
			 len, e->mr->lkey, raddr, rkey))
		return -1;
	return wait_wc(e, p, p->cq_b, wr_id, st, NULL);
}

/* A good type 2 bind through the verbs API, then b's WRITEs through it. */
static int bind_good(struct env *e, struct pair *p, struct ibv_mw *mw)
{
	struct ibv_send_wr wr, *bad;
	enum ibv_wc_status st;
	uint64_t win = addr_of(e, OFF_DST);
	uint32_t key = next_key(mw->rkey);
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WRID_VALID;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = key;
	wr.bind_mw.bind_info.mr = e->mr;
	wr.bind_mw.bind_info.addr = win;
	wr.bind_mw.bind_info.length = 1024;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	ret = ibv_post_send(p->a, &wr, &bad);
	if (ret)
		FAIL("%s: ibv_post_send(IBV_WR_BIND_MW): %s", cur_case,
		     strerror(ret));
	if (wait_wc(e, p, p->cq_a, WRID_VALID, &st, NULL) ||
	    st != IBV_WC_SUCCESS)
		FAIL("%s: the good bind did not complete successfully", cur_case);
	if (write_b(e, p, WRID_SEND, win + 512, 512, key, &st) ||
	    st != IBV_WC_SUCCESS)
		FAIL("%s: a WRITE inside the window failed", cur_case);
	/* MR-MW-2: past the window (still inside the MR) is refused. */
	if (write_b(e, p, WRID_GARBAGE, win + 1000, 64, key, &st))
		FAIL("%s: no completion for the WRITE past the window", cur_case);
	if (st != IBV_WC_REM_ACCESS_ERR)
		FAIL("%s: a WRITE past the window completed with %s, expected "
		     "REM_ACCESS_ERR", cur_case, ibv_wc_status_str(st));
	/*
	 * MR-MW-7: the MR cannot be reregistered while the window is bound
	 * (nor hang the call: the window holds the MR).
	 */
	errno = 0;
	ret = ibv_rereg_mr(e->mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   MR_ACCESS);
	if (ret != IBV_REREG_MR_ERR_CMD || errno != EBUSY)
		FAIL("%s: ibv_rereg_mr of the MR under a bound window returned "
		     "%d (%s), expected IBV_REREG_MR_ERR_CMD with EBUSY",
		     cur_case, ret, strerror(errno));
	logmsg("case %s: ok: bound, WRITE inside succeeded, past it "
	       "REM_ACCESS_ERR, rereg of its MR EBUSY", cur_case);
	return 0;
}

static int case_bind(struct env *e, struct pair *p, int g)
{
	static const enum ibv_wc_status bind_err[] = { IBV_WC_MW_BIND_ERR };
	static const enum ibv_wc_status qp_op[] = { IBV_WC_LOC_QP_OP_ERR };
	struct metaroce_sq_wqe *w;
	struct ibv_mw *mw;
	struct ring_view v;
	int r;

	mw = ibv_alloc_mw(g == B_MW_PD ? e->pd2 : e->pd, IBV_MW_TYPE_2);
	if (!mw) {
		logmsg("ERROR: case %s: ibv_alloc_mw: %s", cur_case,
		       strerror(errno));
		return 2;
	}
	if (g == B_GOOD) {
		r = bind_good(e, p, mw);
		goto out;
	}
	if (post_recv_b(e, p, addr_of(e, OFF_RECV), 8192, e->mr->lkey) ||
	    sq_view(p->a, &v)) {
		r = 2;
		goto out;
	}
	w = ring_slot(&v);
	w->wr_id = WRID_GARBAGE;
	w->opcode = METAROCE_WR_BIND_MW;
	w->send_flags = METAROCE_SEND_SIGNALED;
	w->wr.bind.addr = addr_of(e, OFF_DST);
	w->wr.bind.length = 1024;
	w->wr.bind.mw_rkey = mw->rkey;
	w->wr.bind.new_rkey = next_key(mw->rkey);
	w->wr.bind.mr_lkey = e->mr->lkey;
	w->wr.bind.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	switch (g) {
	case B_MW:		/* no such window */
		w->wr.bind.mw_rkey ^= 0x00a5a500;
		w->wr.bind.new_rkey ^= 0x00a5a500;
		break;
	case B_NEW_KEY:		/* the new key names the MR, not the window */
		w->wr.bind.new_rkey = e->mr->rkey;
		break;
	case B_MR:
		w->wr.bind.mr_lkey ^= 0x00a5a500;
		break;
	case B_MR_IS_MW:	/* a window is no MR to bind to */
		w->wr.bind.mr_lkey = mw->rkey;
		break;
	case B_PAST_MR:		/* runs 64 bytes into the canary */
		w->wr.bind.addr = addr_of(e, MR_LEN - 960);
		break;
	case B_BEFORE_MR:
		w->wr.bind.addr = addr_of(e, -64);
		break;
	case B_LEN_HUGE:	/* addr + length wraps 2^64 */
		w->wr.bind.length = UINT64_MAX;
		break;
	case B_MR_PD:		/* the same memory, registered in pd2 */
		w->wr.bind.mr_lkey = e->mr2->lkey;
		break;
	case B_ZERO_BASED:
		w->wr.bind.access |= IBV_ACCESS_ZERO_BASED;
		break;
	case B_SGE:		/* a bind carries no data */
		w->num_sge = 1;
		w->sge[0].addr = addr_of(e, OFF_SRC);
		w->sge[0].length = 16;
		w->sge[0].lkey = e->mr->lkey;
		break;
	default:
		break;
	}
	ring_publish(&v);
	if (post_send_a(p, WRID_VALID, IBV_WR_SEND, addr_of(e, OFF_SRC),
			VALID_LEN, e->mr->lkey, 0, 0)) {
		logmsg("FAIL: case %s: the doorbell (ibv_post_send) failed",
		       cur_case);
		r = 1;
		goto out;
	}
	r = expect_sq_error(e, p, g == B_SGE ? qp_op : bind_err, 1, 1);
out:
	if (ibv_dealloc_mw(mw)) {
		logmsg("FAIL: case %s: ibv_dealloc_mw", cur_case);
		r = 1;
	}
	return r;
}

/* ------------------------------------------------------------------ */
/* Memory accounting                                                    */

#define CHARGE_CQS	16

/* memory.current of this process's cgroup (v2), or -1 if unreadable. */
static long long memcg_current(void)
{
	char line[512], path[600];
	long long v = -1;
	FILE *f;

	f = fopen("/proc/self/cgroup", "r");
	if (!f)
		return -1;
	path[0] = 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current",
				 line + 3);
			break;
		}
	fclose(f);
	if (!path[0])
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * A process that makes rings makes the kernel allocate up to 64 Ki slots
 * each; they are charged to its memory cgroup like every other object a
 * verb allocates, or its cgroup's limit would not bound them.  CHARGE_CQS
 * CQs of half the largest size must raise memory.current by at least 90%
 * of the rings' mapped sizes.
 */
static int case_charge(struct env *e, struct pair *p, int g)
{
	struct ibv_cq *cq[CHARGE_CQS];
	struct ibv_device_attr da;
	long long m0, m1;
	size_t rings = 0;
	int i, n = 0, r = 0;

	(void)p;
	(void)g;
	if (ibv_query_device(e->ctx, &da))
		return 2;
	m0 = memcg_current();
	if (m0 < 0) {
		logmsg("FAIL: case %s: memory.current of this process's cgroup is "
		       "not readable: the case needs cgroup v2 with the memory "
		       "controller (metaroce-tamper runs the tool in one)", cur_case);
		return 1;
	}
	for (i = 0; i < CHARGE_CQS; i++) {
		cq[i] = ibv_create_cq(e->ctx, da.max_cqe / 2, NULL, NULL, 0);
		if (!cq[i]) {
			logmsg("FAIL: case %s: ibv_create_cq(%d): %s", cur_case,
			       da.max_cqe / 2, strerror(errno));
			r = 1;
			break;
		}
		n++;
		rings += to_mcq(cq[i])->ring.map_size;
	}
	m1 = memcg_current();
	logmsg("case %s: %d CQs of %d CQEs, %zu bytes of rings; memory.current %lld -> %lld",
	       cur_case, n, da.max_cqe / 2, rings, m0, m1);
	if (!r && m1 - m0 < (long long)(rings / 10 * 9)) {
		logmsg("FAIL: case %s: memory.current rose by %lld bytes for %zu "
		       "bytes of rings: they are not charged to the process's "
		       "memory cgroup", cur_case, m1 - m0, rings);
		r = 1;
	}
	for (i = 0; i < n; i++)
		if (ibv_destroy_cq(cq[i])) {
			logmsg("FAIL: case %s: ibv_destroy_cq", cur_case);
			r = 1;
		}
	return r;
}

struct tcase {
	const char *name;
	int (*run)(struct env *, struct pair *, int);
	int arg;
	int srq;
	int ring_only;
	const char *what;
};

static const struct tcase cases[] = {
	{ "sq-opcode", case_sq, G_OPCODE, 0, 1, "SQ WQE with an unknown opcode" },
	{ "sq-flags", case_sq, G_FLAGS, 0, 1, "SQ WQE with unknown send_flags bits" },
	{ "sq-num-sge", case_sq, G_NUM_SGE, 0, 1, "SQ WQE num_sge = max_send_sge + 1" },
	{ "sq-num-sge-huge", case_sq, G_NUM_SGE_HUGE, 0, 1, "SQ WQE num_sge = 2^32-1" },
	{ "sq-inline-len", case_sq, G_INLINE, 0, 1, "SQ WQE inline_len = max_inline_data + 1" },
	{ "sq-inline-huge", case_sq, G_INLINE_HUGE, 0, 1, "SQ WQE inline_len = 2^31-1" },
	{ "sq-lkey", case_sq, G_LKEY, 0, 0, "SEND with an unknown lkey" },
	{ "sq-sge-past-mr", case_sq, G_OUT_HI, 0, 0, "SEND SGE running past the MR's end" },
	{ "sq-sge-before-mr", case_sq, G_OUT_LO, 0, 0, "SEND SGE starting before the MR" },
	{ "sq-read-past-mr", case_sq, G_READ_OUT, 0, 0, "READ into a local SGE running past the MR" },
	{ "sq-write-remote-past-mr", case_sq, G_REMOTE_OUT, 0, 0, "WRITE past the end of the peer's MR" },
	{ "rq-num-sge", case_rq, R_NUM_SGE, 0, 1, "RQ WQE num_sge = max_recv_sge + 1" },
	{ "rq-num-sge-huge", case_rq, R_NUM_SGE_HUGE, 0, 1, "RQ WQE num_sge = 2^32-1" },
	{ "rq-lkey", case_rq, R_LKEY, 0, 0, "RQ WQE with an unknown lkey" },
	{ "rq-sge-past-mr", case_rq, R_OUT_HI, 0, 0, "RQ WQE SGE running past the MR" },
	{ "srq-num-sge-huge", case_rq, R_NUM_SGE_HUGE, 1, 1, "SRQ WQE num_sge = 2^32-1" },
	{ "srq-lkey", case_rq, R_LKEY, 1, 0, "SRQ WQE with an unknown lkey" },
	{ "srq-sge-past-mr", case_rq, R_OUT_HI, 1, 0, "SRQ WQE SGE running past the MR" },
	{ "sq-prod-jump", case_idx, I_SQ_JUMP, 0, 1, "SQ prod jumped past the ring" },
	{ "sq-prod-back", case_idx, I_SQ_BACK, 0, 1, "SQ prod moved behind cons" },
	{ "sq-before-rts", case_early, E_FRESH, 0, 1, "SEND in the SQ ring, doorbell in INIT" },
	{ "sq-before-rts-again", case_early, E_AFTER_RTS, 0, 1, "the same after RTS, ERR, RESET; sent at RTS" },
	{ "rq-prod-jump", case_idx, I_RQ_JUMP, 0, 1, "RQ prod jumped past the ring" },
	{ "srq-prod-jump", case_idx, I_SRQ_JUMP, 1, 1, "SRQ prod jumped past the ring" },
	{ "cq-cons-ahead", case_cq, C_AHEAD, 0, 1, "CQ cons moved ahead of prod" },
	{ "cq-cons-back", case_cq, C_BACK, 0, 1, "CQ cons moved back past the ring" },
	{ "bind-mw", case_bind, B_MW, 0, 1, "BIND_MW naming no window" },
	{ "bind-new-key", case_bind, B_NEW_KEY, 0, 1, "BIND_MW new rkey of another object" },
	{ "bind-mr", case_bind, B_MR, 0, 1, "BIND_MW with an unknown MR lkey" },
	{ "bind-mr-is-mw", case_bind, B_MR_IS_MW, 0, 1, "BIND_MW to a window as the MR" },
	{ "bind-past-mr", case_bind, B_PAST_MR, 0, 1, "BIND_MW range running past the MR" },
	{ "bind-before-mr", case_bind, B_BEFORE_MR, 0, 1, "BIND_MW range starting before the MR" },
	{ "bind-len-huge", case_bind, B_LEN_HUGE, 0, 1, "BIND_MW length 2^64-1" },
	{ "bind-mw-foreign-pd", case_bind, B_MW_PD, 0, 1, "BIND_MW of a window of another PD" },
	{ "bind-mr-foreign-pd", case_bind, B_MR_PD, 0, 1, "BIND_MW to an MR of another PD" },
	{ "bind-zero-based", case_bind, B_ZERO_BASED, 0, 1, "BIND_MW with IBV_ACCESS_ZERO_BASED" },
	{ "bind-sge", case_bind, B_SGE, 0, 1, "BIND_MW WQE carrying an SGE" },
	{ "bind-good", case_bind, B_GOOD, 0, 1, "type 2 window: WRITE inside, past it, rereg its MR" },
	{ "ring-charge", case_charge, 0, 0, 1, "rings charged to the process's memory cgroup" },
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

static int is_metaroce(const char *dev)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/%s", dev,
		 METAROCE_SYSFS_ABI_ATTR);
	return access(path, R_OK) == 0;
}

static void usage(void)
{
	int i;

	fprintf(stderr,
		"usage: %s -d DEV -g GID_INDEX [--mode ring|verbs] [--case NAME]... "
		"[--skip-case NAME]... [--wait MS] [--any-local-error] [--break-canary-for-test] [-v]\n"
		"cases:\n", prog);
	for (i = 0; i < NCASES; i++)
		fprintf(stderr, "  %-24s %s%s\n", cases[i].name, cases[i].what,
			cases[i].ring_only ? " (ring mode)" : "");
	exit(2);
}

/* Is @name one of the @n @names? */
static bool name_in(const char *const *names, int n, const char *name)
{
	int j;

	for (j = 0; j < n; j++)
		if (!strcmp(names[j], name))
			return true;
	return false;
}

/* Every name in @names is a case's (--case, --skip-case), or usage. */
static void names_check(const char *const *names, int n)
{
	int i, j;

	for (j = 0; j < n; j++) {
		for (i = 0; i < NCASES; i++)
			if (!strcmp(names[j], cases[i].name))
				break;
		if (i == NCASES) {
			fprintf(stderr, "%s: unknown case %s\n", prog, names[j]);
			usage();
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "gid", required_argument, NULL, 'g' },
		{ "mode", required_argument, NULL, 'm' },
		{ "case", required_argument, NULL, 'c' },
		{ "skip-case", required_argument, NULL, 'S' },
		{ "wait", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "any-local-error", no_argument, NULL, 'A' },
		{ "break-canary-for-test", no_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	const char *devname = NULL, *mode = NULL, *only[64], *skipped[64];
	struct ibv_device **list;
	struct ibv_port_attr pa;
	struct env e;
	int nonly = 0, nskip = 0, i, c, pass = 0, fail = 0, skip = 0, flags;
	size_t total;

	memset(&e, 0, sizeof(e));
	e.gid_idx = -1;
	while ((c = getopt_long(argc, argv, "d:g:m:c:S:w:vAB", opts, NULL)) != -1) {
		switch (c) {
		case 'd': devname = optarg; break;
		case 'g': e.gid_idx = atoi(optarg); break;
		case 'm': mode = optarg; break;
		case 'c':
			if (nonly < 64)
				only[nonly++] = optarg;
			break;
		case 'S':
			if (nskip < 64)
				skipped[nskip++] = optarg;
			break;
		case 'w': wait_ms = atoi(optarg); break;
		case 'v': verbose = 1; break;
		case 'A': any_local_err = 1; break;
		case 'B': break_canary = 1; break;
		default: usage();
		}
	}
	if (!devname || e.gid_idx < 0 || optind != argc || wait_ms <= 0)
		usage();
	names_check(only, nonly);
	names_check(skipped, nskip);
	if (!mode)
		mode = is_metaroce(devname) ? "ring" : "verbs";
	if (!strcmp(mode, "ring")) {
		if (!is_metaroce(devname)) {
			logmsg("ERROR: %s is not a metaroce device: ring mode needs one",
			       devname);
			return 2;
		}
		e.ring = 1;
	} else if (strcmp(mode, "verbs")) {
		usage();
	}
	signal(SIGALRM, on_alarm);
	alarm(60);

	list = ibv_get_device_list(NULL);
	if (!list)
		die2("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			break;
	if (!list[i]) {
		logmsg("ERROR: no device %s", devname);
		return 2;
	}
	e.ctx = ibv_open_device(list[i]);
	if (!e.ctx)
		die2("ibv_open_device");
	ibv_free_device_list(list);
	flags = fcntl(e.ctx->async_fd, F_GETFL);
	if (flags < 0 || fcntl(e.ctx->async_fd, F_SETFL, flags | O_NONBLOCK))
		die2("fcntl(async_fd, O_NONBLOCK)");
	if (ibv_query_port(e.ctx, 1, &pa))
		die2("ibv_query_port");
	e.mtu = pa.active_mtu;
	if (ibv_query_gid(e.ctx, 1, e.gid_idx, &e.gid))
		die2("ibv_query_gid");
	e.pd = ibv_alloc_pd(e.ctx);
	if (!e.pd)
		die2("ibv_alloc_pd");
	total = 2 * CANARY_LEN + MR_LEN;
	if (posix_memalign((void **)&e.alloc, 4096, total))
		die2("posix_memalign");
	e.base = e.alloc + CANARY_LEN;
	memset(e.base, 0x11, MR_LEN);
	canaries_fill(&e);
	e.mr = ibv_reg_mr(e.pd, e.base, MR_LEN, MR_ACCESS);
	if (!e.mr)
		die2("ibv_reg_mr");
	e.pd2 = ibv_alloc_pd(e.ctx);
	if (!e.pd2)
		die2("ibv_alloc_pd");
	e.mr2 = ibv_reg_mr(e.pd2, e.base, MR_LEN, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_MW_BIND);
	if (!e.mr2)
		die2("ibv_reg_mr");
	logmsg("%s, %s mode, GID index %d, MR %p..%p between two %d-byte canaries",
	       devname, e.ring ? "ring" : "verbs", e.gid_idx, (void *)e.base,
	       (void *)(e.base + MR_LEN), CANARY_LEN);

	for (i = 0; i < NCASES; i++) {
		const struct tcase *t = &cases[i];
		struct pair p;
		int r;

		if (nonly && !name_in(only, nonly, t->name))
			continue;
		cur_case = t->name;
		if (name_in(skipped, nskip, t->name)) {
			logmsg("case %s: skipped (--skip-case)", t->name);
			skip++;
			continue;
		}
		if (t->ring_only && !e.ring) {
			VLOG("case %s: skipped (ring mode only)", t->name);
			skip++;
			continue;
		}
		alarm((unsigned int)(wait_ms / 1000) * 4 + 30);
		VLOG("case %s: %s", t->name, t->what);
		drain_async(&e, NULL);
		if (pair_create(&e, &p, t->srq)) {
			r = 1;
		} else {
			r = t->run(&e, &p, t->arg);
			if (r == 2) {
				logmsg("FAIL: case %s: could not set it up", t->name);
				r = 1;
			}
		}
		pair_destroy(&p);
		drain_async(&e, NULL);
		/* The tool's proof that it can fail: a byte just before the MR. */
		if (break_canary) {
			e.alloc[CANARY_LEN - 3] ^= 0x40;
			break_canary = 0;
		}
		if (canaries_check(&e))
			r = 1;
		if (r)
			fail++;
		else
			pass++;
	}
	cur_case = "teardown";
	alarm(60);
	if (ibv_dereg_mr(e.mr2) || ibv_dealloc_pd(e.pd2) ||
	    ibv_dereg_mr(e.mr) || ibv_dealloc_pd(e.pd) || ibv_close_device(e.ctx))
		die2("teardown");
	free(e.alloc);
	alarm(0);
	if (fail) {
		logmsg("FAIL: %d of %d cases failed (%s mode)", fail, pass + fail,
		       e.ring ? "ring" : "verbs");
		return 1;
	}
	if (!pass) {
		logmsg("FAIL: no case ran");
		return 1;
	}
	logmsg("PASS: %d cases (%s mode), %d skipped, canaries intact", pass,
	       e.ring ? "ring" : "verbs", skip);
	return 0;
}
