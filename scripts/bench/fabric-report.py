#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-fabric, the host side: the fabric scenarios' consoles to results.

    fabric-report.py RUN_DIR

RUN_DIR is $RESULTS/bench/fabric-<date> as scripts/bench/fabric.sh leaves
it: meta.env and e2e/<scenario>/single.console.log. metaroce-fabric prints

    FX-SAMPLE <case> <t> <to_ha> <f1..f4> <to_hb> <r1..r4> <counters...>
        bytes since the case's first sample, every 0.4 s: delivered to each
        host and sent by each leaf to each spine (f: la->sK, r: lb->sK)
    FX-EVENT <case> <t> hole-on|hole-off <dir>
    FABRIC-CASE <case> ok|FAIL
    [single] <case>: mr-verify's phases in the black hole ran at N% of
        the same kinds of phases before it ...   (the judged figure)

and metaroce-incast "INCAST-CASE <case> ok|FAIL key=value ...".

Writes in RUN_DIR: fabric.csv (scenario, case, metric, value), fabric.rst
(the tables for Documentation/metaroce/benchmarks.rst) and fabric.png
(goodput over time through each black hole; bytes per spine and
direction per case; goodput per incast sender and per compared QP). Exit status 0 when some case produced figures, 3
when none did, 2 on bad usage.
"""

import csv
import os
import re
import sys

SPINES = 4


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def console(run, scen):
    return read(os.path.join(run, "e2e", scen, "single.console.log"))


def parse_fabric(lines):
    """Samples, events and verdicts of metaroce-fabric, by case."""
    samples, events, verdicts = {}, {}, {}
    for line in lines:
        w = line.split()
        if len(w) >= 13 and w[0] == "FX-SAMPLE":
            try:
                samples.setdefault(w[1], []).append(
                    [float(w[2])] + [int(x) for x in w[3:13]])
            except ValueError:
                continue
        elif len(w) >= 4 and w[0] == "FX-EVENT":
            events.setdefault(w[1], {})[w[3]] = float(w[2])
        elif len(w) >= 3 and w[0] == "FABRIC-CASE":
            verdicts[w[1]] = w[2]
    return samples, events, verdicts


def parse_phases(lines):
    """Each black hole's judged figure, by case: mr-verify's phases in
    it against the same kinds of phases before it, in percent."""
    out = {}
    for line in lines:
        m = re.search(r"\] (\w+): mr-verify's phases in the black hole ran "
                      r"at (\d+)% of the same kinds", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def at(rows, t):
    """The first sample at or after t (the last one if none)."""
    for r in rows:
        if r[0] >= t:
            return r
    return rows[-1]


def rate(rows, t0, t1):
    """Bytes per second delivered to both hosts between t0 and t1."""
    a, b = at(rows, t0), at(rows, t1)
    dt = b[0] - a[0]
    return (b[1] + b[6] - a[1] - a[6]) / dt if dt > 0 else 0.0


def fabric_metrics(samples, events, verdicts, phases):
    out = []
    for case, rows in samples.items():
        last = rows[-1]
        t = last[0]
        out.append((case, "verdict", verdicts.get(case, "none")))
        out.append((case, "seconds", "%.1f" % t))
        if t > 0:
            out.append((case, "goodput_mbps",
                        "%.2f" % ((last[1] + last[6]) * 8 / t / 1e6)))
        for d, base in (("fwd", 2), ("rev", 7)):
            b = last[base:base + SPINES]
            mean = sum(b) / SPINES
            for k, v in enumerate(b):
                out.append((case, "%s_s%d_bytes" % (d, k + 1), v))
            if mean > 0:
                worst = max(abs(v - mean) / mean for v in b)
                out.append((case, "%s_worst_dev_pct" % d,
                            "%.0f" % (worst * 100)))
        ev = events.get(case, {})
        if "hole-on" in ev and "hole-off" in ev:
            on, off = ev["hole-on"], ev["hole-off"]
            # Before: from the start of the hole's monitoring (fx_hole:
            # 2 of the 10 units before the hole, the ramp-up behind it)
            # to the hole.  The last 6 s alone once caught a slow
            # stretch as the reference (104% "of before" in a run whose
            # hole cost a fifth of the goodput after the heal).
            before = rate(rows, on / 5, on)
            during = rate(rows, on + 2, off)
            after = rate(rows, off + 1, t)
            out.append((case, "goodput_before_Bps", int(before)))
            out.append((case, "goodput_during_Bps", int(during)))
            out.append((case, "goodput_after_Bps", int(after)))
            if before > 0:
                out.append((case, "during_vs_before_pct",
                            "%.0f" % (during * 100 / before)))
            if case in phases:
                out.append((case, "phases_vs_before_pct", phases[case]))
    return out


def parse_cases(lines, tag):
    """TAG-CASE <case> ok|FAIL key=value ... lines (incast, compare). A
    value runs to the next key= (incast's rtos= lists every sender)."""
    out = []
    for line in lines:
        m = re.match(tag + r"-CASE (\S+) (ok|FAIL)(.*)", line)
        if not m:
            continue
        case = m.group(1)
        out.append((case, "verdict", m.group(2)))
        for k, v in re.findall(r"(\w+)=(.*?)(?=\s+\w+=|\s*$)", m.group(3)):
            out.append((case, k, v))
    return out


def parse_per_flow(lines):
    """Goodput per sender (incast) or per QP (compare), by case, in B/s:
    "[role] CASE: window S s (reads A s, B s), goodput per sender (B/s)X1
    X2 ..., together" (older logs: no reads) and "[role] CASE: goodput per
    QP (B/s) X1 X2 ..., together"."""
    out = {}
    for line in lines:
        m = re.search(r"\] (\w+): (?:window [\d.]+ s(?: \([^)]*\))?, )?"
                      r"goodput per "
                      r"(?:sender|QP) \(B/s\)\s*([\d ]+), together", line)
        if m:
            out[m.group(1)] = [int(x) for x in m.group(2).split()]
    return out


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["scenario", "case", "metric", "value"])
        for r in rows:
            w.writerow(r)


# The tables of fabric.rst: per scenario, the columns (title, metric).
TABLES = (
    ("metaroce-fabric", (
        ("case", None), ("verdict", "verdict"), ("s", "seconds"),
        ("Mbit/s", "goodput_mbps"), ("worst spine fwd %", "fwd_worst_dev_pct"),
        ("rev %", "rev_worst_dev_pct"), ("B/s before", "goodput_before_Bps"),
        ("during", "goodput_during_Bps"), ("after", "goodput_after_Bps"),
        ("during/before %", "during_vs_before_pct"),
        ("phases during/before %", "phases_vs_before_pct"))),
    ("metaroce-incast", (
        ("case", None), ("verdict", "verdict"),
        ("of the bottleneck", "goodput"), ("Jain", "jain"),
        ("RTOs fired/undone", "rtos"), ("unshaped B/s", "capacity"))),
    ("metaroce-fabric-compare", (
        ("case", None), ("verdict", "verdict"), ("paths/flows", None),
        ("B/s together", "total"), ("slowest QP", "slowest"),
        ("two slowest", "slowest2"), ("bytes per spine", "spines"),
        ("pair ratio", "pair_ratio"), ("slowest ratio", "slowest_ratio"),
        ("total ratio", "total_ratio"))),
)


def table_rows(scen, cols, rows):
    cases = []
    val = {}
    for s, c, m, v in rows:
        if s != scen:
            continue
        if c not in cases:
            cases.append(c)
        val[(c, m)] = str(v)
    out = []
    for c in cases:
        r = []
        for title, m in cols:
            if title == "case":
                r.append(c)
            elif title == "paths/flows":
                r.append(val.get((c, "paths"), val.get((c, "flows"), "")))
            else:
                r.append(val.get((c, m), ""))
        out.append(r)
    return out


def write_rst(path, meta, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write(".. Generated by scripts/bench/fabric-report.py from run %s "
                "(commit %s, scale %s).\n" % (meta.get("date", "?"),
                                             meta.get("commit", "?"),
                                             meta.get("scale", "?")))
        if meta.get("mr_attrs") or meta.get("cases", "all") != "all":
            f.write(".. Device attributes: %s; metaroce-fabric's cases: %s.\n"
                    % (meta.get("mr_attrs") or "defaults",
                       meta.get("cases", "all")))
        for scen, cols in TABLES:
            body = table_rows(scen, cols, rows)
            if not body:
                continue
            f.write("\n.. list-table:: %s\n   :header-rows: 1\n\n" % scen)
            for r in [[t for t, _ in cols]] + body:
                f.write("   * - %s\n" % r[0])
                for v in r[1:]:
                    f.write("     - %s\n" % (v if v else "-"))


def write_png(path, samples, events, flows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print("fabric-report: no plot (%s); install python3-matplotlib" % e)
        return False
    holes = [c for c in samples if c in events]
    others = [c for c in samples if c not in events]
    n = len(holes) + (1 if others else 0) + len(flows)
    if not n:
        return False
    fig, axes = plt.subplots(n, 1, figsize=(8, 3.2 * n), squeeze=False)
    i = 0
    for case in holes:
        ax = axes[i][0]
        i += 1
        rows = samples[case]
        ts, gs = [], []
        for a, b in zip(rows, rows[1:]):
            dt = b[0] - a[0]
            if dt > 0:
                ts.append(b[0])
                gs.append((b[1] + b[6] - a[1] - a[6]) * 8 / dt / 1e6)
        ax.plot(ts, gs, color="tab:blue", label="goodput, both hosts")
        ev = events[case]
        if "hole-on" in ev and "hole-off" in ev:
            ax.axvspan(ev["hole-on"], ev["hole-off"], color="tab:red",
                       alpha=0.15, label="spine 2 black-holed")
        ax.set_title("%s: goodput through a black hole and its heal" % case)
        ax.set_xlabel("s")
        ax.set_ylabel("Mbit/s")
        ax.legend(loc="lower right", fontsize=8)
    if others:
        ax = axes[i][0]
        width = 0.8 / (2 * len(others))
        for j, case in enumerate(others):
            last = samples[case][-1]
            for d, base, hatch in (("fwd", 2, ""), ("rev", 7, "//")):
                b = last[base:base + SPINES]
                tot = sum(b) or 1
                x = [k + (2 * j + (base == 7)) * width for k in range(SPINES)]
                ax.bar(x, [v * 100 / tot for v in b], width, hatch=hatch,
                       label="%s %s" % (case, d))
        ax.axhline(25, color="gray", lw=0.8)
        ax.set_xticks([k + 0.4 - width / 2 for k in range(SPINES)])
        ax.set_xticklabels(["s%d" % (k + 1) for k in range(SPINES)])
        ax.set_ylabel("% of the bytes")
        ax.set_title("share of each spine, per case and direction")
        ax.legend(fontsize=7, ncol=2)
        i += 1
    for scen, what, by_case, share in flows:
        ax = axes[i][0]
        i += 1
        cases = list(by_case)
        width = 0.8 / max(1, len(cases))
        k = max(len(v) for v in by_case.values())
        for j, case in enumerate(cases):
            xs = by_case[case]
            ax.bar([q + j * width for q in range(len(xs))],
                   [x / 1e3 for x in xs], width, label=case)
        ax.set_xticks([q + 0.4 - width / 2 for q in range(k)])
        ax.set_xticklabels(["%s %d" % (what, q + 1) for q in range(k)])
        if share:
            ax.axhline(share / 1e3, color="gray", lw=0.8,
                       label="fair share of the bottleneck")
        ax.set_ylabel("kB/s")
        ax.set_title("%s: goodput per %s" % (scen, what))
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: fabric-report.py RUN_DIR")
        return 2
    run = argv[1]
    meta = {}
    for line in read(os.path.join(run, "meta.env")):
        if "=" in line:
            k, v = line.split("=", 1)
            meta[k] = v
    fab = console(run, "metaroce-fabric")
    samples, events, verdicts = parse_fabric(fab)
    rows = [("metaroce-fabric",) + r
            for r in fabric_metrics(samples, events, verdicts,
                                    parse_phases(fab))]
    inc = console(run, "metaroce-incast")
    cmp_ = console(run, "metaroce-fabric-compare")
    rows += [("metaroce-incast",) + r for r in parse_cases(inc, "INCAST")]
    rows += [("metaroce-fabric-compare",) + r
             for r in parse_cases(cmp_, "COMPARE")]
    # the per-flow bars: incast's shaped cases, the two MetaRoCE modes
    flows = []
    f = {c: v for c, v in parse_per_flow(inc).items() if c != "calibrate"}
    bn = [int(m.group(1)) for m in
          (re.search(r"bottleneck \S+ = (\d+) B/s", x) for x in inc) if m]
    if f:
        n = max(len(v) for v in f.values())
        flows.append(("metaroce-incast", "sender", f,
                      bn[0] / n if bn else None))
    f = parse_per_flow(cmp_)
    if f:
        flows.append(("metaroce-fabric-compare", "QP", f, None))
    if not rows:
        print("fabric-report: no figures in %s" % run)
        return 3
    write_csv(os.path.join(run, "fabric.csv"), rows)
    write_rst(os.path.join(run, "fabric.rst"), meta, rows)
    write_png(os.path.join(run, "fabric.png"), samples, events, flows)
    for r in rows:
        print("fabric-report: %s %s %s = %s" % r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
