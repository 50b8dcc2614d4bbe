#!/usr/bin/env bash
# Session 38, call 2 (nvidia-h200): issue 20. WordCount over 1 GiB under Tutti (CPU +
# H200) after 0278216..(power-of-two sorts): a sweep of task bytes, region records,
# buckets and join fan-in, and one traced run for the time of each joining level.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $W/machine.txt 2>&1
L=$B/lib/libtutti.so
G=$((1 << 30))
run() {  # tag, then the command
  local tag=$1; shift
  local log; log=$("$@" 2>&1)
  echo "== $tag" >> $W/runs.log; echo "$log" | grep -a "RESULT\|^pipeline=\|^emitted=\|text_bytes\|stream_\|FAIL\|rror" >> $W/runs.log
  echo "$tag $(echo "$log" | grep -a -o 'status=[A-Z]*\|wall_ms=[0-9.]*\|group_ms=[0-9.]*\|join_ms=[0-9.]*\|map_ms=[0-9.]*\|overflow_ms=[0-9.]*\|compact_ms=[0-9.]*\|preprocess_ms=[0-9.]*\|cpu_baseline_ms=[0-9.]*\|gbps=[0-9.]*\|tables=[0-9]*\|join_levels=[0-9]*' | tr '\n' ' ')" >> $W/sweep.txt
}
run "trace c32 r2048 b4096 f16" env LD_PRELOAD=$L TUTTI_TRACE=$W/trace.json timeout 200 $B/apps/mr_WordCount --size thesis --bytes $G --repeat 2
for cfg in "32 2048 4096 16" "24 2048 4096 16" "32 2048 4096 8" "32 2048 4096 4" "32 2048 8192 16" \
           "24 2048 8192 8" "48 2048 4096 16" "64 4096 4096 16" "24 2048 2048 8"; do
  set -- $cfg
  run "c$1 r$2 b$3 f$4" env LD_PRELOAD=$L timeout 200 $B/apps/mr_WordCount --size thesis --bytes $G --repeat 2 \
    --chunk $1 --region $2 --buckets $3 --fanin $4
  echo "$cfg $SECONDS" >> $W/times.txt
done
gzip $W/trace.json
cd /tmp && tar czf $OUT/c2.tgz -C /tmp w
