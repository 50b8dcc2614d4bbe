#!/usr/bin/env bash
# dep_chain.sh [REPS] [PATTERNS] [SIZES] - cost per command of long streams of kernels with
# barriers, markers and waits (tools/bench/micro/dep_chain.cpp), natively and under Tutti,
# REPS paired runs each (native and Tutti back to back), medians; and under Tutti the most
# dependencies any command had (TUTTI_LOG=debug's "enqueue ... D deps"). Issue 17: the cost
# per command must not grow with N. Runs from a build tree (BUILD=..., default ./build);
# POCL_DEVICES defaults to "pthread basic" (two PoCL devices behind Tutti).
# BASELINE=/path/to/other/libtutti.so adds that build to the same paired runs (A/B).
set -euo pipefail
reps=${1:-5}
pats=${2:-"barrier barrier-wl barrier-ev marker marker-wl marker-ev wait-last poll ooo-barrier ooo-marker ooo-kernels"}
sizes=${3:-"500 2000 8000"}
build=${BUILD:-build}
bin=$build/tools/bench/micro/dep_chain
lib=${LIB:-$build/interpose/libtutti.so}
export POCL_DEVICES=${POCL_DEVICES:-"pthread basic"}
us() { sed -n 's/.*us_per_command=\([0-9.]*\).*/\1/p'; }
printf "%-12s %6s %10s %10s %7s %9s %10s %7s %9s\n" pattern n native_us tutti_us ratio max_deps base_us ratio base_deps
for p in $pats; do
  for n in $sizes; do
    nat=(); tut=(); base=(1)
    for ((i = 0; i < reps; ++i)); do
      nat+=("$("$bin" "$p" "$n" Portable | us)")
      tut+=("$(TUTTI_PROFILE_DB=off LD_PRELOAD="$lib" "$bin" "$p" "$n" Tutti | us)")
      [ -n "${BASELINE:-}" ] && base+=("$(TUTTI_PROFILE_DB=off LD_PRELOAD="$BASELINE" "$bin" "$p" "$n" Tutti | us)")
    done
    deps=$(TUTTI_PROFILE_DB=off TUTTI_LOG=debug LD_PRELOAD="$lib" "$bin" "$p" "$n" Tutti 2>&1 >/dev/null |
           sed -n 's/.*enqueue .* kind [0-9]*, \([0-9]*\) deps.*/\1/p' | sort -n | tail -1)
    bdeps=
    [ -n "${BASELINE:-}" ] && bdeps=$(TUTTI_PROFILE_DB=off TUTTI_LOG=debug LD_PRELOAD="$BASELINE" "$bin" "$p" "$n" Tutti 2>&1 >/dev/null |
           sed -n 's/.*enqueue .* kind [0-9]*, \([0-9]*\) deps.*/\1/p' | sort -n | tail -1)
    python3 - "$p" "$n" "${deps:-0}" "${nat[*]}" "${tut[*]}" "${base[*]}" "${bdeps:-0}" <<'PY'
import statistics, sys
p, n, deps, nat, tut, base, bdeps = sys.argv[1:]
a = statistics.median(map(float, nat.split())); b = statistics.median(map(float, tut.split()))
line = "%-12s %6s %10.2f %10.2f %7.1f %9s" % (p, n, a, b, b / a, deps)
base = base.split()[1:]
if base:
    c = statistics.median(map(float, base))
    line += " %10.2f %7.1f %9s" % (c, c / a, bdeps)
print(line)
PY
  done
done
