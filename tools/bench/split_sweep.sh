#!/usr/bin/env bash
# split_sweep.sh OUT_DIR [options]
#
# Issue 23's split sweep: per app, measured and predicted wall time when the CPU device
# takes 0, 10, ... 50 % of each launch's work-groups (TUTTI_PARTITION=fixed), beside Tutti
# whole, SKMD `auto` (Algorithm 1) and the app natively on the GPU. Per app: profile into
# OUT_DIR/<app>/profiles.sqlite (as fig310.sh, Table 3.3's sizes), then split_sweep.py run
# (interleaved repeats, each Tutti run on a fresh copy of the database), then
# split_sweep.py report writes OUT_DIR/sweep.md and sweep-summary.json (rewritten after
# every app, so a killed command leaves the apps finished so far summarised).
#
# Options:
#   --apps LIST     comma list; NAME:hostptr runs the app with --hostptr 1 (its buffers
#                   CL_MEM_USE_HOST_PTR over the app's memory), profiled as NAME
#                   (default VectorAdd,VectorAdd:hostptr,Reduction,Reduction:hostptr,BlackScholes,Histogram,
#                   MatrixTranspose)
#   --shares LIST   CPU percentages (default 0,10,20,30,40,50)
#   --repeat N      runs per configuration (default 3), medians reported
#   --size S        run size (default thesis)
#   --cpu N --gpu N --ndev N   Tutti's slot of the CPU (default 0), the GPU's native index
#                   (default 1), the number of backing devices (default 2)
#   --timeout S     seconds per run (default 300)
#   --budget S      start no new app after S seconds (default: no limit)
#   --reuse-profiles  keep an app's profiles.sqlite from an earlier call
#   --build DIR     a build tree (default: the bundle this script is in, else $TUTTI_BUILD,
#                   else <repo>/build)
#   --lib FILE --apps-dir DIR   libtutti.so and the apps folder, when they are elsewhere
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() { sed -n '2,/^set /p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
case "$1" in -h|--help|-*) usage ;; esac
out=$1; shift
applist=VectorAdd,VectorAdd:hostptr,Reduction,Reduction:hostptr,BlackScholes,Histogram,MatrixTranspose
shares=0,10,20,30,40,50 repeat=3 size=thesis cpu=0 gpu=1 ndev=2 timeout_s=300 budget=0 reuse=0
build="" lib="" appsdir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --apps) applist=$2; shift 2 ;;
    --shares) shares=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --gpu) gpu=$2; shift 2 ;;
    --ndev) ndev=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --reuse-profiles) reuse=1; shift ;;
    --build) build=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --apps-dir) appsdir=$2; shift 2 ;;
    *) echo "split_sweep.sh: unknown argument $1" >&2; usage ;;
  esac
done

if [ -f "$here/bench/profile_lib.sh" ]; then . "$here/bench/profile_lib.sh"; else . "$here/profile_lib.sh"; fi
bench_locate "$here"
IFS=, read -ra specs <<< "$applist"
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -f "$here/bench/VERSION" ] && cp "$here/bench/VERSION" "$out/VERSION"
report() { python3 "$pydir/split_sweep.py" report "$out" > /dev/null; }
rc=0
for spec in "${specs[@]}"; do
  app=${spec%%:*}
  d=$out/$app
  mkdir -p "$d"
  if [ "$budget" != 0 ] && [ "$SECONDS" -ge "$budget" ]; then
    echo "split_sweep.sh: $spec not run: the --budget of $budget s was spent" >&2; continue
  fi
  if [ ! -x "$appsdir/$app" ]; then echo "split_sweep.sh: no app $app in $appsdir" >&2; rc=1; continue; fi
  if [ -s "$d/profiles.sqlite" ] && { [ $reuse = 1 ] || [ -f "$d/.profiled-this-call" ]; }; then
    echo "== $spec: reusing $d/profiles.sqlite"
  elif profile_app "$app" "$d" table "$timeout_s"; then
    touch "$d/.profiled-this-call"
  else
    echo "split_sweep.sh: $app: profiling failed (see $d/profile-*.log)" >&2; rc=1; continue
  fi
  echo "== $spec: native GPU, whole, auto, CPU shares $shares at --size $size"
  python3 "$pydir/split_sweep.py" run "$out" "$spec" "$appsdir" "$lib" "$d/profiles.sqlite" \
    --shares "$shares" --repeat "$repeat" --size "$size" --timeout "$timeout_s" \
    --cpu "$cpu" --gpu "$gpu" --ndev "$ndev" || rc=1
  report
done
rm -f "$out"/*/.profiled-this-call
python3 "$pydir/split_sweep.py" report "$out" || rc=1
echo "split_sweep.sh: summary in $out/sweep.md (exit status $rc)"
exit $rc
