// SPDX-License-Identifier: GPL-2.0
/*
 * Shared fixture of the MetaRoCE KUnit suites (the <area>_kunit.c files
 * beside this one): netdev lookup across namespaces, device creation, the
 * two-device pair on mrk0/mrk1, QP state transitions, the connection
 * endpoint and its completion polling and posting helpers.
 */

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/ip.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>

#include "kunit_fixture.h"

/* ---- netdevs, devices and GIDs -------------------------------------- */

/* Find netdev @name in any namespace; returns it with a reference. */
struct net_device *mrt_ndev_get(const char *name)
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

/*
 * Fixture devices act as revision 1.0 nodes (MR-VER-17): no HELLO, so
 * that tests which count the packets a device sends, or play its peer by
 * hand, see only what they provoke. mrt_rc_hello turns it on.
 */
static void mrt_dev_quiet(struct mroce_dev *dev)
{
	if (dev)
		WARN_ON(mroce_param_set(&dev->params, MROCE_P_HELLO, 0));
}

/* Create device @ibname on netdev @ndev_name; registration ref held. */
struct mroce_dev *mrt_dev_add(struct kunit *test, const char *ndev_name,
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
	mrt_dev_quiet(dev);
	return dev;
}

void mrt_dev_del(struct mroce_dev *dev)
{
	ib_unregister_device_and_put(&dev->ibdev);
}

bool mrt_ibdev_exists(const char *ibname)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_name(ibname, RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		return false;
	ib_device_put(ibdev);
	return true;
}

/* Wait (max 5 s) for the RoCE GID @gid; returns its index. */
static int mrt_gid_wait(struct mroce_dev *dev, const union ib_gid *gid)
{
	const struct ib_gid_attr *attr;
	int i, idx;

	for (i = 0; i < 250; i++) {
		attr = rdma_find_gid_by_port(&dev->ibdev, gid,
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

/* Wait (max 5 s) for the RoCE GID of IPv4 @ip; returns its index. */
int mrt_gid_index(struct mroce_dev *dev, const char *ip)
{
	union ib_gid gid;

	ipv6_addr_set_v4mapped(in_aton(ip), (struct in6_addr *)gid.raw);
	return mrt_gid_wait(dev, &gid);
}

/* Wait (max 5 s) for the RoCE GID of IPv6 @ip; returns its index. */
int mrt_gid6_index(struct mroce_dev *dev, const char *ip)
{
	union ib_gid gid;

	if (in6_pton(ip, -1, gid.raw, -1, NULL) != 1)
		return -EINVAL;
	return mrt_gid_wait(dev, &gid);
}

/* ---- QP state transitions and work requests ------------------------- */

int mrt_to_init(struct ib_qp *qp)
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

int mrt_to_rtr(struct ib_qp *qp, u32 dqpn, int gid, const char *dip,
	       int mask_drop)
{
	return mrt_to_rtr_mtu(qp, dqpn, gid, dip, mask_drop, IB_MTU_1024);
}

int mrt_to_rtr_mtu(struct ib_qp *qp, u32 dqpn, int gid, const char *dip,
		   int mask_drop, enum ib_mtu mtu)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTR,
		.path_mtu = mtu,
		.dest_qp_num = dqpn,
		.rq_psn = MRT_PSN,
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

/*
 * Timeout 18 (about 1 s, a retry budget of about 8 s): under TCG a loaded
 * host can stall a guest vCPU for longer than the 0.5 s budget of timeout
 * 14 while the guest's timers keep wall-clock time, and the QP would end
 * in RETRY_EXC_ERR without a packet lost. Cases about the budget itself
 * set their own timeout.
 */
int mrt_to_rts(struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTS,
		.sq_psn = MRT_PSN,
		.timeout = 18,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 4,
	};

	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

int mrt_to(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr a = { .qp_state = state };

	return ib_modify_qp(qp, &a, IB_QP_STATE);
}

enum ib_qp_state mrt_qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr a;

	if (ib_query_qp(qp, &a, IB_QP_STATE, &init))
		return -1;
	return a.qp_state;
}

int mrt_post_reg(struct ib_qp *qp, struct ib_mr *mr, int access, u64 wr_id)
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

/* ---- two devices on mrk0 (mra) and mrk1 (mrb) ----------------------- */

struct mroce_dev *mrt_da, *mrt_db;
int mrt_ga, mrt_gb;

/*
 * Create MetaRoCE devices @iba on netdev @nda and @ibb on @ndb (the two
 * ends of a veth pair set up by tests/kunit/setup.sh); *@da and *@db are
 * NULL for a device that was not created.
 */
int mrt_pair_add(const char *nda, const char *iba, struct mroce_dev **da,
		 const char *ndb, const char *ibb, struct mroce_dev **db)
{
	struct net_device *na, *nb;
	int err;

	na = mrt_ndev_get(nda);
	nb = mrt_ndev_get(ndb);
	err = -ENODEV;
	if (na && nb) {
		err = mroce_dev_add(iba, na);
		*da = err ? NULL : mroce_dev_find_ndev(na);
		if (!err)
			err = mroce_dev_add(ibb, nb);
		*db = err ? NULL : mroce_dev_find_ndev(nb);
		mrt_dev_quiet(*da);
		mrt_dev_quiet(*db);
	}
	if (na)
		dev_put(na);
	if (nb)
		dev_put(nb);
	return err;
}

void mrt_pair_del(struct mroce_dev **da, struct mroce_dev **db)
{
	if (*da)
		mrt_dev_del(*da);
	if (*db)
		mrt_dev_del(*db);
	*da = NULL;
	*db = NULL;
}

int mrt_rc_suite_init(struct kunit_suite *suite)
{
	int err = mrt_pair_add("mrk0", "mrt_ra", &mrt_da,
			       "mrk1", "mrt_rb", &mrt_db);

	if (err)
		return err;
	mrt_ga = mrt_gid_index(mrt_da, MRT_IP_A);
	mrt_gb = mrt_gid_index(mrt_db, MRT_IP_B);
	return 0;
}

void mrt_rc_suite_exit(struct kunit_suite *suite)
{
	mrt_pair_del(&mrt_da, &mrt_db);
}

/* ---- connection endpoints: set-up, polling, posting ----------------- */

void mrt_ep_event(struct ib_event *ev, void *ctx)
{
	struct mrt_ep *ep = ctx;

	ep->events++;
}

/* Completion notification of @cq (ib_req_notify_cq), counted. */
static void mrt_ep_comp(struct ib_cq *cq, void *ctx)
{
	struct mrt_ep *ep = ctx;

	WRITE_ONCE(ep->comps, READ_ONCE(ep->comps) + 1);
}

void mrt_ep_init(struct kunit *test, struct mrt_ep *ep,
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
	ep->cq = ib_create_cq(&dev->ibdev, mrt_ep_comp, mrt_ep_event, ep,
			      &cattr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ep->cq));
	init.send_cq = ep->cq;
	init.recv_cq = ep->cq;
	ep->qp = ib_create_qp(ep->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ep->qp));
}

void mrt_ep_free(struct mrt_ep *ep)
{
	if (!IS_ERR_OR_NULL(ep->qp))
		ib_destroy_qp(ep->qp);
	if (!IS_ERR_OR_NULL(ep->cq))
		ib_destroy_cq(ep->cq);
	if (!IS_ERR_OR_NULL(ep->pd))
		ib_dealloc_pd(ep->pd);
}

/* Take RC QPs @qa (GID @ga, @ipa) and @qb (@gb, @ipb), peers, to RTS. */
void mrt_connect_qps(struct kunit *test, struct ib_qp *qa, struct ib_qp *qb,
		     int ga, int gb, const char *ipa, const char *ipb)
{
	mrt_connect_qps_mtu(test, qa, qb, ga, gb, ipa, ipb, IB_MTU_1024);
}

void mrt_connect_qps_mtu(struct kunit *test, struct ib_qp *qa,
			 struct ib_qp *qb, int ga, int gb, const char *ipa,
			 const char *ipb, enum ib_mtu mtu)
{
	KUNIT_ASSERT_EQ(test, mrt_to_init(qa), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_init(qb), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rtr_mtu(qa, qb->qp_num, ga, ipb, 0, mtu),
			0);
	KUNIT_ASSERT_EQ(test, mrt_to_rtr_mtu(qb, qa->qp_num, gb, ipa, 0, mtu),
			0);
	KUNIT_ASSERT_EQ(test, mrt_to_rts(qa), 0);
	KUNIT_ASSERT_EQ(test, mrt_to_rts(qb), 0);
}

/*
 * Wait up to 10 s until counter @c of @dev reaches @min (the receive path
 * runs in softirq on another CPU, so a count lags the send completion).
 * Returns the last value read.
 */
u64 mrt_wait_counter(struct mroce_dev *dev, enum mroce_counter c, u64 min)
{
	u64 v = mroce_counter_read(dev, c);
	int i;

	for (i = 0; i < 10000 && v < min; i++) {
		usleep_range(500, 1000);
		v = mroce_counter_read(dev, c);
	}
	return v;
}

/* Connect a (on @da, GID @ga, @ipa) and b (on @db), both to RTS. */
void mrt_connect2(struct kunit *test, struct mrt_ep *a, struct mrt_ep *b,
		  struct mroce_dev *da, struct mroce_dev *db, int ga, int gb,
		  const char *ipa, const char *ipb)
{
	mrt_ep_init(test, a, da);
	mrt_ep_init(test, b, db);
	KUNIT_ASSERT_GE(test, ga, 0);
	KUNIT_ASSERT_GE(test, gb, 0);
	mrt_connect_qps(test, a->qp, b->qp, ga, gb, ipa, ipb);
}

void mrt_dump_dev(struct mroce_dev *dev)
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
int mrt_poll(struct mrt_ep *ep, struct ib_wc *wc)
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
		req ? req->rq.cur : 0, req ? req->rq.cur_off : 0);
	if (req)
		pr_info("mrt: una %u nxt %u sacked %u lost %u cwnd %u srtt %llu rto %llu next_send %llu now %llu msn_next %u\n",
			req->rq.snd.sb.una, req->rq.snd.sb.nxt, req->rq.snd.sb.n_sacked,
			req->rq.snd.sb.n_lost, req->rq.snd.cc.cwnd, req->rq.snd.cc.srtt_ns,
			mr_txsb_rto(&req->rq.snd.sb), mr_cc_next_send_ns(&req->rq.snd.cc),
			mroce_now(), req->rq.msn_next);
	mrt_dump_dev(ep->dev);
	return 0;
}

int mrt_post_recv(struct mrt_ep *ep, void *buf, u32 len, u64 wr_id)
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

int mrt_post_rdma(struct mrt_ep *ep, enum ib_wr_opcode op, void *buf,
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

void mrt_fill(u8 *p, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 13 + (i >> 8));
}

struct sk_buff *mrt_craft_skb(struct kunit *test, const struct mr_pkt *p,
			      const char *from, const char *to,
			      void (*mangle)(u8 *buf, u32 *len), u8 pkt_type)
{
	u32 len = mr_pkt_hdr_len(p->opcode) + p->payload_len + MR_ICRC_LEN;
	struct sk_buff *skb;
	struct iphdr *iph;
	u8 *buf;

	skb = alloc_skb(len + 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 128);
	buf = skb_put(skb, len);
	KUNIT_ASSERT_EQ(test, mr_pkt_encode(p, buf, len), (int)len);
	if (mangle)
		mangle(buf, &len);
	skb_trim(skb, len);

	iph = skb_push(skb, sizeof(*iph));
	memset(iph, 0, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = in_aton(from);
	iph->daddr = in_aton(to);
	skb_reset_network_header(skb);
	skb_pull(skb, sizeof(*iph));
	skb->protocol = htons(ETH_P_IP);
	skb->pkt_type = pkt_type;
	return skb;
}

/* ---- wire tap --------------------------------------------------------- */

static int mrt_tap_rcv(struct sk_buff *skb, struct net_device *ndev,
		       struct packet_type *pt, struct net_device *orig)
{
	struct mrt_tap *tap = container_of(pt, struct mrt_tap, pt);
	u8 buf[128];	/* every header sequence (MR-HDR-2) */
	struct iphdr iph;
	struct udphdr uh;
	struct mr_pkt p;
	int nh = skb_network_offset(skb);
	u32 len;

	if (skb->pkt_type != PACKET_OUTGOING ||
	    skb->protocol != htons(ETH_P_IP) ||
	    skb_copy_bits(skb, nh, &iph, sizeof(iph)) ||
	    iph.protocol != IPPROTO_UDP ||
	    skb_copy_bits(skb, nh + iph.ihl * 4, &uh, sizeof(uh)) ||
	    uh.dest != htons(mroce_udp_port))
		goto out;
	len = ntohs(uh.len) - sizeof(uh);
	/* The headers are enough for what the tap keeps. */
	if (len > sizeof(buf))
		len = sizeof(buf);
	if (skb_copy_bits(skb, nh + iph.ihl * 4 + sizeof(uh), buf, len) ||
	    mr_pkt_decode(buf, len, &p))
		goto out;
	spin_lock_bh(&tap->lock);
	if (tap->n < MRT_TAP_MAX)
		tap->pkt[tap->n++] = (struct mrt_tap_pkt){
			.opcode = p.opcode, .flags = p.flags, .dqpn = p.dqpn,
			.sqpn = p.sqpn, .psn = p.psn, .msn = p.dxh.msn,
			.offset = p.dxh.offset, .msg_len = p.dxh.msg_len,
		};
	else
		tap->lost++;
	spin_unlock_bh(&tap->lock);
out:
	kfree_skb(skb);
	return 0;
}

void mrt_tap_start(struct mrt_tap *tap, struct mroce_dev *dev)
{
	memset(tap, 0, sizeof(*tap));
	spin_lock_init(&tap->lock);
	tap->pt.type = htons(ETH_P_ALL);
	tap->pt.dev = dev->ndev;
	tap->pt.func = mrt_tap_rcv;
	dev_add_pack(&tap->pt);
}

void mrt_tap_stop(struct mrt_tap *tap)
{
	/* Waits until no CPU is inside mrt_tap_rcv() (synchronize_net). */
	dev_remove_pack(&tap->pt);
}

MODULE_DESCRIPTION("KUnit suites of the MetaRoCE software RDMA device");
MODULE_LICENSE("GPL");
