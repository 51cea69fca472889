#!/bin/sh
# Quality gates for kernel code: the module builds warning-free with W=1,
# sparse (C=2: every file) reports nothing, and checkpatch from
# linux-source-6.1 is clean on kernel/. Prints "gates: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
KDIR=${KDIR:-$(ls -d /usr/src/linux-headers-*[0-9]-amd64 2>/dev/null | sort -V | tail -1)}
KSRC=${KSRC:-/usr/src/linux-source-6.1}
RESULTS=${RESULTS:-$top/results}
mkdir -p "$RESULTS"
pass=0
fail=0

gate() {
	name=$1
	log=$2
	ok=$3
	if [ "$ok" -eq 0 ]; then
		echo "ok - $name"
		pass=$((pass + 1))
	else
		echo "not ok - $name (log: $log)"
		grep -iE '(warning|error)' "$log" | grep -v 'total: 0 errors, 0 warnings' |
			head -20 | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}

# Warnings and errors from the compiler or sparse, whatever their file.
diagnostics() {
	grep -E '(warning|error):' "$1"
}

log=$RESULTS/gate-w1.log
make -s -C "$KDIR" M="$top" clean >/dev/null 2>&1
make -C "$KDIR" M="$top" W=1 modules >"$log" 2>&1
st=$?
[ $st -eq 0 ] && ! diagnostics "$log" >/dev/null
gate "module builds warning-free with W=1" "$log" $?

log=$RESULTS/gate-sparse.log
if command -v sparse >/dev/null; then
	make -C "$KDIR" M="$top" C=2 modules >"$log" 2>&1
	st=$?
	[ $st -eq 0 ] && ! diagnostics "$log" >/dev/null
	gate "sparse (C=2) clean" "$log" $?
else
	echo "sparse: not installed" >"$log"
	gate "sparse (C=2) clean" "$log" 1
fi

log=$RESULTS/gate-checkpatch.log
files=$(find kernel -name '*.[ch]' ! -name '*.mod.c' ! -path kernel/kcompat.h | sort)
if [ -x "$KSRC/scripts/checkpatch.pl" ] && [ -n "$files" ]; then
	# shellcheck disable=SC2086
	"$KSRC/scripts/checkpatch.pl" --no-tree --quiet --terse --show-types \
		-f $files >"$log" 2>&1
	st=$?
	# The compat header is the one file that tests the kernel version
	# (checkpatch's rule is for in-tree code); every other rule holds.
	"$KSRC/scripts/checkpatch.pl" --no-tree --quiet --terse --show-types \
		--ignore LINUX_VERSION_CODE -f kernel/kcompat.h >>"$log" 2>&1 || st=1
	gate "checkpatch --no-tree clean on kernel/" "$log" $st
else
	echo "checkpatch: $KSRC/scripts/checkpatch.pl missing or no files" >"$log"
	gate "checkpatch --no-tree clean on kernel/" "$log" 1
fi

echo "gates: $pass passed, $fail failed"
[ $fail -eq 0 ]
