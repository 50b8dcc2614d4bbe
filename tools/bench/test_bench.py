#!/usr/bin/env python3
"""Self test of the benchmark harness (python unittest; ctest: bench.quick).

QuickProfileTest runs `bench.py run --profile quick` on two real apps natively
against PoCL, then `bench.py report`, and checks the JSON, markdown and PNGs.
The apps come from TUTTI_BENCH_BUILD (a build folder; ctest sets it), else
<repo>/build; without built apps that test is skipped when run by hand.

FakeAppTest drives the same code paths with shell-script stand-ins for the
apps (no OpenCL): a failing run must give exit status 1, Tutti modes and
'TUTTI ' stats lines must reach the JSON and the report.

Fig310Test runs fig310.sh on stand-ins whose RESULT and 'TUTTI ' stats lines
are canned: profile arguments from profile_params.tsv, a fresh database copy
per SKMD run, and fig310.py's speedups, work-item split and goal line.

SplitSweepTest runs split_sweep.sh on a stand-in whose wall time follows the CPU share
of TUTTI_PARTITION=fixed: the configurations, the hostptr variant's argument, the measured
split, the predictions and the verdict.

CpuSpreadTest checks cpu_spread.py's arithmetic on hand-made runs.jsonl records.
"""
import glob
import json
import re
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import modes  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "bench.py")
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
QUICK_APPS = ["mk_Lyapunov", "kmeans"]


def have_matplotlib():
    for py in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(py) and subprocess.call([py, "-c", "import matplotlib"], stdout=subprocess.DEVNULL,
                                                  stderr=subprocess.DEVNULL) == 0:
            return True
    return False


def read(path):
    with open(path) as f:
        return f.read()


def bench(*args, env=None):
    return subprocess.run([sys.executable, BENCH] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=env, timeout=900)


class ReportChecks:
    def check_report(self, out, apps, expect_modes=()):
        r = bench("report", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        md_path = os.path.join(out, "report.md")
        self.assertTrue(os.path.exists(md_path))
        md = read(md_path)
        self.assertIn("| App | Fastest single device | Median wall ms", md)
        for a in apps:
            self.assertIn("| %s |" % a, md)
        for m in expect_modes:
            self.assertIn("%s speedup" % m, md)
        if not have_matplotlib():
            self.assertIn("matplotlib not available", md)
            return md, []
        pngs = sorted(glob.glob(os.path.join(out, "*.png")))
        self.assertGreaterEqual(len(pngs), 2, pngs)
        for p in pngs:
            with open(p, "rb") as f:
                head = f.read(8)
            self.assertEqual(head, b"\x89PNG\r\n\x1a\n", p)
            self.assertGreater(os.path.getsize(p), 5000, p)
            self.assertIn("(%s)" % os.path.basename(p), md)
        return md, pngs


def build_dir():
    for cand in (os.environ.get("TUTTI_BENCH_BUILD"), os.path.join(REPO, "build")):
        if cand and os.path.isdir(cand):
            return cand
    return None


class QuickProfileTest(unittest.TestCase, ReportChecks):
    def setUp(self):
        self.build = build_dir()
        if not self.build:
            if os.environ.get("TUTTI_BENCH_BUILD"):
                self.fail("TUTTI_BENCH_BUILD=%s does not exist" % os.environ["TUTTI_BENCH_BUILD"])
            self.skipTest("no build folder (set TUTTI_BENCH_BUILD)")
        self.out = tempfile.mkdtemp(prefix="bench-quick-")
        self.addCleanup(shutil.rmtree, self.out, True)

    def test_quick_native(self):
        env = dict(os.environ)
        env.setdefault("POCL_DEVICES", "pthread basic")
        r = bench("run", "--profile", "quick", "--out", self.out, "--build", self.build,
                  "--apps", ",".join(QUICK_APPS), "--modes", "none", "--repeat", "2", env=env)
        if "no app binaries" in r.stderr and not os.environ.get("TUTTI_BENCH_BUILD"):
            self.skipTest("apps not built under %s" % self.build)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        files = glob.glob(os.path.join(self.out, "run-*.json"))
        self.assertEqual(len(files), 1)
        data = json.loads(read(files[0]))
        self.assertEqual(data["schema"], "tutti-bench/1")
        self.assertEqual((data["profile"], data["size"], data["repeat"]), ("quick", "tiny", 2))
        m = data["machine"]
        self.assertTrue(m["cpu"]["model"])
        self.assertGreaterEqual(m["cpu"]["logical_cpus"], 1)
        self.assertGreater(m["memory"]["total_bytes"], 0)
        devs = m["opencl_devices"]
        self.assertGreaterEqual(len(devs), 1)
        self.assertIn("tutti", m)
        self.assertEqual(sorted(data["apps"]), sorted(QUICK_APPS))
        self.assertEqual(len(data["runs"]), len(QUICK_APPS) * len(devs))
        for e in data["runs"]:
            self.assertEqual(e["kind"], "native")
            self.assertEqual((e["passed"], e["failed"]), (2, 0), e)
            self.assertGreater(e["wall_ms"]["median"], 0)
            self.assertLessEqual(e["wall_ms"]["min"], e["wall_ms"]["median"])
            self.assertLessEqual(e["wall_ms"]["median"], e["wall_ms"]["max"])
            self.assertGreaterEqual(e["kernel_ms"]["median"], 0)
            for s in e["samples"]:
                self.assertTrue(s["result_line"].startswith("RESULT app=%s size=tiny" % e["app"]))
                self.assertEqual(s["result_device"], devs[e["device_index"]]["name"])
        self.check_report(self.out, QUICK_APPS)


FAKE_APP = r'''#!/bin/sh
# stand-in for an app: --help, --list, and one RESULT line per run
case "$1" in
  --help) echo "usage: fake [--size tiny|small|thesis] [--device N]"; exit 0;;
  --list) echo "0: Fake GPU [Fake Platform] GPU"; echo "1: Fake CPU [Fake Platform]"; exit 0;;
esac
dev=tutti; for a in "$@"; do [ "$prev" = "--device" ] && dev=$a; prev=$a; done
if [ -n "$TUTTI_PLACEMENT" ]; then
  echo "TUTTI device=0 name=\"Fake GPU\" platform=\"Fake\" kernels=3 kernel_ms=2 h2d_bytes=1048576 d2h_bytes=0" >&2
  echo "TUTTI device=1 name=\"Fake CPU\" platform=\"Fake\" kernels=1 kernel_ns=1000000" >&2
  wall=5
elif [ "$dev" = 0 ]; then wall=10; else wall=20; fi
status=PASS; rc=0
if [ "$(basename "$0")" = "failing" ] && [ "$dev" = 1 ]; then status=FAIL; rc=1; fi
echo "RESULT app=$(basename "$0") size=tiny device=\"dev $dev\" platform=\"Fake\" kernel_ms=1.5 wall_ms=$wall.000 status=$status"
exit $rc
'''


class FakeAppTest(unittest.TestCase, ReportChecks):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bench-fake-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.build = os.path.join(self.dir, "build")
        os.makedirs(os.path.join(self.build, "apps"))
        for name in ("alpha", "failing"):
            p = os.path.join(self.build, "apps", name)
            with open(p, "w") as f:
                f.write(FAKE_APP)
            os.chmod(p, os.stat(p).st_mode | stat.S_IXUSR)
        os.makedirs(os.path.join(self.build, "lib"))
        # Not a real library: the dynamic loader reports it and carries on.
        open(os.path.join(self.build, "lib", "libtutti.so"), "w").close()
        self.out = os.path.join(self.dir, "out")

    def test_modes_stats_and_failure(self):
        r = bench("run", "--profile", "quick", "--out", self.out, "--build", self.build, "--repeat", "2")
        self.assertEqual(r.returncode, 1, r.stderr)  # 'failing' fails on device 1
        data = json.loads(read(glob.glob(os.path.join(self.out, "run-*.json"))[0]))
        self.assertEqual(data["machine"]["opencl_device_source"], "app --list")
        runs = {(e["app"], e["config"]): e for e in data["runs"]}
        configs = ["native:0", "native:1"] + [m.name for m in modes.MODES]
        self.assertEqual(set(runs), {(a, c) for a in ("alpha", "failing") for c in configs})
        self.assertEqual(runs[("failing", "native:1")]["failed"], 2)
        self.assertEqual(runs[("failing", "native:1")]["samples"][0]["status"], "FAIL")
        self.assertEqual(runs[("alpha", "native:1")]["failed"], 0)
        t = runs[("alpha", "tutti-whole")]
        self.assertEqual(t["env"]["TUTTI_PLACEMENT"], "auto")
        self.assertEqual(t["wall_ms"]["median"], 5.0)
        s = t["samples"][0]
        self.assertEqual(len(s["tutti_lines"]), 2)
        self.assertTrue(s["tutti_lines"][0].startswith("TUTTI device=0"))
        self.assertEqual(s["tutti_stats"][1]["kernel_ns"], 1000000)
        md, pngs = self.check_report(self.out, ["alpha", "failing"], expect_modes=["tutti-whole"])
        self.assertIn("| alpha | Fake GPU (dev 0) | 10 | 5 | 2.00x |", md)
        self.assertIn("### Failures", md)
        self.assertIn("| alpha | 0: Fake GPU | 3 | 2 | 1.0 | 0.0 |", md)
        if pngs:
            self.assertTrue(any("devices-tutti-whole" in p for p in pngs), pngs)

    def test_interleave_alternates_configurations(self):
        r = bench("run", "--profile", "quick", "--out", self.out, "--build", self.build, "--repeat", "2",
                  "--apps", "alpha", "--modes", "tutti-whole", "--interleave")
        self.assertEqual(r.returncode, 0, r.stderr)
        order = re.findall(r"alpha\s+(\S+)\s+#(\d)", r.stderr)
        self.assertEqual(order, [("native:0", "1"), ("native:1", "1"), ("tutti-whole", "1"),
                                 ("native:0", "2"), ("native:1", "2"), ("tutti-whole", "2")])
        data = json.loads(read(glob.glob(os.path.join(self.out, "run-*.json"))[0]))
        self.assertTrue(data["interleave"])
        self.assertEqual([len(e["samples"]) for e in data["runs"]], [2, 2, 2])
        self.assertTrue(all(e["interleaved"] for e in data["runs"]))

    def test_baseline_library_runs_beside_the_new_one(self):
        # TUTTI_BENCH_BASELINE: a second libtutti.so, interleaved with the first (A/B).
        other = os.path.join(self.dir, "libtutti-base.so")
        open(other, "w").close()
        env = dict(os.environ, TUTTI_BENCH_BASELINE=other)
        r = bench("run", "--profile", "quick", "--out", self.out, "--build", self.build, "--repeat", "1",
                  "--apps", "alpha", "--modes", "tutti-whole,baseline-whole", "--interleave", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        data = json.loads(read(glob.glob(os.path.join(self.out, "run-*.json"))[0]))
        runs = {e["config"]: e for e in data["runs"]}
        self.assertEqual(runs["baseline-whole"]["env"]["LD_PRELOAD"], other)
        self.assertNotIn("LD_PRELOAD", runs["tutti-whole"]["env"])
        self.assertEqual(runs["baseline-whole"]["failed"], 0)

    def test_no_apps_is_an_error(self):
        r = bench("run", "--profile", "quick", "--out", self.out, "--build", os.path.join(self.dir, "nothing"))
        self.assertEqual(r.returncode, 2)


FIG310_APP = r'''#!/bin/sh
# stand-in for fig310.sh: profiling runs append their arguments to the "database"; an SKMD
# run must see exactly those two lines (a fresh copy) and prints canned stats
case "$1" in
  --help) echo "usage: fake [--size tiny|small|thesis] [--device N]"; exit 0;;
  --list) echo "0: Fake GPU [Fake Platform] GPU"; echo "1: Fake CPU [Fake Platform]"; exit 0;;
esac
echo "args: $*"
dev=tutti; for a in "$@"; do [ "$prev" = "--device" ] && dev=$a; prev=$a; done
# wall ms: native device 0, device 1, skmd, linear; work_items skmd 0 1, linear 0 1
case "$(basename "$0")" in
  VectorAdd) set -- 10 20 8 12.5 750 250 600 400;;
  *) set -- 30 15 15 30 0 1000 300 700;;
esac
status=PASS
if [ "$TUTTI_PROFILE" = 1 ]; then echo "$*" >> "$TUTTI_PROFILE_DB"; wall=1
elif [ "$TUTTI_MODE" = skmd ]; then
  [ "$(wc -l < "$TUTTI_PROFILE_DB")" = 2 ] || status=FAIL
  echo online >> "$TUTTI_PROFILE_DB"
  if [ "$TUTTI_PARTITION" = linear ]; then wall=$4 w0=$7 w1=$8; else wall=$3 w0=$5 w1=$6; fi
  echo "TUTTI device=0 name=\"Fake GPU\" platform=\"Fake\" kernels=1 kernel_ms=1 split_pieces=1 work_items=$w0" >&2
  echo "TUTTI device=1 name=\"Fake CPU\" platform=\"Fake\" kernels=1 kernel_ms=1 split_pieces=1 work_items=$w1" >&2
  echo "TUTTI split_launches=1 model_decisions=1 probes=2" >&2
elif [ "$dev" = 0 ]; then wall=$1; else wall=$2; fi
echo "RESULT app=$(basename "$0") size=thesis device=\"dev $dev\" platform=\"Fake\" kernel_ms=1 wall_ms=$wall status=$status"
'''


class Fig310Test(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bench-fig310-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.apps = os.path.join(self.dir, "apps")
        os.makedirs(self.apps)
        for name in ("VectorAdd", "alpha"):  # a row in profile_params.tsv, and none
            p = os.path.join(self.apps, name)
            with open(p, "w") as f:
                f.write(FIG310_APP)
            os.chmod(p, os.stat(p).st_mode | stat.S_IXUSR)
        self.lib = os.path.join(self.dir, "libtutti.so")  # not a library: ld.so ignores it
        open(self.lib, "w").close()
        self.out = os.path.join(self.dir, "out")

    def test_fig310_flow_and_summary(self):
        r = subprocess.run([os.path.join(HERE, "fig310.sh"), self.out, "--apps", "VectorAdd,alpha",
                            "--repeat", "2", "--timeout", "60", "--lib", self.lib, "--apps-dir", self.apps],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                           timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout)
        va = os.path.join(self.out, "VectorAdd")
        self.assertIn("args: --size thesis --n 8000000", read(os.path.join(va, "profile-p1.log")))
        self.assertIn("args: --size thesis --n 16000000", read(os.path.join(va, "profile-p2.log")))
        self.assertIn("args: --size small", read(os.path.join(self.out, "alpha", "profile-small.log")))
        with open(os.path.join(self.out, "fig310.json")) as f:
            s = json.load(f)
        apps = {a["app"]: a for a in s["apps"]}
        v, a = apps["VectorAdd"], apps["alpha"]
        self.assertEqual((v["fastest"]["config"], v["fastest"]["wall_ms"]), ("native:0", 10.0))
        self.assertEqual((a["fastest"]["config"], a["fastest"]["wall_ms"]), ("native:1", 15.0))
        sk, li = v["modes"]["tutti-skmd"], v["modes"]["tutti-skmd-linear"]
        self.assertEqual((sk["passed"], sk["failed"]), (2, 0))  # fresh database every run
        self.assertAlmostEqual(sk["speedup"], 1.25)
        self.assertAlmostEqual(li["speedup"], 0.8)
        self.assertEqual([(d["name"], d["work_items"], d["pct"]) for d in sk["split"]],
                         [("Fake GPU", 1500, 75.0), ("Fake CPU", 500, 25.0)])
        self.assertEqual([d["pct"] for d in li["split"]], [60.0, 40.0])
        self.assertEqual([d["pct"] for d in a["modes"]["tutti-skmd"]["split"]], [0.0, 100.0])
        self.assertEqual((sk["split_launches"], sk["model_decisions"], sk["probes"]), (1, 1, 2))
        self.assertAlmostEqual(s["modes"]["tutti-skmd"]["geomean"], 1.25 ** 0.5)
        self.assertEqual((s["modes"]["tutti-skmd"]["min"], s["modes"]["tutti-skmd"]["min_app"]), (1.0, "alpha"))
        self.assertAlmostEqual(s["modes"]["tutti-skmd-linear"]["min"], 0.5)
        self.assertTrue(s["goal_held"])
        md = read(os.path.join(self.out, "fig310.md"))
        self.assertIn("held on all 2 apps (min 1.00x, alpha)", md)
        self.assertIn("| VectorAdd | Fake GPU (native:0) | 10 | 8 | 1.25x | 12.5 | 0.80x | thesis x 2 |", md)
        self.assertIn("| VectorAdd | tutti-skmd | 75.0 | 25.0 | 1 | 1 | 2 |", md)
        # A stricter goal fails on alpha; a missing app is listed, not hidden.
        os.makedirs(os.path.join(self.out, "beta"))
        with open(os.path.join(self.out, "beta", "note.txt"), "w") as f:
            f.write("profiling failed\n")
        r = subprocess.run([sys.executable, os.path.join(HERE, "fig310.py"), self.out, "--goal", "1.1"],
                           stdout=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(r.returncode, 0)
        self.assertIn("NOT held on 1 of 2 apps: alpha 1.00x. Not measured: beta.", r.stdout)
        self.assertIn("- beta: profiling failed", r.stdout)


SWEEP_APP = r'''#!/bin/sh
# stand-in for split_sweep.sh: wall ms by configuration (fixed CPU share 0/20/40: 20/16/18,
# auto 16.5, whole or native 20), halved with --hostptr 1; predicted = wall - 1
case "$1" in --help) echo "usage: fake [--size tiny|small|thesis]"; exit 0;; esac
half=1; for a in "$@"; do [ "$prev" = "--hostptr" ] && [ "$a" = 1 ] && half=2; prev=$a; done
p=0 wall=20
if [ "$TUTTI_PROFILE" = 1 ]; then echo "$*" >> "$TUTTI_PROFILE_DB"
elif [ "$TUTTI_MODE" = skmd ]; then
  case "$TUTTI_PARTITION" in
    fixed:*) p=${TUTTI_PARTITION#fixed:}; p=${p%%,*}
             case $p in 0) wall=20;; 20) wall=16;; 40) wall=18;; *) wall=99;; esac;;
    *) p=30 wall=16.5;;
  esac
fi
wall=$(awk -v w=$wall -v h=$half 'BEGIN{print w/h}')
if [ -n "$LD_PRELOAD" ] && [ "$TUTTI_PROFILE" != 1 ]; then
  echo "TUTTI device=0 name=\"Fake CPU\" platform=\"Fake\" kernels=1 kernel_ms=1 split_pieces=1 work_items=$((p * 10))" >&2
  echo "TUTTI device=1 name=\"Fake GPU\" platform=\"Fake\" kernels=1 kernel_ms=1 split_pieces=1 work_items=$(((100 - p) * 10))" >&2
  [ "$TUTTI_MODE" = skmd ] && echo "TUTTI split_launches=1 model_decisions=1 probes=0 kept_decisions=0 predicted_launches=1 predicted_ms=$(awk -v w=$wall 'BEGIN{print w-1}')" >&2
fi
echo "RESULT app=VectorAdd size=thesis device=\"x\" platform=\"Fake\" kernel_ms=1 wall_ms=$wall status=PASS"
'''


class SplitSweepTest(unittest.TestCase):
    def test_sweep_flow_and_verdict(self):
        d = tempfile.mkdtemp(prefix="bench-sweep-")
        self.addCleanup(shutil.rmtree, d, True)
        apps = os.path.join(d, "apps")
        os.makedirs(apps)
        app = os.path.join(apps, "VectorAdd")
        with open(app, "w") as f:
            f.write(SWEEP_APP)
        os.chmod(app, os.stat(app).st_mode | stat.S_IXUSR)
        lib = os.path.join(d, "libtutti.so")  # not a library: ld.so ignores it
        open(lib, "w").close()
        out = os.path.join(d, "out")
        r = subprocess.run([os.path.join(HERE, "split_sweep.sh"), out, "--apps", "VectorAdd,VectorAdd:hostptr",
                            "--shares", "0,20,40", "--repeat", "2", "--timeout", "60", "--lib", lib,
                            "--apps-dir", apps],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout)
        # Profiled once (Table 3.3's two sizes), reused by the hostptr variant.
        self.assertEqual(len(read(os.path.join(out, "VectorAdd", "profiled.tsv")).splitlines()), 2)
        with open(os.path.join(out, "sweep-summary.json")) as f:
            s = {a["app"]: a for a in json.load(f)}
        for spec, k in (("VectorAdd", 1), ("VectorAdd:hostptr", 2)):
            rows = {x["config"]: x for x in s[spec]["rows"]}
            self.assertEqual([x["config"] for x in s[spec]["rows"]],
                             ["native:1", "whole", "auto", "cpu00", "cpu20", "cpu40"])
            self.assertTrue(all(x["pass"] == 2 for x in rows.values()))
            self.assertAlmostEqual(rows["cpu20"]["wall_ms"], 16 / k)
            self.assertAlmostEqual(rows["cpu20"]["predicted_ms"], 16 / k - 1)
            self.assertAlmostEqual(rows["cpu40"]["cpu_share_measured"], 40.0)
            self.assertAlmostEqual(rows["auto"]["cpu_share_measured"], 30.0)
            v = s[spec]["verdict"]
            self.assertEqual(v["best_split"], "cpu20")
            self.assertAlmostEqual(v["best_vs_whole"], 1.25)
            self.assertAlmostEqual(v["auto_vs_best"], 16 / 16.5)
            self.assertTrue(v["auto_within_5pct_of_best"])
        self.assertIn("Sweep minimum cpu20: 1.25x of whole; auto 1.21x of whole, 0.97x of the minimum.",
                      read(os.path.join(out, "sweep.md")))


class CpuSpreadTest(unittest.TestCase):
    def test_within_between_ratio_and_threshold(self):
        import cpu_spread

        def rec(cfg, ev, rc=0):
            return {"config": cfg, "app": "A", "rc": rc, "events_ms": ev}
        s = cpu_spread.summarise([
            rec("native", {"k": [99, 20, 25], "tiny": [1, 0.1, 0.3]}),  # first launch left out
            rec("native", {"k": [99, 22, 22], "tiny": [1, 0.2, 0.2]}),
            rec("tutti", {"k": [99, 40, 40]}),
            rec("tutti", {"k": [5, 5, 5]}, rc=1),  # a failed process does not count
        ], min_ms=10)
        rows = {(r["config"], r["app"]): r for r in s["rows"]}
        k = rows[("native", "A/k")]
        self.assertEqual(k["processes"], 2)
        self.assertAlmostEqual(k["within_pct"], (25.0 + 0.0) / 2)
        self.assertAlmostEqual(k["between_pct"], 10.0)  # fastest 20 vs 22
        self.assertAlmostEqual(rows[("tutti", "A/k")]["vs_native"], 40 / 22)
        self.assertEqual(rows[("tutti", "A/k")]["processes"], 1)
        self.assertIsNone(rows[("tutti", "A/k")]["between_pct"])
        self.assertFalse(rows[("native", "A/tiny")]["in_means"])  # 0.2 ms: out of the means
        self.assertAlmostEqual(s["per_config"]["native"]["mean_within_pct"], 12.5)
        self.assertIn("| native | A/tiny (not in means) |", cpu_spread.markdown(s))


if __name__ == "__main__":
    unittest.main()
