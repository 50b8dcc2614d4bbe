"""Markdown tables and PNG plots from the run-set JSON files of a results folder."""
import glob
import json
import math
import os


def load_runsets(folder):
    sets = []
    for path in sorted(glob.glob(os.path.join(folder, "run-*.json"))):
        with open(path) as f:
            data = json.load(f)
        data["_path"] = path
        data["_id"] = os.path.splitext(os.path.basename(path))[0]
        sets.append(data)
    sets.sort(key=lambda d: d.get("created", ""), reverse=True)
    return sets


def _ok(entry):
    return entry.get("failed", 1) == 0 and entry.get("passed", 0) > 0 and entry.get("wall_ms")


def analyze(data):
    """Per app: fastest native configuration and each mode's speedup over it."""
    mode_names = [m["name"] for m in data.get("modes", [])]
    apps = {}
    for e in data.get("runs", []):
        apps.setdefault(e["app"], []).append(e)
    rows = []
    for app in sorted(apps):
        entries = apps[app]
        natives = [e for e in entries if e["kind"] == "native" and _ok(e)]
        fastest = min(natives, key=lambda e: e["wall_ms"]["median"]) if natives else None
        row = {"app": app, "fastest": fastest, "modes": {}, "entries": entries}
        for name in mode_names:
            me = next((e for e in entries if e.get("mode") == name), None)
            if me is None:
                continue
            sp = None
            if fastest and _ok(me) and me["wall_ms"]["median"] > 0:
                sp = fastest["wall_ms"]["median"] / me["wall_ms"]["median"]
            row["modes"][name] = {"entry": me, "speedup": sp}
        rows.append(row)
    return mode_names, rows


def _fmt(v, digits=3):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return "%.1f" % v
    return ("%." + str(digits) + "g") % v


def _geomean(vals):
    vals = [v for v in vals if v and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def _label(entry):
    if entry["kind"] == "native":
        return "%s (dev %d)" % (entry.get("device") or "?", entry["device_index"])
    return entry["config"]


def _num(d, key):
    v = d.get(key)
    return v if isinstance(v, (int, float)) else None


def _tutti_device_stats(entry):
    """{device label: {kernels, kernel_ms, h2d_bytes, d2h_bytes}} from the 'TUTTI device=...'
    stats lines of the first passing sample (runtime/stats.cpp writes them at exit)."""
    for s in entry.get("samples", []):
        if s.get("status") != "PASS":
            continue
        out = {}
        for i, d in enumerate(s.get("tutti_stats", [])):
            ms = _num(d, "kernel_ms")
            if ms is None and _num(d, "kernel_ns") is not None:
                ms = d["kernel_ns"] / 1e6
            if ms is None:
                continue
            dev, name = d.get("device", i), d.get("name")
            label = "%s: %s" % (dev, name) if name else str(dev)
            out[label] = {"kernel_ms": ms, "kernels": _num(d, "kernels"),
                          "h2d_bytes": _num(d, "h2d_bytes"), "d2h_bytes": _num(d, "d2h_bytes")}
        if out:
            return out
    return {}


def _tutti_device_times(entry):
    return {k: v["kernel_ms"] for k, v in _tutti_device_stats(entry).items()}


# -------------------------------------------------------------- plots ---

def make_plots(data, folder, prefix):
    """Writes the PNGs; returns [(title, filename)].  Raises ImportError without matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mode_names, rows = analyze(data)
    out = []
    if not rows:
        return out
    apps = [r["app"] for r in rows]
    # All configurations present in the run set, natives first.
    cfgs = []
    for r in rows:
        for e in r["entries"]:
            if e["config"] not in [c[0] for c in cfgs]:
                cfgs.append((e["config"], _label(e) if e["kind"] == "native" else e["config"], e["kind"]))
    cfgs.sort(key=lambda c: (c[2] != "native", c[0]))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    width = 0.8 / max(1, len(cfgs))
    figw = max(8, 0.45 * len(apps) * max(1, len(cfgs)) + 3)

    # 1. Speedup over the fastest single device (natives show how far each device is from it).
    fig, ax = plt.subplots(figsize=(figw, 5))
    all_ys = []
    for ci, (cfg, label, kind) in enumerate(cfgs):
        ys = []
        for r in rows:
            e = next((x for x in r["entries"] if x["config"] == cfg), None)
            f = r["fastest"]
            ys.append(f["wall_ms"]["median"] / e["wall_ms"]["median"]
                      if (e and f and _ok(e) and e["wall_ms"]["median"] > 0) else 0.0)
        all_ys += [y for y in ys if y > 0]
        xs = [i + (ci - (len(cfgs) - 1) / 2) * width for i in range(len(apps))]
        ax.bar(xs, ys, width, label=label, color=colors[ci % len(colors)],
               hatch=None if kind == "tutti" else "//", alpha=1.0 if kind == "tutti" else 0.55)
    ax.axhline(1.0, color="black", linewidth=0.8)
    if all_ys and min(all_ys) < 0.05:
        ax.set_yscale("log")  # a slow device (e.g. a CPU next to a GPU) would flatten the rest
    ax.set_xticks(range(len(apps)))
    ax.set_xticklabels(apps, rotation=35, ha="right")
    ax.set_ylabel("speedup over fastest single device (wall time)")
    ax.set_title("%s: profile %s, size %s" % (prefix, data.get("profile"), data.get("size")))
    ax.legend(fontsize=8)
    fig.tight_layout()
    name = "%s-speedup.png" % prefix
    fig.savefig(os.path.join(folder, name), dpi=110)
    plt.close(fig)
    out.append(("Speedup over the fastest single device", name))

    # 2. Time breakdown: share of each configuration's median wall time spent in
    #    kernels (sum of kernel events, capped at the wall time) and elsewhere
    #    (transfers, host work, scheduling); the median wall time is printed on top.
    fig, ax = plt.subplots(figsize=(figw, 5))
    for ci, (cfg, label, kind) in enumerate(cfgs):
        ks, rest, walls = [], [], []
        for r in rows:
            e = next((x for x in r["entries"] if x["config"] == cfg), None)
            if e and _ok(e) and e["wall_ms"]["median"] > 0:
                w = e["wall_ms"]["median"]
                k = min((e.get("kernel_ms") or {}).get("median") or 0.0, w)
                ks.append(100.0 * k / w)
                rest.append(100.0 * (w - k) / w)
                walls.append(w)
            else:
                ks.append(0.0)
                rest.append(0.0)
                walls.append(None)
        xs = [i + (ci - (len(cfgs) - 1) / 2) * width for i in range(len(apps))]
        c = colors[ci % len(colors)]
        ax.bar(xs, ks, width, color=c, label="%s: kernels" % label)
        ax.bar(xs, rest, width, bottom=ks, color=c, alpha=0.35, hatch="..", label="%s: other" % label)
        for x, w in zip(xs, walls):
            if w is not None:
                ax.text(x, 101, _fmt(w), ha="center", va="bottom", fontsize=6, rotation=90)
    ax.set_ylim(0, 125)
    ax.set_xticks(range(len(apps)))
    ax.set_xticklabels(apps, rotation=35, ha="right")
    ax.set_ylabel("% of median wall time (wall ms on top)")
    ax.set_title("Time breakdown: sum of kernel events vs the rest (transfers, host, scheduling)")
    ax.legend(fontsize=7, ncol=2, loc="lower right")
    fig.tight_layout()
    name = "%s-breakdown.png" % prefix
    fig.savefig(os.path.join(folder, name), dpi=110)
    plt.close(fig)
    out.append(("Time breakdown", name))

    # 3. Where Tutti ran the kernels (from its stats lines), per mode.
    for m in mode_names:
        per_app = {r["app"]: _tutti_device_times(r["modes"][m]["entry"]) for r in rows if m in r["modes"]}
        devs = sorted({d for v in per_app.values() for d in v})
        if not devs:
            continue
        fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(apps) + 3), 5))
        totals = [sum(per_app.get(a, {}).values()) for a in apps]
        bottom = [0.0] * len(apps)
        for di, d in enumerate(devs):
            ys = [100.0 * per_app.get(a, {}).get(d, 0.0) / t if t > 0 else 0.0 for a, t in zip(apps, totals)]
            ax.bar(range(len(apps)), ys, 0.6, bottom=bottom, label=d, color=colors[di % len(colors)])
            bottom = [b + y for b, y in zip(bottom, ys)]
        for i, t in enumerate(totals):
            if t > 0:
                ax.text(i, 101, "%s ms" % _fmt(t), ha="center", va="bottom", fontsize=7)
        ax.set_ylim(0, 115)
        ax.set_xticks(range(len(apps)))
        ax.set_xticklabels(apps, rotation=35, ha="right")
        ax.set_ylabel("% of kernel time per backing device (total on top)")
        ax.set_title("%s: kernel time by device (TUTTI stats)" % m)
        ax.legend(fontsize=8)
        fig.tight_layout()
        name = "%s-devices-%s.png" % (prefix, m)
        fig.savefig(os.path.join(folder, name), dpi=110)
        plt.close(fig)
        out.append(("%s: kernel time per device" % m, name))
    return out


# ----------------------------------------------------------- markdown ---

def _machine_md(data):
    m = data.get("machine", {})
    cpu, mem, osi = m.get("cpu", {}), m.get("memory", {}), m.get("os", {})
    lines = []
    gib = (mem.get("total_bytes") or 0) / 2 ** 30
    lines.append("- CPU: %s, %s logical CPUs (%s usable), %.1f GiB RAM; %s, kernel %s" % (
        cpu.get("model"), cpu.get("logical_cpus"), cpu.get("usable_cpus"), gib, osi.get("pretty_name"),
        osi.get("kernel")))
    for d in m.get("opencl_devices", []):
        lines.append("- OpenCL device %s: %s [%s] %s, driver %s%s" % (
            d.get("index"), d.get("name"), d.get("platform"), d.get("type", ""), d.get("driver_version", "?"),
            ", %.1f GiB" % (d["global_mem_bytes"] / 2 ** 30) if d.get("global_mem_bytes") else ""))
    for g in m.get("nvidia_smi") or []:
        lines.append("- nvidia-smi: %s, driver %s, %s" % (g["name"], g["driver_version"], g["memory"]))
    t = m.get("tutti", {})
    lib = t.get("library") or {}
    lines.append("- Tutti: commit %s%s; library %s" % (
        (t.get("commit") or "unknown")[:12], " (dirty)" if t.get("dirty") else "",
        lib.get("path", "not used")))
    env = m.get("env") or {}
    if env:
        lines.append("- Environment: " + ", ".join("%s=%s" % kv for kv in sorted(env.items())))
    return lines


def runset_markdown(data, plots):
    mode_names, rows = analyze(data)
    md = ["## Run set %s" % data["_id"], "",
          "Profile **%s**, size **%s**, %s runs per configuration, created %s." % (
              data.get("profile"), data.get("size"), data.get("repeat"), data.get("created")), ""]
    md += _machine_md(data) + [""]
    md += ["### Speedup over the fastest single device", "",
           "Wall time (buffer creation to final read, as each app reports it), median of the runs. "
           "Speedup = fastest single device's median / the mode's median.", ""]
    head = ["App", "Fastest single device", "Median wall ms"]
    for m in mode_names:
        head += ["%s wall ms" % m, "%s speedup" % m]
    md.append("| " + " | ".join(head) + " |")
    md.append("|" + "---|" * len(head))
    speedups = {m: [] for m in mode_names}
    for r in rows:
        f = r["fastest"]
        cells = [r["app"], _label(f) if f else "none passed", _fmt(f["wall_ms"]["median"]) if f else "-"]
        for m in mode_names:
            mm = r["modes"].get(m)
            if not mm:
                cells += ["-", "-"]
                continue
            e = mm["entry"]
            if not _ok(e):
                cells += ["FAIL (%d/%d passed)" % (e.get("passed", 0), e.get("passed", 0) + e.get("failed", 0)), "-"]
                continue
            cells += [_fmt(e["wall_ms"]["median"]), "%.2fx" % mm["speedup"] if mm["speedup"] else "-"]
            if mm["speedup"]:
                speedups[m].append(mm["speedup"])
        md.append("| " + " | ".join(cells) + " |")
    if mode_names:
        cells = ["**geomean**", "", ""]
        for m in mode_names:
            g = _geomean(speedups[m])
            cells += ["", "**%.2fx**" % g if g else "-"]
        md.append("| " + " | ".join(cells) + " |")
    md.append("")
    for title, name in plots:
        md += ["![%s](%s)" % (title, name), ""]
    md += ["### All configurations", "",
           "| App | Config | Device | Passed | Wall ms median | min | max | stdev | Kernel ms median |",
           "|---|---|---|---|---|---|---|---|---|"]
    fails = []
    for r in rows:
        for e in r["entries"]:
            w, k = e.get("wall_ms") or {}, e.get("kernel_ms") or {}
            dev = e.get("device") if e["kind"] == "native" else ", ".join(
                sorted({s.get("result_device") or "?" for s in e.get("samples", [])}))
            md.append("| %s | %s | %s | %d/%d | %s | %s | %s | %s | %s |" % (
                r["app"], e["config"], dev, e.get("passed", 0), e.get("passed", 0) + e.get("failed", 0),
                _fmt(w.get("median")), _fmt(w.get("min")), _fmt(w.get("max")), _fmt(w.get("stdev")),
                _fmt(k.get("median"))))
            for s in e.get("samples", []):
                if s["status"] != "PASS":
                    tail = (s.get("stderr_tail") or s.get("stdout_tail") or "").strip().splitlines()
                    fails.append("- %s / %s: %s (rc %s)%s" % (r["app"], e["config"], s["status"], s["rc"],
                                                            ": `%s`" % tail[-1][:200] if tail else ""))
    md.append("")
    for m in mode_names:
        stat_rows = []
        for r in rows:
            mm = r["modes"].get(m)
            for dev, st in sorted(_tutti_device_stats(mm["entry"]).items()) if mm else []:
                mib = lambda b: "-" if b is None else "%.1f" % (b / 2 ** 20)
                stat_rows.append("| %s | %s | %s | %s | %s | %s |" % (
                    r["app"], dev, "-" if st["kernels"] is None else st["kernels"], _fmt(st["kernel_ms"]),
                    mib(st["h2d_bytes"]), mib(st["d2h_bytes"])))
        if stat_rows:
            md += ["### %s: where Tutti ran the kernels (TUTTI stats, first passing run)" % m, "",
                   "| App | Backing device | Kernels | Kernel ms | H2D MiB | D2H MiB |",
                   "|---|---|---|---|---|---|"] + stat_rows + [""]
    if data.get("skipped"):
        md += ["### Skipped", ""] + ["- %s" % s for s in data["skipped"]] + [""]
    if fails:
        md += ["### Failures", ""] + fails + [""]
    return md


def render(folder, log=None):
    """Writes folder/report.md (+ PNGs); returns (path, [png files], plots_skipped_reason)."""
    sets = load_runsets(folder)
    if not sets:
        raise FileNotFoundError("no run-*.json in %s" % folder)
    md = ["# Tutti benchmark report", ""]
    pngs, skipped = [], None
    for data in sets:
        plots = []
        try:
            plots = make_plots(data, folder, data["_id"])
        except ImportError as e:
            skipped = "matplotlib not available (%s): no plots" % e
        pngs += [p[1] for p in plots]
        md += runset_markdown(data, plots)
    if skipped:
        md += ["_%s_" % skipped, ""]
    path = os.path.join(folder, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(md))
    return path, pngs, skipped
