######## c1.sh
#!/usr/bin/env bash
# Session 33, call 1 (nvidia-h200): start-up with the reaper (real teardown off
# clReleaseContext) against base (b778dbe), and where a whole launch's time goes on
# NVIDIA: the same tree with fewer armed launches (TUTTI_ARM_EVERY) and with the driver's
# callbacks instead of the watcher's clWaitForEvents.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
W=/tmp/w; mkdir -p $W/tr; cd /tmp
L=$B/lib/libtutti.so
xz -dc "$here/base.so.xz" > /tmp/base.so
R=$B/tools/enqueue_rate
# Per launch, 7 interleaved rounds of 20,000 launches.
for r in 1 2 3 4 5 6 7; do
  for cfg in native new base arm4k arm64k callback; do
    case $cfg in
      native) line=$($R 20000 NVIDIA) ;;
      new) line=$(TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$L $R 20000 Tutti) ;;
      base) line=$(TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=/tmp/base.so $R 20000 Tutti) ;;
      arm4k) line=$(TUTTI_ARM_EVERY=4096 TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$L $R 20000 Tutti) ;;
      arm64k) line=$(TUTTI_ARM_EVERY=65536 TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$L $R 20000 Tutti) ;;
      callback) line=$(TUTTI_COMPLETION=callback TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$L $R 20000 Tutti) ;;
    esac
    echo "launch $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*') $(echo "$line" | grep -o 'enqueue_us=[0-9.]*')" >> $OUT/launch.txt
  done
done
for r in 1 2 3; do for cfg in native new base; do
  case $cfg in
    native) line=$($R 20000 Portable) ;;
    new) line=$(TUTTI_DEVICES=cpu TUTTI_PROFILE_DB=off LD_PRELOAD=$L $R 20000 Tutti) ;;
    base) line=$(TUTTI_DEVICES=cpu TUTTI_PROFILE_DB=off LD_PRELOAD=/tmp/base.so $R 20000 Tutti) ;;
  esac
  echo "pocl $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $OUT/launch.txt
done; done
# Start-up: VectorAdd --size tiny as a whole process, 11 interleaved rounds.
for r in 1 2 3 4 5 6 7 8 9 10 11; do for cfg in native new base; do
  t0=$(date +%s%N)
  case $cfg in
    native) $B/apps/VectorAdd --size tiny --device 1 > /tmp/s.log 2>&1 ;;
    new) env TUTTI_PROFILE_DB=off LD_PRELOAD=$L $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
    base) env TUTTI_PROFILE_DB=off LD_PRELOAD=/tmp/base.so $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
  esac
  t1=$(date +%s%N)
  echo "startup $cfg $r process_ms=$(( (t1 - t0) / 1000000 )) $(grep -o 'status=[A-Z]*' /tmp/s.log)" >> $OUT/startup.txt
done; done
for cfg in new base; do
  lib=$L; [ $cfg = base ] && lib=/tmp/base.so
  env TUTTI_PROFILE_DB=off TUTTI_TRACE=$W/tr/startup-$cfg.json LD_PRELOAD=$lib $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1
done
python3 - $OUT/launch.txt $OUT/startup.txt <<'PY' | tee $OUT/summary.txt
import re,statistics,sys,collections
v=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.match(r'(\S+) (\S+) \S+ per_launch_us=([0-9.]+)',l)
    if m: v[(m[1],m[2])].append(float(m[3]))
for k in ('launch','pocl'):
    n=statistics.median(v[(k,'native')]) if v[(k,'native')] else float('nan')
    for c in ('native','new','base','arm4k','arm64k','callback'):
        x=v[(k,c)]
        if x: print('%-6s %-8s n=%d median %.2f us  /native %.3f  %s'%(k,c,len(x),statistics.median(x),statistics.median(x)/n,' '.join('%.2f'%y for y in x)))
s=collections.defaultdict(list)
for l in open(sys.argv[2]):
    m=re.match(r'startup (\S+) \S+ process_ms=(\d+) status=PASS',l)
    if m: s[m[1]].append(int(m[2]))
n=statistics.median(s['native']) if s['native'] else float('nan')
for c in ('native','new','base'):
    if s[c]: print('startup %-6s n=%d median %d ms (goal 1.1x native + 20 = %.0f) %s'%(c,len(s[c]),statistics.median(s[c]),1.1*n+20,' '.join(map(str,s[c]))))
PY
for f in $W/tr/startup-*.json; do python3 - "$f" <<'PY'
import json,sys
d=json.load(open(sys.argv[1])); ev=d['traceEvents'] if isinstance(d,dict) else d
xs=sorted([e for e in ev if e.get('ph')=='X'],key=lambda e:e['ts'])
print(sys.argv[1].split('/')[-1])
for e in xs:
    if e.get('dur',0)>300: print('  %9.1f %8.1f ms %s'%((e['ts']-xs[0]['ts'])/1000,e['dur']/1000,e['name'][:80]))
PY
done >> $OUT/summary.txt
gzip $W/tr/*.json
(cd $W && tar czf $OUT/traces.tgz tr)
(cd $OUT && tar czf logs.tgz --remove-files launch.txt startup.txt 2>/dev/null); ls $OUT; cat $OUT/summary.txt
######## c2.sh
#!/usr/bin/env bash
# Session 33, call 2 (nvidia-h200): start-up with the reaper's grace period (a tiny app
# exits before its context's driver teardown begins) against base (b778dbe), and with
# Tutti on the GPU alone (what the CPU device's context and build add).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
W=/tmp/w; mkdir -p $W/tr; cd /tmp
L=$B/lib/libtutti.so
xz -dc "$here/base.so.xz" > /tmp/base.so
for r in 1 2 3 4 5 6 7 8 9 10 11; do for cfg in native new base gpuonly; do
  t0=$(date +%s%N)
  case $cfg in
    native) $B/apps/VectorAdd --size tiny --device 1 > /tmp/s.log 2>&1 ;;
    new) env TUTTI_PROFILE_DB=off LD_PRELOAD=$L $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
    base) env TUTTI_PROFILE_DB=off LD_PRELOAD=/tmp/base.so $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
    gpuonly) env TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$L $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
  esac
  t1=$(date +%s%N)
  echo "startup $cfg $r process_ms=$(( (t1 - t0) / 1000000 )) $(grep -o 'status=[A-Z]*' /tmp/s.log)" >> $OUT/startup.txt
done; done
python3 - $OUT/startup.txt <<'PY' | tee $OUT/summary.txt
import re,statistics,sys,collections
s=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.match(r'startup (\S+) \S+ process_ms=(\d+) status=PASS',l)
    if m: s[m[1]].append(int(m[2]))
n=statistics.median(s['native']) if s['native'] else float('nan')
for c in ('native','new','base','gpuonly'):
    if s[c]: print('startup %-7s n=%d median %d ms (goal 1.1x native + 20 = %.0f) %s'%(c,len(s[c]),statistics.median(s[c]),1.1*n+20,' '.join(map(str,s[c]))))
PY
(cd $OUT && tar czf logs.tgz --remove-files startup.txt 2>/dev/null); ls $OUT
######## c3.sh
#!/usr/bin/env bash
# Session 33, call 3 (nvidia-h200): what a whole launch under Tutti adds on NVIDIA. Native
# launches on a plain and on a profiling queue (Tutti's real queues profile), 9 rounds
# beside Tutti; then tally_icd: the driver's own time per clEnqueueNDRangeKernel natively
# and under Tutti, and Tutti's own time per launch with no-op launches.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
cd /tmp
L=$B/lib/libtutti.so
R=$B/tools/enqueue_rate
for r in 1 2 3 4 5 6 7 8 9; do
  for cfg in native prof tutti; do
    case $cfg in
      native) line=$($R 20000 NVIDIA) ;;
      prof) line=$(ENQUEUE_RATE_PROFILING=1 $R 20000 NVIDIA) ;;
      tutti) line=$(TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$L $R 20000 Tutti) ;;
    esac
    echo "launch $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $OUT/launch.txt
  done
done
tally=$B/tools/libtally_icd.so
real=/usr/local/nvidia/lib64/libnvidia-opencl.so.1; [ -f $real ] || real=libnvidia-opencl.so.1
vend=/tmp/tv; mkdir -p $vend; echo "$tally" > $vend/tally.icd
for r in 1 2 3; do for noop in 0 1; do for how in native prof tutti; do
  f=$OUT/tally-$how-noop$noop-$r.txt
  case $how in
    native) env OCL_ICD_FILENAMES=$tally OCL_ICD_VENDORS=$vend TALLY_ICD_REAL=$real TALLY_ICD_NOOP_LAUNCH=$noop TALLY_ICD_OUT=$f $R 20000 NVIDIA >> $f 2>&1 ;;
    prof) env ENQUEUE_RATE_PROFILING=1 OCL_ICD_FILENAMES=$tally OCL_ICD_VENDORS=$vend TALLY_ICD_REAL=$real TALLY_ICD_NOOP_LAUNCH=$noop TALLY_ICD_OUT=$f $R 20000 NVIDIA >> $f 2>&1 ;;
    tutti) env OCL_ICD_FILENAMES=$tally OCL_ICD_VENDORS=$vend TALLY_ICD_REAL=$real TALLY_ICD_NOOP_LAUNCH=$noop TALLY_ICD_OUT=$f TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$L $R 20000 Tutti >> $f 2>&1 ;;
  esac
done; done; done
python3 - $OUT/launch.txt $OUT <<'PY' | tee $OUT/summary.txt
import re,statistics,sys,collections,glob
v=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.match(r'(\S+) (\S+) \S+ per_launch_us=([0-9.]+)',l)
    if m: v[m[2]].append(float(m[3]))
n=statistics.median(v['native'])
for c in ('native','prof','tutti'):
    print('launch %-6s n=%d median %.2f us /native %.3f  %s'%(c,len(v[c]),statistics.median(v[c]),statistics.median(v[c])/n,' '.join('%.2f'%y for y in v[c])))
for f in sorted(glob.glob(sys.argv[2]+'/tally-*.txt')):
    t=open(f).read()
    pl=re.search(r'per_launch_us=([0-9.]+)',t); nd=re.search(r'call=clEnqueueNDRangeKernel thread=main calls=(\d+) total_us=[0-9.]+ us_per_call=([0-9.]+)',t)
    print('%-28s per_launch %s  driver enqueue %s us/call'%(f.split('/')[-1],pl[1] if pl else '?',nd[2] if nd else '?'))
PY
(cd $OUT && tar czf logs.tgz --remove-files launch.txt tally-*.txt 2>/dev/null); ls $OUT
######## c4.sh
#!/usr/bin/env bash
# Session 33, call 4 (nvidia-h200): where VectorAdd --size tiny's start-up goes, natively and
# under Tutti (whole, CPU + GPU): libsampler on the main thread, 3 runs each after a warm-up.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
cd /tmp
L=$B/lib/libtutti.so; S=$B/tools/libsampler.so
TUTTI_PROFILE_DB=off LD_PRELOAD=$L $B/apps/VectorAdd --size tiny > /dev/null 2>&1
$B/apps/VectorAdd --size tiny --device 1 > /dev/null 2>&1
for r in 1 2 3; do
  t0=$(date +%s%N); LD_PRELOAD=$S SAMPLER_OUT=$OUT/s-native-$r.txt $B/apps/VectorAdd --size tiny --device 1 > /dev/null 2>&1; t1=$(date +%s%N)
  echo "native $r $(( (t1 - t0) / 1000000 )) ms" >> $OUT/times.txt
  t0=$(date +%s%N); TUTTI_PROFILE_DB=off LD_PRELOAD="$L $S" SAMPLER_OUT=$OUT/s-tutti-$r.txt $B/apps/VectorAdd --size tiny > /dev/null 2>&1; t1=$(date +%s%N)
  echo "tutti $r $(( (t1 - t0) / 1000000 )) ms" >> $OUT/times.txt
done
cat $OUT/times.txt
(cd $OUT && tar czf samples.tgz --remove-files s-*.txt); ls $OUT
######## c5.sh
#!/usr/bin/env bash
# Session 33, call 5 (nvidia-h200): a whole launch after the fit memo and unregistered launch
# events, against base (b778dbe): enqueue_rate natively, under this tree and under base, 11
# interleaved rounds on NVIDIA, 5 on PoCL; tally_icd's no-op launches under each (Tutti's
# own time per launch), 5 rounds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
cd /tmp
L=$B/lib/libtutti.so; R=$B/tools/enqueue_rate
xz -dc "$here/base.so.xz" > /tmp/base.so
for r in $(seq 11); do for cfg in native new base; do
  case $cfg in
    native) line=$($R 20000 NVIDIA) ;;
    new) line=$(TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$L $R 20000 Tutti) ;;
    base) line=$(TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=/tmp/base.so $R 20000 Tutti) ;;
  esac
  echo "launch $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $OUT/launch.txt
done; done
for r in $(seq 5); do for cfg in native new base; do
  case $cfg in
    native) line=$($R 20000 Portable) ;;
    new) line=$(TUTTI_DEVICES=cpu TUTTI_PROFILE_DB=off LD_PRELOAD=$L $R 20000 Tutti) ;;
    base) line=$(TUTTI_DEVICES=cpu TUTTI_PROFILE_DB=off LD_PRELOAD=/tmp/base.so $R 20000 Tutti) ;;
  esac
  echo "pocl $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $OUT/launch.txt
done; done
tally=$B/tools/libtally_icd.so
real=/usr/local/nvidia/lib64/libnvidia-opencl.so.1; [ -f $real ] || real=libnvidia-opencl.so.1
vend=/tmp/tv; mkdir -p $vend; echo "$tally" > $vend/tally.icd
for r in $(seq 5); do for cfg in new base; do
  lib=$L; [ $cfg = base ] && lib=/tmp/base.so
  line=$(env OCL_ICD_FILENAMES=$tally OCL_ICD_VENDORS=$vend TALLY_ICD_REAL=$real TALLY_ICD_NOOP_LAUNCH=1 TALLY_ICD_OUT=/dev/null TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$lib $R 200000 Tutti)
  echo "noop $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $OUT/launch.txt
done; done
python3 - $OUT/launch.txt <<'PY' | tee $OUT/summary.txt
import re,statistics,sys,collections
v=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.match(r'(\S+) (\S+) \S+ per_launch_us=([0-9.]+)',l)
    if m: v[(m[1],m[2])].append(float(m[3]))
for k in ('launch','pocl','noop'):
    n=statistics.median(v[(k,'native')]) if v[(k,'native')] else None
    for c in ('native','new','base'):
        x=v[(k,c)]
        if x: print('%-6s %-6s n=%d median %.3f us %s %s'%(k,c,len(x),statistics.median(x),('/native %.3f'%(statistics.median(x)/n)) if n else '',' '.join('%.2f'%y for y in x)))
PY
(cd $OUT && tar czf logs.tgz --remove-files launch.txt); ls $OUT
######## c6.sh
#!/usr/bin/env bash
# Session 33, call 6 (nvidia-h200): issue 19's K-means apps at thesis size on CPU + one H200:
# profiled anew, then 11 interleaved runs natively on the GPU, under Tutti whole and MKMD.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
cd /tmp
timeout 560 "$B/mkmd_record.sh" /tmp/mk --apps kmeans,kmeans_ensemble --measure 11 > $OUT/mk.log 2>&1
echo "rc=$?"
cp /tmp/mk/measure.md $OUT/ 2>/dev/null; cp /tmp/mk/measure.tsv $OUT/ 2>/dev/null
ls /tmp/mk
cat $OUT/measure.md 2>/dev/null | head -30
(cd /tmp/mk && tar czf $OUT/mk.tgz --exclude='*.sqlite*' . ; mkdir -p /tmp/dbs && for a in kmeans kmeans_ensemble; do [ -f $a/profiles.sqlite ] && cp $a/profiles.sqlite /tmp/dbs/$a.sqlite; done; tar czf $OUT/dbs.tgz -C /tmp dbs)
ls -la $OUT
######## c7.sh
#!/usr/bin/env bash
# Session 33, call 7 (nvidia-h200): where MKMD loses 0.3 ms to whole mode on kmeans (call 6):
# traces, stats and timed debug logs of both modes on call 6's profile database.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; mkdir -p $W; cd /tmp
L=$B/lib/libtutti.so
for app in kmeans kmeans_ensemble; do for r in 1 2 3; do for m in whole mkmd; do
  cp $here/dbs/$app.sqlite /tmp/db.sqlite
  tr=""; [ $r = 1 ] && tr="TUTTI_TRACE=$W/trace-$app-$m.json"
  env TUTTI_MODE=$m TUTTI_STATS=1 TUTTI_PROFILE_DB=/tmp/db.sqlite $tr LD_PRELOAD=$L $B/apps/$app --size thesis > $W/$app-$m-$r.log 2>&1
  echo "$app $m $r $(grep -o 'wall_ms=[0-9.]*' $W/$app-$m-$r.log) $(grep -o 'mkmd_graphs=.*' $W/$app-$m-$r.log)" | tee -a $OUT/runs.txt
done; done; done
for m in whole mkmd; do
  cp $here/dbs/kmeans.sqlite /tmp/db.sqlite
  env TUTTI_MODE=$m TUTTI_PROFILE_DB=/tmp/db.sqlite TUTTI_LOG=debug TUTTI_LOG_TIME=1 LD_PRELOAD=$L $B/apps/kmeans --size thesis > $W/kmeans-$m-debug.log 2>&1
done
for f in $W/trace-*.json; do python3 - "$f" <<'PY'
import json,sys,collections
d=json.load(open(sys.argv[1])); ev=d['traceEvents'] if isinstance(d,dict) else d
ev=[e for e in ev if e.get('ph')=='X']
tot=collections.defaultdict(float); cnt=collections.Counter()
for e in ev: tot[e['name']]+=e.get('dur',0)/1000; cnt[e['name']]+=1
print(sys.argv[1].split('/')[-1])
for k,v in sorted(tot.items(),key=lambda x:-x[1])[:25]: print('  %-40s n=%-4d %9.3f ms'%(k[:40],cnt[k],v))
PY
done > $OUT/spans.txt
gzip $W/*.json
(cd $W && tar czf $OUT/c7.tgz .); ls $OUT
######## c8.sh
#!/usr/bin/env bash
# Session 33, call 8 (nvidia-h200): the final tree. Every SDK app at its default size under
# Tutti whole and SKMD (each checks its own output), and the mk_ and kmeans apps under MKMD;
# start-up (11 rounds) and a whole launch (9 rounds) natively, under this tree and base.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
cd /tmp
L=$B/lib/libtutti.so; R=$B/tools/enqueue_rate
xz -dc "$here/base.so.xz" > /tmp/base.so
for app in AESDecrypt AESEncrypt BinomialOption BlackScholes FDTD3d Histogram HistogramAtomic MatrixMultiplication MatrixTranspose MedianFilter MersenneTwister Nbody Reduction ScanLargeArrays SobelFilter StreamCompaction VectorAdd; do
  for m in whole skmd; do
    s=$(TUTTI_MODE=$m TUTTI_PROFILE_DB=off LD_PRELOAD=$L timeout 120 $B/apps/$app 2>&1 | grep -o 'status=[A-Z]*' | tail -1)
    echo "app $app $m ${s:-status=NONE}" >> $OUT/apps.txt
  done
done
for app in mk_Jacobi mk_BiCGSTAB kmeans kmeans_ensemble; do
  s=$(TUTTI_MODE=mkmd TUTTI_PROFILE_DB=off LD_PRELOAD=$L timeout 120 $B/apps/$app 2>&1 | grep -o 'status=[A-Z]*' | tail -1)
  echo "app $app mkmd ${s:-status=NONE}" >> $OUT/apps.txt
done
for r in $(seq 11); do for cfg in native new base; do
  t0=$(date +%s%N)
  case $cfg in
    native) $B/apps/VectorAdd --size tiny --device 1 > /tmp/s.log 2>&1 ;;
    new) env TUTTI_PROFILE_DB=off LD_PRELOAD=$L $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
    base) env TUTTI_PROFILE_DB=off LD_PRELOAD=/tmp/base.so $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
  esac
  t1=$(date +%s%N)
  echo "startup $cfg $r process_ms=$(( (t1 - t0) / 1000000 )) $(grep -o 'status=[A-Z]*' /tmp/s.log)" >> $OUT/startup.txt
done; done
for r in $(seq 9); do for cfg in native new base; do
  case $cfg in
    native) line=$($R 20000 NVIDIA) ;;
    new) line=$(TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$L $R 20000 Tutti) ;;
    base) line=$(TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=/tmp/base.so $R 20000 Tutti) ;;
  esac
  echo "launch $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $OUT/launch.txt
done; done
env TUTTI_PROFILE_DB=off TUTTI_TRACE=/tmp/startup-final.json LD_PRELOAD=$L $B/apps/VectorAdd --size tiny > /dev/null 2>&1; gzip -c /tmp/startup-final.json > $OUT/startup-final.json.gz
python3 - $OUT/startup.txt $OUT/launch.txt $OUT/apps.txt <<'PY' | tee $OUT/summary.txt
import re,statistics,sys,collections
s=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.match(r'startup (\S+) \S+ process_ms=(\d+) status=PASS',l)
    if m: s[m[1]].append(int(m[2]))
n=statistics.median(s['native'])
for c in ('native','new','base'):
    print('startup %-6s n=%d median %d ms (goal 1.1x native + 20 = %.0f) %s'%(c,len(s[c]),statistics.median(s[c]),1.1*n+20,' '.join(map(str,s[c]))))
v=collections.defaultdict(list)
for l in open(sys.argv[2]):
    m=re.match(r'launch (\S+) \S+ per_launch_us=([0-9.]+)',l)
    if m: v[m[1]].append(float(m[2]))
n=statistics.median(v['native'])
for c in ('native','new','base'):
    print('launch %-6s n=%d median %.2f us /native %.3f %s'%(c,len(v[c]),statistics.median(v[c]),statistics.median(v[c])/n,' '.join('%.2f'%y for y in v[c])))
a=[l.split() for l in open(sys.argv[3])]
bad=[x for x in a if x[3]!='status=PASS']
print('apps: %d runs, %d PASS; not PASS: %s'%(len(a),len(a)-len(bad),' '.join('%s/%s:%s'%(x[1],x[2],x[3]) for x in bad) or 'none'))
PY
(cd $OUT && tar czf logs.tgz --remove-files startup.txt launch.txt apps.txt); ls $OUT
######## c9.sh
#!/usr/bin/env bash
# Session 33, call 9 (nvidia-h200): handoff_rate natively on NVIDIA, 7 rounds, with no work
# and with 1.5 us of work per launch on the caller's thread (Tutti's own cost there).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
for r in $(seq 7); do for w in 0 1.5; do
  $B/tools/handoff_rate 20000 NVIDIA $w | sed "s/^/round=$r /" >> $OUT/handoff.txt
done; done
python3 - $OUT/handoff.txt <<'PY' | tee $OUT/summary.txt
import re,statistics,sys,collections
v=collections.defaultdict(list)
for l in open(sys.argv[1]):
    m=re.search(r'mode=(\S+) work_us=(\S+) .*per_launch_us=([0-9.]+)',l)
    if m: v[(m[2],m[1])].append(float(m[3]))
for (w,mode),x in sorted(v.items()):
    print('work %-4s us %-8s n=%d median %.2f us  %s'%(w,mode,len(x),statistics.median(x),' '.join('%.2f'%y for y in x)))
PY
