#!/usr/bin/env bash
# Issue 19: a kernel's first MKMD verdict (is it under TUTTI_MKMD_TINY_US?) comes from the
# profile's newest launch shape, evaluated at the build, when the launch has that shape: on
# an H200 each first verdict kept the GPU idle behind it. K-means profiled at two sizes,
# then run under MKMD at a third:
# - run 1: the newest samples are the profile's, another shape: no verdict primed;
# - run 2: run 1 left online samples of its shape: the kernels' first verdicts are primed
#   (all three go at once under a bound of a second), with the same outcome: the same
#   commands go at once and the same graphs are made;
# - runs 3 and 4 at the profile's size with a bound no kernel is under, so that kernels are
#   held: run 3's newest shape is run 2's, nothing is primed; run 4 primes run 3's verdicts
#   (not tiny), and its kernels are held. (How many graphs the held kernels make depends on
#   when the windows flush, so runs 3 and 4 are not compared.)
set -euo pipefail
lib=$1 kmeans=$2
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export POCL_DEVICES="pthread basic" TUTTI_PROFILE_DB="$w/km.sqlite"
unset TUTTI_MODE TUTTI_PROFILE TUTTI_LOG TUTTI_MKMD_TINY_US TUTTI_MKMD_EAGER TUTTI_MKMD_FIRST_UNJUDGED
for n in 4096 8192; do
  TUTTI_PROFILE=1 LD_PRELOAD=$lib "$kmeans" --n $n > "$w/p.log" 2>&1 || { cat "$w/p.log"; exit 1; }
done
run() {
  TUTTI_MODE=mkmd TUTTI_STATS=1 TUTTI_MKMD_TINY_US=$3 LD_PRELOAD=$lib "$kmeans" --n "$2" > "$w/run$1.log" 2>&1 || { cat "$w/run$1.log"; exit 1; }
  grep -q 'status=PASS' "$w/run$1.log" || { cat "$w/run$1.log"; exit 1; }
  sed -n 's/^TUTTI mkmd_graphs=\([0-9]*\) .* mkmd_eager=\([0-9]*\) .* mkmd_primed=\([0-9]*\)$/graphs=\1 eager=\2 primed=\3/p' "$w/run$1.log"
}
r1=$(run 1 16384 1000000); r2=$(run 2 16384 1000000); r3=$(run 3 8192 1); r4=$(run 4 8192 1)
echo "run 1: $r1"; echo "run 2: $r2"; echo "run 3: $r3"; echo "run 4: $r4"
[ "${r1##*primed=}" = 0 ] || { echo "FAIL: run 1 primed a verdict for a shape never run"; exit 1; }
[ "${r2##*primed=}" = 3 ] || { echo "FAIL: run 2 should take its three kernels' first verdicts from run 1's shape"; exit 1; }
[ "${r2%% *}" = graphs=0 ] || { echo "FAIL: a kernel was held under a bound of a second"; exit 1; }
[ "${r1% primed=*}" = "${r2% primed=*}" ] || { echo "FAIL: primed verdicts changed what went at once or was held"; exit 1; }
[ "${r3##*primed=}" = 0 ] || { echo "FAIL: run 3 primed a verdict of another shape"; exit 1; }
[ "${r4##*primed=}" -gt 0 ] || { echo "FAIL: run 4 should take its first verdicts from run 3's shape"; exit 1; }
[ "${r4%% *}" != graphs=0 ] || { echo "FAIL: nothing was held in run 4"; exit 1; }
echo ok
