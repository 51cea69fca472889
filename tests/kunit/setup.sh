#!/bin/sh
# Guest setup for the MetaRoCE KUnit suites (run by the VM harness before
# the modules in modules.list are loaded). Builds the fabric the suites in
# kernel/tests/*_kunit.c expect, entirely inside the guest:
#
#   netns mra                         netns mrb
#   mrk0 192.0.2.1  2001:db8:77::1 <-> mrk1 192.0.2.2  2001:db8:77::2
#   mrk2 (no address)              <-> mrk3   (deleted by a test)
#   mrk4 (no address)              <-> mrk5   (down/up, MTU; moved to init_net)
#   mrk6 198.51.100.1 (netem)      <-> mrk7 198.51.100.2 (netem)
#   mrk8 203.0.113.1               <-> mrk9 203.0.113.2 (deleted in use)
#   mrbr0 198.18.0.1  2001:db8:78::1 (bridge, port mrk10)
#                                  <-> mrk11 198.18.0.2  2001:db8:78::2
#
# Documentation address ranges only (RFC 5737 / RFC 3849), and the
# benchmarking range 198.18.0.0/15 (RFC 2544) once those ran out; the
# traffic never leaves the veth pairs.
set -eu

# iproute2 by full path: busybox applets lack netns, veth and netem.
ip() { /usr/sbin/ip "$@"; }

ip netns add mra
ip netns add mrb

pair() {
	ip link add "$1" type veth peer name "$2"
	ip link set "$1" netns mra
	ip link set "$2" netns mrb
	ip -n mra link set "$1" up
	ip -n mrb link set "$2" up
}

pair mrk0 mrk1
pair mrk2 mrk3
pair mrk4 mrk5

ip -n mra link set lo up
ip -n mrb link set lo up
ip -n mra addr add 192.0.2.1/24 dev mrk0
ip -n mrb addr add 192.0.2.2/24 dev mrk1
ip -n mra addr add 2001:db8:77::1/64 dev mrk0 nodad
ip -n mrb addr add 2001:db8:77::2/64 dev mrk1 nodad

# A lossy, reordering pair for the loss-recovery suite (metaroce_loss):
# mrk6 (mra, 198.51.100.1) <-> mrk7 (mrb, 198.51.100.2), netem both ways.
pair mrk6 mrk7
ip -n mra addr add 198.51.100.1/24 dev mrk6
ip -n mrb addr add 198.51.100.2/24 dev mrk7
/usr/sbin/tc -n mra qdisc add dev mrk6 root netem delay 200us 100us loss 2% reorder 10%
/usr/sbin/tc -n mrb qdisc add dev mrk7 root netem delay 200us 100us loss 2% reorder 10%

# A pair deleted with traffic in flight by the teardown suite:
# mrk8 (mra, 203.0.113.1) <-> mrk9 (mrb, 203.0.113.2).
pair mrk8 mrk9
ip -n mra addr add 203.0.113.1/24 dev mrk8
ip -n mrb addr add 203.0.113.2/24 dev mrk9

# A Linux bridge under a MetaRoCE device (metaroce_net): mrbr0 (mra,
# 198.18.0.1, 2001:db8:78::1) with port mrk10 <-> mrk11 (mrb, 198.18.0.2,
# 2001:db8:78::2). The suite compares the bridge's tx_packets with the
# packets the device sent, so the bridge must send nothing of its own
# while it counts: no STP, no multicast snooping (no queries), no
# link-local address on it or its peer (no DAD, router solicitation or
# neighbour discovery from one), addresses without DAD, and permanent
# neighbour entries both ways (no ARP or neighbour solicitation), added
# once the links are up (a link going down flushes them).
ip link add mrk10 type veth peer name mrk11
ip link set mrk10 netns mra
ip link set mrk11 netns mrb
ip -n mra link add mrbr0 address 02:00:00:00:78:01 type bridge \
	stp_state 0 forward_delay 0 mcast_snooping 0
ip -n mra link set mrbr0 addrgenmode none
ip -n mra link set mrk10 addrgenmode none
ip -n mra link set mrk10 master mrbr0
ip -n mrb link set mrk11 address 02:00:00:00:78:02
ip -n mrb link set mrk11 addrgenmode none
ip -n mra link set mrk10 up
ip -n mra link set mrbr0 up
ip -n mrb link set mrk11 up
ip -n mra addr add 198.18.0.1/24 dev mrbr0
ip -n mrb addr add 198.18.0.2/24 dev mrk11
ip -n mra addr add 2001:db8:78::1/64 dev mrbr0 nodad
ip -n mrb addr add 2001:db8:78::2/64 dev mrk11 nodad
ip -n mra neigh add 198.18.0.2 lladdr 02:00:00:00:78:02 dev mrbr0 nud permanent
ip -n mra neigh add 2001:db8:78::2 lladdr 02:00:00:00:78:02 dev mrbr0 nud permanent
ip -n mrb neigh add 198.18.0.1 lladdr 02:00:00:00:78:01 dev mrk11 nud permanent
ip -n mrb neigh add 2001:db8:78::1 lladdr 02:00:00:00:78:01 dev mrk11 nud permanent
