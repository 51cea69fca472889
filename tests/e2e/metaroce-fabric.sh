# topology: single
# timeout: 480
# Multipath on a fabric: one VM, the leaf-spine fabric of
# tests/e2e/lib/fabric.sh (hosts ha and hb, leaves la and lb, four spines
# shaped to $FAB_RATE each with a CE-marking queue, L4 ECMP). mr_ha and
# mr_hb are MetaRoCE devices on the hosts' fabric links; mr-verify runs
# one RC QP of WRITE, READ and SEND (64 KiB messages, both
# hosts requester in turn, every byte checked), its TCP control channel on
# the mgmt links outside the fabric. A sampler reads every 0.4 s the bytes
# each leaf sent to each spine and delivered to its host, the devices'
# path counters. Cases, each printing FABRIC-CASE <name>
# ok|FAIL with its figures:
#
#   spray      40 s: the bytes each spine carried, each direction, within
#              +-20% of the four's mean; the run verifies; every spine
#              works, so a path declared dead during the transfer must
#              have lost in the spine queues (which drop beyond their
#              depth) every packet MR-MP-8 counted: none of them may
#              reach the peer more than RTO_base before the death
#              (metaroce_pkt_rx; DEATH lines, "missed")
#   blackhole  30 s: from 10 s on, spine 2 drops everything la -> s2 for
#              10 s, then heals: the run verifies (no RETRY_EXC_ERR, no
#              error completion); mr-verify's goodput in its phases from
#              2 s into the black hole to its end >= 60% of its goodput in
#              the same kinds of phases (requester, op) in the 8 s before
#              it (fx_phase_goodput); a path of the QP sending into the
#              black hole (mr_ha's) is declared DEAD (tracepoint
#              metaroce_path), the first within dead_rtos (3) x RTO_base
#              + one RTO_base of tick slack of its first packet into the
#              hole (metaroce_pkt_tx; or of its dead_min_pkts-th (6th),
#              MR-MP-8), RTO_base the larger of the QP's largest
#              drv_rto_base_us sampled from 1 s before that packet to
#              0.5 s after the death and the base the death's
#              tracepoint reports; a path revives (DEAD -> SUSPECT: a matching
#              PROBE_REPLY, MR-MP-11); s2 carries >= 50% of the four
#              spines' mean from 1 s after the heal (MR-MP-32); rdma -dd res show qp of that
#              device, once a second in the hole, lists its path table
#              as the admin guide says (fx_ptab_check) and shows a path
#              not active at least once. Every death is logged.
#   reverse    the same with lb -> s2 black-holed: ACKs and READ responses
#              for mr_ha's requests (a path losing only ACKs need not die:
#              cumulative ACKs on other paths credit it, MR-MP-26; the
#              answers lost with nothing after them are found by the RTO,
#              whose retransmission goes on the path answered last,
#              MR-MP-33), and
#              mr_hb's requests' data, whose paths into the hole must die
#              within the bound
#   slow       2 x 24 s: spine 3 at a quarter of $FAB_RATE: s3's byte
#              share in each direction below each other spine's, and
#              mr-verify's goodput >= 80% of the same run with s3 taken
#              out of both leaves' ECMP routes
#   calibrate  (only with FX_CASES) goodput with the spines unshaped, then
#              shaped
#
# In both black-hole cases the device counters agree with the tracepoint:
# path_deaths moved at least by the deaths seen, path_probes,
# path_probe_replies and path_revivals moved. Deaths more than 1 s after
# the heal are logged, not failed: the tracepoint does not tell which
# spine the path was on (0-2 of 6-14 deaths per case with RACK per path,
# MR-LOSS-2; tens before it).

[ -f /mr/e2e/fabric.sh ] || mr_fail "/mr/e2e/fabric.sh missing (tests/e2e/lib/fabric.sh)"
# shellcheck source=lib/fabric.sh disable=SC2086 # $fx_plan: a word list
. /mr/e2e/fabric.sh
command -v mr-verify >/dev/null || mr_fail "mr-verify is not in the guest"

: "${FX_PATHS:=}"
# FX_SCALE=N: every case N times as long (make bench's long variants,
# scripts/bench/fabric.sh); the criteria stay the same.
: "${FX_SCALE:=1}"
case "$FX_SCALE" in '' | *[!0-9]* | 0) mr_fail "FX_SCALE=$FX_SCALE: a whole number >= 1" ;; esac
fx_failures=""

modprobe metaroce || mr_fail "modprobe metaroce"
fab_up 1
fab_dev ha
fab_dev hb
fx_ga=$(fab_gid ha)
fx_gb=$(fab_gid hb)
# fx_set_paths N: paths of both devices (the QPs created from now on).
fx_set_paths() {
	echo "$1" >/sys/class/infiniband/mr_ha/paths
	echo "$1" >/sys/class/infiniband/mr_hb/paths
}
[ -z "$FX_PATHS" ] || fx_set_paths "$FX_PATHS"
mr_log "mr_ha (GID $fx_ga) and mr_hb (GID $fx_gb): paths $(cat /sys/class/infiniband/mr_ha/paths), path_health $(cat /sys/class/infiniband/mr_ha/path_health 2>/dev/null)"
fx_hw=/sys/class/infiniband/mr_ha/ports/1/hw_counters
for fx_c in path_deaths path_revivals path_probes path_probe_replies path_rerolls path_explores; do
	[ -f "$fx_hw/$fx_c" ] || mr_fail "mr_ha has no counter $fx_c"
done

# --- path events (tracepoints, kernel/trace.h) -------------------------------
# metaroce_path (a path's state or entropy changed) and metaroce_pkt_tx of
# the data opcodes (SEND..READ_REQ, 1..6: the requesters' packets, which
# carry their own path index) time a death against the packets the path
# sent into the black hole.

mr_trace_mount path

# fx_trace_on [KB] [rx]: trace buffer KB per CPU (8192); with rx the data
# packets received too. mr_trace_off /tmp/fx.trace ends it.
fx_trace_on() {
	fx_tr_ev=pkt_tx
	[ "${2:-}" != rx ] || fx_tr_ev="pkt_tx pkt_rx"
	# shellcheck disable=SC2086 # $fx_tr_ev: a word list
	mr_trace_on -b "${1:-8192}" path -f 'opcode >= 1 && opcode <= 6' $fx_tr_ev
}

# fx_mark WORD: "WORD UPTIME" in the trace (trace clock and uptime side
# by side).
fx_mark() {
	mr_trace_mark "$1 $(fx_now)"
}

# fx_deaths: from /tmp/fx.trace and /tmp/fx.rto ("uptime dev qpn
# rto_base_us" samples), one line per path that became DEAD after the fx-on mark:
#   DEATH dev qpn path at T first F pkts N rto R limit L sampled R1
#         wait W sent S base B ops O arrived A missed M ok|LATE
# T: seconds after fx-on; F: its first data packet after fx-on or after
# its last entropy change (the first packet into the black hole, when
# the path's pending time starts, MR-MP-8); N: data packets it sent from
# F to its death; R: the larger of R1, the QP's largest RTO_base
# sampled from 1 s before F to 0.5 s after the death, and B below, the
# RTO_base MR-MP-8 counted in at the death; L = max(F + dead_rtos x R,
# time of its dead_min_pkts-th packet) + R (the tick's slack), the
# bound. (RTO_base follows srtt and rttvar, which a burst into the
# shaped spines moves within milliseconds; sampled about every 0.5 s,
# it can miss the value the rule used, and its largest over seconds is
# several times that value: 50 ms against 7 ms.)
# W, S, B: what MR-MP-8 saw when it declared the path DEAD (the
# tracepoint's wait_us, sent, rto_base_us): pending for W ms with S
# packets sent, RTO_base B ms; O: the opcodes of the last S packets
# the path sent before its death (OPCODE:count,...).
# "arrived A missed M" (with metaroce_pkt_rx traced, fx_trace_on rx): of
# those S packets, A reached the peer (its metaroce_pkt_rx of the same
# PSN and path) before the death, M of them more than R before it, time
# enough for an ACK to credit the path (MR-MP-19, MR-MP-31).  A = 0:
# the route lost every packet the rule counted.
# Then "REVIVALS all A after-off B": DEAD -> SUSPECT transitions (a
# matching PROBE_REPLY, MR-MP-11), in all and after the fx-off mark, and
# "ARRIVALS sent S arrived A": of all data packets traced on sending, A
# were traced arriving.  Without metaroce_pkt_rx traced there is no
# ARRIVALS line, and A and M are "-".
# fx_deaths gaps: then, for each death, the longest time in the 0.5 s
# before it in which no device sent a data packet (a guest the vCPU did
# not run stops every sender at once; a queue stops one path), and the
# path's own longest gap there:
#   GAP dev qpn path at T all G own O
# One pass over the trace, fields by position: busybox awk in a TCG
# guest takes about a minute for a 40 s trace read with a regular
# expression per event and per argument.
fx_deaths() {
	awk -v rtos=3 -v minp=6 -v gaps="${1:-}" '
		# Fields of a trace line: TASK-PID [CPU] FLAGS TS: EVENT: ARGS.
		# The event is field 5 unless the task name holds blanks; its
		# arguments follow it in the order TP_printk gives them.
		BEGIN { ev["metaroce_pkt_tx:"]; ev["metaroce_pkt_rx:"]; ev["metaroce_path:"]; ev["tracing_mark_write:"] }
		function arg(i) { return substr($i, index($i, "=") + 1) }
		FNR == NR { rt[NR] = $1; rd[NR] = $2; rq[NR] = $3; rv[NR] = $4; nr = NR; next }
		{
			p = 5
			if (!($p in ev)) for (p = 1; p < NF && !($p in ev); p++) ;
			e = $p; t = $(p - 1) + 0
		}
		e == "metaroce_pkt_tx:" {
			k = arg(p + 1) " " arg(p + 2) " " arg(p + 6)
			tx[k, ++ntx[k]] = t
			txpsn[k, ntx[k]] = arg(p + 5)
			txop[k, ntx[k]] = $(p + 4)
			if (gaps != "") all[++nall] = t
			next
		}
		e == "metaroce_pkt_rx:" {
			k = arg(p + 2) " " arg(p + 6) " " arg(p + 5)
			if (!(k in rx)) rx[k] = t
			nrx++
			next
		}
		e == "tracing_mark_write:" {
			if ($(p + 1) == "fx-on") { on = t; on_up = $(p + 2) }
			else if ($(p + 1) == "fx-off") off = t
			next
		}
		e == "metaroce_path:" {
			k = arg(p + 1) " " arg(p + 2) " " arg(p + 3); en = arg(p + 5)
			st = ($(p + 4) == "DEAD") ? "DEAD" : "LIVE"
			if (st == "DEAD" && s[k] != "DEAD" && on != "") {
				nd++; dk[nd] = k; dt[nd] = t
				dw[nd] = arg(p + 6) / 1e3; ds[nd] = arg(p + 7) + 0; db[nd] = arg(p + 8) / 1e3
				dfrom[nd] = (chg[k] > on ? chg[k] : on)
			}
			if (s[k] == "DEAD" && st != "DEAD") { rev++; if (off != "" && t > off) reva++ }
			if (en != ent[k]) { ent[k] = en; chg[k] = t }
			s[k] = st
		}
		# the longest time in [t0, t1] in which no packet of the list
		# (all, or those of key) was sent
		function gap(t0, t1, key,   i, n, prev, g, x) {
			prev = t0; g = 0; n = (key == "") ? nall : ntx[key]
			for (i = 1; i <= n; i++) {
				x = (key == "") ? all[i] : tx[key, i]
				if (x < t0 || x > t1) continue
				if (x - prev > g) g = x - prev
				prev = x
			}
			if (t1 - prev > g) g = t1 - prev
			return g
		}
		END {
			for (d = 1; d <= nd; d++) {
				k = dk[d]; split(k, kk, " "); f = ""; n = 0; six = ""; last = 0
				for (i = 1; i <= ntx[k]; i++) {
					x = tx[k, i]
					if (x < dfrom[d] || x > dt[d]) continue
					if (f == "") f = x
					if (++n == minp) six = x
					last = i
				}
				# the opcodes of the S packets MR-MP-8 counted
				split("", oc); ops = ""
				for (i = last; i > last - ds[d] && i > 0; i--) oc[txop[k, i]]++
				for (o in oc) ops = ops (ops == "" ? "" : ",") o ":" oc[o]
				# the RTO samples are in uptime; the trace clock is
				# on - on_up ahead of it
				r = 0; lo = (f == "" ? dt[d] : f) - 1
				for (i = 1; i <= nr; i++) {
					u = rt[i] + (on - on_up)
					if (rd[i] == kk[1] && rq[i] == kk[2] && u >= lo && u <= dt[d] + 0.5 && rv[i] > r) r = rv[i]
				}
				r /= 1e6; sr = r
				if (db[d] / 1e3 > r) r = db[d] / 1e3
				# which of them reached the peer, and how long before
				arr = 0; miss = 0
				for (i = last; i > last - ds[d] && i > 0; i--) {
					a = kk[2] " " kk[3] " " txpsn[k, i]
					if (!(a in rx) || rx[a] >= dt[d]) continue
					arr++
					if (rx[a] < dt[d] - r) miss++
				}
				w = sprintf(" sampled %.4f wait %.1f sent %d base %.1f ops %s arrived %s missed %s", sr, dw[d], ds[d], db[d], (ops == "" ? "-" : ops), (nrx ? arr : "-"), (nrx ? miss : "-"))
				if (f == "") { printf "DEATH %s at %.3f first - pkts 0 rto %.4f limit -%s NOPKT\n", k, dt[d] - on, r, w; continue }
				l = f + rtos * r
				if (six != "" && six > l) l = six
				l += r
				printf "DEATH %s at %.3f first %.3f pkts %d rto %.4f limit %.3f%s %s\n", k, dt[d] - on, f - on, n, r, l - on, w, (r > 0 && dt[d] <= l ? "ok" : "LATE")
			}
			printf "REVIVALS all %d after-off %d\n", rev, reva
			# a check of the arrival check: of every data packet
			# traced on sending, how many were traced arriving
			ns = 0; na = 0
			if (nrx) for (k in ntx) {
				split(k, kk, " ")
				for (i = 1; i <= ntx[k]; i++) {
					ns++
					if ((kk[2] " " kk[3] " " txpsn[k, i]) in rx) na++
				}
			}
			if (nrx) printf "ARRIVALS sent %d arrived %d\n", ns, na
			if (gaps != "")
				for (d = 1; d <= nd; d++)
					printf "GAP %s at %.3f all %.3f own %.3f\n", dk[d], dt[d] - on,
					       gap(dt[d] - 0.5, dt[d], ""), gap(dt[d] - 0.5, dt[d], dk[d])
		}
	' /tmp/fx.rto /tmp/fx.trace
}

# --- measuring ---------------------------------------------------------------

# fx_ctr NAME: device counter NAME summed over both devices.
fx_ctr() {
	echo $(($(cat "/sys/class/infiniband/mr_ha/ports/1/hw_counters/$1") + \
		$(cat "/sys/class/infiniband/mr_hb/ports/1/hw_counters/$1")))
}

# fx_rto DEV: "qpn rto_base_us" for each of DEV's RC QPs with an RTT
# sample (drv_srtt_us not 0; without one the base is init_rto):
# drv_rto_base_us is the RTO without backoff, the unit MR-MP-8 counts a
# path's deaths in. QPs in backoff count too: the QP sending into the
# black hole is the one whose RTOs fire there.
fx_rto() {
	rdma -dd res show qp link "$1/1" 2>/dev/null | awk '
		{ q = ""; r = ""; s = ""
		  for (i = 1; i < NF; i++) {
			if ($i == "lqpn") q = $(i + 1)
			if ($i == "drv_rto_base_us") r = $(i + 1)
			if ($i == "drv_srtt_us") s = $(i + 1)
		  }
		  if (q != "" && r != "" && s + 0 > 0) print q, r }'
}

# A process in each leaf's namespace: its /proc/PID/net/dev is the leaf's
# interface counters, read without entering the namespace (a sample must
# cost little on the one slow vCPU).
/usr/sbin/ip netns exec la sleep 100000 &
fx_pin_la=$!
/usr/sbin/ip netns exec lb sleep 100000 &
fx_pin_lb=$!

# fx_txb PID IF...: tx_bytes of the interfaces, in that order.
fx_txb() {
	fx_p=$1
	shift
	awk -v ifs="$*" '
		BEGIN { n = split(ifs, w, " ") }
		{ sub(/:/, " "); tx[$1] = $10 }
		END { for (i = 1; i <= n; i++) printf "%s%s", tx[w[i]], (i < n ? " " : "") }
	' "/proc/$fx_p/net/dev"
}

# One sample line: uptime to_ha f1..f4 to_hb r1..r4 deaths revivals
# probes probe_replies rerolls
fx_sample() {
	echo "$(cut -d' ' -f1 /proc/uptime)" \
		"$(fx_txb $fx_pin_la ha s1 s2 s3 s4)" \
		"$(fx_txb $fx_pin_lb hb s1 s2 s3 s4)" \
		"$(fx_ctr path_deaths) $(fx_ctr path_revivals) $(fx_ctr path_probes)" \
		"$(fx_ctr path_probe_replies) $(fx_ctr path_rerolls)"
}

# fx_s SECONDS: scaled by FX_SCALE.
fx_s() {
	echo $(($1 * FX_SCALE))
}

fx_sampler_start() {
	: >/tmp/fx.samples
	(
		while :; do
			fx_sample >>/tmp/fx.samples
			sleep 0.4
		done
	) &
	fx_sampler=$!
}

fx_sampler_stop() {
	kill "$fx_sampler" 2>/dev/null || true
	wait "$fx_sampler" 2>/dev/null || true
	# the figures behind the verdicts, for the log: time, delivered to
	# ha, fwd per spine, delivered to hb, rev per spine (bytes, since the
	# first sample), path counters
	awk -v tag="$1" 'NR == 1 { split($0, z) }
		{ printf "FX-SAMPLE %s %.1f", tag, $1 - z[1]
		  for (i = 2; i <= 11; i++) printf " %d", $i - z[i]
		  for (i = 12; i <= NF; i++) printf " %s", $i
		  printf "\n" }' /tmp/fx.samples
}

fx_now() {
	cut -d' ' -f1 /proc/uptime
}

# fx_window T1 T2: deltas between the first sample at or after T1 and
# the last at or before T2: "dt to_ha f1 f2 f3 f4 to_hb r1 r2 r3 r4"
# (dt in seconds, the rest bytes).
fx_window() {
	awk -v a="$1" -v b="$2" '
		$1 + 0 >= a + 0 && !s { s = 1; split($0, x) }
		$1 + 0 <= b + 0 { split($0, y); e = 1 }
		END {
			if (!s || !e) { print "0 0 0 0 0 0 0 0 0 0 0"; exit }
			printf "%.2f", y[1] - x[1]
			for (i = 2; i <= 11; i++) printf " %d", y[i] - x[i]
			printf "\n"
		}' /tmp/fx.samples
}

# --- mr-verify between ha (client) and hb (server) -------------------------

fx_seq=0
fx_verify_start() {
	fx_seq=$((fx_seq + 1))
	fab_in hb mr-verify -d mr_hb -g "$fx_gb" "$@" >/tmp/fx.srv 2>&1 &
	fx_srv=$!
	fab_in ha mr-verify -d mr_ha -g "$fx_ga" --connect-timeout 30 "$@" \
		"$(fab_mgmt hb)" >/tmp/fx.cli 2>&1 &
	fx_cli=$!
}

# fx_verify_wait: fx_ok 1 if both sides verified; fx_mbs their MB/s.
fx_verify_wait() {
	fx_rc=0
	wait "$fx_cli" || fx_rc=$?
	fx_rs=0
	wait "$fx_srv" || fx_rs=$?
	grep -v '^libibverbs: Warning\|PHASE-TIME' /tmp/fx.cli | sed 's/^/  ha: /' | tail -5
	grep -v '^libibverbs: Warning\|PHASE-TIME' /tmp/fx.srv | sed 's/^/  hb: /' | tail -3
	fx_ok=0
	if [ "$fx_rc" = 0 ] && [ "$fx_rs" = 0 ] &&
		grep -q 'PASS: ops=.* msgs=[1-9]' /tmp/fx.cli &&
		grep -q 'PASS: ops=.* msgs=[1-9]' /tmp/fx.srv; then
		fx_ok=1
	fi
	fx_mbs=$(sed -n 's/.*PASS: .*, \([0-9.]*\) MB\/s.*/\1/p' /tmp/fx.cli | head -1)
	: "${fx_mbs:=0}"
	mr_log "mr-verify run $fx_seq: exit status ha $fx_rc hb $fx_rs, verified $fx_ok, $fx_mbs MB/s"
	if grep -q 'RETRY_EXC' /tmp/fx.cli /tmp/fx.srv; then
		fx_ok=0
		mr_log "RETRY_EXC_ERR seen"
	fi
}

# 64 KiB messages: the responses of one READ go on one reverse route
# (MR-MP-15), so READ data spreads over the spines request by request.
fx_plan="--ops write,read,send -s 64k -n 16 --phase-bytes 1m --watchdog 60 --phase-times"

# fx_phase_goodput ON OFF: mr-verify's goodput in the black hole against
# its goodput before it, phase kind by phase kind, from the client's
# PHASE-TIME lines: "PCT JUDGED ALL N".  A phase belongs to the window
# its midpoint falls in: 8 s before ON, or from 2 s after ON to OFF.
# Each phase in the hole is worth the time its bytes took before, at its
# kind's (requester, op, size) rate there; PCT is that time over the time
# the judged phases took in the hole (100: as fast as before).  The
# phases' rates differ by kind (a READ phase is not a WRITE phase), so
# the bytes per second of a window vary with the mix it happened to hold;
# JUDGED of ALL bytes in the N phases in the hole are of a kind seen
# before it.
fx_phase_goodput() {
	awk -v on="$1" -v off="$2" '
		$2 == "PHASE-TIME" && $8 > 0 {
			m = ($3 + $4) / 2
			k = $5 " " $6 " " $7
			if (m >= on - 8 && m < on) {
				bb[k] += $8
				bt[k] += $4 - $3
			} else if (m >= on + 2 && m < off) {
				n++
				pb[n] = $8
				pt[n] = $4 - $3
				pk[n] = k
			}
		}
		END {
			for (i = 1; i <= n; i++) {
				all += pb[i]
				if (bb[pk[i]] > 0 && bt[pk[i]] > 0) {
					want += pb[i] * bt[pk[i]] / bb[pk[i]]
					took += pt[i]
					judged += pb[i]
				}
			}
			printf "%d %d %d %d\n", (took > 0 ? want * 100 / took : 0), judged, all, n
		}' /tmp/fx.cli
}

fx_fail() {
	mr_log "FAIL: $1: $2"
	case " $fx_failures " in
	*" $1 "*) ;;
	*) fx_failures="$fx_failures $1" ;;
	esac
}

fx_verdict() {
	case " $fx_failures " in
	*" $1 "*) echo "FABRIC-CASE $1 FAIL" ;;
	*) echo "FABRIC-CASE $1 ok" ;;
	esac
}

# fx_balance TAG DIR "b1 b2 b3 b4": each within +-20% of the mean.
fx_balance() {
	fx_b=$(echo "$3" | awk '{
		m = ($1 + $2 + $3 + $4) / 4; w = 0
		for (i = 1; i <= 4; i++) {
			d = m > 0 ? ($i - m) * 100 / m : -100
			a = d < 0 ? -d : d
			if (a > w) w = a
			s = s sprintf(" s%d %+.0f%%", i, d)
		}
		printf "%s; worst %.0f%%%s\n", s, w, (m > 0 && w <= 20 ? "" : " BAD")
	}')
	mr_log "$1: $2 bytes per spine $3, vs mean:$fx_b"
	case "$fx_b" in *BAD) fx_fail "$1" "$2 spines not within 20% of the mean" ;; esac
}

# fx_sub "A1 .. An" "B1 .. Bn": "A1-B1 .. An-Bn".
fx_sub() {
	echo "$1 $2" | awk '{ n = NF / 2; for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? " " : ""), $i - $(i + n); printf "\n" }'
}

# --- calibrate ---------------------------------------------------------------

fx_calibrate() {
	for fx_r in none "$FAB_RATE"; do
		FAB_RATE=$fx_r
		fab_clear
		fx_verify_start $fx_plan --time 8
		fx_verify_wait
		mr_log "calibrate: spines at $fx_r: $fx_mbs MB/s"
	done
	FAB_RATE=$fx_rate_saved
	fab_clear
	echo "FABRIC-CASE calibrate ok"
}

# --- spray -----------------------------------------------------------------

# fx_spray [PATHS]: with PATHS paths per QP for this case.
fx_spray() {
	fx_st=spray${1:+-p$1}
	fx_p0=$(cat /sys/class/infiniband/mr_ha/paths)
	[ -z "$1" ] || fx_set_paths "$1"
	mr_log "$fx_st: paths $(cat /sys/class/infiniband/mr_ha/paths)"
	fab_clear
	fx_d0=$(fx_ctr path_deaths)
	fx_qf0=$(fab_queue_drops fwd)
	fx_qr0=$(fab_queue_drops rev)
	# deaths traced as in the black-hole cases, to tell what they were
	echo "0 -1 0 0" >/tmp/fx.rto
	fx_trace_on 32768 rx	# 40 s of data packets of both devices, each way
	fx_on_up=$(fx_now)
	fx_mark fx-on
	fx_rto_loop &
	fx_rl=$!
	fx_sampler_start
	fx_t0=$(fx_now)
	fx_verify_start $fx_plan --time "$(fx_s 40)"
	fx_verify_wait
	kill "$fx_rl" 2>/dev/null || true
	wait "$fx_rl" 2>/dev/null || true
	mr_trace_off /tmp/fx.trace
	fx_sampler_stop "$fx_st"
	[ "$fx_ok" = 1 ] || fx_fail "$fx_st" "mr-verify did not verify"
	# A full spine queue drops every packet that comes while it is full:
	# a path can lose several in a row there (what MR-MP-8 looks for).
	fx_qd="spine queue drops fwd $(fx_sub "$(fab_queue_drops fwd)" "$fx_qf0") rev $(fx_sub "$(fab_queue_drops rev)" "$fx_qr0")"
	mr_log "$fx_st: $fx_qd"
	# Deaths during the timed transfer, from the samples: when one side
	# of mr-verify ends first, the other's packets in flight are never
	# answered, and its paths die in the teardown (counted apart).
	fx_nt=$(($(fx_ctr path_deaths) - fx_d0))
	fx_nd=$(awk -v e="$(fx_add "$fx_t0" "$(fx_s 40)")" -v d0="$fx_d0" \
		'$1 <= e { n = $12 - d0 } END { print n + 0 }' /tmp/fx.samples)
	: >/tmp/fx.spray-deaths
	[ "$fx_nt" = 0 ] || fx_deaths gaps >/tmp/fx.spray-deaths
	sed "s/^/[$MR_ROLE] $fx_st: /" /tmp/fx.spray-deaths
	# shellcheck disable=SC2046 # the window's figures
	set -- $(fx_window "$(fx_add "$fx_t0" 3)" 999999)
	mr_log "$fx_st: ${1}s, delivered to ha $2 to hb $7 bytes; $fx_mbs MB/s; rerolls $(fx_ctr path_rerolls) deaths $fx_nd during the transfer, $((fx_nt - fx_nd)) in its teardown"
	# Every spine works, but its queue drops what comes while it is
	# full, and a path can lose every packet it sent for dead_rtos x
	# RTO_base there: MR-MP-8 must then declare it DEAD.  A death is
	# wrong when a packet the rule counted reached the peer time enough
	# before it to be credited (missed > 0), or when the trace cannot
	# tell.  A FAIL line is what a CI summary shows: it carries the
	# death's DEATH and GAP lines.
	# DEATH lines count seconds from fx-on: the transfer ends fx_t0 -
	# fx_on_up + its length after it
	fx_sdv=$(awk -v t0="$fx_t0" -v on="$fx_on_up" -v d="$(fx_s 40)" \
		'$1 == "DEATH" && $6 + 0 <= t0 - on + d { n++; if ($0 ~ / NOPKT/ || $0 !~ / missed 0 /) { b++; if (!l) l = $0 } }
		END { print n + 0, b + 0, l }' /tmp/fx.spray-deaths)
	fx_dn=${fx_sdv%% *}
	fx_sdv=${fx_sdv#* }
	fx_db=${fx_sdv%% *}
	fx_sdv=${fx_sdv#* }
	fx_arr=$(awk '$1 == "ARRIVALS" { print $5 }' /tmp/fx.spray-deaths)
	if [ "$fx_nd" != 0 ] && [ "${fx_arr:-0}" = 0 ]; then
		fx_fail "$fx_st" "$fx_nd paths declared dead with every spine working, and no packet traced arriving: cannot tell what they lost; $(grep -m1 '^ARRIVALS' /tmp/fx.spray-deaths); $fx_qd"
	elif [ "$fx_nd" != 0 ] && [ "$fx_dn" -lt "$fx_nd" ]; then
		fx_fail "$fx_st" "$fx_nd paths declared dead with every spine working, $fx_dn of them traced: cannot tell what they lost; first: $(grep -m1 '^DEATH' /tmp/fx.spray-deaths); $(grep -m1 '^GAP' /tmp/fx.spray-deaths); $fx_qd"
	elif [ "$fx_db" != 0 ]; then
		fx_fail "$fx_st" "$fx_db of $fx_nd paths declared dead though what MR-MP-8 counted reached the peer (or no packet traced); first: $fx_sdv; $(grep -m1 '^GAP' /tmp/fx.spray-deaths); $fx_qd"
	elif [ "$fx_nd" != 0 ]; then
		mr_log "$fx_st: $fx_nd paths declared dead, none of them after a packet MR-MP-8 counted had reached the peer in time to credit it ($fx_qd)"
	fi
	fx_balance "$fx_st" fwd "$3 $4 $5 $6"
	fx_balance "$fx_st" rev "$8 $9 ${10} ${11}"
	fx_set_paths "$fx_p0"
	fx_verdict "$fx_st"
}

# --- black holes -----------------------------------------------------------

# fx_rto_loop: "uptime dev qpn rto_base_us" of both devices into /tmp/fx.rto,
# about every 0.5 s, until killed.
fx_rto_loop() {
	while :; do
		fx_u=$(fx_now)
		fx_rto mr_ha | sed "s/^/$fx_u $fx_ia /" >>/tmp/fx.rto
		fx_rto mr_hb | sed "s/^/$fx_u $fx_ib /" >>/tmp/fx.rto
		sleep 0.3
	done
}
fx_ia=$(rdma dev show mr_ha | cut -d: -f1)
fx_ib=$(rdma dev show mr_hb | cut -d: -f1)

# fx_list_qp T0 FROM TO: the RC QPs of $fx_dname as rdma -dd lists them,
# once a second from T0 + FROM to before T0 + TO (seconds of uptime).
fx_list_qp() {
	fx_i=$2
	while [ "$fx_i" -lt "$3" ]; do
		fx_sleep_until "$1" "$fx_i"
		rdma -dd res show qp link "$fx_dname/1" 2>/dev/null | grep 'type RC'
		fx_i=$((fx_i + 1))
	done
}

# fx_hole TAG DIR: spine 2 black-holed in direction DIR (fwd: la -> s2,
# rev: lb -> s2) from 10 s into a 30 s run for 10 s.
fx_hole() {
	fx_tag=$1
	fx_dir=$2
	fab_clear
	echo "0 -1 0 0" >/tmp/fx.rto	# never empty: awk reads it as the first file
	fx_trace_on
	fx_sampler_start
	fx_verify_start $fx_plan --time "$(fx_s 30)"
	fx_t0v=$(fx_now)
	# the device sending into the hole (its name, its index as the
	# tracepoints give it)
	if [ "$fx_dir" = fwd ]; then
		fx_dname=mr_ha fx_dev=$fx_ia
	else
		fx_dname=mr_hb fx_dev=$fx_ib
	fi
	# The monitoring the hole carries (RTO samples every 0.3 s, the QP
	# listing once a second) runs from 2 s in, so that the 8 s before
	# the hole, against which its goodput is judged, carry the same
	# load: on the one vCPU it is not free.  (When the RTO samples began
	# 3 s before the hole, mr-verify's phases of about 0.5 s took 0.75 to
	# 1.2 s from then on, in the hole as well.)
	sleep "$(fx_s 2)"
	fx_rto_loop &
	fx_rl=$!
	fx_list_qp "$fx_t0v" 2 "$(fx_s 10)" >/dev/null
	fx_sleep_until "$fx_t0v" "$(fx_s 10)"
	# Read while paths revive, so in an order that cannot split a
	# PROBE, its reply and the revival across the case's edges (each
	# counts before the next): probes, replies, revivals here; the
	# reverse at the end.  Read the other way, a revival between two
	# reads once made path_revivals exceed path_probe_replies.
	fx_d0=$(fx_ctr path_deaths)
	fx_p0=$(fx_ctr path_probes)
	fx_q0=$(fx_ctr path_probe_replies)
	fx_v0=$(fx_ctr path_revivals)
	fab_blackhole 2 "$fx_dir" on
	fx_mark fx-on
	fx_on=$(fx_now)
	# its QP as an operator sees it, once a second
	fx_list_qp "$fx_on" 1 "$(fx_s 10)" >/tmp/fx.ptab
	fx_sleep_until "$fx_on" "$(fx_s 10)"
	fx_drops=$(fab_drops 2 "$fx_dir")
	fab_blackhole 2 "$fx_dir" off
	fx_mark fx-off
	fx_off=$(fx_now)
	fx_verify_wait
	kill "$fx_rl" 2>/dev/null || true
	wait "$fx_rl" 2>/dev/null || true
	fx_sampler_stop "$fx_tag"
	# when the black hole opened and healed, on the samples' clock
	fx_t0=$(head -1 /tmp/fx.samples | cut -d' ' -f1)
	echo "$fx_on $fx_off $fx_t0" | awk -v tag="$fx_tag" -v d="$fx_dir" \
		'{ printf "FX-EVENT %s %.1f hole-on %s\nFX-EVENT %s %.1f hole-off %s\n", tag, $1 - $3, d, tag, $2 - $3, d }'
	mr_trace_off /tmp/fx.trace
	[ "$fx_ok" = 1 ] || fx_fail "$fx_tag" "mr-verify did not verify (an error completion or a mismatch)"

	# goodput: bytes the leaves delivered to the hosts, both directions,
	# from the start of the monitoring to the black hole (the 6 s before
	# it alone once caught a slow stretch) and from 2 s into it to its end
	# shellcheck disable=SC2046 # the window's figures
	set -- $(fx_window "$(fx_add "$fx_on" -"$(fx_s 8)")" "$fx_on")
	fx_gp0=$(echo "$1 $2 $7" | awk '{ print ($1 > 0 ? int(($2 + $3) / $1) : 0) }')
	# shellcheck disable=SC2046
	set -- $(fx_window "$(fx_add "$fx_on" 2)" "$fx_off")
	fx_gp1=$(echo "$1 $2 $7" | awk '{ print ($1 > 0 ? int(($2 + $3) / $1) : 0) }')
	fx_pct=$(echo "$fx_gp0 $fx_gp1" | awk '{ print ($1 > 0 ? int($2 * 100 / $1) : 0) }')
	mr_log "$fx_tag: goodput (bytes delivered to the hosts) before $fx_gp0 B/s, during the black hole $fx_gp1 B/s: $fx_pct%; the black hole dropped $fx_drops packets"
	# The judged figure: the same kinds of phases before and in the hole
	# (fx_phase_goodput).  The bytes per second above compare windows of
	# different phase mixes: 1.42 to 2.99 MB/s before the reverse hole
	# in the runs of this week.
	# every phase, its times from the hole's start: FX-PHASE TAG START
	# END REQUESTER OP
	awk -v on="$fx_on" -v tag="$fx_tag" '$2 == "PHASE-TIME" {
		printf "FX-PHASE %s %.2f %.2f %s %s\n", tag, $3 - on, $4 - on, $5, $6 }' /tmp/fx.cli
	# shellcheck disable=SC2046 # the figures
	set -- $(fx_phase_goodput "$fx_on" "$fx_off")
	mr_log "$fx_tag: mr-verify's phases in the black hole ran at $1% of the same kinds of phases before it ($2 of $3 bytes in $4 phases judged)"
	if [ "$2" -eq 0 ] || [ $(($2 * 2)) -lt "$3" ]; then
		fx_fail "$fx_tag" "cannot judge the goodput in the black hole: $2 of $3 bytes in phases of a kind seen before it"
	elif [ "$1" -lt 60 ]; then
		fx_fail "$fx_tag" "goodput during the black hole $1% of before, phase kind by phase kind (< 60%)"
	fi

	# s2 after the heal, from 1 s after it: its bytes vs the mean.  The
	# probes moved every path around s2 during the hole; the spines are
	# shaped and mark CE, so exploration (MR-MP-32) finds s2 again and
	# MR-MP-27 spreads the paths back: 90-114% in five runs (0-102%,
	# 18% in a CI run, before exploration).
	fx_col=$([ "$fx_dir" = fwd ] && echo 4 || echo 9)
	# shellcheck disable=SC2046
	set -- $(fx_window "$(fx_add "$fx_off" 1)" 999999)
	fx_heal=$(echo "$@" | awk -v c="$fx_col" '{ m = ($(c - 1) + $c + $(c + 1) + $(c + 2)) / 4
		print $c, int(m), (m > 0 ? int($c * 100 / m) : 0), $1 }')
	# shellcheck disable=SC2086
	set -- $fx_heal
	mr_log "$fx_tag: in the ${4}s from 1 s after the heal s2 carried $1 bytes ($fx_dir), the mean of the four $2: $3%"
	[ "$3" -ge 50 ] || fx_fail "$fx_tag" "s2 carries less than half its share after the heal ($3% of the mean, MR-MP-32)"

	# deaths (tracepoint metaroce_path). The bound is checked on the
	# first death of the QP whose data go into the black hole (fwd:
	# mr_ha's requests, rev: mr_hb's); every death is logged.
	fx_deaths >/tmp/fx.deaths
	sed "s/^/[$MR_ROLE] $fx_tag: /" /tmp/fx.deaths
	fx_ptab=$(fx_ptab_check /tmp/fx.ptab)
	mr_log "$fx_tag: path tables of $fx_dname in the hole: $fx_ptab"
	case "$fx_ptab" in
	"ok "*) ;;
	*) fx_fail "$fx_tag" "path table listing: $fx_ptab" ;;
	esac
	fx_first=$(grep "^DEATH $fx_dev " /tmp/fx.deaths | head -1)
	if [ -z "$fx_first" ]; then
		fx_fail "$fx_tag" "no path of the QP sending into the black hole was declared dead"
	else
		mr_log "$fx_tag: the first death of a path sending into the black hole: $fx_first"
		case "$fx_first" in
		*" ok") ;;
		*) fx_fail "$fx_tag" "its death came later than its bound" ;;
		esac
	fi
	fx_nd=$(grep -c '^DEATH' /tmp/fx.deaths || true)
	fx_late=$(grep -c '^DEATH.* \(LATE\|NOPKT\)$' /tmp/fx.deaths || true)
	fx_after=$(awk -v t="$(($(fx_s 10) + 1))" '$1 == "DEATH" && $6 > t { n++ } END { print n + 0 }' /tmp/fx.deaths)
	fx_rev=$(sed -n 's/^REVIVALS all \([0-9]*\) .*/\1/p' /tmp/fx.deaths)
	mr_log "$fx_tag: deaths $fx_nd (both QPs, all paths), $fx_late of them later than the bound as measured from the path's first packet after the black hole or its last re-roll, $fx_after more than 1 s after the heal; revivals ${fx_rev:-0}"
	[ "${fx_rev:-0}" -ge 1 ] || fx_fail "$fx_tag" "no path revived"
	fx_dd=$(($(fx_ctr path_deaths) - fx_d0))
	fx_dv=$(($(fx_ctr path_revivals) - fx_v0))
	fx_dq=$(($(fx_ctr path_probe_replies) - fx_q0))
	fx_dp=$(($(fx_ctr path_probes) - fx_p0))
	mr_log "$fx_tag: counters in the case: path_deaths $fx_dd, path_revivals $fx_dv, path_probes $fx_dp, path_probe_replies $fx_dq, path_rerolls $(fx_ctr path_rerolls) (path_explores $(fx_ctr path_explores)) in all"
	[ "$fx_dd" -ge "$fx_nd" ] ||
		fx_fail "$fx_tag" "path_deaths counted fewer deaths than the tracepoint showed"
	[ "$fx_dv" -ge 1 ] && [ "$fx_dq" -ge "$fx_dv" ] && [ "$fx_dp" -ge "$fx_dq" ] ||
		fx_fail "$fx_tag" "path_probes >= path_probe_replies >= path_revivals >= 1 does not hold"
	fx_verdict "$fx_tag"
}

# fx_add T S: T + S.
fx_add() {
	echo "$1 $2" | awk '{ print $1 + $2 }'
}

# fx_ptab_check FILE: the QP lines of rdma -dd res show qp in FILE
# against what the admin guide promises of drv_path_states (a letter per
# path, a active, s suspect, d dead; as many as drv_paths) and of the
# detail lines (up to 8 drv_pathN: the paths not active first, then the
# active ones by index; each state= as its letter). Prints "ok N lines,
# K with a path not active, states ..." or what was wrong. A black hole
# kills paths, so no path shown other than active is wrong too.
fx_ptab_check() {
	awk '
	{
		n = -1; st = ""; delete shown
		for (i = 1; i < NF; i++) {
			if ($i == "drv_paths") n = $(i + 1)
			if ($i == "drv_path_states") st = $(i + 1)
			if ($i ~ /^drv_path[0-9]+$/) {
				k = substr($i, 9) + 0
				v = $(i + 1); sub(/^state=/, "", v); sub(/,.*/, "", v)
				shown[k] = substr(v, 1, 1)
			}
		}
		lines++
		if (n < 1 || length(st) != n || st !~ /^[asd]+$/) {
			bad = bad sprintf("; drv_paths %s drv_path_states \"%s\"", n, st)
			next
		}
		if (st ~ /[sd]/) { na++; seen = seen " " st }
		want = 0; delete wst
		for (p = 0; p < 2; p++)
			for (k = 0; k < n && want < 8; k++) {
				c = substr(st, k + 1, 1)
				if ((c == "a") != (p == 1)) continue
				wst[k] = c; want++
			}
		for (k in wst)
			if (!(k in shown) || shown[k] != wst[k])
				bad = bad sprintf("; path %d is %s in drv_path_states, shown as \"%s\"", k, wst[k], shown[k])
		for (k in shown)
			if (!(k in wst))
				bad = bad sprintf("; drv_path%d shown, not among the 8 to show (%s)", k, st)
	}
	END {
		if (lines == 0) bad = bad "; no QP line"
		else if (na == 0) bad = bad "; no path other than active in " lines " lines"
		if (bad != "") print "FAIL" bad
		else printf "ok %d lines, %d with a path not active, states%s\n", lines, na, seen
	}' "$1"
}

# fx_sleep_until T S: sleep until S seconds after uptime T.
fx_sleep_until() {
	fx_left=$(echo "$1 $2 $(fx_now)" | awk '{ d = $1 + $2 - $3; print (d > 0 ? d : 0) }')
	sleep "$fx_left"
}

# --- slow spine --------------------------------------------------------------

fx_slow() {
	fab_clear
	fab_slow 3
	fx_sampler_start
	fx_t0=$(fx_now)
	fx_verify_start $fx_plan --time "$(fx_s 24)"
	fx_verify_wait
	fx_sampler_stop slow
	[ "$fx_ok" = 1 ] || fx_fail slow "mr-verify did not verify (s3 slow)"
	fx_slow_mbs=$fx_mbs
	# shellcheck disable=SC2046 # the window's figures
	set -- $(fx_window "$(fx_add "$fx_t0" 3)" 999999)
	mr_log "slow: fwd bytes per spine $3 $4 $5 $6; rev $8 $9 ${10} ${11}; $fx_slow_mbs MB/s"
	echo "$3 $4 $5 $6 $8 $9 ${10} ${11}" | awk '{ exit !($3 < $1 && $3 < $2 && $3 < $4 && $7 < $5 && $7 < $6 && $7 < $8) }' ||
		fx_fail slow "s3's share is not below every other spine's"
	fab_clear
	fab_ecmp "1 2 4"
	fx_verify_start $fx_plan --time "$(fx_s 24)"
	fx_verify_wait
	[ "$fx_ok" = 1 ] || fx_fail slow "mr-verify did not verify (s3 removed)"
	fx_pct=$(echo "$fx_slow_mbs $fx_mbs" | awk '{ print ($2 > 0 ? int($1 * 100 / $2) : 0) }')
	mr_log "slow: goodput with s3 slow $fx_slow_mbs MB/s, with s3 out of the routes $fx_mbs MB/s: $fx_pct%"
	[ "$fx_pct" -ge 80 ] || fx_fail slow "goodput with the slow spine $fx_pct% of that without it (< 80%)"
	fab_clear
	fx_verdict slow
}

fx_rate_saved=$FAB_RATE
for fx_case in ${FX_CASES:-spray blackhole reverse slow}; do
	mr_log "--- case $fx_case"
	case "$fx_case" in
	calibrate) fx_calibrate ;;
	spray*) fx_spray "${fx_case#spray}" ;;
	blackhole) fx_hole blackhole fwd ;;
	reverse) fx_hole reverse rev ;;
	slow) fx_slow ;;
	esac
done

kill $fx_pin_la $fx_pin_lb 2>/dev/null || true
rdma link delete mr_ha
rdma link delete mr_hb
fab_down
modprobe -r metaroce || mr_fail "modprobe -r metaroce"
[ -z "$fx_failures" ] || mr_fail "fabric cases failed:$fx_failures"
mr_log "all fabric cases passed"
