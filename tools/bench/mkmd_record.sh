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
#   --measure N   then run each app N times, interleaved: natively on --native-device, under
#                 Tutti whole and under TUTTI_MODE=mkmd (same database); OUT_DIR/measure.md
#                 has the medians and MKMD's predicted vs measured makespan
#   --modes LIST  what --measure runs (default native,whole,mkmd); a mode with the suffix -cb
#                 runs with TUTTI_COMPLETION=callback (A/B of how completions are learnt), and
#                 MODE:NAME=VALUE runs MODE with TUTTI_NAME=VALUE (mkmd:MKMD_FIRST_WINDOW=64), and
#                 MODE:A=1+B=2 with several settings
#   --native-device I   the app's --device index for the native baseline (default 1: the
#                 first GPU when PoCL's CPU comes first)
#   --base-lib PATH  another libtutti.so (an earlier tree): a mode MODE@base in --modes runs
#                 MODE with it, interleaved with the others (before/after in one run)
#   --db-from DIR take DIR/<app>/profiles.sqlite (an earlier run's OUT_DIR, same machine
#                 kind) instead of profiling again
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] && [ "${1#-}" = "$1" ] || { sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
out=$1; shift
applist=mk_ABE,mk_BiCGSTAB,mk_TripleCommutator,mk_ReachabilityGramian,mk_Jacobi,mk_Lyapunov,kmeans,kmeans_ensemble
timeout_s=300 budget=0 size=thesis measure=0 native=1 mmodes=native,whole,mkmd baselib= dbfrom=
while [ $# -gt 0 ]; do
  case "$1" in
    --apps) applist=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --measure) measure=$2; shift 2 ;;
    --native-device) native=$2; shift 2 ;;
    --modes) mmodes=$2; shift 2 ;;
    --base-lib) baselib=$2; shift 2 ;;
    --db-from) dbfrom=$2; shift 2 ;;
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
  if [ -n "$dbfrom" ]; then
    [ -f "$dbfrom/$app/profiles.sqlite" ] || { echo "mkmd_record.sh: $app: no $dbfrom/$app/profiles.sqlite" >&2; rc=1; continue; }
    cp "$dbfrom/$app/profiles.sqlite" "$d/profiles.sqlite"
  elif ! profile_app "$app" "$d" table "$timeout_s"; then
    echo "mkmd_record.sh: $app: profiling failed (logs in $d)" >&2; rc=1; continue
  fi
  if ! env "${clean[@]}" TUTTI_MODE=skmd TUTTI_PROFILE_DB="$d/profiles.sqlite" TUTTI_STATS=1 \
      TUTTI_MKMD_RECORD="$out/$app.graph" LD_PRELOAD="$lib" \
      timeout "$timeout_s" "$appsdir/$app" --size "$size" > "$d/record.log" 2>&1; then
    echo "mkmd_record.sh: $app: the recording run failed (see $d/record.log)" >&2; rc=1; continue
  fi
  grep -h '^RESULT' "$d/record.log" || true
  for ((i = 0; i < measure; i++)); do
    for mode in ${mmodes//,/ }; do
      run_lib=$lib
      if [ "${mode%@base}" != "$mode" ]; then
        [ -f "$baselib" ] || { echo "mkmd_record.sh: $mode needs --base-lib" >&2; exit 2; }
        run_lib=$baselib
      fi
      extra=()
      if [ "${mode#*:}" != "$mode" ]; then
        IFS=+ read -ra kv <<< "${mode#*:}"
        for x in "${kv[@]}"; do extra+=("TUTTI_${x%@base}"); done
      fi
      case ${mode%%:*} in
        native) cmd=(env "${clean[@]}" "$appsdir/$app" --size "$size" --device "$native") ;;
        *-cb) m=${mode%%:*}; m=${m%@base}; cmd=(env "${clean[@]}" TUTTI_MODE=${m%-cb} TUTTI_COMPLETION=callback TUTTI_STATS=1
                   TUTTI_PROFILE_DB="$d/profiles.sqlite" "${extra[@]}" LD_PRELOAD="$run_lib" "$appsdir/$app" --size "$size") ;;
        # The mode's own settings last, so that they win (whole:STATS=0).
        *) m=${mode%%:*}; cmd=(env "${clean[@]}" TUTTI_MODE=${m%@base} TUTTI_STATS=1 TUTTI_PROFILE_DB="$d/profiles.sqlite"
                "${extra[@]}" LD_PRELOAD="$run_lib" "$appsdir/$app" --size "$size") ;;
      esac
      timeout "$timeout_s" "${cmd[@]}" > "$d/run.log" 2>&1
      wall=$(sed -n 's/^RESULT.* wall_ms=\([0-9.]*\) status=PASS.*/\1/p' "$d/run.log")
      pred=$(sed -n 's/^TUTTI mkmd_graphs=.* mkmd_predicted_ms=\([0-9.e+-]*\) .*/\1/p' "$d/run.log")
      split=$(sed -n 's/^TUTTI mkmd_graphs=.* mkmd_split=\([0-9]*\) .*/\1/p' "$d/run.log")
      ran=$(sed -n 's/^TUTTI mkmd_graphs=.* mkmd_measured_ms=\([0-9.e+-]*\) .*/\1/p' "$d/run.log")
      [ -n "$wall" ] || { echo "mkmd_record.sh: $app $mode: no PASS (see $d/run.log)" >&2; rc=1; wall=nan; }
      [ "$mode" = mkmd ] || pred= split= ran=  # the table's prediction is this tree's schedule
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$app" "$mode" "$wall" "${pred:--}" "${split:--}" "${ran:--}" >> "$out/measure.tsv"
    done
  done
done
if [ "$measure" -gt 0 ] && [ -f "$out/measure.tsv" ]; then
  python3 - "$out" <<'PY'
import collections, math, statistics, sys
out = sys.argv[1]
runs = collections.defaultdict(list)
pred = collections.defaultdict(list)
for line in open(f"{out}/measure.tsv"):
    app, mode, wall, p, split, ran = (line.rstrip("\n").split("\t") + ["-"])[:6]
    if wall != "nan":
        runs[(app, mode)].append(float(wall))
    if p != "-":
        pred[app].append((float(p), int(split), float(ran) if ran != "-" else float("nan")))
apps = sorted({a for a, _ in runs})
lines = ["# MKMD measured (medians of wall ms, the app's own timer)", "",
         "| app | native GPU in-order | Tutti whole | Tutti mkmd | mkmd vs native | mkmd vs whole | predicted ms | graphs ran ms | predicted/ran | predicted/wall | split kernels |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
gn, gw = [], []
# Apps whose commands all went at once (TUTTI_MKMD_EAGER) ran no graph: nothing to divide by.
div = lambda a, b: a / b if b else float("nan")
for a in apps:
    m = {k: statistics.median(runs[(a, k)]) for k in ("native", "whole", "mkmd") if runs[(a, k)]}
    if len(m) < 3:
        continue
    p = statistics.median(x[0] for x in pred[a]) if pred[a] else float("nan")
    r = statistics.median(x[2] for x in pred[a]) if pred[a] else float("nan")
    s = pred[a][0][1] if pred[a] else 0
    gn.append(m["native"] / m["mkmd"]); gw.append(m["whole"] / m["mkmd"])
    lines.append(f"| {a} | {m['native']:.2f} | {m['whole']:.2f} | {m['mkmd']:.2f} | {gn[-1]:.2f}x | {gw[-1]:.2f}x | {p:.2f} | {r:.2f} | {div(p, r):.2f} | {div(p, m['mkmd']):.2f} | {s} |")
g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
lines += ["", f"Geomean: mkmd vs native {g(gn):.2f}x, vs Tutti whole {g(gw):.2f}x over {len(gn)} apps.",
          "Predicted: the MKMD schedule's makespan of the held graph(s). Graphs ran: from each graph's",
          "schedule to the end of its last kernel, as one union over the graphs (TUTTI_STATS",
          "mkmd_measured_ms). Wall: the app's own timer, which also covers buffer creation, the",
          "commands streamed outside any graph and the final read."]
extra = sorted({m for _, m in runs} - {"native", "whole", "mkmd"})
if extra:
    lines += ["", "Other modes (medians of wall ms):", "",
              "| app | " + " | ".join(extra) + " |", "|---|" + "---:|" * len(extra)]
    for a in apps:
        lines.append(f"| {a} | " + " | ".join(
            f"{statistics.median(runs[(a, m)]):.2f}" if runs[(a, m)] else "-" for m in extra) + " |")
open(f"{out}/measure.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
fi
exit $rc
