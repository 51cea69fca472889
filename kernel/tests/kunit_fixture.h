/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared fixture of the MetaRoCE KUnit suites (the <area>_kunit.c files
 * beside this one), built as metaroce_kunit.ko (Kbuild in this directory)
 * for the test kernel only; the suites run when that module is loaded in
 * the test VM, after metaroce.ko, which exports what they call
 * (../kunit_exports.c).
 *
 * The guest fabric comes from tests/kunit/setup.sh: namespaces mra and
 * mrb joined by veth pairs mrk0 (mra, 192.0.2.1, 2001:db8:77::1) <->
 * mrk1 (mrb, 192.0.2.2, 2001:db8:77::2), plus spare pairs mrk2/mrk3
 * (deleted by the unregister test) and mrk4/mrk5 (mrk4 moved to
 * init_net by the namespace-move test); mrk6/mrk7 (netem) for the loss
 * suite, mrk8/mrk9 (deleted in use) for the teardown suite and the
 * bridge mrbr0 (mra, port mrk10) <-> mrk11 (mrb) for the net suite.
 */
#ifndef MROCE_KUNIT_FIXTURE_H
#define MROCE_KUNIT_FIXTURE_H

#include <kunit/test.h>

#include "metaroce.h"

#define MRT_IP_A	"192.0.2.1"
#define MRT_IP_B	"192.0.2.2"

/* First PSN of both directions of the RC QPs mrt_to_rtr/mrt_to_rts set up. */
#define MRT_PSN		0x123456

/* Devices and GIDs. */
struct net_device *mrt_ndev_get(const char *name);
struct mroce_dev *mrt_dev_add(struct kunit *test, const char *ndev_name,
			      const char *ibname);
void mrt_dev_del(struct mroce_dev *dev);
bool mrt_ibdev_exists(const char *ibname);
int mrt_gid_index(struct mroce_dev *dev, const char *ip);
int mrt_gid6_index(struct mroce_dev *dev, const char *ip);

/* QP state transitions (RC attributes) and work requests. */
int mrt_to_init(struct ib_qp *qp);
int mrt_to_rtr(struct ib_qp *qp, u32 dqpn, int gid, const char *dip,
	       int mask_drop);
int mrt_to_rtr_mtu(struct ib_qp *qp, u32 dqpn, int gid, const char *dip,
		   int mask_drop, enum ib_mtu mtu);
int mrt_to_rts(struct ib_qp *qp);
int mrt_to(struct ib_qp *qp, enum ib_qp_state state);
enum ib_qp_state mrt_qp_state(struct ib_qp *qp);
int mrt_post_reg(struct ib_qp *qp, struct ib_mr *mr, int access, u64 wr_id);

/* Two devices, mrt_ra on mrk0 (mra) and mrt_rb on mrk1 (mrb). */
extern struct mroce_dev *mrt_da, *mrt_db;
extern int mrt_ga, mrt_gb;

int mrt_pair_add(const char *nda, const char *iba, struct mroce_dev **da,
		 const char *ndb, const char *ibb, struct mroce_dev **db);
void mrt_pair_del(struct mroce_dev **da, struct mroce_dev **db);
int mrt_rc_suite_init(struct kunit_suite *suite);
void mrt_rc_suite_exit(struct kunit_suite *suite);

/* One side of a connection. */
struct mrt_ep {
	struct mroce_dev *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;	/* send and receive */
	struct ib_qp *qp;
	int events;
	int comps;		/* completion notifications of cq */
};

void mrt_ep_event(struct ib_event *ev, void *ctx);
void mrt_ep_init(struct kunit *test, struct mrt_ep *ep,
		 struct mroce_dev *dev);
void mrt_ep_free(struct mrt_ep *ep);
void mrt_connect_qps(struct kunit *test, struct ib_qp *qa, struct ib_qp *qb,
		     int ga, int gb, const char *ipa, const char *ipb);
/* The same with path MTU @mtu (1024 above). */
void mrt_connect_qps_mtu(struct kunit *test, struct ib_qp *qa,
			 struct ib_qp *qb, int ga, int gb, const char *ipa,
			 const char *ipb, enum ib_mtu mtu);
void mrt_connect2(struct kunit *test, struct mrt_ep *a, struct mrt_ep *b,
		  struct mroce_dev *da, struct mroce_dev *db, int ga, int gb,
		  const char *ipa, const char *ipb);
void mrt_dump_dev(struct mroce_dev *dev);
int mrt_poll(struct mrt_ep *ep, struct ib_wc *wc);
u64 mrt_wait_counter(struct mroce_dev *dev, enum mroce_counter c, u64 min);
int mrt_post_recv(struct mrt_ep *ep, void *buf, u32 len, u64 wr_id);
int mrt_post_rdma(struct mrt_ep *ep, enum ib_wr_opcode op, void *buf,
		  u32 len, u64 raddr, u32 rkey, u64 wr_id);
void mrt_fill(u8 *p, u32 len, u32 seed);

/*
 * Packet @p (payload_len bytes from p->payload) encoded by the core into
 * an skb that looks as if it just came up the stack: IPv4 from @from to
 * @to, skb->data at the MBH, @pkt_type set; @mangle (may be NULL) edits
 * the encoded bytes first. For mroce_rcv().
 */
struct sk_buff *mrt_craft_skb(struct kunit *test, const struct mr_pkt *p,
			      const char *from, const char *to,
			      void (*mangle)(u8 *buf, u32 *len), u8 pkt_type);

/*
 * A wire tap: the MetaRoCE packets (IPv4, the module's UDP port) a netdev
 * transmits, decoded by the core's codec, the bytes as they left. Up to
 * MRT_TAP_MAX are kept; tap->lost counts the rest.
 */
#define MRT_TAP_MAX	64
struct mrt_tap_pkt {
	u8 opcode;
	u16 flags;
	u32 dqpn, sqpn, psn, msn, offset, msg_len;
};

struct mrt_tap {
	struct packet_type pt;
	spinlock_t lock;	/* n, lost, pkt: the tap runs in softirq */
	u32 n, lost;
	struct mrt_tap_pkt pkt[MRT_TAP_MAX];
};

void mrt_tap_start(struct mrt_tap *tap, struct mroce_dev *dev);
void mrt_tap_stop(struct mrt_tap *tap);

#endif /* MROCE_KUNIT_FIXTURE_H */
