#!/usr/bin/env bash
# Session 37, call 4 (nvidia-h200): where a launch's time goes with the issuer (TUTTI_LOG=info
# logs the issuer thread's time in the driver and waiting, and the app thread's waits for a
# free slot), 7 interleaved rounds beside native; then both pinned to two logical CPUs of
# one core (SMT siblings) and of two cores.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/b; mkdir -p /tmp/b && tar xJf "$here/bundle.tar.xz" -C /tmp/b
B=/tmp/b/tutti-bench
. "$B/env.sh" >/dev/null
W=/tmp/w; rm -rf $W; mkdir -p $W
(nvidia-smi -L; nproc; lscpu; lscpu -e=CPU,CORE,SOCKET,NODE; cat $B/bench/VERSION) > $W/machine.txt 2>&1
L=$B/lib/libtutti.so R=$B/tools/enqueue_rate
cd /tmp
T="TUTTI_PROFILE_DB=off"
# Two logical CPUs of one core, and two of different cores (from lscpu's CORE column).
read -r s1 s2 <<<"$(lscpu -p=CPU,CORE | grep -v '^#' | awk -F, '{c[$2]=c[$2]" "$1} END {for (k in c) {n=split(c[k],a," "); if (n>=2) {print a[1], a[2]; exit}}}')"
read -r d1 d2 <<<"$(lscpu -p=CPU,CORE | grep -v '^#' | awk -F, 'NR==1{c1=$2; p=$1} $2!=c1{print p, $1; exit}')"
echo "siblings=$s1,$s2 distinct=$d1,$d2" >> $W/machine.txt
for r in $(seq 1 7); do
  for cfg in native new noissuer; do
    case $cfg in
      native) line=$($R 20000 NVIDIA) ;;
      new) line=$(env TUTTI_LOG=info TUTTI_DEVICES=gpu $T LD_PRELOAD=$L $R 20000 Tutti 2>$W/log-$cfg-$r.txt) ;;
      noissuer) line=$(env TUTTI_ISSUER=0 TUTTI_DEVICES=gpu $T LD_PRELOAD=$L $R 20000 Tutti) ;;
    esac
    echo "launch $cfg $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*') $(echo "$line" | grep -o 'enqueue_us=[0-9.]*')" >> $W/launch.txt
  done
  for pin in sib dis; do
    cpus=$s1,$s2; [ $pin = dis ] && cpus=$d1,$d2
    [ -n "${cpus//,/}" ] || continue
    line=$(taskset -c $cpus $R 20000 NVIDIA)
    echo "launch native-$pin $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*')" >> $W/launch.txt
    line=$(env TUTTI_LOG=info TUTTI_DEVICES=gpu $T LD_PRELOAD=$L taskset -c $cpus $R 20000 Tutti 2>$W/log-$pin-$r.txt)
    echo "launch new-$pin $r $(echo "$line" | grep -o 'per_launch_us=[0-9.]*') $(echo "$line" | grep -o 'enqueue_us=[0-9.]*')" >> $W/launch.txt
  done
done
echo "total $SECONDS s" >> $W/times.txt
(cd $W && tar czf $OUT/c4.tgz .); ls -la $OUT
