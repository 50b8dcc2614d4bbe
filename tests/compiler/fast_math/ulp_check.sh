#!/usr/bin/env bash
# The NVPTX exp/log bodies (tutti-nvptx-fast-builtins) built for the host from the pass's own
# IR and checked against double precision over sampled floats (ulp_driver.c).
# Usage: ulp_check.sh TUTTI_CC CLANG [STRIDE] [LIMIT]
set -euo pipefail
cc=$1 clang=$2 stride=${3:-251} limit=${4:-1.0}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$cc" --passes=tutti-nvptx-fast-builtins "$here/builtins.ll" -o "$work/nvptx.ll"
# Same IR, host target: the bodies use only target-independent operations.
sed -e '/^target datalayout/d' -e '/^target triple/d' "$work/nvptx.ll" > "$work/host.ll"
"$clang" -O2 -c -Wno-override-module "$work/host.ll" -o "$work/host.o"
"$clang" -O2 -ffp-contract=off "$here/ulp_driver.c" "$work/host.o" -lm -o "$work/check"
"$work/check" "$stride" "$limit"
