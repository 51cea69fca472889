# topology: pair
# timeout: 300
# Mixed-fault soak: one continuous mr-verify run (every RC
# opcode, two QPs, both VMs requester in turn, every byte checked on both
# sides, new data every pass) for SOAK_SECONDS (default 60; "make soak
# SOAK_SECONDS=N" runs longer ones and lengthens the timeout by N) while
# both VMs change the netem fault on their eth0 egress every 8 seconds:
#
#   1 loss 1%            5 corruption 0.5%
#   2 burst loss (G-E)   6 all at once: loss 2%, duplication 1%, corruption
#   3 25% reordering,      0.1%, 5 ms +- 2 ms delay, 10% reordering
#     10 ms +- 5 ms      7 the client's eth0 down for 2 s and up
#   4 duplication 1%     8 no fault
#
# and round again. The run must verify everything with no error completion
# (the QP timeout is 18, a retry budget of about 8.6 s, longer than the
# flap; MR-RETRY-3). Then, over MetaRoCE, the counters summed over both VMs
# must show what the faults did, for the phases that ran: retransmissions
# and SACKs (loss, MR-REL-1, MR-REL-2), duplicate drops (MR-REL-7), ICRC
# drops (corruption, MR-ICRC-4; over IPv4 the UDP checksum is 0, MR-ENC-3),
# and retransmissions well under half of what was sent (MR-REL-22).
# FAULT_RDMA_TYPE=rxe runs it over Soft-RoCE (counters only logged).
# shellcheck disable=SC2086 # netem arguments are split on purpose

[ -f /mr/e2e/faults.sh ] || mr_fail "/mr/e2e/faults.sh missing (tests/e2e/lib/faults.sh)"
# shellcheck source=lib/faults.sh disable=SC2154 # fv_rc, fv_secs: set there
. /mr/e2e/faults.sh
: "${FAULT_RDMA_TYPE:=metaroce}"
: "${SOAK_SECONDS:=60}"
case "$SOAK_SECONDS" in '' | *[!0-9]*) mr_fail "SOAK_SECONDS='$SOAK_SECONDS': seconds, please" ;; esac
[ "$SOAK_SECONDS" -ge 10 ] || mr_fail "SOAK_SECONDS must be at least 10"
command -v mr-verify >/dev/null ||
	mr_fail "mr-verify is not in the guest (build userspace/tools first)"

fault_device_up "$FAULT_RDMA_TYPE"
mr_wait_peer
mr_log "soak: ${SOAK_SECONDS}s of mixed faults over $FAULT_DEV"

phase_secs=8
nphases=8
# phase_fault N: the netem arguments of phase N (or flap, none).
phase_fault() {
	case "$1" in
	1) echo "loss random 1%" ;;
	2) echo "loss gemodel 1% 25% 100% 0%" ;;
	3) echo "delay 10ms 5ms reorder 25% 50%" ;;
	4) echo "duplicate 1%" ;;
	5) echo "corrupt 0.5%" ;;
	6) echo "loss random 2% duplicate 1% corrupt 0.1% delay 5ms 2ms reorder 10%" ;;
	7) echo flap ;;
	*) echo none ;;
	esac
}

mr_barrier "soak"
fc_snap /tmp/fc.before
fv_start -d "$FAULT_DEV" --connect-timeout 90 -q 2 \
	-s 1,1000,mtu+1,4097,65536 -n 8 --phase-bytes 256k \
	--timeout 18 --time "$SOAK_SECONDS"

# Rotate the faults while the run lasts; note the phases that ran whole.
ph=0
done_phases=" "
while kill -0 "$fv_pid" 2>/dev/null; do
	i=$((ph % nphases + 1))
	f=$(phase_fault $i)
	t0=$(date +%s)
	case "$f" in
	none) fault_clear ;;
	flap)
		fault_clear
		if [ "$MR_ROLE" = client ]; then
			mr_log "soak: eth0 down for 2 s"
			fault_flap 2
		fi
		;;
	*) fault_link $f ;;
	esac
	while kill -0 "$fv_pid" 2>/dev/null &&
		[ $(($(date +%s) - t0)) -lt $phase_secs ]; do
		sleep 1
	done
	if [ $(($(date +%s) - t0)) -ge $phase_secs ]; then
		done_phases="$done_phases$i "
	fi
	ph=$((ph + 1))
done
fv_wait
fault_clear
fc_measure soak /tmp/fc.before
mr_log "soak: phases that ran in full:$done_phases"

fv_passed || fc_fail soak "the soak run did not verify (exit status $fv_rc)"
ran() {
	case "$done_phases" in *" $1 "*) return 0 ;; esac
	return 1
}
# The checks on what the faults did mean something only for a run that
# kept moving data through the phases: after a failed run they are skipped.
if [ "$FAULT_RDMA_TYPE" = metaroce ] && fv_passed; then
	fc_check soak "tx_packets > 0 && rx_packets > 0"
	if ran 1 || ran 2; then
		fc_check soak "retransmissions > 0 && sacks_sent > 0 && sacks_received > 0"
	fi
	if ran 4; then
		fc_check soak "duplicate_drops > 0"
	fi
	if ran 5; then
		fc_check soak "icrc_drops > 0"
	fi
	fc_check soak "retransmissions * 2 <= tx_packets"
fi
echo "FAULT-CASE soak $([ -z "$fc_failures" ] && echo ok || echo FAIL) ${fv_secs}s $(fv_summary)"

mr_barrier "soak-end"
fault_device_down
[ -z "$fc_failures" ] || mr_fail "soak failed:$fc_failures"
