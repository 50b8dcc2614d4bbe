#!/usr/bin/env bash
# overhead.sh OUT_DIR [N] - interposition overhead: launches of an empty kernel per
# second on each real platform natively and under Tutti backed by that device alone
# (TUTTI_DEVICES=gpu for NVIDIA, cpu for PoCL), 5 runs each, interleaved so drift
# hits both alike. Writes OUT_DIR/overhead.jsonl (one RESULT per run) and prints
# the medians. Runs from a bench bundle (tools/enqueue_rate, lib/libtutti.so) or a
# build tree (BUILD=... overhead.sh). BASELINE=/path/to/other/libtutti.so adds that build
# as a third configuration in the same interleaved runs (A/B of two Tutti builds). On
# NVIDIA, "skmd" runs Tutti over all devices under TUTTI_MODE=skmd: every launch after the
# first repeats its shape, so SKMD answers from its kept decision (issue 17's 1.2x goal).
set -euo pipefail
out=$1; n=${2:-20000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${BUILD:-$here}
first() { for f in "$@"; do [ -e "$f" ] && { echo "$f"; return; }; done; echo none; }
rate=$(first "$build"/tools/enqueue_rate "$build"/tools/bench/micro/enqueue_rate)
lib=$(first "$build"/lib/libtutti.so "$build"/interpose/libtutti.so)
[ -x "$rate" ] && [ -f "$lib" ] || { echo "overhead: need enqueue_rate and libtutti.so under $build" >&2; exit 2; }
mkdir -p "$out"
: > "$out/overhead.jsonl"
for plat in NVIDIA Portable; do
  "$rate" 10 "$plat" >/dev/null 2>&1 || continue
  devs=cpu; [ "$plat" = NVIDIA ] && devs=gpu
  for i in 1 2 3 4 5; do
    skmd=; [ "$plat" = NVIDIA ] && skmd=skmd
    for how in native tutti ${BASELINE:+baseline} $skmd; do
      case $how in
        native) line=$("$rate" "$n" "$plat") ;;
        tutti) line=$(TUTTI_DEVICES=$devs TUTTI_PROFILE_DB=off LD_PRELOAD="$lib" "$rate" "$n" Tutti) ;;
        baseline) line=$(TUTTI_DEVICES=$devs TUTTI_PROFILE_DB=off LD_PRELOAD="$BASELINE" "$rate" "$n" Tutti) ;;
        skmd) line=$(TUTTI_MODE=skmd TUTTI_PROFILE_DB=off LD_PRELOAD="$lib" "$rate" "$n" Tutti) ;;
      esac
      python3 - "$plat" "$how" "$line" >> "$out/overhead.jsonl" <<'PY'
import json, re, sys
plat, how, line = sys.argv[1:]
rec = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
rec = {k: (v.strip('"') if v.startswith('"') else float(v)) for k, v in rec.items()}
rec.update(backing=plat, how=how)
print(json.dumps(rec))
PY
    done
  done
done
python3 - "$out/overhead.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for plat in sorted({r["backing"] for r in rows}):
    med = {h: statistics.median(r["per_launch_us"] for r in rows if r["backing"] == plat and r["how"] == h)
           for h in ("native", "tutti", "baseline", "skmd") if any(r["backing"] == plat and r["how"] == h for r in rows)}
    print("%-9s native %.2f us/launch (%.0f/s), Tutti %.2f us/launch (%.0f/s), ratio %.2fx" %
          (plat, med["native"], 1e6 / med["native"], med["tutti"], 1e6 / med["tutti"], med["tutti"] / med["native"]))
    if "baseline" in med:
        print("%-9s baseline %.2f us/launch, ratio %.2fx" % (plat, med["baseline"], med["baseline"] / med["native"]))
    if "skmd" in med:
        print("%-9s skmd (all devices, kept decision) %.2f us/launch, ratio %.2fx" % (plat, med["skmd"], med["skmd"] / med["native"]))
PY
