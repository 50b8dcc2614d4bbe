#!/usr/bin/env bash
# Under LD_PRELOAD an app that dlopens libOpenCL still reaches the real loader (that
# is how dlsym on a handle works); it reaches Tutti when Tutti is a registered vendor.
set -euo pipefail
lib=$1 info=$2 app=$3
out=$(LD_PRELOAD=$lib "$app")
grep -q "Portable Computing Language" <<<"$out" || { echo "loader not reached: $out"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "$lib" > "$dir/tutti.icd"
out=$(LD_PRELOAD=$lib OCL_ICD_VENDORS=$dir TUTTI_ICD_VENDORS=/etc/OpenCL/vendors "$app")
[ "$out" = "Tutti" ] || { echo "expected Tutti, got: $out"; exit 1; }
echo PASS
