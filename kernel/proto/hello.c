// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE connection setup: the HELLO exchange of one RC QP (hello.h,
 * MR-VER-9..MR-VER-16).
 */
#include "hello.h"

void mr_hello_default_params(struct mr_hello_params *p)
{
	p->enabled = true;
	p->caps = MR_CAP_IMPL;
	p->max_read_range = MR_HELLO_READ_RANGE_MIN;
	p->interval_ns = MR_HELLO_INTERVAL_NS;
	p->interval_max_ns = MR_HELLO_INTERVAL_MAX_NS;
	p->tries = MR_HELLO_TRIES;
	p->reply_gap_ns = MR_HELLO_REPLY_GAP_NS;
}

void mr_hello_init(struct mr_hello *h, const struct mr_hello_params *p)
{
	memset(h, 0, sizeof(*h));
	h->p = *p;
	/* Every revision 1.1 sender is at least Core (MR-VER-11). */
	h->p.caps |= MR_CAP_CORE;
	if (h->p.max_read_range < MR_HELLO_READ_RANGE_MIN)
		h->p.max_read_range = MR_HELLO_READ_RANGE_MIN;
	if (!h->p.tries)
		h->p.tries = 1;
	h->state = p->enabled ? MR_HELLO_WAIT : MR_HELLO_OFF;
	h->next_ns = MR_TIME_NEVER;
}

void mr_hello_on_rts(struct mr_hello *h, u64 now)
{
	/* Already settled at RTR: the peer repeats until it has ours. */
	if (h->state != MR_HELLO_WAIT || h->sending)
		return;
	h->sending = true;
	h->next_ns = now;
}

u64 mr_hello_deadline(const struct mr_hello *h)
{
	if (h->state != MR_HELLO_WAIT || !h->sending)
		return MR_TIME_NEVER;
	return h->next_ns;
}

enum mr_hello_tx mr_hello_on_timer(struct mr_hello *h, u64 now)
{
	u64 gap;

	if (h->state != MR_HELLO_WAIT || !h->sending || now < h->next_ns)
		return MR_HELLO_TX_NONE;
	if (h->sent >= h->p.tries) {
		/* MR-VER-14: a 1.0 peer; the base set for the QP's life. */
		h->state = MR_HELLO_OLD_PEER;
		h->next_ns = MR_TIME_NEVER;
		return MR_HELLO_TX_GAVE_UP;
	}
	gap = h->p.interval_ns;
	/* Doubling, capped: the shift stays below 64 for any tries. */
	if (h->sent < 32)
		gap <<= h->sent;
	if (h->sent >= 32 || gap > h->p.interval_max_ns || !gap)
		gap = h->p.interval_max_ns;
	h->sent++;
	h->next_ns = now + gap;
	return MR_HELLO_TX_SEND;
}

static bool mr_hello_same(const struct mr_hello *h, const struct mr_hlh *l)
{
	return l->rev_minor == h->peer_minor && l->caps == h->peer_caps &&
	       l->max_read_range == h->peer_read_range;
}

enum mr_hello_rx mr_hello_on_rx(struct mr_hello *h, const struct mr_pkt *p,
				u64 now, bool *reply, bool *limited)
{
	const struct mr_hlh *l = &p->hlh;
	enum mr_hello_rx res;

	*reply = false;
	*limited = false;
	switch (h->state) {
	case MR_HELLO_OFF:
		/* A 1.0 node: an unassigned opcode (MR-VER-4). */
		return MR_HELLO_RX_IGNORED;
	case MR_HELLO_SETTLED:
		/* MR-VER-13: the common set never changes once settled. */
		if (!mr_hello_same(h, l))
			return MR_HELLO_RX_CONFLICT;
		res = MR_HELLO_RX_REPEAT;
		break;
	case MR_HELLO_OLD_PEER:
		/* Too late to use; answered so that the peer settles. */
		res = MR_HELLO_RX_LATE;
		break;
	default:
		h->peer_minor = l->rev_minor;
		h->peer_caps = l->caps;
		h->peer_read_range = l->max_read_range;
		h->common = h->p.caps & l->caps;
		h->state = MR_HELLO_SETTLED;
		h->next_ns = MR_TIME_NEVER;
		res = MR_HELLO_RX_SETTLED;
		break;
	}
	h->seen = true;
	if (l->hflags & MR_HLF_SEEN) {
		h->peer_has_ours = true;
		return res;
	}
	/* MR-VER-12: one answer per HELLO without SEEN, rate-limited. */
	if (now >= h->reply_next) {
		h->reply_next = now + h->p.reply_gap_ns;
		*reply = true;
	} else {
		*limited = true;
	}
	return res;
}

void mr_hello_fill(const struct mr_hello *h, struct mr_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->opcode = MR_OP_HELLO;
	p->hlh.rev_major = MR_VERSION;
	p->hlh.rev_minor = MR_REV_MINOR;
	/* SEEN once any valid HELLO of the peer came (settled or late). */
	if (h->seen)
		p->hlh.hflags = MR_HLF_SEEN;
	p->hlh.caps = h->p.caps;
	p->hlh.max_read_range = h->p.max_read_range;
}

u32 mr_hello_read_range(const struct mr_hello *h, u32 own)
{
	u32 peer = h->state == MR_HELLO_SETTLED ? h->peer_read_range :
						   MR_HELLO_READ_RANGE_MIN;

	return MR_MIN(own, peer);
}

const char *mr_hello_state_name(u8 state)
{
	switch (state) {
	case MR_HELLO_OFF:
		return "off";
	case MR_HELLO_WAIT:
		return "wait";
	case MR_HELLO_SETTLED:
		return "settled";
	case MR_HELLO_OLD_PEER:
		return "old_peer";
	default:
		return "?";
	}
}
