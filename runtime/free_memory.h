// free_memory.h - how much of a GPU's memory is really free (issue 18's default budget).
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tutti {

// Bytes free on the device now, from its vendor (NVML for NVIDIA's OpenCL, matched by PCI
// address; the AMD free-memory query); 0 when unknown.
uint64_t freeDeviceMemory(cl_device_id id, const std::vector<std::string> &extensions);

}  // namespace tutti
