# topology: single
# timeout: 420
# smp: 2
# SMP races between a QP's datapath and its state changes, on two vCPUs
# (the "smp: 2" header: tests/vm/run.sh gives this guest two, under TCG
# too): userspace/tools/mr-race on mr0, loopback RC QPs over the device's
# own GID, eth0's MTU raised to 9000 first so that each SEND is one
# 4096-byte packet (a longer placement between the responder's state check
# and its completion). Each case repeats rounds for RACE_SECONDS (default
# 20) s:
#   rq-flush-race   QP A streams SENDs (thread on CPU 0, where the loopback
#                   softirq runs B's responder) into QP B's full RQ; B moved
#                   to ERR from CPU 1 at a random moment. Every posted
#                   wr_id completes exactly once, in posting order,
#                   successful ones a prefix, then only WR_FLUSH_ERR
#                   (MR-VERBS-6, MR-VERBS-25); no data in a flushed
#                   buffer; a receive posted in ERR is flushed once.
#   rq-reset-race   the same with B moved to RESET: no completion after
#                   the transition, the next round's RQ sound.
#   doorbell-storm  three threads refill the SQ and RQ rings of a QP in
#                   ERR and ring doorbells as fast as they can: no post
#                   call takes a quarter of the run, every WR flushed once
#                   in order.
# The tool's watchdog turns a hang into a failure; the harness fails the
# run on any kernel report (KASAN, lockdep, WARN on the debug kernel).
# Pass: mr-race exits 0 with its PASS line and each case's ok line, two
# CPUs online, the kernel log clean, the device deleted cleanly.
# RACE_SECONDS and RACE_ARGS (--seed N, -v) reach the guest through
# MR_GUEST_ENV.
. /mr/e2e/verbs.sh

: "${RACE_SECONDS:=20}"
case "$RACE_SECONDS" in '' | *[!0-9]* | 0) mr_fail "RACE_SECONDS='$RACE_SECONDS': seconds, please" ;; esac
command -v mr-race >/dev/null ||
	mr_fail "mr-race is not in the guest (build userspace/tools first)"
rc_cpus=$(grep -c '^processor' /proc/cpuinfo)
[ "$rc_cpus" -ge 2 ] ||
	mr_fail "$rc_cpus CPU online: the races need two (the scenario's smp header)"
ip link set eth0 mtu 9000 || mr_fail "ip link set eth0 mtu 9000"

vt_setup metaroce mr0
rc_mtu=$(ibv_devinfo -d "$VT_DEV" | awk '$1 == "active_mtu:" { print $2; exit }')
mr_log "$rc_cpus CPUs, $VT_DEV active_mtu $rc_mtu"

rc_wait=$((10000 * ${MR_SLOWDOWN:-1}))
rc_rc=0
# shellcheck disable=SC2086 # RACE_ARGS is split on purpose
timeout $((3 * RACE_SECONDS + 12 * rc_wait / 1000 + 120)) \
	mr-race -d "$VT_DEV" -g "$VT_GID" --time "$RACE_SECONDS" --wait "$rc_wait" \
	${RACE_ARGS:-} >/tmp/race.out 2>&1 || rc_rc=$?
vt_show /tmp/race.out
case $rc_rc in 124 | 143) mr_fail "mr-race hung: killed by timeout" ;; esac
[ $rc_rc -eq 0 ] || mr_fail "mr-race: exit status $rc_rc: $(grep -m1 'FAIL: ' /tmp/race.out | sed 's/^[^:]*: //')"
for rc_case in rq-flush-race rq-reset-race doorbell-storm; do
	grep -q "case $rc_case: ok: [1-9]" /tmp/race.out ||
		mr_fail "mr-race: no ok line for $rc_case"
done
grep -q 'PASS: 3 cases' /tmp/race.out || mr_fail "mr-race: no PASS line"
vt_dmesg_clean "mr-race"
vt_teardown
mr_log "metaroce-races: ok"
