#!/usr/bin/env bash
# Issue 17: what Tutti asks of the driver per launch does not grow with the launches in
# flight. enqueue_rate (5,000 launches, then clFinish) runs under Tutti on PoCL through
# tally_icd, which counts the driver calls. A clFinish used to enqueue a marker for every
# launch still in flight (thousands, 3.7 us each); one armed launch reports all before it.
set -euo pipefail
lib=$1 tally=$2 rate=$3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
echo "$tally" > "$work/tally.icd"
n=5000
TUTTI_ARM_EVERY=32 OCL_ICD_VENDORS=$work TALLY_ICD_OUT=$work/tally.txt TUTTI_DEVICES=cpu TUTTI_PROFILE_DB=off \
  LD_PRELOAD=$lib "$rate" $n Tutti
calls() { sed -n "s/^TALLY call=$1 thread=${2:-main} calls=\([0-9]*\) .*/\1/p" "$work/tally.txt"; }
launches=$(calls clEnqueueNDRangeKernel); markers=$(calls clEnqueueMarkerWithWaitList)
flushes=$(calls clFlush); issued=$(calls clEnqueueNDRangeKernel other)
echo "launches ${launches:-0} (app thread) + ${issued:-0} (issuer) markers ${markers:-0} flushes ${flushes:-0}"
[ $((${launches:-0} + ${issued:-0})) = $((n + 100)) ] || { echo "FAIL: every launch reaches the driver once"; exit 1; }
# A repeated launch shape needs no driver event after its first 8 (timed) launches: the
# device's issuer thread makes its driver calls (TUTTI_ISSUER). The armed one in 32 gets an
# event, so it is made on the app's thread.
[ "${issued:-0}" -ge $((n * 3 / 4)) ] || { echo "FAIL: repeated launches are not handed to the issuer"; exit 1; }
[ "${markers:-0}" -le 4 ] || { echo "FAIL: markers grow with the launches in flight"; exit 1; }
# One armed (flushed) launch in TUTTI_ARM_EVERY, plus those that clFinish and warm-up arm.
[ "${flushes:-0}" -le $(((n + 100) / 32 + 8)) ] || { echo "FAIL: too many flushes"; exit 1; }
# An app that exits with launches still handed to the issuer (no clFinish, no releases):
# they reach the driver before its exit handlers run.
rm -f "$work/tally.txt"
ENQUEUE_RATE_EXIT=1 OCL_ICD_VENDORS=$work TALLY_ICD_OUT=$work/tally.txt TUTTI_DEVICES=cpu TUTTI_PROFILE_DB=off \
  LD_PRELOAD=$lib "$rate" $n Tutti
launches=$(calls clEnqueueNDRangeKernel); issued=$(calls clEnqueueNDRangeKernel other)
echo "at exit: launches ${launches:-0} (app thread) + ${issued:-0} (issuer)"
[ $((${launches:-0} + ${issued:-0})) = $((n + 100)) ] || { echo "FAIL: launches lost at exit"; exit 1; }
echo PASS
