#!/usr/bin/env bash
# Where a launch's time goes on the GPU machine: libsampler.so on enqueue_rate's main thread,
# Tutti whole on the GPU alone, whole with the CPU device too, and SKMD (CPU + GPU).
unxz() { python3 -c 'import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"; }
R=$PWD
[ -d /tmp/b/tutti-bench ] || { mkdir -p /tmp/b && unxz $R/.carry/r26/bundle.tar.xz | tar xf - -C /tmp/b; }
cd /tmp/b/tutti-bench && source ./env.sh > /dev/null
res=$OUT/samp; mkdir -p $res
lib=$PWD/lib/libtutti.so; smp=$PWD/tools/libsampler.so
for cfg in whole-gpu whole-all skmd-all; do
  e="TUTTI_PROFILE_DB=off TUTTI_STATS=1"; [ $cfg = whole-gpu ] && e="$e TUTTI_DEVICES=gpu"; [ $cfg = skmd-all ] && e="$e TUTTI_MODE=skmd"
  timeout 30 env $e LD_PRELOAD="$lib" ./tools/enqueue_rate 30000 Tutti > $res/stats-$cfg.txt 2>&1
  echo "$cfg stats rc=$?" >> $res/rates.txt
done
for cfg in whole-gpu whole-all skmd-all; do
  e="TUTTI_PROFILE_DB=off"; [ $cfg = whole-gpu ] && e="$e TUTTI_DEVICES=gpu"; [ $cfg = skmd-all ] && e="$e TUTTI_MODE=skmd"
  r=$(timeout 40 env $e LD_PRELOAD="$lib $smp" SAMPLER_OUT=$res/$cfg.txt ./tools/enqueue_rate 30000 Tutti | grep -o 'per_launch_us=[0-9.]*')
  echo "$cfg sampled rc=$? $r" >> $res/rates.txt
done
