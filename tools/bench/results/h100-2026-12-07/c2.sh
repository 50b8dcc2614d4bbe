#!/usr/bin/env bash
# Session 43, call 2: 10 GiB WordCount under Tutti in 512 MiB kept pieces (1 GiB pieces ran
# out of GPU memory on the H100 in call 1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ -d /tmp/b/tutti-bench ] || { mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b; }
B=/tmp/b/tutti-bench
W=/tmp/w2; rm -rf $W; mkdir -p $W
nvidia-smi -L > $W/machine.txt 2>&1
. "$B/env.sh" >/dev/null
log=$(env LD_PRELOAD=$B/lib/libtutti.so TUTTI_STATS=1 timeout 250 $B/apps/mr_WordCount --size thesis --bytes $((10 << 30)) --repeat 1 --stream $((512 << 20)) 2>&1)
echo "$log" | grep -a "RESULT\|^pipeline=\|text_bytes\|stream_\|FAIL\|rror\|TUTTI device\|gbps" > $W/runs.log
echo "total $SECONDS" >> $W/runs.log
cp $W/* $OUT/
