#!/usr/bin/env python3
"""accuracy_summary_test.py: tools/bench/accuracy.py on hand-written validation records.

Usage: accuracy_summary_test.py ACCURACY_PY RECORDS.jsonl

Every expected number below was worked out by hand from data/accuracy_records.jsonl:
  A/k/D1  errors 10, 10, 20 %  (whole 20 ms; one more record has no model)
  A/k2/D1 error 100 %          (whole exactly 10 ms: not above the 10 ms threshold)
  A/k/D2  errors 25, 25 %      (whole 5 ms)
  B/m/D1  errors 2.5, 1 %      (whole 50 ms; one failed run); corrected 1, 3 %
  two skipped records.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

tool, records = sys.argv[1], sys.argv[2]
failures = []


def check(what, got, want):
    same = (got == want if want is None or isinstance(want, (str, list))
            else got is not None and math.isclose(got, want, rel_tol=0, abs_tol=1e-9))
    if not same:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def summary(*extra):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "s.json")
        md = subprocess.run([sys.executable, tool, records, "--json", out, *extra], check=True,
                            capture_output=True, text=True).stdout
        with open(out) as f:
            return json.load(f), md


def expect(what, obj, **want):
    """obj[key] == value for every key=value (numbers to 1e-9)."""
    for key, value in want.items():
        check(f"{what} {key}", obj[key], value)


s, md = summary()
expect("headline", s["headline"], mean_abs_error_pct=43.5 / 5, median_abs_error_pct=10.0,
       max_abs_error_pct=20.0, records=5, pairs=2)
expect("summary", s, threshold_ms=10.0, no_model=1, failed=1)
expect("D1 headline", s["headline_per_device"]["D1 | drv | plat"], mean_abs_error_pct=8.7)
expect("D2 headline (all below 10 ms)", s["headline_per_device"]["D2"], mean_abs_error_pct=None)
expect("all", s["all"], mean_abs_error_pct=193.5 / 8, median_abs_error_pct=15.0,
       max_abs_error_pct=100.0, records=8, pairs=4)

rows = {(r["app"], r["kernel"], r["device"]): r for r in s["rows"]}
check("row count", len(rows), 4)
expect("A/k/D1", rows[("A", "k", "D1 | drv | plat")], records=3, mean_abs_error_pct=40 / 3,
       median_abs_error_pct=10.0, max_abs_error_pct=20.0, mean_measured_ms=35 / 3,
       l2_error_ms=math.sqrt(6), whole_ms=20.0, above_threshold=3, no_model=1,
       models=["none", "regression"])
# 10 ms is not above 10 ms.
expect("A/k2/D1", rows[("A", "k2", "D1 | drv | plat")], mean_abs_error_pct=100.0,
       above_threshold=0)
expect("A/k/D2", rows[("A", "k", "D2")], mean_abs_error_pct=25.0, l2_error_ms=math.sqrt(1.25))
expect("B/m/D1", rows[("B", "m", "D1 | drv | plat")], mean_abs_error_pct=1.75,
       median_abs_error_pct=1.75, failed=1, mean_measured_ms=25.0, l2_error_ms=math.sqrt(1.01))
check("skipped", [(k["kernel"], k["device"]) for k in s["skipped"]], [("hist", ""), ("m", "D2")])

want = ("**Headline** (kernels above 10 ms): mean |error| 8.70 % (median 10.00 %, max 20.00 %) "
        "over 5 measurements of 2 kernel-device pairs whose whole launch took over 10 ms on that "
        "device.")
check("markdown headline", want in md.splitlines(), True)
check("markdown row", "| B | m | D1 \\| drv \\| plat | regression | 2 | 1.75 | 1.75 | 2.50 | 1.005 "
      "| 25.000 | 50.000 | 2 | 0 | 1 | 2.00 |" in md.splitlines(), True)
check("markdown row without corrections", "| A | k | D2 | regression | 2 | 25.00 | 25.00 | 25.00 "
      "| 1.118 | 3.000 | 5.000 | 0 | 0 | 0 | - |" in md.splitlines(), True)
# Only B/m carries corrected predictions (records of runtimes before TUTTI_MODEL_CORRECTION
# have none): 1 % and 3 %.
expect("corrected headline", s["corrected_headline"], mean_abs_error_pct=2.0, records=2, pairs=1)
expect("B/m/D1 corrected", rows[("B", "m", "D1 | drv | plat")], corrected_mean_abs_error_pct=2.0)
expect("A/k/D1 corrected", rows[("A", "k", "D1 | drv | plat")], corrected_mean_abs_error_pct=None)
check("markdown corrected", any(l.startswith("With the online correction") and "mean |error| 2.00 %"
                                in l for l in md.splitlines()), True)
check("markdown skipped", "| B | hist | all | not partitionable: global atomics of unknown order |"
      in md.splitlines(), True)

# Just below 10 ms, k2 (whole 10 ms) counts.
s, _ = summary("--threshold-ms", "9.99")
check("threshold 9.99 mean", s["headline"]["mean_abs_error_pct"], 143.5 / 6)
check("threshold 9.99 records", s["headline"]["records"], 6)

# An empty file is an error, not an empty table.
with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as empty:
    rc = subprocess.run([sys.executable, tool, empty.name], capture_output=True).returncode
    check("empty input exit status", rc, 1)

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("accuracy summary test passed")
