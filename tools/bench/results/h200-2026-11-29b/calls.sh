# ===== c1.sh
#!/usr/bin/env bash
# Session 35, call 1 (nvidia-h200): this tree against base f2a26e5, interleaved:
# K-means apps under MKMD (11 rounds, session 34's databases) and whole mode; one timed
# debug log per mode; FDTD3d and Reduction under SKMD against whole (9 rounds, databases
# from fig310.sh's profiling here).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
W=/tmp/w; mkdir -p $W/tr; cd /tmp
L=$B/lib/libtutti.so
xz -dc "$here/base.so.xz" > /tmp/base.so
runone() { # app cfg round db size
  local app=$1 cfg=$2 r=$3 db=$4 size=$5 lib=$L mode=${2%-*}
  case $cfg in *-base) lib=/tmp/base.so ;; esac
  env TUTTI_MODE=$mode TUTTI_STATS=1 TUTTI_PROFILE_DB=$db LD_PRELOAD=$lib timeout 60 $B/apps/$app --size $size > $W/tr/$app-$cfg-$r.log 2>&1
  echo "$app $cfg $r $(grep -o 'wall_ms=[0-9.]*' $W/tr/$app-$cfg-$r.log) $(grep -o 'status=[A-Z]*' $W/tr/$app-$cfg-$r.log)" >> $OUT/ab.txt
}
T0=$SECONDS
for app in kmeans kmeans_ensemble; do
  for r in $(seq 1 11); do for cfg in whole-new mkmd-new mkmd-base; do
    rm -f /tmp/db.sqlite*; cp $here/dbs/$app.sqlite /tmp/db.sqlite
    runone $app $cfg $r /tmp/db.sqlite thesis
  done; done
done
echo "kmeans part $((SECONDS-T0)) s" >> $OUT/times.txt
for m in whole mkmd; do for lib in new base; do
  [ $m = whole ] && [ $lib = base ] && continue
  LL=$L; [ $lib = base ] && LL=/tmp/base.so
  rm -f /tmp/db.sqlite*; cp $here/dbs/kmeans.sqlite /tmp/db.sqlite
  env TUTTI_MODE=$m TUTTI_PROFILE_DB=/tmp/db.sqlite TUTTI_LOG=debug TUTTI_LOG_TIME=1 LD_PRELOAD=$LL $B/apps/kmeans --size thesis > $W/kmeans-$m-$lib-debug.log 2>&1
done; done
T1=$SECONDS
timeout 200 "$B/fig310.sh" $W/fig --apps FDTD3d,Reduction --devices 1 --modes tutti-skmd,tutti-whole --repeat 1 > $OUT/fig.log 2>&1
echo "=== fig rc $? $((SECONDS-T1)) s" >> $OUT/times.txt
for app in FDTD3d Reduction; do
  [ -f $W/fig/$app/profiles.sqlite ] || continue
  for r in $(seq 1 9); do for cfg in whole-new skmd-new skmd-base; do
    [ $SECONDS -gt 540 ] && break 3
    rm -f /tmp/db.sqlite*; cp $W/fig/$app/profiles.sqlite /tmp/db.sqlite
    runone $app $cfg $r /tmp/db.sqlite thesis
  done; done
done
echo "total $SECONDS s" >> $OUT/times.txt
python3 - $OUT/ab.txt <<'PY' | tee $OUT/ab-summary.txt
import re,statistics,sys,collections
v=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.match(r'(\S+) (\S+) (\S+) wall_ms=([0-9.]+)',l)
    if m and 'PASS' in l: v[(m[1],m[2])].append(float(m[4]))
for app in sorted({a for a,_ in v}):
    w=statistics.median(v[(app,'whole-new')]) if v[(app,'whole-new')] else float('nan')
    for c in sorted({c for a,c in v if a==app}):
        x=v[(app,c)]
        print('%-16s %-10s n=%d median %.3f ms  whole/this %.3f  %s'%(app,c,len(x),statistics.median(x),w/statistics.median(x),' '.join('%.2f'%y for y in x)))
PY
gzip $W/*-debug.log
mkdir -p $W/dbs; for a in FDTD3d Reduction; do cp $W/fig/$a/profiles.sqlite $W/dbs/$a.sqlite 2>/dev/null; done
(cd $W && tar czf $OUT/c1.tgz tr *-debug.log.gz dbs fig/*.md 2>/dev/null); ls -la $OUT
# ===== c2.sh
#!/usr/bin/env bash
# Session 35, call 2 (nvidia-h200): K-means apps under MKMD, this tree with and without
# TUTTI_MKMD_FIRST_UNJUDGED, base f2a26e5, and whole mode, 11 interleaved rounds on session
# 34's databases; then one timed debug log per configuration.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
W=/tmp/w; mkdir -p $W/tr; cd /tmp
L=$B/lib/libtutti.so
xz -dc "$here/base.so.xz" > /tmp/base.so
runone() { # app cfg round db size [debug]
  local app=$1 cfg=$2 r=$3 db=$4 size=$5 lib=$L mode=${2%-*} extra=
  case $cfg in *-base) lib=/tmp/base.so ;; *-unj) extra=TUTTI_MKMD_FIRST_UNJUDGED=1 ;; esac
  if [ -n "${6:-}" ]; then
    env $extra TUTTI_MODE=$mode TUTTI_PROFILE_DB=$db TUTTI_LOG=debug TUTTI_LOG_TIME=1 LD_PRELOAD=$lib $B/apps/$app --size $size > $W/$app-$cfg-debug.log 2>&1
    return
  fi
  env $extra TUTTI_MODE=$mode TUTTI_STATS=1 TUTTI_PROFILE_DB=$db LD_PRELOAD=$lib timeout 60 $B/apps/$app --size $size > $W/tr/$app-$cfg-$r.log 2>&1
  echo "$app $cfg $r $(grep -o 'wall_ms=[0-9.]*' $W/tr/$app-$cfg-$r.log) $(grep -o 'status=[A-Z]*' $W/tr/$app-$cfg-$r.log)" >> $OUT/ab.txt
}
for app in kmeans kmeans_ensemble; do
  for r in $(seq 1 11); do for cfg in whole-new mkmd-new mkmd-unj mkmd-base; do
    [ $SECONDS -gt 480 ] && break 3
    rm -f /tmp/db.sqlite*; cp $here/dbs/$app.sqlite /tmp/db.sqlite
    runone $app $cfg $r /tmp/db.sqlite thesis
  done; done
done
for cfg in whole-new mkmd-new mkmd-unj; do
  rm -f /tmp/db.sqlite*; cp $here/dbs/kmeans.sqlite /tmp/db.sqlite
  runone kmeans $cfg 0 /tmp/db.sqlite thesis debug
done
echo "total $SECONDS s" >> $OUT/times.txt
python3 - $OUT/ab.txt <<'PY' | tee $OUT/ab-summary.txt
import re,statistics,sys,collections
v=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.match(r'(\S+) (\S+) (\S+) wall_ms=([0-9.]+)',l)
    if m and 'PASS' in l: v[(m[1],m[2])].append(float(m[4]))
for app in sorted({a for a,_ in v}):
    w=statistics.median(v[(app,'whole-new')]) if v[(app,'whole-new')] else float('nan')
    for c in sorted({c for a,c in v if a==app}):
        x=v[(app,c)]
        print('%-16s %-10s n=%d median %.3f ms  whole/this %.3f  %s'%(app,c,len(x),statistics.median(x),w/statistics.median(x),' '.join('%.2f'%y for y in x)))
PY
gzip $W/*-debug.log
(cd $W && tar czf $OUT/c2.tgz tr *-debug.log.gz 2>/dev/null); ls -la $OUT
# ===== c3.sh
#!/usr/bin/env bash
# Session 35, call 3 (nvidia-h200), same tree as call 2: FDTD3d and Reduction profiled
# (fig310.sh), one traced and one timed-debug run of FDTD3d in whole and SKMD mode; then the
# K-means apps (whole, MKMD, MKMD with TUTTI_MKMD_FIRST_UNJUDGED=1; 21 interleaved rounds on
# session 34's databases) and FDTD3d and Reduction (whole, SKMD; 11 rounds).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
W=/tmp/w; mkdir -p $W/tr; cd /tmp
L=$B/lib/libtutti.so
runone() { # app cfg round db size
  local app=$1 cfg=$2 r=$3 db=$4 size=$5 mode=${2%-*} extra=
  case $cfg in *-unj) extra=TUTTI_MKMD_FIRST_UNJUDGED=1 ;; esac
  env $extra TUTTI_MODE=$mode TUTTI_STATS=1 TUTTI_PROFILE_DB=$db LD_PRELOAD=$L timeout 60 $B/apps/$app --size $size > $W/tr/$app-$cfg-$r.log 2>&1
  echo "$app $cfg $r $(grep -o 'wall_ms=[0-9.]*' $W/tr/$app-$cfg-$r.log) $(grep -o 'status=[A-Z]*' $W/tr/$app-$cfg-$r.log)" >> $OUT/ab.txt
}
timeout 120 "$B/fig310.sh" $W/fig --apps FDTD3d,Reduction --devices 1 --modes tutti-skmd,tutti-whole --repeat 1 > $OUT/fig.log 2>&1
echo "fig $SECONDS s" >> $OUT/times.txt
for m in whole skmd; do
  rm -f /tmp/db.sqlite*; cp $W/fig/FDTD3d/profiles.sqlite /tmp/db.sqlite
  env TUTTI_MODE=$m TUTTI_PROFILE_DB=/tmp/db.sqlite TUTTI_TRACE=$W/trace-FDTD3d-$m.json LD_PRELOAD=$L $B/apps/FDTD3d --size thesis > $W/FDTD3d-$m-trace.log 2>&1
  rm -f /tmp/db.sqlite*; cp $W/fig/FDTD3d/profiles.sqlite /tmp/db.sqlite
  env TUTTI_MODE=$m TUTTI_PROFILE_DB=/tmp/db.sqlite TUTTI_LOG=debug TUTTI_LOG_TIME=1 LD_PRELOAD=$L $B/apps/FDTD3d --size thesis > $W/FDTD3d-$m-debug.log 2>&1
done
for app in kmeans kmeans_ensemble; do
  for r in $(seq 1 21); do for cfg in whole-new mkmd-new mkmd-unj; do
    [ $SECONDS -gt 400 ] && break 3
    rm -f /tmp/db.sqlite*; cp $here/dbs/$app.sqlite /tmp/db.sqlite
    runone $app $cfg $r /tmp/db.sqlite thesis
  done; done
done
echo "kmeans $SECONDS s" >> $OUT/times.txt
for app in FDTD3d Reduction; do
  [ -f $W/fig/$app/profiles.sqlite ] || continue
  for r in $(seq 1 11); do for cfg in whole-new skmd-new; do
    [ $SECONDS -gt 540 ] && break 3
    rm -f /tmp/db.sqlite*; cp $W/fig/$app/profiles.sqlite /tmp/db.sqlite
    runone $app $cfg $r /tmp/db.sqlite thesis
  done; done
done
echo "total $SECONDS s" >> $OUT/times.txt
python3 - $OUT/ab.txt <<'PY' | tee $OUT/ab-summary.txt
import re,statistics,sys,collections
v=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.match(r'(\S+) (\S+) (\S+) wall_ms=([0-9.]+)',l)
    if m and 'PASS' in l: v[(m[1],m[2])].append(float(m[4]))
for app in sorted({a for a,_ in v}):
    w=statistics.median(v[(app,'whole-new')]) if v[(app,'whole-new')] else float('nan')
    for c in sorted({c for a,c in v if a==app}):
        x=v[(app,c)]
        print('%-16s %-10s n=%d median %.3f ms  whole/this %.3f  %s'%(app,c,len(x),statistics.median(x),w/statistics.median(x),' '.join('%.2f'%y for y in x)))
PY
gzip $W/*-debug.log $W/*.json
mkdir -p $W/dbs; for a in FDTD3d Reduction; do cp $W/fig/$a/profiles.sqlite $W/dbs/$a.sqlite 2>/dev/null; done
(cd $W && tar czf $OUT/c3.tgz tr *-debug.log.gz *.json.gz *-trace.log dbs fig/*.md 2>/dev/null); ls -la $OUT
# ===== c4.sh
#!/usr/bin/env bash
# Session 35, call 4 (nvidia-h200), tree 15e5880 against base f2a26e5: the six Table 5.3 apps
# profiled anew, then 5 interleaved rounds under whole mode, MKMD, and MKMD of base.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
xz -dc $here/base.so.xz > /tmp/base.so
cd /tmp
timeout 540 "$B/mkmd_record.sh" /tmp/mk --apps mk_ABE,mk_BiCGSTAB,mk_TripleCommutator,mk_ReachabilityGramian,mk_Jacobi,mk_Lyapunov --measure 5 --modes whole,mkmd,mkmd@base --base-lib /tmp/base.so --budget 240 > $OUT/mk.log 2>&1
echo "rc=$? $SECONDS s" >> $OUT/times.txt
cp /tmp/mk/measure.md $OUT/c4-measure.md 2>/dev/null; cp /tmp/mk/measure.tsv $OUT/c4-measure.tsv 2>/dev/null
ls -la $OUT
# ===== c5.sh
#!/usr/bin/env bash
# Session 35, call 5 (nvidia-h200), tree 15e5880: the Triple Commutator and mk_ABE profiled,
# then one run each in whole mode and under MKMD with TUTTI_STATS, a trace and info logs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
cd /tmp; W=/tmp/w; mkdir -p $W
timeout 200 "$B/mkmd_record.sh" /tmp/mk --apps mk_TripleCommutator,mk_ABE > $OUT/mk.log 2>&1
L=$B/lib/libtutti.so
for app in mk_TripleCommutator mk_ABE; do for m in whole mkmd; do
  rm -f /tmp/db.sqlite*; cp /tmp/mk/$app/profiles.sqlite /tmp/db.sqlite
  env TUTTI_MODE=$m TUTTI_STATS=1 TUTTI_LOG=info TUTTI_LOG_TIME=1 TUTTI_PROFILE_DB=/tmp/db.sqlite TUTTI_TRACE=$W/trace-$app-$m.json LD_PRELOAD=$L $B/apps/$app --size thesis > $W/$app-$m.log 2>&1
done; done
gzip $W/*.json
(cd $W && tar czf $OUT/c5.tgz .); echo "total $SECONDS s"; ls -la $OUT
# ===== c6.sh
#!/usr/bin/env bash
# Session 35, call 6 (nvidia-h200), tree 15e5880: the Triple Commutator profiled at n = 2048
# and 4096 (bracketing the run) instead of 1024 and 2048, then 3 interleaved rounds in whole
# mode and under MKMD with TUTTI_STATS: does the schedule still send work to the CPU?
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
P=$(find $B -name mkmd_params.tsv | head -1)
sed -i 's/^mk_TripleCommutator\t--n 1024\t--n 2048/mk_TripleCommutator\t--n 2048\t--n 4096/' $P
grep TripleCommutator $P > $OUT/params.txt
cd /tmp
timeout 170 "$B/mkmd_record.sh" /tmp/mk --apps mk_TripleCommutator > $OUT/mk.log 2>&1
echo "record $SECONDS s" >> $OUT/times.txt
L=$B/lib/libtutti.so
for r in 1 2 3; do for m in whole mkmd; do
  [ $SECONDS -gt 230 ] && break 2
  rm -f /tmp/db.sqlite*; cp /tmp/mk/mk_TripleCommutator/profiles.sqlite /tmp/db.sqlite
  env TUTTI_MODE=$m TUTTI_STATS=1 TUTTI_LOG=info TUTTI_PROFILE_DB=/tmp/db.sqlite LD_PRELOAD=$L $B/apps/mk_TripleCommutator --size thesis > $OUT/tc-$m-$r.log 2>&1
done; done
echo "total $SECONDS s" >> $OUT/times.txt
grep -h "wall_ms\|mkmd:\|TUTTI device\|TUTTI mkmd" $OUT/tc-*.log | cut -c1-200
