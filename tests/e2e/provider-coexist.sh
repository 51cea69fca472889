# topology: single
# timeout: 120
# The metaroce provider loads in a Debian 12 guest through
# /etc/libibverbs.d, registers with libibverbs, and does not claim (or
# crash on) a device that is not ours: rxe0 stays with the rxe provider.
modprobe rdma_rxe || mr_fail "modprobe rdma_rxe"
rdma link add rxe0 type rxe netdev eth0 || mr_fail "rdma link add rxe0"
ls -la /usr/lib/x86_64-linux-gnu/libibverbs/libmetaroce-rdmav34.so /etc/libibverbs.d/metaroce.driver || mr_fail "provider not installed"
IBV_SHOW_WARNINGS=1 LD_DEBUG=files ibv_devices >/tmp/dev.out 2>/tmp/dev.err || mr_fail "ibv_devices"
cat /tmp/dev.out
grep -E "libmetaroce|warning|Warning" /tmp/dev.err | grep -v "^ *$" | head -20
grep -q "calling init: .*libmetaroce-rdmav34.so" /tmp/dev.err || mr_fail "provider constructor not run"
grep "Warning" /tmp/dev.err | grep -qi metaroce && mr_fail "libibverbs warnings about metaroce"
grep -q rxe0 /tmp/dev.out || mr_fail "rxe0 not listed"
ibv_devinfo -d rxe0 >/tmp/info.out 2>&1 || { cat /tmp/info.out; mr_fail "ibv_devinfo rxe0"; }
grep -E "hca_id|transport|vendor_id|link_layer" /tmp/info.out
# rxe must still be served by the rxe provider: a pingpong over loopback.
ibv_rc_pingpong -d rxe0 -g 1 -n 10 >/tmp/srv.out 2>&1 &
sleep 1
ibv_rc_pingpong -d rxe0 -g 1 -n 10 127.0.0.1 >/tmp/cli.out 2>&1 || { cat /tmp/cli.out /tmp/srv.out; mr_fail "rc_pingpong over rxe0"; }
wait
tail -2 /tmp/cli.out
echo "provider-coexistence: ok"
