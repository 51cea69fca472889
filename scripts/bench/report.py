#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench, the host side: turn one run's console logs into results.

    report.py RUN_DIR [--quiet]

RUN_DIR is $RESULTS/bench/<date> as scripts/bench/bench.sh leaves it:
meta.env (the run's parameters, environment and timings), run.log (what
tests/vm/run.sh said) and vm/{client,server}.console.log. The guest prints

    BENCH,<transport>,<test>,<size>,<loss %>,<metric>,<value>,<status>,<note>
    BENCH-ENV,<role>,<key>,<value>    BENCH-NOTE,<transport>,<text>
    BENCH-TIME,<transport|total>,<seconds>
    BENCH-PEER,<transport>,<test>,<size>,<loss %>,<counter>,<delta> (server)
    BENCH-TRACE,<role>,<transport>,<test>,<what>,<value> (BENCH_FTRACE=1)
    BENCH-PROF,<role>,<transport>,<test>,<size>,<loss %>,<kind>,<percent>,
               <symbol> (BENCH_PERF=1; kind self, total or samples)

Writes in RUN_DIR:
    bench.csv   every result line (bw_mbps, lat_*_us, retransmits, wall_s,
                ctr_<counter>: the client device's counters that moved during
                the run, peer_ctr_<counter>: the server's; cpu_busy and
                peer_cpu_busy: each VM's CPUs busy in the run's window),
                plus a "missing" row for each measurement of the matrix the
                run never reached;
    bench.md    environment, bandwidth and latency tables with the ratios
                MetaRoCE/rxe and MetaRoCE/TCP, the issue's targets, the
                device counters of each run (both VMs), the CPU cost per
                GiB, the ftrace summaries (BENCH_FTRACE=1), the profiles
                (BENCH_PERF=1), and why
                any value is n/a;
    bench.rst   the same tables for Documentation/metaroce/benchmarks.rst;
    bench.png   bandwidth against loss per transport and size, and latency.

Exit status 0 when at least one measurement succeeded, 3 when none did (the
harness broke), 2 on bad usage.
"""

import csv
import os
import re
import sys

RDMA = ("rxe", "metaroce")
NAMES = {"tcp": "TCP (iperf3)", "rxe": "rxe", "metaroce": "MetaRoCE"}
FIELDS = ["transport", "test", "size", "loss_pct", "metric", "value",
          "status", "note"]


def read_meta(path):
    meta = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                if "=" in line:
                    k, v = line.split("=", 1)
                    meta[k] = v
    except OSError:
        pass
    return meta


def read_console(path):
    try:
        with open(path, "rb") as f:
            data = f.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    return [ln.replace("\r", "") for ln in data.split("\n")]


def parse(client_lines, server_lines):
    """Result rows, notes, guest environment, timings, malformed count."""
    rows, notes, env, times, traces, profs = [], [], {}, {}, [], {}
    malformed = 0
    ended = False
    for role, lines in (("client", client_lines), ("server", server_lines)):
        for ln in lines:
            # A kernel message can land in front of a line on the serial
            # console: look for the tag anywhere in the line.
            m = re.search(
                r"BENCH(-ENV|-NOTE|-TIME|-END|-PEER|-TRACE|-PROF)?,(.*)$", ln)
            if not m:
                m2 = re.search(r"MR-BEGIN role=(\S+) kernel=(\S+)", ln)
                if m2:
                    env.setdefault(m2.group(1), {})["kernel"] = m2.group(2)
                continue
            kind, rest = m.group(1), m.group(2)
            if kind == "-ENV":
                p = rest.split(",", 2)
                if len(p) == 3:
                    env.setdefault(p[0], {})[p[1]] = p[2]
                continue
            if kind == "-END":
                ended = ended or role == "client"
                continue
            if kind == "-PEER":
                # The server's device counters that moved during a run, and
                # its CPUs busy (cpu_busy).
                p = rest.split(",")
                if role == "server" and len(p) == 6:
                    pre = "peer_" if p[4].startswith("cpu_") else "peer_ctr_"
                    rows.append(dict(zip(FIELDS, p[:4] + [
                        pre + p[4], p[5], "ok", ""])))
                continue
            if kind == "-PROF":
                p = rest.split(",", 7)
                if len(p) == 8 and p[0] in ("client", "server"):
                    profs.setdefault(tuple(p[1:5]), {}).setdefault(
                        p[0], {}).setdefault(p[5], []).append((p[6], p[7]))
                continue
            if kind == "-TRACE":
                traces.append(rest)
                continue
            if role != "client":
                continue
            if kind == "-NOTE":
                p = rest.split(",", 1)
                if len(p) == 2 and p not in notes:
                    notes.append(p)
                continue
            if kind == "-TIME":
                p = rest.split(",")
                if len(p) == 2 and p[1].isdigit():
                    times[p[0]] = int(p[1])
                continue
            p = rest.split(",")
            if len(p) != 8 or p[6] not in ("ok", "fail", "n/a"):
                malformed += 1
                continue
            rows.append(dict(zip(FIELDS, p)))
    return rows, notes, env, times, malformed, ended, traces, profs


def words(meta, key):
    return meta.get(key, "").split()


def expected(meta):
    """(transport, test, size, loss, metric) of the run's whole matrix."""
    out = []
    for tr in words(meta, "BENCH_TRANSPORTS"):
        for loss in words(meta, "BENCH_LOSS"):
            if tr == "tcp":
                out.append((tr, "iperf3", "stream", loss, "bw_mbps"))
        if tr not in RDMA:
            continue
        for t in words(meta, "BENCH_BW_TESTS"):
            for s in words(meta, "BENCH_SIZES"):
                for loss in words(meta, "BENCH_LOSS"):
                    out.append((tr, t + "_bw", s, loss, "bw_mbps"))
        for t in words(meta, "BENCH_LAT_TESTS"):
            for loss in words(meta, "BENCH_LOSS"):
                out.append((tr, t + "_lat", meta.get("BENCH_LAT_SIZE", "8"),
                            loss, "lat_typical_us"))
    return out


def fmt_size(s):
    try:
        n = int(s)
    except ValueError:
        return s
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return "%d MiB" % (n >> 20)
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return "%d KiB" % (n >> 10)
    return "%d B" % n


def fnum(v):
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    return "%.2f" % v


class Results:
    def __init__(self, rows, meta):
        self.meta = meta
        self.by = {}
        for r in rows:
            key = (r["transport"], r["test"], r["size"], r["loss_pct"],
                   r["metric"])
            self.by[key] = r
        self.missing = []
        for key in expected(meta):
            if key not in self.by:
                r = dict(zip(FIELDS, list(key) + ["", "missing",
                         "no result: the run ended before this measurement"]))
                self.by[key] = r
                self.missing.append(r)
        self.reasons = []      # footnotes, in order of first use

    def value(self, tr, test, size, loss, metric):
        """The value as a float, or None when there is none."""
        r = self.by.get((tr, test, size, loss, metric))
        if not r or r["status"] != "ok" or r["value"] == "":
            return None
        try:
            return float(r["value"])
        except ValueError:
            return None

    def tcp(self, loss):
        return self.value("tcp", "iperf3", "stream", loss, "bw_mbps")

    def note_ref(self, r):
        reason = "%s: %s" % (NAMES.get(r["transport"], r["transport"]),
                             r["note"] or r["status"])
        if reason not in self.reasons:
            self.reasons.append(reason)
        return self.reasons.index(reason) + 1

    def cell(self, tr, test, size, loss, metric, rst=False):
        v = self.value(tr, test, size, loss, metric)
        if v is not None:
            return fnum(v)
        r = self.by.get((tr, test, size, loss, metric))
        if r is None:
            return "—"
        n = self.note_ref(r)
        return "n/a [%d]_" % n if rst else "n/a [%d]" % n


def ratio(a, b):
    if a is None or b is None:
        return "n/a"
    if b == 0:
        return "n/a" if a == 0 else "∞ (÷0)"
    return "%.2f×" % (a / b)


def percent(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    return "%.0f%%" % (100.0 * a / b)


def env_rows(meta, env, times):
    g = env.get("client", {})
    m = re.search(r"Debian \S+", g.get("kernel_build", ""))
    kbuild = m.group(0) if m else g.get("kernel_build", "?")
    rows = [
        ("Date", meta.get("date_utc", "?")),
        ("Mode", "%s (%s s per bandwidth run, %s latency iterations%s)" % (
            meta.get("mode", "?"), meta.get("BENCH_SECONDS", "?"),
            meta.get("BENCH_LAT_ITERS", "?"),
            "".join(", metaroce " + meta[k]
                    for k in ("BENCH_MR_PARAMS", "BENCH_MR_ATTRS")
                    if meta.get(k)))),
        ("Commit", meta.get("commit", "?") + (
            " (measured sources with uncommitted changes: %s)" %
            ", ".join(meta["dirty"].split()) if meta.get("dirty", "").strip()
            else "")),
        ("Host", "%s, %s cores; load average %s at start, %s at end" % (
            meta.get("host_cpu", "?"), meta.get("host_cores", "?"),
            meta.get("host_load_start", "?").split(" ")[0],
            meta.get("host_load_end", "?").split(" ")[0])),
        ("QEMU", "%s, %s" % (meta.get("qemu", "?").replace(
            "QEMU emulator version ", ""), meta.get("accel", "?"))),
        ("Guests", "2 × %s vCPU, %s MiB, virtio-net (no event index) over -netdev dgram, "
                   "MTU %s" % (g.get("vcpus", "?"),
                               int(g["mem_kib"]) // 1024
                               if g.get("mem_kib", "").isdigit() else "?",
                               g.get("mtu", "?"))),
        ("Guest kernel", "%s (%s)" % (g.get("kernel", "?"), kbuild)),
        ("CRC modules", "%s (BENCH_CRC=%s)" % (
            g.get("crc_modules", "").strip() or "?",
            meta.get("BENCH_CRC", "?"))),
        ("Tools", "perftest %s, %s" % (g.get("perftest", "?"),
                                       g.get("iperf3", "?"))),
        ("MetaRoCE build", "module %s, provider %s" % (
            meta.get("module_build", "?"), meta.get("provider_build", "?"))),
        ("Wall time", "build %ss, VMs %ss (measuring: %s), total %ss" % (
            meta.get("t_build_s", "?"), meta.get("t_vm_s", "?"),
            ", ".join("%s %ss" % (NAMES.get(k, k), times[k])
                      for k in ("tcp", "rxe", "metaroce") if k in times)
            or "-", meta.get("t_total_s", "?"))),
    ]
    return rows


def bw_table(res, rst):
    meta = res.meta
    head = ["Test", "Size", "Loss", "TCP", "rxe", "MetaRoCE",
            "MetaRoCE/rxe", "MetaRoCE/TCP", "MetaRoCE vs own 0%"]
    body = []
    trs = words(meta, "BENCH_TRANSPORTS")
    losses = words(meta, "BENCH_LOSS")
    for t in words(meta, "BENCH_BW_TESTS"):
        test = t + "_bw"
        for s in words(meta, "BENCH_SIZES"):
            for loss in losses:
                tcp = res.tcp(loss)
                rxe = res.value("rxe", test, s, loss, "bw_mbps")
                mr = res.value("metaroce", test, s, loss, "bw_mbps")
                mr0 = res.value("metaroce", test, s, losses[0], "bw_mbps") \
                    if losses and float(losses[0]) == 0 else None
                body.append([
                    "ib_%s" % test, fmt_size(s), loss + "%",
                    res.cell("tcp", "iperf3", "stream", loss, "bw_mbps", rst)
                    if "tcp" in trs else "—",
                    res.cell("rxe", test, s, loss, "bw_mbps", rst)
                    if "rxe" in trs else "—",
                    res.cell("metaroce", test, s, loss, "bw_mbps", rst)
                    if "metaroce" in trs else "—",
                    ratio(mr, rxe), ratio(mr, tcp), percent(mr, mr0),
                ])
    return head, body


def lat_table(res, rst):
    meta = res.meta
    head = ["Test", "Loss", "rxe typical", "rxe p99", "MetaRoCE typical",
            "MetaRoCE p99", "MetaRoCE/rxe (typical)"]
    body = []
    s = meta.get("BENCH_LAT_SIZE", "8")
    trs = words(meta, "BENCH_TRANSPORTS")
    for t in words(meta, "BENCH_LAT_TESTS"):
        test = t + "_lat"
        for loss in words(meta, "BENCH_LOSS"):
            rxe = res.value("rxe", test, s, loss, "lat_typical_us")
            mr = res.value("metaroce", test, s, loss, "lat_typical_us")

            def p99(tr):
                v = res.value(tr, test, s, loss, "lat_p99_us")
                return fnum(v) if v is not None else "n/a"
            body.append([
                "ib_%s %s" % (test, fmt_size(s)), loss + "%",
                res.cell("rxe", test, s, loss, "lat_typical_us", rst)
                if "rxe" in trs else "—", p99("rxe"),
                res.cell("metaroce", test, s, loss, "lat_typical_us", rst)
                if "metaroce" in trs else "—", p99("metaroce"),
                ratio(mr, rxe),
            ])
    return head, body


GIB = float(1 << 30)


def cpus_busy(res, tr, test, size, loss):
    """(client, server) CPUs busy in the run's window, each None if
    absent."""
    return (res.value(tr, test, size, loss, "cpu_busy"),
            res.value(tr, test, size, loss, "peer_cpu_busy"))


def cpu_per_gib(res, tr, test, size, loss):
    """CPU seconds both VMs spend per GiB moved: their CPUs busy in the
    run's window over the run's rate (GiB/s); None without all three."""
    c, p = cpus_busy(res, tr, test, size, loss)
    bw = res.value(tr, test, size, loss, "bw_mbps")
    if c is None or p is None or not bw:
        return None
    return (c + p) / (bw * 1e6 / 8 / GIB)


def cpu_table(res):
    """Per bandwidth point: each VM's CPUs busy (client/server) and the CPU
    seconds per GiB of both; TCP at each loss first."""
    meta = res.meta
    trs = words(meta, "BENCH_TRANSPORTS")
    head = ["Test", "Size", "Loss"]
    for tr in ("tcp", "rxe", "metaroce"):
        if tr in trs:
            head += ["%s CPUs busy" % NAMES[tr].split(" ")[0],
                     "%s CPU s/GiB" % NAMES[tr].split(" ")[0]]
    head += ["MetaRoCE/rxe (CPU s/GiB)"]
    body = []

    def busy(tr, test, size, loss):
        return " / ".join("%.2f" % v if v is not None else "n/a"
                          for v in cpus_busy(res, tr, test, size, loss))

    def cell(v):
        return fnum(v) if v is not None else "n/a"
    points = []
    if "tcp" in trs:
        points += [("iperf3", "stream", loss, ("tcp",))
                   for loss in words(meta, "BENCH_LOSS")]
    for t in words(meta, "BENCH_BW_TESTS"):
        for sz in words(meta, "BENCH_SIZES"):
            for loss in words(meta, "BENCH_LOSS"):
                points.append((t + "_bw", sz, loss, ("rxe", "metaroce")))
    for test, sz, loss, which in points:
        row = ["ib_" + test if test != "iperf3" else "iperf3",
               fmt_size(sz), loss + "%"]
        per = {tr: cpu_per_gib(res, tr, test, sz, loss) for tr in which}
        for tr in ("tcp", "rxe", "metaroce"):
            if tr not in trs:
                continue
            if tr in which:
                row += [busy(tr, test, sz, loss), cell(per[tr])]
            else:
                row += ["", ""]
        row.append(ratio(per.get("metaroce"), per.get("rxe"))
                   if test != "iperf3" else "")
        if any(v is not None for v in per.values()):
            body.append(row)
    return head, body


SCALING = re.compile(r"^([a-z]+)_q([0-9]+)_([0-9]+)cpu(?:_([0-9]+)rxq)?$")


def scaling_base(op):
    """The test a scaling point of <op> is compared with: one QP on one
    vCPU with one NIC queue, the VM of the main run (also the scaling
    target's baseline)."""
    return "%s_q1_1cpu_1rxq" % op


def scaling_tests(meta):
    """The scaling run's tests (<op>_q<QPs>_<CPUs>cpu[_<N>rxq], guest.sh)
    as (test, op, qps, cpus, queues), in the run's order."""
    out = []
    for t in words(meta, "BENCH_BW_TESTS"):
        m = SCALING.match(t)
        if m:
            cpus = int(m.group(3))
            out.append((t, m.group(1), int(m.group(2)), cpus,
                        int(m.group(4)) if m.group(4) else cpus))
    return out


def scaling_table(res):
    """Per transport and scaling test: the rate, its ratio to the same
    operation's one QP on one vCPU, each VM's CPUs busy one by one, and
    how the link spread the receiving VM's packets over its NIC queues
    (the server receives a WRITE's data; the client its ACKs)."""
    meta = res.meta
    head = ["Transport", "Test", "Mbit/s", "vs 1 QP, 1 vCPU, 1 queue",
            "client CPUs busy", "server CPUs busy",
            "server rx queues (packets)", "client rx queues (packets)"]
    body = []
    s = (words(meta, "BENCH_SIZES") or ["65536"])[0]
    loss = (words(meta, "BENCH_LOSS") or ["0"])[0]

    def per_n(tr, test, prefix, suffix="", fmt=fnum):
        vals = []
        for n in range(64):
            v = res.value(tr, test, s, loss, "%s%d%s" % (prefix, n, suffix))
            if v is None:
                if n > 0:
                    break
                continue
            vals.append(fmt(v))
        return " / ".join(vals) if vals else "n/a"

    for tr in words(meta, "BENCH_TRANSPORTS"):
        if tr not in RDMA:
            continue
        for test, op, qps, cpus, queues in scaling_tests(meta):
            base = res.value(tr, scaling_base(op) + "_bw", s, loss, "bw_mbps")
            mine = res.value(tr, test + "_bw", s, loss, "bw_mbps")
            body.append([
                NAMES.get(tr, tr), "ib_%s_bw -q %d, %d vCPU, %d queue%s"
                % (op, qps, cpus, queues, "s" if queues > 1 else ""),
                res.cell(tr, test + "_bw", s, loss, "bw_mbps"),
                ratio(mine, base),
                per_n(tr, test + "_bw", "cpu_busy_"),
                per_n(tr, test + "_bw", "peer_cpu_busy_"),
                per_n(tr, test + "_bw", "peer_ctr_nic_rxq", "_packets",
                      lambda v: "%d" % v),
                per_n(tr, test + "_bw", "ctr_nic_rxq", "_packets",
                      lambda v: "%d" % v),
            ])
    return head, body


def targets(res):
    """The speed targets of benchmarks.rst, judged (reported, never
    enforced): each as (target, measured, verdict), the verdict n/a when
    the run lacks a figure it needs."""
    K4, K64, M1 = "4096", "65536", "1048576"
    losses = words(res.meta, "BENCH_LOSS")
    bws = words(res.meta, "BENCH_BW_TESTS")
    out = []

    def verdict(ok, have):
        if not have:
            return "n/a"
        return "met" if ok else "missed"

    def bw(tr, test, size, loss):
        return res.value(tr, test + "_bw", size, loss, "bw_mbps")

    def times_rxe(label, test, size, loss, factor):
        a, b = bw("metaroce", test, size, loss), bw("rxe", test, size, loss)
        have = a is not None and b is not None
        out.append((label, ratio(a, b), verdict(have and a >= factor * b,
                                                have)))

    def share_of(label, a, b, frac):
        have = a is not None and b is not None and b > 0
        out.append((label, percent(a, b), verdict(have and a >= frac * b,
                                                  have)))

    for t in ("write", "send"):
        if t not in bws:
            continue
        times_rxe("lossless 64 KiB ib_%s_bw ≥ 2× rxe" % t, t, K64, "0", 2)
        share_of("64 KiB ib_%s_bw ≥ 90%% of iperf3 TCP goodput (0%% loss)"
                 % t, bw("metaroce", t, K64, "0"), res.tcp("0"), 0.9)
        for size in (K4, M1):
            times_rxe("lossless %s ib_%s_bw ≥ 1.5× rxe" % (fmt_size(size), t),
                      t, size, "0", 1.5)
        times_rxe("1%% loss, 64 KiB ib_%s_bw ≥ 10× rxe" % t, t, K64, "1", 10)
        share_of("1%% loss, 64 KiB ib_%s_bw ≥ 80%% of own lossless" % t,
                 bw("metaroce", t, K64, "1"), bw("metaroce", t, K64, "0"), 0.8)
    if "read" in bws:
        a, b = bw("metaroce", "read", M1, "0"), bw("rxe", "read", M1, "0")
        have = a is not None and b is not None
        out.append(("lossless 1 MiB ib_read_bw keeps its lead over rxe (> 1×)",
                    ratio(a, b), verdict(have and a > b, have)))
    s = res.meta.get("BENCH_LAT_SIZE", "8")
    for t in words(res.meta, "BENCH_LAT_TESTS"):
        a = res.value("metaroce", t + "_lat", s, "0", "lat_typical_us")
        b = res.value("rxe", t + "_lat", s, "0", "lat_typical_us")
        have = a is not None and b is not None
        out.append(("%s ib_%s_lat typical ≤ rxe (0%% loss)" % (fmt_size(s), t),
                    ratio(a, b), verdict(have and a <= b, have)))
        # p99 at every loss level: the worst ratio stands for all.
        pairs = [(res.value("metaroce", t + "_lat", s, loss, "lat_p99_us"),
                  res.value("rxe", t + "_lat", s, loss, "lat_p99_us"))
                 for loss in losses]
        have = bool(pairs) and all(a is not None and b for a, b in pairs)
        worst = max(a / b for a, b in pairs) if have else None
        out.append(("%s ib_%s_lat p99 ≤ rxe at every loss level (worst)"
                    % (fmt_size(s), t), ratio(worst, 1.0),
                    verdict(have and worst <= 1, have)))
    if "write" in bws:
        a = cpu_per_gib(res, "metaroce", "write_bw", K64, "0")
        b = cpu_per_gib(res, "rxe", "write_bw", K64, "0")
        have = a is not None and b is not None
        out.append(("64 KiB ib_write_bw CPU per GiB, both VMs ≤ rxe (0% loss)",
                    ratio(a, b), verdict(have and a <= b, have)))
    # The scaling target needs two vCPUs per VM and a multiqueue link:
    # the scaling run (BENCH_SCALING=1, make bench-scaling) has them.
    if "write_q8_2cpu" in bws and scaling_base("write") in bws:
        a = bw("metaroce", "write_q8_2cpu", K64, "0")
        b = bw("metaroce", scaling_base("write"), K64, "0")
        have = a is not None and b is not None
        out.append(("-q 8 on 2 vCPUs ≥ 1.6× one QP on one vCPU",
                    ratio(a, b), verdict(have and a >= 1.6 * b, have)))
    else:
        out.append(("-q 8 on 2 vCPUs ≥ 1.6× one QP on one vCPU",
                    "not run (make bench-scaling)", "n/a"))
    # Every MetaRoCE measurement of the matrix has its figure.
    mine = [k for k in expected(res.meta) if k[0] == "metaroce"]
    bad = sum(1 for k in mine if res.value(*k) is None)
    out.append(("every MetaRoCE measurement completes",
                "%d of %d failed" % (bad, len(mine)) if mine else "n/a",
                verdict(bad == 0, bool(mine))))
    return out


def md_table(head, body):
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    for row in body:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines)


def rst_table(head, body):
    """A reStructuredText simple table; head None: no header row."""
    rows = ([head] if head is not None else []) + body
    rows = [[str(c) if str(c) else "-" for c in r] for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    rule = "  ".join("=" * w for w in widths)

    def line(r):
        return "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
    out = [rule]
    if head is not None:
        out += [line(rows[0]), rule]
        rows = rows[1:]
    out += [line(r) for r in rows] + [rule]
    return "\n".join(out)


def verdict_text(meta, ended):
    rc = meta.get("vm_rc", "?")
    if rc == "0":
        return "the VMs booted, ran the whole matrix and shut down cleanly"
    s = "tests/vm/run.sh exited %s" % rc
    if not ended:
        s += "; the run did not reach its end (missing rows are marked)"
    return s + " — see run.log"


def counters_table(res):
    """The device counters that moved in each RDMA run, client (ctr_*) and
    server (peer_ctr_*), byte counts left out."""
    runs = {}
    for (tr, test, size, loss, metric), r in res.by.items():
        if tr not in RDMA or r["status"] != "ok":
            continue
        for pre, side in (("ctr_", 0), ("peer_ctr_", 1)):
            if metric.startswith(pre):
                name = metric[len(pre):]
                if name.endswith("_bytes"):
                    continue
                runs.setdefault((tr, test, size, loss), ([], []))[side] \
                    .append("%s %s" % (name, r["value"]))
    order = {t: i for i, t in enumerate(
        [t + "_bw" for t in words(res.meta, "BENCH_BW_TESTS")] +
        [t + "_lat" for t in words(res.meta, "BENCH_LAT_TESTS")])}

    def key(k):
        tr, test, size, loss = k
        try:
            return (RDMA.index(tr), order.get(test, 99), int(size),
                    float(loss))
        except ValueError:
            return (RDMA.index(tr), order.get(test, 99), 0, 0.0)
    body = []
    for k in sorted(runs, key=key):
        tr, test, size, loss = k
        c, p = runs[k]
        body.append([NAMES[tr], "ib_" + test, fmt_size(size), loss + "%",
                     ", ".join(c) or "-", ", ".join(p) or "-"])
    return ["Transport", "Test", "Size", "Loss", "client (requester of "
            "write/send/read)", "server"], body


def prof_lines(profs):
    """The profiles (BENCH_PERF=1) as Markdown: per run and VM, the
    functions with the most samples, alone (self) and with what they call
    (total)."""
    out = []

    def key(k):
        tr, test, size, loss = k
        try:
            return (("tcp",) + RDMA).index(tr), test, int(size), float(loss)
        except ValueError:
            return 9, test, 0, 0.0
    for k in sorted(profs, key=key):
        tr, test, size, loss = k
        for role in ("client", "server"):
            p = profs[k].get(role)
            if not p:
                continue
            n = p.get("samples", [("?", "")])[0][0]
            out += ["### %s %s %s, %s%% loss: %s (%s samples)" % (
                NAMES.get(tr, tr), test if tr != "tcp" else "iperf3",
                fmt_size(size), loss, role, n), ""]
            selfs, tots = p.get("self", []), p.get("total", [])
            rows = []
            for i in range(max(len(selfs), len(tots))):
                a = selfs[i] if i < len(selfs) else ("", "")
                b = tots[i] if i < len(tots) else ("", "")
                rows.append([a[0], "`%s`" % a[1] if a[1] else "",
                             b[0], "`%s`" % b[1] if b[1] else ""])
            out += [md_table(["self", "function", "total", "function"],
                             rows), ""]
    return out


def write_md(path, res, env, notes, times, malformed, ended, run_log,
             traces=(), profs=None):
    meta = res.meta
    res.reasons = []
    out = ["# MetaRoCE benchmark, %s (%s run)" % (meta.get("date_utc", "?"),
                                                   meta.get("mode", "?")), ""]
    out += ["A benchmark reports; it does not pass or fail on speed. "
            "Absolute numbers under %s emulation are small and noisy: read "
            "the ratios, measured side by side on the same VMs and link." %
            meta.get("accel", "?"), ""]
    out += [md_table(["Environment", ""], env_rows(meta, env, times)), ""]
    out += ["Harness: " + verdict_text(meta, ended) + ".", ""]
    out += ["## Bandwidth (Mbit/s, higher is better)", "",
            "rxe and MetaRoCE: perftest `BW average` (MiB/s × 8.39) over "
            "`-D %s`; TCP: iperf3 receiver goodput over `-t %s` at the same "
            "loss (repeated on each row)." % (meta.get("BENCH_SECONDS", "?"),
                                             meta.get("BENCH_SECONDS", "?")),
            ""]
    out += [md_table(*bw_table(res, False)), ""]
    if words(meta, "BENCH_LAT_TESTS"):
        out += ["## Latency (µs, lower is better)", "",
                "perftest `-n %s`: typical (median) and 99th percentile." %
                meta.get("BENCH_LAT_ITERS", "?"), ""]
        out += [md_table(*lat_table(res, False)), ""]
    head, body = scaling_table(res)
    if body:
        out += ["## Scaling (BENCH_SCALING=1)", "",
                "Two vCPUs per VM and one NIC queue pair per vCPU over "
                "multiqueue taps; \"1 vCPU\" has the second vCPU of both "
                "VMs offline. CPUs busy: each CPU's share of the run's "
                "window (/proc/stat). Rx queues: each receive queue's "
                "packets over the run (ethtool -S).", ""]
        out += [md_table(head, body), ""]
    out += ["## Targets (benchmarks.rst, \"Targets\")", ""]
    out += [md_table(["Target", "Measured", "Verdict"], targets(res)), ""]
    head, body = counters_table(res)
    if body:
        out += ["## Device counters that moved in each run", "",
                "`rdma statistic show link` before and after each run, on "
                "both VMs (byte counts left out). For MetaRoCE: "
                "retransmissions, rto_fired, duplicate_drops (a "
                "retransmission the peer already had: a spurious one), "
                "acks and sacks; for rxe its retry counters.", ""]
        out += [md_table(head, body), ""]
    head, body = cpu_table(res)
    if body:
        out += ["## CPU cost", "",
                "Each VM's CPUs busy (client / server; /proc/stat, 1.00 = "
                "one CPU all the time) in the run's window, a quarter of "
                "`-D` in for half of it, and the CPU seconds both VMs spend "
                "per GiB moved at the run's rate. Lower is better.", ""]
        out += [md_table(head, body), ""]
    if profs:
        out += ["## Profiles (BENCH_PERF=1)", "",
                "perf record -a -g (cpu-clock, 499 Hz) in each VM over the "
                "run's window: the share of samples in a function (self) "
                "and in it with what it calls (total), down to 0.5%.", ""]
        out += prof_lines(profs)
    if traces:
        out += ["## ftrace (BENCH_FTRACE)", "",
                "role, transport, test, interval, calls or events: see "
                "scripts/bench/guest.sh, trace_off() and "
                "trace_events_show().", "", "```"]
        out += list(traces) + ["```", ""]
    if res.reasons:
        out += ["## Why values are n/a", ""]
        out += ["%d. %s" % (i + 1, r) for i, r in enumerate(res.reasons)]
        out += [""]
    if notes:
        out += ["## Notes from the guests", ""]
        out += ["- %s: %s" % (NAMES.get(t, t), n) for t, n in notes]
        out += [""]
    if malformed:
        out += ["%d malformed result line(s) ignored." % malformed, ""]
    if run_log.strip():
        out += ["## tests/vm/run.sh said", "", "```", run_log.rstrip(), "```",
                ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


def write_rst(path, res, env, times, ended):
    meta = res.meta
    res.reasons = []
    out = [rst_table(None, env_rows(meta, env, times)), "",
           "Harness: " + verdict_text(meta, ended) + ".", "",
           "Bandwidth, Mbit/s (rxe and MetaRoCE: perftest ``BW average`` over "
           "``-D %s``; TCP: iperf3 receiver goodput at the same loss):" %
           meta.get("BENCH_SECONDS", "?"), "",
           rst_table(*bw_table(res, True)), ""]
    if words(meta, "BENCH_LAT_TESTS"):
        out += ["Latency, µs (perftest ``-n %s``, typical = median):" %
                meta.get("BENCH_LAT_ITERS", "?"), "",
                rst_table(*lat_table(res, True)), ""]
    head, body = cpu_table(res)
    if body:
        out += ["CPU cost (each VM's CPUs busy, client / server, in the "
                "middle half of the run; CPU seconds of both VMs per GiB "
                "moved):", "", rst_table(head, body), ""]
    head, body = scaling_table(res)
    if body:
        out += ["Scaling (two vCPUs per VM, one NIC queue pair per vCPU; "
                "\"1 vCPU\": the second vCPU of both VMs offline; each "
                "CPU's share busy, and each receive queue's packets):", "",
                rst_table(head, body), ""]
    out += ["Targets:", "",
            rst_table(["Target", "Measured", "Verdict"], targets(res)), ""]
    for i, r in enumerate(res.reasons):
        out += [".. [%d] %s" % (i + 1, r.replace("*", "\\*"))]
    out += [""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


def write_csv(path, rows, missing):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows + missing:
            w.writerow(r)


def write_png(path, res, env):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print("report: no plot (%s); install python3-matplotlib" % e)
        return False
    meta = res.meta
    losses = words(meta, "BENCH_LOSS")
    tests = words(meta, "BENCH_BW_TESTS")
    sizes = words(meta, "BENCH_SIZES")
    lat_tests = words(meta, "BENCH_LAT_TESTS")
    trs = words(meta, "BENCH_TRANSPORTS")
    panels = len(tests) + (1 if lat_tests else 0)
    if panels == 0:
        return False
    cols = min(panels, 2)
    rows = (panels + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 4.0 * rows),
                             squeeze=False)
    x = list(range(len(losses)))
    xl = [l + "%" for l in losses]
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    style = {"rxe": ("--", "o"), "metaroce": ("-", "s")}

    def series(tr, test, size, metric):
        return [res.value(tr, test, size, l, metric) for l in losses]

    def plot(ax, ys, **kw):
        pts = [(a, b) for a, b in zip(x, ys) if b is not None]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], **kw)
        return bool(pts)

    def na_suffix(absent):
        return " — %s: n/a" % ", ".join(absent) if absent else ""

    i = 0
    for t in tests:
        ax = axes[i // cols][i % cols]
        i += 1
        if "tcp" in trs:
            plot(ax, [res.tcp(l) for l in losses], color="black", ls=":",
                 marker="^", label="TCP (iperf3)")
        absent = []
        for tr in RDMA:
            if tr not in trs:
                continue
            got = False
            for j, s in enumerate(sizes):
                ls, mk = style[tr]
                got |= plot(ax, series(tr, t + "_bw", s, "bw_mbps"),
                            color=colors[j % len(colors)], ls=ls, marker=mk,
                            label="%s %s" % (NAMES[tr], fmt_size(s)))
            if not got:
                absent.append(NAMES[tr])
        ax.set_title("ib_%s_bw%s" % (t, na_suffix(absent)))
        ax.set_xticks(x)
        ax.set_xticklabels(xl)
        ax.set_xlabel("random loss (netem, both directions)")
        ax.set_ylabel("Mbit/s")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="center left")
    if lat_tests:
        ax = axes[i // cols][i % cols]
        i += 1
        s = meta.get("BENCH_LAT_SIZE", "8")
        absent = []
        for tr in RDMA:
            if tr not in trs:
                continue
            got = False
            for j, t in enumerate(lat_tests):
                ls, mk = style[tr]
                got |= plot(ax, series(tr, t + "_lat", s, "lat_typical_us"),
                            color=colors[j % len(colors)], ls=ls, marker=mk,
                            label="%s ib_%s_lat" % (NAMES[tr], t))
            if not got:
                absent.append(NAMES[tr])
        ax.set_title("%s latency, typical (median)%s" % (fmt_size(s),
                                                          na_suffix(absent)))
        ax.set_xticks(x)
        ax.set_xticklabels(xl)
        ax.set_xlabel("random loss (netem, both directions)")
        ax.set_ylabel("µs")
        ax.set_yscale("log")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7, loc="upper left")
    while i < rows * cols:
        axes[i // cols][i % cols].axis("off")
        i += 1
    g = env.get("client", {})
    fig.suptitle("MetaRoCE vs rxe vs TCP — %s, %s run" % (
        meta.get("date_utc", "?"), meta.get("mode", "?")), fontsize=11)
    fig.text(0.5, 0.005, "%s, %s cores; %s; guests: %s vCPU, kernel %s; "
             "commit %s" % (meta.get("host_cpu", "?"),
                            meta.get("host_cores", "?"),
                            meta.get("qemu", "?").replace(
                                "QEMU emulator version ", "QEMU ") +
                            " " + meta.get("accel", "?"),
                            g.get("vcpus", "?"), g.get("kernel", "?"),
                            meta.get("commit", "?")),
             ha="center", va="bottom", fontsize=7, color="dimgray")
    fig.tight_layout(rect=(0, 0.025, 1, 0.97))
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return True


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    d = argv[1]
    quiet = "--quiet" in argv
    meta = read_meta(os.path.join(d, "meta.env"))
    client = read_console(os.path.join(d, "vm", "client.console.log"))
    server = read_console(os.path.join(d, "vm", "server.console.log"))
    try:
        with open(os.path.join(d, "run.log"), encoding="utf-8",
                  errors="replace") as f:
            run_log = f.read()
    except OSError:
        run_log = ""
    rows, notes, env, times, malformed, ended, traces, profs = parse(
        client, server)
    # Time spent per transport: the sum of its measurements' wall times.
    times = {k: v for k, v in times.items() if k == "total"}
    for r in rows:
        if r["metric"] == "wall_s" and r["value"].isdigit():
            times[r["transport"]] = times.get(r["transport"], 0) + \
                int(r["value"])
    res = Results(rows, meta)
    write_csv(os.path.join(d, "bench.csv"), rows, res.missing)
    write_md(os.path.join(d, "bench.md"), res, env, notes, times, malformed,
             ended, run_log, traces, profs)
    write_rst(os.path.join(d, "bench.rst"), res, env, times, ended)
    write_png(os.path.join(d, "bench.png"), res, env)
    main = ("bw_mbps", "lat_typical_us")
    ok = [r for r in rows if r["status"] == "ok" and r["metric"] in main]
    if not quiet:
        with open(os.path.join(d, "bench.md"), encoding="utf-8") as f:
            print(f.read())
    print("report: %d results ok, %d failed, %d n/a, %d missing" % (
        len(ok),
        sum(1 for r in rows if r["status"] == "fail"),
        sum(1 for r in rows if r["status"] == "n/a"),
        len(res.missing)))
    return 0 if ok else 3


if __name__ == "__main__":
    sys.exit(main(sys.argv))
