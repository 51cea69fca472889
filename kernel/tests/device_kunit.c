// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE KUnit suite metaroce_device: device lifecycle (creation and
 * query, the port following its netdev, netdev unregistration and
 * namespace move).
 */

#include <linux/rtnetlink.h>
#include <rdma/ib_verbs.h>

#include "kunit_fixture.h"

static int mrt_port_state(struct mroce_dev *dev, enum ib_mtu *mtu)
{
	struct ib_port_attr pa;

	if (ib_query_port(&dev->ibdev, 1, &pa))
		return -1;
	if (mtu)
		*mtu = pa.active_mtu;
	return pa.state;
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
	KUNIT_EXPECT_EQ(test, mrt_port_state(dev, &mtu), IB_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, mtu, IB_MTU_4096);

	rtnl_lock();
	KUNIT_EXPECT_EQ(test, dev_set_mtu(ndev, 1500), 0);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, mrt_port_state(dev, &mtu), IB_PORT_ACTIVE);
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
	.test_cases = mrt_device_cases,
};

kunit_test_suite(mrt_device_suite);
