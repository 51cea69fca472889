# Guest-side library for scenarios (busybox ash). Sourced by /init before
# the scenario runs; scenarios may call everything here.
#
# Environment (from /mr/env): MR_ROLE (server, client or single), MR_MY_IP,
# MR_PEER_IP, MR_MY_IP6, MR_PEER_IP6, MR_SCENARIO_TIMEOUT.

# Busybox-static runs its own applets before PATH; these are the real tools.
ip() { /usr/sbin/ip "$@"; }
tc() { /usr/sbin/tc "$@"; }
modprobe() { /sbin/modprobe "$@"; }
rmmod() { /sbin/rmmod "$@"; }
insmod() { /sbin/insmod "$@"; }
lsmod() { /sbin/lsmod "$@"; }

mr_log() {
	echo "[$MR_ROLE] $*"
}

mr_fail() {
	echo "[$MR_ROLE] FAIL: $*"
	exit 1
}

# Load the NIC driver if it is a module, bring up lo and eth0 with the
# addresses the harness assigned.
mr_guest_setup() {
	# kmemleak's own scans (a debug kernel) start at boot + 60 s, in the
	# middle of a scenario, and take the one vCPU for seconds under TCG:
	# everything a scenario times would slow down. Only the scans after
	# the scenario (mr_guest_teardown_checks) run, and they report.
	[ -w /sys/kernel/debug/kmemleak ] &&
		echo scan=off >/sys/kernel/debug/kmemleak
	modprobe -q virtio_pci 2>/dev/null
	modprobe -q virtio_net 2>/dev/null
	ip link set lo up
	if [ -n "${MR_MY_IP:-}" ]; then
		i=0
		while ! ip link show eth0 >/dev/null 2>&1; do
			i=$((i + 1))
			[ $i -gt 50 ] && { echo "MR-ERROR no eth0"; break; }
			sleep 0.1
		done
		ip link set eth0 up
		ip addr add "$MR_MY_IP/24" dev eth0
		ip -6 addr add "$MR_MY_IP6/64" dev eth0 nodad
	fi
}

# After the scenario: ask kmemleak (when the kernel has it) for leaks, so the
# host sees them in the log.
mr_guest_teardown_checks() {
	if [ -w /sys/kernel/debug/kmemleak ]; then
		echo scan >/sys/kernel/debug/kmemleak
		sleep 1
		echo scan >/sys/kernel/debug/kmemleak
		cat /sys/kernel/debug/kmemleak
	fi
	echo "MR-DMESG-BEGIN"
	dmesg
	echo "MR-DMESG-END"
}

# mr_retry TRIES DELAY CMD...: run CMD until it succeeds.
mr_retry() {
	tries=$1
	delay=$2
	shift 2
	n=0
	while ! "$@"; do
		n=$((n + 1))
		[ $n -ge "$tries" ] && return 1
		sleep "$delay"
	done
	return 0
}

# mr_port_active DEV: port 1 of RDMA device DEV is ACTIVE.
mr_port_active() {
	rdma link show "$1/1" 2>/dev/null | grep -q 'state ACTIVE'
}

# mr_gid_find DEV GID: the index of GID (as sysfs shows it: eight groups
# of four hex digits) among the first 16 of RDMA device DEV's port 1, as a
# RoCE v2 GID; fails, printing nothing, when it is not there.
mr_gid_find() {
	mgi_dir=/sys/class/infiniband/$1/ports/1
	for mgi_i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
		if [ "$(cat "$mgi_dir/gids/$mgi_i" 2>/dev/null)" = "$2" ] &&
			[ "$(cat "$mgi_dir/gid_attrs/types/$mgi_i" 2>/dev/null)" = "RoCE v2" ]; then
			echo "$mgi_i"
			return 0
		fi
	done
	return 1
}

# mr_gid_index DEV IPV4: mr_gid_find for the IPv4-mapped GID of IPV4
# (::ffff:a.b.c.d).
mr_gid_index() {
	mr_gid_find "$1" "0000:0000:0000:0000:0000:ffff:$(echo "$2" |
		awk -F. '{ printf "%02x%02x:%02x%02x", $1, $2, $3, $4 }')"
}

# mr_nic_queues IF N: IF uses N combined queue pairs (ethtool -L when it
# does not yet); on failure prints why and returns 1.
mr_nic_queues() {
	mnq_cur=$(ethtool -l "$1" 2>/dev/null |
		awk '/^Current/ { c = 1 } c && /^Combined:/ { print $2 }')
	[ "$mnq_cur" = "$2" ] && return 0
	ethtool -L "$1" combined "$2" >/tmp/mnq.err 2>&1 && return 0
	echo "ethtool -L $1 combined $2 (now: ${mnq_cur:-unknown}): $(cat /tmp/mnq.err)"
	return 1
}

# mr_dev_attrs DEV "NAME=VALUE ...": write each device attribute of RDMA
# device DEV (/sys/class/infiniband/DEV/NAME) and read it back; on a
# refusal or another value read back, prints why and returns 1.
mr_dev_attrs() {
	for mda_a in $2; do
		mda_f=/sys/class/infiniband/$1/${mda_a%%=*}
		echo "${mda_a#*=}" >"$mda_f" 2>/tmp/mda.err &&
			[ "$(cat "$mda_f")" = "${mda_a#*=}" ] ||
			{ echo "$1 ${mda_a%%=*} = ${mda_a#*=}: $(cat /tmp/mda.err)"; return 1; }
	done
	return 0
}

# mr_wait_active DEV: wait up to 10 s for port 1 of DEV to be ACTIVE.
mr_wait_active() {
	mr_retry 50 0.2 mr_port_active "$1" || mr_fail "$1/1 not ACTIVE"
}

# mr_wait_peer: wait until the peer VM answers ping (both boot in parallel).
mr_wait_peer() {
	mr_retry 120 0.5 ping -c 1 -W 1 "$MR_PEER_IP" >/dev/null 2>&1 ||
		mr_fail "peer $MR_PEER_IP unreachable"
}

# mr_exchange NAME WORD: both VMs of a pair return only once the other
# arrived, each with the other's WORD (one word, no spaces) in MR_PEER_SAYS.
# The server listens, the client connects; each sends "NAME WORD". (Scenarios
# run under "sh -e": a failed attempt must not end the scenario.)
mr_exchange() {
	port=7700
	if [ "$MR_ROLE" = server ]; then
		got=$(echo "$1 $2" | timeout 300 nc -l -p $port || true)
	else
		got=""
		n=0
		while :; do
			got=$(echo "$1 $2" | timeout 5 nc "$MR_PEER_IP" $port 2>/dev/null || true)
			case "$got" in "$1 "*) break ;; esac
			n=$((n + 1))
			[ $n -gt 300 ] && break
			sleep 0.2
		done
	fi
	case "$got" in
	"$1 "*) MR_PEER_SAYS=${got#"$1 "} ;;
	*) mr_fail "barrier $1: got '$got'" ;;
	esac
}

# mr_barrier NAME: both VMs of a pair return only once the other arrived.
mr_barrier() {
	mr_exchange "$1" here
}

# mr_pair LISTENER CMD...: run a client/server tool (perftest, pingpong)
# between the two VMs. The VM whose role is LISTENER runs "CMD"; the other
# runs "CMD <peer address>", retrying until the listener is up. Each VM's
# status is its own side's.
mr_pair_seq=0
mr_pair() {
	listener=$1
	shift
	mr_pair_seq=$((mr_pair_seq + 1))
	mr_barrier "pair-$mr_pair_seq"
	if [ "$MR_ROLE" = "$listener" ]; then
		"$@"
	else
		mr_retry 40 0.5 "$@" "$MR_PEER_IP"
	fi
}

# Tracepoints of the metaroce subsystem (kernel/trace.h) in tracefs; an
# EVENT is a name without its "metaroce_" prefix (retx, pkt_tx, path).
mr_tracefs=/sys/kernel/tracing

# mr_trace_mount EVENT...: tracefs mounted and each EVENT's tracepoint in
# it, checked before a case so that a missing one fails there, not midway.
mr_trace_mount() {
	[ -f $mr_tracefs/trace ] || mount -t tracefs nodev $mr_tracefs ||
		mr_fail "cannot mount tracefs on $mr_tracefs"
	for mtr_ev in "$@"; do
		[ -d "$mr_tracefs/events/metaroce/metaroce_$mtr_ev" ] ||
			mr_fail "tracepoint metaroce_$mtr_ev missing from $mr_tracefs/events/metaroce"
	done
}

# mr_trace_on [-b KB] EVENT... [-f FILTER EVENT...]: an empty trace buffer
# (KB per CPU with -b, else as it was) recording these EVENTs from now on;
# the EVENTs after -f only when FILTER (an event filter expression) holds.
# Tracing is off while the events are set up: all of them start at once.
mr_trace_on() {
	echo 0 >$mr_tracefs/tracing_on
	if [ "${1:-}" = -b ]; then
		echo "$2" >$mr_tracefs/buffer_size_kb
		shift 2
	fi
	echo >$mr_tracefs/trace
	mtr_filter=""
	while [ $# -gt 0 ]; do
		if [ "$1" = -f ]; then
			mtr_filter=$2
			shift 2
			continue
		fi
		if [ -n "$mtr_filter" ]; then
			echo "$mtr_filter" >"$mr_tracefs/events/metaroce/metaroce_$1/filter"
		fi
		echo 1 >"$mr_tracefs/events/metaroce/metaroce_$1/enable"
		shift
	done
	echo 1 >$mr_tracefs/tracing_on
}

# mr_trace_mark TEXT...: a tracing_mark_write line TEXT in the trace.
mr_trace_mark() {
	echo "$*" >$mr_tracefs/trace_marker
}

# mr_trace_off FILE: tracing off, every metaroce event off and its filter
# cleared (a "0" in the subsystem's filter file), so that the next
# mr_trace_on inherits none; the buffer kept in FILE.
mr_trace_off() {
	echo 0 >$mr_tracefs/tracing_on
	echo 0 >$mr_tracefs/events/metaroce/enable
	echo 0 >$mr_tracefs/events/metaroce/filter
	cat $mr_tracefs/trace >"$1"
}
