// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: the responder engine (receiver.h, the code kernel/resp.c
 * runs) driven by a sequence of packets taken from the input (MR-REL-1,
 * MR-PLACE-2, MR-VERBS-24).
 *
 * Input: 3 bytes initial PSN (big-endian, 24 bit), 4 bytes initial msn
 * (the engine starts as if that many messages, and as many receive WQEs,
 * had completed: so wraps are reached), then records [u16 big-endian length][packet bytes MBH..ICRC]. Each record is
 * decoded (the ICRC is not checked so the fuzzer can reach deep states)
 * and, if it is a request, handed to mr_receiver_on_pkt() - or, once the
 * engine put the QP in error, to mr_receiver_on_pkt_in_error(), as the
 * kernel does. The local checks answer from the packet (some PSNs are
 * RNR, a remote access error or inconsistent; some messages fail at
 * delivery), so the error point and RNR paths are reached too.
 *
 * An odd initial PSN holds the ACKs to the end of each receive batch
 * (ack_batch), which ends after a packet whose MBH.ts has bit 1 set.
 *
 * Invariants, enforced with abort():
 *  - cum_psn only moves forward, by at most 256 per packet, and agrees
 *    with the message tracker's; SACK bit 0 is always clear, in the
 *    window and in every ACK or NACK emitted;
 *  - a PSN once received stays received;
 *  - completions come out in msn order, each msn exactly once, a data
 *    message only with all of its bytes, and only once cum_psn passed it;
 *  - nothing is placed or delivered at or past the error point;
 *  - a packet dropped as malformed changes neither window nor tracker.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "receiver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct rx_state {
	struct mr_receiver r;
	struct mr_rxmsg snap_m;
	u64 snap_map[MR_SACK_WORDS];
	u32 next_msn;
	u64 now;
	bool malformed;		/* the current packet was dropped as such */
	bool in_error;
};

static void check_win(const struct mr_rxwin *w, u32 old_cum)
{
	s32 adv = mr_psn_diff(w->cum_psn, old_cum);

	if (adv < 0 || adv > MR_WINDOW || !mr_psn_valid(w->cum_psn))
		abort();
	if (w->map[0] & 1)
		abort();
}

/* Nothing at or past the error point is acted on (MR-VERBS-24). */
static void check_err_point(const struct mr_receiver *r, u32 psn)
{
	if (r->err_valid && !mr_psn_before(psn, r->err_psn))
		abort();
}

static u8 fz_check(void *ctx, const struct mr_pkt *p)
{
	(void)ctx;
	switch (p->psn % 61) {
	case 7:
		return MR_NACK_RNR;
	case 13:
		return MR_NACK_REMOTE_ACCESS;
	case 29:
		return MR_RCV_DROP;
	default:
		return 0;
	}
}

static u8 fz_place(void *ctx, const struct mr_pkt *p)
{
	struct rx_state *s = ctx;

	check_err_point(&s->r, p->psn);
	if (!p->payload_len || !mr_op_has(p->opcode, MR_OPA_PAYLOAD))
		abort();
	return p->psn % 53 == 11 ? MR_NACK_REMOTE_OP : 0;
}

static u8 fz_deliver(void *ctx, const struct mr_rxmsg_info *c)
{
	struct rx_state *s = ctx;

	/* Only due once cum_psn has passed it (MR-PLACE-16). */
	if (!mr_psn_before(c->last_psn, s->r.w.cum_psn))
		abort();
	check_err_point(&s->r, c->last_psn);
	if (c->extra) {
		/* Extra READ range: never of a future message. */
		if (c->opcode != MR_OP_READ_REQ ||
		    mr_seq32_diff(c->msn, s->next_msn) >= MR_RXMSG_RING)
			abort();
		return 0;
	}
	if (c->msn != s->next_msn)
		abort();
	if (!mr_op_has(c->opcode, MR_OPA_ANSWERED) && c->bytes != c->msg_len)
		abort();
	s->next_msn++;
	if (mr_rxmsg_completed_msn(&s->r.m) != s->next_msn)
		abort();
	return c->msn % 97 == 5 ? MR_NACK_REMOTE_OP : 0;
}

static bool fz_replay(void *ctx, const struct mr_pkt *p)
{
	(void)ctx;
	if (!mr_op_has(p->opcode, MR_OPA_ANSWERED))
		abort();
	/* every second one as if no record covered it: no response */
	return p->psn & 1;
}

static void fz_emit(void *ctx, struct mr_pkt *a)
{
	struct rx_state *s = ctx;

	if (a->akh.cum_psn != s->r.w.cum_psn && a->opcode == MR_OP_ACK)
		abort();
	if (a->akh.sack[0] & 1)
		abort();
}

static void fz_count(void *ctx, enum mr_rcv_event ev, const struct mr_pkt *p)
{
	struct rx_state *s = ctx;

	(void)p;
	if (ev == MR_RCV_EV_MALFORMED || ev == MR_RCV_EV_PAYLOAD ||
	    ev == MR_RCV_EV_MSG_MISMATCH)
		s->malformed = true;
}

static const struct mr_receiver_ops fz_ops = {
	.check = fz_check,
	.place = fz_place,
	.deliver = fz_deliver,
	.replay = fz_replay,
	.emit = fz_emit,
	.count = fz_count,
};

static void handle(struct rx_state *s, const struct mr_pkt *p)
{
	const struct mr_op_desc *d = mr_op_desc(p->opcode);
	u32 old_cum = s->r.w.cum_psn;
	bool was_received;

	if (!(d->attrs & MR_OPA_REQ))
		return;
	s->now += 1000;
	/* Held ACKs: packets up to 1 ms apart reach ack_delay's bound. */
	if (s->r.ack_batch)
		s->now += (u64)(p->ts >> 2 & 0x3ff) * 1000;
	if (s->in_error) {
		mr_receiver_on_pkt_in_error(&s->r, p, s->now, s);
		if (s->r.w.cum_psn != old_cum)
			abort();
		return;
	}
	was_received = mr_rxwin_classify(&s->r.w, p->psn) == MR_RX_DUP;
	memcpy(&s->snap_m, &s->r.m, sizeof(s->r.m));
	memcpy(s->snap_map, s->r.w.map, sizeof(s->snap_map));
	s->malformed = false;

	s->in_error = mr_receiver_on_pkt(&s->r, p, p->ts & 1, s->now, s);

	check_win(&s->r.w, old_cum);
	if (s->malformed &&
	    (memcmp(&s->snap_m, &s->r.m, sizeof(s->r.m)) ||
	     memcmp(s->snap_map, s->r.w.map, sizeof(s->snap_map)) ||
	     s->r.w.cum_psn != old_cum))
		abort();
	if (was_received && mr_rxwin_classify(&s->r.w, p->psn) != MR_RX_DUP)
		abort();
	/* Every PSN the window marked was counted by rxmsg first. */
	if (mr_rxmsg_cum_psn(&s->r.m) != s->r.w.cum_psn)
		abort();
	/* A held ACK is due at once, for the end of the batch (MR-REL-3). */
	if (s->r.ack_held && mr_receiver_ack_deadline(&s->r) > s->now)
		abort();
	/* The batch ends (the timer's run) after a packet with MBH.ts bit 1. */
	if (!s->r.ack_batch || (p->ts & 2))
		mr_receiver_on_timer(&s->r, s->now, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rx_state *s;
	size_t off = 7;
	u32 psn;

	if (size < 7)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return 0;
	psn = (u32)data[0] << 16 | (u32)data[1] << 8 | data[2];
	s->next_msn = (u32)data[3] << 24 | (u32)data[4] << 16 |
		      (u32)data[5] << 8 | data[6];
	mr_receiver_init(&s->r, psn, 0);
	mr_rxmsg_init(&s->r.m, s->next_msn, psn);
	s->r.ssn_base = s->next_msn;
	s->r.ops = &fz_ops;
	s->r.seq_err_interval_ns = 100000;
	s->r.max_dest_rd_atomic = 16;
	/* Any PMTU, so that every size of payload gets past MR-PLACE-9. */
	s->r.pmtu = 256U << (data[6] % 5);
	/* ACKs held to the end of each receive batch (MR-REL-3), or not. */
	s->r.ack_batch = data[2] & 1;

	while (off + 2 <= size) {
		size_t len = (size_t)data[off] << 8 | data[off + 1];
		struct mr_pkt p;
		u8 *pkt;

		off += 2;
		if (len > size - off)
			len = size - off;
		/* Exact-size copy: ASan sees any read past the packet. */
		pkt = malloc(len ? len : 1);
		if (!pkt)
			break;
		memcpy(pkt, data + off, len);
		off += len;
		if (!mr_pkt_decode(pkt, (u32)len, &p))
			handle(s, &p);
		free(pkt);
	}
	free(s);
	return 0;
}
