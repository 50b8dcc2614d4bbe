#!/usr/bin/env bash
# demo.sh - the main job: builds Tutti and a bundled, unmodified OpenCL app (linked only
# against the system libOpenCL), runs the app under LD_PRELOAD=libtutti.so on this
# machine's PoCL devices, and prints which device ran what and the bytes moved.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target tutti tutti-info app_mk_TripleCommutator app_VectorAdd
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}"
echo "== tutti-info"
./build/tools/tutti-info/tutti-info
app=${TUTTI_DEMO_APP:-mk_TripleCommutator}
size=${TUTTI_DEMO_SIZE:-small}
echo
echo "== $app --size $size, native (first device)"
./build/tools/bench/apps/$app --size "$size" | tail -1
echo
echo "== $app --size $size under Tutti (TUTTI_PLACEMENT=${TUTTI_PLACEMENT:-roundrobin})"
TUTTI_PLACEMENT=${TUTTI_PLACEMENT:-roundrobin} TUTTI_STATS=1 \
  LD_PRELOAD="$PWD/build/interpose/libtutti.so" ./build/tools/bench/apps/$app --size "$size" 2>&1 | tail -4
