#!/usr/bin/env python3
"""Analysis verdicts for every kernel of the workload suite (tools/bench/apps),
next to thesis Table 3.2's 'Contiguous Access' column.

    tools/tutti-cc/workload-verdicts.py [--tutti-cc PATH] [--apps DIR] [--markdown]

Extracts each R"CLC( ... )CLC" kernel source from the apps, runs tutti-cc on
it (with the build options the app uses, see OPTIONS) and prints one row per
kernel: partitionable, contiguity, merge kernel, atomic combine, cost f(x).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# Thesis Table 3.2, "Contiguous Access" (Y/N); apps not in the table: None.
TABLE_3_2 = {
    "AESEncrypt": "N", "AESDecrypt": "N", "BinomialOption": "Y", "BlackScholes": "Y",
    "BoxMuller": "N", "FDTD3d": "N", "Histogram": "N", "MatrixMultiplication": "N",
    "MatrixTranspose": "N", "MedianFilter": "N", "MersenneTwister": "N", "Nbody": "N",
    "Reduction": "N", "ScanLargeArrays": "Y", "SobelFilter": "N", "VectorAdd": "Y",
}
# Build options the apps pass (defaults of their presets).
OPTIONS = {"FDTD3d.cpp": "-DRADIUS=2", "MatrixMultiplication.cpp": "-DTILE=16"}


def extract(path):
    text = open(path).read()
    return re.findall(r'R"CLC\((.*?)\)CLC"', text, re.S)


def parse(out):
    kernels = []
    cur = None
    for line in out.splitlines():
        m = re.match(r"kernel (\S+) \(", line)
        if m:
            cur = {"name": m.group(1), "combine": []}
            kernels.append(cur)
            continue
        if cur is None:
            continue
        s = line.strip()
        if s.startswith("partitionable:"):
            cur["partitionable"] = s.split(":", 1)[1].strip()
        elif s.startswith("contiguity:"):
            cur["contiguity"] = s.split(":", 1)[1].strip()
        elif s.startswith("cost f(x):"):
            cur["cost"] = s.split(":", 1)[1].strip()
        elif s.startswith("variants:"):
            cur["merge"] = "yes" if "__tutti_merge" in s else "no"
        elif "combine=" in s:
            cur["combine"].append(re.search(r"combine=(\S+)", s).group(1))
    return kernels


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--tutti-cc", default="tutti-cc")
    ap.add_argument("--apps", default=os.path.join(here, "..", "bench", "apps"))
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    files = sorted(f for f in os.listdir(a.apps) if f.endswith(".cpp"))
    files += ["common/" + f for f in sorted(os.listdir(os.path.join(a.apps, "common"))) if f.endswith(".h")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            for i, src in enumerate(extract(os.path.join(a.apps, f))):
                cl = os.path.join(tmp, "k.cl")
                open(cl, "w").write(src)
                cmd = [a.tutti_cc, cl] + OPTIONS.get(f, "").split()
                r = subprocess.run(cmd, capture_output=True, text=True)
                app = os.path.splitext(os.path.basename(f))[0]
                if r.returncode != 0:
                    rows.append((app, "-", "compile error", "", "", "", "", r.stderr.strip().splitlines()[-1:]))
                    continue
                for k in parse(r.stdout):
                    thesis = TABLE_3_2.get(app)
                    rows.append((app, k["name"], k.get("partitionable", "?"), k.get("contiguity", "?"),
                                 k.get("merge", "?"), ",".join(k["combine"]) or "-", k.get("cost", "?"),
                                 thesis or ""))
    hdr = ("app", "kernel", "partitionable", "contiguity", "merge", "atomic combine", "cost f(x)", "Table 3.2")
    if a.markdown:
        print("| " + " | ".join(hdr) + " |")
        print("|" + "---|" * len(hdr))
        for r in rows:
            print("| " + " | ".join(str(x) for x in r) + " |")
    else:
        for r in rows:
            print("\t".join(str(x) for x in r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
