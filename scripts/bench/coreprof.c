// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * coreprof: the portable protocol core's per-packet work, for valgrind's
 * callgrind (scripts/bench/coreprof.sh runs it and turns the counts into
 * instructions per packet).
 *
 * One RC requester (the requester engine kernel/req.c runs: the send
 * queue walks, txsb + cc + path) streams WRITE messages to one responder
 * (the receiver engine kernel/resp.c runs: rxwin + rxmsg + error point +
 * rate limits) over a simulated link on a virtual clock: a serialisation
 * gap per packet, a one-way delay, and random loss on both directions
 * (data and ACKs). Every packet is really encoded (headers, payload copy,
 * ICRC) and really checked and decoded on the other side. Only the core
 * runs here: no skb, no socket, no verbs.
 *
 * Each piece of per-packet work is one noinline function below (the
 * "stages"); callgrind's inclusive count of a stage divided by the number
 * of calls the program prints is its cost per call:
 *   stage_tx_run     requester: one run of the engine (deadlines, then up
 *                    to a NIC queue's worth of packets: scoreboard, path
 *                    and cc bookkeeping, segmentation), its stage_tx_data
 *                    calls included
 *   stage_tx_data    requester: encode and ICRC of one data packet (new or
 *                    retransmitted), the engine's emit callback
 *   stage_rx_data    responder: ICRC check, decode, the receiver engine
 *                    (window, message tracker, placement (memcpy),
 *                    completion, ACK policy and filling the ACK)
 *   stage_tx_ack     responder: encode one ACK (headers, ICRC)
 *   stage_rx_ack     requester: ICRC check, decode, the engine's feedback
 *                    (scoreboard: SACK, RACK, RTT; cc and path), and the
 *                    completions it allows
 *   icrc_*           the ICRC alone, as the core computes it (portable
 *                    slicing-by-8) and with the SSE4.2 crc32 instruction
 *                    (what the kernel's crc32c() uses, MR_KERNEL_CRC32C)
 * The simulator's own work (event queue, random numbers) is outside the
 * stages.
 *
 * It also reports what the congestion control did: goodput in virtual
 * time, the time-averaged window, cuts, RTOs, retransmissions; so the same
 * run shows what a loss rate costs the window (ratio against loss 0).
 *
 * Usage: coreprof [-l LOSS_PCT] [-n MESSAGES] [-s MSG_BYTES] [-m MTU]
 *		   [-r RTT_US] [-g GAP_NS] [-f] [-d] [-S SEED] [-c BYTES]
 *   -f  fixed window (cc_fixed=1 of the module, MR_CC_FIXED)
 *   -d  delay signal on (cc_delay=1); the module's default is off
 *   -c  only time the ICRC over BYTES, N times (-n), both variants
 * Defaults: loss 0, 2000 messages of 65536 bytes, MTU 1024 (an IB MTU of
 * 1024 is what a 1500-byte netdev gives), RTT 1000 us (TCG-like), gap
 * 40 us per packet (about 200 Mbit/s: the order of iperf3 under TCG).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire.h"
#include "psn.h"
#include "txsb.h"
#include "cc.h"
#include "path.h"
#include "sender.h"
#include "receiver.h"
#include "segment.h"
#include "requester.h"
#include "crc32c.h"

#define NOINLINE __attribute__((noinline))
#define MAX_MTU		4096
#define PKT_MAX		(MR_MAX_HDR_LEN + MAX_MTU + MR_ICRC_LEN)
#define QCAP		1024		/* packets in flight per direction */
#define REQ_QPN		0x000111
#define RSP_QPN		0x000222
#define RKEY		0x1234
#define VA		0x7f0000000000ULL
#define US		1000ULL
#define MEM_SLOTS	4		/* responder target buffers */
#define SQ_SIZE		256		/* requester send queue */
#define TX_BATCH	16		/* packets per run, as kernel/req.c */

struct qpkt {
	u64 t;
	u32 len;
	u8 buf[PKT_MAX];
};

struct queue {
	struct qpkt q[QCAP];
	u32 head, n;
	u64 busy_until;		/* serialisation of the sender's link */
	u64 sent, lost;
};

static struct {
	/* configuration */
	double loss;
	u32 n_msgs, msg_len, mtu;
	u64 owd_ns, gap_ns;
	bool fixed, delay;
	u64 rng;
	/* requester */
	struct mr_requester rq;	/* the kernel's requester engine */
	u32 msn_idx[SQ_SIZE];
	struct mr_swqe sq[SQ_SIZE];
	u32 head, tail, posted, done_msn;
	u64 path_rng;
	u64 armed;		/* when the requester runs next */
	u8 payload[MAX_MTU];
	/* responder */
	struct mr_receiver rcv;	/* the kernel's responder engine */
	struct mr_pkt ack;	/* the ACK the engine asked for */
	bool ack_owed;
	u8 mem[MEM_SLOTS][65536 * 16];
	u32 rsp_done;
	/* link */
	struct queue to_rsp, to_req;
	u64 now;
	/* statistics */
	u64 n_tx_data, n_retx, n_rx_data, n_tx_ack, n_rx_ack, n_tx_run;
	u64 n_rtos, n_dup, cwnd_area, last_cwnd_t;
	u32 min_cwnd_seen, max_cwnd_seen;
} S;

static u64 rnd(void)
{
	u64 x = (S.rng += 0x9E3779B97F4A7C15ULL);

	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static u32 path_rand(void *ctx)
{
	u64 *s = ctx;

	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (u32)(*s >> 33);
}

/* The link: FIFO with a serialisation gap and a one-way delay. */
static void link_send(struct queue *q, const u8 *buf, u32 len)
{
	struct qpkt *k;
	u64 start = S.now > q->busy_until ? S.now : q->busy_until;

	q->busy_until = start + S.gap_ns;
	q->sent++;
	if (S.loss > 0 && (double)(rnd() >> 11) / 9007199254740992.0 < S.loss) {
		q->lost++;
		return;
	}
	if (q->n == QCAP) {
		fprintf(stderr, "coreprof: link queue full\n");
		exit(1);
	}
	k = &q->q[(q->head + q->n++) % QCAP];
	k->t = start + S.gap_ns + S.owd_ns;
	k->len = len;
	memcpy(k->buf, buf, len);
}

static void cwnd_account(void)
{
	u32 w = mr_cc_window(&S.rq.snd.cc) >> MR_CC_SHIFT;

	S.cwnd_area += (u64)w * (S.now - S.last_cwnd_t);
	S.last_cwnd_t = S.now;
	if (w < S.min_cwnd_seen)
		S.min_cwnd_seen = w;
	if (w > S.max_cwnd_seen)
		S.max_cwnd_seen = w;
}

/* ------------------------------------------------------------ stages */

/* The engine's data packet @p: encode, payload, ICRC (kernel/pkt.c). */
NOINLINE static u32 stage_tx_data(u8 *buf, struct mr_pkt *p)
{
	int hl;

	p->dqpn = RSP_QPN;
	p->sqpn = REQ_QPN;
	hl = mr_pkt_encode_hdr(p, buf, PKT_MAX);
	if (hl < 0)
		abort();
	memcpy(buf + hl, S.payload, p->payload_len);
	mr_icrc_put(buf, (u32)hl + p->payload_len);
	return (u32)hl + p->payload_len + MR_ICRC_LEN;
}

/* ---- the requester engine's callbacks (struct mr_requester_ops) ---- */

static struct mr_swqe *rq_wqe(void *ctx, u32 idx)
{
	(void)ctx;
	return &S.sq[idx % SQ_SIZE];
}

static void rq_msg(void *ctx, const struct mr_swqe *w, struct mr_req_msg *m)
{
	(void)ctx;
	(void)w;
	m->va = VA;
	m->rkey = RKEY;
}

static int rq_emit(void *ctx, struct mr_swqe *w, struct mr_pkt *p)
{
	u8 buf[PKT_MAX];

	(void)ctx;
	(void)w;
	S.n_tx_data++;
	if (p->flags & MR_F_RETX)
		S.n_retx++;
	link_send(&S.to_rsp, buf, stage_tx_data(buf, p));
	return 0;
}

static u8 rq_place(void *ctx, struct mr_swqe *w, u32 off, const void *buf,
		   u32 len)
{
	(void)ctx;
	(void)w;
	(void)off;
	(void)buf;
	(void)len;
	abort();	/* WRITEs only */
}

static u8 rq_local(void *ctx, struct mr_swqe *w)
{
	(void)ctx;
	(void)w;
	abort();
}

static bool rq_probe(void *ctx, struct mr_pkt *p)
{
	(void)ctx;
	(void)p;
	abort();	/* path health is off here */
}

static void rq_event(void *ctx, enum mr_req_event ev, u64 n,
		     const struct mr_swqe *w)
{
	(void)ctx;
	(void)w;
	if (ev == MR_REQ_EV_RTO)
		S.n_rtos += n;
	else if (ev == MR_REQ_EV_RETRY_EXC || ev == MR_REQ_EV_RD_STALLED ||
		 ev == MR_REQ_EV_ACK_AGED || ev == MR_REQ_EV_ACK_BAD)
		abort();
}

static const struct mr_requester_ops rq_ops = {
	.wqe = rq_wqe,
	.msg = rq_msg,
	.emit = rq_emit,
	.place = rq_place,
	.local = rq_local,
	.probe = rq_probe,
	.event = rq_event,
};

/* Encode the ACK the engine filled (rcv_emit). */
NOINLINE static u32 stage_tx_ack(u8 *buf)
{
	int len;

	S.ack_owed = false;
	S.ack.dqpn = REQ_QPN;
	S.ack.sqpn = RSP_QPN;
	S.ack.ts = (u32)(S.now / US);
	len = mr_pkt_encode(&S.ack, buf, PKT_MAX);
	if (len < 0)
		abort();
	return (u32)len;
}

/* The engine's callbacks: a receiver with room for everything. */
static u8 rcv_check(void *ctx, const struct mr_pkt *p)
{
	(void)ctx;
	(void)p;
	return 0;
}

static u8 rcv_place(void *ctx, const struct mr_pkt *p)
{
	(void)ctx;
	/* placement at RXH.va + offset (one of a few buffers) */
	memcpy(S.mem[p->dxh.msn % MEM_SLOTS] + p->dxh.offset, p->payload,
	       p->payload_len);
	return 0;
}

static u8 rcv_deliver(void *ctx, const struct mr_rxmsg_info *m)
{
	(void)ctx;
	(void)m;
	S.rsp_done++;
	return 0;
}

/* Nothing is ever a duplicate on this lossless replay. */
static bool rcv_replay(void *ctx, const struct mr_pkt *p)
{
	(void)ctx;
	(void)p;
	abort();
}

static void rcv_emit(void *ctx, struct mr_pkt *a)
{
	(void)ctx;
	if (a->opcode != MR_OP_ACK)
		abort();
	S.ack = *a;
	S.ack_owed = true;
}

static void rcv_count(void *ctx, enum mr_rcv_event ev, const struct mr_pkt *p)
{
	(void)ctx;
	(void)p;
	if (ev == MR_RCV_EV_DUP || ev == MR_RCV_EV_OLD_DUP)
		S.n_dup++;
	else if (ev != MR_RCV_EV_RATE_LIMITED)
		abort();
}

static const struct mr_receiver_ops rcv_ops = {
	.check = rcv_check,
	.place = rcv_place,
	.deliver = rcv_deliver,
	.replay = rcv_replay,
	.emit = rcv_emit,
	.count = rcv_count,
};

/* Returns true when an ACK is to be sent. */
NOINLINE static bool stage_rx_data(const u8 *buf, u32 len)
{
	struct mr_pkt p;

	if (mr_pkt_receive(buf, len, MR_DSCP_UNKNOWN, MR_TRIM_DSCP_OFF,
			   &p))
		abort();
	if (mr_receiver_on_pkt(&S.rcv, &p, false, S.now, NULL))
		abort();
	return S.ack_owed;
}

/* Retire what completes, in order, and keep the send queue full. */
static void rq_complete_post(void)
{
	struct mr_swqe *w;
	enum mr_done d;

	while (S.head != S.tail) {
		d = mr_requester_head(&S.rq, S.head, S.now, NULL);
		if (d == MR_DONE_WAIT)
			break;
		if (d != MR_DONE_SUCCESS)
			abort();
		mr_requester_retired(&S.rq, &S.sq[S.head % SQ_SIZE], S.head);
		S.head++;
		S.done_msn++;
	}
	while (S.posted < S.n_msgs && S.tail - S.head < SQ_SIZE) {
		w = &S.sq[S.tail % SQ_SIZE];
		memset(w, 0, sizeof(*w));
		w->op = MR_OP_WRITE;
		w->length = S.msg_len;
		w->state = MR_SWQE_QUEUED;
		S.tail++;
		S.posted++;
	}
}

NOINLINE static void stage_rx_ack(const u8 *buf, u32 len)
{
	struct mr_pkt p;

	if (mr_pkt_receive(buf, len, MR_DSCP_UNKNOWN, MR_TRIM_DSCP_OFF,
			   &p))
		abort();
	mr_requester_on_pkt(&S.rq, S.head, S.tail, &p, S.now, NULL);
	rq_complete_post();
}

/* One run of the engine with @budget packets; true if it sent any. */
NOINLINE static bool stage_tx_run(int budget)
{
	u64 before = S.n_tx_data;

	mr_requester_run(&S.rq, S.head, S.tail, true, S.now, budget, NULL);
	rq_complete_post();
	return S.n_tx_data != before;
}

NOINLINE static u32 icrc_portable(const u8 *buf, u32 len)
{
	return mr_icrc_compute(buf, len);
}

__attribute__((target("sse4.2"))) NOINLINE static u32
icrc_sse42(const u8 *buf, u32 len)
{
	u64 crc = 0xFFFFFFFFU;

	while (len >= 8) {
		u64 v;

		memcpy(&v, buf, 8);
		crc = __builtin_ia32_crc32di(crc, v);
		buf += 8;
		len -= 8;
	}
	while (len--)
		crc = __builtin_ia32_crc32qi((u32)crc, *buf++);
	return ~(u32)crc;
}

/* ---------------------------------------------------------------- run */

/*
 * The requester runs as kernel/req.c runs it, in batches while it sends,
 * with as many packets as the NIC queue takes (a few ahead of the link).
 */
static void pump(void)
{
	u64 room_until = S.now + 4 * S.gap_ns;
	int budget;

	/* at least once: the deadlines run even when the queue is full */
	do {
		budget = 0;
		if (S.to_rsp.busy_until <= room_until)
			budget = (int)((room_until - S.to_rsp.busy_until) /
				       S.gap_ns) + 1;
		if (budget > TX_BATCH)
			budget = TX_BATCH;
		S.n_tx_run++;
	} while (stage_tx_run(budget) && budget);
	/*
	 * The kernel arms its timer here (mroce_req_arm): 1 us on when an
	 * expired RTO waits for the timer's run (MR-LOSS-7).
	 */
	S.armed = mr_requester_deadline(&S.rq, S.head, S.tail, S.now);
	if (S.armed <= S.now)
		S.armed = S.now + 1000;
}

static u64 next_event(void)
{
	u64 t = S.armed, n;

	n = mr_receiver_ack_deadline(&S.rcv);
	if (n < t)
		t = n;
	if (S.to_rsp.n && S.to_rsp.q[S.to_rsp.head].t < t)
		t = S.to_rsp.q[S.to_rsp.head].t;
	if (S.to_req.n && S.to_req.q[S.to_req.head].t < t)
		t = S.to_req.q[S.to_req.head].t;
	/* the NIC queue holds back a packet that may go */
	if (S.to_rsp.busy_until > S.now + 4 * S.gap_ns &&
	    (S.rq.cur != S.tail || S.rq.snd.sb.n_lost)) {
		n = S.to_rsp.busy_until - 4 * S.gap_ns;
		if (n < t)
			t = n;
	}
	return t;
}

static void run(void)
{
	u8 buf[PKT_MAX];

	rq_complete_post();
	pump();
	while (S.done_msn < S.n_msgs) {
		u64 t = next_event();

		if (t == MR_TIME_NEVER) {
			fprintf(stderr, "coreprof: stuck at %llu ns\n",
				(unsigned long long)S.now);
			exit(1);
		}
		if (t > S.now) {
			cwnd_account();
			S.now = t;
		}
		while (S.to_rsp.n && S.to_rsp.q[S.to_rsp.head].t <= S.now) {
			struct qpkt *k = &S.to_rsp.q[S.to_rsp.head];

			S.to_rsp.head = (S.to_rsp.head + 1) % QCAP;
			S.to_rsp.n--;
			S.n_rx_data++;
			if (stage_rx_data(k->buf, k->len)) {
				S.n_tx_ack++;
				link_send(&S.to_req, buf, stage_tx_ack(buf));
			}
		}
		mr_receiver_on_timer(&S.rcv, S.now, NULL);
		if (S.ack_owed) {
			S.n_tx_ack++;
			link_send(&S.to_req, buf, stage_tx_ack(buf));
		}
		while (S.to_req.n && S.to_req.q[S.to_req.head].t <= S.now) {
			struct qpkt *k = &S.to_req.q[S.to_req.head];

			S.to_req.head = (S.to_req.head + 1) % QCAP;
			S.to_req.n--;
			S.n_rx_ack++;
			stage_rx_ack(k->buf, k->len);
		}
		/* the timer, when due, runs after the packets (MR-LOSS-7) */
		if (S.armed <= S.now)
			mr_requester_on_timer(&S.rq);
		pump();
	}
	cwnd_account();
}

static void icrc_only(u32 bytes, u32 n)
{
	static u8 b[PKT_MAX];
	u32 i, x = 0;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (u8)rnd();
	for (i = 0; i < n; i++)
		if (icrc_portable(b, bytes) != icrc_sse42(b, bytes))
			x++;
	printf("COUNT icrc_portable %u\nCOUNT icrc_sse42 %u\n", n, n);
	printf("ICRC bytes=%u mismatches=%u\n", bytes, x);
}

int main(int argc, char **argv)
{
	struct mr_txsb_params tp;
	struct mr_cc_params cp;
	struct mr_path_params pp;
	struct mr_requester_params rp = {};
	u64 rtt_us = 1000;
	u32 crc_bytes = 0;
	int o;

	S.n_msgs = 2000;
	S.msg_len = 65536;
	S.mtu = 1024;
	S.gap_ns = 40000;
	S.rng = 0x4d6574615246ULL;
	while ((o = getopt(argc, argv, "l:n:s:m:r:g:fdS:c:")) != -1) {
		switch (o) {
		case 'l': S.loss = atof(optarg) / 100.0; break;
		case 'n': S.n_msgs = (u32)strtoul(optarg, NULL, 0); break;
		case 's': S.msg_len = (u32)strtoul(optarg, NULL, 0); break;
		case 'm': S.mtu = (u32)strtoul(optarg, NULL, 0); break;
		case 'r': rtt_us = strtoull(optarg, NULL, 0); break;
		case 'g': S.gap_ns = strtoull(optarg, NULL, 0); break;
		case 'f': S.fixed = true; break;
		case 'd': S.delay = true; break;
		case 'S': S.rng = strtoull(optarg, NULL, 0); break;
		case 'c': crc_bytes = (u32)strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: coreprof [-l loss%%] [-n msgs] "
				"[-s bytes] [-m mtu] [-r rtt_us] [-g gap_ns] "
				"[-f] [-d] [-S seed] [-c crc_bytes]\n");
			return 2;
		}
	}
	if (crc_bytes) {
		icrc_only(crc_bytes > PKT_MAX ? PKT_MAX : crc_bytes, S.n_msgs);
		return 0;
	}
	if (!S.mtu || S.mtu > MAX_MTU || !S.msg_len ||
	    S.msg_len > sizeof(S.mem[0]) || !S.n_msgs) {
		fprintf(stderr, "coreprof: bad sizes\n");
		return 2;
	}
	S.owd_ns = rtt_us * US / 2;
	memset(S.payload, 0x5a, sizeof(S.payload));

	/* the module's set-up (kernel/req.c mroce_req_start) */
	mr_txsb_default_params(&tp);
	if (mr_txsb_init(&S.rq.snd.sb, &tp, 0xFFFF00))
		return 1;
	mr_cc_default_params(&cp);
	if (S.fixed) {
		cp.mode = MR_CC_FIXED;
	} else if (!S.delay) {
		cp.use_delay = false;
		cp.min_cwnd = MR_CC_ONE;
	}
	if (mr_cc_init(&S.rq.snd.cc, &cp))
		return 1;
	mr_path_default_params(&pp);
	S.path_rng = 7;
	if (mr_path_init(&S.rq.snd.pt, &pp, path_rand, &S.path_rng, 0))
		return 1;
	rp.mtu = S.mtu;
	rp.max_rd_atomic = 16;
	rp.rd_bytes_max = 2 * MR_RDASM_WINDOW;
	rp.sq_size = SQ_SIZE;
	for (o = 0; o < MR_REQ_ST_N; o++)
		rp.status[o] = (u8)(o + 1);
	S.rq.ops = &rq_ops;
	S.rq.msn_idx = S.msn_idx;
	mr_requester_start(&S.rq, &rp, 0);
	mr_receiver_init(&S.rcv, 0xFFFF00, 0);
	S.rcv.ops = &rcv_ops;
	S.rcv.seq_err_interval_ns = 100 * US;	/* the kernel's default */
	S.rcv.pmtu = S.mtu;
	S.min_cwnd_seen = ~0U;

	run();

	printf("COUNT stage_tx_run %llu\nCOUNT stage_tx_data %llu\n"
	       "COUNT stage_rx_data %llu\nCOUNT stage_tx_ack %llu\n"
	       "COUNT stage_rx_ack %llu\n",
	       (unsigned long long)S.n_tx_run,
	       (unsigned long long)S.n_tx_data,
	       (unsigned long long)S.n_rx_data,
	       (unsigned long long)S.n_tx_ack,
	       (unsigned long long)S.n_rx_ack);
	printf("SIM loss_pct=%.3f msgs=%u msg_len=%u mtu=%u rtt_us=%llu "
	       "gap_ns=%llu cc=%s\n", S.loss * 100, S.n_msgs, S.msg_len,
	       S.mtu, (unsigned long long)rtt_us,
	       (unsigned long long)S.gap_ns,
	       S.fixed ? "fixed" : S.delay ? "dctcp+delay" : "dctcp(no delay)");
	printf("SIM virtual_ms=%.1f goodput_mbps=%.1f link_mbps=%.1f "
	       "data_pkts=%llu retx=%llu (%.2f%%) rtos=%llu acks=%llu "
	       "lost_data=%llu lost_acks=%llu dups=%llu\n",
	       (double)S.now / 1e6,
	       (double)S.n_msgs * S.msg_len * 8 / ((double)S.now / 1e9) / 1e6,
	       (double)(S.mtu + 88) * 8 / ((double)S.gap_ns / 1e9) / 1e6,
	       (unsigned long long)S.n_tx_data,
	       (unsigned long long)S.n_retx,
	       100.0 * (double)S.n_retx / (double)S.n_tx_data,
	       (unsigned long long)S.n_rtos, (unsigned long long)S.n_tx_ack,
	       (unsigned long long)S.to_rsp.lost,
	       (unsigned long long)S.to_req.lost,
	       (unsigned long long)S.n_dup);
	printf("SIM cwnd_avg=%.1f cwnd_min=%u cwnd_max=%u cuts_loss=%llu "
	       "cuts_ecn=%llu cuts_delay=%llu cc_rtos=%llu srtt_us=%.0f "
	       "rto_us=%.0f rack_lost=%llu rto_lost=%llu spurious=%llu\n",
	       (double)S.cwnd_area / (double)S.now, S.min_cwnd_seen,
	       S.max_cwnd_seen, (unsigned long long)S.rq.snd.cc.st.cuts_loss,
	       (unsigned long long)S.rq.snd.cc.st.cuts_ecn,
	       (unsigned long long)S.rq.snd.cc.st.cuts_delay,
	       (unsigned long long)S.rq.snd.cc.st.rtos,
	       (double)S.rq.snd.sb.srtt_ns / 1e3, (double)mr_txsb_rto(&S.rq.snd.sb) / 1e3,
	       (unsigned long long)S.rq.snd.sb.st.lost_rack,
	       (unsigned long long)S.rq.snd.sb.st.lost_rto,
	       (unsigned long long)S.rq.snd.sb.st.spurious);
	return 0;
}
