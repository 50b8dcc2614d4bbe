#!/usr/bin/env bash
# fig310.sh OUT_DIR [options]
#
# Thesis Fig. 3.10: SKMD speedup over the fastest single device, and the work split.
# Per app: (a) profile into a fresh OUT_DIR/<app>/profiles.sqlite at thesis Table 3.3's two
# profile sizes (TUTTI_PROFILE=1, profile_params.tsv; as accuracy.sh does), (b) bench.py run
# at the real size: natively on every device, then tutti-skmd and tutti-skmd-linear with
# TUTTI_STATS=1, each Tutti run on a fresh copy of that database (--profile-db), one
# unrecorded --size tiny warm-up per configuration, then --repeat runs; (c) fig310.py writes
# OUT_DIR/fig310.md and fig310.json (rewritten after every app, so a killed command
# leaves the apps finished so far summarised).  Apps measured by earlier calls into the
# same OUT_DIR stay in the summary, so a long list can be split over several commands.
#
# Options:
#   --apps LIST           comma list (default: every app with a row in profile_params.tsv)
#   --repeat N            measured runs per configuration (default 3); medians are reported
#   --timeout S           seconds per app run, profiling runs included (default 300)
#   --budget S            start no new app after S seconds (default: no limit); the GPU
#                         machine allows 10 minutes per command
#   --profile-sizes table|LIST  'table' (default): Table 3.3 sizes, apps without a row
#                         tiny,small; or a comma list of --size presets (e.g. tiny,small)
#   --size S              real run size (default thesis; the table is relative to it)
#   --reuse-profiles      keep an app's profiles.sqlite from an earlier call
#   --goal G              minimum SKMD speedup the summary checks (default 0.98)
#   --devices LIST        native devices (bench.py --devices: all (default) or indices); the
#                         fastest single device is the fastest of those run natively, so
#                         leave out only a device known to be slower (its profile says so)
#   --modes LIST          Tutti modes (default tutti-skmd,tutti-skmd-linear; bench.py list).
#                         Runs alternate between configurations (bench.py --interleave).
#   --build DIR           a build tree (default: the bundle this script is in, else
#                         $TUTTI_BUILD, else <repo>/build)
#   --lib FILE --apps-dir DIR   libtutti.so and the apps folder, when they are elsewhere
# Exit status 1 when a run failed (the rest is still summarised); the goal's verdict is in
# fig310.md.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() { sed -n '2,/^set /p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
case "$1" in -h|--help|-*) usage ;; esac
out=$1; shift
applist="" repeat=3 timeout_s=300 budget=0 profile_sizes=table size=thesis reuse=0 goal=0.98
build="" lib="" appsdir="" modes=tutti-skmd,tutti-skmd-linear devices=all
while [ $# -gt 0 ]; do
  case "$1" in
    --apps) applist=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --profile-sizes) profile_sizes=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --reuse-profiles) reuse=1; shift ;;
    --goal) goal=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --devices) devices=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --apps-dir) appsdir=$2; shift 2 ;;
    *) echo "fig310.sh: unknown argument $1" >&2; usage ;;
  esac
done

if [ -f "$here/bench/profile_lib.sh" ]; then . "$here/bench/profile_lib.sh"; else . "$here/profile_lib.sh"; fi
bench_locate "$here"
if [ -n "$applist" ]; then IFS=, read -ra apps <<< "$applist"; else mapfile -t apps < <(table_apps); fi
[ ${#apps[@]} -gt 0 ] || { echo "fig310.sh: no apps" >&2; exit 2; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -f "$here/bench/VERSION" ] && cp "$here/bench/VERSION" "$out/VERSION"
summarise() { python3 "$pydir/fig310.py" "$out" --goal "$goal"; }
# Why an app has no (or no new) runs: note.txt, which the summary lists.
note() { echo "$*" > "$d/note.txt"; echo "fig310.sh: $app: $*" >&2; }
rc=0
for app in "${apps[@]}"; do
  d=$out/$app
  mkdir -p "$d"
  rm -f "$d/note.txt"
  if [ "$budget" != 0 ] && [ "$SECONDS" -ge "$budget" ]; then
    note "not run by the last call: its --budget of $budget s was spent"; continue
  fi
  if [ ! -x "$appsdir/$app" ]; then note "no such app in $appsdir"; rc=1; continue; fi
  if [ $reuse = 1 ] && [ -s "$d/profiles.sqlite" ]; then
    echo "== $app: reusing $d/profiles.sqlite"
  elif ! profile_app "$app" "$d" "$profile_sizes" "$timeout_s"; then
    note "profiling failed (see profile-*.log)"; rc=1; summarise > /dev/null; continue
  fi
  echo "== $app: native on every device, $modes at --size $size"
  rm -f "$d"/run-*.json
  python3 "$pydir/bench.py" run --profile full --size "$size" --repeat "$repeat" \
    --timeout "$timeout_s" --apps "$app" --devices "$devices" --modes "$modes" --interleave \
    --build "$appsdir" --tutti "$lib" --profile-db "$d/profiles.sqlite" --out "$d" || rc=1
  summarise > /dev/null
done

summarise || rc=1
echo "fig310.sh: summary in $out/fig310.md and $out/fig310.json (exit status $rc)"
exit $rc
