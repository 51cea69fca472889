// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE encapsulation glue: one UDP tunnel socket pair (IPv4 + IPv6)
 * per network namespace that has a MetaRoCE device, the transmit path
 * (route lookup in the device's namespace + udp_tunnel{,6}_xmit_skb) and
 * the receive hook handing packets to the datapath.
 *
 * Encapsulation: Ethernet / IPv4 or IPv6 / UDP (dst port udp_port,
 * default MR_UDP_PORT; src port 0xC000 | 14-bit entropy) / MetaRoCE
 * (MR-ENC-1, MR-ENC-11).
 */

#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/ip.h>
#include <linux/inetdevice.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/dst_cache.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "metaroce.h"

static unsigned int mroce_net_id;

/*
 * Per-namespace state (net_generic storage, lives until the namespace's
 * pernet exit).
 */
struct mroce_net {
	/*
	 * Protects users and the socket pointers' lifetime (created by the
	 * first attach, released by the last detach) and serialises
	 * writers of devs.
	 */
	struct mutex lock;
	unsigned int users;
	struct socket *sk4;
	struct socket *sk6;
	/* Attached mroce_devs; RCU readers in the receive path. */
	struct list_head devs;
};

/*
 * A packet one device sent to one of its own addresses comes in on the
 * loopback netdev: it belongs to the device whose netdev has the
 * destination address (QPs of one device connected to each other, as
 * with any RoCE device). RCU read side held.
 */
static bool mroce_dev_owns_daddr(struct mroce_dev *dev, struct sk_buff *skb)
{
	struct net *net = dev_net(dev->ndev);

	if (skb->protocol == htons(ETH_P_IP))
		return __ip_dev_find(net, ip_hdr(skb)->daddr, false) ==
		       dev->ndev;
#if IS_ENABLED(CONFIG_IPV6)
	if (skb->protocol == htons(ETH_P_IPV6))
		return ipv6_chk_addr(net, &ipv6_hdr(skb)->daddr, dev->ndev,
				     0);
#endif
	return false;
}

/* The device of @mnet bound to the netdev @skb came in on, or NULL. RCU. */
static struct mroce_dev *mroce_net_dev_of(struct mroce_net *mnet,
					  const struct sk_buff *skb)
{
	struct mroce_dev *dev;

	list_for_each_entry_rcu(dev, &mnet->devs, net_node)
		if (dev->ndev == skb->dev)
			return dev;
	return NULL;
}

/*
 * An ICMP error quotes a packet of ours when its UDP source port is a
 * MetaRoCE entropy port (MR-ENC-2): take it (0), else leave it (the
 * stack counts it as for any socket).
 */
static int mroce_udp_err_lookup(struct sock *sk, struct sk_buff *skb)
{
	const struct udphdr *uh;

	if (!pskb_may_pull(skb, skb_transport_offset(skb) + sizeof(*uh)))
		return -EINVAL;
	uh = udp_hdr(skb);
	return (ntohs(uh->source) & ~0x3fff) == 0xC000 ? 0 : -ENOENT;
}

/*
 * An ICMP error (fragmentation needed, packet too big, unreachable)
 * for one of our packets: counted on the device whose netdev it came
 * in on (MR-ENC-13). The path layer finds such a path by its losses
 * (MR-MP-8); the QP by its retry budget. Softirq, RCU held.
 */
void mroce_udp_err(struct sock *sk, struct sk_buff *skb)
{
	struct mroce_net *mnet = rcu_dereference_sk_user_data(sk);
	struct mroce_dev *dev = mnet ? mroce_net_dev_of(mnet, skb) : NULL;

	if (dev)
		mroce_count(dev, MROCE_CNT_ICMP_ERRORS);
}

/* Whether IP reassembled @skb from fragments (its control block says). */
static bool mroce_reassembled(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return IPCB(skb)->frag_max_size;
#if IS_ENABLED(CONFIG_IPV6)
	if (skb->protocol == htons(ETH_P_IPV6))
		return IP6CB(skb)->frag_max_size ||
		       (IP6CB(skb)->flags & IP6SKB_FRAGMENTED);
#endif
	return false;
}

static int mroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct mroce_net *mnet = rcu_dereference_sk_user_data(sk);
	struct mroce_dev *dev, *found = NULL;
	u16 sport;

	if (!mnet)
		goto drop;

	/* encap_rcv runs in softirq under rcu_read_lock(). */
	found = mroce_net_dev_of(mnet, skb);
	if (!found && skb->dev && (skb->dev->flags & IFF_LOOPBACK)) {
		list_for_each_entry_rcu(dev, &mnet->devs, net_node) {
			if (mroce_dev_owns_daddr(dev, skb)) {
				found = dev;
				break;
			}
		}
	}
	if (!found || !ib_device_try_get(&found->ibdev))
		goto drop;

	/*
	 * Strip the UDP header: skb->data is the MetaRoCE base header. A
	 * datagram reassembled from IP fragments is dropped (MR-ENC-7,
	 * MR-MAL-2 step 1): no sender fragments, so such a datagram is
	 * forged or misrouted, and UD must not take more than a packet.
	 */
	if (mroce_reassembled(skb)) {
		mroce_count(found, MROCE_CNT_MALFORMED_DROPS);
		kfree_skb(skb);
	} else if (!pskb_may_pull(skb, sizeof(struct udphdr))) {
		mroce_count(found, MROCE_CNT_MALFORMED_DROPS);
		kfree_skb(skb);
	} else {
		sport = ntohs(((struct udphdr *)skb->data)->source);
		__skb_pull(skb, sizeof(struct udphdr));
		mroce_rcv(found, skb, sport);
	}
	ib_device_put(&found->ibdev);
	return 0;

drop:
	kfree_skb(skb);
	return 0;
}

static struct socket *mroce_sock_create(struct net *net,
					struct mroce_net *mnet, bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {};
	struct udp_port_cfg udp_cfg = {};
	struct socket *sock;
	int err;

	if (ipv6) {
		udp_cfg.family = AF_INET6;
		udp_cfg.ipv6_v6only = 1;
		udp_cfg.local_ip6 = in6addr_any;
		/*
		 * A zero IPv6 UDP checksum is accepted (no_check6_rx): a
		 * trimming switch may zero it rather than recompute it
		 * (MR-ENC-3, MR-TRIM-5). Sent packets carry one (the xmit
		 * helper is told so per packet).
		 */
		udp_cfg.use_udp6_rx_checksums = 0;
	} else {
		udp_cfg.family = AF_INET;
		udp_cfg.local_ip.s_addr = htonl(INADDR_ANY);
	}
	udp_cfg.local_udp_port = htons(mroce_udp_port);

	err = udp_sock_create(net, &udp_cfg, &sock);
	if (err)
		return ERR_PTR(err);
	/*
	 * MR-ENC-13: an ICMP error never changes what a QP sends, and anyone
	 * can forge one. IPv4: DF datagrams are held to the interface MTU,
	 * not to a path MTU the route learned from a "fragmentation needed"
	 * (IP_PMTUDISC_PROBE). IPv6: no "packet too big" quoting our
	 * datagrams is taken into the route (IPV6_PMTUDISC_INTERFACE).
	 */
	if (ipv6)
		inet6_sk(sock->sk)->pmtudisc = IPV6_PMTUDISC_INTERFACE;
	else
		ip_sock_set_mtu_discover(sock->sk, IP_PMTUDISC_PROBE);

	tnl_cfg.sk_user_data = mnet;
	tnl_cfg.encap_type = 1;
	tnl_cfg.encap_rcv = mroce_udp_encap_recv;
	tnl_cfg.encap_err_lookup = mroce_udp_err_lookup;
	tnl_cfg.encap_err_rcv = mroce_udp_err_rcv;
	mroce_setup_udp_tunnel_sock(net, sock, &tnl_cfg);
	return sock;
}

static void mroce_sock_release(struct mroce_net *mnet)
{
	/* udp_tunnel_sock_release() waits for RCU readers of user data. */
	if (mnet->sk6)
		mroce_udp_tunnel_sock_release(mnet->sk6);
	if (mnet->sk4)
		mroce_udp_tunnel_sock_release(mnet->sk4);
	mnet->sk6 = NULL;
	mnet->sk4 = NULL;
}

/*
 * Attach @dev to the namespace of its netdev: create the namespace's
 * sockets on first use and make the device visible to the receive path.
 */
int mroce_net_attach(struct mroce_dev *dev)
{
	struct net *net = dev_net(dev->ndev);
	struct mroce_net *mnet = net_generic(net, mroce_net_id);
	struct socket *sock;
	int err = 0;

	mutex_lock(&mnet->lock);
	if (!mnet->users) {
		sock = mroce_sock_create(net, mnet, false);
		if (IS_ERR(sock)) {
			err = PTR_ERR(sock);
			goto out;
		}
		mnet->sk4 = sock;
		if (IS_ENABLED(CONFIG_IPV6)) {
			/* IPv6 may be disabled at boot: IPv4 only then. */
			sock = mroce_sock_create(net, mnet, true);
			if (!IS_ERR(sock))
				mnet->sk6 = sock;
			else if (PTR_ERR(sock) != -EAFNOSUPPORT)
				pr_warn("metaroce: no IPv6 socket: %ld\n",
					PTR_ERR(sock));
		}
	}
	mnet->users++;
	list_add_tail_rcu(&dev->net_node, &mnet->devs);
	dev->mnet = mnet;
out:
	mutex_unlock(&mnet->lock);
	return err;
}

void mroce_net_detach(struct mroce_dev *dev)
{
	struct mroce_net *mnet = dev->mnet;

	mutex_lock(&mnet->lock);
	list_del_rcu(&dev->net_node);
	if (!--mnet->users)
		mroce_sock_release(mnet);
	mutex_unlock(&mnet->lock);
	/* Receive-path walkers of mnet->devs are done with @dev. */
	synchronize_rcu();
	dev->mnet = NULL;
}

/* The AH's traffic class, else the device's dscp (MR-ENC-4). */
static u8 mroce_tos(struct mroce_dev *dev, const struct mroce_av *av,
		    bool ect)
{
	u8 tos = av->tclass ? av->tclass & ~INET_ECN_MASK :
			      (u8)(mroce_param(&dev->params, MROCE_P_DSCP) << 2);

	return ect ? tos | INET_ECN_ECT_0 : tos;
}

/* Headroom for link layer + IP + UDP in front of the MetaRoCE headers. */
struct sk_buff *mroce_skb_alloc(struct mroce_dev *dev,
				const struct mroce_av *av, unsigned int len,
				gfp_t gfp)
{
	unsigned int hroom = LL_RESERVED_SPACE(dev->ndev) +
			     sizeof(struct udphdr);
	struct sk_buff *skb;

	hroom += av->net_type == RDMA_NETWORK_IPV6 ? sizeof(struct ipv6hdr) :
						     sizeof(struct iphdr);
	skb = alloc_skb(hroom + len + dev->ndev->needed_tailroom, gfp);
	if (!skb)
		return NULL;
	skb_reserve(skb, hroom);
	return skb;
}

static int mroce_xmit4(struct mroce_dev *dev, struct socket *sock,
		       const struct mroce_av *av, struct dst_cache *dc,
		       struct sk_buff *skb, __be16 sport, u8 tos)
{
	struct net *net = sock_net(sock->sk);
	struct flowi4 fl4 = {
		.flowi4_oif = dev->ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.daddr = av->daddr.v4,
		.saddr = av->saddr.v4,
	};
	struct rtable *rt = NULL;
	__be32 saddr = av->saddr.v4;
	u8 ttl;

	if (dc)
		rt = dst_cache_get_ip4(dc, &saddr);
	if (!rt) {
		rt = ip_route_output_key(net, &fl4);
		if (IS_ERR(rt))
			return PTR_ERR(rt);
		if (dc)
			dst_cache_set_ip4(dc, &rt->dst, fl4.saddr);
	}
	ttl = av->hop_limit ?: ip4_dst_hoplimit(&rt->dst);
	/*
	 * IPv4 UDP checksum 0: the ICRC protects the payload (MR-ENC-3).
	 * iptunnel_xmit() accounts the packet to skb->dev as a tunnel
	 * netdev's: NULL here (mroce_skb_alloc), the netdev counts it.
	 */
	mroce_udp_tunnel_xmit_skb(rt, sock->sk, skb, av->saddr.v4, av->daddr.v4,
				  tos, ttl, htons(IP_DF), sport,
				  htons(mroce_udp_port), false, true);
	return 0;
}

#if IS_ENABLED(CONFIG_IPV6)
static int mroce_xmit6(struct mroce_dev *dev, struct socket *sock,
		       const struct mroce_av *av, struct dst_cache *dc,
		       struct sk_buff *skb, __be16 sport, u8 tos)
{
	struct net *net = sock_net(sock->sk);
	struct flowi6 fl6 = {
		.flowi6_oif = dev->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.daddr = av->daddr.v6,
		.saddr = av->saddr.v6,
	};
	struct dst_entry *dst = NULL;
	struct in6_addr saddr = av->saddr.v6;
	struct in6_addr daddr = av->daddr.v6;
	u8 ttl;

	if (dc)
		dst = dst_cache_get_ip6(dc, &saddr);
	if (!dst) {
		dst = mroce_ip6_dst_lookup_flow(net, sock->sk, &fl6);
		if (IS_ERR(dst))
			return PTR_ERR(dst);
		if (dc)
			dst_cache_set_ip6(dc, dst, &fl6.saddr);
	}
	ttl = av->hop_limit ?: ip6_dst_hoplimit(dst);
	/*
	 * IPv6 always carries a valid UDP checksum (MR-ENC-3). No netdev:
	 * the helper would account the packet in its dev->tstats, the
	 * per-CPU stats of a tunnel netdev. MetaRoCE has none, and its
	 * netdev has no tstats (virtio-net, dummy: a write into per-CPU
	 * memory that is not a pcpu_sw_netstats) or counts its
	 * transmissions itself (veth, bridge: twice).
	 */
	mroce_udp_tunnel6_xmit_skb(dst, sock->sk, skb, NULL, &saddr, &daddr,
				   tos, ttl, cpu_to_be32(av->flow_label),
				   sport, htons(mroce_udp_port), false);
	return 0;
}
#endif

/*
 * One QP, one transmit queue. A QP's packets are sent from whichever CPU
 * made work for it (the poster, the softirq that took an ACK, a timer),
 * and an skb without a socket gets its queue from that CPU (XPS) or from
 * a hash of its headers, whose UDP source port is the path's entropy:
 * one QP would leave by several queues, and the NIC would reorder its
 * packets before any fabric does: its peer reports holes at once
 * (MR-REL-3 c, h) and the QP takes them for loss (MR-LOSS-2). Name a
 * CPU that is the QP's own instead, which XPS maps to one queue; for a
 * NIC without XPS, or a CPU without a map (offline, say), record a
 * queue of the QP's own as the one the packet came in by, which the
 * stack's transmit hash then takes as it does for a forwarded packet
 * (reduced modulo the device's queues; 0-63 keeps that reduction
 * short). The QPN spreads the QPs over the queues.
 *
 * Not a flow hash of the QP's: the skb keeps its hash through veth
 * and namespaces, and a Linux router on the same host (containers,
 * VRFs) takes an L4 hash for its ECMP choice, so that every path of
 * the QP would take one route (MR-MP-1).
 */
static void mroce_xmit_steer(struct sk_buff *skb, u32 qpn)
{
#if IS_ENABLED(CONFIG_XPS)
	skb->sender_cpu = qpn % nr_cpu_ids + 1;
#endif
	skb_record_rx_queue(skb, qpn & 63);
}

/*
 * Transmit one MetaRoCE packet (skb->data = base header, ICRC included)
 * of QP @qpn to @av. @entropy picks the path (UDP source port
 * 0xC000 | entropy, MR-ENC-2); @ect marks data packets ECN-capable.
 * Consumes @skb. Safe from process and softirq context, not with
 * interrupts off.
 */
int mroce_xmit(struct mroce_dev *dev, u32 qpn, const struct mroce_av *av,
	       struct dst_cache *dc, struct sk_buff *skb, u16 entropy,
	       bool ect)
{
	__be16 sport = htons(0xC000 | (entropy & 0x3fff));
	struct mroce_net *mnet = dev->mnet;
	unsigned int len = skb->len;
	u8 tos = mroce_tos(dev, av, ect);
	struct socket *sock;
	int err = -EAFNOSUPPORT;

	skb->protocol = av->net_type == RDMA_NETWORK_IPV6 ? htons(ETH_P_IPV6) :
							    htons(ETH_P_IP);
	skb->ignore_df = 0;
	mroce_xmit_steer(skb, qpn);

	/*
	 * BH off, as in a tunnel's ndo_start_xmit: @dc's per-CPU slot is
	 * used without a lock by every transmitter on this CPU, the receive
	 * softirq (ACKs) and the timers included. A process-context caller
	 * (post_send, the requester run) interrupted there by the softirq
	 * would release the slot's dst twice or leak one (and with it a
	 * reference to the netdev); preempted, it would use another CPU's.
	 */
	local_bh_disable();
	if (av->net_type == RDMA_NETWORK_IPV4) {
		sock = READ_ONCE(mnet->sk4);
		if (sock)
			err = mroce_xmit4(dev, sock, av, dc, skb, sport, tos);
#if IS_ENABLED(CONFIG_IPV6)
	} else if (av->net_type == RDMA_NETWORK_IPV6) {
		sock = READ_ONCE(mnet->sk6);
		if (sock)
			err = mroce_xmit6(dev, sock, av, dc, skb, sport, tos);
#endif
	}
	local_bh_enable();

	if (err) {
		kfree_skb(skb);
		mroce_count(dev, MROCE_CNT_TX_DROPS);
		return err;
	}
	mroce_count(dev, MROCE_CNT_TX_PKTS);
	mroce_count_add(dev, MROCE_CNT_TX_BYTES, len);
	return 0;
}

static int __net_init mroce_pernet_init(struct net *net)
{
	struct mroce_net *mnet = net_generic(net, mroce_net_id);

	mutex_init(&mnet->lock);
	INIT_LIST_HEAD(&mnet->devs);
	return 0;
}

static void __net_exit mroce_pernet_exit(struct net *net)
{
	struct mroce_net *mnet = net_generic(net, mroce_net_id);

	/*
	 * The namespace's netdevs are gone (device pernet ops ran before
	 * this subsys exit); their NETDEV_UNREGISTER queued our devices'
	 * unregistration, which detaches them. Wait for it.
	 */
	mroce_flush_unregister();

	mutex_lock(&mnet->lock);
	if (WARN_ON(mnet->users))
		mroce_sock_release(mnet);
	mutex_unlock(&mnet->lock);
	mutex_destroy(&mnet->lock);
}

static struct pernet_operations mroce_net_ops = {
	.init = mroce_pernet_init,
	.exit = mroce_pernet_exit,
	.id = &mroce_net_id,
	.size = sizeof(struct mroce_net),
};

int mroce_net_init(void)
{
	return register_pernet_subsys(&mroce_net_ops);
}

void mroce_net_exit(void)
{
	unregister_pernet_subsys(&mroce_net_ops);
}
