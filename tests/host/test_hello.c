// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host tests: connection setup and capability negotiation
 * (kernel/proto/hello.c; spec revision 1.1): the HELLO codec (MR-HDR-27,
 * MR-VER-9), the exchange between two objects (MR-VER-12, MR-VER-13),
 * bounded repeats and the 1.0 peer (MR-VER-14), late and conflicting
 * HELLOs (MR-VER-13, MR-SEC-13), PROBE gating (MR-VER-15), the READ
 * range learnt (MR-VER-16) and acting as a 1.0 node (MR-VER-17).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "hello.h"
#include "wire.h"

#define MS	(1000ULL * 1000)

/* Encode @h's HELLO, decode it again: what the peer receives. */
static void wire_hello(const struct mr_hello *h, struct mr_pkt *out)
{
	struct mr_pkt p;
	u8 buf[128];
	int n;

	mr_hello_fill(h, &p);
	p.dqpn = 0x111;
	p.sqpn = 0x222;
	n = mr_pkt_encode(&p, buf, sizeof(buf));
	assert_int_equal(n, MR_MBH_LEN + MR_HLH_LEN + MR_ICRC_LEN);
	assert_int_equal(mr_pkt_receive(buf, (u32)n, 0, MR_TRIM_DSCP_DEFAULT, out), 0);
	assert_int_equal(mr_pkt_role(out), MR_RX_HELLO);
}

static void params(struct mr_hello_params *p, u32 caps)
{
	mr_hello_default_params(p);
	p->caps = caps;
}

/* MR-HDR-27, MR-VER-9: layout, values refused, ignored fields. */
static void test_codec(void **state)
{
	struct mr_hello_params hp;
	struct mr_hello h;
	struct mr_pkt p, q;
	u8 buf[128];
	int n;

	(void)state;
	params(&hp, MR_CAP_IMPL);
	mr_hello_init(&h, &hp);
	mr_hello_fill(&h, &p);
	p.dqpn = 0x010203;
	p.sqpn = 0x040506;
	p.ts = 0x0A0B0C0D;
	n = mr_pkt_encode(&p, buf, sizeof(buf));
	assert_int_equal(n, 40);
	assert_int_equal(buf[1], 0x32);
	/* rev 1.1, no SEEN yet, caps CORE|MULTIPATH|CC, 65536 */
	assert_int_equal(buf[20], 1);
	assert_int_equal(buf[21], 1);
	assert_int_equal(buf[22] << 8 | buf[23], 0);
	assert_int_equal(buf[27], 7);
	assert_int_equal(buf[29], 1);
	assert_int_equal(buf[30] | buf[31], 0);
	assert_int_equal(buf[32] | buf[33] | buf[34] | buf[35], 0);

	/* Unassigned flag bits and word 3 ignored (MR-VER-9). */
	buf[22] = 0x80;
	buf[23] = 0x03;
	buf[35] = 0x77;
	mr_icrc_put(buf, 36);
	assert_int_equal(mr_pkt_receive(buf, 40, 0, MR_TRIM_DSCP_DEFAULT, &q), 0);
	assert_int_equal(q.hlh.hflags, MR_HLF_SEEN);
	assert_int_equal(q.hlh.caps, 7);

	/* Refused: rev 1.0, major 2, no CORE, range out of bounds. */
	q = p;
	q.hlh.rev_minor = 0;
	assert_int_equal(mr_pkt_validate(&q), MR_ERR_FIELD);
	q = p;
	q.hlh.rev_major = 2;
	assert_int_equal(mr_pkt_validate(&q), MR_ERR_FIELD);
	q = p;
	q.hlh.caps = MR_CAP_MULTIPATH;
	assert_int_equal(mr_pkt_validate(&q), MR_ERR_FIELD);
	q = p;
	q.hlh.max_read_range = MR_HELLO_READ_RANGE_MIN - 1;
	assert_int_equal(mr_pkt_validate(&q), MR_ERR_FIELD);
	q = p;
	q.hlh.max_read_range = MR_MAX_MSG_LEN + 1;
	assert_int_equal(mr_pkt_validate(&q), MR_ERR_FIELD);
	/* No flags, MBH.PSN zero, no payload (MR-HDR-22, MR-HDR-8). */
	q = p;
	q.flags = MR_F_FIRST;
	assert_int_equal(mr_pkt_validate(&q), MR_ERR_FLAGS);
	q = p;
	q.psn = 1;
	assert_int_equal(mr_pkt_validate(&q), MR_ERR_FIELD);
	q = p;
	q.payload_len = 1;
	assert_int_equal(mr_pkt_validate(&q), MR_ERR_PAYLOAD);
}

/*
 * MR-VER-12, MR-VER-13: two 1.1 nodes, one with CC withheld; both
 * settle on the same common set, the answer carries SEEN and is not
 * answered again.
 */
static void test_exchange(void **state)
{
	struct mr_hello_params pa, pb;
	struct mr_hello a, b;
	struct mr_pkt p;
	bool reply, lim;

	(void)state;
	params(&pa, MR_CAP_IMPL);
	params(&pb, MR_CAP_CORE | MR_CAP_MULTIPATH);
	mr_hello_init(&a, &pa);
	mr_hello_init(&b, &pb);
	/* Both in RTR: nothing is due before RTS. */
	assert_int_equal(mr_hello_deadline(&a), MR_TIME_NEVER);
	assert_int_equal(mr_hello_on_timer(&a, 0), MR_HELLO_TX_NONE);
	assert_int_equal(a.common, 0);
	assert_true(mr_hello_may_probe(&a));

	mr_hello_on_rts(&a, 10 * MS);
	assert_int_equal(mr_hello_deadline(&a), 10 * MS);
	assert_int_equal(mr_hello_on_timer(&a, 10 * MS), MR_HELLO_TX_SEND);
	assert_int_equal(mr_hello_deadline(&a), 11 * MS);
	wire_hello(&a, &p);
	assert_int_equal(p.hlh.hflags, 0);

	/* b, still in RTR, settles and answers with SEEN. */
	assert_int_equal(mr_hello_on_rx(&b, &p, 10 * MS, &reply, &lim),
			 MR_HELLO_RX_SETTLED);
	assert_true(reply);
	assert_false(lim);
	assert_int_equal(b.state, MR_HELLO_SETTLED);
	assert_int_equal(b.common, MR_CAP_CORE | MR_CAP_MULTIPATH);
	assert_int_equal(b.peer_minor, 1);
	wire_hello(&b, &p);
	assert_int_equal(p.hlh.hflags, MR_HLF_SEEN);

	/* a settles; a SEEN HELLO is not answered. */
	assert_int_equal(mr_hello_on_rx(&a, &p, 11 * MS, &reply, &lim),
			 MR_HELLO_RX_SETTLED);
	assert_false(reply);
	assert_false(lim);
	assert_true(a.peer_has_ours);
	assert_int_equal(a.common, b.common);
	assert_true(mr_hello_common(&a, MR_CAP_MULTIPATH));
	assert_false(mr_hello_common(&a, MR_CAP_CC));
	/* Nothing more to send, on either side. */
	assert_int_equal(mr_hello_deadline(&a), MR_TIME_NEVER);
	assert_int_equal(mr_hello_on_timer(&a, 1000 * MS), MR_HELLO_TX_NONE);
	/* b reaching RTS settled sends nothing. */
	mr_hello_on_rts(&b, 12 * MS);
	assert_int_equal(mr_hello_deadline(&b), MR_TIME_NEVER);
	assert_int_equal(a.sent, 1);
}

/*
 * MR-VER-14: a 1.0 peer never answers: bounded tries on a doubling,
 * capped gap, then the base set for good; a late HELLO is answered and
 * changes nothing.
 */
static void test_old_peer(void **state)
{
	struct mr_hello_params hp;
	struct mr_hello h, peer;
	struct mr_pkt p;
	u64 now = 5 * MS, total = 0, gap, prev = 0;
	enum mr_hello_tx tx;
	bool reply, lim;
	u32 sends = 0;

	(void)state;
	params(&hp, MR_CAP_IMPL);
	mr_hello_init(&h, &hp);
	mr_hello_on_rts(&h, now);
	for (;;) {
		now = mr_hello_deadline(&h);
		assert_true(now != MR_TIME_NEVER);
		/* Not before the deadline. */
		assert_int_equal(mr_hello_on_timer(&h, now - 1),
				 MR_HELLO_TX_NONE);
		tx = mr_hello_on_timer(&h, now);
		if (tx == MR_HELLO_TX_GAVE_UP)
			break;
		assert_int_equal(tx, MR_HELLO_TX_SEND);
		sends++;
		gap = mr_hello_deadline(&h) - now;
		assert_true(gap <= MR_HELLO_INTERVAL_MAX_NS);
		assert_true(gap >= prev);
		prev = gap;
		total += gap;
		assert_true(sends <= MR_HELLO_TRIES);
	}
	assert_int_equal(sends, MR_HELLO_TRIES);
	/* About a second in all (MR-VER-14). */
	assert_true(total > 500 * MS && total < 2000 * MS);
	assert_int_equal(h.state, MR_HELLO_OLD_PEER);
	assert_int_equal(h.common, 0);
	assert_int_equal(mr_hello_deadline(&h), MR_TIME_NEVER);
	assert_int_equal(mr_hello_on_timer(&h, now + 10000 * MS),
			 MR_HELLO_TX_NONE);
	assert_true(mr_hello_may_probe(&h));

	/* A late 1.1 peer: answered with SEEN, still the base set. */
	mr_hello_init(&peer, &hp);
	wire_hello(&peer, &p);
	assert_int_equal(mr_hello_on_rx(&h, &p, now, &reply, &lim),
			 MR_HELLO_RX_LATE);
	assert_true(reply);
	assert_int_equal(h.common, 0);
	assert_int_equal(h.state, MR_HELLO_OLD_PEER);
	wire_hello(&h, &p);
	assert_int_equal(p.hlh.hflags, MR_HLF_SEEN);
	assert_int_equal(mr_hello_read_range(&h, 1U << 20),
			 MR_HELLO_READ_RANGE_MIN);
}

/*
 * MR-VER-13, MR-SEC-13: once settled, a different HELLO (a spoofed
 * downgrade) is dropped unanswered; repeats of the same one are answered
 * at most once per reply gap (MR-VER-12, MR-SEC-8).
 */
static void test_conflict_and_rate(void **state)
{
	struct mr_hello_params hp, pp;
	struct mr_hello h, peer;
	struct mr_pkt p, spoof;
	bool reply, lim;

	(void)state;
	params(&hp, MR_CAP_IMPL);
	mr_hello_init(&h, &hp);
	mr_hello_init(&peer, &hp);
	wire_hello(&peer, &p);
	assert_int_equal(mr_hello_on_rx(&h, &p, 0, &reply, &lim),
			 MR_HELLO_RX_SETTLED);
	assert_true(reply);
	assert_int_equal(h.common, MR_CAP_IMPL);

	/* The peer's repeat within the reply gap: rate-limited. */
	assert_int_equal(mr_hello_on_rx(&h, &p, MR_HELLO_REPLY_GAP_NS - 1,
					&reply, &lim), MR_HELLO_RX_REPEAT);
	assert_false(reply);
	assert_true(lim);
	assert_int_equal(mr_hello_on_rx(&h, &p, MR_HELLO_REPLY_GAP_NS,
					&reply, &lim), MR_HELLO_RX_REPEAT);
	assert_true(reply);

	/* A downgrade: CORE only. */
	params(&pp, MR_CAP_CORE);
	mr_hello_init(&peer, &pp);
	wire_hello(&peer, &spoof);
	assert_int_equal(mr_hello_on_rx(&h, &spoof, 10 * MS, &reply, &lim),
			 MR_HELLO_RX_CONFLICT);
	assert_false(reply);
	assert_false(lim);
	assert_int_equal(h.common, MR_CAP_IMPL);
	/* A different limit or revision is a conflict too. */
	spoof = p;
	spoof.hlh.max_read_range = 1U << 20;
	assert_int_equal(mr_hello_on_rx(&h, &spoof, 20 * MS, &reply, &lim),
			 MR_HELLO_RX_CONFLICT);
	spoof = p;
	spoof.hlh.rev_minor = 2;
	assert_int_equal(mr_hello_on_rx(&h, &spoof, 30 * MS, &reply, &lim),
			 MR_HELLO_RX_CONFLICT);
	assert_int_equal(h.peer_read_range, MR_HELLO_READ_RANGE_MIN);
}

/* MR-VER-15: no PROBEs towards a settled peer without MULTIPATH. */
static void test_probe_gate(void **state)
{
	struct mr_hello_params hp, pp;
	struct mr_hello h, peer;
	struct mr_pkt p;
	bool reply, lim;

	(void)state;
	params(&hp, MR_CAP_IMPL);
	params(&pp, MR_CAP_CORE | MR_CAP_CC);
	mr_hello_init(&h, &hp);
	mr_hello_init(&peer, &pp);
	assert_true(mr_hello_may_probe(&h));
	wire_hello(&peer, &p);
	mr_hello_on_rx(&h, &p, 0, &reply, &lim);
	assert_false(mr_hello_may_probe(&h));
	assert_int_equal(h.common, MR_CAP_CORE | MR_CAP_CC);
	/* Own MULTIPATH withheld: no PROBEs either (common set). */
	mr_hello_init(&h, &pp);
	mr_hello_init(&peer, &hp);
	wire_hello(&peer, &p);
	mr_hello_on_rx(&h, &p, 0, &reply, &lim);
	assert_false(mr_hello_may_probe(&h));
}

/* MR-VER-16: min(own, peer's), the 1.0 value until settled. */
static void test_read_range(void **state)
{
	struct mr_hello_params hp, pp;
	struct mr_hello h, peer;
	struct mr_pkt p;
	bool reply, lim;

	(void)state;
	params(&hp, MR_CAP_IMPL);
	params(&pp, MR_CAP_IMPL);
	pp.max_read_range = 1U << 20;
	mr_hello_init(&h, &hp);
	mr_hello_init(&peer, &pp);
	assert_int_equal(mr_hello_read_range(&h, 1U << 22),
			 MR_HELLO_READ_RANGE_MIN);
	wire_hello(&peer, &p);
	assert_int_equal(p.hlh.max_read_range, 1U << 20);
	mr_hello_on_rx(&h, &p, 0, &reply, &lim);
	assert_int_equal(mr_hello_read_range(&h, 1U << 22), 1U << 20);
	assert_int_equal(mr_hello_read_range(&h, 65536), 65536);
	/* An announcement below the 1.0 limit is raised to it. */
	pp.max_read_range = 4096;
	mr_hello_init(&peer, &pp);
	assert_int_equal(peer.p.max_read_range, MR_HELLO_READ_RANGE_MIN);
}

/* MR-VER-17: acting as a 1.0 node: nothing sent, HELLOs ignored. */
static void test_off(void **state)
{
	struct mr_hello_params hp;
	struct mr_hello h, peer;
	struct mr_pkt p;
	bool reply, lim;

	(void)state;
	params(&hp, MR_CAP_IMPL);
	mr_hello_init(&peer, &hp);
	hp.enabled = false;
	mr_hello_init(&h, &hp);
	mr_hello_on_rts(&h, 0);
	assert_int_equal(mr_hello_deadline(&h), MR_TIME_NEVER);
	assert_int_equal(mr_hello_on_timer(&h, 0), MR_HELLO_TX_NONE);
	wire_hello(&peer, &p);
	assert_int_equal(mr_hello_on_rx(&h, &p, 0, &reply, &lim),
			 MR_HELLO_RX_IGNORED);
	assert_false(reply);
	assert_int_equal(h.common, 0);
	assert_string_equal(mr_hello_state_name(h.state), "off");
	assert_string_equal(mr_hello_state_name(MR_HELLO_SETTLED), "settled");
	assert_string_equal(mr_hello_state_name(MR_HELLO_OLD_PEER),
			    "old_peer");
	assert_string_equal(mr_hello_state_name(MR_HELLO_WAIT), "wait");
	assert_string_equal(mr_hello_state_name(99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec),
		cmocka_unit_test(test_exchange),
		cmocka_unit_test(test_old_peer),
		cmocka_unit_test(test_conflict_and_rate),
		cmocka_unit_test(test_probe_gate),
		cmocka_unit_test(test_read_range),
		cmocka_unit_test(test_off),
	};

	return cmocka_run_group_tests_name("hello", tests, NULL, NULL);
}
