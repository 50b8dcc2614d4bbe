#!/usr/bin/env bash
# MKMD issues held kernels in the order its schedule starts them, not the app's order (on two
# H100s, mk_Lyapunov's transpose, which the second GPU waited for, went behind a 21 ms
# product): among the kernels of a graph that depend on nothing, the first time each is
# issued or staged follows the scheduled starts in the debug log. With staging on, copies
# out of a device wait only for the replica's last writer; the apps' checks must pass.
# TUTTI_MKMD_EAGER=0: held, the apps' first kernels make the graph whose order is checked
# (with it on, Lyapunov's transpose goes at once and leaves one independent product).
set -euo pipefail
lib=$1 apps=$2
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export POCL_DEVICES="pthread pthread" LD_PRELOAD="$lib" TUTTI_PROFILE_DB="$w/profiles.sqlite"
for app in mk_Lyapunov mk_ABE mk_ReachabilityGramian mk_TripleCommutator; do
  for size in tiny small; do
    TUTTI_PROFILE=1 "$apps/$app" --size $size > "$w/p.log" 2>&1 || { cat "$w/p.log"; echo "FAIL: profiling $app"; exit 1; }
  done
  TUTTI_MODE=mkmd TUTTI_MKMD_EAGER=0 TUTTI_STAGING=on TUTTI_LOG=debug "$apps/$app" --size small > "$w/$app.log" 2>&1 ||
    { tail -30 "$w/$app.log"; echo "FAIL: $app exited"; exit 1; }
  grep -q "status=PASS" "$w/$app.log" || { tail -30 "$w/$app.log"; echo "FAIL: $app result differs"; exit 1; }
  env -u LD_PRELOAD python3 - "$w/$app.log" "$app" <<'PY'
import re, sys
path, app = sys.argv[1], sys.argv[2]
free, start, order, names, scheduled = set(), {}, [], {}, False
for line in open(path, errors="replace"):
    m = re.search(r"enqueue (0x[0-9a-f]+) kind 0, 0 deps", line)
    if m and not scheduled:
        free.add(m.group(1))
    m = re.search(r"mkmd: (\S+) \((0x[0-9a-f]+)\) starts at ([0-9.]+) ms", line)
    if m and not scheduled:
        start[m.group(2)] = float(m.group(3)); names[m.group(2)] = m.group(1)
    if re.search(r"mkmd: \d+ kernels scheduled", line):
        if scheduled:
            break  # the first graph only: commands are recycled, so pointers repeat later
        scheduled = True
        continue
    m = re.search(r"command (0x[0-9a-f]+) \(kind 0\) -> ", line)
    if scheduled and m and m.group(1) in free and m.group(1) in start and m.group(1) not in order:
        order.append(m.group(1))
if not scheduled or len(order) < 2:
    sys.exit(f"FAIL: {app}: no graph with two independent kernels in the log")
starts = [start[p] for p in order]
print(f"{app}: issued " + ", ".join(f"{names[p]}@{start[p]:.3f}" for p in order))
if starts != sorted(starts):
    sys.exit(f"FAIL: {app}: kernels issued out of their scheduled order")
PY
done
echo PASS
