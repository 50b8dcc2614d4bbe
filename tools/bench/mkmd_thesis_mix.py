#!/usr/bin/env python3
"""mkmd_thesis_mix.py - a recorded MKMD graph moved onto the thesis's three devices (issue 19).

  mkmd_thesis_mix.py GRAPH OUT.graph

Table 5.2 of the thesis: an Intel Core i7 3770 (435.2 GFLOP/s, 12.8 GB/s), an NVIDIA GTX 760
(2,258 GFLOP/s, 192 GB/s) and a GTX 750 Ti (1,306 GFLOP/s, 86.4 GB/s), the GPUs on PCIe 3.0 x8
(7.88 GB/s). Each kernel's recorded time on this machine's CPU (cpu0) and first GPU (gpu1) is
scaled by the ratio of peak compute (kernels bound by arithmetic: matmul, km_assign) or of
memory bandwidth (the rest) between the recorded device and the modelled one. A roofline
guess, not a measurement: it keeps each kernel's per-launch fixed time, and the recorded
devices' peaks are the data sheets' (H100 SXM: 66.9 TFLOP/s fp32, 3.35 TB/s) and the measured
stream rate of the Xeon (110 GB/s; 2.0 TFLOP/s assumed for its AVX-512 cores).
"""
import re
import sys

COMPUTE = {"matmul", "km_assign"}
RECORDED = {"cpu0": (2000.0, 110.0), "gpu1": (66900.0, 3350.0)}  # GFLOP/s, GB/s
# name: (based on, GFLOP/s, GB/s, device line)
THESIS = {
    "i7": ("cpu0", 435.2, 12.8, "device i7 host link=0 h2d=12.8 d2h=12.8 latency=50"),
    "gtx760": ("gpu1", 2258.0, 192.0, "device gtx760 link=1 h2d=7.88 d2h=7.88 latency=20"),
    "gtx750ti": ("gpu1", 1306.0, 86.4, "device gtx750ti link=2 h2d=7.88 d2h=7.88 latency=20"),
}


def main():
    src, dst = sys.argv[1], sys.argv[2]
    out = ["# %s on the thesis's Table 5.2 devices (mkmd_thesis_mix.py: roofline-scaled times)" % src]
    out += [v[3] for v in THESIS.values()]
    for line in open(src):
        line = line.rstrip("\n")
        if line.startswith("#") or line.startswith("device "):
            continue
        if line.startswith("kernel "):
            name = line.split()[1].rsplit(".", 1)[0]
            m = re.search(r" time=(\S+)", line)
            times = {}  # device: (fixed ms, per-group us)
            for t in (m.group(1).split(",") if m else []):
                dev, fixed, per = re.match(r"([^:]+):([^+]+)\+(.+)", t).groups()
                times[dev] = (float(fixed), float(per))
            new = []
            for dev, (base, gflops, gbs, _) in THESIS.items():
                if base not in times:
                    continue
                fixed, per = times[base]
                bf, bb = RECORDED[base]
                scale = bf / gflops if name in COMPUTE else bb / gbs
                new.append("%s:%.6g+%.6g" % (dev, fixed, per * scale))
            line = line[:m.start()] + (" time=" + ",".join(new) if new else "") if m else line
        out.append(line)
    open(dst, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
