"""Run profiles: which size the apps run at, how often, and how long a run may take.

quick: tiny inputs, a few repeats; minutes on a 2-core CI machine with PoCL.
full:  the thesis sizes (4K x 4K matrices, 4K vectors, 1M-point K-means) for the
       GPU machine.
A warm-up run at --size tiny (not recorded) precedes the measured runs of every
app/configuration in the full profile, so one-time kernel compilation (PoCL's
and the NVIDIA driver's caches key on the source, not the size) stays out of
the medians.
"""
from collections import namedtuple

Profile = namedtuple("Profile", "name size repeat warmup timeout_s")

PROFILES = {
    "quick": Profile("quick", "tiny", 3, False, 120),
    "full": Profile("full", "thesis", 3, True, 1800),
}
