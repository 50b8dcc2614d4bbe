#!/usr/bin/env bash
# Split 2-D tile kernels (out[y*w + x]) are cut at whole rows of work-groups, whose outputs
# concatenate: no host merge. A transpose's rows of groups write columns, which still merge.
# Every app checks its own result against a host reference.
set -euo pipefail
# Output is searched through here-strings, not `echo | grep -q`: under pipefail, grep -q
# leaving early can kill echo with SIGPIPE and fail a check that matched.
lib=$1 apps=$2
run() {  # app -> TUTTI stats of a forced 1:3 split
  local out
  out=$(env POCL_DEVICES="pthread basic" LD_PRELOAD="$lib" TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,3 \
        TUTTI_STATS=1 TUTTI_PROFILE_DB=off "$apps/$1" --size tiny 2>&1) || { echo "$out"; echo "FAIL: $1 exited"; exit 1; }
  grep -q "status=PASS" <<<"$out" || { echo "$out"; echo "FAIL: $1 result differs"; exit 1; }
  grep "^TUTTI split_launches=" <<<"$out"
}
for app in SobelFilter MedianFilter; do
  s=$(run $app)
  echo "$app: $s"
  grep -Eq "split_launches=[1-9]" <<<"$s" || { echo "FAIL: $app did not split"; exit 1; }
  grep -q "merged_launches=0 " <<<"$s" || { echo "FAIL: $app merged on the host"; exit 1; }
done
s=$(run MatrixTranspose)
echo "MatrixTranspose: $s"
grep -Eq "merged_launches=[1-9]" <<<"$s" || { echo "FAIL: MatrixTranspose concatenated"; exit 1; }
echo PASS
