# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A multipath fabric in one VM, for "# topology: single" scenarios: hosts,
# two leaf routers and four spine routers, each a network namespace joined
# by veth pairs. In the guest this file is /mr/e2e/fabric.sh (mkinitramfs.sh
# copies tests/e2e/lib/*.sh there); source it after /mr/lib.sh. Busybox
# ash; every name here starts with fab_ or FAB_.
#
#   left hosts                                                 right host
#   ha  10.1.1.2 ---+            +-- s1 --+
#   h1  10.1.2.2 ---+            +-- s2 --+
#   ...             +--- la -----+        +----- lb --- hb 10.2.0.2
#   h<N-1> ...   ---+   (ECMP)   +-- s3 --+    (ECMP)
#                                +-- s4 --+
#
#   host X: its interface "fab0" (10.1.I.2/24, I = its position; hb
#           10.2.0.2/24), default route via its leaf; "mgmt" (172.31.I.2,
#           hb 172.31.200.2) to the root namespace, which routes between
#           the mgmt links: the tools' TCP control channels go there, so
#           a black-holed spine never cuts them
#   la:     "X" to host X (10.1.I.1), "s1".."s4" to the spines
#           (10.10.K.1); route to 10.2.0.0/24 multipath over s1..s4
#   lb:     "hb" (10.2.0.1), "s1".."s4" (10.20.K.1); route to
#           10.1.0.0/16 multipath over s1..s4
#   sK:     "la" (10.10.K.2), "lb" (10.20.K.2), a route each way
#
# The leaves hash with fib_multipath_hash_policy=1 (L4: addresses, protocol
# and ports), so the UDP source port of a packet (MetaRoCE: 0xC000 |
# entropy of its path, MR-ENC-2) picks its spine; a given entropy always
# takes the same spine, which one depends on the kernel's boot-time hash
# key. The leaf egresses towards the spines (la sK forward, lb sK reverse)
# are each shaped to $FAB_RATE by tbf, with a one-queue fq_codel under it
# marking CE above $FAB_CE sojourn time: the spines, not the one slow
# vCPU, are the bottleneck, and a congested spine marks ECN. One queue
# (flows 1), first in first out, as a switch port's traffic class: with
# fq_codel's default 1024 flow queues served round robin, each path of
# each QP had its own queue, so at 4 Mbit/s with 32 paths backlogged a
# path's next packet waited ~65 ms per packet queued before it, and the
# paths of one QP saw RTTs tens of ms apart, which no switch does. The
# queue holds $FAB_QUEUE ms of its rate (at least 4 packets of 1100
# bytes) and drops from its head beyond that, one packet at a time: a
# switch port's buffer is a few round trips deep, and fq_codel's default
# (10240 packets, marking rather than dropping ECN-capable packets) let
# a burst of READ responses queue 60-170 ms on one 8 Mbit/s spine, so
# the paths on it lagged the others by more than MR-MP-8's dead_rtos x
# RTO_base.
#
#   fab_up N             N left hosts (default 1): FAB_LEFT="ha h1 ..
#                        h<N-1>", and hb
#   fab_down             delete every namespace
#   fab_teardown         delete the hosts' devices (mr_HOST), every
#                        namespace, unload the module and check the
#                        kernel log (vt_dmesg_clean)
#   fab_dev HOST         "rdma link add mr_HOST type metaroce netdev fab0"
#                        from HOST's namespace (the netdev is looked up
#                        there; with the rdma subsystem in shared netns
#                        mode the device is visible everywhere); waits for
#                        ACTIVE; prints nothing. FAB_GID_HOST: its RoCE v2
#                        IPv4 GID index (fab_gid HOST). FAB_MR_ATTRS
#                        ("ack_reorder=1 ..."): device attributes written
#                        once the device is ACTIVE (make bench-fabric's
#                        BENCH_MR_ATTRS)
#   fab_in HOST CMD...   run CMD in HOST's namespace
#   fab_ip HOST          HOST's fabric address; fab_mgmt HOST its mgmt one
#   fab_path_bytes DIR   "b1 b2 b3 b4": bytes sent to each spine, from la's
#                        spine links (DIR fwd) or lb's (DIR rev)
#   fab_blackhole K DIR on|off
#                        drop every packet on spine K's link in direction
#                        DIR (fwd: la->sK, rev: lb->sK), a tc filter on the
#                        leaf's egress: routing does not change
#   fab_slow K [RATE]    spine K's links (both directions) shaped to RATE
#                        (default a quarter of $FAB_RATE)
#   FAB_RATE=none        (before fab_up or fab_clear) no shaping at all
#   FAB_QUEUE=MS         (before fab_up) each shaped queue's depth in ms
#                        of its rate (default 12)
#   fab_ecmp "K ..."     the leaves' multipath routes over these spines only
#   fab_bottleneck RATE [CE]
#                        lb->hb shaped to RATE with the CE-marking queue,
#                        200 ms deep, marking above CE (default $FAB_CE)
#                        (incast); "off" removes it
#   fab_clear            no black hole, every spine at $FAB_RATE, all four
#                        in the routes, no bottleneck
#   fab_drops K DIR      packets the black hole of spine K dropped so far
#   fab_queue_drops DIR  "d1 d2 d3 d4": packets the spine queues (the
#                        fq_codel under each tbf) of la (DIR fwd) or lb
#                        (DIR rev) dropped so far: over their depth, or
#                        not ECN-capable above their CE threshold
#   fab_rate_Bps RATE    tc's "8mbit" (or kbit, gbit) in bytes per second
#   fab_client HOST OUT CMD...
#                        run a perftest client CMD in HOST's namespace
#                        into OUT, again while its server is not up yet
#                        (vt_connect of verbs.sh, sourced before this);
#                        then "rc N" (its exit status) is OUT's last line
#   fab_rx_psns HOST     "QPN PSN" per RC QP of mr_HOST with responder
#                        state (drv_rx_cum_psn)
#   fab_rx_window HOST S A B
#                        fab_rx_psns of mr_HOST into file A, S seconds
#                        later into B; prints "W RA RB": W the seconds
#                        between the two, from the middle of one read to
#                        the middle of the other (a read takes RA, RB:
#                        hundreds of ms under emulation, which timing
#                        from the start of A to the end of B counted
#                        once too often, 3-5% of a 12 s window)
#   fab_wait_moving HOST N S
#                        wait until N of mr_HOST's RC QPs deliver (their
#                        PSNs move second to second), at most S seconds;
#                        false if they did not
#   fab_qp_goodput A B SECONDS MTU
#                        from two fab_rx_psns snapshots SECONDS apart:
#                        "k sum min jain x1 .. xk", the goodput (B/s) of
#                        the k QPs in both, together, the slowest, and
#                        Jain's index (sum x)^2 / (k sum x^2)

: "${FAB_RATE:=8mbit}"
: "${FAB_CE:=4ms}"
: "${FAB_QUEUE:=12}"
FAB_SPINES="1 2 3 4"
FAB_LEFT=""
FAB_NS=""

fab_in() {
	fab_inh=$1
	shift
	ip netns exec "$fab_inh" "$@"
}

# fab_idx HOST: the third octet of a left host's addresses (ha 1, hN N+1).
fab_idx() {
	case "$1" in
	ha) echo 1 ;;
	h[0-9]*) echo $((${1#h} + 1)) ;;
	*) mr_fail "fab_idx: not a left host: $1" ;;
	esac
}

fab_ip() {
	case "$1" in
	hb) echo 10.2.0.2 ;;
	*) echo "10.1.$(fab_idx "$1").2" ;;
	esac
}

fab_mgmt() {
	case "$1" in
	hb) echo 172.31.200.2 ;;
	*) echo "172.31.$(fab_idx "$1").2" ;;
	esac
}

# fab_ns NAME: a namespace with lo up and, for routers, forwarding on.
fab_ns() {
	ip netns add "$1" || mr_fail "ip netns add $1"
	FAB_NS="$FAB_NS $1"
	fab_in "$1" ip link set lo up
	fab_sysctl "$1" ipv4/conf/all/rp_filter 0
	fab_sysctl "$1" ipv4/conf/default/rp_filter 0
}

# fab_sysctl NS KEY VALUE: /proc/sys/net/KEY in namespace NS.
fab_sysctl() {
	fab_in "$1" sh -c "echo $3 >/proc/sys/net/$2" ||
		mr_fail "$1: net/$2 = $3"
}

fab_router() {
	fab_ns "$1"
	fab_sysctl "$1" ipv4/ip_forward 1
	fab_sysctl "$1" ipv4/fib_multipath_hash_policy 1
}

# fab_link NS1 IF1 ADDR1 NS2 IF2 ADDR2: a veth pair, addresses /24, up.
fab_link() {
	ip link add fabtmp1 type veth peer name fabtmp2 ||
		mr_fail "ip link add veth ($1 $2 - $4 $5)"
	ip link set fabtmp1 netns "$1" name "$2"
	ip link set fabtmp2 netns "$4" name "$5"
	fab_in "$1" ip addr add "$3/24" dev "$2"
	fab_in "$4" ip addr add "$6/24" dev "$5"
	fab_in "$1" ip link set "$2" up
	fab_in "$4" ip link set "$5" up
}

# fab_shape NS IF RATE [MS [CE [BURST]]]: tbf at RATE with a bucket of
# BURST bytes (default 6000), one FIFO queue under it (fq_codel with one
# flow queue) marking CE above $FAB_CE of sojourn time, holding MS
# (default $FAB_QUEUE) ms of RATE; RATE "none": the default qdisc (no
# shaping, for calibration).  With CE the queue marks above CE, and
# CoDel's own target (5 ms: it marks ECN-capable packets once the queue
# stayed above it for 100 ms) moves up to CE too, or CoDel would still
# mark from 5 ms.
fab_shape() {
	if [ "$3" = none ]; then
		fab_in "$1" tc qdisc del dev "$2" root 2>/dev/null || true
		return 0
	fi
	fab_in "$1" tc qdisc replace dev "$2" root handle 1: tbf rate "$3" \
		burst "${6:-6000}" latency 200ms || mr_fail "tbf on $1 $2"
	# fq_codel takes its number of flow queues only when created
	fab_in "$1" tc qdisc del dev "$2" parent 1:1 handle 10: 2>/dev/null || true
	fab_q=$(($(fab_rate_Bps "$3") * ${4:-$FAB_QUEUE} / 1000 / 1100))
	[ "$fab_q" -ge 4 ] || fab_q=4
	# shellcheck disable=SC2046 # CoDel's target and interval, or nothing
	fab_in "$1" tc qdisc add dev "$2" parent 1:1 handle 10: \
		fq_codel flows 1 limit "$fab_q" drop_batch 1 ecn \
		ce_threshold "${5:-$FAB_CE}" \
		$([ -n "${5:-}" ] && echo "target $5 interval 1s") ||
		mr_fail "fq_codel on $1 $2"
}

# fab_mgmt_link HOST: HOST's mgmt link to the root namespace.
fab_mgmt_link() {
	fab_m=$(fab_mgmt "$1")
	ip link add "m-$1" type veth peer name fabtmp2 || mr_fail "mgmt veth $1"
	ip link set fabtmp2 netns "$1" name mgmt
	ip addr add "${fab_m%.2}.1/24" dev "m-$1"
	ip link set "m-$1" up
	fab_in "$1" ip addr add "$fab_m/24" dev mgmt
	fab_in "$1" ip link set mgmt up
	fab_in "$1" ip route add 172.31.0.0/16 via "${fab_m%.2}.1"
}

fab_up() {
	fab_n=${1:-1}
	for fab_m in veth sch_tbf sch_netem sch_ingress cls_matchall act_gact; do
		modprobe "$fab_m" || mr_fail "modprobe $fab_m"
	done
	echo 1 >/proc/sys/net/ipv4/ip_forward
	FAB_LEFT=ha
	fab_i=1
	while [ "$fab_i" -lt "$fab_n" ]; do
		FAB_LEFT="$FAB_LEFT h$fab_i"
		fab_i=$((fab_i + 1))
	done
	fab_router la
	fab_router lb
	for fab_k in $FAB_SPINES; do
		fab_router "s$fab_k"
		fab_link la "s$fab_k" "10.10.$fab_k.1" "s$fab_k" la "10.10.$fab_k.2"
		fab_link lb "s$fab_k" "10.20.$fab_k.1" "s$fab_k" lb "10.20.$fab_k.2"
		fab_in "s$fab_k" ip route add 10.1.0.0/16 via "10.10.$fab_k.1"
		fab_in "s$fab_k" ip route add 10.2.0.0/16 via "10.20.$fab_k.1"
		fab_shape la "s$fab_k" "$FAB_RATE"
		fab_shape lb "s$fab_k" "$FAB_RATE"
	done
	for fab_h in $FAB_LEFT hb; do
		fab_ns "$fab_h"
		fab_a=$(fab_ip "$fab_h")
		if [ "$fab_h" = hb ]; then
			fab_link hb fab0 "$fab_a" lb hb "${fab_a%.2}.1"
		else
			fab_link "$fab_h" fab0 "$fab_a" la "$fab_h" "${fab_a%.2}.1"
		fi
		fab_in "$fab_h" ip route add default via "${fab_a%.2}.1"
		fab_mgmt_link "$fab_h"
	done
	fab_ecmp "$FAB_SPINES"
	# Every leaf reaches every host before anything uses the fabric.
	for fab_h in $FAB_LEFT; do
		mr_retry 20 0.2 fab_in "$fab_h" ping -c 1 -W 1 10.2.0.2 >/dev/null ||
			mr_fail "fabric: $fab_h cannot reach hb"
		mr_retry 20 0.2 fab_in "$fab_h" ping -c 1 -W 1 172.31.200.2 >/dev/null ||
			mr_fail "mgmt: $fab_h cannot reach hb"
	done
	mr_log "fabric up: left hosts $FAB_LEFT, right host hb, spines s1..s4 at $FAB_RATE each, CE above $FAB_CE, queues of $FAB_QUEUE ms"
}

fab_down() {
	for fab_x in $FAB_NS; do
		ip netns del "$fab_x" 2>/dev/null || true
	done
	for fab_h in $FAB_LEFT hb; do
		ip link del "m-$fab_h" 2>/dev/null || true
	done
	FAB_NS=""
}

# fab_ecmp "K ...": the leaves' multipath routes over these spines.
fab_ecmp() {
	fab_la=""
	fab_lb=""
	for fab_k in $1; do
		fab_la="$fab_la nexthop via 10.10.$fab_k.2 dev s$fab_k"
		fab_lb="$fab_lb nexthop via 10.20.$fab_k.2 dev s$fab_k"
	done
	# shellcheck disable=SC2086 # word lists
	fab_in la ip route replace 10.2.0.0/24 $fab_la ||
		mr_fail "la: ip route replace 10.2.0.0/24 $fab_la"
	# shellcheck disable=SC2086
	fab_in lb ip route replace 10.1.0.0/16 $fab_lb ||
		mr_fail "lb: ip route replace 10.1.0.0/16 $fab_lb"
}

fab_dev() {
	fab_in "$1" rdma link add "mr_$1" type metaroce netdev fab0 ||
		mr_fail "rdma link add mr_$1 (netdev fab0 of $1)"
	mr_retry 50 0.2 sh -c "rdma link show mr_$1/1 | grep -q 'state ACTIVE'" ||
		mr_fail "mr_$1/1 not ACTIVE"
	if [ -n "${FAB_MR_ATTRS:-}" ]; then
		fab_why=$(mr_dev_attrs "mr_$1" "$FAB_MR_ATTRS") || mr_fail "$fab_why"
		mr_log "mr_$1: $FAB_MR_ATTRS"
	fi
}

# fab_gid HOST: the GID index of mr_HOST's RoCE v2 GID for HOST's IPv4
# address.
fab_gid() {
	mr_gid_index "mr_$1" "$(fab_ip "$1")" ||
		mr_fail "mr_$1: no RoCE v2 GID for $(fab_ip "$1")"
}

# fab_leaf DIR: the leaf whose spine links carry direction DIR.
fab_leaf() {
	case "$1" in
	fwd) echo la ;;
	rev) echo lb ;;
	*) mr_fail "fabric direction '$1': fwd or rev" ;;
	esac
}

fab_path_bytes() {
	fab_in "$(fab_leaf "$1")" sh -c 'for k in 1 2 3 4; do
		cat /sys/class/net/s$k/statistics/tx_bytes; done' | tr '\n' ' ' |
		sed 's/ $//'
}

fab_blackhole() {
	fab_l=$(fab_leaf "$2")
	case "$3" in
	on)
		fab_in "$fab_l" tc qdisc replace dev "s$1" clsact ||
			mr_fail "clsact on $fab_l s$1"
		fab_in "$fab_l" tc filter replace dev "s$1" egress prio 1 \
			handle 1 matchall action drop ||
			mr_fail "black hole on $fab_l s$1"
		mr_log "black hole: spine $1, $2 ($fab_l -> s$1)"
		;;
	off)
		fab_in "$fab_l" tc qdisc del dev "s$1" clsact 2>/dev/null || true
		mr_log "black hole lifted: spine $1, $2"
		;;
	*) mr_fail "fab_blackhole: on or off" ;;
	esac
}

fab_drops() {
	fab_in "$(fab_leaf "$2")" tc -s filter show dev "s$1" egress 2>/dev/null |
		awk '/Sent/ { print $4; exit }' | grep . || echo 0
}

fab_queue_drops() {
	for fab_k in 1 2 3 4; do
		fab_in "$(fab_leaf "$1")" tc -s qdisc show dev "s$fab_k" |
			awk '/^qdisc/ { q = $2 } q == "fq_codel" && /dropped/ {
				sub(/.*dropped /, ""); sub(/,.*/, ""); print; n = 1; exit }
				END { if (!n) print 0 }'
	done | tr '\n' ' ' | sed 's/ $//'
}

fab_slow() {
	fab_r=${2:-}
	if [ -z "$fab_r" ]; then
		fab_r=$(echo "$FAB_RATE" | awk '{ n = $0 + 0; sub(/^[0-9.]+/, ""); print n / 4 $0 }')
	fi
	fab_shape la "s$1" "$fab_r"
	fab_shape lb "s$1" "$fab_r"
	mr_log "spine $1 slowed to $fab_r"
}

fab_bottleneck() {
	if [ "$1" = off ]; then
		fab_in lb tc qdisc del dev hb root 2>/dev/null || true
	else
		# incast: a queue for every sender's window (200 ms); a
		# bucket of 40 ms of the rate, so that a late tbf timer (the
		# vCPU ran something else) costs the link no capacity, as
		# long as its queue holds packets: a switch port does not
		# stall
		fab_bn_b=$(($(fab_rate_Bps "$1") * 40 / 1000))
		[ "$fab_bn_b" -ge 6000 ] || fab_bn_b=6000
		fab_shape lb hb "$1" 200 "${2:-}" "$fab_bn_b"
		mr_log "bottleneck lb -> hb: $1, CE above ${2:-$FAB_CE}, a queue of 200 ms"
	fi
}

fab_clear() {
	for fab_k in $FAB_SPINES; do
		fab_in la tc qdisc del dev "s$fab_k" clsact 2>/dev/null || true
		fab_in lb tc qdisc del dev "s$fab_k" clsact 2>/dev/null || true
		fab_shape la "s$fab_k" "$FAB_RATE"
		fab_shape lb "s$fab_k" "$FAB_RATE"
	done
	fab_ecmp "$FAB_SPINES"
	fab_bottleneck off
}

fab_rx_psns() {
	rdma -dd res show qp link "mr_$1/1" 2>/dev/null | grep 'type RC' |
		awk '{ q = ""; p = "";
			for (i = 1; i < NF; i++) {
				if ($i == "lqpn") q = $(i + 1);
				if ($i == "drv_rx_cum_psn") p = $(i + 1);
			}
			if (q != "" && p != "") print q, p }'
}

fab_rx_window() {
	fab_a0=$(cut -d' ' -f1 /proc/uptime)
	fab_rx_psns "$1" >"$3"
	fab_a1=$(cut -d' ' -f1 /proc/uptime)
	sleep "$2"
	fab_b0=$(cut -d' ' -f1 /proc/uptime)
	fab_rx_psns "$1" >"$4"
	fab_b1=$(cut -d' ' -f1 /proc/uptime)
	echo "$fab_a0 $fab_a1 $fab_b0 $fab_b1" |
		awk '{ printf "%.3f %.2f %.2f\n", ($3 + $4 - $1 - $2) / 2, $2 - $1, $4 - $3 }'
}

fab_wait_moving() {
	fab_rx_psns "$1" >/tmp/fab-p0
	fab_t=0
	while [ $fab_t -lt "$3" ]; do
		sleep 1
		fab_t=$((fab_t + 1))
		fab_rx_psns "$1" >/tmp/fab-p1
		fab_n=$(awk 'NR == FNR { p[$1] = $2; next } ($1 in p) && $2 != p[$1] { n++ } END { print n + 0 }' /tmp/fab-p0 /tmp/fab-p1)
		cp /tmp/fab-p1 /tmp/fab-p0
		[ "$fab_n" -ge "$2" ] && return 0
	done
	mr_log "only $fab_n of $2 QPs of mr_$1 delivering after ${3}s"
	return 1
}

fab_qp_goodput() {
	awk -v dt="$3" -v mtu="$4" '
		NR == FNR { a[$1] = $2; next }
		($1 in a) {
			d = $2 - a[$1]; if (d < 0) d += 16777216
			x[++k] = d * mtu / dt
		}
		END {
			s = 0; s2 = 0; m = -1
			for (i = 1; i <= k; i++) {
				s += x[i]; s2 += x[i] * x[i]; l = l sprintf(" %.0f", x[i])
				if (m < 0 || x[i] < m) m = x[i]
			}
			j = (k && s2) ? s * s / (k * s2) : 0
			printf "%d %.0f %.0f %.3f%s\n", k, s, (m < 0 ? 0 : m), j, l
		}' "$1" "$2"
}

fab_rate_Bps() {
	echo "$1" | awk '{ n = $0 + 0; u = $0; sub(/^[0-9.]+/, "", u);
		m = u == "mbit" ? 1000000 : u == "kbit" ? 1000 : u == "gbit" ? 1000000000 : 1;
		printf "%d\n", n * m / 8 }'
}

fab_client() {
	fab_ch=$1 fab_co=$2
	shift 2
	fab_crc=0
	vt_connect "$fab_co" fab_in "$fab_ch" "$@" || fab_crc=$?
	echo "rc $fab_crc" >>"$fab_co"
}

fab_teardown() {
	for fab_h in $FAB_LEFT hb; do
		rdma link delete "mr_$fab_h" || mr_fail "rdma link delete mr_$fab_h"
	done
	fab_down
	modprobe -r metaroce || mr_fail "modprobe -r metaroce"
	vt_dmesg_clean teardown
}
