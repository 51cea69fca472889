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
# The same runs over MetaRoCE: metaroce-verify. Steps: vt_verify_all in
# tests/e2e/lib/verbs.sh.
. /mr/e2e/verbs.sh

vt_setup rxe rxe0
vt_verify_all
vt_teardown
