#!/usr/bin/env bash
# Builds load stored time models instead of fitting them (a fit of 64 samples cost ~100 ms
# per kernel and device inside clBuildProgram). VectorAdd is profiled, then split 1:1 on
# two PoCL devices in every run:
# - run 1 fits its models at the build and stores them;
# - its split adds samples at new points (its pieces' group counts), so run 2's fit input
#   differs: it takes run 1's fit and refits on a background thread for the next run;
# - the pieces' points fill up at 3 samples and the input stops changing: a later run
#   loads the fit a background refit stored for exactly that input;
# - profiled at a second size, the next run fits at once: the last fit knew one size only,
#   and extrapolated from it (the Triple Commutator's products predicted 4x short on an H200).
set -euo pipefail
lib=$1 tool=$2 vadd=$3
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export POCL_DEVICES="pthread basic" TUTTI_PROFILE_DB="$w/p.sqlite"
unset TUTTI_MODE TUTTI_PARTITION TUTTI_PROFILE TUTTI_LOG
TUTTI_LIB=$lib "$tool" --db "$w/p.sqlite" run -- "$vadd" --size tiny > "$w/profile.log" 2>&1 || { cat "$w/profile.log"; exit 1; }
samples() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM kernel_samples').fetchone()[0])" "$w/p.sqlite"; }
hows=()
run() {
  local run=$1
  TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,1 TUTTI_LOG=debug LD_PRELOAD=$lib "$vadd" --size tiny > "$w/run.log" 2>&1 || { cat "$w/run.log"; exit 1; }
  grep -q 'status=PASS' "$w/run.log" || { cat "$w/run.log"; exit 1; }
  # The model's source is the last parenthesis before the colon: device names have their own
  # ("Intel(R) Xeon(R)"), which a pattern stopping at the first one missed.
  how=$({ grep 'profile model for [^ ]*vectorAdd on ' "$w/run.log" || true; } |
        { grep -o '(\(fitted\|stored fit\|last run.s fit[^)]*\)):' || true; } | sed 's/^(//; s/):$//; s/,.*//' | sort -u | paste -sd+)
  hows+=("$how")
  echo "run $run: models: $how; samples in the database: $(samples)"
}
for r in 1 2 3 4 5 6 7; do run $r; done
[ "${hows[0]}" = fitted ] || { echo "FAIL: run 1 should fit its models (got ${hows[0]})"; exit 1; }
[ "${hows[1]}" = "last run's fit" ] || { echo "FAIL: run 2 should take run 1's fits (got ${hows[1]})"; exit 1; }
loaded=0
for h in "${hows[@]:4}"; do [ "$h" = "stored fit" ] && loaded=1; done
[ $loaded = 1 ] || { echo "FAIL: runs 5-7 never loaded a stored fit of their exact input: ${hows[*]}"; exit 1; }
echo "ok: a later run loaded stored fits of its exact input"
TUTTI_LIB=$lib "$tool" --db "$w/p.sqlite" run -- "$vadd" --n 300007 > "$w/profile2.log" 2>&1 || { cat "$w/profile2.log"; exit 1; }
run 8
[ "${hows[7]}" = fitted ] || { echo "FAIL: after a new size was profiled, run 8 should fit (got ${hows[7]})"; exit 1; }
echo "ok: a new profiled size is fitted at once"
