#!/usr/bin/env bash
# Planned for session 45, call 3: push the GPU past its memory on purpose (10 GiB WordCount in 3 GiB
# kept pieces: about 110 GB of buffers for an 80 GB H100) with TUTTI_LOG=info, to see
# what Tutti's failover does when a launch's buffers do not fit (session 43's run failed
# over to the CPU and then failed without a log line).
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ -d /tmp/b/tutti-bench ] || { rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b; }
B=/tmp/b/tutti-bench
W=/tmp/w3; rm -rf $W; mkdir -p $W
. "$B/env.sh" >/dev/null
L=$B/lib/libtutti.so
(nvidia-smi -L; cat $B/bench/VERSION) > $W/machine.txt 2>&1
LD_PRELOAD=$L TUTTI_STATS=1 TUTTI_LOG=info timeout 400 $B/apps/mr_WordCount --size thesis \
  --bytes $((10 << 30)) --repeat 1 --stream $((3 << 30)) > $W/big.log 2>&1
echo "rc=$? $SECONDS" >> $W/times.txt
grep -a -v "^\[tutti\] .*launch .* on " $W/big.log | tail -400 > $W/big-tail.log
gzip -f $W/big.log
(cd $W && tar czf $OUT/c3.tgz .)
