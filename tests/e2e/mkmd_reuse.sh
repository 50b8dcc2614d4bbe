#!/usr/bin/env bash
# MKMD keeps the schedule of a graph that repeats (issue 19: an iterative solver's windows
# reuse their schedule instead of rescheduling). Jacobi, profiled first so that every
# kernel's time is known, in windows of two commands repeats the same kernels on the same
# buffers with its data in the same places: graphs must be served from a kept schedule
# (15-17 of 20 here; BiCGSTAB's ten kernels an iteration do not line up with windows of
# two, and reused 0-22), and the result must not change. Its kernels are short at this
# size: TUTTI_MKMD_TINY_US=0 holds them for the graphs, as longer ones would be.
set -euo pipefail
lib=$1 apps=$2
db=$(mktemp -d)/profiles.sqlite
trap 'rm -rf "$(dirname "$db")"' EXIT
export POCL_DEVICES="pthread basic" LD_PRELOAD="$lib" TUTTI_PROFILE_DB="$db"
out=$(TUTTI_PROFILE=1 "$apps/mk_Jacobi" --size tiny 2>&1) || { echo "$out"; echo "FAIL: profiling"; exit 1; }
out=$(TUTTI_MODE=mkmd TUTTI_MKMD_TINY_US=0 TUTTI_MKMD_WINDOW=2 TUTTI_STATS=1 "$apps/mk_Jacobi" --size tiny 2>&1) ||
  { echo "$out"; echo "FAIL: exited"; exit 1; }
grep -q "status=PASS" <<<"$out" || { echo "$out"; echo "FAIL: result differs"; exit 1; }
s=$(grep "^TUTTI mkmd_graphs=" <<<"$out")
echo "$s"
grep -Eq "mkmd_reused=[1-9]" <<<"$s" || { echo "FAIL: no graph reused a kept schedule"; exit 1; }
echo PASS
