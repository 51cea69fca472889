# topology: single
# timeout: 600
# needs: pyverbs
# Verbs parity with Soft-RoCE: rdma-core's own provider test suite
# (python3-pyverbs, run_tests.py) on rx0 (rdma_rxe) and on mr0, both over
# eth0 in one guest; each test connects QPs of one device to each other.
# tests/e2e/lib/pyverbs-compare.py judges: no failure or error on mr0, at
# least rx0's number of ok, and no skip on mr0 that rx0 does not share
# unless Documentation/metaroce/provider.rst justifies it. Both runs' logs
# are kept as artefacts (pyverbs-rx0.log, pyverbs-mr0.log). rx0 is
# deleted before mr0's run, so that nothing in mr0's run can reach rx0
# (rdma_cm binds an address to the first device holding its GID). The
# rdma_cm tests, which skip on both devices today (no sysfs parent:
# admin-guide.rst, "Sysfs placement"), fork a passive and an active side
# that meet at a multiprocessing.Barrier, which needs POSIX shared memory.
if ! grep -q ' /dev/shm ' /proc/mounts; then
	mkdir -p /dev/shm && mount -t tmpfs -o mode=1777 tmpfs /dev/shm ||
		mr_fail "mount /dev/shm"
fi
modprobe rdma_rxe || mr_fail "modprobe rdma_rxe"
modprobe metaroce || mr_fail "modprobe metaroce"
rdma link add rx0 type rxe netdev eth0 || mr_fail "rdma link add rx0"
rdma link add mr0 type metaroce netdev eth0 || mr_fail "rdma link add mr0"
mr_wait_active rx0
mr_wait_active mr0
cd /mr/pyverbs/tests || mr_fail "no pyverbs suite in the guest"
for d in rx0 mr0; do
	start=$(date +%s)
	st=0
	python3 run_tests.py --dev "$d" -v >"/tmp/pyverbs-$d.log" 2>&1 || st=$?
	mr_log "run_tests.py --dev $d: exit $st after $(($(date +%s) - start)) s"
	echo "MR-ARTEFACT-BEGIN pyverbs-$d.log"
	cat "/tmp/pyverbs-$d.log"
	echo "MR-ARTEFACT-END"
	# mr0's run sees mr0 alone (see the header).
	[ "$d" = rx0 ] && { rdma link delete rx0 || mr_fail "rdma link delete rx0"; }
done
python3 /mr/pyverbs/compare.py /tmp/pyverbs-mr0.log mr0 /tmp/pyverbs-rx0.log rx0 \
	/mr/pyverbs/provider.rst || mr_fail "mr0 has no verbs parity with rx0"
