#!/usr/bin/env python3
"""Requirement traceability for the MetaRoCE specification (MR-CONF-4..6).

Reads every requirement defined in Documentation/metaroce/spec.rst, finds
the tests that cite each ID (as plain MR-<AREA>-<n> text under tests/ and in
the module's KUnit suites), reads the requirements verified by inspection
from tests/conformance/inspection.txt, and writes the traceability table
Documentation/metaroce/traceability.rst.

  traceability.py            write the table, print the coverage summary
  traceability.py --check    exit 1 if a MUST is not covered (below), the
                             committed table is not current,
                             a cited ID is undefined, an inspection
                             entry names an undefined ID, a requirement
                             carries no RFC 2119 keyword, or the admin
                             guide's SHOULD table (MR-CONF-2) misses a
                             requirement with a SHOULD or lists one
                             without
  traceability.py --selftest check the checks on a made-up spec

The conformance suite's cases (tests/conformance/mrc-cases-*.c, mr-conform)
are read from its registry: each entry { "AREA", "name", "IDs", ... } names
the requirements the case proves, ranges (MR-REL-14..16) expanded; the
table lists them per requirement, and a malformed tag or an undefined ID
fails --check.

Coverage (MR-CONF-6 as the suite applies it): every MUST has a case of the
suite or an entry in inspection.txt ("MR-AREA-n[..m]: reason"), never both;
--check fails otherwise.  Citations in unit, KUnit, fuzz and e2e tests are
listed as evidence: they test the reference implementation only.

Every requirement's text (its label to the next label or section heading)
must hold an RFC 2119/8174 keyword in capitals: a paragraph without one is
informative text and gets no ID (spec.rst, "Requirement language").
"""
import os
import re
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SPEC = os.path.join(TOP, "Documentation", "metaroce", "spec.rst")
TABLE = os.path.join(TOP, "Documentation", "metaroce", "traceability.rst")
INSPECTION = os.path.join(TOP, "tests", "conformance", "inspection.txt")
# The implementation's list of the SHOULDs it meets or not (MR-CONF-2).
ADMIN = os.path.join(TOP, "Documentation", "metaroce", "admin-guide.rst")
SHOULD_SECTION = "Conformance: the SHOULDs (MR-CONF-2)"
ID = re.compile(r"\bMR-[A-Z]+-[0-9]+\b")
LABEL = re.compile(r"^\.\. _(MR-[A-Z]+-[0-9]+):\s*$")
TEST_EXT = (".c", ".h", ".sh", ".py")
# RFC 2119/8174 keywords; MUST NOT, SHALL NOT, SHOULD NOT and NOT
# RECOMMENDED contain one of these.  Upper case only: "must" is prose.
KEYWORD = re.compile(r"\b(MUST|REQUIRED|SHALL|SHOULD|RECOMMENDED|MAY|"
                     r"OPTIONAL)\b")
# Requirements whose text another v1.1 change rewrites: exempt from the
# keyword check until that change lands.  An entry whose requirement has a
# keyword is an error, so the list cannot outlive its reason.
KEYWORD_PENDING = {
}


SUITE = os.path.join(TOP, "tests", "conformance")
# An entry of mr-conform's case registry: area, name, requirement IDs.
CASE = re.compile(r'\{\s*"([A-Z]+)",\s*"([a-z0-9_]+)",\s*"([^"]*)"')
ID_RANGE = re.compile(r"^MR-([A-Z]+)-([0-9]+)(?:\.\.([0-9]+))?$")


def expand_ids(tag):
    """The IDs of a case tag "MR-REL-12, MR-REL-14..16", or None if it is
    malformed (as mr-conform's own parser, ids_expand())."""
    out = []
    for part in tag.split(","):
        m = ID_RANGE.match(part.strip())
        if not m:
            return None
        lo = int(m.group(2))
        hi = int(m.group(3)) if m.group(3) else lo
        if lo < 1 or hi < lo or hi - lo > 200:
            return None
        out += ["MR-%s-%d" % (m.group(1), n) for n in range(lo, hi + 1)]
    return out


def suite_cases():
    """{id: set of "AREA/name"} of the suite's registry, and the errors."""
    cases, errs = {}, []
    for name in sorted(os.listdir(SUITE)):
        if not (name.startswith("mrc-cases-") and name.endswith(".c")):
            continue
        with open(os.path.join(SUITE, name)) as f:
            for m in CASE.finditer(f.read()):
                ids = expand_ids(m.group(3))
                case = "%s/%s" % (m.group(1), m.group(2))
                if ids is None:
                    errs.append("case %s in %s: malformed IDs \"%s\""
                                % (case, name, m.group(3)))
                    continue
                for rid in ids:
                    cases.setdefault(rid, set()).add(case)
    return cases, errs


def id_key(rid):
    _, area, n = rid.split("-")
    return (area, int(n))


def read_texts(lines):
    """Return {id: text} of the requirements in the spec's lines: the text
    after an ID's label up to the next label or section heading."""
    texts = {}
    cur = None
    text = []

    def close():
        if cur:
            texts[cur] = " ".join(t for t in text if t)

    for line in lines:
        m = LABEL.match(line)
        if m:
            close()
            cur = m.group(1)
            text = []
        elif cur:
            if re.match(r"^[=~^-]{4,}\s*$", line):
                # the heading's title line went into text; harmless for
                # the keyword search only if it has none, so drop it
                text = text[:-1]
                close()
                cur = None
            else:
                text.append(line.strip())
    close()
    return texts


def level(text):
    """'MUST'|'SHOULD'|'MAY'|'-' for a requirement's text."""
    for word in ("MUST", "SHALL", "REQUIRED", "SHOULD", "RECOMMENDED",
                 "MAY", "OPTIONAL"):
        if re.search(r"\b%s\b" % word, text):
            return {"SHALL": "MUST", "REQUIRED": "MUST",
                    "RECOMMENDED": "SHOULD",
                    "OPTIONAL": "MAY"}.get(word, word)
    return "-"


def keyword_errors(texts, pending):
    """(id, message) for requirements without an RFC 2119 keyword and for
    pending exemptions that are no longer needed or name no requirement."""
    errs = []
    for rid in sorted(texts, key=id_key):
        has = bool(KEYWORD.search(texts[rid]))
        if not has and rid not in pending:
            errs.append((rid, "%s has no RFC 2119 keyword (MUST, SHOULD, "
                         "MAY, ...): give it one or make it informative "
                         "text" % rid))
        elif has and rid in pending:
            errs.append((rid, "%s has a keyword now: remove it from "
                         "KEYWORD_PENDING" % rid))
    for rid in sorted(set(pending) - set(texts), key=id_key):
        errs.append((rid, "KEYWORD_PENDING names %s, which is not defined"
                     % rid))
    return errs


def should_errors(texts, admin_lines):
    """(id, message) for requirements with a SHOULD that the admin guide's
    SHOULD table does not list, and for rows that name no such one."""
    shoulds = {rid for rid, t in texts.items()
               if re.search(r"\b(SHOULD|RECOMMENDED)\b", t)}
    listed = set()
    inside = False
    for line in admin_lines:
        if line.strip() == SHOULD_SECTION:
            inside = True
        elif inside and re.match(r"^[=~^-]{4,}\s*$", line):
            continue
        elif inside and line and not line[0].isspace() and listed:
            break                   # the next section's title
        elif inside:
            m = re.match(r"^   \* - (MR-[A-Z]+-[0-9]+)\s*$", line)
            if m:
                listed.add(m.group(1))
    errs = [(rid, "%s has a SHOULD but no row in %s, \"%s\""
             % (rid, os.path.relpath(ADMIN, TOP), SHOULD_SECTION))
            for rid in sorted(shoulds - listed, key=id_key)]
    errs += [(rid, "%s, \"%s\", lists %s, which has no SHOULD"
              % (os.path.relpath(ADMIN, TOP), SHOULD_SECTION, rid))
             for rid in sorted(listed - shoulds, key=id_key)]
    return errs


def read_spec():
    """Return {id: level} and {id: text} of the spec's requirements."""
    with open(SPEC) as f:
        texts = read_texts(f.read().split("\n"))
    return {rid: level(t) for rid, t in texts.items()}, texts


def test_sources():
    """Files that hold tests: tests/ (not conformance's own data) and the
    module's KUnit suites (kernel/tests/)."""
    roots = [os.path.join(TOP, "tests")]
    for root in roots:
        for dirpath, dirnames, files in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in ("build", "corpus")]
            for name in files:
                if name.endswith(TEST_EXT):
                    yield os.path.join(dirpath, name)
    kdir = os.path.join(TOP, "kernel", "tests")
    for dirpath, _, files in os.walk(kdir):
        for name in files:
            if name.endswith(".c"):
                yield os.path.join(dirpath, name)


def cited_by_tests():
    cites = {}
    for path in test_sources():
        if os.path.samefile(path, __file__):
            continue
        rel = os.path.relpath(path, TOP)
        with open(path, errors="replace") as f:
            for rid in set(ID.findall(f.read())):
                cites.setdefault(rid, set()).add(rel)
    return cites


def parse_inspection(lines):
    """{id: reason} of inspection.txt's lines "ID: reason" or "ID..n:
    reason" (a range, as the suite's case tags), and the errors."""
    insp, errs = {}, []
    for no, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        tag, _, reason = line.partition(":")
        ids = expand_ids(tag.strip())
        reason = reason.strip()
        if ids is None or not reason:
            errs.append("inspection.txt:%d: want \"MR-AREA-n[..m]: reason\","
                        " got \"%s\"" % (no, line[:60]))
            continue
        for rid in ids:
            if rid in insp:
                errs.append("inspection.txt:%d: %s listed twice" % (no, rid))
            insp[rid] = reason
    return insp, errs


def read_inspection():
    if not os.path.exists(INSPECTION):
        return {}, []
    with open(INSPECTION) as f:
        return parse_inspection(f.read().split("\n"))


def coverage_errors(reqs, suite, insp):
    """Issue-15 form of MR-CONF-6: every MUST has a case of the
    conformance suite or an inspection entry with its reason, never both
    (an entry a case made redundant is stale). Unit, KUnit, fuzz and e2e
    citations are evidence listed in the table, not coverage: they test
    the reference implementation, not any implementation."""
    errs = []
    for rid in sorted(reqs, key=id_key):
        if reqs[rid] != "MUST":
            continue
        if rid not in suite and rid not in insp:
            errs.append((rid, "%s (MUST) has no conformance suite case and "
                         "no inspection entry (MR-CONF-6)" % rid))
        elif rid in suite and rid in insp:
            errs.append((rid, "%s has suite case(s) %s: drop its inspection "
                         "entry" % (rid, ", ".join(sorted(suite[rid])))))
    for rid in sorted(insp, key=id_key):
        if rid in reqs and reqs[rid] != "MUST":
            errs.append((rid, "inspection entry %s is not a MUST" % rid))
    return errs


def render(reqs, cites, insp, suite=None):
    out = []
    w = out.append
    w(".. SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause")
    w("")
    w(".. Generated by tests/conformance/traceability.py; do not edit.")
    w("")
    w("=========================")
    w("Requirement traceability")
    w("=========================")
    w("")
    suite = suite or {}
    musts = [r for r in reqs if reqs[r] == "MUST"]
    tested = [r for r in musts if r in cites or r in suite]
    by_suite = [r for r in musts if r in suite]
    inspected = [r for r in musts if r not in suite and r in insp]
    open_ = [r for r in musts if r not in suite and r not in insp]
    w("Every requirement of :doc:`spec`: the cases of the conformance suite")
    w("(:doc:`conformance`) that prove it, or the reason it is verified by")
    w("inspection (MR-CONF-6), and the other tests that cite it (MR-CONF-4).")
    w("A MUST counts as covered by the suite's black-box cases or by an")
    w("inspection entry (``tests/conformance/inspection.txt``); unit, KUnit,")
    w("fuzz and e2e tests check the reference implementation and are listed")
    w("as evidence.")
    w("")
    w("- requirements: %d, of which MUST: %d" % (len(reqs), len(musts)))
    w("- MUST requirements proved by a case of the conformance suite: %d"
      % len(by_suite))
    w("- MUST requirements verified by inspection: %d" % len(inspected))
    w("- MUST requirements not yet covered: %d" % len(open_))
    w("- MUST requirements cited by any test: %d" % len(tested))
    w("")
    w(".. list-table::")
    w("   :header-rows: 1")
    w("   :widths: 14 8 40 38")
    w("")
    w("   * - ID")
    w("     - Level")
    w("     - Coverage")
    w("     - Other tests")
    for rid in sorted(reqs, key=id_key):
        if rid in suite:
            cov = ", ".join("suite ``%s``" % c for c in sorted(suite[rid]))
        elif rid in insp:
            cov = "inspection: " + insp[rid]
        else:
            cov = "(none yet)"
        other = ", ".join("``%s``" % p for p in sorted(cites.get(rid, ())))
        w("   * - %s" % rid)
        w("     - %s" % reqs[rid])
        w("     - %s" % cov)
        w("     - %s" % (other or "-"))
    w("")
    return "\n".join(out), (len(reqs), len(musts), len(tested),
                            len(by_suite), len(inspected), len(open_))


# Made-up requirements X-n, named MR-X-n when the self-test runs (not here,
# so that tests/host/check-spec-ids.sh does not take them for citations).
SELFTEST_SPEC = """
Area
====

.. _X-1:

**X-1** A sender MUST do this.

.. _X-2:

**X-2** A sender does this; it must, lower case is prose.

.. _X-3:

**X-3** The table:

====  =====
a     b
====  =====
1     2
====  =====

Later text that a requirement incorporates MAY hold the keyword.

Next section with MUST in its title
-----------------------------------

.. _X-4:

**X-4** No keyword; the heading above is not its text.

.. _X-5:

**X-5** Pending, and NOT RECOMMENDED already.

.. _X-6:

**X-6** Pending and without keyword.
"""


def selftest():
    x = "MR-X-"         # + n: not written out, see SELFTEST_SPEC
    spec = re.sub(r"(?<![A-Z0-9-])X-([0-9])", x + r"\1", SELFTEST_SPEC)
    texts = read_texts(spec.split("\n"))
    errs = keyword_errors(texts, {x + "5": "", x + "6": "", x + "9": ""})
    got = sorted(rid for rid, _ in errs)
    want = [x + n for n in "2459"]
    levels = [level(texts[x + n]) for n in "1235"]
    ok = got == want and levels == ["MUST", "-", "MAY", "SHOULD"]
    if not ok:
        print("traceability selftest: flagged %s (want %s), levels %s"
              % (got, want, levels))
        for _, e in errs:
            print("  " + e)
    # the SHOULD table: X-5 (NOT RECOMMENDED) missing, X-1 (MUST) extra
    admin = [SHOULD_SECTION, "=" * len(SHOULD_SECTION), "", "Text.", "",
             ".. list-table::", "", "   * - Requirement",
             "   * - " + x + "1", "     - met", "", "Next section",
             "============", "", "   * - " + x + "5"]
    serrs = should_errors(texts, admin)
    sgot = sorted(rid for rid, _ in serrs)
    if sgot != [x + "1", x + "5"]:
        print("traceability selftest: SHOULD table check flagged %s" % sgot)
        ok = False
    # the suite's case tags: ranges expanded, malformed ones refused
    tags = {"MR-REL-12, MR-REL-14..16":
            ["MR-REL-12", "MR-REL-14", "MR-REL-15", "MR-REL-16"],
            "MR-VER-9..10,MR-ICRC-4": ["MR-VER-9", "MR-VER-10", "MR-ICRC-4"],
            "MR-REL-16..14": None, "MR-REL-": None, "MR-REL-12, ": None,
            "MR-rel-12": None, "": None}
    for tag, want in tags.items():
        if expand_ids(tag) != want:
            print("traceability selftest: case tag \"%s\" gave %s, want %s"
                  % (tag, expand_ids(tag), want))
            ok = False
    # MR-CONF-6: inspection ranges, malformed and repeated lines refused;
    # a MUST with neither a case nor an entry, or with both, flagged
    insp, ierrs = parse_inspection(["# comment", x + "1..2: by reading",
                                    x + "2: again", x + "3", x + ": x"])
    if sorted(insp) != [x + "1", x + "2"] or len(ierrs) != 3:
        print("traceability selftest: inspection parsed %s, errors %s"
              % (sorted(insp), ierrs))
        ok = False
    reqs = {x + "1": "MUST", x + "2": "MUST", x + "3": "MUST",
            x + "4": "SHOULD"}
    cerrs = coverage_errors(reqs, {x + "1": {"A/a"}, x + "3": {"A/b"}},
                            {x + "1": "r", x + "4": "r"})
    cgot = sorted(rid for rid, _ in cerrs)
    if cgot != [x + "1", x + "2", x + "4"]:
        print("traceability selftest: coverage check flagged %s" % cgot)
        ok = False
    return 0 if ok else 1


def main():
    if "--selftest" in sys.argv[1:]:
        return selftest()
    check = "--check" in sys.argv[1:]
    reqs, texts = read_spec()
    cites = cited_by_tests()
    insp, insp_errs = read_inspection()
    bad = 0
    for err in insp_errs:
        print("traceability: " + err)
        bad += 1
    for rid in sorted(set(cites) - set(reqs), key=id_key):
        print("traceability: %s cited by %s is not defined in the spec"
              % (rid, ", ".join(sorted(cites[rid]))))
        bad += 1
    suite, suite_errs = suite_cases()
    for err in suite_errs:
        print("traceability: " + err)
        bad += 1
    for rid in sorted(set(suite) - set(reqs), key=id_key):
        print("traceability: %s named by the suite's case(s) %s is not defined"
              % (rid, ", ".join(sorted(suite[rid]))))
        bad += 1
    for rid in sorted(set(insp) - set(reqs)):
        print("traceability: inspection entry %s is not defined" % rid)
        bad += 1
    for _, err in keyword_errors(texts, KEYWORD_PENDING):
        print("traceability: " + err)
        bad += 1
    with open(ADMIN) as f:
        for _, err in should_errors(texts, f.read().split("\n")):
            print("traceability: " + err)
            bad += 1
    for _, err in coverage_errors(reqs, suite, insp):
        print("traceability: " + err)
        bad += 1
    text, (n, musts, tested, by_suite, inspected, open_) = render(
        reqs, cites, insp, suite)
    print("traceability: %d requirements, %d MUST: %d by suite cases, "
          "%d by inspection, %d not covered (%d cited by any test)"
          % (n, musts, by_suite, inspected, open_, tested))
    if check:
        try:
            current = open(TABLE).read()
        except OSError:
            current = ""
        if current != text:
            print("traceability: %s is stale: run "
                  "tests/conformance/traceability.py" % os.path.relpath(TABLE, TOP))
            bad += 1
    else:
        with open(TABLE, "w") as f:
            f.write(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
