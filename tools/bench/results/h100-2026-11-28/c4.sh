#!/usr/bin/env bash
# Call 4 (nvidia-h100-x1): Reduction --hostptr 1 under SKMD auto was 10.3 ms against 9.5
# with fixed:0,100 and 8.9 whole (call 2). Profile it, then debug logs, traces and 5
# interleaved timings of whole, fixed:0,100 and auto (each auto run on a fresh DB copy).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh"
W=/tmp/w; mkdir -p $W
cd /tmp
"$B/split_sweep.sh" $W/sw --apps Reduction:hostptr,BlackScholes --shares 0 --repeat 1 > $W/sw.log 2>&1
cfg() {
  case $1 in
    whole) echo "TUTTI_PLACEMENT=auto" ;;
    fixed) echo "TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,100 TUTTI_PROFILE_DB=$W/db.sqlite" ;;
    auto) echo "TUTTI_MODE=skmd TUTTI_PROFILE_DB=$W/db.sqlite" ;;
  esac
}
for app in "Reduction --hostptr 1" "BlackScholes"; do
  a=${app%% *}; t=${app// /}
  for m in whole fixed auto; do
    cp $W/sw/$a/profiles.sqlite $W/db.sqlite
    env $(cfg $m) TUTTI_STATS=1 TUTTI_TRACE=$W/trace-$t-$m.json TUTTI_LOG=debug TUTTI_LOG_TIME=1 \
      LD_PRELOAD=$B/lib/libtutti.so $B/apps/$app --size thesis > $W/log-$t-$m.txt 2>&1
  done
  for i in 1 2 3 4 5; do
    for m in whole fixed auto; do
      cp $W/sw/$a/profiles.sqlite $W/db.sqlite
      env $(cfg $m) TUTTI_STATS=1 LD_PRELOAD=$B/lib/libtutti.so $B/apps/$app --size thesis 2>&1 |
        grep -E "^RESULT" | grep -o "wall_ms=[0-9.]*\|status=[A-Z]*" | paste -sd' ' | sed "s/^/$t $m /"
    done
  done
done | tee $W/timings.txt
rm -f $W/db.sqlite
(cd $W && gzip -f trace-*.json; tar czf $OUT/c4.tgz .)
