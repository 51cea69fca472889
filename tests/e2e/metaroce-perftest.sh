# topology: pair
# timeout: 240
# perftest's ib_write_bw over MetaRoCE (mr0) between the two VMs, each VM
# listening once: the unmodified tool through the project's provider, its
# result line required on the connecting side (65536 bytes, 200
# iterations, a positive bandwidth). scripts/demo.sh ("make demo") runs this
# scenario and shows perftest's own output from the client VM, so the
# output is printed as perftest wrote it. The full perftest matrix is in
# metaroce-verbs.
. /mr/e2e/verbs.sh

vt_setup metaroce mr0
VT_SHOW_RAW=1
rm -f /tmp/vt-perf-failures
for listener in server client; do
	vt_perftest $listener ib_write_bw 65536 200
done
VT_SHOW_RAW=0
vt_perf_check
vt_teardown
