#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench: MetaRoCE against Soft-RoCE (rxe) and TCP (iperf3), side by
# side on the same two VMs and virtual link, at several random-loss levels.
# A benchmark, not a test: it reports and never judges speed. It exits
# non-zero only when the harness itself broke (no stock kernel, initramfs
# not built, the VMs did not boot or produced no successful measurement).
#
# Builds the module and the provider from a snapshot of the working tree
# (outside the sources, so parallel builds do not collide), one initramfs,
# boots the pair once with tests/vm/run.sh and runs scripts/bench/guest.sh
# in both VMs; scripts/bench/report.py turns the client's console into
#   $RESULTS/bench/<date>/bench.csv, bench.md, bench.rst, bench.png
# ($RESULTS/bench/latest points at the newest run).
#
# Environment (defaults: full run / BENCH_QUICK=1):
#   BENCH_QUICK=1        a few minutes: 64 KiB, 0% and 1% loss, short runs
#   BENCH_TRANSPORTS     tcp rxe metaroce
#   BENCH_BW_TESTS       write read send          (ib_<t>_bw; may be empty)
#   BENCH_LAT_TESTS      send write               (ib_<t>_lat; may be empty)
#   BENCH_SIZES          4096 65536 1048576       / 65536
#   BENCH_LAT_SIZE       8
#   BENCH_LOSS           0 0.1 1 5  (percent)     / 0 1
#   BENCH_SECONDS        10  (-D, iperf3 -t)      / 4
#   BENCH_LAT_ITERS      1000                     / 200
#   BENCH_LAT_TIMEOUT    90  (seconds per latency run)
#   BENCH_MR_PARAMS      metaroce module parameters, e.g. cc_fixed=1
#   BENCH_MR_ATTRS       mr0 device attributes, e.g. ack_every=4
#   BENCH_FTRACE=1       ftrace the RDMA runs in the guests (diagnosis only);
#                        =events: MetaRoCE's tracepoints, and the trace
#                        around each RTO
#   BENCH_PERF=1         perf profile of both guests in each bandwidth run
#                        (diagnosis only; needs perf: linux-perf)
#   BENCH_QP=1           MetaRoCE's QP transport state (cwnd, srtt, cuts)
#                        after every run, not only a failed one
#   BENCH_CRC=cpu|table  the CRCs' drivers: the CPU's instructions, or the
#                        kernel's tables for both transports (guest.sh)
#   MR_ACCEL=tcg|kvm     force the accelerator (tests/vm/accel.sh)
#   BENCH_SCALING=1      the scaling run instead (make bench-scaling):
#                        two vCPUs per VM, a multiqueue link (run.sh --link
#                        tap), and by default 64 KiB ib_write_bw at 0% on
#                        rxe and MetaRoCE: one QP on one vCPU with one NIC
#                        queue (the baseline), with two queues, one QP on
#                        two vCPUs, eight QPs on two vCPUs with two queues
#                        and with one (test names: guest.sh). Results in
#                        <date>-scaling/.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
vm=$top/tests/vm
RESULTS=${RESULTS:-$top/results}
t_start=$(date +%s)

say() {
	echo "bench: $*"
}

broke() {
	say "harness failure: $*"
	exit 1
}
# shellcheck source=attrs.sh
. "$here/attrs.sh"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	mode=quick
	: "${BENCH_SIZES:=65536}"
	: "${BENCH_LOSS:=0 1}"
	: "${BENCH_SECONDS:=4}"
	: "${BENCH_LAT_ITERS:=200}"
else
	mode=full
fi
: "${BENCH_SCALING:=0}"
case "$BENCH_SCALING" in 0 | 1) ;; *) broke "BENCH_SCALING must be 0 or 1" ;; esac
run_args=""
if [ "$BENCH_SCALING" = 1 ]; then
	mode="$mode scaling"
	: "${BENCH_TRANSPORTS:=rxe metaroce}"
	: "${BENCH_BW_TESTS=write_q1_1cpu_1rxq write_q1_1cpu_2rxq write_q1_2cpu write_q8_2cpu write_q8_2cpu_1rxq}"
	: "${BENCH_LAT_TESTS=}"
	: "${BENCH_SIZES:=65536}"
	: "${BENCH_LOSS:=0}"
	# Two vCPUs per VM, one NIC queue pair each (run.sh makes the taps
	# in a network namespace of its own).
	# tsc=reliable: a TCG guest of two vCPUs fails the kernel's TSC
	# synchronisation check and falls back to the HPET, which QEMU
	# emulates under its global lock: every clock read of either vCPU
	# then waits for it (seen: ktime_get in read_hpet, a fifth of the
	# client's samples). The guests of the matrix, of one vCPU, keep the
	# TSC; so do hosts and KVM guests (kvm-clock).
	run_args="--smp 2 --link tap --append tsc=reliable"
fi
: "${BENCH_TRANSPORTS:=tcp rxe metaroce}"
: "${BENCH_BW_TESTS=write read send}"
: "${BENCH_LAT_TESTS=send write}"
: "${BENCH_SIZES:=4096 65536 1048576}"
: "${BENCH_LAT_SIZE:=8}"
: "${BENCH_LOSS:=0 0.1 1 5}"
: "${BENCH_SECONDS:=10}"
: "${BENCH_LAT_ITERS:=1000}"
: "${BENCH_LAT_TIMEOUT:=90}"

for v in BENCH_TRANSPORTS BENCH_BW_TESTS BENCH_LAT_TESTS BENCH_SIZES \
	BENCH_LAT_SIZE BENCH_LOSS BENCH_SECONDS BENCH_LAT_ITERS BENCH_LAT_TIMEOUT; do
	val=""
	eval "val=\$$v"
	case "$val" in
	*[!A-Za-z0-9.\ _-]*) broke "$v='$val': only letters, digits, dots and spaces" ;;
	esac
done
: "${BENCH_MR_PARAMS:=}"
: "${BENCH_MR_ATTRS:=}"
: "${BENCH_FTRACE:=0}"
case "$BENCH_FTRACE" in 0 | 1 | events) ;; *) broke "BENCH_FTRACE must be 0, 1 or events" ;; esac
: "${BENCH_PERF:=0}"
case "$BENCH_PERF" in 0 | 1) ;; *) broke "BENCH_PERF must be 0 or 1" ;; esac
: "${BENCH_QP:=0}"
case "$BENCH_QP" in 0 | 1) ;; *) broke "BENCH_QP must be 0 or 1" ;; esac
: "${BENCH_CRC:=cpu}"
case "$BENCH_CRC" in cpu | table) ;; *) broke "BENCH_CRC must be cpu or table" ;; esac
perf_bin=""
if [ "$BENCH_PERF" = 1 ]; then
	perf_bin=$(command -v perf) || broke "BENCH_PERF=1: no perf (run scripts/install-deps.sh)"
fi
case "$BENCH_MR_PARAMS" in
*[!A-Za-z0-9._=,\ -]*) broke "BENCH_MR_PARAMS: name=value words only" ;;
esac
why=$(bench_attrs_check "$BENCH_MR_ATTRS") || broke "$why"
case "$BENCH_SECONDS" in '' | *[!0-9]*) broke "BENCH_SECONDS must be a whole number" ;; esac
[ "$BENCH_SECONDS" -ge 2 ] || broke "BENCH_SECONDS must be at least 2"
case "$BENCH_LAT_ITERS$BENCH_LAT_TIMEOUT" in *[!0-9]*) broke "BENCH_LAT_ITERS/BENCH_LAT_TIMEOUT: whole numbers" ;; esac

stamp=$(date -u +%Y%m%dT%H%M%SZ)
[ "$BENCH_SCALING" = 1 ] && stamp=$stamp-scaling
out=$RESULTS/bench/$stamp
# The module is built under $out with kbuild's M=, which takes neither
# '=', ':' nor white space in the path (it fails at link time).
case "$out" in *[=:\ \	]*) broke "RESULTS=$RESULTS: no '=', ':' or spaces in the path (kbuild's M=)" ;; esac
mkdir -p "$out" || broke "cannot create $out"
latest=latest
[ "$BENCH_SCALING" = 1 ] && latest=latest-scaling
ln -sfn "$stamp" "$RESULTS/bench/$latest" 2>/dev/null
say "$mode run, results in $out"

# --- The stock Debian kernel the guests boot, and its headers. ----------
# The generic flavour the VMs boot (not -cloud or -rt), newest by version.
KDIR=${KDIR:-$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null |
	grep -Ev -- '-(cloud|rt)-amd64$' | sort -V | tail -1)}
[ -n "$KDIR" ] && [ -d "$KDIR" ] || broke "no kernel headers (run scripts/install-deps.sh)"
case "$(basename "$KDIR")" in
linux-headers-*) kver=$(basename "$KDIR" | sed 's/^linux-headers-//') ;;
*) kver=$(cat "$KDIR/include/config/kernel.release" 2>/dev/null) ;;
esac
bzimage=/boot/vmlinuz-$kver
[ -f "$bzimage" ] && [ -d "/lib/modules/$kver/kernel" ] ||
	broke "no stock kernel image/modules for '$kver' (run scripts/install-deps.sh)"

# --- MetaRoCE from a snapshot of the tree. Its failure to build is a result
# (MetaRoCE n/a), not a harness failure. -------------------------------------
t0=$(date +%s)
bd=$out/build
mkdir -p "$bd"
rsync -a --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod*' \
	--exclude='*.so' --exclude='/userspace/build' \
	"$top/Kbuild" "$top/kernel" "$top/userspace" "$bd/" 2>"$out/build.log" ||
	broke "cannot copy the sources to $bd"
mr_note=""
module_build=failed
kos=""
if make -C "$KDIR" M="$bd" -j2 modules >>"$out/build.log" 2>&1; then
	module_build=ok
	kos=$(find "$bd/kernel" -maxdepth 1 -name '*.ko')
else
	mr_note="(the module did not build on the host: build.log)"
	say "the metaroce module did not build (MetaRoCE will be n/a): $out/build.log"
fi
provider_build=failed
prov=$bd/userspace/provider/libmetaroce-rdmav34.so
if [ -f "$bd/userspace/Makefile" ] &&
	make -C "$bd/userspace" KDIR="$KDIR" provider >>"$out/build.log" 2>&1 && [ -f "$prov" ]; then
	provider_build=ok
else
	mr_note="$mr_note (the provider did not build on the host: build.log)"
	say "the provider did not build (MetaRoCE will be n/a): $out/build.log"
fi
t_build=$(($(date +%s) - t0))

# --- One initramfs; the overlay puts the provider built from the same
# snapshot over whatever mkinitramfs.sh found in the tree (an empty .driver
# file when it did not build, so no stale provider is used). ---------------
t0=$(date +%s)
# shellcheck disable=SC2086
MR_GUEST_EXTRA_BINS=$perf_bin \
	"$vm/mkinitramfs.sh" "$out/initrd-base.gz" "$kver" / $kos >"$out/initramfs.log" 2>&1 ||
	{ cat "$out/initramfs.log"; broke "initramfs not built"; }
ov=$out/overlay
ibdir=usr/lib/x86_64-linux-gnu/libibverbs
mkdir -p "$ov/$ibdir" "$ov/etc/libibverbs.d"
if [ $provider_build = ok ]; then
	cp "$prov" "$ov/$ibdir/"
	echo "driver metaroce" >"$ov/etc/libibverbs.d/metaroce.driver"
else
	: >"$ov/etc/libibverbs.d/metaroce.driver"
fi
(cd "$ov" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/overlay.gz" ||
	broke "overlay not built"
cat "$out/initrd-base.gz" "$out/overlay.gz" >"$out/initrd.gz"
rm -rf "$ov" "$out/initrd-base.gz" "$out/overlay.gz"
t_initramfs=$(($(date +%s) - t0))

# --- The scenario: parameters, then the guest script. -------------------
# shellcheck disable=SC2086
n() { set -- $1; echo $#; }
n_rdma=0
n_tcp=0
for t in $BENCH_TRANSPORTS; do
	case "$t" in
	tcp) n_tcp=1 ;;
	rxe | metaroce) n_rdma=$((n_rdma + 1)) ;;
	*) broke "unknown transport '$t' (tcp, rxe, metaroce)" ;;
	esac
done
nl=$(n "$BENCH_LOSS")
runs_bw=$((n_rdma * $(n "$BENCH_BW_TESTS") * $(n "$BENCH_SIZES") * nl))
runs_lat=$((n_rdma * $(n "$BENCH_LAT_TESTS") * nl))
runs_tcp=$((n_tcp * nl))
# What a run costs under TCG: the duration plus ~8 s of start-up and
# rendezvous; a latency run up to ~10 ms per iteration at 5% loss.
lat_est=$((8 + BENCH_LAT_ITERS / 100))
expect=$((60 + runs_bw * (BENCH_SECONDS + 8) + runs_lat * lat_est + runs_tcp * (BENCH_SECONDS + 6)))
limit=$((expect * 2 + 300))

scen=$out/scenario.sh
{
	echo "# topology: pair"
	echo "# timeout: $limit"
	echo "# Generated by scripts/bench/bench.sh for this run."
	for v in BENCH_TRANSPORTS BENCH_BW_TESTS BENCH_LAT_TESTS BENCH_SIZES \
		BENCH_LAT_SIZE BENCH_LOSS BENCH_SECONDS BENCH_LAT_ITERS BENCH_LAT_TIMEOUT; do
		eval "echo \"$v='\$$v'\""
	done
	echo "BENCH_MR_NOTE='$mr_note'"
	echo "BENCH_MR_PARAMS='$BENCH_MR_PARAMS'"
	echo "BENCH_MR_ATTRS='$BENCH_MR_ATTRS'"
	echo "BENCH_FTRACE='$BENCH_FTRACE'"
	echo "BENCH_PERF='$BENCH_PERF'"
	echo "BENCH_QP='$BENCH_QP'"
	echo "BENCH_CRC='$BENCH_CRC'"
	echo "BENCH_SCALING='$BENCH_SCALING'"
	cat "$here/guest.sh"
} >"$scen"

accel_args=$("$vm/accel.sh")
case "$accel_args" in *kvm*) accel=KVM ;; *) accel=TCG ;; esac
{
	echo "date_utc=$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "stamp=$stamp"
	echo "mode=$mode"
	for v in BENCH_TRANSPORTS BENCH_BW_TESTS BENCH_LAT_TESTS BENCH_SIZES \
		BENCH_LAT_SIZE BENCH_LOSS BENCH_SECONDS BENCH_LAT_ITERS BENCH_MR_PARAMS BENCH_MR_ATTRS \
		BENCH_FTRACE BENCH_PERF BENCH_QP BENCH_CRC BENCH_SCALING; do
		eval "echo \"$v=\$$v\""
	done
	echo "host_cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
	echo "host_cores=$(nproc)"
	echo "host_load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "qemu=$(qemu-system-x86_64 --version | head -1)"
	echo "accel=$accel"
	echo "accel_args=$accel_args"
	echo "guest_kernel_image=$bzimage"
	echo "commit=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	# What of the measured sources differs from the commit (the build is a
	# snapshot of the working tree).
	echo "dirty=$(git -C "$top" status --porcelain -- Kbuild kernel userspace 2>/dev/null |
		awk '{ print $NF }' | tr '\n' ' ')"
	echo "module_build=$module_build"
	echo "provider_build=$provider_build"
	echo "runs=$((runs_bw + runs_lat + runs_tcp))"
	echo "expected_s=$expect"
	echo "limit_s=$limit"
} >"$out/meta.env"

say "$((runs_bw + runs_lat + runs_tcp)) measurements ($runs_bw bandwidth, $runs_lat latency, $runs_tcp TCP)" \
	"on $accel; expect about $(((expect + 59) / 60)) min in the VMs, limit $(((limit + 59) / 60)) min"

# --- Boot once, run, and show results as they arrive. -------------------
t0=$(date +%s)
vmdir=$out/vm
# shellcheck disable=SC2086
"$vm/run.sh" --kernel "$bzimage" --initrd "$out/initrd.gz" --topology pair $run_args \
	--timeout "$limit" --deadline $((limit + 300)) \
	--scenario "$scen" --results "$vmdir" >"$out/run.log" 2>&1 &
rpid=$!
trap 'kill $rpid 2>/dev/null; wait $rpid 2>/dev/null; exit 130' INT TERM
seen=0
progress() {
	log=$vmdir/client.console.log
	[ -f "$log" ] || return 0
	all=$(grep -a '^BENCH,' "$log" | tr -d '\r' | grep -e ',bw_mbps,' -e ',lat_typical_us,')
	[ -n "$all" ] || return 0
	cnt=$(printf '%s\n' "$all" | wc -l)
	[ "$cnt" -gt "$seen" ] || return 0
	printf '%s\n' "$all" | sed -n "$((seen + 1)),\$p" |
		awk -F, '{ v = ($7 == "") ? "n/a" : $7;
			printf "  %-8s %-9s %7s %4s%%  %-14s %10s  %s\n", $2, $3, $4, $5, $6, v, ($8 == "ok") ? "" : $8 ": " substr($9, 1, 70) }'
	seen=$cnt
}
while kill -0 $rpid 2>/dev/null; do
	sleep 5
	progress
done
wait $rpid
vm_rc=$?
progress
trap - INT TERM
t_vm=$(($(date +%s) - t0))
[ $vm_rc -eq 0 ] || { say "run.sh reported:"; sed 's/^/    /' "$out/run.log"; }

{
	echo "vm_rc=$vm_rc"
	echo "t_build_s=$t_build"
	echo "t_initramfs_s=$t_initramfs"
	echo "t_vm_s=$t_vm"
	echo "t_total_s=$(($(date +%s) - t_start))"
	echo "host_load_end=$(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$out/meta.env"

# Debian's python3 has python3-matplotlib; a python3 earlier in PATH (pyenv,
# a venv) may not.
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
"$py" "$here/report.py" "$out"
rc=$?
say "build ${t_build}s, initramfs ${t_initramfs}s, VMs ${t_vm}s, total $(($(date +%s) - t_start))s"
say "results: $out/bench.md, bench.csv, bench.png"
[ $rc -eq 0 ] || broke "no successful measurement at all (see $out/run.log and $vmdir/)"
exit 0
