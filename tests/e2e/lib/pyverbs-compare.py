#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Compare two runs of rdma-core's provider test suite (run_tests.py -v).

    pyverbs-compare.py OURS.log OURS_DEV BASE.log BASE_DEV PROVIDER.rst

OURS.log is the run on the MetaRoCE device OURS_DEV, BASE.log the run on
the rxe device BASE_DEV in the same guest (a skip message naming the
device, as "Device mr0 doesn't have net interface", is compared with the
name taken out). Prints, for each, how many tests ran and how many were ok,
skipped, failed or in error, then every test skipped on ours that the
baseline did not skip for the same reason. A skip is justified when
"TEST: MESSAGE" (the test's dotted name, its skip message with the device
name as DEV) matches a pattern in PROVIDER.rst between the lines
".. pyverbs-skips-begin" and ".. pyverbs-skips-end", written there as
"- ``PATTERN``: why" (fnmatch wildcards): a pattern names the tests it
excuses, so that it cannot excuse an unrelated breakage that happens to
print the same message.

Exit status 0 when ours has no failure and no error, at least as many ok
as the baseline, and no unjustified skip; 1 otherwise (each reason
printed); 2 when a log is not a complete run or the list is missing.
"""
import fnmatch
import re
import sys


def unreadable(msg):
    sys.stderr.write('pyverbs: %s\n' % msg)
    sys.exit(2)

# unittest -v: "test_x (tests.test_mr.MRTest.test_x) ... ok", the verdict
# possibly on a later line when a test printed something.
START = re.compile(r'^(test\w+) \(([\w.]+)\)')
# A skip reason is printed as its repr: in double quotes when it has a
# single quote.
VERDICT = re.compile(r"(?:\.\.\. )?(ok|FAIL|ERROR|skipped (['\"])(.*)\2|"
                     r"expected failure|unexpected success)$")
RAN = re.compile(r'^Ran (\d+) tests? in')


def parse(path, dev):
    results = {}
    ran = None
    cur = None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = START.match(line)
            if m:
                cur = '%s.%s' % (m.group(2).rsplit('.', 1)[0], m.group(1))
                line = line[m.end():]
            m = RAN.match(line)
            if m:
                ran = int(m.group(1))
                continue
            if cur is None:
                continue
            m = VERDICT.search(line)
            if m:
                word = m.group(1)
                if word.startswith('skipped'):
                    why = re.sub(r'\b%s\b' % re.escape(dev), 'DEV',
                                 m.group(3))
                    results[cur] = ('skipped', why)
                else:
                    results[cur] = (word, '')
                cur = None
    if ran is None:
        unreadable('%s: no "Ran N tests" line: the run did not finish' % path)
    if ran != len(results):
        unreadable('%s: "Ran %d tests" but %d verdicts read' %
                 (path, ran, len(results)))
    return results


def justified_patterns(path):
    pats = []
    inside = False
    seen = 0
    with open(path) as f:
        for line in f:
            s = line.strip()
            if s == '.. pyverbs-skips-begin':
                inside = True
                seen += 1
            elif s == '.. pyverbs-skips-end':
                inside = False
                seen += 1
            elif inside:
                m = re.match(r'^- ``(.+?)``:', s)
                if m:
                    pats.append(m.group(1))
    if seen != 2 or inside:
        unreadable('%s: no pyverbs-skips-begin/end pair' % path)
    return pats


def counts(res):
    c = {'ok': 0, 'skipped': 0, 'FAIL': 0, 'ERROR': 0, 'other': 0}
    for verdict, _ in res.values():
        c[verdict if verdict in c else 'other'] += 1
    return c


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    ours = parse(sys.argv[1], sys.argv[2])
    base = parse(sys.argv[3], sys.argv[4])
    pats = justified_patterns(sys.argv[5])
    co, cb = counts(ours), counts(base)
    print('pyverbs: device  ran  ok  skipped  failed  error  other')
    for name, res, c in (('ours', ours, co), ('base', base, cb)):
        print('pyverbs: %-6s %4d %4d %8d %7d %6d %6d' %
              (name, len(res), c['ok'], c['skipped'], c['FAIL'],
               c['ERROR'], c['other']))
    bad = []
    for t in sorted(ours):
        v, why = ours[t]
        if v in ('FAIL', 'ERROR', 'unexpected success'):
            bad.append('%s: %s' % (t, v))
    differ = []
    for t in sorted(ours):
        v, why = ours[t]
        if v != 'skipped':
            continue
        bv, bwhy = base.get(t, ('absent', ''))
        if bv == 'skipped' and bwhy == why:
            continue
        key = '%s: %s' % (t, why)
        just = any(fnmatch.fnmatchcase(key, p) for p in pats)
        differ.append((t, why, bv, just))
    print('pyverbs: skips on ours that the baseline does not share: %d' %
          len(differ))
    for t, why, bv, just in differ:
        print('pyverbs:   %s [%s] base=%s%s' %
              (t, why, bv, '' if just else '  UNJUSTIFIED'))
    if co['ok'] < cb['ok']:
        bad.append('%d ok on ours, fewer than the baseline\'s %d' %
                   (co['ok'], cb['ok']))
    for t, why, _, just in differ:
        if not just:
            bad.append('%s: skipped (%s), not justified in provider.rst' %
                       (t, why))
    for b in bad:
        print('pyverbs: FAIL %s' % b)
    print('pyverbs: %s' % ('parity' if not bad else 'no parity'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
