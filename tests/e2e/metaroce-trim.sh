# topology: pair
# timeout: 360
# Packet trimming as switch ASICs do it (MR-TRIM-1..5, MR-REL-16, MR-LOSS-10,
# MR-CC-9): on the client's eth0 egress a tc eBPF program
# (tests/vm/guest/trim.bpf.c, /mr/bpf/trim.o) plays the trimming switch:
# one in 8 MetaRoCE data packets is cut to 128 bytes of IP packet and
# re-marked with DSCP 6, IP length, header checksum and UDP length fixed,
# UDP checksum zeroed; no TRIM flag, no ICRC kept. mr-verify runs RC
# traffic of every opcode, both VMs requester in turn, every byte checked:
# the client's WRITEs and SENDs and its READ responses are trimmed.
#
#   detect    trim_dscp at its default (6): the run verifies; the server
#             took the cut packets as trimmed (trimmed_received), without
#             an ICRC or malformed drop (MR-TRIM-2), NACKed them TRIMMED
#             (MR-REL-16, nack_sent_trimmed) or dropped trimmed READ
#             responses; the client received NACK TRIMMED and retransmitted
#             at least as many packets (MR-LOSS-10)
#   off       trim_dscp 64 on the server (no trimmed codepoint): the same
#             cut packets are ICRC drops, nothing is taken as trimmed, and
#             the run still verifies (RACK and the RTO recover them)
#
# Per case, both consoles get a line TRIM-CASE <case> <ok|FAIL>.

[ -f /mr/e2e/faults.sh ] || mr_fail "/mr/e2e/faults.sh missing (tests/e2e/lib/faults.sh)"
# shellcheck source=lib/faults.sh disable=SC2154 # fv_rc: set there
. /mr/e2e/faults.sh
command -v mr-verify >/dev/null ||
	mr_fail "mr-verify is not in the guest (build userspace/tools first)"
[ -f /mr/bpf/trim.o ] || mr_fail "/mr/bpf/trim.o missing (tests/vm/mkinitramfs.sh)"

fault_device_up metaroce
mr_wait_peer
attr=/sys/class/infiniband/$FAULT_DEV/trim_dscp
[ "$(cat "$attr")" = 6 ] || mr_fail "$attr is $(cat "$attr"), not the default 6"

plan="-d $FAULT_DEV --connect-timeout 90 -s 1000,mtu+1,4097,65536 -n 8 --phase-bytes 128k --timeout 18"

if [ "$MR_ROLE" = client ]; then
	modprobe sch_ingress || mr_fail "modprobe sch_ingress"
	modprobe cls_bpf || mr_fail "modprobe cls_bpf"
	tc qdisc add dev eth0 clsact || mr_fail "tc qdisc add clsact"
	tc filter add dev eth0 egress bpf da obj /mr/bpf/trim.o sec trim ||
		mr_fail "tc filter add bpf trim.o"
	mr_log "trimmer on eth0 egress: $(tc filter show dev eth0 egress | tr -s ' \n' '  ')"
fi

verdict() {
	case " $fc_failures " in
	*" $1 "* | *" $1:"*) echo "TRIM-CASE $1 FAIL" ;;
	*) echo "TRIM-CASE $1 ok" ;;
	esac
}

# --- detect: the default trimmed codepoint ---------------------------------
mr_barrier case-detect
fc_snap /tmp/fc.before
# shellcheck disable=SC2086
fv_run $plan --time 25
fc_measure detect /tmp/fc.before
fv_passed || fc_fail detect "mr-verify did not verify the run (exit status $fv_rc)"
if [ "$MR_ROLE" = client ]; then
	fc_check detect "peer_trimmed_received > 0"
	fc_check detect "peer_nack_sent_trimmed > 0"
	fc_check detect "peer_icrc_drops == 0 && peer_malformed_drops == 0"
	fc_check detect "my_nack_rcvd_trimmed > 0"
	fc_check detect "my_retransmissions >= my_nack_rcvd_trimmed"
	# Nothing the server sends is cut.
	fc_check detect "my_trimmed_received == 0 && peer_nack_rcvd_trimmed == 0"
fi
verdict detect

# --- off: no trimmed codepoint on the receiver -----------------------------
[ "$MR_ROLE" = server ] && { echo 64 >"$attr" || mr_fail "echo 64 > $attr"; }
mr_barrier case-off
fc_snap /tmp/fc.before
# shellcheck disable=SC2086
fv_run $plan --time 10
fc_measure off /tmp/fc.before
fv_passed || fc_fail off "mr-verify did not verify the run (exit status $fv_rc)"
if [ "$MR_ROLE" = client ]; then
	fc_check off "peer_icrc_drops > 0"
	fc_check off "peer_trimmed_received == 0 && peer_nack_sent_trimmed == 0"
	fc_check off "my_retransmissions > 0"
fi
verdict off

if [ "$MR_ROLE" = client ]; then
	tc qdisc del dev eth0 clsact || mr_fail "tc qdisc del clsact"
else
	echo 6 >"$attr" || mr_fail "echo 6 > $attr"
fi
mr_barrier trim-end
fault_device_down
[ -z "$fc_failures" ] || mr_fail "trim cases failed:$fc_failures"
