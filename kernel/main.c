// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE module: init/exit, `rdma link add NAME type metaroce netdev
 * DEV`, and the netdev notifier that makes the RDMA port follow its
 * netdev (up/down/MTU; unregister or namespace move tears the device
 * down).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/if_arp.h>
#include <linux/rtnetlink.h>
#include <linux/stringify.h>
#include <rdma/rdma_netlink.h>

#include "metaroce.h"

/*
 * The UDP destination port (MR-ENC-1): MR_UDP_PORT (MR-ENC-11) unless set,
 * for lab use and for talking to pre-1.1 peers (their default was 4793).
 */
unsigned short mroce_udp_port = MR_UDP_PORT;
MR_KUNIT_EXPORT(mroce_udp_port);
module_param_named(udp_port, mroce_udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port, "UDP destination port of MetaRoCE packets (default "
		 __stringify(MR_UDP_PORT) "; other values for lab use and pre-1.1 peers)");

/*
 * Every mroce_dev from allocation to dealloc_driver. mroce_devs_lock
 * protects the list only; it is never held across ib_register_device or
 * ib_unregister_device (both may take rtnl, and the notifier runs under
 * rtnl and takes this lock).
 */
static LIST_HEAD(mroce_devs);
static DEFINE_MUTEX(mroce_devs_lock);

/* Runs deferred unregistrations queued from the netdev notifier. */
static struct workqueue_struct *mroce_wq;

/* Put @dev on the device list; -EEXIST if its netdev already has one. */
int mroce_devs_add(struct mroce_dev *dev)
{
	struct mroce_dev *other;
	int err = 0;

	mutex_lock(&mroce_devs_lock);
	list_for_each_entry(other, &mroce_devs, list)
		if (other->ndev == dev->ndev)
			err = -EEXIST;
	if (!err)
		list_add_tail(&dev->list, &mroce_devs);
	mutex_unlock(&mroce_devs_lock);
	return err;
}

void mroce_devs_del(struct mroce_dev *dev)
{
	mutex_lock(&mroce_devs_lock);
	list_del_init(&dev->list);
	mutex_unlock(&mroce_devs_lock);
}

/*
 * Find the registered device bound to @ndev and take a registration
 * reference on it (ib_device_put() to release). NULL if none.
 */
struct mroce_dev *mroce_dev_find_ndev(struct net_device *ndev)
{
	struct mroce_dev *dev, *found = NULL;

	mutex_lock(&mroce_devs_lock);
	list_for_each_entry(dev, &mroce_devs, list) {
		if (dev->ndev == ndev && ib_device_try_get(&dev->ibdev)) {
			found = dev;
			break;
		}
	}
	mutex_unlock(&mroce_devs_lock);
	return found;
}
MR_KUNIT_EXPORT(mroce_dev_find_ndev);

static void mroce_unreg_work(struct work_struct *work)
{
	struct mroce_dev *dev = container_of(work, struct mroce_dev,
					     unreg_work);

	/* Drops the registration reference taken by the notifier. */
	ib_unregister_device_and_put(&dev->ibdev);
}

void mroce_dev_init_unreg_work(struct mroce_dev *dev)
{
	INIT_WORK(&dev->unreg_work, mroce_unreg_work);
}

/*
 * Queue the unregistration of @dev; consumes the caller's registration
 * reference. Unregistration cannot run inline in the notifier: it
 * flushes GID work that needs rtnl, which the notifier holds.
 */
void mroce_dev_queue_unregister(struct mroce_dev *dev)
{
	/*
	 * Once only: NETDEV_UNREGISTER is re-broadcast while the netdev
	 * waits for its references, and a second queueing while the work
	 * runs would hold a registration reference that the running
	 * unregistration waits for - a deadlock.
	 */
	if (test_and_set_bit(0, &dev->unreg_queued) ||
	    !queue_work(mroce_wq, &dev->unreg_work))
		ib_device_put(&dev->ibdev);
}

/* Wait for every queued unregistration (namespace teardown, exit). */
void mroce_flush_unregister(void)
{
	flush_workqueue(mroce_wq);
}
MR_KUNIT_EXPORT(mroce_flush_unregister);

static int mroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN)
		return -EINVAL;
	return mroce_dev_add(ibdev_name, ndev);
}

static struct rdma_link_ops mroce_link_ops = {
	.type = MROCE_DRV_NAME,
	.newlink = mroce_newlink,
};

static int mroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct mroce_dev *dev;

	switch (event) {
	case NETDEV_UNREGISTER:
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		break;
	default:
		return NOTIFY_DONE;
	}

	dev = mroce_dev_find_ndev(ndev);
	if (!dev)
		return NOTIFY_DONE;

	if (event == NETDEV_UNREGISTER) {
		/*
		 * Also raised when the netdev moves to another namespace:
		 * the device is torn down, consumers get
		 * IB_EVENT_DEVICE_FATAL / removal through ib_core.
		 */
		mroce_dev_queue_unregister(dev);
		return NOTIFY_OK;
	}

	mroce_dev_port_event(dev, event);
	ib_device_put(&dev->ibdev);
	return NOTIFY_OK;
}

static struct notifier_block mroce_netdev_nb = {
	.notifier_call = mroce_netdev_event,
};

/* Unregister every device still present (module unload). */
static void mroce_unregister_all(void)
{
	struct mroce_dev *dev;

	for (;;) {
		mutex_lock(&mroce_devs_lock);
		dev = list_first_entry_or_null(&mroce_devs, struct mroce_dev,
					       list);
		if (dev)
			get_device(&dev->ibdev.dev);
		mutex_unlock(&mroce_devs_lock);
		if (!dev)
			break;
		/*
		 * Safe against a concurrent `rdma link delete`: ib_core
		 * fences concurrent unregistrations; dealloc_driver takes
		 * the device off mroce_devs.
		 */
		ib_unregister_device(&dev->ibdev);
		put_device(&dev->ibdev.dev);
	}
}

static int __init mroce_init(void)
{
	int err;

	mroce_wq = alloc_workqueue("metaroce", WQ_UNBOUND, 0);
	if (!mroce_wq)
		return -ENOMEM;

	err = mroce_net_init();
	if (err)
		goto err_wq;

	err = register_netdevice_notifier(&mroce_netdev_nb);
	if (err)
		goto err_net;

	rdma_link_register(&mroce_link_ops);
	pr_info("loaded (udp port %u)\n", mroce_udp_port);
	return 0;

err_net:
	mroce_net_exit();
err_wq:
	destroy_workqueue(mroce_wq);
	return err;
}

static void __exit mroce_exit(void)
{
	rdma_link_unregister(&mroce_link_ops);
	unregister_netdevice_notifier(&mroce_netdev_nb);
	flush_workqueue(mroce_wq);
	mroce_unregister_all();
	/* Pernet exit flushes mroce_wq: the queue must still exist. */
	mroce_net_exit();
	destroy_workqueue(mroce_wq);
	pr_info("unloaded\n");
}

module_init(mroce_init);
module_exit(mroce_exit);

MODULE_AUTHOR("MetaRoCE authors");
MODULE_DESCRIPTION("MetaRoCE software RDMA device over Ethernet");
MODULE_LICENSE("GPL");
MODULE_VERSION(MROCE_VERSION);	/* kernel/Kbuild: VERSION or git describe */
MODULE_ALIAS_RDMA_LINK("metaroce");
/* User-space verbs: /dev/infiniband/uverbsN comes from ib_uverbs. */
MODULE_SOFTDEP("pre: ib_uverbs");
