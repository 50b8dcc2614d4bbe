#!/usr/bin/env bash
# Issue 19: a kernel whose time is known only on weaker devices is placed as in whole mode
# (on the strongest device), not on the weaker ones because theirs are the only times. A
# database made on another machine does that: on two H100s, one made on two H200s matched
# only the CPU, and MKMD ran mk_ABE's products there (30 s against 117 ms whole).
# Here the Triple Commutator is profiled on pthread + basic, the pthread device's samples are
# deleted, and it runs under MKMD on both (pthread is the stronger): every kernel must go
# to pthread. Before the fix all went to basic. The kernels are short at this size:
# TUTTI_MKMD_TINY_US=0 holds them for the graph, as longer ones would be.
set -euo pipefail
lib=$1 tc=$2
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export POCL_DEVICES="pthread basic"
TUTTI_PROFILE=1 TUTTI_PROFILE_DB=$w/run.sqlite LD_PRELOAD=$lib "$tc" --size tiny > "$w/profile.log" 2>&1 ||
  { cat "$w/profile.log"; exit 1; }
grep -q 'status=PASS' "$w/profile.log" || { cat "$w/profile.log"; exit 1; }
python3 - "$w/run.sqlite" <<'PY' || exit 1
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
before = dict(c.execute("select device_id like 'basic%', count(*) from kernel_samples group by 1").fetchall())
assert before.get(1, 0) > 0 and before.get(0, 0) > 0, before  # both devices were profiled
c.execute("delete from kernel_samples where device_id not like 'basic%'")
c.commit()
PY
TUTTI_MODE=mkmd TUTTI_MKMD_TINY_US=0 TUTTI_PROFILE_DB=$w/run.sqlite TUTTI_STATS=1 TUTTI_LOG=info \
  LD_PRELOAD=$lib "$tc" --size tiny > "$w/run.log" 2>&1 || { cat "$w/run.log"; exit 1; }
grep -q 'status=PASS' "$w/run.log" || { cat "$w/run.log"; exit 1; }
# Every scheduled kernel was one without a time on the strongest device.
python3 - "$w/run.log" <<'PY' || { cat "$w/run.log"; echo "FAIL: kernels known only on basic were not placed as in whole mode"; exit 1; }
import re, sys
log = open(sys.argv[1]).read()
kernels = int(re.search(r" mkmd_kernels=(\d+) ", log).group(1))
unknown = int(re.search(r" mkmd_unknown=(\d+) ", log).group(1))
assert kernels > 0 and unknown == kernels, (kernels, unknown)
PY
grep -q '^TUTTI device=[0-9]* name="basic.* kernels=0 ' "$w/run.log" ||
  { cat "$w/run.log"; echo "FAIL: the weaker (profiled) device ran kernels"; exit 1; }
echo ok
