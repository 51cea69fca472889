// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-conform cases with the DUT as requester under loss: the tester, its
 * responder, withholds ACKs, SACKs selectively and sends NACKs, and checks
 * when and what the DUT retransmits (LOSS, RETRY) and how its window and
 * paths react (CC-11, MP-23, MP-33).
 *
 * Times are taken from the DUT's own MBH timestamps (microseconds of its
 * clock at transmission, MR-HDR-9) wherever a gap between two of its
 * packets is judged: the tester's arrival times add the jitter of the
 * emulated network, the DUT's timestamps do not.  The bounds assume the
 * DUT's defaults are the software profile of MR-CC-18 (init_rto 10 ms,
 * min_rto 5 ms, max_rto 1 s), as conformance.rst states.
 */
#include <string.h>
#include <unistd.h>

#include "mr-conform.h"

#define L_VA	0x10550000ull
#define L_RKEY	0x0000D0D0u

#define MIN_RTO_US	5000	/* min_rto of the software profile */
#define MAXCOPY		64

/* One copy of a request packet of the DUT. */
struct copy {
	uint32_t d;		/* PSN - q->dut_psn */
	uint32_t ts;		/* MBH.ts (DUT clock, us) */
	double t;		/* arrival, tester clock */
	uint16_t sport, flags;
	uint8_t path;
};

/* Signed difference of two DUT timestamps in microseconds (MR-WIN-5). */
static int32_t ts_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

/* The next request packet of @q (opcode @op), checked by wire_check(),
 * into @c; false if none within @tmo s. */
static bool copy_take(struct tctx *t, struct tqp *q, uint8_t op, double tmo, struct copy *c)
{
	struct rxpkt r;

	if (!rx_take(q->my_qpn, op, tmo, &r))
		return false;
	wire_check(t, "request copy", q, &r);
	c->d = (r.p.psn - q->dut_psn) & MR_PSN_MASK;
	c->ts = r.p.ts;
	c->t = r.t;
	c->sport = r.sport;
	c->flags = r.p.flags;
	c->path = r.p.path;
	return true;
}

/*
 * The next copy of DUT PSN +@d (opcode @op) into @c, passing over copies
 * of other PSNs: an RTO copy of an earlier packet that the DUT sent
 * before the ACK covering it reached it arrives after that ACK left.
 * At most MAXCOPY copies are passed over; false if none within @tmo s
 * of the last one.
 */
static bool copy_take_psn(struct tctx *t, struct tqp *q, uint8_t op, uint32_t d, double tmo,
			  struct copy *c)
{
	unsigned int skipped = 0;

	while (copy_take(t, q, op, tmo, c)) {
		if (c->d == d)
			return true;
		if (++skipped > MAXCOPY)
			break;
		diag("passed over a late copy of PSN +%u (DUT ts %u)", c->d, c->ts);
	}
	return false;
}

/* A NACK of the tester's for DUT PSN +@d, cum_psn +@cum. */
static void tx_nack(const struct tqp *q, uint32_t cum, uint8_t reason, uint32_t d,
		    uint8_t rnr_timer, const struct copy *trig)
{
	struct mr_pkt n;

	memset(&n, 0, sizeof(n));
	n.opcode = MR_OP_NACK;
	n.path = trig->path;
	n.dqpn = q->dut_qpn;
	n.sqpn = q->my_qpn;
	n.ts = ts_now();
	n.akh.cum_psn = (q->dut_psn + cum) & MR_PSN_MASK;
	n.akh.ts_echo = trig->ts;
	n.akh.pkt_count = 1;
	n.akh.credit = MR_CREDIT_UNLIMITED;
	n.nkh.reason = reason;
	n.nkh.rnr_timer = rnr_timer;
	n.nkh.nack_psn = (q->dut_psn + d) & MR_PSN_MASK;
	tx_pkt(&n);
}

/* An ACK for the copy @c: cum_psn +@cum, msn @msn. */
static void ack_copy(const struct tqp *q, uint32_t cum, uint32_t msn, const struct copy *c)
{
	struct rxpkt trig;

	memset(&trig, 0, sizeof(trig));
	trig.p.path = c->path;
	trig.p.ts = c->ts;
	tx_ack(q, q->dut_psn + cum, msn, &trig);
}

static bool post_write(struct tctx *t, const struct tqp *q, unsigned int wrid, uint32_t len)
{
	if (!agent("POST %d WRITE %u 1 0 %u 0x%x 0x%llx 0 0 0 1", q->id, wrid, len, L_RKEY,
		   (unsigned long long)L_VA)) {
		fail_at(t, __LINE__, "agent: POST: %s", agent_err);
		return false;
	}
	return true;
}

/* A 4-packet WRITE posted; its copies into @c (*@n of them) until the 4
 * first transmissions are in. */
static bool write4(struct tctx *t, struct tqp *q, unsigned int wrid, struct copy *c,
		   unsigned int *n)
{
	unsigned int nfirst = 0;

	*n = 0;
	if (!post_write(t, q, wrid, 4 * PMTU))
		return false;
	while (nfirst < 4 && *n < MAXCOPY && copy_take(t, q, MR_OP_WRITE, 2 * WAIT_RESP, &c[*n])) {
		if (!(c[*n].flags & MR_F_RETX))
			nfirst++;
		(*n)++;
	}
	if (nfirst != 4)
		fail_at(t, __LINE__, "%u first transmissions of a 4-packet WRITE", nfirst);
	return nfirst == 4;
}

/* write4(), then, @late_ms after the last first copy, the ACKs of PSNs
 * +0..+3 in order, 2 ms apart, each echoing its first copy's path and
 * timestamp; the WR completes.  RTT samples of @late_ms or more make the
 * DUT's RTO a few times that: a slow tester then causes no RTO. */
static bool write4_acked(struct tctx *t, struct tqp *q, unsigned int wrid, struct copy *c,
			 unsigned int *n, unsigned int late_ms)
{
	struct cqe e[2];
	unsigned int k;

	if (!write4(t, q, wrid, c, n))
		return false;
	if (late_ms) {
		net_pump(late_ms / 1000.0);
		rx_flush();
	}
	for (uint32_t d = 0; d < 4; d++) {
		for (k = 0; k < *n && (c[k].d != d || (c[k].flags & MR_F_RETX)); k++)
			;
		if (k == *n) {
			fail_at(t, __LINE__, "no first copy of PSN +%u", d);
			return false;
		}
		ack_copy(q, d + 1, d == 3, &c[k]);
		usleep(2000);
	}
	if (cqe_wait(q, e, 1, WAIT_RESP) != 1 || e[0].status != IBV_WC_SUCCESS) {
		fail_at(t, __LINE__, "no successful completion of the 4-packet WRITE");
		return false;
	}
	return true;
}

/* The path answered last before copy set @c (their ACKs in PSN order),
 * other than @avoid; -1 if every copy used @avoid. */
static int last_answered(const struct copy *c, unsigned int n, uint8_t avoid)
{
	for (int d = 3; d >= 0; d--)
		for (unsigned int k = 0; k < n; k++)
			if (c[k].d == (uint32_t)d && !(c[k].flags & MR_F_RETX) &&
			    c[k].path != avoid && c[k].path < MR_MAX_PATHS)
				return c[k].path;
	return -1;
}

/* ------------------------------------------------------------------ */
/* RTO: timing, backoff, what is resent, its reset on progress          */

static void c_rto_backoff(struct tctx *t)
{
	struct tqp q;
	struct copy c[MAXCOPY], x;
	unsigned int n = 0, nre = 0;
	int lastport[MR_MAX_PATHS];
	int32_t lastgap = 0;
	double end;
	struct cqe e[2];

	memset(lastport, 0, sizeof(lastport));
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	/* The 4 first transmissions; then 3 duplicate ACKs (no delivery),
	 * which must not make the DUT resend (MR-LOSS-1). */
	if (!write4(t, &q, 901, c, &n))
		goto out;
	for (int k = 0; k < 3; k++)
		ack_copy(&q, 0, 0, &c[0]);
	/* No ACK now: RTO after RTO until a gap of 320 ms or more (or 3 s). */
	end = now_s() + 3.0 * O.slow;
	while (n < MAXCOPY && now_s() < end && lastgap < 320000) {
		if (!copy_take(t, &q, MR_OP_WRITE, 0.1, &c[n]))
			continue;
		if (n >= 4)
			lastgap = ts_diff(c[n].ts, c[n - 1].ts);
		n++;
	}
	nre = n - 4;
	diag("%u retransmissions, last gap %d us", nre, lastgap);
	REQUIRE(t, nre >= 5 && lastgap >= 320000,
		"%u retransmissions, the last gap %d us, within 3 s without an ACK (MR-LOSS-7, MR-LOSS-8)",
		nre, lastgap);
	for (unsigned int i = 0; i < 4; i++)
		if (c[i].path < MR_MAX_PATHS)
			lastport[c[i].path] = c[i].sport;
	for (unsigned int i = 4; i < n; i++) {
		int32_t g = ts_diff(c[i].ts, c[i - 1].ts);
		/* expiry k (1..) comes at least min_rto * 2^(k-1) after the
		 * one before: the floor of MR-LOSS-6 and the backoff of
		 * MR-LOSS-8 (max_rto_eff, about 1 s, is not reached) */
		int64_t floor = (int64_t)MIN_RTO_US << (i - 4 < 7 ? i - 4 : 7);

		EXPECT(t, i == 4 || g >= 4000,
		       "retransmissions %u and %u %d us apart: more than one packet per RTO after cwnd = 1 (MR-CC-11, MR-CC-3)",
		       i - 5, i - 4, g);
		EXPECT(t, g >= floor * 95 / 100,
		       "retransmission %u %d us after the previous copy, want >= %lld (MR-LOSS-6, MR-LOSS-8)",
		       i - 4, g, (long long)floor);
		EXPECT(t, ts_diff(c[i].ts, c[i - 1].ts) > 0,
		       "a retransmission without a fresh timestamp (MR-HDR-9)");
		/* Each expiry re-rolls the paths that had packets in flight. */
		if (c[i].path < MR_MAX_PATHS) {
			EXPECT(t, lastport[c[i].path] != c[i].sport,
			       "retransmission %u on path %u from port %u, its entropy before the RTO (MR-MP-23)",
			       i - 4, c[i].path, c[i].sport);
			lastport[c[i].path] = c[i].sport;
		}
	}
	EXPECT(t, ts_diff(c[4].ts, c[0].ts) < 500000,
	       "the first RTO came %d us after the first send: T_verbs is not the minimum (MR-RETRY-3)",
	       ts_diff(c[4].ts, c[0].ts));
	/* Path changes are no QP event (MR-MP-16). */
	EXPECT(t, cqe_wait(&q, e, 1, 0.01) == 0, "a completion without an ACK (MR-MP-16)");
	EXPECT(t, !strcmp(dut_qp_state(&q), "RTS"), "QP left RTS during retransmissions (MR-MP-16)");
	/* Progress: PSN +0 delivered; backoff back to 0 (MR-LOSS-9).  The
	 * window sends some of PSNs +1..+3 at once (paced); the first PSN
	 * that comes a second time comes by the next RTO, which must be
	 * far shorter than the backed-off one (>= 320 ms by now, doubled
	 * once more without the reset). */
	ack_copy(&q, 1, 0, &c[n - 1]);
	{
		struct copy y;
		uint32_t lastts[4] = { 0, 0, 0, 0 };
		bool seenp[4] = { false, false, false, false };
		int32_t g = 0;
		double stop = now_s() + 2.0 * O.slow;

		while (now_s() < stop) {
			if (!copy_take(t, &q, MR_OP_WRITE, 0.05, &y) || y.d < 1 || y.d > 3)
				continue;
			if (seenp[y.d]) {
				g = ts_diff(y.ts, lastts[y.d]);
				break;
			}
			seenp[y.d] = true;
			lastts[y.d] = y.ts;
		}
		diag("after the ACK: the next RTO %d us after its PSN's copy (before: %d)", g, lastgap);
		EXPECT(t, g > 0 && g < lastgap,
		       "the first RTO after progress came %d us after the copy it resent, the backed-off RTO was %d us: backoff not reset (MR-LOSS-9)",
		       g, lastgap);
	}
	memset(&x, 0, sizeof(x));
	x.ts = c[n - 1].ts;
	x.path = c[n - 1].path;
	ack_copy(&q, 4, 1, &x);
	EXPECT(t, cqe_wait(&q, e, 1, WAIT_RESP) == 1 && e[0].status == IBV_WC_SUCCESS,
	       "no successful completion after the ACK of all");
out:
	tqp_close(&q);
}

/* In an RTO episode the retransmission goes on the path answered last
 * (MR-MP-33): a 4-packet WRITE, each packet ACKed on its own 2 ms
 * apart echoing its path, then a 1-packet WRITE left unanswered.  Its
 * retransmission must use the path of the latest of those ACKs that is
 * not the lost copy's own, with the entropy that path had then (no
 * re-roll: it had nothing in flight at the expiry, MR-MP-23). */
static void c_rto_answered_path(struct tctx *t)
{
	struct tqp q;
	struct copy c[MAXCOPY], y, r;
	int lastport[MR_MAX_PATHS];
	unsigned int n = 0, k, setup_retx = 0;
	int want = -1;
	bool got = false;
	struct cqe e[2];

	memset(lastport, -1, sizeof(lastport));
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	if (!write4_acked(t, &q, 931, c, &n, 0))
		goto out;
	for (k = 0; k < n; k++)
		if (c[k].path < MR_MAX_PATHS)
			lastport[c[k].path] = c[k].sport;
	if (!post_write(t, &q, 932, PMTU))
		goto out;
	/* Copies of PSNs +0..+3 before it are an RTO of the setup (the
	 * ACKs late): their paths were re-rolled, and an entropy the tester
	 * did not see may have been answered since; then only the path is
	 * judged. */
	for (;;) {
		REQUIRE(t, copy_take(t, &q, MR_OP_WRITE, WAIT_RESP, &y),
			"no first copy of the 1-packet WRITE");
		if (y.d == 4)
			break;
		setup_retx++;
	}
	REQUIRE(t, !(y.flags & MR_F_RETX), "the 1-packet WRITE's first copy is flagged a retransmission");
	/* the path answered last, other than the lost copy's */
	want = last_answered(c, n, y.path);
	REQUIRE(t, want >= 0,
		"the DUT sent its 5 packets on path %u alone: MR-MP-33 needs a sender with more than one path (a Multipath DUT, MR-CONF-1)",
		y.path);
	while (copy_take(t, &q, MR_OP_WRITE, 2.0 * O.slow, &r))
		if (r.d == 4) {
			got = true;
			break;
		}
	REQUIRE(t, got, "no retransmission of the unanswered packet within 2 s (MR-LOSS-8)");
	diag("lost copy on path %u; ACKs echoed paths, the last other %d; retransmission on path %u port %u",
	     y.path, want, r.path, r.sport);
	if (setup_retx)
		diag("%u retransmissions during the setup: the path alone is judged", setup_retx);
	EXPECT(t, r.path == want && (setup_retx || r.sport == lastport[want]),
	       "the RTO's retransmission went on path %u port %u, not on path %d (port %d), the one answered last (MR-MP-33)",
	       r.path, r.sport, want, lastport[want]);
	ack_copy(&q, 5, 2, &r);
	EXPECT(t, cqe_wait(&q, e, 1, WAIT_RESP) == 1 && e[0].status == IBV_WC_SUCCESS,
	       "no successful completion after the ACK of the retransmission");
out:
	tqp_close(&q);
}

/* A READ_RESP piece of the tester's for READ_REQ @r: bytes [@off, +@len)
 * of @data, msg_len @end (the requested range's end). */
static void read_piece(const struct tqp *q, const struct rxpkt *r, const uint8_t *data,
		       uint32_t off, uint32_t len, uint32_t end, uint16_t flags)
{
	struct mr_pkt a;

	memset(&a, 0, sizeof(a));
	a.opcode = MR_OP_READ_RESP;
	a.path = r->p.path;
	a.dqpn = q->dut_qpn;
	a.sqpn = q->my_qpn;
	a.psn = r->p.psn;
	a.ts = ts_now();
	a.flags = flags;
	a.dxh.msn = r->p.dxh.msn;
	a.dxh.offset = off;
	a.dxh.msg_len = end;
	a.payload = data + off;
	a.payload_len = len;
	tx_pkt(&a);
}

bool read_answer(const struct tqp *q, const struct rxpkt *r, const uint8_t *data,
		 uint32_t len)
{
	uint32_t off = r->p.dxh.offset, end = off + r->p.dxh.msg_len;

	if (end > len || end < off)
		return false;
	for (uint32_t n; off < end; off += n) {
		n = end - off < PMTU ? end - off : PMTU;
		read_piece(q, r, data, off, n, end,
			   (off ? 0 : MR_F_FIRST) | (off + n == end ? MR_F_LAST : 0));
	}
	return true;
}

/*
 * A READ whose responses stall (MR-MP-34): its READ_REQ is answered by
 * the first piece alone, which acknowledges it (MR-REL-21), then
 * nothing.  An RTO later the DUT asks again for the rest (MR-LOSS-14) on
 * the path answered last other than the READ_REQ's (a WRITE's ACKs
 * before it, each echoing its packet's path), and the READ_REQ's path
 * has a new entropy: the first packet on it of a WRITE that follows
 * comes from another UDP port.  The WRITE's ACKs come 25 ms late, so
 * the DUT's RTO is well above a slow tester's reaction to the READ_REQ.
 */
static void c_read_stall_path(struct tctx *t)
{
	static uint8_t data[2500];
	struct tqp q;
	struct copy c[MAXCOPY], y;
	struct rxpkt r, rr;
	struct cqe e[2];
	unsigned int n = 0, k, setup_retx, resent = 0;
	uint64_t h;
	int want;
	uint8_t rpath;
	int rport;
	bool seen = false;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	if (!write4_acked(t, &q, 941, c, &n, 25))
		goto out;
	setup_retx = n - 4;
	mrc_pat_fill(data, 0x57A1, 0, sizeof(data));
	REQUIRE(t, agent("POST %d READ 942 1 8192 2500 0x%x 0x%llx 0 0 0 1", q.id, L_RKEY,
			 (unsigned long long)L_VA), "agent: POST: %s", agent_err);
	do
		REQUIRE(t, rx_take(q.my_qpn, MR_OP_READ_REQ, 2 * WAIT_RESP, &r), "no READ_REQ");
	while (((r.p.psn - q.dut_psn) & MR_PSN_MASK) != 4);
	rpath = r.p.path;
	rport = r.sport;
	want = last_answered(c, n, r.p.path);
	REQUIRE(t, want >= 0,
		"the DUT sent its WRITE on the READ_REQ's path %u alone: MR-MP-34 needs a requester with more than one path (a Multipath DUT, MR-CONF-1)",
		r.p.path);
	/* the first piece: the READ_REQ acknowledged, on its own path */
	read_piece(&q, &r, data, 0, PMTU, sizeof(data), MR_F_FIRST);
	for (;;) {
		REQUIRE(t, rx_take(q.my_qpn, MR_OP_READ_REQ, 4 * WAIT_RESP, &rr),
			"no READ_REQ asking again for a READ whose responses stopped (MR-LOSS-14)");
		if (rr.p.psn != r.p.psn)
			break;	/* a resend of the first is not the re-request */
		resent++;
		rpath = rr.p.path;
		rport = rr.sport;
	}
	diag("READ_REQ on path %u port %u; the re-request on path %u port %u; answered last: path %d",
	     r.p.path, r.sport, rr.p.path, rr.sport, want);
	/* An RTO before the first piece arrived (a tester slower than the
	 * DUT's RTO) resent the READ_REQ: the stalled request is then the
	 * resend, on its path, and the first piece answered the path of the
	 * first copy since; only the move off the stalled path is judged. */
	if (resent && rpath != r.p.path) {
		diag("the READ_REQ was resent %u times before the re-request, last on path %u: the path answered last is not judged",
		     resent, rpath);
		want = -1;
	}
	if (setup_retx)
		diag("%u retransmissions during the setup", setup_retx);
	EXPECT(t, rr.p.dxh.offset == PMTU && rr.p.dxh.msg_len == sizeof(data) - PMTU,
	       "the re-request asks for offset %u length %u, want %u %u (MR-REL-24)",
	       rr.p.dxh.offset, rr.p.dxh.msg_len, PMTU, (unsigned int)sizeof(data) - PMTU);
	if (want >= 0)
		EXPECT(t, rr.p.path == want,
		       "the re-request went on path %u, not on path %d, the one answered last other than the stalled READ_REQ's %u (MR-MP-34, MR-MP-33)",
		       rr.p.path, want, r.p.path);
	else
		EXPECT(t, rr.p.path != rpath,
		       "the re-request went on path %u, the stalled READ_REQ's own (MR-MP-34)", rpath);
	read_piece(&q, &rr, data, PMTU, PMTU, sizeof(data), 0);
	read_piece(&q, &rr, data, 2 * PMTU, sizeof(data) - 2 * PMTU, sizeof(data), MR_F_LAST);
	tx_ack(&q, rr.p.psn + 1, 2, &rr);
	REQUIRE(t, cqe_wait(&q, e, 1, WAIT_RESP) == 1 && e[0].wrid == 942 &&
		e[0].status == IBV_WC_SUCCESS, "no successful completion of the READ");
	REQUIRE(t, mr_hash(1, 8192, sizeof(data), &h), "agent: HASH: %s", agent_err);
	EXPECT(t, h == mrc_hash(data, sizeof(data)), "the READ's buffer does not hold its bytes");
	/* A WRITE of up to 64 packets, each ACKed, until one uses the
	 * stalled READ_REQ's path: not from its port before the stall. */
	q.dut_psn = (rr.p.psn + 1) & MR_PSN_MASK;
	if (!post_write(t, &q, 943, 64 * PMTU))
		goto out;
	for (k = 0; k < 64 && !seen; k++) {
		do
			REQUIRE(t, copy_take(t, &q, MR_OP_WRITE, 2 * WAIT_RESP, &y),
				"no packet %u of the 64-packet WRITE", k);
		while (y.flags & MR_F_RETX);
		seen = y.path == rpath;
		ack_copy(&q, y.d + 1, 2, &y);
	}
	REQUIRE(t, seen, "none of 64 WRITE packets used path %u", rpath);
	EXPECT(t, y.sport != rport,
	       "path %u still sends from port %d after its READ's responses stalled: not re-rolled (MR-MP-34)",
	       rpath, rport);
out:
	tqp_close(&q);
}

/* A SACK: only the hole is resent, never the SACKed PSNs (MR-LOSS-2,
 * MR-LOSS-8). */
static void c_sack_selective(struct tctx *t)
{
	struct tqp q;
	struct copy c[MAXCOPY];
	unsigned int n = 0, hole = 0, late = 0;
	struct rxpkt trig;
	struct mr_pkt a;
	struct cqe e[2];
	double end;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	if (!write4(t, &q, 902, c, &n))
		goto out;
	memset(&trig, 0, sizeof(trig));
	trig.p.path = c[n - 1].path;
	trig.p.ts = c[n - 1].ts;
	ack_fill(&a, &q, q.dut_psn, 0, &trig);
	for (unsigned int i = 1; i < 4; i++)
		a.akh.sack[0] |= 1ull << i;
	tx_pkt(&a);
	/* From the second resend of the hole on (an RTO after the SACK
	 * surely arrived), nothing SACKed may come again. */
	end = now_s() + 1.5 * O.slow;
	while (hole < 4 && now_s() < end) {
		struct copy y;

		if (!copy_take(t, &q, MR_OP_WRITE, 0.1, &y))
			continue;
		if (y.d == 0)
			hole++;
		else if (hole >= 2 && y.d < 4)
			late++;
	}
	diag("%u resends of the hole", hole);
	EXPECT(t, hole >= 2, "the hole PSN was resent %u times in 1.5 s (MR-LOSS-8)", hole);
	EXPECT(t, !late, "%u resends of SACKed PSNs (MR-LOSS-2, MR-LOSS-8)", late);
	ack_copy(&q, 4, 1, &c[n - 1]);
	EXPECT(t, cqe_wait(&q, e, 1, WAIT_RESP) == 1 && e[0].status == IBV_WC_SUCCESS,
	       "no successful completion after the ACK of all");
out:
	tqp_close(&q);
}

/* A NACK TRIMMED: the named PSN is lost at once, no RTO waited for
 * (MR-LOSS-10). */
static void c_nack_trimmed(struct tctx *t)
{
	struct tqp q;
	struct copy c[MAXCOPY], y;
	unsigned int n = 0;
	int32_t gap = 0;
	double end;
	struct cqe e[2];

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	if (!post_write(t, &q, 903, 64))
		goto out;
	/* Let the backoff grow: a gap of 80 ms or more, the next RTO is
	 * then twice that away. */
	end = now_s() + 2.0 * O.slow;
	while (n < MAXCOPY && now_s() < end && gap < 80000) {
		if (!copy_take(t, &q, MR_OP_WRITE, 0.1, &c[n]))
			continue;
		if (n)
			gap = ts_diff(c[n].ts, c[n - 1].ts);
		n++;
	}
	REQUIRE(t, gap >= 80000, "no RTO gap of 80 ms within 2 s (%d us)", gap);
	tx_nack(&q, 0, MR_NACK_TRIMMED, 0, 0, &c[n - 1]);
	REQUIRE(t, copy_take(t, &q, MR_OP_WRITE, 2 * WAIT_RESP, &y), "no resend after a NACK TRIMMED");
	diag("resent %d us after the previous copy (next RTO in about %d us)",
	     ts_diff(y.ts, c[n - 1].ts), 2 * gap);
	EXPECT(t, ts_diff(y.ts, c[n - 1].ts) < gap,
	       "resent %d us after the copy the NACK TRIMMED named, the RTO was %d us: not at once (MR-LOSS-10)",
	       ts_diff(y.ts, c[n - 1].ts), 2 * gap);
	ack_copy(&q, 1, 1, &y);
	EXPECT(t, cqe_wait(&q, e, 1, WAIT_RESP) == 1 && e[0].status == IBV_WC_SUCCESS,
	       "no successful completion after the ACK");
out:
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* RETRY: the verbs timeout and retry_cnt; RNR; RESOURCE               */

static void c_retry_exhausted(struct tctx *t)
{
	/* timeout 14: T_verbs = 4.096 us * 2^14 = 67.1 ms; retry_cnt 3 */
	const int32_t tv = 67109;
	const unsigned int retry = 3;
	struct tqp q;
	struct copy c[MAXCOPY], y;
	unsigned int n = 0;
	int32_t maxgap = 0;
	struct cqe e[2];
	int k;

	if (!tqp_open_retry(t, &q, ACC_ALL, 14, retry, 7))
		return;
	if (!post_write(t, &q, 904, 64))
		goto out;
	k = 0;
	{
		double end = now_s() + 3.0 * O.slow;

		while (n < MAXCOPY && now_s() < end) {
			if (copy_take(t, &q, MR_OP_WRITE, 0.05, &c[n])) {
				if (n)
					maxgap = ts_diff(c[n].ts, c[n - 1].ts) > maxgap ?
						 ts_diff(c[n].ts, c[n - 1].ts) : maxgap;
				n++;
				continue;
			}
			k = cqe_wait(&q, e, 1, 0.01);
			if (k)
				break;
		}
	}
	if (!k)
		k = cqe_wait(&q, e, 1, WAIT_RESP);
	REQUIRE(t, n >= 1, "no WRITE from the DUT");
	diag("%u copies over %d us, longest gap %d us", n, ts_diff(c[n - 1].ts, c[0].ts), maxgap);
	REQUIRE(t, k == 1, "no completion within 3 s without an ACK, retry_cnt %u, T_verbs 67 ms (MR-RETRY-1)",
		retry);
	EXPECT(t, e[0].wrid == 904 && e[0].status == IBV_WC_RETRY_EXC_ERR,
	       "CQE wr_id %llu status %d, want IBV_WC_RETRY_EXC_ERR (%d) (MR-RETRY-1)",
	       (unsigned long long)e[0].wrid, e[0].status, IBV_WC_RETRY_EXC_ERR);
	EXPECT(t, !strcmp(dut_qp_state(&q), "ERR"), "QP %s after the retries ran out, want ERR (MR-RETRY-1)",
	       dut_qp_state(&q));
	/* retry_cnt counted expirations, each T_verbs after the one before:
	 * the last copy is retry_cnt * T_verbs after the first at least. */
	EXPECT(t, ts_diff(c[n - 1].ts, c[0].ts) >= (int32_t)retry * tv * 95 / 100,
	       "the retries ran out after %d us of resends, want >= retry_cnt * T_verbs = %d (MR-RETRY-1)",
	       ts_diff(c[n - 1].ts, c[0].ts), (int32_t)retry * tv);
	/* The backed-off RTO is capped at T_verbs (MR-LOSS-6). */
	EXPECT(t, maxgap <= tv + (int32_t)(25000 * O.slow),
	       "a gap of %d us between resends, over max_rto_eff = T_verbs = %d us (MR-LOSS-6, MR-RETRY-3)",
	       maxgap, tv);
	EXPECT(t, !copy_take(t, &q, MR_OP_WRITE, 2 * WAIT_SILENT, &y),
	       "a packet after the retry budget ran out (MR-RETRY-9)");
out:
	tqp_close(&q);
}

/* A WRITE whose ACK the tester holds 100 ms: the DUT's first RTT sample
 * is 100 ms or more and its RTO about three times that, so that a NACK's
 * pause is not confused with an RTO, nor a NACK outrun by one. */
static bool slow_rtt(struct tctx *t, struct tqp *q, unsigned int wrid)
{
	struct copy c;
	struct cqe e[2];

	if (!post_write(t, q, wrid, 64))
		return false;
	if (!copy_take(t, q, MR_OP_WRITE, 2 * WAIT_RESP, &c)) {
		fail_at(t, __LINE__, "no WRITE");
		return false;
	}
	net_pump_until(c.t + 0.1);
	rx_flush();
	ack_copy(q, 1, 1, &c);
	if (cqe_wait(q, e, 1, WAIT_RESP) != 1 || e[0].status != IBV_WC_SUCCESS) {
		fail_at(t, __LINE__, "no successful completion of the first WRITE");
		return false;
	}
	return true;
}

/* RNR: the pause of rnr_timer, the rnr_retry budget (rnr_retry 1). */
static void c_rnr_budget(struct tctx *t)
{
	/* code 26: 81.92 ms (MR-RETRY-7) */
	const int32_t delay = 81920;
	struct tqp q;
	struct copy c[4], y;
	struct cqe e[2];
	double tn;

	if (!tqp_open_retry(t, &q, ACC_ALL, 18, 7, 1))
		return;
	if (!slow_rtt(t, &q, 915)) {
		tqp_close(&q);
		return;
	}
	REQUIRE(t, agent("POST %d SEND 905 1 0 64 0 0 0 0 0 1", q.id), "agent: POST: %s", agent_err);
	/* An RTO first: it must not consume the RNR budget (MR-RETRY-8). */
	REQUIRE(t, copy_take(t, &q, MR_OP_SEND, 2 * WAIT_RESP, &c[0]), "no SEND");
	REQUIRE(t, copy_take(t, &q, MR_OP_SEND, 2 * WAIT_RESP, &c[1]), "no resend by RTO (MR-LOSS-8)");
	tx_nack(&q, 1, MR_NACK_RNR, 1, 26, &c[1]);
	tn = now_s();
	REQUIRE(t, copy_take(t, &q, MR_OP_SEND, 2 * WAIT_RESP, &c[2]),
		"no resend after an RNR NACK with rnr_retry 1 (MR-RETRY-5, MR-RETRY-6, MR-RETRY-8)");
	diag("resent %d us (DUT clock) after the RNR'd copy, %.1f ms after the NACK left",
	     ts_diff(c[2].ts, c[1].ts), (c[2].t - tn) * 1e3);
	EXPECT(t, ts_diff(c[2].ts, c[1].ts) >= delay,
	       "resent %d us after the copy an RNR NACK of 81.92 ms answered: the pause was cut (MR-RETRY-6, MR-RETRY-7, MR-RETRY-8)",
	       ts_diff(c[2].ts, c[1].ts));
	EXPECT(t, c[2].t - tn < (delay / 1e6) + 0.15 * O.slow,
	       "resent %.0f ms after an RNR NACK of 81.92 ms (MR-RETRY-6, MR-RETRY-7)",
	       (c[2].t - tn) * 1e3);
	/* The second RNR NACK exceeds rnr_retry 1.  A NACK that echoes an
	 * older copy than the DUT's latest is stale and ignored (an RTO may
	 * have sent one meanwhile): each new copy gets its own. */
	tx_nack(&q, 1, MR_NACK_RNR, 1, 14, &c[2]);
	{
		unsigned int extra = 0;
		double end = now_s() + 2 * WAIT_RESP * O.slow;

		while (!cqe_wait(&q, e, 1, 0.05)) {
			REQUIRE(t, now_s() < end, "no completion after rnr_retry + 1 RNR NACKs (MR-RETRY-5)");
			if (copy_take(t, &q, MR_OP_SEND, 0.05, &y)) {
				tx_nack(&q, 1, MR_NACK_RNR, 1, 14, &y);
				extra++;
			}
		}
		diag("%u copies after the second RNR NACK", extra);
	}
	EXPECT(t, e[0].wrid == 905 && e[0].status == IBV_WC_RNR_RETRY_EXC_ERR,
	       "CQE wr_id %llu status %d, want IBV_WC_RNR_RETRY_EXC_ERR (%d) (MR-RETRY-5)",
	       (unsigned long long)e[0].wrid, e[0].status, IBV_WC_RNR_RETRY_EXC_ERR);
	EXPECT(t, !strcmp(dut_qp_state(&q), "ERR"), "QP %s, want ERR (MR-RETRY-5)", dut_qp_state(&q));
	EXPECT(t, !copy_take(t, &q, MR_OP_SEND, 2 * WAIT_SILENT, &y),
	       "a packet after the RNR budget ran out (MR-RETRY-9)");
	tqp_close(&q);
}

/* RESOURCE: a pause like RNR's, charged to the retry budget, not the
 * RNR budget (rnr_retry 0 would fail at once). */
static void c_nack_resource(struct tctx *t)
{
	const int32_t delay = 81920;
	struct tqp q;
	struct copy c[3];
	struct cqe e[2];

	if (!tqp_open_retry(t, &q, ACC_ALL, 18, 7, 0))
		return;
	if (!slow_rtt(t, &q, 916) || !post_write(t, &q, 906, 64))
		goto out;
	/* A late RTO copy of slow_rtt()'s WRITE is not this one's. */
	REQUIRE(t, copy_take_psn(t, &q, MR_OP_WRITE, 1, 2 * WAIT_RESP, &c[0]), "no WRITE");
	tx_nack(&q, 1, MR_NACK_RESOURCE, 1, 26, &c[0]);
	REQUIRE(t, copy_take_psn(t, &q, MR_OP_WRITE, 1, 2 * WAIT_RESP, &c[1]),
		"no resend after a NACK RESOURCE with rnr_retry 0 (MR-RETRY-10)");
	EXPECT(t, ts_diff(c[1].ts, c[0].ts) >= delay,
	       "resent %d us after the copy a NACK RESOURCE of 81.92 ms answered (MR-RETRY-10, MR-RETRY-8)",
	       ts_diff(c[1].ts, c[0].ts));
	tx_nack(&q, 1, MR_NACK_RESOURCE, 1, 14, &c[1]);
	REQUIRE(t, copy_take_psn(t, &q, MR_OP_WRITE, 1, 2 * WAIT_RESP, &c[2]),
		"no resend after a second NACK RESOURCE (MR-RETRY-10: not the RNR budget)");
	ack_copy(&q, 2, 2, &c[2]);
	EXPECT(t, cqe_wait(&q, e, 1, WAIT_RESP) == 1 && e[0].wrid == 906 &&
	       e[0].status == IBV_WC_SUCCESS, "no successful completion after the ACK (MR-RETRY-10)");
out:
	tqp_close(&q);
}

/* ------------------------------------------------------------------ */
/* RTT samples and the RTO they give; a spurious RTO                     */

static void c_rtt_rto(struct tctx *t)
{
	/* the tester holds its ACK this long: the DUT's sample is longer */
	const int32_t hold = 60000;
	struct tqp q;
	struct copy c[MAXCOPY], d[2];
	unsigned int n = 0;
	uint64_t sr0 = 0, sr1 = 0;
	bool have_sr = counter("spurious_rto", &sr0);
	struct cqe e[2];
	int32_t gap, hi;
	double end;

	if (!tqp_open(t, &q, ACC_ALL))
		return;
	if (!post_write(t, &q, 911, 64))
		goto out;
	REQUIRE(t, copy_take(t, &q, MR_OP_WRITE, 2 * WAIT_RESP, &c[0]), "no WRITE");
	n = 1;
	/* RTOs (init_rto 10 ms) resend it meanwhile. */
	end = c[0].t + hold / 1e6;
	while (now_s() < end && n < MAXCOPY)
		if (copy_take(t, &q, MR_OP_WRITE, end - now_s() > 0.005 ? (end - now_s()) / O.slow : 0.005,
			      &c[n]))
			n++;
	REQUIRE(t, n >= 2, "no resend within %d us without an ACK (init_rto 10 ms, MR-LOSS-6)", hold);
	/* The ACK echoes the first copy: it was late, not lost. */
	ack_copy(&q, 1, 1, &c[0]);
	REQUIRE(t, cqe_wait(&q, e, 1, WAIT_RESP) == 1 && e[0].status == IBV_WC_SUCCESS,
		"no successful completion after the ACK");
	/* First sample R >= hold: srtt = R, rttvar = R / 2, RTO = 3 R. */
	if (!post_write(t, &q, 912, 64))
		goto out;
	/* A copy of the first WRITE may come late (above): not d[0]. */
	REQUIRE(t, copy_take_psn(t, &q, MR_OP_WRITE, 1, 2 * WAIT_RESP, &d[0]) &&
		copy_take_psn(t, &q, MR_OP_WRITE, 1, 2 * WAIT_RESP, &d[1]),
		"no RTO resend of a second WRITE");
	gap = ts_diff(d[1].ts, d[0].ts);
	hi = 3 * (hold + (int32_t)(30000 * O.slow)) + 20000;
	diag("RTO after one sample of >= %d us: %d us", hold, gap);
	EXPECT(t, gap >= 3 * hold * 95 / 100,
	       "RTO %d us after a first RTT sample of >= %d us, want >= 3 R (srtt + 4 rttvar, rttvar = R / 2) (MR-LOSS-4, MR-LOSS-5, MR-LOSS-6)",
	       gap, hold);
	EXPECT(t, gap <= hi, "RTO %d us after a first RTT sample of about %d us, want <= %d (MR-LOSS-4..6)",
	       gap, hold, hi);
	ack_copy(&q, 2, 2, &d[1]);
	EXPECT(t, cqe_wait(&q, e, 1, WAIT_RESP) == 1 && e[0].status == IBV_WC_SUCCESS,
	       "no successful completion of the second WRITE");
	if (!have_sr || !counter("spurious_rto", &sr1))
		fail_at(t, __LINE__, "counter 'spurious_rto' not exposed (MR-LOSS-15, MR-CONF-7)");
	else
		EXPECT(t, sr1 > sr0, "counter 'spurious_rto' did not move: an ACK echoing a copy from before the RTO (MR-LOSS-15)");
out:
	tqp_close(&q);
}

/* A READ_RESP piece missing: re-requested by a new READ_REQ for exactly
 * it (MR-LOSS-14, MR-REL-24, MR-WIN-7). */
static void c_read_missing(struct tctx *t)
{
	static uint8_t data[2500];
	struct tqp q;
	struct rxpkt r[1], rr;
	struct mr_pkt a;
	struct cqe e[2];
	uint64_t h;
	double t0;

	memset(r, 0, sizeof(r));
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	mrc_pat_fill(data, 0x4EAD, 0, sizeof(data));
	REQUIRE(t, agent("POST %d READ 913 1 8192 2500 0x%x 0x%llx 0 0 0 1", q.id, L_RKEY,
			 (unsigned long long)L_VA), "agent: POST: %s", agent_err);
	REQUIRE(t, req_take(&q, MR_OP_READ_REQ, 0, 1, r, 2 * WAIT_RESP) == 1, "no READ_REQ");
	/* Pieces 0 and 2 of 3; piece 1 (offset 1024) never sent. */
	memset(&a, 0, sizeof(a));
	a.opcode = MR_OP_READ_RESP;
	a.path = r[0].p.path;
	a.dqpn = q.dut_qpn;
	a.sqpn = q.my_qpn;
	a.psn = r[0].p.psn;
	a.dxh.msn = r[0].p.dxh.msn;
	a.dxh.msg_len = 2500;
	for (uint32_t off = 0; off < 2500; off += 2 * PMTU) {
		a.ts = ts_now();
		a.flags = off ? MR_F_LAST : MR_F_FIRST;
		a.dxh.offset = off;
		a.payload = data + off;
		a.payload_len = off ? 2500 - off : PMTU;
		tx_pkt(&a);
	}
	t0 = now_s();
	/* The re-request: the READ's MSN, va and R_Key, offset 1024,
	 * msg_len 1024, the next PSN. */
	for (;;) {
		REQUIRE(t, rx_take(q.my_qpn, MR_OP_READ_REQ, 4 * WAIT_RESP, &rr),
			"no READ_REQ re-requesting a missing READ_RESP piece (MR-LOSS-14, MR-REL-24)");
		if (rr.p.psn != r[0].p.psn)
			break;	/* a resend of the first is not the re-request */
	}
	diag("re-request %.1f ms after the pieces", (rr.t - t0) * 1e3);
	wire_check(t, "READ_REQ re-request", &q, &rr);
	EXPECT(t, rr.p.psn == ((r[0].p.psn + 1) & MR_PSN_MASK),
	       "re-request PSN %#x, want the next %#x (MR-WIN-7, MR-REL-24)", rr.p.psn,
	       (r[0].p.psn + 1) & MR_PSN_MASK);
	EXPECT(t, rr.p.dxh.msn == r[0].p.dxh.msn && rr.p.dxh.offset == PMTU &&
	       rr.p.dxh.msg_len == PMTU && rr.p.rxh.va == L_VA && rr.p.rxh.rkey == L_RKEY,
	       "re-request msn %u offset %u msg_len %u va %#llx rkey %#x, want %u %u %u the READ's (MR-REL-24)",
	       rr.p.dxh.msn, rr.p.dxh.offset, rr.p.dxh.msg_len, (unsigned long long)rr.p.rxh.va,
	       rr.p.rxh.rkey, r[0].p.dxh.msn, PMTU, PMTU);
	a.path = rr.p.path;
	a.psn = rr.p.psn;
	a.ts = ts_now();
	a.flags = MR_F_LAST;
	a.dxh.offset = PMTU;
	a.dxh.msg_len = 2 * PMTU;
	a.payload = data + PMTU;
	a.payload_len = PMTU;
	tx_pkt(&a);
	tx_ack(&q, rr.p.psn + 1, 1, &rr);
	REQUIRE(t, cqe_wait(&q, e, 1, WAIT_RESP) == 1, "no completion of the READ");
	EXPECT(t, e[0].wrid == 913 && e[0].status == IBV_WC_SUCCESS, "CQE wr_id %llu status %d",
	       (unsigned long long)e[0].wrid, e[0].status);
	REQUIRE(t, mr_hash(1, 8192, sizeof(data), &h), "agent: HASH: %s", agent_err);
	EXPECT(t, h == mrc_hash(data, sizeof(data)), "the READ's buffer does not hold the three pieces");
	tqp_close(&q);
}

/*
 * An answer is matched to its WR by PSN and MSN for as long as the WR is
 * outstanding (MR-REL-26), however many PSNs followed its request: a
 * FETCH_ADD acknowledged at once but answered only after 320 WRITE
 * packets, each ACKed, completes with the tester's original value.
 * Meanwhile the DUT re-sends the atomic under its original PSN
 * (MR-REL-27), and an ATOMIC_RESP naming a WRITE packet's PSN completes
 * nothing.  A requester that knows only the messages of its last 256
 * PSNs drops the answer, and the atomic never completes.
 */
#define LATE_WRITES	5	/* of MR_LEN bytes: 320 packets after the atomic */

static void c_answer_after_window(struct tctx *t)
{
	const uint32_t npkt = LATE_WRITES * (MR_LEN / PMTU);
	const uint64_t orig = 0x0123456789ABCDEFull;
	static bool got[LATE_WRITES * (MR_LEN / PMTU) + 1];
	uint8_t le[8];
	struct tqp q;
	struct rxpkt r, y;
	struct copy c;
	struct mr_pkt a;
	struct cqe e[LATE_WRITES + 2];
	uint32_t cum = 1, k, resent = 0, moved = 0;
	uint64_t h;
	int n;

	memset(got, 0, sizeof(got));
	if (!tqp_open(t, &q, ACC_ALL))
		return;
	REQUIRE(t, agent("POST %d FA 951 1 0 8 0x%x 0x%llx 0 0 5 1", q.id, L_RKEY,
			 (unsigned long long)L_VA), "agent: POST: %s", agent_err);
	REQUIRE(t, rx_take(q.my_qpn, MR_OP_ATOMIC_FA, 2 * WAIT_RESP, &r), "no FETCH_ADD request");
	REQUIRE(t, r.p.psn == q.dut_psn, "FETCH_ADD at PSN %#x, want %#x (MR-REL-4)", r.p.psn,
		q.dut_psn);
	tx_ack(&q, q.dut_psn + 1, 0, &r);
	for (k = 0; k < LATE_WRITES; k++)
		if (!post_write(t, &q, 952 + k, MR_LEN))
			goto out;
	/* Every WRITE packet ACKed as it comes: PSNs +1..+npkt. */
	while (cum <= npkt) {
		REQUIRE(t, copy_take(t, &q, MR_OP_WRITE, 2 * WAIT_RESP, &c),
			"no WRITE packet at PSN +%u of %u", cum, npkt);
		if (c.d == 0 || c.d > npkt || got[c.d])
			continue;
		got[c.d] = true;
		while (cum <= npkt && got[cum])
			cum++;
		ack_copy(&q, cum, 0, &c);
	}
	/* A response naming a WRITE packet's PSN answers nothing. */
	memset(&a, 0, sizeof(a));
	a.opcode = MR_OP_ATOMIC_RESP;
	a.flags = MR_F_FIRST | MR_F_LAST;
	a.path = r.p.path;
	a.dqpn = q.dut_qpn;
	a.sqpn = q.my_qpn;
	a.dxh.msn = r.p.dxh.msn;
	a.dxh.msg_len = MR_ATOMIC_LEN;
	a.atomic_orig = orig;
	a.psn = (q.dut_psn + npkt - 8) & MR_PSN_MASK;
	a.ts = ts_now();
	tx_pkt(&a);
	n = cqe_wait(&q, e, 1, 0.3);
	EXPECT(t, n == 0, "an ATOMIC_RESP naming WRITE PSN +%u completed wr_id %llu (MR-REL-26)",
	       npkt - 8, n ? (unsigned long long)e[0].wrid : 0ull);
	/* Re-sends of the atomic keep its PSN (MR-REL-27). */
	while (rx_take(q.my_qpn, MR_OP_ATOMIC_FA, 0, &y)) {
		resent++;
		moved += y.p.psn != r.p.psn || !(y.p.flags & MR_F_RETX);
	}
	diag("%u re-sends of the FETCH_ADD while the WRITEs went", resent);
	EXPECT(t, moved == 0, "%u of %u re-sends of the FETCH_ADD not at PSN %#x with RETX (MR-REL-27)",
	       moved, resent, r.p.psn);
	/* The answer, 320 PSNs after its request. */
	a.psn = r.p.psn;
	a.ts = ts_now();
	tx_pkt(&a);
	n = cqe_wait(&q, e, LATE_WRITES + 1, WAIT_RESP);
	REQUIRE(t, n >= 1, "the FETCH_ADD answered %u PSNs after its request did not complete: its answer was not matched by PSN and MSN (MR-REL-26)",
		npkt);
	EXPECT(t, e[0].wrid == 951 && e[0].status == IBV_WC_SUCCESS &&
	       e[0].opcode == IBV_WC_FETCH_ADD, "first CQE wr_id %llu status %d opcode %d, want 951 the FETCH_ADD's",
	       (unsigned long long)e[0].wrid, e[0].status, e[0].opcode);
	EXPECT(t, n == LATE_WRITES + 1, "%d CQEs, want the FETCH_ADD's and %u WRITEs'", n, LATE_WRITES);
	for (k = 1; k < (uint32_t)n; k++)
		EXPECT(t, e[k].wrid == 951 + k && e[k].status == IBV_WC_SUCCESS,
		       "CQE %u wr_id %llu status %d", k, (unsigned long long)e[k].wrid, e[k].status);
	/* The original value, in the byte order of the DUT host's u64
	 * (little-endian, as on every host the suite targets). */
	for (k = 0; k < 8; k++)
		le[k] = (uint8_t)(orig >> (8 * k));
	REQUIRE(t, mr_hash(1, 0, 8, &h), "agent: HASH: %s", agent_err);
	EXPECT(t, h == mrc_hash(le, 8), "the FETCH_ADD's buffer does not hold the ATOMIC_RESP's original value");
out:
	tqp_close(&q);
}

const struct tcase cases_loss[] = {
	{ "LOSS", "rto_backoff_reset",
	  "MR-LOSS-1, MR-LOSS-6..9, MR-LOSS-13, MR-CC-3, MR-CC-11, MR-RETRY-3, MR-HDR-9, MR-ICRC-6, MR-MP-16, MR-MP-23",
	  c_rto_backoff, NULL },
	{ "MP", "rto_answered_path", "MR-MP-33, MR-MP-23, MR-LOSS-8", c_rto_answered_path, NULL },
	{ "MP", "read_stall_path", "MR-MP-34, MR-LOSS-14, MR-REL-24", c_read_stall_path, NULL },
	{ "LOSS", "sack_selective_resend", "MR-LOSS-2, MR-LOSS-8", c_sack_selective, NULL },
	{ "LOSS", "nack_trimmed_at_once", "MR-LOSS-10", c_nack_trimmed, NULL },
	{ "RETRY", "retry_cnt_exhausted", "MR-RETRY-1, MR-RETRY-3, MR-RETRY-9, MR-LOSS-6",
	  c_retry_exhausted, NULL },
	{ "RETRY", "rnr_pause_and_budget", "MR-RETRY-5..9", c_rnr_budget, NULL },
	{ "RETRY", "nack_resource", "MR-RETRY-8, MR-RETRY-10", c_nack_resource, NULL },
	{ "LOSS", "rtt_sample_rto", "MR-LOSS-4..6, MR-LOSS-15", c_rtt_rto, NULL },
	{ "LOSS", "read_piece_rerequested", "MR-LOSS-14, MR-REL-24, MR-WIN-7", c_read_missing, NULL },
	{ "REL", "answer_after_window", "MR-REL-26, MR-REL-27", c_answer_after_window, NULL },
};
const unsigned int n_cases_loss = MR_ARRAY_SIZE(cases_loss);
