#!/usr/bin/env bash
# mkmd_record.sh OUT_DIR [--apps LIST] [--timeout S] [--budget S] [--size S]
#
# Records the kernel graphs of the multi-kernel apps (thesis Table 5.3 and K-means) for
# MKMD's simulator: per app, profiles it into a fresh OUT_DIR/<app>/profiles.sqlite at the
# two sizes of profile_params.tsv (TUTTI_PROFILE=1, as fig310.sh does), then runs it once at
# the real size under TUTTI_MODE=skmd with TUTTI_MKMD_RECORD=OUT_DIR/<app>.graph, so every
# kernel carries each device's predicted time. The graphs are then scheduled anywhere with
# tutti-mkmd (mkmd_predict.sh), device sets that are not here included.
#   --apps LIST   comma list (default: the six Table 5.3 apps and both K-means apps)
#   --timeout S   seconds per app run (default 300)
#   --budget S    start no new app after S seconds (the GPU machine allows 10 minutes a command)
#   --size S      real run size (default thesis)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] && [ "${1#-}" = "$1" ] || { sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
out=$1; shift
applist=mk_ABE,mk_BiCGSTAB,mk_TripleCommutator,mk_ReachabilityGramian,mk_Jacobi,mk_Lyapunov,kmeans,kmeans_ensemble
timeout_s=300 budget=0 size=thesis
while [ $# -gt 0 ]; do
  case "$1" in
    --apps) applist=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    *) echo "mkmd_record.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -f "$here/bench/profile_lib.sh" ]; then . "$here/bench/profile_lib.sh"; else . "$here/profile_lib.sh"; fi
bench_locate "$here"
params_file=mkmd_params.tsv
mkdir -p "$out"
out=$(cd "$out" && pwd)
rc=0
IFS=, read -ra apps <<< "$applist"
for app in "${apps[@]}"; do
  if [ "$budget" != 0 ] && [ "$SECONDS" -ge "$budget" ]; then
    echo "mkmd_record.sh: $app not run: --budget of $budget s spent" >&2; continue
  fi
  d=$out/$app
  mkdir -p "$d"
  if ! profile_app "$app" "$d" table "$timeout_s"; then
    echo "mkmd_record.sh: $app: profiling failed (logs in $d)" >&2; rc=1; continue
  fi
  if ! env "${clean[@]}" TUTTI_MODE=skmd TUTTI_PROFILE_DB="$d/profiles.sqlite" TUTTI_STATS=1 \
      TUTTI_MKMD_RECORD="$out/$app.graph" LD_PRELOAD="$lib" \
      timeout "$timeout_s" "$appsdir/$app" --size "$size" > "$d/record.log" 2>&1; then
    echo "mkmd_record.sh: $app: the recording run failed (see $d/record.log)" >&2; rc=1; continue
  fi
  grep -h '^RESULT' "$d/record.log" || true
done
exit $rc
