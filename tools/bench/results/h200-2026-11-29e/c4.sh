#!/usr/bin/env bash
# Session 38, call 4 (nvidia-h200): issue 20 at dada7f4. WordCount over 1 GiB under Tutti
# (CPU + H200) and natively, whole and streamed, one traced run, the three pipelines at M
# and L natively, and WordCount over 10 GiB streamed under Tutti (XL) in what time is left.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; free -g | head -2; cat $B/bench/VERSION) > $W/machine.txt 2>&1
L=$B/lib/libtutti.so
nv=/usr/local/nvidia/lib64/libnvidia-opencl.so.1
G=$((1 << 30))
pack() { cd /tmp && tar czf $OUT/c4.tgz -C /tmp w; }
run() {  # tag, then the command
  local tag=$1; shift
  local log; log=$("$@" 2>&1)
  echo "== $tag" >> $W/runs.log; echo "$log" | grep -a "RESULT\|^pipeline=\|^emitted=\|text_bytes\|stream_\|FAIL\|rror" >> $W/runs.log
  echo "$tag $(echo "$log" | grep -a -o 'status=[A-Z]*\|wall_ms=[0-9.]*\|group_ms=[0-9.]*\|join_ms=[0-9.]*\|map_ms=[0-9.]*\|overflow_ms=[0-9.]*\|compact_ms=[0-9.]*\|preprocess_ms=[0-9.]*\|cpu_baseline_ms=[0-9.]*\|gbps=[0-9.]*\|tables=[0-9]*\|join_levels=[0-9]*\|emitted=[0-9]*\|stream_pieces=[0-9]*' | tr '\n' ' ')" >> $W/wc.txt
  echo "$tag $SECONDS" >> $W/times.txt
}
run "tutti-trace" env LD_PRELOAD=$L TUTTI_TRACE=$W/trace.json timeout 200 $B/apps/mr_WordCount --size thesis --bytes $G --repeat 2
for r in 1 2 3; do
  run "tutti $r" env LD_PRELOAD=$L timeout 200 $B/apps/mr_WordCount --size thesis --bytes $G --repeat 2
  [ $r -le 2 ] && run "native $r" env OCL_ICD_FILENAMES=$nv timeout 200 $B/apps/mr_WordCount --size thesis --bytes $G --repeat 2
done
run "tutti-stream128M" env LD_PRELOAD=$L timeout 200 $B/apps/mr_WordCount --size thesis --bytes $G --repeat 2 --stream $((128 << 20))
run "native-stream128M" env OCL_ICD_FILENAMES=$nv timeout 200 $B/apps/mr_WordCount --size thesis --bytes $G --repeat 2 --stream $((128 << 20))
gzip $W/trace.json; pack
OCL_ICD_FILENAMES=$nv REPEAT=3 timeout 200 tools/bench/mr_compare.sh $B/apps $W/h200_native.tsv > $W/h200_native.txt 2>&1
echo "compare $SECONDS" >> $W/times.txt; pack
left=$((545 - SECONDS)); [ $left -gt 60 ] || left=60
run "tutti-xl10G-stream1G" env LD_PRELOAD=$L timeout $left $B/apps/mr_WordCount --size thesis --bytes $((10 << 30)) --repeat 1 --stream $G
pack
