// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE UD and GSI (QP1) datapath: one UD_SEND packet per send WR, to
 * the WR's address handle, and its delivery into the next receive WQE
 * with the 40-byte GRH area (MR-UD-*). No transport state: no PSN
 * window, no ACK, no retransmission.
 */

#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/skbuff.h>
#include <rdma/ib_mad.h>

#include "metaroce.h"

/* ---- send ----------------------------------------------------------------- */

/*
 * UD and GSI (QP1): every send is one UD_SEND packet to the WR's AH,
 * sent at once and completed when handed to the IP stack (MR-UD-1), Q_Key
 * per MR-UD-4, one entropy per QP (MR-UD-11).
 * sq.lock held; one packet per WQE, so sending under the lock is short.
 */
u8 mroce_ud_send(struct mroce_qp *qp, struct mroce_send_wqe *wqe)
{
	struct mroce_dev *dev = qp->dev;
	const struct mroce_av *av = &wqe->wr.ud.av;
	u16 entropy = (qp->ibqp.qp_num * 0x9e37) & MR_ENTROPY_MASK;
	u32 qkey = wqe->wr.ud.remote_qkey;
	struct mr_pkt p = {};
	struct sk_buff *skb;
	u8 *payload;
	int err;

	if (wqe->tx.length > ib_mtu_enum_to_int(READ_ONCE(dev->active_mtu)))
		return IB_WC_LOC_LEN_ERR;
	/* A Q_Key with the high bit set means "use the QP's own". */
	if (qkey & 0x80000000)
		qkey = qp->attr.qkey;

	p.opcode = wqe->opcode == IB_WR_SEND_WITH_IMM ? MR_OP_UD_SEND_IMM :
							MR_OP_UD_SEND;
	p.flags = MR_F_FIRST | MR_F_LAST;
	if (wqe->send_flags & IB_SEND_SOLICITED)
		p.flags |= MR_F_SE;
	p.dqpn = wqe->wr.ud.remote_qpn & MR_QPN_MASK;
	p.sqpn = qp->ibqp.qp_num;
	p.psn = qp->sq.head & MR_PSN_MASK;	/* a per-QP counter (MR-UD-2) */
	p.ts = mroce_qp_ts(qp, mroce_now());
	p.deth.qkey = qkey;
	p.deth.src_qpn = qp->ibqp.qp_num;
	p.imm = be32_to_cpu(wqe->ex.imm_data);
	p.payload_len = wqe->tx.length;

	skb = mroce_pkt_new_av(dev, av, &p, &payload);
	if (IS_ERR(skb))
		return IB_WC_LOC_QP_OP_ERR;
	err = mroce_req_payload(qp, wqe, 0, payload, wqe->tx.length);
	if (err) {
		kfree_skb(skb);
		return err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
					  IB_WC_LOC_PROT_ERR;
	}
	mroce_pkt_finish(skb, entropy, false);
	mroce_xmit(dev, qp->ibqp.qp_num, av, NULL, skb, entropy, false);
	return IB_WC_SUCCESS;
}

/* ---- receive -------------------------------------------------------------- */

/*
 * One UD_SEND for a UD or GSI QP (MR-UD-*): Q_Key check, then the next
 * receive WQE gets the 40-byte GRH area (the IPv6 header, or the IPv4
 * header at offset 20, as for RoCE v2) followed by the payload. No WQE:
 * the datagram is dropped (UD has no RNR). Softirq context.
 */
void mroce_ud_rcv(struct mroce_qp *qp, struct mr_pkt *p, struct sk_buff *skb)
{
	struct mroce_dev *dev = qp->dev;
	struct mroce_rq *rq = qp->srq ? &qp->srq->rq : &qp->rq;
	struct mroce_recv_wqe *rwqe;
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct ib_wc wc = {};
	unsigned int note;
	u8 grh[40] = {};
	bool broken;
	int err;

	if (!mroce_state_receives(state)) {
		mroce_count(dev, MROCE_CNT_QPN_DROPS);
		return;
	}
	if (p->deth.qkey != qp->attr.qkey) {
		mroce_count(dev, MROCE_CNT_QKEY_DROPS);	/* MR-UD-5 */
		return;
	}
	/* The GSI QP takes exactly one MAD per datagram (MR-UD-14). */
	if (qp->ibqp.qp_type == IB_QPT_GSI &&
	    p->payload_len != sizeof(struct ib_mad)) {
		mroce_count_decode_err(dev, MR_ERR_PAYLOAD);
		return;
	}

	if (skb->protocol == htons(ETH_P_IP)) {
		memcpy(grh + 20, skb_network_header(skb), 20);
		wc.network_hdr_type = RDMA_NETWORK_IPV4;
	} else {
		memcpy(grh, skb_network_header(skb), 40);
		wc.network_hdr_type = RDMA_NETWORK_IPV6;
	}
	wc.opcode = IB_WC_RECV;
	wc.byte_len = sizeof(grh) + p->payload_len;
	wc.qp = &qp->ibqp;
	wc.src_qp = p->deth.src_qpn;
	wc.port_num = 1;
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	if (p->opcode == MR_OP_UD_SEND_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = cpu_to_be32(p->imm);
	}
	if (skb_mac_header_was_set(skb) &&
	    skb_network_header(skb) - skb_mac_header(skb) >= ETH_HLEN) {
		ether_addr_copy(wc.smac, eth_hdr(skb)->h_source);
		wc.wc_flags |= IB_WC_WITH_SMAC;
	}

	spin_lock_bh(&rq->lock);
	/*
	 * Again under the lock the state changes under (a QP's own RQ): a
	 * datagram completes before the flush of the error state or not
	 * at all.
	 */
	state = READ_ONCE(qp->state);
	if (!qp->srq && !mroce_state_receives(state)) {
		spin_unlock_bh(&rq->lock);
		mroce_count(dev, MROCE_CNT_QPN_DROPS);
		return;
	}
	rwqe = mroce_rq_peek(rq);
	if (!rwqe) {
		broken = rq->broken;
		spin_unlock_bh(&rq->lock);
		mroce_count(dev, MROCE_CNT_NO_WQE_DROPS);	/* MR-UD-9 */
		/*
		 * A corrupt ring index (metaroce-abi.h, SECURITY): the SRQ
		 * reports its error, a QP's own RQ puts the QP in error, as
		 * RC and UC do.
		 */
		if (broken && qp->srq)
			mroce_srq_check_limit(qp->srq);
		else if (broken)
			mroce_qp_fatal(qp);
		return;
	}
	if (mroce_rwqe_len(rwqe) < sizeof(grh) + p->payload_len) {
		/* Dropped without consuming the WQE (MR-UD-10). */
		spin_unlock_bh(&rq->lock);
		mroce_count(dev, MROCE_CNT_UD_LEN_DROPS);
		return;
	}
	wc.wr_id = rwqe->wr_id;
	err = mroce_sge_copy(qp, rwqe->sge, rwqe->num_sge, 0, grh,
			     sizeof(grh), true);
	if (!err)
		err = mroce_sge_copy(qp, rwqe->sge, rwqe->num_sge, sizeof(grh),
				     (void *)p->payload, p->payload_len, true);
	wc.status = err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	mroce_rq_consume(rq);
	/* In WQE order, under the lock that orders the WQEs. */
	note = mroce_cq_add(qp->rcq, &wc, !!(p->flags & MR_F_SE));
	spin_unlock_bh(&rq->lock);
	mroce_cq_notify(qp->rcq, note);
	if (qp->srq)
		mroce_srq_check_limit(qp->srq);
}
