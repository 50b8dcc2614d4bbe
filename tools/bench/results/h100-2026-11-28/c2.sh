#!/usr/bin/env bash
# Call 2 (nvidia-h100-x1): issue 23 on c6bbeed. Merge A/B (MatrixTranspose split 10/90,
# base 6136329 vs new, interleaved), then split sweeps with the new model.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
xz -dc "$here/libtutti-base.so.xz" > /tmp/b/tutti-bench/lib/libtutti-base.so
B=/tmp/b/tutti-bench
. "$B/env.sh"
W=/tmp/w; mkdir -p $W
{ nvidia-smi -L; nproc; lscpu | grep "Model name"; } > "$W/machine.txt" 2>&1
cd /tmp
ab=$W/merge-ab.txt
for i in 1 2 3; do
  for lib in base new; do
    f=$B/lib/libtutti.so; [ $lib = base ] && f=$B/lib/libtutti-base.so
    trc=; [ $i = 2 ] && trc=$W/trace-MT-10-90-$lib.json
    r=$(env TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,9 TUTTI_STATS=1 TUTTI_PROFILE_DB=off ${trc:+TUTTI_TRACE=$trc} LD_PRELOAD=$f \
        timeout 120 "$B/apps/MatrixTranspose" --size thesis 2>&1 | grep -E "^RESULT|split_launches" | tr '\n' ' ')
    echo "$i $lib $r" >> "$ab"
  done
done
echo "=== merge A/B"; grep -o "^[0-9] [a-z]*\|wall_ms=[0-9.]*\|status=[A-Z]*" "$ab" | paste -sd' ' | sed 's/ \([0-9] \)/\n\1/g'
"$B/split_sweep.sh" $W/sweep-hp --apps Reduction:hostptr,VectorAdd:hostptr --shares 0,20,40,60,80,100 --repeat 3 --budget 200 > "$W/sweep-hp.log" 2>&1
echo "=== sweep-hp rc $?"
"$B/split_sweep.sh" $W/sweep --apps Reduction,VectorAdd,MatrixTranspose,Histogram,BlackScholes --shares 0,10,30,50 --repeat 3 --budget 260 > "$W/sweep.log" 2>&1
echo "=== sweep rc $?"
for d in sweep-hp sweep; do grep -E "^\| |^## |^Sweep" "$W/$d/sweep.md" 2>/dev/null; done
cp $W/sweep-hp/sweep.md $OUT/sweep-hp.md; cp $W/sweep/sweep.md $OUT/sweep.md 2>/dev/null
(cd $W && gzip -f trace-*.json; tar czf $OUT/c2.tgz --exclude='*.sqlite' .)
