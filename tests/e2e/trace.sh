#!/usr/bin/env bash
# TUTTI_TRACE writes a Chrome/Perfetto timeline: a lane per backing device with its
# transfers and kernels, and the host lane with every API call of the app's thread.
# Every transfer the runtime counts (TUTTI_STATS) is a span on its device's lane, and
# no span claims a transfer that did not happen.
# With the compiler, a forced SKMD split puts kernel pieces on both devices; with staging
# forced on both, the piece's inputs that only the other device holds move between the
# devices through pinned memory, a d2h span on one lane and an h2d span on the other. Without
# it, launches run whole: once on the zero-copy CPU path (nothing moves, so the trace
# must show no transfer at all) and once with TUTTI_ZERO_COPY=0 (the CPU keeps its own
# copy, so the data must visibly move). With writes kept in the homes, a launch's inputs
# go up from them through staging (issue 23). With the compiler and a TUTTI_MEM_LIMIT,
# VAST's variant kernels are all made before the first launch (issue 22).
# Usage: trace.sh LD_PRELOAD-VALUE APP ON|OFF (LD_PRELOAD-VALUE may put a sanitizer
# runtime ahead of libtutti.so).
set -euo pipefail
preload=$1 app=$2 compiler=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# check NAME MODE [VAR=value...]: runs the app under Tutti with those settings and checks
# its trace against its stats. MODE: split (kernels on both lanes, transfers required),
# moves (split, with staged device-to-device moves), copies (transfers required),
# zero-copy (no transfer allowed; -direct: the read copies from the home), uploads (staged uploads from the homes).
check() {
  local name=$1 mode=$2
  shift 2
  # The output goes to a file, not a pipe: `grep -q` under pipefail could stop reading
  # early and make the app die of SIGPIPE.
  local rc=0
  env TUTTI_TRACE="$dir/$name.json" TUTTI_STATS=1 TUTTI_PROFILE_DB=off "$@" LD_PRELOAD="$preload" \
    "$app" --size tiny ${app_args:-} >"$dir/$name.out" 2>&1 || rc=$?
  [ $rc = 0 ] || { cat "$dir/$name.out"; echo "FAIL($name): app exited with $rc"; exit 1; }
  grep -q "status=PASS" "$dir/$name.out" || { cat "$dir/$name.out"; echo "FAIL($name): app failed under Tutti"; exit 1; }
  python3 - "$dir/$name.json" "$dir/$name.out" "$mode" "$name" <<'PY'
import json, re, sys
events = json.load(open(sys.argv[1]))
if isinstance(events, dict):
    events = events["traceEvents"]
mode, name = sys.argv[3], sys.argv[4]
def fail(msg):
    print("FAIL(%s): %s" % (name, msg)); sys.exit(1)
lanes = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M"}
spans = [e for e in events if e.get("ph") == "X"]
if len(lanes) < 3: fail("expected host + 2 device lanes, got %s" % lanes)
for s in spans:
    if s["dur"] < 0 or s["ts"] < 0: fail("bad span %s" % s)
api = {s["name"] for s in spans if s["cat"] == "api" and s["tid"] == 0}
for call in ("clCreateBuffer", "clEnqueueWriteBuffer", "clEnqueueNDRangeKernel", "clEnqueueReadBuffer"):
    if call not in api: fail("no api span for %s (have %s)" % (call, sorted(api)))
kernels = {s["tid"] for s in spans if s["cat"] == "kernel"}
if not kernels: fail("no kernel span")
if mode in ("split", "moves") and len(kernels) < 2: fail("split launch: kernel spans on lanes %s only" % kernels)
if mode == "uploads":
    ups = [s for s in spans if s["cat"] == "h2d" and s["name"] == "staged upload"]
    if len(ups) < 2: fail("the inputs were not uploaded from their homes through staging (%d spans)" % len(ups))
if mode == "moves":
    outs = {s["tid"] for s in spans if s["cat"] == "d2h" and s["name"] == "staged move out"}
    ins = {s["tid"] for s in spans if s["cat"] == "h2d" and s["name"] == "staged move in"}
    if not outs or not ins or outs == ins: fail("no staged move between lanes (out %s, in %s)" % (outs, ins))
# TUTTI_STATS: one line per backing device; device i is lane i + 1 (lane 0: the host).
stats = {}
for line in open(sys.argv[2]):
    m = re.match(r"TUTTI device=(\d+) .*h2d_transfers=(\d+) .*d2h_transfers=(\d+)", line)
    if m: stats[int(m.group(1)) + 1] = {"h2d": int(m.group(2)), "d2h": int(m.group(3))}
if len(stats) < 2: fail("expected TUTTI_STATS lines for 2 devices, got %s" % stats)
total = 0
for tid, counted in sorted(stats.items()):
    for cat in ("h2d", "d2h"):
        traced = sum(1 for s in spans if s["cat"] == cat and s["tid"] == tid)
        if traced != counted[cat]:
            fail("lane %s (%s): %d %s spans, but the runtime counted %d %s transfers"
                 % (tid, lanes.get(tid), traced, cat, counted[cat], cat))
        total += traced
if any(s["cat"] in ("h2d", "d2h") and s["tid"] not in stats for s in spans):
    fail("transfer span on a lane without a device")
if mode == "zero-copy-direct" and not any(s["name"] == "read from the zero-copy home" for s in spans):
    fail("the app's read did not copy from the zero-copy home")
if mode.startswith("zero-copy") and total: fail("%d transfer spans on the zero-copy path, where nothing moves" % total)
if not mode.startswith("zero-copy") and not total: fail("no transfer span")
print("PASS(%s): %d spans on %d lanes, %d transfers" % (name, len(spans), len(lanes), total))
PY
}

if [ "$compiler" = ON ]; then
  check split split TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,1
  check moves moves TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,1 TUTTI_STAGING=on TUTTI_ZERO_COPY=0 \
    TUTTI_STAGING_MIN=4096 TUTTI_DIRECT_MIN=4096
else
  check zero-copy zero-copy
  check copies copies TUTTI_ZERO_COPY=0
fi
# The zero-copy CPU (PoCL's pthread device, slot 1) with direct reads: the app's read copies
# the kernel's output from the home with the copy pool once a marker says it is there,
# not through PoCL's read, and nothing crosses a link.
check zero-copy-direct zero-copy-direct TUTTI_PLACEMENT=device:1 TUTTI_DIRECT_MIN=4096
# Writes kept in the homes (no direct copy): the launch's inputs go up from the homes
# through pinned staging on the staging thread, and the launch waits for them. Inputs of
# at least the four regions' size (1 MiB each here) wait for the regions to be pinned in
# the background; smaller ones take the driver's path until they are, which on a loaded
# machine came first for a tiny app's inputs (2 runs in 20, before and after 9e3fc71).
app_args="--n 1100000" check uploads uploads TUTTI_STAGING=on TUTTI_STAGING_MB=4 TUTTI_ZERO_COPY=0 \
  TUTTI_STAGING_MIN=4096 TUTTI_DIRECT_MIN=0 TUTTI_PLACEMENT=device:1
# Issue 22: VAST's variant kernels are made when the program builds where paging is likely
# (a TUTTI_MEM_LIMIT), not inside the first launch that pages: NVIDIA took 3.5-9.4 ms to
# make each one, which a first two-GPU plan paid (19-21 ms on two H200s). Device 0 (basic)
# is capped below the launch's 13 MB, so the launch pages there.
if [ "$compiler" = ON ]; then
  rc=0
  env TUTTI_TRACE="$dir/variants.json" TUTTI_STATS=1 TUTTI_PROFILE_DB=off TUTTI_MEM_LIMIT=0:4M \
    TUTTI_PLACEMENT=device:0 LD_PRELOAD="$preload" "$app" --size tiny --n 1100000 >"$dir/variants.out" 2>&1 || rc=$?
  if [ $rc != 0 ] || ! grep -q "status=PASS" "$dir/variants.out" || ! grep -Eq "vast_slices=[1-9]" "$dir/variants.out"; then
    cat "$dir/variants.out"; echo "FAIL(variants): expected a PASS paged in slices (exit $rc)"; exit 1
  fi
  python3 - "$dir/variants.json" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
if isinstance(events, dict):
    events = events["traceEvents"]
spans = [e for e in events if e.get("ph") == "X"]
first = min(s["ts"] for s in spans if s["name"] == "clEnqueueNDRangeKernel")
made = [s for s in spans if s["name"] == "create variant kernel"]
late = [s for s in made if s["ts"] + s["dur"] > first]
if not made or late:
    print("FAIL(variants): %d variant kernels made, %d of them after the first launch began" % (len(made), len(late)))
    sys.exit(1)
print("PASS(variants): %d variant kernels made before the first launch" % len(made))
PY
fi
