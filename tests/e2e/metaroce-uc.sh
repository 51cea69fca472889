# topology: pair
# timeout: 300
# Unreliable connected QPs (spec section UC) over MetaRoCE (mr0) between
# the two VMs, each VM listening once: ibv_uc_pingpong with buffer checks,
# 200 round trips of 4-packet messages (vt_uc_pingpong). Then this VM's
# counters over the runs: UC packets arrived (rx_packets), none was
# dropped and no message lost (uc_*_drops, duplicate_drops and
# msg_mismatch_drops unchanged: the VM link neither loses nor reorders
# across messages), and nothing answered them or went out twice (no ACK,
# NACK or retransmission, MR-UC-3, MR-UC-12).
. /mr/e2e/verbs.sh

UC_ZERO="uc_old_drops uc_late_drops uc_refused_drops uc_msg_drops duplicate_drops msg_mismatch_drops acks_sent nack_sent_seq_err retransmissions"

vt_setup metaroce mr0
rx0=$(vt_counter rx_packets)
for c in $UC_ZERO; do
	eval "z0_$c=\$(vt_counter $c)"
done
for listener in server client; do
	vt_uc_pingpong $listener
	mr_log "ibv_uc_pingpong ($(vt_role_of $listener)): ok"
done
rx=$(($(vt_counter rx_packets) - rx0))
# 2 runs x 200 messages of 4 packets received at least.
[ "$rx" -ge 1600 ] || mr_fail "rx_packets moved by $rx, want >= 1600"
for c in $UC_ZERO; do
	eval "z0=\$z0_$c"
	z=$(($(vt_counter "$c") - z0))
	[ "$z" -eq 0 ] || mr_fail "$c moved by $z during UC runs"
done
mr_log "counters: $rx packets received, no UC drop, no ACK, NACK or retransmission"
vt_teardown
