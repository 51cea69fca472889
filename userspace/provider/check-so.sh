#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Checks the built provider library's dynamic symbols: it must export
# nothing (libibverbs finds it through its constructor), need
# libibverbs.so.1, and import from libibverbs' private ABI only symbols
# that the installed libibverbs exports under IBVERBS_PRIVATE_34.
set -eu

so=${1:?usage: check-so.sh libmetaroce-rdmav34.so}
libibverbs=${LIBIBVERBS:-$(ldconfig -p | awk '/libibverbs\.so\.1 .*x86-64/ {print $NF; exit}')}
fail=0

defined=$(nm -D --defined-only "$so" | awk '{print $NF}')
if [ -n "$defined" ]; then
	echo "check-so: FAIL $so exports symbols:" $defined
	fail=1
fi

if ! objdump -p "$so" | grep -q 'NEEDED *libibverbs\.so\.1$'; then
	echo "check-so: FAIL $so does not need libibverbs.so.1"
	fail=1
fi

if [ -z "$libibverbs" ] || [ ! -e "$libibverbs" ]; then
	echo "check-so: FAIL libibverbs.so.1 not found"
	exit 1
fi
# objdump -T: "... <version> <name>"; an import shows its version in ().
have=$(objdump -T "$libibverbs" |
	awk 'NF > 2 && !/\*UND\*/ && $(NF-1) == "IBVERBS_PRIVATE_34" {print $NF}')
want=$(objdump -T "$so" |
	awk 'NF > 2 && /\*UND\*/ && /IBVERBS_PRIVATE/ {v = $(NF-1); gsub(/[()]/, "", v); print v, $NF}')
if [ -z "$want" ]; then
	echo "check-so: FAIL $so imports nothing from the private ABI (not a provider?)"
	fail=1
fi
echo "$want" | while read -r ver sym; do
	[ -n "$sym" ] || continue
	if [ "$ver" != IBVERBS_PRIVATE_34 ]; then
		echo "check-so: FAIL $sym@$ver: provider built for another private ABI"
		exit 1
	fi
	if ! printf '%s\n' $have | grep -qx "$sym"; then
		echo "check-so: FAIL $sym@$ver not exported by $libibverbs"
		exit 1
	fi
done || fail=1

[ "$fail" = 0 ] || exit 1
echo "check-so: $so exports nothing, imports $(echo "$want" | wc -l) IBVERBS_PRIVATE_34 symbols, all present in $libibverbs"
