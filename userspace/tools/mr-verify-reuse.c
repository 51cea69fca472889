// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-verify: --reuse-after-error, the same QPs again after the
 * expected error (ERR, drain, RESET, INIT, new PSNs, RTR, RTS).
 */
#include "mr-verify.h"

/* ------------------------------------------------------------------ */
/* Reuse after the expected error                                     */

static volatile sig_atomic_t got_usr1;

void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static const char *qp_state_name(enum ibv_qp_state st)
{
	static const char *const n[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return (unsigned)st < sizeof(n) / sizeof(n[0]) ? n[st] : "?";
}

/* Move every QP to st (RESET and ERR are allowed from any state). */
static void qps_to(struct mrv *run, enum ibv_qp_state st)
{
	for (uint32_t q = 0; q < run->o.nqp; q++) {
		struct ibv_qp_attr a = { .qp_state = st };
		int rc = ibv_modify_qp(run->s.qp[q], &a, IBV_QP_STATE);

		if (rc)
			fail(run, "REUSE: modify QP %u (0x%x) to %s failed: %s", q,
			     run->s.qp[q]->qp_num, qp_state_name(st), strerror(rc));
	}
}

/* The QPs' states as the device reports them, for the log. */
static void qp_states(struct mrv *run, char *out, size_t len)
{
	size_t o = 0;

	out[0] = 0;
	for (uint32_t q = 0; q < run->o.nqp && o < len; q++) {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		const char *st = "?";

		if (!ibv_query_qp(run->s.qp[q], &a, IBV_QP_STATE, &ia))
			st = qp_state_name(a.qp_state);
		o += snprintf(out + o, len - o, "%s%s", q ? "," : "", st);
	}
}

/* What the drain took off the CQs, for the log. */
struct drained {
	uint32_t n, ok, flushed;
};

/*
 * After the move to ERR every WR still posted comes back, flushed (IB spec
 * 10.3.1). Take them all off the CQ, so that nothing of the QPs' first life
 * shows up in their second. Some may have succeeded: a message that arrived
 * but whose ACK the fault lost completes at the responder only.
 */
static void drain_cq(struct mrv *run, struct ibv_cq *cq, const char *what, struct drained *dr)
{
	uint32_t *posted = cq == run->s.scq ? &run->s.sq_posted : &run->s.rq_posted;
	double deadline = now_s() + run->o.watchdog;
	struct ibv_wc wc[QDEPTH];

	while (*posted) {
		int k = poll_counted(run, cq, QDEPTH, wc, what);

		for (int i = 0; i < k; i++) {
			dr->ok += wc[i].status == IBV_WC_SUCCESS;
			dr->flushed += wc[i].status == IBV_WC_WR_FLUSH_ERR;
		}
		dr->n += (uint32_t)k;
		if (k)
			continue;
		if (now_s() >= deadline)
			fail(run, "REUSE: %u %s WR(s) never completed within %d s of the move to ERR",
			     *posted, what, run->o.watchdog);
		usleep(1000);
	}
}

/*
 * --reuse-hold: wait for SIGUSR1, so that a test lifts the fault that caused
 * the error before the reused QPs send again. The QPs sit in INIT meanwhile:
 * they neither send nor accept anything.
 */
void reuse_hold(struct mrv *run)
{
	double deadline = now_s() + run->o.watchdog;

	say(run, "REUSE: holding for SIGUSR1 (at most %d s)", run->o.watchdog);
	while (!got_usr1) {
		if (now_s() >= deadline)
			fail(run, "REUSE: no SIGUSR1 within %d s (--reuse-hold)",
			     run->o.watchdog);
		usleep(20000);
	}
}

/*
 * Meet the peer on the control channel. Before its REUSE the stream may
 * still hold what it sent before it learnt of the error (its own report of
 * the same failure, when both sides saw it): skip that.
 */
void reuse_sync(struct mrv *run)
{
	struct ctl c;

	ctl_simple(run, CTL_REUSE, 0, 0);
	for (int skipped = 0;; skipped++) {
		ctl_read(run, &c, CTL_REUSE);
		if (c.type == CTL_REUSE)
			break;
		if (skipped == 16)
			fail(run, "REUSE: no REUSE from the peer, %d other messages instead",
			     skipped);
		vsay(run, "REUSE: skipped a stale %s from the peer",
		     c.type < CTL_REUSE ? ctl_name[c.type] : "?");
	}
	if (c.fail)
		peer_failed(run, &c);
}

/*
 * The new starting PSNs, each way. The peer's QPNs must be the ones of the
 * first connection: its QPs were reset, not replaced.
 */
static void reuse_exchange(struct mrv *run)
{
	uint8_t mine[REUSE_LEN] = { 0 }, theirs[REUSE_LEN], *p = mine;
	const uint8_t *r = theirs;
	int rc;

	memcpy(p, REUSE_MAGIC, 8);
	p += 8;
	put32(&p, run->o.nqp);
	for (uint32_t q = 0; q < run->o.nqp; q++) {
		put32(&p, run->s.qp[q]->qp_num);
		put32(&p, run->s.psn[q]);
	}
	rc = swap_blocks(run, mine, theirs, REUSE_LEN, ctl_tmo(run));
	if (rc)
		fail(run, "REUSE: PSN exchange with the peer failed: %s",
		     rc == -EPIPE ? "connection closed" : strerror(-rc));
	if (memcmp(r, REUSE_MAGIC, 8))
		fail(run, "REUSE: the peer's PSN message is malformed");
	r += 8;
	if (get32(&r) != run->o.nqp)
		fail(run, "REUSE: the peer has another QP count");
	for (uint32_t q = 0; q < run->o.nqp; q++) {
		uint32_t qpn = get32(&r);

		if (qpn != run->s.peer.qpn[q])
			fail(run, "REUSE: the peer's QP %u is 0x%x, it was 0x%x: not the same QP",
			     q, qpn, run->s.peer.qpn[q]);
		run->s.peer.psn[q] = get32(&r);
	}
}

/* A short plan on the reused QPs: one pass, every opcode, new data. */
static void reuse_plan(struct mrv *run)
{
	run->o.time_s = 0;
	if (run->o.iters > REUSE_ITERS)
		run->o.iters = REUSE_ITERS;
	run->o.seed = mix(run->o.seed, 0x7265757365ull);
	run->s.ops = run->s.ops_avail;
	memset(run->s.msgs, 0, sizeof(run->s.msgs));
	memset(run->s.bytes, 0, sizeof(run->s.bytes));
	run->s.rounds = run->s.phases = run->s.passes = 0;
	run->s.dirs_run = 0;
}

/*
 * --reuse-after-error: the run ended with the expected error, seen here or
 * reported by the peer. Both sides bring back their very same QPs on the
 * same PD, MRs and CQs and verify a short pass on them. Never returns.
 */
void reuse_after_error(struct mrv *run)
{
	struct drained sdr = { 0 }, rdr = { 0 };
	char before[8 * MAX_QP];

	run->s.reusing = true;
	run->s.fail_sent = false;	/* a failure from here on is news to the peer */
	run->s.peer_reported = false;
	run->o.expect_err = -1;	/* no error completion is good any more */

	/* Through ERR even when still RTS: a reset flushes nothing. */
	qp_states(run, before, sizeof(before));
	qps_to(run, IBV_QPS_ERR);
	drain_cq(run, run->s.scq, "send", &sdr);
	drain_cq(run, run->s.rcq, "receive", &rdr);
	qps_to(run, IBV_QPS_RESET);
	for (uint32_t q = 0; q < run->o.nqp; q++) {
		int rc = qp_to_init(run, run->s.qp[q]);

		if (rc)
			fail(run, "REUSE: modify QP %u (0x%x) RESET to INIT failed: %s",
			     q, run->s.qp[q]->qp_num, strerror(rc));
		run->s.psn[q] = new_psn();
	}
	say(run, "REUSE: %u QP(s) reset (state before: %s), drained %u send and %u receive completion(s): %u flushed, %u successful",
	    run->o.nqp, before, sdr.n, rdr.n, sdr.flushed + rdr.flushed,
	    sdr.ok + rdr.ok);
	if (run->o.reuse_hold)
		reuse_hold(run);
	reuse_sync(run);
	reuse_exchange(run);
	connect_qps(run);
	reuse_plan(run);
	sync_peer(run);
	say(run, "REUSE: the same QP(s) RTS again, qpn 0x%x<->0x%x, psn 0x%06x<->0x%06x, seed %" PRIu64,
	    run->s.qp[0]->qp_num, run->s.peer.qpn[0], run->s.psn[0], run->s.peer.psn[0], run->o.seed);
	run_plan(run);
	summary(run, "REUSE: PASS");
	exit(0);
}
