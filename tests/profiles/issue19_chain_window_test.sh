#!/usr/bin/env bash
# Issue 19: a window that is one chain is scheduled once TUTTI_MKMD_SHORT_WINDOW commands
# are held, however long its kernels are predicted to take. K-means is one chain (copy,
# then assign -> partial -> update per iteration); the Triple Commutator's products are not.
# TUTTI_MKMD_SHORT_US=0 turns the short-kernel rule off, so only the chain rule can end a
# window early: held until the final read, K-means's 15 kernels were one graph.
# TUTTI_MKMD_EAGER=0 for those checks. With it on (the default), a command that is not a
# kernel goes at once when nothing is held before it (K-means's copy, the Triple
# Commutator's writes), and so does a kernel predicted shorter than TUTTI_MKMD_TINY_US: with
# profiles and a bound every kernel is under, no kernel is held and no graph is made; with
# the bound off (or no profiles) the kernels are held as before. Launches that go at once
# order by whole buffers, without access hulls.
set -euo pipefail
lib=$1 kmeans=$2 tc=$3
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export POCL_DEVICES="pthread basic" TUTTI_PROFILE_DB=off TUTTI_MODE=mkmd TUTTI_MKMD_SHORT_US=0 TUTTI_STATS=1 TUTTI_LOG=info
TUTTI_MKMD_EAGER=0 LD_PRELOAD=$lib "$kmeans" --size tiny > "$w/km.log" 2>&1 || { cat "$w/km.log"; exit 1; }
grep -q 'status=PASS' "$w/km.log" || { cat "$w/km.log"; exit 1; }
sizes=$(sed -n 's/.*mkmd: \([0-9]*\) kernels scheduled.*/\1/p' "$w/km.log" | tr '\n' ' ')
# The copy and 7 kernels make the first window; the queue then streams.
[ "$sizes" = "7 " ] || { cat "$w/km.log"; echo "FAIL: K-means graphs of $sizes kernels, expected one of 7"; exit 1; }
grep -q ' mkmd_chains=1 ' "$w/km.log" || { cat "$w/km.log"; exit 1; }
# The graph's run is measured (TUTTI_STATS mkmd_measured_ms): over, and inside the app's
# own wall time.
python3 - "$w/km.log" <<'PY' || { cat "$w/km.log"; exit 1; }
import re, sys
log = open(sys.argv[1]).read()
ran = float(re.search(r" mkmd_measured_ms=([0-9.e+-]+) mkmd_measured_graphs=1\b", log).group(1))
wall = float(re.search(r" wall_ms=([0-9.]+) status=PASS", log).group(1))
assert 0 < ran <= wall, (ran, wall)
PY
TUTTI_MKMD_EAGER=0 LD_PRELOAD=$lib "$tc" --size tiny > "$w/tc.log" 2>&1 || { cat "$w/tc.log"; exit 1; }
grep -q 'status=PASS' "$w/tc.log" || { cat "$w/tc.log"; exit 1; }
grep -q 'TUTTI mkmd_graphs=1 mkmd_kernels=17 .* mkmd_chains=0 ' "$w/tc.log" || { cat "$w/tc.log"; exit 1; }
# Without profiles no kernel has a time anywhere: each goes where whole mode puts it (the
# pthread device, the stronger), not wherever a schedule of zero times finishes first.
grep -q ' mkmd_unknown=17 ' "$w/tc.log" || { cat "$w/tc.log"; exit 1; }
grep -q '^TUTTI device=[0-9]* name="basic.* kernels=0 ' "$w/tc.log" || { cat "$w/tc.log"; exit 1; }

LD_PRELOAD=$lib "$kmeans" --size tiny > "$w/km2.log" 2>&1 || { cat "$w/km2.log"; exit 1; }
grep -q 'status=PASS' "$w/km2.log" || { cat "$w/km2.log"; exit 1; }
grep -q 'TUTTI mkmd_graphs=1 mkmd_kernels=8 .* mkmd_chains=1 .* mkmd_eager=3 ' "$w/km2.log" || { cat "$w/km2.log"; exit 1; }
LD_PRELOAD=$lib "$tc" --size tiny > "$w/tc2.log" 2>&1 || { cat "$w/tc2.log"; exit 1; }
grep -q 'status=PASS' "$w/tc2.log" || { cat "$w/tc2.log"; exit 1; }
grep -q 'TUTTI mkmd_graphs=1 mkmd_kernels=17 .* mkmd_eager=3 ' "$w/tc2.log" || { cat "$w/tc2.log"; exit 1; }
for s in tiny small; do
  TUTTI_MODE=whole TUTTI_PROFILE=1 TUTTI_PROFILE_DB="$w/tc.sqlite" LD_PRELOAD=$lib "$tc" --size $s > "$w/p.log" 2>&1 ||
    { cat "$w/p.log"; exit 1; }
done
for bound in 0 1000000000; do
  TUTTI_PROFILE_DB="$w/tc.sqlite" TUTTI_MKMD_TINY_US=$bound LD_PRELOAD=$lib "$tc" --size tiny > "$w/tc-$bound.log" 2>&1 ||
    { cat "$w/tc-$bound.log"; exit 1; }
  grep -q 'status=PASS' "$w/tc-$bound.log" || { cat "$w/tc-$bound.log"; exit 1; }
done
grep -q 'TUTTI mkmd_graphs=1 mkmd_kernels=17 .* mkmd_unknown=0 mkmd_eager=3 ' "$w/tc-0.log" || { cat "$w/tc-0.log"; exit 1; }
grep -q 'TUTTI mkmd_graphs=0 .* mkmd_eager=21 ' "$w/tc-1000000000.log" ||
  { cat "$w/tc-1000000000.log"; echo "FAIL: tiny kernels were held"; exit 1; }
# A launch that goes at once orders by its whole buffers: no launch shape's access hulls are
# evaluated for it (they delayed K-means's GPU start under MKMD), while held launches have them.
grep -q ' hull_shapes=0 ' "$w/tc-1000000000.log" ||
  { cat "$w/tc-1000000000.log"; echo "FAIL: hulls evaluated for launches that went at once"; exit 1; }
grep -Eq ' hull_shapes=[1-9]' "$w/tc-0.log" || { cat "$w/tc-0.log"; echo "FAIL: held launches without hulls"; exit 1; }
# TUTTI_MKMD_FIRST_UNJUDGED: with no kernel under the bound, the first kernel launched with
# nothing held goes at once without a verdict; the other 16 are held for the graph.
TUTTI_PROFILE_DB="$w/tc.sqlite" TUTTI_MKMD_TINY_US=1 TUTTI_MKMD_FIRST_UNJUDGED=1 LD_PRELOAD=$lib "$tc" --size tiny \
  > "$w/tc-unjudged.log" 2>&1 || { cat "$w/tc-unjudged.log"; exit 1; }
grep -q 'status=PASS' "$w/tc-unjudged.log" || { cat "$w/tc-unjudged.log"; exit 1; }
grep -q 'TUTTI mkmd_graphs=1 mkmd_kernels=16 .* mkmd_eager=4 ' "$w/tc-unjudged.log" ||
  { cat "$w/tc-unjudged.log"; echo "FAIL: the first launch was not sent unjudged"; exit 1; }
echo ok
