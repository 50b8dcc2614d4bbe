#!/usr/bin/env bash
# Session 37, call 6 (nvidia-h200): is the driver's call slower on the issuer thread because
# two cores are busy? Native launches alone and beside one spinning process, against
# Tutti with and without the issuer (the tree of call 5), 11 interleaved rounds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu | grep 'Model name\|MHz'; cat $B/bench/VERSION) > $W/machine.txt 2>&1
L=$B/lib/libtutti.so R=$B/tools/enqueue_rate
cd /tmp
T="TUTTI_PROFILE_DB=off"
for r in $(seq 1 11); do
  for cfg in native busy busy3 new noissuer; do
    case $cfg in
      native) line=$($R 20000 NVIDIA) ;;
      busy) (timeout 5 sh -c 'while :; do :; done' &) ; sleep 0.05; line=$($R 20000 NVIDIA); pkill -f "while :; do :; done" ;;
      busy3) for i in 1 2 3; do (timeout 5 sh -c 'while :; do :; done' &); done; sleep 0.05; line=$($R 20000 NVIDIA); pkill -f "while :; do :; done" ;;
      new) line=$(env TUTTI_DEVICES=gpu $T LD_PRELOAD=$L $R 20000 Tutti) ;;
      noissuer) line=$(env TUTTI_ISSUER=0 TUTTI_DEVICES=gpu $T LD_PRELOAD=$L $R 20000 Tutti) ;;
    esac
    echo "launch $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*') $(echo "$line" | grep -o 'enqueue_us=[0-9.]*')" >> $W/launch.txt
  done
done
echo "total $SECONDS s" >> $W/times.txt
(cd $W && tar czf $OUT/c6.tgz .); ls -la $OUT
