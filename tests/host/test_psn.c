// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Host tests: 24-bit PSN serial arithmetic (MR-WIN-1). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "psn.h"

static void test_add_sub_wrap(void **state)
{
	(void)state;
	assert_int_equal(mr_psn_add(0xfffffe, 1), 0xffffff);
	assert_int_equal(mr_psn_add(0xffffff, 1), 0);
	assert_int_equal(mr_psn_add(0xffffff, 0x1000001), 0);
	assert_int_equal(mr_psn_add(0xfffff0, 0x20), 0x10);
	assert_int_equal(mr_psn_sub(0, 1), 0xffffff);
	assert_int_equal(mr_psn_sub(0x10, 0x20), 0xfffff0);
	assert_int_equal(mr_psn_sub(5, 5), 0);
	/* Garbage in the top byte never leaks out. */
	assert_int_equal(mr_psn_add(0xff000001, 1), 2);
}

static void test_diff_signed(void **state)
{
	(void)state;
	assert_int_equal(mr_psn_diff(0, 0xffffff), 1);
	assert_int_equal(mr_psn_diff(0xffffff, 0), -1);
	assert_int_equal(mr_psn_diff(0x10, 0xfffff0), 0x20);
	assert_int_equal(mr_psn_diff(0xfffff0, 0x10), -0x20);
	assert_int_equal(mr_psn_diff(0x7fffff, 0), 0x7fffff);
	/* Exactly half the space apart: defined as "before". */
	assert_int_equal(mr_psn_diff(0x800000, 0), -0x800000);
	assert_int_equal(mr_psn_diff(0, 0x800000), -0x800000);
	assert_int_equal(mr_psn_diff(0x800001, 0), -0x7fffff);
	assert_int_equal(mr_psn_dist(0, 0xffffff), 1);
	assert_int_equal(mr_psn_dist(0xffffff, 0), 0xffffff);
}

static void test_before_after(void **state)
{
	(void)state;
	assert_true(mr_psn_before(0xffffff, 0));
	assert_true(mr_psn_after(0, 0xffffff));
	assert_false(mr_psn_before(0, 0xffffff));
	assert_false(mr_psn_after(5, 5));
	assert_false(mr_psn_before(5, 5));
	assert_true(mr_psn_before_eq(5, 5));
	assert_true(mr_psn_after_eq(5, 5));
	assert_true(mr_psn_after_eq(0x000100, 0xffff00));
	assert_false(mr_psn_before_eq(0x000100, 0xffff00));
	/* Antisymmetry across the whole space edge. */
	for (uint32_t d = 1; d < 0x800000; d = d * 3 + 1) {
		uint32_t a = 0xfffff0, b = mr_psn_add(a, d);

		assert_true(mr_psn_after(b, a));
		assert_true(mr_psn_before(a, b));
		assert_int_equal(mr_psn_diff(b, a), (int32_t)d);
		assert_int_equal(mr_psn_diff(a, b), -(int32_t)d);
	}
}

static void test_in_window(void **state)
{
	(void)state;
	assert_true(mr_psn_in_window(0xffff00, 0xffff00, 256));
	assert_true(mr_psn_in_window(0xffffff, 0xffff80, 256));
	assert_true(mr_psn_in_window(0x7f, 0xffff80, 256));
	assert_false(mr_psn_in_window(0x80, 0xffff80, 256));
	assert_false(mr_psn_in_window(0xffff7f, 0xffff80, 256));
	assert_false(mr_psn_in_window(5, 5, 0));
	assert_true(mr_psn_in_window(4, 5, 1 << 24));
	assert_true(mr_psn_valid(0xffffff));
	assert_false(mr_psn_valid(0x1000000));
}

static void test_seq32(void **state)
{
	(void)state;
	assert_int_equal(mr_seq32_diff(0, 0xffffffffU), 1);
	assert_int_equal(mr_seq32_diff(0xffffffffU, 0), -1);
	assert_int_equal(mr_seq32_diff(0x80000000U, 0), INT32_MIN);
	assert_int_equal(mr_seq32_diff(0x7fffffffU, 0), INT32_MAX);
	assert_int_equal(mr_seq32_diff(3, 10), -7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_sub_wrap),
		cmocka_unit_test(test_diff_signed),
		cmocka_unit_test(test_before_after),
		cmocka_unit_test(test_in_window),
		cmocka_unit_test(test_seq32),
	};

	return cmocka_run_group_tests_name("psn", tests, NULL, NULL);
}
