// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE ib_device: allocation, registration, device/port queries,
 * port state tracking and teardown.
 */

#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "metaroce.h"

/* Not an IEEE OUI: the locally administered vendor id space. */
#define MROCE_VENDOR_ID		0xFFFFFF
#define MROCE_GID_TBL_LEN	1024

enum ib_mtu mroce_mtu_from_netdev(unsigned int netdev_mtu)
{
	enum ib_mtu mtu;

	for (mtu = IB_MTU_4096; mtu > IB_MTU_256; mtu--)
		if (ib_mtu_enum_to_int(mtu) + MROCE_MAX_HDR_OVERHEAD <=
		    netdev_mtu)
			break;
	return mtu;
}

static bool mroce_ndev_active(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev);
}

static int mroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	*attr = to_mdev(ibdev)->attr;
	return 0;
}

static int mroce_query_port(struct ib_device *ibdev, u32 port_num,
			    struct ib_port_attr *attr)
{
	struct mroce_dev *dev = to_mdev(ibdev);
	unsigned long flags;

	/* The caller zeroed *attr. */
	spin_lock_irqsave(&dev->port_lock, flags);
	attr->state = dev->port_state;
	attr->active_mtu = dev->active_mtu;
	spin_unlock_irqrestore(&dev->port_lock, flags);

	attr->max_mtu = IB_MTU_4096;
	attr->gid_tbl_len = MROCE_GID_TBL_LEN;
	attr->pkey_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = 0x80000000;
	attr->max_vl_num = 1;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->lmc = 0;
	attr->ip_gids = true;

	/* Speed lookup takes rtnl and fails while the netdev goes away. */
	if (ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			     &attr->active_width)) {
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}

	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (netif_get_flags(dev->ndev) & IFF_UP)
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	return 0;
}

static int mroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				    struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = 1;
	immutable->gid_tbl_len = MROCE_GID_TBL_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int mroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			    u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int mroce_modify_device(struct ib_device *ibdev, int mask,
			       struct ib_device_modify *attr)
{
	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	memcpy(ibdev->node_desc, attr->node_desc, sizeof(ibdev->node_desc));
	return 0;
}

static enum rdma_link_layer mroce_get_link_layer(struct ib_device *ibdev,
						 u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

static void mroce_port_event(struct mroce_dev *dev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.element.port_num = 1,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

/*
 * Netdev notifier hook (rtnl held): the port follows its netdev. The
 * active MTU is recomputed on every event: requests of QPs that reach RTS
 * afterwards and every READ response from now on (resp_rd.c) are cut to
 * it; a live QP's requests keep the size set at its RTS.
 */
void mroce_dev_port_event(struct mroce_dev *dev, unsigned long event)
{
	enum ib_port_state old, new;
	unsigned long flags;

	new = mroce_ndev_active(dev->ndev) ? IB_PORT_ACTIVE : IB_PORT_DOWN;

	spin_lock_irqsave(&dev->port_lock, flags);
	old = dev->port_state;
	dev->port_state = new;
	dev->active_mtu = mroce_mtu_from_netdev(READ_ONCE(dev->ndev->mtu));
	spin_unlock_irqrestore(&dev->port_lock, flags);

	ibdev_dbg(&dev->ibdev, "netdev event %lu: port %s, active mtu %d\n",
		  event, new == IB_PORT_ACTIVE ? "ACTIVE" : "DOWN",
		  ib_mtu_enum_to_int(dev->active_mtu));
	if (old != new)
		mroce_port_event(dev, new == IB_PORT_ACTIVE ?
				 IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
}

static void mroce_init_attr(struct mroce_dev *dev)
{
	struct ib_device_attr *a = &dev->attr;

	a->vendor_id = MROCE_VENDOR_ID;
	a->max_mr_size = MROCE_MAX_MR_SIZE;
	a->page_size_cap = ~(u64)(PAGE_SIZE - 1) & 0xffffffffULL;
	a->max_qp = MROCE_MAX_QP;
	a->max_qp_wr = MROCE_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS |
			      IB_DEVICE_MEM_WINDOW |
			      IB_DEVICE_MEM_WINDOW_TYPE_2B |
			      IB_DEVICE_RC_RNR_NAK_GEN |
			      IB_DEVICE_SYS_IMAGE_GUID;
	/* `rdma link delete` is allowed. */
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	a->max_send_sge = MROCE_MAX_SGE;
	a->max_recv_sge = MROCE_MAX_SGE;
	a->max_sge_rd = MROCE_MAX_SGE;
	a->max_cq = MROCE_MAX_CQ;
	a->max_cqe = MROCE_MAX_CQE;
	a->max_mr = MROCE_MAX_MR;
	/* Windows share the MRs' key space and count (mw.c). */
	a->max_mw = MROCE_MAX_MR;
	a->max_pd = MROCE_MAX_PD;
	a->max_qp_rd_atom = MROCE_MAX_RD_ATOMIC;
	a->max_qp_init_rd_atom = MROCE_MAX_RD_ATOMIC;
	a->max_res_rd_atom = MROCE_MAX_RD_ATOMIC * MROCE_MAX_QP;
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_ah = MROCE_MAX_AH;
	a->max_srq = MROCE_MAX_SRQ;
	a->max_srq_wr = MROCE_MAX_SRQ_WR;
	a->max_srq_sge = MROCE_MAX_SGE;
	a->max_fast_reg_page_list_len = MROCE_MAX_FR_PAGES;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	addrconf_addr_eui48((unsigned char *)&a->sys_image_guid,
			    dev->ndev->dev_addr);
}

/*
 * Called by ib_core when the device is freed: after a successful
 * unregistration, or from ib_dealloc_device() on a failed registration.
 * Must cope with every partially initialised state of mroce_dev_add().
 */
static void mroce_dealloc_driver(struct ib_device *ibdev)
{
	struct mroce_dev *dev = to_mdev(ibdev);

	WARN_ON(!xa_empty(&dev->qps));
	WARN_ON(!xa_empty(&dev->mrs));
	xa_destroy(&dev->qps);
	xa_destroy(&dev->mrs);
	if (dev->mnet)
		mroce_net_detach(dev);
	free_percpu(dev->stats);
	netdev_put(dev->ndev, &dev->ndev_tracker);
	mroce_params_destroy(&dev->params);
	mroce_devs_del(dev);
}

static const struct ib_device_ops mroce_dev_ops = {
	.owner = THIS_MODULE,
	/* Out of tree: the rdma_driver_id enum cannot be extended. */
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = METAROCE_UVERBS_ABI_VERSION,
	/* The provider's device match (provider.rst, "Device matching"). */
	.device_group = &mroce_dev_attr_group,

	.alloc_hw_port_stats = mroce_alloc_hw_port_stats,
	.alloc_mr = mroce_alloc_mr,
	.alloc_mw = mroce_alloc_mw,
	.alloc_pd = mroce_alloc_pd,
	.alloc_ucontext = mroce_alloc_ucontext,
	.create_ah = mroce_create_ah,
	.create_cq = mroce_create_cq_op,
	.create_qp = mroce_create_qp,
	.create_srq = mroce_create_srq,
	/* uverbs and ib_umad create AHs through create_user_ah, udata or not. */
	.create_user_ah = mroce_create_ah,
	.dealloc_driver = mroce_dealloc_driver,
	.dealloc_mw = mroce_dealloc_mw,
	.dealloc_pd = mroce_dealloc_pd,
	.dealloc_ucontext = mroce_dealloc_ucontext,
	.dereg_mr = mroce_dereg_mr,
	.fill_res_qp_entry = mroce_fill_res_qp_entry,
	.destroy_ah = mroce_destroy_ah,
	.destroy_cq = mroce_destroy_cq,
	.destroy_qp = mroce_destroy_qp,
	.destroy_srq = mroce_destroy_srq,
	.get_dma_mr = mroce_get_dma_mr,
	.get_hw_stats = mroce_get_hw_stats,
	.get_link_layer = mroce_get_link_layer,
	.get_port_immutable = mroce_get_port_immutable,
	.map_mr_sg = mroce_map_mr_sg,
	.mmap = mroce_mmap,
	.mmap_free = mroce_mmap_free,
	.modify_device = mroce_modify_device,
	.modify_qp = mroce_modify_qp,
	.modify_srq = mroce_modify_srq,
	.poll_cq = mroce_poll_cq,
	.post_recv = mroce_post_recv,
	.post_send = mroce_post_send,
	.post_srq_recv = mroce_post_srq_recv,
	.query_device = mroce_query_device,
	.query_pkey = mroce_query_pkey,
	.query_port = mroce_query_port,
	.query_qp = mroce_query_qp,
	.query_srq = mroce_query_srq,
	.reg_user_mr = mroce_reg_user_mr_op,
	.rereg_user_mr = mroce_rereg_user_mr,
	.req_notify_cq = mroce_req_notify_cq,
	.MROCE_RESIZE_CQ_OP = mroce_resize_cq_op,

	INIT_RDMA_OBJ_SIZE(ib_ah, mroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, mroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, mroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, mroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, mroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, mroce_ucontext, ibuc),
};

/* `rdma link add NAME type metaroce netdev NDEV` */
int mroce_dev_add(const char *ibdev_name, struct net_device *ndev)
{
	struct mroce_dev *dev;
	struct ib_device *ibdev;
	int err;

	dev = ib_alloc_device(mroce_dev, ibdev);
	if (!dev)
		return -ENOMEM;
	ibdev = &dev->ibdev;
	/* First, so that ib_dealloc_device() runs mroce_dealloc_driver(). */
	ib_set_device_ops(ibdev, &mroce_dev_ops);

	dev->ndev = ndev;
	netdev_hold(ndev, &dev->ndev_tracker, GFP_KERNEL);
	INIT_LIST_HEAD(&dev->list);
	INIT_LIST_HEAD(&dev->net_node);
	spin_lock_init(&dev->port_lock);
	xa_init_flags(&dev->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->mrs, XA_FLAGS_ALLOC1);
	mroce_dev_init_unreg_work(dev);
	mroce_init_attr(dev);
	mroce_params_init(&dev->params);
	err = mroce_devs_add(dev);
	if (err) {
		/* Not on the list: dealloc_driver's list_del_init is a no-op. */
		goto err_dealloc;
	}

	dev->stats = alloc_percpu(struct mroce_stats);
	if (!dev->stats) {
		err = -ENOMEM;
		goto err_dealloc;
	}

	err = mroce_net_attach(dev);
	if (err)
		goto err_dealloc;

	dev->port_state = mroce_ndev_active(ndev) ? IB_PORT_ACTIVE :
						     IB_PORT_DOWN;
	dev->active_mtu = mroce_mtu_from_netdev(READ_ONCE(ndev->mtu));

	strscpy(ibdev->node_desc, MROCE_DRV_NAME, sizeof(ibdev->node_desc));
	ibdev->node_type = RDMA_NODE_IB_CA;
	/*
	 * 6.1 enables these write commands only for devices that ask (as
	 * rxe does): the empty POST_SEND/POST_RECV are the user rings'
	 * doorbells (provider.rst, "Doorbells"), and ibv_req_notify_cq
	 * arms the CQ in the kernel.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    ndev->dev_addr);

	err = ib_device_set_netdev(ibdev, ndev, 1);
	if (err)
		goto err_dealloc;

	/*
	 * No sysfs parent, as for rxe: with the NIC as parent, rdma-core's
	 * udev rule (NAME_FALLBACK) renames the device after the NIC's PCI
	 * slot, replacing the name the administrator gave, and providers
	 * matching the NIC's modalias may claim it. admin-guide.rst,
	 * "Sysfs placement". NULL dma_device: virtual DMA, addresses are
	 * kernel VAs.
	 */
	err = ib_register_device(ibdev, ibdev_name, NULL);
	if (err)
		goto err_dealloc;

	/*
	 * The netdev may have started unregistering before we were on
	 * the list with a registration reference; the notifier missed
	 * us then, so unregister here.
	 */
	rtnl_lock();
	if (ndev->reg_state != NETREG_REGISTERED &&
	    ib_device_try_get(ibdev))
		mroce_dev_queue_unregister(dev);
	else
		mroce_dev_port_event(dev, NETDEV_CHANGE);
	rtnl_unlock();
	return 0;

err_dealloc:
	/* Calls mroce_dealloc_driver(). */
	ib_dealloc_device(ibdev);
	return err;
}
MR_KUNIT_EXPORT(mroce_dev_add);
