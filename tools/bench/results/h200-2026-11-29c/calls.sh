# ===== next call
#!/usr/bin/env bash
# Session 36, call 1 (nvidia-h200), tree c746289 against base e2b92a4: the six Table 5.3 apps
# profiled anew, then 5 interleaved rounds under whole mode, MKMD, and MKMD of base; then one
# traced run each of mk_ABE and mk_TripleCommutator, whole and MKMD, with info logs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $OUT/machine.txt 2>&1
xz -dc $here/base.so.xz > /tmp/base.so
cd /tmp
timeout 480 "$B/mkmd_record.sh" /tmp/mk --apps mk_TripleCommutator,mk_ABE,mk_ReachabilityGramian,mk_Lyapunov,mk_BiCGSTAB,mk_Jacobi --measure 5 --modes whole,mkmd,mkmd@base --base-lib /tmp/base.so --budget 330 > $OUT/mk.log 2>&1
echo "measure rc=$? $SECONDS s" >> $OUT/times.txt
cp /tmp/mk/measure.md $OUT/c1-measure.md 2>/dev/null; cp /tmp/mk/measure.tsv $OUT/c1-measure.tsv 2>/dev/null
mkdir -p $OUT/graphs; cp /tmp/mk/*.graph $OUT/graphs/ 2>/dev/null
for app in mk_TripleCommutator mk_ABE mk_ReachabilityGramian mk_Lyapunov; do
  [ -f /tmp/mk/$app/profiles.sqlite ] || continue
  [ $SECONDS -lt 540 ] || break
  for m in whole mkmd; do
    env TUTTI_MODE=$m TUTTI_STATS=1 TUTTI_LOG=debug TUTTI_LOG_TIME=1 TUTTI_PROFILE_DB=/tmp/mk/$app/profiles.sqlite TUTTI_TRACE=$OUT/trace-$app-$m.json LD_PRELOAD=$B/lib/libtutti.so $B/apps/$app --size thesis > /tmp/$app-$m.log 2>&1
    grep -a "RESULT\|^TUTTI\|mkmd: \|profile model for" /tmp/$app-$m.log | cut -c1-400 > $OUT/c1-$app-$m.txt
    gzip -f $OUT/trace-$app-$m.json
  done
done
echo "total $SECONDS s" >> $OUT/times.txt; ls -la $OUT
# ===== next call
#!/usr/bin/env bash
# Session 36, call 2 (nvidia-h200, warm after call 1), tree c746289 against base e2b92a4:
# the Triple Commutator traced (whole, MKMD) from call 1's database; K-means and the ensemble
# profiled, then 11 interleaved rounds whole / MKMD / MKMD of base; BiCGSTAB and Jacobi 15
# more rounds on call 1's databases. Everything comes back in one tar.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ -d /tmp/b/tutti-bench ] || { mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b; }
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
[ -f /tmp/base.so ] || xz -dc $here/base.so.xz > /tmp/base.so
W=/tmp/w2; rm -rf $W; mkdir -p $W
cd /tmp
app=mk_TripleCommutator
if [ -f /tmp/mk/$app/profiles.sqlite ]; then
  for m in whole mkmd; do
    env TUTTI_MODE=$m TUTTI_STATS=1 TUTTI_LOG=debug TUTTI_LOG_TIME=1 TUTTI_PROFILE_DB=/tmp/mk/$app/profiles.sqlite TUTTI_TRACE=$W/trace-$app-$m.json LD_PRELOAD=$B/lib/libtutti.so $B/apps/$app --size thesis > /tmp/$app-$m.log 2>&1
    grep -a "RESULT\|^TUTTI\|mkmd: \|profile model for" /tmp/$app-$m.log | cut -c1-400 > $W/c2-$app-$m.txt
    gzip -f $W/trace-$app-$m.json
  done
fi
cp /tmp/mk/mk.log $W/ 2>/dev/null
timeout 300 "$B/mkmd_record.sh" /tmp/km --apps kmeans,kmeans_ensemble --measure 11 --modes whole,mkmd,mkmd@base --base-lib /tmp/base.so --budget 200 > $W/km.log 2>&1
echo "kmeans rc=$? $SECONDS s" >> $W/times.txt
cp /tmp/km/measure.tsv $W/c2-kmeans-measure.tsv 2>/dev/null; cp /tmp/km/*.graph $W/ 2>/dev/null
timeout 200 "$B/mkmd_record.sh" /tmp/sm --apps mk_BiCGSTAB,mk_Jacobi --db-from /tmp/mk --measure 15 --modes whole,mkmd,mkmd@base --base-lib /tmp/base.so > $W/sm.log 2>&1
echo "small rc=$? $SECONDS s" >> $W/times.txt
cp /tmp/sm/measure.tsv $W/c2-small-measure.tsv 2>/dev/null
(cd $W && tar czf $OUT/c2.tgz .); echo "total $SECONDS s"; ls -la $OUT
# ===== next call
#!/usr/bin/env bash
# Session 36, call 3 (nvidia-h200, warm after call 2), tree c746289: K-means and the ensemble,
# 21 interleaved rounds: whole mode, MKMD, MKMD with the profile database read-only
# (TUTTI_PROFILE=validate: no online samples, no background refits), MKMD with the first
# launch unjudged. Also brings back call 1's recorded graphs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ -d /tmp/b/tutti-bench ] || { mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b; }
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w3; rm -rf $W; mkdir -p $W/graphs
cp /tmp/mk/*.graph $W/graphs/ 2>/dev/null
cd /tmp
db=(); [ -f /tmp/km/kmeans/profiles.sqlite ] && [ -f /tmp/km/kmeans_ensemble/profiles.sqlite ] && db=(--db-from /tmp/km)
timeout 500 "$B/mkmd_record.sh" /tmp/k3 --apps kmeans,kmeans_ensemble "${db[@]}" --measure 21 --modes whole,mkmd,mkmd:PROFILE=validate,mkmd:MKMD_FIRST_UNJUDGED=1 > $W/k3.log 2>&1
echo "rc=$? $SECONDS s db=${db[*]}" >> $W/times.txt
cp /tmp/k3/measure.tsv $W/c3-kmeans-measure.tsv 2>/dev/null
(cd $W && tar czf $OUT/c3.tgz .); echo "total $SECONDS s"; ls -la $OUT
# ===== next call
#!/usr/bin/env bash
# Session 36, call 4 (nvidia-h200), tree 5155651 against base 541b7a8 (the same tree without
# primed verdicts): K-means and the ensemble profiled, then 21 interleaved rounds of whole,
# MKMD, MKMD of base, MKMD with the first launch unjudged; BiCGSTAB and Jacobi profiled, then
# 15 rounds of whole, MKMD, MKMD of base; one MKMD run of each with TUTTI_STATS after.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
xz -dc $here/base2.so.xz > /tmp/base2.so
W=/tmp/w4; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; cat $B/bench/VERSION) > $W/machine.txt 2>&1
cd /tmp
timeout 300 "$B/mkmd_record.sh" /tmp/k4 --apps kmeans,kmeans_ensemble --measure 21 --modes whole,mkmd,mkmd@base,mkmd:MKMD_FIRST_UNJUDGED=1 --base-lib /tmp/base2.so --budget 150 > $W/k4.log 2>&1
echo "kmeans rc=$? $SECONDS s" >> $W/times.txt
cp /tmp/k4/measure.tsv $W/c4-kmeans-measure.tsv 2>/dev/null
timeout $((520 - SECONDS)) "$B/mkmd_record.sh" /tmp/s4 --apps mk_BiCGSTAB,mk_Jacobi --measure 15 --modes whole,mkmd,mkmd@base --base-lib /tmp/base2.so --budget $((440 - SECONDS)) > $W/s4.log 2>&1
echo "small rc=$? $SECONDS s" >> $W/times.txt
cp /tmp/s4/measure.tsv $W/c4-small-measure.tsv 2>/dev/null
for a in kmeans kmeans_ensemble; do d=/tmp/k4/$a; [ -f $d/profiles.sqlite ] && env TUTTI_MODE=mkmd TUTTI_STATS=1 TUTTI_PROFILE_DB=$d/profiles.sqlite LD_PRELOAD=$B/lib/libtutti.so $B/apps/$a --size thesis 2>&1 | grep -a "^RESULT\|^TUTTI mkmd" > $W/c4-$a-stats.txt; done
for a in mk_BiCGSTAB mk_Jacobi; do d=/tmp/s4/$a; [ -f $d/profiles.sqlite ] && env TUTTI_MODE=mkmd TUTTI_STATS=1 TUTTI_PROFILE_DB=$d/profiles.sqlite LD_PRELOAD=$B/lib/libtutti.so $B/apps/$a --size thesis 2>&1 | grep -a "^RESULT\|^TUTTI mkmd" > $W/c4-$a-stats.txt; done
echo "total $SECONDS s" >> $W/times.txt
(cd $W && tar czf $OUT/c4.tgz .); ls -la $OUT
