/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE device: limits, hardware counters, struct mroce_dev, and the
 * device, link, namespace (main.c, device.c, net.c), receive entry
 * (recv.c) and counter (stats.c) functions.
 */
#ifndef MROCE_DEV_H
#define MROCE_DEV_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

#include "params.h"

struct mroce_av;

#define MROCE_DRV_NAME		"metaroce"

/*
 * Worst-case bytes between the netdev payload start and the IB payload:
 * IPv6 (40) + UDP (8) + MBH (20) + DXH (16) + RXH (16) + IMM (4) + ICRC (4).
 * The active IB MTU is the largest IB MTU that fits in netdev MTU minus
 * this overhead (MR-ENC-* in the spec).
 */
#define MROCE_MAX_HDR_OVERHEAD	(40 + 8 + 20 + 16 + 16 + 4 + 4)

/* Device limits (reported through query_device) */
#define MROCE_MAX_QP		0x10000
#define MROCE_MAX_QP_WR		0x4000
#define MROCE_MAX_SGE		32
#define MROCE_MAX_INLINE	512
#define MROCE_MAX_CQ		0x10000
#define MROCE_MAX_CQE		0x8000
#define MROCE_MAX_MR		0x40000
#define MROCE_MAX_MR_SIZE	(1ULL << 40)
#define MROCE_MAX_FR_PAGES	512
#define MROCE_MAX_PD		0x10000
#define MROCE_MAX_AH		0x10000
#define MROCE_MAX_SRQ		0x1000
#define MROCE_MAX_SRQ_WR	0x4000
#define MROCE_MAX_RD_ATOMIC	128
#define MROCE_QPN_MAX		0xffffffU	/* 24-bit QPN */
#define MROCE_GSI_QPN		1
#define MROCE_FIRST_QPN		2
/*
 * Keys (MR-SEC-1): bits 31-28 random at allocation (and at a new
 * translation), 27-8 the index in dev->mrs, 7-0 the key byte (random, or
 * the consumer's at each REG_MR). Every MR and window counts against
 * max_mr, so the index space holds them four times over: cyclic
 * allocation leaves a freed index unused for a million allocations.
 */
#define MROCE_KEY_IDX_BITS	20
#define MROCE_KEY_IDX_MAX	((1U << MROCE_KEY_IDX_BITS) - 1)
#define MROCE_KEY_RAND_HI	(~0U << (MROCE_KEY_IDX_BITS + 8))
static_assert(4 * MROCE_MAX_MR <= MROCE_KEY_IDX_MAX + 1);

/* The index in dev->mrs of the MR or window a key names. */
static inline u32 mroce_key_index(u32 key)
{
	return (key >> 8) & MROCE_KEY_IDX_MAX;
}

/*
 * Whether @a and @b name the same MR or window: all but the key byte,
 * which the consumer chooses at each REG_MR and bind, agree (the random
 * bits as well as the index, MR-SEC-1).
 */
static inline bool mroce_key_same_name(u32 a, u32 b)
{
	return a >> 8 == b >> 8;
}

/* Hardware counters exported through `rdma statistic show`. */
enum mroce_counter {
	MROCE_CNT_TX_PKTS,
	MROCE_CNT_TX_BYTES,
	MROCE_CNT_RX_PKTS,
	MROCE_CNT_RX_BYTES,
	MROCE_CNT_TX_DROPS,
	MROCE_CNT_RETX,
	MROCE_CNT_ACK_TX,
	MROCE_CNT_ACK_RX,
	MROCE_CNT_SACK_TX,
	MROCE_CNT_SACK_RX,
	MROCE_CNT_NACK_TX_TRIMMED,
	MROCE_CNT_NACK_TX_SEQ_ERR,
	MROCE_CNT_NACK_TX_RNR,
	MROCE_CNT_NACK_TX_REM_ACCESS,
	MROCE_CNT_NACK_TX_INV_REQ,
	MROCE_CNT_NACK_TX_REM_OP,
	MROCE_CNT_NACK_RX_TRIMMED,
	MROCE_CNT_NACK_RX_SEQ_ERR,
	MROCE_CNT_NACK_RX_RNR,
	MROCE_CNT_NACK_RX_REM_ACCESS,
	MROCE_CNT_NACK_RX_INV_REQ,
	MROCE_CNT_NACK_RX_REM_OP,
	MROCE_CNT_RTO,
	MROCE_CNT_SPURIOUS_RTO,
	MROCE_CNT_RNR_EVENTS,
	MROCE_CNT_ECN_CE_SEEN,
	MROCE_CNT_ECN_ECHOED,
	MROCE_CNT_ICRC_DROPS,
	MROCE_CNT_MALFORMED_DROPS,
	MROCE_CNT_VERSION_DROPS,
	MROCE_CNT_QPN_DROPS,
	MROCE_CNT_DUP_DROPS,
	MROCE_CNT_WINDOW_DROPS,
	MROCE_CNT_RKEY_VIOLATIONS,
	MROCE_CNT_PATH_REROLLS,
	MROCE_CNT_QKEY_DROPS,
	MROCE_CNT_NO_WQE_DROPS,
	MROCE_CNT_UD_LEN_DROPS,
	MROCE_CNT_STALE_DROPS,
	MROCE_CNT_FUTURE_DROPS,
	MROCE_CNT_OLD_DUP_DROPS,
	MROCE_CNT_ERR_POINT_DROPS,
	MROCE_CNT_REPLAY_DROPS,
	MROCE_CNT_ATOMIC_MISS,
	MROCE_CNT_RATE_LIMITED,
	MROCE_CNT_ACK_AGE_DROPS,
	MROCE_CNT_TRIM_DROPS,
	MROCE_CNT_TRIMMED_RX,
	MROCE_CNT_RESP_DROPS,
	MROCE_CNT_NACK_TX_RESOURCE,
	MROCE_CNT_NACK_RX_RESOURCE,
	MROCE_CNT_PMTU_DROPS,
	MROCE_CNT_ICMP_ERRORS,
	MROCE_CNT_HELLO_SENT,
	MROCE_CNT_HELLO_RECEIVED,
	MROCE_CNT_HELLO_UNANSWERED,
	MROCE_CNT_HELLO_CONFLICT,
	MROCE_CNT_HELLO_LATE,
	MROCE_CNT_SPURIOUS_LOSS,
	/* malformed_drops by reason, the error names of MR-MAL-2 (MR-MAL-9) */
	MROCE_CNT_TRUNC_DROPS,
	MROCE_CNT_RSVD_DROPS,
	MROCE_CNT_OPCODE_DROPS,
	MROCE_CNT_HDR_LEN_DROPS,
	MROCE_CNT_FLAGS_DROPS,
	MROCE_CNT_PAYLOAD_DROPS,
	MROCE_CNT_RANGE_DROPS,
	MROCE_CNT_ALIGN_DROPS,
	MROCE_CNT_FIELD_DROPS,
	/* MR-MAL-9's src (MR-SEC-4) and msg_mismatch (MR-PLACE-14) */
	MROCE_CNT_SRC_DROPS,
	MROCE_CNT_MSG_MISMATCH_DROPS,
	/* UC receivers (MR-UC-6..10) */
	MROCE_CNT_UC_OLD_DROPS,
	MROCE_CNT_UC_LATE_DROPS,
	MROCE_CNT_UC_REFUSED_DROPS,
	MROCE_CNT_UC_MSG_DROPS,
	/* path health (MR-MP-8..11, MR-CONF-7) */
	MROCE_CNT_PATH_DEATHS,
	MROCE_CNT_PATH_REVIVALS,
	MROCE_CNT_PATH_PROBES,
	MROCE_CNT_PATH_PROBE_REPLIES,
	MROCE_CNT_PATH_EXPLORES,	/* MR-MP-32, also in path_rerolls */
	MROCE_NUM_COUNTERS
};

struct mroce_stats {
	u64 cnt[MROCE_NUM_COUNTERS];
};

struct mroce_net;

struct mroce_dev {
	struct ib_device ibdev;		/* must be first: ib_alloc_device */

	/*
	 * The bound netdev. A reference is held (ndev_tracker) from
	 * newlink until dealloc_driver; the pointer never changes.
	 */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;

	/* On mroce_devs (main.c), protected by mroce_devs_lock. */
	struct list_head list;
	/* On mnet->devs: written under mnet->lock, read under RCU. */
	struct list_head net_node;
	/* Per-namespace UDP sockets, referenced while registered. */
	struct mroce_net *mnet;

	struct ib_device_attr attr;	/* constant after registration */

	/* Protects port_state and active_mtu; taken from notifier + verbs. */
	spinlock_t port_lock;
	enum ib_port_state port_state;
	enum ib_mtu active_mtu;

	/*
	 * qpn -> mroce_qp. The xarray's internal lock serialises writers;
	 * the receive path looks QPs up under RCU and takes qp->ref.
	 */
	struct xarray qps;
	u32 qpn_next;
	/* key index -> mroce_mr, same scheme as qps. */
	struct xarray mrs;
	u32 mr_next;

	/* Object counts against the limits in attr. */
	atomic_t num_pd, num_ah, num_cq, num_qp, num_srq, num_mr;
	/* Last mroce_qp.serial given out (type 2 window binding, mw.c). */
	atomic64_t qp_serial;

	struct mroce_stats __percpu *stats;

	/* Transport parameters (params.c); their own lock, a leaf. */
	struct mroce_params params;

	/* Deferred unregistration on NETDEV_UNREGISTER (main.c). */
	struct work_struct unreg_work;
	unsigned long unreg_queued;	/* bit 0: queued once, never again */
};

static inline struct mroce_dev *to_mdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mroce_dev, ibdev);
}

static inline void mroce_count(struct mroce_dev *dev, enum mroce_counter c)
{
	this_cpu_inc(dev->stats->cnt[c]);
}

static inline void mroce_count_add(struct mroce_dev *dev,
				   enum mroce_counter c, u64 v)
{
	this_cpu_add(dev->stats->cnt[c], v);
}

u64 mroce_counter_read(struct mroce_dev *dev, enum mroce_counter c);
void mroce_count_decode_err(struct mroce_dev *dev, int err);

extern unsigned short mroce_udp_port;

int mroce_dev_add(const char *ibdev_name, struct net_device *ndev);
int mroce_devs_add(struct mroce_dev *dev);
void mroce_devs_del(struct mroce_dev *dev);
void mroce_dev_init_unreg_work(struct mroce_dev *dev);
void mroce_dev_queue_unregister(struct mroce_dev *dev);
void mroce_flush_unregister(void);
struct mroce_dev *mroce_dev_find_ndev(struct net_device *ndev);
void mroce_dev_port_event(struct mroce_dev *dev, unsigned long event);
enum ib_mtu mroce_mtu_from_netdev(unsigned int netdev_mtu);

int mroce_net_init(void);
void mroce_net_exit(void);
int mroce_net_attach(struct mroce_dev *dev);
void mroce_net_detach(struct mroce_dev *dev);
struct sk_buff *mroce_skb_alloc(struct mroce_dev *dev,
				const struct mroce_av *av, unsigned int len,
				gfp_t gfp);
int mroce_xmit(struct mroce_dev *dev, u32 qpn, const struct mroce_av *av,
	       struct dst_cache *dc, struct sk_buff *skb, u16 entropy,
	       bool ect);

/* Receive path entry (recv.c); consumes @skb, data at the base header. */
/* @sport: the UDP source port the packet came from (MR-MP-15). */
void mroce_rcv(struct mroce_dev *dev, struct sk_buff *skb, u16 sport);

/* Hardware counters (stats.c) */
struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

#endif /* MROCE_DEV_H */
