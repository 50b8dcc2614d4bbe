#!/usr/bin/env bash
# Session 37, call 9 (nvidia-h200): the final tree (c0cfda7), a second instance,
# through the issue's benchmark, overhead.sh (NVIDIA and PoCL, 5 interleaved runs with
# base b0fc1e3 as BASELINE), start-up in 11 rounds, and every bundled app under Tutti.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $W/machine.txt 2>&1
xz -dc "$here/base.so.xz" > /tmp/base.so
L=$B/lib/libtutti.so
cd /tmp
BASELINE=/tmp/base.so timeout 300 $B/bench/overhead.sh $W/overhead 20000 > $W/overhead.txt 2>&1 || \
  BASELINE=/tmp/base.so timeout 300 $B/overhead.sh $W/overhead 20000 > $W/overhead.txt 2>&1
echo "overhead done $SECONDS s" >> $W/times.txt
T="TUTTI_PROFILE_DB=off"
for r in $(seq 1 11); do for cfg in native new base; do
  t0=$(date +%s%N)
  case $cfg in
    native) $B/apps/VectorAdd --size tiny --device 1 > /tmp/s.log 2>&1 ;;
    new) env $T LD_PRELOAD=$L $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
    base) env $T LD_PRELOAD=/tmp/base.so $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
  esac
  t1=$(date +%s%N)
  echo "startup $cfg $r process_ms=$(( (t1 - t0) / 1000000 )) $(grep -o 'status=[A-Z]*' /tmp/s.log)" >> $W/startup.txt
done; done
echo "startup done $SECONDS s" >> $W/times.txt
for a in $B/apps/*; do
  [ -x "$a" ] && [ -f "$a" ] || continue
  n=$(basename $a); [ "$n" = mk_devinfo ] && continue
  [ $SECONDS -lt 500 ] || break
  out=$(env $T LD_PRELOAD=$L timeout 60 $a 2>&1); rc=$?
  echo "$n rc=$rc $(echo "$out" | grep -o 'status=[A-Z]*' | tail -1) $(echo "$out" | grep -o 'wall_ms=[0-9.]*' | tail -1)" >> $W/apps.txt
done
echo "total $SECONDS s" >> $W/times.txt
(cd $W && tar czf $OUT/c9.tgz .); ls -la $OUT
