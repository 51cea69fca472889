# Guest side of the KUnit tier (tests/vm/kunit.sh pastes this into the
# suites' scenario): a watcher for a stalled KUnit case.
#
# KUnit runs each case in a kthread while the loading modprobe waits for
# it uninterruptibly, so when a case stalls the hung-task detector names
# only that modprobe and its wait, not what the case is stuck on. When no
# KUnit result line appears for LIMIT seconds, this prints the kernel
# stack of every task in uninterruptible sleep and of every KUnit case
# thread, once per stall, as "MR-KUNIT-STALL" lines on the console, which
# tests/vm/kunit.sh shows when the run fails. The lines carry no printk
# timestamp, so they do not count as a kernel report by themselves.

# mr_kunit_stall_dump SECONDS: one dump.
mr_kunit_stall_dump() {
	echo "MR-KUNIT-STALL no KUnit result for ${1}s; last one:" \
		"$(dmesg | grep -E '^\[ *[0-9.]+\] +(not )?ok [0-9]+ ' | tail -1)"
	# Shell builtins only for the scan: a fork costs tens of ms in a
	# TCG guest with KASAN, and the scan must end well within a stall.
	for d in /proc/[0-9]*; do
		read -r comm <"$d/comm" 2>/dev/null || continue
		read -r stat <"$d/stat" 2>/dev/null || continue
		# The state follows the last ")" of stat: comm may hold one.
		st=${stat##*) }
		st=${st%% *}
		case "$st:$comm" in
		D:* | *:kunit_try_catch*) ;;
		*) continue ;;
		esac
		echo "MR-KUNIT-STALL task ${d#/proc/} $comm state $st"
		sed 's/^/MR-KUNIT-STALL   /' "$d/stack" 2>/dev/null
	done
}

# mr_kunit_watch LIMIT: run in the background while the suites load.
mr_kunit_watch() {
	set +e
	last=-1
	quiet=0
	dumped=0
	while :; do
		sleep 5
		n=$(dmesg | grep -c -E '^\[ *[0-9.]+\] +(not )?ok [0-9]+ ')
		if [ "$n" != "$last" ]; then
			last=$n
			quiet=0
			dumped=0
			continue
		fi
		quiet=$((quiet + 5))
		if [ "$quiet" -ge "$1" ] && [ "$dumped" -eq 0 ]; then
			mr_kunit_stall_dump "$quiet"
			dumped=1
		fi
	done
}
