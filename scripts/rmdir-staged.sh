#!/bin/sh
# rmdir-staged.sh DESTDIR DIR: remove $DESTDIR$DIR and its parents while
# they are empty, never DESTDIR itself or anything above it. For `make
# uninstall DESTDIR=...` only: in the live system the directories are
# shared (libibverbs, kernel modules, the base system) and are kept.
set -eu
stage=${1%/}
dir=$stage$2
[ -n "$stage" ] || exit 0
case $dir in "$stage"/*) ;; *) exit 0 ;; esac
while [ "$dir" != "$stage" ] && rmdir "$dir" 2>/dev/null; do
	dir=$(dirname "$dir")
done
