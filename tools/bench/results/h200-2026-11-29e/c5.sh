#!/usr/bin/env bash
# Session 38, call 5 (nvidia-h200): issue 20 at dada7f4. The three pipelines at M and L
# natively (call 4's run of this was lost to a wrong folder), and StreamMR under Tutti.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; cat $B/bench/VERSION) > $W/machine.txt 2>&1
nv=/usr/local/nvidia/lib64/libnvidia-opencl.so.1
pack() { (cd /tmp && tar czf $OUT/c5.tgz -C /tmp w); }
OCL_ICD_FILENAMES=$nv REPEAT=3 timeout 200 tools/bench/mr_compare.sh $B/apps $W/h200_native.tsv > $W/h200_native.txt 2>&1
echo "native $SECONDS" >> $W/times.txt; pack
PRELOAD=$B/lib/libtutti.so PIPELINES=streammr REPEAT=3 timeout 100 tools/bench/mr_compare.sh $B/apps $W/h200_tutti.tsv > $W/h200_tutti.txt 2>&1
echo "tutti $SECONDS" >> $W/times.txt; pack
