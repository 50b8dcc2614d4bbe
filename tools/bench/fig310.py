#!/usr/bin/env python3
"""fig310.py: summarise a fig310.sh results folder (thesis Fig. 3.10, SKMD vs. single devices).

    python3 fig310.py OUT_DIR [--goal 0.98]

Reads the newest OUT_DIR/<app>/run-*.json of each app (bench.py run: natively on each
device, then tutti-skmd and tutti-skmd-linear on that app's profile database) and writes
OUT_DIR/fig310.json and fig310.md (also to stdout):
- per app the fastest single device and its median wall ms, each mode's median wall ms and
  speedup (fastest single / mode), as bench.py report does (benchlib/report.analyze);
- Fig. 3.10(b), the work split: per mode the share of work-items each backing device ran
  (`work_items=` of the `TUTTI device=` stats lines, summed over the passing runs), and the
  median `split_launches`, `model_decisions`, `probes` per run;
- geometric mean and minimum speedup per mode, and whether SKMD reached --goal (0.98) times
  the fastest single device on every app.
Apps whose folder has a note.txt (fig310.sh: profiling failed, skipped) are listed with it.
"""
import argparse
import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import report  # noqa: E402

SKMD, LINEAR = "tutti-skmd", "tutti-skmd-linear"
COUNTERS = ("split_launches", "merged_launches", "model_decisions", "probes")


def _passed(entry):
    return [s for s in entry.get("samples", []) if s.get("status") == "PASS"]


def work_split(entry):
    """[{device, name, work_items, pct}] by backing device over the passing runs, or None
    when the library printed no work_items (built before it did)."""
    per = {}
    for s in _passed(entry):
        for d in s.get("tutti_stats", []):
            if "device" in d and isinstance(d.get("work_items"), int):
                key = (d["device"], d.get("name", ""))
                per[key] = per.get(key, 0) + d["work_items"]
    total = sum(per.values())
    if not per:
        return None
    return [{"device": dev, "name": name, "work_items": n,
             "pct": 100.0 * n / total if total else None} for (dev, name), n in sorted(per.items())]


def counters(entry):
    """Median per run of the SKMD counters (`TUTTI split_launches=...` line)."""
    out = {}
    for k in COUNTERS:
        vals = [d[k] for s in _passed(entry) for d in s.get("tutti_stats", [])
                if isinstance(d.get(k), (int, float))]
        out[k] = statistics.median(vals) if vals else None
    return out


def read_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f if line.strip()]
    except OSError:
        return []


def app_summary(folder):
    app = os.path.basename(folder)
    row = {"app": app, "note": " ".join(read_lines(os.path.join(folder, "note.txt"))) or None,
           "profiled": [dict(zip(("tag", "args"), l.split("\t", 1)))
                        for l in read_lines(os.path.join(folder, "profiled.tsv"))],
           "fastest": None, "natives": [], "modes": {}}
    sets = report.load_runsets(folder)
    if not sets:
        return row
    data = sets[0]  # newest
    row.update(run_set=os.path.relpath(data["_path"], os.path.dirname(folder)), size=data.get("size"),
               repeat=data.get("repeat"))
    _, rows = report.analyze(data)
    r = next((x for x in rows if x["app"] == app), rows[0] if rows else None)
    if r is None:
        return row
    for e in r["entries"]:
        if e["kind"] == "native":
            row["natives"].append({"config": e["config"], "device": e.get("device"),
                                   "wall_ms": (e.get("wall_ms") or {}).get("median"),
                                   "failed": e.get("failed")})
    f = r["fastest"]
    if f:
        row["fastest"] = {"config": f["config"], "device": f.get("device"),
                          "wall_ms": f["wall_ms"]["median"]}
    for name, m in r["modes"].items():
        e = m["entry"]
        mode = {"wall_ms": (e.get("wall_ms") or {}).get("median"), "speedup": m["speedup"],
                "passed": e.get("passed"), "failed": e.get("failed"), "split": work_split(e)}
        mode.update(counters(e))
        row["modes"][name] = mode
    return row


def summarise(out_dir, goal):
    folders = sorted(d for d in glob.glob(os.path.join(out_dir, "*")) if os.path.isdir(d) and (
        glob.glob(os.path.join(d, "run-*.json")) or os.path.exists(os.path.join(d, "note.txt"))))
    apps = [app_summary(d) for d in folders]
    measured = [a for a in apps if a["modes"]]
    per_mode = {}
    for mode in all_modes(measured):
        got = [(a["app"], a["modes"][mode]["speedup"]) for a in measured if mode in a["modes"]]
        ok = [(n, s) for n, s in got if s]
        worst = min(ok, key=lambda x: x[1]) if ok else (None, None)
        per_mode[mode] = {"apps": len(got), "failed": [n for n, s in got if not s],
                          "geomean": report._geomean([s for _, s in ok]),
                          "min": worst[1], "min_app": worst[0]}
    sk = [(a["app"], a["modes"].get(SKMD, {}).get("speedup")) for a in measured]
    below = [(n, s) for n, s in sk if not s or s < goal]
    held = bool(sk) and not below
    if not sk:
        line = "Goal (SKMD >= %.2fx the fastest single device on every app): no SKMD runs." % goal
    elif held:
        line = ("Goal (SKMD >= %.2fx the fastest single device on every app): held on all %d apps "
                "(min %.2fx, %s)." % (goal, len(sk), per_mode[SKMD]["min"], per_mode[SKMD]["min_app"]))
    else:
        line = ("Goal (SKMD >= %.2fx the fastest single device on every app): NOT held on %d of %d "
                "apps: %s." % (goal, len(below), len(sk), ", ".join(
                    "%s %s" % (n, "%.2fx" % s if s else "failed") for n, s in below)))
    missing = [a["app"] for a in apps if not a["modes"]]
    if missing:
        line += " Not measured: %s." % ", ".join(missing)
    return {"schema": "tutti-fig310/1", "goal": goal, "goal_held": held, "goal_line": line,
            "modes": per_mode, "apps": apps}


def all_modes(apps):
    """SKMD and linear first, then any other mode that was run (e.g. tutti-whole)."""
    seen = {m for a in apps for m in a["modes"]}
    return [m for m in (SKMD, LINEAR) if m in seen] + sorted(seen - {SKMD, LINEAR})


def _f(v, fmt="%.3g"):
    return "-" if v is None else (("%.1f" % v) if fmt == "%.3g" and abs(v) >= 100 else fmt % v)


def markdown(s):
    out = ["# Fig. 3.10: SKMD and linear partitioning vs. the fastest single device", "",
           "**%s**" % s["goal_line"], ""]
    for mode, m in s["modes"].items():
        out.append("- %s: geomean %s, min %s%s over %d apps%s" % (
            mode, _f(m["geomean"], "%.2fx"), _f(m["min"], "%.2fx"),
            " (%s)" % m["min_app"] if m["min_app"] else "", m["apps"],
            "; failed: " + ", ".join(m["failed"]) if m["failed"] else ""))
    out += ["", "Median wall ms; speedup = fastest single device / mode.", "",
            "| App | Fastest single device | ms | SKMD ms | SKMD speedup | linear ms "
            "| linear speedup | size x runs |", "|---|---|---:|---:|---:|---:|---:|---|"]
    for a in s["apps"]:
        if not a["modes"] and not a["fastest"]:
            continue
        f = a["fastest"] or {}
        sk, li = a["modes"].get(SKMD, {}), a["modes"].get(LINEAR, {})
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s x %s |" % (
            a["app"], "%s (%s)" % (f.get("device"), f.get("config")) if f else "none passed",
            _f(f.get("wall_ms")), _f(sk.get("wall_ms")), _f(sk.get("speedup"), "%.2fx"),
            _f(li.get("wall_ms")), _f(li.get("speedup"), "%.2fx"), a.get("size"), a.get("repeat")))
    others = [m for m in s["modes"] if m not in (SKMD, LINEAR)]
    if others:
        out += ["", "Other modes, median wall ms and speedup:", "",
                "| App | " + " | ".join("%s ms | %s speedup" % (m, m) for m in others) + " |",
                "|---|" + "---:|---:|" * len(others)]
        for a in s["apps"]:
            if a["modes"]:
                out.append("| %s | %s |" % (a["app"], " | ".join(
                    "%s | %s" % (_f(a["modes"].get(m, {}).get("wall_ms")),
                                 _f(a["modes"].get(m, {}).get("speedup"), "%.2fx")) for m in others)))
    devices = []
    for a in s["apps"]:
        for m in a["modes"].values():
            for d in m["split"] or []:
                if (d["device"], d["name"]) not in devices:
                    devices.append((d["device"], d["name"]))
    devices.sort()
    heads = ["%s: %s" % d for d in devices] or ["split"]
    out += ["", "## Work split (Fig. 3.10b): % of work-items per backing device", "",
            "| App | mode | " + " | ".join(heads) + " | split launches | model decisions | probes |",
            "|---|---|" + "---:|" * (len(heads) + 3)]
    for a in s["apps"]:
        for mode in s["modes"]:
            m = a["modes"].get(mode)
            if not m:
                continue
            pct = {(d["device"], d["name"]): d["pct"] for d in m["split"] or []}
            # No work_items: a libtutti.so that predates them.
            cells = [_f(pct.get(d), "%.1f") for d in devices] if m["split"] else \
                ["no work_items"] + [""] * (len(heads) - 1)
            out.append("| %s | %s | %s | %s | %s | %s |" % (
                a["app"], mode, " | ".join(cells), _f(m["split_launches"], "%g"),
                _f(m["model_decisions"], "%g"), _f(m["probes"], "%g")))
    notes = [a for a in s["apps"] if a["note"] or not a["modes"]]
    if notes:
        out += ["", "## Not measured or incomplete", ""]
        out += ["- %s: %s" % (a["app"], a["note"] or "no Tutti runs") for a in notes]
    prof = [a for a in s["apps"] if a["profiled"]]
    if prof:
        out += ["", "## Profiled at (TUTTI_PROFILE=1, fresh database per app)", ""]
        out += ["- %s: %s" % (a["app"], "; ".join("`%s`" % p.get("args", "") for p in a["profiled"]))
                for a in prof]
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--goal", type=float, default=0.98, help="minimum SKMD speedup (default 0.98)")
    a = ap.parse_args(argv)
    s = summarise(a.out_dir, a.goal)
    if not s["apps"]:
        print("fig310: no app results under %s" % a.out_dir, file=sys.stderr)
        return 1
    md = markdown(s)
    sys.stdout.write(md)
    with open(os.path.join(a.out_dir, "fig310.md"), "w", encoding="utf-8") as f:
        f.write(md)
    with open(os.path.join(a.out_dir, "fig310.json"), "w", encoding="utf-8") as f:
        json.dump(s, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
