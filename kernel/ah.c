// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE address handles. An AH (or an RC QP's primary path) is
 * resolved once into a mroce_av: source/destination IP from the RoCE
 * v2 style GIDs. Next-hop resolution is left to the IP stack at
 * transmit time, so MACs in the AH are not used.
 */

#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "metaroce.h"

int mroce_av_from_attr(struct mroce_av *av, const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr;
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} s, d;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr || sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->net_type = rdma_gid_attr_network_type(sgid_attr);
	rdma_gid2ip(&s.sa, &sgid_attr->gid);
	rdma_gid2ip(&d.sa, &grh->dgid);

	switch (av->net_type) {
	case RDMA_NETWORK_IPV4:
		if (d.sa.sa_family != AF_INET)
			return -EINVAL;
		av->saddr.v4 = s.in.sin_addr.s_addr;
		av->daddr.v4 = d.in.sin_addr.s_addr;
		break;
	case RDMA_NETWORK_IPV6:
		if (d.sa.sa_family != AF_INET6)
			return -EINVAL;
		av->saddr.v6 = s.in6.sin6_addr;
		av->daddr.v6 = d.in6.sin6_addr;
		break;
	default:
		return -EINVAL;
	}
	av->tclass = grh->traffic_class;
	av->hop_limit = grh->hop_limit;
	av->flow_label = grh->flow_label;
	return 0;
}

/*
 * May be called in atomic context (no RDMA_CREATE_AH_SLEEPABLE): no
 * sleeping allocation then. A user AH gets an ah_num in its context,
 * the name UD WQEs of that context give it (provider.rst, "AH").
 */
int mroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata)
{
	struct mroce_dev *dev = to_mdev(ibah->device);
	struct mroce_ah *ah = to_mah(ibah);
	struct metaroce_create_ah_resp resp = {};
	gfp_t gfp = init_attr->flags & RDMA_CREATE_AH_SLEEPABLE ?
		    GFP_KERNEL : GFP_ATOMIC;
	int err;

	err = mroce_av_from_attr(&ah->av, init_attr->ah_attr);
	if (err)
		return err;

	if (atomic_inc_return(&dev->num_ah) > dev->attr.max_ah) {
		atomic_dec(&dev->num_ah);
		return -ENOMEM;
	}
	if (!udata)
		return 0;

	ah->uctx = mroce_udata_uctx(udata);
	/*
	 * With interrupts off: the doorbell looks AHs up under the QP's
	 * sq.lock, which the receive softirq takes too (uring.c).
	 */
	err = xa_alloc_irq(&ah->uctx->ahs, &ah->ah_num, ah, xa_limit_32b,
			   gfp);
	if (err)
		goto err_count;
	resp.ah_num = ah->ah_num;
	err = mroce_udata_resp(udata, &resp, sizeof(resp));
	if (err)
		goto err_xa;
	return 0;

err_xa:
	xa_erase_irq(&ah->uctx->ahs, ah->ah_num);
err_count:
	ah->uctx = NULL;
	atomic_dec(&dev->num_ah);
	return err;
}

int mroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct mroce_ah *ah = to_mah(ibah);

	/* WQEs already taken hold a copy of the address. */
	if (ah->uctx)
		xa_erase_irq(&ah->uctx->ahs, ah->ah_num);
	atomic_dec(&to_mdev(ibah->device)->num_ah);
	return 0;
}
