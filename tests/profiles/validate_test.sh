#!/bin/sh
# validate_test.sh: TUTTI_PROFILE=validate through tools/bench/accuracy.sh on two PoCL devices.
# VectorAdd is profiled at --size tiny and small and validated at a third size; every device
# gets records with finite positive measured and predicted times, the measured one the fastest
# of TUTTI_PROFILE_REPEATS runs; a validation run (even one
# with split launches, whose online samples would otherwise be stored) leaves the database's
# rows as they were; the same seed gives the same work-group counts; a kernel that cannot be
# partitioned is reported as skipped.
# Usage: validate_test.sh LIBTUTTI ACCURACY_SH APPS_DIR
set -eu
lib=$1 driver=$2 apps=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export POCL_DEVICES="pthread basic"
unset TUTTI_MODE TUTTI_PARTITION TUTTI_PROFILE TUTTI_PROFILE_DB TUTTI_LOG TUTTI_VALIDATE_OUT \
  TUTTI_VALIDATE_RUNS TUTTI_VALIDATE_SEED TUTTI_PROFILE_REPEATS
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. The driver: profile at two sizes, validate at n = 1000003 (3907 groups of 256).
out=$("$driver" "$dir/acc" --lib "$lib" --apps "$apps" --runs 4 --size tiny \
  --app-args "--n 1000003" VectorAdd StreamCompaction 2>&1) || fail "accuracy.sh: $out"
echo "$out" | tail -20
v=$dir/acc/VectorAdd/validate.jsonl
db=$dir/acc/VectorAdd/profiles.sqlite
[ -s "$dir/acc/accuracy.md" ] && [ -s "$dir/acc/accuracy.json" ] || fail "no summary"

python3 - "$v" "$dir/acc/accuracy.json" <<'EOF' || fail "records"
import json, math, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
summary = json.load(open(sys.argv[2]))
bad = []
for dev in ("pthread", "basic"):
    mine = [r for r in recs if r.get("device", "").startswith(dev + "-")]
    if len(mine) != 4:
        bad.append(f"{dev}: {len(mine)} records, want 4")
    for r in mine:
        if r["kernel"] != "vectorAdd" or r["total_groups"] != 3907 or not 1 <= r["groups"] <= 3907:
            bad.append(f"{dev}: wrong launch in {r}")
        for k in ("measured_ms", "predicted_ms", "whole_ms", "corrected_ms"):
            if not (isinstance(r[k], (int, float)) and math.isfinite(r[k]) and r[k] > 0):
                bad.append(f"{dev}: {k} = {r[k]!r}")
        runs = r.get("runs_ms", [])
        if len(runs) != 3 or not all(isinstance(x, (int, float)) and x > 0 for x in runs):
            bad.append(f"{dev}: runs_ms {runs!r}, want TUTTI_PROFILE_REPEATS' default of 3 times")
        elif r["measured_ms"] != min(runs):
            bad.append(f"{dev}: measured {r['measured_ms']} is not the fastest of {runs}")
        if r["model"] not in ("regression", "nearest") or r["model_samples"] < 8:
            bad.append(f"{dev}: model {r['model']} from {r['model_samples']} samples")
if summary["all"]["records"] != 8:
    bad.append(f"summary counts {summary['all']['records']} records, want 8")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF

grep -q '"kernel":"streamCompact",.*"skipped":"not partitionable: ' "$dir/acc/StreamCompaction/validate.jsonl" ||
  fail "StreamCompaction (global atomic result used) not reported as skipped"
grep -q '| StreamCompaction | streamCompact | all | not partitionable' "$dir/acc/accuracy.md" ||
  fail "skipped kernel not in the summary"

# 2. Validation only reads the database: rows before == rows after, even with split launches
# (TUTTI_MODE=skmd stores online samples of its pieces when not validating).
rows() {
  python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(sum(c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("kernel_samples", "transfer_samples")))' "$db"
}
before=$(rows)
[ "$before" -gt 0 ] || fail "the profile runs stored nothing"
# validate FILE [VAR=value...]: VectorAdd at the validated size, records to FILE, output in $o.
validate() {
  file=$1
  shift
  o=$(env LD_PRELOAD="$lib" TUTTI_PROFILE=validate TUTTI_PROFILE_DB="$db" TUTTI_STATS=1 \
    TUTTI_VALIDATE_RUNS=4 TUTTI_VALIDATE_OUT="$file" "$@" "$apps/VectorAdd" --n 1000003 --repeat 3 2>&1) ||
    fail "validation run: $o"
  echo "$o" | grep -q "status=PASS" || fail "validated app did not pass: $o"
}
# A fixed split: Algorithm 1 kept VectorAdd whole on a loaded CI machine (its models from
# profiles taken under that load), and the case split nothing.
validate "$dir/again.jsonl" TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,1
echo "$o" | grep -Eq "split_launches=[1-9]" || fail "no split launch (nothing would have been stored): $o"
after=$(rows)
[ "$before" = "$after" ] || fail "validation changed the database: $before rows before, $after after"

# 3. The same seed gives the same counts; another seed other counts.
counts() { grep -o '"run":[0-9]*,"groups":[0-9]*' "$1" | sort | uniq | tr '\n' ' '; }
[ -n "$(counts "$v")" ] && [ "$(counts "$v")" = "$(counts "$dir/again.jsonl")" ] ||
  fail "seed 1 gave different counts: $(counts "$v") vs $(counts "$dir/again.jsonl")"
validate "$dir/seed2.jsonl" TUTTI_VALIDATE_SEED=2
[ "$(counts "$v")" != "$(counts "$dir/seed2.jsonl")" ] || fail "seed 2 gave seed 1's counts"
echo "validate test passed ($before rows before and after)"
