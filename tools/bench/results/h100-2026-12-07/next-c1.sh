#!/usr/bin/env bash
# Planned for the next GPU session (not run): after ba1ead1, 10 GiB WordCount in 1 GiB kept
# pieces on CPU + H100 (twice, with peak_buffer_mb),
# the map-only pipelines natively (two rounds of medians), StreamMR under Tutti, and issue 17's
# overhead.sh (with BUILD set, which session 43 forgot).
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
  echo "native r$1 $SECONDS" >> $W/times.txt; pack
}
wc10 1
native 1
wc10 2
native 2
[ $SECONDS -lt 420 ] && { PRELOAD=$L APPS="StringMatch MatrixMultiplication" PIPELINES=streammr REPEAT=8 timeout 60 \
  tools/bench/mr_compare.sh $B/apps $W/maponly_tutti.tsv > $W/maponly_tutti.txt 2>&1
  echo "tutti $SECONDS" >> $W/times.txt; pack; }
[ $SECONDS -lt 440 ] && { BUILD=$B timeout $((480 - SECONDS)) tools/bench/overhead.sh $W/overhead > $W/overhead.txt 2>&1
  echo "overhead $SECONDS" >> $W/times.txt; pack; }
echo "total $SECONDS" >> $W/times.txt
pack
