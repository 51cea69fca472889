#!/bin/sh
# Install everything MetaRoCE needs to build, test, demo and benchmark, from
# Debian 12 packages only. Idempotent; run as root.
set -eu

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: run as root (sudo $0)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive

# Kernel the VMs boot and the module builds against; sources for the
# self-built KUnit test kernel and for checkpatch/sparse.
KERNEL_PKGS="linux-image-amd64 linux-headers-amd64 linux-source-6.1"
KBUILD_PKGS="build-essential bc flex bison libelf-dev libssl-dev dwarves
	xz-utils rsync sparse python3"
# VM harness: emulator, initramfs tools and the guest userspace.
VM_PKGS="qemu-system-x86 busybox-static cpio kmod iproute2 procps"
RDMA_PKGS="rdma-core libibverbs-dev librdmacm-dev ibverbs-utils
	ibverbs-providers perftest rdmacm-utils libibverbs1 librdmacm1
	python3-pyverbs"
# Host tests: unit tests under sanitizers, fuzzing, the Wireshark dissector
# (tshark, and editcap from its dependency wireshark-common).
HOST_PKGS="gcc clang libclang-rt-14-dev libcmocka-dev pkg-config cmake tshark"
# Benchmarks (linux-perf: the guests' profiles, BENCH_PERF=1; ethtool: the
# scaling run's receive-queue counters, BENCH_SCALING=1).
BENCH_PKGS="iperf3 python3-matplotlib linux-perf ethtool"
# Debian packages (debian/, scripts/check-packages.sh): dpkg-buildpackage
# (dpkg-dev, from build-essential) with debhelper and the dkms addon; dkms
# to build the module from the package's source into a private tree;
# lintian.
PKG_PKGS="debhelper dh-dkms dkms lintian"

missing=""
for p in $KERNEL_PKGS $KBUILD_PKGS $VM_PKGS $RDMA_PKGS $HOST_PKGS $BENCH_PKGS $PKG_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done

if [ -n "$missing" ]; then
	echo "install-deps.sh: installing:$missing"
	# wireshark-common asks whether non-superusers may capture; answer
	# no beforehand so that the install never waits for a reply.
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
else
	echo "install-deps.sh: all packages present"
fi

# linux-source ships a tarball; unpack it once next to it for the test kernel
# build, checkpatch and sparse.
SRC_TAR=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null || true)
if [ -n "$SRC_TAR" ] && [ ! -f /usr/src/linux-source-6.1/Makefile ]; then
	echo "install-deps.sh: unpacking $SRC_TAR"
	tar -C /usr/src -xf "$SRC_TAR"
fi

# iperf3 may install a service; the benchmark starts its own.
exit 0
