#!/usr/bin/env bash
# VAST (issue 18): bundled apps under Tutti on two PoCL devices, with a memory limit on
# one (TUTTI_MEM_LIMIT) that makes their buffers several times too big for it. Each app
# checks its own result against a host reference; the case also checks that the launch
# really ran in several slices on that device.
# Usage: vast.sh LD_PRELOAD-VALUE APPS_DIR (the value may put a sanitizer runtime first)
set -uo pipefail
lib=$1 apps=$2
fails=0
# Device 1 (pthread; replicas copied, not the homes themselves) holds 2 MiB.
base=(POCL_DEVICES="pthread basic" TUTTI_MEM_LIMIT=1:2M TUTTI_ZERO_COPY=0 TUTTI_PLACEMENT=device:1
      TUTTI_STATS=1 TUTTI_KERNEL_CACHE=off)

# run NAME APP MIN_SLICES [VAR=VALUE...]; INSPECTED=N: that many launches used the inspector;
# WANT=REGEX: the output must match it too (a TUTTI_STATS count, say); ARGS: the app's.
run() {
  local name=$1 app=$2 min=$3 inspected=${INSPECTED:-} want=${WANT:-} args=${ARGS:-}
  INSPECTED= WANT= ARGS=
  shift 3
  local out rc slices
  # shellcheck disable=SC2086  # ARGS are words
  out=$(env "${base[@]}" "$@" LD_PRELOAD="$lib" timeout 300 "$apps/$app" $args 2>&1)
  rc=$?
  slices=$(grep -o "vast_slices=[0-9]*" <<<"$out" | cut -d= -f2)
  local why=""
  [ "$rc" = 0 ] && grep -q "status=PASS" <<<"$out" || why="expected PASS (exit $rc)"
  [ "${slices:-0}" -ge "$min" ] || why="${why:+$why; }ran in ${slices:-0} slices, expected at least $min"
  if [ -n "$inspected" ]; then
    local got
    got=$(grep -o "vast_inspected=[0-9]*" <<<"$out" | cut -d= -f2)
    [ "${got:-0}" = "$inspected" ] || why="${why:+$why; }the inspector planned ${got:-0} launches, expected $inspected"
  fi
  if [ -n "$want" ] && ! grep -Eq "$want" <<<"$out"; then why="${why:+$why; }output lacks /$want/"; fi
  if [ -n "$why" ]; then
    echo "FAIL $name: $why"
    echo "$out" | tail -12
    fails=$((fails + 1))
  else
    echo "ok   $name (${slices} slices)"
  fi
}

# Data that do not fit: VAST takes them without being forced (TUTTI_VAST=auto).
WANT="vast_rebased=1 " run vectoradd-auto VectorAdd 8
run blackscholes-auto BlackScholes 8
# The big runs' modes, small: the app's own arrays are the homes (USE_HOST_PTR), checked
# through maps; S, K, T in one float4 buffer.
ARGS="--hostptr 1" run blackscholes-hostptr BlackScholes 4
ARGS="--hostptr 1 --packed 1" run blackscholes-hostptr-packed BlackScholes 4
# A buffer larger than the device's own largest allocation (PoCL at 1 GiB: 256 MiB; the
# packed buffer is 320 MB, all three 480 MB, within one frame set's budget) is kept in
# frames of at most that size, in several slices (NVIDIA's 25 % limit on the GPU). Before
# the fix one slice's 320 MB frame was refused and the launch failed. The virtual device
# (4 GiB) lets the app create it.
ARGS="--hostptr 1 --packed 1 --n 20000000" run blackscholes-over-max-alloc BlackScholes 2 POCL_MEMORY_LIMIT=1 \
  TUTTI_MEM_LIMIT=1:1G TUTTI_GLOBAL_MEM_MB=4096 TUTTI_VAST_PIPELINE=0
# Several options per work-item (--per: VAST's 3.7e9-option runs keep under 2^31 items,
# which the index ranges assume): slices from the ranges, no inspector.
INSPECTED=0 ARGS="--hostptr 1 --packed 1 --per 4 --n 1000003" run blackscholes-per BlackScholes 4
# Forced through VAST (data that fit, too), the thesis' Fig. 4.9 set and more.
# Every group reads all of B (1 MiB), more than one of two frame sets holds within 2 MiB:
# B is resident, one frame buffer for both sets, copied in once.
WANT="vast_resident_bytes=[1-9]" run matrixmultiplication-resident MatrixMultiplication 4 TUTTI_VAST=force
# Nbody's groups read every position (at indices the ranges do not bound): resident too,
# in a device a third of the size of its buffers.
WANT="vast_resident_bytes=[1-9]" run nbody-resident Nbody 4 TUTTI_VAST=force TUTTI_MEM_LIMIT=1:256K TUTTI_VAST_PAGE=4096
# The same without a page size: 64 KiB pages leave no room for a group's own windows, so
# the plan takes smaller ones.
WANT="byte pages: a work-group's windows do not fit at 65536" run nbody-smaller-pages Nbody 4 TUTTI_VAST=force \
  TUTTI_MEM_LIMIT=1:256K TUTTI_LOG=info
# In 200 KiB two frame sets hold one group each, fewer than the device's cores: one set
# of twice the bytes runs longer slices.
WANT="groups \(1 frame set" run nbody-one-set-longer-slices Nbody 4 TUTTI_VAST=force TUTTI_MEM_LIMIT=1:200K \
  TUTTI_LOG=info
# A 3-D stencil whose groups loop over z: a group's planes need more than 2 MiB of frames.
# Its windows are one run of pages each, so the rebased kernel runs them; and the paged
# kernel, with its page tables, when told to (TUTTI_VAST_REBASE=0).
WANT="vast_rebased=5 " run fdtd3d FDTD3d 10 TUTTI_VAST=force TUTTI_MEM_LIMIT=1:4M
WANT="vast_rebased=0 " run fdtd3d-paged FDTD3d 10 TUTTI_VAST=force TUTTI_MEM_LIMIT=1:4M TUTTI_VAST_REBASE=0
WANT="vast_rebased=0 " run vectoradd-paged VectorAdd 8 TUTTI_VAST_REBASE=0
WANT="vast_rebased=0 " run sobel-paged SobelFilter 1 TUTTI_VAST=force TUTTI_VAST_REBASE=0
WANT="vast_rebased=0 " run medianfilter-paged MedianFilter 1 TUTTI_VAST=force TUTTI_VAST_REBASE=0
# Stencils with clamped neighbours (median, Sobel), and more.
for app in MedianFilter SobelFilter Reduction Histogram AESEncrypt Nbody; do
  run "$(tr 'A-Z' 'a-z' <<<"$app")" "$app" 1 TUTTI_VAST=force
done
# Page sizes at both ends, atomics across slices that share pages.
run vectoradd-4k VectorAdd 8 TUTTI_VAST_PAGE=4096
run histogramatomic-2m HistogramAtomic 1 TUTTI_VAST=force TUTTI_VAST_PAGE=2097152 TUTTI_MEM_LIMIT=1:12M
# The inspector: data-dependent bins (atomics), and a transpose whose index ranges would
# move 100x its bytes (columns), at 4 KiB pages; the mersenneTwister kernel writes 256
# strided rows per group, 16 MiB in 64 KiB pages, so the inspector retries at 4 KiB; in
# 1 MiB not even 4 KiB pages hold a group, and it runs without VAST elsewhere.
INSPECTED=1 run histogramatomic-inspector HistogramAtomic 2 TUTTI_VAST=force
INSPECTED=1 run transpose-inspector MatrixTranspose 2 TUTTI_VAST=force TUTTI_VAST_PAGE=4096 TUTTI_MEM_LIMIT=1:8M
WANT="inspected with 4096-byte pages" INSPECTED=1 run mersennetwister-smaller-pages MersenneTwister 8 \
  TUTTI_VAST=force TUTTI_LOG=info
INSPECTED=0 run mersennetwister-falls-back MersenneTwister 1 TUTTI_VAST=force TUTTI_MEM_LIMIT=1:1M
# One frame set, slices in turn (no pipeline): shared bytes go through the homes.
run vectoradd-one-set VectorAdd 8 TUTTI_VAST_PIPELINE=0
INSPECTED=1 run histogramatomic-one-set HistogramAtomic 2 TUTTI_VAST=force TUTTI_VAST_PIPELINE=0
# The basic device, whose driver Tutti calls only under its lock: the slices run there.
run vectoradd-basic VectorAdd 8 TUTTI_MEM_LIMIT=0:2M TUTTI_PLACEMENT=device:0
# Under SKMD a device that cannot hold the buffers still takes its piece of a split, in
# slices from the homes, while the other device runs its piece directly (issue 18: VAST
# composes with SKMD). Pthread (its slices on a job thread) or basic (under the lock)
# paged; stencils whose pieces read each other's halo; five split launches in a row.
WANT="split_launches=1 " run vectoradd-skmd-paged-piece VectorAdd 6 TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,3
WANT="split_launches=1 " run blackscholes-skmd-paged-basic BlackScholes 4 TUTTI_MODE=skmd \
  TUTTI_PARTITION=fixed:1,1 TUTTI_MEM_LIMIT=0:2M
WANT="split_launches=1 " run sobel-skmd-paged-piece SobelFilter 2 TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,1
WANT="split_launches=5 " run fdtd3d-skmd-paged-piece FDTD3d 10 TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,1 \
  TUTTI_MEM_LIMIT=1:4M
# Inputs the app wrote to the paged device (each buffer fits its 20 MiB, the launch does
# not): its piece's slices copy them from that replica on the device, and only the other
# piece's half is brought home (before, all of every input crossed to the host first).
WANT="vast_replica_bytes=[1-9]" run vectoradd-skmd-paged-piece-replica VectorAdd 2 TUTTI_MODE=skmd \
  TUTTI_PARTITION=fixed:1,1 TUTTI_MEM_LIMIT=1:20M
# Data larger than either of two capped devices, split between them (issue 22): the app's
# blocking writes are striped over the two, so each piece finds its part on its own device
# and copies it from the replica there, only the rest from the home. Before, the writes
# went whole to one device, and the other device's half crossed to the host and back
# (vast_replica_bytes=0: device 2's piece had only part of each buffer).
WANT="vast_replica_bytes=[1-9][0-9]{6}" run blackscholes-two-striped BlackScholes 4 \
  POCL_DEVICES="pthread pthread basic" TUTTI_MEM_LIMIT=0:13M,2:13M TUTTI_PLACEMENT=auto TUTTI_MODE=skmd \
  TUTTI_PARTITION=fixed:1,0,1
# TUTTI_VAST_STRIPES=0 writes whole to one device (to measure the stripes against): here
# device 1, which runs no piece, so both pieces copy from the home.
WANT="vast_replica_bytes=0($| )" run blackscholes-two-unstriped BlackScholes 4 \
  POCL_DEVICES="pthread pthread basic" TUTTI_MEM_LIMIT=0:13M,2:13M TUTTI_PLACEMENT=auto TUTTI_MODE=skmd \
  TUTTI_PARTITION=fixed:1,0,1 TUTTI_VAST_STRIPES=0
# A split whose pieces' writes need a host merge (atomics) is not split with a paged
# piece: VAST pages the whole launch instead.
WANT="split_launches=0 " run histogramatomic-skmd-whole HistogramAtomic 1 TUTTI_MODE=skmd \
  TUTTI_PARTITION=fixed:1,1 TUTTI_MEM_LIMIT=1:12M TUTTI_VAST_PAGE=2097152
# Copies through pinned regions of the run's own (as on a GPU), in regions of 256 KiB so
# that windows span several and rows are packed: a copy out lands in the home late, so
# the next slices' copies in of the same bytes (shared pages, atomics, one frame set)
# must wait for it.
staged=(TUTTI_STAGING=on TUTTI_STAGING_MB=1 TUTTI_STAGING_MIN=4096)
WANT="staged_bytes=[1-9]" run vectoradd-staged VectorAdd 8 "${staged[@]}"
WANT="staged_bytes=[1-9]" run sobel-staged SobelFilter 2 TUTTI_VAST=force "${staged[@]}"
WANT="staged_bytes=[1-9]" INSPECTED=1 run transpose-inspector-staged MatrixTranspose 2 TUTTI_VAST=force \
  TUTTI_VAST_PAGE=4096 TUTTI_MEM_LIMIT=1:8M "${staged[@]}"
WANT="staged_bytes=[1-9]" INSPECTED=1 run histogramatomic-one-set-staged HistogramAtomic 2 TUTTI_VAST=force \
  TUTTI_VAST_PIPELINE=0 "${staged[@]}"
WANT="staged_bytes=[1-9]" run fdtd3d-staged FDTD3d 10 TUTTI_VAST=force TUTTI_MEM_LIMIT=1:4M "${staged[@]}"
# Inputs the app wrote straight to the device (TUTTI_DIRECT_MIN) are copied to the frames
# from that replica, on the device, not staged home first; written buffers still go through
# the homes. Several slices, pipelined or one set, and beside pinned staging.
rep=(TUTTI_VAST=force TUTTI_DIRECT_MIN=4096)
WANT="vast_replica_bytes=8491008$" run sobel-from-replica SobelFilter 4 "${rep[@]}" TUTTI_MEM_LIMIT=1:12M
WANT="vast_replica_bytes=[1-9]" run fdtd3d-from-replica FDTD3d 5 "${rep[@]}" TUTTI_MEM_LIMIT=1:40M
WANT="vast_replica_bytes=[1-9]" run blackscholes-from-replica-one-set BlackScholes 1 "${rep[@]}" TUTTI_VAST_PIPELINE=0 TUTTI_MEM_LIMIT=1:1G
WANT="vast_replica_bytes=[1-9]" run sobel-from-replica-staged SobelFilter 4 "${rep[@]}" TUTTI_MEM_LIMIT=1:12M "${staged[@]}"
# Split launches stay split; VAST is for the whole launch on one device.
# c is a new output: its bytes are undefined, so only a and b cross (2 x 4000037 floats).
WANT="vast_in_bytes=32000296 " run vectoradd-force-one-slice VectorAdd 1 TUTTI_VAST=force TUTTI_MEM_LIMIT=1:1G

[ "$fails" = 0 ] && echo PASS || { echo "$fails case(s) failed"; exit 1; }
