#!/usr/bin/env bash
# Session 37, call 7 (nvidia-h200): the K-means apps under MKMD against whole mode with the
# issuer (ad97a82), on session 35's H200 databases, 11 interleaved rounds. With
# TUTTI_STATS=1 (as every earlier MKMD table: every launch is then timed, so none goes to
# the issuer) and without it (what an app sees: repeated launches go to the issuer).
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $W/machine.txt 2>&1
cd /tmp
timeout 500 "$B/mkmd_record.sh" /tmp/km --apps kmeans,kmeans_ensemble --db-from "$here/db" --measure 11 \
  --modes whole,mkmd,whole:STATS=0,mkmd:STATS=0 > $W/km.log 2>&1
echo "rc=$? $SECONDS s" >> $W/times.txt
cp /tmp/km/measure.tsv /tmp/km/measure.md $W/ 2>/dev/null
(cd $W && tar czf $OUT/c7.tgz .); ls -la $OUT
