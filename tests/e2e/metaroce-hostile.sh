# topology: pair
# timeout: 480
# The standing hostile-peer test: third parties attack live QPs while
# verified traffic runs (userspace/tools/mr-hostile, spec "Security (SEC)",
# "Malformed and unexpected input (MAL)", "Reliability (REL)", "Headers
# (HDR)"). Both VMs create mr0 and run mr-verify between them (every RC
# opcode, two QPs, both VMs requester in turn, every byte checked on both
# sides) for HOSTILE_SECONDS (default 40) plus 10 s, and during it:
#
#  - each VM runs the off-path attacker against the other one (so every
#    QP is attacked as a responder and as a requester): random and
#    near-miss QPNs, PSNs 2^21..2^22 from every live window, spoofed source
#    addresses with live PSNs (MR-SEC-4 alone must drop those), every
#    malformed header field, truncation at every length, UDP length lies,
#    bad ICRCs at live PSNs, TRIM with garbage, forged ACK/NACK/SACK and
#    responses, PROBE floods, byte-exact replays and mutations of captured
#    packets, IP fragments, the GSI QP;
#  - the server runs "mr-hostile --victim" (a 256 MiB MR, HOSTILE_MR_MB, of
#    a known pattern between guard areas, an MR of another PD, a local-only
#    MR, a deregistered R_Key) and the client "mr-hostile --insider", which
#    connects a real RC QP to a fresh victim QP per step and injects as
#    that QP, with that QP's clock (MR-WIN-6): the whole-MR READ replayed
#    at the first PSN with MSN 0, replays older than 256 PSNs and outside
#    what a READ covered, the whole MR and 1 MiB READs in 64 KiB READ_REQs
#    and overlapping re-requests, READ_REQs over 64 KiB, one READ beyond
#    max_dest_rd_atomic, wrong, other-PD, stale and guessed R_Keys,
#    operations the QP does not enable, out-of-window PSNs, misaligned and
#    duplicate atomics, MSNs and SSNs no requester sends, forged ACK/NACK
#    at the victim's requester (true and stale echoes, MR-SEC-6), trimmed,
#    truncated, bad-ICRC and mutated packets (the step table: mr-hostile
#    --list).
#
# Pass criteria, each checked (a failed one fails the scenario; all are
# checked and listed before it ends):
#
#  1. No kernel report in either guest: the harness judges the whole log
#     (BUG, WARNING, Oops, KASAN, UBSAN, lockdep, hung task, soft lockup,
#     kmemleak); here also "NETDEV WATCHDOG" / "transmit queue N timed out".
#  2. mr-verify verifies everything, exit status 0: the genuine QPs are not
#     disturbed by anything an off-path attacker or a peer of another QP
#     can do (MR-SEC-4, MR-MAL-1, MR-ICRC-4, MR-REL-7, MR-REL-10, MR-REL-20).
#  3. The attack tools report no violation: the off-path attacker's guard
#     refused nothing; for the insider, KEEP steps left the victim QP in
#     RTS, DIE steps ended it in ERR with the status the spec names
#     (MR-SEC-10, MR-VERBS-21, MR-VERBS-22) after the fatal NACK the spec
#     names, for the refused request's PSN and with cum_psn there, after
#     the responses of earlier READs (MR-VERBS-24, MR-REL-33), every READ
#     response carried exactly the MR's bytes (never one outside it, only
#     what a valid READ_REQ of its READ asked for: MR-REL-8, none to a
#     duplicate older than 256 PSNs: MR-REL-1), atomic responses the MR's
#     word, every WR completed, no byte outside a region the insider may
#     write changed, the MR kept its pattern, the health probe (a verified
#     READ) worked at every step, and the victim answered its control
#     channel within HOSTILE_MAX_CTL_MS (3000 ms): its user space still
#     ran.
#  4. The hosts stay responsive: each VM pings the other every 0.5 s during
#     the attack; at most HOSTILE_MAX_LOSS_PCT (10 %) lost and no round trip
#     over HOSTILE_MAX_RTT_MS (2000 ms) once the longest time either guest
#     was not run by its host or held by QEMU (at most half the bound) is
#     taken off it.
#     An emulated VM answers in well under 100 ms even under this load;
#     the field failure (a replayed whole-MR READ generated in one
#     softirq) froze a host for 15 s. Every run logs "cpu during the
#     attack": the longest gap of a 0.5 s sampler, the irq and softirq
#     time within it and the time the guest accounted to nothing, which
#     tells a stall of the kernel's own making (the gap filled with
#     softirq time) from the guest not being run by its host (unaccounted
#     time; the debug kernel under TCG shows pauses of 1-3 s on a loaded
#     host).
#  5. Bounded bursts: MetaRoCE packets each device sent that the other never
#     received, over the attack, at most 5 % of tx_packets + 2000: the
#     device's tx_packets minus the packets with a module source port
#     (0xC000 and up, MR-ENC-2) that arrived at the peer's NIC, counted there
#     by "mr-hostile --count" (rx_packets would include the attack packets).
#     A responder that paces READ responses
#     at its window over srtt (MR-CC-19) sends no more than its path
#     carries, so only the emulated link's own losses under host load
#     remain (the fault scenarios' control case sees up to about 5 %); one
#     unpaced whole-MR READ (262,144 packets of 1 KiB) overflows the egress
#     queue by far. The HOSTILE-WIRE line (and a failure) says where the
#     packets went: how many this VM's egress qdisc dropped, its
#     retransmissions, both VMs' longest host pause and the most mr0 sent
#     between two samples of the 0.5 s sampler: an unpaced burst shows as
#     qdisc drops and a large step, a host that did not run the receiver
#     as a long pause on the peer.
#  6. Memory: after the tools exited (every QP, MR and CQ of the attack
#     destroyed) and reclaimable caches were dropped and every slab cache
#     shrunk, SUnreclaim at most HOSTILE_SUNRECLAIM_KB (16 MiB) and the skb
#     objects (skbuff_* slab caches) at most HOSTILE_SKB_OBJS (1024) above
#     the level before the victim started. Nothing the attack makes the
#     kernel allocate may outlive it (MR-SEC-9); a leak of one skb per
#     attack packet (the tools send over 40,000) or of per-QP state of the
#     insider's 50-odd connections is far above these bounds, the per-CPU
#     slabs a 1-vCPU guest keeps after shrinking far below. During the
#     attack (sampled every second) the skb objects stay within
#     HOSTILE_PEAK_SKB_OBJS (8192) and SUnreclaim within
#     HOSTILE_PEAK_SUNRECLAIM_KB (64 MiB) of that level: what a paced
#     sender holds at once is an egress queue (txqueuelen 1000) and the NIC's
#     ring (256), a receive backlog (1000) and the capture sockets'
#     buffers (about 200 each, the insider's about 450), some 3,300 skbs
#     of at most 4 KiB; a responder
#     that builds a READ's responses in one go holds one skb per PMTU of it
#     (10,600 were measured with 1 MiB READs). On a KASAN kernel (the
#     e2e-debug tier) the skb caches are shrunk before each count, which
#     empties their share of KASAN's quarantine of freed objects; that
#     shrink scans the whole quarantine with interrupts off (on average
#     0.45 s per count, up to seconds), so there only the counts before and
#     after the attack are taken, and the peak is the stock kernel's check.
#  On a slower kernel (MR_SLOWDOWN, the e2e-debug tier's 3) the time bounds
#  of 3 and 4 and the tools' own bounds on the victim's kernel (flushing its
#  WRs, destroying its QP, serving the probe, ending a step) are that many
#  times longer.
#  7. The device deletes cleanly: "rdma link delete mr0" and "modprobe -r
#     metaroce" return (each within 60 s) and the log stays clean.
#
# On a failure the log shows the attack classes that were running when
# mr-verify failed, both VMs' counters (FAULT-COUNTERS, FAULT-WIRE), the QPs'
# transport state (rdma -dd res show qp) while mr-verify ran, the memory
# samples and every tool's summary (HOSTILE-SUMMARY, HOSTILE-STEP lines).
#
# HOSTILE_SECONDS=N ("make soak" sets it to SOAK_SECONDS and lengthens the
# timeout by as much), HOSTILE_RATE (packets/s per attacking tool, default
# 400), HOSTILE_SEED (default random, printed) and the bounds above can be
# given through MR_GUEST_ENV; for diagnosis, HOSTILE_OFFPATH_CLASSES and
# HOSTILE_INSIDER_CLASSES (comma-separated names from "mr-hostile --list")
# restrict the attack (the default, every class, is the test).
# shellcheck disable=SC2154 # fv_pid, fv_rc, fv_secs: set by faults.sh
# shellcheck disable=SC2086 # "set -- $list" splits on purpose

# shellcheck source=lib/verbs.sh
. /mr/e2e/verbs.sh
# shellcheck source=lib/faults.sh
. /mr/e2e/faults.sh
# shellcheck source=lib/hostile.sh
. /mr/e2e/hostile.sh

: "${HOSTILE_SECONDS:=40}"
: "${HOSTILE_RATE:=400}"
: "${HOSTILE_MR_MB:=256}"
: "${HOSTILE_SEED:=}"
: "${HOSTILE_OFFPATH_CLASSES:=}"
: "${HOSTILE_INSIDER_CLASSES:=}"
: "${MR_SLOWDOWN:=1}"
: "${HOSTILE_MAX_RTT_MS:=$((2000 * MR_SLOWDOWN))}"
: "${HOSTILE_MAX_LOSS_PCT:=10}"
: "${HOSTILE_MAX_CTL_MS:=$((3000 * MR_SLOWDOWN))}"
: "${HOSTILE_SUNRECLAIM_KB:=16384}"
: "${HOSTILE_SKB_OBJS:=1024}"
: "${HOSTILE_PEAK_SKB_OBJS:=8192}"
: "${HOSTILE_PEAK_SUNRECLAIM_KB:=65536}"
for hv in HOSTILE_SECONDS HOSTILE_RATE HOSTILE_MR_MB HOSTILE_MAX_RTT_MS \
	HOSTILE_MAX_LOSS_PCT HOSTILE_MAX_CTL_MS HOSTILE_SUNRECLAIM_KB \
	HOSTILE_SKB_OBJS HOSTILE_PEAK_SKB_OBJS HOSTILE_PEAK_SUNRECLAIM_KB; do
	eval "hval=\$$hv"
	case "$hval" in '' | *[!0-9]*) mr_fail "$hv='$hval': a number, please" ;; esac
done
[ "$HOSTILE_SECONDS" -ge 10 ] || mr_fail "HOSTILE_SECONDS must be at least 10"
case "$HOSTILE_SEED" in
'') HOSTILE_SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') ;;
*[!0-9]*) mr_fail "HOSTILE_SEED='$HOSTILE_SEED': a number, please" ;;
esac
hs_seed_given=$HOSTILE_SEED
for ht in mr-verify mr-hostile; do
	command -v $ht >/dev/null || mr_fail "$ht is not in the guest (build userspace/tools first)"
done

vt_setup metaroce mr0
# One seed for the pair (the server's), so that a run can be replayed with
# HOSTILE_SEED.
hs_seed_peer=$(vt_xchg hostile-seed "$hs_seed_given")
[ "$MR_ROLE" = server ] || HOSTILE_SEED=$hs_seed_peer
case "$HOSTILE_SEED" in '' | *[!0-9]*) mr_fail "no seed from the server ($HOSTILE_SEED)" ;; esac
case "$MR_ROLE" in
server) hs_sbase=$HOSTILE_SEED ;;
*) hs_sbase=$((HOSTILE_SEED + 100)) ;;
esac
# faults.sh's counter and mr-verify helpers work on this device.
# shellcheck disable=SC2034
FAULT_DEV=mr0
# shellcheck disable=SC2034
FAULT_RDMA_TYPE=metaroce
mr_log "hostile: ${HOSTILE_SECONDS}s at $HOSTILE_RATE packets/s per tool, seed $HOSTILE_SEED (this VM's tools: $hs_sbase + 1..3)"

# Memory before anything of the attack exists.
hs_settle
hs_before=$(hs_mem)
mr_log "memory before: Slab SUnreclaim MemAvailable (kB) skb-objects = $hs_before"
[ "$hs_kasan" = no ] ||
	mr_log "memory: a KASAN kernel: the skb caches are shrunk before each count (their quarantine), counted before and after the attack only"

# The insider's victim (server).
hs_victim_ok=ok
if [ "$MR_ROLE" = server ]; then
	(
		hs_r=0
		mr-hostile --victim -d mr0 -g "$VT_GID" -p 18790 \
			--mr-size "${HOSTILE_MR_MB}m" --seed $((hs_sbase + 3)) \
			--time $((HOSTILE_SECONDS + 400)) --connect-timeout 240 \
			--slowdown "$MR_SLOWDOWN" \
			>/tmp/victim.out 2>&1 || hs_r=$?
		echo $hs_r >/tmp/victim.rc
	) &
	hs_n=0
	until grep -q VICTIM-READY /tmp/victim.out 2>/dev/null; do
		hs_n=$((hs_n + 1))
		if [ -f /tmp/victim.rc ] || [ $hs_n -gt 600 ]; then
			hs_show /tmp/victim.out
			hs_fail victim "mr-hostile --victim did not come up"
			hs_victim_ok=fail
			break
		fi
		sleep 0.2
	done
fi
hs_victim_ok=$(vt_xchg hostile-victim "$hs_victim_ok")
[ "$MR_ROLE" = server ] || [ "$hs_victim_ok" = ok ] ||
	hs_fail victim "the server's victim did not come up ($hs_victim_ok)"

fc_snap /tmp/fc.before
hs_qdrops0=$(hs_egress_drops)
mr-hostile --count "$MR_PEER_IP" -i eth0 --time $((HOSTILE_SECONDS + 900)) \
	>/tmp/count.out 2>&1 &
hs_count=$!
fv_start -d mr0 --connect-timeout 90 -q 2 -s 1,1000,mtu+1,4097,65536 -n 8 \
	--phase-bytes 256k --timeout 18 --time $((HOSTILE_SECONDS + 10))
hs_sampler_start /tmp/mem.samples
hs_cpu_start /tmp/cpu.samples
ping -i 0.5 -c $((HOSTILE_SECONDS * 2)) "$MR_PEER_IP" >/tmp/ping.out 2>&1 &
hs_ping=$!
sleep 2

# The attackers: each VM off-path against the other, the client the insider.
hs_ocl=""
hs_icl=""
[ -z "$HOSTILE_OFFPATH_CLASSES" ] || hs_ocl="--classes=$HOSTILE_OFFPATH_CLASSES"
[ -z "$HOSTILE_INSIDER_CLASSES" ] || hs_icl="--classes=$HOSTILE_INSIDER_CLASSES"
(
	hs_r=0
	mr-hostile --offpath "$MR_PEER_IP" -i eth0 --rate "$HOSTILE_RATE" $hs_ocl \
		--time "$HOSTILE_SECONDS" --seed $((hs_sbase + 1)) >/tmp/offpath.out 2>&1 || hs_r=$?
	echo $hs_r >/tmp/offpath.rc
) &
hs_tools="/tmp/offpath.rc"
if [ "$MR_ROLE" = client ] && [ "$hs_victim_ok" = ok ]; then
	(
		hs_r=0
		mr-hostile --insider "$MR_PEER_IP" -d mr0 -g "$VT_GID" -p 18790 -i eth0 \
			--rate "$HOSTILE_RATE" --time "$HOSTILE_SECONDS" $hs_icl \
			--seed $((hs_sbase + 2)) --max-latency "$HOSTILE_MAX_CTL_MS" \
			--slowdown "$MR_SLOWDOWN" \
			--connect-timeout 120 >/tmp/insider.out 2>&1 || hs_r=$?
		echo $hs_r >/tmp/insider.rc
	) &
	hs_tools="$hs_tools /tmp/insider.rc"
fi
[ "$MR_ROLE" = server ] && [ "$hs_victim_ok" = ok ] && hs_tools="$hs_tools /tmp/victim.rc"

# Until mr-verify and every tool have ended (bounded).
hs_t0=$(date +%s)
hs_fv_end=""
while :; do
	hs_alive=0
	if kill -0 "$fv_pid" 2>/dev/null; then
		hs_alive=1
	elif [ -z "$hs_fv_end" ]; then
		hs_fv_end=$(date +%s)
	fi
	for hs_rc in $hs_tools; do
		[ -f "$hs_rc" ] || hs_alive=1
	done
	[ $hs_alive -eq 0 ] && break
	# mr-verify's control messages wait at most 150 s, the insider's
	# steps 60 s, the victim's final MR check 120 s.
	if [ $(($(date +%s) - hs_t0)) -gt $((HOSTILE_SECONDS + 200)) ]; then
		hs_fail hang "mr-verify or an attack tool still running $((HOSTILE_SECONDS + 200)) s after the start"
		ps | grep -E '[m]r-(verify|hostile)' | grep -v -e --count | sed 's/^/    /'
		for hs_p in $(ps | awk '/[m]r-(verify|hostile)/ && !/--count/ { print $1 }'); do
			kill -9 "$hs_p" 2>/dev/null || true
		done
		break
	fi
	sleep 1
done
[ -n "$hs_fv_end" ] || hs_fv_end=$(date +%s)
fv_wait
wait "$hs_ping" 2>/dev/null || true
hs_sampler_stop
hs_cpu_stop

# --- 3. the tools' verdicts ------------------------------------------------
for hs_t in offpath insider victim; do
	[ -f /tmp/$hs_t.out ] || continue
	mr_log "mr-hostile --$hs_t:"
	hs_show /tmp/$hs_t.out
	hs_r=$(cat /tmp/$hs_t.rc 2>/dev/null || echo none)
	if [ "$hs_r" != 0 ]; then
		# The first violation in the verdict itself: the summary of a
		# run (CI's tail) then tells which rule broke, not only that one did.
		hs_fail "$hs_t" "mr-hostile --$hs_t exit status $hs_r: $(grep -c 'VIOLATION' /tmp/$hs_t.out) violation line(s); first: $(grep -m1 'VIOLATION' /tmp/$hs_t.out | sed 's/^.*VIOLATION: *//' | cut -c1-400)"
	fi
done
grep -h 'VIOLATION:' /tmp/offpath.out /tmp/insider.out /tmp/victim.out 2>/dev/null |
	head -20 | sed 's/^/    /'

# --- 2. mr-verify ------------------------------------------------------------
if ! fv_passed; then
	hs_fail verify "mr-verify did not verify (exit status $fv_rc after ${fv_secs}s)"
	mr_log "attack classes running on this VM when mr-verify ended ($(date -d "@$hs_fv_end" 2>/dev/null || echo "$hs_fv_end")):"
	hs_classes_at "$hs_fv_end" /tmp/offpath.out /tmp/insider.out
fi

# --- 4. responsiveness -------------------------------------------------------
# A round trip also waits while a host does not run its guest at all
# (TCG on a loaded host: "clocksource: Long readout interval" of 2.5 s
# seen in both guests at once). The longer of the two VMs' longest host
# pauses is not the attack's doing and comes off the slowest round trip
# before the bound applies; a stall of a guest's own kernel is accounted
# (softirq) and counts in full. A VM's pause is the longer of the time
# it accounted to nothing (hs_cpu_pause) and its longest clocksource
# readout (hs_readout_pause: QEMU held the vCPU, e.g. 4.8 s once while
# the guest's accounting saw 0.3 s). At most half the bound comes off: a
# kernel stall with interrupts off would also go unaccounted, and one as
# long as the field failure's must still fail.
hs_pause=$(hs_cpu_pause /tmp/cpu.samples)
hs_readout=$(hs_readout_pause /tmp/cpu.samples)
[ "$hs_readout" -gt "$hs_pause" ] && hs_pause=$hs_readout
hs_peer_pause=$(vt_xchg hostile-pause "$hs_pause")
case "$hs_peer_pause" in '' | *[!0-9]*) hs_peer_pause=0 ;; esac
hs_host_pause=$hs_pause
[ "$hs_peer_pause" -gt "$hs_host_pause" ] && hs_host_pause=$hs_peer_pause
[ "$hs_host_pause" -gt $((HOSTILE_MAX_RTT_MS / 2)) ] && hs_host_pause=$((HOSTILE_MAX_RTT_MS / 2))
sed 's/^/  ping: /' /tmp/ping.out | tail -3
hs_ptx=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' /tmp/ping.out)
hs_prx=$(sed -n 's/.* \([0-9]*\) packets received.*/\1/p' /tmp/ping.out)
hs_max=$(sed -n 's/^round-trip .* = [0-9.]*\/[0-9.]*\/\([0-9]*\).*/\1/p' /tmp/ping.out)
if [ -z "$hs_ptx" ] || [ "$hs_ptx" -eq 0 ]; then
	hs_fail responsive "ping of $MR_PEER_IP sent nothing: $(tail -2 /tmp/ping.out | tr '\n' ' ')"
else
	if [ $(((hs_ptx - ${hs_prx:-0}) * 100)) -gt $((hs_ptx * HOSTILE_MAX_LOSS_PCT)) ]; then
		hs_fail responsive "$MR_PEER_IP answered ${hs_prx:-0} of $hs_ptx pings during the attack (at most $HOSTILE_MAX_LOSS_PCT % may be lost)"
	fi
	if [ -n "$hs_max" ] && [ $((hs_max - hs_host_pause)) -gt "$HOSTILE_MAX_RTT_MS" ]; then
		hs_fail responsive "a ping of $MR_PEER_IP took $hs_max ms during the attack, $((hs_max - hs_host_pause)) ms without the longest host pause ($hs_host_pause ms) (bound $HOSTILE_MAX_RTT_MS ms)"
	fi
	mr_log "$MR_PEER_IP answered ${hs_prx:-0}/$hs_ptx pings, max round trip ${hs_max:-?} ms; the longest host pause $hs_pause ms here (clocksource readout $hs_readout ms), $hs_peer_pause ms on the peer"
fi
# Where a stall came from (hs_cpu_gaps): logged on every run.
mr_log "cpu during the attack: $(hs_cpu_gaps /tmp/cpu.samples)"

# --- 6. memory -------------------------------------------------------------
sleep 3
hs_settle
hs_after=$(hs_mem)
mr_log "memory after:  Slab SUnreclaim MemAvailable (kB) skb-objects = $hs_after"
set -- $hs_before
hs_b_unrec=$2
hs_b_skb=$4
set -- $hs_after
if [ $(($2 - hs_b_unrec)) -gt "$HOSTILE_SUNRECLAIM_KB" ]; then
	hs_fail memory "SUnreclaim grew by $(($2 - hs_b_unrec)) kB over the attack (bound $HOSTILE_SUNRECLAIM_KB kB)"
fi
if [ $(($4 - hs_b_skb)) -gt "$HOSTILE_SKB_OBJS" ]; then
	hs_fail memory "$(($4 - hs_b_skb)) more skb objects after the attack than before (bound $HOSTILE_SKB_OBJS)"
fi
hs_peak=$(awk 'BEGIN { u = 0; s = 0 } { if ($3 > u) u = $3; if ($5 > s) s = $5 }
	END { print u, s, NR }' /tmp/mem.samples)
set -- $hs_peak
if [ "$hs_kasan" = yes ]; then
	mr_log "memory peak during the attack: not sampled on a KASAN kernel (a count flushes the quarantine, which freezes the guest)"
elif [ "$3" -lt 10 ]; then
	hs_fail memory "only $3 memory samples during the attack (one a second expected)"
else
	mr_log "memory peak during the attack ($3 samples): SUnreclaim $1 kB, skb objects $2"
fi
if [ "$hs_kasan" = no ] && { [ $(($1 - hs_b_unrec)) -gt "$HOSTILE_PEAK_SUNRECLAIM_KB" ] ||
	[ $(($2 - hs_b_skb)) -gt "$HOSTILE_PEAK_SKB_OBJS" ]; }; then
	hs_fail memory "peak during the attack: SUnreclaim +$(($1 - hs_b_unrec)) kB (bound $HOSTILE_PEAK_SUNRECLAIM_KB), skb objects +$(($2 - hs_b_skb)) (bound $HOSTILE_PEAK_SKB_OBJS)"
	mr_log "memory samples (time Slab SUnreclaim MemAvailable skb):"
	sed 's/^/    /' /tmp/mem.samples | tail -30
fi

# --- 1. the log --------------------------------------------------------------
if dmesg | grep -E 'NETDEV WATCHDOG|transmit queue [0-9]+ timed out' >/tmp/wd.out; then
	head -5 /tmp/wd.out | sed 's/^/    /'
	hs_fail log "the NIC's transmit watchdog fired"
fi
if dmesg | grep -E '(BUG:|WARNING:|Oops|general protection fault|KASAN:|UBSAN:|kernel BUG at|Call Trace:|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|blocked for more than|soft lockup|rcu_sched self-detected stall|rcu: INFO)' >/tmp/kr.out; then
	head -20 /tmp/kr.out | sed 's/^/    /'
	hs_fail log "kernel report in the guest log during the attack"
fi

# This VM's counters now: the peer may be the one that hangs.
fc_snap /tmp/fc.local
echo "HOSTILE-COUNTERS $MR_ROLE (moved during the run): $(awk -F= 'NR == FNR { b[$1] = $2; next }
	$2 - b[$1] != 0 { printf "%s=%.0f ", $1, $2 - b[$1] }' /tmp/fc.before /tmp/fc.local)"

# --- 5. bounded bursts (counters of both VMs) -------------------------------
mr_barrier hostile-counters
kill -TERM "$hs_count" 2>/dev/null || true
wait "$hs_count" 2>/dev/null || true
hs_got=$(sed -n 's/^HOSTILE-COUNT .* packets=\([0-9]*\).*/\1/p' /tmp/count.out)
[ -n "$hs_got" ] || hs_fail burst "no count of the peer's packets: $(cat /tmp/count.out)"
hs_peer_got=$(vt_xchg hostile-count "${hs_got:-none}")
fc_measure hostile /tmp/fc.before
hs_tx=$(fc_value my_tx_packets)
hs_qdrops=$(($(hs_egress_drops) - ${hs_qdrops0:-0}))
# Where the lost packets went, for the line below and a failure.
hs_where="dropped by this VM's egress qdisc $hs_qdrops, retransmissions $(fc_value my_retransmissions), the longest host pause $hs_pause ms here and $hs_peer_pause ms on the peer, the most sent between two samples $(hs_tx_burst /tmp/cpu.samples)"
case "$hs_peer_got" in
'' | *[!0-9]*) hs_fail burst "no count from the peer ($hs_peer_got)" ;;
*)
	echo "HOSTILE-WIRE $MR_ROLE: mr0 here sent ${hs_tx:-?} packets, ${hs_peer_got} reached the peer's NIC ($((${hs_tx:-0} - hs_peer_got)) lost); from the peer ${hs_got:-?} reached this NIC; $hs_where"
	if [ $((${hs_tx:-0} - hs_peer_got)) -gt $((${hs_tx:-0} / 20 + 2000)) ]; then
		hs_fail burst "mr0 here sent ${hs_tx:-?} MetaRoCE packets, only $hs_peer_got reached the peer: more than the path carried (MR-CC-19); $hs_where"
	fi
	;;
esac

# --- 7. clean deletion -------------------------------------------------------
if [ -n "$hs_failures" ]; then
	mr_log "QPs of mr0 after the attack (rdma -dd res show qp):"
	rdma -dd res show qp link mr0/1 2>&1 | head -40 | sed 's/^/    /'
fi
hs_end=$(vt_xchg hostile-end "${hs_failures:-none}")
[ "$hs_end" = lost-contact ] && hs_fail peer "the peer did not reach the end of the attack"
timeout 60 rdma link delete mr0 || hs_fail delete "rdma link delete mr0 failed or hung"
timeout 60 modprobe -r metaroce || hs_fail delete "modprobe -r metaroce failed or hung"
if dmesg | grep -E '(BUG:|WARNING:|Oops|KASAN:|UBSAN:|Call Trace:|blocked for more than|soft lockup|NETDEV WATCHDOG)' >/tmp/kr.out; then
	head -20 /tmp/kr.out | sed 's/^/    /'
	hs_fail log "kernel report in the guest log after the teardown"
fi

echo "HOSTILE-RESULT $MR_ROLE $([ -z "$hs_failures" ] && echo ok || echo "FAIL:$hs_failures") peer:$hs_end seed=$HOSTILE_SEED"
[ -z "$hs_failures" ] || mr_fail "hostile peer test failed:$hs_failures"
