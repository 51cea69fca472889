// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test: a module whose init triggers a kernel WARNING. The
 * scenario that loads it succeeds; the harness must still fail the run
 * because the guest log carries the report.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int mr_selftest_should_warn = 1;
module_param_named(warn, mr_selftest_should_warn, int, 0444);

static int __init mr_selftest_warn_init(void)
{
	WARN_ON(mr_selftest_should_warn);
	return 0;
}

static void __exit mr_selftest_warn_exit(void)
{
}

module_init(mr_selftest_warn_init);
module_exit(mr_selftest_warn_exit);

MODULE_DESCRIPTION("MetaRoCE VM harness self-test: a guest WARN_ON");
MODULE_LICENSE("GPL");
