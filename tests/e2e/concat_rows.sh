#!/usr/bin/env bash
# Split 2-D tile kernels (out[y*w + x]) are cut at whole rows of work-groups, whose outputs
# concatenate: no host merge. A transpose's rows of groups write columns, which still merge.
# Every app checks its own result against a host reference.
set -euo pipefail
lib=$1 apps=$2
run() {  # app -> TUTTI stats of a forced 1:3 split
  local out
  out=$(env POCL_DEVICES="pthread basic" LD_PRELOAD="$lib" TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,3 \
        TUTTI_STATS=1 TUTTI_PROFILE_DB=off "$apps/$1" --size tiny 2>&1) || { echo "$out"; echo "FAIL: $1 exited"; exit 1; }
  echo "$out" | grep -q "status=PASS" || { echo "$out"; echo "FAIL: $1 result differs"; exit 1; }
  echo "$out" | grep "^TUTTI split_launches="
}
for app in SobelFilter MedianFilter; do
  s=$(run $app)
  echo "$app: $s"
  echo "$s" | grep -Eq "split_launches=[1-9]" || { echo "FAIL: $app did not split"; exit 1; }
  echo "$s" | grep -q "merged_launches=0 " || { echo "FAIL: $app merged on the host"; exit 1; }
done
s=$(run MatrixTranspose)
echo "MatrixTranspose: $s"
echo "$s" | grep -Eq "merged_launches=[1-9]" || { echo "FAIL: MatrixTranspose concatenated"; exit 1; }
echo PASS
