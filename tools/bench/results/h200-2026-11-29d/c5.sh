#!/usr/bin/env bash
# Session 37, call 5 (nvidia-h200): per launch on NVIDIA with the issuer spinning 200 us
# before it sleeps (new) against the first issuer (cb7e62c, prev), the new tree with the
# driver's callbacks instead of the watcher (cb) and without the issuer, 11 interleaved
# rounds; TUTTI_LOG=info gives the issuer's own split. PoCL in 5 rounds.
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
for r in $(seq 1 11); do
  for cfg in native new prev cb noissuer skmd; do
    case $cfg in
      native) line=$($R 20000 NVIDIA) ;;
      new) line=$(env TUTTI_LOG=info TUTTI_DEVICES=gpu $T LD_PRELOAD=$L $R 20000 Tutti 2>$W/log-$cfg-$r.txt) ;;
      prev) line=$(env TUTTI_DEVICES=gpu $T LD_PRELOAD=/tmp/prev.so $R 20000 Tutti) ;;
      cb) line=$(env TUTTI_LOG=info TUTTI_COMPLETION=callback TUTTI_DEVICES=gpu $T LD_PRELOAD=$L $R 20000 Tutti 2>$W/log-$cfg-$r.txt) ;;
      noissuer) line=$(env TUTTI_ISSUER=0 TUTTI_DEVICES=gpu $T LD_PRELOAD=$L $R 20000 Tutti) ;;
      skmd) line=$(env TUTTI_MODE=skmd $T LD_PRELOAD=$L $R 20000 Tutti) ;;
    esac
    echo "launch $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*') $(echo "$line" | grep -o 'enqueue_us=[0-9.]*')" >> $W/launch.txt
  done
done
echo "launch done $SECONDS s" >> $W/times.txt
for r in 1 2 3 4 5; do for cfg in native new prev; do
  case $cfg in
    native) line=$($R 20000 Portable) ;;
    new) line=$(env TUTTI_DEVICES=cpu $T LD_PRELOAD=$L $R 20000 Tutti) ;;
    prev) line=$(env TUTTI_DEVICES=cpu $T LD_PRELOAD=/tmp/prev.so $R 20000 Tutti) ;;
  esac
  echo "pocl $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $W/launch.txt
done; done
echo "total $SECONDS s" >> $W/times.txt
(cd $W && tar czf $OUT/c5.tgz .); ls -la $OUT
