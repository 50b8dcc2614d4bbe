#!/usr/bin/env bash
# Session 39, call 2 (nvidia-h200, same instance as c1): A/B of the launch on NVIDIA,
# native / new (3795e13) / base (48eed12) / new under SKMD, 15 interleaved rounds of
# enqueue_rate 20,000; then start-up in 11 interleaved rounds (native / new / base).
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=/tmp/b/tutti-bench
[ -d $B ] || { mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b; }
. "$B/env.sh" >/dev/null
[ -f /tmp/base.so ] || xz -dc "$here/base.so.xz" > /tmp/base.so
W=/tmp/w2; rm -rf $W; mkdir -p $W
L=$B/lib/libtutti.so
R=$B/tools/enqueue_rate
T="TUTTI_PROFILE_DB=off"
for r in $(seq 1 15); do for cfg in native new base skmd; do
  case $cfg in
    native) line=$($R 20000 NVIDIA) ;;
    new) line=$(env $T TUTTI_DEVICES=gpu LD_PRELOAD=$L $R 20000 Tutti) ;;
    base) line=$(env $T TUTTI_DEVICES=gpu LD_PRELOAD=/tmp/base.so $R 20000 Tutti) ;;
    skmd) line=$(env $T TUTTI_MODE=skmd LD_PRELOAD=$L $R 20000 Tutti) ;;
  esac
  echo "launch $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $W/launch.txt
done; done
echo "launch done $SECONDS" >> $W/times.txt
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
echo "total $SECONDS" >> $W/times.txt
$B/apps/VectorAdd --list > $W/list.txt 2>&1
(cd $W && tar czf $OUT/c2.tgz .)
