#!/usr/bin/env bash
# The seven device calls of session 30 (nvidia-h100-x2, served by two H200s). Each ran as
# `bash cN.sh` from a carried folder holding the bundle (bundle.tar.xz), with the preamble
# below, then its own section: `bash calls.sh cN` runs the same from such a folder.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null

c1() {
# Call 1 (nvidia-h100-x2): MKMD on the eight apps at f250c55 (profiles anew), native/whole/mkmd.
W=/tmp/w; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/BUILD_INFO 2>/dev/null) > $W/machine.txt 2>&1
cd /tmp
timeout 510 "$B/mkmd_record.sh" $W/mk --measure 3 --budget 200 > $W/mk.log 2>&1
echo "=== rc $?"
cat $W/mk/measure.md 2>/dev/null | head -40
tail -5 $W/mk.log
(cd $W && tar czf $OUT/c1.tgz .)
}

c2() {
# Call 2 (nvidia-h100-x2): K-means apps under MKMD (profiled anew), and VAST on two capped GPUs
# (data 1.5x one GPU's cap) against one, at f250c55.
W=/tmp/w; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name') > $W/machine.txt 2>&1
cd /tmp
timeout 200 "$B/mkmd_record.sh" $W/mk --apps kmeans,kmeans_ensemble --measure 5 > $W/mk.log 2>&1
echo "=== mk rc $?"; cat $W/mk/measure.md 2>/dev/null | sed -n 3,8p
MODES="vast two" timeout 300 "$B/vast_fig.sh" $W/vast --ratio 1.5 --repeat 3 > $W/vast.log 2>&1
echo "=== vast rc $?"; cat $W/vast/vast.md | tail -14
(cd $W && tar czf $OUT/c2.tgz --exclude='*.sqlite*' .)
}

c3() {
# Call 3 (nvidia-h100-x2): VAST two capped GPUs vs one at thesis sizes (f250c55), and traces
# of Reduction small and BlackScholes thesis, one capped GPU against two.
W=/tmp/w; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name') > $W/machine.txt 2>&1
cd /tmp
MODES="vast two" timeout 330 "$B/vast_fig.sh" $W/vast --apps BlackScholes,Reduction,SobelFilter,FDTD3d,MersenneTwister,Nbody:small:1.5:n=65536,MatrixMultiplication:small:1.5:m=2048/n=2048/k=2048,MedianFilter --size thesis --ratio 1.5 --repeat 1 > $W/vast.log 2>&1
echo "=== vast rc $?"; tail -13 $W/vast/vast.md
L=$B/lib/libtutti.so
tr() { # name app size limit
  local n=$1 app=$2 size=$3 lim=$4
  env TUTTI_MEM_LIMIT=1:$lim TUTTI_PLACEMENT=device:1 TUTTI_STATS=1 TUTTI_TRACE=$W/trace-$n-one.json LD_PRELOAD=$L timeout 60 $B/apps/$app --size $size > $W/$n-one.log 2>&1
  env TUTTI_MEM_LIMIT=1:$lim,2:$lim TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,1,1 TUTTI_STATS=1 TUTTI_TRACE=$W/trace-$n-two.json LD_PRELOAD=$L timeout 60 $B/apps/$app --size $size > $W/$n-two.log 2>&1
  grep -h RESULT $W/$n-one.log $W/$n-two.log | grep -o "wall_ms=[0-9.]*"
}
tr red-small Reduction small 10669272
tr red-small2 Reduction small 10669272
tr bs-thesis BlackScholes thesis 447392426
tr nb-small Nbody small 436906
gzip $W/*.json
(cd $W && tar czf $OUT/c3.tgz .)
}

c4() {
# Call 4 (nvidia-h100-x2): where a small paged launch's fixed costs go (e6245e8 spans):
# Reduction, Nbody and BlackScholes small, one capped GPU against two, traced.
W=/tmp/w; mkdir -p $W
cd /tmp
L=$B/lib/libtutti.so
tr() { # name app size limit
  local n=$1 app=$2 size=$3 lim=$4
  env TUTTI_MEM_LIMIT=1:$lim TUTTI_PLACEMENT=device:1 TUTTI_STATS=1 TUTTI_TRACE=$W/trace-$n-one.json LD_PRELOAD=$L timeout 60 $B/apps/$app --size $size > $W/$n-one.log 2>&1
  env TUTTI_MEM_LIMIT=1:$lim,2:$lim TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,1,1 TUTTI_STATS=1 TUTTI_TRACE=$W/trace-$n-two.json LD_PRELOAD=$L timeout 60 $B/apps/$app --size $size > $W/$n-two.log 2>&1
  echo "$n $(grep -h RESULT $W/$n-one.log $W/$n-two.log | grep -o "wall_ms=[0-9.]*" | paste -sd' ')"
}
tr red Reduction small 10669272
tr red2 Reduction small 10669272
tr nb Nbody small 436906
tr bs BlackScholes small 13333373
for f in $W/trace-*.json; do python3 - "$f" <<'PY'
import json,sys
d=json.load(open(sys.argv[1])); ev=d['traceEvents'] if isinstance(d,dict) else d
ev=[e for e in ev if e.get('ph')=='X' and e.get('cat') in ('vast','tutti')]
print(sys.argv[1].split('/')[-1])
for e in sorted(ev,key=lambda e:e['ts']):
  if e['name'] not in ('slice copy-in issued','slice copy-out issued'): print('  %-28s tid=%s %9.3f ms'%(e['name'],e.get('tid'),e.get('dur',0)/1000))
PY
done
gzip $W/*.json
(cd $W && tar czf $OUT/c4.tgz .)
}

c5() {
# Call 5 (nvidia-h100-x2): 804d1c5 (a small VAST run does not wait for a ring) against
# e6245e8, interleaved: small apps paged on one capped GPU and on two; then vast_fig "two"
# at thesis sizes with 804d1c5.
xz -dc "$here/base/libtutti.so.xz" > /tmp/base.so
W=/tmp/w; mkdir -p $W
(nvidia-smi -L; nproc; cat $B/BUILD_INFO 2>/dev/null) > $W/machine.txt 2>&1
cd /tmp
NEW=$B/lib/libtutti.so BASE=/tmp/base.so
one() { # lib mode app lim
  local lib=$1 mode=$2 app=$3 lim=$4 out
  if [ $mode = one ]; then
    out=$(env TUTTI_MEM_LIMIT=1:$lim TUTTI_PLACEMENT=device:1 TUTTI_STATS=1 LD_PRELOAD=$lib timeout 60 $B/apps/$app --size small 2>&1)
  else
    out=$(env TUTTI_MEM_LIMIT=1:$lim,2:$lim TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,1,1 TUTTI_STATS=1 LD_PRELOAD=$lib timeout 60 $B/apps/$app --size small 2>&1)
  fi
  echo "$(grep -o 'status=[A-Z]*' <<<"$out" | tail -1) $(grep RESULT <<<"$out" | grep -o 'wall_ms=[0-9.]*' | cut -d= -f2) $(grep -o 'vast_slices=[0-9]*' <<<"$out")"
}
printf "app\tlib\tmode\trun\tstatus\twall_ms\tslices\n" > $W/ab.tsv
for spec in Reduction:10669272 Nbody:436906 BlackScholes:13333373 MatrixMultiplication:2097152 MedianFilter:11059200; do
  app=${spec%%:*} lim=${spec#*:}
  for r in 1 2 3 4 5; do for lib in new base; do for mode in one two; do
    L=$NEW; [ $lib = base ] && L=$BASE
    set -- $(one $L $mode $app $lim)
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" $app $lib $mode $r "$1" "$2" "$3" >> $W/ab.tsv
  done; done; done
done
python3 - $W/ab.tsv <<'PY' | tee $W/ab.md
import csv,sys,statistics as st
rows=list(csv.DictReader(open(sys.argv[1]),delimiter='\t'))
apps=[]; [apps.append(r['app']) for r in rows if r['app'] not in apps]
print("| app | one new | two new | one base | two base | two/one new | two/one base |\n|---|---:|---:|---:|---:|---:|---:|")
for a in apps:
  m={}
  for lib in ('new','base'):
    for mode in ('one','two'):
      v=[float(r['wall_ms']) for r in rows if r['app']==a and r['lib']==lib and r['mode']==mode and r['status']=='status=PASS']
      m[lib,mode]=st.median(v) if v else float('nan')
  print(f"| {a} | {m['new','one']:.1f} | {m['new','two']:.1f} | {m['base','one']:.1f} | {m['base','two']:.1f} | {m['new','one']/m['new','two']:.2f}x | {m['base','one']/m['base','two']:.2f}x |")
print("non-PASS:", sum(1 for r in rows if r['status']!='status=PASS'))
PY
MODES="vast two" timeout 300 "$B/vast_fig.sh" $W/vast --apps BlackScholes,Reduction,SobelFilter,FDTD3d,MersenneTwister,Nbody:small:1.5:n=65536,MatrixMultiplication:small:1.5:m=2048/n=2048/k=2048,MedianFilter --size thesis --ratio 1.5 --repeat 3 > $W/vast.log 2>&1
echo "=== vast rc $?"; tail -13 $W/vast/vast.md
(cd $W && tar czf $OUT/c5.tgz .)
}

c6() {
# Call 6 (nvidia-h100-x2): where MKMD's eager chains lose to whole mode (mk_Jacobi 0.87x,
# mk_BiCGSTAB 0.95x in call 1): traces and timed debug logs of each mode, then 7 interleaved
# runs of whole / mkmd / skmd, profiles of call 1.
W=/tmp/w; mkdir -p $W
cd /tmp
L=$B/lib/libtutti.so
for app in mk_Jacobi mk_BiCGSTAB; do
  for m in whole mkmd; do
    cp $here/db/$app/profiles.sqlite /tmp/db.sqlite
    env TUTTI_MODE=$m TUTTI_STATS=1 TUTTI_PROFILE_DB=/tmp/db.sqlite TUTTI_TRACE=$W/trace-$app-$m.json LD_PRELOAD=$L $B/apps/$app --size thesis > $W/$app-$m-trace.log 2>&1
    cp $here/db/$app/profiles.sqlite /tmp/db.sqlite
    env TUTTI_MODE=$m TUTTI_STATS=1 TUTTI_PROFILE_DB=/tmp/db.sqlite TUTTI_LOG=debug TUTTI_LOG_TIME=1 LD_PRELOAD=$L $B/apps/$app --size thesis > $W/$app-$m-debug.log 2>&1
  done
done
printf "app\tmode\trun\twall\n" > $W/runs.tsv
for app in mk_Jacobi mk_BiCGSTAB; do for r in 1 2 3 4 5 6 7; do for m in whole mkmd skmd; do
  cp $here/db/$app/profiles.sqlite /tmp/db.sqlite
  w=$(env TUTTI_MODE=$m TUTTI_STATS=1 TUTTI_PROFILE_DB=/tmp/db.sqlite LD_PRELOAD=$L $B/apps/$app --size thesis 2>&1 | grep -o 'wall_ms=[0-9.]*' | cut -d= -f2)
  printf "%s\t%s\t%s\t%s\n" $app $m $r "$w" >> $W/runs.tsv
done; done; done
awk -F'\t' 'NR>1{k=$1" "$2; a[k]=a[k]" "$4} END{for(k in a) print k":"a[k]}' $W/runs.tsv | sort
gzip $W/*.json
(cd $W && tar czf $OUT/c6.tgz .)
}

c7() {
# Call 7 (nvidia-h100-x2): issue 19's Fig. 5.10/5.11 (MKMD makespan against profiles per
# kernel) on two GPUs with this machine's own profiles, 804d1c5.
W=/tmp/w; mkdir -p $W
(nvidia-smi -L; nproc) > $W/machine.txt 2>&1
cd /tmp
timeout 330 "$B/mkmd_profiles.sh" $W/prof --sizes 2048,1024,3072 --measure 3 > $W/prof.log 2>&1
echo "=== rc $?"; cat $W/prof/profiles.md 2>/dev/null | head -40; tail -3 $W/prof.log
(cd $W && tar czf $OUT/c7.tgz --exclude='*.sqlite*' .)
}

"${1:?usage: calls.sh c1..c7}"
