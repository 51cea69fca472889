#!/bin/sh
# Build a guest initramfs from the host's own binaries.
#
#   mkinitramfs.sh OUT.cpio.gz KVER MODROOT [EXTRA.ko ...]
#
# KVER/MODROOT name the kernel the guest boots: its modules are taken from
# MODROOT/lib/modules/KVER (MODROOT=/ for the stock Debian kernel). EXTRA.ko
# files (the project's modules built for that kernel) go to .../extra and are
# depmod'ed, so "modprobe metaroce" works in the guest. The project's
# userspace provider is included when it has been built; with
# MR_GUEST_DEBS=DIR the provider and mr-verify come from the packages in DIR
# (ibverbs-provider-metaroce, metaroce-tools) unpacked as dpkg would.
# MR_GUEST_EXTRA_BINS: more host binaries (absolute paths) to include with
# their libraries, e.g. perf for make bench's BENCH_PERF=1.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/common.sh"

[ $# -ge 3 ] || die "usage: mkinitramfs.sh OUT KVER MODROOT [EXTRA.ko ...]"
out=$1
kver=$2
modroot=$3
shift 3

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT INT TERM
# mktemp made it 0700: as the guest's / it would shut out every
# unprivileged process (scenarios run tests as uid 65534).
chmod 755 "$stage"

mkdir -p "$stage/bin" "$stage/sbin" "$stage/usr/bin" "$stage/usr/sbin" \
	"$stage/lib" "$stage/lib64" "$stage/etc" "$stage/proc" "$stage/sys" \
	"$stage/dev" "$stage/tmp" "$stage/run" "$stage/mr" "$stage/root" \
	"$stage/var"
# "ip netns" keeps its mount points under /var/run.
ln -s /run "$stage/var/run"

cp /bin/busybox "$stage/bin/busybox"

# Userspace the scenarios use. iproute2 and kmod are called by full path in
# scenarios because busybox-static prefers its own applets. util-linux's
# setpriv runs a test as an unprivileged user (busybox's setpriv cannot
# change the uid).
bins="/usr/sbin/ip /usr/sbin/tc /usr/sbin/ethtool /usr/bin/rdma /bin/kmod
	/usr/bin/ibv_devinfo /usr/bin/ibv_devices /usr/bin/ibv_rc_pingpong
	/usr/bin/ibv_srq_pingpong /usr/bin/ibv_ud_pingpong /usr/bin/ibv_uc_pingpong
	/usr/bin/ib_write_bw /usr/bin/ib_read_bw /usr/bin/ib_send_bw
	/usr/bin/ib_atomic_bw /usr/bin/ib_write_lat /usr/bin/ib_read_lat
	/usr/bin/ib_send_lat /usr/bin/ib_atomic_lat
	/usr/bin/rping /usr/bin/ucmatose /usr/bin/udaddy /usr/bin/rdma_server
	/usr/bin/rdma_client /usr/bin/iperf3
	/usr/bin/setpriv ${MR_GUEST_EXTRA_BINS:-}"
for b in $bins; do
	[ -x "$b" ] || die "missing $b (run scripts/install-deps.sh)"
	mkdir -p "$stage$(dirname "$b")"
	cp "$b" "$stage$b"
done
for m in modprobe insmod rmmod lsmod depmod modinfo; do
	ln -sf /bin/kmod "$stage/sbin/$m"
done

# libibverbs providers and their config are dlopen()ed: take them all.
ibdir=/usr/lib/x86_64-linux-gnu/libibverbs
mkdir -p "$stage$ibdir" "$stage/etc/libibverbs.d"
cp -a "$ibdir"/. "$stage$ibdir/"
cp -a /etc/libibverbs.d/. "$stage/etc/libibverbs.d/"
# The provider and its .driver file go in as the package installs them, or
# the way "make install" puts them on a real host.
if [ -n "${MR_GUEST_DEBS:-}" ]; then
	for p in ibverbs-provider-metaroce metaroce-tools; do
		deb=$(ls "$MR_GUEST_DEBS/${p}_"*.deb 2>/dev/null | head -1)
		[ -n "$deb" ] || die "no $p package in $MR_GUEST_DEBS"
		dpkg-deb -x "$deb" "$stage" || die "dpkg-deb -x $deb failed"
	done
	[ -f "$stage$ibdir/libmetaroce-rdmav34.so" ] &&
		[ -f "$stage/etc/libibverbs.d/metaroce.driver" ] &&
		[ -x "$stage/usr/bin/mr-verify" ] ||
		die "the packages did not install the provider and mr-verify"
elif [ -f "$top/userspace/provider/libmetaroce-rdmav34.so" ]; then
	make -s -C "$top/userspace" install DESTDIR="$stage" BINDIR=/usr/bin \
		PROVIDER_DIR="$ibdir" >/dev/null ||
		die "make -C userspace install DESTDIR=$stage failed"
	[ -f "$stage$ibdir/libmetaroce-rdmav34.so" ] &&
		[ -f "$stage/etc/libibverbs.d/metaroce.driver" ] ||
		die "make install did not install the provider"
fi
# mr-ue and mr-ue-verbs: the user-space endpoint and its verbs peer
# (userspace/endpoint, built with ASan and UBSan).
ep="$top/userspace/endpoint/build"
# mr-conform and mr-conform-agent: the conformance suite (tests/conformance).
# Tools a package installed above are not replaced by the tree's.
for t in "$top"/userspace/tools/mr-* "$ep/mr-ue" "$ep/mr-ue-verbs" \
	"$top/tests/conformance/mr-conform" "$top/tests/conformance/mr-conform-agent"; do
	[ -f "$t" ] && [ -x "$t" ] && [ ! -e "$stage/usr/bin/${t##*/}" ] &&
		cp "$t" "$stage/usr/bin/"
done

# Shared libraries of everything above, resolved on the host.
libs=$(for f in $(find "$stage" -type f -perm -u+x) "$stage$ibdir"/*.so; do
	ldd "$f" 2>/dev/null | awk '/=> \//{print $3} /^\t\/lib/{print $1}'
done | sort -u)
for l in $libs; do
	real=$(readlink -f "$l")
	mkdir -p "$stage$(dirname "$l")"
	cp "$real" "$stage$l"
done
# The dynamic loader at its canonical path.
cp -L /lib64/ld-linux-x86-64.so.2 "$stage/lib64/"
# glibc dlopen()s libgcc_s for pthread_exit and thread cancellation (rping,
# the rdma_cm tools); ldd does not list it.
gcc_s=/lib/x86_64-linux-gnu/libgcc_s.so.1
[ -f "$gcc_s" ] || die "missing $gcc_s"
cp -L "$gcc_s" "$stage$gcc_s"

# Kernel modules: every module the guests may need, with dependencies.
srcmods="$modroot/lib/modules/$kver"
dstmods="$stage/lib/modules/$kver"
mkdir -p "$dstmods"
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$srcmods/$f" ] && cp "$srcmods/$f" "$dstmods/"
done
want="virtio_pci virtio_net virtio_rng ib_core ib_uverbs ib_umad rdma_cm
	rdma_ucm ib_cm iw_cm rdma_rxe udp_tunnel ip6_udp_tunnel veth
	sch_netem sch_prio sch_tbf cls_u32 cls_matchall act_gact 8021q bonding
	dummy sch_ingress cls_bpf
	crc32_generic crc32c_generic crc32c_intel crc32_pclmul libcrc32c"
for m in $want; do
	# Built-in or absent in this kernel: nothing to copy.
	modprobe -d "$modroot" -S "$kver" --show-depends "$m" 2>/dev/null |
		awk '$1 == "insmod" {print $2}'
done | sort -u | while read -r ko; do
	rel=${ko#"$srcmods"/}
	mkdir -p "$dstmods/$(dirname "$rel")"
	cp "$ko" "$dstmods/$rel"
done
if [ $# -gt 0 ]; then
	mkdir -p "$dstmods/extra"
	for ko in "$@"; do
		cp "$ko" "$dstmods/extra/"
	done
fi
depmod -b "$stage" "$kver"

# Guest init and library.
cp "$here/guest/init" "$stage/init"
cp "$here/guest/lib.sh" "$stage/mr/lib.sh"
# Libraries scenarios source (tests/e2e/lib/*.sh, as /mr/e2e/NAME.sh): only
# the scenario file itself travels with each run.
mkdir -p "$stage/mr/e2e"
for f in "$top"/tests/e2e/lib/*.sh; do
	if [ -f "$f" ]; then cp "$f" "$stage/mr/e2e/"; fi
done
# The trimming switch of metaroce-trim (tc eBPF, guest/trim.bpf.c), for
# the port the module uses by default.
mkdir -p "$stage/mr/bpf"
mr_port=$(awk '$1 == "#define" && $2 == "MR_UDP_PORT" {print $3}' \
	"$top/kernel/proto/wire.h")
[ -n "$mr_port" ] || die "no MR_UDP_PORT in kernel/proto/wire.h"
${CLANG:-clang} -O2 -g -target bpf -Wall -Werror -DMR_PORT="$mr_port" \
	-I/usr/include/"$(gcc -print-multiarch)" \
	-c "$here/guest/trim.bpf.c" -o "$stage/mr/bpf/trim.o" ||
	die "clang -target bpf guest/trim.bpf.c failed (run scripts/install-deps.sh)"
chmod +x "$stage/init"
echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
echo "root:x:0:" >"$stage/etc/group"
echo "127.0.0.1 localhost" >"$stage/etc/hosts"

(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
