// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE KUnit suite metaroce_hostile: crafted packets from a hostile
 * peer and hostile work requests from a kernel consumer, against the
 * spec's answers: bounded work per packet, replays only within what the
 * original covered, the error point, timestamps, rate limits, trimmed
 * payloads never placed, every receive WQE completed, SRQ WQEs given
 * back, addresses checked, forged ACKs refused.
 *
 * Two kinds of fixture: a genuine pair of QPs (device A <-> device B)
 * into which forged packets are injected as if from A, and one QP
 * connected to a virtual peer (QPN 0x777 at the other device's address)
 * that only this suite's crafted packets play.
 */

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/vmalloc.h>

#include "kunit_fixture.h"
#include "resp.h"

#define MRT_VPEER	0x777	/* the virtual peer's QPN */
#define MRT_MTU		1024	/* path MTU of the fixture (mrt_to_rtr) */

/*
 * Hand @p to @dev's receive path (see mrt_craft_skb()); returns the number
 * of packets @dev transmitted during that call, which runs as a softirq
 * would: the work of one receive pass, not of what it hands on.
 */
static u64 mrt_h_feed(struct kunit *test, struct mroce_dev *dev,
		      const struct mr_pkt *p, const char *from, const char *to,
		      void (*mangle)(u8 *buf, u32 *len), u8 pkt_type)
{
	struct sk_buff *skb = mrt_craft_skb(test, p, from, to, mangle,
					    pkt_type);
	u64 tx;

	local_bh_disable();
	tx = mroce_counter_read(dev, MROCE_CNT_TX_PKTS);
	mroce_rcv(dev, skb, MR_ENTROPY_BASE);
	tx = mroce_counter_read(dev, MROCE_CNT_TX_PKTS) - tx;
	local_bh_enable();
	return tx;
}

/* To device B from device A's address, as the genuine peer would. */
static u64 mrt_h_to_b(struct kunit *test, const struct mr_pkt *p)
{
	return mrt_h_feed(test, mrt_db, p, MRT_IP_A, MRT_IP_B, NULL,
			  PACKET_HOST);
}

static void mrt_h_trim(u8 *buf, u32 *len)
{
	/* TRIM set by a switch: the ICRC no longer matches (MR-ICRC-5). */
	buf[3] |= MR_F_TRIM;
	buf[*len - 1] ^= 0x5a;
}

/* One QP on @dev connected to the virtual peer at @peer_ip. */
static void mrt_h_vpeer(struct kunit *test, struct mrt_ep *ep,
			struct mroce_dev *dev, int gid, const char *peer_ip)
{
	mrt_ep_init(test, ep, dev);
	KUNIT_ASSERT_GE(test, gid, 0);
	KUNIT_ASSERT_EQ(test, mrt_to_init(ep->qp), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rtr(ep->qp, MRT_VPEER, gid, peer_ip, 0),
			0);
	KUNIT_ASSERT_EQ(test, mrt_to_rts(ep->qp), 0);
}

/* A request of @op from the virtual peer (or @from_qpn) to @to. */
static void mrt_h_req(struct mr_pkt *p, u8 op, struct ib_qp *to, u32 from_qpn,
		      u32 psn, u32 msn, u32 ts)
{
	memset(p, 0, sizeof(*p));
	p->opcode = op;
	p->flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
	p->dqpn = to->qp_num;
	p->sqpn = from_qpn;
	p->psn = psn & MR_PSN_MASK;
	p->ts = ts;
	p->dxh.msn = msn;
}

/* The MBH.ts @qp's own clock gives now (what its packets carry). */
static u32 mrt_h_ts(struct ib_qp *qp)
{
	return mroce_qp_ts(to_mqp(qp), mroce_now());
}

/* An ACK from the virtual peer to @qp up to @cum_psn, echoing @ts_echo. */
static void mrt_h_ack(struct mr_pkt *p, struct ib_qp *qp, u32 cum_psn,
		      u32 ts_echo)
{
	memset(p, 0, sizeof(*p));
	p->opcode = MR_OP_ACK;
	p->dqpn = qp->qp_num;
	p->sqpn = MRT_VPEER;
	p->akh.cum_psn = cum_psn & MR_PSN_MASK;
	p->akh.credit = MR_CREDIT_UNLIMITED;
	p->akh.ts_echo = ts_echo;
}

/* The virtual peer's READ_RESP to @qp's READ of @msg_len (msn 0), whole. */
static void mrt_h_read_resp(struct mr_pkt *p, struct ib_qp *qp, u32 psn,
			    u32 msg_len, const u8 *data)
{
	memset(p, 0, sizeof(*p));
	p->opcode = MR_OP_READ_RESP;
	p->flags = MR_F_FIRST | MR_F_LAST;
	p->dqpn = qp->qp_num;
	p->sqpn = MRT_VPEER;
	p->psn = psn;
	p->dxh.msg_len = msg_len;
	p->payload = data;
	p->payload_len = msg_len;
}

static u64 mrt_h_cnt(struct mroce_dev *dev, enum mroce_counter c)
{
	return mroce_counter_read(dev, c);
}

/* Poll one completion and check its id and status. */
static void mrt_h_expect_wc(struct kunit *test, struct mrt_ep *ep, u64 wr_id,
			    enum ib_wc_status status)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, mrt_poll(ep, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr_id);
	KUNIT_EXPECT_EQ_MSG(test, wc.status, status, "wr %llu: %s", wr_id,
			    ib_wc_status_msg(wc.status));
}

/* Nothing completes within @ms. */
static void mrt_h_expect_none(struct kunit *test, struct mrt_ep *ep, int ms)
{
	struct ib_wc wc;

	msleep(ms);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(ep->cq, 1, &wc), 0);
}

/*
 * MR-REL-8, MR-SEC-9 (the field case): the requester's initial PSN is
 * replayed with MSN 0, asking for a whole large region. The responder
 * answers only within what the original READ covered, builds a bounded
 * number of packets in the receive softirq, and the genuine QP lives on.
 * Before, the replay re-read the range it named: 8 MiB here was 8192
 * READ_RESPs built in one softirq pass.
 */
static void mrt_h_read_replay(struct kunit *test)
{
	const u32 big = 8 << 20, len = 4096;
	struct mrt_ep a = {}, b = {};
	u8 *region, *dst;
	struct mr_pkt p;
	u64 tx, drops;

	region = vzalloc(big);
	KUNIT_ASSERT_NOT_NULL(test, region);
	dst = kunit_kzalloc(test, 2 * len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	mrt_fill(region, len, 7);
	mrt_connect2(test, &a, &b, mrt_da, mrt_db, mrt_ga, mrt_gb, MRT_IP_A,
		     MRT_IP_B);

	/* The genuine READ: PSN MRT_PSN, MSN 0, 4 KiB. */
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_READ, dst, len,
					    (uintptr_t)region,
					    b.pd->unsafe_global_rkey, 1), 0);
	mrt_h_expect_wc(test, &a, 1, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(dst, region, len), 0);

	/* Its replay asking for 8 MiB: refused, no burst. */
	drops = mrt_h_cnt(mrt_db, MROCE_CNT_REPLAY_DROPS);
	mrt_h_req(&p, MR_OP_READ_REQ, b.qp, a.qp->qp_num, MRT_PSN, 0,
		  mrt_h_ts(a.qp));
	p.rxh.va = (uintptr_t)region;
	p.rxh.rkey = b.pd->unsafe_global_rkey;
	p.dxh.msg_len = big;
	tx = mrt_h_to_b(test, &p);
	KUNIT_EXPECT_LE(test, tx, 1ULL);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_REPLAY_DROPS),
			drops + 1);
	/* Another range of the region, or another address: the same. */
	p.dxh.offset = len;
	p.dxh.msg_len = len;
	KUNIT_EXPECT_LE(test, mrt_h_to_b(test, &p), 1ULL);
	p.dxh.offset = 0;
	p.rxh.va += len;
	KUNIT_EXPECT_LE(test, mrt_h_to_b(test, &p), 1ULL);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_REPLAY_DROPS),
			drops + 3);

	/* The genuine QP still works both ways. */
	mrt_fill(dst, len, 9);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, dst, len,
					    (uintptr_t)region + len,
					    b.pd->unsafe_global_rkey, 2), 0);
	mrt_h_expect_wc(test, &a, 2, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_READ, dst + len,
					    len, (uintptr_t)region + len,
					    b.pd->unsafe_global_rkey, 3), 0);
	mrt_h_expect_wc(test, &a, 3, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(dst + len, dst, len), 0);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(b.qp), IB_QPS_RTS);

	mrt_ep_free(&a);
	mrt_ep_free(&b);
	vfree(region);
}

/*
 * MR-SEC-9, MR-CC-19, MR-REL-31: a new READ_REQ is answered a bounded
 * number of packets per softirq pass, the rest from the QP's own
 * context; one asking for more than 64 KiB is an invalid request (error
 * point, NACK INVALID_REQ) and costs nothing else. Before, the 8 MiB
 * request built 8192 packets in the softirq.
 */
static void mrt_h_read_bounded(struct kunit *test)
{
	const u32 big = 8 << 20, len = 64 << 10;
	struct mrt_ep b = {};
	u32 ts = 0x40000000;
	u8 *region;
	struct mr_pkt p;
	u64 tx0, tx, nack;

	region = vzalloc(big);
	KUNIT_ASSERT_NOT_NULL(test, region);
	mrt_h_vpeer(test, &b, mrt_db, mrt_gb, MRT_IP_A);

	tx0 = mrt_h_cnt(mrt_db, MROCE_CNT_TX_PKTS);
	mrt_h_req(&p, MR_OP_READ_REQ, b.qp, MRT_VPEER, MRT_PSN, 0, ts);
	p.rxh.va = (uintptr_t)region;
	p.rxh.rkey = b.pd->unsafe_global_rkey;
	p.dxh.msg_len = len;
	tx = mrt_h_to_b(test, &p);
	/* At most 16 READ_RESPs and an ACK in the softirq ... */
	KUNIT_EXPECT_LE(test, tx, 17ULL);
	/* ... and all 64 of them soon after. */
	KUNIT_EXPECT_GE(test, mrt_wait_counter(mrt_db, MROCE_CNT_TX_PKTS,
					       tx0 + len / MRT_MTU),
			tx0 + len / MRT_MTU);

	nack = mrt_h_cnt(mrt_db, MROCE_CNT_NACK_TX_INV_REQ);
	mrt_h_req(&p, MR_OP_READ_REQ, b.qp, MRT_VPEER, MRT_PSN + 1, 1,
		  ts + 10);
	p.rxh.va = (uintptr_t)region;
	p.rxh.rkey = b.pd->unsafe_global_rkey;
	p.dxh.msg_len = big;
	KUNIT_EXPECT_LE(test, mrt_h_to_b(test, &p), 1ULL);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_NACK_TX_INV_REQ),
			nack + 1);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(b.qp), IB_QPS_ERR);

	mrt_ep_free(&b);
	vfree(region);
}

/*
 * MR-WIN-6: a request whose timestamp lies more than stale_age before the
 * newest accepted one, or further ahead than the time since allows, is
 * dropped and counted (stale) and places nothing. Before, timestamps
 * were not checked at all.
 */
static void mrt_h_timestamps(struct kunit *test)
{
	static const s32 bad[] = { 10000000, -1000000, 0x40000000 };
	u8 data[64], zero[64] = {};
	struct mrt_ep b = {};
	u32 ts = 0x40000000, psn = MRT_PSN;
	u8 *buf;
	struct mr_pkt p;
	u64 stale;
	int i;

	buf = kunit_kzalloc(test, sizeof(data), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	mrt_fill(data, sizeof(data), 3);
	mrt_h_vpeer(test, &b, mrt_db, mrt_gb, MRT_IP_A);

	mrt_h_req(&p, MR_OP_WRITE, b.qp, MRT_VPEER, psn, 0, ts);
	p.rxh.va = (uintptr_t)buf;
	p.rxh.rkey = b.pd->unsafe_global_rkey;
	p.dxh.msg_len = sizeof(data);
	p.payload = data;
	p.payload_len = sizeof(data);
	mrt_h_to_b(test, &p);
	KUNIT_EXPECT_EQ(test, memcmp(buf, data, sizeof(data)), 0);

	stale = mrt_h_cnt(mrt_db, MROCE_CNT_STALE_DROPS) +
		mrt_h_cnt(mrt_db, MROCE_CNT_FUTURE_DROPS);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(buf, 0, sizeof(data));
		p.psn = ++psn;
		p.dxh.msn = psn - MRT_PSN;
		p.ts = ts + bad[i];
		mrt_h_to_b(test, &p);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(buf, zero, sizeof(data)), 0,
				    "ts offset %d placed", bad[i]);
		psn--;
	}
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_STALE_DROPS) +
			mrt_h_cnt(mrt_db, MROCE_CNT_FUTURE_DROPS),
			stale + ARRAY_SIZE(bad));
	/* The same packet with a plausible timestamp is placed. */
	p.psn = ++psn;
	p.dxh.msn = psn - MRT_PSN;
	p.ts = ts + 2000;
	mrt_h_to_b(test, &p);
	KUNIT_EXPECT_EQ(test, memcmp(buf, data, sizeof(data)), 0);

	mrt_ep_free(&b);
}

/*
 * MR-VERBS-24, MR-REL-18, MR-VERBS-22: a READ_REQ with a bad R_Key
 * forged 8 PSNs ahead of the requester, inside the window. The
 * responder keeps it as its error point: the 8 messages before it
 * complete at both ends, the one at it fails with REM_ACCESS_ERR (the
 * NACK names cum_psn), the rest flush. Before, the NACK left at once
 * with nack_psn != cum_psn, the requester ignored it, and the QP ended
 * in RETRY_EXC_ERR with nothing completed.
 */
static void mrt_h_fatal_ahead(struct kunit *test)
{
	struct mrt_ep a = {}, b = {};
	struct mr_pkt p;
	u8 *src, *dst;
	int i;

	src = kunit_kzalloc(test, 64, GFP_KERNEL);
	dst = kunit_kzalloc(test, 10 * 64, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, src && dst);
	mrt_fill(src, 64, 5);
	mrt_connect2(test, &a, &b, mrt_da, mrt_db, mrt_ga, mrt_gb, MRT_IP_A,
		     MRT_IP_B);

	mrt_h_req(&p, MR_OP_READ_REQ, b.qp, a.qp->qp_num, MRT_PSN + 8, 8,
		  mrt_h_ts(a.qp));
	p.rxh.va = (uintptr_t)dst;
	p.rxh.rkey = b.pd->unsafe_global_rkey ^ 0x5a;
	p.dxh.msg_len = 64;
	mrt_h_to_b(test, &p);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(b.qp), IB_QPS_RTS);

	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, src,
						    64, (uintptr_t)dst + i * 64,
						    b.pd->unsafe_global_rkey,
						    i), 0);
	for (i = 0; i < 8; i++)
		mrt_h_expect_wc(test, &a, i, IB_WC_SUCCESS);
	mrt_h_expect_wc(test, &a, 8, IB_WC_REM_ACCESS_ERR);
	mrt_h_expect_wc(test, &a, 9, IB_WC_WR_FLUSH_ERR);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, memcmp(dst + i * 64, src, 64), 0);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(b.qp), IB_QPS_ERR);

	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

/*
 * MR-ICRC-5, MR-REL-16: a trimmed READ_RESP is never placed (its ICRC
 * cannot be checked): the READ asks for the range again at once, and
 * completes with the data of a valid response. A trimmed UD datagram is
 * dropped. Before, both payloads were placed.
 */
static void mrt_h_trimmed(struct kunit *test)
{
	struct mrt_ep a = {};
	u8 *dst, *junk, *data;
	struct mr_pkt p;
	u64 trims, tx;

	dst = kunit_kzalloc(test, MRT_MTU, GFP_KERNEL);
	junk = kunit_kzalloc(test, MRT_MTU, GFP_KERNEL);
	data = kunit_kzalloc(test, MRT_MTU, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, dst && junk && data);
	memset(junk, 0xee, MRT_MTU);
	mrt_fill(data, MRT_MTU, 11);
	/* A's READ goes to the virtual peer: nobody answers but us. */
	mrt_h_vpeer(test, &a, mrt_da, mrt_ga, MRT_IP_B);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_READ, dst, MRT_MTU,
					    0x1000, 0x1234, 1), 0);
	msleep(20);
	/* The peer acknowledges the READ_REQ: its data is what is owed. */
	mrt_h_ack(&p, a.qp, MRT_PSN + 1, mrt_h_ts(a.qp) - 1000);
	mrt_h_feed(test, mrt_da, &p, MRT_IP_B, MRT_IP_A, NULL, PACKET_HOST);
	KUNIT_ASSERT_EQ(test, to_mqp(a.qp)->req->rq.snd.sb.una,
			(MRT_PSN + 1) & MR_PSN_MASK);

	trims = mrt_h_cnt(mrt_da, MROCE_CNT_TRIM_DROPS);
	tx = mrt_h_cnt(mrt_da, MROCE_CNT_TX_PKTS);
	mrt_h_read_resp(&p, a.qp, MRT_PSN, MRT_MTU, junk);
	mrt_h_feed(test, mrt_da, &p, MRT_IP_B, MRT_IP_A, mrt_h_trim,
		   PACKET_HOST);
	KUNIT_EXPECT_NULL(test, memchr_inv(dst, 0, MRT_MTU));
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_da, MROCE_CNT_TRIM_DROPS),
			trims + 1);
	mrt_h_expect_none(test, &a, 20);
	/* Asked again without waiting for an RTO. */
	KUNIT_EXPECT_GT(test, mrt_wait_counter(mrt_da, MROCE_CNT_TX_PKTS,
					       tx + 1), tx);

	/* The answer to the re-request (its PSN) completes the READ. */
	p.payload = data;
	p.psn = (MRT_PSN + 1) & MR_PSN_MASK;
	mrt_h_feed(test, mrt_da, &p, MRT_IP_B, MRT_IP_A, NULL, PACKET_HOST);
	mrt_h_expect_wc(test, &a, 1, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(dst, data, MRT_MTU), 0);
	mrt_ep_free(&a);
}

/*
 * MR-MAL-4: a READ_RESP larger than the path MTU is dropped and counted,
 * even when every byte of it lies in the READ's range; pieces of the
 * path MTU then complete the READ. Before, it was placed whole.
 */
static void mrt_h_read_resp_oversize(struct kunit *test)
{
	const u32 len = 2 * MRT_MTU;
	struct mrt_ep a = {};
	u8 *dst, *data;
	struct mr_pkt p;
	u64 bad;
	u32 k;

	dst = kunit_kzalloc(test, len, GFP_KERNEL);
	data = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, dst && data);
	mrt_fill(data, len, 17);
	mrt_h_vpeer(test, &a, mrt_da, mrt_ga, MRT_IP_B);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_READ, dst, len,
					    0x1000, 0x1234, 1), 0);
	msleep(20);

	bad = mrt_h_cnt(mrt_da, MROCE_CNT_MALFORMED_DROPS);
	mrt_h_read_resp(&p, a.qp, MRT_PSN, len, data);
	mrt_h_feed(test, mrt_da, &p, MRT_IP_B, MRT_IP_A, NULL, PACKET_HOST);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_da, MROCE_CNT_MALFORMED_DROPS),
			bad + 1);
	KUNIT_EXPECT_NULL(test, memchr_inv(dst, 0, len));
	mrt_h_expect_none(test, &a, 20);

	p.payload_len = MRT_MTU;
	for (k = 0; k < 2; k++) {
		p.flags = k ? MR_F_LAST : MR_F_FIRST;
		p.dxh.offset = k * MRT_MTU;
		p.payload = data + k * MRT_MTU;
		mrt_h_feed(test, mrt_da, &p, MRT_IP_B, MRT_IP_A, NULL,
			   PACKET_HOST);
	}
	mrt_h_expect_wc(test, &a, 1, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(dst, data, len), 0);
	mrt_ep_free(&a);
}

/*
 * The READ_REQs in @tap from @qp, in the order sent, except copies of the
 * one with PSN @not_psn (its own retransmissions).
 */
static u32 mrt_h_tap_reads(struct mrt_tap *tap, struct ib_qp *qp,
			   u32 not_psn, struct mrt_tap_pkt *out, u32 max)
{
	u32 i, n = 0;

	spin_lock_bh(&tap->lock);
	for (i = 0; i < tap->n; i++) {
		if (tap->pkt[i].opcode != MR_OP_READ_REQ ||
		    tap->pkt[i].sqpn != qp->qp_num ||
		    tap->pkt[i].psn == not_psn)
			continue;
		if (n < max)
			out[n++] = tap->pkt[i];
	}
	spin_unlock_bh(&tap->lock);
	return n;
}

/*
 * MR-REL-24: a READ whose responses stall asks again for exactly the
 * missing PMTU pieces, one READ_REQ per maximal run, the READ's MSN,
 * offset and length of the run, each under a new PSN - seen on the wire.
 * Before, it asked for everything from the first missing byte to the end
 * of the range in one READ_REQ, and the responder sent again what had
 * arrived.
 */
static void mrt_h_read_gaps(struct kunit *test)
{
	static const u32 lost[][2] = { { 2, 1 }, { 5, 2 } };	/* chunk, count */
	const u32 n = 8, len = n * MRT_MTU;
	struct mrt_tap_pkt req, again[4];
	struct mrt_ep a = {};
	struct mrt_tap *tap;
	u8 *dst, *data;
	struct mr_pkt p;
	u32 k, i, got = 0;

	dst = kunit_kzalloc(test, len, GFP_KERNEL);
	data = kunit_kzalloc(test, len, GFP_KERNEL);
	tap = kunit_kzalloc(test, sizeof(*tap), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, dst && data && tap);
	mrt_fill(data, len, 13);
	mrt_h_vpeer(test, &a, mrt_da, mrt_ga, MRT_IP_B);
	mrt_tap_start(tap, mrt_da);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_READ, dst, len,
					    0x1000, 0x1234, 1), 0);
	for (i = 0; i < 50 && !mrt_h_tap_reads(tap, a.qp, MR_PSN_MASK + 1,
					       &req, 1); i++)
		msleep(20);
	KUNIT_ASSERT_EQ(test, mrt_h_tap_reads(tap, a.qp, MR_PSN_MASK + 1,
					      &req, 1), 1);
	KUNIT_EXPECT_EQ(test, req.offset, 0);
	KUNIT_EXPECT_EQ(test, req.msg_len, len);

	/* The virtual peer answers all but chunks 2, 5 and 6. */
	memset(&p, 0, sizeof(p));
	p.opcode = MR_OP_READ_RESP;
	p.dqpn = a.qp->qp_num;
	p.sqpn = MRT_VPEER;
	p.psn = req.psn;
	p.dxh.msn = req.msn;
	p.dxh.msg_len = len;
	p.payload_len = MRT_MTU;
	for (k = 0; k < n; k++) {
		if (k == lost[0][0] ||
		    (k >= lost[1][0] && k < lost[1][0] + lost[1][1]))
			continue;
		p.flags = (k ? 0 : MR_F_FIRST) | (k == n - 1 ? MR_F_LAST : 0);
		p.dxh.offset = k * MRT_MTU;
		p.payload = data + k * MRT_MTU;
		mrt_h_feed(test, mrt_da, &p, MRT_IP_B, MRT_IP_A, NULL,
			   PACKET_HOST);
	}
	mrt_h_expect_none(test, &a, 20);

	/*
	 * One READ_REQ per missing run: reo_wnd after a piece above it
	 * arrived (RACK; a run may open after the other was asked for) or
	 * after an RTO without progress.
	 */
	for (i = 0; i < 150 && got < 2; i++) {
		msleep(20);
		got = mrt_h_tap_reads(tap, a.qp, req.psn, again,
				      ARRAY_SIZE(again));
	}
	KUNIT_ASSERT_GE(test, got, 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, again[i].msn, req.msn);
		KUNIT_EXPECT_EQ(test, again[i].offset, lost[i][0] * MRT_MTU);
		KUNIT_EXPECT_EQ(test, again[i].msg_len, lost[i][1] * MRT_MTU);
		KUNIT_EXPECT_NE(test, again[i].psn, req.psn);
		KUNIT_EXPECT_TRUE(test, again[i].flags & MR_F_RETX);
	}
	KUNIT_EXPECT_NE(test, again[0].psn, again[1].psn);

	/* Their answers complete the READ with every byte in place. */
	for (i = 0; i < 2; i++)
		for (k = lost[i][0]; k < lost[i][0] + lost[i][1]; k++) {
			p.psn = again[i].psn;
			p.flags = k == n - 1 ? MR_F_LAST : 0;
			p.dxh.offset = k * MRT_MTU;
			p.payload = data + k * MRT_MTU;
			mrt_h_feed(test, mrt_da, &p, MRT_IP_B, MRT_IP_A, NULL,
				   PACKET_HOST);
		}
	mrt_h_expect_wc(test, &a, 1, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(dst, data, len), 0);
	mrt_tap_stop(tap);
	mrt_ep_free(&a);
}

/*
 * MR-VERBS-21, MR-VERBS-16: a SEND_INV whose R_Key this QP may not
 * invalidate gets NACK INVALID_REQ, and its receive WQE completes with
 * REM_INV_REQ_ERR before the others flush. Before, the WQE was consumed
 * without a completion and no NACK was sent.
 */
static void mrt_h_send_inv(struct kunit *test)
{
	u8 data[32];
	struct mrt_ep b = {};
	struct mr_pkt p;
	u8 *buf;
	u64 nack;

	buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	mrt_fill(data, sizeof(data), 1);
	mrt_h_vpeer(test, &b, mrt_db, mrt_gb, MRT_IP_A);
	KUNIT_ASSERT_EQ(test, mrt_post_recv(&b, buf, 128, 40), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_recv(&b, buf + 128, 128, 41), 0);

	nack = mrt_h_cnt(mrt_db, MROCE_CNT_NACK_TX_INV_REQ);
	mrt_h_req(&p, MR_OP_SEND_INV, b.qp, MRT_VPEER, MRT_PSN, 0, 0x100);
	p.inv_rkey = 0x12345678;
	p.dxh.msg_len = sizeof(data);
	p.payload = data;
	p.payload_len = sizeof(data);
	mrt_h_to_b(test, &p);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_NACK_TX_INV_REQ),
			nack + 1);
	mrt_h_expect_wc(test, &b, 40, IB_WC_REM_INV_REQ_ERR);
	mrt_h_expect_wc(test, &b, 41, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(b.qp), IB_QPS_ERR);
	mrt_ep_free(&b);
}

struct mrt_h_srq_ep {
	struct mrt_ep ep;
	int last_wqe;		/* IB_EVENT_QP_LAST_WQE_REACHED seen */
};

static void mrt_h_srq_event(struct ib_event *ev, void *ctx)
{
	struct mrt_h_srq_ep *e = ctx;

	if (ev->event == IB_EVENT_QP_LAST_WQE_REACHED)
		e->last_wqe++;
}

/* A QP on @srq, connected to the virtual peer with QPN @peer. */
static void mrt_h_srq_qp(struct kunit *test, struct mrt_h_srq_ep *e,
			 struct ib_pd *pd, struct ib_cq *cq,
			 struct ib_srq *srq, u32 peer)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
		.send_cq = cq, .recv_cq = cq, .srq = srq,
		.event_handler = mrt_h_srq_event, .qp_context = e,
	};

	e->ep.dev = mrt_db;
	e->ep.pd = pd;
	e->ep.cq = cq;
	e->ep.qp = ib_create_qp(pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(e->ep.qp));
	KUNIT_ASSERT_EQ(test, mrt_to_init(e->ep.qp), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rtr(e->ep.qp, peer, mrt_gb, MRT_IP_A, 0),
			0);
	KUNIT_ASSERT_EQ(test, mrt_to_rts(e->ep.qp), 0);
}

static void mrt_h_srq_post(struct kunit *test, struct ib_srq *srq,
			   struct ib_pd *pd, u8 *buf, int n, u64 id0)
{
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = {};
	struct ib_sge sge;
	int i;

	wr.sg_list = &sge;
	wr.num_sge = 1;
	for (i = 0; i < n; i++) {
		sge = (struct ib_sge){ (uintptr_t)buf + i * 64, 64,
				       pd->local_dma_lkey };
		wr.wr_id = id0 + i;
		KUNIT_ASSERT_EQ(test, ib_post_srq_recv(srq, &wr, &bad), 0);
	}
}

/* A one-packet SEND of 16 bytes from virtual peer @peer to @qp. */
static void mrt_h_srq_send(struct kunit *test, struct ib_qp *qp, u32 peer,
			   u32 psn, u32 ssn)
{
	static u8 data[16];
	struct mr_pkt p;

	mrt_h_req(&p, MR_OP_SEND, qp, peer, psn, psn - MRT_PSN,
		  0x100 + psn - MRT_PSN);
	p.dxh.ssn = ssn;
	p.dxh.msg_len = sizeof(data);
	p.payload = data;
	p.payload_len = sizeof(data);
	mrt_h_to_b(test, &p);
}

/*
 * MR-VERBS-20: one SEND with an SSN 15 ahead of anything the peer can
 * have sent cannot bind the SRQ's WQEs; WQEs a QP bound and did not use
 * go back to the SRQ when it is destroyed; an errored QP raises
 * IB_EVENT_QP_LAST_WQE_REACHED. Before, that SEND bound all 16 WQEs to
 * one QP and they were flushed, a destroyed QP lost the ones it held,
 * and the event never came.
 */
static void mrt_h_srq(struct kunit *test)
{
	struct ib_srq_init_attr sinit = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ib_cq_init_attr cattr = { .cqe = 128 };
	struct mrt_h_srq_ep e1 = {}, e2 = {}, e3 = {};
	struct ib_srq *srq;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_wc wc;
	u8 *buf;
	int i;

	buf = kunit_kzalloc(test, 64 * 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	pd = ib_alloc_pd(&mrt_db->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	cq = ib_create_cq(&mrt_db->ibdev, NULL, NULL, NULL, &cattr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	srq = ib_create_srq(pd, &sinit);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	mrt_h_srq_post(test, srq, pd, buf, 16, 100);
	mrt_h_srq_qp(test, &e1, pd, cq, srq, MRT_VPEER);
	mrt_h_srq_qp(test, &e2, pd, cq, srq, MRT_VPEER + 1);
	mrt_h_srq_qp(test, &e3, pd, cq, srq, MRT_VPEER + 2);

	/* e1: SSN 15 at the first PSN: invalid, nothing bound. */
	mrt_h_srq_send(test, e1.ep.qp, MRT_VPEER, MRT_PSN, 15);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(e1.ep.qp), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, e1.last_wqe, 1);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 0);

	/* e3 binds 4 WQEs (SSN 3 at PSN +3) and is destroyed: they return. */
	mrt_h_srq_send(test, e3.ep.qp, MRT_VPEER + 2, MRT_PSN + 3, 3);
	ib_destroy_qp(e3.ep.qp);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 0);

	/* e2 receives 16 messages: all 16 WQEs are there. */
	for (i = 0; i < 16; i++)
		mrt_h_srq_send(test, e2.ep.qp, MRT_VPEER + 1, MRT_PSN + i, i);
	for (i = 0; i < 16; i++) {
		KUNIT_ASSERT_EQ_MSG(test, mrt_poll(&e2.ep, &wc), 1,
				    "message %d", i);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_PTR_EQ(test, wc.qp, e2.ep.qp);
	}

	ib_destroy_qp(e1.ep.qp);
	ib_destroy_qp(e2.ep.qp);
	ib_destroy_srq(srq);
	ib_destroy_cq(cq);
	ib_dealloc_pd(pd);
}

/*
 * MR-REL-10, MR-SEC-8: NACK SEQ_ERR for out-of-window requests and ACKs
 * for duplicates are rate-limited per QP (one per seq_err_interval;
 * duplicates a burst of 16 first), however fast they come. Before, each forged
 * packet got its answer: 200 NACKs of 84 bytes for 200 requests of 40.
 */
#define MRT_FLOOD	200

/*
 * Deliver the MRT_FLOOD skbs of @flood to @dev in one softirq-like pass
 * (no other work in between); returns the microseconds it took.
 */
static u64 mrt_h_flood(struct mroce_dev *dev, struct sk_buff **flood)
{
	u64 t0;
	int i;

	local_bh_disable();
	t0 = mroce_now();
	for (i = 0; i < MRT_FLOOD; i++)
		mroce_rcv(dev, flood[i], MR_ENTROPY_BASE);
	t0 = mroce_now() - t0;
	local_bh_enable();
	return div_u64(t0, 1000);
}

static void mrt_h_rate_limits(struct kunit *test)
{
	struct sk_buff **flood;
	struct mrt_ep b = {}, c = {};
	u32 ts = 0x40000000;
	struct mr_pkt p;
	u64 nack, ack, us;
	u8 *buf;
	int i;

	buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	flood = kunit_kcalloc(test, MRT_FLOOD, sizeof(*flood), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, buf && flood);
	mrt_h_vpeer(test, &b, mrt_db, mrt_gb, MRT_IP_A);
	mrt_h_req(&p, MR_OP_WRITE, b.qp, MRT_VPEER, MRT_PSN, 0, ts);
	p.rxh.va = (uintptr_t)buf;
	p.rxh.rkey = b.pd->unsafe_global_rkey;
	mrt_h_to_b(test, &p);	/* the genuine first packet */

	/*
	 * An interval of 10 ms, so that the flood comes faster than the
	 * limit on any machine (under emulation with KASAN one packet takes
	 * about 100 us, the default interval).
	 */
	KUNIT_ASSERT_EQ(test, mroce_param_set(&mrt_db->params,
					      MROCE_P_SEQ_ERR_US, 10000), 0);
	/* 200 out-of-window requests, as fast as one CPU takes them. */
	for (i = 0; i < MRT_FLOOD; i++) {
		p.psn = (MRT_PSN + 1000 + i) & MR_PSN_MASK;
		flood[i] = mrt_craft_skb(test, &p, MRT_IP_A, MRT_IP_B, NULL,
					 PACKET_HOST);
	}
	nack = mrt_h_cnt(mrt_db, MROCE_CNT_NACK_TX_SEQ_ERR);
	us = mrt_h_flood(mrt_db, flood);
	nack = mrt_h_cnt(mrt_db, MROCE_CNT_NACK_TX_SEQ_ERR) - nack;
	KUNIT_EXPECT_GE(test, nack, 1ULL);
	KUNIT_EXPECT_LE_MSG(test, nack, 1 + us / 10000, "in %llu us", us);

	/* 200 duplicates. */
	p.psn = MRT_PSN;
	for (i = 0; i < MRT_FLOOD; i++)
		flood[i] = mrt_craft_skb(test, &p, MRT_IP_A, MRT_IP_B, NULL,
					 PACKET_HOST);
	ack = mrt_h_cnt(mrt_db, MROCE_CNT_ACK_TX);
	us = mrt_h_flood(mrt_db, flood);
	/*
	 * One receive batch (ack_batch, the default): its ACKs held, one
	 * per ack_delay (the default, MR_RXWIN_DELACK_NS) of it at most and
	 * the last from ack_tasklet when the pass ends (MR-REL-3), within
	 * the answer rate (MR-SEC-8).
	 */
	ack = mrt_wait_counter(mrt_db, MROCE_CNT_ACK_TX, ack + 1) - ack;
	KUNIT_EXPECT_GE(test, ack, 1ULL);
	KUNIT_EXPECT_LE_MSG(test, ack,
			    1 + div64_u64(us * NSEC_PER_USEC, MR_RXWIN_DELACK_NS),
			    "in %llu us", us);
	KUNIT_EXPECT_LE_MSG(test, ack, 16 + us / 10000, "in %llu us", us);
	/*
	 * Packet by packet (a QP that entered RTR with ack_batch 0): at
	 * most the burst and the rate (MR-SEC-8).
	 */
	KUNIT_ASSERT_EQ(test, mroce_param_set(&mrt_db->params,
					      MROCE_P_ACK_BATCH, 0), 0);
	mrt_h_vpeer(test, &c, mrt_db, mrt_gb, MRT_IP_A);
	KUNIT_ASSERT_EQ(test, mroce_param_set(&mrt_db->params,
					      MROCE_P_ACK_BATCH, 1), 0);
	mrt_h_req(&p, MR_OP_WRITE, c.qp, MRT_VPEER, MRT_PSN, 0, ts);
	p.rxh.va = (uintptr_t)buf;
	p.rxh.rkey = c.pd->unsafe_global_rkey;
	mrt_h_to_b(test, &p);
	for (i = 0; i < MRT_FLOOD; i++)
		flood[i] = mrt_craft_skb(test, &p, MRT_IP_A, MRT_IP_B, NULL,
					 PACKET_HOST);
	ack = mrt_h_cnt(mrt_db, MROCE_CNT_ACK_TX);
	us = mrt_h_flood(mrt_db, flood);
	ack = mrt_h_cnt(mrt_db, MROCE_CNT_ACK_TX) - ack;
	KUNIT_EXPECT_GE(test, ack, 1ULL);
	KUNIT_EXPECT_LE_MSG(test, ack, 16 + us / 10000, "in %llu us", us);
	KUNIT_ASSERT_EQ(test, mroce_param_set(&mrt_db->params,
					      MROCE_P_SEQ_ERR_US, 100), 0);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(b.qp), IB_QPS_RTS);
	mrt_ep_free(&b);
	mrt_ep_free(&c);
}

/*
 * MR-SEC-4: a datagram to a broadcast address does not reach UD QPs,
 * and an RC packet from the peer to an address that is not the QP's is
 * dropped. Before, both were accepted.
 */
static void mrt_h_addresses(struct kunit *test)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = 0x11,
	};
	struct mrt_ep u = {}, b = {};
	struct ib_cq_init_attr cattr = { .cqe = 16 };
	u8 data[32], *buf;
	struct mr_pkt p;
	u64 drops;

	buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	mrt_fill(data, sizeof(data), 2);
	u.dev = mrt_db;
	u.pd = ib_alloc_pd(&mrt_db->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(u.pd));
	u.cq = ib_create_cq(&mrt_db->ibdev, NULL, NULL, NULL, &cattr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(u.cq));
	init.send_cq = u.cq;
	init.recv_cq = u.cq;
	u.qp = ib_create_qp(u.pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(u.qp));
	KUNIT_ASSERT_EQ(test, ib_modify_qp(u.qp, &a, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_QKEY), 0);
	KUNIT_ASSERT_EQ(test, mrt_to(u.qp, IB_QPS_RTR), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_recv(&u, buf, 256, 7), 0);

	memset(&p, 0, sizeof(p));
	p.opcode = MR_OP_UD_SEND;
	p.flags = MR_F_FIRST | MR_F_LAST;
	p.dqpn = u.qp->qp_num;
	p.sqpn = 0x42;
	p.deth.qkey = 0x11;
	p.deth.src_qpn = 0x42;
	p.payload = data;
	p.payload_len = sizeof(data);
	drops = mrt_h_cnt(mrt_db, MROCE_CNT_QPN_DROPS);
	mrt_h_feed(test, mrt_db, &p, MRT_IP_A, "192.0.2.255", NULL,
		   PACKET_BROADCAST);
	mrt_h_feed(test, mrt_db, &p, MRT_IP_A, "224.0.0.77", NULL,
		   PACKET_MULTICAST);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_QPN_DROPS),
			drops + 2);
	mrt_h_expect_none(test, &u, 10);
	/* A trimmed datagram has no payload to deliver (MR-REL-16). */
	drops = mrt_h_cnt(mrt_db, MROCE_CNT_TRIM_DROPS);
	mrt_h_feed(test, mrt_db, &p, MRT_IP_A, MRT_IP_B, mrt_h_trim,
		   PACKET_HOST);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_TRIM_DROPS),
			drops + 1);
	mrt_h_expect_none(test, &u, 10);
	/* The same datagram to B's own address is delivered. */
	mrt_h_feed(test, mrt_db, &p, MRT_IP_A, MRT_IP_B, NULL, PACKET_HOST);
	mrt_h_expect_wc(test, &u, 7, IB_WC_SUCCESS);

	/* RC: from the peer, but not to the QP's address. */
	mrt_h_vpeer(test, &b, mrt_db, mrt_gb, MRT_IP_A);
	mrt_h_req(&p, MR_OP_WRITE, b.qp, MRT_VPEER, MRT_PSN, 0, 0x100);
	p.rxh.va = (uintptr_t)buf;
	p.rxh.rkey = b.pd->unsafe_global_rkey;
	p.dxh.msg_len = sizeof(data);
	p.payload = data;
	p.payload_len = sizeof(data);
	memset(buf, 0, sizeof(data));
	drops = mrt_h_cnt(mrt_db, MROCE_CNT_SRC_DROPS);
	mrt_h_feed(test, mrt_db, &p, MRT_IP_A, "192.0.2.77", NULL,
		   PACKET_HOST);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_SRC_DROPS),
			drops + 1);
	KUNIT_EXPECT_NULL(test, memchr_inv(buf, 0, sizeof(data)));

	mrt_ep_free(&b);
	mrt_ep_free(&u);
}

/* What a trimming switch leaves of a packet: its head, no TRIM flag. */
static void mrt_h_cut(u8 *buf, u32 *len)
{
	*len -= 200;
}

/* To device B from A's address, with the IP DSCP @dscp. */
static void mrt_h_to_b_dscp(struct kunit *test, const struct mr_pkt *p,
			    void (*mangle)(u8 *buf, u32 *len), u8 dscp)
{
	struct sk_buff *skb = mrt_craft_skb(test, p, MRT_IP_A, MRT_IP_B,
					    mangle, PACKET_HOST);

	ip_hdr(skb)->tos = dscp << 2;
	local_bh_disable();
	mroce_rcv(mrt_db, skb, MR_ENTROPY_BASE);
	local_bh_enable();
}

/*
 * MR-TRIM-2, MR-TRIM-3, MR-REL-16: a WRITE cut by a switch that re-marks
 * the DSCP and does not set TRIM is taken as trimmed by the kernel glue
 * (the DSCP read from the IP header, the device's trim_dscp): NACKed
 * TRIMMED, nothing placed, no ICRC drop. With trim_dscp 64 (none) the cut
 * packet is malformed (LAST no longer matches); whole and marked, it is
 * placed.
 */
static void mrt_h_trim_dscp(struct kunit *test)
{
	struct mroce_params *prm = &mrt_db->params;
	u64 rx, nack, icrc, bad;
	struct mrt_ep b = {};
	struct mr_pkt p;
	u8 *buf, *data;

	buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	data = kunit_kzalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, buf && data);
	mrt_fill(data, 256, 5);
	mrt_h_vpeer(test, &b, mrt_db, mrt_gb, MRT_IP_A);
	mrt_h_req(&p, MR_OP_WRITE, b.qp, MRT_VPEER, MRT_PSN, 0, 0x40000000);
	p.rxh.va = (uintptr_t)buf;
	p.rxh.rkey = b.pd->unsafe_global_rkey;
	p.dxh.msg_len = 256;
	p.payload = data;
	p.payload_len = 256;

	rx = mrt_h_cnt(mrt_db, MROCE_CNT_TRIMMED_RX);
	nack = mrt_h_cnt(mrt_db, MROCE_CNT_NACK_TX_TRIMMED);
	icrc = mrt_h_cnt(mrt_db, MROCE_CNT_ICRC_DROPS);
	bad = mrt_h_cnt(mrt_db, MROCE_CNT_MALFORMED_DROPS);
	KUNIT_ASSERT_EQ(test, mroce_param(prm, MROCE_P_TRIM_DSCP),
			MR_TRIM_DSCP_DEFAULT);
	mrt_h_to_b_dscp(test, &p, mrt_h_cut, MR_TRIM_DSCP_DEFAULT);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_TRIMMED_RX), rx + 1);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_NACK_TX_TRIMMED),
			nack + 1);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_ICRC_DROPS), icrc);
	KUNIT_EXPECT_NULL(test, memchr_inv(buf, 0, 256));

	/* No trimmed codepoint: the cut packet is what it looks like. */
	KUNIT_ASSERT_EQ(test, mroce_param_set(prm, MROCE_P_TRIM_DSCP,
					      MR_TRIM_DSCP_OFF), 0);
	mrt_h_to_b_dscp(test, &p, mrt_h_cut, MR_TRIM_DSCP_DEFAULT);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_MALFORMED_DROPS),
			bad + 1);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_TRIMMED_RX), rx + 1);
	KUNIT_ASSERT_EQ(test, mroce_param_set(prm, MROCE_P_TRIM_DSCP,
					      MR_TRIM_DSCP_DEFAULT), 0);

	/* Marked but whole (its ICRC verifies): placed. */
	mrt_h_to_b_dscp(test, &p, NULL, MR_TRIM_DSCP_DEFAULT);
	KUNIT_EXPECT_EQ(test, memcmp(buf, data, 256), 0);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_db, MROCE_CNT_TRIMMED_RX), rx + 1);
	mrt_ep_free(&b);
}

/*
 * MR-SEC-6, MR-REL-20: an ACK whose ts_echo is not a recent timestamp of
 * the requester's own clock completes nothing, whatever cum_psn it
 * names. Before, a forged ACK with any cum_psn in [una, nxt] completed
 * the WR although its data never arrived.
 */
static void mrt_h_forged_ack(struct kunit *test)
{
	struct mrt_ep a = {};
	struct mroce_qp *qp;
	struct mr_pkt p;
	u64 aged;
	u8 *src;

	src = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	mrt_h_vpeer(test, &a, mrt_da, mrt_ga, MRT_IP_B);
	qp = to_mqp(a.qp);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, src, 64,
					    0x1000, 0x1234, 1), 0);
	msleep(20);

	/*
	 * An echo 2 s old, and one 1 s in the future (far enough that it is
	 * still ahead when the packet is handled on a slow guest).
	 */
	mrt_h_ack(&p, a.qp, MRT_PSN + 1, mrt_h_ts(a.qp) - 2000000);
	p.akh.msn = 1;
	aged = mrt_h_cnt(mrt_da, MROCE_CNT_ACK_AGE_DROPS);
	mrt_h_feed(test, mrt_da, &p, MRT_IP_B, MRT_IP_A, NULL, PACKET_HOST);
	p.akh.ts_echo = mrt_h_ts(a.qp) + 1000000;
	mrt_h_feed(test, mrt_da, &p, MRT_IP_B, MRT_IP_A, NULL, PACKET_HOST);
	KUNIT_EXPECT_EQ(test, mrt_h_cnt(mrt_da, MROCE_CNT_ACK_AGE_DROPS),
			aged + 2);
	mrt_h_expect_none(test, &a, 20);
	/* An echo of the QP's own clock is one. */
	p.akh.ts_echo = mrt_h_ts(a.qp) - 100;
	mrt_h_feed(test, mrt_da, &p, MRT_IP_B, MRT_IP_A, NULL, PACKET_HOST);
	mrt_h_expect_wc(test, &a, 1, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, qp->req->rq.snd.sb.una, (MRT_PSN + 1) & MR_PSN_MASK);
	mrt_ep_free(&a);
}

/*
 * MR-VERBS-23, MR-VERBS-22: work requests no responder would accept are
 * not sent: a misaligned atomic completes with REM_INV_REQ_ERR, a WRITE
 * whose remote range wraps 2^64 with REM_ACCESS_ERR, SGEs whose lengths
 * add up beyond 2^31 with LOC_LEN_ERR; the QP then enters Error and
 * flushes. Before, the encoder refused the first two (a WARN, then a
 * 1 ms retry timer forever, no completion) and the third wrapped to a
 * zero-length WRITE that succeeded.
 */
static void mrt_h_post_validate(struct kunit *test)
{
	struct mrt_ep a = {}, b = {};
	const struct ib_send_wr *bad;
	struct ib_atomic_wr aw = {};
	struct ib_sge sge[2];
	u8 *buf;

	buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	mrt_connect2(test, &a, &b, mrt_da, mrt_db, mrt_ga, mrt_gb, MRT_IP_A,
		     MRT_IP_B);
	sge[0] = (struct ib_sge){ (uintptr_t)buf, 8, a.pd->local_dma_lkey };
	aw.wr.wr_id = 1;
	aw.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	aw.wr.send_flags = IB_SEND_SIGNALED;
	aw.wr.sg_list = sge;
	aw.wr.num_sge = 1;
	aw.remote_addr = 0x1001;
	aw.rkey = b.pd->unsafe_global_rkey;
	aw.compare_add = 1;
	KUNIT_ASSERT_EQ(test, ib_post_send(a.qp, &aw.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, buf, 8,
					    (uintptr_t)buf,
					    b.pd->unsafe_global_rkey, 2), 0);
	mrt_h_expect_wc(test, &a, 1, IB_WC_REM_INV_REQ_ERR);
	mrt_h_expect_wc(test, &a, 2, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(a.qp), IB_QPS_ERR);
	mrt_ep_free(&a);
	mrt_ep_free(&b);

	mrt_connect2(test, &a, &b, mrt_da, mrt_db, mrt_ga, mrt_gb, MRT_IP_A,
		     MRT_IP_B);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, buf, 64,
					    U64_MAX - 10,
					    b.pd->unsafe_global_rkey, 3), 0);
	mrt_h_expect_wc(test, &a, 3, IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(a.qp), IB_QPS_ERR);
	mrt_ep_free(&a);
	mrt_ep_free(&b);

	mrt_connect2(test, &a, &b, mrt_da, mrt_db, mrt_ga, mrt_gb, MRT_IP_A,
		     MRT_IP_B);
	{
		struct ib_rdma_wr w = {
			.wr = {
				.wr_id = 4, .opcode = IB_WR_RDMA_WRITE,
				.send_flags = IB_SEND_SIGNALED,
				.sg_list = sge, .num_sge = 2,
			},
			.remote_addr = (uintptr_t)buf,
			.rkey = b.pd->unsafe_global_rkey,
		};

		sge[0] = (struct ib_sge){ (uintptr_t)buf, 0x80000000,
					  a.pd->local_dma_lkey };
		sge[1] = sge[0];
		KUNIT_ASSERT_EQ(test, ib_post_send(a.qp, &w.wr, &bad), 0);
	}
	mrt_h_expect_wc(test, &a, 4, IB_WC_LOC_LEN_ERR);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(a.qp), IB_QPS_ERR);
	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

/*
 * MR-SEC-3: QP numbers an off-path sender has to guess. Before, they
 * were allocated in sequence.
 */
static void mrt_h_qpn_random(struct kunit *test)
{
	struct mrt_ep e[6] = {};
	int i, seq = 0;

	for (i = 0; i < ARRAY_SIZE(e); i++)
		mrt_ep_init(test, &e[i], mrt_db);
	for (i = 1; i < ARRAY_SIZE(e); i++)
		if (e[i].qp->qp_num == e[i - 1].qp->qp_num + 1)
			seq++;
	KUNIT_EXPECT_LT(test, seq, 2);
	for (i = 0; i < ARRAY_SIZE(e); i++)
		mrt_ep_free(&e[i]);
}

static struct kunit_case mrt_hostile_cases[] = {
	KUNIT_CASE(mrt_h_read_replay),
	KUNIT_CASE(mrt_h_read_bounded),
	KUNIT_CASE(mrt_h_timestamps),
	KUNIT_CASE(mrt_h_fatal_ahead),
	KUNIT_CASE(mrt_h_trimmed),
	KUNIT_CASE(mrt_h_trim_dscp),
	KUNIT_CASE(mrt_h_read_resp_oversize),
	KUNIT_CASE(mrt_h_read_gaps),
	KUNIT_CASE(mrt_h_send_inv),
	KUNIT_CASE(mrt_h_srq),
	KUNIT_CASE(mrt_h_rate_limits),
	KUNIT_CASE(mrt_h_addresses),
	KUNIT_CASE(mrt_h_forged_ack),
	KUNIT_CASE(mrt_h_post_validate),
	KUNIT_CASE(mrt_h_qpn_random),
	{}
};

static struct kunit_suite mrt_hostile_suite = {
	.name = "metaroce_hostile",
	.suite_init = mrt_rc_suite_init,
	.suite_exit = mrt_rc_suite_exit,
	.test_cases = mrt_hostile_cases,
};

kunit_test_suite(mrt_hostile_suite);
