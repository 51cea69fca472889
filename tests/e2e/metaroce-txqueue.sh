# topology: pair
# timeout: 300
# smp: 2
# link: tap
# One QP leaves by one transmit queue (design.rst, "Transmit queues"): a
# sender that spreads one QP's packets over its NIC's queues reorders them
# itself, before any fabric does, and the receiver takes the reordering
# for loss. Two vCPUs per VM and a multiqueue virtio-net with one queue
# pair per vCPU (the "link: tap" header: tests/vm/run.sh --link tap); the
# module's default spraying, so that one QP's packets, and its ACKs, come
# in on both receive queues, and its requester and responder run on both
# CPUs. ib_write_bw over one RC QP, 65536 bytes x 500, then the same with
# the client VM listening; then both again with XPS off on both VMs (every
# tx-<N>/xps_cpus emptied), where the stack picks the queue by its
# transmit hash. Each VM takes the delta of every transmit queue's packet
# counter of its NIC (ethtool -S: tx_queue_<N>_packets) and of mr0's
# tx_packets over each run.
# Pass, on both VMs and in all four runs: one transmit queue's delta is at
# least mr0's (every MetaRoCE packet may have left by it; the others carry
# only the harness's own few TCP packets); the requester's mr0 sent at
# least 8000 packets (500 messages of at least 16 packets: 4096 bytes is
# the largest path MTU) and the responder's at least 1000 (an ACK at
# least every 8 request packets: ack_every is at most 8, MR-REL-3 a); two
# CPUs online and two queue pairs in use on both VMs; the kernel log
# clean.
. /mr/e2e/verbs.sh

ethtool() { /usr/sbin/ethtool "$@"; }

ITERS=500

# txq_snap FILE: "queue packets" per transmit queue of eth0.
txq_snap() {
	ethtool -S eth0 |
		sed -n 's/^ *tx_queue_\([0-9]*\)_packets: *\([0-9]*\)$/\1 \2/p' >"$1"
	[ "$(wc -l <"$1")" -ge 2 ] ||
		mr_fail "ethtool -S eth0 shows $(wc -l <"$1") transmit queue counters, not 2"
}

[ "$(nproc)" -eq 2 ] || mr_fail "$(nproc) CPUs online, not 2"
why=$(mr_nic_queues eth0 2) || mr_fail "$why"

vt_setup metaroce mr0
rm -f /tmp/vt-perf-failures
for run in "server xps" "client xps" "server noxps" "client noxps"; do
	listener=${run% *}
	xps=${run#* }
	if [ "$xps" = noxps ]; then
		for f in /sys/class/net/eth0/queues/tx-*/xps_cpus; do
			echo 0 >"$f" || mr_fail "cannot clear $f"
			[ "$(tr -d '0,\n' <"$f")" = "" ] || mr_fail "$f still $(cat "$f")"
		done
	fi
	if [ "$MR_ROLE" = "$listener" ]; then
		what="responder"
		least=$((ITERS * 2))
	else
		what="requester"
		least=$((ITERS * 16))
	fi
	txq_snap /tmp/txq.0
	mr0_0=$(vt_counter tx_packets)
	vt_perftest "$listener" ib_write_bw 65536 "$ITERS"
	txq_snap /tmp/txq.1
	mr0=$(($(vt_counter tx_packets) - mr0_0))
	# Each queue's delta, the largest last.
	awk 'NR == FNR { a[$1] = $2; next } { print $1, $2 - a[$1] }' \
		/tmp/txq.0 /tmp/txq.1 | sort -n -k2 >/tmp/txq.d
	spread=$(awk '{ printf "%squeue %s: %s", s, $1, $2; s = ", " }' /tmp/txq.d)
	mr_log "$what ($listener VM listens, $xps): mr0 sent $mr0 packets; eth0 sent $spread"
	[ "$mr0" -ge "$least" ] ||
		mr_fail "$what: mr0 sent $mr0 packets, fewer than the $least the transfer needs"
	top=$(tail -n 1 /tmp/txq.d | cut -d' ' -f2)
	[ "$top" -ge "$mr0" ] ||
		mr_fail "$what ($xps): one QP's $mr0 packets left by several transmit queues ($spread)"
done
vt_perf_check
vt_teardown
