#!/usr/bin/env bash
# install-deps.sh - installs Tutti's build and test dependencies from Debian 12's
# packages. Idempotent: when everything is present it returns at once.
set -euo pipefail
pkgs=(cmake ninja-build g++ pkg-config opencl-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo
      googletest libgtest-dev libeigen3-dev libsqlite3-dev python3 python3-matplotlib
      llvm-15-dev libclang-15-dev clang-15 libclc-15 llvm-15-tools piglit)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
