#!/usr/bin/env bash
# MKMD on two equal CPU devices (POCL_DEVICES="pthread pthread"), with profiles, so that
# the schedule puts dependent kernels on different devices: outputs then move to their
# next reader's device as soon as their producer is issued (Command::pushTo), and the
# apps' own checks against a host reference must still pass.
set -euo pipefail
lib=$1 apps=$2
db=$(mktemp -d)/profiles.sqlite
trap 'rm -rf "$(dirname "$db")"' EXIT
export POCL_DEVICES="pthread pthread" LD_PRELOAD="$lib" TUTTI_PROFILE_DB="$db"
pushes=0
for app in mk_TripleCommutator mk_ABE mk_ReachabilityGramian mk_Lyapunov; do
  for size in tiny small; do
    out=$(TUTTI_PROFILE=1 "$apps/$app" --size $size 2>&1) || { echo "$out"; echo "FAIL: profiling $app"; exit 1; }
  done
  out=$(TUTTI_MODE=mkmd TUTTI_STATS=1 "$apps/$app" --size small 2>&1) || { echo "$out"; echo "FAIL: $app exited"; exit 1; }
  grep -q "status=PASS" <<<"$out" || { echo "$out"; echo "FAIL: $app result differs"; exit 1; }
  s=$(grep "^TUTTI mkmd_graphs=" <<<"$out")
  echo "$app: $s"
  pushes=$((pushes + $(sed 's/.*mkmd_pushes=\([0-9]*\).*/\1/' <<<"$s")))
done
# Where each kernel goes follows measured times, so one app's schedule may keep its chain
# on one device; over the four, some output crosses (9 and 2 pushes in TripleCommutator).
[ "$pushes" -gt 0 ] || { echo "FAIL: no output moved ahead of its reader"; exit 1; }
echo "PASS ($pushes outputs moved ahead)"
