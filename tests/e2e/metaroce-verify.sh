# topology: pair
# timeout: 360
# Data integrity over MetaRoCE (mr0) between the two VMs with
# userspace/tools/mr-verify through the project's provider: every RC opcode
# (SEND, SEND_WITH_IMM, RDMA WRITE, WRITE_WITH_IMM, READ, CMP_SWP,
# FETCH_ADD), sizes from 0 bytes across the MTU boundaries to 1 MiB, each
# side requester in turn, every byte checked on both sides, each VM
# listening once. A deliberately corrupted byte must end a run with a
# mismatch diagnostic, and a RoCE outage longer than the retry budget must
# end it with IBV_WC_RETRY_EXC_ERR on both sides. The same steps as
# rxe-verify (vt_verify_all in tests/e2e/lib/verbs.sh).
. /mr/e2e/verbs.sh

vt_setup metaroce mr0
vt_verify_all
vt_teardown
