#!/usr/bin/env python3
"""accuracy.py: summarise TUTTI_PROFILE=validate records (prediction error, thesis Table 3.3).

    python3 accuracy.py [--threshold-ms 10] [--md OUT.md] [--json OUT.json] FILE.jsonl...

Each input line is one record written by TUTTI_PROFILE=validate (runtime/profile_mode.cpp):
a measurement of `groups` work-groups of a kernel launch on one device (`measured_ms`),
the stored model's prediction for it (`predicted_ms`, null without a model) and the
measured time of the whole launch on that device (`whole_ms`); or a `skipped` record for
a kernel or device that could not be validated.

Error of a record: |predicted_ms - measured_ms| / measured_ms * 100.  Records without a
prediction ("no model") or without a measurement ("failed") are counted, not averaged.

Headline: the mean error over every record whose launch took more than --threshold-ms
(default 10) on that device when run whole (`whole_ms`), the thesis' "kernels above
10 ms"; the thesis' goal is below 3 %.  The markdown goes to stdout (and --md).
"""
import argparse
import json
import math
import statistics
import sys

DEFINITION = ("mean over records of |predicted - measured| / measured, where the record's "
              "whole launch (all work-groups) took more than {t:g} ms on that device (whole_ms)")


def load(paths):
    """Measurement records and skipped records from JSON-lines files."""
    records, skipped = [], []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except ValueError as e:
                    raise SystemExit(f"accuracy: {path}:{n}: not JSON ({e})")
                (skipped if "skipped" in r else records).append(r)
    return records, skipped


def number(v):
    return v if isinstance(v, (int, float)) and math.isfinite(v) else None


def error_pct(r, key="predicted_ms"):
    m, p = number(r.get("measured_ms")), number(r.get(key))
    if m is None or p is None or m <= 0:
        return None
    return abs(p - m) / m * 100


def stats(errors):
    """mean/median/max of error percentages (None when there are none)."""
    if not errors:
        return {"records": 0, "mean_abs_error_pct": None, "median_abs_error_pct": None,
                "max_abs_error_pct": None}
    return {"records": len(errors), "mean_abs_error_pct": sum(errors) / len(errors),
            "median_abs_error_pct": statistics.median(errors), "max_abs_error_pct": max(errors)}


def summarise(records, skipped, threshold_ms):
    groups = {}
    for r in records:
        key = (r.get("app", ""), r.get("kernel", ""), r.get("device", ""))
        groups.setdefault(key, []).append(r)
    rows = []
    for (app, kernel, device), rs in sorted(groups.items()):
        compared = [r for r in rs if error_pct(r) is not None]
        errors = [error_pct(r) for r in compared]
        row = {"app": app, "kernel": kernel, "device": device}
        row.update(stats(errors))
        row["no_model"] = sum(1 for r in rs if number(r.get("measured_ms")) is not None
                              and number(r.get("predicted_ms")) is None)
        row["failed"] = sum(1 for r in rs if number(r.get("measured_ms")) is None)
        row["models"] = sorted({r.get("model", "?") for r in rs})
        row["mean_measured_ms"] = (sum(r["measured_ms"] for r in compared) / len(compared)
                                   if compared else None)
        # Thesis Fig. 3.12(a): Euclidean distance of the predicted and measured time vectors.
        row["l2_error_ms"] = (math.sqrt(sum((r["predicted_ms"] - r["measured_ms"]) ** 2
                                            for r in compared)) if compared else None)
        wholes = [number(r.get("whole_ms")) for r in rs if number(r.get("whole_ms")) is not None]
        row["whole_ms"] = max(wholes) if wholes else None
        row["above_threshold"] = sum(1 for r in compared if above(r, threshold_ms))
        corrected = [e for e in (error_pct(r, CORRECTED) for r in rs) if e is not None]
        row["corrected_mean_abs_error_pct"] = sum(corrected) / len(corrected) if corrected else None
        rows.append(row)

    def headline(select, key="predicted_ms"):
        chosen = [r for r in records if error_pct(r, key) is not None and select(r)]
        h = stats([error_pct(r, key) for r in chosen])
        h["pairs"] = len({(r.get("app"), r.get("kernel"), r.get("device")) for r in chosen})
        return h

    devices = sorted({r.get("device", "") for r in records})
    return {
        "threshold_ms": threshold_ms,
        "definition": DEFINITION.format(t=threshold_ms),
        "headline": headline(lambda r: above(r, threshold_ms)),
        "headline_per_device": {d: headline(lambda r, d=d: r.get("device", "") == d
                                            and above(r, threshold_ms)) for d in devices},
        "all": headline(lambda r: True),
        "corrected_headline": headline(lambda r: above(r, threshold_ms), CORRECTED),
        "corrected_headline_per_device": {d: headline(lambda r, d=d: r.get("device", "") == d
                                                      and above(r, threshold_ms), CORRECTED)
                                          for d in devices},
        "no_model": sum(row["no_model"] for row in rows),
        "failed": sum(row["failed"] for row in rows),
        "rows": rows,
        "skipped": [{"app": s.get("app", ""), "kernel": s.get("kernel", ""),
                     "device": s.get("device", ""), "reason": s.get("skipped", "")}
                    for s in skipped],
    }


# The runtime's prediction once it has timed one whole launch of the shape (validation
# records carry it since TUTTI_MODEL_CORRECTION): model x measured / predicted whole time.
CORRECTED = "corrected_ms"


def above(r, threshold_ms):
    w = number(r.get("whole_ms"))
    return w is not None and w > threshold_ms


def fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def cell(s):
    return str(s).replace("|", "\\|")


def describe(h, what):
    if not h["records"]:
        return f"no measurements {what}"
    return (f"mean |error| {fmt(h['mean_abs_error_pct'])} % (median "
            f"{fmt(h['median_abs_error_pct'])} %, max {fmt(h['max_abs_error_pct'])} %) over "
            f"{h['records']} measurements of {h['pairs']} kernel-device "
            f"pair{'' if h['pairs'] == 1 else 's'} {what}")


def markdown(s):
    t = s["threshold_ms"]
    out = ["# Prediction error (TUTTI_PROFILE=validate)", "",
           f"**Headline** (kernels above {t:g} ms): "
           + describe(s["headline"], f"whose whole launch took over {t:g} ms on that device") + ".",
           "", f"Definition: {s['definition']}. Thesis goal: below 3 %.", ""]
    for d, h in s["headline_per_device"].items():
        out.append(f"- {cell(d)}: " + describe(h, f"above {t:g} ms"))
    ch = s.get("corrected_headline")
    if ch and ch["records"]:
        out += ["", "With the online correction (TUTTI_MODEL_CORRECTION: the model times "
                "measured / predicted of one whole launch at this size), kernels above "
                f"{t:g} ms: " + describe(ch, "") + "."]
        for d, h in s["corrected_headline_per_device"].items():
            out.append(f"- {cell(d)}: " + describe(h, f"above {t:g} ms"))
    out += ["", "All measurements: " + describe(s["all"], "(any launch time)") + ".",
            f"Without a model: {s['no_model']}; failed runs: {s['failed']}.", "",
            "| app | kernel | device | model | n | mean % | median % | max % | L2 ms "
            "| mean measured ms | whole ms | n > threshold | no model | failed | corrected mean % |",
            "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in s["rows"]:
        out.append("| " + " | ".join(cell(x) for x in (
            r["app"], r["kernel"], r["device"], ",".join(r["models"]), r["records"],
            fmt(r["mean_abs_error_pct"]), fmt(r["median_abs_error_pct"]),
            fmt(r["max_abs_error_pct"]), fmt(r["l2_error_ms"], 3), fmt(r["mean_measured_ms"], 3),
            fmt(r["whole_ms"], 3), r["above_threshold"], r["no_model"], r["failed"],
            fmt(r["corrected_mean_abs_error_pct"]))) + " |")
    if s["skipped"]:
        out += ["", "Not validated (no partition-ready kernel or no scratch run):", "",
                "| app | kernel | device | reason |", "|---|---|---|---|"]
        for k in s["skipped"]:
            out.append("| " + " | ".join(cell(k[x] or "all") for x in
                                          ("app", "kernel", "device", "reason")) + " |")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", metavar="FILE.jsonl")
    ap.add_argument("--threshold-ms", type=float, default=10.0)
    ap.add_argument("--md", help="also write the markdown here")
    ap.add_argument("--json", help="write the summary as JSON here")
    a = ap.parse_args(argv)
    records, skipped = load(a.files)
    if not records and not skipped:
        print("accuracy: no records in " + ", ".join(a.files), file=sys.stderr)
        return 1
    s = summarise(records, skipped, a.threshold_ms)
    md = markdown(s)
    sys.stdout.write(md)
    if a.md:
        with open(a.md, "w", encoding="utf-8") as f:
            f.write(md)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(s, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
