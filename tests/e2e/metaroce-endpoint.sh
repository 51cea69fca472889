# topology: pair
# timeout: 300
# The user-space endpoint (userspace/endpoint: libmrue, the tool mr-ue)
# against the kernel device: the server VM loads the module and creates
# mr0 on eth0, the client VM does not load it and runs mr-ue on UDP port
# 4794 of its own address (the module's default udp_port, where the kernel
# sends every packet: MR-ENC-1, MR-ENC-11; the server's port is read from
# the module, the client's is the spec's default, and the two must agree,
# so a module and an endpoint built with different defaults fail here).
# Neither receiver may validate the UDP source port (MR-ENC-2): the
# kernel's carry its path entropy (0xC000 | entropy), the endpoint's is
# its bound port 4794 (mrue.h: one socket, one path).
# mr-ue-verbs runs the same verified workload on mr0 through libibverbs
# and the project's provider (userspace/endpoint/mr-ue-chan.h: the
# handshake; mr-ue-load.h: the workload): each side posts every RC opcode
# (SEND, SEND_IMM, WRITE, WRITE_IMM, READ, FETCH_ADD, CMP_SWAP) to the
# other, so each is requester and responder at once, and checks every
# byte, every completion and every atomic's original value, and at the
# end what the peer left in its region.
#
#   clean    no fault; mr-ue listens, mr-ue-verbs connects
#   loss     netem on both VMs' eth0 egress (both directions, every packet):
#            2% random loss, 25% of the packets sent at once and the rest
#            4 ms late (reordering); mr-ue listens
#   loss-v   the same, mr-ue-verbs listens and mr-ue connects (bound to
#            UDP 4794 with --udp-port)
#
# Each case: both tools exit 0 (a tool exits 0 only if it verified
# everything and the peer said it did too) and each side's result line
# shows every opcode verified at least once. On the server the device's
# counters (rdma statistic) must show packets both ways, no ICRC, malformed
# or version drop (a packet of the endpoint the kernel could not take), and
# under loss retransmissions (MR-REL-1); the endpoint must show
# retransmissions under loss too, no packet of mr0's dropped, and (both
# implement spec revision 1.1) its QP settled with mr0's on the common
# capability set CORE|CC (MR-VER-13: the endpoint announces Core and CC,
# mr0 Full). Without
# faults mr0 retransmits at most 5% of what it sent, under loss under
# half. 2800 messages a side (400 of each opcode, up to 4 KiB: up to 4
# packets at MTU 1024) make a loss of every opcode's packets, and its
# retransmission, all but certain at 2%, but which opcode was resent is
# not counted anywhere and so not asserted. The harness fails the run on
# any kernel report in either guest's log; the server checks its log
# itself at the end as well.

# shellcheck source=lib/faults.sh
. /mr/e2e/faults.sh
# shellcheck source=lib/verbs.sh
. /mr/e2e/verbs.sh

: "${EP_COUNT:=2800}"
: "${EP_SIZE:=4096}"
EP_TCP_PORT=7790	# the handshake when mr-ue-verbs listens
# Local ACK timeout 16 on both sides (T_verbs 268 ms, a retry budget of
# about 2 s): a stalled emulated VM must not exhaust it.
EP_QP_TIMEOUT=16
EP_TOOL_TIMEOUT=$((150 * ${MR_SLOWDOWN:-1}))

for t in mr-ue mr-ue-verbs; do
	command -v $t >/dev/null ||
		mr_fail "$t is not in the guest (build userspace/endpoint first)"
done

if [ "$MR_ROLE" = server ]; then
	fault_device_up metaroce
	EP_UDP_PORT=$FAULT_UDP_PORT
else
	# The endpoint alone: no module, nothing of the kernel's on the port.
	[ ! -d /sys/module/metaroce ] || mr_fail "metaroce is loaded on the endpoint's VM"
	EP_UDP_PORT=4794	# MR-ENC-11: the default; mr0's must be it too
fi
mr_wait_peer
# Both must agree on the port the kernel sends to.
mr_exchange ep-port "$EP_UDP_PORT"
[ "$MR_PEER_SAYS" = "$EP_UDP_PORT" ] ||
	mr_fail "UDP port: $EP_UDP_PORT here, $MR_PEER_SAYS on the peer"

# ep_counters FILE: mr0's counters, name=value per line (server only).
ep_counters() {
	fc_snap "$1"
}

# ep_deltas: each counter's move since /tmp/ep.before as $d_<name>, and
# the ones that moved in the log. A counter this check needs and mr0 does
# not have fails the case (ep_need), it is never skipped.
ep_deltas() {
	ep_counters /tmp/ep.after
	awk -F= 'NR == FNR { b[$1] = $2; next } { print "d_" $1 "=" ($2 - b[$1]) }' \
		/tmp/ep.before /tmp/ep.after >/tmp/ep.delta
	mr_log "$ep_name: mr0 counters that moved: $(grep -v '=0$' /tmp/ep.delta | sed 's/^d_//' | tr '\n' ' ')"
	for ed_n in tx_packets rx_packets retransmissions icrc_drops \
		malformed_drops version_drops; do
		grep -q "^d_$ed_n=" /tmp/ep.delta ||
			mr_fail "$ep_name: mr0 has no counter $ed_n"
	done
	# shellcheck source=/dev/null # d_<name>=<delta> lines
	. /tmp/ep.delta
}

# ep_need CONDITION WHAT: CONDITION (shell arithmetic) holds, or the case
# fails saying WHAT.
ep_need() {
	# shellcheck disable=SC2004 # an expression over $d_ values
	[ $(($1)) -ne 0 ] || mr_fail "$ep_name: $2 ($1)"
	mr_log "$ep_name: ok: $2"
}

# ep_tool LISTENER ARGS...: this VM's tool (the server's mr-ue-verbs, the
# client's mr-ue) with ARGS; LISTENER (server or client) listens, the
# other connects, retrying only while the listener is not up yet. Output
# in /tmp/ep.out, exit status in $ep_rc.
ep_tool() {
	et_l=$1
	shift
	if [ "$MR_ROLE" = server ]; then
		set -- mr-ue-verbs -d "$FAULT_DEV" --udp-port "$EP_UDP_PORT" "$@"
	else
		set -- mr-ue --bind "$MR_MY_IP" "$@"
	fi
	# mr-ue listens on its UDP port's number, mr-ue-verbs on its own.
	et_lport=$EP_TCP_PORT
	[ "$et_l" = server ] || et_lport=$EP_UDP_PORT
	set -- "$@" --qp-timeout $EP_QP_TIMEOUT --timeout $EP_TOOL_TIMEOUT
	ep_rc=0
	if [ "$MR_ROLE" = "$et_l" ]; then
		timeout $((EP_TOOL_TIMEOUT + 30)) "$@" --listen "$et_lport" \
			>/tmp/ep.out 2>&1 || ep_rc=$?
		return 0
	fi
	[ "$MR_ROLE" = server ] || set -- "$@" --udp-port "$EP_UDP_PORT"
	et_n=0
	while :; do
		ep_rc=0
		timeout $((EP_TOOL_TIMEOUT + 30)) "$@" --count "$EP_COUNT" \
			--size "$EP_SIZE" --connect "$MR_PEER_IP:$et_lport" \
			>/tmp/ep.out 2>&1 || ep_rc=$?
		grep -q 'cannot connect to' /tmp/ep.out || break
		et_n=$((et_n + 1))
		[ $et_n -lt 100 ] || break
		sleep 0.3
	done
}

# ep_case NAME LISTENER [NETEM ARGS...]: one run of the workload.
ep_case() {
	ep_name=$1
	ec_l=$2
	shift 2
	mr_log "=== case $ep_name: ${*:-no fault}, $ec_l listens"
	mr_barrier "ep-$ep_name"
	if [ $# -gt 0 ]; then
		fault_link "$@"
	fi
	mr_barrier "ep-$ep_name-faults"
	[ "$MR_ROLE" = server ] && ep_counters /tmp/ep.before
	ec_t0=$(date +%s)
	ep_tool "$ec_l"
	ec_secs=$(($(date +%s) - ec_t0))
	mr_log "$ep_name: qdisc: $(fault_stats)"
	fault_clear
	sed 's/^/  | /' /tmp/ep.out
	mr_log "$ep_name: exit status $ep_rc after ${ec_secs}s"
	[ $ep_rc -eq 0 ] || mr_fail "$ep_name: the tool failed (exit status $ep_rc)"
	ec_line=$(grep -E '^mr-ue(-verbs)? (server|client): ok ' /tmp/ep.out) ||
		mr_fail "$ep_name: no ok result line"
	for ec_op in send send_imm write write_imm read fetch_add cmp_swap; do
		echo "$ec_line" | grep -Eq " $ec_op=[1-9][0-9]*( |;)" ||
			mr_fail "$ep_name: no $ec_op verified"
	done
	# shellcheck disable=SC2154 # d_*: set by ep_deltas
	if [ "$MR_ROLE" = server ]; then
		ep_deltas
		ep_need "$d_tx_packets > 0 && $d_rx_packets > 0" \
			"mr0 sent and received packets"
		ep_need "$d_icrc_drops + $d_malformed_drops + $d_version_drops == 0" \
			"mr0 dropped no packet of the endpoint as corrupt or malformed"
		if [ $# -eq 0 ]; then
			# No netem: what the emulated link itself loses and
			# spurious RTOs of a stalled VM (the same bound as
			# metaroce-faults' control case), not a storm.
			ep_need "$d_retransmissions * 100 <= $d_tx_packets * 5 + 100" \
				"mr0 retransmitted at most 5% without faults"
		else
			ep_need "$d_retransmissions > 0" "mr0 retransmitted under loss"
			# Selective repeat: lost packets, not windows (MR-REL-1).
			ep_need "$d_retransmissions * 2 <= $d_tx_packets" \
				"mr0 retransmitted under half of what it sent"
		fi
	else
		# The endpoint took every packet of the kernel's (drops: decode,
		# ICRC, QPN, source, payload, size; mr-ue.c).
		echo "$ec_line" | grep -q ' drops=0 ' ||
			mr_fail "$ep_name: the endpoint dropped packets of mr0"
		# Both implement revision 1.1: the endpoint (Core and CC)
		# settled with mr0 (Full) on CORE|CC (MR-VER-13).
		echo "$ec_line" | grep -q ' hello=settled common=0x5' ||
			mr_fail "$ep_name: the endpoint did not settle on CORE|CC with mr0"
		ec_retx=$(echo "$ec_line" | sed -n 's/.* retx=\([0-9]*\).*/\1/p')
		[ $# -eq 0 ] || [ "${ec_retx:-0}" -gt 0 ] ||
			mr_fail "$ep_name: the endpoint retransmitted nothing under loss"
	fi
	mr_log "$ep_name: ok"
}

ep_case clean client
ep_case loss client loss random 2% delay 4ms reorder 25% 50%
ep_case loss-v server loss random 2% delay 4ms reorder 25% 50%

mr_barrier ep-end
if [ "$MR_ROLE" = server ]; then
	fault_device_down
	vt_dmesg_clean "the endpoint cases"
else
	[ ! -d /sys/module/metaroce ] || mr_fail "metaroce got loaded on the endpoint's VM"
fi
mr_log "endpoint interop: ok"
