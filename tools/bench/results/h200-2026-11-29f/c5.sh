#!/usr/bin/env bash
# Session 39, call 5 (nvidia-h200): traces behind c4's mode differences. StringMatch and
# MatrixMultiplication at thesis size under whole, mkmd and skmd (TUTTI_TRACE and
# TUTTI_LOG=info, one run each, --repeat 3), plus 3 untraced rounds of each for the times.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w5; rm -rf $W; mkdir -p $W
(nvidia-smi -L; cat $B/bench/VERSION) > $W/machine.txt 2>&1
L=$B/lib/libtutti.so
for app in mr_StringMatch mr_MatrixMultiplication; do
  for mode in whole mkmd skmd; do
    env TUTTI_PROFILE_DB=off TUTTI_MODE=$mode TUTTI_LOG=info TUTTI_STATS=1 TUTTI_TRACE=$W/trace-$app-$mode.json \
      LD_PRELOAD=$L timeout 60 $B/apps/$app --size thesis --repeat 3 > $W/log-$app-$mode.txt 2>&1
    gzip -f $W/trace-$app-$mode.json
  done
  for r in 1 2 3; do for mode in whole mkmd skmd; do
    out=$(env TUTTI_PROFILE_DB=off TUTTI_MODE=$mode LD_PRELOAD=$L timeout 60 $B/apps/$app --size thesis --repeat 3 2>&1)
    echo "$app $mode $r $(echo "$out" | grep -a -o 'status=[A-Z]*\|wall_ms=[0-9.]*\|[a-z]*_ms=[0-9.]*' | tr '\n' ' ')" >> $W/times.txt
  done; done
done
(cd $W && tar czf $OUT/c5.tgz .)
