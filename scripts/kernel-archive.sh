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
# The functions' own variables are ka_*: the callers' are left alone.
MR_KHEADERS=${MR_KHEADERS:-/var/cache/metaroce/kheaders}
MIRROR=${MR_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# Private apt state: the system's sources and lists are left alone.
apt_opts() {
	ka_a=$MR_KHEADERS/apt
	echo "-o Dir::Etc::SourceList=$ka_a/sources.list -o Dir::Etc::SourceParts=/dev/null" \
		"-o Dir::State::Lists=$ka_a/lists -o Dir::Cache=$ka_a/cache" \
		"-o Dir::State::status=/dev/null -o APT::Architecture=amd64" \
		"-o APT::Sandbox::User=root"
}

apt_ready=
apt_failed=
apt_setup() {
	[ -n "$apt_ready" ] && return 0
	[ -n "$apt_failed" ] && return 1
	ka_a=$MR_KHEADERS/apt
	mkdir -p "$ka_a/lists/partial" "$ka_a/cache/archives/partial"
	: >"$ka_a/sources.list"
	for ka_s in bookworm-backports trixie trixie-backports sid; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $ka_s main" \
			>>"$ka_a/sources.list"
	done
	# shellcheck disable=SC2046
	if ! apt-get $(apt_opts) -q update >"$ka_a/update.log" 2>&1 ||
		grep -q '^[WE]: Failed to fetch' "$ka_a/update.log"; then
		apt_failed=1
		return 1
	fi
	apt_ready=1
}

# fetch VERSION: the -amd64, -common and linux-kbuild .debs of VERSION,
# unpacked into one root so their relative symlinks resolve; the
# absolute /usr/src paths of the -amd64 Makefile are pointed into it.
fetch() {
	ka_v=$1
	ka_root=$MR_KHEADERS/$ka_v
	ka_tree=$ka_root/usr/src/linux-headers-$ka_v-amd64
	[ -f "$ka_tree/.mr-complete" ] && return 0
	apt_setup || return 1
	ka_dl=$MR_KHEADERS/apt/debs-$ka_v
	rm -rf "$ka_dl" "$ka_root" && mkdir -p "$ka_dl" || return 1
	# shellcheck disable=SC2046
	(cd "$ka_dl" && apt-get $(apt_opts) -q download "linux-headers-$ka_v-amd64" \
		"linux-headers-$ka_v-common" "linux-kbuild-$ka_v") >"$ka_dl.log" 2>&1 || return 1
	for ka_d in "$ka_dl"/*.deb; do
		dpkg -x "$ka_d" "$ka_root" || return 1
	done
	sed -i "s#/usr/src/#$ka_root/usr/src/#g" "$ka_tree/Makefile" || return 1
	ls "$ka_dl"/*.deb | sed 's#.*/##' >"$ka_root/MR-DEBS"
	rm -rf "$ka_dl"
	touch "$ka_tree/.mr-complete"
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
	ka_v=$1
	ka_img=$MR_KHEADERS/$ka_v/image
	[ -f "$ka_img/.mr-complete" ] && return 0
	apt_setup || return 1
	ka_dl=$MR_KHEADERS/apt/image-$ka_v
	rm -rf "$ka_dl" "$ka_img" && mkdir -p "$ka_dl" || return 1
	# shellcheck disable=SC2046
	(cd "$ka_dl" && apt-get $(apt_opts) -q download "linux-image-$ka_v-amd64") \
		>"$ka_dl.log" 2>&1 || return 1
	dpkg -x "$ka_dl"/*.deb "$ka_img" || return 1
	# The package's postinst would run depmod; unpacked, it is ours.
	depmod -b "$ka_img" "$ka_v-amd64" || return 1
	ls "$ka_dl"/*.deb | sed 's#.*/##' >"$ka_img/MR-DEBS"
	rm -rf "$ka_dl"
	touch "$ka_img/.mr-complete"
}
