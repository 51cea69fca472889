// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE KUnit suite metaroce_teardown: the netdev under two connected
 * devices deleted with traffic in flight.
 */

#include <linux/delay.h>
#include <linux/rtnetlink.h>
#include <linux/vmalloc.h>

#include "kunit_fixture.h"

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
	return ib_register_client(&mrt_client);
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

kunit_test_suite(mrt_td_suite);
