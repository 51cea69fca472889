// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE KUnit suite metaroce_net: the encapsulation glue (net.c) on a
 * netdev that is not a veth: a Linux bridge, mrbr0 (mra) with port
 * mrk10 <-> mrk11 (mrb), set up by tests/kunit/setup.sh.
 *
 * A bridge keeps per-CPU software stats in dev->tstats, the field the UDP
 * tunnel helpers account a tunnel netdev's transmissions in. MetaRoCE is
 * not a tunnel netdev: the netdev it is bound to carries its packets and
 * must count each of them once, by itself, over IPv6 and IPv4 alike. The cases post from the KUnit thread, so the transmit path
 * (dst cache included) also runs from preemptible process context here.
 */

#include <linux/delay.h>
#include <linux/icmp.h>
#include <linux/inet.h>
#include <linux/ip.h>
#include <linux/netdevice.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip.h>

#include "kunit_fixture.h"

#define MRT_BR_IP_A	"198.18.0.1"
#define MRT_BR_IP_B	"198.18.0.2"
#define MRT_BR_IP6_A	"2001:db8:78::1"
#define MRT_BR_IP6_B	"2001:db8:78::2"
#define MRT_BR		"mrbr0"

static struct mroce_dev *mrt_na, *mrt_nb;

static int mrt_net_suite_init(struct kunit_suite *suite)
{
	return mrt_pair_add(MRT_BR, "mrt_na", &mrt_na, "mrk11", "mrt_nb",
			    &mrt_nb);
}

static void mrt_net_suite_exit(struct kunit_suite *suite)
{
	mrt_pair_del(&mrt_na, &mrt_nb);
}

/* tx_packets of netdev @name as the netdev reports it (ip -s link). */
static u64 mrt_ndev_tx_packets(const char *name)
{
	struct rtnl_link_stats64 st = {};
	struct net_device *ndev = mrt_ndev_get(name);

	if (!ndev)
		return 0;
	dev_get_stats(ndev, &st);
	dev_put(ndev);
	return st.tx_packets;
}

/*
 * Wait (max 5 s) until the bridge's tx_packets and mrt_na's TX_PKTS both
 * hold still for 100 ms: every packet of the previous step is out and
 * accounted. Returns false if they never did.
 */
static bool mrt_net_settle(u64 *br_tx, u64 *mr_tx)
{
	u64 b, m;
	int i;

	*br_tx = mrt_ndev_tx_packets(MRT_BR);
	*mr_tx = mroce_counter_read(mrt_na, MROCE_CNT_TX_PKTS);
	for (i = 0; i < 50; i++) {
		msleep(100);
		b = mrt_ndev_tx_packets(MRT_BR);
		m = mroce_counter_read(mrt_na, MROCE_CNT_TX_PKTS);
		if (b == *br_tx && m == *mr_tx)
			return true;
		*br_tx = b;
		*mr_tx = m;
	}
	return false;
}

/*
 * RC WRITEs from mrt_na (on the bridge) to mrt_nb over @ipa -> @ipb: the
 * bridge's tx_packets grows by exactly the number of packets the device
 * sent, at least 3 per 3000-byte WRITE at MTU 1024.
 */
static void mrt_net_bridge_tx(struct kunit *test, bool ipv6)
{
	const char *ipa = ipv6 ? MRT_BR_IP6_A : MRT_BR_IP_A;
	const char *ipb = ipv6 ? MRT_BR_IP6_B : MRT_BR_IP_B;
	const u32 len = 3000, nwr = 16;
	struct mrt_ep a = {}, b = {};
	u64 br0, mr0, br1, mr1;
	u8 *src, *dst;
	struct ib_wc wc;
	int ga, gb;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, mrt_na);
	KUNIT_ASSERT_NOT_NULL(test, mrt_nb);
	ga = ipv6 ? mrt_gid6_index(mrt_na, ipa) : mrt_gid_index(mrt_na, ipa);
	gb = ipv6 ? mrt_gid6_index(mrt_nb, ipb) : mrt_gid_index(mrt_nb, ipb);
	mrt_connect2(test, &a, &b, mrt_na, mrt_nb, ga, gb, ipa, ipb);
	src = kunit_kzalloc(test, len, GFP_KERNEL);
	dst = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, src && dst);
	mrt_fill(src, len, 3);

	/* One WRITE first: routes and the dst cache are filled. */
	KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, src, len,
					    (uintptr_t)dst,
					    b.pd->unsafe_global_rkey, 0), 0);
	KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
	KUNIT_ASSERT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_ASSERT_TRUE(test, mrt_net_settle(&br0, &mr0));

	for (i = 1; i <= nwr; i++)
		KUNIT_ASSERT_EQ(test, mrt_post_rdma(&a, IB_WR_RDMA_WRITE, src,
						    len, (uintptr_t)dst,
						    b.pd->unsafe_global_rkey,
						    i), 0);
	for (i = 1; i <= nwr; i++) {
		KUNIT_ASSERT_EQ(test, mrt_poll(&a, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)i);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	}
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, len), 0);
	KUNIT_ASSERT_TRUE(test, mrt_net_settle(&br1, &mr1));

	KUNIT_EXPECT_GE(test, mr1 - mr0, (u64)nwr * 3);
	KUNIT_EXPECT_EQ_MSG(test, br1 - br0, mr1 - mr0,
			    "%s tx_packets grew by %llu for %llu packets sent",
			    MRT_BR, br1 - br0, mr1 - mr0);

	mrt_ep_free(&a);
	mrt_ep_free(&b);
}

static void mrt_net_bridge_tx_ipv6(struct kunit *test)
{
	mrt_net_bridge_tx(test, true);
}

static void mrt_net_bridge_tx_ipv4(struct kunit *test)
{
	mrt_net_bridge_tx(test, false);
}

/*
 * MR-ENC-13: an ICMP "fragmentation needed" that quotes a packet of ours
 * (IPv4, DF, UDP source port an entropy port, destination the MetaRoCE
 * port) arrives at mrt_na's netdev from the peer: the stack hands it to
 * the tunnel socket and it is counted (icmp_errors), nothing else. One
 * quoting another UDP source port is not ours and not counted. The MTU
 * it names (65000) is above the route's, so the route is unchanged.
 */
static void mrt_net_icmp_send(struct kunit *test, u16 sport)
{
	struct net_device *ndev = mrt_na->ndev;
	struct iphdr *iph, *q;
	struct icmphdr *ic;
	struct sk_buff *skb;
	struct udphdr *uh;
	u32 len = sizeof(*iph) + sizeof(*ic) + sizeof(*q) + sizeof(*uh) + 8;

	skb = alloc_skb(LL_MAX_HEADER + len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, LL_MAX_HEADER);
	iph = skb_put_zero(skb, len);
	ic = (struct icmphdr *)(iph + 1);
	q = (struct iphdr *)(ic + 1);
	uh = (struct udphdr *)(q + 1);

	/* the packet of ours that did not fit: A -> B, DF */
	q->version = 4;
	q->ihl = 5;
	q->tot_len = htons(1100);
	q->frag_off = htons(IP_DF);
	q->ttl = 64;
	q->protocol = IPPROTO_UDP;
	q->saddr = in_aton(MRT_BR_IP_A);
	q->daddr = in_aton(MRT_BR_IP_B);
	q->check = ip_fast_csum((u8 *)q, q->ihl);
	uh->source = htons(sport);
	uh->dest = htons(mroce_udp_port);
	uh->len = htons(1080);

	ic->type = ICMP_DEST_UNREACH;
	ic->code = ICMP_FRAG_NEEDED;
	ic->un.frag.mtu = htons(65000);
	ic->checksum = ip_compute_csum(ic, len - sizeof(*iph));

	/* from B (a router on the path would do as well) to A */
	iph->version = 4;
	iph->ihl = 5;
	iph->tot_len = htons(len);
	iph->ttl = 64;
	iph->protocol = IPPROTO_ICMP;
	iph->saddr = in_aton(MRT_BR_IP_B);
	iph->daddr = in_aton(MRT_BR_IP_A);
	iph->check = ip_fast_csum((u8 *)iph, iph->ihl);

	skb_reset_network_header(skb);
	skb_reset_mac_header(skb);	/* no link header: mac_len 0 */
	skb->protocol = htons(ETH_P_IP);
	skb->pkt_type = PACKET_HOST;
	skb->dev = ndev;
	KUNIT_ASSERT_EQ(test, netif_rx(skb), NET_RX_SUCCESS);
}

static void mrt_net_icmp_counted(struct kunit *test)
{
	u64 c0, c;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, mrt_na);
	c0 = mroce_counter_read(mrt_na, MROCE_CNT_ICMP_ERRORS);
	mrt_net_icmp_send(test, 0xC000 | 0x123);
	for (i = 0; i < 50; i++) {
		c = mroce_counter_read(mrt_na, MROCE_CNT_ICMP_ERRORS);
		if (c != c0)
			break;
		msleep(20);
	}
	KUNIT_EXPECT_EQ(test, c, c0 + 1);
	/* not an entropy port (MR-ENC-2): someone else's packet */
	mrt_net_icmp_send(test, 40000);
	msleep(200);
	KUNIT_EXPECT_EQ(test, mroce_counter_read(mrt_na,
						 MROCE_CNT_ICMP_ERRORS), c0 + 1);
}

static struct kunit_case mrt_net_cases[] = {
	KUNIT_CASE(mrt_net_icmp_counted),
	KUNIT_CASE(mrt_net_bridge_tx_ipv6),
	KUNIT_CASE(mrt_net_bridge_tx_ipv4),
	{}
};

static struct kunit_suite mrt_net_suite = {
	.name = "metaroce_net",
	.suite_init = mrt_net_suite_init,
	.suite_exit = mrt_net_suite_exit,
	.test_cases = mrt_net_cases,
};

kunit_test_suite(mrt_net_suite);
