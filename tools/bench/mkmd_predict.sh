#!/usr/bin/env bash
# mkmd_predict.sh GRAPH_DIR OUT_DIR [SET ...]
#
# Schedules every recorded graph (GRAPH_DIR/*.graph, from mkmd_record.sh) with tutti-mkmd on
# each device SET (a comma list of the graph's device models, e.g. cpu0,gpu1,gpu1 for two of
# the recorded GPU; "recorded" = the devices the graph was recorded on; default: recorded),
# and writes OUT_DIR/<app>.<set>.{txt,json}, one Chrome trace per app for the last set, and
# OUT_DIR/predict.md: MKMD's predicted makespan and speedup over in-order execution on the
# fastest single device, coarse-only's, idle fractions and scheduling time, with geomeans.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 2 ] || { sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
graphs=$1 out=$2; shift 2
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(recorded)
tool=${TUTTI_MKMD:-}
for cand in "$here/bin/tutti-mkmd" "$here/../../build/tools/tutti-mkmd/tutti-mkmd"; do
  [ -z "$tool" ] && [ -x "$cand" ] && tool=$cand
done
[ -n "$tool" ] || { echo "mkmd_predict.sh: no tutti-mkmd (set TUTTI_MKMD)" >&2; exit 2; }
mkdir -p "$out"
for g in "$graphs"/*.graph; do
  app=$(basename "$g" .graph)
  for s in "${sets[@]}"; do
    tag=${s//,/+}
    args=()
    [ "$s" = recorded ] || args=(--devices "$s")
    "$tool" "$g" "${args[@]}" --json "$out/$app.$tag.json" --trace "$out/$app.trace.json" > "$out/$app.$tag.txt" 2>&1 ||
      echo "mkmd_predict.sh: $app on $s: $(tail -1 "$out/$app.$tag.txt")" >&2
  done
done
python3 - "$out" "${sets[@]}" <<'PY'
import glob, json, math, os, sys
out, sets = sys.argv[1], sys.argv[2:]
lines = ["# MKMD predicted by tutti-mkmd on recorded graphs", "",
         "Speedup = in-order execution on the fastest single device of the set / schedule "
         "(thesis Fig. 5.8); idle = mean over devices of idle time / makespan.", ""]
for s in sets:
    tag = s.replace(",", "+")
    rows, sp, spc = [], [], []
    for f in sorted(glob.glob(f"{out}/*.{tag}.json")):
        r = json.load(open(f))
        app = os.path.basename(f)[: -len(f".{tag}.json")]
        base = min(r["in_order_ms"])
        sp.append(r["speedup"]); spc.append(base / r["coarse_ms"])
        rows.append(f"| {app} | {base:.2f} | {r['coarse_ms']:.2f} | {base / r['coarse_ms']:.2f}x | "
                    f"{r['mkmd_ms']:.2f} | {r['speedup']:.2f}x | {100 * r['mkmd_idle']:.1f} | "
                    f"{r['split_kernels']} | {r['schedule_us']:.0f} |")
    if not rows:
        continue
    g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    lines += [f"## Devices: {s}", "",
              "| app | in-order ms | coarse ms | coarse speedup | MKMD ms | MKMD speedup | MKMD idle % | split kernels | schedule us |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"] + rows + [
              "", f"Geomean speedup: coarse {g(spc):.2f}x, MKMD {g(sp):.2f}x over {len(sp)} apps.", ""]
open(f"{out}/predict.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
