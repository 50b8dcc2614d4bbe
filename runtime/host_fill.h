// host_fill.h - how fast copies land in host memory that is touched for the first time.
//
// Homes are allocated lazily, so the first copy into one faults its pages in. On the GPU
// machines (VMs) that ran at 0.35-2.5 GB/s, against 30-55 GB/s for a staged copy between
// two GPUs: MKMD's model must know it before it gives the CPU a kernel whose inputs live
// on GPUs.
#pragma once

namespace tutti {

// Measures it once per process (TUTTI_MKMD_HOST_FILL, when set, instead): a copy of 8 MiB
// into fresh pages over the copy pool, as fills into homes are made. A few milliseconds.
void probeHostFill();
// Bytes per second; 0 while not known.
double hostFillBandwidth();

}  // namespace tutti
