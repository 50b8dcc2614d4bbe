#!/usr/bin/env bash
# Planned for session 45, call 2: issue 17's overhead.sh (per launch natively and under Tutti on NVIDIA
# and PoCL, SKMD's kept decision, start-up) on the bundle, for the history.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ -d /tmp/b/tutti-bench ] || { rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b; }
B=/tmp/b/tutti-bench
W=/tmp/w2; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $W/machine.txt 2>&1
. "$B/env.sh" >/dev/null
BUILD=$B timeout 420 tools/bench/overhead.sh $W/overhead > $W/overhead.txt 2>&1
echo "overhead rc=$? $SECONDS" >> $W/times.txt
(cd $W && tar czf $OUT/c2.tgz .)
