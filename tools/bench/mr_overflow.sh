#!/bin/bash
# mr_overflow.sh: what region overflow costs StreamMR (thesis Fig. 4.14-4.18 equivalents).
#
# Runs WordCount and KMeans at the thesis size with regions from far too small to large
# enough, StreamMR only, one TSV per app (rows as mr_compare.sh's, plus the region).
# Usage: mr_overflow.sh BIN_DIR OUT_DIR (SIZE: another preset; the rest as mr_compare.sh).
set -u
bin=${1:?bin dir}; out=${2:?out dir}; here=$(dirname "$0")
mkdir -p "$out"
sweep() {  # app, regions...
  local app=$1; shift
  for r in "$@"; do
    SIZES=${SIZE:-thesis} APPS=$app PIPELINES=streammr "$here/mr_compare.sh" "$bin" "$out/$app-region$r.tsv" --region "$r" >/dev/null
  done
  { head -1 "$out/$app-region$1.tsv" | sed 's/^/region\t/'
    for r in "$@"; do tail -n +2 "$out/$app-region$r.tsv" | sed "s/^/$r\t/"; rm "$out/$app-region$r.tsv"; done
  } > "$out/overflow-$app.tsv"
}
sweep WordCount 256 512 1024 2048 4096
sweep KMeans 64 128 256 1024
