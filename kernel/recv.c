// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE receive path entry, called from the UDP encap hook in
 * softirq context with a registration reference on the device.
 *
 * Order of checks (MR-MAL-2), each failure dropping the packet and
 * counting it once (MR-MAL-1): decode and validation by the core
 * (version, malformed), ICRC unless trimmed (MR-TRIM-2), destination QP (unknown QPN, or a source
 * QP / address that is not the connected peer). Only then is the packet
 * handed to the responder (requests) or the completer (responses,
 * ACK/NACK), which apply the state and sequence checks.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/inet_ecn.h>
#include <net/route.h>

#include "metaroce.h"
#include "resp.h"
#include "trace.h"

/* The IP DS field (DSCP << 2 | ECN) of a received packet, if it has one. */
static bool mroce_skb_dsfield(struct sk_buff *skb, u8 *ds)
{
	if (skb->protocol == htons(ETH_P_IP))
		*ds = ipv4_get_dsfield(ip_hdr(skb));
	else if (skb->protocol == htons(ETH_P_IPV6))
		*ds = ipv6_get_dsfield(ipv6_hdr(skb));
	else
		return false;
	return true;
}

/*
 * Does the packet come from the QP's connected peer address, to the
 * QP's own address (MR-SEC-4)?
 */
static bool mroce_skb_from_peer(struct sk_buff *skb, struct mroce_qp *qp)
{
	const struct mroce_av *av = &qp->attr.av;

	if (skb->protocol == htons(ETH_P_IP))
		return av->net_type == RDMA_NETWORK_IPV4 &&
		       ip_hdr(skb)->saddr == av->daddr.v4 &&
		       ip_hdr(skb)->daddr == av->saddr.v4;
	if (skb->protocol == htons(ETH_P_IPV6))
		return av->net_type == RDMA_NETWORK_IPV6 &&
		       ipv6_addr_equal(&ipv6_hdr(skb)->saddr, &av->daddr.v6) &&
		       ipv6_addr_equal(&ipv6_hdr(skb)->daddr, &av->saddr.v6);
	return false;
}

/*
 * A datagram for a UD or GSI QP must be addressed to this host alone:
 * no broadcast or multicast destination, link or IP (MR-SEC-4), so that
 * one packet to the port cannot reach the QPs of every host on a
 * segment.
 */
static bool mroce_skb_unicast(struct sk_buff *skb)
{
	struct rtable *rt;

	if (skb->pkt_type != PACKET_HOST)
		return false;
	if (skb->protocol == htons(ETH_P_IP)) {
		rt = skb_rtable(skb);
		if (ipv4_is_multicast(ip_hdr(skb)->daddr) ||
		    ipv4_is_lbcast(ip_hdr(skb)->daddr) ||
		    (rt && (rt->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST))))
			return false;
		return true;
	}
	if (skb->protocol == htons(ETH_P_IPV6))
		return !ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
	return false;
}

/*
 * MR-MP-10: answer a PROBE in RTR, RTS or SQD, as the core's rate allows.
 * probe_reply_next is only a rate limit: racing softirqs may both reply.
 */
static void mroce_probe_reply(struct mroce_qp *qp, const struct mr_pkt *p)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	u64 next = READ_ONCE(qp->probe_reply_next);
	struct sk_buff *skb;
	struct mr_pkt r;
	u8 *payload;

	if (!mroce_state_receives(state)) {
		mroce_count(qp->dev, MROCE_CNT_QPN_DROPS);	/* MR-MAL-5 */
		return;
	}
	if (!mr_probe_reply(p, mroce_now(), MR_PROBE_REPLY_GAP_NS, &next,
			    &r)) {
		mroce_count(qp->dev, MROCE_CNT_RATE_LIMITED);	/* MR-SEC-8 */
		return;
	}
	WRITE_ONCE(qp->probe_reply_next, next);
	r.dqpn = qp->attr.dest_qpn;
	r.sqpn = qp->ibqp.qp_num;
	skb = mroce_pkt_new(qp, &r, &payload);
	if (!IS_ERR(skb))
		mroce_pkt_send(qp, skb, mroce_resp_entropy(qp, p->path), false);
}

void mroce_rcv(struct mroce_dev *dev, struct sk_buff *skb, u16 sport)
{
	enum ib_qp_state state;
	enum mr_rx_role role;
	struct mroce_qp *qp;
	struct mr_pkt p;
	u8 ds, dscp = MR_DSCP_UNKNOWN;
	bool ce = false;
	int err;

	mroce_count(dev, MROCE_CNT_RX_PKTS);
	mroce_count_add(dev, MROCE_CNT_RX_BYTES, skb->len);

	if (skb_linearize(skb) || !skb->len) {
		mroce_count_decode_err(dev, skb->len ? 0 : MR_ERR_TRUNC);
		goto drop;
	}
	/*
	 * MR-MAL-2 steps 2..9: the core's pure function, told the DSCP a
	 * trimming switch re-marks cut packets with (MR-TRIM-2).
	 */
	if (mroce_skb_dsfield(skb, &ds)) {
		dscp = ds >> 2;
		ce = INET_ECN_is_ce(ds);
	}
	err = mr_pkt_receive(skb->data, skb->len, dscp,
			     mroce_param(&dev->params, MROCE_P_TRIM_DSCP), &p);
	if (err) {
		mroce_count_decode_err(dev, err);
		goto drop;
	}
	if (p.flags & MR_F_TRIM)
		mroce_count(dev, MROCE_CNT_TRIMMED_RX);
	trace_metaroce_pkt_rx(dev->ibdev.index, &p);

	qp = mroce_qp_get(dev, p.dqpn);
	if (!qp) {
		mroce_count(dev, MROCE_CNT_QPN_DROPS);
		goto drop;
	}
	/*
	 * RC opcodes to RC QPs, UD opcodes to UD/GSI QPs, UC opcodes to UC
	 * QPs (step 10).
	 */
	role = mr_pkt_role(&p);
	if (role == MR_RX_UD) {
		if ((qp->ibqp.qp_type != IB_QPT_UD &&
		     qp->ibqp.qp_type != IB_QPT_GSI) ||
		    !mroce_skb_unicast(skb))
			mroce_count(dev, MROCE_CNT_QPN_DROPS);
		else if (p.flags & MR_F_TRIM)
			/* Its payload is gone: dropped (MR-REL-16). */
			mroce_count(dev, MROCE_CNT_TRIM_DROPS);
		else
			mroce_ud_rcv(qp, &p, skb);
		goto put;
	}
	/* UC opcodes to UC QPs only, and only they (MR-UC-2). */
	if ((role == MR_RX_UC) != (qp->ibqp.qp_type == IB_QPT_UC)) {
		mroce_count(dev, MROCE_CNT_QPN_DROPS);
		goto put;
	}
	state = READ_ONCE(qp->state);
	if ((qp->ibqp.qp_type != IB_QPT_RC &&
	     qp->ibqp.qp_type != IB_QPT_UC) || state == IB_QPS_RESET ||
	    state == IB_QPS_INIT) {
		/*
		 * An RC opcode to a UD/GSI QP (MR-MAL-2 step 10), or to a QP
		 * not connected yet, which has no peer to compare (MR-MAL-5).
		 */
		mroce_count(dev, MROCE_CNT_QPN_DROPS);
		goto put;
	}
	if (p.sqpn != qp->attr.dest_qpn || !mroce_skb_from_peer(skb, qp)) {
		/* Not from the connected peer (MR-SEC-4): "src" (MR-MAL-9). */
		mroce_count(dev, MROCE_CNT_SRC_DROPS);
		goto put;
	}
	if (role == MR_RX_UC) {
		mroce_uc_rcv(qp, &p);
		goto put;
	}

	/*
	 * What the responder sends on this path follows the path's entropy
	 * (MR-MP-15), so a re-roll by the requester, after a loss, an RTO or
	 * an unanswered PROBE, moves the reverse route too (MR-MP-20).
	 */
	if (role == MR_RX_REQUEST || role == MR_RX_PROBE)
		WRITE_ONCE(qp->rx_entropy[p.path], sport & MR_ENTROPY_MASK);
	if (role == MR_RX_REQUEST)
		mroce_resp_rcv(qp, &p, ce);
	else if (role == MR_RX_PROBE)
		mroce_probe_reply(qp, &p);
	else if (role == MR_RX_HELLO)
		mroce_hello_rcv(qp, &p);
	else
		mroce_req_rcv(qp, &p, ce);
put:
	mroce_qp_put(qp);
drop:
	kfree_skb(skb);
}
MR_KUNIT_EXPORT(mroce_rcv);
