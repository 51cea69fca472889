# shellcheck shell=sh disable=SC2034,SC2154
# Shared by the bench report tests (fabric-report.sh, bench-report.sh):
# sourced after setting $name (the test's name in its messages). Sets $py
# (Debian's python3, which has matplotlib), $tmp (removed on exit) and the
# pass/fail counters that check() and finish() use.
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# check WHAT GOT WANT
check() {
	if [ "$2" = "$3" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "not ok - $name: $1: got '$2', want '$3'"
	fi
}

# finish: the summary line; status 1 when a check failed.
finish() {
	echo "$name: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
