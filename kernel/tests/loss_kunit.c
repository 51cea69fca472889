// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE KUnit suite metaroce_loss: loss and reordering (netem on
 * mrk6/mrk7).
 */

#include <linux/vmalloc.h>

#include "kunit_fixture.h"

#define MRT_IP_LA	"198.51.100.1"
#define MRT_IP_LB	"198.51.100.2"

static struct mroce_dev *mrt_la, *mrt_lb;
static int mrt_gla, mrt_glb;

static int mrt_loss_suite_init(struct kunit_suite *suite)
{
	int err = mrt_pair_add("mrk6", "mrt_la", &mrt_la,
			       "mrk7", "mrt_lb", &mrt_lb);

	if (err)
		return err;
	mrt_gla = mrt_gid_index(mrt_la, MRT_IP_LA);
	mrt_glb = mrt_gid_index(mrt_lb, MRT_IP_LB);
	return 0;
}

static void mrt_loss_suite_exit(struct kunit_suite *suite)
{
	mrt_pair_del(&mrt_la, &mrt_lb);
}

/*
 * 2% loss and 10% reordering both ways: WRITE and READ of 1 MiB and a
 * stream of multi-packet SENDs arrive intact, once, and in order.
 */
static void mrt_loss_transfer(struct kunit *test)
{
	const u32 len = 1 << 20, slen = 3000, nsend = 32;
	u64 retx = mroce_counter_read(mrt_la, MROCE_CNT_RETX);
	struct mrt_ep a = {}, b = {};
	const struct ib_send_wr *bad;
	struct ib_send_wr wr = {};
	u8 *src, *remote, *back, *rx;
	struct ib_sge sge;
	struct ib_wc wc;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, mrt_la);
	mrt_connect2(test, &a, &b, mrt_la, mrt_lb, mrt_gla, mrt_glb,
		     MRT_IP_LA, MRT_IP_LB);
	src = vzalloc(len);
	remote = vzalloc(len);
	back = vzalloc(len);
	rx = vzalloc(nsend * slen);
	KUNIT_ASSERT_TRUE(test, src && remote && back && rx);
	mrt_fill(src, len, 21);

	for (i = 0; i < nsend; i++)
		KUNIT_ASSERT_EQ(test, mrt_post_recv(&b, rx + i * slen, slen,
						    100 + i), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, src, len,
					    (uintptr_t)remote,
					    b.pd->unsafe_global_rkey, 1), 0);
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_READ, back, len,
					    (uintptr_t)remote,
					    b.pd->unsafe_global_rkey, 2), 0);
	wr.opcode = IB_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	for (i = 0; i < nsend; i++) {
		sge = (struct ib_sge){ (uintptr_t)src + i * 97, slen,
				       a.pd->local_dma_lkey };
		wr.wr_id = 10 + i;
		wr.send_flags = i == nsend - 1 ? IB_SEND_SIGNALED : 0;
		KUNIT_ASSERT_EQ(test, ib_post_send(a.qp, &wr, &bad), 0);
	}

	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 10ULL + nsend - 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(remote, src, len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(back, src, len), 0);

	for (i = 0; i < nsend; i++) {
		KUNIT_ASSERT_EQ(test, mrt_poll(&b, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 100ULL + i);
		KUNIT_EXPECT_EQ(test, memcmp(rx + i * slen, src + i * 97,
					     slen), 0);
	}
	KUNIT_EXPECT_EQ(test, ib_poll_cq(b.cq, 1, &wc), 0);
	/* 2% of ~2000 packets: some were lost and sent again. */
	KUNIT_EXPECT_GT(test, mroce_counter_read(mrt_la, MROCE_CNT_RETX),
			retx);
	mrt_dump_dev(mrt_la);
	mrt_dump_dev(mrt_lb);

	mrt_ep_free(&a);
	mrt_ep_free(&b);
	vfree(src);
	vfree(remote);
	vfree(back);
	vfree(rx);
}

static struct kunit_case mrt_loss_cases[] = {
	KUNIT_CASE(mrt_loss_transfer),
	{}
};

static struct kunit_suite mrt_loss_suite = {
	.name = "metaroce_loss",
	.suite_init = mrt_loss_suite_init,
	.suite_exit = mrt_loss_suite_exit,
	.test_cases = mrt_loss_cases,
};

kunit_test_suite(mrt_loss_suite);
