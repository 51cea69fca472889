// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test: a KUnit suite with one passing and one failing case.
 * tests/vm/kunit.sh loads it and expects its KTAP judge to report exactly
 * that failure; a harness that passed this module would be broken.
 * A third case passes after sleeping 25 s, for the stalled-case watcher
 * (tests/vm/guest/kunit-watch.sh) to report. Not a module parameter: in
 * 6.1 KUnit runs a module's suites before its parameters are parsed.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>

static void mr_selftest_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 2 + 2, 4);
}

static void mr_selftest_expected_failure(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, 1, 2, "this case fails on purpose");
}

static void mr_selftest_stalls(struct kunit *test)
{
	/* Uninterruptible, as a case stuck in the kernel would be. */
	msleep(25000);
	KUNIT_EXPECT_TRUE(test, true);
}

static struct kunit_case mr_selftest_cases[] = {
	KUNIT_CASE(mr_selftest_passes),
	KUNIT_CASE(mr_selftest_expected_failure),
	KUNIT_CASE(mr_selftest_stalls),
	{}
};

static struct kunit_suite mr_selftest_suite = {
	.name = "mr_harness_selftest",
	.test_cases = mr_selftest_cases,
};
kunit_test_suite(mr_selftest_suite);

MODULE_DESCRIPTION("MetaRoCE VM harness self-test: a failing KUnit case");
MODULE_LICENSE("GPL");
