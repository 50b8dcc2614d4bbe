#!/usr/bin/env bash
# Session 37, call 2 (nvidia-h200): the issuer with padded counters (2dddf97) against
# base (b0fc1e3). Per launch on NVIDIA in 15 interleaved rounds: native, native on a
# profiling queue (Tutti's real queues are), new, base, and new under TUTTI_MODE=skmd over
# CPU + H200 (a kept decision); PoCL in 5. Then every bundled app under MKMD and SKMD.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $W/machine.txt 2>&1
xz -dc "$here/base.so.xz" > /tmp/base.so
L=$B/lib/libtutti.so R=$B/tools/enqueue_rate
cd /tmp
T="TUTTI_PROFILE_DB=off"
for r in $(seq 1 15); do
  for cfg in native nativeprof new base skmd; do
    case $cfg in
      native) line=$($R 20000 NVIDIA) ;;
      nativeprof) line=$(ENQUEUE_RATE_PROFILING=1 $R 20000 NVIDIA) ;;
      new) line=$(env TUTTI_DEVICES=gpu $T LD_PRELOAD=$L $R 20000 Tutti) ;;
      base) line=$(env TUTTI_DEVICES=gpu $T LD_PRELOAD=/tmp/base.so $R 20000 Tutti) ;;
      skmd) line=$(env TUTTI_MODE=skmd $T LD_PRELOAD=$L $R 20000 Tutti) ;;
    esac
    echo "launch $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*') $(echo "$line" | grep -o 'enqueue_us=[0-9.]*')" >> $W/launch.txt
  done
done
echo "launch done $SECONDS s" >> $W/times.txt
for r in 1 2 3 4 5; do for cfg in native new base; do
  case $cfg in
    native) line=$($R 20000 Portable) ;;
    new) line=$(env TUTTI_DEVICES=cpu $T LD_PRELOAD=$L $R 20000 Tutti) ;;
    base) line=$(env TUTTI_DEVICES=cpu $T LD_PRELOAD=/tmp/base.so $R 20000 Tutti) ;;
  esac
  echo "pocl $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $W/launch.txt
done; done
echo "pocl done $SECONDS s" >> $W/times.txt
for mode in mkmd skmd; do
  for a in $B/apps/*; do
    [ -x "$a" ] && [ -f "$a" ] || continue
    n=$(basename $a); [ "$n" = mk_devinfo ] && continue
    [ $SECONDS -lt 500 ] || break 2
    out=$(env TUTTI_MODE=$mode $T LD_PRELOAD=$L timeout 60 $a 2>&1); rc=$?
    echo "$mode $n rc=$rc $(echo "$out" | grep -o 'status=[A-Z]*' | tail -1) $(echo "$out" | grep -o 'wall_ms=[0-9.]*' | tail -1)" >> $W/apps.txt
  done
done
echo "total $SECONDS s" >> $W/times.txt
(cd $W && tar czf $OUT/c2.tgz .); ls -la $OUT
