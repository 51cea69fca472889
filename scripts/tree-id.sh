#!/bin/sh
# Print an identifier of the working tree as a fresh clone of its next
# commit would hold it: the contents of every file git tracks or would
# track (not ignored), by path. scripts/check-packages.sh records it with
# the packages it keeps (MR_PKG_KEEP), and tests/vm/e2e.sh takes those
# packages only for the same tree.
set -eu
cd "$(dirname "$0")/.."
git ls-files -z --cached --others --exclude-standard |
	xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh |
	xargs -0 sha1sum | sha1sum | cut -d' ' -f1
