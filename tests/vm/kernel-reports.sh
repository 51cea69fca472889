#!/bin/sh
# Print the kernel reports (BUG, WARNING, Oops, KASAN, UBSAN, lockdep,
# hung task, soft lockup, kmemleak, panic) found in a guest console log.
# Exit 0 when there are none. Only kernel lines count: they carry the
# printk timestamp "[    1.234567] ", which scenario output does not.
#
# A user-space process's fault is not one: the kernel logs a process's
# non-canonical access as "traps: NAME[PID] general protection fault ip:..
# sp:.. error:.. in LIB[..]" (as it logs a plain one as "NAME[PID]:
# segfault at ..."), and the scenario judges its tools by their exit
# status. perftest 4.5's reconnect after a rejected -R connect does that
# in librdmacm (tests/e2e/lib/cm.sh retries it). A kernel GPF reads
# "general protection fault, probably for non-canonical address ...".
log=$1
grep -E '^\[ *[0-9]+\.[0-9]+\] (.*)?(BUG:|WARNING:|Oops|general protection fault|KASAN:|UBSAN:|kernel BUG at|Kernel panic|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked for more than|watchdog: BUG: soft lockup|Call Trace:|kmemleak: [0-9]+ new suspected memory leaks)' "$log" |
	grep -vE '^\[ *[0-9]+\.[0-9]+\] traps: [^ ]+\[[0-9]+\] general protection fault ip:[0-9a-f]+ sp:[0-9a-f]+ error:[0-9a-f]+( in [^ ]+)?$' &&
	exit 1
# kmemleak prints its findings through debugfs, not printk.
grep -E '^unreferenced object 0x' "$log" && exit 1
exit 0
