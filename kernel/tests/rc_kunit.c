// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE KUnit suite metaroce_rc: RC traffic between two devices
 * (mra <-> mrb), plus UD datagrams and rdma_cm over the GSI QP on the
 * same pair.
 */

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/ip.h>
#include <linux/scatterlist.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/rdma_cm.h>

#include "kunit_fixture.h"

static void mrt_connect(struct kunit *test, struct mrt_ep *a,
			struct mrt_ep *b)
{
	mrt_connect2(test, a, b, mrt_da, mrt_db, mrt_ga, mrt_gb, MRT_IP_A,
		     MRT_IP_B);
}

/* A PD (no flags) and a CQ of @cqe entries (no handlers) on @dev for @ep. */
static void mrt_ep_pd_cq(struct kunit *test, struct mrt_ep *ep,
			 struct mroce_dev *dev, int cqe)
{
	struct ib_cq_init_attr cattr = { .cqe = cqe };

	ep->dev = dev;
	ep->pd = ib_alloc_pd(&dev->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ep->pd));
	ep->cq = ib_create_cq(&dev->ibdev, NULL, NULL, ep, &cattr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ep->cq));
}

/* The HELLO state of @qp: settled, and its common set in *@common. */
static bool mrt_hello_settled(struct ib_qp *qp, u32 *common)
{
	struct mroce_qp *mqp = to_mqp(qp);
	bool settled;

	spin_lock_bh(&mqp->sq.lock);
	settled = mqp->req->hello.state == MR_HELLO_SETTLED;
	*common = mqp->req->hello.common;
	spin_unlock_bh(&mqp->sq.lock);
	return settled;
}

/*
 * MR-VER-12, MR-VER-13, MR-VER-17: two revision 1.1 devices, B
 * withholding CC, settle on the same common set (CORE | MULTIPATH)
 * while the QPs carry traffic; each sent and received HELLOs.
 */
static void mrt_rc_hello(struct kunit *test)
{
	u64 rx_a = mroce_counter_read(mrt_da, MROCE_CNT_HELLO_RECEIVED);
	u64 rx_b = mroce_counter_read(mrt_db, MROCE_CNT_HELLO_RECEIVED);
	struct mrt_ep a = {}, b = {};
	u32 ca = 0, cb = 0;
	u8 *buf;
	struct ib_wc wc;
	int i;

	buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, mroce_param_set(&mrt_da->params, MROCE_P_HELLO,
					      1), 0);
	KUNIT_ASSERT_EQ(test, mroce_param_set(&mrt_db->params, MROCE_P_HELLO,
					      1), 0);
	KUNIT_ASSERT_EQ(test, mroce_param_set(&mrt_db->params,
					      MROCE_P_HELLO_CAPS,
					      MR_CAP_MULTIPATH), 0);
	mrt_connect(test, &a, &b);
	/* Traffic does not wait for the exchange (MR-VER-13). */
	KUNIT_ASSERT_EQ(test, mrt_post_recv(&b, buf + 128, 128, 2), 0);
	mrt_fill(buf, 128, 5);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_SEND, buf, 128, 0, 0, 1),
			0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, mrt_poll(&b, &wc), 1);
	KUNIT_EXPECT_EQ(test, memcmp(buf, buf + 128, 128), 0);
	for (i = 0; i < 2000; i++) {
		if (mrt_hello_settled(a.qp, &ca) &&
		    mrt_hello_settled(b.qp, &cb))
			break;
		usleep_range(500, 1000);
	}
	KUNIT_EXPECT_TRUE(test, mrt_hello_settled(a.qp, &ca));
	KUNIT_EXPECT_TRUE(test, mrt_hello_settled(b.qp, &cb));
	KUNIT_EXPECT_EQ(test, ca, MR_CAP_CORE | MR_CAP_MULTIPATH);
	KUNIT_EXPECT_EQ(test, cb, ca);
	KUNIT_EXPECT_GT(test, mroce_counter_read(mrt_da,
						 MROCE_CNT_HELLO_RECEIVED),
			rx_a);
	KUNIT_EXPECT_GT(test, mroce_counter_read(mrt_db,
						 MROCE_CNT_HELLO_RECEIVED),
			rx_b);
	KUNIT_EXPECT_EQ(test, mroce_counter_read(mrt_da,
						 MROCE_CNT_HELLO_CONFLICT), 0ULL);
	mrt_ep_free(&a);
	mrt_ep_free(&b);
	mroce_param_set(&mrt_db->params, MROCE_P_HELLO_CAPS, MR_CAP_IMPL);
	mroce_param_set(&mrt_da->params, MROCE_P_HELLO, 0);
	mroce_param_set(&mrt_db->params, MROCE_P_HELLO, 0);
}

static void mrt_rc_send(struct kunit *test)
{
	struct mrt_ep a = {}, b = {};
	const u32 len = 5000;	/* 5 packets at MTU 1024 */
	const struct ib_send_wr *bad;
	struct ib_send_wr wr = {};
	struct ib_sge sge[3];
	u8 *src, *dst;
	struct ib_wc wc;

	mrt_connect(test, &a, &b);
	src = kunit_kzalloc(test, len, GFP_KERNEL);
	dst = kunit_kzalloc(test, 2 * len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	mrt_fill(src, len, 1);

	KUNIT_ASSERT_EQ(test, mrt_post_recv(&b, dst, len, 10), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_recv(&b, dst + len, 64, 11), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_recv(&b, dst + len + 64, 64, 12), 0);

	/* Multi-packet SEND gathered from three SGEs. */
	sge[0] = (struct ib_sge){ (uintptr_t)src, 1000, a.pd->local_dma_lkey };
	sge[1] = (struct ib_sge){ (uintptr_t)src + 1000, 3000,
				  a.pd->local_dma_lkey };
	sge[2] = (struct ib_sge){ (uintptr_t)src + 4000, 1000,
				  a.pd->local_dma_lkey };
	wr.wr_id = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.sg_list = sge;
	wr.num_sge = 3;
	KUNIT_ASSERT_EQ(test, ib_post_send(a.qp, &wr, &bad), 0);

	/* SEND_WITH_IMM and an inline SEND. */
	sge[0] = (struct ib_sge){ (uintptr_t)src, 64, a.pd->local_dma_lkey };
	wr.wr_id = 2;
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.ex.imm_data = cpu_to_be32(0x1234);
	wr.num_sge = 1;
	KUNIT_ASSERT_EQ(test, ib_post_send(a.qp, &wr, &bad), 0);
	wr.wr_id = 3;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE;
	sge[0].addr = (uintptr_t)src + 100;
	KUNIT_ASSERT_EQ(test, ib_post_send(a.qp, &wr, &bad), 0);

	KUNIT_ASSERT_EQ(test, mrt_poll(&b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 10ULL);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, len);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, len), 0);

	KUNIT_ASSERT_EQ(test, mrt_poll(&b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 11ULL);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0x1234U);
	KUNIT_EXPECT_EQ(test, memcmp(dst + len, src, 64), 0);

	KUNIT_ASSERT_EQ(test, mrt_poll(&b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 12ULL);
	KUNIT_EXPECT_EQ(test, memcmp(dst + len + 64, src + 100, 64), 0);

	/* Sender completions, in order. */
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 3ULL);

	KUNIT_EXPECT_GT(test, mroce_counter_read(mrt_da, MROCE_CNT_TX_PKTS),
			0ULL);
	KUNIT_EXPECT_GT(test, mroce_counter_read(mrt_db, MROCE_CNT_ACK_TX),
			0ULL);
	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

static void mrt_rc_write_read(struct kunit *test, u32 len)
{
	struct mrt_ep a = {}, b = {};
	u8 *src, *remote, *back, *rbuf;
	struct ib_wc wc;

	mrt_connect(test, &a, &b);
	src = vzalloc(len);
	remote = vzalloc(len);
	back = vzalloc(len);
	rbuf = kunit_kzalloc(test, 16, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, src && remote && back && rbuf);
	mrt_fill(src, len, 7);

	/* WRITE, then WRITE_WITH_IMM (consumes a receive), then READ. */
	KUNIT_ASSERT_EQ(test, mrt_post_recv(&b, rbuf, 16, 20), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, src, len,
					    (uintptr_t)remote,
					    b.pd->unsafe_global_rkey, 1), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE_WITH_IMM, src,
					    16, (uintptr_t)remote,
					    b.pd->unsafe_global_rkey, 2), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_READ, back, len,
					    (uintptr_t)remote,
					    b.pd->unsafe_global_rkey, 3), 0);

	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_WRITE);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 3ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, memcmp(remote, src, len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(back, src, len), 0);

	KUNIT_ASSERT_EQ(test, mrt_poll(&b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 20ULL);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV_RDMA_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0xabcd0002U);

	/* QPs first: a late duplicate READ_REQ must not read freed memory. */
	mrt_ep_free(&a);
	mrt_ep_free(&b);
	vfree(src);
	vfree(remote);
	vfree(back);
}

static void mrt_rc_write_read_small(struct kunit *test)
{
	mrt_rc_write_read(test, 10000);
}

/* Larger than the 256-packet window: window and CC gating. */
static void mrt_rc_write_read_large(struct kunit *test)
{
	mrt_rc_write_read(test, 1 << 20);
}

/*
 * MR-HDR-21, MR-ENC-7: a path MTU of 2048 over netdevs of MTU 1500 (an
 * active MTU of 1024). READ responses come in pieces the netdev carries,
 * and the READ completes with every byte; on the wire, pieces start on
 * multiples of 1024 that are not all multiples of 2048. Before, the
 * responder cut at the path MTU, IP refused every piece (DF) and the
 * READ never completed. The same holds when a netdev MTU is lowered
 * under a live QP: the cut follows the active MTU.
 */
static void mrt_rc_read_path_mtu_above_link(struct kunit *test)
{
	const u32 len = 16384;
	struct mrt_ep a = {}, b = {};
	struct mrt_tap *tap;
	u8 *remote, *back;
	bool odd = false;
	struct ib_wc wc;
	int n, err;
	u32 i;

	tap = kunit_kzalloc(test, sizeof(*tap), GFP_KERNEL);
	remote = kunit_kzalloc(test, len, GFP_KERNEL);
	back = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, tap && remote && back);
	mrt_fill(remote, len, 23);
	mrt_ep_init(test, &a, mrt_da);
	mrt_ep_init(test, &b, mrt_db);
	KUNIT_ASSERT_EQ(test, mrt_db->active_mtu, IB_MTU_1024);
	mrt_connect_qps_mtu(test, a.qp, b.qp, mrt_ga, mrt_gb, MRT_IP_A,
			    MRT_IP_B, IB_MTU_2048);
	mrt_tap_start(tap, mrt_db);
	err = mrt_post_rdma(&a, IB_WR_RDMA_READ, back, len,
			    (uintptr_t)remote, b.pd->unsafe_global_rkey, 1);
	n = err ? 0 : mrt_poll(&a, &wc);
	mrt_tap_stop(tap);

	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(back, remote, len), 0);
	for (i = 0; i < tap->n; i++) {
		if (tap->pkt[i].opcode != MR_OP_READ_RESP)
			continue;
		KUNIT_EXPECT_EQ(test, tap->pkt[i].offset % 1024, 0U);
		if (tap->pkt[i].offset % 2048)
			odd = true;
	}
	KUNIT_EXPECT_TRUE(test, odd);
	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

static int mrt_post_atomic(struct mrt_ep *ep, enum ib_wr_opcode op, u64 *res,
			   u64 raddr, u32 rkey, u64 cmp_add, u64 swap,
			   u64 wr_id)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)res, .length = 8,
		.lkey = ep->pd->local_dma_lkey,
	};
	struct ib_atomic_wr wr = {
		.wr = {
			.wr_id = wr_id, .opcode = op,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge, .num_sge = 1,
		},
		.remote_addr = raddr, .compare_add = cmp_add, .swap = swap,
		.rkey = rkey,
	};
	const struct ib_send_wr *bad;

	return ib_post_send(ep->qp, &wr.wr, &bad);
}

/* A fast-reg MR over @buf registered through @ep's own QP. */
static struct ib_mr *mrt_fr_mr(struct kunit *test, struct mrt_ep *ep,
			       void *buf, u32 len, int access)
{
	struct scatterlist sg;
	struct ib_mr *ibmr;
	struct ib_wc wc;

	ibmr = ib_alloc_mr(ep->pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ibmr));
	sg_init_one(&sg, buf, len);
	sg_dma_address(&sg) = (uintptr_t)buf;
	sg_dma_len(&sg) = len;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(ibmr, &sg, 1, NULL, PAGE_SIZE), 1);
	KUNIT_ASSERT_EQ(test, mrt_post_reg(ep->qp, ibmr, access, 50), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(ep, &wc), 1);
	KUNIT_ASSERT_EQ(test, wc.status, IB_WC_SUCCESS);
	return ibmr;
}

static void mrt_rc_atomic(struct kunit *test)
{
	struct mrt_ep a = {}, b = {};
	struct ib_mr *ibmr;
	struct ib_wc wc;
	u64 *target, *res;
	u32 rkey;

	mrt_connect(test, &a, &b);
	target = kunit_kzalloc(test, 16, GFP_KERNEL);
	res = kunit_kzalloc(test, 24, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, target && res);
	*target = 5;
	/* The PD's global rkey has no atomic right: a fast-reg MR does. */
	ibmr = mrt_fr_mr(test, &b, target, 16, IB_ACCESS_LOCAL_WRITE |
			 IB_ACCESS_REMOTE_ATOMIC);
	rkey = ibmr->rkey;

	KUNIT_ASSERT_EQ(test, mrt_post_atomic(&a, IB_WR_ATOMIC_FETCH_AND_ADD,
					      &res[0], ibmr->iova, rkey,
					      3, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_atomic(&a, IB_WR_ATOMIC_CMP_AND_SWP,
					      &res[1], ibmr->iova, rkey,
					      8, 100, 2), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_atomic(&a, IB_WR_ATOMIC_CMP_AND_SWP,
					      &res[2], ibmr->iova, rkey,
					      1, 7, 3), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_FETCH_ADD);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_COMP_SWAP);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 3ULL);
	KUNIT_EXPECT_EQ(test, res[0], 5ULL);
	KUNIT_EXPECT_EQ(test, res[1], 8ULL);
	KUNIT_EXPECT_EQ(test, res[2], 100ULL);
	KUNIT_EXPECT_EQ(test, *target, 100ULL);

	ib_dereg_mr(ibmr);
	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

/*
 * A SEND met by RNR (no receive posted yet) goes out again once one is
 * posted, and arrives. @solicited: it asks for the solicited event, and
 * the retransmission still does (MR-VERBS-18): the receiver's CQ, armed
 * for solicited completions, is notified.
 */
static void mrt_rc_rnr_send(struct kunit *test, bool solicited)
{
	struct mrt_ep a = {}, b = {};
	u64 rnr_tx = mroce_counter_read(mrt_db, MROCE_CNT_NACK_TX_RNR);
	u8 src[32], *dst;
	struct ib_wc wc;
	struct ib_sge sge;
	struct ib_send_wr wr = {};
	const struct ib_send_wr *bad;
	int i;

	mrt_connect(test, &a, &b);
	dst = kunit_kzalloc(test, 32, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	mrt_fill(src, sizeof(src), 3);
	KUNIT_ASSERT_EQ(test, ib_req_notify_cq(b.cq, IB_CQ_SOLICITED), 0);
	sge = (struct ib_sge){ (uintptr_t)src, 32, a.pd->local_dma_lkey };
	wr.wr_id = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED | (solicited ? IB_SEND_SOLICITED : 0);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	/* No receive posted yet: the responder answers RNR. */
	KUNIT_ASSERT_EQ(test, ib_post_send(a.qp, &wr, &bad), 0);
	KUNIT_EXPECT_GT(test, mrt_wait_counter(mrt_db, MROCE_CNT_NACK_TX_RNR,
					       rnr_tx + 1),
			rnr_tx);
	KUNIT_ASSERT_EQ(test, mrt_post_recv(&b, dst, 32, 9), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, 32), 0);
	/* The notification runs just after the CQE is in. */
	for (i = 0; i < 50 && !READ_ONCE(b.comps); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, READ_ONCE(b.comps), solicited ? 1 : 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);

	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

static void mrt_rc_rnr(struct kunit *test)
{
	mrt_rc_rnr_send(test, false);
}

static void mrt_rc_solicited_after_rnr(struct kunit *test)
{
	mrt_rc_rnr_send(test, true);
}

/*
 * The scoreboard fails - here RNR retries run out on a SEND (rnr_retry 0)
 * - while a READ ahead of it still has ranges to request. Nothing is sent
 * after the failure, so the READ cannot finish: it gets one RTO for data
 * already on its way, then completes with WR_FLUSH_ERR, and the SEND
 * reports the failure (MR-VERBS-22), rather than hold the send queue
 * forever.
 */
static void mrt_rc_fail_behind_read(struct kunit *test)
{
	const u32 len = 4 * MR_RDASM_WINDOW;
	struct ib_qp_attr rts = {
		.qp_state = IB_QPS_RTS, .sq_psn = MRT_PSN, .timeout = 18,
		.retry_cnt = 7, .rnr_retry = 0, .max_rd_atomic = 4,
	};
	u64 rnr_tx = mroce_counter_read(mrt_db, MROCE_CNT_NACK_TX_RNR);
	struct mrt_ep a = {}, b = {};
	u8 *remote, *back, *src;
	struct ib_wc wc;

	mrt_ep_init(test, &a, mrt_da);
	mrt_ep_init(test, &b, mrt_db);
	KUNIT_ASSERT_EQ(test, mrt_to_init(a.qp), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_init(b.qp), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rtr(a.qp, b.qp->qp_num, mrt_ga, MRT_IP_B,
					 0), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rtr(b.qp, a.qp->qp_num, mrt_gb, MRT_IP_A,
					 0), 0);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(a.qp, &rts, IB_QP_STATE |
					   IB_QP_SQ_PSN | IB_QP_TIMEOUT |
					   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
					   IB_QP_MAX_QP_RD_ATOMIC), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rts(b.qp), 0);

	remote = vzalloc(len);
	back = vzalloc(len);
	src = kunit_kzalloc(test, 32, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, remote && back && src);
	mrt_fill(remote, len, 5);

	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_READ, back, len,
					    (uintptr_t)remote,
					    b.pd->unsafe_global_rkey, 1), 0);
	/* No receive at b: RNR NACK, and with rnr_retry 0 the QP fails. */
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_SEND, src, 32, 0, 0, 2),
			0);

	/*
	 * In SQ order: the READ first, done if all its data came before the
	 * NACK, else flushed; then the SEND with the RNR error it failed
	 * with. Never RETRY_EXC_ERR (nothing was lost) and never a hang.
	 */
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_TRUE(test, wc.status == IB_WC_SUCCESS ||
			  wc.status == IB_WC_WR_FLUSH_ERR);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_RNR_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(a.qp), IB_QPS_ERR);
	KUNIT_EXPECT_GT(test, mroce_counter_read(mrt_db, MROCE_CNT_NACK_TX_RNR),
			rnr_tx);

	/* QPs first: READ responses may still be in flight. */
	mrt_ep_free(&a);
	mrt_ep_free(&b);
	vfree(remote);
	vfree(back);
}

static void mrt_rc_remote_access_error(struct kunit *test)
{
	struct mrt_ep a = {}, b = {};
	u64 viol = mroce_counter_read(mrt_db, MROCE_CNT_RKEY_VIOLATIONS);
	u8 *src, *remote;
	struct ib_wc wc;

	mrt_connect(test, &a, &b);
	src = kunit_kzalloc(test, 64, GFP_KERNEL);
	remote = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, src && remote);
	mrt_fill(src, 64, 9);

	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, src, 64,
					    (uintptr_t)remote,
					    b.pd->unsafe_global_rkey ^ 0x5a, 1),
			0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(a.qp), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(b.qp), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, mroce_counter_read(mrt_db,
						 MROCE_CNT_RKEY_VIOLATIONS),
			viol + 1);
	/* Nothing was placed. */
	KUNIT_EXPECT_TRUE(test, !memchr_inv(remote, 0, 64));

	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

static void mrt_rc_send_inv(struct kunit *test)
{
	const int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	struct mrt_ep a = {}, b = {};
	const struct ib_send_wr *bad;
	struct ib_send_wr wr = {};
	struct scatterlist sg;
	struct ib_mr *ibmr;
	struct ib_sge sge;
	struct ib_wc wc;
	u8 *buf, *dst, src[16] = {};

	mrt_connect(test, &a, &b);
	buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	dst = kunit_kzalloc(test, 16, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, buf && dst);

	/* B registers a fast-reg MR on its own QP. */
	ibmr = ib_alloc_mr(b.pd, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ibmr));
	sg_init_one(&sg, buf, 512);
	sg_dma_address(&sg) = (uintptr_t)buf;
	sg_dma_len(&sg) = 512;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(ibmr, &sg, 1, NULL, PAGE_SIZE), 1);
	KUNIT_ASSERT_EQ(test, mrt_post_reg(b.qp, ibmr, acc, 50), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&b, &wc), 1);
	KUNIT_ASSERT_EQ(test, wc.status, IB_WC_SUCCESS);

	/* A writes through it, then invalidates it with SEND_WITH_INV. */
	mrt_fill(src, sizeof(src), 4);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, src, 16,
					    ibmr->iova, ibmr->rkey, 1), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(buf, src, 16), 0);

	KUNIT_ASSERT_EQ(test, mrt_post_recv(&b, dst, 16, 60), 0);
	sge = (struct ib_sge){ (uintptr_t)src, 16, a.pd->local_dma_lkey };
	wr.wr_id = 2;
	wr.opcode = IB_WR_SEND_WITH_INV;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.ex.invalidate_rkey = ibmr->rkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	KUNIT_ASSERT_EQ(test, ib_post_send(a.qp, &wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, ibmr->rkey);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);

	/* The invalidated rkey is refused now. */
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, src, 16,
					    ibmr->iova, ibmr->rkey, 3), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_REM_ACCESS_ERR);

	ib_dereg_mr(ibmr);
	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

/* A peer that never answers: RETRY_EXC_ERR after retry_cnt (MR-RETRY-1). */
static void mrt_rc_retry_exceeded(struct kunit *test)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_RTS,
		.sq_psn = MRT_PSN,
		.timeout = 8,		/* ~1 ms */
		.retry_cnt = 1,
		.rnr_retry = 7,
		.max_rd_atomic = 4,
	};
	struct mrt_ep a = {};
	u64 rto = mroce_counter_read(mrt_da, MROCE_CNT_RTO);
	struct ib_wc wc;
	u8 *src;

	mrt_ep_init(test, &a, mrt_da);
	src = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_GE(test, mrt_ga, 0);
	KUNIT_ASSERT_EQ(test, mrt_to_init(a.qp), 0);
	/* Device B has no QP 0xabcde: it drops and counts every packet. */
	KUNIT_ASSERT_EQ(test, mrt_to_rtr(a.qp, 0xabcde, mrt_ga, MRT_IP_B, 0),
			0);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(a.qp, &attr, IB_QP_STATE |
					   IB_QP_SQ_PSN | IB_QP_TIMEOUT |
					   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
					   IB_QP_MAX_QP_RD_ATOMIC), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, src, 64,
					    0x1000, 0x100, 1), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, src, 64,
					    0x1000, 0x100, 2), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_RETRY_EXC_ERR);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(a.qp), IB_QPS_ERR);
	KUNIT_EXPECT_GT(test, mroce_counter_read(mrt_da, MROCE_CNT_RTO), rto);

	mrt_ep_free(&a);
}

/* ---- UD ---- */

/* A UD QP in RTS with @depth send and receive WRs (16 if 0). */
static struct ib_qp *mrt_ud_qp_depth(struct kunit *test, struct mrt_ep *ep,
				     struct mroce_dev *dev, u32 qkey, u32 depth)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = {
			.max_send_wr = depth ?: 16, .max_recv_wr = depth ?: 16,
			.max_send_sge = 2, .max_recv_sge = 2,
		},
	};
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = qkey,
	};

	mrt_ep_pd_cq(test, ep, dev, 64);
	init.send_cq = ep->cq;
	init.recv_cq = ep->cq;
	ep->qp = ib_create_qp(ep->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ep->qp));
	KUNIT_ASSERT_EQ(test, ib_modify_qp(ep->qp, &a, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_QKEY), 0);
	KUNIT_ASSERT_EQ(test, mrt_to(ep->qp, IB_QPS_RTR), 0);
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 1;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(ep->qp, &a, IB_QP_STATE |
					   IB_QP_SQ_PSN), 0);
	return ep->qp;
}

static struct ib_qp *mrt_ud_qp(struct kunit *test, struct mrt_ep *ep,
			       struct mroce_dev *dev, u32 qkey)
{
	return mrt_ud_qp_depth(test, ep, dev, qkey, 0);
}

/* An address handle from device a's RoCE v2 GID to MRT_IP_B. */
static struct ib_ah *mrt_ud_ah_to_b(struct kunit *test, struct ib_pd *pd)
{
	struct rdma_ah_attr attr = { .type = RDMA_AH_ATTR_TYPE_ROCE };
	struct ib_ah *ah;

	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, NULL, 0, mrt_ga, 64, 0);
	ipv6_addr_set_v4mapped(in_aton(MRT_IP_B),
			       (struct in6_addr *)attr.grh.dgid.raw);
	ah = rdma_create_ah(pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ah));
	return ah;
}

static int mrt_ud_post(struct mrt_ep *ep, struct ib_ah *ah, u32 qpn, u32 qkey,
		       void *buf, u32 len, u64 wr_id)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)buf, .length = len,
		.lkey = ep->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_id = wr_id, .opcode = IB_WR_SEND_WITH_IMM,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge, .num_sge = 1,
			.ex.imm_data = cpu_to_be32(0x5151),
		},
		.ah = ah, .remote_qpn = qpn, .remote_qkey = qkey,
	};
	const struct ib_send_wr *bad;

	return ib_post_send(ep->qp, &wr.wr, &bad);
}

/* UD datagrams: GRH area, src_qp, immediate, Q_Key and size drops. */
static void mrt_rc_ud(struct kunit *test)
{
	u64 qk = mroce_counter_read(mrt_db, MROCE_CNT_QKEY_DROPS);
	u64 nw = mroce_counter_read(mrt_db, MROCE_CNT_NO_WQE_DROPS);
	u64 ul = mroce_counter_read(mrt_db, MROCE_CNT_UD_LEN_DROPS);
	struct mrt_ep a = {}, b = {};
	struct iphdr *iph;
	struct ib_ah *ah;
	u8 *src, *dst;
	struct ib_wc wc;

	src = kunit_kzalloc(test, 256, GFP_KERNEL);
	dst = kunit_kzalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, src && dst);
	mrt_fill(src, 256, 5);
	KUNIT_ASSERT_GE(test, mrt_ga, 0);
	mrt_ud_qp(test, &a, mrt_da, 0x1111);
	mrt_ud_qp(test, &b, mrt_db, 0x2222);

	ah = mrt_ud_ah_to_b(test, a.pd);

	/* No receive posted: dropped and counted. */
	KUNIT_ASSERT_EQ(test, mrt_ud_post(&a, ah, b.qp->qp_num, 0x2222, src,
					  100, 1), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mrt_wait_counter(mrt_db, MROCE_CNT_NO_WQE_DROPS,
					       nw + 1),
			nw + 1);

	/* Too small a buffer: dropped, the WQE stays for the next one. */
	KUNIT_ASSERT_EQ(test, mrt_post_recv(&b, dst, 40 + 100, 7), 0);
	KUNIT_ASSERT_EQ(test, mrt_ud_post(&a, ah, b.qp->qp_num, 0x2222, src,
					  200, 2), 0);
	/* Wrong Q_Key: dropped. */
	KUNIT_ASSERT_EQ(test, mrt_ud_post(&a, ah, b.qp->qp_num, 0x2223, src,
					  100, 3), 0);
	KUNIT_ASSERT_EQ(test, mrt_ud_post(&a, ah, b.qp->qp_num, 0x2222, src,
					  100, 4), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 140U);
	KUNIT_EXPECT_EQ(test, wc.src_qp, a.qp->qp_num);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_GRH);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0x5151U);
	KUNIT_EXPECT_EQ(test, wc.network_hdr_type, (u8)RDMA_NETWORK_IPV4);
	iph = (struct iphdr *)(dst + 20);
	KUNIT_EXPECT_EQ(test, (int)iph->version, 4);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(iph->saddr),
			be32_to_cpu(in_aton(MRT_IP_A)));
	KUNIT_EXPECT_EQ(test, memcmp(dst + 40, src, 100), 0);
	KUNIT_EXPECT_EQ(test, mroce_counter_read(mrt_db,
						 MROCE_CNT_UD_LEN_DROPS), ul + 1);
	KUNIT_EXPECT_EQ(test, mroce_counter_read(mrt_db, MROCE_CNT_QKEY_DROPS),
			qk + 1);

	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

/*
 * One post does bounded work: 40 datagrams posted in one chain, with BHs
 * off so that neither the receive softirq nor req_work (queued on this
 * CPU) runs before the count is read.  At most MROCE_REQ_RUN_PASSES go
 * out in the poster's context; the rest leave from req_work and every one
 * completes.
 */
static void mrt_rc_post_bounded(struct kunit *test)
{
	const unsigned int n = 40;
	const struct ib_send_wr *bad;
	struct mrt_ep a = {}, b = {};
	struct ib_sge sge;
	struct ib_ah *ah;
	struct ib_wc wc;
	struct ib_ud_wr *wr;
	u64 tx0, tx1;
	u8 *src;
	int i, rc;

	src = kunit_kzalloc(test, 64, GFP_KERNEL);
	wr = kunit_kcalloc(test, n, sizeof(*wr), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, src && wr);
	KUNIT_ASSERT_GE(test, mrt_ga, 0);
	mrt_ud_qp_depth(test, &a, mrt_da, 0x1111, n);
	mrt_ud_qp(test, &b, mrt_db, 0x2222);
	ah = mrt_ud_ah_to_b(test, a.pd);

	sge = (struct ib_sge){ (uintptr_t)src, 64, a.pd->local_dma_lkey };
	for (i = 0; i < n; i++) {
		wr[i].wr.wr_id = i;
		wr[i].wr.opcode = IB_WR_SEND;
		wr[i].wr.send_flags = IB_SEND_SIGNALED;
		wr[i].wr.sg_list = &sge;
		wr[i].wr.num_sge = 1;
		wr[i].wr.next = i + 1 < n ? &wr[i + 1].wr : NULL;
		wr[i].ah = ah;
		wr[i].remote_qpn = b.qp->qp_num;
		wr[i].remote_qkey = 0x2222;
	}
	local_bh_disable();
	tx0 = mroce_counter_read(mrt_da, MROCE_CNT_TX_PKTS);
	rc = ib_post_send(a.qp, &wr[0].wr, &bad);
	tx1 = mroce_counter_read(mrt_da, MROCE_CNT_TX_PKTS);
	local_bh_enable();
	kunit_info(test, "%llu of %u datagrams sent by the post itself\n",
		   tx1 - tx0, n);
	KUNIT_ASSERT_EQ(test, rc, 0);
	/* unbounded, the post sent all 40 itself */
	BUILD_BUG_ON(MROCE_REQ_RUN_PASSES >= 40);
	KUNIT_EXPECT_GE(test, tx1 - tx0, 1ULL);
	KUNIT_EXPECT_LT(test, tx1 - tx0, (u64)n);
	KUNIT_EXPECT_LE(test, tx1 - tx0, (u64)MROCE_REQ_RUN_PASSES);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)i);
	}

	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

/*
 * Bad datagrams for the GSI QP: a wrong Q_Key (MR-UD-5) and a payload that
 * is not one MAD (MR-UD-14) are dropped and counted before they reach the
 * MAD layer; a 256-byte MAD of garbage (unknown version and class, an
 * unsolicited "response") is handed to the MAD layer, which discards it.
 * mrt_rc_rdma_cm, later in the suite, shows the GSI QP still works.
 */
static void mrt_rc_gsi_bad(struct kunit *test)
{
	u64 qk = mroce_counter_read(mrt_db, MROCE_CNT_QKEY_DROPS);
	u64 mal = mroce_counter_read(mrt_db, MROCE_CNT_MALFORMED_DROPS);
	u64 rx = mroce_counter_read(mrt_db, MROCE_CNT_RX_PKTS);
	struct mrt_ep a = {};
	struct ib_ah *ah;
	struct ib_wc wc;
	u8 *mad;
	int i;

	mad = kunit_kzalloc(test, sizeof(struct ib_mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mad);
	mrt_fill(mad, sizeof(struct ib_mad), 11);
	KUNIT_ASSERT_GE(test, mrt_ga, 0);
	/* The GSI Q_Key is a controlled one: the sender's own Q_Key. */
	mrt_ud_qp(test, &a, mrt_da, IB_QP1_QKEY);
	ah = mrt_ud_ah_to_b(test, a.pd);

	KUNIT_ASSERT_EQ(test, mrt_ud_post(&a, ah, MROCE_GSI_QPN, 0x1234, mad,
					  sizeof(struct ib_mad), 1), 0);
	KUNIT_ASSERT_EQ(test, mrt_ud_post(&a, ah, MROCE_GSI_QPN, IB_QP1_QKEY,
					  mad, 100, 2), 0);
	KUNIT_ASSERT_EQ(test, mrt_ud_post(&a, ah, MROCE_GSI_QPN, IB_QP1_QKEY,
					  mad, sizeof(struct ib_mad), 3), 0);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	}
	KUNIT_EXPECT_GE(test, mrt_wait_counter(mrt_db, MROCE_CNT_RX_PKTS,
					       rx + 3), rx + 3);
	KUNIT_EXPECT_EQ(test, mrt_wait_counter(mrt_db, MROCE_CNT_QKEY_DROPS,
					       qk + 1), qk + 1);
	KUNIT_EXPECT_EQ(test, mrt_wait_counter(mrt_db,
					       MROCE_CNT_MALFORMED_DROPS,
					       mal + 1), mal + 1);

	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	mrt_ep_free(&a);
}

/* ---- rdma_cm over the GSI QP ---- */

struct mrt_cm {
	wait_queue_head_t wq;
	unsigned long seen;		/* bit per rdma_cm_event_type */
	int status;
	struct rdma_cm_id *conn;	/* server: the new connection's id */
};

static int mrt_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct mrt_cm *c = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		c->conn = id;
	c->status = ev->status;
	set_bit(ev->event, &c->seen);
	wake_up(&c->wq);
	return 0;
}

static bool mrt_cm_wait(struct mrt_cm *c, enum rdma_cm_event_type ev)
{
	return wait_event_timeout(c->wq, test_bit(ev, &c->seen), 10 * HZ);
}

/* Allocate PD/CQ and an RC QP on @id's device through rdma_cm. */
static void mrt_cm_qp(struct kunit *test, struct rdma_cm_id *id,
		      struct mrt_ep *ep)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = {
			.max_send_wr = 8, .max_recv_wr = 8,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};

	mrt_ep_pd_cq(test, ep, to_mdev(id->device), 32);
	init.send_cq = ep->cq;
	init.recv_cq = ep->cq;
	KUNIT_ASSERT_EQ(test, rdma_create_qp(id, ep->pd, &init), 0);
	ep->qp = id->qp;
}

static void mrt_cm_free(struct rdma_cm_id *id, struct mrt_ep *ep)
{
	if (id && id->qp)
		rdma_destroy_qp(id);
	ep->qp = NULL;
	mrt_ep_free(ep);
}

/*
 * A kernel consumer's connection setup: rdma_cm in namespace mra
 * connects to a listener in mrb; the CM's MADs travel over the GSI QPs
 * (UD), then data flows over the RC connection the way storage ULPs move
 * it: a SEND out of a fast-registered (FRWR) buffer, and an RDMA WRITE
 * into the peer's FRWR buffer through the rkey of its REG_MR.
 */
static void mrt_rc_rdma_cm(struct kunit *test)
{
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(18515) };
	struct sockaddr_in lis = dst;
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct rdma_cm_id *cid = NULL, *sid = NULL;
	struct ib_mr *smr = NULL, *wmr = NULL;
	struct mrt_ep ca = {}, sb = {};
	struct mrt_cm *cc, *sc;
	u8 *src, *dstbuf, *wbuf;
	struct ib_wc wc;

	KUNIT_ASSERT_NOT_NULL(test, mrt_da);
	cc = kunit_kzalloc(test, sizeof(*cc), GFP_KERNEL);
	sc = kunit_kzalloc(test, sizeof(*sc), GFP_KERNEL);
	src = kunit_kzalloc(test, 64, GFP_KERNEL);
	dstbuf = kunit_kzalloc(test, 64, GFP_KERNEL);
	wbuf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, cc && sc && src && dstbuf && wbuf);
	init_waitqueue_head(&cc->wq);
	init_waitqueue_head(&sc->wq);
	mrt_fill(src, 64, 8);
	dst.sin_addr.s_addr = in_aton(MRT_IP_B);
	lis.sin_addr.s_addr = in_aton(MRT_IP_B);

	sid = rdma_create_id(dev_net(mrt_db->ndev), mrt_cm_handler, sc,
			     RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sid));
	cid = rdma_create_id(dev_net(mrt_da->ndev), mrt_cm_handler, cc,
			     RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(cid)) {
		rdma_destroy_id(sid);
		KUNIT_FAIL(test, "rdma_create_id: %ld", PTR_ERR(cid));
		return;
	}
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(sid, (struct sockaddr *)&lis),
			0);
	KUNIT_EXPECT_EQ(test, rdma_listen(sid, 4), 0);

	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(cid, NULL,
						(struct sockaddr *)&dst, 2000),
			0);
	if (!mrt_cm_wait(cc, RDMA_CM_EVENT_ADDR_RESOLVED)) {
		KUNIT_FAIL(test, "address not resolved (seen %lx)", cc->seen);
		goto out;
	}
	KUNIT_EXPECT_PTR_EQ(test, cid->device, &mrt_da->ibdev);
	KUNIT_EXPECT_EQ(test, rdma_resolve_route(cid, 2000), 0);
	if (!mrt_cm_wait(cc, RDMA_CM_EVENT_ROUTE_RESOLVED)) {
		KUNIT_FAIL(test, "route not resolved (seen %lx)", cc->seen);
		goto out;
	}
	mrt_cm_qp(test, cid, &ca);
	KUNIT_EXPECT_EQ(test, rdma_connect(cid, &param), 0);

	if (!mrt_cm_wait(sc, RDMA_CM_EVENT_CONNECT_REQUEST)) {
		KUNIT_FAIL(test, "no connect request (client seen %lx)",
			   cc->seen);
		goto out;
	}
	mrt_cm_qp(test, sc->conn, &sb);
	KUNIT_ASSERT_EQ(test, mrt_post_recv(&sb, dstbuf, 64, 1), 0);
	rdma_lock_handler(sc->conn);
	KUNIT_EXPECT_EQ(test, rdma_accept(sc->conn, &param), 0);
	rdma_unlock_handler(sc->conn);
	KUNIT_EXPECT_TRUE(test, mrt_cm_wait(cc, RDMA_CM_EVENT_ESTABLISHED));
	KUNIT_EXPECT_TRUE(test, mrt_cm_wait(sc, RDMA_CM_EVENT_ESTABLISHED));

	/* Data over the connection rdma_cm set up, from and to FRWR MRs. */
	smr = mrt_fr_mr(test, &ca, src, 64, IB_ACCESS_LOCAL_WRITE);
	wmr = mrt_fr_mr(test, &sb, wbuf, 64,
			IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	{
		struct ib_sge sge = { (uintptr_t)src, 64, smr->lkey };
		struct ib_send_wr wr = {
			.wr_id = 2, .opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge, .num_sge = 1,
		};
		const struct ib_send_wr *bad;

		KUNIT_EXPECT_EQ(test, ib_post_send(ca.qp, &wr, &bad), 0);
	}
	KUNIT_ASSERT_EQ(test, mrt_poll(&sb, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(dstbuf, src, 64), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&ca, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);

	KUNIT_EXPECT_EQ(test, mrt_post_rdma(&ca, IB_WR_RDMA_WRITE, src, 64,
					    wmr->iova, wmr->rkey, 3), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&ca, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 3ULL);
	KUNIT_EXPECT_EQ(test, memcmp(wbuf, src, 64), 0);

	rdma_disconnect(cid);
	mrt_cm_wait(sc, RDMA_CM_EVENT_DISCONNECTED);
	ib_dereg_mr(smr);
	ib_dereg_mr(wmr);
out:
	if (sc->conn) {
		mrt_cm_free(sc->conn, &sb);
		rdma_destroy_id(sc->conn);
	}
	mrt_cm_free(cid, &ca);
	rdma_destroy_id(cid);
	rdma_destroy_id(sid);
}

/* RC over IPv6 GIDs: the UDP checksum is computed (MR-ENC-3). */
static void mrt_rc_ipv6(struct kunit *test)
{
	const u32 len = 3000;
	struct mrt_ep a = {}, b = {};
	int ga, gb;
	u8 *src, *dst;
	struct ib_wc wc;

	ga = mrt_gid6_index(mrt_da, "2001:db8:77::1");
	gb = mrt_gid6_index(mrt_db, "2001:db8:77::2");
	if (ga < 0 || gb < 0) {
		const struct ib_gid_attr *attr;
		int i;

		for (i = 0; i < 16; i++) {
			attr = rdma_get_gid_attr(&mrt_da->ibdev, 1, i);
			if (IS_ERR(attr))
				continue;
			pr_info("mrt: gid %d %pI6 type %d\n", i,
				attr->gid.raw, attr->gid_type);
			rdma_put_gid_attr(attr);
		}
	}
	KUNIT_ASSERT_GE(test, ga, 0);
	KUNIT_ASSERT_GE(test, gb, 0);
	mrt_connect2(test, &a, &b, mrt_da, mrt_db, ga, gb, "2001:db8:77::1",
		     "2001:db8:77::2");
	src = kunit_kzalloc(test, len, GFP_KERNEL);
	dst = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, src && dst);
	mrt_fill(src, len, 6);

	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, src, len,
					    (uintptr_t)dst,
					    b.pd->unsafe_global_rkey, 1), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, len), 0);

	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

/* SENDs into a shared receive queue, with the limit event. */
static void mrt_rc_srq(struct kunit *test)
{
	struct ib_srq_init_attr sinit = {
		.attr = { .max_wr = 8, .max_sge = 1, .srq_limit = 0 },
		.srq_type = IB_SRQT_BASIC,
		.event_handler = mrt_ep_event,
	};
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
		.event_handler = mrt_ep_event,
	};
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *bad;
	struct ib_recv_wr rwr = {};
	struct ib_send_wr wr = {};
	struct ib_srq_attr sattr;
	struct mrt_ep a = {}, b = {};
	struct ib_sge sge;
	struct ib_srq *srq;
	struct ib_wc wc;
	u8 *src, *dst;
	int i;

	src = kunit_kzalloc(test, 2000, GFP_KERNEL);
	dst = kunit_kzalloc(test, 4 * 2000, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, src && dst);
	mrt_fill(src, 2000, 2);
	KUNIT_ASSERT_GE(test, mrt_ga, 0);
	KUNIT_ASSERT_GE(test, mrt_gb, 0);

	mrt_ep_init(test, &a, mrt_da);
	mrt_ep_pd_cq(test, &b, mrt_db, 64);
	sinit.srq_context = &b;
	srq = ib_create_srq(b.pd, &sinit);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	init.send_cq = b.cq;
	init.recv_cq = b.cq;
	init.srq = srq;
	init.qp_context = &b;
	b.qp = ib_create_qp(b.pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(b.qp));

	mrt_connect_qps(test, a.qp, b.qp, mrt_ga, mrt_gb, MRT_IP_A, MRT_IP_B);

	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	for (i = 0; i < 4; i++) {
		sge = (struct ib_sge){ (uintptr_t)dst + i * 2000, 2000,
				       b.pd->local_dma_lkey };
		rwr.wr_id = 30 + i;
		KUNIT_ASSERT_EQ(test, ib_post_srq_recv(srq, &rwr, &rbad), 0);
	}
	sattr.srq_limit = 3;
	KUNIT_ASSERT_EQ(test, ib_modify_srq(srq, &sattr, IB_SRQ_LIMIT), 0);

	wr.opcode = IB_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	for (i = 0; i < 2; i++) {
		sge = (struct ib_sge){ (uintptr_t)src, 2000 - i * 100,
				       a.pd->local_dma_lkey };
		wr.wr_id = i;
		wr.send_flags = IB_SEND_SIGNALED;
		KUNIT_ASSERT_EQ(test, ib_post_send(a.qp, &wr, &bad), 0);
	}
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, mrt_poll(&b, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 30ULL + i);
		KUNIT_EXPECT_EQ(test, wc.byte_len, 2000U - i * 100);
		KUNIT_EXPECT_EQ(test, memcmp(dst + i * 2000, src,
					     2000 - i * 100), 0);
	}
	/* 4 posted, 2 consumed: below the limit of 3, reported once. */
	KUNIT_EXPECT_EQ(test, b.events, 1);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);

	ib_destroy_qp(b.qp);
	b.qp = NULL;
	ib_destroy_srq(srq);
	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

static struct kunit_case mrt_rc_cases[] = {
	KUNIT_CASE(mrt_rc_srq),
	KUNIT_CASE(mrt_rc_ipv6),
	KUNIT_CASE(mrt_rc_gsi_bad),
	KUNIT_CASE(mrt_rc_rdma_cm),
	KUNIT_CASE(mrt_rc_ud),
	KUNIT_CASE(mrt_rc_post_bounded),
	KUNIT_CASE(mrt_rc_retry_exceeded),
	KUNIT_CASE(mrt_rc_send),
	KUNIT_CASE(mrt_rc_hello),
	KUNIT_CASE(mrt_rc_write_read_small),
	KUNIT_CASE(mrt_rc_write_read_large),
	KUNIT_CASE(mrt_rc_read_path_mtu_above_link),
	KUNIT_CASE(mrt_rc_atomic),
	KUNIT_CASE(mrt_rc_rnr),
	KUNIT_CASE(mrt_rc_solicited_after_rnr),
	KUNIT_CASE(mrt_rc_fail_behind_read),
	KUNIT_CASE(mrt_rc_remote_access_error),
	KUNIT_CASE(mrt_rc_send_inv),
	{}
};

static struct kunit_suite mrt_rc_suite = {
	.name = "metaroce_rc",
	.suite_init = mrt_rc_suite_init,
	.suite_exit = mrt_rc_suite_exit,
	.test_cases = mrt_rc_cases,
};

kunit_test_suite(mrt_rc_suite);
