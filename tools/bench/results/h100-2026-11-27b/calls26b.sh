#!/usr/bin/env bash
# Hot calls of the final tree against dc88ad3 (base): call_cost, 11 interleaved triples.
unxz() { python3 -c 'import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"; }
R=$PWD
rm -rf /tmp/b; mkdir -p /tmp/b && unxz $R/.carry/r26/bundle.tar.xz | tar xf - -C /tmp/b
[ -f /tmp/base-libtutti.so ] || unxz $R/.carry/r26/base-libtutti.so.xz > /tmp/base-libtutti.so
cd /tmp/b/tutti-bench && source ./env.sh > /dev/null
res=$OUT/calls2; mkdir -p $res; cat bench/VERSION > $res/version.txt
new=$PWD/lib/libtutti.so; base=/tmp/base-libtutti.so
for i in $(seq 11); do
  timeout 30 ./tools/call_cost 20000 NVIDIA | sed "s/^RESULT /RESULT how=native /"
  for h in new base; do l=$new; [ $h = base ] && l=$base
    timeout 30 env TUTTI_DEVICES=gpu TUTTI_PROFILE_DB=off LD_PRELOAD=$l ./tools/call_cost 20000 Tutti | sed "s/^RESULT /RESULT how=$h /"; done
done > $res/calls.txt 2>&1
