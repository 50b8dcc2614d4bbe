#!/usr/bin/env bash
# Issue 19: the online samples a run stores (TUTTI_MODE=skmd and mkmd) are capped per launch
# shape. Each costs a launch's features, evaluated where completions are learnt of: under
# MKMD, BiCGSTAB's 158 launches were learnt of at its final read, about 1 ms on two H100s.
# K-means launches its three kernels once per iteration with one shape each: 12 iterations
# store 4 samples of each, not 12. A second run, whose database has a model of each kernel
# now, stores one more of each shape: a sample of the real size for the next fit.
set -euo pipefail
lib=$1 kmeans=$2
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export POCL_DEVICES="pthread basic" TUTTI_PROFILE_DB="$w/p.sqlite" TUTTI_MODE=mkmd
for want in 4 5; do
  LD_PRELOAD=$lib "$kmeans" --size tiny --iters 12 > "$w/km.log" 2>&1 || { cat "$w/km.log"; exit 1; }
  grep -q 'status=PASS' "$w/km.log" || { cat "$w/km.log"; exit 1; }
  python3 - "$w/p.sqlite" "$want" <<'PY'
import sqlite3, sys
want = int(sys.argv[2])
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT kernel_id, device_id, COUNT(*) FROM kernel_samples GROUP BY 1, 2").fetchall()
kernels = {k.rsplit("-", 1)[1] for k, _, _ in rows}
assert kernels == {"km_assign", "km_partial", "km_update"}, rows
assert all(n == want for _, _, n in rows), (want, rows)
print("ok:", len(rows), "kernel/device pairs,", want, "samples each")
PY
done
