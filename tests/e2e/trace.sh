#!/usr/bin/env bash
# TUTTI_TRACE writes a Chrome/Perfetto timeline: a lane per backing device with its
# transfers and kernels, and the host lane with every API call of the app's thread.
# With the compiler, a forced SKMD split puts kernel pieces on both devices.
set -euo pipefail
lib=$1 app=$2 compiler=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
env=(TUTTI_TRACE="$dir/t.json" TUTTI_PROFILE_DB=off LD_PRELOAD="$lib")
[ "$compiler" = ON ] && env+=(TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,1)
env "${env[@]}" "$app" --size tiny | grep -q "status=PASS" || { echo "app failed under Tutti"; exit 1; }
python3 - "$dir/t.json" "$compiler" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
if isinstance(events, dict):
    events = events["traceEvents"]
lanes = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M"}
spans = [e for e in events if e.get("ph") == "X"]
def fail(msg):
    print("FAIL:", msg); sys.exit(1)
if len(lanes) < 3: fail("expected host + 2 device lanes, got %s" % lanes)
for s in spans:
    if s["dur"] < 0 or s["ts"] < 0: fail("bad span %s" % s)
api = {s["name"] for s in spans if s["cat"] == "api" and s["tid"] == 0}
for name in ("clCreateBuffer", "clEnqueueWriteBuffer", "clEnqueueNDRangeKernel", "clEnqueueReadBuffer"):
    if name not in api: fail("no api span for %s (have %s)" % (name, sorted(api)))
kernels = {s["tid"] for s in spans if s["cat"] == "kernel"}
if not kernels: fail("no kernel span")
if sys.argv[2] == "ON" and len(kernels) < 2: fail("split launch: kernel spans on lanes %s only" % kernels)
if not any(s["cat"] in ("h2d", "d2h") and s["tid"] != 0 for s in spans): fail("no transfer span")
print("PASS: %d spans on %d lanes" % (len(spans), len(lanes)))
PY
