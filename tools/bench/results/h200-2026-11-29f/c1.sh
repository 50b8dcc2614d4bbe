#!/usr/bin/env bash
# Session 39, call 1 (nvidia-h200): issue 17 after the unlocked clSetKernelArg cache, the
# idle clFinish and finished-event status paths, and SKMD's per-kernel slot memo.
# interpose_cost.sh (launch with base 48eed12 as BASELINE and SKMD kept decisions, hot
# calls, start-up, tally) twice, then every bundled app under Tutti whole and SKMD.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $W/machine.txt 2>&1
xz -dc "$here/base.so.xz" > /tmp/base.so
L=$B/lib/libtutti.so
pack() { (cd $W && tar czf $OUT/c1.tgz .); }
IC=$B/interpose_cost.sh; [ -x $IC ] || IC=$B/bench/interpose_cost.sh
for i in 1 2; do
  BASELINE=/tmp/base.so timeout 230 $IC $W/ic$i 20000 > $W/ic$i.txt 2>&1
  rm -rf $W/ic$i/cache-* $W/ic$i/tally-vendors
  echo "ic$i done $SECONDS s" >> $W/times.txt; pack
done
T="TUTTI_PROFILE_DB=off"
for mode in whole skmd; do
  for a in $B/apps/*; do
    [ -x "$a" ] && [ -f "$a" ] || continue
    n=$(basename $a); [ "$n" = mk_devinfo ] && continue
    [ $SECONDS -lt 540 ] || break
    out=$(env $T TUTTI_MODE=$mode LD_PRELOAD=$L timeout 60 $a 2>&1); rc=$?
    echo "$mode $n rc=$rc $(echo "$out" | grep -o 'status=[A-Z]*' | tail -1) $(echo "$out" | grep -o 'wall_ms=[0-9.]*' | tail -1)" >> $W/apps.txt
  done
done
echo "total $SECONDS s" >> $W/times.txt
pack; ls -la $OUT
