#!/usr/bin/env bash
# Start-up of VectorAdd --size tiny: native, this tree, and dc88ad3 (base), 11 interleaved triples.
unxz() { python3 -c 'import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"; }
R=$PWD
rm -rf /tmp/b; mkdir -p /tmp/b && unxz $R/.carry/r26/bundle.tar.xz | tar xf - -C /tmp/b
[ -f /tmp/base-libtutti.so ] || unxz $R/.carry/r26/base-libtutti.so.xz > /tmp/base-libtutti.so
cd /tmp/b/tutti-bench && source ./env.sh > /dev/null
res=$OUT/start2; mkdir -p $res
cat bench/VERSION > $res/version.txt
new=$PWD/lib/libtutti.so; base=/tmp/base-libtutti.so; smp=$PWD/tools/libsampler.so
idx=$(apps/VectorAdd --list | sed -n 's/^\([0-9]*\): .*\[.*NVIDIA.*\].*$/\1/p' | head -1)
for h in new base; do l=$new; [ $h = base ] && l=$base
  TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off TUTTI_KERNEL_CACHE=$res/cache-$h LD_PRELOAD=$l apps/VectorAdd --size tiny > /dev/null 2>&1; done
ms() { date +%s%N; }
for i in $(seq 11); do
  t0=$(ms); timeout 20 apps/VectorAdd --size tiny --device $idx > /dev/null 2>&1; t1=$(ms); echo "native $(( (t1 - t0) / 1000 ))"
  for h in new base; do l=$new; [ $h = base ] && l=$base
    t0=$(ms); timeout 20 env TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off TUTTI_KERNEL_CACHE=$res/cache-$h LD_PRELOAD=$l apps/VectorAdd --size tiny > /dev/null 2>&1; t1=$(ms); echo "$h $(( (t1 - t0) / 1000 ))"; done
done > $res/startup-us.txt 2>&1
timeout 20 env TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off TUTTI_KERNEL_CACHE=$res/cache-new LD_PRELOAD="$new $smp" SAMPLER_OUT=$res/s-new.txt apps/VectorAdd --size tiny > /dev/null 2>&1
rm -rf $res/cache-*
