// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests: receiver window (MR-WIN-2, MR-REL-1) and ACK policy
 * (MR-REL-3, MR-REL-13): coalescing every ack_every packets or ack_delay,
 * immediate only for holes left open past ack_reorder PSNs, fills of
 * reported holes, duplicates, CE and ACKREQ.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include "bitmap.h"
#include "rxwin.h"
#include "mr_test_util.h"

static void test_classify_edges(void **state)
{
	struct mr_rxwin w;
	u32 base;

	(void)state;
	for (base = 0xFFFF00; base != 0x000100; base = mr_psn_add(base, 0x40)) {
		mr_rxwin_init(&w, base);
		assert_int_equal(mr_rxwin_classify(&w, base), MR_RX_NEW);
		assert_int_equal(mr_rxwin_classify(&w, mr_psn_add(base, 1)),
				 MR_RX_NEW_OOO);
		assert_int_equal(mr_rxwin_classify(&w, mr_psn_add(base, 255)),
				 MR_RX_NEW_OOO);
		assert_int_equal(mr_rxwin_classify(&w, mr_psn_add(base, 256)),
				 MR_RX_BEYOND);
		assert_int_equal(mr_rxwin_classify(&w,
						   mr_psn_add(base, 0x7FFFFF)),
				 MR_RX_BEYOND);
		assert_int_equal(mr_rxwin_classify(&w, mr_psn_sub(base, 1)),
				 MR_RX_DUP);
		assert_int_equal(mr_rxwin_classify(&w,
						   mr_psn_sub(base, 0x800000)),
				 MR_RX_DUP);
		assert_true(mr_rxwin_received(&w, mr_psn_sub(base, 1)));
		assert_false(mr_rxwin_received(&w, base));
	}
	mr_rxwin_init(&w, 10);
	assert_int_equal(mr_rxwin_classify(&w, 0x100000A), MR_RX_BEYOND);
	assert_int_equal(mr_rxwin_mark(&w, 0x100000A), MR_ERR_PSN);
	assert_int_equal(w.cum_psn, 10);
}

static void test_mark_and_advance(void **state)
{
	struct mr_rxwin w, before;

	(void)state;
	mr_rxwin_init(&w, 100);
	assert_int_equal(mr_rxwin_mark(&w, 100), 1);
	assert_int_equal(w.cum_psn, 101);
	assert_int_equal(mr_rxwin_mark(&w, 103), 0);
	assert_int_equal(mr_rxwin_mark(&w, 102), 0);
	assert_int_equal(w.cum_psn, 101);
	assert_int_equal(mr_rxwin_classify(&w, 102), MR_RX_DUP);
	/* Duplicate / old / beyond: refused, nothing changes. */
	before = w;
	assert_int_equal(mr_rxwin_mark(&w, 102), MR_ERR_PSN);
	assert_int_equal(mr_rxwin_mark(&w, 100), MR_ERR_PSN);
	assert_int_equal(mr_rxwin_mark(&w, 101 + 256), MR_ERR_PSN);
	assert_memory_equal(&w, &before, sizeof(w));
	/* Filling the hole slides over 101..103. */
	assert_int_equal(mr_rxwin_mark(&w, 101), 3);
	assert_int_equal(w.cum_psn, 104);
	assert_int_equal(w.map[0] | w.map[1] | w.map[2] | w.map[3], 0);
}

/* Full window received backwards across the 2^24 wrap, then one slide. */
static void test_full_window_wrap(void **state)
{
	struct mr_rxwin w;
	u32 i, base = 0xFFFF80;

	(void)state;
	mr_rxwin_init(&w, base);
	for (i = 255; i >= 1; i--) {
		assert_int_equal(mr_rxwin_classify(&w, mr_psn_add(base, i)),
				 MR_RX_NEW_OOO);
		assert_int_equal(mr_rxwin_mark(&w, mr_psn_add(base, i)), 0);
	}
	assert_int_equal(w.map[0], ~1ULL);
	assert_int_equal(w.map[3], ~0ULL);
	assert_int_equal(mr_rxwin_classify(&w, mr_psn_add(base, 256)),
			 MR_RX_BEYOND);
	assert_int_equal(mr_rxwin_mark(&w, base), 256);
	assert_int_equal(w.cum_psn, 0x80);
	assert_int_equal(w.map[0] | w.map[1] | w.map[2] | w.map[3], 0);
	assert_int_equal(mr_rxwin_classify(&w, 0x7F), MR_RX_DUP);
	assert_int_equal(mr_rxwin_classify(&w, 0xFFFFFF), MR_RX_DUP);
	assert_int_equal(mr_rxwin_classify(&w, 0x80 + 255), MR_RX_NEW_OOO);
}

/* SACK bits of the AKH: exactly the out-of-order receipts, bit 0 clear. */
static void test_sack_content(void **state)
{
	static const u32 offs[] = { 1, 5, 63, 64, 65, 127, 128, 200, 255 };
	struct mr_rxwin w;
	struct mr_akh akh;
	u32 base = 0xFFFFFE, i, bit;

	(void)state;
	mr_rxwin_init(&w, base);
	for (i = 0; i < MR_ARRAY_SIZE(offs); i++)
		assert_int_equal(mr_rxwin_mark(&w, mr_psn_add(base, offs[i])),
				 0);
	memset(&akh, 0xCC, sizeof(akh));
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.cum_psn, base);
	for (bit = 0, i = 0; bit < 256; bit++) {
		bool want = i < MR_ARRAY_SIZE(offs) && offs[i] == bit;

		assert_int_equal(mr_sack_test(akh.sack, bit), want);
		if (want)
			i++;
	}
	/* Receive base: cum moves by 2 (base, base+1), bits shift down. */
	assert_int_equal(mr_rxwin_mark(&w, base), 2);
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.cum_psn, 0);
	assert_false(mr_sack_test(akh.sack, 0));
	for (i = 1; i < MR_ARRAY_SIZE(offs); i++)
		assert_true(mr_sack_test(akh.sack, offs[i] - 2));
	assert_false(mr_sack_test(akh.sack, 254));
	assert_false(mr_sack_test(akh.sack, 255));
	/* Encodes as a valid ACK. */
	{
		struct mr_pkt p, out;
		u8 buf[256];
		int len;

		t_sample_pkt(&p, MR_OP_ACK, 0);
		p.akh = akh;
		len = mr_pkt_encode(&p, buf, sizeof(buf));
		assert_true(len > 0);
		assert_int_equal(mr_pkt_decode(buf, (u32)len, &out), 0);
		assert_memory_equal(out.akh.sack, akh.sack, sizeof(akh.sack));
	}
}

/* Mark @psn (new) and note it without flags, CE or duplicate. */
static bool t_accept(struct mr_rxwin *w, u32 psn, u64 now)
{
	enum mr_rx_class cls = mr_rxwin_classify(w, psn);

	assert_true(cls == MR_RX_NEW || cls == MR_RX_NEW_OOO);
	assert_true(mr_rxwin_mark(w, psn) >= 0);
	return mr_rxwin_note(w, cls, 0, false, psn, now);
}

/* MR-REL-3 a, MR-REL-13: in order, an ACK every ack_every packets. */
static void test_ack_every_n(void **state)
{
	struct mr_rxwin w;
	struct mr_akh akh;
	u32 psn = 0xFFFFFE, i;

	(void)state;
	mr_rxwin_init(&w, psn);
	assert_int_equal(w.ack_every, MR_RXWIN_ACK_EVERY);
	assert_true(MR_RXWIN_ACK_EVERY <= MR_RXWIN_ACK_EVERY_MAX);
	/* Across the PSN wrap: ack_every - 1 coalesced, then one ACK. */
	for (i = 1; i < MR_RXWIN_ACK_EVERY; i++) {
		assert_false(t_accept(&w, psn, 1000 * i));
		psn = mr_psn_add(psn, 1);
	}
	/* The timer runs from the first unacknowledged packet. */
	assert_false(mr_rxwin_ack_due(&w, 1000 + MR_RXWIN_DELACK_NS - 1));
	assert_true(mr_rxwin_ack_due(&w, 1000 + MR_RXWIN_DELACK_NS));
	assert_true(t_accept(&w, psn, 5000));
	assert_int_equal(mr_rxwin_ack_fill(&w, &akh), 0);
	assert_int_equal(akh.cum_psn, mr_psn_add(psn, 1));
	assert_int_equal(akh.pkt_count, MR_RXWIN_ACK_EVERY);
	assert_int_equal(akh.ce_count, 0);
	assert_int_equal(akh.ts_echo, psn);
	/* Reset: the timer is disarmed, counters restart. */
	assert_false(mr_rxwin_ack_due(&w, ~0ULL));
	psn = mr_psn_add(psn, 1);
	assert_false(t_accept(&w, psn, 6000));
	assert_int_equal(w.pkt_count, 1);

	/* ack_every is a knob: 1 acknowledges every packet... */
	mr_rxwin_ack_fill(&w, &akh);
	w.ack_every = 1;
	psn = mr_psn_add(psn, 1);
	assert_true(t_accept(&w, psn, 7000));
	mr_rxwin_ack_fill(&w, &akh);
	/* ... the maximum every 8th. */
	w.ack_every = MR_RXWIN_ACK_EVERY_MAX;
	for (i = 1; i < MR_RXWIN_ACK_EVERY_MAX; i++) {
		psn = mr_psn_add(psn, 1);
		assert_false(t_accept(&w, psn, 8000));
	}
	psn = mr_psn_add(psn, 1);
	assert_true(t_accept(&w, psn, 8000));
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.pkt_count, MR_RXWIN_ACK_EVERY_MAX);
}

/*
 * MR-REL-3 g, MR-REL-13: the delayed-ACK timer runs from the first
 * unacknowledged packet, not from the latest; the ACK it triggers echoes
 * the latest packet (MR-REL-11) and covers all of them.
 */
static void test_ack_timer(void **state)
{
	struct mr_rxwin w;
	struct mr_akh akh;

	(void)state;
	mr_rxwin_init(&w, 100);
	w.delack_ns = 25000;		/* a NIC's ack_delay */
	w.ack_every = 4;		/* two packets stay coalesced */
	w.ack_reorder = 1;		/* a new hole is reported at once */
	assert_false(t_accept(&w, 100, 1000));
	assert_false(t_accept(&w, 101, 20000));
	assert_false(mr_rxwin_ack_due(&w, 25999));
	assert_true(mr_rxwin_ack_due(&w, 26000));
	assert_int_equal(mr_rxwin_ack_fill(&w, &akh), 0);
	assert_int_equal(akh.pkt_count, 2);
	assert_int_equal(akh.ts_echo, 101);
	assert_int_equal(akh.cum_psn, 102);
	assert_false(mr_rxwin_ack_due(&w, ~0ULL));
	/* An immediate ACK leaves no timer behind. */
	mr_rxwin_mark(&w, 102);
	assert_true(mr_rxwin_note(&w, MR_RX_NEW, MR_F_ACKREQ, false, 1, 30000));
	mr_rxwin_ack_fill(&w, &akh);
	assert_false(mr_rxwin_ack_due(&w, ~0ULL));
	/* Out-of-order packets that are coalesced start it too. */
	assert_true(t_accept(&w, 105, 40000));	/* new hole */
	mr_rxwin_ack_fill(&w, &akh);
	assert_false(t_accept(&w, 104, 41000));	/* inside */
	assert_false(mr_rxwin_ack_due(&w, 65999));
	assert_true(mr_rxwin_ack_due(&w, 66000));
}

/*
 * MR-REL-3 c with ack_reorder 1 (every reordering reported at once): only
 * a packet that opens a new hole (beyond the highest PSN received + 1) is
 * acknowledged at once; one that lands inside the
 * region already reported, or extends its highest run, is coalesced like
 * an in-order packet - up to the second one, which MR-REL-3 h
 * acknowledges while a hole is open.
 */
static void test_ack_new_hole(void **state)
{
	struct mr_rxwin w;
	struct mr_akh akh;

	(void)state;
	mr_rxwin_init(&w, 0xFFFFFD);	/* the holes straddle the wrap */
	w.ack_every = 4;		/* coalescing visible between holes */
	w.ack_reorder = 1;
	assert_false(t_accept(&w, 0xFFFFFD, 0));
	mr_rxwin_ack_fill(&w, &akh);
	/* 0xFFFFFE missing: FFFFFF opens the first hole. */
	assert_true(t_accept(&w, 0xFFFFFF, 0));
	assert_int_equal(w.ooo_pkts, 1);
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.cum_psn, 0xFFFFFE);
	assert_true(mr_sack_test(akh.sack, 1));
	/* Extends the highest run: no new hole; the second is h's. */
	assert_false(t_accept(&w, 0, 0));
	assert_true(t_accept(&w, 1, 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.pkt_count, 2);
	/* 2, 3 missing: 4 opens a new hole. */
	assert_true(t_accept(&w, 4, 0));
	mr_rxwin_ack_fill(&w, &akh);
	/* 7 opens another one beyond 4. */
	assert_true(t_accept(&w, 7, 0));
	mr_rxwin_ack_fill(&w, &akh);
	/* Inside the reported region: 3 and 5 fill parts of holes. */
	assert_false(t_accept(&w, 3, 0));
	assert_true(t_accept(&w, 5, 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(w.ooo_pkts, 7);
	assert_int_equal(akh.cum_psn, 0xFFFFFE);
	/* Right after an ACK, 11 skips 8 to 10: a new hole again. */
	assert_true(t_accept(&w, 11, 0));
	mr_rxwin_ack_fill(&w, &akh);
	/* A new hole far out in the window, at its last PSN. */
	assert_true(t_accept(&w, mr_psn_add(0xFFFFFE, 255), 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_true(mr_sack_test(akh.sack, 255));
}

/*
 * MR-REL-3 h: ack_every coalesces in-order packets only; while a hole is
 * open (a PSN after cum_psn was received) every second accepted packet
 * is acknowledged, whatever ack_every: the requester's loss detection
 * waits for later packets of the lost packet's own path (MR-LOSS-2).
 * Once the holes are filled, ack_every counts again. ack_reorder 1 here:
 * each hole is reported when it opens.
 */
static void test_ack_every_hole(void **state)
{
	struct mr_rxwin w;
	struct mr_akh akh;
	u32 i;

	(void)state;
	mr_rxwin_init(&w, 10);
	w.ack_every = MR_RXWIN_ACK_EVERY_MAX;
	w.ack_reorder = 1;
	for (i = 10; i < 10 + MR_RXWIN_ACK_EVERY_MAX - 1; i++)
		assert_false(t_accept(&w, i, 0));
	assert_true(t_accept(&w, i++, 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.pkt_count, MR_RXWIN_ACK_EVERY_MAX);
	/* i and i + 1 missing: i + 2 opens a hole (c). */
	assert_true(t_accept(&w, i + 2, 0));
	mr_rxwin_ack_fill(&w, &akh);
	/* i fills part of it, i + 3 extends the run: the second is h's. */
	assert_false(t_accept(&w, i, 0));
	assert_true(t_accept(&w, i + 3, 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.pkt_count, 2);
	assert_int_equal(akh.cum_psn, i + 1);
	/* i + 1 fills the lowest hole (d); then in order: ack_every. */
	assert_true(t_accept(&w, i + 1, 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.cum_psn, i + 4);
	for (i += 4; i < akh.cum_psn + MR_RXWIN_ACK_EVERY_MAX - 1; i++)
		assert_false(t_accept(&w, i, 0));
	assert_true(t_accept(&w, i, 0));
}

/*
 * MR-REL-3 d: the packet at cum_psn is acknowledged at once when cum_psn
 * then moves past SACKed PSNs (it filled the lowest hole); one that
 * leaves a hole right after it is coalesced. ack_reorder 1: the hole is
 * reported when it opens.
 */
static void test_ack_hole_fill(void **state)
{
	struct mr_rxwin w;
	struct mr_akh akh;

	(void)state;
	mr_rxwin_init(&w, 10);
	w.ack_reorder = 1;
	assert_true(t_accept(&w, 12, 0));	/* new hole: 10, 11 */
	mr_rxwin_ack_fill(&w, &akh);
	/* 10 fills part of the lowest hole, 11 is still missing. */
	assert_false(t_accept(&w, 10, 0));
	assert_int_equal(w.cum_psn, 11);
	/* 11: cum_psn jumps past SACKed 12. */
	assert_true(t_accept(&w, 11, 0));
	assert_int_equal(w.cum_psn, 13);	/* advanced by 2 */
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.cum_psn, 13);
	assert_true(mr_map_empty(akh.sack));
	/* In order again: coalesced. */
	assert_false(t_accept(&w, 13, 0));
}

/*
 * MR-REL-3 c, d, h with ack_reorder above 1: a hole is overdue once a
 * PSN ack_reorder or more after it was received, and only then
 * acknowledged at once; a shorter reordering is coalesced, and so is the
 * packet that ends it, even when a coalesced ACK reported the hole. While
 * an overdue hole is open h acknowledges every second packet, and its
 * fill is acknowledged at once.
 */
static void test_ack_reorder(void **state)
{
	struct mr_rxwin w;
	struct mr_akh akh;
	u32 i;

	(void)state;
	assert_true(MR_RXWIN_ACK_REORDER > 1);
	assert_true(MR_RXWIN_ACK_REORDER <= MR_RXWIN_ACK_REORDER_MAX);
	mr_rxwin_init(&w, 0xFFFFFE);	/* across the PSN wrap */
	assert_int_equal(w.ack_reorder, MR_RXWIN_ACK_REORDER);
	w.ack_reorder = 3;
	w.ack_every = MR_RXWIN_ACK_EVERY_MAX;	/* a stays out of the way */

	/* FFFFFE is late: FFFFFF and 0 are reordering, not a loss yet. */
	assert_false(t_accept(&w, 0xFFFFFF, 0));
	assert_false(t_accept(&w, 0, 0));
	/* It arrives: nobody was told of the hole, nothing to hurry. */
	assert_false(t_accept(&w, 0xFFFFFE, 0));
	assert_int_equal(w.cum_psn, 1);
	assert_int_equal(w.ooo_pkts, 2);
	/* In order on: the 8th accepted packet is a's. */
	for (i = 1; i < 5; i++)
		assert_false(t_accept(&w, i, 0));
	assert_true(t_accept(&w, 5, 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.cum_psn, 6);
	assert_int_equal(akh.pkt_count, 8);

	/* 6 missing: 7, 8 coalesced, 9 lies 3 after it (c). */
	assert_false(t_accept(&w, 7, 0));
	assert_false(t_accept(&w, 8, 0));
	assert_true(t_accept(&w, 9, 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.cum_psn, 6);
	assert_true(mr_sack_test(akh.sack, 3));
	/* The overdue hole is open: every second packet (h). */
	assert_false(t_accept(&w, 10, 0));
	assert_true(t_accept(&w, 11, 0));
	mr_rxwin_ack_fill(&w, &akh);
	/* Its fill moves cum_psn past SACKed PSNs: at once (d). */
	assert_true(t_accept(&w, 6, 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.cum_psn, 12);
	assert_true(mr_map_empty(akh.sack));

	/*
	 * Two holes: 12 and 15 missing. 16 lies 4 after 12 (c), and its ACK
	 * reports both; then h acknowledges every second packet.
	 */
	assert_false(t_accept(&w, 13, 0));
	assert_false(t_accept(&w, 14, 0));
	assert_true(t_accept(&w, 16, 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_false(t_accept(&w, 17, 0));
	assert_true(t_accept(&w, 18, 0));	/* h */
	mr_rxwin_ack_fill(&w, &akh);
	/* 12 fills the reported lowest hole up to 15: d. */
	assert_true(t_accept(&w, 12, 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.cum_psn, 15);
	/* 15 was reported too: its fill is d's. */
	assert_true(t_accept(&w, 15, 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.cum_psn, 19);

	/* A PSN at the window's last slot: its hole is overdue at once. */
	assert_true(t_accept(&w, mr_psn_add(19, MR_WINDOW - 1), 0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_true(mr_sack_test(akh.sack, MR_WINDOW - 1));

	/*
	 * ack_reorder 8: 7 PSNs of reordering are absorbed. The coalesced
	 * ACK (a) after 4 packets reports the hole, which is not overdue:
	 * no ACK every second packet (h), and its fill is coalesced (d).
	 */
	mr_rxwin_init(&w, 100);
	w.ack_reorder = 8;
	w.ack_every = 4;
	for (i = 101; i < 104; i++)
		assert_false(t_accept(&w, i, 0));
	assert_true(t_accept(&w, 104, 0));	/* a */
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.cum_psn, 100);
	assert_false(t_accept(&w, 105, 0));
	assert_false(t_accept(&w, 106, 0));
	assert_false(t_accept(&w, 100, 0));
	assert_int_equal(w.cum_psn, 107);
	/* ... where 7 makes it overdue at the seventh (c). */
	mr_rxwin_init(&w, 100);
	w.ack_reorder = 7;
	w.ack_every = MR_RXWIN_ACK_EVERY_MAX;
	for (i = 101; i < 107; i++)
		assert_false(t_accept(&w, i, 0));
	assert_true(t_accept(&w, 107, 0));
}

/* MR-REL-3 b, e, f, MR-REL-11, MR-REL-12: ACKREQ, duplicate, CE. */
static void test_ack_immediate_triggers(void **state)
{
	struct mr_rxwin w;
	struct mr_akh akh;

	(void)state;
	/* ACKREQ (the last packet of a message, MR-REL-14). */
	mr_rxwin_init(&w, 0);
	mr_rxwin_mark(&w, 0);
	assert_true(mr_rxwin_note(&w, MR_RX_NEW, MR_F_ACKREQ, false, 1, 0));
	mr_rxwin_ack_fill(&w, &akh);
	/* ACKREQ on a packet inside the reported region too. */
	assert_true(t_accept(&w, 5, 0));
	mr_rxwin_ack_fill(&w, &akh);
	mr_rxwin_mark(&w, 3);
	assert_true(mr_rxwin_note(&w, MR_RX_NEW_OOO, MR_F_ACKREQ, false, 2,
				  0));
	mr_rxwin_ack_fill(&w, &akh);
	assert_true(mr_sack_test(akh.sack, 2));
	assert_true(mr_sack_test(akh.sack, 4));
	mr_rxwin_mark(&w, 1);
	mr_rxwin_mark(&w, 4);
	assert_int_equal(mr_rxwin_mark(&w, 2), 4);
	mr_rxwin_ack_fill(&w, &akh);
	assert_int_equal(akh.cum_psn, 6);
	/* Duplicate. */
	assert_true(mr_rxwin_note(&w, mr_rxwin_classify(&w, 3), 0, false, 5,
				  0));
	assert_int_equal(w.dup_pkts, 1);
	mr_rxwin_ack_fill(&w, &akh);
	/* Beyond the window: only counted, no ACK (the NACK replaces it). */
	assert_false(mr_rxwin_note(&w, mr_rxwin_classify(&w, 6 + 256), 0,
				   true, 6, 0));
	assert_int_equal(w.beyond_pkts, 1);
	assert_int_equal(w.pkt_count, 0);
	assert_int_equal(w.ce_count, 0);
	assert_false(mr_rxwin_ack_due(&w, ~0ULL));
	/* CE: immediate, counted; ECE iff the triggering packet had CE. */
	mr_rxwin_mark(&w, 6);
	assert_true(mr_rxwin_note(&w, MR_RX_NEW, 0, true, 7, 0));
	mr_rxwin_mark(&w, 7);
	mr_rxwin_note(&w, MR_RX_NEW, 0, true, 8, 0);
	mr_rxwin_mark(&w, 8);
	mr_rxwin_note(&w, MR_RX_NEW, 0, false, 9, 0);
	assert_int_equal(mr_rxwin_ack_fill(&w, &akh), 0);
	assert_int_equal(akh.ce_count, 2);
	assert_int_equal(akh.pkt_count, 3);
	assert_int_equal(akh.ts_echo, 9);
	mr_rxwin_mark(&w, 9);
	assert_true(mr_rxwin_note(&w, MR_RX_NEW, 0, true, 10, 0));
	assert_int_equal(mr_rxwin_ack_fill(&w, &akh), MR_F_ECE);
	assert_int_equal(akh.ce_count, 1);
	assert_int_equal(akh.pkt_count, 1);
	assert_int_equal(mr_rxwin_ack_fill(&w, &akh), 0);
	assert_int_equal(akh.ce_count, 0);
	/* A CE-marked duplicate is echoed too. */
	assert_true(mr_rxwin_note(&w, MR_RX_DUP, 0, true, 11, 0));
	assert_int_equal(mr_rxwin_ack_fill(&w, &akh), MR_F_ECE);
	assert_int_equal(akh.ts_echo, 11);
	/* CE on a coalescible out-of-order packet: at once as well. */
	assert_true(t_accept(&w, 14, 0));
	mr_rxwin_ack_fill(&w, &akh);
	mr_rxwin_mark(&w, 12);
	assert_true(mr_rxwin_note(&w, MR_RX_NEW_OOO, 0, true, 12, 0));
}

static void test_counters_saturate(void **state)
{
	struct mr_rxwin w;
	u32 i;

	(void)state;
	mr_rxwin_init(&w, 0);
	for (i = 0; i < 70000; i++)
		mr_rxwin_note(&w, MR_RX_DUP, 0, true, i, 0);
	assert_int_equal(w.pkt_count, 0xFFFF);
	assert_int_equal(w.ce_count, 0xFFFF);
	assert_int_equal(w.dup_pkts, 70000);
}

/* Random arrivals vs. a trivially correct reference (bool per PSN). */
static void test_random_vs_reference(void **state)
{
	u64 seed = 777;
	u32 round;

	(void)state;
	for (round = 0; round < 50; round++) {
		static bool got[4096];
		u32 base = mr_psn_sub(0, t_rand_below(&seed, 3000));
		u32 cum_ref = 0, i, n = 4096;
		/* PSN after the highest received; first PSN not yet ACKed. */
		u32 high_ref = 0, rep_ref = 0;
		struct mr_rxwin w;
		struct mr_akh akh;

		memset(got, 0, sizeof(got));
		mr_rxwin_init(&w, base);
		w.ack_reorder = 1 + t_rand_below(&seed, MR_RXWIN_ACK_REORDER_MAX);
		for (i = 0; i < 40000 && cum_ref < n; i++) {
			/* Mostly near cum, sometimes far out or old. */
			s32 off = (s32)t_rand_below(&seed, 300) - 20;
			u32 rel = (u32)((s32)cum_ref + off);
			u32 psn = mr_psn_add(base, rel);
			enum mr_rx_class want, cls;

			if (off < 0)
				want = MR_RX_DUP;
			else if (off >= MR_WINDOW)
				want = MR_RX_BEYOND;
			else if (rel >= n)
				continue; /* past the tracked test range */
			else if (got[rel])
				want = MR_RX_DUP;
			else
				want = off ? MR_RX_NEW_OOO : MR_RX_NEW;
			cls = mr_rxwin_classify(&w, psn);
			assert_int_equal(cls, want);
			if (cls == MR_RX_NEW || cls == MR_RX_NEW_OOO) {
				u32 old = cum_ref;

				bool overdue = false;
				u32 p;

				got[rel] = true;
				while (cum_ref < n && got[cum_ref])
					cum_ref++;
				assert_int_equal(mr_rxwin_mark(&w, psn),
						 cum_ref - old);
				/*
				 * MR-REL-3 c: a missing PSN no ACK reported,
				 * ack_reorder or more before the highest.
				 */
				if (rel >= high_ref)
					high_ref = rel + 1;
				for (p = rep_ref > cum_ref ? rep_ref : cum_ref;
				     p + w.ack_reorder < high_ref; p++)
					overdue |= !got[p];
				assert_int_equal(w.last_overdue, overdue);
				/* ACK the overdue ones and a random few. */
				if (overdue || !t_rand_below(&seed, 8)) {
					mr_rxwin_ack_fill(&w, &akh);
					rep_ref = high_ref;
				}
			} else {
				assert_int_equal(mr_rxwin_mark(&w, psn),
						 MR_ERR_PSN);
			}
			assert_int_equal(w.cum_psn, mr_psn_add(base, cum_ref));
			assert_false(w.map[0] & 1);
		}
	}
}

/*
 * MR-REL-1: only the 256 PSNs before cum_psn can be a retransmission the
 * peer's transport still sends; older ones are no duplicate to answer.
 */
static void test_dup_recent(void **state)
{
	struct mr_rxwin w;

	(void)state;
	mr_rxwin_init(&w, 0x000010);
	assert_true(mr_rxwin_dup_recent(&w, 0x00000f));
	assert_true(mr_rxwin_dup_recent(&w, 0xffff10));
	assert_false(mr_rxwin_dup_recent(&w, 0xffff0f));
	assert_false(mr_rxwin_dup_recent(&w, 0x800010));
	/* inside the window: a duplicate of a received out-of-order PSN */
	assert_true(mr_rxwin_dup_recent(&w, 0x000010));
	assert_true(mr_rxwin_dup_recent(&w, 0x00010f));
	assert_false(mr_rxwin_dup_recent(&w, 0x000110));
	assert_false(mr_rxwin_dup_recent(&w, 0x1000000));
}

#define T_US 1000ULL
#define T_MS (1000 * T_US)

/*
 * MR-WIN-6: a timestamp more than stale_age (100 ms) before the newest
 * accepted one is stale, however long ago that was accepted; one further
 * ahead than the time since plus future_age (1 s, and drift) is no clock
 * of the peer's.
 */
static void test_timestamp_window(void **state)
{
	struct mr_rxwin w;
	u64 t0 = 77 * T_MS;
	u32 ts0 = 0xfffff000;	/* wraps during the test */

	(void)state;
	mr_rxwin_init(&w, 0);
	/* No reference yet: anything goes (the first packet sets it). */
	assert_true(mr_rxwin_ts_ok(&w, 0, t0));
	mr_rxwin_ts_accept(&w, ts0, t0);
	assert_true(mr_rxwin_ts_ok(&w, ts0, t0));
	/* Reordered and delayed packets, even after a long local stall. */
	assert_true(mr_rxwin_ts_ok(&w, ts0 - 100000, t0 + 10 * T_MS));
	assert_true(mr_rxwin_ts_ok(&w, ts0 - 100000, t0 + 900 * T_MS));
	assert_int_equal(w.stale_pkts, 0);
	assert_false(mr_rxwin_ts_ok(&w, ts0 - 100001, t0));
	assert_false(mr_rxwin_ts_ok(&w, ts0 - 100001, t0 + 900 * T_MS));
	/*
	 * 10 ms later the peer's clock reads at most ts0 + 10000 + tol,
	 * tol = future_age (1 s) + 10000 / 1024.
	 */
	assert_true(mr_rxwin_ts_ok(&w, ts0 + 10000 + 1000009,
				   t0 + 10 * T_MS));
	assert_false(mr_rxwin_ts_ok(&w, ts0 + 10000 + 1000010,
				    t0 + 10 * T_MS));
	/*
	 * A reference that was itself delayed 900 ms (a stalled sender):
	 * the genuine packets after it are not refused.
	 */
	{
		struct mr_rxwin w2;

		mr_rxwin_init(&w2, 0);
		mr_rxwin_ts_accept(&w2, 5000, t0);
		assert_true(mr_rxwin_ts_ok(&w2, 5000 + 900000 + 20000,
					   t0 + 20 * T_MS));
	}
	/* A zero or random timestamp is no clock of the peer's. */
	assert_false(mr_rxwin_ts_ok(&w, 0x12345678, t0 + 10 * T_MS));
	assert_false(mr_rxwin_ts_ok(&w, ts0 + 0x40000000, t0 + 10 * T_MS));
	assert_int_equal(w.stale_pkts, 2);
	assert_int_equal(w.future_pkts, 3);
	/* The reference is the newest accepted: older ones do not move it. */
	mr_rxwin_ts_accept(&w, ts0 - 5000, t0 + 1 * T_MS);
	assert_int_equal(w.ts_ref, ts0);
	mr_rxwin_ts_accept(&w, ts0 + 60000000, t0 + 60000 * T_MS);
	assert_false(mr_rxwin_ts_ok(&w, ts0, t0 + 60000 * T_MS));
	assert_true(mr_rxwin_ts_ok(&w, ts0 + 60001000, t0 + 60001 * T_MS));
	/* Beyond the horizon of 32-bit clocks: re-anchored, accepted. */
	assert_true(mr_rxwin_ts_ok(&w, 5, t0 + 60000 * T_MS +
				   (1ULL << 30) * T_US));
}

/*
 * MR-WIN-6 resynchronisation: a reference set by a packet a queue held
 * for 1.5 s (a link flap) makes every genuine packet after it look like
 * the future. After future_age of nothing but such drops the check lets
 * requests through, and the first one the PSN window accepts as new sets
 * the reference; forged packets from the future that the window does not
 * accept (out of window) never set it, and a single forged one while
 * genuine traffic flows never starts a resynchronisation.
 */
static void test_timestamp_resync(void **state)
{
	const u32 psn0 = 1000, late = 7000000;	/* stamped 1.5 s before now */
	const u64 t0 = 50000 * T_MS;
	struct mr_rxwin w;
	u64 t;
	u32 i;

	(void)state;
	mr_rxwin_init(&w, psn0);
	/* The delayed packet arrives at t0 and becomes the reference. */
	assert_int_equal(mr_rxwin_ts_check(&w, late, t0), MR_TS_OK);
	mr_rxwin_ts_accept(&w, late, t0);
	/* Genuine packets, stamped on the sender's clock now. */
	for (i = 0, t = t0 + 10 * T_MS; t < t0 + 1000 * T_MS; i++, t += 100 * T_MS)
		assert_int_equal(mr_rxwin_ts_check(&w, late + 1500000 +
						   (u32)((t - t0) / T_US), t),
				 MR_TS_FUTURE);
	assert_false(w.ts_resync);
	/* future_age of nothing but future drops: the next one passes ... */
	t = t0 + 1100 * T_MS;
	assert_int_equal(mr_rxwin_ts_check(&w, late + 1500000 + 1100000, t),
			 MR_TS_OK);
	assert_true(w.ts_resync);
	assert_int_equal(w.ts_resyncs, 1);
	/* ... but a forged one the window refuses does not set the reference. */
	assert_int_equal(mr_rxwin_classify(&w, psn0 + 5000), MR_RX_BEYOND);
	assert_true(w.ts_resync);
	/* The genuine one accepted as new does; then the window is normal. */
	assert_int_equal(mr_rxwin_classify(&w, psn0), MR_RX_NEW);
	mr_rxwin_ts_accept(&w, late + 1500000 + 1100000, t);
	assert_false(w.ts_resync);
	assert_int_equal(w.ts_ref, late + 1500000 + 1100000);
	assert_int_equal(mr_rxwin_ts_check(&w, late + 1500000 + 1110000,
					   t + 10 * T_MS), MR_TS_OK);
	assert_int_equal(mr_rxwin_ts_check(&w, late + 1500000 + 1100000 + 5000000,
					   t + 20 * T_MS), MR_TS_FUTURE);

	/* One forged future packet among genuine ones: no resync ever. */
	mr_rxwin_init(&w, psn0);
	mr_rxwin_ts_accept(&w, 100000, t0);
	for (t = t0; t < t0 + 5000 * T_MS; t += 50 * T_MS) {
		u32 now_ts = 100000 + (u32)((t - t0) / T_US);

		assert_int_equal(mr_rxwin_ts_check(&w, now_ts + 9000000, t),
				 MR_TS_FUTURE);
		assert_int_equal(mr_rxwin_ts_check(&w, now_ts, t), MR_TS_OK);
		mr_rxwin_ts_accept(&w, now_ts, t);
	}
	assert_false(w.ts_resync);
	assert_int_equal(w.ts_resyncs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_edges),
		cmocka_unit_test(test_mark_and_advance),
		cmocka_unit_test(test_full_window_wrap),
		cmocka_unit_test(test_sack_content),
		cmocka_unit_test(test_ack_every_n),
		cmocka_unit_test(test_ack_timer),
		cmocka_unit_test(test_ack_new_hole),
		cmocka_unit_test(test_ack_every_hole),
		cmocka_unit_test(test_ack_hole_fill),
		cmocka_unit_test(test_ack_reorder),
		cmocka_unit_test(test_ack_immediate_triggers),
		cmocka_unit_test(test_counters_saturate),
		cmocka_unit_test(test_random_vs_reference),
		cmocka_unit_test(test_dup_recent),
		cmocka_unit_test(test_timestamp_window),
		cmocka_unit_test(test_timestamp_resync),
	};

	return cmocka_run_group_tests_name("rxwin", tests, NULL, NULL);
}
