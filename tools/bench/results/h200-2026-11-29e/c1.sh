#!/usr/bin/env bash
# Session 38, call 1 (nvidia-h200): issue 20. StreamMR with (bucket, hash, key) order and
# buffer spares (f00f358) against its kernels before (wc_old = 0278216^), WordCount at
# 1 GiB natively and under Tutti (CPU + H200), streamed, the pinned copy rate, and the
# three pipelines at M and L sizes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $W/machine.txt 2>&1
nv=/usr/local/nvidia/lib64/libnvidia-opencl.so.1
cp "$here/wc_old" $B/apps/mr_WordCount_old; chmod +x $B/apps/mr_WordCount_old
L=$B/lib/libtutti.so
G=$((1 << 30))
OCL_ICD_FILENAMES=$nv timeout 120 "$here/staging_bw" 1024 > $W/staging_bw.txt 2>&1
echo "staging $SECONDS" >> $W/times.txt
run() {  # tag, then the command
  local tag=$1; shift
  local log; log=$("$@" 2>&1)
  echo "== $tag" >> $W/runs.log; echo "$log" | grep -a "RESULT\|^pipeline=\|^emitted=\|text_bytes\|stream_\|FAIL\|rror" >> $W/runs.log
  echo "$tag $(echo "$log" | grep -a -o 'status=[A-Z]*\|wall_ms=[0-9.]*\|group_ms=[0-9.]*\|join_ms=[0-9.]*\|map_ms=[0-9.]*\|compact_ms=[0-9.]*\|preprocess_ms=[0-9.]*\|cpu_baseline_ms=[0-9.]*\|gbps=[0-9.]*' | tr '\n' ' ')" >> $W/wc1g.txt
}
for r in 1 2; do
  run "native-old $r" env OCL_ICD_FILENAMES=$nv timeout 200 $B/apps/mr_WordCount_old --size thesis --bytes $G --repeat 2
  run "native-new $r" env OCL_ICD_FILENAMES=$nv timeout 200 $B/apps/mr_WordCount --size thesis --bytes $G --repeat 2
  run "tutti-old $r" env LD_PRELOAD=$L timeout 200 $B/apps/mr_WordCount_old --size thesis --bytes $G --repeat 2
  run "tutti-new $r" env LD_PRELOAD=$L timeout 200 $B/apps/mr_WordCount --size thesis --bytes $G --repeat 2
  run "native-stream128M $r" env OCL_ICD_FILENAMES=$nv timeout 200 $B/apps/mr_WordCount --size thesis --bytes $G --repeat 2 --stream $((128 << 20))
  run "tutti-stream128M $r" env LD_PRELOAD=$L timeout 200 $B/apps/mr_WordCount --size thesis --bytes $G --repeat 2 --stream $((128 << 20))
  echo "round $r $SECONDS" >> $W/times.txt
done
OCL_ICD_FILENAMES=$nv REPEAT=3 timeout 280 tools/bench/mr_compare.sh $B/apps $W/h200_native.tsv > $W/h200_native.txt 2>&1
echo "compare $SECONDS" >> $W/times.txt
cd /tmp && tar czf $OUT/c1.tgz -C /tmp w
