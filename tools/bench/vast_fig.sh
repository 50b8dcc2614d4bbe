#!/usr/bin/env bash
# vast_fig.sh - thesis Fig. 4.10 / 4.11 equivalents for VAST (issue 18), from the bundle.
#
#   ./vast_fig.sh OUT_DIR [--apps A,B:SIZE[:RATIO[:OPT=V/OPT=V]]] [--repeat 3] [--ratio 3] [--size small] [--timeout 120]
#
# An app's spec may name its own preset, data-to-budget ratio and app options
# (Nbody:small:3:n=65536 runs `Nbody --size small --n 65536` with data 3x the budget).
# For each app: natively on the GPU and on the PoCL CPU device, then under Tutti on the GPU
# with TUTTI_MEM_LIMIT set to the app's buffer bytes / RATIO (Fig. 4.10: data RATIO x the
# budget; VAST vs the CPU), and with TUTTI_VAST=force and no limit (Fig. 4.11: data that
# fit, forced through VAST; vs the in-memory GPU run), and Fig. 4.12: the paged kernel's own
# time in the forced run (vast_kernel_ms) over the native GPU run's kernel_ms. Medians of REPEAT runs of each, the
# runs interleaved; wall_ms of each app's RESULT line (transfers included). Writes
# OUT_DIR/vast.tsv, vast.json and vast.md. Each app checks its own result: a run that does
# not PASS is reported as such, never timed.
#
# MODES (default "gpu cpu vast forced") may add `two` (issue 22), and `two0` (the same with
# TUTTI_VAST_STRIPES=0, the app's writes whole to one device): under Tutti with
# TUTTI_MODE=skmd, each GPU at the same budget as `vast`, the groups split evenly over the
# GPUs (TWO_PARTITION, default fixed:<1 per GPU, 0 elsewhere>; `auto` lets Algorithm 1
# decide, which without a profile keeps a one-launch app whole). With --ratio
# 1.5 the data exceed one GPU's budget but fit the GPUs together; two_vs_vast is then what
# the second GPU adds, and two_share the work-items each backing device ran.
set -u
out=${1:?usage: vast_fig.sh OUT_DIR [--apps A,B] [--repeat N] [--ratio R] [--size S]}
shift
apps="BlackScholes,FDTD3d,MatrixMultiplication,MedianFilter,MersenneTwister,Nbody,Reduction,SobelFilter"
repeat=3 ratio=3 gsize=small tmo=120
while [ $# -gt 0 ]; do
  case $1 in
    --apps) apps=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --ratio) ratio=$2; shift 2 ;;
    --size) gsize=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    *) echo "vast_fig.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh" > /dev/null
lib=$here/lib/libtutti.so
mkdir -p "$out"
. "$here/vast_devices.sh"  # gpu, cpu, tgpu (VAST_FIG_GPU / VAST_FIG_CPU)
[ -n "$gpu" ] && [ -n "$cpu" ] && [ -n "$tgpu" ] || { echo "vast_fig.sh: need an NVIDIA GPU and a CPU device" >&2; exit 1; }
# The CPU baseline must hold the data: PoCL hands out POCL_MEMORY_LIMIT GB of host memory
# (its default on the GPU machine is 3.7 GB, with allocations of at most 1 GiB).
memgb=$(awk '/MemTotal/ {printf "%d", $2 / 1e6 * 0.9}' /proc/meminfo)
echo "native GPU --device $gpu, CPU --device $cpu; Tutti's GPU is backing device $tgpu"

# wall_ms of one run, or FAIL/ERROR; BYTES= from the app's buffers (Tutti's stats).
one() {  # app mode
  local app=$1 mode=$2 line
  case $mode in
    gpu) line=$(timeout "$tmo" "$here/apps/$app" --size "$size" "${opts[@]}" --device "$gpu" 2>&1) ;;
    cpu) line=$(POCL_MEMORY_LIMIT=$memgb timeout "$tmo" "$here/apps/$app" --size "$size" "${opts[@]}" --device "$cpu" 2>&1) ;;
    vast) line=$(TUTTI_MEM_LIMIT=$tgpu:$limit TUTTI_PLACEMENT=device:$tgpu TUTTI_STATS=1 LD_PRELOAD=$lib \
                 timeout "$tmo" "$here/apps/$app" --size "$size" "${opts[@]}" 2>&1) ;;
    two|two0) line=$(TUTTI_MEM_LIMIT=$(printf "%s:$limit," $tgpus | sed "s/,$//") TUTTI_MODE=skmd TUTTI_STATS=1 LD_PRELOAD=$lib \
                TUTTI_VAST_STRIPES=$([ $mode = two0 ] && echo 0 || echo 1) \
                TUTTI_PARTITION=${TWO_PARTITION:-fixed:$tgpu_split} timeout "$tmo" "$here/apps/$app" --size "$size" "${opts[@]}" 2>&1) ;;
    forced) line=$(TUTTI_VAST=force TUTTI_PLACEMENT=device:$tgpu TUTTI_STATS=1 LD_PRELOAD=$lib \
                   timeout "$tmo" "$here/apps/$app" --size "$size" "${opts[@]}" 2>&1) ;;
  esac
  local st wall slices kms
  st=$(grep -o 'status=[A-Z]*' <<<"$line" | tail -1 | cut -d= -f2)
  wall=$(grep RESULT <<<"$line" | grep -o 'wall_ms=[0-9.]*' | cut -d= -f2)
  slices=$(grep -o 'vast_slices=[0-9]*' <<<"$line" | cut -d= -f2)
  # Kernel time: the paged kernels' own under Tutti, the app's kernel events natively.
  kms=$(grep -o 'vast_kernel_ms=[0-9.]*' <<<"$line" | cut -d= -f2)
  [ -n "$kms" ] || kms=$(grep RESULT <<<"$line" | grep -o ' kernel_ms=[0-9.]*' | cut -d= -f2)
  # Work-items per backing device, as device:items/device:items (a split's shares).
  local share
  share=$(grep -o 'TUTTI device=[0-9]* .*work_items=[0-9]*' <<<"$line" |
          sed 's/TUTTI device=\([0-9]*\) .*work_items=\([0-9]*\)/\1:\2/' | paste -sd/)
  if [ "$st" != PASS ]; then echo "${st:-TIMEOUT} - - -"; else echo "$wall ${slices:-0} ${kms:--} ${share:--}"; fi
}
median() { tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); else print "-"}'; }

printf "app\tbuffer_bytes\tlimit\tgpu_ms\tcpu_ms\tvast_ms\tvast_slices\tforced_ms\tforced_slices\tvast_vs_cpu\tforced_vs_gpu\tgpu_kernel_ms\tpaged_kernel_ms\tpaged_over_original\ttwo_ms\ttwo_slices\ttwo_vs_vast\ttwo_vs_cpu\ttwo_share\ttwo0_ms\ttwo0_vs_vast\n" > "$out/vast.tsv"
for spec in ${apps//,/ }; do
  # APP:SIZE[:RATIO[:OPTS]] runs that app at its own preset (Nbody's CPU run at thesis size
  # takes minutes), data-to-budget ratio and options.
  IFS=: read -r app size r opt <<<"$spec"
  size=${size:-$gsize} r=${r:-$ratio}
  opts=()
  if [ -n "$opt" ]; then
    IFS=/ read -ra kv <<<"$opt"
    for o in "${kv[@]}"; do opts+=("--${o%%=*}" "${o#*=}"); done
  fi
  # The app's buffer bytes: what a forced run moved in per launch (one slice holds every buffer).
  probe=$(TUTTI_VAST=force TUTTI_PLACEMENT=device:$tgpu TUTTI_STATS=1 LD_PRELOAD=$lib \
          timeout "$tmo" "$here/apps/$app" --size "$size" "${opts[@]}" 2>&1)
  # In and out: a new output's bytes are undefined and are not copied in, but the data
  # the launch handles include them (a buffer both read and written counts twice).
  bytes=$(grep -o 'vast_in_bytes=[0-9]*' <<<"$probe" | cut -d= -f2)
  outb=$(grep -o 'vast_out_bytes=[0-9]*' <<<"$probe" | cut -d= -f2)
  [ -z "$bytes" ] || bytes=$((bytes + ${outb:-0}))
  [ -n "$bytes" ] || { echo "$app: VAST did not take it ($(grep -o "VAST does not take.*" <<<"$probe" | head -1))"; continue; }
  # Several launches (FDTD3d's time steps, MersenneTwister's two kernels): their bytes add
  # up, and the budget is for one launch's.
  launches=$(grep -o 'vast_launches=[0-9]*' <<<"$probe" | cut -d= -f2)
  bytes=$((bytes / ${launches:-1}))
  limit=$(awk -v b="$bytes" -v r="$r" 'BEGIN {printf "%d", b / r}')
  declare -A t=() s=() kt=() sh=()
  for ((r = 0; r < repeat; r++)); do
    for m in ${MODES:-gpu cpu vast forced}; do
      t0=$SECONDS
      read -r ms sl km share <<<"$(one "$app" $m)"
      echo "  $app $m: $ms ms, $sl slices, kernel $km ms ($((SECONDS - t0)) s)" >&2
      t[$m]="${t[$m]:-} $ms"
      kt[$m]="${kt[$m]:-} $km"
      s[$m]=$sl sh[$m]=$share
    done
  done
  gk=$(median <<<"${kt[gpu]:-}") pk=$(median <<<"${kt[forced]:-}")
  po=$(awk -v a="$pk" -v b="$gk" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.2f", a / b; else print "-"}')
  g=$(median <<<"${t[gpu]:-}") c=$(median <<<"${t[cpu]:-}") v=$(median <<<"${t[vast]:-}") f=$(median <<<"${t[forced]:-}")
  w=$(median <<<"${t[two]:-}") w0=$(median <<<"${t[two0]:-}")
  w0v=$(awk -v a="$v" -v b="$w0" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.2f", a / b; else print "-"}')
  vc=$(awk -v a="$c" -v b="$v" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.2f", a / b; else print "-"}')
  fg=$(awk -v a="$g" -v b="$f" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.2f", a / b; else print "-"}')
  wv=$(awk -v a="$v" -v b="$w" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.2f", a / b; else print "-"}')
  wc=$(awk -v a="$c" -v b="$w" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.2f", a / b; else print "-"}')
  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$spec" "$bytes" "$limit" "$g" "$c" "$v" \
    "${s[vast]:--}" "$f" "${s[forced]:--}" "$vc" "$fg" "$gk" "$pk" "$po" "$w" "${s[two]:--}" "$wv" "$wc" "${sh[two]:--}" "$w0" "$w0v" |
    tee -a "$out/vast.tsv"
  unset t s kt sh
done
python3 - "$out" <<'PY'
import csv, json, math, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/vast.tsv"), delimiter="\t"))
json.dump(rows, open(f"{out}/vast.json", "w"), indent=1)
def geo(key):
    v = [float(r[key]) for r in rows if r[key] not in ("-", "")]
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
with open(f"{out}/vast.md", "w") as f:
    f.write("| app | buffers MB | limit MB | GPU ms | CPU ms | VAST ms (slices) | VAST vs CPU | forced ms (slices) | forced vs GPU |\n")
    f.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for r in rows:
        f.write(f"| {r['app']} | {int(r['buffer_bytes'])/2**20:.1f} | {int(r['limit'])/2**20:.1f} | {r['gpu_ms']} | {r['cpu_ms']} | "
                f"{r['vast_ms']} ({r['vast_slices']}) | {r['vast_vs_cpu']}x | {r['forced_ms']} ({r['forced_slices']}) | {r['forced_vs_gpu']}x |\n")
    f.write(f"\nFig. 4.10 (VAST over the CPU device, data beyond the GPU budget): geomean {geo('vast_vs_cpu'):.2f}x\n")
    f.write(f"Fig. 4.11 (forced VAST over the in-memory GPU run, data that fit): geomean {geo('forced_vs_gpu'):.2f}x\n")
    v = [float(r['paged_over_original']) for r in rows if r['paged_over_original'] not in ("-", "")]
    f.write(f"Fig. 4.12 (paged kernel time over the original, forced runs): mean {sum(v) / len(v) if v else float('nan'):.2f}\n")
    if any(r['two_ms'] not in ("-", "") for r in rows):
        f.write("\n| app | two GPUs ms (slices) | two vs one capped GPU | two vs CPU | work-items per backing device |\n")
        f.write("|---|---:|---:|---:|---|\n")
        for r in rows:
            f.write(f"| {r['app']} | {r['two_ms']} ({r['two_slices']}) | {r['two_vs_vast']}x | {r['two_vs_cpu']}x | {r['two_share']} |\n")
        f.write(f"\nTwo capped GPUs over one (issue 22): geomean {geo('two_vs_vast'):.2f}x; over the CPU device {geo('two_vs_cpu'):.2f}x\n")
    if any(r.get('two0_ms') not in (None, "-", "") for r in rows):
        f.write("\n| app | two, striped writes ms | two, whole writes (TUTTI_VAST_STRIPES=0) ms | striped over whole |\n|---|---:|---:|---:|\n")
        for r in rows:
            a, b = r['two_ms'], r['two0_ms']
            q = f"{float(b) / float(a):.2f}x" if a not in ("-", "") and b not in ("-", "") else "-"
            f.write(f"| {r['app']} | {a} | {b} | {q} |\n")
        f.write(f"\nTwo capped GPUs with whole writes over one: geomean {geo('two0_vs_vast'):.2f}x\n")
print(open(f"{out}/vast.md").read())
PY
