# topology: single
# timeout: 300
# Hostile input from user space (userspace/tools/mr-ringtamper): two RC QPs
# of mr0 connected to each other over the device's own GID; garbage written
# straight into the mmapped rings the kernel consumes: SQ WQEs with a bad
# opcode, bad send_flags, num_sge above the maximum, inline_len above the
# maximum, an unknown lkey, SGE ranges outside the MR, a READ whose local
# SGE runs past the MR, a WRITE past the peer's MR; RQ and SRQ WQEs with a
# bad num_sge, an unknown lkey, an SGE outside the MR; SQ, RQ and SRQ
# producer indices jumped past the ring or moved behind the consumer; CQ
# consumer indices ahead of the producer or far behind it; a valid SEND in
# the SQ ring of a QP in INIT, fresh or reset after RTS (nothing before
# RTS, no oops; sent at RTS); BIND_MW WQEs
# naming no window, no MR, a window or MR of another PD, a range outside
# the MR, zero-based rights or an SGE (MR-MW-3: MW_BIND_ERR), and a good
# type 2 bind whose window refuses a WRITE past it (MR-MW-2) and keeps its MR
# from ibv_rereg_mr (MR-MW-7: EBUSY). Each case on
# fresh QPs and CQs must end in the error completion the spec names
# (MR-VERBS-3, MR-VERBS-21, MR-VERBS-23: LOC_QP_OP_ERR, LOC_LEN_ERR,
# LOC_PROT_ERR; REM_ACCESS_ERR for the remote range), with the WRs behind
# it flushed and the QP in error (MR-VERBS-25), or, for a corrupt index,
# in the QP, SRQ or CQ error with its asynchronous event; every wait is
# bounded; the canary areas around the MR stay intact (no access outside
# registered memory); the kernel log stays clean (checked here after each
# mode and by the harness on the whole log). The tool runs in a cgroup v2
# group with the memory controller: its rings (16 CQs of half the largest
# size) must raise the group's memory.current by 90% of their size, so a
# cgroup's limit bounds what a process pins in rings (ring-charge). First the cases the verbs API
# can express, posted through it, then every case through the rings.
# rxe-verbs runs the verbs-mode cases over Soft-RoCE.
. /mr/e2e/verbs.sh

vt_setup metaroce mr0
vt_tamper verbs
vt_tamper ring
vt_teardown
