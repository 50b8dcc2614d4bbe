"""Ways of running an app under Tutti.

A mode is a name plus the environment variables added to LD_PRELOAD=<libtutti.so>.
Later modes register by adding one line to MODES.  ``TUTTI_ENV_ALL`` is added to
every Tutti run (stats lines on stderr, which the harness keeps).
"""
import os
from collections import namedtuple

Mode = namedtuple("Mode", "name env help")

TUTTI_ENV_ALL = {"TUTTI_STATS": "1"}

MODES = [
    Mode("tutti-whole", {"TUTTI_PLACEMENT": "auto"}, "whole kernels on the best measured device"),
    Mode("tutti-skmd", {"TUTTI_MODE": "skmd"},
         "SKMD: launches split across devices by Algorithm 1 (online calibration)"),
    Mode("tutti-gpu", {"TUTTI_DEVICES": "gpu"},
         "whole kernels, Tutti backed by the GPUs alone (interposition overhead vs native GPU)"),
    Mode("tutti-cpu", {"TUTTI_DEVICES": "cpu"},
         "whole kernels, Tutti backed by the CPU device alone (interposition overhead vs native CPU)"),
    Mode("tutti-skmd-linear", {"TUTTI_MODE": "skmd", "TUTTI_PARTITION": "linear"},
         "SKMD with linear partitioning (proportional to throughput, transfers ignored)"),
    Mode("tutti-mkmd", {"TUTTI_MODE": "mkmd"},
         "MKMD: commands held until the app waits, the held kernels scheduled as one graph"),
    Mode("tutti-skmd-cb", {"TUTTI_MODE": "skmd", "TUTTI_COMPLETION": "callback"},
         "SKMD learning completions from driver callbacks (TUTTI_COMPLETION=callback), for A/B"),
    Mode("tutti-skmd-huge", {"TUTTI_MODE": "skmd", "TUTTI_HUGE_PAGES": "1"},
         "SKMD with homes on transparent huge pages (TUTTI_HUGE_PAGES=1)"),
]


# A/B runs of two Tutti builds in one interleaved run (machines here drift between runs):
# TUTTI_BENCH_BASELINE names another libtutti.so, run as baseline-whole and baseline-skmd.
_BASELINE = os.environ.get("TUTTI_BENCH_BASELINE")
if _BASELINE:
    MODES += [
        Mode("baseline-whole", {"TUTTI_PLACEMENT": "auto", "LD_PRELOAD": _BASELINE},
             "tutti-whole with the baseline library (TUTTI_BENCH_BASELINE)"),
        Mode("baseline-skmd", {"TUTTI_MODE": "skmd", "LD_PRELOAD": _BASELINE},
             "tutti-skmd with the baseline library (TUTTI_BENCH_BASELINE)"),
    ]


def by_name(names):
    """Modes selected by a comma list ('all' = every mode, 'none' or '' = no mode)."""
    if names is None or names == "all":
        return list(MODES)
    if names in ("", "none"):
        return []
    table = {m.name: m for m in MODES}
    out = []
    for n in names.split(","):
        n = n.strip()
        if n not in table:
            raise ValueError("unknown mode %r (known: %s)" % (n, ", ".join(table)))
        out.append(table[n])
    return out
