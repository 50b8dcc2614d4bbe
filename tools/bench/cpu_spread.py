#!/usr/bin/env python3
"""cpu_spread.py: kernel-time spread inside and between processes, from cpu_spread.sh runs.

    python3 cpu_spread.py RUNS.jsonl [--md OUT.md] [--json OUT.json] [--min-ms 10]

Per configuration and app, over its processes (the first launch of each process is a warm-up
and left out):
- within: mean over processes of (slowest - fastest) / fastest of its launches;
- between: mean over pairs of processes of |a - b| / min(a, b), where a and b are the two
  processes' fastest launches (validation and profiling keep the fastest of their repeats,
  so this is the floor under a model fitted in one process and checked in another);
- vs native: the median launch over the native configuration's median for the same kernel.
The per-configuration means take only kernels whose median launch is at least --min-ms
(default 10 ms, the prediction goal's threshold): sub-millisecond launches move by whole
multiples of themselves and would swamp the mean.
"""
import argparse
import itertools
import json
import statistics
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def summarise(records, min_ms=10.0):
    groups = {}
    for r in records:
        if r.get("rc") != 0:
            continue
        for kernel, ev in (r.get("events_ms") or {}).items():
            if len(ev) >= 2:
                groups.setdefault((r["config"], f'{r["app"]}/{kernel}'), []).append(ev[1:])
    rows = []
    for (cfg, app), procs in sorted(groups.items()):
        fastest = [min(p) for p in procs]
        within = [(max(p) - min(p)) / min(p) * 100 for p in procs]
        pairs = [abs(a - b) / min(a, b) * 100 for a, b in itertools.combinations(fastest, 2)]
        rows.append({"config": cfg, "app": app, "processes": len(procs),
                     "median_ms": statistics.median(x for p in procs for x in p),
                     "within_pct": statistics.mean(within),
                     "between_pct": statistics.mean(pairs) if pairs else None,
                     "between_max_pct": max(pairs) if pairs else None,
                     "fastest_ms": fastest})
    native = {r["app"]: r["median_ms"] for r in rows if r["config"] == "native"}
    for r in rows:
        base = native.get(r["app"])
        r["vs_native"] = r["median_ms"] / base if base else None
        r["in_means"] = r["median_ms"] >= min_ms
    per_config = {}
    for r in rows:
        if not r["in_means"]:
            continue
        c = per_config.setdefault(r["config"], {"within": [], "between": []})
        c["within"].append(r["within_pct"])
        if r["between_pct"] is not None:
            c["between"].append(r["between_pct"])
    summary = {cfg: {"mean_within_pct": statistics.mean(v["within"]),
                     "mean_between_pct": statistics.mean(v["between"]) if v["between"] else None}
               for cfg, v in per_config.items()}
    return {"min_ms": min_ms, "rows": rows, "per_config": summary}


def pct(x):
    return "-" if x is None else f"{x:.1f}"


def markdown(s):
    out = ["# CPU kernel-time spread inside and between processes", "",
           "within: (slowest - fastest) / fastest over one process's launches (first left out), "
           "mean over processes; between: |a - b| / min(a, b) over pairs of processes' fastest "
           "launches, mean (max); vs native: median launch over native's median.", ""]
    for cfg, v in s["per_config"].items():
        out.append(f"- {cfg}: within {pct(v['mean_within_pct'])} %, between "
                   f"{pct(v['mean_between_pct'])} % (mean over kernels of {s['min_ms']:g} ms "
                   "and more)")
    out += ["", "| config | app/kernel | processes | median ms | vs native | within % | between % "
            "| between max % |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in s["rows"]:
        ratio = "-" if r["vs_native"] is None else f"{r['vs_native']:.2f}x"
        mark = "" if r["in_means"] else " (not in means)"
        out.append(f"| {r['config']} | {r['app']}{mark} | {r['processes']} | {r['median_ms']:.2f} "
                   f"| {ratio} | {pct(r['within_pct'])} | {pct(r['between_pct'])} "
                   f"| {pct(r['between_max_pct'])} |")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs")
    ap.add_argument("--md")
    ap.add_argument("--json")
    ap.add_argument("--min-ms", type=float, default=10.0)
    a = ap.parse_args(argv)
    s = summarise(load(a.runs), a.min_ms)
    if not s["rows"]:
        print("cpu_spread: no process with two or more launches", file=sys.stderr)
        return 1
    md = markdown(s)
    if a.md:
        with open(a.md, "w") as f:
            f.write(md)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(s, f, indent=1)
    sys.stdout.write(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
