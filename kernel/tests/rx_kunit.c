// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE KUnit suite metaroce_rx: device B's receive path fed crafted
 * packets (placement, duplicates, SACK, probes, every drop counter).
 */

#include <linux/inet.h>
#include <linux/ip.h>
#include <linux/skbuff.h>

#include "kunit_fixture.h"

#define MRT_PEER_QPN	0x777

/* Counters that must not move unless a case says so. */
static const enum mroce_counter mrt_drop_cnts[] = {
	MROCE_CNT_ICRC_DROPS, MROCE_CNT_MALFORMED_DROPS,
	MROCE_CNT_VERSION_DROPS, MROCE_CNT_QPN_DROPS, MROCE_CNT_SRC_DROPS,
	MROCE_CNT_DUP_DROPS,
	MROCE_CNT_WINDOW_DROPS, MROCE_CNT_RKEY_VIOLATIONS,
	MROCE_CNT_NACK_TX_SEQ_ERR, MROCE_CNT_NACK_TX_REM_ACCESS,
};

struct mrt_rx {
	struct mrt_ep b;	/* on device B, peer = virtual QP 0x777 */
	u8 *buf;		/* target memory */
	u64 before[ARRAY_SIZE(mrt_drop_cnts)];
};

static void mrt_rx_snap(struct mrt_rx *rx)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(mrt_drop_cnts); i++)
		rx->before[i] = mroce_counter_read(mrt_db, mrt_drop_cnts[i]);
}

/* Exactly counters @c1 and @c2 (one each) moved since the snapshot. */
static void mrt_rx_expect(struct kunit *test, struct mrt_rx *rx,
			  enum mroce_counter c1, enum mroce_counter c2)
{
	u64 now, want;
	int i;

	for (i = 0; i < ARRAY_SIZE(mrt_drop_cnts); i++) {
		now = mroce_counter_read(mrt_db, mrt_drop_cnts[i]);
		want = rx->before[i] + (mrt_drop_cnts[i] == c1 ||
					mrt_drop_cnts[i] == c2);
		KUNIT_EXPECT_EQ_MSG(test, now, want, "counter %d",
				    mrt_drop_cnts[i]);
	}
	mrt_rx_snap(rx);
}

static void mrt_rx_init(struct kunit *test, struct mrt_rx *rx)
{
	mrt_ep_init(test, &rx->b, mrt_db);
	KUNIT_ASSERT_GE(test, mrt_gb, 0);
	KUNIT_ASSERT_EQ(test, mrt_to_init(rx->b.qp), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rtr(rx->b.qp, MRT_PEER_QPN, mrt_gb,
					 MRT_IP_A, 0), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rts(rx->b.qp), 0);
	rx->buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rx->buf);
	mrt_rx_snap(rx);
}

/* A one-packet WRITE of @len bytes of @payload to rx->buf from the peer. */
static void mrt_rx_write(struct mrt_rx *rx, struct mr_pkt *p, u32 psn,
			 u32 msn, u32 len, const u8 *payload)
{
	memset(p, 0, sizeof(*p));
	p->opcode = MR_OP_WRITE;
	p->flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
	p->dqpn = rx->b.qp->qp_num;
	p->sqpn = MRT_PEER_QPN;
	p->psn = psn;
	p->dxh.msn = msn;
	p->dxh.msg_len = len;
	p->rxh.va = (uintptr_t)rx->buf;
	p->rxh.rkey = rx->b.pd->unsafe_global_rkey;
	p->payload = payload;
	p->payload_len = len;
}

/* Encode @p, @mangle it and feed it to device B's receive path. */
static void mrt_rx_feed(struct kunit *test, const struct mr_pkt *p,
			void (*mangle)(u8 *buf, u32 *len), const char *from)
{
	struct sk_buff *skb = mrt_craft_skb(test, p, from, MRT_IP_B, mangle,
					    PACKET_HOST);

	local_bh_disable();
	mroce_rcv(mrt_db, skb, MR_ENTROPY_BASE);
	local_bh_enable();
}

static void mrt_flip_payload(u8 *buf, u32 *len)
{
	buf[*len - MR_ICRC_LEN - 1] ^= 0x40;
}

static void mrt_bad_version(u8 *buf, u32 *len)
{
	buf[0] = 0x20;
	mr_icrc_put(buf, *len - MR_ICRC_LEN);
}

static void mrt_truncate(u8 *buf, u32 *len)
{
	*len = MR_MBH_LEN + 2;
}

static void mrt_rx_crafted(struct kunit *test)
{
	struct mrt_rx rx = {};
	u8 data[64], zero[64] = {};
	struct mr_pkt p;
	u32 psn = MRT_PSN;

	mrt_rx_init(test, &rx);
	mrt_fill(data, sizeof(data), 11);

	/* A good packet is placed and counted nowhere else. */
	mrt_rx_write(&rx, &p, psn, 0, 64, data);
	mrt_rx_feed(test, &p, NULL, MRT_IP_A);
	KUNIT_EXPECT_EQ(test, memcmp(rx.buf, data, 64), 0);
	mrt_rx_expect(test, &rx, -1, -1);

	/* Duplicate: dropped, counted, never placed twice. */
	memset(rx.buf, 0, 64);
	mrt_rx_feed(test, &p, NULL, MRT_IP_A);
	KUNIT_EXPECT_EQ(test, memcmp(rx.buf, zero, 64), 0);
	mrt_rx_expect(test, &rx, MROCE_CNT_DUP_DROPS, -1);

	/* Out of order: PSN+2 first is placed, the ACK carries a SACK. */
	{
		u64 sack = mroce_counter_read(mrt_db, MROCE_CNT_SACK_TX);

		memset(rx.buf, 0, 128);
		mrt_rx_write(&rx, &p, psn + 2, 2, 64, data);
		p.rxh.va = (uintptr_t)rx.buf + 64;
		mrt_rx_feed(test, &p, NULL, MRT_IP_A);
		KUNIT_EXPECT_EQ(test, memcmp(rx.buf + 64, data, 64), 0);
		/* Held to the end of the batch, the timer's (MR-REL-3). */
		KUNIT_EXPECT_EQ(test, mrt_wait_counter(mrt_db,
						       MROCE_CNT_SACK_TX,
						       sack + 1),
				sack + 1);
		mrt_rx_expect(test, &rx, -1, -1);
		/* The hole is filled; both messages complete in order. */
		mrt_rx_write(&rx, &p, psn + 1, 1, 64, data);
		mrt_rx_feed(test, &p, NULL, MRT_IP_A);
		KUNIT_EXPECT_EQ(test, memcmp(rx.buf, data, 64), 0);
		mrt_rx_expect(test, &rx, -1, -1);
		memset(rx.buf, 0, 128);
		psn += 2;
	}

	/* A PROBE is answered with a PROBE_REPLY (MR-MP-10), nothing else. */
	{
		u64 tx = mroce_counter_read(mrt_db, MROCE_CNT_TX_PKTS);
		struct mr_pkt probe = {
			.opcode = MR_OP_PROBE, .path = 5,
			.dqpn = rx.b.qp->qp_num, .sqpn = MRT_PEER_QPN,
			.psn = 77, .ts = 1234,
		};

		mrt_rx_feed(test, &probe, NULL, MRT_IP_A);
		KUNIT_EXPECT_EQ(test, mroce_counter_read(mrt_db,
							 MROCE_CNT_TX_PKTS),
				tx + 1);
		mrt_rx_expect(test, &rx, -1, -1);
	}

	/* Bad ICRC, wrong version, truncated: codec-level drops. */
	mrt_rx_write(&rx, &p, psn + 1, 3, 64, data);
	mrt_rx_feed(test, &p, mrt_flip_payload, MRT_IP_A);
	mrt_rx_expect(test, &rx, MROCE_CNT_ICRC_DROPS, -1);
	mrt_rx_feed(test, &p, mrt_bad_version, MRT_IP_A);
	mrt_rx_expect(test, &rx, MROCE_CNT_VERSION_DROPS, -1);
	mrt_rx_feed(test, &p, mrt_truncate, MRT_IP_A);
	mrt_rx_expect(test, &rx, MROCE_CNT_MALFORMED_DROPS, -1);
	KUNIT_EXPECT_EQ(test, memcmp(rx.buf, zero, 64), 0);

	/* MR-MAL-4: a payload over the 1024-byte path MTU, never placed. */
	{
		u8 *big = kunit_kzalloc(test, 2048, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, big);
		memset(big, 0xa5, 2048);
		mrt_rx_write(&rx, &p, psn + 1, 3, 2048, big);
		mrt_rx_feed(test, &p, NULL, MRT_IP_A);
		mrt_rx_expect(test, &rx, MROCE_CNT_MALFORMED_DROPS, -1);
		KUNIT_EXPECT_EQ(test, memcmp(rx.buf, zero, 64), 0);
	}

	/* Unknown QPN, wrong source QPN, wrong source address. */
	p.dqpn = 0xfffff0;
	mrt_rx_feed(test, &p, NULL, MRT_IP_A);
	mrt_rx_expect(test, &rx, MROCE_CNT_QPN_DROPS, -1);
	mrt_rx_write(&rx, &p, psn + 1, 3, 64, data);
	p.sqpn = MRT_PEER_QPN + 1;
	mrt_rx_feed(test, &p, NULL, MRT_IP_A);
	mrt_rx_expect(test, &rx, MROCE_CNT_SRC_DROPS, -1);
	mrt_rx_write(&rx, &p, psn + 1, 3, 64, data);
	mrt_rx_feed(test, &p, NULL, "192.0.2.99");
	mrt_rx_expect(test, &rx, MROCE_CNT_SRC_DROPS, -1);
	KUNIT_EXPECT_EQ(test, memcmp(rx.buf, zero, 64), 0);

	/* Beyond the window: dropped, counted, NACK SEQ_ERR. */
	mrt_rx_write(&rx, &p, (psn + 1 + MR_WINDOW) & MR_PSN_MASK, 3, 64,
		     data);
	mrt_rx_feed(test, &p, NULL, MRT_IP_A);
	mrt_rx_expect(test, &rx, MROCE_CNT_WINDOW_DROPS,
		      MROCE_CNT_NACK_TX_SEQ_ERR);
	KUNIT_EXPECT_EQ(test, memcmp(rx.buf, zero, 64), 0);

	/* Bad rkey: NACK REMOTE_ACCESS, counted, nothing placed. */
	mrt_rx_write(&rx, &p, psn + 1, 3, 64, data);
	p.rxh.rkey ^= 0x3c;
	mrt_rx_feed(test, &p, NULL, MRT_IP_A);
	mrt_rx_expect(test, &rx, MROCE_CNT_RKEY_VIOLATIONS,
		      MROCE_CNT_NACK_TX_REM_ACCESS);
	KUNIT_EXPECT_EQ(test, memcmp(rx.buf, zero, 64), 0);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(rx.b.qp), IB_QPS_ERR);

	mrt_ep_free(&rx.b);
}

static struct kunit_case mrt_rx_cases[] = {
	KUNIT_CASE(mrt_rx_crafted),
	{}
};

static struct kunit_suite mrt_rx_suite = {
	.name = "metaroce_rx",
	.suite_init = mrt_rc_suite_init,
	.suite_exit = mrt_rc_suite_exit,
	.test_cases = mrt_rx_cases,
};

kunit_test_suite(mrt_rx_suite);
