#!/usr/bin/env bash
# accuracy.sh OUT_DIR [options] [APP...]
#
# Prediction error of the SKMD time models (thesis Section 3.3.3, Table 3.3 / Fig. 3.12):
# per app, profile it at two sizes into a fresh database (TUTTI_PROFILE=1), then run it at
# a third size in validation mode (TUTTI_PROFILE=validate: random work-group counts on every
# device, measured vs. predicted), then summarise all apps with accuracy.py.
#
# Options:
#   --profile-sizes LIST  sizes profiled into the app's fresh database (default tiny,small);
#                         'table': thesis Table 3.3's two sizes from profile_params.tsv
#                         (logs profile-p1.log, profile-p2.log; apps without a row: tiny,small)
#   --size S              size validated (default thesis)
#   --app-args 'ARGS'     more arguments for the validated run only (e.g. '--n 1000003')
#   --runs R              random work-group counts per launch shape and device (default 8)
#   --seed S              their seed (default 1)
#   --timeout SECONDS     per app run (default 3600)
#   --build DIR           a build tree (default: the bundle this script is in, else
#                         $TUTTI_BUILD, else <repo>/build)
#   --lib FILE --apps DIR libtutti.so and the apps folder, when they are elsewhere
#   --threshold-ms T      the headline's "kernels above T ms" (default 10)
#   --reuse-profiles      validate against an app's OUT_DIR/<app>/profiles.sqlite from an
#                         earlier call (fig310.sh writes the same layout) instead of profiling
# APP...: app names in the apps folder (default: every app there).
#
# Writes OUT_DIR/<app>/{profiles.sqlite, profile-<size>.log, profiled.tsv (each profiling run's
# arguments), validate.jsonl, validate.log, models.txt (when tutti-profile is at hand)},
# OUT_DIR/accuracy.md and accuracy.json.
# Exit status 1 when an app run failed (the others are still summarised).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() { sed -n '2,/^set /p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
case "$1" in -h|--help) usage ;; esac
out=$1; shift
reuse=0 profile_sizes=tiny,small size=thesis app_args="" runs=8 seed=1 timeout_s=3600 threshold=10
build="" lib="" appsdir=""
apps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --profile-sizes) profile_sizes=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --app-args) app_args=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --apps) appsdir=$2; shift 2 ;;
    --threshold-ms) threshold=$2; shift 2 ;;
    --reuse-profiles) reuse=1; shift ;;
    -h|--help) usage ;;
    -*) echo "accuracy.sh: unknown option $1" >&2; usage ;;
    *) apps+=("$1"); shift ;;
  esac
done

# Where things are (the bundle or a build tree), and the profiling runs: profile_lib.sh.
if [ -f "$here/bench/profile_lib.sh" ]; then . "$here/bench/profile_lib.sh"; else . "$here/profile_lib.sh"; fi
bench_locate "$here"
summary=$pydir/accuracy.py

if [ ${#apps[@]} -eq 0 ]; then
  for f in "$appsdir"/*; do
    [ -f "$f" ] && [ -x "$f" ] || continue
    case "$(timeout 30 "$f" --help 2>&1)" in *"--size tiny|small|thesis"*) apps+=("$(basename "$f")") ;; esac
  done
fi
[ ${#apps[@]} -gt 0 ] || { echo "accuracy.sh: no apps in $appsdir" >&2; exit 2; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -f "$here/bench/VERSION" ] && cp "$here/bench/VERSION" "$out/VERSION"
rc=0 files=()
for app in "${apps[@]}"; do
  exe=$appsdir/$app
  d=$out/$app
  mkdir -p "$d"
  rm -f "$d/validate.jsonl"
  if [ ! -x "$exe" ]; then echo "accuracy.sh: $app: no such app in $appsdir" >&2; rc=1; continue; fi
  if [ $reuse = 1 ] && [ -s "$d/profiles.sqlite" ]; then
    echo "== $app: reusing $d/profiles.sqlite"
  else
    rm -f "$d"/profiles.sqlite*
    profile_app "$app" "$d" "$profile_sizes" "$timeout_s" || { rc=1; continue; }
  fi
  echo "== $app: validating at --size $size $app_args ($runs runs, seed $seed)"
  # shellcheck disable=SC2086  # app_args is a word list
  if ! timeout "$timeout_s" env "${clean[@]}" LD_PRELOAD="$lib" TUTTI_PROFILE=validate \
      TUTTI_PROFILE_DB="$d/profiles.sqlite" TUTTI_VALIDATE_OUT="$d/validate.jsonl" \
      TUTTI_VALIDATE_RUNS="$runs" TUTTI_VALIDATE_SEED="$seed" \
      "$exe" --size "$size" $app_args > "$d/validate.log" 2>&1; then
    echo "accuracy.sh: $app: validation run failed (see $d/validate.log)" >&2
    rc=1
  fi
  [ -s "$d/validate.jsonl" ] && files+=("$d/validate.jsonl")
done

if [ ${#files[@]} -eq 0 ]; then
  echo "accuracy.sh: no validation records" >&2
  exit 1
fi
python3 "$summary" --threshold-ms "$threshold" --md "$out/accuracy.md" --json "$out/accuracy.json" \
  "${files[@]}" || rc=1
echo "accuracy.sh: summary in $out/accuracy.md and $out/accuracy.json (exit status $rc)"
exit $rc
