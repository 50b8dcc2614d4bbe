#!/bin/bash
# mr_compare.sh: StreamMR against the Mars- and MapCG-style pipelines, per workload and size.
#
# Runs the mr_* apps (tools/bench/apps, built per pipeline) on one device and writes one
# TSV row per run: the last of --repeat runs (so first-launch compiles are excluded),
# its phase times, wall time, the median wall of the repeats after the first
# (wall_median_ms, with REPEAT of 3 or more) and the multithreaded CPU baseline's time. Thesis Fig. 4.8 /
# 4.12 equivalents. Usage: mr_compare.sh BIN_DIR OUT.tsv [app args...]
# Environment: SIZES (default "small thesis"), REPEAT (3), APPS, PIPELINES, PRELOAD (a
# libtutti.so to run under).
set -u
bin=${1:?bin dir}; out=${2:?out tsv}; shift 2
sizes=${SIZES:-small thesis}
apps=${APPS:-WordCount KMeans StringMatch MatrixMultiplication}
pipelines=${PIPELINES:-streammr mars mapcg}
repeat=${REPEAT:-3}
printf 'app\tpipeline\tsize\tstatus\twall_ms\twall_median_ms\tkernel_ms\tpreprocess_ms\tmap_ms\toverflow_ms\tgroup_ms\tjoin_ms\tcompact_ms\tdownload_ms\tcpu_baseline_ms\tcpu_threads\temitted\toverflowed\ttables\toutput\tdevice\n' > "$out"
field() { grep -o "$1=[^ ]*" <<<"$2" | head -1 | cut -d= -f2 | tr -d '"'; }
for app in $apps; do
  for size in $sizes; do
    for p in $pipelines; do
      suffix=""; [ "$p" = mars ] && suffix=_Mars; [ "$p" = mapcg ] && suffix=_MapCG
      log=$(LD_PRELOAD=${PRELOAD:-} timeout 300 "$bin/mr_$app$suffix" --size "$size" --repeat "$repeat" "$@" 2>&1)
      res=$(grep '^RESULT' <<<"$log" | tail -1); ph=$(grep '^pipeline=' <<<"$log" | tail -1)
      st=$(grep '^emitted=' <<<"$log" | tail -1)
      status=$(field status "$res"); [ -z "$status" ] && status=CRASH
      dev=$(grep -o 'device="[^"]*"' <<<"$res" | head -1 | cut -d'"' -f2)
      printf '%s\t%s\t%s\t%s' "$app" "$p" "$size" "$status" >> "$out"
      for f in wall_ms wall_median_ms kernel_ms; do printf '\t%s' "$(field $f "$res")" >> "$out"; done
      for f in preprocess_ms map_ms overflow_ms group_ms join_ms compact_ms download_ms cpu_baseline_ms cpu_threads; do
        printf '\t%s' "$(field $f "$ph")" >> "$out"; done
      for f in emitted overflowed tables output; do printf '\t%s' "$(field $f "$st")" >> "$out"; done
      printf '\t%s\n' "$dev" >> "$out"
      [ "$status" = PASS ] || { echo "== $app $p $size: $status" >&2; tail -5 <<<"$log" >&2; }
    done
  done
done
if command -v column >/dev/null; then column -t -s $'\t' "$out" | cut -c1-200; else cat "$out"; fi
