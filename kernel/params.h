/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE per-device transport parameters (MR-CC-18): the congestion
 * control, loss recovery, ACK coalescing and path parameters of the
 * spec's tables, the path count, DSCP and the SEQ_ERR interval.  Each is a device attribute
 * /sys/class/infiniband/<ibdev>/<name> (params.c); a few module
 * parameters give new devices their initial values.
 */
#ifndef MROCE_PARAMS_H
#define MROCE_PARAMS_H

#include <linux/mutex.h>
#include <linux/sysfs.h>
#include <linux/types.h>

struct mroce_dev;
struct mr_cc_params;
struct mr_path_params;
struct mr_txsb_params;

/*
 * Values are kept in the unit their attribute shows: microseconds for
 * times (_us), packets or fractions in 1/65536 (the core's fixed point)
 * for windows and gains, plain integers otherwise.
 */
enum mroce_param {
	MROCE_P_PATHS,
	MROCE_P_PATH_HEALTH,
	MROCE_P_HELLO,
	MROCE_P_HELLO_CAPS,
	MROCE_P_CC_DELAY,
	MROCE_P_CC_FIXED,
	MROCE_P_DSCP,
	MROCE_P_TRIM_DSCP,	/* MR-TRIM-2, MR_TRIM_DSCP_OFF: none */
	MROCE_P_SEQ_ERR_US,
	MROCE_P_CC_G_SHIFT,
	MROCE_P_CC_INIT_CWND,
	MROCE_P_CC_MIN_CWND,
	MROCE_P_CC_MAX_CWND,
	MROCE_P_CC_AI,
	MROCE_P_CC_BETA,
	MROCE_P_CC_MAX_MDF,
	MROCE_P_CC_LOSS_MDF,
	MROCE_P_CC_LOSS_RAND_MDF,
	MROCE_P_CC_LOSS_BURST,
	MROCE_P_CC_TRIM_MDF,
	MROCE_P_CC_TARGET_FIXED_US,
	MROCE_P_CC_TARGET_PER_HOP_US,
	MROCE_P_CC_HOPS,
	MROCE_P_CC_TARGET_BASE,
	MROCE_P_CC_FS_RANGE_US,
	MROCE_P_CC_FS_MIN_CWND,
	MROCE_P_CC_FS_MAX_CWND,
	MROCE_P_CC_PACING_GAIN,
	MROCE_P_CC_PACING_SLACK_US,
	MROCE_P_CC_FIXED_CWND,
	MROCE_P_INIT_RTO_US,
	MROCE_P_MIN_RTO_US,
	MROCE_P_MAX_RTO_US,
	MROCE_P_REO_WND_MIN_US,
	MROCE_P_PATH_REROLL_ROUNDS,
	MROCE_P_PATH_ECN_THRESH,
	MROCE_P_PATH_ECN_REL,
	MROCE_P_PATH_DEAD_RTOS,
	MROCE_P_PATH_PROBE_INTERVAL_US,
	MROCE_P_PATH_EXPLORE_MS,
	MROCE_P_ACK_EVERY,
	MROCE_P_ACK_DELAY_US,
	MROCE_P_ACK_REORDER,
	MROCE_P_ACK_BATCH,
	MROCE_P_NUM
};

/*
 * One device's parameter set.  @lock serialises stores and the copy a QP
 * takes when it enters RTS, so that a QP never sees half of a change that
 * involves two values (e.g. cc_min_cwnd <= cc_init_cwnd).  Each value is
 * also written with WRITE_ONCE: dscp, trim_dscp and seq_err_interval_us
 * are read per packet with READ_ONCE, without the mutex.
 */
struct mroce_params {
	struct mutex lock;
	u32 v[MROCE_P_NUM];
};

extern const struct attribute_group mroce_dev_attr_group;

/* Initial values: the spec's defaults, then the module parameters. */
void mroce_params_init(struct mroce_params *p);
void mroce_params_destroy(struct mroce_params *p);
/* 0 if @v is in range and consistent, else -EINVAL. */
int mroce_params_check(const u32 *v);
/* Validate the whole set with @id set to @val and store it; 0 or -EINVAL. */
int mroce_param_set(struct mroce_params *p, enum mroce_param id, u32 val);
/*
 * The requester's parameters of a QP entering RTS, over the core's
 * defaults already in @tp, @cp and @pp.
 */
void mroce_params_req(struct mroce_params *p, struct mr_txsb_params *tp,
		      struct mr_cc_params *cp, struct mr_path_params *pp,
		      bool *path_health);

/*
 * The responder's ACK coalescing (MR-REL-3, MR-REL-13) for a QP entering
 * RTR: packets per ACK, the reordering a hole may see before it is
 * acknowledged at once, the delayed-ACK time, and whether the ACKs wait
 * for the end of the receive batch. May sleep.
 */
void mroce_params_resp(struct mroce_params *p, u16 *ack_every,
		       u16 *ack_reorder, u64 *delack_ns, bool *ack_batch);

static inline u32 mroce_param(const struct mroce_params *p,
			      enum mroce_param id)
{
	return READ_ONCE(p->v[id]);
}

#endif /* MROCE_PARAMS_H */
