// icd.h - calling into a real driver through the dispatch table its handles carry.
#pragma once
#include <CL/cl_icd.h>

#include <string>

namespace tutti {

// Every ICD-compatible handle starts with its driver's dispatch table. Calling through
// it reaches the driver directly: never our own exported symbols, never the loader.
template <typename H>
inline const cl_icd_dispatch &icd(H handle) {
  return **reinterpret_cast<cl_icd_dispatch *const *>(handle);
}

// A driver string query, query(size, value, size_ret), without its trailing NULs; ""
// when the driver has none or refuses. Every clGet*Info string is read in two calls.
template <typename Query>
std::string driverString(Query query) {
  size_t n = 0;
  if (query(0, nullptr, &n) != CL_SUCCESS || !n) return "";
  std::string s(n, '\0');
  query(n, &s[0], nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

}  // namespace tutti
