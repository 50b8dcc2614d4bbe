#!/usr/bin/env bash
# Issue 17: a launch the issuer thread hands to a driver that refuses it fails its event and
# what follows it on the queue (tests/api/test_issuer.cpp, ARefusedLaunchFailsWhatFollowsIt).
# The pthread device's driver (faulty_icd.c over PoCL) refuses its 40th launch.
# Usage: issuer_fault.sh LD_PRELOAD-VALUE tutti_api_tests FAULTY_ICD.so
set -euo pipefail
lib=$1 tests=$2 faulty=$3
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
echo "$faulty" > "$dir/faulty.icd"
out=$(env POCL_DEVICES="pthread basic" OCL_ICD_VENDORS="$dir" FAULTY_ICD="kernel:1:40" FAULTY_ICD_LOG="$dir/log" \
      TUTTI_PLACEMENT=device:1 TUTTI_API_EXPECT_TUTTI=1 LD_PRELOAD="$lib" \
      "$tests" --gtest_color=no --gtest_filter=Issuer.ARefusedLaunchFailsWhatFollowsIt 2>&1) || { echo "$out"; exit 1; }
echo "$out" | tail -5
grep -q "PASSED  ] 1 test" <<<"$out" || { echo "FAIL: the test did not run"; exit 1; }
[ -s "$dir/log" ] || { echo "FAIL: no fault was injected (the case tests nothing)"; exit 1; }
grep -q "clEnqueueNDRangeKernel of 'acc_step' failed" <<<"$out" ||
  { echo "FAIL: the refused launch was not the issuer's"; exit 1; }
echo PASS
