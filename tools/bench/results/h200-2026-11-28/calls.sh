#!/usr/bin/env bash
# The device calls of session 32 (nvidia-h200), each run as 'bash cN.sh' from a carried folder
# holding bundle.tar.xz (that call's tree) and base.so.xz (df59b5a's libtutti.so). Call 3 ran
# c2.sh unchanged on b778dbe's bundle.

# ===== c1.sh
# Session 32, call 1 (nvidia-h200): Fig. 3.10 rows of FDTD3d, Reduction, VectorAdd and
# BlackScholes (SKMD and whole against native on the H200); FDTD3d and Reduction under SKMD
# with this tree's library against the last stop's (df59b5a, base.so) and whole, 7
# interleaved rounds on fresh copies of the profile; builds with stored fits; overhead.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
W=/tmp/w; mkdir -p $W/tr; cd /tmp
L=$B/lib/libtutti.so
xz -dc "$here/base.so.xz" > /tmp/base.so
timeout 250 "$B/fig310.sh" $W/fig --apps FDTD3d,Reduction,VectorAdd,BlackScholes --devices 1 --modes tutti-skmd,tutti-whole --repeat 3 > $OUT/fig.log 2>&1
echo "=== fig rc $?"; cp $W/fig/fig310.md $W/fig/fig310.json $OUT/ 2>/dev/null; sed -n 3,24p $W/fig/fig310.md
runone() { # app cfg round db [trace]
  local app=$1 cfg=$2 r=$3 db=$4 lib=$L mode=skmd
  case $cfg in whole-new) mode=whole ;; skmd-base) lib=/tmp/base.so ;; esac
  local tr=""; [ "$r" = 1 ] && tr="TUTTI_TRACE=$W/tr/trace-$app-$cfg.json"
  local t0=$(date +%s%N)
  env TUTTI_MODE=$mode TUTTI_STATS=1 TUTTI_PROFILE_DB=$db $tr LD_PRELOAD=$lib timeout 60 $B/apps/$app --size thesis > $W/tr/$app-$cfg-$r.log 2>&1
  local t1=$(date +%s%N)
  echo "$app $cfg $r $(grep -o 'wall_ms=[0-9.]*' $W/tr/$app-$cfg-$r.log) process_ms=$(( (t1 - t0) / 1000000 )) $(grep -o 'status=[A-Z]*' $W/tr/$app-$cfg-$r.log)" >> $OUT/ab.txt
}
for app in FDTD3d Reduction; do
  [ -f $W/fig/$app/profiles.sqlite ] || continue
  for r in 1 2 3 4 5 6 7; do for cfg in whole-new skmd-new skmd-base; do
    rm -f /tmp/db.sqlite*; cp $W/fig/$app/profiles.sqlite /tmp/db.sqlite
    runone $app $cfg $r /tmp/db.sqlite
  done; done
done
# Builds: the same database three times (the second and third load stored fits, new only)
for cfg in skmd-new skmd-base; do
  rm -f /tmp/keep.sqlite*; cp $W/fig/FDTD3d/profiles.sqlite /tmp/keep.sqlite
  for r in b1 b2 b3; do
    env TUTTI_MODE=skmd TUTTI_PROFILE_DB=/tmp/keep.sqlite TUTTI_TRACE=$W/tr/build-$cfg-$r.json LD_PRELOAD=$([ $cfg = skmd-new ] && echo $L || echo /tmp/base.so) $B/apps/FDTD3d --size thesis > $W/tr/build-$cfg-$r.log 2>&1
    python3 - $W/tr/build-$cfg-$r.json $cfg $r >> $OUT/builds.txt <<'PY'
import json,sys
d=json.load(open(sys.argv[1])); ev=d['traceEvents'] if isinstance(d,dict) else d
b=[e.get('dur',0)/1000 for e in ev if e.get('ph')=='X' and e['name']=='clBuildProgram']
dec=[e.get('dur',0)/1000 for e in ev if e.get('ph')=='X' and e['name']=='skmd plan: decide']
print(sys.argv[2], sys.argv[3], 'clBuildProgram_ms=%s' % b, 'first_decide_ms=%s' % dec[:1])
PY
  done
done
cat $OUT/builds.txt
python3 - $OUT/ab.txt <<'PY' | tee $OUT/ab-summary.txt
import re,statistics,sys,collections
v=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.match(r'(\S+) (\S+) (\S+) wall_ms=([0-9.]+)',l)
    if m and 'PASS' in l: v[(m[1],m[2])].append(float(m[4]))
for app in sorted({a for a,_ in v}):
    w=statistics.median(v[(app,'whole-new')]) if v[(app,'whole-new')] else float('nan')
    for c in ('whole-new','skmd-new','skmd-base'):
        x=v[(app,c)]
        if x: print('%-10s %-10s n=%d median %.2f ms  whole/this %.3f  %s'%(app,c,len(x),statistics.median(x),w/statistics.median(x),' '.join('%.1f'%y for y in x)))
PY
for f in $W/tr/trace-*.json; do python3 - "$f" <<'PY'
import json,sys,collections
d=json.load(open(sys.argv[1])); ev=d['traceEvents'] if isinstance(d,dict) else d
ev=[e for e in ev if e.get('ph')=='X']
tot=collections.defaultdict(float); cnt=collections.Counter()
for e in ev: tot[e['name']]+=e.get('dur',0)/1000; cnt[e['name']]+=1
print(sys.argv[1].split('/')[-1])
for k,v in sorted(tot.items(),key=lambda x:-x[1])[:22]: print('  %-34s n=%-4d %9.3f ms'%(k,cnt[k],v))
PY
done > $OUT/spans.txt
gzip $W/tr/*.json
(cd $W && tar czf $OUT/c1.tgz --exclude='*.sqlite*' tr fig)
BASELINE=/tmp/base.so timeout 100 "$B/overhead.sh" $OUT/ovh > $OUT/overhead.txt 2>&1; tail -4 $OUT/overhead.txt

# ===== c2.sh
# Session 32, call 2 (nvidia-h200): call 1 again on 819ee5e (stored fits, faster range
# analysis, the memo's hulls in Algorithm 1's bytes, screening on even shares), 9 rounds,
# and start-up: VectorAdd --size tiny as a whole process natively, under Tutti whole and
# under Tutti SKMD with a profile, 9 interleaved rounds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
W=/tmp/w; mkdir -p $W/tr; cd /tmp
L=$B/lib/libtutti.so
xz -dc "$here/base.so.xz" > /tmp/base.so
timeout 250 "$B/fig310.sh" $W/fig --apps FDTD3d,Reduction,VectorAdd,BlackScholes --devices 1 --modes tutti-skmd,tutti-whole --repeat 3 > $OUT/fig.log 2>&1
echo "=== fig rc $?"; cp $W/fig/fig310.md $W/fig/fig310.json $OUT/ 2>/dev/null; sed -n 3,24p $W/fig/fig310.md
runone() { # app cfg round db [trace]
  local app=$1 cfg=$2 r=$3 db=$4 lib=$L mode=skmd
  case $cfg in whole-new) mode=whole ;; skmd-base) lib=/tmp/base.so ;; esac
  local tr=""; [ "$r" = 1 ] && tr="TUTTI_TRACE=$W/tr/trace-$app-$cfg.json"
  local t0=$(date +%s%N)
  env TUTTI_MODE=$mode TUTTI_STATS=1 TUTTI_PROFILE_DB=$db $tr LD_PRELOAD=$lib timeout 60 $B/apps/$app --size thesis > $W/tr/$app-$cfg-$r.log 2>&1
  local t1=$(date +%s%N)
  echo "$app $cfg $r $(grep -o 'wall_ms=[0-9.]*' $W/tr/$app-$cfg-$r.log) process_ms=$(( (t1 - t0) / 1000000 )) $(grep -o 'status=[A-Z]*' $W/tr/$app-$cfg-$r.log)" >> $OUT/ab.txt
}
for app in FDTD3d Reduction; do
  [ -f $W/fig/$app/profiles.sqlite ] || continue
  for r in 1 2 3 4 5 6 7 8 9; do for cfg in whole-new skmd-new skmd-base; do
    rm -f /tmp/db.sqlite*; cp $W/fig/$app/profiles.sqlite /tmp/db.sqlite
    runone $app $cfg $r /tmp/db.sqlite
  done; done
done
# Builds: the same database three times (the second and third load stored fits, new only)
for cfg in skmd-new skmd-base; do
  rm -f /tmp/keep.sqlite*; cp $W/fig/FDTD3d/profiles.sqlite /tmp/keep.sqlite
  for r in b1 b2 b3; do
    env TUTTI_MODE=skmd TUTTI_PROFILE_DB=/tmp/keep.sqlite TUTTI_TRACE=$W/tr/build-$cfg-$r.json LD_PRELOAD=$([ $cfg = skmd-new ] && echo $L || echo /tmp/base.so) $B/apps/FDTD3d --size thesis > $W/tr/build-$cfg-$r.log 2>&1
    python3 - $W/tr/build-$cfg-$r.json $cfg $r >> $OUT/builds.txt <<'PY'
import json,sys
d=json.load(open(sys.argv[1])); ev=d['traceEvents'] if isinstance(d,dict) else d
b=[e.get('dur',0)/1000 for e in ev if e.get('ph')=='X' and e['name']=='clBuildProgram']
dec=[e.get('dur',0)/1000 for e in ev if e.get('ph')=='X' and e['name']=='skmd plan: decide']
print(sys.argv[2], sys.argv[3], 'clBuildProgram_ms=%s' % b, 'first_decide_ms=%s' % dec[:1])
PY
  done
done
cat $OUT/builds.txt
for r in 1 2 3 4 5 6 7 8 9; do for cfg in native whole skmd; do
  rm -f /tmp/v.sqlite*; cp $W/fig/VectorAdd/profiles.sqlite /tmp/v.sqlite 2>/dev/null
  t0=$(date +%s%N)
  case $cfg in
    native) $B/apps/VectorAdd --size tiny --device 1 > /tmp/s.log 2>&1 ;;
    whole) env TUTTI_PROFILE_DB=/tmp/v.sqlite LD_PRELOAD=$L $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
    skmd) env TUTTI_MODE=skmd TUTTI_PROFILE_DB=/tmp/v.sqlite LD_PRELOAD=$L $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
  esac
  t1=$(date +%s%N)
  echo "startup $cfg $r process_ms=$(( (t1 - t0) / 1000000 )) $(grep -o 'status=[A-Z]*' /tmp/s.log)" >> $OUT/startup.txt
done; done
python3 - $OUT/startup.txt <<'PY' | tee $OUT/startup-summary.txt
import re,statistics,sys,collections
v=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.match(r'startup (\S+) \S+ process_ms=(\d+) status=PASS',l)
    if m: v[m[1]].append(int(m[2]))
n=statistics.median(v['native']) if v['native'] else float('nan')
for c in ('native','whole','skmd'):
    if v[c]: print('startup %-6s n=%d median %d ms (goal 1.1x native + 20 = %.0f) %s'%(c,len(v[c]),statistics.median(v[c]),1.1*n+20,' '.join(map(str,v[c]))))
PY
python3 - $OUT/ab.txt <<'PY' | tee $OUT/ab-summary.txt
import re,statistics,sys,collections
v=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.match(r'(\S+) (\S+) (\S+) wall_ms=([0-9.]+)',l)
    if m and 'PASS' in l: v[(m[1],m[2])].append(float(m[4]))
for app in sorted({a for a,_ in v}):
    w=statistics.median(v[(app,'whole-new')]) if v[(app,'whole-new')] else float('nan')
    for c in ('whole-new','skmd-new','skmd-base'):
        x=v[(app,c)]
        if x: print('%-10s %-10s n=%d median %.2f ms  whole/this %.3f  %s'%(app,c,len(x),statistics.median(x),w/statistics.median(x),' '.join('%.1f'%y for y in x)))
PY
for f in $W/tr/trace-*.json; do python3 - "$f" <<'PY'
import json,sys,collections
d=json.load(open(sys.argv[1])); ev=d['traceEvents'] if isinstance(d,dict) else d
ev=[e for e in ev if e.get('ph')=='X']
tot=collections.defaultdict(float); cnt=collections.Counter()
for e in ev: tot[e['name']]+=e.get('dur',0)/1000; cnt[e['name']]+=1
print(sys.argv[1].split('/')[-1])
for k,v in sorted(tot.items(),key=lambda x:-x[1])[:22]: print('  %-34s n=%-4d %9.3f ms'%(k,cnt[k],v))
PY
done > $OUT/spans.txt
gzip $W/tr/*.json
(cd $W && tar czf $OUT/c1.tgz --exclude='*.sqlite*' tr fig)
BASELINE=/tmp/base.so timeout 100 "$B/overhead.sh" $OUT/ovh > $OUT/overhead.txt 2>&1; tail -4 $OUT/overhead.txt
cat $OUT/startup-summary.txt >> $OUT/ab-summary.txt
(cd $OUT && tar czf logs.tgz --remove-files ab.txt builds.txt startup.txt startup-summary.txt fig.log fig310.json overhead.txt spans.txt ovh 2>/dev/null); ls $OUT
