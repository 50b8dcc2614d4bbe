#!/usr/bin/env bash
# interpose_cost.sh OUT_DIR [N] - issue 17's three interposition costs in one run, natively
# and under Tutti backed by that device alone (TUTTI_DEVICES=gpu for NVIDIA, cpu for PoCL):
#   1. per launch: overhead.sh (empty-kernel launches, medians of 5 interleaved runs);
#   2. hot calls: tools/call_cost natively and under Tutti, 5 interleaved pairs, the
#      median per call (clSetKernelArg, 64-byte blocking writes and reads, clGetEventInfo,
#      clFinish on an idle queue, ...);
#   3. start-up: whole-process wall time of `apps/VectorAdd --size tiny`, 7 interleaved
#      pairs, Tutti with a warm build cache (TUTTI_KERNEL_CACHE in OUT_DIR, filled by one
#      unrecorded run) and once with an empty one.
# Writes OUT_DIR/interpose_cost.json and interpose_cost.md (ratios to native and the
# issue's goals: launches <= 1.05x, hot calls <= 1.1x, start-up <= 1.1x native + 20 ms).
# Runs from a bench bundle or a build tree (BUILD=...), like overhead.sh.
set -euo pipefail
out=$1; n=${2:-20000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${BUILD:-$here}
first() { for f in "$@"; do [ -e "$f" ] && { echo "$f"; return; }; done; echo none; }
cost=$(first "$build"/tools/call_cost "$build"/tools/bench/micro/call_cost)
lib=$(first "$build"/lib/libtutti.so "$build"/interpose/libtutti.so)
app=$(first "$build"/apps/VectorAdd "$build"/tools/bench/apps/VectorAdd)
[ -x "$cost" ] && [ -f "$lib" ] && [ -x "$app" ] || { echo "interpose_cost: need call_cost, VectorAdd and libtutti.so under $build" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
ovh=$(first "$here"/overhead.sh "$here"/../../tools/bench/overhead.sh)
BUILD=$build "$ovh" "$out/launch" "$n" > "$out/launch.txt" 2>&1 || echo "interpose_cost: overhead.sh failed (see $out/launch.txt)" >&2
: > "$out/calls.jsonl.txt"
: > "$out/startup.jsonl"
ms() { date +%s%N; }
for plat in NVIDIA Portable; do
  "$cost" 10 "$plat" >/dev/null 2>&1 || continue
  devs=cpu; [ "$plat" = NVIDIA ] && devs=gpu
  for i in 1 2 3 4 5; do
    "$cost" "$n" "$plat" | sed "s/^RESULT /RESULT backing=$plat how=native /" >> "$out/calls.jsonl.txt"
    TUTTI_DEVICES=$devs TUTTI_PROFILE_DB=off LD_PRELOAD="$lib" "$cost" "$n" Tutti |
      sed "s/^RESULT /RESULT backing=$plat how=tutti /" >> "$out/calls.jsonl.txt"
  done
  # The app's own device index for the native run: the first device of this platform.
  idx=$("$app" --list | sed -n "s/^\([0-9]*\): .*\[.*$plat.*\].*$/\1/p" | head -1)
  [ -n "$idx" ] || continue
  cache=$out/cache-$plat; rm -rf "$cache"; mkdir -p "$cache"
  tut() { TUTTI_DEVICES=$devs TUTTI_PROFILE_DB=off TUTTI_KERNEL_CACHE=$1 LD_PRELOAD="$lib" "$app" --size tiny; }
  t0=$(ms); tut "$out/cache-empty-$plat" > /dev/null 2>&1; t1=$(ms)
  echo "{\"backing\": \"$plat\", \"how\": \"tutti-empty-cache\", \"ms\": $(( (t1 - t0) / 1000 ))e-3}" >> "$out/startup.jsonl"
  rm -rf "$out/cache-empty-$plat"
  tut "$cache" > /dev/null 2>&1 || true  # fills the cache
  for i in 1 2 3 4 5 6 7; do
    t0=$(ms); "$app" --size tiny --device "$idx" > /dev/null 2>&1; t1=$(ms)
    tut "$cache" > /dev/null 2>&1; t2=$(ms)
    echo "{\"backing\": \"$plat\", \"how\": \"native\", \"ms\": $(( (t1 - t0) / 1000 ))e-3}" >> "$out/startup.jsonl"
    echo "{\"backing\": \"$plat\", \"how\": \"tutti\", \"ms\": $(( (t2 - t1) / 1000 ))e-3}" >> "$out/startup.jsonl"
  done
  rm -rf "$cache"
  # Where a launch's time goes: tally_icd between the ICD loader and the driver times the
  # driver's own calls, natively and under Tutti (the rest of Tutti's per-launch time is
  # its own code); its no-op mode leaves Tutti's code alone on the clock.
  tally=$(first "$build"/tools/libtally_icd.so "$build"/tools/bench/micro/libtally_icd.so)
  rate=$(first "$build"/tools/enqueue_rate "$build"/tools/bench/micro/enqueue_rate)
  real=libpocl.so.2
  [ "$plat" = NVIDIA ] && real=$(first /usr/local/nvidia/lib64/libnvidia-opencl.so.1 libnvidia-opencl.so.1)
  if [ -f "$tally" ] && [ -x "$rate" ]; then
    # Both ways of naming the only vendor: loaders differ in which one they honour.
    vend=$out/tally-vendors; mkdir -p "$vend"; echo "$tally" > "$vend/tally.icd"
    for noop in 0 1; do
      for how in native tutti; do
        f=$out/tally-$plat-$how-noop$noop.txt
        pre=; [ $how = tutti ] && pre=$lib
        env OCL_ICD_FILENAMES="$tally" OCL_ICD_VENDORS="$vend" TALLY_ICD_REAL="$real" TALLY_ICD_NOOP_LAUNCH=$noop TALLY_ICD_OUT="$f" \
          TUTTI_DEVICES=$devs TUTTI_PROFILE_DB=off ${pre:+LD_PRELOAD=$pre} "$rate" "$n" ${pre:+Tutti} >> "$f" 2>&1 || true
      done
    done
  fi
done
python3 - "$out" <<'PY'
import json, re, statistics, sys
out = sys.argv[1]
calls = {}
for line in open(f"{out}/calls.jsonl.txt"):
    rec = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
    calls.setdefault((rec["backing"], rec["call"]), {}).setdefault(rec["how"], []).append(float(rec["us"]))
launch = [json.loads(l) for l in open(f"{out}/launch/overhead.jsonl")] if __import__("os").path.exists(f"{out}/launch/overhead.jsonl") else []
start = [json.loads(l) for l in open(f"{out}/startup.jsonl")]
med = statistics.median
res = {"launch": {}, "calls": {}, "startup": {}}
md = ["# Interposition cost (issue 17): medians, Tutti backed by that device alone", ""]
for plat in sorted({r["backing"] for r in launch}):
    m = {h: med([r["per_launch_us"] for r in launch if r["backing"] == plat and r["how"] == h])
         for h in ("native", "tutti", "baseline", "skmd") if any(r["backing"] == plat and r["how"] == h for r in launch)}
    # Paired: each round's ratio to the native run beside it, then the median.
    paired = {}
    for h in m:
        nat = [r["per_launch_us"] for r in launch if r["backing"] == plat and r["how"] == "native"]
        got = [r["per_launch_us"] for r in launch if r["backing"] == plat and r["how"] == h]
        paired[h] = med([g / n for g, n in zip(got, nat)])
    res["launch"][plat] = dict(m, ratio=m["tutti"] / m["native"], paired=paired)
    md.append(f"- {plat} launch: native {m['native']:.2f} us, Tutti {m['tutti']:.2f} us, "
              f"**{m['tutti'] / m['native']:.2f}x** (paired {paired['tutti']:.2f}x; goal 1.05x)")
    for h, goal in (("baseline", ""), ("skmd", "; goal 1.2x")):
        if h in m:
            md.append(f"  - {h}: {m[h]:.2f} us, **{m[h] / m['native']:.2f}x** (paired {paired[h]:.2f}x{goal})")
md += ["", "| backing | call | native us | Tutti us | ratio |", "|---|---|---:|---:|---:|"]
for (plat, call), v in sorted(calls.items()):
    if "native" not in v or "tutti" not in v:
        continue
    a, b = med(v["native"]), med(v["tutti"])
    res["calls"].setdefault(plat, {})[call] = {"native_us": a, "tutti_us": b, "ratio": b / a if a else None}
    md.append(f"| {plat} | {call} | {a:.3f} | {b:.3f} | {b / a if a else float('nan'):.2f}x |")
md += ["", "Start-up, `VectorAdd --size tiny` whole process (goal: Tutti <= 1.1x native + 20 ms):", ""]
for plat in sorted({r["backing"] for r in start}):
    m = {h: [r["ms"] for r in start if r["backing"] == plat and r["how"] == h] for h in ("native", "tutti", "tutti-empty-cache")}
    if not m["native"] or not m["tutti"]:
        continue
    a, b = med(m["native"]), med(m["tutti"])
    cold = m["tutti-empty-cache"][0] if m["tutti-empty-cache"] else float("nan")
    ok = b <= 1.1 * a + 20
    res["startup"][plat] = {"native_ms": a, "tutti_ms": b, "tutti_empty_cache_ms": cold, "goal_met": ok}
    md.append(f"- {plat}: native {a:.1f} ms, Tutti {b:.1f} ms (warm cache; empty cache {cold:.1f} ms): "
              f"{'meets' if ok else 'misses'} the goal")
# tally_icd: the driver's launch call natively and inside Tutti, and the whole launch.
import glob, os
tally = {}
for f in sorted(glob.glob(f"{out}/tally-*-noop*.txt")):
    plat, how, noop = re.match(r".*/tally-(\w+)-(\w+)-noop(\d)\.txt", f).groups()
    text = open(f).read()
    m = re.search(r"call=clEnqueueNDRangeKernel thread=main calls=\d+ total_us=\S+ us_per_call=(\S+)", text)
    r = re.search(r"per_launch_us=(\S+)", text)
    if m and r:
        tally.setdefault(plat, {})[f"{how}_noop{noop}"] = {"driver_launch_us": float(m.group(1)), "per_launch_us": float(r.group(1))}
if tally:
    res["tally"] = tally
    md += ["", "Where a launch's time goes (tally_icd, one run each): the driver's launch call and the whole",
           "launch; with the no-op driver, what is left is the caller's own code.", "",
           "| backing | driver | native: call / launch us | Tutti: call / launch us |", "|---|---|---:|---:|"]
    for plat, t in sorted(tally.items()):
        for noop in ("0", "1"):
            a, b = t.get(f"native_noop{noop}"), t.get(f"tutti_noop{noop}")
            if a and b:
                md.append(f"| {plat} | {'no-op' if noop == '1' else 'real'} | {a['driver_launch_us']:.2f} / {a['per_launch_us']:.2f} | "
                          f"{b['driver_launch_us']:.2f} / {b['per_launch_us']:.2f} |")
json.dump(res, open(f"{out}/interpose_cost.json", "w"), indent=1)
open(f"{out}/interpose_cost.md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
PY
