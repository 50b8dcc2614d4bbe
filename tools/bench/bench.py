#!/usr/bin/env python3
"""Tutti benchmark harness.

  bench.py run --profile quick|full --out DIR [--apps a,b] [--repeat N] [--build BUILD_DIR]
               [--size tiny|small|thesis] [--devices all|none|0,2] [--modes all|none|m1,m2]
               [--tutti PATH/libtutti.so] [--timeout S] [--profile-db FILE]
      Runs every app natively on each real OpenCL device (--device N) and under
      Tutti (LD_PRELOAD) for each registered mode (benchlib/modes.py), N times
      each; writes DIR/run-<time>-<profile>.json.  Exit status 1 if any run did
      not PASS.  --timeout overrides the profile's seconds per run; with
      --profile-db every Tutti run (warm-up too) gets a fresh copy of FILE as
      TUTTI_PROFILE_DB, so SKMD decides on those profiles alone (fig310.sh).
  bench.py report DIR
      Renders DIR/report.md (speedup table per app and mode, all configurations)
      and PNG plots from every run-*.json in DIR.
  bench.py list [--build BUILD_DIR]
      Shows the apps, real devices, Tutti library and modes that `run` would use.

Only the Python 3 standard library is needed; `report` uses matplotlib for the
plots when importable (from this interpreter or /usr/bin/python3).
"""
import argparse
import datetime
import json
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from benchlib import machine, modes as modes_mod, profiles, report, runner  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", ".."))


def default_build():
    for cand in (os.environ.get("TUTTI_BUILD"), os.path.join(REPO, "build")):
        if cand and os.path.isdir(cand):
            return cand
    return os.path.join(REPO, "build")


def select_devices(devices, spec):
    if spec in (None, "all"):
        return devices
    if spec in ("", "none"):
        return []
    want = {int(x) for x in spec.split(",")}
    return [d for d in devices if d["index"] in want]


def setup(args):
    apps_dir, apps, devinfo = runner.discover(args.build)
    tutti = runner.find_tutti(args.build, args.tutti)
    devices, source = machine.enumerate_devices(devinfo, next(iter(apps.values()), None))
    return apps_dir, apps, devinfo, tutti, devices, source


def cmd_list(args):
    apps_dir, apps, devinfo, tutti, devices, source = setup(args)
    print("apps (%s): %s" % (apps_dir, ", ".join(apps) or "none"))
    print("devices (from %s):" % source)
    for d in devices:
        print("  %d: %s [%s] %s" % (d["index"], d.get("name"), d.get("platform"), d.get("type", "")))
    print("tutti: %s" % (tutti or "not found"))
    for m in modes_mod.MODES:
        print("mode %s: %s  (%s)" % (m.name, " ".join("%s=%s" % kv for kv in m.env.items()), m.help))
    return 0


def cmd_run(args):
    prof = profiles.PROFILES[args.profile]
    if args.timeout:
        prof = prof._replace(timeout_s=args.timeout)
    size = args.size or prof.size
    repeat = args.repeat or prof.repeat
    apps_dir, apps, devinfo, tutti, devices, source = setup(args)
    if not apps:
        sys.stderr.write("bench: no app binaries under %s (build the apps first)\n" % args.build)
        return 2
    if args.apps:
        want = [a.strip() for a in args.apps.split(",") if a.strip()]
        missing = [a for a in want if a not in apps]
        if missing:
            sys.stderr.write("bench: unknown apps %s (have: %s)\n" % (", ".join(missing), ", ".join(apps)))
            return 2
        apps = {a: apps[a] for a in want}
    skipped = []
    try:
        modes = modes_mod.by_name(args.modes)
    except ValueError as e:
        sys.stderr.write("bench: %s\n" % e)
        return 2
    if modes and not tutti:
        skipped.append("Tutti modes %s: libtutti.so not found under %s" % (
            ", ".join(m.name for m in modes), args.build))
        sys.stderr.write("bench: %s\n" % skipped[-1])
        modes = []
    native = select_devices(devices, args.devices)
    cfgs = runner.configs(native, modes, tutti, args.profile_db)
    if not cfgs:
        sys.stderr.write("bench: nothing to run (no devices selected and no Tutti mode)\n")
        return 2

    os.makedirs(args.out, exist_ok=True)
    created = datetime.datetime.now(datetime.timezone.utc)
    data = {
        "schema": "tutti-bench/1",
        "created": created.isoformat(timespec="seconds"),
        "profile": prof.name,
        "size": size,
        "repeat": repeat,
        "interleave": bool(args.interleave),
        "warmup": prof.warmup,
        "timeout_s": prof.timeout_s,
        "profile_db": args.profile_db and os.path.abspath(args.profile_db),
        "apps_dir": apps_dir,
        "apps": sorted(apps),
        "modes": [{"name": m.name, "env": dict(modes_mod.TUTTI_ENV_ALL, **m.env), "help": m.help} for m in modes],
        "machine": machine.describe(REPO, devices, source, tutti if modes else None),
        "skipped": skipped,
        "runs": [],
    }
    path = os.path.join(args.out, "run-%s-%s.json" % (created.strftime("%Y%m%d-%H%M%S"), prof.name))
    sys.stderr.write("bench: %d apps x %d configurations x %d runs, size %s -> %s\n" % (
        len(apps), len(cfgs), repeat, size, path))

    def save():
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1)
        os.replace(tmp, path)

    for name in sorted(apps):
        if args.interleave:
            data["runs"].extend(runner.run_configs(name, apps[name], cfgs, prof, size, repeat, True))
            save()
            continue
        for cfg in cfgs:
            data["runs"].append(runner.run_config(name, apps[name], cfg, prof, size, repeat))
            save()  # partial results survive an interrupted run
    failed = [(e["app"], e["config"], e["failed"]) for e in data["runs"] if e["failed"]]
    data["failed_configs"] = len(failed)
    save()
    _, rows = report.analyze(data)
    for r in rows:
        f = r["fastest"]
        parts = ["%-24s fastest %s" % (r["app"], "%s %.3f ms" % (f["config"], f["wall_ms"]["median"]) if f else "none")]
        for m, mm in r["modes"].items():
            parts.append("%s %s" % (m, "%.2fx" % mm["speedup"] if mm["speedup"] else "FAIL"))
        sys.stderr.write("  ".join(parts) + "\n")
    sys.stderr.write("bench: wrote %s\n" % path)
    if failed:
        sys.stderr.write("bench: %d configurations had failing runs: %s\n" % (
            len(failed), ", ".join("%s/%s (%d)" % f for f in failed)))
        return 1
    return 0


def _python_with_matplotlib():
    for cand in ("/usr/bin/python3",):
        if os.path.exists(cand) and os.path.realpath(cand) != os.path.realpath(sys.executable):
            if subprocess.call([cand, "-c", "import matplotlib"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL) == 0:
                return cand
    return None


def cmd_report(args):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        other = _python_with_matplotlib()
        if other and not os.environ.get("TUTTI_BENCH_REEXEC"):
            env = dict(os.environ, TUTTI_BENCH_REEXEC="1")
            return subprocess.call([other, os.path.abspath(__file__), "report", args.dir], env=env)
    try:
        path, pngs, skipped = report.render(args.dir)
    except FileNotFoundError as e:
        sys.stderr.write("bench: %s\n" % e)
        return 2
    if skipped:
        sys.stderr.write("bench: %s\n" % skipped)
    print(path)
    for p in pngs:
        print(os.path.join(args.dir, p))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description="Tutti benchmark harness", formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__)
    sub = ap.add_subparsers(dest="cmd")
    r = sub.add_parser("run", help="run the apps and write a run-set JSON")
    r.add_argument("--profile", choices=sorted(profiles.PROFILES), default="quick")
    r.add_argument("--out", required=True, help="results folder")
    r.add_argument("--apps", help="comma list of app names (default: all found)")
    r.add_argument("--repeat", type=int, help="runs per app and configuration (default: the profile's)")
    r.add_argument("--interleave", action="store_true",
                   help="alternate the configurations run by run (native and Tutti runs then "
                        "see the same machine drift) instead of all runs of one, then the next")
    r.add_argument("--size", choices=["tiny", "small", "thesis"], help="override the profile's size")
    r.add_argument("--build", default=default_build(), help="build folder (or bundle root) holding the apps")
    r.add_argument("--devices", default="all", help="native devices: all, none or a comma list of indices")
    r.add_argument("--modes", default="all", help="Tutti modes: all, none or a comma list")
    r.add_argument("--tutti", help="path of libtutti.so (default: searched under --build)")
    r.add_argument("--timeout", type=float, help="seconds per run (default: the profile's)")
    r.add_argument("--profile-db", help="SKMD profile database: each Tutti run gets a fresh copy")
    rp = sub.add_parser("report", help="render report.md and PNGs from a results folder")
    rp.add_argument("dir")
    ls = sub.add_parser("list", help="show apps, devices, Tutti library and modes")
    ls.add_argument("--build", default=default_build())
    ls.add_argument("--tutti")
    args = ap.parse_args(argv)
    if args.cmd == "run":
        if args.repeat is not None and args.repeat < 1:
            ap.error("--repeat must be >= 1")
        return cmd_run(args)
    if args.cmd == "report":
        return cmd_report(args)
    if args.cmd == "list":
        return cmd_list(args)
    ap.print_help()
    return 2


def _exit_on_sigterm(signum, frame):
    raise SystemExit(128 + signum)  # unwinds through the runner, which kills the running app


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    sys.exit(main())
