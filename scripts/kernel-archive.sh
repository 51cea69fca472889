#!/bin/sh
# Kernel packages of the Debian archive, unpacked into a cache and never
# installed: sourced by scripts/check-kernels.sh (header trees to compile
# against) and tests/vm/e2e.sh (a stock kernel of another suite to boot).
#
#   resolve SUITE       the kernel version of SUITE's linux-headers-amd64
#                       (e.g. 6.12.95+deb12), cached for when the archive
#                       cannot be reached
#   fetch VERSION       its -amd64, -common and kbuild header packages in
#                       $MR_KHEADERS/VERSION/ (tree usr/src/linux-headers-
#                       VERSION-amd64, its Makefile pointed into the cache)
#   fetch_image VERSION linux-image-VERSION-amd64 in $MR_KHEADERS/VERSION/
#                       image/ (boot/vmlinuz-*, lib/modules/* depmod'ed)
#
# apt-get runs with a private sources list and state under
# $MR_KHEADERS/apt; apt_failed is set when the archive is unreachable.
MR_KHEADERS=${MR_KHEADERS:-/var/cache/metaroce/kheaders}
MIRROR=${MR_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# Private apt state: the system's sources and lists are left alone.
apt_opts() {
	a=$MR_KHEADERS/apt
	echo "-o Dir::Etc::SourceList=$a/sources.list -o Dir::Etc::SourceParts=/dev/null" \
		"-o Dir::State::Lists=$a/lists -o Dir::Cache=$a/cache" \
		"-o Dir::State::status=/dev/null -o APT::Architecture=amd64" \
		"-o APT::Sandbox::User=root"
}

apt_ready=
apt_failed=
apt_setup() {
	[ -n "$apt_ready" ] && return 0
	[ -n "$apt_failed" ] && return 1
	a=$MR_KHEADERS/apt
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
	: >"$a/sources.list"
	for s in bookworm-backports trixie trixie-backports sid; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $s main" \
			>>"$a/sources.list"
	done
	# shellcheck disable=SC2046
	if ! apt-get $(apt_opts) -q update >"$a/update.log" 2>&1 ||
		grep -q '^[WE]: Failed to fetch' "$a/update.log"; then
		apt_failed=1
		return 1
	fi
	apt_ready=1
}

# fetch VERSION: the -amd64, -common and linux-kbuild .debs of VERSION,
# unpacked into one root so their relative symlinks resolve; the
# absolute /usr/src paths of the -amd64 Makefile are pointed into it.
fetch() {
	v=$1
	root=$MR_KHEADERS/$v
	tree=$root/usr/src/linux-headers-$v-amd64
	[ -f "$tree/.mr-complete" ] && return 0
	apt_setup || return 1
	dl=$MR_KHEADERS/apt/debs-$v
	rm -rf "$dl" "$root" && mkdir -p "$dl" || return 1
	# shellcheck disable=SC2046
	(cd "$dl" && apt-get $(apt_opts) -q download "linux-headers-$v-amd64" \
		"linux-headers-$v-common" "linux-kbuild-$v") >"$dl.log" 2>&1 || return 1
	for d in "$dl"/*.deb; do
		dpkg -x "$d" "$root" || return 1
	done
	sed -i "s#/usr/src/#$root/usr/src/#g" "$tree/Makefile" || return 1
	ls "$dl"/*.deb | sed 's#.*/##' >"$root/MR-DEBS"
	rm -rf "$dl"
	touch "$tree/.mr-complete"
}

# resolve SUITE: the kernel version (e.g. 7.3.4+deb13) of the suite's
# linux-headers-amd64, remembered in $MR_KHEADERS/SUITE.version; the one
# remembered when the archive is unreachable.
resolve() {
	if apt_setup; then
		# shellcheck disable=SC2046
		apt-cache $(apt_opts) show "linux-headers-amd64/$1" 2>/dev/null |
			sed -n 's/^Depends:.*linux-headers-\([^ ,]*\)-amd64 (=.*/\1/p' |
			head -1 >"$MR_KHEADERS/$1.version.new"
		if [ -s "$MR_KHEADERS/$1.version.new" ]; then
			mv "$MR_KHEADERS/$1.version.new" "$MR_KHEADERS/$1.version"
		else
			rm -f "$MR_KHEADERS/$1.version.new"
			return 1
		fi
	fi
	cat "$MR_KHEADERS/$1.version" 2>/dev/null
}

fetch_image() {
	v=$1
	img=$MR_KHEADERS/$v/image
	[ -f "$img/.mr-complete" ] && return 0
	apt_setup || return 1
	dl=$MR_KHEADERS/apt/image-$v
	rm -rf "$dl" "$img" && mkdir -p "$dl" || return 1
	# shellcheck disable=SC2046
	(cd "$dl" && apt-get $(apt_opts) -q download "linux-image-$v-amd64") \
		>"$dl.log" 2>&1 || return 1
	dpkg -x "$dl"/*.deb "$img" || return 1
	# The package's postinst would run depmod; unpacked, it is ours.
	depmod -b "$img" "$v-amd64" || return 1
	ls "$dl"/*.deb | sed 's#.*/##' >"$img/MR-DEBS"
	rm -rf "$dl"
	touch "$img/.mr-complete"
}
