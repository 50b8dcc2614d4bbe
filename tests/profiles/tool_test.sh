#!/bin/sh
# tool_test.sh: tutti-profile list/export/prune/run on a temporary database.
# Usage: tool_test.sh TUTTI_PROFILE FILL_DB FAKE_PRELOAD_LIB
set -eu
tool=$1 fill=$2 fake=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
db=$dir/sub/p.sqlite
fail() { echo "FAIL: $*" >&2; exit 1; }

"$tool" --help | grep -q "usage: tutti-profile" || fail "--help"
if "$tool" frobnicate 2>/dev/null; then fail "unknown command accepted"; fi
if "$tool" --db "$db" prune 2>/dev/null; then fail "prune without a filter accepted"; fi

"$fill" "$db" || fail "fill"
out=$("$tool" --db "$db" list)
echo "$out"
echo "$out" | grep -q "vecadd .*0123456789abcdef .*NVIDIA H100 80GB HBM3|550.54 .* 33  regression" || fail "list: vecadd row"
echo "$out" | grep -q "matmul .*pthread-cpu .* 3  nearest profile" || fail "list: matmul row"
# Eight sizes up to 64 MiB: the seven below it make the small copies' fit; the large ones'
# fit is listed beside it.
echo "$out" | grep -q "h2d pinned: 54.0 GB/s + 7.5 us (7 samples), from 64 MiB 54.0 GB/s + 7.5 us;" ||
  fail "list: transfer model"
TUTTI_PROFILE_DB=$db "$tool" list | grep -q vecadd || fail "TUTTI_PROFILE_DB not used"

"$tool" --db "$db" export > "$dir/all.json"
python3 -m json.tool "$dir/all.json" > /dev/null || fail "export is not JSON"
[ "$(grep -c '"kernel_id"' "$dir/all.json")" = 36 ] || fail "export count"
"$tool" export --db "$db" --kernel feedfeedfeed > "$dir/k.json"
[ "$(grep -c '"kernel_id"' "$dir/k.json")" = 3 ] || fail "export --kernel"
"$tool" --db "$db" export --device pthread-cpu | grep -q h2d && fail "export --device kept other transfers"

"$tool" --db "$db" prune --older-than 30 | grep -q "deleted 3 samples" || fail "prune --older-than"
"$tool" --db "$db" prune --kernel 0123456789abcdef0123 --device nothing | grep -q "deleted 0" || fail "prune filters combine"
"$tool" --db "$db" prune --device "NVIDIA H100 80GB HBM3|550.54" | grep -q "deleted 41 samples" || fail "prune --device"
"$fill" "$db"
"$tool" --db "$db" prune --all | grep -q "deleted 44 samples" || fail "prune --all"
"$tool" --db "$db" list | grep -q "no kernel samples" || fail "empty list"

env_out=$(TUTTI_LIB=$fake LD_PRELOAD= "$tool" --db "$db" run -- env)
echo "$env_out" | grep -q "^TUTTI_PROFILE=1$" || fail "run: TUTTI_PROFILE"
echo "$env_out" | grep -q "^TUTTI_PROFILE_DB=$db$" || fail "run: TUTTI_PROFILE_DB"
echo "$env_out" | grep -q "^LD_PRELOAD=$fake$" || fail "run: LD_PRELOAD"
if TUTTI_LIB=/nonexistent/libtutti.so "$tool" run -- true 2>/dev/null; then fail "run without library"; fi
echo "tutti-profile test passed"
