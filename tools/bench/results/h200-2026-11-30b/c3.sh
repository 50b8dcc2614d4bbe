#!/usr/bin/env bash
# Session 41, call 3 (nvidia-h200): issue 20, WordCount over 10 GiB of text in 1 GiB
# streamed pieces under Tutti (CPU + H200): 3fd8b18 (new) and 6702c18 (prev), interleaved.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
W=/tmp/w3; rm -rf $W; mkdir -p $W
pack() { (cd $W && tar czf $OUT/c3.tgz .); }
. "$B/env.sh" >/dev/null
L=$B/lib/libtutti.so
G=$((1 << 30))
NEW=$B/apps/mr_WordCount; PREV=$here/mr_WordCount.prev
run() {
  local tag=$1; shift
  local log; log=$("$@" 2>&1)
  echo "== $tag" >> $W/runs.log; echo "$log" | grep -a "RESULT\|^pipeline=\|text_bytes\|stream_\|FAIL\|rror\|TUTTI device" >> $W/runs.log
  echo "$tag $(echo "$log" | grep -a -o 'status=[A-Z]*\|wall_ms=[0-9.]*\|group_ms=[0-9.]*\|join_ms=[0-9.]*\|map_ms=[0-9.]*\|preprocess_ms=[0-9.]*\|cpu_baseline_ms=[0-9.]*\|gbps=[0-9.]*\|writes_aside=[0-9]*' | tr '\n' ' ')" >> $W/wc.txt
  echo "$tag $SECONDS" >> $W/times.txt
}
run "xl10G-stream1G new 1" env LD_PRELOAD=$L TUTTI_STATS=1 timeout 170 $NEW --size thesis --bytes $((10 << 30)) --repeat 2 --stream $G; pack
run "xl10G-stream1G prev 1" env LD_PRELOAD=$L TUTTI_STATS=1 timeout 170 $PREV --size thesis --bytes $((10 << 30)) --repeat 2 --stream $G; pack
left=$((500 - SECONDS)); [ $left -gt 30 ] || left=30
run "xl10G-stream1G new 2" env LD_PRELOAD=$L TUTTI_STATS=1 timeout $left $NEW --size thesis --bytes $((10 << 30)) --repeat 2 --stream $G; pack
