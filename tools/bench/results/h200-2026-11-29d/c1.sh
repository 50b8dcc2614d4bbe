#!/usr/bin/env bash
# Session 37, call 1 (nvidia-h200): issue 17's issuer thread (cb7e62c) against base
# (b0fc1e3) and against itself with TUTTI_ISSUER=0: per launch (enqueue_rate, 20,000
# launches, interleaved), hot calls (call_cost), start-up (VectorAdd tiny), every bundled
# app under Tutti on CPU + H200 (status), and iterative apps' wall time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $W/machine.txt 2>&1
xz -dc "$here/base.so.xz" > /tmp/base.so
L=$B/lib/libtutti.so R=$B/tools/enqueue_rate C=$B/tools/call_cost
cd /tmp
T="TUTTI_PROFILE_DB=off"
for r in 1 2 3 4 5 6 7; do
  for cfg in native new base noissuer; do
    case $cfg in
      native) line=$($R 20000 NVIDIA) ;;
      new) line=$(env TUTTI_DEVICES=gpu $T LD_PRELOAD=$L $R 20000 Tutti) ;;
      base) line=$(env TUTTI_DEVICES=gpu $T LD_PRELOAD=/tmp/base.so $R 20000 Tutti) ;;
      noissuer) line=$(env TUTTI_ISSUER=0 TUTTI_DEVICES=gpu $T LD_PRELOAD=$L $R 20000 Tutti) ;;
    esac
    echo "launch $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*') $(echo "$line" | grep -o 'enqueue_us=[0-9.]*')" >> $W/launch.txt
  done
done
echo "launch done $SECONDS s" >> $W/times.txt
for r in 1 2 3; do for cfg in native new base noissuer; do
  case $cfg in
    native) line=$($R 20000 Portable) ;;
    new) line=$(env TUTTI_DEVICES=cpu $T LD_PRELOAD=$L $R 20000 Tutti) ;;
    base) line=$(env TUTTI_DEVICES=cpu $T LD_PRELOAD=/tmp/base.so $R 20000 Tutti) ;;
    noissuer) line=$(env TUTTI_ISSUER=0 TUTTI_DEVICES=cpu $T LD_PRELOAD=$L $R 20000 Tutti) ;;
  esac
  echo "pocl $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $W/launch.txt
done; done
echo "pocl done $SECONDS s" >> $W/times.txt
for r in 1 2 3; do for cfg in native new base; do
  case $cfg in
    native) $C 20000 NVIDIA > $W/calls-$cfg-$r.txt 2>&1 ;;
    new) env TUTTI_DEVICES=gpu $T LD_PRELOAD=$L $C 20000 Tutti > $W/calls-$cfg-$r.txt 2>&1 ;;
    base) env TUTTI_DEVICES=gpu $T LD_PRELOAD=/tmp/base.so $C 20000 Tutti > $W/calls-$cfg-$r.txt 2>&1 ;;
  esac
done; done
echo "calls done $SECONDS s" >> $W/times.txt
for r in 1 2 3 4 5 6 7; do for cfg in native new base; do
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
# Every bundled app under Tutti (whole mode, CPU + H200, default size): the issuer on NVIDIA.
for a in $B/apps/*; do
  [ -x "$a" ] && [ -f "$a" ] || continue
  n=$(basename $a); [ "$n" = mk_devinfo ] && continue
  [ $SECONDS -lt 420 ] || break
  out=$(env $T LD_PRELOAD=$L timeout 60 $a 2>&1); rc=$?
  echo "$n rc=$rc $(echo "$out" | grep -o 'status=[A-Z]*' | tail -1) $(echo "$out" | grep -o 'wall_ms=[0-9.]*' | tail -1)" >> $W/apps.txt
done
echo "apps done $SECONDS s" >> $W/times.txt
# Iterative apps, thesis size, wall time: native H200, new, base, new without the issuer.
for r in 1 2 3 4 5; do for a in mk_Jacobi mk_BiCGSTAB kmeans; do for cfg in native new base noissuer; do
  [ $SECONDS -lt 560 ] || break 3
  case $cfg in
    native) line=$($B/apps/$a --size thesis --device 1 2>&1 | grep RESULT) ;;
    new) line=$(env $T LD_PRELOAD=$L $B/apps/$a --size thesis 2>&1 | grep RESULT) ;;
    base) line=$(env $T LD_PRELOAD=/tmp/base.so $B/apps/$a --size thesis 2>&1 | grep RESULT) ;;
    noissuer) line=$(env TUTTI_ISSUER=0 $T LD_PRELOAD=$L $B/apps/$a --size thesis 2>&1 | grep RESULT) ;;
  esac
  echo "app $a $cfg $r $(echo "$line" | grep -o 'wall_ms=[0-9.]*') $(echo "$line" | grep -o 'status=[A-Z]*')" >> $W/iter.txt
done; done; done
echo "total $SECONDS s" >> $W/times.txt
(cd $W && tar czf $OUT/c1.tgz .); ls -la $OUT
