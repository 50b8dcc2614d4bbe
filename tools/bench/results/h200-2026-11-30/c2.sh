#!/usr/bin/env bash
# Session 40, call 2 (nvidia-h200): issue 20.
# 1. atomic_add (4a7e2ef: device-scope fences under OpenCL C 3.0) on the H200 and PoCL.
# 2. WordCount over 1 GiB in 128 MiB streamed pieces, new (dc97bd1) against base (534a499),
#    interleaved, under Tutti (CPU + H200); 10 GiB streamed in 1 GiB pieces (new).
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; free -g | head -2; cat $B/bench/VERSION) > $W/machine.txt 2>&1
NV=/usr/local/nvidia/lib64/libnvidia-opencl.so.1
pack() { (cd $W && tar czf $OUT/c2.tgz .); }
for i in 1 2 3; do
  OCL_ICD_FILENAMES=$NV timeout 100 $here/atomic_add 256 NVIDIA 1 2 4 8 >> $W/atomic-nvidia.txt 2>&1; echo "rc=$?" >> $W/atomic-nvidia.txt
done
OCL_ICD_FILENAMES=libpocl.so.2 timeout 100 $here/atomic_add 256 Portable 1 >> $W/atomic-pocl.txt 2>&1; echo "rc=$?" >> $W/atomic-pocl.txt
echo "atomic $SECONDS" >> $W/times.txt; pack
. "$B/env.sh" >/dev/null
L=$B/lib/libtutti.so
G=$((1 << 30))
NEW=$B/apps/mr_WordCount; BASE=$here/mr_WordCount.base
run() {  # tag, then the command
  local tag=$1; shift
  local log; log=$("$@" 2>&1)
  echo "== $tag" >> $W/runs.log; echo "$log" | grep -a "RESULT\|^pipeline=\|text_bytes\|stream_\|FAIL\|rror" >> $W/runs.log
  echo "$tag $(echo "$log" | grep -a -o 'status=[A-Z]*\|wall_ms=[0-9.]*\|group_ms=[0-9.]*\|join_ms=[0-9.]*\|map_ms=[0-9.]*\|compact_ms=[0-9.]*\|preprocess_ms=[0-9.]*\|cpu_baseline_ms=[0-9.]*\|gbps=[0-9.]*\|tables=[0-9]*\|join_levels=[0-9]*' | tr '\n' ' ')" >> $W/wc.txt
  echo "$tag $SECONDS" >> $W/times.txt
}
for r in 1 2; do
  run "tutti-stream128M new $r" env LD_PRELOAD=$L timeout 100 $NEW --size thesis --bytes $G --repeat 2 --stream $((128 << 20))
  run "tutti-stream128M base $r" env LD_PRELOAD=$L timeout 100 $BASE --size thesis --bytes $G --repeat 2 --stream $((128 << 20))
  pack
done
left=$((540 - SECONDS)); [ $left -gt 60 ] || left=60
run "tutti-xl10G-stream1G new" env LD_PRELOAD=$L timeout $left $NEW --size thesis --bytes $((10 << 30)) --repeat 1 --stream $G
echo "total $SECONDS" >> $W/times.txt
pack
