# topology: pair
# timeout: 600
# The connection manager and UD over Soft-RoCE (rdma_rxe), the baseline of metaroce-cm:
# ibv_ud_pingpong, rping (data validated, IPv4 and IPv6), ucmatose, udaddy,
# rdma_server/rdma_client, perftest through rdma_cm (ib_send_bw over IPv4
# and IPv6, ib_write_bw, ib_read_lat) and ib_send_bw on UD QPs
# (tests/e2e/lib/cm.sh).
. /mr/e2e/verbs.sh
. /mr/e2e/cm.sh

vt_setup rxe rxe0
cm_all
vt_teardown
