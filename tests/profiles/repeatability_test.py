#!/usr/bin/env python3
"""repeatability_test.py: tools/bench/repeatability.py on hand-written validation runs.

Usage: repeatability_test.py REPEATABILITY_PY

Two runs of one app: k on D1 measured 10 and 12 ms (20 % apart), 40 and 30 ms (33.3 %);
k on D2 20 and 20 ms (0 %); a count only one run has is not paired; a launch of 5 ms
whole is below the 10 ms threshold.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

tool = sys.argv[1]
failures = []


def rec(device, groups, measured, whole=50):
    return json.dumps({"app": "A", "kernel": "k", "device": device, "groups": groups,
                       "measured_ms": measured, "predicted_ms": 1, "whole_ms": whole})


runs = [[rec("D1", 5, 10), rec("D1", 9, 40), rec("D2", 5, 20), rec("D1", 7, 3), rec("D1", 2, 1, 5)],
        [rec("D1", 5, 12), rec("D1", 9, 30), rec("D2", 5, 20), rec("D1", 2, 4, 5)]]
with tempfile.TemporaryDirectory() as d:
    dirs = []
    for i, lines in enumerate(runs):
        os.makedirs(os.path.join(d, f"run{i}", "A"))
        with open(os.path.join(d, f"run{i}", "A", "validate.jsonl"), "w") as f:
            f.write("\n".join(lines) + "\n")
        dirs.append(os.path.join(d, f"run{i}"))
    out = os.path.join(d, "r.json")
    p = subprocess.run([sys.executable, tool, *dirs, "--json", out], capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"exit status {p.returncode}: {p.stderr}")
    else:
        s = json.load(open(out))
        rows = {r["device"]: r for r in s["rows"]}
        d1, d2 = rows.get("D1", {}), rows.get("D2", {})
        if d1.get("pairs") != 2 or not math.isclose(d1.get("mean_diff_pct", -1), (20 + 100 / 3) / 2):
            failures.append(f"D1: {d1}")
        if d1.get("max_diff_pct") is None or not math.isclose(d1["max_diff_pct"], 100 / 3):
            failures.append(f"D1 max: {d1}")
        if d2.get("pairs") != 1 or d2.get("mean_diff_pct") != 0:
            failures.append(f"D2: {d2}")
        if "| A | k | D1 | 2 | 26.7 | 26.7 | 33.3 |" not in p.stdout.splitlines():
            failures.append("markdown row missing:\n" + p.stdout)
    p = subprocess.run([sys.executable, tool, dirs[0]], capture_output=True, text=True)
    if p.returncode == 0:
        failures.append("one run was accepted")
if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("repeatability test passed")
