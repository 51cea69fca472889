# topology: pair
# timeout: 300
# Data integrity over Soft-RoCE (rdma_rxe) between the two VMs with the
# project's verbs-only tool userspace/tools/mr-verify: every RC opcode (SEND,
# SEND_WITH_IMM, RDMA WRITE, WRITE_WITH_IMM, READ, CMP_SWP, FETCH_ADD), sizes
# from 0 bytes across the MTU boundaries to 1 MiB, each side requester in
# turn, every byte checked on both sides. Each VM listens once. Then the
# checks that the tool can fail: a deliberately corrupted byte must end the
# run with a mismatch diagnostic, and a RoCE outage longer than the retry
# budget must end it with IBV_WC_RETRY_EXC_ERR (--expect-error).
# The same runs over MetaRoCE come with the provider.

modprobe rdma_rxe || mr_fail "modprobe rdma_rxe"
rdma link add rxe0 type rxe netdev eth0 || mr_fail "rdma link add rxe0"
rdma link show rxe0/1 | grep -q 'state ACTIVE' || mr_fail "rxe0 not ACTIVE"
command -v mr-verify >/dev/null ||
	mr_fail "mr-verify is not in the guest (build userspace/tools first)"
mr_wait_peer

# verify LISTENER ARGS...: mr-verify on both VMs; LISTENER listens, the other
# connects to $peer (the tool retries the connection itself, so a failed run
# is never repeated). Sets $rc; the output is in /tmp/verify.out and the log.
peer=$MR_PEER_IP
verify_seq=0
verify() {
	listener=$1
	shift
	verify_seq=$((verify_seq + 1))
	mr_barrier "verify-$verify_seq"
	rc=0
	if [ "$MR_ROLE" = "$listener" ]; then
		mr-verify "$@" >/tmp/verify.out 2>&1 || rc=$?
	else
		mr-verify "$@" "$peer" >/tmp/verify.out 2>&1 || rc=$?
	fi
	grep -v '^libibverbs: Warning' /tmp/verify.out | sed 's/^/  /'
	mr_log "mr-verify run $verify_seq ($listener listens): exit status $rc"
}

# GID index 1 is the RoCEv2 GID of the IPv4 address. Bounded for TCG: about
# 70 MB per run (rxe moves 5-15 MB/s there).
base="-d rxe0 -g 1 --connect-timeout 90"
full="$base -s 0,1,7,64,1000,mtu-1,mtu,mtu+1,4096,4097,65536,1m -n 48 --phase-bytes 3m -v"
all_ops="ops=send,send_imm,write,write_imm,read,cas,fadd sizes=12 dirs=2"

# 1, 2: everything, each VM listening once; the second run on two QPs.
for listener in server client; do
	if [ $listener = server ]; then
		verify $listener $full
	else
		verify $listener $full -q 2
	fi
	[ $rc -eq 0 ] || mr_fail "mr-verify ($listener listens) exit status $rc"
	grep -q "PASS: $all_ops .* msgs=[1-9]" /tmp/verify.out ||
		mr_fail "mr-verify ($listener listens): no PASS summary"
done

# 3: the tool catches corruption. The sender flips byte 2048 of the first
# 4097-byte SEND; the receiver must report it, both sides must exit 1.
verify server $base --ops send,write,read -s 4097 -n 4 --corrupt-for-test
[ $rc -eq 1 ] || mr_fail "corrupted run: exit status $rc, expected 1"
grep -q 'MISMATCH op=send size=4097 .* first bad byte at message offset 2048 .* expected 0x.. got 0x..' /tmp/verify.out ||
	mr_fail "corrupted run: no mismatch diagnostic"

# 4: an outage outlasting the retry budget. Control over IPv6; RoCEv2 over
# IPv4 is black-holed on the server (a static neighbour entry with a MAC
# nobody has), so whichever side is requesting gets IBV_WC_RETRY_EXC_ERR and
# both sides end with exactly that status.
peer=$MR_PEER_IP6
outage="$base --ops write,read -s 4096 -n 100000 --phase-bytes 1m --time 60 --timeout 12 --retry 2 --expect-error RETRY_EXC_ERR"
if [ "$MR_ROLE" = server ]; then
	mr_barrier "verify-outage"
	rc=0
	mr-verify $outage >/tmp/verify.out 2>&1 &
	pid=$!
	sleep 4
	ip neigh replace "$MR_PEER_IP" lladdr 02:00:00:00:00:99 dev eth0 nud permanent ||
		mr_fail "ip neigh replace"
	wait $pid || rc=$?
	ip neigh del "$MR_PEER_IP" dev eth0 || mr_fail "ip neigh del"
	grep -v '^libibverbs: Warning' /tmp/verify.out | sed 's/^/  /'
else
	mr_barrier "verify-outage"
	rc=0
	sleep 1
	mr-verify $outage "$peer" >/tmp/verify.out 2>&1 || rc=$?
	grep -v '^libibverbs: Warning' /tmp/verify.out | sed 's/^/  /'
fi
mr_log "mr-verify outage run: exit status $rc"
[ $rc -eq 0 ] || mr_fail "outage run: exit status $rc, expected 0 (RETRY_EXC_ERR)"
grep -q 'PASS: run ended with the expected completion status RETRY_EXC_ERR' /tmp/verify.out ||
	mr_fail "outage run: did not end with RETRY_EXC_ERR"
mr_barrier "verify-end"

rdma link delete rxe0 || mr_fail "rdma link delete"
modprobe -r rdma_rxe || mr_fail "modprobe -r rdma_rxe"
