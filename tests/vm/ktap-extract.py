#!/usr/bin/env python3
"""Extract the KTAP that KUnit suites printed while the scenario ran.

Usage: ktap-extract.py CONSOLE_LOG > run.ktap

Suites in loadable modules print their KTAP when the module loads, each
module numbering its top-level results from 1, and the kernel's own boot
KTAP ("1..0" when nothing is built in) comes earlier. kunit.py parse wants
one document: this keeps the lines between MR-BEGIN and MR-SCENARIO-END,
strips the printk timestamps, drops the modules' own top-level headers,
renumbers the top-level results and writes one header with the plan.
"""
import re
import sys

STAMP = re.compile(r"^\[ *\d+\.\d+\] ?")
TOP_RESULT = re.compile(r"^(not ok|ok) \d+(.*)$")
TOP_HEADER = re.compile(r"^(KTAP|TAP) version \d+$")
TOP_PLAN = re.compile(r"^1\.\.\d+$")
SUITE_HEADER = re.compile(r"^    # Subtest: ")


def main():
    body = []
    inside = False
    with open(sys.argv[1], errors="backslashreplace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("MR-BEGIN"):
                inside = True
                continue
            if line.startswith("MR-SCENARIO-END"):
                break
            if not inside or not STAMP.match(line):
                continue
            body.append(STAMP.sub("", line, count=1))

    out = []
    n = 0
    for line in body:
        if TOP_HEADER.match(line) or TOP_PLAN.match(line):
            continue
        m = TOP_RESULT.match(line)
        if m:
            n += 1
            line = "%s %d%s" % (m.group(1), n, m.group(2))
        out.append(line)
    # A suite that crashed printed its header but no result: plan for it
    # too, so the parser reports it instead of losing it.
    suites = sum(1 for line in body if SUITE_HEADER.match(line))
    print("KTAP version 1")
    print("1..%d" % max(n, suites))
    for line in out:
        print(line)


if __name__ == "__main__":
    main()
