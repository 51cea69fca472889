#!/bin/sh
# Boot one VM or a pair of VMs, run a scenario in them, judge the result.
#
#   run.sh --kernel BZIMAGE --initrd BASE.cpio.gz --scenario FILE
#          --results DIR [--topology pair|single] [--timeout SECONDS]
#          [--mem MiB] [--deadline SECONDS] [--initrd-extra LAYER.cpio.gz]
#          [--smp N] [--link dgram|tap] [--append KERNEL-ARGS]
#
# MR_GUEST_ENV="NAME ..." copies those host variables into the guests' env.
# MR_SLOWDOWN=N (default 1) reaches the guests as is: how much slower than
# the stock kernel the booted one runs (tests/vm/e2e.sh sets it for the
# debug kernel), by which scenarios scale their own time bounds.
#
# pair:   two VMs ("server", "client"), one virtio-net NIC each, joined by
#         -netdev dgram over 127.0.0.1 UDP ports chosen free at run time.
# single: one VM ("single") with one NIC looped to nothing; scenarios build
#         their fabric from network namespaces and veth pairs inside it.
# --smp N gives each guest N vCPUs, under TCG too (multi-threaded TCG: one
# host thread per vCPU); without it 2 with KVM, 1 under TCG.
# --append adds words to the guests' kernel command line.
# --link tap (pair only): the two NICs are multiqueue virtio-net, one
#         queue pair per vCPU, over two multiqueue taps whose ingress tc
#         redirects to each other (u32 + mirred: no bridge, so no
#         firewall on the path). The tap spreads the flows it delivers
#         over the queues by their hash, as RSS would; -netdev dgram has
#         one queue. The run re-executes itself in a network namespace
#         of its own (unshare; for a user who is not root, in a user
#         namespace too, where that user may make taps): the taps exist
#         only there, vanish with it, and meet no host interface or
#         firewall. Made by tap_link.
#
# A run fails when a guest's scenario exits non-zero, when a guest does not
# finish within the timeout (it is killed), or when a guest's kernel log has
# a BUG, WARNING, Oops, KASAN, UBSAN, lockdep, hung-task or kmemleak report.
# --deadline bounds the whole run on the host (default: timeout + 180 s for
# boot and teardown); a guest still running then is killed as hung. In a
# pair, once one guest's scenario has failed the other gets MR_PEER_GRACE
# seconds (default 60) before it is stopped.
# Logs go to DIR/<role>.console.log and DIR/<role>.dmesg.log.
set -eu

# --link tap: into a network namespace of its own first (above).
if [ -z "${MR_RUN_NETNS:-}" ]; then
	prev=""
	for a in "$@"; do
		if [ "$prev" = --link ] && [ "$a" = tap ]; then
			MR_RUN_NETNS=1
			export MR_RUN_NETNS
			userns=""
			[ "$(id -u)" = 0 ] || userns="--user --map-root-user"
			# shellcheck disable=SC2086
			exec unshare $userns --net -- sh "$0" "$@"
		fi
		prev=$a
	done
fi

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

kernel="" initrd="" initrd_extra="" scenario="" results="" topology=pair timeout=300 mem="" deadline="" smp=""
link=dgram append=""
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--initrd-extra) initrd_extra=$2; shift 2 ;;
	--scenario) scenario=$2; shift 2 ;;
	--results) results=$2; shift 2 ;;
	--topology) topology=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--deadline) deadline=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--link) link=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	*) die "run.sh: unknown argument $1" ;;
	esac
done
[ -f "$kernel" ] && [ -f "$initrd" ] && [ -f "$scenario" ] && [ -n "$results" ] ||
	die "run.sh: need --kernel, --initrd, --scenario and --results"

mkdir -p "$results"
results=$(cd "$results" && pwd)
work=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do
		kill -9 "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

accel_args=$("$here/accel.sh")
case "$smp" in
'') case "$accel_args" in
	*kvm*) smp=2 ;;
	*) smp=1 ;;
	esac ;;
*[!0-9]* | 0) die "run.sh: --smp $smp: a number of vCPUs, please" ;;
esac
[ -n "$mem" ] || mem=1024

case "$topology" in
pair) roles="server client" ;;
single) roles="single" ;;
*) die "run.sh: unknown topology $topology" ;;
esac

# tap_link: the two taps of --link tap, in this run's own network
# namespace, each one's ingress sent out of the other. Its loopback up
# as well (the dgram link's port probe below binds to it).
tap_server=mrtaps
tap_client=mrtapc
tap_link() {
	[ -n "${MR_RUN_NETNS:-}" ] || die "run.sh: --link tap: not in a network namespace of its own"
	[ -c /dev/net/tun ] || die "run.sh: --link tap: no /dev/net/tun"
	ip link set lo up || die "run.sh: --link tap: no loopback in the namespace"
	for t in $tap_server $tap_client; do
		ip tuntap add "$t" mode tap multi_queue ||
			die "run.sh: --link tap: cannot create tap $t"
		# The taps' own IPv6 chatter stays off the link.
		echo 1 >"/proc/sys/net/ipv6/conf/$t/disable_ipv6" 2>/dev/null || true
		ip link set "$t" up || die "run.sh: --link tap: $t does not come up"
	done
	for p in "$tap_server $tap_client" "$tap_client $tap_server"; do
		# shellcheck disable=SC2086
		set -- $p
		tc qdisc add dev "$1" ingress &&
			tc filter add dev "$1" ingress protocol all u32 match u32 0 0 \
				action mirred egress redirect dev "$2" ||
			die "run.sh: --link tap: tc cannot redirect $1 to $2 (u32, mirred)"
	done
}
case "$append" in *[!A-Za-z0-9_.,=\ -]*) die "run.sh: --append '$append': words of name=value only" ;; esac
case "$link" in
dgram) ;;
tap)
	[ "$topology" = pair ] || die "run.sh: --link tap needs --topology pair"
	tap_link
	;;
*) die "run.sh: --link $link: dgram or tap" ;;
esac

# Two free UDP ports on loopback for the dgram link.
ports=$(python3 -c '
import socket
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))
')
set -- $ports
port_server=$1
port_client=$2

boot_vm() {
	role=$1
	case "$role" in
	server) me=1 peer=2 lport=$port_server rport=$port_client tap=$tap_server ;;
	client) me=2 peer=1 lport=$port_client rport=$port_server tap=$tap_client ;;
	single) me=1 peer=2 lport=$port_server rport=$port_client tap="" ;;
	esac
	netdev="dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$lport,remote.type=inet,remote.host=127.0.0.1,remote.port=$rport"
	nic=""
	if [ "$link" = tap ]; then
		# One queue pair per vCPU; vectors: one per queue, config, control.
		netdev="tap,id=n0,ifname=$tap,script=no,downscript=no,vhost=off,queues=$smp"
		nic=",mq=on,vectors=$((2 * smp + 2))"
	fi
	ov="$work/$role"
	mkdir -p "$ov/mr"
	cat >"$ov/mr/env" <<ENV
MR_ROLE=$role
MR_MY_IP=192.0.2.$me
MR_PEER_IP=192.0.2.$peer
MR_MY_IP6=2001:db8::$me
MR_PEER_IP6=2001:db8::$peer
MR_SCENARIO_TIMEOUT=$timeout
MR_SLOWDOWN=${MR_SLOWDOWN:-1}
ENV
	# Host variables named in MR_GUEST_ENV (space separated) reach the
	# guest's /mr/env as well: "make soak" passes SOAK_SECONDS this way.
	# Values in single quotes; names are checked.
	for v in ${MR_GUEST_ENV:-}; do
		case "$v" in
		[A-Za-z_]*) ;;
		*) die "run.sh: MR_GUEST_ENV: bad name '$v'" ;;
		esac
		case "$v" in *[!A-Za-z0-9_]*) die "run.sh: MR_GUEST_ENV: bad name '$v'" ;; esac
		eval "val=\${$v:-}"
		case "$val" in *\'*) die "run.sh: $v: no single quotes, please" ;; esac
		echo "$v='$val'" >>"$ov/mr/env"
	done
	cp "$scenario" "$ov/mr/scenario.sh"
	(cd "$ov" && find mr | cpio -o -H newc --quiet | gzip -1) >"$work/$role.ov.gz"
	# shellcheck disable=SC2086
	cat "$initrd" $initrd_extra "$work/$role.ov.gz" >"$work/$role.initrd"
	# virtio-net without event index: with it, Debian's QEMU 7.2 now and
	# then stops filling a guest's receive queue for good under
	# MetaRoCE's packet rate, although the guest has posted buffers
	# (seen in the monitor: shadow_avail_idx 226 ahead of last_avail_idx,
	# no receive interrupt, ping to the peer lost; the transport then
	# fails its retry budget). Upstream reworked that notification path
	# after 7.2. Without event index the guest notifies the device on
	# every refill: no stall in 120 runs of the fault scenario's control
	# case, against one every 5 to 60 runs before (testing.rst).
	# shellcheck disable=SC2086
	qemu-system-x86_64 $accel_args -machine q35 -m "$mem" -smp "$smp" \
		-nodefaults -display none -no-reboot -monitor none \
		-kernel "$kernel" -initrd "$work/$role.initrd" \
		-append "console=ttyS0 panic=-1 oops=panic hung_task_timeout_secs=60 rdinit=/init${append:+ $append}" \
		-serial "file:$results/$role.console.log" \
		-device virtio-rng-pci \
		-netdev "$netdev" \
		-device "virtio-net-pci,netdev=n0,mac=52:54:00:4d:52:0$me,event_idx=off$nic" \
		>"$results/$role.qemu.log" 2>&1 &
	pids="$pids $!"
}

# Boot and teardown get their own allowance on top of the scenario's.
[ -n "$deadline" ] || deadline=$((timeout + 180))
limit=$deadline
# A guest whose init has not started (no MR-BEGIN on its console) this
# many seconds after QEMU started hung in the kernel's own boot, before
# anything of the project ran in it: seen once in CI, the KUnit kernel
# silent after "Running RCU-tasks wait API self tests" under TCG. Such a
# run is booted again, once, and the first attempt is reported.
boot_limit=$((${MR_BOOT_LIMIT:-300} * ${MR_SLOWDOWN:-1}))
# A guest whose scenario failed decides the run: its peer would wait in
# its next barrier until the scenario's timeout. The peer gets
# MR_PEER_GRACE seconds (default 60) to finish its own report, then it
# is stopped.
peer_grace=${MR_PEER_GRACE:-60}

# Boot the guests and wait for them. Sets timed_out, peer_failed and
# boot_hung (the roles that never reached their init).
run_guests() {
	pids=""
	for r in $roles; do
		boot_vm "$r"
	done
	start=$(date +%s)
	end=$((start + limit))
	timed_out=0
	peer_failed=""
	boot_hung=""
	while :; do
		alive=0
		for p in $pids; do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ $alive -eq 1 ] || break
		now=$(date +%s)
		if [ -z "$peer_failed" ] && [ "$topology" = pair ]; then
			for r in $roles; do
				if grep -qs '^MR-SCENARIO-END rc=[1-9]' "$results/$r.console.log"; then
					peer_failed=$r
					[ $((now + peer_grace)) -ge "$end" ] ||
						end=$((now + peer_grace))
					break
				fi
			done
		fi
		if [ $((now - start)) -ge "$boot_limit" ]; then
			for r in $roles; do
				grep -qs '^MR-BEGIN' "$results/$r.console.log" ||
					boot_hung="$boot_hung $r"
			done
			if [ -n "$boot_hung" ]; then
				timed_out=1
				break
			fi
		fi
		if [ "$now" -ge "$end" ]; then
			timed_out=1
			break
		fi
		sleep 1
	done

	if [ $timed_out -eq 1 ]; then
		for p in $pids; do
			kill -9 "$p" 2>/dev/null || true
			wait "$p" 2>/dev/null || true
		done
	fi
}

run_guests
if [ -n "$boot_hung" ]; then
	for r in $boot_hung; do
		echo "note [$r]: the kernel hung in boot: no init within ${boot_limit}s; booting again once (first console: $r.console.boot-hang.log)"
		tail -3 "$results/$r.console.log" | sed 's/^/    /'
	done
	for r in $roles; do
		mv "$results/$r.console.log" "$results/$r.console.boot-hang.log" 2>/dev/null || true
	done
	run_guests
fi

# Judge each guest.
verdict=0
for r in $roles; do
	log=$results/$r.console.log
	[ -f "$log" ] || : >"$log"
	sed -n '/^MR-DMESG-BEGIN/,/^MR-DMESG-END/p' "$log" >"$results/$r.dmesg.log"
	reports=$("$here/kernel-reports.sh" "$log" || true)
	if [ -n "$reports" ]; then
		echo "FAIL [$r]: kernel report in guest log:"
		echo "$reports" | head -5 | sed 's/^/    /'
		# The first report's body (its call trace), for a reader who
		# has only this output.
		first=$(echo "$reports" | head -1)
		n=$(grep -n -F -x -- "$first" "$log" | head -1 | cut -d: -f1)
		if [ -n "$n" ]; then
			echo "  the first report, as logged:"
			sed -n "${n},$((n + 30))p" "$log" | sed 's/^/    /'
		fi
		verdict=1
	fi
	rc=$(sed -n 's/^MR-RESULT rc=\([0-9]*\).*/\1/p' "$log" | tail -1)
	if [ -z "$rc" ]; then
		if [ $timed_out -eq 1 ] && [ -n "$peer_failed" ]; then
			echo "FAIL [$r]: stopped ${peer_grace}s after the $peer_failed guest's scenario failed"
		elif [ $timed_out -eq 1 ] && [ -n "$boot_hung" ]; then
			echo "FAIL [$r]: the kernel hung in boot twice: no init within ${boot_limit}s, killed"
		elif [ $timed_out -eq 1 ]; then
			echo "FAIL [$r]: guest hung: no result within ${limit}s, killed"
		else
			echo "FAIL [$r]: guest ended without a result (panic or crash?)"
		fi
		tail -5 "$log" | sed 's/^/    /'
		verdict=1
	elif [ "$rc" -ne 0 ]; then
		if grep -q '^MR-SCENARIO-TIMEOUT' "$log"; then
			echo "FAIL [$r]: scenario timed out after ${timeout}s"
		else
			echo "FAIL [$r]: scenario exited with status $rc"
		fi
		grep -E '^\[(server|client|single)\] FAIL' "$log" | head -3 | sed 's/^/    /'
		verdict=1
	fi
done
[ $verdict -eq 0 ] || echo "  logs: $results"
exit $verdict
