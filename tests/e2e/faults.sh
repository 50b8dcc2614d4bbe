#!/usr/bin/env bash
# Device faults (issue 21): bundled apps under Tutti on two PoCL devices reached through
# tests/faults/faulty_icd.c, which makes chosen driver calls fail mid-run. Each app checks
# its own result: with a device left that can run the work, it must pass, and the fault
# log must show that the fault really happened; with none left, it must get an OpenCL
# error (no crash, no wrong result).
# Usage: faults.sh LD_PRELOAD-VALUE APPS_DIR FAULTY_ICD.so [ON|OFF: the kernel compiler]
set -uo pipefail
lib=$1 apps=$2 faulty=$3 compiler=${4:-ON}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/vendors"
echo "$faulty" > "$dir/vendors/faulty.icd"
fails=0

# run NAME APP FAULTS EXPECT(pass|error|pass-or-error) [VAR=VALUE...]
run() {
  local name=$1 app=$2 faults=$3 expect=$4
  shift 4
  rm -f "$dir/log"
  local out rc
  out=$(env POCL_DEVICES="pthread basic" OCL_ICD_VENDORS="$dir/vendors" FAULTY_ICD="$faults" \
        FAULTY_ICD_LOG="$dir/log" TUTTI_KERNEL_CACHE=off TUTTI_STATS=1 "$@" \
        LD_PRELOAD="$lib" timeout 120 "$apps/$app" 2>&1)
  rc=$?
  local injected=0
  [ -f "$dir/log" ] && injected=$(wc -l < "$dir/log")
  local why=""
  if [ "$rc" -ge 124 ]; then why="crashed or hung (exit $rc)"
  elif [ "$expect" = pass-or-error ]; then
    # What only a dead device held is lost: the app may fail, but must be told so.
    { [ "$rc" = 0 ] && grep -q "status=PASS" <<<"$out"; } ||
      { grep -q "status=ERROR" <<<"$out" && grep -q "OpenCL error" <<<"$out"; } ||
      why="expected PASS or an OpenCL error (exit $rc)"
  elif [ "$expect" = pass ]; then
    [ "$rc" = 0 ] && grep -q "status=PASS" <<<"$out" || why="expected PASS (exit $rc)"
  else
    grep -q "status=ERROR" <<<"$out" && grep -q "OpenCL error" <<<"$out" || why="expected an OpenCL error (exit $rc)"
    # The spec leaves commands after a failed one undefined: a blocking read queued behind
    # the failed launch may return the buffer's old bytes (VectorAdd then also prints its
    # mismatch), as long as the app is told of the failure.
  fi
  [ -n "$faults" ] && [ "$injected" = 0 ] && why="${why:+$why; }no fault was injected (the case tests nothing)"
  for want in "${CHECKS[@]}"; do
    grep -Eq "$want" <<<"$out" || why="${why:+$why; }output lacks /$want/"
  done
  if [ -n "$why" ]; then
    echo "FAIL $name: $why"
    echo "$out" | tail -15
    fails=$((fails + 1))
  else
    echo "ok   $name ($injected faults injected)"
  fi
  CHECKS=()
}
# The device that ran most of APP's kernels without faults: MKMD's schedule follows the
# devices' measured speeds, so which device gets the graph differs between machines (all
# of it on pthread on some), and a fault must hit a device the graph uses.
busiest() {  # APP [VAR=VALUE...]
  local app=$1
  shift
  env POCL_DEVICES="pthread basic" OCL_ICD_VENDORS="$dir/vendors" TUTTI_KERNEL_CACHE=off TUTTI_STATS=1 "$@" \
    LD_PRELOAD="$lib" timeout 120 "$apps/$app" 2>&1 |
    sed -n 's/^TUTTI device=\([0-9]*\) .* kernels=\([0-9]*\) .*/\2 \1/p' | sort -rn | head -1 | cut -d' ' -f2
}
CHECKS=()

# The wrapper alone changes nothing.
run native-through-wrapper VectorAdd "" pass
# One refused launch: it runs on the other device.
CHECKS=("TUTTI failovers=1")
run kernel-once VectorAdd "kernel:1:1" pass
# Every allocation on the basic device fails: its launches go to pthread.
CHECKS=("TUTTI failovers=[1-9]")
run alloc-always Nbody "alloc:0:1+" pass TUTTI_PLACEMENT=roundrobin
# Writes refused by the device the app's data goes to: they land in host memory.
CHECKS=("TUTTI device=0 .* failures=[1-9]")
run write-always MatrixTranspose "write:0:1+" pass TUTTI_PLACEMENT=device:0
# Fills and device-side copies refused where the data live: they run in host memory
# (BiCGSTAB zeroes x and copies b to r and p before its loop; b goes straight to the
# device, TUTTI_DIRECT_MIN=1, so its copies start there).
CHECKS=("clEnqueueCopyBuffer failed .* runs in host memory instead" "TUTTI device=0 .* failures=[1-9]")
run copy-always mk_BiCGSTAB "copy:0:1+" pass TUTTI_PLACEMENT=device:0 TUTTI_DIRECT_MIN=1
# The basic device stops taking work after 10 calls, mid-iteration (launches, writes and
# allocations refused; what it holds can still be read back): it is retired, the rest
# runs on pthread, and what it alone held is read back from it. The app must pass.
CHECKS=("TUTTI device=0 .* retired=1" "gets no new work")
run device-stops mk_Jacobi "work:0:10" pass TUTTI_PLACEMENT=roundrobin
# The same under MKMD's schedule (with the compiler), on the device that runs most of
# the graph.
if [ "$compiler" = ON ]; then
mk=$(busiest mk_BiCGSTAB TUTTI_MODE=mkmd)
CHECKS=("TUTTI device=${mk:-0} .* failures=[1-9]")
run device-stops-mkmd mk_BiCGSTAB "work:${mk:-0}:12" pass TUTTI_MODE=mkmd
fi
# Here it dies whole, reads included, mid-iteration: the bytes it alone held are gone
# (Tutti keeps no checkpoints). The app must pass or be told (an OpenCL error), never go
# on with stale bytes. Before the fix a refused read let the command use the home's old
# bytes: NaN in BiCGSTAB's x (stop 27's CI), or a solver that converged anyway around a
# silently wrong step. Which happens depends on what the device held when it died.
run device-dies mk_Jacobi "device:0:10" pass-or-error TUTTI_PLACEMENT=roundrobin
[ "$compiler" = ON ] && run device-dies-mkmd mk_BiCGSTAB "device:${mk:-0}:12" pass-or-error TUTTI_MODE=mkmd
# The build fails on one device: the program runs on the other (split mode included).
run build-one BinomialOption "build:0:1" pass TUTTI_MODE=skmd TUTTI_PARTITION=fixed:50
if [ "$compiler" = ON ]; then
# A split launch: the basic device refuses its piece after pthread's piece was enqueued
# (that piece cannot be taken back), so pthread runs that piece's work-groups too; where
# no piece ran yet, the launch runs whole on pthread.
CHECKS=("refused a piece of 'vectorAdd'" "split_launches=1")
run split-piece VectorAdd "kernel:0:1" pass TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,3
CHECKS=("TUTTI failovers=1")
run split-before-start MatrixTranspose "kernel:0:1" pass TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,3
# The zero-copy CPU's piece (pthread) starts before the others' inputs are uploaded; the
# basic device then refuses its piece's upload, and that piece goes to pthread too. It
# failed the launch with the upload's error before (and e2e.faults device-stops-mkmd
# with it whenever the stopping device was the basic one).
CHECKS=("refused a piece of 'vectorAdd'" "split_launches=1")
run split-upload VectorAdd "write:0:1" pass TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,3
fi
# Nothing can run it: the app gets the error, not a wrong result.
CHECKS=("no other device can run it")
run kernel-everywhere VectorAdd "kernel:0:1+,kernel:1:1+" error
CHECKS=("CL_BUILD_PROGRAM_FAILURE")
run build-everywhere VectorAdd "build:0:1,build:1:1" error
run reads-everywhere VectorAdd "read:0:1+,read:1:1+" error TUTTI_PLACEMENT=device:0

[ "$fails" = 0 ] && echo PASS || { echo "$fails case(s) failed"; exit 1; }
