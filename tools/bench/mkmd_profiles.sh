#!/usr/bin/env bash
# mkmd_profiles.sh OUT_DIR [--apps LIST] [--sizes N,N,..] [--measure R] [--timeout S] [--size S]
#                  [--reuse DIR]
#
# Issue 19's Fig. 5.10/5.11 equivalent: MKMD's makespan against the number of profiles per
# kernel. Each app is profiled once per size (TUTTI_PROFILE=1 --n N, one database per
# size), in the order given; the database of k profiles holds the first k sizes' samples.
# With each one the app runs R times at its --size S (default thesis) under
# TUTTI_MODE=mkmd, each run from a fresh copy (a run stores samples of its own launches,
# which would give later runs that size), beside R runs in whole mode. Written:
# OUT_DIR/profiles.tsv (app, profiles, mode, wall ms, predicted ms, graphs ran ms) and
# OUT_DIR/profiles.md (medians). --reuse DIR takes the per-size databases of an earlier
# OUT_DIR (DIR/APP/pN.sqlite, or .sqlite.gz) instead of profiling again.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:?usage: mkmd_profiles.sh OUT_DIR [--apps LIST] [--sizes N,N,..] [--measure R] [--timeout S]}
shift
applist=mk_ABE,mk_TripleCommutator,mk_ReachabilityGramian,mk_Lyapunov sizes=2048,1024,3072,512 measure=3 timeout_s=200
size=thesis reuse=
while [ $# -gt 0 ]; do
  case $1 in
    --apps) applist=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --measure) measure=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --reuse) reuse=$(cd "$2" && pwd); shift 2 ;;
    *) echo "mkmd_profiles.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -f "$here/bench/profile_lib.sh" ]; then . "$here/bench/profile_lib.sh"; else . "$here/profile_lib.sh"; fi
bench_locate "$here"
mkdir -p "$out"
out=$(cd "$out" && pwd)
IFS=, read -ra apps <<< "$applist"
IFS=, read -ra ns <<< "$sizes"
: > "$out/profiles.tsv"
for app in "${apps[@]}"; do
  d=$out/$app
  mkdir -p "$d"
  for n in "${ns[@]}"; do
    rm -f "$d/p$n.sqlite"*
    if [ -n "$reuse" ]; then
      if [ -f "$reuse/$app/p$n.sqlite" ]; then cp "$reuse/$app/p$n.sqlite" "$d/"
      elif [ -f "$reuse/$app/p$n.sqlite.gz" ]; then gunzip -c "$reuse/$app/p$n.sqlite.gz" > "$d/p$n.sqlite"
      else echo "mkmd_profiles.sh: $app: no p$n.sqlite in $reuse" >&2; continue 2; fi
      continue
    fi
    timeout "$timeout_s" env "${clean[@]}" LD_PRELOAD="$lib" TUTTI_PROFILE=1 TUTTI_PROFILE_DB="$d/p$n.sqlite" \
      "$appsdir/$app" --size "$size" --n "$n" > "$d/profile-$n.log" 2>&1 < /dev/null ||
      { echo "mkmd_profiles.sh: $app: profiling at n=$n failed (see $d/profile-$n.log)" >&2; continue 2; }
  done
  # The database of k profiles: the first size's, with the next k-1 sizes' kernel samples.
  for ((k = 1; k <= ${#ns[@]}; k++)); do
    python3 - "$d" "$k" "${ns[@]}" <<'PY'
import sqlite3, sys
d, k, ns = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
db = f"{d}/k{k}.sqlite"
# The backup API, not a file copy: the profiles may still be in the write-ahead log.
src, c = sqlite3.connect(f"{d}/p{ns[0]}.sqlite"), sqlite3.connect(db)
src.backup(c)
src.close()
c.execute("PRAGMA journal_mode=DELETE")  # one file, so that runs may copy it
cols = "kernel_id, kernel_name, device_id, work_dim, g0, g1, g2, l0, l1, l2, total_groups, groups, features, seconds, timestamp"
for n in ns[1:k]:
    c.execute("ATTACH DATABASE ? AS other", (f"{d}/p{n}.sqlite",))
    c.execute(f"INSERT INTO main.kernel_samples ({cols}) SELECT {cols} FROM other.kernel_samples")
    c.commit()
    c.execute("DETACH DATABASE other")
c.close()
PY
  done
  for ((i = 0; i < measure; i++)); do
    for ((k = 0; k <= ${#ns[@]}; k++)); do
      if [ "$k" = 0 ]; then  # whole mode, the reference
        cmd=(env "${clean[@]}" TUTTI_PROFILE_DB=off LD_PRELOAD="$lib" "$appsdir/$app" --size "$size")
      else
        # With the last run's write-ahead log still beside it, SQLite would replay that
        # log into the copy ("database disk image is malformed").
        rm -f "$d/run.sqlite"*
        cp "$d/k$k.sqlite" "$d/run.sqlite"
        cmd=(env "${clean[@]}" TUTTI_MODE=mkmd TUTTI_STATS=1 TUTTI_PROFILE_DB="$d/run.sqlite" LD_PRELOAD="$lib"
             "$appsdir/$app" --size "$size")
      fi
      log=$d/run-k$k-$i.log
      timeout "$timeout_s" "${cmd[@]}" > "$log" 2>&1 || true
      wall=$(sed -n 's/^RESULT.* wall_ms=\([0-9.]*\) status=PASS.*/\1/p' "$log")
      pred=$(sed -n 's/^TUTTI mkmd_graphs=.* mkmd_predicted_ms=\([0-9.e+-]*\) .*/\1/p' "$log")
      ran=$(sed -n 's/^TUTTI mkmd_graphs=.* mkmd_measured_ms=\([0-9.e+-]*\) .*/\1/p' "$log")
      [ -n "$wall" ] || { echo "mkmd_profiles.sh: $app k=$k: no PASS (see $log)" >&2; wall=nan; }
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$app" "$k" "$([ "$k" = 0 ] && echo whole || echo mkmd)" "$wall" \
        "${pred:--}" "${ran:--}" >> "$out/profiles.tsv"
    done
  done
  rm -f "$d/run.sqlite"*
done
python3 - "$out" "$sizes" <<'PY'
import collections, statistics, sys
out, sizes = sys.argv[1], sys.argv[2].split(",")
rows = collections.defaultdict(list)
for line in open(f"{out}/profiles.tsv"):
    app, k, mode, wall, pred, ran = line.rstrip("\n").split("\t")
    rows[(app, int(k))].append((float(wall), float(pred) if pred != "-" else float("nan"),
                                float(ran) if ran != "-" else float("nan")))
apps = sorted({a for a, _ in rows})
ks = sorted({k for _, k in rows if k > 0})
med = lambda v: statistics.median(v) if v else float("nan")
lines = ["# MKMD makespan against the number of profiles per kernel (medians)", "",
         f"Profiles are launch sizes (`--n`), added in the order {', '.join(sizes)}. Wall: the app's own",
         "timer. Predicted: the schedules' makespans; ran: the graphs' measured runs (TUTTI_STATS).", "",
         "| app | whole ms | " + " | ".join(f"{k} profile{'s' if k > 1 else ''}: wall / predicted / ran" for k in ks) + " |",
         "|---|---:|" + "---:|" * len(ks)]
for a in apps:
    w = med([r[0] for r in rows[(a, 0)]])
    cells = []
    for k in ks:
        r = rows[(a, k)]
        cells.append(f"{med([x[0] for x in r]):.2f} / {med([x[1] for x in r]):.2f} / {med([x[2] for x in r]):.2f}")
    lines.append(f"| {a} | {w:.2f} | " + " | ".join(cells) + " |")
open(f"{out}/profiles.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
