#!/usr/bin/env bash
# The four device calls of session 31 (nvidia-h200-x2). Each ran as `bash cN.sh` from a
# carried folder holding the bundle (bundle.tar.xz; call 4 also base.so.xz, the previous
# bundle's libtutti.so), with the preamble below, then its own section: `bash calls.sh cN`
# runs the same from such a folder.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1

c1() {
# Call 1 (nvidia-h200-x2): traces of the first two-GPU plan and of striped writes; then
# VAST on two capped GPUs (striped writes, whole writes) against one, thesis sizes, 3 runs.
W=/tmp/w; mkdir -p $W; cd /tmp
L=$B/lib/libtutti.so
tr() { # name app size limit [extra env]
  local n=$1 app=$2 size=$3 lim=$4; shift 4
  env TUTTI_MEM_LIMIT=1:$lim TUTTI_PLACEMENT=device:1 TUTTI_STATS=1 TUTTI_TRACE=$W/trace-$n-one.json LD_PRELOAD=$L timeout 60 $B/apps/$app --size $size "$@" > $W/$n-one.log 2>&1
  env TUTTI_MEM_LIMIT=1:$lim,2:$lim TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,1,1 TUTTI_STATS=1 TUTTI_TRACE=$W/trace-$n-two.json LD_PRELOAD=$L timeout 60 $B/apps/$app --size $size "$@" > $W/$n-two.log 2>&1
  env TUTTI_VAST_STRIPES=0 TUTTI_MEM_LIMIT=1:$lim,2:$lim TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,1,1 TUTTI_STATS=1 TUTTI_TRACE=$W/trace-$n-two0.json LD_PRELOAD=$L timeout 60 $B/apps/$app --size $size "$@" > $W/$n-two0.log 2>&1
  echo "$n $(grep -h RESULT $W/$n-one.log $W/$n-two.log $W/$n-two0.log | grep -o "wall_ms=[0-9.]*" | paste -sd' ') $(grep -ho 'vast_replica_bytes=[0-9]*' $W/$n-two.log $W/$n-two0.log | paste -sd' ')"
}
tr red Reduction small 10669272
tr red2 Reduction small 10669272
tr bs BlackScholes thesis 447392426
tr mm MatrixMultiplication small 33554432 --m 2048 --n 2048 --k 2048
for f in $W/trace-*.json; do python3 - "$f" <<'PY'
import json,sys,collections
d=json.load(open(sys.argv[1])); ev=d['traceEvents'] if isinstance(d,dict) else d
ev=[e for e in ev if e.get('ph')=='X']
tot=collections.defaultdict(float); cnt=collections.Counter()
for e in ev: tot[e['name']]+=e.get('dur',0)/1000; cnt[e['name']]+=1
print(sys.argv[1].split('/')[-1])
for k,v in sorted(tot.items(),key=lambda x:-x[1])[:14]: print('  %-34s n=%-4d %9.3f ms'%(k,cnt[k],v))
for e in ev:
  if 'plan' in e['name'] or 'variant' in e['name']: print('    %-30s %8.3f ms'%(e['name'],e.get('dur',0)/1000))
PY
done > $W/spans.txt
cat $W/spans.txt | head -150
gzip $W/*.json
(cd $W && tar czf $OUT/c1-traces.tgz .)
MODES="vast two two0" timeout 400 "$B/vast_fig.sh" $OUT/vast --apps BlackScholes,Reduction,SobelFilter,FDTD3d,MersenneTwister,Nbody:small:1.5:n=65536,MatrixMultiplication:small:1.5:m=2048/n=2048/k=2048,MedianFilter --size thesis --ratio 1.5 --repeat 3 > $OUT/vast.log 2>&1
echo "=== vast rc $?"; tail -28 $OUT/vast/vast.md
}

c2() {
# Call 2 (nvidia-h200-x2): Fig. 3.10 (SKMD vs the fastest single device) over the 11 apps on
# this tree, profiled anew, native on GPU 1 (the CPU is 20-600x slower on these kernels).
W=/tmp/w2; mkdir -p $W; cd /tmp
timeout 470 "$B/fig310.sh" $W/fig --apps BinomialOption,MatrixMultiplication,Nbody,AESEncrypt,BlackScholes,FDTD3d,Histogram,MatrixTranspose,MersenneTwister,Reduction,VectorAdd --devices 1 --modes tutti-skmd,tutti-whole --repeat 3 --budget 440 > $OUT/fig.log 2>&1
echo "=== fig rc $?"
cp $W/fig/fig310.md $OUT/ 2>/dev/null; head -40 $W/fig/fig310.md
(cd $W && tar czf $OUT/c2-fig.tgz --exclude='*.sqlite*' .)
}

c3() {
# Call 3 (nvidia-h200-x2): Fig. 3.10's last apps (Reduction, VectorAdd) and FDTD3d again,
# traces of FDTD3d under SKMD and whole (the lowest SKMD gain in call 2), a first two-GPU
W=/tmp/w3; mkdir -p $W/tr; cd /tmp
L=$B/lib/libtutti.so
timeout 200 "$B/fig310.sh" $W/fig --apps Reduction,VectorAdd,FDTD3d --devices 1 --modes tutti-skmd,tutti-whole --repeat 3 > $OUT/fig.log 2>&1
echo "=== fig rc $?"; cp $W/fig/fig310.md $OUT/; sed -n 3,20p $W/fig/fig310.md
for m in skmd whole; do for r in 1 2; do
  cp $W/fig/FDTD3d/profiles.sqlite /tmp/db.sqlite
  mode=$m; [ $m = whole ] && mode=whole
  env TUTTI_MODE=$m TUTTI_PLACEMENT=auto TUTTI_STATS=1 TUTTI_PROFILE_DB=/tmp/db.sqlite TUTTI_TRACE=$W/tr/trace-FDTD3d-$m-$r.json LD_PRELOAD=$L $B/apps/FDTD3d --size thesis > $W/tr/FDTD3d-$m-$r.log 2>&1
  echo "FDTD3d $m $r $(grep -o 'wall_ms=[0-9.]*' $W/tr/FDTD3d-$m-$r.log)"
done; done
for r in 1 2; do
  env TUTTI_MEM_LIMIT=1:10669272,2:10669272 TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,1,1 TUTTI_STATS=1 TUTTI_TRACE=$W/tr/trace-red-two-$r.json LD_PRELOAD=$L timeout 60 $B/apps/Reduction --size small > $W/tr/red-two-$r.log 2>&1
  echo "red two $r $(grep -o 'wall_ms=[0-9.]*' $W/tr/red-two-$r.log)"
done
gzip $W/tr/*.json
(cd $W && tar czf $OUT/c3.tgz --exclude='*.sqlite*' .)
MODES="vast two two0" timeout 240 "$B/vast_fig.sh" $OUT/vastbig --apps BlackScholes:thesis:1.5:n=134217728,Reduction:thesis:1.5:n=536870912 --size thesis --ratio 1.5 --repeat 3 --timeout 60 > $OUT/vastbig.log 2>&1
echo "=== vast rc $?"; tail -16 $OUT/vastbig/vast.md
}

c4() {
# Call 4 (nvidia-h200-x2): stripes written at once (df59b5a) against in turn (7f6986c),
# interleaved, on two capped GPUs; then VAST two capped GPUs vs one at thesis and GB sizes.
xz -dc "$here/base.so.xz" > /tmp/base.so
cd /tmp
NEW=$B/lib/libtutti.so BASE=/tmp/base.so
printf "app\trun\tlib\tmode\twall_ms\tstatus\treplica_bytes\n" > $OUT/stripes-ab.tsv
for spec in BlackScholes:447392426 SobelFilter:176947200 MedianFilter:176947200; do
  app=${spec%%:*} lim=${spec#*:}
  for r in 1 2 3 4; do for lib in new base one huge; do
    if [ $lib = one ]; then
      out=$(env TUTTI_MEM_LIMIT=1:$lim TUTTI_PLACEMENT=device:1 TUTTI_STATS=1 LD_PRELOAD=$NEW timeout 30 $B/apps/$app --size thesis 2>&1)
    else
      L=$NEW; [ $lib = base ] && L=$BASE
      out=$(env TUTTI_HUGE_PAGES=$([ $lib = huge ] && echo 1 || echo 0) TUTTI_MEM_LIMIT=1:$lim,2:$lim TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,1,1 TUTTI_STATS=1 LD_PRELOAD=$L timeout 30 $B/apps/$app --size thesis 2>&1)
    fi
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" $app $r $lib two "$(grep RESULT <<<"$out" | grep -o 'wall_ms=[0-9.]*' | cut -d= -f2)" \
      "$(grep -o 'status=[A-Z]*' <<<"$out" | tail -1)" "$(grep -o 'vast_replica_bytes=[0-9]*' <<<"$out" | cut -d= -f2)" >> $OUT/stripes-ab.tsv
  done; done
done
python3 - $OUT/stripes-ab.tsv <<'PY' | tee $OUT/stripes-ab.md
import csv,sys,statistics as st
rows=list(csv.DictReader(open(sys.argv[1]),delimiter='\t'))
apps=[]; [apps.append(r['app']) for r in rows if r['app'] not in apps]
print("| app | one capped GPU | two, stripes in turn (7f6986c) | two, stripes at once (df59b5a) | at once / in turn | two (at once) / one | two, at once, TUTTI_HUGE_PAGES=1 |\n|---|---:|---:|---:|---:|---:|---:|")
for a in apps:
  m={l: st.median([float(r['wall_ms']) for r in rows if r['app']==a and r['lib']==l and r['status']=='status=PASS'] or [float('nan')]) for l in ('one','base','new','huge')}
  print(f"| {a} | {m['one']:.1f} | {m['base']:.1f} | {m['new']:.1f} | {m['base']/m['new']:.2f}x | {m['one']/m['new']:.2f}x | {m['huge']:.1f} |")
print("non-PASS:", sum(1 for r in rows if r['status']!='status=PASS'))
PY
MODES="vast two" timeout 200 "$B/vast_fig.sh" $OUT/vast --apps BlackScholes,Reduction,SobelFilter,FDTD3d,MersenneTwister,Nbody:small:1.5:n=65536,MatrixMultiplication:small:1.5:m=2048/n=2048/k=2048,MedianFilter --size thesis --ratio 1.5 --repeat 3 > $OUT/vast.log 2>&1
echo "=== vast rc $?"; tail -14 $OUT/vast/vast.md
MODES="vast two" timeout 100 "$B/vast_fig.sh" $OUT/vastbig --apps BlackScholes:thesis:1.5:n=134217728,Reduction:thesis:1.5:n=536870912 --size thesis --ratio 1.5 --repeat 3 --timeout 60 > $OUT/vastbig.log 2>&1
echo "=== vastbig rc $?"; tail -5 $OUT/vastbig/vast.md
}

"$1"
