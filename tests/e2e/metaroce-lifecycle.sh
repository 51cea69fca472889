# topology: pair
# timeout: 240
# MetaRoCE device lifecycle on the stock Debian kernel: the module loads,
# "rdma link add" creates a device on the virtio NIC (and on a bond; a
# VLAN's addresses become GIDs of the NIC's device), the rdma tool shows the link, the device and its counters, the port
# follows the netdev, and
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

# A QP's transport state (the drv_* attributes of "rdma -dd res show qp",
# live PSNs among them) is shown to the administrator only (MR-SEC-12). mr0's GSI QP
# (lqpn 1, a kernel QP) exists from registration on; an unprivileged user
# (setpriv to nobody: no capabilities) still sees it listed, without the
# attributes. setpriv by full path: busybox has an applet of that name
# without --reuid.
rdma -dd res show qp link mr0/1 >/tmp/qp-root.out || mr_fail "rdma res show qp (root)"
cat /tmp/qp-root.out
grep -q 'lqpn 1 ' /tmp/qp-root.out || mr_fail "no GSI QP on mr0 for root"
grep -q 'drv_sq_head' /tmp/qp-root.out || mr_fail "root does not get the QP transport state"
/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \
	rdma -dd res show qp link mr0/1 >/tmp/qp-user.out ||
	mr_fail "rdma res show qp (unprivileged)"
cat /tmp/qp-user.out
grep -q 'lqpn 1 ' /tmp/qp-user.out || mr_fail "no GSI QP on mr0 for an unprivileged user"
if grep -q 'drv_' /tmp/qp-user.out; then
	mr_fail "an unprivileged user gets the QP transport state"
fi

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
mr_retry 50 0.2 mr_port_active mr0 || mr_fail "port not ACTIVE again after eth0 up"

# Any Ethernet netdev: a VLAN on the NIC and a bond (over a dummy slave).
# mr_has_gid DEV IPV4: the device has the RoCE v2 GID of that address.
mr_has_gid() {
	mr_gid_index "$1" "$2" >/dev/null
}
me=$(echo "$MR_MY_IP" | cut -d. -f4)
# A VLAN on the NIC: as with every RoCE device, ib_core adds the VLAN's
# addresses as GIDs of the device bound to the real NIC (mr0).
ip link add link eth0 name eth0.100 type vlan id 100 || mr_fail "vlan"
ip addr add "198.51.100.$me/24" dev eth0.100
ip link set eth0.100 up
# A bond (over a dummy slave) carries its own device.
ip link add bslave0 type dummy || mr_fail "dummy"
ip link add mrbond type bond mode active-backup || mr_fail "bond"
ip link set bslave0 master mrbond
ip link set mrbond up
ip addr add "203.0.113.$me/24" dev mrbond
rdma link add mrb type metaroce netdev mrbond || mr_fail "rdma link add on a bond"
rdma link show mrb/1 | tee /tmp/l.out
grep -q "state ACTIVE" /tmp/l.out || mr_fail "mrb not ACTIVE"
grep -q "netdev mrbond" /tmp/l.out || mr_fail "mrb not on mrbond"
for d in mr0:198.51.100.$me mrb:203.0.113.$me; do
	dev=${d%%:*}
	addr=${d#*:}
	n=0
	until mr_has_gid "$dev" "$addr"; do
		n=$((n + 1))
		if [ $n -gt 25 ]; then
			grep -H . /sys/class/infiniband/$dev/ports/1/gids/* | grep -v ':0000:0000:0000:0000:0000:0000:0000:0000$' || true
			mr_fail "$dev has no RoCE v2 GID for $addr"
		fi
		sleep 0.2
	done
	echo "$dev: RoCE v2 GID for $addr"
done
rdma link delete mrb || mr_fail "rdma link delete mrb"
ip link del mrbond
ip link del bslave0
ip link del eth0.100

mr_barrier lifecycle-done
rdma link delete mr0 || mr_fail "rdma link delete"
rdma link show 2>/dev/null | grep -q 'mr0' && mr_fail "mr0 still listed after delete"
modprobe -r metaroce || mr_fail "modprobe -r metaroce"
lsmod | grep -q '^metaroce' && mr_fail "metaroce still loaded"
true
