# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Fault injection and device-counter helpers for end-to-end scenarios.
# In the guest this file is /mr/e2e/faults.sh (mkinitramfs.sh
# copies tests/e2e/lib/*.sh there); a "pair" scenario sources it after
# /mr/lib.sh. Busybox ash; every name here starts with fault_, fc_ or fv_.
#
# Devices (generic over the RDMA device type, so the plumbing is proven
# over Soft-RoCE too):
#   fault_device_up TYPE      metaroce (mr0, its udp_port) or rxe (rxe0, 4791) on
#                             eth0; sets FAULT_DEV, FAULT_UDP_PORT
#   fault_device_down
# Faults, on this VM's eth0 egress (each VM sets its own: both directions):
#   fault_link NETEM-ARGS...  netem on everything eth0 sends
#   fault_roce NETEM-ARGS...  netem on the RDMA UDP packets only (a prio
#                             qdisc and a u32 filter on the UDP destination
#                             port), so the TCP control channel of the tools
#                             and the harness's barriers are not affected
#   fault_clear               back to the default qdisc
# Counters ("rdma statistic show link DEV/1"):
#   fc_snap FILE              one "name=value" line per counter
#   fc_measure TAG BEFORE     delta since BEFORE on this VM, exchanged with
#                             the peer: fc_total (name=total over both VMs,
#                             my_name=, peer_name=) and a FAULT-COUNTERS log
#                             line per VM
#   fc_check TAG EXPR         EXPR is shell arithmetic over counter names
#                             (totals over both VMs, or my_/peer_ names), e.g.
#                             "retransmissions > 0"; a check naming a counter
#                             the device does not have fails, except on rxe
#                             (no SACK counters), where it is skipped and
#                             logged. Failures are collected in
#                             fc_failures (the scenario decides when to stop).
# mr-verify (userspace/tools), the server VM listening:
#   fv_start ARGS...          start it in the background on both VMs
#   fv_wait                   wait for it; fv_rc, output in /tmp/fv.out
#   fv_run ARGS...            both
#   fv_passed                 the run verified everything (rc 0 and PASS)
#   fv_passed_expect ST       the run ended with the expected status ST

: "${FAULT_IF:=eth0}"
FAULT_DEV=""
FAULT_UDP_PORT=""
fc_failures=""
fc_xchg_port=7741

# --- Devices ---------------------------------------------------------------

fault_device_up() {
	case "$1" in
	metaroce)
		modprobe metaroce || mr_fail "modprobe metaroce"
		FAULT_DEV=mr0
		FAULT_UDP_PORT=$(cat /sys/module/metaroce/parameters/udp_port) ||
			mr_fail "metaroce has no udp_port parameter"
		rdma link add mr0 type metaroce netdev "$FAULT_IF" ||
			mr_fail "rdma link add mr0"
		;;
	rxe)
		modprobe rdma_rxe || mr_fail "modprobe rdma_rxe"
		FAULT_DEV=rxe0
		FAULT_UDP_PORT=4791
		rdma link add rxe0 type rxe netdev "$FAULT_IF" ||
			mr_fail "rdma link add rxe0"
		;;
	*) mr_fail "fault_device_up: unknown device type '$1'" ;;
	esac
	FAULT_RDMA_TYPE=$1
	mr_retry 50 0.2 mr_port_active "$FAULT_DEV" ||
		mr_fail "$FAULT_DEV/1 not ACTIVE"
	mr_log "device $FAULT_DEV ($FAULT_RDMA_TYPE) on $FAULT_IF, RDMA UDP port $FAULT_UDP_PORT"
}

fault_device_down() {
	rdma link delete "$FAULT_DEV" || mr_fail "rdma link delete $FAULT_DEV"
	case "$FAULT_RDMA_TYPE" in
	metaroce) modprobe -r metaroce || mr_fail "modprobe -r metaroce" ;;
	rxe) modprobe -r rdma_rxe || mr_fail "modprobe -r rdma_rxe" ;;
	esac
}

# --- Faults ----------------------------------------------------------------

fault_clear() {
	tc qdisc del dev "$FAULT_IF" root 2>/dev/null || true
}

fault_link() {
	fault_clear
	tc qdisc add dev "$FAULT_IF" root handle 1: netem "$@" ||
		mr_fail "tc netem $*"
	mr_log "fault on $FAULT_IF egress (all packets): netem $*"
}

fault_roce() {
	fault_clear
	# Everything to band 2 (1:2), RDMA UDP to band 3 (1:3) under netem.
	tc qdisc add dev "$FAULT_IF" root handle 1: prio bands 3 \
		priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 || mr_fail "tc prio"
	tc qdisc add dev "$FAULT_IF" parent 1:3 handle 30: netem "$@" ||
		mr_fail "tc netem $*"
	tc filter add dev "$FAULT_IF" parent 1: protocol ip prio 1 u32 \
		match ip protocol 17 0xff match ip dport "$FAULT_UDP_PORT" 0xffff \
		flowid 1:3 || mr_fail "tc filter (IPv4)"
	tc filter add dev "$FAULT_IF" parent 1: protocol ipv6 prio 2 u32 \
		match ip6 protocol 17 0xff match ip6 dport "$FAULT_UDP_PORT" 0xffff \
		flowid 1:3 || mr_fail "tc filter (IPv6)"
	mr_log "fault on $FAULT_IF egress (UDP to port $FAULT_UDP_PORT only): netem $*"
}

# The qdisc statistics, one line (what netem actually did: sent, dropped).
fault_stats() {
	tc -s qdisc show dev "$FAULT_IF" 2>/dev/null | tr -s ' \n' '  ' | cut -c1-400
}

# The link flap: eth0 down for $1 seconds and up again. IPv4 addresses stay
# on a down link; the static IPv6 address does not (keep_addr_on_down is 0),
# so it is added again.
fault_flap() {
	ip link set "$FAULT_IF" down || mr_fail "ip link set down"
	sleep "$1"
	ip link set "$FAULT_IF" up || mr_fail "ip link set up"
	ip -6 addr add "$MR_MY_IP6/64" dev "$FAULT_IF" nodad 2>/dev/null || true
}

# --- Counters --------------------------------------------------------------

# fc_snap FILE: the device's counters, "name=value" per line.
fc_snap() {
	rdma statistic show link "$FAULT_DEV/1" >/tmp/fc.raw 2>&1 ||
		mr_fail "rdma statistic show link $FAULT_DEV/1: $(cat /tmp/fc.raw)"
	tr -s '[:space:]' '\n' </tmp/fc.raw | awk '
		prev ~ /^[a-z_][a-z0-9_]*$/ && $0 ~ /^[0-9]+$/ { print prev "=" $0; prev = ""; next }
		{ prev = $0 }' >"$1"
	[ -s "$1" ] || mr_fail "no counters parsed from: $(cat /tmp/fc.raw)"
}

# fc_exchange TAG LINE: send LINE to the peer VM; the peer's line goes to
# /tmp/fc.xchg.
fc_exchange() {
	fc_got=""
	if [ "$MR_ROLE" = server ]; then
		fc_got=$(echo "ctr:$1 $2" | timeout 120 nc -l -p $fc_xchg_port || true)
	else
		fc_i=0
		while :; do
			fc_got=$(echo "ctr:$1 $2" | timeout 5 nc "$MR_PEER_IP" $fc_xchg_port 2>/dev/null || true)
			case "$fc_got" in "ctr:$1 "*) break ;; esac
			fc_i=$((fc_i + 1))
			[ $fc_i -gt 300 ] && break
			sleep 0.2
		done
	fi
	case "$fc_got" in
	"ctr:$1 "*) echo "${fc_got#"ctr:$1 "}" >/tmp/fc.xchg ;;
	*) mr_fail "counter exchange $1: got '$fc_got'" ;;
	esac
}

# fc_measure TAG BEFORE: counters moved since the snapshot BEFORE, on both
# VMs. Writes /tmp/fc.total and logs one line per VM with the non-zero ones.
fc_measure() {
	fc_snap /tmp/fc.after
	awk -F= 'NR == FNR { b[$1] = $2; next } { print $1 "=" ($2 - b[$1]) }' \
		"$2" /tmp/fc.after >/tmp/fc.mine
	fc_exchange "$1" "$(tr '\n' ' ' </tmp/fc.mine)"
	tr ' ' '\n' </tmp/fc.xchg | sed '/^$/d' >/tmp/fc.peer
	awk -F= 'NR == FNR { m[$1] = $2; next } { p[$1] = $2 }
		END {
			for (k in m) { print "my_" k "=" m[k]; t[k] += m[k] }
			for (k in p) { print "peer_" k "=" p[k]; t[k] += p[k] }
			for (k in t) print k "=" t[k]
		}' /tmp/fc.mine /tmp/fc.peer >/tmp/fc.total
	echo "FAULT-COUNTERS $1 $MR_ROLE: $(grep -v '=0$' /tmp/fc.mine | tr '\n' ' ')"
	echo "FAULT-COUNTERS $1 peer: $(grep -v '=0$' /tmp/fc.peer | tr '\n' ' ')"
	fc_wire "$1"
}

# fc_wire TAG: packets one device sent that the other never received, each
# way (netem's drops, and the emulated link's own under host load).
fc_wire() {
	for fc_tx in tx_packets sent_pkts; do
		case "$fc_tx" in
		tx_packets) fc_rx=rx_packets ;;
		*) fc_rx=rcvd_pkts ;;
		esac
		fc_a=$(fc_value "my_$fc_tx")
		[ -n "$fc_a" ] || continue
		fc_b=$(fc_value "peer_$fc_rx")
		fc_c=$(fc_value "peer_$fc_tx")
		fc_d=$(fc_value "my_$fc_rx")
		echo "FAULT-WIRE $1 $MR_ROLE: to peer $fc_a sent, $fc_b received ($((fc_a - fc_b)) lost); from peer $fc_c sent, $fc_d received ($((fc_c - fc_d)) lost)"
		return 0
	done
}

# fc_value NAME: a value from the last fc_measure (empty if missing).
fc_value() {
	sed -n "s/^$1=//p" /tmp/fc.total | head -1
}

# fc_check TAG EXPR: EXPR over the counters of the last fc_measure.
fc_check() {
	fc_num=$(awk -v e="$2" -F= '
		{ v[$1] = $2 }
		END {
			out = ""; miss = ""
			while (match(e, /[A-Za-z_][A-Za-z0-9_]*/)) {
				name = substr(e, RSTART, RLENGTH)
				out = out substr(e, 1, RSTART - 1)
				if (name in v)
					out = out v[name]
				else {
					miss = miss " " name
					out = out "0"
				}
				e = substr(e, RSTART + RLENGTH)
			}
			out = out e
			if (miss != "")
				print "MISSING" miss
			else
				print out
		}' /tmp/fc.total)
	case "$fc_num" in
	MISSING*)
		# rxe lacks some of MetaRoCE's counters; on MetaRoCE a missing
		# (say, renamed) counter fails the check, never passes it.
		if [ "${FAULT_RDMA_TYPE:-}" = rxe ]; then
			mr_log "$1: counter check skipped, $FAULT_DEV has no${fc_num#MISSING}: $2"
			return 0
		fi
		mr_log "$1: COUNTER CHECK FAILED: $FAULT_DEV has no${fc_num#MISSING}: $2"
		;;
	*)
		# shellcheck disable=SC2004 # fc_num is an expression, not a number
		if [ "$(($fc_num))" -ne 0 ]; then
			mr_log "$1: counter check ok: $2  ($fc_num)"
			return 0
		fi
		mr_log "$1: COUNTER CHECK FAILED: $2  ($fc_num)"
		;;
	esac
	case " $fc_failures " in
	*" $1:counters "*) ;;
	*) fc_failures="$fc_failures $1:counters" ;;
	esac
}

# fc_fail TAG MSG: record a failure of case TAG and go on with the next case.
fc_fail() {
	echo "[$MR_ROLE] FAIL: $1: $2"
	case " $fc_failures " in
	*" $1 "*) ;;
	*) fc_failures="$fc_failures $1" ;;
	esac
}

# --- mr-verify ---------------------------------------------------------------

fv_seq=0
fv_pid=""

# fv_start ARGS...: mr-verify with ARGS on both VMs after a barrier; the
# server listens, the client connects to the server's IPv4 address (the tool
# retries the connection itself, so it is never re-run).
fv_start() {
	fv_seq=$((fv_seq + 1))
	mr_barrier "fv-$fv_seq"
	fv_t0=$(date +%s)
	if [ "$MR_ROLE" = server ]; then
		mr-verify "$@" >/tmp/fv.out 2>&1 &
	else
		mr-verify "$@" "$MR_PEER_IP" >/tmp/fv.out 2>&1 &
	fi
	fv_pid=$!
	# While it runs, every counter that is not zero and the QPs' transport
	# state (restrack.c), every second: after a failure they tell an idle
	# transport (nothing sent, nothing retried) from a retrying one, and
	# the peer's samples show what its responder did during the stall.
	: >/tmp/fv.mon
	rm -f /tmp/fv.qps /tmp/fv.qps.prev
	(
		while kill -0 "$fv_pid" 2>/dev/null; do
			rdma statistic show link "$FAULT_DEV/1" 2>/dev/null |
				tr -s '[:space:]' '\n' | awk -v t="$(($(date +%s) - fv_t0))" '
				prev ~ /^[a-z_0-9]+$/ && $0 ~ /^[0-9]+$/ && $0 != 0 && prev != "link" { o = o " " prev "=" $0 }
				{ prev = $0 }
				END { print t "s" o }' >>/tmp/fv.mon
			# The wire under it: a guest whose eth0 stops receiving
			# is an emulator stall, not a transport bug.
			echo "    eth0 rx_packets $(cat /sys/class/net/eth0/statistics/rx_packets) tx_packets $(cat /sys/class/net/eth0/statistics/tx_packets)" >>/tmp/fv.mon
			[ -f /tmp/fv.qps ] && mv /tmp/fv.qps /tmp/fv.qps.prev
			rdma -dd res show qp link "$FAULT_DEV/1" >/tmp/fv.qps 2>&1
			sleep 1
		done
	) &
	fv_mon=$!
}

fv_wait() {
	fv_rc=0
	wait "$fv_pid" || fv_rc=$?
	kill "$fv_mon" 2>/dev/null || true
	wait "$fv_mon" 2>/dev/null || true
	fv_secs=$(($(date +%s) - fv_t0))
	grep -v '^libibverbs: Warning' /tmp/fv.out | sed 's/^/  /'
	mr_log "mr-verify run $fv_seq: exit status $fv_rc after ${fv_secs}s"
	if [ "$fv_rc" -ne 0 ]; then
		mr_log "counters of $FAULT_DEV not zero, and of eth0, during the run (the last 8 samples, about 1 s apart):"
		tail -16 /tmp/fv.mon | sed 's/^/    /'
		mr_log "QPs of $FAULT_DEV (rdma -dd res show qp), about 1 s apart, the last while it ran:"
		cat /tmp/fv.qps.prev /tmp/fv.qps 2>/dev/null | sed 's/^/    /'
	fi
}

fv_run() {
	fv_start "$@"
	fv_wait
}

fv_passed() {
	[ "$fv_rc" -eq 0 ] && grep -q 'PASS: ops=.* msgs=[1-9]' /tmp/fv.out
}

fv_passed_expect() {
	[ "$fv_rc" -eq 0 ] &&
		grep -q "PASS: run ended with the expected completion status $1" /tmp/fv.out
}

# The PASS summary's bytes= and MB/s, for the case log.
fv_summary() {
	sed -n 's/.*PASS: .* msgs=\([0-9]*\) .*bytes=\([0-9]*\) .*, \([0-9.]* MB\/s\).*/msgs=\1 bytes=\2 \3/p' /tmp/fv.out | head -1
}
