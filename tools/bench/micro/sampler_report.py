#!/usr/bin/env python3
"""sampler_report.py OUT [--lib name=path ...] [--root FUNC] - inclusive and self shares per
function from libsampler.so's output, symbolized with addr2line against unstripped builds
(modules without a --lib stay as module+offset). With --root, only stacks through FUNC count."""
import argparse, collections, subprocess

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--lib", action="append", default=[], help="module=unstripped path")
ap.add_argument("--root", default=None)
ap.add_argument("--top", type=int, default=40)
a = ap.parse_args()
libs = dict(x.split("=", 1) for x in a.lib)
stacks = []
for line in open(a.out):
    if line.startswith("#") or not line.strip():
        continue
    n, frames = line.split(" ", 1)
    stacks.append((int(n), frames.strip().split(";")))
# Symbolize each module's offsets in one addr2line call (return addresses: minus 1).
want = collections.defaultdict(set)
for _, fr in stacks:
    for f in fr:
        mod, _, off = f.rpartition("+")
        if mod in libs:
            want[mod].add(off)
names = {}
for mod, offs in want.items():
    offs = sorted(offs)
    q = [hex(max(int(o, 16) - 1, 0)) for o in offs]
    out = subprocess.run(["addr2line", "-f", "-C", "-e", libs[mod]] + q, capture_output=True, text=True).stdout.split("\n")
    for i, o in enumerate(offs):
        names[f"{mod}+{o}"] = out[2 * i] if 2 * i < len(out) else f"{mod}+{o}"
incl, own, total = collections.Counter(), collections.Counter(), 0
for n, fr in stacks:
    sym = [names.get(f, f.split("+")[0]) for f in fr]
    if a.root:
        if a.root not in sym:
            continue
        sym = sym[: sym.index(a.root) + 1]
    total += n
    own[sym[0]] += n
    for s in set(sym):
        incl[s] += n
print(f"samples {total}")
for s, n in incl.most_common(a.top):
    print(f"{100 * n / total:5.1f}% incl {100 * own[s] / total:5.1f}% self  {s[:110]}")
