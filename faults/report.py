#!/usr/bin/env python3
"""Writes faults/results/<date>/report.md from the fault records (JSON lines written by FaultRow), the
failsafe reports of the run (which tests ran, which failed) and faults/rows.tsv (the matrix, in order).

usage: report.py ROWS_TSV RECORDS_JSONL FAILSAFE_REPORTS_DIR MODE DURATION_S OUT_MD [HOW_NODES_STARTED]
"""
import glob
import json
import operator
import os
import re
import sys
import xml.etree.ElementTree as ET

LET_IN = ("forgeries_accepted", "cross_tenant_reads", "cross_tenant_cancels", "unauthorised_delivered",
          "canary_hits", "ssrf_accepted")
OPS = {"==": operator.eq, "<=": operator.le, ">=": operator.ge}


def read_rows(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            parts += [""] * (6 - len(parts))
            rid, area, fault, figure, check, tests = parts[:6]
            rows.append(dict(id=rid, area=area, fault=fault, figure=figure,
                             checks=[c for c in check.split() if c],
                             tests=[t for t in tests.split(",") if t]))
    return rows


def read_records(path):
    out = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    out.append(json.loads(line))
    return out


def read_results(reports_dir):
    """{'Class#method': 'passed'|'failed'|'skipped'} for the tests failsafe ran."""
    results = {}
    for xml in glob.glob(os.path.join(reports_dir, "TEST-ax.e2e.*.xml")):
        for case in ET.parse(xml).getroot().iter("testcase"):
            cls = case.get("classname", "").rsplit(".", 1)[-1]
            name = re.sub(r"[\[(].*$", "", case.get("name", ""))  # parameterized: "name(String)[1]"
            key = cls + "#" + name
            if case.find("failure") is not None or case.find("error") is not None:
                state = "failed"
            elif case.find("skipped") is not None:
                state = "skipped"
            else:
                state = "passed"
            if results.get(key) != "failed":  # one failing case of a parameterized test fails it
                results[key] = state if results.get(key) in (None, "passed", "skipped") else results[key]
    return results


def test_states(row, results):
    """States of the tests this row lists that ran in this run."""
    states = {}
    for t in row["tests"]:
        for key, state in results.items():
            if key == t or ("#" not in t and key.startswith(t + "#")):
                states[key] = state
    return states


def check(cond, figures):
    cond = cond.lstrip("~")
    m = re.fullmatch(r"([a-z0-9_]+)(==|<=|>=)([a-z0-9_.]+)", cond)
    if not m:
        raise SystemExit("bad check in rows.tsv: " + cond)
    name, op, value = m.groups()
    if name not in figures:
        return None
    rhs = figures.get(value) if re.match(r"[a-z_]", value) else float(value)
    if rhs is None:
        return None
    try:
        return OPS[op](float(figures[name]), float(rhs))
    except (TypeError, ValueError):
        return False


def fmt(figures, first=()):
    """The figures the row's checks name first, then the rest by name."""
    keys = [k for k in first if k in figures] + sorted(k for k in figures if k not in first)
    return ", ".join(f"{k} {figures[k]}" for k in keys)


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return 0.0


def main():
    rows_tsv, records_path, reports_dir, mode, duration, out = sys.argv[1:7]
    how = sys.argv[7] if len(sys.argv) > 7 else None  # how the nodes were started, said in the report
    rows = read_rows(rows_tsv)
    records = read_records(records_path)
    results = read_results(reports_dir)
    known = {r["id"] for r in rows}
    unknown = sorted({r["row"] for r in records} - known)
    if unknown:
        raise SystemExit("records name rows that rows.tsv lacks: " + ", ".join(unknown))

    lines = []
    totals = dict(lost=0.0, run_twice=0.0, reruns=0.0, let_in=0.0)
    counted = dict(passed=0, failed=0, partial=0, not_run=0, not_covered=0)
    for i, row in enumerate(rows, 1):
        recs = [r for r in records if r["row"] == row["id"]]
        states = test_states(row, results)
        failed_tests = sorted(k for k, s in states.items() if s == "failed")
        bad, unmeasured, small = [], [], []
        for cond in row["checks"]:
            outcomes = [check(cond, r["figures"]) for r in recs]
            if cond.startswith("~"):  # the matrix's scale: short of it is partial, not a failure
                if recs and all(o is None for o in outcomes):
                    unmeasured.append(re.split(r"[=<>]", cond[1:])[0])
                elif recs and not any(o is True for o in outcomes):
                    small.append(cond[1:])
                continue
            if any(o is False for o in outcomes):
                bad.append(cond)
            if recs and all(o is None for o in outcomes):
                unmeasured.append(cond.split("=")[0].rstrip("<>"))
        for r in recs:
            f = r["figures"]
            totals["lost"] += num(f.get("lost"))
            totals["run_twice"] += num(f.get("run_twice"))
            totals["reruns"] += num(f.get("at_least_once_reruns"))
            totals["let_in"] += sum(num(f.get(k)) for k in LET_IN)

        if not row["tests"]:
            verdict, counted_as = "not covered yet", "not_covered"
        elif not recs and not states:
            verdict, counted_as = "not run in this mode (" + ", ".join(row["tests"]) + ")", "not_run"
        elif failed_tests or bad:
            why = []
            if bad:
                why.append("figure off its promise: " + ", ".join(bad))
            if failed_tests:
                why.append("test failed: " + ", ".join(failed_tests))
            verdict, counted_as = "**FAIL** (" + "; ".join(why) + ")", "failed"
        elif not recs:
            verdict, counted_as = "**FAIL** (the tests ran but recorded no figures)", "failed"
        elif unmeasured or small:
            why = []
            if unmeasured:
                why.append("not measured: " + ", ".join(unmeasured))
            if small:
                why.append("short of the matrix's scale: " + ", ".join(small))
            verdict, counted_as = "pass, partial (" + "; ".join(why) + ")", "partial"
        else:
            verdict, counted_as = "pass", "passed"
        counted[counted_as] += 1

        if recs:
            happened = "<br>".join(f"`{r['test']}`: {r['happened']}" for r in recs)
            named = [re.split(r"[=<>]", c.lstrip("~"))[0] for c in row["checks"]]
            figures = "<br>".join(fmt(r["figures"], named) for r in recs)
        else:
            happened = "—" if row["tests"] else "no test yet"
            figures = "—"
        cell = lambda s: s.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {i} | {cell(row['area'])}: {cell(row['fault'])} | {cell(happened)} | {cell(figures)} | "
                     f"{cell(row['figure'])} | {cell(verdict)} |")

    ran = counted["passed"] + counted["failed"] + counted["partial"]
    summary = (f"{ran} faults, {totals['lost']:.0f} lost, {totals['run_twice']:.0f} run twice, "
               f"{totals['reruns']:.0f} at-least-once re-runs, {totals['let_in']:.0f} let in")
    passed_tests = sum(1 for s in results.values() if s == "passed")
    failed_tests = sum(1 for s in results.values() if s == "failed")

    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(os.path.join(os.path.dirname(out) or ".", "tests.tsv"), "w", encoding="utf-8") as f:
        f.write("# the tests failsafe ran and how they ended\n")
        for key in sorted(results):
            f.write(f"{key}\t{results[key]}\n")
    with open(out, "w", encoding="utf-8") as f:
        f.write(f"# Fault matrix report — `faults/run.sh --{mode}`\n\n")
        f.write(f"Run {os.path.basename(os.path.dirname(out))}, {float(duration) / 60:.1f} min on this machine"
                + (f" ({how})" if how else "") + "; "
                f"{len(records)} records from {passed_tests + failed_tests} tests "
                f"({failed_tests} failed). The figures are what each test measured (raw: `records.jsonl`; the tests and their outcomes: `tests.tsv`); "
                f"the promise is RELIABILITY.md's.\n\n")
        f.write(f"Rows: {counted['passed']} pass, {counted['partial']} pass but partial, {counted['failed']} fail, "
                f"{counted['not_run']} covered but not run in this mode, {counted['not_covered']} not covered yet.\n\n")
        f.write("| # | fault | what happened | figures | promised | verdict |\n|---|---|---|---|---|---|\n")
        f.write("\n".join(lines) + "\n\n")
        f.write("\"Run twice\" counts the same (task, attempt) executed twice or two terminal outcomes; a new attempt "
                "after a crash is an at-least-once re-run, counted apart. \"Let in\" adds up accepted forgeries, "
                "cross-tenant reads and cancels, unauthorised bridge messages, SSRF targets accepted and canary hits.\n\n")
        f.write(f"**{summary}**\n")
    print(summary)
    return 1 if counted["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
