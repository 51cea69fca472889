#!/bin/sh
# `make install` and `make uninstall` as a packager runs them (README.md,
# "Install"): on a copy of the tree (as a fresh clone of the next commit
# holds it), `make install DESTDIR=STAGE PREFIX=/usr` must put the module,
# the provider, its .driver file and the tools under STAGE and write
# nothing outside it (the live module, provider and config directories
# and /usr/local are compared before and after), and `make uninstall` with
# the same variables must leave STAGE empty. Prints one "ok"/"not ok" line
# per check and "install: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
RESULTS=${RESULTS:-$top/results}
pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1"; fail=$((fail + 1)); }
finish() {
	[ $((pass + fail)) -gt 0 ] || notok "nothing checked"
	echo "install: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

mkdir -p "$RESULTS"
log=$RESULTS/install.log
w=$(mktemp -d /tmp/mr-install.XXXXXX) || { notok "no temporary directory"; finish; }
trap 'rm -rf "$w"' EXIT
trap 'exit 1' INT TERM
mkdir -p "$w/src"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	tar --null -T - -cf -) | tar -C "$w/src" -xf - || {
	notok "copying the tree to $w"
	finish
}

# What the live system holds where an install without DESTDIR would write.
live="/lib/modules /usr/lib/x86_64-linux-gnu/libibverbs /etc/libibverbs.d
	/usr/local /usr/bin /usr/share/man"
snap() {
	for d in $live; do
		[ -d "$d" ] && find "$d" -xdev \( -type f -o -type l \) -printf '%p %s %T@\n'
	done 2>/dev/null | sort
}
snap >"$w/before"

stage=$w/stage
if make -C "$w/src" install DESTDIR="$stage" PREFIX=/usr >"$log" 2>&1; then
	ok "make install DESTDIR=stage PREFIX=/usr"
else
	notok "make install DESTDIR=stage PREFIX=/usr (log: $log)"
	tail -5 "$log" | sed 's/^/    /'
	finish
fi
missing=
for f in "lib/modules/*/*/metaroce.ko" \
	"usr/lib/*/libibverbs/libmetaroce-rdmav34.so" \
	"etc/libibverbs.d/metaroce.driver" "usr/bin/mr-verify"; do
	# shellcheck disable=SC2086
	[ -n "$(cd "$stage" && ls -d $f 2>/dev/null)" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "the module, provider, .driver file and mr-verify are in the stage" ||
	notok "missing from the stage:$missing"
snap >"$w/after"
if cmp -s "$w/before" "$w/after"; then
	ok "nothing written outside the stage"
else
	notok "written outside the stage: $(diff "$w/before" "$w/after" | grep '^[<>]' | head -3 | tr '\n' ';')"
fi
if make -C "$w/src" uninstall DESTDIR="$stage" PREFIX=/usr >>"$log" 2>&1; then
	left=$(find "$stage" -mindepth 1 2>/dev/null | head -5)
	[ -z "$left" ] && ok "make uninstall removes all that install put" ||
		notok "make uninstall left: $(echo "$left" | tr '\n' ' ')"
else
	notok "make uninstall DESTDIR=stage (log: $log)"
fi
finish
