/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE kernel compatibility: the one place where the glue meets the
 * kernel APIs that changed between the kernels it builds against
 * (README.md, "Supported kernels": Debian 12's 6.1, bookworm-backports'
 * 6.12, and compile-only the newest Debian header trees, checked by
 * scripts/check-kernels.sh). The .c files call the wrappers below and
 * carry no version tests of their own; kernel/proto never includes this
 * file (it is plain C over proto/compat.h).
 *
 * A feature test (a header or a macro) where the kernel offers one, a
 * LINUX_VERSION_CODE test where it does not. Versions marked "pinned"
 * are the upstream release that made the change; the ones marked
 * "bracketed" were not pinned to a release: the 6.12 headers have the
 * old form, the 7.2 headers (the next tree Debian's archive offers) the
 * new one, and 7.0 is assumed. A kernel between 6.13 and 7.1 that fails
 * to build with one of these needs that bracket narrowed here.
 *
 * Part 1 wraps kernel functions. Part 2 adapts the driver's callbacks
 * (ib_device_ops, UDP tunnel hooks) whose signature the kernel changed
 * to the one signature the driver implements; it needs the driver's
 * prototypes, so metaroce.h includes this file after verbs.h.
 */
#ifndef MROCE_KCOMPAT_H
#define MROCE_KCOMPAT_H

#include <linux/version.h>
#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <net/ipv6.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * The one version test; the sublevel never matters here. checkpatch's
 * rule against LINUX_VERSION_CODE (code for the tree it is merged into)
 * does not apply to an out-of-tree compat header and is waived for this
 * file only (scripts/check-kernel.sh).
 */
#define MROCE_KERNEL_AT_LEAST(major, minor) \
	(KERNEL_VERSION(major, minor, 0) <= LINUX_VERSION_CODE)

/* Bracketed (see above): changes first seen in the 7.2 headers. */
#define MROCE_KV_BRACKETED	MROCE_KERNEL_AT_LEAST(7, 0)

/* ---- Part 1: kernel functions ---------------------------------------- */

/*
 * hrtimer_setup() sets the callback with the timer (pinned: 6.13);
 * hrtimer_init() is gone in 7.x.
 */
#if !MROCE_KERNEL_AT_LEAST(6, 13)
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/* dev_get_flags() became netif_get_flags() (pinned: 6.17). */
#if !MROCE_KERNEL_AT_LEAST(6, 17)
static inline unsigned int netif_get_flags(const struct net_device *dev)
{
	return dev_get_flags(dev);
}
#endif

/*
 * vm_flags became read-only for drivers; vm_flags_set() sets them under
 * the VMA's write lock (pinned: 6.3).
 */
#if !MROCE_KERNEL_AT_LEAST(6, 3)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/* Pin user memory by virtual address: ib_umem_get() (bracketed). */
static inline struct ib_umem *mroce_umem_get(struct ib_device *ibdev,
					     unsigned long addr, size_t size,
					     int access)
{
#if MROCE_KV_BRACKETED
	return ib_umem_get_va(ibdev, addr, size, access);
#else
	return ib_umem_get(ibdev, addr, size, access);
#endif
}

/*
 * The tunnel socket helpers take the struct sock of the socket that
 * udp_sock_create() made (bracketed).
 */
static inline void mroce_setup_udp_tunnel_sock(struct net *net,
					       struct socket *sock,
					       struct udp_tunnel_sock_cfg *cfg)
{
#if MROCE_KV_BRACKETED
	setup_udp_tunnel_sock(net, sock->sk, cfg);
#else
	setup_udp_tunnel_sock(net, sock, cfg);
#endif
}

static inline void mroce_udp_tunnel_sock_release(struct socket *sock)
{
#if MROCE_KV_BRACKETED
	udp_tunnel_sock_release(sock->sk);
#else
	udp_tunnel_sock_release(sock);
#endif
}

/*
 * The tunnel xmit helpers gained a trailing IP control-block flags
 * argument (bracketed); MetaRoCE sets none. The addresses are passed
 * writable, as 6.1's helper takes them. udp_tunnel6_xmit_skb()
 * returned an int that was always 0 before it became void (6.12 has
 * void): nothing is lost by not reading it.
 */
static inline void mroce_udp_tunnel_xmit_skb(struct rtable *rt,
					     struct sock *sk,
					     struct sk_buff *skb,
					     __be32 src, __be32 dst, u8 tos,
					     u8 ttl, __be16 df, __be16 sport,
					     __be16 dport, bool xnet,
					     bool nocheck)
{
#if MROCE_KV_BRACKETED
	udp_tunnel_xmit_skb(rt, sk, skb, src, dst, tos, ttl, df, sport, dport,
			    xnet, nocheck, 0);
#else
	udp_tunnel_xmit_skb(rt, sk, skb, src, dst, tos, ttl, df, sport, dport,
			    xnet, nocheck);
#endif
}

#if IS_ENABLED(CONFIG_IPV6)
static inline void mroce_udp_tunnel6_xmit_skb(struct dst_entry *dst,
					      struct sock *sk,
					      struct sk_buff *skb,
					      struct net_device *dev,
					      struct in6_addr *saddr,
					      struct in6_addr *daddr,
					      u8 prio, u8 ttl, __be32 label,
					      __be16 sport, __be16 dport,
					      bool nocheck)
{
#if MROCE_KV_BRACKETED
	udp_tunnel6_xmit_skb(dst, sk, skb, dev, saddr, daddr, prio, ttl, label,
			     sport, dport, nocheck, 0);
#else
	udp_tunnel6_xmit_skb(dst, sk, skb, dev, saddr, daddr, prio, ttl, label,
			     sport, dport, nocheck);
#endif
}
#endif

/*
 * IPv6 route lookup. While IPv6 could be a module, a module reached it
 * through ipv6_stub (<net/ipv6_stubs.h>); with that header gone the
 * function is called directly. Feature test: the header, found by
 * __has_include; sparse 0.6.4 has no __has_include, but there
 * <net/udp_tunnel.h> (above) has included the header wherever it
 * exists, and its guard tells.
 */
#ifdef __has_include
#if __has_include("net/ipv6_stubs.h")
#include <net/ipv6_stubs.h>
#endif
#endif

static inline struct dst_entry *
mroce_ip6_dst_lookup_flow(struct net *net, const struct sock *sk,
			  struct flowi6 *fl6)
{
#ifdef _IPV6_STUBS_H
	return ipv6_stub->ipv6_dst_lookup_flow(net, sk, fl6, NULL);
#else
	return ip6_dst_lookup_flow(net, sk, fl6, NULL);
#endif
}

/* ---- Part 2: driver callbacks ---------------------------------------- */

/*
 * create_cq gets the uverbs attribute bundle (pinned: 6.11); a user
 * CQ's udata is its driver_udata, a kernel CQ has no bundle.
 */
#if MROCE_KERNEL_AT_LEAST(6, 11)
static inline int mroce_create_cq_op(struct ib_cq *ibcq,
				     const struct ib_cq_init_attr *attr,
				     struct uverbs_attr_bundle *attrs)
{
	return mroce_create_cq(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}
#else
#define mroce_create_cq_op mroce_create_cq
#endif

/*
 * reg_user_mr gets a DMA handle (pinned: 6.17): CPU and memory-type
 * hints for a device's DMA. A software device does no DMA, so a
 * registration that asks for one is refused rather than silently run
 * without it.
 */
#if MROCE_KERNEL_AT_LEAST(6, 17)
static inline struct ib_mr *mroce_reg_user_mr_op(struct ib_pd *ibpd,
						 u64 start, u64 length,
						 u64 virt_addr, int access,
						 struct ib_dmah *dmah,
						 struct ib_udata *udata)
{
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
	return mroce_reg_user_mr(ibpd, start, length, virt_addr, access,
				 udata);
}
#else
#define mroce_reg_user_mr_op mroce_reg_user_mr
#endif

/*
 * CQ resize became resize_user_cq, for user CQs only and with an
 * unsigned count (bracketed); kernel consumers lost ib_resize_cq. The
 * ib_device_ops member is named through MROCE_RESIZE_CQ_OP.
 */
#if MROCE_KV_BRACKETED
static inline int mroce_resize_cq_op(struct ib_cq *ibcq, unsigned int cqe,
				     struct ib_udata *udata)
{
	if (cqe > INT_MAX)
		return -EINVAL;
	return mroce_resize_cq(ibcq, cqe, udata);
}

#define MROCE_RESIZE_CQ_OP resize_user_cq
#else
#define mroce_resize_cq_op mroce_resize_cq
#define MROCE_RESIZE_CQ_OP resize_cq
#endif

/*
 * The UDP tunnel's ICMP error hook gets the error, port, info and
 * payload instead of the UDP header offset (pinned: 6.2). MetaRoCE only
 * counts the error (mroce_udp_err(), net.c).
 */
void mroce_udp_err(struct sock *sk, struct sk_buff *skb);

#if MROCE_KERNEL_AT_LEAST(6, 2)
static inline void mroce_udp_err_rcv(struct sock *sk, struct sk_buff *skb,
				     int err, __be16 port, u32 info,
				     u8 *payload)
{
	mroce_udp_err(sk, skb);
}
#else
static inline void mroce_udp_err_rcv(struct sock *sk, struct sk_buff *skb,
				     unsigned int udp_offset)
{
	mroce_udp_err(sk, skb);
}
#endif

#endif /* MROCE_KCOMPAT_H */
