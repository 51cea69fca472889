// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: a responder receive path (rxwin + rxmsg) driven by a
 * sequence of packets taken from the input (MR-REL-1, MR-PLACE-2).
 *
 * Input: 3 bytes initial PSN (big-endian, 24 bit), 4 bytes initial msn,
 * then records [u16 big-endian length][packet bytes MBH..ICRC]. Each
 * record is decoded (the ICRC is not checked so the fuzzer can reach
 * deep states) and, if it is a request, handled the way the kernel glue
 * does: classify; new -> rxmsg_add -> mark; pop completions.
 *
 * Invariants, enforced with abort():
 *  - cum_psn only moves forward, by at most 256 per packet, and only on
 *    a packet that was accepted; SACK bit 0 is always clear;
 *  - a PSN classified duplicate stays duplicate; a new one becomes
 *    received once accepted;
 *  - completions come out in msn order, each msn exactly once, and a
 *    data message only with all of its bytes;
 *  - refused packets change neither rxwin nor rxmsg.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "rxwin.h"
#include "rxmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct rx_state {
	struct mr_rxwin w;
	struct mr_rxmsg m;
	struct mr_rxmsg snap_m;
	struct mr_rxwin snap_w;
	u32 next_msn;
	u64 now;
};

static void check_win(const struct mr_rxwin *w, u32 old_cum)
{
	s32 adv = mr_psn_diff(w->cum_psn, old_cum);

	if (adv < 0 || adv > MR_WINDOW || !mr_psn_valid(w->cum_psn))
		abort();
	if (w->map[0] & 1)
		abort();
}

static void handle(struct rx_state *s, const struct mr_pkt *p)
{
	const struct mr_op_desc *d = mr_op_desc(p->opcode);
	struct mr_rxmsg_info c;
	enum mr_rx_class cls;
	u32 old_cum = s->w.cum_psn;
	int rc, adv;

	if (!(d->attrs & MR_OPA_REQ) || (p->flags & MR_F_TRIM))
		return;
	s->now += 1000;
	cls = mr_rxwin_classify(&s->w, p->psn);
	if (cls == MR_RX_NEW || cls == MR_RX_NEW_OOO) {
		memcpy(&s->snap_m, &s->m, sizeof(s->m));
		rc = mr_rxmsg_add(&s->m, p);
		if (rc < 0) {
			/* Refused: no state change at all; not marked. */
			if (memcmp(&s->snap_m, &s->m, sizeof(s->m)))
				abort();
			goto note;
		}
		/* New in the window is never an rxmsg duplicate. */
		if (rc == MR_RXMSG_DUP)
			abort();
		adv = mr_rxwin_mark(&s->w, p->psn);
		if (adv < 0 || (cls == MR_RX_NEW) != (adv > 0))
			abort();
		if (mr_rxwin_classify(&s->w, p->psn) != MR_RX_DUP)
			abort();
	} else {
		/* Refused by the window: mark must refuse and change nothing. */
		memcpy(&s->snap_w, &s->w, sizeof(s->w));
		if (mr_rxwin_mark(&s->w, p->psn) != MR_ERR_PSN)
			abort();
		if (memcmp(&s->snap_w, &s->w, sizeof(s->w)))
			abort();
	}
note:
	check_win(&s->w, old_cum);
	if (mr_rxwin_note(&s->w, cls, p->flags, p->ts & 1, p->ts, s->now) ||
	    mr_rxwin_ack_due(&s->w, s->now)) {
		struct mr_akh akh;

		mr_rxwin_ack_fill(&s->w, &akh);
		if (akh.cum_psn != s->w.cum_psn || (akh.sack[0] & 1))
			abort();
	}
	/* Every PSN the window marked was counted by rxmsg first. */
	if (mr_rxmsg_cum_psn(&s->m) != s->w.cum_psn)
		abort();
	while (mr_rxmsg_pop_completed(&s->m, &c)) {
		/* Only due once cum_psn has passed it (MR-PLACE-16). */
		if (!mr_psn_before(c.last_psn, s->w.cum_psn))
			abort();
		if (c.extra) {
			/* Extra READ range: never of a future message. */
			if (c.opcode != MR_OP_READ_REQ ||
			    mr_seq32_diff(c.msn, s->next_msn) >= MR_RXMSG_RING)
				abort();
			continue;
		}
		if (c.msn != s->next_msn)
			abort();
		if (c.opcode != MR_OP_READ_REQ && c.opcode != MR_OP_ATOMIC_CS &&
		    c.opcode != MR_OP_ATOMIC_FA && c.bytes != c.msg_len)
			abort();
		s->next_msn++;
		if (mr_rxmsg_completed_msn(&s->m) != s->next_msn)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rx_state *s;
	size_t off = 7;

	if (size < 7)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return 0;
	mr_rxwin_init(&s->w, (u32)data[0] << 16 | (u32)data[1] << 8 | data[2]);
	s->next_msn = (u32)data[3] << 24 | (u32)data[4] << 16 |
		      (u32)data[5] << 8 | data[6];
	mr_rxmsg_init(&s->m, s->next_msn, s->w.cum_psn);

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
