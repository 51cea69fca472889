// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host test of mrue, the MetaRoCE user endpoint, run by
 * `make -C userspace/endpoint check`:
 *
 *  1. Two endpoints in one process, each with its own UDP socket on
 *     127.0.0.1, polled together: every RC opcode both ways, byte-exact,
 *     at 0% and at 5% loss with reordering and duplication from the
 *     receive shim (the retransmissions that needed are asserted from the
 *     counters); the error paths (remote access, invalid request, RNR,
 *     local protection, retry exceeded, flush) and hostile datagrams.
 *  2. The mr-ue tool as two processes (--listen 0 and --connect) at 0%
 *     and 5% loss: both must exit 0.
 *
 * Ends with exactly one line "endpoint: N passed, N failed"; exits
 * non-zero if any test failed. argv[1]: the mr-ue binary.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mrue.h"
#include "mr-ue-load.h"
#include "wire.h"

static int n_pass, n_fail;
static const char *tool_path;

/* A failed check ends its test case with a message. */
#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("  FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);				\
			printf("\n");					\
			return -1;					\
		}							\
	} while (0)

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- a connected pair in this process ------------------------------------ */

struct pair {
	struct mrue *a, *b;
};

/* What a failed check left open; closed after each test. */
static struct mrue *open_ues[8];
static struct load *open_loads[2];

static void track(struct mrue *ue, bool on)
{
	size_t i;

	for (i = 0; ue && i < 8; i++) {
		if (on && !open_ues[i]) {
			open_ues[i] = ue;
			return;
		}
		if (!on && open_ues[i] == ue)
			open_ues[i] = NULL;
	}
}

static int pair_open(struct pair *p, const struct mrue_cfg *ca,
		     const struct mrue_cfg *cb)
{
	struct mrue_info ia, ib;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = mrue_create(ca, &p->a);
	track(p->a, true);
	if (!rc)
		rc = mrue_create(cb, &p->b);
	track(p->b, true);
	if (rc)
		return rc;
	mrue_local_info(p->a, &ia);
	mrue_local_info(p->b, &ib);
	rc = mrue_connect(p->a, &ib);
	return rc ? rc : mrue_connect(p->b, &ia);
}

static void pair_close(struct pair *p)
{
	track(p->a, false);
	track(p->b, false);
	mrue_destroy(p->a);
	mrue_destroy(p->b);
	memset(p, 0, sizeof(*p));
}

static void cfg_lo(struct mrue_cfg *c, uint64_t seed)
{
	mrue_cfg_default(c);
	c->bind_addr = "127.0.0.1";
	c->seed = seed;
}

static void pair_progress(struct pair *p, int ms)
{
	struct mrue *v[2] = { p->a, p->b };

	mrue_progress_many(v, 2, ms);
}

/* Progress until @done(arg) or @ms pass; 0 if done. */
static int pair_until(struct pair *p, int (*done)(void *), void *arg, int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;

	while (!done(arg)) {
		if (now_ms() > end)
			return -1;
		pair_progress(p, 5);
	}
	return 0;
}

/* ---- 1. the workload both ways -------------------------------------------- */

struct both {
	struct pair *p;
	struct load la, lb;
	int failed;
};

static int both_done(void *arg)
{
	struct both *w = arg;

	if (load_step(&w->la) || load_step(&w->lb)) {
		w->failed = 1;
		return 1;
	}
	return load_done(&w->la) && load_done(&w->lb);
}

static void print_stats(const char *name, const struct mrue_stats *s)
{
	printf("  %s: tx=%" PRIu64 " rx=%" PRIu64 " retx=%" PRIu64
	       " rto=%" PRIu64 " spurious_rto=%" PRIu64 " sacks=%" PRIu64
	       " acks_tx=%" PRIu64 " shim drop/dup/held=%" PRIu64 "/%" PRIu64
	       "/%" PRIu64 " dup=%" PRIu64 " replays=%" PRIu64
	       " read_resps=%" PRIu64 " resp_dup=%" PRIu64 " icrc=%" PRIu64
	       " decode=%" PRIu64 " sock_drops=%" PRIu64 " tx_again=%" PRIu64
	       "\n", name, s->tx_pkts, s->rx_dgrams,
	       s->retx, s->rto, s->spurious_rto, s->sacks_rx, s->acks_tx,
	       s->shim_drops, s->shim_dups, s->shim_held, s->dup, s->replays,
	       s->read_resps, s->resp_dup, s->drop_icrc, s->drop_decode,
	       s->sock_drops, s->tx_again);
}

static int run_both(uint32_t loss, uint32_t dup, uint32_t reorder,
		    uint32_t count, uint32_t size, uint64_t seed,
		    struct mrue_stats *sa, struct mrue_stats *sb)
{
	struct mrue_cfg ca, cb;
	static struct both w;	/* open_loads: outlives a failed check */
	char buf[256];
	struct pair p;
	int rc;

	cfg_lo(&ca, seed);
	cfg_lo(&cb, seed ^ 0xB);
	/* the path MTU is the smaller end's */
	ca.mtu = 4096;
	cb.mtu = loss ? 1024 : 2048;
	ca.loss_ppm = cb.loss_ppm = loss;
	ca.dup_ppm = cb.dup_ppm = dup;
	ca.reorder_ppm = cb.reorder_ppm = reorder;
	CHECK(pair_open(&p, &ca, &cb) == 0, "pair");
	memset(&w, 0, sizeof(w));
	w.p = &p;
	open_loads[0] = &w.la;
	open_loads[1] = &w.lb;
	CHECK(load_init(&w.la, &load_mrue_backend, p.a, seed, count, size, 0,
			32) == 0, "load a");
	CHECK(load_init(&w.lb, &load_mrue_backend, p.b, seed, count, size, 1,
			32) == 0, "load b");
	w.la.peer = (struct load_remote){ (uintptr_t)w.lb.region,
					  w.lb.region_key, w.lb.region_len };
	w.lb.peer = (struct load_remote){ (uintptr_t)w.la.region,
					  w.la.region_key, w.la.region_len };
	rc = pair_until(&p, both_done, &w, 30000);
	mrue_get_stats(p.a, sa);
	mrue_get_stats(p.b, sb);
	print_stats("a", sa);
	print_stats("b", sb);
	CHECK(!w.failed, "a: %s | b: %s", w.la.err, w.lb.err);
	CHECK(rc == 0, "timeout: a sent %u/%u recv %u/%u, b sent %u/%u "
	      "recv %u/%u", w.la.completed, count, w.la.recv_done,
	      w.la.recv_expected, w.lb.completed, count, w.lb.recv_done,
	      w.lb.recv_expected);
	CHECK(load_final_check(&w.la) == 0, "%s", w.la.err);
	CHECK(load_final_check(&w.lb) == 0, "%s", w.lb.err);
	/* every opcode really ran and was verified on each side */
	load_verified_str(&w.la, buf, sizeof(buf));
	CHECK(load_all_verified(&w.la), "a verified %s", buf);
	load_verified_str(&w.lb, buf, sizeof(buf));
	CHECK(load_all_verified(&w.lb), "b verified %s", buf);
	CHECK(mrue_state(p.a) == MRUE_QPS_RTS && mrue_state(p.b) ==
	      MRUE_QPS_RTS, "state");
	load_fini(&w.la);
	load_fini(&w.lb);
	open_loads[0] = open_loads[1] = NULL;
	pair_close(&p);
	return 0;
}

static int test_clean(void)
{
	struct mrue_stats sa, sb;

	if (run_both(0, 0, 0, 3500, 6000, 0xC1EA, &sa, &sb))
		return -1;
	CHECK(sa.shim_drops + sb.shim_drops + sa.shim_held + sb.shim_held ==
	      0, "the shim was off");
	CHECK(sa.drop_icrc + sb.drop_icrc + sa.drop_decode + sb.drop_decode ==
	      0, "nothing malformed");
	/* MR-ENC-12, MR-PLACE-9: both ends cut at the agreed PMTU. */
	CHECK(sa.drop_pmtu + sb.drop_pmtu == 0, "every packet cut at the PMTU");
	CHECK(sa.read_resps > 0 && sb.read_resps > 0, "READ responses");
	return 0;
}

static int test_lossy(void)
{
	struct mrue_stats sa, sb;

	/* 5% loss, 2% duplicated, 5% reordered, at each receiver */
	if (run_both(50000, 20000, 50000, 3500, 3000, 0x1055, &sa, &sb))
		return -1;
	CHECK(sa.shim_drops > 20 && sb.shim_drops > 20, "shim drops %" PRIu64
	      " %" PRIu64, sa.shim_drops, sb.shim_drops);
	CHECK(sa.shim_dups > 5 && sb.shim_dups > 5, "shim dups");
	/* losses were repaired by retransmissions, on both sides */
	CHECK(sa.retx > 10 && sb.retx > 10, "retx %" PRIu64 " %" PRIu64,
	      sa.retx, sb.retx);
	/* duplicates reached the responders and were not placed twice */
	CHECK(sa.dup + sa.old_dup > 0 && sb.dup + sb.old_dup > 0, "dups");
	return 0;
}

/* ---- error paths ----------------------------------------------------------- */

/* Memory for one side of the error tests: one local region. */
struct side {
	uint8_t buf[8192] __attribute__((aligned(64)));
	uint32_t key;
};

static struct side sa_mem, sb_mem;

/* Progress until @ue has a CQE, or @ms pass: 1 with *wc, 0 on timeout. */
static int next_cqe(struct pair *p, struct mrue *ue, struct mrue_wc *wc,
		    int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;

	for (;;) {
		if (mrue_poll_cq(ue, wc, 1) == 1)
			return 1;
		if (now_ms() > end)
			return 0;
		pair_progress(p, 2);
	}
}

/* Progress both for @ms. */
static void settle(struct pair *p, int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;

	while (now_ms() < end)
		pair_progress(p, 1);
}

static int pair_mem(struct pair *p, uint32_t access_b)
{
	memset(&sa_mem, 0, sizeof(sa_mem));
	memset(&sb_mem, 0, sizeof(sb_mem));
	if (mrue_reg_mr(p->a, sa_mem.buf, sizeof(sa_mem.buf), 0, &sa_mem.key))
		return -1;
	return mrue_reg_mr(p->b, sb_mem.buf, sizeof(sb_mem.buf), access_b,
			   &sb_mem.key);
}

static struct mrue_send_wr wr_of(enum mrue_wr_opcode op, uint64_t id,
				 uint32_t off, uint32_t len)
{
	struct mrue_send_wr wr = {
		.wr_id = id, .opcode = op, .local = sa_mem.buf + off,
		.length = len, .lkey = sa_mem.key,
		.remote_addr = (uintptr_t)sb_mem.buf, .rkey = sb_mem.key,
	};

	return wr;
}

static const uint32_t all_access = MRUE_ACCESS_REMOTE_WRITE |
	MRUE_ACCESS_REMOTE_READ | MRUE_ACCESS_REMOTE_ATOMIC;

/*
 * A WRITE with a bad R_Key between two good SENDs: the first completes,
 * the WRITE fails REMOTE_ACCESS (MR-VERBS-21/22), everything after it is
 * flushed on both sides (MR-VERBS-25) and both QPs are in Error.
 */
static int test_remote_access(void)
{
	struct mrue_cfg ca, cb;
	struct mrue_send_wr wr;
	struct mrue_stats st;
	struct mrue_wc wc;
	struct pair p;
	int i;

	cfg_lo(&ca, 0xAC1);
	cfg_lo(&cb, 0xAC2);
	CHECK(pair_open(&p, &ca, &cb) == 0, "pair");
	CHECK(pair_mem(&p, all_access) == 0, "mr");
	for (i = 0; i < 3; i++)
		CHECK(mrue_post_recv(p.b, 100 + i, sb_mem.buf + 1024 * i, 1024,
				     sb_mem.key) == 0, "recv");
	memcpy(sa_mem.buf, "hello", 5);
	wr = wr_of(MRUE_WR_SEND, 1, 0, 5);
	CHECK(mrue_post_send(p.a, &wr) == 0, "send");
	wr = wr_of(MRUE_WR_WRITE, 2, 0, 64);
	wr.rkey ^= 0x100;
	CHECK(mrue_post_send(p.a, &wr) == 0, "write");
	wr = wr_of(MRUE_WR_SEND, 3, 0, 5);
	CHECK(mrue_post_send(p.a, &wr) == 0, "send");

	CHECK(next_cqe(&p, p.a, &wc, 2000), "cqe 1");
	CHECK(wc.wr_id == 1 && wc.status == MRUE_WC_SUCCESS, "%s",
	      mrue_wc_status_str(wc.status));
	CHECK(next_cqe(&p, p.a, &wc, 2000), "cqe 2");
	CHECK(wc.wr_id == 2 && wc.status == MRUE_WC_REM_ACCESS_ERR, "%s",
	      mrue_wc_status_str(wc.status));
	CHECK(next_cqe(&p, p.a, &wc, 2000), "cqe 3");
	CHECK(wc.wr_id == 3 && wc.status == MRUE_WC_WR_FLUSH_ERR, "%s",
	      mrue_wc_status_str(wc.status));
	CHECK(mrue_state(p.a) == MRUE_QPS_ERR, "a in error");
	/* posted in Error: flushed at once */
	wr = wr_of(MRUE_WR_SEND, 4, 0, 5);
	CHECK(mrue_post_send(p.a, &wr) == 0, "send in error");
	CHECK(mrue_poll_cq(p.a, &wc, 1) == 1 && wc.wr_id == 4 &&
	      wc.status == MRUE_WC_WR_FLUSH_ERR, "posted in error");

	CHECK(next_cqe(&p, p.b, &wc, 2000), "recv 1");
	CHECK(wc.wr_id == 100 && wc.status == MRUE_WC_SUCCESS &&
	      wc.byte_len == 5 && !memcmp(sb_mem.buf, "hello", 5), "recv 1");
	CHECK(next_cqe(&p, p.b, &wc, 2000), "recv 2");
	CHECK(wc.wr_id == 101 && wc.status == MRUE_WC_WR_FLUSH_ERR, "%s",
	      mrue_wc_status_str(wc.status));
	CHECK(mrue_state(p.b) == MRUE_QPS_ERR, "b in error");
	mrue_get_stats(p.b, &st);
	CHECK(st.nacks_tx[4] >= 1 && st.rkey_violations >= 1, "NACK sent");
	pair_close(&p);
	return 0;
}

/*
 * The responder's QP does not enable atomics: FETCH_ADD fails INVALID_REQ
 * (MR-VERBS-21 "operation not enabled"); a WRITE beyond the region and a
 * READ of a region without remote read fail REMOTE_ACCESS.
 */
static int one_failure(uint32_t qp_access, uint32_t mr_access,
		       struct mrue_send_wr wr, uint8_t want, bool sent)
{
	struct mrue_cfg ca, cb;
	struct mrue_wc wc;
	struct pair p;

	cfg_lo(&ca, 0x1F1);
	cfg_lo(&cb, 0x1F2);
	cb.qp_access = qp_access;
	CHECK(pair_open(&p, &ca, &cb) == 0, "pair");
	CHECK(pair_mem(&p, mr_access) == 0, "mr");
	wr.lkey = sa_mem.key;
	wr.rkey = wr.rkey ? wr.rkey : sb_mem.key;
	wr.remote_addr += (uintptr_t)sb_mem.buf;
	CHECK(mrue_post_send(p.a, &wr) == 0, "post");
	CHECK(next_cqe(&p, p.a, &wc, 2000), "cqe");
	CHECK(wc.status == want, "got %s want %s",
	      mrue_wc_status_str(wc.status), mrue_wc_status_str(want));
	settle(&p, 20);
	CHECK(mrue_state(p.a) == MRUE_QPS_ERR, "requester in error");
	/* the responder's fatal NACK put it in Error too, if it was sent */
	CHECK((mrue_state(p.b) == MRUE_QPS_ERR) == sent, "responder state");
	pair_close(&p);
	return 0;
}

static int test_invalid_ops(void)
{
	struct mrue_send_wr wr = {
		.opcode = MRUE_WR_FETCH_ADD, .local = sa_mem.buf, .length = 8,
	};

	if (one_failure(MRUE_ACCESS_REMOTE_WRITE | MRUE_ACCESS_REMOTE_READ,
			all_access, wr, MRUE_WC_REM_INV_REQ_ERR, true))
		return -1;
	/* a WRITE that runs past the end of the region */
	wr = (struct mrue_send_wr){ .opcode = MRUE_WR_WRITE,
				    .local = sa_mem.buf, .length = 100,
				    .remote_addr = sizeof(sb_mem.buf) - 50 };
	if (one_failure(all_access, all_access, wr, MRUE_WC_REM_ACCESS_ERR,
			true))
		return -1;
	/* a READ of a region registered without remote read */
	wr = (struct mrue_send_wr){ .opcode = MRUE_WR_READ,
				    .local = sa_mem.buf, .length = 100 };
	if (one_failure(all_access, MRUE_ACCESS_REMOTE_WRITE, wr,
			MRUE_WC_REM_ACCESS_ERR, true))
		return -1;
	/* an unaligned atomic is never sent (MR-VERBS-23) */
	wr = (struct mrue_send_wr){ .opcode = MRUE_WR_CMP_SWAP,
				    .local = sa_mem.buf, .length = 8,
				    .remote_addr = 4 };
	return one_failure(all_access, all_access, wr,
			   MRUE_WC_REM_INV_REQ_ERR, false) ? -1 : 0;
}

/*
 * A SEND longer than the receive WQE: INVALID_REQ at the requester,
 * LOC_LEN_ERR on the receive WQE (MR-VERBS-21, MR-PLACE-5). A receive
 * buffer whose region went away: REMOTE_OP and LOC_PROT_ERR.
 */
static int recv_failure(bool dereg, uint8_t want_req, uint8_t want_recv)
{
	struct mrue_cfg ca, cb;
	struct mrue_send_wr wr;
	struct mrue_wc wc;
	struct pair p;

	cfg_lo(&ca, 0x5E1);
	cfg_lo(&cb, 0x5E2);
	CHECK(pair_open(&p, &ca, &cb) == 0, "pair");
	CHECK(pair_mem(&p, all_access) == 0, "mr");
	CHECK(mrue_post_recv(p.b, 7, sb_mem.buf, dereg ? 4096 : 16,
			     sb_mem.key) == 0, "recv");
	if (dereg)
		CHECK(mrue_dereg_mr(p.b, sb_mem.key) == 0, "dereg");
	wr = wr_of(MRUE_WR_SEND, 1, 0, 100);
	CHECK(mrue_post_send(p.a, &wr) == 0, "send");
	CHECK(next_cqe(&p, p.a, &wc, 2000), "send cqe");
	CHECK(wc.status == want_req, "requester got %s",
	      mrue_wc_status_str(wc.status));
	CHECK(next_cqe(&p, p.b, &wc, 2000), "recv cqe");
	CHECK(wc.wr_id == 7 && wc.status == want_recv, "receiver got %s",
	      mrue_wc_status_str(wc.status));
	pair_close(&p);
	return 0;
}

static int test_recv_errors(void)
{
	if (recv_failure(false, MRUE_WC_REM_INV_REQ_ERR, MRUE_WC_LOC_LEN_ERR))
		return -1;
	return recv_failure(true, MRUE_WC_REM_OP_ERR, MRUE_WC_LOC_PROT_ERR);
}

/*
 * No receive WQE: RNR NACKs pause the requester until one is posted
 * (MR-VERBS-21 "RNR"); with rnr_retry 1 the WR fails RNR_RETRY_EXC.
 */
static int test_rnr(void)
{
	struct mrue_cfg ca, cb;
	struct mrue_send_wr wr;
	struct mrue_stats st;
	struct mrue_wc wc;
	struct pair p;

	cfg_lo(&ca, 0x2121);
	cfg_lo(&cb, 0x2122);
	cb.min_rnr_timer = 10;	/* 0.32 ms */
	CHECK(pair_open(&p, &ca, &cb) == 0, "pair");
	CHECK(pair_mem(&p, all_access) == 0, "mr");
	wr = wr_of(MRUE_WR_SEND_IMM, 1, 0, 300);
	wr.imm = 0xfeedbeef;
	memset(sa_mem.buf, 0x3c, 300);
	CHECK(mrue_post_send(p.a, &wr) == 0, "send");
	CHECK(!next_cqe(&p, p.a, &wc, 30), "completed without a receive");
	mrue_get_stats(p.a, &st);
	CHECK(st.rnr_events >= 1, "rnr events %" PRIu64, st.rnr_events);
	CHECK(mrue_post_recv(p.b, 9, sb_mem.buf, 4096, sb_mem.key) == 0,
	      "recv");
	CHECK(next_cqe(&p, p.a, &wc, 2000) && wc.status == MRUE_WC_SUCCESS,
	      "send after RNR: %s", mrue_wc_status_str(wc.status));
	CHECK(next_cqe(&p, p.b, &wc, 2000) && wc.status == MRUE_WC_SUCCESS &&
	      wc.byte_len == 300 && wc.with_imm && wc.imm == 0xfeedbeef &&
	      sb_mem.buf[299] == 0x3c, "receive after RNR");
	pair_close(&p);

	ca.rnr_retry = 1;
	CHECK(pair_open(&p, &ca, &cb) == 0, "pair");
	CHECK(pair_mem(&p, all_access) == 0, "mr");
	wr = wr_of(MRUE_WR_SEND, 1, 0, 10);
	CHECK(mrue_post_send(p.a, &wr) == 0, "send");
	CHECK(next_cqe(&p, p.a, &wc, 2000), "cqe");
	CHECK(wc.status == MRUE_WC_RNR_RETRY_EXC_ERR, "%s",
	      mrue_wc_status_str(wc.status));
	pair_close(&p);
	return 0;
}

/*
 * Local errors (MR-VERBS-23): a source outside any region is LOC_PROT,
 * an atomic of another length LOC_LEN; and a peer that never answers
 * exhausts retry_cnt: RETRY_EXC_ERR.
 */
static int test_local_and_retry(void)
{
	static uint8_t stray[64];
	struct mrue_cfg ca, cb;
	struct mrue_send_wr wr;
	struct mrue_stats st;
	struct mrue_wc wc;
	struct pair p;
	uint64_t end;

	cfg_lo(&ca, 0x10C1);
	cfg_lo(&cb, 0x10C2);
	CHECK(pair_open(&p, &ca, &cb) == 0, "pair");
	CHECK(pair_mem(&p, all_access) == 0, "mr");
	wr = wr_of(MRUE_WR_WRITE, 1, 0, 64);
	wr.local = stray;
	CHECK(mrue_post_send(p.a, &wr) == 0, "post");
	CHECK(next_cqe(&p, p.a, &wc, 1000) &&
	      wc.status == MRUE_WC_LOC_PROT_ERR, "%s",
	      mrue_wc_status_str(wc.status));
	pair_close(&p);

	CHECK(pair_open(&p, &ca, &cb) == 0, "pair");
	CHECK(pair_mem(&p, all_access) == 0, "mr");
	wr = wr_of(MRUE_WR_FETCH_ADD, 1, 0, 4);
	CHECK(mrue_post_send(p.a, &wr) == 0, "post");
	CHECK(next_cqe(&p, p.a, &wc, 1000) &&
	      wc.status == MRUE_WC_LOC_LEN_ERR, "%s",
	      mrue_wc_status_str(wc.status));
	pair_close(&p);

	/* T_verbs 4 ms (timeout 10), retry_cnt 2; only a runs */
	ca.timeout = 10;
	ca.retry_cnt = 2;
	CHECK(pair_open(&p, &ca, &cb) == 0, "pair");
	CHECK(pair_mem(&p, all_access) == 0, "mr");
	wr = wr_of(MRUE_WR_WRITE, 1, 0, 64);
	CHECK(mrue_post_send(p.a, &wr) == 0, "post");
	end = now_ms() + 5000;
	while (mrue_poll_cq(p.a, &wc, 1) == 0 && now_ms() < end)
		mrue_progress(p.a, 5);
	CHECK(now_ms() < end, "no completion");
	CHECK(wc.status == MRUE_WC_RETRY_EXC_ERR, "%s",
	      mrue_wc_status_str(wc.status));
	mrue_get_stats(p.a, &st);
	CHECK(st.rto >= 3 && st.retx >= 2, "rto %" PRIu64 " retx %" PRIu64,
	      st.rto, st.retx);
	pair_close(&p);
	return 0;
}

/* ---- hostile datagrams ----------------------------------------------------- */

static void send_raw(int fd, const struct sockaddr_in *to, const void *buf,
		     size_t len)
{
	sendto(fd, buf, len, 0, (const struct sockaddr *)to, sizeof(*to));
}

/* A valid SEND packet from @sqpn to @dqpn with @plen payload bytes. */
static int forge(uint8_t *buf, size_t size, uint32_t sqpn, uint32_t dqpn,
		 uint32_t psn, uint32_t plen)
{
	static uint8_t payload[4096];
	struct mr_pkt p;
	int n;

	memset(&p, 0, sizeof(p));
	p.opcode = MR_OP_SEND;
	p.flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
	p.dqpn = dqpn;
	p.sqpn = sqpn;
	p.psn = psn;
	p.dxh.msg_len = plen;
	p.payload = payload;
	p.payload_len = plen;
	n = mr_pkt_encode(&p, buf, (uint32_t)size);
	return n;
}

/*
 * A connected pair (seeds @seed, @seed + 1) and a socket @fd to send
 * datagrams to b as if from a's host.
 */
static int hostile_open(struct pair *p, uint64_t seed, struct mrue_info *ia,
			struct mrue_info *ib, struct sockaddr_in *to, int *fd)
{
	struct mrue_cfg ca, cb;

	cfg_lo(&ca, seed);
	cfg_lo(&cb, seed + 1);
	CHECK(pair_open(p, &ca, &cb) == 0, "pair");
	mrue_local_info(p->a, ia);
	mrue_local_info(p->b, ib);
	to->sin_addr.s_addr = ib->addr;
	to->sin_port = htons(ib->port);
	*fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(*fd >= 0, "socket");
	return 0;
}

/*
 * The peer is untrusted: garbage, a corrupted ICRC, the wrong QPN, the
 * wrong source QPN or address, an oversized datagram and a payload
 * beyond the PMTU are each dropped and counted once, in MR-MAL-2 order,
 * without effect; a PROBE is answered once; then every opcode still runs
 * clean.
 */
static int test_hostile(void)
{
	struct mrue_info ia, ib;
	struct mrue_stats st, sa, sbs;
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct sockaddr_in from = { .sin_family = AF_INET };
	static uint8_t buf[9000];
	struct mr_pkt pk;
	struct pair p;
	int fd, n, i;

	if (hostile_open(&p, 0xBAD1, &ia, &ib, &to, &fd))
		return -1;

	for (i = 0; i < 50; i++)
		buf[i] = (uint8_t)(i * 37 + 11);
	send_raw(fd, &to, buf, 50);			/* decode */
	buf[0] = 0x10;
	send_raw(fd, &to, buf, 3);			/* decode: trunc */
	n = forge(buf, sizeof(buf), ia.qpn, ib.qpn, ia.psn, 100);
	CHECK(n > 0, "encode");
	buf[n - 1] ^= 0x40;
	send_raw(fd, &to, buf, (size_t)n);		/* icrc */
	n = forge(buf, sizeof(buf), ia.qpn, ib.qpn ^ 1, ia.psn, 100);
	send_raw(fd, &to, buf, (size_t)n);		/* qpn */
	n = forge(buf, sizeof(buf), ia.qpn ^ 1, ib.qpn, ia.psn, 100);
	send_raw(fd, &to, buf, (size_t)n);		/* src */
	n = forge(buf, sizeof(buf), ia.qpn, ib.qpn, ia.psn, 2048);
	send_raw(fd, &to, buf, (size_t)n);		/* payload > PMTU */
	memset(buf, 0, sizeof(buf));
	send_raw(fd, &to, buf, sizeof(buf));		/* oversize */
	/* a PROBE from the peer is answered (MR-MP-10) */
	memset(&pk, 0, sizeof(pk));
	pk.opcode = MR_OP_PROBE;
	pk.dqpn = ib.qpn;
	pk.sqpn = ia.qpn;
	pk.psn = 77;
	n = mr_pkt_encode(&pk, buf, sizeof(buf));
	CHECK(n > 0, "probe");
	send_raw(fd, &to, buf, (size_t)n);
	close(fd);
	/* right QPNs, another source address (MR-SEC-4) */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0, "socket");
	from.sin_addr.s_addr = htonl(0x7f000002);
	CHECK(bind(fd, (struct sockaddr *)&from, sizeof(from)) == 0, "bind");
	n = forge(buf, sizeof(buf), ia.qpn, ib.qpn, ia.psn, 100);
	send_raw(fd, &to, buf, (size_t)n);
	close(fd);
	settle(&p, 30);
	mrue_get_stats(p.b, &st);
	CHECK(st.drop_decode == 2 && st.drop_icrc == 1 && st.drop_qpn == 1 &&
	      st.drop_src == 2 && st.drop_payload == 1 &&
	      st.drop_oversize == 1, "drops decode %" PRIu64 " icrc %" PRIu64
	      " qpn %" PRIu64 " src %" PRIu64 " payload %" PRIu64
	      " oversize %" PRIu64, st.drop_decode, st.drop_icrc, st.drop_qpn,
	      st.drop_src, st.drop_payload, st.drop_oversize);
	CHECK(st.acks_tx == 0 && st.recv_cqes == 0, "no effect");
	CHECK(mrue_state(p.b) == MRUE_QPS_RTS, "still RTS");
	/* the reply reached a, which had no probe out: dropped, counted */
	CHECK(st.probe_replies == 1, "probe replies %" PRIu64,
	      st.probe_replies);
	mrue_get_stats(p.a, &st);
	CHECK(st.resp_dup == 1, "reply of no probe %" PRIu64, st.resp_dup);
	pair_close(&p);
	/* and the QP still works: the workload on fresh endpoints */
	return run_both(0, 0, 0, 70, 700, 0xBAD3, &sa, &sbs);
}

/*
 * MR-TRIM-2, MR-TRIM-3, MR-REL-16: datagrams with the trimmed DSCP (6) as a
 * switch leaves them, cut at a fixed length with no TRIM flag: a cut SEND
 * is taken as trimmed and NACKed TRIMMED, nothing delivered; a PROBE with
 * a failing ICRC is dropped as trimmed; the same SEND whole is received.
 */
static int test_trimmed(void)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct mrue_info ia, ib;
	struct mrue_stats st;
	static uint8_t buf[2048];
	int tos = MR_TRIM_DSCP_DEFAULT << 2;
	struct mr_pkt pk;
	struct pair p;
	int fd, n;

	if (hostile_open(&p, 0x7121, &ia, &ib, &to, &fd))
		return -1;
	CHECK(setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) == 0,
	      "IP_TOS");

	n = forge(buf, sizeof(buf), ia.qpn, ib.qpn, ia.psn, 200);
	CHECK(n > 100, "encode");
	send_raw(fd, &to, buf, (size_t)n - 100);	/* cut: trimmed */
	memset(&pk, 0, sizeof(pk));
	pk.opcode = MR_OP_PROBE;
	pk.dqpn = ib.qpn;
	pk.sqpn = ia.qpn;
	n = mr_pkt_encode(&pk, buf, sizeof(buf));
	CHECK(n > 0, "probe");
	buf[n - 1] ^= 0x21;
	send_raw(fd, &to, buf, (size_t)n);		/* cut probe: dropped */
	settle(&p, 30);
	mrue_get_stats(p.b, &st);
	CHECK(st.rx_trimmed == 1 && st.nacks_tx[MR_NACK_TRIMMED] == 1 &&
	      st.drop_trimmed == 1 && st.drop_icrc == 0 &&
	      st.drop_decode == 0 && st.recv_cqes == 0 &&
	      st.probe_replies == 0,
	      "trimmed %" PRIu64 " nack %" PRIu64 " dropped %" PRIu64
	      " icrc %" PRIu64 " decode %" PRIu64, st.rx_trimmed,
	      st.nacks_tx[MR_NACK_TRIMMED], st.drop_trimmed, st.drop_icrc,
	      st.drop_decode);
	close(fd);
	pair_close(&p);
	return 0;
}

/* ---- 2. the tool as two processes ------------------------------------------ */

struct proc {
	pid_t pid;
	int out;		/* its stdout and stderr */
	char text[8192];
	size_t len;
	int status;
};

static int spawn(struct proc *pr, char *const argv[])
{
	int pfd[2];

	memset(pr, 0, sizeof(*pr));
	pr->status = -1;
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	pr->pid = fork();
	if (pr->pid < 0)
		return -1;
	if (!pr->pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	pr->out = pfd[0];
	fcntl(pr->out, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Read what @pr wrote so far; true once it closed its output. */
static bool drain(struct proc *pr)
{
	ssize_t k;

	for (;;) {
		if (pr->len + 1 >= sizeof(pr->text))
			pr->len = 0;	/* keep the tail */
		k = read(pr->out, pr->text + pr->len,
			 sizeof(pr->text) - 1 - pr->len);
		if (k > 0) {
			pr->len += (size_t)k;
			pr->text[pr->len] = 0;
			continue;
		}
		return k == 0;
	}
}

/* Wait for both to exit (kill them after @ms); their exit statuses. */
static void reap(struct proc *v, int n, int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;
	int i, left = n, st;

	while (left) {
		left = 0;
		for (i = 0; i < n; i++) {
			drain(&v[i]);
			if (v[i].status != -1)
				continue;
			if (waitpid(v[i].pid, &st, WNOHANG) == v[i].pid)
				v[i].status = WIFEXITED(st) ?
					      WEXITSTATUS(st) : 128;
			else
				left++;
		}
		if (left && now_ms() > end)
			for (i = 0; i < n; i++)
				if (v[i].status == -1)
					kill(v[i].pid, SIGKILL);
		if (left)
			usleep(2000);
	}
	for (i = 0; i < n; i++) {
		drain(&v[i]);
		close(v[i].out);
	}
}

static void print_indented(const char *text)
{
	const char *nl;

	for (; *text; text = nl + 1) {
		nl = strchr(text, '\n');
		if (!nl) {
			printf("  %s\n", text);
			return;
		}
		printf("  %.*s\n", (int)(nl - text), text);
	}
}

static uint64_t field(const char *text, const char *name)
{
	const char *s = strstr(text, name);

	return s ? strtoull(s + strlen(name), NULL, 10) : 0;
}

static int run_tool(const char *loss, const char *count, uint64_t *retx)
{
	char *srv[] = { (char *)tool_path, "--listen", "0", "--bind",
			"127.0.0.1", "--seed", "17", "--loss", (char *)loss,
			"--timeout", "50", NULL };
	char target[64], *cli[] = { (char *)tool_path, "--connect", target,
				    "--count", (char *)count, "--size", "2500",
				    "--seed", "4242", "--loss", (char *)loss,
				    "--timeout", "50", NULL };
	struct proc pr[2];
	uint64_t end = now_ms() + 10000;
	const char *s;
	int n = 1;

	CHECK(spawn(&pr[0], srv) == 0, "spawn server");
	while (!(s = strstr(pr[0].text, "listening on port ")) &&
	       now_ms() < end && !drain(&pr[0]))
		usleep(2000);
	if (s) {
		snprintf(target, sizeof(target), "127.0.0.1:%u",
			 (unsigned int)field(pr[0].text, "listening on port "));
		n = spawn(&pr[1], cli) == 0 ? 2 : 1;
	}
	reap(pr, n, 55000);
	print_indented(pr[0].text);
	if (n == 2)
		print_indented(pr[1].text);
	CHECK(n == 2, "the server did not listen");
	CHECK(pr[0].status == 0 && pr[1].status == 0,
	      "exit statuses %d %d", pr[0].status, pr[1].status);
	CHECK(strstr(pr[0].text, "server: ok") &&
	      strstr(pr[1].text, "client: ok"), "both report ok");
	retx[0] = field(pr[0].text, " retx=");
	retx[1] = field(pr[1].text, " retx=");
	return 0;
}

static int test_tool_clean(void)
{
	uint64_t retx[2];

	return run_tool("0", "2100", retx);
}

static int test_tool_lossy(void)
{
	uint64_t retx[2];

	if (run_tool("5", "2100", retx))
		return -1;
	CHECK(retx[0] > 10 && retx[1] > 10, "retransmissions %" PRIu64
	      " %" PRIu64, retx[0], retx[1]);
	return 0;
}

/* ---- test registry --------------------------------------------------------- */

struct tcase {
	const char *name;
	int (*fn)(void);
};

static const struct tcase tests[] = {
	{ "ops-clean", test_clean },
	{ "ops-lossy", test_lossy },
	{ "remote-access", test_remote_access },
	{ "invalid-ops", test_invalid_ops },
	{ "recv-errors", test_recv_errors },
	{ "rnr", test_rnr },
	{ "local-and-retry", test_local_and_retry },
	{ "hostile", test_hostile },
	{ "trimmed", test_trimmed },
	{ "tool-clean", test_tool_clean },
	{ "tool-lossy", test_tool_lossy },
};

/* Close what a failed test left open (ASan checks for leaks). */
static void cleanup(void)
{
	size_t i;

	for (i = 0; i < 2; i++)
		if (open_loads[i])
			load_fini(open_loads[i]);
	for (i = 0; i < 8; i++) {
		mrue_destroy(open_ues[i]);
		open_ues[i] = NULL;
	}
	open_loads[0] = open_loads[1] = NULL;
}

int main(int argc, char **argv)
{
	size_t i;
	int rc;
	uint64_t t0;

	tool_path = argc > 1 ? argv[1] : "./mr-ue";
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		printf("[ RUN  ] %s\n", tests[i].name);
		t0 = now_ms();
		rc = tests[i].fn();
		cleanup();
		if (rc == 0) {
			n_pass++;
			printf("[  OK  ] %s (%" PRIu64 " ms)\n", tests[i].name,
			       now_ms() - t0);
		} else {
			n_fail++;
			printf("[ FAIL ] %s (%" PRIu64 " ms)\n", tests[i].name,
			       now_ms() - t0);
		}
	}
	printf("endpoint: %d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
