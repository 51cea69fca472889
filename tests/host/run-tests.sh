#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Run cmocka test programs, count their test cases, print one summary line
# "host: N passed, N failed" last, exit non-zero on any failure (including
# a failed spec-ID check or a program that dies without cmocka's report).
# Usage: run-tests.sh PROGRAM...

here=$(cd "$(dirname "$0")" && pwd)
pass=0
fail=0
rc=0

if ! bash "$here/check-spec-ids.sh"; then
	rc=1
fi

# Plain cmocka output on stdout, sanitizers abort the program on error.
CMOCKA_MESSAGE_OUTPUT=STDOUT
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export CMOCKA_MESSAGE_OUTPUT ASAN_OPTIONS UBSAN_OPTIONS

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT INT TERM

for t in "$@"; do
	"$t" >"$tmp" 2>&1
	st=$?
	cat "$tmp"
	run=$(grep -c '^\[ RUN      \]' "$tmp")
	ok=$(grep -c '^\[       OK \]' "$tmp")
	skip=$(grep -c '^\[  SKIPPED \]' "$tmp")
	# A case that started but never reported OK/SKIPPED failed (this
	# also catches a sanitizer killing the program mid-case).
	f=$((run - ok - skip))
	if [ "$st" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "$(basename "$t"): exit status $st outside any test case"
		f=1
	fi
	pass=$((pass + ok))
	fail=$((fail + f))
done

[ "$fail" -ne 0 ] && rc=1
echo "host: $pass passed, $fail failed"
exit $rc
