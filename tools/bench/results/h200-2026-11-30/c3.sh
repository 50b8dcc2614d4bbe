#!/usr/bin/env bash
# Session 40, call 3 (nvidia-h200): issue 20. WordCount over 1 GiB under Tutti (CPU + H200):
# joins comparing each equal-hash head once (new2, 95c69bc) against dc97bd1 (key
# references only, the bundle's app), interleaved; one traced run of new2.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $W/machine.txt 2>&1
pack() { (cd $W && tar czf $OUT/c3.tgz .); }
. "$B/env.sh" >/dev/null
L=$B/lib/libtutti.so
G=$((1 << 30))
NEW2=$here/mr_WordCount.new2; NEW=$B/apps/mr_WordCount
run() {  # tag, then the command
  local tag=$1; shift
  local log; log=$("$@" 2>&1)
  echo "== $tag" >> $W/runs.log; echo "$log" | grep -a "RESULT\|^pipeline=\|text_bytes\|FAIL\|rror" >> $W/runs.log
  echo "$tag $(echo "$log" | grep -a -o 'status=[A-Z]*\|wall_ms=[0-9.]*\|group_ms=[0-9.]*\|join_ms=[0-9.]*\|map_ms=[0-9.]*\|gbps=[0-9.]*\|join_levels=[0-9]*' | tr '\n' ' ')" >> $W/wc.txt
  echo "$tag $SECONDS" >> $W/times.txt
}
for r in 1 2 3; do
  run "tutti new2 $r" env LD_PRELOAD=$L timeout 60 $NEW2 --size thesis --bytes $G --repeat 2
  run "tutti new $r" env LD_PRELOAD=$L timeout 60 $NEW --size thesis --bytes $G --repeat 2
  pack
done
[ $SECONDS -lt 300 ] && run "trace new2" env LD_PRELOAD=$L TUTTI_TRACE=$W/trace-new2.json timeout 60 $NEW2 --size thesis --bytes $G --repeat 2
gzip $W/trace-*.json 2>/dev/null
echo "total $SECONDS" >> $W/times.txt
pack
