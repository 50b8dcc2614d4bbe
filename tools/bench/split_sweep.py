#!/usr/bin/env python3
"""split_sweep.py - issue 23's split sweep: measured and predicted wall time per CPU share.

  split_sweep.py run OUT_DIR APP_SPEC APPS_DIR LIBTUTTI PROFILE_DB [options]
  split_sweep.py report OUT_DIR [--whole-goal 0.98]

`run` runs one app (APP_SPEC: a name, or NAME:hostptr for the app's CL_MEM_USE_HOST_PTR
buffers) natively on the GPU, under Tutti whole, under SKMD `auto`, and under fixed splits
(TUTTI_PARTITION=fixed) giving the CPU device 0, 10, ... 50 % of the work-groups, each on a
fresh copy of the profiled database, interleaved (run i of every configuration before run
i+1 of any), --repeat times. Each sample keeps the app's wall time, its verification, and
Tutti's stats: the pieces per device and Algorithm 1's predicted time of the launches it
decided (predicted_ms, fixed splits included). It writes OUT_DIR/<spec>/sweep.json.

`report` reads every sweep.json under OUT_DIR and writes sweep.md and sweep.json there:
per app the median wall time per configuration, the prediction, the sweep's minimum, and
where `auto` stands (issue 23's goals: where the minimum beats whole, auto within 5 % of
it; no app below 0.98x of whole).
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import modes, runner  # noqa: E402


def spec_args(spec):
    name, _, variant = spec.partition(":")
    extra = {"": [], "hostptr": ["--hostptr", "1"]}.get(variant)
    if extra is None:
        raise SystemExit("split_sweep.py: unknown variant %r in %s (known: hostptr)" % (variant, spec))
    return name, extra


def weights(share, cpu, ndev):
    """TUTTI_PARTITION=fixed weights: `share` percent to the CPU slot, the rest evenly."""
    rest = (100.0 - share) / max(1, ndev - 1)
    return "fixed:" + ",".join("%g" % (share if i == cpu else rest) for i in range(ndev))


def sample_view(s):
    """What the report needs of one run: wall time, status, per-device pieces, prediction."""
    v = {"status": s["status"], "wall_ms": s["wall_ms"], "kernel_ms": s["kernel_ms"]}
    devs = []
    for d in s.get("tutti_stats", []):
        if "device" in d and "kernels" in d:
            devs.append({k: d.get(k) for k in ("device", "name", "kernels", "kernel_ms", "h2d_bytes",
                                                "d2h_bytes", "split_pieces", "work_items")})
        if "predicted_ms" in d:
            v["predicted_ms"] = d["predicted_ms"]
            v["predicted_launches"] = d.get("predicted_launches")
            v["split_launches"] = d.get("split_launches")
    if devs:
        v["devices"] = devs
    if s["status"] != "PASS":
        v["stderr_tail"] = s.get("stderr_tail", "")[-1500:]
    return v


def cmd_run(a):
    name, extra = spec_args(a.spec)
    app = os.path.join(a.apps_dir, name)
    out = os.path.join(a.out, a.spec.replace(":", "-"))
    os.makedirs(out, exist_ok=True)
    shares = [int(x) for x in a.shares.split(",")]
    sweep = [modes.Mode("whole", {"TUTTI_PLACEMENT": "auto"}, ""), modes.Mode("auto", {"TUTTI_MODE": "skmd"}, "")]
    sweep += [modes.Mode("cpu%02d" % p, {"TUTTI_MODE": "skmd", "TUTTI_PARTITION": weights(p, a.cpu, a.ndev)}, "")
              for p in shares]
    # The GPU natively, then each Tutti configuration on a fresh copy of the profile database.
    cfgs = runner.configs([{"index": a.gpu}], sweep, a.lib, a.db)
    samples = {c["config"]: [] for c in cfgs}
    for r in range(a.repeat):
        for c in cfgs:
            _, s = runner.run_once(app, c, a.size, a.timeout, extra)
            samples[c["config"]].append(sample_view(s))
            print("%s %s run %d: %s %s ms (predicted %s)" % (a.spec, c["config"], r, s["status"], s["wall_ms"],
                                                             samples[c["config"]][-1].get("predicted_ms")),
                  file=sys.stderr, flush=True)
    doc = {"app": a.spec, "size": a.size, "cpu_slot": a.cpu, "devices": a.ndev,
           "configs": [{"config": c["config"], "env": c["env"], "samples": samples[c["config"]]} for c in cfgs]}
    with open(os.path.join(out, "sweep.json"), "w") as f:
        json.dump(doc, f, indent=1)
    return 0 if all(s["status"] == "PASS" for v in samples.values() for s in v) else 1


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarise_app(doc, whole_goal):
    rows = []
    for c in doc["configs"]:
        ok = [s for s in c["samples"] if s["status"] == "PASS"]
        cpu_items = [sum(d["work_items"] or 0 for d in s.get("devices", []) if d["device"] == doc["cpu_slot"])
                     for s in ok]
        all_items = [sum(d["work_items"] or 0 for d in s.get("devices", [])) for s in ok]
        share = median([100.0 * x / t for x, t in zip(cpu_items, all_items) if t])
        rows.append({"config": c["config"], "runs": len(c["samples"]), "pass": len(ok),
                     "wall_ms": median([s["wall_ms"] for s in ok]),
                     "wall_min": min([s["wall_ms"] for s in ok if s["wall_ms"] is not None], default=None),
                     "wall_max": max([s["wall_ms"] for s in ok if s["wall_ms"] is not None], default=None),
                     "predicted_ms": median([s.get("predicted_ms") for s in ok]),
                     "cpu_share_measured": share})
    by = {r["config"]: r for r in rows}
    whole = by.get("whole", {}).get("wall_ms")
    sweep = [r for r in rows if r["config"].startswith("cpu") and r["wall_ms"] is not None]
    best = min(sweep, key=lambda r: r["wall_ms"]) if sweep else None
    auto = by.get("auto", {}).get("wall_ms")
    verdict = {}
    if whole and best and auto:
        verdict["best_split"] = best["config"]
        verdict["best_vs_whole"] = whole / best["wall_ms"]
        verdict["auto_vs_whole"] = whole / auto
        verdict["auto_vs_best"] = best["wall_ms"] / auto
        verdict["auto_not_below_whole_goal"] = whole / auto >= whole_goal
        if best["wall_ms"] < whole:
            verdict["auto_within_5pct_of_best"] = auto <= best["wall_ms"] * 1.05
    return {"app": doc["app"], "rows": rows, "verdict": verdict, "all_pass": all(r["pass"] == r["runs"] for r in rows)}


def fmt(x, f="%.1f"):
    return "-" if x is None else f % x


def cmd_report(a):
    apps = []
    for d in sorted(os.listdir(a.out)):
        p = os.path.join(a.out, d, "sweep.json")
        if os.path.exists(p):
            with open(p) as f:
                apps.append(summarise_app(json.load(f), a.whole_goal))
    lines = ["# Split sweep (issue 23): measured and predicted wall time per CPU share", "",
             "Median wall ms of the app's timed region (PASS runs only); predicted = Algorithm 1's time of "
             "the launches it decided (kernel and its transfers, not the app's own writes before them). "
             "CPU % measured = the CPU's share of the work-items that ran.", ""]
    for app in apps:
        lines += ["## %s%s" % (app["app"], "" if app["all_pass"] else " (some runs did not PASS)"), "",
                  "| configuration | wall ms (min-max) | predicted ms | CPU % measured |", "|---|---:|---:|---:|"]
        for r in app["rows"]:
            lines.append("| %s | %s (%s-%s) | %s | %s |" % (r["config"], fmt(r["wall_ms"]), fmt(r["wall_min"]),
                                                         fmt(r["wall_max"]), fmt(r["predicted_ms"], "%.2f"),
                                                         fmt(r["cpu_share_measured"])))
        v = app["verdict"]
        if v:
            lines += ["", "Sweep minimum %s: %.2fx of whole; auto %.2fx of whole, %.2fx of the minimum." % (
                v["best_split"], v["best_vs_whole"], v["auto_vs_whole"], v["auto_vs_best"])]
        lines.append("")
    with open(os.path.join(a.out, "sweep.md"), "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(a.out, "sweep-summary.json"), "w") as f:
        json.dump(apps, f, indent=1)
    print("\n".join(lines))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("spec")
    r.add_argument("apps_dir")
    r.add_argument("lib")
    r.add_argument("db")
    r.add_argument("--shares", default="0,10,20,30,40,50")
    r.add_argument("--repeat", type=int, default=3)
    r.add_argument("--size", default="thesis")
    r.add_argument("--timeout", type=float, default=300)
    r.add_argument("--cpu", type=int, default=0, help="Tutti's slot of the CPU device (tutti-info order)")
    r.add_argument("--gpu", type=int, default=1, help="native device index of the GPU")
    r.add_argument("--ndev", type=int, default=2, help="backing devices under Tutti")
    p = sub.add_parser("report")
    p.add_argument("out")
    p.add_argument("--whole-goal", type=float, default=0.98)
    a = ap.parse_args()
    return cmd_run(a) if a.cmd == "run" else cmd_report(a)


if __name__ == "__main__":
    sys.exit(main())
