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
    m = {h: med([r["per_launch_us"] for r in launch if r["backing"] == plat and r["how"] == h]) for h in ("native", "tutti")}
    res["launch"][plat] = dict(m, ratio=m["tutti"] / m["native"])
    md.append(f"- {plat} launch: native {m['native']:.2f} us, Tutti {m['tutti']:.2f} us, "
              f"**{m['tutti'] / m['native']:.2f}x** (goal 1.05x)")
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
json.dump(res, open(f"{out}/interpose_cost.json", "w"), indent=1)
open(f"{out}/interpose_cost.md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
PY
