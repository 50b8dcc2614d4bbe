#!/usr/bin/env bash
# Session 37, call 3 (nvidia-h200): per launch on NVIDIA, 15 interleaved rounds of 20,000
# launches: native, the final issuer (new), the first issuer (cb7e62c, prev), and new under TUTTI_MODE=skmd over CPU + H200 (a kept decision). Then
# start-up (VectorAdd tiny), 11 rounds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $W/machine.txt 2>&1
xz -dc "$here/prev.so.xz" > /tmp/prev.so
L=$B/lib/libtutti.so R=$B/tools/enqueue_rate
cd /tmp
T="TUTTI_PROFILE_DB=off"
for r in $(seq 1 15); do
  for cfg in native new prev skmd; do
    case $cfg in
      native) line=$($R 20000 NVIDIA) ;;
      new) line=$(env TUTTI_DEVICES=gpu $T LD_PRELOAD=$L $R 20000 Tutti) ;;
      prev) line=$(env TUTTI_DEVICES=gpu $T LD_PRELOAD=/tmp/prev.so $R 20000 Tutti) ;;
      skmd) line=$(env TUTTI_MODE=skmd $T LD_PRELOAD=$L $R 20000 Tutti) ;;
    esac
    echo "launch $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*') $(echo "$line" | grep -o 'enqueue_us=[0-9.]*')" >> $W/launch.txt
  done
done
echo "launch done $SECONDS s" >> $W/times.txt
for r in $(seq 1 11); do for cfg in native new prev; do
  t0=$(date +%s%N)
  case $cfg in
    native) $B/apps/VectorAdd --size tiny --device 1 > /tmp/s.log 2>&1 ;;
    new) env $T LD_PRELOAD=$L $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
    prev) env $T LD_PRELOAD=/tmp/prev.so $B/apps/VectorAdd --size tiny > /tmp/s.log 2>&1 ;;
  esac
  t1=$(date +%s%N)
  echo "startup $cfg $r process_ms=$(( (t1 - t0) / 1000000 )) $(grep -o 'status=[A-Z]*' /tmp/s.log)" >> $W/startup.txt
done; done
echo "total $SECONDS s" >> $W/times.txt
(cd $W && tar czf $OUT/c3.tgz .); ls -la $OUT
