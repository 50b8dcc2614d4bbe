#!/usr/bin/env bash
# Call 3 (nvidia-h100-x1): why SKMD mode with the whole launch on the H100 (fixed:0,100)
# is 1-2 ms slower than whole mode: traces and debug logs, then 5 interleaved timings.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh"
W=/tmp/w; mkdir -p $W
cd /tmp
run() {  # tag app args... ; env from caller
  local tag=$1; shift
  "$@" 2>&1 | grep -E "^RESULT" | grep -o "wall_ms=[0-9.]*\|status=[A-Z]*" | paste -sd' ' | sed "s/^/$tag /"
}
for app in "BlackScholes" "Reduction" "Reduction --hostptr 1"; do
  a=${app%% *}; tagapp=${app// /}
  for m in whole skmd; do
    e="TUTTI_PLACEMENT=auto"; [ $m = skmd ] && e="TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,100"
    env $e TUTTI_STATS=1 TUTTI_PROFILE_DB=off TUTTI_TRACE=$W/trace-$tagapp-$m.json TUTTI_LOG=debug TUTTI_LOG_TIME=1 \
      LD_PRELOAD=$B/lib/libtutti.so $B/apps/$app --size thesis > $W/log-$tagapp-$m.txt 2>&1
  done
  for i in 1 2 3 4 5; do
    for m in whole skmd; do
      e="TUTTI_PLACEMENT=auto"; [ $m = skmd ] && e="TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,100"
      run "$tagapp $m" env $e TUTTI_STATS=1 TUTTI_PROFILE_DB=off LD_PRELOAD=$B/lib/libtutti.so $B/apps/$app --size thesis
    done
  done
done | tee $W/timings.txt
(cd $W && gzip -f trace-*.json; tar czf $OUT/c3.tgz .)
