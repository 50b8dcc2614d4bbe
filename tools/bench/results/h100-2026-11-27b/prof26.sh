#!/usr/bin/env bash
# Issue 19 Fig. 5.10/5.11: MKMD makespan against the number of profiles per kernel.
unxz() { python3 -c 'import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"; }
R=$PWD
rm -rf /tmp/b; mkdir -p /tmp/b && unxz $R/.carry/r26/bundle.tar.xz | tar xf - -C /tmp/b
cd /tmp/b/tutti-bench && source ./env.sh > /dev/null
res=$OUT/prof; mkdir -p $res
{ nvidia-smi -L; nproc; lscpu | grep "Model name"; cat bench/VERSION; } > $res/machine.txt 2>&1
timeout ${TMO:-540} ./mkmd_profiles.sh $res --apps ${APPS:-mk_ABE,mk_TripleCommutator,mk_ReachabilityGramian,mk_Lyapunov} \
  --sizes ${SIZES:-2048,1024,3072,512} --measure ${MEAS:-3} --timeout ${RTMO:-120} ${REUSE:+--reuse $R/.carry/r26/pdb} > $res/run.txt 2>&1
rm -f $res/*/*.sqlite-*; for f in $res/*/p*.sqlite; do [ -f "$f" ] && gzip -f "$f"; done; rm -f $res/*/k*.sqlite
cd $OUT && tar czf prof.tgz prof && rm -rf prof
