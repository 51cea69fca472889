#!/bin/sh
# Print the kernel reports (BUG, WARNING, Oops, KASAN, UBSAN, lockdep,
# hung task, soft lockup, kmemleak, panic) found in a guest console log.
# Exit 0 when there are none. Only kernel lines count: they carry the
# printk timestamp "[    1.234567] ", which scenario output does not.
log=$1
grep -E '^\[ *[0-9]+\.[0-9]+\] (.*)?(BUG:|WARNING:|Oops|general protection fault|KASAN:|UBSAN:|kernel BUG at|Kernel panic|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked for more than|watchdog: BUG: soft lockup|Call Trace:|kmemleak: [0-9]+ new suspected memory leaks)' "$log" && exit 1
# kmemleak prints its findings through debugfs, not printk.
grep -E '^unreferenced object 0x' "$log" && exit 1
exit 0
