# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Helpers of the hostile-peer scenario (tests/e2e/metaroce-hostile.sh), guest
# side: /mr/e2e/hostile.sh, sourced after /mr/lib.sh, /mr/e2e/verbs.sh and
# /mr/e2e/faults.sh. Busybox ash; every name here starts with hs_.
#
#   hs_fail TAG MSG        record a failed criterion (the scenario goes on, so
#                          that both VMs reach the same barriers, and fails at
#                          the end with every failure listed)
#   hs_settle              drop the page cache and reclaimable slab, shrink
#                          every slab cache: what stays is what is really held
#   hs_mem                 "Slab SUnreclaim MemAvailable (kB) skb-objects", the
#                          skb objects summed over the skbuff_* slab caches;
#                          on a KASAN kernel those caches are shrunk first:
#                          KASAN keeps freed objects in its quarantine, where
#                          they count as in use until the cache is shrunk
#                          (mm/kasan/quarantine.c), so a debug guest's count
#                          would otherwise grow with every packet ever freed
#   hs_sampler_start FILE  hs_mem every second, with a timestamp, into FILE;
#                          not on a KASAN kernel, where each shrink scans the
#                          whole quarantine with interrupts off (0.45 s per
#                          count on average, up to seconds, measured in the
#                          e2e-debug tier): sampling would freeze the guest
#                          the responsiveness check then measures
#   hs_sampler_stop
#   hs_classes_at EPOCH FILE...   the attack classes the tools' outputs say
#                          were running at EPOCH (their HOSTILE-CLASS lines)
#   hs_show FILE           a tool's output, indented
#   hs_tx_burst FILE       the largest step of mr0's tx_packets between two
#                          samples of hs_cpu_start's FILE
#   hs_egress_drops        packets eth0's root qdisc dropped so far: what this
#                          VM's senders offered beyond what its NIC took,
#                          lost before the wire (tx_packets counts them)

hs_failures=""
hs_sampler=""

hs_fail() {
	echo "[$MR_ROLE] FAIL: $1: $2"
	case " $hs_failures " in
	*" $1 "*) ;;
	*) hs_failures="$hs_failures $1" ;;
	esac
}

hs_settle() {
	sync
	echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
	for hs_f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$hs_f" 2>/dev/null || true
	done
}

# KASAN's quarantine is there when its symbols are (the debug kernel).
hs_kasan=no
grep -q ' kasan_quarantine_reduce$' /proc/kallsyms 2>/dev/null && hs_kasan=yes

hs_mem() {
	if [ "$hs_kasan" = yes ]; then
		for hs_f in /sys/kernel/slab/skbuff_*/shrink; do
			echo 1 >"$hs_f" 2>/dev/null || true
		done
	fi
	hs_m=$(awk '/^Slab:/ { s = $2 } /^SUnreclaim:/ { u = $2 } /^MemAvailable:/ { a = $2 }
		END { printf "%d %d %d", s, u, a }' /proc/meminfo)
	hs_s=$(awk '$1 ~ /^skbuff_/ { n += $2 } END { printf "%d", n }' /proc/slabinfo 2>/dev/null)
	echo "$hs_m ${hs_s:-0}"
}

hs_sampler_start() {
	: >"$1"
	[ "$hs_kasan" = no ] || return 0
	(
		while :; do
			echo "$(date +%s) $(hs_mem)" >>"$1"
			sleep 1
		done
	) &
	hs_sampler=$!
}

hs_sampler_stop() {
	hs_reap "$hs_sampler"
	hs_sampler=""
}

# hs_cpu_start FILE / hs_cpu_stop: every 0.5 s the uptime, the time spent
# in irq and softirq and the CPU time accounted in all (/proc/stat's cpu
# line, USER_HZ ticks, per CPU) into FILE, by shell builtins only (no
# process per sample). hs_cpu_gaps FILE: the longest gap between two
# samples, the irq + softirq time within it, and the longest time the
# guest did not account at all. For the responsiveness verdict: a stall
# that softirq time fills is the kernel's own work (softirqs that do not
# yield to the sampler); time the guest accounted to nothing, not even
# idle, is time its host did not run it (a busy CPU's tick charges one
# tick however late it comes). hs_cpu_pause FILE: the longest such host
# pause, in ms (0 when none; an idle guest accounts a pause as idle time).
# Both read hs_cpu_scan's one pass over FILE.
hs_cpu_start() {
	: >"$1"
	hs_ncpu=$(grep -c '^cpu[0-9]' /proc/stat)
	hs_txf=/sys/class/infiniband/mr0/ports/1/hw_counters/tx_packets
	(
		while :; do
			read -r hs_u _ </proc/uptime
			read -r _ hs_us hs_ni hs_sy hs_id hs_io hs_irq hs_sirq hs_st _ </proc/stat
			read -r hs_stx <"$hs_txf" 2>/dev/null || hs_stx=0
			echo "$hs_u $hs_irq $hs_sirq $(((hs_us + hs_ni + hs_sy + hs_id + hs_io + hs_irq + hs_sirq + hs_st) / hs_ncpu)) $hs_stx" >>"$1"
			sleep 0.5
		done
	) &
	hs_cpu=$!
}

hs_cpu_stop() {
	hs_reap "$hs_cpu"
	hs_cpu=""
}

# hs_cpu_scan FILE: "samples longest-gap its-start irq+softirq-in-it
# longest-host-pause its-start", seconds.
hs_cpu_scan() {
	awk '
		NF >= 4 {
			if (n++) {
				if ($1 - u > g) { g = $1 - u; k = ($2 + $3 - t) / 100; at = u }
				p = ($1 - u) - ($4 - a) / 100
				if (p > m) { m = p; pat = u }
			}
			u = $1; t = $2 + $3; a = $4
		}
		END { printf "%d %.1f %.1f %.2f %.3f %.1f\n", n, g, at, k, m, pat }' "$1"
}

# hs_tx_burst FILE: "N packets from uptime T s in D s", the most MetaRoCE
# packets this VM sent (mr0 tx_packets) between two samples of FILE.
hs_tx_burst() {
	awk '
		NF >= 5 {
			if (n++ && $5 - x > b) { b = $5 - x; at = u; d = $1 - u }
			u = $1; x = $5
		}
		END { printf "%d packets from uptime %.1f s in %.1f s\n", b, at, d }' "$1"
}

hs_cpu_gaps() {
	# shellcheck disable=SC2046
	set -- $(hs_cpu_scan "$1")
	if [ "$1" -lt 2 ]; then
		echo "fewer than two samples"
		return 0
	fi
	echo "$1 samples; the longest gap $2 s (from uptime $3), irq and softirq time in it $4 s; the longest host pause (time accounted to nothing) $5 s (from uptime $6)"
}

hs_cpu_pause() {
	# shellcheck disable=SC2046
	set -- $(hs_cpu_scan "$1")
	awk -v p="$5" 'BEGIN { printf "%d\n", p * 1000 }'
}

# hs_readout_pause FILE: the longest "clocksource: Long readout interval"
# the kernel logged while hs_cpu_start sampled into FILE (from its first
# sample to 5 s after its last), in ms. The clocksource watchdog reads
# its two clocks back to back with interrupts off; under QEMU each read
# of the emulated HPET or ACPI PM timer takes QEMU's global lock. A
# readout of seconds is the vCPU held outside the guest that long, by
# QEMU's main loop (which also carries the NIC) or its host, while the
# guest's CPU time runs on: hs_cpu_pause cannot see it.
hs_readout_pause() {
	dmesg | awk -v f="$1" '
		BEGIN {
			while ((getline l < f) > 0) {
				split(l, w, " ")
				if (s == "") s = w[1]
				e = w[1]
			}
		}
		/Long readout interval/ && s != "" {
			t = $0
			sub(/^\[ */, "", t)
			t += 0
			if (t >= s + 0 && t <= e + 5 && match($0, /cs_nsec: [0-9]+/)) {
				n = substr($0, RSTART + 9, RLENGTH - 9) / 1e6
				if (n > m) m = n
			}
		}
		END { printf "%d\n", m }'
}

# hs_reap PID: stop a background sampler and wait for it.
hs_reap() {
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null || true
}

hs_classes_at() {
	hs_t=$1
	shift
	for hs_f in "$@"; do
		[ -f "$hs_f" ] || continue
		awk -v t="$hs_t" -v f="$hs_f" '
			$1 == "HOSTILE-CLASS" && $2 + 0 <= t + 0 { last = $3 " " $4 }
			END { if (last != "") print "    " f ": " last }' "$hs_f"
	done
}

hs_show() {
	[ -f "$1" ] && grep -v '^libibverbs: Warning' "$1" | grep -v '^HOSTILE-CLASS' | sed 's/^/  | /'
	return 0
}

hs_egress_drops() {
	tc -s qdisc show dev eth0 | awk '
		/^ *Sent .*dropped/ {
			sub(/^.*dropped /, "")
			sub(/[^0-9].*$/, "")
			n = $0
			exit
		}
		END { print n + 0 }'
}
