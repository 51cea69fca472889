# topology: pair
# timeout: 240
# MetaRoCE device lifecycle on the stock Debian kernel: the module loads,
# "rdma link add" creates a device on the virtio NIC, the rdma tool shows
# the link, the device and its counters, the port follows the netdev, and
# "rdma link delete" and module removal leave a clean log (the harness
# fails the run on any kernel report).

modprobe metaroce || mr_fail "modprobe metaroce"
rdma link add mr0 type metaroce netdev eth0 || mr_fail "rdma link add mr0"

rdma link show mr0/1 >/tmp/link.out || mr_fail "rdma link show"
cat /tmp/link.out
grep -q 'state ACTIVE' /tmp/link.out || mr_fail "mr0/1 not ACTIVE"
grep -q 'netdev eth0' /tmp/link.out || mr_fail "mr0/1 not bound to eth0"

rdma dev show mr0 >/tmp/dev.out || mr_fail "rdma dev show"
cat /tmp/dev.out
grep -q '^[0-9]*: mr0:' /tmp/dev.out || mr_fail "rdma dev does not list mr0"

rdma statistic show link mr0/1 >/tmp/stat.out || mr_fail "rdma statistic show"
cat /tmp/stat.out
for c in tx_packets rx_packets retransmissions icrc_drops malformed_drops; do
	grep -q "$c" /tmp/stat.out || mr_fail "counter $c missing"
done

# RoCEv2-style GIDs for the NIC's addresses, so ib_core's address
# resolution and the standard tools work unchanged.
gids=/sys/class/infiniband/mr0/ports/1/gids
types=/sys/class/infiniband/mr0/ports/1/gid_attrs/types
found4=0
for i in 0 1 2 3 4 5 6 7; do
	g=$(cat "$gids/$i" 2>/dev/null) || continue
	t=$(cat "$types/$i" 2>/dev/null || true)
	case "$g" in
	0000:0000:0000:0000:0000:ffff:c000:020$(echo "$MR_MY_IP" | cut -d. -f4))
		echo "gid $i $g $t"
		[ "$t" = "RoCE v2" ] && found4=1 ;;
	esac
done
[ $found4 -eq 1 ] || mr_fail "no RoCE v2 GID for $MR_MY_IP"

# The port follows the netdev.
ip link set eth0 down
sleep 1
rdma link show mr0/1 | grep -q 'state DOWN' || mr_fail "port not DOWN with eth0 down"
ip link set eth0 up
n=0
until rdma link show mr0/1 | grep -q 'state ACTIVE'; do
	n=$((n + 1))
	[ $n -gt 50 ] && mr_fail "port not ACTIVE again after eth0 up"
	sleep 0.2
done

mr_barrier lifecycle-done
rdma link delete mr0 || mr_fail "rdma link delete"
rdma link show 2>/dev/null | grep -q 'mr0' && mr_fail "mr0 still listed after delete"
modprobe -r metaroce || mr_fail "modprobe -r metaroce"
lsmod | grep -q '^metaroce' && mr_fail "metaroce still loaded"
true
