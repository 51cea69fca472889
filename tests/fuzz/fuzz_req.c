// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: the requester engine (requester.h, the code kernel/req.c
 * runs) against a hostile responder. One RC send queue of SQ entries is
 * kept full of WRs of every request opcode (SEND, SEND_IMM, SEND_INV,
 * WRITE, WRITE_IMM, READ_REQ, ATOMIC_CS, ATOMIC_FA, local operations and
 * WRs refused at post time; fences; lengths 0, one packet, several, and
 * READs longer than one READ range), and the input decides what comes
 * back and when.
 *
 * Input: a 40-byte header (initial PSN, retry_cnt, rnr_retry, fixed or
 * default congestion control, max_rd_atomic, verbs timeout, timestamp
 * offset, then 16 WR descriptors the posts cycle through; see setup()
 * and post()), then records, each a type byte and its arguments (missing
 * bytes read as 0):
 *
 *   ADVANCE  time passes; the engine runs if its deadline is reached
 *   FIRE     time jumps to the deadline the caller armed; the engine runs
 *   ACK      cum_psn and SACK map relative to what was sent, ts_echo of
 *            a sent packet (or stale, aged, in the future, out of range)
 *   NACK     every reason, nack_psn among the outstanding PSNs, cum_psn
 *            equal to it (a fatal NACK as a responder sends it) or not
 *   READ_RESP  response packets of a READ_REQ that went out: a run of
 *            them, in or out of order, duplicated, trimmed, or with a
 *            wrong PSN, MSN, offset or length
 *   ATOMIC_RESP, PROBE_REPLY  the answer to a sent atomic or probe, or a
 *            wrong one
 *   SERVE    an honest responder's turn: every outstanding READ range and
 *            atomic answered, then everything acknowledged
 *   RAW      packet bytes through mr_pkt_receive(), the pure receive
 *            function (MR-MAL-2), with the ICRC recomputed over them
 *            first unless the record says not to: a mutation cannot keep
 *            a CRC32C valid, and without this every mutated packet would
 *            stop at the ICRC; bit 14 of the length: it arrived with the
 *            trimmed DSCP (MR-TRIM-2)
 *   FAULT    the next emit finds no memory or a bad source buffer, the
 *            next placement fails
 *
 * Structured packets are encoded and received again with mr_pkt_receive(),
 * so the engine only ever sees packets the kernel would hand it
 * (kernel/req.c mroce_req_rcv, including its PMTU check). After each
 * packet and each timer the engine runs as mroce_req_run() runs it:
 * complete from the head with mr_requester_complete() and
 * mr_requester_retired(), mr_requester_run() (after
 * mr_requester_on_timer() when the timer brought it), again while it sent
 * or finished something, then the timer is armed at
 * mr_requester_deadline().
 * A WR that completes with an error puts the QP in Error: everything left
 * is flushed (MR-VERBS-25), and the consumer then posts to a restarted
 * requester (a new connection, PSNs elsewhere). At the end the peer falls
 * silent and nothing more is posted: if the QP has a verbs timeout, or
 * failed already, every WR must complete within a bounded number of
 * timer runs (MR-RETRY-1, MR-VERBS-22).
 *
 * FUZZ_REQ_TRACE=1 in the environment prints what happens (records,
 * packets both ways, state changes, completions) and which invariant
 * failed. The inputs of the engine bugs it found are in the corpus.
 *
 * Invariants, enforced with abort(), checked through the callbacks and
 * the engine's public state:
 *  - every emitted packet encodes (MR-MAL-2); payload at most the MTU
 *    (MR-HDR-21); a new PSN is the next one, within 256 of una
 *    (MR-WIN-3); MSNs count every message and SSNs every
 *    receive-consuming one, in SQ order (MR-HDR-10); SEND/WRITE packets
 *    cut the message in order; a READ_REQ asks at most 65536 bytes inside
 *    the READ (MR-REL-31, MR-REL-24);
 *  - a retransmission repeats its PSN exactly as first sent, with RETX
 *    (MR-PLACE-14, an atomic under its own PSN: MR-REL-27), and never a
 *    PSN the responder acknowledged, atomics excepted (MR-REL-22);
 *  - a fenced WR sends nothing while an earlier READ/ATOMIC is
 *    incomplete (MR-VERBS-9); at most max_rd_atomic READ/ATOMIC WRs are
 *    outstanding (MR-VERBS-15), and rd_atomic_out and rd_bytes_out agree
 *    with what was started, requested and placed, within the limits,
 *    and are 0 when the queue is empty;
 *  - nothing is emitted for a WR that is not in the queue, nothing new
 *    for one that finished, no message starts after a WR that failed
 *    (MR-VERBS-25), and no packet at all once a budget is exhausted or a
 *    fatal NACK was taken (MR-RETRY-9);
 *  - READ bytes are placed only from a READ_RESP whose MSN and PSN name
 *    a READ_REQ of that READ (MR-PLACE-6, MR-REL-26), inside what was
 *    asked, at their offset, each byte once; an atomic's original value
 *    once, from its ATOMIC_RESP;
 *  - una never moves backwards and passes only PSNs the responder
 *    acknowledged: by an accepted ACK/NACK, or by a response that
 *    matches its request and was taken (MR-REL-20, MR-REL-21);
 *  - a WR's state only moves forward and its error status never changes;
 *    each status has its cause: a fatal NACK naming the WR (with the
 *    status MR-VERBS-22 maps the reason to, which a valid fatal NACK
 *    always sets), the RNR or retry budget, the harness's own emit,
 *    place, local or post-time failure;
 *  - completion in SQ order, each WR once: success only if every packet
 *    of a SEND/WRITE was acknowledged, every byte of a READ placed, an
 *    atomic's value placed; WR_FLUSH_ERR before a failed WR only once the
 *    scoreboard failed; in Error each WR with its own error or a flush
 *    (MR-VERBS-22, MR-VERBS-25);
 *  - after a run the deadline is in the future, and not "never" while
 *    WRs remain; a run at one instant sends a bounded number of packets.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "requester.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* FUZZ_REQ_TRACE=1 in the environment: what happens, on stderr. */
static bool trace;
#define TRACE(...)	do { if (trace) fprintf(stderr, __VA_ARGS__); } while (0)

#define SQ		16		/* send queue entries, a power of two */
#define NDESC		16		/* WR descriptors in the header */
#define MTU		256
#define US		1000ULL
#define T0		(1000ULL * 1000 * 1000)	/* the clock starts at 1 s */
#define BATCH		16		/* kernel/req.c MROCE_TX_BATCH */
#define PLOG		1024		/* PSNs remembered, a power of two */
#define RLOG		32		/* READ_REQs and atomics remembered */
#define NPROBE		8
#define READ_BIG	(MR_RDASM_WINDOW + 8 * MTU)	/* longest READ */
#define LOOP_MAX	2048		/* run loop turns at one instant */
#define DRAIN_MAX	20000		/* timer runs of a silent peer */

/* The caller's status codes (each non-zero, all distinct). */
enum {
	ST_RETRY = 0x21, ST_RNR, ST_REM_ACCESS, ST_REM_INV, ST_REM_OP,
	ST_FLUSH,
	ST_BAD_BUF = 0x31,	/* ops->emit: the source buffer went bad */
	ST_PLACE,		/* ops->place: the local buffer is bad */
	ST_LOCAL,		/* ops->local failed */
	ST_REFUSED,		/* refused when posted (MR-VERBS-23) */
};

enum {
	R_ADVANCE, R_FIRE, R_ACK, R_NACK, R_READ_RESP, R_ATOMIC_RESP,
	R_PROBE_REPLY, R_SERVE, R_RAW, R_FAULT, R_N
};

/* What the harness knows of each WR in the queue (by slot). */
struct fwr {
	u32 idx;		/* absolute SQ index */
	u8 op;			/* 0: local operation */
	bool started;		/* its first packet went out */
	bool local_ran;
	u8 harness_st;		/* a status the harness made it fail with */
	u8 nack_st;		/* the status a valid fatal NACK maps to */
	u8 seen_state, seen_status;
	u32 msn;
	u32 sent;		/* SEND/WRITE: bytes packetized */
	u32 first_psn, last_psn;	/* new PSNs it used */
	u32 req_end;		/* READ: bytes [0, req_end) asked for */
	u32 placed, prefix;	/* READ: bytes placed, in order from 0 */
	bool atomic_placed;
	u8 map[READ_BIG / 8];	/* READ: bytes placed */
};

struct fpsn {
	u32 psn;
	bool valid;
	bool acked;		/* an ACK or NACK acknowledged it */
	bool resp_acked;	/* a response to it was taken (MR-REL-21) */
	u8 op;
	u16 flags;		/* FIRST, LAST */
	u32 wr;			/* absolute SQ index */
	u32 msn, off, mlen, plen;
	u8 path;
	u64 sent_ns;
};

struct fresp {			/* a READ_REQ or atomic that went out */
	u32 psn, wr, msn, off, len;
	u8 op;
};

struct fz {
	struct mr_requester r;
	struct mr_requester_params rp;
	u32 msn_idx[SQ];
	struct mr_swqe sq[SQ];
	struct fwr wr[SQ];
	u32 head, tail, posted;
	u8 desc[NDESC][2];
	u64 now, armed;
	u64 rng;
	u64 verbs_timeout;
	u8 retry_cnt, rnr_retry;
	bool cc_fixed;
	u32 init_psn;
	u32 ts_offset;
	/* the harness's view of the scoreboard */
	u32 nxt, una_seen, acked_to;
	u32 msn_next, ssn_next;
	struct fpsn plog[PLOG];
	struct fresp rlog[RLOG];
	u32 n_rlog;
	struct { u32 psn, ts; u8 path; } probes[NPROBE];
	u32 n_probes;
	u64 last_sent_ns;
	/* the packet being handed to mr_requester_rcv(), if a response */
	const struct mr_pkt *cur;
	bool rejected;		/* ACK_BAD or ACK_AGED during this packet */
	bool dup;		/* RESP_DUP during this packet */
	bool retry_ev;		/* RETRY_EXC or RD_STALLED was reported */
	u32 rnr_ev;		/* RNR NACKs taken */
	bool fatal;		/* a fatal NACK was taken: nothing more goes */
	int emit_fault;		/* 0, MR_REQ_TX_AGAIN or ST_BAD_BUF */
	bool place_fault;
	u64 emitted;
	bool draining;		/* the end: nothing more is posted */
	bool was_reset;		/* the QP went to Error and was restarted */
	u8 pktbuf[2048];
	u8 zero[MTU];
};

static struct fz F;

#define CHECK(c)	do {						\
	if (!(c)) {							\
		TRACE("invariant failed, line %d: %s\n", __LINE__, #c);	\
		abort();						\
	}								\
} while (0)

static const u8 ops_tab[] = {
	MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_SEND_INV, MR_OP_WRITE,
	MR_OP_WRITE_IMM, MR_OP_READ_REQ, MR_OP_ATOMIC_CS, MR_OP_ATOMIC_FA,
};

/* The bytes of READ message @msn at @off: where they came from shows. */
static u8 pat(u32 msn, u32 off)
{
	return (u8)(msn * 131 + off * 7 + (off >> 8) * 3 + 0x5a);
}

static u32 fz_rand(void *ctx)
{
	u64 *s = ctx;

	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (u32)(*s >> 33);
}

static bool answered(u8 op)
{
	return op && mr_op_has(op, MR_OPA_ANSWERED);
}

/* The harness's record of the WR @w points at, or abort: not queued. */
static struct fwr *fwr_of(const struct mr_swqe *w)
{
	long slot = w - F.sq;
	struct fwr *x;

	CHECK(slot >= 0 && slot < SQ);
	x = &F.wr[slot];
	CHECK(x->idx - F.head < F.tail - F.head);
	return x;
}

static struct fwr *fwr_at(u32 idx)
{
	return &F.wr[idx % SQ];
}

static struct fpsn *plog_get(u32 psn)
{
	struct fpsn *e = &F.plog[psn & (PLOG - 1)];

	return e->valid && e->psn == psn ? e : NULL;
}

/* The responder acknowledged @psn (if it went out). */
static void ack_psn(u32 psn)
{
	struct fpsn *e = plog_get(psn);

	if (e)
		e->acked = true;
}

/* ---- the engine's callbacks -------------------------------------- */

static struct mr_swqe *fz_wqe(void *ctx, u32 idx)
{
	(void)ctx;
	return &F.sq[idx % SQ];
}

static void fz_msg(void *ctx, const struct mr_swqe *w, struct mr_req_msg *m)
{
	const struct fwr *x = fwr_of(w);

	(void)ctx;
	m->rkey = 0x1234;
	m->va = 0x100000 + (u64)(x->idx % 64) * 0x20000;
	m->swap_add = x->idx * 3ULL;
	if (w->op == MR_OP_ATOMIC_CS)
		m->compare = x->idx;
	m->imm = 0xC0DE0000 | (x->idx & 0xffff);
	m->solicited = x->idx & 1;
}

static void check_new_msg(struct fwr *x, const struct mr_pkt *p)
{
	u32 i, out = 0;

	/* MR-HDR-10: every request message in SQ order, receive ones too */
	CHECK(p->dxh.msn == F.msn_next);
	F.msn_next++;
	if (mr_op_has(p->opcode, MR_OPA_SSN)) {
		CHECK(p->dxh.ssn == F.ssn_next);
		F.ssn_next++;
	}
	x->started = true;
	x->msn = p->dxh.msn;
	x->first_psn = p->psn;
	for (i = F.head; i != x->idx; i++) {
		const struct fwr *y = fwr_at(i);

		/* WRs start in SQ order */
		CHECK(y->started || y->local_ran);
		/* none after a WR that failed (MR-VERBS-22, MR-VERBS-25) */
		CHECK(F.sq[i % SQ].state != MR_SWQE_DONE ||
		      !F.sq[i % SQ].status);
		/* MR-VERBS-9: a fence waits for earlier READ/ATOMIC WRs */
		CHECK(!(F.sq[x->idx % SQ].fence && answered(y->op)));
		if (answered(y->op))
			out++;
	}
	/* MR-VERBS-15 */
	if (answered(x->op))
		CHECK(out + 1 <= F.rp.max_rd_atomic);
}

static void log_psn(struct fwr *x, const struct mr_pkt *p)
{
	struct fpsn *e = &F.plog[p->psn & (PLOG - 1)];
	struct fresp *q;

	memset(e, 0, sizeof(*e));
	e->psn = p->psn;
	e->valid = true;
	e->op = p->opcode;
	e->flags = p->flags & (MR_F_FIRST | MR_F_LAST);
	e->wr = x->idx;
	e->msn = p->dxh.msn;
	e->off = p->dxh.offset;
	e->mlen = p->dxh.msg_len;
	e->plen = p->payload_len;
	e->path = p->path;
	e->sent_ns = F.now;
	if (answered(p->opcode)) {
		q = &F.rlog[F.n_rlog++ % RLOG];
		q->psn = p->psn;
		q->wr = x->idx;
		q->msn = p->dxh.msn;
		q->off = p->dxh.offset;
		q->len = p->dxh.msg_len;
		q->op = p->opcode;
	}
}

static int fz_emit(void *ctx, struct mr_swqe *w, struct mr_pkt *p)
{
	struct fwr *x = fwr_of(w);
	const struct fpsn *e;
	int rc;

	(void)ctx;
	/* MR-RETRY-9, MR-VERBS-22: nothing goes once the QP failed */
	CHECK(!F.r.snd.sb.failed && !F.fatal);
	CHECK(p->opcode == w->op && x->op == w->op);
	CHECK(p->payload_len <= MTU);
	CHECK(p->path < F.r.snd.pt.n);
	/* every packet is one the codec accepts (MR-MAL-2) */
	p->dqpn = 0x11;
	p->sqpn = 0x22;
	p->payload = p->payload_len ? F.zero : NULL;
	CHECK(mr_pkt_encode(p, F.pktbuf, sizeof(F.pktbuf)) > 0);
	TRACE("  emit wr %u op %#x psn %u msn %u off %u len %u pl %u fl %#x\n",
	      x->idx, p->opcode, p->psn, p->dxh.msn, p->dxh.offset,
	      p->dxh.msg_len, p->payload_len, p->flags);
	/* only a packet with payload has a source buffer to go bad */
	if (F.emit_fault == MR_REQ_TX_AGAIN ||
	    (F.emit_fault && p->payload_len)) {
		rc = F.emit_fault;
		F.emit_fault = 0;
		if (rc != MR_REQ_TX_AGAIN)
			x->harness_st = (u8)rc;
		return rc;
	}
	if (p->psn != F.nxt) {
		/* a retransmission: exactly as sent (MR-PLACE-14, MR-REL-27) */
		e = plog_get(p->psn);
		CHECK(p->flags & MR_F_RETX);
		/* an atomic may be re-sent long after its PSN was acked */
		if (!e && mr_op_has(p->opcode, MR_OPA_ATOMIC) &&
		    mr_psn_dist(F.nxt, p->psn) > PLOG) {
			F.emitted++;
			return 0;
		}
		CHECK(e && e->wr == x->idx);
		CHECK(e->op == p->opcode && e->msn == p->dxh.msn &&
		      e->off == p->dxh.offset && e->mlen == p->dxh.msg_len &&
		      e->plen == p->payload_len &&
		      e->flags == (p->flags & (MR_F_FIRST | MR_F_LAST)));
		if (!mr_op_has(p->opcode, MR_OPA_ATOMIC)) {
			/*
			 * MR-REL-22: only outstanding, never what an ACK
			 * acknowledged (a response's acknowledgement is a
			 * SHOULD, MR-REL-21)
			 */
			CHECK(!e->acked);
			CHECK(mr_psn_dist(p->psn, F.r.snd.sb.una) <
			      mr_psn_dist(F.nxt, F.r.snd.sb.una));
		}
		F.emitted++;
		return 0;
	}
	/* A new PSN, within the window (MR-WIN-3), for unfinished work. */
	CHECK(F.r.snd.sb.nxt == p->psn);
	CHECK(mr_psn_dist(p->psn, F.r.snd.sb.una) < MR_WINDOW);
	CHECK(w->state != MR_SWQE_DONE);
	if (!x->started) {
		CHECK(p->flags & MR_F_FIRST);
		check_new_msg(x, p);
	} else {
		CHECK(p->dxh.msn == x->msn);
	}
	switch (p->opcode) {
	case MR_OP_READ_REQ:
		/* a range inside the READ, at most 64 KiB (MR-REL-31) */
		CHECK((u64)p->dxh.offset + p->dxh.msg_len <= w->length);
		CHECK(p->dxh.msg_len <= MR_RDASM_WINDOW);
		CHECK(p->dxh.msg_len || !w->length);
		if (p->dxh.offset + p->dxh.msg_len > x->req_end)
			x->req_end = p->dxh.offset + p->dxh.msg_len;
		break;
	case MR_OP_ATOMIC_CS:
	case MR_OP_ATOMIC_FA:
		/* one PSN per atomic: it is re-sent under it (MR-REL-27) */
		CHECK(!(p->flags & MR_F_RETX) && x->first_psn == p->psn);
		break;
	default:
		/* the message cut at the MTU, in order (MR-HDR-10, -21) */
		CHECK(!(p->flags & MR_F_RETX));
		CHECK(p->dxh.msg_len == w->length && p->dxh.offset == x->sent);
		CHECK(p->payload_len == MR_MIN(MTU, w->length - x->sent));
		CHECK(!!(p->flags & MR_F_LAST) ==
		      (x->sent + p->payload_len == w->length));
		x->sent += p->payload_len;
		break;
	}
	x->last_psn = p->psn;
	log_psn(x, p);
	F.nxt = mr_psn_add(F.nxt, 1);
	F.last_sent_ns = F.now;
	F.emitted++;
	return 0;
}

static u8 fz_local(void *ctx, struct mr_swqe *w)
{
	struct fwr *x = fwr_of(w);
	u32 i;

	(void)ctx;
	CHECK(!w->op && !x->local_ran);
	for (i = F.head; i != x->idx; i++)
		CHECK(fwr_at(i)->started || fwr_at(i)->local_ran);
	x->local_ran = true;
	x->harness_st = F.desc[x->idx % NDESC][1] & 1 ? ST_LOCAL : 0;
	return x->harness_st;
}

static u8 fz_place(void *ctx, struct mr_swqe *w, u32 off, const void *buf,
		   u32 len)
{
	struct fwr *x = fwr_of(w);
	const struct mr_pkt *p = F.cur;
	const struct fpsn *e;
	const u8 *b = buf;
	u32 i;

	(void)ctx;
	/* only from the response at hand, for the WR its MSN names */
	CHECK(p && answered(w->op) && w->state == MR_SWQE_SENT);
	CHECK(x->started && p->dxh.msn == x->msn);
	/* ... and its PSN names a request of that WR (MR-PLACE-6, -26) */
	CHECK(mr_psn_before(p->psn, F.nxt));
	e = plog_get(p->psn);
	if (mr_psn_dist(F.nxt, p->psn) <= PLOG)
		CHECK(e && e->wr == x->idx && answered(e->op));
	if (w->op == MR_OP_READ_REQ) {
		CHECK(p->opcode == MR_OP_READ_RESP);
		CHECK(off == p->dxh.offset && len == p->payload_len && len);
		CHECK((u64)off + len <= w->length && off + len <= x->req_end);
		for (i = 0; i < len; i++) {
			u32 o = off + i;

			CHECK(b[i] == pat(x->msn, o));
			/* each byte once (MR-PLACE-6) */
			CHECK(!(x->map[o / 8] & (1 << (o % 8))));
		}
	} else {
		u64 v;

		CHECK(p->opcode == MR_OP_ATOMIC_RESP);
		CHECK(off == 0 && len == sizeof(v) && !x->atomic_placed);
		memcpy(&v, buf, sizeof(v));
		CHECK(v == p->atomic_orig);
	}
	if (F.place_fault) {
		F.place_fault = false;
		x->harness_st = ST_PLACE;
		return ST_PLACE;
	}
	if (w->op == MR_OP_READ_REQ) {
		for (i = off; i < off + len; i++)
			x->map[i / 8] |= 1 << (i % 8);
		x->placed += len;
		while (x->prefix < w->length &&
		       (x->map[x->prefix / 8] & (1 << (x->prefix % 8))))
			x->prefix++;
	} else {
		x->atomic_placed = true;
	}
	return 0;
}

static bool fz_probe(void *ctx, struct mr_pkt *p)
{
	(void)ctx;
	/* MR-RETRY-9: no packet once a budget is spent or the QP failed */
	CHECK(!F.r.snd.sb.failed && !F.fatal);
	/* MR-MP-9: MBH only, no flags, a path of the table */
	CHECK(p->opcode == MR_OP_PROBE && !p->flags &&
	      p->path < F.r.snd.pt.n);
	p->dqpn = 0x11;
	p->sqpn = 0x22;
	CHECK(mr_pkt_encode(p, F.pktbuf, sizeof(F.pktbuf)) > 0);
	F.probes[F.n_probes % NPROBE].psn = p->psn;
	F.probes[F.n_probes % NPROBE].ts = p->ts;
	F.probes[F.n_probes % NPROBE].path = p->path;
	F.n_probes++;
	F.emitted++;
	return true;
}

static void fz_event(void *ctx, enum mr_req_event ev, u64 n,
		     const struct mr_swqe *w)
{
	(void)ctx;
	(void)n;
	if (w)
		fwr_of(w);
	switch (ev) {
	case MR_REQ_EV_ACK_AGED:
	case MR_REQ_EV_ACK_BAD:
		F.rejected = true;
		break;
	case MR_REQ_EV_RESP_DUP:
		F.dup = true;
		break;
	case MR_REQ_EV_RETRY_EXC:
	case MR_REQ_EV_RD_STALLED:
		F.retry_ev = true;
		break;
	case MR_REQ_EV_RNR:
		F.rnr_ev++;
		break;
	default:
		break;
	}
}

static const struct mr_requester_ops fz_ops = {
	.wqe = fz_wqe,
	.msg = fz_msg,
	.emit = fz_emit,
	.local = fz_local,
	.place = fz_place,
	.probe = fz_probe,
	.event = fz_event,
};

/* ---- the caller: post, complete, run, arm ------------------------- */

static void post(void)
{
	struct mr_swqe *w;
	struct fwr *x;
	const u8 *d;
	u32 cls, b;

	while (F.tail - F.head < SQ && !F.draining) {
		d = F.desc[F.posted % NDESC];
		w = &F.sq[F.tail % SQ];
		x = &F.wr[F.tail % SQ];
		memset(w, 0, sizeof(*w));
		memset(x, 0, sizeof(*x));
		x->idx = F.tail;
		cls = (d[0] >> 4) & 7;
		b = d[1];
		w->fence = d[0] & 0x80;
		w->state = MR_SWQE_QUEUED;
		switch (d[0] & 15) {
		case 8:
		case 9:
			w->op = 0;	/* a local operation */
			break;
		case 10:
			w->op = ops_tab[b % 8];
			/* refused when posted (MR-VERBS-23) */
			w->state = MR_SWQE_DONE;
			w->status = ST_REFUSED;
			x->harness_st = ST_REFUSED;
			break;
		default:
			w->op = ops_tab[(d[0] & 15) % 8];
			break;
		}
		switch (cls) {
		case 0: w->length = 0; break;
		case 1: w->length = 1 + b; break;
		case 2: w->length = MTU; break;
		case 3: w->length = 2 * MTU + b; break;
		case 4: w->length = MTU * (1 + (b & 7)) - (b >> 7); break;
		case 5: w->length = 16 * b; break;
		case 6: w->length = MTU * (4 + (b & 31)); break;
		default:
			w->length = w->op == MR_OP_READ_REQ ?
				    READ_BIG - 64 * b : 4 * MTU + b;
			break;
		}
		if (w->op && mr_op_has(w->op, MR_OPA_ATOMIC))
			w->length = MR_ATOMIC_LEN;
		x->op = w->op;
		x->seen_state = w->state;
		x->seen_status = w->status;
		F.posted++;
		F.tail++;
	}
}

/* The harness's count of READ bytes asked for and not arrived in order. */
static u64 rd_bytes_model(u32 *n_rd)
{
	u64 sum = 0;
	u32 i;

	*n_rd = 0;
	for (i = F.head; i != F.tail; i++) {
		const struct fwr *x = fwr_at(i);

		if (!x->started || !answered(x->op))
			continue;
		(*n_rd)++;
		if (x->op == MR_OP_READ_REQ)
			sum += x->req_end - x->prefix;
	}
	return sum;
}

/* Which status may WR @x have finished with, and why? */
static void check_status(const struct fwr *x, const struct mr_swqe *w)
{
	switch (w->status) {
	case 0:
		/* the engine finishes only READs and atomics with success */
		if (w->op == MR_OP_READ_REQ)
			CHECK(x->placed == w->length);
		else if (w->op)
			CHECK(answered(w->op) && x->atomic_placed);
		else
			CHECK(x->local_ran && !x->harness_st);
		break;
	case ST_RETRY:
		CHECK(F.retry_ev);
		break;
	case ST_RNR:
		/* MR-RETRY-5: rnr_retry RNR NACKs, not infinite */
		CHECK(F.rnr_ev && F.rnr_retry != MR_RNR_RETRY_INFINITE);
		break;
	case ST_REM_ACCESS:
	case ST_REM_INV:
	case ST_REM_OP:
		CHECK(x->nack_st == w->status);
		break;
	default:
		CHECK(w->status == x->harness_st);
		break;
	}
}

/* After every engine call: what its public state and the WRs show. */
static void check_state(void)
{
	const struct mr_txsb *sb = &F.r.snd.sb;
	u32 i, n_rd, psn;
	u64 rd;

	/* una only forward, only past what was acknowledged (MR-REL-20) */
	CHECK(sb->nxt == F.nxt);
	CHECK(mr_psn_dist(sb->nxt, sb->una) <= MR_WINDOW);
	CHECK(mr_psn_diff(sb->una, F.una_seen) >= 0);
	for (psn = F.una_seen; psn != sb->una; psn = mr_psn_add(psn, 1)) {
		const struct fpsn *e = plog_get(psn);

		CHECK(e && (e->acked || e->resp_acked));
	}
	F.una_seen = sb->una;
	/* MR-VERBS-15, and the engine's counts are what it did */
	rd = rd_bytes_model(&n_rd);
	CHECK(F.r.rd_atomic_out == n_rd);
	CHECK(n_rd <= F.rp.max_rd_atomic);
	CHECK(F.r.rd_bytes_out == rd);
	CHECK(rd <= F.rp.rd_bytes_max);
	if (F.head == F.tail)
		CHECK(!F.r.rd_atomic_out && !F.r.rd_bytes_out &&
		      mr_requester_idle(&F.r, F.head));
	for (i = F.head; i != F.tail; i++) {
		struct fwr *x = fwr_at(i);
		const struct mr_swqe *w = &F.sq[i % SQ];

		if (w->state != x->seen_state || w->status != x->seen_status)
			TRACE("  wr %u: state %u status %#x (was %u %#x)\n", i,
			      w->state, w->status, x->seen_state,
			      x->seen_status);
		CHECK(w->op == x->op && w->state <= MR_SWQE_DONE);
		CHECK(w->state >= x->seen_state);
		CHECK(x->seen_state != MR_SWQE_DONE || !x->seen_status ||
		      w->status == x->seen_status);
		if (w->state == MR_SWQE_DONE &&
		    (x->seen_state != MR_SWQE_DONE ||
		     w->status != x->seen_status)) {
			/* an error status stays; success may become the
			 * retry budget's, charged to the oldest WR */
			CHECK(x->seen_state != MR_SWQE_DONE ||
			      w->status == ST_RETRY);
			check_status(x, w);
		}
		if (w->state == MR_SWQE_SENT && w->op &&
		    !answered(w->op))
			CHECK(x->sent == w->length);
		x->seen_state = w->state;
		x->seen_status = w->status;
	}
}

/* May WR @x complete successfully now? (MR-VERBS-22) */
static void check_success(const struct fwr *x, const struct mr_swqe *w)
{
	u32 psn;

	if (!w->op) {
		CHECK(x->local_ran && !x->harness_st);
		return;
	}
	CHECK(x->started);
	if (w->op == MR_OP_READ_REQ && w->length) {
		CHECK(x->placed == w->length && x->prefix == w->length);
		return;
	}
	if (answered(w->op) && w->op != MR_OP_READ_REQ) {
		CHECK(x->atomic_placed);
		return;
	}
	/* SEND/WRITE, empty READ: every packet acknowledged */
	CHECK(w->state == MR_SWQE_SENT);
	for (psn = x->first_psn;; psn = mr_psn_add(psn, 1)) {
		const struct fpsn *e = plog_get(psn);

		if (e && e->wr == x->idx)
			CHECK(e->acked || e->resp_acked);
		if (psn == x->last_psn)
			break;
	}
}

static void reset_engine(void);

/* Complete from the head, in order (kernel/req.c mroce_req_run step 1). */
static bool complete(void)
{
	bool in_error = false, any = false;
	struct mr_swqe *w;
	struct fwr *x;
	u32 j;
	u8 st;

	while (F.head != F.tail) {
		w = &F.sq[F.head % SQ];
		x = fwr_at(F.head);
		st = 0xEE;
		/* in Error the caller completes by mr_swqe_flushed() */
		if (in_error)
			st = mr_swqe_flushed(w, ST_FLUSH);
		else if (!mr_requester_complete(&F.r, F.head, F.now, NULL, &st))
			break;
		if (in_error) {
			/* MR-VERBS-25: its own error, or a flush */
			CHECK(st == mr_swqe_flushed(w, ST_FLUSH));
		} else if (st == 0) {
			check_success(x, w);
		} else if (st == ST_FLUSH) {
			/* before a failed WR, once the scoreboard failed */
			CHECK(F.r.snd.sb.failed);
			for (j = F.head + 1; j != F.tail; j++)
				if (F.sq[j % SQ].state == MR_SWQE_DONE &&
				    F.sq[j % SQ].status)
					break;
			CHECK(j != F.tail);
		} else if (st == ST_RETRY && !(w->state == MR_SWQE_DONE &&
					      w->status == ST_RETRY)) {
			/* the scoreboard gave up, charged to the head */
			CHECK(F.r.snd.sb.failed);
		} else {
			CHECK(w->state == MR_SWQE_DONE && w->status == st);
		}
		TRACE("  complete wr %u op %#x status %#x\n", F.head, w->op, st);
		mr_requester_retired(&F.r, w, F.head);
		F.head++;
		any = true;
		/* kernel: a WR failed, the QP is in Error now */
		if (st && st != ST_FLUSH)
			in_error = true;
	}
	if (in_error) {
		CHECK(F.head == F.tail);
		reset_engine();
		F.was_reset = true;
	}
	return any;
}

/* @timer: the run was the timer's (kernel/req.c mroce_req_arm). */
static void arm(bool timer)
{
	F.armed = mr_requester_deadline(&F.r, F.head, F.tail, F.now);
	/*
	 * Due later, and due at all while work remains. Due now only as an
	 * expired RTO or a path's death that a run other than the timer's
	 * left to it (MR-LOSS-7, MR-MP-8), or a death that the sends after
	 * the timer's own run made due (a pending path's dead_min_pkts-th
	 * packet): the kernel arms 1 us on, and that timer's run judges it.
	 */
	if (F.armed <= F.now) {
		CHECK(F.r.snd.sb.rto_held);
		CHECK(!timer || mr_path_dead_deadline(&F.r.snd.pt,
				mr_txsb_paths_in_flight(&F.r.snd.sb),
				mr_txsb_base_rto(&F.r.snd.sb)) <= F.now);
		F.armed = F.now + 1000;
	}
	if (F.head != F.tail)
		CHECK(F.armed != MR_TIME_NEVER);
}

/* kernel/req.c mroce_req_loop(), the QP in RTS; @timer: req_timer's. */
static void req_run_as(bool timer)
{
	bool kick, on_timer = timer;
	u64 before;
	int turns = 0;

	/* the consumer posted what fits since the last event */
	complete();
	post();
	do {
		kick = complete();
		check_state();
		before = F.emitted;
		if (on_timer) {
			on_timer = false;
			mr_requester_on_timer(&F.r);
		}
		if (mr_requester_run(&F.r, F.head, F.tail, true, F.now, BATCH,
				     NULL))
			kick = true;
		check_state();
		if (F.emitted != before)
			kick = true;
		/* a bounded burst at one instant */
		CHECK(++turns < LOOP_MAX);
	} while (kick && !F.was_reset);
	/* restarted: the next post runs it (LLVMFuzzerTestOneInput) */
	F.was_reset = false;
	arm(timer);
}

/* kernel/req.c mroce_req_run(): a post, a packet, a free buffer. */
static void req_run(void)
{
	req_run_as(false);
}

/* ---- setup -------------------------------------------------------- */

static void reset_engine(void)
{
	struct mr_txsb_params tp;
	struct mr_cc_params cp;
	struct mr_path_params pp;
	int i;

	mr_txsb_default_params(&tp);
	tp.retry_cnt = F.retry_cnt;
	tp.rnr_retry = F.rnr_retry;
	tp.verbs_timeout_ns = F.verbs_timeout;
	tp.ts_offset = F.ts_offset;
	CHECK(!mr_txsb_init(&F.r.snd.sb, &tp, F.init_psn));
	mr_cc_default_params(&cp);
	if (F.cc_fixed) {
		cp.mode = MR_CC_FIXED;
	} else {
		/* the kernel's default (cc_delay off) */
		cp.use_delay = false;
		cp.min_cwnd = MR_CC_ONE;
	}
	CHECK(!mr_cc_init(&F.r.snd.cc, &cp));
	mr_path_default_params(&pp);
	CHECK(!mr_path_init(&F.r.snd.pt, &pp, fz_rand, &F.rng, F.now));
	F.r.ops = &fz_ops;
	F.r.msn_idx = F.msn_idx;
	mr_requester_start(&F.r, &F.rp, F.head);
	F.nxt = F.una_seen = F.acked_to = F.init_psn;
	F.msn_next = F.ssn_next = 0;
	memset(F.plog, 0, sizeof(F.plog));
	F.n_rlog = F.n_probes = 0;
	F.fatal = F.retry_ev = false;
	F.rnr_ev = 0;
	/* the next connection starts elsewhere in PSN space */
	F.init_psn = mr_psn_add(F.init_psn, 0x4321);
	for (i = 0; i < SQ; i++)
		F.wr[i].idx = F.head - 1;	/* nothing queued */
}

/* Header: config bytes, then NDESC WR descriptors of 2 bytes. */
#define HDR	(8 + 2 * NDESC)

static void setup(const u8 *d)
{
	u8 t = d[4] >> 3 & 15;
	int i;

	memset(&F, 0, sizeof(F));
	F.now = T0;
	F.init_psn = (u32)d[0] << 16 | (u32)d[1] << 8 | d[2];
	F.retry_cnt = d[3] & 7;
	F.rnr_retry = d[3] >> 3 & 7;
	F.cc_fixed = d[3] & 0x40;
	/*
	 * The verbs timeout (kernel/req.c): 0 (never), or 4.096 us * 2^c for
	 * c in 8..15 (1 ms .. 134 ms, around the usual 14): longer ones only
	 * make a silent peer take longer to give up.
	 */
	F.verbs_timeout = t ? mr_ib_timeout_ns((u8)(8 + t / 2)) :
			  MR_TIME_NEVER;
	F.ts_offset = (u32)d[5] << 24 | (u32)d[6] << 8 | d[7];
	F.rng = d[7] | 1;
	F.rp.mtu = MTU;
	F.rp.max_rd_atomic = 1 + (d[4] & 7) * 2;
	F.rp.rd_bytes_max = 2 * MR_RDASM_WINDOW;	/* MROCE_RD_QP_BUDGET */
	F.rp.sq_size = SQ;
	F.rp.probe_id = (u32)d[5] << 16 | d[6];
	F.rp.path_health = true;
	F.rp.status[MR_REQ_ST_RETRY_EXC] = ST_RETRY;
	F.rp.status[MR_REQ_ST_RNR_RETRY_EXC] = ST_RNR;
	F.rp.status[MR_REQ_ST_REM_ACCESS] = ST_REM_ACCESS;
	F.rp.status[MR_REQ_ST_REM_INV_REQ] = ST_REM_INV;
	F.rp.status[MR_REQ_ST_REM_OP] = ST_REM_OP;
	F.rp.status[MR_REQ_ST_FLUSH] = ST_FLUSH;
	for (i = 0; i < NDESC; i++) {
		F.desc[i][0] = d[8 + 2 * i];
		F.desc[i][1] = d[9 + 2 * i];
	}
	reset_engine();
}

/* ---- what comes back ---------------------------------------------- */

struct in {
	const u8 *d;
	size_t n, off;
};

static u8 get(struct in *in)
{
	return in->off < in->n ? in->d[in->off++] : 0;
}

/*
 * Hand @p to the engine as kernel/req.c mroce_req_rcv() does: encoded
 * and received again (mr_pkt_receive(), MR-MAL-2), a response longer
 * than the MTU dropped (MR-HDR-21), then mr_requester_rcv() and a
 * run. Records what the responder acknowledged and checks what a fatal
 * NACK did.
 */
static void deliver_rx(const struct mr_pkt *p)
{
	bool trimmed = p->flags & MR_F_TRIM;
	struct fpsn *e = NULL;
	const struct fpsn *ne = NULL;
	bool failed = F.r.snd.sb.failed, fatal_ok = false;
	struct fwr *owner = NULL;
	u8 want = 0;
	u32 psn, i;

	if ((p->opcode == MR_OP_READ_RESP || p->opcode == MR_OP_ATOMIC_RESP) &&
	    !trimmed && p->payload_len > MTU)
		return;
	if (p->opcode == MR_OP_NACK && !failed &&
	    p->nkh.reason >= MR_NACK_REMOTE_ACCESS &&
	    p->nkh.reason <= MR_NACK_REMOTE_OP &&
	    p->nkh.nack_psn == p->akh.cum_psn) {
		/* a fatal NACK at an outstanding, unacknowledged PSN */
		ne = plog_get(p->nkh.nack_psn);
		if (ne && !ne->acked &&
		    mr_psn_diff(p->nkh.nack_psn, F.r.snd.sb.una) >= 0 &&
		    mr_psn_before(p->nkh.nack_psn, F.nxt)) {
			fatal_ok = true;
			owner = fwr_at(ne->wr);
			want = p->nkh.reason == MR_NACK_REMOTE_ACCESS ?
			       ST_REM_ACCESS :
			       p->nkh.reason == MR_NACK_INVALID_REQ ?
			       ST_REM_INV : ST_REM_OP;
			CHECK(owner->idx == ne->wr);
		}
	}
	TRACE(" rx op %#x psn %u msn %u off %u pl %u fl %#x cum %u nack %u/%u ts %u\n",
	      p->opcode, p->psn, p->dxh.msn, p->dxh.offset, p->payload_len,
	      p->flags, p->akh.cum_psn, p->nkh.reason, p->nkh.nack_psn,
	      p->akh.ts_echo);
	F.rejected = false;
	F.dup = false;
	F.cur = p->opcode == MR_OP_READ_RESP ||
		p->opcode == MR_OP_ATOMIC_RESP ? p : NULL;
	/*
	 * CE from the timestamp's low bit: both values reach the
	 * response's congestion accounting (MR-CC-1) without a change of
	 * the input format.
	 */
	mr_requester_rcv(&F.r, F.head, F.tail, p, p->ts & 1, F.now, NULL);
	F.cur = NULL;
	if (p->opcode == MR_OP_ACK || p->opcode == MR_OP_NACK) {
		if (!F.rejected) {
			/* the AKH: all before cum_psn, and the SACK map */
			if (mr_psn_after(p->akh.cum_psn, F.acked_to)) {
				for (psn = F.acked_to; psn != p->akh.cum_psn;
				     psn = mr_psn_add(psn, 1))
					ack_psn(psn);
				F.acked_to = p->akh.cum_psn;
			}
			for (i = 1; i < MR_SACK_BITS; i++)
				if (mr_sack_test(p->akh.sack, i))
					ack_psn(mr_psn_add(p->akh.cum_psn, i));
		} else {
			fatal_ok = false;
		}
	} else if (!trimmed && (p->opcode == MR_OP_READ_RESP ||
				p->opcode == MR_OP_ATOMIC_RESP)) {
		/*
		 * A valid response acknowledges its own request (MR-REL-21):
		 * one that matches it and that the engine took (it drops and
		 * counts invalid and duplicate ones, MR-REL-26).
		 */
		e = plog_get(p->psn);
		if (e && answered(e->op) && e->msn == p->dxh.msn && !F.dup)
			e->resp_acked = true;
	}
	if (fatal_ok) {
		/* MR-VERBS-22: the WR of nack_psn fails with its status */
		const struct mr_swqe *w = &F.sq[owner->idx % SQ];

		owner->nack_st = want;
		/* unless a response acknowledged it: then it may be void */
		if (!ne->resp_acked) {
			CHECK(F.r.snd.sb.failed);
			CHECK(owner->seen_state == MR_SWQE_DONE ||
			      (w->state == MR_SWQE_DONE &&
			       w->status == want));
		}
	}
	if (F.r.snd.sb.failed && !failed)
		F.fatal = true;
	check_state();
	req_run();
}

/* Encode @p (payload @pl), receive it as the kernel would, deliver. */
static void deliver(struct mr_pkt *p, const u8 *pl)
{
	struct mr_pkt q;
	int len;

	p->dqpn = 0x22;
	p->sqpn = 0x11;
	p->payload = p->payload_len ? pl : NULL;
	len = mr_pkt_encode(p, F.pktbuf, sizeof(F.pktbuf));
	if (len <= 0)
		return;		/* not a packet a responder can send */
	if (p->flags & MR_F_TRIM) {
		/* what a trimming switch leaves: the headers and 4 bytes */
		len -= (int)p->payload_len;
	}
	if (mr_pkt_receive(F.pktbuf, (u32)len, MR_DSCP_UNKNOWN,
			   MR_TRIM_DSCP_OFF, &q))
		return;
	deliver_rx(&q);
}

/* ts_echo as selected by @t: of a sent packet, now, old, future, junk. */
static u32 echo(u8 t, u32 psn)
{
	const struct fpsn *e = plog_get(psn);
	const struct mr_txsb *sb = &F.r.snd.sb;

	switch (t % 8) {
	case 0:
	case 1:
	case 2:
		if (e)
			return mr_txsb_stamp(sb, e->sent_ns);
		return mr_txsb_stamp(sb, F.last_sent_ns);
	case 3:
		return mr_txsb_stamp(sb, F.last_sent_ns);
	case 4:
		return mr_txsb_stamp(sb, F.now);
	case 5:
		return mr_txsb_stamp(sb, F.now - (u64)(t >> 3) * 64 * 1000 * US);
	case 6:
		return mr_txsb_stamp(sb, F.now + 10000 * US);
	default:
		return (u32)t * 0x01010101U;
	}
}

static void base(struct mr_pkt *p, u8 op)
{
	memset(p, 0, sizeof(*p));
	p->opcode = op;
	p->ts = mr_txsb_ts(F.now) ^ 0x5555;
}

/* A PSN at @k of the outstanding ones (k up to nxt itself). */
static u32 out_psn(u8 k)
{
	u32 out = mr_psn_dist(F.nxt, F.r.snd.sb.una);

	return mr_psn_add(F.r.snd.sb.una, k % (out + 1));
}

static void fill_sack(struct mr_pkt *p, u8 mode, u8 a, u8 b)
{
	u32 i, from, to;

	switch (mode & 3) {
	case 1:
		i = 1 + a % 255;
		p->akh.sack[i / 64] |= 1ULL << (i % 64);
		break;
	case 2:
		from = 1 + a % 64;
		to = from + b % 64;
		for (i = from; i < to && i < MR_SACK_BITS; i++)
			p->akh.sack[i / 64] |= 1ULL << (i % 64);
		break;
	case 3:
		for (i = 1; i < 64; i++)
			if (((i * (a | 1)) ^ b) & 4)
				p->akh.sack[0] |= 1ULL << i;
		break;
	default:
		break;
	}
}

static void rec_ack(struct in *in)
{
	u8 c = get(in), sm = get(in), sa = get(in), sb = get(in);
	u8 t = get(in), m = get(in);
	struct mr_pkt p;

	base(&p, MR_OP_ACK);
	if (c < 0xf0)
		p.akh.cum_psn = out_psn(c);
	else if (c < 0xf8)	/* stale: before una (MR-REL-20) */
		p.akh.cum_psn = mr_psn_sub(F.r.snd.sb.una, 1 + (c & 7) * 37);
	else			/* acknowledges what was never sent */
		p.akh.cum_psn = mr_psn_add(F.nxt, 1 + (c & 7));
	fill_sack(&p, sm, sa, sb);
	p.akh.ts_echo = echo(t, mr_psn_sub(p.akh.cum_psn, 1));
	p.akh.msn = F.msn_next - (m >> 4);
	p.akh.credit = m & 1 ? MR_CREDIT_UNLIMITED : (u32)(m >> 1) * 8;
	p.akh.pkt_count = 1 + (m & 3);
	if (m & 2) {
		p.flags |= MR_F_ECE;
		p.akh.ce_count = 1;
	}
	p.path = sa % F.r.snd.pt.n;
	deliver(&p, NULL);
}

static void rec_nack(struct in *in)
{
	u8 r = get(in), k = get(in), c = get(in), t = get(in), m = get(in);
	struct mr_pkt p;

	base(&p, MR_OP_NACK);
	p.nkh.reason = (u8)(1 + r % MR_NACK_REASON_MAX);
	p.nkh.nack_psn = out_psn(k);
	/* a responder NACKs at its cum_psn; a hostile one anywhere */
	p.akh.cum_psn = c & 1 ? p.nkh.nack_psn : out_psn(c >> 1);
	/* RNR and RESOURCE carry a delay code (MR-HDR-19) */
	if (p.nkh.reason == MR_NACK_RNR || p.nkh.reason == MR_NACK_RESOURCE)
		p.nkh.rnr_timer = m & 31;
	if (r & 0x80)
		fill_sack(&p, 1, m, 0);
	p.akh.ts_echo = echo(t, p.nkh.nack_psn);
	p.akh.msn = F.msn_next;
	p.akh.credit = MR_CREDIT_UNLIMITED;
	p.akh.pkt_count = 1;
	p.path = (r >> 3) % F.r.snd.pt.n;
	deliver(&p, NULL);
}

static u8 payload[MTU + 8];

/* Response packet @k of READ_REQ @q, bent by @mode. */
static void read_resp_pkt(const struct fresp *q, u32 k, u8 mode)
{
	u32 off = q->off + k * MTU, end = q->off + q->len, i;
	u32 plen = MR_MIN(MTU, end - off), msn = q->msn;
	struct mr_pkt p;

	base(&p, MR_OP_READ_RESP);
	p.psn = q->psn;
	if (mode & 0x02)	/* another PSN: of a different message */
		p.psn = out_psn(mode);
	if (mode & 0x04)	/* a message that is not this one */
		msn += 1 + (mode >> 6);
	if (mode & 0x08 && off)	/* off the unit grid */
		off -= 1 + (mode >> 5);
	if (mode & 0x10 && plen > 1)
		plen--;		/* short: not the end of the range */
	if (mode & 0x40)	/* past the range asked for */
		end += MTU;
	if (off > end)
		off = end;
	plen = MR_MIN(plen, end - off);
	p.dxh.msn = msn;
	p.dxh.offset = off;
	p.dxh.msg_len = end;
	p.payload_len = plen;
	p.flags = (off == 0 ? MR_F_FIRST : 0) |
		  (off + plen == end ? MR_F_LAST : 0);
	if (mode & 0x01)
		p.flags |= MR_F_TRIM;
	for (i = 0; i < plen; i++)
		payload[i] = pat(msn, off + i);
	deliver(&p, payload);
}

static const struct fresp *pick_resp(u8 k, bool atomic)
{
	u32 n = MR_MIN(F.n_rlog, RLOG), i;
	const struct fresp *q;

	for (i = 0; i < n; i++) {
		q = &F.rlog[(F.n_rlog - 1 - (k + i) % n) % RLOG];
		if ((q->op == MR_OP_READ_REQ) != atomic)
			return q;
	}
	return NULL;
}

static void rec_read_resp(struct in *in)
{
	u8 k = get(in), s = get(in), c = get(in), mode = get(in);
	const struct fresp *q = pick_resp(k, false);
	u32 npk, i, j, n;

	if (!q)
		return;
	npk = q->len ? (q->len + MTU - 1) / MTU : 1;
	n = 1 + c % 16;
	for (i = 0; i < n; i++) {
		/* in order, or backwards (mode 0x80) */
		j = mode & 0x80 ? s + n - 1 - i : s + i;
		read_resp_pkt(q, j % npk, i ? mode & 0x7e : mode);
		if (c & 0x80)	/* each one twice */
			read_resp_pkt(q, j % npk, mode & 0x7e);
	}
}

static void atomic_resp(const struct fresp *q, u8 mode, u64 orig)
{
	struct mr_pkt p;

	base(&p, MR_OP_ATOMIC_RESP);
	p.psn = mode & 0x02 ? out_psn(mode >> 2) : q->psn;
	p.dxh.msn = mode & 0x04 ? q->msn + 1 : q->msn;
	p.dxh.msg_len = MR_ATOMIC_LEN;
	p.flags = MR_F_FIRST | MR_F_LAST | (mode & 0x01 ? MR_F_TRIM : 0);
	p.atomic_orig = orig;
	deliver(&p, NULL);
}

static void rec_atomic_resp(struct in *in)
{
	u8 k = get(in), mode = get(in), v = get(in);
	const struct fresp *q = pick_resp(k, true);

	if (!q)
		return;
	atomic_resp(q, mode, v * 0x0101010101010101ULL);
	if (mode & 0x80)
		atomic_resp(q, 0, v);
}

static void rec_probe_reply(struct in *in)
{
	u8 k = get(in), mode = get(in);
	struct mr_pkt p;
	u32 i;

	if (!F.n_probes)
		return;
	i = (F.n_probes - 1 - k % MR_MIN(F.n_probes, NPROBE)) % NPROBE;
	base(&p, MR_OP_PROBE_REPLY);
	/* echoes the probe's PSN (its identifier), ts and path */
	p.psn = F.probes[i].psn ^ (mode & 0x01);
	p.ts = F.probes[i].ts - (mode & 0x02 ? 1000000 : 0);
	p.path = (F.probes[i].path + (mode >> 2 & 3)) % MR_MAX_PATHS;
	deliver(&p, NULL);
	if (mode & 0x80)
		deliver(&p, NULL);
}

/* An honest responder's turn: answer what is asked, ACK all. */
static void rec_serve(struct in *in)
{
	u8 m = get(in), lim = get(in);
	u32 budget = 32 + 4u * lim, i, k, npk, n = MR_MIN(F.n_rlog, RLOG);
	struct fresp q;
	struct mr_pkt p;

	for (i = 0; i < n && budget; i++) {
		q = F.rlog[(F.n_rlog - n + i) % RLOG];
		/* still outstanding: its WR in the queue and unfinished */
		if (q.wr - F.head >= F.tail - F.head ||
		    fwr_at(q.wr)->msn != q.msn ||
		    F.sq[q.wr % SQ].state != MR_SWQE_SENT)
			continue;
		if (q.op != MR_OP_READ_REQ) {
			atomic_resp(&q, 0, q.msn * 0x9E3779B97F4A7C15ULL);
			budget--;
			continue;
		}
		npk = q.len ? (q.len + MTU - 1) / MTU : 1;
		for (k = 0; k < npk && budget; k++, budget--)
			read_resp_pkt(&q, k, 0);
	}
	if (m & 1)
		return;
	base(&p, MR_OP_ACK);
	p.akh.cum_psn = F.nxt;
	p.akh.ts_echo = mr_txsb_stamp(&F.r.snd.sb, F.last_sent_ns);
	p.akh.msn = F.msn_next;
	p.akh.credit = MR_CREDIT_UNLIMITED;
	p.akh.pkt_count = 1;
	deliver(&p, NULL);
}

static void rec_raw(struct in *in)
{
	u32 len = (u32)get(in) << 8, flags;
	struct mr_pkt p;
	bool marked;
	u8 *b;

	len |= get(in);
	flags = len >> 15;
	marked = (len >> 14) & 1;
	len &= 0x7ff;
	if (len > in->n - in->off)
		len = (u32)(in->n - in->off);
	/* exact size: ASan sees a read past the packet */
	b = malloc(len ? len : 1);
	if (!b)
		return;
	memcpy(b, in->d + in->off, len);
	in->off += len;
	if (!flags && len >= 4)
		mr_icrc_put(b, len - 4);
	/* bit 14 of the length: it came with the trimmed DSCP (MR-TRIM-2) */
	if (!mr_pkt_receive(b, len, marked ? MR_TRIM_DSCP_DEFAULT :
			    MR_DSCP_UNKNOWN, MR_TRIM_DSCP_DEFAULT, &p)) {
		switch (p.opcode) {
		case MR_OP_ACK:
		case MR_OP_NACK:
		case MR_OP_READ_RESP:
		case MR_OP_ATOMIC_RESP:
		case MR_OP_PROBE_REPLY:
			deliver_rx(&p);
			break;
		default:
			break;
		}
	}
	free(b);
}

static void timer(void)
{
	if (F.armed != MR_TIME_NEVER && F.now >= F.armed)
		req_run_as(true);
}

/* The peer is silent: every WR completes, by the budgets or a failure. */
static void drain(void)
{
	int i;

	if (F.verbs_timeout == MR_TIME_NEVER && !F.r.snd.sb.failed)
		return;
	TRACE("drain\n");
	F.draining = true;
	for (i = 0; i < DRAIN_MAX && F.head != F.tail; i++) {
		CHECK(F.armed != MR_TIME_NEVER);
		F.now = F.armed;
		req_run_as(true);
	}
	/* MR-RETRY-1, MR-VERBS-22: nothing waits forever */
	CHECK(F.head == F.tail);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	trace = getenv("FUZZ_REQ_TRACE") != NULL;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { .d = data, .n = size, .off = HDR };
	u8 t, a, b;

	if (size < HDR)
		return 0;
	setup(data);
	req_run();
	while (in.off < in.n) {
		/* the consumer posts again to an empty queue, which runs */
		if (F.head == F.tail)
			req_run();
		t = get(&in);
		TRACE("rec %u at %llu us: una %u nxt %u head %u tail %u armed %lld\n",
		      t % R_N, (unsigned long long)((F.now - T0) / US),
		      F.r.snd.sb.una, F.r.snd.sb.nxt, F.head, F.tail,
		      F.armed == MR_TIME_NEVER ? -1LL :
		      (long long)((F.armed - T0) / US));
		switch (t % R_N) {
		case R_ADVANCE:
			a = get(&in);
			b = get(&in);
			F.now += ((u64)b + 1) << (a & 15) << 10;
			timer();
			break;
		case R_FIRE:
			if (F.armed != MR_TIME_NEVER)
				F.now = F.armed;
			timer();
			break;
		case R_ACK:
			rec_ack(&in);
			break;
		case R_NACK:
			rec_nack(&in);
			break;
		case R_READ_RESP:
			rec_read_resp(&in);
			break;
		case R_ATOMIC_RESP:
			rec_atomic_resp(&in);
			break;
		case R_PROBE_REPLY:
			rec_probe_reply(&in);
			break;
		case R_SERVE:
			rec_serve(&in);
			break;
		case R_RAW:
			rec_raw(&in);
			break;
		default:
			a = get(&in);
			if ((a & 3) == 0)
				F.emit_fault = MR_REQ_TX_AGAIN;
			else if ((a & 3) == 1)
				F.emit_fault = ST_BAD_BUF;
			else if ((a & 3) == 2)
				F.place_fault = true;
			/* the kernel runs after a post or a free buffer */
			req_run();
			break;
		}
	}
	drain();
	return 0;
}
