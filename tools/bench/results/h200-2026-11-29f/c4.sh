#!/usr/bin/env bash
# Session 39, call 4 (nvidia-h200): issue 20's MKMD measurement. The four StreamMR apps at
# thesis size (and WordCount over 1 GiB) under Tutti on CPU + H200 in whole, mkmd and skmd
# modes, 5 interleaved rounds, the app's own wall_ms (median of its --repeat 3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b/tutti-bench
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
. "$B/env.sh" >/dev/null
W=/tmp/w4; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; cat $B/bench/VERSION) > $W/machine.txt 2>&1
L=$B/lib/libtutti.so
pack() { (cd $W && tar czf $OUT/c4.tgz .); }
for r in 1 2 3 4 5; do
  for app in mr_WordCount mr_KMeans mr_StringMatch mr_MatrixMultiplication; do
    for mode in whole mkmd skmd; do
      [ $SECONDS -lt 480 ] || break 3
      out=$(env TUTTI_PROFILE_DB=off TUTTI_MODE=$mode LD_PRELOAD=$L timeout 60 $B/apps/$app --size thesis --repeat 3 2>&1)
      echo "$app $mode $r $(echo "$out" | grep -a -o 'status=[A-Z]*\|wall_ms=[0-9.]*' | tr '\n' ' ')" >> $W/thesis.txt
    done
  done
  pack
done
for mode in whole mkmd skmd; do
  [ $SECONDS -lt 500 ] || break
  out=$(env TUTTI_PROFILE_DB=off TUTTI_MODE=$mode LD_PRELOAD=$L timeout 90 $B/apps/mr_WordCount --size thesis --bytes $((1 << 30)) --repeat 3 2>&1)
  echo "mr_WordCount-1GiB $mode 1 $(echo "$out" | grep -a -o 'status=[A-Z]*\|wall_ms=[0-9.]*\|group_ms=[0-9.]*\|join_ms=[0-9.]*' | tr '\n' ' ')" >> $W/thesis.txt
done
echo "total $SECONDS" >> $W/times.txt
pack
