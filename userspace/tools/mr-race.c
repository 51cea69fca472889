// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-race: SMP races between a QP's datapath and its state changes,
 * driven from user space on one device over the port's own GID.
 *
 *   mr-race -d mr0 -g GID_INDEX [--case NAME]... [--time S] [--wait MS]
 *
 * Black-box (libibverbs only). Needs two CPUs to mean anything: the
 * threads that race are pinned to different CPUs when there are two.
 * Each case repeats rounds until --time seconds (default 20) have passed:
 *
 *   rq-flush-race   QP A streams single-packet SENDs (one thread, CPU 0,
 *                   where the loopback's softirq runs the responder) to
 *                   QP B, whose RQ holds NRECV receive WRs with distinct
 *                   wr_ids. After a random number of receive completions
 *                   and a random spin, another thread (CPU 1) moves B to
 *                   ERR. Every posted wr_id must complete exactly once, in
 *                   posting order, the successful ones a prefix and the
 *                   rest IBV_WC_WR_FLUSH_ERR (MR-VERBS-6, MR-VERBS-25);
 *                   a successful one holds its message, a flushed one's
 *                   buffer is untouched; a receive posted afterwards is
 *                   flushed too, once. Then A and B go through RESET back
 *                   to RTS for the next round.
 *   rq-reset-race   the same, B moved to RESET instead: the completions
 *                   seen before are a successful prefix, none appears
 *                   after the transition returned, and the next round
 *                   starts on a sound RQ (no completion before the move).
 *   doorbell-storm  a QP in ERR; three threads refill its SQ and RQ
 *                   rings in batches and ring the doorbells (every
 *                   ibv_post_send, every ibv_post_recv in ERR) as fast as
 *                   they can, each timing its own post calls. No call may
 *                   take a quarter of --time (a doorbell flushes a bounded
 *                   amount, the rest goes to the kernel's work item);
 *                   every WR completes once, flushed, in each thread's
 *                   posting order (MR-VERBS-25).
 *
 * Every wait is bounded (--wait, default 10000 ms) and a watchdog (alarm)
 * turns a hang into a failure naming the case. --storm-threads,
 * --storm-queue, --storm-batch and --storm-sq-only change doorbell-storm's
 * shape (README.md).
 *
 * Exit status: 0 every case passed ("mr-race: PASS: ..."), 1 a case
 * failed ("mr-race: FAIL: case NAME: ..."), 2 usage or set-up error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define NRECV		256	/* receive WRs per round (rq-*-race) */
#define SEND_WIN	16	/* SENDs in flight on A */
#define KMAX		48	/* B moves after 0..KMAX-1 receive completions */
#define SPIN_MAX_US	300	/* and a random spin of 0..SPIN_MAX_US */
#define WRID_LATE	0xfeedULL	/* the receive posted after the flush */

#define MAX_POSTERS	8	/* doorbell-storm posters, at most */
#define STORM_BATCH_MAX	1024
#define STORM_CQ	32768

/* doorbell-storm's shape (--storm-*): posters, ring sizes, WRs per call. */
static int storm_threads = 3;
static int storm_queue = 256;
static int storm_batch = 64;
static int storm_rq = 1;	/* refill the RQ too */

static const char *prog = "mr-race";
static int verbose;
static int wait_ms = 10000;
static int time_s = 20;
static int ncpu;
static const char *volatile cur_case = "set-up";

/* One line on stdout, "mr-race: ...", flushed (the scenario reads it). */
static void logmsg(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("%s: %s\n", prog, line);
	fflush(stdout);
}

#define VLOG(...) ((void)(verbose && (logmsg(__VA_ARGS__), 1)))

/* A set-up step failed: exit status 2, with errno's word. */
static void die2(const char *what)
{
	int err = errno;

	logmsg("ERROR: %s failed (%s)", what, strerror(err));
	exit(2);
}

/*
 * The watchdog: a hang is a failure naming the case. Only async-signal-
 * safe calls; a thread stuck in the kernel keeps the process until it
 * returns, and the scenario's timeout or the kernel's lockup detector
 * reports that.
 */
static void on_alarm(int sig)
{
	static const char head[] = "mr-race: FAIL: case ";
	static const char tail[] = ": hung (watchdog): a wait or a verbs call did not end\n";
	const char *c = cur_case;
	ssize_t w;

	(void)sig;
	w = write(STDOUT_FILENO, head, sizeof(head) - 1);
	w += write(STDOUT_FILENO, c, strlen(c));
	w += write(STDOUT_FILENO, tail, sizeof(tail) - 1);
	(void)w;
	_exit(1);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The calling thread on CPU cpu, or on every CPU for cpu < 0. */
static void pin_cpu(int cpu)
{
	cpu_set_t s;
	int i;

	if (ncpu < 2)
		return;
	CPU_ZERO(&s);
	for (i = 0; i < ncpu && i < CPU_SETSIZE; i++)
		if (cpu < 0 || i == cpu)
			CPU_SET(i, &s);
	if (sched_setaffinity(0, sizeof(s), &s))
		logmsg("warning: cannot pin to CPU %d: %s", cpu, strerror(errno));
}

/* ------------------------------------------------------------------ */
/* Device, QPs                                                          */

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	int gid_idx;
	enum ibv_mtu mtu;
	uint32_t msg_len;	/* one packet: the path MTU */
	uint32_t psn;
};

/* The device by name, its async fd non-blocking, port 1's MTU and GID, a PD. */
static void env_open(struct env *e, const char *name)
{
	struct ibv_device **devs = ibv_get_device_list(NULL);
	struct ibv_port_attr port;
	int k;

	for (k = 0; devs && devs[k] && !e->ctx; k++)
		if (strcmp(ibv_get_device_name(devs[k]), name) == 0)
			e->ctx = ibv_open_device(devs[k]);
	if (devs)
		ibv_free_device_list(devs);
	if (!e->ctx) {
		logmsg("ERROR: cannot open device %s", name);
		exit(2);
	}
	k = fcntl(e->ctx->async_fd, F_GETFL);
	if (k == -1 || fcntl(e->ctx->async_fd, F_SETFL, k | O_NONBLOCK) == -1)
		die2("async_fd O_NONBLOCK");
	if (ibv_query_port(e->ctx, 1, &port) ||
	    ibv_query_gid(e->ctx, 1, e->gid_idx, &e->gid))
		die2("ibv_query_port/ibv_query_gid");
	e->mtu = port.active_mtu;
	e->msg_len = 128U << e->mtu;	/* IBV_MTU_256 is 1 */
	e->pd = ibv_alloc_pd(e->ctx);
	if (!e->pd)
		die2("ibv_alloc_pd");
}

static int modify_state(struct ibv_qp *qp, enum ibv_qp_state st)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = st;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (ret)
		logmsg("ERROR: case %s: ibv_modify_qp to state %d: %s", cur_case,
		       (int)st, strerror(ret));
	return ret;
}

/* RESET -> RTS, connected to dqpn on this port and GID; a new PSN each time. */
static int to_rts(struct env *e, struct ibv_qp *qp, uint32_t dqpn, uint32_t psn)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (!ret) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = e->mtu;
		a.dest_qp_num = dqpn;
		a.rq_psn = psn;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = e->gid;
		a.ah_attr.grh.sgid_index = (uint8_t)e->gid_idx;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	}
	if (!ret) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 12;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.sq_psn = psn;
		a.max_rd_atomic = 1;
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	}
	if (ret)
		logmsg("ERROR: case %s: QP %u to RTS: %s", cur_case, qp->qp_num,
		       strerror(ret));
	return ret;
}

static struct ibv_qp *rc_qp(struct env *e, struct ibv_cq *cq, uint32_t sq,
			    uint32_t rq)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = sq;
	ia.cap.max_recv_wr = rq;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(e->pd, &ia);
	if (!qp)
		logmsg("ERROR: case %s: ibv_create_qp: %s", cur_case, strerror(errno));
	return qp;
}

/*
 * Asynchronous events since the last call: none is expected in these
 * cases (a QP moved to ERR by modify_qp raises none), so any QP or CQ
 * error event is a failure. Returns the number of error events.
 */
static int async_errors(struct env *e)
{
	struct ibv_async_event ev;
	int bad = 0;

	while (!ibv_get_async_event(e->ctx, &ev)) {
		switch (ev.event_type) {
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
			logmsg("FAIL: case %s: asynchronous event %s on QP %u",
			       cur_case, ibv_event_type_str(ev.event_type),
			       ev.element.qp->qp_num);
			bad++;
			break;
		case IBV_EVENT_CQ_ERR:
			logmsg("FAIL: case %s: asynchronous event %s", cur_case,
			       ibv_event_type_str(ev.event_type));
			bad++;
			break;
		default:
			VLOG("case %s: event %s", cur_case,
			     ibv_event_type_str(ev.event_type));
			break;
		}
		ibv_ack_async_event(&ev);
	}
	return bad;
}

/* ------------------------------------------------------------------ */
/* rq-flush-race, rq-reset-race                                         */

struct rq_race {
	struct env *e;
	bool reset;		/* B goes to RESET, not ERR */
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	uint8_t *src;		/* A's messages: NRECV x msg_len */
	uint8_t *dst;		/* B's receive buffers: NRECV x msg_len */
	uint32_t round;
	uint32_t k;		/* receive completions before B moves */
	_Atomic int stop;	/* B has moved: the sender stops */
	_Atomic int sender_err;
	uint32_t posted;	/* SENDs A posted this round */
	uint32_t a_done;	/* A's completions polled */
	/* what B's CQ gave this round */
	int nwc;
	struct ibv_wc wc[NRECV + 8];
	/* totals */
	uint64_t succ, flushed, rounds, mid_flush;
};

static uint8_t pattern(uint32_t round, uint32_t i, uint32_t off)
{
	return (uint8_t)(round * 131 + i * 7 + off * 13 + 1) | 1;
}

/* A's thread: SENDs of one packet each, SEND_WIN in flight, until B moves. */
static void *rq_sender(void *arg)
{
	struct rq_race *r = arg;
	uint32_t len = r->e->msg_len;
	struct ibv_wc wc[SEND_WIN];
	int n, i;

	pin_cpu(0);
	while (!r->stop) {
		if (r->posted < NRECV && r->posted - r->a_done < SEND_WIN) {
			struct ibv_sge sge = {
				.addr = (uintptr_t)(r->src + (size_t)r->posted * len),
				.length = len,
				.lkey = r->mr->lkey,
			};
			struct ibv_send_wr wr = {
				.wr_id = r->posted, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_SEND,
				.send_flags = IBV_SEND_SIGNALED,
			}, *bad;

			if (ibv_post_send(r->a, &wr, &bad)) {
				r->sender_err = 1;
				break;
			}
			r->posted++;
		}
		n = ibv_poll_cq(r->cq_a, SEND_WIN, wc);
		if (n < 0) {
			r->sender_err = 2;
			break;
		}
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS && !r->stop)
				r->sender_err = 3;
		r->a_done += (uint32_t)n;
	}
	return NULL;
}

/* Polls cq_b into r->wc until want completions or ms passed. */
static void poll_b(struct rq_race *r, int want, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	int n;

	while (r->nwc < want && now_ns() < end) {
		n = ibv_poll_cq(r->cq_b, NRECV + 8 - r->nwc, r->wc + r->nwc);
		if (n < 0) {
			logmsg("FAIL: case %s: round %u: ibv_poll_cq on B: %d",
			       cur_case, r->round, n);
			r->nwc = -1;
			return;
		}
		r->nwc += n;
		if (r->nwc >= NRECV + 8)
			return;
	}
}

static int rq_fail(struct rq_race *r, const char *fmt, ...)
{
	char buf[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	logmsg("FAIL: case %s: round %" PRIu64 " (B to %s after %u receive completions): %s",
	       cur_case, r->rounds + 1, r->reset ? "RESET" : "ERR",
	       r->k, buf);
	return 1;
}

/* Which of this round's messages a receive buffer holds, if one, as text. */
static const char *whose(const struct rq_race *r, const uint8_t *buf)
{
	static char text[64];
	uint32_t j, off;

	for (j = 0; j < NRECV; j++) {
		for (off = 0; off < r->e->msg_len; off++)
			if (buf[off] != pattern(r->round, j, off))
				break;
		if (off == r->e->msg_len) {
			snprintf(text, sizeof(text), " (it holds message %u)", j);
			return text;
		}
	}
	return "";
}

/*
 * Completions 0..n-1 of B: wr_id i for the i-th, successful ones first,
 * then only flushed ones (ERR), or only successful ones (RESET); a
 * successful one with its message, a flushed one's buffer untouched.
 */
static int rq_check(struct rq_race *r, int n, int *nsucc)
{
	uint32_t len = r->e->msg_len, off;
	uint64_t want;
	int i, s = 0;

	for (i = 0; i < n; i++) {
		const struct ibv_wc *w = &r->wc[i];

		want = (uint64_t)r->round << 32 | (uint32_t)i;
		if (w->wr_id != want)
			return rq_fail(r, "completion %d has wr_id 0x%" PRIx64
				       " (%s), want 0x%" PRIx64 ": not in posting order, stale or repeated (MR-VERBS-6, MR-VERBS-25)",
				       i, (uint64_t)w->wr_id,
				       ibv_wc_status_str(w->status), want);
		if (w->qp_num != r->b->qp_num)
			return rq_fail(r, "completion %d for QP %u, not B (%u)",
				       i, w->qp_num, r->b->qp_num);
		if (w->status == IBV_WC_SUCCESS) {
			if (s != i)
				return rq_fail(r, "completion %d SUCCESS after %d flushed: a message completed after the flush began (MR-VERBS-25)",
					       i, i - s);
			if (w->opcode != IBV_WC_RECV || w->byte_len != len)
				return rq_fail(r, "completion %d: opcode %d byte_len %u, want RECV %u",
					       i, w->opcode, w->byte_len, len);
			s++;
			continue;
		}
		if (w->status != IBV_WC_WR_FLUSH_ERR || r->reset)
			return rq_fail(r, "completion %d: status %s", i,
				       ibv_wc_status_str(w->status));
	}
	for (i = 0; i < n; i++) {
		const uint8_t *buf = r->dst + (size_t)i * len;

		for (off = 0; off < len; off++) {
			uint8_t want_b = i < s ? pattern(r->round, i, off) : 0;

			if (buf[off] != want_b)
				return rq_fail(r, "receive buffer %d (%s) byte %u is 0x%02x, want 0x%02x%s%s",
					       i, i < s ? "SUCCESS" : "flushed",
					       off, buf[off], want_b,
					       whose(r, buf),
					       i < s ? "" : ": data placed into a buffer completed as flushed");
		}
	}
	*nsucc = s;
	return 0;
}

/* A to ERR and every SEND it posted completed (any status). */
static int rq_drain_a(struct rq_race *r)
{
	struct ibv_wc wc[SEND_WIN];
	int64_t end;
	int n;

	if (modify_state(r->a, IBV_QPS_ERR))
		return 2;
	end = now_ns() + (int64_t)wait_ms * 1000000;
	while (r->a_done < r->posted) {
		n = ibv_poll_cq(r->cq_a, SEND_WIN, wc);
		if (n < 0)
			return rq_fail(r, "ibv_poll_cq on A: %d", n);
		r->a_done += (uint32_t)n;
		if (now_ns() > end)
			return rq_fail(r, "A: %u of %u SENDs completed after %d ms in ERR",
				       r->a_done, r->posted, wait_ms);
	}
	return 0;
}

static int rq_round(struct rq_race *r)
{
	struct env *e = r->e;
	uint32_t len = e->msg_len, i, k;
	int64_t spin_end;
	pthread_t th;
	int ret, s = 0;

	r->round++;
	k = (uint32_t)(random() % KMAX);
	r->k = k;
	e->psn = (e->psn + 4099) & 0xffffff;
	if (to_rts(e, r->a, r->b->qp_num, e->psn) ||
	    to_rts(e, r->b, r->a->qp_num, e->psn))
		return 2;
	memset(r->dst, 0, (size_t)NRECV * len);
	for (i = 0; i < NRECV; i++) {
		uint32_t off;
		uint8_t *p = r->src + (size_t)i * len;

		for (off = 0; off < len; off++)
			p[off] = pattern(r->round, i, off);
	}
	for (i = 0; i < NRECV; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(r->dst + (size_t)i * len),
			.length = len, .lkey = r->mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = (uint64_t)r->round << 32 | i,
			.sg_list = &sge, .num_sge = 1,
		}, *bad;

		ret = ibv_post_recv(r->b, &wr, &bad);
		/*
		 * B's RQ holds NRECV + 1: a refusal means the ring's indices
		 * went wrong, as when a completion outran the last reset and
		 * the kernel's consumer index passed the producer's.
		 */
		if (ret)
			return rq_fail(r, "ibv_post_recv of receive %u on B, fresh from RESET: %s",
				       i, strerror(ret));
	}
	r->stop = 0;
	r->sender_err = 0;
	r->posted = r->a_done = 0;
	r->nwc = 0;
	if (pthread_create(&th, NULL, rq_sender, r)) {
		logmsg("ERROR: pthread_create");
		return 2;
	}
	/* B's side, on the other CPU: k receive completions, a spin, the move. */
	poll_b(r, (int)k, wait_ms);
	spin_end = now_ns() + (random() % (SPIN_MAX_US + 1)) * 1000;
	while (now_ns() < spin_end)
		;
	ret = modify_state(r->b, r->reset ? IBV_QPS_RESET : IBV_QPS_ERR);
	r->stop = 1;
	pthread_join(th, NULL);
	if (ret)
		return 2;
	if (r->nwc < 0)
		return 1;
	if ((uint32_t)r->nwc < k)
		return rq_fail(r, "only %d of the %u receive completions before the move within %d ms",
			       r->nwc, k, wait_ms);
	if (r->sender_err)
		return rq_fail(r, "A's SENDs failed before B moved (error %d)",
			       r->sender_err);
	if (r->reset) {
		int before = r->nwc;

		/* Completions before the move: a successful prefix. */
		if (rq_check(r, before, &s))
			return 1;
		/* None after: RESET makes none, and drops the rest. */
		ret = rq_drain_a(r);
		if (ret)
			return ret;
		poll_b(r, before + 1, 20);
		if (r->nwc > before)
			return rq_fail(r, "a completion (wr_id 0x%" PRIx64 ", %s) after the move to RESET returned",
				       (uint64_t)r->wc[before].wr_id,
				       ibv_wc_status_str(r->wc[before].status));
	} else {
		struct ibv_sge sge = {
			.addr = (uintptr_t)r->dst, .length = len,
			.lkey = r->mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = WRID_LATE, .sg_list = &sge, .num_sge = 1,
		}, *bad;

		/* Every posted receive completes, within the wait. */
		poll_b(r, NRECV, wait_ms);
		if (r->nwc < 0)
			return 1;
		if (r->nwc < NRECV)
			return rq_fail(r, "%d of %d receive WRs completed %d ms after the move to ERR",
				       r->nwc, NRECV, wait_ms);
		ret = rq_drain_a(r);
		if (ret)
			return ret;
		/* A late message or a second completion would show now. */
		poll_b(r, NRECV + 1, 20);
		if (rq_check(r, NRECV, &s))
			return 1;
		if (r->nwc > NRECV)
			return rq_fail(r, "an extra completion after all %d: wr_id 0x%" PRIx64 " %s (MR-VERBS-25)",
				       NRECV, (uint64_t)r->wc[NRECV].wr_id,
				       ibv_wc_status_str(r->wc[NRECV].status));
		/* A receive posted in ERR: flushed, once, after the rest. */
		ret = ibv_post_recv(r->b, &wr, &bad);
		if (ret)
			return rq_fail(r, "ibv_post_recv in ERR: %s", strerror(ret));
		poll_b(r, NRECV + 1, wait_ms);
		if (r->nwc <= NRECV)
			return rq_fail(r, "the receive posted in ERR did not complete within %d ms",
				       wait_ms);
		if (r->wc[NRECV].wr_id != WRID_LATE ||
		    r->wc[NRECV].status != IBV_WC_WR_FLUSH_ERR)
			return rq_fail(r, "the receive posted in ERR completed as wr_id 0x%" PRIx64 " %s",
				       (uint64_t)r->wc[NRECV].wr_id,
				       ibv_wc_status_str(r->wc[NRECV].status));
		poll_b(r, NRECV + 2, 20);
		if (r->nwc > NRECV + 1)
			return rq_fail(r, "a completion after the flush of the receive posted in ERR: wr_id 0x%" PRIx64 " %s",
				       (uint64_t)r->wc[NRECV + 1].wr_id,
				       ibv_wc_status_str(r->wc[NRECV + 1].status));
	}
	if (r->posted > (uint32_t)s)
		r->mid_flush++;	/* SENDs in flight when B moved */
	if (async_errors(e))
		return rq_fail(r, "an asynchronous error event");
	r->succ += (uint64_t)s;
	r->flushed += r->reset ? 0 : (uint64_t)(NRECV - s);
	if (modify_state(r->a, IBV_QPS_RESET) ||
	    (!r->reset && modify_state(r->b, IBV_QPS_RESET)))
		return 2;
	r->rounds++;
	VLOG("case %s: round %" PRIu64 ": k %u, %d successful", cur_case,
	     r->rounds, k, s);
	return 0;
}

static int case_rq_race(struct env *e, bool reset)
{
	struct rq_race *r;
	size_t bytes = (size_t)2 * NRECV * e->msg_len;
	int64_t end;
	int ret = 0;

	r = calloc(1, sizeof(*r));
	if (!r)
		die2("calloc");
	r->e = e;
	r->reset = reset;
	if (posix_memalign((void **)&r->src, 4096, bytes))
		die2("posix_memalign");
	r->dst = r->src + (size_t)NRECV * e->msg_len;
	r->mr = ibv_reg_mr(e->pd, r->src, bytes, IBV_ACCESS_LOCAL_WRITE);
	r->cq_a = ibv_create_cq(e->ctx, 2 * SEND_WIN, NULL, NULL, 0);
	r->cq_b = ibv_create_cq(e->ctx, NRECV + 8, NULL, NULL, 0);
	if (!r->mr || !r->cq_a || !r->cq_b)
		die2("ibv_reg_mr/ibv_create_cq");
	r->a = rc_qp(e, r->cq_a, SEND_WIN, 1);
	r->b = rc_qp(e, r->cq_b, 1, NRECV + 1);
	if (!r->a || !r->b)
		return 2;
	/* B's thread, this one, on CPU 1; A's sender and the softirq on 0. */
	pin_cpu(1);
	end = now_ns() + (int64_t)time_s * 1000000000;
	while (!ret && now_ns() < end) {
		alarm((unsigned int)(wait_ms / 1000) * 4 + 30);
		ret = rq_round(r);
	}
	alarm((unsigned int)(wait_ms / 1000) * 4 + 30);
	pin_cpu(-1);
	if (!ret && !r->rounds)
		ret = rq_fail(r, "no round ran");
	if (!ret)
		logmsg("case %s: ok: %" PRIu64 " rounds of %d receive WRs, %d-byte SENDs; %" PRIu64 " completed successfully, %" PRIu64 " flushed; %" PRIu64 " rounds moved with SENDs in flight",
		       cur_case, r->rounds, NRECV, e->msg_len, r->succ,
		       r->flushed, r->mid_flush);
	if (ibv_destroy_qp(r->a) || ibv_destroy_qp(r->b) ||
	    ibv_destroy_cq(r->cq_a) || ibv_destroy_cq(r->cq_b) ||
	    ibv_dereg_mr(r->mr)) {
		logmsg("ERROR: case %s: teardown", cur_case);
		ret = ret ? ret : 2;
	}
	free(r->src);
	free(r);
	return ret;
}

static int case_rq_flush(struct env *e)
{
	return case_rq_race(e, false);
}

static int case_rq_reset(struct env *e)
{
	return case_rq_race(e, true);
}

/* ------------------------------------------------------------------ */
/* doorbell-storm                                                       */

struct storm;

struct poster {
	struct storm *s;
	int id;
	uint64_t next[2];	/* next sequence number to post: SQ, RQ */
	uint64_t want[2];	/* next to complete */
	int64_t max_ns;		/* longest post call */
	uint64_t slow;		/* post calls of 100 ms or more */
	uint64_t calls;
};

struct storm {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	pthread_mutex_t poll_lock;
	int room;		/* CQ entries not promised to a posted WR */
	_Atomic int stop;
	_Atomic int failed;
	struct poster p[MAX_POSTERS];
	char why[300];
};

#define WRID(t, q, seq)	((uint64_t)(t) << 56 | (uint64_t)(q) << 48 | (seq))

static void storm_fail(struct storm *s, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&s->failed, 1, __ATOMIC_SEQ_CST))
		return;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
}

/* Polls what is there; each WR flushed, in its poster's order. */
static int storm_poll(struct storm *s)
{
	struct ibv_wc wc[64];
	int n, i;

	pthread_mutex_lock(&s->poll_lock);
	n = ibv_poll_cq(s->cq, 64, wc);
	for (i = 0; i < n; i++) {
		unsigned int t = (unsigned int)(wc[i].wr_id >> 56);
		unsigned int q = (unsigned int)(wc[i].wr_id >> 48) & 0xff;
		uint64_t seq = wc[i].wr_id & ((1ULL << 48) - 1);

		if (t >= (unsigned int)storm_threads || q > 1 || seq != s->p[t].want[q]) {
			storm_fail(s, "completion wr_id 0x%" PRIx64 " %s: not the next one posted (%s of poster %u want %" PRIu64 ") (MR-VERBS-25)",
				   (uint64_t)wc[i].wr_id,
				   ibv_wc_status_str(wc[i].status),
				   q ? "receive" : "send", t,
				   t < (unsigned int)storm_threads && q <= 1 ? s->p[t].want[q] : 0);
			break;
		}
		if (wc[i].status != IBV_WC_WR_FLUSH_ERR) {
			storm_fail(s, "completion wr_id 0x%" PRIx64 ": %s, want WR_FLUSH_ERR",
				   (uint64_t)wc[i].wr_id,
				   ibv_wc_status_str(wc[i].status));
			break;
		}
		s->p[t].want[q]++;
	}
	pthread_mutex_unlock(&s->poll_lock);
	if (n < 0) {
		storm_fail(s, "ibv_poll_cq: %d", n);
		return 0;
	}
	if (n > 0)
		__atomic_add_fetch(&s->room, n, __ATOMIC_SEQ_CST);
	return n;
}

/* Up to want CQ entries promised to WRs about to be posted. */
static int storm_reserve(struct storm *s, int want)
{
	int have = __atomic_load_n(&s->room, __ATOMIC_SEQ_CST), n;

	do {
		n = have < want ? have : want;
		if (n <= 0)
			return 0;
	} while (!__atomic_compare_exchange_n(&s->room, &have, have - n, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	return n;
}

/* One batch on queue q (0 SQ, 1 RQ), timed; the WRs not taken given back. */
static void storm_post(struct poster *p, int q)
{
	struct storm *s = p->s;
	struct ibv_send_wr swr[STORM_BATCH_MAX], *sbad = NULL;
	struct ibv_recv_wr rwr[STORM_BATCH_MAX], *rbad = NULL;
	int n = storm_reserve(s, storm_batch), i, ret, taken;
	int64_t t0, dt;

	if (!n)
		return;
	/* Only the list of queue q is built: the other is not posted. */
	for (i = 0; i < n; i++) {
		if (q) {
			memset(&rwr[i], 0, sizeof(rwr[i]));
			rwr[i].wr_id = WRID(p->id, 1, p->next[1] + (uint64_t)i);
			rwr[i].next = i + 1 < n ? &rwr[i + 1] : NULL;
		} else {
			memset(&swr[i], 0, sizeof(swr[i]));
			swr[i].wr_id = WRID(p->id, 0, p->next[0] + (uint64_t)i);
			swr[i].opcode = IBV_WR_SEND;
			swr[i].send_flags = IBV_SEND_SIGNALED;
			swr[i].next = i + 1 < n ? &swr[i + 1] : NULL;
		}
	}
	t0 = now_ns();
	if (q)
		ret = ibv_post_recv(s->qp, rwr, &rbad);
	else
		ret = ibv_post_send(s->qp, swr, &sbad);
	dt = now_ns() - t0;
	p->calls++;
	if (dt > p->max_ns)
		p->max_ns = dt;
	if (dt >= 100000000)
		p->slow++;
	taken = n;
	if (ret == ENOMEM) {	/* the ring is full: the WRs before bad went in */
		taken = q ? (int)(rbad - rwr) : (int)(sbad - swr);
	} else if (ret) {
		storm_fail(s, "poster %d: ibv_post_%s: %s", p->id,
			   q ? "recv" : "send", strerror(ret));
		taken = 0;
	}
	p->next[q] += (uint64_t)taken;
	if (taken < n)
		__atomic_add_fetch(&s->room, n - taken, __ATOMIC_SEQ_CST);
}

static void *storm_thread(void *arg)
{
	struct poster *p = arg;

	while (!p->s->stop && !p->s->failed) {
		storm_poll(p->s);
		storm_post(p, 0);
		if (!storm_rq)
			continue;
		storm_poll(p->s);
		storm_post(p, 1);
	}
	return NULL;
}

static int case_storm(struct env *e)
{
	struct storm *s;
	pthread_t th[MAX_POSTERS];
	uint64_t posted = 0, done = 0, calls = 0, slow = 0;
	int64_t max_ns = 0, limit_ns = (int64_t)time_s * 1000000000 / 4, end;
	int i, ret = 0;

	s = calloc(1, sizeof(*s));
	if (!s)
		die2("calloc");
	pthread_mutex_init(&s->poll_lock, NULL);
	s->cq = ibv_create_cq(e->ctx, STORM_CQ, NULL, NULL, 0);
	if (!s->cq)
		die2("ibv_create_cq");
	s->room = STORM_CQ;
	s->qp = rc_qp(e, s->cq, (uint32_t)storm_queue, (uint32_t)storm_queue);
	if (!s->qp)
		return 2;
	/* Connected to itself, then ERR: every WR posted now is flushed. */
	if (to_rts(e, s->qp, s->qp->qp_num, 0x100) ||
	    modify_state(s->qp, IBV_QPS_ERR))
		return 2;
	logmsg("case %s: %d posters, SQ%s of %d WRs, up to %d WRs per post call, %d s",
	       cur_case, storm_threads, storm_rq ? " and RQ" : "", storm_queue,
	       storm_batch, time_s);
	alarm((unsigned int)time_s + (unsigned int)(wait_ms / 1000) * 4 + 30);
	for (i = 0; i < storm_threads; i++) {
		s->p[i].s = s;
		s->p[i].id = i;
		if (pthread_create(&th[i], NULL, storm_thread, &s->p[i])) {
			logmsg("ERROR: pthread_create");
			return 2;
		}
	}
	end = now_ns() + (int64_t)time_s * 1000000000;
	while (now_ns() < end && !s->failed)
		usleep(10000);
	s->stop = 1;
	for (i = 0; i < storm_threads; i++)
		pthread_join(th[i], NULL);
	/* What is posted completes, flushed, within the wait. */
	end = now_ns() + (int64_t)wait_ms * 1000000;
	for (;;) {
		posted = done = 0;
		for (i = 0; i < storm_threads; i++) {
			posted += s->p[i].next[0] + s->p[i].next[1];
			done += s->p[i].want[0] + s->p[i].want[1];
		}
		if (done >= posted || s->failed || now_ns() > end)
			break;
		if (!storm_poll(s))
			usleep(1000);
	}
	for (i = 0; i < storm_threads; i++) {
		calls += s->p[i].calls;
		slow += s->p[i].slow;
		if (s->p[i].max_ns > max_ns)
			max_ns = s->p[i].max_ns;
	}
	if (s->failed) {
		logmsg("FAIL: case %s: %s", cur_case, s->why);
		ret = 1;
	} else if (done < posted) {
		logmsg("FAIL: case %s: %" PRIu64 " of %" PRIu64 " WRs completed %d ms after the posting stopped",
		       cur_case, done, posted, wait_ms);
		ret = 1;
	} else if (max_ns >= limit_ns) {
		logmsg("FAIL: case %s: a post call took %.3f s (limit %.3f s, a quarter of the %d s run): a doorbell ran unbounded",
		       cur_case, max_ns / 1e9, limit_ns / 1e9, time_s);
		ret = 1;
	} else if (posted < 10 * (uint64_t)storm_queue) {
		logmsg("FAIL: case %s: only %" PRIu64 " WRs posted in %d s", cur_case,
		       posted, time_s);
		ret = 1;
	} else if (async_errors(e)) {
		ret = 1;
	}
	if (!ret)
		logmsg("case %s: ok: %d posters, %" PRIu64 " post calls (%" PRIu64 " of 100 ms or more), %" PRIu64 " WRs posted and flushed in order, longest post call %.3f ms (limit %.0f ms)",
		       cur_case, storm_threads, calls, slow, posted,
		       max_ns / 1e6, limit_ns / 1e6);
	else
		logmsg("case %s: %" PRIu64 " post calls (%" PRIu64 " of 100 ms or more), %" PRIu64 " WRs posted, %" PRIu64 " completed, longest post call %.3f ms",
		       cur_case, calls, slow, posted, done, max_ns / 1e6);
	if (ibv_destroy_qp(s->qp) || ibv_destroy_cq(s->cq)) {
		logmsg("ERROR: case %s: teardown", cur_case);
		ret = ret ? ret : 2;
	}
	free(s);
	return ret;
}

/* ------------------------------------------------------------------ */

struct tcase {
	const char *name;
	int (*run)(struct env *e);
};

static const struct tcase cases[] = {
	{ "rq-flush-race", case_rq_flush },
	{ "rq-reset-race", case_rq_reset },
	{ "doorbell-storm", case_storm },
};
#define NCASES	((int)(sizeof(cases) / sizeof(cases[0])))

static void usage(void)
{
	int i;

	fprintf(stderr,
		"usage: %s -d DEV -g GID_INDEX [--case NAME]... [--time S] [--wait MS]\n"
		"       [--seed N] [-v] [--storm-threads N (1-%d)] [--storm-queue WRS]\n"
		"       [--storm-batch WRS (1-%d)] [--storm-sq-only]\ncases:",
		prog, MAX_POSTERS, STORM_BATCH_MAX);
	for (i = 0; i < NCASES; i++)
		fprintf(stderr, " %s", cases[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "gid", required_argument, NULL, 'g' },
		{ "case", required_argument, NULL, 'c' },
		{ "time", required_argument, NULL, 't' },
		{ "wait", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "storm-threads", required_argument, NULL, 'T' },
		{ "storm-queue", required_argument, NULL, 'Q' },
		{ "storm-batch", required_argument, NULL, 'B' },
		{ "storm-sq-only", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	const char *devname = NULL, *only[NCASES];
	unsigned int seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	struct env e;
	int nonly = 0, i, j, c, pass = 0, fail = 0, r;

	memset(&e, 0, sizeof(e));
	e.gid_idx = -1;
	while ((c = getopt_long(argc, argv, "d:g:c:t:w:s:v", opts, NULL)) != -1) {
		switch (c) {
		case 'd': devname = optarg; break;
		case 'g': e.gid_idx = atoi(optarg); break;
		case 'c':
			for (j = 0; j < NCASES; j++)
				if (!strcmp(cases[j].name, optarg))
					break;
			if (j == NCASES || nonly == NCASES)
				usage();
			only[nonly++] = optarg;
			break;
		case 't': time_s = atoi(optarg); break;
		case 'w': wait_ms = atoi(optarg); break;
		case 's': seed = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'v': verbose = 1; break;
		case 'T': storm_threads = atoi(optarg); break;
		case 'Q': storm_queue = atoi(optarg); break;
		case 'B': storm_batch = atoi(optarg); break;
		case 'S': storm_rq = 0; break;
		default: usage();
		}
	}
	if (!devname || e.gid_idx < 0 || optind != argc || wait_ms < 1000 ||
	    time_s < 1 || storm_threads < 1 || storm_threads > MAX_POSTERS ||
	    storm_queue < 16 || storm_queue > 8192 || storm_batch < 1 ||
	    storm_batch > STORM_BATCH_MAX)
		usage();
	srandom(seed);
	signal(SIGALRM, on_alarm);
	alarm(60);
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);

	env_open(&e, devname);
	logmsg("%s, GID index %d, %d CPUs, seed %u, %d s per case, waits %d ms, %u-byte messages",
	       devname, e.gid_idx, ncpu, seed, time_s, wait_ms, e.msg_len);
	if (ncpu < 2)
		logmsg("warning: one CPU: the races these cases look for cannot happen");

	for (i = 0; i < NCASES; i++) {
		for (j = 0; j < nonly; j++)
			if (!strcmp(only[j], cases[i].name))
				break;
		if (nonly && j == nonly)
			continue;
		cur_case = cases[i].name;
		async_errors(&e);
		r = cases[i].run(&e);
		if (r == 2) {
			logmsg("FAIL: case %s: could not set it up", cur_case);
			return 2;
		}
		if (r)
			fail++;
		else
			pass++;
	}
	cur_case = "teardown";
	alarm(60);
	if (ibv_dealloc_pd(e.pd) || ibv_close_device(e.ctx))
		die2("teardown");
	alarm(0);
	if (fail) {
		logmsg("FAIL: %d of %d cases failed", fail, pass + fail);
		return 1;
	}
	logmsg("PASS: %d cases, %d s each, %d CPUs", pass, time_s, ncpu);
	return 0;
}
