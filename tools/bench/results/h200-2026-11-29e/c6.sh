#!/usr/bin/env bash
# Session 38, call 6 (nvidia-h200): issue 20 at HEAD. WordCount over 1 GiB under Tutti
# (CPU + H200): the first joining level's fan-in (8, 16, 32; later levels 8), interleaved.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; cat $B/bench/VERSION) > $W/machine.txt 2>&1
L=$B/lib/libtutti.so
G=$((1 << 30))
pack() { (cd /tmp && tar czf $OUT/c6.tgz -C /tmp w); }
for r in 1 2; do for f in 8 16 32; do
  log=$(env LD_PRELOAD=$L timeout 100 $B/apps/mr_WordCount --size thesis --bytes $G --repeat 3 --fanin1 $f 2>&1)
  echo "fanin1=$f round=$r $(echo "$log" | grep -a -o 'status=[A-Z]*\|wall_ms=[0-9.]*\|group_ms=[0-9.]*\|join_ms=[0-9.]*\|map_ms=[0-9.]*\|gbps=[0-9.]*\|join_levels=[0-9]*\|cpu_baseline_ms=[0-9.]*' | tr '\n' ' ')" >> $W/fanin1.txt
  echo "$f $r $SECONDS" >> $W/times.txt; pack
done; done
