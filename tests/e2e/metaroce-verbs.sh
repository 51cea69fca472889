# topology: pair
# timeout: 900
# User-space verbs end to end over MetaRoCE (mr0): unmodified rdma-core and
# perftest tools through the project's provider, between the two VMs, each
# VM listening in turn; the same steps as the rxe baseline (rxe-verbs,
# tests/e2e/lib/verbs.sh): ibv_devinfo -v (Ethernet link layer, RoCE v2
# GID, positive maxima), ibv_rc_pingpong and ibv_srq_pingpong with buffer
# checks, perftest ib_{write,read,send,atomic}_{bw,lat} at sizes up to
# 1 MiB and the bw tests on 4 QPs, then link delete and unload with a
# clean kernel log.
. /mr/e2e/verbs.sh

vt_setup metaroce mr0
vt_devinfo
vt_pingpong
vt_perftest_all
vt_teardown
