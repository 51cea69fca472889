// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE device attributes: /sys/class/infiniband/<ibdev>/ holds
 * metaroce_abi_version (the provider's device match) and one file per
 * transport parameter (MR-CC-18: every parameter configurable per device,
 * the spec's defaults).  A store is checked against the parameter's range
 * and against the rest of the set (-EINVAL); a QP copies the set when it
 * enters RTS (mroce_params_req) or, for ack_every, ack_reorder,
 * ack_delay_us and ack_batch, RTR (mroce_params_resp), except dscp,
 * trim_dscp and seq_err_interval_us, which apply to the next packet.
 *
 * The module parameters paths, dscp, cc_delay and cc_fixed (0444) are the
 * initial values of devices created after the module was loaded.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "metaroce.h"
#include "params.h"

#define MROCE_FP_ONE	MR_CC_ONE		/* fixed point 1.0 */
#define MROCE_CWND_MAX	MR_CC_PKTS(256)		/* scoreboard width (MR-WIN-1) */
#define MROCE_US_MAX	1000000U		/* 1 s */
#define MROCE_RTO_US_MAX	60000000U	/* 60 s */

struct mroce_param_range {
	u32 min;
	u32 max;
};

static const struct mroce_param_range mroce_param_range[MROCE_P_NUM] = {
	[MROCE_P_PATHS] = { 1, MR_PATH_MAX },		/* MR-MP-1 */
	[MROCE_P_PATH_HEALTH] = { 0, 1 },
	/* 0: act as a revision 1.0 node, no HELLO (MR-VER-17). */
	[MROCE_P_HELLO] = { 0, 1 },
	/* Capabilities announced; CORE is always added (MR-VER-11). */
	[MROCE_P_HELLO_CAPS] = { 0, MR_CAP_IMPL },
	[MROCE_P_CC_DELAY] = { 0, 1 },
	[MROCE_P_CC_FIXED] = { 0, 1 },			/* MR-CC-17 */
	[MROCE_P_DSCP] = { 0, 63 },
	/* 64 (MR_TRIM_DSCP_OFF): no codepoint marks a trimmed packet */
	[MROCE_P_TRIM_DSCP] = { 0, MR_TRIM_DSCP_OFF },
	/* 0 would lift the limit MR-SEC-8 requires. */
	[MROCE_P_SEQ_ERR_US] = { 1, MROCE_US_MAX },
	[MROCE_P_CC_G_SHIFT] = { 1, 16 },
	/* One packet at least: the floor without the delay signal. */
	[MROCE_P_CC_INIT_CWND] = { MROCE_FP_ONE, MROCE_CWND_MAX },
	[MROCE_P_CC_MIN_CWND] = { 1, MROCE_CWND_MAX },
	[MROCE_P_CC_MAX_CWND] = { MROCE_FP_ONE, MROCE_CWND_MAX },
	[MROCE_P_CC_AI] = { 1, MROCE_CWND_MAX },
	[MROCE_P_CC_BETA] = { 0, MROCE_FP_ONE },
	[MROCE_P_CC_MAX_MDF] = { 0, MROCE_FP_ONE },
	[MROCE_P_CC_LOSS_MDF] = { 0, MROCE_FP_ONE },
	[MROCE_P_CC_LOSS_RAND_MDF] = { 0, MROCE_FP_ONE },
	[MROCE_P_CC_LOSS_BURST] = { 0, MROCE_FP_ONE },
	[MROCE_P_CC_TRIM_MDF] = { 0, MROCE_FP_ONE },
	[MROCE_P_CC_TARGET_FIXED_US] = { 0, MROCE_US_MAX },
	/* A queueing allowance of 0 to 16 base RTTs (MR-CC-6). */
	[MROCE_P_CC_TARGET_BASE] = { 0, 16 * MROCE_FP_ONE },
	[MROCE_P_CC_TARGET_PER_HOP_US] = { 0, MROCE_US_MAX },
	[MROCE_P_CC_HOPS] = { 0, 255 },
	[MROCE_P_CC_FS_RANGE_US] = { 0, MROCE_US_MAX },
	[MROCE_P_CC_FS_MIN_CWND] = { 1, MROCE_CWND_MAX },
	[MROCE_P_CC_FS_MAX_CWND] = { 1, MROCE_CWND_MAX },
	/* 0: no pacing. */
	[MROCE_P_CC_PACING_GAIN] = { 0, 16 * MROCE_FP_ONE },
	[MROCE_P_CC_PACING_SLACK_US] = { 0, MROCE_US_MAX },
	/* The fixed window is not paced: below a packet nothing would go. */
	[MROCE_P_CC_FIXED_CWND] = { MROCE_FP_ONE, MROCE_CWND_MAX },
	[MROCE_P_INIT_RTO_US] = { 1, MROCE_RTO_US_MAX },
	[MROCE_P_MIN_RTO_US] = { 1, MROCE_RTO_US_MAX },
	[MROCE_P_MAX_RTO_US] = { 1, MROCE_RTO_US_MAX },
	[MROCE_P_REO_WND_MIN_US] = { 0, MROCE_US_MAX },
	[MROCE_P_PATH_REROLL_ROUNDS] = { 1, 255 },
	[MROCE_P_PATH_ECN_THRESH] = { 0, MR_PATH_FP_ONE },
	[MROCE_P_PATH_ECN_REL] = { 0, MR_PATH_FP_ONE },
	[MROCE_P_PATH_DEAD_RTOS] = { 1, 255 },
	[MROCE_P_PATH_PROBE_INTERVAL_US] = { 1, MROCE_US_MAX },
	/* 0: off; else at least 10 ms (MR-MP-32, mroce_params_check) */
	[MROCE_P_PATH_EXPLORE_MS] = { 0, 60000 },
	/* MR-REL-3: at most 8 packets per ACK (MR-REL-14's margin). */
	[MROCE_P_ACK_EVERY] = { 1, MR_RXWIN_ACK_EVERY_MAX },
	/* MR-REL-13: also at most min_rto / 4 (mroce_params_check). */
	[MROCE_P_ACK_DELAY_US] = { 1, MROCE_US_MAX },
	/* MR-REL-3 c: 1 reports every reordering at once. */
	[MROCE_P_ACK_REORDER] = { 1, MR_RXWIN_ACK_REORDER_MAX },
	/* MR-REL-3's batch rule: 0 acknowledges packet by packet. */
	[MROCE_P_ACK_BATCH] = { 0, 1 },
};

/* ---- module parameters: initial values of new devices ------------------ */

struct mroce_modparam {
	u32 val;
	enum mroce_param id;
};

/* A value out of the attribute's range fails the module load. */
static int mroce_modparam_set(const char *s, const struct kernel_param *kp)
{
	struct mroce_modparam *mp = kp->arg;
	const struct mroce_param_range *r = &mroce_param_range[mp->id];
	bool b;
	u32 v;
	int err;

	if (r->max == 1) {
		err = kstrtobool(s, &b);
		v = b;
	} else {
		err = kstrtou32(s, 0, &v);
	}
	if (err)
		return err;
	if (v < r->min || v > r->max)
		return -EINVAL;
	mp->val = v;
	return 0;
}

static int mroce_modparam_get(char *buf, const struct kernel_param *kp)
{
	const struct mroce_modparam *mp = kp->arg;

	return sysfs_emit(buf, "%u\n", mp->val);
}

static const struct kernel_param_ops mroce_modparam_ops = {
	.set = mroce_modparam_set,
	.get = mroce_modparam_get,
};

static struct mroce_modparam mroce_mp_paths = {
	.val = MR_PATH_DEFAULT, .id = MROCE_P_PATHS,
};
module_param_cb(paths, &mroce_modparam_ops, &mroce_mp_paths, 0444);
MODULE_PARM_DESC(paths, "Initial paths (UDP source port entropies) per QP of new devices, 1..64; 1 = single path (default 16)");

static struct mroce_modparam mroce_mp_dscp = {
	.val = 26, .id = MROCE_P_DSCP,	/* AF31 */
};
module_param_cb(dscp, &mroce_modparam_ops, &mroce_mp_dscp, 0444);
MODULE_PARM_DESC(dscp, "Initial DSCP of new devices, used when the AH has no traffic class (default 26)");

/*
 * The delay (Swift) component is off by default on this software device
 * (MR-CC-18, software profile): its RTT samples include host scheduling
 * latency, which is not fabric queueing.  Even as a round's smallest
 * sample (MR-CC-7) against a target of twice the base RTT (MR-CC-6), in
 * an emulated VM that latency exceeded the target in 43% of rounds and
 * collapsed the window to min_cwnd (rationale.rst).  ECN (DCTCP), loss
 * and trim signals stay on.
 */
static struct mroce_modparam mroce_mp_cc_delay = {
	.val = 0, .id = MROCE_P_CC_DELAY,
};
module_param_cb(cc_delay, &mroce_modparam_ops, &mroce_mp_cc_delay, 0444);
MODULE_PARM_DESC(cc_delay, "Initial cc_delay of new devices: use the delay (Swift) congestion signal (default 0)");

static struct mroce_modparam mroce_mp_cc_fixed = {
	.val = 0, .id = MROCE_P_CC_FIXED,
};
module_param_cb(cc_fixed, &mroce_modparam_ops, &mroce_mp_cc_fixed, 0444);
MODULE_PARM_DESC(cc_fixed, "Initial cc_fixed of new devices: fixed full window, no congestion control (default 0)");

/* ---- the parameter set ----------------------------------------------- */

int mroce_params_check(const u32 *v)
{
	int i;

	for (i = 0; i < MROCE_P_NUM; i++)
		if (v[i] < mroce_param_range[i].min ||
		    v[i] > mroce_param_range[i].max)
			return -EINVAL;
	/* What mr_cc_init() and mr_txsb_init() require of the set. */
	if (v[MROCE_P_CC_MIN_CWND] > v[MROCE_P_CC_INIT_CWND] ||
	    v[MROCE_P_CC_INIT_CWND] > v[MROCE_P_CC_MAX_CWND] ||
	    (v[MROCE_P_CC_FS_RANGE_US] &&
	     v[MROCE_P_CC_FS_MIN_CWND] >= v[MROCE_P_CC_FS_MAX_CWND]) ||
	    v[MROCE_P_MIN_RTO_US] > v[MROCE_P_MAX_RTO_US] ||
	    (v[MROCE_P_PATH_EXPLORE_MS] &&
	     (u64)v[MROCE_P_PATH_EXPLORE_MS] * NSEC_PER_MSEC <
	     MR_PATH_EXPLORE_MIN_NS))
		return -EINVAL;
	/*
	 * MR-REL-13: a delayed ACK must never be what fires the peer's RTO;
	 * either value may move, the other is held to it.
	 */
	if (v[MROCE_P_ACK_DELAY_US] > v[MROCE_P_MIN_RTO_US] / 4)
		return -EINVAL;
	return 0;
}
MR_KUNIT_EXPORT(mroce_params_check);

void mroce_params_init(struct mroce_params *p)
{
	struct mr_txsb_params tp;
	struct mr_path_params pp;
	struct mr_cc_params cp;
	u32 *v = p->v;

	mutex_init(&p->lock);
	/* The spec's software profile (MR-CC-18) is the core's default. */
	mr_txsb_default_params(&tp);
	mr_cc_default_params(&cp);
	mr_path_default_params(&pp);
	v[MROCE_P_PATHS] = mroce_mp_paths.val;
	v[MROCE_P_PATH_HEALTH] = 1;
	v[MROCE_P_HELLO] = 1;
	v[MROCE_P_HELLO_CAPS] = MR_CAP_IMPL;
	v[MROCE_P_CC_DELAY] = mroce_mp_cc_delay.val;
	v[MROCE_P_CC_FIXED] = mroce_mp_cc_fixed.val;
	v[MROCE_P_DSCP] = mroce_mp_dscp.val;
	v[MROCE_P_TRIM_DSCP] = MR_TRIM_DSCP_DEFAULT;
	v[MROCE_P_SEQ_ERR_US] = 100;
	v[MROCE_P_CC_G_SHIFT] = cp.g_shift;
	v[MROCE_P_CC_INIT_CWND] = cp.init_cwnd;
	v[MROCE_P_CC_MIN_CWND] = cp.min_cwnd;
	v[MROCE_P_CC_MAX_CWND] = cp.max_cwnd;
	v[MROCE_P_CC_AI] = cp.ai;
	v[MROCE_P_CC_BETA] = cp.beta;
	v[MROCE_P_CC_MAX_MDF] = cp.max_mdf;
	v[MROCE_P_CC_LOSS_MDF] = cp.loss_mdf;
	v[MROCE_P_CC_LOSS_RAND_MDF] = cp.loss_rand_mdf;
	v[MROCE_P_CC_LOSS_BURST] = cp.loss_burst;
	v[MROCE_P_CC_TRIM_MDF] = cp.trim_mdf;
	v[MROCE_P_CC_TARGET_FIXED_US] = cp.target_fixed_ns / NSEC_PER_USEC;
	v[MROCE_P_CC_TARGET_PER_HOP_US] = cp.target_per_hop_ns / NSEC_PER_USEC;
	v[MROCE_P_CC_HOPS] = cp.hops;
	v[MROCE_P_CC_TARGET_BASE] = cp.target_base;
	v[MROCE_P_CC_FS_RANGE_US] = cp.fs_range_ns / NSEC_PER_USEC;
	v[MROCE_P_CC_FS_MIN_CWND] = cp.fs_min_cwnd;
	v[MROCE_P_CC_FS_MAX_CWND] = cp.fs_max_cwnd;
	v[MROCE_P_CC_PACING_GAIN] = cp.pacing_gain;
	v[MROCE_P_CC_PACING_SLACK_US] = cp.pacing_slack_ns / NSEC_PER_USEC;
	v[MROCE_P_CC_FIXED_CWND] = cp.fixed_cwnd;
	v[MROCE_P_INIT_RTO_US] = div_u64(tp.init_rto_ns, NSEC_PER_USEC);
	v[MROCE_P_MIN_RTO_US] = div_u64(tp.min_rto_ns, NSEC_PER_USEC);
	v[MROCE_P_MAX_RTO_US] = div_u64(tp.max_rto_ns, NSEC_PER_USEC);
	v[MROCE_P_REO_WND_MIN_US] = div_u64(tp.reo_wnd_min_ns, NSEC_PER_USEC);
	v[MROCE_P_PATH_REROLL_ROUNDS] = pp.reroll_rounds;
	v[MROCE_P_PATH_ECN_THRESH] = pp.ecn_thresh;
	v[MROCE_P_PATH_ECN_REL] = pp.ecn_rel;
	v[MROCE_P_PATH_DEAD_RTOS] = pp.dead_rtos;
	v[MROCE_P_PATH_PROBE_INTERVAL_US] =
		div_u64(pp.probe_interval_ns, NSEC_PER_USEC);
	v[MROCE_P_PATH_EXPLORE_MS] = div_u64(pp.explore_ns, NSEC_PER_MSEC);
	/* The software device profile (MR-REL-3, MR-REL-13). */
	v[MROCE_P_ACK_EVERY] = MR_RXWIN_ACK_EVERY;
	v[MROCE_P_ACK_DELAY_US] = div_u64(MR_RXWIN_DELACK_NS, NSEC_PER_USEC);
	v[MROCE_P_ACK_REORDER] = MR_RXWIN_ACK_REORDER;
	v[MROCE_P_ACK_BATCH] = 1;
	WARN_ON(mroce_params_check(v));
}
MR_KUNIT_EXPORT(mroce_params_init);

void mroce_params_destroy(struct mroce_params *p)
{
	mutex_destroy(&p->lock);
}
MR_KUNIT_EXPORT(mroce_params_destroy);

int mroce_param_set(struct mroce_params *p, enum mroce_param id, u32 val)
{
	u32 v[MROCE_P_NUM];
	int err;

	mutex_lock(&p->lock);
	memcpy(v, p->v, sizeof(v));
	v[id] = val;
	err = mroce_params_check(v);
	if (!err)
		WRITE_ONCE(p->v[id], val);
	mutex_unlock(&p->lock);
	return err;
}
MR_KUNIT_EXPORT(mroce_param_set);

void mroce_params_req(struct mroce_params *p, struct mr_txsb_params *tp,
		      struct mr_cc_params *cp, struct mr_path_params *pp,
		      bool *path_health)
{
	u32 v[MROCE_P_NUM];

	/* One consistent set (mroce_params_check() held for it). */
	mutex_lock(&p->lock);
	memcpy(v, p->v, sizeof(v));
	mutex_unlock(&p->lock);

	tp->init_rto_ns = (u64)v[MROCE_P_INIT_RTO_US] * NSEC_PER_USEC;
	tp->min_rto_ns = (u64)v[MROCE_P_MIN_RTO_US] * NSEC_PER_USEC;
	tp->max_rto_ns = (u64)v[MROCE_P_MAX_RTO_US] * NSEC_PER_USEC;
	tp->reo_wnd_min_ns = (u64)v[MROCE_P_REO_WND_MIN_US] * NSEC_PER_USEC;

	cp->g_shift = v[MROCE_P_CC_G_SHIFT];
	cp->init_cwnd = v[MROCE_P_CC_INIT_CWND];
	cp->min_cwnd = v[MROCE_P_CC_MIN_CWND];
	cp->max_cwnd = v[MROCE_P_CC_MAX_CWND];
	cp->ai = v[MROCE_P_CC_AI];
	cp->beta = v[MROCE_P_CC_BETA];
	cp->max_mdf = v[MROCE_P_CC_MAX_MDF];
	cp->loss_mdf = v[MROCE_P_CC_LOSS_MDF];
	cp->loss_rand_mdf = v[MROCE_P_CC_LOSS_RAND_MDF];
	cp->loss_burst = v[MROCE_P_CC_LOSS_BURST];
	cp->trim_mdf = v[MROCE_P_CC_TRIM_MDF];
	cp->target_fixed_ns = v[MROCE_P_CC_TARGET_FIXED_US] * NSEC_PER_USEC;
	cp->target_per_hop_ns = v[MROCE_P_CC_TARGET_PER_HOP_US] * NSEC_PER_USEC;
	cp->hops = v[MROCE_P_CC_HOPS];
	cp->target_base = v[MROCE_P_CC_TARGET_BASE];
	cp->fs_range_ns = v[MROCE_P_CC_FS_RANGE_US] * NSEC_PER_USEC;
	cp->fs_min_cwnd = v[MROCE_P_CC_FS_MIN_CWND];
	cp->fs_max_cwnd = v[MROCE_P_CC_FS_MAX_CWND];
	cp->pacing_gain = v[MROCE_P_CC_PACING_GAIN];
	cp->pacing_slack_ns = v[MROCE_P_CC_PACING_SLACK_US] * NSEC_PER_USEC;
	cp->fixed_cwnd = v[MROCE_P_CC_FIXED_CWND];
	if (v[MROCE_P_CC_FIXED]) {
		cp->mode = MR_CC_FIXED;		/* MR-CC-17 */
	} else if (!v[MROCE_P_CC_DELAY]) {
		cp->use_delay = false;
		/* Sub-packet windows only make sense with delay pacing. */
		cp->min_cwnd = MR_CC_ONE;
	}

	if (v[MROCE_P_PATHS] <= 1)
		pp->single = true;		/* MR-MP-13 */
	else
		pp->n_paths = v[MROCE_P_PATHS];
	pp->reroll_rounds = v[MROCE_P_PATH_REROLL_ROUNDS];
	pp->ecn_thresh = v[MROCE_P_PATH_ECN_THRESH];
	pp->ecn_rel = v[MROCE_P_PATH_ECN_REL];
	pp->dead_rtos = v[MROCE_P_PATH_DEAD_RTOS];
	pp->probe_interval_ns =
		(u64)v[MROCE_P_PATH_PROBE_INTERVAL_US] * NSEC_PER_USEC;
	pp->explore_ns = (u64)v[MROCE_P_PATH_EXPLORE_MS] * NSEC_PER_MSEC;

	*path_health = v[MROCE_P_PATH_HEALTH];
}
MR_KUNIT_EXPORT(mroce_params_req);

void mroce_params_resp(struct mroce_params *p, u16 *ack_every,
		       u16 *ack_reorder, u64 *delack_ns, bool *ack_batch)
{
	/* One consistent set (mroce_params_check() held for it). */
	mutex_lock(&p->lock);
	*ack_every = p->v[MROCE_P_ACK_EVERY];
	*ack_reorder = p->v[MROCE_P_ACK_REORDER];
	*delack_ns = (u64)p->v[MROCE_P_ACK_DELAY_US] * NSEC_PER_USEC;
	*ack_batch = p->v[MROCE_P_ACK_BATCH];
	mutex_unlock(&p->lock);
}
MR_KUNIT_EXPORT(mroce_params_resp);

/* ---- attributes -------------------------------------------------------- */

/*
 * /sys/class/infiniband/<ibdev>/metaroce_abi_version: only this module
 * creates it, so the provider claims exactly the metaroce devices.
 */
static ssize_t metaroce_abi_version_show(struct device *device,
					 struct device_attribute *attr,
					 char *buf)
{
	return sysfs_emit(buf, "%u\n", METAROCE_UVERBS_ABI_VERSION);
}
static DEVICE_ATTR_RO(metaroce_abi_version);

struct mroce_param_attr {
	struct device_attribute attr;
	enum mroce_param id;
};

static struct mroce_params *mroce_attr_params(struct device *device)
{
	struct mroce_dev *dev = rdma_device_to_drv_device(device,
							  struct mroce_dev,
							  ibdev);

	return &dev->params;
}

static ssize_t mroce_param_show(struct device *device,
				struct device_attribute *attr, char *buf)
{
	struct mroce_param_attr *pa =
		container_of(attr, struct mroce_param_attr, attr);

	return sysfs_emit(buf, "%u\n",
			  mroce_param(mroce_attr_params(device), pa->id));
}

static ssize_t mroce_param_store(struct device *device,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	struct mroce_param_attr *pa =
		container_of(attr, struct mroce_param_attr, attr);
	u32 v;
	int err;

	err = kstrtou32(buf, 0, &v);
	if (err)
		return err;
	err = mroce_param_set(mroce_attr_params(device), pa->id, v);
	return err ? err : count;
}

#define MROCE_PARAM_ATTR(_name, _id)					\
	static struct mroce_param_attr mroce_pa_##_name = {		\
		.attr = __ATTR(_name, 0644, mroce_param_show,		\
			       mroce_param_store),			\
		.id = _id,						\
	}

MROCE_PARAM_ATTR(paths, MROCE_P_PATHS);
MROCE_PARAM_ATTR(path_health, MROCE_P_PATH_HEALTH);
MROCE_PARAM_ATTR(hello, MROCE_P_HELLO);
MROCE_PARAM_ATTR(hello_caps, MROCE_P_HELLO_CAPS);
MROCE_PARAM_ATTR(cc_delay, MROCE_P_CC_DELAY);
MROCE_PARAM_ATTR(cc_fixed, MROCE_P_CC_FIXED);
MROCE_PARAM_ATTR(dscp, MROCE_P_DSCP);
MROCE_PARAM_ATTR(trim_dscp, MROCE_P_TRIM_DSCP);
MROCE_PARAM_ATTR(seq_err_interval_us, MROCE_P_SEQ_ERR_US);
MROCE_PARAM_ATTR(cc_g_shift, MROCE_P_CC_G_SHIFT);
MROCE_PARAM_ATTR(cc_init_cwnd, MROCE_P_CC_INIT_CWND);
MROCE_PARAM_ATTR(cc_min_cwnd, MROCE_P_CC_MIN_CWND);
MROCE_PARAM_ATTR(cc_max_cwnd, MROCE_P_CC_MAX_CWND);
MROCE_PARAM_ATTR(cc_ai, MROCE_P_CC_AI);
MROCE_PARAM_ATTR(cc_beta, MROCE_P_CC_BETA);
MROCE_PARAM_ATTR(cc_max_mdf, MROCE_P_CC_MAX_MDF);
MROCE_PARAM_ATTR(cc_loss_mdf, MROCE_P_CC_LOSS_MDF);
MROCE_PARAM_ATTR(cc_loss_rand_mdf, MROCE_P_CC_LOSS_RAND_MDF);
MROCE_PARAM_ATTR(cc_loss_burst, MROCE_P_CC_LOSS_BURST);
MROCE_PARAM_ATTR(cc_trim_mdf, MROCE_P_CC_TRIM_MDF);
MROCE_PARAM_ATTR(cc_target_fixed_us, MROCE_P_CC_TARGET_FIXED_US);
MROCE_PARAM_ATTR(cc_target_per_hop_us, MROCE_P_CC_TARGET_PER_HOP_US);
MROCE_PARAM_ATTR(cc_hops, MROCE_P_CC_HOPS);
MROCE_PARAM_ATTR(cc_target_base, MROCE_P_CC_TARGET_BASE);
MROCE_PARAM_ATTR(cc_fs_range_us, MROCE_P_CC_FS_RANGE_US);
MROCE_PARAM_ATTR(cc_fs_min_cwnd, MROCE_P_CC_FS_MIN_CWND);
MROCE_PARAM_ATTR(cc_fs_max_cwnd, MROCE_P_CC_FS_MAX_CWND);
MROCE_PARAM_ATTR(cc_pacing_gain, MROCE_P_CC_PACING_GAIN);
MROCE_PARAM_ATTR(cc_pacing_slack_us, MROCE_P_CC_PACING_SLACK_US);
MROCE_PARAM_ATTR(cc_fixed_cwnd, MROCE_P_CC_FIXED_CWND);
MROCE_PARAM_ATTR(init_rto_us, MROCE_P_INIT_RTO_US);
MROCE_PARAM_ATTR(min_rto_us, MROCE_P_MIN_RTO_US);
MROCE_PARAM_ATTR(max_rto_us, MROCE_P_MAX_RTO_US);
MROCE_PARAM_ATTR(reo_wnd_min_us, MROCE_P_REO_WND_MIN_US);
MROCE_PARAM_ATTR(path_reroll_rounds, MROCE_P_PATH_REROLL_ROUNDS);
MROCE_PARAM_ATTR(path_ecn_thresh, MROCE_P_PATH_ECN_THRESH);
MROCE_PARAM_ATTR(path_ecn_rel, MROCE_P_PATH_ECN_REL);
MROCE_PARAM_ATTR(path_dead_rtos, MROCE_P_PATH_DEAD_RTOS);
MROCE_PARAM_ATTR(path_probe_interval_us, MROCE_P_PATH_PROBE_INTERVAL_US);
MROCE_PARAM_ATTR(path_explore_ms, MROCE_P_PATH_EXPLORE_MS);
MROCE_PARAM_ATTR(ack_every, MROCE_P_ACK_EVERY);
MROCE_PARAM_ATTR(ack_delay_us, MROCE_P_ACK_DELAY_US);
MROCE_PARAM_ATTR(ack_reorder, MROCE_P_ACK_REORDER);
MROCE_PARAM_ATTR(ack_batch, MROCE_P_ACK_BATCH);

static struct attribute *mroce_dev_attrs[] = {
	&dev_attr_metaroce_abi_version.attr,
	&mroce_pa_paths.attr.attr,
	&mroce_pa_path_health.attr.attr,
	&mroce_pa_hello.attr.attr,
	&mroce_pa_hello_caps.attr.attr,
	&mroce_pa_cc_delay.attr.attr,
	&mroce_pa_cc_fixed.attr.attr,
	&mroce_pa_dscp.attr.attr,
	&mroce_pa_trim_dscp.attr.attr,
	&mroce_pa_seq_err_interval_us.attr.attr,
	&mroce_pa_cc_g_shift.attr.attr,
	&mroce_pa_cc_init_cwnd.attr.attr,
	&mroce_pa_cc_min_cwnd.attr.attr,
	&mroce_pa_cc_max_cwnd.attr.attr,
	&mroce_pa_cc_ai.attr.attr,
	&mroce_pa_cc_beta.attr.attr,
	&mroce_pa_cc_max_mdf.attr.attr,
	&mroce_pa_cc_loss_mdf.attr.attr,
	&mroce_pa_cc_loss_rand_mdf.attr.attr,
	&mroce_pa_cc_loss_burst.attr.attr,
	&mroce_pa_cc_trim_mdf.attr.attr,
	&mroce_pa_cc_target_fixed_us.attr.attr,
	&mroce_pa_cc_target_per_hop_us.attr.attr,
	&mroce_pa_cc_hops.attr.attr,
	&mroce_pa_cc_target_base.attr.attr,
	&mroce_pa_cc_fs_range_us.attr.attr,
	&mroce_pa_cc_fs_min_cwnd.attr.attr,
	&mroce_pa_cc_fs_max_cwnd.attr.attr,
	&mroce_pa_cc_pacing_gain.attr.attr,
	&mroce_pa_cc_pacing_slack_us.attr.attr,
	&mroce_pa_cc_fixed_cwnd.attr.attr,
	&mroce_pa_init_rto_us.attr.attr,
	&mroce_pa_min_rto_us.attr.attr,
	&mroce_pa_max_rto_us.attr.attr,
	&mroce_pa_reo_wnd_min_us.attr.attr,
	&mroce_pa_path_reroll_rounds.attr.attr,
	&mroce_pa_path_ecn_thresh.attr.attr,
	&mroce_pa_path_ecn_rel.attr.attr,
	&mroce_pa_path_dead_rtos.attr.attr,
	&mroce_pa_path_probe_interval_us.attr.attr,
	&mroce_pa_path_explore_ms.attr.attr,
	&mroce_pa_ack_every.attr.attr,
	&mroce_pa_ack_delay_us.attr.attr,
	&mroce_pa_ack_reorder.attr.attr,
	&mroce_pa_ack_batch.attr.attr,
	NULL,
};
/* metaroce_abi_version, one file per parameter, NULL */
static_assert(ARRAY_SIZE(mroce_dev_attrs) == MROCE_P_NUM + 2);

/*
 * ib_core 6.1 gives a driver one attribute group in the device directory
 * (ib_device_ops.device_group), so the parameters sit beside
 * metaroce_abi_version rather than in a subdirectory of their own.
 */
const struct attribute_group mroce_dev_attr_group = {
	.attrs = mroce_dev_attrs,
};
