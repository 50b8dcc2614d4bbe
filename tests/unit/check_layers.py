#!/usr/bin/env python3
# check_layers.py - fails when an include runs back up a layer (runtime/layers.txt), when
# a runtime file belongs to no layer, or when runtime/ includes the API layer (interpose/).
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
layers, names = {}, []
for line in open(os.path.join(root, "runtime", "layers.txt")):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, stems = line.split(":", 1)
    names.append(name.strip())
    for s in stems.split():
        layers[s] = len(names) - 1

bad = []
interpose = {os.path.splitext(os.path.basename(f))[0]
             for f in glob.glob(os.path.join(root, "interpose", "*.h"))}
for f in sorted(glob.glob(os.path.join(root, "runtime", "*.[ch]*"))):
    if not f.endswith((".h", ".cpp")):
        continue
    stem = os.path.splitext(os.path.basename(f))[0]
    if stem not in layers:
        bad.append(f"{f}: in no layer of runtime/layers.txt")
        continue
    for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(f).read(), re.M):
        if inc.endswith(".def"):
            continue
        istem = os.path.splitext(os.path.basename(inc))[0]
        if istem in interpose:
            bad.append(f"{f}: includes the API layer's {inc}")
        elif istem in layers and layers[istem] > layers[stem]:
            bad.append(f"{f} ({names[layers[stem]]}) includes {inc} ({names[layers[istem]]}), a layer above")
for b in bad:
    print(b)
print(f"check_layers: {len(layers)} files in {len(names)} layers, {len(bad)} violations")
sys.exit(1 if bad else 0)
