#!/usr/bin/env bash
# Start-up and tear-down on the GPU machine: where VectorAdd --size tiny spends its time,
# natively and under Tutti (staging regions on and off), and the driver's share of a launch.
unxz() { python3 -c 'import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"; }
R=$PWD
[ -d /tmp/b/tutti-bench ] || { mkdir -p /tmp/b && unxz $R/.carry/r26/bundle.tar.xz | tar xf - -C /tmp/b; }
cd /tmp/b/tutti-bench && source ./env.sh > /dev/null
res=$OUT/start; mkdir -p $res
lib=$PWD/lib/libtutti.so; smp=$PWD/tools/libsampler.so
idx=$(apps/VectorAdd --list | sed -n 's/^\([0-9]*\): .*\[.*NVIDIA.*\].*$/\1/p' | head -1)
cache=$res/cache; mkdir -p $cache
T="TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off TUTTI_KERNEL_CACHE=$cache"
env $T LD_PRELOAD=$lib apps/VectorAdd --size tiny > /dev/null 2>&1
ms() { date +%s%N; }
for i in 1 2 3 4 5 6 7; do
  t0=$(ms); timeout 20 apps/VectorAdd --size tiny --device $idx > /dev/null 2>&1; t1=$(ms); echo "native $(( (t1 - t0) / 1000 ))"
  t0=$(ms); timeout 20 env $T LD_PRELOAD=$lib apps/VectorAdd --size tiny > /dev/null 2>&1; t1=$(ms); echo "tutti $(( (t1 - t0) / 1000 ))"
  t0=$(ms); timeout 20 env $T TUTTI_STAGING_MB=0 LD_PRELOAD=$lib apps/VectorAdd --size tiny > /dev/null 2>&1; t1=$(ms); echo "tutti-staging0 $(( (t1 - t0) / 1000 ))"
done > $res/startup-us.txt 2>&1
timeout 20 env LD_PRELOAD=$smp SAMPLER_OUT=$res/s-native.txt apps/VectorAdd --size tiny --device $idx > /dev/null 2>&1
timeout 20 env $T LD_PRELOAD="$lib $smp" SAMPLER_OUT=$res/s-tutti.txt apps/VectorAdd --size tiny > /dev/null 2>&1
timeout 20 env $T TUTTI_STAGING_MB=0 LD_PRELOAD="$lib $smp" SAMPLER_OUT=$res/s-tutti-staging0.txt apps/VectorAdd --size tiny > /dev/null 2>&1
timeout 20 env $T TUTTI_STAGING_MB=0 TUTTI_TRACE=$res/trace-staging0.json LD_PRELOAD=$lib apps/VectorAdd --size tiny > /dev/null 2>&1
timeout 20 env $T TUTTI_TRACE=$res/trace-default.json LD_PRELOAD=$lib apps/VectorAdd --size tiny > /dev/null 2>&1
# A launch's driver share: native enqueue_rate sampled like Tutti's (samp26.sh).
timeout 40 env LD_PRELOAD=$smp SAMPLER_OUT=$res/s-rate-native.txt ./tools/enqueue_rate 30000 NVIDIA > $res/rate-native.txt 2>&1
rm -rf $cache
