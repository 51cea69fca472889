# topology: pair
# timeout: 240
# The harness's own proof and the baseline peer benchmarks compare against:
# Soft-RoCE (rdma_rxe) between the two VMs, ib_write_bw in both directions.

modprobe rdma_rxe || mr_fail "modprobe rdma_rxe"
rdma link add rxe0 type rxe netdev eth0 || mr_fail "rdma link add rxe0"
rdma link show rxe0/1 | grep -q 'state ACTIVE' || mr_fail "rxe0 not ACTIVE"
ibv_devinfo -d rxe0 | grep -q 'link_layer:.*Ethernet' || mr_fail "ibv_devinfo"
mr_wait_peer

# GID index 1 is the RoCEv2 GID of the IPv4 address.
bw="ib_write_bw -d rxe0 -x 1 -s 65536 -n 200 -F"
for listener in server client; do
	mr_pair $listener $bw >/tmp/bw.out 2>&1 || { cat /tmp/bw.out; mr_fail "ib_write_bw ($listener listens)"; }
	cat /tmp/bw.out
	# The result line: bytes, iterations, peak, average (MB/s), msg rate.
	awk '$1 == 65536 && $4 > 0 {ok = 1} END {exit !ok}' /tmp/bw.out ||
		mr_fail "no bandwidth result ($listener listens)"
done
rdma link delete rxe0 || mr_fail "rdma link delete"
modprobe -r rdma_rxe || mr_fail "modprobe -r rdma_rxe"
