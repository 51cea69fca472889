# topology: pair
# timeout: 900
# User-space verbs end to end over Soft-RoCE (rdma_rxe), the baseline of
# metaroce-verbs: the same steps (tests/e2e/lib/verbs.sh) between the two
# VMs, each VM listening in turn: ibv_devinfo -v (Ethernet link layer,
# RoCE v2 GID, positive maxima), ibv_rc_pingpong and ibv_srq_pingpong with
# buffer checks, perftest ib_{write,read,send,atomic}_{bw,lat} at sizes up
# to 1 MiB and the bw tests on 4 QPs; on each VM, mr-ringtamper's
# verbs-mode cases (bad lkey, SGE ranges outside the MR, loopback QPs; rxe
# reports LOC_QP_OP_ERR where MetaRoCE's spec requires LOC_PROT_ERR, hence
# --any-local-error); then a clean unload.
. /mr/e2e/verbs.sh

vt_setup rxe rxe0
vt_devinfo
vt_pingpong
vt_perftest_all
vt_tamper verbs --any-local-error
vt_teardown
