#!/bin/sh
# Guest setup for the MetaRoCE KUnit suites (run by the VM harness before
# the modules in modules.list are loaded). Builds the fabric the suites in
# kernel/*_kunit.c expect, entirely inside the guest:
#
#   netns mra                         netns mrb
#   mrk0 192.0.2.1  2001:db8:77::1 <-> mrk1 192.0.2.2  2001:db8:77::2
#   mrk2 (no address)              <-> mrk3   (deleted by a test)
#   mrk4 (no address)              <-> mrk5   (down/up, MTU; moved to init_net)
#   mrk6 198.51.100.1 (netem)      <-> mrk7 198.51.100.2 (netem)
#   mrk8 203.0.113.1               <-> mrk9 203.0.113.2 (deleted in use)
#
# Documentation address ranges only (RFC 5737 / RFC 3849); the traffic
# never leaves the veth pairs.
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
