#!/usr/bin/env bash
# Planned for session 45 (session 44 got no machine), call 1: 10 GiB WordCount in 1 GiB
# kept pieces on CPU + one GPU under Tutti (with peak_buffer_mb), four rounds of the
# map-only pipelines natively (StringMatch also at the thesis' M, 64 MB), and StreamMR
# under Tutti. Calls 2 and 3: next-c2.sh (issue 17's overhead.sh), next-c3.sh (failover
# when the GPU's memory runs out, with TUTTI_LOG=info).
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; free -g | head -2; cat $B/bench/VERSION) > $W/machine.txt 2>&1
pack() { (cd $W && tar czf $OUT/c1.tgz .); }
. "$B/env.sh" >/dev/null
L=$B/lib/libtutti.so
nv=/usr/local/nvidia/lib64/libnvidia-opencl.so.1
G=$((1 << 30))
run() {  # tag, then the command
  local tag=$1; shift
  local log; log=$("$@" 2>&1)
  echo "== $tag" >> $W/runs.log; echo "$log" | grep -a "RESULT\|^emitted=\|^pipeline=\|text_bytes\|stream_\|FAIL\|rror\|TUTTI device" >> $W/runs.log
  echo "$tag $(echo "$log" | grep -a -o 'status=[A-Z]*\|wall_ms=[0-9.]*\|group_ms=[0-9.]*\|join_ms=[0-9.]*\|map_ms=[0-9.]*\|preprocess_ms=[0-9.]*\|cpu_baseline_ms=[0-9.]*\|gbps=[0-9.]*\|writes_aside=[0-9]*\|peak_buffer_mb=[0-9.]*' | tr '\n' ' ')" >> $W/wc.txt
  echo "$tag $SECONDS" >> $W/times.txt
}
wc10() {
  local left=$((470 - SECONDS)); [ $left -gt 150 ] || return
  run "xl10G-stream1G $1" env LD_PRELOAD=$L TUTTI_STATS=1 timeout $left $B/apps/mr_WordCount --size thesis --bytes $((10 << 30)) --repeat 1 --stream $G
  pack
}
native() {
  OCL_ICD_FILENAMES=$nv APPS="StringMatch MatrixMultiplication" REPEAT=8 timeout 120 \
    tools/bench/mr_compare.sh $B/apps $W/maponly_native_r$1.tsv > $W/maponly_native_r$1.txt 2>&1
  # The thesis' M for StringMatch is 64 MB (its S is the apps' small, 16 MiB).
  OCL_ICD_FILENAMES=$nv APPS=StringMatch SIZES=thesis REPEAT=8 timeout 60 \
    tools/bench/mr_compare.sh $B/apps $W/sm64_native_r$1.tsv --bytes 67108864 > $W/sm64_native_r$1.txt 2>&1
  echo "native r$1 $SECONDS" >> $W/times.txt; pack
}
wc10 1
for r in 1 2 3 4; do [ $SECONDS -lt 420 ] && native $r; done
[ $SECONDS -lt 440 ] && { PRELOAD=$L APPS="StringMatch MatrixMultiplication" PIPELINES=streammr REPEAT=8 timeout 60 \
  tools/bench/mr_compare.sh $B/apps $W/maponly_tutti.tsv > $W/maponly_tutti.txt 2>&1
  echo "tutti $SECONDS" >> $W/times.txt; pack; }
echo "total $SECONDS" >> $W/times.txt
pack
