#!/usr/bin/env bash
# Issue 19: the online samples a run stores (TUTTI_MODE=skmd and mkmd) are capped per launch
# shape. Each costs a launch's features, evaluated where completions are learnt of: under
# MKMD, BiCGSTAB's 158 launches were learnt of at its final read, about 1 ms on two H100s.
# K-means launches its three kernels once per iteration with one shape each: 12 iterations
# store 3 samples of each, not 12, and no run stores more at a point that holds the three
# newest a fit takes: the fit's input stays the same, so the third run's build loads each
# kernel's stored fit instead of fitting again (~100 ms per kernel and device at 64 samples).
set -euo pipefail
lib=$1 kmeans=$2
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export POCL_DEVICES="pthread basic" TUTTI_PROFILE_DB="$w/p.sqlite" TUTTI_MODE=mkmd TUTTI_LOG=debug
for run in 1 2 3; do
  LD_PRELOAD=$lib "$kmeans" --size tiny --iters 12 > "$w/km.log" 2>&1 || { cat "$w/km.log"; exit 1; }
  grep -q 'status=PASS' "$w/km.log" || { cat "$w/km.log"; exit 1; }
  python3 - "$w/p.sqlite" 3 <<'PY'
import sqlite3, sys
want = int(sys.argv[2])
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT kernel_id, device_id, COUNT(*) FROM kernel_samples GROUP BY 1, 2").fetchall()
kernels = {k.rsplit("-", 1)[1] for k, _, _ in rows}
assert kernels == {"km_assign", "km_partial", "km_update"}, rows
assert all(n == want for _, _, n in rows), (want, rows)
print("ok:", len(rows), "kernel/device pairs,", want, "samples each")
PY
  fitted=$(grep -c 'profile model for .*(fitted)' "$w/km.log" || true)
  stored=$(grep -c 'profile model for .*(stored fit)' "$w/km.log" || true)
  echo "run $run: $fitted fitted, $stored stored fits"
  case $run in
    2) [ "$fitted" = 3 ] && [ "$stored" = 0 ] ;;
    3) [ "$fitted" = 0 ] && [ "$stored" = 3 ] ;;
  esac || { echo "FAIL: run $run should have fitted its 3 models (run 2) or loaded them (run 3)"; exit 1; }
done
