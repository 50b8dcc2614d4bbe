// icd.h - calling into a real driver through the dispatch table its handles carry.
#pragma once
#include <CL/cl_icd.h>

namespace tutti {

// Every ICD-compatible handle starts with its driver's dispatch table. Calling through
// it reaches the driver directly: never our own exported symbols, never the loader.
template <typename H>
inline const cl_icd_dispatch &icd(H handle) {
  return **reinterpret_cast<cl_icd_dispatch *const *>(handle);
}

}  // namespace tutti
