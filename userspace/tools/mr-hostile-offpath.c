// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-hostile --offpath: the off-path attacker (its guard, its classes)
 * and --selftest, the host-side proof of its generators.
 */
#include "mr-hostile.h"

/* ------------------------------------------------------------------ */
/* The off-path guard                                                 */

static uint32_t psn_absdiff(uint32_t a, uint32_t b)
{
	int32_t d = mr_psn_diff(a, b);

	return d < 0 ? (uint32_t)-(int64_t)d : (uint32_t)d;
}

/*
 * May this off-path packet leave? Only packets the receiver would take
 * from the genuine peer address matter: they must not come near a live
 * window (the comment at the top of mr-hostile.c). Replays (byte-exact or retransmission
 * look-alikes) and spoofed-source packets are exempt by construction.
 */
static bool offpath_guard(const uint8_t *pkt, uint32_t len, uint32_t src,
			  bool replay)
{
	const struct mr_op_desc *d;
	struct mr_pkt p;
	uint32_t ref, x;
	int live;

	if (replay || src != N.me)
		return true;
	if (mr_pkt_decode(pkt, len, &p))
		return true;
	if (!(p.flags & MR_F_TRIM) && mr_icrc_check(pkt, len))
		return true;
	d = mr_op_desc(p.opcode);
	if (p.opcode == MR_OP_UD_SEND || p.opcode == MR_OP_UD_SEND_IMM ||
	    p.opcode == MR_OP_PROBE || p.opcode == MR_OP_PROBE_REPLY)
		return true;
	live = pair_ref(N.me, N.peer, p.sqpn, p.dqpn, !(d->attrs & MR_OPA_REQ), &ref);
	if (!live)
		return true;
	if (live < 0)
		goto refuse;
	x = (p.opcode == MR_OP_ACK || p.opcode == MR_OP_NACK) ? p.akh.cum_psn : p.psn;
	if (psn_absdiff(x, ref) < GUARD_DIST)
		goto refuse;
	if (p.opcode == MR_OP_NACK && psn_absdiff(p.nkh.nack_psn, ref) < GUARD_DIST)
		goto refuse;
	return true;
refuse:
	guard_refused++;
	if (O.verbose)
		say("guard: refused opcode %#x dqpn %#x sqpn %#x psn %#x (live window %s %#x)",
		    p.opcode, p.dqpn, p.sqpn, p.psn, live < 0 ? "unknown" : "at", ref);
	return false;
}

/* ------------------------------------------------------------------ */
/* Off-path attacker                                                  */

struct tgt {
	uint32_t dqpn, sqpn, ref;
};

/* A live pair of a QP at the peer and one here whose window is known:
 * the peer's QP as a responder (@ack false) or as a requester. */
static bool pick_target(bool ack, struct tgt *t)
{
	struct tgt c[MAX_FLOWS * 2];
	int n = 0;

	for (int i = 0; i < MAX_FLOWS; i++) {
		const struct flow *f = &flows[i];
		uint32_t pq, mq, ref;

		if (!f->used)
			continue;
		if (f->src == N.me && f->dst == N.peer) {
			pq = f->dqpn;
			mq = f->sqpn;
		} else if (f->src == N.peer && f->dst == N.me) {
			pq = f->sqpn;
			mq = f->dqpn;
		} else {
			continue;
		}
		if (pair_ref(N.me, N.peer, mq, pq, ack, &ref) != 1)
			continue;
		c[n++] = (struct tgt){ .dqpn = pq, .sqpn = mq, .ref = ref };
	}
	if (!n) {
		cstat[cur_cls].skipped++;
		return false;
	}
	*t = c[rnd_below((uint32_t)n)];
	return true;
}

/* 2^21..2^22 after (beyond any window) or before (a duplicate) @ref. */
static uint32_t far_psn(uint32_t ref)
{
	uint32_t d = FAR_MIN + rnd_below(FAR_MIN);

	return rnd_below(2) ? mr_psn_add(ref, d) : mr_psn_sub(ref, d);
}

/*
 * Half the time, the clock of the pair's requester instead of a random
 * one (learned from its requests), so that a far-PSN request passes the
 * timestamp window (MR-WIN-6) and reaches the sequence checks it is aimed
 * at (MR-REL-1, MR-REL-10), and a far ACK or NACK passes the echo check
 * (MR-SEC-6) and reaches MR-REL-20. The PSNs stay far from every window
 * (the guard).
 */
static void oc_clock(struct mr_pkt *p, uint32_t dqpn, uint32_t sqpn)
{
	uint32_t ts;

	if (rnd_below(2))
		return;
	if (p->opcode == MR_OP_ACK || p->opcode == MR_OP_NACK) {
		/* An echo of the peer requester's own clock. */
		if (flow_clock(N.peer, N.me, dqpn, sqpn, &ts))
			p->akh.ts_echo = ts;
	} else if (mr_op_desc(p->opcode)->attrs & MR_OPA_REQ) {
		/* A request stamped by this host's requester of the pair. */
		if (flow_clock(N.me, N.peer, sqpn, dqpn, &ts))
			p->ts = ts;
	}
}

/* A QPN pair that is not live at all (random QPNs: re-drawn if live). */
static void rand_pair(uint32_t *dq, uint32_t *sq)
{
	static const uint32_t special[] = { 0, 1, 2, MR_QPN_MASK, 0x100 };
	uint32_t ref;

	for (int i = 0; i < 100; i++) {
		*dq = rnd_below(4) ? rnd32() & MR_QPN_MASK : special[rnd_below(5)];
		*sq = rnd_below(4) ? rnd32() & MR_QPN_MASK : special[rnd_below(5)];
		if (!pair_ref(N.me, N.peer, *sq, *dq, false, &ref))
			return;
	}
}

static void oc_qpn_random(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	struct mr_pkt p;
	uint32_t dq, sq;

	rand_pair(&dq, &sq);
	if (rnd_below(4))
		rand_req(&p, req_ops[rnd_below(8)], dq, sq, rnd32(), pl);
	else
		rand_ack(&p, rnd_below(2), dq, sq, rnd32(), rnd32());
	tx_udp(b, enc(&p, b, sizeof(b)));
}

static void oc_qpn_near(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	bool ack = rnd_below(2);
	struct mr_pkt p;
	uint32_t dq, sq, ref, psn;
	struct tgt t;
	int live;

	if (!pick_target(ack, &t))
		return;
	do {
		dq = (t.dqpn + rnd_below(9) - 4) & MR_QPN_MASK;
		sq = (t.sqpn + rnd_below(5) - 2) & MR_QPN_MASK;
	} while (dq == t.dqpn && sq == t.sqpn);
	live = pair_ref(N.me, N.peer, sq, dq, ack, &ref);
	if (live < 0) {
		cstat[cur_cls].skipped++;
		return;
	}
	psn = live ? far_psn(ref) : rnd32() & MR_PSN_MASK;
	if (!ack)
		rand_req(&p, req_ops[rnd_below(8)], dq, sq, psn, pl);
	else
		rand_ack(&p, rnd_below(2), dq, sq, psn, live ? far_psn(ref) : rnd32());
	oc_clock(&p, dq, sq);
	tx_udp(b, enc(&p, b, sizeof(b)));
}

static unsigned int oc_k;	/* per-class running counter */

static void oc_psn_far(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	struct mr_pkt p;
	struct tgt t;

	if (!pick_target(false, &t))
		return;
	rand_req(&p, req_ops[oc_k++ % 8], t.dqpn, t.sqpn, far_psn(t.ref), pl);
	oc_clock(&p, t.dqpn, t.sqpn);
	tx_udp(b, enc(&p, b, sizeof(b)));
}

static uint32_t spoof_addr(void)
{
	uint32_t a;

	do {
		switch (rnd_below(4)) {
		case 0: a = htonl(0xC0000200u | (3 + rnd_below(250))); break;
		case 1: a = htonl(0xC6336400u | rnd_below(256)); break;
		case 2: a = htonl(0x0A000000u | (rnd32() & 0xffffff)); break;
		default: a = htonl(0xCB007107u); break;
		}
	} while (a == N.me || a == N.peer);
	return a;
}

/* Live PSNs from addresses that are not the QP's peer (MR-SEC-4). */
static void oc_spoof_src(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	bool ack = rnd_below(3) == 0;
	struct rawopt ro = { 0 };
	struct mr_pkt p;
	struct tgt t;

	if (!pick_target(ack, &t))
		return;
	if (!ack)
		rand_req(&p, req_ops[rnd_below(8)], t.dqpn, t.sqpn,
			 mr_psn_add(t.ref, 1 + rnd_below(64)), pl);
	else
		rand_ack(&p, rnd_below(2), t.dqpn, t.sqpn, mr_psn_add(t.ref, 1), t.ref);
	ro.src = spoof_addr();
	tx_raw(b, enc(&p, b, sizeof(b)), &ro);
}

static bool offpath_base(struct mbase *m)
{
	struct tgt rq, ak;
	bool have_rq = pick_target(false, &rq), have_ak = pick_target(true, &ak);

	if (!have_rq && !have_ak)
		return false;
	if (!have_rq)
		rq = (struct tgt){ .dqpn = ak.dqpn, .sqpn = ak.sqpn, .ref = rnd32() };
	if (!have_ak)
		ak = (struct tgt){ .dqpn = rq.dqpn, .sqpn = rq.sqpn, .ref = rnd32() };
	memset(m, 0, sizeof(*m));
	m->rq_dqpn = rq.dqpn;
	m->rq_sqpn = rq.sqpn;
	m->rq_psn = far_psn(rq.ref);
	m->ak_dqpn = ak.dqpn;
	m->ak_sqpn = ak.sqpn;
	m->ak_psn = far_psn(ak.ref);
	return true;
}

static void oc_malformed(void)
{
	uint8_t b[4096];
	const char *name;
	struct mbase m;
	bool valid;

	if (!offpath_base(&m))
		return;
	tx_udp(b, malform(oc_k++, &m, b, sizeof(b), &name, &valid));
}

/* A far-window packet of the peer's live pairs, valid (for truncation,
 * fragments, length games). */
static uint32_t far_valid(uint8_t *b, uint32_t cap)
{
	uint8_t pl[2 * PMTU];
	bool ack = rnd_below(3) == 0;
	struct mr_pkt p;
	struct tgt t;

	if (!pick_target(ack, &t))
		return 0;
	if (!ack)
		rand_req(&p, req_ops[rnd_below(8)], t.dqpn, t.sqpn, far_psn(t.ref), pl);
	else
		rand_ack(&p, rnd_below(2), t.dqpn, t.sqpn, far_psn(t.ref), far_psn(t.ref));
	oc_clock(&p, t.dqpn, t.sqpn);
	return enc(&p, b, cap);
}

static void oc_truncated(void)
{
	uint8_t b[4096];
	uint32_t n = far_valid(b, sizeof(b));

	if (!n)
		return;
	/* Every length from 0 up, in turn. */
	tx_udp(b, oc_k++ % n);
}

static void oc_length(void)
{
	uint8_t b[4096], pl[2 * PMTU], tail[64];
	struct rawopt ro = { 0 };
	struct mr_pkt p;
	struct tgt t;
	uint32_t n;

	switch (oc_k++ % 6) {
	case 0:	/* UDP length beyond the datagram: the UDP stack drops it */
		if (!(n = far_valid(b, sizeof(b))))
			return;
		ro.ulen_adj = 1 + (int)rnd_below(64);
		tx_raw(b, n, &ro);
		break;
	case 1:	/* bytes after the UDP length (MR-ENC-8: not part of it) */
		if (!(n = far_valid(b, sizeof(b))))
			return;
		rnd_fill(tail, sizeof(tail));
		ro.tail = tail;
		ro.tail_len = 1 + rnd_below(sizeof(tail));
		tx_raw(b, n, &ro);
		break;
	case 2:	/* UDP length cutting into the packet */
		if (!(n = far_valid(b, sizeof(b))))
			return;
		ro.ulen_adj = -(int)(1 + rnd_below(n));
		tx_raw(b, n, &ro);
		break;
	case 3:	/* a wrong non-zero UDP checksum (MR-ENC-3) */
		if (!(n = far_valid(b, sizeof(b))))
			return;
		ro.ucsum = htons((uint16_t)(1 + rnd_below(0xfffe)));
		tx_raw(b, n, &ro);
		break;
	case 4:	/* payload beyond the PMTU (MR-MAL-4) */
		if (!pick_target(false, &t))
			return;
		rand_req(&p, MR_OP_WRITE, t.dqpn, t.sqpn, far_psn(t.ref), pl);
		p.dxh.offset = 0;
		p.dxh.msg_len = 4 * PMTU;
		p.payload_len = PMTU + 1 + rnd_below(PMTU - 1);
		p.payload = pl;
		rnd_fill(pl, p.payload_len);
		p.flags = req_flags(MR_OP_WRITE, 0, 0, p.payload_len, p.dxh.msg_len);
		tx_udp(b, enc(&p, b, sizeof(b)));
		break;
	default: /* payload longer than msg_len */
		if (!pick_target(false, &t))
			return;
		rand_req(&p, MR_OP_SEND, t.dqpn, t.sqpn, far_psn(t.ref), pl);
		p.dxh.offset = 0;
		p.dxh.msg_len = 100;
		p.payload_len = 100;
		p.payload = pl;
		p.flags = req_flags(MR_OP_SEND, 0, 0, 100, 100);
		n = enc(&p, b, sizeof(b)) - MR_ICRC_LEN;
		rnd_fill(b + n, 100);
		n += 100;
		mr_icrc_put(b, n);
		tx_udp(b, n + MR_ICRC_LEN);
		break;
	}
}

/* Live PSNs, every field plausible, the ICRC wrong (MR-ICRC-4). */
static void oc_bad_icrc(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	bool ack = rnd_below(3) == 0;
	struct mr_pkt p;
	struct tgt t;
	uint32_t n, bit;

	if (!pick_target(ack, &t))
		return;
	if (!ack)
		rand_req(&p, req_ops[rnd_below(8)], t.dqpn, t.sqpn,
			 mr_psn_add(t.ref, 1 + rnd_below(64)), pl);
	else
		rand_ack(&p, rnd_below(2), t.dqpn, t.sqpn, mr_psn_add(t.ref, 1), t.ref);
	n = enc(&p, b, sizeof(b));
	/* One flipped bit anywhere but the TRIM flag (which skips the ICRC). */
	do {
		bit = rnd_below(n * 8);
	} while (bit / 8 == 3 && (1u << (bit % 8)) == MR_F_TRIM);
	b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	icrc_break(b, n);
	tx_udp(b, n);
}

/* TRIM: headers, garbage, no valid ICRC (MR-ICRC-5, MR-REL-16). */
static void oc_trim(void)
{
	static const uint8_t ops[] = { MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_WRITE,
				       MR_OP_WRITE_IMM, MR_OP_READ_RESP,
				       MR_OP_SEND_INV };
	uint8_t b[4096], pl[2 * PMTU];
	uint8_t op = ops[oc_k++ % 6];
	bool ack = op == MR_OP_READ_RESP;
	struct mr_pkt p;
	struct tgt t;
	uint32_t n;

	if (!pick_target(ack, &t))
		return;
	if (!ack) {
		rand_req(&p, op, t.dqpn, t.sqpn, far_psn(t.ref), pl);
	} else {
		memset(&p, 0, sizeof(p));
		p.opcode = op;
		p.dqpn = t.dqpn;
		p.sqpn = t.sqpn;
		p.psn = far_psn(t.ref);
		p.dxh.msn = rnd32();
		p.dxh.msg_len = 64 * PMTU;
		p.dxh.offset = rnd_below(64) * PMTU;
	}
	p.payload_len = p.dxh.msg_len - p.dxh.offset;
	if (p.payload_len > 2 * PMTU)
		p.payload_len = 2 * PMTU;
	p.payload_len = rnd_below(p.payload_len + 1);
	p.payload = pl;
	rnd_fill(pl, p.payload_len);
	p.flags = (uint16_t)((p.dxh.offset ? 0 : MR_F_FIRST) | MR_F_TRIM);
	oc_clock(&p, t.dqpn, t.sqpn);
	n = enc(&p, b, sizeof(b));
	rnd_fill(b + n - MR_ICRC_LEN, MR_ICRC_LEN);
	tx_udp(b, n);
}

/* Forged acknowledgement information, far from the live PSNs. */
static void oc_ack_forge(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	struct mr_pkt p;
	struct tgt t;

	if (!pick_target(true, &t))
		return;
	switch (oc_k++ % 5) {
	case 0:
	case 1:
		rand_ack(&p, oc_k % 2, t.dqpn, t.sqpn, far_psn(t.ref), far_psn(t.ref));
		oc_clock(&p, t.dqpn, t.sqpn);
		break;
	case 2:	/* a READ_RESP for a READ that is not there */
		memset(&p, 0, sizeof(p));
		p.opcode = MR_OP_READ_RESP;
		p.dqpn = t.dqpn;
		p.sqpn = t.sqpn;
		p.psn = far_psn(t.ref);
		p.ts = rnd32();
		p.dxh.msn = rnd_below(2) ? rnd_below(16) : rnd32();
		p.dxh.msg_len = (1 + rnd_below(64)) * PMTU;
		p.dxh.offset = rnd_below(p.dxh.msg_len / PMTU) * PMTU;
		p.payload_len = PMTU;
		rnd_fill(pl, PMTU);
		p.payload = pl;
		p.flags = req_flags(MR_OP_READ_RESP, rnd32() & MR_F_RETX,
				    p.dxh.offset, PMTU, p.dxh.msg_len);
		break;
	case 3:
		memset(&p, 0, sizeof(p));
		p.opcode = MR_OP_ATOMIC_RESP;
		p.dqpn = t.dqpn;
		p.sqpn = t.sqpn;
		p.psn = far_psn(t.ref);
		p.dxh.msn = rnd32();
		p.dxh.msg_len = MR_ATOMIC_LEN;
		p.atomic_orig = rnd64();
		p.flags = MR_F_FIRST | MR_F_LAST;
		break;
	default:
		memset(&p, 0, sizeof(p));
		p.opcode = MR_OP_PROBE_REPLY;
		p.dqpn = t.dqpn;
		p.sqpn = t.sqpn;
		p.psn = rnd32() & MR_PSN_MASK;
		p.ts = rnd32();
		p.path = (uint8_t)rnd_below(MR_MAX_PATHS);
		break;
	}
	tx_udp(b, enc(&p, b, sizeof(b)));
}

/* PROBEs at the live pairs: the replies must be rate-limited (MR-SEC-8). */
static void oc_probe(void)
{
	uint8_t b[64];
	struct mr_pkt p;
	struct tgt t;

	if (!pick_target(rnd_below(2), &t))
		return;
	memset(&p, 0, sizeof(p));
	p.opcode = MR_OP_PROBE;
	p.dqpn = t.dqpn;
	p.sqpn = t.sqpn;
	p.psn = rnd32() & MR_PSN_MASK;
	p.ts = rnd32();
	p.path = (uint8_t)rnd_below(MR_MAX_PATHS);
	tx_udp(b, enc(&p, b, sizeof(b)));
}

static struct cap_pkt *ring_pick(void)
{
	unsigned int n = ring_n < RING_LEN ? ring_n : RING_LEN;
	double t = now_s();

	if (!n) {
		cstat[cur_cls].skipped++;
		return NULL;
	}
	if (rnd_below(2)) {
		/* An old one, captured at least a second ago, if any. */
		for (int i = 0; i < 8; i++) {
			struct cap_pkt *c = &ring[rnd_below(n)];

			if (t - c->t >= 1.0)
				return c;
		}
	}
	return &ring[(ring_n - 1 - rnd_below(n < 16 ? n : 16)) % RING_LEN];
}

/* Byte-exact copies of the module's own packets: duplicates. */
static void oc_replay(void)
{
	struct rawopt ro = { .replay = true };
	struct cap_pkt *c = ring_pick();

	if (c)
		tx_raw(c->b, c->len, &ro);
}

/* Mutations of captured packets: the ICRC broken, or only the fields a
 * retransmission may change (MR-REL-4) with the ICRC recomputed. */
static void oc_mutate(void)
{
	struct cap_pkt *c = ring_pick();
	struct rawopt ro = { 0 };
	uint8_t b[CAP_MAX + 64];
	struct mr_pkt p;
	uint32_t n;

	if (!c)
		return;
	n = c->len;
	memcpy(b, c->b, n);
	if (rnd_below(3)) {
		unsigned int k = 1 + rnd_below(8);

		while (k--)
			b[rnd_below(n)] = rnd_below(2) ? (uint8_t)rnd32() :
				(uint8_t)(b[rnd_below(n)] ^ (1u << rnd_below(8)));
		if (!mr_pkt_decode(b, n, &p) && (p.flags & MR_F_TRIM))
			b[3] &= (uint8_t)~MR_F_TRIM;
		icrc_break(b, n);
	} else {
		const struct mr_op_desc *d;

		if (mr_pkt_decode(b, n, &p) || p.opcode == MR_OP_PROBE ||
		    p.opcode == MR_OP_PROBE_REPLY) {
			cstat[cur_cls].skipped++;
			return;
		}
		d = mr_op_desc(p.opcode);
		p.path = (uint8_t)rnd_below(MR_MAX_PATHS);
		p.flags = (uint16_t)((p.flags & ~(MR_F_ACKREQ | MR_F_RETX)) |
				     (rnd32() & (MR_F_ACKREQ | MR_F_RETX) & d->flags_ok));
		n = enc(&p, b, sizeof(b));
		ro.replay = true;
	}
	tx_raw(b, n, &ro);
}

static void oc_frag(void)
{
	uint8_t b[4096];
	struct rawopt ro = { .frag = 1 + (int)rnd_below(2) };
	uint32_t n = far_valid(b, sizeof(b));

	if (n)
		tx_raw(b, n, &ro);
}

/* The GSI QP and QP types: UD datagrams to QP 1 (right and wrong Q_Key
 * and size), RC opcodes to QP 1, UD opcodes to RC QPs (MR-MAL-2 step 10). */
static void oc_gsi(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	struct mr_pkt p;
	struct tgt t;
	unsigned int v = oc_k++ % 5;

	memset(&p, 0, sizeof(p));
	if (v == 3) {
		rand_req(&p, req_ops[rnd_below(8)], 1, rnd32(), rnd32(), pl);
		tx_udp(b, enc(&p, b, sizeof(b)));
		return;
	}
	p.opcode = rnd_below(2) ? MR_OP_UD_SEND : MR_OP_UD_SEND_IMM;
	p.flags = MR_F_FIRST | MR_F_LAST;
	p.dqpn = 1;
	p.sqpn = rnd32() & MR_QPN_MASK;
	p.deth.src_qpn = p.sqpn;
	p.deth.qkey = v == 1 ? rnd32() : GSI_QKEY;
	p.payload_len = v == 2 ? rnd_below(PMTU + 1) : 256;
	p.imm = rnd32();
	rnd_fill(pl, p.payload_len);
	p.payload = pl;
	if (v == 4) {
		if (!pick_target(false, &t))
			return;
		p.dqpn = t.dqpn;
		p.deth.qkey = rnd32();
	}
	tx_udp(b, enc(&p, b, sizeof(b)));
}

struct oclass {
	const char *name;
	void (*fn)(void);
	const char *what;
};

static const struct oclass oclasses[] = {
	{ "qpn_random", oc_qpn_random, "random QPN pairs (0, 1, 2^24-1 among them), every opcode" },
	{ "qpn_near", oc_qpn_near, "QPNs next to the live ones; PSNs far if the pair is live" },
	{ "psn_far", oc_psn_far, "live pairs, every request opcode, PSN 2^21..2^22 away, random R_Keys, random or the requester's clock" },
	{ "spoof_src", oc_spoof_src, "live pairs and live PSNs from other source addresses (MR-SEC-4)" },
	{ "malformed", oc_malformed, "every reserved field, version, unknown opcode, flag and DXH rule" },
	{ "truncated", oc_truncated, "far-PSN packets cut at every length from 0" },
	{ "length", oc_length, "UDP length lies, bad UDP checksum, payload > PMTU or > msg_len" },
	{ "bad_icrc", oc_bad_icrc, "live PSNs, one bit flipped, the ICRC wrong" },
	{ "trim", oc_trim, "TRIM with garbage payload and ICRC, far PSNs" },
	{ "ack_forge", oc_ack_forge, "ACK/NACK/SACK/READ_RESP/ATOMIC_RESP/PROBE_REPLY, random fields, far PSNs, random or true echoes" },
	{ "probe", oc_probe, "PROBE floods at live pairs" },
	{ "replay", oc_replay, "byte-exact replays of the module's packets, fresh and >= 1 s old" },
	{ "mutate", oc_mutate, "captured packets mutated (ICRC broken) or retransmission look-alikes" },
	{ "frag", oc_frag, "far-PSN packets as two IP fragments, in and out of order" },
	{ "gsi", oc_gsi, "UD to the GSI QP (Q_Key right/wrong, odd sizes), RC to QP 1, UD to RC QPs" },
};
#define N_OCLASSES ((int)MR_ARRAY_SIZE(oclasses))

void list_offpath(void)
{
	printf("off-path classes (--offpath; --classes NAME,...):\n");
	for (int i = 0; i < N_OCLASSES; i++)
		printf("  %-16s %s\n", oclasses[i].name, oclasses[i].what);
	printf("malformations (class malformed, both models):\n ");
	for (int i = 0; i < MF_NUM; i++)
		printf(" %s", mf_name[i]);
	printf("\n");
}

void run_offpath(void)
{
	int sel[N_OCLASSES], ns = 0;
	double end, slice;

	role = "offpath";
	for (int i = 0; i < N_OCLASSES; i++) {
		cstat[i].name = oclasses[i].name;
		if (class_selected(oclasses[i].name))
			sel[ns++] = i;
	}
	if (!ns)
		die("--classes selects no off-path class (--list)");
	net_open(O.peer, SP_OFFPATH, SP_OFFPATH_END, false);
	tx_guard = offpath_guard;
	say("target %s from %s, capture on %s, %u packets/s for %us, seed %" PRIu64
	    ", %d classes", ip_str(N.peer), ip_str(N.me), O.ifname, O.rate,
	    O.time_s, O.seed, ns);
	/* Learn the live pairs first (up to 3 s, not part of --time). */
	end = now_s() + 3;
	while (now_s() < end && !flows[0].used)
		service(0.05);
	t_start = now_s();
	slice = O.slice_ms ? O.slice_ms / 1000.0 : (double)O.time_s / ns;
	if (slice < 0.5)
		slice = 0.5;
	end = t_start + O.time_s;
	for (int k = 0; now_s() < end; k++) {
		int i = sel[k % ns];
		double se = now_s() + slice;

		cur_cls = i;
		oc_k = 0;
		class_start("offpath", oclasses[i].name, NULL);
		while (now_s() < se && now_s() < end) {
			uint64_t before = cstat[i].pkts;

			oclasses[i].fn();
			/* Nothing to aim at (yet): wait for traffic. */
			if (cstat[i].pkts == before)
				service(0.01);
		}
	}
	print_summary("offpath", N_OCLASSES);
	if (guard_refused)
		say("note: the guard refused %" PRIu64 " packets (a generator aimed near a live window)",
		    guard_refused);
}

/*
 * Host-side proof of the generators: every malformation decodes to the
 * error it names (checked inside malform()), and no off-path class emits a
 * packet the guard would refuse, against made-up live pairs.
 */
void selftest(void)
{
	struct mbase m = { .rq_dqpn = 0x12, .rq_sqpn = 0x34, .rq_psn = 0x100,
			   .ak_dqpn = 0x12, .ak_sqpn = 0x34, .ak_psn = 0x200 };
	struct mr_pkt p = { .opcode = MR_OP_SEND, .flags = MR_F_FIRST | MR_F_LAST };
	uint8_t b[4096];
	const char *name;
	bool valid;
	uint64_t total = 0;

	role = "selftest";
	N.dry = true;
	net_open("127.0.0.2", SP_OFFPATH, SP_OFFPATH_END, false);
	for (unsigned int k = 0; k < MF_NUM * 300; k++) {
		m.insider = k % 2;
		m.va = 0x10000 + 8 * rnd_below(1000);
		m.rkey = rnd32();
		m.mr_base = 0x10000;
		malform(k, &m, b, sizeof(b), &name, &valid);
	}
	/* Live pairs: responder 0x12 at the peer for requests from 0x34 here
	 * around PSN 0x500000; requester 0x56 at the peer around 0xfffff0. */
	p.dqpn = 0x12;
	p.sqpn = 0x34;
	p.psn = 0x500000;
	flow_learn(N.me, N.peer, &p);
	p.dqpn = 0x34;
	p.sqpn = 0x56;
	p.psn = 0xfffff0;
	flow_learn(N.peer, N.me, &p);
	memset(&p, 0, sizeof(p));
	p.opcode = MR_OP_ACK;
	p.dqpn = 0x12;
	p.sqpn = 0x34;
	p.akh.cum_psn = 0x4ffff0;
	flow_learn(N.peer, N.me, &p);
	/* The guard itself: an in-window forgery from the peer's address is
	 * refused, the same from another address or as a replay is not. */
	{
		struct mr_pkt q;
		uint8_t pl[2 * PMTU];
		uint32_t n;

		rand_req(&q, MR_OP_WRITE, 0x12, 0x34, 0x500010, pl);
		n = enc(&q, b, sizeof(b));
		if (offpath_guard(b, n, N.me, false) || !offpath_guard(b, n, N.me + 1, false) ||
		    !offpath_guard(b, n, N.me, true))
			die("selftest: the guard let an in-window WRITE through");
		rand_ack(&q, true, 0x56, 0x34, 0xfffff0, 0x10);
		n = enc(&q, b, sizeof(b));
		if (offpath_guard(b, n, N.me, false))
			die("selftest: the guard let an ACK near a live requester through");
		rand_req(&q, MR_OP_SEND, 0x12, 0x77, 0x500010, pl);
		n = enc(&q, b, sizeof(b));
		if (!offpath_guard(b, n, N.me, false))
			die("selftest: the guard refused a pair that is not live");
		guard_refused = 0;
	}
	/* A fake capture ring for the replay classes. */
	for (int i = 0; i < 32; i++) {
		struct mr_pkt q;
		uint8_t pl[2 * PMTU];

		rand_req(&q, req_ops[i % 8], 0x12, 0x34, 0x500000 - i, pl);
		ring[i].len = enc(&q, ring[i].b, CAP_MAX);
		ring[i].t = now_s() - (i % 2) * 5;
	}
	ring_n = 32;
	tx_guard = offpath_guard;
	for (int i = 0; i < N_OCLASSES; i++) {
		cstat[i].name = oclasses[i].name;
		cur_cls = i;
		oc_k = 0;
		for (int j = 0; j < 3000; j++)
			oclasses[i].fn();
		total += cstat[i].pkts;
		if (!cstat[i].pkts)
			die("selftest: class %s sent nothing", oclasses[i].name);
	}
	print_summary("selftest", N_OCLASSES);
	if (guard_refused)
		die("selftest: the guard refused %" PRIu64 " packets", guard_refused);
	capture_selftest();
	say("PASS: %u malformations decode to their error, %" PRIu64
	    " off-path packets of %d classes pass the guard, captures filter from the start",
	    MF_NUM * 300, total, N_OCLASSES);
}

