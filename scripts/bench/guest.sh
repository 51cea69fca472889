# SPDX-License-Identifier: GPL-2.0
#
# make bench, the guest side: a "pair" scenario for tests/vm/run.sh (busybox
# sh, tests/vm/guest/lib.sh sourced). scripts/bench/bench.sh prepends the
# parameters (BENCH_* below) and the header run.sh reads.
#
# Both RDMA devices (rxe0 and mr0) are created once on eth0. Then at each
# loss level in BENCH_LOSS (tc netem random loss on both VMs' eth0 egress,
# set for the measurement and removed after it), for each transport of
# BENCH_TRANSPORTS (tcp, rxe, metaroce), the "server" VM runs the listening
# side of a tool and the "client" VM the connecting side:
#   tcp:           iperf3 for BENCH_SECONDS (the link's practical limit);
#   rxe, metaroce: ib_{write,read,send}_bw at each size of BENCH_SIZES for
#                  BENCH_SECONDS (-D), ib_{send,write}_lat at BENCH_LAT_SIZE
#                  bytes for BENCH_LAT_ITERS iterations; each test point on
#                  rxe and on MetaRoCE back to back.
# BENCH_MR_PARAMS are metaroce module parameters (e.g. cc_fixed=1);
# BENCH_MR_ATTRS device attributes written once mr0 exists (ack_every=4).
# BENCH_FTRACE=1: each RDMA run is traced on both VMs with the function
# tracer on the device's datapath entry points (trace_funcs below); a
# summary of the intervals (BENCH-TRACE lines) and an excerpt of the trace
# go to the console. It slows the datapath a little: for diagnosis, not for
# the published numbers. BENCH_FTRACE=events: MetaRoCE's runs only, with
# its tracepoints instead (trace_events below): counts, the gaps between
# received and between sent packets, and the trace around each RTO.
# BENCH_PERF=1: a perf profile of both VMs in each bandwidth run's window
# (win_start), and in each latency run's (make BENCH_LAT_ITERS last
# longer than BENCH_SECONDS), printed as BENCH-PROF lines (the initramfs
# then carries perf). Every bandwidth run records both VMs' CPUs busy in
# that window.
# BENCH_QP=1: the last two samples of MetaRoCE's QP transport state (cwnd,
# srtt, the congestion control's cuts by kind; restrack.c) after every
# run (sampled each second: it disturbs the measurement a little).
# BENCH_CRC: the CRCs' drivers, cpu (as a real host) or table (crc_drivers).
# BENCH_SCALING=1: the scaling run (bench.sh boots two vCPUs per VM and a
# multiqueue link). Its tests are named <op>_q<QPs>_<CPUs>cpu[_<N>rxq],
# e.g. write_q8_2cpu: ib_<op>_bw with -q <QPs> while <CPUs> vCPUs of each
# VM are online and the NIC uses <N> queue pairs (default: one per online
# vCPU; scaling_cpus); the counters then include each receive and transmit
# queue's packets (nic_rxq<N>_packets, nic_txq<N>_packets) and the window
# each CPU's share (cpu_busy_<N>).
# Every tool runs under timeout. The client prints one machine-readable line
# per result on its console:
#   BENCH,<transport>,<test>,<size>,<loss %>,<metric>,<value>,<status>,<note>
# status: ok; fail (the tool ran and failed, timed out or printed no result);
# n/a (the transport is not usable: device setup failed, or the tool could
# not start on it). A failure never becomes a number. Both VMs print
# BENCH-ENV,<role>,<key>,<value> and BENCH-NOTE,<transport>,<text> lines.
#
# A measurement's failure is data, not a reason to stop: the scenario ends
# non-zero only when the two VMs lose each other.
#
# Per-transport state lives in variables named by eval (use_rxe, gid_mr...).
# shellcheck disable=SC2034,SC2154

set +e

: "${BENCH_TRANSPORTS:=tcp rxe metaroce}"
: "${BENCH_BW_TESTS=write read send}"
: "${BENCH_LAT_TESTS=send write}"
: "${BENCH_SIZES:=4096 65536 1048576}"
: "${BENCH_LAT_SIZE:=8}"
: "${BENCH_LOSS:=0 0.1 1 5}"
: "${BENCH_SECONDS:=10}"
: "${BENCH_LAT_ITERS:=1000}"
: "${BENCH_LAT_TIMEOUT:=90}"
: "${BENCH_SLACK:=40}"
: "${BENCH_MR_NOTE:=}"
: "${BENCH_MR_PARAMS:=}"
: "${BENCH_MR_ATTRS:=}"
: "${BENCH_FTRACE:=0}"
: "${BENCH_PERF:=0}"
: "${BENCH_QP:=0}"
: "${BENCH_CRC:=cpu}"
: "${BENCH_SCALING:=0}"

perftest_port=18515
iperf_port=5201
xchg_port=7701
# How long one VM waits for the other: longer than any single tool run.
xchg_wait=300
[ $((BENCH_SECONDS + BENCH_SLACK + 120)) -gt $xchg_wait ] &&
	xchg_wait=$((BENCH_SECONDS + BENCH_SLACK + 120))
[ $((BENCH_LAT_TIMEOUT + 120)) -gt $xchg_wait ] && xchg_wait=$((BENCH_LAT_TIMEOUT + 120))
out=/tmp/bench.out
seq=0
dev=""
dev_note=""

say() {
	echo "[$MR_ROLE] bench: $*"
}

# One field of a CSV line: no commas, no line breaks, bounded.
# uptime_cs: the time since boot in centiseconds (/proc/uptime), the one
# clock a TCG guest keeps well enough to time a run of seconds.
uptime_cs() {
	awk '{ split($1, t, "."); print t[1] * 100 + t[2] }' /proc/uptime
}

field() {
	tr ',\r\n\t' ';   ' | tr -s ' ' | sed 's/^ //; s/ $//' | cut -c1-240
}

# result TRANSPORT TEST SIZE LOSS METRIC VALUE STATUS NOTE (client only)
result() {
	[ "$MR_ROLE" = client ] || return 0
	echo "BENCH,$1,$2,$3,$4,$5,$6,$7,$(printf '%s' "$8" | field)"
}

env_line() {
	echo "BENCH-ENV,$MR_ROLE,$1,$(printf '%s' "$2" | field)"
}

note() {
	say "$1: $2"
	[ "$MR_ROLE" = client ] && echo "BENCH-NOTE,$1,$(printf '%s' "$2" | field)"
	return 0
}

# The tool's own words when it fails: its first two error lines (the cause
# comes first), else its last lines; never libibverbs' warnings about
# providers the guest does not have, nor perftest's rules.
errtext() {
	grep -v -e '^libibverbs: Warning' -e '^-*$' -e '^ *$' -e '^\**$' "$1" \
		>/tmp/err.lines 2>/dev/null
	grep -i -e "couldn't" -e 'unable' -e 'fail' -e 'error' -e 'did not' \
		-e "wasn't found" -e 'not found' -e 'refused' /tmp/err.lines |
		head -n 2 >/tmp/err.first
	[ -s /tmp/err.first ] || tail -n 3 /tmp/err.lines >/tmp/err.first
	tr '\n' ' ' </tmp/err.first | field
}

# A latency run's per-iteration samples ("N, usec", from -U) are many:
# lat_tail summarises them rather than showing them.
show_output() {
	grep -v -e '^libibverbs: Warning' -e '^[0-9][0-9]*, [0-9.e+]*$' "$1" 2>/dev/null |
		sed 's/^/  | /'
}

# lat_tail FILE: where a latency run's slow iterations are. perftest -U
# prints each iteration's latency (half its round trip) in the order they
# ran. A tail of whole timer ticks (4 ms at HZ=250) or of slow iterations
# at a fixed period points at a timer; one spread over sizes and times at
# the host's scheduling of the VMs. Prints the samples above 1 ms by size,
# and when they happened (seconds into the run, from the sum of the round
# trips before them). Sets tail_1ms, tail_max.
lat_tail() {
	# shellcheck disable=SC2046
	set -- $(awk -F', ' '/^[0-9]+, [0-9.e+]+$/ {
			v = $2 + 0; n++
			if (v > max) max = v
			if (v > 1000) {
				k++
				b = v < 2000 ? "1-2" : v < 3000 ? "2-3" : v < 5000 ? "3-5" : v < 10000 ? "5-10" : "10+"
				c[b]++
				if (k <= 16) at = at sprintf(" %.2f", t / 1e6)
			}
			t += 2 * v
		}
		END {
			if (!n) exit
			s = ""
			split("1-2 2-3 3-5 5-10 10+", o, " ")
			for (i = 1; i <= 5; i++) s = s sprintf(" %s:%d", o[i], c[o[i]])
			printf "%d %d %.0f %.2f%s; first at (s):%s\n", n, k, max, t / 1e6, s, at
		}' "$1")
	tail_1ms="" tail_max=""
	[ $# -ge 4 ] || return 0
	tail_1ms=$2 tail_max=$3
	t_n=$1 t_secs=$4
	shift 4
	say "latency samples: $t_n over $t_secs s, $tail_1ms above 1 ms (max $tail_max us); by ms:$*"
}

# The RDMA device's counters (for finding out where the time goes:
# retransmissions, sequence errors, timeouts): "counters FILE" keeps
# "name value" lines; counters_delta BEFORE AFTER prints the ones that moved.
counters() {
	: >"$2"
	case "$1" in rxe | metaroce) ;; *) return 0 ;; esac
	rdma statistic show link "$dev/1" 2>/dev/null |
		awk '{ for (i = 3; i < NF; i += 2) print $i, $(i + 1) }' >"$2"
	# The scaling run: how the link spread the packets over the NIC's
	# receive queues and this VM's over its transmit queues (virtio-net's
	# rx_queue_<N>_packets, tx_queue_<N>_packets).
	[ "$BENCH_SCALING" = 1 ] &&
		ethtool -S eth0 2>/dev/null |
		sed -n 's/^ *\([rt]\)x_queue_\([0-9]*\)_packets: *\([0-9]*\)$/nic_\1xq\2_packets \3/p' >>"$2"
	return 0
}

counters_delta() {
	awk 'NR == FNR { a[$1] = $2; next } $2 != a[$1] { print $1, $2 - a[$1] }' "$1" "$2"
}

# ftrace of the RDMA datapath (BENCH_FTRACE=1). trace_funcs TRANSPORT: the
# functions traced, in this order: the doorbell (post_send), the requester
# loop, its timer, a second timer (MetaRoCE: delayed ACK; rxe: RNR), every
# transmitted and every received packet, a request packet handed to the
# responder, a response or ACK handed to the completer, a completion.
trace_funcs() {
	case "$1" in
	metaroce) echo mroce_post_send mroce_req_run mroce_req_timer_fn \
		mroce_ack_timer_fn mroce_xmit mroce_rcv mroce_resp_rcv \
		mroce_req_rcv mroce_send_complete skb_recv_done ;;
	rxe) echo rxe_post_send rxe_requester retransmit_timer rnr_nak_timer \
		rxe_xmit_packet rxe_rcv rxe_resp_queue_pkt rxe_comp_queue_pkt \
		rxe_cq_post skb_recv_done ;;
	esac
}
tdir=""
# BENCH_FTRACE=events: MetaRoCE's tracepoints (kernel/trace.h) traced.
trace_events="metaroce_pkt_tx metaroce_pkt_rx metaroce_req_event metaroce_cwnd"

# trace_mode TRANSPORT: "funcs", "events" or nothing (not traced).
trace_mode() {
	case "$BENCH_FTRACE:$1" in
	events:metaroce) echo events ;;
	1:*) [ -n "$(trace_funcs "$1")" ] && echo funcs ;;
	esac
}

trace_on() {
	[ -n "$(trace_mode "$1")" ] || return 0
	if [ -z "$tdir" ]; then
		mount -t tracefs nodev /sys/kernel/tracing >/dev/null 2>&1
		for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
			[ -f "$d/trace" ] && { tdir=$d; break; }
		done
		[ -n "$tdir" ] || { say "ftrace: no tracefs, tracing off"; BENCH_FTRACE=0; return 0; }
	fi
	echo 0 >"$tdir/tracing_on"
	echo nop >"$tdir/current_tracer"
	echo 8192 >"$tdir/buffer_size_kb" 2>/dev/null
	: >"$tdir/set_ftrace_filter"
	if [ "$(trace_mode "$1")" = events ]; then
		for e in $trace_events; do
			echo 1 >"$tdir/events/metaroce/$e/enable" 2>/dev/null ||
				say "ftrace: no event $e"
		done
		: >"$tdir/trace"
		echo 1 >"$tdir/tracing_on"
		return 0
	fi
	for f in $(trace_funcs "$1"); do
		echo "$f" >>"$tdir/set_ftrace_filter" 2>/dev/null || say "ftrace: cannot trace $f"
	done
	# An empty filter would trace every kernel function.
	grep -q . "$tdir/set_ftrace_filter" || { say "ftrace: nothing to trace for $1"; return 0; }
	: >"$tdir/trace"
	echo function >"$tdir/current_tracer"
	echo 1 >"$tdir/tracing_on"
}

# trace_times: /tmp/trace.txt without its comment lines, one line per
# traced function or event: "MICROSECONDS NAME LINE", the trace clock in
# microseconds, the function or event (without its colon) and the line
# as ftrace wrote it. What trace_off and trace_events_show read.
trace_times() {
	awk '/^#/ { next }
		{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
			e = $(i + 1); sub(/:$/, "", e)
			printf "%.0f %s %s\n", substr($i, 1, length($i) - 1) * 1e6, e, $0
			break
		} }' /tmp/trace.txt
}

# trace_off TRANSPORT TEST: stop, summarise, show an excerpt. Intervals
# (microseconds: median, 90th and 99th percentile and maximum over the
# run; how many took over 1 ms and their sum, for finding where a latency
# tail is spent):
#   post>xmit   a doorbell to the next packet leaving this VM
#   post>timer>xmit  ... when a requester timer ran in between (held)
#   rcv>post    a request packet in to the next doorbell (the process saw
#               the data and answered: ping-pong latency tests)
#   xmit>comp   a packet out to the next ACK/response processed
#   post>post   one iteration (latency tests)
#   nic>rcv     virtio-net's receive interrupt (skb_recv_done) to the
#               responder's next request packet: how long received
#               packets wait for the softirq (a busy process delays it)
#   rcv>xmit    a request packet at the responder to the next packet out
#               (the ACK or response it answers with; on the responder)
trace_off() {
	[ -n "$tdir" ] && [ -n "$(trace_mode "$1")" ] || return 0
	echo 0 >"$tdir/tracing_on"
	cat "$tdir/trace" >/tmp/trace.txt 2>/dev/null
	if [ "$(trace_mode "$1")" = events ]; then
		for e in $trace_events; do
			echo 0 >"$tdir/events/metaroce/$e/enable" 2>/dev/null
		done
		trace_events_show "$1" "$2"
		return 0
	fi
	echo nop >"$tdir/current_tracer"
	: >"$tdir/set_ftrace_filter"
	# shellcheck disable=SC2046
	set -- "$1" "$2" $(trace_funcs "$1")
	trace_times | awk -v P="$3" -v T="$5" -v X="$7" -v R="$9" -v C="${10}" -v N="${12}" '
		{	t = $1; f = $2
			n[f]++
			if (f == P) {
				if (lp) print "post>post", t - lp
				lp = t; pend = 1; tmr = 0
			} else if (f == T && pend) {
				tmr = 1
			} else if (f == X) {
				if (pend) print (tmr ? "post>timer>xmit" : "post>xmit"), t - lp
				pend = 0; lx = t; xpend = 1
				if (qpend) print "rcv>xmit", t - lq
				qpend = 0
			} else if (f == R) {
				lr = t; rpend = 1
				if (npend) print "nic>rcv", t - ln
				npend = 0
				if (!qpend) { lq = t; qpend = 1 }
			} else if (f == N) {
				if (!npend) { ln = t; npend = 1 }
			} else if (f == C && xpend) {
				print "xmit>comp", t - lx; xpend = 0
			}
			if (f == P && rpend) {
				print "rcv>post", t - lr; rpend = 0
			}
		}
		END { for (f in n) print "count", f, n[f] }' >/tmp/trace.iv
	grep '^count' /tmp/trace.iv | sort -k2 | awk -v tr="$1" -v te="$2" -v r="$MR_ROLE" \
		'{ printf "BENCH-TRACE,%s,%s,%s,calls,%s,%s\n", r, tr, te, $2, $3 }'
	for k in post\>xmit post\>timer\>xmit rcv\>post xmit\>comp post\>post \
		nic\>rcv rcv\>xmit; do
		grep "^$k " /tmp/trace.iv | awk '{ print $2 }' | sort -n >/tmp/trace.k
		[ -s /tmp/trace.k ] || continue
		awk -v k="$k" -v tr="$1" -v te="$2" -v r="$MR_ROLE" '{ v[NR] = $1; if ($1 > 1000) { m++; ms += $1 } }
			END { q = int(NR * 0.9); if (q < 1) q = 1
				q99 = int(NR * 0.99); if (q99 < 1) q99 = 1
				printf "BENCH-TRACE,%s,%s,%s,%s,n=%d median=%.0fus p90=%.0fus p99=%.0fus max=%.0fus over1ms=%d (%.0f ms)\n",
				r, tr, te, k, NR, v[int((NR + 1) / 2)], v[q], v[q99], v[NR], m, ms / 1000 }' /tmp/trace.k
	done
	# An excerpt from the middle of the run, for reading by hand.
	n=$(wc -l </tmp/trace.txt)
	say "ftrace excerpt ($1 $2, lines $((n / 2)).. of $n):"
	sed -n "$((n / 2)),$((n / 2 + 40))p" /tmp/trace.txt | sed 's/^/  ~ /'
	return 0
}

# trace_events_show TRANSPORT TEST (BENCH_FTRACE=events): how many of
# each event; the silences over 3 ms between received packets (rx_gaps)
# and between sent ones (tx_gaps): how many, their sum, the longest; the
# RTOs fired. Then the trace around each of the first four RTOs (40
# events before, 12 after) on the console, for reading by hand: which
# packets came just before and just after each one.
trace_events_show() {
	trace_times | awk -v tr="$1" -v te="$2" -v r="$MR_ROLE" '
		{	t = $1; e = $2; n[e]++
			if (e == "metaroce_pkt_rx") { if (lr && t - lr > 3000) { rg++; rs += t - lr; if (t - lr > rm) rm = t - lr }; lr = t }
			if (e == "metaroce_pkt_tx") { if (lt && t - lt > 3000) { tg++; ts += t - lt; if (t - lt > tm) tm = t - lt }; lt = t }
			if (e == "metaroce_req_event" && / rto n=/) rto++
		}
		END {
			for (e in n) printf "BENCH-TRACE,%s,%s,%s,events,%s %d\n", r, tr, te, e, n[e]
			printf "BENCH-TRACE,%s,%s,%s,rx_gaps,over3ms=%d (%.0f ms) max=%.0fus\n", r, tr, te, rg, rs / 1000, rm
			printf "BENCH-TRACE,%s,%s,%s,tx_gaps,over3ms=%d (%.0f ms) max=%.0fus\n", r, tr, te, tg, ts / 1000, tm
			printf "BENCH-TRACE,%s,%s,%s,rto_fired,%d\n", r, tr, te, rto
		}'
	say "ftrace events around the first RTOs ($1 $2):"
	grep -v '^#' /tmp/trace.txt | awk '
		/ rto n=/ { k++; if (k <= 4) { for (j = NR - 40; j < NR; j++) if (j > 0) print "B" k " " L[j % 64]; print "R" k " " $0; c = 12 } next }
		c > 0 { print "A" k " " $0; c-- }
		{ L[NR % 64] = $0 }' | sed 's/^/  ~ /'
	return 0
}

# The measurement window (win_start, win_end): a quarter of the run in,
# for half of it, about where perftest measures (its --margin leaves the
# first and last quarter of -D out; one second more for its start-up).
# Over the window each VM records the CPU time it spent (/proc/stat,
# every CPU: "CPUs busy", 1.00 = one CPU all the time) and, with
# BENCH_PERF=1, a perf profile of the whole VM (cpu-clock samples, kernel
# and user, call graphs), summarised by prof_show.
cpu_jiffies() {
	# busy and total over user..steal (guest time is inside user).
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= 9; i++) t += $i
		print t - $5 - $6, t; exit }' /proc/stat
}

# cpu_each: "N busy total" per online CPU, as cpu_jiffies.
cpu_each() {
	awk '$1 ~ /^cpu[0-9]+$/ { t = 0; for (i = 2; i <= 9; i++) t += $i
		print substr($1, 4), t - $5 - $6, t }' /proc/stat
}

win_start() {
	win_pid=""
	rm -f /tmp/win.out /tmp/win.each.a /tmp/win.each.b /tmp/perf.data
	# Latency runs are profiled on request only: their CPU figure is
	# no cost per byte, and their length is set by BENCH_LAT_ITERS.
	case "$1" in
	bw | tcp) ;;
	lat) [ "$BENCH_PERF" = 1 ] || return 0 ;;
	*) return 0 ;;
	esac
	w_delay=$((BENCH_SECONDS / 4 + 1))
	w_len=$((BENCH_SECONDS / 2 - 1))
	[ $w_len -ge 1 ] || w_len=1
	(
		sleep $w_delay
		[ "$BENCH_SCALING" = 1 ] && cpu_each >/tmp/win.each.a
		a=$(cpu_jiffies)
		if [ "$BENCH_PERF" = 1 ]; then
			# -B: no build-id pass over the samples at the end,
			# which takes seconds in a busy TCG guest.
			perf record -a -g -B -F 499 -o /tmp/perf.data -- sleep $w_len \
				>/tmp/perf.rec 2>&1
		else
			sleep $w_len
		fi
		b=$(cpu_jiffies)
		[ "$BENCH_SCALING" = 1 ] && cpu_each >/tmp/win.each.b
		echo "$a $b" >/tmp/win.out
	) &
	win_pid=$!
}

# win_end: the window's CPUs busy (w_cpus), and each online CPU's share
# as "N busy" pairs (w_each); empty when the run ended before the window
# did (no figure rather than one of an idle VM).
win_end() {
	w_cpus=""
	w_each=""
	[ -n "$win_pid" ] || return 0
	# perf writes its file after the window: give it time.
	i=0
	n=4
	[ "$BENCH_PERF" = 1 ] && n=20
	while kill -0 "$win_pid" 2>/dev/null && [ ! -s /tmp/win.out ] && [ $i -lt $n ]; do
		sleep 0.5
		i=$((i + 1))
	done
	if [ ! -s /tmp/win.out ]; then
		kill "$win_pid" 2>/dev/null
		pkill -x perf 2>/dev/null
	fi
	wait "$win_pid" 2>/dev/null
	win_pid=""
	[ -s /tmp/win.out ] || return 0
	# shellcheck disable=SC2046
	set -- $(cat /tmp/win.out)
	[ $# -eq 4 ] && [ "$4" -gt "$2" ] || return 0
	w_cpus=$(awk -v b=$(($3 - $1)) -v t=$(($4 - $2)) -v n="$(nproc)" \
		'BEGIN { printf "%.2f", b / t * n }')
	# The scaling run: each CPU online at both ends of the window.
	[ "$BENCH_SCALING" = 1 ] || return 0
	w_each=$(awk 'NR == FNR { b[$1] = $2; t[$1] = $3; next }
		($1 in t) && $3 > t[$1] { printf "%s %.2f ", $1, ($2 - b[$1]) / ($3 - t[$1]) }' \
		/tmp/win.each.a /tmp/win.each.b 2>/dev/null)
}

# prof_show TRANSPORT TEST SIZE LOSS: the window's profile (BENCH_PERF=1)
# as BENCH-PROF,<role>,<transport>,<test>,<size>,<loss>,<kind>,<percent>,
# <symbol> lines: kind "self" (samples in the function itself) and "total"
# (with what it calls), the largest first, down to 0.5% of the samples.
prof_show() {
	[ "$BENCH_PERF" = 1 ] && [ -n "$w_cpus" ] && [ -s /tmp/perf.data ] || return 0
	for k in self total; do
		if [ $k = self ]; then o=--no-children; n=30; else o=--children; n=100; fi
		perf --no-pager report -i /tmp/perf.data --stdio $o -g none \
			--sort sym --percent-limit 0.5 2>/dev/null |
			awk -v n=$n -v p="BENCH-PROF,$MR_ROLE,$1,$2,$3,$4,$k" '
				/^#/ || !/%/ { next }
				{ for (i = 1; i <= NF; i++) if ($i ~ /^\[.\]$/) break
				  if (i >= NF) next
				  s = $(i + 1); for (j = i + 2; j <= NF; j++) s = s " " $j
				  gsub(/,/, ";", s)
				  if (++c <= n) printf "%s,%s,%s\n", p, $1, s }'
	done
	# perf record's own count: "... (N samples) ]".
	n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' /tmp/perf.rec 2>/dev/null | head -1)
	# perf leaves it out at times (latency runs): count the samples.
	[ -n "$n" ] || n=$(perf --no-pager script -i /tmp/perf.data -F period 2>/dev/null | wc -l)
	echo "BENCH-PROF,$MR_ROLE,$1,$2,$3,$4,samples,${n:-0},"
	return 0
}

# listening PORT: a TCP socket of this VM listens on PORT.
listening() {
	hex=$(printf '%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p=":$hex" '$2 ~ p "$" && $4 == "0A" { f = 1 } END { exit !f }'
}

# xchg TAG MSG: both VMs meet; prints the peer's MSG. Status 1 when the
# peer does not come within $xchg_wait seconds. The connection survives the netem
# loss (TCP); nc's timeout only bounds a connection that was established.
# (Functions share the caller's variables: these are x_*.)
xchg() {
	x_tag=$1
	x_msg=$(printf '%s' "$2" | tr '\n' ' ')
	x_got=""
	x_end=$(($(date +%s) + xchg_wait))
	if [ "$MR_ROLE" = server ]; then
		x_n=0
		while [ $x_n -lt 3 ]; do
			x_got=$(echo "$x_tag $x_msg" | timeout $xchg_wait nc -l -p $xchg_port 2>/dev/null)
			case "$x_got" in "$x_tag" | "$x_tag "*) break ;; esac
			say "xchg $x_tag: got '$x_got'"
			x_n=$((x_n + 1))
		done
	else
		while [ "$(date +%s)" -lt $x_end ]; do
			x_got=$(echo "$x_tag $x_msg" | timeout 30 nc "$MR_PEER_IP" $xchg_port 2>/dev/null)
			case "$x_got" in "$x_tag" | "$x_tag "*) break ;; esac
			sleep 0.2
		done
	fi
	case "$x_got" in
	"$x_tag") echo ""; return 0 ;;
	"$x_tag "*) echo "${x_got#"$x_tag "}"; return 0 ;;
	esac
	return 1
}

lossy() {
	awk -v l="$1" 'BEGIN { exit !(l + 0 > 0) }'
}

netem_on() {
	tc qdisc del dev eth0 root >/dev/null 2>&1
	lossy "$1" || return 0
	tc qdisc add dev eth0 root netem loss "$1%" >/tmp/netem.err 2>&1 ||
		{ say "netem loss $1% failed: $(cat /tmp/netem.err)"; return 1; }
}

netem_off() {
	tc qdisc del dev eth0 root >/dev/null 2>&1
	return 0
}

# qp_watch TRANSPORT: with BENCH_QP=1, sample MetaRoCE's QP transport
# state (restrack.c) every second while a tool runs, keeping the last two
# samples; qp_unwatch stops it, qp_show prints the samples after
# every run. Only on request: an rdma process a second in the one-vCPU
# guest competes with the tool; it raised MetaRoCE's latency p99 by a
# quarter and took up to a quarter of its bandwidth, against rxe, which
# no sampler disturbed (benchmarks.rst, "The latency tail"). A failed run
# without it shows the counters.
qp_watch() {
	qp_pid=""
	rm -f /tmp/qps /tmp/qps.prev
	[ "$1" = metaroce ] && [ "$BENCH_QP" = 1 ] || return 0
	(
		while :; do
			[ -f /tmp/qps ] && mv /tmp/qps /tmp/qps.prev
			rdma -dd res show qp link "$dev/1" >/tmp/qps 2>&1
			sleep 1
		done
	) &
	qp_pid=$!
}

qp_unwatch() {
	[ -n "$qp_pid" ] || return 0
	kill "$qp_pid" 2>/dev/null
	wait "$qp_pid" 2>/dev/null
	qp_pid=""
}

qp_show() {
	[ -f /tmp/qps ] || return 0
	say "QPs of $dev (rdma -dd res show qp), the last two samples 1 s apart:"
	grep -h 'type RC' /tmp/qps.prev /tmp/qps 2>/dev/null | sed 's/^/    /'
}

# measure TRANSPORT TEST SIZE LOSS KIND PORT TIMEOUT CMD...
# The server runs CMD (the listener) in the background, waits until it
# listens on PORT (or died), tells the client; the client runs CMD <server>.
# Loss is on for the measurement on both VMs. The client parses its output
# by KIND (bw, lat, tcp) and prints the result lines.
measure() {
	m_tr=$1 m_test=$2 m_size=$3 m_loss=$4 m_kind=$5 m_port=$6 m_tmo=$7
	shift 7
	seq=$((seq + 1))
	tag="m$seq"
	rm -f "$out"
	m_start=$(date +%s)
	say "run $seq: $m_tr $m_test size=$m_size loss=$m_loss%: $*"
	counters "$m_tr" /tmp/ctr.before
	trace_on "$m_tr"
	qp_watch "$m_tr"
	if [ "$MR_ROLE" = server ]; then
		timeout "$m_tmo" "$@" >"$out" 2>&1 &
		pid=$!
		state=dead
		i=0
		while kill -0 $pid 2>/dev/null; do
			if listening "$m_port"; then
				state=ready
				break
			fi
			i=$((i + 1))
			[ $i -gt 300 ] && break
			sleep 0.2
		done
		srv_rc=""
		if [ $state = ready ]; then
			msg=ready
		else
			kill $pid 2>/dev/null
			wait $pid 2>/dev/null
			srv_rc=$?
			msg="server side: $(errtext "$out")"
		fi
		xchg "$tag-ready" "$msg" >/dev/null || mr_fail "peer lost before run $seq"
		[ $state = ready ] && netem_on "$m_loss" && win_start "$m_kind"
		xchg "$tag-done" finished >/dev/null || mr_fail "peer lost during run $seq"
		i=0
		while kill -0 $pid 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		if [ -z "$srv_rc" ]; then
			kill $pid 2>/dev/null
			wait $pid 2>/dev/null
			srv_rc=$?
		fi
		netem_off
		qp_unwatch
		win_end
		show_output "$out"
		say "run $seq: server side exit status $srv_rc"
		qp_show
		counters "$m_tr" /tmp/ctr.after
		trace_off "$m_tr" "$m_test"
		counters_delta /tmp/ctr.before /tmp/ctr.after >/tmp/ctr.delta
		tr '\n' ' ' </tmp/ctr.delta | sed 's/^./  counters moved: &/'
		echo
		# The server's counters, for report.py (peer_ctr_<name> rows),
		# and its CPUs busy (peer_cpu_busy).
		while read -r c_name c_delta; do
			echo "BENCH-PEER,$m_tr,$m_test,$m_size,$m_loss,$c_name,$c_delta"
		done </tmp/ctr.delta
		[ -n "$w_cpus" ] && echo "BENCH-PEER,$m_tr,$m_test,$m_size,$m_loss,cpu_busy,$w_cpus"
		# shellcheck disable=SC2086
		[ "$BENCH_SCALING" = 1 ] && [ -n "$w_each" ] && set -- $w_each &&
			while [ $# -ge 2 ]; do
				echo "BENCH-PEER,$m_tr,$m_test,$m_size,$m_loss,cpu_busy_$1,$2"
				shift 2
			done
		prof_show "$m_tr" "$m_test" "$m_size" "$m_loss"
		return 0
	fi

	peer=$(xchg "$tag-ready" client) || mr_fail "peer lost before run $seq"
	rc=0
	m_cs=0
	why=""
	if [ "$peer" = ready ]; then
		if netem_on "$m_loss"; then
			win_start "$m_kind"
			tries=0
			while :; do
				rc=0
				m_t0=$(uptime_cs)
				timeout "$m_tmo" "$@" "$MR_PEER_IP" >"$out" 2>&1 || rc=$?
				m_cs=$(($(uptime_cs) - m_t0))
				tries=$((tries + 1))
				[ $rc -ne 0 ] && [ $tries -lt 3 ] &&
					grep -qi -e "couldn't connect" -e 'unable to connect' "$out" ||
					break
				sleep 1
			done
		else
			rc=1
			why="tc netem loss $m_loss% failed: $(cat /tmp/netem.err)"
		fi
		netem_off
	else
		rc=-1
		why=$peer
	fi
	qp_unwatch
	win_end
	xchg "$tag-done" "$rc" >/dev/null || mr_fail "peer lost after run $seq"
	show_output "$out"
	qp_show
	m_secs=$(($(date +%s) - m_start))
	say "run $seq: client side exit status $rc (${m_secs}s)"
	counters "$m_tr" /tmp/ctr.after
	trace_off "$m_tr" "$m_test"

	# Why it failed, in the tool's words.
	if [ $rc -eq 124 ] || [ $rc -eq 143 ]; then
		why="timed out after ${m_tmo}s; $(errtext "$out")"
	elif [ $rc -gt 0 ] && [ -z "$why" ]; then
		why="exit status $rc: $(errtext "$out")"
	fi
	# The tool could not start on this transport at all: not a measurement.
	fstatus=fail
	if { printf '%s\n' "$why"; cat "$out" 2>/dev/null; } | grep -q \
		-e 'Did not detect devices' -e "IB device .* wasn't found" \
		-e 'IB device .* not found' \
		-e "Couldn't get context" -e 'Unable to find the Infiniband'; then
		fstatus=n/a
		why="$dev_note$why"
	fi

	# The parsers' fields become the positional parameters.
	# shellcheck disable=SC2046
	case "$m_kind" in
	bw)
		set -- $(awk -v s="$m_size" '$1 == s && NF >= 5 && $4 ~ /^[0-9.]+$/ { bw = $4; it = $2 }
			END { if (bw != "") print bw, it }' "$out")
		if [ $rc -eq 0 ] && [ $# -eq 2 ] && [ "$1" = 0.00 ] &&
			grep -q 'Correlation coefficient r^2' "$out"; then
			# perftest could not calibrate its cycle counter (TCG
			# guests, sometimes) and printed 0.00 for a run that
			# completed: the rate from the messages it moved and the
			# tool's wall time, which includes connection setup, so
			# it is a lower bound and is labelled as derived.
			mbps=$(awk -v n="$2" -v s="$m_size" -v cs="$m_cs" \
				'BEGIN { if (cs > 0) printf "%.2f", n * s * 8 / (cs / 100) / 1e6 }')
			if [ -n "$mbps" ]; then
				result "$m_tr" "$m_test" "$m_size" "$m_loss" bw_mbps "$mbps" ok \
					"$2 messages; derived from wall time (perftest printed 0.00: clock not calibrated)"
			else
				result "$m_tr" "$m_test" "$m_size" "$m_loss" bw_mbps "" fail \
					"perftest printed 0.00 (clock not calibrated) and the wall time is 0"
			fi
		elif [ $rc -eq 0 ] && [ $# -eq 2 ]; then
			# perftest's MB/sec is MiB/s.
			mbps=$(awk -v b="$1" 'BEGIN { printf "%.2f", b * 8 * 1048576 / 1e6 }')
			result "$m_tr" "$m_test" "$m_size" "$m_loss" bw_mbps "$mbps" ok "$2 messages"
		else
			[ -n "$why" ] || why="no result line in the output: $(errtext "$out")"
			result "$m_tr" "$m_test" "$m_size" "$m_loss" bw_mbps "" $fstatus "$why"
		fi
		;;
	lat)
		set -- $(awk -v s="$m_size" '$1 == s && NF >= 9 && $5 ~ /^[0-9.]+$/ { t = $5; a = $6; p = $8; n = $2; m = $3 }
			END { if (t != "") print t, a, p, n, m }' "$out")
		if [ $rc -eq 0 ] && [ $# -eq 5 ]; then
			result "$m_tr" "$m_test" "$m_size" "$m_loss" lat_typical_us "$1" ok "$4 iterations"
			result "$m_tr" "$m_test" "$m_size" "$m_loss" lat_avg_us "$2" ok ""
			result "$m_tr" "$m_test" "$m_size" "$m_loss" lat_p99_us "$3" ok ""
			result "$m_tr" "$m_test" "$m_size" "$m_loss" lat_min_us "$5" ok ""
			lat_tail "$out"
			[ -n "$tail_1ms" ] &&
				result "$m_tr" "$m_test" "$m_size" "$m_loss" lat_over_1ms "$tail_1ms" ok \
					"iterations above 1 ms (half a round trip), max $tail_max us"
		else
			[ -n "$why" ] || why="no result line in the output: $(errtext "$out")"
			result "$m_tr" "$m_test" "$m_size" "$m_loss" lat_typical_us "" $fstatus "$why"
		fi
		;;
	tcp)
		# iperf3 -J: the receiver's goodput and the sender's retransmits.
		set -- $(awk -F: '/"sum_sent"/ { s = 1 } /"sum_received"/ { r = 1; s = 0 }
			s && /"retransmits"/ { gsub(/[ \t,]/, "", $2); re = $2 }
			r && /"bits_per_second"/ { gsub(/[ \t,]/, "", $2); bps = $2; r = 0 }
			END { if (bps != "") print bps, re }' "$out")
		if [ $rc -eq 0 ] && [ $# -ge 1 ]; then
			mbps=$(awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e6 }')
			result "$m_tr" "$m_test" "$m_size" "$m_loss" bw_mbps "$mbps" ok ""
			[ $# -ge 2 ] && result "$m_tr" "$m_test" "$m_size" "$m_loss" retransmits "$2" ok ""
		else
			[ -n "$why" ] || why="no result in the output: $(errtext "$out")"
			result "$m_tr" "$m_test" "$m_size" "$m_loss" bw_mbps "" fail "$why"
		fi
		;;
	esac
	result "$m_tr" "$m_test" "$m_size" "$m_loss" wall_s "$m_secs" ok ""
	[ -n "$w_cpus" ] && [ $rc -eq 0 ] &&
		result "$m_tr" "$m_test" "$m_size" "$m_loss" cpu_busy "$w_cpus" ok \
			"CPUs busy from $w_delay s into the run for $w_len s"
	# shellcheck disable=SC2086
	[ "$BENCH_SCALING" = 1 ] && [ -n "$w_each" ] && [ $rc -eq 0 ] && set -- $w_each &&
		while [ $# -ge 2 ]; do
			result "$m_tr" "$m_test" "$m_size" "$m_loss" "cpu_busy_$1" "$2" ok ""
			shift 2
		done
	prof_show "$m_tr" "$m_test" "$m_size" "$m_loss"
	# The client's device counters that moved during the run.
	counters_delta /tmp/ctr.before /tmp/ctr.after | while read -r c_name c_delta; do
		result "$m_tr" "$m_test" "$m_size" "$m_loss" "ctr_$c_name" "$c_delta" ok ""
	done
	return 0
}

wait_active() {
	i=0
	until rdma link show "$1/1" 2>/dev/null | grep -q 'state ACTIVE'; do
		i=$((i + 1))
		[ $i -gt 50 ] && return 1
		sleep 0.2
	done
}

devname() {
	case "$1" in
	rxe) echo rxe0 ;;
	metaroce) echo mr0 ;;
	esac
}

# setup_dev TRANSPORT: create its RDMA device on eth0, or print why not and
# return 1. rxe (UDP port 4791) and MetaRoCE (4794) coexist on the NIC.
setup_dev() {
	dev=$(devname "$1")
	# The uverbs character devices: not a dependency of the metaroce module.
	modprobe ib_uverbs >/dev/null 2>&1
	case "$1" in
	rxe)
		modprobe rdma_rxe >/tmp/setup.err 2>&1 ||
			{ echo "modprobe rdma_rxe: $(cat /tmp/setup.err)"; return 1; }
		;;
	metaroce)
		# shellcheck disable=SC2086
		modprobe metaroce $BENCH_MR_PARAMS >/tmp/setup.err 2>&1 ||
			{ echo "modprobe metaroce $BENCH_MR_PARAMS: $(cat /tmp/setup.err) $BENCH_MR_NOTE"; return 1; }
		;;
	esac
	rdma link add "$dev" type "$1" netdev eth0 >/tmp/setup.err 2>&1 ||
		{ echo "rdma link add $dev: $(cat /tmp/setup.err)"; return 1; }
	if [ "$1" = metaroce ]; then
		mr_dev_attrs "$dev" "$BENCH_MR_ATTRS" || return 1
	fi
	wait_active "$dev" || { echo "$dev/1 not ACTIVE"; return 1; }
	mr_gid_index "$dev" "$MR_MY_IP" >/dev/null || { echo "no RoCE v2 GID for $MR_MY_IP on $dev"; return 1; }
	return 0
}

# prepare TRANSPORT: its device on both VMs. Sets use_<tr> ("yes" or why
# not), made_<tr> (this VM created the device), gid_<tr> (the local GID
# index) and dn_<tr> (what libibverbs cannot see, for the n/a reasons).
prepare() {
	tr=$1
	dev=$(devname "$tr")
	why=$(setup_dev "$tr")
	st=$?
	eval "made_$tr=$st"
	if [ $st -eq 0 ]; then
		gid=$(mr_gid_index "$dev" "$MR_MY_IP")
		mine="ok $gid"
	else
		mine="fail $why"
	fi
	peer=$(xchg "setup-$tr" "$mine") || mr_fail "peer lost at $tr setup"
	dn=""
	if [ $st -eq 0 ]; then
		eval "gid_$tr=$gid"
		note "$tr" "$MR_ROLE: device $dev, RoCE v2 IPv4 GID index $gid"
		uv=""
		for f in /sys/class/infiniband_verbs/uverbs*/ibdev; do
			[ "$(cat "$f" 2>/dev/null)" = "$dev" ] && uv=$(basename "$(dirname "$f")")
		done
		if [ -z "$uv" ]; then
			note "$tr" "$MR_ROLE: $dev has no uverbs device (/sys/class/infiniband_verbs): libibverbs cannot see it"
			dn="$dev has no uverbs device; "
		elif ! ibv_devices 2>/dev/null | grep -qw "$dev"; then
			note "$tr" "$MR_ROLE: $dev has $uv but ibv_devices does not list it (no provider matched it)"
			dn="$dev ($uv) not matched by a provider; "
		fi
	fi
	eval "dn_$tr=\$dn"
	case "$mine $peer" in
	ok*" ok"*)
		eval "use_$tr=yes"
		;;
	*)
		reason=""
		[ $st -ne 0 ] && reason="$MR_ROLE: $why"
		case "$peer" in fail*) reason="$reason${reason:+; }peer: ${peer#fail }" ;; esac
		note "$tr" "setup failed: $reason"
		eval "use_$tr=\$reason"
		;;
	esac
	return 0
}

# rdma_point TRANSPORT bw|lat TEST SIZE LOSS: one perftest measurement, or
# its n/a line when the transport could not be set up.
rdma_point() {
	p_tr=$1 p_kind=$2 p_test=$3 p_size=$4 p_loss=$5
	eval "p_use=\$use_$p_tr"
	eval "gid=\$gid_$p_tr"
	eval "dev_note=\$dn_$p_tr"
	dev=$(devname "$p_tr")
	if [ "$p_use" != yes ]; then
		m=bw_mbps
		[ "$p_kind" = lat ] && m=lat_typical_us
		result "$p_tr" "${p_test}_$p_kind" "$p_size" "$p_loss" $m "" n/a "setup failed: $p_use"
		return 0
	fi
	# The scaling run's <op>_q<QPs>_<CPUs>cpu: those QPs on those vCPUs.
	p_op=$p_test
	p_qps=""
	case "$p_test" in
	*_q[0-9]*_[0-9]*cpu | *_q[0-9]*_[0-9]*cpu_[0-9]*rxq)
		p_op=${p_test%%_q*}
		p_qps=${p_test#"$p_op"_q}
		p_cpus=${p_qps#*_}
		p_qps=${p_qps%%_*}
		p_rxq=""
		case "$p_cpus" in *_*rxq) p_rxq=${p_cpus#*_}; p_rxq=${p_rxq%rxq} ;; esac
		p_cpus=${p_cpus%%cpu*}
		if ! why=$(scaling_cpus "$p_cpus" "${p_rxq:-$p_cpus}"); then
			result "$p_tr" "${p_test}_bw" "$p_size" "$p_loss" bw_mbps "" fail "$why"
			return 0
		fi
		;;
	esac
	if [ "$p_kind" = bw ]; then
		measure "$p_tr" "${p_test}_bw" "$p_size" "$p_loss" bw $perftest_port \
			$((BENCH_SECONDS + BENCH_SLACK)) \
			"ib_${p_op}_bw" -d "$dev" -x "$gid" -F -s "$p_size" -D "$BENCH_SECONDS" \
			${p_qps:+-q "$p_qps"}
	else
		measure "$p_tr" "${p_test}_lat" "$p_size" "$p_loss" lat $perftest_port \
			"$BENCH_LAT_TIMEOUT" \
			"ib_${p_test}_lat" -d "$dev" -x "$gid" -F -s "$p_size" -n "$BENCH_LAT_ITERS" -U
	fi
}

# scaling_cpus N Q: exactly the first N CPUs of this VM online (CPU 0
# cannot go offline) and Q NIC queue pairs in use; prints why not. Each VM
# sets its own before the run's rendezvous. An offline vCPU's host thread
# sleeps under TCG, so one vCPU and one queue is the one-vCPU VM of the
# main run, on this link.
scaling_cpus() {
	for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ -f "$f" ] || continue
		c=${f%/online}
		c=${c##*/cpu}
		want=0
		[ "$c" -lt "$1" ] && want=1
		[ "$(cat "$f")" = $want ] && continue
		echo $want >"$f" 2>/tmp/cpu.err ||
			{ echo "cpu$c online=$want: $(cat /tmp/cpu.err)"; return 1; }
	done
	[ "$(nproc)" -eq "$1" ] || { echo "$(nproc) CPUs online, not $1"; return 1; }
	mr_nic_queues eth0 "$2"
}

# crc_drivers: which code computes the two transports' CRCs (BENCH_CRC).
# "cpu": the drivers a real host loads for its CPU, crc32c_intel (SSE4.2
# crc32) for MetaRoCE's CRC32C and crc32_pclmul (PCLMULQDQ) for rxe's
# CRC32. "table": neither, both on the kernel's table-driven code
# (crc32c_generic, crc32_generic). Under TCG QEMU emulates those
# instructions in helper functions, so there "cpu" is not the faster;
# "table" shows what that costs. Before any device exists: the CRC's
# driver is chosen when its first user allocates it.
crc_cpu_drivers="crc32c_intel crc32_pclmul"
crc_drivers() {
	case "$BENCH_CRC" in
	cpu)
		for m in $crc_cpu_drivers; do
			modprobe "$m" >/dev/null 2>&1
		done
		;;
	table)
		# "install": a blacklist would not stop libcrc32c's softdep
		mkdir -p /etc/modprobe.d
		# shellcheck disable=SC2086
		printf 'install %s true\n' $crc_cpu_drivers \
			>/etc/modprobe.d/bench-crc.conf
		# shellcheck disable=SC2086
		rmmod $crc_cpu_drivers >/dev/null 2>&1
		;;
	esac
}

env_line kernel "$(uname -r)"
env_line kernel_build "$(uname -v)"
env_line cpu "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
env_line vcpus "$(nproc)"
env_line mem_kib "$(awk '/^MemTotal/ { print $2 }' /proc/meminfo)"
env_line perftest "$(ib_write_bw --version 2>&1 | sed -n 's/^Version: //p' | head -1)"
env_line iperf3 "$(iperf3 --version 2>&1 | head -1)"
env_line mtu "$(cat /sys/class/net/eth0/mtu)"
env_line nic_queues "$(find /sys/class/net/eth0/queues -maxdepth 1 -name "rx-*" 2>/dev/null | wc -l)"

mr_wait_peer
bench_start=$(date +%s)
rdma=""
tcp=no
for tr in $BENCH_TRANSPORTS; do
	case "$tr" in
	tcp) tcp=yes ;;
	rxe | metaroce) rdma="$rdma $tr" ;;
	*) say "unknown transport $tr, skipped" ;;
	esac
done
crc_drivers
for tr in $rdma; do
	prepare "$tr"
done
# The CRC modules loaded once both devices exist: with two drivers of one
# CRC loaded, the kernel uses the CPU's (the higher priority).
env_line crc_modules "$(lsmod | awk '$1 ~ /^crc32/ { printf "%s ", $1 }')"

# Side by side: at each loss level, TCP, then every test point on each RDMA
# transport in turn, so that a comparison is between runs minutes apart at
# most, whatever else the host is doing.
# One command for both sides, as for perftest: the server runs it as is,
# the client with the server's address appended.
# shellcheck disable=SC2016
iperf='if [ $# -eq 0 ]; then exec iperf3 -s -1; else exec iperf3 -J -t '"$BENCH_SECONDS"' -c "$1"; fi'
for loss in $BENCH_LOSS; do
	t0=$(date +%s)
	say "loss $loss%"
	if [ $tcp = yes ]; then
		measure tcp iperf3 stream "$loss" tcp $iperf_port \
			$((BENCH_SECONDS + BENCH_SLACK)) sh -c "$iperf" iperf3
	fi
	for test in $BENCH_BW_TESTS; do
		for size in $BENCH_SIZES; do
			for tr in $rdma; do
				rdma_point "$tr" bw "$test" "$size" "$loss"
			done
		done
	done
	for test in $BENCH_LAT_TESTS; do
		for tr in $rdma; do
			rdma_point "$tr" lat "$test" "$BENCH_LAT_SIZE" "$loss"
		done
	done
	say "loss $loss% done in $(($(date +%s) - t0))s"
done

for tr in $rdma; do
	eval "made=\$made_$tr"
	if [ "$made" = 0 ]; then
		dev=$(devname "$tr")
		timeout 60 rdma link delete "$dev" >/dev/null 2>&1
	fi
done
xchg bench-end end >/dev/null || mr_fail "peer lost at the end"
[ "$MR_ROLE" = client ] && echo "BENCH-TIME,total,$(($(date +%s) - bench_start))"
echo "BENCH-END,$MR_ROLE"
true
