#!/usr/bin/env bash
# Session 41, call 2 (nvidia-h200): issue 20, WordCount over 1 GiB under Tutti (CPU + H200).
# 3fd8b18: a kept piece's upload now waits until the piece before it has queued its
# grouping and joins (prev: 6702c18, the upload while it groups; base: b4bbc22, blocking
# writes); against one run over the whole input; interleaved rounds, one trace, 10 GiB.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; free -g | head -2; cat $B/bench/VERSION) > $W/machine.txt 2>&1
pack() { (cd $W && tar czf $OUT/c2.tgz .); }
. "$B/env.sh" >/dev/null
L=$B/lib/libtutti.so
G=$((1 << 30))
NEW=$B/apps/mr_WordCount; BASE=$here/mr_WordCount.base; PREV=$here/mr_WordCount.prev
run() {  # tag, then the command
  local tag=$1; shift
  local log; log=$("$@" 2>&1)
  echo "== $tag" >> $W/runs.log; echo "$log" | grep -a "RESULT\|^pipeline=\|text_bytes\|stream_\|FAIL\|rror\|TUTTI device" >> $W/runs.log
  echo "$tag $(echo "$log" | grep -a -o 'status=[A-Z]*\|wall_ms=[0-9.]*\|group_ms=[0-9.]*\|join_ms=[0-9.]*\|map_ms=[0-9.]*\|compact_ms=[0-9.]*\|preprocess_ms=[0-9.]*\|cpu_baseline_ms=[0-9.]*\|gbps=[0-9.]*\|tables=[0-9]*\|join_levels=[0-9]*\|writes_aside=[0-9]*' | tr '\n' ' ')" >> $W/wc.txt
  echo "$tag $SECONDS" >> $W/times.txt
}
for r in 1 2 3; do
  run "whole new $r" env LD_PRELOAD=$L TUTTI_STATS=1 timeout 100 $NEW --size thesis --bytes $G --repeat 3
  run "stream128M new $r" env LD_PRELOAD=$L TUTTI_STATS=1 timeout 100 $NEW --size thesis --bytes $G --repeat 3 --stream $((128 << 20))
  run "stream128M prev $r" env LD_PRELOAD=$L TUTTI_STATS=1 timeout 100 $PREV --size thesis --bytes $G --repeat 3 --stream $((128 << 20))
  run "stream256M new $r" env LD_PRELOAD=$L TUTTI_STATS=1 timeout 100 $NEW --size thesis --bytes $G --repeat 3 --stream $((256 << 20))
  run "stream256M prev $r" env LD_PRELOAD=$L TUTTI_STATS=1 timeout 100 $PREV --size thesis --bytes $G --repeat 3 --stream $((256 << 20))
  pack
done
run "trace stream128M new" env LD_PRELOAD=$L TUTTI_TRACE=$W/trace-stream128M.json timeout 100 $NEW --size thesis --bytes $G --repeat 1 --stream $((128 << 20))
gzip -f $W/trace-stream128M.json 2>/dev/null
pack
left=$((560 - SECONDS)); [ $left -gt 60 ] || left=60
run "xl10G-stream1G new" env LD_PRELOAD=$L TUTTI_STATS=1 timeout $left $NEW --size thesis --bytes $((10 << 30)) --repeat 1 --stream $G
echo "total $SECONDS" >> $W/times.txt
pack
