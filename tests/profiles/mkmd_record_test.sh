#!/usr/bin/env bash
# TUTTI_MKMD_RECORD and TUTTI_MODE=mkmd on a Table 5.3 app over two PoCL devices: profile it, record its graph
# under TUTTI_MODE=skmd, then schedule the recording with tutti-mkmd, as recorded and on a
# device set that is not here (two of the pthread device).
set -euo pipefail
lib=$1 tool=$2 app=$3
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export POCL_DEVICES="pthread basic" TUTTI_PROFILE_DB="$w/p.sqlite"
LD_PRELOAD=$lib TUTTI_PROFILE=1 "$app" --size tiny > "$w/profile.log" 2>&1 || { cat "$w/profile.log"; exit 1; }
LD_PRELOAD=$lib TUTTI_MODE=skmd TUTTI_MKMD_RECORD="$w/tc.graph" "$app" --size tiny > "$w/run.log" 2>&1 ||
  { cat "$w/run.log"; exit 1; }
grep -q 'status=PASS' "$w/run.log"
g=$w/tc.graph
# 12 products and 5 sums; the three inputs come from the host and R goes back.
[ "$(grep -c '^kernel matmul\.' "$g")" = 12 ] || { cat "$g"; exit 1; }
[ "$(grep -c '^kernel ' "$g")" = 17 ] || { cat "$g"; exit 1; }
# (Homes not yet allocated are marked cold.)
[ "$(grep -c '^buffer .* in\( cold\)\?$' "$g")" = 3 ] || { cat "$g"; exit 1; }
[ "$(grep -c '^buffer .* out\( cold\)\?$' "$g")" = 1 ] || { cat "$g"; exit 1; }
# A product's row operand follows the groups; the column operand goes whole to each piece.
grep -q '^kernel matmul\.0 groups=[0-9]* reads=buf0_[0-9]*\*,buf1_[0-9]* writes=buf3_' "$g" || { cat "$g"; exit 1; }
grep -q 'time=cpu0:[0-9.e+-]*+[0-9.e+-]*,cpu1:' "$g" || { cat "$g"; exit 1; }
host=$(sed -n 's/^device \([a-z0-9]*\) host.*/\1/p' "$g")
[ -n "$host" ] || { echo "no host (zero-copy) device recorded"; cat "$g"; exit 1; }
# TUTTI_MODE=mkmd runs the same graph: when no window of 8 counts as short, one schedule of
# all 17 kernels at the final read. The windows here are held from the first command
# (TUTTI_MKMD_EAGER=0; issue19_chain_window_test.sh covers commands that go at once).
LD_PRELOAD=$lib TUTTI_MODE=mkmd TUTTI_MKMD_EAGER=0 TUTTI_MKMD_SHORT_US=0 TUTTI_STATS=1 "$app" --size tiny > "$w/mkmd.log" 2>&1 ||
  { cat "$w/mkmd.log"; exit 1; }
grep -q 'status=PASS' "$w/mkmd.log" || { cat "$w/mkmd.log"; exit 1; }
grep -q 'TUTTI mkmd_graphs=1 mkmd_kernels=17 ' "$w/mkmd.log" || { cat "$w/mkmd.log"; exit 1; }
# When every window of 8 counts as short (TUTTI_MKMD_SHORT_WINDOW), each is scheduled as
# soon as it is held: 8, 8, then the last kernel at the final read.
LD_PRELOAD=$lib TUTTI_MODE=mkmd TUTTI_MKMD_EAGER=0 TUTTI_MKMD_SHORT_US=1000000000 TUTTI_STATS=1 TUTTI_LOG=info "$app" --size tiny \
  > "$w/mkmd8.log" 2>&1 || { cat "$w/mkmd8.log"; exit 1; }
grep -q 'status=PASS' "$w/mkmd8.log" || { cat "$w/mkmd8.log"; exit 1; }
sizes=$(sed -n 's/.*mkmd: \([0-9]*\) kernels scheduled.*/\1/p' "$w/mkmd8.log" | tr '\n' ' ')
[ "$sizes" = "8 8 1 " ] || { cat "$w/mkmd8.log"; echo "FAIL: graphs of $sizes kernels, expected 8, 8, 1"; exit 1; }
"$tool" "$g" --json "$w/here.json" --repeat 3 > "$w/here.txt"
"$tool" "$g" --devices "$host,$host" --json "$w/two.json" --repeat 3 > "$w/two.txt"
python3 - "$w" <<'PY'
import json, sys
w = sys.argv[1]
for name in ("here", "two"):
    r = json.load(open(f"{w}/{name}.json"))
    assert r["mkmd_ms"] <= r["coarse_ms"] + 1e-9 <= min(r["in_order_ms"]) + 1e-9, (name, r)
two = json.load(open(f"{w}/two.json"))
# Twelve independent-ish products on two equal devices: coarse scheduling alone pairs them.
assert two["speedup"] >= 1.5, two
print("ok")
PY
