// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE KUnit suite metaroce_params: the per-device parameter set
 * (params.c): the spec's defaults, what a store refuses, and what a QP
 * entering RTS takes from the set.  The device attributes call the same
 * mroce_param_set(); the e2e scenario metaroce-params writes the files.
 */

#include "kunit_fixture.h"

static struct mroce_params *mrt_p_new(struct kunit *test)
{
	struct mroce_params *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	mroce_params_init(p);
	return p;
}

/*
 * MR-CC-18: a new device starts with the spec's software profile,
 * in the attributes' units (us; packets and fractions in 1/65536).  The
 * module is loaded without parameters in this tier.
 */
static void mrt_p_defaults(struct kunit *test)
{
	static const struct { enum mroce_param id; u32 v; } want[] = {
		{ MROCE_P_PATHS, 16 },
		{ MROCE_P_PATH_HEALTH, 1 },	/* MR-MP-8..12 */
		/* Revision 1.1 connection setup on, Full (MR-VER-17). */
		{ MROCE_P_HELLO, 1 },
		{ MROCE_P_HELLO_CAPS, MR_CAP_IMPL },
		{ MROCE_P_CC_DELAY, 0 },
		{ MROCE_P_CC_FIXED, 0 },
		{ MROCE_P_DSCP, 26 },
		{ MROCE_P_TRIM_DSCP, 6 },	/* MR-TRIM-2 */
		{ MROCE_P_SEQ_ERR_US, 100 },
		{ MROCE_P_CC_G_SHIFT, 4 },		/* g = 1/16 */
		{ MROCE_P_CC_INIT_CWND, 32 << 16 },
		{ MROCE_P_CC_MIN_CWND, 65536 / 64 },
		{ MROCE_P_CC_MAX_CWND, 256 << 16 },
		{ MROCE_P_CC_AI, 65536 },
		{ MROCE_P_CC_BETA, 65536 * 4 / 5 },
		{ MROCE_P_CC_MAX_MDF, 65536 / 2 },
		{ MROCE_P_CC_LOSS_MDF, 65536 / 2 },
		{ MROCE_P_CC_LOSS_RAND_MDF, 65536 / 16 },
		{ MROCE_P_CC_LOSS_BURST, 65536 / 4 },
		{ MROCE_P_CC_TRIM_MDF, 65536 / 2 },
		{ MROCE_P_CC_TARGET_FIXED_US, 10 },
		{ MROCE_P_CC_TARGET_PER_HOP_US, 1 },
		{ MROCE_P_CC_HOPS, 5 },
		{ MROCE_P_CC_TARGET_BASE, 65536 },
		{ MROCE_P_CC_FS_RANGE_US, 10 },
		{ MROCE_P_CC_FS_MIN_CWND, 65536 / 10 },
		{ MROCE_P_CC_FS_MAX_CWND, 100 << 16 },
		{ MROCE_P_CC_PACING_GAIN, 65536 * 5 / 4 },
		{ MROCE_P_CC_PACING_SLACK_US, 500 },
		{ MROCE_P_CC_FIXED_CWND, 256 << 16 },
		{ MROCE_P_INIT_RTO_US, 10000 },
		{ MROCE_P_MIN_RTO_US, 5000 },
		{ MROCE_P_MAX_RTO_US, 1000000 },
		{ MROCE_P_REO_WND_MIN_US, 50 },
		{ MROCE_P_PATH_REROLL_ROUNDS, 3 },
		{ MROCE_P_PATH_ECN_THRESH, 65536 / 2 },
		/* MR-MP-27 */
		{ MROCE_P_PATH_ECN_REL, 65536 / 8 },
		{ MROCE_P_PATH_DEAD_RTOS, 3 },
		{ MROCE_P_PATH_PROBE_INTERVAL_US, 500 },
		/* MR-MP-32 */
		{ MROCE_P_PATH_EXPLORE_MS, 50 },
		/* MR-REL-3, MR-REL-13: the software device profile. */
		{ MROCE_P_ACK_EVERY, 4 },
		{ MROCE_P_ACK_DELAY_US, 500 },
		{ MROCE_P_ACK_REORDER, 3 },
		{ MROCE_P_ACK_BATCH, 1 },
	};
	struct mroce_params *p = mrt_p_new(test);
	int i;

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(want), (size_t)MROCE_P_NUM);
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, mroce_param(p, want[i].id), want[i].v,
				    "parameter %d", want[i].id);
	KUNIT_EXPECT_EQ(test, mroce_params_check(p->v), 0);
	mroce_params_destroy(p);
}

/* Set @id to @val: @err expected; on a refusal the value is unchanged. */
static void mrt_p_try(struct kunit *test, struct mroce_params *p,
		      enum mroce_param id, u32 val, int err)
{
	u32 old = mroce_param(p, id);

	KUNIT_EXPECT_EQ_MSG(test, mroce_param_set(p, id, val), err,
			    "parameter %d = %u", id, val);
	KUNIT_EXPECT_EQ(test, mroce_param(p, id), err ? old : val);
}

/* MR-CC-18, MR-MP-1: stores out of range or inconsistent are refused. */
static void mrt_p_refused(struct kunit *test)
{
	struct mroce_params *p = mrt_p_new(test);

	mrt_p_try(test, p, MROCE_P_PATHS, 0, -EINVAL);
	mrt_p_try(test, p, MROCE_P_PATHS, 65, -EINVAL);
	mrt_p_try(test, p, MROCE_P_PATHS, 64, 0);
	mrt_p_try(test, p, MROCE_P_PATHS, 1, 0);
	mrt_p_try(test, p, MROCE_P_DSCP, 64, -EINVAL);
	mrt_p_try(test, p, MROCE_P_DSCP, 63, 0);
	/* MR-TRIM-2: a codepoint, or 64 for none */
	mrt_p_try(test, p, MROCE_P_TRIM_DSCP, 65, -EINVAL);
	mrt_p_try(test, p, MROCE_P_TRIM_DSCP, 64, 0);
	mrt_p_try(test, p, MROCE_P_TRIM_DSCP, 0, 0);
	mrt_p_try(test, p, MROCE_P_CC_FIXED, 2, -EINVAL);
	mrt_p_try(test, p, MROCE_P_PATH_HEALTH, 2, -EINVAL);
	mrt_p_try(test, p, MROCE_P_PATH_HEALTH, 0, 0);
	/* MR-SEC-8: the rate limit cannot be switched off. */
	mrt_p_try(test, p, MROCE_P_SEQ_ERR_US, 0, -EINVAL);
	mrt_p_try(test, p, MROCE_P_CC_G_SHIFT, 0, -EINVAL);
	mrt_p_try(test, p, MROCE_P_CC_G_SHIFT, 17, -EINVAL);
	mrt_p_try(test, p, MROCE_P_CC_BETA, 65537, -EINVAL);
	mrt_p_try(test, p, MROCE_P_CC_TARGET_BASE, (16 << 16) + 1, -EINVAL);
	mrt_p_try(test, p, MROCE_P_CC_TARGET_BASE, 16 << 16, 0);
	mrt_p_try(test, p, MROCE_P_CC_TARGET_BASE, 0, 0);
	mrt_p_try(test, p, MROCE_P_CC_FIXED_CWND, 65535, -EINVAL);
	/* The window above the scoreboard's 256 packets (MR-WIN-1). */
	mrt_p_try(test, p, MROCE_P_CC_MAX_CWND, (256 << 16) + 1, -EINVAL);

	/* min_cwnd <= init_cwnd <= max_cwnd, whichever moves. */
	mrt_p_try(test, p, MROCE_P_CC_MAX_CWND, 16 << 16, -EINVAL);
	mrt_p_try(test, p, MROCE_P_CC_INIT_CWND, 8 << 16, 0);
	mrt_p_try(test, p, MROCE_P_CC_MAX_CWND, 16 << 16, 0);
	mrt_p_try(test, p, MROCE_P_CC_INIT_CWND, 17 << 16, -EINVAL);
	mrt_p_try(test, p, MROCE_P_CC_MIN_CWND, 9 << 16, -EINVAL);
	mrt_p_try(test, p, MROCE_P_CC_MIN_CWND, 8 << 16, 0);

	/* Flow scaling's bounds, only while it is on. */
	mrt_p_try(test, p, MROCE_P_CC_FS_MIN_CWND, 100 << 16, -EINVAL);
	mrt_p_try(test, p, MROCE_P_CC_FS_RANGE_US, 0, 0);
	mrt_p_try(test, p, MROCE_P_CC_FS_MIN_CWND, 100 << 16, 0);
	mrt_p_try(test, p, MROCE_P_CC_FS_RANGE_US, 10, -EINVAL);

	mrt_p_try(test, p, MROCE_P_MIN_RTO_US, 1000001, -EINVAL);
	mrt_p_try(test, p, MROCE_P_MAX_RTO_US, 4999, -EINVAL);
	mrt_p_try(test, p, MROCE_P_MAX_RTO_US, 5000, 0);
	mrt_p_try(test, p, MROCE_P_INIT_RTO_US, 0, -EINVAL);
	mrt_p_try(test, p, MROCE_P_PATH_DEAD_RTOS, 0, -EINVAL);
	mrt_p_try(test, p, MROCE_P_PATH_REROLL_ROUNDS, 256, -EINVAL);
	/* MR-MP-32: off, or at least 10 ms */
	mrt_p_try(test, p, MROCE_P_PATH_EXPLORE_MS, 9, -EINVAL);
	mrt_p_try(test, p, MROCE_P_PATH_EXPLORE_MS, 60001, -EINVAL);
	mrt_p_try(test, p, MROCE_P_PATH_EXPLORE_MS, 10, 0);
	mrt_p_try(test, p, MROCE_P_PATH_EXPLORE_MS, 0, 0);

	/* MR-REL-3: 1 to 8 packets per ACK. */
	mrt_p_try(test, p, MROCE_P_ACK_EVERY, 0, -EINVAL);
	mrt_p_try(test, p, MROCE_P_ACK_EVERY, 9, -EINVAL);
	mrt_p_try(test, p, MROCE_P_ACK_EVERY, 8, 0);
	mrt_p_try(test, p, MROCE_P_ACK_EVERY, 1, 0);
	/* MR-REL-3 c: 1 to 8 PSNs of reordering. */
	mrt_p_try(test, p, MROCE_P_ACK_REORDER, 0, -EINVAL);
	mrt_p_try(test, p, MROCE_P_ACK_REORDER, 9, -EINVAL);
	mrt_p_try(test, p, MROCE_P_ACK_REORDER, 8, 0);
	mrt_p_try(test, p, MROCE_P_ACK_REORDER, 1, 0);
	/* MR-REL-3's batch rule: on or off. */
	mrt_p_try(test, p, MROCE_P_ACK_BATCH, 2, -EINVAL);
	mrt_p_try(test, p, MROCE_P_ACK_BATCH, 1, 0);
	mrt_p_try(test, p, MROCE_P_ACK_BATCH, 0, 0);
	/* MR-REL-13: ack_delay <= min_rto / 4 (5000 us), whichever moves. */
	mrt_p_try(test, p, MROCE_P_ACK_DELAY_US, 0, -EINVAL);
	mrt_p_try(test, p, MROCE_P_ACK_DELAY_US, 1251, -EINVAL);
	mrt_p_try(test, p, MROCE_P_ACK_DELAY_US, 1250, 0);
	mrt_p_try(test, p, MROCE_P_MIN_RTO_US, 4999, -EINVAL);
	mrt_p_try(test, p, MROCE_P_ACK_DELAY_US, 25, 0);
	mrt_p_try(test, p, MROCE_P_MIN_RTO_US, 100, 0);
	mrt_p_try(test, p, MROCE_P_MIN_RTO_US, 99, -EINVAL);
	KUNIT_EXPECT_EQ(test, mroce_params_check(p->v), 0);
	mroce_params_destroy(p);
}

/* What a QP entering RTS takes from the set (MR-CC-17, MR-MP-13). */
static void mrt_p_req(struct kunit *test)
{
	struct mroce_params *p = mrt_p_new(test);
	struct mr_txsb_params tp = {};
	struct mr_path_params pp = {};
	struct mr_cc_params cp = {};
	bool health = true;

	/* Defaults: no delay signal, so a window floor of one packet. */
	cp.use_delay = true;
	cp.mode = MR_CC_DCTCP_SWIFT;
	pp.n_paths = 1;
	mroce_params_req(p, &tp, &cp, &pp, &health);
	KUNIT_EXPECT_FALSE(test, cp.use_delay);
	KUNIT_EXPECT_EQ(test, cp.mode, (u8)MR_CC_DCTCP_SWIFT);
	KUNIT_EXPECT_EQ(test, cp.min_cwnd, MR_CC_ONE);
	KUNIT_EXPECT_EQ(test, cp.init_cwnd, MR_CC_PKTS(32));
	KUNIT_EXPECT_EQ(test, cp.target_fixed_ns, 10000U);
	KUNIT_EXPECT_EQ(test, cp.target_base, MR_CC_ONE);
	KUNIT_EXPECT_EQ(test, cp.pacing_slack_ns, 500000U);
	KUNIT_EXPECT_EQ(test, tp.init_rto_ns, 10000000ULL);
	KUNIT_EXPECT_EQ(test, tp.max_rto_ns, 1000000000ULL);
	KUNIT_EXPECT_EQ(test, pp.n_paths, 16);
	KUNIT_EXPECT_FALSE(test, pp.single);
	KUNIT_EXPECT_EQ(test, pp.probe_interval_ns, 500000ULL);
	KUNIT_EXPECT_EQ(test, pp.explore_ns, 50000000ULL);
	KUNIT_EXPECT_TRUE(test, health);

	KUNIT_ASSERT_EQ(test, mroce_param_set(p, MROCE_P_CC_DELAY, 1), 0);
	KUNIT_ASSERT_EQ(test, mroce_param_set(p, MROCE_P_CC_MIN_CWND, 100), 0);
	KUNIT_ASSERT_EQ(test, mroce_param_set(p, MROCE_P_PATHS, 1), 0);
	KUNIT_ASSERT_EQ(test, mroce_param_set(p, MROCE_P_PATH_HEALTH, 0), 0);
	KUNIT_ASSERT_EQ(test, mroce_param_set(p, MROCE_P_INIT_RTO_US, 20000),
			0);
	cp.use_delay = true;
	mroce_params_req(p, &tp, &cp, &pp, &health);
	KUNIT_EXPECT_TRUE(test, cp.use_delay);
	KUNIT_EXPECT_EQ(test, cp.min_cwnd, 100U);
	KUNIT_EXPECT_TRUE(test, pp.single);
	KUNIT_EXPECT_FALSE(test, health);
	KUNIT_EXPECT_EQ(test, tp.init_rto_ns, 20000000ULL);

	KUNIT_ASSERT_EQ(test, mroce_param_set(p, MROCE_P_CC_FIXED, 1), 0);
	KUNIT_ASSERT_EQ(test, mroce_param_set(p, MROCE_P_CC_FIXED_CWND,
					      100 << 16), 0);
	mroce_params_req(p, &tp, &cp, &pp, &health);
	KUNIT_EXPECT_EQ(test, cp.mode, (u8)MR_CC_FIXED);
	KUNIT_EXPECT_EQ(test, cp.fixed_cwnd, MR_CC_PKTS(100));
	mroce_params_destroy(p);
}

/* What a QP entering RTR takes for its ACK coalescing (MR-REL-3, -13). */
static void mrt_p_resp(struct kunit *test)
{
	struct mroce_params *p = mrt_p_new(test);
	u16 every, reorder;
	bool batch;
	u64 delack_ns;

	mroce_params_resp(p, &every, &reorder, &delack_ns, &batch);
	KUNIT_EXPECT_TRUE(test, batch);
	KUNIT_EXPECT_EQ(test, every, (u16)MR_RXWIN_ACK_EVERY);
	KUNIT_EXPECT_EQ(test, reorder, (u16)MR_RXWIN_ACK_REORDER);
	KUNIT_EXPECT_EQ(test, delack_ns, MR_RXWIN_DELACK_NS);
	KUNIT_ASSERT_EQ(test, mroce_param_set(p, MROCE_P_ACK_EVERY, 3), 0);
	KUNIT_ASSERT_EQ(test, mroce_param_set(p, MROCE_P_ACK_REORDER, 1), 0);
	KUNIT_ASSERT_EQ(test, mroce_param_set(p, MROCE_P_ACK_DELAY_US, 25), 0);
	KUNIT_ASSERT_EQ(test, mroce_param_set(p, MROCE_P_ACK_BATCH, 0), 0);
	mroce_params_resp(p, &every, &reorder, &delack_ns, &batch);
	KUNIT_EXPECT_FALSE(test, batch);
	KUNIT_EXPECT_EQ(test, every, 3);
	KUNIT_EXPECT_EQ(test, reorder, 1);
	KUNIT_EXPECT_EQ(test, delack_ns, 25000ULL);
	mroce_params_destroy(p);
}

static struct kunit_case mrt_params_cases[] = {
	KUNIT_CASE(mrt_p_defaults),
	KUNIT_CASE(mrt_p_refused),
	KUNIT_CASE(mrt_p_req),
	KUNIT_CASE(mrt_p_resp),
	{}
};

static struct kunit_suite mrt_params_suite = {
	.name = "metaroce_params",
	.test_cases = mrt_params_cases,
};

kunit_test_suite(mrt_params_suite);
