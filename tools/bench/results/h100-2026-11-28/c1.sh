#!/usr/bin/env bash
# Call 1 (nvidia-h100-x1): issue 23. Merge A/B (MatrixTranspose split 10/90, base vs new,
# interleaved), then split sweeps: MatrixTranspose 0-50 %, Reduction/VectorAdd --hostptr 0-100 %.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
xz -dc "$here/libtutti-base.so.xz" > /tmp/b/tutti-bench/lib/libtutti-base.so
B=/tmp/b/tutti-bench
. "$B/env.sh"
{ nvidia-smi -L; nproc; lscpu | grep "Model name"; } > "$OUT/machine.txt" 2>&1
cd /tmp
ab=$OUT/merge-ab.txt
for i in 1 2 3; do
  for lib in base new; do
    f=$B/lib/libtutti.so; [ $lib = base ] && f=$B/lib/libtutti-base.so
    tr=; [ $i = 2 ] && tr=$OUT/trace-MT-10-90-$lib.json
    r=$(TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,9 TUTTI_STATS=1 TUTTI_PROFILE_DB=off ${tr:+TUTTI_TRACE=$tr} LD_PRELOAD=$f \
        timeout 120 "$B/apps/MatrixTranspose" --size thesis 2>&1 | grep -E "^RESULT|split_launches" | tr '\n' ' ')
    echo "$i $lib $r" >> "$ab"
  done
done
[ -f "$OUT/trace-MT-10-90-new.json" ] && gzip "$OUT"/trace-MT-*.json
echo "=== merge A/B"; cut -c1-220 "$ab"
"$B/split_sweep.sh" "$OUT/sweep-mt" --apps MatrixTranspose --shares 0,10,20,30,50 --repeat 3 --budget 200 > "$OUT/sweep-mt.log" 2>&1
echo "=== sweep-mt rc $?"
"$B/split_sweep.sh" "$OUT/sweep-hp" --apps Reduction:hostptr,VectorAdd:hostptr --shares 0,20,40,60,80,100 --repeat 3 --budget 300 > "$OUT/sweep-hp.log" 2>&1
echo "=== sweep-hp rc $?"
for d in sweep-mt sweep-hp; do grep -E "^\| |^## |^Sweep" "$OUT/$d/sweep.md" 2>/dev/null; done
