#!/usr/bin/env bash
# MKMD holds an app's commands until it waits, to schedule them as one graph. Where the
# schedule keeps every kernel whole on one device (a single device, or a chain of small
# kernels on one buffer set) holding gains nothing, so the queue streams the next
# commands as whole mode does (_cl_command_queue::mkmdStream). Results must not change.
set -euo pipefail
lib=$1 apps=$2
for devs in "pthread" "pthread basic"; do
  out=$(POCL_DEVICES="$devs" LD_PRELOAD="$lib" TUTTI_MODE=mkmd TUTTI_STATS=1 TUTTI_PROFILE_DB=off \
        "$apps/mk_BiCGSTAB" --size small 2>&1) || { echo "$out"; echo "FAIL: exited ($devs)"; exit 1; }
  grep -q "status=PASS" <<<"$out" || { echo "$out"; echo "FAIL: result differs ($devs)"; exit 1; }
  s=$(grep "^TUTTI mkmd_graphs=" <<<"$out")
  echo "$devs: $s"
  grep -Eq "mkmd_streamed=[1-9]" <<<"$s" || { echo "FAIL: nothing streamed ($devs)"; exit 1; }
done
echo PASS
