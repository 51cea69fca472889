# topology: single
# timeout: 420
# Spraying against one path per QP and against TCP on the same fabric:
# the one-VM leaf-spine fabric of tests/e2e/lib/fabric.sh, every spine
# link shaped to CMP_RATE (2 Mbit/s), so that the four spines together,
# not the one emulated vCPU, are the bottleneck. ha sends to hb:
#
#   spray   one ib_write_bw of CMP_QPS (5) RC QPs, 64 KiB WRITEs, for
#           CMP_DUR (16) s, the devices' default paths (16 per QP)
#   single  the same with paths=1: single-path mode (MR-MP-13), one UDP
#           source port per QP, as RoCEv2 over ECMP. Five QPs on four
#           spines: at least two share a spine, whatever the hash does
#   tcp1    iperf3, one TCP flow, for CMP_DUR s
#   tcpN    iperf3 -P CMP_QPS
#
# For the two MetaRoCE cases the receiver's QPs are read twice, CMP_WIN
# (8) s apart, while all of them deliver (drv_rx_cum_psn, as in
# metaroce-incast): the packets each delivered times the path MTU is its
# goodput. Pass:
#   - spraying's two slowest QPs together >= 1.25 x the two slowest in
#     single-path mode (two QPs whose one path collided on a spine share
#     it: one spine for both at most, where spraying gives every QP a
#     fifth of four spines, 1.6 spines for two). The two slowest, not the
#     slowest, which was judged first: sprayed QPs do not share evenly
#     here (windows of 1-4 packets each) and the spread persists over
#     16 s windows, so the slowest of five got 0.87-0.96 of their mean
#     in nine runs and about 0.8 in a CI run, whose slowest-QP ratio
#     (1.24) failed the bound. The pair's ratio was 1.37-1.55 in seven
#     runs where two QPs collided, 2.15 where three did (testing.rst);
#   - spraying's total >= 0.9 x single-path mode's (the four spines are
#     the limit for both; spraying must not lose to the hash);
#   - every ib_write_bw exits 0 with its result line and no error
#     completion.
# The bytes each spine carried forward are printed per case, and the TCP
# goodputs (iperf3's receiver figure) for reference; TCP is not judged.
# Prints "COMPARE-CASE <name> ok|FAIL key=value ..." per case (total,
# slowest and slowest2, the two slowest together, in B/s; spines: bytes
# forward per spine) and "COMPARE-CASE spray/single ok|FAIL pair_ratio=R
# slowest_ratio=R total_ratio=R" (make bench-fabric reports them).
# No rxe case: the fabric's hosts are network namespaces, and the stock
# 6.1 kernel's rxe routes and listens in the initial namespace only
# (rxe_net.c: its UDP tunnel sockets and route lookups use init_net).
# Single-path mode stands for it: rxe, like any RoCE v2 device, sends a
# QP's packets from one UDP source port, so ECMP gives a QP one spine.
. /mr/e2e/verbs.sh
# shellcheck source=lib/fabric.sh disable=SC1091
. /mr/e2e/fabric.sh

: "${CMP_RATE:=2mbit}"
CMP_QPS=${CMP_QPS:-5}
CMP_DUR=${CMP_DUR:-16}
CMP_WIN=${CMP_WIN:-8}
CMP_SIZE=65536
CMP_PORT=18600
CMP_FAILED=""

cmp_fail() {
	mr_log "FAIL: $1"
	CMP_FAILED="$CMP_FAILED; $1"
	cmp_case_ok=FAIL
}

# cmp_set_paths N: paths of both devices (the QPs created from now on).
cmp_set_paths() {
	echo "$1" >/sys/class/infiniband/mr_ha/paths || mr_fail "paths $1 on mr_ha"
	echo "$1" >/sys/class/infiniband/mr_hb/paths || mr_fail "paths $1 on mr_hb"
}

# cmp_spines B0 B1: "d1 d2 d3 d4" bytes per spine between two
# fab_path_bytes readings.
cmp_spines() {
	echo "$1 $2" | awk '{ printf "%d %d %d %d\n", $5 - $1, $6 - $2, $7 - $3, $8 - $4 }'
}

# cmp_rdma NAME PATHS: one MetaRoCE case; sets cmp_total, cmp_min and
# cmp_min2, the two slowest QPs together (B/s).
cmp_rdma() {
	cmp_name=$1 cmp_case_ok=ok
	cmp_set_paths "$2"
	cmp_b0=$(fab_path_bytes fwd)
	fab_in hb timeout $((CMP_DUR + 120)) ib_write_bw -d mr_hb -x "$(fab_gid hb)" \
		-F -q "$CMP_QPS" -s $CMP_SIZE -D "$CMP_DUR" -p $CMP_PORT \
		>/tmp/cmp-s.out 2>&1 &
	cmp_srv=$!
	sleep 1
	fab_client ha /tmp/cmp-c.out timeout $((CMP_DUR + 90)) ib_write_bw \
		-d mr_ha -x "$(fab_gid ha)" -F -q "$CMP_QPS" -s $CMP_SIZE \
		-D "$CMP_DUR" -p $CMP_PORT "$(fab_mgmt hb)" &
	cmp_cli=$!
	cmp_total=0 cmp_min=0 cmp_min2=0
	if fab_wait_moving hb "$CMP_QPS" $((CMP_DUR - CMP_WIN - 2)); then
		cmp_win=$(fab_rx_window hb "$CMP_WIN" /tmp/cmp-a /tmp/cmp-b)
		cmp_fig=$(fab_qp_goodput /tmp/cmp-a /tmp/cmp-b "${cmp_win%% *}" "$CMP_MTU")
		# shellcheck disable=SC2086 # fields
		set -- $cmp_fig
		cmp_k=$1 cmp_total=$2 cmp_min=$3 cmp_jain=$4
		shift 4
		cmp_min2=$(printf '%s\n' "$@" | sort -n | head -2 | awk '{ s += $1 } END { print s + 0 }')
		[ "$cmp_k" = "$CMP_QPS" ] ||
			cmp_fail "$cmp_name: $cmp_k QPs measured, not $CMP_QPS"
		mr_log "$cmp_name: goodput per QP (B/s) $*, together $cmp_total, slowest $cmp_min, two slowest $cmp_min2, Jain $cmp_jain"
	else
		cmp_fail "$cmp_name: not all $CMP_QPS QPs delivered"
	fi
	wait "$cmp_cli" || true
	wait "$cmp_srv" || true
	vt_show /tmp/cmp-c.out
	grep -q '^rc 0$' /tmp/cmp-c.out ||
		cmp_fail "$cmp_name: ib_write_bw $(tail -1 /tmp/cmp-c.out)"
	awk -v s=$CMP_SIZE '$1 == s && NF == 5 { f = 1 } END { exit !f }' /tmp/cmp-c.out ||
		cmp_fail "$cmp_name: ib_write_bw printed no result line"
	! grep -Eqi 'completion with error|failed status|wc status' /tmp/cmp-c.out ||
		cmp_fail "$cmp_name: error completion"
	cmp_sp=$(cmp_spines "$cmp_b0" "$(fab_path_bytes fwd)")
	echo "COMPARE-CASE $cmp_name $cmp_case_ok paths=$(cat /sys/class/infiniband/mr_ha/paths) total=$cmp_total slowest=$cmp_min slowest2=$cmp_min2 spines=$(echo "$cmp_sp" | tr ' ' ,)"
}

# cmp_tcp NAME FLOWS: iperf3 from ha to hb over the fabric; prints its
# receiver goodput.
cmp_tcp() {
	cmp_case_ok=ok
	cmp_b0=$(fab_path_bytes fwd)
	fab_in hb timeout $((CMP_DUR + 60)) iperf3 -s -1 -p $((CMP_PORT + 1)) \
		>/tmp/cmp-is.out 2>&1 &
	cmp_srv=$!
	sleep 1
	fab_in ha timeout $((CMP_DUR + 30)) iperf3 -f k -t "$CMP_DUR" -P "$2" \
		-p $((CMP_PORT + 1)) -c "$(fab_ip hb)" >/tmp/cmp-ic.out 2>&1 ||
		cmp_fail "$1: iperf3 exited $?: $(tail -1 /tmp/cmp-ic.out)"
	wait "$cmp_srv" || true
	# the receiver's line: [SUM] with -P > 1, the flow's otherwise
	cmp_kb=$(awk '/receiver/ { for (i = 2; i <= NF; i++) if ($i == "Kbits/sec") v = $(i - 1) } END { print v + 0 }' /tmp/cmp-ic.out)
	cmp_sp=$(cmp_spines "$cmp_b0" "$(fab_path_bytes fwd)")
	echo "COMPARE-CASE $1 $cmp_case_ok flows=$2 total=$((cmp_kb * 1000 / 8)) spines=$(echo "$cmp_sp" | tr ' ' ,)"
}

modprobe metaroce || mr_fail "modprobe metaroce"
FAB_RATE=$CMP_RATE
fab_up 1
fab_dev ha
fab_dev hb
CMP_MTU=$(ibv_devinfo -d mr_hb | awk '$1 == "active_mtu:" { print $2; exit }')
[ -n "$CMP_MTU" ] || mr_fail "no active_mtu for mr_hb"
cmp_p0=$(cat /sys/class/infiniband/mr_ha/paths)
mr_log "spines at $CMP_RATE each ($(fab_rate_Bps "$CMP_RATE") B/s), $CMP_QPS QPs, path MTU $CMP_MTU, default paths $cmp_p0"

cmp_rdma spray "$cmp_p0"
cmp_spray_total=$cmp_total cmp_spray_min=$cmp_min cmp_spray_min2=$cmp_min2
cmp_rdma single 1
cmp_single_total=$cmp_total cmp_single_min=$cmp_min cmp_single_min2=$cmp_min2
cmp_set_paths "$cmp_p0"
cmp_tcp tcp1 1
cmp_tcp "tcp$CMP_QPS" "$CMP_QPS"

cmp_case_ok=ok
awk -v a="$cmp_spray_min2" -v b="$cmp_single_min2" 'BEGIN { exit !(b > 0 && a >= 1.25 * b) }' ||
	cmp_fail "spraying's two slowest QPs $cmp_spray_min2 B/s together, not 1.25 x single-path mode's $cmp_single_min2"
awk -v a="$cmp_spray_total" -v b="$cmp_single_total" 'BEGIN { exit !(b > 0 && a >= 0.9 * b) }' ||
	cmp_fail "spraying's total $cmp_spray_total B/s below 0.9 x single-path mode's $cmp_single_total"
echo "$cmp_spray_min2 $cmp_single_min2 $cmp_spray_min $cmp_single_min $cmp_spray_total $cmp_single_total" |
	awk -v v="$cmp_case_ok" '{
	printf "COMPARE-CASE spray/single %s pair_ratio=%.2f slowest_ratio=%.2f total_ratio=%.2f\n", v,
		($2 > 0 ? $1 / $2 : 0), ($4 > 0 ? $3 / $4 : 0), ($6 > 0 ? $5 / $6 : 0) }'
fab_teardown
[ -z "$CMP_FAILED" ] || mr_fail "comparison failed${CMP_FAILED}"
mr_log "spraying beat single-path mode on the fabric"
