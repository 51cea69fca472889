# topology: pair
# timeout: 600
# Revision 1.1 connection setup and capability negotiation in band (HELLO,
# MR-VER-9..MR-VER-17): unmodified perftest, connected both ways the
# applications connect QPs, negotiates without any change to them.  In
# each case a timed perftest runs from the client while both VMs sample
# their RC QP's "rdma -dd res show qp" (drv_hello, drv_peer_rev,
# drv_common_caps, ...) every 0.5 s; each side checks the last sample and
# the two sides compare their common sets.
#
#  1. both    Both devices revision 1.1, Full (hello_caps 7).  ib_write_bw
#             without -R (QPN and PSN exchanged over TCP, out of band):
#             both QPs settled, the peer is 1.1, common_caps 0x7 on both
#             (MR-VER-12, MR-VER-13); hello_sent and hello_received moved
#             on both; no hello_conflict.
#  2. core    The client withholds MULTIPATH and CC (hello_caps 0: a Core
#             peer, MR-VER-17, MR-CONF-3).  ib_send_bw -R (rdma_cm): the
#             transfer passes, both QPs settle on common_caps 0x1, the
#             server's QP sees the client's peer_caps 0x1 and the client's
#             own_caps is 0x1.
#  3. old     The server acts as a revision 1.0 node (hello 0): it sends no
#             HELLO and drops the client's as an unassigned opcode
#             (malformed_drops and opcode_drops, MR-VER-4, MR-MAL-9).
#             ib_write_bw without -R passes;
#             the client's QP gives up after its bounded tries (about a
#             second, MR-VER-14): hello old_peer, peer_rev 1.0,
#             common_caps 0x0, and its hello_unanswered moved; the server's
#             QP shows hello off and its hello_sent did not move.
# shellcheck source=lib/verbs.sh
. /mr/e2e/verbs.sh
# shellcheck source=lib/cm.sh
. /mr/e2e/cm.sh

CP=/sys/class/infiniband/mr0

# cp_set NAME VALUE: write a device attribute; it must read back.
cp_set() {
	echo "$2" >"$CP/$1" || mr_fail "writing $2 to $CP/$1 failed"
	[ "$(cat "$CP/$1")" = "$2" ] || mr_fail "$CP/$1 does not read $2"
	mr_log "mr0 $1 = $2"
}

# cp_sample_stop CASE: the sample, which must have seen a HELLO state.
cp_sample_stop() {
	vt_sample_stop
	[ -s /tmp/qp.last ] || mr_fail "$1: no RC QP with its HELLO state seen"
}

# cp_run CASE TOOL ARGS...: the timed perftest TOOL (4 s) from the client,
# the server listening, QPs connected out of band (TCP); sampled.
cp_run() {
	cr_case=$1
	shift
	vt_sample_start drv_hello
	cr_rc=0
	vt_pair server 150 /tmp/caps.out "$@" -d mr0 -x "$VT_GID" -F -D 4 ||
		cr_rc=$?
	vt_show /tmp/caps.out
	[ $cr_rc -eq 0 ] || mr_fail "$cr_case: $1 exit status $cr_rc"
	cp_sample_stop "$cr_case"
}

# cp_run_cm CASE: a timed ib_send_bw -R (4 s), connected through rdma_cm
# (cm_run: attempts the perftest race rejects are run again); sampled.
cp_run_cm() {
	vt_sample_start drv_hello
	cm_run "$1" server "ib_send_bw -d mr0 -F -R -s 4096 -D 4" \
		"ib_send_bw -d mr0 -F -R -s 4096 -D 4 $MR_PEER_IP" cm
	cp_sample_stop "$1"
}

# cp_expect CASE FIELD VALUE: drv_FIELD is VALUE (numbers compared as such).
cp_expect() {
	ce_v=$(vt_qp_field "$2")
	case "$3" in
	*.* | *[!0-9]*)
		[ "$ce_v" = "$3" ] || mr_fail "$1: drv_$2 is '$ce_v', expected $3" ;;
	*)
		case "$ce_v" in
		'' | *[!0-9a-fx]*) mr_fail "$1: drv_$2 is '$ce_v', expected $3" ;;
		esac
		[ $((ce_v)) -eq "$3" ] ||
			mr_fail "$1: drv_$2 is '$ce_v', expected $3" ;;
	esac
}

# cp_same CASE: both VMs' QPs show the same common set.
cp_same() {
	cs_mine=$(($(vt_qp_field common_caps)))
	cs_peer=$(vt_xchg "caps-$1" "$cs_mine")
	[ "$cs_peer" = "$cs_mine" ] ||
		mr_fail "$1: common_caps $cs_mine here, $cs_peer on the peer"
	mr_log "$1: common_caps $cs_mine on both sides"
}

# cp_moved CASE COUNTER BEFORE: the counter is above BEFORE now.
cp_moved() {
	cm_v=$(vt_counter "$2")
	[ "$cm_v" -gt "$3" ] || mr_fail "$1: $2 stayed at $cm_v"
}

vt_setup metaroce mr0
[ "$(cat $CP/hello)" = 1 ] || mr_fail "hello is not on by default"
[ "$(cat $CP/hello_caps)" = 7 ] || mr_fail "hello_caps is not 7 (Full) by default"

# 1. Both revision 1.1, Full; connected out of band.
tx0=$(vt_counter hello_sent)
rx0=$(vt_counter hello_received)
cp_run both ib_write_bw -s 65536
cp_expect both hello settled
cp_expect both peer_rev 1.1
cp_expect both common_caps 7
cp_expect both peer_caps 7
cp_moved both hello_sent "$tx0"
cp_moved both hello_received "$rx0"
[ "$(vt_counter hello_conflict)" = 0 ] || mr_fail "both: hello_conflict moved"
cp_same both

# 2. The client a Core peer; connected through rdma_cm.
[ "$MR_ROLE" = server ] || cp_set hello_caps 0
modprobe rdma_ucm || mr_fail "modprobe rdma_ucm"
cp_run_cm core
cp_expect core hello settled
cp_expect core common_caps 1
if [ "$MR_ROLE" = server ]; then
	cp_expect core peer_caps 1
	cp_expect core own_caps 7
else
	cp_expect core own_caps 1
	cp_expect core peer_caps 7
	cp_set hello_caps 7
fi
cp_same core

# 3. The server a revision 1.0 node.
[ "$MR_ROLE" = client ] || cp_set hello 0
un0=$(vt_counter hello_unanswered)
tx0=$(vt_counter hello_sent)
mal0=$(vt_counter malformed_drops)
op0=$(vt_counter opcode_drops)
cp_run old ib_write_bw -s 65536
if [ "$MR_ROLE" = server ]; then
	cp_expect old hello off
	[ "$(vt_counter hello_sent)" = "$tx0" ] ||
		mr_fail "old: the 1.0 node sent HELLOs"
	cp_moved old malformed_drops "$mal0"
	# ... by their reason, an unassigned opcode (MR-MAL-9)
	cp_moved old opcode_drops "$op0"
	mr_log "old: $(($(vt_counter malformed_drops) - mal0)) HELLOs dropped as unassigned"
	cp_set hello 1
else
	cp_expect old hello old_peer
	cp_expect old peer_rev 1.0
	cp_expect old common_caps 0
	cp_moved old hello_unanswered "$un0"
	mr_log "old: $(($(vt_counter hello_sent) - tx0)) HELLOs unanswered, QP on the base set"
fi
cp_same old

# rdma_ucm holds ib_uverbs, which "modprobe -r metaroce" also unloads
# (as lib/cm.sh does at its end).
modprobe -r rdma_ucm || mr_fail "modprobe -r rdma_ucm"
vt_teardown
