# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# User-space verbs scenarios, guest side: sourced by tests/e2e/*-verbs.sh,
# *-verify.sh, metaroce-perftest.sh and metaroce-tamper.sh as
# /mr/e2e/verbs.sh (tests/vm/mkinitramfs.sh ships tests/e2e/lib/ there;
# e2e.sh runs only tests/e2e/*.sh, so nothing here is a scenario itself).
# Busybox ash under "sh -e", with tests/vm/guest/lib.sh already sourced.
#
# The same functions run over Soft-RoCE (rxe, the baseline) and over
# MetaRoCE (mr0); only the device type and name differ:
#
#   vt_setup TYPE NAME     load the module (with $VT_MODPARAMS), "rdma link
#                          add NAME type TYPE netdev eth0", wait for ACTIVE,
#                          find the RoCE v2 GID of the IPv4 address
#                          ($VT_GID), meet the peer
#   vt_devinfo             ibv_devinfo -v: sane attributes
#   vt_pingpong            ibv_rc_pingpong, ibv_srq_pingpong, ibv_uc_pingpong,
#                          both directions
#   vt_uc_pingpong L       ibv_uc_pingpong, L (server or client) listening
#   vt_perftest_all        perftest bw/lat, several sizes up to 1 MiB, both
#                          directions, and the bw tests with -q 4
#   vt_verify_all          mr-verify: every RC opcode both ways, a corrupted
#                          run must fail, an outage must end in RETRY_EXC_ERR
#   vt_teardown            rdma link delete, module unload, dmesg clean
#   vt_counter NAME        a counter of $VT_DEV/1 (fails if it has none)
#   vt_sample_start MARK   while a tool runs, this VM's RC QPs whose
#   vt_sample_stop         "rdma -dd res show qp" line has MARK, every
#                          0.5 s: the last in /tmp/qp.last, all in
#                          /tmp/qp.all; stop prints the last
#   vt_qp_field FIELD      drv_FIELD of the last sample; vt_qp_fields
#                          FIELD: of every sample, one per line
#
# Every tool runs under "timeout", so a hang fails the scenario with the
# tool named instead of eating the guest's whole budget. Both VMs run the
# same script; they meet (vt_meet) before each client/server run.

VT_TYPE=""
VT_DEV=""
VT_GID=""
VT_MOD=""
VT_MODPARAMS=${VT_MODPARAMS:-}

# vt_gid_index: the index of $VT_DEV's RoCE v2 GID for $MR_MY_IP, or
# nothing.
vt_gid_index() {
	mr_gid_index "$VT_DEV" "$MR_MY_IP" || true
}

# vt_setup TYPE NAME: TYPE is rxe or metaroce.
vt_setup() {
	VT_TYPE=$1
	VT_DEV=$2
	case "$VT_TYPE" in
	rxe) VT_MOD=rdma_rxe ;;
	metaroce) VT_MOD=metaroce ;;
	*) mr_fail "vt_setup: unknown device type $VT_TYPE" ;;
	esac
	# shellcheck disable=SC2086
	modprobe "$VT_MOD" $VT_MODPARAMS || mr_fail "modprobe $VT_MOD $VT_MODPARAMS"
	rdma link add "$VT_DEV" type "$VT_TYPE" netdev eth0 ||
		mr_fail "rdma link add $VT_DEV type $VT_TYPE netdev eth0"
	mr_wait_active "$VT_DEV"
	vs_n=0
	VT_GID=$(vt_gid_index)
	while [ -z "$VT_GID" ]; do
		vs_n=$((vs_n + 1))
		[ $vs_n -gt 50 ] && mr_fail "$VT_DEV has no RoCE v2 GID for $MR_MY_IP"
		sleep 0.2
		VT_GID=$(vt_gid_index)
	done
	mr_log "$VT_DEV ($VT_TYPE) ACTIVE on eth0, RoCE v2 GID of $MR_MY_IP at index $VT_GID"
	[ "$MR_ROLE" = single ] || mr_wait_peer
}

# vt_show FILE: a tool's output in the log, without libibverbs' warnings
# about the providers whose hardware libraries the guest lacks; indented,
# unless VT_SHOW_RAW=1 (scripts/demo.sh picks perftest's own lines).
VT_SHOW_RAW=${VT_SHOW_RAW:-0}
vt_show() {
	if [ "$VT_SHOW_RAW" = 1 ]; then
		grep -v '^libibverbs: Warning' "$1" || true
	else
		grep -v '^libibverbs: Warning' "$1" | sed 's/^/  | /' || true
	fi
}

# ------------------------------------------------------------------------
# ibv_devinfo

# vt_attr_pos NAME: attribute NAME of /tmp/devinfo.out is a positive number.
vt_attr_pos() {
	awk -v k="$1:" '$1 == k && $2 + 0 > 0 { ok = 1 } END { exit !ok }' /tmp/devinfo.out ||
		mr_fail "ibv_devinfo -v -d $VT_DEV: $1 missing or not positive"
}

vt_devinfo() {
	timeout 60 ibv_devinfo -v -d "$VT_DEV" >/tmp/devinfo.out 2>&1 ||
		{ vt_show /tmp/devinfo.out; mr_fail "ibv_devinfo -v -d $VT_DEV"; }
	vt_show /tmp/devinfo.out
	grep -q "hca_id:[[:space:]]*$VT_DEV\$" /tmp/devinfo.out ||
		mr_fail "ibv_devinfo: no hca_id $VT_DEV"
	grep -q 'transport:[[:space:]]*InfiniBand' /tmp/devinfo.out ||
		mr_fail "ibv_devinfo: transport is not InfiniBand (RoCE)"
	grep -q 'link_layer:[[:space:]]*Ethernet' /tmp/devinfo.out ||
		mr_fail "ibv_devinfo: link_layer is not Ethernet"
	grep -q 'state:[[:space:]]*PORT_ACTIVE' /tmp/devinfo.out ||
		mr_fail "ibv_devinfo: port not PORT_ACTIVE"
	grep -q 'phys_state:[[:space:]]*LINK_UP' /tmp/devinfo.out ||
		mr_fail "ibv_devinfo: phys_state not LINK_UP"
	grep -Eq 'active_mtu:[[:space:]]*(256|512|1024|2048|4096) ' /tmp/devinfo.out ||
		mr_fail "ibv_devinfo: no active_mtu"
	for vd_a in max_mr_size max_qp max_qp_wr max_sge max_cq max_cqe max_mr \
		max_pd max_qp_rd_atom max_qp_init_rd_atom max_srq max_srq_wr \
		max_srq_sge; do
		vt_attr_pos "$vd_a"
	done
	grep -Eq 'atomic_cap:[[:space:]]*ATOMIC_(HCA|GLOB)' /tmp/devinfo.out ||
		mr_fail "ibv_devinfo: atomic_cap is not ATOMIC_HCA/ATOMIC_GLOB (ib_atomic_* need atomics)"
	# The RoCE v2 GID of the IPv4 address, at the index sysfs gave.
	grep -Eq "GID\\[ *$VT_GID\\]:[[:space:]]*::ffff:$MR_MY_IP, RoCE v2" /tmp/devinfo.out ||
		mr_fail "ibv_devinfo: GID[$VT_GID] is not ::ffff:$MR_MY_IP, RoCE v2"
	mr_log "ibv_devinfo -v -d $VT_DEV: attributes sane"
}

# ------------------------------------------------------------------------
# Client/server runs

# vt_xchg NAME WORD: both VMs meet and swap a word; prints the peer's
# ("lost-contact" when the peer does not come). Its own TCP port (7702),
# so it never answers lib.sh's mr_barrier (7700); an attempt is bounded by
# 60 s (a loaded host can stall an emulated VM for seconds), and the server
# ignores a late word from the previous exchange.
vt_xchg() {
	if [ "$MR_ROLE" = server ]; then
		vw_n=0
		while :; do
			vw_got=$(echo "$1 $2" | timeout 400 nc -l -p 7702 || true)
			case "$vw_got" in "$1 "*) break ;; esac
			vw_n=$((vw_n + 1))
			[ $vw_n -ge 3 ] && break
		done
	else
		vw_got=""
		vw_end=$(($(date +%s) + 400))
		while [ "$(date +%s)" -lt $vw_end ]; do
			vw_got=$(echo "$1 $2" | timeout 60 nc "$MR_PEER_IP" 7702 2>/dev/null || true)
			case "$vw_got" in "$1 "*) break ;; esac
			sleep 0.2
		done
	fi
	case "$vw_got" in
	"$1 "*) echo "${vw_got#"$1 "}" ;;
	*) echo "lost-contact" ;;
	esac
}

# vt_meet NAME: both VMs continue only once the other arrived.
vt_meet() {
	vm_peer=$(vt_xchg "$1" here)
	[ "$vm_peer" = here ] || mr_fail "meeting $1: the peer did not come ($vm_peer)"
}

# vt_pair LISTENER TMO OUT CMD...: both VMs meet; the VM whose role is
# LISTENER runs "timeout TMO CMD", the other "timeout TMO CMD <peer>". The
# connecting side retries only while the listener is not up yet (the tool
# says it could not connect), never after a run that got going, so a
# failure is never hidden by a second attempt. Output in OUT; the status
# is this side's.
vt_pair_seq=0
vt_pair() {
	vp_l=$1
	vp_t=$2
	vp_o=$3
	shift 3
	vt_pair_seq=$((vt_pair_seq + 1))
	vt_meet "vt-$vt_pair_seq"
	vp_rc=0
	if [ "$MR_ROLE" = "$vp_l" ]; then
		timeout "$vp_t" "$@" >"$vp_o" 2>&1 || vp_rc=$?
	else
		vt_connect "$vp_o" timeout "$vp_t" "$@" "$MR_PEER_IP" || vp_rc=$?
	fi
	[ $vp_rc -eq 143 ] && echo "  (timed out after ${vp_t}s)" >>"$vp_o"
	return $vp_rc
}

# vt_connect OUT CMD...: run client CMD into OUT, again (every 0.5 s, up
# to 60 times) while its server is not listening yet; returns its status.
vt_connect() {
	vc_o=$1
	shift
	vc_n=0
	while :; do
		vc_rc=0
		"$@" >"$vc_o" 2>&1 || vc_rc=$?
		[ $vc_rc -eq 0 ] && break
		grep -Eqi "couldn't connect|unable to open file descriptor|connection refused|failed to establish connection" "$vc_o" ||
			break
		vc_n=$((vc_n + 1))
		[ $vc_n -ge 60 ] && break
		sleep 0.5
	done
	return "$vc_rc"
}

# vt_role_of LISTENER: "listens" or "connects", for messages.
vt_role_of() {
	if [ "$MR_ROLE" = "$1" ]; then echo listens; else echo connects; fi
}

# ------------------------------------------------------------------------
# ibv_*_pingpong

# vt_pp LISTENER BYTES ITERS TOOL ARGS...: one ibv_*_pingpong run (-c:
# every received buffer checked), LISTENER listening; fails unless the
# tool succeeds and reports BYTES bytes and ITERS iterations (per QP).
vt_pp() {
	vpp_l=$1
	vpp_b=$2
	vpp_n=$3
	shift 3
	vpp_what="$1 ($vpp_l listens)"
	vt_pair "$vpp_l" 90 /tmp/pp.out "$@" -d "$VT_DEV" -g "$VT_GID" -c ||
		{ vt_show /tmp/pp.out; mr_fail "$vpp_what: exit status $vp_rc"; }
	vt_show /tmp/pp.out
	grep -Eq "^$vpp_b bytes in [0-9.]+ seconds" /tmp/pp.out ||
		mr_fail "$vpp_what: not $vpp_b bytes moved"
	grep -Eq "^$vpp_n iters in [0-9.]+ seconds" /tmp/pp.out ||
		mr_fail "$vpp_what: not $vpp_n iterations"
}

vt_pingpong() {
	for vq_l in server client; do
		# 200 round trips of 4096 bytes
		vt_pp $vq_l 1638400 200 ibv_rc_pingpong -n 200 -s 4096
		# It reports per QP: 50 round trips of 4096 bytes.
		vt_pp $vq_l 409600 50 ibv_srq_pingpong -q 4 -n 50 -s 4096 -r 64
		[ "$(grep -c 'local address:' /tmp/pp.out)" -eq 4 ] ||
			mr_fail "ibv_srq_pingpong ($vq_l listens): not 4 QPs"
		vt_uc_pingpong $vq_l
		mr_log "pingpong ($vq_l listens): ok"
	done
}

# vt_uc_pingpong LISTENER: ibv_uc_pingpong, 200 round trips of 4096-byte
# messages, 4 packets each at -m 1024. UC sends each packet once
# (MR-UC-3) and the VM link does not lose, so every message must arrive:
# a lost one would hang the tool into its timeout.
vt_uc_pingpong() {
	vt_pp "$1" 1638400 200 ibv_uc_pingpong -n 200 -s 4096 -m 1024
}

# ------------------------------------------------------------------------
# perftest

# vt_perftest LISTENER TOOL SIZE ITERS [QPS]: one perftest run; fails
# unless the tool succeeds on both VMs and the result line reports SIZE
# bytes, ITERS (times QPS: perftest counts all QPs) iterations and a
# positive bandwidth (or message rate) or latency. The connecting side
# always prints the result line; the listening side of the bw tests too
# (checked when it does). The VMs swap their verdicts, so both know the
# outcome (vt_perf_failed below). perftest times with the CPU's cycle
# counter, which under TCG now and then yields 0.00 for a run that moved
# all its data: such a run (exit status 0, the right size and count, zero
# value) is repeated once; zero twice fails.
vt_perftest() {
	vf_l=$1
	vf_tool=$2
	vf_size=$3
	vf_iters=$4
	vf_qps=${5:-1}
	vf_what="$vf_tool -s $vf_size -n $vf_iters -q $vf_qps ($vf_l listens, this VM $(vt_role_of "$vf_l"))"
	vf_sarg="-s $vf_size"
	case "$vf_tool" in ib_atomic_*) vf_sarg="" ;; esac
	# The lat tests refuse -q altogether.
	[ "$vf_qps" -gt 1 ] && vf_sarg="$vf_sarg -q $vf_qps"
	case "$vf_tool" in
	*_bw)
		# bytes, iterations, BW peak, BW average (MB/s), message rate
		# (Mpps). Slow atomics print an average of 0.00 MB/s (2
		# decimals), their message rate has 6.
		vf_line='$1 == s && $2 == n && NF == 5'
		vf_pos='($4 > 0 || $5 > 0)' ;;
	*_lat)
		# bytes, iterations, t_min, t_max, t_typical, t_avg, ... (usec)
		vf_line='$1 == s && $2 == n && NF >= 7'
		vf_pos='$3 > 0 && $6 > 0' ;;
	esac
	vf_try=1
	while :; do
		vf_v=ok
		# shellcheck disable=SC2086
		vt_pair "$vf_l" 120 /tmp/pt.out "$vf_tool" -d "$VT_DEV" -x "$VT_GID" -F \
			$vf_sarg -n "$vf_iters" || vf_v="exit-status-$vp_rc"
		vt_show /tmp/pt.out
		vf_n=$((vf_iters * vf_qps))
		if [ $vf_v != ok ]; then
			:
		elif awk -v s="$vf_size" -v n=$vf_n "$vf_line && $vf_pos { f = 1 } END { exit !f }" /tmp/pt.out; then
			:
		elif awk -v s="$vf_size" -v n=$vf_n "$vf_line { f = 1 } END { exit !f }" /tmp/pt.out; then
			vf_v=zero
		elif [ "$MR_ROLE" != "$vf_l" ] || grep -q '^ *#bytes' /tmp/pt.out; then
			vf_v=no-result-line
		fi
		vf_peer=$(vt_xchg "pt-$vt_pair_seq" "$vf_v")
		case "$vf_v:$vf_peer" in
		ok:ok)
			mr_log "$vf_what: ok"
			return 0 ;;
		*lost-contact*) mr_fail "$vf_what: here $vf_v, the peer did not come back" ;;
		zero:zero | zero:ok | ok:zero)
			if [ $vf_try -ge 2 ]; then
				vt_perf_failed "$vf_what: zero result twice"
				return 0
			fi
			mr_log "$vf_what: a zero result (cycle counter under emulation), once more"
			vf_try=$((vf_try + 1)) ;;
		*)
			vt_perf_failed "$vf_what: here $vf_v, on the peer $vf_peer"
			return 0 ;;
		esac
	done
}

# A failed perftest run is recorded and the matrix goes on (both VMs know
# both verdicts, so they stay in step): one run shows every failure.
# vt_perf_check fails the scenario if any run failed.
vt_perf_failed() {
	echo "$1" >>/tmp/vt-perf-failures
	mr_log "FAILED: $1"
}

vt_perf_check() {
	if [ -s /tmp/vt-perf-failures ]; then
		mr_log "perftest runs that failed:"
		sed 's/^/    /' /tmp/vt-perf-failures
		mr_fail "$(wc -l </tmp/vt-perf-failures) perftest run(s) failed, first: $(head -1 /tmp/vt-perf-failures)"
	fi
	return 0
}

# Sizes and iteration counts, bounded for TCG (rxe moves 3-15 MB/s there):
# about 5 MB per run at 1 MiB.
: "${VT_BW_RUNS:=64:200 65536:50 1048576:5}"
: "${VT_LAT_RUNS:=8:200 65536:20 1048576:5}"
: "${VT_ATOMIC_ITERS:=200}"
: "${VT_MULTI_QP_RUN:=65536:40}"

vt_perftest_all() {
	rm -f /tmp/vt-perf-failures
	for vx_l in server client; do
		for vx_t in ib_write_bw ib_read_bw ib_send_bw; do
			for vx_r in $VT_BW_RUNS; do
				vt_perftest $vx_l $vx_t "${vx_r%%:*}" "${vx_r##*:}"
			done
		done
		vt_perftest $vx_l ib_atomic_bw 8 "$VT_ATOMIC_ITERS"
		for vx_t in ib_write_lat ib_read_lat ib_send_lat; do
			for vx_r in $VT_LAT_RUNS; do
				vt_perftest $vx_l $vx_t "${vx_r%%:*}" "${vx_r##*:}"
			done
		done
		vt_perftest $vx_l ib_atomic_lat 8 "$VT_ATOMIC_ITERS"
		# Four QPs at once (bw tests only: the lat tests take one QP).
		for vx_t in ib_write_bw ib_read_bw ib_send_bw; do
			vt_perftest $vx_l $vx_t "${VT_MULTI_QP_RUN%%:*}" "${VT_MULTI_QP_RUN##*:}" 4
		done
		vt_perftest $vx_l ib_atomic_bw 8 "$VT_ATOMIC_ITERS" 4
	done
	vt_perf_check
}

# ------------------------------------------------------------------------
# mr-verify (userspace/tools/mr-verify*.c)

# vt_verify LISTENER ARGS...: mr-verify on both VMs; LISTENER listens, the
# other connects to $vt_verify_peer (the tool retries the connection itself,
# so a failed run is never repeated). Sets $rc; output in /tmp/verify.out
# and the log.
vt_verify_peer=""
vt_verify_seq=0
vt_verify() {
	vv_l=$1
	shift
	vt_verify_seq=$((vt_verify_seq + 1))
	vt_meet "verify-$vt_verify_seq"
	rc=0
	if [ "$MR_ROLE" = "$vv_l" ]; then
		timeout 600 mr-verify "$@" >/tmp/verify.out 2>&1 || rc=$?
	else
		timeout 600 mr-verify "$@" "$vt_verify_peer" >/tmp/verify.out 2>&1 || rc=$?
	fi
	vt_show /tmp/verify.out
	mr_log "mr-verify run $vt_verify_seq ($vv_l listens): exit status $rc"
}

# vt_verify_all: data integrity with every RC opcode (SEND, SEND_WITH_IMM,
# RDMA WRITE, WRITE_WITH_IMM, READ, CMP_SWP, FETCH_ADD), sizes from 0 bytes
# across the MTU boundaries to 1 MiB, each side requester in turn, every
# byte checked on both sides; each VM listens once, the second run on two
# QPs. Then the checks that the tool can fail: a deliberately corrupted
# byte must end the run with a mismatch diagnostic, and a RoCE outage
# longer than the retry budget must end it with IBV_WC_RETRY_EXC_ERR
# (--expect-error) on both sides.
vt_verify_all() {
	command -v mr-verify >/dev/null ||
		mr_fail "mr-verify is not in the guest (build userspace/tools first)"
	vt_verify_peer=$MR_PEER_IP
	# Bounded for TCG: about 70 MB per run.
	va_base="-d $VT_DEV -g $VT_GID --connect-timeout 90"
	va_full="$va_base -s 0,1,7,64,1000,mtu-1,mtu,mtu+1,4096,4097,65536,1m -n 48 --phase-bytes 3m -v"
	va_ops="ops=send,send_imm,write,write_imm,read,cas,fadd sizes=12 dirs=2"

	# 1, 2: everything, each VM listening once; the second run on two QPs.
	for va_l in server client; do
		if [ $va_l = server ]; then
			# shellcheck disable=SC2086
			vt_verify $va_l $va_full
		else
			# shellcheck disable=SC2086
			vt_verify $va_l $va_full -q 2
		fi
		[ $rc -eq 0 ] ||
			mr_fail "mr-verify ($va_l listens) exit status $rc: $(grep -m1 -E 'FAIL|MISMATCH|error' /tmp/verify.out)"
		grep -q "PASS: $va_ops .* msgs=[1-9]" /tmp/verify.out ||
			mr_fail "mr-verify ($va_l listens): no PASS summary"
	done

	# 3: the tool catches corruption. The sender flips byte 2048 of the
	# first 4097-byte SEND; the receiver must report it, both sides exit 1.
	# shellcheck disable=SC2086
	vt_verify server $va_base --ops send,write,read -s 4097 -n 4 --corrupt-for-test
	[ $rc -eq 1 ] || mr_fail "corrupted run: exit status $rc, expected 1"
	grep -q 'MISMATCH op=send size=4097 .* first bad byte at message offset 2048 .* expected 0x.. got 0x..' /tmp/verify.out ||
		mr_fail "corrupted run: no mismatch diagnostic"

	# 4: an outage outlasting the retry budget. Control over IPv6; RoCEv2
	# over IPv4 is black-holed on the server (a static neighbour entry with
	# a MAC nobody has), so whichever side is requesting gets
	# IBV_WC_RETRY_EXC_ERR and both sides end with exactly that status.
	va_outage="$va_base --ops write,read -s 4096 -n 100000 --phase-bytes 1m --time 60 --timeout 12 --retry 2 --expect-error RETRY_EXC_ERR"
	vt_meet "verify-outage"
	rc=0
	if [ "$MR_ROLE" = server ]; then
		# shellcheck disable=SC2086
		timeout 300 mr-verify $va_outage >/tmp/verify.out 2>&1 &
		va_pid=$!
		sleep 4
		ip neigh replace "$MR_PEER_IP" lladdr 02:00:00:00:00:99 dev eth0 nud permanent ||
			mr_fail "ip neigh replace"
		wait $va_pid || rc=$?
		ip neigh del "$MR_PEER_IP" dev eth0 || mr_fail "ip neigh del"
	else
		sleep 1
		# shellcheck disable=SC2086
		timeout 300 mr-verify $va_outage "$MR_PEER_IP6" >/tmp/verify.out 2>&1 || rc=$?
	fi
	vt_show /tmp/verify.out
	mr_log "mr-verify outage run: exit status $rc"
	[ $rc -eq 0 ] || mr_fail "outage run: exit status $rc, expected 0 (RETRY_EXC_ERR)"
	grep -q 'PASS: run ended with the expected completion status RETRY_EXC_ERR' /tmp/verify.out ||
		mr_fail "outage run: did not end with RETRY_EXC_ERR"
	vt_meet "verify-end"
}

# ------------------------------------------------------------------------
# mr-ringtamper (userspace/tools/mr-ringtamper.c): hostile input, loopback

# vt_tamper MODE [ARGS...]: the tool's cases on this VM's device, two QPs connected
# to each other over the device's own GID. MODE verbs: the cases the verbs
# API can express (bad lkey, SGE ranges outside the MR, a remote range
# outside the peer's MR), on any device; MODE ring (metaroce only): all
# cases, garbage written straight into the mmapped rings. Each case must end
# in its error completion or error event, and the canaries around the MR
# must be intact. ARGS go to the tool (rxe needs --any-local-error).
# vt_memcg NAME: VT_MEMCG=/sys/fs/cgroup/NAME, a cgroup v2 group with the
# memory controller (cgroup2 mounted first if the guest has not).
vt_memcg() {
	vm_cg=/sys/fs/cgroup
	[ -f $vm_cg/cgroup.controllers ] || mount -t cgroup2 none $vm_cg ||
		mr_fail "cannot mount cgroup2 on $vm_cg"
	grep -qw memory $vm_cg/cgroup.controllers ||
		mr_fail "the guest kernel's cgroup2 has no memory controller"
	grep -qw memory $vm_cg/cgroup.subtree_control ||
		echo +memory >$vm_cg/cgroup.subtree_control ||
		mr_fail "cannot enable the memory controller"
	mkdir -p "$vm_cg/$1" || mr_fail "cannot create cgroup $1"
	[ -f "$vm_cg/$1/memory.current" ] || mr_fail "cgroup $1 has no memory.current"
	VT_MEMCG=$vm_cg/$1
}

vt_tamper() {
	vm_mode=$1
	shift
	command -v mr-ringtamper >/dev/null ||
		mr_fail "mr-ringtamper is not in the guest (build userspace/tools first)"
	# The ring mode's ring-charge case reads its own memory cgroup.  A
	# kernel built without cgroups (the debug kernel of e2e-debug,
	# tests/vm/test-kernel.config) cannot run it: said, not silent; the
	# stock and backports kernels always have cgroup2.
	if grep -qw cgroup2 /proc/filesystems; then
		vt_memcg mr-tamper
		vm_cg=$VT_MEMCG
	else
		mr_log "ring-charge not run: this kernel has no cgroups (CONFIG_CGROUPS off)"
		set -- "$@" --skip-case ring-charge
		vm_cg=
	fi
	vm_rc=0
	# shellcheck disable=SC2016 # $$ and "$@" are the inner shell's
	timeout 400 sh -c '[ -z "$0" ] || echo $$ >"$0/cgroup.procs" && exec "$@"' "$vm_cg" \
		mr-ringtamper -d "$VT_DEV" -g "$VT_GID" --mode "$vm_mode" "$@" \
		>/tmp/tamper.out 2>&1 || vm_rc=$?
	vt_show /tmp/tamper.out
	[ $vm_rc -eq 0 ] || mr_fail "mr-ringtamper --mode $vm_mode on $VT_DEV: exit status $vm_rc"
	grep -q "PASS: [1-9][0-9]* cases ($vm_mode mode)" /tmp/tamper.out ||
		mr_fail "mr-ringtamper --mode $vm_mode on $VT_DEV: no PASS line"
	if [ "$vm_mode" = verbs ]; then
		# The tool can fail: a byte flipped next to the MR must be found.
		vm_rc=0
		timeout 120 mr-ringtamper -d "$VT_DEV" -g "$VT_GID" --mode verbs "$@" \
			--case sq-lkey --break-canary-for-test >/tmp/tamper.out 2>&1 || vm_rc=$?
		vt_show /tmp/tamper.out
		[ $vm_rc -eq 1 ] ||
			mr_fail "mr-ringtamper --break-canary-for-test: exit status $vm_rc, expected 1"
		grep -q 'FAIL: case sq-lkey: memory before the MR changed: byte 3 before its start' /tmp/tamper.out ||
			mr_fail "mr-ringtamper --break-canary-for-test: the changed byte was not reported"
	fi
	vt_dmesg_clean "mr-ringtamper --mode $vm_mode"
	mr_log "mr-ringtamper --mode $vm_mode on $VT_DEV: ok"
}

# ------------------------------------------------------------------------
# Teardown

# vt_dmesg_clean: no kernel report so far (the host judges the whole log
# with tests/vm/kernel-reports.sh as well; this names the scenario step).
# A user-space process's general protection fault ("traps: NAME[PID] ...")
# is not a kernel report (see kernel-reports.sh).
vt_dmesg_clean() {
	if dmesg | grep -E '(BUG:|WARNING:|Oops|general protection fault|KASAN:|UBSAN:|kernel BUG at|Call Trace:|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|blocked for more than|soft lockup)' |
		grep -vE 'traps: [^ ]+\[[0-9]+\] general protection fault ip:[0-9a-f]+ sp:[0-9a-f]+ error:[0-9a-f]+( in [^ ]+)?$' >/tmp/dmesg.bad; then
		head -20 /tmp/dmesg.bad
		mr_fail "kernel report in the guest log ${1:+after $1}"
	fi
	return 0
}

vt_teardown() {
	[ "$MR_ROLE" = single ] || vt_meet "vt-teardown"
	rdma link delete "$VT_DEV" || mr_fail "rdma link delete $VT_DEV"
	modprobe -r "$VT_MOD" || mr_fail "modprobe -r $VT_MOD"
	vt_dmesg_clean teardown
}

vt_counter() {
	vc_v=$(rdma statistic show link "$VT_DEV/1" | tr -s '[:space:]' '\n' |
		awk -v k="$1" 'p == k { print; exit } { p = $0 }')
	case "$vc_v" in
	'' | *[!0-9]*) mr_fail "counter $1 of $VT_DEV/1 not found" ;;
	esac
	echo "$vc_v"
}

vt_sample_start() {
	rm -f /tmp/qp.last /tmp/qp.all
	(
		while :; do
			rdma -dd res show qp link "$VT_DEV/1" 2>/dev/null |
				grep 'type RC' | grep -e "$1" >/tmp/qp.now || true
			if [ -s /tmp/qp.now ]; then
				cp /tmp/qp.now /tmp/qp.last
				cat /tmp/qp.now >>/tmp/qp.all
			fi
			sleep 0.5
		done
	) &
	vs_pid=$!
}

vt_sample_stop() {
	kill $vs_pid
	wait $vs_pid || true
	[ ! -s /tmp/qp.last ] || sed 's/^/  QP | /' /tmp/qp.last
}

vt_qp_field() {
	tr -s '[:space:]' '\n' </tmp/qp.last 2>/dev/null |
		awk -v k="drv_$1" 'p == k { print; exit } { p = $0 }'
}

vt_qp_fields() {
	tr -s '[:space:]' '\n' </tmp/qp.all 2>/dev/null |
		awk -v k="drv_$1" 'p == k { print } { p = $0 }'
}
