# ===== c1.sh
#!/usr/bin/env bash
# Session 34, call 1 (nvidia-h200): issue 19's K-means apps at thesis size on CPU + one H200
# after the hulls of a launch that goes at once are worked out after its issue: profiled
# anew, then 11 interleaved runs natively, under Tutti whole, MKMD, and MKMD with the last
# session's library (base, f918ae5). Then one traced and one timed-debug run per mode.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
xz -dc $here/base.so.xz > /tmp/base.so
cd /tmp
timeout 430 "$B/mkmd_record.sh" /tmp/mk --apps kmeans,kmeans_ensemble --measure 11 --modes native,whole,mkmd,mkmd@base --base-lib /tmp/base.so > $OUT/mk.log 2>&1
echo "rc=$?"
cp /tmp/mk/measure.md $OUT/c1-kmeans-measure.md 2>/dev/null; cp /tmp/mk/measure.tsv $OUT/c1-kmeans-measure.tsv 2>/dev/null
W=/tmp/w; mkdir -p $W
L=$B/lib/libtutti.so
for app in kmeans; do for m in whole mkmd; do for lib in new base; do
  [ $m = whole ] && [ $lib = base ] && continue
  LL=$L; [ $lib = base ] && LL=/tmp/base.so
  cp /tmp/mk/$app/profiles.sqlite /tmp/db.sqlite
  env TUTTI_MODE=$m TUTTI_STATS=1 TUTTI_PROFILE_DB=/tmp/db.sqlite TUTTI_TRACE=$W/trace-$app-$m-$lib.json LD_PRELOAD=$LL $B/apps/$app --size thesis > $W/$app-$m-$lib.log 2>&1
  cp /tmp/mk/$app/profiles.sqlite /tmp/db.sqlite
  env TUTTI_MODE=$m TUTTI_PROFILE_DB=/tmp/db.sqlite TUTTI_LOG=debug TUTTI_LOG_TIME=1 LD_PRELOAD=$LL $B/apps/$app --size thesis > $W/$app-$m-$lib-debug.log 2>&1
done; done; done
gzip $W/*.json $W/*-debug.log
mkdir -p $W/dbs; for a in kmeans kmeans_ensemble; do cp /tmp/mk/$a/profiles.sqlite $W/dbs/$a.sqlite 2>/dev/null; done
cp $OUT/mk.log $W/ 2>/dev/null
(cd $W && tar czf $OUT/c1.tgz .); ls -la $OUT
# ===== c2.sh
#!/usr/bin/env bash
# Session 34, call 2 (nvidia-h200), tree 85dd366 against base f918ae5, interleaved:
# K-means apps under MKMD (11 rounds, call 1's databases), and FDTD3d and Reduction under
# SKMD against whole mode (9 rounds, databases from fig310.sh's profiling here).
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
for app in kmeans kmeans_ensemble; do
  for r in $(seq 1 11); do for cfg in whole-new mkmd-new mkmd-base; do
    rm -f /tmp/db.sqlite*; cp $here/dbs/$app.sqlite /tmp/db.sqlite
    runone $app $cfg $r /tmp/db.sqlite thesis
  done; done
done
timeout 200 "$B/fig310.sh" $W/fig --apps FDTD3d,Reduction --devices 1 --modes tutti-skmd,tutti-whole --repeat 1 > $OUT/fig.log 2>&1
echo "=== fig rc $?"
for app in FDTD3d Reduction; do
  [ -f $W/fig/$app/profiles.sqlite ] || continue
  for r in $(seq 1 9); do for cfg in whole-new skmd-new skmd-base; do
    rm -f /tmp/db.sqlite*; cp $W/fig/$app/profiles.sqlite /tmp/db.sqlite
    runone $app $cfg $r /tmp/db.sqlite thesis
  done; done
done
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
(cd $W && tar czf $OUT/c2.tgz tr fig/*.md 2>/dev/null); ls -la $OUT
