// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE KUnit suite metaroce_verbs: verbs objects on one device (QP
 * state machine and flush, MR checks and fast registration, CQ
 * notification, SRQ limit).
 */

#include <linux/gfp.h>
#include <linux/scatterlist.h>

#include "kunit_fixture.h"

/* Shared by the verbs suite: one device on mrk0 and its IPv4 GID. */
static struct mroce_dev *mrt_vdev;
static int mrt_vgid;

static int mrt_verbs_suite_init(struct kunit_suite *suite)
{
	struct net_device *ndev;
	int err;

	ndev = mrt_ndev_get("mrk0");
	if (!ndev)
		return -ENODEV;
	err = mroce_dev_add("mrt_v", ndev);
	mrt_vdev = err ? NULL : mroce_dev_find_ndev(ndev);
	dev_put(ndev);
	if (!mrt_vdev)
		return err ?: -ENODEV;
	mrt_vgid = mrt_gid_index(mrt_vdev, MRT_IP_A);
	return 0;
}

static void mrt_verbs_suite_exit(struct kunit_suite *suite)
{
	if (mrt_vdev)
		mrt_dev_del(mrt_vdev);
	mrt_vdev = NULL;
}

struct mrt_res {
	struct ib_pd *pd;
	struct ib_cq *scq;
	struct ib_cq *rcq;
	struct ib_qp *qp;
	int comp_calls;
	int events;
	enum ib_event_type last_event;
};

static void mrt_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct mrt_res *r = ctx;

	r->comp_calls++;
}

static void mrt_event_handler(struct ib_event *ev, void *ctx)
{
	struct mrt_res *r = ctx;

	r->events++;
	r->last_event = ev->event;
}

static struct ib_cq *mrt_cq(struct kunit *test, struct mrt_res *r, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct ib_cq *cq;

	cq = ib_create_cq(&mrt_vdev->ibdev, mrt_comp_handler,
			  mrt_event_handler, r, &attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(cq));
	return cq;
}

static void mrt_res_init(struct kunit *test, struct mrt_res *r,
			 struct ib_srq *srq)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 16, .max_recv_wr = 16,
			.max_send_sge = 4, .max_recv_sge = 4,
			.max_inline_data = 64,
		},
		.qp_context = r,
		.event_handler = mrt_event_handler,
	};

	KUNIT_ASSERT_NOT_NULL(test, mrt_vdev);
	r->pd = ib_alloc_pd(&mrt_vdev->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->pd));
	r->scq = mrt_cq(test, r, 64);
	r->rcq = mrt_cq(test, r, 64);
	init.send_cq = r->scq;
	init.recv_cq = r->rcq;
	init.srq = srq;
	r->qp = ib_create_qp(r->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->qp));
	KUNIT_EXPECT_GE(test, r->qp->qp_num, (u32)MROCE_FIRST_QPN);
	KUNIT_EXPECT_GE(test, init.cap.max_send_wr, 16U);
}

static void mrt_res_free(struct mrt_res *r)
{
	if (!IS_ERR_OR_NULL(r->qp))
		ib_destroy_qp(r->qp);
	if (!IS_ERR_OR_NULL(r->scq))
		ib_destroy_cq(r->scq);
	if (!IS_ERR_OR_NULL(r->rcq))
		ib_destroy_cq(r->rcq);
	if (!IS_ERR_OR_NULL(r->pd))
		ib_dealloc_pd(r->pd);
}

/* Loopback RC QP (connected to itself) in RTS. */
static void mrt_qp_rts(struct kunit *test, struct ib_qp *qp)
{
	KUNIT_ASSERT_GE(test, mrt_vgid, 0);
	KUNIT_ASSERT_EQ(test, mrt_to_init(qp), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rtr(qp, qp->qp_num, mrt_vgid, MRT_IP_A, 0),
			0);
	KUNIT_ASSERT_EQ(test, mrt_to_rts(qp), 0);
}

static void mrt_qp_state_machine(struct kunit *test)
{
	struct mrt_res r = {};
	struct ib_qp_attr a = {};

	mrt_res_init(test, &r, NULL);
	KUNIT_ASSERT_GE(test, mrt_vgid, 0);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(r.qp), IB_QPS_RESET);

	/* Illegal from RESET. */
	KUNIT_EXPECT_EQ(test, mrt_to(r.qp, IB_QPS_RTR), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrt_to(r.qp, IB_QPS_RTS), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrt_to(r.qp, IB_QPS_SQD), -EINVAL);
	/* INIT without its required attributes. */
	KUNIT_EXPECT_EQ(test, mrt_to(r.qp, IB_QPS_INIT), -EINVAL);
	/*
	 * A bad port is not tested through ib_modify_qp(): 6.1's
	 * _ib_modify_qp() reads port_data[port] before validating it.
	 */
	KUNIT_EXPECT_EQ(test, mrt_qp_state(r.qp), IB_QPS_RESET);

	KUNIT_EXPECT_EQ(test, mrt_to_init(r.qp), 0);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(r.qp), IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, mrt_to(r.qp, IB_QPS_RTS), -EINVAL);
	/* RTR needs the AV (and the other RC attributes). */
	KUNIT_EXPECT_EQ(test, mrt_to_rtr(r.qp, r.qp->qp_num, mrt_vgid,
					 MRT_IP_A, IB_QP_AV), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrt_to_rtr(r.qp, r.qp->qp_num, mrt_vgid,
					 MRT_IP_A, IB_QP_DEST_QPN), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(r.qp), IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, mrt_to_rtr(r.qp, r.qp->qp_num, mrt_vgid,
					 MRT_IP_A, 0), 0);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(r.qp), IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, mrt_to_rts(r.qp), 0);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(r.qp), IB_QPS_RTS);

	/* RTS -> SQD -> RTS, with the SQ drained event. */
	a.qp_state = IB_QPS_SQD;
	a.en_sqd_async_notify = 1;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(r.qp, &a, IB_QP_STATE |
					   IB_QP_EN_SQD_ASYNC_NOTIFY), 0);
	KUNIT_EXPECT_EQ(test, r.last_event, IB_EVENT_SQ_DRAINED);
	KUNIT_EXPECT_EQ(test, mrt_to(r.qp, IB_QPS_RTS), 0);
	/* Back to INIT is illegal; ERR from anywhere; RESET from ERR. */
	KUNIT_EXPECT_EQ(test, mrt_to(r.qp, IB_QPS_INIT), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrt_to(r.qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(r.qp), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, mrt_to(r.qp, IB_QPS_RTS), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrt_to(r.qp, IB_QPS_RESET), 0);
	KUNIT_EXPECT_EQ(test, mrt_to_init(r.qp), 0);

	mrt_res_free(&r);
}

static void mrt_qp_flush_on_error(struct kunit *test)
{
	struct ib_recv_wr rwr = {};
	const struct ib_recv_wr *cbad_rwr;
	const struct ib_send_wr *cbad;
	struct ib_send_wr swr = {};
	struct mrt_res r = {};
	struct ib_wc wc[8];
	int i, n;

	mrt_res_init(test, &r, NULL);

	/* post_recv in RESET is refused. */
	KUNIT_EXPECT_EQ(test, ib_post_recv(r.qp, &rwr, &cbad_rwr), -EINVAL);
	KUNIT_ASSERT_EQ(test, mrt_to_init(r.qp), 0);
	for (i = 0; i < 3; i++) {
		rwr.wr_id = 100 + i;
		KUNIT_EXPECT_EQ(test, ib_post_recv(r.qp, &rwr, &cbad_rwr), 0);
	}
	/* post_send before RTS is refused. */
	swr.opcode = IB_WR_LOCAL_INV;
	swr.wr_id = 7;
	KUNIT_EXPECT_EQ(test, ib_post_send(r.qp, &swr, &cbad), -EINVAL);

	KUNIT_ASSERT_EQ(test, mrt_to(r.qp, IB_QPS_ERR), 0);
	n = ib_poll_cq(r.rcq, ARRAY_SIZE(wc), wc);
	KUNIT_EXPECT_EQ(test, n, 3);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, 100ULL + i);
		KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, r.qp);
	}

	/* Posting in ERR completes with a flush error (ib_drain_qp). */
	KUNIT_EXPECT_EQ(test, ib_post_send(r.qp, &swr, &cbad), 0);
	n = ib_poll_cq(r.scq, ARRAY_SIZE(wc), wc);
	KUNIT_EXPECT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 7ULL);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_WR_FLUSH_ERR);
	rwr.wr_id = 200;
	KUNIT_EXPECT_EQ(test, ib_post_recv(r.qp, &rwr, &cbad_rwr), 0);
	n = ib_poll_cq(r.rcq, ARRAY_SIZE(wc), wc);
	KUNIT_EXPECT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 200ULL);

	mrt_res_free(&r);
}

static void mrt_mr_dma_checks(struct kunit *test)
{
	struct mrt_res r = {};
	struct ib_pd *pd2;
	struct ib_mr *ibmr;
	struct mroce_mr *mr;
	u8 buf[64];

	mrt_res_init(test, &r, NULL);
	pd2 = ib_alloc_pd(&mrt_vdev->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd2));

	/* The PD's internal DMA MR: local write only. */
	ibmr = r.pd->__internal_mr;
	KUNIT_ASSERT_NOT_NULL(test, ibmr);
	mr = to_mmr(ibmr);
	KUNIT_EXPECT_EQ(test, ibmr->lkey, r.pd->local_dma_lkey);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->lkey,
					     (uintptr_t)buf, sizeof(buf),
					     IB_ACCESS_LOCAL_WRITE), 0);
	/* Wrong key byte, wrong PD, a right not granted. */
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->lkey ^ 1,
					     (uintptr_t)buf, sizeof(buf), 0),
			-EACCES);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, pd2, ibmr->lkey,
					     (uintptr_t)buf, sizeof(buf), 0),
			-EACCES);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->lkey,
					     (uintptr_t)buf, sizeof(buf),
					     IB_ACCESS_REMOTE_WRITE), -EACCES);
	/* Lookup by key finds it; an unknown index does not. */
	mr = mroce_mr_get(mrt_vdev, ibmr->lkey);
	KUNIT_EXPECT_PTR_EQ(test, mr, to_mmr(ibmr));
	if (mr)
		mroce_mr_put(mr);
	KUNIT_EXPECT_NULL(test, mroce_mr_get(mrt_vdev, 0xfffffe00));

	ib_dealloc_pd(pd2);
	mrt_res_free(&r);
}

static int mrt_post_inv(struct ib_qp *qp, u32 rkey, u64 wr_id)
{
	const struct ib_send_wr *bad;
	struct ib_send_wr wr = {
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.wr_id = wr_id,
		.ex.invalidate_rkey = rkey,
	};

	return ib_post_send(qp, &wr, &bad);
}

static void mrt_mr_fastreg(struct kunit *test)
{
	const int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			IB_ACCESS_REMOTE_READ;
	u8 pattern[300], back[300];
	struct scatterlist sg;
	struct mrt_res r = {};
	struct mroce_mr *mr;
	struct ib_mr *ibmr;
	struct ib_wc wc;
	u32 old_rkey;
	void *buf;
	u64 iova;
	int i;

	mrt_res_init(test, &r, NULL);
	mrt_qp_rts(test, r.qp);

	/* Three pages, registered from an offset inside the first. */
	buf = (void *)__get_free_pages(GFP_KERNEL, 2);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	sg_init_one(&sg, buf + 100, 3 * PAGE_SIZE - 200);
	sg_dma_address(&sg) = (uintptr_t)(buf + 100);
	sg_dma_len(&sg) = 3 * PAGE_SIZE - 200;

	ibmr = ib_alloc_mr(r.pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ibmr));
	mr = to_mmr(ibmr);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(ibmr, &sg, 1, NULL, PAGE_SIZE), 1);
	iova = ibmr->iova;
	KUNIT_EXPECT_EQ(test, ibmr->length, 3 * PAGE_SIZE - 200);

	/* Not registered yet: no access. */
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->rkey, iova, 8, 0),
			-EACCES);

	old_rkey = ibmr->rkey;
	ib_update_fast_reg_key(ibmr, (u8)(ibmr->rkey + 1));
	KUNIT_ASSERT_EQ(test, mrt_post_reg(r.qp, ibmr, acc, 1), 0);
	KUNIT_ASSERT_EQ(test, ib_poll_cq(r.scq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_REG_MR);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);

	/* Bounds and rights. */
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->rkey, iova,
					     ibmr->length,
					     IB_ACCESS_REMOTE_WRITE), 0);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->rkey, iova,
					     ibmr->length + 1, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->rkey, iova - 1,
					     8, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->rkey,
					     iova + ibmr->length, 1, 0),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->rkey, U64_MAX,
					     2, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, old_rkey, iova, 8, 0),
			-EACCES);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->rkey, iova, 8,
					     IB_ACCESS_REMOTE_ATOMIC),
			-EACCES);

	/* Data lands where the page list says, across page boundaries. */
	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = i * 7 + 3;
	KUNIT_EXPECT_EQ(test, mroce_mr_copy(mr, iova + PAGE_SIZE - 250,
					    pattern, sizeof(pattern), true),
			0);
	KUNIT_EXPECT_EQ(test, memcmp(buf + PAGE_SIZE - 150, pattern,
				     sizeof(pattern)), 0);
	KUNIT_EXPECT_EQ(test, mroce_mr_copy(mr, iova + PAGE_SIZE - 250, back,
					    sizeof(back), false), 0);
	KUNIT_EXPECT_EQ(test, memcmp(back, pattern, sizeof(pattern)), 0);

	/* Registering a valid MR again fails and errors the QP. */
	KUNIT_ASSERT_EQ(test, mrt_post_reg(r.qp, ibmr, acc, 2), 0);
	KUNIT_ASSERT_EQ(test, ib_poll_cq(r.scq, 1, &wc), 1);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mrt_qp_state(r.qp), IB_QPS_ERR);

	/* Fresh QP: local invalidate, then the key no longer works. */
	KUNIT_ASSERT_EQ(test, mrt_to(r.qp, IB_QPS_RESET), 0);
	mrt_qp_rts(test, r.qp);
	KUNIT_ASSERT_EQ(test, mrt_post_inv(r.qp, ibmr->rkey ^ 0x55, 3), 0);
	KUNIT_ASSERT_EQ(test, ib_poll_cq(r.scq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
	KUNIT_ASSERT_EQ(test, mrt_to(r.qp, IB_QPS_RESET), 0);
	mrt_qp_rts(test, r.qp);
	KUNIT_ASSERT_EQ(test, mrt_post_inv(r.qp, ibmr->rkey, 4), 0);
	KUNIT_ASSERT_EQ(test, ib_poll_cq(r.scq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->rkey, iova, 8, 0),
			-EACCES);

	/* Re-register with a new key byte. */
	ib_update_fast_reg_key(ibmr, (u8)(ibmr->rkey + 1));
	KUNIT_ASSERT_EQ(test, mrt_post_reg(r.qp, ibmr, acc, 5), 0);
	KUNIT_ASSERT_EQ(test, ib_poll_cq(r.scq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->rkey, iova, 8, 0),
			0);

	ib_dereg_mr(ibmr);
	free_pages((unsigned long)buf, 2);
	mrt_res_free(&r);
}

static void mrt_cq_notify(struct kunit *test)
{
	struct mrt_res r = {};
	struct ib_wc wc = { .status = IB_WC_SUCCESS };
	struct ib_wc out[4];
	struct ib_cq *cq;

	KUNIT_ASSERT_NOT_NULL(test, mrt_vdev);
	cq = mrt_cq(test, &r, 2);

	/* Not armed: no call. */
	KUNIT_EXPECT_EQ(test, mroce_cq_post(to_mcq(cq), &wc, false), 0);
	KUNIT_EXPECT_EQ(test, r.comp_calls, 0);
	/* Missed events are reported. */
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 1);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 4, out), 1);
	/* Armed once: one call. */
	KUNIT_EXPECT_EQ(test, mroce_cq_post(to_mcq(cq), &wc, false), 0);
	KUNIT_EXPECT_EQ(test, r.comp_calls, 1);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 4, out), 1);
	KUNIT_EXPECT_EQ(test, mroce_cq_post(to_mcq(cq), &wc, false), 0);
	KUNIT_EXPECT_EQ(test, r.comp_calls, 1);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 4, out), 1);
	/* Solicited: only a solicited (or error) completion fires. */
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_SOLICITED), 0);
	KUNIT_EXPECT_EQ(test, mroce_cq_post(to_mcq(cq), &wc, false), 0);
	KUNIT_EXPECT_EQ(test, r.comp_calls, 1);
	KUNIT_EXPECT_EQ(test, mroce_cq_post(to_mcq(cq), &wc, true), 0);
	KUNIT_EXPECT_EQ(test, r.comp_calls, 2);
	/* Full (2 entries): overflow raises the CQ error event once. */
	KUNIT_EXPECT_EQ(test, mroce_cq_post(to_mcq(cq), &wc, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, r.events, 1);
	KUNIT_EXPECT_EQ(test, r.last_event, IB_EVENT_CQ_ERR);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 4, out), 2);

	ib_destroy_cq(cq);
}

/* Post a successful completion with @wr_id on @cq. */
static int mrt_cq_put(struct ib_cq *cq, u64 wr_id)
{
	struct ib_wc wc = { .status = IB_WC_SUCCESS, .wr_id = wr_id };

	return mroce_cq_post(to_mcq(cq), &wc, false);
}

/*
 * ib_resize_cq of a kernel CQ keeps the completions not yet polled, in
 * order, also when they wrap the old array; it refuses a size they do
 * not fit and one outside 1..max_cqe, leaving the CQ as it was.
 */
static void mrt_cq_resize(struct kunit *test)
{
	struct mrt_res r = {};
	struct ib_wc out[8];
	struct ib_cq *cq;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, mrt_vdev);
	cq = mrt_cq(test, &r, 4);
	for (i = 1; i <= 3; i++)
		KUNIT_EXPECT_EQ(test, mrt_cq_put(cq, i), 0);
	KUNIT_ASSERT_EQ(test, ib_poll_cq(cq, 1, out), 1);
	KUNIT_EXPECT_EQ(test, out[0].wr_id, 1ULL);
	/* 2..5 held, wrapping the array of 4 */
	KUNIT_EXPECT_EQ(test, mrt_cq_put(cq, 4), 0);
	KUNIT_EXPECT_EQ(test, mrt_cq_put(cq, 5), 0);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, mrt_vdev->attr.max_cqe + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cq->cqe, 4);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, 8), 0);
	KUNIT_EXPECT_EQ(test, cq->cqe, 8);
	for (i = 6; i <= 9; i++)
		KUNIT_EXPECT_EQ(test, mrt_cq_put(cq, i), 0);
	KUNIT_ASSERT_EQ(test, ib_poll_cq(cq, 8, out), 8);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, out[i].wr_id, (u64)(i + 2));
	/* shrunk to what it holds; then it holds exactly that */
	KUNIT_EXPECT_EQ(test, mrt_cq_put(cq, 10), 0);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, 1), 0);
	KUNIT_EXPECT_EQ(test, cq->cqe, 1);
	KUNIT_ASSERT_EQ(test, ib_poll_cq(cq, 8, out), 1);
	KUNIT_EXPECT_EQ(test, out[0].wr_id, 10ULL);
	KUNIT_EXPECT_EQ(test, mrt_cq_put(cq, 11), 0);
	KUNIT_EXPECT_EQ(test, r.events, 0);
	KUNIT_EXPECT_EQ(test, mrt_cq_put(cq, 12), -ENOSPC);
	KUNIT_EXPECT_EQ(test, r.events, 1);
	KUNIT_EXPECT_EQ(test, r.last_event, IB_EVENT_CQ_ERR);
	ib_destroy_cq(cq);
}

static void mrt_srq_limit(struct kunit *test)
{
	struct ib_srq_init_attr init = {
		.attr = { .max_wr = 8, .max_sge = 2 },
		.srq_type = IB_SRQT_BASIC,
		.event_handler = mrt_event_handler,
	};
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = {};
	struct ib_srq_attr attr;
	struct mrt_res r = {};
	struct ib_srq *srq;
	struct ib_pd *pd;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, mrt_vdev);
	pd = ib_alloc_pd(&mrt_vdev->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	init.srq_context = &r;
	srq = ib_create_srq(pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));

	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, ib_post_srq_recv(srq, &wr, &bad), 0);
	/* Too many SGEs. */
	wr.num_sge = 3;
	KUNIT_EXPECT_EQ(test, ib_post_srq_recv(srq, &wr, &bad), -EINVAL);
	wr.num_sge = 0;

	attr.srq_limit = 2;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(srq, &attr, IB_SRQ_LIMIT), 0);
	KUNIT_EXPECT_EQ(test, r.events, 0);
	KUNIT_EXPECT_EQ(test, ib_query_srq(srq, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.srq_limit, 2U);
	/* Arming above the fill level reports the limit at once. */
	attr.srq_limit = 5;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(srq, &attr, IB_SRQ_LIMIT), 0);
	KUNIT_EXPECT_EQ(test, r.events, 1);
	KUNIT_EXPECT_EQ(test, r.last_event, IB_EVENT_SRQ_LIMIT_REACHED);
	KUNIT_EXPECT_EQ(test, ib_query_srq(srq, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.srq_limit, 0U);	/* disarmed */
	/* Resizing is not supported. */
	attr.max_wr = 16;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(srq, &attr, IB_SRQ_MAX_WR),
			-EINVAL);

	/* A QP on the SRQ rejects its own post_recv. */
	mrt_res_init(test, &r, srq);
	KUNIT_EXPECT_EQ(test, ib_post_recv(r.qp, &wr, &bad), -EINVAL);
	mrt_res_free(&r);

	ib_destroy_srq(srq);
	ib_dealloc_pd(pd);
}

/* ---- memory windows (mw.c) ------------------------------------------ */

static struct ib_mw *mrt_mw_alloc(struct kunit *test, struct ib_pd *pd,
				  enum ib_mw_type type)
{
	struct ib_device *ibdev = &mrt_vdev->ibdev;
	struct ib_mw *mw = rdma_zalloc_drv_obj(ibdev, ib_mw);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, mw);
	mw->device = ibdev;
	mw->pd = pd;
	mw->type = type;
	err = mroce_alloc_mw(mw, NULL);
	if (err)
		kfree(mw);
	KUNIT_ASSERT_EQ(test, err, 0);
	return mw;
}

static void mrt_mw_free(struct kunit *test, struct ib_mw *mw)
{
	KUNIT_EXPECT_EQ(test, mroce_dealloc_mw(mw), 0);
	kfree(mw);
}

/* @rkey with its key byte advanced by @n (ibv_inc_rkey() @n times). */
static u32 mrt_key(u32 rkey, u32 n)
{
	return (rkey & ~0xffU) | ((rkey + n) & 0xffU);
}

static struct ib_mr *mrt_dma_mr(struct kunit *test, struct ib_pd *pd, int acc)
{
	struct ib_mr *mr = mroce_get_dma_mr(pd, acc);

	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	mr->device = pd->device;
	mr->pd = pd;
	return mr;
}

/* A BIND_MW WQE as uring.c copies it from a process's ring. */
static u8 mrt_bind(struct ib_qp *qp, struct ib_mw *mw, u32 new_rkey,
		   u32 lkey, u64 addr, u64 len, int acc)
{
	struct mroce_send_wqe w = {
		.opcode = IB_WR_BIND_MW,
		.wr.bind = {
			.addr = addr, .length = len, .mw_rkey = mw->rkey,
			.new_rkey = new_rkey, .mr_lkey = lkey, .access = acc,
		},
	};

	return mroce_mw_bind(to_mqp(qp), &w);
}

static bool mrt_reaches(struct ib_qp *qp, struct ib_mw *mw, u32 rkey,
			u64 va, u64 len, int acc, struct mroce_mr *want)
{
	struct mroce_mr *win = to_mmw(mw)->win, *mr;

	mr = mroce_mw_resolve(win, to_mqp(qp), rkey, va, len, acc);
	if (mr)
		mroce_mr_put(mr);
	return mr && mr == want;
}

/* MR-MW-1: windows share the MRs' key space but are no local key. */
static void mrt_mw_keys(struct kunit *test)
{
	struct mrt_res r = {};
	struct ib_mw *mw1, *mw2;
	struct ib_mr *ibmr;
	struct mroce_mr *m;
	u32 rkey2;
	u8 buf[64];

	mrt_res_init(test, &r, NULL);
	ibmr = mrt_dma_mr(test, r.pd, IB_ACCESS_LOCAL_WRITE |
			  IB_ACCESS_MW_BIND);
	mw1 = mrt_mw_alloc(test, r.pd, IB_MW_TYPE_1);
	mw2 = mrt_mw_alloc(test, r.pd, IB_MW_TYPE_2);
	KUNIT_EXPECT_NE(test, mw1->rkey >> 8, ibmr->rkey >> 8);
	KUNIT_EXPECT_NE(test, mw1->rkey >> 8, mw2->rkey >> 8);
	m = mroce_mr_get(mrt_vdev, mw2->rkey);
	KUNIT_EXPECT_PTR_EQ(test, m, to_mmw(mw2)->win);
	if (m) {
		KUNIT_EXPECT_TRUE(test, mroce_mr_is_mw(m));
		KUNIT_EXPECT_EQ(test, mroce_mr_check(m, r.pd, mw2->rkey,
						     (uintptr_t)buf,
						     sizeof(buf), 0),
				-EACCES);
		mroce_mr_put(m);
	}
	/* Gone from the key space once deallocated (MR-MW-6). */
	rkey2 = mw2->rkey;
	mrt_mw_free(test, mw1);
	KUNIT_EXPECT_NULL(test, mroce_mr_get(mrt_vdev, rkey2 ^ 0x100));
	mrt_mw_free(test, mw2);
	KUNIT_EXPECT_NULL(test, mroce_mr_get(mrt_vdev, rkey2));
	KUNIT_EXPECT_EQ(test, mroce_dereg_mr(ibmr, NULL), 0);
	mrt_res_free(&r);
}

/* MR-MW-2..5, MR-MW-7 on a loopback QP of the PD and a second QP. */
static void mrt_mw_bind_check(struct kunit *test)
{
	const int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	const u32 hi = 1U << (MROCE_KEY_IDX_BITS + 8);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_mr *ibmr, *nobind, *ro;
	struct mrt_res r = {};
	struct ib_mw *mw1, *mw2;
	struct mroce_mr *m;
	struct ib_qp *qp2;
	u64 va;
	u32 k;
	u8 *buf;

	buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	va = (uintptr_t)buf;
	mrt_res_init(test, &r, NULL);
	init.send_cq = r.scq;
	init.recv_cq = r.rcq;
	qp2 = ib_create_qp(r.pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp2));
	ibmr = mrt_dma_mr(test, r.pd, rw | IB_ACCESS_MW_BIND);
	nobind = mrt_dma_mr(test, r.pd, rw);
	ro = mrt_dma_mr(test, r.pd, IB_ACCESS_MW_BIND);
	m = to_mmr(ibmr);
	mw1 = mrt_mw_alloc(test, r.pd, IB_MW_TYPE_1);
	mw2 = mrt_mw_alloc(test, r.pd, IB_MW_TYPE_2);
	k = mrt_key(mw2->rkey, 1);

	/* MR-MW-3: each refused bind leaves the window unbound. */
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw2, k ^ 0x100, ibmr->lkey, va,
				       64, rw), IB_WC_MW_BIND_ERR);
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw2, k, nobind->lkey, va, 64,
				       rw), IB_WC_MW_BIND_ERR);
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw2, k, ro->lkey, va, 64, rw),
			IB_WC_MW_BIND_ERR);
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw2, k, ibmr->lkey ^ 1, va, 64,
				       rw), IB_WC_MW_BIND_ERR);
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw2, k, ibmr->lkey, va, 64,
				       rw | IB_ZERO_BASED), IB_WC_MW_BIND_ERR);
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw2, k, mw1->rkey, va, 64, rw),
			IB_WC_MW_BIND_ERR);
	/* MR-SEC-1: the random bits above the index are the window's. */
	mw2->rkey ^= hi;
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw2, k ^ hi, ibmr->lkey, va, 64,
				       rw), IB_WC_MW_BIND_ERR);
	mw2->rkey ^= hi;
	KUNIT_EXPECT_FALSE(test, mrt_reaches(r.qp, mw2, mw2->rkey, va, 8,
					     IB_ACCESS_REMOTE_WRITE, m));
	KUNIT_EXPECT_EQ(test, m->num_mw, 0U);

	/* MR-MW-2, MR-MW-4: bound, reached only as the bind says. */
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw2, k, ibmr->lkey, va + 64, 64,
				       rw), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, m->num_mw, 1U);
	KUNIT_EXPECT_TRUE(test, mrt_reaches(r.qp, mw2, k, va + 64, 64,
					    IB_ACCESS_REMOTE_WRITE, m));
	KUNIT_EXPECT_FALSE(test, mrt_reaches(r.qp, mw2, mw2->rkey, va + 64, 8,
					     IB_ACCESS_REMOTE_WRITE, m));
	KUNIT_EXPECT_FALSE(test, mrt_reaches(r.qp, mw2, k, va + 63, 8,
					     IB_ACCESS_REMOTE_WRITE, m));
	KUNIT_EXPECT_FALSE(test, mrt_reaches(r.qp, mw2, k, va + 120, 9,
					     IB_ACCESS_REMOTE_WRITE, m));
	KUNIT_EXPECT_FALSE(test, mrt_reaches(r.qp, mw2, k, va + 64, 8,
					     IB_ACCESS_REMOTE_READ, m));
	KUNIT_EXPECT_FALSE(test, mrt_reaches(qp2, mw2, k, va + 64, 8,
					     IB_ACCESS_REMOTE_WRITE, m));
	/* A bound type 2 window is not bound again. */
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw2, k, ibmr->lkey, va, 64, rw),
			IB_WC_MW_BIND_ERR);
	/* MR-MW-7 */
	KUNIT_EXPECT_EQ(test, mroce_dereg_mr(ibmr, NULL), -EBUSY);

	/* MR-MW-5: not from another QP, nor with another key. */
	KUNIT_EXPECT_EQ(test, mroce_mw_invalidate(to_mmw(mw2)->win,
						  to_mqp(qp2), k, true, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_mw_invalidate(to_mmw(mw2)->win,
						  to_mqp(r.qp), k ^ 1, false,
						  true), -EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_mw_invalidate(to_mmw(mw2)->win,
						  to_mqp(r.qp), k, true, false),
			0);
	KUNIT_EXPECT_TRUE(test, mrt_reaches(r.qp, mw2, k, va + 64, 8,
					    IB_ACCESS_REMOTE_WRITE, m));
	KUNIT_EXPECT_EQ(test, mroce_mw_invalidate(to_mmw(mw2)->win,
						  to_mqp(qp2), k, false, true),
			0);
	KUNIT_EXPECT_FALSE(test, mrt_reaches(r.qp, mw2, k, va + 64, 8,
					     IB_ACCESS_REMOTE_WRITE, m));
	KUNIT_EXPECT_EQ(test, m->num_mw, 0U);

	/* Type 1: rebound in place; length 0 unbinds; no invalidate. */
	k = mrt_key(mw1->rkey, 1);
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw1, k, ibmr->lkey, va, 32, rw),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, mrt_reaches(qp2, mw1, k, va, 32,
					    IB_ACCESS_REMOTE_WRITE, m));
	KUNIT_EXPECT_EQ(test, mroce_mw_invalidate(to_mmw(mw1)->win,
						  to_mqp(r.qp), k, false, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw1, mrt_key(k, 1), ibmr->lkey,
				       va + 32, 32, rw), IB_WC_SUCCESS);
	KUNIT_EXPECT_FALSE(test, mrt_reaches(qp2, mw1, k, va, 8,
					     IB_ACCESS_REMOTE_WRITE, m));
	KUNIT_EXPECT_EQ(test, m->num_mw, 1U);
	k = mrt_key(k, 2);
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw1, k, 0, 0, 0, 0),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_FALSE(test, mrt_reaches(qp2, mw1, k, va, 0, 0, m));
	KUNIT_EXPECT_EQ(test, m->num_mw, 0U);

	/* Deallocation lets go of the MR (MR-MW-6, MR-MW-7). */
	k = mrt_key(mw2->rkey, 2);
	KUNIT_EXPECT_EQ(test, mrt_bind(r.qp, mw2, k, ibmr->lkey, va, 8, rw),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, m->num_mw, 1U);
	mrt_mw_free(test, mw2);
	KUNIT_EXPECT_EQ(test, m->num_mw, 0U);
	mrt_mw_free(test, mw1);
	KUNIT_EXPECT_EQ(test, mroce_dereg_mr(ibmr, NULL), 0);
	KUNIT_EXPECT_EQ(test, mroce_dereg_mr(nobind, NULL), 0);
	KUNIT_EXPECT_EQ(test, mroce_dereg_mr(ro, NULL), 0);
	ib_destroy_qp(qp2);
	mrt_res_free(&r);
}

/* MR-SEC-1: 12 random key bits, and every check compares the whole key. */
static void mrt_mr_key_bits(struct kunit *test)
{
	const u32 hi = 1U << (MROCE_KEY_IDX_BITS + 8);
	struct ib_mr *frmr[32], *ibmr;
	struct scatterlist sg;
	struct mrt_res r = {};
	struct mroce_mr *mr;
	u32 seen = 0;
	u8 buf[64];
	void *page;
	int i;

	mrt_res_init(test, &r, NULL);
	for (i = 0; i < ARRAY_SIZE(frmr); i++) {
		frmr[i] = ib_alloc_mr(r.pd, IB_MR_TYPE_MEM_REG, 1);
		KUNIT_ASSERT_FALSE(test, IS_ERR(frmr[i]));
		KUNIT_EXPECT_EQ(test, mroce_key_index(frmr[i]->rkey),
				to_mmr(frmr[i])->index);
		seen |= BIT(frmr[i]->rkey >> (MROCE_KEY_IDX_BITS + 8));
	}
	/* 32 draws of the 4 bits above the index: all alike at 16^-31. */
	KUNIT_EXPECT_GT(test, hweight32(seen), 1);

	/* The index finds the MR; its check refuses other random bits. */
	ibmr = r.pd->__internal_mr;
	mr = mroce_mr_get(mrt_vdev, ibmr->lkey ^ hi);
	KUNIT_EXPECT_PTR_EQ(test, mr, to_mmr(ibmr));
	if (mr) {
		KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->lkey,
						     (uintptr_t)buf,
						     sizeof(buf), 0), 0);
		KUNIT_EXPECT_EQ(test, mroce_mr_check(mr, r.pd, ibmr->lkey ^ hi,
						     (uintptr_t)buf,
						     sizeof(buf), 0), -EACCES);
		mroce_mr_put(mr);
	}

	/* REG_MR chooses the key byte only (ib_update_fast_reg_key). */
	page = (void *)__get_free_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	sg_init_one(&sg, page, PAGE_SIZE);
	sg_dma_address(&sg) = (uintptr_t)page;
	sg_dma_len(&sg) = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(frmr[0], &sg, 1, NULL, PAGE_SIZE), 1);
	mr = to_mmr(frmr[0]);
	KUNIT_EXPECT_EQ(test, mroce_mr_reg(mr, mrt_key(frmr[0]->rkey, 1) ^ hi,
					   IB_ACCESS_LOCAL_WRITE), -EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_mr_reg(mr, mrt_key(frmr[0]->rkey, 1),
					   IB_ACCESS_LOCAL_WRITE), 0);

	for (i = 0; i < ARRAY_SIZE(frmr); i++)
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(frmr[i]), 0);
	free_page((unsigned long)page);
	mrt_res_free(&r);
}

static struct kunit_case mrt_verbs_cases[] = {
	KUNIT_CASE(mrt_qp_state_machine),
	KUNIT_CASE(mrt_qp_flush_on_error),
	KUNIT_CASE(mrt_mr_dma_checks),
	KUNIT_CASE(mrt_mr_fastreg),
	KUNIT_CASE(mrt_cq_notify),
	KUNIT_CASE(mrt_cq_resize),
	KUNIT_CASE(mrt_srq_limit),
	KUNIT_CASE(mrt_mw_keys),
	KUNIT_CASE(mrt_mw_bind_check),
	KUNIT_CASE(mrt_mr_key_bits),
	{}
};

static struct kunit_suite mrt_verbs_suite = {
	.name = "metaroce_verbs",
	.suite_init = mrt_verbs_suite_init,
	.suite_exit = mrt_verbs_suite_exit,
	.test_cases = mrt_verbs_cases,
};

kunit_test_suite(mrt_verbs_suite);
