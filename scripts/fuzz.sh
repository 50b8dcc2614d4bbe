#!/usr/bin/env bash
# fuzz.sh - the libFuzzer targets of tests/fuzz for a long run (the suite runs each a
# minute or two).
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET (default 3600)] [TARGET...]
# Findings (crash, leak, timeout inputs) land in build-fuzz/tests/fuzz/found/<target>/;
# add a fixed bug's reproducer to tests/fuzz/corpus/<target>/ with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(settings profile_db api kernel_source)
scripts/install-deps.sh
CC=clang-15 CXX=clang++-15 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTUTTI_WITH_COMPILER=OFF -DTUTTI_FUZZ=ON -DTUTTI_SANITIZE=address,undefined \
  -DTUTTI_THREAD_SAFETY=OFF -DTUTTI_FUZZ_SECONDS="$secs" >/dev/null
cmake --build build-fuzz --target $(printf 'fuzz_%s ' "${targets[@]}") -j"$(nproc)"
export POCL_DEVICES="${POCL_DEVICES:-pthread basic}" ASAN_OPTIONS=detect_leaks=0
for t in "${targets[@]}"; do
  (cd build-fuzz && ctest --output-on-failure -R "^fuzz\.$t\$")
done
