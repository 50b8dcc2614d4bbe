#!/usr/bin/env bash
# Session 39, call 3 (nvidia-h200): the issuer publishing its count every 8 jobs (9ceb4e5,
# "new") against 3795e13 ("prev"): enqueue_rate 20,000 on NVIDIA in 15 interleaved rounds
# (native / new / prev / new under SKMD), one TUTTI_LOG=info run of each for the issuer's
# split, PoCL in 5 rounds, then every bundled app under Tutti in whole mode.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
xz -dc "$here/prev.so.xz" > /tmp/prev.so
W=/tmp/w3; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name'; cat $B/bench/VERSION) > $W/machine.txt 2>&1
L=$B/lib/libtutti.so
R=$B/tools/enqueue_rate
T="TUTTI_PROFILE_DB=off"
pack() { (cd $W && tar czf $OUT/c3.tgz .); }
for r in $(seq 1 15); do for cfg in native new prev skmd; do
  case $cfg in
    native) line=$($R 20000 NVIDIA) ;;
    new) line=$(env $T TUTTI_DEVICES=gpu LD_PRELOAD=$L $R 20000 Tutti) ;;
    prev) line=$(env $T TUTTI_DEVICES=gpu LD_PRELOAD=/tmp/prev.so $R 20000 Tutti) ;;
    skmd) line=$(env $T TUTTI_MODE=skmd LD_PRELOAD=$L $R 20000 Tutti) ;;
  esac
  echo "launch $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $W/launch.txt
done; done
echo "launch done $SECONDS" >> $W/times.txt
for cfg in new prev; do
  lib=$L; [ $cfg = prev ] && lib=/tmp/prev.so
  env $T TUTTI_DEVICES=gpu TUTTI_LOG=info LD_PRELOAD=$lib $R 20000 Tutti > $W/log-$cfg.txt 2>&1
done
for r in 1 2 3 4 5; do for cfg in native new prev; do
  case $cfg in
    native) line=$($R 20000 Portable) ;;
    new) line=$(env $T TUTTI_DEVICES=cpu LD_PRELOAD=$L $R 20000 Tutti) ;;
    prev) line=$(env $T TUTTI_DEVICES=cpu LD_PRELOAD=/tmp/prev.so $R 20000 Tutti) ;;
  esac
  echo "pocl $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $W/launch.txt
done; done
echo "pocl done $SECONDS" >> $W/times.txt; pack
for a in $B/apps/*; do
  [ -x "$a" ] && [ -f "$a" ] || continue
  n=$(basename $a); [ "$n" = mk_devinfo ] && continue
  [ $SECONDS -lt 500 ] || break
  out=$(env $T LD_PRELOAD=$L timeout 60 $a 2>&1); rc=$?
  echo "whole $n rc=$rc $(echo "$out" | grep -o 'status=[A-Z]*' | tail -1) $(echo "$out" | grep -o 'wall_ms=[0-9.]*' | tail -1)" >> $W/apps.txt
done
echo "total $SECONDS" >> $W/times.txt
pack
