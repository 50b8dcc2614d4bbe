#!/usr/bin/env bash
# bundle.sh BUILD_DIR OUT.tar.gz
#
# Packs a self-contained benchmark bundle for the GPU machine (no compiler or
# package registry needed there):
#   apps/        stripped app binaries (+ mk_devinfo) from BUILD_DIR/tools/bench/apps
#   lib/         libtutti.so (stripped) when it was built, plus any shared library
#                of the build tree it links against
#   bin/         tutti-profile when it was built (list/export the profile databases)
#   bench/       bench.py, benchlib/, accuracy.py, repeatability.py, fig310.py, profile_lib.sh,
#                profile_params.tsv, VERSION (Tutti commit)
#   env.sh       registers NVIDIA + PoCL for the ICD loader (FACTS.md), lib/ on the path
#   run.sh       sources env.sh, then runs the full profile and renders the report into
#                a given folder
#   accuracy.sh  prediction error of the time models (tools/bench/accuracy.sh)
#   fig310.sh    thesis Fig. 3.10: SKMD and linear vs. the fastest single device
#   split_sweep.sh  issue 23: measured and predicted wall time per CPU share
#   overhead.sh, tools/enqueue_rate   launch rate natively and under Tutti
#   tools/call_cost                   host cost of each driver call a launch makes
#   tools/atomic_add                  software atomic add (thesis Ch. 3) against the device's
#   tools/handoff_rate                launches with the driver call on another thread (native)
#   tools/libtally_icd.so             ICD that counts and times a real driver's calls
#   README.txt
# The archive must stay under 50 MiB.
set -euo pipefail

usage() { echo "usage: $0 BUILD_DIR OUT.tar.gz" >&2; exit 2; }
[ $# -eq 2 ] || usage
build=$(cd "$1" && pwd) || usage
out=$2
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
limit=$((50 * 1024 * 1024))

appsdir=""
for cand in "$build/tools/bench/apps" "$build/apps" "$build"; do
  if [ -d "$cand" ]; then appsdir=$cand; break; fi
done
[ -n "$appsdir" ] || { echo "bundle: no apps folder under $build" >&2; exit 1; }

stage=$(mktemp -d "${TMPDIR:-/tmp}/tutti-bundle.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root="$stage/tutti-bench"
mkdir -p "$root/apps" "$root/lib" "$root/bin" "$root/bench/benchlib"

napps=0
for f in "$appsdir"/*; do
  [ -f "$f" ] && [ -x "$f" ] || continue
  name=$(basename "$f")
  case "$name" in *.so|*.sh|*.py|*.cmake|*.txt|*.json) continue ;; esac
  if [ "$name" != mk_devinfo ]; then
    # Apps are the executables that answer --help with app.h's usage line.
    help=$(timeout 30 "$f" --help 2>&1 || true)
    case "$help" in *"--size tiny|small|thesis"*) ;; *) continue ;; esac
    napps=$((napps + 1))
  fi
  cp "$f" "$root/apps/$name"
  strip --strip-unneeded "$root/apps/$name" 2>/dev/null || true
done
[ "$napps" -gt 0 ] || { echo "bundle: no app binaries in $appsdir (build them first)" >&2; exit 1; }

tutti=$(find "$build" -name libtutti.so -not -path '*/CMakeFiles/*' -print -quit 2>/dev/null || true)
if [ -n "$tutti" ]; then
  cp -L "$tutti" "$root/lib/libtutti.so"
  strip --strip-unneeded "$root/lib/libtutti.so" 2>/dev/null || true
  # Shared libraries of the build tree that libtutti.so needs travel with it.
  ldd "$tutti" 2>/dev/null | awk '/=> \// {print $3}' | while read -r dep; do
    case "$dep" in "$build"/*) cp -L "$dep" "$root/lib/"; strip --strip-unneeded "$root/lib/$(basename "$dep")" || true ;; esac
  done
  # System libraries the in-process compiler (LLVM) needs, in case the GPU machine
  # lacks them; run.sh puts lib/ on LD_LIBRARY_PATH.
  for sys in libz.so.1 libtinfo.so.6 libsqlite3.so.0; do
    dep=$(ldd "$tutti" 2>/dev/null | awk -v n="$sys" '$1 == n {print $3}')
    [ -n "$dep" ] && cp -L "$dep" "$root/lib/$sys"
  done
  echo "bundle: libtutti.so from $tutti"
else
  echo "bundle: libtutti.so not built; the bundle runs the apps natively only" >&2
fi

mk=$(find "$build" -name tutti-mkmd -type f -perm -u+x -not -path '*/CMakeFiles/*' -print -quit 2>/dev/null || true)
[ -n "$mk" ] && cp "$mk" "$root/bin/tutti-mkmd"
prof=$(find "$build" -name tutti-profile -type f -perm -u+x -not -path '*/CMakeFiles/*' -print -quit 2>/dev/null || true)
if [ -n "$prof" ]; then
  cp "$prof" "$root/bin/tutti-profile"
  strip --strip-unneeded "$root/bin/tutti-profile" 2>/dev/null || true
fi

# The empty-kernel launch rate benchmark, its driver (overhead.sh) and the per-call costs
# of the driver entry points a launch uses (call_cost).
mkdir -p "$root/tools"
# libtally_icd.so times a driver's calls (tools/bench/micro/tally_icd.c); libsampler.so
# samples the main thread's stacks (sampler.c: perf is not on the GPU machine).
for t in enqueue_rate handoff_rate call_cost atomic_add libtally_icd.so libsampler.so; do
  if [ -f "$build/tools/bench/micro/$t" ]; then
    cp "$build/tools/bench/micro/$t" "$root/tools/"
    strip --strip-unneeded "$root/tools/$t" 2>/dev/null || true
  fi
done
cp "$here/overhead.sh" "$here/interpose_cost.sh" "$here/vast_fig.sh" "$here/vast_big.sh" "$here/vast_devices.sh" "$root/"

cp "$here/bench.py" "$here/accuracy.py" "$here/repeatability.py" "$here/fig310.py" "$here/profile_lib.sh" \
  "$here/cpu_spread.py" "$here/split_sweep.py" \
  "$here/profile_params.tsv" "$here/mkmd_params.tsv" "$root/bench/"
cp "$here"/benchlib/*.py "$root/bench/benchlib/"
cp "$here/accuracy.sh" "$here/fig310.sh" "$here/split_sweep.sh" "$here/cpu_spread.sh" "$here/mkmd_record.sh" "$here/mkmd_predict.sh" "$here/mkmd_profiles.sh" "$root/"
commit=$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo true || echo false)
{
  echo "commit=$commit"
  echo "dirty=$dirty"
  echo "bundled=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null | head -1)"
  echo "built_on=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $(ldd --version 2>/dev/null | head -1 | awk '{print $NF}')"
} > "$root/bench/VERSION"

cat > "$root/env.sh" <<'ENV'
# env.sh - sourced by run.sh and accuracy.sh (bash).
# NVIDIA's OpenCL is installed but not registered on the GPU machine; register
# it next to PoCL in a private vendors folder (see FACTS.md). lib/ goes on the
# library path (libtutti.so's own dependencies).
bundle_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
nv=/usr/local/nvidia/lib64/libnvidia-opencl.so.1
if [ -z "${OCL_ICD_VENDORS:-}" ] && [ -e "$nv" ]; then
  vend=$(mktemp -d "${TMPDIR:-/tmp}/tutti-vend.XXXXXX")
  echo "$nv" > "$vend/nv.icd"
  echo libpocl.so.2 > "$vend/pocl.icd"
  export OCL_ICD_VENDORS=$vend
fi
echo "OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-<system default>}"
export LD_LIBRARY_PATH="$bundle_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ENV

cat > "$root/run.sh" <<'RUN'
#!/usr/bin/env bash
# run.sh RESULTS_DIR [bench.py run options, e.g. --apps mk_ABE,kmeans --repeat 3]
# Runs the full profile (thesis sizes) natively on every OpenCL device and under
# Tutti, then writes RESULTS_DIR/report.md (and PNGs when matplotlib exists).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 RESULTS_DIR [bench.py run options]" >&2; exit 2; }
results=$1; shift
mkdir -p "$results"
. "$here/env.sh"
command -v clinfo >/dev/null && clinfo > "$results/clinfo.txt" 2>&1 || true

python3 "$here/bench/bench.py" list --build "$here"
python3 "$here/bench/bench.py" run --profile full --out "$results" --build "$here" "$@"
rc=$?
python3 "$here/bench/bench.py" report "$results" || true
echo "results in $results (exit status $rc)"
exit $rc
RUN
chmod +x "$root/run.sh"

cat > "$root/README.txt" <<EOF2
Tutti benchmark bundle (commit $commit, dirty=$dirty).

  ./run.sh RESULTS_DIR                      full profile: thesis sizes, every app,
                                            natively on each device and under Tutti
  ./run.sh RESULTS_DIR --apps mk_ABE,kmeans --repeat 3
  python3 bench/bench.py report RESULTS_DIR  re-render report.md (+ PNGs with matplotlib)
  ./accuracy.sh OUT_DIR [APP...]            prediction error of the SKMD time models:
                                            profile at tiny+small, validate at thesis,
                                            OUT_DIR/accuracy.md (./accuracy.sh --help);
                                            --profile-sizes table: thesis Table 3.3 sizes
  ./fig310.sh OUT_DIR [--apps A,B] [--repeat 3] [--timeout 300] [--budget 540]
                                            Fig. 3.10: profile at Table 3.3 sizes
                                            (bench/profile_params.tsv), then native per
                                            device, tutti-skmd, tutti-skmd-linear at thesis
                                            size; OUT_DIR/fig310.md (./fig310.sh --help)
  ./split_sweep.sh OUT_DIR [--apps A,B:hostptr] [--shares 0,10,..]
                                            issue 23: wall time measured and predicted per
                                            CPU share, beside whole and auto; OUT_DIR/sweep.md

run.sh registers /usr/local/nvidia/lib64/libnvidia-opencl.so.1 and PoCL in a
private OCL_ICD_VENDORS folder unless OCL_ICD_VENDORS is already set.
Needs python3 (standard library) and the system's libOpenCL.so.1 (ocl-icd).
Apps: $(cd "$root/apps" && ls | tr '\n' ' ')
Tutti library: $([ -f "$root/lib/libtutti.so" ] && echo lib/libtutti.so || echo "not included (native runs only)")
EOF2

mkdir -p "$(dirname "$out")"
tar -C "$stage" -czf "$out" tutti-bench
size=$(stat -c %s "$out")
echo "bundle: $out ($((size / 1024)) KiB, $napps apps)"
if [ "$size" -ge "$limit" ]; then
  echo "bundle: $out is $size bytes, over the 50 MiB limit" >&2
  exit 1
fi
