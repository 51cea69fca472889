// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE packet building and local scatter/gather copies.
 *
 * A packet is built in one linear skb: headers encoded by the core's
 * codec (mr_pkt_encode_hdr), the payload copied once from the source
 * memory into the skb, then the ICRC (MR-ICRC-1) over MBH..payload.
 */

#include <linux/ktime.h>
#include <linux/skbuff.h>

#include "metaroce.h"
#include "trace.h"

/* Transmit parameters kept in skb->cb between building and sending. */
struct mroce_skb_cb {
	u16 entropy;
	bool ect;
};

static struct mroce_skb_cb *mroce_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct mroce_skb_cb) > sizeof(skb->cb));
	return (struct mroce_skb_cb *)skb->cb;
}

u64 mroce_now(void)
{
	return ktime_get_ns();
}
MR_KUNIT_EXPORT(mroce_now);

/*
 * Allocate the skb of @p (opcode, header fields and payload_len set by
 * the caller) and encode its headers. *@payload points at the
 * payload_len bytes the caller fills before mroce_pkt_send().
 * ERR_PTR(-ENOMEM) without memory; ERR_PTR(-EINVAL) if the core's
 * encoder refuses the packet: the WRs and requests that reach here were
 * validated, so that is a bug, reported (rate-limited) but never a WARN
 * a peer or a process could trigger.
 */
struct sk_buff *mroce_pkt_new(struct mroce_qp *qp, struct mr_pkt *p,
			      u8 **payload)
{
	return mroce_pkt_new_av(qp->dev, &qp->attr.av, p, payload);
}

/* The same for a packet to @av (UD: the AH's address). */
struct sk_buff *mroce_pkt_new_av(struct mroce_dev *dev,
				 const struct mroce_av *av, struct mr_pkt *p,
				 u8 **payload)
{
	u32 hlen = mr_pkt_hdr_len(p->opcode);
	u32 len = hlen + p->payload_len + MR_ICRC_LEN;
	struct sk_buff *skb;
	u8 *buf;
	int err;

	skb = mroce_skb_alloc(dev, av, len, GFP_ATOMIC);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	buf = skb_put(skb, len);
	err = mr_pkt_encode_hdr(p, buf, len);
	if (err < 0) {
		pr_err_ratelimited("metaroce: encoder refused op %#x psn %u off %u len %u plen %u flags %#x: %s\n",
				   p->opcode, p->psn, p->dxh.offset,
				   p->dxh.msg_len, p->payload_len, p->flags,
				   mr_err_name(err));
		kfree_skb(skb);
		return ERR_PTR(-EINVAL);
	}
	*payload = buf + hlen;
	trace_metaroce_pkt_tx(dev->ibdev.index, p);
	return skb;
}

/*
 * Finish @skb for transmission on path @entropy: its ICRC and the send
 * parameters in its cb. mroce_pkt_queue() queues it for
 * mroce_pkt_flush(), which sends outside the QP locks; the UD path sends
 * it at once.
 */
void mroce_pkt_finish(struct sk_buff *skb, u16 entropy, bool ect)
{
	mr_icrc_put(skb->data, skb->len - MR_ICRC_LEN);
	mroce_cb(skb)->entropy = entropy;
	mroce_cb(skb)->ect = ect;
}

void mroce_pkt_queue(struct sk_buff_head *q, struct sk_buff *skb,
		     u16 entropy, bool ect)
{
	mroce_pkt_finish(skb, entropy, ect);
	__skb_queue_tail(q, skb);
}

/* Send a finished packet of @qp to its peer, as its cb says. */
static void mroce_pkt_xmit(struct mroce_qp *qp, struct sk_buff *skb)
{
	mroce_xmit(qp->dev, qp->ibqp.qp_num, &qp->attr.av, &qp->dst_cache,
		   skb, mroce_cb(skb)->entropy, mroce_cb(skb)->ect);
}

/* Send every queued packet of @qp; no QP lock held. */
void mroce_pkt_flush(struct mroce_qp *qp, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)))
		mroce_pkt_xmit(qp, skb);
}

/* Send one packet now, unqueued (the PROBE_REPLY, recv.c). */
void mroce_pkt_send(struct mroce_qp *qp, struct sk_buff *skb, u16 entropy,
		    bool ect)
{
	mroce_pkt_finish(skb, entropy, ect);
	mroce_pkt_xmit(qp, skb);
}

/*
 * Copy @len bytes between @buf and the memory described by @sge at byte
 * @offset of the list. Each SGE's lkey is checked against the QP's PD
 * (to_sge: local write access). Returns 0, -EACCES (protection) or
 * -EMSGSIZE (the list is shorter than offset + len).
 */
int mroce_sge_copy(struct mroce_qp *qp, const struct ib_sge *sge,
		   u32 num_sge, u32 offset, void *buf, u32 len, bool to_sge)
{
	struct mroce_dev *dev = qp->dev;
	struct mroce_mr *mr;
	u32 i, chunk;
	int err;

	for (i = 0; i < num_sge && len; i++) {
		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		chunk = min(len, sge[i].length - offset);
		mr = mroce_mr_get(dev, sge[i].lkey);
		if (!mr)
			return -EACCES;
		err = mroce_mr_check(mr, qp->ibqp.pd, sge[i].lkey,
				     sge[i].addr + offset, chunk,
				     to_sge ? IB_ACCESS_LOCAL_WRITE : 0);
		if (!err)
			err = mroce_mr_copy(mr, sge[i].addr + offset, buf, chunk,
					    to_sge);
		mroce_mr_put(mr);
		if (err)
			return -EACCES;
		buf += chunk;
		len -= chunk;
		offset = 0;
	}
	return len ? -EMSGSIZE : 0;
}
