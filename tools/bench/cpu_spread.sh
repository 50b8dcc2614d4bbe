#!/usr/bin/env bash
# cpu_spread.sh OUT_DIR [--rounds N] [--repeat R] [--configs LIST] [APP[:ARGS]...]
#
# How far the CPU device's kernel times move inside one process and between processes,
# natively and under Tutti, with and without PoCL's worker-thread pinning. The profile of one
# process predicts another's times only as well as these agree (repeatability.py measured the
# same between validation runs: 24 % on the PoCL CPU, 0.1 % on the H100).
#
# Each configuration runs every app once per round (rounds interleaved, so all see the same
# drift of the machine), with --repeat R launches per process and APP_EVENT_MS=1 (every
# launch's event time). Configurations (--configs, default all, comma list):
#   native        the app on the CPU device (--device of the first CPU device)
#   native-pin    the same with POCL_AFFINITY=1 (PoCL pins worker thread i to core i)
#   tutti         under libtutti.so with every device loaded, placement on the CPU device
#                 (as profiling and validation run: the GPU driver's threads in the process)
#   tutti-pin     the same with POCL_AFFINITY=1
#   tutti-cpu     under libtutti.so with only the CPU device (TUTTI_DEVICES=cpu)
#   tutti-huge    tutti with TUTTI_HUGE_PAGES=1 (big homes on 2 MiB transparent huge pages)
#   tutti-copy    tutti with TUTTI_ZERO_COPY=0 (the CPU device gets its own copy of a home)
#   native-tN, tutti-tN  native or tutti with POCL_MAX_PTHREAD_COUNT=N (N PoCL worker threads)
# APP[:ARGS]: app name and its arguments (default: six apps whose CPU launches take 30 ms-1 s).
# Writes OUT_DIR/runs.jsonl (one record per process) and OUT_DIR/spread.{md,json}.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() { sed -n '2,/^set /p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
case "$1" in -h|--help) usage ;; esac
out=$1; shift
rounds=5 repeat=4 configs=native,native-pin,tutti,tutti-pin
apps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    -*) usage ;;
    *) apps+=("$1"); shift ;;
  esac
done
[ ${#apps[@]} -gt 0 ] || apps=("BinomialOption:--options 65536" "BlackScholes:--size thesis"
  "MersenneTwister:--size thesis" "Histogram:--size thesis" "MatrixTranspose:--size thesis"
  "AESEncrypt:--size thesis")
[ -f "$here/env.sh" ] && . "$here/env.sh"
appdir=$here/apps lib=$here/lib/libtutti.so
build=${TUTTI_BUILD:-$here/../../build}  # when run from the source tree
[ -x "$appdir/mk_devinfo" ] || appdir=$build/tools/bench/apps
[ -f "$lib" ] || lib=$(find "$build" -name libtutti.so -not -path '*/CMakeFiles/*' -print -quit)
mkdir -p "$out"
: > "$out/runs.jsonl"
# The first CPU device in the order --device counts them.
cpu=$("$appdir/mk_devinfo" 2>/dev/null | python3 -c '
import json, sys
for d in json.load(sys.stdin)["devices"]:
    if "CPU" in str(d.get("type", "")).upper(): print(d["index"]); break' || true)
cpu=${cpu:-0}
{
  echo "cpu_device=$cpu nproc=$(nproc)"
  cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null
  grep -E 'AnonHugePages|MemFree' /proc/meminfo
} > "$out/machine.txt"

run_one() {  # config round app args...
  local cfg=$1 round=$2 app=$3; shift 3
  local env=(APP_EVENT_MS=1) dev=$cpu
  case "$cfg" in
    native) ;;
    native-pin) env+=(POCL_AFFINITY=1) ;;
    tutti) env+=(LD_PRELOAD="$lib" TUTTI_PLACEMENT=device:$cpu); dev=0 ;;
    tutti-pin) env+=(LD_PRELOAD="$lib" TUTTI_PLACEMENT=device:$cpu POCL_AFFINITY=1); dev=0 ;;
    tutti-cpu) env+=(LD_PRELOAD="$lib" TUTTI_DEVICES=cpu); dev=0 ;;
    tutti-huge) env+=(LD_PRELOAD="$lib" TUTTI_PLACEMENT=device:$cpu TUTTI_HUGE_PAGES=1); dev=0 ;;
    tutti-copy) env+=(LD_PRELOAD="$lib" TUTTI_PLACEMENT=device:$cpu TUTTI_ZERO_COPY=0); dev=0 ;;
    native-t[0-9]*) env+=(POCL_MAX_PTHREAD_COUNT=${cfg#native-t}) ;;
    tutti-t[0-9]*) env+=(LD_PRELOAD="$lib" TUTTI_PLACEMENT=device:$cpu
                         POCL_MAX_PTHREAD_COUNT=${cfg#tutti-t}); dev=0 ;;
    *) echo "unknown configuration $cfg" >&2; return 1 ;;
  esac
  local log=$out/last.log
  env "${env[@]}" timeout 600 "$appdir/$app" "$@" --device "$dev" --repeat "$repeat" --quiet > "$log" 2>&1
  local rc=$?
  python3 - "$cfg" "$round" "$app" "$rc" "$*" "$log" >> "$out/runs.jsonl" <<'PY'
import json, re, sys
log = open(sys.argv[6], errors="replace").read()
ev = {}
for k, ms in re.findall(r"EVENT kernel=(\S+) kernel_ms=([0-9.]+)", log):
    ev.setdefault(k, []).append(float(ms))
res = re.search(r"RESULT .*", log)
print(json.dumps({"config": sys.argv[1], "round": int(sys.argv[2]), "app": sys.argv[3],
                  "rc": int(sys.argv[4]), "args": sys.argv[5], "events_ms": ev,
                  "result": res.group(0) if res else log[-400:]}))
PY
}

IFS=, read -ra cfgs <<< "$configs"
for ((r = 1; r <= rounds; ++r)); do
  for spec in "${apps[@]}"; do
    app=${spec%%:*} args=""
    [ "$spec" != "$app" ] && args=${spec#*:}
    for cfg in "${cfgs[@]}"; do
      # shellcheck disable=SC2086
      run_one "$cfg" "$r" "$app" $args
      echo "round $r $app $cfg: $(tail -1 "$out/runs.jsonl" | cut -c1-160)"
    done
  done
done
py=$here/bench/cpu_spread.py
[ -f "$py" ] || py=$here/cpu_spread.py
python3 "$py" "$out/runs.jsonl" --md "$out/spread.md" --json "$out/spread.json"
