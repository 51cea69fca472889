// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE receive path entry, called from the UDP encap hook in
 * softirq context with a registration reference on the device.
 *
 * STUB: the packet is counted and dropped. Decoding, ICRC check and
 * dispatch to the responder/completer on the protocol core are the next
 * step.
 */

#include <linux/skbuff.h>

#include "metaroce.h"

void mroce_rcv(struct mroce_dev *dev, struct sk_buff *skb)
{
	mroce_count(dev, MROCE_CNT_RX_PKTS);
	mroce_count_add(dev, MROCE_CNT_RX_BYTES, skb->len);
	kfree_skb(skb);
}
