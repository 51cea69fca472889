// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-hostile --victim: the insider's victim (its MR, guard areas,
 * canaries, one QP per step and the requester traffic towards the
 * insider).
 */
#include "mr-hostile.h"

/* ------------------------------------------------------------------ */
/* Victim                                                             */

static struct {
	struct ibv_pd *pd, *pd2;
	uint8_t *area, *mrb, *ob, *lb, *rb, *sb;
	size_t area_len;
	struct ibv_mr *mr, *omr, *lmr, *rmr, *smr;
	uint32_t srkey;
	uint64_t sva, pseed;
	/* per step */
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	uint32_t step;
	bool go, chk_recv, stop_post;
	union ibv_gid agid;
	uint64_t ava;
	uint32_t alen, arkey;
	uint32_t outstanding, rposted, rcv_idx;
	uint64_t wr_seq;
	int serr_st, rerr_st;	/* first non-flush error status, -1 none */
	uint32_t sok, serr, rok, rerr, rbad;
	char events[256];
	uint32_t steps, died;
} V = { .serr_st = -1, .rerr_st = -1 };

static uint8_t side_byte(int which, size_t i)
{
	return (uint8_t)((which ? 0x3C : 0xA7) ^ (i * 7));
}

static void v_fill_guards(void)
{
	memset(V.area, 0x5A, GUARD_LEN);
	memset(V.mrb + O.mr_size, 0x5A, GUARD_LEN);
}

/* Every byte the insider must not reach; restored after a report. */
static void v_check_canaries(char *out, size_t n)
{
	size_t bad;

	out[0] = 0;
	for (bad = 0; bad < GUARD_LEN && V.area[bad] == 0x5A; bad++)
		;
	if (bad < GUARD_LEN)
		snprintf(out + strlen(out), n - strlen(out), "guard_before+%zu,", bad);
	for (bad = 0; bad < GUARD_LEN && V.mrb[O.mr_size + bad] == 0x5A; bad++)
		;
	if (bad < GUARD_LEN)
		snprintf(out + strlen(out), n - strlen(out), "guard_after+%zu,", bad);
	v_fill_guards();
	for (int w = 0; w < 2; w++) {
		uint8_t *b = w ? V.ob : V.lb;

		for (bad = 0; bad < SIDE_LEN && b[bad] == side_byte(w, bad); bad++)
			;
		if (bad < SIDE_LEN)
			snprintf(out + strlen(out), n - strlen(out), "%s+%zu,",
				 w ? "other_pd_mr" : "local_only_mr", bad);
		for (size_t i = 0; i < SIDE_LEN; i++)
			b[i] = side_byte(w, i);
	}
	for (int s = 0; s < RSLOTS; s++) {
		uint8_t *c = V.rb + (size_t)s * RSLOT_LEN + RSGE_LEN;

		for (bad = 0; bad < RSLOT_LEN - RSGE_LEN && c[bad] == (uint8_t)(0xC3 ^ s); bad++)
			;
		if (bad < RSLOT_LEN - RSGE_LEN) {
			snprintf(out + strlen(out), n - strlen(out), "recv_slot%d_canary+%zu,", s, bad);
			memset(c, 0xC3 ^ s, RSLOT_LEN - RSGE_LEN);
		}
	}
	if (out[0])
		out[strlen(out) - 1] = 0;
}

static void v_post_recv(int slot)
{
	struct ibv_sge sg = { .addr = (uintptr_t)(V.rb + (size_t)slot * RSLOT_LEN),
			      .length = RSGE_LEN, .lkey = V.rmr->lkey };
	struct ibv_recv_wr wr = { .wr_id = WR_RECV | (uint64_t)slot, .sg_list = &sg,
				  .num_sge = 1 }, *bad;

	memset(V.rb + (size_t)slot * RSLOT_LEN, 0, RSGE_LEN);
	memset(V.rb + (size_t)slot * RSLOT_LEN + RSGE_LEN, 0xC3 ^ slot, RSLOT_LEN - RSGE_LEN);
	if (!ibv_post_srq_recv(V.srq, &wr, &bad))
		V.rposted++;
}

static void v_event_note(const char *name)
{
	if (strlen(V.events) + strlen(name) + 2 < sizeof(V.events)) {
		if (V.events[0])
			strcat(V.events, ",");
		strcat(V.events, name);
	}
}

/* One word per event: the report is a line of words. */
static const char *ev_name(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_CQ_ERR: return "CQ_ERR";
	case IBV_EVENT_QP_FATAL: return "QP_FATAL";
	case IBV_EVENT_QP_REQ_ERR: return "QP_REQ_ERR";
	case IBV_EVENT_QP_ACCESS_ERR: return "QP_ACCESS_ERR";
	case IBV_EVENT_COMM_EST: return "COMM_EST";
	case IBV_EVENT_SQ_DRAINED: return "SQ_DRAINED";
	case IBV_EVENT_PATH_MIG: return "PATH_MIG";
	case IBV_EVENT_PATH_MIG_ERR: return "PATH_MIG_ERR";
	case IBV_EVENT_DEVICE_FATAL: return "DEVICE_FATAL";
	case IBV_EVENT_PORT_ACTIVE: return "PORT_ACTIVE";
	case IBV_EVENT_PORT_ERR: return "PORT_ERR";
	case IBV_EVENT_LID_CHANGE: return "LID_CHANGE";
	case IBV_EVENT_PKEY_CHANGE: return "PKEY_CHANGE";
	case IBV_EVENT_SM_CHANGE: return "SM_CHANGE";
	case IBV_EVENT_SRQ_ERR: return "SRQ_ERR";
	case IBV_EVENT_SRQ_LIMIT_REACHED: return "SRQ_LIMIT";
	case IBV_EVENT_QP_LAST_WQE_REACHED: return "LAST_WQE";
	case IBV_EVENT_CLIENT_REREGISTER: return "CLIENT_REREG";
	case IBV_EVENT_GID_CHANGE: return "GID_CHANGE";
	default: return "EVENT?";
	}
}

static void v_async(void)
{
	struct ibv_async_event e;

	while (!ibv_get_async_event(D.ctx, &e)) {
		v_event_note(ev_name(e.event_type));
		ibv_ack_async_event(&e);
	}
}

static void v_wc(const struct ibv_wc *w)
{
	if (w->wr_id & WR_RECV) {
		int slot = (int)(w->wr_id & 0xffff);
		uint8_t *d = V.rb + (size_t)slot * RSLOT_LEN;

		V.rposted--;
		if (w->status == IBV_WC_SUCCESS) {
			V.rok++;
			/* The insider's SEND content (KEEP steps, in SSN order). */
			if (V.chk_recv && w->opcode == IBV_WC_RECV) {
				size_t bad = w->byte_len > RSGE_LEN ? 0 :
					pat_check(d, V.pseed ^ SEND_SEED,
						  (uint64_t)V.rcv_idx * 4096, w->byte_len);

				if (bad < w->byte_len) {
					violation("step %u: received SEND #%u (%u bytes) differs from what the insider sent at byte %zu: a packet that had to be dropped was placed",
						  V.step, V.rcv_idx, w->byte_len, bad);
					V.rbad++;
				}
			}
			V.rcv_idx++;
		} else {
			V.rerr++;
			if (V.rerr_st < 0 && w->status != IBV_WC_WR_FLUSH_ERR)
				V.rerr_st = w->status;
		}
		for (size_t i = 0; i < RSLOT_LEN - RSGE_LEN; i++)
			if (d[RSGE_LEN + i] != (uint8_t)(0xC3 ^ slot)) {
				violation("step %u: receive slot %d: byte %zu past the %u-byte SGE changed (status %s, byte_len %u)",
					  V.step, slot, i, RSGE_LEN,
					  ibv_wc_status_str(w->status), w->byte_len);
				break;
			}
		if (V.srq && !V.stop_post)
			v_post_recv(slot);
		return;
	}
	if (V.outstanding)
		V.outstanding--;
	if (w->status == IBV_WC_SUCCESS) {
		V.sok++;
	} else {
		V.serr++;
		if (V.serr_st < 0 && w->status != IBV_WC_WR_FLUSH_ERR)
			V.serr_st = w->status;
		V.stop_post = true;
	}
}

static void v_poll(void)
{
	struct ibv_wc wc[16];
	int n;

	if (!V.cq)
		return;
	while ((n = ibv_poll_cq(V.cq, 16, wc)) > 0)
		for (int i = 0; i < n; i++)
			v_wc(&wc[i]);
}

/* Requester traffic towards the insider's QP: the target of its forged
 * ACKs and NACKs. WRITE 4 KiB and READ 256 KiB in turn, two in flight. */
static void v_post_send(void)
{
	struct ibv_sge sg = { .lkey = V.smr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sg, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	bool rd;

	if (!V.qp || !V.go || V.stop_post || V.outstanding >= 2)
		return;
	rd = V.wr_seq % 2;
	sg.addr = (uintptr_t)V.sb;
	sg.length = rd ? V_READ_LEN : V_WRITE_LEN;
	if (sg.length > V.alen - PROBE_LEN)
		sg.length = V.alen - PROBE_LEN;
	wr.wr_id = V.wr_seq++;
	wr.opcode = rd ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
	/*
	 * Never the first PROBE_LEN bytes: the insider's health probe READs
	 * into them and checks what arrived; a WRITE landing there between
	 * its completion and the check would look like a wrong READ.
	 */
	wr.wr.rdma.remote_addr = V.ava + PROBE_LEN +
				 rnd_below((V.alen - PROBE_LEN) / sg.length) * sg.length;
	wr.wr.rdma.rkey = V.arkey;
	if (ibv_post_send(V.qp, &wr, &bad))
		V.stop_post = true;
	else
		V.outstanding++;
}

/*
 * Destroy the step's QP, SRQ and CQ; the seconds each took go to @t
 * (qp, srq, cq) when given, so that a slow destroy names its object.
 */
static void v_step_free_timed(double t[3])
{
	double t0 = now_s();

	if (V.qp && ibv_destroy_qp(V.qp))
		violation("step %u: ibv_destroy_qp: %s", V.step, strerror(errno));
	V.qp = NULL;
	v_poll();
	if (t)
		t[0] = now_s() - t0;
	t0 = now_s();
	if (V.srq && ibv_destroy_srq(V.srq))
		violation("step %u: ibv_destroy_srq: %s", V.step, strerror(errno));
	V.srq = NULL;
	if (t)
		t[1] = now_s() - t0;
	t0 = now_s();
	if (V.cq && ibv_destroy_cq(V.cq))
		violation("step %u: ibv_destroy_cq: %s", V.step, strerror(errno));
	V.cq = NULL;
	if (t)
		t[2] = now_s() - t0;
}

static void v_step_free(void)
{
	v_step_free_timed(NULL);
}

static void v_round(const char *l)
{
	char gs[40];
	unsigned long long ava;
	unsigned int step, aqpn, apsn, alen, arkey, chk, acc;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 2 * RSLOTS, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 16, .max_send_sge = 1,
						.max_recv_sge = 1 } };
	uint32_t v0 = rnd32() & MR_PSN_MASK;

	if (sscanf(l, "ROUND %u qpn=%x psn=%x gid=%32s ava=%llx alen=%x arkey=%x chk=%u acc=%x",
		   &step, &aqpn, &apsn, gs, &ava, &alen, &arkey, &chk, &acc) != 9 ||
	    !gid_parse(gs, &V.agid) || alen < 2 * PROBE_LEN) {
		ctl_send("FAIL 0 bad ROUND line");
		return;
	}
	if (V.qp)
		v_step_free();
	V.step = step;
	V.ava = ava;
	V.alen = alen;
	V.arkey = arkey;
	V.chk_recv = chk;
	V.go = V.stop_post = false;
	V.outstanding = V.rposted = V.rcv_idx = 0;
	V.serr_st = V.rerr_st = -1;
	V.sok = V.serr = V.rok = V.rerr = V.rbad = 0;
	V.events[0] = 0;
	v_async();
	V.events[0] = 0;
	V.cq = ibv_create_cq(D.ctx, 512, NULL, NULL, 0);
	V.srq = V.cq ? ibv_create_srq(V.pd, &sa) : NULL;
	if (!V.cq || !V.srq) {
		ctl_send("FAIL %u create CQ/SRQ: %s", step, strerror(errno));
		v_step_free();
		return;
	}
	for (int s = 0; s < RSLOTS; s++)
		v_post_recv(s);
	qa.send_cq = qa.recv_cq = V.cq;
	qa.srq = V.srq;
	V.qp = ibv_create_qp(V.pd, &qa);
	/* The QP's access flags: all, or those a step names (MR-VERBS-21). */
	if (!acc)
		acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	if (!V.qp || qp_to_init(V.qp, (int)acc) ||
	    qp_to_rtr_rts(V.qp, aqpn, apsn, v0, &V.agid)) {
		ctl_send("FAIL %u create/connect QP: %s", step, strerror(errno));
		v_step_free();
		return;
	}
	V.steps++;
	ctl_send("READY %u qpn=%x psn=%x", step, V.qp->qp_num, v0);
}

/* The device's pmtu_drops counter (MR-PLACE-9), -1 if it has none. */
static long long v_pmtu_drops(void)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/hw_counters/pmtu_drops",
		 ibv_get_device_name(D.ctx->device), (int)O.ib_port);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * The insider saw this step's QP end where it must not, or not end where
 * it must: print its transport state (kernel/restrack.c) while the QP
 * still exists, and the device's counters, for the log. The state comes
 * with the listing only, not with "lqpn N" (admin guide).
 */
static void v_diag(unsigned int step)
{
	const char *dev = ibv_get_device_name(D.ctx->device);
	char cmd[256];

	if (V.qp && step == V.step) {
		say("step %u: the QP's transport state and the device's counters:", step);
		fflush(stdout);
		snprintf(cmd, sizeof(cmd),
			 "rdma -dd res show qp link %s/%d | grep 'lqpn %u ' && rdma statistic show link %s/%d",
			 dev, O.ib_port, V.qp->qp_num, dev, O.ib_port);
		if (system(cmd) != 0)
			say("step %u: '%s' failed", step, cmd);
		fflush(stdout);
	}
	ctl_send("DIAGED %u", step);
}

static void v_end(unsigned int step)
{
	int before = qp_state(V.qp);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	char can[512], flush[64];
	double t0 = now_s(), t1, td[3];

	if (V.qp)
		ibv_modify_qp(V.qp, &a, IBV_QP_STATE);
	V.stop_post = true;
	/* Every WR must come back, flushed or not (MR-VERBS-25). */
	while (V.outstanding && now_s() - t0 < 10.0 * O.slowdown) {
		v_poll();
		v_async();
		usleep(2000);
	}
	if (V.outstanding) {
		violation("step %u: %u send WR(s) still not completed %u s after the QP was moved to ERR (MR-VERBS-25)",
			  step, V.outstanding, 10 * O.slowdown);
		snprintf(flush, sizeof(flush), "HUNG(%u)", V.outstanding);
	} else {
		snprintf(flush, sizeof(flush), "ok");
	}
	v_async();
	t1 = now_s();
	v_step_free_timed(td);
	t1 = now_s() - t1;
	if (t1 > 1.0)
		say("step %u: destroying the QP took %.2f s, the SRQ %.2f s, the CQ %.2f s",
		    step, td[0], td[1], td[2]);
	if (t1 > 5.0 * O.slowdown)
		violation("step %u: destroying the QP, SRQ and CQ took %.1f s (QP %.2f s, SRQ %.2f s, CQ %.2f s)",
			  step, t1, td[0], td[1], td[2]);
	v_check_canaries(can, sizeof(can));
	if (can[0])
		violation("step %u: memory outside every region the insider may write changed: %s",
			  step, can);
	if (before == IBV_QPS_ERR)
		V.died++;
	ctl_send("ENDED %u state=%s serr=%d rerr=%d sok=%u serrn=%u rok=%u rerrn=%u rbad=%u events=%s flush=%s destroy=%.2f canary=%s",
		 step, qps_name(before), V.serr_st, V.rerr_st, V.sok, V.serr,
		 V.rok, V.rerr, V.rbad, V.events[0] ? V.events : "-", flush,
		 t1, can[0] ? can : "ok");
}

/* At the end, the whole MR must still hold the pattern: every byte the
 * insider wrote was the pattern, so any other value was placed by a packet
 * that had to be dropped (bad ICRC, trimmed, out of window) or by an atomic
 * that had to be answered from the cache (MR-REL-9). */
static void v_check_mr(void)
{
	uint64_t bad = 0, first = 0, words = O.mr_size / 8;
	const uint64_t *w = (const uint64_t *)V.mrb;

	for (uint64_t k = 0; k < words; k++)
		if (w[k] != pat_word(V.pseed, k)) {
			if (!bad++)
				first = k * 8;
		}
	if (bad)
		violation("the MR lost its pattern in %" PRIu64 " word(s), the first at offset %#" PRIx64
			  " (a packet that must be dropped was placed, or an atomic re-executed)",
			  bad, first);
	else
		say("MR pattern intact (%" PRIu64 " MiB)", O.mr_size >> 20);
}

void run_victim(void)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE }, *ai;
	int ls, one = 1, acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	struct ibv_mr *st;
	char gs[40];
	double end;

	role = "victim";
	dev_open();
	V.pd = ibv_alloc_pd(D.ctx);
	V.pd2 = ibv_alloc_pd(D.ctx);
	if (!V.pd || !V.pd2)
		die("ibv_alloc_pd: %s", strerror(errno));
	V.area_len = GUARD_LEN + O.mr_size + GUARD_LEN;
	V.area = alloc_pinned(V.area_len);
	V.mrb = V.area + GUARD_LEN;
	V.pseed = rnd64();
	for (uint64_t k = 0; k < O.mr_size / 8; k++)
		((uint64_t *)V.mrb)[k] = pat_word(V.pseed, k);
	v_fill_guards();
	V.mr = ibv_reg_mr(V.pd, V.mrb, O.mr_size, acc);
	V.ob = alloc_pinned(SIDE_LEN);
	V.lb = alloc_pinned(SIDE_LEN);
	for (size_t i = 0; i < SIDE_LEN; i++) {
		V.ob[i] = side_byte(1, i);
		V.lb[i] = side_byte(0, i);
	}
	V.omr = ibv_reg_mr(V.pd2, V.ob, SIDE_LEN, acc);
	V.lmr = ibv_reg_mr(V.pd, V.lb, SIDE_LEN, IBV_ACCESS_LOCAL_WRITE);
	V.rb = alloc_pinned((size_t)RSLOTS * RSLOT_LEN);
	V.rmr = ibv_reg_mr(V.pd, V.rb, (size_t)RSLOTS * RSLOT_LEN, IBV_ACCESS_LOCAL_WRITE);
	V.sb = alloc_pinned(V_SBUF_LEN);
	V.smr = ibv_reg_mr(V.pd, V.sb, V_SBUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	/* The R_Key of a region that no longer exists (MR-SEC-1). */
	st = ibv_reg_mr(V.pd, V.sb, SIDE_LEN, acc);
	if (!V.mr || !V.omr || !V.lmr || !V.rmr || !V.smr || !st)
		die("ibv_reg_mr (MR of %" PRIu64 " MiB): %s", O.mr_size >> 20, strerror(errno));
	V.srkey = st->rkey;
	V.sva = (uintptr_t)V.sb;
	ibv_dereg_mr(st);

	if (getaddrinfo(NULL, O.ctl_port, &hints, &ai))
		die("getaddrinfo(port %s)", O.ctl_port);
	ls = socket(ai->ai_family, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, ai->ai_addr, ai->ai_addrlen) || listen(ls, 1))
		die("listen on TCP port %s: %s", O.ctl_port, strerror(errno));
	freeaddrinfo(ai);
	say("VICTIM-READY %s, MR %" PRIu64 " MiB at %p rkey %#x, other-PD rkey %#x, local-only rkey %#x, stale rkey %#x, TCP port %s",
	    ibv_get_device_name(D.ctx->device), O.mr_size >> 20, (void *)V.mrb,
	    V.mr->rkey, V.omr->rkey, V.lmr->rkey, V.srkey, O.ctl_port);
	fflush(stdout);
	{
		struct pollfd pf = { .fd = ls, .events = POLLIN };

		if (poll(&pf, 1, O.connect_timeout * 1000) <= 0)
			die("no insider connected within %d s", O.connect_timeout);
	}
	ctl = accept(ls, NULL, NULL);
	if (ctl < 0)
		die("accept: %s", strerror(errno));
	setsockopt(ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(ls);
	gid_hex(&D.gid, gs);
	ctl_send("HELLO va=%llx len=%llx rkey=%x ova=%llx orkey=%x lva=%llx lrkey=%x sva=%llx srkey=%x seed=%llx gid=%s",
		 (unsigned long long)(uintptr_t)V.mrb, (unsigned long long)O.mr_size,
		 V.mr->rkey, (unsigned long long)(uintptr_t)V.ob, V.omr->rkey,
		 (unsigned long long)(uintptr_t)V.lb, V.lmr->rkey,
		 (unsigned long long)V.sva, V.srkey, (unsigned long long)V.pseed, gs);
	end = t_start + O.time_s;
	for (;;) {
		char l[512];
		struct pollfd pf[2] = { { .fd = ctl, .events = POLLIN },
					{ .fd = D.ctx->async_fd, .events = POLLIN } };

		poll(pf, 2, 5);
		ctl_read();
		while (lq_n) {
			lq_copy(l, sizeof(l), lq[0]);
			memmove(lq[0], lq[1], (size_t)(lq_n - 1) * sizeof(lq[0]));
			lq_n--;
			if (!strncmp(l, "ROUND ", 6)) {
				v_round(l);
			} else if (!strncmp(l, "GO ", 3)) {
				V.go = true;
			} else if (!strncmp(l, "PING ", 5)) {
				int s = qp_state(V.qp);

				ctl_send("PONG %s state=%s serr=%d rerr=%d pmtu=%lld", l + 5,
					 V.qp ? qps_name(s) : "-", V.serr_st, V.rerr_st,
					 v_pmtu_drops());
			} else if (!strncmp(l, "DIAG ", 5)) {
				v_diag((unsigned int)strtoul(l + 5, NULL, 10));
			} else if (!strncmp(l, "END ", 4)) {
				v_end((unsigned int)strtoul(l + 4, NULL, 10));
			} else if (!strncmp(l, "BYE", 3)) {
				if (V.qp)
					v_step_free();
				v_check_mr();
				say("done: %u steps, %u ended with the QP in ERR, %u violation(s)",
				    V.steps, V.died, violations);
				ctl_send("BYE violations=%u", violations);
				exit(violations ? 1 : 0);
			}
		}
		v_poll();
		v_post_send();
		v_async();
		if (ctl_eof) {
			violation("the control channel closed before BYE (the insider died?)");
			exit(1);
		}
		if (now_s() > end) {
			violation("still running after --time %u s", O.time_s);
			exit(1);
		}
	}
}

