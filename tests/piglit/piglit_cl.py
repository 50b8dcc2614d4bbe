#!/usr/bin/env python3
"""piglit_cl.py - Debian piglit's OpenCL profile, natively on PoCL and under Tutti (issue 21).

Runs piglit's `cl` test list (its API tests and cl-program-tester's kernel tests) once per
configuration, each test as its own process with piglit's own 60 s timeout, and compares:
every test and subtest that passes natively must pass under every Tutti configuration.
Natively the tests run on every PoCL device of POCL_DEVICES (piglit's default: all
devices); under Tutti on its one virtual device.

PoCL's own failures are kept in an expected list (pocl_failures.txt). A native result
that differs from it is reported (the driver or piglit changed) but only a test that
passes natively and not under Tutti fails the run. Results go to --out as JSON.

Usage: piglit_cl.py --lib LIBTUTTI [--part ci|all] [--jobs N] [--out DIR]
                    [--config NAME=VAR=value,VAR=value ...]
"""
import argparse
import ast
import concurrent.futures
import gzip
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

PIGLIT = os.environ.get("PIGLIT_DIR", "/usr/lib/x86_64-linux-gnu/piglit")
HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT_S = 60  # piglit's own for CL tests (framework/test/piglit_test.py)

# Tutti configurations: name -> extra environment. "skmd" forces a split of every launch
# the compiler can partition, so partition-ready and merge kernels see every kernel.
DEFAULT_CONFIGS = {
    "tutti": {},
    "tutti-skmd": {"TUTTI_MODE": "skmd", "TUTTI_PARTITION": "fixed:1,1"},
}


def load_tests():
    """piglit's cl profile: [(name, argv)]."""
    with gzip.open(os.path.join(PIGLIT, "tests", "cl.xml.gz")) as f:
        root = ET.fromstring(f.read())
    tests = []
    for t in root.findall("Test"):
        opts = {o.get("name"): ast.literal_eval(o.get("value")) for o in t.findall("option")}
        if t.get("type") == "cl_prog":
            argv = ["cl-program-tester", os.path.join(PIGLIT, opts["filename"])]
        else:
            argv = list(opts["command"])
        argv[0] = os.path.join(PIGLIT, "bin", argv[0])
        tests.append((t.get("name"), argv))
    return tests


def ci_part(tests):
    """The part CI runs in its time budget: every API and custom test, every build test,
    and every eighth kernel test in name order (a fixed, documented sample: about 150 of
    the profile's 710 tests, some 10 minutes for the three configurations on 2 cores)."""
    kernel = sorted(n for n, _ in tests if n.startswith("program@execute@"))
    sample = set(kernel[::8])
    return [(n, a) for n, a in tests if not n.startswith("program@execute@") or n in sample]


RESULT = re.compile(r'^PIGLIT: (\{.*\})\s*$')


def parse(out):
    """A test's result and {subtest: result} from its PIGLIT: lines."""
    result, subtests = None, {}
    for line in out.splitlines():
        m = RESULT.match(line)
        if not m:
            continue
        try:
            d = json.loads(m.group(1))
        except ValueError:
            continue
        if "result" in d:
            result = d["result"]
        for k, v in d.get("subtest", {}).items():
            # A subtest run on several devices passes only where none failed.
            prev = subtests.get(k)
            if prev is None or (prev in ("pass", "skip") and v not in ("pass", "skip")):
                subtests[k] = v
            elif prev == "skip" and v == "pass":
                subtests[k] = v
    return result, subtests


def run_one(argv, env):
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, env=env, cwd=PIGLIT, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=TIMEOUT_S)
        out = p.stdout.decode("utf-8", "replace")
        result, subtests = parse(out)
        if result is None:
            result = "crash" if p.returncode < 0 else "fail"
        elif p.returncode < 0:
            result = "crash"  # a signal after the result line: heap corruption at exit
        return {"result": result, "subtests": subtests, "rc": p.returncode,
                "seconds": time.monotonic() - t0, "tail": out[-2000:]}
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        return {"result": "timeout", "subtests": parse(out)[1], "rc": None,
                "seconds": time.monotonic() - t0, "tail": out[-2000:]}


def run_config(tests, env, jobs):
    results = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        futs = {ex.submit(run_one, argv, env): name for name, argv in tests}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = f.result()
    return results


def passed(r):
    return r["result"] in ("pass", "warn")


def regressions(native, tutti):
    """What passes natively and not under Tutti: whole tests and subtests."""
    bad = []
    for name, n in sorted(native.items()):
        t = tutti[name]
        if passed(n) and not passed(t):
            bad.append(f"{name}: {t['result']} (native: {n['result']})")
            continue
        for sub, v in n["subtests"].items():
            if v == "pass" and t["subtests"].get(sub, "missing") != "pass":
                bad.append(f"{name} / {sub}: {t['subtests'].get(sub, 'missing')}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="libtutti.so to preload")
    ap.add_argument("--part", choices=["ci", "all"], default="all")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", default=None, help="directory for results.json")
    ap.add_argument("--config", action="append", default=[],
                    help="NAME=VAR=value,VAR=value (replaces the default configurations)")
    ap.add_argument("--only", default=None, help="regex: run only matching tests")
    args = ap.parse_args()

    if not os.path.isdir(os.path.join(PIGLIT, "bin")):
        print(f"piglit_cl.py: piglit not found in {PIGLIT} (apt install piglit)")
        return 77  # ctest's SKIP_RETURN_CODE
    configs = DEFAULT_CONFIGS
    if args.config:
        configs = {}
        for c in args.config:
            name, _, rest = c.partition("=")
            configs[name] = dict(kv.split("=", 1) for kv in rest.split(",") if kv)
    tests = load_tests()
    if args.part == "ci":
        tests = ci_part(tests)
    if args.only:
        tests = [t for t in tests if re.search(args.only, t[0])]
    base = dict(os.environ)
    base.setdefault("POCL_DEVICES", "pthread basic")
    for k in list(base):
        if k.startswith("TUTTI_") or k == "LD_PRELOAD":
            del base[k]
    print(f"piglit_cl.py: {len(tests)} tests, POCL_DEVICES='{base['POCL_DEVICES']}', "
          f"{args.jobs} jobs", flush=True)

    t0 = time.monotonic()
    native = run_config(tests, base, args.jobs)
    print(f"native: {sum(passed(r) for r in native.values())} passed in "
          f"{time.monotonic() - t0:.0f} s", flush=True)
    expected = set()
    exp_path = os.path.join(HERE, "pocl_failures.txt")
    if os.path.exists(exp_path):
        with open(exp_path) as f:
            expected = {l.strip() for l in f if l.strip() and not l.startswith("#")}
    failing = {n for n, r in native.items() if not passed(r) and r["result"] != "skip"}
    for n in sorted(failing - expected):
        print(f"note: fails natively but not in pocl_failures.txt: {n} ({native[n]['result']})")
    for n in sorted((expected - failing) & set(native)):
        print(f"note: in pocl_failures.txt but {native[n]['result']} natively: {n}")

    all_results = {"native": native}
    status = 0
    for name, extra in configs.items():
        env = dict(base, LD_PRELOAD=os.path.abspath(args.lib), **extra)
        t0 = time.monotonic()
        res = run_config(tests, env, args.jobs)
        all_results[name] = res
        bad = regressions(native, res)
        print(f"{name} ({','.join(f'{k}={v}' for k, v in extra.items()) or 'defaults'}): "
              f"{sum(passed(r) for r in res.values())} passed in {time.monotonic() - t0:.0f} s, "
              f"{len(bad)} regressions", flush=True)
        for b in bad:
            print(f"  REGRESSION {b}")
            tname = b.split(":")[0].split(" / ")[0]
            print("    " + res[tname]["tail"][-600:].replace("\n", "\n    "))
        status |= bool(bad)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump(all_results, f, indent=1, sort_keys=True)
    print("piglit_cl.py: " + ("FAIL" if status else "PASS"))
    return status


if __name__ == "__main__":
    sys.exit(main())
