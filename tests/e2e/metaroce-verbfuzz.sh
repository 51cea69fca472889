# topology: pair
# timeout: 480
# Hostile user space, black-box: userspace/tools/mr-verbfuzz issues random
# verbs through libibverbs and the MetaRoCE provider on mr0 as an
# UNPRIVILEGED process (uid/gid 65534, no capabilities, no_new_privs,
# RLIMIT_MEMLOCK 64 MiB set by root before dropping privileges) on both
# VMs at once for VERBFUZZ_SECONDS (default 45; "make soak-verbfuzz"
# runs longer): contexts, PDs, MRs over valid, edge, overlapping,
# read-only, unmapped and invalid ranges, CQs and completion channels,
# SRQs, AHs, RC and UD QPs with random capabilities, attributes and state
# transitions, connected to each other over mr0's own GID, to themselves
# and to QPs of the tool on the other VM (real packets both ways), every
# send opcode with random flags, SGEs, keys and remote addresses, receives,
# and child processes killed with SIGKILL mid-traffic. The tool asserts
# the known cases exactly: a misaligned atomic completes with
# IBV_WC_REM_INV_REQ_ERR and is not executed (MR-VERBS-11), a WRITE or
# READ whose remote range wraps 2^64 with IBV_WC_REM_ACCESS_ERR
# (MR-VERBS-21, MR-VERBS-22), the WR behind either is flushed and the QP
# in ERR (MR-VERBS-25); everything else must be sane (an errno or
# success, what the kernel must refuse refused, completions in order
# (MR-VERBS-5, MR-VERBS-6) and never for a WR not outstanding, no signaled
# WR without a completion for 60 s, every WR flushed after the final move
# to ERR, canaries around the registered memory intact).
#
# Pass criteria, each checked here:
#   1. mr-verbfuzz exits 0 with its PASS line on both VMs, and QPs were
#      connected to the peer VM; its watchdog self-test fails as it must;
#   2. no kernel report (vt_dmesg_clean here, the harness on the whole log);
#   3. nothing left behind: "rdma resource show" counts of mr0 (ctx, pd, cq,
#      qp, mr, srq, ...) are back to what they were before the tool ran;
#   4. slab: SUnreclaim (/proc/meminfo) after the run is at most
#      VERBFUZZ_SLAB_KB (default 8192 KiB) above its value before the run
#      (the device present both times, 3 s for RCU-deferred frees, every
#      cache shrunk first, which also empties KASAN's quarantine); the
#      /proc/slabinfo caches that grew most are logged. The bound is far
#      above the noise (measured: -112 to +100 KiB over a 45 s run, stock
#      and debug kernel) and far below what one leaked object per WR or
#      per verbs call would cost (a run makes thousands to tens of
#      thousands of each);
#   5. the device deletes cleanly afterwards: "rdma link delete mr0" and
#      "modprobe -r metaroce" succeed, and the log is still clean.
# A failed criterion does not stop the others: all are checked, then the
# scenario fails with the list. VERBFUZZ_SEED=N replays a run (the server
# uses N, the client N+1); VERBFUZZ_ARGS adds options of the tool (-v,
# --known-every 15, ...). Both reach the guests through MR_GUEST_ENV.
. /mr/e2e/verbs.sh

: "${VERBFUZZ_SECONDS:=45}"
: "${VERBFUZZ_SLAB_KB:=8192}"
case "$VERBFUZZ_SECONDS" in '' | *[!0-9]*) mr_fail "VERBFUZZ_SECONDS='$VERBFUZZ_SECONDS': seconds, please" ;; esac
command -v mr-verbfuzz >/dev/null ||
	mr_fail "mr-verbfuzz is not in the guest (build userspace/tools first)"
[ -x /usr/bin/setpriv ] || mr_fail "/usr/bin/setpriv (util-linux) is not in the guest"

vf_failures=""
vf_failed() {
	mr_log "FAILED: $1"
	vf_failures="$vf_failures
    $1"
}

# vf_unpriv OUT CMD...: CMD as uid/gid 65534 without capabilities or
# supplementary groups, after root set RLIMIT_MEMLOCK; status in $vf_rc.
vf_unpriv() {
	vu_out=$1
	shift
	vf_rc=0
	(
		# shellcheck disable=SC3045 # busybox ash has ulimit -l
		ulimit -l 65536 || exit 2
		exec timeout $((VERBFUZZ_SECONDS + 420)) /usr/bin/setpriv \
			--reuid=65534 --regid=65534 --clear-groups --no-new-privs -- "$@"
	) >"$vu_out" 2>&1 || vf_rc=$?
	vt_show "$vu_out"
}

vf_sunreclaim() {
	awk '$1 == "SUnreclaim:" { print $2 }' /proc/meminfo
}

# vf_settle: reclaimable caches dropped, every slab cache shrunk: empty
# slabs go back and, on a KASAN kernel, the quarantine of freed objects
# (up to 1/32 of the memory) is emptied (kmem_cache_shrink()).
vf_settle() {
	sync
	echo 2 >/proc/sys/vm/drop_caches 2>/dev/null || true
	for vs_f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$vs_f" 2>/dev/null || true
	done
}

# vf_slabinfo FILE: "name bytes" per cache (active objects x object size).
vf_slabinfo() {
	if [ -r /proc/slabinfo ]; then
		awk 'NR > 2 { print $1, $2 * $4 }' /proc/slabinfo | sort >"$1"
	else
		: >"$1"
	fi
}

vf_res() {
	rdma resource show 2>/dev/null | sed -n "s/^[0-9]*: $VT_DEV: *//p"
}

# vf_dmesg_check WHEN: vt_dmesg_clean's verdict, without ending the scenario.
vf_dmesg_check() {
	if ! (vt_dmesg_clean "$1") >/tmp/vf-dmesg.out 2>&1; then
		sed 's/^/    /' /tmp/vf-dmesg.out | head -12
		vf_failed "kernel report in the guest log after $1: $(head -1 /tmp/vf-dmesg.out)"
	fi
}

vt_setup metaroce mr0

# The device node an unprivileged process opens (ib_uverbs makes it 0666).
for vf_n in /dev/infiniband/uverbs*; do
	[ -e "$vf_n" ] || mr_fail "no /dev/infiniband/uverbs* device node"
	mr_log "$vf_n: mode $(stat -c %a "$vf_n")"
done

# The watchdog can fire: a SEND on a QP with rnr_retry 7 (infinite) to a
# QP without receive WRs, deliberately not exempted, must fail the tool.
vf_unpriv /tmp/vf-wd.out mr-verbfuzz -d "$VT_DEV" -g "$VT_GID" --seed 1 \
	--require-unprivileged --watchdog-selftest
if [ $vf_rc -ne 1 ] || ! grep -q 'FAIL: .*watchdog: signaled send wr_id .* has no completion after [0-9]* s' /tmp/vf-wd.out; then
	vf_failed "mr-verbfuzz --watchdog-selftest: exit status $vf_rc, expected 1 with a watchdog report"
fi

if [ -n "${VERBFUZZ_SEED:-}" ]; then
	vf_seed=$VERBFUZZ_SEED
else
	vf_seed=$(($(date +%s) % 1000000 * 1000 + $$ % 1000))
fi
[ "$MR_ROLE" = client ] && vf_seed=$((vf_seed + 1))
if [ "$MR_ROLE" = server ]; then
	vf_peer="--listen"
else
	vf_peer="--peer $MR_PEER_IP"
fi

vf_settle
vf_res_before=$(vf_res)
vf_slab_before=$(vf_sunreclaim)
vf_slabinfo /tmp/vf-slab.before
mr_log "before: rdma resource show $VT_DEV: $vf_res_before; SUnreclaim ${vf_slab_before} kB"

vt_meet verbfuzz
mr_log "mr-verbfuzz: ${VERBFUZZ_SECONDS}s, seed $vf_seed, as uid 65534, with the peer VM"
[ -z "${VERBFUZZ_ARGS:-}" ] || mr_log "mr-verbfuzz: extra options: $VERBFUZZ_ARGS"
# shellcheck disable=SC2086 # vf_peer and VERBFUZZ_ARGS are split on purpose
vf_unpriv /tmp/vf.out mr-verbfuzz -d "$VT_DEV" -g "$VT_GID" --seed "$vf_seed" \
	--time "$VERBFUZZ_SECONDS" $vf_peer --require-unprivileged ${VERBFUZZ_ARGS:-}
[ $vf_rc -eq 143 ] && vf_failed "mr-verbfuzz hung: killed by timeout after $((VERBFUZZ_SECONDS + 420))s"
if [ $vf_rc -ne 0 ]; then
	vf_failed "mr-verbfuzz (seed $vf_seed): exit status $vf_rc: $(grep -m1 'FAIL: ' /tmp/vf.out | sed 's/^[^:]*: //')"
	grep '^mr-verbfuzz.*: KNOWN .*: FAIL' /tmp/vf.out | while read -r vf_l; do
		mr_log "  $vf_l"
	done
elif ! grep -q 'PASS: seed [0-9]*, [0-9]* steps, [1-9][0-9]* verbs calls, [1-9][0-9]* WRs, [1-9][0-9]* completions, [1-9][0-9]* known cases' /tmp/vf.out; then
	vf_failed "mr-verbfuzz: no PASS line"
fi
vf_pq=$(sed -n 's/.*stats: .* peer-qps=\([0-9]*\) .*/\1/p' /tmp/vf.out)
[ "${vf_pq:-0}" -gt 0 ] || vf_failed "mr-verbfuzz: no QP was connected to the peer VM (peer-qps=${vf_pq:-none})"
# The paths the run must have reached, not only tried: UC QPs in RTS, on
# which the tool checks MR-UC-5, MR-UC-8, MR-UC-10, MR-UC-11 and
# MR-VERBS-2; successful reregistrations (MR-SEC-14); window binds that
# executed, successfully or refused (MR-MW-3, MR-MW-7); device mappings
# that mapped a ring (its pages outlive the ring; a private copy written).
vf_stat() {
	vs_v=$(sed -n "s/.*stats: .* $1=\([0-9]*\) .*/\1/p" /tmp/vf.out)
	echo "${vs_v:-0}"
}
for vf_k in uc-qps rereg-ok mmap-ok; do
	[ "$(vf_stat $vf_k)" -gt 0 ] || vf_failed "mr-verbfuzz: $vf_k=$(vf_stat $vf_k), the run never got there"
done
[ $(($(vf_stat mw-bound) + $(vf_stat mw-refused))) -gt 0 ] ||
	vf_failed "mr-verbfuzz: no window bind executed (mw-bound=0, mw-refused=0)"
vf_dmesg_check "mr-verbfuzz"

# Everything the processes (killed children included) created is gone.
sleep 3
vf_settle
vf_res_after=$(vf_res)
vf_slab_after=$(vf_sunreclaim)
vf_slabinfo /tmp/vf-slab.after
mr_log "after:  rdma resource show $VT_DEV: $vf_res_after; SUnreclaim ${vf_slab_after} kB"
[ "$vf_res_after" = "$vf_res_before" ] ||
	vf_failed "rdma resource show $VT_DEV: '$vf_res_after' after the run, '$vf_res_before' before"
vf_grow=$((vf_slab_after - vf_slab_before))
mr_log "slab: SUnreclaim grew by $vf_grow kB (bound $VERBFUZZ_SLAB_KB kB); caches that grew most (bytes):"
awk 'NR == FNR { b[$1] = $2; next } { d = $2 - b[$1]; if (d > 0) print d, $1 }' \
	/tmp/vf-slab.before /tmp/vf-slab.after | sort -rn | head -8 |
	while read -r vf_d vf_c; do mr_log "  $vf_c +$vf_d"; done
[ "$vf_grow" -le "$VERBFUZZ_SLAB_KB" ] ||
	vf_failed "SUnreclaim grew by $vf_grow kB during the run (bound $VERBFUZZ_SLAB_KB kB)"

# The device deletes cleanly (vt_teardown's steps, without ending early).
vt_meet "vt-teardown"
if rdma link delete "$VT_DEV"; then
	if modprobe -r "$VT_MOD"; then
		mr_log "device deleted, module unloaded"
	else
		vf_failed "modprobe -r $VT_MOD failed after the run"
	fi
else
	vf_failed "rdma link delete $VT_DEV failed after the run"
fi
case "$vf_failures" in
*"kernel report"*) ;;
*) vf_dmesg_check teardown ;;
esac
[ -z "$vf_failures" ] || mr_fail "metaroce-verbfuzz:$vf_failures"
mr_log "metaroce-verbfuzz: ok"
