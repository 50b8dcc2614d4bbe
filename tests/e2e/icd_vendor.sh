#!/usr/bin/env bash
# Tutti registered as an ICD vendor (no LD_PRELOAD): the loader lists it beside PoCL,
# and with TUTTI_ICD_VENDORS it can be the only registered vendor while still finding
# PoCL underneath.
set -euo pipefail
lib=$1 info=$2 app=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/both" "$dir/only"
echo "$lib" > "$dir/both/tutti.icd"
cp /etc/OpenCL/vendors/pocl.icd "$dir/both/"
echo "$lib" > "$dir/only/tutti.icd"
out=$(OCL_ICD_VENDORS=$dir/both "$app")
echo "$out"
grep -qx "Tutti" <<<"$out" || { echo "Tutti platform missing"; exit 1; }
grep -q "Portable Computing Language" <<<"$out" || { echo "PoCL platform missing"; exit 1; }
out=$(OCL_ICD_VENDORS=$dir/only TUTTI_ICD_VENDORS=/etc/OpenCL/vendors "$app")
echo "$out"
[ "$out" = "Tutti" ] || { echo "expected only Tutti"; exit 1; }
echo PASS
