#!/usr/bin/env bash
# The six device calls of session 29 (nvidia-h100-x1). Each ran as `bash cN.sh` from a
# carried folder holding the bundle (bundle.tar.xz; c1 and c2 also libtutti-base.so.xz),
# with the preamble below, then its own section: `bash calls.sh cN` runs the same.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh"

c1() {
# Call 1 (nvidia-h100-x1): issue 23. Merge A/B (MatrixTranspose split 10/90, base vs new,
# interleaved), then split sweeps: MatrixTranspose 0-50 %, Reduction/VectorAdd --hostptr 0-100 %.
xz -dc "$here/libtutti-base.so.xz" > /tmp/b/tutti-bench/lib/libtutti-base.so
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
}

c2() {
# Call 2 (nvidia-h100-x1): issue 23 on c6bbeed. Merge A/B (MatrixTranspose split 10/90,
# base 6136329 vs new, interleaved), then split sweeps with the new model.
xz -dc "$here/libtutti-base.so.xz" > /tmp/b/tutti-bench/lib/libtutti-base.so
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
}

c3() {
# Call 3 (nvidia-h100-x1): why SKMD mode with the whole launch on the H100 (fixed:0,100)
# is 1-2 ms slower than whole mode: traces and debug logs, then 5 interleaved timings.
W=/tmp/w; mkdir -p $W
cd /tmp
run() {  # tag app args... ; env from caller
  local tag=$1; shift
  "$@" 2>&1 | grep -E "^RESULT" | grep -o "wall_ms=[0-9.]*\|status=[A-Z]*" | paste -sd' ' | sed "s/^/$tag /"
}
for app in "BlackScholes" "Reduction" "Reduction --hostptr 1"; do
  a=${app%% *}; tagapp=${app// /}
  for m in whole skmd; do
    e="TUTTI_PLACEMENT=auto"; [ $m = skmd ] && e="TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,100"
    env $e TUTTI_STATS=1 TUTTI_PROFILE_DB=off TUTTI_TRACE=$W/trace-$tagapp-$m.json TUTTI_LOG=debug TUTTI_LOG_TIME=1 \
      LD_PRELOAD=$B/lib/libtutti.so $B/apps/$app --size thesis > $W/log-$tagapp-$m.txt 2>&1
  done
  for i in 1 2 3 4 5; do
    for m in whole skmd; do
      e="TUTTI_PLACEMENT=auto"; [ $m = skmd ] && e="TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,100"
      run "$tagapp $m" env $e TUTTI_STATS=1 TUTTI_PROFILE_DB=off LD_PRELOAD=$B/lib/libtutti.so $B/apps/$app --size thesis
    done
  done
done | tee $W/timings.txt
(cd $W && gzip -f trace-*.json; tar czf $OUT/c3.tgz .)
}

c4() {
# Call 4 (nvidia-h100-x1): Reduction --hostptr 1 under SKMD auto was 10.3 ms against 9.5
# with fixed:0,100 and 8.9 whole (call 2). Profile it, then debug logs, traces and 5
# interleaved timings of whole, fixed:0,100 and auto (each auto run on a fresh DB copy).
W=/tmp/w; mkdir -p $W
cd /tmp
"$B/split_sweep.sh" $W/sw --apps Reduction:hostptr,BlackScholes --shares 0 --repeat 1 > $W/sw.log 2>&1
cfg() {
  case $1 in
    whole) echo "TUTTI_PLACEMENT=auto" ;;
    fixed) echo "TUTTI_MODE=skmd TUTTI_PARTITION=fixed:0,100 TUTTI_PROFILE_DB=$W/db.sqlite" ;;
    auto) echo "TUTTI_MODE=skmd TUTTI_PROFILE_DB=$W/db.sqlite" ;;
  esac
}
for app in "Reduction --hostptr 1" "BlackScholes"; do
  a=${app%% *}; t=${app// /}
  for m in whole fixed auto; do
    cp $W/sw/$a/profiles.sqlite $W/db.sqlite
    env $(cfg $m) TUTTI_STATS=1 TUTTI_TRACE=$W/trace-$t-$m.json TUTTI_LOG=debug TUTTI_LOG_TIME=1 \
      LD_PRELOAD=$B/lib/libtutti.so $B/apps/$app --size thesis > $W/log-$t-$m.txt 2>&1
  done
  for i in 1 2 3 4 5; do
    for m in whole fixed auto; do
      cp $W/sw/$a/profiles.sqlite $W/db.sqlite
      env $(cfg $m) TUTTI_STATS=1 LD_PRELOAD=$B/lib/libtutti.so $B/apps/$app --size thesis 2>&1 |
        grep -E "^RESULT" | grep -o "wall_ms=[0-9.]*\|status=[A-Z]*" | paste -sd' ' | sed "s/^/$t $m /"
    done
  done
done | tee $W/timings.txt
rm -f $W/db.sqlite
(cd $W && gzip -f trace-*.json; tar czf $OUT/c4.tgz .)
}

c5() {
# Call 5 (nvidia-h100-x1): issue 23's auto against whole with more repeats (c6bbeed):
# split_sweep --shares 0 --repeat 5 (native, whole, auto, cpu00 interleaved).
W=/tmp/w; mkdir -p $W
cd /tmp
"$B/split_sweep.sh" $W/rep --apps Reduction:hostptr,VectorAdd:hostptr,Reduction,VectorAdd,Histogram,BlackScholes,MatrixTranspose \
  --shares 0 --repeat 5 --budget 400 > $W/rep.log 2>&1
echo "=== rc $?"
grep -E "^\| (whole|auto|cpu00|native)|^## |^Sweep" $W/rep/sweep.md
cp $W/rep/sweep.md $OUT/rep.md
(cd $W && tar czf $OUT/c5.tgz --exclude='*.sqlite' .)
}

c6() {
# Call 6 (nvidia-h100-x1): issue 23's auto against whole with more repeats (84e5453):
# split_sweep --shares 0 --repeat 5 (native, whole, auto, cpu00 interleaved).
W=/tmp/w; mkdir -p $W
cd /tmp
"$B/split_sweep.sh" $W/rep --apps Reduction:hostptr,VectorAdd,BlackScholes,Reduction,VectorAdd:hostptr,Histogram,MatrixTranspose \
  --shares 0 --repeat 7 --budget 360 > $W/rep.log 2>&1
echo "=== rc $?"
grep -E "^\| (whole|auto|cpu00|native)|^## |^Sweep" $W/rep/sweep.md
cp $W/rep/sweep.md $OUT/rep.md
(cd $W && tar czf $OUT/c6.tgz --exclude='*.sqlite' .)
}

"${1:?usage: calls.sh c1..c6}"
