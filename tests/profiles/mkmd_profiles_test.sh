#!/usr/bin/env bash
# tools/bench/mkmd_profiles.sh (issue 19's makespan against the number of profiles) at a
# small size on two PoCL devices: a row per run, every run passes, each MKMD run schedules
# and measures a graph, and no run reports its database damaged. (The stale write-ahead
# log that damaged copies on the GPU machine does not damage databases this small, so
# this does not catch that defect; ProfileDBTest.DamagedFileIsRefused covers the refusal.)
set -euo pipefail
script=$1 build=$2
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export POCL_DEVICES="pthread basic"
build=$build "$script" "$w/out" --apps mk_ABE --sizes 96,64 --measure 2 --size tiny --timeout 120 > "$w/run.txt" 2>&1 ||
  { cat "$w/run.txt"; exit 1; }
tsv=$w/out/profiles.tsv
# Two measures of whole mode, 1 and 2 profiles.
[ "$(wc -l < "$tsv")" = 6 ] || { cat "$tsv" "$w/run.txt"; exit 1; }
if awk -F'\t' '$4 == "nan"' "$tsv" | grep -q .; then cat "$tsv"; exit 1; fi
if grep -l 'malformed\|damaged' "$w"/out/mk_ABE/run-k*.log; then exit 1; fi
# Each MKMD run scheduled a graph and measured its run.
[ "$(awk -F'\t' '$3 == "mkmd" && $5 != "-" && $6 != "-"' "$tsv" | wc -l)" = 4 ] || { cat "$tsv"; exit 1; }
grep -q '2 profiles: wall / predicted / ran' "$w/out/profiles.md" || { cat "$w/out/profiles.md"; exit 1; }
echo ok
