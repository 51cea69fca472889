// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE KUnit suites, built into metaroce.ko when the target kernel
 * has CONFIG_KUNIT; they run when the module is loaded in the test VM.
 *
 * The guest fabric comes from tests/kunit/setup.sh: namespaces mra and
 * mrb joined by veth pairs mrk0 (mra, 192.0.2.1, 2001:db8:77::1) <->
 * mrk1 (mrb, 192.0.2.2, 2001:db8:77::2), plus spare pairs mrk2/mrk3
 * (deleted by the unregister test) and mrk4/mrk5 (mrk4 moved to
 * init_net by the namespace-move test).
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <linux/vmalloc.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>
#include <rdma/rdma_cm.h>

#include "metaroce.h"

#define MRT_IP_A	"192.0.2.1"
#define MRT_IP_B	"192.0.2.2"

/* ---- fixture helpers ------------------------------------------------- */

/* Find netdev @name in any namespace; returns it with a reference. */
static struct net_device *mrt_ndev_get(const char *name)
{
	struct net_device *ndev = NULL;
	struct net *net;

	down_read(&net_rwsem);
	for_each_net(net) {
		ndev = dev_get_by_name(net, name);
		if (ndev)
			break;
	}
	up_read(&net_rwsem);
	return ndev;
}

/* Create device @ibname on netdev @ndev_name; registration ref held. */
static struct mroce_dev *mrt_dev_add(struct kunit *test,
				     const char *ndev_name,
				     const char *ibname)
{
	struct net_device *ndev = mrt_ndev_get(ndev_name);
	struct mroce_dev *dev;
	int err;

	KUNIT_ASSERT_NOT_NULL_MSG(test, ndev, "no netdev %s: setup.sh?",
				  ndev_name);
	err = mroce_dev_add(ibname, ndev);
	dev = err ? NULL : mroce_dev_find_ndev(ndev);
	dev_put(ndev);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	return dev;
}

static void mrt_dev_del(struct mroce_dev *dev)
{
	ib_unregister_device_and_put(&dev->ibdev);
}

static bool mrt_ibdev_exists(const char *ibname)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_name(ibname, RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		return false;
	ib_device_put(ibdev);
	return true;
}

/* Wait (max 5 s) for the RoCE GID of IPv4 @ip; returns its index. */
static int mrt_gid_index(struct mroce_dev *dev, const char *ip)
{
	const struct ib_gid_attr *attr;
	union ib_gid gid;
	__be32 addr;
	int i, idx;

	addr = in_aton(ip);
	ipv6_addr_set_v4mapped(addr, (struct in6_addr *)gid.raw);
	for (i = 0; i < 250; i++) {
		attr = rdma_find_gid_by_port(&dev->ibdev, &gid,
					     IB_GID_TYPE_ROCE_UDP_ENCAP, 1,
					     NULL);
		if (!IS_ERR(attr)) {
			idx = attr->index;
			rdma_put_gid_attr(attr);
			return idx;
		}
		msleep(20);
	}
	return -ENOENT;
}

/* Wait (max 5 s) for the RoCE GID of IPv6 @ip; returns its index. */
static int mrt_gid6_index(struct mroce_dev *dev, const char *ip)
{
	const struct ib_gid_attr *attr;
	union ib_gid gid;
	int i, idx;

	if (in6_pton(ip, -1, gid.raw, -1, NULL) != 1)
		return -EINVAL;
	for (i = 0; i < 250; i++) {
		attr = rdma_find_gid_by_port(&dev->ibdev, &gid,
					     IB_GID_TYPE_ROCE_UDP_ENCAP, 1,
					     NULL);
		if (!IS_ERR(attr)) {
			idx = attr->index;
			rdma_put_gid_attr(attr);
			return idx;
		}
		msleep(20);
	}
	return -ENOENT;
}

static int mrt_port_state(struct mroce_dev *dev, enum ib_mtu *mtu)
{
	struct ib_port_attr pa;

	if (ib_query_port(&dev->ibdev, 1, &pa))
		return -1;
	if (mtu)
		*mtu = pa.active_mtu;
	return pa.state;
}

/* ---- suite: device lifecycle ----------------------------------------- */

static int mrt_suite_init(struct kunit_suite *suite)
{
	return mroce_global_init();
}

static void mrt_dev_add_query(struct kunit *test)
{
	struct mroce_dev *dev = mrt_dev_add(test, "mrk0", "mrt_q");
	struct ib_device_attr *attr = &dev->ibdev.attrs;
	struct rdma_hw_stats *stats;
	struct net_device *ndev;
	enum ib_mtu mtu;

	KUNIT_EXPECT_EQ(test, attr->max_qp, MROCE_MAX_QP);
	KUNIT_EXPECT_TRUE(test, attr->kernel_cap_flags & IBK_ALLOW_USER_UNREG);
	KUNIT_EXPECT_TRUE(test, attr->device_cap_flags &
			  IB_DEVICE_MEM_MGT_EXTENSIONS);
	KUNIT_EXPECT_EQ(test, mrt_port_state(dev, &mtu), IB_PORT_ACTIVE);
	/* veth MTU 1500: 1024 + header overhead fits, 2048 does not. */
	KUNIT_EXPECT_EQ(test, mtu, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, rdma_port_get_link_layer(&dev->ibdev, 1),
			IB_LINK_LAYER_ETHERNET);
	KUNIT_EXPECT_TRUE(test, rdma_protocol_roce_udp_encap(&dev->ibdev, 1));
	KUNIT_EXPECT_GE(test, mrt_gid_index(dev, MRT_IP_A), 0);

	/* A second device on the same netdev is refused. */
	ndev = mrt_ndev_get("mrk0");
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	KUNIT_EXPECT_EQ(test, mroce_dev_add("mrt_q2", ndev), -EEXIST);
	dev_put(ndev);
	KUNIT_EXPECT_FALSE(test, mrt_ibdev_exists("mrt_q2"));

	stats = mroce_alloc_hw_port_stats(&dev->ibdev, 1);
	KUNIT_ASSERT_NOT_NULL(test, stats);
	KUNIT_EXPECT_EQ(test, mroce_get_hw_stats(&dev->ibdev, stats, 1, 0),
			MROCE_NUM_COUNTERS);
	rdma_free_hw_stats_struct(stats);

	mrt_dev_del(dev);
	KUNIT_EXPECT_FALSE(test, mrt_ibdev_exists("mrt_q"));
}

static void mrt_dev_port_follows_netdev(struct kunit *test)
{
	/* Not mrk0: an IPv6 address does not survive a down/up. */
	struct mroce_dev *dev = mrt_dev_add(test, "mrk4", "mrt_p");
	struct net_device *ndev = dev->ndev;
	enum ib_mtu mtu;

	rtnl_lock();
	dev_close(ndev);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, mrt_port_state(dev, NULL), IB_PORT_DOWN);

	rtnl_lock();
	KUNIT_EXPECT_EQ(test, dev_open(ndev, NULL), 0);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, mrt_port_state(dev, NULL), IB_PORT_ACTIVE);

	rtnl_lock();
	KUNIT_EXPECT_EQ(test, dev_set_mtu(ndev, 9000), 0);
	rtnl_unlock();
	mrt_port_state(dev, &mtu);
	KUNIT_EXPECT_EQ(test, mtu, IB_MTU_4096);

	rtnl_lock();
	KUNIT_EXPECT_EQ(test, dev_set_mtu(ndev, 1500), 0);
	rtnl_unlock();
	mrt_port_state(dev, &mtu);
	KUNIT_EXPECT_EQ(test, mtu, IB_MTU_1024);

	mrt_dev_del(dev);
}

static void mrt_dev_netdev_unregister(struct kunit *test)
{
	struct mroce_dev *dev = mrt_dev_add(test, "mrk2", "mrt_u");
	struct net_device *ndev = dev->ndev;

	/* Drop our registration ref: the notifier queues the teardown. */
	ib_device_put(&dev->ibdev);
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, rtnl_delete_link(ndev, 0, NULL), 0);
	rtnl_unlock();
	mroce_flush_unregister();
	KUNIT_EXPECT_FALSE(test, mrt_ibdev_exists("mrt_u"));
}

static void mrt_dev_netns_move(struct kunit *test)
{
	struct mroce_dev *dev = mrt_dev_add(test, "mrk4", "mrt_m");
	struct net_device *ndev = dev->ndev;
	int err;

	ib_device_put(&dev->ibdev);
	rtnl_lock();
	err = dev_change_net_namespace(ndev, &init_net, "mrk4");
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, err, 0);
	mroce_flush_unregister();
	KUNIT_EXPECT_FALSE(test, mrt_ibdev_exists("mrt_m"));
}

static struct kunit_case mrt_device_cases[] = {
	KUNIT_CASE(mrt_dev_add_query),
	KUNIT_CASE(mrt_dev_port_follows_netdev),
	KUNIT_CASE(mrt_dev_netdev_unregister),
	KUNIT_CASE(mrt_dev_netns_move),
	{}
};

static struct kunit_suite mrt_device_suite = {
	.name = "metaroce_device",
	.suite_init = mrt_suite_init,
	.test_cases = mrt_device_cases,
};

/* ---- suite: verbs objects -------------------------------------------- */

/* Shared by the verbs suite: one device on mrk0 and its IPv4 GID. */
static struct mroce_dev *mrt_vdev;
static int mrt_vgid;

static int mrt_verbs_suite_init(struct kunit_suite *suite)
{
	struct net_device *ndev;
	int err;

	err = mroce_global_init();
	if (err)
		return err;
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

static int mrt_to_init(struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_ATOMIC,
	};

	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_PORT | IB_QP_ACCESS_FLAGS);
}

static int mrt_to_rtr(struct ib_qp *qp, u32 dqpn, int gid, const char *dip,
		      int mask_drop)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTR,
		.path_mtu = IB_MTU_1024,
		.dest_qp_num = dqpn,
		.rq_psn = 0x123456,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 1,
	};
	union ib_gid *dgid;

	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, NULL, 0, gid, 64, 0);
	dgid = &a.ah_attr.grh.dgid;
	if (strchr(dip, ':'))
		in6_pton(dip, -1, dgid->raw, -1, NULL);
	else
		ipv6_addr_set_v4mapped(in_aton(dip),
				       (struct in6_addr *)dgid->raw);
	return ib_modify_qp(qp, &a, (IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
				     IB_QP_DEST_QPN | IB_QP_RQ_PSN |
				     IB_QP_MAX_DEST_RD_ATOMIC |
				     IB_QP_MIN_RNR_TIMER) & ~mask_drop);
}

static int mrt_to_rts(struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTS,
		.sq_psn = 0x123456,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 4,
	};

	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

static int mrt_to(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr a = { .qp_state = state };

	return ib_modify_qp(qp, &a, IB_QP_STATE);
}

static enum ib_qp_state mrt_qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr a;

	if (ib_query_qp(qp, &a, IB_QP_STATE, &init))
		return -1;
	return a.qp_state;
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

static int mrt_post_reg(struct ib_qp *qp, struct ib_mr *mr, int access,
			u64 wr_id)
{
	const struct ib_send_wr *bad;
	struct ib_reg_wr wr = {
		.wr = {
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
			.wr_id = wr_id,
		},
		.mr = mr,
		.key = mr->rkey,
		.access = access,
	};

	return ib_post_send(qp, &wr.wr, &bad);
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

static struct kunit_case mrt_verbs_cases[] = {
	KUNIT_CASE(mrt_qp_state_machine),
	KUNIT_CASE(mrt_qp_flush_on_error),
	KUNIT_CASE(mrt_mr_dma_checks),
	KUNIT_CASE(mrt_mr_fastreg),
	KUNIT_CASE(mrt_cq_notify),
	KUNIT_CASE(mrt_srq_limit),
	{}
};

static struct kunit_suite mrt_verbs_suite = {
	.name = "metaroce_verbs",
	.suite_init = mrt_verbs_suite_init,
	.suite_exit = mrt_verbs_suite_exit,
	.test_cases = mrt_verbs_cases,
};


/* ---- suite: RC traffic between two devices (mra <-> mrb) ------------- */

static struct mroce_dev *mrt_da, *mrt_db;
static int mrt_ga, mrt_gb;

/*
 * Create MetaRoCE devices @iba on netdev @nda and @ibb on @ndb (the two
 * ends of a veth pair set up by tests/kunit/setup.sh); *@da and *@db are
 * NULL for a device that was not created.
 */
static int mrt_pair_add(const char *nda, const char *iba, struct mroce_dev **da,
			const char *ndb, const char *ibb, struct mroce_dev **db)
{
	struct net_device *na, *nb;
	int err;

	err = mroce_global_init();
	if (err)
		return err;
	na = mrt_ndev_get(nda);
	nb = mrt_ndev_get(ndb);
	err = -ENODEV;
	if (na && nb) {
		err = mroce_dev_add(iba, na);
		*da = err ? NULL : mroce_dev_find_ndev(na);
		if (!err)
			err = mroce_dev_add(ibb, nb);
		*db = err ? NULL : mroce_dev_find_ndev(nb);
	}
	if (na)
		dev_put(na);
	if (nb)
		dev_put(nb);
	return err;
}

static void mrt_pair_del(struct mroce_dev **da, struct mroce_dev **db)
{
	if (*da)
		mrt_dev_del(*da);
	if (*db)
		mrt_dev_del(*db);
	*da = NULL;
	*db = NULL;
}

static int mrt_rc_suite_init(struct kunit_suite *suite)
{
	int err = mrt_pair_add("mrk0", "mrt_ra", &mrt_da,
			       "mrk1", "mrt_rb", &mrt_db);

	if (err)
		return err;
	mrt_ga = mrt_gid_index(mrt_da, MRT_IP_A);
	mrt_gb = mrt_gid_index(mrt_db, MRT_IP_B);
	return 0;
}

static void mrt_rc_suite_exit(struct kunit_suite *suite)
{
	mrt_pair_del(&mrt_da, &mrt_db);
}

/* One side of a connection. */
struct mrt_ep {
	struct mroce_dev *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;	/* send and receive */
	struct ib_qp *qp;
	int events;
};

static void mrt_ep_event(struct ib_event *ev, void *ctx)
{
	struct mrt_ep *ep = ctx;

	ep->events++;
}

static void mrt_ep_init(struct kunit *test, struct mrt_ep *ep,
			struct mroce_dev *dev)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 64, .max_recv_wr = 64,
			.max_send_sge = 4, .max_recv_sge = 4,
			.max_inline_data = 128,
		},
		.event_handler = mrt_ep_event,
	};
	struct ib_cq_init_attr cattr = { .cqe = 256 };

	KUNIT_ASSERT_NOT_NULL(test, dev);
	ep->dev = dev;
	init.qp_context = ep;
	ep->pd = ib_alloc_pd(&dev->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ep->pd));
	ep->cq = ib_create_cq(&dev->ibdev, NULL, mrt_ep_event, ep, &cattr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ep->cq));
	init.send_cq = ep->cq;
	init.recv_cq = ep->cq;
	ep->qp = ib_create_qp(ep->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ep->qp));
}

static void mrt_ep_free(struct mrt_ep *ep)
{
	if (!IS_ERR_OR_NULL(ep->qp))
		ib_destroy_qp(ep->qp);
	if (!IS_ERR_OR_NULL(ep->cq))
		ib_destroy_cq(ep->cq);
	if (!IS_ERR_OR_NULL(ep->pd))
		ib_dealloc_pd(ep->pd);
}

/* Connect a (on @da, GID @ga, @ipa) and b (on @db), both to RTS. */
static void mrt_connect2(struct kunit *test, struct mrt_ep *a,
			 struct mrt_ep *b, struct mroce_dev *da,
			 struct mroce_dev *db, int ga, int gb,
			 const char *ipa, const char *ipb)
{
	mrt_ep_init(test, a, da);
	mrt_ep_init(test, b, db);
	KUNIT_ASSERT_GE(test, ga, 0);
	KUNIT_ASSERT_GE(test, gb, 0);
	KUNIT_ASSERT_EQ(test, mrt_to_init(a->qp), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_init(b->qp), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rtr(a->qp, b->qp->qp_num, ga, ipb, 0), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rtr(b->qp, a->qp->qp_num, gb, ipa, 0), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rts(a->qp), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rts(b->qp), 0);
}

static void mrt_connect(struct kunit *test, struct mrt_ep *a,
			struct mrt_ep *b)
{
	mrt_connect2(test, a, b, mrt_da, mrt_db, mrt_ga, mrt_gb, MRT_IP_A,
		     MRT_IP_B);
}

static void mrt_dump_dev(struct mroce_dev *dev)
{
	int i;

	if (!dev)
		return;
	for (i = 0; i < MROCE_NUM_COUNTERS; i++)
		if (mroce_counter_read(dev, i))
			pr_info("mrt: %s counter %d = %llu\n",
				dev_name(&dev->ibdev.dev), i,
				mroce_counter_read(dev, i));
}

/* Poll one completion, waiting up to 10 s; dumps state on timeout. */
static int mrt_poll(struct mrt_ep *ep, struct ib_wc *wc)
{
	struct mroce_qp *qp = to_mqp(ep->qp);
	struct mroce_req *req = qp->req;
	int i, n;

	for (i = 0; i < 10000; i++) {
		n = ib_poll_cq(ep->cq, 1, wc);
		if (n)
			return n;
		usleep_range(500, 1000);
	}
	pr_info("mrt: poll timeout qp %u state %d sq %u/%u cur %u+%u\n",
		ep->qp->qp_num, qp->state, qp->sq.head, qp->sq.tail,
		req ? req->cur : 0, req ? req->cur_off : 0);
	if (req)
		pr_info("mrt: una %u nxt %u sacked %u lost %u cwnd %u srtt %llu rto %llu next_send %llu now %llu msn_next %u\n",
			req->sb.una, req->sb.nxt, req->sb.n_sacked,
			req->sb.n_lost, req->cc.cwnd, req->cc.srtt_ns,
			mr_txsb_rto(&req->sb), mr_cc_next_send_ns(&req->cc),
			mroce_now(), req->msn_next);
	mrt_dump_dev(ep->dev);
	return 0;
}

static int mrt_post_recv(struct mrt_ep *ep, void *buf, u32 len, u64 wr_id)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)buf,
		.length = len,
		.lkey = ep->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	};
	const struct ib_recv_wr *bad;

	return ib_post_recv(ep->qp, &wr, &bad);
}

static int mrt_post_rdma(struct mrt_ep *ep, enum ib_wr_opcode op, void *buf,
			 u32 len, u64 raddr, u32 rkey, u64 wr_id)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)buf,
		.length = len,
		.lkey = ep->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id, .opcode = op,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge, .num_sge = len ? 1 : 0,
			.ex.imm_data = cpu_to_be32(0xabcd0000 | (u32)wr_id),
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};
	const struct ib_send_wr *bad;

	return ib_post_send(ep->qp, &wr.wr, &bad);
}

static void mrt_fill(u8 *p, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 13 + (i >> 8));
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

static void mrt_rc_rnr(struct kunit *test)
{
	struct mrt_ep a = {}, b = {};
	u64 rnr_tx = mroce_counter_read(mrt_db, MROCE_CNT_NACK_TX_RNR);
	u8 src[32], *dst;
	struct ib_wc wc;
	struct ib_sge sge;
	struct ib_send_wr wr = {};
	const struct ib_send_wr *bad;

	mrt_connect(test, &a, &b);
	dst = kunit_kzalloc(test, 32, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	mrt_fill(src, sizeof(src), 3);
	sge = (struct ib_sge){ (uintptr_t)src, 32, a.pd->local_dma_lkey };
	wr.wr_id = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	/* No receive posted yet: the responder answers RNR. */
	KUNIT_ASSERT_EQ(test, ib_post_send(a.qp, &wr, &bad), 0);
	msleep(20);
	KUNIT_EXPECT_GT(test, mroce_counter_read(mrt_db,
						 MROCE_CNT_NACK_TX_RNR),
			rnr_tx);
	KUNIT_ASSERT_EQ(test, mrt_post_recv(&b, dst, 32, 9), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, 32), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);

	mrt_ep_free(&a);
	mrt_ep_free(&b);
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
		.sq_psn = 0x123456,
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

static struct ib_qp *mrt_ud_qp(struct kunit *test, struct mrt_ep *ep,
			       struct mroce_dev *dev, u32 qkey)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = {
			.max_send_wr = 16, .max_recv_wr = 16,
			.max_send_sge = 2, .max_recv_sge = 2,
		},
	};
	struct ib_cq_init_attr cattr = { .cqe = 64 };
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = qkey,
	};

	ep->dev = dev;
	ep->pd = ib_alloc_pd(&dev->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ep->pd));
	ep->cq = ib_create_cq(&dev->ibdev, NULL, NULL, ep, &cattr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ep->cq));
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
	struct rdma_ah_attr attr = { .type = RDMA_AH_ATTR_TYPE_ROCE };
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

	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, NULL, 0, mrt_ga, 64, 0);
	ipv6_addr_set_v4mapped(in_aton(MRT_IP_B),
			       (struct in6_addr *)attr.grh.dgid.raw);
	ah = rdma_create_ah(a.pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ah));

	/* No receive posted: dropped and counted. */
	KUNIT_ASSERT_EQ(test, mrt_ud_post(&a, ah, b.qp->qp_num, 0x2222, src,
					  100, 1), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	msleep(50);
	KUNIT_EXPECT_EQ(test, mroce_counter_read(mrt_db,
						 MROCE_CNT_NO_WQE_DROPS),
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
	struct ib_cq_init_attr cattr = { .cqe = 32 };

	ep->dev = to_mdev(id->device);
	ep->pd = ib_alloc_pd(id->device, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ep->pd));
	ep->cq = ib_create_cq(id->device, NULL, NULL, ep, &cattr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ep->cq));
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
 * (UD), then data flows over the RC connection.
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
	struct mrt_ep ca = {}, sb = {};
	struct mrt_cm *cc, *sc;
	u8 *src, *dstbuf;
	struct ib_wc wc;

	KUNIT_ASSERT_NOT_NULL(test, mrt_da);
	cc = kunit_kzalloc(test, sizeof(*cc), GFP_KERNEL);
	sc = kunit_kzalloc(test, sizeof(*sc), GFP_KERNEL);
	src = kunit_kzalloc(test, 64, GFP_KERNEL);
	dstbuf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, cc && sc && src && dstbuf);
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

	/* Data over the connection rdma_cm set up. */
	{
		struct ib_sge sge = { (uintptr_t)src, 64,
				      ca.pd->local_dma_lkey };
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

	rdma_disconnect(cid);
	mrt_cm_wait(sc, RDMA_CM_EVENT_DISCONNECTED);
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
	struct ib_cq_init_attr cattr = { .cqe = 64 };
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
	b.dev = mrt_db;
	b.pd = ib_alloc_pd(&mrt_db->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(b.pd));
	b.cq = ib_create_cq(&mrt_db->ibdev, NULL, NULL, &b, &cattr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(b.cq));
	sinit.srq_context = &b;
	srq = ib_create_srq(b.pd, &sinit);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	init.send_cq = b.cq;
	init.recv_cq = b.cq;
	init.srq = srq;
	init.qp_context = &b;
	b.qp = ib_create_qp(b.pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(b.qp));

	KUNIT_ASSERT_EQ(test, mrt_to_init(a.qp), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_init(b.qp), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rtr(a.qp, b.qp->qp_num, mrt_ga, MRT_IP_B,
					 0), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rtr(b.qp, a.qp->qp_num, mrt_gb, MRT_IP_A,
					 0), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rts(a.qp), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rts(b.qp), 0);

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
	KUNIT_CASE(mrt_rc_rdma_cm),
	KUNIT_CASE(mrt_rc_ud),
	KUNIT_CASE(mrt_rc_retry_exceeded),
	KUNIT_CASE(mrt_rc_send),
	KUNIT_CASE(mrt_rc_write_read_small),
	KUNIT_CASE(mrt_rc_write_read_large),
	KUNIT_CASE(mrt_rc_atomic),
	KUNIT_CASE(mrt_rc_rnr),
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


/* ---- suite: receive path fed crafted packets ------------------------- */

#define MRT_PEER_QPN	0x777
#define MRT_PSN		0x123456

/* Counters that must not move unless a case says so. */
static const enum mroce_counter mrt_drop_cnts[] = {
	MROCE_CNT_ICRC_DROPS, MROCE_CNT_MALFORMED_DROPS,
	MROCE_CNT_VERSION_DROPS, MROCE_CNT_QPN_DROPS, MROCE_CNT_DUP_DROPS,
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

/* Exactly the counters in @moved (one each) moved since the snapshot. */
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

/* A one-packet WRITE of @len bytes of @fill to rx->buf from the peer. */
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

/* Encode @p (or take @raw) and feed it to device B's receive path. */
static void mrt_rx_feed(struct kunit *test, const struct mr_pkt *p,
			void (*mangle)(u8 *buf, u32 *len), const char *from)
{
	struct sk_buff *skb;
	struct iphdr *iph;
	u32 len;
	u8 *buf;
	int n;

	skb = alloc_skb(2048, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 128);
	buf = skb_put(skb, 1024);
	n = mr_pkt_encode(p, buf, 1024);
	KUNIT_ASSERT_GT(test, n, 0);
	len = n;
	if (mangle)
		mangle(buf, &len);
	skb_trim(skb, len);

	iph = skb_push(skb, sizeof(*iph));
	memset(iph, 0, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = in_aton(from);
	iph->daddr = in_aton(MRT_IP_B);
	skb_reset_network_header(skb);
	skb_pull(skb, sizeof(*iph));
	skb->protocol = htons(ETH_P_IP);

	local_bh_disable();
	mroce_rcv(mrt_db, skb);
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
		KUNIT_EXPECT_EQ(test, mroce_counter_read(mrt_db,
							 MROCE_CNT_SACK_TX),
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

	/* Unknown QPN, wrong source QPN, wrong source address. */
	p.dqpn = 0xfffff0;
	mrt_rx_feed(test, &p, NULL, MRT_IP_A);
	mrt_rx_expect(test, &rx, MROCE_CNT_QPN_DROPS, -1);
	mrt_rx_write(&rx, &p, psn + 1, 3, 64, data);
	p.sqpn = MRT_PEER_QPN + 1;
	mrt_rx_feed(test, &p, NULL, MRT_IP_A);
	mrt_rx_expect(test, &rx, MROCE_CNT_QPN_DROPS, -1);
	mrt_rx_write(&rx, &p, psn + 1, 3, 64, data);
	mrt_rx_feed(test, &p, NULL, "192.0.2.99");
	mrt_rx_expect(test, &rx, MROCE_CNT_QPN_DROPS, -1);
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


/* ---- suite: loss and reordering (netem on mrk6/mrk7) ----------------- */

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


/* ---- suite: teardown with traffic in flight -------------------------- */

/*
 * An ib_client, like a kernel ULP: when a device goes away, its remove()
 * callback destroys the QPs it owns there (the consumer's side of
 * device removal).
 */
struct mrt_td {
	struct mrt_ep a, b;
	bool removed_a, removed_b;
};

static struct mrt_td *mrt_td;

static int mrt_client_add(struct ib_device *ibdev)
{
	return 0;
}

static void mrt_client_remove(struct ib_device *ibdev, void *data)
{
	struct mrt_td *td = READ_ONCE(mrt_td);

	if (!td)
		return;
	if (td->a.dev && &td->a.dev->ibdev == ibdev) {
		mrt_ep_free(&td->a);
		td->removed_a = true;
	}
	if (td->b.dev && &td->b.dev->ibdev == ibdev) {
		mrt_ep_free(&td->b);
		td->removed_b = true;
	}
}

static struct ib_client mrt_client = {
	.name = "mrt_client",
	.add = mrt_client_add,
	.remove = mrt_client_remove,
};

static int mrt_td_suite_init(struct kunit_suite *suite)
{
	int err = mroce_global_init();

	return err ?: ib_register_client(&mrt_client);
}

static void mrt_td_suite_exit(struct kunit_suite *suite)
{
	ib_unregister_client(&mrt_client);
}

/*
 * Delete the veth pair under two connected devices while 4 MiB of WRITE
 * and READ are in flight both ways: both devices are torn down, the
 * consumer gets its remove() callback, nothing leaks or crashes.
 */
static void mrt_td_netdev_delete_in_flight(struct kunit *test)
{
	const u32 len = 1 << 20;
	struct mroce_dev *da, *db;
	struct net_device *ndev;
	struct mrt_td *td;
	u8 *buf[4];
	int i, ga, gb;

	td = kunit_kzalloc(test, sizeof(*td), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, td);
	for (i = 0; i < 4; i++) {
		buf[i] = vzalloc(len);
		KUNIT_ASSERT_NOT_NULL(test, buf[i]);
	}
	da = mrt_dev_add(test, "mrk8", "mrt_ta");
	db = mrt_dev_add(test, "mrk9", "mrt_tb");
	ga = mrt_gid_index(da, "203.0.113.1");
	gb = mrt_gid_index(db, "203.0.113.2");
	mrt_connect2(test, &td->a, &td->b, da, db, ga, gb, "203.0.113.1",
		     "203.0.113.2");
	WRITE_ONCE(mrt_td, td);

	KUNIT_EXPECT_EQ(test, mrt_post_rdma(&td->a, IB_WR_RDMA_WRITE, buf[0],
					    len, (uintptr_t)buf[1],
					    td->b.pd->unsafe_global_rkey, 1),
			0);
	KUNIT_EXPECT_EQ(test, mrt_post_rdma(&td->a, IB_WR_RDMA_READ, buf[0],
					    len, (uintptr_t)buf[1],
					    td->b.pd->unsafe_global_rkey, 2),
			0);
	KUNIT_EXPECT_EQ(test, mrt_post_rdma(&td->b, IB_WR_RDMA_WRITE, buf[2],
					    len, (uintptr_t)buf[3],
					    td->a.pd->unsafe_global_rkey, 3),
			0);
	KUNIT_EXPECT_EQ(test, mrt_post_rdma(&td->b, IB_WR_RDMA_READ, buf[2],
					    len, (uintptr_t)buf[3],
					    td->a.pd->unsafe_global_rkey, 4),
			0);
	usleep_range(2000, 3000);

	/*
	 * Our registration references would block the unregistration; no
	 * netdev reference either (rtnl_unlock waits for all of them). The
	 * device's own netdev reference keeps @ndev valid until its queued
	 * unregistration ran.
	 */
	ndev = da->ndev;
	ib_device_put(&da->ibdev);
	ib_device_put(&db->ibdev);
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, rtnl_delete_link(ndev, 0, NULL), 0);
	rtnl_unlock();
	mroce_flush_unregister();

	KUNIT_EXPECT_TRUE(test, td->removed_a);
	KUNIT_EXPECT_TRUE(test, td->removed_b);
	KUNIT_EXPECT_FALSE(test, mrt_ibdev_exists("mrt_ta"));
	KUNIT_EXPECT_FALSE(test, mrt_ibdev_exists("mrt_tb"));
	WRITE_ONCE(mrt_td, NULL);
	for (i = 0; i < 4; i++)
		vfree(buf[i]);
}

static struct kunit_case mrt_td_cases[] = {
	KUNIT_CASE(mrt_td_netdev_delete_in_flight),
	{}
};

static struct kunit_suite mrt_td_suite = {
	.name = "metaroce_teardown",
	.suite_init = mrt_td_suite_init,
	.suite_exit = mrt_td_suite_exit,
	.test_cases = mrt_td_cases,
};

kunit_test_suites(&mrt_device_suite, &mrt_verbs_suite, &mrt_rc_suite,
		  &mrt_rx_suite, &mrt_loss_suite, &mrt_td_suite);
