#!/usr/bin/env python3
"""repeatability.py: how far the same measurement moves between validation runs.

    python3 repeatability.py [--threshold-ms 10] [--md OUT.md] [--json OUT.json] DIR DIR...

Each DIR is an accuracy.sh OUT_DIR (its */validate.jsonl records). Runs with the same
--seed time the same work-group counts, so a record of one run and the record of another
with the same app, kernel, device and group count measure the same thing in two
processes. Per kernel and device: the mean and median over such pairs of
|a - b| / min(a, b) * 100, for launches above --threshold-ms when run whole. That is the
floor under any prediction error a model fitted in one process can show in another.
"""
import argparse
import glob
import itertools
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accuracy import above, cell, load, number  # noqa: E402


def measurements(run_dir, threshold_ms):
    records, _ = load(sorted(glob.glob(os.path.join(run_dir, "*", "validate.jsonl"))))
    out = {}
    for r in records:
        m = number(r.get("measured_ms"))
        if m is None or m <= 0 or not above(r, threshold_ms):
            continue
        out[(r.get("app", ""), r.get("kernel", ""), r.get("device", ""), r.get("groups"))] = m
    return out


def summarise(run_dirs, threshold_ms):
    runs = [measurements(d, threshold_ms) for d in run_dirs]
    diffs = {}
    for a, b in itertools.combinations(runs, 2):
        for key in a.keys() & b.keys():
            lo = min(a[key], b[key])
            diffs.setdefault(key[:3], []).append(abs(a[key] - b[key]) / lo * 100)
    rows = [{"app": k[0], "kernel": k[1], "device": k[2], "pairs": len(v),
             "mean_diff_pct": statistics.mean(v), "median_diff_pct": statistics.median(v),
             "max_diff_pct": max(v)} for k, v in sorted(diffs.items())]
    per_device = {}
    for k, v in diffs.items():
        per_device.setdefault(k[2], []).extend(v)
    return {"runs": list(run_dirs), "threshold_ms": threshold_ms, "rows": rows,
            "per_device": {d: {"pairs": len(v), "mean_diff_pct": statistics.mean(v),
                               "median_diff_pct": statistics.median(v)}
                           for d, v in sorted(per_device.items())}}


def markdown(s):
    out = ["# Repeatability of validation measurements across runs", "",
           f"{len(s['runs'])} runs; the same work-group count measured in two of them, for "
           f"launches above {s['threshold_ms']:g} ms: |a - b| / min(a, b).", ""]
    for d, h in s["per_device"].items():
        out.append(f"- {cell(d)}: mean {h['mean_diff_pct']:.1f} %, median "
                   f"{h['median_diff_pct']:.1f} % over {h['pairs']} pairs")
    out += ["", "| app | kernel | device | pairs | mean % | median % | max % |",
            "|---|---|---|---:|---:|---:|---:|"]
    for r in s["rows"]:
        out.append(f"| {cell(r['app'])} | {cell(r['kernel'])} | {cell(r['device'])} | "
                   f"{r['pairs']} | {r['mean_diff_pct']:.1f} | {r['median_diff_pct']:.1f} | "
                   f"{r['max_diff_pct']:.1f} |")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="accuracy.sh output folders")
    ap.add_argument("--threshold-ms", type=float, default=10.0)
    ap.add_argument("--md")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    if len(a.runs) < 2:
        ap.error("needs at least two runs")
    s = summarise(a.runs, a.threshold_ms)
    if not s["rows"]:
        print("repeatability: no measurement appears in two runs", file=sys.stderr)
        return 1
    md = markdown(s)
    sys.stdout.write(md)
    if a.md:
        with open(a.md, "w") as f:
            f.write(md)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(s, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
