#!/bin/bash
# mr_h100.sh: the MapReduce measurements on the GPU machine (PoCL CPU + H100), into $1.
#
# BIN (default .carry/mr) holds the stripped mr_* apps and libtutti.so(.xz) built on the
# dev VM. Native runs see only NVIDIA's OpenCL; Tutti runs see PoCL and NVIDIA.
set -u
out=${1:?out dir}; bin=${BIN:-.carry/mr}
nv=/usr/local/nvidia/lib64/libnvidia-opencl.so.1
mkdir -p /tmp/vend "$out"
echo $nv > /tmp/vend/nv.icd; echo libpocl.so.2 > /tmp/vend/pocl.icd
[ -f "$bin/libtutti.so" ] || xz -dk "$bin/libtutti.so.xz"
nvidia-smi -L > "$out/machine.txt"; nproc >> "$out/machine.txt"
# StreamMR vs Mars vs MapCG on the H100 alone (Table 4.2's M and L sizes).
OCL_ICD_FILENAMES=$nv REPEAT=3 tools/bench/mr_compare.sh "$bin" "$out/h100_native.tsv" > "$out/h100_native.txt" 2>&1
# WordCount end to end from host memory at 1 GiB of text: H100 natively, and under Tutti.
OCL_ICD_FILENAMES=$nv SIZES=thesis APPS=WordCount REPEAT=2 tools/bench/mr_compare.sh "$bin" "$out/wc1g_native.tsv" --bytes 1073741824 > "$out/wc1g_native.txt" 2>&1
OCL_ICD_VENDORS=/tmp/vend PRELOAD=$PWD/$bin/libtutti.so SIZES=thesis APPS=WordCount PIPELINES=streammr REPEAT=2 \
  tools/bench/mr_compare.sh "$bin" "$out/wc1g_tutti.tsv" --bytes 1073741824 > "$out/wc1g_tutti.txt" 2>&1
