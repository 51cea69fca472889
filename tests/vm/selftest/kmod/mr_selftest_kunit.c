// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test: a KUnit suite with one passing and one failing case.
 * tests/vm/kunit.sh loads it and expects its KTAP judge to report exactly
 * that failure; a harness that passed this module would be broken.
 */
#include <kunit/test.h>
#include <linux/module.h>

static void mr_selftest_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 2 + 2, 4);
}

static void mr_selftest_expected_failure(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, 1, 2, "this case fails on purpose");
}

static struct kunit_case mr_selftest_cases[] = {
	KUNIT_CASE(mr_selftest_passes),
	KUNIT_CASE(mr_selftest_expected_failure),
	{}
};

static struct kunit_suite mr_selftest_suite = {
	.name = "mr_harness_selftest",
	.test_cases = mr_selftest_cases,
};
kunit_test_suite(mr_selftest_suite);

MODULE_DESCRIPTION("MetaRoCE VM harness self-test: a failing KUnit case");
MODULE_LICENSE("GPL");
