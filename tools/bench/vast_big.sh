#!/usr/bin/env bash
# vast_big.sh - issue 18's big runs from the bundle: VectorAdd over float4 elements with
# CL_MEM_USE_HOST_PTR buffers (the host holds one copy: the app's arrays are Tutti's homes),
# under Tutti on the uncapped GPU (VAST pages what does not fit) against the PoCL CPU device.
#
#   ./vast_big.sh OUT_DIR N [N...]     N: float4 elements per buffer (3 buffers of 16 N bytes)
#
# MODES (default "tutti cpu"): tutti = under Tutti, every launch on the GPU; skmd = under
# Tutti with TUTTI_MODE=skmd (Algorithm 1 may give the CPU a share, computed in the homes,
# while the GPU pages its own); fixed = TUTTI_MODE=skmd with TUTTI_PARTITION=fixed:$SPLIT
# (weights in backing-device order); cpu = natively on the PoCL CPU device.
#
# 1.4e9 gives one buffer of 22.4 GB (above NVIDIA's 19.8 GiB allocation limit); 1.85e9
# gives 88.8 GB in all, above the H100's free memory (85.0e9 bytes by NVML: 84 GB fits the
# card, and Tutti runs it unpaged). The CPU
# device holds the data with POCL_MEMORY_LIMIT (GB of host memory PoCL may hand out; its
# default, 3.7 GB with 1 GiB allocations, would refuse the buffers). Writes OUT_DIR/big.tsv.
#
# APP=BlackScholes runs the compute-bound app instead (N options, --hostptr 1: five buffers
# of 4 N bytes); APP_ARGS adds its options (BlackScholes --packed 1: S, K, T in one float4
# buffer of 16 N bytes, over 19.8 GiB from N = 1.33e9; --per 2: two options per work-item,
# which N over 2^31 needs for Tutti's index ranges). Issue 18's run: APP=BlackScholes
# APP_ARGS="--packed 1 --per 2" with N = 3.7e9 (88.8 GB, one buffer of 59.2 GB); the CPU
# device refuses a buffer over its own allocation limit, so its baseline runs the same
# options unpacked (APP_ARGS="--per 2"). TIMEOUT (300 s) bounds each run.
set -u
out=${1:?usage: vast_big.sh OUT_DIR N [N...]}
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" > /dev/null
lib=$here/lib/libtutti.so
mkdir -p "$out"
. "$here/vast_devices.sh"  # cpu, tgpu (VAST_FIG_GPU / VAST_FIG_CPU)
memgb=$(awk '/MemTotal/ {printf "%d", $2 / 1e6 * 0.95}' /proc/meminfo)
printf "n\tgb_total\tmode\tstatus\twall_ms\tprocess_s\tstats\n" > "$out/big.tsv"
app=${APP:-VectorAdd} tmo=${TIMEOUT:-300}
for n in "$@"; do
  # Bytes per element in all buffers: VectorAdd 3 float4s; BlackScholes 5 floats, or a
  # float4 and two floats packed.
  per=48
  [ "$app" = BlackScholes ] && { per=20; [[ "${APP_ARGS:-}" == *"--packed 1"* ]] && per=24; }
  gb=$(awk -v n="$n" -v p="$per" 'BEGIN {printf "%.1f", p * n / 1e9}')
  for mode in ${MODES:-tutti cpu}; do
    t0=$(date +%s.%N)
    args=(--hostptr 1 --n "$n")
    [ "$app" = VectorAdd ] && args+=(--vec 4)
    # shellcheck disable=SC2206  # APP_ARGS are words
    args+=(${APP_ARGS:-})
    case $mode in
      tutti) line=$(TUTTI_PLACEMENT=device:$tgpu TUTTI_STATS=1 LD_PRELOAD=$lib timeout "$tmo" \
                    "$here/apps/$app" "${args[@]}" 2>&1) ;;
      skmd) line=$(TUTTI_MODE=skmd TUTTI_STATS=1 LD_PRELOAD=$lib timeout "$tmo" "$here/apps/$app" "${args[@]}" 2>&1) ;;
      fixed) line=$(TUTTI_MODE=skmd TUTTI_PARTITION=fixed:${SPLIT:?} TUTTI_STATS=1 LD_PRELOAD=$lib timeout "$tmo" \
                    "$here/apps/$app" "${args[@]}" 2>&1) ;;
      cpu) line=$(POCL_MEMORY_LIMIT=$memgb timeout "$tmo" "$here/apps/$app" "${args[@]}" --device "$cpu" 2>&1) ;;
    esac
    t1=$(date +%s.%N)
    st=$(grep -o 'status=[A-Z]*' <<<"$line" | tail -1 | cut -d= -f2)
    wall=$(grep RESULT <<<"$line" | grep -o 'wall_ms=[0-9.]*' | cut -d= -f2)
    stats=$(grep -o 'vast_[a-z_]*=[0-9.]*\|h2d_bytes=[0-9]*\|d2h_bytes=[0-9]*\|staged_bytes=[0-9]*\|split_launches=[0-9]*\|work_items=[0-9]*' <<<"$line" | tr '\n' ' ')
    printf "%s\t%s\t%s\t%s\t%s\t%.1f\t%s\n" "$n" "$gb" $mode "${st:-TIMEOUT}" "${wall:--}" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$stats" | tee -a "$out/big.tsv"
    [ "${st:-}" = PASS ] || grep -v '^TUTTI device' <<<"$line" | tail -5 > "$out/big-$n-$mode.err"
  done
done
