#!/usr/bin/env bash
# Call 6 (nvidia-h100-x1): issue 23's auto against whole with more repeats (84e5453):
# split_sweep --shares 0 --repeat 5 (native, whole, auto, cpu00 interleaved).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh"
W=/tmp/w; mkdir -p $W
cd /tmp
"$B/split_sweep.sh" $W/rep --apps Reduction:hostptr,VectorAdd,BlackScholes,Reduction,VectorAdd:hostptr,Histogram,MatrixTranspose \
  --shares 0 --repeat 7 --budget 360 > $W/rep.log 2>&1
echo "=== rc $?"
grep -E "^\| (whole|auto|cpu00|native)|^## |^Sweep" $W/rep/sweep.md
cp $W/rep/sweep.md $OUT/rep.md
(cd $W && tar czf $OUT/c6.tgz --exclude='*.sqlite' .)
