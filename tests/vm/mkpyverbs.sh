#!/bin/sh
# Build the initramfs layer that scenarios with "# needs: pyverbs" get on
# top of the base one: Debian's Python 3.11 (interpreter and standard
# library, without its own test suite and GUI modules), python3-pyverbs,
# and rdma-core's provider test suite (/usr/share/doc/rdma-core/tests,
# unpacked: Debian gzips some of its files) at /mr/pyverbs/tests.
#
#   mkpyverbs.sh OUT.cpio.gz
#
# Everything comes from the host's installed packages (python3.11,
# python3-pyverbs: scripts/install-deps.sh). The guest's kernel unpacks
# the layers in order, so this one adds files to the base image and
# replaces none of them: libraries the base already has are identical
# host copies.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/common.sh"

[ $# -eq 1 ] || die "usage: mkpyverbs.sh OUT.cpio.gz"
out=$1

py=/usr/bin/python3.11
pylib=/usr/lib/python3.11
pyverbs=/usr/lib/python3/dist-packages/pyverbs
suite=/usr/share/doc/rdma-core/tests
for f in "$py" "$pylib/os.py" "$pyverbs/__init__.py" "$suite/run_tests.py"; do
	[ -e "$f" ] || die "missing $f (run scripts/install-deps.sh)"
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT INT TERM
chmod 755 "$stage"

mkdir -p "$stage/usr/bin" "$stage/usr/lib/python3/dist-packages" \
	"$stage/mr/pyverbs"
cp "$py" "$stage/usr/bin/python3.11"
ln -s python3.11 "$stage/usr/bin/python3"
# The standard library without what no test imports: its own tests, IDLE,
# Tk, lib2to3, ensurepip, the static library and build configuration,
# other packages' modules (dist-packages) and the pip-blocking marker.
(cd /usr/lib && tar -cf - \
	--exclude=python3.11/test --exclude=python3.11/idlelib \
	--exclude=python3.11/tkinter --exclude='python3.11/lib-dynload/_tkinter*' \
	--exclude=python3.11/lib2to3 --exclude=python3.11/ensurepip \
	--exclude=python3.11/turtledemo --exclude=python3.11/pydoc_data \
	--exclude='python3.11/config-3.11*' --exclude=python3.11/dist-packages \
	--exclude=python3.11/EXTERNALLY-MANAGED python3.11) |
	(cd "$stage/usr/lib" && tar -xf -)
cp -a "$pyverbs" "$stage/usr/lib/python3/dist-packages/"
cp -a "$suite" "$stage/mr/pyverbs/tests"
find "$stage/mr/pyverbs/tests" -name '*.gz' -exec gunzip {} +
# The comparison of two runs and the skips provider.rst justifies.
cp "$top/tests/e2e/lib/pyverbs-compare.py" "$stage/mr/pyverbs/compare.py"
cp "$top/Documentation/metaroce/provider.rst" "$stage/mr/pyverbs/provider.rst"

# Shared libraries of the interpreter and of every extension module.
libs=$(for f in "$stage/usr/bin/python3.11" $(find "$stage/usr/lib" -name '*.so'); do
	ldd "$f" 2>/dev/null | awk '/=> \//{print $3} /^\t\/lib/{print $1}'
done | sort -u)
for l in $libs; do
	case "$l" in "$stage"*) continue ;; esac
	mkdir -p "$stage$(dirname "$l")"
	cp -L "$l" "$stage$l"
done

(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
