#!/usr/bin/env bash
# Issue 17 on the GPU machine, session 26: this tree (bundle) against dc88ad3's libtutti.so
# (base), interleaved in one call.
unxz() { python3 -c 'import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"; }
R=$PWD
mkdir -p /tmp/b && unxz $R/.carry/r26/bundle.tar.xz | tar xf - -C /tmp/b
unxz $R/.carry/r26/base-libtutti.so.xz > /tmp/base-libtutti.so
cd /tmp/b/tutti-bench && source ./env.sh > /dev/null
res=$OUT/i17; mkdir -p $res
new=$PWD/lib/libtutti.so; base=/tmp/base-libtutti.so
{ nvidia-smi -L; nproc; lscpu | grep "Model name"; cat bench/VERSION; } > $res/machine.txt 2>&1
# 1. Hot calls: call_cost (4 decimals), 9 interleaved triples.
for i in 1 2 3 4 5 6 7 8 9; do
  ./tools/call_cost 20000 NVIDIA | sed "s/^RESULT /RESULT how=native /"
  for h in new base; do l=$new; [ $h = base ] && l=$base
    TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$l ./tools/call_cost 20000 Tutti | sed "s/^RESULT /RESULT how=$h /"; done
done > $res/calls.txt 2>&1
# 2. SKMD with a kept decision (CPU + GPU) beside whole mode, 9 interleaved runs.
for i in 1 2 3 4 5 6 7 8 9; do
  echo "native $(./tools/enqueue_rate 20000 NVIDIA | grep -o 'per_launch_us=[0-9.]*')"
  for h in new base; do l=$new; [ $h = base ] && l=$base
    echo "$h whole-gpu $(TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$l ./tools/enqueue_rate 20000 Tutti | grep -o 'per_launch_us=[0-9.]*')"
    echo "$h whole-all $(TUTTI_PROFILE_DB=off LD_PRELOAD=$l ./tools/enqueue_rate 20000 Tutti | grep -o 'per_launch_us=[0-9.]*')"
    echo "$h skmd-all $(TUTTI_MODE=skmd TUTTI_PROFILE_DB=off LD_PRELOAD=$l ./tools/enqueue_rate 20000 Tutti | grep -o 'per_launch_us=[0-9.]*')"
  done
done > $res/skmd.txt 2>&1
# 3. Tutti's own code per launch: tally_icd's no-op launches under NVIDIA, 9 interleaved pairs.
vend=$res/tv; mkdir -p $vend; echo $PWD/tools/libtally_icd.so > $vend/tally.icd
nv=/usr/local/nvidia/lib64/libnvidia-opencl.so.1
for i in 1 2 3 4 5 6 7 8 9; do for h in new base; do l=$new; [ $h = base ] && l=$base
  echo "$h $(env OCL_ICD_FILENAMES=$PWD/tools/libtally_icd.so OCL_ICD_VENDORS=$vend TALLY_ICD_REAL=$nv TALLY_ICD_NOOP_LAUNCH=1 TALLY_ICD_OUT=/dev/null TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$l ./tools/enqueue_rate 20000 Tutti | grep -o 'per_launch_us=[0-9.]*')"
done; done > $res/noop.txt 2>&1
# 4. Per launch: overhead.sh, native / this tree / base, 5 interleaved runs, twice.
for k in 1 2; do BASELINE=$base timeout 200 ./overhead.sh $res/launch$k 20000 > $res/launch$k.txt 2>&1; done
# 5. Start-up: VectorAdd --size tiny, whole process, warm build caches, 9 interleaved triples,
# then one debug log with times of each (where start-up goes).
idx=$(apps/VectorAdd --list | sed -n 's/^\([0-9]*\): .*\[.*NVIDIA.*\].*$/\1/p' | head -1)
for h in new base; do l=$new; [ $h = base ] && l=$base
  TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off TUTTI_KERNEL_CACHE=$res/cache-$h LD_PRELOAD=$l apps/VectorAdd --size tiny > /dev/null 2>&1; done
ms() { date +%s%N; }
for i in 1 2 3 4 5 6 7 8 9; do
  t0=$(ms); apps/VectorAdd --size tiny --device $idx > /dev/null 2>&1; t1=$(ms); echo "native $(( (t1 - t0) / 1000 ))"
  for h in new base; do l=$new; [ $h = base ] && l=$base
    t0=$(ms); TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off TUTTI_KERNEL_CACHE=$res/cache-$h LD_PRELOAD=$l apps/VectorAdd --size tiny > /dev/null 2>&1; t1=$(ms); echo "$h $(( (t1 - t0) / 1000 ))"; done
done > $res/startup-us.txt 2>&1
t0=$(ms); TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off TUTTI_KERNEL_CACHE=$res/cache-new TUTTI_LOG=debug TUTTI_LOG_TIME=1 LD_PRELOAD=$new apps/VectorAdd --size tiny > $res/startup-debug.log 2>&1; t1=$(ms)
echo "wall $(( (t1 - t0) / 1000 )) us" >> $res/startup-debug.log
t0=$(ms); TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off TUTTI_KERNEL_CACHE=$res/cache-new TUTTI_TRACE=$res/startup-trace.json LD_PRELOAD=$new apps/VectorAdd --size tiny > /dev/null 2>&1; t1=$(ms)
echo "traced wall $(( (t1 - t0) / 1000 )) us" >> $res/startup-debug.log
rm -rf $res/cache-* $vend
cd $OUT && tar czf i17.tgz i17 && rm -rf i17
